// SPDX-License-Identifier: GPL-2.0
/* Recording through a private tracefs instance (see trace_record.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "trace_record.h"

/* What is enabled: whole systems, or one event of one ("system", "event"). */
static const struct {
	const char *system, *event, *feature;
	bool required;
} wanted[] = {
	{ "cma", NULL, "CONFIG_CMA and tracing", true },
	{ "linear_map", NULL, "kernel-patches 0009 (linear-map events)", false },
	{ "migrate", "mm_migrate_pages", "CONFIG_MIGRATION", false },
};

/* Individual events named in messages when they are missing. */
static const char *const expected[] = {
	"cma:cma_alloc_start", "cma:cma_alloc_finish",
	"cma:cma_alloc_busy_retry", "cma:cma_release",
	"cma:cma_alloc_fail", "migrate:mm_migrate_pages",
	"linear_map:linear_map_split", "linear_map:linear_map_attr_change",
};

/* The sum of the KEYS' values in a per_cpu/cpuN/stats text; how many found. */
static int stats_sum(const char *buf, size_t len, const char *const *keys,
		     unsigned int nr_keys, uint64_t *sum, unsigned int *found)
{
	const char *p = buf, *end = buf + len, *line;
	size_t n;

	*sum = 0;
	*found = 0;
	while (next_line(&p, end, &line, &n)) {
		for (unsigned int k = 0; k < nr_keys; k++) {
			size_t kl = strlen(keys[k]);
			uint64_t v;

			if (n < kl || memcmp(line, keys[k], kl))
				continue;
			if (parse_u64(line + kl, n - kl, &v))
				return -EINVAL;
			*sum += v;
			(*found)++;
		}
	}
	return 0;
}

int trace_stats_lost(const char *buf, size_t len, uint64_t *lost)
{
	static const char *const keys[] = { "overrun:", "commit overrun:",
					    "dropped events:" };
	unsigned int found;

	if (stats_sum(buf, len, keys, ARRAY_SIZE(keys), lost, &found))
		return -EINVAL;
	return found ? 0 : -EINVAL;
}

int trace_stats_unread(const char *buf, size_t len, uint64_t *unread)
{
	static const char *const keys[] = { "entries:" };
	unsigned int found;

	if (stats_sum(buf, len, keys, ARRAY_SIZE(keys), unread, &found))
		return -EINVAL;
	return found == 1 ? 0 : -EINVAL;
}

int trace_formats_load_system(const struct sysroot *sr, const char *system,
			      struct trace_formats *f)
{
	char rel[PATH_MAX];
	char **names = NULL;
	int n, ret = 0;

	snprintf(rel, sizeof(rel), "events/%s", system);
	n = sysroot_list_dirs(sr, FS_TRACEFS, rel, &names);
	if (n < 0)
		return n == -ENOTDIR ? -ENOENT : n;
	for (int i = 0; i < n && !ret; i++) {
		char *buf;
		size_t len;

		snprintf(rel, sizeof(rel), "events/%s/%s/format", system,
			 names[i]);
		if (sysroot_read(sr, FS_TRACEFS, rel, &buf, &len))
			continue;	/* a directory without a format */
		ret = trace_formats_add(f, system, buf, len);
		if (ret)
			free(buf);
	}
	strv_free(names, (size_t)n);
	return ret;
}

static bool event_present(const struct sysroot *sr, const char *sysev)
{
	char rel[PATH_MAX];
	const char *colon = strchr(sysev, ':');

	snprintf(rel, sizeof(rel), "events/%.*s/%s", (int)(colon - sysev),
		 sysev, colon + 1);
	return sysroot_exists(sr, FS_TRACEFS, rel);
}

/* The read-only files a trace.dat carries: headers, cmdlines, clock. */
static int load_headers(struct trace_session *s, const struct sysroot *sr)
{
	struct trace_formats *f = &s->formats;
	int ret;

	ret = sysroot_read(sr, FS_TRACEFS, "events/header_page",
			   &f->header_page, &f->header_page_len);
	if (ret)
		return sysroot_read_error(sr, FS_TRACEFS, "events/header_page",
					  ret, "tracing");
	ret = sysroot_read(sr, FS_TRACEFS, "events/header_event",
			   &f->header_event, &f->header_event_len);
	if (ret)
		return sysroot_read_error(sr, FS_TRACEFS, "events/header_event",
					  ret, "tracing");
	if (sysroot_read(sr, FS_TRACEFS, "saved_cmdlines", &f->cmdlines,
			 &f->cmdlines_len)) {
		f->cmdlines = NULL;	/* optional: pids stay numbers */
		f->cmdlines_len = 0;
	}
	return 0;
}

