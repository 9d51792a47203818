// SPDX-License-Identifier: GPL-2.0
/*
 * The libtraceevent plugin (tracepoints/plugin_cmadebug.so) loaded as
 * trace-cmd loads it (tep_load_plugins, TRACEEVENT_PLUGIN_DIR), over the
 * cma_alloc_fail, linear_map_split and linear_map_attr_change formats
 * captured from each guest; records are built from the parsed format's own
 * offsets and sizes (arm has 4-byte longs, arm64 8).
 * usage: test_plugin PLUGIN_DIR FIXTURES
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

static unsigned int failed, passed;

struct rec_field {
	const char *name;
	unsigned long long num;	/* numbers; ~0ULL: all ones of the size */
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
			printf("FAIL %s: no field %s in the format\n", what, fields[i].name);
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
		printf("FAIL %s:\n  expected: %s\n  got:      %s\n", what, expected, s.buffer);
		failed++;
	} else {
		passed++;
	}
	trace_seq_destroy(&s);
}

/* Parses the captured format of SYSTEM/EVENT into TEP; 0 or -1 (said). */
static int parse_format(struct tep_handle *tep, const char *fixtures,
			const char *name, const char *system, const char *event)
{
	static char fmt[16384];
	char path[4096];
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/root/sys/kernel/tracing/events/%s/%s/format",
		 fixtures, name, system, event);
	f = fopen(path, "r");
	len = f ? fread(fmt, 1, sizeof(fmt), f) : 0;
	if (f)
		fclose(f);
	if (!len || tep_parse_event(tep, fmt, len, system)) {
		printf("FAIL %s: cannot parse %s\n", name, path);
		failed++;
		return -1;
	}
	return 0;
}

/* The event, if the plugin gave it a handler; else NULL (said). */
static struct tep_event *handled(struct tep_handle *tep, const char *name,
				 const char *system, const char *event)
{
	struct tep_event *ev = tep_find_event_by_name(tep, system, event);

	if (!ev || !ev->handler) {
		printf("FAIL %s: plugin_cmadebug not loaded or no handler for %s\n", name, event);
		failed++;
		return NULL;
	}
	return ev;
}

static void test_linear_map(struct tep_handle *tep, const char *name)
{
	struct tep_event *split = handled(tep, name, "linear_map", "linear_map_split");
	struct tep_event *attr = handled(tep, name, "linear_map", "linear_map_attr_change");
	const struct rec_field remap[] = {
		{ "addr", 0xd7000000, NULL }, { "size", 16 << 20, NULL },
		{ "from", 0, "1M" }, { "to", 0, "4k" }, { "count", 16, NULL },
		{ "cause", 0, NULL },
	};
	const struct rec_field forced[] = {
		{ "addr", 0xc0000000, NULL }, { "size", 3 << 20, NULL },
		{ "from", 0, "2M" }, { "to", 0, "4k" }, { "count", 1, NULL },
		{ "cause", 7, NULL },
	};
	const struct rec_field dma_remap[] = {
		{ "start", 0xd7000000, NULL }, { "pfn", 0x57000, NULL },
		{ "size", 1 << 20, NULL }, { "old_type", 0, "MEM/CACHED/WBRA" },
		{ "new_type", 0, "MEM/BUFFERABLE/WC" }, { "ret", 0, NULL },
		{ "cause", 0, NULL },
	};
	const struct rec_field failed_change[] = {
		{ "start", 0xc0bf0000, NULL }, { "pfn", 0x40bf0, NULL },
		{ "size", 4096, NULL }, { "old_type", 0, "MEM/NORMAL" },
		{ "new_type", 0, "MEM/NORMAL-NC" }, { "ret", (unsigned int)-22, NULL },
		{ "cause", 1, NULL },
	};
	char what[128];

	if (!split || !attr)
		return;
	snprintf(what, sizeof(what), "%s: linear_map_split", name);
	check_line(tep, split, what, remap, sizeof(remap) / sizeof(remap[0]),
		   "cma-remap: 16 1M entries split into 4k: 0xd7000000+16 MiB");
	snprintf(what, sizeof(what), "%s: linear_map_split, unknown cause", name);
	check_line(tep, split, what, forced, sizeof(forced) / sizeof(forced[0]),
		   "cause 7: 1 2M entry split into 4k: 0xc0000000+3 MiB");
	snprintf(what, sizeof(what), "%s: linear_map_attr_change", name);
	check_line(tep, attr, what, dma_remap, sizeof(dma_remap) / sizeof(dma_remap[0]),
		   "dma-remap: 0xd7000000+1 MiB (pfn 0x57000) MEM/CACHED/WBRA -> MEM/BUFFERABLE/WC");
	snprintf(what, sizeof(what), "%s: linear_map_attr_change failed", name);
	check_line(tep, attr, what, failed_change,
		   sizeof(failed_change) / sizeof(failed_change[0]),
		   "set_memory: 0xc0bf0000+4 KiB (pfn 0x40bf0) MEM/NORMAL -> MEM/NORMAL-NC "
		   "failed (-EINVAL)");
}

