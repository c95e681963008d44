/* probe/cpu-kinds.c - grouping online cores into kinds (performance, efficiency...) */
#include "config.h"
#include "probe/cpu-kinds.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Relative tolerance for capacity and maximum frequency: per-core boost bins
 * (Turbo Boost Max 3.0, favoured cores, ARM clusters at slightly different
 * clocks) stay within it; P- and E-cores are 25% or more apart. */
#define CK_TOL 0.10
/* Two clusters at least this far apart are two kinds without the topology
 * agreeing. */
#define CK_GAP 0.20
/* cpu_capacity groups accepted as kinds: ARM SoCs have up to 4 core types
 * (X925 + A725 + A725 at another clock + A520); more is not a core type. */
#define CK_MAX_CAP_KINDS 4

const char *ck_source_name(enum ck_source s)
{
	switch (s) {
	case CK_MIDR: return "midr";
	case CK_BASE_FREQ: return "base_frequency";
	case CK_CAPACITY: return "cpu_capacity";
	case CK_MAX_FREQ: return "max_frequency";
	case CK_TOPOLOGY: return "topology";
	default: return "none";
	}
}

const char *ck_kind_name(int nkinds, int rank, enum ck_source s, char *buf, size_t n)
{
	const char *name;
	(void)s;
	/* By rank alone, whatever the source: the ends are performance and
	 * efficiency (what the planner and the checks look for), the kinds
	 * between them mid, mid2, mid3... from the top. */
	if (nkinds <= 1)
		name = "general";
	else if (rank == 0)
		name = "performance";
	else if (rank == nkinds - 1)
		name = "efficiency";
	else if (rank == 1)
		name = "mid";
	else {
		snprintf(buf, n, "mid%d", rank);
		return buf;
	}
	snprintf(buf, n, "%s", name);
	return buf;
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

int ck_cluster(const uint64_t *vals, size_t n, double tol, int *group)
{
	uint64_t *s;
	int *cl;
	size_t i, j, m = 0;
	int nc = 0;
	for (i = 0; i < n; i++)
		if (vals[i] == 0)
			return -1;
	if (n == 0)
		return 0;
	s = xmalloc(n * sizeof(*s));
	memcpy(s, vals, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_desc);
	for (i = 0; i < n; i++)          /* distinct values, descending */
		if (m == 0 || s[m - 1] != s[i])
			s[m++] = s[i];
	cl = xmalloc(m * sizeof(*cl));
	for (i = 0; i < m; i++) {
		if (i > 0 && (double)(s[i - 1] - s[i]) > tol * (double)s[i - 1])
			nc++;
		cl[i] = nc;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < m; j++)
			if (vals[i] == s[j]) {
				group[i] = cl[j];
				break;
			}
	free(s);
	free(cl);
	return nc + 1;
}

static const struct {
	long part;
	const char *name;
	int rank;
} arm_parts[] = {
	/* ARM Ltd (0x41) */
	{ 0x41c05, "Cortex-A5", 1 }, { 0x41c07, "Cortex-A7", 1 }, { 0x41c08, "Cortex-A8", 2 },
	{ 0x41c09, "Cortex-A9", 2 }, { 0x41c0d, "Cortex-A12", 3 }, { 0x41c0e, "Cortex-A17", 3 },
	{ 0x41c0f, "Cortex-A15", 3 }, { 0x41d01, "Cortex-A32", 1 }, { 0x41d02, "Cortex-A34", 1 },
	{ 0x41d03, "Cortex-A53", 1 }, { 0x41d04, "Cortex-A35", 1 }, { 0x41d05, "Cortex-A55", 1 },
	{ 0x41d06, "Cortex-A65", 2 }, { 0x41d07, "Cortex-A57", 3 }, { 0x41d08, "Cortex-A72", 3 },
	{ 0x41d09, "Cortex-A73", 3 }, { 0x41d0a, "Cortex-A75", 3 }, { 0x41d0b, "Cortex-A76", 3 },
	{ 0x41d0c, "Neoverse-N1", 4 }, { 0x41d0d, "Cortex-A77", 3 }, { 0x41d0e, "Cortex-A76AE", 3 },
	{ 0x41d40, "Neoverse-V1", 4 }, { 0x41d41, "Cortex-A78", 3 }, { 0x41d42, "Cortex-A78AE", 3 },
	{ 0x41d43, "Cortex-A65AE", 2 }, { 0x41d44, "Cortex-X1", 5 }, { 0x41d46, "Cortex-A510", 1 },
	{ 0x41d47, "Cortex-A710", 3 }, { 0x41d48, "Cortex-X2", 5 }, { 0x41d49, "Neoverse-N2", 4 },
	{ 0x41d4a, "Neoverse-E1", 2 }, { 0x41d4b, "Cortex-A78C", 3 }, { 0x41d4c, "Cortex-X1C", 5 },
	{ 0x41d4d, "Cortex-A715", 3 }, { 0x41d4e, "Cortex-X3", 5 }, { 0x41d4f, "Neoverse-V2", 4 },
	{ 0x41d80, "Cortex-A520", 1 }, { 0x41d81, "Cortex-A720", 3 }, { 0x41d82, "Cortex-X4", 5 },
	{ 0x41d83, "Neoverse-V3AE", 4 }, { 0x41d84, "Neoverse-V3", 4 }, { 0x41d85, "Cortex-X925", 5 },
	{ 0x41d87, "Cortex-A725", 3 }, { 0x41d8e, "Neoverse-N3", 4 },
	/* Qualcomm (0x51) */
	{ 0x51800, "Kryo 2xx Gold", 3 }, { 0x51801, "Kryo 2xx Silver", 1 },
	{ 0x51802, "Kryo 3xx Gold", 3 }, { 0x51803, "Kryo 3xx Silver", 1 },
	{ 0x51804, "Kryo 4xx Gold", 3 }, { 0x51805, "Kryo 4xx Silver", 1 },
	{ 0x51c00, "Falkor", 3 }, { 0x51001, "Oryon", 5 },
	/* Apple (0x61) */
	{ 0x61022, "Icestorm", 1 }, { 0x61023, "Firestorm", 5 },
	{ 0x61032, "Blizzard", 1 }, { 0x61033, "Avalanche", 5 },
	/* Ampere (0xc0), HiSilicon (0x48), Fujitsu (0x46), NVIDIA (0x4e) */
	{ 0xc0ac3, "Ampere-1", 4 }, { 0xc0ac4, "Ampere-1a", 4 },
	{ 0x48d01, "TaiShan v110", 4 }, { 0x46001, "A64FX", 4 },
	{ 0x4e004, "Carmel", 4 },
	/* The server parts below: Linux arch/arm64/include/asm/cputype.h
	 * (HISI_CPU_PART_HIP09 0xD02, the Kunpeng 920B's core, first named
	 * TSV200 there; HISI_CPU_PART_HIP12 0xD06; CAVIUM_CPU_PART_THUNDERX*
	 * and BRCM_CPU_PART_VULCAN, ThunderX2's part before Cavium took it;
	 * MICROSOFT_CPU_PART_AZURE_COBALT_100 0xD49, "based on r0p0 of ARM
	 * Neoverse N2"; APM_CPU_PART_XGENE; NVIDIA_CPU_PART_DENVER), and
	 * util-linux's sys-utils/lscpu-arm.c for ThunderX3 (0x43/0x0b8) and
	 * Phytium's FTC66x (implementer 0x70), and for NVIDIA's Olympus
	 * (0x4e/0x010, NVIDIA_CPU_PART_OLYMPUS in cputype.h too), Fujitsu's
	 * MONAKA (0x46/0x003) and HiSilicon's 0xd03 and 0xd22 (both
	 * "Kunpeng-920" there).  Graviton 2/3/4 and Grace are ARM's own
	 * Neoverse N1/V1/V2 (implementer 0x41, above). */
	{ 0x48d02, "TaiShan v120", 4 }, { 0x48d06, "HIP12", 4 },
	{ 0x430a1, "ThunderX", 4 }, { 0x430a2, "ThunderX-81XX", 4 }, { 0x430a3, "ThunderX-83XX", 4 },
	{ 0x430af, "ThunderX2", 4 }, { 0x42516, "ThunderX2", 4 }, { 0x430b8, "ThunderX3", 4 },
	{ 0x6dd49, "Azure Cobalt 100", 4 }, { 0x50000, "X-Gene", 4 }, { 0x4e003, "Denver", 4 },
	{ 0x70660, "FTC660", 4 }, { 0x70661, "FTC661", 4 }, { 0x70662, "FTC662", 4 },
	{ 0x70663, "FTC663", 4 },
	{ 0x4e010, "Olympus", 4 }, { 0x46003, "MONAKA", 4 },
	{ 0x48d03, "Kunpeng-920", 4 }, { 0x48d22, "Kunpeng-920", 4 },
};

const char *ck_arm_part_name(long part, int *rank)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(arm_parts); i++)
		if (arm_parts[i].part == part) {
			if (rank)
				*rank = arm_parts[i].rank;
			return arm_parts[i].name;
		}
	if (rank)
		*rank = 0;
	return NULL;
}

