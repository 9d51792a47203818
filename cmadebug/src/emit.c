// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "emit.h"
#include "util.h"

void emit_init(struct emit *e, FILE *out, bool json)
{
	memset(e, 0, sizeof(*e));
	e->out = out;
	e->json = json;
	e->pretty = true;
	e->first[0] = true;
}

int emit_finish(struct emit *e)
{
	if (e->json && e->started)
		fputc('\n', e->out);
	if (fflush(e->out) || ferror(e->out))
		return -EIO;
	return e->error;
}

static void json_indent(struct emit *e)
{
	static const char spaces[] = "\n" "                "; /* EMIT_MAX_DEPTH * 2 */

	_Static_assert(sizeof(spaces) - 2 >= EMIT_MAX_DEPTH * 2, "indent");
	if (e->pretty)
		fwrite(spaces, 1, 1 + 2 * (size_t)e->depth, e->out);
}

/*
 * The length of the well-formed UTF-8 sequence at S (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0.  Kernel names are
 * bytes: a name that is not UTF-8 must not make the JSON invalid.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* also the NUL that ends the string */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/*
 * Invalid UTF-8 bytes become U+FFFD, each.  Bytes that need no escape go
 * out as one span: a bitmap's runs are millions of short strings.
 */
static void json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *span = p;

	fputc('"', out);
	while (*p) {
		unsigned char c = *p;
		size_t n = utf8_len(p);

		if (n && c != '"' && c != '\\' && c >= 0x20 && c != 0x7f) {
			p += n;
			continue;
		}
		fwrite(span, 1, (size_t)(p - span), out);
		if (!n)
			fputs("\\ufffd", out);
		else if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else
			fprintf(out, "\\u%04x", c);
		span = ++p;
	}
	fwrite(span, 1, (size_t)(p - span), out);
	fputc('"', out);
}

/*
 * Text for a terminal: control characters (an escape sequence in an area
 * name would reach it raw) and bytes that are not UTF-8 as \xNN.  A new
 * string, or NULL.
 */
static char *text_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(strlen(s) * 4 + 1), *o = out;

	if (!out)
		return NULL;
	while (*p) {
		size_t n = utf8_len(p);

		if (!n || *p < 0x20 || *p == 0x7f) {
			o += sprintf(o, "\\x%02x", *p);
			p++;
			continue;
		}
		memcpy(o, p, n);
		o += n;
		p += n;
	}
	*o = '\0';
	return out;
}

/* Separator, indentation and "key": for the next JSON member. */
static void json_member(struct emit *e, const char *key)
{
	if (e->depth > 0) {
		if (!e->first[e->depth])
			fputc(',', e->out);
		json_indent(e);
	}
	e->first[e->depth] = false;
	e->started = true;
	if (key) {
		json_string(e->out, key);
		fputs(e->pretty ? ": " : ":", e->out);
	}
}

/* Whether a JSON field with this key is written at all (see emit.h). */
static bool json_wants(const struct emit *e, const char *key)
{
	return key || e->depth == 0 || e->is_list[e->depth];
}

static void json_open(struct emit *e, const char *key, char bracket)
{
	json_member(e, key);
	fputc(bracket, e->out);
	if (e->depth + 1 < EMIT_MAX_DEPTH) {
		e->depth++;
		e->first[e->depth] = true;
		e->is_list[e->depth] = bracket == '[';
	} else {
		e->error = -EINVAL;
	}
}

static void json_close(struct emit *e, char bracket)
{
	bool empty = e->first[e->depth];

	if (e->depth > 0)
		e->depth--;
	if (!empty)
		json_indent(e);
	fputc(bracket, e->out);
}

/* Text tables: collect the cells, print aligned at the end of the list. */
static char **row_cells(struct emit_table *t, unsigned int row)
{
	return t->cells + (size_t)row * EMIT_MAX_COLS;
}

