// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: debugfs linear_map/alias_check (alias_parse). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "linear_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct alias_report rep;
	uint64_t listed = 0;
	int ret = alias_parse((const char *)data, size, &rep);

	if (ret == 0) {
		/* A report that parsed is whole: its counts add up. */
		for (unsigned int i = 0; i < rep.nr; i++) {
			if (!rep.c[i].pages || !rep.c[i].region[0])
				abort();
			listed += rep.c[i].pages;
		}
		if (!rep.checked[0] || listed + rep.unlisted_pages != rep.pages)
			abort();
	} else if (ret != -EINVAL && ret != -ERANGE && ret != -ENOMEM) {
		abort();
	} else if (rep.c || rep.nr) {
		abort();	/* a failed parse leaves nothing to free */
	}
	alias_free(&rep);
	return 0;
}
