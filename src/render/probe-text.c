/* render/probe-text.c - `probe`'s text inventory, from the fact tree alone */
#include "config.h"
#include "probe/probe.h"
#include "render/render.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/textlayout.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*** host ***/
static const char *str_or(const cJSON *o, const char *key, const char *dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : dflt;
}

static void text_host(FILE *out, const cJSON *root)
{
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(root, "host");
	const cJSON *v;
	if (!h)
		return;
	tx_section(out, "Host");
	tx_kv(out, "hostname", "%s", str_or(h, "hostname", "unknown"));
	tx_kv(out, "kernel", "%s", str_or(h, "kernel", "unknown"));
	tx_kv(out, "architecture", "%s", str_or(h, "arch", "unknown"));
	v = cJSON_GetObjectItemCaseSensitive(h, "virtualized");
	if (v)
		tx_kv(out, "virtualized", "%s", cJSON_IsTrue(v) ? "yes" : cJSON_IsFalse(v) ? "no" : "unknown");
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(h, "sysroot")))
		tx_kv(out, "sysroot", "%s", str_or(h, "sysroot", ""));
}

/*** cpu ***/
/* A cache size exactly: "1280 KiB", "18 MiB" (human_bytes would round
 * 1.25 MiB to "1.2 MiB"). */
static const char *cache_size(double v, char *buf, size_t n)
{
	uint64_t b = (uint64_t)v;
	if (b && b % (1u << 20) == 0)
		snprintf(buf, n, "%" PRIu64 " MiB", b >> 20);
	else if (b && b % 1024 == 0)
		snprintf(buf, n, "%" PRIu64 " KiB", b >> 10);
	else
		snprintf(buf, n, "%" PRIu64 " B", b);
	return buf;
}

static const char *num_or(const cJSON *o, const char *k, char *buf, size_t n)
{
	double v;
	if (!fj_get_num(o, k, &v))
		return "unknown";
	snprintf(buf, n, "%g", v);
	return buf;
}

