/* probe/cpu-ident.c - vendor, model name, codename and microcode of the CPUs */
#include "config.h"
#include "probe/cpu-internal.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/util.h"
#include "read/smbios.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *vendor_name(const char *vendor_id, long implementer)
{
	static const struct { const char *id; const char *name; } x86[] = {
		{ "GenuineIntel", "Intel" }, { "AuthenticAMD", "AMD" }, { "HygonGenuine", "Hygon" },
		{ "CentaurHauls", "Centaur" }, { "Shanghai", "Zhaoxin" }, { "GenuineTMx86", "Transmeta" },
	};
	static const struct { long id; const char *name; } arm[] = {
		{ 0x41, "ARM" }, { 0x42, "Broadcom" }, { 0x43, "Cavium" }, { 0x46, "Fujitsu" },
		{ 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" }, { 0x50, "APM" }, { 0x51, "Qualcomm" },
		{ 0x53, "Samsung" }, { 0x56, "Marvell" }, { 0x61, "Apple" }, { 0x69, "Intel" },
		{ 0x6d, "Microsoft" }, { 0x70, "Phytium" }, { 0xc0, "Ampere" },
	};
	size_t i;
	if (vendor_id) {
		for (i = 0; i < ARRAY_SIZE(x86); i++)
			if (!strcmp(vendor_id, x86[i].id))
				return x86[i].name;
		return vendor_id;
	}
	for (i = 0; i < ARRAY_SIZE(arm); i++)
		if (arm[i].id == implementer)
			return arm[i].name;
	return NULL;
}

/* cpu.vendor: /proc/cpuinfo's vendor_id, else the implementer of the MIDR,
 * else libcpuid's vendor. */
static void probe_vendor(struct cpu_state *st, const struct cpuinfo *ci, cJSON *cpu,
			 const struct cpu_lib *cl, const char *vid)
{
	const struct cpuid_info *lib = &cl->lib;
	long impl = -1;
	const char *v;
	if (st->nc > 0 && st->c[0].part >= 0)
		impl = st->c[0].part >> 12;
	else if (ci->one_part >= 0)
		impl = ci->one_part >> 12;   /* the vendor, not the core */
	v = vid ? vendor_name(vid, -1) : impl >= 0 ? vendor_name(NULL, impl) : NULL;
	if (!v && cl->lib_ok && lib->ntypes > 0 && lib->t[0].vendor[0])
		v = vendor_name(lib->t[0].vendor, -1);
	fj_str_or_null(cpu, "vendor", v);
	if (!v)
		pc_gap(&st->pc, "vendor", "/proc/cpuinfo names no vendor_id or CPU implementer");
}

/* The processor's name in the sysroot's own SMBIOS table (type 4, its
 * Processor Version: "Kunpeng 920-4826", "Ampere(R) Altra(R) Processor
 * Q80-30 CPU @ 3.0GHz"), malloc'd; NULL when there is no table, its
 * firmware is a hypervisor's, or no populated socket names its CPU
 * (placeholders such as "Not Specified" name none). */
static char *smbios_model(struct cpu_state *st)
{
	static const char *const none[] = { "Not Specified", "Unknown", "To Be Filled By O.E.M.",
					    "Default string", "None", "N/A" };
	char *ep = NULL, *tab = NULL, *err = NULL, *m = NULL;
	size_t eplen = 0, tlen = 0, i, k;
	struct smbios_info si;
	struct path_cxt pc = st->pc;
	memset(&si, 0, sizeof(si));
	pc_setdir(&pc, "/sys/firmware/dmi/tables");
	if (pc_read(&pc, &ep, &eplen, "smbios_entry_point") == 0 &&
	    pc_read(&pc, &tab, &tlen, "DMI") == 0 &&
	    smbios_parse_split((uint8_t *)ep, eplen, (uint8_t *)tab, tlen, &si, &err) == 0 &&
	    !smbios_hypervisor(&si))
		for (i = 0; i < si.nprocs && !m; i++) {
			const char *v = si.procs[i].version;
			int placeholder = 0;
			if (!si.procs[i].populated || !v)
				continue;
			m = strsquash(xstrdup(v));
			for (k = 0; k < ARRAY_SIZE(none); k++)
				placeholder |= !strcasecmp(m, none[k]);
			if (!*m || placeholder) {
				free(m);
				m = NULL;
			}
		}
	smbios_free(&si);
	free(err);
	free(ep);
	free(tab);
	return m;
}

/*
 * The SoC's maker, from Arm SMCCC's SOC_ID as Linux shows it
 * (drivers/firmware/smccc/soc_id.c): /sys/devices/soc0/soc_id is
 * "jep106:BBCC:SSSS", BB the JEP106 bank (continuation codes before the
 * identity code), CC the identity code without its parity bit, SSSS the
 * maker's own SoC number.  The makers of ARM server SoCs (and MediaTek,
 * NVIDIA's partner for the GB10 of the DGX Spark), from JEP106 as
 * OpenOCD's src/helper/jep106.inc lists it; any other code is left as it
 * is, never guessed.
 */
static const struct {
	unsigned char bank, code;
	const char *name;
} jep106[] = {
	{ 0, 0x04, "Fujitsu" },
	{ 0, 0x70, "Qualcomm" },
	{ 3, 0x4c, "Cavium" },
	{ 3, 0x69, "Marvell" },
	{ 3, 0x6b, "NVIDIA" },
	{ 4, 0x26, "MediaTek" },
	{ 4, 0x3b, "Arm" },
	{ 4, 0x55, "Microsoft" },
	{ 7, 0x36, "HiSilicon" },
	{ 7, 0x78, "Annapurna Labs (Amazon)" },
	{ 8, 0x19, "Phytium" },
	{ 8, 0x26, "Google" },
	{ 10, 0x16, "Ampere Computing" },
};

/* "MAKER SoC jep106:BBCC:SSSS" (the raw id alone when the maker is not in
 * the table), malloc'd; NULL when soc0 gives no SMCCC SOC_ID.  why gets
 * the evidence's words. */
static char *soc_model(struct cpu_state *st, char **why)
{
	struct path_cxt pc = st->pc;
	char *s = NULL, *m = NULL;
	const char *maker = NULL;
	unsigned bank, code;
	size_t i;
	*why = NULL;
	if (pc_read_str(&pc, &s, "/sys/devices/soc0/soc_id") < 0)
		return NULL;
	/* Exactly "jep106:" and 9 characters: 4 hex digits, ':', 4 more. */
	for (i = 7; i < 16 && s[i] && (i == 11 ? s[i] == ':' : isxdigit((unsigned char)s[i])); i++)
		;
	if (!strncmp(s, "jep106:", 7) && i == 16 && !s[16] && sscanf(s + 7, "%2x%2x", &bank, &code) == 2) {
		for (i = 0; i < ARRAY_SIZE(jep106) && !maker; i++)
			if (jep106[i].bank == bank && jep106[i].code == code)
				maker = jep106[i].name;
		m = xasprintf("%s%sSoC %s", maker ? maker : "", maker ? " " : "", s);
		*why = xasprintf("%s (SMCCC SOC_ID: JEP106 bank %u, code 0x%02x%s%s)", pc.path, bank,
				 code, maker ? ": " : ", a maker nodeaudit does not name", maker ? maker : "");
	}
	free(s);
	return m;
}

/* arm64 cpuinfo has no model name: the core names, biggest first
 * (malloc'd; NULL when a kind's core type is unknown). */
static char *arm_model_name(const cJSON *cpu)
{
	const cJSON *kinds = cJSON_GetObjectItemCaseSensitive(cpu, "kinds"), *kd;
	struct strbuf sb = STRBUF_INIT;
	char *armmodel = NULL;
	int unknown = 0;
	cJSON_ArrayForEach(kd, kinds) {
		const char *ct = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(kd, "core_type"));
		if (!ct) {
			unknown = 1;
			break;
		}
		if (sb.len)
			strbuf_addstr(&sb, " + ");
		strbuf_addstr(&sb, ct);
	}
	if (!unknown && sb.len)
		armmodel = strbuf_detach(&sb);
	strbuf_release(&sb);
	return armmodel;
}

