// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: debugfs cma/<area>/allocated (allocated_parse). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "cma_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cma_map map;
	uint64_t pages = 0;
	int ret = allocated_parse((const char *)data, size, &map);

	if (ret && ret != -EINVAL && ret != -ERANGE && ret != -ENOMEM)
		abort();
	/* Runs that parsed are sorted, disjoint and add up. */
	for (unsigned int i = 0; i < map.nr; i++) {
		if (map.run[i].last < map.run[i].first ||
		    (i && map.run[i].first <= map.run[i - 1].last))
			abort();
		pages += map.run[i].last - map.run[i].first + 1;
	}
	if (pages != map.pages)
		abort();
	cma_map_free(&map);
	return 0;
}