static int open_cpus(struct trace_session *s)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	long long kb;

	s->page_size = (unsigned int)getpagesize();
	if (!tracefs_instance_file_read_number(s->inst, "buffer_subbuf_size_kb",
					       &kb) && kb > 0 && kb <= 1024)
		s->page_size = (unsigned int)kb * 1024;
	s->nr_cpus = ncpu > 0 ? (unsigned int)ncpu : 1;
	s->cpu = calloc(s->nr_cpus, sizeof(*s->cpu));
	if (!s->cpu) {
		err_msg("out of memory");
		return EXIT_ENV;
	}
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		char file[64];

		snprintf(file, sizeof(file), "per_cpu/cpu%u/trace_pipe_raw", c);
		/* A CPU that was never possible has no per_cpu directory. */
		s->cpu[c].fd = tracefs_file_exists(s->inst, file) ?
			tracefs_instance_file_open(s->inst, file,
						   O_RDONLY | O_NONBLOCK) : -1;
	}
	return 0;
}

int trace_session_start(struct trace_session *s, const struct sysroot *sr,
			bool verbose)
{
	bool present[ARRAY_SIZE(wanted)];
	struct tep_handle *tep;
	char tracing_dir[PATH_MAX];
	char *trace_dir = NULL;
	const char *refused;
	int ret;

	memset(s, 0, sizeof(*s));
	if (!sr->live) {
		err_msg("trace record: records the live system only (no --root)");
		return EXIT_USAGE;
	}
	if (!sysroot_has(sr, FS_TRACEFS))
		return sysroot_unmounted_error(FS_TRACEFS);
	if (geteuid() != 0) {
		err_msg("trace record: needs root (it creates a tracefs instance)");
		return EXIT_ENV;
	}
	refused = sysroot_tracefs_refused(sr);
	if (refused) {
		err_msg("trace record: tracefs: %s", refused);
		return EXIT_ENV;
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(expected); i++)
		if (!event_present(sr, expected[i]) &&
		    s->nr_missing < TRACE_MISSING_MAX)
			s->missing[s->nr_missing++] = expected[i];
	ret = load_headers(s, sr);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < ARRAY_SIZE(wanted); i++) {
		int n = trace_formats_load_system(sr, wanted[i].system,
						  &s->formats);
		char sysev[64];

		if (n == -ENOMEM) {
			err_msg("out of memory");
			return EXIT_ENV;
		}
		snprintf(sysev, sizeof(sysev), "%s:%s", wanted[i].system,
			 wanted[i].event ? wanted[i].event : "");
		present[i] = !n && (!wanted[i].event || event_present(sr, sysev));
		if (!present[i] && wanted[i].required) {
			err_msg("trace record: this kernel has no %s events (needs %s)",
				wanted[i].system, wanted[i].feature);
			return EXIT_ENV;
		}
	}
	/* The page header's commit word is the kernel's long. */
	tep = trace_formats_tep(&s->formats);
	s->long_size = tep ? tep_get_header_page_size(tep) : 0;
	tep_free(tep);
	if (s->long_size != 4 && s->long_size != 8) {
		err_msg("trace record: cannot read the ring-buffer page header's format (events/header_page)");
		return EXIT_ENV;
	}
	if (sysroot_path(sr, FS_TRACEFS, "", tracing_dir) ||
	    tracefs_set_tracing_dir(tracing_dir)) {
		err_msg("trace record: libtracefs does not accept %s as the tracing directory",
			tracing_dir);
		return EXIT_ENV;
	}

	snprintf(s->name, sizeof(s->name), "cmadebug-%ld", (long)getpid());
	if (tracefs_instance_exists(s->name)) {
		err_msg("trace record: tracefs instance %s exists already; not touching it",
			s->name);
		return EXIT_ENV;
	}
	s->inst = tracefs_instance_create(s->name);
	if (!s->inst) {
		err_msg("trace record: cannot create tracefs instance %s: %s",
			s->name, strerror(errno));
		return EXIT_ENV;
	}
	trace_dir = tracefs_instance_get_dir(s->inst);
	debug_msg(verbose, "recording in %s", trace_dir ? trace_dir : s->name);
	free(trace_dir);
	if (tracefs_trace_off(s->inst)) {
		err_msg("trace record: cannot stop tracing in instance %s", s->name);
		return EXIT_ENV;
	}
	s->clock = tracefs_instance_file_read(s->inst, "trace_clock", NULL);
	ret = open_cpus(s);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < ARRAY_SIZE(wanted); i++) {
		if (!present[i])
			continue;	/* listed in s->missing */
		if (tracefs_event_enable(s->inst, wanted[i].system,
					 wanted[i].event)) {
			err_msg("trace record: cannot enable %s:%s in instance %s",
				wanted[i].system,
				wanted[i].event ? wanted[i].event : "*", s->name);
			return EXIT_ENV;
		}
		debug_msg(verbose, "enabled %s:%s", wanted[i].system,
			  wanted[i].event ? wanted[i].event : "*");
	}
	if (tracefs_trace_on(s->inst)) {
		err_msg("trace record: cannot start tracing in instance %s", s->name);
		return EXIT_ENV;
	}
	return 0;
}

