// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the trace model (cmadebug/src/trace.h): the summary on
 * records built here, and the converter and page parser on raw records
 * synthesized from the format files captured from both guests (arm's 4-byte
 * and arm64's 8-byte longs).  Included by test_cmadebug.c (its CHECK
 * macros and struct results); test_trace_all() is the entry point.
 */
#include <event-parse.h>

#include "trace.h"
#include "trace_dat.h"
#include "trace_record.h"

static struct trace_rec *add_rec(struct trace_recs *rs, enum trace_kind kind,
				 uint64_t ts, int32_t pid)
{
	struct trace_rec *rec = trace_recs_add(rs);

	if (rec) {
		rec->kind = kind;
		rec->ts = ts;
		rec->pid = pid;
	}
	return rec;
}

static void add_alloc(struct trace_recs *rs, const char *area, int32_t pid,
		      uint64_t start, uint64_t end, uint64_t pages, int32_t err)
{
	struct trace_rec *rec = add_rec(rs, TR_ALLOC_START, start, pid);

	snprintf(rec->u.start.area, TRACE_AREA_MAX, "%s", area);
	rec->u.start.count = pages;
	rec = add_rec(rs, TR_ALLOC_FINISH, end, pid);
	snprintf(rec->u.finish.area, TRACE_AREA_MAX, "%s", area);
	rec->u.finish.count = pages;
	rec->u.finish.err = err;
	rec->u.finish.err_known = true;
	rec->u.finish.failed = err != 0;
}

static void add_fail(struct trace_recs *rs, uint64_t ts, const char *stage,
		     bool has_pfn, uint64_t pfn)
{
	struct trace_rec *rec = add_rec(rs, TR_ALLOC_FAIL, ts, 7);

	snprintf(rec->u.fail.area, TRACE_AREA_MAX, "reserved");
	snprintf(rec->u.fail.stage, TRACE_WORD_MAX, "%s", stage);
	snprintf(rec->u.fail.kind, TRACE_WORD_MAX, "movable_ops");
	rec->u.fail.has_pfn = has_pfn;
	rec->u.fail.pfn = pfn;
}

