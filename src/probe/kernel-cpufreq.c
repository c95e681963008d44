/* probe/kernel-cpufreq.c - CPU frequency (cpufreq policies, boost, p-state) and cpuidle */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "probe/kernel.h"
#include "read/path.h"
#include "lib/output.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CPUFREQ "/sys/devices/system/cpu/cpufreq"

/* The value all policies share, "mixed" when they differ, NULL when one is
 * unknown and the known ones agree (or there are none). */
static const char *agg(const cJSON *pols, const char *key)
{
	const cJSON *p;
	const char *v = NULL;
	int mixed = 0, unknown = 0;
	cJSON_ArrayForEach(p, pols) {
		const char *s = fj_get_str(p, key);
		if (!s)
			unknown = 1;
		else if (!v)
			v = s;
		else if (strcmp(v, s))
			mixed = 1;
	}
	return mixed ? "mixed" : unknown ? NULL : v;
}

/* A policy's CPU list (not empty), as a member of the policy. */
static void cpus_fact(struct path_cxt *pc, const char *key, const char *name)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int r = pc_read_cpulist(pc, set, "%s", name);
	if (r == 0 && hwloc_bitmap_iszero(set))
		r = -EINVAL;
	fj_list(pc->obj, key, r == 0 ? set : NULL);
	pc_record(pc, key, r);
	hwloc_bitmap_free(set);
}

/* boost: cpufreq/boost (acpi-cpufreq and others), intel_pstate/no_turbo
 * (inverted), else per-policy boost files (amd-pstate). */
static void probe_boost(struct probe_ctx *ctx, cJSON *cf, const cJSON *pols)
{
	static const char *const paths[] = {
		CPUFREQ "/boost", "/sys/devices/system/cpu/intel_pstate/no_turbo",
	};
	struct path_cxt pc;
	size_t i;
	uint64_t v;
	int r = -ENOENT, agree = -1;
	const cJSON *p;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, cf, "kernel.cpufreq");
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		r = pc_read_text_u64(&pc, &v, "%s", paths[i]);
		if (r == -ENOENT)
			continue;
		if (r == 0 && v > 1)
			r = -EINVAL;
		fj_bool_or_null(cf, "boost", r < 0 ? -1 : i == 1 ? !v : (int)v);
		fj_str_or_null(cf, "boost_source", paths[i]);
		pc_record(&pc, "boost", r);
		return;
	}
	cJSON_ArrayForEach(p, pols) {
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(p, "boost");
		if (!cJSON_IsBool(b)) {
			agree = -2;
			break;
		}
		if (agree == -1)
			agree = cJSON_IsTrue(b);
		else if (agree != cJSON_IsTrue(b))
			agree = -3;
	}
	if (agree >= 0) {
		fj_bool_or_null(cf, "boost", agree);
		fj_str_or_null(cf, "boost_source", CPUFREQ "/policy*/boost");
		return;
	}
	fj_bool_or_null(cf, "boost", -1);
	fj_str_or_null(cf, "boost_source", NULL);
	pc_gap(&pc, "boost", "%s",
	       agree == -3 ? "policies differ in boost" :
	       "no boost control (" CPUFREQ "/boost, intel_pstate/no_turbo, policy*/boost)");
}

/* No policy: cf's (pc's object) members null, a gap on it and on
 * kernel.governor (kpc's object's member).  Whether the machine has none
 * is known (1: live, a snapshot, a VM) or not (0: a capture that may just
 * not hold the directory). */
static int no_cpufreq(struct probe_ctx *ctx, struct path_cxt *pc, struct path_cxt *kpc)
{
	const cJSON *virt = facts_get(ctx->facts.root, "host.virtualized");
	cJSON *cf = pc->obj;
	const char *why;
	int known = 1;
	if (!pc_is_dir(pc, "/sys/devices/system/cpu")) {
		why = "/sys/devices/system/cpu: missing (not captured)";
		known = 0;
	} else if (cJSON_IsTrue(virt))
		why = "no cpufreq policies in " CPUFREQ ": the hypervisor controls the CPU frequency";
	else if (!ctx->sr.live && !pc_exists(pc, "/nodeaudit/collected_at")) {
		/* A capture not made by snapshot may simply lack the
		 * directory (ghw's do). */
		why = "no cpufreq policies in " CPUFREQ ": no cpufreq driver, or not captured";
		known = 0;
	} else
		why = "no cpufreq policies in " CPUFREQ ": no cpufreq driver, so the firmware "
		      "or the hypervisor controls the CPU frequency";
	fj_str_or_null(cf, "driver", NULL);
	fj_str_or_null(cf, "governor", NULL);
	fj_str_or_null(cf, "epp", NULL);
	facts_gap(&ctx->facts, pc->at, "%s", why);
	pc_gap(kpc, "governor", "%s", why);
	return known;
}

/* One cpufreq policy directory (pc's) into a new object: an entry of
 * kernel.cpufreq.policies, whose evidence and gaps are the list's. */
