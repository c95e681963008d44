/* render/svg-draw.c - the node drawing's boxes: made, measured, placed and drawn
 * (through render/markup.h), clipped names, sizes, and the CPU sets the boxes
 * are cut by */
#include "config.h"
#include "render/svg-internal.h"
#include "lib/facts.h"
#include "render/markup.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *svg_fill_of(int rank, const char *neutral)
{
	return rank == MARK_FAIL ? C_FAIL_FILL : rank == MARK_WARN ? C_WARN_FILL : neutral;
}

const char *svg_line_of(int rank, const char *neutral)
{
	return rank == MARK_FAIL ? C_FAIL_LINE : rank == MARK_WARN ? C_WARN_LINE : neutral;
}

/*** Boxes ***/

struct box *box_new(struct box *parent, const char *part, const char *fill, const char *stroke)
{
	struct box *b = xcalloc(1, sizeof(*b));
	b->part = part;
	b->fill = fill;
	b->stroke = stroke;
	b->rx = 4;
	b->size = 11;
	if (parent) {
		if (parent->nkid == parent->akid) {
			parent->akid = parent->akid ? 2 * parent->akid : 8;
			parent->kid = xrealloc(parent->kid, parent->akid * sizeof(*parent->kid));
		}
		parent->kid[parent->nkid++] = b;
	}
	return b;
}

void box_attr(struct box *b, const char *name, const char *fmt, ...)
{
	va_list ap;
	if (b->na >= (int)ARRAY_SIZE(b->an))
		return;
	va_start(ap, fmt);
	b->an[b->na] = name;
	b->av[b->na++] = xvasprintf(fmt, ap);
	va_end(ap);
}

void box_line(struct box *b, int i, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(b->label[i]);
	b->label[i] = xvasprintf(fmt, ap);
	va_end(ap);
}

void box_title(struct box *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(b->title);
	b->title = xvasprintf(fmt, ap);
	va_end(ap);
}

void box_mark(struct box *b, const struct mark *mk)
{
	if (mk && (!b->mk || mk->rank > b->mk->rank))
		b->mk = mk;
}

