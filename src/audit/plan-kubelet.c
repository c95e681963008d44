/* audit/plan-kubelet.c - the kubelet's CPU, Topology and Memory Manager settings
 * for this node, from the facts and the plan's housekeeping CPUs.  Pure:
 * facts and plan in, plan.kubelet out (rendered by render/plan-kubelet.c). */
#include "config.h"
#include "audit/plan.h"
#include "lib/facts.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <hwloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The reservations, in MiB: the kubelet and the runtime, the OS (at least
 * this, or 1% of MemTotal), and the hard eviction threshold. */
enum { KUBE_RESERVED_MIB = 1024, SYSTEM_RESERVED_MIN_MIB = 1024, EVICTION_HARD_MIB = 500 };

/* The kubelet's NUMA limits.  Its NUMA bitmask is one uint64: NUMA node ids
 * 0-63 (pkg/kubelet/cm/topologymanager/bitmask, NewBitMask: "bit number must
 * be in range 0-63").  Its hint providers (the CPU Manager's
 * generateCPUTopologyHints, the Memory Manager's calculateHints) enumerate
 * every subset of the NUMA nodes (bitmask.IterateBitMasks: 2^N - 1 masks),
 * which the Topology Manager allows up to its default
 * max-allowable-numa-nodes, 8 (topology_manager.go, NewManager). */
enum { KUBELET_NUMA_ID_MAX = 63, KUBELET_NUMA_NODES_MAX = 8 };

static void option(cJSON *list, const char *name, const char *value, const char *why)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", name);
	if (value)
		cJSON_AddStringToObject(o, "value", value);
	cJSON_AddStringToObject(o, "why", why);
	cJSON_AddItemToArray(list, o);
}

static void knote(cJSON *k, const char *s)
{
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(k, "notes"), cJSON_CreateString(s));
}

static int whole(const cJSON *v, double *out)
{
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
	    v->valuedouble != floor(v->valuedouble))
		return 0;
	*out = v->valuedouble;
	return 1;
}

/* Whether some last-level cache serves fewer CPUs than the largest NUMA
 * node has: then a node holds several L3 blocks (AMD CCX/CCD, ARM clusters). */
static int l3_split(const cJSON *facts, int max_node_cpus)
{
	const cJSON *groups = facts_get(facts, "cpu.caches.l3.groups"), *g;
	double c;
	if (max_node_cpus <= 0)
		return 0;
	cJSON_ArrayForEach(g, groups)
		if (whole(cJSON_GetObjectItemCaseSensitive(g, "cpus_per_instance"), &c) && c > 0 && c < max_node_cpus)
			return 1;
	if (!cJSON_IsArray(groups) && whole(facts_get(facts, "cpu.caches.l3.cpus_per_instance"), &c) &&
	    c > 0 && c < max_node_cpus)
		return 1;
	return 0;
}

/* Whether the distances between nodes with CPUs take more than one value.
 * node[]: the nodes with CPUs; cpu_idx[]: their positions in the rows. */
static int distances_vary(const cJSON *const *node, const int *cpu_idx, int n, int total)
{
	double first = -1, *full;
	const cJSON *v;
	int i, j, vary = 0, ok = 1;
	if (n > 1024)   /* not compared past this (n^2): left unset */
		return 0;
	full = xcalloc((size_t)(total > 0 ? total : 1), sizeof(*full));
	for (i = 0; i < n && ok && !vary; i++) {
		const cJSON *row = cJSON_GetObjectItemCaseSensitive(node[i], "distances");
		int m = 0;
		if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != total) {
			ok = 0;
			break;
		}
		/* Read once, in order: cJSON's index lookup is linear. */
		cJSON_ArrayForEach(v, row) {
			if (!cJSON_IsNumber(v))
				ok = 0;
			full[m++] = ok ? v->valuedouble : 0;
		}
		for (j = 0; j < n && ok; j++) {
			double x = full[cpu_idx[j]];
			if (i == j)
				continue;
			if (first < 0)
				first = x;
			else if (x != first)
				vary = 1;
		}
	}
	free(full);
	return ok && vary;
}

/* What the kubelet's sections share: the nodes with CPUs, the housekeeping CPUs. */
struct kube {
	cJSON *k;
	const cJSON *house;
	const char *hcpus;
	hwloc_bitmap_t hset, nset;
	int nnodes;
	int *cpu_idx;
	const cJSON **node;
	int ncpu, max_cpus, static_cpu;
	double packages, node_count;
	double max_id;       /* the highest NUMA node id, CPUs or not (-1: none known) */
	int managers_off;    /* 1: the Topology and Memory Managers stay off (why in the notes) */
};

