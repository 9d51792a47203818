/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Model of the trace events cmadebug relies on: which exist in this kernel's
 * tracefs, and their fields as libtraceevent parses the format files.
 */
#ifndef CMADEBUG_EVENTS_H
#define CMADEBUG_EVENTS_H

#include <stdbool.h>

#include "path.h"

#define EVENT_MAX_FIELDS	24

struct event_info {
	const char *system;
	const char *name;
	const char *feature;	/* what provides it, for "missing" messages */
	bool present;
	unsigned int nr_fields;
	char *fields[EVENT_MAX_FIELDS];	/* non-common fields, in order */
};

struct event_list {
	struct event_info *ev;
	unsigned int nr;
	unsigned int nr_present;
	bool have_tracefs;
};

/* Prints one error line and returns an exit code on failure. */
int events_load(const struct sysroot *sr, struct event_list *list);
void events_free(struct event_list *list);

/*
 * Parser: the non-common field names of one format file, through
 * libtraceevent.  Returns the number of fields or -EINVAL.
 */
int event_format_fields(const char *system, const char *buf, size_t len,
			char **fields, unsigned int max);
/* One format file to parse, and what came of it. */
struct event_format_job {
	const char *system;
	char *buf;		/* the format file (the caller's) */
	size_t len;
	unsigned int max;	/* at most EVENT_MAX_FIELDS */
	int n;			/* fields found */
	char *fields[EVENT_MAX_FIELDS];
};

/*
 * The same for several format files, in one child process: libtraceevent
 * trusts the format file, and one in a captured tree can crash it
 * (tests/fuzz/known-libtraceevent/).  0 with each job's fields, or -errno
 * with *FAILED the first job that did not parse and WHY what happened to
 * it (it crashed, it hung, it refused); then no job keeps fields.
 */
int event_formats_fields_isolated(struct event_format_job *jobs,
				  unsigned int nr, unsigned int *failed,
				  char *why, size_t why_size);
void event_format_jobs_free(struct event_format_job *jobs, unsigned int nr);

#endif
