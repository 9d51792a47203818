// SPDX-License-Identifier: GPL-2.0
/* trace.dat through libtracecmd (see trace_report.h). */
#include <errno.h>
#include <string.h>

#include "trace_report.h"
#include "util.h"

#ifdef HAVE_LIBTRACECMD
#include <trace-cmd.h>

struct report_ctx {
	struct trace_conv conv;
	struct trace_recs *r;
	unsigned int malformed;
	int err;
};

static int on_record(struct tracecmd_input *h, struct tep_record *rec,
		     int cpu, void *data)
{
	struct report_ctx *ctx = data;
	struct trace_rec *out;
	int n;

	(void)h;
	(void)cpu;
	if (rec->missed_events > 0)
		ctx->r->lost += (uint64_t)rec->missed_events;
	else if (rec->missed_events < 0)
		ctx->r->lost_unknown = true;
	out = trace_recs_add(ctx->r);
	if (!out) {
		ctx->err = -ENOMEM;
		return 1;	/* stop */
	}
	n = trace_conv_record(&ctx->conv, rec, out);
	if (n <= 0)
		ctx->r->nr--;
	if (n < 0)
		ctx->malformed++;
	return 0;
}

/* One buffer (the top level, or an instance): 0, -ENOENT or -ENOMEM. */
static int read_buffer(struct tracecmd_input *h, struct report_ctx *ctx)
{
	if (trace_conv_init(&ctx->conv, tracecmd_get_tep(h)))
		return -ENOENT;
	if (tracecmd_iterate_events(h, NULL, 0, on_record, ctx) < 0 &&
	    !ctx->err)
		return -EINVAL;
	return ctx->err;
}

int trace_report_load(const char *file, struct trace_recs *r)
{
	struct report_ctx ctx = { .r = r };
	struct tracecmd_input *h;
	bool found = false;
	int ret, n;

	memset(r, 0, sizeof(*r));
	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(file, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		err_msg("trace report: %s: %s", file,
			errno && errno != EINVAL ? strerror(errno) :
			"not a trace.dat file libtracecmd can read");
		return EXIT_ENV;
	}
	ret = read_buffer(h, &ctx);
	found = !ret;
	n = tracecmd_buffer_instances(h);
	for (int i = 0; i < n && (!ret || ret == -ENOENT); i++) {
		struct tracecmd_input *ih = tracecmd_buffer_instance_handle(h, i);

		if (!ih)
			continue;
		ret = read_buffer(ih, &ctx);
		found |= !ret;
		tracecmd_close(ih);
	}
	tracecmd_close(h);
	if (ret == -ENOMEM) {
		err_msg("out of memory");
	} else if (ret == -EINVAL) {
		err_msg("trace report: %s: the event data cannot be read", file);
	} else if (!found) {
		err_msg("trace report: %s holds no cma, migrate or linear_map events' formats",
			file);
		ret = -ENOENT;
	} else {
		ret = 0;
		if (ctx.malformed)
			err_msg("trace report: %s: %u malformed records skipped",
				file, ctx.malformed);
	}
	if (ret) {
		trace_recs_free(r);
		return EXIT_ENV;
	}
	trace_recs_sort(r);
	return EXIT_OK;
}
#else
int trace_report_load(const char *file, struct trace_recs *r)
{
	(void)file;
	memset(r, 0, sizeof(*r));
	err_msg("trace report: this cmadebug was built without libtracecmd (a static build); run it on the host");
	return EXIT_ENV;
}
#endif
