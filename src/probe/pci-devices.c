/* probe/pci-devices.c - pci.accelerators and pci.nics: identity, locality, interface, upstream port, shared uplink; the topology_matrix */
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
#include <stdlib.h>
#include <string.h>

/*** JSON ***/

void pci_hex_id(cJSON *o, const char *key, int have, unsigned v, int digits)
{
	char buf[16];
	if (!have) {
		cJSON_AddNullToObject(o, key);
		return;
	}
	snprintf(buf, sizeof(buf), "%0*x", digits, v);
	cJSON_AddStringToObject(o, key, buf);
}

/* The package the local CPUs belong to (one package, or null): member
 * package of the device's context. */
static void package_json(struct path_cxt *dev, struct pci_scan *s, hwloc_const_bitmap_t set)
{
	struct path_cxt pc = *dev;
	int cpu, pkg = -1, other = -1, r = 0, read = 0;
	pc_setdir(&pc, "/sys/devices/system/cpu");
	hwloc_bitmap_foreach_begin(cpu, set) {
		int v2;
		if (cpu >= SR_MAX_CPUS)
			break;
		if (cpu >= s->npkg) {
			/* Room up to this CPU, grown by doubling. */
			int n = s->npkg ? s->npkg : 64;
			while (n <= cpu)
				n *= 2;
			s->pkg = xrealloc(s->pkg, (size_t)n * sizeof(*s->pkg));
			memset(s->pkg + s->npkg, 0, (size_t)(n - s->npkg) * sizeof(*s->pkg));
			s->npkg = n;
		}
		if (s->pkg[cpu] == 0) {
			int64_t v;
			r = pc_read_s64(&pc, &v, "cpu%d/topology/physical_package_id", cpu);
			read = 1;
			s->pkg[cpu] = r == 0 && v >= 0 && v < 65536 ? (int)v + 2 : 1;
			if (r == 0 && s->pkg[cpu] == 1)
				r = -EINVAL;
		}
		v2 = s->pkg[cpu] - 2;
		if (v2 < 0) {
			pkg = -2;
			break;
		}
		if (pkg == -1)
			pkg = v2;
		else if (v2 != pkg)
			other = v2;
	} hwloc_bitmap_foreach_end();
	if (pkg >= 0 && other < 0) {
		fj_num(pc.obj, "package", pkg);
		pc_evidence_of(&pc, "package", "/sys/devices/system/cpu/cpuN/topology/physical_package_id");
	} else {
		cJSON_AddNullToObject(pc.obj, "package");
		if (pkg >= 0)
			pc_gap(&pc, "package", "its local CPUs span packages %d and %d", pkg, other);
		else if (read && r < 0)
			pc_gap_read(&pc, "package", r);
		else
			pc_gap(&pc, "package", "the package of its local CPUs is unreadable");
	}
}

/* numa_node, local_cpus and package of the device's context. */
static void numa_json(struct path_cxt *pc, struct pci_scan *s, const struct pdev *p)
{
	cJSON *o = pc->obj;
	int64_t node;
	int r;
	hwloc_bitmap_t set;
	if (!p->sys) {
		cJSON_AddNullToObject(o, "numa_node");
		pc_gap(pc, "numa_node", "a PCI config dump holds no NUMA locality");
		cJSON_AddNullToObject(o, "local_cpus");
		pc_gap(pc, "local_cpus", "a PCI config dump holds no CPU locality");
		cJSON_AddNullToObject(o, "package");
		pc_gap(pc, "package", "a PCI config dump holds no CPU locality");
		return;
	}
	r = pc_read_s64(pc, &node, "numa_node");
	if (r == 0 && node >= 0 && node < SR_MAX_CPUS) {
		fj_num(o, "numa_node", (double)node);
		pc_evidence(pc, "numa_node");
	} else {
		const cJSON *nc = facts_get(pc->facts->root, "numa.node_count");
		cJSON_AddNullToObject(o, "numa_node");
		if (r == 0 && node == -1)
			pc_gap(pc, "numa_node", "firmware does not report it (numa_node is -1)%s",
			       cJSON_IsNumber(nc) && nc->valueint == 1 ? "; the host has one NUMA node" : "");
		else if (r == 0)
			pc_gap(pc, "numa_node", "%s: unexpected value %lld", pc->path, (long long)node);
		else
			pc_gap_read(pc, "numa_node", r);
	}

	set = hwloc_bitmap_alloc();
	r = pc_read_cpulist(pc, set, "local_cpulist");
	if (r == -ENOENT)
		r = pc_read_cpumask(pc, set, "local_cpus");
	if (r == 0 && !hwloc_bitmap_iszero(set)) {
		fj_list(o, "local_cpus", set);
		pc_evidence(pc, "local_cpus");
		package_json(pc, s, set);
	} else {
		cJSON_AddNullToObject(o, "local_cpus");
		if (r == 0)
			pc_gap(pc, "local_cpus", "%s: empty", pc->path);
		else
			pc_gap_read(pc, "local_cpus", r);
		cJSON_AddNullToObject(o, "package");
		pc_gap(pc, "package", "its local CPUs are unknown");
	}
	hwloc_bitmap_free(set);
}

