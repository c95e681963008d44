/* audit/plan-tuned.c - plan.tuned: the profile the plan's tuned profile
 * builds on (render/plan-tuned.c writes the profile).  Pure: facts in,
 * plan.tuned out. */
#include "config.h"
#include "audit/plan.h"
#include "lib/facts.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

/* tuned's own rule for a profile name (tuned/profiles/loader.py, safe_name). */
static int tuned_name_ok(const char *s, size_t n)
{
	size_t i;
	if (!n || n > 64)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_' || s[i] == '.' || s[i] == '-'))
			return 0;
	return 1;
}

void plan_tuned(cJSON *plan, const cJSON *facts)
{
	cJSON *t = cJSON_AddObjectToObject(plan, "tuned");
	cJSON *inc = cJSON_AddArrayToObject(t, "include");
	const char *active = facts_str(facts, "kernel.tuned_profile"), *p;
	int own = 0, bad = 0;

	cJSON_AddStringToObject(t, "name", PLAN_TUNED_NAME);
	/* "throughput-performance" or several merged: "balanced my-overrides". */
	for (p = active; p && *p;) {
		size_t n;
		while (*p == ' ' || *p == '\t')
			p++;
		n = strcspn(p, " \t");
		if (!n)
			break;
		if (n == strlen(PLAN_TUNED_NAME) && !strncmp(p, PLAN_TUNED_NAME, n))
			own = 1;
		else if (tuned_name_ok(p, n)) {
			char *w = xstrndup(p, n);
			cJSON_AddItemToArray(inc, cJSON_CreateString(w));
			free(w);
		} else
			bad = 1;
		p += n;
	}
	if (cJSON_GetArraySize(inc)) {
		cJSON_AddStringToObject(t, "include_from", "the node's running tuned profile (/etc/tuned/active_profile)");
		return;
	}
	cJSON_AddItemToArray(inc, cJSON_CreateString("throughput-performance"));
	cJSON_AddStringToObject(t, "include_from",
				own ? "tuned's throughput-performance: the node runs nodeaudit's own profile, whose "
				      "base is not known here"
				: bad ? "tuned's throughput-performance: the node's active profile has a name tuned "
					"would not load"
				: active ? "tuned's throughput-performance: no tuned profile is active on the node"
					 : "tuned's throughput-performance: the node's tuned profile is unknown "
					   "(no /etc/tuned/active_profile read)");
}
