/* probe/pci.c - PCIe accelerators and NICs: links vs capability, locality, shared uplinks */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "read/sources.h"
#include "lib/output.h"
#include "read/libpci.h"
#include "lib/util.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Test hook (tests/unit/test-pci-paths.c): read every function's config
 * space, as before sysfs-first; the facts must not change. */
int pci_probe_config_all;

#define NO_PARENT (-1)

struct pdev {
	unsigned dom, bus, dev, fn;
	char bdf[16];
	char *sys;            /* "/sys/bus/pci/devices/BDF"; NULL from a dump */
	char root[32];        /* host bridge ("pci0000:00") or top bus in a dump */
	char **anc;           /* BDFs above, nearest last, from the sysfs path */
	size_t nanc;
	int parent;           /* index of the bridge above, NO_PARENT */
	unsigned vendor, device, cls;   /* cls: 24-bit class code */
	int have_ids;
	int ids_err;          /* why vendor/device/class were unreadable */
	const char *ids_file; /* ... and which of them; "uevent" when read there */
	uint8_t *cfg;
	int cfglen;           /* bytes of config space readable: 0, 64 ... 256 */
	int cfgfd;            /* sysfs config file while it is parsed; -1 */
	uint64_t cfghave;     /* dwords of cfg read (bit n: bytes 4n..4n+3) */
	int cfgerr;           /* why the config file is unreadable; 0 */
	int matters;          /* its config space is read (sysfs-first) */
	int pcie_cap;         /* offset; 0: none; -1: unknown */
	int port_type;        /* PCIe device/port type; -1 unknown */
	int sec_bus;          /* secondary bus of a bridge header; -1 */
	int w_cur, w_max;     /* lanes; -1 unknown, 0 link down/none */
	double s_cur, s_max;  /* GT/s; 0 unknown */
	int link_files;       /* 1: sysfs max_link_width was readable */
	char *bad[4];         /* link files that exist but do not parse */
	int nolink;           /* 1: no PCIe link of its own (nolink_why) */
	const char *nolink_why;
	enum pci_kind kind;
	int nbridges;         /* bridges directly below */
	int json_index;       /* index in pci.accelerators / pci.nics, -1 */
	int extlen;           /* bytes of config space in cfg from a dump (up to 4096) */
	int extfd;            /* sysfs config file for the extended space; -1 */
	int exterr;           /* why the extended space is unreadable; 0 */
	int ext_done;         /* acs and rebar below are read */
	int acs;              /* ACS capability offset; 0 none; -errno unreadable */
	uint32_t acs_word;    /* its capability and control registers */
	int rebar;            /* resizable BAR capability offset, likewise */
	uint32_t rebar_cap, rebar_ctl;
};

struct pci_scan {
	struct pdev *d;
	size_t n, a;
	const char *cfg_evidence;   /* where config space came from */
	char *dump_path;            /* the snapshot's dump when it was used, or NULL */
	int from_dump;              /* devices enumerated from --pci-dump */
	int *pkg;                   /* package + 2 of each CPU: 0 unread, 1 unreadable */
};

/*** Small helpers ***/

static unsigned le16(const uint8_t *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | (uint32_t)le16(p + 2) << 16; }

static const double link_speeds[] = { 2.5, 5, 8, 16, 32, 64, 128 };

/* The Link Speed field encoding (1 = 2.5 GT/s ... 6 = 64 GT/s); 0: unknown. */
static double speed_code(unsigned c)
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

static int read_hex(struct sysroot *sr, const char *dir, const char *name, unsigned *v)
{
	char *p = xasprintf("%s/%s", dir, name), *s = NULL;
	int r = sr_read_str(sr, p, &s);
	if (r == 0)
		r = parse_hex(s, v);
	free(s);
	free(p);
	return r;
}

static int parse_bdf(const char *s, unsigned *dom, unsigned *bus, unsigned *dev, unsigned *fn)
{
	char tail;
	if (sscanf(s, "%x:%x:%x.%u%c", dom, bus, dev, fn, &tail) != 4)
		return -1;
	return *bus < 256 && *dev < 32 && *fn < 8 ? 0 : -1;
}

static int pdev_cmp(const void *pa, const void *pb)
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

static struct pdev *add_dev(struct pci_scan *s, unsigned dom, unsigned bus, unsigned dev, unsigned fn)
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

static int find_bdf(const struct pci_scan *s, const char *bdf)
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

