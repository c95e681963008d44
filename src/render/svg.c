/* render/svg.c - the node as a drawing (SVG), laid out as lstopo lays it out:
 * the machine, groups where a NUMA node spans packages, packages side by
 * side, NUMA nodes, L3 groups with the smaller caches counted, cores with
 * their hardware threads; memory channels and slots, or the DIMMs the SMBIOS
 * table names; PCI devices under their host bridge and bridges, in the box
 * of their locality; each finding colours the part it is about and says why */
#include "config.h"
#include "render/svg-internal.h"
#include "audit/check-catalog.h"
#include "lib/facts.h"
#include "render/markup.h"
#include "render/render.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * One drawing for `probe --format svg` (facts only: nothing is coloured),
 * `check --format svg` and the page of `check --format html` (the findings
 * colour the parts they name, each with its reason as a visible line and in
 * the part's <title>; a legend lists them).  The renderer only formats: the
 * tree of boxes is made from the facts, measured, placed, then drawn
 * (render/svg-draw.c), every string through render/markup.h.  The output
 * depends on the document only.
 */

/* The boxes that have CPUs, for placing host bridges: the machine first,
 * then outer boxes before inner ones. */
struct holder {
	struct box *b;
	hwloc_bitmap_t cpus;
	int node;          /* a NUMA node's box: its id, else -1 */
};

struct tree {
	struct svg *g;
	int lcore;          /* the next core's logical index */
	struct holder h[512];
	size_t nh;
};

static void hold(struct tree *t, struct box *b, hwloc_const_bitmap_t cpus, int node)
{
	if (t->nh < ARRAY_SIZE(t->h)) {
		t->h[t->nh].b = b;
		t->h[t->nh].cpus = hwloc_bitmap_dup(cpus);
		t->h[t->nh++].node = node;
	}
}

static void cpus_attr(struct box *b, hwloc_const_bitmap_t set)
{
	char *s = NULL;
	if (hwloc_bitmap_list_asprintf(&s, set) >= 0 && s)
		box_attr(b, "data-cpus", "%s", s);
	free(s);
}

/* "P", "E" or "" by cpu.kinds for a core's CPUs. */
static const char *core_kind(const cJSON *facts, const char *cpus)
{
	const cJSON *k, *kinds = jget(facts, "cpu.kinds");
	if (cJSON_GetArraySize(kinds) < 2)
		return "";
	cJSON_ArrayForEach(k, kinds) {
		const char *name = jstr(k, "name"), *kc = jstr(k, "cpus");
		hwloc_bitmap_t s = svg_set_of(kc);
		int hit = kc && svg_subset(cpus, s);
		hwloc_bitmap_free(s);
		if (hit && name)
			return !strcmp(name, "performance") ? "P" : !strcmp(name, "efficiency") ? "E" : "";
	}
	return "";
}

/*** Cores and caches ***/

static int cores_in(const cJSON *facts, hwloc_const_bitmap_t set)
{
	const cJSON *c;
	int n = 0;
	cJSON_ArrayForEach(c, jget(facts, "cpu.core_cpus"))
		n += cJSON_IsString(c) && svg_subset(c->valuestring, set);
	return n;
}

/* A hardware thread's box, P#cpu, in parent (its title the caller's). */
static struct box *add_thread(struct box *parent, int cpu)
{
	struct box *p = box_new(parent, "thread", "#dde3ea", "#8c959f");
	p->size = 10;
	p->rx = 2;
	p->min_w = 34;
	box_attr(p, "data-os", "%d", cpu);
	box_line(p, 0, "P#%d", cpu);
	return p;
}

static void add_core(struct tree *t, struct box *parent, const char *cpus, int lidx)
{
	const char *kind = core_kind(t->g->facts, cpus);
	hwloc_bitmap_t s = svg_set_of(cpus);
	const struct mark *smt = svg_mark_of(t->g, "smt");
	struct box *c = box_new(parent, "core", "#ffffff", C_LINE);
	int cpu, i = 0;
	cpus_attr(c, s);
	box_attr(c, "data-threads", "%d", hwloc_bitmap_weight(s));
	box_attr(c, "data-kind", "%s", *kind ? kind : "C");
	c->size = 10;
	box_line(c, 0, "%sCore L#%d", !strcmp(kind, "P") ? "P-" : !strcmp(kind, "E") ? "E-" : "", lidx);
	box_title(c, "%score L#%d, CPUs %s", !strcmp(kind, "P") ? "performance " : !strcmp(kind, "E") ?
		  "efficiency " : "", lidx, cpus);
	hwloc_bitmap_foreach_begin(cpu, s) {
		struct box *p = add_thread(c, cpu);
		box_title(p, "hardware thread (PU) P#%d", cpu);
		if (i++ > 0)
			box_mark(p, smt);
	} hwloc_bitmap_foreach_end();
	hwloc_bitmap_free(s);
}

static int core_cols(int n)
{
	return n <= 4 ? n : n / 2 + n % 2 > 8 ? 8 : n / 2 + n % 2;
}

/* "8x L2 256 KiB · 8x L1d 32 KiB": the smaller caches of set, counted. */
static void caches_line(const cJSON *facts, hwloc_const_bitmap_t set, char *buf, size_t n)
{
	static const char *const lv[] = { "l2", "l1d" };
	size_t i, k = 0;
	char b[32];
	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(lv); i++) {
		const cJSON *c = jget(jget(facts, "cpu.caches"), lv[i]), *inst;
		int cnt = 0;
		cJSON_ArrayForEach(inst, jget(c, "instance_cpus"))
			cnt += cJSON_IsString(inst) && svg_subset(inst->valuestring, set);
		if (cnt && k < n)
			k += (size_t)snprintf(buf + k, n - k, "%s%dx %s %s", k ? " \xc2\xb7 " : "", cnt,
					      i ? "L1d" : "L2", svg_bytes_h(jnum(c, "size_bytes"), b, sizeof(b)));
	}
}

