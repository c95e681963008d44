/* audit/checks.c - the check catalog and the engine: facts + profile -> findings */
#include "config.h"
#include "audit/checks.h"
#include "audit/profile.h"
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
	vsnprintf(o->reason, sizeof(o->reason), fmt, ap);
	va_end(ap);
}

static void skip(struct obs *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void skip(struct obs *o, const char *fmt, ...)
{
	va_list ap;
	o->state = OBS_SKIP;
	va_start(ap, fmt);
	vsnprintf(o->reason, sizeof(o->reason), fmt, ap);
	va_end(ap);
}

static void detail(struct obs *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void detail(struct obs *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->detail, sizeof(o->detail), fmt, ap);
	va_end(ap);
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

static int node_count(const cJSON *root)
{
	const cJSON *n = facts_get(root, "numa.node_count");
	if (cJSON_IsNumber(n))
		return n->valueint;
	n = facts_get(root, "numa.nodes");
	return cJSON_IsArray(n) ? cJSON_GetArraySize(n) : -1;
}

static void obs_cpu_smt(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *a = fact(o, root, "cpu.smt.active");
	const cJSON *t = facts_get(root, "cpu.smt.threads_per_core");
	const cJSON *c = facts_get(root, "cpu.smt.control");
	(void)key;
	if (!cJSON_IsBool(a))
		return unknown(o, NULL);
	value_str(o, cJSON_IsTrue(a) ? "on" : "off");
	if (cJSON_IsNumber(t) || cJSON_IsString(c))
		detail(o, "%d thread(s) per core, control %s", cJSON_IsNumber(t) ? t->valueint : 0,
		       cJSON_IsString(c) ? c->valuestring : "unknown");
}

static void obs_cpu_governor(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *g = fact(o, root, "kernel.governor");
	(void)key;
	if (!cJSON_IsString(g))
		g = fact(o, root, "kernel.cpufreq.governor");
	if (!cJSON_IsString(g))
		return unknown(o, NULL);   /* the probe's gap says why (live or a capture) */
	value_str(o, g->valuestring);
}

static void obs_cpu_isa(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *isa = fact(o, root, "cpu.isa");
	(void)key;
	if (!cJSON_IsArray(isa))
		return unknown(o, NULL);
	o->state = OBS_VALUE;
	o->value = cJSON_Duplicate(isa, 1);
}

static void obs_cpu_pcores(const cJSON *root, const char *key, struct obs *o)
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

static void obs_cpu_max_mhz(const cJSON *root, const char *key, struct obs *o)
{
	(void)key;
	obs_num(root, "cpu.max_mhz", o);
}

static void obs_host_virt(const cJSON *root, const char *key, struct obs *o)
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

static void obs_numa_balancing(const cJSON *root, const char *key, struct obs *o)
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

static void obs_numa_mem_balanced(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *nodes = fact(o, root, "numa.nodes"), *n;
	double lo = 0, hi = 0;
	int count = 0;
	char buf[32];
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
		strbuf_addf(&sb, "%snode %d: %s", count ? ", " : "", cJSON_IsNumber(id) ? id->valueint : -1,
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

static void obs_memory_ecc(const cJSON *root, const char *key, struct obs *o)
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

static void obs_memory_ecc_errors(const cJSON *root, const char *key, struct obs *o)
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
	size_t len = strlen(o->detail);
	int n = 0;
	cJSON_ArrayForEach(ch, list) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(ch, "dimms");
		const cJSON *pk = cJSON_GetObjectItemCaseSensitive(ch, "package");
		const char *name = fj_get_str(ch, "name");
		if (!cJSON_IsNumber(d) || d->valuedouble > 0)
			continue;
		cJSON_ArrayForEach(loc, cJSON_GetObjectItemCaseSensitive(ch, "empty_slots")) {
			char part[160];
			if (!cJSON_IsString(loc))
				continue;
			if (cJSON_IsNumber(pk))
				snprintf(part, sizeof(part), "%s%s (package %d, channel %s)", n++ ? ", " : "; empty: ",
					 loc->valuestring, pk->valueint, name ? name : "?");
			else
				snprintf(part, sizeof(part), "%s%s (channel %s)", n++ ? ", " : "; empty: ",
					 loc->valuestring, name ? name : "?");
			if (len + strlen(part) + 1 < sizeof(o->detail)) {
				strcat(o->detail, part);
				len += strlen(part);
			}
		}
	}
}

static void obs_mem_channels_ratio(const cJSON *root, const char *key, struct obs *o)
{
	(void)key;
	obs_ratio(root, "memory.channels.populated", "memory.channels.total", o);
	if (o->state == OBS_VALUE) {
		strncat(o->detail, " channels populated", sizeof(o->detail) - strlen(o->detail) - 1);
		empty_slots_detail(root, o);
	}
}

static void obs_mem_channels_balanced(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *b = fact(o, root, "memory.channels.balanced");
	(void)key;
	if (!cJSON_IsBool(b))
		return unknown(o, NULL);
	value_bool(o, cJSON_IsTrue(b));
	if (cJSON_IsFalse(b)) {
		empty_slots_detail(root, o);
		if (o->detail[0] == ';')
			memmove(o->detail, o->detail + 2, strlen(o->detail + 2) + 1);
	}
}

static void obs_mem_speed_ratio(const cJSON *root, const char *key, struct obs *o)
{
	(void)key;
	obs_ratio(root, "memory.speed.configured_mts", "memory.speed.rated_mts", o);
	if (o->state == OBS_VALUE)
		strncat(o->detail, " MT/s (configured of rated)", sizeof(o->detail) - strlen(o->detail) - 1);
}

static void obs_mem_per_core(const cJSON *root, const char *key, struct obs *o)
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
	detail(o, "%s per core (%g cores)", human_bytes(a / b, buf, sizeof(buf)), b);
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

static void obs_acc_width(const cJSON *root, const char *key, struct obs *o)
{
	(void)key;
	obs_link(root, "pci.accelerators", "accelerators", "width", o);
}

static void obs_acc_speed(const cJSON *root, const char *key, struct obs *o)
{
	(void)key;
	obs_link(root, "pci.accelerators", "accelerators", "speed", o);
}

static void obs_nic_link(const cJSON *root, const char *key, struct obs *o)
{
	(void)key;
	obs_link(root, "pci.nics", "network controllers", "width", o);
}

static void obs_acc_numa_known(const cJSON *root, const char *key, struct obs *o)
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

static void obs_acc_numa_local(const cJSON *root, const char *key, struct obs *o)
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
				if (cJSON_IsNumber(id) && id->valueint == nn->valueint && cJSON_IsString(cpus) &&
				    !*cpus->valuestring) {
					value_bool(o, 0);
					detail(o, "%s: on NUMA node %d, which has no CPUs", bdf(d), nn->valueint);
					return;
				}
			}
		}
	}
	value_bool(o, 1);
}

