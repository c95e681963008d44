/* render/html.h - self-contained HTML pages: escaping, page frame, SVG helpers */
#ifndef NODEAUDIT_HTML_H
#define NODEAUDIT_HTML_H

#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>

struct fleet;

/* Text, attribute values and ids: render/markup.h. */
#include "render/markup.h"
/* Doctype, a Content-Security-Policy that forbids any fetch, inline CSS. */
void html_begin(FILE *fp, const char *title);
void html_end(FILE *fp);
/* CSS class of a finding status ("pass", "warn", ...; anything else "unknown"). */
const char *html_status_class(const char *status);
/* Rank of a status for "worst finding" colouring: info/skip 0 < pass 1 < unknown 2 < warn 3 < fail 4. */
int html_status_rank(const char *status);
extern const char *const html_rank_class[5];

/* A number for people by its unit ("ratio": a percentage, "bytes": binary
 * units, "MHz"; NULL: as is, at most 4 significant digits) into buf. */
const char *html_human(double v, const char *unit, char *buf, size_t n);
/* A finding's observed value as a table cell's content: human units with
 * the raw value in a title attribute, a list as a list, null as unknown. */
void html_value(FILE *fp, const cJSON *v, const char *unit);
/* An expected value (">= 4294967296", "any of: avx2, neon") the same way. */
void html_expected(FILE *fp, const cJSON *v, const char *unit);
/* A fact's value as text (fleet tables): by the fact's name, *_bytes in
 * binary units, *_bytes_per_s in GB/s, *_ratio as %, with the raw text in a
 * title; anything else as is. */
void html_fact_value(FILE *fp, const char *fact, const char *text);
/* A check ID that breaks only after its dots. */
void html_check_id(FILE *fp, const char *id);

/* A bar chart in SVG: one bar per (label, count), with the counts written on the bars. */
void svg_bars(FILE *fp, const char *title, const char *const *labels, const size_t *counts,
	      size_t n);

/* The renderers. */
void fleet_html(FILE *fp, const struct fleet *f, size_t top);
void report_html(FILE *fp, const cJSON *report);

#endif
