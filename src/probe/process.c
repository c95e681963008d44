/* probe/process.c - the limits that quietly undo a plan, as this process sees
 * them: its cgroup (cpuset, cpu.max, memory.max; v2 and v1), its resource
 * limits (memlock, nofile), its capabilities (CAP_SYS_NICE and the others
 * NUMA binding needs) and whether the NUMA system calls are allowed here
 * (a seccomp filter answers EPERM).  Run where the workers will run (in the
 * container, under the unit), it describes theirs. */
#include "config.h"
#include "probe/probe.h"
#include "read/path.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/*** /proc/self/limits ***/

/* "Max locked memory  8388608  8388608  bytes": soft and hard into j. */
static int limit_row(const char *text, const char *name, cJSON *j)
{
	const char *p = strstr(text, name);
	char soft[32], hard[32];
	int k;
	if (!p || (p != text && p[-1] != '\n'))
		return -1;
	p += strlen(name);
	if (sscanf(p, "%31s %31s", soft, hard) != 2)
		return -1;
	for (k = 0; k < 2; k++) {
		const char *v = k ? hard : soft;
		uint64_t n;
		if (!strcmp(v, "unlimited"))
			fj_set(j, k ? "hard" : "soft", cJSON_CreateString("unlimited"));
		else if (parse_u64(v, &n) == 0)
			fj_set(j, k ? "hard" : "soft", cJSON_CreateNumber((double)n));
		else
			return -1;
	}
	return 0;
}

static void probe_limits(struct probe_ctx *ctx)
{
	cJSON *l = facts_obj(&ctx->facts, "process.limits");
	struct path_cxt pc;
	char *buf = NULL;
	int r;
	static const struct { const char *key, *row; } rows[] = {
		{ "memlock", "Max locked memory" },
		{ "nofile", "Max open files" },
	};
	size_t i;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, l, "process.limits");
	r = pc_read(&pc, &buf, NULL, "/proc/self/limits");
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		cJSON *j = cJSON_CreateObject();
		if (r == 0 && limit_row(buf, rows[i].row, j) == 0) {
			cJSON_AddItemToObject(l, rows[i].key, j);
			pc_evidence(&pc, rows[i].key);
			continue;
		}
		cJSON_Delete(j);
		fj_set(l, rows[i].key, cJSON_CreateNull());
		if (r < 0)
			pc_gap_read(&pc, rows[i].key, r);
		else
			pc_gap(&pc, rows[i].key, "%s: no well-formed '%s' row", pc.path, rows[i].row);
	}
	free(buf);
}

/*** /proc/self/status CapEff ***/

static void probe_caps(struct probe_ctx *ctx)
{
	static const struct { const char *key; unsigned bit; } caps[] = {
		{ "sys_nice", 23 },      /* binding other tasks, move_pages/migrate_pages of others, mbind MPOL_MF_MOVE_ALL */
		{ "ipc_lock", 14 },      /* mlock beyond RLIMIT_MEMLOCK */
		{ "sys_resource", 24 },  /* raising limits */
		{ "sys_admin", 21 },
	};
	cJSON *c = facts_obj(&ctx->facts, "process.capabilities");
	struct path_cxt pc;
	char *buf = NULL, *p;
	unsigned long long eff;
	size_t i;
	int r;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, facts_obj(&ctx->facts, "process"), "process");
	r = pc_read(&pc, &buf, NULL, "/proc/self/status");
	p = r == 0 ? strstr(buf, "\nCapEff:") : NULL;
	if (!p || sscanf(p + 8, "%llx", &eff) != 1) {
		fj_set(c, "effective", cJSON_CreateNull());
		for (i = 0; i < ARRAY_SIZE(caps); i++)
			fj_set(c, caps[i].key, cJSON_CreateNull());
		if (r < 0)
			pc_gap_read(&pc, "capabilities", r);
		else
			pc_gap(&pc, "capabilities", "%s: no CapEff line", pc.path);
		free(buf);
		return;
	}
	{
		char hex[24];
		snprintf(hex, sizeof(hex), "%016llx", eff);
		cJSON_AddStringToObject(c, "effective", hex);
	}
	for (i = 0; i < ARRAY_SIZE(caps); i++)
		cJSON_AddBoolToObject(c, caps[i].key, (eff >> caps[i].bit) & 1);
	pc_evidence(&pc, "capabilities");
	free(buf);
}

