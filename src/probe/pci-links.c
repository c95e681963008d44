/* probe/pci-links.c - PCIe links: speeds, generations, bandwidth, the tree of ports above each function, the link object */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "lib/output.h"
#include "read/path.h"
#include "read/libpci.h"
#include "probe/pci.h"
#include "lib/util.h"
#include "probe/pci-internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double link_speeds[] = { 2.5, 5, 8, 16, 32, 64, 128 };

/* The Link Speed field encoding (1 = 2.5 GT/s ... 6 = 64 GT/s); 0: unknown. */
double pci_speed_code(unsigned c)
{
	return c >= 1 && c <= ARRAY_SIZE(link_speeds) ? link_speeds[c - 1] : 0;
}

static int generation(double gts)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(link_speeds); i++)
		if (fabs(gts - link_speeds[i]) < 0.01)
			return (int)i + 1;
	return 0;
}

/*
 * Usable bandwidth per direction, bytes/s, after line encoding only (no
 * TLP/DLLP overheads): 8b/10b at 2.5 and 5 GT/s, 128b/130b at 8, 16 and
 * 32 GT/s.  From 64 GT/s (PCIe 6, PAM4) links run in FLIT mode with 1b/1b
 * encoding; we count the 242 bytes of TLP and DLLP payload in each
 * 256-byte FLIT (the rest is CRC and FEC), i.e. 242/256.
 */
uint64_t pci_link_bandwidth(double gts, int width)
{
	uint64_t mt = (uint64_t)llround(gts * 1000), num, den;
	if (gts <= 0 || width <= 0)
		return 0;
	if (gts < 8) {
		num = 8; den = 10;
	} else if (gts < 64) {
		num = 128; den = 130;
	} else {
		num = 242; den = 256;
	}
	return mt * 1000000u * (uint64_t)width * num / (den * 8);
}
/*** Topology ***/

void pci_link_parents(struct pci_scan *s)
{
	size_t i, j;
	for (i = 0; i < s->n; i++) {
		struct pdev *p = &s->d[i];
		size_t k;
		/* sysfs: the nearest BDF in the device's path that we know. */
		for (k = p->nanc; k-- > 0;) {
			int idx = pci_find_bdf(s, p->anc[k]);
			if (idx >= 0) {
				p->parent = idx;
				break;
			}
		}
		/* Else (a dump, a copy without symlinks): the bridge whose
		 * secondary bus is this device's bus. */
		if (p->parent == NO_PARENT && !p->nanc)
			for (j = 0; j < s->n; j++)
				if (j != i && s->d[j].dom == p->dom && s->d[j].sec_bus == (int)p->bus &&
				    p->bus != 0) {
					p->parent = (int)j;
					break;
				}
	}
	for (i = 0; i < s->n; i++) {
		struct pdev *p = &s->d[i];
		int top = (int)i, hops = 0;
		if (p->parent != NO_PARENT && s->d[p->parent].kind == PCI_BRIDGE)
			s->d[p->parent].nbridges += p->kind == PCI_BRIDGE;
		if (!p->root[0]) {
			while (s->d[top].parent != NO_PARENT && hops++ < 64)
				top = s->d[top].parent;
			snprintf(p->root, sizeof(p->root), "%04x:%02x", s->d[top].dom, s->d[top].bus);
		}
	}
}

/* A switch's upstream port: by its PCIe port type, else a bridge with two
 * or more bridges (the switch's downstream ports) below it. */
int pci_is_switch_up(const struct pdev *p)
{
	if (p->kind != PCI_BRIDGE)
		return 0;
	if (p->port_type >= 0)
		return p->port_type == 5;
	return p->nbridges >= 2;
}

/* The link every byte of device i crosses on its way to the CPU: the
 * nearest switch upstream port above it, else its root port (the top-most
 * bridge). -1 when nothing is above it. */
int pci_uplink_of(const struct pci_scan *s, int i)
{
	int q = s->d[i].parent, last = -1, hops = 0;
	while (q != NO_PARENT && hops++ < 64) {
		if (pci_is_switch_up(&s->d[q]))
			return q;
		last = q;
		q = s->d[q].parent;
	}
	return last;
}

