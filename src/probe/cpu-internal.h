/* probe/cpu-internal.h - the CPU probe's shared state: cpuinfo blocks, per-CPU sysfs, steps */
#ifndef NODEAUDIT_CPU_INTERNAL_H
#define NODEAUDIT_CPU_INTERNAL_H

#include <hwloc.h>
#include "probe/probe.h"
#include "probe/cpu-kinds.h"
#include "read/libcpuid.h"

#include "read/path.h"

#define CPUDIR "/sys/devices/system/cpu"

/* ---- /proc/cpuinfo (probe/cpu-cpuinfo.c) ---- */

struct ci_proc {
	int id;
	char *vendor, *model, *flags;   /* flags: x86 "flags" or ARM "Features" */
	char *microcode;                 /* x86 "microcode" revision, as printed */
	long implementer, part;          /* -1 unknown */
	int64_t phys, coreid;            /* -1 unknown */
	int nfields;                     /* lines of its own block */
	int shared;                      /* its block is one printed for several */
};

struct cpuinfo {
	struct ci_proc *p;
	size_t n;
	struct ci_proc g;     /* lines outside any processor block (ARMv7) */
	int read_ok;
	int increasing;       /* ci_increasing(): 0 not asked, 1 yes, -1 no */
	/* The one (implementer << 12 | part) printed for several processors
	 * (a global or shared block), -1 none: the MIDR of whichever CPU read
	 * the file, not evidence for any other. */
	long one_part;
};

void ci_parse(struct cpuinfo *ci, char *buf);
void ci_free(struct cpuinfo *ci);
const struct ci_proc *ci_find(const struct cpuinfo *ci, int id);
/* A field of a processor, or of the global block when it lacks it. */
const char *ci_str(const struct cpuinfo *ci, const struct ci_proc *p, size_t off);
/* Whether w is one of the space-separated words of list (a flags line). */
int cpu_has_word(const char *list, const char *w);

/* ---- per-CPU sysfs (probe/cpu-topology.c, probe/cpu-caches.c) ---- */

struct pcpu {
	int id;
	int64_t pkg, core_id;
	int pkg_ok, core_ok;
	hwloc_bitmap_t sib;      /* online threads of its core, NULL unknown */
	hwloc_bitmap_t l2;       /* online CPUs sharing its L2, NULL unknown */
	hwloc_bitmap_t pkgset;   /* online CPUs of its package (kernel mask), NULL unknown */
	hwloc_bitmap_t policy;   /* cpufreq related_cpus: CPUs sharing its policy, NULL unknown */
	uint64_t base_khz, max_khz, capacity;
	long part;
	char *driver, *governor;
	int core;
};

struct cache_inst {
	int level;
	int first;              /* the set's first CPU: compared before the sets */
	hwloc_bitmap_t set;
	uint64_t size;
};

struct cpu_state {
	struct probe_ctx *ctx;
	struct sysroot *sr;
	struct facts *f;
	/* Files named under /sys/devices/system/cpu ("cpu%d/online"), facts
	 * of the cpu object ("cpu.cores"). */
	struct path_cxt pc;
	hwloc_bitmap_t online;
	struct pcpu *c;
	int nc;
	struct ck_core *cores;
	int ncores;           /* -1 unknown */
	struct cache_inst *ci;
	size_t nci, aci;
	int arm, x86;
	int base_cppc;           /* a base frequency is ACPI CPPC's nominal_freq */
	int bad_pkg, bad_core;   /* a gap names the garbled file already */
	/* The name (index into read_sib()'s and read_pkgset()'s lists) the
	 * last CPU answered to, tried first for the next: one kernel names
	 * them all alike.  0 before the first. */
	int sib_pref, pkg_pref;
	long one_part;           /* cpuinfo's one MIDR for all CPUs, -1 none */
};

/* The online CPUs, the per-CPU files of each, cores grouped (cpu-topology.c). */
void cpu_read_online(struct cpu_state *st, const struct cpuinfo *ci);
void cpu_read_cpus(struct cpu_state *st, const struct cpuinfo *ci);
void cpu_group_cores(struct cpu_state *st);
/* cpu.clusters, cpu.cluster_cpus (ARM; topology/cluster_cpus_list). */
void cpu_probe_clusters(struct cpu_state *st, cJSON *cpu);
/* CPU p's L2 and L3 into st->ci (one entry per instance) and p->l2 (cpu-caches.c). */
void cpu_read_caches(struct cpu_state *st, struct pcpu *p, int *bad);
/* The cache/index* names of dir (a CPU's cache directory), in order; free
 * with sr_free_list().  A non-directory where the directory or an index
 * belongs: its errno in *err and its path in *bad (malloc'd), when given. */
/* A bound on the walk: a CPU has a handful of cache leaves (L1i, L1d, L2,
 * L3, an L4), never near 64. */
#define CPU_MAX_CACHE_INDEX 64
char **cpu_cache_indexes(struct cpu_state *st, const char *dir, size_t *n, int *err, char **bad);

/* ---- libcpuid (probe/cpu-libcpuid.c) ---- */

/* What libcpuid said, shared by the steps that compare with it. */
struct cpu_lib {
	struct cpuid_info lib;
	const char *libsrc;      /* "live", "dump", "snapshot"; NULL: no CPUID source */
	int lib_ok;
	char *foreign;           /* dump_other_cpu()'s reason, malloc'd, or NULL */
	int foreign_dump;        /* a --cpuid-dump of another CPU */
};

/* Run libcpuid, check it, add cpu.libcpuid.  0, or -EINVAL when a
 * --cpuid-dump named on the command line cannot be read. */
int cpu_libcpuid(struct cpu_state *st, const struct cpuinfo *ci, cJSON *cpu, struct cpu_lib *cl);

/* ---- facts ---- */

/* probe/cpu-packages.c */
void cpu_count_packages(struct cpu_state *st, cJSON *cpu);
void cpu_package_cpus(struct cpu_state *st, cJSON *cpu);
/* probe/cpu-kinds-facts.c */
void cpu_probe_kinds(struct cpu_state *st, cJSON *cpu, const struct cpuid_info *lib);
/* probe/cpu-isa.c */
void cpu_probe_isa(struct cpu_state *st, const struct cpuinfo *ci, cJSON *cpu, const char **first);
void cpu_isa_vs_libcpuid(struct cpu_state *st, const struct cpu_lib *cl, const char *flags);
/* probe/cpu-ident.c */
void cpu_probe_ident(struct cpu_state *st, const struct cpuinfo *ci, cJSON *cpu, const struct cpu_lib *cl);
void cpu_probe_microcode(struct cpu_state *st, const struct cpuinfo *ci, cJSON *cpu);
/* probe/cpu-caches.c */
void cpu_probe_caches(struct cpu_state *st, cJSON *cpu);

#endif
