/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CMADEBUG_UTIL_H
#define CMADEBUG_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes, documented in cmadebug.1. */
enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,
	EXIT_ENV = 2,		/* no debugfs, no permission, kernel lacks a feature */
	EXIT_PROBLEM = 3,	/* a check found a problem */
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* "cmadebug: <message>" on stderr, one line. */
void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The last line err_msg() printed (without "cmadebug: "), or "". */
const char *err_last(void);
/* Only with -v. */
void debug_msg(bool verbose, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Strict parsers over a buffer: whole token, no sign, no overflow. */
int parse_u64(const char *buf, size_t len, uint64_t *val);

/* A signed decimal ("-16"); the same rules otherwise. */
int parse_s64(const char *buf, size_t len, int64_t *val);

/* "0x1f" only (lower-case digits), as the kernel prints pfns and flags. */
int parse_hex(const char *buf, size_t len, uint64_t *val);
/* The same digits without the "0x" ("%lx"). */
int parse_hex_digits(const char *buf, size_t len, uint64_t *val);

/* Whether the KLEN bytes at KEY are the string WANT. */
bool key_is(const char *key, size_t klen, const char *want);

/*
 * Calls FN for each blank-separated key=value token of LINE (LEN bytes);
 * stops at the first non-zero return.  -EINVAL for a token without a key
 * or an '='.  A " [name]" after a value belongs to it (%pS of a symbol in
 * a module).
 */
int for_each_kv(const char *line, size_t len,
		int (*fn)(void *ctx, const char *key, size_t klen,
			  const char *val, size_t vlen),
		void *ctx);

/*
 * Room for one more element of ELEM bytes in the array *V, NR used of *CAP
 * (doubling, 16 first).  0 or -ENOMEM (*V unchanged).
 */
int grow_array(void **v, unsigned int nr, unsigned int *cap, size_t elem);

/* Writes all LEN bytes of BUF to FD (again after EINTR): 0 or -errno. */
int write_all(int fd, const void *buf, size_t len);

/* Copies the LEN bytes at S to DST (SIZE bytes) as a string; -EINVAL if empty or too long. */
int copy_token(const char *s, size_t len, char *dst, size_t size);

/*
 * The closing "records=N dropped=M" line of a debugfs list (both keys
 * required, nothing else); -EINVAL otherwise.
 */
int records_dropped_parse(const char *line, size_t len, uint64_t *records,
			  uint64_t *dropped);

/*
 * The next line of [*p, end) into LINE and LEN (without its newline),
 * advancing *p; false at the end.  A last line without a newline counts.
 */
bool next_line(const char **p, const char *end, const char **line,
	       size_t *len);

/*
 * The next blank-separated word of [*p, end) into WORD and LEN, advancing *p;
 * false when only blanks are left.
 */
bool next_word(const char **p, const char *end, const char **word,
	       size_t *len);

/* "CmaTotal:  49152 kB" -> 49152; false if the key is absent. */
bool meminfo_find_kb(const char *buf, size_t len, const char *key,
		     uint64_t *kb);

/* "cma_alloc_success 12" (/proc/vmstat) -> 12; false if the key is absent. */
bool vmstat_find(const char *buf, size_t len, const char *key, uint64_t *val);

/* Formats BYTES with binary units ("16 MiB", "1.5 GiB", "0"). */
void format_size(uint64_t bytes, char *buf, size_t size);

#endif