/* The L3 groups of set with their cores, then cores in no group. */
static void add_cores(struct tree *t, struct box *parent, hwloc_const_bitmap_t set, int loose_cpus)
{
	const cJSON *facts = t->g->facts, *l3 = jget(facts, "cpu.caches.l3"), *inst, *c;
	hwloc_bitmap_t rest = hwloc_bitmap_dup(set);
	char b[32], cl[160];
	cJSON_ArrayForEach(inst, jget(l3, "instance_cpus")) {
		hwloc_bitmap_t s;
		struct box *g;
		int n = 0;
		if (!cJSON_IsString(inst) || !svg_meets(inst->valuestring, set))
			continue;
		s = svg_set_of(inst->valuestring);
		hwloc_bitmap_and(s, s, set);
		hwloc_bitmap_andnot(rest, rest, s);
		g = box_new(parent, "l3", "#eef1f4", "#8c959f");
		cpus_attr(g, s);
		g->size = 10;
		box_line(g, 0, "L3 %s", svg_bytes_h(jnum(l3, "size_bytes"), b, sizeof(b)));
		caches_line(facts, s, cl, sizeof(cl));
		if (*cl)
			box_line(g, 1, "%s", cl);
		box_title(g, "L3 cache shared by CPUs %s", inst->valuestring);
		cJSON_ArrayForEach(c, jget(facts, "cpu.core_cpus")) {
			if (cJSON_IsString(c) && svg_subset(c->valuestring, s))
				n++;
		}
		g->cols = core_cols(n);
		hwloc_bitmap_free(s);
	}
	/* The cores, each in its L3 group (or in parent), numbered in order. */
	cJSON_ArrayForEach(c, jget(facts, "cpu.core_cpus")) {
		struct box *at = parent;
		size_t k;
		if (!cJSON_IsString(c) || !svg_subset(c->valuestring, set))
			continue;
		for (k = 0; k < parent->nkid; k++)
			if (!strcmp(parent->kid[k]->part, "l3")) {
				hwloc_bitmap_t s = svg_set_of(parent->kid[k]->av[0]);
				int in = svg_subset(c->valuestring, s);
				hwloc_bitmap_free(s);
				if (in) {
					at = parent->kid[k];
					break;
				}
			}
		add_core(t, at, c->valuestring, t->lcore++);
	}
	if (!hwloc_bitmap_iszero(rest) && cores_in(facts, rest) == cores_in(facts, set)) {
		caches_line(facts, set, cl, sizeof(cl));
		if (*cl && !parent->label[2])
			box_line(parent, 2, "%s", cl);
	}
	/* With no package known (loose): the online CPUs of set in no known
	 * core (cpu.core_cpus null or without them: topology files missing
	 * or unreadable), each drawn as a hardware thread of its own, its
	 * core said to be unknown, never a core the facts do not give. */
	if (loose_cpus) {
		hwloc_bitmap_t loose = hwloc_bitmap_dup(set);
		int cpu;
		if (jstr(jget(facts, "cpu"), "online")) {
			hwloc_bitmap_t on = svg_set_of(jstr(jget(facts, "cpu"), "online"));
			hwloc_bitmap_and(loose, loose, on);
			hwloc_bitmap_free(on);
		}
		cJSON_ArrayForEach(c, jget(facts, "cpu.core_cpus"))
			if (cJSON_IsString(c)) {
				hwloc_bitmap_t s = svg_set_of(c->valuestring);
				hwloc_bitmap_andnot(loose, loose, s);
				hwloc_bitmap_free(s);
			}
		hwloc_bitmap_foreach_begin(cpu, loose) {
			struct box *p = add_thread(parent, cpu);
			p->dashed = 1;
			box_title(p, "hardware thread (PU) P#%d: online, its core unknown (cpu.core_cpus)", cpu);
		} hwloc_bitmap_foreach_end();
		hwloc_bitmap_free(loose);
	}
	{
		int n = 0;
		size_t k;
		for (k = 0; k < parent->nkid; k++)
			n += !strcmp(parent->kid[k]->part, "core");
		if (n && n == (int)parent->nkid)
			parent->cols = core_cols(n);
	}
	hwloc_bitmap_free(rest);
}

