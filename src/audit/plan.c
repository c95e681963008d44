/* audit/plan.c - worker placement per NUMA node, P/E split, accelerator feeders,
 * and the settings steps derived from findings.  Pure: facts in, plan out. */
#include "config.h"
#include "audit/plan.h"
#include "lib/quote.h"
#include "audit/checks.h"
#include "lib/facts.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <hwloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's NUMA node ids: CONFIG_NODES_SHIFT is at most 10. */
#define NUMA_NODE_MAX 1023

/* A cpulist fact into a bitmap; 0 when absent or unparsable. */
static int fact_set(const cJSON *o, const char *key, hwloc_bitmap_t set)
{
	const char *s = fj_get_str(o, key);
	return s && parse_cpulist(s, set) == 0;
}

static char *setstr(hwloc_const_bitmap_t set)
{
	return cpulist_dup(set);
}

/*** Cores ***/

/* Physical cores: each an hwloc bitmap of its hardware threads, in the order
 * of their first thread.  From cpu.core_cpus (["0,16", "1,17", ...]). */
struct cores {
	hwloc_bitmap_t *set;
	size_t n;
};

static int load_cores(const cJSON *facts, struct cores *c)
{
	const cJSON *list = facts_get(facts, "cpu.core_cpus"), *it;
	memset(c, 0, sizeof(*c));
	if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0)
		return -1;
	c->set = xcalloc((size_t)cJSON_GetArraySize(list), sizeof(*c->set));
	cJSON_ArrayForEach(it, list) {
		hwloc_bitmap_t s = hwloc_bitmap_alloc();
		if (!cJSON_IsString(it) || parse_cpulist(it->valuestring, s) < 0 || hwloc_bitmap_iszero(s)) {
			hwloc_bitmap_free(s);
			continue;
		}
		c->set[c->n++] = s;
	}
	return c->n ? 0 : -1;
}

static void free_cores(struct cores *c)
{
	size_t i;
	for (i = 0; i < c->n; i++)
		hwloc_bitmap_free(c->set[i]);
	free(c->set);
}

/* The cores by their first thread, so that a node's cores are found without
 * a pass over every core per node (quadratic: 20,000 nodes took 13 s).
 * start[c]..start[c+1]: the positions in by_first of the cores whose first
 * thread is CPU c, in the cores' order; cand: a node's candidates. */
struct core_index {
	size_t *start, *by_first, *cand;
	int ncpu;   /* the highest first thread + 1 */
};

static void index_cores(const struct cores *c, struct core_index *x)
{
	size_t i, *next;
	int f;
	x->ncpu = 0;
	for (i = 0; i < c->n; i++) {
		f = hwloc_bitmap_first(c->set[i]);
		if (f + 1 > x->ncpu)
			x->ncpu = f + 1;
	}
	x->start = xcalloc((size_t)x->ncpu + 1, sizeof(*x->start));
	x->by_first = xcalloc(c->n, sizeof(*x->by_first));
	x->cand = xcalloc(c->n, sizeof(*x->cand));
	for (i = 0; i < c->n; i++)
		x->start[hwloc_bitmap_first(c->set[i]) + 1]++;
	for (f = 0; f < x->ncpu; f++)
		x->start[f + 1] += x->start[f];
	next = xcalloc((size_t)x->ncpu + 1, sizeof(*next));
	memcpy(next, x->start, ((size_t)x->ncpu + 1) * sizeof(*next));
	for (i = 0; i < c->n; i++)
		x->by_first[next[hwloc_bitmap_first(c->set[i])]++] = i;
	free(next);
}

