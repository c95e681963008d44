/* cmd-check.c - `nodeaudit check`: facts against a profile; findings and exit status */
#include "config.h"
#include "cli.h"
#include "output.h"
#include "bench.h"
#include "profile.h"
#include "report.h"
#include "html.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { OPT_PROFILE = 2100, OPT_FAIL_ON, OPT_FACTS, OPT_BENCH, OPT_BENCH_MODEL, OPT_BENCH_SECONDS };

static const struct option check_long[] = {
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
	{ "facts", required_argument, NULL, OPT_FACTS },
	{ "bench", no_argument, NULL, OPT_BENCH },
	{ "bench-model", required_argument, NULL, OPT_BENCH_MODEL },
	{ "bench-seconds", required_argument, NULL, OPT_BENCH_SECONDS },
	{ NULL, 0, NULL, 0 },
};

struct check_args {
	const char *profile;
	const char *fail_on;
	const char *facts;
	int bench;                /* run the bandwidth benchmark into facts.bench */
	const char *bench_model;
	double bench_seconds;
};

static int check_opt(int val, const char *arg, void *data)
{
	struct check_args *a = data;
	switch (val) {
	case OPT_PROFILE: a->profile = arg; return 0;
	case OPT_FACTS: a->facts = arg; return 0;
	case OPT_BENCH: a->bench = 1; return 0;
	case OPT_BENCH_MODEL: a->bench = 1; a->bench_model = arg; return 0;
	case OPT_BENCH_SECONDS:
		if (parse_double(arg, &a->bench_seconds) < 0 || a->bench_seconds < 1 || a->bench_seconds > 3600)
			return usage_error("check", "--bench-seconds takes 1 to 3600 seconds, not '%s'", arg);
		a->bench = 1;
		return 0;
	case OPT_FAIL_ON:
		if (strcmp(arg, "warn") && strcmp(arg, "fail") && strcmp(arg, "never"))
			return usage_error("check", "--fail-on takes warn, fail or never, not '%s'", arg);
		a->fail_on = arg;
		return 0;
	}
	return -1;
}

/* The sysctls the profile names (and those checks fall back on), read into
 * kernel.sysctl by the kernel probe unless it has them already. */
void check_read_profile_sysctls(struct probe_ctx *ctx, const struct profile *p)
{
	size_t i;
	for (i = 0; i < p->nspecs; i++) {
		const struct check *c = p->specs[i].check;
		if (!strcmp(c->id, "kernel.sysctl"))
			kernel_probe_sysctl(ctx, p->specs[i].key);
		else if (c->sysctl)
			kernel_probe_sysctl(ctx, c->sysctl);
	}
}

/* A saved `probe --format json` document as the fact tree. */
static int load_facts(const char *path, cJSON **doc)
{
	FILE *fp = fopen_input(path);
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	size_t n;
	const char *end = NULL;
	if (!fp)
		return error("cannot read '%s': %s", path, input_strerror(errno));
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) {
		strbuf_add(&sb, buf, n);
		if (sb.len > (64u << 20)) {
			fclose(fp);
			strbuf_release(&sb);
			return error("cannot read '%s': larger than 64 MiB", path);
		}
	}
	fclose(fp);
	if (!sb.buf)
		return error("'%s': empty file, expected the JSON of 'nodeaudit probe --format json'", path);
	*doc = cJSON_ParseWithOpts(sb.buf, &end, 1);
	if (!*doc) {
		int line, col;
		text_line_col(sb.buf, end ? (size_t)(end - sb.buf) : 0, &line, &col);
		strbuf_release(&sb);
		return error("'%s': line %d, column %d: invalid JSON", path, line, col);
	}
	strbuf_release(&sb);
	if (!cJSON_IsObject(*doc)) {
		cJSON_Delete(*doc);
		return error("'%s': expected a JSON object (the output of 'nodeaudit probe --format json')", path);
	}
	return 0;
}

