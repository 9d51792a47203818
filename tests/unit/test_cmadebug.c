// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of cmadebug's parsers, path layer, models and emitter, over the
 * trees captured from the QEMU guests in tests/fixtures/.  No root, no QEMU.
 * Prints one line per failure and a closing "N passed, N failed".
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cma.h"
#include "cma_map.h"
#include "emit.h"
#include "events.h"
#include "failures.h"
#include "linear_map.h"
#include "path.h"
#include "stock.h"
#include "util.h"

#include "check.h"

#define CHECK_U64(r, what, expected, actual)                           \
	CHECK(r, (uint64_t)(expected) == (uint64_t)(actual),           \
	      "%s: expected %llu, got %llu", what,                     \
	      (unsigned long long)(expected), (unsigned long long)(actual))

/* The trace model's tests (test_trace_all), on the same CHECK macros. */
#include "test_trace.c"
/* The /proc/kcore reader's (test_kcore_all). */
#include "test_kcore.c"

static void test_parse_u64(struct results *r)
{
	uint64_t v = 7;

	r->test = "parse_u64";
	CHECK(r, parse_u64("4096\n", 5, &v) == 0 && v == 4096, "plain number");
	CHECK(r, parse_u64("  12 ", 5, &v) == 0 && v == 12, "surrounding blanks");
	CHECK(r, parse_u64("", 0, &v) == -EINVAL, "empty is not a number");
	CHECK(r, parse_u64("-1", 2, &v) == -EINVAL, "no sign");
	CHECK(r, parse_u64("12ab", 4, &v) == -EINVAL, "trailing garbage");
	CHECK(r, parse_u64("1 2", 3, &v) == -EINVAL, "two numbers");
	CHECK(r, parse_u64("18446744073709551615", 20, &v) == 0 &&
		 v == UINT64_MAX, "UINT64_MAX");
	CHECK(r, parse_u64("18446744073709551616", 20, &v) == -ERANGE,
	      "overflow is -ERANGE");
	CHECK(r, parse_u64("99", 1, &v) == 0 && v == 9, "length is honoured");
}

static void test_meminfo(struct results *r)
{
	static const char mi[] = "MemTotal:        1011704 kB\n"
				 "CmaTotalX:          1 kB\n"
				 "CmaTotal:          49152 kB\n"
				 "CmaFree:           48896 kB\n"
				 "HugePages_Total:       0\n";
	uint64_t kb = 0;

	r->test = "meminfo_find_kb";
	CHECK(r, meminfo_find_kb(mi, sizeof(mi) - 1, "CmaTotal", &kb) && kb == 49152,
	      "CmaTotal, not CmaTotalX: got %llu", (unsigned long long)kb);
	CHECK(r, meminfo_find_kb(mi, sizeof(mi) - 1, "CmaFree", &kb) && kb == 48896,
	      "CmaFree");
	CHECK(r, !meminfo_find_kb(mi, sizeof(mi) - 1, "HugePages_Total", &kb),
	      "a value without kB is refused");
	CHECK(r, !meminfo_find_kb(mi, sizeof(mi) - 1, "Cma", &kb),
	      "a key prefix does not match");
	CHECK(r, !meminfo_find_kb(mi, 20, "CmaTotal", &kb), "length is honoured");
}

static void test_mounts(struct results *r)
{
	static const char m[] =
		"sysfs /sys sysfs rw 0 0\n"
		"tracefs /sys/kernel/debug/tracing tracefs rw 0 0\n"
		"debugfs /sys/kernel/debug debugfs rw 0 0\n"
		"tracefs /sys/kernel/tracing tracefs rw 0 0\n"
		"none /mnt/with\\040space debugfs rw 0 0\n";
	char mnt[PATH_MAX];

	r->test = "mounts_find";
	CHECK(r, mounts_find(m, sizeof(m) - 1, "debugfs", NULL, mnt, sizeof(mnt)) &&
		 !strcmp(mnt, "/sys/kernel/debug"), "debugfs: got %s", mnt);
	CHECK(r, mounts_find(m, sizeof(m) - 1, "tracefs", "/sys/kernel/tracing",
			     mnt, sizeof(mnt)) &&
		 !strcmp(mnt, "/sys/kernel/tracing"), "preferred tracefs: got %s", mnt);
	CHECK(r, mounts_find(m, sizeof(m) - 1, "tracefs", NULL, mnt, sizeof(mnt)) &&
		 !strcmp(mnt, "/sys/kernel/debug/tracing"), "first tracefs: got %s", mnt);
	CHECK(r, !mounts_find(m, sizeof(m) - 1, "configfs", NULL, mnt, sizeof(mnt)),
	      "absent type");
}

static void test_page_size(struct results *r)
{
	r->test = "cma_page_size_from_total";
	CHECK_U64(r, "48 MiB over 12288 pages", 4096,
		  cma_page_size_from_total(49152, 12288));
	CHECK_U64(r, "64 KiB pages", 65536, cma_page_size_from_total(49152, 768));
	CHECK_U64(r, "not a power of two", 0, cma_page_size_from_total(49152, 12000));
	CHECK_U64(r, "no pages", 0, cma_page_size_from_total(49152, 0));
	CHECK_U64(r, "no CmaTotal", 0, cma_page_size_from_total(0, 12288));
}

static void test_format_size(struct results *r)
{
	static const struct {
		uint64_t bytes;
		const char *text;
	} cases[] = {
		{ 0, "0" },
		{ 512, "512 B" },
		{ 262144, "256 KiB" },
		{ 16777216, "16 MiB" },
		{ 33292288, "31.8 MiB" },
		{ 1073741824, "1 GiB" },
	};
	char buf[32];

	r->test = "format_size";
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		format_size(cases[i].bytes, buf, sizeof(buf));
		CHECK(r, !strcmp(buf, cases[i].text), "%llu: expected '%s', got '%s'",
		      (unsigned long long)cases[i].bytes, cases[i].text, buf);
	}
}

/* Runs FN with an emitter over a memory stream and compares the output. */
static void check_emit(struct results *r, bool json,
		       void (*fn)(struct emit *), const char *expected)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct emit e;

	emit_init(&e, f, json);
	fn(&e);
	CHECK(r, emit_finish(&e) == 0, "emit_finish failed");
	fclose(f);
	CHECK(r, !strcmp(buf, expected), "%s output:\n--- expected\n%s--- got\n%s",
	      json ? "JSON" : "text", expected, buf);
	free(buf);
}

