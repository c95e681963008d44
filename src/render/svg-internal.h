/* render/svg-internal.h - what the parts of the node drawing share (render/svg.c,
 * svg-draw.c, svg-marks.c, svg-pci.c): the tree of boxes, sizes, colours, marks */
#ifndef NODEAUDIT_SVG_INTERNAL_H
#define NODEAUDIT_SVG_INTERNAL_H

#include <stdio.h>
#include <cjson/cJSON.h>
#include <hwloc.h>

#define SVG_W 1360   /* the widest drawing: fits a 1400 px window unscaled */
#define PAD 6
#define GAP 6
#define LINE 14      /* a label line */

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
	const char *why;      /* the finding's ID */
	const char *title;    /* its title, or NULL */
	const char *detail;   /* its detail, or NULL */
	const char *brief;    /* the reason in a few words on a small part, or NULL */
	const char *also;     /* a second finding about the same part, or NULL */
	int drawn;            /* some part carries it */
};

/*
 * The drawing is a tree of boxes, as lstopo's: each box has a kind (its
 * data-part), up to three label lines, a title, and children laid out left
 * to right, wrapping at the width the parent gives (svg-draw.c measures,
 * places and draws it).  A stretched child has a row of its own, as wide as
 * its parent.
 */
struct box {
	const char *part;             /* data-part */
	const char *an[4];            /* data attributes: names (literals) */
	char *av[4];                  /*   and values */
	int na;
	char *label[3];               /* lines: the first bold */
	int size;                     /* the font size of the lines */
	char *title;
	const struct mark *mk;
	const char *fill, *stroke;
	int dashed, rx, stretch;
	int min_w, min_h;             /* a leaf's least size */
	int cols;                     /* children a row: 0 as many as fit */
	struct box **kid;
	size_t nkid, akid;
	int x, y, w, h;
};

struct svg {
	FILE *fp;
	const cJSON *facts;
	struct mark *m;
	size_t nm, am;
	int marked;                /* some part is marked */
	const cJSON *info;         /* pci.matrix.info, or one made of the device lists */
	const cJSON *gaps;         /* the document's gaps (why a fact is null), or NULL */
};

#define jget facts_get

#define jstr facts_str
#define jnum facts_num

/* render/svg-marks.c: which part each finding is about. */
void svg_collect_marks(struct svg *g, const cJSON *findings);
const struct mark *svg_mark_of(const struct svg *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The mark of a host, kernel or process finding: "setting:ID KEY" (or
 * "setting:ID" for one without a key). */
const struct mark *svg_setting_mark(const struct svg *g, const cJSON *finding);

/* render/svg-draw.c: boxes (made, measured, placed, drawn, freed), and CPU sets. */
struct box *box_new(struct box *parent, const char *part, const char *fill, const char *stroke);
void box_attr(struct box *b, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void box_line(struct box *b, int i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void box_title(struct box *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void box_mark(struct box *b, const struct mark *mk);
void box_layout(struct box *b, int maxw);
void box_place(struct box *b, int x, int y);
void box_draw(struct svg *g, const struct box *b);
void box_free(struct box *b);
int svg_text_w(const char *s, int size, int bold);
const char *svg_fill_of(int rank, const char *neutral);
const char *svg_line_of(int rank, const char *neutral);
void svg_clip(const char *s, size_t n, char *out, size_t len);
const char *svg_bytes_h(double v, char *buf, size_t n);
hwloc_bitmap_t svg_set_of(const char *cpus);
int svg_subset(const char *cpus, hwloc_const_bitmap_t set);
int svg_meets(const char *cpus, hwloc_const_bitmap_t set);

/* render/svg-pci.c: the PCI devices under their host bridges and bridges,
 * each host bridge in the box of its locality. */
struct pci_place {
	const char *hb;       /* the host bridge */
	hwloc_bitmap_t cpus;        /* its locality: CPUs (empty: unknown) */
	int node;             /* its NUMA node, -1 unknown */
};
size_t svg_pci_places(struct svg *g, struct pci_place **out);
void svg_pci_places_free(struct pci_place *p, size_t n);
void svg_pci_box(struct svg *g, struct box *parent, const char *hb);

#endif
