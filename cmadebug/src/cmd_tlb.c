// SPDX-License-Identifier: GPL-2.0
/*
 * cmadebug tlb: kernel-only instructions, cycles and TLB events around a
 * linear_map_walk run (kernel-patches/0019) or a command, as one group of
 * perf_event_open counters, for boards without a perf binary.  Prints
 * every count or "not supported" (never a number the PMU did not count),
 * and can write the runs in reports/' A/B layout
 * (DIR/VARIANT/boot-N/run-M.csv as 'perf stat -x,' writes it, meta.json).
 * 'tlb events' prints which events that is on this core (tlb.h's choice
 * from the PMU's sysfs list), for perf-scripts/tlb-ab.sh and for people.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "pmu.h"
#include "tlb.h"
#include "tlb_pmu.h"

#ifndef CMADEBUG_VERSION
#define CMADEBUG_VERSION "0.1"
#endif

#define WALK_FILE	"linear_map_walk"
#define LAYOUT_FILE	"linear_map/layout"

static const char usage_text[] =
	"Usage: cmadebug [--json] tlb walk --start PHYS --pages N --accesses M [--seed S]\n"
	"                [--runs R] [--events LIST] [--pmu NAME] [--cpu N]\n"
	"                [--results DIR --variant NAME]\n"
	"       cmadebug [--json] tlb [--runs R] [--events LIST] [--pmu NAME] [--cpu N]\n"
	"                [--results DIR --variant NAME] -- CMD [ARGS...]\n"
	"       cmadebug [--root DIR] [--json] tlb events [--events LIST] [--pmu NAME] [--cpu N]\n"
	"Counts kernel-only events (one group of at most 6 counters, no multiplexing)\n"
	"around one linear_map_walk run or around CMD; an event the PMU does not count\n"
	"is printed \"not supported\".  --results writes DIR/NAME/boot-N/run-M.csv\n"
	"('perf stat -x,' format) and meta.json for reports/' abstats.\n"
	"The events are the CPU's PMU's own (sysfs events/): instructions, cycles and\n"
	"its TLB walks, else L2 TLB refills, else L1 TLB refills; 'tlb events' prints\n"
	"that choice.  --events LIST: names the PMU lists, or instructions, cycles, rNNNN.\n";

/* What the system says about itself, recorded with every run. */
struct tlb_meta {
	char *kernel, *cmdline, *layout, *boot_id;
	char machine[256];
	char layout_summary[256];
};

struct tlb_run {
	struct tlb_reading rd[TLB_MAX_EVENTS];
	struct tlb_judged j[TLB_MAX_EVENTS];
	struct tlb_walk w;		/* walk mode: the walker's report */
	int exit_status;		/* command mode */
	unsigned int number;		/* run-M.csv, 0 without --results */
};

struct tlb_state {
	struct tlb_opts o;
	struct sysroot *sr;	/* the command's (cmd_ctx) */
	struct pmu_list pmus;	/* the CPU PMUs in sysfs */
	const struct pmu *pmu;	/* the one counting (in pmus), NULL: none */
	struct tlb_selection sel;
	struct tlb_meta meta;
	char names[TLB_MAX_EVENTS][TLB_NAME_MAX];
	const char *name_ptr[TLB_MAX_EVENTS];
	struct tlb_run *runs;
	long cpu;
	int pmu_type;
	bool walker_counts;	/* the walker counts itself (kernel-patches/0019) */
	char boot_dir[PATH_MAX];
};

/* A one-line file with its trailing newline and blanks cut, or NULL. */
static char *read_line_file(const struct sysroot *sr, enum fs_kind kind,
			    const char *rel)
{
	char *buf;
	size_t len;

	if (sysroot_read(sr, kind, rel, &buf, &len))
		return NULL;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	return buf;
}

static void meta_load(const struct sysroot *sr, struct tlb_meta *m)
{
	struct utsname u;
	char *model;
	size_t len;

	m->kernel = read_line_file(sr, FS_ROOT, "proc/version");
	m->cmdline = read_line_file(sr, FS_ROOT, "proc/cmdline");
	m->boot_id = read_line_file(sr, FS_ROOT, "proc/sys/kernel/random/boot_id");
	if (!sysroot_read(sr, FS_DEBUGFS, LAYOUT_FILE, &m->layout, &len))
		tlb_layout_summary(m->layout, len, m->layout_summary,
				   sizeof(m->layout_summary));
	model = read_line_file(sr, FS_SYSFS, "firmware/devicetree/base/model");
	snprintf(m->machine, sizeof(m->machine), "%s%s%s",
		 uname(&u) ? "unknown" : u.machine, model ? " " : "",
		 model ? model : "");
	free(model);
}

