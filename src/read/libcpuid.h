/* read/libcpuid.h - libcpuid as a second CPU source (live x86 or a raw dump) */
#ifndef NODEAUDIT_SRC_CPUID_H
#define NODEAUDIT_SRC_CPUID_H

#define CPUID_MAX_TYPES 4

struct cpuid_type {
	int purpose;          /* 0 general, 1 performance, 2 efficiency */
	int cores, threads;   /* of this type (one socket on multi-socket dumps) */
	int family, model, ext_family, ext_model;
	int intel, amd;
	int avx2, avx512f;
	char codename[64], brand[64], vendor[16];
};

struct cpuid_info {
	int ok;
	int ntypes;
	struct cpuid_type t[CPUID_MAX_TYPES];
	char err[160];        /* why not ok */
};

enum { CPUID_DUMP_UNKNOWN = -1, CPUID_DUMP_ARM = 0, CPUID_DUMP_X86 = 1 };
/* What a libcpuid raw dump describes (only x86 dumps may be handed to it). */
int cpuid_dump_kind(const char *buf);

/* Identify the CPU from dump (a file holding an x86 raw dump), or live when
 * dump is NULL (x86 hosts with CPUID only).  A dump is read in a child
 * process; live, libcpuid runs on a thread fenced against its faults.
 * Returns 0, or a negative errno with info->err set. */
int cpuid_collect(const char *dump, struct cpuid_info *info);

/* The same in two steps, so that libcpuid's work (CPUID on every CPU: on a
 * VM each instruction traps to the hypervisor) overlaps the other probes:
 * cpuid_start() returns 0 with the child or thread running, or a negative
 * errno with info->err set (-ENOTSUP: no CPUID here); cpuid_wait() takes
 * its answer (what names the input in a crash message: "this CPU", "the
 * dump"); cpuid_cancel() stops a child nobody waited for (a thread not
 * done yet is left to end with the process).
 * pid: the child's; -1 the thread; 0 none. */
struct cpuid_job {
	int pid;
	int fd;
};
/* Write the raw libcpuid dump of this machine to path (snapshot's
 * /nodeaudit/cpuid.raw).  Returns 0, -ENOTSUP when not x86 or no CPUID,
 * or -1 after printing one line. */
int cpu_snapshot_cpuid(const char *path);

int cpuid_start(const char *dump, struct cpuid_job *job, struct cpuid_info *info);
int cpuid_wait(struct cpuid_job *job, struct cpuid_info *info, const char *what);
void cpuid_cancel(struct cpuid_job *job);

#endif