/* The nodes with CPUs, in the plan's order; the packages and the node count. */
static void kube_nodes(struct kube *kb, const cJSON *facts, const cJSON *nodes)
{
	const cJSON *nd;
	double v;
	int i = 0;
	kb->max_id = -1;
	cJSON_ArrayForEach(nd, nodes) {
		if (whole(cJSON_GetObjectItemCaseSensitive(nd, "id"), &v) && v > kb->max_id)
			kb->max_id = v;
		if (whole(cJSON_GetObjectItemCaseSensitive(nd, "cpu_count"), &v) && v > 0) {
			kb->node[kb->ncpu] = nd;
			kb->cpu_idx[kb->ncpu++] = i;
			if (v > kb->max_cpus)
				kb->max_cpus = v > 1e9 ? 1000000000 : (int)v;
		}
		i++;
	}
	whole(facts_get(facts, "cpu.packages"), &kb->packages);
	if (!whole(facts_get(facts, "numa.node_count"), &kb->node_count) || kb->node_count > 1048576)
		kb->node_count = kb->nnodes;
}

/* Whether the node is within what the kubelet's NUMA code handles: else the
 * Topology and Memory Managers stay off, with the reason. */
static void kube_numa_limits(struct kube *kb)
{
	char *s;
	if (!kb->ncpu)
		return;
	if (kb->max_id > KUBELET_NUMA_ID_MAX) {
		kb->managers_off = 1;
		s = xasprintf("NUMA node %.0f: the kubelet's NUMA bitmask takes node ids 0-63 only "
			      "(pkg/kubelet/cm/topologymanager/bitmask: \"bit number must be in range 0-63\"), and "
			      "every node counts, memory-only ones (GPU memory, CXL) too: the Topology Manager "
			      "(topologyManagerPolicy none) and the Memory Manager (memoryManagerPolicy None) are "
			      "left off",
			      kb->max_id);
		knote(kb->k, s);
		free(s);
	} else if (kb->node_count > KUBELET_NUMA_NODES_MAX) {
		kb->managers_off = 1;
		s = xasprintf("%.0f NUMA nodes: the kubelet's hint providers enumerate every subset of the nodes "
			      "(2^%.0f - 1 masks per resource, for each pod) under every Topology Manager policy but "
			      "none, and the Memory Manager's Static policy does so for each allocation; the "
			      "Kubernetes documentation keeps the Topology Manager to 8 NUMA nodes and calls "
			      "max-allowable-numa-nodes above 8 a setting at your own risk, with pod admission "
			      "slower as nodes are added.  topologyManagerPolicy none (no hints) and "
			      "memoryManagerPolicy None; for NUMA alignment, fewer nodes per socket in the firmware "
			      "(NPS1, SNC off) bring the count to 8 or fewer",
			      kb->node_count, kb->node_count);
		knote(kb->k, s);
		free(s);
	}
}

