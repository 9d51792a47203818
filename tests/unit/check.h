/* SPDX-License-Identifier: GPL-2.0 */
/* The unit tests' one checking macro: count, and say what was expected. */
#ifndef CMADEBUG_TEST_CHECK_H
#define CMADEBUG_TEST_CHECK_H

#include <stdio.h>

struct results {
	unsigned int passed, failed;
	const char *test;
};

#define CHECK(r, cond, ...)                                            \
	do {                                                           \
		if (cond) {                                            \
			(r)->passed++;                                 \
		} else {                                               \
			(r)->failed++;                                 \
			printf("FAIL %s (%s:%d): ", (r)->test, __FILE__, \
			       __LINE__);                              \
			printf(__VA_ARGS__);                           \
			putchar('\n');                                 \
		}                                                      \
	} while (0)

#endif
