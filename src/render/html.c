/* render/html.c - self-contained HTML pages: escaping, page frame, SVG helpers */
#include "config.h"
#include "render/html.h"
#include "render/markup.h"
#include "lib/output.h"
#include "lib/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The page's style sheet (a literal: it is markup the program holds). */
#define CSS \
	"*{box-sizing:border-box}" \
	"body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em auto;max-width:1200px;" \
	"padding:0 1em;color:#1b1f24;background:#fff}" \
	"h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;margin:1.4em 0 .4em;border-bottom:1px solid #d0d7de}" \
	"h3{font-size:1.05em;margin:1em 0 .3em}" \
	"table{border-collapse:collapse;margin:.4em 0;width:100%}" \
	"th,td{border:1px solid #d0d7de;padding:.2em .5em;text-align:left;vertical-align:top;overflow-wrap:break-word}" \
	"th{background:#f3f5f7}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}" \
	"code,.mono{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:.92em;overflow-wrap:anywhere}" \
	".cards{display:flex;flex-wrap:wrap;gap:.6em;margin:.6em 0}" \
	".card{border:1px solid #d0d7de;border-radius:6px;padding:.4em .9em;min-width:7em}" \
	".card b{display:block;font-size:1.5em}" \
	".pass{background:#dafbe1}.warn{background:#fff8c5}.fail{background:#ffebe9}" \
	".unknown{background:#eaeef2}.skip,.info{background:#f6f8fa}" \
	".st{font-style:normal;display:inline-block;min-width:4.5em;text-align:center;border-radius:4px;padding:0 .3em;" \
	"border:1px solid #d0d7de;font-size:.9em}" \
	".note{color:#57606a}.mixed{border:2px solid #bf8700;padding:.4em .8em;background:#fff8c5}" \
	"svg{max-width:100%;height:auto}svg:not(.nodemap) text{font:11px system-ui,sans-serif;fill:#1b1f24}" \
	"figure.chart{margin:0;width:260px}figure.chart figcaption{font-size:.85em;color:#57606a}" \
	".glance{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}" \
	"#findings-table{table-layout:fixed}#findings-table th:nth-child(1){width:10%}#findings-table .st{min-width:0}" \
	"#findings-table th:nth-child(2){width:19%}#findings-table th:nth-child(3),#findings-table th:nth-child(4){width:12%}" \
	"#findings-table th:nth-child(5){width:26%}#findings-table th:nth-child(6){width:21%}" \
	"figure.bars{margin:0}figure.grid{margin:0}figure.grid figcaption{max-width:26em;font-size:.85em;color:#57606a}" \
	".glance>div{flex:1 1 540px;max-width:830px}#distributions{max-width:830px;gap:.8em}" \
	"#nodes-table{table-layout:fixed}#nodes-table td,#outliers-table td{overflow-wrap:anywhere}" \
	"#nodes-table td:nth-child(n+2):nth-child(-n+5){text-align:right}" \
	"#nodes-table td:nth-child(6),#nodes-table td:nth-child(7){font-size:.92em}" \
	"rect.pass{fill:#aceebb}rect.warn{fill:#fae17d}rect.fail{fill:#ff8182}rect.unknown{fill:#d0d7de}" \
	"rect.skip,rect.none{fill:#fff}rect.empty{fill:#fff}" \
	"code.cid{overflow-wrap:normal;word-break:keep-all}ul.vals{margin:0;padding-left:1.1em}" \
	".verdict{font-size:1.3em;margin:.3em 0;padding:.3em .7em;border:1px solid #d0d7de;border-radius:6px}" \
	".fix div.cmd{margin:.15em 0 .4em}.fix div.cmd code{white-space:pre-wrap}" \
	"@media print{body{max-width:none;margin:0}h2{break-after:avoid}tr,svg,section.node{break-inside:avoid}" \
	"a{color:inherit;text-decoration:none}}"

void html_begin(FILE *fp, const char *title)
{
	MK(fp, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      /* nothing may be fetched: no script, no image, no font, no frame */
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"" PACKAGE_NAME " " PACKAGE_VERSION "\">\n<title>");
	mk_text(fp, title);
	MK(fp, "</title>\n<style>" CSS "</style>\n</head>\n<body>\n");
}

void html_end(FILE *fp)
{
	MK(fp, "<p class=\"note\">Written by " PACKAGE_NAME " " PACKAGE_VERSION
	      "; this page is self-contained and loads nothing.</p>\n</body>\n</html>\n");
}

