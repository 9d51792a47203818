// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "failures.h"

static const char patch_feature[] =
	"the cmadebug CMA failure patches (kernel-patches/, CONFIG_CMA_DEBUGFS)";

/* One key=value of a record. */
static int record_field(struct cma_failure_rec *r, const char *key,
			size_t klen, const char *val, size_t vlen)
{
	bool none = vlen == 4 && !memcmp(val, "none", 4);

	if (key_is(key, klen, "time_ns"))
		return parse_u64(val, vlen, &r->time_ns);
	if (key_is(key, klen, "attempt"))
		return parse_u64(val, vlen, &r->attempt);
	if (key_is(key, klen, "start_pfn")) {
		r->has_start = !none;
		return none ? 0 : parse_hex(val, vlen, &r->start_pfn);
	}
	if (key_is(key, klen, "count"))
		return parse_u64(val, vlen, &r->count);
	if (key_is(key, klen, "align"))
		return parse_u64(val, vlen, &r->align);
	if (key_is(key, klen, "err"))
		return parse_s64(val, vlen, &r->err);
	if (key_is(key, klen, "stage"))
		return copy_token(val, vlen, r->stage, FAIL_WORD_MAX);
	if (key_is(key, klen, "pfn")) {
		r->has_pfn = !none;
		return none ? 0 : parse_hex(val, vlen, &r->pfn);
	}
	if (key_is(key, klen, "flags"))
		return parse_hex(val, vlen, &r->flags);
	if (key_is(key, klen, "refcount"))
		return parse_s64(val, vlen, &r->refcount);
	if (key_is(key, klen, "mapcount"))
		return parse_s64(val, vlen, &r->mapcount);
	if (key_is(key, klen, "migratetype"))
		return copy_token(val, vlen, r->migratetype, FAIL_WORD_MAX);
	if (key_is(key, klen, "kind"))
		return copy_token(val, vlen, r->kind, FAIL_WORD_MAX);
	return 0;	/* a field a newer kernel added */
}

/*
 * The keys every record of 0004 has and cmadebug shows: a line without
 * them is not a failure record (it was shown as an err=0 failure).
 */
struct record_line {
	struct cma_failure_rec *rec;
	unsigned int seen;	/* REC_* bits */
};

enum { REC_TIME = 1, REC_ERR = 2, REC_STAGE = 4, REC_REQUIRED = 7 };

static int record_kv(void *ctx, const char *key, size_t klen, const char *val,
		     size_t vlen)
{
	struct record_line *l = ctx;

	if (key_is(key, klen, "time_ns"))
		l->seen |= REC_TIME;
	else if (key_is(key, klen, "err"))
		l->seen |= REC_ERR;
	else if (key_is(key, klen, "stage"))
		l->seen |= REC_STAGE;
	return record_field(l->rec, key, klen, val, vlen);
}

int failures_parse(const char *buf, size_t len, struct cma_failure_log *log)
{
	const char *p = buf, *end = buf + len;
	uint64_t records = 0, dropped = 0;
	unsigned int cap = 0;
	bool done = false;
	int ret = 0;

	memset(log, 0, sizeof(*log));
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		struct record_line line;
		size_t n;

		if (!eol)
			eol = end;
		n = (size_t)(eol - p);
		if (done && n) {
			ret = -EINVAL;	/* something after the records line */
			goto fail;
		}
		if (n >= 8 && !memcmp(p, "records=", 8)) {
			ret = records_dropped_parse(p, n, &records, &dropped);
			if (ret)
				goto fail;
			done = true;
		} else if (n) {
			ret = grow_array((void **)&log->rec, log->nr, &cap,
					 sizeof(*log->rec));
			if (ret)
				goto fail;
			line.rec = &log->rec[log->nr];
			line.seen = 0;
			memset(line.rec, 0, sizeof(*line.rec));
			ret = for_each_kv(p, n, record_kv, &line);
			if (!ret && line.seen != REC_REQUIRED)
				ret = -EINVAL;
			if (ret)
				goto fail;
			log->nr++;
		}
		p = eol + 1;
	}
	if (!done || records != log->nr) {
		ret = -EINVAL;
		goto fail;
	}
	log->dropped = dropped;
	return 0;
fail:
	failures_free(log);
	return ret;
}

void failures_free(struct cma_failure_log *log)
{
	free(log->rec);
	memset(log, 0, sizeof(*log));
}

int stats_parse(const char *buf, size_t len, struct cma_stats *stats)
{
	const char *p = buf, *end = buf + len, *line, *eq;
	size_t n;

	memset(stats, 0, sizeof(*stats));
	while (next_line(&p, end, &line, &n)) {
		size_t nlen;

		if (!n)
			continue;
		/* "name=value": a name without blanks, a decimal without them. */
		eq = memchr(line, '=', n);
		nlen = eq ? (size_t)(eq - line) : 0;
		if (!nlen || nlen >= sizeof(stats->stat[0].name) ||
		    stats->nr == STATS_MAX || memchr(line, ' ', n) ||
		    memchr(line, '\t', n) || memchr(line, '\0', nlen) ||
		    parse_u64(eq + 1, n - nlen - 1, &stats->stat[stats->nr].value))
			return -EINVAL;
		memcpy(stats->stat[stats->nr].name, line, nlen);
		stats->stat[stats->nr].name[nlen] = '\0';
		stats->nr++;
	}
	return 0;
}

bool stats_get(const struct cma_stats *stats, const char *name, uint64_t *v)
{
	for (unsigned int i = 0; i < stats->nr; i++) {
		if (!strcmp(stats->stat[i].name, name)) {
			*v = stats->stat[i].value;
			return true;
		}
	}
	return false;
}

/* Reads cma/<area>/<file> and hands it to PARSE; errors name the file. */
static int load_area_file(const struct sysroot *sr, const char *area,
			  const char *file, const char *malformed,
			  int (*parse)(const char *buf, size_t len, void *out),
			  void *out)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "cma/%s/%s", area, file);
	return sysroot_load(sr, FS_DEBUGFS, rel, patch_feature, malformed,
			    parse, out);
}

static int parse_failures(const char *buf, size_t len, void *out)
{
	return failures_parse(buf, len, out);
}

static int parse_stats(const char *buf, size_t len, void *out)
{
	return stats_parse(buf, len, out);
}

int failures_load(const struct sysroot *sr, const char *area,
		  struct cma_failure_log *log)
{
	return load_area_file(sr, area, "failures",
			      "malformed or cut short (no matching records= line)",
			      parse_failures, log);
}

int stats_load(const struct sysroot *sr, const char *area,
	       struct cma_stats *stats)
{
	return load_area_file(sr, area, "stats", "malformed", parse_stats,
			      stats);
}
