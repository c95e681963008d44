/* audit/recommend.c - which built-in profile fits a node, and why */
#include "config.h"
#include "audit/recommend.h"
#include "lib/facts.h"
#include "lib/util.h"

#include <stdio.h>
#include <string.h>

/* Below this many cores (performance cores on a hybrid) a node is sized
 * for orchestration, not CPU decode: the CPU profile's memory-per-core and
 * bandwidth figures come from 64-128-core field nodes, and a decode worker
 * per NUMA node needs cores to pin. */
#define DECODE_MIN_CORES 16

int facts_is_guest(const cJSON *root)
{
	return cJSON_IsTrue(facts_get(root, "host.virtualized"));
}

/* Accelerators that are cards (integrated GPUs feed nothing). */
static int discrete_accelerators(const cJSON *root)
{
	const cJSON *d;
	int n = 0;
	cJSON_ArrayForEach(d, facts_get(root, "pci.accelerators"))
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "integrated")))
			n++;
	return n;
}

/* The cores of the fastest kind (all cores on a CPU of one kind), its
 * maximum frequency in *mhz (0: unknown), the number of kinds in *kinds. */
static double fast_cores(const cJSON *root, double *mhz, int *kinds)
{
	const cJSON *k, *ks = facts_get(root, "cpu.kinds");
	double best = -1, cores = 0, v;
	*mhz = 0;
	*kinds = cJSON_GetArraySize(ks);
	cJSON_ArrayForEach(k, ks) {
		double f = fj_get_num(k, "max_mhz", &v) ? v : 0;
		if (f > best && fj_get_num(k, "cores", &v)) {
			best = f;
			cores = v;
			*mhz = f;
		}
	}
	if (*kinds <= 1 && fj_get_num(facts_get(root, "cpu"), "cores", &v))
		cores = v;
	return cores;
}

const char *profile_recommend(const cJSON *root, char **why)
{
	const char *hv = fj_get_str(facts_get(root, "host"), "hypervisor");
	int acc = discrete_accelerators(root), kinds;
	double mhz, cores = fast_cores(root, &mhz, &kinds);
	char freq[48] = "";
	const char *metal = cJSON_IsFalse(facts_get(root, "host.virtualized")) ? "bare metal" :
			    "not known to be a guest";

	if (mhz > 0)
		snprintf(freq, sizeof(freq), " at up to %.0f MHz", mhz);
	if (facts_is_guest(root)) {
		*why = xasprintf("a virtual guest%s%s%s: the host decides the hardware checks (frequency, "
			 "SMT, ECC, memory channels and speed)%s", hv ? " (" : "", hv ? hv : "", hv ? ")" : "",
			 acc ? "; an accelerator is passed through: 'check --profile agent-accelerator-host' "
			       "checks its link" : "");
		return GUEST_PROFILE;
	}
	if (acc) {
		*why = xasprintf("%d PCIe accelerator%s: the CPU feeds %s (link width and speed, NUMA "
			 "locality, uplinks)", acc, acc == 1 ? "" : "s", acc == 1 ? "it" : "them");
		return "agent-accelerator-host";
	}
	if (cores <= 0) {
		*why = xasprintf("%s, no accelerators, core count unknown: the default, CPU decode", metal);
		return "agent-cpu-inference";
	}
	if (cores < DECODE_MIN_CORES) {
		*why = xasprintf("%.0f %score%s%s, fewer than %d: sized for orchestration and tool calls "
			 "rather than CPU decode", cores, kinds > 1 ? "performance " : "", cores == 1 ? "" : "s",
			 freq, DECODE_MIN_CORES);
		return "agent-orchestrator";
	}
	*why = xasprintf("%s, no accelerators, %.0f %score%s%s: CPU decode", metal, cores,
		 kinds > 1 ? "performance " : "", cores == 1 ? "" : "s", freq);
	return "agent-cpu-inference";
}