const char *const html_rank_class[5] = { "skip", "pass", "unknown", "warn", "fail" };

int html_status_rank(const char *s)
{
	if (!s)
		return 2;
	if (!strcmp(s, "fail"))
		return 4;
	if (!strcmp(s, "warn"))
		return 3;
	if (!strcmp(s, "unknown"))
		return 2;
	if (!strcmp(s, "pass"))
		return 1;
	if (!strcmp(s, "info") || !strcmp(s, "skip"))
		return 0;
	return 2;
}

const char *html_status_class(const char *s)
{
	static const char *const known[] = { "pass", "warn", "fail", "unknown", "skip", "info" };
	size_t i;
	for (i = 0; s && i < ARRAY_SIZE(known); i++)
		if (!strcmp(s, known[i]))
			return known[i];
	return "unknown";
}

void svg_bars(FILE *fp, const char *title, const char *const *labels, const size_t *counts,
	      size_t n)
{
	/* 260 px wide whatever the count: three fit beside the grid on a 1400 px page. */
	const int w = 260, h = 90, top = 16, bottom = 20, left = 8;
	size_t i, max = 0;
	int slot = n ? (w - 2 * left) / (int)n : w, bw = slot > 8 ? slot - 4 : slot;
	if (bw > 44)
		bw = 44;
	for (i = 0; i < n; i++)
		if (counts[i] > max)
			max = counts[i];
	mk_rawf(fp, "<figure class=\"chart\"><svg role=\"img\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\"><title>",
		w, top + h + bottom, w, top + h + bottom);
	mk_text(fp, title);
	MK(fp, "</title>");
	mk_rawf(fp, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#57606a\"/>", left, top + h, w - left, top + h);
	for (i = 0; i < n; i++) {
		int bh = max ? (int)((double)counts[i] / (double)max * (h - 4)) : 0;
		int x = left + (int)i * slot + (slot - bw) / 2;
		if (counts[i] && bh < 2)
			bh = 2;
		MK(fp, "<g class=\"bar\">");
		mk_rawf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#54aeff\" stroke=\"#0969da\"/>",
			x, top + h - bh, bw, bh);
		if (counts[i])
			mk_rawf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"count\">%zu</text>",
				x + bw / 2, top + h - bh - 4, counts[i]);
		/* Every label when they fit, else every other one. */
		if (n <= 12 || i % 2 == 0) {
			mk_rawf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", x + bw / 2, top + h + 14);
			mk_text(fp, labels[i]);
			MK(fp, "</text>");
		}
		MK(fp, "<title>");
		mk_textf(fp, "%s: %zu", labels[i], counts[i]);
		MK(fp, "</title></g>");
	}
	MK(fp, "</svg><figcaption>");
	mk_text(fp, title);
	MK(fp, "</figcaption></figure>\n");
}

/*** Values for people ***/

const char *html_human(double v, const char *unit, char *buf, size_t n)
{
	if (!isfinite(v))
		snprintf(buf, n, "%g", v);
	else if (unit && !strcmp(unit, "ratio")) {
		double p = v * 100;
		snprintf(buf, n, fabs(p - round(p)) < 0.05 ? "%.0f%%" : "%.1f%%", p);
	} else if (unit && !strcmp(unit, "bytes")) {
		static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
		size_t k = 0;
		double x = v;
		while (fabs(x) >= 1024 && k + 1 < ARRAY_SIZE(u)) {
			x /= 1024;
			k++;
		}
		snprintf(buf, n, k && fabs(x - round(x)) >= 0.05 ? "%.1f %s" : "%.0f %s", x, u[k]);
	} else if (unit && !strcmp(unit, "MHz"))
		snprintf(buf, n, v >= 1000 ? "%.2f GHz" : "%.0f MHz", v >= 1000 ? v / 1000 : v);
	else if (fabs(v - round(v)) < 1e-9 && fabs(v) < 1e15)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.4g", v);
	return buf;
}

/* The raw text of a number as the report holds it (no float noise). */
static void raw_num(double v, char *buf, size_t n)
{
	if (fabs(v - round(v)) < 1e-9 && fabs(v) < 1e15)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.17g", v);
}

static void titled(FILE *fp, const char *raw, const char *shown)
{
	if (strcmp(raw, shown)) {
		MK(fp, "<span title=\"");
		mk_text(fp, raw);
		MK(fp, "\">");
		mk_text(fp, shown);
		MK(fp, "</span>");
	} else
		mk_text(fp, shown);
}

