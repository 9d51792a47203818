// SPDX-License-Identifier: GPL-2.0
/*
 * Guest side of bench/linear-map.sh: read a file N times to the end and
 * print the time per read.  Under QEMU with -icount shift=0 one virtual
 * nanosecond is one guest instruction, so the figure is an instruction
 * count (the kernel's work to produce the file, and the copy out).
 *
 *   read-bench FILE N
 * prints "file=FILE reads=N insns_per_read=X bytes=B" on one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "guest_util.h"

/* Read FILE to the end once; returns the bytes read or -errno. */
static long read_all(const char *file)
{
	static char buf[1 << 16];
	long total = 0;
	ssize_t n;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	if (n < 0)
		total = -errno;
	close(fd);
	return total;
}

int main(int argc, char **argv)
{
	long long t0, t1;
	long n, bytes = 0;

	if (argc != 3 || (n = strtol(argv[2], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: read-bench FILE N\n");
		return 1;
	}
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		bytes = read_all(argv[1]);
		if (bytes < 0) {
			fprintf(stderr, "read-bench: %s: %s\n", argv[1], strerror((int)-bytes));
			return 1;
		}
	}
	t1 = now_ns();
	printf("file=%s reads=%ld insns_per_read=%lld bytes=%ld\n", argv[1], n, (t1 - t0) / n, bytes);
	return 0;
}
