/* render/svg.c - the node as a drawing (SVG): machine > package > NUMA node >
 * L3 group > cores, memory channels and slots per package, PCI devices under
 * their host bridge and switches; each finding colours the part it is about */
#include "config.h"
#include "render/svg-internal.h"
#include "lib/facts.h"
#include "render/html.h"
#include "render/render.h"
#include "read/sysroot.h"
#include "lib/util.h"

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

/* "P", "E" or "" by cpu.kinds for a core's CPUs. */
static const char *core_kind(const cJSON *facts, const char *cpus)
{
	const cJSON *k, *kinds = jget(facts, "cpu.kinds");
	if (cJSON_GetArraySize(kinds) < 2)
		return "";
	cJSON_ArrayForEach(k, kinds) {
		const char *name = jstr(k, "name"), *kc = jstr(k, "cpus");
		bitmap_t s = svg_set_of(kc);
		int hit = kc && svg_subset(cpus, s);
		bitmap_free(s);
		if (hit && name)
			return !strcmp(name, "performance") ? "P" : !strcmp(name, "efficiency") ? "E" : "";
	}
	return "";
}

/*** Cores and L3 groups ***/

static int cores_in(const cJSON *facts, const_bitmap_t set)
{
	const cJSON *c;
	int n = 0;
	cJSON_ArrayForEach(c, jget(facts, "cpu.core_cpus"))
		n += cJSON_IsString(c) && svg_subset(c->valuestring, set);
	return n;
}

/* The cores whose CPUs lie in set, as squares with a sliver per thread. */
static int draw_cores(struct svg *g, const_bitmap_t set, int x, int y, int w)
{
	const cJSON *c;
	int per = (w - PAD) / (CORE_W + 4), k = 0, n = cores_in(g->facts, set);
	const struct mark *smt = svg_mark_of(g, "smt");
	if (per < 1)
		per = 1;
	if (!n)
		return 0;
	cJSON_ArrayForEach(c, jget(g->facts, "cpu.core_cpus")) {
		bitmap_t t;
		int cx, cy, th, i = 0, cpu;
		const char *kind;
		if (!cJSON_IsString(c) || !svg_subset(c->valuestring, set))
			continue;
		cx = x + (k % per) * (CORE_W + 4);
		cy = y + (k / per) * (CORE_H + 4);
		k++;
		if (!g->fp)
			continue;
		t = svg_set_of(c->valuestring);
		th = bitmap_weight(t);
		kind = core_kind(g->facts, c->valuestring);
		MK(g->fp, "<g data-part=\"core\"");
		mk_attr(g->fp, "data-kind", *kind ? kind : "C");
		mk_rawf(g->fp, " data-threads=\"%d\">", th);
		svg_rect(g, cx, cy, CORE_W, CORE_H, "#ffffff", C_LINE, NULL, 0, 3);
		bitmap_foreach_begin(cpu, t) {
			int tw = (CORE_W - 4) / (th > 0 && th <= 8 ? th : 8);
			if (i < 8) {
				svg_open_g(g, "thread", NULL);
				svg_rect(g, cx + 2 + i * tw, cy + 12, tw - 1, CORE_H - 14, "#dde3ea", "#8c959f",
				     i > 0 ? smt : NULL, 0, 1);
				svg_text(g, cx + 2 + i * tw + tw / 2, cy + CORE_H - 5, 8, 0, "middle", "%d", cpu);
				svg_close_g(g, NULL);
			}
			i++;
		} bitmap_foreach_end();
		svg_text(g, cx + CORE_W / 2, cy + 10, 9, 1, "middle", "%s", *kind ? kind : "core");
		MK(g->fp, "<title>");
		mk_textf(g->fp, "%score, CPUs %s", !strcmp(kind, "P") ? "performance " : !strcmp(kind, "E") ?
			  "efficiency " : "", c->valuestring);
		MK(g->fp, "</title></g>");
		bitmap_free(t);
	}
	return ((k - 1) / per + 1) * (CORE_H + 4);
}

