// SPDX-License-Identifier: LGPL-2.1
/*
 * libtraceevent plugin: readable cma:cma_alloc_fail, linear_map:linear_map_split
 * and linear_map:linear_map_attr_change lines in trace-cmd report and
 * KernelShark.  The kernel's own print formats are key=value for machines
 * (tracepoints/events.md); this says what happened:
 *
 *   reserved: attempt 1 failed in migrate (-EBUSY): pfns 0x7e040+8128 align 0;
 *     page 0x7e041 movable_ops Isolate ref 2 map 0 flags 0x40010000
 *   reserved: no free run of 9 pages (-ENOMEM, attempt 1)
 *   cma-remap: 16 1M entries split into 4k: 0xd7000000+16 MiB
 *   dma-remap: 0xd7000000+1 MiB (pfn 0x57000) MEM/CACHED/WBRA -> MEM/BUFFERABLE/WC
 *   set_memory: 0xffff000000bf0000+4 KiB (pfn 0x40bf0) MEM/NORMAL -> MEM/NORMAL-NC failed (-EINVAL)
 *
 * Build and install: make -C tracepoints [install PREFIX=/usr DESTDIR=...].
 */
#include <stdint.h>
#include <stdio.h>
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

static const char *errno_name(long long err)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (errnos[i].err == err)
			return errnos[i].name;
	return NULL;
}

/* " (-EBUSY)" or " (-99)". */
static void print_errno(struct trace_seq *s, long long err)
{
	const char *ename = errno_name(err);

	if (ename)
		trace_seq_printf(s, " (-%s)", ename);
	else
		trace_seq_printf(s, " (%lld)", err);
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

static int cma_alloc_fail_handler(struct trace_seq *s,
				  struct tep_record *record,
				  struct tep_event *event, void *context)
{
	unsigned long long start, count, align, attempt, pfn, flags, owner;
	unsigned long long err, ref, map;
	const char *ename;

	(void)context;
	if (tep_get_field_val(s, event, "start_pfn", record, &start, 1) ||
	    tep_get_field_val(s, event, "count", record, &count, 1) ||
	    tep_get_field_val(s, event, "align", record, &align, 1) ||
	    tep_get_field_val(s, event, "attempt", record, &attempt, 1) ||
	    tep_get_field_val(s, event, "errorno", record, &err, 1) ||
	    tep_get_field_val(s, event, "pfn", record, &pfn, 1))
		return 0;	/* the missing field is named in the output */
	ename = errno_name((long long)(int)err);
	trace_seq_printf(s, "%s: ", str_field(s, event, "name", record));
	if (is_none(event, "start_pfn", start)) {
		trace_seq_printf(s, "no free run of %llu pages", count);
		if (align)
			trace_seq_printf(s, " aligned to order %llu", align);
		if (ename)
			trace_seq_printf(s, " (-%s, attempt %llu)", ename, attempt);
		else
			trace_seq_printf(s, " (%d, attempt %llu)", (int)err, attempt);
		return 0;
	}
	trace_seq_printf(s, "attempt %llu failed in %s", attempt,
			 str_field(s, event, "stage", record));
	print_errno(s, (int)err);
	trace_seq_printf(s, ": pfns 0x%llx+%llu align %llu; ", start, count, align);
	if (is_none(event, "pfn", pfn)) {
		trace_seq_puts(s, "no single page to blame");
		return 0;
	}
	if (tep_get_field_val(s, event, "flags", record, &flags, 1) ||
	    tep_get_field_val(s, event, "refcount", record, &ref, 1) ||
	    tep_get_field_val(s, event, "mapcount", record, &map, 1) ||
	    tep_get_field_val(s, event, "owner", record, &owner, 1))
		return 0;
	trace_seq_printf(s, "page 0x%llx %s %s ref %d map %d flags 0x%llx", pfn,
			 str_field(s, event, "kind", record),
			 str_field(s, event, "migratetype", record), (int)ref,
			 (int)map, flags);
	if (owner)
		trace_seq_printf(s, " owner %llu", owner);
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

/*
 * The cause enums of include/linux/linear_map_debug.h, as the events'
 * __print_symbolic() names them (the format files carry the numbers).
 */
static const char *const split_causes[] = { "cma-remap", "page-granular", "forced" };
static const char *const attr_causes[] = { "dma-remap", "set_memory", "set_direct_map" };

static void print_cause(struct trace_seq *s, const char *const *names,
			size_t nr, unsigned long long cause)
{
	if (cause < nr)
		trace_seq_puts(s, names[cause]);
	else
		trace_seq_printf(s, "cause %d", (int)cause);
}

static int linear_map_split_handler(struct trace_seq *s,
				    struct tep_record *record,
				    struct tep_event *event, void *context)
{
	unsigned long long addr, size, count, cause;

	(void)context;
	if (tep_get_field_val(s, event, "addr", record, &addr, 1) ||
	    tep_get_field_val(s, event, "size", record, &size, 1) ||
	    tep_get_field_val(s, event, "count", record, &count, 1) ||
	    tep_get_field_val(s, event, "cause", record, &cause, 1))
		return 0;	/* the missing field is named in the output */
	print_cause(s, split_causes, sizeof(split_causes) / sizeof(split_causes[0]),
		    cause);
	trace_seq_printf(s, ": %llu %s entr%s split into %s: 0x%llx+", count,
			 str_field(s, event, "from", record), count == 1 ? "y" : "ies",
			 str_field(s, event, "to", record), addr);
	print_size(s, size);
	return 0;
}

static int linear_map_attr_change_handler(struct trace_seq *s,
					  struct tep_record *record,
					  struct tep_event *event,
					  void *context)
{
	unsigned long long start, pfn, size, ret, cause;

	(void)context;
	if (tep_get_field_val(s, event, "start", record, &start, 1) ||
	    tep_get_field_val(s, event, "pfn", record, &pfn, 1) ||
	    tep_get_field_val(s, event, "size", record, &size, 1) ||
	    tep_get_field_val(s, event, "ret", record, &ret, 1) ||
	    tep_get_field_val(s, event, "cause", record, &cause, 1))
		return 0;
	print_cause(s, attr_causes, sizeof(attr_causes) / sizeof(attr_causes[0]),
		    cause);
	trace_seq_printf(s, ": 0x%llx+", start);
	print_size(s, size);
	trace_seq_printf(s, " (pfn 0x%llx) %s -> %s", pfn,
			 str_field(s, event, "old_type", record),
			 str_field(s, event, "new_type", record));
	if ((int)ret) {
		trace_seq_puts(s, " failed");
		print_errno(s, (int)ret);
	}
	return 0;
}

static const struct {
	const char *system, *name;
	tep_event_handler_func handler;
} handlers[] = {
	{ CMA_SYSTEM, "cma_alloc_fail", cma_alloc_fail_handler },
	{ LINEAR_MAP_SYSTEM, "linear_map_split", linear_map_split_handler },
	{ LINEAR_MAP_SYSTEM, "linear_map_attr_change", linear_map_attr_change_handler },
};

int TEP_PLUGIN_LOADER(struct tep_handle *tep);
void TEP_PLUGIN_UNLOADER(struct tep_handle *tep);

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++)
		tep_register_event_handler(tep, -1, handlers[i].system,
					   handlers[i].name, handlers[i].handler,
					   NULL);
	return 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++)
		tep_unregister_event_handler(tep, -1, handlers[i].system,
					     handlers[i].name, handlers[i].handler,
					     NULL);
}
