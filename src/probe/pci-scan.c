/* probe/pci-scan.c - the functions on the bus: sysfs (ids, place, link files), a config dump checked */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "probe/sources.h"
#include "lib/output.h"
#include "read/path.h"
#include "read/libpci.h"
#include "probe/pci.h"
#include "lib/util.h"
#include "probe/pci-internal.h"

#include <errno.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

static int parse_hex(const char *s, unsigned *v)
{
	char *end;
	unsigned long x;
	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	x = strtoul(s, &end, 16);
	if (errno || end == s || *end || x > 0xffffff)
		return -EINVAL;
	*v = (unsigned)x;
	return 0;
}

/* The hexadecimal attribute name of device p (pc: no directory). */
static int read_hex(struct path_cxt *pc, const struct pdev *p, const char *name, unsigned *v)
{
	char *s = NULL;
	int r = pc_read_str(pc, &s, "%s/%s", p->sys, name);
	if (r == 0)
		r = parse_hex(s, v);
	free(s);
	return r;
}

static int parse_bdf(const char *s, unsigned *dom, unsigned *bus, unsigned *dev, unsigned *fn)
{
	char tail;
	if (sscanf(s, "%x:%x:%x.%u%c", dom, bus, dev, fn, &tail) != 4)
		return -1;
	return *bus < 256 && *dev < 32 && *fn < 8 ? 0 : -1;
}

int pci_pdev_cmp(const void *pa, const void *pb)
{
	const struct pdev *a = pa, *b = pb;
	if (a->dom != b->dom)
		return a->dom < b->dom ? -1 : 1;
	if (a->bus != b->bus)
		return a->bus < b->bus ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return a->fn < b->fn ? -1 : a->fn > b->fn;
}

struct pdev *pci_add_dev(struct pci_scan *s, unsigned dom, unsigned bus, unsigned dev, unsigned fn)
{
	struct pdev *p;
	if (s->n == s->a) {
		s->a = s->a ? 2 * s->a : 32;
		s->d = xrealloc(s->d, s->a * sizeof(*s->d));
	}
	p = &s->d[s->n++];
	memset(p, 0, sizeof(*p));
	p->dom = dom; p->bus = bus; p->dev = dev; p->fn = fn;
	snprintf(p->bdf, sizeof(p->bdf), "%04x:%02x:%02x.%u", dom, bus, dev, fn);
	p->parent = NO_PARENT;
	p->pcie_cap = -1;
	p->port_type = -1;
	p->sec_bus = -1;
	p->w_cur = p->w_max = -1;
	p->json_index = -1;
	p->cfgfd = -1;
	p->extfd = -1;
	return p;
}

int pci_find_bdf(const struct pci_scan *s, const char *bdf)
{
	size_t i;
	for (i = 0; i < s->n; i++)
		if (!strcmp(s->d[i].bdf, bdf))
			return (int)i;
	return -1;
}

/*** Sysfs ***/

/* Every device directory under /sys/devices/pci*: a capture copied with
 * links dereferenced (tar -h, cp -L) keeps the tree only there. */
struct dev_paths {
	char **v;
	size_t n;
	int done;
};

static void walk_pci(struct path_cxt *pc, const char *dir, int depth, struct dev_paths *dp)
{
	char **names = NULL;
	size_t n = 0, i;
	unsigned a, b, c, d;
	if (depth > 16 || pc_list(pc, &names, &n, "%s", dir) < 0)
		return;
	for (i = 0; i < n; i++) {
		char *sub;
		if (depth == 0 ? strncmp(names[i], "pci", 3) || !strchr(names[i], ':')
			       : parse_bdf(names[i], &a, &b, &c, &d) < 0)
			continue;
		if (pc_is_dir(pc, "%s/%s", dir, names[i]) <= 0)
			continue;
		sub = xstrdup(pc->path);
		if (depth > 0) {
			dp->v = xrealloc(dp->v, (dp->n + 1) * sizeof(*dp->v));
			dp->v[dp->n++] = xstrdup(sub);
		}
		walk_pci(pc, sub, depth + 1, dp);
		free(sub);
	}
	sr_free_list(names, n);
}

/* Where /sys/bus/pci/devices/BDF points: the BDFs of the bridges above it
 * and the host bridge ("pci0000:00"). */
