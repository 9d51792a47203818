// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of 'cmadebug tlb's model (cmadebug/src/tlb.c): argument and
 * event parsing, the walker's knobs and report, the "not supported" rules
 * and the 'perf stat -x,' CSV writer.  No PMU needed.
 *
 *   test_tlb FIXTURES [CSV_DIR]
 * With CSV_DIR, also writes the sample runs there for
 * tests/python/test_tlb.py, which parses them with reports' perfcsv.py.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "tlb.h"
#include "util.h"

#include "check.h"

/* tlb_parse_args over a NULL-terminated word list (argv[0] is "tlb"). */
static int parse(const char *const *words, struct tlb_opts *o, char *err,
		 size_t size)
{
	static char *argv[32];	/* o->cmd points into it */
	int argc = 0;

	argv[argc++] = (char *)"tlb";
	for (; *words && argc < 31; words++)
		argv[argc++] = (char *)*words;
	argv[argc] = NULL;
	return tlb_parse_args(argc, argv, o, err, size);
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void test_args(struct results *r)
{
	struct tlb_opts o;
	char err[512];

	r->test = "tlb_parse_args";
	CHECK(r, parse(ARGS("walk", "--start", "0x48000000", "--pages", "4096",
			    "--accesses", "1000000"), &o, err, sizeof(err)) == -1,
	      "a plain walk: %s", err);
	CHECK(r, o.walk && o.w.start == 0x48000000 && o.w.pages == 4096 &&
		 o.w.accesses == 1000000 && o.w.seed == 1 && o.runs == 1 &&
		 o.cpu == -1 && !o.cmd, "walk fields and defaults");
	CHECK(r, o.nr_events >= 4 && !strcmp(o.events[0].name, "instructions") &&
		 !strcmp(o.events[1].name, "cycles"), "default events");
	CHECK(r, parse(ARGS("walk", "--start", "1073741824", "--pages", "64",
			    "--accesses", "10", "--seed", "7", "--runs", "5",
			    "--cpu", "1", "--events", "instructions,dtlb_walk,r2d",
			    "--results", "out", "--variant", "split"), &o, err,
		       sizeof(err)) == -1, "every option: %s", err);
	CHECK(r, o.w.start == 0x40000000 && o.w.seed == 7 && o.runs == 5 &&
		 o.cpu == 1 && o.nr_events == 3 && o.events[2].type == PERF_TYPE_RAW &&
		 o.events[2].config == 0x2d && o.events[1].config == 0x34 &&
		 !strcmp(o.results, "out") && !strcmp(o.variant, "split"),
	      "every option's value");
	CHECK(r, parse(ARGS("--runs", "3", "--", "sh", "-c", "true"), &o, err,
		       sizeof(err)) == -1 && !o.walk && o.cmd &&
		 !strcmp(o.cmd[0], "sh") && !strcmp(o.cmd[2], "true") && o.runs == 3,
	      "a command: %s", err);
	CHECK(r, parse(ARGS("--help"), &o, err, sizeof(err)) == EXIT_OK && o.help,
	      "--help");

	const char *const *bad[] = {
		ARGS("walk"),
		ARGS("walk", "--start", "0x1000", "--pages", "1"),
		ARGS("walk", "--start", "0x1001", "--pages", "1", "--accesses", "1"),
		ARGS("walk", "--start", "0x1000", "--pages", "0", "--accesses", "1"),
		ARGS("walk", "--start", "0x1000", "--pages", "1048577", "--accesses", "1"),
		ARGS("walk", "--start", "0x1000", "--pages", "1", "--accesses", "0"),
		ARGS("walk", "--start", "0x1000", "--pages", "1", "--accesses", "4294967297"),
		ARGS("walk", "--start", "-1", "--pages", "1", "--accesses", "1"),
		ARGS("walk", "--start", "0x1000", "--pages", "1x", "--accesses", "1"),
		ARGS("walk", "--start", "0x1000", "--pages", "1", "--accesses", "1", "--", "true"),
		ARGS("walk", "--start", "0x1000", "--pages", "1", "--accesses", "1", "--runs", "0"),
		ARGS("walk", "--start", "0x1000", "--pages", "1", "--accesses", "1", "--results", "x"),
		ARGS("walk", "--start", "0x1000", "--pages", "1", "--accesses", "1", "--variant", "x"),
		ARGS("--results", "x", "--variant", "a/b", "--", "true"),
		ARGS("--events", "instructions,instructions", "--", "true"),
		ARGS("--events", "instructions,", "--", "true"),
		ARGS("--events", "bogus", "--", "true"),
		ARGS("--events", "r", "--", "true"),
		ARGS("--events", "r123456", "--", "true"),
		ARGS("--events", "instructions,cycles,dtlb_walk,itlb_walk,l1d_tlb_refill,l2d_tlb_refill,l1i_tlb_refill",
		     "--", "true"),
		ARGS("--pmu", "../x", "--", "true"),
		ARGS("--start", "0x1000", "--", "true"),
		ARGS("--"),
		ARGS("--runs"),
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int ret = parse(bad[i], &o, err, sizeof(err));

		CHECK(r, ret == EXIT_USAGE && !strncmp(err, "tlb", 3) && !strchr(err, '\n'),
		      "bad argument list %zu: ret %d, message '%s'", i, ret, err);
	}
	CHECK(r, parse(ARGS("--events", "instructions,cycles,dtlb_walk,itlb_walk,l1d_tlb_refill,l2d_tlb_refill",
			    "--", "true"), &o, err, sizeof(err)) == -1 && o.nr_events == 6,
	      "six events fit");
}

static int walk_parse_str(const char *s, struct tlb_walk *w)
{
	return tlb_walk_parse(s, strlen(s), w);
}

static void test_walk_report(struct results *r)
{
	struct tlb_walk w = { .start = 0x48000000, .pages = 4096,
			      .accesses = 100000, .seed = 7 };
	char req[128];
	static const char ok[] =
		"start=0x48000000 pages=4096 accesses=100000 seed=7 cpu=0 elapsed_ns=123456 faults=0 checksum=99\n";

	r->test = "walker";
	CHECK(r, tlb_walk_request(&w, req, sizeof(req)) > 0 &&
		 !strcmp(req, "start=0x48000000 pages=4096 accesses=100000 seed=7\n"),
	      "request '%s'", req);
	CHECK(r, tlb_walk_request(&w, req, 10) == -ENOSPC, "short buffer");
	CHECK(r, tlb_walk_parse(ok, sizeof(ok) - 1, &w) == 0 && w.elapsed_ns == 123456 &&
		 w.cpu == 0 && w.faults == 0 && w.checksum == 99, "a report");
	CHECK(r, walk_parse_str("runs=0\n", &w) == -ENODATA, "no run yet");
	CHECK(r, tlb_walk_parse(ok, 70, &w) == -ENODATA, "cut short in a value");
	CHECK(r, tlb_walk_parse(ok, 60, &w) == -EINVAL, "cut short in a key");
	w.seed = 8;
	CHECK(r, tlb_walk_parse(ok, sizeof(ok) - 1, &w) == -ESTALE, "another run's report");
	w.seed = 7;
	CHECK(r, walk_parse_str("start=0x48000000 pages=x accesses=100000 seed=7 cpu=0 elapsed_ns=1 faults=0 checksum=9", &w) == -EINVAL, "garbage value");
	CHECK(r, walk_parse_str("start=0x48000000 start=0x48000000 pages=4096", &w) == -EINVAL,
	      "repeated key");
	CHECK(r, walk_parse_str("start=0x48000000 pages=4096 accesses=100000 seed=7 cpu=0 elapsed_ns=5 faults=0 checksum=9 new=1", &w) == 0 && w.elapsed_ns == 5, "unknown keys are skipped");
}

static void test_judge(struct results *r)
{
	struct tlb_event ins, cyc, walk, raw;
	struct tlb_reading rd;
	struct tlb_judged j;

	r->test = "tlb_judge";
	tlb_event_lookup("instructions", &ins);
	tlb_event_lookup("cycles", &cyc);
	tlb_event_lookup("dtlb_walk", &walk);
	CHECK(r, tlb_event_lookup("r1f", &raw) == 0 && raw.config == 0x1f &&
		 raw.kind == TLB_KIND_RAW, "rNNNN");

	rd = (struct tlb_reading){ .value = 1234, .enabled = 500, .running = 500 };
	j = tlb_judge(&ins, &rd, 4096);
	CHECK(r, j.status == TLB_OK && !j.reason, "a count that ran all the time");
	rd.open_err = ENOENT;
	j = tlb_judge(&walk, &rd, 16384);
	CHECK(r, j.status == TLB_NOT_SUPPORTED && strstr(j.reason, "ENOENT"),
	      "did not open: %s", j.reason);
	rd.open_err = EINVAL;
	j = tlb_judge(&ins, &rd, 0);
	CHECK(r, j.status == TLB_NOT_SUPPORTED && strstr(j.reason, "mode filtering"),
	      "EINVAL names mode filtering: %s", j.reason);
	rd = (struct tlb_reading){ .value = 0, .enabled = 500, .running = 500 };
	j = tlb_judge(&ins, &rd, 64);
	CHECK(r, j.status == TLB_NOT_SUPPORTED && strstr(j.reason, "icount"),
	      "zero instructions: %s", j.reason);
	j = tlb_judge(&cyc, &rd, 64);
	CHECK(r, j.status == TLB_NOT_SUPPORTED, "zero cycles");
	j = tlb_judge(&walk, &rd, 16384);
	CHECK(r, j.status == TLB_NOT_SUPPORTED && strstr(j.reason, "more pages than any TLB"),
	      "zero walks over a big walk: %s", j.reason);
	j = tlb_judge(&walk, &rd, 64);
	CHECK(r, j.status == TLB_NOT_SUPPORTED, "zero walks over a small walk");
	j = tlb_judge(&raw, &rd, 0);
	CHECK(r, j.status == TLB_NOT_SUPPORTED, "zero raw");
	rd = (struct tlb_reading){ .value = 99, .enabled = 500, .running = 499 };
	j = tlb_judge(&walk, &rd, 64);
	CHECK(r, j.status == TLB_NOT_COUNTED && strstr(j.reason, "multiplexed"),
	      "multiplexed: %s", j.reason);
	rd = (struct tlb_reading){ .value = 0, .enabled = 500, .running = 0 };
	j = tlb_judge(&walk, &rd, 64);
	CHECK(r, j.status == TLB_NOT_COUNTED, "never ran");
	rd = (struct tlb_reading){ .value = 0, .enabled = 0, .running = 0 };
	j = tlb_judge(&walk, &rd, 64);
	CHECK(r, j.status == TLB_NOT_COUNTED, "never enabled");
}

/* The sample runs test_tlb.py parses (names with perf's own spellings). */
static const char *const sample_names[] = {
	"instructions:k", "cycles:k", "dtlb_walk:k",
	"armv8_cortex_a53/l1d_tlb_refill/k", "itlb_walk:k",
};
static const struct tlb_reading sample_rd[] = {
	{ .value = 123456789, .enabled = 2000, .running = 2000 },
	{ .value = 0, .enabled = 2000, .running = 2000 },
	{ .value = 0, .enabled = 2000, .running = 2000 },
	{ .value = 4242, .enabled = 2000, .running = 2000 },
	{ .open_err = ENOENT },
};

static int sample_csv(char **buf, size_t *len)
{
	struct tlb_judged j[ARRAY_SIZE(sample_rd)];
	struct tlb_event ev;

	for (size_t i = 0; i < ARRAY_SIZE(sample_rd); i++) {
		tlb_event_lookup(i == 0 ? "instructions" : i == 1 ? "cycles" : "dtlb_walk", &ev);
		j[i] = tlb_judge(&ev, &sample_rd[i], 16384);
	}
	*buf = NULL;
	*len = 0;
	return tlb_csv_run(sample_names, sample_rd, j, ARRAY_SIZE(sample_rd),
			   "cmadebug tlb: unit test", buf, len);
}

static void test_csv(struct results *r, const char *dir)
{
	struct tlb_judged j[2] = { { TLB_OK, NULL }, { TLB_NOT_COUNTED, "x" } };
	const char *names[2] = { "instructions:k", "cycles:k" };
	char *buf;
	size_t len;

	r->test = "tlb_csv_run";
	CHECK(r, sample_csv(&buf, &len) == 0 && buf && len == strlen(buf), "writes");
	CHECK(r, buf && !strcmp(buf,
		"# cmadebug tlb: unit test\n\n"
		"123456789,,instructions:k,2000,100.00,,\n"
		"<not supported>,,cycles:k,0,100.00,,\n"
		"<not supported>,,dtlb_walk:k,0,100.00,,\n"
		"4242,,armv8_cortex_a53/l1d_tlb_refill/k,2000,100.00,,\n"
		"<not supported>,,itlb_walk:k,0,100.00,,\n"),
	      "perf's format: '%s'", buf ? buf : "(null)");
	if (dir && buf) {
		char path[PATH_MAX];
		FILE *f;

		snprintf(path, sizeof(path), "%s/sample.csv", dir);
		f = fopen(path, "w");
		CHECK(r, f && fwrite(buf, 1, len, f) == len && !fclose(f),
		      "writing %s", path);
	}
	free(buf);
	buf = NULL;
	len = 0;
	CHECK(r, tlb_csv_run(names, sample_rd, j, 2, NULL, &buf, &len) == -EINVAL,
	      "a not-counted reading is never written");
	free(buf);
}

static void test_layout_summary(struct results *r, const char *fixtures)
{
	static const char layout[] = "DirectMap16M:            0 kB\n"
				     "DirectMap1M:        770048 kB\n"
				     "DirectMap4k:         16384 kB\n"
				     "Mapped:             786432 kB\n";
	char out[128], rel[PATH_MAX], *buf;
	struct sysroot_opts opts = { 0 };
	struct sysroot sr;
	size_t len;

	r->test = "tlb_layout_summary";
	tlb_layout_summary(layout, sizeof(layout) - 1, out, sizeof(out));
	CHECK(r, !strcmp(out, "1M:770048kB 4k:16384kB"), "summary '%s'", out);
	tlb_layout_summary(layout, sizeof(layout) - 1, out, 12);
	CHECK(r, !strcmp(out, "1M:770048kB"), "a short buffer keeps whole items: '%s'", out);
	{
		static const char g[] = "garbage\nDirectMap4k: x kB\n";

		tlb_layout_summary(g, sizeof(g) - 1, out, sizeof(out));
	}
	CHECK(r, !strcmp(out, ""), "garbage: '%s'", out);

	snprintf(rel, sizeof(rel), "%s/qemu-arm64/root", fixtures);
	opts.root = rel;
	if (sysroot_open(&sr, &opts) == 0 &&
	    sysroot_read(&sr, FS_DEBUGFS, "linear_map/layout", &buf, &len) == 0) {
		tlb_layout_summary(buf, len, out, sizeof(out));
		CHECK(r, !strcmp(out, "32M:1015808kB 2M:30720kB 64k:768kB 4k:1280kB"),
		      "arm64 fixture: '%s'", out);
		free(buf);
	} else {
		CHECK(r, 0, "no linear_map/layout in %s", rel);
	}
}

int main(int argc, char **argv)
{
	const char *fixtures = argc > 1 ? argv[1] : "tests/fixtures";
	struct results r = { 0 };

	test_args(&r);
	test_walk_report(&r);
	test_judge(&r);
	test_csv(&r, argc > 2 ? argv[2] : NULL);
	test_layout_summary(&r, fixtures);
	printf("tlb: %u passed, %u failed\n", r.passed, r.failed);
	return r.failed ? 1 : 0;
}