/* Split a probe document into the fact tree and its gaps and evidence. */
static cJSON *facts_from_doc(const cJSON *doc)
{
	static const char *const meta[] = { "schema", "tool", "gaps", "conflicts", "evidence", NULL };
	cJSON *root = cJSON_CreateObject();
	const cJSON *it, *facts = cJSON_GetObjectItemCaseSensitive(doc, "facts");
	/* A report (facts under "facts", host beside it) works as well as a probe document. */
	if (cJSON_IsObject(facts)) {
		cJSON_ArrayForEach(it, facts)
			cJSON_AddItemToObject(root, it->string, cJSON_Duplicate(it, 1));
		it = cJSON_GetObjectItemCaseSensitive(doc, "host");
		if (it && !cJSON_GetObjectItemCaseSensitive(root, "host"))
			cJSON_AddItemToObject(root, "host", cJSON_Duplicate(it, 1));
		return root;
	}
	cJSON_ArrayForEach(it, doc) {
		size_t i;
		int skip = 0;
		for (i = 0; meta[i]; i++)
			if (!strcmp(it->string, meta[i]))
				skip = 1;
		if (!skip)
			cJSON_AddItemToObject(root, it->string, cJSON_Duplicate(it, 1));
	}
	return root;
}

int cmd_check(int argc, char **argv)
{
	struct check_args a = { NULL, "warn", NULL, 0, NULL, 10 };
	struct profile prof;
	struct probe_ctx ctx;
	struct output out;
	cJSON *report, *doc = NULL, *root = NULL;
	const cJSON *gaps, *evidence, *conflicts;
	char *err = NULL;
	const char *fmt;
	int i, code, ok, probed = 0;

	i = parse_cmd_options(argc, argv, check_long, "", check_opt, &a);
	if (i == -2)
		return EXIT_OK;
	if (i < 0)
		return EXIT_UNKNOWN;
	if (i < argc) {
		usage_error("check", "unexpected argument '%s'", argv[i]);
		return EXIT_UNKNOWN;
	}
	if (check_format("check", "text,json,junit,prometheus,html") < 0)
		return EXIT_UNKNOWN;
	if (a.bench && (a.facts || G.probe.sysroot)) {
		usage_error("check", "--bench measures this machine: not with --facts or --sysroot");
		return EXIT_UNKNOWN;
	}
	if (a.facts && G.probe.sysroot) {
		usage_error("check", "--facts and --sysroot exclude each other");
		return EXIT_UNKNOWN;
	}
	fmt = G.format ? G.format : "text";
	if (profile_load(&prof, a.profile ? a.profile : DEFAULT_PROFILE, NULL, NULL, &err) < 0) {
		error("%s", err);
		free(err);
		return EXIT_UNKNOWN;
	}
	if (a.facts) {
		if (load_facts(a.facts, &doc) < 0) {
			profile_release(&prof);
			return EXIT_UNKNOWN;
		}
		root = facts_from_doc(doc);
		gaps = cJSON_GetObjectItemCaseSensitive(doc, "gaps");
		evidence = cJSON_GetObjectItemCaseSensitive(doc, "evidence");
		conflicts = cJSON_GetObjectItemCaseSensitive(doc, "conflicts");
	} else {
		if (probe_run(&ctx, &G.probe, NULL) < 0) {
			probe_release(&ctx);
			profile_release(&prof);
			return EXIT_UNKNOWN;
		}
		probed = 1;
		check_read_profile_sysctls(&ctx, &prof);
		if (a.bench) {
			struct bench_opts bo = { .model = a.bench_model, .ctx = -1, .seconds = a.bench_seconds,
						 .kv_type = 1 };
			if (bench_run(&ctx, &bo, facts_obj(&ctx.facts, "bench")) < 0) {
				probe_release(&ctx);
				profile_release(&prof);
				return EXIT_UNKNOWN;
			}
		}
		gaps = ctx.facts.gaps;
		evidence = ctx.facts.evidence;
		conflicts = ctx.facts.conflicts;
	}
	report = report_build(&prof, probed ? ctx.facts.root : root, gaps, evidence, conflicts,
			      a.fail_on, &code);
	ok = output_open(&out, G.output, G.probe.sysroot) == 0;
	if (ok) {
		if (!strcmp(fmt, "json"))
			output_json(out.fp, report);
		else if (!strcmp(fmt, "junit"))
			report_junit(out.fp, report, a.fail_on);
		else if (!strcmp(fmt, "prometheus"))
			report_prometheus(out.fp, report);
		else if (!strcmp(fmt, "html"))
			report_html(out.fp, report);
		else
			report_text(out.fp, report);
		ok = output_close(&out, 1) == 0;
	}
	cJSON_Delete(report);
	cJSON_Delete(root);
	cJSON_Delete(doc);
	if (probed)
		probe_release(&ctx);
	profile_release(&prof);
	return ok ? code : EXIT_UNKNOWN;
}
