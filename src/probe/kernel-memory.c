/* probe/kernel-memory.c - the kernel's memory settings: THP, huge pages, swap, zswap */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "probe/kernel.h"
#include "read/path.h"
#include "lib/output.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "always [madvise] never" -> "madvise". */
static int thp_selected(const char *s, char **out)
{
	const char *a = strchr(s, '['), *b;
	if (!a || !(b = strchr(a, ']')) || b == a + 1 || strchr(b, '['))
		return -EINVAL;
	*out = xstrndup(a + 1, (size_t)(b - a - 1));
	if (strchr(*out, ' ')) {
		free(*out);
		return -EINVAL;
	}
	return 0;
}

void probe_thp(struct probe_ctx *ctx)
{
	static const char *const keys[] = { "enabled", "defrag" };
	struct path_cxt pc;
	size_t i;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setdir(&pc, "/sys/kernel/mm/transparent_hugepage");
	pc_setobj(&pc, facts_obj(&ctx->facts, "kernel.thp"), "kernel.thp");
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		char *s = NULL, *sel = NULL;
		int r = pc_read_text(&pc, &s, "%s", keys[i]);
		if (r == 0 && thp_selected(s, &sel) < 0)
			r = -EINVAL;
		fj_str_or_null(pc.obj, keys[i], r == 0 ? sel : NULL);
		if (r == -EINVAL)
			pc_gap(&pc, keys[i], "%s: unparsable (expected one [selected] value)", pc.path);
		else
			pc_record(&pc, keys[i], r);
		free(s);
		free(sel);
	}
}

/* "MemTotal:  123 kB" -> 123 (in kB).  0 or -ENOENT/-EINVAL. */
static int meminfo_kb(const char *mi, const char *key, uint64_t *kb)
{
	size_t n = strlen(key);
	const char *p = mi;
	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ':') {
			char line[128];
			size_t l = strcspn(p + n + 1, "\n");
			if (l >= sizeof(line))
				return -EINVAL;
			memcpy(line, p + n + 1, l);
			line[l] = '\0';
			strtrim(line);
			if (str_endswith(line, " kB"))
				line[strlen(line) - 3] = '\0';
			else
				return -EINVAL;
			return parse_u64(line, kb) == 0 && *kb <= UINT64_MAX / 1024 ? 0 : -EINVAL;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

/* "hugepages-2048kB" -> 2048 */
static int hp_dir_kb(const char *name, uint64_t *kb)
{
	char num[32];
	size_t n;
	if (!str_startswith(name, "hugepages-") || !str_endswith(name, "kB"))
		return -EINVAL;
	n = strlen(name) - 10 - 2;
	if (n == 0 || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, name + 10, n);
	num[n] = '\0';
	if (parse_u64(num, kb) < 0 || *kb == 0 || *kb > (UINT64_MAX >> 10))
		return -EINVAL;
	return 0;
}

/* The sizes under dir ([{size_bytes, total, free}]), the list of member key
 * in list's object; *total_bytes summed (-1 when a count is unknown).
 * Returns the array or NULL (gap made). */
static cJSON *hp_sizes(struct path_cxt *list, const char *key, const char *dir, double *total_bytes)
{
	char **names;
	size_t n, i;
	cJSON *arr;
	struct path_cxt pc;
	int r = pc_list(list, &names, &n, "%s", dir);
	pc_init(&pc, list->sr, list->facts);
	*total_bytes = 0;
	if (r < 0) {
		pc_gap_read(list, key, r);
		*total_bytes = -1;
		return NULL;
	}
	arr = cJSON_CreateArray();
	for (i = 0; i < n; i++) {
		uint64_t kb, nr;
		cJSON *e;
		if (hp_dir_kb(names[i], &kb) < 0)
			continue;
		e = cJSON_CreateObject();
		fj_num(e, "size_bytes", (double)kb * 1024);
		pc_setdir(&pc, "%s/%s", dir, names[i]);
		pc_setobj_in(&pc, e, "%s", pc_fact(list, key));
		if (pc_text_u64_fact(&pc, "total", 1, &nr, "nr_hugepages") == 0 && *total_bytes >= 0)
			*total_bytes += (double)nr * (double)kb * 1024;
		else
			*total_bytes = -1;
		pc_text_u64_fact(&pc, "free", 1, NULL, "free_hugepages");
		cJSON_AddItemToArray(arr, e);
	}
	sr_free_list(names, n);
	return arr;
}

void probe_hugepages(struct probe_ctx *ctx, const char *meminfo)
{
	cJSON *h = facts_obj(&ctx->facts, "kernel.hugepages"), *sizes, *nodes;
	struct path_cxt pc;
	char **names;
	size_t n, i;
	double total;
	uint64_t kb;

	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, h, "kernel.hugepages");
	if (!meminfo) {
		fj_num_or_null(h, "default_size_bytes", 0, 0);
		pc_gap(&pc, "default_size_bytes", "/proc/meminfo unreadable");
	} else if (meminfo_kb(meminfo, "Hugepagesize", &kb) == 0) {
		fj_num(h, "default_size_bytes", (double)kb * 1024);
		pc_evidence_of(&pc, "default_size_bytes", "/proc/meminfo");
	} else {
		fj_num_or_null(h, "default_size_bytes", 0, 0);
		pc_gap(&pc, "default_size_bytes",
		       "/proc/meminfo: no readable Hugepagesize line (kernel without hugetlbfs?)");
	}

	sizes = hp_sizes(&pc, "sizes", "/sys/kernel/mm/hugepages", &total);
	fj_set(h, "sizes", sizes ? sizes : cJSON_CreateNull());
	if (!sizes)
		pc_gap(&pc, "total_bytes", "no huge page sizes");
	fj_num_or_null(h, "total_bytes", total >= 0, total);
	if (total < 0 && sizes)
		pc_gap(&pc, "total_bytes", "a huge page count is unknown");

	/* Per NUMA node. */
	if (pc_list(&pc, &names, &n, "/sys/devices/system/node") < 0) {
		fj_set(h, "nodes", cJSON_CreateNull());
		pc_gap(&pc, "nodes", "%s: missing", pc.path);
		return;
	}
	nodes = cJSON_CreateArray();
	for (i = 0; i < n; i++) {
		uint64_t id;
		char *dir;
		cJSON *e, *s;
		double t;
		if (!str_startswith(names[i], "node") || parse_u64(names[i] + 4, &id) < 0)
			continue;
		dir = xasprintf("/sys/devices/system/node/%s/hugepages", names[i]);
		e = cJSON_CreateObject();
		fj_num(e, "node", (double)id);
		s = hp_sizes(&pc, "nodes", dir, &t);
		fj_set(e, "sizes", s ? s : cJSON_CreateNull());
		fj_num_or_null(e, "total_bytes", t >= 0, t);
		cJSON_AddItemToArray(nodes, e);
		free(dir);
	}
	sr_free_list(names, n);
	fj_set(h, "nodes", nodes);
}

