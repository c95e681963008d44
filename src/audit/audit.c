/* audit/audit.c - the audit pipeline: probe (or saved facts) -> profile -> report */
#include "config.h"
#include "audit/audit.h"
#include "audit/recommend.h"
#include "audit/report.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void audit_read_profile_inputs(struct probe_ctx *ctx, const struct profile *p)
{
	size_t i;
	for (i = 0; i < p->nspecs; i++) {
		const struct check *c = p->specs[i].check;
		if (c->keyed && c->type == V_SYSCTL && !strcmp(c->id, "kernel.sysctl"))
			kernel_probe_sysctl(ctx, p->specs[i].key);
		else if (c->sysctl)
			kernel_probe_sysctl(ctx, c->sysctl);
	}
}

void audit_read_all_profile_inputs(struct probe_ctx *ctx)
{
	char **names;
	size_t n, i;
	profile_list_names(&names, &n);
	for (i = 0; i < n; i++) {
		struct profile p;
		char *err = NULL;
		if (profile_load(&p, names[i], NULL, NULL, &err) == 0) {
			audit_read_profile_inputs(ctx, &p);
			profile_release(&p);
		} else
			debug("%s", err);
		free(err);
		free(names[i]);
	}
	free(names);
}

cJSON *audit_load_doc(const char *path, const char *want, const char *what, size_t max)
{
	const char *wants[] = { want, NULL };
	return audit_load_doc_of(path, wants, what, max);
}