/*** CPU Manager ***/
static void kube_cpu_manager(struct kube *kb, const cJSON *facts)
{
	cJSON *k = kb->k, *opts, *notset;
	const cJSON *house = kb->house;
	const char *hcpus = kb->hcpus;
	const cJSON *smt = facts_get(facts, "cpu.smt.active");
	const int ncpu = kb->ncpu;
	const double packages = kb->packages;
	int split;
	kb->static_cpu = hcpus && *hcpus && parse_cpulist(hcpus, kb->hset) == 0 && !hwloc_bitmap_iszero(kb->hset);
	cJSON_AddStringToObject(k, "cpu_manager_policy", kb->static_cpu ? "static" : "none");
	opts = cJSON_AddArrayToObject(k, "cpu_manager_policy_options");
	notset = cJSON_AddArrayToObject(k, "cpu_manager_policy_options_not_set");
	if (kb->static_cpu) {
		cJSON_AddStringToObject(k, "reserved_system_cpus", hcpus);
		if (fj_get_str(house, "kind") && !strcmp(fj_get_str(house, "kind"), "efficiency"))
			knote(k, "hybrid CPU: reservedSystemCPUs are the E-cores; the kubelet does not tell core kinds "
				 "apart, so Guaranteed pods get P-cores only because the E-cores are reserved");
		if (cJSON_IsTrue(smt))
			option(opts, "full-pcpus-only", "true",
			       "SMT is on: a container gets whole cores, never a sibling thread another container shares");
		else if (!cJSON_IsBool(smt))
			option(notset, "full-pcpus-only", NULL, "whether SMT is on is unknown (cpu.smt.active)");
		split = l3_split(facts, kb->max_cpus);
		if (split)
			option(opts, "prefer-align-cpus-by-uncorecache", "true",
			       "a NUMA node holds several last-level (L3) caches: a container's CPUs are "
			       "taken from as few of them as possible");
		if (ncpu > 1 && !split && kb->node_count > KUBELET_NUMA_NODES_MAX)
			option(notset, "distribute-cpus-across-numa", NULL,
			       "more than 8 NUMA nodes: the CPU Manager tries combinations of nodes for a container "
			       "larger than one node (takeByTopologyNUMADistributed), without bound on this many");
		else if (ncpu > 1 && !split)
			option(opts, "distribute-cpus-across-numa", "true",
			       "several NUMA nodes have CPUs: a container larger than one node gets an even share of each");
		else if (ncpu > 1)
			option(notset, "distribute-cpus-across-numa", NULL,
			       "the kubelet refuses it together with prefer-align-cpus-by-uncorecache");
		if (packages > 0 && ncpu > packages)
			option(notset, "align-by-socket", NULL,
			       "the NUMA nodes split the packages (SNC/NPS): aligning by socket keeps a container "
			       "larger than a node on one package; alpha (featureGates: CPUManagerPolicyAlphaOptions: true)");
		option(notset, "strict-cpu-reservation", NULL,
		       "keeps every pod, DaemonSets and BestEffort pods too, off reservedSystemCPUs; "
		       "set it where monitoring and logging run outside pods");
	} else {
		cJSON_AddNullToObject(k, "reserved_system_cpus");
		knote(k, "cpuManagerPolicy none: the plan keeps no housekeeping CPUs (--reserve 0, or the cores "
			 "are unknown), and the static policy needs a CPU reservation above zero");
	}
}

/*** Topology Manager ***/
static void kube_topology(struct kube *kb)
{
	cJSON *k = kb->k, *topts;
	const int ncpu = kb->ncpu;
	topts = cJSON_AddArrayToObject(k, "topology_manager_policy_options");
	if (!ncpu) {
		cJSON_AddNullToObject(k, "topology_manager_policy");
		knote(k, "the NUMA nodes (or their CPUs) are unknown: the Topology and Memory Managers are "
			 "left at their defaults");
	} else if (ncpu == 1) {
		cJSON_AddStringToObject(k, "topology_manager_policy", "none");
		knote(k, "one NUMA node with CPUs: nothing for the Topology Manager to align");
	} else if (kb->managers_off) {
		cJSON_AddStringToObject(k, "topology_manager_policy", "none");
	} else {
		cJSON_AddStringToObject(k, "topology_manager_policy", "restricted");
		cJSON_AddStringToObject(k, "topology_manager_scope", "pod");
		if (distances_vary(kb->node, kb->cpu_idx, ncpu, kb->nnodes))
			option(topts, "prefer-closest-numa-nodes", "true",
			       "the distances between nodes differ: a pod that needs several nodes gets the nearest");
	}
}

/* The Memory Manager's share of sum MiB per node: where the housekeeping
 * CPUs are (the OS allocates near them), else every node with CPUs. */
