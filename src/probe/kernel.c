/* probe/kernel.c - kernel and OS settings: sysctls, huge pages, swap,
 * cpufreq and cpuidle, command line, version, cgroups, clocksource */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "probe/cmdline.h"
#include "lib/output.h"
#include "lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The one list of sysctls read on every run; the check engine adds the keys
 * its profiles mention with kernel_probe_sysctl(). */
const char *const kernel_sysctls[] = {
	"vm.swappiness",
	"vm.overcommit_memory",
	"vm.max_map_count",
	"vm.zone_reclaim_mode",
	"vm.nr_hugepages",
	"kernel.numa_balancing",
	"net.core.somaxconn",
	"net.core.rmem_max",
	"net.core.wmem_max",
	"net.core.netdev_max_backlog",
	"net.ipv4.tcp_fin_timeout",
	"net.ipv4.tcp_tw_reuse",
	"net.ipv4.ip_local_port_range",
	"net.ipv4.tcp_max_syn_backlog",
	"fs.file-max",
	"fs.nr_open",
	NULL
};

#define SYSCTL_MAX_VALUE 4096
#define CPUFREQ "/sys/devices/system/cpu/cpufreq"

/*** Small helpers ***/

/* Text as the kernel prints it: printable ASCII and white space only. */
static int is_text(const char *s, size_t len)
{
	size_t i;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\t' && c != '\n') || c >= 0x7f)
			return 0;
	}
	return 1;
}

/* The first line of a file, white space squashed, refusing any byte that is
 * not text anywhere in the file (a NUL would hide the rest).  malloc'd. */
static int read_line(struct probe_ctx *ctx, const char *path, char **out)
{
	char *b;
	size_t len;
	int r = sr_read(&ctx->sr, path, &b, &len);
	if (r < 0)
		return r;
	if (!is_text(b, len)) {
		free(b);
		return -EINVAL;
	}
	b[strcspn(b, "\n")] = '\0';
	strsquash(b);
	*out = b;
	return 0;
}

static int read_u64(struct probe_ctx *ctx, const char *path, uint64_t *v)
{
	char *s;
	int r = read_line(ctx, path, &s);
	if (r < 0)
		return r;
	r = parse_u64(s, v);
	free(s);
	return r;
}

/* One string fact from one file (first line, white space squashed): set it
 * or null with a gap.  Returns 0 or the error. */
static int str_fact(struct probe_ctx *ctx, cJSON *obj, const char *key, const char *fact,
		    const char *path, char **keep)
{
	char *s = NULL;
	int r = read_line(ctx, path, &s);
	if (r == 0 && !*s)
		r = -EINVAL;
	if (r == 0) {
		fj_str_or_null(obj, key, s);
		facts_evidence(&ctx->facts, fact, path);
	} else {
		fj_str_or_null(obj, key, NULL);
		facts_gap_read(&ctx->facts, fact, path, r);
	}
	if (keep && r == 0)
		*keep = s;
	else
		free(s);
	return r;
}

static int u64_fact(struct probe_ctx *ctx, cJSON *obj, const char *key, const char *fact,
		    const char *path, double scale, uint64_t *keep)
{
	uint64_t v = 0;
	int r = read_u64(ctx, path, &v);
	fj_num_or_null(obj, key, r == 0, (double)v * scale);
	if (r == 0)
		facts_evidence(&ctx->facts, fact, path);
	else
		facts_gap_read(&ctx->facts, fact, path, r);
	if (keep)
		*keep = v;
	return r;
}