cJSON *audit_load_doc_of(const char *path, const char *const *wants, const char *what, size_t max)
{
	size_t w;
	struct strbuf sb = STRBUF_INIT;
	const char *end = NULL;
	const cJSON *schema;
	const char *why;
	cJSON *doc;
	long bad;
	int r = read_file_capped(path, max, &sb.buf, &sb.len);
	if (r == -EFBIG) {
		error("cannot read '%s': larger than %zu MiB", path, max >> 20);
		return NULL;
	}
	if (r < 0) {
		error("cannot read '%s': %s", path, input_strerror(-r));
		return NULL;
	}
	if (!sb.len) {
		free(sb.buf);
		sb.buf = NULL;
	}
	if (!sb.buf) {
		error("'%s': empty file, expected %s", path, what);
		return NULL;
	}
	/* Documents are UTF-8 (RFC 8259), or refused: strings from them reach
	 * terminals, reports and plans. */
	if ((bad = json_bad_offset(sb.buf, sb.len, &why)) >= 0) {
		int line, col;
		text_line_col(sb.buf, (size_t)bad, &line, &col);
		strbuf_release(&sb);
		error("'%s': line %d, column %d: %s", path, line, col, why);
		return NULL;
	}
	doc = cJSON_ParseWithOpts(sb.buf, &end, 1);
	if (!doc) {
		int line, col;
		text_line_col(sb.buf, end ? (size_t)(end - sb.buf) : 0, &line, &col);
		strbuf_release(&sb);
		error("'%s': line %d, column %d: invalid JSON", path, line, col);
		return NULL;
	}
	strbuf_release(&sb);
	schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
	if (!cJSON_IsObject(doc) || !cJSON_IsString(schema)) {
		cJSON_Delete(doc);
		error("'%s' is not %s (it has no \"schema\")", path, what);
		return NULL;
	}
	for (w = 0; wants[w] && strcmp(schema->valuestring, wants[w]); w++)
		;
	if (!wants[w]) {
		char shown[48];
		error("'%s' is not %s: its schema is '%s', not '%s'%s%s%s", path, what,
		      str_shown(schema->valuestring, shown, sizeof(shown)), wants[0],
		      wants[1] ? " or '" : "", wants[1] ? wants[1] : "", wants[1] ? "'" : "");
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

/* A probe document split into the fact tree (root.cpu...) and its meta:
 * the facts move out of doc, which keeps the meta. */
static cJSON *facts_from_probe_doc(cJSON *doc)
{
	static const char *const meta[] = { "schema", "tool", "gaps", "conflicts", "evidence", NULL };
	cJSON *root = cJSON_CreateObject();
	cJSON *it, *next;
	for (it = doc->child; it; it = next) {
		size_t i;
		int skip = 0;
		next = it->next;
		for (i = 0; meta[i]; i++)
			if (!strcmp(it->string, meta[i]))
				skip = 1;
		/* Appended with its key as it is (an object's members are an
		 * array's items with names). */
		if (!skip)
			cJSON_AddItemToArray(root, cJSON_DetachItemViaPointer(doc, it));
	}
	return root;
}

/* ev[fact] gains the strings of files not in it yet. */
static void evidence_add(cJSON *ev, const char *fact, const cJSON *files)
{
	cJSON *list = cJSON_GetObjectItemCaseSensitive(ev, fact), *x;
	const cJSON *p;
	if (!list)
		list = cJSON_AddArrayToObject(ev, fact);
	cJSON_ArrayForEach(p, files) {
		int dup = 0;
		if (!cJSON_IsString(p))
			continue;
		cJSON_ArrayForEach(x, list)
			dup |= !strcmp(x->valuestring, p->valuestring);
		if (!dup)
			cJSON_AddItemToArray(list, cJSON_CreateString(p->valuestring));
	}
}

/* A report keeps each finding's files, not the probe's evidence lists:
 * those are taken back from them, a finding resting on one fact giving
 * that fact's files exactly, one resting on several giving all its files
 * to each of them that no such finding names. */
static cJSON *evidence_from_findings(const cJSON *findings)
{
	cJSON *ev = cJSON_CreateObject(), *exact = NULL;
	const cJSON *f, *fact;
	int pass;
	for (pass = 0; pass < 2; pass++) {
		if (pass)
			exact = cJSON_Duplicate(ev, 1);
		cJSON_ArrayForEach(f, findings) {
			const cJSON *facts = cJSON_GetObjectItemCaseSensitive(f, "facts");
			const cJSON *files = cJSON_GetObjectItemCaseSensitive(f, "evidence");
			int one = cJSON_GetArraySize(facts) == 1;
			if (!cJSON_IsArray(files) || one == pass)
				continue;
			cJSON_ArrayForEach(fact, facts)
				if (cJSON_IsString(fact) && (!exact || !cJSON_GetObjectItemCaseSensitive(exact, fact->valuestring)))
					evidence_add(ev, fact->valuestring, files);
		}
	}
	cJSON_Delete(exact);
	return ev;
}

/* An earlier report (check --format json) as the probe document its facts
 * came from: its host, its facts, its gaps and conflicts, and evidence
 * lists from its findings.  NULL after one line when it holds no facts. */
static cJSON *probe_doc_from_report(cJSON *report, const char *path)
{
	cJSON *doc, *facts = cJSON_GetObjectItemCaseSensitive(report, "facts"), *it;
	static const char *const keep[] = { "host", "gaps", "conflicts" };
	size_t i;
	if (!cJSON_IsObject(facts) || cJSON_GetObjectItemCaseSensitive(facts, "host")) {
		error("'%s' is not a 'nodeaudit check --format json' report (%s)", path,
		      cJSON_IsObject(facts) ? "its facts hold a host" : "no facts");
		cJSON_Delete(report);
		return NULL;
	}
	doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "nodeaudit.probe/1");
	for (i = 0; i < ARRAY_SIZE(keep); i++) {
		it = cJSON_GetObjectItemCaseSensitive(report, keep[i]);
		if (it)
			cJSON_AddItemToObject(doc, keep[i], cJSON_DetachItemViaPointer(report, it));
	}
	while ((it = facts->child))
		cJSON_AddItemToArray(doc, cJSON_DetachItemViaPointer(facts, it));
	cJSON_AddItemToObject(doc, "evidence",
			      evidence_from_findings(cJSON_GetObjectItemCaseSensitive(report, "findings")));
	cJSON_Delete(report);
	return doc;
}

/* Without --profile, on a guest: the guest profile instead of the default,
 * for every command that audits (plain `nodeaudit`, check, every plan
 * format: one choice), and the report says so.  0, or -1 after one line. */
static int guest_switch(const struct audit_opts *o, const cJSON *root, struct profile *prof, int *chosen)
{
	char *err = NULL;
	*chosen = 0;
	if (o->profile || !facts_is_guest(root))
		return 0;
	profile_release(prof);
	if (profile_load(prof, GUEST_PROFILE, NULL, NULL, &err) < 0) {
		error("%s", err);
		free(err);
		return -1;
	}
	*chosen = 1;
	return 0;
}

static void say_chosen(cJSON *report)
{
	const char *hv = fj_get_str(cJSON_GetObjectItemCaseSensitive(report, "host"), "hypervisor");
	char *s = xasprintf("a virtual guest%s%s%s: the host decides the hardware checks; --profile overrides",
			    hv ? " (" : "", hv ? hv : "", hv ? ")" : "");
	cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(report, "profile"), "chosen", s);
	free(s);
}

