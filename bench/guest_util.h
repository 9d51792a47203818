/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers the guest-side benchmark programs share. */
#ifndef CMADEBUG_BENCH_GUEST_UTIL_H
#define CMADEBUG_BENCH_GUEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC in ns: guest instructions under QEMU -icount shift=0. */
static inline long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Open DIR/NAME for writing; on failure say so as PROG and return -1. */
static inline int open_knob(const char *prog, const char *dir, const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
	return fd;
}

#endif