static void obs_acc_uplink(const cJSON *root, const char *key, struct obs *o)
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
			detail(o, "%s shares uplink %s with %d device(s) that together need more than it carries",
			       bdf(d), cJSON_IsString(up) ? up->valuestring : "?",
			       cJSON_IsArray(devs) ? cJSON_GetArraySize(devs) - 1 : 0);
			return;
		}
	}
	value_bool(o, 0);
}

/* Whether every accelerator has a NIC inside its own switch (pci.matrix). */
static void obs_acc_nic_switch(const cJSON *root, const char *key, struct obs *o)
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
static void obs_acc_uplink_ratio(const cJSON *root, const char *key, struct obs *o)
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

static void obs_sysctl(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(facts_get(root, "kernel.sysctl"), key);
	snprintf(o->keypath, sizeof(o->keypath), "kernel.sysctl.\"%s\"", key);
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

static void obs_cmdline(const cJSON *root, const char *key, struct obs *o)
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

static void obs_thp(const cJSON *root, const char *key, struct obs *o)
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

static void obs_swap(const cJSON *root, const char *key, struct obs *o)
{
	char buf[32];
	(void)key;
	obs_num(root, "kernel.swap.total_bytes", o);
	if (o->state == OBS_VALUE)
		detail(o, "%s of swap", human_bytes(o->value->valuedouble, buf, sizeof(buf)));
}

static void obs_hugepages(const cJSON *root, const char *key, struct obs *o)
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
			strncat(o->detail, "; not the same on every NUMA node",
				sizeof(o->detail) - strlen(o->detail) - 1);
	}
}

static void obs_bench_efficiency(const cJSON *root, const char *key, struct obs *o)
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

static void obs_process_cpuset(const cJSON *root, const char *key, struct obs *o)
{
	const cJSON *cs = fact(o, root, "process.cgroup.cpuset_cpus");
	hwloc_bitmap_t want = hwloc_bitmap_alloc(), have = hwloc_bitmap_alloc(), miss = hwloc_bitmap_alloc();
	int cores;
	char a[256], b[256];
	(void)key;
	if (!cJSON_IsString(cs) || parse_cpulist(cs->valuestring, have) < 0)
		unknown(o, NULL);
	else if (!plan_cpus(root, o, want, &cores))
		unknown(o, "the physical cores (cpu.core_cpus) are unknown, so the plan's CPUs are");
	else {
		hwloc_bitmap_andnot(miss, want, have);
		value_bool(o, hwloc_bitmap_iszero(miss));
		if (!hwloc_bitmap_iszero(miss))
			detail(o, "the cgroup's cpuset is %s: CPUs %s of the plan's one thread per core are "
			       "outside it", cs->valuestring, cpulist_str(miss, a, sizeof(a)));
		else
			detail(o, "cpuset %s holds the plan's %s", cs->valuestring, cpulist_str(want, b, sizeof(b)));
	}
	hwloc_bitmap_free(want);
	hwloc_bitmap_free(have);
	hwloc_bitmap_free(miss);
}

static void obs_process_quota(const cJSON *root, const char *key, struct obs *o)
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

static void obs_process_memlock(const cJSON *root, const char *key, struct obs *o)
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

static void obs_process_numa_calls(const cJSON *root, const char *key, struct obs *o)
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

/*** The catalog ***/

static const char *const onoff[] = { "on", "off", NULL };
static const char *const governors[] = { "performance", "powersave", "schedutil", "ondemand",
	"conservative", "userspace", NULL };
static const char *const thp_modes[] = { "always", "madvise", "never", NULL };

#define NUM (CMP_EXPECT | CMP_MIN | CMP_MAX)
#define MINMAX (CMP_MIN | CMP_MAX)

/* One row per check, designated: a new check is one row here, its entry in
 * nodeaudit-checks(7) and a test (HACKING). */
