/* render/check-tap.c - the check report as TAP (Test Anything Protocol) for prove and CI */
#include "config.h"
#include "audit/checks.h"
#include "lib/facts.h"
#include "render/render.h"
#include "audit/report.h"

#include <stdlib.h>
#include <string.h>

/* A TAP description is one line and may not hold '#' (it starts a directive). */
static void tap_text(FILE *fp, const char *s)
{
	for (; s && *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s == '#' ? '_' : *s, fp);
}

/*
 * One test per finding: pass is "ok"; fail, and warn unless --fail-on
 * fail or never, are "not ok"; skip (the check does not apply) is
 * "ok ... # SKIP reason"; info and a tolerated warn are "ok" with a
 * diagnostic line.  An unknown check could not be decided: never ok,
 * never a skip, "not ok N - id # unknown: REASON", whatever --unknown
 * makes of it in the exit status.
 */
void report_render_tap(FILE *fp, const struct doc *d)
{
	const cJSON *r = d->json;
	const cJSON *findings = cJSON_GetObjectItemCaseSensitive(r, "findings"), *f;
	const char *fail_on = fj_get_str(cJSON_GetObjectItemCaseSensitive(r, "summary"), "fail_on");
	int warn_fails = !(fail_on && (!strcmp(fail_on, "fail") || !strcmp(fail_on, "never")));
	int never = fail_on && !strcmp(fail_on, "never");
	int n = 0;

	fprintf(fp, "TAP version 13\n1..%d\n", cJSON_GetArraySize(findings));
	cJSON_ArrayForEach(f, findings) {
		int st = report_status_of(f);
		int bad = st == ST_UNKNOWN || (!never && (st == ST_FAIL || (st == ST_WARN && warn_fails)));
		const char *key = fj_get_str(f, "key");
		fprintf(fp, "%s %d - ", bad ? "not ok" : "ok", ++n);
		tap_text(fp, fj_get_str(f, "id"));
		if (key) {
			fputc(' ', fp);
			tap_text(fp, key);
		}
		if (st == ST_UNKNOWN) {
			fputs(" # unknown: ", fp);
			tap_text(fp, fj_get_str(f, "reason"));
		} else if (st == ST_SKIP) {   /* TAP's directive, then the reason */
			fputs(" # SKIP ", fp);
			tap_text(fp, fj_get_str(f, "reason"));
		}
		fputc('\n', fp);
		if (st != ST_PASS && st != ST_UNKNOWN && st != ST_SKIP) {
			fprintf(fp, "# %s: ", status_name(st));
			tap_text(fp, fj_get_str(f, "title"));
			fputs(": ", fp);
			char *o = report_observed_text(f), *e = report_expected_text(f);
			tap_text(fp, o);
			fputs(", expected ", fp);
			tap_text(fp, e);
			fputc('\n', fp);
			free(o);
			free(e);
		}
	}
}