void html_value(FILE *fp, const cJSON *v, const char *unit)
{
	char raw[64], shown[64];
	const cJSON *e;
	if (!v || cJSON_IsNull(v)) {
		MK(fp, "<span class=\"note\">unknown</span>");
		return;
	}
	if (cJSON_IsNumber(v)) {
		raw_num(v->valuedouble, raw, sizeof(raw));
		titled(fp, raw, html_human(v->valuedouble, unit, shown, sizeof(shown)));
	} else if (cJSON_IsBool(v))
		mk_text(fp, cJSON_IsTrue(v) ? "true" : "false");
	else if (cJSON_IsString(v))
		mk_text(fp, v->valuestring);
	else if (cJSON_IsArray(v) && !cJSON_GetArraySize(v))
		mk_text(fp, "none");   /* an empty list is a value: none of them */
	else if (cJSON_IsArray(v)) {
		MK(fp, "<ul class=\"vals\">");
		cJSON_ArrayForEach(e, v) {
			MK(fp, "<li>");
			html_value(fp, e, unit);
			MK(fp, "</li>");
		}
		MK(fp, "</ul>");
	} else {
		char *s = cJSON_PrintUnformatted(v);
		mk_text(fp, s ? s : "");
		free(s);
	}
}

void html_expected(FILE *fp, const cJSON *v, const char *unit)
{
	const char *s = cJSON_IsString(v) ? v->valuestring : NULL, *lists[] = { "any of: ", "one of: " };
	size_t i;
	if (!s) {
		html_value(fp, v, unit);
		return;
	}
	/* "any of: a, b" and "one of: a, b": the choices as a list. */
	for (i = 0; i < ARRAY_SIZE(lists); i++)
		if (!strncmp(s, lists[i], strlen(lists[i]))) {
			const char *p = s + strlen(lists[i]), *q;
			mk_textf(fp, "%.7s", lists[i]);
			MK(fp, "<ul class=\"vals\">");
			while (*p) {
				q = strstr(p, ", ");
				MK(fp, "<li>");
				mk_textf(fp, "%.*s", (int)(q ? (size_t)(q - p) : strlen(p)), p);
				MK(fp, "</li>");
				p = q ? q + 2 : p + strlen(p);
			}
			MK(fp, "</ul>");
			return;
		}
	/* ">= 4294967296": the comparator, then the number for people. */
	if ((s[0] == '>' || s[0] == '<' || s[0] == '=') && s[1] == '=' && s[2] == ' ') {
		char *end, shown[64];
		double x = strtod(s + 3, &end);
		if (end != s + 3 && !*end && isfinite(x)) {
			mk_textf(fp, "%.2s ", s);
			titled(fp, s + 3, html_human(x, unit, shown, sizeof(shown)));
			return;
		}
	}
	mk_text(fp, s);
}

static int ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && !strcmp(s + a - b, tail);
}

void html_fact_value(FILE *fp, const char *fact, const char *text)
{
	char *end, shown[64];
	double v;
	if (!text || !*text || !fact) {
		mk_text(fp, text ? text : "");
		return;
	}
	v = strtod(text, &end);
	if (*end || !isfinite(v)) {
		mk_text(fp, text);
		return;
	}
	if (ends_with(fact, "_bytes_per_s"))
		snprintf(shown, sizeof(shown), "%.1f GB/s", v / 1e9);
	else if (ends_with(fact, "_bytes"))
		html_human(v, "bytes", shown, sizeof(shown));
	else if (ends_with(fact, "ratio"))
		html_human(v, "ratio", shown, sizeof(shown));
	else {
		mk_text(fp, text);
		return;
	}
	titled(fp, text, shown);
}

void html_check_id(FILE *fp, const char *id)
{
	const char *p;
	MK(fp, "<code class=\"cid\">");
	/* Whole segments ("memory.", "channels.", "populated_", "ratio"), each
	 * escaped as a string, with a break opportunity after each. */
	for (p = id; p && *p;) {
		size_t k = strcspn(p, "._");
		if (p[k])
			k++;
		mk_textf(fp, "%.*s", (int)k, p);
		if (p[k - 1] == '.' || p[k - 1] == '_')
			MK(fp, "<wbr>");
		p += k;
	}
	MK(fp, "</code>");
}