const struct check check_catalog[] = {
	{ .id = "host.virtualized",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "host.virtualized, host.hypervisor",
	  .title = "Running on bare metal",
	  .observe = obs_host_virt,
	  .what = "Whether the node is a virtual machine (true) or bare metal (false).",
	  .why = "A guest sees virtual NUMA, virtual CPUs and no DIMMs: SMT, memory channels, ECC and PCIe "
	  "link facts come from the hypervisor's model, not the hardware, and pinning per NUMA node "
	  "(45%+ throughput on 2-socket servers in the CPU field reports, nodeaudit-checks(7)) "
	  "only helps if the host pins the vCPUs too.",
	  .fixes = {
		{ .kind = "hardware", .text = "Run inference nodes on bare metal, or pin vCPUs and guest memory to host "
		  "NUMA nodes and pass the host topology through" } } },

	{ .id = "cpu.smt",
	  .type = V_ONOFF,
	  .cmps = CMP_EXPECT,
	  .values = onoff,
	  .facts = "cpu.smt.active, cpu.smt.threads_per_core, cpu.smt.control",
	  .title = "SMT (Hyper-Threading)",
	  .observe = obs_cpu_smt,
	  .what = "Whether simultaneous multithreading is active: two (or more) hardware threads per core.",
	  .why = "For mixed compute/memory inference the two threads of a core compete for execution units "
	  "and L1; CPU field reports measure 8-12% lower throughput with SMT on "
	  "(nodeaudit-checks(7)). Inference "
	  "nodes turn it off, or run one thread per physical core.",
	  .fixes = {
		{ .kind = "bios", .text = "Disable Hyper-Threading / SMT in the firmware setup" },
		{ .kind = "runtime", .command = "echo off > /sys/devices/system/cpu/smt/control", .step = "smt", .key = "/sys/devices/system/cpu/smt/control", .value = "off" },
		{ .kind = "cmdline", .text = "Add 'nosmt' to the kernel command line" } } },

	{ .id = "cpu.governor",
	  .type = V_STR,
	  .cmps = CMP_EXPECT,
	  .values = governors,
	  .facts = "kernel.governor, kernel.cpufreq.governor",
	  .title = "CPU frequency governor",
	  .observe = obs_cpu_governor,
	  .what = "The cpufreq governor of every policy (\"mixed\" when they differ).",
	  .why = "The deployment guide of a 4096-node ARM agent cluster (nodeaudit-checks(7)) sets the "
	  "governor "
	  "to performance: the orchestration "
	  "loop is single-thread bound and latency suffers while a ramping governor raises the clock.",
	  .fixes = {
		{ .kind = "runtime", .command = "cpupower frequency-set -g {expected}", .step = "governor", .key = "/sys/devices/system/cpu/cpufreq/policy*/scaling_governor", .value = "{expected}" },
		{ .kind = "systemd", .text = "Make it persistent: a tuned profile (throughput-performance) or a "
		  "oneshot unit running 'cpupower frequency-set -g {expected}'" } } },

	{ .id = "cpu.isa",
	  .type = V_SET,
	  .cmps = CMP_EXPECT,
	  .facts = "cpu.isa",
	  .title = "Instruction sets for inference",
	  .observe = obs_cpu_isa,
	  .what = "Whether the CPU has at least one of the listed instruction-set flags (avx2, avx512f, "
	  "avx512_vnni, amx_int8, neon, sve, i8mm, dotprod...).",
	  .why = "Quantised GGUF decode (Q4_K_M/Q5_K_M in the field reports, nodeaudit-checks(7)) runs "
	  "SIMD dot products; without AVX2 or "
	  "NEON the kernels fall back to scalar code and the node is compute bound instead of "
	  "memory-bandwidth bound. VNNI, AMX, i8mm and dotprod speed up int8 further.",
	  .fixes = {
		{ .kind = "hardware", .text = "Use a CPU with {expected} (or run a build of the model runtime for this ISA)" } } },

	{ .id = "cpu.hybrid.pcores",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "cpu.hybrid, cpu.kinds[].name, cpu.kinds[].cores",
	  .title = "P-cores available",
	  .observe = obs_cpu_pcores,
	  .what = "On hybrid CPUs, the number of online performance cores (skipped on non-hybrid CPUs).",
	  .why = "The agent's main loop and inference belong on P-cores, logs and heartbeats on E-cores; "
	  "pinning so cut P99 latency from 800 ms to 350 ms in a CPU field report "
	  "(nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "runtime", .command = "echo 1 > /sys/devices/system/cpu/cpuN/online" },
		{ .kind = "bios", .text = "Enable the P-cores in the firmware setup" } } },

	{ .id = "cpu.max_mhz",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "cpu.max_mhz",
	  .unit = "MHz",
	  .title = "Highest core frequency",
	  .observe = obs_cpu_max_mhz,
	  .what = "The highest maximum frequency over the core kinds, in MHz.",
	  .why = "Orchestration (55-80% of an agent's CPU time: JSON, routing, context assembly) is "
	  "single-thread bound; high base/turbo frequency beat many slow cores by 40%+ for the same "
	  "core count in the CPU field reports (nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "bios", .text = "Enable turbo / boost in the firmware setup" },
		{ .kind = "hardware", .text = "Use a CPU with a higher single-core frequency for orchestration nodes" } } },

	{ .id = "numa.balancing",
	  .type = V_ONOFF,
	  .cmps = CMP_EXPECT,
	  .values = onoff,
	  .facts = "kernel.numa_balancing, kernel.sysctl.\"kernel.numa_balancing\", numa.node_count",
	  .sysctl = "kernel.numa_balancing",
	  .title = "Automatic NUMA balancing",
	  .observe = obs_numa_balancing,
	  .what = "Whether the kernel migrates pages and tasks between NUMA nodes on its own (skipped with one node).",
	  .why = "Inference bound to one node's cores and memory (numactl --cpunodebind=N --membind=N) "
	  "gains 45%+ on 2-socket servers in the CPU field reports (nodeaudit-checks(7)); with the "
	  "placement done by hand the balancer "
	  "only adds page-fault scans and migrations that fight it.",
	  .disagree = "Sources disagree. llama.cpp warns at start-up that NUMA balancing is on and hurts "
	  "(its --numa modes assume fixed placement). Intel's PerfSpect recommends it on, for "
	  "general unpinned workloads. tuned's hpc-compute profile turns it off. nodeaudit follows "
	  "the placement: agent-cpu-inference pins one worker per node (see 'nodeaudit plan'), so "
	  "it expects off; base and agent-orchestrator, whose processes are not pinned, do not check it.",
	  .fixes = {
		{ .kind = "sysctl", .command = "sysctl -w kernel.numa_balancing=0", .text = "kernel.numa_balancing = 0 in /etc/sysctl.d/90-nodeaudit.conf", .step = "sysctl", .key = "kernel.numa_balancing", .value = "0" },
		{ .kind = "cmdline", .text = "Add 'numa_balancing=disable' to the kernel command line" } } },

	{ .id = "numa.nodes.memory_balanced",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "numa.nodes[].memory_bytes, numa.nodes[].cpus",
	  .unit = "ratio",
	  .title = "Memory balanced across NUMA nodes",
	  .observe = obs_numa_mem_balanced,
	  .what = "Smallest over largest memory of the NUMA nodes that have CPUs (1.0 = equal; skipped with one node).",
	  .why = "Each node runs its own pinned worker on its local memory; a node with less memory holds "
	  "a smaller model or spills to the remote node, and remote memory costs the 45%+ that "
	  "binding gains (nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "hardware", .text = "Populate the same DIMMs on every socket" } } },

	{ .id = "memory.ecc",
	  .type = V_ONOFF,
	  .cmps = CMP_EXPECT,
	  .values = onoff,
	  .facts = "memory.ecc.mode, memory.ecc.source",
	  .title = "ECC memory",
	  .observe = obs_memory_ecc,
	  .what = "Whether memory error correction is on (single-bit, multi-bit or CRC ECC).",
	  .why = "ECC memory is mandatory on long-running agent nodes: silent bit flips corrupt session "
	  "state and crash processes in ways that are hard to trace, as the CPU field reports put it "
	  "(nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "bios", .text = "Enable ECC in the firmware setup" },
		{ .kind = "hardware", .text = "Install ECC DIMMs (RDIMM) on a platform that supports them" } } },

	{ .id = "memory.ecc.errors",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "memory.ecc.uncorrected_errors, memory.ecc.corrected_errors",
	  .title = "Uncorrected memory errors",
	  .observe = obs_memory_ecc_errors,
	  .what = "Uncorrected ECC errors counted since boot (EDAC).",
	  .why = "An uncorrected error means data was lost: the node cannot be trusted with session state "
	  "(the field reports make ECC mandatory for agent nodes: nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "hardware", .text = "Find the DIMM with 'edac-util -v' or the BMC event log and replace it" } } },

	{ .id = "memory.channels.populated_ratio",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "memory.channels.populated, memory.channels.total",
	  .unit = "ratio",
	  .title = "Memory channels populated",
	  .observe = obs_mem_channels_ratio,
	  .what = "Populated memory channels over the channels the platform has (1.0 = all).",
	  .why = "Decode is bound by memory bandwidth: every token streams every weight once. An 8-channel "
	  "DDR4 host (~190 GB/s theoretical, 25-50% effective) gives 20-40 tokens/s on a 7B model at "
	  "Q4 in the CPU field reports; each empty channel cuts that in proportion "
	  "(nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "hardware", .text = "Put one DIMM in every memory channel: the empty slots the finding names (A1, B1, C1... on most boards)" } } },

	{ .id = "memory.channels.balanced",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "memory.channels.balanced",
	  .title = "Memory channels balanced",
	  .observe = obs_mem_channels_balanced,
	  .what = "Whether every populated channel has the same capacity.",
	  .why = "Interleaving across channels needs equal capacity; an unbalanced channel leaves part of "
	  "memory on fewer channels, at a fraction of the bandwidth decode depends on "
	  "(nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "hardware", .text = "Use identical DIMMs, the same number in every channel" } } },

	{ .id = "memory.speed.configured_ratio",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "memory.speed.configured_mts, memory.speed.rated_mts",
	  .unit = "ratio",
	  .title = "Memory runs at its rated speed",
	  .observe = obs_mem_speed_ratio,
	  .what = "Configured memory speed over the DIMMs' rated speed (1.0 = full speed).",
	  .why = "Bandwidth is channels x transfer rate; mixed DIMM speeds or a down-clocked configuration "
	  "cut decode tokens/s directly (nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "bios", .text = "Set the memory frequency to the DIMMs' rated speed (or to Auto/XMP/EXPO)" },
		{ .kind = "hardware", .text = "Use DIMMs of one speed; fewer DIMMs per channel allow higher speeds" } } },

	{ .id = "memory.per_core_bytes",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "memory.total_bytes, cpu.cores",
	  .unit = "bytes",
	  .title = "Memory per core",
	  .observe = obs_mem_per_core,
	  .what = "Total memory (MemTotal) divided by the online physical cores, in bytes.",
	  .why = "CPU inference nodes in the field pair 64-128 cores with 512 GB-1 TB of RAM, i.e. 4-8 "
	  "GiB per core, for quantised 7B/13B models and 250-400 agent sessions each "
	  "(nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "hardware", .text = "Add memory (in every channel, to keep them balanced)" } } },

	{ .id = "pci.accelerator.link_width_ratio",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "pci.accelerators[].link.width.current, pci.accelerators[].link.width.max",
	  .unit = "ratio",
	  .title = "Accelerator PCIe link width",
	  .observe = obs_acc_width,
	  .what = "Lowest negotiated link width over the accelerators, against the narrower of what the card "
	  "and its slot allow (1.0 = as wide as it can be; a x16 card in a slot wired x8 at x8 passes; "
	  "skipped without accelerators).",
	  .why = "Boards may lack lanes for every card: four modules on lanes for two run at half width "
	  "and higher latency in an accelerator-module write-up (nodeaudit-checks(7)). Unlike "
	  "speed, a lower width is real, not power saving.",
	  .fixes = {
		{ .kind = "hardware", .text = "Move the card to a slot wired for its full width, or check the "
		  "slot bifurcation setting in the firmware" } } },

	{ .id = "pci.accelerator.link_speed",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "pci.accelerators[].link.speed_gts.current, pci.accelerators[].link.speed_gts.max",
	  .unit = "ratio",
	  .title = "Accelerator PCIe link speed",
	  .observe = obs_acc_speed,
	  .what = "Lowest current/maximum link speed over the accelerators (1.0 = full speed).",
	  .why = "GPUs lower their link speed at idle to save power (nodeaudit-checks(7)), so a low "
	  "reading on an "
	  "idle node is not a fault: re-check under load. A link that stays slow under load halves "
	  "host-device bandwidth per generation lost.",
	  .fixes = {
		{ .kind = "runtime", .text = "Re-run 'nodeaudit check' while the accelerator is busy" },
		{ .kind = "bios", .text = "Set the slot's PCIe generation to Auto or its maximum in the firmware" } } },

	{ .id = "pci.accelerator.numa_known",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "pci.accelerators[].numa_node, numa.node_count",
	  .title = "Accelerator NUMA node known",
	  .observe = obs_acc_numa_known,
	  .what = "Whether the firmware tells the NUMA node of every accelerator (skipped with one node).",
	  .why = "The process feeding an accelerator must sit on its NUMA node: 30% was lost when it ran "
	  "on the other socket in a CPU field report (nodeaudit-checks(7)). Without the node "
	  "(numa_node -1) nobody can place it.",
	  .fixes = {
		{ .kind = "bios", .text = "Enable ACPI SRAT/_PXM reporting (NUMA / 'sub-NUMA' settings) in the firmware" } } },

	{ .id = "pci.accelerator.numa_local",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "pci.accelerators[].local_cpus, pci.accelerators[].numa_node, numa.nodes[].cpus",
	  .title = "CPUs local to every accelerator",
	  .observe = obs_acc_numa_local,
	  .what = "Whether every accelerator has CPUs local to it (its NUMA node is not CPU-less).",
	  .why = "The feeding process must run on the accelerator's node; 30% throughput was lost across "
	  "sockets in a CPU field report (nodeaudit-checks(7)). A device on a CPU-less node or "
	  "with no local CPUs always pays that.",
	  .fixes = {
		{ .kind = "hardware", .text = "Move the card to a slot attached to a socket with CPUs" } } },

	{ .id = "pci.accelerator.uplink",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "pci.accelerators[].shared_uplink.oversubscribed",
	  .title = "Accelerator uplink oversubscribed",
	  .observe = obs_acc_uplink,
	  .what = "Whether any accelerator shares a switch or root port whose link carries less than the "
	  "devices behind it need (true = oversubscribed).",
	  .why = "Four modules on lanes for two means half-speed transfers and higher latency in an "
	  "accelerator-module write-up (nodeaudit-checks(7)); "
	  "check what else shares each accelerator's switch or root port.",
	  .fixes = {
		{ .kind = "hardware", .text = "Spread the cards over root ports, or use a switch with a wider uplink" } } },

	{ .id = "pci.accelerator.uplink_ratio",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "pci.accelerators[].upstream.width_max, pci.accelerators[].upstream.speed_gts_max, pci.accelerators[].link.width.max, pci.accelerators[].link.speed_gts.max",
	  .unit = "ratio",
	  .title = "Accelerator upstream port capacity",
	  .observe = obs_acc_uplink_ratio,
	  .what = "Lowest ratio over the accelerators of what the port above the card can carry (width x "
	  "speed) to what the card can use (1.0 or more = the port does not limit it).",
	  .why = "A board may not have lanes for every card at full width: four modules on lanes for two "
	  "run at half speed (nodeaudit-checks(7)), whatever each card negotiates with its own "
	  "switch port.",
	  .fixes = {
		{ .kind = "hardware", .text = "Move the card behind a port (or switch uplink) as wide and fast as the card" } } },

	{ .id = "pci.accelerator.nic_switch",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "pci.matrix.switch_pairs, pci.matrix.paths",
	  .title = "Accelerator and NIC under one switch",
	  .observe = obs_acc_nic_switch,
	  .what = "Whether every accelerator has a network controller below the same PCIe switch "
	  "(pci.matrix.switch_pairs; skipped without accelerators or NICs).",
	  .why = "GPUDirect RDMA moves data between the NIC and the accelerator without the CPU; "
	  "peer-to-peer traffic that stays inside one switch (nvidia-smi's PIX or PXB) is the fast "
	  "case, while through the host bridge (PHB) or across sockets (NODE, SYS) it is slower or "
	  "unsupported (nodeaudit-checks(7)). ACS redirect on a switch port sends it up to the root "
	  "complex all the same: see pci.matrix.info[].acs.",
	  .fixes = {
		{ .kind = "hardware", .text = "Put each accelerator and its NIC in slots below the same PCIe "
		  "switch (the board manual's slot-to-switch map)" } } },

	{ .id = "pci.nic.link",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "pci.nics[].link.width.current, pci.nics[].link.width.max",
	  .unit = "ratio",
	  .title = "NIC PCIe link width",
	  .observe = obs_nic_link,
	  .what = "Lowest negotiated link width over the network controllers, against the narrower of "
	  "what the card and its slot allow.",
	  .why = "Array nodes in the field reports talk over 25/100 GbE or RoCEv2 (nodeaudit-checks(7)); a "
	  "100 GbE NIC on a narrowed link "
	  "cannot reach line rate.",
	  .fixes = {
		{ .kind = "hardware", .text = "Move the NIC to a slot wired for its full width" } } },

	{ .id = "kernel.sysctl",
	  .type = V_SYSCTL,
	  .keyed = 1,
	  .cmps = NUM,
	  .facts = "kernel.sysctl.\"KEY\"",
	  .title = "sysctl",
	  .observe = obs_sysctl,
	  .what = "One finding per sysctl the profile names: the value as the kernel prints it, compared as "
	  "a number (min, max, numeric expect) or as a string (white space normalised).",
	  .why = "From the deployment guide of a 4096-node ARM agent cluster (nodeaudit-checks(7)): "
	  "vm.swappiness=10, net.core.rmem_max and "
	  "wmem_max=67108864, net.ipv4.tcp_fin_timeout=30, net.ipv4.tcp_tw_reuse=1, "
	  "net.ipv4.ip_local_port_range=1024 65535, fs.file-max=2097152, for many short connections "
	  "and large buffers.",
	  .fixes = {
		{ .kind = "sysctl", .command = "sysctl -w {key}='{expected}'", .text = "{key} = {expected} in /etc/sysctl.d/90-nodeaudit.conf", .step = "sysctl", .key = "{key}", .value = "{expected}" } } },

	{ .id = "kernel.thp",
	  .type = V_STR,
	  .cmps = CMP_EXPECT,
	  .values = thp_modes,
	  .facts = "kernel.thp.enabled, kernel.thp.defrag",
	  .title = "Transparent huge pages",
	  .observe = obs_thp,
	  .what = "The selected mode of /sys/kernel/mm/transparent_hugepage/enabled.",
	  .why = "Decode streams every weight once per token (nodeaudit-checks(7)), gigabytes per second "
	  "through the "
	  "TLB; 'never' forbids huge pages even for runtimes that ask for them (madvise). The field "
	  "reports give no measured figure for THP, so the built-in profiles only warn.",
	  .fixes = {
		{ .kind = "runtime", .command = "echo {expected} > /sys/kernel/mm/transparent_hugepage/enabled", .step = "thp", .key = "/sys/kernel/mm/transparent_hugepage/enabled", .value = "{expected}" },
		{ .kind = "cmdline", .text = "Add 'transparent_hugepage={expected}' to the kernel command line" } } },

	{ .id = "kernel.swap",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "kernel.swap.total_bytes",
	  .unit = "bytes",
	  .title = "Swap space",
	  .observe = obs_swap,
	  .what = "Total swap space, in bytes.",
	  .why = "The 4096-node ARM cluster's deployment guide (nodeaudit-checks(7)) asks for "
	  "vm.swappiness=10 "
	  "and a memory watermark per session rather than the "
	  "OOM killer; weights or sessions paged to swap turn a memory-bandwidth-bound decode into a "
	  "disk-bound one.",
	  .fixes = {
		{ .kind = "runtime", .command = "swapoff -a", .text = "and remove the swap entries from /etc/fstab" } } },

	{ .id = "kernel.hugepages",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "kernel.hugepages.total_bytes, kernel.hugepages.nodes",
	  .unit = "bytes",
	  .title = "Explicit huge pages reserved",
	  .observe = obs_hugepages,
	  .what = "Memory reserved in explicit (hugetlbfs) huge pages of every size, in bytes, with a note "
	  "when the reservation differs between NUMA nodes.",
	  .why = "Decode streams every weight once per token (nodeaudit-checks(7)), so weights must stay "
	  "in RAM on the "
	  "worker's node. A runtime that maps them from hugetlbfs needs the pages reserved up front (and on the "
	  "node its worker is pinned to); a reservation nothing uses is memory taken from the page "
	  "cache that holds the model. llama.cpp's default mmap path uses transparent huge pages "
	  "instead (kernel.thp), so no built-in profile asks for explicit ones.",
	  .fixes = {
		{ .kind = "sysctl", .command = "sysctl -w vm.nr_hugepages=N", .text = "vm.nr_hugepages = N in /etc/sysctl.d (2 MiB pages; "
		  "per node: /sys/devices/system/node/nodeN/hugepages/hugepages-2048kB/nr_hugepages)" },
		{ .kind = "cmdline", .text = "Reserve 1 GiB pages at boot: 'default_hugepagesz=1G hugepagesz=1G hugepages=N'" } } },

	{ .id = "bench.efficiency",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "bench.efficiency, bench.bandwidth.bytes_per_s, "
	  "bench.peak_bytes_per_s",
	  .unit = "ratio",
	  .title = "Memory bandwidth reached, of the theoretical peak",
	  .observe = obs_bench_efficiency,
	  .what = "The read bandwidth 'check --bench' measured (all NUMA nodes at once, one pinned thread "
	  "per physical core) divided by the theoretical peak of the populated DIMMs. Skipped when "
	  "the benchmark was not run.",
	  .why = "Decode streams every weight once per token, so tokens/s follows the bandwidth actually "
	  "reached; the CPU field reports measure 25-50% of the theoretical peak "
	  "(nodeaudit-checks(7)). Far below that, "
	  "something the DIMM population does not show is wrong: remote-node memory, a throttled "
	  "memory clock, a noisy neighbour, or a virtual machine.",
	  .fixes = {
		{ .kind = "hardware", .text = "Compare per-node figures (nodeaudit bench --format json): a slow node "
		  "points at its DIMMs, its memory clock or its power/thermal limits" },
		{ .kind = "bios", .text = "Set the power profile to Maximum Performance and the memory frequency to "
		  "the DIMMs' rated speed" } } },

	{ .id = "kernel.cmdline",
	  .type = V_SYSCTL,
	  .keyed = 1,
	  .cmps = CMP_EXPECT,
	  .facts = "kernel.cmdline.params.KEY",
	  .title = "kernel command line",
	  .observe = obs_cmdline,
	  .what = "One finding per kernel parameter the profile names: its value ('' for a flag, '(unset)' "
	  "when absent).",
	  .why = "Some settings only exist at boot (nosmt, numa_balancing=disable, transparent_hugepage=, "
	  "isolcpus=), so an audit has to give them as kernel command line changes "
	  "(nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "cmdline", .step = "cmdline", .key = "{key}", .value = "{expected}", .text = "Set {key}={expected} in GRUB_CMDLINE_LINUX (/etc/default/grub), "
		  "regenerate the boot configuration and reboot" } } },
	{ .id = "process.cgroup.cpuset",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "process.cgroup.cpuset_cpus, cpu.core_cpus",
	  .title = "The cgroup's cpuset holds the plan's CPUs",
	  .observe = obs_process_cpuset,
	  .what = "Whether the cpuset of this process's cgroup (cpuset.cpus.effective, v1 "
	  "cpuset.effective_cpus) holds the CPUs a plan puts workers on: the first hardware thread of "
	  "every physical core. Run where the workers run (in their container or unit).",
	  .why = "numactl --physcpubind and sched_setaffinity can only narrow the cgroup's cpuset: a "
	  "container started with a narrower --cpuset-cpus, or a slice with AllowedCPUs, makes the "
	  "binding fail or silently drop CPUs, and the workers share what is left (nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "systemd", .text = "Widen AllowedCPUs= of the unit or its slice to the plan's CPUs" },
		{ .kind = "runtime", .text = "Start the container with --cpuset-cpus covering the plan's CPUs "
		  "(nodeaudit plan --runtime vllm prints them)" } } },

	{ .id = "process.cgroup.cpu_quota",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "process.cgroup.cpu_quota_cpus, cpu.core_cpus",
	  .title = "No CPU quota below the plan's threads",
	  .observe = obs_process_quota,
	  .what = "Whether the cgroup's CPU quota (cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us, the "
	  "tightest up the tree), in CPUs, is at least the plan's threads: one per physical core. "
	  "No quota passes.",
	  .why = "A quota below the worker threads throttles all of them in every period: decode "
	  "stalls for the rest of each 100 ms period once the quota is spent, so tokens/s falls "
	  "and latency jumps although the CPUs are idle (nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "systemd", .text = "Remove CPUQuota= from the unit (or raise it to 100% per worker thread)" },
		{ .kind = "runtime", .text = "Drop --cpus / the CPU limit of the container, or raise it to the plan's threads" } } },

	{ .id = "process.limits.memlock",
	  .type = V_NUM,
	  .cmps = NUM,
	  .facts = "process.limits.memlock.soft",
	  .unit = "bytes",
	  .title = "Locked-memory limit (RLIMIT_MEMLOCK)",
	  .observe = obs_process_memlock,
	  .what = "The soft RLIMIT_MEMLOCK of this process in bytes (/proc/self/limits); unlimited is "
	  "above any minimum.",
	  .why = "llama.cpp --mlock locks the weights so that they are never paged out; with a limit "
	  "below the model's size it warns and runs unlocked, and under memory pressure decode "
	  "reads the weights from disk. A profile sets the model's size as the minimum; nodeaudit "
	  "plan --model adds --mlock only when the limit covers it (nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "systemd", .text = "LimitMEMLOCK=infinity in the worker's unit" },
		{ .kind = "runtime", .text = "'memlock unlimited' in /etc/security/limits.conf, or docker run "
		  "--ulimit memlock=-1" } } },

	{ .id = "process.mempolicy",
	  .type = V_BOOL,
	  .cmps = CMP_EXPECT,
	  .facts = "process.mempolicy.get_mempolicy, process.mempolicy.set_mempolicy",
	  .title = "NUMA system calls allowed",
	  .observe = obs_process_numa_calls,
	  .what = "Whether get_mempolicy and set_mempolicy succeed in this process (tried live: a "
	  "seccomp filter answers EPERM). Unknown on a sysroot unless its snapshot recorded it.",
	  .why = "numactl --membind, vLLM's CPU backend and llama.cpp --numa bind memory with these "
	  "calls; a container's default seccomp profile refuses them without CAP_SYS_NICE, and "
	  "binding then fails or silently weakens to first touch (nodeaudit-checks(7)).",
	  .fixes = {
		{ .kind = "runtime", .text = "docker run --cap-add SYS_NICE, with a seccomp profile that allows "
		  "get_mempolicy, set_mempolicy, mbind, migrate_pages and move_pages" } } },
};
const size_t ncheck_catalog = ARRAY_SIZE(check_catalog);

