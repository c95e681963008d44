/* render/html-check.c - `check --format html`: one node's findings and a drawing of it */
#include "config.h"
#include "lib/facts.h"
#include "render/html.h"
#include "render/render.h"
#include "audit/checks.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Everything here is drawn from the report's facts and findings only: the
 * page shows what the report says, nothing is probed again.  The drawing is
 * render/svg.c's (the one of check --format svg): each finding colours the
 * part it names, the rest stays neutral.
 */

/* Object paths ("cpu.smt.active") are the fact tree's: facts_get(). */
#define jget facts_get

#define jstr facts_str
#define jnum facts_num

/* The unit of a check's values (the catalogue's), or NULL. */
static const char *unit_of(const char *id)
{
	const struct check *c = id ? check_find(id) : NULL;
	return c ? c->unit : NULL;
}

/* One word for the node, then what makes it so: the failing checks, the
 * warnings, the unknowns (as the exit status counts them). */
static void verdict(FILE *fp, const cJSON *report)
{
	const cJSON *sum = jget(report, "summary"), *it;
	double e = jnum(sum, "exit"), nf = jnum(sum, "fail"), nw = jnum(sum, "warn"), nu = jnum(sum, "unknown");
	const char *word = isnan(e) ? "UNKNOWN" : e >= 3 ? "UNKNOWN" : e >= 2 ? "FAIL" : e >= 1 ? "WARN" : "OK";
	const char *cls = isnan(e) || e >= 3 ? "unknown" : e >= 2 ? "fail" : e >= 1 ? "warn" : "pass";
	const char *worst = nf > 0 ? "fail" : nw > 0 ? "warn" : NULL;
	int k = 0;
	fprintf(fp, "<p class=\"verdict %s\" id=\"verdict\"><b>%s</b>", cls, word);
	if (!isnan(nf) && nf > 0)
		fprintf(fp, ": %.0f check%s fail", nf, nf == 1 ? "" : "s");
	if (!isnan(nw) && nw > 0)
		fprintf(fp, "%s%.0f warn%s", nf > 0 ? ", " : ": ", nw, nw == 1 ? "s" : "");
	if (!isnan(nu) && nu > 0)
		fprintf(fp, "%s%.0f unknown", nf > 0 || nw > 0 ? ", " : ": ", nu);
	if (worst) {
		fputs(" <span class=\"note\">(", fp);
		cJSON_ArrayForEach(it, jget(report, "findings")) {
			const char *st = jstr(it, "status"), *id = jstr(it, "id");
			if (!st || strcmp(st, worst) || !id)
				continue;
			if (k++ == 3) {
				fputs(", ...", fp);
				break;
			}
			if (k > 1)
				fputs(", ", fp);
			html_esc(fp, id);
			if (jstr(it, "key")) {
				fputc(' ', fp);
				html_esc(fp, jstr(it, "key"));
			}
		}
		fputs(")</span>", fp);
	} else if (!isnan(e) && e == 0)
		fputs(": every check the profile asks for passes", fp);
	fputs("</p>\n", fp);
}

static void header(FILE *fp, const cJSON *report)
{
	static const char *const st[] = { "pass", "warn", "fail", "unknown", "skip", "info" };
	const cJSON *sum = jget(report, "summary");
	size_t i;
	double e = jnum(sum, "exit");
	fputs("<h1>", fp);
	html_esc(fp, jstr(report, "host.hostname") ? jstr(report, "host.hostname") : "unknown host");
	fputs("</h1>\n", fp);
	verdict(fp, report);
	fputs("<p>Kernel <code>", fp);
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
			fputs("</span></td><td>", fp);
			html_check_id(fp, jstr(it, "id") ? jstr(it, "id") : "?");
			if (key) {
				fputs(" <code>", fp);
				html_esc(fp, key);
				fputs("</code>", fp);
			}
			fputs("<br>", fp);
			html_esc(fp, jstr(it, "title") ? jstr(it, "title") : "");
			fputs("</td><td>", fp);
			html_value(fp, jget(it, "observed"), unit_of(jstr(it, "id")));
			fputs("</td><td>", fp);
			html_expected(fp, jget(it, "expected"), unit_of(jstr(it, "id")));
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
			fputs("</td><td class=\"fix\">", fp);
			if (!cJSON_IsArray(fix))
				fix = NULL;
			/* The text, then its command on a line of its own. */
			cJSON_ArrayForEach(fx, fix) {
				const char *kind = jstr(fx, "kind"), *cmd = jstr(fx, "command"), *text = jstr(fx, "text");
				fputs("<div>", fp);
				if (kind) {
					fputs("<b>", fp);
					html_esc(fp, kind);
					fputs("</b>: ", fp);
				}
				if (text)
					html_esc(fp, text);
				fputs("</div>", fp);
				if (cmd) {
					fputs("<div class=\"cmd\"><code>", fp);
					html_esc(fp, cmd);
					fputs("</code></div>", fp);
				}
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
