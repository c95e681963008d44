/* probe/cpu-kinds-facts.c - cpu.kinds, cpu.hybrid, checked with hwloc and libcpuid */
#include "config.h"
#include "probe/cpu-internal.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/util.h"
#include "read/hwloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_str_or_mixed(cJSON *o, const char *key, const char *const *vals, int n)
{
	int i;
	const char *v = NULL;
	for (i = 0; i < n; i++) {
		if (!vals[i])
			continue;
		if (v && strcmp(v, vals[i])) {
			fj_str_or_null(o, key, "mixed");
			return;
		}
		v = vals[i];
	}
	fj_str_or_null(o, key, v);
}

/* Whether hwloc's CPU kinds could be more than one: hwloc 2.9's Linux
 * backend forms them from cpu_capacity, cpufreq/cpuinfo_max_freq and
 * cpufreq/base_frequency alone (its x86 backend, which reads CPUID, is
 * not loaded), so where each of these is the same on every online CPU
 * (or absent from all) it finds one kind or none. */
static int kinds_inputs_vary(const struct cpu_state *st)
{
	int i;
	for (i = 1; i < st->nc; i++)
		if (st->c[i].capacity != st->c[0].capacity || st->c[i].max_khz != st->c[0].max_khz ||
		    st->c[i].base_khz != st->c[0].base_khz)
			return 1;
	return 0;
}

/* Compare with hwloc's CPU kinds (same sysfs, its own rules).  With one
 * kind of ours and inputs that leave hwloc one kind at most, there is
 * nothing to compare, and hwloc is not loaded to read them again. */
static void crosscheck_hwloc(struct cpu_state *st, const struct ck_result *res,
			     hwloc_bitmap_t *sets, int nk)
{
	hwloc_topology_t t;
	hwloc_bitmap_t hs;
	int nr, i, j, same = 1;
	hwloc_bitmap_t s;
	struct strbuf sb = STRBUF_INIT;
	if (!probe_hwloc_asked(nk <= 1 && !kinds_inputs_vary(st)))
		return;
	t = probe_topology_for(st->ctx, "the CPU kinds", nk > 1 ? "we find more than one kind"
			       : kinds_inputs_vary(st) ? "cpu_capacity or cpufreq differ across CPUs"
			       : "NODEAUDIT_HWLOC_ALWAYS is set");
	if (!t)
		return;
	nr = hwloc_cpukinds_get_nr(t, 0);
	if (nr <= 0 || (nr == 1 && nk <= 1))
		return;
	s = hwloc_bitmap_alloc();
	hs = hwloc_bitmap_alloc();
	for (i = 0; i < nr; i++) {
		hwloc_cpukinds_get_info(t, (unsigned)i, hs, NULL, NULL, NULL, 0);
		hwloc_bitmap_copy(s, hs);
		hwloc_bitmap_and(s, s, st->online);
		if (i)
			strbuf_addstr(&sb, " / ");
		{
			char *l = cpulist_dup(s);
			strbuf_addstr(&sb, l);
			free(l);
		}
		for (j = 0; j < nk; j++)
			if (hwloc_bitmap_isequal(s, sets[j]))
				break;
		if (j == nk)
			same = 0;
	}
	if (nr != nk || !same)
		pc_conflict(&st->pc, "kinds", ck_source_name(res->source), "hwloc cpukinds",
			       "hwloc reports %d CPU kind%s (%s), %s gives %d", nr, nr == 1 ? "" : "s",
			       sb.buf ? sb.buf : "", ck_source_name(res->source), nk);
	strbuf_release(&sb);
	hwloc_bitmap_free(s);
	hwloc_bitmap_free(hs);
}

/* The highest clocks over the kinds: cpu.max_mhz and cpu.base_mhz. */
struct kind_freq {
	double kmax, kbase;
	int has_max, has_base;
};

/* No kinds from the cores: the reason, and cpu.hybrid from libcpuid's
 * core purposes when it has them. */
static void kinds_unknown(struct cpu_state *st, cJSON *cpu, const struct cpuid_info *lib,
			  struct ck_result *res)
{
	int i;
	fj_set(cpu, "kinds", cJSON_CreateNull());
	pc_gap(&st->pc, "kinds", "%s", res->note);
	if (lib && lib->ok && lib->ntypes > 0) {
		int lh = 0;
		for (i = 0; i < lib->ntypes; i++)
			if (lib->t[i].purpose != 0)
				lh = 1;
		fj_bool_or_null(cpu, "hybrid", lh);
		pc_evidence_of(&st->pc, "hybrid", "libcpuid core purposes");
	} else {
		fj_bool_or_null(cpu, "hybrid", -1);
		pc_gap(&st->pc, "hybrid", "core kinds are unknown");
	}
	ck_result_release(res);
}