static void text_cpu(FILE *out, const cJSON *root)
{
	const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(root, "cpu");
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(root, "host");
	const cJSON *smt, *kinds, *k, *isa, *c, *caches;
	char a[32], b[32], d[32];
	double v;
	if (!cpu)
		return;
	tx_section(out, "CPU");
	tx_kv(out, "model", "%s", fj_get_str(cpu, "model_name") ? fj_get_str(cpu, "model_name") : "unknown");
	tx_kv(out, "vendor", "%s%s%s%s%s", fj_get_str(cpu, "vendor") ? fj_get_str(cpu, "vendor") : "unknown",
	      fj_get_str(cpu, "codename") ? ", codename " : "",
	      fj_get_str(cpu, "codename") ? fj_get_str(cpu, "codename") : "",
	      fj_get_str(cpu, "microcode") ? ", microcode " : "",
	      fj_get_str(cpu, "microcode") ? fj_get_str(cpu, "microcode") : "");
	tx_kv(out, "packages/cores/threads", "%s / %s / %s (online CPUs %s)",
	      num_or(cpu, "packages", a, sizeof(a)), num_or(cpu, "cores", b, sizeof(b)),
	      num_or(cpu, "threads", d, sizeof(d)), fj_get_str(cpu, "online") ? fj_get_str(cpu, "online") : "unknown");
	smt = cJSON_GetObjectItemCaseSensitive(cpu, "smt");
	if (smt) {
		const cJSON *act = cJSON_GetObjectItemCaseSensitive(smt, "active");
		tx_kv(out, "SMT", "%s, %s thread%s per core, control %s",
		      cJSON_IsTrue(act) ? "on" : cJSON_IsFalse(act) ? "off" : "unknown",
		      num_or(smt, "threads_per_core", a, sizeof(a)),
		      fj_get_num(smt, "threads_per_core", &v) && v == 1 ? "" : "s",
		      fj_get_str(smt, "control") ? fj_get_str(smt, "control") : "unknown");
	}
	kinds = cJSON_GetObjectItemCaseSensitive(cpu, "kinds");
	if (cJSON_IsArray(kinds)) {
		cJSON_ArrayForEach(k, kinds) {
			char key[48], bm[32];
			const char *ct = fj_get_str(k, "core_type");
			snprintf(key, sizeof(key), "kind %s", fj_get_str(k, "name") ? fj_get_str(k, "name") : "?");
			num_or(k, "cores", a, sizeof(a));   /* filled before the call reads them */
			num_or(k, "threads", b, sizeof(b));
			tx_kv(out, key, "%s core%s, %s thread%s on CPUs %s%s%s, max %s, base %s [%s]%s%s%s%s",
			      a, !strcmp(a, "1") ? "" : "s", b, !strcmp(b, "1") ? "" : "s",
			      fj_get_str(k, "cpus") ? fj_get_str(k, "cpus") : "?", ct ? ", " : "", ct ? ct : "",
			      fj_get_num(k, "max_mhz", &v) ? (snprintf(d, sizeof(d), "%g MHz", v), d) : "unknown",
			      fj_get_num(k, "base_mhz", &v) ? (snprintf(bm, sizeof(bm), "%g MHz", v), bm) : "unknown",
			      fj_get_str(k, "source") ? fj_get_str(k, "source") : "?",
			      fj_get_str(k, "driver") ? ", " : "", fj_get_str(k, "driver") ? fj_get_str(k, "driver") : "",
			      fj_get_str(k, "governor") ? "/" : "", fj_get_str(k, "governor") ? fj_get_str(k, "governor") : "");
		}
	} else
		tx_kv(out, "kinds", "unknown");
	isa = cJSON_GetObjectItemCaseSensitive(cpu, "isa");
	if (cJSON_IsArray(isa)) {
		struct strbuf sb = STRBUF_INIT;
		cJSON_ArrayForEach(c, isa) {
			if (sb.len)
				strbuf_addstr(&sb, " ");
			strbuf_addstr(&sb, c->valuestring);
		}
		tx_kv(out, "ISA", "%s", sb.len ? sb.buf : "(none of interest)");
		strbuf_release(&sb);
	} else
		tx_kv(out, "ISA", "unknown");
	caches = cJSON_GetObjectItemCaseSensitive(cpu, "caches");
	for (c = caches ? caches->child : NULL; c; c = c->next) {
		char key[16], hb[32];
		snprintf(key, sizeof(key), "%s cache", c->string);
		if (!fj_get_num(c, "size_bytes", &v)) {
			tx_kv(out, key, "unknown");
			continue;
		}
		{
			/* One "SIZE x N, M CPU(s) each" per group (hybrids: two). */
			const cJSON *gs = cJSON_GetObjectItemCaseSensitive(c, "groups"), *g;
			struct strbuf sb = STRBUF_INIT;
			double n, m;
			cJSON_ArrayForEach(g, gs) {
				if (!fj_get_num(g, "size_bytes", &v) || !fj_get_num(g, "instances", &n) || !fj_get_num(g, "cpus_per_instance", &m))
					continue;
				strbuf_addf(&sb, "%s%s x %g, %g CPU%s each", sb.len ? " + " : "",
					    cache_size(v, hb, sizeof(hb)), n, m, m == 1 ? "" : "s");
			}
			if (!sb.len) {
				fj_get_num(c, "size_bytes", &v);
				strbuf_addf(&sb, "%s x %s, %s CPUs each", cache_size(v, hb, sizeof(hb)),
					    num_or(c, "instances", a, sizeof(a)), num_or(c, "cpus_per_instance", b, sizeof(b)));
			}
			tx_kv(out, key, "%s", sb.buf);
			strbuf_release(&sb);
		}
	}
	if (h) {
		const cJSON *vz = cJSON_GetObjectItemCaseSensitive(h, "virtualized");
		tx_kv(out, "virtualization", "%s%s%s%s", cJSON_IsTrue(vz) ? "guest" : cJSON_IsFalse(vz) ? "none (bare metal)" : "unknown",
		      fj_get_str(h, "hypervisor") ? " (" : "", fj_get_str(h, "hypervisor") ? fj_get_str(h, "hypervisor") : "",
		      fj_get_str(h, "hypervisor") ? ")" : "");
	}
}

