// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side of bench/cma-alloc.sh: N allocate/release pairs of one page
 * through a CMA area's debugfs alloc/free files, then N allocations that fail
 * for lack of space, each loop timed with CLOCK_MONOTONIC.  Under QEMU with
 * -icount shift=0 one virtual nanosecond is one guest instruction, so the
 * times are instruction counts of the whole guest (this loop, the kernel,
 * interrupts), exact to about 0.1 % between runs.
 *
 *   cma-alloc-bench AREA_DIR N
 * prints "pairs_insns=... fail_insns=..." on one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "guest_util.h"

/* One write of TEXT; returns 0 or errno. */
static int knob_write(int fd, const char *text)
{
	return write(fd, text, strlen(text)) < 0 ? errno : 0;
}

int main(int argc, char **argv)
{
	int alloc_fd = -1, free_fd = -1, ret = 1;
	char too_big[32];
	long long t0, t1, t2;
	long n;

	if (argc != 4 || (n = strtol(argv[2], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: cma-alloc-bench AREA_DIR N AREA_PAGES\n");
		return 1;
	}
	snprintf(too_big, sizeof(too_big), "%ld", strtol(argv[3], NULL, 10) + 1);
	alloc_fd = open_knob("cma-alloc-bench", argv[1], "alloc");
	free_fd = open_knob("cma-alloc-bench", argv[1], "free");
	if (alloc_fd < 0 || free_fd < 0)
		goto out;

	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		int err = knob_write(alloc_fd, "1");

		if (!err)
			err = knob_write(free_fd, "1");
		if (err) {
			fprintf(stderr, "cma-alloc-bench: pair %ld failed: %s\n", i,
				strerror(err));
			goto out;
		}
	}
	t1 = now_ns();
	for (long i = 0; i < n; i++) {
		if (knob_write(alloc_fd, too_big) != ENOMEM) {
			fprintf(stderr, "cma-alloc-bench: oversized allocation %ld did not fail with ENOMEM\n", i);
			goto out;
		}
	}
	t2 = now_ns();
	printf("pairs_insns=%lld fail_insns=%lld\n", t1 - t0, t2 - t1);
	ret = 0;
out:
	if (alloc_fd >= 0)
		close(alloc_fd);
	if (free_fd >= 0)
		close(free_fd);
	return ret;
}
