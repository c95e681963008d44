/* test-pci-paths.c - sysfs-first PCI facts equal the facts from every
 * function's whole config space: on a sysroot with config files built here
 * (a switch with one downstream port, link figures only in config space, a
 * conventional function, a header-only function), on every PCI fixture, on
 * the real captures in ../shared (when present) and on this machine. */
#include "config.h"
#include "probe/probe.h"
#include "read/libpci.h"
#include "probe/pci.h"
#include "lib/util.h"
#include "tap.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*** The facts of one probe, both ways ***/

/* pci, gaps, conflicts and evidence of `probe --only pci` on root, as text;
 * NULL when the probe could not run. */
static char *pci_facts(const char *root, int config_all)
{
	struct probe_opts opts;
	struct probe_ctx ctx;
	cJSON *o;
	char *text;
	memset(&opts, 0, sizeof(opts));
	opts.sysroot = root;
	pci_probe_config_all = config_all;
	if (probe_run(&ctx, &opts, "pci") < 0) {
		pci_probe_config_all = 0;
		return NULL;
	}
	pci_probe_config_all = 0;
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "pci", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(ctx.facts.root, "pci"), 1));
	cJSON_AddItemToObject(o, "gaps", cJSON_Duplicate(ctx.facts.gaps, 1));
	cJSON_AddItemToObject(o, "conflicts", cJSON_Duplicate(ctx.facts.conflicts, 1));
	cJSON_AddItemToObject(o, "evidence", cJSON_Duplicate(ctx.facts.evidence, 1));
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	probe_release(&ctx);
	return text;
}

/* The first byte where a and b differ, with some context, on stderr. */
static void show_diff(const char *a, const char *b)
{
	size_t i = 0;
	while (a[i] && a[i] == b[i])
		i++;
	i = i > 80 ? i - 80 : 0;
	fprintf(stderr, "#   whole config: ...%.240s\n#   sysfs first:  ...%.240s\n", a + i, b + i);
}

static void same_both_ways(const char *root, const char *label)
{
	char *a = pci_facts(root, 1), *b = pci_facts(root, 0);
	ok(a && b && !strcmp(a, b), "%s: sysfs-first facts equal whole-config facts", label);
	if (a && b && strcmp(a, b))
		show_diff(a, b);
	free(a);
	free(b);
}

/*** A sysroot with config files ***/

static void put(const char *root, const char *path, const void *data, size_t n)
{
	char *p = xasprintf("%s%s", root, path), *dir = path_dirname(p), *cmd;
	FILE *f;
	cmd = xasprintf("mkdir -p '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# cannot create %s\n", dir);
	free(cmd);
	f = fopen(p, "wb");
	if (f) {
		fwrite(data, 1, n, f);
		fclose(f);
	}
	free(dir);
	free(p);
}

static void put_str(const char *root, const char *path, const char *s)
{
	put(root, path, s, strlen(s));
}

/* A type-0 or type-1 header with a vendor capability at 0x40 and, when
 * port_type >= 0, a PCIe capability (version 2) at 0x60 after it. */
static void config(uint8_t *c, unsigned vendor, unsigned device, unsigned cls, int bridge, unsigned sec,
		   int port_type, unsigned lnkcap, unsigned lnksta, unsigned lnkcap2)
{
	memset(c, 0, 256);
	c[0] = vendor & 0xff; c[1] = vendor >> 8;
	c[2] = device & 0xff; c[3] = device >> 8;
	c[9] = cls & 0xff; c[10] = cls >> 8 & 0xff; c[11] = cls >> 16;
	c[0x0e] = bridge ? 1 : 0;
	if (bridge) {
		c[0x19] = (uint8_t)sec;
		c[0x1a] = (uint8_t)sec;
	}
	if (port_type < 0)
		return;   /* no capability list */
	c[0x06] = 0x10;
	c[0x34] = 0x40;
	c[0x40] = 0x09; c[0x41] = 0x60;                      /* vendor specific, next 0x60 */
	c[0x60] = 0x10; c[0x61] = 0x00;                      /* PCI Express */
	c[0x62] = (uint8_t)(2 | port_type << 4);
	c[0x6c] = lnkcap & 0xff; c[0x6d] = lnkcap >> 8 & 0xff;
	c[0x72] = lnksta & 0xff; c[0x73] = lnksta >> 8 & 0xff;
	c[0x8c] = lnkcap2 & 0xff;
}

