/* probe/kernel.h - what the parts of the kernel probe share (probe/kernel.c,
 * kernel-read.c, kernel-sysctl.c, kernel-memory.c, kernel-cpufreq.c) */
#ifndef NODEAUDIT_PROBE_KERNEL_H
#define NODEAUDIT_PROBE_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

struct probe_ctx;

/* probe/kernel-read.c: text as the kernel prints it (printable ASCII and
 * white space only); a file's first line, white space squashed, refused
 * when any byte is not text (malloc'd); that line as a number; one string
 * or number fact from one file, or null with a gap (0 or the error);
 * "MemTotal:  123 kB" -> 123 (0 or -ENOENT/-EINVAL). */
int kernel_is_text(const char *s, size_t len);
int kernel_read_line(struct probe_ctx *ctx, const char *path, char **out);
int kernel_read_u64(struct probe_ctx *ctx, const char *path, uint64_t *v);
int kernel_str_fact(struct probe_ctx *ctx, cJSON *obj, const char *key, const char *fact,
		    const char *path, char **keep);
int kernel_u64_fact(struct probe_ctx *ctx, cJSON *obj, const char *key, const char *fact,
		    const char *path, double scale, uint64_t *keep);
int kernel_meminfo_kb(const char *mi, const char *key, uint64_t *kb);

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