/*** Memory ***/

static int on_package(const cJSON *ch, int pkg, int npk)
{
	double p = jnum(ch, "package");
	return isnan(p) ? pkg == 0 || npk <= 1 : p == (double)pkg;   /* no cast: a report may say 1e300 */
}

/* The channels of package pkg with their slots by locator; an empty slot
 * is dashed and named. */
static void add_channels(struct tree *t, struct box *parent, int pkg, int npk)
{
	struct svg *g = t->g;
	const cJSON *list = jget(g->facts, "memory.channels.list"), *ch, *loc;
	struct box *m;
	int nch = 0, pop = 0;
	double tot = 0;
	char b[32];
	if (!cJSON_IsArray(list))
		return;
	cJSON_ArrayForEach(ch, list)
		if (on_package(ch, pkg, npk)) {
			nch++;
			pop += jnum(ch, "dimms") > 0;
			tot += isnan(jnum(ch, "size_bytes")) ? 0 : jnum(ch, "size_bytes");
		}
	if (!nch)
		return;
	m = box_new(parent, "memory", "#ffffff", "#d0d7de");
	m->size = 10;
	box_line(m, 0, "Memory: %d of %d channels populated \xc2\xb7 %s", pop, nch, svg_bytes_h(tot, b, sizeof(b)));
	cJSON_ArrayForEach(ch, list) {
		const cJSON *locs = jget(ch, "locators"), *emp = jget(ch, "empty_slots");
		const char *name = jstr(ch, "name");
		double dimms = jnum(ch, "dimms");
		struct box *c;
		if (!on_package(ch, pkg, npk))
			continue;
		c = box_new(m, dimms > 0 ? "channel" : "channel-empty", "#f6f8fa", C_LINE);
		c->size = 10;
		c->dashed = !(dimms > 0);
		c->cols = 1;
		c->min_w = 70;
		box_line(c, 0, "Ch %s", name ? name : "?");
		if (!cJSON_GetArraySize(locs))
			box_line(c, 1, "%.0f DIMM%s", isnan(dimms) ? 0 : dimms, dimms == 1 ? "" : "s");
		box_mark(c, svg_mark_of(g, "channel:%d:%s", pkg, name ? name : "?"));
		box_title(c, "channel %s: %.0f DIMM%s, %s", name ? name : "?", isnan(dimms) ? 0 : dimms,
			  dimms == 1 ? "" : "s", svg_bytes_h(jnum(ch, "size_bytes"), b, sizeof(b)));
		cJSON_ArrayForEach(loc, locs) {
			const char *l = cJSON_IsString(loc) ? loc->valuestring : "?";
			const cJSON *e;
			int empty = 0;
			struct box *s;
			cJSON_ArrayForEach(e, emp)
				empty |= cJSON_IsString(e) && !strcmp(e->valuestring, l);
			s = box_new(c, empty ? "slot-empty" : "dimm", empty ? "#ffffff" : "#c9d1d9", empty ? "#6e7781" : C_LINE);
			s->size = 9;
			s->rx = 2;
			s->dashed = empty;
			s->min_w = 58;
			box_attr(s, "data-locator", "%s", l);
			box_line(s, 1, "%s", l);
			box_mark(s, svg_mark_of(g, "%s:%s", empty ? "slot" : "dimm", l));
			box_title(s, "%s: %s", l, empty ? "empty slot" : "DIMM");
		}
	}
}

/* The DIMMs the SMBIOS table names when no channel is known, and the empty
 * slots it counts. */
static void add_dimms(struct tree *t, struct box *parent)
{
	struct svg *g = t->g;
	const cJSON *d;
	struct box *m;
	double total = jnum(g->facts, "memory.slots.total"), pop = jnum(g->facts, "memory.slots.populated");
	char b[32];
	if (cJSON_IsArray(jget(g->facts, "memory.channels.list")) || !cJSON_GetArraySize(jget(g->facts, "memory.dimms")))
		return;
	m = box_new(parent, "memory", "#ffffff", "#d0d7de");
	m->size = 10;
	box_line(m, 0, "DIMMs (channels not known)");
	cJSON_ArrayForEach(d, jget(g->facts, "memory.dimms")) {
		const char *l = jstr(d, "locator") ? jstr(d, "locator") : "?";
		struct box *s = box_new(m, "dimm", "#c9d1d9", C_LINE);
		s->size = 9;
		s->rx = 2;
		box_attr(s, "data-locator", "%s", l);
		box_line(s, 0, "%s", l);
		box_line(s, 1, "%s%s%s", svg_bytes_h(jnum(d, "size_bytes"), b, sizeof(b)),
			 jstr(d, "type") ? " " : "", jstr(d, "type") ? jstr(d, "type") : "");
		box_mark(s, svg_mark_of(g, "dimm:%s", l));
		box_title(s, "%s: DIMM", l);
	}
	if (!isnan(total) && !isnan(pop) && total > pop && total - pop < 1e6) {
		struct box *s = box_new(m, "slots-empty", "#ffffff", "#6e7781");
		s->dashed = 1;
		s->size = 9;
		box_line(s, 0, "%.0f empty", total - pop);
		box_line(s, 1, "slots");
		box_title(s, "%.0f of %.0f slots empty (the table names none of them)", total - pop, total);
	}
}

