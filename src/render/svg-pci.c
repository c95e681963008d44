/* render/svg-pci.c - the node drawing's PCI part, as lstopo draws it: each host
 * bridge in the box of its locality, the PCI bridges (root ports, switch
 * ports) on the way down, and the devices lstopo keeps (storage, network,
 * display, processors, accelerators, InfiniBand, Fibre Channel) as cards
 * with their links */
#include "config.h"
#include "render/svg-internal.h"
#include "lib/facts.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pci.accelerators / pci.nics entry of bdf, or NULL. */
static const cJSON *pci_entry(const cJSON *facts, const char *bdf)
{
	static const char *const lists[] = { "pci.accelerators", "pci.nics" };
	size_t i;
	const cJSON *d;
	for (i = 0; i < ARRAY_SIZE(lists); i++)
		cJSON_ArrayForEach(d, jget(facts, lists[i]))
			if (jstr(d, "bdf") && bdf && !strcmp(jstr(d, "bdf"), bdf))
				return d;
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

static const cJSON *matrix_entry(const struct svg *g, const char *bdf)
{
	const cJSON *o;
	cJSON_ArrayForEach(o, g->info)
		if (jstr(o, "bdf") && bdf && !strcmp(jstr(o, "bdf"), bdf))
			return o;
	return NULL;
}

static unsigned class_of(const cJSON *fn)
{
	const char *c = jstr(fn, "class");
	return c ? (unsigned)strtoul(c, NULL, 16) : 0xffff;
}

/* A function the kernel lists whose class the probe could not read (its
 * files garbled or missing: "class": null, the gap says why).  hwloc reads
 * the class as a number whatever the file holds (topology-linux.c: strtoul,
 * 0 when absent), takes 0 for "unclassified", and keeps it: the drawing
 * shows such a function too, as present but unreadable. */
static int class_unread(const cJSON *fn)
{
	return cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(fn, "class"));
}

/* Why fn's class is null: the gap of pci.devices[i].class; NULL when the
 * document carries no gaps. */
static const char *class_gap(const struct svg *g, const cJSON *fn)
{
	const cJSON *d, *gp;
	const char *r = NULL;
	char key[64];
	int i = 0;
	cJSON_ArrayForEach(d, jget(g->facts, "pci.devices")) {
		if (d == fn)
			break;
		i++;
	}
	snprintf(key, sizeof(key), "pci.devices[%d].class", i);
	cJSON_ArrayForEach(gp, g->gaps)
		if (jstr(gp, "fact") && !strcmp(jstr(gp, "fact"), key) && (r = jstr(gp, "reason")))
			break;
	return r;
}

/* The functions lstopo keeps by default (hwloc's "important" PCI filter). */
static int important(unsigned cls)
{
	unsigned base = cls >> 8;
	return base == 0x01 || base == 0x02 || base == 0x03 || base == 0x00 || base == 0x0b || base == 0x12 ||
	       cls == 0x0c04 || cls == 0x0c06 || cls == 0x0502;
}

static const char *class_name(unsigned cls)
{
	static const struct { unsigned cls; const char *name; } names[] = {
		{ 0x0100, "SCSI controller" }, { 0x0101, "IDE controller" }, { 0x0104, "RAID controller" },
		{ 0x0106, "SATA controller" }, { 0x0107, "SAS controller" }, { 0x0108, "NVMe controller" },
		{ 0x0200, "Ethernet controller" }, { 0x0207, "InfiniBand controller" }, { 0x0280, "Network controller" },
		{ 0x0300, "VGA controller" }, { 0x0302, "3D controller" }, { 0x0380, "Display controller" },
		{ 0x0b40, "Co-processor" }, { 0x0c04, "Fibre Channel" }, { 0x0c06, "InfiniBand" },
		{ 0x0502, "CXL memory" }, { 0x1200, "Processing accelerator" },
	};
	size_t i;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].cls == cls)
			return names[i].name;
	switch (cls >> 8) {
	case 0x01: return "storage controller";
	case 0x02: return "network controller";
	case 0x03: return "display controller";
	case 0x0b: return "processor";
	case 0x12: return "accelerator";
	default: return "PCI device";
	}
}

