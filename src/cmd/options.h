/* cmd/options.h - the global options: their keys and their table (cmd/options.c) */
#ifndef NODEAUDIT_CMD_OPTIONS_H
#define NODEAUDIT_CMD_OPTIONS_H

#include <stddef.h>
#include "cmd/cli.h"

enum {
	OPT_SYSROOT = 1000, OPT_SMBIOS, OPT_PCI_DUMP, OPT_CPUID_DUMP, OPT_FORMAT, OPT_COLOR, OPT_COLOUR,
	OPT_OUTPUT = 'o', OPT_QUIET = 'q', OPT_VERBOSE = 'v', OPT_HELP = 'h', OPT_VERSION = 'V',
};

/* Those marked probe only mean something to commands that probe. */
struct global_option {
	struct cmd_option o;
	int probe;
};
extern const struct global_option global_options[];
extern const size_t nglobal_options;

#endif