static void emit_sample(struct emit *e)
{
	emit_object_begin(e, NULL);
	emit_list_begin(e, "rows");
	for (int i = 0; i < 2; i++) {
		emit_object_begin(e, NULL);
		emit_string(e, "name", "NAME", i ? "b\"q" : "alpha");
		emit_uint(e, "pfn", "PFN", FMT_HEX, 0x1000u * (i + 1));
		emit_uint(e, "bytes", "SIZE", FMT_SIZE, i ? 4096 : 0);
		emit_list_begin(e, "tags");
		emit_string(e, NULL, "TAG", "x");
		emit_list_end(e);
		emit_uint(e, "pages", NULL, FMT_DEC, 7);
		emit_missing(e, "fail", "FAIL");
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_bool(e, "ok", "OK", true);
	emit_object_end(e);
}

static void emit_empty_list(struct emit *e)
{
	emit_object_begin(e, NULL);
	emit_list_begin(e, "rows");
	emit_list_end(e);
	emit_object_end(e);
}

/*
 * Names are bytes from the kernel: an escape sequence, a byte that is not
 * UTF-8 (0xff, a lone continuation 0x80, an overlong 0xc0 0xaf, a
 * surrogate 0xed 0xa0 0x80) and real UTF-8 (e acute, 3 and 4 bytes).
 */
static const char odd_name[] = "a\x1b[31mb\xff\x80\xc0\xaf" "c\xed\xa0\x80\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";

static void emit_odd_name(struct emit *e)
{
	emit_object_begin(e, NULL);
	emit_string(e, "name", "Name", odd_name);
	emit_object_end(e);
}

/* The same rows as a held and as a streamed table (bitmap's runs). */
static void emit_rows(struct emit *e, bool streamed)
{
	static const char *const names[] = { "a", "longer\x1b" };
	struct emit_column cols[] = {
		{ "AREA", emit_string_width(names[1]) },
		{ "PFN", emit_uint_width(e, FMT_HEX, 0x12345) },
		{ "N", emit_uint_width(e, FMT_DEC, 100) },
	};

	emit_object_begin(e, NULL);
	if (streamed)
		emit_list_begin_streamed(e, "runs", cols, 3);
	else
		emit_list_begin(e, "runs");
	for (int i = 0; i < 3; i++) {
		emit_object_begin(e, NULL);
		emit_string(e, "area", "AREA", names[i % 2]);
		emit_uint(e, "pfn", "PFN", FMT_HEX, i ? 0x12345 : 0x1);
		emit_uint(e, "n", "N", FMT_DEC, i == 1 ? 100 : 1);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_string(e, "after", "After", "x");
	emit_object_end(e);
}

static void emit_rows_held(struct emit *e)
{
	emit_rows(e, false);
}

static void emit_rows_streamed(struct emit *e)
{
	emit_rows(e, true);
}

static void emit_undeclared_column(struct emit *e)
{
	struct emit_column cols[] = { { "A", 1 } };

	emit_list_begin_streamed(e, "rows", cols, 1);
	emit_object_begin(e, NULL);
	emit_uint(e, "b", "B", FMT_DEC, 1);
	emit_object_end(e);
	emit_list_end(e);
}

static void test_emit_streamed(struct results *r)
{
	static const char text[] =
		"AREA            PFN    N\n"
		"a               0x1    1\n"
		"longer\\x1b  0x12345  100\n"
		"a           0x12345    1\n"
		"After: x\n";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct emit e;

	r->test = "emit_streamed";
	/* Numbers are formatted by hand: printf's %#x and %u, edges included. */
	emit_init(&e, stdout, false);
	CHECK(r, emit_uint_width(&e, FMT_HEX, 0) == 1 &&
		 emit_uint_width(&e, FMT_HEX, UINT64_MAX) == 18 &&
		 emit_uint_width(&e, FMT_DEC, 0) == 1 &&
		 emit_uint_width(&e, FMT_DEC, UINT64_MAX) == 20, "number widths");
	check_emit(r, false, emit_rows_held, text);
	check_emit(r, false, emit_rows_streamed, text);
	emit_init(&e, f, false);
	emit_undeclared_column(&e);
	CHECK(r, emit_finish(&e) == -EINVAL, "a label not declared is an error");
	fclose(f);
	free(buf);
}

/* Sizes and times as a user reads them, and what --bytes and compact JSON change. */
static void check_emit_style(struct results *r, bool json, bool pretty,
			     bool exact_bytes, const char *expected)
{
	static const uint64_t times[] = { 999, 1500, 868678352, 12345678901ULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct emit e;

	emit_init(&e, f, json);
	e.pretty = pretty;
	e.exact_bytes = exact_bytes;
	emit_object_begin(&e, NULL);
	emit_uint(&e, "size_bytes", "Size", FMT_SIZE, 33292288);
	emit_list_begin(&e, "times_ns");
	for (size_t i = 0; i < ARRAY_SIZE(times); i++) {
		emit_object_begin(&e, NULL);
		emit_uint(&e, "ns", "TIME", FMT_NS, times[i]);
		emit_object_end(&e);
	}
	emit_list_end(&e);
	emit_object_end(&e);
	CHECK(r, emit_finish(&e) == 0, "emit_finish failed");
	fclose(f);
	CHECK(r, !strcmp(buf, expected), "--- expected\n%s--- got\n%s",
	      expected, buf);
	free(buf);
}

static void test_emit(struct results *r)
{
	r->test = "emit_style";
	check_emit_style(r, false, true, false,
			 "Size: 31.8 MiB\n"
			 "      TIME\n    999 ns\n    1.5 us\n868.678 ms\n  12.346 s\n");
	check_emit_style(r, false, true, true,
			 "Size: 33292288\n"
			 "      TIME\n    999 ns\n    1.5 us\n868.678 ms\n  12.346 s\n");
	check_emit_style(r, true, false, true,
			 "{\"size_bytes\":33292288,\"times_ns\":[{\"ns\":999},"
			 "{\"ns\":1500},{\"ns\":868678352},{\"ns\":12345678901}]}\n");
	r->test = "emit";
	check_emit(r, false, emit_sample,
		   "NAME      PFN   SIZE  FAIL\n"
		   "alpha  0x1000      0     -\n"
		   "b\"q    0x2000  4 KiB     -\n"
		   "OK: yes\n");
	check_emit(r, true, emit_sample,
		   "{\n"
		   "  \"rows\": [\n"
		   "    {\n"
		   "      \"name\": \"alpha\",\n"
		   "      \"pfn\": 4096,\n"
		   "      \"bytes\": 0,\n"
		   "      \"tags\": [\n"
		   "        \"x\"\n"
		   "      ],\n"
		   "      \"pages\": 7,\n"
		   "      \"fail\": null\n"
		   "    },\n"
		   "    {\n"
		   "      \"name\": \"b\\\"q\",\n"
		   "      \"pfn\": 8192,\n"
		   "      \"bytes\": 4096,\n"
		   "      \"tags\": [\n"
		   "        \"x\"\n"
		   "      ],\n"
		   "      \"pages\": 7,\n"
		   "      \"fail\": null\n"
		   "    }\n"
		   "  ],\n"
		   "  \"ok\": true\n"
		   "}\n");
	check_emit(r, true, emit_empty_list, "{\n  \"rows\": []\n}\n");
	check_emit(r, false, emit_empty_list, "");
	/* Valid JSON (was: the bytes as they came) and a terminal-safe line. */
	check_emit(r, true, emit_odd_name,
		   "{\n  \"name\": \"a\\u001b[31mb\\ufffd\\ufffd\\ufffd\\ufffdc"
		   "\\ufffd\\ufffd\\ufffd\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"\n}\n");
	check_emit(r, false, emit_odd_name,
		   "Name: a\\x1b[31mb\\xff\\x80\\xc0\\xafc\\xed\\xa0\\x80"
		   "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\n");
}

/* The captured guests: what the model reads agrees with the kernel's files. */
static void test_fixture(struct results *r, const char *fixtures,
			 const char *name)
{
	char root[PATH_MAX];
	struct sysroot_opts opts = { .root = root };
	struct cma_areas areas;
	struct event_list events;
	struct sysroot sr;
	uint64_t pages = 0;
	bool have_default = false, have_pool = false;

	r->test = name;
	snprintf(root, sizeof(root), "%s/%s/root", fixtures, name);
	CHECK(r, sysroot_open(&sr, &opts) == EXIT_OK, "sysroot_open %s", root);
	CHECK(r, !strcmp(sr.debugfs, "/sys/kernel/debug"), "debugfs at %s", sr.debugfs);
	CHECK(r, !strcmp(sr.tracefs, "/sys/kernel/tracing"), "tracefs at %s", sr.tracefs);
	if (cma_areas_load(&sr, &areas) != EXIT_OK) {
		CHECK(r, false, "cma_areas_load failed");
		return;
	}
	CHECK_U64(r, "areas", 2, areas.nr);
	CHECK(r, areas.cma_total_kb.present, "CmaTotal read from meminfo");
	CHECK_U64(r, "page size (from CmaTotal)", 4096, areas.page_size);
	for (unsigned int i = 0; i < areas.nr; i++) {
		const struct cma_area *a = &areas.area[i];

		pages += a->count;
		CHECK(r, a->used <= a->count, "%s: used %llu > count", a->name,
		      (unsigned long long)a->used);
		CHECK(r, a->maxchunk <= a->count - a->used,
		      "%s: maxchunk larger than the free pages", a->name);
		CHECK(r, a->alloc_success.present && a->alloc_fail.present,
		      "%s: sysfs counters present", a->name);
		if (!strcmp(a->name, "reserved")) {
			have_default = true;
			CHECK_U64(r, "reserved pages (cma=32M)", 8192, a->count);
		} else if (!strcmp(a->name, "fimc-pool")) {
			have_pool = true;
			CHECK_U64(r, "fimc-pool pages (16 MiB in DT)", 4096, a->count);
		}
		if (i)
			CHECK(r, areas.area[i - 1].base_pfn < a->base_pfn,
			      "areas sorted by base_pfn");
	}
	CHECK(r, have_default && have_pool, "default area and fimc-pool present");
	CHECK_U64(r, "CmaTotal == sum of areas", areas.cma_total_kb.v * 1024,
		  pages * areas.page_size);
	cma_areas_free(&areas);

	if (events_load(&sr, &events) != EXIT_OK) {
		CHECK(r, false, "events_load failed");
		return;
	}
	CHECK_U64(r, "events present", events.nr, events.nr_present);
	for (unsigned int i = 0; i < events.nr; i++) {
		const struct event_info *ev = &events.ev[i];

		if (strcmp(ev->name, "cma_alloc_finish"))
			continue;
		CHECK(r, ev->nr_fields >= 3 && !strcmp(ev->fields[0], "name") &&
			 !strcmp(ev->fields[1], "pfn"),
		      "cma_alloc_finish fields name,pfn,...");
	}
	events_free(&events);
}

static void test_event_format_parser(struct results *r)
{
	static const char fmt[] =
		"name: cma_release\n"
		"ID: 7\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned long count;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\n"
		"print fmt: \"pfn=%lx count=%lu\", REC->pfn, REC->count\n";
	char *fields[4];
	int n;

	r->test = "event_format_fields";
	n = event_format_fields("cma", fmt, sizeof(fmt) - 1, fields, 4);
	CHECK(r, n == 2 && !strcmp(fields[0], "pfn") && !strcmp(fields[1], "count"),
	      "two non-common fields, got %d", n);
	for (int i = 0; i < n; i++)
		free(fields[i]);
	n = event_format_fields("cma", "garbage", 7, fields, 4);
	CHECK(r, n < 0, "garbage is refused, got %d", n);
}

static void test_failures_parser(struct results *r)
{
	static const char ok[] =
		"time_ns=5 attempt=1 start_pfn=none count=9 align=0 err=-12 stage=no-space pfn=none\n"
		"time_ns=7 attempt=2 start_pfn=0x7e040 count=8 align=3 err=-16 stage=migrate pfn=0x7e041 flags=0x10000 refcount=2 mapcount=-1 migratetype=CMA kind=movable_ops future=1\n"
		"records=2 dropped=4\n";
	static const char *const bad[] = {
		"",						/* no records line */
		"time_ns=5 err=-16 stage=test\n",		/* cut short */
		"time_ns=5 err=-16 stage=test\nrecords=2 dropped=0\n",	/* records disagrees */
		"time_ns=x err=-16 stage=test\nrecords=1 dropped=0\n",	/* not a number */
		"time_ns=5 err=-16 stage=test pfn=12\nrecords=1 dropped=0\n",	/* pfn not hex */
		"time_ns=5 err=-16 stage=test =3\nrecords=1 dropped=0\n",	/* empty key */
		"records=0 dropped=0\ntime_ns=5\n",		/* after the records line */
		"records=0\n",					/* no dropped */
		"records=0 dropped=0 more=1\n",			/* a key the trailer has not */
		"records=0 records=0 dropped=0\n",		/* a key twice */
		"time_ns=5 err=-16 stage=averyveryveryverylongstagename\nrecords=1 dropped=0\n",
		/* records without the keys every record has: were err=0 failures */
		"future=1\nrecords=1 dropped=0\n",
		"time_ns=5 stage=test\nrecords=1 dropped=0\n",	/* no err */
		"time_ns=5 err=-16\nrecords=1 dropped=0\n",	/* no stage */
		/* the old format: its count= trailer is no trailer */
		"time_ns=5 err=-16 stage=test owner=0\ncount=1 dropped=0\n",
	};
	struct cma_failure_log log;
	const struct cma_failure_rec *m;

	r->test = "failures_parse";
	CHECK(r, failures_parse(ok, sizeof(ok) - 1, &log) == 0, "a good file parses");
	CHECK_U64(r, "records", 2, log.nr);
	CHECK_U64(r, "dropped", 4, log.dropped);
	if (log.nr == 2) {
		CHECK(r, !log.rec[0].has_start && !log.rec[0].has_pfn &&
			 !strcmp(log.rec[0].stage, "no-space") && log.rec[0].err == -12 &&
			 log.rec[0].count == 9, "no-space record");
		m = &log.rec[1];
		CHECK(r, m->has_start && m->start_pfn == 0x7e040 && m->has_pfn &&
			 m->pfn == 0x7e041 && m->flags == 0x10000 && m->refcount == 2 &&
			 m->mapcount == -1 && m->align == 3 && m->count == 8 &&
			 !strcmp(m->kind, "movable_ops") &&
			 !strcmp(m->migratetype, "CMA"),
		      "migrate record, unknown key skipped");
	}
	failures_free(&log);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK(r, failures_parse(bad[i], strlen(bad[i]), &log) == -EINVAL,
		      "bad input %zu refused: '%s'", i, bad[i]);
	CHECK(r, failures_parse("records=0 dropped=7\n", 20, &log) == 0 && !log.nr &&
		 log.dropped == 7, "no record kept, seven dropped");
	failures_free(&log);
}

static void test_stats_parser(struct results *r)
{
	static const char ok[] =
		"requests=4\nsuccesses=1\nfailures=3\nretries=0\npages_migrated=12\n"
		"failed_no_space=1\nlast_failure_ns=0\n";
	static const char *const bad[] = {
		"requests 4\n",			/* the old "name value" */
		"requests\n",			/* no value */
		"requests=\n",
		"=4\n",				/* no name */
		"requests=-1\n",		/* negative */
		"requests=x\n",
		"requests==4\n",
		"requests=4 successes=1\n",	/* one counter a line */
		"requests= 4\n",
		"requests=18446744073709551616\n",	/* 2^64 */
		"a_name_longer_than_the_model_holds=1\n",
	};
	struct cma_stats st;
	uint64_t v = 0;

	r->test = "stats_parse";
	CHECK(r, stats_parse(ok, sizeof(ok) - 1, &st) == 0 && st.nr == 7, "parses");
	CHECK(r, stats_get(&st, "requests", &v) && v == 4, "requests");
	CHECK(r, stats_get(&st, "pages_migrated", &v) && v == 12, "pages_migrated");
	CHECK(r, stats_get(&st, "failed_no_space", &v) && v == 1, "failed_no_space");
	CHECK(r, stats_get(&st, "last_failure_ns", &v) && v == 0, "last_failure_ns");
	CHECK(r, !stats_get(&st, "failed_signal", &v), "absent counter");
	CHECK(r, stats_parse("failed_future=2", 15, &st) == 0 && st.nr == 1 &&
		 stats_get(&st, "failed_future", &v) && v == 2,
	      "a counter cmadebug does not know, no final newline");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK(r, stats_parse(bad[i], strlen(bad[i]), &st) == -EINVAL,
		      "bad stats %zu refused: '%s'", i, bad[i]);
}

/* The captured failure logs parse and agree with the stats beside them. */
static void test_devices_parser(struct results *r)
{
	static const struct {
		const char *text;
		int ret;
		unsigned int nr;
	} cases[] = {
		{ "records=0\n", 0, 0 },
		{ "device=cmadebug-fimc driver=dma-cma-test\nrecords=1\n", 0, 1 },
		/* no driver bound; no final newline */
		{ "device=a driver=none\ndevice=b driver=drv\nrecords=2", 0, 2 },
		{ "device=a driver=drv bus=platform\nrecords=1\n", 0, 1 },	/* a newer key */
		{ "device=a driver=drv\nrecords=2\n", -EINVAL, 0 },	/* records disagrees */
		{ "device=a driver=drv\n", -EINVAL, 0 },	/* cut before the records line */
		{ "device=a driver=drv extra\nrecords=1\n", -EINVAL, 0 },
		{ "device=a\nrecords=1\n", -EINVAL, 0 },	/* no driver= */
		{ "driver=drv\nrecords=1\n", -EINVAL, 0 },	/* no device= */
		{ "device=a device=b driver=drv\nrecords=1\n", -EINVAL, 0 },
		{ "device=a driver=\nrecords=1\n", -EINVAL, 0 },
		{ "records=0\ndevice=a driver=drv\n", -EINVAL, 0 },	/* nothing after it */
		{ "records=x\n", -EINVAL, 0 },
		/* the old format */
		{ "a -\ncount=1\n", -EINVAL, 0 },
		{ "device=a driver=drv\ncount=1\n", -EINVAL, 0 },
	};
	static const char nul_name[] = "device=\0a driver=drv\nrecords=1\n";
	struct cma_devices devs;

	r->test = "devices parser";
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret = cma_devices_parse(cases[i].text, strlen(cases[i].text), &devs);

		CHECK(r, ret == cases[i].ret && (ret || devs.nr == cases[i].nr),
		      "case %zu: ret %d (want %d), %u devices", i, ret,
		      cases[i].ret, devs.nr);
		if (!ret && i == 1)
			CHECK(r, !strcmp(devs.dev[0].name, "cmadebug-fimc") &&
				 !strcmp(devs.dev[0].driver, "dma-cma-test"), "name and driver");
		if (!ret && i == 2)
			CHECK(r, !devs.dev[0].driver[0] && !strcmp(devs.dev[1].name, "b") &&
				 !strcmp(devs.dev[1].driver, "drv"), "driver=none is no driver");
		cma_devices_free(&devs);
	}
	CHECK(r, cma_devices_parse(nul_name, sizeof(nul_name) - 1, &devs) == -EINVAL,
	      "a NUL inside a name is refused");
}

static void test_fixture_failures(struct results *r, const char *fixtures,
				  const char *name)
{
	char root[PATH_MAX];
	struct sysroot_opts opts = { .root = root };
	struct cma_failure_log log;
	struct cma_stats st;
	struct sysroot sr;
	uint64_t failed = 0, v;
	static const char *const stages[] = {
		"failed_isolate", "failed_migrate", "failed_test",
		"failed_no_space", "failed_signal", "failed_other",
	};

	r->test = name;
	snprintf(root, sizeof(root), "%s/%s/root", fixtures, name);
	if (sysroot_open(&sr, &opts) != EXIT_OK ||
	    failures_load(&sr, "reserved", &log) != EXIT_OK) {
		CHECK(r, false, "loading reserved/failures");
		return;
	}
	if (stats_load(&sr, "reserved", &st) != EXIT_OK) {
		CHECK(r, false, "loading reserved/stats");
		failures_free(&log);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(stages); i++)
		if (stats_get(&st, stages[i], &v))
			failed += v;
	CHECK_U64(r, "failed attempts in stats vs records kept + dropped",
		  failed, log.nr + log.dropped);
	CHECK(r, log.nr >= 3, "the capture provoked three failures, %u kept", log.nr);
	for (unsigned int i = 0; i + 1 < log.nr; i++)
		CHECK(r, log.rec[i].time_ns <= log.rec[i + 1].time_ns,
		      "records oldest first");
	failures_free(&log);
}

static void test_map_parsers(struct results *r)
{
	/* bit 0..1 and 33 of an area of 64 pages at pfn 0x100 */
	static const char words[] = "3 2\n";
	static const char alloc[] = "start_pfn=0x100 end_pfn=0x101 pages=2\n"
		"start_pfn=0x121 end_pfn=0x121 pages=1\nrecords=2 pages=3 order_per_bit=0\n";
	/* an area of 2 pages a bit: bits 0-1 and 4 */
	static const char alloc2[] = "start_pfn=0x100 end_pfn=0x103 pages=4 future=1\n"
		"start_pfn=0x108 end_pfn=0x109 pages=2\nrecords=2 pages=6 order_per_bit=1\n";
	static const char *const bad[] = {
		"start_pfn=0x100 end_pfn=0x101 pages=2\n",		/* no records line */
		"start_pfn=0x100 end_pfn=0x101 pages=3\nrecords=1 pages=3 order_per_bit=0\n",
		"start_pfn=0x101 end_pfn=0x100 pages=0\nrecords=1 pages=0 order_per_bit=0\n",
		"start_pfn=0x100 end_pfn=0x101 pages=2\nrecords=2 pages=2 order_per_bit=0\n",
		"start_pfn=0x100 end_pfn=0x101 pages=2\nrecords=1 pages=3 order_per_bit=0\n",
		"start_pfn=0x100 end_pfn=0x101 pages=2\nrecords=1 pages=2\n",	/* no order */
		"start_pfn=0x100 end_pfn=0x101 pages=2\nrecords=1 pages=2 order_per_bit=0 x=1\n",
		"start_pfn=0x100 end_pfn=0x101 pages=2\nrecords=1 pages=2 order_per_bit=31\n",
		/* runs that are not whole bits of 2 pages */
		"start_pfn=0x100 end_pfn=0x102 pages=3\nrecords=1 pages=3 order_per_bit=1\n",
		"start_pfn=0x100 pages=2\nrecords=1 pages=2 order_per_bit=0\n",	/* no end_pfn */
		"start_pfn=0x100 end_pfn=0x101\nrecords=1 pages=2 order_per_bit=0\n",
		"start_pfn=256 end_pfn=0x101 pages=2\nrecords=1 pages=2 order_per_bit=0\n",
		"start_pfn=0x100 start_pfn=0x100 end_pfn=0x101 pages=2\n"
		"records=1 pages=2 order_per_bit=0\n",
		/* overlapping, and out of order */
		"start_pfn=0x100 end_pfn=0x101 pages=2\nstart_pfn=0x101 end_pfn=0x101 pages=1\n"
		"records=2 pages=3 order_per_bit=0\n",
		"records=0 pages=0 order_per_bit=0\nstart_pfn=0x1 end_pfn=0x1 pages=1\n",
		/* the old format */
		"0x100-0x101 2\ncount=1 pages=2\n",
		"start_pfn=0x100 end_pfn=0x101 pages=2\ncount=1 pages=2\n",
	};
	struct cma_map a, b;

	r->test = "map_parsers";
	CHECK(r, bitmap_parse(words, sizeof(words) - 1, 0x100, 64, 0, &a) == 0, "bitmap parses");
	CHECK(r, allocated_parse(alloc, sizeof(alloc) - 1, &b) == 0, "allocated parses");
	CHECK(r, a.nr == 2 && b.nr == 2 && a.pages == 3 && b.pages == 3 &&
		 !a.order_per_bit && !b.order_per_bit &&
		 !memcmp(a.run, b.run, 2 * sizeof(*a.run)), "same runs from both");
	cma_map_free(&a);
	cma_map_free(&b);
	CHECK(r, bitmap_parse("19", 2, 0x100, 64, 1, &a) == 0, "bitmap of 2 pages a bit");
	CHECK(r, allocated_parse(alloc2, sizeof(alloc2) - 1, &b) == 0 && b.order_per_bit == 1,
	      "allocated with order_per_bit=1, a newer key skipped");
	CHECK(r, a.nr == 2 && b.nr == 2 && a.pages == 6 && b.pages == 6 &&
		 a.order_per_bit == 1 && !memcmp(a.run, b.run, 2 * sizeof(*a.run)),
	      "same runs from both, order_per_bit 1");
	cma_map_free(&a);
	cma_map_free(&b);
	CHECK(r, allocated_parse("records=0 pages=0 order_per_bit=3\n", 34, &b) == 0 &&
		 !b.nr && b.order_per_bit == 3, "nothing allocated");
	cma_map_free(&b);
	CHECK(r, bitmap_parse("3", 1, 0x100, 64, 0, &a) == -EINVAL, "too few words");
	CHECK(r, bitmap_parse("3 0 0", 5, 0x100, 64, 0, &a) == -EINVAL, "too many words");
	CHECK(r, bitmap_parse("4294967296 0", 12, 0x100, 64, 0, &a) == -EINVAL, "word > u32");
	CHECK(r, bitmap_parse("1 0", 3, 0x100, 128, 1, &a) == 0 && a.nr == 1 &&
		 a.run[0].first == 0x100 && a.run[0].last == 0x101, "order_per_bit 1");
	cma_map_free(&a);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK(r, allocated_parse(bad[i], strlen(bad[i]), &b) == -EINVAL && !b.run,
		      "bad allocated %zu refused: '%s'", i, bad[i]);
	{
		static const char wraps[] = "start_pfn=0x0 end_pfn=0xffffffffffffffff pages=0\n"
			"records=1 pages=0 order_per_bit=0\n";
		static const char sums[] =
			"start_pfn=0x0 end_pfn=0x7fffffffffffffff pages=9223372036854775808\n"
			"start_pfn=0x8000000000000000 end_pfn=0xfffffffffffffffe pages=9223372036854775807\n"
			"start_pfn=0xffffffffffffffff end_pfn=0xffffffffffffffff pages=1\n"
			"records=3 pages=0 order_per_bit=0\n";

		CHECK(r, allocated_parse(wraps, sizeof(wraps) - 1, &b) == -EINVAL,
		      "a run of 2^64 pages (its count wraps to 0)");
		CHECK(r, allocated_parse(sums, sizeof(sums) - 1, &b) == -EINVAL,
		      "runs whose page total wraps");
	}
}

/* Mainline's unlocked bitmap and the series' allocated file, captured
 * together from a quiet guest, describe the same runs. */
static void test_fixture_maps_agree(struct results *r, const char *fixtures,
				    const char *name)
{
	char root[PATH_MAX], rel[PATH_MAX];
	struct sysroot_opts opts = { .root = root };
	struct cma_areas areas;
	struct sysroot sr;

	r->test = name;
	snprintf(root, sizeof(root), "%s/%s/root", fixtures, name);
	if (sysroot_open(&sr, &opts) || cma_areas_load(&sr, &areas)) {
		CHECK(r, false, "loading %s", root);
		return;
	}
	for (unsigned int i = 0; i < areas.nr; i++) {
		const struct cma_area *area = &areas.area[i];
		struct cma_map from_alloc, from_bitmap;
		char *buf;
		size_t len;

		snprintf(rel, sizeof(rel), "cma/%s/bitmap", area->name);
		if (cma_map_load(&sr, area, &from_alloc) ||
		    sysroot_read(&sr, FS_DEBUGFS, rel, &buf, &len)) {
			CHECK(r, false, "%s: reading the maps", area->name);
			continue;
		}
		CHECK(r, !strcmp(from_alloc.source, "allocated"), "%s: allocated preferred",
		      area->name);
		CHECK(r, bitmap_parse(buf, len, area->base_pfn, area->count,
				      area->order_per_bit, &from_bitmap) == 0,
		      "%s: bitmap parses", area->name);
		free(buf);
		CHECK(r, from_alloc.nr == from_bitmap.nr &&
			 !memcmp(from_alloc.run, from_bitmap.run,
				 from_alloc.nr * sizeof(*from_alloc.run)),
		      "%s: bitmap and allocated disagree", area->name);
		CHECK_U64(r, "used pages vs map", area->used, from_alloc.pages);
		cma_map_free(&from_alloc);
		cma_map_free(&from_bitmap);
	}
	cma_areas_free(&areas);
}

/*
 * Trees in the layout of newer kernels, built from captured files.  No guest
 * of ours runs a 6.14+ kernel, so the layout comes from upstream source:
 * mm/cma_debug.c makes cma/<area>/ranges/<N>/{base_pfn,bitmap} (with
 * cma/<area>/{base_pfn,bitmap} links to range 0, and no "allocated", which
 * is our series'), mm/cma_sysfs.c adds mm/cma/<area>/{total_pages,
 * available_pages}.  The file contents are the captured ones, copied,
 * renamed or split; nothing is typed.
 */
static int mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -errno : 0;
}

/* Writes LEN bytes of BUF to DIR/REL, making the directories. */
static int tree_write(const char *dir, const char *rel, const char *buf,
		      size_t len)
{
	char path[PATH_MAX], parent[PATH_MAX];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(parent, sizeof(parent), "%s", path);
	*strrchr(parent, '/') = '\0';
	if (mkdirs(parent) || !(f = fopen(path, "w")))
		return -1;
	n = fwrite(buf, 1, len, f);
	return fclose(f) || n != len ? -1 : 0;
}

/* Copies the captured FROM (under SRC) to TO (under DST). */
static int tree_copy(const char *src, const char *from, const char *dst,
		     const char *to)
{
	char path[PATH_MAX];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", src, from);
	f = fopen(path, "r");
	if (!f)
		return -1;
	buf = malloc(1 << 20);
	len = buf ? fread(buf, 1, 1 << 20, f) : 0;
	fclose(f);
	ret = buf ? tree_write(dst, to, buf, len) : -1;
	free(buf);
	return ret;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void tree_remove(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The words of a captured u32 array, as one string per word. */
static unsigned int split_words(char *buf, char **words, unsigned int max)
{
	unsigned int n = 0;

	for (char *w = strtok(buf, " \n"); w && n < max; w = strtok(NULL, " \n"))
		words[n++] = w;
	return n;
}

/* Joins WORDS[first, last) as the kernel prints a u32 array. */
static void join_words(char **words, unsigned int first, unsigned int last,
		       char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	for (unsigned int i = first; i < last && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%s", words[i],
					 i + 1 < last ? " " : "\n");
}

/*
 * A 6.14+ tree from fixture NAME: every area one range, or with SPLIT the
 * area "reserved" cut into two ranges, its bitmap's second half first (at
 * the area's base) and its first half second, HOLE pages further on.
 */
static int build_ranges_tree(const char *fixtures, const char *name,
			     bool split, uint64_t hole, char *dst)
{
	static const char *const area_files[] = {
		"count", "used", "maxchunk", "order_per_bit", "base_pfn", "bitmap",
	};
	static const char *const areas[] = { "reserved", "fimc-pool" };
	char src[PATH_MAX], from[PATH_MAX], to[PATH_MAX];
	int ret = 0;

	snprintf(src, PATH_MAX, "%s/%s/root", fixtures, name);
	snprintf(dst, PATH_MAX, "/tmp/cmadebug-unit.XXXXXX");
	if (!mkdtemp(dst))
		return -1;
	ret |= tree_copy(src, "proc/mounts", dst, "proc/mounts");
	ret |= tree_copy(src, "proc/meminfo", dst, "proc/meminfo");
	for (size_t a = 0; a < ARRAY_SIZE(areas); a++) {
		for (size_t f = 0; f < ARRAY_SIZE(area_files); f++) {
			snprintf(from, sizeof(from), "sys/kernel/debug/cma/%s/%s",
				 areas[a], area_files[f]);
			ret |= tree_copy(src, from, dst, from);
		}
		snprintf(from, sizeof(from), "sys/kernel/mm/cma/%s/alloc_pages_success",
			 areas[a]);
		ret |= tree_copy(src, from, dst, from);
		/* sysfs total_pages is the area's count (cma->count). */
		snprintf(from, sizeof(from), "sys/kernel/debug/cma/%s/count", areas[a]);
		snprintf(to, sizeof(to), "sys/kernel/mm/cma/%s/total_pages", areas[a]);
		ret |= tree_copy(src, from, dst, to);
		if (split && !strcmp(areas[a], "reserved"))
			continue;
		snprintf(from, sizeof(from), "sys/kernel/debug/cma/%s/base_pfn", areas[a]);
		snprintf(to, sizeof(to), "sys/kernel/debug/cma/%s/ranges/0/base_pfn",
			 areas[a]);
		ret |= tree_copy(src, from, dst, to);
		snprintf(from, sizeof(from), "sys/kernel/debug/cma/%s/bitmap", areas[a]);
		snprintf(to, sizeof(to), "sys/kernel/debug/cma/%s/ranges/0/bitmap",
			 areas[a]);
		ret |= tree_copy(src, from, dst, to);
	}
	if (split) {
		char *buf, *words[4096], half[65536], num[32];
		struct sysroot_opts opts = { .root = src };
		struct sysroot sr;
		uint64_t base;
		size_t len;
		unsigned int n;

		if (sysroot_open(&sr, &opts) ||
		    sysroot_read_u64(&sr, FS_DEBUGFS, "cma/reserved/base_pfn", &base) ||
		    sysroot_read(&sr, FS_DEBUGFS, "cma/reserved/bitmap", &buf, &len))
			return -1;
		n = split_words(buf, words, ARRAY_SIZE(words));
		join_words(words, n / 2, n, half, sizeof(half));
		ret |= tree_write(dst, "sys/kernel/debug/cma/reserved/ranges/0/bitmap",
				  half, strlen(half));
		join_words(words, 0, n / 2, half, sizeof(half));
		ret |= tree_write(dst, "sys/kernel/debug/cma/reserved/ranges/1/bitmap",
				  half, strlen(half));
		free(buf);
		snprintf(num, sizeof(num), "%llu\n", (unsigned long long)base);
		ret |= tree_write(dst, "sys/kernel/debug/cma/reserved/ranges/0/base_pfn",
				  num, strlen(num));
		snprintf(num, sizeof(num), "%llu\n",
			 (unsigned long long)(base + (uint64_t)(n / 2) * 32 + hole));
		ret |= tree_write(dst, "sys/kernel/debug/cma/reserved/ranges/1/base_pfn",
				  num, strlen(num));
	}
	return ret;
}

static void test_ranges_size(struct results *r)
{
	struct cma_area a = { .count = 100, .order_per_bit = 0, .nr_ranges = 2 };
	uint64_t w22[] = { 2, 2 }, w11[] = { 1, 1 }, w33[] = { 3, 3 }, w4[] = { 4 };

	r->test = "cma_ranges_size";
	CHECK(r, cma_ranges_size(&a, w22) == 0 && a.range[0].pages == 64 &&
		 !a.range[0].exact && a.range[1].pages == 64,
	      "100 pages in 2+2 words: bounds of 64 pages each");
	CHECK(r, cma_ranges_size(&a, w11) == -EINVAL, "1+1 words hold only 64 bits");
	CHECK(r, cma_ranges_size(&a, w33) == -EINVAL, "3+3 words need at least 130 bits");
	a.nr_ranges = 1;
	CHECK(r, cma_ranges_size(&a, w4) == 0 && a.range[0].pages == 100 &&
		 a.range[0].exact, "one range is the whole area, exactly");
	a.order_per_bit = 2;
	CHECK(r, cma_ranges_size(&a, w4) == -EINVAL, "order 2: 25 bits are one word, not 4");
	a.nr_ranges = 0;
	CHECK(r, cma_ranges_size(&a, w4) == -EINVAL, "no ranges");
}

static void test_u32_array_words(struct results *r)
{
	uint64_t n = 9;

	r->test = "u32_array_words";
	CHECK(r, u32_array_words("1 2 4294967295\n", 15, &n) == 0 && n == 3, "three words");
	CHECK(r, u32_array_words("\n", 1, &n) == 0 && n == 0, "no words");
	CHECK(r, u32_array_words("1 4294967296\n", 13, &n) == -EINVAL, "not a u32");
	CHECK(r, u32_array_words("1 x\n", 4, &n) == -EINVAL, "garbage");
}

/* A 6.14+ tree with one range per area reads as the captured 6.12 one. */
static void test_ranges_tree(struct results *r, const char *fixtures,
			     const char *name)
{
	char root[PATH_MAX], orig[PATH_MAX];
	struct sysroot_opts opts = { .root = root }, oopts = { .root = orig };
	struct cma_areas areas, oareas;
	struct sysroot sr, osr;

	r->test = "ranges (one per area, upstream layout)";
	snprintf(orig, sizeof(orig), "%s/%s/root", fixtures, name);
	if (build_ranges_tree(fixtures, name, false, 0, root)) {
		CHECK(r, false, "building the tree in %s", root);
		tree_remove(root);
		return;
	}
	if (sysroot_open(&sr, &opts) || cma_areas_load(&sr, &areas)) {
		CHECK(r, false, "loading %s", root);
		tree_remove(root);
		return;
	}
	if (sysroot_open(&osr, &oopts) || cma_areas_load(&osr, &oareas)) {
		CHECK(r, false, "loading %s", orig);
		cma_areas_free(&areas);
		tree_remove(root);
		return;
	}
	CHECK_U64(r, "areas", oareas.nr, areas.nr);
	for (unsigned int i = 0; i < areas.nr && i < oareas.nr; i++) {
		const struct cma_area *a = &areas.area[i], *o = &oareas.area[i];
		struct cma_map m = { 0 }, om = { 0 };

		CHECK(r, a->has_ranges && a->nr_ranges == 1 && a->range[0].exact &&
			 a->range[0].base_pfn == o->base_pfn && a->range[0].pages == o->count,
		      "%s: one exact range", a->name);
		CHECK(r, !o->has_ranges && o->nr_ranges == 1, "6.12: no ranges/");
		CHECK(r, a->total_pages.present && a->total_pages.v == a->count,
		      "%s: sysfs total_pages", a->name);
		CHECK(r, !a->available_pages.present && !o->total_pages.present,
		      "absent sysfs files stay absent");
		if (cma_map_load(&sr, a, &m) || cma_map_load(&osr, o, &om)) {
			CHECK(r, false, "%s: maps", a->name);
			cma_map_free(&m);	/* the one that loaded */
			continue;
		}
		CHECK(r, !strcmp(m.source, "ranges"), "%s: source %s", a->name, m.source);
		CHECK(r, m.nr == om.nr && m.pages == om.pages &&
			 !memcmp(m.run, om.run, m.nr * sizeof(*m.run)),
		      "%s: runs from ranges/0/bitmap = captured allocated", a->name);
		cma_map_free(&m);
		cma_map_free(&om);
	}
	cma_areas_free(&oareas);
	cma_areas_free(&areas);
	tree_remove(root);
}

/* An area of two ranges with a hole between them. */
static void test_ranges_split(struct results *r, const char *fixtures,
			      const char *name)
{
	const uint64_t hole = 0x1000;
	char root[PATH_MAX], orig[PATH_MAX], strip[9];
	struct sysroot_opts opts = { .root = root }, oopts = { .root = orig };
	struct cma_areas areas, oareas;
	struct cma_map m = { 0 }, om = { 0 };	/* freed at out */
	struct sysroot sr, osr;
	const struct cma_area *a = NULL, *o = NULL;

	r->test = "ranges (two, upstream layout)";
	snprintf(orig, sizeof(orig), "%s/%s/root", fixtures, name);
	if (build_ranges_tree(fixtures, name, true, hole, root) ||
	    sysroot_open(&sr, &opts) || cma_areas_load(&sr, &areas)) {
		CHECK(r, false, "building and loading %s", root);
		tree_remove(root);
		return;
	}
	if (sysroot_open(&osr, &oopts) || cma_areas_load(&osr, &oareas)) {
		CHECK(r, false, "loading %s", orig);
		cma_areas_free(&areas);
		tree_remove(root);
		return;
	}
	for (unsigned int i = 0; i < areas.nr; i++)
		if (!strcmp(areas.area[i].name, "reserved"))
			a = &areas.area[i], o = &oareas.area[i];
	if (!a || cma_map_load(&sr, a, &m) || cma_map_load(&osr, o, &om)) {
		CHECK(r, false, "reserved and its maps");
		goto out;
	}
	CHECK(r, a->nr_ranges == 2 && !a->range[0].exact &&
		 a->range[0].pages + a->range[1].pages == a->count &&
		 a->range[1].base_pfn == a->base_pfn + a->range[0].pages + hole,
	      "two ranges of bitmap-sized bounds, %u found", a->nr_ranges);
	/* The captured runs lie in the first half, now range 1, HOLE pages on. */
	CHECK(r, m.nr == om.nr && m.pages == om.pages, "same runs, %u vs %u", m.nr, om.nr);
	for (unsigned int i = 0; i < m.nr && i < om.nr; i++)
		CHECK(r, m.run[i].first == om.run[i].first + a->range[0].pages + hole &&
			 m.run[i].last == om.run[i].last + a->range[0].pages + hole,
		      "run %u moved with its range", i);
	/* Eight cells: four over range 0 (free), four over range 1. */
	cma_map_strip(&m, a, 8, NULL, 0, '!', strip);
	CHECK(r, !strcmp(strip, "....+..."), "strip over two ranges: got '%s'", strip);
out:
	cma_map_free(&m);
	cma_map_free(&om);
	cma_areas_free(&oareas);
	cma_areas_free(&areas);
	tree_remove(root);
}

/*
 * Hostile inputs: every parser gets its buffer in an allocation of exactly
 * its length (no NUL after it, so ASan and valgrind see any read past the
 * end) and must answer with 0 or a negative errno, never crash.
 */
enum parser {
	P_FAILURES, P_ALLOCATED, P_BITMAP, P_STATS, P_TEXT, P_WORDS,
	P_LAYOUT, P_PTDUMP, P_SPLITS, P_ATTR, P_ALIAS, P_DEVICES,
};

static int run_parser(enum parser p, const char *data, size_t len)
{
	char *buf = malloc(len ? len : 1);
	struct cma_failure_log log;
	struct lm_attr_changes attr;
	struct alias_report rep;
	struct lm_splits splits;
	struct lm_layout layout;
	struct cma_devices devs;
	struct cma_stats st;
	struct cma_map map;
	char mnt[PATH_MAX];
	uint64_t v;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	memcpy(buf, data, len);
	switch (p) {
	case P_FAILURES:
		ret = failures_parse(buf, len, &log);
		failures_free(&log);
		break;
	case P_ALLOCATED:
		ret = allocated_parse(buf, len, &map);
		cma_map_free(&map);
		break;
	case P_BITMAP:
		ret = bitmap_parse(buf, len, 0x7bc00, 8192, 0, &map);
		cma_map_free(&map);
		break;
	case P_STATS:
		ret = stats_parse(buf, len, &st);
		break;
	case P_TEXT:
		mounts_find(buf, len, "debugfs", NULL, mnt, sizeof(mnt));
		meminfo_find_kb(buf, len, "CmaTotal", &v);
		ret = parse_u64(buf, len, &v);
		break;
	case P_WORDS:
		ret = u32_array_words(buf, len, &v);
		break;
	case P_LAYOUT:
		ret = layout_parse(buf, len, &layout);
		break;
	case P_PTDUMP:
		ret = ptdump_layout_parse(buf, len, &layout);
		break;
	case P_SPLITS:
		ret = splits_parse(buf, len, &splits);
		splits_free(&splits);
		break;
	case P_ATTR:
		ret = attr_changes_parse(buf, len, &attr);
		break;
	case P_ALIAS:
		ret = alias_parse(buf, len, &rep);
		alias_free(&rep);
		break;
	case P_DEVICES:
		ret = cma_devices_parse(buf, len, &devs);
		cma_devices_free(&devs);
		break;
	}
	free(buf);
	return ret;
}

/* Where the file's last value starts: a prefix cut before it must fail. */
static size_t last_value_start(const char *buf, size_t len)
{
	while (len && buf[len - 1] == '\n')
		len--;
	while (len && buf[len - 1] != ' ' && buf[len - 1] != '=')
		len--;
	return len;
}

static void test_truncated_captures(struct results *r, const char *fixtures,
				    const char *name)
{
	static const struct {
		const char *rel;
		enum parser p;
		bool ends_with_check;	/* a cut-short file must not parse */
	} files[] = {
		{ "cma/reserved/failures", P_FAILURES, true },
		{ "cma/fimc-pool/failures", P_FAILURES, true },
		{ "cma/fimc-pool/allocated", P_ALLOCATED, true },
		{ "cma/reserved/bitmap", P_BITMAP, true },
		{ "cma/reserved/stats", P_STATS, false },
		{ "linear_map/layout", P_LAYOUT, true },
		{ "linear_map/splits", P_SPLITS, true },
		{ "linear_map/alias_check", P_ALIAS, true },
		{ "linear_map/attr_changes", P_ATTR, false },
		{ "kernel_page_tables", P_PTDUMP, false },
		{ "cma/fimc-pool/devices", P_DEVICES, true },
	};
	char root[PATH_MAX];
	struct sysroot_opts opts = { .root = root };
	struct sysroot sr;

	r->test = "truncated captured files";
	snprintf(root, sizeof(root), "%s/%s/root", fixtures, name);
	if (sysroot_open(&sr, &opts)) {
		CHECK(r, false, "opening %s", root);
		return;
	}
	for (size_t f = 0; f < ARRAY_SIZE(files); f++) {
		unsigned int bad = 0, wrong_ok = 0;
		size_t len, must_fail_below;
		char *buf;

		if (sysroot_read(&sr, FS_DEBUGFS, files[f].rel, &buf, &len)) {
			CHECK(r, false, "reading %s", files[f].rel);
			continue;
		}
		must_fail_below = last_value_start(buf, len);
		for (size_t cut = 0; cut <= len; cut++) {
			int ret = run_parser(files[f].p, buf, cut);

			if (ret > 0 || (ret && ret != -EINVAL && ret != -ERANGE))
				bad++;
			if (files[f].ends_with_check && !ret && cut <= must_fail_below)
				wrong_ok++;
		}
		CHECK(r, bad == 0, "%s: %u prefixes gave an unexpected return", files[f].rel, bad);
		CHECK(r, wrong_ok == 0, "%s: %u cut-short prefixes parsed as complete",
		      files[f].rel, wrong_ok);
		CHECK(r, run_parser(files[f].p, buf, len) == 0, "%s: whole file parses",
		      files[f].rel);
		if (files[f].p == P_BITMAP) {
			uint64_t words = 0;

			CHECK(r, u32_array_words(buf, len, &words) == 0 && words == 256,
			      "%s: 256 words of 32 pages", files[f].rel);
		}
		free(buf);
	}
}

static void test_garbage_and_huge(struct results *r)
{
	static const enum parser all[] = {
		P_FAILURES, P_ALLOCATED, P_BITMAP, P_STATS, P_TEXT, P_WORDS,
		P_LAYOUT, P_PTDUMP, P_SPLITS, P_ATTR, P_ALIAS, P_DEVICES,
	};
	uint32_t seed = 12345;
	size_t huge = 1 << 20;
	char *buf = malloc(huge);
	unsigned int bad = 0;

	r->test = "garbage, empty and huge inputs";
	if (!buf) {
		CHECK(r, false, "out of memory");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		/* empty */
		int ret = run_parser(all[i], "", 0);

		if (all[i] == P_STATS || all[i] == P_WORDS || all[i] == P_BITMAP)
			CHECK(r, ret == 0 || ret == -EINVAL, "parser %zu: empty", i);
		else
			CHECK(r, ret == -EINVAL, "parser %zu: empty input is refused, got %d", i, ret);
		/* garbage: deterministic bytes of every value, NULs included */
		for (unsigned int round = 0; round < 200; round++) {
			size_t len = 1 + round * 13 % 600;

			for (size_t b = 0; b < len; b++) {
				seed = seed * 1103515245u + 12345u;
				buf[b] = round % 2 ? (char)(seed >> 16) : "0x1- =\n9a"[seed % 9];
			}
			ret = run_parser(all[i], buf, len);
			if (ret > 0 || (ret && ret != -EINVAL && ret != -ERANGE))
				bad++;
		}
		/* huge: one 1 MiB line without a newline */
		memset(buf, '7', huge);
		ret = run_parser(all[i], buf, huge);
		CHECK(r, ret <= 0, "parser %zu: a 1 MiB line", i);
	}
	CHECK(r, bad == 0, "%u garbage inputs gave an unexpected return", bad);

	/* A bitmap of 2^17 words: the area's size decides. */
	for (size_t w = 0; w < (1 << 17); w++)
		memcpy(buf + 2 * w, w + 1 < (1 << 17) ? "1 " : "1\n", 2);
	{
		struct cma_map map;

		CHECK(r, bitmap_parse(buf, 1 << 18, 0, (uint64_t)32 << 17, 0, &map) == 0 &&
			 map.nr == 1 << 17 && map.pages == 1 << 17,
		      "2^17 words, one page used in each");
		cma_map_free(&map);
		CHECK(r, bitmap_parse(buf, 1 << 18, 0, 8192, 0, &map) == -EINVAL,
		      "2^17 words for an area of 256 is refused");
		CHECK(r, bitmap_parse(buf, 1 << 18, 0, 8192, 31, &map) == -EINVAL,
		      "order_per_bit 31 is refused");
	}
	/* stats: more counters than the model holds */
	{
		struct cma_stats st;
		size_t used = 0;

		for (int i = 0; i < STATS_MAX + 1; i++)
			used += (size_t)snprintf(buf + used, huge - used, "c%d=%d\n", i, i);
		CHECK(r, stats_parse(buf, used, &st) == -EINVAL, "%d counters are refused",
		      STATS_MAX + 1);
	}
	/* failures: 20000 records and their count line */
	{
		struct cma_failure_log log;
		size_t used = 0;

		for (int i = 0; i < 20000; i++)
			used += (size_t)snprintf(buf + used, huge - used,
						 "time_ns=%d err=-16 stage=migrate pfn=0x%x\n", i, i);
		used += (size_t)snprintf(buf + used, huge - used, "records=20000 dropped=1\n");
		CHECK(r, failures_parse(buf, used, &log) == 0 && log.nr == 20000,
		      "20000 failure records");
		failures_free(&log);
	}
	free(buf);
}

static void test_linear_map_parsers(struct results *r)
{
	static const char layout[] = "DirectMap1M:   2048 kB\nDirectMap4k:  1024 kB\n"
				     "Mapped:   3072 kB\nNotPresent:  0 kB\nBootMapped:  3072 kB\n";
	static const char bad_sum[] = "DirectMap1M:   2048 kB\nMapped:   3072 kB\n"
				      "NotPresent:  0 kB\nBootMapped:  3072 kB\n";
	static const char splits[] =
		"type=split cause=cma-remap addr=0xd7000000 phys=0x57000000 size=16777216 from=1M to=4k entries=16\n"
		"type=split cause=forced addr=0x0 phys=0x60000000 size=2097152 from=1M to=4k entries=2 future=1\n"
		"type=total cause=cma-remap entries=16\ntype=total cause=forced entries=2\n"
		"records=2 dropped=3\n";
	static const char splits_short[] =
		"type=split cause=cma-remap addr=0xd7000000 phys=0x57000000 size=16777216 from=1M to=4k entries=16\n"
		"type=total cause=cma-remap entries=16\nrecords=0 dropped=0\n";
#define SPLIT_REC "type=split cause=c addr=0x1 phys=0x2 size=3 from=1M to=4k entries=4\n"
	static const char *const bad_splits[] = {
		"",						/* no records line */
		SPLIT_REC,					/* cut short */
		SPLIT_REC "records=1\n",			/* no dropped= */
		SPLIT_REC "records=1 dropped=0 x=1\n",
		SPLIT_REC "records=1 dropped=0\n" SPLIT_REC,	/* after the records line */
		/* a record without one of its keys */
		"type=split addr=0x1 phys=0x2 size=3 from=1M to=4k entries=4\nrecords=1 dropped=0\n",
		"type=split cause=c phys=0x2 size=3 from=1M to=4k entries=4\nrecords=1 dropped=0\n",
		"type=split cause=c addr=0x1 size=3 from=1M to=4k entries=4\nrecords=1 dropped=0\n",
		"type=split cause=c addr=0x1 phys=0x2 from=1M to=4k entries=4\nrecords=1 dropped=0\n",
		"type=split cause=c addr=0x1 phys=0x2 size=3 to=4k entries=4\nrecords=1 dropped=0\n",
		"type=split cause=c addr=0x1 phys=0x2 size=3 from=1M entries=4\nrecords=1 dropped=0\n",
		"type=split cause=c addr=0x1 phys=0x2 size=3 from=1M to=4k\nrecords=1 dropped=0\n",
		"cause=c addr=0x1 phys=0x2 size=3 from=1M to=4k entries=4\nrecords=1 dropped=0\n",
		"type=split cause=c addr=1 phys=0x2 size=3 from=1M to=4k entries=4\nrecords=1 dropped=0\n",
		"type=split cause=c addr=0x1 phys=0x2 size=3 from=1M to=4k entries=x\nrecords=1 dropped=0\n",
		"type=split cause=c addr=0x1 phys=0x2 size=3 from=1M to=4k entries=4 entries=4\n"
		"records=1 dropped=0\n",
		"type=merge cause=c addr=0x1 phys=0x2 size=3 from=1M to=4k entries=4\nrecords=1 dropped=0\n",
		/* totals: cause and entries, nothing of a record; after the records */
		"type=total cause=c\nrecords=0 dropped=0\n",
		"type=total entries=1\nrecords=0 dropped=0\n",
		"type=total cause=c entries=1 from=1M\nrecords=0 dropped=0\n",
		"type=total cause=c entries=1\n" SPLIT_REC "records=1 dropped=0\n",
		"type=total cause=a entries=1\ntype=total cause=b entries=1\ntype=total cause=c entries=1\n"
		"type=total cause=d entries=1\ntype=total cause=e entries=1\ntype=total cause=f entries=1\n"
		"type=total cause=g entries=1\ntype=total cause=h entries=1\ntype=total cause=i entries=1\n"
		"records=0 dropped=0\n",			/* more causes than held */
		/* the old format */
		"cause=c addr=0x1 phys=0x2 size=3 from=1M to=4k count=4\ntotal cause=c count=4\n"
		"count=1 dropped=0\n",
		"type=split cause=c addr=0x1 phys=0x2 size=3 from=1M to=4k count=4\nrecords=1 dropped=0\n",
		"type=total cause=c count=4\nrecords=0 dropped=0\n",
		SPLIT_REC "count=1 dropped=0\n",
	};
#undef SPLIT_REC
	static const char alias[] =
		"type=alias pfn=0x10 pages=2 linear=0xc0010000 linear_type=MEM/CACHED/WBRA alias=none "
		"alias_type=MEM/BUFFERABLE/WC region=failed-change caller=none cma=reserved\n"
		"type=coverage checked=linear,vmalloc not_checked=user\n"
		"count=1 pages=5 unlisted_pages=3 incomplete=1\n";
	static const char alias_none[] = "type=coverage checked=linear not_checked=user\ncount=0 pages=0 unlisted_pages=0\n";
	static const char alias_sum[] =
		"type=alias pfn=0x10 pages=2 linear=0xc0010000 linear_type=A alias=0xf0000000 "
		"alias_type=B region=vmalloc caller=x+0x1/0x2 cma=none\n"
		"type=coverage checked=linear not_checked=user\ncount=1 pages=2 unlisted_pages=1\n";
	static const char ptdump_arm64[] =
		"---[ Linear Mapping start ]---\n"
		"0xffff000000000000-0xffff000000200000  2M PMD  RW NX SHD AF  BLK UXN  MEM/NORMAL-TAGGED\n"
		"0xffff000000200000-0xffff000000210000  64K PTE RW NX SHD AF CON UXN  MEM/NORMAL\n"
		"0xffff000000210000-0xffff000000212000  8K PTE  RW NX SHD AF  UXN  DEVICE/nGnRE\n"
		"0xffff000000212000-0xffff000000213000  4K PTE F RW NX SHD AF  UXN  MEM/NORMAL-TAGGED\n"
		"0xffff000040000000-0xffff008000000000  511G PUD\n"
		"---[ Linear Mapping end ]---\n"
		"0xffff800000000000-0xffff800000200000  2M PMD  RW MEM/NORMAL\n";
	static const char ptdump_odd[] =
		"---[ Linear Mapping start ]---\n"
		"0xffff000000000000-0xffff000000300000  3M PMD  RW  BLK  MEM/NORMAL\n"
		"---[ Linear Mapping end ]---\n";
	static const char meminfo[] =
		"MemTotal:       32761400 kB\n"
		"CmaTotal:              0 kB\n"
		"DirectMap4k:      401152 kB\n"
		"DirectMap2M:    10008576 kB\n"
		"DirectMap1G:    24117248 kB\n";
	struct lm_attr_changes attr;
	struct alias_report rep;
	struct lm_splits sp;
	struct lm_layout l;

	r->test = "linear_map parsers";
	CHECK(r, layout_parse(layout, sizeof(layout) - 1, &l) == 0 && l.nr == 2 &&
		 l.level[0].size == 1 << 20 && l.level[1].bytes == 1 << 20 &&
		 l.mapped == 3 << 20 && l.boot_mapped.v == 3 << 20, "a layout");
	CHECK(r, layout_parse(bad_sum, sizeof(bad_sum) - 1, &l) == -EINVAL,
	      "Mapped that is not the levels' sum");
	/* x86's lines, smallest first, amid the rest of meminfo */
	CHECK(r, meminfo_layout_parse(meminfo, sizeof(meminfo) - 1, &l) == 0 &&
		 l.nr == 3 && !strcmp(l.source, "meminfo") &&
		 !strcmp(l.level[0].name, "1G") && l.level[0].bytes == 24117248ULL << 10 &&
		 !strcmp(l.level[2].name, "4k") && l.level[2].bytes == 401152ULL << 10 &&
		 l.mapped == (401152ULL + 10008576 + 24117248) << 10 &&
		 !l.not_present.present, "meminfo's DirectMap lines, largest first");
	CHECK(r, meminfo_layout_parse("MemTotal: 1 kB\n", 15, &l) == 0 && !l.nr,
	      "meminfo without DirectMap lines");
	CHECK(r, meminfo_layout_parse("DirectMap4k: 4 kB\nDirectMap4k: 4 kB\n", 36, &l) ==
		 -EINVAL, "a DirectMap size twice");
	CHECK(r, meminfo_layout_parse("DirectMapX: 4 kB\n", 17, &l) == -EINVAL,
	      "a DirectMap line that names no size");
	CHECK(r, meminfo_layout_parse("DirectMap4k: 4\n", 15, &l) == -EINVAL,
	      "a DirectMap line without kB");
	CHECK_U64(r, "64k", 65536, lm_level_size("64k"));
	CHECK_U64(r, "1G", 1 << 30, lm_level_size("1G"));
	CHECK_U64(r, "PMD is no size", 0, lm_level_size("PMD"));
	CHECK_U64(r, "k alone", 0, lm_level_size("k"));
	CHECK(r, splits_parse(splits, sizeof(splits) - 1, &sp) == 0 && sp.nr == 2 &&
		 sp.nr_totals == 2 && sp.dropped == 3 && sp.rec[0].phys == 0x57000000 &&
		 sp.rec[0].addr == 0xd7000000 && sp.rec[0].size == 16 << 20 &&
		 !strcmp(sp.rec[0].cause, "cma-remap") && !strcmp(sp.rec[0].from, "1M") &&
		 !strcmp(sp.rec[0].to, "4k") && sp.rec[0].entries == 16 &&
		 sp.rec[1].addr == 0 && sp.rec[1].entries == 2 &&
		 !strcmp(sp.total[1].cause, "forced") && sp.total[1].entries == 2 &&
		 sp.total[0].entries == 16,
	      "splits: records (addr=0x0 when hidden, a newer key skipped), totals");
	splits_free(&sp);
	CHECK(r, splits_parse(splits_short, sizeof(splits_short) - 1, &sp) == -EINVAL &&
		 !sp.rec, "a records line that disagrees");
	CHECK(r, splits_parse("type=total cause=c entries=0\nrecords=0 dropped=0", 48, &sp) == 0 &&
		 !sp.nr && sp.nr_totals == 1, "totals alone, no final newline");
	splits_free(&sp);
	for (size_t i = 0; i < ARRAY_SIZE(bad_splits); i++)
		CHECK(r, splits_parse(bad_splits[i], strlen(bad_splits[i]), &sp) == -EINVAL &&
			 !sp.rec, "bad splits %zu refused: '%s'", i, bad_splits[i]);
	CHECK(r, attr_changes_parse("cause=x changes=1 failures=2 bytes=3 new=9\n", 41, &attr) == 0 &&
		 attr.nr == 1 && attr.c[0].failures == 2 && attr.c[0].bytes == 3,
	      "attr_changes, a newer key skipped");
	CHECK(r, attr_changes_parse("cause=x changes=1 failures=2\n", 29, &attr) == -EINVAL,
	      "attr_changes line without bytes");
	CHECK(r, alias_parse(alias, sizeof(alias) - 1, &rep) == 0 && rep.nr == 1 &&
		 !rep.c[0].has_alias && !rep.c[0].caller[0] && !strcmp(rep.c[0].cma, "reserved") &&
		 rep.pages == 5 && rep.unlisted_pages == 3 && rep.incomplete &&
		 !strcmp(rep.not_checked, "user") && alias_found(&rep), "alias, failed change");
	alias_free(&rep);
	CHECK(r, alias_parse(alias_none, sizeof(alias_none) - 1, &rep) == 0 && !alias_found(&rep),
	      "alias_check without conflicts");
	alias_free(&rep);
	CHECK(r, alias_parse(alias_sum, sizeof(alias_sum) - 1, &rep) == -EINVAL && !rep.c,
	      "pages that do not add up");
	CHECK(r, alias_parse(alias, 200, &rep) == -EINVAL, "alias cut before its count line");
	{
		/* arm64: two DMA remaps the architecture sanctions, one
		 * injected write-combined vmap; the counts are the hazards'. */
		static const char classed[] =
			"type=alias pfn=0x10 pages=2 class=sanctioned linear=0x1 linear_type=A alias=0x2 "
			"alias_type=B region=vmalloc caller=none cma=none\n"
			"type=alias pfn=0x20 pages=1 class=hazard linear=0x3 linear_type=A alias=0x4 "
			"alias_type=B region=vmalloc caller=none cma=none\n"
			"type=alias pfn=0x30 pages=4 class=sanctioned linear=0x5 linear_type=A alias=0x6 "
			"alias_type=B region=vmalloc caller=none cma=none\n"
			"type=coverage checked=linear not_checked=user\n"
			"count=1 pages=1 sanctioned=2 sanctioned_pages=6 unlisted_pages=0\n";
		static const char only_sanctioned[] =
			"type=alias pfn=0x10 pages=2 class=sanctioned linear=0x1 linear_type=A alias=0x2 "
			"alias_type=B region=vmalloc caller=none cma=none\n"
			"type=coverage checked=linear not_checked=user\n"
			"count=0 pages=0 sanctioned=1 sanctioned_pages=2 unlisted_pages=0\n";
		static const char no_trailer[] =
			"type=alias pfn=0x10 pages=2 class=sanctioned linear=0x1 linear_type=A alias=0x2 "
			"alias_type=B region=vmalloc caller=none cma=none\n"
			"type=coverage checked=linear not_checked=user\ncount=0 pages=0 unlisted_pages=0\n";
		char bad_class[] =
			"type=alias pfn=0x10 pages=2 class=maybe linear=0x1 linear_type=A alias=0x2 "
			"alias_type=B region=vmalloc caller=none cma=none\n"
			"type=coverage checked=linear not_checked=user\ncount=1 pages=2 unlisted_pages=0\n";

		CHECK(r, alias_parse(classed, sizeof(classed) - 1, &rep) == 0 && rep.nr == 3 &&
			 rep.hazards == 1 && rep.pages == 1 && rep.sanctioned == 2 &&
			 rep.sanctioned_pages == 6 && rep.c[0].cls == ALIAS_SANCTIONED &&
			 rep.c[1].cls == ALIAS_HAZARD && alias_found(&rep),
		      "alias: hazards and sanctioned aliases counted apart");
		alias_free(&rep);
		CHECK(r, alias_parse(only_sanctioned, sizeof(only_sanctioned) - 1, &rep) == 0 &&
			 rep.nr == 1 && !alias_found(&rep),
		      "alias: sanctioned aliases alone are no finding (exit 0)");
		alias_free(&rep);
		CHECK(r, alias_parse(no_trailer, sizeof(no_trailer) - 1, &rep) == -EINVAL,
		      "alias: a sanctioned line the count line does not account for");
		CHECK(r, alias_parse(bad_class, sizeof(bad_class) - 1, &rep) == -EINVAL,
		      "alias: an unknown class is refused");
		memcpy(strstr(bad_class, "maybe"), "hazar", 5);
		CHECK(r, alias_parse(bad_class, sizeof(bad_class) - 1, &rep) == -EINVAL,
		      "alias: ... and so is a misspelt one");
	}
	{
		/* One grammar: lines name their type first, but the trailer. */
		static const char untyped[] =
			"pfn=0x20 pages=1 class=hazard linear=0x3 linear_type=A alias=0x4 "
			"alias_type=B region=vmalloc caller=none cma=none\n"
			"type=coverage checked=linear not_checked=user\n"
			"count=1 pages=1 sanctioned=0 sanctioned_pages=0 unlisted_pages=0\n";
		static const char untyped_coverage[] =
			"checked=linear not_checked=user\n"
			"count=0 pages=0 sanctioned=0 sanctioned_pages=0 unlisted_pages=0\n";
		static const char newer_type[] =
			"type=alias pfn=0x20 pages=1 class=hazard linear=0x3 linear_type=A alias=0x4 "
			"alias_type=B region=vmalloc caller=none cma=none\n"
			"type=future pfn=0x30 pages=9\n"
			"type=coverage checked=linear not_checked=user\n"
			"count=1 pages=1 sanctioned=0 sanctioned_pages=0 unlisted_pages=0\n";
		static const char empty_type[] =
			"type= pfn=0x30\ntype=coverage checked=linear not_checked=user\n"
			"count=0 pages=0 sanctioned=0 sanctioned_pages=0 unlisted_pages=0\n";

		CHECK(r, alias_parse(untyped, sizeof(untyped) - 1, &rep) == -EINVAL,
		      "alias: a conflict line without type=alias is refused");
		CHECK(r, alias_parse(untyped_coverage, sizeof(untyped_coverage) - 1, &rep) == -EINVAL,
		      "alias: a checked= line without type=coverage is refused");
		CHECK(r, alias_parse(newer_type, sizeof(newer_type) - 1, &rep) == 0 &&
			 rep.nr == 1 && rep.hazards == 1,
		      "alias: a line of a type a newer kernel added is skipped");
		alias_free(&rep);
		CHECK(r, alias_parse(empty_type, sizeof(empty_type) - 1, &rep) == -EINVAL,
		      "alias: an empty type= is refused");
	}
	{
		/* One process's user mappings walked too (alias_check_pid):
		 * region=user lines end in pid=, the checked line names it;
		 * kernel addresses hidden by kptr_restrict read 0x0. */
		static const char user[] =
			"type=alias pfn=0x10 pages=2 class=hazard linear=0xc0010000 linear_type=MEM/CACHED/WBRA "
			"alias=0xb6f00000 alias_type=MEM/BUFFERABLE/WC region=user caller=none "
			"cma=reserved pid=412\n"
			"type=alias pfn=0x20 pages=1 class=sanctioned linear=0x0 linear_type=A alias=0x0 "
			"alias_type=B region=vmalloc caller=none cma=none\n"
			"type=coverage checked=linear,modules,pkmap,vmalloc,failed-changes,user pid=412 "
			"not_checked=other-users,fixmap,kmap_local\n"
			"count=1 pages=2 sanctioned=1 sanctioned_pages=1 unlisted_pages=0\n";
		static const char user_clean[] =
			"type=coverage checked=linear,vmalloc,user pid=7 not_checked=other-users,fixmap\n"
			"count=0 pages=0 unlisted_pages=0\n";
#define USER_LINE(pid) "type=alias pfn=0x10 pages=1 class=hazard linear=0x1 linear_type=A alias=0x2 " \
		"alias_type=B region=user caller=none cma=none" pid "\n"
#define VMALLOC_LINE(pid) "type=alias pfn=0x10 pages=1 class=hazard linear=0x1 linear_type=A alias=0x2 " \
		"alias_type=B region=vmalloc caller=none cma=none" pid "\n"
#define CHECKED_USER(pid) "type=coverage checked=linear,user" pid " not_checked=other-users\n"
#define TRAILER_1 "count=1 pages=1 unlisted_pages=0\n"
		static const char *const bad_user[] = {
			/* a user line without its pid, a kernel line with one */
			USER_LINE("") CHECKED_USER(" pid=5") TRAILER_1,
			VMALLOC_LINE(" pid=5") CHECKED_USER(" pid=5") TRAILER_1,
			/* user lines of a process the checked line does not name */
			USER_LINE(" pid=5") "type=coverage checked=linear not_checked=user\n" TRAILER_1,
			USER_LINE(" pid=5") CHECKED_USER(" pid=6") TRAILER_1,
			/* pid= exactly when checked lists user */
			"type=coverage checked=linear pid=5 not_checked=user\ncount=0 pages=0 unlisted_pages=0\n",
			"type=coverage checked=linear,users pid=5 not_checked=x\ncount=0 pages=0 unlisted_pages=0\n",
			CHECKED_USER("") "count=0 pages=0 unlisted_pages=0\n",
			/* not a process id */
			USER_LINE(" pid=0") CHECKED_USER(" pid=0") TRAILER_1,
			USER_LINE(" pid=-1") CHECKED_USER(" pid=-1") TRAILER_1,
			USER_LINE(" pid=x") CHECKED_USER(" pid=x") TRAILER_1,
			USER_LINE(" pid=2147483648") CHECKED_USER(" pid=2147483648") TRAILER_1,
			USER_LINE(" pid=5 pid=5") CHECKED_USER(" pid=5") TRAILER_1,
			CHECKED_USER(" pid=5 pid=5") "count=0 pages=0 unlisted_pages=0\n",
			/* the user line's pages are a hazard's like any other */
			USER_LINE(" pid=5") CHECKED_USER(" pid=5") "count=0 pages=0 unlisted_pages=0\n",
		};
#undef USER_LINE
#undef VMALLOC_LINE
#undef CHECKED_USER
#undef TRAILER_1

		CHECK(r, alias_parse(user, sizeof(user) - 1, &rep) == 0 && rep.nr == 2 &&
			 !strcmp(rep.c[0].region, "user") && rep.c[0].has_pid &&
			 rep.c[0].pid == 412 && rep.c[0].has_alias && rep.c[0].alias == 0xb6f00000 &&
			 !rep.c[1].has_pid && rep.c[1].linear == 0 && rep.c[1].has_alias &&
			 rep.has_pid && rep.pid == 412 && rep.hazards == 1 && rep.sanctioned == 1 &&
			 alias_found(&rep),
		      "alias: a process's user mappings, its pid on the lines and the checked line");
		alias_free(&rep);
		CHECK(r, alias_parse(user_clean, sizeof(user_clean) - 1, &rep) == 0 && !rep.nr &&
			 rep.has_pid && rep.pid == 7 && !alias_found(&rep),
		      "alias: a process walked, nothing found");
		alias_free(&rep);
		CHECK(r, alias_parse(alias_none, sizeof(alias_none) - 1, &rep) == 0 && !rep.has_pid,
		      "alias: no pid set, none walked");
		alias_free(&rep);
		for (size_t i = 0; i < ARRAY_SIZE(bad_user); i++)
			CHECK(r, alias_parse(bad_user[i], strlen(bad_user[i]), &rep) == -EINVAL &&
				 !rep.c, "bad user alias %zu refused: '%s'", i, bad_user[i]);
	}
	{
		/* %pS of a caller in a module, and a 300-byte symbol: both
		 * made alias_parse() fail ("malformed or cut short"). */
		char sym[301], buf[1024];
		int n;

		memset(sym, 'f', 300);
		sym[300] = '\0';
		n = snprintf(buf, sizeof(buf),
			     "type=alias pfn=0x10 pages=1 linear=0xc0010000 linear_type=A alias=0xf0000000 "
			     "alias_type=B region=vmalloc caller=mydrv_probe+0x44/0x100 [mydrv] cma=none\n"
			     "type=alias pfn=0x20 pages=1 linear=0xc0020000 linear_type=A alias=0xf0001000 "
			     "alias_type=B region=vmalloc caller=%s+0x4/0x8 [m] cma=reserved\n"
			     "type=coverage checked=linear not_checked=user\ncount=2 pages=2 unlisted_pages=0\n", sym);
		CHECK(r, alias_parse(buf, (size_t)n, &rep) == 0 && rep.nr == 2 &&
			 !strcmp(rep.c[0].caller, "mydrv_probe+0x44/0x100 [mydrv]") &&
			 !strcmp(rep.c[0].cma, "") && strlen(rep.c[1].caller) == 300 + 12 &&
			 !strcmp(rep.c[1].cma, "reserved"),
		      "alias: module callers and long symbols, got '%s'",
		      rep.nr ? rep.c[0].caller : "(nothing)");
		alias_free(&rep);
		CHECK(r, alias_parse("type=alias pfn=0x10 x [m]\n", 26, &rep) == -EINVAL,
		      "a [name] after a token that is not key=value is still refused");
	}
	CHECK(r, ptdump_layout_parse(ptdump_arm64, sizeof(ptdump_arm64) - 1, &l) == 0 &&
		 !strcmp(l.source, "ptdump") && l.nr == 5 && l.level[2].bytes == 2 << 20 &&
		 l.level[3].bytes == 64 << 10 && l.level[4].bytes == 8 << 10 &&
		 l.level[0].bytes == 0 && l.mapped == (2 << 20) + (72 << 10) &&
		 !l.not_present.present, "arm64 ptdump: holes, entries with F (not valid) and lines after the section skipped");
	CHECK(r, ptdump_layout_parse(ptdump_odd, sizeof(ptdump_odd) - 1, &l) == -EINVAL,
	      "a PMD line that is not whole 2 MiB entries");
	CHECK(r, ptdump_layout_parse(ptdump_arm64, 120, &l) == -EINVAL,
	      "a section without its end");
}

static void test_alias_pid_parse(struct results *r)
{
	static const char *const bad[] = {
		"", "\n", "pid=\n", "pid=0\n", "pid=-1\n", "pid=x\n", "pid=None\n",
		"412\n", "none\n", "pid=412\n\n", "pid=412 \n", "pid=412\npid=413\n",
		"pid=2147483648\n", "pid=4 none\n", "pid =4\n",
	};
	bool has_pid = true;
	uint64_t pid = 1;

	r->test = "alias_check_pid parser";
	CHECK(r, alias_pid_parse("pid=none\n", 9, &has_pid, &pid) == 0 && !has_pid,
	      "pid=none");
	CHECK(r, alias_pid_parse("pid=412\n", 8, &has_pid, &pid) == 0 && has_pid && pid == 412,
	      "pid=412");
	CHECK(r, alias_pid_parse("pid=2147483647", 14, &has_pid, &pid) == 0 && has_pid &&
		 pid == 2147483647, "the largest pid_t, no newline");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK(r, alias_pid_parse(bad[i], strlen(bad[i]), &has_pid, &pid) == -EINVAL,
		      "bad alias_check_pid %zu refused: '%s'", i, bad[i]);
}

/* The kernel walks the tables for layout; ptdump shows the same walk. */
static void test_fixture_layouts_agree(struct results *r, const char *fixtures,
				       const char *name)
{
	char root[PATH_MAX], *buf;
	struct sysroot_opts opts = { .root = root };
	struct lm_layout lm, pt;
	struct sysroot sr;
	size_t len;

	r->test = "linear_map/layout and ptdump agree";
	snprintf(root, sizeof(root), "%s/%s/root", fixtures, name);
	if (sysroot_open(&sr, &opts) || layout_load(&sr, &lm) ||
	    sysroot_read(&sr, FS_DEBUGFS, "kernel_page_tables", &buf, &len)) {
		CHECK(r, false, "%s: reading the layout and ptdump", name);
		return;
	}
	CHECK(r, ptdump_layout_parse(buf, len, &pt) == 0, "%s: ptdump parses", name);
	free(buf);
	/* The counters where the kernel keeps them; the walk's file before that. */
	CHECK(r, !strcmp(lm.source, meminfo_direct_map_present(&sr) ? "meminfo" : "linear_map"),
	      "%s: layout from %s", name, lm.source);
	CHECK_U64(r, name, lm.mapped, pt.mapped);
	CHECK(r, lm.boot_mapped.present && lm.boot_mapped.v == lm.mapped,
	      "%s: all mapped at boot is mapped now", name);
	for (unsigned int i = 0; i < lm.nr; i++) {
		uint64_t bytes = 0;

		for (unsigned int j = 0; j < pt.nr; j++)
			if (!strcmp(pt.level[j].name, lm.level[i].name))
				bytes = pt.level[j].bytes;
		CHECK(r, bytes == lm.level[i].bytes, "%s: %s: linear_map %llu, ptdump %llu",
		      name, lm.level[i].name, (unsigned long long)lm.level[i].bytes,
		      (unsigned long long)bytes);
	}
}

/* Cell C of the strip by the definition: every pfn of the cell looked at. */
static char strip_cell_reference(const struct cma_map *m, const struct cma_area *a,
				 unsigned int c, unsigned int width)
{
	uint64_t total = 0, lo, hi, used = 0, off = 0;

	for (unsigned int i = 0; i < a->nr_ranges; i++)
		total += a->range[i].pages;
	lo = total * c / width;
	hi = total * (c + 1) / width;
	for (unsigned int i = 0; i < a->nr_ranges; off += a->range[i].pages, i++)
		for (uint64_t p = 0; p < a->range[i].pages; p++) {
			uint64_t pfn = a->range[i].base_pfn + p;

			if (off + p < lo || off + p >= hi)
				continue;
			for (unsigned int k = 0; k < m->nr; k++)
				if (pfn >= m->run[k].first && pfn <= m->run[k].last)
					used++;
		}
	return hi == lo ? ' ' : !used ? '.' : used == hi - lo ? '#' : '+';
}

/* The strip's run search (O(width log runs + runs)) against the definition. */
static void test_strip_matches_reference(struct results *r)
{
	static const struct cma_range ranges[3] = {
		{ .base_pfn = 0x1000, .pages = 300 },
		{ .base_pfn = 0x2000, .pages = 1 },
		{ .base_pfn = 0x3000, .pages = 211 },
	};
	struct cma_area area = { .nr_ranges = 3 };
	struct pfn_run runs[600];
	unsigned int seed = 1, wrong = 0;
	char strip[200];

	r->test = "strip";
	memcpy(area.range, ranges, sizeof(ranges));
	for (int trial = 0; trial < 200; trial++) {
		struct cma_map m = { .run = runs };
		unsigned int width = 1 + trial % 150;

		for (unsigned int i = 0; i < 3; i++) {
			uint64_t pfn = ranges[i].base_pfn, end = pfn + ranges[i].pages;

			while (pfn < end) {
				uint64_t len = 1 + (seed = seed * 1103515245 + 12345) % 9;
				bool used = (seed >> 16) & 1;

				if (pfn + len > end)
					len = end - pfn;
				if (used)
					runs[m.nr++] = (struct pfn_run){ pfn, pfn + len - 1 };
				pfn += len;
			}
		}
		cma_map_strip(&m, &area, width, NULL, 0, '!', strip);
		for (unsigned int c = 0; c < width; c++)
			wrong += strip[c] != strip_cell_reference(&m, &area, c, width);
	}
	CHECK(r, !wrong, "%u cells differ from their definition", wrong);
}

/*
 * zoneinfo and pagetypeinfo: only zones with CMA kept (a NUMA machine's
 * many others pruned), free blocks by order, the CMA column found by name,
 * the kernel's zero rows for zones without CMA skipped, and garbled lines.
 */
static void test_zone_parsers(struct results *r)
{
	static const char zoneinfo[] =
		"Node 0, zone      DMA\n  per-node stats\n      nr_inactive_anon 1035\n"
		"  pages free     241282\n        cma      12288\n"
		"      nr_free_cma  12190\n  start_pfn:           262144\n"
		"Node 0, zone    DMA32\n  pages free     0\n        cma      0\n"
		"      nr_free_cma  0\n"
		"Node 1, zone   Normal\n        cma      8192\n      nr_free_cma  100\n"
		"Node 1, zone  Movable\n        cma      0\n      nr_free_cma  0\n";
	static const char pagetypeinfo[] =
		"Page block order: 9\nPages per block:  512\n\n"
		"Free pages count per migrate type at order       0      1      2\n"
		"Node    0, zone      DMA, type      Movable      0      0    221 \n"
		"Node    0, zone      DMA, type          CMA      2      1     11 \n"
		"Node    0, zone    DMA32, type          CMA      0      0      0 \n"
		"Node    1, zone   Normal, type          CMA      100      0      0 \n\n"
		"Number of blocks type     Unmovable      Movable  Reclaimable   HighAtomic          CMA      Isolate \n"
		"Node 0, zone      DMA           16          464            8            0           24            0 \n"
		"Node 0, zone    DMA32            0            0            0            0            0            0 \n"
		"Node 1, zone   Normal            0            0            0            0           16            0 \n";
	struct cma_zones z;
	char many[8192];
	size_t used = 0;

	r->test = "zone_parsers";
	memset(&z, 0, sizeof(z));
	CHECK(r, !zoneinfo_cma_parse(zoneinfo, strlen(zoneinfo), &z), "zoneinfo parses");
	CHECK(r, z.nr == 2 && !strcmp(z.zone[0].name, "DMA") && z.zone[1].node == 1 &&
	      !strcmp(z.zone[1].name, "Normal"), "zones with CMA: %u", z.nr);
	CHECK(r, z.zone[0].cma_pages.v == 12288 && z.zone[0].free_pages.v == 12190 &&
	      z.zone[1].cma_pages.v == 8192, "cma pages");
	CHECK(r, !pagetypeinfo_cma_parse(pagetypeinfo, strlen(pagetypeinfo), &z),
	      "pagetypeinfo parses");
	CHECK(r, z.nr == 2 && z.pages_per_block.present && z.pages_per_block.v == 512,
	      "pages per block, no zone added for zero rows: %u", z.nr);
	CHECK(r, z.zone[0].nr_orders == 3 && z.zone[0].free_blocks[0] == 2 &&
	      z.zone[0].free_blocks[2] == 11, "DMA's CMA free lists, not Movable's");
	CHECK(r, z.zone[0].pageblocks.v == 24 && z.zone[1].pageblocks.v == 16,
	      "the CMA column");

	/* 20 nodes, each with a zone without CMA and one with: too many */
	for (int n = 0; n < 20; n++)
		used += (size_t)snprintf(many + used, sizeof(many) - used,
					 "Node %d, zone DMA\n cma 0\nNode %d, zone Normal\n cma 512\n",
					 n, n);
	memset(&z, 0, sizeof(z));
	CHECK(r, zoneinfo_cma_parse(many, used, &z) == -E2BIG, "more CMA zones than held");

	static const char *const bad[] = {
		"Node 0, zone DMA\n cma 12x\n",
		"Node 0, zone DMA\n nr_free_cma\n",
		"Node 0, zone DMA\n cma 1 2\n",
		"Node x, zone DMA\n",
		"Node 0 zone DMA\n",
		"Node 0, zone DMA extra\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&z, 0, sizeof(z));
		CHECK(r, zoneinfo_cma_parse(bad[i], strlen(bad[i]), &z) == -EINVAL,
		      "zoneinfo %zu refused", i);
	}
	static const char *const bad_pti[] = {
		"Pages per block:  5x\n",
		"Free pages count per migrate type at order 0 1\nNode 0, zone DMA, type CMA 1 y\n",
		"Free pages count per migrate type at order 0 1\nNode 0, zone DMA, CMA 1 2\n",
		"Number of blocks type     Unmovable          CMA\nNode 0, zone DMA 16\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad_pti); i++) {
		memset(&z, 0, sizeof(z));
		CHECK(r, pagetypeinfo_cma_parse(bad_pti[i], strlen(bad_pti[i]), &z) == -EINVAL,
		      "pagetypeinfo %zu refused", i);
	}
}

int main(int argc, char **argv)
{
	const char *fixtures = argc > 1 ? argv[1] : "tests/fixtures";
	struct results r = { 0 };

	test_parse_u64(&r);
	test_meminfo(&r);
	test_mounts(&r);
	test_page_size(&r);
	test_zone_parsers(&r);
	test_format_size(&r);
	test_emit(&r);
	test_emit_streamed(&r);
	test_strip_matches_reference(&r);
	test_event_format_parser(&r);
	test_fixture(&r, fixtures, "qemu-arm");
	test_fixture(&r, fixtures, "qemu-arm64");
	test_failures_parser(&r);
	test_stats_parser(&r);
	test_devices_parser(&r);
	test_fixture_failures(&r, fixtures, "qemu-arm");
	test_fixture_failures(&r, fixtures, "qemu-arm64");
	test_map_parsers(&r);
	test_fixture_maps_agree(&r, fixtures, "qemu-arm");
	test_fixture_maps_agree(&r, fixtures, "qemu-arm64");
	test_u32_array_words(&r);
	test_ranges_size(&r);
	test_ranges_tree(&r, fixtures, "qemu-arm");
	test_ranges_tree(&r, fixtures, "qemu-arm64");
	test_ranges_split(&r, fixtures, "qemu-arm64");
	test_truncated_captures(&r, fixtures, "qemu-arm");
	test_truncated_captures(&r, fixtures, "qemu-arm64");
	test_garbage_and_huge(&r);
	test_linear_map_parsers(&r);
	test_alias_pid_parse(&r);
	test_fixture_layouts_agree(&r, fixtures, "qemu-arm");
	test_fixture_layouts_agree(&r, fixtures, "qemu-arm64");
	test_trace_all(&r, fixtures);
	test_kcore_all(&r);
	printf("%u passed, %u failed\n", r.passed, r.failed);
	return r.failed ? 1 : 0;
}
