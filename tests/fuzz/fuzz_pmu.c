// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: a PMU's sysfs files as pmu.c parses them, an events/
 * alias (pmu_parse_event_term), format/event (pmu_parse_format) and cpus
 * (cpulist_contains), each over the same input.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "pmu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	unsigned int lo, hi;
	uint64_t event;
	bool only;
	int ret;

	ret = pmu_parse_event_term(buf, size, &event, &only);
	if (ret && ret != -EINVAL)
		abort();
	ret = pmu_parse_format(buf, size, &lo, &hi);
	if (ret ? ret != -EINVAL : lo > hi || hi > 63)
		abort();
	/* a list either parses, naming a CPU or not, or is garbled for every CPU */
	ret = cpulist_contains(buf, size, 0);
	for (long cpu = 1; cpu < 8; cpu++) {
		int r = cpulist_contains(buf, size, cpu);

		if (r < -EINVAL || r > 1 || (r == -EINVAL) != (ret == -EINVAL))
			abort();
	}
	return 0;
}