/* Exact grouping by a value known on every core; ranks groups by order[]
 * (descending).  Returns the number of groups or -1. */
static int group_exact(const struct ck_core *c, size_t n, const long *key,
		       const double *order, int *kind)
{
	long keys[CK_MAX_KINDS];
	double sum[CK_MAX_KINDS];
	int cnt[CK_MAX_KINDS], rank[CK_MAX_KINDS];
	int ng = 0, g, h;
	size_t i;
	(void)c;
	for (i = 0; i < n; i++) {
		for (g = 0; g < ng; g++)
			if (keys[g] == key[i])
				break;
		if (g == ng) {
			if (ng == CK_MAX_KINDS)
				return -1;
			keys[ng] = key[i];
			sum[ng] = 0;
			cnt[ng] = 0;
			ng++;
		}
		sum[g] += order[i];
		cnt[g]++;
		kind[i] = g;
	}
	/* rank: how many groups order above this one (ties by key, descending) */
	for (g = 0; g < ng; g++) {
		rank[g] = 0;
		for (h = 0; h < ng; h++) {
			double a = sum[h] / cnt[h], b = sum[g] / cnt[g];
			if (h != g && (a > b || (a == b && keys[h] > keys[g])))
				rank[g]++;
		}
	}
	for (i = 0; i < n; i++)
		kind[i] = rank[kind[i]];
	return ng;
}