static void free_index(struct core_index *x)
{
	free(x->start);
	free(x->by_first);
	free(x->cand);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* The cores set can hold (their first thread is in it), in the cores'
 * order, into x->cand: every core where set has as many CPUs as there are
 * cores (looking each CPU up would cost more than the pass). */
static size_t core_candidates(const struct cores *c, struct core_index *x, hwloc_const_bitmap_t set)
{
	int w = hwloc_bitmap_weight(set), cpu;
	size_t n = 0, i, j;
	if (w < 0 || (size_t)w >= c->n) {
		for (i = 0; i < c->n; i++)
			x->cand[n++] = i;
		return n;
	}
	hwloc_bitmap_foreach_begin(cpu, set) {
		if (cpu >= x->ncpu)
			break;
		for (j = x->start[cpu]; j < x->start[cpu + 1]; j++)
			x->cand[n++] = x->by_first[j];
	} hwloc_bitmap_foreach_end();
	qsort(x->cand, n, sizeof(*x->cand), cmp_size);
	return n;
}

/* The union of the CPUs of the kinds named (or not named) name. */
static int kind_set(const cJSON *facts, const char *name, int invert, hwloc_bitmap_t out)
{
	const cJSON *kinds = facts_get(facts, "cpu.kinds"), *k;
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	int found = 0;
	hwloc_bitmap_zero(out);
	cJSON_ArrayForEach(k, kinds) {
		const char *n = fj_get_str(k, "name");
		if (!n || (!strcmp(n, name)) == invert)
			continue;
		if (fact_set(k, "cpus", s)) {
			hwloc_bitmap_or(out, out, s);
			found = 1;
		}
	}
	hwloc_bitmap_free(s);
	return found;
}

static const char *worker_command(const struct plan_opts *o)
{
	return o->command && *o->command ? o->command : PLAN_PLACEHOLDER;
}

/*** Workers ***/

static void add_worker(cJSON *workers, const cJSON *node_id, hwloc_const_bitmap_t cpus,
		       hwloc_const_bitmap_t reserved, const char *kind, const struct plan_opts *o)
{
	cJSON *w = cJSON_CreateObject();
	char *list = setstr(cpus);
	int threads = hwloc_bitmap_weight(cpus);
	const char *cmd = worker_command(o);
	if (node_id && cJSON_IsNumber(node_id)) {
		int id = (int)node_id->valuedouble;
		cJSON_AddNumberToObject(w, "node", id);
		cJSON_AddStringToObject(w, "cpus", list);
		cJSON_AddNumberToObject(w, "threads", threads);
		cJSON_AddStringToObject(w, "kind", kind);
		{
			char *r = setstr(reserved);
			cJSON_AddStringToObject(w, "reserved_cpus", r);
			free(r);
		}
		{
			char *s = xasprintf("numactl --physcpubind=%s --membind=%d -- %s -t %d", list, id, cmd, threads);
			cJSON_AddStringToObject(w, "numactl", s);
			free(s);
			s = xasprintf("taskset -c %s %s -t %d", list, cmd, threads);
			cJSON_AddStringToObject(w, "taskset", s);
			free(s);
		}
	} else {
		char *s;
		cJSON_AddNullToObject(w, "node");
		cJSON_AddStringToObject(w, "cpus", list);
		cJSON_AddNumberToObject(w, "threads", threads);
		cJSON_AddStringToObject(w, "kind", kind);
		cJSON_AddStringToObject(w, "reserved_cpus", "");
		s = xasprintf("numactl --physcpubind=%s -- %s -t %d", list, cmd, threads);
		cJSON_AddStringToObject(w, "numactl", s);
		free(s);
		s = xasprintf("taskset -c %s %s -t %d", list, cmd, threads);
		cJSON_AddStringToObject(w, "taskset", s);
		free(s);
	}
	cJSON_AddItemToArray(workers, w);
	free(list);
}

/* What placing the workers shares, node by node. */
struct placement {
	cJSON *plan, *workers;
	const struct plan_opts *o;
	struct cores cores;
	struct core_index index;
	hwloc_bitmap_t pset, eset, house, online;
	int hybrid, reserve;
};

/* P-cores and E-cores on a hybrid CPU, and the cores reserved per node. */
static void placement_kinds(struct placement *p, const cJSON *facts)
{
	cJSON *plan = p->plan;
	const cJSON *hyb = facts_get(facts, "cpu.hybrid");
	p->hybrid = cJSON_IsTrue(hyb);
	p->reserve = p->o->reserve;
	if (p->hybrid) {
		if (!kind_set(facts, "performance", 0, p->pset) || !kind_set(facts, "performance", 1, p->eset)) {
			plan_note(plan, "the CPU is hybrid but its core kinds are unknown: workers use every core");
			p->hybrid = 0;
		}
	} else if (!cJSON_IsBool(hyb))
		plan_note(plan, "whether the CPU is hybrid is unknown: all cores treated alike");
	if (p->reserve < 0)
		p->reserve = p->hybrid ? 0 : 1;
}

/* One node's worker (k: its index in numa.nodes; node NULL: the one pseudo
 * node over every online CPU, the nodes being unknown). */
static void place_node(struct placement *p, const cJSON *node, int k)
{
	cJSON *plan = p->plan;
	const struct cores cores = p->cores;
	const int hybrid = p->hybrid;
	hwloc_bitmap_t ncpus = hwloc_bitmap_alloc(), work = hwloc_bitmap_alloc();
	hwloc_bitmap_t resv = hwloc_bitmap_alloc();
	const cJSON *id = NULL;
	size_t ncores = 0, kept = 0, skip, i, c, nc;
	if (node) {
		id = cJSON_GetObjectItemCaseSensitive(node, "id");
		if (cJSON_IsNumber(id) && !num_int_ok(id->valuedouble, 0, NUMA_NODE_MAX)) {
			plan_note(plan, "numa.nodes[%d].id is %g, not a NUMA node id (0-%d): no worker there",
			     k, id->valuedouble, NUMA_NODE_MAX);
			goto next;
		}
		if (!cJSON_IsNumber(id))
			id = NULL;
		if (!fact_set(node, "cpus", ncpus) || hwloc_bitmap_iszero(ncpus)) {
			if (id)
				plan_note(plan, "node %d has no CPUs (memory only): no worker", (int)id->valuedouble);
			goto next;
		}
	} else
		hwloc_bitmap_copy(ncpus, p->online);
	hwloc_bitmap_and(ncpus, ncpus, p->online);
	nc = core_candidates(&p->cores, &p->index, ncpus);
	/* Cores of this node eligible for inference, in order. */
	for (c = 0; c < nc; c++) {
		i = p->index.cand[c];
		if (hwloc_bitmap_isincluded(cores.set[i], ncpus) &&
		    (!hybrid || hwloc_bitmap_isincluded(cores.set[i], p->pset)))
			ncores++;
	}
	skip = (size_t)p->reserve;
	if (ncores <= skip) {
		if (node && ncores)
			plan_note(plan, "node %d has only %zu core%s: nothing reserved there",
			     (int)(id ? id->valuedouble : -1), ncores, ncores == 1 ? "" : "s");
		skip = 0;
	}
	for (c = 0; c < nc; c++) {
		i = p->index.cand[c];
		if (!hwloc_bitmap_isincluded(cores.set[i], ncpus))
			continue;
		if (hybrid && !hwloc_bitmap_isincluded(cores.set[i], p->pset)) {
			hwloc_bitmap_or(p->house, p->house, cores.set[i]);
			continue;
		}
		if (kept++ < skip) {
			hwloc_bitmap_or(resv, resv, cores.set[i]);
			hwloc_bitmap_or(p->house, p->house, cores.set[i]);
			continue;
		}
		/* One hardware thread per core: the first. */
		hwloc_bitmap_set(work, (unsigned)hwloc_bitmap_first(cores.set[i]));
	}
	if (hwloc_bitmap_iszero(work)) {
		plan_note(plan, "node %d: no core left for a worker", (int)(id ? id->valuedouble : -1));
		goto next;
	}
	add_worker(p->workers, id, work, resv, hybrid ? "performance" : "all", p->o);
next:
	hwloc_bitmap_free(ncpus);
	hwloc_bitmap_free(work);
	hwloc_bitmap_free(resv);
}

/* plan.housekeeping: the CPUs no worker got. */
static void add_housekeeping(const struct placement *p)
{
	const int hybrid = p->hybrid;
	cJSON *h = cJSON_AddObjectToObject(p->plan, "housekeeping");
	char *list = setstr(p->house);
	cJSON_AddStringToObject(h, "cpus", list);
	cJSON_AddStringToObject(h, "kind", hybrid ? "efficiency" : "reserved");
	cJSON_AddStringToObject(h, "purpose", hybrid ?
		"the agent's logs, monitoring and heartbeats (E-cores); the main loop and inference on P-cores" :
		"the OS, the orchestrator, logs and monitoring");
	if (*list) {
		char *s = xasprintf("taskset -c %s <housekeeping-command>", list);
		cJSON_AddStringToObject(h, "taskset", s);
		free(s);
		s = xasprintf("taskset -cp %s PID", list);
		cJSON_AddStringToObject(h, "move_running", s);
		free(s);
	}
	cJSON_AddStringToObject(h, "verify", "taskset -cp PID   (the affinity list must match the plan)");
	free(list);
}

static void plan_workers(cJSON *plan, const cJSON *facts, const struct plan_opts *o)
{
	struct placement p = { .plan = plan, .o = o };
	const cJSON *nodes = facts_get(facts, "numa.nodes"), *node;
	size_t i;
	int k = 0;

	p.workers = cJSON_AddArrayToObject(plan, "workers");
	p.pset = hwloc_bitmap_alloc();
	p.eset = hwloc_bitmap_alloc();
	p.house = hwloc_bitmap_alloc();
	p.online = hwloc_bitmap_alloc();
	if (load_cores(facts, &p.cores) < 0) {
		plan_note(plan, "no worker plan: the physical cores (cpu.core_cpus) are unknown, so SMT "
			   "siblings cannot be told apart; see the gaps of 'nodeaudit probe'");
		goto out;
	}
	index_cores(&p.cores, &p.index);
	placement_kinds(&p, facts);
	if (!fact_set(facts_get(facts, "cpu"), "online", p.online))
		for (i = 0; i < p.cores.n; i++)
			hwloc_bitmap_or(p.online, p.online, p.cores.set[i]);

	if (!cJSON_IsArray(nodes) || cJSON_GetArraySize(nodes) == 0) {
		plan_note(plan, "the NUMA nodes are unknown: one worker over all cores, without --membind");
	}
	/* One pass per node, each visited once in order (cJSON's index lookup
	 * is linear); with the nodes unknown, one pseudo node. */
	if (cJSON_IsArray(nodes) && nodes->child)
		cJSON_ArrayForEach(node, nodes)
			place_node(&p, node, k++);
	else
		place_node(&p, NULL, 0);
	add_housekeeping(&p);
	free_index(&p.index);
	free_cores(&p.cores);
out:
	hwloc_bitmap_free(p.pset);
	hwloc_bitmap_free(p.eset);
	hwloc_bitmap_free(p.house);
	hwloc_bitmap_free(p.online);
}

/*** Accelerator feeders ***/

static void plan_feeders(cJSON *plan, const cJSON *facts, const struct plan_opts *o)
{
	const cJSON *accs = facts_get(facts, "pci.accelerators"), *a;
	cJSON *feeders = cJSON_AddArrayToObject(plan, "feeders");
	cJSON_ArrayForEach(a, accs) {
		cJSON *f = cJSON_CreateObject();
		const char *bdf = fj_get_str(a, "bdf");
		const char *dev = fj_get_str(a, "device");
		const char *vendor = fj_get_str(a, "vendor");
		double node;
		char *name = xasprintf("%s%s%s", vendor ? vendor : "", vendor && dev ? " " : "",
				       dev ? dev : (vendor ? "" : "unknown device"));
		cJSON_AddStringToObject(f, "bdf", bdf ? bdf : "?");
		cJSON_AddStringToObject(f, "device", name);
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "integrated"))) {
			cJSON_Delete(f);
			free(name);
			continue;
		}
		if (fj_get_num(a, "numa_node", &node) && num_int_ok(node, 0, NUMA_NODE_MAX)) {
			char *s = xasprintf("numactl --cpunodebind=%d --membind=%d -- %s", (int)node, (int)node,
					    worker_command(o));
			cJSON_AddNumberToObject(f, "node", (int)node);
			cJSON_AddStringToObject(f, "numactl", s);
			free(s);
			if (fj_get_str(a, "local_cpus"))
				cJSON_AddStringToObject(f, "local_cpus", fj_get_str(a, "local_cpus"));
		} else {
			cJSON_AddNullToObject(f, "node");
			cJSON_AddStringToObject(f, "note",
				"its NUMA node is unknown (the firmware does not report it): not guessing; "
				"find the socket from the board manual or 'lspci -vt' and pin the feeder there");
		}
		cJSON_AddItemToArray(feeders, f);
		free(name);
	}
}