/*** The cgroup ***/

/* A limit file's value: "max" is unlimited (-1), else the number. */
static int read_limit(struct probe_ctx *ctx, const char *path, double *v, double *period)
{
	char *s = NULL;
	int r = sr_read_str(&ctx->sr, path, &s);
	uint64_t n;
	char a[32], b[32];
	if (r < 0)
		return r;
	r = -EINVAL;
	if (period) {
		/* cpu.max: "QUOTA PERIOD" */
		int k = sscanf(s, "%31s %31s", a, b);
		if (k >= 1 && (!strcmp(a, "max") || parse_u64(a, &n) == 0)) {
			*v = strcmp(a, "max") ? (double)n : -1;
			*period = 100000;
			if (k == 2 && parse_u64(b, &n) == 0 && n > 0)
				*period = (double)n;
			r = k == 2 || k == 1 ? 0 : -EINVAL;
		}
	} else if (!strcmp(s, "max")) {
		*v = -1;
		r = 0;
	} else {
		int64_t sn;
		if (parse_s64(s, &sn) == 0) {
			/* v1: -1 (cfs_quota_us) or a page-rounded LONG_MAX means none. */
			*v = sn < 0 || sn >= (int64_t)1 << 62 ? -1 : (double)sn;
			r = 0;
		}
	}
	free(s);
	return r;
}

/* Where the controller's files for this process are: v2, the unified path; v1, the
 * hierarchy mounted as /sys/fs/cgroup/NAME.  Returns a malloc'd directory. */
static char *cg_dir(const char *mount, const char *path)
{
	return xasprintf("/sys/fs/cgroup%s%s", mount, !strcmp(path, "/") ? "" : path);
}

/* A cgroup path one level up, in place ("/a/b" -> "/a" -> "/"); -1 when
 * it has no level above. */
static int cg_up(char *p)
{
	char *slash = strrchr(p, '/');
	if (slash == p)
		p[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		return -1;
	return 0;
}

/* Walk from dir up to /sys/fs/cgroup[/mount]: the tightest limit in file. */
static int cg_tightest(struct probe_ctx *ctx, const char *mount, const char *path, const char *file,
		       double *best, double *period, char **where)
{
	char *p = xstrdup(path);
	int found = 0;
	*best = -1;
	for (;;) {
		char *dir = cg_dir(mount, p), *f = xasprintf("%s/%s", dir, file);
		double v, per = 0;
		if (read_limit(ctx, f, &v, period ? &per : NULL) == 0) {
			double cmp = period && v >= 0 ? v / per : v;
			double cur = period && *best >= 0 ? *best / *period : *best;
			if (!found || (v >= 0 && (cur < 0 || cmp < cur))) {
				*best = v;
				if (period)
					*period = per;
				free(*where);
				*where = xstrdup(f);
			}
			found = 1;
		}
		free(dir);
		free(f);
		if (!strcmp(p, "/") || !*p)
			break;
		if (cg_up(p) < 0)
			break;
	}
	free(p);
	return found ? 0 : -ENOENT;
}

/* The nearest cpuset file up from path (a v2 leaf without the controller
 * enabled has none; the effective set is its parent's). */
static int cg_cpuset(struct probe_ctx *ctx, const char *mount, const char *path, const char *file,
		     char **out, char **where)
{
	char *p = xstrdup(path);
	int r = -ENOENT;
	for (;;) {
		char *dir = cg_dir(mount, p), *f = xasprintf("%s/%s", dir, file), *s = NULL;
		free(dir);
		if (sr_read_str(&ctx->sr, f, &s) == 0) {
			hwloc_bitmap_t set = hwloc_bitmap_alloc();
			if (*s && parse_cpulist(s, set) == 0 && !hwloc_bitmap_iszero(set)) {
				*out = cpulist_dup(set);
				*where = f;
				f = NULL;
				r = 0;
			}
			hwloc_bitmap_free(set);
			free(s);
		}
		free(f);
		if (r == 0 || !strcmp(p, "/") || !*p)
			break;
		if (cg_up(p) < 0)
			break;
	}
	free(p);
	return r;
}

/* /proc/self/cgroup: the v2 path ("0::/PATH") or the v1 paths of the
 * cpuset, cpu and memory hierarchies. */
struct cg_paths {
	char *v2;
	char *cpuset, *cpu, *memory;
	char *cpu_mount;   /* "cpu,cpuacct" or "cpu" */
};

static void cg_parse(char *text, struct cg_paths *c)
{
	char *save = NULL, *line;
	memset(c, 0, sizeof(*c));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL, *tok, *s2 = NULL, *ctl;
		if (!b || b[1] != '/')
			continue;
		*a = '\0';
		*b = '\0';
		if (!strcmp(line, "0") && a[1] == '\0') {
			free(c->v2);
			c->v2 = xstrdup(b + 1);
			continue;
		}
		ctl = xstrdup(a + 1);
		for (tok = strtok_r(ctl, ",", &s2); tok; tok = strtok_r(NULL, ",", &s2)) {
			if (!strcmp(tok, "cpuset") && !c->cpuset)
				c->cpuset = xstrdup(b + 1);
			else if (!strcmp(tok, "cpu") && !c->cpu) {
				c->cpu = xstrdup(b + 1);
				c->cpu_mount = xstrdup(a + 1);
			} else if (!strcmp(tok, "memory") && !c->memory)
				c->memory = xstrdup(b + 1);
		}
		free(ctl);
	}
}

