// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "util.h"

/*
 * The Makefile's -D_FILE_OFFSET_BITS=64: on 32-bit boards a trace.dat
 * (trace record -m up to 4G) passes 2 GiB, and 32-bit offsets fail there.
 */
_Static_assert(sizeof(off_t) == 8, "cmadebug needs 64-bit file offsets");

/*
 * The last error line, for --json's error object.  Process state like
 * errno: the line is made deep inside a parser that has no output context
 * to hand it to.
 */
static char last_error[512];

void err_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	fprintf(stderr, "cmadebug: %s\n", last_error);
}

const char *err_last(void)
{
	return last_error;
}

void debug_msg(bool verbose, const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	fputs("cmadebug: debug: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int parse_u64(const char *buf, size_t len, uint64_t *val)
{
	uint64_t v = 0;
	size_t i = 0;

	while (len && isspace((unsigned char)buf[len - 1]))
		len--;
	while (i < len && isspace((unsigned char)buf[i]))
		i++;
	if (i == len)
		return -EINVAL;
	for (; i < len; i++) {
		unsigned int d;

		if (!isdigit((unsigned char)buf[i]))
			return -EINVAL;
		d = (unsigned int)(buf[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*val = v;
	return 0;
}

int parse_s64(const char *buf, size_t len, int64_t *val)
{
	bool neg = len && buf[0] == '-';
	uint64_t u;
	int ret = parse_u64(buf + neg, len - neg, &u);

	if (ret)
		return ret;
	if (u > (uint64_t)INT64_MAX)
		return -ERANGE;
	*val = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

int parse_hex_digits(const char *buf, size_t len, uint64_t *val)
{
	uint64_t x = 0;

	if (!len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		char c = buf[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else
			return -EINVAL;
		if (x >> 60)
			return -ERANGE;
		x = x << 4 | d;
	}
	*val = x;
	return 0;
}

int parse_hex(const char *buf, size_t len, uint64_t *val)
{
	if (len < 3 || buf[0] != '0' || buf[1] != 'x')
		return -EINVAL;
	return parse_hex_digits(buf + 2, len - 2, val);
}

bool key_is(const char *key, size_t klen, const char *want)
{
	return strlen(want) == klen && !memcmp(key, want, klen);
}

/*
 * %pS prints a symbol in a module as "fn+0x44/0x100 [mod]": a value that
 * ends at P may go on with " [NAME]" (no '=' or space inside), which ends
 * where this returns.
 */
static const char *module_suffix_end(const char *p, const char *end)
{
	const char *q = p + 1, *close;

	if (end - p < 3 || *p != ' ' || *q != '[')
		return p;
	for (close = q + 1; close < end && *close != ']'; close++)
		if (*close == ' ' || *close == '=' || *close == '[')
			return p;
	if (close == end || close == q + 1 ||
	    (close + 1 < end && close[1] != ' '))
		return p;
	return close + 1;
}

int for_each_kv(const char *line, size_t len,
		int (*fn)(void *ctx, const char *key, size_t klen,
			  const char *val, size_t vlen),
		void *ctx)
{
	const char *p = line, *end = line + len;

	while (p < end) {
		const char *tok_end, *eq;
		int ret;

		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		tok_end = memchr(p, ' ', (size_t)(end - p));
		if (!tok_end)
			tok_end = end;
		eq = memchr(p, '=', (size_t)(tok_end - p));
		if (!eq || eq == p)
			return -EINVAL;
		tok_end = module_suffix_end(tok_end, end);
		ret = fn(ctx, p, (size_t)(eq - p), eq + 1,
			 (size_t)(tok_end - eq - 1));
		if (ret)
			return ret;
		p = tok_end;
	}
	return 0;
}

int grow_array(void **v, unsigned int nr, unsigned int *cap, size_t elem)
{
	unsigned int ncap;
	void *nv;

	if (nr < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	if (ncap < *cap)
		return -ENOMEM;
	nv = realloc(*v, (size_t)ncap * elem);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

int copy_token(const char *s, size_t len, char *dst, size_t size)
{
	if (!len || len >= size)
		return -EINVAL;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

struct records_line {
	bool has_records, has_dropped;
	uint64_t *records, *dropped;
};

static int records_kv(void *ctx, const char *key, size_t klen, const char *val,
		      size_t vlen)
{
	struct records_line *t = ctx;

	if (key_is(key, klen, "records") && !t->has_records) {
		t->has_records = true;
		return parse_u64(val, vlen, t->records);
	}
	if (key_is(key, klen, "dropped") && !t->has_dropped) {
		t->has_dropped = true;
		return parse_u64(val, vlen, t->dropped);
	}
	return -EINVAL;
}

int records_dropped_parse(const char *line, size_t len, uint64_t *records,
			  uint64_t *dropped)
{
	struct records_line t = { false, false, records, dropped };
	int ret = for_each_kv(line, len, records_kv, &t);

	if (ret)
		return ret;
	return t.has_records && t.has_dropped ? 0 : -EINVAL;
}

bool next_line(const char **p, const char *end, const char **line,
	       size_t *len)
{
	const char *eol;

	if (*p >= end)
		return false;
	eol = memchr(*p, '\n', (size_t)(end - *p));
	if (!eol)
		eol = end;
	*line = *p;
	*len = (size_t)(eol - *p);
	*p = eol < end ? eol + 1 : end;
	return true;
}

bool next_word(const char **p, const char *end, const char **word,
	       size_t *len)
{
	const char *s = *p;

	while (s < end && isspace((unsigned char)*s))
		s++;
	*word = s;
	while (s < end && !isspace((unsigned char)*s))
		s++;
	*len = (size_t)(s - *word);
	*p = s;
	return *len != 0;
}

bool vmstat_find(const char *buf, size_t len, const char *key, uint64_t *val)
{
	size_t keylen = strlen(key);
	const char *p = buf, *end = buf + len, *line;
	size_t llen;

	while (next_line(&p, end, &line, &llen))
		if (llen > keylen + 1 && !memcmp(line, key, keylen) &&
		    line[keylen] == ' ')
			return parse_u64(line + keylen + 1, llen - keylen - 1,
					 val) == 0;
	return false;
}

bool meminfo_find_kb(const char *buf, size_t len, const char *key,
		     uint64_t *kb)
{
	size_t keylen = strlen(key);
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *num, *unit;

		if (!eol)
			eol = end;
		if ((size_t)(eol - p) > keylen && !memcmp(p, key, keylen) &&
		    p[keylen] == ':') {
			num = p + keylen + 1;
			while (num < eol && *num == ' ')
				num++;
			unit = num;
			while (unit < eol && isdigit((unsigned char)*unit))
				unit++;
			if (unit == num)
				return false;
			/* Every meminfo value we read is in kB. */
			if (eol - unit != 3 || memcmp(unit, " kB", 3))
				return false;
			return parse_u64(num, (size_t)(unit - num), kb) == 0;
		}
		p = eol + 1;
	}
	return false;
}

void format_size(uint64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned int u = 0;
	uint64_t scale = 1;

	if (bytes == 0) {
		snprintf(buf, size, "0");
		return;
	}
	while (u + 1 < ARRAY_SIZE(units) && bytes >= scale * 1024) {
		scale *= 1024;
		u++;
	}
	if (bytes % scale == 0)
		snprintf(buf, size, "%llu %s",
			 (unsigned long long)(bytes / scale), units[u]);
	else
		snprintf(buf, size, "%.1f %s", (double)bytes / (double)scale,
			 units[u]);
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		}
	}
	return 0;
}
