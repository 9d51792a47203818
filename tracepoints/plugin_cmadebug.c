// SPDX-License-Identifier: LGPL-2.1
/*
 * libtraceevent plugin: readable cma:cma_alloc_fail,
 * linear_map:linear_map_split and linear_map:linear_map_attr_change lines in
 * trace-cmd report and KernelShark.  The kernel's own print formats are
 * key=value for machines (tracepoints/events.md); this says what happened:
 *
 *   reserved: attempt 1 failed in migrate (-EBUSY): pfns 0x7e040+8128;
 *     page 0x7e041 file Isolate ref 2 map 0 flags uptodate|lru
 *   reserved: no free run of 9 pages (-ENOMEM, attempt 1)
 *   cma-remap: 16 1M entries split into 4K: pfn 0x57000+16 MiB
 *   dma-remap: pfn 0x57000+2 pages set memtype: noncached
 *   set_direct_map: pfn 0x4a3c1+1 page clear valid
 *
 * The names of enum and flag values come from the event's own print format
 * (its __print_symbolic() and __print_flags() tables, in which the traced
 * kernel's TRACE_DEFINE_ENUM() put its numbers), not from tables here: the
 * numbers depend on the kernel's config.  A value the format does not name
 * prints as its number, flags whose table the kernel left unresolved (page
 * flags: 1UL << PG_locked) in hex.
 *
 * Build and install: make -C tracepoints [install PREFIX=/usr DESTDIR=...].
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#define CMA_SYSTEM	"cma"
#define LINEAR_MAP_SYSTEM	"linear_map"

static const struct {
	int err;
	const char *name;
} errnos[] = {
	{ -4, "EINTR" }, { -11, "EAGAIN" }, { -12, "ENOMEM" },
	{ -16, "EBUSY" }, { -22, "EINVAL" },
};

/* "-EBUSY", or "-99" for an errno without a name here. */
static void print_errno(struct trace_seq *s, int err)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++) {
		if (errnos[i].err == err) {
			trace_seq_printf(s, "-%s", errnos[i].name);
			return;
		}
	}
	trace_seq_printf(s, "%d", err);
}

/* A field of @data, sign-extended when the format says it is signed. */
static int read_field(struct tep_format_field *f, const void *data,
		      unsigned long long *v)
{
	if (tep_read_number_field(f, data, v))
		return -1;
	if (!(f->flags & TEP_FIELD_IS_SIGNED))
		return 0;
	if (f->size == 1)
		*v = (unsigned long long)(signed char)*v;
	else if (f->size == 2)
		*v = (unsigned long long)(short)*v;
	else if (f->size == 4)
		*v = (unsigned long long)(int)*v;
	return 0;
}

/* Field @name of @record; on failure the output names the missing field. */
static int get(struct trace_seq *s, struct tep_event *event,
	       struct tep_record *record, const char *name,
	       unsigned long long *v)
{
	struct tep_format_field *f = tep_find_field(event, name);

	if (f && !read_field(f, record->data, v))
		return 0;
	trace_seq_printf(s, "<CANT FIND FIELD %s>", name);
	return -1;
}

/* An unsigned long field that holds ULONG_MAX of the traced kernel ("none"). */
static int is_none(struct tep_event *event, const char *name,
		   unsigned long long v)
{
	struct tep_format_field *f = tep_find_field(event, name);

	if (!f || f->size <= 0 || f->size > 8)
		return 0;
	return v == (f->size == 8 ? UINT64_MAX : (1ULL << (f->size * 8)) - 1);
}

/* A __data_loc string field, or "?" when the record lacks it. */
static const char *str_field(struct trace_seq *s, struct tep_event *event,
			     const char *name, struct tep_record *record)
{
	int len = 0;
	const char *p = tep_get_field_raw(s, event, name, record, &len, 0);

	return p && len > 0 && memchr(p, '\0', (size_t)len) ? p : "?";
}

/*
 * A number of the format: "12", "0x10", "-1", "1UL".  Anything else is a
 * name the kernel did not resolve (PG_locked), which names no value.
 */
static int number(const char *str, unsigned long long *v)
{
	char *end;

	if (!str)
		return -1;
	*v = strtoull(str, &end, 0);
	return end == str || end[strspn(end, "uUlL")] ? -1 : 0;
}

/*
 * The value of print argument @arg for @record: REC->field, numbers and
 * the bit and arithmetic operators formats use on them, as in the page
 * flags' mask (REC->flags & ((1UL << 21) - 1)).
 */