static void meta_free(struct tlb_meta *m)
{
	free(m->kernel);
	free(m->cmdline);
	free(m->layout);
	free(m->boot_id);
}

/* The provenance fields, in the output and in meta.json. */
static void emit_meta(struct emit *e, const struct tlb_state *s)
{
	const struct tlb_meta *m = &s->meta;

	emit_string(e, "machine", "Machine", m->machine);
	if (m->kernel)
		emit_string(e, "kernel", "Kernel", m->kernel);
	else
		emit_missing(e, "kernel", "Kernel");
	if (m->cmdline)
		emit_string(e, "cmdline", "Command line", m->cmdline);
	else
		emit_missing(e, "cmdline", "Command line");
	emit_string(e, "layout", "Linear map",
		    m->layout ? m->layout_summary :
		    "unknown (no linear_map/layout: kernel without CONFIG_LINEAR_MAP_DEBUGFS)");
	if (m->layout)
		emit_string(e, "linear_map_layout", NULL, m->layout);
	else
		emit_missing(e, "linear_map_layout", NULL);
	if (m->boot_id)
		emit_string(e, "boot_id", NULL, m->boot_id);
	else
		emit_missing(e, "boot_id", NULL);
}

static void emit_workload(struct emit *e, const struct tlb_state *s)
{
	char text[512];
	size_t used = 0;

	if (s->o.walk) {
		snprintf(text, sizeof(text), "%s start=0x%" PRIx64 " pages=%" PRIu64
			 " accesses=%" PRIu64 " seed=%" PRIu64, WALK_FILE,
			 s->o.w.start, s->o.w.pages, s->o.w.accesses, s->o.w.seed);
		emit_string(e, NULL, "Workload", text);
		emit_object_begin(e, "walk");
		emit_uint(e, "start", NULL, FMT_HEX, s->o.w.start);
		emit_uint(e, "pages", NULL, FMT_DEC, s->o.w.pages);
		emit_uint(e, "working_set_bytes", NULL, FMT_DEC,
			  s->o.w.pages * (uint64_t)sysconf(_SC_PAGESIZE));
		emit_uint(e, "accesses", NULL, FMT_DEC, s->o.w.accesses);
		emit_uint(e, "seed", NULL, FMT_DEC, s->o.w.seed);
		emit_object_end(e);
		emit_string(e, "counted_by", "Counted by", s->walker_counts ?
			    "walker: kernel perf counters around the walk's loop only" :
			    "cmadebug: perf_event_open around the write to the walker");
		return;
	}
	text[0] = '\0';
	for (char **a = s->o.cmd; *a && used < sizeof(text) - 1; a++) {
		int n = snprintf(text + used, sizeof(text) - used, "%s%s",
				 used ? " " : "", *a);

		if (n < 0)
			break;
		used += (size_t)n;
	}
	emit_string(e, "command", "Workload", text);
}

/* The names of the events in MASK (all: ~0u), comma separated, as text and a JSON list. */
static void emit_names(struct emit *e, const struct tlb_state *s,
		       const char *key, const char *label, unsigned int mask)
{
	char text[TLB_MAX_EVENTS * TLB_NAME_MAX];
	size_t used = 0;

	text[0] = '\0';
	for (unsigned int i = 0; i < s->sel.nr_events; i++)
		if (mask & (1u << i))
			used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%s",
						 used ? "," : "", s->names[i]);
	emit_string(e, NULL, label, used ? text : "-");
	emit_list_begin(e, key);
	for (unsigned int i = 0; i < s->sel.nr_events; i++)
		if (mask & (1u << i))
			emit_string(e, NULL, NULL, s->names[i]);
	emit_list_end(e);
}

/* The group's events and what they measure. */
static void emit_events(struct emit *e, const struct tlb_state *s)
{
	emit_names(e, s, "events", "Events", ~0u);
	emit_string(e, "walk_metric", "Walk metric", tlb_metric_name(s->sel.metric));
	emit_names(e, s, "walk_events", "Walk events", s->sel.walk_mask);
	emit_string(e, "counting", "Counting",
		    "kernel only (exclude_user, exclude_hv), one group, this task");
	emit_int(e, "cpu", "CPU", s->cpu);
	if (s->pmu)
		emit_string(e, "pmu", "PMU", s->pmu->name);
	else
		emit_missing(e, "pmu", "PMU");
}