/*** Lookup ***/

const struct check *check_find(const char *id)
{
	size_t i;
	for (i = 0; i < ncheck_catalog; i++)
		if (!strcmp(check_catalog[i].id, id))
			return &check_catalog[i];
	return NULL;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, *row, r;
	if (la > 200 || lb > 200)
		return (size_t)-1;
	row = xcalloc(lb + 1, sizeof(*row));
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	r = row[lb];
	free(row);
	return r;
}

static const char *closest(const char *w, const char *const *words, size_t n, size_t stride)
{
	const char *best = NULL;
	size_t bd = (size_t)-1, i, lim;
	for (i = 0; i < n; i++) {
		const char *c = *(const char *const *)((const char *)words + i * stride);
		size_t d = edit_distance(w, c);
		if (d < bd) {
			bd = d;
			best = c;
		}
	}
	lim = strlen(w) / 3;
	if (lim < 2)
		lim = 2;
	return bd <= lim ? best : NULL;
}

const char *closest_word(const char *w, const char *const *words)
{
	size_t n = 0;
	while (words[n])
		n++;
	return closest(w, words, n, sizeof(*words));
}

const char *check_suggest(const char *id)
{
	return closest(id, &check_catalog[0].id, ncheck_catalog, sizeof(check_catalog[0]));
}

