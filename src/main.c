/* main.c - nodeaudit frontend: global options, command table, exit status */
#include "config.h"
#include "cli.h"
#include "output.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct global_opts G;

/*** The command table ***/

const struct command commands[] = {
	{ "probe", cmd_probe, "inventory of this node (or of a snapshot): CPU, NUMA, memory, PCIe, kernel",
	  "Usage: nodeaudit probe [--only LIST] [GLOBAL OPTIONS]\n"
	  "\n"
	  "Print what this node has: CPU packages, cores, threads, SMT, core kinds,\n"
	  "ISA, caches, NUMA nodes, memory, and the settings that matter for AI-agent\n"
	  "workloads.  Facts that cannot be read are listed with the reason.\n"
	  "\n"
	  "  --only LIST     probe only these subjects (comma list of: host, cpu, numa,\n"
	  "                  memory, pci, kernel)\n"
	  "  --format FMT    text (default) or json\n" },
	{ "check", cmd_check, "compare the node against a profile; findings and exit status",
	  "Usage: nodeaudit check [--profile NAME|FILE] [--fail-on warn|fail|never]\n"
	  "                       [--facts FILE.json] [GLOBAL OPTIONS]\n"
	  "\n"
	  "Probe the node (or a snapshot with --sysroot) and compare it with a profile\n"
	  "(default agent-cpu-inference).  Each check passes, warns, fails, is unknown\n"
	  "(with the reason) or is skipped when it does not apply.\n"
	  "\n"
	  "  --profile NAME  a profile name ('nodeaudit profiles list') or a FILE.json\n"
	  "  --fail-on LVL   warn (default): exit 1 on warnings, 2 on failures;\n"
	  "                  fail: exit 2 on failures only; never: always exit 0\n"
	  "  --facts FILE    check a saved 'probe --format json' instead of probing\n"
	  "  --bench         also measure memory bandwidth (as 'bench') into facts.bench\n"
	  "                  for the bench.* checks; --bench-model FILE.gguf adds the\n"
	  "                  decode ceiling, --bench-seconds S bounds it (default 10)\n"
	  "  --format FMT    text (default), json, junit or prometheus\n"
	  "\n"
	  "Exit status: 0 all passed, 1 warning, 2 failure, 3 could not run.\n" },
	{ "plan", cmd_plan, "the fixes: numactl/taskset per NUMA node, sysctl.d, kernel command line, systemd, BIOS",
	  "Usage: nodeaudit plan [--command CMD] [--reserve N] [--unit NAME] [--report FILE]\n"
	  "                      [--profile NAME] [--format text|json|sh|sysctl|systemd]\n"
	  "\n"
	  "Print the fixes for this node; never change anything.  One inference worker\n"
	  "per NUMA node with CPUs, one hardware thread per physical core (P-cores only\n"
	  "on hybrid CPUs), N cores per node reserved for the OS (default 1; the E-cores\n"
	  "on hybrids), one feeder per accelerator on its local node, and the settings\n"
	  "that the check found wrong.\n"
	  "\n"
	  "  --command CMD   the worker command (default: a marked placeholder)\n"
	  "  --reserve N     cores per node kept for the OS and the orchestrator\n"
	  "  --unit NAME     systemd template unit for the drop-ins (default inference-worker)\n"
	  "  --report FILE   plan from a saved 'check --format json' report\n"
	  "  --profile NAME  the profile whose findings are fixed (default agent-cpu-inference)\n"
	  "  --format FMT    text (default), json, sh (runtime script), sysctl\n"
	  "                  (/etc/sysctl.d file), systemd (drop-ins)\n" },
	{ "bench", cmd_bench, "GGUF memory-bandwidth microbenchmark and decode tokens/s ceiling",
	  "Usage: nodeaudit bench [MODEL.gguf] [--size BYTES] [--threads N] [--nodes LIST]\n"
	  "                       [--ctx N] [--seconds S] [--kv-type T] [--dry-run]\n"
	  "\n"
	  "Copy the model's tensor data (or a synthetic buffer) into the memory of each\n"
	  "NUMA node under test, stream it with one pinned thread per physical core,\n"
	  "and report the bandwidth per node and in total (median of repeats, with the\n"
	  "spread), the share of the theoretical peak, and the decode ceiling:\n"
	  "  tokens/s = bandwidth / bytes read per token\n"
	  "  bytes per token = all tensors but token_embd (one row of it; all of it\n"
	  "  when there is no output.weight) + KV cache at --ctx (layers x ctx x\n"
	  "  head_count_kv x (key_length + value_length) x element size)\n"
	  "\n"
	  "  --size BYTES    bytes per node (K, M, G suffixes; default 1G, at most half\n"
	  "                  of the available memory); a larger model is streamed in part\n"
	  "  --threads N     threads per node (default: one per physical core)\n"
	  "  --nodes LIST    NUMA nodes to test (default: every node with CPUs)\n"
	  "  --ctx N         context length for the KV cache reads (default: 4096 or\n"
	  "                  the model's training context when smaller)\n"
	  "  --seconds S     time budget (default 5)\n"
	  "  --kv-type T     KV cache type: f16 (default), f32, bf16, q8_0, q4_0, q4_1,\n"
	  "                  q5_0, q5_1, iq4_nl\n"
	  "  --dry-run       read the model and print its figures; measure nothing\n"
	  "  --format FMT    text (default) or json\n" },
	{ "snapshot", cmd_snapshot, "capture what probe reads, for offline audit elsewhere",
	  "Usage: nodeaudit snapshot -o DIR|FILE.tar.gz [GLOBAL OPTIONS]\n"
	  "\n"
	  "Run every probe, then copy exactly the files they read (and those hwloc\n"
	  "reads for the same facts) into DIR, or into an archive (.tar.gz, .tgz,\n"
	  ".tar.xz, .tar.bz2, .tar) written atomically, with a manifest in\n"
	  "/nodeaudit/MANIFEST.json.  'nodeaudit probe --sysroot DIR' then prints\n"
	  "the same facts on any machine.  With --sysroot, re-snapshots a snapshot.\n"
	  "Files that cannot be read (run as root for all) are left out.\n"
	  "\n"
	  "  -o PATH         a new or empty directory, or an archive name\n" },
	{ "profiles", cmd_profiles, "list | show NAME | validate FILE...: the check profiles",
	  "Usage: nodeaudit profiles list\n"
	  "       nodeaudit profiles show NAME|FILE [--format json]\n"
	  "       nodeaudit profiles validate FILE...\n"
	  "\n"
	  "List the profiles found ($NODEAUDIT_PROFILE_PATH, /etc/nodeaudit/profiles,\n"
	  "the installed ones, the built-in ones), show one with its inheritance\n"
	  "resolved, or validate profile files (exit 3 with the file, key and problem).\n" },
	{ "explain", cmd_explain, "CHECK-ID: what a check measures, why, how to fix it",
	  "Usage: nodeaudit explain [CHECK-ID]\n"
	  "\n"
	  "What the check measures, why it matters (with the field figures), where\n"
	  "sources disagree, how to fix it, and what each built-in profile expects.\n"
	  "Without an ID, list every check.\n" },
	{ "report", cmd_report, "fleet summary of many 'check --format json' reports",
	  "Usage: nodeaudit report [--top N] [--format text|json|csv] FILE|DIR...\n"
	  "\n"
	  "Read the reports that 'nodeaudit check --format json' wrote on many nodes\n"
	  "(directories are searched for *.json) and print the fleet view: per check\n"
	  "the count of pass/warn/fail/unknown/skip and the failing nodes, the worst\n"
	  "nodes, and the spread of key figures (memory channels and bandwidth, core\n"
	  "counts, accelerator link widths).  A file that is not such a report is\n"
	  "named on standard error and skipped.\n"
	  "\n"
	  "  --top N         list at most N worst nodes (default 10)\n"
	  "  --format FMT    text (default), json (schema nodeaudit.fleet/1) or csv\n"
	  "                  (one row per node)\n"
	  "\n"
	  "Exit status: the worst node's (0, 1 or 2; a node that exited 3 counts as 2),\n"
	  "3 when no file is a usable report.\n" },
};
const size_t ncommands = ARRAY_SIZE(commands);

