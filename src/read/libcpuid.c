/* read/libcpuid.c - libcpuid as a second source: live on x86, or from a raw dump
 *
 * libcpuid 0.6.2 (Debian 12) is x86-only and dies (SIGFPE) on ARM dumps and
 * on some odd inputs: a crash there must be a gap, not our crash.  A dump
 * (a file anyone may hand us) is read in a child process.  Live, libcpuid
 * runs on a thread of ours, fenced by handlers of the fault signals that
 * turn a fault on that thread into a gap: a fork costs the parent a
 * copy-on-write fault on every page it then writes (about 80, 1 to 1.5 ms
 * of a 14 ms check on the reference VM, where each fault traps to the
 * hypervisor), and CPUID's input is this machine's, not a stranger's.
 * Non-x86 dumps are recognised here and refused.  Built without libcpuid
 * (an architecture whose archive lacks it: configure.ac), the same calls
 * answer with why, and a snapshot holds no CPUID dump. */
#include "config.h"
#include "read/libcpuid.h"
#include "probe/probe.h"
#include "lib/util.h"
#include "read/lazylib.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <malloc.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_LIBCPUID
#include <libcpuid/libcpuid.h>
#endif

/* How long libcpuid may take (CPUID on every CPU; on a VM each instruction
 * traps to the hypervisor) before it is given up. */
#define CPUID_TIMEOUT_S 20

int cpuid_dump_kind(const char *buf)
{
	const char *p;
	int x86 = 0;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, "arm_", 4))
			return CPUID_DUMP_ARM;
		if (!strncmp(p, "basic_cpuid[", 12) || !strncmp(p, "CPUID 00000000:", 15) ||
		    !strncmp(p, "CPUID 00000001:", 15))
			x86 = 1;
		if (!strncmp(p, "--------------------------------------------------------------------------------", 80))
			break;
	}
	return x86 ? CPUID_DUMP_X86 : CPUID_DUMP_UNKNOWN;
}

#ifdef HAVE_LIBCPUID
#define HAVE_LIBCPUID_BUILT 1
#else
#define HAVE_LIBCPUID_BUILT 0
#endif

static int host_is_x86(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return 1;
#else
	return 0;
#endif
}

#ifdef HAVE_LIBCPUID
static void quiet(const char *msg)
{
	(void)msg;
}

/*
 * libcpuid is loaded by name when it is first needed (read/lazylib.h),
 * not linked: live, by its own thread, so that the loading overlaps the
 * other probes on another CPU instead of every run's start (about 0.17 ms
 * on the reference VM); for a dump, by the child that reads it.
 */
static struct {
	__typeof__(&cpuid_present) present;
	__typeof__(&cpuid_set_warn_function) set_warn_function;
	__typeof__(&cpuid_get_all_raw_data) get_all_raw_data;
	__typeof__(&cpuid_deserialize_all_raw_data) deserialize_all_raw_data;
	__typeof__(&cpuid_serialize_all_raw_data) serialize_all_raw_data;
	__typeof__(&cpu_identify_all) identify_all;
	__typeof__(&cpuid_free_raw_data_array) free_raw_data_array;
	__typeof__(&cpuid_free_system_id) free_system_id;
	__typeof__(&cpuid_error) error;
} L;
static struct lazylib libcpuid = { CPUID_SONAME, 0, "" };

/* 0, or -1 with why in err (n bytes). */
static int cpuid_load(char *err, size_t n)
{
	const struct lazy_sym syms[] = {
		{ "cpuid_present", (void **)&L.present },
		{ "cpuid_set_warn_function", (void **)&L.set_warn_function },
		{ "cpuid_get_all_raw_data", (void **)&L.get_all_raw_data },
		{ "cpuid_deserialize_all_raw_data", (void **)&L.deserialize_all_raw_data },
		{ "cpuid_serialize_all_raw_data", (void **)&L.serialize_all_raw_data },
		{ "cpu_identify_all", (void **)&L.identify_all },
		{ "cpuid_free_raw_data_array", (void **)&L.free_raw_data_array },
		{ "cpuid_free_system_id", (void **)&L.free_system_id },
		{ "cpuid_error", (void **)&L.error },
	};
	if (lazylib_load(&libcpuid, syms, ARRAY_SIZE(syms)) == 0)
		return 0;
	/* The loader's message (up to 255 bytes) cut to what err holds. */
	snprintf(err, n, "cannot load libcpuid: %.*s", (int)(n > 24 ? n - 24 : 0), libcpuid.err);
	return -1;
}

/* In the child or the thread: fill info from the dump (or live) and return
 * 0; 1 live where the CPU has no CPUID instruction. */