/*** numa ***/
static void text_numa(FILE *out, const cJSON *root)
{
	const cJSON *numa = cJSON_GetObjectItemCaseSensitive(root, "numa");
	const cJSON *nodes, *n, *v;
	int count, all_dist = 1;
	char hb[32];
	if (!numa)
		return;
	nodes = cJSON_GetObjectItemCaseSensitive(numa, "nodes");
	v = cJSON_GetObjectItemCaseSensitive(numa, "node_count");
	count = cJSON_GetArraySize(nodes);
	tx_section(out, "NUMA");
	if (cJSON_IsNumber(v))
		tx_kv(out, "nodes", "%d", v->valueint);
	else
		tx_kv(out, "nodes", "unknown");
	cJSON_ArrayForEach(n, nodes) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(n, "id");
		const cJSON *cpus = cJSON_GetObjectItemCaseSensitive(n, "cpus");
		const cJSON *cc = cJSON_GetObjectItemCaseSensitive(n, "cpu_count");
		const cJSON *mem = cJSON_GetObjectItemCaseSensitive(n, "memory_bytes");
		char key[32];
		snprintf(key, sizeof(key), "node %d", id ? id->valueint : -1);
		const char *memtxt = cJSON_IsNumber(mem) ? human_bytes(mem->valuedouble, hb, sizeof(hb))
							 : "unknown";
		if (!cJSON_IsString(cpus))
			tx_kv(out, key, "CPUs unknown, memory %s", memtxt);
		else if (!*cpus->valuestring)
			tx_kv(out, key, "no CPUs, memory %s", memtxt);
		else
			tx_kv(out, key, "CPUs %s (%d), memory %s", cpus->valuestring,
			      cJSON_IsNumber(cc) ? cc->valueint : 0, memtxt);
		if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(n, "distances")))
			all_dist = 0;
	}
	/* The distance matrix as numactl -H prints it. */
	if (count > 1) {
		fprintf(out, "  %-22s", "distances");
		if (!all_dist) {
			fprintf(out, " unknown\n");
			return;
		}
		fprintf(out, " node");
		cJSON_ArrayForEach(n, nodes)
			fprintf(out, " %4d", cJSON_GetObjectItemCaseSensitive(n, "id")->valueint);
		fputc('\n', out);
		cJSON_ArrayForEach(n, nodes) {
			const cJSON *d;
			fprintf(out, "  %-22s %4d:", "", cJSON_GetObjectItemCaseSensitive(n, "id")->valueint);
			cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(n, "distances"))
				fprintf(out, " %4d", d->valueint);
			fputc('\n', out);
		}
	}
}

/*** memory ***/
/* "a b c" from the pieces present, "unknown" when none is. */
static const char *join3(char *buf, size_t n, const char *a, const char *b, const char *c)
{
	const char *v[3] = { a, b, c };
	size_t i, len = 0;
	buf[0] = '\0';
	for (i = 0; i < 3; i++)
		if (v[i] && len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? " " : "", v[i]);
	return buf[0] ? buf : "unknown";
}

