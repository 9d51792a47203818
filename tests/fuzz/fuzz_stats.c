// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: debugfs cma/<area>/stats (stats_parse, stats_get). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "failures.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cma_stats st;
	uint64_t v;
	int ret = stats_parse((const char *)data, size, &st);

	if (ret && ret != -EINVAL)
		abort();
	if (!ret) {
		if (st.nr > STATS_MAX)
			abort();
		for (unsigned int i = 0; i < st.nr; i++)
			if (!stats_get(&st, st.stat[i].name, &v))
				abort();
	}
	return 0;
}
