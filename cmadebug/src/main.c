// SPDX-License-Identifier: GPL-2.0
/*
 * cmadebug: inspect the Contiguous Memory Allocator and the ARM linear map.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

#ifndef CMADEBUG_VERSION
#define CMADEBUG_VERSION "0.1"
#endif

static const struct command commands[] = {
	{ "areas", "list the CMA areas: range, size, usage, counters", "",
	  0, cmd_areas },
	{ "stats", "allocation statistics per area (kernel-patches/)", "[AREA]",
	  ARG_AREA, cmd_stats },
	{ "failures", "why allocations failed: stage, page, state (kernel-patches/)",
	  "[--since NS] [AREA]", ARG_AREA | ARG_SINCE, cmd_failures },
	{ "bitmap", "allocation map per area: pfn runs and a strip",
	  "[--width N] [AREA]", ARG_AREA | ARG_WIDTH, cmd_bitmap },
	{ "splits", "the linear map by entry size; splits and attribute changes by cause",
	  "", 0, cmd_splits },
	{ "alias", "linear-map pages mapped again with another memory type (exit 3)",
	  "", 0, cmd_alias },
	{ "snapshot", "everything above as one JSON document, written atomically",
	  "-o FILE", ARG_OUTPUT, cmd_snapshot },
	{ "events", "list the trace events cmadebug reads, and their fields", "",
	  0, cmd_events },
	{ "trace", "record CMA/linear-map events and summarize; or a trace.dat", "record|report ...", 0, cmd_trace },
	{ "tlb", "kernel-only TLB, instruction, cycle counts around a walk", "walk ...", 0, cmd_tlb },
};

const struct command *command_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: cmadebug [OPTIONS] COMMAND [ARGS]\n"
		"\n"
		"Options:\n"
		"  -r, --root DIR     read a captured tree under DIR instead of the live system\n"
		"      --debugfs DIR  debugfs mount point (default: from /proc/mounts; env CMADEBUG_DEBUGFS)\n"
		"      --tracefs DIR  tracefs mount point (default: from /proc/mounts; env CMADEBUG_TRACEFS)\n"
		"  -j, --json         JSON output\n"
		"  -v, --verbose      explain where numbers come from (stderr)\n"
		"  -V, --version      print the version\n"
		"  -h, --help         this help\n"
		"-r, --debugfs, --tracefs, -j and -v may also follow the command (before --).\n"
		"'cmadebug help COMMAND' or 'cmadebug COMMAND --help': what COMMAND takes.\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out,
		"\nExit status: 0 ok, 1 usage, 2 environment (no debugfs, no permission,\n"
		"kernel lacks a feature), 3 a check found a problem.\n");
}

/*
 * The global options that may also follow the command, before any "--"
 * (no command has options of these names): "cmadebug areas --json".
 */
static const struct {
	const char *name, *alt;	/* "-j", "--json" */
	bool value;
	int opt;
} after_command[] = {
	{ "-j", "--json", false, 'j' },
	{ "-v", "--verbose", false, 'v' },
	{ "-r", "--root", true, 'r' },
	{ NULL, "--debugfs", true, 'D' },
	{ NULL, "--tracefs", true, 'T' },
};

/*
 * The option ARG names (with its value in ARG itself, "--root=DIR", or in
 * NEXT), as getopt would return it; 0 if ARG is not one.  *USED: how many
 * words it took, 0 when its value is missing.
 */
static int global_option_after(const char *arg, const char *next,
			       const char **value, int *used)
{
	for (size_t i = 0; i < ARRAY_SIZE(after_command); i++) {
		size_t alen = strlen(after_command[i].alt);

		*used = 1;
		*value = NULL;
		if ((after_command[i].name && !strcmp(arg, after_command[i].name)) ||
		    !strcmp(arg, after_command[i].alt)) {
			if (after_command[i].value) {
				*value = next;
				*used = next ? 2 : 0;
			}
			return after_command[i].opt;
		}
		if (after_command[i].value && !strncmp(arg, after_command[i].alt, alen) &&
		    arg[alen] == '=') {
			*value = arg + alen + 1;
			return after_command[i].opt;
		}
	}
	return 0;
}

