// SPDX-License-Identifier: GPL-2.0
/*
 * The libtraceevent plugin (tracepoints/plugin_cmadebug.so) loaded as
 * trace-cmd loads it (tep_load_plugins, TRACEEVENT_PLUGIN_DIR), over the
 * cma_alloc_fail, linear_map_split and linear_map_attr_change formats
 * captured from each guest; records are built from the parsed format's own
 * offsets and sizes (arm has 4-byte longs, arm64 8), their enum and flag
 * values read from the format's text (the numbers depend on the kernel's
 * config).
 * usage: test_plugin PLUGIN_DIR FIXTURES
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static unsigned int failed, passed;

static const struct {
	const char *system, *event;
} events[] = {
	{ "cma", "cma_alloc_fail" },
	{ "linear_map", "linear_map_split" },
	{ "linear_map", "linear_map_attr_change" },
};

enum { CMA_FAIL, SPLIT, ATTR, NR_EVENTS };

/* The format files' text, of the guest under test. */
static char fmts[NR_EVENTS][16384];

struct rec_field {
	const char *name;
	unsigned long long num;	/* numbers, truncated to the field's size */
	const char *str;	/* __data_loc strings */
};

static int set_field(struct tep_event *ev, unsigned char *buf, size_t *tail,
		     const struct rec_field *f)
{
	struct tep_format_field *field = tep_find_field(ev, f->name);
	unsigned long long v = f->num;

	if (!field)
		return -1;
	if (f->str) {
		size_t len = strlen(f->str) + 1;

		memcpy(buf + *tail, f->str, len);
		v = (unsigned long long)len << 16 | *tail;
		*tail += len;
	}
	for (int i = 0; i < field->size; i++)	/* little-endian */
		buf[field->offset + i] = (unsigned char)(v >> (8 * i));
	return 0;
}

static void check_line(struct tep_handle *tep, struct tep_event *ev,
		       const char *what, const struct rec_field *fields,
		       size_t nr, const char *expected)
{
	unsigned char buf[512] = { 0 };
	struct tep_record rec = { 0 };
	struct trace_seq s;
	size_t tail = 128;

	buf[0] = (unsigned char)ev->id;
	buf[1] = (unsigned char)(ev->id >> 8);
	for (size_t i = 0; i < nr; i++) {
		if (set_field(ev, buf, &tail, &fields[i])) {
			printf("FAIL %s: no field %s in the format\n", what,
			       fields[i].name);
			failed++;
			return;
		}
	}
	rec.data = buf;
	rec.size = (int)tail;
	trace_seq_init(&s);
	tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	if (strcmp(s.buffer, expected)) {
		printf("FAIL %s:\n  expected: %s\n  got:      %s\n", what,
		       expected, s.buffer);
		failed++;
	} else {
		passed++;
	}
	trace_seq_destroy(&s);
}

#define CHECK(tep, ev, guest, what, fields, expected)			\
	do {								\
		char what_[160];					\
									\
		snprintf(what_, sizeof(what_), "%s: %s", guest, what);	\
		check_line(tep, ev, what_, fields, ARRAY_SIZE(fields),	\
			   expected);					\
	} while (0)

/* The ')' that closes the '(' at @p, skipping quoted strings; or NULL. */
static const char *closing(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '"' && !(p = strchr(p + 1, '"')))
			return NULL;
		if (*p == '(')
			depth++;
		else if (*p == ')' && !--depth)
			return p;
	}
	return NULL;
}

/*
 * The value format text @fmt gives @name in the __print_symbolic() or
 * __print_flags() table of REC->@field ("{ 4, "CMA" }", "{1UL << 3,
 * "uptodate"}"), read from the text, not as the plugin reads it; -1 when
 * the text has no number for it (the kernel left PG_uptodate unresolved).
 */
static int fmt_value(const char *fmt, const char *field, const char *name,
		     unsigned long long *v)
{
	char key[64], quoted[64];
	const char *p, *end, *hit;
	char *e;

	snprintf(key, sizeof(key), "(REC->%s", field);
	snprintf(quoted, sizeof(quoted), "\"%s\"", name);
	for (p = strstr(fmt, "__print_"); p; p = strstr(p + 1, "__print_")) {
		p += strcspn(p, "(");
		if (strncmp(p, key, strlen(key)) ||
		    strchr(",) &", p[strlen(key)]) == NULL)
			continue;
		end = closing(p);
		hit = strstr(p, quoted);
		if (!end || !hit || hit > end)
			return -1;
		while (*hit != '{')
			hit--;
		*v = strtoull(hit + 1, &e, 0);
		if (e == hit + 1)
			return -1;
		e += strspn(e, "uUlL ");
		if (!strncmp(e, "<<", 2)) {
			hit = e + 2;
			*v <<= strtoull(hit, &e, 0);
			if (e == hit)
				return -1;
		}
		return *e == ',' ? 0 : -1;
	}
	return -1;
}

