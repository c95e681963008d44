/* probe/kernel-cpufreq.c - CPU frequency (cpufreq policies, boost, p-state) and cpuidle */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "probe/kernel.h"
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

static void cpus_fact(struct probe_ctx *ctx, cJSON *obj, const char *key, const char *path)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char buf[1024];
	int r = sr_read_cpulist(&ctx->sr, path, set);
	if (r == 0 && hwloc_bitmap_iszero(set))
		r = -EINVAL;
	fj_str_or_null(obj, key, r == 0 ? cpulist_str(set, buf, sizeof(buf)) : NULL);
	if (r == 0)
		facts_evidence(&ctx->facts, "kernel.cpufreq.policies", path);
	else
		facts_gap_read(&ctx->facts, "kernel.cpufreq.policies", path, r);
	hwloc_bitmap_free(set);
}

/* boost: cpufreq/boost (acpi-cpufreq and others), intel_pstate/no_turbo
 * (inverted), else per-policy boost files (amd-pstate). */
static void probe_boost(struct probe_ctx *ctx, cJSON *cf, const cJSON *pols)
{
	static const char *const paths[] = {
		CPUFREQ "/boost", "/sys/devices/system/cpu/intel_pstate/no_turbo",
	};
	size_t i;
	uint64_t v;
	int r = -ENOENT, agree = -1;
	const cJSON *p;
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		r = kernel_read_u64(ctx, paths[i], &v);
		if (r == -ENOENT)
			continue;
		if (r == 0 && v > 1)
			r = -EINVAL;
		if (r == 0) {
			fj_bool_or_null(cf, "boost", i == 1 ? !v : (int)v);
			fj_str_or_null(cf, "boost_source", paths[i]);
			facts_evidence(&ctx->facts, "kernel.cpufreq.boost", paths[i]);
		} else {
			fj_bool_or_null(cf, "boost", -1);
			fj_str_or_null(cf, "boost_source", paths[i]);
			facts_gap_read(&ctx->facts, "kernel.cpufreq.boost", paths[i], r);
		}
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
	facts_gap(&ctx->facts, "kernel.cpufreq.boost", "%s",
		  agree == -3 ? "policies differ in boost" :
		  "no boost control (" CPUFREQ "/boost, intel_pstate/no_turbo, policy*/boost)");
}

static void no_cpufreq(struct probe_ctx *ctx, cJSON *cf)
{
	const cJSON *virt = facts_get(ctx->facts.root, "host.virtualized");
	const char *why;
	if (!sr_is_dir(&ctx->sr, "/sys/devices/system/cpu"))
		why = "/sys/devices/system/cpu: missing (not captured)";
	else if (cJSON_IsTrue(virt))
		why = "no cpufreq policies in " CPUFREQ ": the hypervisor controls the CPU frequency";
	else if (!ctx->sr.live && !sr_exists(&ctx->sr, "/nodeaudit/collected_at"))
		/* A capture not made by snapshot may simply lack the
		 * directory (ghw's do). */
		why = "no cpufreq policies in " CPUFREQ ": no cpufreq driver, or not captured";
	else
		why = "no cpufreq policies in " CPUFREQ ": no cpufreq driver, so the firmware "
		      "or the hypervisor controls the CPU frequency";
	fj_str_or_null(cf, "driver", NULL);
	fj_str_or_null(cf, "governor", NULL);
	fj_str_or_null(cf, "epp", NULL);
	facts_gap(&ctx->facts, "kernel.cpufreq", "%s", why);
	facts_gap(&ctx->facts, "kernel.governor", "%s", why);
}

