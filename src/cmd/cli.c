/* cmd/cli.c - the command table, option parsing, and the one runner */
#include "config.h"
#include "cmd/cli.h"
#include "cmd/options.h"
#include "audit/checks.h"
#include "audit/diff.h"
#include "read/lazylib.h"
#include "nodeaudit-describe.h"
#include "lib/output.h"
#include "lib/textlayout.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <hwloc.h>
#include <libsmartcols.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*** The command table (the order of nodeaudit(1) COMMANDS and --help) ***/

const struct command *const commands[] = {
	&cmd_probe, &cmd_check, &cmd_plan, &cmd_bench, &cmd_snapshot, &cmd_profiles,
	&cmd_explain, &cmd_report, &cmd_diff, &cmd_help,
};
const size_t ncommands = ARRAY_SIZE(commands);

const struct command *find_command(const char *name)
{
	size_t i;
	for (i = 0; i < ncommands; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

/*
 * --version: the release, the commit it was built from (git describe at
 * build time, or the release tarball's), the libraries it links, and the
 * ones it loads by name (libcpuid, optional where a platform lacks it;
 * libarchive, for an archive sysroot): whether this machine has each,
 * lacks it, or has one that does not load.
 */
static void print_lazylib(const char *soname, const char *use)
{
	struct lazylib l = { soname, 0, "" };
	if (lazylib_load(&l, NULL, 0) == 0)
		printf("  %-18s found          %s\n", soname, use);
	else
		printf("  %-18s %-14s %s (%s)\n", soname,
		       l.state == LAZYLIB_MISSING ? "not installed" : "broken", use, l.err);
}

static void print_version(void)
{
	unsigned hv = hwloc_get_api_version();
	const char *scols = NULL;
	printf("nodeaudit %s", PACKAGE_VERSION);
	if (*NODEAUDIT_DESCRIBE)
		printf(" (%s)", NODEAUDIT_DESCRIBE);
	else
		printf(" (commit unknown: built outside git, not from a release tarball)");
	scols_get_library_version(&scols);
	printf("\nlinked: cJSON %d.%d.%d, hwloc API %u.%u.%u, libnuma, libpci, libsmartcols %s, libm\n",
	       CJSON_VERSION_MAJOR, CJSON_VERSION_MINOR, CJSON_VERSION_PATCH, hv >> 16, hv >> 8 & 0xff, hv & 0xff,
	       scols ? scols : "?");
	printf("loaded by name when a command needs it, on this machine:\n");
#ifdef HAVE_LIBCPUID
	print_lazylib(CPUID_SONAME, "CPUID: codenames, a --cpuid-dump");
#endif
	print_lazylib(ARCHIVE_SONAME, "a --sysroot archive (.tar, .tar.gz, .tar.xz, .tar.bz2)");
#ifndef HAVE_LIBCPUID
	printf("built without libcpuid: no CPUID decoding (codenames, --cpuid-dump)\n");
#endif
}

/*** Parsing ***/

static const struct cmd_option *find_long(const struct command *c, const char *name, size_t n,
					  int *global)
{
	const struct cmd_option *o;
	size_t i;
	for (i = 0; i < nglobal_options; i++)
		if (strlen(global_options[i].o.name) == n && !strncmp(global_options[i].o.name, name, n)) {
			*global = 1;
			return &global_options[i].o;
		}
	for (o = c ? c->options : NULL; o && o->name; o++)
		if (strlen(o->name) == n && !strncmp(o->name, name, n)) {
			*global = 0;
			return o;
		}
	return NULL;
}

static const struct cmd_option *find_short(const struct command *c, int ch, int *global)
{
	const struct cmd_option *o;
	size_t i;
	for (i = 0; i < nglobal_options; i++)
		if (global_options[i].o.key == ch) {
			*global = 1;
			return &global_options[i].o;
		}
	for (o = c ? c->options : NULL; o && o->name; o++)
		if (o->key == ch) {
			*global = 0;
			return o;
		}
	return NULL;
}

/* The option of c (or a global one) nearest to a mistyped name, or NULL. */
static const char *suggest_option(const struct command *c, const char *name, size_t n)
{
	const char *names[128], *sug;
	const struct cmd_option *o;
	char *w = xstrndup(name, n);
	size_t i, k = 0;
	for (i = 0; i < nglobal_options && k + 1 < ARRAY_SIZE(names); i++)
		if (global_options[i].o.help)
			names[k++] = global_options[i].o.name;
	for (o = c ? c->options : NULL; o && o->name && k + 1 < ARRAY_SIZE(names); o++)
		names[k++] = o->name;
	names[k] = NULL;
	sug = closest_word(w, names);
	free(w);
	return sug;
}

/* Does this option word (of any command) take a value in the next word? */
static int takes_value(const char *w)
{
	const struct cmd_option *o = NULL;
	size_t i;
	int g;
	if (!strncmp(w, "--", 2)) {
		if (strchr(w, '='))
			return 0;
		o = find_long(NULL, w + 2, strlen(w + 2), &g);
		for (i = 0; !o && i < ncommands; i++)
			o = find_long(commands[i], w + 2, strlen(w + 2), &g);
	} else if (w[0] == '-' && w[1] && !w[2]) {
		o = find_short(NULL, (unsigned char)w[1], &g);
		for (i = 0; !o && i < ncommands; i++)
			o = find_short(commands[i], (unsigned char)w[1], &g);
	}
	return o && o->arg;
}

int cli_find_command(int argc, char **argv)
{
	int i;
	for (i = 0; i < argc; i++) {
		const char *w = argv[i];
		if (!strcmp(w, "--"))
			return i + 1 < argc ? i + 1 : -1;
		if (w[0] == '-' && w[1]) {
			if (takes_value(w))
				i++;
			continue;
		}
		return i;
	}
	return -1;
}

/* -q and -v both given: refused once the options are read. */
static int quiet_seen, verbose_seen;

static int global_option(int key, const char *arg)
{
	switch (key) {
	case OPT_SYSROOT: G.probe.sysroot = arg; return 0;
	case OPT_SMBIOS: G.probe.smbios = arg; return 0;
	case OPT_PCI_DUMP: G.probe.pci_dump = arg; return 0;
	case OPT_CPUID_DUMP: G.probe.cpuid_dump = arg; return 0;
	case OPT_FORMAT: G.format = arg; return 0;
	case OPT_OUTPUT: G.output = arg; return 0;
	case OPT_COLOR:
	case OPT_COLOUR:
		if (strcmp(arg, "auto") && strcmp(arg, "always") && strcmp(arg, "never"))
			return usage_error(NULL, "--color takes auto, always or never, not '%s'", arg);
		G.color = arg;
		return 0;
	case OPT_QUIET: verbosity = -1; quiet_seen = 1; return 0;
	case OPT_VERBOSE: verbosity = verbosity < 0 ? 1 : verbosity + 1; verbose_seen = 1; return 0;
	}
	return -1;
}

#define shown str_shown

/* "--name=value" or "--name value" at argv[*i]: the option, whether it is
 * global, and its value; 0, or -1 after usage_error(). */
static int parse_long(const struct command *c, int argc, char **argv, int *i,
		      const struct cmd_option **op, int *global, const char **val)
{
	const char *w = argv[*i];
	const char *eq = strchr(w + 2, '=');
	size_t n = eq ? (size_t)(eq - w - 2) : strlen(w + 2);
	const struct cmd_option *o;
	char b1[48];
	o = find_long(c, w + 2, n, global);
	if (!o) {
		char name[48];
		const char *sug = suggest_option(c, w + 2, n);
		snprintf(name, sizeof(name), "%.*s", (int)(n + 2 < 47 ? n + 2 : 47), w);
		if (sug)
			return usage_error(c->name, "unknown option '%s' (did you mean '--%s'?)",
					   shown(name, b1, sizeof(b1)), sug);
		return usage_error(c->name, "unknown option '%s'", shown(name, b1, sizeof(b1)));
	}
	*op = o;
	if (o->arg) {
		if (eq)
			*val = eq + 1;
		else if (*i + 1 < argc)
			*val = argv[++*i];
		else
			return usage_error(c->name, "option '--%s' needs a value", o->name);
	} else if (eq)
		return usage_error(c->name, "option '--%s' takes no value", o->name);
	return 0;
}

/* A cluster of short options at argv[*i]: -qv, -ofile, -o file.  The flags
 * before the last are applied here; the last option (and its value) is
 * left for the caller.  0, or -1 after usage_error(). */
static int parse_short(const struct command *c, struct invocation *inv, int argc, char **argv, int *i,
		       const struct cmd_option **op, int *global, const char **val)
{
	const char *p = argv[*i] + 1;
	const struct cmd_option *o;
	char b1[48];
	for (; *p; p++) {
		o = find_short(c, (unsigned char)*p, global);
		if (!o) {
			char ch[2] = { *p, 0 };
			return usage_error(c->name, "unknown option '-%s'", shown(ch, b1, sizeof(b1)));
		}
		*op = o;
		if (!o->arg) {
			if (p[1] == '\0')
				break;
			if (*global && (o->key == OPT_HELP || o->key == OPT_VERSION))
				break;
			if (*global ? global_option(o->key, NULL) < 0 : c->option(inv->args, o->key, NULL) < 0)
				return -1;
			continue;
		}
		if (p[1])
			*val = p + 1;
		else if (*i + 1 < argc)
			*val = argv[++*i];
		else
			return usage_error(c->name, "option '-%c' needs a value", *p);
		break;
	}
	return 0;
}

/* One option found: --help and --version handled (1), a global one into
 * G, a command's to its option(); 0, or -1. */
static int apply_option(const struct command *c, struct invocation *inv, int cmd_seen,
			const struct cmd_option *o, int global, const char *val)
{
	if (global && o->key == OPT_HELP) {
		if (c == &cmd_help && !inv->noperands && !cmd_seen)
			cli_print_help(stdout, commands, ncommands);
		else
			cli_print_usage(stdout, c);
		return 1;
	}
	if (global && o->key == OPT_VERSION) {
		print_version();
		return 1;
	}
	if (global) {
		if (global_option(o->key, val) < 0)
			return -1;
	} else if (!c->option || c->option(inv->args, o->key, val) < 0)
		return -1;
	return 0;
}

/* Once every word is read: -q with -v, and the number of operands. */
static int check_parsed(const struct command *c, struct invocation *inv)
{
	char b1[48];
	if (quiet_seen && verbose_seen)
		return usage_error(c->name, "-q and -v contradict each other (-q: the results only; "
				   "-v: the probes and their timings too)");
	if (inv->noperands < c->min_operands) {
		return usage_error(c->name, "no %s given", c->operands_help ? c->operands_help : "argument");
	}
	if (c->max_operands >= 0 && inv->noperands > c->max_operands)
		return usage_error(c->name, "unexpected argument '%s'",
				   shown(inv->operands[c->max_operands], b1, sizeof(b1)));
	return 0;
}

/*
 * One pass over argv.  Hand-rolled rather than getopt_long: getopt reports
 * a long option's missing value only by its number, and reads the next word
 * as the value even when it is another option.  Rules (GNU): "--name=value"
 * or "--name value", "-o value" or "-ovalue", "-qv" bundles flags, "--" ends
 * the options, "-" is an operand.
 */
int cli_parse(const struct command *c, int argc, char **argv, struct invocation *inv)
{
	int i, r, cmd_seen = 0, opts_done = 0;

	memset(inv, 0, sizeof(*inv));
	quiet_seen = verbose_seen = 0;
	inv->cmd = c;
	inv->commands = commands;
	inv->ncommands = ncommands;
	inv->args = xcalloc(1, c->args_size ? c->args_size : 1);
	if (c->init)
		c->init(inv->args);
	inv->operands = xcalloc((size_t)argc + 1, sizeof(*inv->operands));
	inv->argc = argc;
	inv->argv = argv;
	for (i = 0; i < argc; i++) {
		const char *w = argv[i], *val = NULL;
		const struct cmd_option *o = NULL;
		int global = 0;
		if (opts_done || w[0] != '-' || !w[1]) {
			/* The command word itself is not an operand. */
			if (!cmd_seen && !strcmp(w, c->name) && !opts_done) {
				cmd_seen = 1;
				continue;
			}
			cmd_seen = 1;
			inv->operands[inv->noperands++] = argv[i];
			continue;
		}
		if (!strcmp(w, "--")) {
			opts_done = 1;
			continue;
		}
		if (w[1] == '-')
			r = parse_long(c, argc, argv, &i, &o, &global, &val);
		else
			r = parse_short(c, inv, argc, argv, &i, &o, &global, &val);
		if (r < 0)
			return -1;
		r = apply_option(c, inv, cmd_seen, o, global, val);
		if (r != 0)
			return r;
	}
	return check_parsed(c, inv);
}

void invocation_release(struct invocation *inv)
{
	cJSON_Delete(inv->doc.json);
	if (inv->doc.free_data && inv->doc.data)
		inv->doc.free_data((void *)inv->doc.data);
	free(inv->args);
	free(inv->operands);
	memset(inv, 0, sizeof(*inv));
}

/* The format asked for among the command's, or an error naming them. */
static int pick_format(struct invocation *inv)
{
	const struct command *c = inv->cmd;
	const struct cmd_format *f;
	struct strbuf sb = STRBUF_INIT;
	char b1[48];
	if (!c->formats) {
		if (G.format)
			return usage_error(c->name, "'%s' has no --format", c->name);
		return 0;
	}
	if (!G.format) {
		inv->format = &c->formats[0];
		return 0;
	}
	for (f = c->formats; f->name; f++)
		if (!strcmp(f->name, G.format)) {
			inv->format = f;
			return 0;
		}
	for (f = c->formats; f->name; f++)
		strbuf_addf(&sb, "%s%s", f == c->formats ? "" : ",", f->name);
	usage_error(c->name, "'%s' does not have the format '%s' (it has: %s)", c->name,
		    shown(G.format, b1, sizeof(b1)), sb.buf);
	strbuf_release(&sb);
	return -1;
}

/* Colour is decided last, for the stream the output really goes to. */
static void decide_color(FILE *fp, int to_file)
{
	const char *nc = getenv("NO_COLOR");
	if (G.color && !strcmp(G.color, "always"))
		color_on = 1;
	else if (G.color && !strcmp(G.color, "never"))
		color_on = 0;
	else
		color_on = !to_file && isatty(fileno(fp)) && !(nc && *nc);
}

/* What was printed on stdout is out: EXIT_OK, or EXIT_UNKNOWN after one
 * line (a full disk, a closed stdout, a reader gone). */
static int stdout_done(void)
{
	int bad;
	errno = 0;
	bad = fflush(stdout) != 0 || ferror(stdout);
	if (!bad)
		return EXIT_OK;
	error("cannot write to standard output: %s", errno ? strerror(errno) : "write error");
	clearerr(stdout);
	return EXIT_UNKNOWN;
}

/*
 * --sysroot DIR with nothing a capture holds (no proc/, sys/ or nodeaudit/:
 * the folder above an extracted capture, a typo'd path's sibling) would
 * "pass" a node with no facts: refused in one line, as diff refuses it,
 * naming the one subdirectory that is a capture when there is one.  An
 * empty directory beside a dump (--smbios, --pci-dump, --cpuid-dump) is
 * the dump's machine with nothing else.  An archive is the read layer's to
 * judge; a missing path is sysroot_open()'s.
 */
static int refuse_non_capture(const char *dir, int dump)
{
	struct stat sb;
	DIR *d;
	struct dirent *de;
	char *inside = NULL;
	int n = 0, entries = 0;
	if (!dir || !*dir || !strcmp(dir, "/") || stat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode) ||
	    diff_looks_like_snapshot(dir))
		return 0;
	if ((d = opendir(dir))) {
		while ((de = readdir(d)) && n < 2) {
			char *p;
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			entries++;
			if (de->d_name[0] == '.')
				continue;
			p = xasprintf("%s%s%s", dir, str_endswith(dir, "/") ? "" : "/", de->d_name);
			if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode) && diff_looks_like_snapshot(p)) {
				n++;
				free(inside);
				inside = p;
			} else
				free(p);
		}
		closedir(d);
	}
	if (dump && !entries)
		return 0;
	if (n == 1)
		error("cannot use sysroot '%s': it holds nothing a capture holds (no proc/, sys/ or "
		      "nodeaudit/); '%s' does", dir, inside);
	else
		error("cannot use sysroot '%s': it holds nothing a capture holds (no proc/, sys/ or "
		      "nodeaudit/)", dir);
	free(inside);
	return -1;
}

