/* render/plan-kubelet.c - plan.kubelet as a KubeletConfiguration fragment
 * (YAML written by hand: every string double-quoted, comments wrapped) */
#include "config.h"
#include "render/render.h"
#include "lib/facts.h"
#include "lib/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The kubelet versions each setting needs (Kubernetes' documentation of the
 * CPU, Topology and Memory Managers and their policy options). */
static const struct {
	const char *name, *since;
} versions[] = {
	{ "full-pcpus-only", "since v1.22 (beta, on by default, v1.23; GA v1.33)" },
	{ "distribute-cpus-across-numa", "alpha since v1.23 (featureGates: CPUManagerPolicyAlphaOptions: true); "
	  "beta, on by default, since v1.33" },
	{ "prefer-align-cpus-by-uncorecache", "alpha since v1.32 (featureGates: CPUManagerPolicyAlphaOptions: true); "
	  "beta, on by default, since v1.34" },
	{ "align-by-socket", "alpha since v1.25 (featureGates: CPUManagerPolicyAlphaOptions: true)" },
	{ "strict-cpu-reservation", "since v1.32 (alpha; beta, on by default, v1.33; GA v1.35)" },
	{ "prefer-closest-numa-nodes", "since v1.26 (alpha; beta, on by default, v1.28; GA v1.32)" },
	{ "max-allowable-numa-nodes", "beta, on by default, since v1.31; GA v1.35" },
};

static const char *since(const char *name)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(versions); i++)
		if (!strcmp(versions[i].name, name))
			return versions[i].since;
	return NULL;
}

/* A comment, wrapped at 78 columns; anything but printable ASCII shows as '?'. */
static void comment(FILE *fp, int indent, const char *s)
{
	int col = 0, width = 78 - indent - 2;
	while (s && *s) {
		const char *w = s;
		int len = 0;
		while (*s == ' ')
			s++;
		w = s;
		while (s[len] && s[len] != ' ')
			len++;
		if (!len)
			break;
		if (col && col + 1 + len > width) {
			fputc('\n', fp);
			col = 0;
		}
		if (!col)
			fprintf(fp, "%*s#", indent, "");
		fputc(' ', fp);
		for (int i = 0; i < len; i++)
			fputc(w[i] >= 0x20 && w[i] < 0x7f ? w[i] : '?', fp);
		col += 1 + len;
		s += len;
	}
	if (col)
		fputc('\n', fp);
}

