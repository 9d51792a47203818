// SPDX-License-Identifier: GPL-2.0
/* The CPU PMUs and the events they publish in sysfs (pmu.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu.h"

#define PMU_DIR		"bus/event_source/devices"

/* "0x0A" or "10": Armv7's strings keep the kernel macros' upper case. */
static int parse_number(const char *s, size_t len, uint64_t *v)
{
	char hex[20];

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (len - 2 >= sizeof(hex))
			return -ERANGE;
		for (size_t i = 2; i < len; i++)
			hex[i - 2] = (char)tolower((unsigned char)s[i]);
		return parse_hex_digits(hex, len - 2, v);
	}
	return parse_u64(s, len, v);
}

/* [*BUF, *BUF + *LEN) past KEY, trailing blanks cut: -EINVAL if KEY and a value are not there. */
static int skip_key(const char **buf, size_t *len, const char *key)
{
	size_t klen = strlen(key);

	while (*len && isspace((unsigned char)(*buf)[*len - 1]))
		(*len)--;
	if (*len <= klen || memcmp(*buf, key, klen))
		return -EINVAL;
	*buf += klen;
	*len -= klen;
	return 0;
}

/* "N" or "N-M" (N <= M), the whole of [s, s + len). */
static int parse_range(const char *s, size_t len, uint64_t *a, uint64_t *b)
{
	const char *dash = memchr(s, '-', len);

	if (parse_u64(s, dash ? (size_t)(dash - s) : len, a))
		return -EINVAL;
	*b = *a;
	if (dash && parse_u64(dash + 1, len - (size_t)(dash + 1 - s), b))
		return -EINVAL;
	return *a <= *b ? 0 : -EINVAL;
}

int pmu_parse_event_term(const char *buf, size_t len, uint64_t *event,
			 bool *only_event)
{
	const char *comma;

	if (skip_key(&buf, &len, "event="))
		return -EINVAL;
	comma = memchr(buf, ',', len);
	*only_event = !comma;
	return parse_number(buf, comma ? (size_t)(comma - buf) : len, event) ? -EINVAL : 0;
}

int pmu_parse_format(const char *buf, size_t len, unsigned int *lo,
		     unsigned int *hi)
{
	uint64_t a, b;

	if (skip_key(&buf, &len, "config:") || parse_range(buf, len, &a, &b) || b > 63)
		return -EINVAL;
	*lo = (unsigned int)a;
	*hi = (unsigned int)b;
	return 0;
}

int cpulist_contains(const char *buf, size_t len, long cpu)
{
	const char *p = buf, *end = buf + len;
	int found = 0;

	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	if (p == end)
		return -EINVAL;
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma ? comma : end;
		uint64_t a, b;

		if (parse_range(p, (size_t)(stop - p), &a, &b))
			return -EINVAL;
		if (cpu >= 0 && (uint64_t)cpu >= a && (uint64_t)cpu <= b)
			found = 1;
		p = comma ? comma + 1 : end;
	}
	return found;
}

bool pmu_has_cpu(const struct pmu *pmu, long cpu)
{
	return !pmu->cpus[0] ||
	       cpulist_contains(pmu->cpus, strlen(pmu->cpus), cpu) == 1;
}

long pmu_first_cpu(const struct pmu *pmu)
{
	uint64_t cpu;

	/* the kernel prints a cpulist in ascending order */
	if (!pmu->cpus[0] || parse_u64(pmu->cpus, strcspn(pmu->cpus, "-,"), &cpu) ||
	    cpu > 4095)
		return 0;
	return (long)cpu;
}

const struct pmu *pmu_find(const struct pmu_list *list, const char *name)
{
	for (unsigned int i = 0; i < list->nr; i++)
		if (!strcmp(list->pmu[i].name, name))
			return &list->pmu[i];
	return NULL;
}

const struct pmu *pmu_of_cpu(const struct pmu_list *list, long cpu)
{
	for (unsigned int i = 0; i < list->nr; i++)
		if (pmu_has_cpu(&list->pmu[i], cpu))
			return &list->pmu[i];
	return NULL;
}

const struct pmu_event *pmu_event_find(const struct pmu *pmu, const char *name)
{
	for (unsigned int i = 0; i < pmu->nr_events; i++)
		if (!strcmp(pmu->events[i].name, name))
			return &pmu->events[i];
	return NULL;
}

/* REL under sysfs as one line, blanks cut: 0, or -errno. */
static int read_line(const struct sysroot *sr, const char *rel, char *out,
		     size_t size)
{
	char *buf;
	size_t len;
	int ret = sysroot_read(sr, FS_SYSFS, rel, &buf, &len);

	if (ret)
		return ret;
	while (len && isspace((unsigned char)buf[len - 1]))
		len--;
	ret = len < size ? 0 : -EFBIG;
	if (!ret) {
		memcpy(out, buf, len);
		out[len] = '\0';
	}
	free(buf);
	return ret;
}

/*
 * The names in REL (its subdirectories with DIRS, else its files), none when
 * REL is absent, and *ARRAY: room for one element of SIZE bytes per name,
 * zeroed.  *N is then the count (0 with no names).  EXIT_OK or, after one
 * error line, the exit code (*NAMES and *ARRAY NULL).
 */