static void cg_free(struct cg_paths *c)
{
	free(c->v2);
	free(c->cpuset);
	free(c->cpu);
	free(c->memory);
	free(c->cpu_mount);
}

/* process.cgroup's facts null (the caller says why). */
static void cg_null(cJSON *g)
{
	fj_set(g, "version", cJSON_CreateNull());
	fj_set(g, "path", cJSON_CreateNull());
	fj_set(g, "cpuset_cpus", cJSON_CreateNull());
	fj_set(g, "cpu_quota_cpus", cJSON_CreateNull());
	fj_set(g, "memory_max_bytes", cJSON_CreateNull());
}

/* process.cgroup.cpuset_cpus: the effective cpuset up from the cgroup. */
static void cg_cpuset_fact(struct probe_ctx *ctx, struct path_cxt *pc, const struct cg_paths *c, int v2)
{
	cJSON *g = pc->obj;
	char *cpus = NULL, *where = NULL;
	if ((v2 ? cg_cpuset(ctx, "", c->v2, "cpuset.cpus.effective", &cpus, &where)
		: c->cpuset ? cg_cpuset(ctx, "/cpuset", c->cpuset, "cpuset.effective_cpus", &cpus, &where) : -ENOENT) == 0
	    || (!v2 && c->cpuset && cg_cpuset(ctx, "/cpuset", c->cpuset, "cpuset.cpus", &cpus, &where) == 0)) {
		cJSON_AddStringToObject(g, "cpuset_cpus", cpus);
		pc_evidence_of(pc, "cpuset_cpus", where);
	} else {
		fj_set(g, "cpuset_cpus", cJSON_CreateNull());
		pc_gap(pc, "cpuset_cpus", "no readable %s up from the cgroup %s",
		       v2 ? "cpuset.cpus.effective" : "cpuset.effective_cpus", v2 ? c->v2 : c->cpuset ? c->cpuset : "(none)");
	}
	free(cpus);
	free(where);
}

/* process.cgroup.cpu_quota_cpus, as CPUs: quota / period. */
static void cg_quota_fact(struct probe_ctx *ctx, struct path_cxt *pc, const struct cg_paths *c, int v2)
{
	cJSON *g = pc->obj;
	char *where = NULL;
	double v, per = 0;
	int r = -ENOENT;
	if (v2)
		r = cg_tightest(ctx, "", c->v2, "cpu.max", &v, &per, &where);
	else if (c->cpu) {
		char *mount = xasprintf("/%s", c->cpu_mount);
		double q, p = 0;
		r = cg_tightest(ctx, mount, c->cpu, "cpu.cfs_quota_us", &q, NULL, &where);
		if (r == 0) {
			char *dir = where ? path_dirname(where) : NULL, *pf = dir ? xasprintf("%s/cpu.cfs_period_us", dir) : NULL;
			if (!pf || read_limit(ctx, pf, &p, NULL) < 0 || p <= 0)
				p = 100000;
			free(dir);
			free(pf);
			v = q;
			per = p;
		}
		free(mount);
	}
	if (r == 0) {
		if (v < 0) {
			cJSON_AddStringToObject(g, "cpu_quota_cpus", "unlimited");
			cJSON_AddStringToObject(g, "cpu_quota_us", "unlimited");
		} else {
			cJSON_AddNumberToObject(g, "cpu_quota_cpus", v / per);
			cJSON_AddNumberToObject(g, "cpu_quota_us", v);
		}
		cJSON_AddNumberToObject(g, "cpu_period_us", per);
		pc_evidence_of(pc, "cpu_quota_cpus", where);
	} else {
		fj_set(g, "cpu_quota_cpus", cJSON_CreateNull());
		pc_gap(pc, "cpu_quota_cpus", "no readable %s in the cgroup or above", v2 ? "cpu.max" : "cpu.cfs_quota_us");
	}
	free(where);
}

