/* render/svg-draw.c - the node drawing's primitives: boxes, texts, groups, clipped
 * names, sizes, and the CPU sets the boxes are cut by */
#include "config.h"
#include "render/svg-internal.h"
#include "lib/facts.h"
#include "render/html.h"
#include "read/sysroot.h"
#include "lib/util.h"
#include "lib/fmath.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/*** Drawing primitives ***/

const char *svg_fill_of(int rank, const char *neutral)
{
	return rank == MARK_FAIL ? C_FAIL_FILL : rank == MARK_WARN ? C_WARN_FILL : neutral;
}

const char *svg_line_of(int rank, const char *neutral)
{
	return rank == MARK_FAIL ? C_FAIL_LINE : rank == MARK_WARN ? C_WARN_LINE : neutral;
}

/* A rectangle; dashed for an empty slot; a mark overrides the colours. */
void svg_rect(struct svg *g, int x, int y, int w, int h, const char *fill, const char *stroke,
		 const struct mark *mk, int dashed, int rx)
{
	int rank = mk ? mk->rank : 0;
	if (!g->fp)
		return;
	if (rank)
		g->marked = 1;
	mk_rawf(g->fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"%d\"", x, y, w, h, rx);
	mk_attr(g->fp, "fill", svg_fill_of(rank, fill));
	mk_attr(g->fp, "stroke", svg_line_of(rank, stroke));
	mk_attr(g->fp, "stroke-width", rank ? "2.5" : "1");
	if (dashed)
		MK(g->fp, " stroke-dasharray=\"4 3\"");
	if (rank) {
		mk_attr(g->fp, "data-mark", rank == MARK_FAIL ? "fail" : "warn");
		mk_attr(g->fp, "data-finding", mk->why);
	}
	MK(g->fp, "/>");
}

void svg_text(struct svg *g, int x, int y, int size, int bold, const char *anchor, const char *fmt, ...)
{
	va_list ap;
	char *s;
	if (!g->fp)
		return;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	mk_rawf(g->fp, "<text x=\"%d\" y=\"%d\" font-size=\"%d\"", x, y, size);
	if (bold)
		MK(g->fp, " font-weight=\"bold\"");
	if (anchor)
		mk_attr(g->fp, "text-anchor", anchor);
	MK(g->fp, " fill=\"" C_TEXT "\">");
	mk_text(g->fp, s);
	MK(g->fp, "</text>");
	free(s);
}

void svg_open_g(struct svg *g, const char *part, const char *extra)
{
	if (g->fp)
	{
		MK(g->fp, "<g");
		mk_attr(g->fp, "data-part", part);
		if (extra)
			mk_attr(g->fp, "class", extra);
		MK(g->fp, ">");
	}
}

void svg_close_g(struct svg *g, const char *title)
{
	if (!g->fp)
		return;
	if (title) {
		MK(g->fp, "<title>");
		mk_text(g->fp, title);
		MK(g->fp, "</title>");
	}
	MK(g->fp, "</g>");
}

/* At most n characters of s (whole UTF-8 sequences), "..." when cut. */
void svg_clip(const char *s, size_t n, char *out, size_t len)
{
	size_t k = 0, i = 0;
	if (!s)
		s = "";
	while (s[i] && k < n) {
		i++;
		while (((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		k++;
	}
	snprintf(out, len, "%.*s%s", (int)i, s, s[i] ? "..." : "");
}

const char *svg_bytes_h(double v, char *buf, size_t n)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t k = 0;
	if (isnan(v))
		return "?";
	while (v >= 1024 && k + 1 < ARRAY_SIZE(u)) {
		v /= 1024;
		k++;
	}
	if (fabs(v - na_round(v)) < 0.05)
		snprintf(buf, n, "%.0f %s", v, u[k]);
	else
		snprintf(buf, n, "%.1f %s", v, u[k]);
	return buf;
}

/*** CPU sets ***/

bitmap_t svg_set_of(const char *cpus)
{
	bitmap_t s = bitmap_alloc();
	if (!s)
		die("out of memory");
	if (cpus && parse_cpulist(cpus, s) < 0)
		bitmap_zero(s);
	return s;
}

int svg_subset(const char *cpus, const_bitmap_t set)
{
	bitmap_t c = svg_set_of(cpus);
	int r = !bitmap_iszero(c) && bitmap_isincluded(c, set);
	bitmap_free(c);
	return r;
}

int svg_meets(const char *cpus, const_bitmap_t set)
{
	bitmap_t c = svg_set_of(cpus);
	int r = bitmap_intersects(c, set);
	bitmap_free(c);
	return r;
}