static int eval(struct tep_event *event, struct tep_record *record,
		struct tep_print_arg *arg, unsigned long long *v)
{
	struct tep_format_field *f;
	unsigned long long l = 0, r;
	const char *op;

	if (!arg)
		return -1;
	switch (arg->type) {
	case TEP_PRINT_ATOM:
		return number(arg->atom.atom, v);
	case TEP_PRINT_FIELD:
		f = tep_find_any_field(event, arg->field.name);
		return f ? read_field(f, record->data, v) : -1;
	case TEP_PRINT_TYPE:
		return eval(event, record, arg->typecast.item, v);
	case TEP_PRINT_OP:
		break;
	default:
		return -1;
	}
	/* a unary operator's left is TEP_PRINT_NULL */
	if ((arg->op.left && arg->op.left->type != TEP_PRINT_NULL &&
	     eval(event, record, arg->op.left, &l)) ||
	    eval(event, record, arg->op.right, &r))
		return -1;
	op = arg->op.op;
	if (!strcmp(op, "&"))
		*v = l & r;
	else if (!strcmp(op, "|"))
		*v = l | r;
	else if (!strcmp(op, "^"))
		*v = l ^ r;
	else if (!strcmp(op, "<<"))
		*v = r < 64 ? l << r : 0;
	else if (!strcmp(op, ">>"))
		*v = r < 64 ? l >> r : 0;
	else if (!strcmp(op, "+"))
		*v = l + r;
	else if (!strcmp(op, "-"))
		*v = l - r;
	else if (!strcmp(op, "~"))
		*v = ~r;
	else
		return -1;
	return 0;
}

/*
 * Within print argument @arg, the argument of @type about REC->@field:
 * the field itself (TEP_PRINT_FIELD), or a __print_symbolic() or
 * __print_flags() of an expression that reads it; through ?:, & and casts.
 */
static struct tep_print_arg *find_arg(struct tep_print_arg *arg,
				      enum tep_print_arg_type type,
				      const char *field)
{
	struct tep_print_arg *found;

	if (!arg)
		return NULL;
	switch (arg->type) {
	case TEP_PRINT_FIELD:
		found = strcmp(arg->field.name, field) ? NULL : arg;
		break;
	case TEP_PRINT_SYMBOL:
		found = find_arg(arg->symbol.field, TEP_PRINT_FIELD, field);
		break;
	case TEP_PRINT_FLAGS:
		found = find_arg(arg->flags.field, TEP_PRINT_FIELD, field);
		break;
	case TEP_PRINT_OP:
		found = find_arg(arg->op.left, type, field);
		return found ? found : find_arg(arg->op.right, type, field);
	case TEP_PRINT_TYPE:
		return find_arg(arg->typecast.item, type, field);
	default:
		return NULL;
	}
	return found && arg->type == type ? arg : NULL;
}

/* The argument of @event's print format that holds @type about @field. */
static struct tep_print_arg *top_arg(struct tep_event *event,
				     enum tep_print_arg_type type,
				     const char *field,
				     struct tep_print_arg **found)
{
	for (struct tep_print_arg *arg = event->print_fmt.args; arg;
	     arg = arg->next)
		if ((*found = find_arg(arg, type, field)))
			return arg;
	return NULL;
}

/* The name @event's __print_symbolic() gives value @v of @field, or NULL. */
static const char *sym_name(struct tep_event *event, const char *field,
			    unsigned long long v)
{
	struct tep_print_flag_sym *sym;
	struct tep_print_arg *arg;
	unsigned long long n;

	if (!top_arg(event, TEP_PRINT_SYMBOL, field, &arg))
		return NULL;
	for (sym = arg->symbol.symbols; sym; sym = sym->next)
		if (!number(sym->value, &n) && n == v)
			return sym->str;
	return NULL;
}

/* That name, or @unnamed ("stage %lld") with the number. */
static void print_sym(struct trace_seq *s, struct tep_event *event,
		      const char *field, unsigned long long v,
		      const char *unnamed)
{
	const char *name = sym_name(event, field, v);

	if (name)
		trace_seq_puts(s, name);
	else
		trace_seq_printf(s, unnamed, (long long)v);
}

