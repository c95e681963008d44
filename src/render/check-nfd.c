/* render/check-nfd.c - the check report as a Node Feature Discovery local
 * feature file (features.d): labels a scheduler can place by */
#include "config.h"
#include "render/render.h"
#include "render/nfd.h"
#include "audit/report.h"
#include "audit/checks.h"
#include "lib/facts.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Every label is NFD_PREFIX + a name from the list in nodeaudit(1) (NFD
 * FEATURE FILE).  The prefix is a sub-namespace of NFD's own
 * feature.node.kubernetes.io, which nfd-master accepts without
 * -extra-label-ns.  Names and values are checked against Kubernetes' label
 * syntax before they are written; a value that fails (a profile name with a
 * blank, say) is left out with a comment, never mangled or cut.  A fact that
 * is unknown gives no label.  The file never exceeds NFD's 64 KiB limit:
 * the per-node labels, written last, are dropped first.
 */

/* Limits the names and values live by (Kubernetes' label syntax, NFD's file cap). */
enum { LABEL_MAX = 63, TRAILER_RESERVE = 160 };

int nfd_label_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0, i;
	if (n == 0 || n > LABEL_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		if (!alnum && c != '.' && c != '_' && c != '-')
			return 0;
		if ((i == 0 || i == n - 1) && !alnum)
			return 0;
	}
	return 1;
}

int nfd_label_value_ok(const char *s)
{
	/* The same characters; Kubernetes allows an empty value, nodeaudit never writes one. */
	return nfd_label_name_ok(s);
}

/* "2h", "90m", "1d", "3600s" or "3600": 60 s to 30 days. */
int nfd_parse_validity(const char *s, long *secs)
{
	uint64_t v;
	long mul = 1;
	char buf[32];
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n + 1);
	switch (buf[n - 1]) {
	case 's': mul = 1; buf[--n] = '\0'; break;
	case 'm': mul = 60; buf[--n] = '\0'; break;
	case 'h': mul = 3600; buf[--n] = '\0'; break;
	case 'd': mul = 86400; buf[--n] = '\0'; break;
	}
	if (!n || parse_u64(buf, &v) < 0 || v > 30u * 86400)
		return -EINVAL;
	v *= (uint64_t)mul;
	if (v < 60 || v > 30u * 86400)
		return -ERANGE;
	*secs = (long)v;
	return 0;
}

struct nfd {
	struct strbuf out;
	size_t limit;       /* bytes the labels may take, trailer kept free */
	int left_out;       /* labels dropped for the size limit */
};

/* A line of the file, if it fits: labels and comments alike count against the limit. */
static void nfd_line(struct nfd *n, const char *line)
{
	size_t len = strlen(line) + 1;
	if (n->out.len + len > n->limit) {
		n->left_out++;
		return;
	}
	strbuf_addstr(&n->out, line);
	strbuf_addstr(&n->out, "\n");
}

/* One label; a name or value outside the label syntax is left out, with a
 * comment naming the label when its name is valid (values are never echoed:
 * they may be anything a profile or a saved facts file holds). */
static void label(struct nfd *n, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void label(struct nfd *n, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *v, *line;
	va_start(ap, fmt);
	v = xvasprintf(fmt, ap);
	va_end(ap);
	if (!nfd_label_name_ok(name))
		line = xstrdup("# a label was left out: its name would not be a valid label name");
	else if (!nfd_label_value_ok(v))
		line = xasprintf("# %s left out: the value is not a valid label value "
				 "(1 to 63 of A-Z a-z 0-9 . _ -, alphanumeric at both ends)", name);
	else
		line = xasprintf("%s%s=%s", NFD_PREFIX, name, v);
	nfd_line(n, line);
	free(line);
	free(v);
}

/* A whole, non-negative number below 2^53, or -1. */
static long long whole(const cJSON *v)
{
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
	    v->valuedouble > 9007199254740992.0 || v->valuedouble != floor(v->valuedouble))
		return -1;
	return (long long)v->valuedouble;
}

static void label_num(struct nfd *n, const char *name, const cJSON *facts, const char *path)
{
	long long v = whole(facts_get(facts, path));
	if (v >= 0)
		label(n, name, "%lld", v);
}