/* "MemTotal:  123 kB" -> 123 (in kB).  0 or -ENOENT/-EINVAL. */
static int meminfo_kb(const char *mi, const char *key, uint64_t *kb)
{
	size_t n = strlen(key);
	const char *p = mi;
	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ':') {
			char line[128];
			size_t l = strcspn(p + n + 1, "\n");
			if (l >= sizeof(line))
				return -EINVAL;
			memcpy(line, p + n + 1, l);
			line[l] = '\0';
			strtrim(line);
			if (str_endswith(line, " kB"))
				line[strlen(line) - 3] = '\0';
			else
				return -EINVAL;
			return parse_u64(line, kb) == 0 && *kb <= UINT64_MAX / 1024 ? 0 : -EINVAL;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

/*** Sysctls ***/

static char *sysctl_fact(const char *name)
{
	return xasprintf("kernel.sysctl.\"%s\"", name);
}

/* "net.ipv4.conf.eth0/1.rp_filter" -> "/proc/sys/net/ipv4/conf/eth0.1/rp_filter";
 * NULL for a name that is not one (it could leave /proc/sys). */
static char *sysctl_path(const char *name)
{
	size_t n = strlen(name), i;
	char *p, *comp, *save = NULL, *copy;
	int ok = n > 0 && n < 256;
	for (i = 0; ok && i < n; i++)
		ok = isalnum((unsigned char)name[i]) || strchr("._-/:+@", name[i]);
	if (!ok)
		return NULL;
	p = xasprintf("/proc/sys/%s", name);
	for (i = 10; p[i]; i++)
		p[i] = p[i] == '.' ? '/' : p[i] == '/' ? '.' : p[i];
	copy = xstrdup(p + 10);
	if (copy[0] == '/' || p[strlen(p) - 1] == '/')
		ok = 0;
	for (comp = strtok_r(copy, "/", &save); ok && comp; comp = strtok_r(NULL, "/", &save))
		if (!strcmp(comp, ".") || !strcmp(comp, ".."))
			ok = 0;
	if (strstr(p + 10, "//"))
		ok = 0;
	free(copy);
	if (!ok) {
		free(p);
		return NULL;
	}
	return p;
}

void kernel_probe_sysctl(struct probe_ctx *ctx, const char *name)
{
	struct facts *f = &ctx->facts;
	cJSON *sys = facts_obj(f, "kernel.sysctl");
	char *fact = sysctl_fact(name), *path, *buf = NULL;
	size_t len = 0;
	int r;

	if (cJSON_GetObjectItemCaseSensitive(sys, name)) {
		free(fact);
		return;
	}
	path = sysctl_path(name);
	if (!path) {
		facts_gap(f, fact, "'%s' is not a sysctl name", name);
		free(fact);
		return;
	}
	r = sr_read(&ctx->sr, path, &buf, &len);
	if (r == 0 && !is_text(buf, len))
		r = -EINVAL;
	if (r == 0) {
		strsquash(buf);
		if (strlen(buf) > SYSCTL_MAX_VALUE) {
			fj_str_or_null(sys, name, NULL);
			facts_gap(f, fact, "%s: value longer than %d bytes", path, SYSCTL_MAX_VALUE);
		} else {
			fj_str_or_null(sys, name, buf);
			facts_evidence(f, fact, path);
		}
	} else if (r == -ENOENT || r == -ENOTDIR) {
		/* Absent: the kernel has no such key (or the capture lacks it). */
		facts_gap(f, fact, "%s: missing (%s)", path,
			  ctx->sr.live ? "this kernel has no such sysctl"
				       : "not in this kernel or not in the capture");
	} else {
		fj_str_or_null(sys, name, NULL);
		facts_gap_read(f, fact, path, r);
	}
	free(buf);
	free(path);
	free(fact);
}

static void probe_sysctls(struct probe_ctx *ctx)
{
	size_t i;
	facts_obj(&ctx->facts, "kernel.sysctl");
	for (i = 0; kernel_sysctls[i]; i++)
		kernel_probe_sysctl(ctx, kernel_sysctls[i]);
}

static void probe_numa_balancing(struct probe_ctx *ctx)
{
	cJSON *k = facts_obj(&ctx->facts, "kernel");
	const char *v = fj_get_str(facts_obj(&ctx->facts, "kernel.sysctl"), "kernel.numa_balancing");
	uint64_t n;
	if (!v) {
		fj_str_or_null(k, "numa_balancing", NULL);
		facts_gap(&ctx->facts, "kernel.numa_balancing",
			  "kernel.numa_balancing unknown (see kernel.sysctl.\"kernel.numa_balancing\"): "
			  "no automatic NUMA balancing in this kernel, or unreadable");
		return;
	}
	/* 0 off; 1 normal balancing, 2 memory tiering (bits): on. */
	if (parse_u64(v, &n) < 0 || n > 3) {
		fj_str_or_null(k, "numa_balancing", NULL);
		facts_gap(&ctx->facts, "kernel.numa_balancing",
			  "/proc/sys/kernel/numa_balancing: unparsable ('%s', expected 0 to 3)", v);
		return;
	}
	fj_str_or_null(k, "numa_balancing", n ? "on" : "off");
	facts_evidence(&ctx->facts, "kernel.numa_balancing", "/proc/sys/kernel/numa_balancing");
}

/*** Memory settings: THP, huge pages, swap, zswap ***/

/* "always [madvise] never" -> "madvise". */
static int thp_selected(const char *s, char **out)
{
	const char *a = strchr(s, '['), *b;
	if (!a || !(b = strchr(a, ']')) || b == a + 1 || strchr(b, '['))
		return -EINVAL;
	*out = xstrndup(a + 1, (size_t)(b - a - 1));
	if (strchr(*out, ' ')) {
		free(*out);
		return -EINVAL;
	}
	return 0;
}

static void probe_thp(struct probe_ctx *ctx)
{
	static const char *const keys[] = { "enabled", "defrag" };
	cJSON *t = facts_obj(&ctx->facts, "kernel.thp");
	size_t i;
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		char *path = xasprintf("/sys/kernel/mm/transparent_hugepage/%s", keys[i]);
		char *fact = xasprintf("kernel.thp.%s", keys[i]);
		char *s = NULL, *sel = NULL;
		int r = read_line(ctx, path, &s);
		if (r == 0 && thp_selected(s, &sel) < 0)
			r = -EINVAL;
		fj_str_or_null(t, keys[i], r == 0 ? sel : NULL);
		if (r == 0)
			facts_evidence(&ctx->facts, fact, path);
		else if (r == -EINVAL)
			facts_gap(&ctx->facts, fact, "%s: unparsable (expected one [selected] value)", path);
		else
			facts_gap_read(&ctx->facts, fact, path, r);
		free(s);
		free(sel);
		free(path);
		free(fact);
	}
}

