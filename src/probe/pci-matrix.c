/* probe/pci-matrix.c - pci.matrix: accelerators, NICs and NVMe, the paths between them, IOMMU groups, ACS, BARs */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "read/path.h"
#include "lib/output.h"
#include "read/libpci.h"
#include "probe/pci.h"
#include "lib/util.h"
#include "probe/pci-internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/*** The device matrix (pci.matrix): accelerators, NICs, NVMe ***/

/* The matrix's gaps, one per fact over its devices ("pci.matrix.info[].acs
 * .p2p_redirected: 3 of 8 devices; the first: ..."), as pci.devices[].link:
 * a machine without an IOMMU would otherwise say so once per device. */
static struct mx_gaps {
	char key[96], *why;
	int n;
} mxg[16];
static size_t nmxg;

/* The gap of pc's member mkey (pci.matrix.info[3].bars), counted under
 * pci.matrix.info[].bars. */
static void mx_gap(struct path_cxt *pc, const char *mkey, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void mx_gap(struct path_cxt *pc, const char *mkey, const char *fmt, ...)
{
	const char *fact = pc_fact(pc, mkey);
	char key[96];
	const char *lb = strchr(fact, '['), *rb = lb ? strchr(lb, ']') : NULL;
	size_t i;
	va_list ap;
	if (lb && rb)
		snprintf(key, sizeof(key), "%.*s[]%s", (int)(lb - fact), fact, rb + 1);
	else
		snprintf(key, sizeof(key), "%s", fact);
	for (i = 0; i < nmxg && strcmp(mxg[i].key, key); i++)
		;
	if (i == nmxg) {
		if (nmxg == ARRAY_SIZE(mxg))
			return;
		snprintf(mxg[i].key, sizeof(mxg[i].key), "%s", key);
		va_start(ap, fmt);
		mxg[i].why = xvasprintf(fmt, ap);
		va_end(ap);
		mxg[i].n = 0;
		nmxg++;
	}
	mxg[i].n++;
}

static void mx_gaps_flush(struct facts *f, size_t ndev)
{
	size_t i;
	for (i = 0; i < nmxg; i++) {
		if (ndev == 1)
			facts_gap(f, mxg[i].key, "%s", mxg[i].why);
		else
			facts_gap(f, mxg[i].key, "%d of %zu devices; the first: %s", mxg[i].n, ndev, mxg[i].why);
		free(mxg[i].why);
	}
	nmxg = 0;
}

static int is_nvme(const struct pdev *p)
{
	return p->have_ids && (p->cls >> 8) == 0x0108;
}

/* Its order in the matrix (accelerators, NICs, NVMe), or -1: not in it. */
static int mx_rank(const struct pdev *p)
{
	return p->kind == PCI_ACCEL ? 0 : p->kind == PCI_NIC ? 1 : is_nvme(p) ? 2 : -1;
}

static const char *mx_kind(const struct pdev *p)
{
	return p->kind == PCI_ACCEL ? "accelerator" : p->kind == PCI_NIC ? "nic" : "nvme";
}

/* The switch a bridge belongs to (its upstream port), else the bridge. */
static int hop_unit(const struct pci_scan *s, int q)
{
	int up = s->d[q].parent;
	if (pci_is_switch_up(&s->d[q]))
		return q;
	if (up != NO_PARENT && pci_is_switch_up(&s->d[up]))
		return up;
	return q;
}

/* The nearest bridge above both a and b, or NO_PARENT. */
static int common_bridge(const struct pci_scan *s, int a, int b)
{
	int x, y, hx = 0, hy;
	for (x = s->d[a].parent; x != NO_PARENT && hx++ < 64; x = s->d[x].parent)
		for (y = s->d[b].parent, hy = 0; y != NO_PARENT && hy++ < 64; y = s->d[y].parent)
			if (x == y)
				return x;
	return NO_PARENT;
}

/* How many switches (or lone bridges) the way from a to b crosses below
 * their common bridge l, l's own included. */
static int units_between(const struct pci_scan *s, int a, int b, int l)
{
	int units[130], n = 0, side, x, hops, k, u;
	for (side = 0; side < 3; side++) {
		x = side == 0 ? s->d[a].parent : side == 1 ? s->d[b].parent : l;
		for (hops = 0; x != NO_PARENT && hops++ < 64; x = s->d[x].parent) {
			if (side < 2 && x == l)
				break;
			u = hop_unit(s, x);
			for (k = 0; k < n && units[k] != u; k++)
				;
			if (k == n && n < (int)ARRAY_SIZE(units))
				units[n++] = u;
			if (side == 2)
				break;
		}
	}
	return n;
}

/*
 * The nvidia-smi topo -m class between devices a and b: X itself, PIX at
 * most one switch (or one bridge) between them, PXB several bridges below
 * the host bridge, PHB the same host bridge, NODE host bridges of one NUMA
 * node, SYS across NUMA nodes; NULL where that needs a NUMA node nobody
 * knows (with one NUMA node on the host, every device is on it).
 */
static const char *path_class(const struct pci_scan *s, int a, int b, const int *numa, int one_node)
{
	int l;
	if (a == b)
		return "X";
	l = common_bridge(s, a, b);
	if (l != NO_PARENT)
		return units_between(s, a, b, l) <= 1 ? "PIX" : "PXB";
	if (s->d[a].root[0] && !strcmp(s->d[a].root, s->d[b].root))
		return "PHB";
	if (numa[a] >= 0 && numa[b] >= 0)
		return numa[a] == numa[b] ? "NODE" : "SYS";
	return one_node ? "NODE" : NULL;
}

/* ACS on the way from device i to the root: the ports above it (root and
 * switch downstream ports) that redirect peer-to-peer requests upstream. */
static void acs_json(struct probe_ctx *ctx, struct path_cxt *dev, struct pci_scan *s, int i)
{
	cJSON *a = cJSON_AddObjectToObject(dev->obj, "acs"), *ports = cJSON_CreateArray();
	int q, hops = 0, unread = 0, nports = 0;
	const char *why = NULL;
	struct path_cxt pc = *dev;
	pc_setobj(&pc, a, "%s.acs", dev->at);
	for (q = s->d[i].parent; q != NO_PARENT && hops++ < 64; q = s->d[q].parent) {
		struct pdev *b = &s->d[q];
		int cap;
		uint32_t v;
		if (pci_is_switch_up(b))
			continue;
		nports++;
		pci_ext_info(ctx, b);
		cap = b->acs;
		v = b->acs_word;
		if (cap < 0) {
			unread++;
			why = pci_ext_why(ctx, b, cap);
			continue;
		}
		/* ACS Control, bit 2: P2P Request Redirect. */
		if (cap > 0 && (v >> 16 & 0x4))
			cJSON_AddItemToArray(ports, cJSON_CreateString(b->bdf));
	}
	if (cJSON_GetArraySize(ports) > 0)
		fj_bool_or_null(a, "p2p_redirected", 1);
	else if (nports == 0) {
		fj_bool_or_null(a, "p2p_redirected", -1);
		mx_gap(&pc, "p2p_redirected", "no port above it");
	} else if (unread) {
		fj_bool_or_null(a, "p2p_redirected", -1);
		if (nports == 1)
			mx_gap(&pc, "p2p_redirected", "the port above it: %s", why);
		else
			mx_gap(&pc, "p2p_redirected", "%d of the %d ports above it: %s", unread, nports, why);
	} else
		fj_bool_or_null(a, "p2p_redirected", 0);
	cJSON_AddItemToObject(a, "redirecting_ports", ports);
}

static void iommu_json(struct path_cxt *pc, const struct pdev *p)
{
	cJSON *o = pc->obj;
	char *target = NULL, *end, link[sizeof(pc->path)];
	const char *slash;
	unsigned long g;
	int r;
	if (!p->sys) {
		cJSON_AddNullToObject(o, "iommu_group");
		cJSON_AddNullToObject(o, "iommu_group_devices");
		mx_gap(pc, "iommu_group", "a PCI config dump holds no IOMMU groups");
		return;
	}
	r = pc_readlink(pc, &target, "iommu_group");
	snprintf(link, sizeof(link), "%s", pc->path);
	slash = r == 0 ? strrchr(target, '/') : NULL;
	slash = slash ? slash + 1 : target;
	if (r == 0) {
		errno = 0;
		g = strtoul(slash, &end, 10);
		if (errno || end == slash || *end || g > 1u << 30)
			r = -EINVAL;
	}
	if (r == 0) {
		char **names = NULL;
		size_t n = 0;
		fj_num(o, "iommu_group", (double)g);
		pc_evidence(pc, "iommu_group");
		if (pc_list(pc, &names, &n, "/sys/kernel/iommu_groups/%lu/devices", g) == 0 && n > 0) {
			fj_num(o, "iommu_group_devices", (double)n);
		} else {
			cJSON_AddNullToObject(o, "iommu_group_devices");
			mx_gap(pc, "iommu_group_devices", "%s: missing or empty", pc->path);
		}
		sr_free_list(names, n);
	} else {
		cJSON_AddNullToObject(o, "iommu_group");
		cJSON_AddNullToObject(o, "iommu_group_devices");
		if (r == -ENOENT)
			mx_gap(pc, "iommu_group", "%s: missing (the IOMMU is off, or the kernel "
			       "has no IOMMU driver for this bus)", link);
		else
			mx_gap(pc, "iommu_group", "%s: %s", link, sr_reason(r));
	}
	free(target);
}

/* BARs from the sysfs resource file (start end flags, one line each; the
 * first six are the BARs), the resizable BAR capability, and the device
 * memory where the driver tells it (amdgpu's mem_info_vram_total). */
static void bars_json(struct probe_ctx *ctx, struct path_cxt *pc, struct pdev *p)
{
	cJSON *o = pc->obj;
	char *text = NULL, *line, *save = NULL;
	cJSON *bars;
	uint64_t largest = 0, mem = 0;
	int r, idx = 0, cap, have_mem = 0;
	if (!p->sys) {
		cJSON_AddNullToObject(o, "bars");
		cJSON_AddNullToObject(o, "largest_bar_bytes");
		mx_gap(pc, "bars", "a PCI config dump holds no BAR sizes");
	} else {
		r = pc_read(pc, &text, NULL, "resource");
		if (r < 0) {
			cJSON_AddNullToObject(o, "bars");
			cJSON_AddNullToObject(o, "largest_bar_bytes");
			mx_gap(pc, "bars", "%s: %s", pc->path, sr_reason(r));
		} else {
			int bad = 0;
			bars = cJSON_AddArrayToObject(o, "bars");
			for (line = strtok_r(text, "\n", &save); line && idx < 6;
			     line = strtok_r(NULL, "\n", &save), idx++) {
				unsigned long long st, en, fl;
				char tail;
				cJSON *b;
				if (sscanf(line, "%llx %llx %llx %c", &st, &en, &fl, &tail) != 3) {
					bad = 1;
					break;
				}
				if (en <= st || !(fl & 0x300))
					continue;   /* unused, or not assigned */
				b = cJSON_CreateObject();
				fj_num(b, "index", idx);
				fj_num(b, "bytes", (double)(en - st + 1));
				cJSON_AddStringToObject(b, "type", fl & 0x200 ? "memory" : "io");
				cJSON_AddBoolToObject(b, "prefetchable", (fl & 0x2000) != 0);
				cJSON_AddBoolToObject(b, "64bit", (fl & 0x100000) != 0);
				cJSON_AddItemToArray(bars, b);
				if ((fl & 0x200) && en - st + 1 > largest)
					largest = en - st + 1;
			}
			if (bad) {
				cJSON_DeleteItemFromObject(o, "bars");
				cJSON_AddNullToObject(o, "bars");
				cJSON_AddNullToObject(o, "largest_bar_bytes");
				mx_gap(pc, "bars", "%s: line %d unparsable", pc->path, idx + 1);
				largest = 0;
			} else {
				fj_num_or_null(o, "largest_bar_bytes", largest > 0, (double)largest);
				pc_evidence(pc, "bars");
			}
		}
		free(text);
	}

	/* Resizable BAR (extended capability 0x15): the first BAR it governs. */
	pci_ext_info(ctx, p);
	cap = p->rebar;
	if (cap > 0) {
		uint32_t c1 = p->rebar_cap, c2 = p->rebar_ctl;
		cJSON *rb = cJSON_AddObjectToObject(o, "resizable_bar");
		int bit = 31, cur = (int)(c2 >> 8 & 0x3f);
		while (bit >= 4 && !(c1 & 1u << bit))
			bit--;
		fj_num(rb, "bar", (double)(c2 & 7));
		fj_num(rb, "current_bytes", ldexp(1.0, cur + 20));
		fj_num_or_null(rb, "max_bytes", bit >= 4, ldexp(1.0, bit + 16));
		fj_bool_or_null(rb, "at_max", bit >= 4 ? cur + 20 >= bit + 16 : -1);
	} else if (cap == 0)
		cJSON_AddFalseToObject(o, "resizable_bar");
	else {
		cJSON_AddNullToObject(o, "resizable_bar");
		mx_gap(pc, "resizable_bar", "%s", pci_ext_why(ctx, p, cap));
	}

	if (p->kind != PCI_ACCEL)
		return;
	if (p->sys) {
		r = pc_read_u64(pc, &mem, "mem_info_vram_total");
		if (r == 0 && mem > 0) {
			have_mem = 1;
			pc_evidence(pc, "memory_bytes");
		} else if (r == 0 || r == -ENOENT)
			mx_gap(pc, "memory_bytes", "its driver exports no memory size in sysfs "
			       "(amdgpu does: mem_info_vram_total)");
		else
			mx_gap(pc, "memory_bytes", "%s: %s", pc->path, sr_reason(r));
	} else
		mx_gap(pc, "memory_bytes", "a PCI config dump holds no device memory size");
	fj_num_or_null(o, "memory_bytes", have_mem, (double)mem);
	fj_bool_or_null(o, "bar_covers_memory", have_mem && largest ? largest >= mem : -1);
}

/* The matrix's devices into idx: accelerators, NICs, NVMe, each by
 * address; how many. */
static size_t mx_order(const struct pci_scan *s, int *idx)
{
	size_t n = 0, i;
	int rank;
	for (rank = 0; rank < 3; rank++)
		for (i = 0; i < s->n; i++)
			if (mx_rank(&s->d[i]) == rank)
				idx[n++] = (int)i;
	return n;
}

/* Each matrix device's numa_node into numa[]. */
static void mx_numa(struct probe_ctx *ctx, const struct pci_scan *s, int *numa)
{
	struct path_cxt pc;
	size_t i;
	pc_init(&pc, &ctx->sr, NULL);
	for (i = 0; i < s->n; i++) {
		int64_t v;
		int r;
		numa[i] = -2;   /* -1: the firmware says -1; -2: unreadable, or no sysfs */
		if (!s->d[i].sys || mx_rank(&s->d[i]) < 0)
			continue;
		r = pc_read_s64(&pc, &v, "%s/numa_node", s->d[i].sys);
		if (r == 0 && v >= 0 && v < SR_MAX_CPUS)
			numa[i] = (int)v;
		else if (r == 0 && v == -1)
			numa[i] = -1;
	}
}

/* The CPUs local to p, or null with a gap. */
static void mx_local_cpus(struct path_cxt *pc, const struct pdev *p)
{
	cJSON *o = pc->obj;
	if (p->sys) {
		hwloc_bitmap_t set = hwloc_bitmap_alloc();
		int r = pc_read_cpulist(pc, set, "local_cpulist");
		if (r == -ENOENT)
			r = pc_read_cpumask(pc, set, "local_cpus");
		if (r == 0 && !hwloc_bitmap_iszero(set))
			fj_list(o, "local_cpus", set);
		else {
			cJSON_AddNullToObject(o, "local_cpus");
			if (r == 0)
				mx_gap(pc, "local_cpus", "%s: empty", pc->path);
			else
				mx_gap(pc, "local_cpus", "%s: %s", pc->path, sr_reason(r));
		}
		hwloc_bitmap_free(set);
	} else {
		cJSON_AddNullToObject(o, "local_cpus");
		mx_gap(pc, "local_cpus", "a PCI config dump holds no CPU locality");
	}
}

/* pci.matrix.info[i], of device di: its locality, place, IOMMU group,
 * ACS and BARs. */
static void mx_info(struct probe_ctx *ctx, struct pci_scan *s, int di, const int *numa, cJSON *o,
		    size_t i)
{
	struct pdev *p = &s->d[di];
	int up = pci_uplink_of(s, di);
	struct path_cxt pc;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	if (p->sys)
		pc_setdir(&pc, "%s", p->sys);
	pc_setobj(&pc, o, "pci.matrix.info[%zu]", i);
	cJSON_AddStringToObject(o, "bdf", p->bdf);
	cJSON_AddStringToObject(o, "kind", mx_kind(p));
	fj_num_or_null(o, "numa_node", numa[di] >= 0, numa[di]);
	if (numa[di] == -1)
		mx_gap(&pc, "numa_node", "the firmware does not report it (numa_node is -1)");
	else if (numa[di] < 0 && p->sys)
		mx_gap(&pc, "numa_node", "%s/numa_node: unreadable, unparsable or out of range", p->sys);
	else if (numa[di] < 0)
		mx_gap(&pc, "numa_node", "a PCI config dump holds no NUMA locality");
	mx_local_cpus(&pc, p);
	fj_str_or_null(o, "host_bridge", p->root[0] ? p->root : NULL);
	fj_str_or_null(o, "switch", up >= 0 && pci_is_switch_up(&s->d[up]) ? s->d[up].bdf : NULL);
	{
		/* Every switch above it, the outermost first. */
		cJSON *sws = cJSON_AddArrayToObject(o, "switches");
		int q, hops = 0;
		for (q = p->parent; q != NO_PARENT && hops++ < 64; q = s->d[q].parent)
			if (pci_is_switch_up(&s->d[q]))
				cJSON_InsertItemInArray(sws, 0, cJSON_CreateString(s->d[q].bdf));
	}
	fj_str_or_null(o, "port", p->parent != NO_PARENT ? s->d[p->parent].bdf : NULL);
	iommu_json(&pc, p);
	acs_json(ctx, &pc, s, di);
	bars_json(ctx, &pc, p);
}

/* The accelerator and NIC pairs that meet inside a switch. */
static void mx_switch_pairs(const struct pci_scan *s, const int *idx, size_t n, cJSON *pairs)
{
	size_t i, j;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			int l, a = idx[i], b = idx[j];
			cJSON *o;
			if (s->d[a].kind != PCI_ACCEL || s->d[b].kind != PCI_NIC)
				continue;
			l = common_bridge(s, a, b);
			if (l == NO_PARENT || (hop_unit(s, l) == l && !pci_is_switch_up(&s->d[l])))
				continue;   /* they meet at a root port or above */
			o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "accelerator", s->d[a].bdf);
			cJSON_AddStringToObject(o, "nic", s->d[b].bdf);
			cJSON_AddStringToObject(o, "switch", s->d[hop_unit(s, l)].bdf);
			cJSON_AddItemToArray(pairs, o);
		}
}