/* "x8 of x16 · 8 of 16 GT/s" from a link object; 0 when there is none. */
static int link_text(const cJSON *l, char *buf, size_t n)
{
	double wc = jnum(l, "width.current"), wm = jnum(l, "width.max");
	double sc = jnum(l, "speed_gts.current"), sm = jnum(l, "speed_gts.max");
	size_t k;
	if (!cJSON_IsObject(l) || (isnan(wc) && isnan(sc)))
		return 0;
	k = (size_t)snprintf(buf, n, "PCIe x%s", isnan(wc) ? "?" : "");
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
	return 1;
}

/* "02:00.0" for a device in domain 0, the whole address otherwise. */
static const char *short_bdf(const char *bdf)
{
	return bdf && strlen(bdf) == 12 && !strncmp(bdf, "0000:", 5) ? bdf + 5 : bdf ? bdf : "?";
}

/*** The devices and their bridges ***/

struct dev {
	const char *bdf;
	const char *chain[16];   /* the bridges above it, the root port first */
	int nchain;
	char hb[32];
};

/* The devices drawn, each with its bridges and host bridge. */
static size_t devices(const struct svg *g, struct dev **out)
{
	const cJSON *d, *o;
	struct dev *v = NULL;
	size_t n = 0, a = 0;
	int have_fns = cJSON_IsArray(jget(g->facts, "pci.devices"));
	const cJSON *list = have_fns ? jget(g->facts, "pci.devices") : g->info;
	cJSON_ArrayForEach(d, list) {
		const char *bdf = jstr(d, "bdf"), *p, *up[16];
		const cJSON *m;
		int k = 0, i;
		if (!bdf || (have_fns && !matrix_entry(g, bdf) && !important(class_of(d)) && !class_unread(d)))
			continue;
		if (n == a) {
			a = a ? 2 * a : 16;
			v = xrealloc(v, a * sizeof(*v));
		}
		memset(&v[n], 0, sizeof(v[n]));
		v[n].bdf = bdf;
		/* Up the parents, at most 16 (a loop in a report ends there). */
		for (p = have_fns ? jstr(d, "parent") : NULL; p && k < 16; k++) {
			up[k] = p;
			p = jstr(pci_function(g->facts, p), "parent");
		}
		for (i = 0; i < k; i++)
			v[n].chain[i] = up[k - 1 - i];
		v[n].nchain = k;
		m = matrix_entry(g, bdf);
		if (m && jstr(m, "host_bridge"))
			snprintf(v[n].hb, sizeof(v[n].hb), "%s", jstr(m, "host_bridge"));
		else
			snprintf(v[n].hb, sizeof(v[n].hb), "pci%.7s", k ? v[n].chain[0] : bdf);
		n++;
	}
	/* Matrix devices the function list lacks. */
	if (have_fns)
		cJSON_ArrayForEach(o, g->info) {
			const char *bdf = jstr(o, "bdf");
			if (!bdf || pci_function(g->facts, bdf))
				continue;
			if (n == a) {
				a = a ? 2 * a : 16;
				v = xrealloc(v, a * sizeof(*v));
			}
			memset(&v[n], 0, sizeof(v[n]));
			v[n].bdf = bdf;
			snprintf(v[n].hb, sizeof(v[n].hb), "%s", jstr(o, "host_bridge") ? jstr(o, "host_bridge") : "?");
			n++;
		}
	*out = v;
	return n;
}

/* The CPUs of NUMA node id, or NULL. */
static const char *node_cpus(const cJSON *facts, double id)
{
	const cJSON *nd;
	cJSON_ArrayForEach(nd, jget(facts, "numa.nodes"))
		if (jnum(nd, "id") == id)
			return jstr(nd, "cpus");
	return NULL;
}

