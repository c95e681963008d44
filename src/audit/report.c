/* audit/report.c - the check report: findings of a profile over the facts, as a document */
#include "config.h"
#include "audit/report.h"
#include "audit/checks.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/util.h"

#include <math.h>
#include <string.h>

/*** Building ***/

/* schema, tool, host (given), profile: the document's head. */
static cJSON *report_head(const struct profile *p, cJSON *host)
{
	cJSON *r = cJSON_CreateObject(), *o, *chain;
	size_t i;
	cJSON_AddStringToObject(r, "schema", REPORT_SCHEMA);
	o = cJSON_AddObjectToObject(r, "tool");
	cJSON_AddStringToObject(o, "name", PACKAGE_NAME);
	cJSON_AddStringToObject(o, "version", PACKAGE_VERSION);
	cJSON_AddItemToObject(r, "host", host ? host : cJSON_CreateObject());
	o = cJSON_AddObjectToObject(r, "profile");
	cJSON_AddStringToObject(o, "name", p->name);
	chain = cJSON_AddArrayToObject(o, "chain");
	for (i = 0; i < p->nchain; i++)
		cJSON_AddItemToArray(chain, cJSON_CreateString(p->chain[i]));
	cJSON_AddStringToObject(o, "source", p->source);
	return r;
}

/* findings (given) and summary: the document's tail. */
static void report_tail(cJSON *r, cJSON *findings, const int counts[ST__N], const char *fail_on,
			int *exit_code)
{
	cJSON *sum;
	size_t i;
	cJSON_AddItemToObject(r, "findings", findings);
	*exit_code = checks_exit(counts, fail_on);
	sum = cJSON_AddObjectToObject(r, "summary");
	for (i = 0; i < ST__N; i++)
		cJSON_AddNumberToObject(sum, status_name(i), counts[i]);
	cJSON_AddStringToObject(sum, "fail_on", fail_on ? fail_on : "warn");
	cJSON_AddNumberToObject(sum, "exit", *exit_code);
}

cJSON *report_build(const struct profile *p, const cJSON *root, const cJSON *gaps,
		    const cJSON *evidence, const cJSON *conflicts, const char *fail_on,
		    int *exit_code)
{
	cJSON *r, *facts;
	const cJSON *it;
	int counts[ST__N];

	it = cJSON_GetObjectItemCaseSensitive(root, "host");
	r = report_head(p, it ? cJSON_Duplicate(it, 1) : NULL);
	facts = cJSON_AddObjectToObject(r, "facts");
	cJSON_ArrayForEach(it, root)
		if (strcmp(it->string, "host"))
			cJSON_AddItemToObject(facts, it->string, cJSON_Duplicate(it, 1));
	cJSON_AddItemToObject(r, "gaps", gaps ? cJSON_Duplicate(gaps, 1) : cJSON_CreateArray());
	if (conflicts && cJSON_GetArraySize(conflicts))
		cJSON_AddItemToObject(r, "conflicts", cJSON_Duplicate(conflicts, 1));
	report_tail(r, checks_run(p, root, gaps, evidence, counts), counts, fail_on, exit_code);
	return r;
}

/* root's first "host", detached; any other member named so deleted (the
 * report's facts hold none, as report_build()'s copy skips them all). */
static cJSON *take_host(cJSON *root)
{
	cJSON *it = root ? root->child : NULL, *next, *host = NULL;
	for (; it; it = next) {
		next = it->next;
		if (strcmp(it->string, "host"))
			continue;
		cJSON_DetachItemViaPointer(root, it);
		if (host)
			cJSON_Delete(it);
		else
			host = it;
	}
	return host;
}

cJSON *report_build_moving(const struct profile *p, cJSON **root, cJSON **gaps,
			   const cJSON *evidence, cJSON **conflicts, const char *fail_on,
			   int *exit_code)
{
	cJSON *r, *findings;
	int counts[ST__N];

	/* The checks read the whole tree, host included, before it moves. */
	findings = checks_run(p, *root, *gaps, evidence, counts);
	r = report_head(p, take_host(*root));
	cJSON_AddItemToObject(r, "facts", *root ? *root : cJSON_CreateObject());
	*root = NULL;
	cJSON_AddItemToObject(r, "gaps", *gaps ? *gaps : cJSON_CreateArray());
	*gaps = NULL;
	if (*conflicts && cJSON_GetArraySize(*conflicts)) {
		cJSON_AddItemToObject(r, "conflicts", *conflicts);
		*conflicts = NULL;
	}
	report_tail(r, findings, counts, fail_on, exit_code);
	return r;
}

int report_apply_unknown(cJSON *report, const char *unknown, int code)
{
	cJSON *sum = cJSON_GetObjectItemCaseSensitive(report, "summary");
	const char *fail_on = fj_get_str(sum, "fail_on");
	double n = 0;
	const char *mode = unknown ? unknown : "ignore";
	if (!cJSON_IsObject(sum))
		return code;
	fj_get_num(sum, "unknown", &n);
	cJSON_AddStringToObject(sum, "on_unknown", mode);
	if (n > 0 && !(fail_on && !strcmp(fail_on, "never"))) {
		/* An undecided check weighs as a warning or a failure would,
		 * under the same --fail-on. */
		if (!strcmp(mode, "fail") && code < EXIT_CRIT)
			code = EXIT_CRIT;
		else if (!strcmp(mode, "warn") && code < EXIT_WARN && !(fail_on && !strcmp(fail_on, "fail")))
			code = EXIT_WARN;
	}
	fj_set(sum, "exit", cJSON_CreateNumber(code));
	return code;
}
