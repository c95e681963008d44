/* cmd/help.c - `nodeaudit help [COMMAND]`: the usage, from the command table */
#include "config.h"
#include "audit/checks.h"
#include "cmd/cli.h"
#include "lib/util.h"

#include <stdio.h>
#include <string.h>

static int help_cmd(struct invocation *inv)
{
	const struct command *c;
	const char *names[32];
	const char *sug;
	char b1[48];
	size_t i;
	if (!inv->noperands) {
		cli_print_help(stdout, inv->commands, inv->ncommands);
		return EXIT_OK;
	}
	for (i = 0; i < inv->ncommands; i++) {
		c = inv->commands[i];
		if (!strcmp(c->name, inv->operands[0])) {
			cli_print_usage(stdout, c);
			return EXIT_OK;
		}
	}
	for (i = 0; i < inv->ncommands && i + 1 < ARRAY_SIZE(names); i++)
		names[i] = inv->commands[i]->name;
	names[i] = NULL;
	sug = closest_word(inv->operands[0], names);
	if (sug)
		return usage_error(NULL, "'%s' is not a nodeaudit command (did you mean '%s'?)",
				   str_shown(inv->operands[0], b1, sizeof(b1)), sug);
	return usage_error(NULL, "'%s' is not a nodeaudit command", str_shown(inv->operands[0], b1, sizeof(b1)));
}

const struct command cmd_help = {
	.name = "help",
	.summary = "COMMAND: the usage of a command (as 'nodeaudit COMMAND --help')",
	.synopsis = "[COMMAND]",
	.description =
		"Print the usage of COMMAND: its options, operands and output formats.\n"
		"Without COMMAND, list the commands and the global options.\n",
	.min_operands = 0, .max_operands = 1,
	.run = help_cmd,
};
