/* probe/host.c - host identity: name, kernel, architecture, when, as whom */
#include "config.h"
#include "probe/probe.h"
#include "read/path.h"
#include "lib/output.h"
#include "read/smbios.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* The collection time; SOURCE_DATE_EPOCH pins it for reproducible tests. */
static void collected_at(char *buf, size_t n)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	uint64_t v;
	time_t t = time(NULL);
	if (sde && parse_u64(sde, &v) == 0 && v <= (uint64_t)INT64_MAX)
		t = (time_t)v;
	rfc3339_format(t, buf, n);   /* "" past the year 9999 */
}

/* The architecture of a capture, from what its /proc/cpuinfo looks like. */
static const char *arch_from_cpuinfo(const char *ci)
{
	if (strstr(ci, "\nflags\t") || strstr(ci, "vendor_id\t"))
		return strstr(ci, " lm ") || strstr(ci, " lm\n") ? "x86_64" : "i686";
	if (strstr(ci, "CPU implementer")) {
		if (strstr(ci, "AArch64") || strstr(ci, "asimd") || strstr(ci, "CPU architecture: 8"))
			return "aarch64";
		return "arm";
	}
	if (strstr(ci, "\nisa\t") && strstr(ci, "rv64"))
		return "riscv64";
	if (strstr(ci, "POWER") || strstr(ci, "\ncpu\t\t: ppc") || strstr(ci, "PowerPC"))
		return "ppc64";
	if (strstr(ci, "vendor_id       : IBM/S390"))
		return "s390x";
	return NULL;
}

/*** Virtualization: every witness, the first that names a guest decides ***/

struct witness {
	int guest;             /* 1 a guest, 0 bare metal, -1 nothing */
	const char *name;      /* the hypervisor (guest only), may be NULL */
	char *src;             /* the file that decided */
};

static void found(struct witness *w, int guest, const char *name, const char *src)
{
	if (w->guest == 1 || (w->guest == 0 && guest == 0))
		return;
	w->guest = guest;
	w->name = name;
	free(w->src);
	w->src = xstrdup(src);
}

static int word_in(const char *list, const char *w)
{
	size_t n = strlen(w);
	const char *p = list;
	while (p && (p = strstr(p, w))) {
		if ((p == list || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n' || p[n] == '\t'))
			return 1;
		p += n;
	}
	return 0;
}

/* The x86 "hypervisor" CPU flag of the first processor: 1, 0, -1 unknown. */
static int cpu_flag(const char *ci)
{
	const char *p = ci ? strstr(ci, "\nflags") : NULL;
	const char *e;
	char *line;
	int r;
	if (!p)
		return -1;
	e = strchr(p + 1, '\n');
	line = e ? xstrndup(p + 1, (size_t)(e - p - 1)) : xstrdup(p + 1);
	r = word_in(line, "hypervisor");
	free(line);
	return r;
}

/* Hypervisor PCI vendors, most specific first (1af4 virtio devices are
 * also what some DPUs show a bare-metal host). */
static const struct { unsigned vendor; const char *name; } pci_hv[] = {
	{ 0x80ee, "VirtualBox" }, { 0x15ad, "VMware" }, { 0x5853, "Xen" },
	{ 0x1414, "Microsoft Hyper-V" }, { 0x1ab8, "Parallels" }, { 0x1b36, "KVM" },
	{ 0x1234, "KVM" }, { 0x1af4, "KVM" },
};

static int pci_rank(unsigned vendor)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(pci_hv); i++)
		if (pci_hv[i].vendor == vendor)
			return (int)i;
	return -1;
}

/* A plain hex word at s (1 to 8 digits, not "0x"-prefixed) into *v: its
 * length, or 0 for anything else. */
static size_t hex_word(const char *s, unsigned *v)
{
	size_t n = 0;
	unsigned x = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return 0;
	for (;; n++) {
		unsigned char c = (unsigned char)s[n];
		unsigned d = (unsigned)(c - '0') < 10 ? (unsigned)(c - '0') :
			     (unsigned)((c | 0x20) - 'a') < 6 ? (unsigned)((c | 0x20) - 'a') + 10 : 16;
		if (d == 16)
			break;
		x = x << 4 | d;
	}
	if (!n || n > 8)
		return 0;
	*v = x;
	return n;
}

/* sscanf(line, "%x %x", bdf, vd): a line of /proc/bus/pci/devices starts
 * with two plain hex words and a tab, taken without sscanf() (a
 * thousand instructions a line); any other line is sscanf()'s, whose
 * answer is the same on the lines taken here. */
