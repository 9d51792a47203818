// SPDX-License-Identifier: GPL-2.0
/* The trace model: records, the converter, the page parser, the summary. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "trace.h"
#include "util.h"

struct trace_rec *trace_recs_add(struct trace_recs *r)
{
	void *v = r->rec;

	if (grow_array(&v, r->nr, &r->cap, sizeof(*r->rec)))
		return NULL;
	r->rec = v;
	memset(&r->rec[r->nr], 0, sizeof(*r->rec));
	return &r->rec[r->nr++];
}

/* Merge sort: stable, so one CPU's records keep their order on equal ts. */
static void merge_sort(struct trace_rec *a, struct trace_rec *tmp, size_t n)
{
	size_t mid = n / 2, i = 0, j = mid, k = 0;

	if (n < 2)
		return;
	merge_sort(a, tmp, mid);
	merge_sort(a + mid, tmp, n - mid);
	while (i < mid && j < n)
		tmp[k++] = a[j].ts < a[i].ts ? a[j++] : a[i++];
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof(*a));
}

void trace_recs_sort(struct trace_recs *r)
{
	struct trace_rec *tmp;
	bool sorted = true;

	for (unsigned int i = 1; i < r->nr && sorted; i++)
		sorted = r->rec[i - 1].ts <= r->rec[i].ts;
	if (sorted)
		return;
	tmp = malloc(r->nr * sizeof(*tmp));
	if (tmp) {
		merge_sort(r->rec, tmp, r->nr);
		free(tmp);
		return;
	}
	/* Out of memory: an insertion sort needs none (and is stable). */
	for (unsigned int i = 1; i < r->nr; i++) {
		struct trace_rec x = r->rec[i];
		unsigned int j = i;

		for (; j > 0 && r->rec[j - 1].ts > x.ts; j--)
			r->rec[j] = r->rec[j - 1];
		r->rec[j] = x;
	}
}

void trace_recs_free(struct trace_recs *r)
{
	free(r->rec);
	memset(r, 0, sizeof(*r));
}

/* The converter. */
static const struct {
	const char *system, *name;
} kind_event[] = {
	[TR_ALLOC_START] = { "cma", "cma_alloc_start" },
	[TR_ALLOC_FINISH] = { "cma", "cma_alloc_finish" },
	[TR_BUSY_RETRY] = { "cma", "cma_alloc_busy_retry" },
	[TR_RELEASE] = { "cma", "cma_release" },
	[TR_ALLOC_FAIL] = { "cma", "cma_alloc_fail" },
	[TR_MIGRATE] = { "migrate", "mm_migrate_pages" },
	[TR_SPLIT] = { "linear_map", "linear_map_split" },
	[TR_ATTR_CHANGE] = { "linear_map", "linear_map_attr_change" },
};

const char *trace_symbol_name(const struct tep_event *ev, const char *field,
			      long long value)
{
	for (struct tep_print_arg *a = ev ? ev->print_fmt.args : NULL; a;
	     a = a->next) {
		struct tep_print_arg *f;

		if (a->type != TEP_PRINT_SYMBOL)
			continue;
		f = a->symbol.field;
		if (!f || f->type != TEP_PRINT_FIELD || !f->field.name ||
		    strcmp(f->field.name, field))
			continue;
		for (struct tep_print_flag_sym *s = a->symbol.symbols; s;
		     s = s->next) {
			char *end;
			long long v;

			if (!s->value || !s->str)
				continue;
			errno = 0;
			v = strtoll(s->value, &end, 0);
			if (!errno && end != s->value && !*end && v == value)
				return s->str;
		}
	}
	return NULL;
}

int trace_symbol_value(const struct tep_event *ev, const char *field,
		       const char *name)
{
	for (int v = 0; v < 64; v++) {
		const char *s = trace_symbol_name(ev, field, v);

		if (s && !strcmp(s, name))
			return v;
	}
	return -1;
}

int trace_conv_init(struct trace_conv *c, struct tep_handle *tep)
{
	bool any = false;

	memset(c, 0, sizeof(*c));
	c->tep = tep;
	for (unsigned int k = 0; k < ARRAY_SIZE(kind_event); k++) {
		c->ev[k] = tep_find_event_by_name(tep, kind_event[k].system,
						  kind_event[k].name);
		any |= c->ev[k] != NULL;
	}
	c->contig_range = trace_symbol_value(c->ev[TR_MIGRATE], "reason",
					     "contig_range");
	c->finish_errorno = c->ev[TR_ALLOC_FINISH] &&
			    tep_find_field(c->ev[TR_ALLOC_FINISH], "errorno");
	return any ? 0 : -ENOENT;
}