static void table_reset(struct emit_table *t)
{
	for (unsigned int r = 0; r < t->nrows; r++)
		for (unsigned int c = 0; c < t->ncols; c++)
			free(row_cells(t, r)[c]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

static void table_row_begin(struct emit *e)
{
	struct emit_table *t = &e->table;

	if (t->nrows == t->cap) {
		unsigned int cap = t->cap ? t->cap * 2 : 16;
		char **cells = realloc(t->cells,
				       (size_t)cap * EMIT_MAX_COLS * sizeof(char *));

		if (!cells) {
			e->error = -ENOMEM;
			return;
		}
		t->cells = cells;
		t->cap = cap;
	}
	memset(row_cells(t, t->nrows), 0, EMIT_MAX_COLS * sizeof(char *));
	t->nrows++;
	t->next_col = 0;
}

/*
 * A cell goes under the column of its label: rows need not have the same
 * fields (another kernel's stats, an area without a counter), and a label
 * first seen in a later row adds a column (not in a streamed table, whose
 * columns are declared before its first row).
 */
static void table_cell(struct emit *e, const char *label, bool right,
		       const char *text)
{
	struct emit_table *t = &e->table;
	unsigned int c;

	if (e->error || !t->nrows)
		return;
	/* Rows usually repeat the column order: try the next column first. */
	c = t->next_col < t->ncols && !strcmp(t->labels[t->next_col], label) ?
		t->next_col : 0;
	for (; c < t->ncols && strcmp(t->labels[c], label); c++)
		;
	t->next_col = c + 1;
	if (c == t->ncols) {
		if (c == EMIT_MAX_COLS || t->streamed) {
			e->error = -EINVAL;
			return;
		}
		t->labels[c] = label;
		t->right[c] = right;
		t->ncols = c + 1;
	}
	if (t->streamed && !t->header_done)
		t->right[c] = right;
	free(row_cells(t, t->nrows - 1)[c]);
	row_cells(t, t->nrows - 1)[c] = text_clean(text);
	if (!row_cells(t, t->nrows - 1)[c])
		e->error = -ENOMEM;
}

/* Spaces from LEN up to WIDTH (printf's %*s, without printf: runs tables are long). */
static void pad(FILE *out, size_t width, size_t len)
{
	static const char spaces[] = "                                ";

	while (len < width) {
		size_t n = width - len < sizeof(spaces) - 1 ? width - len :
							      sizeof(spaces) - 1;

		fwrite(spaces, 1, n, out);
		len += n;
	}
}

/* One line of the table: CELLS, or the labels when CELLS is NULL. */
/* One line of the table: CELLS, or the labels when CELLS is NULL; the
 * columns ORDER lists (NR of them), in that order. */
static void table_print_row(struct emit *e, char *const *cells,
			    const size_t *width, const unsigned int *order,
			    unsigned int nr)
{
	const struct emit_table *t = &e->table;

	for (unsigned int i = 0; i < nr; i++) {
		unsigned int c = order[i];
		const char *s = cells ? cells[c] : t->labels[c];
		bool last = i + 1 == nr;
		size_t len;

		if (!s)
			s = "-";	/* this row has no such field */
		len = strlen(s);
		if (t->right[c])
			pad(e->out, width[c], len);
		fwrite(s, 1, len, e->out);
		if (!t->right[c] && !last)
			pad(e->out, width[c], len);
		fputs(last ? "\n" : "  ", e->out);
	}
}

/*
 * The columns to print: every one, or those e->columns names ("NAME,USED",
 * any case), in its order; a name this table lacks (a field another kernel
 * has) is left out.
 */
static unsigned int table_order(const struct emit *e, unsigned int *order)
{
	const struct emit_table *t = &e->table;
	const char *p = e->columns;
	unsigned int nr = 0;

	if (!p) {
		for (unsigned int c = 0; c < t->ncols; c++)
			order[nr++] = c;
		return nr;
	}
	while (*p && nr < EMIT_MAX_COLS) {
		size_t len = strcspn(p, ",");

		for (unsigned int c = 0; c < t->ncols; c++)
			if (strlen(t->labels[c]) == len &&
			    !strncasecmp(t->labels[c], p, len))
				order[nr++] = c;
		p += len + (p[len] == ',');
	}
	return nr;
}

static void table_print(struct emit *e)
{
	struct emit_table *t = &e->table;
	size_t width[EMIT_MAX_COLS];
	unsigned int order[EMIT_MAX_COLS], nr = table_order(e, order);

	for (unsigned int c = 0; c < t->ncols; c++) {
		width[c] = strlen(t->labels[c]);
		for (unsigned int r = 0; r < t->nrows; r++) {
			const char *s = row_cells(t, r)[c];

			if (s && strlen(s) > width[c])
				width[c] = strlen(s);
		}
	}
	if (t->nrows && nr)
		table_print_row(e, NULL, width, order, nr);
	for (unsigned int r = 0; r < t->nrows && nr; r++)
		table_print_row(e, row_cells(t, r), width, order, nr);
	table_reset(t);
}

/* A streamed table's row is printed as it ends, the header before the first. */
static void table_flush_row(struct emit *e)
{
	struct emit_table *t = &e->table;
	unsigned int order[EMIT_MAX_COLS];

	if (e->error || !t->nrows)
		return;
	for (unsigned int c = 0; c < t->ncols; c++)
		order[c] = c;
	if (!t->header_done) {
		table_print_row(e, NULL, t->width, order, t->ncols);
		t->header_done = true;
	}
	table_print_row(e, row_cells(t, 0), t->width, order, t->ncols);
	for (unsigned int c = 0; c < t->ncols; c++) {
		free(row_cells(t, 0)[c]);
		row_cells(t, 0)[c] = NULL;
	}
	t->nrows = 0;
}

void emit_nest_next(struct emit *e, const char *key)
{
	e->nest_key = key;
}

bool emit_nest_pending(const struct emit *e)
{
	return e->nest_key != NULL;
}

void emit_object_begin(struct emit *e, const char *key)
{
	if (e->json && !key && e->nest_key) {
		key = e->nest_key;
		e->nest_key = NULL;
	}
	if (e->json)
		json_open(e, key, '{');
	else if (e->in_table && !e->nested)
		table_row_begin(e);
}

void emit_object_end(struct emit *e)
{
	if (e->json)
		json_close(e, '}');
	else if (e->in_table && !e->nested && e->table.streamed)
		table_flush_row(e);
}

void emit_list_begin(struct emit *e, const char *key)
{
	if (e->json) {
		json_open(e, key, '[');
		return;
	}
	if (e->in_table) {
		e->nested++;
		return;
	}
	table_reset(&e->table);
	e->in_table = true;
}

void emit_list_end(struct emit *e)
{
	if (e->json) {
		json_close(e, ']');
		return;
	}
	if (e->nested) {
		e->nested--;
		return;
	}
	e->in_table = false;
	if (e->table.streamed)
		table_reset(&e->table);
	else
		table_print(e);
}

void emit_list_begin_streamed(struct emit *e, const char *key,
			      const struct emit_column *cols, unsigned int ncols)
{
	struct emit_table *t = &e->table;

	emit_list_begin(e, key);
	if (e->json || e->nested)
		return;
	if (ncols > EMIT_MAX_COLS) {
		e->error = -EINVAL;
		return;
	}
	t->streamed = true;
	t->ncols = ncols;
	for (unsigned int c = 0; c < ncols; c++) {
		size_t label = strlen(cols[c].label);

		t->labels[c] = cols[c].label;
		t->width[c] = cols[c].width > label ? cols[c].width : label;
	}
}

/* Text form of a field: a table cell, or a "Label: value" line. */
static void text_field(struct emit *e, const char *label, bool right,
		       const char *text)
{
	char *clean;

	if (!label || e->nested)
		return;
	if (e->in_table) {
		table_cell(e, label, right, text);
		return;
	}
	clean = text_clean(text);
	if (!clean) {
		e->error = -ENOMEM;
		return;
	}
	fprintf(e->out, "%s: %s\n", label, clean);
	free(clean);
}

/* "868.678 ms": three significant decimals at most, the unit that fits. */
static void format_ns(uint64_t ns, char *text, size_t size)
{
	if (ns < 1000)
		snprintf(text, size, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(text, size, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(text, size, "%.3f ms", (double)ns / 1e6);
	else
		snprintf(text, size, "%.3f s", (double)ns / 1e9);
}

/* The text form of an unsigned field. */
static void uint_text(const struct emit *e, enum emit_fmt fmt, uint64_t v,
		      char *text, size_t size)
{
	char digits[24], *d = digits + sizeof(digits);
	const char *prefix = fmt == FMT_HEX && v ? "0x" : "";	/* as %#x */
	unsigned int base = fmt == FMT_HEX ? 16 : 10;
	size_t plen = strlen(prefix), dlen;

	if (fmt == FMT_SIZE && !e->exact_bytes) {
		format_size(v, text, size);
		return;
	}
	if (fmt == FMT_NS) {
		format_ns(v, text, size);
		return;
	}
	/* "%#" PRIx64 and "%" PRIu64 by hand: printf dominated long tables. */
	do {
		*--d = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	dlen = (size_t)(digits + sizeof(digits) - d);
	if (plen + dlen >= size) {
		*text = '\0';	/* callers pass 64 bytes: never */
		return;
	}
	memcpy(text, prefix, plen);
	memcpy(text + plen, d, dlen);
	text[plen + dlen] = '\0';
}

size_t emit_uint_width(const struct emit *e, enum emit_fmt fmt, uint64_t v)
{
	char text[64];

	uint_text(e, fmt, v, text, sizeof(text));
	return strlen(text);
}

size_t emit_string_width(const char *s)
{
	char *clean = text_clean(s);
	size_t width = clean ? strlen(clean) : strlen(s) * 4;

	free(clean);
	return width;
}

void emit_uint(struct emit *e, const char *key, const char *label,
	       enum emit_fmt fmt, uint64_t v)
{
	char text[64];

	if (e->json) {
		if (json_wants(e, key)) {
			json_member(e, key);
			fprintf(e->out, "%" PRIu64, v);
		}
		return;
	}
	uint_text(e, fmt, v, text, sizeof(text));
	text_field(e, label, true, text);
}

void emit_int(struct emit *e, const char *key, const char *label, int64_t v)
{
	char text[32];

	snprintf(text, sizeof(text), "%" PRId64, v);
	if (e->json) {
		if (json_wants(e, key)) {
			json_member(e, key);
			fputs(text, e->out);
		}
		return;
	}
	text_field(e, label, true, text);
}

void emit_string(struct emit *e, const char *key, const char *label,
		 const char *s)
{
	if (e->json) {
		if (json_wants(e, key)) {
			json_member(e, key);
			json_string(e->out, s);
		}
		return;
	}
	text_field(e, label, false, s);
}

void emit_bool(struct emit *e, const char *key, const char *label, bool v)
{
	if (e->json) {
		if (json_wants(e, key)) {
			json_member(e, key);
			fputs(v ? "true" : "false", e->out);
		}
		return;
	}
	text_field(e, label, false, v ? "yes" : "no");
}

void emit_missing(struct emit *e, const char *key, const char *label)
{
	if (e->json) {
		if (json_wants(e, key)) {
			json_member(e, key);
			fputs("null", e->out);
		}
		return;
	}
	text_field(e, label, true, "-");
}

void emit_error(struct emit *e, const char *message, int status)
{
	e->error = 0;
	emit_object_begin(e, NULL);
	emit_object_begin(e, "error");
	emit_string(e, "message", NULL, message);
	emit_int(e, "exit_status", NULL, status);
	emit_object_end(e);
	emit_object_end(e);
	emit_finish(e);
}
