// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: what a kernel without CMA debugfs tells: the boot log
 * (cma_log_parse), device-tree properties (dt_cells_parse, dt_strings_have),
 * /proc/version (kernel_version_parse).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct cma_log log;
	unsigned int major, minor;
	uint64_t v;
	int ret = cma_log_parse(buf, size, &log);

	if (ret && ret != -EINVAL)
		abort();
	if (!ret) {
		if (log.nr > CMA_LOG_MAX || log.nr_inactive > CMA_LOG_MAX)
			abort();
		for (unsigned int i = 0; i < log.nr; i++)
			if (strlen(log.area[i].name) >= CMA_NAME_MAX ||
			    log.area[i].size % (1 << 20))
				abort();
	}
	for (unsigned int cells = 0; cells <= 3; cells++)
		for (unsigned int i = 0; i < 3; i++) {
			ret = dt_cells_parse(buf, size, cells, i, &v);
			if (ret && ret != -EINVAL)
				abort();
			if (!ret && (cells < 1 || cells > 2 ||
				     size < (i + 1) * cells * 4 ||
				     (cells == 1 && v > UINT32_MAX)))
				abort();
		}
	dt_strings_have(buf, size, "shared-dma-pool");
	ret = kernel_version_parse(buf, size, &major, &minor);
	if (ret && ret != -EINVAL)
		abort();
	return 0;
}