/* Parse, run, render; the exit status: 0 ok, 1 warning, 2 critical, 3 could not run
 * (nodeaudit(1) EXIT STATUS). */
static int run_command(const struct command *c, int argc, char **argv)
{
	struct invocation inv;
	struct output out;
	int r, code;

	cli_set_command_name(c->name);
	r = cli_parse(c, argc, argv, &inv);
	if (r != 0) {
		invocation_release(&inv);
		/* --help, --version: printed; a full disk or a closed stdout says so. */
		return r > 0 ? stdout_done() : EXIT_UNKNOWN;
	}
	if (pick_format(&inv) < 0) {
		invocation_release(&inv);
		return EXIT_UNKNOWN;
	}
	if (!(c->flags & CMD_PROBES) && (G.probe.sysroot || G.probe.smbios || G.probe.pci_dump ||
					 G.probe.cpuid_dump)) {
		usage_error(c->name, "'%s' reads no machine: --sysroot, --smbios, --pci-dump and "
			    "--cpuid-dump do not apply", c->name);
		invocation_release(&inv);
		return EXIT_UNKNOWN;
	}
	if ((c->flags & CMD_PROBES) &&
	    refuse_non_capture(G.probe.sysroot, G.probe.smbios || G.probe.pci_dump || G.probe.cpuid_dump) < 0) {
		invocation_release(&inv);
		return EXIT_UNKNOWN;
	}
	code = c->run(&inv);
	if (code < 0) {
		invocation_release(&inv);
		return EXIT_UNKNOWN;
	}
	if ((c->flags & CMD_OUTPUT_DEST) || !inv.format) {
		/* What the command printed itself (snapshot's line, validate's). */
		invocation_release(&inv);
		return stdout_done() == EXIT_OK ? code : EXIT_UNKNOWN;
	}
	if (output_open(&out, G.output, G.probe.sysroot) < 0) {
		invocation_release(&inv);
		return EXIT_UNKNOWN;
	}
	decide_color(out.fp, out.path != NULL);
	tl_set_width(out.fp, out.path != NULL);
	/* Strings from other machines: valid UTF-8 always, no controls in text. */
	json_clean(inv.doc.json, inv.format->render != render_json);
	inv.format->render(out.fp, &inv.doc);
	if (output_close(&out, 1) < 0)
		code = EXIT_UNKNOWN;
	invocation_release(&inv);
	return code;
}

