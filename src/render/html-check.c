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
	MK(fp, "<p");
	mk_attrf(fp, "class", "verdict %s", cls);
	MK(fp, " id=\"verdict\"><b>");
	mk_text(fp, word);
	MK(fp, "</b>");
	if (!isnan(nf) && nf > 0)
		mk_textf(fp, ": %.0f check%s fail", nf, nf == 1 ? "" : "s");
	if (!isnan(nw) && nw > 0)
		mk_textf(fp, "%s%.0f warn%s", nf > 0 ? ", " : ": ", nw, nw == 1 ? "s" : "");
	if (!isnan(nu) && nu > 0)
		mk_textf(fp, "%s%.0f unknown", nf > 0 || nw > 0 ? ", " : ": ", nu);
	if (worst) {
		MK(fp, " <span class=\"note\">(");
		cJSON_ArrayForEach(it, jget(report, "findings")) {
			const char *st = jstr(it, "status"), *id = jstr(it, "id");
			if (!st || strcmp(st, worst) || !id)
				continue;
			if (k++ == 3) {
				MK(fp, ", ...");
				break;
			}
			if (k > 1)
				MK(fp, ", ");
			mk_text(fp, id);
			if (jstr(it, "key")) {
				MK(fp, " ");
				mk_text(fp, jstr(it, "key"));
			}
		}
		MK(fp, ")</span>");
	} else if (!isnan(e) && e == 0)
		MK(fp, ": every check the profile asks for passes");
	MK(fp, "</p>\n");
}

static void header(FILE *fp, const cJSON *report)
{
	static const char *const st[] = { "pass", "warn", "fail", "unknown", "skip", "info" };
	const cJSON *sum = jget(report, "summary");
	size_t i;
	double e = jnum(sum, "exit");
	MK(fp, "<h1>");
	mk_text(fp, jstr(report, "host.hostname") ? jstr(report, "host.hostname") : "unknown host");
	MK(fp, "</h1>\n");
	verdict(fp, report);
	MK(fp, "<p>Kernel <code>");
	mk_text(fp, jstr(report, "host.kernel") ? jstr(report, "host.kernel") : "unknown");
	MK(fp, "</code>, ");
	mk_text(fp, jstr(report, "host.arch") ? jstr(report, "host.arch") : "");
	MK(fp, "; profile <code>");
	mk_text(fp, jstr(report, "profile.name") ? jstr(report, "profile.name") : "unknown");
	MK(fp, "</code>; collected ");
	mk_text(fp, jstr(report, "host.collected_at") ? jstr(report, "host.collected_at") : "unknown");
	if (jstr(report, "host.sysroot")) {
		MK(fp, " from the capture <code>");
		mk_text(fp, jstr(report, "host.sysroot"));
		MK(fp, "</code>");
	}
	MK(fp, ".</p>\n<div class=\"cards\">");
	for (i = 0; i < ARRAY_SIZE(st); i++) {
		double n = jnum(sum, st[i]);
		if (isnan(n))
			n = 0;
		MK(fp, "<div");
		mk_attrf(fp, "class", "card %s", n > 0 ? st[i] : "");
		MK(fp, "><b");
		mk_attrf(fp, "id", "count-%s", st[i]);
		mk_rawf(fp, ">%.0f</b>", n);
		mk_text(fp, st[i]);
		MK(fp, "</div>");
	}
	MK(fp, "</div>\n");
	if (!isnan(e))
	{
		MK(fp, "<p>Exit status: <span");
		mk_attrf(fp, "class", "st %s", e >= 3 ? "unknown" : e >= 2 ? "fail" : e >= 1 ? "warn" : "pass");
		mk_rawf(fp, " id=\"exit\">%.0f</span></p>\n", e);
	}
}

/* The target of a finding's expected value (">= 4294967296"): its
 * comparator into *op and the number, or NaN. */
static double target_of(const cJSON *exp, char *op)
{
	const char *s = cJSON_IsString(exp) ? exp->valuestring : NULL;
	char *end;
	double x;
	if (!s || (s[0] != '>' && s[0] != '<') || s[1] != '=' || s[2] != ' ')
		return NAN;
	x = strtod(s + 3, &end);
	if (end == s + 3 || *end || !isfinite(x))
		return NAN;
	*op = s[0];
	return x;
}