/* The memory of the machine in one line: where a finding about it all goes. */
static void add_memory_total(struct tree *t, struct box *parent)
{
	const cJSON *f = t->g->facts;
	double tot = jnum(f, "memory.total_bytes"), st = jnum(f, "memory.slots.total"), sp = jnum(f, "memory.slots.populated");
	double cores = jnum(f, "cpu.cores");
	struct box *m = box_new(parent, "memory-total", "#ffffff", C_LINE);
	char b[32], c[32], line[160];
	size_t k = 0;
	m->size = 11;
	if (isnan(tot) && isnan(st))
		k += (size_t)snprintf(line, sizeof(line), "Memory: size unknown");
	else
		k += (size_t)snprintf(line, sizeof(line), "Memory %s", svg_bytes_h(tot, b, sizeof(b)));
	if (!isnan(tot) && cores > 0 && k < sizeof(line))
		k += (size_t)snprintf(line + k, sizeof(line) - k, " \xc2\xb7 %s per core", svg_bytes_h(tot / cores, c, sizeof(c)));
	if (!isnan(st) && !isnan(sp) && k < sizeof(line))
		snprintf(line + k, sizeof(line) - k, " \xc2\xb7 %.0f of %.0f slots", sp, st);
	box_line(m, 0, "%s", line);
	m->stretch = !cJSON_GetArraySize(jget(f, "memory.dimms")) || cJSON_IsArray(jget(f, "memory.channels.list"));
	box_mark(m, svg_mark_of(t->g, "memory"));
	box_title(m, "the machine's memory");
}

/*** NUMA nodes, packages, groups ***/

static int node_id(const cJSON *nd)
{
	double v = jnum(nd, "id");
	return isnan(v) ? -2 : num_clamp(v, -2, 1 << 20);
}

static void node_text(const cJSON *nd, char *t, size_t n)
{
	char b[32];
	int k = snprintf(t, n, "NUMA node P#%d", node_id(nd));
	if (!isnan(jnum(nd, "memory_bytes")) && k > 0 && (size_t)k < n)
		snprintf(t + k, n - (size_t)k, " \xc2\xb7 %s", svg_bytes_h(jnum(nd, "memory_bytes"), b, sizeof(b)));
}

/* A NUMA node as a strip (its CPUs are its box's). */
static struct box *add_numa_strip(struct tree *t, struct box *parent, const cJSON *nd)
{
	struct box *s = box_new(parent, "numa-node", "#dff0e6", "#4d8a62");
	char txt[96];
	const char *cl = jstr(nd, "cpus");
	node_text(nd, txt, sizeof(txt));
	s->stretch = 1;
	s->size = 11;
	box_attr(s, "data-node", "%d", node_id(nd));
	if (cl && *cl)
		box_attr(s, "data-cpus", "%s", cl);
	box_line(s, 0, "%s%s", txt, cl && !*cl ? " \xc2\xb7 no CPUs (memory only)" : !cl ? " \xc2\xb7 CPUs unknown" : "");
	box_mark(s, svg_mark_of(t->g, "numa"));
	box_title(s, "%s, CPUs %s", txt, cl ? (*cl ? cl : "none") : "unknown");
	return s;
}

