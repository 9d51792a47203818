// SPDX-License-Identifier: GPL-2.0
/*
 * thp-hold: map SIZE bytes of anonymous memory on a 2 MiB boundary, ask for
 * transparent huge pages (MADV_HUGEPAGE), touch every page and keep the
 * mapping, so that linear_map/alias_check (with this pid in
 * alias_check_pid) has huge PMD entries to walk.
 *
 *   thp-hold SIZE
 *
 * Prints "mapped addr=0x... size=N" and waits until it is killed.  An
 * error is one line on stderr and exit status 1.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_SIZE	(2UL << 20)

int main(int argc, char **argv)
{
	unsigned long long size;
	uintptr_t start;
	char *end, *map;

	if (argc != 2) {
		fprintf(stderr, "usage: thp-hold SIZE\n");
		return 1;
	}
	errno = 0;
	size = strtoull(argv[1], &end, 0);
	if (errno || end == argv[1] || *end || argv[1][0] == '-' ||
	    !size || size % HUGE_SIZE || size > (1ULL << 30)) {
		fprintf(stderr, "thp-hold: bad size '%s' (a multiple of 2 MiB, at most 1 GiB)\n",
			argv[1]);
		return 1;
	}
	/* One huge page more, to start on a 2 MiB boundary inside it. */
	map = mmap(NULL, size + HUGE_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "thp-hold: cannot mmap %llu bytes: %s\n", size, strerror(errno));
		return 1;
	}
	start = ((uintptr_t)map + HUGE_SIZE - 1) & ~(uintptr_t)(HUGE_SIZE - 1);
	if (madvise((void *)start, size, MADV_HUGEPAGE)) {
		fprintf(stderr, "thp-hold: madvise(MADV_HUGEPAGE): %s\n", strerror(errno));
		return 1;
	}
	memset((void *)start, 0x5a, size);
	printf("mapped addr=0x%" PRIxPTR " size=%llu\n", start, size);
	if (fflush(stdout) == EOF) {
		fprintf(stderr, "thp-hold: cannot write to stdout: %s\n", strerror(errno));
		return 1;
	}
	for (;;)
		pause();
}