/* What 'tlb events' prints: the PMU, the group, the metric and why. */
static void emit_choice(struct emit *e, const struct tlb_state *s)
{
	const struct tlb_selection *sel = &s->sel;

	emit_object_begin(e, NULL);
	if (s->pmu) {
		emit_string(e, "pmu", "PMU", s->pmu->name);
		emit_uint(e, "pmu_type", "PMU type", FMT_DEC, s->pmu->type);
		emit_string(e, "pmu_cpus", "PMU CPUs", s->pmu->cpus[0] ? s->pmu->cpus : "all");
	} else {
		emit_missing(e, "pmu", "PMU");
		emit_missing(e, "pmu_type", "PMU type");
		emit_missing(e, "pmu_cpus", "PMU CPUs");
	}
	emit_int(e, "cpu", "CPU", s->cpu);
	emit_string(e, "walk_metric", "Walk metric", tlb_metric_name(sel->metric));
	emit_names(e, s, "walk_events", "Walk events", sel->walk_mask);
	if (sel->instructions >= 0)
		emit_string(e, "instructions_event", "Instructions", s->names[sel->instructions]);
	else
		emit_missing(e, "instructions_event", "Instructions");
	if (sel->cycles >= 0)
		emit_string(e, "cycles_event", "Cycles", s->names[sel->cycles]);
	else
		emit_missing(e, "cycles_event", "Cycles");
	emit_names(e, s, "events", "Events", ~0u);
	emit_string(e, "why", "Why", sel->why);
	emit_list_begin(e, "counters");
	for (unsigned int i = 0; i < sel->nr_events; i++) {
		const struct tlb_event *ev = &sel->events[i];
		const char *role = (int)i == sel->instructions ? "instructions" :
				   (int)i == sel->cycles ? "cycles" :
				   sel->walk_mask & (1u << i) ? "walk metric" : "counted";

		emit_object_begin(e, NULL);
		emit_string(e, "name", "EVENT", s->names[i]);
		if (ev->pmu_alias)
			emit_string(e, "sysfs", "SYSFS", ev->name);
		else
			emit_missing(e, "sysfs", "SYSFS");
		emit_uint(e, "type", "TYPE", FMT_DEC, ev->type);
		emit_uint(e, "config", "CONFIG", FMT_HEX, ev->config);
		emit_string(e, "role", "ROLE", role);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_object_end(e);
}

/* ---- the results layout (perf-scripts/README.md) ------------------------ */

/* A path of at most PATH_MAX bytes; -ENAMETOOLONG when it does not fit. */
static int pathf(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

static int mkdirs(const char *path)
{
	char tmp[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, path, len + 1);
	for (char *p = tmp + 1; ; p++) {
		if (*p == '/' || !*p) {
			char c = *p;

			*p = '\0';
			if (mkdir(tmp, 0755) && errno != EEXIST)
				return -errno;
			*p = c;
			if (!c)
				return 0;
		}
	}
}

/* Highest N of "<prefix>N<suffix>" in DIR (0 if none). */
static unsigned int highest_numbered(const char *dir, const char *prefix,
				     const char *suffix)
{
	size_t pl = strlen(prefix), sl = strlen(suffix);
	unsigned int best = 0;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		size_t nl = strlen(d->d_name);
		char *end;
		unsigned long v;

		if (nl <= pl + sl || strncmp(d->d_name, prefix, pl) ||
		    strcmp(d->d_name + nl - sl, suffix) ||
		    d->d_name[pl] < '1' || d->d_name[pl] > '9')
			continue;
		v = strtoul(d->d_name + pl, &end, 10);
		if (end == d->d_name + nl - sl && v > best && v < 1000000)
			best = (unsigned int)v;
	}
	closedir(dp);
	return best;
}

/* Whether DIR/meta.json records this boot. */
static bool same_boot(const char *dir, const char *boot_id)
{
	char path[PATH_MAX], needle[128];
	char buf[65536];
	ssize_t n;
	int fd;

	if (!boot_id || pathf(path, "%s/meta.json", dir))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	snprintf(needle, sizeof(needle), "\"boot_id\": \"%s\"", boot_id);
	return strstr(buf, needle) != NULL;
}

/* Writes BUF to PATH through a temporary file and a rename. */
static int write_atomic(const char *path, const char *buf, size_t len)
{
	char tmp[PATH_MAX];
	int fd, ret = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, buf, len);
	if (!ret && (fchmod(fd, 0644) || fsync(fd)))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

/* The emitter's JSON of FILL into PATH, atomically. */
static int write_json(const char *path, const struct tlb_state *s,
		      void (*fill)(struct emit *e, const struct tlb_state *s,
				   const void *arg),
		      const void *arg)
{
	struct emit e;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f)
		return -ENOMEM;
	emit_init(&e, f, true);
	emit_object_begin(&e, NULL);
	fill(&e, s, arg);
	emit_object_end(&e);
	ret = emit_finish(&e);
	if (fclose(f) && !ret)
		ret = -EIO;
	if (!ret)
		ret = write_atomic(path, buf, len);
	free(buf);
	return ret;
}