const char *severity_name(enum severity s)
{
	static const char *const n[] = { "info", "warn", "fail" };
	return n[s];
}

const char *status_name(enum status s)
{
	static const char *const n[] = { "pass", "info", "warn", "fail", "unknown", "skip" };
	return s < ST__N ? n[s] : "?";
}

/*** Evaluation ***/

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
}

static int num_eq(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(a) > 1 ? fabs(a) : 1);
}

/* One observed value against one expected value. */
static int match_one(const struct check *c, const cJSON *v, const cJSON *e)
{
	switch (c->type) {
	case V_ONOFF:
	case V_STR:
		return cJSON_IsString(v) && cJSON_IsString(e) && !strcmp(v->valuestring, e->valuestring);
	case V_BOOL:
		return cJSON_IsBool(v) && cJSON_IsBool(e) && cJSON_IsTrue(v) == cJSON_IsTrue(e);
	case V_NUM:
		return cJSON_IsNumber(v) && cJSON_IsNumber(e) && num_eq(v->valuedouble, e->valuedouble);
	case V_SET: {
		const cJSON *x;
		cJSON_ArrayForEach(x, v)
			if (cJSON_IsString(x) && cJSON_IsString(e) && !strcmp(x->valuestring, e->valuestring))
				return 1;
		return 0;
	}
	case V_SYSCTL: {
		double a;
		if (!cJSON_IsString(v))
			return 0;
		if (cJSON_IsNumber(e))
			return parse_double(v->valuestring, &a) == 0 && num_eq(a, e->valuedouble);
		if (cJSON_IsString(e)) {
			char *x = strsquash(xstrdup(v->valuestring)), *y = strsquash(xstrdup(e->valuestring));
			int m = !strcmp(x, y);
			free(x);
			free(y);
			return m;
		}
		return 0;
	}
	}
	return 0;
}