static void add_package(struct tree *t, struct box *parent, int pkg, int npk, hwloc_const_bitmap_t set)
{
	struct svg *g = t->g;
	const cJSON *nodes = jget(g->facts, "numa.nodes"), *nd, *sock;
	struct box *p = box_new(parent, "package", "#ffffff", C_TEXT);
	const char *ver;
	char *cl;   /* whole: the title carries what the drawing's lines leave out */
	int ninside = 0, equal = 0;
	p->rx = 6;
	p->size = 12;
	box_attr(p, "data-package", "%d", pkg);
	cpus_attr(p, set);
	cl = cpulist_dup(set);
	box_line(p, 0, "Package P#%d", pkg);
	sock = cJSON_GetArrayItem(jget(g->facts, "platform.sockets"), pkg);
	ver = jstr(sock, "version") ? jstr(sock, "version") : jstr(g->facts, "cpu.model_name");
	if (ver)
		box_line(p, 1, "%s", ver);
	box_mark(p, svg_mark_of(g, "package"));
	box_title(p, "package %d: CPUs %s, %d cores", pkg, cl, cores_in(g->facts, set));
	free(cl);
	hold(t, p, set, -1);
	cJSON_ArrayForEach(nd, nodes) {
		hwloc_bitmap_t s = svg_set_of(jstr(nd, "cpus"));
		if (!hwloc_bitmap_iszero(s) && hwloc_bitmap_isincluded(s, set)) {
			ninside++;
			equal |= hwloc_bitmap_isequal(s, set);
		}
		hwloc_bitmap_free(s);
	}
	if (ninside == 1 && equal) {
		cJSON_ArrayForEach(nd, nodes) {
			hwloc_bitmap_t s = svg_set_of(jstr(nd, "cpus"));
			if (hwloc_bitmap_isequal(s, set))
				add_numa_strip(t, p, nd);
			hwloc_bitmap_free(s);
		}
	}
	add_channels(t, p, pkg, npk);
	if (ninside > 1 || (ninside == 1 && !equal)) {
		/* Several nodes in the package: a box each, with its cores. */
		hwloc_bitmap_t rest = hwloc_bitmap_dup(set);
		cJSON_ArrayForEach(nd, nodes) {
			hwloc_bitmap_t s = svg_set_of(jstr(nd, "cpus"));
			if (!hwloc_bitmap_iszero(s) && hwloc_bitmap_isincluded(s, set)) {
				struct box *b = box_new(p, "numa-node", "#f4faf6", "#4d8a62");
				char txt[96];
				node_text(nd, txt, sizeof(txt));
				b->size = 11;
				box_attr(b, "data-node", "%d", node_id(nd));
				cpus_attr(b, s);
				box_line(b, 0, "%s", txt);
				box_mark(b, svg_mark_of(g, "numa"));
				box_title(b, "%s, CPUs %s", txt, jstr(nd, "cpus"));
				hold(t, b, s, node_id(nd));
				add_cores(t, b, s, 0);
				hwloc_bitmap_andnot(rest, rest, s);
			}
			hwloc_bitmap_free(s);
		}
		if (cores_in(g->facts, rest))
			add_cores(t, p, rest, 0);
		hwloc_bitmap_free(rest);
	} else
		add_cores(t, p, set, 0);
}

/*** The drawing ***/

static void add_legend(struct tree *t, struct box *machine, const cJSON *findings)
{
	struct svg *g = t->g;
	struct box *l;
	size_t i;
	int any = 0;
	if (!findings)
		return;
	l = box_new(machine, "legend", "#ffffff", "#d0d7de");
	l->stretch = 1;
	l->size = 11;
	/* Each finding drawn once: those that own a part, then those that
	 * share one (the part's title names both). */
	for (i = 0; i < 2 * g->nm; i++) {
		const struct mark *m = &g->m[i % g->nm];
		const char *why = i < g->nm ? m->why : m->also;
		size_t j;
		int dup = 0;
		if (!why || !m->drawn)
			continue;
		for (j = 0; j < i; j++) {
			const struct mark *o = &g->m[j % g->nm];
			const char *w2 = j < g->nm ? o->why : o->also;
			dup |= o->drawn && w2 && !strcmp(w2, why);
		}
		if (dup)
			continue;
		{
			struct box *e = box_new(l, "legend-item", svg_fill_of(m->rank, "#ffffff"), svg_line_of(m->rank, C_LINE));
			e->size = 10;
			box_line(e, 0, "%s %s", m->rank == MARK_FAIL ? "fail" : "warn", why);
			if (i < g->nm && m->title)
				box_line(e, 1, "%s", m->title);
			else if (i >= g->nm)
				box_line(e, 1, "on the same part as %s", m->why);
			any = 1;
		}
	}
	box_line(l, 0, any ? "Findings on this drawing (each on its part, with its reason)" :
		 "No finding names a part of this drawing");
}

/* A finding's value as a few words: 60, "madvise", true. */
/* The value for a box's line (malloc'd): a string clipped to 40
 * characters with "..." (*clipped set; the title then says it whole). */
static char *value_text(const cJSON *v, int *clipped)
{
	*clipped = 0;
	if (cJSON_IsNumber(v))
		return xasprintf("%.15g", v->valuedouble);
	if (cJSON_IsString(v)) {
		size_t n = strlen(v->valuestring) + 4;
		char *s = xmalloc(n);
		svg_clip(v->valuestring, 40, s, n);
		*clipped = strcmp(s, v->valuestring) != 0;
		return s;
	}
	return xstrdup(cJSON_IsBool(v) ? (cJSON_IsTrue(v) ? "true" : "false") : "unknown");
}

/* The findings about the host, its kernel and the process (sysctls, THP,
 * swap, hugepages, the command line, NUMA balancing, cgroup limits,
 * virtualization): one box each, in a strip of their own, each with its
 * value and what was expected.  Drawn only when some such finding warns
 * or fails: a part nobody named is not drawn empty. */
