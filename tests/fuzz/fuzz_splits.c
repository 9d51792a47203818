// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: debugfs linear_map/splits (splits_parse) and
 * linear_map/attr_changes (attr_changes_parse), both key=value lines.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "linear_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lm_attr_changes changes;
	struct lm_splits splits;
	int ret = splits_parse((const char *)data, size, &splits);

	if (ret == 0) {
		for (unsigned int i = 0; i < splits.nr; i++)
			if (!splits.rec[i].cause[0] || !splits.rec[i].from[0] ||
			    !splits.rec[i].to[0] ||
			    splits.rec[i].cause[LM_WORD_MAX - 1])
				abort();
	} else if (ret != -EINVAL && ret != -ERANGE && ret != -ENOMEM) {
		abort();
	} else if (splits.rec || splits.nr) {
		abort();	/* a failed parse leaves nothing to free */
	}
	splits_free(&splits);

	ret = attr_changes_parse((const char *)data, size, &changes);
	if (ret == 0) {
		if (!changes.nr || changes.nr > LM_CAUSES_MAX)
			abort();
	} else if (ret != -EINVAL && ret != -ERANGE) {
		abort();
	}
	return 0;
}
