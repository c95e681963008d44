/* probe/pci-config.c - config space, read dword by dword: the header, the PCIe capability, ACS and resizable BAR */
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
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

/* Test hook (tests/unit/test-pci-paths.c): read every function's config
 * space, as before sysfs-first; the facts must not change. */
int pci_probe_config_all;

static unsigned le16(const uint8_t *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | (uint32_t)le16(p + 2) << 16; }

/*** Config space ***/

/* The first 256 bytes at most: the header, the capability list and the
 * PCIe capability's link registers (extended space is never needed). */
#define CFG_MAX 256

/* Bytes [off, off + len) of p's config space: 0 when they are in p->cfg
 * (read now if need be: only the missing dwords, one pread), -1 when they
 * lie beyond what is readable.  A short read shrinks cfglen as libpci's
 * reader did: below 64 bytes nothing is usable, else sysfs stops at 64
 * for those without CAP_SYS_ADMIN. */
static int cfg_need(struct pdev *p, int off, int len)
{
	int lo = off & ~3, hi = (off + len + 3) & ~3, got = 0;
	if (off < 0 || len <= 0 || off + len > p->cfglen)
		return -1;
	while (lo < hi && (p->cfghave >> (lo / 4) & 1))
		lo += 4;
	while (hi > lo && (p->cfghave >> (hi / 4 - 1) & 1))
		hi -= 4;
	if (lo == hi)
		return 0;
	if (p->cfgfd < 0)
		return -1;
	while (got < hi - lo) {
		ssize_t r = pread(p->cfgfd, p->cfg + lo + got, (size_t)(hi - lo - got), lo + got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			p->cfgerr = -errno;
		if (r <= 0)
			break;
		got += (int)r;
	}
	for (got &= ~3; got > 0; got -= 4)
		p->cfghave |= 1ull << ((lo + got) / 4 - 1);
	if (!(p->cfghave >> (hi / 4 - 1) & 1)) {
		/* Short: below 64 bytes the header is unreadable; beyond,
		 * sysfs stops at 64 for those without CAP_SYS_ADMIN (a plain
		 * file was sized when opened). */
		p->cfglen = lo >= 64 || p->cfghave >> 15 & 1 ? 64 : 0;
		return -1;
	}
	return 0;
}

/* Open the sysfs config file of p through the read layer (inside the
 * sysroot, a regular file only) and size it. */
static void cfg_open(struct sysroot *sr, struct pdev *p)
{
	struct path_cxt pc;
	struct stat st;
	int fd;
	pc_init(&pc, sr, NULL);
	fd = pc_open_file(&pc, "%s/config", p->sys);
	p->cfglen = 0;
	if (fd < 0) {
		p->cfgerr = fd;
		return;
	}
	if (fstat(fd, &st) == 0 && st.st_size >= 64)
		p->cfglen = (st.st_size < CFG_MAX ? (int)st.st_size : CFG_MAX) & ~15;
	p->cfgfd = fd;
}

static void cfg_close(struct pdev *p)
{
	if (p->cfgfd >= 0)
		close(p->cfgfd);
	p->cfgfd = -1;
}

static void parse_config(struct pdev *p)
{
	const uint8_t *c = p->cfg;
	int ptr, hops;
	if (p->cfglen < 64)
		return;
	if (!p->have_ids && cfg_need(p, 0, 12) == 0 && le16(c) != 0xffff) {
		p->vendor = le16(c);
		p->device = le16(c + 2);
		p->cls = (unsigned)c[11] << 16 | (unsigned)c[10] << 8 | c[9];
		p->have_ids = 1;
		p->kind = pci_classify(p->vendor, p->device, p->cls);
	}
	/* A bridge's secondary bus (a dump, read whole, has every header). */
	if ((p->kind == PCI_BRIDGE || (p->cfghave >> 3 & 1)) && cfg_need(p, 0x0c, 4) == 0 &&
	    (c[0x0e] & 0x7f) == 1 && cfg_need(p, 0x18, 4) == 0)
		p->sec_bus = c[0x19];
	if (cfg_need(p, 0x04, 4) < 0)
		return;
	if (!(le16(c + 6) & 0x10)) {
		p->pcie_cap = 0;   /* no capability list at all */
		/* Size what is readable, as a whole read would have. */
		if (p->cfglen > 64)
			(void)cfg_need(p, 0x40, 4);
		return;
	}
	/* Whether more than the header is readable (sysfs gives 64 bytes to
	 * those without CAP_SYS_ADMIN): the first capability says. */
	if (cfg_need(p, 0x34, 4) < 0)
		return;
	ptr = c[0x34] & 0xfc;
	if (p->cfglen < CFG_MAX || cfg_need(p, ptr >= 0x40 ? ptr : 0x40, 4) < 0)
		return;            /* the list lies beyond what we could read */
	p->pcie_cap = 0;
	for (hops = 0; ptr >= 0x40 && ptr < 0xfc && hops < 48 && cfg_need(p, ptr, 4) == 0;
	     ptr = c[ptr + 1] & 0xfc, hops++)
		if (c[ptr] == 0x10) {
			p->pcie_cap = ptr;
			break;
		}
	if (p->pcie_cap > 0) {
		unsigned flags = le16(c + p->pcie_cap + 2);
		p->port_type = (int)(flags >> 4 & 0xf);
	}
}

/* Fill what sysfs did not give from LnkCap, LnkSta and LnkCap2. */
static void config_link(struct pdev *p)
{
	const uint8_t *c = p->cfg;
	int cap = p->pcie_cap, version;
	uint32_t lnkcap, lnkcap2 = 0;
	unsigned lnksta, vec;
	double smax;
	if (p->nolink)
		return;
	if (cap == 0 && !p->link_files) {
		p->nolink = 1;
		p->nolink_why = "conventional PCI function: no PCIe capability, no link";
		return;
	}
	if (cap <= 0)
		return;
	if (p->port_type == 9 || p->port_type == 10) {
		p->nolink = 1;
		p->nolink_why = p->port_type == 9 ? "root-complex integrated endpoint: no PCIe link of its own"
						  : "root-complex event collector: no PCIe link";
		return;
	}
	if (cap + 0x14 > p->cfglen)
		return;
	/* Sysfs gave all four figures: nothing to read. */
	if (p->w_max >= 0 && p->s_max > 0 && p->w_cur >= 0 && p->s_cur > 0)
		return;
	if (cfg_need(p, cap + 0x0c, 8) < 0)
		return;
	version = le16(c + cap + 2) & 0xf;
	lnkcap = le32(c + cap + 0x0c);
	lnksta = le16(c + cap + 0x12);
	if (version >= 2 && cap + 0x30 <= p->cfglen && cfg_need(p, cap + 0x2c, 4) == 0)
		lnkcap2 = le32(c + cap + 0x2c);
	smax = pci_speed_code(lnkcap & 0xf);
	vec = lnkcap2 >> 1 & 0x7f;   /* Supported Link Speeds Vector */
	if (vec) {
		int bit = 6;
		while (bit > 0 && !(vec & 1u << bit))
			bit--;
		if (pci_speed_code((unsigned)bit + 1) > 0)
			smax = pci_speed_code((unsigned)bit + 1);
	}
	if (p->w_max < 0 && (lnkcap >> 4 & 0x3f))
		p->w_max = (int)(lnkcap >> 4 & 0x3f);
	if (p->s_max <= 0)
		p->s_max = smax;
	if (p->w_cur < 0)
		p->w_cur = (int)(lnksta >> 4 & 0x3f);
	if (p->s_cur <= 0)
		p->s_cur = pci_speed_code(lnksta & 0xf);
}

/* Which sysfs functions have their config space read: accelerators, NICs
 * and unidentified functions (that may be either), every bridge above
 * them, PCI-to-PCI bridges (their port type decides their own link facts)
 * and, when some function's place is not in its sysfs path, every bridge
 * (their secondary bus places it). */
static void mark_matters(struct pci_scan *s)
{
	size_t i, k;
	int need_secbus = 0;
	for (i = 0; i < s->n; i++)
		if (!s->d[i].nanc && s->d[i].bus != 0)
			need_secbus = 1;
	for (i = 0; i < s->n; i++) {
		struct pdev *p = &s->d[i];
		unsigned sub = p->cls >> 8;
		if (!p->have_ids || p->kind == PCI_ACCEL || p->kind == PCI_NIC) {
			p->matters = 1;
			for (k = 0; k < p->nanc; k++) {
				int idx = pci_find_bdf(s, p->anc[k]);
				if (idx >= 0)
					s->d[idx].matters = 1;
			}
		} else if (p->kind == PCI_BRIDGE && (need_secbus || sub == 0x0604 || sub == 0x0609))
			p->matters = 1;
	}
}

/* Config space for every device: from the dump source, or (sysfs, when
 * sysfs_cfg) from each config file that matters, dword by dword as the
 * facts need it; else none. */
void pci_read_configs(struct probe_ctx *ctx, struct pci_scan *s, struct pcisrc *src, int sysfs_cfg)
{
	size_t i;
	if (sysfs_cfg)
		mark_matters(s);
	for (i = 0; i < s->n; i++) {
		struct pdev *p = &s->d[i];
		p->cfg = xcalloc(1, 4096);
		if (src) {
			/* The link registers lie in the first 256 bytes. */
			/* The whole space: the extended capabilities (ACS,
			 * resizable BAR) lie beyond 256 bytes. */
			p->extlen = pcisrc_config_max(src, p->dom, p->bus, p->dev, p->fn, p->cfg, 4096);
			p->cfglen = p->extlen < CFG_MAX ? p->extlen : CFG_MAX;
			p->cfghave = p->cfglen >= CFG_MAX ? ~0ull : (1ull << (p->cfglen / 4)) - 1;
		} else if (sysfs_cfg && p->sys && (p->matters || pci_probe_config_all)) {
			cfg_open(&ctx->sr, p);
			if (pci_probe_config_all)
				cfg_need(p, 0, p->cfglen);
		}
		parse_config(p);
		config_link(p);
		if (p->cfgfd >= 0) {
			/* The extended capabilities while the file is open:
			 * each config file is opened once. */
			p->extfd = p->cfgfd;
			pci_ext_info(ctx, p);
			p->extfd = -1;
		}
		cfg_close(p);
		p->kind = p->have_ids ? pci_classify(p->vendor, p->device, p->cls) : PCI_OTHER;
	}
}

/* One dword of p's config space beyond the first 256 bytes: from a dump,
 * or read from the sysfs config file as needed.  0, or a negative errno. */
static int ext_dword(struct probe_ctx *ctx, struct pdev *p, int off, uint32_t *v)
{
	uint8_t b[4];
	ssize_t r;
	if (off < 0 || off > 4092)
		return -EINVAL;
	if (!p->sys || p->extlen > 0) {
		if (off + 4 > p->extlen)
			return p->exterr = -ENODATA;
		*v = le32(p->cfg + off);
		return 0;
	}
	if (p->exterr)
		return p->exterr;
	if (p->extfd < 0) {
		struct path_cxt pc;
		int fd;
		pc_init(&pc, &ctx->sr, NULL);
		fd = pc_open_file(&pc, "%s/config", p->sys);
		if (fd < 0)
			return p->exterr = fd;
		p->extfd = fd;
	}
	do
		r = pread(p->extfd, b, 4, off);
	while (r < 0 && errno == EINTR);
	if (r != 4)
		return p->exterr = r < 0 ? -errno : -ENODATA;
	*v = le32(b);
	return 0;
}

/* The offset of extended capability id in p's config space: > 0, 0 when
 * p has none, or a negative errno when the space is unreadable. */
static int ext_cap(struct probe_ctx *ctx, struct pdev *p, unsigned id)
{
	int off = 0x100, hops, r;
	uint32_t h;
	for (hops = 0; hops < 480 && off >= 0x100 && off <= 0xffc; hops++) {
		if ((r = ext_dword(ctx, p, off, &h)) < 0)
			return r;
		if (h == 0 || h == 0xffffffffu)
			return 0;
		if ((h & 0xffff) == id)
			return off;
		off = (int)(h >> 20 & 0xffc);
		if (!off)
			return 0;
	}
	return 0;
}

const char *pci_ext_why(const struct probe_ctx *ctx, const struct pdev *p, int err)
{
	if (!p->sys)
		return "the PCI dump holds no extended config space (lspci -xxxx as root has it)";
	if (err == -ENODATA)
		return !ctx->sr.live ? "the capture holds no extended PCI config space" :
		       p->cfglen > 64 || geteuid() == 0 ?
		       "the kernel gives only 256 bytes of its config space (no extended space: a "
		       "conventional PCI function, or no ECAM/MMCONFIG, as in many VMs)" :
		       "extended PCI config space needs root";
	if (err == -ENOENT)
		return "no PCI config file (sysfs config) to read its capabilities from";
	return sr_reason(err);
}

/* ACS and resizable BAR, read once per function. */
void pci_ext_info(struct probe_ctx *ctx, struct pdev *p)
{
	if (p->ext_done)
		return;
	p->ext_done = 1;
	p->acs = ext_cap(ctx, p, 0x000d);
	if (p->acs > 0 && ext_dword(ctx, p, p->acs + 4, &p->acs_word) < 0)
		p->acs = p->exterr;
	p->rebar = p->acs < 0 ? p->acs : ext_cap(ctx, p, 0x0015);
	if (p->rebar > 0 && (ext_dword(ctx, p, p->rebar + 4, &p->rebar_cap) < 0 ||
			     ext_dword(ctx, p, p->rebar + 8, &p->rebar_ctl) < 0))
		p->rebar = p->exterr;
}
