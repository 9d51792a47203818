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
	uint64_t hazards = 0, listed = 0, sanctioned = 0, sanctioned_listed = 0;
	int ret = alias_parse((const char *)data, size, &rep);

	if (ret == 0) {
		/* A report that parsed is whole: each class's counts add up. */
		for (unsigned int i = 0; i < rep.nr; i++) {
			if (!rep.c[i].pages || !rep.c[i].region[0])
				abort();
			if (rep.c[i].cls == ALIAS_SANCTIONED) {
				sanctioned++;
				sanctioned_listed += rep.c[i].pages;
			} else {
				hazards++;
				listed += rep.c[i].pages;
			}
		}
		if (!rep.checked[0] || listed + rep.unlisted_pages != rep.pages ||
		    hazards != rep.hazards || sanctioned != rep.sanctioned ||
		    sanctioned_listed != rep.sanctioned_pages ||
		    alias_found(&rep) != (hazards || rep.pages))
			abort();
	} else if (ret != -EINVAL && ret != -ERANGE && ret != -ENOMEM) {
		abort();
	} else if (rep.c || rep.nr) {
		abort();	/* a failed parse leaves nothing to free */
	}
	alias_free(&rep);
	return 0;
}
