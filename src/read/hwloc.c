/* read/hwloc.c - hwloc over a sysroot, fenced
 *
 * hwloc's Linux backend reads sysfs and procfs by itself: under
 * HWLOC_FSROOT it opens each file with openat(root, "sys/...") and follows
 * every symbolic link on the way, so a link to "/etc/shadow" or
 * "../../../../etc" at cpu0/topology/physical_package_id makes it read the
 * host's file; a FIFO makes it block for ever; a directory named
 * cpu2147483647 makes it allocate a 256 MiB bitmap; an empty or reversed
 * node/online makes it abort (an assertion).  Our own reads go through
 * read/sysroot.c (openat2 RESOLVE_IN_ROOT, regular files only, capped).  hwloc
 * always loads in a forked child, with its stderr in a pipe and a
 * wall-clock limit, and sends the topology back as XML, which the parent
 * loads (hwloc_topology_set_xmlbuffer): an abort, a crash, a stall of the
 * library is a gap naming hwloc and the reason.  For a sysroot that is not
 * the live system the child is fenced one of two ways:
 *
 *  1. The namespace fence (the usual way).  The child enters a new user
 *     and mount namespace, binds the sysroot onto itself read-only, nosuid,
 *     nodev and noexec, and chroots there (enter_fence()): the kernel then
 *     resolves every path, link and ".." hwloc opens inside the sysroot,
 *     as openat2(RESOLVE_IN_ROOT) does for ours.  What the kernel does not
 *     stop is handled in the child too: a FIFO's open() is interrupted by a
 *     ticking timer (hwloc takes it for a missing file), memory is capped
 *     (RLIMIT_DATA).  hwloc reads its inputs itself, once, as lstopo would:
 *     nothing is written.  Measured on the 64-CPU util-linux capture:
 *     hwloc's part of the NUMA probe went from 563 ms (the copy below,
 *     36,559 system calls) to 23 ms; bench/README.md has the series.
 *  2. A private copy (the fallback).  Where no namespace can be made (user
 *     namespaces off, a container's seccomp filter: the child says so with
 *     FENCE_UNAVAILABLE), and for a tree holding what hwloc would trip on
 *     that the kernel does not stop (not_plain(): a CPU or node list or
 *     name out of our bounds, a processor number above them in cpuinfo, a
 *     file our reads refused as not regular or oversized), exactly the
 *     files the Linux backend of hwloc 2.9 reads for the objects we use
 *     (topology-linux.c: /proc/cpuinfo and meminfo, cpu/online, cpuN/
 *     {online,cpu_capacity,topology/...,cpufreq/{cpuinfo_max_freq,
 *     base_frequency},cache/indexK/...}, node/{online,possible}, nodeN/
 *     {cpumap,meminfo,distance,hugepages,access*,memory_side_cache},
 *     kernel/mm/hugepages) are read through the sysroot layer and written
 *     as plain files and directories -- no link, no FIFO, nothing to
 *     follow -- into a private 0700 directory, those out of bounds left
 *     out with a gap naming them; the copy as a whole is capped in files
 *     and bytes.  It costs a file created per input (the 256-CPU POWER
 *     tree of hwloc's test suite: 14,129 files, 3.6 s on the reference VM).
 *
 * The checks of 2 are made on what the probes have read already (the read
 * layer's cache), so a plain tree costs no extra system call to qualify.
 * NODEAUDIT_HWLOC_FENCE=copy (the test suite) takes the copy everywhere.
 *
 * A live audit loads this system in the child as lstopo would (no fence:
 * there is nothing hostile to fence off in the live /sys and /proc).  The
 * probes ask hwloc only where its reading could differ from theirs
 * (probe/cpu.c, probe/numa.c; -v says who asked and why), so on most
 * machines it is not loaded at all.  bench, which binds threads, loads
 * this system in-process (probe_bind_topology()).
 */
#include "config.h"
#include "read/hwloc.h"
#include "lib/tempdir.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define CPUDIR "/sys/devices/system/cpu"
#define NODEDIR "/sys/devices/system/node"

struct copy {
	struct sysroot *sr;
	struct facts *f;
	int dfd;                /* the private copy's root */
	size_t files;
	uint64_t bytes;
	int over;
};

/*** Writing the copy: plain directories and files, created, never opened existing ***/

