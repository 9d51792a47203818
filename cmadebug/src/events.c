// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>

#include "events.h"

/* The events of Linux 6.12 that cmadebug reads (see tracepoints/events.md). */
static const struct {
	const char *system, *name, *feature;
} known_events[] = {
	{ "cma", "cma_alloc_start", "CONFIG_CMA and tracing" },
	{ "cma", "cma_alloc_finish", "CONFIG_CMA and tracing" },
	{ "cma", "cma_alloc_busy_retry", "CONFIG_CMA and tracing" },
	{ "cma", "cma_release", "CONFIG_CMA and tracing" },
	{ "migrate", "mm_migrate_pages", "CONFIG_MIGRATION and tracing" },
	{ "cma", "cma_alloc_fail", "the cmadebug kernel patches (cma_alloc_fail)" },
};

int event_format_fields(const char *system, const char *buf, size_t len,
			char **fields, unsigned int max)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *event = NULL;
	struct tep_format_field **list = NULL;
	const char *print;
	int n = -EINVAL;

	if (!tep)
		return -ENOMEM;
	/*
	 * Only the field list is wanted: the print format is left out.
	 * libtraceevent 1.7.1 dereferences NULL parsing a print format that
	 * names a field the format does not declare (found by
	 * tests/fuzz/fuzz_format); without one it parses the fields alone.
	 */
	print = memmem(buf, len, "\nprint fmt:", 11);
	if (print)
		len = (size_t)(print - buf) + 1;
	if (tep_parse_format(tep, &event, buf, (unsigned long)len, system) ||
	    !event)
		goto out;
	list = tep_event_fields(event);
	if (!list)
		goto out;
	n = 0;
	for (unsigned int i = 0; list[i] && (unsigned int)n < max; i++) {
		fields[n] = strdup(list[i]->name);
		if (!fields[n]) {
			while (n > 0)
				free(fields[--n]);
			n = -ENOMEM;
			goto out;
		}
		n++;
	}
out:
	free(list);
	tep_free(tep);
	return n;
}

/* How long a child may take over one format file (a parse takes < 1 ms). */
#define FORMAT_PARSE_SECONDS	5

/*
 * The child's side: for each format in turn, its field count (or -errno)
 * and then its NUL-terminated field names.
 */
static void formats_child(struct event_format_job *jobs, unsigned int nr,
			  int fd)
{
	bool ok = true;

	for (unsigned int j = 0; j < nr && ok; j++) {
		char *fields[EVENT_MAX_FIELDS];
		unsigned int max = jobs[j].max < EVENT_MAX_FIELDS ?
				   jobs[j].max : EVENT_MAX_FIELDS;
		int n = event_format_fields(jobs[j].system, jobs[j].buf,
					    jobs[j].len, fields, max);

		ok = write_all(fd, &n, sizeof(n)) == 0;
		for (int i = 0; i < n; i++) {
			ok = ok && write_all(fd, fields[i], strlen(fields[i]) + 1) == 0;
			free(fields[i]);
		}
	}
	_exit(ok ? 0 : 1);
}

/* Reads what the child sends until it closes the pipe, or the deadline. */
static int read_child(int fd, char **data, size_t *len)
{
	size_t cap = 0;
	int waited_ms = 0;

	*data = NULL;
	*len = 0;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		char chunk[4096];
		ssize_t n;
		int ready = poll(&pfd, 1, 100);

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready == 0) {
			waited_ms += 100;
			if (waited_ms >= FORMAT_PARSE_SECONDS * 1000)
				return -ETIMEDOUT;
			continue;
		}
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : 0;
		if (*len + (size_t)n > cap) {
			char *bigger = realloc(*data, (cap = 2 * (*len + (size_t)n)));

			if (!bigger)
				return -ENOMEM;
			*data = bigger;
		}
		memcpy(*data + *len, chunk, (size_t)n);
		*len += (size_t)n;
	}
}

/* Job J's answer at *OFF of what the child sent: 0, or -EIO if cut short. */
static int take_answer(struct event_format_job *job, const char *data,
		       size_t got, size_t *off)
{
	int n;

	if (got - *off < sizeof(n))
		return -EIO;
	memcpy(&n, data + *off, sizeof(n));
	*off += sizeof(n);
	if (n > 0 && (unsigned int)n > job->max)
		return -EIO;
	job->n = n;
	for (int i = 0; i < n; i++) {
		size_t flen = strnlen(data + *off, got - *off);

		job->fields[i] = flen < got - *off ? strdup(data + *off) : NULL;
		if (!job->fields[i]) {
			while (i > 0)
				free(job->fields[--i]);
			job->n = 0;
			return -EIO;
		}
		*off += flen + 1;
	}
	return 0;
}

