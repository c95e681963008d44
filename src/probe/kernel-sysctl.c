/* probe/kernel-sysctl.c - the sysctls (kernel.sysctl) and NUMA balancing */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "probe/kernel.h"
#include "read/path.h"
#include "lib/output.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The one list of sysctls read on every run; the check engine adds the keys
 * its profiles mention with kernel_probe_sysctl(). */
const char *const kernel_sysctls[] = {
	"vm.swappiness",
	"vm.overcommit_memory",
	"vm.max_map_count",
	"vm.zone_reclaim_mode",
	"vm.nr_hugepages",
	"kernel.numa_balancing",
	"net.core.somaxconn",
	"net.core.rmem_max",
	"net.core.wmem_max",
	"net.core.netdev_max_backlog",
	"net.ipv4.tcp_fin_timeout",
	"net.ipv4.tcp_tw_reuse",
	"net.ipv4.ip_local_port_range",
	"net.ipv4.tcp_max_syn_backlog",
	"fs.file-max",
	"fs.nr_open",
	NULL
};

#define SYSCTL_MAX_VALUE 4096

/* "net.ipv4.conf.eth0/1.rp_filter" -> "/proc/sys/net/ipv4/conf/eth0.1/rp_filter";
 * NULL for a name that is not one (it could leave /proc/sys). */
static char *sysctl_path(const char *name)
{
	size_t n = strlen(name), i;
	char *p, *comp, *save = NULL, *copy;
	int ok = n > 0 && n < 256;
	for (i = 0; ok && i < n; i++)
		ok = isalnum((unsigned char)name[i]) || strchr("._-/:+@", name[i]);
	if (!ok)
		return NULL;
	p = xasprintf("/proc/sys/%s", name);
	for (i = 10; p[i]; i++)
		p[i] = p[i] == '.' ? '/' : p[i] == '/' ? '.' : p[i];
	copy = xstrdup(p + 10);
	if (copy[0] == '/' || p[strlen(p) - 1] == '/')
		ok = 0;
	for (comp = strtok_r(copy, "/", &save); ok && comp; comp = strtok_r(NULL, "/", &save))
		if (!strcmp(comp, ".") || !strcmp(comp, ".."))
			ok = 0;
	if (strstr(p + 10, "//"))
		ok = 0;
	free(copy);
	if (!ok) {
		free(p);
		return NULL;
	}
	return p;
}

/*** Whose network namespace ***/

/* The net.* sysctls belong to the reader's network namespace: a process in a
 * container or a private namespace (unshare -n, systemd's PrivateNetwork=)
 * reads its own, not the host's.  The host's is pid 1's.  Live, compare the
 * links /proc/self/ns/net and /proc/1/ns/net; in a sysroot, the same links
 * in it: a host /proc bound there (the DaemonSet's /host/proc) answers for
 * the process reading it, a capture by the links `nodeaudit snapshot`
 * recorded.  NULL when the namespace is the host's, else why the net.*
 * values are not known to be the host's (malloc'd); own and host get the
 * links read (malloc'd, NULL when unreadable); record: for snapshot. */
static char *netns_not_host(struct probe_ctx *ctx, char **own, char **host, int record)
{
	static const char self_ns[] = "/proc/self/ns/net", init_ns[] = "/proc/1/ns/net";
	int (*rl)(struct sysroot *, const char *, char **) = record ? sr_readlink_recorded : sr_readlink;
	int rs = rl(&ctx->sr, self_ns, own);
	int ri = rl(&ctx->sr, init_ns, host);
	if (rs < 0)
		*own = NULL;
	if (ri < 0)
		*host = NULL;
	/* Recent kernels give the initial network namespace a fixed inode
	 * (NET_NS_INIT_INO, 0xEFFFFFF9, in <linux/nsfs.h>), below the range
	 * they hand out to namespaces made later (proc_alloc_inum(): from
	 * 0xF0000000 up), so that link alone names the host's namespace, with
	 * no need to read pid 1's (which takes CAP_SYS_PTRACE).  Any other
	 * inode still needs pid 1's link to compare with. */
	if (rs == 0 && !strcmp(*own, "net:[4026531833]"))   /* 0xEFFFFFF9 */
		return NULL;
	if (rs == 0 && ri == 0)
		return strcmp(*own, *host)
			       ? xasprintf("this process's network namespace (%s) is not the host's (pid 1's, %s)",
					   *own, *host)
			       : NULL;
	if (!ctx->sr.live && (rs == -ENOENT || ri == -ENOENT))
		return xasprintf("cannot tell whose network namespace the capture's net.* files are: it "
				 "holds no %s link (nodeaudit snapshot records %s and %s)",
				 rs < 0 ? self_ns : init_ns, self_ns, init_ns);
	if (rs < 0)
		return xasprintf("cannot tell whose network namespace this is: %s: %s", self_ns, sr_reason(rs));
	return xasprintf("cannot tell whether this network namespace is the host's: %s: %s", init_ns,
			 ri == -EACCES || ri == -EPERM
				 ? "permission denied (reading pid 1's namespace link takes root with CAP_SYS_PTRACE)"
				 : sr_reason(ri));
}

