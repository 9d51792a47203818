// SPDX-License-Identifier: GPL-2.0
/*
 * The trace-cmd version 6 file, as trace-cmd.dat.v6(5) describes it: magic,
 * "tracing6", endianness, user long size, page size; header_page,
 * header_event; the ftrace formats (none), the event formats by system;
 * kallsyms and printk formats (none), saved_cmdlines; the CPU count;
 * options (CPUSTAT per CPU, TRACECLOCK); "flyrecord" with each CPU's offset
 * and size; then each CPU's sub-buffers, page aligned, as trace_pipe_raw
 * gave them.  Numbers are in the host's byte order (flagged in the header).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "trace.h"
#include "trace_dat.h"
#include "util.h"

/* trace-cmd's option numbers (trace-cmd-private.h). */
enum {
	OPTION_DONE = 0,
	OPTION_CPUSTAT = 2,
	OPTION_TRACECLOCK = 4,
};

int trace_formats_add(struct trace_formats *f, const char *system,
		      char *text, size_t len)
{
	void *v = f->f;

	if (grow_array(&v, f->nr, &f->cap, sizeof(*f->f)))
		return -ENOMEM;
	f->f = v;
	snprintf(f->f[f->nr].system, sizeof(f->f[f->nr].system), "%s", system);
	f->f[f->nr].text = text;
	f->f[f->nr].len = len;
	f->nr++;
	return 0;
}

void trace_formats_free(struct trace_formats *f)
{
	for (unsigned int i = 0; i < f->nr; i++)
		free(f->f[i].text);
	free(f->f);
	free(f->header_page);
	free(f->header_event);
	free(f->cmdlines);
	memset(f, 0, sizeof(*f));
}

struct tep_handle *trace_formats_tep(const struct trace_formats *f)
{
	struct tep_handle *tep = tep_alloc();
	unsigned int parsed = 0;

	if (!tep)
		return NULL;
	if (!f->header_page ||
	    tep_parse_header_page(tep, f->header_page,
				  (unsigned long)f->header_page_len,
				  (int)sizeof(long)))
		goto fail;
	for (unsigned int i = 0; i < f->nr; i++)
		if (tep_parse_event(tep, f->f[i].text,
				    (unsigned long)f->f[i].len,
				    f->f[i].system) == TEP_ERRNO__SUCCESS)
			parsed++;
	if (!parsed)
		goto fail;
	return tep;
fail:
	tep_free(tep);
	return NULL;
}

/* Writers that remember the first error. */
struct out {
	FILE *f;
	int err;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (!o->err && n && fwrite(p, 1, n, o->f) != n)
		o->err = -EIO;
}

static void put_u16(struct out *o, uint16_t v)
{
	put(o, &v, sizeof(v));
}

static void put_u32(struct out *o, uint32_t v)
{
	put(o, &v, sizeof(v));
}

static void put_u64(struct out *o, uint64_t v)
{
	put(o, &v, sizeof(v));
}

static void put_option(struct out *o, uint16_t id, const char *text)
{
	size_t len = strlen(text) + 1;

	put_u16(o, id);
	put_u32(o, (uint32_t)len);
	put(o, text, len);
}

static void put_formats(struct out *o, const struct trace_formats *f)
{
	unsigned int systems = 0;

	for (unsigned int i = 0; i < f->nr; i++)
		if (!i || strcmp(f->f[i].system, f->f[i - 1].system))
			systems++;
	put_u32(o, 0);		/* ftrace's own formats: none */
	put_u32(o, systems);
	for (unsigned int i = 0; i < f->nr;) {
		unsigned int j = i;

		while (j < f->nr && !strcmp(f->f[j].system, f->f[i].system))
			j++;
		put(o, f->f[i].system, strlen(f->f[i].system) + 1);
		put_u32(o, j - i);
		for (; i < j; i++) {
			put_u64(o, f->f[i].len);
			put(o, f->f[i].text, f->f[i].len);
		}
	}
}

