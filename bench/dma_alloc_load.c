// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side of make compare: N rounds of allocating a coherent buffer of
 * SIZE bytes through the dma-cma-test driver and freeing it again, each
 * allocation timed with CLOCK_MONOTONIC (QEMU's virtual time under TCG:
 * comparable between boots of one board, not a board's real latency).
 *
 *   dma-alloc-load DEVDIR SIZE N
 * prints "rounds=N ok=K failed=F p50_ns=.. p90_ns=.. max_ns=.." on one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "guest_util.h"

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int alloc_fd = -1, free_fd = -1, ret = 1;
	long long *lat = NULL;
	long n, ok = 0, failed = 0;

	if (argc != 4 || (n = strtol(argv[3], NULL, 10)) <= 0 || strtol(argv[2], NULL, 10) <= 0) {
		fprintf(stderr, "usage: dma-alloc-load DEVDIR SIZE N\n");
		return 1;
	}
	lat = calloc((size_t)n, sizeof(*lat));
	alloc_fd = open_knob("dma-alloc-load", argv[1], "alloc");
	free_fd = open_knob("dma-alloc-load", argv[1], "free");
	if (!lat || alloc_fd < 0 || free_fd < 0)
		goto out;

	for (long i = 0; i < n; i++) {
		long long t0 = now_ns();

		if (write(alloc_fd, argv[2], strlen(argv[2])) < 0) {
			failed++;
			continue;
		}
		lat[ok++] = now_ns() - t0;
		if (write(free_fd, "1", 1) < 0) {
			fprintf(stderr, "dma-alloc-load: free failed: %s\n", strerror(errno));
			goto out;
		}
	}
	qsort(lat, (size_t)ok, sizeof(*lat), cmp_ll);
	printf("rounds=%ld ok=%ld failed=%ld p50_ns=%lld p90_ns=%lld max_ns=%lld\n", n, ok, failed,
	       ok ? lat[ok / 2] : 0, ok ? lat[ok * 9 / 10] : 0, ok ? lat[ok - 1] : 0);
	ret = 0;
out:
	if (alloc_fd >= 0)
		close(alloc_fd);
	if (free_fd >= 0)
		close(free_fd);
	free(lat);
	return ret;
}
