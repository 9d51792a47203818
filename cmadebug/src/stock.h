/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Model of the CMA areas of a kernel without CMA debugfs (a distribution or
 * vendor kernel): what it still tells, each field with where it came from.
 *   - the device tree's reserved-memory nodes (sysfs firmware/devicetree/base,
 *     or /proc/device-tree): name, size, base when placed, reusable,
 *     linux,cma-default;
 *   - the boot log (/dev/kmsg live; var/log/dmesg, the text of 'dmesg', in a
 *     captured tree): "Reserved memory: created CMA memory pool at B, size N
 *     MiB" + "OF: reserved mem: initialized node NAME", "cma: Reserved N MiB
 *     at B" (the cma= area, which mainline names "reserved"), "cma: CMA area
 *     NAME could not be activated";
 *   - /proc/meminfo CmaTotal/CmaFree, /proc/vmstat cma_alloc_success/fail,
 *     sysfs mm/cma/<area>/alloc_pages_{success,fail} (CONFIG_CMA_SYSFS);
 *   - per zone: /proc/zoneinfo's "cma" (pages in CMA pageblocks) and
 *     "nr_free_cma", /proc/pagetypeinfo's CMA pageblocks and free CMA
 *     blocks by order (the largest is a lower bound of the largest free run).
 * A field no source gives is unknown, never guessed.  Parsers take buffers.
 */
#ifndef CMADEBUG_STOCK_H
#define CMADEBUG_STOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cma.h"
#include "path.h"

#define SRC_DT		"device tree"
#define SRC_LOG		"kernel log"
#define SRC_DT_LOG	"device tree, kernel log"
#define SRC_SYSFS	"sysfs"
#define SRC_NONE	"not available on this kernel"

/* A value and where it came from; SOURCE is NULL while unknown. */
struct stock_field {
	uint64_t v;
	const char *source;
};

/* What the boot log says about one area. */
enum cma_log_kind {
	CMA_LOG_POOL,		/* a device-tree pool: "created CMA memory pool" */
	CMA_LOG_RESERVED,	/* "cma: Reserved N MiB at B" (cma=, or per node) */
};

#define CMA_LOG_MAX	32

struct cma_log_area {
	enum cma_log_kind kind;
	char name[CMA_NAME_MAX];	/* "" when the log does not name it */
	uint64_t base;
	uint64_t size;			/* bytes (the log says MiB) */
};

struct cma_log {
	struct cma_log_area area[CMA_LOG_MAX];
	unsigned int nr;
	char inactive[CMA_LOG_MAX][CMA_NAME_MAX];	/* "could not be activated" */
	unsigned int nr_inactive;
	unsigned int lines;		/* lines read */
};

/*
 * Parser: the CMA lines of a kernel log, in any of the forms the tools
 * give it: /dev/kmsg records ("6,12,0,-;text", continuation lines skipped),
 * 'dmesg' ("[    0.000000] text"), 'dmesg -r' ("<6>[...] text") or bare.
 * Other lines are skipped; 0, or -EINVAL for a CMA line that does not parse
 * (a cut or garbled log).  Areas past CMA_LOG_MAX are dropped.
 */
int cma_log_parse(const char *buf, size_t len, struct cma_log *log);

/*
 * Parser: the INDEX-th value (from 0) of a device-tree property made of
 * CELLS-cell (1 or 2) big-endian numbers.  -EINVAL when the property is not
 * a whole number of values, or has no INDEX-th.
 */
int dt_cells_parse(const char *buf, size_t len, unsigned int cells,
		   unsigned int index, uint64_t *val);

/* Parser: whether a device-tree string list (NUL-separated) holds WANT. */
bool dt_strings_have(const char *buf, size_t len, const char *want);

/* Parser: "Linux version 6.12.118-..." (/proc/version) -> 6, 12; -EINVAL. */
int kernel_version_parse(const char *buf, size_t len, unsigned int *major,
			 unsigned int *minor);

#define CMA_ZONE_MAX	16
#define CMA_ORDER_MAX	32
#define CMA_ZONE_NAME	16

/* One zone's CMA pages: zoneinfo's and pagetypeinfo's views of it. */
struct cma_zone {
	unsigned int node;
	char name[CMA_ZONE_NAME];
	struct opt_u64 cma_pages;	/* zoneinfo "cma" */
	struct opt_u64 free_pages;	/* zoneinfo "nr_free_cma" */
	struct opt_u64 pageblocks;	/* pagetypeinfo, CMA column */
	unsigned int nr_orders;		/* pagetypeinfo's free CMA blocks: */
	uint64_t free_blocks[CMA_ORDER_MAX];	/* [order], 0 orders: none read */
};

struct cma_zones {
	struct cma_zone zone[CMA_ZONE_MAX];
	unsigned int nr;
	struct opt_u64 pages_per_block;	/* pagetypeinfo "Pages per block" */
};

/*
 * Parser: /proc/zoneinfo into Z (zones added by "Node N, zone NAME"; their
 * "cma" and "nr_free_cma").  -EINVAL for a zone header or one of those two
 * lines that does not parse, -E2BIG past CMA_ZONE_MAX zones.
 */
int zoneinfo_cma_parse(const char *buf, size_t len, struct cma_zones *z);

/*
 * Parser: /proc/pagetypeinfo into Z: "Pages per block", each zone's
 * "type CMA" row of free blocks by order and the CMA column of "Number of
 * blocks type".  The same errors.
 */
int pagetypeinfo_cma_parse(const char *buf, size_t len, struct cma_zones *z);

struct stock_area {
	char name[CMA_NAME_MAX];	/* "" when no source names it */
	const char *name_source;
	struct stock_field base;	/* physical address */
	struct stock_field size;	/* bytes */
	struct stock_field reusable;	/* 0/1 */
	struct stock_field is_default;	/* 0/1: linux,cma-default or cma= */
	struct stock_field active;	/* 0/1 */
	struct opt_u64 alloc_success;	/* sysfs, pages */
	struct opt_u64 alloc_fail;
};

struct stock_cma {
	struct stock_area *area;
	unsigned int nr;
	/* Where each source was read, or NULL with why not in *_missing. */
	const char *dt_path;
	const char *dt_missing;
	const char *log_path;
	const char *log_missing;
	bool sysfs;			/* mm/cma/ present */
	struct opt_u64 cma_total_kb, cma_free_kb;	/* /proc/meminfo */
	struct opt_u64 vmstat_success, vmstat_fail;	/* /proc/vmstat */
	struct cma_zones zones;		/* zones with CMA pages only */
	const char *zoneinfo_missing;	/* NULL when read */
	const char *pagetypeinfo_missing;
	uint64_t page_size;		/* 0: unknown */
	const char *page_size_source;
};

/*
 * Whether the kernel lacks CMA debugfs (debugfs mounted, no cma/ in it):
 * the case the stock model is for.
 */
bool stock_cma_wanted(const struct sysroot *sr);

/*
 * Reads every source that is there.  Fails (one error line, an exit code)
 * only when a source is there but garbled, or out of memory.
 */
int stock_cma_load(const struct sysroot *sr, struct stock_cma *sc);
void stock_cma_free(struct stock_cma *sc);

#endif