int trace_dat_write(FILE *out, const struct trace_dat *d)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c',
				      'i', 'n', 'g', '6', '\0' };
	const struct trace_formats *f = d->formats;
	const uint16_t one = 1;
	struct out o = { .f = out };
	char cpu_stat[64];
	uint64_t at;
	long pos;

	put(&o, magic, sizeof(magic));
	put(&o, &(char){ *(const char *)&one ? 0 : 1 }, 1);
	put(&o, &(char){ (char)sizeof(long) }, 1);
	put_u32(&o, d->page_size);

	put(&o, "header_page", 12);
	put_u64(&o, f->header_page_len);
	put(&o, f->header_page, f->header_page_len);
	put(&o, "header_event", 13);
	put_u64(&o, f->header_event_len);
	put(&o, f->header_event, f->header_event_len);
	put_formats(&o, f);
	put_u32(&o, 0);		/* kallsyms */
	put_u32(&o, 0);		/* printk formats */
	put_u64(&o, f->cmdlines_len);
	put(&o, f->cmdlines, f->cmdlines_len);
	put_u32(&o, d->nr_cpus);

	put(&o, "options  ", 10);
	for (unsigned int c = 0; c < d->nr_cpus; c++) {
		char *text;

		if (!d->cpu_stats || !d->cpu_stats[c])
			continue;
		snprintf(cpu_stat, sizeof(cpu_stat), "CPU: %u\n", c);
		text = malloc(strlen(cpu_stat) + strlen(d->cpu_stats[c]) + 1);
		if (!text)
			return -ENOMEM;
		strcpy(text, cpu_stat);
		strcat(text, d->cpu_stats[c]);
		put_option(&o, OPTION_CPUSTAT, text);
		free(text);
	}
	if (d->clock)
		put_option(&o, OPTION_TRACECLOCK, d->clock);
	put_u16(&o, OPTION_DONE);

	put(&o, "flyrecord", 10);
	pos = ftell(out);
	if (o.err || pos < 0)
		return o.err ? o.err : -errno;
	/* The CPU data starts on a page boundary after the offset table. */
	at = (uint64_t)pos + 16ULL * d->nr_cpus;
	at = (at + d->page_size - 1) / d->page_size * d->page_size;
	for (unsigned int c = 0; c < d->nr_cpus; c++) {
		put_u64(&o, at);
		put_u64(&o, d->cpu_len[c]);
		at += d->cpu_len[c];
	}
	pos = ftell(out);
	if (o.err || pos < 0)
		return o.err ? o.err : -errno;
	for (uint64_t pad = (d->page_size - (uint64_t)pos % d->page_size) %
			    d->page_size; pad; pad--)
		put(&o, "", 1);
	for (unsigned int c = 0; c < d->nr_cpus; c++)
		put(&o, d->cpu_data[c], d->cpu_len[c]);
	return o.err;
}

/* A bounded reader over a trace.dat in memory: any overrun sets ERR. */
struct in {
	unsigned char *p;
	size_t len, at;
	bool err;
};

static const unsigned char *take(struct in *in, size_t n)
{
	const unsigned char *p = in->p + in->at;

	if (in->err || n > in->len - in->at) {
		in->err = true;
		return NULL;
	}
	in->at += n;
	return p;
}

static uint64_t take_u(struct in *in, size_t n)
{
	const unsigned char *p = take(in, n);
	uint16_t v16;

	if (!p)
		return 0;
	if (n == 2) {
		memcpy(&v16, p, 2);
		return v16;
	}
	return trace_host_word(p, (int)n);
}

/* A NUL-terminated string; false if it is not EXPECT (when given). */
static bool take_str(struct in *in, const char *expect)
{
	const unsigned char *nul = in->err ? NULL :
				   memchr(in->p + in->at, 0, in->len - in->at);
	const char *s = (const char *)in->p + in->at;

	if (!nul) {
		in->err = true;
		return false;
	}
	in->at = (size_t)(nul - in->p) + 1;
	return !expect || !strcmp(s, expect);
}

static void skip_sized(struct in *in, size_t width)
{
	uint64_t n = take_u(in, width);

	if (n > in->len - in->at)
		in->err = true;
	else
		take(in, (size_t)n);
}

