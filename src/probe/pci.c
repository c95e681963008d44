/* probe/pci.c - the PCI probe: the functions from sysfs or a dump, then each step (links, accelerators and NICs, the matrices) */
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
#include <stdlib.h>
#include <string.h>

/*
 * Devices come from sysfs through the read layer (so that evidence and
 * snapshots see every file), or from a config dump (--pci-dump) when one is
 * given.  Sysfs first: the kernel exports the link figures it decoded from
 * LnkCap/LnkSta/LnkCap2 (current_link_*, max_link_*) and the identity,
 * locality and class of every function, each a cheap attribute read.  The
 * config space itself is read only for what sysfs does not give (the PCIe
 * port type, a link figure a file lacks, a bridge's secondary bus) and only
 * for the functions that matter: accelerators, NICs, unidentified
 * functions, the ports above them, and PCI-to-PCI bridges (whose own link
 * facts depend on their port type).  It is read dword by dword as needed,
 * through the read layer: a VM traps every config dword to the hypervisor
 * (about 40 us each on the reference VM: a 256-byte read costs 2.5 ms), and
 * libpci's sysfs method would open paths inside the sysroot with plain
 * open(), following links out of it and blocking on a FIFO.  libpci only
 * parses dumps (--pci-dump, the snapshot's /nodeaudit/pci.dump) from a
 * private copy of text we validated, and names devices from pci.ids.
 */

/*** The probe ***/

/* --pci-dump, given on the command line: it is the machine's PCI bus.  0,
 * or -EINVAL with the message printed. */
static int devices_from_dump(struct probe_ctx *ctx, struct pci_scan *s, struct pcisrc **srcp)
{
	unsigned (*addrs)[4] = NULL;
	char *why = NULL;
	size_t i, n;
	struct pcisrc *src;
	if (pci_read_dump(ctx, ctx->opts->pci_dump, 0, &why, &src) < 0) {
		error("cannot read PCI dump '%s': %s", ctx->opts->pci_dump, why);
		free(why);
		return -EINVAL;
	}
	n = pcisrc_devices(src, &addrs);
	for (i = 0; i < n; i++)
		pci_add_dev(s, addrs[i][0], addrs[i][1], addrs[i][2], addrs[i][3]);
	pci_dump_vs_bus(ctx, addrs, n);
	free(addrs);
	s->from_dump = 1;
	s->cfg_evidence = ctx->opts->pci_dump;
	*srcp = src;
	return 0;
}

/* No /sys/bus/pci/devices (r why): the PCI facts null. */
static void no_bus(struct probe_ctx *ctx, cJSON *pci, int r)
{
	static const char *const keys[] = { "accelerators", "nics", "matrix" };
	struct path_cxt pc;
	size_t i;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, pci, "pci");
	pc_name(&pc, "/sys/bus/pci/devices");
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		cJSON_AddNullToObject(pci, keys[i]);
		pc_gap_read(&pc, keys[i], r);
	}
}

/* The functions from sysfs, their config space from a snapshot's dump when
 * it has one (*srcp), else from each function's config file.  0, or the
 * read error of the bus. */
static int devices_from_sysfs(struct probe_ctx *ctx, struct pci_scan *s, struct pcisrc **srcp)
{
	struct facts *f = &ctx->facts;
	struct pcisrc *src = NULL;
	char *why = NULL;
	int r = pci_scan_sysfs(ctx, s);
	if (r < 0)
		return r;
	if (side_in_snapshot(ctx, SIDE_PCI)) {
		/* A snapshot's config space (captured as root). */
		if (pci_read_dump(ctx, "/nodeaudit/pci.dump", 1, &why, &src) == 0) {
			s->dump_path = xstrdup("/nodeaudit/pci.dump");
			s->cfg_evidence = "/nodeaudit/pci.dump";
		} else {
			facts_gap(f, "pci", "/nodeaudit/pci.dump: %s; links from sysfs files only", why);
			free(why);
		}
	}
	if (!src && !s->dump_path)
		s->cfg_evidence = "config";   /* each function's sysfs config file */
	*srcp = src;
	return 0;
}