static void device(const char *root, const char *dir, const char *bdf, const uint8_t *cfg, size_t cfglen,
		   const char *ids, const char *links)
{
	char *p, *target, *cmd, vendor[8], dev[8], cls[10];
	const char *rel = dir + strlen("/sys/devices/");
	if (cfg) {
		p = xasprintf("%s/config", dir);
		put(root, p, cfg, cfglen);
		free(p);
	}
	if (ids) {
		sscanf(ids, "%7s %7s %9s", vendor, dev, cls);
		p = xasprintf("%s/vendor", dir); put_str(root, p, vendor); free(p);
		p = xasprintf("%s/device", dir); put_str(root, p, dev); free(p);
		p = xasprintf("%s/class", dir); put_str(root, p, cls); free(p);
	}
	if (links) {
		char w[8], s[16], cw[8], cs[16];
		int n = sscanf(links, "%7s %15s %7s %15s", w, s, cw, cs);
		p = xasprintf("%s/max_link_width", dir); put_str(root, p, w); free(p);
		p = xasprintf("%s/max_link_speed", dir);
		put_str(root, p, strcmp(s, "8") ? "16.0 GT/s PCIe\n" : "8.0 GT/s PCIe\n");
		free(p);
		if (n == 4) {
			p = xasprintf("%s/current_link_width", dir); put_str(root, p, cw); free(p);
			p = xasprintf("%s/current_link_speed", dir);
			put_str(root, p, strcmp(cs, "8") ? "16.0 GT/s PCIe\n" : "8.0 GT/s PCIe\n");
			free(p);
		}
	}
	p = xasprintf("%s/numa_node", dir); put_str(root, p, "0\n"); free(p);
	p = xasprintf("%s/local_cpulist", dir); put_str(root, p, "0-3\n"); free(p);
	target = xasprintf("../../../devices/%s", rel);
	cmd = xasprintf("mkdir -p '%s/sys/bus/pci/devices' && ln -s '%s' '%s/sys/bus/pci/devices/%s'", root, target,
			root, bdf);
	if (system(cmd) != 0)
		fprintf(stderr, "# cannot link %s\n", bdf);
	free(cmd);
	free(target);
}

