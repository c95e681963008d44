/* cmd/options.c - the global options: their table and the values parsed (G) */
#include "config.h"
#include "cmd/options.h"
#include "lib/util.h"

struct global_opts G;

const struct global_option global_options[] = {
	{ { "sysroot", OPT_SYSROOT, "PATH", "read a snapshot (directory or .tar.gz) instead of this machine" }, 1 },
	{ { "smbios", OPT_SMBIOS, "FILE", "SMBIOS table from 'dmidecode --dump-bin FILE'" }, 1 },
	{ { "pci-dump", OPT_PCI_DUMP, "FILE", "PCI config space dump ('lspci -xxx' output)" }, 1 },
	{ { "cpuid-dump", OPT_CPUID_DUMP, "FILE", "raw CPUID dump as libcpuid writes it" }, 1 },
	{ { "format", OPT_FORMAT, "FMT", "output format (text, json, and per command more)" }, 0 },
	{ { "output", OPT_OUTPUT, "FILE", "write to FILE atomically (temporary file + rename)" }, 0 },
	{ { "color", OPT_COLOR, "WHEN", "auto (default), always or never; NO_COLOR is honoured" }, 0 },
	{ { "colour", OPT_COLOUR, "WHEN", NULL }, 0 },
	{ { "quiet", OPT_QUIET, NULL, "the results only: no notes, hints or fixes in text, no warnings on stderr" }, 0 },
	{ { "verbose", OPT_VERBOSE, NULL, "on stderr, each probe and how long it took; -vv: every file read" }, 0 },
	{ { "help", OPT_HELP, NULL, "this help; 'nodeaudit help COMMAND' for one command" }, 0 },
	{ { "version", OPT_VERSION, NULL, "version" }, 0 },
};
const size_t nglobal_options = ARRAY_SIZE(global_options);