uint32_t trace_conv_formats(const struct trace_conv *c)
{
	uint32_t formats = 0;

	for (unsigned int k = 0; k < ARRAY_SIZE(c->ev); k++)
		if (c->ev[k])
			formats |= 1u << k;
	return formats;
}

/* Field readers, bounded by the record's size (a page may be corrupt). */
struct field_reader {
	const struct tep_event *ev;
	const struct tep_record *rec;
	int err;		/* sticky -EINVAL */
};

static struct tep_format_field *field_of(struct field_reader *fr,
					 const char *name)
{
	struct tep_format_field *f =
		tep_find_any_field((struct tep_event *)fr->ev, name);

	if (!f || f->offset < 0 || f->size <= 0 || f->size > 8 ||
	    f->offset + f->size > fr->rec->size) {
		fr->err = -EINVAL;
		return NULL;
	}
	return f;
}

static uint64_t get_u64(struct field_reader *fr, const char *name)
{
	struct tep_format_field *f = field_of(fr, name);
	unsigned long long v = 0;

	if (!f || tep_read_number_field(f, fr->rec->data, &v)) {
		fr->err = -EINVAL;
		return 0;
	}
	return v;
}

static int32_t get_s32(struct field_reader *fr, const char *name)
{
	return (int32_t)(uint32_t)get_u64(fr, name);
}

/* ULONG_MAX of the traced kernel (the field's size): "none". */
static bool get_ulong(struct field_reader *fr, const char *name,
		      uint64_t *v)
{
	struct tep_format_field *f = tep_find_field((struct tep_event *)fr->ev,
						    name);

	*v = get_u64(fr, name);
	if (!f || fr->err)
		return false;
	return f->size == 4 ? *v != UINT32_MAX : *v != UINT64_MAX;
}

static void get_str(struct field_reader *fr, const char *name, char *dst,
		    size_t size)
{
	struct tep_format_field *f = field_of(fr, name);
	unsigned long long loc;
	size_t off, len, n = 0;
	const char *data = fr->rec->data;

	dst[0] = '\0';
	if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC) ||
	    tep_read_number_field(f, data, &loc)) {
		fr->err = -EINVAL;
		return;
	}
	off = loc & 0xffff;
	len = (loc >> 16) & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (size_t)f->offset + (size_t)f->size;
	if (off + len > (size_t)fr->rec->size) {
		fr->err = -EINVAL;
		return;
	}
	while (n < len && n + 1 < size && data[off + n]) {
		unsigned char ch = (unsigned char)data[off + n];

		dst[n++] = ch < 0x20 || ch > 0x7e ? '?' : (char)ch;
	}
	dst[n] = '\0';
}

/*
 * An enum field (an int the print format names with __print_symbolic()),
 * as its name; a value the format does not name as its number.
 */
static void get_symbol(struct field_reader *fr, const char *name, char *dst,
		       size_t size)
{
	int32_t v = get_s32(fr, name);
	const char *s = trace_symbol_name(fr->ev, name, v);

	if (s)
		snprintf(dst, size, "%s", s);
	else
		snprintf(dst, size, "%d", (int)v);
}

int trace_conv_record(const struct trace_conv *c, struct tep_record *rec,
		      struct trace_rec *out)
{
	struct field_reader fr = { .rec = rec };
	struct tep_event *ev;
	unsigned int k;