static void walk_pci(struct sysroot *sr, const char *dir, int depth, struct dev_paths *dp)
{
	char **names = NULL;
	size_t n = 0, i;
	unsigned a, b, c, d;
	if (depth > 16 || sr_list(sr, dir, &names, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		char *sub;
		if (depth == 0 ? strncmp(names[i], "pci", 3) || !strchr(names[i], ':')
			       : parse_bdf(names[i], &a, &b, &c, &d) < 0)
			continue;
		sub = xasprintf("%s/%s", dir, names[i]);
		if (!sr_is_dir(sr, sub)) {
			free(sub);
			continue;
		}
		if (depth > 0) {
			dp->v = xrealloc(dp->v, (dp->n + 1) * sizeof(*dp->v));
			dp->v[dp->n++] = xstrdup(sub);
		}
		walk_pci(sr, sub, depth + 1, dp);
		free(sub);
	}
	sr_free_list(names, n);
}

/* Where /sys/bus/pci/devices/BDF points: the BDFs of the bridges above it
 * and the host bridge ("pci0000:00"). */
static void sysfs_ancestry(struct sysroot *sr, struct pdev *p, struct dev_paths *dp)
{
	char *target = NULL, *save = NULL, *tok;
	unsigned a, b, c, d;
	size_t i;
	if (sr_readlink(sr, p->sys, &target) < 0) {
		if (!dp->done) {
			walk_pci(sr, "/sys/devices", 0, dp);
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

static void sysfs_link(struct probe_ctx *ctx, struct pdev *p)
{
	static const char *const files[] = { "max_link_width", "max_link_speed",
					     "current_link_width", "current_link_speed" };
	struct sysroot *sr = &ctx->sr;
	int vals_w[2] = { -1, -1 };
	double vals_s[2] = { 0, 0 };
	int ok[4] = { 0 };
	size_t i;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		char *path, *s = NULL;
		int r;
		/* The kernel has all four files or none (conventional PCI): the
		 * current figures mean nothing without the maximum ones. */
		if (i == 2 && !ok[0] && !ok[1] && !p->bad[0] && !p->bad[1])
			return;
		path = xasprintf("%s/%s", p->sys, files[i]);
		r = sr_read_str(sr, path, &s);
		if (r == 0) {
			if (i % 2 == 0) {
				uint64_t w;
				if (parse_u64(s, &w) == 0 && w <= 32) {
					vals_w[i / 2] = (int)w;
					ok[i] = 1;
				}
			} else if (pci_parse_speed(s, &vals_s[i / 2]) == 0)
				ok[i] = 1;
			if (!ok[i]) {
				p->bad[i] = path;
				path = NULL;
			}
		}
		free(s);
		free(path);
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
static int read_uevent_ids(struct sysroot *sr, struct pdev *p)
{
	char *path = xasprintf("%s/uevent", p->sys), *text = NULL, *id, *cls, *end;
	unsigned long v, d, c;
	int r = -1;
	if (sr_read(sr, path, &text, NULL) < 0) {
		free(path);
		return -1;
	}
	free(path);
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

static int scan_sysfs(struct probe_ctx *ctx, struct pci_scan *s)
{
	struct sysroot *sr = &ctx->sr;
	char **names = NULL;
	size_t n = 0, i;
	struct dev_paths dp = { NULL, 0, 0 };
	int r = sr_list(sr, "/sys/bus/pci/devices", &names, &n);
	if (r < 0)
		return r;
	for (i = 0; i < n; i++) {
		unsigned dom, bus, dev, fn;
		struct pdev *p;
		if (parse_bdf(names[i], &dom, &bus, &dev, &fn) < 0)
			continue;
		p = add_dev(s, dom, bus, dev, fn);
		p->sys = xasprintf("/sys/bus/pci/devices/%s", names[i]);
		sysfs_ancestry(sr, p, &dp);
		if (read_uevent_ids(sr, p) == 0) {
			p->have_ids = 1;
			continue;
		}
		if ((r = read_hex(sr, p->sys, p->ids_file = "vendor", &p->vendor)) == 0 &&
		    (r = read_hex(sr, p->sys, p->ids_file = "device", &p->device)) == 0 &&
		    (r = read_hex(sr, p->sys, p->ids_file = "class", &p->cls)) == 0)
			p->have_ids = 1;
		p->ids_err = r;
	}
	sr_free_list(names, n);
	sr_free_list(dp.v, dp.n);
	return 0;
}

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
	char *path = xasprintf("%s/config", p->sys);
	struct stat st;
	int fd = sr_open_file(sr, path);
	free(path);
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
	smax = speed_code(lnkcap & 0xf);
	vec = lnkcap2 >> 1 & 0x7f;   /* Supported Link Speeds Vector */
	if (vec) {
		int bit = 6;
		while (bit > 0 && !(vec & 1u << bit))
			bit--;
		if (speed_code((unsigned)bit + 1) > 0)
			smax = speed_code((unsigned)bit + 1);
	}
	if (p->w_max < 0 && (lnkcap >> 4 & 0x3f))
		p->w_max = (int)(lnkcap >> 4 & 0x3f);
	if (p->s_max <= 0)
		p->s_max = smax;
	if (p->w_cur < 0)
		p->w_cur = (int)(lnksta >> 4 & 0x3f);
	if (p->s_cur <= 0)
		p->s_cur = speed_code(lnksta & 0xf);
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
				int idx = find_bdf(s, p->anc[k]);
				if (idx >= 0)
					s->d[idx].matters = 1;
			}
		} else if (p->kind == PCI_BRIDGE && (need_secbus || sub == 0x0604 || sub == 0x0609))
			p->matters = 1;
	}
}

static void ext_info(struct probe_ctx *ctx, struct pdev *p);

/* Config space for every device: from the dump source, or (sysfs, when
 * sysfs_cfg) from each config file that matters, dword by dword as the
 * facts need it; else none. */
static void read_configs(struct probe_ctx *ctx, struct pci_scan *s, struct pcisrc *src, int sysfs_cfg)
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
			ext_info(ctx, p);
			p->extfd = -1;
		}
		cfg_close(p);
		p->kind = p->have_ids ? pci_classify(p->vendor, p->device, p->cls) : PCI_OTHER;
	}
}

/* Read and validate a dump (through the read layer when it is in the
 * sysroot): 0 and its text in *text (malloc'd, *len bytes), or -1 and why. */
static int check_dump(struct probe_ctx *ctx, const char *path, int in_sysroot, char **why, char **text,
		      size_t *lenp)
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
	r = pci_dump_check(buf, len, why);
	if (r < 0) {
		free(buf);
		return r;
	}
	*text = buf;
	*lenp = len;
	return 0;
}

/*
 * A dump is authoritative for its own machine.  When the probed machine (live
 * or a sysroot) has a PCI bus of its own and the dump's addresses are not
 * all on it, the dump describes another machine: say so once, in conflicts
 * (the facts are the dump's, and cite it as their evidence).
 */