static cJSON *read_policy(struct path_cxt *pc_dir, uint64_t id, int *no_epp)
{
	cJSON *p = cJSON_CreateObject();
	struct path_cxt pc = *pc_dir;
	char *s = NULL;
	uint64_t b;
	int r;
	pc_setobj_in(&pc, p, "kernel.cpufreq.policies");
	fj_num(p, "id", (double)id);
	cpus_fact(&pc, "cpus", "affected_cpus");
	cpus_fact(&pc, "related_cpus", "related_cpus");
	pc_text_fact(&pc, "driver", NULL, "scaling_driver");
	pc_text_fact(&pc, "governor", NULL, "scaling_governor");
	r = pc_read_text(&pc, &s, "energy_performance_preference");
	if (r == 0 && !*s)
		r = -EINVAL;
	fj_str_or_null(p, "epp", r == 0 ? s : NULL);
	if (r == -ENOENT)
		(*no_epp)++;
	else
		pc_record(&pc, "epp", r);
	free(s);
	pc_text_u64_fact(&pc, "max_mhz", 1e-3, NULL, "scaling_max_freq");
	pc_text_u64_fact(&pc, "cpuinfo_max_mhz", 1e-3, NULL, "cpuinfo_max_freq");
	/* Per-policy boost (amd-pstate, newer kernels): only when present. */
	r = pc_read_text_u64(&pc, &b, "boost");
	if (r == 0 && b > 1)
		r = -EINVAL;
	if (r == 0)
		fj_bool_or_null(p, "boost", (int)b);
	if (r != -ENOENT)
		pc_record(&pc, "boost", r);
	return p;
}

/* CPUs a policy covers: affected_cpus (related_cpus can be a wider
 * hardware domain whose CPUs have policies of their own). */
static void policy_cover(const cJSON *p, hwloc_bitmap_t set)
{
	hwloc_bitmap_t t = hwloc_bitmap_alloc();
	if (fj_get_str(p, "cpus") && parse_cpulist(fj_get_str(p, "cpus"), t) == 0)
		hwloc_bitmap_or(set, set, t);
	hwloc_bitmap_free(t);
}

/* Kernels before 4.3: each CPU's cpufreq directory of names (the CPU
 * directory's listing) as a policy, the CPUs one covers skipped; how many. */
static int cpu_policies(struct probe_ctx *ctx, cJSON *pols, char **names, size_t n, int *no_epp)
{
	hwloc_bitmap_t covered = hwloc_bitmap_alloc();
	size_t i;
	int npol = 0;
	struct path_cxt pc;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	for (i = 0; i < n; i++) {
		uint64_t id;
		cJSON *p;
		if (!str_startswith(names[i], "cpu") || parse_u64(names[i] + 3, &id) < 0 ||
		    id >= SR_MAX_CPUS || hwloc_bitmap_isset(covered, (unsigned)id))
			continue;
		if (pc_is_dir(&pc, "/sys/devices/system/cpu/%s/cpufreq", names[i])) {
			npol++;
			pc_setdir(&pc, "%s", pc.path);
			p = read_policy(&pc, id, no_epp);
			policy_cover(p, covered);
			cJSON_AddItemToArray(pols, p);
		}
	}
	hwloc_bitmap_free(covered);
	return npol;
}

void probe_cpufreq(struct probe_ctx *ctx)
{
	cJSON *k = facts_obj(&ctx->facts, "kernel");
	cJSON *cf = facts_obj(&ctx->facts, "kernel.cpufreq"), *pols;
	char **names = NULL;
	size_t n = 0, i;
	int npol = 0, no_epp = 0;
	const char *gov, *v;
	char *s = NULL;
	struct path_cxt pc, kpc, dir;

	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, cf, "kernel.cpufreq");
	kpc = pc;
	pc_setobj(&kpc, k, "kernel");
	dir = pc;
	pols = cJSON_CreateArray();
	if (pc_list(&pc, &names, &n, CPUFREQ) < 0)
		n = 0;
	for (i = 0; i < n; i++) {
		uint64_t id;
		if (!str_startswith(names[i], "policy") || parse_u64(names[i] + 6, &id) < 0)
			continue;
		npol++;
		pc_setdir(&dir, CPUFREQ "/%s", names[i]);
		cJSON_AddItemToArray(pols, read_policy(&dir, id, &no_epp));
	}
	sr_free_list(names, n);
	names = NULL;
	n = 0;
	/* Kernels before 4.3 (and captures of them) have no policyN: each
	 * CPU's cpufreq directory is its policy's, shared CPUs listed once. */
	if (npol == 0 && pc_list(&pc, &names, &n, "/sys/devices/system/cpu") == 0)
		npol = cpu_policies(ctx, pols, names, n, &no_epp);
	sr_free_list(names, n);
	fj_set(cf, "policies", pols);

	if (npol == 0) {
		/* policies: [] where the machine is known to have none, null
		 * where the tree may just not hold them. */
		if (!no_cpufreq(ctx, &pc, &kpc)) {
			fj_set(cf, "policies", cJSON_CreateNull());
			pols = NULL;
		}
		fj_str_or_null(k, "governor", NULL);
	} else {
		v = agg(pols, "driver");
		fj_str_or_null(cf, "driver", v);
		if (!v)
			pc_gap(&pc, "driver", "a policy's scaling_driver is unreadable");
		gov = agg(pols, "governor");
		fj_str_or_null(cf, "governor", gov);
		fj_str_or_null(k, "governor", gov);
		if (!gov) {
			pc_gap(&pc, "governor", "a policy's scaling_governor is unreadable");
			pc_gap(&kpc, "governor", "a policy's scaling_governor is unreadable");
		}
		v = agg(pols, "epp");
		fj_str_or_null(cf, "epp", v);
		if (!v && no_epp == npol)
			pc_gap(&pc, "epp", "no energy_performance_preference: the driver '%s' has none",
			       fj_get_str(cf, "driver") ? fj_get_str(cf, "driver") : "?");
		else if (!v)
			pc_gap(&pc, "epp", "a policy's energy_performance_preference is unreadable");
	}
	probe_boost(ctx, cf, pols);

	/* intel_pstate or amd_pstate mode, when either is there. */
	{
		static const char *const st[] = {
			"/sys/devices/system/cpu/intel_pstate/status",
			"/sys/devices/system/cpu/amd_pstate/status",
		};
		for (i = 0; i < ARRAY_SIZE(st); i++) {
			if (pc_read_text(&pc, &s, "%s", st[i]) == 0 && *s) {
				fj_str_or_null(cf, "pstate_status", s);
				pc_evidence(&pc, "pstate_status");
				free(s);
				break;
			}
			free(s);
			s = NULL;
		}
	}
}

