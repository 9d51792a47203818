// SPDX-License-Identifier: GPL-2.0
/* What every command does first: its arguments, the system, the areas. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "kcore.h"

int cmd_parse_args(const struct command *cmd, int argc, char **argv,
		   struct cmd_args *args)
{
	memset(args, 0, sizeof(*args));
	args->width = MAP_WIDTH_DEFAULT;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf("Usage: cmadebug [OPTIONS] %s%s%s\n%s\n%s%s",
			       cmd->name, *cmd->usage ? " " : "", cmd->usage,
			       cmd->summary, cmd->help ? "\n" : "",
			       cmd->help ? cmd->help : "");
			return EXIT_OK;
		}
		if ((cmd->accepts & ARG_SINCE) && !strcmp(a, "--since")) {
			if (i + 1 == argc ||
			    parse_u64(argv[i + 1], strlen(argv[i + 1]),
				      &args->since)) {
				err_msg("%s: --since needs a time in ns (time_ns of a record)",
					cmd->name);
				return EXIT_USAGE;
			}
			args->has_since = true;
			i++;
			continue;
		}
		if ((cmd->accepts & ARG_OUTPUT) &&
		    (!strcmp(a, "-o") || !strcmp(a, "--output"))) {
			if (i + 1 == argc || !*argv[i + 1]) {
				err_msg("%s: %s needs a file name", cmd->name, a);
				return EXIT_USAGE;
			}
			args->output = argv[++i];
			continue;
		}
		if ((cmd->accepts & ARG_COLUMNS) &&
		    (!strcmp(a, "-o") || !strcmp(a, "--columns"))) {
			if (i + 1 == argc || !*argv[i + 1]) {
				err_msg("%s: %s needs a list of columns, as NAME,USED",
					cmd->name, a);
				return EXIT_USAGE;
			}
			args->columns = argv[++i];
			continue;
		}
		if ((cmd->accepts & ARG_WIDTH) && !strcmp(a, "--width")) {
			uint64_t w;

			if (i + 1 == argc ||
			    parse_u64(argv[i + 1], strlen(argv[i + 1]), &w) ||
			    w < 1 || w > MAP_WIDTH_MAX) {
				err_msg("%s: --width needs a number from 1 to %d",
					cmd->name, MAP_WIDTH_MAX);
				return EXIT_USAGE;
			}
			args->width = (unsigned int)w;
			i++;
			continue;
		}
		if ((cmd->accepts & ARG_PID) && !strcmp(a, "--pid")) {
			if (i + 1 == argc ||
			    parse_u64(argv[i + 1], strlen(argv[i + 1]), &args->pid) ||
			    !args->pid || args->pid > INT_MAX) {
				err_msg("%s: --pid needs a process id (a number from 1 to %d)",
					cmd->name, INT_MAX);
				return EXIT_USAGE;
			}
			args->has_pid = true;
			i++;
			continue;
		}
		if ((cmd->accepts & ARG_KCORE) && !strcmp(a, "--kcore")) {
			args->kcore = true;
			continue;
		}
		if ((cmd->accepts & ARG_AREA) && a[0] != '-' && !args->area) {
			args->area = a;
			continue;
		}
		err_msg("%s: unexpected argument '%s' (see 'cmadebug %s --help')",
			cmd->name, a, cmd->name);
		return EXIT_USAGE;
	}
	return -1;
}

int cmd_kcore_open(const struct sysroot *sr, const char *name,
		   const char *absent, bool forced, struct kcore *k)
{
	const char *why;

	if (!sr->live) {
		err_msg("%s: --kcore reads the live kernel's /proc/kcore, not a captured tree",
			name);
		return EXIT_USAGE;
	}
	if (!kcore_open(k, &why))
		return EXIT_OK;
	/* mounting debugfs is the likelier remedy */
	if (!forced && !sysroot_has(sr, FS_DEBUGFS))
		return sysroot_unmounted_error(FS_DEBUGFS);
	err_msg("%s: %s%s%s", name, forced ? "--kcore: " : absent,
		forced ? "" : ", and ", why);
	return EXIT_ENV;
}

int cmd_start(struct cmd_ctx *ctx, const char *name, int argc, char **argv,
	      struct cmd_args *args)
{
	int ret = cmd_parse_args(command_find(name), argc, argv, args);

	if (ret >= 0)
		return ret;
	ret = sysroot_open(ctx->sr, ctx->root_opts);
	return ret ? ret : -1;
}

int cmd_start_areas(struct cmd_ctx *ctx, const char *name, int argc,
		    char **argv, struct cmd_args *args, struct cma_areas *areas, unsigned int *first,
		    unsigned int *last)
{
	int ret = cmd_start(ctx, name, argc, argv, args);

	if (ret >= 0)
		return ret;
	ret = cma_areas_load(ctx->sr, areas);
	if (ret)
		return ret;
	ret = cma_areas_select(areas, args->area, first, last);
	if (ret) {
		cma_areas_free(areas);
		return ret;
	}
	return -1;
}