static void fill_meta(struct emit *e, const struct tlb_state *s,
		      const void *arg)
{
	(void)arg;
	emit_meta(e, s);
	emit_string(e, "tool", NULL, "cmadebug tlb " CMADEBUG_VERSION);
	emit_workload(e, s);
	emit_events(e, s);
}

static void fill_walker(struct emit *e, const struct tlb_state *s,
			const void *arg)
{
	const struct tlb_walk *w = arg;

	emit_uint(e, "working_set_bytes", NULL, FMT_DEC,
		  w->pages * (uint64_t)sysconf(_SC_PAGESIZE));
	emit_uint(e, "start", NULL, FMT_DEC, w->start);
	emit_uint(e, "pages", NULL, FMT_DEC, w->pages);
	emit_uint(e, "accesses", NULL, FMT_DEC, w->accesses);
	emit_uint(e, "seed", NULL, FMT_DEC, w->seed);
	emit_uint(e, "cpu", NULL, FMT_DEC, w->cpu);
	emit_uint(e, "elapsed_ns", NULL, FMT_DEC, w->elapsed_ns);
	emit_uint(e, "faults", NULL, FMT_DEC, w->faults);
	(void)s;
}

/*
 * The "events" member as write_json() puts it in meta.json (malloc'ed), to
 * find it there: the same emitter writes the list the same way.
 */
static char *events_member(const struct tlb_state *s)
{
	char *doc = NULL, *start, *end, *member = NULL;
	size_t len = 0;
	struct emit e;
	FILE *f = open_memstream(&doc, &len);
	int ret;

	if (!f)
		return NULL;
	emit_init(&e, f, true);
	emit_object_begin(&e, NULL);
	emit_names(&e, s, "events", NULL, ~0u);
	emit_object_end(&e);
	ret = emit_finish(&e);
	if (fclose(f) || ret)
		goto out;
	/* from its key to its closing bracket: the object's braces cut */
	start = strchr(doc, '"');
	end = strrchr(doc, ']');
	if (start && end > start)
		member = strndup(start, (size_t)(end - start + 1));
out:
	free(doc);
	return member;
}

/*
 * Whether BOOT_DIR's meta.json at PATH is to be (re)written: 1 yes, 0 keep
 * it, -EEXIST when this boot's runs counted other events.  tlb-ab.sh's own
 * meta.json is its business; ours is rewritten until a run is kept, then
 * must list the events counted now.
 */
static int meta_check(const struct tlb_state *s, const char *path)
{
	char buf[65536], *member = NULL;
	ssize_t n;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 1 : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	if (!strstr(buf, "\"tool\": \"cmadebug tlb "))
		return 0;
	if (!highest_numbered(s->boot_dir, "run-", ".csv"))
		return 1;
	member = events_member(s);
	if (!member) {
		ret = -ENOMEM;
		goto out;
	}
	ret = strstr(buf, member) ? 0 : -EEXIST;
out:
	free(member);
	return ret;
}

/* DIR/VARIANT/boot-N of this boot (a new N for a new boot), meta.json in it. */
static int results_open(struct tlb_state *s)
{
	char vdir[PATH_MAX], path[PATH_MAX];
	unsigned int n;
	int ret;

	if (pathf(vdir, "%s/%s", s->o.results, s->o.variant) ||
	    pathf(path, "%s/boot-%u/meta.json", vdir, 1000000))
		return -ENAMETOOLONG;
	n = highest_numbered(vdir, "boot-", "");
	for (unsigned int b = 1; b <= n; b++) {
		pathf(s->boot_dir, "%s/boot-%u", vdir, b);
		if (same_boot(s->boot_dir, s->meta.boot_id))
			goto have_dir;
	}
	pathf(s->boot_dir, "%s/boot-%u", vdir, n + 1);
have_dir:
	ret = mkdirs(s->boot_dir);
	if (ret)
		return ret;
	pathf(path, "%s/meta.json", s->boot_dir);
	ret = meta_check(s, path);
	if (ret <= 0)
		return ret;
	return write_json(path, s, fill_meta, NULL);
}