/*** Settings steps from findings ***/

/* The value to set for a finding: its fix says, else its expected value (the
 * bound itself for min/max, the first of a list). */
static char *target_value(const cJSON *finding, const cJSON *fix)
{
	const cJSON *v = fix ? cJSON_GetObjectItemCaseSensitive(fix, "value") : NULL;
	if (!v)
		v = cJSON_GetObjectItemCaseSensitive(finding, "expected");
	if (cJSON_IsArray(v))
		v = cJSON_GetArrayItem(v, 0);
	if (cJSON_IsString(v)) {
		const char *s = v->valuestring;
		while (*s == '>' || *s == '<' || *s == '=' || *s == ' ')
			s++;
		return *s ? xstrdup(s) : NULL;
	}
	if (cJSON_IsNumber(v)) {
		/* No cast: 1e300 does not fit a long long (undefined behaviour). */
		if (isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 1e19)
			return xasprintf("%.0f", v->valuedouble);
		return isfinite(v->valuedouble) ? xasprintf("%.15g", v->valuedouble) : NULL;
	}
	if (cJSON_IsObject(v)) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(v, "min");
		if (!m)
			m = cJSON_GetObjectItemCaseSensitive(v, "max");
		/* A bound as the integer it allows (0.5 -> 0, as before). */
		if (cJSON_IsNumber(m) && isfinite(m->valuedouble) && fabs(m->valuedouble) < 1e19)
			return xasprintf("%.0f", trunc(m->valuedouble) + 0.0);
	}
	return NULL;
}