static void sysfs_ancestry(struct path_cxt *pc, struct pdev *p, struct dev_paths *dp)
{
	char *target = NULL, *save = NULL, *tok;
	unsigned a, b, c, d;
	size_t i;
	if (pc_readlink(pc, &target, "%s", p->sys) < 0) {
		if (!dp->done) {
			walk_pci(pc, "/sys/devices", 0, dp);
			dp->done = 1;
		}
		for (i = 0; i < dp->n && !target; i++)
			if (str_endswith(dp->v[i], p->bdf) && dp->v[i][strlen(dp->v[i]) - strlen(p->bdf) - 1] == '/')
				target = xstrdup(dp->v[i]);
		if (!target)
			return;
	}
	for (tok = strtok_r(target, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strncmp(tok, "pci", 3) && strchr(tok, ':'))
			snprintf(p->root, sizeof(p->root), "%s", tok);
		else if (parse_bdf(tok, &a, &b, &c, &d) == 0 && strcmp(tok, p->bdf)) {
			p->anc = xrealloc(p->anc, (p->nanc + 1) * sizeof(*p->anc));
			p->anc[p->nanc++] = xstrdup(tok);
		}
	}
	free(target);
}

/* A sysfs speed: "8.0 GT/s PCIe", "2.5 GT/s", "Unknown". 0 unknown, -1 garbled. */
int pci_parse_speed(const char *s, double *v)
{
	char *end;
	*v = 0;
	if (!strncmp(s, "Unknown", 7))
		return 0;
	*v = strtod(s, &end);
	/* strtrim() writes only when there is trailing white space: callers
	 * pass their own (writable) copy of the sysfs value. */
	if (end == s || *v <= 0 || *v > 1024 || strncmp(strtrim(end), "GT/s", 4)) {
		*v = 0;
		return -1;
	}
	return 0;
}

void pci_sysfs_link(struct probe_ctx *ctx, struct pdev *p)
{
	static const char *const files[] = { "max_link_width", "max_link_speed",
					     "current_link_width", "current_link_speed" };
	struct path_cxt pc;
	int vals_w[2] = { -1, -1 };
	double vals_s[2] = { 0, 0 };
	int ok[4] = { 0 };
	size_t i;
	pc_init(&pc, &ctx->sr, NULL);
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		char *s = NULL;
		int r;
		/* The kernel has all four files or none (conventional PCI): the
		 * current figures mean nothing without the maximum ones. */
		if (i == 2 && !ok[0] && !ok[1] && !p->bad[0] && !p->bad[1])
			return;
		r = pc_read_str(&pc, &s, "%s/%s", p->sys, files[i]);
		if (r == 0) {
			if (i % 2 == 0) {
				uint64_t w;
				if (parse_u64(s, &w) == 0 && w <= 32) {
					vals_w[i / 2] = (int)w;
					ok[i] = 1;
				}
			} else if (pci_parse_speed(s, &vals_s[i / 2]) == 0)
				ok[i] = 1;
			if (!ok[i])
				p->bad[i] = xstrdup(pc.path);
		}
		free(s);
	}
	if (!ok[0] && !ok[1] && !p->bad[0] && !p->bad[1])
		return;
	p->link_files = 1;
	if (ok[0] && vals_w[0] == 0 && vals_s[0] == 0) {
		/* The kernel has the files for every PCIe function; a root-complex
		 * integrated endpoint reads width 0 and speed "Unknown". */
		p->nolink = 1;
		p->nolink_why = "no PCIe link of its own (sysfs reports width 0, speed unknown)";
		return;
	}
	if (ok[0] && vals_w[0] > 0)
		p->w_max = vals_w[0];
	if (ok[1])
		p->s_max = vals_s[0];
	if (ok[2])
		p->w_cur = vals_w[1];
	if (ok[3])
		p->s_cur = vals_s[1];
}

/* Vendor, device and class from the device's uevent (PCI_ID=VVVV:DDDD,
 * PCI_CLASS=CCCCCC): one file read where the three attributes cost three
 * (five system calls each).  0, or -1 when it lacks them (a hand-made
 * capture): then the attributes. */
static int read_uevent_ids(struct path_cxt *pc, struct pdev *p)
{
	char *text = NULL, *id, *cls, *end;
	unsigned long v, d, c;
	int r = -1;
	if (pc_read(pc, &text, NULL, "%s/uevent", p->sys) < 0)
		return -1;
	id = strstr(text, "\nPCI_ID=");
	id = !strncmp(text, "PCI_ID=", 7) ? text : id ? id + 1 : NULL;
	cls = strstr(text, "\nPCI_CLASS=");
	cls = !strncmp(text, "PCI_CLASS=", 10) ? text : cls ? cls + 1 : NULL;
	if (id && cls) {
		errno = 0;
		v = strtoul(id + 7, &end, 16);
		if (!errno && end == id + 11 && *end == ':') {
			d = strtoul(end + 1, &end, 16);
			if (!errno && end == id + 16 && (*end == '\n' || !*end)) {
				c = strtoul(cls + 10, &end, 16);
				if (!errno && end > cls + 10 && (*end == '\n' || !*end) && c <= 0xffffff) {
					p->vendor = (unsigned)v;
					p->device = (unsigned)d;
					p->cls = (unsigned)c;
					p->ids_file = "uevent";
					r = 0;
				}
			}
		}
	}
	free(text);
	return r;
}