static void test_trace_summary(struct results *r)
{
	struct trace_recs rs = { 0 };
	struct trace_summary s;
	struct trace_rec *rec;

	r->test = "trace_summarize";
	/* 10 allocations in "reserved" taking 1..10 us, interleaved with
	 * one pid 2 allocation in "fimc-pool" that fails after 1 ms. */
	add_alloc(&rs, "fimc-pool", 2, 50, 1000050, 16, -16);
	for (unsigned int i = 1; i <= 10; i++)
		add_alloc(&rs, "reserved", 1, i * 100000, i * 100000 + i * 1000,
			  8, 0);
	add_fail(&rs, 2000000, "migrate", true, 0x7e041);
	add_fail(&rs, 2000001, "migrate", true, 0x7e041);
	add_fail(&rs, 2000002, "isolate", true, 0x7e000);
	add_fail(&rs, 2000003, "no-space", false, 0);
	rec = add_rec(&rs, TR_BUSY_RETRY, 2000004, 1);
	snprintf(rec->u.retry.area, TRACE_AREA_MAX, "reserved");
	rec = add_rec(&rs, TR_MIGRATE, 2000005, 1);
	rec->u.migrate.contig_range = true;
	rec->u.migrate.succeeded = 30;
	rec->u.migrate.failed = 2;
	rec = add_rec(&rs, TR_MIGRATE, 2000006, 1);
	rec->u.migrate.succeeded = 99;	/* compaction: not CMA's */
	rec = add_rec(&rs, TR_SPLIT, 2000007, 0);
	snprintf(rec->u.split.cause, TRACE_WORD_MAX, "cma-remap");
	rec->u.split.count = 16;
	rec->u.split.size = 16 << 20;
	for (int i = 0; i < 3; i++) {
		rec = add_rec(&rs, TR_ATTR_CHANGE, 2000008 + i, 0);
		snprintf(rec->u.attr.cause, TRACE_WORD_MAX, "dma-remap");
		rec->u.attr.nr_pages = 256;
		rec->u.attr.ret = i == 2 ? -22 : 0;
	}
	/* A finish whose start was before the trace began. */
	rec = add_rec(&rs, TR_ALLOC_FINISH, 2000020, 9);
	snprintf(rec->u.finish.area, TRACE_AREA_MAX, "reserved");
	/* A start whose finish came after the trace ended. */
	rec = add_rec(&rs, TR_ALLOC_START, 2000030, 9);
	snprintf(rec->u.start.area, TRACE_AREA_MAX, "reserved");
	rs.lost = 5;
	trace_recs_sort(&rs);
	CHECK(r, rs.rec[0].ts == 50 && rs.rec[1].ts == 100000,
	      "sorted by time: %llu, %llu", (unsigned long long)rs.rec[0].ts,
	      (unsigned long long)rs.rec[1].ts);
	if (trace_summarize(&rs, &s)) {
		CHECK(r, false, "trace_summarize failed");
		trace_recs_free(&rs);
		return;
	}
	CHECK_U64(r, "requests", 12, s.requests);
	CHECK_U64(r, "pages", 16 + 80, s.pages);
	CHECK_U64(r, "succeeded", 11, s.succeeded);
	CHECK_U64(r, "failed", 1, s.failed);
	CHECK_U64(r, "unmatched finish", 1, s.unmatched);
	CHECK_U64(r, "unfinished start", 1, s.unfinished);
	CHECK_U64(r, "lost", 5, s.lost);
	CHECK(r, s.nr_areas == 2 && !strcmp(s.areas[0].name, "fimc-pool") &&
		 !strcmp(s.areas[1].name, "reserved"),
	      "areas in order of appearance");
	CHECK_U64(r, "reserved pairs", 10, s.areas[1].latency.count);
	CHECK_U64(r, "reserved min", 1000, s.areas[1].latency.min);
	CHECK_U64(r, "reserved p50 (nearest rank 5 of 10)", 5000,
		  s.areas[1].latency.p50);
	CHECK_U64(r, "reserved p90", 9000, s.areas[1].latency.p90);
	CHECK_U64(r, "reserved p99", 10000, s.areas[1].latency.p99);
	CHECK_U64(r, "reserved max", 10000, s.areas[1].latency.max);
	CHECK_U64(r, "all pairs", 11, s.latency.count);
	CHECK_U64(r, "all max", 1000000, s.latency.max);
	/* 1000 ns is in [512, 1024), 2000..3000 in [1024, 2048) ... */
	CHECK_U64(r, "hist [2^9, 2^10)", 1, s.latency.hist[9]);
	CHECK_U64(r, "hist [2^10, 2^11)", 1, s.latency.hist[10]);
	CHECK_U64(r, "hist [2^11, 2^12)", 2, s.latency.hist[11]);
	CHECK_U64(r, "hist [2^12, 2^13)", 4, s.latency.hist[12]);
	CHECK_U64(r, "hist [2^13, 2^14)", 2, s.latency.hist[13]);
	CHECK_U64(r, "hist [2^19, 2^20) (1 ms)", 1, s.latency.hist[19]);
	CHECK_U64(r, "fail events", 4, s.fail_events);
	CHECK(r, s.nr_stages == 3 && !strcmp(s.stages[0].stage, "migrate") &&
		 s.stages[0].count == 2,
	      "stages by count: migrate first");
	CHECK_U64(r, "distinct pfns", 2, s.distinct_pfns);
	CHECK(r, s.nr_pfns == 2 && s.pfns[0].pfn == 0x7e041 &&
		 s.pfns[0].count == 2 && !strcmp(s.pfns[0].stage, "migrate"),
	      "top pfn 0x7e041 twice");
	CHECK_U64(r, "failures without a pfn", 1, s.fails_without_pfn);
	CHECK_U64(r, "busy retries", 1, s.busy_retries);
	CHECK_U64(r, "contig_range migrations", 1, s.migrate_calls);
	CHECK_U64(r, "pages migrated", 30, s.pages_migrated);
	CHECK_U64(r, "pages not migrated", 2, s.pages_not_migrated);
	CHECK_U64(r, "other migrations", 1, s.migrate_other_calls);
	CHECK(r, s.nr_split_causes == 1 && s.split_causes[0].entries == 16 &&
		 s.split_bytes == 16 << 20, "one cma-remap split of 16 entries");
	CHECK(r, s.attr_changes == 3 && s.attr_failures == 1 &&
		 s.nr_attr_causes == 1 && s.attr_causes[0].pages == 3 * 256 &&
		 s.attr_pages == 3 * 256,
	      "three dma-remap changes, one failed");
	trace_summary_free(&s);

	/* Empty input: zeros, no crash. */
	rs.nr = 0;
	rs.lost = 0;
	CHECK(r, !trace_summarize(&rs, &s) && s.records == 0 &&
		 s.latency.count == 0 && s.nr_areas == 0, "empty summary");
	trace_summary_free(&s);
	trace_recs_free(&rs);
}

static void test_trace_stats_lost(struct results *r)
{
	static const char stats[] = "entries: 3\noverrun: 2\ncommit overrun: 1\n"
				    "bytes: 400\noldest event ts:  12.000001\n"
				    "now ts:  13.000000\ndropped events: 4\n"
				    "read events: 9\n";
	uint64_t lost = 0;

	r->test = "trace_stats_lost";
	CHECK(r, !trace_stats_lost(stats, sizeof(stats) - 1, &lost) && lost == 7,
	      "overrun + commit overrun + dropped = 7, got %llu",
	      (unsigned long long)lost);
	CHECK(r, trace_stats_lost("entries: 1\n", 11, &lost) == -EINVAL,
	      "stats without the counters are refused");
	CHECK(r, trace_stats_lost("overrun: x\n", 11, &lost) == -EINVAL,
	      "a bad number is refused");
}

