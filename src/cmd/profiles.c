/* cmd/profiles.c - `nodeaudit profiles list|show NAME|validate FILE...` */
#include "config.h"
#include "cmd/cli.h"
#include "lib/output.h"
#include "probe/probe.h"
#include "audit/profile.h"
#include "audit/recommend.h"
#include "audit/report.h"
#include "lib/textlayout.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

/* The document: {"list": [...]}, {"profile": {...}} or {"validated": [...]}. */

static int profiles_list(struct invocation *inv)
{
	char **names;
	size_t n, i;
	cJSON *doc = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(doc, "profiles");
	profile_list_names(&names, &n);
	for (i = 0; i < n; i++) {
		struct profile p;
		char *err = NULL;
		if (profile_load(&p, names[i], NULL, NULL, &err) < 0) {
			warning("%s", err);
			free(err);
			free(names[i]);
			continue;
		}
		{
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", p.name);
			cJSON_AddStringToObject(o, "source", p.source);
			cJSON_AddStringToObject(o, "description", p.description);
			cJSON_AddBoolToObject(o, "default", !strcmp(p.name, DEFAULT_PROFILE));
			cJSON_AddItemToArray(arr, o);
		}
		profile_release(&p);
		free(names[i]);
	}
	free(names);
	inv->doc.json = doc;
	return EXIT_OK;
}

/* `profiles recommend`: probe (host, CPU, PCI) and name the built-in profile
 * that fits, with the reason. */
static int profiles_recommend(struct invocation *inv)
{
	struct probe_ctx ctx;
	char *why = NULL;
	const char *name;
	cJSON *o;
	if (probe_run(&ctx, &G.probe, "cpu,pci") < 0) {
		probe_release(&ctx);
		return -1;
	}
	name = profile_recommend(ctx.facts.root, &why);
	inv->doc.json = cJSON_CreateObject();
	o = cJSON_AddObjectToObject(inv->doc.json, "recommend");
	cJSON_AddStringToObject(o, "profile", name);
	cJSON_AddStringToObject(o, "reason", why);
	free(why);
	probe_release(&ctx);
	return EXIT_OK;
}

static void release_profile(void *p)
{
	profile_release(p);
	free(p);
}

/* `profiles list --format json` prints the array, `show` the profile. */
static void profiles_render_json(FILE *fp, const struct doc *d)
{
	const cJSON *inner = cJSON_GetObjectItemCaseSensitive(d->json, "profiles");
	struct doc sub = { NULL, NULL, NULL };
	if (!inner)
		inner = cJSON_GetObjectItemCaseSensitive(d->json, "profile");
	if (!inner)
		inner = cJSON_GetObjectItemCaseSensitive(d->json, "recommend");
	sub.json = (cJSON *)(inner ? inner : d->json);
	render_json(fp, &sub);
}

void profiles_render_text(FILE *fp, const struct doc *d)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(d->json, "profiles"), *it;
	const struct profile *p = d->data;
	struct tl_table *t;
	size_t i;
	if (list) {
		t = tl_table_new(0);
		tl_table_column(t, NULL, 24, 0);
		tl_table_column(t, NULL, 0, 0);
		cJSON_ArrayForEach(it, list) {
			char *desc = xasprintf("%s%s", fj_get_str(it, "description"),
					       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "default")) ? " (default)" : "");
			tl_table_row(t, fj_get_str(it, "name"), desc);
			free(desc);
		}
		tl_table_print(fp, t);
		return;
	}
	it = cJSON_GetObjectItemCaseSensitive(d->json, "recommend");
	if (it) {
		/* The name alone on the first line, as tuned-adm recommend prints it. */
		fprintf(fp, "%s\n", fj_get_str(it, "profile"));
		tl_line(fp, 4, "  %s", fj_get_str(it, "reason"));
		return;
	}
	if (!p)
		return;
	tl_line(fp, 2, "%s: %s", p->name, p->description);
	tl_line(fp, 4, "  source: %s", p->source);
	{
		struct strbuf sb = STRBUF_INIT;
		for (i = 0; i < p->nchain; i++)
			strbuf_addf(&sb, "%s%s", i ? " > " : "", p->chain[i]);
		tl_line(fp, 4, "  chain: %s", sb.buf ? sb.buf : "");
		strbuf_release(&sb);
	}
	fputc('\n', fp);
	if (!p->nspecs) {
		fprintf(fp, "  no checks\n");
		return;
	}
	t = tl_table_new(2);
	tl_table_column(t, "CHECK", 44, TL_WRAP);
	tl_table_column(t, "SEVERITY", 9, 0);
	tl_table_column(t, "FROM", 22, TL_WRAP);
	tl_table_column(t, "EXPECTED", 0, 0);
	for (i = 0; i < p->nspecs; i++) {
		const struct pspec *s = &p->specs[i];
		char *id = s->key ? xasprintf("%s %s", s->check->id, s->key) : xstrdup(s->check->id), *exp;
		if (s->skip)
			exp = xasprintf("skipped: %s", s->skip);
		else
		{
			char *ex = pspec_expected(s), *u = report_spec_text(ex, s->check->unit);
			/* its figures with their unit: ">= 8.0 GiB (8589934592 bytes)" */
			exp = xasprintf("%s%s", u, strcmp(s->when, "always") ? " (when pinned)" : "");
			free(u);
			free(ex);
		}
		tl_table_row(t, id, severity_name(s->severity), s->from, exp);
		free(id);
		free(exp);
	}
	tl_table_print(fp, t);
}