	/* The common header (type, flags, preempt count, pid) is 8 bytes. */
	if (!rec->data || rec->size < 8)
		return -EINVAL;
	ev = tep_find_event_by_record(c->tep, rec);
	if (!ev)
		return 0;
	for (k = 0; k < ARRAY_SIZE(kind_event); k++)
		if (c->ev[k] == ev)
			break;
	if (k == ARRAY_SIZE(kind_event))
		return 0;
	fr.ev = ev;
	memset(out, 0, sizeof(*out));
	out->kind = (enum trace_kind)k;
	out->ts = rec->ts;
	out->cpu = rec->cpu;
	out->pid = get_s32(&fr, "common_pid");
	switch (out->kind) {
	case TR_ALLOC_START: {
		struct trace_alloc_start *s = &out->u.start;

		get_str(&fr, "name", s->area, sizeof(s->area));
		s->count = get_u64(&fr, "count");
		s->align = (uint32_t)get_u64(&fr, "align");
		break;
	}
	case TR_ALLOC_FINISH: {
		struct trace_alloc_finish *f = &out->u.finish;

		get_str(&fr, "name", f->area, sizeof(f->area));
		f->pfn = get_u64(&fr, "pfn");
		f->count = get_u64(&fr, "count");
		f->align = (uint32_t)get_u64(&fr, "align");
		/*
		 * Before Linux 6.3 the event has no errorno: a failure is a
		 * NULL page, and its errno is not known.
		 */
		f->err_known = c->finish_errorno;
		if (f->err_known) {
			f->err = get_s32(&fr, "errorno");
			f->failed = f->err != 0;
		} else {
			f->failed = !get_u64(&fr, "page");
		}
		break;
	}
	case TR_BUSY_RETRY:
		get_str(&fr, "name", out->u.retry.area, sizeof(out->u.retry.area));
		out->u.retry.pfn = get_u64(&fr, "pfn");
		out->u.retry.count = get_u64(&fr, "count");
		break;
	case TR_RELEASE:
		get_str(&fr, "name", out->u.release.area,
			sizeof(out->u.release.area));
		out->u.release.pfn = get_u64(&fr, "pfn");
		out->u.release.count = get_u64(&fr, "count");
		break;
	case TR_ALLOC_FAIL: {
		struct trace_alloc_fail *f = &out->u.fail;

		get_str(&fr, "name", f->area, sizeof(f->area));
		f->has_start = get_ulong(&fr, "start_pfn", &f->start_pfn);
		f->count = get_u64(&fr, "count");
		f->attempt = (uint32_t)get_u64(&fr, "attempt");
		f->err = get_s32(&fr, "errorno");
		get_symbol(&fr, "stage", f->stage, sizeof(f->stage));
		f->has_pfn = get_ulong(&fr, "pfn", &f->pfn);
		f->flags = get_u64(&fr, "flags");
		f->refcount = get_s32(&fr, "refcount");
		f->mapcount = get_s32(&fr, "mapcount");
		get_symbol(&fr, "migratetype", f->migratetype,
			   sizeof(f->migratetype));
		get_symbol(&fr, "kind", f->kind, sizeof(f->kind));
		break;
	}
	case TR_MIGRATE: {
		struct trace_migrate *m = &out->u.migrate;

		m->succeeded = get_u64(&fr, "succeeded");
		m->failed = get_u64(&fr, "failed");
		m->reason = get_s32(&fr, "reason");
		m->contig_range = c->contig_range >= 0 &&
				  m->reason == c->contig_range;
		break;
	}
	case TR_SPLIT: {
		struct trace_split *s = &out->u.split;

		s->pfn = get_u64(&fr, "pfn");
		s->size = get_u64(&fr, "size");
		s->count = get_u64(&fr, "count");
		s->from_shift = (uint32_t)get_u64(&fr, "from_shift");
		s->to_shift = (uint32_t)get_u64(&fr, "to_shift");
		get_symbol(&fr, "cause", s->cause, sizeof(s->cause));
		break;
	}
	case TR_ATTR_CHANGE: {
		struct trace_attr_change *a = &out->u.attr;

		a->pfn = get_u64(&fr, "pfn");
		a->nr_pages = get_u64(&fr, "nr_pages");
		a->set = get_u64(&fr, "set");
		a->clear = get_u64(&fr, "clear");
		get_symbol(&fr, "memtype", a->memtype, sizeof(a->memtype));
		a->ret = get_s32(&fr, "ret");
		get_symbol(&fr, "cause", a->cause, sizeof(a->cause));
		break;
	}
	}
	return fr.err ? fr.err : 1;
}

/*
 * The page parser.  A sub-buffer starts with a u64 timestamp and a "commit"
 * word of the kernel's long size: the bytes of event data, with the
 * RB_MISSED_EVENTS (bit 31) and RB_MISSED_STORED (bit 30) flags; with the
 * latter the count of lost events follows the data.  kbuffer trusts the
 * page: a record whose length does not move it forward makes
 * kbuffer_next_event() return the same record for ever, and a padding
 * record that points back at itself loops inside kbuffer (also in
 * kbuffer_load_subbuffer()).  So the commit is checked and every record
 * header walked here first, and kbuffer is given only the part of the page
 * before the first bad record.
 */
