/* probe/cpu.c - CPU facts: packages, cores, threads, SMT, core kinds, ISA,
 * caches, frequencies, virtualization.
 *
 * sysfs and /proc/cpuinfo are the primary sources (they replay from a
 * snapshot); hwloc's CPU kinds and libcpuid are cross-checks whose
 * disagreement is reported as a conflict, never silently preferred.
 * probe_cpu() is the list of steps; the steps are in probe/cpu-*.c
 * (probe/cpu-internal.h says which file holds which). */
#include "config.h"
#include "probe/cpu-internal.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/util.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* /proc/cpuinfo into ci (read_ok when it has a processor block). */
static void read_cpuinfo(struct cpu_state *st, struct cpuinfo *ci)
{
	char *buf = NULL;
	size_t len = 0;
	int r = pc_read(&st->pc, &buf, &len, "/proc/cpuinfo");
	if (r == 0 && memchr(buf, '\0', len) == NULL) {
		ci_parse(ci, buf);
		ci->read_ok = ci->n > 0;
		if (!ci->read_ok)
			pc_gap(&st->pc, "isa", "%s: unparsable (no processor entry)", st->pc.path);
	} else
		pc_gap_read(&st->pc, "isa", r ? r : -EINVAL);
	free(buf);
}

/* x86 or ARM: host.arch, else what /proc/cpuinfo's fields say. */
static void set_arch(struct cpu_state *st, const struct cpuinfo *ci)
{
	const char *arch = cJSON_GetStringValue(facts_get(st->f->root, "host.arch"));
	if (arch) {
		const char *fam = arch_family(arch);
		st->x86 = fam && !strcmp(fam, "x86");
		st->arm = fam && !strcmp(fam, "ARM");
	} else if (ci->read_ok) {
		st->x86 = ci_str(ci, &ci->p[0], offsetof(struct ci_proc, vendor)) != NULL;
		st->arm = ci->p[0].implementer >= 0 || ci->g.implementer >= 0;
	}
}

static void online_fact(struct cpu_state *st, cJSON *cpu)
{
	/* Whole, however long (every other CPU of 4096 online: 9.7 KB). */
	char *lst = hwloc_bitmap_iszero(st->online) ? NULL : cpulist_dup(st->online);
	fj_str_or_null(cpu, "online", lst);
	free(lst);
	if (hwloc_bitmap_iszero(st->online))
		pc_gap(&st->pc, "online", "no " CPUDIR "/online, no CPU directories and no /proc/cpuinfo");
}

/* cpu.cores, cpu.threads, cpu.core_cpus. */
static void core_facts(struct cpu_state *st, cJSON *cpu)
{
	int i;
	fj_num_or_null(cpu, "cores", st->ncores >= 0 && st->nc > 0, st->ncores);
	if ((st->ncores < 0 || st->nc == 0) && !st->bad_core)
		pc_gap(&st->pc, "cores", "no thread sibling lists or core ids in " CPUDIR
			  "/cpu*/topology or /proc/cpuinfo");
	else if (st->ncores >= 0 && st->nc > 0)
		pc_evidence_of(&st->pc, "cores", CPUDIR "/cpu*/topology/{core_cpus_list,thread_siblings_list,core_id}");
	fj_num_or_null(cpu, "threads", st->nc > 0, st->nc);
	/* The hardware threads of each physical core, in core order: what a
	 * placement plan needs to take one thread per core. */
	if (st->ncores > 0 && st->nc > 0) {
		cJSON *list = cJSON_AddArrayToObject(cpu, "core_cpus");
		hwloc_bitmap_t set = hwloc_bitmap_alloc();
		int k;
		for (k = 0; k < st->ncores; k++) {
			hwloc_bitmap_zero(set);
			for (i = 0; i < st->nc; i++)
				if (st->c[i].core == k)
					hwloc_bitmap_set(set, (unsigned)st->c[i].id);
			{
				char *l = cpulist_dup(set);
				cJSON_AddItemToArray(list, cJSON_CreateString(l));
				free(l);
			}
		}
		hwloc_bitmap_free(set);
		pc_evidence_of(&st->pc, "core_cpus", CPUDIR "/cpu*/topology/{core_cpus_list,thread_siblings_list,core_id}");
	} else {
		fj_set(cpu, "core_cpus", cJSON_CreateNull());
		pc_gap(&st->pc, "core_cpus", "the physical cores are unknown (see cpu.cores)");
	}
}

