/* render/svg-internal.h - what the parts of the node drawing share (render/svg.c,
 * svg-draw.c, svg-marks.c, svg-pci.c): sizes, colours, the drawing's state */
#ifndef NODEAUDIT_SVG_INTERNAL_H
#define NODEAUDIT_SVG_INTERNAL_H

#include <stdio.h>
#include <cjson/cJSON.h>
#include "lib/bitmap.h"

#define SVG_W 1160   /* fits the page (1200 px less its padding) unscaled */
#define PAD 8
#define HEAD 20       /* a box's title strip */
#define CORE_W 34
#define CORE_H 30
#define CARD_W 214
#define CARD_H 62
#define LINK_H 16
#define CH_W 74
#define SLOT_H 16

#define C_TEXT "#1b1f24"
#define C_LINE "#57606a"
#define C_FAIL_FILL "#ffcecb"
#define C_FAIL_LINE "#cf222e"
#define C_WARN_FILL "#fff1a8"
#define C_WARN_LINE "#9a6700"

enum { MARK_NONE = 0, MARK_WARN = 3, MARK_FAIL = 4 };

struct mark {
	char key[96];
	int rank;
	const char *why;   /* the finding's ID */
};

struct svg {
	FILE *fp;                  /* NULL: measuring */
	const cJSON *facts;
	struct mark *m;
	size_t nm, am;
	int marked;                /* some part is marked */
	const cJSON *info;         /* pci.matrix.info, or one made of the device lists */
};

#define jget facts_get

#define jstr facts_str
#define jnum facts_num

/* render/svg-marks.c: which part each finding is about. */
void svg_collect_marks(struct svg *g, const cJSON *findings);
const struct mark *svg_mark_of(const struct svg *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* render/svg-draw.c: the drawing primitives (with g->fp NULL they draw
 * nothing: the measuring pass), and CPU sets. */
const char *svg_fill_of(int rank, const char *neutral);
const char *svg_line_of(int rank, const char *neutral);
void svg_rect(struct svg *g, int x, int y, int w, int h, const char *fill, const char *stroke,
	      const struct mark *mk, int dashed, int rx);
void svg_text(struct svg *g, int x, int y, int size, int bold, const char *anchor, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
void svg_open_g(struct svg *g, const char *part, const char *extra);
void svg_close_g(struct svg *g, const char *title);
void svg_clip(const char *s, size_t n, char *out, size_t len);
const char *svg_bytes_h(double v, char *buf, size_t n);
bitmap_t svg_set_of(const char *cpus);
int svg_subset(const char *cpus, const_bitmap_t set);
int svg_meets(const char *cpus, const_bitmap_t set);

/* render/svg-pci.c: the PCI devices under their host bridges and switches. */
int svg_dev_on_node(const cJSON *facts, const cJSON *o, int node);
int svg_draw_pci(struct svg *g, int node, int x, int y, int w);

#endif