#define RB_MISSED_EVENTS	(1ULL << 31)
#define RB_MISSED_STORED	(1ULL << 30)
#define RB_COMMIT_MASK		((1ULL << 27) - 1)
/* An absolute time stamp lacks the top 5 bits; they come from the page's. */
#define RB_TS_MSB		(0xf8ULL << 56)

uint64_t trace_host_word(const unsigned char *p, int size)
{
	uint32_t v32;
	uint64_t v64;

	if (size == 4) {
		memcpy(&v32, p, 4);
		return v32;
	}
	memcpy(&v64, p, 8);
	return v64;
}

size_t trace_page_commit(const unsigned char *page, int long_size)
{
	return (size_t)(trace_host_word(page + 8, long_size) & RB_COMMIT_MASK);
}

void trace_host_word_set(unsigned char *p, int size, uint64_t v)
{
	uint32_t v32 = (uint32_t)v;

	if (size == 4)
		memcpy(p, &v32, 4);
	else
		memcpy(p, &v, 8);
}

static bool host_bigendian(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 0;
}

/*
 * Walks the record headers of SUB (HDR bytes of page header, data up to
 * END) and returns where the readable part ends: END; the offset of a
 * padding record with no time delta (the kernel's "rest of the page is
 * unused", whose length word is not set); or, with *WHY saying which, the
 * offset of the first record that does not advance, runs past the commit,
 * or whose absolute time stamp is older than the time before it.
 */
static size_t page_readable_end(struct kbuffer *kbuf, unsigned char *sub,
				size_t hdr, size_t end, const char **why)
{
	struct kbuffer_raw_info info = { .next = sub + hdr };
	uint64_t ts;

	memcpy(&ts, sub, 8);
	while ((unsigned char *)info.next < sub + end) {
		unsigned char *at = info.next;
		size_t off = (size_t)(at - sub);

		if (!kbuffer_raw_get(kbuf, sub, &info))
			break;
		if (info.type == KBUFFER_TYPE_PADDING && !info.delta)
			return off;
		if (info.length < 0 || (unsigned char *)info.next <= at) {
			*why = "a record's length does not move past it";
			return off;
		}
		/* A discarded event is padding with a length: skipped. */
		if ((size_t)((unsigned char *)info.next - sub) > end) {
			*why = "a record runs past the page's commit";
			return off;
		}
		if (info.type == KBUFFER_TYPE_TIME_STAMP) {
			uint64_t abs = info.delta | (ts & RB_TS_MSB);

			if (abs < ts) {
				*why = "an absolute time stamp goes backwards";
				return off;
			}
			ts = abs;
		} else {
			ts += info.delta;
		}
	}
	return end;
}

/*
 * A page made safe for kbuffer: a padded copy whose commit ends before the
 * first bad record, and a kbuffer for it.
 */
struct page_view {
	unsigned char *copy;
	struct kbuffer *kbuf;
	size_t end;		/* the readable commit's end, from the page start */
	uint64_t word;		/* the page's commit word as it came */
	const char *why;	/* NULL, or why reading stops at END */
};

static void page_view_free(struct page_view *v)
{
	kbuffer_free(v->kbuf);
	free(v->copy);
}

/* 0, -EINVAL (a bad header: V->why says why, END is 0) or -ENOMEM. */
static int page_view_open(struct page_view *v, const void *page, size_t size,
			  int long_size)
{
	size_t hdr = 8 + (size_t)long_size, readable;

	memset(v, 0, sizeof(*v));
	if ((long_size != 4 && long_size != 8) || size < hdr) {
		v->why = "shorter than its header";
		return -EINVAL;
	}
	v->word = trace_host_word((const unsigned char *)page + 8, long_size);
	if ((size_t)(v->word & RB_COMMIT_MASK) > size - hdr) {
		v->why = "its commit is past the page's end";
		return -EINVAL;
	}
	v->end = hdr + (size_t)(v->word & RB_COMMIT_MASK);
	/* kbuffer may read an event header past the commit: pad the copy. */
	v->copy = calloc(1, size + 16);
	v->kbuf = kbuffer_alloc(long_size == 8 ? KBUFFER_LSIZE_8 :
						 KBUFFER_LSIZE_4,
				host_bigendian() ? KBUFFER_ENDIAN_BIG :
						   KBUFFER_ENDIAN_LITTLE);
	if (!v->copy || !v->kbuf) {
		page_view_free(v);
		return -ENOMEM;
	}
	memcpy(v->copy, page, size);
	readable = page_readable_end(v->kbuf, v->copy, hdr, v->end, &v->why);
	if (readable < v->end) {
		/* kbuffer reads only the records before the damage. */
		trace_host_word_set(v->copy + 8, long_size, readable - hdr);
		v->end = readable;
	}
	return 0;
}

