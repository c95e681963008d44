/* render/svg.c - the node as a drawing (SVG): machine > package > NUMA node >
 * L3 group > cores, memory channels and slots per package, PCI devices under
 * their host bridge and switches; each finding colours the part it is about */
#include "config.h"
#include "lib/facts.h"
#include "render/html.h"
#include "render/render.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * One drawing for `probe --format svg` (facts only: nothing is coloured),
 * `check --format svg` and the page of `check --format html` (the
 * findings colour the parts they name).  The renderer only formats: every
 * mark comes from a finding's ID and the device, slot or port its detail
 * names.  Colours are presentation attributes, so the drawing looks the
 * same alone and inside a page, on screen and in print; the output depends
 * on the document only (no clock, no random ids).
 *
 * The layout is measured before it is drawn: each box function takes its
 * position and the width it may use, and returns its height; with fp NULL
 * it draws nothing (the measuring pass).
 */

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

/*** Marks: which part each finding is about ***/

static void add_mark(struct svg *g, const char *key, int rank, const char *why)
{
	size_t i;
	for (i = 0; i < g->nm; i++)
		if (!strcmp(g->m[i].key, key)) {
			if (rank > g->m[i].rank) {
				g->m[i].rank = rank;
				g->m[i].why = why;
			}
			return;
		}
	if (g->nm == g->am) {
		g->am = g->am ? 2 * g->am : 16;
		g->m = xrealloc(g->m, g->am * sizeof(*g->m));
	}
	snprintf(g->m[g->nm].key, sizeof(g->m[g->nm].key), "%s", key);
	g->m[g->nm].rank = rank;
	g->m[g->nm++].why = why;
}