int trace_dat_repair(unsigned char *buf, size_t len,
		     struct trace_dat_damage *damage)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a',
					       'c', 'i', 'n', 'g' };
	const uint16_t one = 1;
	struct in in = { .p = buf, .len = len };
	struct tep_handle *tep = NULL;
	const unsigned char *p, *header_page;
	uint64_t header_page_len, nr_cpus, page_size, n, data_end = 0;
	size_t table;
	int long_size, user_long, cut = 0, ret = -ENOTSUP;

	memset(damage, 0, sizeof(*damage));
	p = take(&in, sizeof(magic));
	if (!p || memcmp(p, magic, sizeof(magic)) || !take_str(&in, "6"))
		return -ENOTSUP;
	p = take(&in, 2);	/* byte order (0 little), user long size */
	if (!p || p[0] != (*(const char *)&one ? 0 : 1))
		return -ENOTSUP;
	user_long = p[1];
	page_size = take_u(&in, 4);
	if (!take_str(&in, "header_page"))
		return -ENOTSUP;
	header_page_len = take_u(&in, 8);
	header_page = take(&in, header_page_len < len ? (size_t)header_page_len : len);
	if (!take_str(&in, "header_event"))
		return -ENOTSUP;
	skip_sized(&in, 8);
	for (n = take_u(&in, 4); n && !in.err; n--)	/* ftrace formats */
		skip_sized(&in, 8);
	for (n = take_u(&in, 4); n && !in.err; n--) {	/* event systems */
		uint64_t events;

		take_str(&in, NULL);
		for (events = take_u(&in, 4); events && !in.err; events--)
			skip_sized(&in, 8);
	}
	skip_sized(&in, 4);	/* kallsyms */
	skip_sized(&in, 4);	/* printk formats */
	skip_sized(&in, 8);	/* saved_cmdlines */
	nr_cpus = take_u(&in, 4);
	p = take(&in, 10);
	if (p && !memcmp(p, "options  ", 10)) {
		while (!in.err && take_u(&in, 2))
			skip_sized(&in, 4);
		p = take(&in, 10);
	}
	if (in.err || !p || memcmp(p, "flyrecord", 10) || !page_size ||
	    page_size > (1U << 27) || nr_cpus > (len - in.at) / 16)
		return -ENOTSUP;

	/* The kernel's long size: the size of header_page's commit field. */
	tep = tep_alloc();
	if (!tep)
		return -ENOMEM;
	if (tep_parse_header_page(tep, (char *)header_page,
				  (unsigned long)header_page_len, user_long))
		goto out;
	long_size = tep_get_header_page_size(tep);
	if ((long_size != 4 && long_size != 8) ||
	    page_size < 8 + (uint64_t)long_size)	/* no room for a header */
		goto out;

	/*
	 * The CPU table first, so nothing is changed in a file that is not
	 * walked: each CPU's data lies in the file after the table (a "page"
	 * over the headers would be cut into them) and after the CPU before
	 * (ranges that overlap would have the same pages walked once per CPU).
	 */
	table = in.at;
	data_end = table + 16 * nr_cpus;	/* data follows the table */
	for (unsigned int cpu = 0; cpu < nr_cpus; cpu++) {
		uint64_t off = take_u(&in, 8), size = take_u(&in, 8);

		if (in.err)
			goto out;
		if (off > len || size > len - off) {
			/* libtracecmd would map past the end and crash */
			damage->cpu = cpu;
			damage->data_end = off + size;
			ret = -ERANGE;
			goto out;
		}
		if (!size)
			continue;	/* an empty CPU: its offset means nothing */
		if (off < data_end)
			goto out;
		data_end = off + size;
	}
	in.at = table;
	ret = 0;
	for (unsigned int cpu = 0; cpu < nr_cpus; cpu++) {
		uint64_t off = take_u(&in, 8), size = take_u(&in, 8);

		for (uint64_t at = off; at + page_size <= off + size;
		     at += page_size) {
			unsigned char *page = buf + at;
			struct trace_page_damage d;
			uint64_t word = 0, keep;
			int r = trace_page_check(page, (size_t)page_size,
						 long_size, &d);

			if (r == -ENOMEM) {
				ret = r;
				goto out;
			}
			if (!r)
				continue;
			if (!cut++) {
				damage->cpu = cpu;
				damage->page_offset = at;
				damage->offset = d.offset;
				damage->why = d.why;
			}
			/*
			 * The commit ends before the damage; "events lost"
			 * stays, its stored count (after the old end) goes.
			 */
			word = trace_host_word(page + 8, long_size);
			keep = d.offset > 8 + (size_t)long_size ?
			       d.offset - 8 - (size_t)long_size : 0;
			word = (word & ~((1ULL << 27) - 1) & ~(1ULL << 30)) | keep;
			trace_host_word_set(page + 8, long_size, word);
		}
	}
	ret = cut;
out:
	tep_free(tep);
	return ret;
}