static void text_memory(FILE *out, const cJSON *root)
{
	const cJSON *mem = cJSON_GetObjectItemCaseSensitive(root, "memory");
	const cJSON *pl = cJSON_GetObjectItemCaseSensitive(root, "platform");
	const cJSON *o, *d;
	double v, w;
	char b1[256];
	if (pl) {
		const cJSON *bi = cJSON_GetObjectItemCaseSensitive(pl, "bios");
		const cJSON *sy = cJSON_GetObjectItemCaseSensitive(pl, "system");
		const cJSON *bo = cJSON_GetObjectItemCaseSensitive(pl, "board");
		tx_section(out, "Platform");
		tx_kv(out, "system", "%s", join3(b1, sizeof(b1), fj_get_str(sy, "vendor"), fj_get_str(sy, "product"), NULL));
		tx_kv(out, "board", "%s", join3(b1, sizeof(b1), fj_get_str(bo, "vendor"), fj_get_str(bo, "product"), NULL));
		tx_kv(out, "BIOS", "%s", join3(b1, sizeof(b1), fj_get_str(bi, "vendor"), fj_get_str(bi, "version"), fj_get_str(bi, "date")));
	}
	if (!mem)
		return;
	tx_section(out, "Memory");
	if (fj_get_num(mem, "total_bytes", &v))
		tx_kv(out, "total (MemTotal)", "%s", human_bytes(v, b1, sizeof(b1)));
	else
		tx_kv(out, "total (MemTotal)", "unknown");
	if (fj_get_num(mem, "installed_bytes", &v))
		tx_kv(out, "installed (DIMMs)", "%s", human_bytes(v, b1, sizeof(b1)));
	o = cJSON_GetObjectItemCaseSensitive(mem, "slots");
	if (fj_get_num(o, "total", &w))
		tx_kv(out, "slots", fj_get_num(o, "populated", &v) ? "%.0f of %.0f populated" : "? of %.0f populated",
		      fj_get_num(o, "populated", &v) ? v : w, w);
	o = cJSON_GetObjectItemCaseSensitive(mem, "channels");
	if (fj_get_num(o, "total", &w) && fj_get_num(o, "populated", &v)) {
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "balanced");
		tx_kv(out, "channels", "%.0f of %.0f populated%s", v, w,
		      cJSON_IsTrue(b) ? ", balanced" : cJSON_IsFalse(b) ? ", NOT balanced" : "");
	} else if (fj_get_num(o, "populated", &v))
		tx_kv(out, "channels", "%.0f populated (total unknown)", v);
	else
		tx_kv(out, "channels", "unknown");
	o = cJSON_GetObjectItemCaseSensitive(mem, "speed");
	if (fj_get_num(o, "configured_mts", &v))
		tx_kv(out, "speed", "%.0f MT/s configured%s", v,
		      fj_get_num(o, "rated_mts", &w) && w > v ? " (below rated)" : "");
	else if (fj_get_num(o, "rated_mts", &v))
		tx_kv(out, "speed", "%.0f MT/s rated (configured unknown)", v);
	o = cJSON_GetObjectItemCaseSensitive(mem, "bandwidth");
	if (fj_get_num(o, "theoretical_bytes_per_s", &v))
		tx_kv(out, "peak bandwidth", "%.1f GB/s (theoretical)", v / 1e9);
	o = cJSON_GetObjectItemCaseSensitive(mem, "ecc");
	tx_kv(out, "ECC", "%s%s%s%s", fj_get_str(o, "mode") ? fj_get_str(o, "mode") : "unknown",
	      fj_get_str(o, "source") ? " (" : "", fj_get_str(o, "source") ? fj_get_str(o, "source") : "",
	      fj_get_str(o, "source") ? ")" : "");
	if (fj_get_num(o, "corrected_errors", &v) && fj_get_num(o, "uncorrected_errors", &w))
		tx_kv(out, "memory errors", "%.0f corrected, %.0f uncorrected", v, w);
	cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(mem, "dimms")) {
		double sz = 0, sp = 0;
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s %s", fj_get_num(d, "size_bytes", &sz) ? human_bytes(sz, b1, sizeof(b1)) : "size unknown",
			    fj_get_str(d, "type") ? fj_get_str(d, "type") : "type unknown");
		if (fj_get_num(d, "configured_speed_mts", &sp) || fj_get_num(d, "speed_mts", &sp))
			strbuf_addf(&sb, " %.0f MT/s", sp);
		if (fj_get_str(d, "channel"))
			strbuf_addf(&sb, "  channel %s", fj_get_str(d, "channel"));
		tx_kv(out, fj_get_str(d, "locator") ? fj_get_str(d, "locator") : "?", "%s", sb.buf);
		strbuf_release(&sb);
	}
}

/*** pci ***/
static const cJSON *jget(const cJSON *o, const char *path)
{
	return facts_get(o, path);
}

