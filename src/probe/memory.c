/* probe/memory.c - the memory probe: its sources, MemTotal, huge pages per node, then the steps */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "read/path.h"
#include "probe/memory.h"
#include "probe/memory-internal.h"
#include "lib/output.h"
#include "read/smbios.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*
 * Sources, in order: --smbios FILE (read directly: it is a file named on the
 * command line, not part of the probed machine), the sysroot's
 * /sys/firmware/dmi/tables/{smbios_entry_point,DMI} (root only on a live
 * machine), /sys/firmware/dmi/entries/T-N/raw (one structure each), else a
 * gap.  /sys/class/dmi/id/ (world readable) still names the platform.
 * EDAC (/sys/devices/system/edac/mc) gives error counts and, without
 * SMBIOS, the ECC mode.
 *
 * Theoretical bandwidth: the sum over populated channels of the channel's
 * speed (its slowest DIMM's configured MT/s; the rated speed when the table
 * has no configured speed, and the JSON says so) times the bytes each
 * transfer moves: 8 (64 data bits).  A DDR5 DIMM is two 32-bit
 * sub-channels, but SMBIOS names the DIMM's channel, whose two
 * sub-channels together still move 8 bytes per transfer, so DDR5 counts
 * the same.  Only channels whose DIMMs report a narrower data width
 * (LPDDR parts soldered as 16- or 32-bit channels) count width/8 bytes.
 */

/* Packages of the machine whose memory is described: the table's own
 * populated processor sockets first (a --smbios dump describes its machine,
 * not the probed one), else the kernel's package masks read here (not
 * cpu.packages, so that --only memory gives the same facts). */
/* A "cpuN" directory's N: 1 and the number, else 0. */
static int cpu_dir_id(const char *name, unsigned *id)
{
	char c;
	return sscanf(name, "cpu%u%c", id, &c) == 1;
}

static int packages_known(struct probe_ctx *ctx, const struct smbios_info *s, const char **src)
{
	struct path_cxt pc;
	char **names = NULL;
	size_t i, nn = 0, ng = 0;
	int n = 0, ok = 1;
	hwloc_bitmap_t seen, set;
	for (i = 0; s && i < s->nprocs; i++)
		n += s->procs[i].populated;
	if (n > 0) {
		*src = "SMBIOS processor records";
		return n;
	}
	*src = NULL;
	if (s && ctx->opts && ctx->opts->smbios)
		return -1;     /* a dump: the probed host's CPUs are another machine's */
	pc_init(&pc, &ctx->sr, NULL);
	pc_setdir(&pc, "/sys/devices/system/cpu");
	if (pc_list(&pc, &names, &nn, "%s", pc.dir) < 0)
		return -1;
	seen = hwloc_bitmap_alloc();
	set = hwloc_bitmap_alloc();
	for (i = 0; i < nn && ok; i++) {
		static const char *const files[] = { "package_cpus_list", "core_siblings_list" };
		size_t k;
		int r = -ENOENT;
		unsigned id;
		if (!cpu_dir_id(names[i], &id))
			continue;
		for (k = 0; k < ARRAY_SIZE(files) && r == -ENOENT; k++)
			r = pc_read_cpulist(&pc, set, "%s/topology/%s", names[i], files[k]);
		if (r < 0 || !hwloc_bitmap_isset(set, id)) {
			ok = 0;
			break;
		}
		if (!hwloc_bitmap_intersects(seen, set))
			ng++;
		hwloc_bitmap_or(seen, seen, set);
	}
	hwloc_bitmap_free(seen);
	hwloc_bitmap_free(set);
	sr_free_list(names, nn);
	if (!ok || !ng)
		return -1;
	*src = "package masks";
	return (int)ng;
}

/* Huge pages per NUMA node (decode threads bind to a node's memory, so a
 * pool on the wrong node is no use): memory.hugepages_per_node[]
 * {node, pages: [{size_bytes, total, free}]}; null with a gap without
 * NUMA nodes in sysfs. */