/* fmt_value() of event @ev's format, or a failure said. */
static unsigned long long named(int ev, const char *guest, const char *field,
				const char *name)
{
	unsigned long long v = 0;

	if (fmt_value(fmts[ev], field, name, &v)) {
		printf("FAIL %s: %s's format names no %s value \"%s\"\n",
		       guest, events[ev].event, field, name);
		failed++;
	}
	return v;
}

/*
 * Page flags for the "migrate" record: uptodate and lru, plus bit 30, a
 * zone/node bit above the page flags that the format's mask takes off; and
 * how the plugin prints them: by name when the format has numbers for them.
 */
static const char *page_flags(unsigned long long *flags)
{
	unsigned long long up, lru;

	if (fmt_value(fmts[CMA_FAIL], "flags", "uptodate", &up) ||
	    fmt_value(fmts[CMA_FAIL], "flags", "lru", &lru)) {
		*flags = 0x28 | 1ULL << 30;
		return "0x28";
	}
	*flags = up | lru | 1ULL << 30;
	return "uptodate|lru";
}

static void test_cma(struct tep_handle *tep, struct tep_event *ev,
		     const char *guest)
{
#define N(field, name)	named(CMA_FAIL, guest, field, name)
	unsigned long long flags;
	const char *flag_names = page_flags(&flags);
	const struct rec_field migrate[] = {
		{ "name", 0, "reserved" }, { "start_pfn", 0x7e040, NULL },
		{ "count", 8128, NULL }, { "attempt", 1, NULL },
		{ "errorno", (unsigned long long)-16, NULL },
		{ "stage", N("stage", "migrate"), NULL },
		{ "pfn", 0x7e041, NULL }, { "flags", flags, NULL },
		{ "refcount", 2, NULL }, { "mapcount", 0, NULL },
		{ "migratetype", N("migratetype", "CMA"), NULL },
		{ "kind", N("kind", "file"), NULL },
	};
	const struct rec_field no_space[] = {
		{ "name", 0, "fimc-pool" }, { "start_pfn", ~0ULL, NULL },
		{ "count", 9, NULL }, { "attempt", 1, NULL },
		{ "errorno", (unsigned long long)-12, NULL },
		{ "stage", N("stage", "no-space"), NULL },
		{ "pfn", ~0ULL, NULL },
		{ "migratetype", N("migratetype", "none"), NULL },
		{ "kind", N("kind", "none"), NULL },
	};
	const struct rec_field no_page[] = {
		{ "name", 0, "reserved" }, { "start_pfn", 0x7e000, NULL },
		{ "count", 16, NULL }, { "attempt", 3, NULL },
		{ "errorno", (unsigned long long)-99, NULL },
		{ "stage", N("stage", "isolate"), NULL },
		{ "pfn", ~0ULL, NULL },
		{ "migratetype", N("migratetype", "none"), NULL },
		{ "kind", N("kind", "none"), NULL },
	};
	/* 99: named by none of the tables; no page flags: "none" */
	const struct rec_field unnamed[] = {
		{ "name", 0, "reserved" }, { "start_pfn", 0x7e040, NULL },
		{ "count", 8, NULL }, { "attempt", 2, NULL },
		{ "errorno", (unsigned long long)-11, NULL },
		{ "stage", 99, NULL }, { "pfn", 0x7e041, NULL },
		{ "flags", 1ULL << 30, NULL }, { "refcount", 1, NULL },
		{ "mapcount", (unsigned long long)-1, NULL },
		{ "migratetype", 99, NULL }, { "kind", 99, NULL },
	};
	char line[160];

	snprintf(line, sizeof(line),
		 "reserved: attempt 1 failed in migrate (-EBUSY): "
		 "pfns 0x7e040+8128; page 0x7e041 file CMA ref 2 map 0 "
		 "flags %s", flag_names);
	CHECK(tep, ev, guest, "migrate", migrate, line);
	CHECK(tep, ev, guest, "no-space", no_space,
	      "fimc-pool: no free run of 9 pages (-ENOMEM, attempt 1)");
	CHECK(tep, ev, guest, "no page, unknown errno", no_page,
	      "reserved: attempt 3 failed in isolate (-99): "
	      "pfns 0x7e000+16; no single page to blame");
	CHECK(tep, ev, guest, "unnamed values", unnamed,
	      "reserved: attempt 2 failed in stage 99 (-EAGAIN): "
	      "pfns 0x7e040+8; page 0x7e041 kind 99 migratetype 99 "
	      "ref 1 map -1 flags none");
#undef N
}