static void add_settings(struct tree *t, struct box *machine, const cJSON *findings)
{
	const cJSON *f;
	struct box *s = NULL;
	cJSON_ArrayForEach(f, findings) {
		const char *id = jstr(f, "id"), *key = jstr(f, "key"), *exp = jstr(f, "expected");
		const struct check *c = id ? check_find(id) : NULL;
		const struct mark *mk;
		struct box *b;
		char *v;
		int clipped;
		if (!c || c->part != PART_SETTING || !(mk = svg_setting_mark(t->g, f)))
			continue;
		if (!s) {
			s = box_new(machine, "settings", "#ffffff", "#d0d7de");
			s->stretch = 1;
			s->size = 11;
			box_line(s, 0, "Host, kernel and process settings");
			box_title(s, "settings checked that are not a part of the hardware");
		}
		b = box_new(s, "setting", "#ffffff", C_LINE);
		b->size = 10;
		box_attr(b, "data-check", "%s", id);
		box_line(b, 0, "%s", key ? key : id);
		v = value_text(jget(f, "observed"), &clipped);
		box_line(b, 1, "%s, expected %s", v, exp ? exp : "?");
		if (clipped)   /* the value whole */
			box_title(b, "%s%s%s\nobserved %s", id, key ? " " : "", key ? key : "",
				  jget(f, "observed")->valuestring);
		else
			box_title(b, "%s%s%s", id, key ? " " : "", key ? key : "");
		free(v);
		box_mark(b, mk);
	}
}

/* Marks the boxes carry (before drawing: the legend lists them). */
static void note_drawn(const struct box *b)
{
	size_t k;
	if (b->mk)
		((struct mark *)b->mk)->drawn = 1;
	for (k = 0; k < b->nkid; k++)
		note_drawn(b->kid[k]);
}

/* The smallest box that holds set (of equal ones the outermost), or NULL. */
static struct box *holder_of(const struct tree *t, hwloc_const_bitmap_t set)
{
	struct box *at = NULL;
	int best = 1 << 30;
	size_t j;
	for (j = 0; j < t->nh && !hwloc_bitmap_iszero(set); j++)
		if (hwloc_bitmap_isincluded(set, t->h[j].cpus) && hwloc_bitmap_weight(t->h[j].cpus) < best) {
			best = hwloc_bitmap_weight(t->h[j].cpus);
			at = t->h[j].b;
		}
	return at;
}

static void place_pci(struct tree *t, struct box *machine)
{
	struct pci_place *pl;
	size_t n = svg_pci_places(t->g, &pl), i;
	struct box *unknown = NULL;
	const cJSON *nodes = jget(t->g->facts, "numa.nodes");
	for (i = 0; i < n; i++) {
		struct box *at;
		/* Only the CPUs the machine has (a mask may name more). */
		if (t->nh)
			hwloc_bitmap_and(pl[i].cpus, pl[i].cpus, t->h[0].cpus);
		if (hwloc_bitmap_iszero(pl[i].cpus) && cJSON_GetArraySize(nodes) <= 1 && t->nh)
			hwloc_bitmap_copy(pl[i].cpus, t->h[0].cpus);
		if (!(at = holder_of(t, pl[i].cpus))) {
			if (!unknown) {
				unknown = box_new(machine, "numa-unknown", "#ffffff", C_LINE);
				unknown->dashed = 1;
				box_line(unknown, 0, "Locality not reported (numa_node -1, no local CPUs)");
			}
			at = unknown;
		}
		svg_pci_box(t->g, at, pl[i].hb);
	}
	svg_pci_places_free(pl, n);
}

/*
 * Where a NUMA node without CPUs (HBM, CXL memory, a far memory tier)
 * belongs, as hwloc's Linux backend places it when the firmware gives no
 * HMAT initiators (topology-linux.c, fixup_cpuless_node_locality_from_
 * distances()): with the CPUs of the nodes nearest to it by the distance
 * table, when those are nearer than its own distance says and are not all
 * the other nodes; nodes in the order of the table, a node placed before
 * lending its CPUs to the ones after it.  locs[i]: node i's CPUs (its own,
 * or those lent), empty when nothing says.
 */
static hwloc_bitmap_t *node_localities(const cJSON *nodes, int *n_out)
{
	int n = cJSON_GetArraySize(nodes), i, j;
	hwloc_bitmap_t *locs = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*locs));
	const cJSON *nd;
	i = 0;
	cJSON_ArrayForEach(nd, nodes)
		locs[i++] = svg_set_of(jstr(nd, "cpus"));
	for (i = 0; i < n; i++) {
		const cJSON *d = jget(cJSON_GetArrayItem(nodes, i), "distances");
		double self, min = INFINITY;
		int nb = 0;
		if (!hwloc_bitmap_iszero(locs[i]) || !jstr(cJSON_GetArrayItem(nodes, i), "cpus") ||
		    cJSON_GetArraySize(d) != n)
			continue;
		self = cJSON_IsNumber(cJSON_GetArrayItem(d, i)) ? cJSON_GetArrayItem(d, i)->valuedouble : NAN;
		for (j = 0; j < n; j++) {
			double v = cJSON_IsNumber(cJSON_GetArrayItem(d, j)) ? cJSON_GetArrayItem(d, j)->valuedouble : NAN;
			if (j == i || isnan(v))
				continue;
			if (v < min) {
				min = v;
				nb = 1;
			} else if (v == min)
				nb++;
		}
		if (isnan(self) || min <= self || isinf(min) || nb == n - 1)
			continue;
		for (j = 0; j < n; j++)
			if (j != i && cJSON_IsNumber(cJSON_GetArrayItem(d, j)) && cJSON_GetArrayItem(d, j)->valuedouble == min)
				hwloc_bitmap_or(locs[i], locs[i], locs[j]);
	}
	*n_out = n;
	return locs;
}

