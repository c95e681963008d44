/* read/libcpuid.c - libcpuid as a second source: live on x86, or from a raw dump
 *
 * libcpuid 0.6.2 (Debian 12) is x86-only and dies (SIGFPE) on ARM dumps and
 * on some odd inputs, so it always runs in a child process: a crash there is
 * a gap, not our crash.  Non-x86 dumps are recognised here and refused. */
#include "config.h"
#include "read/libcpuid.h"
#include "probe/probe.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <libcpuid/libcpuid.h>

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

static int host_is_x86(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return 1;
#else
	return 0;
#endif
}

static void quiet(const char *msg)
{
	(void)msg;
}

/* In the child: fill info from the dump (or live) and return 0. */
static int collect(const char *dump, struct cpuid_info *info)
{
	struct cpu_raw_data_array_t raw;
	struct system_id_t sys;
	int i;
	memset(&raw, 0, sizeof(raw));
	memset(&sys, 0, sizeof(sys));
	cpuid_set_warn_function(quiet);
	if (dump ? cpuid_deserialize_all_raw_data(&raw, dump) : cpuid_get_all_raw_data(&raw)) {
		snprintf(info->err, sizeof(info->err), "libcpuid cannot read %s: %s",
			 dump ? "the dump" : "CPUID", cpuid_error());
		return 0;
	}
	if (cpu_identify_all(&raw, &sys)) {
		snprintf(info->err, sizeof(info->err), "libcpuid cannot identify the CPU: %s", cpuid_error());
		cpuid_free_raw_data_array(&raw);
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
	cpuid_free_system_id(&sys);
	cpuid_free_raw_data_array(&raw);
	return 0;
}

int cpuid_start(const char *dump, struct cpuid_job *job, struct cpuid_info *info)
{
	int fd[2];
	pid_t pid;
	job->pid = 0;
	job->fd = -1;
	memset(info, 0, sizeof(*info));
	if (!dump && (!host_is_x86() || !cpuid_present())) {
		snprintf(info->err, sizeof(info->err), "no CPUID instruction on this host");
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
		ssize_t w = 0;
		close(fd[0]);
		alarm(20);
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

int cpu_snapshot_cpuid(const char *path)
{
	struct cpu_raw_data_array_t raw;
	int r;
	if (!host_is_x86() || !cpuid_present())
		return -ENOTSUP;
	memset(&raw, 0, sizeof(raw));
	cpuid_set_warn_function(quiet);
	if (cpuid_get_all_raw_data(&raw))
		return error("cannot read CPUID: %s", cpuid_error());
	r = cpuid_serialize_all_raw_data(&raw, path);
	cpuid_free_raw_data_array(&raw);
	if (r)
		return error("cannot write '%s': %s", path, cpuid_error());
	return 0;
}