/* Whether every value of a __print_flags() table is a distinct number. */
static int flags_resolved(struct tep_print_flag_sym *flags)
{
	unsigned long long a, b;

	for (struct tep_print_flag_sym *f = flags; f; f = f->next) {
		if (number(f->value, &a) || !a)
			return 0;
		for (struct tep_print_flag_sym *g = f->next; g; g = g->next)
			if (!number(g->value, &b) && a == b)
				return 0;
	}
	return flags != NULL;
}

/* @v as the kernel's __print_flags() prints it: names, then left-over hex. */
static void print_flag_names(struct trace_seq *s,
			     struct tep_print_arg_flags *flags,
			     unsigned long long v)
{
	const char *delim = flags->delim ? flags->delim : "|";
	const char *sep = "";
	unsigned long long mask;

	/* unresolved, every "1UL << PG_x" reads as 1: the bits are unknown */
	if (flags_resolved(flags->flags)) {
		for (struct tep_print_flag_sym *f = flags->flags; f && v;
		     f = f->next) {
			if (number(f->value, &mask) || (v & mask) != mask)
				continue;
			trace_seq_printf(s, "%s%s", sep, f->str);
			sep = delim;
			v &= ~mask;
		}
	}
	if (v || !*sep)
		trace_seq_printf(s, "%s0x%llx", sep, v);
}

/*
 * Print argument @arg as the kernel prints it, for the flags arguments:
 * "(x) ? __print_flags(x, ...) : "none"" and __print_flags() itself.
 */
static int print_arg(struct trace_seq *s, struct tep_event *event,
		     struct tep_record *record, struct tep_print_arg *arg)
{
	struct tep_print_arg *alt;
	unsigned long long v;

	switch (arg->type) {
	case TEP_PRINT_ATOM:
		trace_seq_puts(s, arg->atom.atom);
		return 0;
	case TEP_PRINT_FLAGS:
		if (eval(event, record, arg->flags.field, &v))
			return -1;
		print_flag_names(s, &arg->flags, v);
		return 0;
	case TEP_PRINT_OP:
		alt = arg->op.right;
		if (strcmp(arg->op.op, "?") || !alt ||
		    alt->type != TEP_PRINT_OP || strcmp(alt->op.op, ":") ||
		    eval(event, record, arg->op.left, &v))
			return -1;
		return print_arg(s, event, record,
				 v ? alt->op.left : alt->op.right);
	default:
		return -1;
	}
}

/* Flags field @field (value @v) as its format names it, else in hex. */
static void print_flags(struct trace_seq *s, struct tep_event *event,
			struct tep_record *record, const char *field,
			unsigned long long v)
{
	struct tep_print_arg *flags;
	struct tep_print_arg *arg = top_arg(event, TEP_PRINT_FLAGS, field,
					    &flags);

	if (!arg || print_arg(s, event, record, arg))
		trace_seq_printf(s, "0x%llx", v);
}

static int cma_alloc_fail_handler(struct trace_seq *s,
				  struct tep_record *record,
				  struct tep_event *event, void *context)
{
	unsigned long long start, count, attempt, err, stage, pfn;
	unsigned long long flags, ref, map, mt, kind;

	(void)context;
	if (get(s, event, record, "start_pfn", &start) ||
	    get(s, event, record, "count", &count) ||
	    get(s, event, record, "attempt", &attempt) ||
	    get(s, event, record, "errorno", &err) ||
	    get(s, event, record, "stage", &stage) ||
	    get(s, event, record, "pfn", &pfn))
		return 0;	/* the missing field is named in the output */
	trace_seq_printf(s, "%s: ", str_field(s, event, "name", record));
	if (is_none(event, "start_pfn", start)) {
		trace_seq_printf(s, "no free run of %llu pages (", count);
		print_errno(s, (int)err);
		trace_seq_printf(s, ", attempt %llu)", attempt);
		return 0;
	}
	trace_seq_printf(s, "attempt %llu failed in ", attempt);
	print_sym(s, event, "stage", stage, "stage %lld");
	trace_seq_puts(s, " (");
	print_errno(s, (int)err);
	trace_seq_printf(s, "): pfns 0x%llx+%llu; ", start, count);
	if (is_none(event, "pfn", pfn)) {
		trace_seq_puts(s, "no single page to blame");
		return 0;
	}
	if (get(s, event, record, "flags", &flags) ||
	    get(s, event, record, "refcount", &ref) ||
	    get(s, event, record, "mapcount", &map) ||
	    get(s, event, record, "migratetype", &mt) ||
	    get(s, event, record, "kind", &kind))
		return 0;
	trace_seq_printf(s, "page 0x%llx ", pfn);
	print_sym(s, event, "kind", kind, "kind %lld");
	trace_seq_putc(s, ' ');
	print_sym(s, event, "migratetype", mt, "migratetype %lld");
	trace_seq_printf(s, " ref %d map %d flags ", (int)ref, (int)map);
	print_flags(s, event, record, "flags", flags);
	return 0;
}