/* 1 met, 0 not met, -1 cannot compare (o->reason set). */
static int compare(const struct pspec *s, struct obs *o)
{
	const struct check *c = s->check;
	double v = 0;
	if (s->expect) {
		int any = 0;
		if (cJSON_IsArray(s->expect)) {
			const cJSON *e;
			cJSON_ArrayForEach(e, s->expect)
				any |= match_one(c, o->value, e);
		} else
			any = match_one(c, o->value, s->expect);
		if (!any)
			return 0;
	}
	if (s->has_min || s->has_max) {
		if (cJSON_IsNumber(o->value))
			v = o->value->valuedouble;
		else if (!cJSON_IsString(o->value) || parse_double(o->value->valuestring, &v) < 0) {
			snprintf(o->reason, sizeof(o->reason), "'%s' is not a single number",
				 cJSON_IsString(o->value) ? o->value->valuestring : "?");
			return -1;
		}
		if (s->has_min && v < s->min && !num_eq(v, s->min))
			return 0;
		if (s->has_max && v > s->max && !num_eq(v, s->max))
			return 0;
	}
	return 1;
}

/* The reason for an unknown: the gap of the fact (or of a parent or child). */
static void gap_reason(const struct obs *o, const cJSON *root, const cJSON *gaps, char *buf, size_t n)
{
	size_t i, missing = 0;
	const cJSON *g;
	for (i = 0; i < o->npaths; i++) {
		const char *p = o->paths[i];
		size_t lp = strlen(p);
		cJSON_ArrayForEach(g, gaps) {
			const cJSON *f = cJSON_GetObjectItemCaseSensitive(g, "fact");
			const cJSON *r = cJSON_GetObjectItemCaseSensitive(g, "reason");
			size_t lf;
			if (!cJSON_IsString(f) || !cJSON_IsString(r))
				continue;
			lf = strlen(f->valuestring);
			if (!strcmp(f->valuestring, p) ||
			    (lf < lp && !strncmp(p, f->valuestring, lf) && (p[lf] == '.' || p[lf] == '[')) ||
			    (lp < lf && !strncmp(f->valuestring, p, lp) &&
			     (f->valuestring[lp] == '.' || f->valuestring[lp] == '['))) {
				snprintf(buf, n, "%s: %s", f->valuestring, r->valuestring);
				return;
			}
		}
	}
	/* The first fact that is absent or null. */
	for (i = 0; i < o->npaths; i++) {
		const cJSON *v = facts_get(root, o->paths[i]);
		if (!v || cJSON_IsNull(v)) {
			missing = i;
			break;
		}
	}
	if (o->npaths) {
		char subject[32];
		const char *p = o->paths[missing];
		size_t k = strcspn(p, ".");
		snprintf(subject, sizeof(subject), "%.*s", (int)(k < 31 ? k : 31), p);
		snprintf(buf, n, "%s not known (the %s probe did not report it)", p,
			 !strcmp(subject, "host") ? "cpu" : subject);
	} else
		snprintf(buf, n, "not known");
}