static int host_virtualized(struct probe_ctx *ctx)
{
	const cJSON *v = facts_get(ctx->facts.root, "host.virtualized");
	struct path_cxt pc;
	char *ci = NULL;
	int r = 0;
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v);
	pc_init(&pc, &ctx->sr, NULL);
	if (pc_read(&pc, &ci, NULL, "/proc/cpuinfo") == 0)
		r = strstr(ci, " hypervisor") != NULL;
	free(ci);
	return r;
}

static void integrated_json(struct probe_ctx *ctx, struct path_cxt *pc, struct pci_scan *s, int i)
{
	const struct pdev *p = &s->d[i];
	int v;
	if (p->port_type == 9 || (p->nolink && p->link_files))
		v = 1;
	else if (pci_link_known(p) || p->w_cur > 0)
		v = 0;
	else if (p->parent != NO_PARENT)
		v = 0;   /* behind a bridge: a card of its own */
	else if (p->bus == 0 && p->nolink)
		v = 1;   /* conventional function on the root bus */
	else if (p->bus == 0 && !host_virtualized(ctx))
		v = p->link_files || p->sys == NULL ? -1 : 1;
	else
		v = -1;
	fj_bool_or_null(pc->obj, "integrated", v);
	if (v < 0)
		pc_gap(pc, "integrated", host_virtualized(ctx) ?
		       "a virtual machine's bus: no link to tell an integrated from a passed-through device" :
		       "no link information and no bridge above it");
}

/*
 * The RoCE ECN settings of a network interface, where its driver has them:
 * NVIDIA's mlx5 driver (MLNX_OFED) keeps one file per priority (0-7) for
 * each end of congestion control, /sys/class/net/IF/ecn/roce_np/enable/N
 * (notification point: marks CNPs) and .../roce_rp/enable/N (reaction
 * point: slows the sender), each "1" or "0".  Other drivers have no ecn/
 * directory: the member is then left out (nothing to check), never a gap.
 * roce_ecn: {"np": [priorities on], "rp": [...]}, or null and a gap.
 */
static void roce_ecn_json(struct path_cxt *dev, const char *netdir, const char *ifname)
{
	static const char *const ends[] = { "np", "rp" };
	struct path_cxt pc = *dev;
	cJSON *e, *l;
	size_t k;
	int prio;
	pc_setdir(&pc, "/sys/class/net/%s/ecn", ifname);
	if (!pc_is_dir(&pc, "%s", pc.dir)) {
		pc_setdir(&pc, "%s/%s/ecn", netdir, ifname);
		if (!pc_is_dir(&pc, "%s", pc.dir))
			return;
	}
	e = cJSON_CreateObject();
	for (k = 0; k < ARRAY_SIZE(ends) && e; k++) {
		l = cJSON_AddArrayToObject(e, ends[k]);
		for (prio = 0; prio < 8; prio++) {
			int64_t v;
			int r = pc_read_s64(&pc, &v, "roce_%s/enable/%d", ends[k], prio);
			if (r == 0 && (v == 0 || v == 1)) {
				if (v)
					cJSON_AddItemToArray(l, cJSON_CreateNumber(prio));
				continue;
			}
			if (r == 0 || r == -EINVAL)
				pc_gap(&pc, "roce_ecn", "%s: neither 0 nor 1", pc.path);
			else
				pc_gap_read(&pc, "roce_ecn", r);
			cJSON_Delete(e);
			e = NULL;
			break;
		}
	}
	if (e) {
		cJSON_AddItemToObject(pc.obj, "roce_ecn", e);
		pc_evidence_of(&pc, "roce_ecn", pc.dir);
	} else
		cJSON_AddNullToObject(pc.obj, "roce_ecn");
}

