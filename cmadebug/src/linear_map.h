/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Model of the kernel's linear map: how it is mapped by entry size, what
 * split it, who changed its attributes (debugfs linear_map/{layout,splits,
 * attr_changes}, kernel-patches/ 0009-0011), and which of its pages are
 * mapped again with another memory type (linear_map/alias_check, 0013).
 * On a kernel without the series the layout is derived from ptdump's
 * kernel_page_tables.  Parsers take a buffer; loaders read through the path
 * layer.  Nothing here prints but the loaders' one error line.
 */
#ifndef CMADEBUG_LINEAR_MAP_H
#define CMADEBUG_LINEAR_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cma.h"
#include "path.h"

#define LM_WORD_MAX	32
#define LM_LEVELS_MAX	8
#define LM_CAUSES_MAX	8

struct lm_level {
	char name[LM_WORD_MAX];	/* the kernel's: "1M", "2M", "64k" ... */
	uint64_t size;		/* bytes one entry maps; 0: the name does not say */
	uint64_t bytes;		/* of the linear map mapped with it now */
};

struct lm_layout {
	const char *source;	/* "meminfo", "linear_map", "ptdump" or "kcore" */
	unsigned int nr;
	struct lm_level level[LM_LEVELS_MAX];	/* largest first */
	uint64_t mapped;	/* sum of the levels */
	/* Only the linear_map file has these (also under source "meminfo"). */
	struct opt_u64 not_present;
	struct opt_u64 boot_mapped;
};

/*
 * linear_map/layout: "DirectMap<level>: N kB" lines, then Mapped,
 * NotPresent and BootMapped.  -EINVAL for a malformed line, a missing
 * trailer line (a cut-short read) or a Mapped that is not the levels' sum.
 */
int layout_parse(const char *buf, size_t len, struct lm_layout *layout);

/*
 * /proc/meminfo's DirectMap<size> lines (x86; arm and arm64 with
 * kernel-patches 0024/0025: the counters kept where the kernel maps),
 * largest first, source "meminfo".  No such line leaves LAYOUT->nr 0.
 * -EINVAL for a malformed line, a size twice or a name that is no size.
 */
int meminfo_layout_parse(const char *buf, size_t len, struct lm_layout *layout);

/*
 * ptdump's kernel_page_tables: the linear map's section, by entry size.
 * arm ("Kernel Mapping"): PGD lines are 1 MiB sections, or with LPAE PMD
 * lines 2 MiB blocks; PTE lines 4 KiB pages.  arm64 ("Linear Mapping
 * start" .. "end"), by page size (the smallest plain PTE line anywhere in
 * the dump, as a captured tree does not say): 4 KiB pages: PUD 1 GiB, PMD
 * 2 MiB (32 MiB with CON), PTE 4 KiB (64 KiB with CON); 16 KiB: 64G, 32M
 * (1G), 16k (2M); 64 KiB: 4T, 512M (16G), 64k (2M); only lines with a MEM/
 * or DEVICE/ type and no F (valid bit clear) are mapped.  -EINVAL for a
 * malformed line, no or an unterminated linear-map section, or a line
 * whose range is not a multiple of its entry size.
 */
int ptdump_layout_parse(const char *buf, size_t len, struct lm_layout *layout);

/*
 * An arm64 layout of PAGE_SIZE's levels (the names above), nothing mapped
 * yet; -EINVAL for another page size.  SOURCE: a static string.
 */
int lm_layout_init_arm64(struct lm_layout *layout, uint64_t page_size,
			 const char *source);
/* BYTES mapped with entries of ENTRY_SIZE; -EINVAL if no level has it. */
int lm_layout_add(struct lm_layout *layout, uint64_t entry_size,
		  uint64_t bytes);

/* "1M" -> 1048576, "64k" -> 65536; 0 when NAME is not a size. */
uint64_t lm_level_size(const char *name);

struct lm_split {
	char cause[LM_WORD_MAX];
	uint64_t addr;		/* 0: hidden from this reader (kptr_restrict) */
	uint64_t phys;
	uint64_t size;		/* bytes */
	char from[LM_WORD_MAX];
	char to[LM_WORD_MAX];
	uint64_t entries;	/* entries of FROM split */
};

struct lm_cause_total {
	char cause[LM_WORD_MAX];
	uint64_t entries;
};

struct lm_splits {
	struct lm_split *rec;
	unsigned int nr;
	unsigned int nr_totals;
	struct lm_cause_total total[LM_CAUSES_MAX];
	uint64_t dropped;	/* records the kernel had no room for */
};

/*
 * linear_map/splits: "type=split cause= addr= phys= size= from= to=
 * entries=" records, then "type=total cause= entries=" lines, then
 * "records=N dropped=M" (N: the type=split lines).  Every key shown is
 * required; unknown keys are skipped.  -EINVAL for a malformed line, an
 * unknown type, or a missing or disagreeing records line.
 */