/* process.cgroup.memory_max_bytes: the tightest limit up from the cgroup. */
static void cg_memory_fact(struct probe_ctx *ctx, struct path_cxt *pc, const struct cg_paths *c, int v2)
{
	cJSON *g = pc->obj;
	char *where = NULL;
	double v;
	int r;
	if (v2)
		r = cg_tightest(ctx, "", c->v2, "memory.max", &v, NULL, &where);
	else
		r = c->memory ? cg_tightest(ctx, "/memory", c->memory, "memory.limit_in_bytes", &v, NULL, &where) : -ENOENT;
	if (r == 0) {
		if (v < 0)
			cJSON_AddStringToObject(g, "memory_max_bytes", "unlimited");
		else
			cJSON_AddNumberToObject(g, "memory_max_bytes", v);
		pc_evidence_of(pc, "memory_max_bytes", where);
	} else {
		fj_set(g, "memory_max_bytes", cJSON_CreateNull());
		pc_gap(pc, "memory_max_bytes", "no readable %s in the cgroup or above",
		       v2 ? "memory.max" : "memory.limit_in_bytes");
	}
	free(where);
}

static void probe_cgroup_limits(struct probe_ctx *ctx)
{
	cJSON *g = facts_obj(&ctx->facts, "process.cgroup");
	struct path_cxt pc, in;
	char *buf = NULL;
	struct cg_paths c;
	int r, v2;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, facts_obj(&ctx->facts, "process"), "process");
	r = pc_read(&pc, &buf, NULL, "/proc/self/cgroup");
	if (r < 0) {
		cg_null(g);
		pc_gap_read(&pc, "cgroup", r);
		return;
	}
	cg_parse(buf, &c);
	free(buf);
	v2 = c.v2 && !c.cpuset && !c.cpu && !c.memory;
	if (!c.v2 && !c.cpuset && !c.cpu && !c.memory) {
		cg_null(g);
		pc_gap(&pc, "cgroup", "%s: no cgroup line this probe reads", pc.path);
		cg_free(&c);
		return;
	}
	cJSON_AddNumberToObject(g, "version", v2 ? 2 : 1);
	fj_str_or_null(g, "path", v2 ? c.v2 : c.cpuset ? c.cpuset : c.cpu ? c.cpu : c.memory);
	pc_evidence(&pc, "cgroup");
	pc_init(&in, &ctx->sr, &ctx->facts);
	pc_setobj(&in, g, "process.cgroup");
	cg_cpuset_fact(ctx, &in, &c, v2);
	cg_quota_fact(ctx, &in, &c, v2);
	cg_memory_fact(ctx, &in, &c, v2);
	cg_free(&c);
}

/*** get_mempolicy / set_mempolicy ***/

/* "allowed", "denied" (EPERM: a seccomp filter, or a policy), "unsupported"
 * (ENOSYS: a kernel without NUMA). */
static const char *try_result(long r, int err)
{
	if (r == 0)
		return "allowed";
	return err == EPERM || err == EACCES ? "denied" : err == ENOSYS ? "unsupported" : "allowed";
}

#define MEMPOLICY_EVIDENCE "get_mempolicy(2), set_mempolicy(2)"