size_t svg_pci_places(struct svg *g, struct pci_place **out)
{
	struct dev *v;
	size_t n = devices(g, &v), i, j, np = 0;
	struct pci_place *p = xcalloc(n + 1, sizeof(*p));
	for (i = 0; i < n; i++) {
		for (j = 0; j < np && strcmp(p[j].hb, v[i].hb); j++)
			;
		if (j < np)
			continue;
		p[np].hb = xstrdup(v[i].hb);
		p[np].cpus = hwloc_bitmap_alloc();
		p[np].node = -1;
		/* The locality: a device's NUMA node, else its local CPUs. */
		{
			const cJSON *o;
			cJSON_ArrayForEach(o, g->info) {
				const char *h = jstr(o, "host_bridge");
				double nn = jnum(o, "numa_node");
				if (!h || strcmp(h, p[np].hb))
					continue;
				/* As hwloc: the local CPUs the bus reports, else the node's. */
				if (jstr(o, "local_cpus") && *jstr(o, "local_cpus")) {
					hwloc_bitmap_t s = svg_set_of(jstr(o, "local_cpus"));
					hwloc_bitmap_copy(p[np].cpus, s);
					hwloc_bitmap_free(s);
					if (!hwloc_bitmap_iszero(p[np].cpus))
						break;
				}
				if (!isnan(nn) && nn >= 0 && nn < 1 << 20 && node_cpus(g->facts, nn)) {
					hwloc_bitmap_t s = svg_set_of(node_cpus(g->facts, nn));
					p[np].node = (int)nn;
					hwloc_bitmap_copy(p[np].cpus, s);
					hwloc_bitmap_free(s);
					break;
				}
			}
		}
		np++;
	}
	free(v);
	*out = p;
	return np;
}

void svg_pci_places_free(struct pci_place *p, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		free((char *)p[i].hb);
		hwloc_bitmap_free(p[i].cpus);
	}
	free(p);
}

static int is_switch(const struct svg *g, const char *bdf)
{
	const cJSON *o, *s;
	cJSON_ArrayForEach(o, g->info)
		cJSON_ArrayForEach(s, jget(o, "switches"))
			if (cJSON_IsString(s) && !strcmp(s->valuestring, bdf))
				return 1;
	return 0;
}

/* A device's card: its name, where it is, and its link strip. */
static void card(struct svg *g, struct box *parent, const char *bdf)
{
	const cJSON *e = pci_entry(g->facts, bdf), *fn = pci_function(g->facts, bdf), *m = matrix_entry(g, bdf);
	const char *mkind = jstr(m, "kind");
	unsigned cls = class_of(fn);
	const char *part = mkind ? mkind : (cls >> 8) == 0x01 ? "storage" : (cls >> 8) == 0x02 ? "network" :
			   (cls >> 8) == 0x03 ? "display" : "device";
	const char *label = mkind && !strcmp(mkind, "nic") ? "NIC" : mkind && !strcmp(mkind, "nvme") ? "NVMe" :
			    mkind && !strcmp(mkind, "accelerator") ? "Accelerator" : "PCI";
	double nn = jnum(m, "numa_node"), grp = jnum(m, "iommu_group"), mbps = jnum(e, "speed_mbps");
	struct box *c = box_new(parent, part, "#ffffff", C_LINE), *l;
	char t[256], lk[96];
	size_t k = 0;
	box_attr(c, "data-bdf", "%s", bdf);
	c->min_w = 200;
	c->size = 11;
	box_line(c, 0, "%s %s", label, short_bdf(bdf));
	box_line(c, 1, "%s", jstr(e, "device") ? jstr(e, "device") : fn ? class_name(cls) :
		 mkind && !strcmp(mkind, "nvme") ? "NVMe controller" : "device not named");
	t[0] = '\0';
	if (jstr(e, "interface"))
		k += (size_t)snprintf(t + k, sizeof(t) - k, "%s \xc2\xb7 ", jstr(e, "interface"));
	if (!isnan(mbps) && k < sizeof(t))
		k += (size_t)snprintf(t + k, sizeof(t) - k, "%g Gb/s \xc2\xb7 ", mbps / 1000);
	if (m && k < sizeof(t))
		k += (size_t)snprintf(t + k, sizeof(t) - k, isnan(nn) || nn < 0 ? "NUMA unknown \xc2\xb7 " :
				      "NUMA %.0f \xc2\xb7 ", nn);
	if (!isnan(grp) && k < sizeof(t))
		k += (size_t)snprintf(t + k, sizeof(t) - k, "IOMMU %.0f \xc2\xb7 ", grp);
	if (cJSON_IsTrue(jget(m, "acs.p2p_redirected")) && k < sizeof(t))
		k += (size_t)snprintf(t + k, sizeof(t) - k, "ACS redirect \xc2\xb7 ");
	if (k >= 4 && k < sizeof(t))
		t[k - 4] = '\0';   /* the last " · " */
	if (t[0])
		box_line(c, 2, "%s", t);
	if (!m && !e && fn && class_unread(fn)) {
		/* Present (the kernel lists it), its identity unreadable; the
		 * line leaves out the function's own directory (the card names
		 * it), the title has the whole reason. */
		const char *why = class_gap(g, fn), *w = why;
		char dir[80];
		snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s/", bdf);
		if (w && str_startswith(w, dir) && w[strlen(dir)])
			w += strlen(dir);
		c->dashed = 1;
		box_mark(c, svg_mark_of(g, "dev:%s", bdf));
		box_line(c, 1, "unreadable: %s", w ? w : "class not read");
		box_title(c, "%s %s: listed by the kernel, unreadable: %s", label, bdf,
			  why ? why : "its class could not be read (the gaps say why)");
		return;
	}
	box_mark(c, svg_mark_of(g, "dev:%s", bdf));
	box_title(c, "%s %s: %s", label, bdf, jstr(e, "device") ? jstr(e, "device") : fn ? class_name(cls) : "");
	if (link_text(e ? jget(e, "link") : jget(fn, "link"), lk, sizeof(lk))) {
		l = box_new(c, "link", "#eaeef2", C_LINE);
		l->stretch = 1;
		l->size = 10;
		l->rx = 2;
		box_line(l, 1, "%s", lk);
		box_mark(l, svg_mark_of(g, "link:%s", bdf));
		box_title(l, "link of %s: %s", bdf, lk);
	}
}

