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

/* The child's side: the fields, NUL-terminated names after their count. */
static void format_child(const char *system, const char *buf, size_t len,
			 unsigned int max, int fd)
{
	char *fields[EVENT_MAX_FIELDS];
	int n = event_format_fields(system, buf, len, fields,
				    max < EVENT_MAX_FIELDS ? max : EVENT_MAX_FIELDS);
	bool ok = write_all(fd, &n, sizeof(n)) == 0;

	for (int i = 0; i < n; i++) {
		ok = ok && write_all(fd, fields[i], strlen(fields[i]) + 1) == 0;
		free(fields[i]);
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

int event_format_fields_isolated(const char *system, const char *buf,
				 size_t len, char **fields, unsigned int max,
				 char *why, size_t why_size)
{
	int fds[2], status = 0, n = -EINVAL, ret;
	size_t got = 0, off;
	char *data = NULL;
	pid_t child;

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
		format_child(system, buf, len, max, fds[1]);
	}
	close(fds[1]);
	ret = read_child(fds[0], &data, &got);
	close(fds[0]);
	if (ret == -ETIMEDOUT)
		kill(child, SIGKILL);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (ret == -ETIMEDOUT) {
		snprintf(why, why_size, "libtraceevent made no progress on this format file for %d s",
			 FORMAT_PARSE_SECONDS);
		goto out;
	}
	if (WIFSIGNALED(status)) {
		snprintf(why, why_size, "libtraceevent crashed on this format file (%s)",
			 strsignal(WTERMSIG(status)));
		goto out;
	}
	if (ret || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    got < sizeof(n)) {
		n = ret == -ENOMEM ? -ENOMEM : -EIO;
		snprintf(why, why_size, "reading its fields from the parsing process failed");
		goto out;
	}
	memcpy(&n, data, sizeof(n));
	if (n < 0 || (unsigned int)n > max) {
		n = n < 0 ? n : -EIO;
		goto out;
	}
	off = sizeof(n);
	for (int i = 0; i < n; i++) {
		size_t flen = off < got ? strnlen(data + off, got - off) : 0;

		fields[i] = off + flen < got ? strdup(data + off) : NULL;
		if (!fields[i]) {
			while (i > 0)
				free(fields[--i]);
			n = -EIO;
			goto out;
		}
		off += flen + 1;
	}
out:
	free(data);
	return n;
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
	int ret = EXIT_OK;

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

	for (unsigned int i = 0; i < list->nr; i++) {
		struct event_info *ev = &list->ev[i];
		char rel[PATH_MAX], why[128];
		char *buf;
		size_t len;
		int n;

		ev->present = system_has_event(sr, ev->system, ev->name);
		if (!ev->present)
			continue;
		snprintf(rel, sizeof(rel), "events/%s/%s/format", ev->system,
			 ev->name);
		n = sysroot_read(sr, FS_TRACEFS, rel, &buf, &len);
		if (n) {
			ret = sysroot_read_error(sr, FS_TRACEFS, rel, n, NULL);
			goto out;
		}
		n = event_format_fields_isolated(ev->system, buf, len,
						 ev->fields, EVENT_MAX_FIELDS,
						 why, sizeof(why));
		free(buf);
		if (n < 0) {
			ret = sysroot_content_error(sr, FS_TRACEFS, rel, why);
			goto out;
		}
		ev->nr_fields = (unsigned int)n;
		list->nr_present++;
	}
out:
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