static void test_trace_stats_unread(struct results *r)
{
	static const char stats[] = "entries: 3\noverrun: 2\nread events: 9\n";
	uint64_t unread = 0;

	r->test = "trace_stats_unread";
	CHECK(r, !trace_stats_unread(stats, sizeof(stats) - 1, &unread) &&
		 unread == 3, "entries: 3, got %llu", (unsigned long long)unread);
	CHECK(r, trace_stats_unread("overrun: 1\n", 11, &unread) == -EINVAL,
	      "stats without entries: are refused");
}

/*
 * The drain stops at max_bytes across all CPUs and says so; the pages past
 * it stay where the kernel would keep (and count) them.  Pipes stand in for
 * trace_pipe_raw: the drain only reads them page by page.
 */
static void test_trace_drain_capped(struct results *r)
{
	enum { PAGE = 4096, PAGES_PER_CPU = 5, CAP_PAGES = 6 };
	struct trace_cpu_buf cpu[2];
	struct trace_session s;
	unsigned char page[PAGE];
	int fds[2][2] = { { -1, -1 }, { -1, -1 } };
	size_t left = 0;

	r->test = "trace_session_drain capped";
	memset(&s, 0, sizeof(s));
	memset(cpu, 0, sizeof(cpu));
	memset(page, 0xa5, sizeof(page));
	for (unsigned int c = 0; c < 2; c++) {
		if (pipe2(fds[c], O_NONBLOCK)) {
			CHECK(r, 0, "pipe2: %s", strerror(errno));
			goto out;
		}
		for (unsigned int p = 0; p < PAGES_PER_CPU; p++)
			if (write(fds[c][1], page, PAGE) != PAGE) {
				CHECK(r, 0, "filling the pipe: %s", strerror(errno));
				goto out;
			}
		cpu[c].fd = fds[c][0];
	}
	s.nr_cpus = 2;
	s.cpu = cpu;
	s.page_size = PAGE;
	s.long_size = 8;	/* 0xa5... commit words: every page reads as full */
	s.max_bytes = CAP_PAGES * PAGE;
	CHECK(r, !trace_session_drain(&s), "drain returns 0");
	CHECK(r, s.capped, "capped at %d pages", CAP_PAGES);
	CHECK(r, s.kept == CAP_PAGES * PAGE && cpu[0].len + cpu[1].len == s.kept,
	      "kept %zu bytes, cpu0 %zu + cpu1 %zu", s.kept, cpu[0].len,
	      cpu[1].len);
	CHECK(r, !trace_session_drain(&s) && s.kept == CAP_PAGES * PAGE,
	      "a later drain keeps nothing more");
	for (unsigned int c = 0; c < 2; c++) {
		ssize_t n;

		while ((n = read(fds[c][0], page, PAGE)) > 0)
			left += (size_t)n;
	}
	CHECK(r, left == (2 * PAGES_PER_CPU - CAP_PAGES) * PAGE,
	      "%zu bytes left unread for the kernel to count", left);
out:
	for (unsigned int c = 0; c < 2; c++) {
		if (fds[c][0] >= 0)
			close(fds[c][0]);
		if (fds[c][1] >= 0)
			close(fds[c][1]);
		free(cpu[c].data);
	}
}

/* Ring-buffer pages of SIZE bytes whose commit words are COMMITS, into FD. */
static int write_pages(int fd, const size_t *commits, size_t nr, size_t size)
{
	unsigned char page[4096];

	if (size > sizeof(page))
		return -1;
	for (size_t i = 0; i < nr; i++) {
		uint64_t word = commits[i];

		memset(page, 0, size);
		memcpy(page + 8, &word, 8);
		if (write(fd, page, size) != (ssize_t)size)
			return -1;
	}
	return 0;
}

/*
 * The kernel hands out the page it is still writing: a page less than half
 * full ends the CPU's turn (each read costs a whole page of memory), and
 * the next drain goes on where this one stopped.
 */
