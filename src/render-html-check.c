/* render-html-check.c - `check --format html`: one node's findings and a drawing of it */
#include "config.h"
#include "facts.h"
#include "html.h"
#include "render.h"
#include "sysroot.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Everything here is drawn from the report's facts and findings only: the
 * page shows what the report says, nothing is probed again.  The drawing is
 * render-svg.c's (the one of check --format svg): each finding colours the
 * part it names, the rest stays neutral.
 */

/* Object paths ("cpu.smt.active") are the fact tree's: facts_get(). */
#define jget facts_get

static const char *jstr(const cJSON *j, const char *path)
{
	j = jget(j, path);
	return cJSON_IsString(j) ? j->valuestring : NULL;
}

/* A number, or NAN. */
static double jnum(const cJSON *j, const char *path)
{
	j = jget(j, path);
	return cJSON_IsNumber(j) && isfinite(j->valuedouble) ? j->valuedouble : NAN;
}

/* A scalar for people: strings as is, numbers, booleans, null as "unknown". */
static void esc_value(FILE *fp, const cJSON *j)
{
	char *s;
	if (!j || cJSON_IsNull(j)) {
		fputs("<span class=\"note\">unknown</span>", fp);
		return;
	}
	if (cJSON_IsString(j)) {
		html_esc(fp, j->valuestring);
		return;
	}
	s = cJSON_PrintUnformatted(j);
	html_esc(fp, s ? s : "");
	free(s);
}

static void header(FILE *fp, const cJSON *report)
{
	static const char *const st[] = { "pass", "warn", "fail", "unknown", "skip", "info" };
	const cJSON *sum = jget(report, "summary");
	size_t i;
	double e = jnum(sum, "exit");
	fputs("<h1>", fp);
	html_esc(fp, jstr(report, "host.hostname") ? jstr(report, "host.hostname") : "unknown host");
	fputs("</h1>\n<p>", fp);
	fputs("Kernel <code>", fp);
	html_esc(fp, jstr(report, "host.kernel") ? jstr(report, "host.kernel") : "unknown");
	fputs("</code>, ", fp);
	html_esc(fp, jstr(report, "host.arch") ? jstr(report, "host.arch") : "");
	fputs("; profile <code>", fp);
	html_esc(fp, jstr(report, "profile.name") ? jstr(report, "profile.name") : "unknown");
	fputs("</code>; collected ", fp);
	html_esc(fp, jstr(report, "host.collected_at") ? jstr(report, "host.collected_at") : "unknown");
	if (jstr(report, "host.sysroot")) {
		fputs(" from the capture <code>", fp);
		html_esc(fp, jstr(report, "host.sysroot"));
		fputs("</code>", fp);
	}
	fputs(".</p>\n<div class=\"cards\">", fp);
	for (i = 0; i < ARRAY_SIZE(st); i++) {
		double n = jnum(sum, st[i]);
		if (isnan(n))
			n = 0;
		fprintf(fp, "<div class=\"card %s\"><b id=\"count-%s\">%.0f</b>%s</div>", n > 0 ? st[i] : "", st[i], n,
			st[i]);
	}
	fputs("</div>\n", fp);
	if (!isnan(e))
		fprintf(fp, "<p>Exit status: <span class=\"st %s\" id=\"exit\">%.0f</span></p>\n",
			e >= 3 ? "unknown" : e >= 2 ? "fail" : e >= 1 ? "warn" : "pass", e);
}

static void drawing(FILE *fp, const cJSON *report)
{
	fputs("<h2 id=\"drawing\">The node</h2>\n<p class=\"note\">Packages with their memory channels (each "
	      "slot named by its locator; an empty slot is dashed), NUMA nodes with their L3 groups and cores (P "
	      "performance, E efficiency; a sliver per hardware thread), PCI devices under their host bridge and "
	      "switches with the link each trained at. A finding colours the part it names: the empty slot, the "
	      "narrow link, the device on the wrong node; everything else stays neutral. The same drawing: "
	      "<code>nodeaudit check --format svg</code>.</p>\n", fp);
	node_svg_facts(fp, jget(report, "facts"), jget(report, "host"), jget(report, "findings"), 0);
}

