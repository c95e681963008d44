/* audit/check-observe.c - observing facts for each check (no I/O: the fact tree) */
#include "config.h"
#include "audit/check-observe.h"
#include "lib/facts.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <hwloc.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*** Observing facts (no I/O: everything comes from the fact tree) ***/

static const cJSON *fact(struct obs *o, const cJSON *root, const char *path)
{
	if (o->npaths < ARRAY_SIZE(o->paths))
		o->paths[o->npaths++] = path;
	return facts_get(root, path);
}

static void unknown(struct obs *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void unknown(struct obs *o, const char *fmt, ...)
{
	va_list ap;
	o->state = OBS_UNKNOWN;
	if (!fmt)
		return;
	va_start(ap, fmt);
	free(o->reason);
	o->reason = xvasprintf(fmt, ap);
	va_end(ap);
}

static void skip(struct obs *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void skip(struct obs *o, const char *fmt, ...)
{
	va_list ap;
	o->state = OBS_SKIP;
	va_start(ap, fmt);
	free(o->reason);
	o->reason = xvasprintf(fmt, ap);
	va_end(ap);
}

static void detail(struct obs *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void detail(struct obs *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(o->detail);
	o->detail = xvasprintf(fmt, ap);
	va_end(ap);
}

/* Appends to the detail (which may be NULL). */
static void detail_add(struct obs *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void detail_add(struct obs *o, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	char *more;
	va_list ap;
	va_start(ap, fmt);
	more = xvasprintf(fmt, ap);
	va_end(ap);
	strbuf_addstr(&sb, o->detail ? o->detail : "");
	strbuf_addstr(&sb, more);
	free(more);
	free(o->detail);
	o->detail = strbuf_detach(&sb);
}

static void value_str(struct obs *o, const char *s)
{
	o->state = OBS_VALUE;
	o->value = cJSON_CreateString(s);
}

static void value_num(struct obs *o, double v)
{
	o->state = OBS_VALUE;
	o->value = cJSON_CreateNumber(v);
}

static void value_bool(struct obs *o, int b)
{
	o->state = OBS_VALUE;
	o->value = cJSON_CreateBool(b);
}

/* Unknown (reason filled in from the gaps later) unless item is a number. */
static int num_or_unknown(struct obs *o, const cJSON *item, double *v)
{
	if (!cJSON_IsNumber(item)) {
		unknown(o, NULL);
		return 0;
	}
	*v = item->valuedouble;
	return 1;
}

/* An integer fact as text ("?" when it is no integer from lo to hi): a
 * detail never shows a wrapped number. */
static const char *int_text(const cJSON *v, long long lo, long long hi, char *buf, size_t n)
{
	long long x;
	if (fj_int(v, lo, hi, &x) <= 0)
		return "?";
	snprintf(buf, n, "%lld", x);
	return buf;
}

static int node_count(const cJSON *root)
{
	const cJSON *n = facts_get(root, "numa.node_count");
	long long c;
	if (fj_int(n, 0, SR_MAX_NODES, &c) > 0)
		return (int)c;
	n = facts_get(root, "numa.nodes");
	return cJSON_IsArray(n) ? cJSON_GetArraySize(n) : -1;
}

void obs_cpu_smt(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *a = fact(o, root, "cpu.smt.active");
	const cJSON *t = facts_get(root, "cpu.smt.threads_per_core");
	const cJSON *c = facts_get(root, "cpu.smt.control");
	char tb[24];
	(void)key;
	if (!cJSON_IsBool(a))
		return unknown(o, NULL);
	value_str(o, cJSON_IsTrue(a) ? "on" : "off");
	if (cJSON_IsNumber(t) || cJSON_IsString(c)) {
		char tn[48];
		if (cJSON_IsNumber(t))
			snprintf(tn, sizeof(tn), "%s thread%s per core", int_text(t, 1, 1024, tb, sizeof(tb)),
				 t->valuedouble == 1 ? "" : "s");
		else
			snprintf(tn, sizeof(tn), "threads per core unknown");
		detail(o, "%s, control %s", tn, cJSON_IsString(c) ? c->valuestring : "unknown");
	}
}

void obs_cpu_governor(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *g = fact(o, root, "kernel.governor");
	(void)key;
	if (!cJSON_IsString(g))
		g = fact(o, root, "kernel.cpufreq.governor");
	if (!cJSON_IsString(g))
		return unknown(o, NULL);   /* the probe's gap says why (live or a capture) */
	value_str(o, g->valuestring);
}

void obs_cpu_isa(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *isa = fact(o, root, "cpu.isa");
	(void)key;
	if (!cJSON_IsArray(isa))
		return unknown(o, NULL);
	o->state = OBS_VALUE;
	o->value = cJSON_Duplicate(isa, 1);
	if (!cJSON_GetArraySize(isa))   /* an Observed value to show: "none", and said */
		detail(o, "this CPU reports none of the instruction sets inference kernels use "
			  "(cpu.isa lists those it has)");
}

void obs_cpu_pcores(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *h = fact(o, root, "cpu.hybrid"), *kinds, *k;
	(void)key;
	if (cJSON_IsFalse(h))
		return skip(o, "not a hybrid CPU: every core is of one kind");
	if (!cJSON_IsTrue(h))
		return unknown(o, NULL);
	kinds = fact(o, root, "cpu.kinds");
	if (!cJSON_IsArray(kinds))
		return unknown(o, NULL);
	cJSON_ArrayForEach(k, kinds) {
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(k, "name");
		const cJSON *cores = cJSON_GetObjectItemCaseSensitive(k, "cores");
		const cJSON *cpus = cJSON_GetObjectItemCaseSensitive(k, "cpus");
		if (cJSON_IsString(nm) && !strcmp(nm->valuestring, "performance")) {
			if (!cJSON_IsNumber(cores))
				return unknown(o, "cpu.kinds: the performance kind has no core count");
			value_num(o, cores->valuedouble);
			if (cJSON_IsString(cpus))
				detail(o, "P-cores on CPUs %s", cpus->valuestring);
			return;
		}
	}
	value_num(o, 0);
	detail(o, "hybrid CPU with no online performance cores");
}

static void obs_num(const cJSON *root, const char *path, struct obs *o)
{
	double v;
	if (num_or_unknown(o, fact(o, root, path), &v))
		value_num(o, v);
}

void obs_cpu_max_mhz(const cJSON *root, const char *key, struct obs *o)
{
	(void)key;
	obs_num(root, "cpu.max_mhz", o);
}

void obs_host_virt(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *v = fact(o, root, "host.virtualized");
	const cJSON *h = facts_get(root, "host.hypervisor");
	(void)key;
	if (!cJSON_IsBool(v))
		return unknown(o, NULL);
	value_bool(o, cJSON_IsTrue(v));
	if (cJSON_IsTrue(v) && cJSON_IsString(h))
		detail(o, "hypervisor %s", h->valuestring);
}

void obs_numa_balancing(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *b = fact(o, root, "kernel.numa_balancing");
	const cJSON *sys = facts_get(root, "kernel.sysctl");
	(void)key;
	if (node_count(root) == 1)
		return skip(o, "one NUMA node: balancing has nothing to move");
	if (cJSON_IsString(b))
		return value_str(o, !strcmp(b->valuestring, "off") || !strcmp(b->valuestring, "0") ?
				 "off" : "on");
	b = cJSON_GetObjectItemCaseSensitive(sys, "kernel.numa_balancing");
	if (cJSON_IsString(b)) {
		o->paths[o->npaths++] = "kernel.sysctl.\"kernel.numa_balancing\"";
		value_str(o, !strcmp(b->valuestring, "0") ? "off" : "on");
		detail(o, "kernel.numa_balancing = %s", b->valuestring);
		return;
	}
	unknown(o, NULL);
}

void obs_numa_mem_balanced(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *nodes = fact(o, root, "numa.nodes"), *n;
	double lo = 0, hi = 0;
	int count = 0;
	char buf[32], ib[24];
	struct strbuf sb = STRBUF_INIT;
	(void)key;
	if (!cJSON_IsArray(nodes))
		return unknown(o, NULL);
	cJSON_ArrayForEach(n, nodes) {
		const cJSON *cpus = cJSON_GetObjectItemCaseSensitive(n, "cpus");
		const cJSON *cc = cJSON_GetObjectItemCaseSensitive(n, "cpu_count");
		const cJSON *mem = cJSON_GetObjectItemCaseSensitive(n, "memory_bytes");
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(n, "id");
		/* CPU-less nodes (CXL, HBM, PMEM) are tiers, not peers: leave them out. */
		if ((cJSON_IsNumber(cc) && cc->valuedouble == 0) ||
		    (cJSON_IsString(cpus) && !*cpus->valuestring))
			continue;
		if (!cJSON_IsNumber(mem)) {
			strbuf_release(&sb);
			return unknown(o, NULL);
		}
		if (!count || mem->valuedouble < lo)
			lo = mem->valuedouble;
		if (!count || mem->valuedouble > hi)
			hi = mem->valuedouble;
		strbuf_addf(&sb, "%snode %s: %s", count ? ", " : "", int_text(id, 0, SR_MAX_NODES - 1, ib, sizeof(ib)),
			    human_bytes(mem->valuedouble, buf, sizeof(buf)));
		count++;
	}
	if (count < 2) {
		strbuf_release(&sb);
		return skip(o, "fewer than two NUMA nodes with CPUs");
	}
	value_num(o, hi > 0 ? lo / hi : 0);
	detail(o, "%s", sb.buf);
	strbuf_release(&sb);
}

void obs_memory_ecc(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *m = fact(o, root, "memory.ecc.mode");
	const cJSON *src = facts_get(root, "memory.ecc.source");
	const char *v;
	(void)key;
	if (!cJSON_IsString(m))
		return unknown(o, NULL);
	v = m->valuestring;
	if (!strcmp(v, "none") || !strcmp(v, "parity"))
		value_str(o, "off");
	else if (!strcmp(v, "single-bit") || !strcmp(v, "multi-bit") || !strcmp(v, "crc") ||
		 !strcmp(v, "ecc"))
		value_str(o, "on");
	else
		return unknown(o, "memory.ecc.mode is '%s'", v);
	detail(o, "%s%s%s", v, cJSON_IsString(src) ? ", from " : "",
	       cJSON_IsString(src) ? src->valuestring : "");
}

void obs_memory_ecc_errors(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *u = fact(o, root, "memory.ecc.uncorrected_errors");
	const cJSON *c = facts_get(root, "memory.ecc.corrected_errors");
	(void)key;
	if (!cJSON_IsNumber(u))
		return unknown(o, NULL);
	value_num(o, u->valuedouble);
	if (cJSON_IsNumber(c))
		detail(o, "%.0f uncorrected, %.0f corrected since boot", u->valuedouble, c->valuedouble);
}

static void obs_ratio(const cJSON *root, const char *num, const char *den, struct obs *o)
{
	double a, b;
	const cJSON *x = fact(o, root, num), *y = fact(o, root, den);
	if (!num_or_unknown(o, x, &a) || !num_or_unknown(o, y, &b))
		return;
	if (b <= 0)
		return unknown(o, "%s is %g", den, b);
	value_num(o, a / b);
	detail(o, "%g of %g", a, b);
}

/* Append "; empty: P2-DIMMD1 (package 1, channel D), ..." for the channels
 * without a DIMM, by their slots' locators. */
static void empty_slots_detail(const cJSON *root, struct obs *o)
{
	const cJSON *list = facts_get(root, "memory.channels.list"), *ch, *loc;
	int n = 0;
	cJSON_ArrayForEach(ch, list) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(ch, "dimms");
		const cJSON *pk = cJSON_GetObjectItemCaseSensitive(ch, "package");
		const char *name = fj_get_str(ch, "name");
		if (!cJSON_IsNumber(d) || d->valuedouble > 0)
			continue;
		cJSON_ArrayForEach(loc, cJSON_GetObjectItemCaseSensitive(ch, "empty_slots")) {
			char pb[24];
			if (!cJSON_IsString(loc))
				continue;
			/* Every slot, whole: a two-socket board lists tens of them. */
			if (cJSON_IsNumber(pk))
				detail_add(o, "%s%s (package %s, channel %s)", n++ ? ", " : "; empty: ",
					   loc->valuestring, int_text(pk, 0, 1 << 20, pb, sizeof(pb)), name ? name : "?");
			else
				detail_add(o, "%s%s (channel %s)", n++ ? ", " : "; empty: ",
					   loc->valuestring, name ? name : "?");
		}
	}
}

void obs_mem_channels_ratio(const cJSON *root, const char *key, struct obs *o)
{
	(void)key;
	obs_ratio(root, "memory.channels.populated", "memory.channels.total", o);
	if (o->state == OBS_VALUE) {
		detail_add(o, " channels populated");
		empty_slots_detail(root, o);
	}
}

void obs_mem_channels_balanced(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *b = fact(o, root, "memory.channels.balanced");
	(void)key;
	if (!cJSON_IsBool(b))
		return unknown(o, NULL);
	value_bool(o, cJSON_IsTrue(b));
	if (cJSON_IsFalse(b)) {
		empty_slots_detail(root, o);
		if (o->detail && o->detail[0] == ';')
			memmove(o->detail, o->detail + 2, strlen(o->detail + 2) + 1);
	}
}

void obs_mem_speed_ratio(const cJSON *root, const char *key, struct obs *o)
{
	(void)key;
	obs_ratio(root, "memory.speed.configured_mts", "memory.speed.rated_mts", o);
	if (o->state == OBS_VALUE)
		detail_add(o, " MT/s (configured of rated)");
}

void obs_mem_per_core(const cJSON *root, const char *key, struct obs *o)
{
	double a, b;
	char buf[32];
	(void)key;
	if (!num_or_unknown(o, fact(o, root, "memory.total_bytes"), &a) ||
	    !num_or_unknown(o, fact(o, root, "cpu.cores"), &b))
		return;
	if (b <= 0)
		return unknown(o, "cpu.cores is %g", b);
	value_num(o, floor(a / b));
	detail(o, "%s per core (%g core%s)", human_bytes(a / b, buf, sizeof(buf)), b, b == 1 ? "" : "s");
}

/* The devices of a PCI list, or a skip/unknown. */
static const cJSON *pci_list(const cJSON *root, const char *path, const char *what, struct obs *o)
{
	const cJSON *l = fact(o, root, path);
	if (!cJSON_IsArray(l)) {
		unknown(o, NULL);
		return NULL;
	}
	if (cJSON_GetArraySize(l) == 0) {
		skip(o, "no %s found", what);
		return NULL;
	}
	return l;
}

static const char *bdf(const cJSON *d)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(d, "bdf");
	return cJSON_IsString(b) ? b->valuestring : "?";
}

/* Lowest current/max over the devices of sub ("width" or "speed_gts"). */
static void obs_link(const cJSON *root, const char *path, const char *what, const char *sub,
		     struct obs *o)
{
	const cJSON *l = pci_list(root, path, what, o), *d;
	double worst = 2;
	int n = 0;
	if (!l)
		return;
	cJSON_ArrayForEach(d, l) {
		const cJSON *cur = facts_get(d, sub[0] == 'w' ? "link.width.current" : "link.speed_gts.current");
		const cJSON *max = facts_get(d, sub[0] == 'w' ? "link.width.max" : "link.speed_gts.max");
		double r;
		const cJSON *slot = sub[0] == 'w' ? facts_get(d, "upstream.width_max") : NULL;
		double want;
		if (!cJSON_IsNumber(cur) || !cJSON_IsNumber(max) || max->valuedouble <= 0)
			return unknown(o, "%s: link %s not known", bdf(d), sub[0] == 'w' ? "width" : "speed");
		/* Width: against what the slot allows (a x16 card in a slot
		 * wired x8 is as wide as it can be), when the port is known. */
		want = max->valuedouble;
		if (cJSON_IsNumber(slot) && slot->valuedouble > 0 && slot->valuedouble < want)
			want = slot->valuedouble;
		r = cur->valuedouble / want;
		if (r < worst) {
			worst = r;
			if (sub[0] == 'w' && want < max->valuedouble)
				detail(o, "%s: x%g of the x%g its slot allows (the card can do x%g)", bdf(d),
				       cur->valuedouble, want, max->valuedouble);
			else if (sub[0] == 'w')
				detail(o, "%s: x%g of x%g", bdf(d), cur->valuedouble, max->valuedouble);
			else
				detail(o, "%s: %g of %g GT/s (links slow down at idle: re-check under load)",
				       bdf(d), cur->valuedouble, max->valuedouble);
		}
		n++;
	}
	value_num(o, worst);
	(void)n;
}

void obs_acc_width(const cJSON *root, const char *key, struct obs *o)
{
	(void)key;
	obs_link(root, "pci.accelerators", "accelerators", "width", o);
}

void obs_acc_speed(const cJSON *root, const char *key, struct obs *o)
{
	(void)key;
	obs_link(root, "pci.accelerators", "accelerators", "speed", o);
}

void obs_nic_link(const cJSON *root, const char *key, struct obs *o)
{
	(void)key;
	obs_link(root, "pci.nics", "network controllers", "width", o);
}

/* The priorities (0-7) of a list as a set. */
static hwloc_bitmap_t prio_set(const cJSON *l)
{
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	const cJSON *it;
	cJSON_ArrayForEach(it, l)
		if (cJSON_IsNumber(it) && it->valuedouble >= 0 && it->valuedouble <= 7)
			hwloc_bitmap_set(s, (unsigned)it->valuedouble);
	return s;
}

/* "0-7", "3", "0,2-3" (hwloc's list syntax), or "none". */
static const char *prio_text(hwloc_const_bitmap_t s, char *buf, size_t n)
{
	if (hwloc_bitmap_iszero(s))
		return "none";
	hwloc_bitmap_list_snprintf(buf, n, s);
	return buf;
}

/* Every port that has RoCE ECN settings has ECN on at both ends (the
 * notification and the reaction point) for at least one priority. */
void obs_nic_roce_ecn(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *l = pci_list(root, "pci.nics", "network controllers", o), *d;
	int ports = 0, ok = 1;
	const char *unread = NULL;   /* a port whose settings could not be read */
	hwloc_bitmap_t ns, rs;
	char np[24], rp[24];
	(void)key;
	if (!l)
		return;
	cJSON_ArrayForEach(d, l) {
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(d, "roce_ecn");
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "np"), *r = cJSON_GetObjectItemCaseSensitive(e, "rp");
		const char *ifn = fj_get_str(d, "interface");
		if (!e)
			continue;
		ports++;
		if (!cJSON_IsArray(n) || !cJSON_IsArray(r)) {
			if (!unread)
				unread = bdf(d);
			continue;
		}
		ns = prio_set(n);
		rs = prio_set(r);
		if (ok && !hwloc_bitmap_intersects(ns, rs)) {
			ok = 0;
			detail(o, "%s: %s has ECN on no priority at both ends (notification point: %s; reaction "
			       "point: %s)", bdf(d), ifn ? ifn : "its port", prio_text(ns, np, sizeof(np)),
			       prio_text(rs, rp, sizeof(rp)));
		} else if (ok && !o->detail)
			detail(o, "%s: %s has ECN on priorities %s (notification point) and %s (reaction point)",
			       bdf(d), ifn ? ifn : "its port", prio_text(ns, np, sizeof(np)), prio_text(rs, rp, sizeof(rp)));
		hwloc_bitmap_free(ns);
		hwloc_bitmap_free(rs);
	}
	if (!ports)
		return skip(o, "no network controller has RoCE ECN settings (/sys/class/net/IF/ecn/: NVIDIA "
			    "mlx5 with its MLNX_OFED driver)");
	if (ok && unread) {   /* a port that fails decides it; else one unread leaves it open */
		free(o->detail);
		o->detail = NULL;
		return unknown(o, "%s: its RoCE ECN settings could not be read", unread);
	}
	value_bool(o, ok);
}

void obs_acc_numa_known(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *l, *d;
	(void)key;
	if (node_count(root) == 1)
		return skip(o, "one NUMA node: every device is local");
	if (!(l = pci_list(root, "pci.accelerators", "accelerators", o)))
		return;
	cJSON_ArrayForEach(d, l) {
		const cJSON *nn = cJSON_GetObjectItemCaseSensitive(d, "numa_node");
		if (!nn)
			return unknown(o, "%s: numa_node not reported", bdf(d));
		if (!cJSON_IsNumber(nn) || nn->valuedouble < 0) {
			value_bool(o, 0);
			detail(o, "%s: the firmware does not say which NUMA node it sits on", bdf(d));
			return;
		}
	}
	value_bool(o, 1);
}

void obs_acc_numa_local(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *l, *d;
	(void)key;
	if (!(l = pci_list(root, "pci.accelerators", "accelerators", o)))
		return;
	fact(o, root, "numa.nodes");
	cJSON_ArrayForEach(d, l) {
		const cJSON *lc = cJSON_GetObjectItemCaseSensitive(d, "local_cpus");
		const cJSON *nn = cJSON_GetObjectItemCaseSensitive(d, "numa_node");
		if (!cJSON_IsString(lc))
			return unknown(o, "%s: local_cpus not known", bdf(d));
		if (!*lc->valuestring) {
			value_bool(o, 0);
			detail(o, "%s: no CPU is local to it", bdf(d));
			return;
		}
		if (cJSON_IsNumber(nn) && nn->valuedouble >= 0) {
			const cJSON *nodes = facts_get(root, "numa.nodes"), *n;
			cJSON_ArrayForEach(n, nodes) {
				const cJSON *id = cJSON_GetObjectItemCaseSensitive(n, "id");
				const cJSON *cpus = cJSON_GetObjectItemCaseSensitive(n, "cpus");
				long long a, b;
				if (fj_int(id, 0, SR_MAX_NODES - 1, &a) > 0 && fj_int(nn, 0, SR_MAX_NODES - 1, &b) > 0 &&
				    a == b && cJSON_IsString(cpus) && !*cpus->valuestring) {
					value_bool(o, 0);
					detail(o, "%s: on NUMA node %lld, which has no CPUs", bdf(d), b);
					return;
				}
			}
		}
	}
	value_bool(o, 1);
}

void obs_acc_uplink(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *l, *d;
	(void)key;
	if (!(l = pci_list(root, "pci.accelerators", "accelerators", o)))
		return;
	cJSON_ArrayForEach(d, l) {
		const cJSON *su = cJSON_GetObjectItemCaseSensitive(d, "shared_uplink");
		const cJSON *ov = cJSON_GetObjectItemCaseSensitive(su, "oversubscribed");
		if (!su)
			return unknown(o, "%s: shared_uplink not reported", bdf(d));
		if (cJSON_IsNull(su))
			continue;   /* alone behind its port */
		if (!cJSON_IsBool(ov))
			return unknown(o, "%s: shared_uplink.oversubscribed not known", bdf(d));
		if (cJSON_IsTrue(ov)) {
			const cJSON *up = cJSON_GetObjectItemCaseSensitive(su, "bdf");
			const cJSON *devs = cJSON_GetObjectItemCaseSensitive(su, "devices");
			value_bool(o, 1);
			{
				int nd = cJSON_IsArray(devs) ? cJSON_GetArraySize(devs) - 1 : 0;
				detail(o, "%s shares uplink %s with %d device%s that together need more than it "
				       "carries", bdf(d), cJSON_IsString(up) ? up->valuestring : "?", nd,
				       nd == 1 ? "" : "s");
			}
			return;
		}
	}
	value_bool(o, 0);
}

/* Whether every accelerator has a NIC inside its own switch (pci.matrix). */
void obs_acc_nic_switch(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *m, *info, *pairs, *paths, *d, *p, *nics;
	int na = 0, nn = 0, i = 0;
	(void)key;
	if (!pci_list(root, "pci.accelerators", "accelerators", o))
		return;
	nics = fact(o, root, "pci.nics");
	if (cJSON_IsArray(nics) && cJSON_GetArraySize(nics) == 0)
		return skip(o, "no network controllers found");
	m = fact(o, root, "pci.matrix");
	fact(o, root, "pci.matrix.switch_pairs");
	if (!cJSON_IsObject(m))
		return unknown(o, NULL);
	info = cJSON_GetObjectItemCaseSensitive(m, "info");
	pairs = cJSON_GetObjectItemCaseSensitive(m, "switch_pairs");
	paths = cJSON_GetObjectItemCaseSensitive(m, "paths");
	if (!cJSON_IsArray(info) || !cJSON_IsArray(pairs))
		return unknown(o, "pci.matrix has no info or switch_pairs");
	cJSON_ArrayForEach(d, info) {
		const char *k = fj_get_str(d, "kind");
		na += k && !strcmp(k, "accelerator");
		nn += k && !strcmp(k, "nic");
	}
	if (!na)
		return skip(o, "no accelerators found");
	if (!nn)
		return skip(o, "no network controllers found");
	cJSON_ArrayForEach(d, info) {
		const char *k = fj_get_str(d, "kind"), *b = fj_get_str(d, "bdf");
		int found = 0, j = 0;
		const char *best = NULL;
		static const char *const order[] = { "PIX", "PXB", "PHB", "NODE", "SYS" };
		const cJSON *e;
		if (!k || strcmp(k, "accelerator") || !b) {
			i++;
			continue;
		}
		cJSON_ArrayForEach(p, pairs)
			found |= fj_get_str(p, "accelerator") && !strcmp(fj_get_str(p, "accelerator"), b);
		if (!found) {
			/* The nearest NIC it has, in nvidia-smi's terms. */
			cJSON_ArrayForEach(e, info) {
				const cJSON *c = cJSON_GetArrayItem(cJSON_GetArrayItem(paths, i), j++);
				size_t r, rb;
				if (!fj_get_str(e, "kind") || strcmp(fj_get_str(e, "kind"), "nic") || !cJSON_IsString(c))
					continue;
				for (r = 0; r < ARRAY_SIZE(order) && strcmp(order[r], c->valuestring); r++)
					;
				for (rb = 0; best && rb < ARRAY_SIZE(order) && strcmp(order[rb], best); rb++)
					;
				if (r < ARRAY_SIZE(order) && (!best || r < rb))
					best = order[r];
			}
			value_bool(o, 0);
			detail(o, "%s: no NIC inside its switch (the nearest NIC: %s)", b,
			       best ? best : "unknown, a NUMA node is not reported");
			return;
		}
		i++;
	}
	value_bool(o, 1);
	detail(o, "every accelerator shares a switch with a NIC (%d pair%s)", cJSON_GetArraySize(pairs),
	       cJSON_GetArraySize(pairs) == 1 ? "" : "s");
}

/* What the port above each accelerator can carry over what the card can use. */
void obs_acc_uplink_ratio(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *l, *d;
	double worst = -1;
	(void)key;
	if (!(l = pci_list(root, "pci.accelerators", "accelerators", o)))
		return;
	cJSON_ArrayForEach(d, l) {
		const cJSON *uw = facts_get(d, "upstream.width_max"), *us = facts_get(d, "upstream.speed_gts_max");
		const cJSON *w = facts_get(d, "link.width.max"), *sp = facts_get(d, "link.speed_gts.max");
		double r;
		if (!cJSON_IsNumber(uw) || !cJSON_IsNumber(us) || !cJSON_IsNumber(w) || !cJSON_IsNumber(sp) ||
		    w->valuedouble * sp->valuedouble <= 0)
			return unknown(o, "%s: upstream port or link capability not known", bdf(d));
		r = uw->valuedouble * us->valuedouble / (w->valuedouble * sp->valuedouble);
		if (worst < 0 || r < worst) {
			worst = r;
			detail(o, "%s: upstream x%g at %g GT/s for a x%g %g GT/s device", bdf(d), uw->valuedouble,
			       us->valuedouble, w->valuedouble, sp->valuedouble);
		}
	}
	value_num(o, worst);
}

void obs_sysctl(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(facts_get(root, "kernel.sysctl"), key);
	free(o->keypath);
	o->keypath = xasprintf("kernel.sysctl.\"%s\"", key);
	o->paths[o->npaths++] = o->keypath;
	if (cJSON_IsString(s))
		return value_str(o, s->valuestring);
	if (cJSON_IsNumber(s)) {
		char buf[64];
		snprintf(buf, sizeof(buf), "%.15g", s->valuedouble);
		return value_str(o, buf);
	}
	unknown(o, NULL);
}

void obs_cmdline(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *params = fact(o, root, "kernel.cmdline.params"), *v;
	if (!cJSON_IsObject(params))
		return unknown(o, NULL);
	v = cJSON_GetObjectItemCaseSensitive(params, key);
	if (!v)
		return value_str(o, "(unset)");
	if (cJSON_IsString(v))
		return value_str(o, v->valuestring);
	if (cJSON_IsNumber(v)) {
		char buf[64];
		snprintf(buf, sizeof(buf), "%.15g", v->valuedouble);
		return value_str(o, buf);
	}
	value_str(o, "");   /* a flag without a value ("nosmt") */
}

void obs_thp(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *e = fact(o, root, "kernel.thp.enabled");
	const cJSON *d = facts_get(root, "kernel.thp.defrag");
	(void)key;
	if (!cJSON_IsString(e))
		return unknown(o, NULL);
	value_str(o, e->valuestring);
	if (cJSON_IsString(d))
		detail(o, "defrag %s", d->valuestring);
}

void obs_swap(const cJSON *root, const char *key, struct obs *o)
{
	char buf[32];
	(void)key;
	obs_num(root, "kernel.swap.total_bytes", o);
	if (o->state == OBS_VALUE)
		detail(o, "%s of swap", human_bytes(o->value->valuedouble, buf, sizeof(buf)));
}

void obs_hugepages(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *nodes = facts_get(root, "kernel.hugepages.nodes"), *n;
	char buf[32];
	(void)key;
	obs_num(root, "kernel.hugepages.total_bytes", o);
	if (o->state != OBS_VALUE)
		return;
	detail(o, "%s reserved in explicit huge pages", human_bytes(o->value->valuedouble, buf, sizeof(buf)));
	/* Reserved on one node only, a worker pinned elsewhere cannot use them. */
	if (cJSON_GetArraySize(nodes) > 1) {
		double lo = -1, hi = 0;
		cJSON_ArrayForEach(n, nodes) {
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(n, "total_bytes");
			if (!cJSON_IsNumber(t))
				return;
			if (lo < 0 || t->valuedouble < lo)
				lo = t->valuedouble;
			if (t->valuedouble > hi)
				hi = t->valuedouble;
		}
		if (hi > 0 && lo < hi)
			detail_add(o, "; not the same on every NUMA node");
	}
}

void obs_bench_efficiency(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *b = facts_get(root, "bench");
	const cJSON *bw = facts_get(root, "bench.bandwidth.bytes_per_s");
	const cJSON *peak = facts_get(root, "bench.peak_bytes_per_s");
	char a[32], p[32];
	(void)key;
	if (!b)
		return skip(o, "not measured: run 'nodeaudit check --bench'");
	if (!cJSON_IsNumber(facts_get(root, "bench.efficiency")) && !cJSON_IsNumber(peak)) {
		if (cJSON_IsNumber(bw))   /* the figure is still worth seeing without the peak */
			return unknown(o, "%s/s measured, but the theoretical peak is unknown (no DIMM "
				       "speeds and channels: see memory.bandwidth), so it cannot be "
				       "compared with it", human_bytes(bw->valuedouble, a, sizeof(a)));
		return unknown(o, "the theoretical peak is unknown (no DIMM speeds and channels: see "
			       "memory.bandwidth), so measured bandwidth cannot be compared with it");
	}
	obs_num(root, "bench.efficiency", o);
	if (o->state == OBS_VALUE && cJSON_IsNumber(bw) && cJSON_IsNumber(peak))
		detail(o, "%s/s measured of %s/s theoretical", human_bytes(bw->valuedouble, a, sizeof(a)),
		       human_bytes(peak->valuedouble, p, sizeof(p)));
}

/* The CPUs a plan puts workers on: the first online thread of each core. */
static int plan_cpus(const cJSON *root, struct obs *o, hwloc_bitmap_t out, int *cores)
{
	const cJSON *list = fact(o, root, "cpu.core_cpus"), *it;
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	hwloc_bitmap_zero(out);
	*cores = 0;
	cJSON_ArrayForEach(it, list) {
		if (!cJSON_IsString(it) || parse_cpulist(it->valuestring, s) < 0 || hwloc_bitmap_iszero(s))
			continue;
		hwloc_bitmap_set(out, (unsigned)hwloc_bitmap_first(s));
		(*cores)++;
	}
	hwloc_bitmap_free(s);
	return *cores > 0;
}

void obs_process_cpuset(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *cs = fact(o, root, "process.cgroup.cpuset_cpus");
	hwloc_bitmap_t want = hwloc_bitmap_alloc(), have = hwloc_bitmap_alloc(), miss = hwloc_bitmap_alloc();
	int cores;
	(void)key;
	if (!cJSON_IsString(cs) || parse_cpulist(cs->valuestring, have) < 0)
		unknown(o, NULL);
	else if (!plan_cpus(root, o, want, &cores))
		unknown(o, "the physical cores (cpu.core_cpus) are unknown, so the plan's CPUs are");
	else {
		char *l;
		hwloc_bitmap_andnot(miss, want, have);
		l = cpulist_dup(hwloc_bitmap_iszero(miss) ? want : miss);
		value_bool(o, hwloc_bitmap_iszero(miss));
		if (!hwloc_bitmap_iszero(miss))
			detail(o, "the cgroup's cpuset is %s: CPUs %s of the plan's one thread per core are "
			       "outside it", cs->valuestring, l);
		else
			detail(o, "cpuset %s holds the plan's %s", cs->valuestring, l);
		free(l);
	}
	hwloc_bitmap_free(want);
	hwloc_bitmap_free(have);
	hwloc_bitmap_free(miss);
}

void obs_process_quota(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *q = fact(o, root, "process.cgroup.cpu_quota_cpus");
	hwloc_bitmap_t want = hwloc_bitmap_alloc();
	int cores;
	(void)key;
	if (cJSON_IsString(q) && !strcmp(q->valuestring, "unlimited")) {
		value_bool(o, 1);
		detail(o, "no CPU quota (cpu.max is max)");
	} else if (!cJSON_IsNumber(q))
		unknown(o, NULL);
	else if (!plan_cpus(root, o, want, &cores))
		unknown(o, "the physical cores (cpu.core_cpus) are unknown, so the plan's threads are");
	else {
		value_bool(o, q->valuedouble >= cores);
		detail(o, "a CPU quota of %.2f CPUs for the plan's %d threads (one per core)%s",
		       q->valuedouble, cores, q->valuedouble >= cores ? "" : ": the workers are throttled");
	}
	hwloc_bitmap_free(want);
}

void obs_process_memlock(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *m = fact(o, root, "process.limits.memlock.soft");
	char a[32];
	(void)key;
	if (cJSON_IsString(m) && !strcmp(m->valuestring, "unlimited")) {
		/* RLIM_INFINITY: above any minimum a profile can set. */
		value_num(o, 18446744073709551615.0);
		detail(o, "unlimited");
	} else if (cJSON_IsNumber(m)) {
		value_num(o, m->valuedouble);
		detail(o, "RLIMIT_MEMLOCK %s", human_bytes(m->valuedouble, a, sizeof(a)));
	} else
		unknown(o, NULL);
}

void obs_process_numa_calls(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *g = fact(o, root, "process.mempolicy.get_mempolicy");
	const cJSON *s = fact(o, root, "process.mempolicy.set_mempolicy");
	(void)key;
	if (!cJSON_IsString(g) || !cJSON_IsString(s))
		return unknown(o, NULL);
	if (!strcmp(g->valuestring, "unsupported") || !strcmp(s->valuestring, "unsupported"))
		return skip(o, "this kernel has no NUMA system calls (ENOSYS): nothing to bind");
	value_bool(o, !strcmp(g->valuestring, "allowed") && !strcmp(s->valuestring, "allowed"));
	detail(o, "get_mempolicy %s, set_mempolicy %s", g->valuestring, s->valuestring);
}

void check_observe(const struct check *c, const cJSON *root, const char *key, struct obs *o)
{
	memset(o, 0, sizeof(*o));
	o->state = OBS_UNKNOWN;
	c->observe(root, key, o);
}

void obs_release(struct obs *o)
{
	cJSON_Delete(o->value);
	o->value = NULL;
	free(o->keypath);
	o->keypath = NULL;
	free(o->detail);
	o->detail = NULL;
	free(o->reason);
	o->reason = NULL;
}