/* A bar per figure the profile compares with a number: the observed value
 * against its target, coloured by the finding's status. */
static void figure_bars(FILE *fp, const cJSON *report)
{
	static const char *const fill[5] = { "#eaeef2", "#aceebb", "#d0d7de", "#fae17d", "#ff8182" };
	const cJSON *it;
	int n = 0, r, y;
	const int left = 250, bw = 300, rowh = 24, w = left + bw + 260;
	cJSON_ArrayForEach(it, jget(report, "findings")) {
		char op;
		n += cJSON_IsNumber(jget(it, "observed")) && isfinite(jget(it, "observed")->valuedouble) &&
		     !isnan(target_of(jget(it, "expected"), &op));
	}
	if (!n)
		return;
	MK(fp, "<h2 id=\"figures\">Figures against their targets</h2>\n<figure class=\"bars\">");
	mk_rawf(fp, "<svg role=\"img\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\"><title>", w, n * rowh + 8, w,
		n * rowh + 8);
	mk_textf(fp, "%d figures against their targets", n);
	MK(fp, "</title>");
	y = 4;
	for (r = 4; r >= 0; r--)
		cJSON_ArrayForEach(it, jget(report, "findings")) {
			const char *id = jstr(it, "id"), *st = jstr(it, "status"), *unit = unit_of(id);
			double obs = jnum(it, "observed"), tgt, top;
			char op = 0, a[64], b[64];
			int ow, tx;
			if (html_status_rank(st) != r || !id || !isfinite(obs) ||
			    isnan(tgt = target_of(jget(it, "expected"), &op)))
				continue;
			top = (obs > tgt ? obs : tgt) * 1.15;
			if (!(top > 0))
				top = 1;
			ow = obs > 0 ? (int)(obs / top * bw) : 0;
			tx = tgt > 0 ? (int)(tgt / top * bw) : 0;
			MK(fp, "<g class=\"figure\"");
			mk_attr(fp, "data-check", id);
			mk_attr(fp, "data-status", html_status_class(st));
			MK(fp, ">");
			mk_rawf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 8, y + 15);
			mk_text(fp, id);
			if (jstr(it, "key"))
				mk_textf(fp, " %s", jstr(it, "key"));
			MK(fp, "</text>");
			mk_rawf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f6f8fa\" stroke=\"#d0d7de\"/>",
				left, y + 3, bw, rowh - 8);
			mk_rawf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"", left, y + 3, ow, rowh - 8);
			mk_attr(fp, "fill", fill[r]);
			MK(fp, " stroke=\"#57606a\"/>");
			mk_rawf(fp, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#1b1f24\" stroke-width=\"2\"/>",
				left + tx, y + 1, left + tx, y + rowh - 3);
			mk_rawf(fp, "<text x=\"%d\" y=\"%d\">", left + bw + 8, y + 15);
			mk_textf(fp, "%s: %s (target %s %s)", html_status_class(st), html_human(obs, unit, a, sizeof(a)),
				 op == '>' ? "\xe2\x89\xa5" : "\xe2\x89\xa4", html_human(tgt, unit, b, sizeof(b)));
			MK(fp, "</text><title>");
			mk_textf(fp, "%s: observed %s, expected %s %s", id, a, op == '>' ? ">=" : "<=", b);
			MK(fp, "</title></g>");
			y += rowh;
		}
	MK(fp, "</svg><figcaption>Each bar is the observed figure; the black line is the target.</figcaption></figure>\n");
}

static void drawing(FILE *fp, const cJSON *report)
{
	MK(fp, "<h2 id=\"drawing\">The node</h2>\n<p class=\"note\">Laid out as lstopo draws it: packages (in a group "
	   "where a NUMA node spans several), NUMA nodes, L3 groups with the smaller caches counted, cores (L# "
	   "logical numbers) with their hardware threads (P# the kernel's CPU numbers); memory channels with "
	   "their slots (an empty slot is dashed) or the DIMMs the SMBIOS table names; PCI devices under their "
	   "host bridge and bridges, in the box of the CPUs their bus is local to, each with the link it trained "
	   "at. A finding colours the part it names and says why on it (the legend lists them); everything "
	   "else stays neutral. The same drawing: <code>nodeaudit check --format svg</code>.</p>\n");
	node_svg_facts(fp, jget(report, "facts"), jget(report, "host"), jget(report, "findings"), 0);
}