int pci_scan_sysfs(struct probe_ctx *ctx, struct pci_scan *s)
{
	struct path_cxt pc;
	char **names = NULL;
	size_t n = 0, i;
	struct dev_paths dp = { NULL, 0, 0 };
	int r;
	pc_init(&pc, &ctx->sr, NULL);
	r = pc_list(&pc, &names, &n, "/sys/bus/pci/devices");
	if (r < 0)
		return r;
	for (i = 0; i < n; i++) {
		unsigned dom, bus, dev, fn;
		struct pdev *p;
		if (parse_bdf(names[i], &dom, &bus, &dev, &fn) < 0)
			continue;
		p = pci_add_dev(s, dom, bus, dev, fn);
		p->sys = xasprintf("/sys/bus/pci/devices/%s", names[i]);
		sysfs_ancestry(&pc, p, &dp);
		if (read_uevent_ids(&pc, p) == 0) {
			p->have_ids = 1;
			continue;
		}
		if ((r = read_hex(&pc, p, p->ids_file = "vendor", &p->vendor)) == 0 &&
		    (r = read_hex(&pc, p, p->ids_file = "device", &p->device)) == 0 &&
		    (r = read_hex(&pc, p, p->ids_file = "class", &p->cls)) == 0)
			p->have_ids = 1;
		p->ids_err = r;
	}
	sr_free_list(names, n);
	sr_free_list(dp.v, dp.n);
	return 0;
}
/* Read and parse a dump (through the read layer when it is in the
 * sysroot): 0 and its config space in *srcp, or -1 and why. */
int pci_read_dump(struct probe_ctx *ctx, const char *path, int in_sysroot, char **why,
		  struct pcisrc **srcp)
{
	char *buf = NULL;
	size_t len = 0;
	int r;
	if (in_sysroot)
		r = sr_read(&ctx->sr, path, &buf, &len);
	else
		r = side_read_option(ctx, SIDE_PCI, &buf, &len);
	if (r < 0) {
		*why = xstrdup(r == -EISDIR ? "not a regular file" : r == -ENOENT ? "missing" :
			       r == -EFBIG ? "too large" : sr_reason(r));
		free(buf);
		return -1;
	}
	*srcp = pci_dump_parse(buf, len, why);
	free(buf);
	return *srcp ? 0 : -1;
}

/*
 * A dump is authoritative for its own machine.  When the probed machine (live
 * or a sysroot) has a PCI bus of its own and the dump's addresses are not
 * all on it, the dump describes another machine: say so once, in conflicts
 * (the facts are the dump's, and cite it as their evidence).
 */
void pci_dump_vs_bus(struct probe_ctx *ctx, unsigned (*addrs)[4], size_t n)
{
	struct path_cxt pc;
	char **names;
	size_t nn, i, j, missing = 0;
	pc_init(&pc, &ctx->sr, NULL);
	if (pc_list(&pc, &names, &nn, "/sys/bus/pci/devices") < 0)
		return;
	for (i = 0; i < n && nn; i++) {
		char bdf[32];
		snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%x", addrs[i][0], addrs[i][1], addrs[i][2], addrs[i][3]);
		for (j = 0; j < nn && strcmp(names[j], bdf); j++)
			;
		missing += j == nn;
	}
	if (nn && (missing || n == 0))
		facts_conflict(&ctx->facts, "pci", ctx->opts->pci_dump, "/sys/bus/pci/devices",
			       "the PCI dump describes another machine: %zu of its %zu device%s %s not on the "
			       "probed machine's bus (%zu device%s there); the dump's devices are reported",
			       missing, n, n == 1 ? "" : "s", missing == 1 ? "is" : "are", nn, nn == 1 ? "" : "s");
	sr_free_list(names, nn);
}

void pci_scan_release(struct pci_scan *s)
{
	size_t i, k;
	for (i = 0; i < s->n; i++) {
		free(s->d[i].sys);
		free(s->d[i].cfg);
		for (k = 0; k < ARRAY_SIZE(s->d[i].bad); k++)
			free(s->d[i].bad[k]);
		for (k = 0; k < s->d[i].nanc; k++)
			free(s->d[i].anc[k]);
		free(s->d[i].anc);
		if (s->d[i].extfd >= 0)
			close(s->d[i].extfd);
	}
	free(s->d);
	free(s->dump_path);
	free(s->pkg);
}