static int mkdirs_at(int dfd, const char *path)
{
	char buf[4096], *p;
	const char *r = path;
	while (*r == '/')
		r++;
	if (strlen(r) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, r);
	for (p = buf; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdirat(dfd, buf, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (*buf && mkdirat(dfd, buf, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int put(struct copy *c, const char *path, const char *buf, size_t len)
{
	const char *r = path, *slash;
	int fd, e = 0;
	while (*r == '/')
		r++;
	if (++c->files > HW_MAX_FILES || (c->bytes += len) > HW_MAX_BYTES) {
		c->over = 1;
		return -E2BIG;
	}
	fd = openat(c->dfd, r, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	slash = strrchr(r, '/');
	if (fd < 0 && errno == ENOENT && slash) {   /* the directories first */
		char *dir = xstrndup(r, (size_t)(slash - r));
		e = mkdirs_at(c->dfd, dir);
		free(dir);
		if (e < 0)
			return e;
		fd = openat(c->dfd, r, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	}
	if (fd < 0)
		return -errno;
	while (len > 0) {
		ssize_t w = write(fd, buf, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			e = -EIO;
			break;
		}
		buf += w;
		len -= (size_t)w;
	}
	close(fd);
	return e;
}

/*** Checks hwloc's parsers do not make ***/

typedef const char *(*check_fn)(const char *buf, size_t len);

static const char *check_cpulist(const char *b, size_t len)
{
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	int r = memchr(b, '\0', len) ? -EINVAL : parse_cpulist(b, s);
	hwloc_bitmap_free(s);
	return r == -ERANGE ? "CPU numbers stop at 65535" : r < 0 ? "not a CPU list" : NULL;
}

static const char *check_nodelist(const char *b, size_t len)
{
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	int r = memchr(b, '\0', len) ? -EINVAL : parse_cpulist(b, s);
	const char *why = NULL;
	if (r == -ERANGE || (r == 0 && hwloc_bitmap_last(s) >= HW_MAX_NODES))
		why = "node numbers stop at 1023";
	else if (r < 0)
		why = "not a node list";
	else if (hwloc_bitmap_iszero(s))
		why = "no node listed";
	hwloc_bitmap_free(s);
	return why;
}

static const char *check_cpumask(const char *b, size_t len)
{
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	int r = memchr(b, '\0', len) ? -EINVAL : parse_cpumask(b, s);
	hwloc_bitmap_free(s);
	return r == -ERANGE ? "CPU numbers stop at 65535" : r < 0 ? "not a CPU mask" : NULL;
}

/* hwloc sets a bit for each "processor : N" line when sysfs has no topology. */
static const char *check_cpuinfo(const char *b, size_t len)
{
	const char *p = b, *end = b + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!strncmp(p, "processor", 9) && (!nl || nl - p > 9)) {
			const char *q = p + 9;
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == ':') {
				char *e;
				unsigned long v;
				q++;
				while (*q == ' ' || *q == '\t')
					q++;
				errno = 0;
				v = strtoul(q, &e, 0);
				if (e != q && (errno || v >= SR_MAX_CPUS || *q == '-'))
					return "a processor number above 65535";
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return NULL;
}

static void copy(struct copy *c, const char *path, check_fn check)
{
	char *buf;
	size_t len;
	int r;
	if (c->over)
		return;
	r = sr_read_unrecorded(c->sr, path, &buf, &len);
	if (r < 0) {
		/* Missing is ordinary; anything else hwloc would have tripped on
		 * (a FIFO, a link out of the root, a huge file) is said. */
		if (r != -ENOENT && r != -ENOTDIR)
			facts_gap(c->f, "cpu", "hwloc not given '%s': %s", path, sr_reason(r));
		return;
	}
	if (check) {
		const char *why = check(buf, len);
		if (why) {
			facts_gap(c->f, "cpu", "hwloc not given '%s': %s", path, why);
			free(buf);
			return;
		}
	}
	put(c, path, buf, len);
	free(buf);
}

static void copy_dir(struct copy *c, const char *path)
{
	const char *r = path;
	while (*r == '/')
		r++;
	if (c->over || !sr_is_dir(c->sr, path))
		return;
	if (mkdirat(c->dfd, r, 0700) < 0 && errno != EEXIST && mkdirs_at(c->dfd, path) < 0)
		c->over = 1;
}

/* "cpu12" -> 12 under limit; -1 if hwloc would not take the name as a
 * number at all; -2 if it would, but out of our bounds or not plainly
 * written (hwloc reads "cpu010" as octal 8, "cpu-1" as ULONG_MAX). */
static long name_number(const char *name, const char *prefix, unsigned long limit)
{
	size_t n = strlen(prefix);
	const char *p = name + n;
	char *end;
	unsigned long v;
	if (strncmp(name, prefix, n))
		return -1;
	errno = 0;
	v = strtoul(p, &end, 0);
	if (end == p)
		return -1;
	if (!isdigit((unsigned char)*p) || (*p == '0' && p[1]) || *end || errno || v >= limit)
		return -2;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -2;
	return (long)v;
}

static void copy_cpu(struct copy *c, const char *d)
{
	static const char *const topo[] = {
		"physical_package_id", "core_id", "die_id", "cluster_id", "book_id", "drawer_id",
		"thread_siblings", "core_cpus", "core_siblings", "package_cpus", "die_cpus",
		"cluster_cpus", "book_siblings", "drawer_siblings",
	};
	static const char *const cache[] = {
		"level", "type", "size", "coherency_line_size", "number_of_sets",
		"physical_line_partition", "shared_cpu_map", "id",
	};
	char p[192];
	size_t i, j;
	snprintf(p, sizeof(p), "%s/online", d);
	copy(c, p, NULL);
	snprintf(p, sizeof(p), "%s/cpu_capacity", d);
	copy(c, p, NULL);
	snprintf(p, sizeof(p), "%s/topology", d);
	copy_dir(c, p);
	for (i = 0; i < ARRAY_SIZE(topo); i++) {
		snprintf(p, sizeof(p), "%s/topology/%s", d, topo[i]);
		copy(c, p, strstr(topo[i], "_id") ? NULL : check_cpumask);
	}
	snprintf(p, sizeof(p), "%s/cpufreq/cpuinfo_max_freq", d);
	copy(c, p, NULL);
	snprintf(p, sizeof(p), "%s/cpufreq/base_frequency", d);
	copy(c, p, NULL);
	for (i = 0; i < 10; i++) {   /* hwloc looks at index0 to index9 */
		snprintf(p, sizeof(p), "%s/cache/index%zu", d, i);
		if (!sr_is_dir(c->sr, p))
			continue;
		for (j = 0; j < ARRAY_SIZE(cache); j++) {
			snprintf(p, sizeof(p), "%s/cache/index%zu/%s", d, i, cache[j]);
			copy(c, p, !strcmp(cache[j], "shared_cpu_map") ? check_cpumask : NULL);
		}
	}
}

/* Subdirectories of dir whose names start with prefix: each one's files. */
static void copy_subdirs(struct copy *c, const char *dir, const char *prefix,
			 const char *const *files, size_t nfiles, size_t max)
{
	char **names, p[512];
	size_t n, i, j, k = 0;
	if (c->over || sr_list(c->sr, dir, &names, &n) < 0)
		return;
	copy_dir(c, dir);
	for (i = 0; i < n && k < max; i++) {
		if (strncmp(names[i], prefix, strlen(prefix)) || strlen(dir) + strlen(names[i]) > 200)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		if (!sr_is_dir(c->sr, p))
			continue;
		k++;
		copy_dir(c, p);
		for (j = 0; j < nfiles; j++) {
			snprintf(p, sizeof(p), "%s/%s/%s", dir, names[i], files[j]);
			copy(c, p, NULL);
		}
	}
	sr_free_list(names, n);
}

static void copy_node(struct copy *c, const char *d)
{
	static const char *const nr[] = { "nr_hugepages" };
	static const char *const msc[] = { "size", "line_size", "indexing" };
	static const char *const acc[] = { "read_bandwidth", "write_bandwidth", "read_latency",
					   "write_latency" };
	char p[192];
	size_t a, i;
	snprintf(p, sizeof(p), "%s/cpumap", d);
	copy(c, p, check_cpumask);
	snprintf(p, sizeof(p), "%s/meminfo", d);
	copy(c, p, NULL);
	snprintf(p, sizeof(p), "%s/distance", d);
	copy(c, p, NULL);
	snprintf(p, sizeof(p), "%s/hugepages", d);
	copy_subdirs(c, p, "hugepages-", nr, 1, 64);
	snprintf(p, sizeof(p), "%s/memory_side_cache", d);
	copy_subdirs(c, p, "index", msc, ARRAY_SIZE(msc), 16);
	for (a = 0; a < 2; a++) {
		char **names;
		size_t n;
		snprintf(p, sizeof(p), "%s/access%zu/initiators", d, a);
		if (c->over || sr_list(c->sr, p, &names, &n) < 0)
			continue;
		copy_dir(c, p);
		for (i = 0; i < ARRAY_SIZE(acc); i++) {
			snprintf(p, sizeof(p), "%s/access%zu/initiators/%s", d, a, acc[i]);
			copy(c, p, NULL);
		}
		/* The initiators are links to their nodes: hwloc wants the names. */
		for (i = 0; i < n; i++)
			if (name_number(names[i], "node", HW_MAX_NODES) >= 0) {
				snprintf(p, sizeof(p), "%s/access%zu/initiators/%s", d, a, names[i]);
				if (mkdirs_at(c->dfd, p) < 0)
					c->over = 1;
			}
		sr_free_list(names, n);
	}
}

static void copy_numbered(struct copy *c, const char *dir, const char *prefix, unsigned long limit,
			  void (*fn)(struct copy *, const char *))
{
	char **names;
	size_t n, i;
	if (sr_list(c->sr, dir, &names, &n) < 0)
		return;
	copy_dir(c, dir);
	for (i = 0; i < n && !c->over; i++) {
		char p[128];
		long v = name_number(names[i], prefix, limit);
		if (v == -1)
			continue;
		if (v == -2) {
			if (strlen(names[i]) > 40)
				facts_gap(c->f, "cpu", "hwloc not given '%s/%.40s...': not a %s number below %lu",
					  dir, names[i], prefix, limit);
			else
				facts_gap(c->f, "cpu", "hwloc not given '%s/%s': not a %s number below %lu",
					  dir, names[i], prefix, limit);
			continue;
		}
		snprintf(p, sizeof(p), "%s/%s%ld", dir, prefix, v);
		if (!sr_is_dir(c->sr, p))
			continue;
		copy_dir(c, p);
		fn(c, p);
	}
	sr_free_list(names, n);
}

int hwloc_copy_inputs(struct sysroot *sr, const char *dst, struct facts *f)
{
	struct copy c;
	memset(&c, 0, sizeof(c));
	c.sr = sr;
	c.f = f;
	c.dfd = open(dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c.dfd < 0)
		return -errno;
	copy(&c, "/proc/cpuinfo", check_cpuinfo);
	copy(&c, "/proc/meminfo", NULL);
	/* What hwloc takes from uname() live (see cmd/snapshot.c). */
	copy(&c, "/proc/hwloc-nofile-info", NULL);
	copy(&c, CPUDIR "/online", check_cpulist);
	copy_numbered(&c, CPUDIR, "cpu", SR_MAX_CPUS, copy_cpu);
	copy(&c, NODEDIR "/online", check_nodelist);
	copy(&c, NODEDIR "/possible", check_nodelist);
	copy_numbered(&c, NODEDIR, "node", HW_MAX_NODES, copy_node);
	{
		static const char *const nr[] = { "nr_hugepages" };
		copy_subdirs(&c, "/sys/kernel/mm/hugepages", "hugepages-", nr, 1, 64);
	}
	close(c.dfd);
	return c.over ? -E2BIG : 0;
}

/*** Loading in a child ***/

void hwloc_set_filters(hwloc_topology_t t)
{
	/* Only what we use: no I/O objects (PCI comes from libpci), no misc. */
	hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_type_filter(t, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_type_filter(t, HWLOC_OBJ_MEMCACHE, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_icache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *b = p;
	while (n > 0) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The child's exit status when the namespace fence cannot be set up here
 * (user namespaces off, a seccomp filter, no mount rights): the parent
 * falls back to the copy. */
#define FENCE_UNAVAILABLE 113

/*
 * The namespace fence, in the child: a user namespace (so that an
 * unprivileged run has the rights to mount and chroot, and a root run
 * gives up the host's), a mount namespace of its own, the sysroot bound
 * onto itself read-only, nosuid, nodev and noexec, and a chroot there.
 * From then on the kernel resolves every path hwloc opens, every symbolic
 * link ("/etc/shadow" included) and every ".." inside the sysroot, as
 * openat2(RESOLVE_IN_ROOT) does for our own reads.  Returns 0, or -1 with
 * the failing step in *step.
 */
static int enter_fence(const char *root, const char **step)
{
	struct statvfs vs;
	unsigned long keep = 0;
	*step = "unshare";
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0 && (geteuid() != 0 || unshare(CLONE_NEWNS) < 0))
		return -1;
	*step = "mount (private)";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -1;
	*step = "mount (bind)";
	if (mount(root, root, NULL, MS_BIND, NULL) < 0)
		return -1;
	/* A remount in a user namespace must keep the flags it inherited
	 * (the kernel locks them): the atime ones are read back first. */
	if (statvfs(root, &vs) == 0) {
		if (vs.f_flag & ST_NOATIME)
			keep |= MS_NOATIME;
		if (vs.f_flag & ST_NODIRATIME)
			keep |= MS_NODIRATIME;
		if (vs.f_flag & ST_RELATIME)
			keep |= MS_RELATIME;
	}
	*step = "mount (read-only)";
	if (mount(NULL, root, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | keep,
		  NULL) < 0)
		return -1;
	*step = "chroot";
	if (chroot(root) < 0 || chdir("/") < 0)
		return -1;
	return 0;
}

/* The child's address space: hwloc given a hostile file (a mask of
 * millions of words, a huge cpuinfo) fails to allocate instead of growing
 * without bound.  Not under AddressSanitizer, whose shadow memory is
 * counted as data. */
#if defined(__SANITIZE_ADDRESS__)   /* gcc */
#define HW_ASAN 1
#elif defined(__has_feature)       /* clang */
#if __has_feature(address_sanitizer)
#define HW_ASAN 1
#endif
#endif

static void limit_memory(void)
{
#ifndef HW_ASAN
	struct rlimit rl = { HW_MAX_DATA, HW_MAX_DATA };
	setrlimit(RLIMIT_DATA, &rl);
#endif
}

/*
 * A FIFO among hwloc's inputs would block its open() for ever (the kernel's
 * fence does not stop that; the copy leaves FIFOs out).  A timer ticks
 * every HW_TICK_MS in the child, and its handler is installed without
 * SA_RESTART: a blocked open() returns EINTR, which hwloc takes for a
 * missing file, as the copy would have it.  Reads of regular files are not
 * interrupted by signals.  The ticks also end the child if the parent,
 * which keeps the wall-clock limit, is gone.
 */
static volatile sig_atomic_t ticks;

static void tick(int sig)
{
	(void)sig;
	if (++ticks > (HW_TIMEOUT_MS + 2000) / HW_TICK_MS)
		_exit(6);
}

static void start_ticker(void)
{
	struct sigaction sa;
	struct itimerval it;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tick;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	it.it_interval.tv_sec = it.it_value.tv_sec = 0;
	it.it_interval.tv_usec = it.it_value.tv_usec = HW_TICK_MS * 1000;
	setitimer(ITIMER_REAL, &it, NULL);
}

/* Only our settings: HWLOC_XMLFILE, HWLOC_CPUID_PATH and the like would
 * make hwloc read files outside the copy. */
static void drop_hwloc_env(void)
{
	size_t i;
	for (i = 0; environ[i];)
		if (!strncmp(environ[i], "HWLOC_", 6)) {
			char *name = xstrndup(environ[i], strcspn(environ[i], "="));
			unsetenv(name);
			free(name);
			i = 0;
		} else
			i++;
}

/* The namespace fence around fsroot, or the child's exit with
 * FENCE_UNAVAILABLE and the failing step on stderr. */
static void fence_child(const char *fsroot, const char *fault)
{
	const char *step = "unshare";
	/* NODEAUDIT_FAULT=hwloc-nofence (test suite): what a host
	 * without user namespaces answers. */
	if (fault && !strcmp(fault, "hwloc-nofence"))
		errno = EPERM;
	if ((fault && !strcmp(fault, "hwloc-nofence")) || enter_fence(fsroot, &step) < 0) {
		fprintf(stderr, "%s: %s\n", step, strerror(errno));
		_exit(FENCE_UNAVAILABLE);
	}
}

/* hwloc's settings (its root, not this system, the Linux component only)
 * and the child's limits: the ticker, the memory cap. */
static void set_up_load(const char *fsroot)
{
	setenv("HWLOC_FSROOT", fsroot, 1);
	setenv("HWLOC_THISSYSTEM", "0", 1);
	setenv("HWLOC_COMPONENTS", "linux,stop", 1);
	start_ticker();
	limit_memory();
}

/* Fault injection for the test suite (tests/hostile-boundary.sh): the
 * fence must turn a stall or an abort into a gap. */
static void inject_fault(const char *fault)
{
	if (fault && !strcmp(fault, "hwloc-stall"))
		for (;;)
			pause();
	if (fault && !strcmp(fault, "hwloc-abort")) {
		fputs("hwloc injected fault\n", stderr);
		abort();
	}
}

/* The load, and "<length>\n<xml>" written to fd; the child's exit. */
static void __attribute__((noreturn)) load_and_answer(int fd)
{
	hwloc_topology_t t;
	char *xml = NULL, head[32];
	int len = 0;
	if (hwloc_topology_init(&t) < 0)
		_exit(2);
	hwloc_set_filters(t);
	if (hwloc_topology_load(t) < 0)
		_exit(3);
	if (hwloc_topology_export_xmlbuffer(t, &xml, &len, 0) < 0 || len <= 0)
		_exit(4);
	snprintf(head, sizeof(head), "%d\n", len);
	if (write_all(fd, head, strlen(head)) < 0 || write_all(fd, xml, (size_t)len) < 0)
		_exit(5);
	_exit(0);
}

/* In the child: fence (fence set: the namespace; else fsroot is a copy or
 * the live "/"), load, write "<length>\n<xml>" to fd, exit. */
static void __attribute__((noreturn)) child(const char *fsroot, int fence, int fd)
{
	const char *fault = getenv("NODEAUDIT_FAULT");
	/* A name of its own, for ps and for the test suite's traces. */
	prctl(PR_SET_NAME, "nodeaudit-hwloc", 0, 0, 0);
	drop_hwloc_env();
	if (fence) {
		fence_child(fsroot, fault);
		fsroot = "/";
	}
	set_up_load(fsroot);
	inject_fault(fault);
	load_and_answer(fd);
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* The first non-empty line of what the child said, for the gap. */
static const char *first_line(char *s)
{
	char *p = s, *nl;
	while (*p) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (*p && strspn(p, "= ") != strlen(p)) {
			size_t n = strlen(p);
			if (n > 160)
				p[160] = '\0';
			return p;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return NULL;
}

/* One child's run, shared by the steps of run_child(). */
struct hw_run {
	int dp[2], ep[2];     /* pipes: its answer, its stderr */
	pid_t pid;
	char *data;           /* its answer: "<length>\n<xml>" */
	size_t dlen, dalloc;
	char err[4096];       /* what it said on stderr */
	size_t elen;
	int st;               /* its wait status */
	int timed_out;        /* 1: past the wall clock, 2: an oversized answer */
};

/* The pipes and the child, which fences itself and loads (child() does not
 * return); the parent keeps the read ends.  0, or -1 with errno, nothing
 * left open. */
static int spawn_child(struct hw_run *run, const char *fsroot, int fence)
{
	if (pipe2(run->dp, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(run->ep, O_CLOEXEC) < 0) {
		close(run->dp[0]);
		close(run->dp[1]);
		return -1;
	}
	fflush(NULL);
	run->pid = fork();
	if (run->pid < 0) {
		close(run->dp[0]), close(run->dp[1]), close(run->ep[0]), close(run->ep[1]);
		return -1;
	}
	if (run->pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, 0);
		dup2(run->ep[1], 2);
		close(run->dp[0]);
		close(run->ep[0]);
		child(fsroot, fence, run->dp[1]);
	}
	tmpdir_child(run->pid, 1);
	close(run->dp[1]);
	close(run->ep[1]);
	return 0;
}

/* More of the answer from pf's pipe; -1 when it outgrows HW_MAX_BYTES. */
static int read_answer(struct hw_run *run, struct pollfd *pf, int *open_fds)
{
	ssize_t n;
	if (run->dlen + 65536 > run->dalloc) {
		run->dalloc = run->dalloc ? run->dalloc * 2 : 262144;
		run->data = xrealloc(run->data, run->dalloc + 1);
	}
	n = read(run->dp[0], run->data + run->dlen, run->dalloc - run->dlen);
	if (n > 0)
		run->dlen += (size_t)n;
	else if (n == 0 || errno != EINTR) {
		pf->fd = -1;
		(*open_fds)--;
	}
	if (run->dlen > HW_MAX_BYTES)   /* XML larger than its inputs: no */
		return -1;
	return 0;
}

/* More of the child's stderr, kept up to the size of run->err. */
static void read_stderr(struct hw_run *run, struct pollfd *pf, int *open_fds)
{
	char tmp[1024];
	ssize_t n = read(run->ep[0], tmp, sizeof(tmp));
	if (n > 0) {
		size_t k2 = (size_t)n < sizeof(run->err) - 1 - run->elen ? (size_t)n
									 : sizeof(run->err) - 1 - run->elen;
		memcpy(run->err + run->elen, tmp, k2);
		run->elen += k2;
	} else if (n == 0 || errno != EINTR) {
		pf->fd = -1;
		(*open_fds)--;
	}
}

/* Both pipes read until the child closes them, within the wall clock of
 * HW_TIMEOUT_MS (else timed_out 1) and HW_MAX_BYTES (else 2). */
static void wait_answer(struct hw_run *run)
{
	long deadline = now_ms() + HW_TIMEOUT_MS;
	struct pollfd pf[2] = { { run->dp[0], POLLIN, 0 }, { run->ep[0], POLLIN, 0 } };
	int open_fds = 2;
	while (open_fds > 0) {
		long left = deadline - now_ms();
		int k;
		if (left <= 0) {
			run->timed_out = 1;
			break;
		}
		k = poll(pf, 2, (int)left);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		if (pf[0].revents && read_answer(run, &pf[0], &open_fds) < 0) {
			run->timed_out = 2;
			break;
		}
		if (pf[1].revents)
			read_stderr(run, &pf[1], &open_fds);
	}
}

/* The child's end: killed when it overran, its pipes closed, its status. */
static void reap_child(struct hw_run *run)
{
	run->err[run->elen] = '\0';
	if (run->timed_out)
		kill(run->pid, SIGKILL);
	close(run->dp[0]);
	close(run->ep[0]);
	while (waitpid(run->pid, &run->st, 0) < 0 && errno == EINTR)
		;
	tmpdir_child(run->pid, 0);
}

/* "<length>\n<xml>" checked and loaded: the topology, or NULL and a gap. */
static hwloc_topology_t load_xml(struct sysroot *sr, struct facts *f, char *data, size_t dlen)
{
	hwloc_topology_t t = NULL;
	char *end;
	unsigned long n = strtoul(data, &end, 10);
	if (*end != '\n' || n == 0 || n != dlen - (size_t)(end + 1 - data)) {
		facts_gap(f, "cpu", "hwloc: cannot load the topology of '%s'", sr->root);
		return NULL;
	}
	if (hwloc_topology_init(&t) < 0) {
		facts_gap(f, "cpu", "hwloc: cannot initialise a topology");
		return NULL;
	}
	hwloc_set_filters(t);
	if (hwloc_topology_set_xmlbuffer(t, end + 1, (int)n) < 0 || hwloc_topology_load(t) < 0) {
		hwloc_topology_destroy(t);
		t = NULL;
		facts_gap(f, "cpu", "hwloc: cannot load the topology of '%s'", sr->root);
	}
	return t;
}

/* The answer of a child that ran: a gap for a stall, a crash, an oversized
 * answer or a failure; else its XML loaded.  The topology or NULL. */
static hwloc_topology_t child_answer(struct sysroot *sr, struct facts *f, struct hw_run *run)
{
	int st = run->st;
	if (run->timed_out == 1) {
		facts_gap(f, "cpu", "hwloc: no answer within %d s on '%s' (stopped)", HW_TIMEOUT_MS / 1000,
			  sr->root);
		return NULL;
	}
	if (WIFSIGNALED(st) || run->timed_out == 2) {
		const char *line = first_line(run->err);
		facts_gap(f, "cpu", "hwloc: %s (%s) on '%s'%s%s",
			  run->timed_out == 2 ? "gave an oversized answer" : "crashed",
			  run->timed_out == 2 ? "stopped" : strsignal(WTERMSIG(st)), sr->root,
			  line ? ": " : "", line ? line : "");
		return NULL;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !run->data) {
		facts_gap(f, "cpu", "hwloc: cannot load the topology of '%s'", sr->root);
		return NULL;
	}
	run->data[run->dlen] = '\0';
	return load_xml(sr, f, run->data, run->dlen);
}

/*
 * Run hwloc in a child on fsroot (fence: the namespace fence around it),
 * wait for its XML with the wall-clock limit, and load that.  1 when the
 * fence cannot be set up here (nothing said: the caller falls back),
 * else 0 with *tp set, or NULL and a gap.
 */
static int run_child(struct sysroot *sr, struct facts *f, const char *fsroot, int fence,
		     hwloc_topology_t *tp)
{
	struct hw_run run = { .data = NULL };

	*tp = NULL;
	if (spawn_child(&run, fsroot, fence) < 0) {
		facts_gap(f, "cpu", "hwloc not run: %s", strerror(errno));
		return 0;
	}
	wait_answer(&run);
	reap_child(&run);
	if (!run.timed_out && fence && WIFEXITED(run.st) && WEXITSTATUS(run.st) == FENCE_UNAVAILABLE) {
		const char *line = first_line(run.err);
		debug("hwloc: no namespace fence here (%s): its inputs are copied instead",
		      line ? line : "unknown reason");
		free(run.data);
		return 1;
	}
	*tp = child_answer(sr, f, &run);
	free(run.data);
	return 0;
}

/*
 * Why this sysroot cannot be handed to hwloc whole (NULL: it can): what
 * hwloc would trip on that the kernel's fence does not stop -- a FIFO or
 * an oversized file our own reads met, a CPU or node list or name out of
 * hwloc's bounds, a processor number above them in /proc/cpuinfo.  Only
 * what the probes have read or listed already: no extra system call on a
 * plain tree.  Such a tree takes the copy, which withholds those files and
 * says which.
 */
static const char *not_plain(struct sysroot *sr, char *buf, size_t n)
{
	static const struct {
		const char *path;
		check_fn check;
	} lists[] = {
		{ "/proc/cpuinfo", check_cpuinfo },
		{ CPUDIR "/online", check_cpulist },
		{ NODEDIR "/online", check_nodelist },
		{ NODEDIR "/possible", check_nodelist },
	};
	static const struct {
		const char *dir, *prefix;
		unsigned long limit;
	} dirs[] = { { CPUDIR, "cpu", SR_MAX_CPUS }, { NODEDIR, "node", HW_MAX_NODES } };
	size_t i, k, len;
	char **names, *b;
	const char *why = NULL;
	if (sr->refused) {
		snprintf(buf, n, "%zu of its files were refused by our reads (not regular files, or over %u MiB)",
			 sr->refused, SR_MAX_FILE >> 20);
		return buf;
	}
	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		int r = sr_read_unrecorded(sr, lists[i].path, &b, &len);
		if (r < 0)
			continue;
		why = lists[i].check(b, len);
		free(b);
		if (why) {
			snprintf(buf, n, "%s: %s", lists[i].path, why);
			return buf;
		}
	}
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		size_t nn;
		if (sr_list(sr, dirs[i].dir, &names, &nn) < 0)
			continue;
		for (k = 0; k < nn && !why; k++)
			if (name_number(names[k], dirs[i].prefix, dirs[i].limit) == -2) {
				snprintf(buf, n, "%s/%.40s: not a %s number below %lu", dirs[i].dir, names[k],
					 dirs[i].prefix, dirs[i].limit);
				why = buf;
			}
		sr_free_list(names, nn);
		if (why)
			return why;
	}
	return NULL;
}

hwloc_topology_t hwloc_load_sysroot(struct sysroot *sr, struct facts *f)
{
	static int no_fence = -1;
	char *dir, why[256];
	const char *odd;
	hwloc_topology_t t = NULL;
	long t0 = now_ms();
	int r;

	/* The live system: hwloc reads it as lstopo would, in the child. */
	if (sr->live) {
		run_child(sr, f, "/", 0, &t);
		debug("hwloc: loaded this system in a child: %ld ms", now_ms() - t0);
		return t;
	}
	/* NODEAUDIT_HWLOC_FENCE=copy is for the test suite: the fallback a
	 * host without namespaces takes. */
	if (no_fence < 0) {
		const char *e = getenv("NODEAUDIT_HWLOC_FENCE");
		no_fence = e && !strcmp(e, "copy");
	}
	odd = no_fence ? NULL : not_plain(sr, why, sizeof(why));
	if (!no_fence && !odd) {
		if (run_child(sr, f, sr->root, 1, &t) == 0) {
			debug("hwloc: loaded '%s' in a mount namespace, read-only and chrooted: %ld ms", sr->root,
			      now_ms() - t0);
			return t;
		}
		no_fence = 1;
	} else if (odd)
		debug("hwloc: '%s' is not handed to it whole: %s", sr->root, odd);

	dir = tmpdir_make(NULL, "nodeaudit-hwloc");
	if (!dir) {
		facts_gap(f, "cpu", "hwloc not run: cannot create a temporary directory: %s", strerror(errno));
		return NULL;
	}
	r = hwloc_copy_inputs(sr, dir, f);
	if (r < 0) {
		if (r == -E2BIG)
			facts_gap(f, "cpu", "hwloc not run: its inputs in '%s' exceed %u files or %u MiB",
				  sr->root, HW_MAX_FILES, HW_MAX_BYTES >> 20);
		else
			facts_gap(f, "cpu", "hwloc not run: cannot copy its inputs: %s", strerror(-r));
	} else {
		run_child(sr, f, dir, 0, &t);
		debug("hwloc: loaded a copy of its inputs from '%s': %ld ms", sr->root, now_ms() - t0);
	}
	tmpdir_remove(dir);
	free(dir);
	return t;
}