static int results_write_run(struct tlb_state *s, struct tlb_run *r)
{
	char path[PATH_MAX], comment[256];
	char *buf = NULL;
	size_t len = 0;
	int ret;

	r->number = highest_numbered(s->boot_dir, "run-", ".csv") + 1;
	if (s->o.walk)
		snprintf(comment, sizeof(comment),
			 "cmadebug tlb: walk start=0x%" PRIx64 " pages=%" PRIu64
			 " accesses=%" PRIu64 " seed=%" PRIu64 " cpu=%" PRIu64,
			 r->w.start, r->w.pages, r->w.accesses, r->w.seed, r->w.cpu);
	else
		snprintf(comment, sizeof(comment), "cmadebug tlb: command %s",
			 s->o.cmd[0]);
	ret = tlb_csv_run(s->name_ptr, r->rd, r->j, s->sel.nr_events, comment,
			  &buf, &len);
	if (!ret) {
		ret = pathf(path, "%s/run-%u.csv", s->boot_dir, r->number);
		if (!ret)
			ret = write_atomic(path, buf, len);
	}
	free(buf);
	if (!ret && s->o.walk) {
		ret = pathf(path, "%s/run-%u.walker.json", s->boot_dir, r->number);
		if (!ret)
			ret = write_json(path, s, fill_walker, &r->w);
	}
	return ret;
}

/* ---- measuring ------------------------------------------------------------ */

/*
 * The readings of a run the walker counted itself, from its report: a key
 * it did not report, or "unsupported", did not open; "multiplexed" or
 * "not-counted" ran part of the walk only (the run is rejected).
 */
static void readings_from_walker(const struct tlb_state *s, struct tlb_run *r)
{
	for (unsigned int i = 0; i < s->sel.nr_events; i++) {
		const struct tlb_walk_counter *c = NULL;
		struct tlb_reading *rd = &r->rd[i];
		char key[32];

		memset(rd, 0, sizeof(*rd));
		if (tlb_walker_key(&s->sel.events[i], key, sizeof(key)))
			c = tlb_walk_counter(&r->w, key);
		if (!c || c->state == TLB_COUNTER_UNSUPPORTED) {
			rd->open_err = ENOENT;
			continue;
		}
		rd->enabled = r->w.elapsed_ns ? r->w.elapsed_ns : 1;
		rd->running = c->state == TLB_COUNTER_COUNT ? rd->enabled : rd->enabled / 2;
		rd->value = c->value;
	}
}

/* The selection's raw events as the walker's events= (all of them, or
 * the walker does not count them itself). */
static void walker_events(struct tlb_state *s)
{
	s->o.w.nr_raw = 0;
	for (unsigned int i = 0; i < s->sel.nr_events; i++) {
		const struct tlb_event *ev = &s->sel.events[i];
		char key[32];

		if (ev->kind == TLB_KIND_INSTRUCTIONS || ev->kind == TLB_KIND_CYCLES ||
		    !tlb_walker_key(ev, key, sizeof(key)))
			continue;
		s->o.w.raw[s->o.w.nr_raw++] = ev->config;
	}
}

static int walk_once(struct tlb_state *s, struct tlb_group *g, struct tlb_run *r)
{
	char path[PATH_MAX], req[160], *buf = NULL;
	size_t len;
	ssize_t n;
	int fd, ret, len_req = tlb_walk_request(&s->o.w, req, sizeof(req));

	if (len_req < 0 || sysroot_path(s->sr, FS_DEBUGFS, WALK_FILE, path))
		return EXIT_ENV;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return sysroot_read_error(s->sr, FS_DEBUGFS, WALK_FILE, -errno,
					  "CONFIG_TEST_LINEAR_MAP_WALK (kernel-patches/0019)");
	ret = g ? tlb_group_start(g) : 0;
	n = ret ? -1 : write(fd, req, (size_t)len_req);
	if (n < 0 && !ret)
		ret = -errno;
	if (g && !ret)
		ret = tlb_group_stop(g);
	else if (g)
		tlb_group_stop(g);
	close(fd);
	if (ret == -EINVAL) {
		err_msg("%s refused '%.*s': the range must be RAM in the linear map (lowmem on arm), and debug_pagealloc off",
			path, len_req - 1, req);
		return EXIT_ENV;
	}
	if (ret || n != len_req) {
		err_msg("%s: measuring a walk failed: %s", path,
			strerror(ret ? -ret : EIO));
		return EXIT_ENV;
	}
	ret = g ? tlb_group_read(g) : 0;
	if (ret) {
		err_msg("reading the counters failed: %s", strerror(-ret));
		return EXIT_ENV;
	}
	ret = sysroot_read(s->sr, FS_DEBUGFS, WALK_FILE, &buf, &len);
	if (ret)
		return sysroot_read_error(s->sr, FS_DEBUGFS, WALK_FILE, ret,
					  "CONFIG_TEST_LINEAR_MAP_WALK (kernel-patches/0019)");
	r->w = s->o.w;
	ret = tlb_walk_parse(buf, len, &r->w);
	free(buf);
	if (ret)
		return sysroot_content_error(s->sr, FS_DEBUGFS, WALK_FILE, ret == -ESTALE ?
					     "reports another run than ours (two walks at once?)" :
					     "no complete report of the run");
	if (g)
		memcpy(r->rd, g->rd, sizeof(r->rd));
	else
		readings_from_walker(s, r);
	return -1;
}

