/* cmd/check.c - `nodeaudit check`: facts against a profile; findings and exit status */
#include "config.h"
#include "audit/audit.h"
#include "cmd/cli.h"
#include "audit/diff.h"
#include "render/html.h"
#include "render/nfd.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_PROFILE = 256, OPT_FAIL_ON, OPT_FACTS, OPT_BENCH, OPT_BENCH_MODEL, OPT_BENCH_SECONDS, OPT_BASELINE,
	OPT_BENCH_SWEEP, OPT_UNKNOWN };
enum { OPT_NFD_EXPIRY = 320 };

struct check_args {
	struct audit_opts audit;
	int bench;                  /* --bench, --bench-model or --bench-seconds given */
	struct bench_opts bo;
	const char *baseline;       /* compare with this golden node (audit/diff.h) */
	struct nfd_opts nfd;        /* --format nfd: --nfd-expiry */
};

static void check_init(void *args)
{
	struct check_args *a = args;
	a->audit.fail_on = "warn";
	a->bo.ctx = -1;
	a->bo.seconds = 10;
	a->bo.kv_type = 1;
}

static int check_option(void *args, int key, const char *arg)
{
	struct check_args *a = args;
	switch (key) {
	case OPT_PROFILE: a->audit.profile = arg; return 0;
	case OPT_FACTS: a->audit.facts = arg; return 0;
	case OPT_BASELINE: a->baseline = arg; return 0;
	case OPT_NFD_EXPIRY:
		if (nfd_parse_validity(arg, &a->nfd.validity) < 0)
			return usage_error("check", "--nfd-expiry takes a duration from 60 s to 30 days "
					   "(such as 3h, 90m or 2d), not '%s'", arg);
		return 0;
	case OPT_BENCH: a->bench = 1; return 0;
	case OPT_BENCH_SWEEP: a->bench = 1; a->bo.sweep = 1; return 0;
	case OPT_BENCH_MODEL: a->bench = 1; a->bo.model = arg; return 0;
	case OPT_BENCH_SECONDS:
		if (parse_duration(arg, &a->bo.seconds) < 0)
			return usage_error("check", "--bench-seconds takes a duration from 0.1 to 3600 seconds "
					   "(such as 10, 0.5 or 2m), not '%s'", arg);
		a->bench = 1;
		return 0;
	case OPT_FAIL_ON:
		if (strcmp(arg, "warn") && strcmp(arg, "fail") && strcmp(arg, "never"))
			return usage_error("check", "--fail-on takes warn, fail or never, not '%s'", arg);
		a->audit.fail_on = arg;
		return 0;
	case OPT_UNKNOWN:
		if (strcmp(arg, "ignore") && strcmp(arg, "warn") && strcmp(arg, "fail"))
			return usage_error("check", "--unknown takes ignore, warn or fail, not '%s'", arg);
		a->audit.unknown = arg;
		return 0;
	}
	return -1;
}

static int check_cmd(struct invocation *inv)
{
	struct check_args *a = inv->args;
	int code;
	if (a->bench && (a->audit.facts || G.probe.sysroot))
		return usage_error("check", "--bench measures this machine: not with --facts or --sysroot");
	if (a->audit.facts && G.probe.sysroot)
		return usage_error("check", "--facts and --sysroot exclude each other");
	if (a->bench)
		a->audit.bench = &a->bo;
	if (audit_run(&a->audit, &G.probe, &inv->doc.json, &code) < 0)
		return -1;
	inv->doc.data = &a->nfd;   /* --format nfd reads it; args outlive the rendering */
	if (a->baseline) {
		struct profile prof;
		char *err = NULL;
		const char *pname = fj_get_str(cJSON_GetObjectItemCaseSensitive(inv->doc.json, "profile"), "name");
		if (profile_load(&prof, a->audit.profile ? a->audit.profile : pname ? pname : DEFAULT_PROFILE,
				 NULL, NULL, &err) < 0) {
			error("%s", err);
			free(err);
			return -1;
		}
		code = diff_check_baseline(inv->doc.json, a->baseline, &prof, a->audit.fail_on, code);
		profile_release(&prof);
	}
	return code;
}

static const struct cmd_option check_options[] = {
	{ "profile", OPT_PROFILE, "NAME", "a profile name ('nodeaudit profiles list') or a FILE.json" },
	{ "fail-on", OPT_FAIL_ON, "LVL", "warn (default): exit 1 on warnings, 2 on failures;\n"
	  "fail: exit 2 on failures only; never: always exit 0" },
	{ "unknown", OPT_UNKNOWN, "ACT", "what an undecided (unknown) check does to the exit status:\n"
	  "ignore (default): nothing; warn: as a warning; fail: as a failure" },
	{ "facts", OPT_FACTS, "FILE", "check a saved 'probe --format json' (or an earlier\nreport: its facts) instead of probing" },
	{ "bench", OPT_BENCH, NULL, "also measure memory bandwidth (as 'bench') into\n"
	  "facts.bench, for the bench.* checks" },
	{ "bench-model", OPT_BENCH_MODEL, "FILE", "with --bench: the GGUF model for the decode ceiling" },
	{ "bench-seconds", OPT_BENCH_SECONDS, "S", "with --bench: its time budget (default 10)" },
	{ "bench-sweep", OPT_BENCH_SWEEP, NULL, "with --bench: also the thread sweep (as 'bench --sweep'),\n"
	  "whose knee 'plan --report' uses" },
	{ "baseline", OPT_BASELINE, "FILE", "compare with a golden node (a probe JSON, report or\n"
	  "snapshot, as for 'diff'): the changes go into the report,\n"
	  "and with --fail-on warn drift exits at least 1" },
	{ "nfd-expiry", OPT_NFD_EXPIRY, "D", "with --format nfd: how long the labels stay after\nthe audit unless rewritten (default 3h; 60s to 30d)" },
	{ NULL, 0, NULL, NULL },
};

static void render_html(FILE *fp, const struct doc *d)
{
	report_html(fp, d->json);
}

static const struct cmd_format check_formats[] = {
	{ "text", report_render_text },
	{ "json", render_json },
	{ "junit", report_render_junit },
	{ "prometheus", report_render_prometheus },
	{ "tap", report_render_tap },
	{ "nfd", report_render_nfd },
	{ "html", render_html },
	{ "svg", report_render_svg },
	{ NULL, NULL },
};

const struct command cmd_check = {
	.name = "check",
	.summary = "compare the node against a profile; findings and exit status",
	.synopsis = "[--profile NAME|FILE] [--fail-on warn|fail|never] [--unknown ignore|warn|fail]\n"
		    "[--facts FILE.json] [--baseline FILE] [OPTIONS]",
	.description =
		"Probe the node (or a snapshot with --sysroot) and compare it with a profile\n"
		"(default agent-cpu-inference; agent-vm-guest on a virtual guest, as plan\n"
		"and plain nodeaudit choose it).  Each check passes, warns, fails, is unknown\n"
		"(with the reason) or is skipped when it does not apply.\n",
	.options = check_options,
	.formats = check_formats,
	.format_help = "junit: JUnit XML for CI; prometheus: a node_exporter textfile;\ntap: TAP for prove; html: one self-contained page;\nnfd: a Node Feature Discovery features.d file;\nsvg: the drawing of the node with the findings on the parts they name",
	.epilog = "Exit status: 0 all passed, 1 warning, 2 failure, 3 could not run.\n",
	.min_operands = 0, .max_operands = 0,
	.flags = CMD_PROBES,
	.args_size = sizeof(struct check_args),
	.init = check_init,
	.option = check_option,
	.run = check_cmd,
};