static void hugepages_per_node(struct probe_ctx *ctx, cJSON *mem)
{
	struct path_cxt pc;
	char **nodes = NULL;
	size_t nn = 0, i, j;
	cJSON *arr;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, mem, "memory");
	if (pc_list(&pc, &nodes, &nn, "/sys/devices/system/node") < 0) {
		fj_set(mem, "hugepages_per_node", cJSON_CreateNull());
		pc_gap(&pc, "hugepages_per_node", "%s: missing", pc.path);
		return;
	}
	arr = cJSON_AddArrayToObject(mem, "hugepages_per_node");
	for (i = 0; i < nn; i++) {
		char **sz = NULL;
		size_t ns = 0;
		cJSON *e, *pages;
		if (strncmp(nodes[i], "node", 4) || !isdigit((unsigned char)nodes[i][4]))
			continue;
		e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "node", atoi(nodes[i] + 4));
		pages = cJSON_AddArrayToObject(e, "pages");
		pc_setdir(&pc, "/sys/devices/system/node/%s/hugepages", nodes[i]);
		if (pc_list(&pc, &sz, &ns, "%s", pc.dir) == 0) {
			for (j = 0; j < ns; j++) {
				unsigned long long kb;
				uint64_t tot, fr;
				int rt, rf;
				cJSON *x;
				if (sscanf(sz[j], "hugepages-%llukB", &kb) != 1)
					continue;
				rt = pc_read_u64(&pc, &tot, "%s/nr_hugepages", sz[j]);
				pc_record(&pc, "hugepages_per_node", rt);
				rf = pc_read_u64(&pc, &fr, "%s/free_hugepages", sz[j]);
				x = cJSON_CreateObject();
				add_u64(x, "size_bytes", 1, (uint64_t)kb << 10);
				fj_num_or_null(x, "total", rt == 0, (double)tot);
				fj_num_or_null(x, "free", rf == 0, (double)fr);
				cJSON_AddItemToArray(pages, x);
			}
			sr_free_list(sz, ns);
		}
		cJSON_AddItemToArray(arr, e);
	}
	sr_free_list(nodes, nn);
}

/*** The probe ***/

/* Captures without /proc/meminfo: the sum of the NUMA nodes' MemTotal
 * ("Node 0 MemTotal:  8388608 kB"), the same figure.  0 or -1. */
static int node_memtotal(struct probe_ctx *ctx, cJSON *mem, uint64_t *kb)
{
	struct path_cxt pc;
	char **names = NULL;
	size_t n = 0, i, got = 0;
	uint64_t sum = 0;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setdir(&pc, "/sys/devices/system/node");
	pc_setobj(&pc, mem, "memory");
	if (pc_list(&pc, &names, &n, "%s", pc.dir) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		char *buf = NULL, *p;
		uint64_t v;
		if (strncmp(names[i], "node", 4) || !isdigit((unsigned char)names[i][4]))
			continue;
		if (pc_read(&pc, &buf, NULL, "%s/meminfo", names[i]) == 0 && (p = strstr(buf, "MemTotal:")) &&
		    sscanf(p + 9, "%" SCNu64, &v) == 1) {
			sum += v;
			got++;
			pc_evidence(&pc, "total_bytes");
		} else {
			free(buf);
			sr_free_list(names, n);
			return -1;     /* one node unreadable: the sum would be wrong */
		}
		free(buf);
	}
	sr_free_list(names, n);
	if (!got)
		return -1;
	*kb = sum;
	return 0;
}

/* The NUMA nodes' MemTotal sum should be MemTotal (within what the kernel
 * keeps per node); far apart (memory hot-added to a VM, a node file not
 * updated) the per-node figures cannot be trusted for sizing: say so. */
static void nodes_vs_memtotal(struct probe_ctx *ctx, uint64_t total)
{
	const cJSON *nodes = facts_get(ctx->facts.root, "numa.nodes"), *nd;
	double sum = 0;
	int n = 0;
	char a[32], b[32];
	cJSON_ArrayForEach(nd, nodes) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(nd, "memory_bytes");
		if (!cJSON_IsNumber(m))
			return;
		sum += m->valuedouble;
		n++;
	}
	if (!n || !total || (sum > total * 0.9 && sum < total * 1.1))
		return;
	facts_conflict(&ctx->facts, "memory.total_bytes", "/proc/meminfo", "numa.nodes[].memory_bytes",
		       "MemTotal is %s, the NUMA %s MemTotal sum %s", human_bytes((double)total, a, sizeof(a)),
		       n == 1 ? "node's" : "nodes'", human_bytes(sum, b, sizeof(b)));
}