int pci_link_known(const struct pdev *p)
{
	return !p->nolink && p->w_max > 0 && p->s_max > 0;
}

/* What device i can move at most: its own maximum, capped by its port. */
uint64_t pci_usable_max(const struct pci_scan *s, int i)
{
	const struct pdev *p = &s->d[i];
	int w = p->w_max;
	double g = p->s_max;
	if (!pci_link_known(p))
		return 0;
	if (p->parent != NO_PARENT && pci_link_known(&s->d[p->parent])) {
		const struct pdev *u = &s->d[p->parent];
		if (u->w_max < w)
			w = u->w_max;
		if (u->s_max < g)
			g = u->s_max;
	}
	return pci_link_bandwidth(g, w);
}
void pci_speed_num(cJSON *o, const char *key, double v)
{
	fj_num_or_null(o, key, v > 0, v);
}

void pci_add_link_evidence(struct pci_scan *s, const struct pdev *p, const struct path_cxt *at,
			   const char *key)
{
	struct path_cxt pc = *at;
	if (p->link_files) {
		pc_name(&pc, "%s/max_link_width", p->sys);
		pc_evidence(&pc, key);
		pc_name(&pc, "%s/current_link_width", p->sys);
		pc_evidence(&pc, key);
	}
	if (p->cfglen >= 256 && s->cfg_evidence) {
		if (s->dump_path || !p->sys)
			pc_evidence_of(&pc, key, s->cfg_evidence);
		else {
			pc_name(&pc, "%s/config", p->sys);
			pc_evidence(&pc, key);
		}
	}
}

/* A link's file that is garbled (p->bad[k]): the gap of its member, one
 * level below the link's ("<link>.width.max"). */
static void bad_link_file(const struct path_cxt *link, const struct pdev *p, size_t k)
{
	static const char *const obj[] = { "width", "speed_gts", "width", "speed_gts" };
	static const char *const key[] = { "max", "max", "current", "current" };
	struct path_cxt pc = *link;
	pc_setobj(&pc, NULL, "%s.%s", link->at, obj[k]);
	pc_name(&pc, "%s", p->bad[k]);
	pc_gap_read(&pc, key[k], -EINVAL);
}

/* The link object of device i, or null with a gap: the gap and evidence
 * of at's member key (at NULL: none, the caller counts it). */
