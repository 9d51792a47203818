/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Model of an area's allocation map: the allocated pfn runs, from the
 * series' "allocated" file (a locked snapshot) or, on a kernel without it,
 * from mainline's "bitmap" file (u32 words, read unlocked by the kernel),
 * or on 6.14+ from each range's ranges/<N>/bitmap.
 */
#ifndef CMADEBUG_CMA_MAP_H
#define CMADEBUG_CMA_MAP_H

#include <stdint.h>

#include "cma.h"
#include "path.h"

struct pfn_run {
	uint64_t first, last;	/* inclusive */
};

struct cma_map {
	struct pfn_run *run;
	unsigned int nr;
	uint64_t pages;
	/* Runs are whole bitmap bits of 1 << order_per_bit pages. */
	uint64_t order_per_bit;
	const char *source;	/* "allocated", "bitmap" or "ranges" */
};

/*
 * "start_pfn=0xA end_pfn=0xB pages=N" lines (B inclusive; unknown keys
 * skipped), then "records=R pages=P order_per_bit=K", checked: R runs, P
 * pages, each run whole 1 << K pages.  -EINVAL otherwise.
 */
int allocated_parse(const char *buf, size_t len, struct cma_map *map);
/* debugfs u32 array words (little-endian bit order), ORDER pages a bit. */
int bitmap_parse(const char *buf, size_t len, uint64_t base_pfn,
		 uint64_t count, uint64_t order_per_bit, struct cma_map *map);
void cma_map_free(struct cma_map *map);

/* Prefers "allocated"; one error line and an exit code on failure. */
int cma_map_load(const struct sysroot *sr, const struct cma_area *area,
		 struct cma_map *map);

/*
 * A WIDTH-character strip of the area (its ranges end to end): '.' free, '#' used, '+' partly used,
 * and MARK where one of the NR_MARKS pfns lies.  OUT holds WIDTH + 1.
 * O(WIDTH log runs + runs): the runs are sorted and disjoint, as loaded.
 */
void cma_map_strip(const struct cma_map *map, const struct cma_area *area,
		   unsigned int width, const uint64_t *marks,
		   unsigned int nr_marks, char mark, char *out);

#endif