/* Worst first, then in report order. */
static void findings_table(FILE *fp, const cJSON *report)
{
	const cJSON *findings = jget(report, "findings"), *it;
	int r;
	fputs("<h2 id=\"findings\">Findings</h2>\n<table id=\"findings-table\"><thead><tr><th>Status</th><th>Check</th>"
	      "<th>Observed</th><th>Expected</th><th>Why</th><th>Fix</th></tr></thead><tbody>\n", fp);
	for (r = 4; r >= 0; r--)
		cJSON_ArrayForEach(it, findings) {
			const char *st = jstr(it, "status"), *key = jstr(it, "key"), *s;
			const cJSON *fix = jget(it, "fix"), *fx;
			if (html_status_rank(st) != r)
				continue;
			fprintf(fp, "<tr class=\"%s\" data-status=\"%s\"><td><span class=\"st %s\">", html_status_class(st),
				html_status_class(st), html_status_class(st));
			html_esc(fp, st ? st : "unknown");
			fputs("</span></td><td><code>", fp);
			html_esc(fp, jstr(it, "id") ? jstr(it, "id") : "?");
			if (key) {
				fputc(' ', fp);
				html_esc(fp, key);
			}
			fputs("</code><br>", fp);
			html_esc(fp, jstr(it, "title") ? jstr(it, "title") : "");
			fputs("</td><td>", fp);
			esc_value(fp, jget(it, "observed"));
			fputs("</td><td>", fp);
			esc_value(fp, jget(it, "expected"));
			fputs("</td><td>", fp);
			if ((s = jstr(it, "detail"))) {
				html_esc(fp, s);
				fputs("<br>", fp);
			}
			if ((s = jstr(it, "reason"))) {
				html_esc(fp, s);
				fputs("<br>", fp);
			}
			if ((s = jstr(it, "rationale"))) {
				fputs("<span class=\"note\">", fp);
				html_esc(fp, s);
				fputs("</span>", fp);
			}
			fputs("</td><td>", fp);
			if (!cJSON_IsArray(fix))
				fix = NULL;
			cJSON_ArrayForEach(fx, fix) {
				const char *kind = jstr(fx, "kind"), *cmd = jstr(fx, "command"), *text = jstr(fx, "text");
				fputs("<div>", fp);
				if (kind) {
					html_esc(fp, kind);
					fputs(": ", fp);
				}
				if (text)
					html_esc(fp, text);
				if (cmd) {
					fputs("<code>", fp);
					html_esc(fp, cmd);
					fputs("</code>", fp);
				}
				fputs("</div>", fp);
			}
			fputs("</td></tr>\n", fp);
		}
	fputs("</tbody></table>\n", fp);
}

static void gaps(FILE *fp, const cJSON *report)
{
	const cJSON *g = jget(report, "gaps"), *it;
	if (!cJSON_GetArraySize(g))
		return;
	fputs("<h2 id=\"gaps\">Facts not known</h2>\n<ul>", fp);
	cJSON_ArrayForEach(it, g) {
		fputs("<li><code>", fp);
		html_esc(fp, jstr(it, "fact") ? jstr(it, "fact") : "?");
		fputs("</code>: ", fp);
		html_esc(fp, jstr(it, "reason") ? jstr(it, "reason") : "");
		fputs("</li>", fp);
	}
	fputs("</ul>\n", fp);
}

void report_html(FILE *fp, const cJSON *report)
{
	char *title = xasprintf("nodeaudit check: %s", jstr(report, "host.hostname") ? jstr(report, "host.hostname") : "unknown host");
	html_begin(fp, title);
	free(title);
	header(fp, report);
	fputs("<p><a href=\"#drawing\">The node</a> &middot; <a href=\"#findings\">Findings</a> &middot; "
	      "<a href=\"#gaps\">Facts not known</a></p>\n", fp);
	drawing(fp, report);
	findings_table(fp, report);
	gaps(fp, report);
	html_end(fp);
}