/* The L3 groups of set (each with its cores), then cores in no group. */
static int draw_l3(struct svg *g, const_bitmap_t set, int x, int y, int w)
{
	const cJSON *l3 = jget(g->facts, "cpu.caches.l3"), *inst;
	bitmap_t rest = bitmap_dup(set);
	int cx = x, cy = y, rowh = 0, h;
	char b[32];
	cJSON_ArrayForEach(inst, jget(l3, "instance_cpus")) {
		bitmap_t s;
		int n, per, gw, gh;
		if (!cJSON_IsString(inst) || !svg_meets(inst->valuestring, set))
			continue;
		s = svg_set_of(inst->valuestring);
		bitmap_and(s, s, set);
		bitmap_andnot(rest, rest, s);
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
			svg_open_g(g, "l3", NULL);
			svg_rect(g, cx, cy, gw, gh, "#eef1f4", "#8c959f", NULL, 0, 4);
			svg_text(g, cx + 6, cy + 14, 10, 1, NULL, "L3 %s", svg_bytes_h(jnum(l3, "size_bytes"), b, sizeof(b)));
			draw_cores(g, s, cx + PAD / 2, cy + HEAD, gw - PAD);
			snprintf(title, sizeof(title), "L3 cache shared by CPUs %s", inst->valuestring);
			svg_close_g(g, title);
		}
		bitmap_free(s);
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
	bitmap_free(rest);
	return h;
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
	const struct mark *mm = svg_mark_of(g, "memory");
	char b[32];
	cJSON_ArrayForEach(ch, list) {
		int s = cJSON_GetArraySize(jget(ch, "locators"));
		if (on_package(ch, pkg, npk) && s > maxslots)
			maxslots = s;
	}
	svg_open_g(g, "memory", NULL);
	svg_rect(g, x, y, w, HEAD - 4, "#ffffff", "#ffffff", mm, 0, 3);
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
			svg_text(g, x + 4, y + 12, 10, 1, NULL, "Memory: %d of %d channels populated, %s", pop, nch,
			     svg_bytes_h(tot, b, sizeof(b)));
		else
			svg_text(g, x + 4, y + 12, 10, 1, NULL, "%s", cJSON_IsArray(list) ?
			     "Memory: no channels on this package" :
			     "Memory: channels unknown (no SMBIOS table, or locators in no known scheme)");
	}
	svg_close_g(g, NULL);
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
		MK(g->fp, "<g");
		mk_attr(g->fp, "data-part", dimms > 0 ? "channel" : "channel-empty");
		MK(g->fp, ">");
		svg_rect(g, cx, cy, CH_W, h, "#f6f8fa", C_LINE, svg_mark_of(g, "channel:%d:%s", pkg, name ? name : "?"),
		     !(dimms > 0), 3);
		svg_text(g, cx + CH_W / 2, cy + 13, 10, 1, "middle", "Ch %s", name ? name : "?");
		if (!ns) {
			/* No locators: the DIMM count only. */
			svg_text(g, cx + CH_W / 2, cy + 30, 9, 0, "middle", "%.0f DIMM%s", isnan(dimms) ? 0 : dimms,
			     dimms == 1 ? "" : "s");
		}
		cJSON_ArrayForEach(loc, locs) {
			const char *l = cJSON_IsString(loc) ? loc->valuestring : "?";
			const cJSON *e;
			int empty = 0, sy = cy + HEAD - 2 + i * (SLOT_H + 2);
			char cl[24];
			cJSON_ArrayForEach(e, emp)
				empty |= cJSON_IsString(e) && !strcmp(e->valuestring, l);
			svg_clip(l, 12, cl, sizeof(cl));
			MK(g->fp, "<g");
			mk_attr(g->fp, "data-part", empty ? "slot-empty" : "dimm");
			mk_attr(g->fp, "data-locator", l);
			MK(g->fp, ">");
			svg_rect(g, cx + 3, sy, CH_W - 6, SLOT_H, empty ? "#ffffff" : "#c9d1d9", empty ? "#6e7781" : C_LINE,
			     svg_mark_of(g, "%s:%s", empty ? "slot" : "dimm", l), empty, 2);
			svg_text(g, cx + CH_W / 2, sy + 12, 9, 0, "middle", "%s", cl);
			snprintf(t, sizeof(t), "%s: %s", l, empty ? "empty slot" : "DIMM");
			svg_close_g(g, t);
			i++;
		}
		snprintf(t, sizeof(t), "channel %s: %.0f DIMM%s, %s", name ? name : "?", isnan(dimms) ? 0 : dimms,
			 dimms == 1 ? "" : "s", svg_bytes_h(jnum(ch, "size_bytes"), b, sizeof(b)));
		svg_close_g(g, t);
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