/* `nodeaudit` alone runs `check` with the default profile (DESIGN.md). */
static const char *default_command = "check";

const struct command *find_command(const char *name)
{
	size_t i;
	for (i = 0; i < ncommands; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static const char global_help[] =
	"Global options:\n"
	"  --sysroot PATH      read a snapshot (directory or .tar.gz) instead of this machine\n"
	"  --smbios FILE       SMBIOS table from 'dmidecode --dump-bin FILE'\n"
	"  --pci-dump FILE     PCI config space dump ('lspci -xxx' output)\n"
	"  --cpuid-dump FILE   raw CPUID dump as libcpuid writes it\n"
	"  --format FMT        output format (text, json, and per command more)\n"
	"  -o, --output FILE   write to FILE atomically (temporary file + rename)\n"
	"  --color WHEN        auto (default), always or never; NO_COLOR is honoured\n"
	"  -q, --quiet         no warnings on stderr\n"
	"  -v, --verbose       more detail on stderr\n"
	"  -h, --help          this help; 'nodeaudit help COMMAND' for one command\n"
	"  -V, --version       version\n";

static void print_help(FILE *fp)
{
	size_t i;
	fprintf(fp, "Usage: nodeaudit [GLOBAL OPTIONS] [COMMAND [ARGS]]\n\n"
		    "Audit a Linux server before it takes AI-agent traffic.\n\n"
		    "Commands:\n");
	for (i = 0; i < ncommands; i++)
		fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(fp, "\nWith no command, nodeaudit runs '%s' on this machine.\n\n%s\n"
		    "Exit status: 0 OK, 1 warning, 2 critical, 3 unknown (could not run).\n"
		    "See nodeaudit(1); the checks and the field figures behind them: nodeaudit-checks(7).\n", default_command, global_help);
}

static void print_version(void)
{
	printf("nodeaudit %s\n", PACKAGE_VERSION);
}

/*** Option parsing shared by every command ***/

enum {
	OPT_SYSROOT = 1000, OPT_SMBIOS, OPT_PCI_DUMP, OPT_CPUID_DUMP, OPT_FORMAT, OPT_COLOR,
};

static const struct option global_long[] = {
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "smbios", required_argument, NULL, OPT_SMBIOS },
	{ "pci-dump", required_argument, NULL, OPT_PCI_DUMP },
	{ "cpuid-dump", required_argument, NULL, OPT_CPUID_DUMP },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "colour", required_argument, NULL, OPT_COLOR },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};