static void page_damage(struct trace_page_damage *damage, size_t offset,
			const char *why)
{
	if (damage) {
		damage->offset = offset;
		damage->why = why;
	}
}

int trace_page_check(const void *page, size_t size, int long_size,
		     struct trace_page_damage *damage)
{
	struct page_view v;
	int ret = page_view_open(&v, page, size, long_size);

	page_damage(damage, 0, NULL);
	if (ret == -ENOMEM)
		return ret;
	if (v.why) {
		page_damage(damage, v.end, v.why);
		ret = -EINVAL;
	}
	page_view_free(&v);
	return ret;
}

int trace_page_parse(const struct trace_conv *c, const void *page,
		     size_t size, int long_size, int cpu, struct trace_recs *r,
		     struct trace_page_damage *damage)
{
	struct page_view v;
	const char *why;
	size_t at_bad;
	unsigned long long ts;
	void *data;
	int ret = page_view_open(&v, page, size, long_size);

	page_damage(damage, 0, NULL);
	if (ret) {
		if (ret == -EINVAL)
			page_damage(damage, 0, v.why);
		return ret;
	}
	why = v.why;
	at_bad = v.end;
	if (v.word & RB_MISSED_EVENTS) {
		size_t commit_end = 8 + (size_t)long_size +
				    (size_t)(v.word & RB_COMMIT_MASK);

		if ((v.word & RB_MISSED_STORED) &&
		    commit_end + (size_t)long_size <= size)
			r->lost += trace_host_word((const unsigned char *)page +
					     commit_end, long_size);
		else
			r->lost_unknown = true;
	}
	if (kbuffer_load_subbuffer(v.kbuf, v.copy)) {
		why = "kbuffer cannot load it";
		at_bad = 0;
		ret = -EINVAL;
		goto out;
	}
	for (data = kbuffer_read_event(v.kbuf, &ts); data;
	     data = kbuffer_next_event(v.kbuf, &ts)) {
		struct tep_record rec = { .ts = ts, .cpu = cpu, .data = data };
		size_t at = (size_t)((unsigned char *)data - v.copy);
		int len = kbuffer_event_size(v.kbuf);
		struct trace_rec *out;
		int n;

		if (len <= 0 || at > v.end || (size_t)len > v.end - at) {
			if (!why || at < at_bad) {
				why = "a record is empty or runs past the page's commit";
				at_bad = at;
			}
			break;
		}
		rec.size = len;
		out = trace_recs_add(r);
		if (!out) {
			ret = -ENOMEM;
			goto out;
		}
		n = trace_conv_record(c, &rec, out);
		if (n <= 0)
			r->nr--;	/* not ours, or malformed: dropped */
		if (n < 0 && !why) {
			why = "a record's fields do not fit its event's format";
			at_bad = at;
		}
	}
	if (why) {
		page_damage(damage, at_bad, why);
		ret = -EINVAL;
	}
out:
	page_view_free(&v);
	return ret;
}

/* The summary. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static unsigned int log2_bucket(uint64_t ns)
{
	unsigned int b = 0;

	while (ns > 1 && b + 1 < TRACE_HIST_BUCKETS) {
		ns >>= 1;
		b++;
	}
	return b;
}

/* Nearest rank: the smallest value with at least P % of them at or below. */
static uint64_t percentile(const uint64_t *sorted, size_t n, unsigned int p)
{
	size_t rank = (n * p + 99) / 100;

	return sorted[rank ? rank - 1 : 0];
}

void trace_latency_of(uint64_t *ns, size_t n, struct trace_latency *lat)
{
	memset(lat, 0, sizeof(*lat));
	if (!n)
		return;
	qsort(ns, n, sizeof(*ns), cmp_u64);
	lat->count = n;
	lat->min = ns[0];
	lat->max = ns[n - 1];
	lat->p50 = percentile(ns, n, 50);
	lat->p90 = percentile(ns, n, 90);
	lat->p99 = percentile(ns, n, 99);
	for (size_t i = 0; i < n; i++)
		lat->hist[log2_bucket(ns[i])]++;
}