/* In address order; each function's sysfs link files and its kind. */
static void identify(struct probe_ctx *ctx, struct pci_scan *s)
{
	size_t i;
	if (s->n)   /* s->d is NULL with no function: qsort() wants a pointer */
		qsort(s->d, s->n, sizeof(*s->d), pci_pdev_cmp);
	for (i = 0; i < s->n; i++) {
		struct pdev *p = &s->d[i];
		if (p->sys)
			pci_sysfs_link(ctx, p);
		p->kind = p->have_ids ? pci_classify(p->vendor, p->device, p->cls) : PCI_OTHER;
	}
}

/* pci.accelerators[] and pci.nics[]; returns the accelerators. */
static cJSON *accels_and_nics(struct probe_ctx *ctx, struct pci_scan *s, cJSON *pci)
{
	cJSON *accels = cJSON_AddArrayToObject(pci, "accelerators");
	cJSON *nics = cJSON_AddArrayToObject(pci, "nics");
	size_t i;
	int na = 0, nn = 0;
	for (i = 0; i < s->n; i++) {
		struct pdev *p = &s->d[i];
		if (p->kind == PCI_ACCEL) {
			p->json_index = na++;
			cJSON_AddItemToArray(accels, pci_device_json(ctx, s, (int)i, accels->string));
		} else if (p->kind == PCI_NIC) {
			p->json_index = nn++;
			cJSON_AddItemToArray(nics, pci_device_json(ctx, s, (int)i, nics->string));
		}
	}
	return accels;
}

/* Every function, for the record (bridges, links of other devices). */
static void all_devices(struct probe_ctx *ctx, struct pci_scan *s, cJSON *pci)
{
	struct path_cxt pc;
	cJSON *all = cJSON_AddArrayToObject(pci, "devices");
	size_t i;
	int nolinks = 0;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	for (i = 0; i < s->n; i++) {
		struct pdev *p = &s->d[i];
		cJSON *o = cJSON_CreateObject();
		int unk;
		pc_setobj(&pc, o, "pci.devices[%zu]", i);
		cJSON_AddStringToObject(o, "bdf", p->bdf);
		pci_hex_id(o, "vendor_id", p->have_ids, p->vendor, 4);
		pci_hex_id(o, "device_id", p->have_ids, p->device, 4);
		pci_hex_id(o, "class", p->have_ids, p->cls >> 8, 4);
		cJSON_AddStringToObject(o, "kind", pci_kind_name(p->kind));
		if (!p->have_ids) {
			/* Unidentified: it may be an accelerator or a NIC we miss. */
			if (p->sys && p->ids_err) {
				pc_name(&pc, "%s/%s", p->sys, p->ids_file);
				pc_gap_read(&pc, "class", p->ids_err);
			} else
				pc_gap(&pc, "class", "neither sysfs nor config space identify %s", p->bdf);
		}
		fj_str_or_null(o, "parent", p->parent != NO_PARENT ? s->d[p->parent].bdf : NULL);
		cJSON_AddItemToObject(o, "link", pci_link_json(ctx, s, (int)i, NULL, NULL, p->kind == PCI_ACCEL, &unk));
		nolinks += unk;
		cJSON_AddItemToArray(all, o);
	}
	pc_setobj(&pc, all, "pci.devices[]");   /* the functions' links, counted */
	if (nolinks)
		pc_gap(&pc, "link", "%d of %zu functions: no PCIe link, or its figures "
		       "are unreadable (see the accelerators' and NICs' own gaps)", nolinks, s->n);
}

int probe_pci(struct probe_ctx *ctx)
{
	struct pci_scan s = { 0 };
	struct pcisrc *src = NULL;
	cJSON *pci = facts_obj(&ctx->facts, "pci"), *accels;
	int r;

	if (ctx->opts->pci_dump) {
		if (devices_from_dump(ctx, &s, &src) < 0)
			return -EINVAL;
	} else if ((r = devices_from_sysfs(ctx, &s, &src)) < 0) {
		no_bus(ctx, pci, r);
		return 0;
	}
	identify(ctx, &s);
	pci_read_configs(ctx, &s, src, !src && !s.dump_path && !s.from_dump);
	pcisrc_close(src);
	pci_link_parents(&s);
	accels = accels_and_nics(ctx, &s, pci);
	pci_topology_matrix(&s, pci, accels);
	pci_matrix_json(ctx, &s, pci);
	all_devices(ctx, &s, pci);
	fj_str_or_null(pci, "source", s.from_dump ? "dump" : s.dump_path ? "sysfs+dump" : "sysfs");
	pci_scan_release(&s);
	pci_names_release();
	return 0;
}
