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
	{ .name = "areas", .run = cmd_areas, .accepts = ARG_COLUMNS,
	  .summary = "list the CMA areas: range, size, usage, counters, devices",
	  .usage = "[-o LIST]",
	  .help =
	  "  -o, --columns LIST  the table's columns, in this order (any case):\n"
	  "                      NAME BASE_PFN PHYS_RANGE SIZE USED MAXCHUNK ORDER\n"
	  "                      ALLOC_OK_PAGES ALLOC_FAIL_PAGES AVAILABLE RANGES\n"
	  "                      DEVICES; one this kernel lacks is left out\n"
	  "SIZE, USED, MAXCHUNK are sizes (--bytes: exact bytes); the ALLOC_* counters\n"
	  "count pages (sysfs alloc_pages_success/fail); DEVICES are the devices a\n"
	  "device-private area serves, with their drivers (kernel-patches/).\n"
	  "Examples:\n"
	  "  cmadebug areas\n"
	  "  cmadebug areas -o name,used,maxchunk,devices\n"
	  "  cmadebug --root board-capture/root areas --json\n" },
	{ .name = "stats", .run = cmd_stats, .accepts = ARG_AREA,
	  .summary = "allocation statistics per area (kernel-patches/)",
	  .usage = "[AREA]",
	  .help =
	  "REQUESTS, OK_REQUESTS, FAILED_REQUESTS count cma_alloc() calls; FAIL_<STAGE>\n"
	  "splits the failed ones by the stage that failed; MIGRATED_PAGES counts pages.\n"
	  "LAST_FAILURE is the time since boot of the latest failure (JSON: ns).\n"
	  "Examples:\n"
	  "  cmadebug stats\n"
	  "  cmadebug stats reserved --json\n" },
	{ .name = "failures", .run = cmd_failures, .accepts = ARG_AREA | ARG_SINCE,
	  .summary = "why allocations failed: stage, page, state (kernel-patches/)",
	  .usage = "[--since NS] [AREA]",
	  .help =
	  "  --since NS  only failures after NS (a record's time_ns in --json)\n"
	  "TIME is since boot; PFN, KIND, REF, MAP, FLAGS describe the page the kernel\n"
	  "blamed.  Examples:\n"
	  "  cmadebug failures reserved\n"
	  "  cmadebug failures --json --since 912184848\n" },
	{ .name = "bitmap", .run = cmd_bitmap, .accepts = ARG_AREA | ARG_WIDTH,
	  .summary = "allocation map per area: pfn runs and a strip",
	  .usage = "[--width N] [AREA]",
	  .help =
	  "  --width N  the strip's width in characters (1-512, default 64)\n"
	  "PAGES and USED_PAGES count pages.  Examples:\n"
	  "  cmadebug bitmap fimc-pool\n"
	  "  cmadebug bitmap --width 128 --json\n" },
	{ .name = "splits", .run = cmd_splits, .accepts = ARG_KCORE,
	  .summary = "the linear map by entry size; splits and attribute changes by cause",
	  .usage = "[--kcore]",
	  .help =
	  "From the series' linear_map/ files, or the kernel's ptdump\n"
	  "(kernel_page_tables) without them; on a live arm64 kernel with neither,\n"
	  "the layout and the ranges mapped with pages from its page tables\n"
	  "through /proc/kcore (root).\n"
	  "  --kcore  through /proc/kcore even when debugfs has the others\n"
	  "Examples:\n"
	  "  cmadebug splits\n"
	  "  cmadebug splits --bytes\n"
	  "  sudo cmadebug splits --kcore --json\n" },
	{ .name = "alias", .run = cmd_alias, .accepts = ARG_KCORE | ARG_PID,
	  .summary = "linear-map pages mapped again with another memory type (exit 3)",
	  .usage = "[--kcore | --pid PID]",
	  .help =
	  "From the series' linear_map/alias_check, or on a live arm64 kernel\n"
	  "without it and ptdump, from its page tables through /proc/kcore (root):\n"
	  "non-cacheable mappings of linear-mapped RAM outside the linear map.\n"
	  "  --kcore    through /proc/kcore even when debugfs has alias_check\n"
	  "  --pid PID  also process PID's user mappings (region user): writes PID\n"
	  "             to linear_map/alias_check_pid for the check, then puts back\n"
	  "             what was there (live system only)\n"
	  "Exit status 3 when a hazard is listed.  Examples:\n"
	  "  cmadebug alias\n"
	  "  cmadebug alias --json || echo conflicts\n"
	  "  cmadebug alias --pid $(pidof camera-app)\n" },
	{ .name = "snapshot", .run = cmd_snapshot, .accepts = ARG_OUTPUT,
	  .summary = "everything above as one JSON document, written atomically",
	  .usage = "-o FILE",
	  .help =
	  "  -o FILE  the document (indented JSON); '-' for standard output.  A regular\n"
	  "           file is replaced atomically; anything else (a pipe, /dev/stdout)\n"
	  "           gets the document once it is whole, nothing if a part fails\n"
	  "Examples:\n"
	  "  cmadebug snapshot -o board.json\n"
	  "  cmadebug --root capture/root snapshot -o -\n" },
	{ .name = "doctor", .run = cmd_doctor,
	  .summary = "which views this kernel has, what would add the missing ones (exit 2)",
	  .usage = "",
	  .help =
	  "Each view cmadebug reads, whether the kernel has it, and the config option\n"
	  "or kernel-patches/ that adds it; then whether the series applies to this\n"
	  "kernel's version (it is made for Linux 6.12).  Exit status 0 when every\n"
	  "view is there, 2 when one is missing.  Examples:\n"
	  "  cmadebug doctor\n"
	  "  cmadebug --root board-capture/root doctor --json\n" },
	{ .name = "events", .run = cmd_events,
	  .summary = "list the trace events cmadebug reads, and their fields",
	  .usage = "",
	  .help =
	  "Examples:\n"
	  "  cmadebug events\n"
	  "  cmadebug --tracefs /sys/kernel/debug/tracing events\n" },
	{ .name = "trace", .run = cmd_trace,
	  .summary = "record CMA/linear-map events and summarize; or a trace.dat",
	  .usage = "record|report ..." },
	{ .name = "tlb", .run = cmd_tlb,
	  .summary = "kernel-only TLB, instruction, cycle counts around a walk",
	  .usage = "walk|events ..." },
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
		"  -j, --json         JSON output, one line; errors as {\"error\": ...} too\n"
		"  -p, --pretty       JSON output, indented\n"
		"  -b, --bytes        sizes as exact byte counts in text (JSON always is)\n"
		"  -v, --verbose      explain where numbers come from (stderr)\n"
		"  -V, --version      print the version\n"
		"  -h, --help         this help\n"
		"Global options may also follow the command (before --).\n"
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
	{ "-p", "--pretty", false, 'p' },
	{ "-b", "--bytes", false, 'b' },
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

