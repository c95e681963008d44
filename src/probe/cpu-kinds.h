/* probe/cpu-kinds.h - grouping online cores into kinds (performance, efficiency...) */
#ifndef NODEAUDIT_CPU_KINDS_H
#define NODEAUDIT_CPU_KINDS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The grouping works on cores, not CPUs: the threads of a core are one kind.
 * Each strategy is tried in order and the first that gives a credible answer
 * wins (see ck_classify):
 *   midr           every core has an ARM MIDR part number: one kind per part
 *   base_frequency cpufreq base_frequency on every core (Intel HWP): one kind
 *                  per value, at most 3
 *   cpu_capacity   cpu_capacity on every core, clustered (values within 10%
 *                  are one kind: per-core boost bins are not kinds), 1 to 4
 *                  (ARM SoCs with 3 or 4 core types)
 *   max_frequency  cpuinfo_max_freq, clustered the same way, 1 or 2 (Turbo
 *                  Boost Max 3.0 favours some P-cores by a few percent)
 *   topology       no frequency or capacity anywhere: cores with a private L2
 *                  vs single-thread cores sharing an L2 in clusters
 * A strategy that cannot decide falls through; if none can, the kinds are
 * unknown (nkinds 0) and note says why.
 */

struct ck_core {
	int first_cpu;       /* lowest online CPU of the core */
	int nthreads;        /* online threads */
	int l2_cores;        /* online cores sharing this core's L2 (1 = private), 0 unknown */
	uint64_t base_khz;   /* 0: unknown */
	uint64_t max_khz;    /* 0: unknown */
	uint64_t capacity;   /* 0: unknown */
	long part;           /* (implementer << 12) | MIDR part number, -1 unknown */
};

enum ck_source {
	CK_NONE = 0, CK_MIDR, CK_BASE_FREQ, CK_CAPACITY, CK_MAX_FREQ, CK_TOPOLOGY
};

#define CK_MAX_KINDS 8

struct ck_result {
	enum ck_source source;
	int nkinds;          /* 0: unknown */
	int *kind;           /* per core, 0 = the most performant kind; caller frees */
	char note[256];      /* how the answer was reached, or why there is none */
};

/* Group n cores.  Returns 0 (res->kind allocated even when nkinds is 0). */
int ck_classify(const struct ck_core *cores, size_t n, struct ck_result *res);
void ck_result_release(struct ck_result *res);

/* "midr", "base_frequency", "cpu_capacity", "max_frequency", "topology". */
const char *ck_source_name(enum ck_source s);
/* The kind's name by its rank (0 = most performant) among nkinds:
 * "general" alone; else "performance" for rank 0, "efficiency" for the
 * last, and "mid", "mid2", "mid3"... for the ranks between (s is unused). */
const char *ck_kind_name(int nkinds, int rank, enum ck_source s, char *buf, size_t n);

/* Single-linkage clustering of values (0 = unknown: returns -1): sorted
 * values closer than tol (relative to the larger) share a cluster.  group[i]
 * gets the cluster of value i, 0 for the highest.  Returns the number of
 * clusters. */
int ck_cluster(const uint64_t *vals, size_t n, double tol, int *group);

/* The name of an ARM core from its (implementer << 12) | part ("Cortex-X925"),
 * NULL if unknown; rank is a rough performance order (higher = bigger core),
 * 0 if unknown. */
const char *ck_arm_part_name(long part, int *rank);

#endif