/* Characters (UTF-8 sequences) of s. */
static size_t chars(const char *s)
{
	size_t n = 0;
	for (; s && *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The width of s at size px: DejaVu Sans' widest average (0.62 em; bold
 * 0.68), so that a label measured here never runs past its box. */
int svg_text_w(const char *s, int size, int bold)
{
	return (int)((double)chars(s) * size * (bold ? 0.68 : 0.62)) + 1;
}

/* The finding's label on its part: "FAIL: x8 of x16" (its detail less
 * the device's address), else its title, else its ID. */
static char *badge_text(const struct mark *mk)
{
	const char *s = mk->brief ? mk->brief : mk->detail ? mk->detail : mk->title ? mk->title : mk->why;
	const char *word = mk->rank == MARK_FAIL ? "FAIL" : "WARN";
	if (s && strlen(s) > 14 && s[4] == ':' && s[7] == ':' && s[10] == '.' && s[12] == ':')
		s += 13 + (s[13] == ' ');
	return xasprintf("%s: %s", word, s ? s : "");
}

static int lines_h(const struct box *b)
{
	int i, h = 0;
	for (i = 0; i < 3; i++)
		h += b->label[i] ? (i ? b->size + 3 : b->size + 4) : 0;
	if (b->mk)
		h += b->size + 3;
	return h;
}

static int lines_w(const struct box *b)
{
	int i, w = 0;
	for (i = 0; i < 3; i++)
		if (b->label[i] && svg_text_w(b->label[i], i ? b->size - 1 : b->size, !i) > w)
			w = svg_text_w(b->label[i], i ? b->size - 1 : b->size, !i);
	return w;
}

/* Sizes: a leaf by its lines, a box by its children in rows of at most
 * maxw (cols a row when set), its lines above them. */
void box_layout(struct box *b, int maxw)
{
	int inner = maxw - 2 * PAD, rw = 0, rh = 0, w = 0, h = 0, n = 0;
	size_t i;
	int head = lines_h(b) + (b->nkid && lines_h(b) ? 4 : 0);
	for (i = 0; i < b->nkid; i++) {
		struct box *k = b->kid[i];
		box_layout(k, inner);
		if (k->stretch || (n && ((b->cols && n >= b->cols) || rw + GAP + k->w > inner))) {
			if (n) {
				h += rh + GAP;
				if (rw > w)
					w = rw;
			}
			rw = rh = n = 0;
		}
		rw += (n ? GAP : 0) + k->w;
		if (k->h > rh)
			rh = k->h;
		n++;
		if (k->stretch) {
			h += rh + GAP;
			if (rw > w)
				w = rw;
			rw = rh = n = 0;
		}
	}
	if (n) {
		h += rh + GAP;
		if (rw > w)
			w = rw;
	}
	if (b->nkid) {
		b->w = w + 2 * PAD;
		b->h = PAD + head + h - GAP + PAD;
	} else {
		b->w = 2 * 4;
		b->h = head + 8;
	}
	if (lines_w(b) + 2 * 4 > b->w)
		b->w = lines_w(b) + 2 * 4;
	if (b->mk && !b->nkid) {
		/* A small part grows to show its reason (up to 200 px). */
		char *t = badge_text(b->mk);
		int bw = svg_text_w(t, b->size - 1, 0) + 2 * 4;
		free(t);
		if (bw > 200)
			bw = 200;
		if (bw > b->w)
			b->w = bw;
	}
	if (b->w < b->min_w)
		b->w = b->min_w;
	if (b->h < b->min_h)
		b->h = b->min_h;
	if (b->w > maxw)
		b->w = maxw;
}

/* Positions, from the top left; a stretched child as wide as the box's inside. */
void box_place(struct box *b, int x, int y)
{
	int inner = b->w - 2 * PAD, cx = x + PAD, cy, rh = 0, n = 0;
	size_t i;
	b->x = x;
	b->y = y;
	cy = y + PAD + lines_h(b) + (b->nkid && lines_h(b) ? 4 : 0);
	for (i = 0; i < b->nkid; i++) {
		struct box *k = b->kid[i];
		if (k->stretch || (n && ((b->cols && n >= b->cols) || cx + k->w > x + PAD + inner))) {
			if (n)
				cy += rh + GAP;
			cx = x + PAD;
			rh = n = 0;
		}
		if (k->stretch && !k->nkid)
			k->w = inner;
		box_place(k, cx, cy);
		cx += k->w + GAP;
		if (k->h > rh)
			rh = k->h;
		n++;
		if (k->stretch) {
			cy += rh + GAP;
			cx = x + PAD;
			rh = n = 0;
		}
	}
}

/* Returns 1 when the line is not drawn whole (cut with "...", or left out). */
static int draw_line(FILE *fp, const struct box *b, int i, int y, const char *s, const char *colour)
{
	/* Room for any cut of s and its "...": a line of wide characters passes 512 bytes. */
	char *cut = xmalloc(strlen(s) + 4);
	int size = i ? b->size - 1 : b->size, room = b->w - 8, was_cut = 0;
	size_t n = chars(s);
	/* Cut to the box: whole characters and "..." */
	while (n > 1 && svg_text_w(s, size, !i) > room) {
		svg_clip(s, n - 2, cut, strlen(s) + 4);
		if (svg_text_w(cut, size, !i) <= room) {
			s = cut;
			was_cut = 1;
			break;
		}
		n--;
	}
	if (n <= 1 && svg_text_w(s, size, !i) > room) {
		free(cut);
		return 1;
	}
	mk_rawf(fp, "<text x=\"%d\" y=\"%d\" font-size=\"%d\"", b->x + 4, y, size);
	if (!i)
		MK(fp, " font-weight=\"bold\"");
	mk_attr(fp, "fill", colour);
	MK(fp, ">");
	mk_text(fp, s);
	MK(fp, "</text>");
	free(cut);
	return was_cut;
}

void box_draw(struct svg *g, const struct box *b)
{
	FILE *fp = g->fp;
	int rank = b->mk ? b->mk->rank : 0, i, y, whole = 0;
	int cut[3] = { 0, 0, 0 };
	size_t k;
	MK(fp, "<g");
	mk_attr(fp, "data-part", b->part);
	for (i = 0; i < b->na; i++)
		mk_attr(fp, b->an[i], b->av[i]);
	MK(fp, ">");
	mk_rawf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"%d\"", b->x, b->y, b->w, b->h, b->rx);
	mk_attr(fp, "fill", svg_fill_of(rank, b->fill));
	mk_attr(fp, "stroke", svg_line_of(rank, b->stroke));
	mk_attr(fp, "stroke-width", rank ? "2.5" : "1");
	if (b->dashed)
		MK(fp, " stroke-dasharray=\"4 3\"");
	if (rank) {
		g->marked = 1;
		((struct mark *)b->mk)->drawn = 1;
		mk_attr(fp, "data-mark", rank == MARK_FAIL ? "fail" : "warn");
		mk_attr(fp, "data-finding", b->mk->why);
	}
	MK(fp, "/>");
	y = b->y + (b->nkid ? PAD : 4);
	for (i = 0; i < 3; i++) {
		if (!b->label[i])
			continue;
		y += i ? b->size + 3 : b->size + 4;
		/* A line cut to the box is said whole in the title (unless the title says it already). */
		cut[i] = draw_line(fp, b, i, y - 3, b->label[i], C_TEXT) &&
			 !(b->title && strstr(b->title, b->label[i]));
		whole |= cut[i];
	}
	if (rank) {
		char *s = badge_text(b->mk);
		y += b->size + 3;
		draw_line(fp, b, 1, y - 3, s, rank == MARK_FAIL ? C_FAIL_LINE : C_WARN_LINE);
		free(s);
	}
	for (k = 0; k < b->nkid; k++)
		box_draw(g, b->kid[k]);
	if (b->title || rank || whole) {
		int said = b->title != NULL;
		MK(fp, "<title>");
		mk_text(fp, b->title ? b->title : "");
		for (i = 0; i < 3; i++)
			if (cut[i]) {
				mk_textf(fp, "%s%s", said ? "\n" : "", b->label[i]);
				said = 1;
			}
		if (rank) {
			mk_textf(fp, "%s%s: %s", said ? "\n" : "", rank == MARK_FAIL ? "fail" : "warn", b->mk->why);
			if (b->mk->title)
				mk_textf(fp, " (%s)", b->mk->title);
			if (b->mk->detail)
				mk_textf(fp, ": %s", b->mk->detail);
			if (b->mk->also)
				mk_textf(fp, "\nalso: %s", b->mk->also);
		}
		MK(fp, "</title>");
	}
	MK(fp, "</g>");
}