static void commentf(FILE *fp, int indent, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void commentf(FILE *fp, int indent, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	comment(fp, indent, s);
	free(s);
}

/* A double-quoted YAML scalar. */
static void quoted(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\x%02x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

static void keyval(FILE *fp, int indent, const char *key, const char *value)
{
	fprintf(fp, "%*s%s: ", indent, "", key);
	quoted(fp, value);
	fputc('\n', fp);
}

/* The options set, each with why and since when; then those left out, commented. */
static void options(FILE *fp, const char *key, const cJSON *set, const cJSON *notset)
{
	const cJSON *o;
	if (cJSON_GetArraySize(set) > 0) {
		fprintf(fp, "%s:\n", key);
		cJSON_ArrayForEach(o, set) {
			const char *name = fj_get_str(o, "name");
			if (!name || !fj_get_str(o, "value"))
				continue;
			comment(fp, 2, fj_get_str(o, "why"));
			if (since(name))
				commentf(fp, 2, "%s: %s.", name, since(name));
			keyval(fp, 2, name, fj_get_str(o, "value"));
		}
	}
	cJSON_ArrayForEach(o, notset) {
		const char *name = fj_get_str(o, "name");
		if (!name)
			continue;
		commentf(fp, 0, "Not set, %s: %s. %s: %s.", name, fj_get_str(o, "why") ? fj_get_str(o, "why") : "",
			 name, since(name) ? since(name) : "see the kubelet's documentation");
	}
}

static long long mib(const cJSON *k, const char *key)
{
	long long v = 0;
	return fj_int(cJSON_GetObjectItemCaseSensitive(k, key), 0, 1LL << 53, &v) == 1 ? v : 0;
}

void plan_render_kubelet(FILE *fp, const struct doc *d)
{
	const cJSON *plan = d->json;
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(plan, "kubelet"), *n;
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(plan, "host");
	const char *hostname = fj_get_str(host, "hostname");
	const char *profile = fj_get_str(plan, "profile");
	const char *cpu = fj_get_str(k, "cpu_manager_policy"), *topo = fj_get_str(k, "topology_manager_policy");
	const char *mem = fj_get_str(k, "memory_manager_policy");
	const cJSON *resv = cJSON_GetObjectItemCaseSensitive(k, "reserved_memory"), *r;
	long long sys = mib(k, "system_reserved_mib"), kube = mib(k, "kube_reserved_mib");
	long long evict = mib(k, "eviction_hard_mib");
	char buf[64];

	commentf(fp, 0, "KubeletConfiguration fragment from nodeaudit %s (plan --format kubelet) for %s, profile %s.",
		 PACKAGE_VERSION, hostname ? hostname : "this node", profile ? profile : "(none)");
	comment(fp, 0, "Merge these fields into the kubelet's configuration file (often /var/lib/kubelet/config.yaml). "
		       "A new CPU or Memory Manager policy needs a drained node: stop the kubelet, remove "
		       "/var/lib/kubelet/cpu_manager_state and /var/lib/kubelet/memory_manager_state, start it, uncordon.");
	if (!cJSON_IsObject(k)) {
		comment(fp, 0, "The plan has no kubelet section (a plan from another version): nothing to set.");
		return;
	}
	cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(k, "notes"))
		if (cJSON_IsString(n))
			commentf(fp, 0, "Note: %s.", n->valuestring);
	keyval(fp, 0, "apiVersion", "kubelet.config.k8s.io/v1beta1");
	keyval(fp, 0, "kind", "KubeletConfiguration");

	/* CPU Manager */
	comment(fp, 0, "CPU Manager (the static policy: GA since v1.26): Guaranteed pods with whole CPUs get them to themselves.");
	keyval(fp, 0, "cpuManagerPolicy", cpu ? cpu : "none");
	if (cpu && !strcmp(cpu, "static")) {
		options(fp, "cpuManagerPolicyOptions", cJSON_GetObjectItemCaseSensitive(k, "cpu_manager_policy_options"),
			cJSON_GetObjectItemCaseSensitive(k, "cpu_manager_policy_options_not_set"));
		comment(fp, 0, "The plan's housekeeping CPUs (reservedSystemCPUs: since v1.17): the OS, the kubelet and "
			       "the runtime; no Guaranteed pod is given them.");
		keyval(fp, 0, "reservedSystemCPUs", fj_get_str(k, "reserved_system_cpus"));
	}

	/* Topology Manager */
	if (topo) {
		if (!strcmp(topo, "restricted"))
			comment(fp, 0, "Topology Manager (GA since v1.27; topologyManagerScope since v1.20): restricted "
				       "admits a pod only where its CPUs and devices get their preferred, fewest-node "
				       "alignment; scope pod aligns all containers of a pod together. single-numa-node "
				       "is stricter: it rejects any pod larger than one NUMA node.");
		else
			comment(fp, 0, "Topology Manager (GA since v1.27).");
		keyval(fp, 0, "topologyManagerPolicy", topo);
		if (fj_get_str(k, "topology_manager_scope"))
			keyval(fp, 0, "topologyManagerScope", fj_get_str(k, "topology_manager_scope"));
		options(fp, "topologyManagerPolicyOptions", cJSON_GetObjectItemCaseSensitive(k, "topology_manager_policy_options"),
			NULL);
	}

	/* Reservations, which the Memory Manager's reservedMemory must add up to. */
	if (mem && !strcmp(mem, "Static"))
		commentf(fp, 0, "Reservations: the kubelet and the runtime (kubeReserved), the OS (systemReserved: "
			 "1%% of MemTotal, at least 1024Mi) and the hard eviction threshold. The Memory Manager "
			 "requires reservedMemory to add up to their sum: %lldMi + %lldMi + %lldMi = %lldMi.",
			 kube, sys, evict, kube + sys + evict);
	else
		comment(fp, 0, "Reservations: the kubelet and the runtime (kubeReserved), the OS (systemReserved: 1% "
			       "of MemTotal, at least 1024Mi) and the hard eviction threshold.");
	fprintf(fp, "kubeReserved:\n");
	snprintf(buf, sizeof(buf), "%lldMi", kube);
	keyval(fp, 2, "memory", buf);
	fprintf(fp, "systemReserved:\n");
	snprintf(buf, sizeof(buf), "%lldMi", sys);
	keyval(fp, 2, "memory", buf);
	comment(fp, 0, "evictionHard replaces the kubelet's defaults as a whole: they are repeated here.");
	fprintf(fp, "evictionHard:\n");
	snprintf(buf, sizeof(buf), "%lldMi", evict);
	keyval(fp, 2, "memory.available", buf);
	keyval(fp, 2, "nodefs.available", "10%");
	keyval(fp, 2, "nodefs.inodesFree", "5%");
	keyval(fp, 2, "imagefs.available", "15%");

	/* Memory Manager */
	if (mem) {
		comment(fp, 0, "Memory Manager (the Static policy: beta since v1.22, GA since v1.32): Guaranteed pods "
			       "get memory from the NUMA nodes their CPUs are on.");
		keyval(fp, 0, "memoryManagerPolicy", mem);
		if (!strcmp(mem, "Static") && cJSON_GetArraySize(resv) > 0) {
			comment(fp, 0, "Split evenly over the NUMA nodes that hold the housekeeping CPUs.");
			fprintf(fp, "reservedMemory:\n");
			cJSON_ArrayForEach(r, resv) {
				long long id = 0, m = 0;
				/* The kubelet's NUMA ids are 0-63; a size past 2^53 MiB is no size. */
				if (fj_int(cJSON_GetObjectItemCaseSensitive(r, "numa_node"), 0, 63, &id) != 1 ||
				    fj_int(cJSON_GetObjectItemCaseSensitive(r, "memory_mib"), 0, 1LL << 53, &m) != 1)
					continue;
				fprintf(fp, "  - numaNode: %lld\n    limits:\n", id);
				snprintf(buf, sizeof(buf), "%lldMi", m);
				keyval(fp, 6, "memory", buf);
			}
		}
	}
}
