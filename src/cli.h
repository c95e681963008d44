/* cli.h - the command table, global options and shared option parsing */
#ifndef NODEAUDIT_CLI_H
#define NODEAUDIT_CLI_H

#include <getopt.h>
#include "probe.h"

/* Global options (DESIGN.md), accepted before or after the command. */
struct global_opts {
	struct probe_opts probe;   /* --sysroot, --smbios, --pci-dump, --cpuid-dump */
	const char *format;        /* NULL: text */
	const char *output;        /* -o FILE; NULL: stdout */
	const char *color;         /* auto|always|never */
};
extern struct global_opts G;

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);   /* argv[0] is the command name */
	const char *summary;                /* one line for --help */
	const char *usage;                  /* full text for `help NAME` */
};
extern const struct command commands[];
extern const size_t ncommands;
const struct command *find_command(const char *name);

/*
 * Parse a command's options together with the global ones.  cmd_opts (may be
 * NULL) ends with a zeroed entry; their val must be >= 256 or a letter the
 * command owns.  For each command option cb(val, optarg, data) is called and
 * returns 0 or -1 (after printing one line).  Returns the index in argv of
 * the first operand, or -1 on a usage error (message printed: exit 3).
 * `--help` prints the command's usage and returns -2 (exit 0).
 */
int parse_cmd_options(int argc, char **argv, const struct option *cmd_opts, const char *cmd_short,
		      int (*cb)(int val, const char *arg, void *data), void *data);

/* Check --format against the formats a command has ("text,json"). */
int check_format(const char *cmd, const char *allowed);
/* Print "nodeaudit: MSG; try 'nodeaudit CMD --help'" and return -1. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The commands. */
int cmd_probe(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_profiles(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_diff(int argc, char **argv);

#endif
