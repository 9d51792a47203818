/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Model of the CMA areas, from the files Linux 6.12 already has:
 * debugfs cma/<area>/{base_pfn,count,used,maxchunk,order_per_bit},
 * sysfs mm/cma/<area>/alloc_pages_{success,fail}, and CmaTotal in meminfo.
 * Parses into plain structs and never prints.
 */
#ifndef CMADEBUG_CMA_H
#define CMADEBUG_CMA_H

#include <stdbool.h>
#include <stdint.h>

#include "path.h"

#define CMA_NAME_MAX	64

/* A counter the kernel may not have (CONFIG_CMA_SYSFS off, older kernel). */
struct opt_u64 {
	bool present;
	uint64_t v;
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
};

struct cma_areas {
	struct cma_area *area;
	unsigned int nr;
	uint64_t page_size;		/* 0: unknown */
	const char *page_size_source;	/* "meminfo", "live system" */
	struct opt_u64 cma_total_kb;	/* CmaTotal in /proc/meminfo */
};

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

#endif