static void test_trace_drain_partial_page(struct results *r)
{
	enum { PAGE = 4096 };
	static const size_t commits[] = { PAGE - 16, 100, PAGE - 16 };
	struct trace_cpu_buf cpu = { .fd = -1 };
	struct trace_session s;
	int fds[2] = { -1, -1 };

	r->test = "trace_session_drain partial page";
	memset(&s, 0, sizeof(s));
	if (pipe2(fds, O_NONBLOCK)) {
		CHECK(r, 0, "pipe2: %s", strerror(errno));
		return;
	}
	if (write_pages(fds[1], commits, ARRAY_SIZE(commits), PAGE)) {
		CHECK(r, 0, "filling the pipe: %s", strerror(errno));
		goto out;
	}
	cpu.fd = fds[0];
	s.nr_cpus = 1;
	s.cpu = &cpu;
	s.page_size = PAGE;
	s.long_size = 8;
	CHECK(r, !trace_session_drain(&s) && cpu.len == 2 * PAGE,
	      "the first drain stops after the partial page: %zu bytes",
	      cpu.len);
	CHECK(r, !trace_session_drain(&s) && cpu.len == 3 * PAGE,
	      "the next drain reads on: %zu bytes", cpu.len);
	CHECK(r, trace_page_commit(cpu.data + PAGE, 8) == 100,
	      "the partial page kept as read (commit %zu)",
	      trace_page_commit(cpu.data + PAGE, 8));
	/* The final drain (trace_session_stop()) reads all three. */
	cpu.len = 0;
	s.kept = 0;
	if (write_pages(fds[1], commits, ARRAY_SIZE(commits), PAGE)) {
		CHECK(r, 0, "refilling the pipe: %s", strerror(errno));
		goto out;
	}
	CHECK(r, !trace_session_drain_all(&s) && cpu.len == 3 * PAGE,
	      "the final drain reads past the partial page: %zu bytes",
	      cpu.len);
out:
	close(fds[0]);
	close(fds[1]);
	free(cpu.data);
}

/* A tep over the captured format files of FIXTURE. */
static struct tep_handle *fixture_tep(const char *fixtures, const char *name,
				      struct trace_formats *f)
{
	char root[PATH_MAX];
	struct sysroot_opts opts = { .root = root };
	struct sysroot sr;
	struct tep_handle *tep;

	memset(f, 0, sizeof(*f));
	snprintf(root, sizeof(root), "%s/%s/root", fixtures, name);
	if (sysroot_open(&sr, &opts))
		return NULL;
	trace_formats_load_system(&sr, "cma", f);
	trace_formats_load_system(&sr, "migrate", f);
	trace_formats_load_system(&sr, "linear_map", f);
	tep = tep_alloc();
	for (unsigned int i = 0; tep && i < f->nr; i++)
		tep_parse_event(tep, f->f[i].text, f->f[i].len, f->f[i].system);
	return tep;
}

/* Raw record synthesis: fields at the offsets the format declares. */
struct raw {
	struct tep_event *ev;
	unsigned char data[256];
	size_t tail;		/* where the next dynamic string goes */
};

static void raw_begin(struct raw *w, struct tep_handle *tep, const char *sys,
		      const char *name, int pid)
{
	int type;
	struct tep_format_field *last = NULL;

	memset(w, 0, sizeof(*w));
	w->ev = tep_find_event_by_name(tep, sys, name);
	if (!w->ev)
		return;
	type = w->ev->id;
	memcpy(w->data, &(uint16_t){ (uint16_t)type }, 2);
	memcpy(w->data + 4, &pid, 4);
	for (struct tep_format_field *f = w->ev->format.fields; f; f = f->next)
		last = f;
	w->tail = last ? (size_t)(last->offset + last->size) : 8;
}

static void raw_num(struct raw *w, const char *name, uint64_t v)
{
	struct tep_format_field *f = w->ev ? tep_find_field(w->ev, name) : NULL;

	if (!f)
		return;
	if (f->size == 4)
		memcpy(w->data + f->offset, &(uint32_t){ (uint32_t)v }, 4);
	else
		memcpy(w->data + f->offset, &v, 8);
}

static void raw_str(struct raw *w, const char *name, const char *s)
{
	struct tep_format_field *f = w->ev ? tep_find_field(w->ev, name) : NULL;
	uint32_t len = (uint32_t)strlen(s) + 1, loc;

	if (!f || w->tail + len > sizeof(w->data))
		return;
	loc = (len << 16) | (uint32_t)w->tail;
	memcpy(w->data + f->offset, &loc, 4);
	memcpy(w->data + w->tail, s, len);
	w->tail += len;
}

static size_t raw_size(const struct raw *w)
{
	return (w->tail + 3) & ~(size_t)3;
}

/* The value the event's print format names NAME for FIELD, or 0xffff. */
static uint32_t raw_symbol(const struct raw *w, const char *field,
			   const char *name)
{
	int v = w->ev ? trace_symbol_value(w->ev, field, name) : -1;

	return v < 0 ? 0xffff : (uint32_t)v;
}

/* One failure record of the migrate stage at PFN (ULONG_MAX-less). */
static void raw_fail(struct raw *w, struct tep_handle *tep, uint64_t ulong_max)
{
	raw_begin(w, tep, "cma", "cma_alloc_fail", 42);
	raw_str(w, "name", "reserved");
	raw_num(w, "start_pfn", 0x7e040);
	raw_num(w, "count", 8128);
	raw_num(w, "attempt", 1);
	raw_num(w, "errorno", (uint32_t)-16);
	raw_num(w, "stage", raw_symbol(w, "stage", "migrate"));
	raw_num(w, "pfn", ulong_max);
	raw_num(w, "refcount", 2);
	raw_num(w, "mapcount", (uint32_t)-1);
	raw_num(w, "migratetype", raw_symbol(w, "migratetype", "Isolate"));
	raw_num(w, "kind", raw_symbol(w, "kind", "movable_ops"));
}

