// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		char rel[PATH_MAX];
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
		n = event_format_fields(ev->system, buf, len, ev->fields,
					EVENT_MAX_FIELDS);
		free(buf);
		if (n < 0) {
			ret = sysroot_content_error(sr, FS_TRACEFS, rel,
				"libtraceevent cannot parse this format file");
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