static const char *fact_str(const cJSON *root, const char *path)
{
	const cJSON *v = facts_get(root, path);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int fact_num(const cJSON *root, const char *path)
{
	const cJSON *v = facts_get(root, path);
	return cJSON_IsNumber(v) ? v->valueint : -1;
}

static void test_built(void)
{
	char root[] = "/tmp/test-pci-paths.XXXXXX", *cmd;
	uint8_t c[256];
	struct probe_opts opts;
	struct probe_ctx ctx;
	const char *rp = "/sys/devices/pci0000:00/0000:00:01.0";
	const char *up = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
	const char *dp = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0";
	const char *gpu = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:03:00.0";
	if (!mkdtemp(root)) {
		ok(0, "mkdtemp");
		return;
	}
	put_str(root, "/proc/cpuinfo", "processor\t: 0\n\n");
	put_str(root, "/sys/devices/system/cpu/cpu0/topology/physical_package_id", "0\n");
	/* Root port x16 16 GT/s; a switch whose upstream port has a single
	 * downstream port (only the port type tells them apart); a GPU
	 * whose current link is only in config space (x8, 8 GT/s). */
	config(c, 0x8086, 0x3c04, 0x060400, 1, 1, 4, 0x104, 0x1004, 0x1e);
	device(root, rp, "0000:00:01.0", c, 256, "0x8086 0x3c04 0x060400", "16 16 16 16");
	config(c, 0x10b5, 0x8747, 0x060400, 1, 2, 5, 0x103, 0x1003, 0x0e);
	device(root, up, "0000:01:00.0", c, 256, "0x10b5 0x8747 0x060400", "16 8 16 8");
	config(c, 0x10b5, 0x8747, 0x060400, 1, 3, 6, 0x103, 0x0083, 0x0e);
	device(root, dp, "0000:02:08.0", c, 256, "0x10b5 0x8747 0x060400", "16 8 8 8");
	config(c, 0x10de, 0x20b5, 0x030200, 0, 0, 0, 0x104, 0x0083, 0x1e);
	device(root, gpu, "0000:03:00.0", c, 256, "0x10de 0x20b5 0x030200", "16 16");
	/* An empty root port, an NVMe drive, a conventional NIC without a
	 * capability list, and a NIC whose ids are only in its 64-byte
	 * header (no sysfs ids, no link files). */
	config(c, 0x8086, 0x3c08, 0x060400, 1, 5, 4, 0x44, 0x1041, 0x02);
	device(root, "/sys/devices/pci0000:00/0000:00:02.0", "0000:00:02.0", c, 256, "0x8086 0x3c08 0x060400",
	       "4 8 0 8");
	config(c, 0x144d, 0xa80a, 0x010802, 0, 0, 0, 0x44, 0x1044, 0x1e);
	device(root, "/sys/devices/pci0000:00/0000:00:03.0", "0000:00:03.0", c, 256, "0x144d 0xa80a 0x010802",
	       "4 16 4 16");
	/* A second switch with one downstream port, an NVMe drive below:
	 * nothing there matters to the audit, the ports' facts still do. */
	config(c, 0x8086, 0x3c09, 0x060400, 1, 6, 4, 0x44, 0x1044, 0x1e);
	device(root, "/sys/devices/pci0000:00/0000:00:06.0", "0000:00:06.0", c, 256, "0x8086 0x3c09 0x060400",
	       "4 16 4 16");
	config(c, 0x10b5, 0x8714, 0x060400, 1, 7, 5, 0x44, 0x1044, 0x1e);
	device(root, "/sys/devices/pci0000:00/0000:00:06.0/0000:06:00.0", "0000:06:00.0", c, 256,
	       "0x10b5 0x8714 0x060400", "4 16 4 16");
	config(c, 0x10b5, 0x8714, 0x060400, 1, 8, 6, 0x84, 0x1084, 0x1e);
	device(root, "/sys/devices/pci0000:00/0000:00:06.0/0000:06:00.0/0000:07:00.0", "0000:07:00.0", c, 256,
	       "0x10b5 0x8714 0x060400", "8 16 4 16");
	config(c, 0x144d, 0xa80a, 0x010802, 0, 0, 0, 0x44, 0x1044, 0x1e);
	device(root, "/sys/devices/pci0000:00/0000:00:06.0/0000:06:00.0/0000:07:00.0/0000:08:00.0", "0000:08:00.0",
	       c, 256, "0x144d 0xa80a 0x010802", "4 16 4 16");
	config(c, 0x8086, 0x1521, 0x020000, 0, 0, -1, 0, 0, 0);
	device(root, "/sys/devices/pci0000:00/0000:00:04.0", "0000:00:04.0", c, 256, "0x8086 0x1521 0x020000",
	       NULL);
	config(c, 0x15b3, 0x1017, 0x020000, 0, 0, 0, 0x104, 0x1004, 0x1e);
	device(root, "/sys/devices/pci0000:00/0000:00:05.0", "0000:00:05.0", c, 64, NULL, NULL);

	same_both_ways(root, "built sysroot with config files");

	memset(&opts, 0, sizeof(opts));
	opts.sysroot = root;
	if (probe_run(&ctx, &opts, "pci") == 0) {
		const cJSON *r = ctx.facts.root;
		is_str(fact_str(r, "pci.accelerators[0].bdf"), "0000:03:00.0", "the GPU");
		is_int(fact_num(r, "pci.accelerators[0].link.width.current"), 8, "its current width from LnkSta");
		is_int(fact_num(r, "pci.accelerators[0].link.width.max"), 16, "its maximum width from sysfs");
		ok(cJSON_IsTrue(facts_get(r, "pci.accelerators[0].link.width_downtrained")), "x8 of x16: downtrained");
		is_str(fact_str(r, "pci.accelerators[0].shared_uplink.kind"), "switch",
		       "one downstream port: a switch by its port type");
		is_str(fact_str(r, "pci.accelerators[0].shared_uplink.bdf"), "0000:01:00.0", "the switch's upstream port");
		is_str(fact_str(r, "pci.nics[0].bdf"), "0000:00:04.0", "the conventional NIC");
		ok(cJSON_IsNull(facts_get(r, "pci.nics[0].link")), "no link");
		is_str(fact_str(r, "pci.nics[1].vendor_id"), "15b3", "the NIC named by its header only");
		ok(cJSON_IsNull(facts_get(r, "pci.nics[1].link")), "its link is unknown");
		{
			const cJSON *g;
			int conv = 0, only64 = 0;
			cJSON_ArrayForEach(g, ctx.facts.gaps) {
				const char *f = fact_str(g, "fact"), *why = fact_str(g, "reason");
				if (f && why && !strcmp(f, "pci.nics[0].link") && strstr(why, "conventional PCI"))
					conv = 1;
				if (f && why && !strcmp(f, "pci.nics[1].link") && strstr(why, "only 64 bytes"))
					only64 = 1;
			}
			ok(conv, "gap: a conventional PCI function");
			ok(only64, "gap: only 64 bytes of config space");
		}
		probe_release(&ctx);
	} else
		ok(0, "probe the built sysroot");
	cmd = xasprintf("rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "# cannot remove %s\n", root);
	free(cmd);
}

/*** Every fixture, real capture and this machine ***/

static int has_prefix_dir(const char *dir, const char *prefix, char ***out, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix))) {
			*out = xrealloc(*out, (*n + 1) * sizeof(**out));
			(*out)[(*n)++] = xasprintf("%s/%s", dir, de->d_name);
		}
	closedir(d);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_fixtures(const char *srcdir)
{
	char *dir = xasprintf("%s/tests/fixtures", srcdir), **v = NULL;
	size_t n = 0, i;
	has_prefix_dir(dir, "pci-", &v, &n);
	qsort(v, n, sizeof(*v), cmp_str);
	for (i = 0; i < n; i++) {
		char *sys = xasprintf("%s/sys", v[i]);
		struct stat st;
		if (stat(sys, &st) == 0)
			same_both_ways(v[i], strrchr(v[i], '/') + 1);
		free(sys);
		free(v[i]);
	}
	free(v);
	free(dir);
}