int splits_parse(const char *buf, size_t len, struct lm_splits *splits);
void splits_free(struct lm_splits *splits);

struct lm_attr_change {
	char cause[LM_WORD_MAX];
	uint64_t changes, failures, bytes;
};

struct lm_attr_changes {
	unsigned int nr;
	struct lm_attr_change c[LM_CAUSES_MAX];
};

/*
 * linear_map/attr_changes: one "cause=C changes=N failures=N bytes=N" line
 * per cause, every key required.  The file has no count line: a read cut
 * at a line boundary cannot be told from a shorter list.
 */
int attr_changes_parse(const char *buf, size_t len,
		       struct lm_attr_changes *changes);

/*
 * %pS of the caller: a symbol of up to KSYM_NAME_LEN (512) bytes,
 * "+0xOFF/0xLEN" and " [module]" (MODULE_NAME_LEN 56).
 */
#define ALIAS_CALLER_MAX	640

/*
 * What the kernel made of a conflict (class=): a hazard, or an alias the
 * architecture sanctions (arm64's non-cacheable DMA remap of a cacheable
 * linear page).  Unclassified: a kernel before class=, or /proc/kcore;
 * counted with the hazards.
 */
enum alias_class {
	ALIAS_UNCLASSIFIED,
	ALIAS_HAZARD,
	ALIAS_SANCTIONED,
};

struct alias_conflict {
	enum alias_class cls;
	uint64_t pfn;
	uint64_t pages;
	uint64_t linear;		/* linear-map address; 0: hidden (kptr_restrict) */
	char linear_type[LM_WORD_MAX];
	bool has_alias;			/* false: alias=none (a failed change) */
	uint64_t alias;			/* a user VA in region user */
	char alias_type[LM_WORD_MAX];
	/* vmalloc, modules, pkmap, failed-change, user (one process's mappings) */
	char region[LM_WORD_MAX];
	char caller[ALIAS_CALLER_MAX];	/* "" for caller=none */
	char cma[CMA_NAME_MAX];		/* "" for cma=none */
	bool has_pid;			/* region user only: the process */
	uint64_t pid;
};

#define ALIAS_LIST_MAX	128

struct alias_report {
	struct alias_conflict *c;
	unsigned int nr;
	char checked[ALIAS_LIST_MAX];		/* "linear,modules,..." */
	char not_checked[ALIAS_LIST_MAX];
	/* The checked line's pid=: checked has "user", this process's mm. */
	bool has_pid;
	uint64_t pid;
	uint64_t hazards;		/* conflict lines not sanctioned */
	uint64_t pages;			/* their pages and the unlisted ones */
	uint64_t sanctioned;		/* conflict lines the arch sanctions */
	uint64_t sanctioned_pages;
	uint64_t unlisted_pages;
	bool incomplete;		/* the kernel could not check everything */
};

/*
 * linear_map/alias_check: "type=alias ..." conflict lines (region=user
 * ones end in pid=N), the "type=coverage checked=... [pid=N]
 * not_checked=..." line (pid= exactly when checked lists user, the pid of
 * every region=user line; lines of another type are a newer kernel's and
 * skipped), then
 * "count=N pages=N [sanctioned=N sanctioned_pages=N] unlisted_pages=N
 * [incomplete=1]", where count and pages are the hazards (and the pages
 * beyond the list, not classified).  -EINVAL for a malformed line, and for
 * a missing count line or one that disagrees with the lines above it (a
 * truncated read).
 */
int alias_parse(const char *buf, size_t len, struct alias_report *rep);
void alias_free(struct alias_report *rep);

/*
 * linear_map/alias_check_pid: "pid=N" (the process whose user mappings
 * alias_check walks too) or "pid=none".  -EINVAL for anything else.
 */
int alias_pid_parse(const char *buf, size_t len, bool *has_pid, uint64_t *pid);

/* A hazard was found (sanctioned aliases alone are not): exit status 3. */
static inline bool alias_found(const struct alias_report *rep)
{
	return rep->hazards || rep->pages;
}

/* "hazard", "sanctioned", or NULL when unclassified. */
const char *alias_class_name(enum alias_class cls);

/*
 * Loaders.  Print one error line and return an exit code; a kernel
 * without the files is EXIT_ENV naming the file and the feature.
 * layout_load() falls back to ptdump when the series is missing.
 */
int layout_load(const struct sysroot *sr, struct lm_layout *layout);
int splits_load(const struct sysroot *sr, struct lm_splits *splits);
int attr_changes_load(const struct sysroot *sr,
		      struct lm_attr_changes *changes);
int alias_load(const struct sysroot *sr, struct alias_report *rep);

/* Whether the kernel has the linear_map files / ptdump (no printing). */
bool linear_map_present(const struct sysroot *sr);
/* /proc/meminfo has well-formed DirectMap lines. */
bool meminfo_direct_map_present(const struct sysroot *sr);
bool ptdump_present(const struct sysroot *sr);

#endif
