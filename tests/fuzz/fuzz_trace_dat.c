// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: trace_dat_repair(), the walk over a version 6
 * trace.dat's headers and ring-buffer pages that 'trace report' runs before
 * libtracecmd reads the file.  Seeds: the guests' trace.dat files.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace_dat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_dat_damage damage;
	unsigned char *buf = malloc(size ? size : 1);
	int ret;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	ret = trace_dat_repair(buf, size, &damage);
	if (ret < 0 && ret != -ENOTSUP && ret != -ERANGE && ret != -ENOMEM)
		abort();
	/* A repaired file is sound: a second walk finds nothing to cut. */
	if (ret > 0 && (!damage.why || trace_dat_repair(buf, size, &damage) != 0))
		abort();
	free(buf);
	return 0;
}
