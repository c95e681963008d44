/* render/check-common.c - what the check report renderers share */
#include "config.h"
#include "audit/report.h"
#include "render/render.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/util.h"

#include <math.h>
#include <string.h>

int report_jint(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valueint : 0;
}

/* The observed value for people: bytes as sizes, ratios with two decimals. */
const char *report_observed_text(const cJSON *f, char *buf, size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, "observed");
	const struct check *c = check_find(fj_get_str(f, "id") ? fj_get_str(f, "id") : "");
	if (cJSON_IsString(v))
		snprintf(buf, n, "%s", *v->valuestring ? v->valuestring : "''");
	else if (cJSON_IsBool(v))
		snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
	else if (cJSON_IsNumber(v)) {
		if (c && c->unit && !strcmp(c->unit, "bytes") && v->valuedouble >= 1024) {
			char h[32];
			snprintf(buf, n, "%.15g (%s)", v->valuedouble, human_bytes(v->valuedouble, h, sizeof(h)));
		} else if (c && c->unit && !strcmp(c->unit, "ratio"))
			snprintf(buf, n, "%.2f", v->valuedouble);
		else
			snprintf(buf, n, "%.15g", v->valuedouble);
	} else if (cJSON_IsArray(v)) {
		struct strbuf sb = STRBUF_INIT;
		const cJSON *x;
		cJSON_ArrayForEach(x, v)
			if (cJSON_IsString(x))
				strbuf_addf(&sb, "%s%s", sb.len ? " " : "", x->valuestring);
		snprintf(buf, n, "%s", sb.len ? sb.buf : "(none)");
		if (strlen(buf) > 60)
			strcpy(buf + 56, " ...");
		strbuf_release(&sb);
	} else
		snprintf(buf, n, "unknown");
	return buf;
}

int report_status_of(const cJSON *f)
{
	const char *s = fj_get_str(f, "status");
	int i;
	for (i = 0; i < ST__N; i++)
		if (s && !strcmp(s, status_name(i)))
			return i;
	return ST_UNKNOWN;
}