static void add_evidence(cJSON *arr, const struct obs *o, const cJSON *evidence)
{
	size_t i;
	const cJSON *e, *p;
	for (i = 0; i < o->npaths; i++) {
		const char *path = o->paths[i];
		size_t lp = strlen(path);
		cJSON_ArrayForEach(e, evidence) {
			const char *k = e->string;
			size_t lk = strlen(k);
			if (strcmp(k, path) &&
			    !(lk > lp && !strncmp(k, path, lp) && (k[lp] == '.' || k[lp] == '[')))
				continue;
			cJSON_ArrayForEach(p, e) {
				const cJSON *x;
				int dup = 0;
				if (!cJSON_IsString(p))
					continue;
				cJSON_ArrayForEach(x, arr)
					if (!strcmp(x->valuestring, p->valuestring))
						dup = 1;
				if (!dup)
					cJSON_AddItemToArray(arr, cJSON_CreateString(p->valuestring));
			}
		}
	}
}

/* "{expected}" and "{key}" in a fix template. */
static char *fill(const char *tpl, const struct pspec *s)
{
	struct strbuf sb = STRBUF_INIT;
	char ex[256] = "";
	const cJSON *e = s->expect;
	if (cJSON_IsArray(e))
		e = e->child;
	if (cJSON_IsString(e))
		snprintf(ex, sizeof(ex), "%s", e->valuestring);
	else if (cJSON_IsNumber(e))
		snprintf(ex, sizeof(ex), "%.15g", e->valuedouble);
	else if (cJSON_IsBool(e))
		snprintf(ex, sizeof(ex), "%s", cJSON_IsTrue(e) ? "true" : "false");
	else if (s->has_min)
		snprintf(ex, sizeof(ex), "%.15g", s->min);
	else if (s->has_max)
		snprintf(ex, sizeof(ex), "%.15g", s->max);
	while (*tpl) {
		if (!strncmp(tpl, "{expected}", 10)) {
			strbuf_addstr(&sb, ex);
			tpl += 10;
		} else if (!strncmp(tpl, "{key}", 5)) {
			strbuf_addstr(&sb, s->key ? s->key : "");
			tpl += 5;
		} else
			strbuf_add(&sb, tpl++, 1);
	}
	return strbuf_detach(&sb);
}