/*
 * Whether the walker counts itself: a one-access walk, and counters in its
 * report.  Then every run asks it for the events and nothing is opened
 * here, so a run counts exactly the walk's loop, on any core (mode
 * filtering or not); else perf_event_open around the write, as before.
 */
static int probe_walker_counts(struct tlb_state *s)
{
	struct tlb_state probe = *s;
	struct tlb_run r;
	int ret;

	memset(&r, 0, sizeof(r));
	probe.o.w.pages = 1;
	probe.o.w.accesses = 1;
	probe.o.w.nr_raw = 0;
	ret = walk_once(&probe, NULL, &r);
	if (ret >= 0)
		return ret;
	s->walker_counts = r.w.nr_counters > 0;
	if (s->walker_counts)
		walker_events(s);
	return -1;
}

static int command_once(struct tlb_state *s, struct tlb_run *r)
{
	struct tlb_group g;
	int go[2], status, ret;
	pid_t pid;
	char c = 0;

	if (pipe2(go, O_CLOEXEC)) {
		err_msg("pipe: %s", strerror(errno));
		return EXIT_ENV;
	}
	pid = fork();
	if (pid < 0) {
		err_msg("fork: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		return EXIT_ENV;
	}
	if (!pid) {	/* the child: wait until the counters are attached */
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(s->o.cmd[0], s->o.cmd);
		fprintf(stderr, "cmadebug: %s: %s\n", s->o.cmd[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	ret = tlb_group_open(&g, s->sel.events, s->sel.nr_events, s->pmu_type, pid);
	if (!ret && write(go[1], &c, 1) != 1)
		ret = -errno;
	close(go[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ret) {
		err_msg("perf_event_open: %s (run as root, or lower /proc/sys/kernel/perf_event_paranoid)",
			strerror(-ret));
		return EXIT_ENV;
	}
	ret = tlb_group_read(&g);
	memcpy(r->rd, g.rd, sizeof(r->rd));
	tlb_group_close(&g);
	if (ret) {
		err_msg("reading the counters failed: %s", strerror(-ret));
		return EXIT_ENV;
	}
	r->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (r->exit_status) {
		err_msg("%s exited with status %d", s->o.cmd[0], r->exit_status);
		return EXIT_ENV;
	}
	return -1;
}

/* Judges a run; a multiplexed or never-counted event rejects it. */
static int judge_run(struct tlb_state *s, struct tlb_run *r, unsigned int run)
{
	for (unsigned int i = 0; i < s->sel.nr_events; i++) {
		r->j[i] = tlb_judge(&s->sel.events[i], &r->rd[i],
				    s->o.walk ? s->o.w.pages : 0);
		if (r->j[i].status == TLB_NOT_COUNTED) {
			err_msg("run %u rejected: %s %s (count fewer events; on arm64 the NMI watchdog may hold one)",
				run, s->names[i], r->j[i].reason);
			return EXIT_ENV;
		}
	}
	return -1;
}

static int measure(struct tlb_state *s)
{
	struct tlb_group g = { .leader = -1 };
	int ret = -1;

	if (s->o.walk && !s->walker_counts) {
		ret = tlb_group_open(&g, s->sel.events, s->sel.nr_events, s->pmu_type, 0);
		if (ret) {
			err_msg("perf_event_open: %s (run as root, or lower /proc/sys/kernel/perf_event_paranoid)",
				strerror(-ret));
			return EXIT_ENV;
		}
	}
	for (unsigned int run = 0; run < s->o.runs; run++) {
		struct tlb_run *r = &s->runs[run];

		ret = s->o.walk ? walk_once(s, s->walker_counts ? NULL : &g, r) :
				  command_once(s, r);
		if (ret >= 0)
			break;
		ret = judge_run(s, r, run + 1);
		if (ret >= 0)
			break;
		if (s->o.results) {
			int err = results_write_run(s, r);

			if (err) {
				err_msg("%s: writing run %u failed: %s", s->boot_dir,
					run + 1, strerror(-err));
				ret = EXIT_ENV;
				break;
			}
		}
	}
	tlb_group_close(&g);
	return ret;
}

static void emit_results(struct emit *e, const struct tlb_state *s)
{
	emit_object_begin(e, NULL);
	emit_meta(e, s);
	emit_workload(e, s);
	emit_events(e, s);
	if (s->o.results)
		emit_string(e, "results", "Results", s->boot_dir);
	else
		emit_missing(e, "results", NULL);

	emit_list_begin(e, "runs");
	for (unsigned int run = 0; run < s->o.runs; run++) {
		const struct tlb_run *r = &s->runs[run];

		emit_object_begin(e, NULL);
		emit_uint(e, "run", "RUN", FMT_DEC, run + 1);
		if (s->o.walk) {
			emit_uint(e, "cpu", "CPU", FMT_DEC, r->w.cpu);
			emit_uint(e, "elapsed_ns", "ELAPSED", FMT_NS, r->w.elapsed_ns);
			emit_uint(e, "faults", "FAULTS", FMT_DEC, r->w.faults);
			emit_uint(e, "checksum", "CHECKSUM", FMT_DEC, r->w.checksum);
		} else {
			emit_int(e, "exit_status", "EXIT", r->exit_status);
		}
		if (r->number)
			emit_uint(e, "file_run", "FILE", FMT_DEC, r->number);
		else
			emit_missing(e, "file_run", NULL);
		emit_object_end(e);
	}
	emit_list_end(e);

	emit_list_begin(e, "counts");
	for (unsigned int run = 0; run < s->o.runs; run++) {
		const struct tlb_run *r = &s->runs[run];

		for (unsigned int i = 0; i < s->sel.nr_events; i++) {
			char status[256];

			emit_object_begin(e, NULL);
			emit_uint(e, "run", "RUN", FMT_DEC, run + 1);
			emit_string(e, "event", "EVENT", s->names[i]);
			if (r->j[i].status == TLB_OK) {
				emit_uint(e, "value", "COUNT", FMT_DEC, r->rd[i].value);
				emit_string(e, "status", NULL, "ok");
				emit_missing(e, "reason", NULL);
				snprintf(status, sizeof(status), "ok");
			} else {
				emit_missing(e, "value", "COUNT");
				emit_string(e, "status", NULL, "not supported");
				emit_string(e, "reason", NULL, r->j[i].reason);
				snprintf(status, sizeof(status), "not supported: %s",
					 r->j[i].reason);
			}
			emit_string(e, NULL, "STATUS", status);
			emit_object_end(e);
		}
	}
	emit_list_end(e);
	emit_object_end(e);
}

/* The CPU PMUs' names, for a message: "a, b" or "none". */
static void pmu_names(const struct pmu_list *l, char *buf, size_t size)
{
	size_t used = 0;

	snprintf(buf, size, "none");
	for (unsigned int i = 0; i < l->nr && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s",
					 i ? ", " : "", l->pmu[i].name);
}

/*
 * Which CPU, which PMU, which events.  The CPU: --cpu, else with --pmu its
 * first CPU unless this one is its, else the current one (CPU 0 of a
 * captured tree).  The PMU: --pmu, else the one counting on that CPU.
 */
static int choose_events(struct tlb_state *s)
{
	bool live = s->sr->live;
	char err[512];
	long here;
	int ret;

	ret = pmus_load(s->sr, &s->pmus);
	if (ret)
		return ret;
	if (s->o.pmu) {
		s->pmu = pmu_find(&s->pmus, s->o.pmu);
		if (!s->pmu) {
			pmu_names(&s->pmus, err, sizeof(err));
			err_msg("tlb: --pmu %s: no CPU PMU of that name in sysfs bus/event_source/devices (CPU PMUs: %s)",
				s->o.pmu, err);
			return EXIT_ENV;
		}
	}
	here = live ? sched_getcpu() : 0;
	if (s->o.cpu >= 0)
		s->cpu = s->o.cpu;
	else if (s->pmu && !pmu_has_cpu(s->pmu, here))
		s->cpu = pmu_first_cpu(s->pmu);
	else
		s->cpu = here;
	if (s->cpu < 0 || s->cpu >= CPU_SETSIZE) {
		err_msg("tlb: cannot tell which CPU this is");
		return EXIT_ENV;
	}
	if (!s->pmu) {
		s->pmu = pmu_of_cpu(&s->pmus, s->cpu);
	} else if (!pmu_has_cpu(s->pmu, s->cpu)) {
		err_msg("tlb: CPU %ld is not one of %s's (CPUs %s): it would count nothing there",
			s->cpu, s->pmu->name, s->pmu->cpus);
		return EXIT_USAGE;
	}
	if (s->o.events) {
		ret = tlb_select_list(s->o.events, s->pmu, &s->sel, err, sizeof(err));
		if (ret >= 0) {
			err_msg("%s", err);
			return ret;
		}
	} else {
		tlb_select(s->pmu, &s->sel);
	}
	s->pmu_type = s->pmu ? (int)s->pmu->type : -1;
	for (unsigned int i = 0; i < s->sel.nr_events; i++) {
		tlb_event_display(&s->sel.events[i], s->pmu ? s->pmu->name : NULL,
				  s->names[i], sizeof(s->names[i]));
		s->name_ptr[i] = s->names[i];
	}
	return -1;
}

/* Everything before measuring: CPU, PMU, events, the system's description. */
static int prepare(struct cmd_ctx *ctx, struct tlb_state *s)
{
	cpu_set_t set;
	int ret;

	s->sr = ctx->sr;
	ret = sysroot_open(s->sr, ctx->root_opts);
	if (ret)
		return ret;
	if (s->o.walk && !sysroot_exists(s->sr, FS_DEBUGFS, WALK_FILE))
		return sysroot_read_error(s->sr, FS_DEBUGFS, WALK_FILE, -ENOENT,
					  "CONFIG_TEST_LINEAR_MAP_WALK (kernel-patches/0019)");
	ret = choose_events(s);
	if (ret >= 0 || s->o.list)
		return ret;
	if (!s->sel.nr_events) {
		err_msg("tlb: nothing to count: %s", s->sel.why);
		return EXIT_ENV;
	}
	/* The walk and the counters on one CPU: on big.LITTLE a PMU counts
	 * only on its own cores. */
	CPU_ZERO(&set);
	CPU_SET((int)s->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		err_msg("tlb: cannot run on CPU %ld: %s", s->cpu, strerror(errno));
		return EXIT_ENV;
	}
	if (s->o.walk) {
		ret = probe_walker_counts(s);
		if (ret >= 0)
			return ret;
	}
	meta_load(s->sr, &s->meta);
	s->runs = calloc(s->o.runs, sizeof(*s->runs));
	if (!s->runs) {
		err_msg("out of memory");
		return EXIT_ENV;
	}
	if (s->o.results) {
		ret = results_open(s);
		if (ret == -EEXIST) {
			err_msg("%s: this boot's runs counted other events than %s (see its meta.json): use another --results or --variant",
				s->boot_dir, s->names[0]);
			return EXIT_PROBLEM;
		}
		if (ret) {
			err_msg("%s/%s: cannot write results there: %s", s->o.results,
				s->o.variant, strerror(-ret));
			return EXIT_ENV;
		}
	}
	return -1;
}

int cmd_tlb(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct tlb_state *s;
	char err[512];
	int ret;

	s = calloc(1, sizeof(*s));
	if (!s) {
		err_msg("out of memory");
		return EXIT_ENV;
	}
	ret = tlb_parse_args(argc, argv, &s->o, err, sizeof(err));
	if (ret >= 0) {
		if (s->o.help)
			fputs(usage_text, stdout);
		else
			err_msg("%s", err);
		goto out;
	}
	if (ctx->root_opts->root && !s->o.list) {
		err_msg("tlb: counts on the live system; --root applies to 'tlb events' only");
		ret = EXIT_USAGE;
		goto out;
	}
	ret = prepare(ctx, s);
	if (ret >= 0)
		goto out;
	if (s->o.list) {
		emit_choice(ctx->out, s);
		ret = EXIT_OK;
		goto out;
	}
	ret = measure(s);
	if (ret >= 0)
		goto out;
	emit_results(ctx->out, s);
	ret = EXIT_OK;
out:
	meta_free(&s->meta);
	pmus_free(&s->pmus);
	free(s->runs);
	free(s);
	return ret;
}