static void memtotal(struct probe_ctx *ctx, cJSON *mem)
{
	struct path_cxt pc;
	char *buf = NULL, *p;
	uint64_t kb;
	int r;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, mem, "memory");
	r = pc_read(&pc, &buf, NULL, "/proc/meminfo");
	if (r == 0 && (p = strstr(buf, "MemTotal:")) && sscanf(p + 9, "%" SCNu64, &kb) == 1) {
		add_u64(mem, "total_bytes", 1, kb * 1024);
		pc_evidence(&pc, "total_bytes");
		nodes_vs_memtotal(ctx, kb * 1024);
	} else if (!node_memtotal(ctx, mem, &kb)) {
		add_u64(mem, "total_bytes", 1, kb * 1024);
	} else {
		add_u64(mem, "total_bytes", 0, 0);
		pc_name(&pc, "/proc/meminfo");
		pc_gap_read(&pc, "total_bytes", r ? r : -EINVAL);
	}
	free(buf);
}

/* No SMBIOS table: the DIMM facts are null, each gap with the whole reason
 * (*why, "no SMBIOS memory device records" when none was noted). */
static void no_dimms(struct probe_ctx *ctx, cJSON *mem, char **why)
{
	static const char *const keys[] = { "dimms", "slots", "installed_bytes", "speed" };
	struct path_cxt pc;
	size_t i;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, mem, "memory");
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		fj_set(mem, keys[i], cJSON_CreateNull());
	if (!*why)
		*why = xstrdup("no SMBIOS memory device records");
	/* The whole reason each time: check prints one gap per finding. */
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		pc_gap(&pc, keys[i], "%s", *why);
}

/* What the kernel does not manage (firmware, reserved, crash kernel): the
 * DIMMs minus MemTotal. */
static void unmanaged_bytes(struct probe_ctx *ctx, cJSON *mem)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(mem, "total_bytes");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(mem, "installed_bytes");
	int ok = cJSON_IsNumber(t) && cJSON_IsNumber(in) && in->valuedouble >= t->valuedouble;
	struct path_cxt pc;
	pc_init(&pc, &ctx->sr, &ctx->facts);
	pc_setobj(&pc, mem, "memory");
	fj_num_or_null(mem, "unmanaged_bytes", ok, ok ? in->valuedouble - t->valuedouble : 0);
	if (!ok)
		pc_gap(&pc, "unmanaged_bytes", "%s",
			  cJSON_IsNumber(t) && cJSON_IsNumber(in)
			  ? "MemTotal exceeds the DIMM sum: the SMBIOS table does not list every module"
			  : "needs both MemTotal and the DIMM sum");
}

int probe_memory(struct probe_ctx *ctx)
{
	struct memsrc m;
	struct memstate st;
	char *why = NULL;
	cJSON *mem;

	if (mem_load_smbios(ctx, &m, &why) < 0)
		return -1;
	mem = facts_obj(&ctx->facts, "memory");
	memtotal(ctx, mem);
	memset(&st, 0, sizeof(st));
	st.npackages = packages_known(ctx, m.have ? &m.info : NULL, &st.pkg_source);
	st.src_path = m.have ? m.path : NULL;
	if (m.have)
		mem_other_machine(ctx, &m);
	mem_platform_facts(ctx, &m);
	if (m.have)
		mem_dimm_facts(ctx, mem, &m, &st);
	else
		no_dimms(ctx, mem, &why);
	mem_ecc_facts(ctx, mem, &m, &st);
	hugepages_per_node(ctx, mem);
	unmanaged_bytes(ctx, mem);
	if (!m.have && !(mem_is_virtual(ctx, NULL) == 0 && mem_edac_channels(ctx, mem, &st)))
		mem_null_channels(ctx, mem, "%s", st.ned ? "no SMBIOS DIMM list, and EDAC DIMM locations name no channel"
						     : why);
	free(st.ed);
	free(why);
	if (m.have)
		smbios_free(&m.info);
	return 0;
}