int trace_session_drain(struct trace_session *s)
{
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		struct trace_cpu_buf *b = &s->cpu[c];

		while (b->fd >= 0) {
			size_t commit;
			ssize_t n;

			/*
			 * Past the limit the pages stay in the kernel, which
			 * overwrites and counts them: memory stays bounded
			 * whatever the event rate (debug_pagealloc makes one
			 * linear-map event per page allocated or freed).
			 */
			if (s->max_bytes &&
			    s->kept + s->page_size > s->max_bytes) {
				s->capped = true;
				return 0;
			}
			if (b->len + s->page_size > b->cap) {
				size_t cap = b->cap ? b->cap * 2 : 16 * s->page_size;
				unsigned char *d = realloc(b->data, cap);

				if (!d) {
					err_msg("out of memory");
					return EXIT_ENV;
				}
				b->data = d;
				b->cap = cap;
			}
			n = read(b->fd, b->data + b->len, s->page_size);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				break;
			if (n < 0) {
				err_msg("trace record: reading cpu%u of instance %s: %s",
					c, s->name, strerror(errno));
				return EXIT_ENV;
			}
			if (n == 0)
				break;
			/* A short read is a whole page whose tail is unused. */
			memset(b->data + b->len + n, 0, s->page_size - (size_t)n);
			commit = trace_page_commit(b->data + b->len, s->long_size);
			b->len += s->page_size;
			s->kept += s->page_size;
			/*
			 * The kernel hands out the page it is still writing,
			 * however little it holds, and each read costs a whole
			 * page here: a page less than half full ends this CPU's
			 * turn, the rest comes with the next drain.
			 */
			if (commit < (s->page_size - 8 - (size_t)s->long_size) / 2)
				break;
		}
	}
	return 0;
}

/*
 * The last drain empties the buffers: a partial page ends a CPU's turn in
 * trace_session_drain(), so drain until a pass keeps nothing more.
 */
int trace_session_drain_all(struct trace_session *s)
{
	for (size_t kept = SIZE_MAX; kept != s->kept;) {
		int ret;

		kept = s->kept;
		ret = trace_session_drain(s);
		if (ret)
			return ret;
	}
	return 0;
}

int trace_session_stop(struct trace_session *s)
{
	int ret;

	if (s->inst && tracefs_trace_off(s->inst)) {
		err_msg("trace record: cannot stop tracing in instance %s", s->name);
		return EXIT_ENV;
	}
	ret = trace_session_drain_all(s);
	if (ret)
		return ret;
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		char file[64];
		uint64_t lost, unread = 0;
		int size = 0;

		if (s->cpu[c].fd < 0)
			continue;
		snprintf(file, sizeof(file), "per_cpu/cpu%u/stats", c);
		s->cpu[c].stats = tracefs_instance_file_read(s->inst, file, &size);
		if (!s->cpu[c].stats ||
		    trace_stats_lost(s->cpu[c].stats, (size_t)size, &lost) ||
		    (s->capped && trace_stats_unread(s->cpu[c].stats,
						     (size_t)size, &unread))) {
			err_msg("trace record: cannot read the lost-event counts in %s of instance %s",
				file, s->name);
			return EXIT_ENV;
		}
		/* Left in the buffer because of the limit: lost as well. */
		s->lost += lost + (s->capped ? unread : 0);
	}
	return 0;
}

int trace_session_records(const struct trace_session *s, struct trace_recs *r)
{
	struct tep_handle *tep = trace_formats_tep(&s->formats);
	struct trace_conv conv;
	int ret = EXIT_OK, long_size;

	memset(r, 0, sizeof(*r));
	if (!tep || trace_conv_init(&conv, tep)) {
		err_msg("trace record: libtraceevent cannot parse this kernel's event formats");
		ret = EXIT_ENV;
		goto out;
	}
	r->formats = trace_conv_formats(&conv);
	long_size = tep_get_header_page_size(tep);
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		const struct trace_cpu_buf *b = &s->cpu[c];

		for (size_t at = 0; at + s->page_size <= b->len;
		     at += s->page_size) {
			struct trace_page_damage damage;
			unsigned int before = r->nr;
			int n = trace_page_parse(&conv, b->data + at,
						 s->page_size, long_size,
						 (int)c, r, &damage);

			if (n == -ENOMEM) {
				err_msg("out of memory");
				ret = EXIT_ENV;
				goto out;
			}
			if (n)
				err_msg("trace record: cpu%u: ring-buffer page at offset %zu: %s (at byte %zu); %u records of it kept",
					c, at, damage.why, damage.offset,
					r->nr - before);
		}
	}
	r->lost += s->lost;
	trace_recs_sort(r);
out:
	if (ret)
		trace_recs_free(r);
	tep_free(tep);
	return ret;
}

void trace_session_destroy(struct trace_session *s)
{
	for (unsigned int c = 0; s->cpu && c < s->nr_cpus; c++) {
		if (s->cpu[c].fd >= 0)
			close(s->cpu[c].fd);
		free(s->cpu[c].data);
		free(s->cpu[c].stats);
	}
	free(s->cpu);
	if (s->inst) {
		/* rmdir disables the instance's events and frees its buffer. */
		tracefs_trace_off(s->inst);
		if (tracefs_instance_destroy(s->inst))
			err_msg("trace record: could not remove tracefs instance %s: %s",
				s->name, strerror(errno));
		tracefs_instance_free(s->inst);
	}
	free(s->clock);
	trace_formats_free(&s->formats);
	memset(s, 0, sizeof(*s));
}