/* One step: the finding it fixes (with what was observed and expected). */
static void add_step(cJSON *steps, const cJSON *finding, const char *kind, const char *key,
		     const char *value, const char *command, const char *text, const char *reason)
{
	cJSON *s = cJSON_CreateObject();
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(finding, "observed");
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(finding, "expected");
	cJSON_AddStringToObject(s, "finding", fj_get_str(finding, "id"));
	if (o)
		cJSON_AddItemToObject(s, "observed", cJSON_Duplicate(o, 1));
	if (e)
		cJSON_AddItemToObject(s, "expected", cJSON_Duplicate(e, 1));
	cJSON_AddStringToObject(s, "kind", kind);
	if (key)
		cJSON_AddStringToObject(s, "key", key);
	if (value)
		cJSON_AddStringToObject(s, "value", value);
	if (command)
		cJSON_AddStringToObject(s, "command", command);
	if (text)
		cJSON_AddStringToObject(s, "text", text);
	if (reason)
		cJSON_AddStringToObject(s, "reason", reason);
	cJSON_AddItemToArray(steps, s);
}

/*
 * The fixes of a finding as data.  A report written by this version carries
 * them (fix[].step/key/value); an older one names only the check, whose
 * catalogue entry says the same.  Returns a new array.
 */
static cJSON *fix_data(const cJSON *f)
{
	const cJSON *fixes = cJSON_GetObjectItemCaseSensitive(f, "fix"), *x;
	const char *id = fj_get_str(f, "id") ? fj_get_str(f, "id") : "";
	const struct check *c = check_find(id);
	const char *key = fj_get_str(f, "key");
	cJSON *out = cJSON_Duplicate(fixes, 1);
	size_t i;
	if (!out)
		out = cJSON_CreateArray();
	cJSON_ArrayForEach(x, out)
		if (fj_get_str(x, "step"))
			return out;
	/* The oldest reports spell a sysctl's key into the ID ("kernel.sysctl.vm.swappiness"). */
	if (!c && str_startswith(id, "kernel.sysctl.") && id[14]) {
		c = check_find("kernel.sysctl");
		key = id + 14;
	}
	if (!c)
		return out;
	/* Older reports: the catalogue's data, with the finding's key and expected value. */
	for (i = 0; i < ARRAY_SIZE(c->fixes) && c->fixes[i].kind; i++) {
		const struct fixdef *d = &c->fixes[i];
		cJSON *m = NULL;
		char *v;
		if (!d->step)
			continue;
		cJSON *y;
		cJSON_ArrayForEach(y, out)
			if (fj_get_str(y, "kind") && !strcmp(fj_get_str(y, "kind"), d->kind) && !fj_get_str(y, "step"))
				m = y;
		if (!m) {
			m = cJSON_CreateObject();
			cJSON_AddStringToObject(m, "kind", d->kind);
			cJSON_AddItemToArray(out, m);
		}
		fj_set(m, "step", cJSON_CreateString(d->step));
		if (d->key)
			fj_set(m, "key", cJSON_CreateString(!strcmp(d->key, "{key}") ? (key ? key : "") : d->key));
		v = d->value && strcmp(d->value, "{expected}") ? xstrdup(d->value) : target_value(f, NULL);
		if (v) {
			fj_set(m, "value", cJSON_CreateString(v));
			free(v);
		}
	}
	return out;
}