/* A sub-buffer holding RAWS as ring-buffer events 1 us apart. */
static size_t make_page(unsigned char *page, size_t size, int long_size,
			const struct raw *raws, unsigned int n, uint64_t flags)
{
	size_t at = 8 + (size_t)long_size;
	uint64_t ts = 1000000000ULL, commit;

	memset(page, 0, size);
	memcpy(page, &ts, 8);
	for (unsigned int i = 0; i < n; i++) {
		size_t len = raw_size(&raws[i]);
		uint32_t delta = i ? 1000u << 5 : 0;
		/* Up to 112 bytes the length is type_len * 4; beyond, type_len
		 * is 0 and array[0] holds the length + 4 (rb_update_event()). */
		uint32_t hdr = len <= 112 ? (uint32_t)(len / 4) | delta : delta;

		memcpy(page + at, &hdr, 4);
		at += 4;
		if (len > 112) {
			memcpy(page + at, &(uint32_t){ (uint32_t)len + 4 }, 4);
			at += 4;
		}
		memcpy(page + at, raws[i].data, len);
		at += len;
	}
	commit = (at - 8 - (size_t)long_size) | flags;
	if (long_size == 4)
		memcpy(page + 8, &(uint32_t){ (uint32_t)commit }, 4);
	else
		memcpy(page + 8, &commit, 8);
	return at;
}

static void test_trace_fixture_records(struct results *r, const char *fixtures,
				       const char *name, int long_size)
{
	uint64_t ulong_max = long_size == 4 ? UINT32_MAX : UINT64_MAX;
	struct trace_formats f;
	struct tep_handle *tep = fixture_tep(fixtures, name, &f);
	struct trace_recs rs = { 0 };
	struct trace_conv conv;
	struct raw raws[6];
	unsigned char page[4096];
	size_t end;
	const struct trace_alloc_fail *fl;

	r->test = name;
	if (!tep || trace_conv_init(&conv, tep)) {
		CHECK(r, false, "%s: no tep over the captured formats", name);
		goto out;
	}
	CHECK(r, conv.contig_range == 6,
	      "mm_migrate_pages names reason 6 contig_range, got %d",
	      conv.contig_range);
	CHECK(r, trace_symbol_name(conv.ev[TR_SPLIT], "cause", 1) &&
		 !strcmp(trace_symbol_name(conv.ev[TR_SPLIT], "cause", 1),
			 "page-granular"),
	      "linear_map_split cause 1 is page-granular");

	raw_begin(&raws[0], tep, "cma", "cma_alloc_start", 42);
	raw_str(&raws[0], "name", "reserved");
	raw_num(&raws[0], "count", 8128);
	raw_fail(&raws[1], tep, 0x7e041);
	raw_fail(&raws[2], tep, ulong_max);	/* no page to blame */
	raw_begin(&raws[3], tep, "migrate", "mm_migrate_pages", 42);
	raw_num(&raws[3], "succeeded", 30);
	raw_num(&raws[3], "failed", 1);
	raw_num(&raws[3], "reason", 6);
	raw_begin(&raws[4], tep, "linear_map", "linear_map_split", 1);
	raw_num(&raws[4], "pfn", 0x57000);
	raw_num(&raws[4], "size", 16 << 20);
	raw_num(&raws[4], "from_shift", 20);
	raw_num(&raws[4], "to_shift", 12);
	raw_num(&raws[4], "count", 16);
	raw_num(&raws[4], "cause", raw_symbol(&raws[4], "cause", "cma-remap"));
	raw_begin(&raws[5], tep, "linear_map", "linear_map_attr_change", 1);
	raw_num(&raws[5], "pfn", 0x57000);
	raw_num(&raws[5], "nr_pages", 2);
	raw_num(&raws[5], "set", 1u << 4);
	raw_num(&raws[5], "memtype",
		raw_symbol(&raws[5], "memtype", "noncached"));
	raw_num(&raws[5], "ret", (uint32_t)-22);
	raw_num(&raws[5], "cause", raw_symbol(&raws[5], "cause", "dma-remap"));

	end = make_page(page, sizeof(page), long_size, raws, 6,
			(1ULL << 31) | (1ULL << 30));
	/* The count of lost events follows the data (RB_MISSED_STORED). */
	if (long_size == 4)
		memcpy(page + end, &(uint32_t){ 3 }, 4);
	else
		memcpy(page + end, &(uint64_t){ 3 }, 8);
	CHECK(r, !trace_page_parse(&conv, page, sizeof(page), long_size, 1, &rs, NULL),
	      "%s: the synthesized page parses", name);
	CHECK_U64(r, "records of the page", 6, rs.nr);
	CHECK_U64(r, "lost events stored in the page", 3, rs.lost);
	if (rs.nr == 6) {
		CHECK(r, rs.rec[0].kind == TR_ALLOC_START &&
			 !strcmp(rs.rec[0].u.start.area, "reserved") &&
			 rs.rec[0].u.start.count == 8128 && rs.rec[0].pid == 42 &&
			 rs.rec[0].cpu == 1 && rs.rec[0].ts == 1000000000ULL,
		      "cma_alloc_start: area, count, pid, cpu, ts");
		CHECK_U64(r, "second record's ts (+1000)", 1000001000ULL,
			  rs.rec[1].ts);
		fl = &rs.rec[1].u.fail;
		CHECK(r, rs.rec[1].kind == TR_ALLOC_FAIL && fl->has_pfn &&
			 fl->pfn == 0x7e041 && !strcmp(fl->stage, "migrate") &&
			 fl->err == -16 && fl->mapcount == -1 &&
			 !strcmp(fl->kind, "movable_ops") &&
			 !strcmp(fl->migratetype, "Isolate") && fl->has_start,
		      "cma_alloc_fail: pfn, stage, err, kind, migratetype");
		CHECK(r, !rs.rec[2].u.fail.has_pfn,
		      "pfn ULONG_MAX (%d-byte long) is no pfn", long_size);
		CHECK(r, rs.rec[3].kind == TR_MIGRATE &&
			 rs.rec[3].u.migrate.contig_range &&
			 rs.rec[3].u.migrate.succeeded == 30,
		      "mm_migrate_pages reason contig_range");
		CHECK(r, rs.rec[4].kind == TR_SPLIT &&
			 rs.rec[4].u.split.pfn == 0x57000 &&
			 rs.rec[4].u.split.from_shift == 20 &&
			 rs.rec[4].u.split.to_shift == 12 &&
			 rs.rec[4].u.split.count == 16 &&
			 !strcmp(rs.rec[4].u.split.cause, "cma-remap"),
		      "linear_map_split: pfn, sizes, count, cause named");
		CHECK(r, rs.rec[5].kind == TR_ATTR_CHANGE &&
			 rs.rec[5].u.attr.nr_pages == 2 &&
			 rs.rec[5].u.attr.set == 1u << 4 &&
			 rs.rec[5].u.attr.ret == -22 &&
			 !strcmp(rs.rec[5].u.attr.memtype, "noncached") &&
			 !strcmp(rs.rec[5].u.attr.cause, "dma-remap"),
		      "linear_map_attr_change: pages, masks, memtype, cause");
	}

	/* A commit beyond the page, or a string beyond its record: refused. */
	trace_recs_free(&rs);
	make_page(page, sizeof(page), long_size, raws, 1, 0);
	memcpy(page + 8, &(uint32_t){ 8000 }, 4);
	CHECK(r, trace_page_parse(&conv, page, sizeof(page), long_size, 0, &rs, NULL) ==
		 -EINVAL && rs.nr == 0, "a commit past the page is refused");
	raws[0].data[raws[0].ev ? 10 : 0] = 0xff;	/* name's length: 0xff.. */
	make_page(page, sizeof(page), long_size, raws, 1, 0);
	CHECK(r, trace_page_parse(&conv, page, sizeof(page), long_size, 0, &rs, NULL) ==
		 -EINVAL && rs.nr == 0, "a string past its record is refused");
out:
	trace_recs_free(&rs);
	tep_free(tep);
	trace_formats_free(&f);
}

