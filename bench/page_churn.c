// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side of bench/debug-pagealloc.sh: allocate and free pages through
 * the page allocator, N rounds of a populated 1 MiB anonymous mapping.
 * With debug_pagealloc=on every page is unmapped from the linear map when
 * freed and mapped again when allocated (__kernel_map_pages(), on arm64
 * through the attribute-change path the series counts).  Under QEMU with
 * -icount shift=0 one virtual nanosecond is one guest instruction.
 *
 *   page-churn N
 * prints "rounds=N pages=P insns_per_page=X" on one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "guest_util.h"

#define CHURN_BYTES	(1L << 20)

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE), rounds;
	long long t0, t1;

	if (argc != 2 || (rounds = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: page-churn N\n");
		return 1;
	}
	t0 = now_ns();
	for (long i = 0; i < rounds; i++) {
		void *p = mmap(NULL, CHURN_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

		if (p == MAP_FAILED) {
			perror("page-churn: mmap");
			return 1;
		}
		munmap(p, CHURN_BYTES);
	}
	t1 = now_ns();
	printf("rounds=%ld pages=%ld insns_per_page=%lld\n", rounds,
	       rounds * (CHURN_BYTES / page),
	       (t1 - t0) / (rounds * (CHURN_BYTES / page)));
	return 0;
}
