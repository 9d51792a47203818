// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: debugfs cma/<area>/devices (cma_devices_parse). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cma.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cma_devices devs;
	int ret = cma_devices_parse((const char *)data, size, &devs);

	if (ret && ret != -EINVAL && ret != -ENOMEM)
		abort();
	if (ret && (devs.dev || devs.nr))
		abort();	/* freed on error */
	if (!ret) {
		if (devs.nr > CMA_DEVICES_MAX)
			abort();
		/* a name always; a driver, or "" for driver=none */
		for (unsigned int i = 0; i < devs.nr; i++)
			if (!*devs.dev[i].name ||
			    strlen(devs.dev[i].name) >= CMA_DEVICE_NAME_MAX ||
			    strlen(devs.dev[i].driver) >= CMA_DEVICE_NAME_MAX)
				abort();
		cma_devices_free(&devs);
	}
	return 0;
}