/* Working state of trace_summarize(). */
struct pending {
	int32_t pid;
	unsigned int area;
	uint64_t ts;
	uint64_t migrated;	/* pages, by the task's contig_range migrations */
};

/* A growing array of values: latencies (ns), pages. */
struct value_list {
	uint64_t *v;
	unsigned int nr, cap;
};

struct sum_work {
	struct trace_summary *s;
	unsigned int areas_cap, stages_cap, split_cap, attr_cap;
	struct pending *pend;
	unsigned int nr_pend, pend_cap;
	struct value_list *lat;	/* per area, then one for all */
	struct value_list migrated;	/* pages, one per finished allocation */
	unsigned int errnos_cap;
	struct trace_pfn_sum *pfns;	/* every blamed pfn */
	unsigned int nr_pfns, pfns_cap;
};

static int grow(void *v, unsigned int nr, unsigned int *cap, size_t elem)
{
	return grow_array((void **)v, nr, cap, elem);
}

static int area_index(struct sum_work *w, const char *name)
{
	struct trace_summary *s = w->s;
	unsigned int old_cap = w->areas_cap;

	for (unsigned int i = 0; i < s->nr_areas; i++)
		if (!strcmp(s->areas[i].name, name))
			return (int)i;
	if (grow(&s->areas, s->nr_areas, &w->areas_cap, sizeof(*s->areas)))
		return -ENOMEM;
	if (w->areas_cap != old_cap) {
		struct value_list *l = realloc(w->lat, w->areas_cap *
						 sizeof(*l));

		if (!l)
			return -ENOMEM;
		w->lat = l;
	}
	memset(&s->areas[s->nr_areas], 0, sizeof(*s->areas));
	memset(&w->lat[s->nr_areas], 0, sizeof(*w->lat));
	snprintf(s->areas[s->nr_areas].name, TRACE_AREA_MAX, "%s", name);
	return (int)s->nr_areas++;
}

static int value_add(struct value_list *l, uint64_t v)
{
	if (grow(&l->v, l->nr, &l->cap, sizeof(*l->v)))
		return -ENOMEM;
	l->v[l->nr++] = v;
	return 0;
}

static int on_start(struct sum_work *w, const struct trace_rec *rec)
{
	int a = area_index(w, rec->u.start.area);

	if (a < 0)
		return a;
	w->s->areas[a].requests++;
	w->s->areas[a].pages += rec->u.start.count;
	w->s->requests++;
	w->s->pages += rec->u.start.count;
	for (unsigned int i = 0; i < w->nr_pend; i++) {
		if (w->pend[i].pid == rec->pid && w->pend[i].area == (unsigned int)a) {
			w->s->unfinished++;	/* a start lost its finish */
			w->pend[i].ts = rec->ts;
			w->pend[i].migrated = 0;
			return 0;
		}
	}
	if (grow(&w->pend, w->nr_pend, &w->pend_cap, sizeof(*w->pend)))
		return -ENOMEM;
	w->pend[w->nr_pend++] = (struct pending){ rec->pid, (unsigned int)a,
						  rec->ts, 0 };
	return 0;
}

static int errno_add(struct sum_work *w, int32_t err)
{
	struct trace_summary *s = w->s;
	unsigned int i;

	for (i = 0; i < s->nr_errnos; i++)
		if (s->errnos[i].err == err)
			break;
	if (i == s->nr_errnos) {
		if (grow(&s->errnos, s->nr_errnos, &w->errnos_cap,
			 sizeof(*s->errnos)))
			return -ENOMEM;
		s->errnos[s->nr_errnos++] = (struct trace_errno_sum){ err, 0 };
	}
	s->errnos[i].count++;
	return 0;
}

/* A contig_range migration inside an allocation its task has open. */
static void on_migrate_in_alloc(struct sum_work *w, const struct trace_rec *rec)
{
	for (unsigned int i = 0; i < w->nr_pend; i++) {
		if (w->pend[i].pid == rec->pid) {
			w->pend[i].migrated += rec->u.migrate.succeeded;
			return;
		}
	}
}