/* A fix the generated files cannot carry (lib/quote.h): listed, never written. */
static void refuse(cJSON *plan, const cJSON *finding, const char *kind, const char *key, const char *why)
{
	cJSON *r = cJSON_CreateObject();
	char *k = key ? str_clean(key, CLEAN_LINE) : NULL;
	cJSON_AddStringToObject(r, "finding", fj_get_str(finding, "id"));
	cJSON_AddStringToObject(r, "kind", kind);
	if (key)
		cJSON_AddStringToObject(r, "key", k ? k : key);
	cJSON_AddStringToObject(r, "reason", why);
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(plan, "refused"), r);
	plan_note(plan, "refused the fix of %s%s%s: %s", fj_get_str(finding, "id"), key ? " " : "", key ? (k ? k : key) : "", why);
	free(k);
}

static void plan_steps(cJSON *plan, const cJSON *findings)
{
	cJSON *steps = cJSON_AddArrayToObject(plan, "steps");
	const cJSON *f;
	cJSON_ArrayForEach(f, findings) {
		const char *status = fj_get_str(f, "status");
		const char *reason = fj_get_str(f, "rationale") ? fj_get_str(f, "rationale") :
				     fj_get_str(f, "reason") ? fj_get_str(f, "reason") : fj_get_str(f, "title");
		cJSON *fixes, *x;
		const char *why;
		int typed = 0;
		if (!fj_get_str(f, "id") || !status || (strcmp(status, "warn") && strcmp(status, "fail")))
			continue;
		fixes = fix_data(f);
		/* Settings the shell plan can change idempotently: typed steps, first. */
		cJSON_ArrayForEach(x, fixes) {
			const char *step = fj_get_str(x, "step"), *key = fj_get_str(x, "key");
			char *v;
			if (!step)
				continue;
			v = fj_get_str(x, "value") ? xstrdup(fj_get_str(x, "value")) : target_value(f, x);
			if (!v || ((!strcmp(step, "sysctl") || !strcmp(step, "cmdline")) && (!key || !*key))) {
				free(v);
				continue;
			}
			if ((why = plan_step_why(step, key, v))) {
				refuse(plan, f, step, key, why);
				free(v);
				typed = 1;   /* its untyped twin would only repeat it */
				continue;
			}
			if (!strcmp(step, "cmdline")) {
				char *text = strcmp(v, "true") ? xasprintf("%s=%s", key, v) : xstrdup(key);
				add_step(steps, f, step, key, v, NULL, text, reason);
				free(text);
			} else
				add_step(steps, f, step, key, v, NULL, NULL, reason);
			typed = 1;
			free(v);
		}
		/* Everything else the check suggested, as it said it. */
		cJSON_ArrayForEach(x, fixes) {
			const char *kind = fj_get_str(x, "kind");
			if (!kind || fj_get_str(x, "step"))
				continue;
			/* A sysctl without a value to set is a choice for the admin: shown, not set. */
			if (typed && !strcmp(kind, "sysctl"))
				continue;
			if ((why = plan_step_why(kind, fj_get_str(x, "key"), fj_get_str(x, "value")))) {
				refuse(plan, f, kind, fj_get_str(x, "key"), why);
				continue;
			}
			add_step(steps, f, kind, fj_get_str(x, "key"), fj_get_str(x, "value"), fj_get_str(x, "command"),
				 fj_get_str(x, "text"), reason);
		}
		cJSON_Delete(fixes);
	}
}