/* pci.matrix: every accelerator, NIC and NVMe controller (in that order,
 * each by address), the class of the way between each two, and per device
 * its locality, IOMMU group, ACS on its way up, BARs; then the accelerator
 * and NIC pairs that meet inside a switch (GPUDirect RDMA's best case). */
void pci_matrix_json(struct probe_ctx *ctx, struct pci_scan *s, cJSON *pci)
{
	cJSON *m = cJSON_AddObjectToObject(pci, "matrix"), *devs, *paths, *info, *pairs;
	const cJSON *nc = facts_get(ctx->facts.root, "numa.node_count");
	int one_node = cJSON_IsNumber(nc) && nc->valueint == 1;
	int *idx = xcalloc(s->n + 1, sizeof(*idx)), *numa = xcalloc(s->n + 1, sizeof(*numa));
	size_t n = mx_order(s, idx), i, j;
	struct path_cxt pc;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, m, "pci.matrix");
	devs = cJSON_AddArrayToObject(m, "devices");
	paths = cJSON_AddArrayToObject(m, "paths");
	info = cJSON_AddArrayToObject(m, "info");
	pairs = cJSON_AddArrayToObject(m, "switch_pairs");
	mx_numa(ctx, s, numa);
	for (i = 0; i < n; i++) {
		struct pdev *p = &s->d[idx[i]];
		cJSON *row = cJSON_CreateArray(), *o = cJSON_CreateObject();
		cJSON_AddItemToArray(devs, cJSON_CreateString(p->bdf));
		if (p->sys)
			pc_evidence_of(&pc, "paths", p->sys);
		for (j = 0; j < n; j++) {
			const char *c = path_class(s, idx[i], idx[j], numa, one_node);
			cJSON_AddItemToArray(row, c ? cJSON_CreateString(c) : cJSON_CreateNull());
		}
		cJSON_AddItemToArray(paths, row);
		mx_info(ctx, s, idx[i], numa, o, i);
		cJSON_AddItemToArray(info, o);
	}
	mx_switch_pairs(s, idx, n, pairs);
	mx_gaps_flush(&ctx->facts, n);
	free(idx);
	free(numa);
}