static void kube_reserved_memory(struct kube *kb, cJSON *resv, long long sum)
{
	cJSON *k = kb->k;
	const cJSON *nd;
	const int ncpu = kb->ncpu;
	int *tgt = xcalloc((size_t)ncpu, sizeof(*tgt)), nt = 0, j;
	for (j = 0; j < ncpu; j++) {
		const char *nc = fj_get_str(kb->node[j], "cpus");
		if (kb->static_cpu && nc && parse_cpulist(nc, kb->nset) == 0 &&
		    hwloc_bitmap_intersects(kb->nset, kb->hset))
			tgt[nt++] = j;
	}
	if (!nt)
		for (j = 0; j < ncpu; j++)
			tgt[nt++] = j;
	cJSON_AddStringToObject(k, "memory_manager_policy", "Static");
	for (j = 0; j < nt; j++) {
		cJSON *e = cJSON_CreateObject();
		double id;
		long long share = sum / nt + (j < sum % nt ? 1 : 0);
		if (!share) {   /* more nodes than MiB: the rest get none */
			cJSON_Delete(e);
			continue;
		}
		nd = kb->node[tgt[j]];
		if (!whole(cJSON_GetObjectItemCaseSensitive(nd, "id"), &id)) {
			cJSON_Delete(e);
			cJSON_Delete(cJSON_DetachItemFromObject(k, "memory_manager_policy"));
			cJSON_AddStringToObject(k, "memory_manager_policy", "None");
			cJSON_Delete(cJSON_DetachItemFromObject(k, "reserved_memory"));
			resv = cJSON_AddArrayToObject(k, "reserved_memory");
			knote(k, "a NUMA node's id is unknown: memoryManagerPolicy None");
			break;
		}
		cJSON_AddNumberToObject(e, "numa_node", id);
		cJSON_AddNumberToObject(e, "memory_mib", (double)share);
		cJSON_AddItemToArray(resv, e);
	}
	free(tgt);
}

/*** Memory: the reservations, and the Memory Manager's share per node ***/
static void kube_memory(struct kube *kb, const cJSON *facts)
{
	cJSON *k = kb->k, *resv;
	double total_mib = -1;
	long long sys_mib, sum, v;
	const cJSON *total = facts_get(facts, "memory.total_bytes");
	/* Bytes up to 2^60 (1 EiB): past that no machine, and a number the
	 * reservation's MiB could not be written from. */
	int got = fj_int(total, 0, 1LL << 60, &v);
	if (got > 0)
		total_mib = (double)v / 1048576.0;
	sys_mib = SYSTEM_RESERVED_MIN_MIB;
	if (total_mib > 0 && ceil(total_mib / 100) > sys_mib)
		sys_mib = (long long)ceil(total_mib / 100);
	else if (got < 0) {
		char *s = xasprintf("memory.total_bytes is %.15g, not a byte count: systemReserved memory is "
				    "the 1024Mi floor", total->valuedouble);
		knote(k, s);
		free(s);
	} else if (total_mib < 0)
		knote(k, "MemTotal is unknown: systemReserved memory is the 1024Mi floor");
	cJSON_AddNumberToObject(k, "system_reserved_mib", (double)sys_mib);
	cJSON_AddNumberToObject(k, "kube_reserved_mib", KUBE_RESERVED_MIB);
	cJSON_AddNumberToObject(k, "eviction_hard_mib", EVICTION_HARD_MIB);
	sum = sys_mib + KUBE_RESERVED_MIB + EVICTION_HARD_MIB;
	resv = cJSON_AddArrayToObject(k, "reserved_memory");
	if (kb->ncpu > 1 && !kb->managers_off)
		kube_reserved_memory(kb, resv, sum);
	else {
		cJSON_AddStringToObject(k, "memory_manager_policy", "None");
		if (kb->ncpu == 1)
			knote(k, "memoryManagerPolicy None: with one NUMA node every allocation is local");
	}
}

void plan_kubelet(cJSON *plan, const cJSON *facts)
{
	struct kube kb = { 0 };
	const cJSON *nodes = facts_get(facts, "numa.nodes");

	kb.k = cJSON_AddObjectToObject(plan, "kubelet");
	kb.house = cJSON_GetObjectItemCaseSensitive(plan, "housekeeping");
	kb.hcpus = fj_get_str(kb.house, "cpus");
	kb.hset = hwloc_bitmap_alloc();
	kb.nset = hwloc_bitmap_alloc();
	kb.nnodes = cJSON_IsArray(nodes) ? cJSON_GetArraySize(nodes) : 0;
	kb.cpu_idx = xcalloc((size_t)(kb.nnodes ? kb.nnodes : 1), sizeof(*kb.cpu_idx));
	kb.node = xcalloc((size_t)(kb.nnodes ? kb.nnodes : 1), sizeof(*kb.node));

	cJSON_AddArrayToObject(kb.k, "notes");
	kube_nodes(&kb, facts, nodes);
	kube_numa_limits(&kb);
	kube_cpu_manager(&kb, facts);
	kube_topology(&kb);
	kube_memory(&kb, facts);
	free(kb.cpu_idx);
	free(kb.node);
	hwloc_bitmap_free(kb.hset);
	hwloc_bitmap_free(kb.nset);
}
