// SPDX-License-Identifier: GPL-2.0
/*
 * dma-mmap-hold: map the newest coherent buffer of a dma-cma-test device
 * into this process and keep it mapped, so that linear_map/alias_check
 * (with this pid in alias_check_pid) has a user mapping to find.
 *
 *   dma-mmap-hold PATH SIZE
 *
 * PATH is <debugfs>/dma-cma-test/<dev>/mmap, SIZE the bytes to map (at most
 * the newest buffer's size; the driver maps it write-combined).  Maps SIZE
 * bytes shared, read-write, at offset 0, writes a pattern to every page,
 * prints "mapped addr=0x... size=N" and waits until it is killed.  An error
 * is one line on stderr and exit status 1.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int fail(const char *what, const char *arg, int err)
{
	fprintf(stderr, "dma-mmap-hold: %s %s: %s\n", what, arg, strerror(err));
	return 1;
}

static unsigned char pattern(size_t index)
{
	return (unsigned char)(0xa5 ^ index);
}

int main(int argc, char **argv)
{
	unsigned long long size;
	long page = sysconf(_SC_PAGESIZE);
	char *end;
	char *map;
	size_t off;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: dma-mmap-hold PATH SIZE\n");
		return 1;
	}
	errno = 0;
	size = strtoull(argv[2], &end, 0);
	if (errno || end == argv[2] || *end || !size || argv[2][0] == '-' ||
	    (unsigned long long)(size_t)size != size) {
		fprintf(stderr, "dma-mmap-hold: bad size '%s'\n", argv[2]);
		return 1;
	}
	if (page <= 0)
		page = 4096;

	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail("cannot open", argv[1], errno);
	map = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return fail("cannot mmap", argv[1], errno);
	/* The mapping keeps the buffer; the descriptor is not needed. */
	close(fd);

	/* Every page written whole with a byte of its index, then read back. */
	for (off = 0; off < size; off += (size_t)page) {
		size_t len = size - off < (size_t)page ? (size_t)size - off : (size_t)page;

		memset(map + off, pattern(off / (size_t)page), len);
	}
	for (off = 0; off < size; off++) {
		if ((unsigned char)map[off] != pattern(off / (size_t)page)) {
			fprintf(stderr, "dma-mmap-hold: byte at offset %zu reads back 0x%02x\n",
				off, (unsigned char)map[off]);
			return 1;
		}
	}

	printf("mapped addr=0x%" PRIxPTR " size=%llu\n", (uintptr_t)map, size);
	if (fflush(stdout) == EOF)
		return fail("cannot write to", "stdout", errno);
	for (;;)
		pause();
}