/* /proc/swaps names escape ' ', '\t', '\n' and '\\' as octal. */
static void unescape_octal(char *s)
{
	char *w = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else
			*w++ = *s;
	}
	*w = '\0';
}

void probe_swap(struct probe_ctx *ctx, const char *meminfo)
{
	cJSON *s = facts_obj(&ctx->facts, "kernel.swap"), *devs;
	struct path_cxt pc;
	char *buf = NULL, *line, *save = NULL;
	size_t len;
	uint64_t kb;
	int r, lineno = 0;

	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, s, "kernel.swap");
	if (meminfo && meminfo_kb(meminfo, "SwapTotal", &kb) == 0) {
		fj_num(s, "total_bytes", (double)kb * 1024);
		pc_evidence_of(&pc, "total_bytes", "/proc/meminfo");
	} else {
		fj_num_or_null(s, "total_bytes", 0, 0);
		pc_gap(&pc, "total_bytes", "/proc/meminfo: no readable SwapTotal line");
	}

	r = pc_read(&pc, &buf, &len, "/proc/swaps");
	if (r == 0 && !text_is_kernel(buf, len))
		r = -EINVAL;
	if (r < 0) {
		fj_set(s, "devices", cJSON_CreateNull());
		pc_gap_read(&pc, "devices", r);
		free(buf);
		return;
	}
	devs = cJSON_CreateArray();
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[4096], type[64], size[32], used[32], prio[32];
		uint64_t sz, us;
		int64_t pr;
		cJSON *d;
		lineno++;
		if (lineno == 1 && str_startswith(line, "Filename"))
			continue;
		if (sscanf(line, "%4095s %63s %31s %31s %31s", name, type, size, used, prio) != 5 ||
		    parse_u64(size, &sz) < 0 || parse_u64(used, &us) < 0 || parse_s64(prio, &pr) < 0 ||
		    sz > UINT64_MAX / 1024 || us > UINT64_MAX / 1024) {
			pc_gap(&pc, "devices", "%s: line %d unparsable, left out", pc.path, lineno);
			continue;
		}
		unescape_octal(name);
		d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "name", name);
		cJSON_AddStringToObject(d, "type", type);
		fj_num(d, "size_bytes", (double)sz * 1024);
		fj_num(d, "used_bytes", (double)us * 1024);
		fj_num(d, "priority", (double)pr);
		cJSON_AddBoolToObject(d, "zram", str_startswith(name, "/dev/zram"));
		cJSON_AddItemToArray(devs, d);
	}
	free(buf);
	fj_set(s, "devices", devs);
	pc_evidence(&pc, "devices");
}

void probe_zswap(struct probe_ctx *ctx)
{
	cJSON *z = facts_obj(&ctx->facts, "kernel.zswap");
	struct path_cxt pc;
	char *s = NULL;
	int r;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setdir(&pc, "/sys/module/zswap/parameters");
	pc_setobj(&pc, z, "kernel.zswap");
	if (!pc_is_dir(&pc, "%s", pc.dir)) {
		fj_bool_or_null(z, "enabled", -1);
		fj_str_or_null(z, "compressor", NULL);
		fj_num_or_null(z, "max_pool_percent", 0, 0);
		facts_gap(&ctx->facts, pc.at, "%s: missing (%s)", pc.path,
			  ctx->sr.live ? "kernel without zswap" : "kernel without zswap, or not captured");
		return;
	}
	r = pc_read_text(&pc, &s, "enabled");
	if (r == 0 && strcmp(s, "Y") && strcmp(s, "N") && strcmp(s, "1") && strcmp(s, "0"))
		r = -EINVAL;
	fj_bool_or_null(z, "enabled", r == 0 ? (!strcmp(s, "Y") || !strcmp(s, "1")) : -1);
	pc_record(&pc, "enabled", r);
	free(s);
	pc_text_fact(&pc, "compressor", NULL, "compressor");
	pc_text_u64_fact(&pc, "max_pool_percent", 1, NULL, "max_pool_percent");
}
