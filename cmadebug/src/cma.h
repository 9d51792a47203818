/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Model of the CMA areas, from the files Linux 6.12 already has:
 * debugfs cma/<area>/{base_pfn,count,used,maxchunk,order_per_bit},
 * sysfs mm/cma/<area>/alloc_pages_{success,fail}, and CmaTotal in meminfo;
 * and, when present, what newer kernels (6.14+) add: debugfs
 * cma/<area>/ranges/<N>/{base_pfn,bitmap} for areas made of several
 * physical ranges, sysfs mm/cma/<area>/{total_pages,available_pages}.
 * Parses into plain structs and never prints.
 */
#ifndef CMADEBUG_CMA_H
#define CMADEBUG_CMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "path.h"

#define CMA_NAME_MAX	64

/* A counter the kernel may not have (CONFIG_CMA_SYSFS off, older kernel). */
struct opt_u64 {
	bool present;
	uint64_t v;
};

/* Upstream's CMA_MAX_RANGES (mm/cma.h, 6.14+). */
#define CMA_RANGES_MAX	8

/*
 * One physical range of an area.  Debugfs gives a range's base pfn and its
 * bitmap but not its size: with one range it is the area's count; with
 * several it is known only to within one bitmap word (32 << order_per_bit
 * pages), so PAGES is then the span the bitmap describes, an upper bound.
 */
struct cma_range {
	uint64_t base_pfn;
	uint64_t pages;
	bool exact;		/* PAGES is the range's size, not a bound */
};

struct cma_area {
	char name[CMA_NAME_MAX];
	uint64_t base_pfn;
	uint64_t count;		/* pages */
	uint64_t used;		/* pages */
	uint64_t maxchunk;	/* pages, largest free run */
	uint64_t order_per_bit;
	struct opt_u64 alloc_success;	/* sysfs alloc_pages_success */
	struct opt_u64 alloc_fail;	/* sysfs alloc_pages_fail */
	struct opt_u64 total_pages;	/* sysfs total_pages (6.14+) */
	struct opt_u64 available_pages;	/* sysfs available_pages (6.14+) */
	/*
	 * The kernel's ranges/ directory (6.14+).  Without it the area is
	 * one range, range[0] = { base_pfn, count, exact }.
	 */
	bool has_ranges;
	unsigned int nr_ranges;
	struct cma_range range[CMA_RANGES_MAX];
};

struct cma_areas {
	struct cma_area *area;
	unsigned int nr;
	uint64_t page_size;		/* 0: unknown */
	const char *page_size_source;	/* "meminfo", "live system" */
	struct opt_u64 cma_total_kb;	/* CmaTotal in /proc/meminfo */
};

/*
 * Parser: the number of words of a debugfs u32 array ("12 0 4294967295\n"),
 * each checked to be a u32; -EINVAL for anything else.
 */
int u32_array_words(const char *buf, size_t len, uint64_t *words);

/*
 * Sets the size of each of A's nr_ranges ranges from A's count and
 * order_per_bit and the number of u32 words of each range's bitmap.
 * -EINVAL when the words cannot describe count pages (a cut-short file).
 */
int cma_ranges_size(struct cma_area *a, const uint64_t *words);

/* One device attached to a device-private area (the series' cma/<area>/devices). */
#define CMA_DEVICE_NAME_MAX	128

struct cma_device {
	char name[CMA_DEVICE_NAME_MAX];
	char driver[CMA_DEVICE_NAME_MAX];	/* "": no driver bound */
};

#define CMA_DEVICES_MAX	256

struct cma_devices {
	struct cma_device *dev;
	unsigned int nr;
};

/*
 * Parser: "device=NAME driver=DRV" lines (DRV "none": no driver bound;
 * unknown keys skipped), then "records=N" equal to their number; -EINVAL
 * for anything else, -ENOMEM.  *DEVS is freed on error.
 */
int cma_devices_parse(const char *buf, size_t len, struct cma_devices *devs);
/*
 * cma/<AREA>/devices; *PRESENT false (and no error) on a kernel without the
 * file.  Prints one error line and returns an exit code.
 */
int cma_devices_load(const struct sysroot *sr, const char *area,
		     struct cma_devices *devs, bool *present);
void cma_devices_free(struct cma_devices *devs);

/* sysfs mm/cma/<AREA>/<FILE> (CONFIG_CMA_SYSFS); not present when unreadable. */
void cma_sysfs_counter(const struct sysroot *sr, const char *area,
		       const char *file, struct opt_u64 *out);

/* Loads every area.  Prints one error line and returns an exit code. */
int cma_areas_load(const struct sysroot *sr, struct cma_areas *areas);
void cma_areas_free(struct cma_areas *areas);

/*
 * The areas a command works on: all, or the one named NAME (NULL: all).
 * Sets *first and *last (inclusive); an unknown name prints one error line
 * listing the areas and returns EXIT_USAGE.
 */
int cma_areas_select(const struct cma_areas *areas, const char *name,
		     unsigned int *first, unsigned int *last);

/*
 * The page size that makes CmaTotal (kB) equal the areas' page count, or 0
 * when the numbers do not fix one (no CMA, no meminfo).
 */
uint64_t cma_page_size_from_total(uint64_t cma_total_kb, uint64_t pages);

/*
 * That, or on a live system its own page size; 0 when neither is known.
 * *SOURCE: "meminfo" or "live system".
 */
uint64_t cma_page_size(const struct sysroot *sr, const struct opt_u64 *cma_total_kb,
		       uint64_t pages, const char **source);

#endif
