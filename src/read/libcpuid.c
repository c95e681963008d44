/* read/libcpuid.c - libcpuid as a second source: live on x86, or from a raw dump
 *
 * libcpuid 0.6.2 (Debian 12) is x86-only and dies (SIGFPE) on ARM dumps and
 * on some odd inputs: a crash there must be a gap, not our crash.  So it
 * runs in a child process, live and for a dump (a file anyone may hand
 * us) alike, which hands its answer back through a pipe; a fault or a hang
 * (past CPUID_TIMEOUT_S) ends the child alone.  Non-x86 dumps are
 * recognised here and refused.  Built without libcpuid (an architecture
 * whose archive lacks it: configure.ac), the same calls answer with why,
 * and a snapshot holds no CPUID dump. */
#include "config.h"
#include "read/libcpuid.h"
#include "lib/util.h"
#include "read/lazylib.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef HAVE_LIBCPUID
#include <libcpuid/libcpuid.h>
#endif

/* How long libcpuid may take (CPUID on every CPU; on a VM each instruction
 * traps to the hypervisor) before it is given up. */
#define CPUID_TIMEOUT_S 20
/* The child's exit status where the CPU has no CPUID instruction. */
#define CPUID_EXIT_NONE 3

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
 * libcpuid is loaded by name (read/lazylib.h), by the child that runs it:
 * it is optional (x86 only, and not every distribution packages it), so a
 * host without it still runs every command, and the note below names it
 * for packaging tools.
 */
LAZYLIB_NOTE(cpuid, "x86 CPUID cross-check of the CPU facts, and the codename", "recommended",
	     CPUID_SONAME);
LAZYLIB_SYM(cpuid_present);
LAZYLIB_SYM(cpuid_set_warn_function);
LAZYLIB_SYM(cpuid_get_all_raw_data);
LAZYLIB_SYM(cpuid_deserialize_all_raw_data);
LAZYLIB_SYM(cpuid_serialize_all_raw_data);
LAZYLIB_SYM(cpu_identify_all);
LAZYLIB_SYM(cpuid_free_raw_data_array);
LAZYLIB_SYM(cpuid_free_system_id);
LAZYLIB_SYM(cpuid_error);
static struct lazylib libcpuid = { CPUID_SONAME, 0, "" };

/* 0, or -1 with why in err (n bytes). */
static int cpuid_load(char *err, size_t n)
{
	const struct lazy_sym syms[] = {
		LAZYLIB_ARG(cpuid_present),
		LAZYLIB_ARG(cpuid_set_warn_function),
		LAZYLIB_ARG(cpuid_get_all_raw_data),
		LAZYLIB_ARG(cpuid_deserialize_all_raw_data),
		LAZYLIB_ARG(cpuid_serialize_all_raw_data),
		LAZYLIB_ARG(cpu_identify_all),
		LAZYLIB_ARG(cpuid_free_raw_data_array),
		LAZYLIB_ARG(cpuid_free_system_id),
		LAZYLIB_ARG(cpuid_error),
	};
	if (lazylib_load(&libcpuid, syms, ARRAY_SIZE(syms)) == 0)
		return 0;
	/* The loader's message (up to 255 bytes) cut to what err holds. */
	snprintf(err, n, "cannot load libcpuid: %.*s", (int)(n > 24 ? n - 24 : 0), libcpuid.err);
	return -1;
}

/* In the child: fill info from the dump (or live) and return
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
	if (!dump && !sym_cpuid_present()) {
		snprintf(info->err, sizeof(info->err), "no CPUID instruction on this host");
		return 1;
	}
	sym_cpuid_set_warn_function(quiet);
	if (dump ? sym_cpuid_deserialize_all_raw_data(&raw, dump) : sym_cpuid_get_all_raw_data(&raw)) {
		snprintf(info->err, sizeof(info->err), "libcpuid cannot read %s: %s",
			 dump ? "the dump" : "CPUID", sym_cpuid_error());
		return 0;
	}
	if (sym_cpu_identify_all(&raw, &sys)) {
		snprintf(info->err, sizeof(info->err), "libcpuid cannot identify the CPU: %s", sym_cpuid_error());
		sym_cpuid_free_raw_data_array(&raw);
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
	sym_cpuid_free_system_id(&sys);
	sym_cpuid_free_raw_data_array(&raw);
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

/*** A child process, for a dump and live ***/

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
		const char *fault = getenv("NODEAUDIT_FAULT");
		ssize_t w = 0;
		close(fd[0]);
		/* A fault ends the child, as it would any program: no handler of
		 * ours or of a sanitizer's runtime reports it here; the parent
		 * makes it a gap. */
		signal(SIGFPE, SIG_DFL);
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGILL, SIG_DFL);
		alarm(CPUID_TIMEOUT_S);
		memset(&ci, 0, sizeof(ci));
		/* NODEAUDIT_FAULT=libcpuid-crash (test suite): libcpuid's SIGFPE, live. */
		if (!dump && fault && !strcmp(fault, "libcpuid-crash"))
			raise(SIGFPE);
		if (collect(dump, &ci) == 1)
			_exit(CPUID_EXIT_NONE);
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
	if (WIFEXITED(st) && WEXITSTATUS(st) == CPUID_EXIT_NONE) {
		memset(info, 0, sizeof(*info));
		snprintf(info->err, sizeof(info->err), "no CPUID instruction on this host");
		return -ENOTSUP;
	}
	if (got != (ssize_t)sizeof(*info) || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		memset(info, 0, sizeof(*info));
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
			snprintf(info->err, sizeof(info->err), "libcpuid gave no answer within %d s on %s",
				 CPUID_TIMEOUT_S, what);
		else if (WIFSIGNALED(st))
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
	if (!sym_cpuid_present())
		return -ENOTSUP;
	memset(&raw, 0, sizeof(raw));
	sym_cpuid_set_warn_function(quiet);
	if (sym_cpuid_get_all_raw_data(&raw))
		return error("cannot read CPUID: %s", sym_cpuid_error());
	r = sym_cpuid_serialize_all_raw_data(&raw, path);
	sym_cpuid_free_raw_data_array(&raw);
	if (r)
		return error("cannot write '%s': %s", path, sym_cpuid_error());
	return 0;
}
#else
int cpu_snapshot_cpuid(const char *path)
{
	(void)path;
	return -ENOTSUP;   /* nothing to decode it with: no dump kept */
}
#endif