static void probe_mempolicy(struct probe_ctx *ctx)
{
	cJSON *m = facts_obj(&ctx->facts, "process.mempolicy");
	struct path_cxt pc;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, facts_obj(&ctx->facts, "process"), "process");
	if (!ctx->sr.live) {
		/* A snapshot keeps what the live probe found. */
		char *s = NULL;
		if (pc_read_str(&pc, &s, "/nodeaudit/mempolicy") == 0) {
			char g[16], st[16];
			if (sscanf(s, "get_mempolicy %15s set_mempolicy %15s", g, st) == 2 &&
			    (!strcmp(g, "allowed") || !strcmp(g, "denied") || !strcmp(g, "unsupported")) &&
			    (!strcmp(st, "allowed") || !strcmp(st, "denied") || !strcmp(st, "unsupported"))) {
				cJSON_AddStringToObject(m, "get_mempolicy", g);
				cJSON_AddStringToObject(m, "set_mempolicy", st);
				/* As live: the answer of the system calls (recorded by snapshot). */
				pc_evidence_of(&pc, "mempolicy", MEMPOLICY_EVIDENCE);
				free(s);
				return;
			}
			pc_gap(&pc, "mempolicy", "%s: not two 'NAME allowed|denied|unsupported' fields", pc.path);
		} else
			pc_gap(&pc, "mempolicy", "live only: whether the system calls are "
			       "allowed is found by calling them, and this sysroot's snapshot did not record it");
		free(s);
		fj_set(m, "get_mempolicy", cJSON_CreateNull());
		fj_set(m, "set_mempolicy", cJSON_CreateNull());
		return;
	}
#if defined(SYS_get_mempolicy) && defined(SYS_set_mempolicy)
	{
		int mode = 0, e;
		unsigned long mask[16];
		long r;
		memset(mask, 0, sizeof(mask));
		errno = 0;
		r = syscall(SYS_get_mempolicy, &mode, mask, (unsigned long)(sizeof(mask) * 8), NULL, 0ul);
		e = errno;
		cJSON_AddStringToObject(m, "get_mempolicy", try_result(r, e));
		/* Set the policy it has (the default, unless numactl started us):
		 * nothing changes, and the answer is whether the call is allowed. */
		errno = 0;
		if (r == 0)
			r = syscall(SYS_set_mempolicy, mode, mode ? mask : NULL,
				    mode ? (unsigned long)(sizeof(mask) * 8) : 0ul);
		else
			r = syscall(SYS_set_mempolicy, 0, NULL, 0ul);
		e = errno;
		cJSON_AddStringToObject(m, "set_mempolicy", try_result(r, e));
		pc_evidence_of(&pc, "mempolicy", MEMPOLICY_EVIDENCE);
		pc_setobj(&pc, m, "process.mempolicy");
		if (r != 0 && e != EPERM && e != EACCES && e != ENOSYS)
			pc_gap(&pc, "set_mempolicy", "set_mempolicy answered %s: allowed by the filter, "
			       "refused for its arguments", strerror(e));
	}
#else
	fj_set(m, "get_mempolicy", cJSON_CreateNull());
	fj_set(m, "set_mempolicy", cJSON_CreateNull());
	pc_gap(&pc, "mempolicy", "this build has no get_mempolicy system call number");
#endif
}

int probe_process(struct probe_ctx *ctx)
{
	/* A sysroot without /proc/self (a snapshot older than this probe, or a
	 * tree made by hand): every fact null, one gap for them all. */
	if (!ctx->sr.live && sr_is_dir(&ctx->sr, "/proc/self") != 1) {
		cJSON *p = facts_obj(&ctx->facts, "process"), *o;
		static const char *const cg[] = { "version", "path", "cpuset_cpus", "cpu_quota_cpus",
			"memory_max_bytes" };
		static const char *const caps[] = { "effective", "sys_nice", "ipc_lock", "sys_resource",
			"sys_admin" };
		size_t i;
		o = cJSON_AddObjectToObject(p, "cgroup");
		for (i = 0; i < ARRAY_SIZE(cg); i++)
			cJSON_AddNullToObject(o, cg[i]);
		o = cJSON_AddObjectToObject(p, "limits");
		cJSON_AddNullToObject(o, "memlock");
		cJSON_AddNullToObject(o, "nofile");
		o = cJSON_AddObjectToObject(p, "capabilities");
		for (i = 0; i < ARRAY_SIZE(caps); i++)
			cJSON_AddNullToObject(o, caps[i]);
		o = cJSON_AddObjectToObject(p, "mempolicy");
		cJSON_AddNullToObject(o, "get_mempolicy");
		cJSON_AddNullToObject(o, "set_mempolicy");
		facts_gap(&ctx->facts, "process", "the sysroot has no /proc/self (a snapshot taken before "
			  "the process probe, or a tree made by hand): the limits of the process are unknown");
		return 0;
	}
	probe_cgroup_limits(ctx);
	probe_limits(ctx);
	probe_caps(ctx);
	probe_mempolicy(ctx);
	return 0;
}
