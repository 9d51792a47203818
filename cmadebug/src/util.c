// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

void err_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("cmadebug: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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
