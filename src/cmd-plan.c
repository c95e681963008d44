/* cmd-plan.c - `nodeaudit plan`: the fixes, as text, sh, sysctl, systemd or json */
#include "config.h"
#include "cli.h"
#include "output.h"
#include "plan.h"
#include "profile.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_COMMAND = 2100, OPT_RESERVE, OPT_UNIT, OPT_REPORT, OPT_PROFILE };

static const struct option plan_long[] = {
	{ "command", required_argument, NULL, OPT_COMMAND },
	{ "reserve", required_argument, NULL, OPT_RESERVE },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ NULL, 0, NULL, 0 },
};

struct plan_args {
	struct plan_opts o;
	const char *report;
	const char *profile;
};

static int plan_opt(int val, const char *arg, void *data)
{
	struct plan_args *a = data;
	uint64_t v;
	switch (val) {
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

/* A saved `check --format json` report: its facts and findings. */
static cJSON *load_report(const char *path)
{
	FILE *f = fopen_input(path);
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	size_t n;
	cJSON *j;
	if (!f) {
		error("cannot read '%s': %s", path, input_strerror(errno));
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		strbuf_add(&sb, buf, n);
		if (sb.len > (256u << 20)) {
			fclose(f);
			strbuf_release(&sb);
			error("cannot read '%s': larger than 256 MiB", path);
			return NULL;
		}
	}
	fclose(f);
	j = cJSON_ParseWithLength(sb.buf ? sb.buf : "", sb.len);
	strbuf_release(&sb);
	if (!j || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "facts"))) {
		error("'%s' is not a 'nodeaudit check --format json' report", path);
		cJSON_Delete(j);
		return NULL;
	}
	return j;
}

/* The check report for the profile (default: the default profile) on the
 * probed facts: the plan fixes its warned and failed findings. */
static int plan_check_findings(struct probe_ctx *ctx, const char *profile, cJSON **report,
			       const char **profile_name)
{
	struct profile prof;
	char *err = NULL;
	int code;
	static char name[256];
	*report = NULL;
	*profile_name = NULL;
	if (profile_load(&prof, profile ? profile : DEFAULT_PROFILE, NULL, NULL, &err) < 0) {
		error("%s", err);
		free(err);
		return -1;
	}
	check_read_profile_sysctls(ctx, &prof);
	*report = report_build(&prof, ctx->facts.root, ctx->facts.gaps, ctx->facts.evidence,
			       ctx->facts.conflicts, "warn", &code);
	snprintf(name, sizeof(name), "%s", prof.name ? prof.name : (profile ? profile : DEFAULT_PROFILE));
	*profile_name = name;
	profile_release(&prof);
	return 0;
}

static void render(FILE *fp, const cJSON *plan)
{
	const char *fmt = G.format ? G.format : "text";
	if (!strcmp(fmt, "json"))
		output_json(fp, plan);
	else if (!strcmp(fmt, "sh"))
		plan_sh(fp, plan);
	else if (!strcmp(fmt, "sysctl"))
		plan_sysctl(fp, plan);
	else if (!strcmp(fmt, "systemd"))
		plan_systemd(fp, plan);
	else
		plan_text(fp, plan);
}

int cmd_plan(int argc, char **argv)
{
	struct plan_args a = { .o = { .reserve = -1 } };
	struct output out;
	cJSON *plan = NULL, *report = NULL, *facts = NULL;
	const cJSON *findings = NULL;
	const char *profile = NULL;
	struct probe_ctx ctx;
	int have_ctx = 0, i, ok;

	i = parse_cmd_options(argc, argv, plan_long, "", plan_opt, &a);
	if (i == -2)
		return EXIT_OK;
	if (i < 0)
		return EXIT_UNKNOWN;
	if (i < argc)
		return usage_error("plan", "unexpected argument '%s'", argv[i]), EXIT_UNKNOWN;
	if (check_format("plan", "text,json,sh,sysctl,systemd") < 0)
		return EXIT_UNKNOWN;

	if (a.report) {
		const cJSON *p;
		report = load_report(a.report);
		if (!report)
			return EXIT_UNKNOWN;
		facts = cJSON_GetObjectItemCaseSensitive(report, "facts");
		/* The report's host sits beside its facts: put it where the planner looks. */
		if (!cJSON_GetObjectItemCaseSensitive(facts, "host") && cJSON_GetObjectItemCaseSensitive(report, "host"))
			cJSON_AddItemToObject(facts, "host",
					      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(report, "host"), 1));
		findings = cJSON_GetObjectItemCaseSensitive(report, "findings");
		p = cJSON_GetObjectItemCaseSensitive(report, "profile");
		profile = cJSON_IsObject(p) ? (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(p, "name")) ?
					       cJSON_GetObjectItemCaseSensitive(p, "name")->valuestring : NULL) : NULL;
	} else {
		if (probe_run(&ctx, &G.probe, NULL) < 0) {
			probe_release(&ctx);
			return EXIT_UNKNOWN;
		}
		have_ctx = 1;
		facts = ctx.facts.root;
		if (plan_check_findings(&ctx, a.profile, &report, &profile) < 0) {
			probe_release(&ctx);
			return EXIT_UNKNOWN;
		}
		findings = report ? cJSON_GetObjectItemCaseSensitive(report, "findings") : NULL;
	}
	plan = plan_build(facts, findings, profile, &a.o);
	if (output_open(&out, G.output, G.probe.sysroot) < 0) {
		ok = 0;
	} else {
		render(out.fp, plan);
		ok = output_close(&out, 1) == 0;
	}
	cJSON_Delete(plan);
	cJSON_Delete(report);
	if (have_ctx)
		probe_release(&ctx);
	return ok ? EXIT_OK : EXIT_UNKNOWN;
}
