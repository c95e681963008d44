/* fuzz-cli.c - the command-line parser: any words, any command */
#include "config.h"
#include "cmd/cli.h"
#include "lib/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input: one byte choosing the command, then words separated by NUL
 * bytes.  cli_parse() must end in 0, 1 or -1 without reading past argv. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct invocation inv;
	char *buf, **argv;
	size_t i, argc = 0, start;
	const struct command *c;
	int r;
	if (size < 1 || size > 4096)
		return 0;
	c = commands[data[0] % ncommands];
	buf = malloc(size);
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	argv = calloc(size + 1, sizeof(*argv));
	for (i = 0, start = 0; i < size; i++)
		if (buf[i] == '\0') {
			argv[argc++] = buf + start;
			start = i + 1;
		}
	memset(&G, 0, sizeof(G));
	verbosity = -1;
	/* Exact-size copy: a read past the end is caught by ASan. */
	{
		char **exact = malloc((argc ? argc : 1) * sizeof(*exact));
		memcpy(exact, argv, argc * sizeof(*exact));
		r = cli_parse(c, (int)argc, exact, &inv);
		if (r < -1 || r > 1)
			abort();
		if (r == 0 && (inv.noperands < c->min_operands ||
			       (c->max_operands >= 0 && inv.noperands > c->max_operands)))
			abort();
		invocation_release(&inv);
		free(exact);
	}
	free(argv);
	free(buf);
	return 0;
}
