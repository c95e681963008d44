/* cmd-plan.c - `nodeaudit plan`: the fixes, as text, sh, sysctl, systemd or json */
#include "config.h"
#include "audit.h"
#include "cli.h"
#include "plan.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_COMMAND = 256, OPT_RESERVE, OPT_UNIT, OPT_REPORT, OPT_PROFILE };

struct plan_args {
	struct plan_opts o;
	const char *report;
	const char *profile;
};

static void plan_init(void *args)
{
	struct plan_args *a = args;
	a->o.reserve = -1;
}

static int plan_option(void *args, int key, const char *arg)
{
	struct plan_args *a = args;
	uint64_t v;
	switch (key) {
	case OPT_COMMAND: a->o.command = arg; return 0;
	case OPT_UNIT:
		if (!*arg || strpbrk(arg, "/@ \t\n"))
			return usage_error("plan", "--unit takes a unit name without '/', '@' or blanks, not '%s'", arg);
		a->o.unit = arg;
		return 0;
	case OPT_RESERVE:
		if (parse_u64(arg, &v) < 0 || v > 1024)
			return usage_error("plan", "--reserve takes a number of cores (0-1024), not '%s'", arg);
		a->o.reserve = (int)v;
		return 0;
	case OPT_REPORT: a->report = arg; return 0;
	case OPT_PROFILE: a->profile = arg; return 0;
	}
	return -1;
}

static int plan_cmd(struct invocation *inv)
{
	struct plan_args *a = inv->args;
	cJSON *report;
	const cJSON *facts, *findings, *p;
	const char *profile;
	int code;

	if (a->report) {
		if (G.probe.sysroot)
			return usage_error("plan", "--report and --sysroot exclude each other");
		report = audit_load_doc(a->report, "nodeaudit.report/1",
					"a 'nodeaudit check --format json' report", 256u << 20);
		if (!report)
			return -1;
		if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(report, "facts"))) {
			cJSON_Delete(report);
			return error("'%s' is not a 'nodeaudit check --format json' report (no facts)", a->report);
		}
	} else {
		struct audit_opts ao = { .profile = a->profile, .fail_on = "warn" };
		if (audit_run(&ao, &G.probe, &report, &code) < 0)
			return -1;
	}
	facts = cJSON_GetObjectItemCaseSensitive(report, "facts");
	/* The report's host sits beside its facts: put it where the planner looks. */
	if (!cJSON_GetObjectItemCaseSensitive(facts, "host") && cJSON_GetObjectItemCaseSensitive(report, "host"))
		cJSON_AddItemToObject((cJSON *)facts, "host",
				      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(report, "host"), 1));
	findings = cJSON_GetObjectItemCaseSensitive(report, "findings");
	p = cJSON_GetObjectItemCaseSensitive(report, "profile");
	profile = fj_get_str(p, "name");
	inv->doc.json = plan_build(facts, findings, profile, &a->o);
	cJSON_Delete(report);
	return EXIT_OK;
}

static const struct cmd_option plan_options[] = {
	{ "command", OPT_COMMAND, "CMD", "the worker command (default: a marked placeholder)" },
	{ "reserve", OPT_RESERVE, "N", "cores per node kept for the OS and the orchestrator" },
	{ "unit", OPT_UNIT, "NAME", "systemd template unit for the drop-ins (default inference-worker)" },
	{ "report", OPT_REPORT, "FILE", "plan from a saved 'check --format json' report" },
	{ "profile", OPT_PROFILE, "NAME", "the profile whose findings are fixed (default agent-cpu-inference)" },
	{ NULL, 0, NULL, NULL },
};

static const struct cmd_format plan_formats[] = {
	{ "text", plan_render_text },
	{ "json", render_json },
	{ "sh", plan_render_sh },
	{ "sysctl", plan_render_sysctl },
	{ "systemd", plan_render_systemd },
	{ "kubelet", plan_render_kubelet },
	{ NULL, NULL },
};

const struct command cmd_plan = {
	.name = "plan",
	.summary = "the fixes: numactl/taskset per NUMA node, sysctl.d, kernel command line, systemd, BIOS",
	.synopsis = "[--command CMD] [--reserve N] [--unit NAME] [--report FILE] [--profile NAME]",
	.description =
		"Print the fixes for this node; never change anything.  One inference worker\n"
		"per NUMA node with CPUs, one hardware thread per physical core (P-cores only\n"
		"on hybrid CPUs), N cores per node reserved for the OS (default 1; the E-cores\n"
		"on hybrids), one feeder per accelerator on its local node, and the settings\n"
		"that the check found wrong.\n",
	.options = plan_options,
	.formats = plan_formats,
	.format_help = "sh: a runtime script; sysctl: an /etc/sysctl.d file;\nsystemd: drop-ins; kubelet: a KubeletConfiguration fragment",
	.min_operands = 0, .max_operands = 0,
	.flags = CMD_PROBES,
	.args_size = sizeof(struct plan_args),
	.init = plan_init,
	.option = plan_option,
	.run = plan_cmd,
};
