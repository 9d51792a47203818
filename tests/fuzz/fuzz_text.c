// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the small procfs/debugfs/sysfs text parsers:
 * /proc/mounts (mounts_find), /proc/meminfo (meminfo_find_kb, and its
 * DirectMap lines: meminfo_layout_parse), /proc/vmstat (vmstat_find),
 * one-number files (parse_u64).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linear_map.h"
#include "path.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	char mnt[PATH_MAX], small[8];
	struct lm_layout l;
	uint64_t v, sum = 0;
	int ret;

	if (mounts_find(buf, size, "debugfs", "/sys/kernel/debug", mnt, sizeof(mnt)) &&
	    strlen(mnt) >= sizeof(mnt))
		abort();
	if (mounts_find(buf, size, "tracefs", NULL, small, sizeof(small)) &&
	    strlen(small) >= sizeof(small))
		abort();
	meminfo_find_kb(buf, size, "CmaTotal", &v);
	meminfo_find_kb(buf, size, "MemTotal", &v);
	vmstat_find(buf, size, "cma_alloc_success", &v);
	ret = meminfo_layout_parse(buf, size, &l);
	if (ret == 0) {
		/* Sizes strictly falling, named, and Mapped their bytes' sum. */
		for (unsigned int i = 0; i < l.nr; i++) {
			if (!l.level[i].size || (i && l.level[i].size >= l.level[i - 1].size))
				abort();
			sum += l.level[i].bytes;
		}
		if (l.nr > LM_LEVELS_MAX || sum != l.mapped)
			abort();
	} else if (ret != -EINVAL) {
		abort();
	}
	ret = parse_u64(buf, size, &v);
	if (ret && ret != -EINVAL && ret != -ERANGE)
		abort();
	return 0;
}
