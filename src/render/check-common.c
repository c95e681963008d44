/* render/check-common.c - what the check report renderers share */
#include "config.h"
#include "audit/report.h"
#include "render/render.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int report_jint(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valueint : 0;
}

/* A figure for people, its unit with it, the human form first: "11.8 GiB
 * (12638101504 bytes)", "0 bytes", "2600 MHz", a ratio with two decimals. */
const char *report_value_text(double v, const char *unit, char *buf, size_t n)
{
	if (unit && !strcmp(unit, "bytes") && fabs(v) >= 1024) {
		char h[32];
		snprintf(buf, n, "%s (%.15g bytes)", human_bytes(v, h, sizeof(h)), v);
	} else if (unit && !strcmp(unit, "bytes"))
		snprintf(buf, n, "%.15g byte%s", v, v == 1 ? "" : "s");
	else if (unit && !strcmp(unit, "ratio"))
		snprintf(buf, n, "%.2f", v);
	else if (unit && *unit)
		snprintf(buf, n, "%.15g %s", v, unit);
	else
		snprintf(buf, n, "%.15g", v);
	return buf;
}

/* The expected value of a finding ("<= 0", ">= 4294967296") with each
 * figure in it given its unit as report_value_text() does; whole (a
 * sysctl's value can be a page long).  Free it. */
char *report_expected_text(const cJSON *f)
{
	const struct check *c = check_find(fj_get_str(f, "id") ? fj_get_str(f, "id") : "");
	const char *e = fj_get_str(f, "expected");
	return report_spec_text(e ? e : "", c ? c->unit : NULL);
}

/* A comparison ("<= 0", ">= 8589934592") with its figures in units.  Free it. */
char *report_spec_text(const char *e, const char *unit)
{
	struct strbuf sb = STRBUF_INIT;
	if (!unit || !strcmp(unit, "ratio"))
		return xstrdup(e);
	while (*e) {
		size_t w = strcspn(e, " ,");
		char *end = NULL, *tok = xstrndup(e, w), v[64];
		double x = w ? strtod(tok, &end) : 0;
		if (w && end && !*end && (*tok == '-' || (*tok >= '0' && *tok <= '9')))
			strbuf_addstr(&sb, report_value_text(x, unit, v, sizeof(v)));
		else
			strbuf_add(&sb, e, w);
		free(tok);
		e += w;
		if (*e) {
			strbuf_add(&sb, e, 1);
			e++;
		}
	}
	return sb.buf ? sb.buf : xstrdup("");
}

/* The observed value for people: figures with their unit
 * (report_value_text()); a list of over 60 bytes shortened, with " ...".
 * Free it. */
char *report_observed_text(const cJSON *f)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, "observed");
	const struct check *c = check_find(fj_get_str(f, "id") ? fj_get_str(f, "id") : "");
	char buf[64];
	if (cJSON_IsString(v))
		return xstrdup(*v->valuestring ? v->valuestring : "''");
	if (cJSON_IsBool(v))
		return xstrdup(cJSON_IsTrue(v) ? "true" : "false");
	if (cJSON_IsNumber(v))
		return xstrdup(report_value_text(v->valuedouble, c ? c->unit : NULL, buf, sizeof(buf)));
	if (cJSON_IsArray(v)) {
		struct strbuf sb = STRBUF_INIT;
		const cJSON *x;
		cJSON_ArrayForEach(x, v)
			if (cJSON_IsString(x))
				strbuf_addf(&sb, "%s%s", sb.len ? " " : "", x->valuestring);
		if (!sb.len)
			return xstrdup("none");
		if (sb.len > 60) {
			snprintf(buf, sizeof(buf), "%.56s ...", sb.buf);
			strbuf_release(&sb);
			return xstrdup(buf);
		}
		return sb.buf;
	}
	return xstrdup("unknown");
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