/* A kind's core_type: the MIDR's part, or the one CPU part /proc/cpuinfo
 * prints for all CPUs where that names them. */
static void kind_core_type(struct cpu_state *st, const struct ck_result *res, int k, cJSON *o)
{
	struct path_cxt pc = st->pc;
	int i;
	pc_setobj(&pc, o, "cpu.kinds[%d]", k);
	if (res->source == CK_MIDR) {
		const char *pn = NULL;
		for (i = 0; i < st->ncores; i++)
			if (res->kind[i] == k) {
				pn = ck_arm_part_name(st->cores[i].part, NULL);
				break;
			}
		fj_str_or_null(o, "core_type", pn);
	} else if (st->arm && st->one_part >= 0) {
		/* One CPU part printed for all CPUs is the reading CPU's:
		 * it names the cores only where they are one kind. */
		const char *pn = res->nkinds == 1 ? ck_arm_part_name(st->one_part, NULL) : NULL;
		fj_str_or_null(o, "core_type", pn);
		if (pn)
			pc_evidence_of(&pc, "core_type", "/proc/cpuinfo: one CPU part for all CPUs, and one kind of core");
		else if (res->nkinds > 1)
			pc_gap(&pc, "core_type", "/proc/cpuinfo prints one CPU part (0x%03lx, the MIDR of "
				  "the CPU that read it) for all CPUs: not evidence for these",
				  st->one_part & 0xfff);
		else
			pc_gap(&pc, "core_type", "CPU part 0x%03lx of implementer 0x%02lx is not a known core",
				  st->one_part & 0xfff, st->one_part >> 12);
	}
}

/* Kind k: its CPUs (into sets[k]), cores, threads, clocks, source, core
 * type, driver and governor, and the gaps of what it lacks. */
static cJSON *kind_object(struct cpu_state *st, const struct ck_result *res, int k,
			  hwloc_bitmap_t *sets, struct kind_freq *kf)
{
	cJSON *o = cJSON_CreateObject();
	struct path_cxt pc = st->pc;
	int cores = 0, threads = 0, nd = 0, i;
	uint64_t mx = 0, bs = 0;
	const char **drv = xcalloc((size_t)st->nc + 1, sizeof(*drv));
	const char **gov = xcalloc((size_t)st->nc + 1, sizeof(*gov));
	char nm[32];
	sets[k] = hwloc_bitmap_alloc();
	for (i = 0; i < st->nc; i++) {
		struct pcpu *p = &st->c[i];
		if (res->kind[p->core] != k)
			continue;
		hwloc_bitmap_set(sets[k], p->id);
		threads++;
		if (st->cores[p->core].first_cpu == p->id)
			cores++;
		if (p->max_khz > mx)
			mx = p->max_khz;
		if (p->base_khz > bs)
			bs = p->base_khz;
		drv[nd] = p->driver;
		gov[nd++] = p->governor;
	}
	cJSON_AddStringToObject(o, "name", ck_kind_name(res->nkinds, k, res->source, nm, sizeof(nm)));
	{
		char *l = cpulist_dup(sets[k]);
		cJSON_AddStringToObject(o, "cpus", l);
		free(l);
	}
	fj_num(o, "cores", cores);
	fj_num(o, "threads", threads);
	fj_num_or_null(o, "max_mhz", mx > 0, (double)mx / 1000.0);
	fj_num_or_null(o, "base_mhz", bs > 0, (double)bs / 1000.0);
	if (mx > 0 && (!kf->has_max || mx / 1000.0 > kf->kmax)) {
		kf->kmax = mx / 1000.0;
		kf->has_max = 1;
	}
	if (bs > 0 && (!kf->has_base || bs / 1000.0 > kf->kbase)) {
		kf->kbase = bs / 1000.0;
		kf->has_base = 1;
	}
	cJSON_AddStringToObject(o, "source", ck_source_name(res->source));
	kind_core_type(st, res, k, o);
	set_str_or_mixed(o, "driver", drv, nd);
	set_str_or_mixed(o, "governor", gov, nd);
	pc_setobj(&pc, o, "cpu.kinds[%d]", k);
	if (!mx)
		pc_gap(&pc, "max_mhz", "no cpufreq cpuinfo_max_freq for these CPUs");
	if (!bs)
		pc_gap(&pc, "base_mhz", "no cpufreq base_frequency or ACPI CPPC nominal_freq for these CPUs");
	if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "driver"))) {
		pc_gap(&pc, "driver", "no cpufreq scaling_driver for these CPUs");
	}
	free(drv);
	free(gov);
	return o;
}

