/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recording on the live system: a private tracefs instance
 * (instances/cmadebug-<pid>), the CMA, linear-map and migration events
 * enabled in it only, its per-CPU trace_pipe_raw drained into memory page by
 * page, up to max_bytes in all; what the kernel buffered past that is
 * counted as lost, never kept.  The user's own tracing (the top-level buffer, other instances) is
 * not touched; the instance is removed by trace_session_destroy().
 */
#ifndef CMADEBUG_TRACE_RECORD_H
#define CMADEBUG_TRACE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "path.h"
#include "trace.h"
#include "trace_dat.h"

struct tracefs_instance;

struct trace_cpu_buf {
	int fd;			/* trace_pipe_raw, -1 when closed */
	unsigned char *data;	/* whole sub-buffers */
	size_t len, cap;
	char *stats;		/* per_cpu/cpuN/stats at the end */
};

#define TRACE_MISSING_MAX 8

struct trace_session {
	struct tracefs_instance *inst;
	char name[32];
	unsigned int page_size;		/* sub-buffer size */
	unsigned int nr_cpus;
	struct trace_cpu_buf *cpu;
	struct trace_formats formats;
	char *clock;
	/* Events wanted but absent from this kernel ("system:event"). */
	const char *missing[TRACE_MISSING_MAX];
	unsigned int nr_missing;
	uint64_t lost;			/* overrun + dropped, from the stats */
	int long_size;			/* the kernel's, for page headers */
	size_t max_bytes;		/* kept at most, all CPUs; 0: no limit */
	size_t kept;			/* drained so far, all CPUs */
	bool capped;			/* max_bytes reached: the rest is lost */
};

/*
 * Creates the instance and enables the events; tracing is on when it
 * returns 0.  Else one error line and the exit code (EXIT_ENV: no tracefs,
 * not root, no CMA events, the instance could not be made).  The session
 * must be destroyed either way.
 */
int trace_session_start(struct trace_session *s, const struct sysroot *sr,
			bool verbose);
/*
 * Moves what the kernel has buffered into memory, up to max_bytes (set it
 * after trace_session_start()).  0 or an exit code.
 */
int trace_session_drain(struct trace_session *s);
/* Drains until nothing more comes (tracing stopped).  0 or an exit code. */
int trace_session_drain_all(struct trace_session *s);
/*
 * Stops tracing, drains, reads the lost-event counts (with the events left
 * unread when capped).  0 or an exit code.
 */
int trace_session_stop(struct trace_session *s);
/* The records of the drained pages, sorted by time.  0 or an exit code. */
int trace_session_records(const struct trace_session *s,
			  struct trace_recs *r);
/* Removes the instance (closing its files first) and frees everything. */
void trace_session_destroy(struct trace_session *s);

/* Parser: lost events in a per_cpu/cpuN/stats text (overrun, commit overrun, dropped). */
int trace_stats_lost(const char *buf, size_t len, uint64_t *lost);
/* Parser: events still in the buffer (entries:) in a per_cpu/cpuN/stats text. */
int trace_stats_unread(const char *buf, size_t len, uint64_t *unread);

/* Every format file of SYSTEM under SR's tracefs into F; -ENOENT if absent. */
int trace_formats_load_system(const struct sysroot *sr, const char *system,
			      struct trace_formats *f);

#endif