/* "hugepages-2048kB" -> 2048 */
static int hp_dir_kb(const char *name, uint64_t *kb)
{
	char num[32];
	size_t n;
	if (!str_startswith(name, "hugepages-") || !str_endswith(name, "kB"))
		return -EINVAL;
	n = strlen(name) - 10 - 2;
	if (n == 0 || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, name + 10, n);
	num[n] = '\0';
	if (parse_u64(num, kb) < 0 || *kb == 0 || *kb > (UINT64_MAX >> 10))
		return -EINVAL;
	return 0;
}

/* The sizes under dir ([{size_bytes, total, free}]); *total_bytes summed
 * (-1 when a count is unknown).  Returns the array or NULL (gap made). */
static cJSON *hp_sizes(struct probe_ctx *ctx, const char *dir, const char *fact, double *total_bytes)
{
	char **names;
	size_t n, i;
	cJSON *arr;
	int r = sr_list(&ctx->sr, dir, &names, &n);
	*total_bytes = 0;
	if (r < 0) {
		facts_gap_read(&ctx->facts, fact, dir, r);
		*total_bytes = -1;
		return NULL;
	}
	arr = cJSON_CreateArray();
	for (i = 0; i < n; i++) {
		uint64_t kb, nr;
		cJSON *e;
		char *p;
		if (hp_dir_kb(names[i], &kb) < 0)
			continue;
		e = cJSON_CreateObject();
		fj_num(e, "size_bytes", (double)kb * 1024);
		p = xasprintf("%s/%s/nr_hugepages", dir, names[i]);
		if (u64_fact(ctx, e, "total", fact, p, 1, &nr) == 0 && *total_bytes >= 0)
			*total_bytes += (double)nr * (double)kb * 1024;
		else
			*total_bytes = -1;
		free(p);
		p = xasprintf("%s/%s/free_hugepages", dir, names[i]);
		u64_fact(ctx, e, "free", fact, p, 1, NULL);
		free(p);
		cJSON_AddItemToArray(arr, e);
	}
	sr_free_list(names, n);
	return arr;
}