static int collect(const char *dump, struct cpuid_info *info)
{
	struct cpu_raw_data_array_t raw;
	struct system_id_t sys;
	int i;
	memset(&raw, 0, sizeof(raw));
	memset(&sys, 0, sizeof(sys));
	if (cpuid_load(info->err, sizeof(info->err)) < 0)
		return 0;
	if (!dump && !L.present()) {
		snprintf(info->err, sizeof(info->err), "no CPUID instruction on this host");
		return 1;
	}
	L.set_warn_function(quiet);
	if (dump ? L.deserialize_all_raw_data(&raw, dump) : L.get_all_raw_data(&raw)) {
		snprintf(info->err, sizeof(info->err), "libcpuid cannot read %s: %s",
			 dump ? "the dump" : "CPUID", L.error());
		return 0;
	}
	if (L.identify_all(&raw, &sys)) {
		snprintf(info->err, sizeof(info->err), "libcpuid cannot identify the CPU: %s", L.error());
		L.free_raw_data_array(&raw);
		return 0;
	}
	info->ntypes = sys.num_cpu_types < CPUID_MAX_TYPES ? sys.num_cpu_types : CPUID_MAX_TYPES;
	for (i = 0; i < info->ntypes; i++) {
		const struct cpu_id_t *c = &sys.cpu_types[i];
		struct cpuid_type *t = &info->t[i];
		t->purpose = c->purpose == PURPOSE_PERFORMANCE ? 1 : c->purpose == PURPOSE_EFFICIENCY ? 2 : 0;
		t->cores = c->num_cores;
		t->threads = c->num_logical_cpus;
		t->family = c->family;
		t->model = c->model;
		t->ext_family = c->ext_family;
		t->ext_model = c->ext_model;
		t->intel = c->vendor == VENDOR_INTEL;
		t->amd = c->vendor == VENDOR_AMD;
		snprintf(t->codename, sizeof(t->codename), "%s", c->cpu_codename);
		snprintf(t->brand, sizeof(t->brand), "%s", c->brand_str);
		snprintf(t->vendor, sizeof(t->vendor), "%s", c->vendor_str);
		t->avx2 = c->flags[CPU_FEATURE_AVX2];
		t->avx512f = c->flags[CPU_FEATURE_AVX512F];
	}
	info->ok = 1;
	L.free_system_id(&sys);
	L.free_raw_data_array(&raw);
	return 0;
}

#else /* !HAVE_LIBCPUID */

/* Built without libcpuid: a dump (or live CPUID) cannot be decoded. */
static int collect(const char *dump, struct cpuid_info *info)
{
	(void)dump;
	snprintf(info->err, sizeof(info->err),
		 "nodeaudit was built without libcpuid (not packaged for this architecture)");
	return 0;
}
#endif /* HAVE_LIBCPUID */

/*** Live: a thread, and its fence ***/

/* The fault signals a crash in libcpuid raises. */
static const int fence_sigs[] = { SIGFPE, SIGSEGV, SIGBUS, SIGILL };
static struct sigaction fence_old[ARRAY_SIZE(fence_sigs)];
static int fence_up;
static __thread int on_cpuid_thread;   /* set on the thread alone */
static sigjmp_buf fence_jb;

/* The one live run: its thread, its answer, and whether it is still out
 * (given up on after its time, or left by cpuid_cancel(): never joined,
 * never started again). */
static struct {
	pthread_t thread;
	struct timespec deadline;    /* when it is given up */
	struct cpuid_info info;
	volatile sig_atomic_t sig;   /* the fault that stopped it */
	int stuck;
	int nocpuid;                 /* the CPU has no CPUID */
} live;

/*
 * A fault on libcpuid's thread is recorded and jumps back to where that
 * thread began; a fault on any other thread is what it would have been
 * without us: the earlier action (the default's core dump, or a
 * sanitizer's report) is put back and the faulting instruction runs again
 * into it.  A fault signal sent by kill() is raised again instead.
 */
static void fence_handler(int sig, siginfo_t *si, void *uc)
{
	size_t i;
	(void)uc;
	if (on_cpuid_thread) {
		live.sig = sig;
		siglongjmp(fence_jb, 1);
	}
	for (i = 0; i < ARRAY_SIZE(fence_sigs); i++)
		if (fence_sigs[i] == sig)
			sigaction(sig, &fence_old[i], NULL);
	if (si->si_code <= 0)
		raise(sig);
}

static void fence_install(void)
{
	struct sigaction sa;
	size_t i;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fence_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(fence_sigs); i++)
		sigaction(fence_sigs[i], &sa, &fence_old[i]);
	fence_up = 1;
}

static void fence_remove(void)
{
	size_t i;
	if (!fence_up)
		return;
	for (i = 0; i < ARRAY_SIZE(fence_sigs); i++)
		sigaction(fence_sigs[i], &fence_old[i], NULL);
	fence_up = 0;
}