static void nic_json(struct path_cxt *pc, const struct pdev *p)
{
	cJSON *o = pc->obj;
	char **names = NULL, dir[sizeof(pc->path)];
	size_t n = 0;
	int r;
	if (!p->sys) {
		cJSON_AddNullToObject(o, "interface");
		cJSON_AddNullToObject(o, "speed_mbps");
		cJSON_AddNullToObject(o, "operstate");
		pc_gap(pc, "interface", "a PCI config dump holds no network interfaces");
		return;
	}
	r = pc_list(pc, &names, &n, "net");
	if (r == -ENOENT) {
		/* virtio-net: the interface hangs off the virtio device. */
		char **sub = NULL;
		size_t ns = 0, k;
		char first[sizeof(pc->path)];
		snprintf(first, sizeof(first), "%s", pc->path);
		if (pc_list(pc, &sub, &ns, "%s", p->sys) == 0)
			for (k = 0; k < ns && r < 0; k++)
				if (str_startswith(sub[k], "virtio"))
					r = pc_list(pc, &names, &n, "%s/net", sub[k]);
		sr_free_list(sub, ns);
		if (r < 0)
			pc_name(pc, "%s", first);   /* the gap names the device's own net/ */
	}
	snprintf(dir, sizeof(dir), "%s", pc->path);
	if (r < 0 || n == 0) {
		cJSON_AddNullToObject(o, "interface");
		cJSON_AddNullToObject(o, "speed_mbps");
		cJSON_AddNullToObject(o, "operstate");
		if (r == -ENOENT || n == 0)
			pc_gap(pc, "interface", "%s: missing (no driver bound, or the port is used by RDMA only)", dir);
		else
			pc_gap_read(pc, "interface", r);
	} else {
		char speed[sizeof(pc->path)], *op = NULL;
		int64_t mbps;
		int ro;
		cJSON_AddStringToObject(o, "interface", names[0]);
		pc_evidence(pc, "interface");
		r = pc_read_s64(pc, &mbps, "/sys/class/net/%s/speed", names[0]);
		if (r < 0)
			r = pc_read_s64(pc, &mbps, "%s/%s/speed", dir, names[0]);
		snprintf(speed, sizeof(speed), "%s", pc->path);
		/* The kernel's operstate says whether the link is up: speed -1
		 * with the link up is a driver that reports no speed (virtio). */
		ro = pc_read_str(pc, &op, "/sys/class/net/%s/operstate", names[0]);
		if (ro < 0)
			ro = pc_read_str(pc, &op, "%s/%s/operstate", dir, names[0]);
		fj_str_or_null(o, "operstate", ro == 0 && *op ? op : NULL);
		pc_name(pc, "%s", speed);
		if (r == 0 && mbps > 0) {
			fj_num(o, "speed_mbps", (double)mbps);
			pc_evidence(pc, "speed_mbps");
		} else {
			cJSON_AddNullToObject(o, "speed_mbps");
			if ((r == 0 || r == -EINVAL) && ro == 0 && !strcmp(op, "up"))
				pc_gap(pc, "speed_mbps", "%s: the driver reports no speed (%s), the link is up",
				       speed, r == 0 ? "-1" : "empty or unparsable");
			else if (r == 0 || r == -EINVAL)
				pc_gap(pc, "speed_mbps", "%s: no link (%s)", speed,
				       ro == 0 ? "interface not up" : "cable unplugged or interface down");
			else
				pc_gap_read(pc, "speed_mbps", r);
		}
		free(op);
		roce_ecn_json(pc, dir, names[0]);
	}
	sr_free_list(names, n);
}

/* Why a device has no port above it (the gap of pc's key).  On bus 00, or
 * placed by its sysfs path, it sits on a root bus; a device on another bus
 * whose bridge the capture lacks (a dump of one card) has a port above it
 * that is unknown. */
static void no_port_gap(struct path_cxt *pc, const struct pdev *p, const char *key)
{
	if (p->bus != 0 && !p->nanc)
		pc_gap(pc, key, "no bridge to bus %02x in the %s: the port above it is unknown",
		       p->bus, p->sys ? "sysfs capture" : "PCI dump");
	else
		pc_gap(pc, key, "on the root bus: no port above it");
}

