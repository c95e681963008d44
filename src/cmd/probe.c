/* cmd/probe.c - `nodeaudit probe`: the inventory, as text or JSON */
#include "config.h"
#include "cmd/cli.h"
#include "lib/util.h"

#include <string.h>

enum { OPT_ONLY = 256 };

struct probe_args {
	const char *only;   /* comma list of subjects, or NULL: all */
};

static int probe_option(void *args, int key, const char *arg)
{
	struct probe_args *a = args;
	size_t i;
	char *copy, *tok, *save = NULL;
	if (key != OPT_ONLY)
		return -1;
	copy = xstrdup(arg);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < nprobers; i++)
			if (!strcmp(probers[i].name, tok))
				break;
		if (i == nprobers) {
			usage_error("probe", "--only: unknown subject '%s'", tok);
			free(copy);
			return -1;
		}
	}
	free(copy);
	a->only = arg;
	return 0;
}

static int probe_cmd(struct invocation *inv)
{
	const struct probe_args *a = inv->args;
	struct probe_ctx ctx;
	if (probe_run(&ctx, &G.probe, a->only) < 0) {
		probe_release(&ctx);
		return -1;
	}
	inv->doc.json = probe_json(&ctx);
	probe_release(&ctx);
	return EXIT_OK;
}

static const struct cmd_option probe_options[] = {
	{ "only", OPT_ONLY, "LIST", "probe only these subjects (comma list of: host, cpu, numa,\n"
	  "memory, pci, kernel, process)" },
	{ NULL, 0, NULL, NULL },
};

static const struct cmd_format probe_formats[] = {
	{ "text", probe_render_text },
	{ "json", render_json },
	{ "svg", probe_render_svg },
	{ NULL, NULL },
};

const struct command cmd_probe = {
	.name = "probe",
	.summary = "inventory of this node (or of a snapshot): CPU, NUMA, memory, PCIe, kernel",
	.synopsis = "[--only LIST] [OPTIONS]",
	.description =
		"Print what this node has: CPU packages, cores, threads, SMT, core kinds,\n"
		"ISA, caches, NUMA nodes, memory, and the settings that matter for AI-agent\n"
		"workloads.  Facts that cannot be read are listed with the reason.\n",
	.options = probe_options,
	.formats = probe_formats,
	.format_help = "svg: a drawing of the node (packages, NUMA nodes, L3 groups, cores,\nmemory slots, PCI devices under their host bridges and switches)",
	.min_operands = 0, .max_operands = 0,
	.flags = CMD_PROBES,
	.args_size = sizeof(struct probe_args),
	.option = probe_option,
	.run = probe_cmd,
};
