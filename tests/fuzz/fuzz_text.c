// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the small procfs/debugfs/sysfs text parsers:
 * /proc/mounts (mounts_find), /proc/meminfo (meminfo_find_kb), /proc/vmstat
 * (vmstat_find), one-number files (parse_u64).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	char mnt[PATH_MAX], small[8];
	uint64_t v;
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
	ret = parse_u64(buf, size, &v);
	if (ret && ret != -EINVAL && ret != -ERANGE)
		abort();
	return 0;
}