static void add_markf(struct svg *g, int rank, const char *why, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add_markf(struct svg *g, int rank, const char *why, const char *fmt, ...)
{
	char key[96];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	add_mark(g, key, rank, why);
}

static const struct mark *mark_of(const struct svg *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static const struct mark *mark_of(const struct svg *g, const char *fmt, ...)
{
	char key[96];
	size_t i;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	for (i = 0; i < g->nm; i++)
		if (!strcmp(g->m[i].key, key))
			return &g->m[i];
	return NULL;
}

/* The n-th PCI address (DDDD:BB:DD.F) in s, into out; 0 when there is none. */
static int nth_bdf(const char *s, int n, char *out, size_t len)
{
	const char *p;
	for (p = s; p && *p; p++) {
		int ok = 1, k;
		static const char pat[] = "xxxx:xx:xx.x";
		for (k = 0; pat[k] && ok; k++)
			ok = p[k] && (pat[k] == 'x' ? isxdigit((unsigned char)p[k]) : p[k] == pat[k]);
		if (ok && n-- == 0) {
			snprintf(out, len, "%.12s", p);
			return 1;
		}
		if (ok)
			p += 11;
	}
	return 0;
}

static void mark_devices_of(struct svg *g, const char *list, const char *prefix, int rank, const char *id)
{
	const cJSON *d;
	cJSON_ArrayForEach(d, jget(g->facts, list))
		if (jstr(d, "bdf"))
			add_markf(g, rank, id, "%s:%s", prefix, jstr(d, "bdf"));
}

static void collect_marks(struct svg *g, const cJSON *findings)
{
	const cJSON *f, *ch, *d;
	cJSON_ArrayForEach(f, findings) {
		const char *id = jstr(f, "id"), *st = jstr(f, "status"), *detail = jstr(f, "detail");
		int rank = st && !strcmp(st, "fail") ? MARK_FAIL : st && !strcmp(st, "warn") ? MARK_WARN : 0;
		char b1[16], b2[16];
		int have1 = detail && nth_bdf(detail, 0, b1, sizeof(b1));
		if (!id || !rank)
			continue;
		if (!strcmp(id, "memory.channels.populated_ratio") || !strcmp(id, "memory.channels.balanced")) {
			int any = 0;
			cJSON_ArrayForEach(ch, jget(g->facts, "memory.channels.list")) {
				const cJSON *e;
				if (jnum(ch, "dimms") > 0)
					continue;
				cJSON_ArrayForEach(e, jget(ch, "empty_slots"))
					if (cJSON_IsString(e)) {
						add_markf(g, rank, id, "slot:%s", e->valuestring);
						any = 1;
					}
				if (!cJSON_GetArraySize(jget(ch, "empty_slots"))) {
					add_markf(g, rank, id, "channel:%.0f:%s", jnum(ch, "package"),
						  jstr(ch, "name") ? jstr(ch, "name") : "?");
					any = 1;
				}
			}
			if (!any)
				add_mark(g, "memory", rank, id);
		} else if (!strcmp(id, "memory.speed.configured_ratio")) {
			int any = 0;
			cJSON_ArrayForEach(d, jget(g->facts, "memory.dimms")) {
				double c = jnum(d, "configured_speed_mts"), r = jnum(d, "speed_mts");
				if (!isnan(c) && !isnan(r) && c < r && jstr(d, "locator")) {
					add_markf(g, rank, id, "dimm:%s", jstr(d, "locator"));
					any = 1;
				}
			}
			if (!any)
				add_mark(g, "memory", rank, id);
		} else if (!strncmp(id, "memory.", 7))
			add_mark(g, "memory", rank, id);
		else if (!strcmp(id, "cpu.smt"))
			add_mark(g, "smt", rank, id);
		else if (!strncmp(id, "cpu.", 4))
			add_mark(g, "package", rank, id);
		else if (!strcmp(id, "numa.nodes.memory_balanced") || !strcmp(id, "numa.nodes"))
			add_mark(g, "numa", rank, id);
		else if (!strcmp(id, "pci.accelerator.link_width_ratio") || !strcmp(id, "pci.accelerator.link_speed") ||
			 !strcmp(id, "pci.accelerator.uplink_ratio") || !strcmp(id, "pci.nic.link")) {
			if (have1)
				add_markf(g, rank, id, "link:%s", b1);
			else
				mark_devices_of(g, strstr(id, "nic") ? "pci.nics" : "pci.accelerators", "link", rank, id);
		} else if (!strcmp(id, "pci.accelerator.uplink")) {
			if (detail && nth_bdf(detail, 1, b2, sizeof(b2)))
				add_markf(g, rank, id, "up:%s", b2);
			else
				mark_devices_of(g, "pci.accelerators", "link", rank, id);
		} else if (!strncmp(id, "pci.", 4)) {
			if (have1)
				add_markf(g, rank, id, "dev:%s", b1);
			else
				mark_devices_of(g, strncmp(id, "pci.nic", 7) ? "pci.accelerators" : "pci.nics", "dev",
						rank, id);
		}
	}
}

/*** Drawing primitives ***/

static const char *fill_of(int rank, const char *neutral)
{
	return rank == MARK_FAIL ? C_FAIL_FILL : rank == MARK_WARN ? C_WARN_FILL : neutral;
}

static const char *line_of(int rank, const char *neutral)
{
	return rank == MARK_FAIL ? C_FAIL_LINE : rank == MARK_WARN ? C_WARN_LINE : neutral;
}

/* A rectangle; dashed for an empty slot; a mark overrides the colours. */
static void rect(struct svg *g, int x, int y, int w, int h, const char *fill, const char *stroke,
		 const struct mark *mk, int dashed, int rx)
{
	int rank = mk ? mk->rank : 0;
	if (!g->fp)
		return;
	if (rank)
		g->marked = 1;
	fprintf(g->fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"%d\" fill=\"%s\" stroke=\"%s\" "
		"stroke-width=\"%s\"%s", x, y, w, h, rx, fill_of(rank, fill), line_of(rank, stroke),
		rank ? "2.5" : "1", dashed ? " stroke-dasharray=\"4 3\"" : "");
	if (rank) {
		fprintf(g->fp, " data-mark=\"%s\" data-finding=\"", rank == MARK_FAIL ? "fail" : "warn");
		html_esc(g->fp, mk->why);
		fputc('"', g->fp);
	}
	fputs("/>", g->fp);
}

static void text(struct svg *g, int x, int y, int size, int bold, const char *anchor, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
static void text(struct svg *g, int x, int y, int size, int bold, const char *anchor, const char *fmt, ...)
{
	va_list ap;
	char *s;
	if (!g->fp)
		return;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	fprintf(g->fp, "<text x=\"%d\" y=\"%d\" font-size=\"%d\"%s", x, y, size, bold ? " font-weight=\"bold\"" : "");
	if (anchor)
		fprintf(g->fp, " text-anchor=\"%s\"", anchor);
	fputs(" fill=\"" C_TEXT "\">", g->fp);
	html_esc(g->fp, s);
	fputs("</text>", g->fp);
	free(s);
}

static void open_g(struct svg *g, const char *part, const char *extra)
{
	if (g->fp)
		fprintf(g->fp, "<g data-part=\"%s\"%s>", part, extra ? extra : "");
}

static void close_g(struct svg *g, const char *title)
{
	if (!g->fp)
		return;
	if (title) {
		fputs("<title>", g->fp);
		html_esc(g->fp, title);
		fputs("</title>", g->fp);
	}
	fputs("</g>", g->fp);
}

/* At most n characters of s (whole UTF-8 sequences), "..." when cut. */
static void clip(const char *s, size_t n, char *out, size_t len)
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

static const char *bytes_h(double v, char *buf, size_t n)
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

static hwloc_bitmap_t set_of(const char *cpus)
{
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	if (!s)
		die("out of memory");
	if (cpus && parse_cpulist(cpus, s) < 0)
		hwloc_bitmap_zero(s);
	return s;
}

static int subset(const char *cpus, hwloc_const_bitmap_t set)
{
	hwloc_bitmap_t c = set_of(cpus);
	int r = !hwloc_bitmap_iszero(c) && hwloc_bitmap_isincluded(c, set);
	hwloc_bitmap_free(c);
	return r;
}

static int meets(const char *cpus, hwloc_const_bitmap_t set)
{
	hwloc_bitmap_t c = set_of(cpus);
	int r = hwloc_bitmap_intersects(c, set);
	hwloc_bitmap_free(c);
	return r;
}

/* "P", "E" or "" by cpu.kinds for a core's CPUs. */
static const char *core_kind(const cJSON *facts, const char *cpus)
{
	const cJSON *k, *kinds = jget(facts, "cpu.kinds");
	if (cJSON_GetArraySize(kinds) < 2)
		return "";
	cJSON_ArrayForEach(k, kinds) {
		const char *name = jstr(k, "name"), *kc = jstr(k, "cpus");
		hwloc_bitmap_t s = set_of(kc);
		int hit = kc && subset(cpus, s);
		hwloc_bitmap_free(s);
		if (hit && name)
			return !strcmp(name, "performance") ? "P" : !strcmp(name, "efficiency") ? "E" : "";
	}
	return "";
}

/*** Cores and L3 groups ***/

static int cores_in(const cJSON *facts, hwloc_const_bitmap_t set)
{
	const cJSON *c;
	int n = 0;
	cJSON_ArrayForEach(c, jget(facts, "cpu.core_cpus"))
		n += cJSON_IsString(c) && subset(c->valuestring, set);
	return n;
}

/* The cores whose CPUs lie in set, as squares with a sliver per thread. */
static int draw_cores(struct svg *g, hwloc_const_bitmap_t set, int x, int y, int w)
{
	const cJSON *c;
	int per = (w - PAD) / (CORE_W + 4), k = 0, n = cores_in(g->facts, set);
	const struct mark *smt = mark_of(g, "smt");
	if (per < 1)
		per = 1;
	if (!n)
		return 0;
	cJSON_ArrayForEach(c, jget(g->facts, "cpu.core_cpus")) {
		hwloc_bitmap_t t;
		int cx, cy, th, i = 0, cpu;
		const char *kind;
		if (!cJSON_IsString(c) || !subset(c->valuestring, set))
			continue;
		cx = x + (k % per) * (CORE_W + 4);
		cy = y + (k / per) * (CORE_H + 4);
		k++;
		if (!g->fp)
			continue;
		t = set_of(c->valuestring);
		th = hwloc_bitmap_weight(t);
		kind = core_kind(g->facts, c->valuestring);
		fprintf(g->fp, "<g data-part=\"core\" data-kind=\"%s\" data-threads=\"%d\">", *kind ? kind : "C", th);
		rect(g, cx, cy, CORE_W, CORE_H, "#ffffff", C_LINE, NULL, 0, 3);
		hwloc_bitmap_foreach_begin(cpu, t) {
			int tw = (CORE_W - 4) / (th > 0 && th <= 8 ? th : 8);
			if (i < 8) {
				open_g(g, "thread", NULL);
				rect(g, cx + 2 + i * tw, cy + 12, tw - 1, CORE_H - 14, "#dde3ea", "#8c959f",
				     i > 0 ? smt : NULL, 0, 1);
				text(g, cx + 2 + i * tw + tw / 2, cy + CORE_H - 5, 8, 0, "middle", "%d", cpu);
				close_g(g, NULL);
			}
			i++;
		} hwloc_bitmap_foreach_end();
		text(g, cx + CORE_W / 2, cy + 10, 9, 1, "middle", "%s", *kind ? kind : "core");
		fputs("<title>", g->fp);
		html_escf(g->fp, "%score, CPUs %s", !strcmp(kind, "P") ? "performance " : !strcmp(kind, "E") ?
			  "efficiency " : "", c->valuestring);
		fputs("</title></g>", g->fp);
		hwloc_bitmap_free(t);
	}
	return ((k - 1) / per + 1) * (CORE_H + 4);
}

/* The L3 groups of set (each with its cores), then cores in no group. */
static int draw_l3(struct svg *g, hwloc_const_bitmap_t set, int x, int y, int w)
{
	const cJSON *l3 = jget(g->facts, "cpu.caches.l3"), *inst;
	hwloc_bitmap_t rest = hwloc_bitmap_dup(set);
	int cx = x, cy = y, rowh = 0, h;
	char b[32];
	cJSON_ArrayForEach(inst, jget(l3, "instance_cpus")) {
		hwloc_bitmap_t s;
		int n, per, gw, gh;
		if (!cJSON_IsString(inst) || !meets(inst->valuestring, set))
			continue;
		s = set_of(inst->valuestring);
		hwloc_bitmap_and(s, s, set);
		hwloc_bitmap_andnot(rest, rest, s);
		n = cores_in(g->facts, s);
		/* As wide as its cores in rows of up to 8, at most the width. */
		per = n < 8 ? (n > 2 ? n : 2) : 8;
		gw = PAD + per * (CORE_W + 4) + PAD;
		if (gw > w)
			gw = w;
		if (cx > x && cx + gw > x + w) {
			cx = x;
			cy += rowh + PAD;
			rowh = 0;
		}
		{
			struct svg m = *g;
			m.fp = NULL;
			gh = HEAD + draw_cores(&m, s, 0, 0, gw - PAD) + 4;
		}
		if (g->fp) {
			char title[96];
			open_g(g, "l3", NULL);
			rect(g, cx, cy, gw, gh, "#eef1f4", "#8c959f", NULL, 0, 4);
			text(g, cx + 6, cy + 14, 10, 1, NULL, "L3 %s", bytes_h(jnum(l3, "size_bytes"), b, sizeof(b)));
			draw_cores(g, s, cx + PAD / 2, cy + HEAD, gw - PAD);
			snprintf(title, sizeof(title), "L3 cache shared by CPUs %s", inst->valuestring);
			close_g(g, title);
		}
		hwloc_bitmap_free(s);
		if (gh > rowh)
			rowh = gh;
		cx += gw + PAD;
	}
	h = rowh ? cy + rowh - y : 0;
	if (cores_in(g->facts, rest)) {
		/* No L3 facts (or CPUs outside every instance): the cores alone. */
		int top = y + (h ? h + PAD : 0);
		h = top - y + draw_cores(g, rest, x, top, w);
	}
	hwloc_bitmap_free(rest);
	return h;
}

/*** PCI ***/

/* The pci.accelerators / pci.nics entry of bdf, or NULL. */
static const cJSON *pci_entry(const cJSON *facts, const char *bdf, const char **kind)
{
	static const char *const lists[] = { "pci.accelerators", "pci.nics" };
	size_t i;
	const cJSON *d;
	for (i = 0; i < ARRAY_SIZE(lists); i++)
		cJSON_ArrayForEach(d, jget(facts, lists[i]))
			if (jstr(d, "bdf") && bdf && !strcmp(jstr(d, "bdf"), bdf)) {
				if (kind)
					*kind = i ? "nic" : "accelerator";
				return d;
			}
	return NULL;
}

static const cJSON *pci_function(const cJSON *facts, const char *bdf)
{
	const cJSON *d;
	cJSON_ArrayForEach(d, jget(facts, "pci.devices"))
		if (jstr(d, "bdf") && bdf && !strcmp(jstr(d, "bdf"), bdf))
			return d;
	return NULL;
}

/* "x8 of x16 · 16 GT/s" from a link object. */
static void link_text(const cJSON *l, char *buf, size_t n)
{
	double wc = jnum(l, "width.current"), wm = jnum(l, "width.max");
	double sc = jnum(l, "speed_gts.current"), sm = jnum(l, "speed_gts.max");
	size_t k;
	if (!cJSON_IsObject(l)) {
		snprintf(buf, n, "link unknown");
		return;
	}
	k = (size_t)snprintf(buf, n, "x%s", isnan(wc) ? "?" : "");
	if (!isnan(wc) && k < n)
		k += (size_t)snprintf(buf + k, n - k, "%.0f", wc);
	if (!isnan(wm) && wm != wc && k < n)
		k += (size_t)snprintf(buf + k, n - k, " of x%.0f", wm);
	if (k < n)
		k += (size_t)snprintf(buf + k, n - k, " \xc2\xb7 %s", isnan(sc) ? "?" : "");
	if (!isnan(sc) && k < n)
		k += (size_t)snprintf(buf + k, n - k, "%g", sc);
	if (!isnan(sm) && sm != sc && k < n)
		k += (size_t)snprintf(buf + k, n - k, " of %g", sm);
	if (k < n)
		snprintf(buf + k, n - k, " GT/s");
}

/* Does the matrix device o sit on NUMA node node (node < 0: on none the
 * drawing shows; with one NUMA node, every device is on it)? */
static int dev_on_node(const cJSON *facts, const cJSON *o, int node)
{
	double nn = jnum(o, "numa_node");
	const cJSON *nodes = jget(facts, "numa.nodes"), *nd;
	int known = 0;
	if (cJSON_GetArraySize(nodes) <= 1)
		return node >= 0;
	cJSON_ArrayForEach(nd, nodes)
		known |= jnum(nd, "id") == nn;
	if (node < 0)
		return isnan(nn) || !known;
	return !isnan(nn) && nn == node;
}

/* A device: its link strip (the finding about the link colours it), then
 * its body (findings about the device). */
static void draw_card(struct svg *g, const cJSON *o, int x, int y)
{
	const char *bdf = jstr(o, "bdf"), *mkind = jstr(o, "kind"), *kind = NULL;
	const cJSON *e = pci_entry(g->facts, bdf, &kind), *fn = pci_function(g->facts, bdf);
	char lk[64], name[64], t[160];
	const char *label = mkind && !strcmp(mkind, "nic") ? "NIC" : mkind && !strcmp(mkind, "nvme") ? "NVMe" :
			    "Accelerator";
	double nn = jnum(o, "numa_node"), grp = jnum(o, "iommu_group"), mbps = jnum(e, "speed_mbps");
	if (!g->fp)
		return;
	link_text(e ? jget(e, "link") : jget(fn, "link"), lk, sizeof(lk));
	fprintf(g->fp, "<g data-part=\"%s\" data-bdf=\"", mkind ? mkind : "device");
	html_esc(g->fp, bdf ? bdf : "");
	fputs("\">", g->fp);
	open_g(g, "link", NULL);
	rect(g, x, y, CARD_W, LINK_H, "#eaeef2", C_LINE, mark_of(g, "link:%s", bdf ? bdf : ""), 0, 3);
	text(g, x + 6, y + 12, 10, 0, NULL, "PCIe %s", lk);
	snprintf(t, sizeof(t), "link of %s: %s", bdf ? bdf : "?", lk);
	close_g(g, t);
	rect(g, x, y + LINK_H, CARD_W, CARD_H - LINK_H, "#ffffff", C_LINE, mark_of(g, "dev:%s", bdf ? bdf : ""), 0, 3);
	text(g, x + 6, y + LINK_H + 14, 11, 1, NULL, "%s %s", label, bdf ? bdf : "?");
	clip(jstr(e, "device") ? jstr(e, "device") : mkind && !strcmp(mkind, "nvme") ? "NVMe controller" :
	     "device not named", 32, name, sizeof(name));
	text(g, x + 6, y + LINK_H + 28, 10, 0, NULL, "%s", name);
	if (!strcmp(label, "NIC") && jstr(e, "interface"))
		snprintf(t, sizeof(t), "%s%s%s", jstr(e, "interface"), isnan(mbps) ? "" : " \xc2\xb7 ", "");
	else
		t[0] = '\0';
	if (!strcmp(label, "NIC") && !isnan(mbps))
		snprintf(t + strlen(t), sizeof(t) - strlen(t), "%g Gb/s \xc2\xb7 ", mbps / 1000);
	snprintf(t + strlen(t), sizeof(t) - strlen(t), "NUMA %s", isnan(nn) ? "unknown" : "");
	if (!isnan(nn))
		snprintf(t + strlen(t), sizeof(t) - strlen(t), "%.0f", nn);
	if (!isnan(grp))
		snprintf(t + strlen(t), sizeof(t) - strlen(t), " \xc2\xb7 IOMMU %.0f", grp);
	if (cJSON_IsTrue(jget(o, "acs.p2p_redirected")))
		snprintf(t + strlen(t), sizeof(t) - strlen(t), " \xc2\xb7 ACS redirect");
	text(g, x + 6, y + LINK_H + 41, 10, 0, NULL, "%s", t);
	fputs("<title>", g->fp);
	html_escf(g->fp, "%s %s: %s; PCIe %s", label, bdf ? bdf : "?", jstr(e, "device") ? jstr(e, "device") : "",
		  lk);
	fputs("</title></g>", g->fp);
}

/* Is sw the depth-th switch above o (switches lists the outermost first)? */
static const char *switch_at(const cJSON *o, int depth)
{
	const cJSON *s = cJSON_GetArrayItem(jget(o, "switches"), depth);
	return cJSON_IsString(s) ? s->valuestring : NULL;
}

/*
 * The devices of host bridge hb on node that lie below the switch path
 * whose last element is sw at depth - 1 (sw NULL at depth 0: directly under
 * the host bridge): cards for those with no further switch, boxes for the
 * switches one level down.  Returns the height.
 */
static int draw_pci_level(struct svg *g, const char *hb, int node, const char *sw, int depth, int x, int y,
			  int w)
{
	const cJSON *info = g->info, *o, *p;
	int cx = x, cy = y, rowh = 0, any = 0;
	cJSON_ArrayForEach(o, info) {
		const char *h = jstr(o, "host_bridge"), *here = depth ? switch_at(o, depth - 1) : NULL;
		const char *next = switch_at(o, depth);
		int bw, bh, dup = 0;
		if (!h || strcmp(h, hb) || !dev_on_node(g->facts, o, node))
			continue;
		if (depth && (!here || strcmp(here, sw)))
			continue;
		if (next) {
			/* One box per switch: at its first device. */
			cJSON_ArrayForEach(p, info) {
				if (p == o)
					break;
				if (jstr(p, "host_bridge") && !strcmp(jstr(p, "host_bridge"), hb) &&
				    dev_on_node(g->facts, p, node) && switch_at(p, depth) &&
				    !strcmp(switch_at(p, depth), next) &&
				    (!depth || (switch_at(p, depth - 1) && !strcmp(switch_at(p, depth - 1), sw))))
					dup = 1;
			}
			if (dup)
				continue;
			{
				struct svg m = *g;
				int n = 0, inner;
				m.fp = NULL;
				/* As wide as its devices (up to 4 a row), at most the width. */
				int deeper = 0;
				cJSON_ArrayForEach(p, info)
					if (jstr(p, "host_bridge") && !strcmp(jstr(p, "host_bridge"), hb) &&
					    switch_at(p, depth) && !strcmp(switch_at(p, depth), next)) {
						int d = cJSON_GetArraySize(jget(p, "switches")) - depth - 1;
						n++;
						if (d > deeper)
							deeper = d;
					}
				/* Each switch nested below adds its frame. */
				bw = PAD + (n < 4 ? (n > 1 ? n : 1) : 4) * (CARD_W + PAD) + deeper * 2 * PAD;
				if (bw > w)
					bw = w;
				inner = draw_pci_level(&m, hb, node, next, depth + 1, 0, 0, bw - 2 * PAD);
				bh = HEAD + LINK_H + inner + PAD;
			}
			if (cx > x && cx + bw > x + w) {
				cx = x;
				cy += rowh + PAD;
				rowh = 0;
			}
			if (g->fp) {
				const cJSON *fn = pci_function(g->facts, next);
				char lk[64], t[128];
				link_text(jget(fn, "link"), lk, sizeof(lk));
				fputs("<g data-part=\"switch\" data-bdf=\"", g->fp);
				html_esc(g->fp, next);
				fputs("\">", g->fp);
				rect(g, cx, cy, bw, bh, "#f3f5f7", C_LINE, NULL, 0, 5);
				open_g(g, "uplink", NULL);
				rect(g, cx, cy, bw, HEAD + LINK_H - 2, "#e6eaef", C_LINE, mark_of(g, "up:%s", next), 0, 5);
				text(g, cx + 6, cy + 14, 11, 1, NULL, "PCIe switch %s", next);
				text(g, cx + 6, cy + 30, 10, 0, NULL, "uplink %s", lk);
				snprintf(t, sizeof(t), "uplink of switch %s: %s", next, lk);
				close_g(g, t);
				draw_pci_level(g, hb, node, next, depth + 1, cx + PAD, cy + HEAD + LINK_H, bw - 2 * PAD);
				fputs("</g>", g->fp);
			}
		} else {
			bw = CARD_W;
			bh = CARD_H;
			if (cx > x && cx + bw > x + w) {
				cx = x;
				cy += rowh + PAD;
				rowh = 0;
			}
			draw_card(g, o, cx, cy);
		}
		any = 1;
		if (bh > rowh)
			rowh = bh;
		cx += bw + PAD;
	}
	return any ? cy + rowh - y : 0;
}

/* The host bridges with devices on node, each a box. */
static int draw_pci(struct svg *g, int node, int x, int y, int w)
{
	const cJSON *info = g->info, *o, *p;
	int cx = x, cy = y, rowh = 0, any = 0;
	cJSON_ArrayForEach(o, info) {
		const char *hb = jstr(o, "host_bridge");
		int dup = 0, bw, bh, inner;
		if (!hb || !dev_on_node(g->facts, o, node))
			continue;
		cJSON_ArrayForEach(p, info) {
			if (p == o)
				break;
			dup |= jstr(p, "host_bridge") && !strcmp(jstr(p, "host_bridge"), hb) && dev_on_node(g->facts, p, node);
		}
		if (dup)
			continue;
		{
			struct svg m = *g;
			/* As wide as it needs, at most the width. */
			int need = 0, n = 0;
			m.fp = NULL;
			int deep = 0;
			cJSON_ArrayForEach(p, info)
				if (jstr(p, "host_bridge") && !strcmp(jstr(p, "host_bridge"), hb) &&
				    dev_on_node(g->facts, p, node)) {
					int d = cJSON_GetArraySize(jget(p, "switches"));
					n++;
					if (d > deep)
						deep = d;
				}
			need = PAD + (n < 5 ? n : 5) * (CARD_W + PAD) + PAD + deep * 2 * PAD;
			bw = need > w ? w : need;
			inner = draw_pci_level(&m, hb, node, NULL, 0, 0, 0, bw - 2 * PAD);
			bw = inner ? bw : 0;
		}
		bh = HEAD + inner + PAD;
		if (cx > x && cx + bw > x + w) {
			cx = x;
			cy += rowh + PAD;
			rowh = 0;
		}
		if (g->fp) {
			char t[96];
			open_g(g, "host-bridge", NULL);
			rect(g, cx, cy, bw, bh, "#fbfcfd", C_LINE, NULL, 0, 5);
			text(g, cx + 6, cy + 14, 11, 1, NULL, "Host bridge %s", hb);
			draw_pci_level(g, hb, node, NULL, 0, cx + PAD, cy + HEAD, bw - 2 * PAD);
			snprintf(t, sizeof(t), "PCI host bridge %s", hb);
			close_g(g, t);
		}
		any = 1;
		if (bh > rowh)
			rowh = bh;
		cx += bw + PAD;
	}
	return any ? cy + rowh - y : 0;
}

/*** Memory ***/

static int on_package(const cJSON *ch, int pkg, int npk)
{
	double p = jnum(ch, "package");
	return isnan(p) ? pkg == 0 || npk <= 1 : p == (double)pkg;   /* no cast: a report may say 1e300 */
}

/* The channels of package pkg with their slots by locator; an empty slot
 * is dashed and named. */
static int draw_memory(struct svg *g, int pkg, int npk, int x, int y, int w)
{
	const cJSON *list = jget(g->facts, "memory.channels.list"), *ch, *loc;
	int cx = x, cy = y + HEAD, rowh = 0, n = 0, maxslots = 1;
	const struct mark *mm = mark_of(g, "memory");
	char b[32];
	cJSON_ArrayForEach(ch, list) {
		int s = cJSON_GetArraySize(jget(ch, "locators"));
		if (on_package(ch, pkg, npk) && s > maxslots)
			maxslots = s;
	}
	open_g(g, "memory", NULL);
	rect(g, x, y, w, HEAD - 4, "#ffffff", "#ffffff", mm, 0, 3);
	{
		double tot = 0;
		int nch = 0, pop = 0;
		cJSON_ArrayForEach(ch, list)
			if (on_package(ch, pkg, npk)) {
				nch++;
				pop += jnum(ch, "dimms") > 0;
				tot += isnan(jnum(ch, "size_bytes")) ? 0 : jnum(ch, "size_bytes");
			}
		if (nch)
			text(g, x + 4, y + 12, 10, 1, NULL, "Memory: %d of %d channels populated, %s", pop, nch,
			     bytes_h(tot, b, sizeof(b)));
		else
			text(g, x + 4, y + 12, 10, 1, NULL, "%s", cJSON_IsArray(list) ?
			     "Memory: no channels on this package" :
			     "Memory: channels unknown (no SMBIOS table, or locators in no known scheme)");
	}
	close_g(g, NULL);
	cJSON_ArrayForEach(ch, list) {
		const cJSON *locs = jget(ch, "locators"), *emp = jget(ch, "empty_slots");
		const char *name = jstr(ch, "name");
		double dimms = jnum(ch, "dimms");
		int ns = cJSON_GetArraySize(locs), i = 0, h = HEAD - 2 + maxslots * (SLOT_H + 2) + 2;
		char t[128];
		if (!on_package(ch, pkg, npk))
			continue;
		if (cx > x && cx + CH_W > x + w) {
			cx = x;
			cy += rowh + 4;
		}
		n++;
		rowh = h;
		if (!g->fp) {
			cx += CH_W + 4;
			continue;
		}
		fprintf(g->fp, "<g data-part=\"channel%s\">", dimms > 0 ? "" : "-empty");
		rect(g, cx, cy, CH_W, h, "#f6f8fa", C_LINE, mark_of(g, "channel:%d:%s", pkg, name ? name : "?"),
		     !(dimms > 0), 3);
		text(g, cx + CH_W / 2, cy + 13, 10, 1, "middle", "Ch %s", name ? name : "?");
		if (!ns) {
			/* No locators: the DIMM count only. */
			text(g, cx + CH_W / 2, cy + 30, 9, 0, "middle", "%.0f DIMM%s", isnan(dimms) ? 0 : dimms,
			     dimms == 1 ? "" : "s");
		}
		cJSON_ArrayForEach(loc, locs) {
			const char *l = cJSON_IsString(loc) ? loc->valuestring : "?";
			const cJSON *e;
			int empty = 0, sy = cy + HEAD - 2 + i * (SLOT_H + 2);
			char cl[24];
			cJSON_ArrayForEach(e, emp)
				empty |= cJSON_IsString(e) && !strcmp(e->valuestring, l);
			clip(l, 12, cl, sizeof(cl));
			fprintf(g->fp, "<g data-part=\"%s\" data-locator=\"", empty ? "slot-empty" : "dimm");
			html_esc(g->fp, l);
			fputs("\">", g->fp);
			rect(g, cx + 3, sy, CH_W - 6, SLOT_H, empty ? "#ffffff" : "#c9d1d9", empty ? "#6e7781" : C_LINE,
			     mark_of(g, "%s:%s", empty ? "slot" : "dimm", l), empty, 2);
			text(g, cx + CH_W / 2, sy + 12, 9, 0, "middle", "%s", cl);
			snprintf(t, sizeof(t), "%s: %s", l, empty ? "empty slot" : "DIMM");
			close_g(g, t);
			i++;
		}
		snprintf(t, sizeof(t), "channel %s: %.0f DIMM%s, %s", name ? name : "?", isnan(dimms) ? 0 : dimms,
			 dimms == 1 ? "" : "s", bytes_h(jnum(ch, "size_bytes"), b, sizeof(b)));
		close_g(g, t);
		cx += CH_W + 4;
	}
	return HEAD + (n ? cy - (y + HEAD) + rowh : 0) + 4;
}

/*** NUMA nodes and packages ***/

/* A NUMA node's id as an int, clamped before the cast (a report may say
 * 1e300; no real id is above 1023): -2, which no device names, when it has
 * none. */
static int node_id(const cJSON *nd)
{
	double v = jnum(nd, "id");
	return isnan(v) ? -2 : num_clamp(v, -2, 1 << 20);
}

static int draw_node(struct svg *g, const cJSON *nd, hwloc_const_bitmap_t cpus, int node, int x, int y, int w)
{
	struct svg m = *g;
	int hc, hp, h, ncores = cores_in(g->facts, cpus);
	const char *cl = jstr(nd, "cpus");
	char b[32], t[160];
	m.fp = NULL;
	hc = draw_l3(&m, cpus, 0, 0, w - 2 * PAD);
	hp = draw_pci(&m, node, 0, 0, w - 2 * PAD);
	h = HEAD + hc + (hc && hp ? PAD : 0) + hp + PAD;
	if (!g->fp)
		return h;
	fprintf(g->fp, "<g data-part=\"numa-node\" data-node=\"%d\">", node);
	rect(g, x, y, w, h, "#f6f8fa", C_LINE, mark_of(g, "numa"), 0, 5);
	if (!nd)
		snprintf(t, sizeof(t), "CPUs (no NUMA facts)");
	else {
		int k = snprintf(t, sizeof(t), "NUMA node %d", node);
		if (!isnan(jnum(nd, "memory_bytes")))
			k += snprintf(t + k, sizeof(t) - (size_t)k, " \xc2\xb7 %s", bytes_h(jnum(nd, "memory_bytes"), b,
											    sizeof(b)));
		if (cl && *cl && !cJSON_IsArray(jget(g->facts, "cpu.core_cpus")))
			snprintf(t + k, sizeof(t) - (size_t)k, " \xc2\xb7 CPUs %s \xc2\xb7 cores unknown", cl);
		else if (cl && *cl)
			snprintf(t + k, sizeof(t) - (size_t)k, " \xc2\xb7 CPUs %s \xc2\xb7 %d core%s", cl, ncores,
				 ncores == 1 ? "" : "s");
		else
			snprintf(t + k, sizeof(t) - (size_t)k, " \xc2\xb7 %s", cl ? "no CPUs (memory only)" :
				 "CPUs unknown");
	}
	text(g, x + 6, y + 14, 11, 1, NULL, "%s", t);
	draw_l3(g, cpus, x + PAD, y + HEAD, w - 2 * PAD);
	draw_pci(g, node, x + PAD, y + HEAD + hc + (hc && hp ? PAD : 0), w - 2 * PAD);
	fputs("</g>", g->fp);
	return h;
}

static int draw_package(struct svg *g, int pkg, int npk, const char *pcpus, int x, int y, int w)
{
	const cJSON *nodes = jget(g->facts, "numa.nodes"), *nd, *sock;
	hwloc_bitmap_t set = pcpus ? set_of(pcpus) : hwloc_bitmap_alloc();
	int hm, hn = 0, yy;
	const char *ver;
	struct svg m = *g;
	m.fp = NULL;
	if (!pcpus) {
		const cJSON *c;
		cJSON_ArrayForEach(c, jget(g->facts, "cpu.core_cpus"))
			if (cJSON_IsString(c)) {
				hwloc_bitmap_t s = set_of(c->valuestring);
				hwloc_bitmap_or(set, set, s);
				hwloc_bitmap_free(s);
			}
	}
	hm = draw_memory(&m, pkg, npk, 0, 0, w - 2 * PAD);
	/* Measure the nodes whose CPUs are on this package (a node that spans
	 * packages is drawn beside them, by draw_rest). */
	cJSON_ArrayForEach(nd, nodes) {
		hwloc_bitmap_t s = set_of(jstr(nd, "cpus"));
		if (hwloc_bitmap_intersects(s, set) && hwloc_bitmap_isincluded(s, set)) {
			hn += draw_node(&m, nd, s, node_id(nd), 0, 0, w - 2 * PAD) + PAD;
		}
		hwloc_bitmap_free(s);
	}
	if (!cJSON_GetArraySize(nodes))
		hn = draw_node(&m, NULL, set, pkg == 0 ? 0 : -2, 0, 0, w - 2 * PAD) + PAD;
	if (g->fp) {
		fprintf(g->fp, "<g data-part=\"package\" data-package=\"%d\">", pkg);
		rect(g, x, y, w, HEAD + hm + hn + PAD, "#ffffff", C_TEXT, mark_of(g, "package"), 0, 7);
		sock = cJSON_GetArrayItem(jget(g->facts, "platform.sockets"), pkg);
		ver = jstr(sock, "version") ? jstr(sock, "version") : jstr(g->facts, "cpu.model_name");
		{
			char v[80];
			clip(ver, 60, v, sizeof(v));
			text(g, x + 8, y + 15, 12, 1, NULL, "Package %d%s%s%s%s", pkg, ver ? " \xc2\xb7 " : "", ver ? v : "",
			     pcpus ? " \xc2\xb7 CPUs " : "", pcpus ? pcpus : "");
		}
		draw_memory(g, pkg, npk, x + PAD, y + HEAD, w - 2 * PAD);
		yy = y + HEAD + hm;
		cJSON_ArrayForEach(nd, nodes) {
			hwloc_bitmap_t s = set_of(jstr(nd, "cpus"));
			if (hwloc_bitmap_intersects(s, set) && hwloc_bitmap_isincluded(s, set)) {
				yy += draw_node(g, nd, s, node_id(nd), x + PAD, yy, w - 2 * PAD) + PAD;
			}
			hwloc_bitmap_free(s);
		}
		if (!cJSON_GetArraySize(nodes))
			draw_node(g, NULL, set, pkg == 0 ? 0 : -2, x + PAD, yy, w - 2 * PAD);
		fputs("</g>", g->fp);
	}
	hwloc_bitmap_free(set);
	return HEAD + hm + hn + PAD;
}

/* NUMA nodes on no package (no CPUs, or CPUs on none), and devices whose
 * node is unknown on a host with several. */
static int draw_rest(struct svg *g, const char *const *pk, int npk, int x, int y, int w)
{
	const cJSON *nodes = jget(g->facts, "numa.nodes"), *nd, *o, *c;
	int h = 0, i, unknown = 0;
	hwloc_bitmap_t all = hwloc_bitmap_alloc();
	/* The CPUs the packages drew: theirs, or every core's with one box. */
	for (i = 0; i < npk; i++) {
		hwloc_bitmap_t s = set_of(pk[i]);
		hwloc_bitmap_or(all, all, s);
		hwloc_bitmap_free(s);
	}
	if (!npk)
		cJSON_ArrayForEach(c, jget(g->facts, "cpu.core_cpus"))
			if (cJSON_IsString(c)) {
				hwloc_bitmap_t s = set_of(c->valuestring);
				hwloc_bitmap_or(all, all, s);
				hwloc_bitmap_free(s);
			}
	cJSON_ArrayForEach(nd, nodes) {
		hwloc_bitmap_t s = set_of(jstr(nd, "cpus"));
		int inside = 0;
		for (i = 0; i < npk && !inside; i++) {
			hwloc_bitmap_t ps = set_of(pk[i]);
			inside = hwloc_bitmap_intersects(s, ps) && hwloc_bitmap_isincluded(s, ps);
			hwloc_bitmap_free(ps);
		}
		if (!npk)
			inside = hwloc_bitmap_intersects(s, all) && hwloc_bitmap_isincluded(s, all);
		if (!inside) {
			/* A node with no CPUs, with CPUs the packages do not
			 * have, or spanning packages. */
			h += draw_node(g, nd, s, node_id(nd), x, y + h, w) + PAD;
		}
		hwloc_bitmap_free(s);
	}
	cJSON_ArrayForEach(o, g->info)
		unknown |= dev_on_node(g->facts, o, -1);
	if (unknown) {
		struct svg m = *g;
		int hp, bh;
		m.fp = NULL;
		hp = draw_pci(&m, -1, 0, 0, w - 2 * PAD);
		bh = HEAD + hp + PAD;
		if (g->fp) {
			open_g(g, "numa-unknown", NULL);
			rect(g, x, y + h, w, bh, "#ffffff", C_LINE, NULL, 1, 5);
			text(g, x + 6, y + h + 14, 11, 1, NULL,
			     "NUMA node not reported by the firmware (numa_node -1): these devices");
			draw_pci(g, -1, x + PAD, y + h + HEAD, w - 2 * PAD);
			close_g(g, NULL);
		}
		h += bh + PAD;
	}
	hwloc_bitmap_free(all);
	return h;
}

static int draw_legend(struct svg *g, int x, int y, int findings)
{
	static const struct { const char *label; int rank, dashed; } keys[] = {
		{ "fail", MARK_FAIL, 0 }, { "warn", MARK_WARN, 0 }, { "no finding", 0, 0 }, { "empty slot", 0, 1 } };
	size_t i;
	int cx = x;
	if (!g->fp)
		return 16;
	open_g(g, "legend", NULL);
	for (i = findings ? 0 : 2; i < ARRAY_SIZE(keys); i++) {
		if (g->fp) {
			fprintf(g->fp, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"12\" fill=\"%s\" stroke=\"%s\"%s/>",
				cx, y, fill_of(keys[i].rank, "#ffffff"), line_of(keys[i].rank, C_LINE),
				keys[i].dashed ? " stroke-dasharray=\"4 3\"" : "");
		}
		text(g, cx + 18, y + 10, 10, 0, NULL, "%s", keys[i].label);
		cx += 18 + 8 * (int)strlen(keys[i].label) + 10;
	}
	close_g(g, NULL);
	return 16;
}

/*** The drawing ***/

static void node_svg(FILE *fp, const cJSON *facts, const cJSON *host_obj, const cJSON *findings, int standalone)
{
	struct svg g = { NULL, facts, NULL, 0, 0, 0, NULL }, m;
	cJSON *made = NULL;
	const cJSON *pc = jget(facts, "cpu.package_cpus");
	const char *pk[256];
	int npk = 0, h, i, y;
	const char *host = jstr(host_obj, "hostname"), *kernel = jstr(facts, "kernel.version");
	const cJSON *c;
	g.info = jget(facts, "pci.matrix.info");
	if (!cJSON_IsArray(g.info)) {
		/* Facts from before pci.matrix: the accelerators and NICs, each
		 * under a host bridge nobody named. */
		static const char *const lists[] = { "pci.accelerators", "pci.nics" };
		size_t k;
		made = cJSON_CreateArray();
		for (k = 0; k < ARRAY_SIZE(lists); k++)
			cJSON_ArrayForEach(c, jget(facts, lists[k])) {
				cJSON *o = cJSON_CreateObject();
				const cJSON *nn = jget(c, "numa_node");
				fj_str_or_null(o, "bdf", jstr(c, "bdf"));
				cJSON_AddStringToObject(o, "kind", k ? "nic" : "accelerator");
				fj_num_or_null(o, "numa_node", cJSON_IsNumber(nn) && nn->valuedouble >= 0,
					       cJSON_IsNumber(nn) ? nn->valuedouble : 0);
				cJSON_AddStringToObject(o, "host_bridge", "(not recorded)");
				cJSON_AddItemToArray(made, o);
			}
		g.info = made;
	}
	collect_marks(&g, findings);
	cJSON_ArrayForEach(c, pc)
		if (cJSON_IsString(c) && npk < (int)ARRAY_SIZE(pk))
			pk[npk++] = c->valuestring;
	m = g;
	/* Measure. */
	h = 30 + 20;
	if (npk)
		for (i = 0; i < npk; i++)
			h += draw_package(&m, i, npk, pk[i], 0, 0, SVG_W - 2 * PAD - 8) + PAD;
	else
		h += draw_package(&m, 0, 1, NULL, 0, 0, SVG_W - 2 * PAD - 8) + PAD;
	h += draw_rest(&m, pk, npk, 0, 0, SVG_W - 2 * PAD - 8);
	h += PAD;
	g.fp = fp;
	if (standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", fp);
	/* Inside a page the HTML parser puts it in the SVG namespace itself
	 * (and the page names nothing outside itself). */
	fprintf(fp, "<svg%s id=\"node-drawing\" class=\"nodemap\" role=\"img\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Verdana, sans-serif\">",
		standalone ? " xmlns=\"http://www.w3.org/2000/svg\"" : "", SVG_W, h, SVG_W, h);
	fputs("<title>", fp);
	html_escf(fp, "%s: the node as nodeaudit sees it", host ? host : "unknown host");
	fputs("</title>", fp);
	rect(&g, 0, 0, SVG_W, h, "#ffffff", "#ffffff", NULL, 0, 0);
	open_g(&g, "machine", NULL);
	rect(&g, 4, 4, SVG_W - 8, h - 8, "#ffffff", C_TEXT, NULL, 0, 8);
	text(&g, 14, 24, 14, 1, NULL, "Machine %s%s%s", host ? host : "(host name unknown)", kernel ? " \xc2\xb7 Linux " : "",
	     kernel ? kernel : "");
	draw_legend(&g, SVG_W - 380, 14, findings != NULL);
	y = 30 + 12;
	if (npk)
		for (i = 0; i < npk; i++)
			y += draw_package(&g, i, npk, pk[i], 4 + PAD, y, SVG_W - 2 * PAD - 8) + PAD;
	else
		y += draw_package(&g, 0, 1, NULL, 4 + PAD, y, SVG_W - 2 * PAD - 8) + PAD;
	draw_rest(&g, pk, npk, 4 + PAD, y, SVG_W - 2 * PAD - 8);
	close_g(&g, NULL);
	fputs("</svg>\n", fp);
	free(g.m);
	cJSON_Delete(made);
}

void node_svg_facts(FILE *fp, const cJSON *facts, const cJSON *host, const cJSON *findings, int standalone)
{
	node_svg(fp, facts, host, findings, standalone);
}

/* probe --format svg: the facts only, nothing coloured. */
void probe_render_svg(FILE *fp, const struct doc *d)
{
	node_svg(fp, d->json, jget(d->json, "host"), NULL, 1);
}

/* check --format svg: coloured by the report's findings. */
void report_render_svg(FILE *fp, const struct doc *d)
{
	node_svg(fp, jget(d->json, "facts"), jget(d->json, "host"), jget(d->json, "findings"), 1);
}