static int pci_bdf_vd(const char *line, size_t len, unsigned *bdf, unsigned *vd)
{
	char *copy;
	size_t n = hex_word(line, bdf);
	int r;
	if (n && (line[n] == ' ' || line[n] == '\t')) {
		const char *p = line + n;
		while (*p == ' ' || *p == '\t')
			p++;
		if (hex_word(p, vd))
			return 2;
	}
	/* The line alone, as strtok_r() gave it: sscanf() would read on
	 * into the next one. */
	copy = xstrndup(line, len);
	r = sscanf(copy, "%x %x", bdf, vd);
	free(copy);
	return r;
}

static void pci_witness(struct sysroot *sr, struct witness *w)
{
	const char *buf = NULL, *line, *next;
	char **names = NULL;
	size_t n = 0, i;
	int best = -1, listed = 0;
	const char *src = NULL;
	/* Read in place (the run's copy: 64 KB on a 64-CPU server), a line at
	 * a time: the two words lead each line. */
	if (sr_read_view(sr, "/proc/bus/pci/devices", &buf, NULL) == 0) {
		for (line = buf; *line; line = next) {
			unsigned bdf, vd;
			int r;
			const char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);
			next = line + len + (nl != NULL);
			if (!len || pci_bdf_vd(line, len, &bdf, &vd) != 2)
				continue;
			listed++;
			r = pci_rank(vd >> 16);
			if (r >= 0 && (best < 0 || r < best)) {
				best = r;
				src = "/proc/bus/pci/devices";
			}
		}
	}
	/* The kernel's list names every function's vendor: sysfs is asked
	 * only without it (captures of sysfs alone), not a second time. */
	if (!listed && sr_list(sr, "/sys/bus/pci/devices", &names, &n) == 0) {
		for (i = 0; i < n; i++) {
			char *path = xasprintf("/sys/bus/pci/devices/%s/vendor", names[i]);
			uint64_t v = 0;
			char *s = NULL;
			char *end = NULL;
			if (sr_read_str(sr, path, &s) == 0 && !strncmp(s, "0x", 2) &&
			    (v = strtoull(s + 2, &end, 16), end && end != s + 2 && !*end)) {
				int r = pci_rank((unsigned)v);
				if (r >= 0 && (best < 0 || r < best)) {
					best = r;
					src = "/sys/bus/pci/devices/*/vendor";
				}
			}
			free(s);
			free(path);
		}
		sr_free_list(names, n);
	}
	if (best >= 0)
		found(w, 1, pci_hv[best].name, src);
}

/* A device-tree property: 1 present (read), 0 absent. */
static int dt_prop(struct sysroot *sr, const char *prop, char **val)
{
	char *p = xasprintf("/proc/device-tree/%s", prop), *buf = NULL;
	size_t len = 0;
	int r = sr_read(sr, p, &buf, &len);
	free(p);
	if (r < 0) {
		p = xasprintf("/sys/firmware/devicetree/base/%s", prop);
		r = sr_read(sr, p, &buf, &len);
		free(p);
	}
	if (r < 0)
		return 0;
	if (val) {
		size_t i;
		for (i = 0; i + 1 < len; i++)   /* string lists: NUL-separated */
			if (buf[i] == '\0')
				buf[i] = '\n';
		*val = buf;
	} else
		free(buf);
	return 1;
}

static void devtree_witness(struct sysroot *sr, struct witness *w)
{
	char *compat = NULL, *hv = NULL;
	if (dt_prop(sr, "compatible", &compat)) {
		if (strstr(compat, "ibm,powernv"))
			found(w, 0, NULL, "/proc/device-tree/compatible");   /* POWER bare metal (OPAL) */
		else if (strstr(compat, "qemu,pseries"))
			found(w, 1, "KVM", "/proc/device-tree/compatible");
	}
	free(compat);
	if (dt_prop(sr, "ibm,partition-name", NULL) && dt_prop(sr, "hmc-managed?", NULL) &&
	    !dt_prop(sr, "chosen/qemu,graphic-width", NULL))
		found(w, 1, "PowerVM", "/proc/device-tree/ibm,partition-name");
	if (dt_prop(sr, "hypervisor/compatible", &hv))
		found(w, 1, strstr(hv, "xen") ? "Xen" : strstr(hv, "kvm") ? "KVM" : NULL,
		      "/proc/device-tree/hypervisor/compatible");
	free(hv);
}

/* s390: every Linux runs in an LPAR (PR/SM) at least; a "Control Program"
 * line names the hypervisor above it (z/VM, KVM). */
static void sysinfo_witness(struct sysroot *sr, struct witness *w, char **owned)
{
	char *buf = NULL, *p;
	if (sr_read(sr, "/proc/sysinfo", &buf, NULL) < 0)
		return;
	if ((p = strstr(buf, "Control Program:"))) {
		char *e = strchr(p, '\n');
		if (e)
			*e = '\0';
		*owned = strsquash(xstrdup(p + strlen("Control Program:")));
		found(w, 1, **owned ? *owned : NULL, "/proc/sysinfo");
	} else if (strstr(buf, "LPAR"))
		found(w, 1, "PR/SM (LPAR)", "/proc/sysinfo");
	free(buf);
}