static void fmt_pair_int(char *buf, size_t n, const cJSON *l, const char *what)
{
	char k1[64], k2[64];
	const cJSON *c, *m;
	snprintf(k1, sizeof(k1), "%s.current", what);
	snprintf(k2, sizeof(k2), "%s.max", what);
	c = jget(l, k1);
	m = jget(l, k2);
	snprintf(buf, n, "x%s/x%s", "?", "?");
	{
		char a[16] = "?", b[16] = "?";
		if (cJSON_IsNumber(c))
			snprintf(a, sizeof(a), "%d", c->valueint);
		if (cJSON_IsNumber(m))
			snprintf(b, sizeof(b), "%d", m->valueint);
		snprintf(buf, n, "x%s/x%s", a, b);
	}
}

static void fmt_pair_speed(char *buf, size_t n, const cJSON *l)
{
	const cJSON *c = jget(l, "speed_gts.current"), *m = jget(l, "speed_gts.max");
	char a[16] = "?", b[16] = "?";
	if (cJSON_IsNumber(c))
		snprintf(a, sizeof(a), "%g", c->valuedouble);
	if (cJSON_IsNumber(m))
		snprintf(b, sizeof(b), "%g", m->valuedouble);
	snprintf(buf, n, "%s/%s", a, b);
}

static const char *verdict(const cJSON *d)
{
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(d, "link");
	const cJSON *sh = cJSON_GetObjectItemCaseSensitive(d, "shared_uplink");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(d, "integrated");
	if (!cJSON_IsObject(l))
		return cJSON_IsTrue(in) ? "integrated (no link)" : "link unknown";
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "width_downtrained")))
		return "WIDTH DOWNTRAINED";
	if (cJSON_IsTrue(jget(sh, "oversubscribed")))
		return "shared uplink oversubscribed";
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "slot_limited")))
		return "slot-limited";
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "speed_downtrained")))
		return "speed low (idle? re-check under load)";
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "speed_limited")))
		return "speed-limited by the port";
	if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(l, "width_downtrained")))
		return "current link unknown";
	return "ok";
}

static void table(FILE *out, const cJSON *list, int nic)
{
	const cJSON *d;
	struct tl_table *t = tl_table_new(2);
	tl_table_column(t, "BDF", 13, 0);
	tl_table_column(t, "Device", nic ? 28 : 34, TL_WRAP);
	if (nic)
		tl_table_column(t, "Port", 18, TL_WRAP);
	tl_table_column(t, "Node", 4, TL_RIGHT);
	tl_table_column(t, "Width", 9, 0);
	tl_table_column(t, "GT/s", 9, 0);
	tl_table_column(t, "Verdict", 0, 0);
	cJSON_ArrayForEach(d, list) {
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(d, "link");
		const cJSON *node = cJSON_GetObjectItemCaseSensitive(d, "numa_node");
		const cJSON *mbps = cJSON_GetObjectItemCaseSensitive(d, "speed_mbps");
		const char *dev = fj_get_str(d, "device"), *ifn = fj_get_str(d, "interface");
		char w[24] = "-", sp[24] = "-", nd[12] = "?", port[64], *name;
		if (dev)
			name = xstrdup(dev);
		else
			name = xasprintf("%s:%s", fj_get_str(d, "vendor_id") ? fj_get_str(d, "vendor_id") : "?",
					 fj_get_str(d, "device_id") ? fj_get_str(d, "device_id") : "?");
		if (cJSON_IsObject(l)) {
			fmt_pair_int(w, sizeof(w), l, "width");
			fmt_pair_speed(sp, sizeof(sp), l);
		}
		if (cJSON_IsNumber(node))
			snprintf(nd, sizeof(nd), "%d", node->valueint);
		if (!nic) {
			tl_table_row(t, fj_get_str(d, "bdf"), name, nd, w, sp, verdict(d));
			free(name);
			continue;
		}
		if (cJSON_IsNumber(mbps) && mbps->valuedouble >= 1000)
			snprintf(port, sizeof(port), "%s %gG", ifn ? ifn : "?", mbps->valuedouble / 1000);
		else if (cJSON_IsNumber(mbps))
			snprintf(port, sizeof(port), "%s %gM", ifn ? ifn : "?", mbps->valuedouble);
		else if (ifn && fj_get_str(d, "operstate"))
			/* No speed: the kernel's operstate ("up": a driver with
			 * no speed, such as virtio), never a guessed "down". */
			snprintf(port, sizeof(port), "%s %s", ifn, fj_get_str(d, "operstate"));
		else
			snprintf(port, sizeof(port), "%s%s", ifn ? ifn : "-", ifn ? " ?" : "");
		tl_table_row(t, fj_get_str(d, "bdf"), name, port, nd, w, sp, verdict(d));
		free(name);
	}
	tl_table_print(out, t);
}