/* One cpufreq policy directory into a new object. */
static cJSON *read_policy(struct probe_ctx *ctx, const char *dir, uint64_t id, int *no_epp)
{
	cJSON *p = cJSON_CreateObject();
	char *path, *s = NULL;
	int r;
	fj_num(p, "id", (double)id);
	path = xasprintf("%s/affected_cpus", dir);
	cpus_fact(ctx, p, "cpus", path);
	free(path);
	path = xasprintf("%s/related_cpus", dir);
	cpus_fact(ctx, p, "related_cpus", path);
	free(path);
	path = xasprintf("%s/scaling_driver", dir);
	kernel_str_fact(ctx, p, "driver", "kernel.cpufreq.policies", path, NULL);
	free(path);
	path = xasprintf("%s/scaling_governor", dir);
	kernel_str_fact(ctx, p, "governor", "kernel.cpufreq.policies", path, NULL);
	free(path);
	path = xasprintf("%s/energy_performance_preference", dir);
	r = kernel_read_line(ctx, path, &s);
	if (r == 0 && *s) {
		fj_str_or_null(p, "epp", s);
		facts_evidence(&ctx->facts, "kernel.cpufreq.policies", path);
	} else {
		fj_str_or_null(p, "epp", NULL);
		if (r == -ENOENT)
			(*no_epp)++;
		else
			facts_gap_read(&ctx->facts, "kernel.cpufreq.policies", path, r ? r : -EINVAL);
	}
	free(s);
	s = NULL;
	free(path);
	path = xasprintf("%s/scaling_max_freq", dir);
	kernel_u64_fact(ctx, p, "max_mhz", "kernel.cpufreq.policies", path, 1e-3, NULL);
	free(path);
	path = xasprintf("%s/cpuinfo_max_freq", dir);
	kernel_u64_fact(ctx, p, "cpuinfo_max_mhz", "kernel.cpufreq.policies", path, 1e-3, NULL);
	free(path);
	/* Per-policy boost (amd-pstate, newer kernels): only when present. */
	path = xasprintf("%s/boost", dir);
	{
		uint64_t b;
		r = kernel_read_u64(ctx, path, &b);
		if (r == 0 && b <= 1) {
			fj_bool_or_null(p, "boost", (int)b);
			facts_evidence(&ctx->facts, "kernel.cpufreq.policies", path);
		} else if (r != -ENOENT)
			facts_gap_read(&ctx->facts, "kernel.cpufreq.policies", path, r ? r : -EINVAL);
	}
	free(path);
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
	for (i = 0; i < n; i++) {
		uint64_t id;
		char *dir;
		cJSON *p;
		if (!str_startswith(names[i], "cpu") || parse_u64(names[i] + 3, &id) < 0 ||
		    id >= SR_MAX_CPUS || hwloc_bitmap_isset(covered, (unsigned)id))
			continue;
		dir = xasprintf("/sys/devices/system/cpu/%s/cpufreq", names[i]);
		if (sr_is_dir(&ctx->sr, dir)) {
			npol++;
			p = read_policy(ctx, dir, id, no_epp);
			policy_cover(p, covered);
			cJSON_AddItemToArray(pols, p);
		}
		free(dir);
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

	pols = cJSON_CreateArray();
	if (sr_list(&ctx->sr, CPUFREQ, &names, &n) < 0)
		n = 0;
	for (i = 0; i < n; i++) {
		uint64_t id;
		char *dir;
		if (!str_startswith(names[i], "policy") || parse_u64(names[i] + 6, &id) < 0)
			continue;
		npol++;
		dir = xasprintf(CPUFREQ "/%s", names[i]);
		cJSON_AddItemToArray(pols, read_policy(ctx, dir, id, &no_epp));
		free(dir);
	}
	sr_free_list(names, n);
	names = NULL;
	n = 0;
	/* Kernels before 4.3 (and captures of them) have no policyN: each
	 * CPU's cpufreq directory is its policy's, shared CPUs listed once. */
	if (npol == 0 && sr_list(&ctx->sr, "/sys/devices/system/cpu", &names, &n) == 0)
		npol = cpu_policies(ctx, pols, names, n, &no_epp);
	sr_free_list(names, n);
	fj_set(cf, "policies", pols);

	if (npol == 0) {
		no_cpufreq(ctx, cf);
		fj_str_or_null(k, "governor", NULL);
	} else {
		v = agg(pols, "driver");
		fj_str_or_null(cf, "driver", v);
		if (!v)
			facts_gap(&ctx->facts, "kernel.cpufreq.driver", "a policy's scaling_driver is unreadable");
		gov = agg(pols, "governor");
		fj_str_or_null(cf, "governor", gov);
		fj_str_or_null(k, "governor", gov);
		if (!gov) {
			facts_gap(&ctx->facts, "kernel.cpufreq.governor", "a policy's scaling_governor is unreadable");
			facts_gap(&ctx->facts, "kernel.governor", "a policy's scaling_governor is unreadable");
		}
		v = agg(pols, "epp");
		fj_str_or_null(cf, "epp", v);
		if (!v && no_epp == npol)
			facts_gap(&ctx->facts, "kernel.cpufreq.epp",
				  "no energy_performance_preference: the driver '%s' has none",
				  fj_get_str(cf, "driver") ? fj_get_str(cf, "driver") : "?");
		else if (!v)
			facts_gap(&ctx->facts, "kernel.cpufreq.epp",
				  "a policy's energy_performance_preference is unreadable");
	}
	probe_boost(ctx, cf, pols);

	/* intel_pstate or amd_pstate mode, when either is there. */
	{
		static const char *const st[] = {
			"/sys/devices/system/cpu/intel_pstate/status",
			"/sys/devices/system/cpu/amd_pstate/status",
		};
		for (i = 0; i < ARRAY_SIZE(st); i++) {
			if (kernel_read_line(ctx, st[i], &s) == 0 && *s) {
				fj_str_or_null(cf, "pstate_status", s);
				facts_evidence(&ctx->facts, "kernel.cpufreq.pstate_status", st[i]);
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
	char **names;
	size_t n, i;
	int r, no_disable = 0;

	kernel_str_fact(ctx, ci, "driver", "kernel.cpuidle.driver",
			"/sys/devices/system/cpu/cpuidle/current_driver", NULL);
	r = sr_list(&ctx->sr, dir, &names, &n);
	if (r < 0) {
		fj_set(ci, "states", cJSON_CreateNull());
		fj_set(ci, "deepest_state", cJSON_CreateNull());
		facts_gap(&ctx->facts, "kernel.cpuidle.deepest_state", "%s: %s", dir,
			  r == -ENOENT ? "missing (no cpuidle driver)" : sr_reason(r));
		return;
	}
	states = cJSON_CreateArray();
	for (i = 0; i < n; i++) {
		uint64_t idx, dis = 0, lat = 0;
		char *p, *name = NULL;
		cJSON *e;
		int rd, rl, rn;
		if (!str_startswith(names[i], "state") || parse_u64(names[i] + 5, &idx) < 0)
			continue;
		p = xasprintf("%s/%s/name", dir, names[i]);
		rn = kernel_read_line(ctx, p, &name);
		if (rn == 0 && !*name)
			rn = -EINVAL;
		if (rn)
			facts_gap_read(&ctx->facts, "kernel.cpuidle.states", p, rn);
		free(p);
		p = xasprintf("%s/%s/disable", dir, names[i]);
		rd = kernel_read_u64(ctx, p, &dis);
		if (rd == -ENOENT)
			no_disable++;
		else if (rd)
			facts_gap_read(&ctx->facts, "kernel.cpuidle.states", p, rd);
		free(p);
		p = xasprintf("%s/%s/latency", dir, names[i]);
		rl = kernel_read_u64(ctx, p, &lat);
		if (rl)
			facts_gap_read(&ctx->facts, "kernel.cpuidle.states", p, rl);
		free(p);
		e = cJSON_CreateObject();
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
		facts_gap(&ctx->facts, "kernel.cpuidle.deepest_state",
			  "%s/state*/disable: missing (old kernel or not captured), so which states are enabled is unknown", dir);
	} else {
		fj_set(ci, "deepest_state", cJSON_CreateNull());
		facts_gap(&ctx->facts, "kernel.cpuidle.deepest_state", "%s: no enabled state read", dir);
	}
	facts_evidence(&ctx->facts, "kernel.cpuidle.deepest_state", dir);
}