static void test_fixture(const char *fixtures, const char *name)
{
	char what[128];
	struct tep_handle *tep = tep_alloc();
	struct tep_plugin_list *plugins;
	struct tep_event *ev;

	if (!tep || parse_format(tep, fixtures, name, "cma", "cma_alloc_fail") ||
	    parse_format(tep, fixtures, name, "linear_map", "linear_map_split") ||
	    parse_format(tep, fixtures, name, "linear_map", "linear_map_attr_change")) {
		tep_free(tep);
		return;
	}
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	plugins = tep_load_plugins(tep);
	ev = handled(tep, name, "cma", "cma_alloc_fail");
	if (!plugins || !ev) {
		tep_unload_plugins(plugins, tep);
		tep_free(tep);
		return;
	}
	test_linear_map(tep, name);
	{
		const struct rec_field migrate[] = {
			{ "name", 0, "reserved" }, { "start_pfn", 0x7e040, NULL },
			{ "count", 8128, NULL }, { "align", 0, NULL },
			{ "attempt", 1, NULL }, { "errorno", (unsigned int)-16, NULL },
			{ "stage", 0, "migrate" }, { "pfn", 0x7e041, NULL },
			{ "flags", 0x40010000, NULL }, { "refcount", 2, NULL },
			{ "mapcount", (unsigned int)-1, NULL },
			{ "migratetype", 0, "Isolate" }, { "kind", 0, "movable_ops" },
			{ "owner", 7, NULL },
		};
		const struct rec_field no_space[] = {
			{ "name", 0, "fimc-pool" }, { "start_pfn", ~0ULL, NULL },
			{ "count", 9, NULL }, { "align", 4, NULL },
			{ "attempt", 1, NULL }, { "errorno", (unsigned int)-12, NULL },
			{ "stage", 0, "no-space" }, { "pfn", ~0ULL, NULL },
			{ "migratetype", 0, "none" }, { "kind", 0, "none" },
		};
		const struct rec_field isolate[] = {
			{ "name", 0, "reserved" }, { "start_pfn", 0x7e000, NULL },
			{ "count", 16, NULL }, { "align", 0, NULL },
			{ "attempt", 3, NULL }, { "errorno", (unsigned int)-99, NULL },
			{ "stage", 0, "isolate" }, { "pfn", ~0ULL, NULL },
			{ "migratetype", 0, "none" }, { "kind", 0, "none" },
		};

		snprintf(what, sizeof(what), "%s: migrate", name);
		check_line(tep, ev, what, migrate, sizeof(migrate) / sizeof(migrate[0]),
			   "reserved: attempt 1 failed in migrate (-EBUSY): pfns 0x7e040+8128 align 0; "
			   "page 0x7e041 movable_ops Isolate ref 2 map -1 flags 0x40010000 owner 7");
		snprintf(what, sizeof(what), "%s: no-space", name);
		check_line(tep, ev, what, no_space, sizeof(no_space) / sizeof(no_space[0]),
			   "fimc-pool: no free run of 9 pages aligned to order 4 (-ENOMEM, attempt 1)");
		snprintf(what, sizeof(what), "%s: no page, unknown errno", name);
		check_line(tep, ev, what, isolate, sizeof(isolate) / sizeof(isolate[0]),
			   "reserved: attempt 3 failed in isolate (-99): pfns 0x7e000+16 align 0; "
			   "no single page to blame");
	}
	tep_unload_plugins(plugins, tep);
	tep_free(tep);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_plugin PLUGIN_DIR FIXTURES\n");
		return 2;
	}
	setenv("TRACEEVENT_PLUGIN_DIR", argv[1], 1);
	test_fixture(argv[2], "qemu-arm");
	test_fixture(argv[2], "qemu-arm64");
	printf("plugin: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