/* cpu.smt: active, threads per core, control. */
static void probe_smt(struct cpu_state *st, cJSON *cpu)
{
	cJSON *smt = cJSON_AddObjectToObject(cpu, "smt");
	struct path_cxt pc = st->pc;
	char *ctl = NULL;
	uint64_t act;
	int tpc = 0, active = -1, i, r;
	for (i = 0; st->ncores > 0 && i < st->ncores; i++)
		if (st->cores[i].nthreads > tpc)
			tpc = st->cores[i].nthreads;
	pc_setobj(&pc, smt, "cpu.smt");
	r = pc_read_u64(&pc, &act, "smt/active");
	if (r == 0 && act <= 1) {
		active = (int)act;
		pc_evidence(&pc, "active");
	} else {
		if (r != -ENOENT)
			pc_gap_read(&pc, "active", r ? r : -EINVAL);
		if (tpc > 0) {
			active = tpc > 1;
			pc_evidence_of(&pc, "active", CPUDIR "/cpu*/topology/thread_siblings_list");
		}
	}
	fj_bool_or_null(smt, "active", active);
	if (active < 0)
		pc_gap(&pc, "active", "no smt/active and no thread sibling lists");
	fj_num_or_null(smt, "threads_per_core", tpc > 0, tpc);
	if (tpc <= 0)
		pc_gap(&pc, "threads_per_core", "cores are unknown");
	r = pc_read_str(&pc, &ctl, "smt/control");
	if (r == 0 && (!strcmp(ctl, "on") || !strcmp(ctl, "off") || !strcmp(ctl, "forceoff") ||
		       !strcmp(ctl, "notsupported") || !strcmp(ctl, "notimplemented"))) {
		fj_str_or_null(smt, "control", ctl);
		pc_evidence(&pc, "control");
	} else {
		fj_str_or_null(smt, "control", NULL);
		pc_gap_read(&pc, "control", r ? r : -EINVAL);
	}
	free(ctl);
}

/* AMD family 15h (Bulldozer to Excavator) pairs two integer cores in a
 * compute unit that shares one FPU and the front end: AMD counts both as
 * cores, Linux (topoext) shows the pair as one core with two threads.  The
 * figures stay the kernel's; the other reading is noted. */
static void note_compute_units(struct cpu_state *st)
{
	struct path_cxt pc = st->pc;
	const char *buf = NULL, *p;
	int tpc = 0, i;
	long fam = -1;
	if (!st->x86 || st->ncores <= 0 || pc_read_view(&pc, &buf, NULL, "/proc/cpuinfo") < 0)
		return;
	if (strstr(buf, "AuthenticAMD") && (p = strstr(buf, "\ncpu family")) && (p = strchr(p, ':')))
		fam = strtol(p + 1, NULL, 10);
	if (fam != 0x15)
		return;
	for (i = 0; i < st->ncores; i++)
		if (st->cores[i].nthreads > tpc)
			tpc = st->cores[i].nthreads;
	if (tpc == 2)
		pc_conflict(&st->pc, "cores", "sysfs", "AMD core count",
			       "AMD family 15h: each of these %d cores is a compute unit of two integer cores "
			       "sharing one FPU; AMD counts %d cores, the kernel %d cores of 2 threads",
			       st->ncores, 2 * st->ncores, st->ncores);
	else
		pc_conflict(&st->pc, "cores", "sysfs", "AMD compute units",
			       "AMD family 15h: these %d cores pair into compute units of two integer cores "
			       "sharing one FPU (%d FPUs)", st->ncores, st->ncores / 2);
}

static void cpu_state_release(struct cpu_state *st)
{
	size_t j;
	int i;
	for (i = 0; i < st->nc; i++) {
		hwloc_bitmap_free(st->c[i].sib);
		hwloc_bitmap_free(st->c[i].l2);
		hwloc_bitmap_free(st->c[i].pkgset);
		hwloc_bitmap_free(st->c[i].policy);
		free(st->c[i].driver);
		free(st->c[i].governor);
	}
	for (j = 0; j < st->nci; j++)
		hwloc_bitmap_free(st->ci[j].set);
	free(st->ci);
	free(st->c);
	free(st->cores);
	hwloc_bitmap_free(st->online);
}

int probe_cpu(struct probe_ctx *ctx)
{
	struct cpu_state st;
	struct cpuinfo ci;
	struct cpu_lib lib;
	const char *flags = NULL;
	cJSON *cpu;
	int r;

	memset(&st, 0, sizeof(st));
	memset(&ci, 0, sizeof(ci));
	st.ctx = ctx;
	st.sr = &ctx->sr;
	st.f = &ctx->facts;
	st.online = hwloc_bitmap_alloc();
	cpu = facts_obj(st.f, "cpu");
	pc_init(&st.pc, st.sr, st.f);
	pc_setdir(&st.pc, CPUDIR);
	pc_setobj(&st.pc, cpu, "cpu");

	read_cpuinfo(&st, &ci);
	set_arch(&st, &ci);
	st.one_part = ci.read_ok ? ci.one_part : -1;
	cpu_read_online(&st, &ci);
	cpu_read_cpus(&st, &ci);
	cpu_group_cores(&st);

	online_fact(&st, cpu);
	cpu_count_packages(&st, cpu);
	cpu_package_cpus(&st, cpu);
	note_compute_units(&st);
	core_facts(&st, cpu);
	cpu_probe_clusters(&st, cpu);
	probe_smt(&st, cpu);

	r = cpu_libcpuid(&st, &ci, cpu, &lib);
	if (r == 0) {
		cpu_probe_kinds(&st, cpu, lib.lib_ok && !lib.foreign_dump ? &lib.lib : NULL);
		cpu_probe_isa(&st, &ci, cpu, &flags);
		cpu_isa_vs_libcpuid(&st, &lib, flags);
		cpu_probe_ident(&st, &ci, cpu, &lib);
		cpu_probe_microcode(&st, &ci, cpu);
		cpu_probe_caches(&st, cpu);
	}

	cpu_state_release(&st);
	ci_free(&ci);
	free(lib.foreign);
	return r;
}