/*** The entry point ***/

int cli_main(int argc, char **argv)
{
	const struct command *cmd;
	size_t i;
	int at;

	at = cli_find_command(argc - 1, argv + 1);
	if (at < 0) {
		cmd = find_command(cli_default_command);
		G.implicit = 1;
	}
	else if (!(cmd = find_command(argv[1 + at]))) {
		const char *names[32];
		int k;
		/* "nodeaudit --profil NAME": the typo is the option, not NAME. */
		for (k = 0; k < at; k++) {
			const char *w = argv[1 + k], *eq = strchr(w, '=');
			size_t n = eq ? (size_t)(eq - w - 2) : strlen(w) - 2;
			const char *sug = NULL;
			int g;
			if (strncmp(w, "--", 2) || !w[2] || find_long(NULL, w + 2, n, &g))
				continue;
			for (i = 0; i < ncommands && !sug; i++)
				if (!find_long(commands[i], w + 2, n, &g))
					sug = suggest_option(commands[i], w + 2, n);
			if (sug) {
				char b2[48];
				usage_error(NULL, "unknown option '%s' (did you mean '--%s'?)",
					    shown(w, b2, sizeof(b2)), sug);
				return EXIT_UNKNOWN;
			}
		}
		const char *sug;
		char b1[48];
		for (i = 0; i < ncommands && i + 1 < ARRAY_SIZE(names); i++)
			names[i] = commands[i]->name;
		names[i] = NULL;
		sug = closest_word(argv[1 + at], names);
		if (sug)
			usage_error(NULL, "'%s' is not a nodeaudit command (did you mean '%s'?)",
				    shown(argv[1 + at], b1, sizeof(b1)), sug);
		else
			usage_error(NULL, "'%s' is not a nodeaudit command", shown(argv[1 + at], b1, sizeof(b1)));
		return EXIT_UNKNOWN;
	}
	/* `nodeaudit --help` and `nodeaudit --version` without a command. */
	if (at < 0) {
		int j;
		for (j = 1; j < argc && strcmp(argv[j], "--"); j++) {
			if (!strcmp(argv[j], "--help") || !strcmp(argv[j], "-h")) {
				cli_print_help(stdout, commands, ncommands);
				return stdout_done();
			}
		}
	}
	return run_command(cmd, argc - 1, argv + 1);
}
