// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness: a trace event format file (event_format_fields). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *fields[EVENT_MAX_FIELDS];
	int n = event_format_fields("cma", (const char *)data, size, fields,
				    EVENT_MAX_FIELDS);

	if (n > EVENT_MAX_FIELDS)
		abort();
	for (int i = 0; i < n; i++)
		free(fields[i]);
	return 0;
}