static int list_into(const struct sysroot *sr, const char *rel, bool dirs,
		     char ***names, int *n, void **array, size_t size)
{
	*names = NULL;
	*array = NULL;
	*n = dirs ? sysroot_list_dirs(sr, FS_SYSFS, rel, names) :
		    sysroot_list_files(sr, FS_SYSFS, rel, names);
	if (*n == -ENOENT) {
		*n = 0;
		return EXIT_OK;
	}
	if (*n < 0)
		return sysroot_read_error(sr, FS_SYSFS, rel, *n, NULL);
	*array = calloc((size_t)*n + 1, size);
	if (!*array) {
		strv_free(*names, (size_t)*n);
		*names = NULL;
		err_msg("out of memory");
		return EXIT_ENV;
	}
	return EXIT_OK;
}

/* The events/ files of P; where the event= field sits comes from format/. */
static int load_events(const struct sysroot *sr, struct pmu *p)
{
	char rel[PATH_MAX], fmt[64];
	unsigned int lo = 0, hi = 63;
	char **names = NULL;
	int n, ret = EXIT_OK;

	snprintf(rel, sizeof(rel), PMU_DIR "/%s/format/event", p->name);
	if (!read_line(sr, rel, fmt, sizeof(fmt)) &&
	    pmu_parse_format(fmt, strlen(fmt), &lo, &hi))
		return sysroot_content_error(sr, FS_SYSFS, rel,
					     "not a perf format (\"config:0-15\")");
	snprintf(rel, sizeof(rel), PMU_DIR "/%s/events", p->name);
	ret = list_into(sr, rel, false, &names, &n, (void **)&p->events, sizeof(*p->events));
	if (ret)
		return ret;
	for (int i = 0; i < n; i++) {
		struct pmu_event *ev = &p->events[p->nr_events];
		uint64_t event;
		bool only;
		char *buf;
		size_t len;

		/* perf's .scale and .unit companions are no events */
		if (strchr(names[i], '.') ||
		    copy_token(names[i], strlen(names[i]), ev->name, sizeof(ev->name)))
			continue;
		snprintf(rel, sizeof(rel), PMU_DIR "/%s/events/%s", p->name, names[i]);
		ret = sysroot_read(sr, FS_SYSFS, rel, &buf, &len);
		if (ret) {
			ret = sysroot_read_error(sr, FS_SYSFS, rel, ret, NULL);
			goto out;
		}
		ret = pmu_parse_event_term(buf, len, &event, &only);
		free(buf);
		if (ret) {
			ret = sysroot_content_error(sr, FS_SYSFS, rel,
						    "not a perf event alias (\"event=0x34\")");
			goto out;
		}
		/* The value must fit its field, or the PMU would count another event. */
		ev->usable = only && (hi - lo == 63 || event >> (hi - lo + 1) == 0);
		ev->config = event << lo;
		p->nr_events++;
	}
out:
	strv_free(names, (size_t)n);
	return ret;
}

int pmus_load(const struct sysroot *sr, struct pmu_list *list)
{
	char **names = NULL;
	int n, ret = EXIT_OK;

	memset(list, 0, sizeof(*list));
	if (!sysroot_has(sr, FS_SYSFS))
		return EXIT_OK;
	/* no event_source at all: a kernel without perf events */
	ret = list_into(sr, PMU_DIR, true, &names, &n, (void **)&list->pmu, sizeof(*list->pmu));
	if (ret)
		return ret;
	for (int i = 0; i < n; i++) {
		struct pmu *p = &list->pmu[list->nr];
		char rel[PATH_MAX];
		uint64_t type;
		int err;

		if (copy_token(names[i], strlen(names[i]), p->name, sizeof(p->name)))
			continue;
		snprintf(rel, sizeof(rel), PMU_DIR "/%s/cpus", p->name);
		err = read_line(sr, rel, p->cpus, sizeof(p->cpus));
		if (err == -ENOENT && strcmp(p->name, "cpu"))
			continue;	/* not a CPU PMU */
		if (err == -ENOENT) {
			p->cpus[0] = '\0';	/* x86's "cpu": every CPU */
		} else if (err) {
			ret = sysroot_read_error(sr, FS_SYSFS, rel, err, NULL);
			goto out;
		} else if (cpulist_contains(p->cpus, strlen(p->cpus), -1) < 0) {
			ret = sysroot_content_error(sr, FS_SYSFS, rel,
						    "not a CPU list (\"0-3,6\")");
			goto out;
		}
		snprintf(rel, sizeof(rel), PMU_DIR "/%s/type", p->name);
		err = sysroot_read_u64(sr, FS_SYSFS, rel, &type);
		if (err || type > UINT32_MAX) {
			ret = err && err != -EINVAL ?
			      sysroot_read_error(sr, FS_SYSFS, rel, err, NULL) :
			      sysroot_content_error(sr, FS_SYSFS, rel,
						    "not a perf_event_attr type");
			goto out;
		}
		p->type = (uint32_t)type;
		list->nr++;	/* before loading: pmus_free() frees its events */
		ret = load_events(sr, p);
		if (ret)
			goto out;
	}
out:
	if (n > 0)
		strv_free(names, (size_t)n);
	if (ret)
		pmus_free(list);
	return ret;
}

void pmus_free(struct pmu_list *list)
{
	for (unsigned int i = 0; i < list->nr; i++)
		free(list->pmu[i].events);
	free(list->pmu);
	memset(list, 0, sizeof(*list));
}