static int on_finish(struct sum_work *w, const struct trace_rec *rec)
{
	const struct trace_alloc_finish *f = &rec->u.finish;
	int a = area_index(w, f->area);
	struct trace_area_sum *as;

	if (a < 0)
		return a;
	as = &w->s->areas[a];
	if (f->failed) {
		as->failed++;
		w->s->failed++;
		if (errno_add(w, f->err_known ? f->err : 0))
			return -ENOMEM;
	} else {
		as->succeeded++;
		as->pages_allocated += f->count;
		w->s->succeeded++;
	}
	for (unsigned int i = 0; i < w->nr_pend; i++) {
		uint64_t ns;

		if (w->pend[i].pid != rec->pid || w->pend[i].area != (unsigned int)a)
			continue;
		ns = rec->ts >= w->pend[i].ts ? rec->ts - w->pend[i].ts : 0;
		if (value_add(&w->migrated, w->pend[i].migrated))
			return -ENOMEM;
		w->pend[i] = w->pend[--w->nr_pend];
		if (value_add(&w->lat[a], ns))
			return -ENOMEM;
		return 0;
	}
	w->s->unmatched++;
	return 0;
}

static int on_fail(struct sum_work *w, const struct trace_rec *rec)
{
	const struct trace_alloc_fail *f = &rec->u.fail;
	struct trace_summary *s = w->s;
	int a = area_index(w, f->area);
	unsigned int i;

	if (a < 0)
		return a;
	s->areas[a].fail_events++;
	s->fail_events++;
	for (i = 0; i < s->nr_stages; i++)
		if (!strcmp(s->stages[i].stage, f->stage))
			break;
	if (i == s->nr_stages) {
		if (grow(&s->stages, s->nr_stages, &w->stages_cap,
			 sizeof(*s->stages)))
			return -ENOMEM;
		memset(&s->stages[i], 0, sizeof(s->stages[i]));
		snprintf(s->stages[i].stage, TRACE_WORD_MAX, "%s", f->stage);
		s->nr_stages++;
	}
	s->stages[i].count++;
	if (!f->has_pfn) {
		s->fails_without_pfn++;
		return 0;
	}
	for (i = 0; i < w->nr_pfns; i++)
		if (w->pfns[i].pfn == f->pfn && !strcmp(w->pfns[i].area, f->area))
			break;
	if (i == w->nr_pfns) {
		if (grow(&w->pfns, w->nr_pfns, &w->pfns_cap, sizeof(*w->pfns)))
			return -ENOMEM;
		memset(&w->pfns[i], 0, sizeof(w->pfns[i]));
		snprintf(w->pfns[i].area, TRACE_AREA_MAX, "%s", f->area);
		w->pfns[i].pfn = f->pfn;
		w->nr_pfns++;
	}
	w->pfns[i].count++;
	snprintf(w->pfns[i].stage, TRACE_WORD_MAX, "%s", f->stage);
	snprintf(w->pfns[i].kind, TRACE_WORD_MAX, "%s", f->kind);
	return 0;
}

static struct trace_cause_sum *cause_of(struct trace_cause_sum **v,
					unsigned int *nr, unsigned int *cap,
					const char *cause)
{
	for (unsigned int i = 0; i < *nr; i++)
		if (!strcmp((*v)[i].cause, cause))
			return &(*v)[i];
	if (grow(v, *nr, cap, sizeof(**v)))
		return NULL;
	memset(&(*v)[*nr], 0, sizeof(**v));
	snprintf((*v)[*nr].cause, TRACE_WORD_MAX, "%s", cause);
	return &(*v)[(*nr)++];
}