static void upstream_json(struct probe_ctx *ctx, struct path_cxt *pc, struct pci_scan *s, int i)
{
	const struct pdev *p = &s->d[i];
	cJSON *o = pc->obj, *u;
	if (p->parent == NO_PARENT) {
		cJSON_AddNullToObject(o, "upstream");
		no_port_gap(pc, p, "upstream");
	} else {
		const struct pdev *q = &s->d[p->parent];
		u = cJSON_AddObjectToObject(o, "upstream");
		cJSON_AddStringToObject(u, "bdf", q->bdf);
		fj_num_or_null(u, "width_max", pci_link_known(q), q->w_max);
		pci_speed_num(u, "speed_gts_max", pci_link_known(q) ? q->s_max : 0);
		if (!pci_link_known(q)) {
			int unk;
			cJSON_Delete(pci_link_json(ctx, s, p->parent, pc, "upstream", 0, &unk));
		} else
			pci_add_link_evidence(s, q, pc, "upstream");
	}
}

static void shared_json(struct path_cxt *pc, struct pci_scan *s, int i)
{
	int up = pci_uplink_of(s, i), q, unknown = 0;
	size_t j;
	cJSON *o = pc->obj, *sh, *devs;
	uint64_t sum = 0, cap;
	const struct pdev *u;
	if (up < 0) {
		cJSON_AddNullToObject(o, "shared_uplink");
		no_port_gap(pc, &s->d[i], "shared_uplink");
		return;
	}
	u = &s->d[up];
	sh = cJSON_AddObjectToObject(o, "shared_uplink");
	cJSON_AddStringToObject(sh, "bdf", u->bdf);
	cJSON_AddStringToObject(sh, "kind", pci_is_switch_up(u) ? "switch" : "root_port");
	devs = cJSON_AddArrayToObject(sh, "devices");
	for (j = 0; j < s->n; j++) {
		const struct pdev *p = &s->d[j];
		size_t k;
		int dup = 0;
		if (p->kind != s->d[i].kind || pci_uplink_of(s, (int)j) != up)
			continue;
		/* Functions of one device share its link: count it once. */
		for (k = 0; k < j; k++)
			if (s->d[k].kind == p->kind && s->d[k].dom == p->dom && s->d[k].bus == p->bus &&
			    s->d[k].dev == p->dev && pci_uplink_of(s, (int)k) == up)
				dup = 1;
		cJSON_AddItemToArray(devs, cJSON_CreateString(p->bdf));
		if (dup)
			continue;
		if (pci_usable_max(s, (int)j) == 0)
			unknown = 1;
		sum += pci_usable_max(s, (int)j);
	}
	/* The uplink: the port's own link, capped by the port above it. */
	cap = pci_link_known(u) ? pci_link_bandwidth(u->s_max, u->w_max) : 0;
	q = u->parent;
	if (cap && pci_is_switch_up(u) && q != NO_PARENT && pci_link_known(&s->d[q])) {
		uint64_t c2 = pci_link_bandwidth(s->d[q].s_max < u->s_max ? s->d[q].s_max : u->s_max,
						 s->d[q].w_max < u->w_max ? s->d[q].w_max : u->w_max);
		if (c2 < cap)
			cap = c2;
	}
	fj_num_or_null(sh, "width_max", pci_link_known(u), u->w_max);
	pci_speed_num(sh, "speed_gts_max", pci_link_known(u) ? u->s_max : 0);
	fj_num_or_null(sh, "bandwidth_bytes_per_s", cap > 0, (double)cap);
	fj_num_or_null(sh, "devices_bandwidth_bytes_per_s", !unknown, (double)sum);
	fj_num_or_null(sh, "ratio", cap > 0 && !unknown, cap ? round((double)sum / (double)cap * 100) / 100 : 0);
	fj_bool_or_null(sh, "oversubscribed", cap > 0 && !unknown ? sum > cap : -1);
	if (!cap || unknown)
		pc_gap(pc, "shared_uplink", "%s", !cap ? "the uplink's link width or speed is unknown"
					       : "a device's link width or speed is unknown");
}