static void label_bool(struct nfd *n, const char *name, const cJSON *v, const char *yes, const char *no)
{
	if (cJSON_IsBool(v))
		label(n, name, "%s", cJSON_IsTrue(v) ? yes : no);
}

/* Bytes per second as whole MB/s (10^6), rounded down. */
static void label_mbps(struct nfd *n, const char *name, const cJSON *v)
{
	if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0 && v->valuedouble < 1e18)
		label(n, name, "%lld", (long long)floor(v->valuedouble / 1e6));
}

/*** The audit ***/

static void audit_labels(struct nfd *n, const cJSON *r)
{
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(r, "summary");
	const char *prof = fj_get_str(cJSON_GetObjectItemCaseSensitive(r, "profile"), "name");
	double f = 0, w = 0, u = 0, p = 0;
	int have = cJSON_IsObject(sum) && fj_get_num(sum, "fail", &f) && fj_get_num(sum, "warn", &w) &&
		   fj_get_num(sum, "unknown", &u) && fj_get_num(sum, "pass", &p);
	if (have) {
		label(n, "audit.status", "%s", f > 0 ? "fail" : w > 0 ? "warn" : u > 0 ? "unknown" : "pass");
		label_num(n, "audit.fail", sum, "fail");
		label_num(n, "audit.warn", sum, "warn");
		label_num(n, "audit.unknown", sum, "unknown");
	}
	if (prof)
		label(n, "audit.profile", "%s", prof);
	label(n, "audit.version", "%s", PACKAGE_VERSION);
}

/*** CPU ***/

static void cpu_labels(struct nfd *n, const cJSON *facts)
{
	const cJSON *kinds = facts_get(facts, "cpu.kinds"), *k;
	const cJSON *isa = facts_get(facts, "cpu.isa"), *it;
	/* The ISA extensions inference kernels pick their paths by (cpu.isa
	 * names); on ARM, those llama.cpp's CPU backend scores its builds by
	 * (ggml/src/ggml-cpu/arch/arm/cpu-feats.cpp, struct aarch64_features:
	 * dotprod, fp16 vector arithmetic, sve, sve2, i8mm, sme). */
	static const char *const wanted[] = {
		"avx512f", "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx_vnni",
		"amx_tile", "amx_int8", "amx_bf16", "sve", "sve2", "i8mm", "bf16", "dotprod", "fp16", "sme",
	};
	size_t i;

	label_num(n, "cpu.sockets", facts, "cpu.packages");
	label_num(n, "cpu.cores", facts, "cpu.cores");
	label_num(n, "cpu.threads", facts, "cpu.threads");
	label_bool(n, "cpu.smt", facts_get(facts, "cpu.smt.active"), "on", "off");
	label_bool(n, "cpu.hybrid", facts_get(facts, "cpu.hybrid"), "true", "false");
	/* Core counts per kind, on hybrids only (one kind says nothing the
	 * cores label does not). */
	if (cJSON_IsTrue(facts_get(facts, "cpu.hybrid")))
		cJSON_ArrayForEach(k, kinds) {
			const char *name = fj_get_str(k, "name");
			long long c = whole(cJSON_GetObjectItemCaseSensitive(k, "cores"));
			char *ln;
			if (!name || c < 0)
				continue;
			ln = xasprintf("cpu.cores.%s", name);
			label(n, ln, "%lld", c);
			free(ln);
		}
	if (cJSON_IsArray(isa))
		for (i = 0; i < ARRAY_SIZE(wanted); i++)
			cJSON_ArrayForEach(it, isa)
				if (cJSON_IsString(it) && !strcmp(it->valuestring, wanted[i])) {
					char *ln = xasprintf("cpu.isa.%s", wanted[i]);
					label(n, ln, "true");
					free(ln);
					break;
				}
}

/*** NUMA: node count and the sub-NUMA mode ***/

/*
 * How the packages are split into NUMA nodes, from the nodes that have CPUs
 * (memory-only nodes, HBM or CXL, do not count), cpu.packages and the
 * distance rows.  k = nodes / packages; with more than one package the rows
 * must show it: each node has exactly k-1 other nodes nearer than all the
 * rest, and those groups agree.  Returns k (> 0); 0 when the layout fits no
 * whole split, with *spans the packages per node when a node spans several;
 * -1 when the facts are missing (no label at all).
 */