static void test_real(const char *srcdir)
{
	const char *env = getenv("NODEAUDIT_SHARED");
	char *shared = env && *env ? xstrdup(env) : xasprintf("%s/../shared", srcdir);
	char *dir = xasprintf("%s/fixtures/real/sysfs", shared), **v = NULL;
	size_t n = 0, i;
	if (has_prefix_dir(dir, "", &v, &n) < 0) {
		printf("ok %d - # SKIP %s absent\n", ++tap_n, dir);
		free(dir);
		free(shared);
		return;
	}
	qsort(v, n, sizeof(*v), cmp_str);
	for (i = 0; i < n; i++) {
		char **files = NULL;
		size_t nf = 0, k;
		has_prefix_dir(v[i], "", &files, &nf);
		for (k = 0; k < nf; k++) {
			if (strstr(files[k], ".tar"))
				same_both_ways(files[k], strrchr(files[k], '/') + 1);
			free(files[k]);
		}
		free(files);
		free(v[i]);
	}
	free(v);
	free(dir);
	free(shared);
}

int main(void)
{
	const char *srcdir = getenv("top_srcdir");
	struct stat st;
	srcdir = srcdir && *srcdir ? srcdir : ".";
	test_built();
	test_fixtures(srcdir);
	test_real(srcdir);
	if (stat("/sys/bus/pci/devices", &st) == 0)
		same_both_ways("/", "this machine");
	return done_testing();
}