static int draw_node(struct svg *g, const cJSON *nd, const_bitmap_t cpus, int node, int x, int y, int w)
{
	struct svg m = *g;
	int hc, hp, h, ncores = cores_in(g->facts, cpus);
	const char *cl = jstr(nd, "cpus");
	char b[32], t[160];
	m.fp = NULL;
	hc = draw_l3(&m, cpus, 0, 0, w - 2 * PAD);
	hp = svg_draw_pci(&m, node, 0, 0, w - 2 * PAD);
	h = HEAD + hc + (hc && hp ? PAD : 0) + hp + PAD;
	if (!g->fp)
		return h;
	mk_rawf(g->fp, "<g data-part=\"numa-node\" data-node=\"%d\">", node);
	svg_rect(g, x, y, w, h, "#f6f8fa", C_LINE, svg_mark_of(g, "numa"), 0, 5);
	if (!nd)
		snprintf(t, sizeof(t), "CPUs (no NUMA facts)");
	else {
		int k = snprintf(t, sizeof(t), "NUMA node %d", node);
		if (!isnan(jnum(nd, "memory_bytes")))
			k += snprintf(t + k, sizeof(t) - (size_t)k, " \xc2\xb7 %s", svg_bytes_h(jnum(nd, "memory_bytes"), b,
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
	svg_text(g, x + 6, y + 14, 11, 1, NULL, "%s", t);
	draw_l3(g, cpus, x + PAD, y + HEAD, w - 2 * PAD);
	svg_draw_pci(g, node, x + PAD, y + HEAD + hc + (hc && hp ? PAD : 0), w - 2 * PAD);
	MK(g->fp, "</g>");
	return h;
}

static int draw_package(struct svg *g, int pkg, int npk, const char *pcpus, int x, int y, int w)
{
	const cJSON *nodes = jget(g->facts, "numa.nodes"), *nd, *sock;
	bitmap_t set = pcpus ? svg_set_of(pcpus) : bitmap_alloc();
	int hm, hn = 0, yy;
	const char *ver;
	struct svg m = *g;
	m.fp = NULL;
	if (!pcpus) {
		const cJSON *c;
		cJSON_ArrayForEach(c, jget(g->facts, "cpu.core_cpus"))
			if (cJSON_IsString(c)) {
				bitmap_t s = svg_set_of(c->valuestring);
				bitmap_or(set, set, s);
				bitmap_free(s);
			}
	}
	hm = draw_memory(&m, pkg, npk, 0, 0, w - 2 * PAD);
	/* Measure the nodes whose CPUs are on this package (a node that spans
	 * packages is drawn beside them, by draw_rest). */
	cJSON_ArrayForEach(nd, nodes) {
		bitmap_t s = svg_set_of(jstr(nd, "cpus"));
		if (bitmap_intersects(s, set) && bitmap_isincluded(s, set)) {
			hn += draw_node(&m, nd, s, node_id(nd), 0, 0, w - 2 * PAD) + PAD;
		}
		bitmap_free(s);
	}
	if (!cJSON_GetArraySize(nodes))
		hn = draw_node(&m, NULL, set, pkg == 0 ? 0 : -2, 0, 0, w - 2 * PAD) + PAD;
	if (g->fp) {
		mk_rawf(g->fp, "<g data-part=\"package\" data-package=\"%d\">", pkg);
		svg_rect(g, x, y, w, HEAD + hm + hn + PAD, "#ffffff", C_TEXT, svg_mark_of(g, "package"), 0, 7);
		sock = cJSON_GetArrayItem(jget(g->facts, "platform.sockets"), pkg);
		ver = jstr(sock, "version") ? jstr(sock, "version") : jstr(g->facts, "cpu.model_name");
		{
			char v[80];
			svg_clip(ver, 60, v, sizeof(v));
			svg_text(g, x + 8, y + 15, 12, 1, NULL, "Package %d%s%s%s%s", pkg, ver ? " \xc2\xb7 " : "", ver ? v : "",
			     pcpus ? " \xc2\xb7 CPUs " : "", pcpus ? pcpus : "");
		}
		draw_memory(g, pkg, npk, x + PAD, y + HEAD, w - 2 * PAD);
		yy = y + HEAD + hm;
		cJSON_ArrayForEach(nd, nodes) {
			bitmap_t s = svg_set_of(jstr(nd, "cpus"));
			if (bitmap_intersects(s, set) && bitmap_isincluded(s, set)) {
				yy += draw_node(g, nd, s, node_id(nd), x + PAD, yy, w - 2 * PAD) + PAD;
			}
			bitmap_free(s);
		}
		if (!cJSON_GetArraySize(nodes))
			draw_node(g, NULL, set, pkg == 0 ? 0 : -2, x + PAD, yy, w - 2 * PAD);
		MK(g->fp, "</g>");
	}
	bitmap_free(set);
	return HEAD + hm + hn + PAD;
}

/* NUMA nodes on no package (no CPUs, or CPUs on none), and devices whose
 * node is unknown on a host with several. */
static int draw_rest(struct svg *g, const char *const *pk, int npk, int x, int y, int w)
{
	const cJSON *nodes = jget(g->facts, "numa.nodes"), *nd, *o, *c;
	int h = 0, i, unknown = 0;
	bitmap_t all = bitmap_alloc();
	/* The CPUs the packages drew: theirs, or every core's with one box. */
	for (i = 0; i < npk; i++) {
		bitmap_t s = svg_set_of(pk[i]);
		bitmap_or(all, all, s);
		bitmap_free(s);
	}
	if (!npk)
		cJSON_ArrayForEach(c, jget(g->facts, "cpu.core_cpus"))
			if (cJSON_IsString(c)) {
				bitmap_t s = svg_set_of(c->valuestring);
				bitmap_or(all, all, s);
				bitmap_free(s);
			}
	cJSON_ArrayForEach(nd, nodes) {
		bitmap_t s = svg_set_of(jstr(nd, "cpus"));
		int inside = 0;
		for (i = 0; i < npk && !inside; i++) {
			bitmap_t ps = svg_set_of(pk[i]);
			inside = bitmap_intersects(s, ps) && bitmap_isincluded(s, ps);
			bitmap_free(ps);
		}
		if (!npk)
			inside = bitmap_intersects(s, all) && bitmap_isincluded(s, all);
		if (!inside) {
			/* A node with no CPUs, with CPUs the packages do not
			 * have, or spanning packages. */
			h += draw_node(g, nd, s, node_id(nd), x, y + h, w) + PAD;
		}
		bitmap_free(s);
	}
	cJSON_ArrayForEach(o, g->info)
		unknown |= svg_dev_on_node(g->facts, o, -1);
	if (unknown) {
		struct svg m = *g;
		int hp, bh;
		m.fp = NULL;
		hp = svg_draw_pci(&m, -1, 0, 0, w - 2 * PAD);
		bh = HEAD + hp + PAD;
		if (g->fp) {
			svg_open_g(g, "numa-unknown", NULL);
			svg_rect(g, x, y + h, w, bh, "#ffffff", C_LINE, NULL, 1, 5);
			svg_text(g, x + 6, y + h + 14, 11, 1, NULL,
			     "NUMA node not reported by the firmware (numa_node -1): these devices");
			svg_draw_pci(g, -1, x + PAD, y + h + HEAD, w - 2 * PAD);
			svg_close_g(g, NULL);
		}
		h += bh + PAD;
	}
	bitmap_free(all);
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
	svg_open_g(g, "legend", NULL);
	for (i = findings ? 0 : 2; i < ARRAY_SIZE(keys); i++) {
		if (g->fp) {
			mk_rawf(g->fp, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"12\"", cx, y);
			mk_attr(g->fp, "fill", svg_fill_of(keys[i].rank, "#ffffff"));
			mk_attr(g->fp, "stroke", svg_line_of(keys[i].rank, C_LINE));
			if (keys[i].dashed)
				MK(g->fp, " stroke-dasharray=\"4 3\"");
			MK(g->fp, "/>");
		}
		svg_text(g, cx + 18, y + 10, 10, 0, NULL, "%s", keys[i].label);
		cx += 18 + 8 * (int)strlen(keys[i].label) + 10;
	}
	svg_close_g(g, NULL);
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
	svg_collect_marks(&g, findings);
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
		MK(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	/* Inside a page the HTML parser puts it in the SVG namespace itself
	 * (and the page names nothing outside itself). */
	MK(fp, "<svg");
	if (standalone)
		MK(fp, " xmlns=\"http://www.w3.org/2000/svg\"");
	mk_rawf(fp, " id=\"node-drawing\" class=\"nodemap\" role=\"img\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Verdana, sans-serif\">", SVG_W, h, SVG_W, h);
	MK(fp, "<title>");
	mk_textf(fp, "%s: the node as nodeaudit sees it", host ? host : "unknown host");
	MK(fp, "</title>");
	svg_rect(&g, 0, 0, SVG_W, h, "#ffffff", "#ffffff", NULL, 0, 0);
	svg_open_g(&g, "machine", NULL);
	svg_rect(&g, 4, 4, SVG_W - 8, h - 8, "#ffffff", C_TEXT, NULL, 0, 8);
	svg_text(&g, 14, 24, 14, 1, NULL, "Machine %s%s%s", host ? host : "(host name unknown)", kernel ? " \xc2\xb7 Linux " : "",
	     kernel ? kernel : "");
	draw_legend(&g, SVG_W - 380, 14, findings != NULL);
	y = 30 + 12;
	if (npk)
		for (i = 0; i < npk; i++)
			y += draw_package(&g, i, npk, pk[i], 4 + PAD, y, SVG_W - 2 * PAD - 8) + PAD;
	else
		y += draw_package(&g, 0, 1, NULL, 4 + PAD, y, SVG_W - 2 * PAD - 8) + PAD;
	draw_rest(&g, pk, npk, 4 + PAD, y, SVG_W - 2 * PAD - 8);
	svg_close_g(&g, NULL);
	MK(fp, "</svg>\n");
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