static void container_witness(struct sysroot *sr, struct witness *w, char **owned)
{
	char *s = NULL;
	if (sr_read_str(sr, "/run/systemd/container", &s) == 0 && *s) {
		*owned = xasprintf("%s (container)", s);
		found(w, 1, *owned, "/run/systemd/container");
	} else if (sr_read(sr, "/.dockerenv", &s, NULL) == 0)
		found(w, 1, "docker (container)", "/.dockerenv");
	else if (sr_read(sr, "/run/.containerenv", &s, NULL) == 0)
		found(w, 1, "podman (container)", "/run/.containerenv");
	else if (sr_is_dir(sr, "/proc/vz") && !sr_is_dir(sr, "/proc/bc"))
		found(w, 1, "OpenVZ (container)", "/proc/vz");
	free(s);
}

static void probe_virt(struct probe_ctx *ctx, const char *arch, const char *ci)
{
	static const char *const dmi[] = { "bios_vendor", "bios_version", "sys_vendor", "product_name",
					   "product_family", "board_vendor", "board_name" };
	struct sysroot *sr = &ctx->sr;
	struct facts *f = &ctx->facts;
	cJSON *h = facts_obj(f, "host");
	struct witness w = { -1, NULL, NULL };
	struct path_cxt pc;
	char *v[ARRAY_SIZE(dmi)] = { NULL }, *hv = NULL, *owned = NULL, *owned2 = NULL, *rel = NULL;
	int flag = -1, dmi_ok = 0;
	size_t i;

	if (arch_family(arch) && !strcmp(arch_family(arch), "x86"))
		flag = cpu_flag(ci);
	pc_init(&pc, sr, f);
	pc_setobj(&pc, h, "host");
	pc_setdir(&pc, "/sys/class/dmi/id");
	for (i = 0; i < ARRAY_SIZE(dmi); i++) {
		if (pc_read_str(&pc, &v[i], "%s", dmi[i]) == 0 && *v[i])
			dmi_ok = 1;
		else {
			free(v[i]);
			v[i] = NULL;
		}
	}
	/* Witnesses that name the hypervisor, most specific first. */
	if (sr_read_str(sr, "/proc/sys/kernel/osrelease", &rel) == 0 && strstr(rel, "Microsoft"))
		found(&w, 1, "WSL (container)", "/proc/sys/kernel/osrelease");
	else if (rel && strstr(rel, "microsoft-standard"))
		found(&w, 1, "Microsoft Hyper-V", "/proc/sys/kernel/osrelease");   /* WSL2 */
	if (dmi_ok) {
		const char *n = smbios_hypervisor_of(v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
		if (n)
			found(&w, 1, n, "/sys/class/dmi/id");
	}
	if (sr_read_str(sr, "/sys/hypervisor/type", &hv) == 0 && *hv)
		found(&w, 1, !strcmp(hv, "xen") ? "Xen" : hv, "/sys/hypervisor/type");
	devtree_witness(sr, &w);
	sysinfo_witness(sr, &w, &owned);
	pci_witness(sr, &w);
	if (flag == 1)
		found(&w, 1, NULL, "/proc/cpuinfo");
	container_witness(sr, &w, &owned2);
	/* Then those that say bare metal. */
	if (flag == 0)
		found(&w, 0, NULL, "/proc/cpuinfo");
	if (dmi_ok && v[2])
		found(&w, 0, NULL, "/sys/class/dmi/id");

	if (w.guest == 1 && !w.name && flag == 1) {
		/* The flag says a guest; the clock source may name it. */
		char *cs = NULL;
		if (pc_read_str(&pc, &cs, "/sys/devices/system/clocksource/clocksource0/available_clocksource") == 0) {
			const char *n = word_in(cs, "kvm-clock") ? "KVM" : word_in(cs, "xen") ? "Xen"
				      : strstr(cs, "hyperv_clocksource") ? "Microsoft Hyper-V" : NULL;
			if (n) {
				w.name = n;
				pc_evidence(&pc, "hypervisor");
			}
		}
		free(cs);
	} else if (w.guest == 1 && w.name)
		pc_evidence_of(&pc, "hypervisor", w.src);
	if (w.guest == 1 && flag == 0 && strcmp(w.src, "/proc/cpuinfo"))
		facts_conflict(f, "host.virtualized", w.src, "/proc/cpuinfo",
			       "%s shows a guest (%s), but the CPU has no hypervisor flag", w.src,
			       w.name ? w.name : "hypervisor not named");

	fj_bool_or_null(h, "virtualized", w.guest);
	fj_str_or_null(h, "hypervisor", w.guest == 1 ? w.name : NULL);
	if (w.guest < 0)
		pc_gap(&pc, "virtualized", "no witness: no x86 hypervisor CPU flag to read, no DMI "
		       "(/sys/class/dmi/id), /sys/hypervisor, device tree, /proc/sysinfo, hypervisor "
		       "PCI vendor or container marker");
	else
		pc_evidence_of(&pc, "virtualized", w.src);
	if (w.guest == 1 && !w.name)
		pc_gap(&pc, "hypervisor", "virtualized (%s), but no DMI vendor, /sys/hypervisor, "
		       "device tree, /proc/sysinfo, PCI vendor or clock source names the hypervisor", w.src);
	for (i = 0; i < ARRAY_SIZE(dmi); i++)
		free(v[i]);
	free(hv);
	free(rel);
	free(w.src);
	/* w.name may point into owned/owned2: the facts hold copies now. */
	free(owned);
	free(owned2);
}

/* host.arch: uname live; a sysroot's own word, else its cpuinfo. */
static void host_arch(struct probe_ctx *ctx, struct path_cxt *pc, cJSON *h)
{
	struct sysroot *sr = &ctx->sr;
	char *s = NULL;
	if (sr->live) {
		struct utsname u;
		fj_str_or_null(h, "arch", uname(&u) == 0 ? u.machine : NULL);
	} else {
		/* A snapshot names its architecture; a hand-made capture is judged
		 * by its cpuinfo. */
		const char *a = NULL;
		if (sr_read_str(sr, "/nodeaudit/arch", &s) == 0 && *s)
			a = s;
		else {
			const char *ci = NULL;
			free(s);
			s = NULL;
			if (sr_read_view(sr, "/proc/cpuinfo", &ci, NULL) == 0) {
				a = arch_from_cpuinfo(ci);
				if (a)
					s = xstrdup(a);
				a = s;
			}
		}
		fj_str_or_null(h, "arch", a);
		if (!a)
			pc_gap(pc, "arch", "the sysroot names no architecture and /proc/cpuinfo does not tell");
	}
	free(s);
}

/* host.sysroot, collected_at and root: this run's, or the snapshot's. */
static void host_capture(struct probe_ctx *ctx, struct path_cxt *pc, cJSON *h)
{
	struct sysroot *sr = &ctx->sr;
	char *s = NULL, when[32];
	fj_str_or_null(h, "sysroot", sr->live ? NULL : ctx->opts->sysroot);
	collected_at(when, sizeof(when));
	if (!sr->live && sr_read_str(sr, "/nodeaudit/collected_at", &s) == 0 && *s) {
		time_t t;
		if (rfc3339_parse(s, &t) == 0)
			fj_str_or_null(h, "collected_at", s);
		else {
			fj_str_or_null(h, "collected_at", NULL);
			pc_gap(pc, "collected_at", "/nodeaudit/collected_at: not an RFC 3339 UTC "
			       "time (YYYY-MM-DDTHH:MM:SSZ)");
		}
	} else if (*when)
		fj_str_or_null(h, "collected_at", when);
	else {
		fj_str_or_null(h, "collected_at", NULL);
		pc_gap(pc, "collected_at", "the clock is past the year 9999");
	}
	free(s);
	s = NULL;
	if (sr->live)
		fj_bool_or_null(h, "root", geteuid() == 0);
	else if (sr_read_str(sr, "/nodeaudit/root", &s) == 0)
		fj_bool_or_null(h, "root", !strcmp(s, "1") ? 1 : !strcmp(s, "0") ? 0 : -1);
	else
		fj_bool_or_null(h, "root", -1);
	free(s);
}

int probe_host(struct probe_ctx *ctx)
{
	struct facts *f = &ctx->facts;
	cJSON *h = facts_obj(f, "host");
	struct path_cxt pc;
	const char *ci = NULL;

	pc_init(&pc, &ctx->sr, f);
	pc_setobj(&pc, h, "host");
	pc_str_fact(&pc, "hostname", NULL, "/proc/sys/kernel/hostname");
	pc_str_fact(&pc, "kernel", NULL, "/proc/sys/kernel/osrelease");
	host_arch(ctx, &pc, h);
	host_capture(ctx, &pc, h);
	/* Here, not in the CPU probe: the host probe always runs, so --only
	 * does not change what the memory and PCI probes see. */
	if (sr_read_view(&ctx->sr, "/proc/cpuinfo", &ci, NULL) < 0)
		ci = NULL;
	probe_virt(ctx, cJSON_GetStringValue(facts_get(f->root, "host.arch")), ci);
	return 0;
}