int audit_run(const struct audit_opts *o, const struct probe_opts *po, cJSON **report,
	      int *exit_code)
{
	int chosen = 0;
	struct profile prof;
	struct probe_ctx ctx;
	char *err = NULL;
	const char *fail_on = o->fail_on ? o->fail_on : "warn";

	*report = NULL;
	if (profile_load(&prof, o->profile ? o->profile : DEFAULT_PROFILE, NULL, NULL, &err) < 0) {
		error("%s", err);
		free(err);
		return -1;
	}
	if (o->facts) {
		static const char *const wants[] = { "nodeaudit.probe/1", "nodeaudit.report/1", NULL };
		cJSON *doc = audit_load_doc_of(o->facts, wants, "the JSON of 'nodeaudit probe --format json' "
					       "or of an earlier 'check --format json'", 64u << 20);
		cJSON *root, *gaps, *conflicts;
		if (doc && !strcmp(cJSON_GetObjectItemCaseSensitive(doc, "schema")->valuestring, wants[1]))
			doc = probe_doc_from_report(doc, o->facts);
		if (!doc) {
			profile_release(&prof);
			return -1;
		}
		root = facts_from_probe_doc(doc);
		if (guest_switch(o, root, &prof, &chosen) < 0) {
			cJSON_Delete(root);
			cJSON_Delete(doc);
			return -1;
		}
		gaps = cJSON_GetObjectItemCaseSensitive(doc, "gaps");
		conflicts = cJSON_GetObjectItemCaseSensitive(doc, "conflicts");
		if (gaps)
			cJSON_DetachItemViaPointer(doc, gaps);
		if (conflicts)
			cJSON_DetachItemViaPointer(doc, conflicts);
		*report = report_build_moving(&prof, &root, &gaps,
					      cJSON_GetObjectItemCaseSensitive(doc, "evidence"),
					      &conflicts, fail_on, exit_code);
		if (chosen)
			say_chosen(*report);
		*exit_code = report_apply_unknown(*report, o->unknown, *exit_code);
		cJSON_Delete(conflicts);
		cJSON_Delete(doc);
		profile_release(&prof);
		return 0;
	}
	if (probe_run(&ctx, po, NULL) < 0) {
		probe_release(&ctx);
		profile_release(&prof);
		return -1;
	}
	if (guest_switch(o, ctx.facts.root, &prof, &chosen) < 0) {
		probe_release(&ctx);
		return -1;
	}
	audit_read_profile_inputs(&ctx, &prof);
	if (o->bench && bench_run(&ctx, o->bench, facts_obj(&ctx.facts, "bench")) < 0) {
		probe_release(&ctx);
		profile_release(&prof);
		return -1;
	}
	*report = report_build_moving(&prof, &ctx.facts.root, &ctx.facts.gaps, ctx.facts.evidence,
				      &ctx.facts.conflicts, fail_on, exit_code);
	if (chosen)
		say_chosen(*report);
	*exit_code = report_apply_unknown(*report, o->unknown, *exit_code);
	probe_release(&ctx);
	profile_release(&prof);
	return 0;
}