static void *cpuid_thread(void *arg)
{
	const char *fault = getenv("NODEAUDIT_FAULT");
	on_cpuid_thread = 1;
	if (sigsetjmp(fence_jb, 1)) {
		/* What libcpuid had allocated is lost; the answer is a gap. */
		memset(&live.info, 0, sizeof(live.info));
		return NULL;
	}
	/* NODEAUDIT_FAULT=libcpuid-crash (test suite): libcpuid's SIGFPE. */
	if (fault && !strcmp(fault, "libcpuid-crash"))
		raise(SIGFPE);
	(void)arg;
	live.nocpuid = collect(NULL, &live.info) == 1;
	return NULL;
}

/*
 * The thread's stack, faulted in by one madvise() instead of a fault a
 * page (each a trap to the hypervisor on a paravirtualised guest:
 * cpu_identify_all() keeps about 30 KiB of tables on its stack, seven
 * faults), with a guard page below; and the thread's mallocs in the main
 * arena, which the probes' heap_warm() has already faulted in (a thread's
 * own arena is a 64 MiB mapping, an mprotect() and a fault for every page
 * it touches).  The stack is never unmapped: a thread given up on may
 * still run on it, and the process ends soon after.
 */
#define CPUID_STACK (512u << 10)
#define CPUID_STACK_WARM (64u << 10)
static void *cpuid_stack(pthread_attr_t *attr)
{
	static void *stack;
	long pg = sysconf(_SC_PAGESIZE);
	size_t gp = pg > 0 ? (size_t)pg : 4096;
	if (!stack) {
		void *m = mmap(NULL, CPUID_STACK + gp, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		if (mprotect(m, gp, PROT_NONE) < 0) {
			munmap(m, CPUID_STACK + gp);
			return NULL;
		}
		stack = (char *)m + gp;
#ifdef MADV_POPULATE_WRITE
		(void)madvise((char *)stack + CPUID_STACK - CPUID_STACK_WARM, CPUID_STACK_WARM,
			      MADV_POPULATE_WRITE);
#endif
	}
	return pthread_attr_setstack(attr, stack, CPUID_STACK) == 0 ? stack : NULL;
}

/* Start libcpuid live on a thread (0), or -errno with info->err set.  The
 * thread takes no signal but the faults: SIGINT, SIGTERM and SIGCHLD stay
 * the main thread's. */
static int start_thread(struct cpuid_job *job, struct cpuid_info *info)
{
	sigset_t all, old;
	pthread_attr_t attr, *pa = NULL;
	int r;
	if (live.stuck) {
		snprintf(info->err, sizeof(info->err), "libcpuid is still busy with an earlier run");
		return -EBUSY;
	}
	memset(&live.info, 0, sizeof(live.info));
	live.sig = 0;
	live.nocpuid = 0;
	fence_install();
	sigfillset(&all);
	for (r = 0; r < (int)ARRAY_SIZE(fence_sigs); r++)
		sigdelset(&all, fence_sigs[r]);
	pthread_sigmask(SIG_SETMASK, &all, &old);
#ifdef M_ARENA_MAX
	mallopt(M_ARENA_MAX, 1);
#endif
	if (pthread_attr_init(&attr) == 0) {
		pa = &attr;
		if (!cpuid_stack(&attr)) {   /* the default stack, then */
			pthread_attr_destroy(&attr);
			pa = NULL;
		}
	}
	r = pthread_create(&live.thread, pa, cpuid_thread, NULL);
	if (pa)
		pthread_attr_destroy(pa);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		fence_remove();
		snprintf(info->err, sizeof(info->err), "cannot run libcpuid: %s", strerror(r));
		return -r;
	}
	clock_gettime(CLOCK_REALTIME, &live.deadline);
	live.deadline.tv_sec += CPUID_TIMEOUT_S;
	job->pid = -1;
	return 0;
}

/* The thread's answer: 0, or -errno with info->err set.  A thread past its
 * time is left running (its process ends soon after) with its fence up. */
static int wait_thread(struct cpuid_job *job, struct cpuid_info *info, const char *what)
{
	int r = pthread_timedjoin_np(live.thread, NULL, &live.deadline);
	job->pid = 0;
	memset(info, 0, sizeof(*info));
	if (r) {
		live.stuck = 1;
		snprintf(info->err, sizeof(info->err), "libcpuid gave no answer within %d s on %s",
			 CPUID_TIMEOUT_S, what);
		return -ETIMEDOUT;
	}
	fence_remove();
	if (live.sig) {
		snprintf(info->err, sizeof(info->err), "libcpuid crashed (signal %d) on %s", live.sig, what);
		return -EIO;
	}
	if (live.nocpuid)
		return -ENOTSUP;
	*info = live.info;
	info->err[sizeof(info->err) - 1] = '\0';
	return info->ok ? 0 : -EINVAL;
}