/* Without cores (no sysfs topology: a container's /proc/cpuinfo alone)
 * there are no kinds, but each CPU's own /proc/cpuinfo block still names
 * its MIDR: the names of those parts, biggest first, when every online CPU
 * has one that the part table knows (malloc'd; NULL otherwise).  A block
 * printed once for several CPUs is no CPU's (st->c[].part is -1 then). */
static char *arm_parts_model_name(const struct cpu_state *st)
{
	const char *names[8];
	int ranks[8], n = 0, i, j, rank;
	struct strbuf sb = STRBUF_INIT;
	for (i = 0; i < st->nc; i++) {
		const char *nm = st->c[i].part >= 0 ? ck_arm_part_name(st->c[i].part, &rank) : NULL;
		if (!nm)
			return NULL;
		for (j = 0; j < n && strcmp(names[j], nm); j++)
			;
		if (j < n)
			continue;
		if (n == (int)ARRAY_SIZE(names))
			return NULL;
		/* insert by rank, descending; equal ranks keep their order */
		for (j = n; j > 0 && ranks[j - 1] < rank; j--) {
			names[j] = names[j - 1];
			ranks[j] = ranks[j - 1];
		}
		names[j] = nm;
		ranks[j] = rank;
		n++;
	}
	for (i = 0; i < n; i++) {
		if (i)
			strbuf_addstr(&sb, " + ");
		strbuf_addstr(&sb, names[i]);
	}
	if (!n) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

/* cpu.codename: libcpuid's, where it is its own row for this CPU and the
 * CPUID data is of this CPU. */
static void probe_codename(struct cpu_state *st, cJSON *cpu, const struct cpu_lib *cl)
{
	const struct cpuid_info *lib = &cl->lib;
	const struct cpuid_type *t = NULL;
	const char *other = NULL;
	int i;
	for (i = 0; cl->lib_ok && i < lib->ntypes; i++)
		if (!t || lib->t[i].purpose == 1)
			t = &lib->t[i];
	/* A dump of another CPU than the probed one (--cpuid-dump
	 * with a sysroot or on a live host) must not name it. */
	if (cl->foreign)
		other = xstrdup(cl->foreign);
	if (other) {
		fj_str_or_null(cpu, "codename", NULL);
		pc_gap(&st->pc, "codename", "%s", other);
		free((char *)other);
	} else if (t && codename_trusted(t)) {
		fj_str_or_null(cpu, "codename", t->codename);
		pc_evidence_of(&st->pc, "codename", "libcpuid");
	} else {
		fj_str_or_null(cpu, "codename", NULL);
		if (t && t->codename[0])
			pc_gap(&st->pc, "codename", "no row of libcpuid's table for this CPU "
				  "(family %d, model %d) is named '%s': that is the nearest "
				  "row's guess, not this CPU's codename", t->ext_family,
				  t->ext_model, t->codename);
		else if (!t && cl->libsrc)
			pc_gap(&st->pc, "codename", "libcpuid did not decode %s CPUID data "
				  "(cpu.libcpuid's gap says why)", !strcmp(cl->libsrc, "dump") ? "the dump's"
				  : !strcmp(cl->libsrc, "snapshot") ? "the snapshot's" : "this CPU's");
		else if (!t && st->arm)
			pc_gap(&st->pc, "codename", "not applicable on ARM: a codename is x86 CPUID's "
				  "(libcpuid); an ARM core is named by its part number (cpu.kinds[].core_type)");
		else
			pc_gap(&st->pc, "codename", t ? "libcpuid names no codename for this CPU"
				  : "no CPUID source (live x86, --cpuid-dump or a snapshot's copy)");
	}
}

/* Vendor, model, codename. */
void cpu_probe_ident(struct cpu_state *st, const struct cpuinfo *ci, cJSON *cpu, const struct cpu_lib *cl)
{
	const struct ci_proc *p0 = st->nc > 0 ? ci_find(ci, st->c[0].id) : NULL;
	const char *vid = ci->read_ok ? ci_str(ci, p0 ? p0 : &ci->p[0], offsetof(struct ci_proc, vendor)) : NULL;
	const char *model = ci->read_ok ? ci_str(ci, p0 ? p0 : &ci->p[0], offsetof(struct ci_proc, model)) : NULL;
	char *armmodel = NULL;
	probe_vendor(st, ci, cpu, cl, vid);
	if (st->arm && st->nc > 0 && (!model || !strncmp(model, "ARMv", 4))) {
		/* The product from the firmware's table, else the SoC's maker
		 * and number with the cores, else the cores. */
		char *soc = NULL, *why = NULL, *cores;
		armmodel = smbios_model(st);
		if (armmodel)
			pc_evidence_of(&st->pc, "model_name", "SMBIOS type 4 (Processor Version)");
		else if ((soc = soc_model(st, &why))) {
			cores = arm_model_name(cpu);
			armmodel = cores ? xasprintf("%s (%s)", soc, cores) : xstrdup(soc);
			pc_evidence_of(&st->pc, "model_name", why);
			free(cores);
		} else if (!(armmodel = arm_model_name(cpu)) &&
			   !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(cpu, "kinds")) &&
			   (armmodel = arm_parts_model_name(st)))
			pc_evidence_of(&st->pc, "model_name", "/proc/cpuinfo (CPU implementer and part of each processor)");
		free(soc);
		free(why);
		if (armmodel)
			model = armmodel;
	}
	fj_str_or_null(cpu, "model_name", model);
	if (!model)
		pc_gap(&st->pc, "model_name", "/proc/cpuinfo has no model name and the core type is unknown");
	probe_codename(st, cpu, cl);
	free(armmodel);
}

