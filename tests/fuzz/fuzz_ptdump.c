// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: ptdump's kernel_page_tables (ptdump_layout_parse). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "linear_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lm_layout l;
	uint64_t sum = 0;
	int ret = ptdump_layout_parse((const char *)data, size, &l);

	if (ret == 0) {
		/* Every level's bytes are whole entries of its size. */
		for (unsigned int i = 0; i < l.nr; i++) {
			if (!l.level[i].size || l.level[i].bytes % l.level[i].size)
				abort();
			sum += l.level[i].bytes;
		}
		if (!l.nr || sum != l.mapped || l.boot_mapped.present)
			abort();
	} else if (ret != -EINVAL && ret != -ERANGE) {
		abort();
	}
	return 0;
}