enum { MAX_COMPARED_NODES = 1024 };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Whether the distance rows of the nodes with CPUs (idx[]: their n
 * positions among total) group them k to a package: each node's k-1
 * nearest strictly nearer than the rest, and the groups agree. */
static int grouped_by_distance(const cJSON *nodes, const int *idx, int n, int total, int k)
{
	const cJSON *nd;
	int i, j, ok = 1;
	/* near[i][j]: j is among the k-1 nearest of i, strictly nearer than the rest. */
	double *d = xcalloc((size_t)n * (size_t)n, sizeof(*d));
	double *row = xcalloc((size_t)n, sizeof(*row));
	unsigned char *near = xcalloc((size_t)n * (size_t)n, 1);
	double *full = xcalloc((size_t)total, sizeof(*full));
	const cJSON *v;
	/* Each node's row read once, in order (cJSON's index lookup is linear). */
	i = 0;
	j = 0;
	cJSON_ArrayForEach(nd, nodes) {
		const cJSON *dist = cJSON_GetObjectItemCaseSensitive(nd, "distances");
		int m = 0;
		if (j >= n || idx[j] != i) {
			i++;
			continue;
		}
		if (!cJSON_IsArray(dist) || cJSON_GetArraySize(dist) != total) {
			ok = 0;
			break;
		}
		cJSON_ArrayForEach(v, dist) {
			if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
				ok = 0;
			full[m++] = ok ? v->valuedouble : 0;
		}
		for (m = 0; m < n; m++)
			d[(size_t)j * n + m] = full[idx[m]];
		i++;
		j++;
	}
	free(full);
	for (i = 0; i < n && ok; i++) {
		int m = 0;
		double cut;
		for (j = 0; j < n; j++)
			if (j != i)
				row[m++] = d[(size_t)i * n + j];
		qsort(row, (size_t)m, sizeof(*row), cmp_double);
		cut = row[k - 2];
		if (!(row[k - 2] < row[k - 1])) {
			ok = 0;
			break;
		}
		for (j = 0; j < n; j++)
			near[(size_t)i * n + j] = j == i || d[(size_t)i * n + j] <= cut;
	}
	for (i = 0; i < n && ok; i++)
		for (j = 0; j < n && ok; j++)
			if (near[(size_t)i * n + j] && memcmp(near + (size_t)i * n, near + (size_t)j * n, (size_t)n))
				ok = 0;
	free(d);
	free(row);
	free(near);
	return ok;
}

static int numa_split(const cJSON *facts, int *spans)
{
	const cJSON *nodes = facts_get(facts, "numa.nodes"), *nd;
	long long pk = whole(facts_get(facts, "cpu.packages"));
	int *idx, n = 0, total, i, k, ok = 1;

	*spans = 0;
	/* Without node directories the machine was taken as one node: no layout. */
	if (!facts_get(facts, "numa.online") || !cJSON_IsArray(nodes) || pk <= 0 || pk > 65536)
		return -1;
	total = cJSON_GetArraySize(nodes);
	if (total <= 0 || total > 65536)
		return -1;
	idx = xcalloc((size_t)total, sizeof(*idx));
	i = 0;
	cJSON_ArrayForEach(nd, nodes) {
		long long c = whole(cJSON_GetObjectItemCaseSensitive(nd, "cpu_count"));
		if (c < 0) {
			free(idx);
			return -1;
		}
		if (c > 0)
			idx[n++] = i;
		i++;
	}
	if (n == 0) {
		free(idx);
		return -1;
	}
	if (n < pk) {
		free(idx);
		if (pk % n)
			return 0;
		*spans = (int)(pk / n);
		return 0;
	}
	if (n % pk) {
		free(idx);
		return 0;
	}
	k = (int)(n / pk);
	/* Past this many nodes the distance matrix is not compared (n^2 memory): unknown. */
	if (pk > 1 && k > 1 && n > MAX_COMPARED_NODES) {
		free(idx);
		return 0;
	}
	if (pk > 1 && k > 1)
		ok = grouped_by_distance(nodes, idx, n, total, k);
	free(idx);
	return ok ? k : 0;
}