struct made { const char *bdf; struct box *b; };

void svg_pci_box(struct svg *g, struct box *parent, const char *hb)
{
	struct dev *v;
	size_t n = devices(g, &v), i, nm = 0;
	struct made *made = xcalloc(n * 17 + 1, sizeof(*made));
	struct box *h = box_new(parent, "host-bridge", "#fbfcfd", C_LINE);
	box_attr(h, "data-bridge", "%s", hb);
	box_line(h, 0, "Host bridge %s", hb);
	box_title(h, "PCI host bridge %s", hb);
	for (i = 0; i < n; i++) {
		struct box *at = h;
		int k;
		if (strcmp(v[i].hb, hb))
			continue;
		for (k = 0; k < v[i].nchain; k++) {
			const char *b = v[i].chain[k];
			size_t j;
			for (j = 0; j < nm && strcmp(made[j].bdf, b); j++)
				;
			if (j == nm) {
				struct box *x = box_new(at, is_switch(g, b) ? "switch" : "bridge", "#f3f5f7", C_LINE);
				char lk[96];
				box_attr(x, "data-bdf", "%s", b);
				box_line(x, 0, "%s %s", is_switch(g, b) ? "Switch" : "PCI bridge", short_bdf(b));
				box_title(x, "%s %s", is_switch(g, b) ? "PCIe switch, upstream port" : "PCI bridge", b);
				if (is_switch(g, b) && link_text(jget(pci_function(g->facts, b), "link"), lk, sizeof(lk))) {
					struct box *u = box_new(x, "uplink", "#e6eaef", C_LINE);
					u->stretch = 1;
					u->size = 10;
					u->rx = 2;
					box_line(u, 1, "uplink %s", lk);
					box_mark(u, svg_mark_of(g, "up:%s", b));
					box_title(u, "uplink of switch %s: %s", b, lk);
				}
				made[nm].bdf = b;
				made[nm++].b = x;
			}
			at = made[j].b;
		}
		card(g, at, v[i].bdf);
	}
	free(made);
	free(v);
}