static void dump_vs_bus(struct probe_ctx *ctx, unsigned (*addrs)[4], size_t n)
{
	char **names;
	size_t nn, i, j, missing = 0;
	if (sr_list(&ctx->sr, "/sys/bus/pci/devices", &names, &nn) < 0)
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

/*** Topology ***/

static void link_parents(struct pci_scan *s)
{
	size_t i, j;
	for (i = 0; i < s->n; i++) {
		struct pdev *p = &s->d[i];
		size_t k;
		/* sysfs: the nearest BDF in the device's path that we know. */
		for (k = p->nanc; k-- > 0;) {
			int idx = find_bdf(s, p->anc[k]);
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
static int is_switch_up(const struct pdev *p)
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
static int uplink_of(const struct pci_scan *s, int i)
{
	int q = s->d[i].parent, last = -1, hops = 0;
	while (q != NO_PARENT && hops++ < 64) {
		if (is_switch_up(&s->d[q]))
			return q;
		last = q;
		q = s->d[q].parent;
	}
	return last;
}

static int link_known(const struct pdev *p)
{
	return !p->nolink && p->w_max > 0 && p->s_max > 0;
}

/* What device i can move at most: its own maximum, capped by its port. */
static uint64_t usable_max(const struct pci_scan *s, int i)
{
	const struct pdev *p = &s->d[i];
	int w = p->w_max;
	double g = p->s_max;
	if (!link_known(p))
		return 0;
	if (p->parent != NO_PARENT && link_known(&s->d[p->parent])) {
		const struct pdev *u = &s->d[p->parent];
		if (u->w_max < w)
			w = u->w_max;
		if (u->s_max < g)
			g = u->s_max;
	}
	return pci_link_bandwidth(g, w);
}

/*** JSON ***/

static void hex_id(cJSON *o, const char *key, int have, unsigned v, int digits)
{
	char buf[16];
	if (!have) {
		cJSON_AddNullToObject(o, key);
		return;
	}
	snprintf(buf, sizeof(buf), "%0*x", digits, v);
	cJSON_AddStringToObject(o, key, buf);
}

static void speed_num(cJSON *o, const char *key, double v)
{
	fj_num_or_null(o, key, v > 0, v);
}

static void add_link_evidence(struct probe_ctx *ctx, struct pci_scan *s, const struct pdev *p,
			      const char *fact)
{
	if (p->link_files) {
		char *e = xasprintf("%s/max_link_width", p->sys);
		facts_evidence(&ctx->facts, fact, e);
		free(e);
		e = xasprintf("%s/current_link_width", p->sys);
		facts_evidence(&ctx->facts, fact, e);
		free(e);
	}
	if (p->cfglen >= 256 && s->cfg_evidence) {
		if (s->dump_path || !p->sys)
			facts_evidence(&ctx->facts, fact, s->cfg_evidence);
		else {
			char *e = xasprintf("%s/config", p->sys);
			facts_evidence(&ctx->facts, fact, e);
			free(e);
		}
	}
}

/* The link object of device i, or null with a gap (gap_fact NULL: no gap,
 * the caller counts it). */
static cJSON *link_json(struct probe_ctx *ctx, struct pci_scan *s, int i, const char *fact,
			int is_accel, int *unknown)
{
	const struct pdev *p = &s->d[i];
	const struct pdev *u = p->parent != NO_PARENT ? &s->d[p->parent] : NULL;
	cJSON *l, *o;
	int down, up_w;
	double up_s;
	size_t k;
	/* A root or downstream port's link goes down to the device below it:
	 * that device, not the bridge above, is the other end.  Without the
	 * port type: a bridge that is not a switch's upstream port, on the
	 * root bus or right below such an upstream port. */
	if (p->port_type >= 0)
		down = p->port_type == 4 || p->port_type == 6 || p->port_type == 8;
	else
		down = p->kind == PCI_BRIDGE && !is_switch_up(p) && (!u || is_switch_up(u));
	if (down) {
		u = NULL;
		for (k = 0; k < s->n && !u; k++)
			if (s->d[k].parent == i && link_known(&s->d[k]))
				u = &s->d[k];
	}
	up_w = u && link_known(u) ? u->w_max : -1;
	up_s = u && link_known(u) ? u->s_max : 0;
	*unknown = 0;
	if (p->nolink || (p->w_max <= 0 && p->s_max <= 0 && p->w_cur <= 0 && p->s_cur <= 0)) {
		*unknown = 1;
		if (fact) {
			if (p->nolink)
				facts_gap(&ctx->facts, fact, "%s", p->nolink_why);
			else if (p->sys && ctx->sr.live && p->cfglen < 256)
				facts_gap(&ctx->facts, fact, "no link files in sysfs, and PCI config space "
					  "beyond 64 bytes needs root");
			else if (p->cfglen > 0 && p->cfglen < 256)
				facts_gap(&ctx->facts, fact, "no link files and only %d bytes of PCI config "
					  "space (PCI config space beyond 64 bytes needs root)", p->cfglen);
			else if (p->cfglen == 0 && p->cfgerr && p->cfgerr != -ENOENT)
				facts_gap(&ctx->facts, fact, "no link files, and %s/config: %s", p->sys,
					  sr_reason(p->cfgerr));
			else if (p->cfglen == 0)
				facts_gap(&ctx->facts, fact, "no link files and no readable PCI config space");
			else
				facts_gap(&ctx->facts, fact, "the PCIe capability holds no link figures");
		}
		return cJSON_CreateNull();
	}
	l = cJSON_CreateObject();
	o = cJSON_AddObjectToObject(l, "width");
	fj_num_or_null(o, "current", p->w_cur > 0, p->w_cur);
	fj_num_or_null(o, "max", p->w_max > 0, p->w_max);
	o = cJSON_AddObjectToObject(l, "speed_gts");
	speed_num(o, "current", p->w_cur > 0 ? p->s_cur : 0);
	speed_num(o, "max", p->s_max);
	o = cJSON_AddObjectToObject(l, "generation");
	fj_num_or_null(o, "current", p->w_cur > 0 && generation(p->s_cur) > 0, generation(p->s_cur));
	fj_num_or_null(o, "max", generation(p->s_max) > 0, generation(p->s_max));
	o = cJSON_AddObjectToObject(l, "bandwidth_bytes_per_s");
	fj_num_or_null(o, "current", p->w_cur > 0 && p->s_cur > 0,
		       (double)pci_link_bandwidth(p->s_cur, p->w_cur));
	fj_num_or_null(o, "max", p->w_max > 0 && p->s_max > 0, (double)pci_link_bandwidth(p->s_max, p->w_max));
	if (fact && p->w_cur == 0)
		facts_gap(&ctx->facts, fact, "link down: the current width is 0");
	if (fact) {
		static const char *const sub[] = { "width.max", "speed_gts.max", "width.current",
						   "speed_gts.current" };
		for (k = 0; k < ARRAY_SIZE(sub); k++)
			if (p->bad[k] && ((k == 0 && p->w_max <= 0) || (k == 1 && p->s_max <= 0) ||
					  (k == 2 && p->w_cur < 0) || (k == 3 && p->s_cur <= 0))) {
				char *sf = xasprintf("%s.%s", fact, sub[k]);
				facts_gap_read(&ctx->facts, sf, p->bad[k], -EINVAL);
				free(sf);
			}
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
	if (fact)
		add_link_evidence(ctx, s, p, fact);
	return l;
}

/* The package the local CPUs belong to (one package, or null). */
static void package_json(struct probe_ctx *ctx, struct pci_scan *s, hwloc_const_bitmap_t set, cJSON *o,
			 const char *base)
{
	char *fact = xasprintf("%s.package", base), *path = NULL;
	int cpu, pkg = -1, other = -1, r = 0;
	/* Zeroed pages come from the kernel untouched: only the ids looked
	 * up cost memory. */
	if (!s->pkg)
		s->pkg = xcalloc(SR_MAX_CPUS, sizeof(*s->pkg));
	hwloc_bitmap_foreach_begin(cpu, set) {
		int v2;
		if (cpu >= SR_MAX_CPUS)
			break;
		if (s->pkg[cpu] == 0) {
			int64_t v;
			free(path);
			path = xasprintf("/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
			r = sr_read_s64(&ctx->sr, path, &v);
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
		fj_num(o, "package", pkg);
		facts_evidence(&ctx->facts, fact, "/sys/devices/system/cpu/cpuN/topology/physical_package_id");
	} else {
		cJSON_AddNullToObject(o, "package");
		if (pkg >= 0)
			facts_gap(&ctx->facts, fact, "its local CPUs span packages %d and %d", pkg, other);
		else if (path && r < 0)
			facts_gap_read(&ctx->facts, fact, path, r);
		else
			facts_gap(&ctx->facts, fact, "the package of its local CPUs is unreadable");
	}
	free(path);
	free(fact);
}

static void numa_json(struct probe_ctx *ctx, struct pci_scan *s, const struct pdev *p, cJSON *o,
		      const char *base)
{
	struct sysroot *sr = &ctx->sr;
	struct facts *f = &ctx->facts;
	char *fact = xasprintf("%s.numa_node", base), *path;
	int64_t node;
	int r;
	hwloc_bitmap_t set;
	if (!p->sys) {
		cJSON_AddNullToObject(o, "numa_node");
		facts_gap(f, fact, "a PCI config dump holds no NUMA locality");
		free(fact);
		fact = xasprintf("%s.local_cpus", base);
		cJSON_AddNullToObject(o, "local_cpus");
		facts_gap(f, fact, "a PCI config dump holds no CPU locality");
		free(fact);
		cJSON_AddNullToObject(o, "package");
		fact = xasprintf("%s.package", base);
		facts_gap(f, fact, "a PCI config dump holds no CPU locality");
		free(fact);
		return;
	}
	path = xasprintf("%s/numa_node", p->sys);
	r = sr_read_s64(sr, path, &node);
	if (r == 0 && node >= 0 && node < SR_MAX_CPUS) {
		fj_num(o, "numa_node", (double)node);
		facts_evidence(f, fact, path);
	} else {
		const cJSON *nc = facts_get(f->root, "numa.node_count");
		cJSON_AddNullToObject(o, "numa_node");
		if (r == 0 && node == -1)
			facts_gap(f, fact, "firmware does not report it (numa_node is -1)%s",
				  cJSON_IsNumber(nc) && nc->valueint == 1 ? "; the host has one NUMA node" : "");
		else if (r == 0)
			facts_gap(f, fact, "%s: unexpected value %lld", path, (long long)node);
		else
			facts_gap_read(f, fact, path, r);
	}
	free(path);
	free(fact);

	fact = xasprintf("%s.local_cpus", base);
	set = hwloc_bitmap_alloc();
	path = xasprintf("%s/local_cpulist", p->sys);
	r = sr_read_cpulist(sr, path, set);
	if (r == -ENOENT) {
		free(path);
		path = xasprintf("%s/local_cpus", p->sys);
		r = sr_read_cpumask(sr, path, set);
	}
	if (r == 0 && !hwloc_bitmap_iszero(set)) {
		char buf[4096];
		cJSON_AddStringToObject(o, "local_cpus", cpulist_str(set, buf, sizeof(buf)));
		facts_evidence(f, fact, path);
		package_json(ctx, s, set, o, base);
	} else {
		char *pf = xasprintf("%s.package", base);
		cJSON_AddNullToObject(o, "local_cpus");
		if (r == 0)
			facts_gap(f, fact, "%s: empty", path);
		else
			facts_gap_read(f, fact, path, r);
		cJSON_AddNullToObject(o, "package");
		facts_gap(f, pf, "its local CPUs are unknown");
		free(pf);
	}
	hwloc_bitmap_free(set);
	free(path);
	free(fact);
}

static int host_virtualized(struct probe_ctx *ctx)
{
	const cJSON *v = facts_get(ctx->facts.root, "host.virtualized");
	char *ci = NULL;
	int r = 0;
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v);
	if (sr_read(&ctx->sr, "/proc/cpuinfo", &ci, NULL) == 0)
		r = strstr(ci, " hypervisor") != NULL;
	free(ci);
	return r;
}

static void integrated_json(struct probe_ctx *ctx, struct pci_scan *s, int i, cJSON *o, const char *base)
{
	const struct pdev *p = &s->d[i];
	int v;
	if (p->port_type == 9 || (p->nolink && p->link_files))
		v = 1;
	else if (link_known(p) || p->w_cur > 0)
		v = 0;
	else if (p->parent != NO_PARENT)
		v = 0;   /* behind a bridge: a card of its own */
	else if (p->bus == 0 && p->nolink)
		v = 1;   /* conventional function on the root bus */
	else if (p->bus == 0 && !host_virtualized(ctx))
		v = p->link_files || p->sys == NULL ? -1 : 1;
	else
		v = -1;
	fj_bool_or_null(o, "integrated", v);
	if (v < 0) {
		char *fact = xasprintf("%s.integrated", base);
		facts_gap(&ctx->facts, fact, host_virtualized(ctx) ?
			  "a virtual machine's bus: no link to tell an integrated from a passed-through device" :
			  "no link information and no bridge above it");
		free(fact);
	}
}

static void nic_json(struct probe_ctx *ctx, const struct pdev *p, cJSON *o, const char *base)
{
	struct sysroot *sr = &ctx->sr;
	struct facts *f = &ctx->facts;
	char **names = NULL, *dir, *fact;
	size_t n = 0;
	int r;
	if (!p->sys) {
		fact = xasprintf("%s.interface", base);
		cJSON_AddNullToObject(o, "interface");
		cJSON_AddNullToObject(o, "speed_mbps");
		cJSON_AddNullToObject(o, "operstate");
		facts_gap(f, fact, "a PCI config dump holds no network interfaces");
		free(fact);
		return;
	}
	dir = xasprintf("%s/net", p->sys);
	r = sr_list(sr, dir, &names, &n);
	if (r == -ENOENT) {
		/* virtio-net: the interface hangs off the virtio device. */
		char **sub = NULL;
		size_t ns = 0, k;
		if (sr_list(sr, p->sys, &sub, &ns) == 0)
			for (k = 0; k < ns && r < 0; k++)
				if (str_startswith(sub[k], "virtio")) {
					char *d2 = xasprintf("%s/%s/net", p->sys, sub[k]);
					r = sr_list(sr, d2, &names, &n);
					if (r == 0) {
						free(dir);
						dir = d2;
					} else
						free(d2);
				}
		sr_free_list(sub, ns);
	}
	fact = xasprintf("%s.interface", base);
	if (r < 0 || n == 0) {
		cJSON_AddNullToObject(o, "interface");
		cJSON_AddNullToObject(o, "speed_mbps");
		cJSON_AddNullToObject(o, "operstate");
		if (r == -ENOENT || n == 0)
			facts_gap(f, fact, "%s: missing (no driver bound, or the port is used by RDMA only)", dir);
		else
			facts_gap_read(f, fact, dir, r);
	} else {
		char *path = xasprintf("/sys/class/net/%s/speed", names[0]);
		int64_t mbps;
		cJSON_AddStringToObject(o, "interface", names[0]);
		facts_evidence(f, fact, dir);
		free(fact);
		fact = xasprintf("%s.speed_mbps", base);
		r = sr_read_s64(sr, path, &mbps);
		if (r < 0) {
			free(path);
			path = xasprintf("%s/%s/speed", dir, names[0]);
			r = sr_read_s64(sr, path, &mbps);
		}
		/* The kernel's operstate says whether the link is up: speed -1
		 * with the link up is a driver that reports no speed (virtio). */
		{
			char *op = NULL, *opath = xasprintf("/sys/class/net/%s/operstate", names[0]);
			int ro = sr_read_str(sr, opath, &op);
			if (ro < 0) {
				free(opath);
				opath = xasprintf("%s/%s/operstate", dir, names[0]);
				ro = sr_read_str(sr, opath, &op);
			}
			fj_str_or_null(o, "operstate", ro == 0 && *op ? op : NULL);
			if (r == 0 && mbps > 0) {
				fj_num(o, "speed_mbps", (double)mbps);
				facts_evidence(f, fact, path);
			} else {
				cJSON_AddNullToObject(o, "speed_mbps");
				if ((r == 0 || r == -EINVAL) && ro == 0 && !strcmp(op, "up"))
					facts_gap(f, fact, "%s: the driver reports no speed (%s), the link is up",
						  path, r == 0 ? "-1" : "empty or unparsable");
				else if (r == 0 || r == -EINVAL)
					facts_gap(f, fact, "%s: no link (%s)", path,
						  ro == 0 ? "interface not up" : "cable unplugged or interface down");
				else
					facts_gap_read(f, fact, path, r);
			}
			free(op);
			free(opath);
		}
		free(path);
	}
	free(fact);
	free(dir);
	sr_free_list(names, n);
}

/* Why a device has no port above it.  On bus 00, or placed by its sysfs
 * path, it sits on a root bus; a device on another bus whose bridge the
 * capture lacks (a dump of one card) has a port above it that is unknown. */
static void no_port_gap(struct probe_ctx *ctx, const struct pdev *p, const char *fact)
{
	if (p->bus != 0 && !p->nanc)
		facts_gap(&ctx->facts, fact, "no bridge to bus %02x in the %s: the port above it is unknown",
			  p->bus, p->sys ? "sysfs capture" : "PCI dump");
	else
		facts_gap(&ctx->facts, fact, "on the root bus: no port above it");
}

static void upstream_json(struct probe_ctx *ctx, struct pci_scan *s, int i, cJSON *o, const char *base)
{
	const struct pdev *p = &s->d[i];
	char *fact = xasprintf("%s.upstream", base);
	cJSON *u;
	if (p->parent == NO_PARENT) {
		cJSON_AddNullToObject(o, "upstream");
		no_port_gap(ctx, p, fact);
	} else {
		const struct pdev *q = &s->d[p->parent];
		u = cJSON_AddObjectToObject(o, "upstream");
		cJSON_AddStringToObject(u, "bdf", q->bdf);
		fj_num_or_null(u, "width_max", link_known(q), q->w_max);
		speed_num(u, "speed_gts_max", link_known(q) ? q->s_max : 0);
		if (!link_known(q)) {
			int unk;
			cJSON_Delete(link_json(ctx, s, p->parent, fact, 0, &unk));
		} else
			add_link_evidence(ctx, s, q, fact);
	}
	free(fact);
}

static void shared_json(struct probe_ctx *ctx, struct pci_scan *s, int i, cJSON *o, const char *base)
{
	int up = uplink_of(s, i), q, unknown = 0;
	size_t j;
	cJSON *sh, *devs;
	uint64_t sum = 0, cap;
	char *fact = xasprintf("%s.shared_uplink", base);
	const struct pdev *u;
	if (up < 0) {
		cJSON_AddNullToObject(o, "shared_uplink");
		no_port_gap(ctx, &s->d[i], fact);
		free(fact);
		return;
	}
	u = &s->d[up];
	sh = cJSON_AddObjectToObject(o, "shared_uplink");
	cJSON_AddStringToObject(sh, "bdf", u->bdf);
	cJSON_AddStringToObject(sh, "kind", is_switch_up(u) ? "switch" : "root_port");
	devs = cJSON_AddArrayToObject(sh, "devices");
	for (j = 0; j < s->n; j++) {
		const struct pdev *p = &s->d[j];
		size_t k;
		int dup = 0;
		if (p->kind != s->d[i].kind || uplink_of(s, (int)j) != up)
			continue;
		/* Functions of one device share its link: count it once. */
		for (k = 0; k < j; k++)
			if (s->d[k].kind == p->kind && s->d[k].dom == p->dom && s->d[k].bus == p->bus &&
			    s->d[k].dev == p->dev && uplink_of(s, (int)k) == up)
				dup = 1;
		cJSON_AddItemToArray(devs, cJSON_CreateString(p->bdf));
		if (dup)
			continue;
		if (usable_max(s, (int)j) == 0)
			unknown = 1;
		sum += usable_max(s, (int)j);
	}
	/* The uplink: the port's own link, capped by the port above it. */
	cap = link_known(u) ? pci_link_bandwidth(u->s_max, u->w_max) : 0;
	q = u->parent;
	if (cap && is_switch_up(u) && q != NO_PARENT && link_known(&s->d[q])) {
		uint64_t c2 = pci_link_bandwidth(s->d[q].s_max < u->s_max ? s->d[q].s_max : u->s_max,
						 s->d[q].w_max < u->w_max ? s->d[q].w_max : u->w_max);
		if (c2 < cap)
			cap = c2;
	}
	fj_num_or_null(sh, "width_max", link_known(u), u->w_max);
	speed_num(sh, "speed_gts_max", link_known(u) ? u->s_max : 0);
	fj_num_or_null(sh, "bandwidth_bytes_per_s", cap > 0, (double)cap);
	fj_num_or_null(sh, "devices_bandwidth_bytes_per_s", !unknown, (double)sum);
	fj_num_or_null(sh, "ratio", cap > 0 && !unknown, cap ? round((double)sum / (double)cap * 100) / 100 : 0);
	fj_bool_or_null(sh, "oversubscribed", cap > 0 && !unknown ? sum > cap : -1);
	if (!cap || unknown)
		facts_gap(&ctx->facts, fact, "%s", !cap ? "the uplink's link width or speed is unknown"
					   : "a device's link width or speed is unknown");
	free(fact);
}

static cJSON *device_json(struct probe_ctx *ctx, struct pci_scan *s, int i, const char *base)
{
	const struct pdev *p = &s->d[i];
	cJSON *o = cJSON_CreateObject();
	char *fact = xasprintf("%s.link", base), *vn = NULL, *dn = NULL;
	int unk;
	cJSON_AddStringToObject(o, "bdf", p->bdf);
	hex_id(o, "vendor_id", p->have_ids, p->vendor, 4);
	hex_id(o, "device_id", p->have_ids, p->device, 4);
	hex_id(o, "class", p->have_ids, p->cls >> 8, 4);
	if (p->have_ids) {
		vn = pci_vendor_name(p->vendor);
		dn = pci_device_name(p->vendor, p->device);
	}
	{
		char *ef = xasprintf("%s.class", base);
		char *ep = p->sys ? xasprintf("%s/%s", p->sys, p->ids_file && !strcmp(p->ids_file, "uevent") ?
					      "uevent" : "class")
				  : xstrdup(s->cfg_evidence ? s->cfg_evidence : "");
		if (*ep)
			facts_evidence(&ctx->facts, ef, ep);
		free(ef);
		free(ep);
	}
	fj_str_or_null(o, "vendor", vn);
	fj_str_or_null(o, "device", dn);
	if (!vn || !dn) {
		char *nf = xasprintf("%s.device", base);
		facts_gap(&ctx->facts, nf, "not in pci.ids (or no pci.ids installed)");
		free(nf);
	}
	free(vn);
	free(dn);
	numa_json(ctx, s, p, o, base);
	if (p->kind == PCI_ACCEL)
		integrated_json(ctx, s, i, o, base);
	if (p->kind == PCI_NIC)
		nic_json(ctx, p, o, base);
	cJSON_AddItemToObject(o, "link", link_json(ctx, s, i, fact, p->kind == PCI_ACCEL, &unk));
	upstream_json(ctx, s, i, o, base);
	shared_json(ctx, s, i, o, base);
	free(fact);
	return o;
}

static const char *kind_name(enum pci_kind k)
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
				if (is_switch_up(&s->d[x]) && pa->parent != NO_PARENT && pb->parent != NO_PARENT &&
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

static void matrix_json(struct pci_scan *s, cJSON *pci, const cJSON *accels)
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

/*** The device matrix (pci.matrix): accelerators, NICs, NVMe ***/

/* The matrix's gaps, one per fact over its devices ("pci.matrix.info[].acs
 * .p2p_redirected: 3 of 8 devices; the first: ..."), as pci.devices[].link:
 * a machine without an IOMMU would otherwise say so once per device. */
static struct mx_gaps {
	char key[96], *why;
	int n;
} mxg[16];
static size_t nmxg;

static void mx_gap(const char *fact, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mx_gap(const char *fact, const char *fmt, ...)
{
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
	if (is_switch_up(&s->d[q]))
		return q;
	if (up != NO_PARENT && is_switch_up(&s->d[up]))
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
		char *path = xasprintf("%s/config", p->sys);
		int fd = sr_open_file(&ctx->sr, path);
		free(path);
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

static const char *ext_why(const struct probe_ctx *ctx, const struct pdev *p, int err)
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
static void ext_info(struct probe_ctx *ctx, struct pdev *p)
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

/* ACS on the way from device i to the root: the ports above it (root and
 * switch downstream ports) that redirect peer-to-peer requests upstream. */
static void acs_json(struct probe_ctx *ctx, struct pci_scan *s, int i, cJSON *o, const char *base)
{
	cJSON *a = cJSON_AddObjectToObject(o, "acs"), *ports = cJSON_CreateArray();
	int q, hops = 0, unread = 0, nports = 0;
	const char *why = NULL;
	char *fact = xasprintf("%s.acs.p2p_redirected", base);
	for (q = s->d[i].parent; q != NO_PARENT && hops++ < 64; q = s->d[q].parent) {
		struct pdev *b = &s->d[q];
		int cap;
		uint32_t v;
		if (is_switch_up(b))
			continue;
		nports++;
		ext_info(ctx, b);
		cap = b->acs;
		v = b->acs_word;
		if (cap < 0) {
			unread++;
			why = ext_why(ctx, b, cap);
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
		mx_gap(fact, "no port above it");
	} else if (unread) {
		fj_bool_or_null(a, "p2p_redirected", -1);
		if (nports == 1)
			mx_gap(fact, "the port above it: %s", why);
		else
			mx_gap(fact, "%d of the %d ports above it: %s", unread, nports, why);
	} else
		fj_bool_or_null(a, "p2p_redirected", 0);
	cJSON_AddItemToObject(a, "redirecting_ports", ports);
	free(fact);
}

static void iommu_json(struct probe_ctx *ctx, const struct pdev *p, cJSON *o, const char *base)
{
	char *fact = xasprintf("%s.iommu_group", base), *path, *target = NULL, *end;
	const char *slash;
	unsigned long g;
	int r;
	if (!p->sys) {
		cJSON_AddNullToObject(o, "iommu_group");
		cJSON_AddNullToObject(o, "iommu_group_devices");
		mx_gap(fact, "a PCI config dump holds no IOMMU groups");
		free(fact);
		return;
	}
	path = xasprintf("%s/iommu_group", p->sys);
	r = sr_readlink(&ctx->sr, path, &target);
	slash = r == 0 ? strrchr(target, '/') : NULL;
	slash = slash ? slash + 1 : target;
	if (r == 0) {
		errno = 0;
		g = strtoul(slash, &end, 10);
		if (errno || end == slash || *end || g > 1u << 30)
			r = -EINVAL;
	}
	if (r == 0) {
		char **names = NULL, *dir = xasprintf("/sys/kernel/iommu_groups/%lu/devices", g);
		size_t n = 0;
		fj_num(o, "iommu_group", (double)g);
		facts_evidence(&ctx->facts, fact, path);
		if (sr_list(&ctx->sr, dir, &names, &n) == 0 && n > 0) {
			fj_num(o, "iommu_group_devices", (double)n);
		} else {
			char *f2 = xasprintf("%s.iommu_group_devices", base);
			cJSON_AddNullToObject(o, "iommu_group_devices");
			mx_gap(f2, "%s: missing or empty", dir);
			free(f2);
		}
		sr_free_list(names, n);
		free(dir);
	} else {
		cJSON_AddNullToObject(o, "iommu_group");
		cJSON_AddNullToObject(o, "iommu_group_devices");
		if (r == -ENOENT)
			mx_gap(fact, "%s: missing (the IOMMU is off, or the kernel "
				  "has no IOMMU driver for this bus)", path);
		else
			mx_gap(fact, "%s: %s", path, sr_reason(r));
	}
	free(target);
	free(path);
	free(fact);
}

/* BARs from the sysfs resource file (start end flags, one line each; the
 * first six are the BARs), the resizable BAR capability, and the device
 * memory where the driver tells it (amdgpu's mem_info_vram_total). */
static void bars_json(struct probe_ctx *ctx, struct pdev *p, cJSON *o, const char *base)
{
	char *fact = xasprintf("%s.bars", base), *path, *text = NULL, *line, *save = NULL;
	cJSON *bars;
	uint64_t largest = 0, mem = 0;
	int r, idx = 0, cap, have_mem = 0;
	if (!p->sys) {
		cJSON_AddNullToObject(o, "bars");
		cJSON_AddNullToObject(o, "largest_bar_bytes");
		mx_gap(fact, "a PCI config dump holds no BAR sizes");
	} else {
		path = xasprintf("%s/resource", p->sys);
		r = sr_read(&ctx->sr, path, &text, NULL);
		if (r < 0) {
			cJSON_AddNullToObject(o, "bars");
			cJSON_AddNullToObject(o, "largest_bar_bytes");
			mx_gap(fact, "%s: %s", path, sr_reason(r));
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
				mx_gap(fact, "%s: line %d unparsable", path, idx + 1);
				largest = 0;
			} else {
				fj_num_or_null(o, "largest_bar_bytes", largest > 0, (double)largest);
				facts_evidence(&ctx->facts, fact, path);
			}
		}
		free(text);
		free(path);
	}
	free(fact);

	/* Resizable BAR (extended capability 0x15): the first BAR it governs. */
	fact = xasprintf("%s.resizable_bar", base);
	ext_info(ctx, p);
	cap = p->rebar;
	if (cap > 0) {
		uint32_t c1 = p->rebar_cap, c2 = p->rebar_ctl;
		cJSON *rb = cJSON_AddObjectToObject(o, "resizable_bar");
		int bit = 31, cur = (int)(c2 >> 8 & 0x3f);
		while (bit >= 4 && !(c1 & 1u << bit))
			bit--;
		fj_num(rb, "bar", (double)(c2 & 7));
		fj_num(rb, "current_bytes", ldexp(1, cur + 20));
		fj_num_or_null(rb, "max_bytes", bit >= 4, ldexp(1, bit + 16));
		fj_bool_or_null(rb, "at_max", bit >= 4 ? cur + 20 >= bit + 16 : -1);
	} else if (cap == 0)
		cJSON_AddFalseToObject(o, "resizable_bar");
	else {
		cJSON_AddNullToObject(o, "resizable_bar");
		mx_gap(fact, "%s", ext_why(ctx, p, cap));
	}
	free(fact);

	if (p->kind != PCI_ACCEL)
		return;
	fact = xasprintf("%s.memory_bytes", base);
	if (p->sys) {
		path = xasprintf("%s/mem_info_vram_total", p->sys);
		r = sr_read_u64(&ctx->sr, path, &mem);
		if (r == 0 && mem > 0) {
			have_mem = 1;
			facts_evidence(&ctx->facts, fact, path);
		} else if (r == 0 || r == -ENOENT)
			mx_gap(fact, "its driver exports no memory size in sysfs "
				  "(amdgpu does: mem_info_vram_total)");
		else
			mx_gap(fact, "%s: %s", path, sr_reason(r));
		free(path);
	} else
		mx_gap(fact, "a PCI config dump holds no device memory size");
	fj_num_or_null(o, "memory_bytes", have_mem, (double)mem);
	fj_bool_or_null(o, "bar_covers_memory", have_mem && largest ? largest >= mem : -1);
	free(fact);
}

/* pci.matrix: every accelerator, NIC and NVMe controller (in that order,
 * each by address), the class of the way between each two, and per device
 * its locality, IOMMU group, ACS on its way up, BARs; then the accelerator
 * and NIC pairs that meet inside a switch (GPUDirect RDMA's best case). */
static void pci_matrix_json(struct probe_ctx *ctx, struct pci_scan *s, cJSON *pci)
{
	cJSON *m = cJSON_AddObjectToObject(pci, "matrix"), *devs, *paths, *info, *pairs;
	const cJSON *nc = facts_get(ctx->facts.root, "numa.node_count");
	int one_node = cJSON_IsNumber(nc) && nc->valueint == 1;
	int *idx = xcalloc(s->n + 1, sizeof(*idx)), *numa = xcalloc(s->n + 1, sizeof(*numa));
	size_t n = 0, i, j;
	int rank;
	for (rank = 0; rank < 3; rank++)
		for (i = 0; i < s->n; i++)
			if (mx_rank(&s->d[i]) == rank)
				idx[n++] = (int)i;
	devs = cJSON_AddArrayToObject(m, "devices");
	paths = cJSON_AddArrayToObject(m, "paths");
	info = cJSON_AddArrayToObject(m, "info");
	pairs = cJSON_AddArrayToObject(m, "switch_pairs");
	for (i = 0; i < s->n; i++) {
		int64_t v;
		char *path;
		int r;
		numa[i] = -2;   /* -1: the firmware says -1; -2: unreadable, or no sysfs */
		if (!s->d[i].sys || mx_rank(&s->d[i]) < 0)
			continue;
		path = xasprintf("%s/numa_node", s->d[i].sys);
		r = sr_read_s64(&ctx->sr, path, &v);
		if (r == 0 && v >= 0 && v < SR_MAX_CPUS)
			numa[i] = (int)v;
		else if (r == 0 && v == -1)
			numa[i] = -1;
		free(path);
	}
	for (i = 0; i < n; i++) {
		struct pdev *p = &s->d[idx[i]];
		cJSON *row = cJSON_CreateArray(), *o = cJSON_CreateObject();
		char *base = xasprintf("pci.matrix.info[%zu]", i), *fact;
		int up = uplink_of(s, idx[i]);
		cJSON_AddItemToArray(devs, cJSON_CreateString(p->bdf));
		if (p->sys)
			facts_evidence(&ctx->facts, "pci.matrix.paths", p->sys);
		for (j = 0; j < n; j++) {
			const char *c = path_class(s, idx[i], idx[j], numa, one_node);
			cJSON_AddItemToArray(row, c ? cJSON_CreateString(c) : cJSON_CreateNull());
		}
		cJSON_AddItemToArray(paths, row);

		cJSON_AddStringToObject(o, "bdf", p->bdf);
		cJSON_AddStringToObject(o, "kind", mx_kind(p));
		fact = xasprintf("%s.numa_node", base);
		fj_num_or_null(o, "numa_node", numa[idx[i]] >= 0, numa[idx[i]]);
		if (numa[idx[i]] == -1)
			mx_gap(fact, "the firmware does not report it (numa_node is -1)");
		else if (numa[idx[i]] < 0 && p->sys)
			mx_gap(fact, "%s/numa_node: unreadable, unparsable or out of range", p->sys);
		else if (numa[idx[i]] < 0)
			mx_gap(fact, "a PCI config dump holds no NUMA locality");
		free(fact);
		fact = xasprintf("%s.local_cpus", base);
		if (p->sys) {
			hwloc_bitmap_t set = hwloc_bitmap_alloc();
			char *path = xasprintf("%s/local_cpulist", p->sys), buf[4096];
			int r = sr_read_cpulist(&ctx->sr, path, set);
			if (r == -ENOENT) {
				free(path);
				path = xasprintf("%s/local_cpus", p->sys);
				r = sr_read_cpumask(&ctx->sr, path, set);
			}
			if (r == 0 && !hwloc_bitmap_iszero(set))
				cJSON_AddStringToObject(o, "local_cpus", cpulist_str(set, buf, sizeof(buf)));
			else {
				cJSON_AddNullToObject(o, "local_cpus");
				if (r == 0)
					mx_gap(fact, "%s: empty", path);
				else
					mx_gap(fact, "%s: %s", path, sr_reason(r));
			}
			hwloc_bitmap_free(set);
			free(path);
		} else {
			cJSON_AddNullToObject(o, "local_cpus");
			mx_gap(fact, "a PCI config dump holds no CPU locality");
		}
		free(fact);
		fj_str_or_null(o, "host_bridge", p->root[0] ? p->root : NULL);
		fj_str_or_null(o, "switch", up >= 0 && is_switch_up(&s->d[up]) ? s->d[up].bdf : NULL);
		{
			/* Every switch above it, the outermost first. */
			cJSON *sws = cJSON_AddArrayToObject(o, "switches");
			int q, hops = 0;
			for (q = p->parent; q != NO_PARENT && hops++ < 64; q = s->d[q].parent)
				if (is_switch_up(&s->d[q]))
					cJSON_InsertItemInArray(sws, 0, cJSON_CreateString(s->d[q].bdf));
		}
		fj_str_or_null(o, "port", p->parent != NO_PARENT ? s->d[p->parent].bdf : NULL);
		iommu_json(ctx, p, o, base);
		acs_json(ctx, s, idx[i], o, base);
		bars_json(ctx, p, o, base);
		cJSON_AddItemToArray(info, o);
		free(base);
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			int l, a = idx[i], b = idx[j];
			cJSON *o;
			if (s->d[a].kind != PCI_ACCEL || s->d[b].kind != PCI_NIC)
				continue;
			l = common_bridge(s, a, b);
			if (l == NO_PARENT || (hop_unit(s, l) == l && !is_switch_up(&s->d[l])))
				continue;   /* they meet at a root port or above */
			o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "accelerator", s->d[a].bdf);
			cJSON_AddStringToObject(o, "nic", s->d[b].bdf);
			cJSON_AddStringToObject(o, "switch", s->d[hop_unit(s, l)].bdf);
			cJSON_AddItemToArray(pairs, o);
		}
	mx_gaps_flush(&ctx->facts, n);
	free(idx);
	free(numa);
}

static void scan_release(struct pci_scan *s)
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

/*** The probe ***/

int probe_pci(struct probe_ctx *ctx)
{
	struct facts *f = &ctx->facts;
	struct pci_scan s = { 0 };
	struct pcisrc *src = NULL;
	cJSON *pci = facts_obj(f, "pci"), *accels, *nics, *all;
	char *why = NULL, *err = NULL, *text = NULL;
	size_t i, tlen = 0;
	int r, nolinks = 0, na = 0, nn = 0;

	if (ctx->opts->pci_dump) {
		/* Given on the command line: it is the machine's PCI bus. */
		unsigned (*addrs)[4] = NULL;
		size_t n;
		if (check_dump(ctx, ctx->opts->pci_dump, 0, &why, &text, &tlen) < 0) {
			error("cannot read PCI dump '%s': %s", ctx->opts->pci_dump, why);
			free(why);
			return -EINVAL;
		}
		src = pcisrc_open_text(text, tlen, &err);
		free(text);
		if (!src) {
			error("cannot read PCI dump '%s': %s", ctx->opts->pci_dump, err);
			free(err);
			return -EINVAL;
		}
		n = pcisrc_devices(src, &addrs);
		for (i = 0; i < n; i++)
			add_dev(&s, addrs[i][0], addrs[i][1], addrs[i][2], addrs[i][3]);
		dump_vs_bus(ctx, addrs, n);
		free(addrs);
		s.from_dump = 1;
		s.cfg_evidence = ctx->opts->pci_dump;
	} else {
		r = scan_sysfs(ctx, &s);
		if (r < 0) {
			cJSON_AddNullToObject(pci, "accelerators");
			cJSON_AddNullToObject(pci, "nics");
			facts_gap_read(f, "pci.accelerators", "/sys/bus/pci/devices", r);
			facts_gap_read(f, "pci.nics", "/sys/bus/pci/devices", r);
			cJSON_AddNullToObject(pci, "matrix");
			facts_gap_read(f, "pci.matrix", "/sys/bus/pci/devices", r);
			return 0;
		}
		if (side_in_snapshot(ctx, SIDE_PCI)) {
			/* A snapshot's config space (captured as root). */
			if (check_dump(ctx, "/nodeaudit/pci.dump", 1, &why, &text, &tlen) == 0) {
				s.dump_path = xstrdup("/nodeaudit/pci.dump");
				src = pcisrc_open_text(text, tlen, &err);
				free(text);
				s.cfg_evidence = "/nodeaudit/pci.dump";
			} else
				err = why;
			if (!src) {
				facts_gap(f, "pci", "/nodeaudit/pci.dump: %s; links from sysfs files only", err);
				free(err);
				err = NULL;
			}
		}
		if (!src && !s.dump_path)
			s.cfg_evidence = "config";   /* each function's sysfs config file */
	}
	qsort(s.d, s.n, sizeof(*s.d), pdev_cmp);
	for (i = 0; i < s.n; i++) {
		struct pdev *p = &s.d[i];
		if (p->sys)
			sysfs_link(ctx, p);
		p->kind = p->have_ids ? pci_classify(p->vendor, p->device, p->cls) : PCI_OTHER;
	}
	read_configs(ctx, &s, src, !src && !s.dump_path && !s.from_dump);
	pcisrc_close(src);
	link_parents(&s);

	accels = cJSON_AddArrayToObject(pci, "accelerators");
	nics = cJSON_AddArrayToObject(pci, "nics");
	for (i = 0; i < s.n; i++) {
		struct pdev *p = &s.d[i];
		char *base;
		if (p->kind == PCI_ACCEL) {
			base = xasprintf("pci.accelerators[%d]", na);
			p->json_index = na++;
			cJSON_AddItemToArray(accels, device_json(ctx, &s, (int)i, base));
		} else if (p->kind == PCI_NIC) {
			base = xasprintf("pci.nics[%d]", nn);
			p->json_index = nn++;
			cJSON_AddItemToArray(nics, device_json(ctx, &s, (int)i, base));
		} else
			continue;
		free(base);
	}
	matrix_json(&s, pci, accels);
	pci_matrix_json(ctx, &s, pci);

	/* Every function, for the record (bridges, links of other devices). */
	all = cJSON_AddArrayToObject(pci, "devices");
	for (i = 0; i < s.n; i++) {
		struct pdev *p = &s.d[i];
		cJSON *o = cJSON_CreateObject();
		int unk;
		cJSON_AddStringToObject(o, "bdf", p->bdf);
		hex_id(o, "vendor_id", p->have_ids, p->vendor, 4);
		hex_id(o, "device_id", p->have_ids, p->device, 4);
		hex_id(o, "class", p->have_ids, p->cls >> 8, 4);
		cJSON_AddStringToObject(o, "kind", kind_name(p->kind));
		if (!p->have_ids) {
			/* Unidentified: it may be an accelerator or a NIC we miss. */
			char *fact = xasprintf("pci.devices[%zu].class", i);
			if (p->sys && p->ids_err) {
				char *path = xasprintf("%s/%s", p->sys, p->ids_file);
				facts_gap_read(f, fact, path, p->ids_err);
				free(path);
			} else
				facts_gap(f, fact, "neither sysfs nor config space identify %s", p->bdf);
			free(fact);
		}
		fj_str_or_null(o, "parent", p->parent != NO_PARENT ? s.d[p->parent].bdf : NULL);
		cJSON_AddItemToObject(o, "link", link_json(ctx, &s, (int)i, NULL, p->kind == PCI_ACCEL, &unk));
		nolinks += unk;
		cJSON_AddItemToArray(all, o);
	}
	if (nolinks)
		facts_gap(f, "pci.devices[].link", "%d of %zu functions: no PCIe link, or its figures "
			  "are unreadable (see the accelerators' and NICs' own gaps)", nolinks, s.n);
	fj_str_or_null(pci, "source", s.from_dump ? "dump" : s.dump_path ? "sysfs+dump" : "sysfs");
	scan_release(&s);
	pci_names_release();
	return 0;
}
