/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CMADEBUG_COMMANDS_H
#define CMADEBUG_COMMANDS_H

#include <stdbool.h>

#include "cma.h"
#include "emit.h"
#include "path.h"

/* What every command gets: the parsed global options, nothing global. */
struct cmd_ctx {
	const struct sysroot_opts *root_opts;
	struct sysroot *sr;	/* opened by the command, closed by main */
	struct emit *out;
	bool verbose;
};

/* What a command accepts after its name. */
enum {
	ARG_AREA = 1 << 0,	/* one optional AREA */
	ARG_SINCE = 1 << 1,	/* --since NS */
	ARG_WIDTH = 1 << 2,	/* --width N */
	ARG_OUTPUT = 1 << 3,	/* -o FILE */
	ARG_COLUMNS = 1 << 4,	/* -o, --columns LIST (text tables) */
	ARG_KCORE = 1 << 5,	/* --kcore: arm64's tables through /proc/kcore */
	ARG_PID = 1 << 6,	/* --pid PID: a process's user mappings too */
};

#define MAP_WIDTH_DEFAULT	64
#define MAP_WIDTH_MAX		512

struct command {
	const char *name;
	const char *summary;
	const char *usage;	/* arguments after the command name */
	const char *help;	/* what --help adds: the arguments, examples */
	unsigned int accepts;	/* ARG_* */
	int (*run)(struct cmd_ctx *ctx, int argc, char **argv);
};

struct cmd_args {
	const char *area;	/* NULL: every area */
	bool has_since;
	uint64_t since;		/* only records with time_ns > since */
	unsigned int width;	/* characters of a map strip */
	const char *output;	/* -o FILE */
	const char *columns;	/* -o LIST: "NAME,USED" */
	bool kcore;		/* --kcore */
	bool has_pid;
	uint64_t pid;		/* --pid PID */
};

int cmd_areas(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_events(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_tlb(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_trace(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_stats(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_failures(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_bitmap(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_snapshot(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_splits(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_alias(struct cmd_ctx *ctx, int argc, char **argv);
int cmd_doctor(struct cmd_ctx *ctx, int argc, char **argv);

/*
 * Parses a command's own arguments as cmd->accepts allows.  Returns -1 to
 * go on, else the exit code: 0 after --help, EXIT_USAGE (one error line)
 * for anything else it does not accept.
 */
int cmd_parse_args(const struct command *cmd, int argc, char **argv,
		   struct cmd_args *args);
const struct command *command_find(const char *name);

/*
 * What every command does first: parse its arguments, open the live or
 * captured system (ctx->sr).  Returns -1 to go on, else the exit code (an error line
 * is printed).
 */
int cmd_start(struct cmd_ctx *ctx, const char *name, int argc, char **argv,
	      struct cmd_args *args);

/*
 * cmd_start(), then load the CMA areas and select those the arguments name
 * ([*first, *last]).  On -1 the caller owns *areas (cma_areas_free()).
 */
int cmd_start_areas(struct cmd_ctx *ctx, const char *name, int argc,
		    char **argv, struct cmd_args *args, struct cma_areas *areas, unsigned int *first,
		    unsigned int *last);

struct kcore;
/*
 * /proc/kcore opened for NAME (splits, alias): 0, or the exit code after
 * one error line: EXIT_USAGE on a captured tree, EXIT_ENV when it cannot
 * be read (saying ABSENT, why debugfs was not enough, unless FORCED by
 * --kcore; or that debugfs is not mounted, the likelier remedy).
 */
int cmd_kcore_open(const struct sysroot *sr, const char *name,
		   const char *absent, bool forced, struct kcore *k);

#endif