static void numa_labels(struct nfd *n, const cJSON *facts, const cJSON *host)
{
	const char *vendor = fj_get_str(facts_get(facts, "cpu"), "vendor");
	int intel = vendor && !strcmp(vendor, "Intel"), amd = vendor && !strcmp(vendor, "AMD");
	int spans, k;
	label_num(n, "numa.nodes", facts, "numa.node_count");
	k = numa_split(facts, &spans);
	if (k < 0)
		return;
	if (k > 0)
		label(n, "numa.nodes-per-package", "%d", k);
	/* A guest's nodes and packages are what its hypervisor made up: SNC and
	 * NPS are the host's firmware settings, not the guest's. */
	if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(host, "virtualized")))
		return;
	if (k == 0 && spans > 1)
		label(n, "numa.mode", "%s", amd && spans == 2 ? "nps0" : "interleaved");
	else if (k == 0)
		label(n, "numa.mode", "unknown");
	else if (intel)
		label(n, "numa.mode", k == 1 ? "snc-off" : "snc%d", k);
	else if (amd && (k == 1 || k == 2 || k == 4))
		label(n, "numa.mode", "nps%d", k);
	else if (amd)
		label(n, "numa.mode", "unknown");
}

/*** Memory ***/

static void memory_labels(struct nfd *n, const cJSON *facts)
{
	const char *ecc = fj_get_str(facts_get(facts, "memory.ecc"), "mode");
	const cJSON *sizes = facts_get(facts, "kernel.hugepages.sizes"), *s;
	label_num(n, "memory.channels.populated", facts, "memory.channels.populated");
	label_num(n, "memory.channels.total", facts, "memory.channels.total");
	label_bool(n, "memory.channels.balanced", facts_get(facts, "memory.channels.balanced"), "true", "false");
	if (ecc)
		label(n, "memory.ecc", "%s", ecc);
	label_mbps(n, "memory.bandwidth.theoretical-mbps", facts_get(facts, "memory.bandwidth.theoretical_bytes_per_s"));
	label_mbps(n, "bench.membw-mbps", facts_get(facts, "bench.bandwidth.bytes_per_s"));
	/* Huge pages reserved, per size, named as Kubernetes names the resource. */
	cJSON_ArrayForEach(s, sizes) {
		long long b = whole(cJSON_GetObjectItemCaseSensitive(s, "size_bytes"));
		long long t = whole(cJSON_GetObjectItemCaseSensitive(s, "total"));
		static const char *const unit[] = { "Ki", "Mi", "Gi" };
		int u = -1, i;
		char *ln;
		if (b <= 0 || t < 0)
			continue;
		for (i = 2; i >= 0; i--)
			if (b % (1LL << (10 * (i + 1))) == 0) {
				u = i;
				break;
			}
		if (u < 0)
			continue;
		ln = xasprintf("hugepages-%lld%s", b >> (10 * (u + 1)), unit[u]);
		label(n, ln, "%lld", t);
		free(ln);
	}
}

/*** Accelerators ***/

static int hex4(const char *s)
{
	int i;
	if (!s || strlen(s) != 4)
		return 0;
	for (i = 0; i < 4; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* Distinct class/vendor pairs counted; more would not fit the file anyway. */
enum { MAX_PAIRS = 256 };

static void accel_labels(struct nfd *n, const cJSON *facts)
{
	const cJSON *acc = facts_get(facts, "pci.accelerators"), *a;
	struct { char key[10]; int count; } pair[MAX_PAIRS];
	int npair = 0, linked = 0, unknown = 0, slot = 0, down = 0, i;
	if (!cJSON_IsArray(acc))
		return;
	label(n, "pci.accelerators", "%d", cJSON_GetArraySize(acc));
	cJSON_ArrayForEach(a, acc) {
		const char *cl = fj_get_str(a, "class"), *ve = fj_get_str(a, "vendor_id");
		const cJSON *link = cJSON_GetObjectItemCaseSensitive(a, "link");
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "integrated"))) {
			linked++;
			if (!cJSON_IsObject(link))
				unknown++;
			else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(link, "width_downtrained")))
				down++;
			else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(link, "slot_limited")))
				slot++;
		}
		if (!hex4(cl) || !hex4(ve))
			continue;
		/* Counts per class and vendor, in the order each pair first appears. */
		for (i = 0; i < npair; i++)
			if (!memcmp(pair[i].key, cl, 4) && !memcmp(pair[i].key + 5, ve, 4))
				break;
		if (i == npair) {
			if (npair == MAX_PAIRS) {
				n->left_out++;
				continue;
			}
			snprintf(pair[npair].key, sizeof(pair[npair].key), "%s_%s", cl, ve);
			pair[npair++].count = 0;
		}
		pair[i].count++;
	}
	for (i = 0; i < npair; i++) {
		char *ln = xasprintf("pci.accelerators.%s", pair[i].key);
		label(n, ln, "%d", pair[i].count);
		free(ln);
	}
	/* The worst link: a lane fault, then a slot narrower than the card, then unreadable. */
	if (linked) {
		label(n, "pci.accelerators.link", "%s", down ? "downtrained" : slot ? "slot-limited" :
		      unknown ? "unknown" : "full");
		label(n, "pci.accelerators.link-downtrained", "%d", down);
		label(n, "pci.accelerators.link-slot-limited", "%d", slot);
	}
}