/*** A report's strings ***/

/* A string a plan acts on: NULL, or "KEY: why" (malloc'd). */
static char *str_refusal(const cJSON *j, const char *key)
{
	long c;
	const cJSON *it;
	int i = 0;
	if (cJSON_IsArray(j) || cJSON_IsObject(j)) {
		cJSON_ArrayForEach(it, j) {
			char *k = cJSON_IsArray(j) ? xasprintf("%s[%d]", key, i) : xasprintf("%s.%s", key, it->string);
			char *why = str_refusal(it, k);
			free(k);
			if (why)
				return why;
			i++;
		}
		return NULL;
	}
	if (!cJSON_IsString(j) || (c = str_ctrl(j->valuestring)) < 0)
		return NULL;
	if (c == 0xfffd)
		return xasprintf("%s: invalid UTF-8", key);
	return xasprintf("%s: control character U+%04lX is not allowed (a plan would carry it)", key,
			 (unsigned long)c);
}

char *plan_sweep_refusal(const cJSON *nodes, const char *where)
{
	static const struct { const char *key; long long lo, hi; } nums[] = {
		{ "node", 0, NUMA_NODE_MAX },
		{ "knee_threads", 1, SR_MAX_CPUS },
		{ "cores", 0, SR_MAX_CPUS },
		{ "pus", 0, SR_MAX_CPUS },
	};
	const cJSON *n, *pt;
	char *why = NULL, *p;
	int i = 0, j;
	size_t k;
	cJSON_ArrayForEach(n, nodes) {
		for (k = 0; k < ARRAY_SIZE(nums) && !why; k++) {
			p = xasprintf("%s[%d].%s", where, i, nums[k].key);
			why = fj_int_refusal(cJSON_GetObjectItemCaseSensitive(n, nums[k].key), p, nums[k].lo, nums[k].hi);
			free(p);
		}
		j = 0;
		cJSON_ArrayForEach(pt, cJSON_GetObjectItemCaseSensitive(n, "points")) {
			if (why)
				break;
			p = xasprintf("%s[%d].points[%d].threads", where, i, j++);
			why = fj_int_refusal(cJSON_GetObjectItemCaseSensitive(pt, "threads"), p, 1, SR_MAX_CPUS);
			free(p);
		}
		if (why)
			return why;
		i++;
	}
	return NULL;
}