/* A NUMA node that spans packages (not all of them): a group of those
 * packages with the node; one that spans all is the machine's. */
static void add_groups(struct tree *t, struct box *machine, hwloc_bitmap_t *pk, int *grp, int npk)
{
	const cJSON *nd;
	size_t k;
	int i;
	k = 0;
	cJSON_ArrayForEach(nd, jget(t->g->facts, "numa.nodes")) {
		hwloc_bitmap_t s = svg_set_of(jstr(nd, "cpus")), u;
		int n = 0, first = -1;
		struct box *gb;
		for (i = 0; i < npk; i++)
			if (hwloc_bitmap_intersects(s, pk[i]) && grp[i] < 0) {
				n++;
				if (first < 0)
					first = i;
			}
		if (n < 2 || n == npk) {
			/* In one package, or in all of them: the machine's node. */
			if (n == npk && npk > 1)
				add_numa_strip(t, machine, nd);
			hwloc_bitmap_free(s);
			continue;
		}
		gb = box_new(machine, "group", "#fafbfc", "#6e7781");
		gb->rx = 7;
		gb->size = 11;
		u = hwloc_bitmap_alloc();
		for (i = 0; i < npk; i++)
			if (hwloc_bitmap_intersects(s, pk[i]) && grp[i] < 0) {
				grp[i] = (int)k;
				hwloc_bitmap_or(u, u, pk[i]);
			}
		cpus_attr(gb, u);
		box_line(gb, 0, "Group: NUMA node %d spans %d packages", node_id(nd), n);
		box_title(gb, "packages sharing NUMA node %d", node_id(nd));
		hold(t, gb, u, -1);
		add_numa_strip(t, gb, nd);
		for (i = 0; i < npk; i++)
			if (grp[i] == (int)k)
				add_package(t, gb, i, npk, pk[i]);
		hwloc_bitmap_free(u);
		hwloc_bitmap_free(s);
		k++;
	}
}

static struct box *build(struct svg *g, const cJSON *host_obj, const cJSON *findings)
{
	struct tree *t = xcalloc(1, sizeof(*t));
	const cJSON *facts = g->facts, *c, *nd, *nodes = jget(facts, "numa.nodes");
	const char *host = jstr(host_obj, "hostname"), *kernel = jstr(facts, "kernel.version");
	struct box *machine = box_new(NULL, "machine", "#ffffff", C_TEXT);
	hwloc_bitmap_t all = hwloc_bitmap_alloc(), pk[256], *locs;
	int npk = 0, i, grp[256], nn = 0;
	size_t k;
	t->g = g;
	machine->rx = 8;
	machine->size = 14;
	box_line(machine, 0, "Machine %s%s%s", host ? host : "(host name unknown)", kernel ? " \xc2\xb7 Linux " : "",
		 kernel ? kernel : "");
	cJSON_ArrayForEach(c, jget(facts, "cpu.core_cpus"))
		if (cJSON_IsString(c)) {
			hwloc_bitmap_t s = svg_set_of(c->valuestring);
			hwloc_bitmap_or(all, all, s);
			hwloc_bitmap_free(s);
		}
	cJSON_ArrayForEach(c, jget(facts, "cpu.package_cpus"))
		if (cJSON_IsString(c) && npk < (int)ARRAY_SIZE(pk)) {
			pk[npk] = svg_set_of(c->valuestring);
			hwloc_bitmap_or(all, all, pk[npk]);
			grp[npk++] = -1;
		}
	/* Packages unknown (cpu.package_cpus null) but cores known: one
	 * package of those cores, as before.  Neither known: no package is
	 * drawn (none is known); the online CPUs go in the machine, each a
	 * hardware thread whose core is unknown (add_cores()). */
	if (!npk && !hwloc_bitmap_iszero(all)) {
		pk[npk] = hwloc_bitmap_dup(all);
		grp[npk++] = -1;
	}
	if (jstr(jget(facts, "cpu"), "online")) {
		hwloc_bitmap_t on = svg_set_of(jstr(jget(facts, "cpu"), "online"));
		hwloc_bitmap_or(all, all, on);
		hwloc_bitmap_free(on);
	}
	cpus_attr(machine, all);
	hold(t, machine, all, -1);
	add_memory_total(t, machine);
	add_dimms(t, machine);
	add_groups(t, machine, pk, grp, npk);
	for (i = 0; i < npk; i++)
		if (grp[i] < 0)
			add_package(t, machine, i, npk, pk[i]);
	if (!npk) {
		const char *model = jstr(jget(facts, "cpu"), "model_name");
		if (model)
			box_line(machine, 1, "%s", model);
		add_cores(t, machine, all, 1);
	}
	/* Nodes without CPUs (by their distances, where those say), and
	 * nodes on no package. */
	locs = node_localities(nodes, &nn);
	i = 0;
	cJSON_ArrayForEach(nd, nodes) {
		hwloc_bitmap_t s = svg_set_of(jstr(nd, "cpus"));
		struct box *at = NULL;
		int placed = 0, p;
		for (p = 0; p < npk && !hwloc_bitmap_iszero(s); p++)
			placed |= hwloc_bitmap_intersects(s, pk[p]);
		if (!placed && hwloc_bitmap_iszero(s) && i < nn)
			at = holder_of(t, locs[i]);   /* NULL for an empty locality */
		if (!placed)
			add_numa_strip(t, at ? at : machine, nd)->stretch = 0;
		hwloc_bitmap_free(s);
		i++;
	}
	for (i = 0; i < nn; i++)
		hwloc_bitmap_free(locs[i]);
	free(locs);
	place_pci(t, machine);
	add_settings(t, machine, findings);
	note_drawn(machine);
	add_legend(t, machine, findings);
	if (findings && machine->nkid > 2) {
		/* The legend at the top, after the memory line. */
		struct box *l = machine->kid[machine->nkid - 1];
		memmove(machine->kid + 2, machine->kid + 1, (machine->nkid - 2) * sizeof(*machine->kid));
		machine->kid[1] = l;
	}
	for (i = 0; i < npk; i++)
		hwloc_bitmap_free(pk[i]);
	for (k = 0; k < t->nh; k++)
		hwloc_bitmap_free(t->h[k].cpus);
	hwloc_bitmap_free(all);
	free(t);
	return machine;
}