/* Worst first, then in report order. */
static void findings_table(FILE *fp, const cJSON *report)
{
	const cJSON *findings = jget(report, "findings"), *it;
	int r;
	MK(fp, "<h2 id=\"findings\">Findings</h2>\n<table id=\"findings-table\"><thead><tr><th>Status</th><th>Check</th>"
	      "<th>Observed</th><th>Expected</th><th>Why</th><th>Fix</th></tr></thead><tbody>\n");
	for (r = 4; r >= 0; r--)
		cJSON_ArrayForEach(it, findings) {
			const char *st = jstr(it, "status"), *key = jstr(it, "key"), *s;
			const cJSON *fix = jget(it, "fix"), *fx;
			if (html_status_rank(st) != r)
				continue;
			MK(fp, "<tr");
			mk_attr(fp, "class", html_status_class(st));
			mk_attr(fp, "data-status", html_status_class(st));
			MK(fp, "><td><span");
			mk_attrf(fp, "class", "st %s", html_status_class(st));
			MK(fp, ">");
			mk_text(fp, st ? st : "unknown");
			MK(fp, "</span></td><td>");
			html_check_id(fp, jstr(it, "id") ? jstr(it, "id") : "?");
			if (key) {
				MK(fp, " <code>");
				mk_text(fp, key);
				MK(fp, "</code>");
			}
			MK(fp, "<br>");
			mk_text(fp, jstr(it, "title") ? jstr(it, "title") : "");
			MK(fp, "</td><td>");
			html_value(fp, jget(it, "observed"), unit_of(jstr(it, "id")));
			MK(fp, "</td><td>");
			html_expected(fp, jget(it, "expected"), unit_of(jstr(it, "id")));
			MK(fp, "</td><td>");
			if ((s = jstr(it, "detail"))) {
				mk_text(fp, s);
				MK(fp, "<br>");
			}
			if ((s = jstr(it, "reason"))) {
				mk_text(fp, s);
				MK(fp, "<br>");
			}
			if ((s = jstr(it, "rationale"))) {
				MK(fp, "<span class=\"note\">");
				mk_text(fp, s);
				MK(fp, "</span>");
			}
			MK(fp, "</td><td class=\"fix\">");
			if (!cJSON_IsArray(fix))
				fix = NULL;
			/* The text, then its command on a line of its own. */
			cJSON_ArrayForEach(fx, fix) {
				const char *kind = jstr(fx, "kind"), *cmd = jstr(fx, "command"), *text = jstr(fx, "text");
				MK(fp, "<div>");
				if (kind) {
					MK(fp, "<b>");
					mk_text(fp, kind);
					MK(fp, "</b>: ");
				}
				if (text)
					mk_text(fp, text);
				MK(fp, "</div>");
				if (cmd) {
					MK(fp, "<div class=\"cmd\"><code>");
					mk_text(fp, cmd);
					MK(fp, "</code></div>");
				}
			}
			MK(fp, "</td></tr>\n");
		}
	MK(fp, "</tbody></table>\n");
}

static void gaps(FILE *fp, const cJSON *report)
{
	const cJSON *g = jget(report, "gaps"), *it;
	if (!cJSON_GetArraySize(g))
		return;
	MK(fp, "<h2 id=\"gaps\">Facts not known</h2>\n<ul>");
	cJSON_ArrayForEach(it, g) {
		MK(fp, "<li><code>");
		mk_text(fp, jstr(it, "fact") ? jstr(it, "fact") : "?");
		MK(fp, "</code>: ");
		mk_text(fp, jstr(it, "reason") ? jstr(it, "reason") : "");
		MK(fp, "</li>");
	}
	MK(fp, "</ul>\n");
}

void report_html(FILE *fp, const cJSON *report)
{
	char *title = xasprintf("nodeaudit check: %s", jstr(report, "host.hostname") ? jstr(report, "host.hostname") : "unknown host");
	html_begin(fp, title);
	free(title);
	header(fp, report);
	figure_bars(fp, report);
	MK(fp, "<p><a href=\"#drawing\">The node</a> &middot; <a href=\"#findings\">Findings</a> &middot; "
	      "<a href=\"#gaps\">Facts not known</a></p>\n");
	drawing(fp, report);
	findings_table(fp, report);
	gaps(fp, report);
	html_end(fp);
}