/*** A dump: a child process ***/

int cpuid_start(const char *dump, struct cpuid_job *job, struct cpuid_info *info)
{
	int fd[2];
	pid_t pid;
	job->pid = 0;
	job->fd = -1;
	memset(info, 0, sizeof(*info));
	if (!dump && (!host_is_x86() || !HAVE_LIBCPUID_BUILT)) {
		snprintf(info->err, sizeof(info->err), "%s", host_is_x86() ? "nodeaudit was built without libcpuid"
			 : "no CPUID instruction on this host");
		return -ENOTSUP;
	}
	if (!dump)
		return start_thread(job, info);
	if (pipe2(fd, O_CLOEXEC) < 0) {
		snprintf(info->err, sizeof(info->err), "cannot run libcpuid: %s", strerror(errno));
		return -errno;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		snprintf(info->err, sizeof(info->err), "cannot run libcpuid: %s", strerror(errno));
		return -EAGAIN;
	}
	if (pid == 0) {
		struct cpuid_info ci;
		ssize_t w = 0;
		close(fd[0]);
		alarm(CPUID_TIMEOUT_S);
		memset(&ci, 0, sizeof(ci));
		collect(dump, &ci);
		while (w < (ssize_t)sizeof(ci)) {
			ssize_t k = write(fd[1], (char *)&ci + w, sizeof(ci) - w);
			if (k <= 0)
				_exit(1);
			w += k;
		}
		_exit(0);
	}
	close(fd[1]);
	job->pid = pid;
	job->fd = fd[0];
	return 0;
}

int cpuid_wait(struct cpuid_job *job, struct cpuid_info *info, const char *what)
{
	ssize_t got = 0, r;
	int st = 0;
	if (job->pid == -1)
		return wait_thread(job, info, what);
	memset(info, 0, sizeof(*info));
	while (got < (ssize_t)sizeof(*info)) {
		r = read(job->fd, (char *)info + got, sizeof(*info) - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	close(job->fd);
	while (waitpid(job->pid, &st, 0) < 0 && errno == EINTR)
		;
	job->pid = 0;
	job->fd = -1;
	if (got != (ssize_t)sizeof(*info) || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		memset(info, 0, sizeof(*info));
		if (WIFSIGNALED(st))
			snprintf(info->err, sizeof(info->err), "libcpuid crashed (signal %d) on %s",
				 WTERMSIG(st), what);
		else
			snprintf(info->err, sizeof(info->err), "libcpuid gave no answer");
		return -EIO;
	}
	info->err[sizeof(info->err) - 1] = '\0';
	return info->ok ? 0 : -EINVAL;
}

void cpuid_cancel(struct cpuid_job *job)
{
	if (job->pid == -1) {
		/* Nobody wants its answer: joined if it is done, else left
		 * to end with the process (never started again). */
		if (pthread_tryjoin_np(live.thread, NULL) == 0)
			fence_remove();
		else {
			pthread_detach(live.thread);
			live.stuck = 1;
		}
		job->pid = 0;
		return;
	}
	if (job->pid <= 0)
		return;
	kill(job->pid, SIGKILL);
	close(job->fd);
	while (waitpid(job->pid, NULL, 0) < 0 && errno == EINTR)
		;
	job->pid = 0;
	job->fd = -1;
}

int cpuid_collect(const char *dump, struct cpuid_info *info)
{
	struct cpuid_job job;
	int r = cpuid_start(dump, &job, info);
	return r < 0 ? r : cpuid_wait(&job, info, dump ? "the dump" : "this CPU");
}

#ifdef HAVE_LIBCPUID
int cpu_snapshot_cpuid(const char *path)
{
	struct cpu_raw_data_array_t raw;
	int r;
	char err[300];
	if (!host_is_x86())
		return -ENOTSUP;
	if (cpuid_load(err, sizeof(err)) < 0)
		return error("cannot read CPUID: %s", err);
	if (!L.present())
		return -ENOTSUP;
	memset(&raw, 0, sizeof(raw));
	L.set_warn_function(quiet);
	if (L.get_all_raw_data(&raw))
		return error("cannot read CPUID: %s", L.error());
	r = L.serialize_all_raw_data(&raw, path);
	L.free_raw_data_array(&raw);
	if (r)
		return error("cannot write '%s': %s", path, L.error());
	return 0;
}
#else
int cpu_snapshot_cpuid(const char *path)
{
	(void)path;
	return -ENOTSUP;   /* nothing to decode it with: no dump kept */
}
#endif