/* A section of devices: unknown (not an array), none, or their table. */
static void device_section(FILE *out, const char *title, const cJSON *devs, int nic)
{
	tx_section(out, title);
	if (!cJSON_IsArray(devs))
		fprintf(out, "  unknown\n");
	else if (!cJSON_GetArraySize(devs))
		fprintf(out, "  none\n");
	else
		table(out, devs, nic);
}

static void text_pci(FILE *out, const cJSON *root)
{
	const cJSON *pci = cJSON_GetObjectItemCaseSensitive(root, "pci");
	const cJSON *acc, *nics, *d, *m;
	int printed = 0;
	if (!pci)
		return;
	acc = cJSON_GetObjectItemCaseSensitive(pci, "accelerators");
	nics = cJSON_GetObjectItemCaseSensitive(pci, "nics");
	device_section(out, "PCIe accelerators", acc, 0);
	device_section(out, "Network controllers", nics, 1);
	/* Shared uplinks: each one once, accelerators first. */
	cJSON_ArrayForEach(d, acc) {
		const cJSON *sh = cJSON_GetObjectItemCaseSensitive(d, "shared_uplink");
		const cJSON *devs = cJSON_GetObjectItemCaseSensitive(sh, "devices");
		const cJSON *ratio = cJSON_GetObjectItemCaseSensitive(sh, "ratio");
		const cJSON *first = cJSON_GetArrayItem(devs, 0);
		if (cJSON_GetArraySize(devs) < 2 || !cJSON_IsString(first) ||
		    strcmp(first->valuestring, fj_get_str(d, "bdf")))
			continue;
		if (!printed++)
			tx_section(out, "Shared uplinks");
		{
			struct strbuf sb = STRBUF_INIT;
			strbuf_addf(&sb, "  %s (%s): %d accelerators", fj_get_str(sh, "bdf"), fj_get_str(sh, "kind"),
				    cJSON_GetArraySize(devs));
			if (cJSON_IsNumber(ratio))
				strbuf_addf(&sb, ", %.2f:1 of the uplink%s", ratio->valuedouble,
					    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sh, "oversubscribed")) ?
					    " (oversubscribed)" : "");
			tl_line(out, 4, "%s", sb.buf);
			strbuf_release(&sb);
		}
	}
	m = cJSON_GetObjectItemCaseSensitive(pci, "matrix");
	if (cJSON_IsObject(m))
		text_pci_matrix(out, m, tl_width());
}

/*** kernel ***/
static const char *s_or(const cJSON *o, const char *key, const char *dflt)
{
	const char *s = fj_get_str(o, key);
	return s ? s : dflt;
}

static const char *tf(const cJSON *v, const char *t, const char *f)
{
	return cJSON_IsTrue(v) ? t : cJSON_IsFalse(v) ? f : "unknown";
}

/* Policies alike (driver, governor, EPP, max) on one line with their CPUs:
 * a 256-CPU intel_pstate host has 256 policies. */