static void test_linear_map(struct tep_handle *tep, struct tep_event *split,
			    struct tep_event *attr, const char *guest)
{
#define S(field, name)	named(SPLIT, guest, field, name)
#define A(field, name)	named(ATTR, guest, field, name)
	/* entry sizes by their log2: 20 is 1M, 12 4K, 22 has no name */
	const struct rec_field remap[] = {
		{ "pfn", 0x57000, NULL }, { "size", 16 << 20, NULL },
		{ "from_shift", 20, NULL }, { "to_shift", 12, NULL },
		{ "count", 16, NULL },
		{ "cause", S("cause", "cma-remap"), NULL },
	};
	const struct rec_field unnamed_split[] = {
		{ "pfn", 0x60000, NULL }, { "size", 4 << 20, NULL },
		{ "from_shift", 22, NULL }, { "to_shift", 12, NULL },
		{ "count", 1, NULL }, { "cause", 7, NULL },
	};
	const struct rec_field dma_remap[] = {
		{ "pfn", 0x57000, NULL }, { "nr_pages", 2, NULL },
		{ "set", A("set", "memtype"), NULL }, { "clear", 0, NULL },
		{ "memtype", A("memtype", "noncached"), NULL },
		{ "ret", 0, NULL }, { "cause", A("cause", "dma-remap"), NULL },
	};
	const struct rec_field direct_map[] = {
		{ "pfn", 0x4a3c1, NULL }, { "nr_pages", 1, NULL },
		{ "set", 0, NULL }, { "clear", A("clear", "valid"), NULL },
		{ "memtype", A("memtype", "kept"), NULL }, { "ret", 0, NULL },
		{ "cause", A("cause", "set_direct_map"), NULL },
	};
	const struct rec_field failed_change[] = {
		{ "pfn", 0x40bf0, NULL }, { "nr_pages", 1, NULL },
		{ "set", A("set", "rdonly"), NULL },
		{ "clear", A("clear", "write"), NULL },
		{ "memtype", A("memtype", "kept"), NULL },
		{ "ret", (unsigned long long)-22, NULL },
		{ "cause", A("cause", "set_memory"), NULL },
	};
	/* 0x400: a bit, 9: a memory type, that the format does not name */
	const struct rec_field unnamed_attr[] = {
		{ "pfn", 0x40000, NULL }, { "nr_pages", 4, NULL },
		{ "set", A("set", "memtype") | 0x400, NULL },
		{ "clear", 0, NULL },
		{ "memtype", 9, NULL }, { "ret", 0, NULL },
		{ "cause", A("cause", "set_memory"), NULL },
	};

	CHECK(tep, split, guest, "linear_map_split", remap,
	      "cma-remap: 16 1M entries split into 4K: pfn 0x57000+16 MiB");
	CHECK(tep, split, guest, "linear_map_split, unnamed cause and size",
	      unnamed_split,
	      "cause 7: 1 2^22 entry split into 4K: pfn 0x60000+4 MiB");
	CHECK(tep, attr, guest, "linear_map_attr_change, dma-remap", dma_remap,
	      "dma-remap: pfn 0x57000+2 pages set memtype: noncached");
	CHECK(tep, attr, guest, "linear_map_attr_change, set_direct_map",
	      direct_map, "set_direct_map: pfn 0x4a3c1+1 page clear valid");
	CHECK(tep, attr, guest, "linear_map_attr_change failed", failed_change,
	      "set_memory: pfn 0x40bf0+1 page set rdonly clear write "
	      "failed (-EINVAL)");
	CHECK(tep, attr, guest, "linear_map_attr_change, unnamed values",
	      unnamed_attr,
	      "set_memory: pfn 0x40000+4 pages set memtype|0x400: memtype 9");
#undef S
#undef A
}

/* Reads the guest's format files into fmts[]; 0 or -1 (said). */
static int read_formats(const char *fixtures, const char *guest)
{
	char path[4096];

	for (int i = 0; i < NR_EVENTS; i++) {
		FILE *f;
		size_t len;

		snprintf(path, sizeof(path),
			 "%s/%s/root/sys/kernel/tracing/events/%s/%s/format",
			 fixtures, guest, events[i].system, events[i].event);
		f = fopen(path, "r");
		len = f ? fread(fmts[i], 1, sizeof(fmts[i]) - 1, f) : 0;
		if (f)
			fclose(f);
		fmts[i][len] = '\0';
		if (!len) {
			printf("FAIL %s: cannot read %s\n", guest, path);
			failed++;
			return -1;
		}
	}
	return 0;
}

