/* cmd/cli.h - the command table and the one runner every command goes through */
#ifndef NODEAUDIT_CLI_H
#define NODEAUDIT_CLI_H

#include <stddef.h>
#include <stdio.h>
#include "probe/probe.h"
#include "render/render.h"

/*
 * A command is one descriptor (in its cmd-NAME.c): name, usage, options,
 * operands, formats and the function doing the work.  The runner (main.c)
 * parses the global and the command's options in one pass, anywhere on the
 * line; checks the operands and the format; calls run(), which leaves its
 * result in inv->doc; then opens the output (-o or stdout), decides the
 * colour (never into a file or a pipe unless --color=always) and calls the
 * chosen format's renderer.  --help, the man page's option lists and the
 * bash completion come from these descriptors (tests/cli-table.sh).
 */

/* One option of a command. */
struct cmd_option {
	const char *name;     /* long name, without "--" */
	int key;              /* passed to option(); a letter also makes it -LETTER */
	const char *arg;      /* value placeholder ("NAME|FILE"); NULL: a flag */
	const char *help;     /* for --help; "\n" starts an indented continuation line */
};

/* One output format: its name and its renderer (render/render.h). */
struct cmd_format {
	const char *name;
	render_fn *render;
};

/* Global options, parsed with every command's own (G: cmd/options.c). */
struct global_opts {
	struct probe_opts probe;   /* --sysroot, --smbios, --pci-dump, --cpuid-dump */
	const char *format;        /* --format as given; NULL: the command's default */
	const char *output;        /* -o FILE; NULL: stdout */
	const char *color;         /* auto|always|never */
	int implicit;              /* no command word: `nodeaudit` alone ran the default */
};
extern struct global_opts G;

struct command;

/* One run of a command: what was parsed, and what run() produced. */
struct invocation {
	const struct command *cmd;
	void *args;                     /* the command's own options (args_size bytes) */
	char **operands;                /* the words that are not options (the command word excluded) */
	int noperands;
	const struct cmd_format *format;   /* the chosen one; NULL for commands without formats */
	struct doc doc;                 /* run()'s result, rendered by format->render */
	int argc;                       /* the whole command line, after the program name */
	char **argv;
	int exit;                       /* run()'s exit status when it succeeded (0-2) */
	/* The command table (cmd/cli.c), for help: the commands never call
	 * back into the runner. */
	const struct command *const *commands;
	size_t ncommands;
};

/* Flags of a command. */
#define CMD_PROBES      0x1u   /* takes the probe inputs (--sysroot, --smbios, ...) */
#define CMD_OUTPUT_DEST 0x2u   /* -o names what the command writes itself (snapshot): no rendering */

struct command {
	const char *name;
	const char *summary;            /* one line for `nodeaudit --help` */
	const char *synopsis;           /* after "Usage: nodeaudit NAME "; "\n" for another form */
	const char *description;        /* paragraphs of `nodeaudit help NAME` */
	const struct cmd_option *options;    /* ends with a zeroed entry; may be NULL */
	const struct cmd_format *formats;    /* the first is the default; ends with a zeroed entry; NULL: no --format */
	const char *format_help;        /* what each format is for ("sh: runtime script"), or NULL */
	const char *epilog;             /* text after the options ("Exit status: ..."), or NULL */
	int min_operands, max_operands; /* max -1: any number */
	const char *operands_help;      /* what a missing operand is ("FILE or DIR"), for messages */
	unsigned flags;                 /* CMD_* */
	size_t args_size;               /* sizeof the command's option struct */
	void (*init)(void *args);       /* defaults, or NULL (zeroed) */
	/* One command option (key from options[]); 0, or -1 after usage_error(). */
	int (*option)(void *args, int key, const char *value);
	/* The work: 0-2 (the exit status; doc filled for rendering), or -1 after
	 * printing one line (exit 3). */
	int (*run)(struct invocation *inv);
};

/* The commands, in the order of nodeaudit(1) COMMANDS (cmd/cli.c, the
 * runner: above the commands; what they share is below them, in
 * cmd/options.c and cmd/usage.c). */
extern const struct command *const commands[];
extern const size_t ncommands;
const struct command *find_command(const char *name);

/* The descriptors, one per cmd-*.c. */
extern const struct command cmd_probe, cmd_check, cmd_plan, cmd_bench, cmd_snapshot,
	cmd_profiles, cmd_explain, cmd_report, cmd_diff, cmd_help;

/*
 * Parse argv (after the program name) for cmd: global and command options
 * anywhere, "--" ends them.  Fills G, inv->args and inv->operands.  Returns
 * 0; 1 when --help or --version was handled (exit 0); -1 after printing
 * one line (exit 3).  Exposed for the fuzzer.
 */
int cli_parse(const struct command *cmd, int argc, char **argv, struct invocation *inv);
/* Frees what the invocation holds. */
void invocation_release(struct invocation *inv);
/* The command word in argv (skipping options and their values), or -1. */
int cli_find_command(int argc, char **argv);

/* The program: find the command, parse, run, render; the exit status. */
int cli_main(int argc, char **argv);

/*** Below the commands (cmd/usage.c) ***/

/* `nodeaudit help NAME` text, from the descriptor; `nodeaudit --help`
 * from the table. */
void cli_print_usage(FILE *fp, const struct command *cmd);
void cli_print_help(FILE *fp, const struct command *const *cmds, size_t n);
/* The command `nodeaudit` alone runs ("check"). */
extern const char cli_default_command[];

/* "nodeaudit: MSG; try 'nodeaudit CMD --help'" on stderr; returns -1. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The current command's name, for messages ("check"); set by the runner. */
const char *cli_command_name(void);
void cli_set_command_name(const char *name);

#endif
