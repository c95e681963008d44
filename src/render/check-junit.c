/* render/check-junit.c - the check report as JUnit XML for CI report views */
#include "config.h"
#include "audit/report.h"
#include "render/render.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void xml_escape(FILE *fp, const char *s)
{
	markup_escape(fp, s, "&apos;", "?", 0);
}

/* "OBSERVED, expected EXPECTED", each whole, escaped. */
static void observed_expected(FILE *fp, const cJSON *f)
{
	char *o = report_observed_text(f), *e = report_expected_text(f);
	xml_escape(fp, o);
	fprintf(fp, ", expected ");
	xml_escape(fp, e);
	free(o);
	free(e);
}

void report_render_junit(FILE *fp, const struct doc *d)
{
	const cJSON *r = d->json;
	const char *fail_on = fj_get_str(cJSON_GetObjectItemCaseSensitive(r, "summary"), "fail_on");
	const cJSON *findings = cJSON_GetObjectItemCaseSensitive(r, "findings"), *f, *x;
	const cJSON *prof = cJSON_GetObjectItemCaseSensitive(r, "profile");
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(r, "host");
	int tests = 0, failures = 0, errors = 0, skipped = 0;
	int warn_fails = !(fail_on && (!strcmp(fail_on, "fail") || !strcmp(fail_on, "never")));
	char buf[600];
	time_t t;

	cJSON_ArrayForEach(f, findings) {
		int st = report_status_of(f);
		tests++;
		if (st == ST_FAIL || (st == ST_WARN && warn_fails))
			failures++;
		else if (st == ST_UNKNOWN)
			errors++;      /* it could not be evaluated: not a pass, not a skip */
		else if (st == ST_SKIP)
			skipped++;
	}
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(fp, "<testsuites name=\"nodeaudit\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\">\n",
		tests, failures, errors, skipped);
	fprintf(fp, "  <testsuite name=\"nodeaudit.");
	xml_escape(fp, fj_get_str(prof, "name"));
	fprintf(fp, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\"", tests, failures, errors,
		skipped);
	if (fj_get_str(host, "hostname")) {
		fprintf(fp, " hostname=\"");
		xml_escape(fp, fj_get_str(host, "hostname"));
		fputc('"', fp);
	}
	if (rfc3339_parse(fj_get_str(host, "collected_at"), &t) == 0) {
		/* JUnit wants ISO 8601 without the zone letter. */
		snprintf(buf, sizeof(buf), "%s", fj_get_str(host, "collected_at"));
		if (*buf && buf[strlen(buf) - 1] == 'Z')
			buf[strlen(buf) - 1] = '\0';
		fprintf(fp, " timestamp=\"");
		xml_escape(fp, buf);
		fputc('"', fp);
	}
	fprintf(fp, ">\n    <properties>\n      <property name=\"profile\" value=\"");
	xml_escape(fp, fj_get_str(prof, "name"));
	fprintf(fp, "\"/>\n      <property name=\"nodeaudit.version\" value=\"%s\"/>\n    </properties>\n",
		PACKAGE_VERSION);
	cJSON_ArrayForEach(f, findings) {
		int st = report_status_of(f);
		const char *id = fj_get_str(f, "id"), *key = fj_get_str(f, "key");
		char area[32];
		snprintf(area, sizeof(area), "%.*s", (int)strcspn(id, "."), id);
		fprintf(fp, "    <testcase classname=\"nodeaudit.%s\" name=\"", area);
		xml_escape(fp, id);
		if (key) {
			fputc('[', fp);
			xml_escape(fp, key);
			fputc(']', fp);
		}
		fprintf(fp, "\" time=\"0\">\n");
		if (st == ST_FAIL || (st == ST_WARN && warn_fails)) {
			fprintf(fp, "      <failure type=\"%s\" message=\"", status_name(st));
			xml_escape(fp, fj_get_str(f, "title"));
			fprintf(fp, ": observed ");
			observed_expected(fp, f);
			fprintf(fp, "\">");
			if (fj_get_str(f, "detail")) {
				xml_escape(fp, fj_get_str(f, "detail"));
				fputc('\n', fp);
			}
			xml_escape(fp, fj_get_str(f, "rationale"));
			fputc('\n', fp);
			cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(f, "fix")) {
				fprintf(fp, "fix (%s): ", fj_get_str(x, "kind"));
				xml_escape(fp, fj_get_str(x, "command") ? fj_get_str(x, "command") : fj_get_str(x, "text"));
				fputc('\n', fp);
			}
			fprintf(fp, "</failure>\n");
		} else if (st == ST_UNKNOWN) {
			fprintf(fp, "      <error type=\"unknown\" message=\"unknown: ");
			xml_escape(fp, fj_get_str(f, "reason"));
			fprintf(fp, "\"/>\n");
		} else if (st == ST_SKIP) {
			fprintf(fp, "      <skipped message=\"%s: ", status_name(st));
			xml_escape(fp, fj_get_str(f, "reason"));
			fprintf(fp, "\"/>\n");
		} else if (st != ST_PASS) {
			fprintf(fp, "      <system-out>%s: observed ", status_name(st));
			observed_expected(fp, f);
			fprintf(fp, "</system-out>\n");
		}
		fprintf(fp, "    </testcase>\n");
	}
	fprintf(fp, "  </testsuite>\n</testsuites>\n");
}