/*
 * The page flags' table turned the other way: PG_* names given numbers in
 * their order, as a kernel that resolves them (TRACE_DEFINE_ENUM) would put
 * them, or numbers turned into names (1UL << PG_3), as a kernel that does
 * not leaves them; so the plugin meets both, whichever the guest's kernel
 * did.  How many entries it turned.
 */
static int flip_pageflags(char *fmt)
{
	static char out[sizeof(fmts[0])];
	int n = 0, resolve = strstr(fmt, "<< PG_") != NULL;
	const char *r = fmt;
	char *w = out;
	size_t len;

	while (*r && w + 16 < out + sizeof(out)) {
		len = 1 + (r[1] == ' ') + strlen("1UL << ");
		if (resolve && !strncmp(r, "<< PG_", 6)) {
			w += sprintf(w, "<< %d", n++);
			r += 6 + strspn(r + 6, "abcdefghijklmnopqrstuvwxyz"
						"0123456789_");
		} else if (!resolve && *r == '{' &&
			   !strncmp(r + len - 7, "1UL << ", 7)) {
			w += sprintf(w, "%.*sPG_", (int)len, r);
			r += len;
			n++;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	if (*r)
		return 0;	/* too long: leave it */
	memcpy(fmt, out, (size_t)(w - out) + 1);
	return n;
}

/*
 * fmts[] parsed into a new handle with the plugins loaded; each event
 * handled by the plugin in ev[].  NULL (said) on failure.
 */
static struct tep_handle *load(const char *guest,
			       struct tep_plugin_list **plugins,
			       struct tep_event *ev[NR_EVENTS])
{
	struct tep_handle *tep = tep_alloc();

	*plugins = NULL;
	if (!tep)
		return NULL;
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (int i = 0; i < NR_EVENTS; i++) {
		if (tep_parse_event(tep, fmts[i], strlen(fmts[i]),
				    events[i].system)) {
			printf("FAIL %s: cannot parse %s\n", guest,
			       events[i].event);
			goto fail;
		}
	}
	*plugins = tep_load_plugins(tep);
	for (int i = 0; i < NR_EVENTS; i++) {
		ev[i] = tep_find_event_by_name(tep, events[i].system,
					       events[i].event);
		if (!*plugins || !ev[i] || !ev[i]->handler) {
			printf("FAIL %s: plugin_cmadebug not loaded or "
			       "no handler for %s\n", guest, events[i].event);
			goto fail;
		}
	}
	return tep;
fail:
	failed++;
	tep_unload_plugins(*plugins, tep);
	tep_free(tep);
	return NULL;
}

static void test_fixture(const char *fixtures, const char *guest)
{
	struct tep_event *ev[NR_EVENTS];
	struct tep_plugin_list *plugins;
	struct tep_handle *tep;
	char what[128];

	if (read_formats(fixtures, guest))
		return;
	tep = load(guest, &plugins, ev);
	if (!tep)
		return;
	test_linear_map(tep, ev[SPLIT], ev[ATTR], guest);
	test_cma(tep, ev[CMA_FAIL], guest);
	tep_unload_plugins(plugins, tep);
	tep_free(tep);

	/* and the page flags as the other kind of kernel leaves them */
	if (!flip_pageflags(fmts[CMA_FAIL]))
		return;
	snprintf(what, sizeof(what), "%s, page flags %sresolved", guest,
		 strstr(fmts[CMA_FAIL], "<< PG_") ? "un" : "");
	tep = load(what, &plugins, ev);
	if (!tep)
		return;
	test_cma(tep, ev[CMA_FAIL], what);
	tep_unload_plugins(plugins, tep);
	tep_free(tep);
}

int main(int argc, char **argv)
{
	static const char *const guests[] = {
		"qemu-arm", "qemu-arm-lpae", "qemu-arm64", "qemu-arm64-64k",
	};

	if (argc != 3) {
		fprintf(stderr, "usage: test_plugin PLUGIN_DIR FIXTURES\n");
		return 2;
	}
	setenv("TRACEEVENT_PLUGIN_DIR", argv[1], 1);
	for (size_t i = 0; i < ARRAY_SIZE(guests); i++)
		test_fixture(argv[2], guests[i]);
	printf("plugin: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
