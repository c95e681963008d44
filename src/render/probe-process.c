/* render/probe-process.c - the process section of `probe`'s text: the
 * cgroup, limits, capabilities and NUMA system calls of the probing process */
#include "config.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "render/render.h"
#include "lib/util.h"

#include <stdio.h>
#include <string.h>

/* A byte figure, "unlimited", or "unknown". */
static const char *bytes_or(const cJSON *v, char *buf, size_t n)
{
	if (cJSON_IsString(v))
		return v->valuestring;
	if (cJSON_IsNumber(v))
		return human_bytes(v->valuedouble, buf, n);
	return "unknown";
}

static const char *yes_no(const cJSON *v)
{
	return cJSON_IsTrue(v) ? "yes" : cJSON_IsFalse(v) ? "no" : "unknown";
}

void probe_render_process_text(FILE *out, const cJSON *root)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(root, "process"), *g, *v;
	char a[32], b[32];
	if (!p)
		return;
	tx_section(out, "Process (the limits where this ran)");
	if (cJSON_IsNull(facts_get(p, "cgroup.version")) && cJSON_IsNull(facts_get(p, "limits.memlock")) &&
	    cJSON_IsNull(facts_get(p, "capabilities.effective")) &&
	    cJSON_IsNull(facts_get(p, "mempolicy.get_mempolicy"))) {
		tx_kv(out, "all", "unknown (see the gaps)");
		return;
	}
	g = cJSON_GetObjectItemCaseSensitive(p, "cgroup");
	v = cJSON_GetObjectItemCaseSensitive(g, "version");
	if (cJSON_IsNumber(v))
		tx_kv(out, "cgroup", "v%d %s", v->valueint, fj_get_str(g, "path") ? fj_get_str(g, "path") : "?");
	else
		tx_kv(out, "cgroup", "unknown");
	tx_kv(out, "cpuset", "%s", fj_get_str(g, "cpuset_cpus") ? fj_get_str(g, "cpuset_cpus") : "unknown");
	v = cJSON_GetObjectItemCaseSensitive(g, "cpu_quota_cpus");
	if (cJSON_IsNumber(v))
		tx_kv(out, "CPU quota", "%.2f CPUs", v->valuedouble);
	else
		tx_kv(out, "CPU quota", "%s", cJSON_IsString(v) ? v->valuestring : "unknown");
	tx_kv(out, "memory limit", "%s", bytes_or(cJSON_GetObjectItemCaseSensitive(g, "memory_max_bytes"), a, sizeof(a)));
	g = facts_get(p, "limits.memlock");
	tx_kv(out, "RLIMIT_MEMLOCK", "%s (hard %s)", bytes_or(cJSON_GetObjectItemCaseSensitive(g, "soft"), a, sizeof(a)),
	      bytes_or(cJSON_GetObjectItemCaseSensitive(g, "hard"), b, sizeof(b)));
	g = facts_get(p, "limits.nofile");
	v = cJSON_GetObjectItemCaseSensitive(g, "soft");
	if (cJSON_IsNumber(v))
		tx_kv(out, "RLIMIT_NOFILE", "%.0f", v->valuedouble);
	else
		tx_kv(out, "RLIMIT_NOFILE", "%s", cJSON_IsString(v) ? v->valuestring : "unknown");
	g = cJSON_GetObjectItemCaseSensitive(p, "capabilities");
	tx_kv(out, "CAP_SYS_NICE", "%s", yes_no(cJSON_GetObjectItemCaseSensitive(g, "sys_nice")));
	tx_kv(out, "CAP_IPC_LOCK", "%s", yes_no(cJSON_GetObjectItemCaseSensitive(g, "ipc_lock")));
	g = cJSON_GetObjectItemCaseSensitive(p, "mempolicy");
	tx_kv(out, "get_mempolicy", "%s", fj_get_str(g, "get_mempolicy") ? fj_get_str(g, "get_mempolicy") : "unknown");
	tx_kv(out, "set_mempolicy", "%s", fj_get_str(g, "set_mempolicy") ? fj_get_str(g, "set_mempolicy") : "unknown");
}
