/* probe/kernel.c - the kernel probe: version, command line, cgroups, clocksource,
 * irqbalance, and the steps of probe/kernel-*.c in their order */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "probe/cmdline.h"
#include "probe/kernel.h"
#include "read/path.h"
#include "lib/output.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*** Command line, version, cgroups, clocksource, irqbalance ***/

static void probe_cmdline(struct probe_ctx *ctx)
{
	cJSON *c = facts_obj(&ctx->facts, "kernel.cmdline");
	struct path_cxt pc;
	char *buf = NULL;
	size_t len;
	struct cmdline cl;
	int r;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, c, "kernel.cmdline");
	r = pc_read(&pc, &buf, &len, "/proc/cmdline");
	if (r == 0 && (!text_is_kernel(buf, len) || len > 65536))
		r = -EINVAL;
	if (r < 0) {
		fj_str_or_null(c, "raw", NULL);
		fj_set(c, "params", cJSON_CreateNull());
		pc_setobj(&pc, c, "kernel");
		if (r == -EINVAL)
			pc_gap(&pc, "cmdline", "%s: unparsable (not one line of text)", pc.path);
		else
			pc_gap_read(&pc, "cmdline", r);
		free(buf);
		return;
	}
	buf[strcspn(buf, "\n")] = '\0';
	strtrim(buf);
	fj_str_or_null(c, "raw", buf);
	cmdline_parse(buf, &cl);
	fj_set(c, "params", cmdline_params_json(&cl));
	if (cl.unbalanced)
		pc_gap(&pc, "params", "%s: a quote is never closed (read as the kernel does: to the end)", pc.path);
	cmdline_free(&cl);
	pc_setobj(&pc, c, "kernel");
	pc_evidence(&pc, "cmdline");
	free(buf);
}