/*
 * Damaged pages: a good record, then one bad record header.  Each must end
 * the page at the bad record with the good one kept, and return; before
 * the walk, kbuffer went round the same record (or padding) for ever.
 */
static void test_trace_damaged_pages(struct results *r, const char *fixtures,
				     const char *name, int long_size)
{
	static const struct {
		const char *what;
		uint32_t words[2];	/* the bad record's header, array[0] */
		const char *why;
	} bad[] = {
		{ "zero length (array[0] 4 - 4 is no data)", { 0, 0 },
		  "a record's length does not move past it" },
		{ "negative length pointing backwards", { 0, 0xfffffff8u },
		  "a record's length does not move past it" },
		{ "discarded-event padding pointing at itself",
		  { 29 | (1u << 5), 0xfffffffcu },
		  "a record's length does not move past it" },
		{ "a data record longer than the commit", { 0, 4000 },
		  "a record runs past the page's commit" },
		{ "an absolute time stamp older than the page", { 31, 0 },
		  "an absolute time stamp goes backwards" },
	};
	struct trace_formats f;
	struct tep_handle *tep = fixture_tep(fixtures, name, &f);
	struct trace_recs rs = { 0 };
	struct trace_page_damage damage;
	struct trace_conv conv;
	unsigned char page[4096];
	struct raw raw;
	char path[PATH_MAX];
	unsigned char hang[1024];
	size_t end, hdr = 8 + (size_t)long_size;
	uint64_t commit;
	FILE *fp;

	r->test = "damaged ring-buffer pages";
	if (!tep || trace_conv_init(&conv, tep)) {
		CHECK(r, false, "%s: no tep over the captured formats", name);
		goto out;
	}
	raw_begin(&raw, tep, "cma", "cma_alloc_start", 42);
	raw_str(&raw, "name", "reserved");
	raw_num(&raw, "count", 16);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret;

		end = make_page(page, sizeof(page), long_size, &raw, 1, 0);
		memcpy(page + end, bad[i].words, 8);
		commit = end + 8 + 64 - hdr;	/* the bad record and zeros */
		if (long_size == 4)
			memcpy(page + 8, &(uint32_t){ (uint32_t)commit }, 4);
		else
			memcpy(page + 8, &commit, 8);
		trace_recs_free(&rs);
		ret = trace_page_parse(&conv, page, sizeof(page), long_size, 0,
				       &rs, &damage);
		CHECK(r, ret == -EINVAL && rs.nr == 1 &&
			 rs.rec[0].kind == TR_ALLOC_START,
		      "%s, %s: -EINVAL with the good record kept, got %d and %u records",
		      name, bad[i].what, ret, rs.nr);
		CHECK(r, ret == -EINVAL && damage.offset == end &&
			 damage.why && !strcmp(damage.why, bad[i].why),
		      "%s, %s: damage at byte %zu '%s', got %zu '%s'", name,
		      bad[i].what, end, bad[i].why, damage.offset,
		      damage.why ? damage.why : "(none)");
	}

	/* Padding without a time delta ends the page: not damage. */
	end = make_page(page, sizeof(page), long_size, &raw, 1, 0);
	memcpy(page + end, &(uint32_t[2]){ 29, 0xfffffffcu }, 8);
	commit = end + 8 - hdr;
	memcpy(page + 8, &commit, long_size);
	trace_recs_free(&rs);
	CHECK(r, !trace_page_parse(&conv, page, sizeof(page), long_size, 0, &rs,
				   &damage) && rs.nr == 1,
	      "%s: end-of-page padding (length word unset) ends the page cleanly",
	      name);

	/* The page libFuzzer found hanging the parser (tests/fuzz/regress). */
	snprintf(path, sizeof(path),
		 "%s/../fuzz/regress/fuzz_trace_page/trace_page-hang.bin",
		 fixtures);
	fp = fopen(path, "rb");
	end = fp ? fread(hang, 1, sizeof(hang), fp) : 0;
	if (fp)
		fclose(fp);
	CHECK(r, end == 567, "%s: 567 bytes, got %zu", path, end);
	if (end == 567 && long_size == 4) {	/* its first byte: the arm guest */
		trace_recs_free(&rs);
		CHECK(r, trace_page_parse(&conv, hang + 1, end - 1, 4, 0, &rs,
					  &damage) == -EINVAL && damage.why,
		      "trace_page-hang.bin returns -EINVAL and says why");
	}