void box_free(struct box *b)
{
	size_t k;
	int i;
	if (!b)
		return;
	for (k = 0; k < b->nkid; k++)
		box_free(b->kid[k]);
	for (i = 0; i < b->na; i++)
		free(b->av[i]);
	for (i = 0; i < 3; i++)
		free(b->label[i]);
	free(b->title);
	free(b->kid);
	free(b);
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
	if (fabs(v - round(v)) < 0.05)
		snprintf(buf, n, "%.0f %s", v, u[k]);
	else
		snprintf(buf, n, "%.1f %s", v, u[k]);
	return buf;
}

/*** CPU sets ***/

hwloc_bitmap_t svg_set_of(const char *cpus)
{
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	if (!s)
		die("out of memory");
	if (cpus && parse_cpulist(cpus, s) < 0)
		hwloc_bitmap_zero(s);
	return s;
}

int svg_subset(const char *cpus, hwloc_const_bitmap_t set)
{
	hwloc_bitmap_t c = svg_set_of(cpus);
	int r = !hwloc_bitmap_iszero(c) && hwloc_bitmap_isincluded(c, set);
	hwloc_bitmap_free(c);
	return r;
}

int svg_meets(const char *cpus, hwloc_const_bitmap_t set)
{
	hwloc_bitmap_t c = svg_set_of(cpus);
	int r = hwloc_bitmap_intersects(c, set);
	hwloc_bitmap_free(c);
	return r;
}