/* How the output looks: the global options that shape it. */
struct out_style {
	bool json, pretty, exact_bytes;
};

/* Applies global option OPT; -1 to go on, or the exit status. */
static int apply_global_option(int opt, const char *value,
			       struct sysroot_opts *root_opts,
			       struct cmd_ctx *ctx, struct out_style *style)
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
		style->json = true;
		return -1;
	case 'p':
		style->json = style->pretty = true;
		return -1;
	case 'b':
		style->exact_bytes = true;
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
		{ "pretty", no_argument, NULL, 'p' },
		{ "bytes", no_argument, NULL, 'b' },
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
	struct out_style style = { 0 };
	struct emit out;
	int opt, ret, cargc;

	/*
	 * '+': stop at the command; its own options are its business.  ':'
	 * and opterr = 0: getopt's two-line complaints become one line here.
	 */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:r:jpbvVh", long_opts, NULL)) != -1) {
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
		ret = apply_global_option(opt, optarg, &root_opts, &ctx, &style);
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
		apply_global_option(opt, value, &root_opts, &ctx, &style);
		i += used - 1;
	}

	emit_init(&out, stdout, style.json);
	out.pretty = style.pretty;
	out.exact_bytes = style.exact_bytes;
	ctx.out = &out;
	ret = cmd->run(&ctx, cargc, cargv);
	sysroot_close(&sr);
	free(cargv);
	/* A check that found a problem (alias: 3) has written its report. */
	if ((ret == EXIT_OK || ret == EXIT_PROBLEM) && emit_finish(&out)) {
		err_msg("writing the output failed");
		ret = EXIT_ENV;
	}
	if (ret != EXIT_OK && ret != EXIT_PROBLEM && style.json && !out.started)
		emit_error(&out, err_last(), ret);
	return ret;
}