/* The microcode revision of the online CPUs: /proc/cpuinfo's "microcode"
 * line (x86), else cpuN/microcode/version; "0x..." when every CPU has the
 * same, "mixed" with a conflict when they differ (a late load that missed
 * some), null with a gap when unknown. */
void cpu_probe_microcode(struct cpu_state *st, const struct cpuinfo *ci, cJSON *cpu)
{
	uint64_t rev = 0, v;
	int id, first = 1, mixed = 0, from_sysfs = 0, missing = 0;
	hwloc_bitmap_foreach_begin(id, st->online) {
		const struct ci_proc *p = ci->read_ok ? ci_find(ci, id) : NULL;
		char *s = NULL, *end;
		int ok = 0;
		if (p && p->microcode) {
			errno = 0;
			v = strtoull(p->microcode, &end, 16);
			ok = !errno && end != p->microcode && !*end;
		}
		if (!ok && pc_read_str(&st->pc, &s, "cpu%d/microcode/version", id) == 0) {
			errno = 0;
			v = strtoull(s, &end, 16);
			ok = !errno && end != s && !*end;
			from_sysfs = 1;
		}
		free(s);
		if (!ok) {
			missing = 1;
			continue;
		}
		if (!first && v != rev)
			mixed = 1;
		if (first || v > rev)
			rev = v;
		first = 0;
	} hwloc_bitmap_foreach_end();
	if (first || missing) {
		fj_set(cpu, "microcode", cJSON_CreateNull());
		if (first && st->arm)
			pc_gap(&st->pc, "microcode", "not applicable on ARM: the kernel reports no microcode "
				  "revision for ARM cores (firmware versions are SMBIOS's)");
		else
			pc_gap(&st->pc, "microcode", first ? "no microcode revision in /proc/cpuinfo or "
				  CPUDIR "/cpu*/microcode/version (x86 kernels print it)"
				  : "the microcode revision of some online CPUs is unknown");
		return;
	}
	if (mixed) {
		fj_str_or_null(cpu, "microcode", "mixed");
		pc_conflict(&st->pc, "microcode", "/proc/cpuinfo", "/proc/cpuinfo",
			       "the online CPUs run different microcode revisions (highest 0x%" PRIx64
			       "): a late load that did not reach every CPU", rev);
	} else {
		char b[32];
		snprintf(b, sizeof(b), "0x%" PRIx64, rev);
		fj_str_or_null(cpu, "microcode", b);
	}
	pc_evidence_of(&st->pc, "microcode", from_sysfs ? CPUDIR "/cpu*/microcode/version" : "/proc/cpuinfo");
}