static void first_sentence(const char *why, char *buf, size_t n)
{
	const char *e = strstr(why, ". ");
	size_t k = e ? (size_t)(e - why) + 1 : strlen(why);
	snprintf(buf, n, "%.*s", (int)k, why);
}

static cJSON *finding(const struct pspec *s, const cJSON *root, const cJSON *gaps,
		      const cJSON *evidence, enum status *st)
{
	const struct check *c = s->check;
	struct obs o;
	cJSON *f = cJSON_CreateObject(), *ev;
	char buf[600];
	int m = -1;
	size_t i;

	if (s->skip) {
		/* The profile says this node cannot decide it (a guest: the host). */
		memset(&o, 0, sizeof(o));
		o.state = OBS_SKIP;
		snprintf(o.reason, sizeof(o.reason), "%s", s->skip);
	} else
		check_observe(c, root, s->key, &o);
	if (o.state == OBS_VALUE) {
		m = compare(s, &o);
		if (m < 0)
			o.state = OBS_UNKNOWN;
	}
	if (o.state == OBS_SKIP)
		*st = ST_SKIP;
	else if (o.state == OBS_UNKNOWN)
		*st = ST_UNKNOWN;
	else if (m == 1)
		*st = ST_PASS;
	else
		*st = s->severity == SEV_FAIL ? ST_FAIL : s->severity == SEV_WARN ? ST_WARN : ST_INFO;

	cJSON_AddStringToObject(f, "id", c->id);
	if (s->key)
		cJSON_AddStringToObject(f, "key", s->key);
	cJSON_AddStringToObject(f, "status", status_name(*st));
	cJSON_AddStringToObject(f, "severity", severity_name(s->severity));
	if (s->key)
		snprintf(buf, sizeof(buf), "%s %s", c->title, s->key);
	else
		snprintf(buf, sizeof(buf), "%s", c->title);
	cJSON_AddStringToObject(f, "title", buf);
	if (o.state == OBS_VALUE) {
		cJSON_AddItemToObject(f, "observed", o.value);
		o.value = NULL;
	} else
		cJSON_AddNullToObject(f, "observed");
	cJSON_AddStringToObject(f, "expected", pspec_expected(s, buf, sizeof(buf)));
	if (strcmp(s->when, "always"))
		cJSON_AddStringToObject(f, "when", s->when);
	if (o.detail[0])
		cJSON_AddStringToObject(f, "detail", o.detail);
	if (*st == ST_UNKNOWN) {
		if (o.reason[0])
			cJSON_AddStringToObject(f, "reason", o.reason);
		else {
			gap_reason(&o, root, gaps, buf, sizeof(buf));
			cJSON_AddStringToObject(f, "reason", buf);
		}
	} else if (*st == ST_SKIP)
		cJSON_AddStringToObject(f, "reason", o.reason);
	if (s->note)
		cJSON_AddStringToObject(f, "rationale", s->note);
	else {
		first_sentence(c->why, buf, sizeof(buf));
		cJSON_AddStringToObject(f, "rationale", buf);
	}
	ev = cJSON_AddArrayToObject(f, "evidence");
	add_evidence(ev, &o, evidence);
	{
		cJSON *facts = cJSON_AddArrayToObject(f, "facts");
		for (i = 0; i < o.npaths; i++)
			cJSON_AddItemToArray(facts, cJSON_CreateString(o.paths[i]));
	}
	if (*st == ST_WARN || *st == ST_FAIL || *st == ST_INFO) {
		cJSON *fix = cJSON_AddArrayToObject(f, "fix");
		for (i = 0; i < ARRAY_SIZE(c->fixes) && c->fixes[i].kind; i++) {
			cJSON *x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "kind", c->fixes[i].kind);
			if (c->fixes[i].command) {
				char *t = fill(c->fixes[i].command, s);
				cJSON_AddStringToObject(x, "command", t);
				free(t);
			}
			if (c->fixes[i].text) {
				char *t = fill(c->fixes[i].text, s);
				cJSON_AddStringToObject(x, "text", t);
				free(t);
			}
			/* What the fix sets, as data: plan renders it without knowing the check. */
			if (c->fixes[i].step)
				cJSON_AddStringToObject(x, "step", c->fixes[i].step);
			if (c->fixes[i].key) {
				char *t = fill(c->fixes[i].key, s);
				cJSON_AddStringToObject(x, "key", t);
				free(t);
			}
			if (c->fixes[i].value) {
				char *t = fill(c->fixes[i].value, s);
				cJSON_AddStringToObject(x, "value", t);
				free(t);
			}
			cJSON_AddItemToArray(fix, x);
		}
	}
	obs_release(&o);
	return f;
}

cJSON *checks_run(const struct profile *p, const cJSON *root, const cJSON *gaps,
		  const cJSON *evidence, int counts[ST__N])
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;
	memset(counts, 0, sizeof(int) * ST__N);
	for (i = 0; i < p->nspecs; i++) {
		enum status st;
		cJSON_AddItemToArray(arr, finding(&p->specs[i], root, gaps, evidence, &st));
		counts[st]++;
	}
	return arr;
}

int checks_exit(const int counts[ST__N], const char *fail_on)
{
	if (fail_on && !strcmp(fail_on, "never"))
		return EXIT_OK;
	if (counts[ST_FAIL])
		return EXIT_CRIT;
	if (counts[ST_WARN] && !(fail_on && !strcmp(fail_on, "fail")))
		return EXIT_WARN;
	return EXIT_OK;
}
