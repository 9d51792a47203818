// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: debugfs cma/<area>/failures (failures_parse). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "failures.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cma_failure_log log;
	int ret = failures_parse((const char *)data, size, &log);

	if (ret == 0) {
		/* A log that parsed is whole: every record readable. */
		for (unsigned int i = 0; i < log.nr; i++)
			if (log.rec[i].stage[FAIL_WORD_MAX - 1] ||
			    log.rec[i].kind[FAIL_WORD_MAX - 1])
				abort();
	} else if (ret != -EINVAL && ret != -ERANGE && ret != -ENOMEM) {
		abort();
	} else if (log.rec || log.nr) {
		abort();	/* a failed parse leaves nothing to free */
	}
	failures_free(&log);
	return 0;
}
