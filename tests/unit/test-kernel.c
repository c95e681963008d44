/* test-kernel.c - kernel_probe_sysctl(): extra keys, names, absent and unreadable keys */
#include "config.h"
#include "probe/probe.h"
#include "lib/util.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *sysctl_val(struct probe_ctx *ctx, const char *name, int *present)
{
	const cJSON *s = facts_get(ctx->facts.root, "kernel.sysctl");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(s, name);
	*present = v != NULL;
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *gap_for(struct probe_ctx *ctx, const char *fact)
{
	const cJSON *g;
	cJSON_ArrayForEach(g, ctx->facts.gaps) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(g, "fact");
		if (cJSON_IsString(f) && !strcmp(f->valuestring, fact))
			return cJSON_GetObjectItemCaseSensitive(g, "reason")->valuestring;
	}
	return NULL;
}

static void test_fixture(const char *srcdir)
{
	struct probe_opts opts;
	struct probe_ctx ctx;
	char *root = xasprintf("%s/tests/fixtures/kernel-tuned-server", srcdir);
	const char *g;
	int present, i, ngaps;
	memset(&opts, 0, sizeof(opts));
	opts.sysroot = root;
	ok(probe_run(&ctx, &opts, "kernel") == 0, "probe the tuned server");
	is_str(sysctl_val(&ctx, "vm.swappiness", &present), "10", "list key read");

	kernel_probe_sysctl(&ctx, "net.ipv4.conf.eth0/100.rp_filter");
	is_str(sysctl_val(&ctx, "net.ipv4.conf.eth0/100.rp_filter", &present), "2",
	       "'/' in a name is a '.' in a component, as for sysctl(8)");

	kernel_probe_sysctl(&ctx, "net.ipv4.tcp_congestion_control");
	sysctl_val(&ctx, "net.ipv4.tcp_congestion_control", &present);
	ok(!present, "absent key is absent");
	g = gap_for(&ctx, "kernel.sysctl.\"net.ipv4.tcp_congestion_control\"");
	ok(g && strstr(g, "/proc/sys/net/ipv4/tcp_congestion_control: missing"), "absent key has a gap: %s", g ? g : "none");

	ngaps = cJSON_GetArraySize(ctx.facts.gaps);
	for (i = 0; i < 2; i++) {
		kernel_probe_sysctl(&ctx, "vm.swappiness");
		kernel_probe_sysctl(&ctx, "net.ipv4.tcp_congestion_control");
	}
	is_int(cJSON_GetArraySize(ctx.facts.gaps), ngaps, "asking again adds nothing");
	is_str(sysctl_val(&ctx, "vm.swappiness", &present), "10", "value unchanged");

	{
		static const char *const bad[] = { "../../etc/shadow", "vm..swappiness", "x.//.y", ".vm",
						   "vm.", "", "vm swappiness", "vm.swap;piness" };
		size_t b;
		for (b = 0; b < ARRAY_SIZE(bad); b++) {
			char *fact = xasprintf("kernel.sysctl.\"%s\"", bad[b]);
			kernel_probe_sysctl(&ctx, bad[b]);
			g = gap_for(&ctx, fact);
			ok(g && strstr(g, "is not a sysctl name"), "refused name '%s'", bad[b]);
			sysctl_val(&ctx, bad[b], &present);
			ok(!present, "nothing stored for '%s'", bad[b]);
			free(fact);
		}
	}
	{
		/* A name a profile may hold that no sysctl has, longer than a
		 * fact path's buffer: its gap under its whole fact path, which
		 * is the one the check engine looks up. */
		char name[300], *fact;
		memset(name, 'a', sizeof(name) - 1);
		name[sizeof(name) - 1] = '\0';
		memcpy(name, "net.ipv4.conf.", 14);
		memcpy(name + sizeof(name) - 11, ".rp_filter", 10);
		fact = xasprintf("kernel.sysctl.\"%s\"", name);
		kernel_probe_sysctl(&ctx, name);
		g = gap_for(&ctx, fact);
		ok(g && strstr(g, "is not a sysctl name"), "a 299-byte name: refused under its whole fact path");
		free(fact);
	}
	probe_release(&ctx);
	free(root);
}

/* A key the user may not read: a gap saying so, the value null. */
static void test_unreadable(void)
{
	struct probe_opts opts;
	struct probe_ctx ctx;
	char dir[] = "/tmp/test-kernel.XXXXXX", *p;
	const char *g;
	int present;
	if (geteuid() == 0) {
		ok(1, "# SKIP root reads mode 000 files");
		return;
	}
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	{
		static const char *const sub[] = { "proc", "proc/sys", "proc/sys/vm" };
		size_t i;
		for (i = 0; i < ARRAY_SIZE(sub); i++) {
			p = xasprintf("%s/%s", dir, sub[i]);
			mkdir(p, 0700);
			free(p);
		}
	}
	p = xasprintf("%s/proc/sys/vm/swappiness", dir);
	{
		FILE *f = fopen(p, "w");
		fputs("10\n", f);
		fclose(f);
	}
	chmod(p, 0);
	memset(&opts, 0, sizeof(opts));
	opts.sysroot = dir;
	ok(probe_run(&ctx, &opts, "kernel") == 0, "probe a sysroot with an unreadable sysctl");
	ok(sysctl_val(&ctx, "vm.swappiness", &present) == NULL && present, "unreadable key is null");
	g = gap_for(&ctx, "kernel.sysctl.\"vm.swappiness\"");
	ok(g && strstr(g, "permission denied"), "gap says permission denied: %s", g ? g : "none");
	probe_release(&ctx);
	unlink(p);
	free(p);
	p = xasprintf("rm -rf '%s'", dir);
	if (system(p) != 0)
		fprintf(stderr, "# could not remove %s\n", dir);
	free(p);
}

/* A virtual machine (host.virtualized, set by the cpu probe) without
 * cpufreq: the gap names the hypervisor. */
static void test_vm(const char *srcdir)
{
	struct probe_opts opts;
	struct probe_ctx ctx;
	char *root = xasprintf("%s/tests/fixtures/kernel-vm-nocpufreq", srcdir);
	const char *g;
	memset(&opts, 0, sizeof(opts));
	opts.sysroot = root;
	ok(probe_run(&ctx, &opts, "host") == 0, "probe the VM's host facts");
	fj_bool_or_null(facts_obj(&ctx.facts, "host"), "virtualized", 1);
	is_int(probe_kernel(&ctx), 0, "probe_kernel runs");
	g = gap_for(&ctx, "kernel.governor");
	is_str(g, "no cpufreq policies in /sys/devices/system/cpu/cpufreq: the hypervisor controls the CPU frequency",
	       "governor gap names the hypervisor");
	ok(cJSON_IsNull(facts_get(ctx.facts.root, "kernel.governor")), "kernel.governor is null");
	probe_release(&ctx);
	free(root);
}

int main(void)
{
	const char *srcdir = getenv("top_srcdir");
	test_fixture(srcdir && *srcdir ? srcdir : ".");
	test_vm(srcdir && *srcdir ? srcdir : ".");
	test_unreadable();
	return done_testing();
}