#define GLOBAL_SHORT "o:qvhV"

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "; try 'nodeaudit %s --help'\n", cmd);
	else
		fprintf(stderr, "; try 'nodeaudit --help'\n");
	return -1;
}

/* 0: handled; 1: not a global option; -1: bad value. */
static int global_option(int c, const char *arg, const char *cmd)
{
	switch (c) {
	case OPT_SYSROOT: G.probe.sysroot = arg; return 0;
	case OPT_SMBIOS: G.probe.smbios = arg; return 0;
	case OPT_PCI_DUMP: G.probe.pci_dump = arg; return 0;
	case OPT_CPUID_DUMP: G.probe.cpuid_dump = arg; return 0;
	case OPT_FORMAT: G.format = arg; return 0;
	case 'o': G.output = arg; return 0;
	case OPT_COLOR:
		if (strcmp(arg, "auto") && strcmp(arg, "always") && strcmp(arg, "never"))
			return usage_error(cmd, "--color takes auto, always or never, not '%s'", arg);
		G.color = arg;
		return 0;
	case 'q': verbosity = -1; return 0;
	case 'v': verbosity = verbosity < 0 ? 1 : verbosity + 1; return 0;
	default: return 1;
	}
}

static const char *bad_option(char **argv, int optopt_, const char *short_opts,
			      const struct option *longs)
{
	static char buf[128];
	const char *arg = argv[optind - 1];
	if (optopt_ && strchr(short_opts, optopt_))
		snprintf(buf, sizeof(buf), "option '-%c' needs a value", optopt_);
	else if (optopt_)
		snprintf(buf, sizeof(buf), "unknown option '-%c'", optopt_);
	else if (arg && !strncmp(arg, "--", 2)) {
		/* getopt does not say whether the option is unknown or lacks its value. */
		size_t n = strcspn(arg + 2, "=");
		for (; longs && longs->name; longs++)
			if (strlen(longs->name) == n && !strncmp(longs->name, arg + 2, n)) {
				snprintf(buf, sizeof(buf), "option '--%s' needs a value", longs->name);
				return buf;
			}
		snprintf(buf, sizeof(buf), "unknown option '%.40s'", arg);
	} else
		snprintf(buf, sizeof(buf), "bad option '%.40s'", arg ? arg : "?");
	return buf;
}

