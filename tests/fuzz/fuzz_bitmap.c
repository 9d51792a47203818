// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: debugfs u32 array bitmaps (bitmap_parse, and the
 * ranges model's u32_array_words and cma_ranges_size) and the map strip.
 * The area's geometry comes from the input itself, so captured bitmap files
 * are seeds as they are.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "cma.h"
#include "cma_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_map(const struct cma_map *map, const struct cma_area *area)
{
	char strip[65];
	uint64_t mark = area->base_pfn;

	for (unsigned int i = 0; i < map->nr; i++)
		if (map->run[i].last < map->run[i].first ||
		    map->run[i].first < area->base_pfn ||
		    (i && map->run[i].first <= map->run[i - 1].last))
			abort();
	cma_map_strip(map, area, 64, &mark, 1, '!', strip);
	if (strip[64])
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct cma_area area = { .base_pfn = 0x7bc00 };
	uint64_t words = 0, w[CMA_RANGES_MAX];
	struct cma_map map;
	int ret;

	if (u32_array_words(buf, size, &words))
		words = 0;
	/* An exact fit (a few bits short of the last word) and a misfit. */
	area.order_per_bit = size % 4;
	area.count = (words * 32 - (words ? size % 32 : 0)) << area.order_per_bit;
	area.nr_ranges = 1;
	area.range[0].base_pfn = area.base_pfn;
	area.range[0].pages = area.count;
	ret = bitmap_parse(buf, size, area.base_pfn, area.count,
			   area.order_per_bit, &map);
	if (ret && ret != -EINVAL && ret != -ENOMEM)
		abort();
	if (!ret)
		check_map(&map, &area);
	cma_map_free(&map);
	ret = bitmap_parse(buf, size, 0, 8192, 0, &map);
	if (ret && ret != -EINVAL && ret != -ENOMEM)
		abort();
	cma_map_free(&map);

	/* The same words split into ranges of the input's choosing. */
	area.nr_ranges = 1 + size % CMA_RANGES_MAX;
	for (unsigned int r = 0; r < area.nr_ranges; r++)
		w[r] = (words >> r) + r;
	ret = cma_ranges_size(&area, w);
	if (ret && ret != -EINVAL)
		abort();
	return 0;
}
