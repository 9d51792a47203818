// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "events.h"

int cmd_events(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct emit *e = ctx->out;
	struct event_list list;
	struct cmd_args args;
	struct sysroot *sr = ctx->sr;
	int ret;

	ret = cmd_start(ctx, "events", argc, argv, &args);
	if (ret >= 0)
		return ret;
	ret = events_load(sr, &list);
	if (ret)
		return ret;

	emit_object_begin(e, NULL);
	emit_list_begin(e, "events");
	for (unsigned int i = 0; i < list.nr; i++) {
		const struct event_info *ev = &list.ev[i];
		char fields[512] = "";

		emit_object_begin(e, NULL);
		emit_string(e, "system", "SYSTEM", ev->system);
		emit_string(e, "name", "EVENT", ev->name);
		emit_bool(e, "present", "PRESENT", ev->present);
		emit_list_begin(e, "fields");
		for (unsigned int f = 0; f < ev->nr_fields; f++)
			emit_string(e, NULL, NULL, ev->fields[f]);
		emit_list_end(e);
		/* The text table shows the fields joined on one line. */
		for (unsigned int f = 0; f < ev->nr_fields; f++) {
			size_t used = strlen(fields);

			snprintf(fields + used, sizeof(fields) - used, "%s%s",
				 f ? "," : "", ev->fields[f]);
		}
		emit_string(e, NULL, "FIELDS",
			    ev->present ? fields : ev->feature);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_uint(e, "nr_present", "Present", FMT_DEC, list.nr_present);
	emit_uint(e, "nr_known", "Known", FMT_DEC, list.nr);
	emit_object_end(e);
	events_free(&list);
	return EXIT_OK;
}