static void probe_hugepages(struct probe_ctx *ctx, const char *meminfo)
{
	cJSON *h = facts_obj(&ctx->facts, "kernel.hugepages"), *sizes, *nodes;
	char **names;
	size_t n, i;
	double total;
	uint64_t kb;

	if (!meminfo) {
		fj_num_or_null(h, "default_size_bytes", 0, 0);
		facts_gap(&ctx->facts, "kernel.hugepages.default_size_bytes", "/proc/meminfo unreadable");
	} else if (meminfo_kb(meminfo, "Hugepagesize", &kb) == 0) {
		fj_num(h, "default_size_bytes", (double)kb * 1024);
		facts_evidence(&ctx->facts, "kernel.hugepages.default_size_bytes", "/proc/meminfo");
	} else {
		fj_num_or_null(h, "default_size_bytes", 0, 0);
		facts_gap(&ctx->facts, "kernel.hugepages.default_size_bytes",
			  "/proc/meminfo: no readable Hugepagesize line (kernel without hugetlbfs?)");
	}

	sizes = hp_sizes(ctx, "/sys/kernel/mm/hugepages", "kernel.hugepages.sizes", &total);
	fj_set(h, "sizes", sizes ? sizes : cJSON_CreateNull());
	if (!sizes)
		facts_gap(&ctx->facts, "kernel.hugepages.total_bytes", "no huge page sizes");
	fj_num_or_null(h, "total_bytes", total >= 0, total);
	if (total < 0 && sizes)
		facts_gap(&ctx->facts, "kernel.hugepages.total_bytes", "a huge page count is unknown");

	/* Per NUMA node. */
	if (sr_list(&ctx->sr, "/sys/devices/system/node", &names, &n) < 0) {
		fj_set(h, "nodes", cJSON_CreateNull());
		facts_gap(&ctx->facts, "kernel.hugepages.nodes", "/sys/devices/system/node: missing");
		return;
	}
	nodes = cJSON_CreateArray();
	for (i = 0; i < n; i++) {
		uint64_t id;
		char *dir;
		cJSON *e, *s;
		double t;
		if (!str_startswith(names[i], "node") || parse_u64(names[i] + 4, &id) < 0)
			continue;
		dir = xasprintf("/sys/devices/system/node/%s/hugepages", names[i]);
		e = cJSON_CreateObject();
		fj_num(e, "node", (double)id);
		s = hp_sizes(ctx, dir, "kernel.hugepages.nodes", &t);
		fj_set(e, "sizes", s ? s : cJSON_CreateNull());
		fj_num_or_null(e, "total_bytes", t >= 0, t);
		cJSON_AddItemToArray(nodes, e);
		free(dir);
	}
	sr_free_list(names, n);
	fj_set(h, "nodes", nodes);
}

/* /proc/swaps names escape ' ', '\t', '\n' and '\\' as octal. */
static void unescape_octal(char *s)
{
	char *w = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else
			*w++ = *s;
	}
	*w = '\0';
}

static void probe_swap(struct probe_ctx *ctx, const char *meminfo)
{
	cJSON *s = facts_obj(&ctx->facts, "kernel.swap"), *devs;
	char *buf = NULL, *line, *save = NULL;
	size_t len;
	uint64_t kb;
	int r, lineno = 0;

	if (meminfo && meminfo_kb(meminfo, "SwapTotal", &kb) == 0) {
		fj_num(s, "total_bytes", (double)kb * 1024);
		facts_evidence(&ctx->facts, "kernel.swap.total_bytes", "/proc/meminfo");
	} else {
		fj_num_or_null(s, "total_bytes", 0, 0);
		facts_gap(&ctx->facts, "kernel.swap.total_bytes", "/proc/meminfo: no readable SwapTotal line");
	}

	r = sr_read(&ctx->sr, "/proc/swaps", &buf, &len);
	if (r == 0 && !is_text(buf, len))
		r = -EINVAL;
	if (r < 0) {
		fj_set(s, "devices", cJSON_CreateNull());
		facts_gap_read(&ctx->facts, "kernel.swap.devices", "/proc/swaps", r);
		free(buf);
		return;
	}
	devs = cJSON_CreateArray();
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[4096], type[64], size[32], used[32], prio[32];
		uint64_t sz, us;
		int64_t pr;
		cJSON *d;
		lineno++;
		if (lineno == 1 && str_startswith(line, "Filename"))
			continue;
		if (sscanf(line, "%4095s %63s %31s %31s %31s", name, type, size, used, prio) != 5 ||
		    parse_u64(size, &sz) < 0 || parse_u64(used, &us) < 0 || parse_s64(prio, &pr) < 0 ||
		    sz > UINT64_MAX / 1024 || us > UINT64_MAX / 1024) {
			facts_gap(&ctx->facts, "kernel.swap.devices",
				  "/proc/swaps: line %d unparsable, left out", lineno);
			continue;
		}
		unescape_octal(name);
		d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "name", name);
		cJSON_AddStringToObject(d, "type", type);
		fj_num(d, "size_bytes", (double)sz * 1024);
		fj_num(d, "used_bytes", (double)us * 1024);
		fj_num(d, "priority", (double)pr);
		cJSON_AddBoolToObject(d, "zram", str_startswith(name, "/dev/zram"));
		cJSON_AddItemToArray(devs, d);
	}
	free(buf);
	fj_set(s, "devices", devs);
	facts_evidence(&ctx->facts, "kernel.swap.devices", "/proc/swaps");
}

