/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one output layer.  A command describes each record once, field by
 * field; every call carries both the JSON key and the text label, so the text
 * and the JSON forms cannot drift apart (iproute2's print_uint(PRINT_ANY...)).
 *
 * Text form: fields of an object print as "Label: value" lines; the objects of
 * a list print as a table whose columns are the labelled fields; a list inside
 * a table row is JSON-only (the command adds a text-only summary cell).
 * In JSON, list elements take a NULL key; in an object a NULL key means the
 * field is text-only.  A NULL label
 * makes a field JSON-only; a NULL key makes it text-only.
 */
#ifndef CMADEBUG_EMIT_H
#define CMADEBUG_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum emit_fmt {
	FMT_DEC,	/* 42 */
	FMT_HEX,	/* 0x2a in text; a number in JSON */
	FMT_SIZE,	/* bytes: "16 MiB" in text (exact with exact_bytes); a number in JSON */
	FMT_NS,		/* nanoseconds: "868.678 ms" in text; a number in JSON */
};

#define EMIT_MAX_DEPTH	8
#define EMIT_MAX_COLS	16

struct emit_table {
	const char *labels[EMIT_MAX_COLS];
	bool right[EMIT_MAX_COLS];	/* numbers align right */
	size_t width[EMIT_MAX_COLS];	/* streamed: declared up front */
	unsigned int ncols;
	unsigned int next_col;		/* where the last cell went, plus one */
	char **cells;			/* rows * EMIT_MAX_COLS */
	unsigned int nrows, cap;
	bool streamed;			/* each row printed as it ends */
	bool header_done;
};

/* A column of a streamed table (emit_list_begin_streamed). */
struct emit_column {
	const char *label;
	size_t width;	/* the widest cell; the label's width at least */
};

struct emit {
	FILE *out;
	bool json;
	int depth;
	bool first[EMIT_MAX_DEPTH];	/* no comma before the next member */
	bool is_list[EMIT_MAX_DEPTH];	/* JSON: the container at this depth */
	bool in_table;			/* text: inside a list's row */
	int nested;			/* text: lists inside a table row are JSON-only */
	struct emit_table table;
	bool pretty;			/* JSON: indented (the default), or one line */
	bool exact_bytes;		/* text: FMT_SIZE as a plain byte count */
	const char *columns;		/* text: the tables' columns, "A,B" (-o) */
	bool started;			/* JSON: something was written */
	const char *nest_key;		/* JSON: key of the next top object */
	int error;			/* sticky: out of memory */
};

void emit_init(struct emit *e, FILE *out, bool json);
/* Flushes and returns 0, or -ENOMEM / -EIO. */
int emit_finish(struct emit *e);

void emit_object_begin(struct emit *e, const char *key);
/*
 * Nest the next command's whole document under KEY of the object being
 * written (cmadebug snapshot).  Its top-level emit_object_begin(e, NULL)
 * takes the key; a command that fails before writing leaves it unused.
 */
void emit_nest_next(struct emit *e, const char *key);
bool emit_nest_pending(const struct emit *e);
void emit_object_end(struct emit *e);
void emit_list_begin(struct emit *e, const char *key);
void emit_list_end(struct emit *e);
/*
 * A list whose text table prints each row as it ends, in the NCOLS columns
 * COLS declares (in that order), instead of holding every row to measure the
 * columns: for lists too long to hold, a big area's runs.  The caller
 * measures its widest cells with emit_uint_width() and emit_string_width();
 * a label it did not declare is an error.  In JSON, a list like any other.
 */
void emit_list_begin_streamed(struct emit *e, const char *key,
			      const struct emit_column *cols, unsigned int ncols);
/* How wide emit_uint() and emit_string() print V and S in text. */
size_t emit_uint_width(const struct emit *e, enum emit_fmt fmt, uint64_t v);
size_t emit_string_width(const char *s);

void emit_uint(struct emit *e, const char *key, const char *label,
	       enum emit_fmt fmt, uint64_t v);
void emit_int(struct emit *e, const char *key, const char *label, int64_t v);
void emit_string(struct emit *e, const char *key, const char *label,
		 const char *s);
void emit_bool(struct emit *e, const char *key, const char *label, bool v);
/*
 * JSON: {"error": {"message": MESSAGE, "exit_status": STATUS}} as the whole
 * document, for a command that failed before writing anything.
 */
void emit_error(struct emit *e, const char *message, int status);
/* A value the kernel did not provide: null in JSON, "-" in text. */
void emit_missing(struct emit *e, const char *key, const char *label);

#endif
