/* probe/probe.h - running the probes: one context, one fact tree, one hwloc load */
#ifndef NODEAUDIT_PROBE_H
#define NODEAUDIT_PROBE_H

#include <stdio.h>
#include <hwloc.h>
#include "lib/facts.h"
#include "read/sysroot.h"
#include "read/libcpuid.h"

/* Inputs besides the sysroot (nodeaudit(1) GLOBAL OPTIONS; one table in probe/sources.c).
 * NULL means: the live source, or the copy stored in the snapshot. */
struct probe_opts {
	const char *sysroot;
	const char *smbios;      /* dmidecode --dump-bin file */
	const char *pci_dump;    /* lspci -xxx output */
	const char *cpuid_dump;  /* libcpuid raw dump */
};

struct probe_ctx {
	struct sysroot sr;
	struct facts facts;
	const struct probe_opts *opts;
	hwloc_topology_t topo;   /* loaded once by probe_topology(); NULL before */
	int topo_failed;         /* 1: hwloc could not load it (message in gaps) */
	hwloc_topology_t bind_topo;  /* probe_bind_topology()'s, live */
	int bind_failed;
	struct cpuid_job cpuid;  /* live: libcpuid's child, started before the probes */
};

/* One probe per subject.  fn fills ctx->facts and returns 0, or a negative
 * errno when it could not run at all (an unreadable --smbios file named on
 * the command line); unreadable facts are gaps, not errors.  Probes print
 * nothing: render/probe-text.c renders the facts. */
struct prober {
	const char *name;
	int (*fn)(struct probe_ctx *ctx);
};
extern const struct prober probers[];
extern const size_t nprobers;

/* "x86" or "ARM": the architecture a word of cpu.isa belongs to
 * (probe/cpu-isa.c's names: avx2, dotprod, sve...); NULL for another word. */
const char *cpu_isa_arch(const char *word);
/* The family of a kernel architecture name (host.arch, uname -m): "x86"
 * for x86_64, i686 and i386, "ARM" for aarch64 and arm*, else NULL. */
const char *arch_family(const char *arch);

/* Open the sysroot, run every probe (or only those named in `only`, a comma
 * list; NULL = all).  Returns 0, or -1 after printing one line. */
int probe_run(struct probe_ctx *ctx, const struct probe_opts *opts, const char *only);
/* libcpuid's child done, an unpacked archive removed, the memory freed and
 * the descriptors closed. */
void probe_release(struct probe_ctx *ctx);

/* hwloc, asked by the probes (probe/hwloc-ask.c).  hwloc's reading of the
 * probed machine, for cross-checks: loaded in a fenced child, live or not
 * (read/hwloc.c); NULL with a gap if it failed. */
hwloc_topology_t probe_topology(struct probe_ctx *ctx);
/* The same, saying under -v why it was asked: what in the probe's own
 * reading leaves hwloc room to differ (why: a short clause). */
hwloc_topology_t probe_topology_for(struct probe_ctx *ctx, const char *part, const char *why);
/* Whether to ask hwloc for a cross-check: where the probe's own reading
 * leaves it room to differ (settled 0). */
int probe_hwloc_asked(int settled);
/* The topology to place and bind threads with (bench): live, hwloc on
 * this system in-process (binding needs a topology of this system); a
 * sysroot, probe_topology(). */
hwloc_topology_t probe_bind_topology(struct probe_ctx *ctx);

/* The probe JSON document: schema, tool, host, facts at top level, gaps,
 * conflicts, evidence.  The facts move into it, not copied: ctx's fact
 * tree is empty after, its gaps, conflicts and evidence NULL (its callers
 * give the context up next). */
cJSON *probe_json(struct probe_ctx *ctx);

/* Each probe, in probe-*.c. */
int probe_host(struct probe_ctx *ctx);
int probe_kernel(struct probe_ctx *ctx);

/* The sysctls the kernel probe always reads (NULL-ended), and one more into
 * kernel.sysctl (e.g. every key a profile mentions): "vm.swappiness" is read
 * from /proc/sys/vm/swappiness, '/' in a name stands for a '.' in a
 * component as for sysctl(8).  A key read already is not read again. */
extern const char *const kernel_sysctls[];
void kernel_probe_sysctl(struct probe_ctx *ctx, const char *name);
int probe_numa(struct probe_ctx *ctx);
/* probe/numa.c parsers: "Node 0 MemTotal: N kB" (or /proc/meminfo's line)
 * into bytes; a nodeN/distance row into a new array.  0 or -EINVAL/-ERANGE. */
int numa_parse_memtotal(const char *text, uint64_t *bytes);
int numa_parse_distances(const char *text, long **out, size_t *n);
/* probe/cpu-cpuinfo.c: split /proc/cpuinfo text into processor blocks as the CPU
 * probe does; returns the number of blocks (for tests and fuzzing). */
size_t cpuinfo_parse_count(const char *text);
/* Whether libcpuid's codename for t is a row of t's own model in its table,
 * not the nearest row's guess (probe/cpu-libcpuid.c). */
struct cpuid_type;
int codename_trusted(const struct cpuid_type *t);
int probe_cpu(struct probe_ctx *ctx);

int probe_pci(struct probe_ctx *ctx);
int probe_memory(struct probe_ctx *ctx);
/* probe/process.c: cgroup limits, rlimits, capabilities, NUMA system calls. */
int probe_process(struct probe_ctx *ctx);

#endif