/* The files the kinds were told apart by, and how. */
static void kinds_evidence(struct cpu_state *st, const struct ck_result *res)
{
	static const char *const paths[] = {
		[CK_MIDR] = CPUDIR "/cpu*/regs/identification/midr_el1 or /proc/cpuinfo CPU part",
		[CK_BASE_FREQ] = CPUDIR "/cpu*/cpufreq/base_frequency",
		[CK_CAPACITY] = CPUDIR "/cpu*/cpu_capacity",
		[CK_MAX_FREQ] = CPUDIR "/cpu*/cpufreq/cpuinfo_max_freq",
		[CK_TOPOLOGY] = CPUDIR "/cpu*/{topology/thread_siblings_list,cache/index*/shared_cpu_list}",
	};
	if (res->source > CK_NONE && res->source <= CK_TOPOLOGY)
		pc_evidence_of(&st->pc, "kinds", paths[res->source]);
	pc_evidence_of(&st->pc, "kinds", res->note);
}

/* libcpuid's core purposes, when it has them for this machine. */
static void kinds_vs_libcpuid(struct cpu_state *st, const struct ck_result *res,
			      const struct cpuid_info *lib)
{
	int i;
	if (lib && lib->ok && lib->ntypes > 0) {
		int lh = 0;
		for (i = 0; i < lib->ntypes; i++)
			if (lib->t[i].purpose != 0)
				lh = 1;
		if (lh != (res->nkinds > 1))
			pc_conflict(&st->pc, "hybrid", ck_source_name(res->source), "libcpuid",
				       "libcpuid reports %s, %s gives %d kind%s",
				       lh ? "performance and efficiency cores" : "one core type",
				       ck_source_name(res->source), res->nkinds, res->nkinds == 1 ? "" : "s");
		else if (lh && res->nkinds == 2) {
			int lp = 0, mine = 0;
			for (i = 0; i < lib->ntypes; i++)
				if (lib->t[i].purpose == 1)
					lp += lib->t[i].cores;
			for (i = 0; i < st->ncores; i++)
				if (res->kind[i] == 0)
					mine++;
			if (lp != mine)
				pc_conflict(&st->pc, "kinds", ck_source_name(res->source), "libcpuid",
					       "libcpuid counts %d performance cores, %s %d", lp,
					       ck_source_name(res->source), mine);
		}
	}
}

static void freq_facts(struct cpu_state *st, cJSON *cpu, const struct kind_freq *kf)
{
	fj_num_or_null(cpu, "max_mhz", kf->has_max, kf->kmax);
	if (!kf->has_max)
		pc_gap(&st->pc, "max_mhz", "no cpufreq cpuinfo_max_freq (no cpufreq driver, or a VM)");
	fj_num_or_null(cpu, "base_mhz", kf->has_base, kf->kbase);
	if (!kf->has_base)
		pc_gap(&st->pc, "base_mhz", "no cpufreq base_frequency (intel_pstate's) or ACPI CPPC "
			  "nominal_freq (arm64 servers' firmware)");
	else if (st->base_cppc)
		pc_evidence_of(&st->pc, "base_mhz", CPUDIR "/cpu*/acpi_cppc/nominal_freq");
}

/* cpu.kinds and cpu.hybrid from cpu-kinds.c's grouping of the cores,
 * cross-checked with hwloc and libcpuid; cpu.max_mhz and cpu.base_mhz. */
void cpu_probe_kinds(struct cpu_state *st, cJSON *cpu, const struct cpuid_info *lib)
{
	struct ck_result res;
	cJSON *arr;
	hwloc_bitmap_t sets[CK_MAX_KINDS];
	struct kind_freq kf = { 0, 0, 0, 0 };
	int k;

	if (st->ncores < 0) {
		fj_set(cpu, "kinds", cJSON_CreateNull());
		fj_bool_or_null(cpu, "hybrid", -1);
		pc_gap(&st->pc, "kinds", "cores are unknown (topology files missing or unreadable)");
		pc_gap(&st->pc, "hybrid", "cores are unknown (topology files missing or unreadable)");
		goto freq;
	}
	ck_classify(st->cores, (size_t)st->ncores, &res);
	if (res.nkinds == 0) {
		kinds_unknown(st, cpu, lib, &res);
		goto freq;
	}
	arr = cJSON_AddArrayToObject(cpu, "kinds");
	for (k = 0; k < res.nkinds; k++)
		cJSON_AddItemToArray(arr, kind_object(st, &res, k, sets, &kf));
	fj_bool_or_null(cpu, "hybrid", res.nkinds > 1);
	kinds_evidence(st, &res);
	crosscheck_hwloc(st, &res, sets, res.nkinds);
	kinds_vs_libcpuid(st, &res, lib);
	for (k = 0; k < res.nkinds; k++)
		hwloc_bitmap_free(sets[k]);
	ck_result_release(&res);
freq:
	freq_facts(st, cpu, &kf);
}