void probe_cpuidle(struct probe_ctx *ctx)
{
	cJSON *ci = facts_obj(&ctx->facts, "kernel.cpuidle"), *states, *deepest = NULL;
	const char *dir = "/sys/devices/system/cpu/cpu0/cpuidle";
	struct path_cxt pc;
	char **names;
	size_t n, i;
	int r, no_disable = 0;

	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, ci, "kernel.cpuidle");
	pc_text_fact(&pc, "driver", NULL, "/sys/devices/system/cpu/cpuidle/current_driver");
	r = pc_list(&pc, &names, &n, "%s", dir);
	if (r < 0) {
		fj_set(ci, "states", cJSON_CreateNull());
		fj_set(ci, "deepest_state", cJSON_CreateNull());
		pc_gap(&pc, "deepest_state", "%s: %s", dir,
		       r == -ENOENT ? "missing (no cpuidle driver)" : sr_reason(r));
		return;
	}
	states = cJSON_CreateArray();
	for (i = 0; i < n; i++) {
		uint64_t idx, dis = 0, lat = 0;
		char *name = NULL;
		struct path_cxt st;
		cJSON *e;
		int rd, rl, rn;
		if (!str_startswith(names[i], "state") || parse_u64(names[i] + 5, &idx) < 0)
			continue;
		e = cJSON_CreateObject();
		pc_init(&st, &ctx->sr, &ctx->facts);
		pc_setdir(&st, "%s/%s", dir, names[i]);
		pc_setobj_in(&st, e, "kernel.cpuidle.states");
		rn = pc_read_text(&st, &name, "name");
		if (rn == 0 && !*name)
			rn = -EINVAL;
		if (rn)
			pc_gap_read(&st, "name", rn);
		rd = pc_read_text_u64(&st, &dis, "disable");
		if (rd == -ENOENT)
			no_disable++;
		else if (rd)
			pc_gap_read(&st, "disabled", rd);
		rl = pc_read_text_u64(&st, &lat, "latency");
		if (rl)
			pc_gap_read(&st, "latency_us", rl);
		fj_num(e, "index", (double)idx);
		fj_str_or_null(e, "name", rn == 0 ? name : NULL);
		fj_num_or_null(e, "latency_us", rl == 0, (double)lat);
		fj_bool_or_null(e, "disabled", rd == 0 ? dis != 0 : -1);
		free(name);
		cJSON_AddItemToArray(states, e);
		/* States are numbered shallow to deep: the last enabled one. */
		if (rd == 0 && dis == 0)
			deepest = e;
	}
	sr_free_list(names, n);
	fj_set(ci, "states", states);
	if (deepest && !no_disable)
		fj_set(ci, "deepest_state", cJSON_Duplicate(deepest, 1));
	else if (no_disable) {
		/* Kernels before 3.9 have no per-state 'disable'. */
		fj_set(ci, "deepest_state", cJSON_CreateNull());
		pc_gap(&pc, "deepest_state",
		       "%s/state*/disable: missing (old kernel or not captured), so which states are enabled is unknown", dir);
	} else {
		fj_set(ci, "deepest_state", cJSON_CreateNull());
		pc_gap(&pc, "deepest_state", "%s: no enabled state read", dir);
	}
	pc_evidence_of(&pc, "deepest_state", dir);
}
