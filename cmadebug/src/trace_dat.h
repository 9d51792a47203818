/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a recording needs besides its pages: the kernel's ring-buffer header
 * descriptions and event format files (their text, as tracefs gives them),
 * turned into a libtraceevent handle; and the writer of a trace-cmd
 * version 6 file (trace-cmd.dat.v6(5)), which `trace-cmd report`,
 * KernelShark and `cmadebug trace report` read.
 */
#ifndef CMADEBUG_TRACE_DAT_H
#define CMADEBUG_TRACE_DAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tep_handle;

struct trace_format {
	char system[32];
	char *text;
	size_t len;
};

struct trace_formats {
	char *header_page, *header_event;
	size_t header_page_len, header_event_len;
	struct trace_format *f;		/* grouped by system */
	unsigned int nr, cap;
	char *cmdlines;			/* saved_cmdlines, may be NULL */
	size_t cmdlines_len;
};

/* Takes TEXT (LEN bytes, malloc'ed) as an event format of SYSTEM. */
int trace_formats_add(struct trace_formats *f, const char *system,
		      char *text, size_t len);
void trace_formats_free(struct trace_formats *f);

/*
 * A libtraceevent handle over the formats (header_page gives the kernel's
 * long size).  NULL if header_page or every format failed to parse.
 */
struct tep_handle *trace_formats_tep(const struct trace_formats *f);

struct trace_dat {
	const struct trace_formats *formats;
	unsigned int page_size;		/* ring-buffer sub-buffer size */
	unsigned int nr_cpus;
	const unsigned char *const *cpu_data;	/* whole sub-buffers */
	const size_t *cpu_len;
	char *const *cpu_stats;		/* per_cpu/cpuN/stats, or NULL */
	const char *clock;		/* trace_clock, or NULL */
};

/* Writes D to OUT (positioned at 0).  0 or -errno. */
int trace_dat_write(FILE *out, const struct trace_dat *d);

/* The first damaged page trace_dat_repair() found. */
struct trace_dat_damage {
	unsigned int cpu;
	uint64_t page_offset;	/* in the file */
	size_t offset;		/* in the page, where reading stops */
	const char *why;
	uint64_t data_end;	/* -ERANGE: where the CPU's data would end */
};

/*
 * Walks the ring-buffer pages of a version 6 trace.dat held in BUF (LEN
 * bytes, the host's byte order) and cuts each page's commit short before
 * its first record that could not be read (trace_page_check()), in BUF, so
 * that a reader that trusts the pages (libtracecmd's kbuffer loops for
 * ever on some) reads only what is sound.  Returns the number of pages cut
 * (the first in *DAMAGE), -ENOTSUP for a file it does not walk (another
 * version, byte order or layout: nothing changed), -ERANGE for a file cut
 * short (DAMAGE->cpu's data would end at DAMAGE->data_end, past LEN), or
 * -ENOMEM.  The top
 * level buffer only: instances' pages are not walked.
 */
int trace_dat_repair(unsigned char *buf, size_t len,
		     struct trace_dat_damage *damage);

#endif
