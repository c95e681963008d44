/* html.c - self-contained HTML pages: escaping, page frame, SVG helpers */
#include "config.h"
#include "html.h"
#include "output.h"
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void html_esc(FILE *fp, const char *s)
{
	markup_escape(fp, s, "&#39;", "\xef\xbf\xbd", 1);   /* U+FFFD */
}

void html_escf(FILE *fp, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	html_esc(fp, s);
	free(s);
}

void html_id(FILE *fp, const char *prefix, const char *s)
{
	fputs(prefix, fp);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.')
			fputc(c, fp);
		else
			fprintf(fp, "_%02x", c);
	}
}

static const char css[] =
	"*{box-sizing:border-box}"
	"body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5em auto;max-width:1200px;"
	"padding:0 1em;color:#1b1f24;background:#fff}"
	"h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;margin:1.4em 0 .4em;border-bottom:1px solid #d0d7de}"
	"h3{font-size:1.05em;margin:1em 0 .3em}"
	"table{border-collapse:collapse;margin:.4em 0;width:100%}"
	"th,td{border:1px solid #d0d7de;padding:.2em .5em;text-align:left;vertical-align:top}"
	"th{background:#f3f5f7}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
	"code,.mono{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:.92em;overflow-wrap:anywhere}"
	".cards{display:flex;flex-wrap:wrap;gap:.6em;margin:.6em 0}"
	".card{border:1px solid #d0d7de;border-radius:6px;padding:.4em .9em;min-width:7em}"
	".card b{display:block;font-size:1.5em}"
	".pass{background:#dafbe1}.warn{background:#fff8c5}.fail{background:#ffebe9}"
	".unknown{background:#eaeef2}.skip,.info{background:#f6f8fa}"
	".st{font-style:normal;display:inline-block;min-width:4.5em;text-align:center;border-radius:4px;padding:0 .3em;"
	"border:1px solid #d0d7de;font-size:.9em}"
	".note{color:#57606a}.mixed{border:2px solid #bf8700;padding:.4em .8em;background:#fff8c5}"
	"svg{max-width:100%;height:auto}svg:not(.nodemap) text{font:11px system-ui,sans-serif;fill:#1b1f24}"
	"#nodes-table td:nth-child(n+2):nth-child(-n+5){text-align:right}"
	"#nodes-table td:nth-child(6),#nodes-table td:nth-child(7){font-size:.92em}"
	"rect.pass{fill:#aceebb}rect.warn{fill:#fae17d}rect.fail{fill:#ff8182}rect.unknown{fill:#d0d7de}"
	"rect.skip,rect.none{fill:#fff}rect.empty{fill:#fff}"
	"@media print{body{max-width:none;margin:0}h2{break-after:avoid}tr,svg,section.node{break-inside:avoid}"
	"a{color:inherit;text-decoration:none}}";

void html_begin(FILE *fp, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      /* nothing may be fetched: no script, no image, no font, no frame */
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"" PACKAGE_NAME " " PACKAGE_VERSION "\">\n<title>",
	      fp);
	html_esc(fp, title);
	fprintf(fp, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
}

void html_end(FILE *fp)
{
	fputs("<p class=\"note\">Written by " PACKAGE_NAME " " PACKAGE_VERSION
	      "; this page is self-contained and loads nothing.</p>\n</body>\n</html>\n", fp);
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
	const int bw = 48, gap = 12, h = 140, top = 24, bottom = 36, left = 10;
	size_t i, max = 0;
	int w = left * 2 + (int)n * (bw + gap);
	if (w < 260)
		w = 260;
	for (i = 0; i < n; i++)
		if (counts[i] > max)
			max = counts[i];
	fprintf(fp, "<figure><svg role=\"img\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\"><title>", w, top + h + bottom, w, top + h + bottom);
	html_esc(fp, title);
	fputs("</title>", fp);
	fprintf(fp, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#57606a\"/>", left, top + h,
		w - left, top + h);
	for (i = 0; i < n; i++) {
		int bh = max ? (int)((double)counts[i] / (double)max * (h - 4)) : 0;
		int x = left + (int)i * (bw + gap) + gap / 2;
		if (counts[i] && bh < 2)
			bh = 2;
		fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#54aeff\" stroke=\"#0969da\"/>",
			x, top + h - bh, bw, bh);
		fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"count\">%zu</text>",
			x + bw / 2, top + h - bh - 4, counts[i]);
		fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", x + bw / 2, top + h + 14);
		html_esc(fp, labels[i]);
		fputs("</text>", fp);
	}
	fputs("</svg><figcaption>", fp);
	html_esc(fp, title);
	fputs("</figcaption></figure>\n", fp);
}