static int on_record(struct sum_work *w, const struct trace_rec *rec)
{
	struct trace_summary *s = w->s;
	struct trace_cause_sum *c;
	int a;

	switch (rec->kind) {
	case TR_ALLOC_START:
		return on_start(w, rec);
	case TR_ALLOC_FINISH:
		return on_finish(w, rec);
	case TR_ALLOC_FAIL:
		return on_fail(w, rec);
	case TR_BUSY_RETRY:
		a = area_index(w, rec->u.retry.area);
		if (a < 0)
			return a;
		s->areas[a].busy_retries++;
		s->busy_retries++;
		return 0;
	case TR_RELEASE:
		a = area_index(w, rec->u.release.area);
		if (a < 0)
			return a;
		s->areas[a].releases++;
		s->areas[a].pages_released += rec->u.release.count;
		return 0;
	case TR_MIGRATE:
		if (!rec->u.migrate.contig_range) {
			s->migrate_other_calls++;
			return 0;
		}
		s->migrate_calls++;
		s->pages_migrated += rec->u.migrate.succeeded;
		s->pages_not_migrated += rec->u.migrate.failed;
		on_migrate_in_alloc(w, rec);
		return 0;
	case TR_SPLIT:
		c = cause_of(&s->split_causes, &s->nr_split_causes,
			     &w->split_cap, rec->u.split.cause);
		if (!c)
			return -ENOMEM;
		c->count++;
		c->entries += rec->u.split.count;
		c->bytes += rec->u.split.size;
		s->splits++;
		s->split_entries += rec->u.split.count;
		s->split_bytes += rec->u.split.size;
		return 0;
	case TR_ATTR_CHANGE:
		c = cause_of(&s->attr_causes, &s->nr_attr_causes, &w->attr_cap,
			     rec->u.attr.cause);
		if (!c)
			return -ENOMEM;
		c->count++;
		c->pages += rec->u.attr.nr_pages;
		s->attr_changes++;
		s->attr_pages += rec->u.attr.nr_pages;
		if (rec->u.attr.ret) {
			c->failures++;
			s->attr_failures++;
		}
		return 0;
	}
	return 0;
}

static int cmp_errno(const void *a, const void *b)
{
	const struct trace_errno_sum *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->err < y->err) - (x->err > y->err);
}

static int cmp_stage(const void *a, const void *b)
{
	const struct trace_stage_sum *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->stage, y->stage);
}

static int cmp_pfn(const void *a, const void *b)
{
	const struct trace_pfn_sum *x = a, *y = b;
	int c;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	c = strcmp(x->area, y->area);
	if (c)
		return c;
	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

int trace_summarize(const struct trace_recs *r, struct trace_summary *s)
{
	struct sum_work w = { .s = s };
	struct value_list all = { 0 };
	int ret = 0;

	memset(s, 0, sizeof(*s));
	s->records = r->nr;
	s->lost = r->lost;
	s->lost_unknown = r->lost_unknown;
	s->formats = r->formats;
	if (r->nr) {
		s->first_ts = r->rec[0].ts;
		s->last_ts = r->rec[r->nr - 1].ts;
	}
	for (unsigned int i = 0; i < r->nr && !ret; i++)
		ret = on_record(&w, &r->rec[i]);
	if (ret)
		goto out;
	s->unfinished += w.nr_pend;

	for (unsigned int a = 0; a < s->nr_areas; a++) {
		for (unsigned int i = 0; i < w.lat[a].nr; i++) {
			ret = value_add(&all, w.lat[a].v[i]);
			if (ret)
				goto out;
		}
		trace_latency_of(w.lat[a].v, w.lat[a].nr, &s->areas[a].latency);
	}
	trace_latency_of(all.v, all.nr, &s->latency);

	if (w.migrated.nr) {
		struct trace_latency m;

		trace_latency_of(w.migrated.v, w.migrated.nr, &m);
		s->migrated_per_alloc_p50 = m.p50;
		s->migrated_per_alloc_max = m.max;
		for (unsigned int i = 0; i < w.migrated.nr; i++)
			s->allocs_migrating += w.migrated.v[i] != 0;
	}
	if (s->nr_errnos)
		qsort(s->errnos, s->nr_errnos, sizeof(*s->errnos), cmp_errno);
	if (s->nr_stages)	/* qsort() wants a non-NULL array */
		qsort(s->stages, s->nr_stages, sizeof(*s->stages), cmp_stage);
	if (w.nr_pfns)
		qsort(w.pfns, w.nr_pfns, sizeof(*w.pfns), cmp_pfn);
	s->distinct_pfns = w.nr_pfns;
	s->nr_pfns = w.nr_pfns < TRACE_TOP_PFNS ? w.nr_pfns : TRACE_TOP_PFNS;
	s->pfns = w.pfns;
	w.pfns = NULL;
out:
	for (unsigned int a = 0; a < s->nr_areas; a++)
		free(w.lat[a].v);
	free(w.lat);
	free(w.pend);
	free(w.pfns);
	free(w.migrated.v);
	free(all.v);
	if (ret)
		trace_summary_free(s);
	return ret;
}

void trace_summary_free(struct trace_summary *s)
{
	free(s->areas);
	free(s->stages);
	free(s->errnos);
	free(s->pfns);
	free(s->split_causes);
	free(s->attr_causes);
	memset(s, 0, sizeof(*s));
}