static void node_svg(FILE *fp, const cJSON *facts, const cJSON *gaps, const cJSON *host_obj, const cJSON *findings,
		     int standalone)
{
	struct svg g = { NULL, facts, NULL, 0, 0, 0, NULL, gaps };
	cJSON *made = NULL;
	const char *host = jstr(host_obj, "hostname");
	const cJSON *c;
	struct box *m;
	int w, h;
	g.info = jget(facts, "pci.matrix.info");
	if (!cJSON_IsArray(g.info)) {
		/* Facts from before pci.matrix: the accelerators and NICs, each
		 * under a host bridge nobody named. */
		static const char *const lists[] = { "pci.accelerators", "pci.nics" };
		size_t k;
		made = cJSON_CreateArray();
		for (k = 0; k < ARRAY_SIZE(lists); k++)
			cJSON_ArrayForEach(c, jget(facts, lists[k])) {
				cJSON *o = cJSON_CreateObject();
				const cJSON *nn = jget(c, "numa_node");
				fj_str_or_null(o, "bdf", jstr(c, "bdf"));
				cJSON_AddStringToObject(o, "kind", k ? "nic" : "accelerator");
				fj_num_or_null(o, "numa_node", cJSON_IsNumber(nn) && nn->valuedouble >= 0,
					       cJSON_IsNumber(nn) ? nn->valuedouble : 0);
				cJSON_AddStringToObject(o, "host_bridge", "(not recorded)");
				cJSON_AddItemToArray(made, o);
			}
		g.info = made;
	}
	svg_collect_marks(&g, findings);
	m = build(&g, host_obj, findings);
	box_layout(m, SVG_W - 8);
	box_place(m, 4, 4);
	w = m->w + 8;
	h = m->h + 8;
	g.fp = fp;
	if (standalone)
		MK(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	/* Inside a page the HTML parser puts it in the SVG namespace itself
	 * (and the page names nothing outside itself). */
	MK(fp, "<svg");
	if (standalone)
		MK(fp, " xmlns=\"http://www.w3.org/2000/svg\"");
	mk_rawf(fp, " id=\"node-drawing\" class=\"nodemap\" role=\"img\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Verdana, sans-serif\">", w, h, w, h);
	MK(fp, "<title>");
	mk_textf(fp, "%s: the node as nodeaudit sees it", host ? host : "unknown host");
	MK(fp, "</title>");
	mk_rawf(fp, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>", w, h);
	box_draw(&g, m);
	MK(fp, "</svg>\n");
	box_free(m);
	free(g.m);
	cJSON_Delete(made);
}

void node_svg_facts(FILE *fp, const cJSON *facts, const cJSON *host, const cJSON *findings, int standalone)
{
	/* A page lists the report's gaps beside the drawing. */
	node_svg(fp, facts, NULL, host, findings, standalone);
}

/* probe --format svg: the facts only, nothing coloured. */
void probe_render_svg(FILE *fp, const struct doc *d)
{
	node_svg(fp, d->json, jget(d->json, "gaps"), jget(d->json, "host"), NULL, 1);
}

/* check --format svg: coloured by the report's findings. */
void report_render_svg(FILE *fp, const struct doc *d)
{
	node_svg(fp, jget(d->json, "facts"), jget(d->json, "gaps"), jget(d->json, "host"), jget(d->json, "findings"), 1);
}