out:
	trace_recs_free(&rs);
	tep_free(tep);
	trace_formats_free(&f);
}

/*
 * trace_dat_repair() over a guest's trace.dat: a sound file is left as it
 * is; a page whose commit points past its end is cut to nothing (and
 * named); every prefix of the file is walked without reading past it.
 */
static void test_trace_dat_repair(struct results *r, const char *fixtures,
				  const char *name, int long_size)
{
	struct trace_dat_damage damage;
	unsigned char *dat = NULL, *copy = NULL;
	const unsigned char *fly;
	char path[PATH_MAX];
	uint64_t off = 0, size = 0;
	size_t len = 0;
	FILE *fp;
	int ret;

	r->test = "trace_dat_repair";
	snprintf(path, sizeof(path), "%s/%s/trace/trace.dat", fixtures, name);
	fp = fopen(path, "rb");
	if (fp && !fseek(fp, 0, SEEK_END) && ftell(fp) > 0) {
		len = (size_t)ftell(fp);
		rewind(fp);
		dat = malloc(len);
		copy = malloc(len);
		if (!dat || !copy || fread(dat, 1, len, fp) != len)
			len = 0;
	}
	if (fp)
		fclose(fp);
	if (!len) {
		CHECK(r, false, "%s: cannot read", path);
		goto out;
	}
	memcpy(copy, dat, len);
	ret = trace_dat_repair(copy, len, &damage);
	CHECK(r, ret == 0 && !memcmp(copy, dat, len),
	      "%s: a sound file: 0 and unchanged, got %d", name, ret);

	fly = memmem(dat, len, "flyrecord", 10);
	if (fly && (size_t)(fly - dat) + 26 <= len) {
		memcpy(&off, fly + 10, 8);
		memcpy(&size, fly + 18, 8);
	}
	CHECK(r, off && size && off + size <= len,
	      "%s: cpu0's data in the flyrecord table", name);
	if (off && size && off + size <= len) {
		uint64_t commit = 0;

		memcpy(copy, dat, len);
		memset(copy + off + 8, 0xff, 3);	/* commit 0xffffff: past 4096 */
		ret = trace_dat_repair(copy, len, &damage);
		memcpy(&commit, copy + off + 8, (size_t)long_size);
		CHECK(r, ret == 1 && damage.cpu == 0 && damage.page_offset == off &&
			 damage.why && (commit & ((1 << 27) - 1)) == 0,
		      "%s: a commit past the page: 1 page cut to nothing at %llu, got %d at %llu, commit %llu",
		      name, (unsigned long long)off, ret,
		      (unsigned long long)damage.page_offset,
		      (unsigned long long)commit);
	}

	/* Each prefix in a buffer of its own size: a read past it is caught. */
	for (size_t n = 1; n < len; n += n < 4200 ? 1 : 97) {
		unsigned char *prefix = malloc(n);

		if (!prefix)
			break;
		memcpy(prefix, dat, n);
		ret = trace_dat_repair(prefix, n, &damage);
		free(prefix);
		if (ret != -ENOTSUP && ret != -ERANGE && ret < 0) {
			CHECK(r, false, "%s: prefix of %zu bytes: %d", name, n, ret);
			break;
		}
	}
	memcpy(copy, dat, len);
	copy[11] = '7';	/* another version: not walked */
	CHECK(r, trace_dat_repair(copy, len, &damage) == -ENOTSUP,
	      "%s: a version 7 header is not walked", name);
out:
	free(dat);
	free(copy);
}