cJSON *pci_device_json(struct probe_ctx *ctx, struct pci_scan *s, int i, const char *list)
{
	const struct pdev *p = &s->d[i];
	cJSON *o = cJSON_CreateObject();
	char *vn = NULL, *dn = NULL;
	struct path_cxt pc;
	int unk;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	if (p->sys)
		pc_setdir(&pc, "%s", p->sys);
	pc_setobj(&pc, o, "pci.%s[%d]", list, p->json_index);
	cJSON_AddStringToObject(o, "bdf", p->bdf);
	pci_hex_id(o, "vendor_id", p->have_ids, p->vendor, 4);
	pci_hex_id(o, "device_id", p->have_ids, p->device, 4);
	pci_hex_id(o, "class", p->have_ids, p->cls >> 8, 4);
	if (p->have_ids) {
		vn = pci_vendor_name(p->vendor);
		dn = pci_device_name(p->vendor, p->device);
	}
	if (p->sys) {
		pc_name(&pc, "%s", p->ids_file && !strcmp(p->ids_file, "uevent") ? "uevent" : "class");
		pc_evidence(&pc, "class");
	} else if (s->cfg_evidence && *s->cfg_evidence)
		pc_evidence_of(&pc, "class", s->cfg_evidence);
	fj_str_or_null(o, "vendor", vn);
	fj_str_or_null(o, "device", dn);
	if (!vn || !dn)
		pc_gap(&pc, "device", "not in pci.ids (or no pci.ids installed)");
	free(vn);
	free(dn);
	numa_json(&pc, s, p);
	if (p->kind == PCI_ACCEL)
		integrated_json(ctx, &pc, s, i);
	if (p->kind == PCI_NIC)
		nic_json(&pc, p);
	cJSON_AddItemToObject(o, "link", pci_link_json(ctx, s, i, &pc, "link", p->kind == PCI_ACCEL, &unk));
	upstream_json(ctx, &pc, s, i);
	shared_json(&pc, s, i);
	return o;
}

const char *pci_kind_name(enum pci_kind k)
{
	return k == PCI_ACCEL ? "accelerator" : k == PCI_NIC ? "nic" : k == PCI_BRIDGE ? "bridge" : "other";
}

/* nvidia-smi topo -m vocabulary between two accelerators. */
static const char *relation(struct pci_scan *s, int a, int b, const cJSON *accels)
{
	int x, y, hx = 0, hy;
	const struct pdev *pa = &s->d[a], *pb = &s->d[b];
	if (a == b)
		return "X";
	for (x = pa->parent; x != NO_PARENT && hx++ < 64; x = s->d[x].parent) {
		for (y = pb->parent, hy = 0; y != NO_PARENT && hy++ < 64; y = s->d[y].parent)
			if (x == y) {
				/* One bridge, or one switch (its upstream port with
				 * each device right below a downstream port). */
				if (pa->parent == pb->parent)
					return "PIX";
				if (pci_is_switch_up(&s->d[x]) && pa->parent != NO_PARENT && pb->parent != NO_PARENT &&
				    s->d[pa->parent].parent == x && s->d[pb->parent].parent == x)
					return "PIX";
				return "PXB";
			}
	}
	if (!strcmp(pa->root, pb->root))
		return "PHB";
	{
		const cJSON *na = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(accels, pa->json_index),
								   "numa_node");
		const cJSON *nb = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(accels, pb->json_index),
								   "numa_node");
		if (!cJSON_IsNumber(na) || !cJSON_IsNumber(nb))
			return "?";
		return na->valueint == nb->valueint ? "NODE" : "SYS";
	}
}

void pci_topology_matrix(struct pci_scan *s, cJSON *pci, const cJSON *accels)
{
	cJSON *m, *devs, *rows;
	size_t i, j;
	int n = 0;
	for (i = 0; i < s->n; i++)
		n += s->d[i].kind == PCI_ACCEL;
	if (n < 2)
		return;
	m = cJSON_AddObjectToObject(pci, "topology_matrix");
	devs = cJSON_AddArrayToObject(m, "devices");
	rows = cJSON_AddArrayToObject(m, "rows");
	for (i = 0; i < s->n; i++) {
		cJSON *row;
		if (s->d[i].kind != PCI_ACCEL)
			continue;
		cJSON_AddItemToArray(devs, cJSON_CreateString(s->d[i].bdf));
		row = cJSON_CreateArray();
		for (j = 0; j < s->n; j++)
			if (s->d[j].kind == PCI_ACCEL)
				cJSON_AddItemToArray(row, cJSON_CreateString(relation(s, (int)i, (int)j, accels)));
		cJSON_AddItemToArray(rows, row);
	}
}