/* kernel.netns {own, host, is_host}; the reason net.* is unknown, or NULL. */
static char *probe_netns(struct probe_ctx *ctx)
{
	cJSON *k = facts_obj(&ctx->facts, "kernel");
	int first = !cJSON_GetObjectItemCaseSensitive(k, "netns");
	char *own, *host, *why = netns_not_host(ctx, &own, &host, first);
	if (first) {
		struct path_cxt pc;
		pc_init(&pc, &ctx->sr, &ctx->facts);
		pc_setobj(&pc, facts_obj(&ctx->facts, "kernel.netns"), "kernel.netns");
		fj_str_or_null(pc.obj, "own", own);
		fj_str_or_null(pc.obj, "host", host);
		fj_bool_or_null(pc.obj, "is_host", !why ? 1 : own && host ? 0 : -1);
		if (why && !(own && host))
			pc_gap(&pc, "is_host", "%s", why);
		else {
			pc_evidence_of(&pc, "is_host", "/proc/self/ns/net");
			if (host)
				pc_evidence_of(&pc, "is_host", "/proc/1/ns/net");
		}
	}
	free(own);
	free(host);
	return why;
}

void kernel_probe_sysctl(struct probe_ctx *ctx, const char *name)
{
	cJSON *sys = facts_obj(&ctx->facts, "kernel.sysctl");
	struct path_cxt pc;
	char *path, *buf = NULL;
	size_t len = 0;
	int r;

	if (cJSON_GetObjectItemCaseSensitive(sys, name))
		return;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj_quoted(&pc, sys, "kernel.sysctl");
	path = sysctl_path(name);
	if (!path) {
		/* The name comes from a profile: its fact path may be long
		 * (pc_fact() keeps it whole; pc_release() frees it). */
		pc_gap(&pc, name, "'%s' is not a sysctl name", name);
		pc_release(&pc);
		return;
	}
	if (!strncmp(name, "net.", 4)) {
		char *why = probe_netns(ctx);
		if (why) {
			fj_str_or_null(sys, name, NULL);
			pc_gap(&pc, name, "%s: not read: net.* sysctls belong to a network namespace, and %s", path, why);
			free(why);
			free(path);
			pc_release(&pc);
			return;
		}
	}
	r = pc_read(&pc, &buf, &len, "%s", path);
	if (r == 0 && !text_is_kernel(buf, len))
		r = -EINVAL;
	if (r == 0) {
		strsquash(buf);
		if (strlen(buf) > SYSCTL_MAX_VALUE) {
			fj_str_or_null(sys, name, NULL);
			pc_gap(&pc, name, "%s: value longer than %d bytes", path, SYSCTL_MAX_VALUE);
		} else {
			fj_str_or_null(sys, name, buf);
			pc_evidence(&pc, name);
		}
	} else if (r == -ENOENT || r == -ENOTDIR) {
		/* Absent: the kernel has no such key (or the capture lacks it). */
		pc_gap(&pc, name, "%s: missing (%s)", path,
		       ctx->sr.live ? "this kernel has no such sysctl"
				    : "not in this kernel or not in the capture");
	} else {
		fj_str_or_null(sys, name, NULL);
		pc_gap_read(&pc, name, r);
	}
	free(buf);
	free(path);
	pc_release(&pc);
}

void probe_sysctls(struct probe_ctx *ctx)
{
	size_t i;
	facts_obj(&ctx->facts, "kernel.sysctl");
	free(probe_netns(ctx));
	for (i = 0; kernel_sysctls[i]; i++)
		kernel_probe_sysctl(ctx, kernel_sysctls[i]);
}

void probe_numa_balancing(struct probe_ctx *ctx)
{
	cJSON *k = facts_obj(&ctx->facts, "kernel");
	const char *v = fj_get_str(facts_obj(&ctx->facts, "kernel.sysctl"), "kernel.numa_balancing");
	struct path_cxt pc;
	uint64_t n;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, k, "kernel");
	pc_name(&pc, "/proc/sys/kernel/numa_balancing");
	if (!v) {
		fj_str_or_null(k, "numa_balancing", NULL);
		pc_gap(&pc, "numa_balancing",
		       "kernel.numa_balancing unknown (see kernel.sysctl.\"kernel.numa_balancing\"): "
		       "no automatic NUMA balancing in this kernel, or unreadable");
		return;
	}
	/* 0 off; 1 normal balancing, 2 memory tiering (bits): on. */
	if (parse_u64(v, &n) < 0 || n > 3) {
		fj_str_or_null(k, "numa_balancing", NULL);
		pc_gap(&pc, "numa_balancing", "%s: unparsable ('%s', expected 0 to 3)", pc.path, v);
		return;
	}
	fj_str_or_null(k, "numa_balancing", n ? "on" : "off");
	pc_evidence(&pc, "numa_balancing");
}