static void probe_zswap(struct probe_ctx *ctx)
{
	cJSON *z = facts_obj(&ctx->facts, "kernel.zswap");
	const char *dir = "/sys/module/zswap/parameters";
	char *s = NULL;
	int r;
	if (!sr_is_dir(&ctx->sr, dir)) {
		fj_bool_or_null(z, "enabled", -1);
		fj_str_or_null(z, "compressor", NULL);
		fj_num_or_null(z, "max_pool_percent", 0, 0);
		facts_gap(&ctx->facts, "kernel.zswap", "%s: missing (%s)", dir,
			  ctx->sr.live ? "kernel without zswap" : "kernel without zswap, or not captured");
		return;
	}
	r = read_line(ctx, "/sys/module/zswap/parameters/enabled", &s);
	if (r == 0 && strcmp(s, "Y") && strcmp(s, "N") && strcmp(s, "1") && strcmp(s, "0"))
		r = -EINVAL;
	fj_bool_or_null(z, "enabled", r == 0 ? (!strcmp(s, "Y") || !strcmp(s, "1")) : -1);
	if (r == 0)
		facts_evidence(&ctx->facts, "kernel.zswap.enabled", "/sys/module/zswap/parameters/enabled");
	else
		facts_gap_read(&ctx->facts, "kernel.zswap.enabled", "/sys/module/zswap/parameters/enabled", r);
	free(s);
	str_fact(ctx, z, "compressor", "kernel.zswap.compressor",
		 "/sys/module/zswap/parameters/compressor", NULL);
	u64_fact(ctx, z, "max_pool_percent", "kernel.zswap.max_pool_percent",
		 "/sys/module/zswap/parameters/max_pool_percent", 1, NULL);
}