static int all_known(const struct ck_core *c, size_t n, size_t off)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (*(const uint64_t *)((const char *)&c[i] + off) == 0)
			return 0;
	return 1;
}

/* The SMT/L2 split of the cores: 2 with kind[] set (0 = cores with a
 * private L2, 1 = single-thread cores sharing one), 1 if every core looks
 * alike, 0 if unknown or ambiguous. */
static int topo_split(const struct ck_core *c, size_t n, int *kind)
{
	size_t i;
	int np = 0, ne = 0, no = 0, same = 1;
	for (i = 0; i < n; i++) {
		if (c[i].l2_cores <= 0 || c[i].nthreads <= 0)
			return 0;
		if (c[i].nthreads != c[0].nthreads || c[i].l2_cores != c[0].l2_cores)
			same = 0;
		if (c[i].l2_cores == 1)
			np++;
		else if (c[i].nthreads == 1)
			ne++;
		else
			no++;
	}
	if (same || np == (int)n || ne == (int)n || no == (int)n)
		return 1;
	if (no > 0 || np == 0 || ne == 0)
		return 0;
	for (i = 0; i < n; i++)
		kind[i] = c[i].l2_cores == 1 ? 0 : 1;
	return 2;
}

static int same_partition(const int *a, const int *b, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

static int try_midr(const struct ck_core *c, size_t n, struct ck_result *r)
{
	long *key = xmalloc(n * sizeof(*key));
	double *order = xmalloc(n * sizeof(*order));
	int cap = all_known(c, n, offsetof(struct ck_core, capacity));
	int mx = all_known(c, n, offsetof(struct ck_core, max_khz));
	int tab = 1, ng;
	size_t i;
	for (i = 0; i < n; i++) {
		int rk;
		if (c[i].part < 0) {
			free(key);
			free(order);
			return 0;
		}
		key[i] = c[i].part;
		if (!ck_arm_part_name(c[i].part, &rk))
			tab = 0;
	}
	/* Which part is the big one: capacity says it best, then the clock,
	 * then what we know of the parts. */
	for (i = 0; i < n; i++) {
		int rk = 0;
		ck_arm_part_name(c[i].part, &rk);
		order[i] = cap ? (double)c[i].capacity : mx ? (double)c[i].max_khz : tab ? rk : 0;
	}
	ng = group_exact(c, n, key, order, r->kind);
	free(key);
	free(order);
	if (ng < 1)
		return 0;
	r->source = CK_MIDR;
	r->nkinds = ng;
	snprintf(r->note, sizeof(r->note), "%d distinct MIDR part number%s, ranked by %s", ng,
		 ng == 1 ? "" : "s", ng == 1 ? "-" : cap ? "cpu_capacity" : mx ? "cpuinfo_max_freq" :
		 tab ? "core model" : "part number");
	return 1;
}

static int try_base(const struct ck_core *c, size_t n, struct ck_result *r)
{
	long *key;
	double *order;
	int ng;
	size_t i;
	if (!all_known(c, n, offsetof(struct ck_core, base_khz)))
		return 0;
	key = xmalloc(n * sizeof(*key));
	order = xmalloc(n * sizeof(*order));
	for (i = 0; i < n; i++) {
		key[i] = (long)c[i].base_khz;
		order[i] = (double)c[i].base_khz;
	}
	ng = group_exact(c, n, key, order, r->kind);
	free(key);
	free(order);
	if (ng < 1 || ng > 3) {
		snprintf(r->note, sizeof(r->note), "base_frequency gives %s groups: not used",
			 ng < 1 ? "too many" : "more than 3");
		return 0;
	}
	if (ng == 1 && all_known(c, n, offsetof(struct ck_core, max_khz))) {
		/* Lunar Lake's P- and E-cores share one base frequency. */
		int *t = xmalloc(n * sizeof(*t)), *m = xmalloc(n * sizeof(*m));
		uint64_t *v = xmalloc(n * sizeof(*v));
		int split;
		for (i = 0; i < n; i++)
			v[i] = c[i].max_khz;
		split = topo_split(c, n, t) == 2 && ck_cluster(v, n, CK_TOL, m) == 2 &&
			same_partition(t, m, n);
		free(t);
		free(m);
		free(v);
		if (split) {
			snprintf(r->note, sizeof(r->note), "one base_frequency, but cpuinfo_max_freq and "
				 "the SMT/L2 topology split the cores the same way");
			return 0;
		}
	}
	r->source = CK_BASE_FREQ;
	r->nkinds = ng;
	snprintf(r->note, sizeof(r->note), "%d distinct base_frequency value%s", ng, ng == 1 ? "" : "s");
	return 1;
}

static int try_cluster(const struct ck_core *c, size_t n, struct ck_result *r, size_t off,
		       enum ck_source src, const char *what)
{
	uint64_t *v;
	size_t i;
	int nc, nd = 0;
	if (!all_known(c, n, off))
		return 0;
	v = xmalloc(n * sizeof(*v));
	for (i = 0; i < n; i++) {
		size_t j;
		v[i] = *(const uint64_t *)((const char *)&c[i] + off);
		for (j = 0; j < i && v[j] != v[i]; j++)
			;
		if (j == i)
			nd++;
	}
	nc = ck_cluster(v, n, CK_TOL, r->kind);
	if (nc < 1 || nc > (src == CK_CAPACITY ? CK_MAX_CAP_KINDS : 2)) {
		free(v);
		snprintf(r->note, sizeof(r->note), "%s gives %d groups even within %d%%: not used",
			 what, nc, (int)(CK_TOL * 100));
		return 0;
	}
	if (nc == 2) {
		/* Two clusters are two kinds only if far apart (P/E cores are 20%
		 * or more apart; AMD CCDs or preferred cores are not) or if the
		 * SMT/L2 topology splits the cores the same way. */
		uint64_t lo_top = UINT64_MAX, hi_bot = 0;
		int *t = xmalloc(n * sizeof(*t)), agree;
		for (i = 0; i < n; i++) {
			if (r->kind[i] == 0 && v[i] < lo_top)
				lo_top = v[i];
			if (r->kind[i] == 1 && v[i] > hi_bot)
				hi_bot = v[i];
		}
		agree = topo_split(c, n, t) == 2 && same_partition(t, r->kind, n);
		free(t);
		if (!agree && (double)(lo_top - hi_bot) < CK_GAP * (double)lo_top) {
			free(v);
			snprintf(r->note, sizeof(r->note), "%s splits the cores by less than %d%% and the "
				 "topology does not agree: not used", what, (int)(CK_GAP * 100));
			return 0;
		}
	}
	free(v);
	r->source = src;
	r->nkinds = nc;
	if (nd > nc)
		snprintf(r->note, sizeof(r->note), "%d distinct %s values within %d%% make %d kind%s",
			 nd, what, (int)(CK_TOL * 100), nc, nc == 1 ? "" : "s");
	else
		snprintf(r->note, sizeof(r->note), "%d distinct %s value%s", nd, what, nd == 1 ? "" : "s");
	return 1;
}

/* Cores with a private L2 (P-cores, with or without SMT) vs single-thread
 * cores that share an L2 with others (E-core clusters). */
static int try_topology(const struct ck_core *c, size_t n, struct ck_result *r)
{
	size_t i;
	int split, np = 0;
	for (i = 0; i < n; i++)
		if (c[i].l2_cores <= 0 || c[i].nthreads <= 0) {
			snprintf(r->note, sizeof(r->note), "no base_frequency, cpu_capacity, "
				 "cpuinfo_max_freq or L2 cache topology to tell core kinds apart");
			return 0;
		}
	split = topo_split(c, n, r->kind);
	if (split == 0) {
		snprintf(r->note, sizeof(r->note), "no usable frequency or capacity data and the "
			 "SMT/L2 topology is ambiguous");
		return 0;
	}
	r->source = CK_TOPOLOGY;
	r->nkinds = split;
	if (split == 1) {
		memset(r->kind, 0, n * sizeof(*r->kind));
		snprintf(r->note, sizeof(r->note), "no usable frequency or capacity data; every core "
			 "has the same SMT and L2 sharing");
		return 1;
	}
	for (i = 0; i < n; i++)
		np += r->kind[i] == 0;
	snprintf(r->note, sizeof(r->note), "no usable frequency or capacity data: %d cores with a "
		 "private L2, %d single-thread cores sharing an L2", np, (int)n - np);
	return 1;
}

int ck_classify(const struct ck_core *cores, size_t n, struct ck_result *res)
{
	memset(res, 0, sizeof(*res));
	res->kind = xcalloc(n ? n : 1, sizeof(*res->kind));
	if (n == 0) {
		snprintf(res->note, sizeof(res->note), "no online core");
		return 0;
	}
	if (try_midr(cores, n, res) || try_base(cores, n, res) ||
	    try_cluster(cores, n, res, offsetof(struct ck_core, capacity), CK_CAPACITY, "cpu_capacity") ||
	    try_cluster(cores, n, res, offsetof(struct ck_core, max_khz), CK_MAX_FREQ, "cpuinfo_max_freq") ||
	    try_topology(cores, n, res))
		return 0;
	res->source = CK_NONE;
	res->nkinds = 0;
	memset(res->kind, 0, n * sizeof(*res->kind));
	return 0;
}

void ck_result_release(struct ck_result *res)
{
	free(res->kind);
	res->kind = NULL;
}