int parse_cmd_options(int argc, char **argv, const struct option *cmd_opts, const char *cmd_short,
		      int (*cb)(int val, const char *arg, void *data), void *data)
{
	struct option *all;
	size_t nc = 0, ng = ARRAY_SIZE(global_long) - 1;
	char *shorts;
	int c, ret = 0;
	const char *cmd = argv[0];

	while (cmd_opts && cmd_opts[nc].name)
		nc++;
	all = xcalloc(nc + ng + 1, sizeof(*all));
	memcpy(all, global_long, ng * sizeof(*all));
	if (nc)
		memcpy(all + ng, cmd_opts, nc * sizeof(*all));
	/* No '+': options may follow operands ("bench m.gguf --ctx 4096"). */
	shorts = xasprintf(":%s%s", GLOBAL_SHORT, cmd_short ? cmd_short : "");
	/* 0, not 1: glibc then re-reads the ordering from shorts; main()'s "+" would
	 * otherwise stick and options after operands would be taken as operands. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, all, NULL)) != -1) {
		int r;
		if (c == '?' || c == ':') {
			ret = usage_error(cmd, "%s", bad_option(argv, optopt, shorts, all));
			break;
		}
		if (c == 'h') {
			const struct command *k = find_command(cmd);
			if (k)
				printf("%s\n%s", k->usage, global_help);
			ret = -2;
			break;
		}
		if (c == 'V') {
			print_version();
			ret = -2;
			break;
		}
		r = global_option(c, optarg, cmd);
		if (r < 0) {
			ret = -1;
			break;
		}
		if (r == 1) {
			if (!cb || cb(c, optarg, data) < 0) {
				ret = -1;
				break;
			}
		}
	}
	free(all);
	free(shorts);
	return ret < 0 ? ret : optind;
}

int check_format(const char *cmd, const char *allowed)
{
	const char *f = G.format ? G.format : "text";
	size_t n = strlen(f);
	const char *p = allowed;
	while ((p = strstr(p, f))) {
		if ((p == allowed || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return 0;
		p += n;
	}
	return usage_error(cmd, "'%s' does not have the format '%s' (it has: %s)", cmd, f, allowed);
}

static void setup_color(void)
{
	const char *nc = getenv("NO_COLOR");
	if (G.color && !strcmp(G.color, "always"))
		color_on = 1;
	else if (G.color && !strcmp(G.color, "never"))
		color_on = 0;
	else
		color_on = isatty(STDOUT_FILENO) && !(nc && *nc) && !G.output;
}

/*** main ***/

int main(int argc, char **argv)
{
	const struct command *cmd;
	int c, ret;
	char *default_argv[2];

	/* Global options before the command. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:" GLOBAL_SHORT, global_long, NULL)) != -1) {
		if (c == 'h') {
			print_help(stdout);
			return EXIT_OK;
		}
		if (c == 'V') {
			print_version();
			return EXIT_OK;
		}
		if (c == '?' || c == ':') {
			usage_error(NULL, "%s", bad_option(argv, optopt, GLOBAL_SHORT, global_long));
			return EXIT_UNKNOWN;
		}
		if (global_option(c, optarg, NULL) < 0)
			return EXIT_UNKNOWN;
	}
	argc -= optind;
	argv += optind;

	if (argc == 0) {
		default_argv[0] = (char *)default_command;
		default_argv[1] = NULL;
		argv = default_argv;
		argc = 1;
	}
	if (!strcmp(argv[0], "help")) {
		if (argc < 2) {
			print_help(stdout);
			return EXIT_OK;
		}
		cmd = find_command(argv[1]);
		if (!cmd) {
			usage_error(NULL, "'%s' is not a nodeaudit command", argv[1]);
			return EXIT_UNKNOWN;
		}
		printf("%s\n%s", cmd->usage, global_help);
		return EXIT_OK;
	}
	cmd = find_command(argv[0]);
	if (!cmd) {
		usage_error(NULL, "'%s' is not a nodeaudit command", argv[0]);
		return EXIT_UNKNOWN;
	}
	setup_color();
	ret = cmd->fn(argc, argv);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		error("cannot write to standard output: %s", strerror(errno));
		return EXIT_UNKNOWN;
	}
	return ret;
}