/*
 * A stock kernel's trace: failures known only by errorno; contig_range
 * migrations counted for the allocation their task has open, not another
 * task's; the formats the source had carried into the summary.
 */
static void test_trace_summary_stock(struct results *r)
{
	struct trace_recs rs = { 0 };
	struct trace_summary s;
	struct trace_rec *rec;

	r->test = "trace_summarize (stock kernel)";
	rs.formats = 1u << TR_ALLOC_START | 1u << TR_ALLOC_FINISH | 1u << TR_MIGRATE;
	rec = add_rec(&rs, TR_ALLOC_START, 10, 3);
	snprintf(rec->u.start.area, TRACE_AREA_MAX, "reserved");
	rec = add_rec(&rs, TR_MIGRATE, 20, 3);
	rec->u.migrate.contig_range = true;
	rec->u.migrate.succeeded = 12;
	rec = add_rec(&rs, TR_MIGRATE, 21, 4);	/* another task's */
	rec->u.migrate.contig_range = true;
	rec->u.migrate.succeeded = 5;
	rec = add_rec(&rs, TR_ALLOC_FINISH, 30, 3);
	snprintf(rec->u.finish.area, TRACE_AREA_MAX, "reserved");
	add_alloc(&rs, "reserved", 3, 40, 50, 2, 0);
	add_alloc(&rs, "reserved", 3, 60, 70, 2, -12);
	add_alloc(&rs, "reserved", 5, 80, 90, 2, -12);
	add_alloc(&rs, "reserved", 5, 100, 110, 2, -16);
	/* Linux 6.1's event: no errorno, a NULL page */
	add_alloc(&rs, "reserved", 6, 120, 130, 2, 0);
	rs.rec[rs.nr - 1].u.finish.err_known = false;
	rs.rec[rs.nr - 1].u.finish.failed = true;
	if (trace_summarize(&rs, &s)) {
		CHECK(r, false, "trace_summarize failed");
		trace_recs_free(&rs);
		return;
	}
	CHECK(r, s.formats == rs.formats, "formats carried over");
	CHECK(r, s.nr_errnos == 3 && s.errnos[0].err == -12 && s.errnos[0].count == 2 &&
		 s.errnos[1].err == 0 && s.errnos[2].err == -16 && s.errnos[2].count == 1,
	      "failed requests by errorno, most first, 0 for not recorded");
	CHECK_U64(r, "failed", 4, s.failed);
	CHECK_U64(r, "allocations that migrated", 1, s.allocs_migrating);
	/* 0, 0, 0, 0, 0, 12: nearest rank 3 of 6 */
	CHECK_U64(r, "pages migrated per allocation p50", 0, s.migrated_per_alloc_p50);
	CHECK_U64(r, "pages migrated per allocation max", 12, s.migrated_per_alloc_max);
	CHECK_U64(r, "pages migrated (every contig_range call)", 17, s.pages_migrated);
	trace_summary_free(&s);
	trace_recs_free(&rs);
}

static void test_trace_all(struct results *r, const char *fixtures)
{
	test_trace_summary(r);
	test_trace_summary_stock(r);
	test_trace_stats_lost(r);
	test_trace_stats_unread(r);
	test_trace_drain_capped(r);
	test_trace_drain_partial_page(r);
	test_trace_fixture_records(r, fixtures, "qemu-arm", 4);
	test_trace_fixture_records(r, fixtures, "qemu-arm64", 8);
	test_trace_damaged_pages(r, fixtures, "qemu-arm", 4);
	test_trace_damaged_pages(r, fixtures, "qemu-arm64", 8);
	test_trace_dat_repair(r, fixtures, "qemu-arm", 4);
	test_trace_dat_repair(r, fixtures, "qemu-arm64", 8);
}