/* Bytes with a binary unit when it divides them: "16 MiB", "4 KiB", "100 B". */
static void print_size(struct trace_seq *s, unsigned long long bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB" };
	unsigned int u = 0;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && bytes &&
	       !(bytes & 1023)) {
		bytes >>= 10;
		u++;
	}
	trace_seq_printf(s, "%llu %s", bytes, units[u]);
}

static int linear_map_split_handler(struct trace_seq *s,
				    struct tep_record *record,
				    struct tep_event *event, void *context)
{
	unsigned long long pfn, size, from, to, count, cause;

	(void)context;
	if (get(s, event, record, "pfn", &pfn) ||
	    get(s, event, record, "size", &size) ||
	    get(s, event, record, "from_shift", &from) ||
	    get(s, event, record, "to_shift", &to) ||
	    get(s, event, record, "count", &count) ||
	    get(s, event, record, "cause", &cause))
		return 0;	/* the missing field is named in the output */
	print_sym(s, event, "cause", cause, "cause %lld");
	trace_seq_printf(s, ": %llu ", count);
	/* an entry size the format does not name, by its log2 */
	print_sym(s, event, "from_shift", from, "2^%lld");
	trace_seq_printf(s, " entr%s split into ", count == 1 ? "y" : "ies");
	print_sym(s, event, "to_shift", to, "2^%lld");
	trace_seq_printf(s, ": pfn 0x%llx+", pfn);
	print_size(s, size);
	return 0;
}

static int linear_map_attr_change_handler(struct trace_seq *s,
					  struct tep_record *record,
					  struct tep_event *event,
					  void *context)
{
	unsigned long long pfn, nr, set, clear, memtype, ret, cause;
	const char *mt;

	(void)context;
	if (get(s, event, record, "pfn", &pfn) ||
	    get(s, event, record, "nr_pages", &nr) ||
	    get(s, event, record, "set", &set) ||
	    get(s, event, record, "clear", &clear) ||
	    get(s, event, record, "memtype", &memtype) ||
	    get(s, event, record, "ret", &ret) ||
	    get(s, event, record, "cause", &cause))
		return 0;
	print_sym(s, event, "cause", cause, "cause %lld");
	trace_seq_printf(s, ": pfn 0x%llx+%llu page%s", pfn, nr,
			 nr == 1 ? "" : "s");
	/* "set none" when nothing changed, rather than nothing at all */
	if (set || !clear) {
		trace_seq_puts(s, " set ");
		print_flags(s, event, record, "set", set);
	}
	if (clear) {
		trace_seq_puts(s, " clear ");
		print_flags(s, event, record, "clear", clear);
	}
	/* the memory type is said only when the change rewrote it */
	mt = sym_name(event, "memtype", memtype);
	if (!mt || strcmp(mt, "kept")) {
		trace_seq_puts(s, ": ");
		print_sym(s, event, "memtype", memtype, "memtype %lld");
	}
	if ((int)ret) {
		trace_seq_puts(s, " failed (");
		print_errno(s, (int)ret);
		trace_seq_putc(s, ')');
	}
	return 0;
}

static const struct {
	const char *system, *name;
	tep_event_handler_func handler;
} handlers[] = {
	{ CMA_SYSTEM, "cma_alloc_fail", cma_alloc_fail_handler },
	{ LINEAR_MAP_SYSTEM, "linear_map_split", linear_map_split_handler },
	{ LINEAR_MAP_SYSTEM, "linear_map_attr_change",
	  linear_map_attr_change_handler },
};

int TEP_PLUGIN_LOADER(struct tep_handle *tep);
void TEP_PLUGIN_UNLOADER(struct tep_handle *tep);

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++)
		tep_register_event_handler(tep, -1, handlers[i].system,
					   handlers[i].name,
					   handlers[i].handler, NULL);
	return 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++)
		tep_unregister_event_handler(tep, -1, handlers[i].system,
					     handlers[i].name,
					     handlers[i].handler, NULL);
}
