/* render/svg-pci.c - the node drawing's PCI part: host bridges, switches with
 * their uplinks, and the device cards with their links */
#include "config.h"
#include "render/svg-internal.h"
#include "lib/facts.h"
#include "render/html.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
int svg_dev_on_node(const cJSON *facts, const cJSON *o, int node)
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
	MK(g->fp, "<g");
	mk_attr(g->fp, "data-part", mkind ? mkind : "device");
	mk_attr(g->fp, "data-bdf", bdf ? bdf : "");
	MK(g->fp, ">");
	svg_open_g(g, "link", NULL);
	svg_rect(g, x, y, CARD_W, LINK_H, "#eaeef2", C_LINE, svg_mark_of(g, "link:%s", bdf ? bdf : ""), 0, 3);
	svg_text(g, x + 6, y + 12, 10, 0, NULL, "PCIe %s", lk);
	snprintf(t, sizeof(t), "link of %s: %s", bdf ? bdf : "?", lk);
	svg_close_g(g, t);
	svg_rect(g, x, y + LINK_H, CARD_W, CARD_H - LINK_H, "#ffffff", C_LINE, svg_mark_of(g, "dev:%s", bdf ? bdf : ""), 0, 3);
	svg_text(g, x + 6, y + LINK_H + 14, 11, 1, NULL, "%s %s", label, bdf ? bdf : "?");
	svg_clip(jstr(e, "device") ? jstr(e, "device") : mkind && !strcmp(mkind, "nvme") ? "NVMe controller" :
	     "device not named", 32, name, sizeof(name));
	svg_text(g, x + 6, y + LINK_H + 28, 10, 0, NULL, "%s", name);
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
	svg_text(g, x + 6, y + LINK_H + 41, 10, 0, NULL, "%s", t);
	MK(g->fp, "<title>");
	mk_textf(g->fp, "%s %s: %s; PCIe %s", label, bdf ? bdf : "?", jstr(e, "device") ? jstr(e, "device") : "",
		  lk);
	MK(g->fp, "</title></g>");
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
		if (!h || strcmp(h, hb) || !svg_dev_on_node(g->facts, o, node))
			continue;
		if (depth && (!here || strcmp(here, sw)))
			continue;
		if (next) {
			/* One box per switch: at its first device. */
			cJSON_ArrayForEach(p, info) {
				if (p == o)
					break;
				if (jstr(p, "host_bridge") && !strcmp(jstr(p, "host_bridge"), hb) &&
				    svg_dev_on_node(g->facts, p, node) && switch_at(p, depth) &&
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
				MK(g->fp, "<g data-part=\"switch\"");
				mk_attr(g->fp, "data-bdf", next);
				MK(g->fp, ">");
				svg_rect(g, cx, cy, bw, bh, "#f3f5f7", C_LINE, NULL, 0, 5);
				svg_open_g(g, "uplink", NULL);
				svg_rect(g, cx, cy, bw, HEAD + LINK_H - 2, "#e6eaef", C_LINE, svg_mark_of(g, "up:%s", next), 0, 5);
				svg_text(g, cx + 6, cy + 14, 11, 1, NULL, "PCIe switch %s", next);
				svg_text(g, cx + 6, cy + 30, 10, 0, NULL, "uplink %s", lk);
				snprintf(t, sizeof(t), "uplink of switch %s: %s", next, lk);
				svg_close_g(g, t);
				draw_pci_level(g, hb, node, next, depth + 1, cx + PAD, cy + HEAD + LINK_H, bw - 2 * PAD);
				MK(g->fp, "</g>");
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
int svg_draw_pci(struct svg *g, int node, int x, int y, int w)
{
	const cJSON *info = g->info, *o, *p;
	int cx = x, cy = y, rowh = 0, any = 0;
	cJSON_ArrayForEach(o, info) {
		const char *hb = jstr(o, "host_bridge");
		int dup = 0, bw, bh, inner;
		if (!hb || !svg_dev_on_node(g->facts, o, node))
			continue;
		cJSON_ArrayForEach(p, info) {
			if (p == o)
				break;
			dup |= jstr(p, "host_bridge") && !strcmp(jstr(p, "host_bridge"), hb) && svg_dev_on_node(g->facts, p, node);
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
				    svg_dev_on_node(g->facts, p, node)) {
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
			svg_open_g(g, "host-bridge", NULL);
			svg_rect(g, cx, cy, bw, bh, "#fbfcfd", C_LINE, NULL, 0, 5);
			svg_text(g, cx + 6, cy + 14, 11, 1, NULL, "Host bridge %s", hb);
			draw_pci_level(g, hb, node, NULL, 0, cx + PAD, cy + HEAD, bw - 2 * PAD);
			snprintf(t, sizeof(t), "PCI host bridge %s", hb);
			svg_close_g(g, t);
		}
		any = 1;
		if (bh > rowh)
			rowh = bh;
		cx += bw + PAD;
	}
	return any ? cy + rowh - y : 0;
}