/*** Per node (written last: dropped first when the file would pass the limit) ***/

static void node_labels(struct nfd *n, const cJSON *facts)
{
	const cJSON *nodes = facts_get(facts, "bench.nodes"), *nd;
	cJSON_ArrayForEach(nd, nodes) {
		long long id = whole(cJSON_GetObjectItemCaseSensitive(nd, "node"));
		char *ln;
		if (id < 0)
			continue;
		ln = xasprintf("bench.membw-mbps.node%lld", id);
		label_mbps(n, ln, cJSON_GetObjectItemCaseSensitive(nd, "bytes_per_s"));
		free(ln);
	}
}

void report_render_nfd(FILE *fp, const struct doc *d)
{
	const cJSON *r = d->json;
	const cJSON *facts = cJSON_GetObjectItemCaseSensitive(r, "facts");
	const struct nfd_opts *o = d->data;
	long validity = o && o->validity > 0 ? o->validity : NFD_VALIDITY_DEFAULT;
	const char *when = fj_get_str(cJSON_GetObjectItemCaseSensitive(r, "host"), "collected_at");
	struct nfd n = { STRBUF_INIT, 0, 0 };
	char exp[32];
	time_t t;

	strbuf_addstr(&n.out, "# Node Feature Discovery local feature file written by nodeaudit " PACKAGE_VERSION "\n"
			      "# (check --format nfd); install as "
			      "/etc/kubernetes/node-feature-discovery/features.d/nodeaudit\n");
	if (rfc3339_parse(when, &t) < 0) {
		/* Without the audit's time no expiry can be set: no labels, rather
		 * than labels that would never expire. */
		strbuf_addstr(&n.out, "# the report has no valid audit time (host.collected_at): "
				      "no labels, as they could not expire\n");
		fputs(n.out.buf, fp);
		strbuf_release(&n.out);
		return;
	}
	t += validity;
	if (rfc3339_format(t, exp, sizeof(exp)) < 0) {
		/* NFD reads +expiry-time as RFC 3339: a four-digit year. */
		strbuf_addf(&n.out, "# the labels would expire after the year 9999 (audited %s, valid %ld s): "
			    "no labels, as no RFC 3339 time could say when\n", when, validity);
		fputs(n.out.buf, fp);
		strbuf_release(&n.out);
		return;
	}
	strbuf_addf(&n.out, "# audited %s; the labels expire %ld s later unless the file is rewritten\n"
		    "# +expiry-time=%s\n", when, validity, exp);
	n.limit = NFD_FILE_MAX - TRAILER_RESERVE;
	audit_labels(&n, r);
	cpu_labels(&n, facts);
	numa_labels(&n, facts, cJSON_GetObjectItemCaseSensitive(r, "host"));
	memory_labels(&n, facts);
	accel_labels(&n, facts);
	node_labels(&n, facts);
	if (n.left_out)
		strbuf_addf(&n.out, "# %d label%s left out: the file would pass NFD's %d-byte limit\n",
			    n.left_out, n.left_out == 1 ? "" : "s", NFD_FILE_MAX);
	fputs(n.out.buf, fp);
	strbuf_release(&n.out);
}