static void probe_cgroup(struct probe_ctx *ctx)
{
	cJSON *k = facts_obj(&ctx->facts, "kernel"), *ctl;
	struct path_cxt pc;
	char *buf = NULL, *line, *save = NULL, *tok;
	int r, v1 = 0, v2root = 0, v2other = 0;

	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, k, "kernel");
	r = pc_read(&pc, &buf, NULL, "/sys/fs/cgroup/cgroup.controllers");
	if (r == 0 && text_is_kernel(buf, strlen(buf))) {
		fj_num(k, "cgroup_version", 2);
		fj_str_or_null(k, "cgroup_mode", "unified");
		ctl = cJSON_CreateArray();
		for (tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
			cJSON_AddItemToArray(ctl, cJSON_CreateString(tok));
		fj_set(k, "cgroup_controllers", ctl);
		pc_evidence(&pc, "cgroup_version");
		free(buf);
		return;
	}
	free(buf);
	buf = NULL;
	if (pc_read(&pc, &buf, NULL, "/proc/mounts") == 0) {
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			/* "DEV MNT TYPE ...", blank-separated (the kernel escapes blanks
			 * in a path as \040): the fields whole, a mount point of any
			 * length (a cut one would shift the type). */
			char *mnt, *type;
			line += strspn(line, " \t");
			mnt = line + strcspn(line, " \t");
			mnt += strspn(mnt, " \t");
			type = mnt + strcspn(mnt, " \t");
			if (!*mnt || !*type)
				continue;
			*type++ = '\0';
			type += strspn(type, " \t");
			type[strcspn(type, " \t")] = '\0';
			if (!*type)
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
		pc_evidence(&pc, "cgroup_version");
		if (v2root)
			pc_gap(&pc, "cgroup_controllers", "/sys/fs/cgroup/cgroup.controllers: %s",
			       sr_reason(r ? r : -ENOENT));
		else
			pc_gap(&pc, "cgroup_controllers", "cgroup v1 (%s): no /sys/fs/cgroup/cgroup.controllers",
			       v2other ? "hybrid" : "legacy");
		return;
	}
	fj_set(k, "cgroup_version", cJSON_CreateNull());
	fj_str_or_null(k, "cgroup_mode", NULL);
	fj_set(k, "cgroup_controllers", cJSON_CreateNull());
	pc_gap(&pc, "cgroup_version", "neither /sys/fs/cgroup/cgroup.controllers nor a cgroup mount in /proc/mounts");
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

/* The whole text of /proc file name (below procfd) into buf, grown as
 * needed up to max bytes: its length, or -1. */
static ssize_t proc_slurp(int procfd, const char *name, char **buf, size_t max)
{
	size_t len = 0, cap = 4096;
	ssize_t r;
	int fd = openat(procfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	*buf = NULL;
	if (fd < 0)
		return -1;
	*buf = xmalloc(cap + 1);
	for (;;) {
		if (len == cap) {
			if (cap >= max)
				break;
			cap *= 2;
			*buf = xrealloc(*buf, cap + 1);
		}
		r = read(fd, *buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

static int cmp_pid(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * The kernel's own threads, which no scan for irqbalance needs to look
 * at: the children of kthreadd (PID 2), from its /proc/2/task/2/children
 * (CONFIG_PROC_CHILDREN), sorted, and kthreadd itself.  A busy node has
 * thousands (kworkers, ksoftirqd and migration threads for every CPU):
 * on the reference VM 62 of 68 processes, each a readlink that fails.
 * Only when /proc/2/stat says PID 2 is kthreadd: named so, no parent, and
 * PF_KTHREAD in its flags (in a container's PID namespace PID 2 is any
 * process).  A user-mode helper the kernel starts (modprobe, a core-dump
 * pipe) is a child of kthreadd too, and never irqbalance.  NULL (scan them
 * all) when either file cannot be read.
 */
#define PF_KTHREAD_FLAG 0x00200000u
static uint64_t *kernel_threads(int procfd, size_t *n)
{
	char *text = NULL, *p, *end;
	uint64_t *pids = NULL, flags = 0;
	size_t cap = 0, k = 0;
	int sorted = 1, ok = 0;
	*n = 0;
	if (proc_slurp(procfd, "2/stat", &text, 4096) > 0 && !strncmp(text, "2 (kthreadd) ", 13)) {
		unsigned long long ppid = 1, fl = 0;
		/* pid (comm) state ppid pgrp session tty_nr tpgid flags */
		if (sscanf(text + 13, "%*c %llu %*d %*d %*d %*d %llu", &ppid, &fl) == 2 && ppid == 0)
			flags = fl, ok = 1;
	}
	free(text);
	if (!ok || !(flags & PF_KTHREAD_FLAG) || proc_slurp(procfd, "2/task/2/children", &text, 64u << 20) < 0) {
		free(text);
		return NULL;
	}
	for (p = text;; p = end) {
		uint64_t v;
		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			break;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (end == p || errno || (*end && *end != ' ' && *end != '\n')) {
			free(text);
			free(pids);
			return NULL;   /* not a list of PIDs: scan them all */
		}
		if (k + 1 >= cap) {
			cap = cap ? 2 * cap : 256;
			pids = xrealloc(pids, cap * sizeof(*pids));
		}
		if (k && v < pids[k - 1])
			sorted = 0;
		pids[k++] = v;
	}
	free(text);
	if (!pids)
		pids = xmalloc(sizeof(*pids));
	pids[k++] = 2;
	if (!sorted || (k > 1 && pids[k - 2] > 2))
		qsort(pids, k, sizeof(*pids), cmp_pid);
	*n = k;
	return pids;
}

/* The PIDs in irqbalance's control socket names in /proc/net/unix
 * ("/run/irqbalance/irqbalance1234.sock", or "@irqbalance1234.sock" where
 * it fell back to an abstract socket; irqbalance >= 1.3): 1 when one of
 * them is a live irqbalance. */
static int irqbalance_by_socket(struct probe_ctx *ctx, int procfd)
{
	struct path_cxt pc;
	char *text = NULL, *p;
	int found = 0;
	pc_init(&pc, &ctx->sr, NULL);
	if (pc_read(&pc, &text, NULL, "/proc/net/unix") < 0)
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
 * up to the first match but the kernel's own threads (kernel_threads()):
 * a busy node has thousands, so one readlink each as root (else open,
 * read, close of its comm; the read layer's open, fstat, read, read,
 * close would cost five).
 */
static void probe_irqbalance(struct probe_ctx *ctx)
{
	cJSON *k = facts_obj(&ctx->facts, "kernel");
	struct path_cxt pc;
	DIR *procdir;
	struct dirent *de;
	size_t i, mark = ctx->sr.nread, nkthreads = 0;
	uint64_t *kthreads;
	int found = 0, procfd, root;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, k, "kernel");
	if (!ctx->sr.live) {
		/* A snapshot records what it saw live; a hand-made capture cannot tell. */
		char *v = NULL;
		if (pc_read_str(&pc, &v, "/nodeaudit/irqbalance") == 0 && (!strcmp(v, "1") || !strcmp(v, "0"))) {
			fj_bool_or_null(k, "irqbalance", !strcmp(v, "1"));
			pc_evidence_of(&pc, "irqbalance", "/proc/*/comm");
		} else {
			fj_bool_or_null(k, "irqbalance", -1);
			pc_gap(&pc, "irqbalance", "live only: a sysroot shows no running processes");
		}
		free(v);
		return;
	}
	/* One descriptor of /proc: listed in place (no copy, no sort: any
	 * order finds the first match) and the base of every lookup. */
	procdir = opendir("/proc");
	if (!procdir) {
		int err = -errno;
		fj_bool_or_null(k, "irqbalance", -1);
		pc_name(&pc, "/proc");
		pc_gap_read(&pc, "irqbalance", err);
		return;
	}
	procfd = dirfd(procdir);
	found = irqbalance_by_socket(ctx, procfd);
	root = geteuid() == 0;
	kthreads = found ? NULL : kernel_threads(procfd, &nkthreads);
	while (!found && (de = readdir(procdir))) {
		uint64_t pid;
		if (parse_u64(de->d_name, &pid) == 0 &&
		    !(kthreads && bsearch(&pid, kthreads, nkthreads, sizeof(*kthreads), cmp_pid)) &&
		    scan_is_irqbalance(procfd, de->d_name, root))
			found = 1;
	}
	free(kthreads);
	closedir(procdir);
	/* Sockets and process names are no evidence worth a snapshot: forget
	 * those reads. */
	for (i = mark; i < ctx->sr.nread; i++)
		free(ctx->sr.read[i]);
	ctx->sr.nread = mark;
	fj_bool_or_null(k, "irqbalance", found);
	pc_evidence_of(&pc, "irqbalance", "/proc/*/comm");
}

/* kernel.version (osrelease) and kernel.version_full (/proc/version). */
static void probe_version(struct probe_ctx *ctx, cJSON *k)
{
	struct path_cxt pc;
	char *buf = NULL;
	int r;

	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, k, "kernel");
	pc_text_fact(&pc, "version", NULL, "/proc/sys/kernel/osrelease");
	r = pc_read_text(&pc, &buf, "/proc/version");
	fj_str_or_null(k, "version_full", r == 0 ? buf : NULL);
	pc_record(&pc, "version_full", r);
	free(buf);
}

/* /proc/meminfo's text for the huge pages and swap, or NULL (unreadable,
 * or not text). */
static char *read_meminfo(struct probe_ctx *ctx)
{
	struct path_cxt pc;
	char *meminfo = NULL;
	size_t len;

	pc_init(&pc, &ctx->sr, NULL);
	if (pc_read(&pc, &meminfo, &len, "/proc/meminfo") < 0) {
		meminfo = NULL;
	} else if (!text_is_kernel(meminfo, len)) {
		free(meminfo);
		meminfo = NULL;
	}
	return meminfo;
}

int probe_kernel(struct probe_ctx *ctx)
{
	cJSON *k = facts_obj(&ctx->facts, "kernel");
	struct path_cxt pc;
	char *meminfo;

	probe_version(ctx, k);
	probe_cmdline(ctx);
	probe_sysctls(ctx);
	probe_numa_balancing(ctx);
	probe_thp(ctx);
	meminfo = read_meminfo(ctx);
	probe_hugepages(ctx, meminfo);
	probe_swap(ctx, meminfo);
	free(meminfo);
	probe_zswap(ctx);
	probe_cpufreq(ctx);
	probe_cpuidle(ctx);
	probe_cgroup(ctx);
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, k, "kernel");
	pc_text_fact(&pc, "clocksource", NULL, "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	probe_irqbalance(ctx);
	/* tuned's running profile(s), words (plan --format tuned includes them). */
	pc_text_fact(&pc, "tuned_profile", NULL, "/etc/tuned/active_profile");
	return 0;
}