/*** CPU frequency and idle ***/

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
		r = read_u64(ctx, paths[i], &v);
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
	str_fact(ctx, p, "driver", "kernel.cpufreq.policies", path, NULL);
	free(path);
	path = xasprintf("%s/scaling_governor", dir);
	str_fact(ctx, p, "governor", "kernel.cpufreq.policies", path, NULL);
	free(path);
	path = xasprintf("%s/energy_performance_preference", dir);
	r = read_line(ctx, path, &s);
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
	u64_fact(ctx, p, "max_mhz", "kernel.cpufreq.policies", path, 1e-3, NULL);
	free(path);
	path = xasprintf("%s/cpuinfo_max_freq", dir);
	u64_fact(ctx, p, "cpuinfo_max_mhz", "kernel.cpufreq.policies", path, 1e-3, NULL);
	free(path);
	/* Per-policy boost (amd-pstate, newer kernels): only when present. */
	path = xasprintf("%s/boost", dir);
	{
		uint64_t b;
		r = read_u64(ctx, path, &b);
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

static void probe_cpufreq(struct probe_ctx *ctx)
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
	if (npol == 0 && sr_list(&ctx->sr, "/sys/devices/system/cpu", &names, &n) == 0) {
		hwloc_bitmap_t covered = hwloc_bitmap_alloc();
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
				p = read_policy(ctx, dir, id, &no_epp);
				policy_cover(p, covered);
				cJSON_AddItemToArray(pols, p);
			}
			free(dir);
		}
		hwloc_bitmap_free(covered);
	}
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
			if (read_line(ctx, st[i], &s) == 0 && *s) {
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

static void probe_cpuidle(struct probe_ctx *ctx)
{
	cJSON *ci = facts_obj(&ctx->facts, "kernel.cpuidle"), *states, *deepest = NULL;
	const char *dir = "/sys/devices/system/cpu/cpu0/cpuidle";
	char **names;
	size_t n, i;
	int r, no_disable = 0;

	str_fact(ctx, ci, "driver", "kernel.cpuidle.driver",
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
		rn = read_line(ctx, p, &name);
		if (rn == 0 && !*name)
			rn = -EINVAL;
		if (rn)
			facts_gap_read(&ctx->facts, "kernel.cpuidle.states", p, rn);
		free(p);
		p = xasprintf("%s/%s/disable", dir, names[i]);
		rd = read_u64(ctx, p, &dis);
		if (rd == -ENOENT)
			no_disable++;
		else if (rd)
			facts_gap_read(&ctx->facts, "kernel.cpuidle.states", p, rd);
		free(p);
		p = xasprintf("%s/%s/latency", dir, names[i]);
		rl = read_u64(ctx, p, &lat);
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

/*** Command line, version, cgroups, clocksource, irqbalance ***/

static void probe_cmdline(struct probe_ctx *ctx)
{
	cJSON *c = facts_obj(&ctx->facts, "kernel.cmdline");
	char *buf = NULL;
	size_t len;
	struct cmdline cl;
	int r = sr_read(&ctx->sr, "/proc/cmdline", &buf, &len);
	if (r == 0 && (!is_text(buf, len) || len > 65536))
		r = -EINVAL;
	if (r == 0)
		buf[strcspn(buf, "\n")] = '\0';
	if (r < 0) {
		fj_str_or_null(c, "raw", NULL);
		fj_set(c, "params", cJSON_CreateNull());
		if (r == -EINVAL)
			facts_gap(&ctx->facts, "kernel.cmdline", "/proc/cmdline: unparsable (not one line of text)");
		else
			facts_gap_read(&ctx->facts, "kernel.cmdline", "/proc/cmdline", r);
		free(buf);
		return;
	}
	strtrim(buf);
	fj_str_or_null(c, "raw", buf);
	cmdline_parse(buf, &cl);
	fj_set(c, "params", cmdline_params_json(&cl));
	if (cl.unbalanced)
		facts_gap(&ctx->facts, "kernel.cmdline.params",
			  "/proc/cmdline: a quote is never closed (read as the kernel does: to the end)");
	cmdline_free(&cl);
	facts_evidence(&ctx->facts, "kernel.cmdline", "/proc/cmdline");
	free(buf);
}

static void probe_cgroup(struct probe_ctx *ctx)
{
	cJSON *k = facts_obj(&ctx->facts, "kernel"), *ctl;
	char *buf = NULL, *line, *save = NULL, *tok;
	int r, v1 = 0, v2root = 0, v2other = 0;

	r = sr_read(&ctx->sr, "/sys/fs/cgroup/cgroup.controllers", &buf, NULL);
	if (r == 0 && is_text(buf, strlen(buf))) {
		fj_num(k, "cgroup_version", 2);
		fj_str_or_null(k, "cgroup_mode", "unified");
		ctl = cJSON_CreateArray();
		for (tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
			cJSON_AddItemToArray(ctl, cJSON_CreateString(tok));
		fj_set(k, "cgroup_controllers", ctl);
		facts_evidence(&ctx->facts, "kernel.cgroup_version", "/sys/fs/cgroup/cgroup.controllers");
		free(buf);
		return;
	}
	free(buf);
	buf = NULL;
	r = sr_read(&ctx->sr, "/proc/mounts", &buf, NULL);
	if (r == 0) {
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char dev[256], mnt[1024], type[64];
			if (sscanf(line, "%255s %1023s %63s", dev, mnt, type) != 3)
				continue;
			if (!strcmp(type, "cgroup2")) {
				if (!strcmp(mnt, "/sys/fs/cgroup"))
					v2root = 1;
				else
					v2other = 1;
			} else if (!strcmp(type, "cgroup"))
				v1 = 1;
		}
	}
	free(buf);
	if (v2root || v1) {
		fj_num(k, "cgroup_version", v2root ? 2 : 1);
		fj_str_or_null(k, "cgroup_mode", v2root ? "unified" : v2other ? "hybrid" : "legacy");
		fj_set(k, "cgroup_controllers", cJSON_CreateNull());
		facts_evidence(&ctx->facts, "kernel.cgroup_version", "/proc/mounts");
		if (v2root)
			facts_gap(&ctx->facts, "kernel.cgroup_controllers",
				  "/sys/fs/cgroup/cgroup.controllers: %s", sr_reason(r ? r : -ENOENT));
		else
			facts_gap(&ctx->facts, "kernel.cgroup_controllers",
				  "cgroup v1 (%s): no /sys/fs/cgroup/cgroup.controllers", v2other ? "hybrid" : "legacy");
		return;
	}
	fj_set(k, "cgroup_version", cJSON_CreateNull());
	fj_str_or_null(k, "cgroup_mode", NULL);
	fj_set(k, "cgroup_controllers", cJSON_CreateNull());
	facts_gap(&ctx->facts, "kernel.cgroup_version",
		  "neither /sys/fs/cgroup/cgroup.controllers nor a cgroup mount in /proc/mounts");
}

/* 1 if live process pid is named "irqbalance" (its /proc/PID/comm), read
 * in three system calls (open, one read, close): comm is at most 16 bytes.
 * procfd: an O_PATH descriptor of /proc. */
static int is_irqbalance(int procfd, const char *pid)
{
	char path[40], buf[32];
	ssize_t n;
	int fd;
	if (snprintf(path, sizeof(path), "%s/comm", pid) >= (int)sizeof(path))
		return 0;
	fd = openat(procfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return !strcmp(buf, "irqbalance");
}

/* The same for the scan of every process: as root, one readlink of
 * /proc/PID/exe ("/usr/sbin/irqbalance", " (deleted)" after an upgrade)
 * answers, and kernel threads (no exe: ENOENT) cost nothing more; where it
 * is refused (not root, no CAP_SYS_PTRACE), the comm. */
static int scan_is_irqbalance(int procfd, const char *pid, int root)
{
	char path[40], buf[4096];
	const char *base;
	ssize_t n;
	if (!root || snprintf(path, sizeof(path), "%s/exe", pid) >= (int)sizeof(path))
		return is_irqbalance(procfd, pid);
	n = readlinkat(procfd, path, buf, sizeof(buf) - 1);
	if (n < 0)
		return errno == ENOENT ? 0 : is_irqbalance(procfd, pid);
	buf[n] = '\0';
	base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	return !strcmp(base, "irqbalance") || !strcmp(base, "irqbalance (deleted)");
}

/* The PIDs in irqbalance's control socket names in /proc/net/unix
 * ("/run/irqbalance/irqbalance1234.sock", or "@irqbalance1234.sock" where
 * it fell back to an abstract socket; irqbalance >= 1.3): 1 when one of
 * them is a live irqbalance. */
static int irqbalance_by_socket(struct probe_ctx *ctx, int procfd)
{
	char *text = NULL, *p;
	int found = 0;
	if (sr_read(&ctx->sr, "/proc/net/unix", &text, NULL) < 0)
		return 0;
	for (p = strstr(text, "irqbalance"); p && !found; p = strstr(p + 1, "irqbalance")) {
		char pid[24];
		size_t k = 0;
		const char *q = p + strlen("irqbalance");
		if (p > text && p[-1] != '/' && p[-1] != '@')
			continue;
		while (k < sizeof(pid) - 1 && q[k] >= '0' && q[k] <= '9') {
			pid[k] = q[k];
			k++;
		}
		pid[k] = '\0';
		if (k && !strncmp(q + k, ".sock", 5) && is_irqbalance(procfd, pid))
			found = 1;
	}
	free(text);
	return found;
}

/*
 * Whether irqbalance runs.  Its control socket names its PID, so
 * /proc/net/unix (one read) finds a running irqbalance at once, checked
 * against that process's comm.  Without such a socket (an irqbalance
 * older than 1.3, another network namespace) every process is looked at,
 * up to the first match: a busy node has thousands, so one readlink each
 * as root (else open, read, close of its comm; the read layer's open,
 * fstat, read, read, close would cost five).
 */
static void probe_irqbalance(struct probe_ctx *ctx)
{
	cJSON *k = facts_obj(&ctx->facts, "kernel");
	DIR *procdir;
	struct dirent *de;
	size_t i, mark = ctx->sr.nread;
	int found = 0, procfd, root;
	if (!ctx->sr.live) {
		/* A snapshot records what it saw live; a hand-made capture cannot tell. */
		char *v = NULL;
		if (sr_read_str(&ctx->sr, "/nodeaudit/irqbalance", &v) == 0 && (!strcmp(v, "1") || !strcmp(v, "0"))) {
			fj_bool_or_null(k, "irqbalance", !strcmp(v, "1"));
			facts_evidence(&ctx->facts, "kernel.irqbalance", "/proc/*/comm");
		} else {
			fj_bool_or_null(k, "irqbalance", -1);
			facts_gap(&ctx->facts, "kernel.irqbalance", "live only: a sysroot shows no running processes");
		}
		free(v);
		return;
	}
	/* One descriptor of /proc: listed in place (no copy, no sort: any
	 * order finds the first match) and the base of every lookup. */
	procdir = opendir("/proc");
	if (!procdir) {
		fj_bool_or_null(k, "irqbalance", -1);
		facts_gap_read(&ctx->facts, "kernel.irqbalance", "/proc", -errno);
		return;
	}
	procfd = dirfd(procdir);
	found = irqbalance_by_socket(ctx, procfd);
	root = geteuid() == 0;
	while (!found && (de = readdir(procdir))) {
		uint64_t pid;
		if (parse_u64(de->d_name, &pid) == 0 && scan_is_irqbalance(procfd, de->d_name, root))
			found = 1;
	}
	closedir(procdir);
	/* Sockets and process names are no evidence worth a snapshot: forget
	 * those reads. */
	for (i = mark; i < ctx->sr.nread; i++)
		free(ctx->sr.read[i]);
	ctx->sr.nread = mark;
	fj_bool_or_null(k, "irqbalance", found);
	facts_evidence(&ctx->facts, "kernel.irqbalance", "/proc/*/comm");
}

int probe_kernel(struct probe_ctx *ctx)
{
	cJSON *k = facts_obj(&ctx->facts, "kernel");
	char *meminfo = NULL;
	size_t len;
	int r;

	str_fact(ctx, k, "version", "kernel.version", "/proc/sys/kernel/osrelease", NULL);
	r = sr_read(&ctx->sr, "/proc/version", &meminfo, &len);
	if (r == 0 && !is_text(meminfo, len))
		r = -EINVAL;
	if (r == 0) {
		meminfo[strcspn(meminfo, "\n")] = '\0';
		fj_str_or_null(k, "version_full", strsquash(meminfo));
		facts_evidence(&ctx->facts, "kernel.version_full", "/proc/version");
	} else {
		fj_str_or_null(k, "version_full", NULL);
		facts_gap_read(&ctx->facts, "kernel.version_full", "/proc/version", r);
	}
	free(meminfo);
	meminfo = NULL;

	probe_cmdline(ctx);
	probe_sysctls(ctx);
	probe_numa_balancing(ctx);
	probe_thp(ctx);
	if (sr_read(&ctx->sr, "/proc/meminfo", &meminfo, &len) < 0) {
		meminfo = NULL;
	} else if (!is_text(meminfo, len)) {
		free(meminfo);
		meminfo = NULL;
	}
	probe_hugepages(ctx, meminfo);
	probe_swap(ctx, meminfo);
	free(meminfo);
	probe_zswap(ctx);
	probe_cpufreq(ctx);
	probe_cpuidle(ctx);
	probe_cgroup(ctx);
	str_fact(ctx, k, "clocksource", "kernel.clocksource",
		 "/sys/devices/system/clocksource/clocksource0/current_clocksource", NULL);
	probe_irqbalance(ctx);
	return 0;
}