/* Applies global option OPT; -1 to go on, or the exit status. */
static int apply_global_option(int opt, const char *value,
			       struct sysroot_opts *root_opts,
			       struct cmd_ctx *ctx, bool *json)
{
	switch (opt) {
	case 'r':
		root_opts->root = value;
		return -1;
	case 'D':
		root_opts->debugfs = value;
		return -1;
	case 'T':
		root_opts->tracefs = value;
		return -1;
	case 'j':
		*json = true;
		return -1;
	case 'v':
		ctx->verbose = true;
		return -1;
	case 'V':
		printf("cmadebug %s\n", CMADEBUG_VERSION);
		return EXIT_OK;
	case 'h':
		usage(stdout);
		return EXIT_OK;
	default:
		err_msg("unknown option (see 'cmadebug --help')");
		return EXIT_USAGE;
	}
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "debugfs", required_argument, NULL, 'D' },
		{ "tracefs", required_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sysroot_opts root_opts = {
		.debugfs = getenv("CMADEBUG_DEBUGFS"),
		.tracefs = getenv("CMADEBUG_TRACEFS"),
	};
	struct sysroot sr = { .root_fd = -1 };
	struct cmd_ctx ctx = { .root_opts = &root_opts, .sr = &sr };
	const struct command *cmd;
	char **cargv;
	bool json = false;
	struct emit out;
	int opt, ret, cargc;

	/*
	 * '+': stop at the command; its own options are its business.  ':'
	 * and opterr = 0: getopt's two-line complaints become one line here.
	 */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:r:jvVh", long_opts, NULL)) != -1) {
		if (opt == ':' || opt == '?') {
			/* A long option is its word; a short one may be in a group. */
			const char *word = argv[optind - 1];
			char letter[3] = { '-', (char)optopt, '\0' };

			if (strncmp(word, "--", 2) && optopt)
				word = letter;
			err_msg("%s '%s' (see 'cmadebug --help')",
				opt == ':' ? "a value is missing after" :
				"unknown option", word);
			return EXIT_USAGE;
		}
		ret = apply_global_option(opt, optarg, &root_opts, &ctx, &json);
		if (ret >= 0)
			return ret;
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* "cmadebug help [COMMAND]": the same as --help, or COMMAND --help. */
	if (!strcmp(argv[optind], "help")) {
		char help_word[] = "--help";
		char *help_argv[] = { NULL, help_word, NULL };

		if (optind + 1 >= argc) {
			usage(stdout);
			return EXIT_OK;
		}
		cmd = command_find(argv[optind + 1]);
		if (!cmd || optind + 2 < argc) {
			err_msg("help: '%s' is not one command (see 'cmadebug --help')",
				argv[optind + 1]);
			return EXIT_USAGE;
		}
		help_argv[0] = argv[optind + 1];
		emit_init(&out, stdout, false);
		ctx.out = &out;
		return cmd->run(&ctx, 2, help_argv);
	}
	cmd = command_find(argv[optind]);
	if (!cmd) {
		err_msg("unknown command '%s' (see 'cmadebug --help')",
			argv[optind]);
		return EXIT_USAGE;
	}

	/* Global options after the command, up to "--", are taken out. */
	cargc = 1;
	cargv = calloc((size_t)(argc - optind) + 1, sizeof(*cargv));
	if (!cargv) {
		err_msg("out of memory");
		return EXIT_ENV;
	}
	cargv[0] = argv[optind];
	for (int i = optind + 1; i < argc; i++) {
		const char *value;
		int used;

		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				cargv[cargc++] = argv[i++];
			break;
		}
		opt = global_option_after(argv[i], argv[i + 1], &value, &used);
		if (!opt) {
			cargv[cargc++] = argv[i];
			continue;
		}
		if (!used) {
			err_msg("a value is missing after '%s' (see 'cmadebug --help')",
				argv[i]);
			free(cargv);
			return EXIT_USAGE;
		}
		apply_global_option(opt, value, &root_opts, &ctx, &json);
		i += used - 1;
	}

	emit_init(&out, stdout, json);
	ctx.out = &out;
	ret = cmd->run(&ctx, cargc, cargv);
	sysroot_close(&sr);
	free(cargv);
	/* A check that found a problem (alias: 3) has written its report. */
	if ((ret == EXIT_OK || ret == EXIT_PROBLEM) && emit_finish(&out)) {
		err_msg("writing the output failed");
		ret = EXIT_ENV;
	}
	return ret;
}
