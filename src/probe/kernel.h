/* probe/kernel.h - what the parts of the kernel probe share (probe/kernel.c,
 * kernel-sysctl.c, kernel-memory.c, kernel-cpufreq.c); their files are
 * read through read/path.h (pc_read_text() and its facts: text as the
 * kernel prints it) */
#ifndef NODEAUDIT_PROBE_KERNEL_H
#define NODEAUDIT_PROBE_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

struct probe_ctx;

/* probe/kernel-sysctl.c: kernel.sysctl (kernel_sysctls[], probe/probe.h)
 * and kernel.numa_balancing, read from it. */
void probe_sysctls(struct probe_ctx *ctx);
void probe_numa_balancing(struct probe_ctx *ctx);

/* probe/kernel-memory.c: kernel.thp, kernel.hugepages, kernel.swap,
 * kernel.zswap; meminfo: /proc/meminfo's text or NULL when unreadable. */
void probe_thp(struct probe_ctx *ctx);
void probe_hugepages(struct probe_ctx *ctx, const char *meminfo);
void probe_swap(struct probe_ctx *ctx, const char *meminfo);
void probe_zswap(struct probe_ctx *ctx);

/* probe/kernel-cpufreq.c: kernel.cpufreq (and kernel.governor),
 * kernel.cpuidle. */
void probe_cpufreq(struct probe_ctx *ctx);
void probe_cpuidle(struct probe_ctx *ctx);

#endif
