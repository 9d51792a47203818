// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: debugfs linear_map/layout (layout_parse). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "linear_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lm_layout l;
	uint64_t sum = 0;
	int ret = layout_parse((const char *)data, size, &l);

	if (ret == 0) {
		/* A layout that parsed is whole: Mapped is the levels' sum. */
		for (unsigned int i = 0; i < l.nr; i++)
			sum += l.level[i].bytes;
		if (!l.nr || l.nr > LM_LEVELS_MAX || sum != l.mapped ||
		    !l.boot_mapped.present || !l.not_present.present)
			abort();
	} else if (ret != -EINVAL && ret != -ERANGE) {
		abort();
	}
	return 0;
}