char *plan_report_refusal(const cJSON *report)
{
	static const char *const fkeys[] = { "id", "key", "status", "expected", NULL };
	static const char *const xkeys[] = { "step", "kind", "key", "value", NULL };
	const cJSON *f, *x;
	char *why;
	int i = 0, j, k;
	if ((why = str_refusal(facts_get(report, "profile.name"), "profile.name")))
		return why;
	if ((why = plan_sweep_refusal(facts_get(report, "facts.bench.sweep.nodes"), "facts.bench.sweep.nodes")))
		return why;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(report, "findings")) {
		char *p;
		for (k = 0; fkeys[k]; k++) {
			p = xasprintf("findings[%d].%s", i, fkeys[k]);
			why = str_refusal(cJSON_GetObjectItemCaseSensitive(f, fkeys[k]), p);
			free(p);
			if (why)
				return why;
		}
		j = 0;
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(f, "fix")) {
			for (k = 0; xkeys[k]; k++) {
				p = xasprintf("findings[%d].fix[%d].%s", i, j, xkeys[k]);
				why = str_refusal(cJSON_GetObjectItemCaseSensitive(x, xkeys[k]), p);
				free(p);
				if (why)
					return why;
			}
			j++;
		}
		i++;
	}
	return NULL;
}

cJSON *plan_build(const cJSON *facts, const cJSON *findings, const char *profile,
		  const struct plan_opts *o)
{
	cJSON *plan = cJSON_CreateObject();
	const cJSON *host = facts_get(facts, "host");
	cJSON_AddStringToObject(plan, "schema", "nodeaudit.plan/1");
	if (host)
		cJSON_AddItemToObject(plan, "host", cJSON_Duplicate(host, 1));
	if (profile)
		cJSON_AddStringToObject(plan, "profile", profile);
	else
		cJSON_AddNullToObject(plan, "profile");
	cJSON_AddStringToObject(plan, "command", worker_command(o));
	cJSON_AddStringToObject(plan, "unit", o->unit && *o->unit ? o->unit : "inference-worker");
	cJSON_AddArrayToObject(plan, "notes");
	cJSON_AddArrayToObject(plan, "refused");
	plan_workers(plan, facts, o);
	plan_kubelet(plan, facts);
	plan_tuned(plan, facts);
	plan_feeders(plan, facts, o);
	plan_steps(plan, findings);
	plan_runtime_apply(plan, facts, o);
	if (!o->runtime && (!o->command || !*o->command))
		plan_note(plan, "the worker command is a placeholder: give it with --command \"llama-server -m MODEL.gguf\"");
	/* A fresh Debian has taskset (util-linux) but not numactl. */
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(plan, "workers")) ||
	    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(plan, "feeders")))
		plan_note(plan, "numactl runs the workers; install it first: apt install numactl (dnf install numactl)");
	return plan;
}