static void text_policies(FILE *out, const cJSON *pols)
{
	size_t n = (size_t)cJSON_GetArraySize(pols), ng = 0, i;
	char **keys = xcalloc(n, sizeof(*keys));
	hwloc_bitmap_t *sets = xcalloc(n, sizeof(*sets));
	const cJSON *it;
	cJSON_ArrayForEach(it, pols) {
		const cJSON *mx = cJSON_GetObjectItemCaseSensitive(it, "max_mhz");
		hwloc_bitmap_t set = hwloc_bitmap_alloc();
		char *key;
		if (cJSON_IsNumber(mx))
			key = xasprintf("%s, %s, max %.0f MHz", s_or(it, "driver", "unknown"),
					s_or(it, "governor", "unknown"), mx->valuedouble);
		else
			key = xasprintf("%s, %s", s_or(it, "driver", "unknown"), s_or(it, "governor", "unknown"));
		if (!fj_get_str(it, "cpus") || parse_cpulist(fj_get_str(it, "cpus"), set) < 0) {
			hwloc_bitmap_free(set);
			set = NULL;
		}
		for (i = 0; i < ng; i++)
			if (set && sets[i] && !strcmp(keys[i], key))
				break;
		if (i < ng) {
			hwloc_bitmap_or(sets[i], sets[i], set);
			hwloc_bitmap_free(set);
			free(key);
		} else {
			keys[ng] = key;
			sets[ng++] = set;
		}
	}
	for (i = 0; i < ng; i++) {
		char *l = sets[i] ? cpulist_dup(sets[i]) : xstrdup("?");
		tx_kv(out, "policies", "cpus %s: %s", l, keys[i]);
		free(l);
		free(keys[i]);
		if (sets[i])
			hwloc_bitmap_free(sets[i]);
	}
	free(keys);
	free(sets);
}

/* With no cpufreq policy: whether that says there is no driver ("none"),
 * or only that the tree lacks the files (a capture without
 * /sys/devices/system/cpu, or not made by snapshot): kernel.cpufreq's gap
 * says which (probe/kernel-cpufreq.c, no_cpufreq()). */
static void text_kernel(FILE *out, const cJSON *root)
{
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(root, "kernel"), *o, *it, *v;
	char hb[32];
	if (!k)
		return;
	tx_section(out, "Kernel");
	tx_kv(out, "version", "%s", s_or(k, "version", "unknown"));
	o = cJSON_GetObjectItemCaseSensitive(k, "cmdline");
	tx_kv(out, "command line", "%s", s_or(o, "raw", "unknown"));
	v = cJSON_GetObjectItemCaseSensitive(k, "cgroup_version");
	if (cJSON_IsNumber(v))
		tx_kv(out, "cgroups", "v%d (%s)", v->valueint, s_or(k, "cgroup_mode", "?"));
	else
		tx_kv(out, "cgroups", "unknown");
	tx_kv(out, "clocksource", "%s", s_or(k, "clocksource", "unknown"));
	tx_kv(out, "NUMA balancing", "%s", s_or(k, "numa_balancing", "unknown"));
	tx_kv(out, "irqbalance", "%s", tf(cJSON_GetObjectItemCaseSensitive(k, "irqbalance"), "running", "not running"));

	o = cJSON_GetObjectItemCaseSensitive(k, "cpufreq");
	/* No driver: "none" where the probe knows there is none (policies
	 * []), "unknown" where the tree may just not hold them (null). */
	tx_kv(out, "cpufreq driver", "%s",
	      s_or(o, "driver", cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "policies")) ? "none" : "unknown"));
	tx_kv(out, "governor", "%s", s_or(k, "governor", "unknown"));
	if (fj_get_str(o, "epp"))
		tx_kv(out, "energy preference", "%s", fj_get_str(o, "epp"));
	tx_kv(out, "boost", "%s", tf(cJSON_GetObjectItemCaseSensitive(o, "boost"), "on", "off"));
	text_policies(out, cJSON_GetObjectItemCaseSensitive(o, "policies"));
	o = cJSON_GetObjectItemCaseSensitive(k, "cpuidle");
	v = cJSON_GetObjectItemCaseSensitive(o, "deepest_state");
	if (cJSON_IsObject(v))
		tx_kv(out, "cpuidle", "%s, deepest enabled %s (%.0f us)", s_or(o, "driver", "unknown"),
		      s_or(v, "name", "?"), cJSON_GetObjectItemCaseSensitive(v, "latency_us")->valuedouble);
	else
		tx_kv(out, "cpuidle", "%s", s_or(o, "driver", "unknown"));

	o = cJSON_GetObjectItemCaseSensitive(k, "thp");
	tx_kv(out, "transparent hugepages", "%s (defrag %s)", s_or(o, "enabled", "unknown"),
	      s_or(o, "defrag", "unknown"));
	o = cJSON_GetObjectItemCaseSensitive(k, "hugepages");
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "sizes")) {
		const cJSON *sz = cJSON_GetObjectItemCaseSensitive(it, "size_bytes");
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "total");
		const cJSON *fr = cJSON_GetObjectItemCaseSensitive(it, "free");
		char key[48];
		snprintf(key, sizeof(key), "hugepages %s", human_bytes(sz->valuedouble, hb, sizeof(hb)));
		if (cJSON_IsNumber(t) && cJSON_IsNumber(fr))
			tx_kv(out, key, "%.0f (%.0f free)", t->valuedouble, fr->valuedouble);
		else
			tx_kv(out, key, "unknown");
	}
	o = cJSON_GetObjectItemCaseSensitive(k, "swap");
	v = cJSON_GetObjectItemCaseSensitive(o, "total_bytes");
	{
		/* devices null: /proc/swaps unread, not "0 devices". */
		const cJSON *dv = cJSON_GetObjectItemCaseSensitive(o, "devices");
		char nd[32];
		if (cJSON_IsArray(dv))
			snprintf(nd, sizeof(nd), "%d device%s", cJSON_GetArraySize(dv),
				 cJSON_GetArraySize(dv) == 1 ? "" : "s");
		else
			snprintf(nd, sizeof(nd), "devices unknown");
		tx_kv(out, "swap", "%s, %s", cJSON_IsNumber(v) ? human_bytes(v->valuedouble, hb, sizeof(hb)) : "unknown",
		      nd);
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "devices"))
		tx_kv(out, "", "%s (%s, %s)", s_or(it, "name", "?"), s_or(it, "type", "?"),
		      human_bytes(cJSON_GetObjectItemCaseSensitive(it, "size_bytes")->valuedouble, hb, sizeof(hb)));
	o = cJSON_GetObjectItemCaseSensitive(k, "zswap");
	tx_kv(out, "zswap", "%s", tf(cJSON_GetObjectItemCaseSensitive(o, "enabled"), "on", "off"));

	o = cJSON_GetObjectItemCaseSensitive(k, "sysctl");
	if (cJSON_GetArraySize(o) > 0) {
		tx_section(out, "Sysctls");
		cJSON_ArrayForEach(it, o)
			tx_kv(out, it->string, "%s", cJSON_IsString(it) ? it->valuestring : "unknown");
	}
}