static int profiles_cmd(struct invocation *inv)
{
	const char *sub = inv->operands[0];
	int i, ret = EXIT_OK;

	if (!strcmp(sub, "validate")) {
		if (inv->noperands < 2)
			return usage_error("profiles", "validate needs at least one FILE");
		for (i = 1; i < inv->noperands; i++) {
			struct profile p;
			char *err = NULL;
			/* A bare name would be looked up; validate reads exactly the file given. */
			char *path = strchr(inv->operands[i], '/') ? xstrdup(inv->operands[i])
								   : xasprintf("./%s", inv->operands[i]);
			if (profile_load(&p, path, NULL, NULL, &err) < 0) {
				error("%s", err);
				free(err);
				ret = -1;
			} else {
				if (verbosity >= 0)
					printf("%s: ok, profile '%s', %zu check%s, chain %zu deep\n", inv->operands[i],
					       p.name, p.nspecs, p.nspecs == 1 ? "" : "s", p.nchain);
				profile_release(&p);
			}
			free(path);
		}
		/* validate reports per file as it goes: nothing to render. */
		inv->format = NULL;
		return ret;
	}
	if (!strcmp(sub, "list")) {
		if (inv->noperands > 1)
			return usage_error("profiles", "unexpected argument '%s'", inv->operands[1]);
		return profiles_list(inv);
	}
	if (!strcmp(sub, "recommend")) {
		if (inv->noperands > 1)
			return usage_error("profiles", "unexpected argument '%s'", inv->operands[1]);
		return profiles_recommend(inv);
	}
	if (!strcmp(sub, "show")) {
		struct profile *p;
		char *err = NULL;
		if (inv->noperands != 2)
			return usage_error("profiles", "show takes one profile NAME (or FILE)");
		p = xcalloc(1, sizeof(*p));
		if (profile_load(p, inv->operands[1], NULL, NULL, &err) < 0) {
			error("%s", err);
			free(err);
			free(p);
			return -1;
		}
		inv->doc.json = cJSON_CreateObject();
		cJSON_AddItemToObject(inv->doc.json, "profile", profile_json(p));
		inv->doc.data = p;
		inv->doc.free_data = release_profile;
		return EXIT_OK;
	}
	return usage_error("profiles", "unknown subcommand '%s' (list, show, validate or recommend)", sub);
}

static const struct cmd_format profiles_formats[] = {
	{ "text", profiles_render_text },
	{ "json", profiles_render_json },
	{ NULL, NULL },
};

const struct command cmd_profiles = {
	.name = "profiles",
	.summary = "list | show NAME | validate FILE... | recommend: the check profiles",
	.synopsis = "list\nshow NAME|FILE [--format json]\nvalidate FILE...\nrecommend [--sysroot PATH]",
	.description =
		"List the profiles found ($NODEAUDIT_PROFILE_PATH, /etc/nodeaudit/profiles,\n"
		"the installed ones, the built-in ones), show one with its inheritance\n"
		"resolved, or validate profile files (exit 3 with the file, key and problem).\n"
		"recommend probes the node and names the built-in profile that fits it, with\n"
		"the reason (as tuned-adm recommend): agent-vm-guest on a virtual guest,\n"
		"agent-accelerator-host with PCIe accelerators, agent-orchestrator under 16\n"
		"(performance) cores, else agent-cpu-inference.\n",
	.formats = profiles_formats,
	.min_operands = 1, .max_operands = -1,
	.operands_help = "subcommand (list, show NAME, validate FILE or recommend)",
	.flags = CMD_PROBES,
	.run = profiles_cmd,
};
