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
 *     hwloc's part of the NUMA probe went from 563 ms (the copy of 2,
 *     36,559 system calls) to 23 ms; bench/README.md has the series.
 *  2. A private copy (the fallback, read/hwloc-copy.c).  Where no
 *     namespace can be made (user namespaces off, a container's seccomp
 *     filter: the child says so with FENCE_UNAVAILABLE), and for a tree
 *     holding what hwloc would trip on that the kernel does not stop
 *     (hwloc_not_plain(): a CPU or node list or name out of our bounds, a
 *     processor number above them in cpuinfo, a
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
 * (probe/hwloc-ask.c, for probe/cpu-packages.c, probe/cpu-kinds-facts.c
 * and probe/numa.c; -v says who asked and why), so on most
 * machines it is not loaded at all.  bench, which binds threads, loads
 * this system in-process (probe_bind_topology()).
 */
#include "config.h"
#include "read/hwloc.h"
#include "lib/tempdir.h"
#include "lib/util.h"

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

/*** Loading in a child ***/

const char *hwloc_api_mismatch(void)
{
	static char why[128];
	unsigned v = hwloc_get_api_version();
	if (v >> 16 == HWLOC_API_VERSION >> 16)
		return NULL;
	snprintf(why, sizeof(why), "libhwloc is of API %u.%u, nodeaudit was built for %u.%u", v >> 16,
		 v >> 8 & 0xff, HWLOC_API_VERSION >> 16, HWLOC_API_VERSION >> 8 & 0xff);
	return why;
}

void hwloc_allowed_cpus(hwloc_topology_t t, hwloc_bitmap_t out)
{
	hwloc_bitmap_t h = hwloc_bitmap_alloc();
	if (h && hwloc_get_cpubind(t, h, HWLOC_CPUBIND_PROCESS) == 0)
		hwloc_bitmap_copy(out, h);
	else
		hwloc_bitmap_copy(out, hwloc_topology_get_allowed_cpuset(t));
	hwloc_bitmap_free(h);
}

void hwloc_set_filters(hwloc_topology_t t)
{
	/* Only what we use: no I/O objects (PCI comes from libpci), no misc. */
	hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_type_filter(t, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_type_filter(t, HWLOC_OBJ_MEMCACHE, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_icache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
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


hwloc_topology_t hwloc_load_sysroot(struct sysroot *sr, struct facts *f)
{
	static int no_fence = -1;
	char *dir, why[256];
	const char *odd;
	hwloc_topology_t t = NULL;
	long t0 = now_ms();
	int r;

	if ((odd = hwloc_api_mismatch())) {
		facts_gap(f, "cpu", "hwloc not run: %s", odd);
		return NULL;
	}
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
	odd = no_fence ? NULL : hwloc_not_plain(sr, why, sizeof(why));
	if (!no_fence && !odd) {
		if (run_child(sr, f, sr->root, 1, &t) == 0) {
			debug("hwloc: loaded '%s' in a mount namespace, read-only and chrooted: %ld ms", sr->root,
			      now_ms() - t0);
			return t;
		}
		no_fence = 1;
	} else if (odd)
		debug("hwloc: '%s' is not handed to it whole: %s", sr->root, odd);

	dir = tmpdir_make_scratch("nodeaudit-hwloc", 2ull * HW_MAX_BYTES, HW_MAX_FILES);
	if (!dir) {
		facts_gap(f, "cpu", "hwloc not run: %s", tmpdir_strerror());
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
