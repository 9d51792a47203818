/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CMADEBUG_COMMANDS_H
#define CMADEBUG_COMMANDS_H

#include <stdbool.h>

#include "emit.h"
#include "path.h"

/* What every command gets: the parsed global options, nothing global. */
struct cmd_ctx {
	const struct sysroot_opts *root_opts;
	struct emit *out;
	bool verbose;
};

struct command {
	const char *name;
	const char *summary;
	const char *usage;	/* arguments after the command name */
	int (*run)(struct cmd_ctx *ctx, int argc, char **argv);
};

int cmd_areas(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_events(struct cmd_ctx *ctx, int argc, char **argv);

/*
 * Handles a command's own options (only --help for now).  Returns -1 to go
 * on, else the exit code.  Prints usage for -h/--help or a stray argument.
 */
int cmd_parse_no_args(const struct command *cmd, int argc, char **argv);
const struct command *command_find(const char *name);

#endif
