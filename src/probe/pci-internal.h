/* probe/pci-internal.h - what the PCI probe's files share: a function, the scan, their steps */
#ifndef NODEAUDIT_PCI_INTERNAL_H
#define NODEAUDIT_PCI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "lib/facts.h"
#include "read/libpci.h"
#include "probe/pci.h"

struct probe_ctx;
struct sysroot;

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
	int npkg;                   /* CPUs pkg has room for */
};

/* pci-scan.c: the functions, from sysfs or a dump */
int pci_pdev_cmp(const void *pa, const void *pb);
struct pdev *pci_add_dev(struct pci_scan *s, unsigned dom, unsigned bus, unsigned dev, unsigned fn);
int pci_find_bdf(const struct pci_scan *s, const char *bdf);
void pci_sysfs_link(struct probe_ctx *ctx, struct pdev *p);
int pci_scan_sysfs(struct probe_ctx *ctx, struct pci_scan *s);
int pci_read_dump(struct probe_ctx *ctx, const char *path, int in_sysroot, char **why,
		  struct pcisrc **srcp);
void pci_dump_vs_bus(struct probe_ctx *ctx, unsigned (*addrs)[4], size_t n);
void pci_scan_release(struct pci_scan *s);

/* pci-links.c: links and the tree of ports */
double pci_speed_code(unsigned c);
void pci_link_parents(struct pci_scan *s);
int pci_is_switch_up(const struct pdev *p);
int pci_uplink_of(const struct pci_scan *s, int i);
int pci_link_known(const struct pdev *p);
uint64_t pci_usable_max(const struct pci_scan *s, int i);
void pci_speed_num(cJSON *o, const char *key, double v);
/* The link's evidence and gaps: at's member key (read/path.h). */
struct path_cxt;
void pci_add_link_evidence(struct pci_scan *s, const struct pdev *p, const struct path_cxt *at,
			   const char *key);
cJSON *pci_link_json(struct probe_ctx *ctx, struct pci_scan *s, int i, const struct path_cxt *at,
		     const char *key, int is_accel, int *unknown);

/* pci-config.c: config space */
void pci_read_configs(struct probe_ctx *ctx, struct pci_scan *s, struct pcisrc *src, int sysfs_cfg);
void pci_ext_info(struct probe_ctx *ctx, struct pdev *p);
const char *pci_ext_why(const struct probe_ctx *ctx, const struct pdev *p, int err);

/* pci-devices.c: pci.accelerators[], pci.nics[], pci.topology_matrix */
void pci_hex_id(cJSON *o, const char *key, int have, unsigned v, int digits);
/* Device i, entry json_index of pci's member list ("accelerators"). */
cJSON *pci_device_json(struct probe_ctx *ctx, struct pci_scan *s, int i, const char *list);
const char *pci_kind_name(enum pci_kind k);
void pci_topology_matrix(struct pci_scan *s, cJSON *pci, const cJSON *accels);

/* pci-matrix.c: pci.matrix */
void pci_matrix_json(struct probe_ctx *ctx, struct pci_scan *s, cJSON *pci);

#endif