/*** The inventory ***/

/* One section per subject, in the probe order. */
static void (*const subjects[])(FILE *, const cJSON *) = {
	text_host, text_cpu, text_numa, text_memory, text_pci, text_kernel,
	probe_render_process_text,
};

/* The conflicts or the gaps: a section, one line each (its fact, then the
 * member named text), nothing when there are none. */
static void fact_list(FILE *out, const char *title, const cJSON *list, const char *text)
{
	const cJSON *g;
	if (cJSON_GetArraySize(list) <= 0)
		return;
	tx_section(out, title);
	cJSON_ArrayForEach(g, list) {
		const cJSON *fa = cJSON_GetObjectItemCaseSensitive(g, "fact");
		const cJSON *tx = cJSON_GetObjectItemCaseSensitive(g, text);
		tx_kv(out, cJSON_IsString(fa) ? fa->valuestring : "?", "%s",
		      cJSON_IsString(tx) ? tx->valuestring : "");
	}
}

void probe_render_text(FILE *out, const struct doc *d)
{
	const cJSON *doc = d->json;
	size_t i;
	const cJSON *conflicts = cJSON_GetObjectItemCaseSensitive(doc, "conflicts");
	const cJSON *gaps = cJSON_GetObjectItemCaseSensitive(doc, "gaps");
	for (i = 0; i < ARRAY_SIZE(subjects); i++)
		subjects[i](out, doc);
	fact_list(out, "Sources that disagree", conflicts, "note");
	fact_list(out, "Unknown (with the reason)", gaps, "reason");
}