cJSON *pci_link_json(struct probe_ctx *ctx, struct pci_scan *s, int i, const struct path_cxt *at,
		     const char *key, int is_accel, int *unknown)
{
	const struct pdev *p = &s->d[i];
	const struct pdev *u = p->parent != NO_PARENT ? &s->d[p->parent] : NULL;
	struct path_cxt pc;
	cJSON *l, *o;
	int down, up_w;
	double up_s;
	size_t k;
	if (at)
		pc = *at;
	else
		pc_init(&pc, &ctx->sr, NULL);
	/* A root or downstream port's link goes down to the device below it:
	 * that device, not the bridge above, is the other end.  Without the
	 * port type: a bridge that is not a switch's upstream port, on the
	 * root bus or right below such an upstream port. */
	if (p->port_type >= 0)
		down = p->port_type == 4 || p->port_type == 6 || p->port_type == 8;
	else
		down = p->kind == PCI_BRIDGE && !pci_is_switch_up(p) && (!u || pci_is_switch_up(u));
	if (down) {
		u = NULL;
		for (k = 0; k < s->n && !u; k++)
			if (s->d[k].parent == i && pci_link_known(&s->d[k]))
				u = &s->d[k];
	}
	up_w = u && pci_link_known(u) ? u->w_max : -1;
	up_s = u && pci_link_known(u) ? u->s_max : 0;
	*unknown = 0;
	if (p->nolink || (p->w_max <= 0 && p->s_max <= 0 && p->w_cur <= 0 && p->s_cur <= 0)) {
		*unknown = 1;
		if (at) {
			if (p->nolink)
				pc_gap(&pc, key, "%s", p->nolink_why);
			else if (p->sys && ctx->sr.live && p->cfglen < 256)
				pc_gap(&pc, key, "no link files in sysfs, and PCI config space "
				       "beyond 64 bytes needs root");
			else if (p->cfglen > 0 && p->cfglen < 256)
				pc_gap(&pc, key, "no link files and only %d bytes of PCI config "
				       "space (PCI config space beyond 64 bytes needs root)", p->cfglen);
			else if (p->cfglen == 0 && p->cfgerr && p->cfgerr != -ENOENT)
				pc_gap(&pc, key, "no link files, and %s/config: %s", p->sys,
				       sr_reason(p->cfgerr));
			else if (p->cfglen == 0)
				pc_gap(&pc, key, "no link files and no readable PCI config space");
			else
				pc_gap(&pc, key, "the PCIe capability holds no link figures");
		}
		return cJSON_CreateNull();
	}
	l = cJSON_CreateObject();
	o = cJSON_AddObjectToObject(l, "width");
	fj_num_or_null(o, "current", p->w_cur > 0, p->w_cur);
	fj_num_or_null(o, "max", p->w_max > 0, p->w_max);
	o = cJSON_AddObjectToObject(l, "speed_gts");
	pci_speed_num(o, "current", p->w_cur > 0 ? p->s_cur : 0);
	pci_speed_num(o, "max", p->s_max);
	o = cJSON_AddObjectToObject(l, "generation");
	fj_num_or_null(o, "current", p->w_cur > 0 && generation(p->s_cur) > 0, generation(p->s_cur));
	fj_num_or_null(o, "max", generation(p->s_max) > 0, generation(p->s_max));
	o = cJSON_AddObjectToObject(l, "bandwidth_bytes_per_s");
	fj_num_or_null(o, "current", p->w_cur > 0 && p->s_cur > 0,
		       (double)pci_link_bandwidth(p->s_cur, p->w_cur));
	fj_num_or_null(o, "max", p->w_max > 0 && p->s_max > 0, (double)pci_link_bandwidth(p->s_max, p->w_max));
	if (at && p->w_cur == 0)
		pc_gap(&pc, key, "link down: the current width is 0");
	if (at) {
		struct path_cxt link = pc;
		pc_setobj(&link, NULL, "%s", pc_fact(&pc, key));
		for (k = 0; k < ARRAY_SIZE(p->bad); k++)
			if (p->bad[k] && ((k == 0 && p->w_max <= 0) || (k == 1 && p->s_max <= 0) ||
					  (k == 2 && p->w_cur < 0) || (k == 3 && p->s_cur <= 0)))
				bad_link_file(&link, p, k);
	}
	/* Trained below what both ends allow: width is a fault, speed may be
	 * power saving.  The port above caps what the slot allows. */
	{
		int want_w = p->w_max > 0 ? (up_w > 0 && up_w < p->w_max ? up_w : p->w_max) : -1;
		double want_s = p->s_max > 0 ? (up_s > 0 && up_s < p->s_max ? up_s : p->s_max) : 0;
		int sd = p->w_cur > 0 && p->s_cur > 0 && want_s > 0 ? p->s_cur + 0.01 < want_s : -1;
		fj_bool_or_null(l, "width_downtrained", p->w_cur > 0 && want_w > 0 ? p->w_cur < want_w : -1);
		fj_bool_or_null(l, "speed_downtrained", sd);
		fj_bool_or_null(l, "slot_limited", up_w > 0 && p->w_max > 0 && !down ? up_w < p->w_max : -1);
		fj_bool_or_null(l, "speed_limited", up_s > 0 && p->s_max > 0 && !down ? up_s + 0.01 < p->s_max : -1);
		if (sd == 1)
			cJSON_AddStringToObject(l, "speed_note", is_accel ?
				"possibly idle: GPUs and NPUs lower the link speed to save power; re-check under load" :
				"trained below the speed both ends support");
		else
			cJSON_AddNullToObject(l, "speed_note");
	}
	if (at)
		pci_add_link_evidence(s, p, &pc, key);
	return l;
}

/* The package the local CPUs belong to (one package, or null). */