int event_formats_fields_isolated(struct event_format_job *jobs,
				  unsigned int nr, unsigned int *failed,
				  char *why, size_t why_size)
{
	int fds[2], status = 0, ret;
	size_t got = 0, off = 0;
	char *data = NULL;
	unsigned int j;
	pid_t child;

	for (j = 0; j < nr; j++) {
		jobs[j].n = 0;
		memset(jobs[j].fields, 0, sizeof(jobs[j].fields));
	}
	*failed = 0;
	if (!nr)
		return 0;
	snprintf(why, why_size, "libtraceevent cannot parse this format file");
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	child = fork();
	if (child < 0) {
		ret = -errno;
		close(fds[0]);
		close(fds[1]);
		return ret;
	}
	if (!child) {
		close(fds[0]);
		formats_child(jobs, nr, fds[1]);
	}
	close(fds[1]);
	ret = read_child(fds[0], &data, &got);
	close(fds[0]);
	if (ret == -ETIMEDOUT)
		kill(child, SIGKILL);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (ret == -ENOMEM)
		goto out;
	/* Every answer that arrived whole; the first job without one failed. */
	for (j = 0; j < nr; j++) {
		if (take_answer(&jobs[j], data, got, &off))
			break;
		if (jobs[j].n < 0) {
			ret = jobs[j].n;
			jobs[j].n = 0;
			goto fail;
		}
	}
	if (j == nr && !ret && WIFEXITED(status) && !WEXITSTATUS(status))
		goto out;
	if (ret == -ETIMEDOUT)
		snprintf(why, why_size, "libtraceevent made no progress on this format file for %d s",
			 FORMAT_PARSE_SECONDS);
	else if (WIFSIGNALED(status))
		snprintf(why, why_size, "libtraceevent crashed on this format file (%s)",
			 strsignal(WTERMSIG(status)));
	else
		snprintf(why, why_size, "reading its fields from the parsing process failed");
	ret = -EIO;
fail:
	*failed = j < nr ? j : nr - 1;
	event_format_jobs_free(jobs, nr);
out:
	free(data);
	return ret;
}

void event_format_jobs_free(struct event_format_job *jobs, unsigned int nr)
{
	for (unsigned int j = 0; j < nr; j++) {
		for (int i = 0; i < jobs[j].n; i++)
			free(jobs[j].fields[i]);
		jobs[j].n = 0;
	}
}

/*
 * An event is present when its directory is: listed through the sysroot, so
 * a captured tree's tracefs is listed inside the tree (path.c), as its
 * format files are read.
 */
static bool system_has_event(const struct sysroot *sr, const char *system,
			     const char *name)
{
	char rel[PATH_MAX], **names = NULL;
	bool found = false;
	int n;

	snprintf(rel, sizeof(rel), "events/%s", system);
	n = sysroot_list_dirs(sr, FS_TRACEFS, rel, &names);
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			found = true;
	if (n > 0)
		strv_free(names, (size_t)n);
	return found;
}

int events_load(const struct sysroot *sr, struct event_list *list)
{
	struct event_format_job jobs[ARRAY_SIZE(known_events)] = { 0 };
	unsigned int event_of[ARRAY_SIZE(known_events)];
	char rel[ARRAY_SIZE(known_events)][PATH_MAX], why[128];
	unsigned int nr_jobs = 0, failed;
	int ret = EXIT_OK, n;

	memset(list, 0, sizeof(*list));
	list->ev = calloc(ARRAY_SIZE(known_events), sizeof(*list->ev));
	if (!list->ev) {
		err_msg("out of memory");
		return EXIT_ENV;
	}
	list->nr = ARRAY_SIZE(known_events);
	for (unsigned int i = 0; i < list->nr; i++) {
		list->ev[i].system = known_events[i].system;
		list->ev[i].name = known_events[i].name;
		list->ev[i].feature = known_events[i].feature;
	}
	list->have_tracefs = sysroot_has(sr, FS_TRACEFS);
	if (!list->have_tracefs) {
		ret = sysroot_unmounted_error(FS_TRACEFS);
		goto out;
	}

	/*
	 * Every format read first: one child parses them all (a fork each was
	 * most of a snapshot's time).
	 */
	for (unsigned int i = 0; i < list->nr; i++) {
		struct event_info *ev = &list->ev[i];
		struct event_format_job *job = &jobs[nr_jobs];
		int err;

		ev->present = system_has_event(sr, ev->system, ev->name);
		if (!ev->present)
			continue;
		snprintf(rel[nr_jobs], sizeof(rel[nr_jobs]), "events/%s/%s/format",
			 ev->system, ev->name);
		err = sysroot_read(sr, FS_TRACEFS, rel[nr_jobs], &job->buf, &job->len);
		if (err) {
			ret = sysroot_read_error(sr, FS_TRACEFS, rel[nr_jobs], err, NULL);
			goto out;
		}
		job->system = ev->system;
		job->max = EVENT_MAX_FIELDS;
		event_of[nr_jobs++] = i;
	}
	n = event_formats_fields_isolated(jobs, nr_jobs, &failed, why, sizeof(why));
	if (n == -ENOMEM) {
		err_msg("out of memory");
		ret = EXIT_ENV;
		goto out;
	}
	if (n) {
		ret = sysroot_content_error(sr, FS_TRACEFS, rel[failed], why);
		goto out;
	}
	for (unsigned int j = 0; j < nr_jobs; j++) {
		struct event_info *ev = &list->ev[event_of[j]];

		memcpy(ev->fields, jobs[j].fields, sizeof(ev->fields));
		ev->nr_fields = (unsigned int)jobs[j].n;
		list->nr_present++;
	}
out:
	for (unsigned int j = 0; j < nr_jobs; j++)
		free(jobs[j].buf);
	if (ret)
		events_free(list);
	return ret;
}

void events_free(struct event_list *list)
{
	for (unsigned int i = 0; i < list->nr; i++)
		for (unsigned int f = 0; f < list->ev[i].nr_fields; f++)
			free(list->ev[i].fields[f]);
	free(list->ev);
	memset(list, 0, sizeof(*list));
}
