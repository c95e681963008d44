/* audit/diff.c - what changed between two fact trees and two sets of findings (no I/O) */
#include "config.h"
#include "audit/diff.h"
#include "lib/jindex.h"
#include "lib/facts.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*** Documents ***/

const char *diff_doc_kind(const cJSON *doc)
{
	const char *schema = fj_get_str(doc, "schema");
	if (!cJSON_IsObject(doc) || !schema)
		return NULL;
	if (!strcmp(schema, "nodeaudit.probe/1"))
		return "probe";
	if (!strcmp(schema, "nodeaudit.report/1") && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "facts")))
		return "report";
	return NULL;
}

cJSON *diff_facts_of(const cJSON *doc)
{
	static const char *const meta[] = { "schema", "tool", "gaps", "conflicts", "evidence", NULL };
	const char *kind = diff_doc_kind(doc);
	const cJSON *it;
	cJSON *root;
	size_t i;

	if (!kind)
		return NULL;
	root = cJSON_CreateObject();
	if (!strcmp(kind, "report")) {
		it = cJSON_GetObjectItemCaseSensitive(doc, "host");
		if (it)
			cJSON_AddItemToObject(root, "host", cJSON_Duplicate(it, 1));
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "facts"))
			if (it->string && !cJSON_GetObjectItemCaseSensitive(root, it->string))
				cJSON_AddItemToObject(root, it->string, cJSON_Duplicate(it, 1));
		return root;
	}
	cJSON_ArrayForEach(it, doc) {
		int skip = !it->string;
		for (i = 0; !skip && meta[i]; i++)
			skip = !strcmp(it->string, meta[i]);
		if (!skip)
			cJSON_AddItemToObject(root, it->string, cJSON_Duplicate(it, 1));
	}
	return root;
}

/*** Natural identities and volatile facts ***/

/*
 * Arrays of objects are matched by what identifies an element on the
 * machine, not by position: a DIMM that drops out must not shift every
 * later DIMM.  Paths are generic ("[]" for any element).  An array whose
 * elements lack the key, or repeat it, falls back to the index.
 */
static const struct identity {
	const char *path;
	const char *keys[2];   /* one key, or two joined by '/' */
} identities[] = {
	{ "numa.nodes", { "id", NULL } },
	{ "pci.accelerators", { "bdf", NULL } },
	{ "pci.nics", { "bdf", NULL } },
	{ "pci.devices", { "bdf", NULL } },
	{ "pci.matrix.info", { "bdf", NULL } },
	{ "memory.dimms", { "locator", NULL } },
	{ "memory.channels.per_package", { "package", NULL } },
	{ "memory.channels.list", { "package", "name" } },
	{ "memory.ecc.controllers", { "name", NULL } },
	{ "memory.ecc.controllers[].dimms", { "name", NULL } },
	{ "cpu.kinds", { "name", NULL } },
	{ "kernel.cpufreq.policies", { "id", NULL } },
	{ "kernel.hugepages.sizes", { "size_bytes", NULL } },
	{ "kernel.hugepages.nodes", { "node", NULL } },
	{ "kernel.hugepages.nodes[].sizes", { "size_bytes", NULL } },
	{ "memory.hugepages_per_node", { "node", NULL } },
	{ "memory.hugepages_per_node[].pages", { "size_bytes", NULL } },
	{ "kernel.swap.devices", { "name", NULL } },
	{ "platform.sockets", { "designation", NULL } },
};

/* Facts that differ from one reading to the next, or from one node to its
 * sibling, without anything having drifted. */
static const char *const volatile_paths[] = {
	"host.collected_at",   /* when it was read */
	"host.sysroot",        /* where it was read from */
	"host.hostname",       /* which sibling it is */
	"host.root",           /* who ran the probe */
	NULL,                  /* (and kernel.cmdline.raw when only root=UUID... differs) */
};
static const char *const volatile_leaves[] = {
	"free",                /* free huge pages */
	"used_bytes",          /* swap in use */
	"evidence",            /* the files a fact came from */
	"collected_at",
	NULL,
};

/* Provenance: where a fact was read from (live, a snapshot, a dump file,
 * sysfs or libpci's dump; which method grouped the core kinds), not what
 * the node is.  Every "source" member of the facts is one (cpu.libcpuid,
 * cpu.kinds[], pci, platform.smbios, memory.ecc, memory.channels); the
 * evidence paths and host.sysroot are volatile above.  A change there is
 * listed apart, under "provenance", and is neither drift nor exit status. */
static const char *const provenance_leaves[] = { "source", NULL };

/* Object maps where a key on one side only means "not read there" (the
 * sysctls a profile names are read on demand), not "added" or "removed". */
static const char *const partial_maps[] = { "kernel.sysctl", NULL };

static int in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return 1;
	return 0;
}

/* Boot parameters that name this node's own disks or image: they differ
 * between siblings (root=UUID=...) without anything having drifted. */
static const char *const node_own_params[] = {
	"root=", "BOOT_IMAGE=", "initrd=", "resume=", "rd.luks.uuid=", "rd.lvm.lv=", "cryptdevice=", NULL,
};

static int node_own_param(const char *tok, size_t n)
{
	size_t i, l;
	for (i = 0; node_own_params[i]; i++) {
		l = strlen(node_own_params[i]);
		if (n >= l && !strncmp(tok, node_own_params[i], l))
			return 1;
	}
	return 0;
}

/* The next parameter of a command line that is not one of the node's own;
 * *n gets its length, NULL at the end. */
static const char *next_param(const char **p, size_t *n)
{
	const char *t;
	for (;;) {
		while (**p == ' ' || **p == '\t' || **p == '\n')
			(*p)++;
		if (!**p)
			return NULL;
		t = *p;
		while (**p && **p != ' ' && **p != '\t' && **p != '\n')
			(*p)++;
		*n = (size_t)(*p - t);
		if (!node_own_param(t, *n))
			return t;
	}
}

/* Two kernel command lines that differ only in the node's own parameters. */
static int cmdline_same_but_node(const char *a, const char *b)
{
	const char *ta, *tb;
	size_t na = 0, nb = 0;
	for (;;) {
		ta = next_param(&a, &na);
		tb = next_param(&b, &nb);
		if (!ta || !tb)
			return !ta && !tb;
		if (na != nb || strncmp(ta, tb, na))
			return 0;
	}
}

static int is_edac_counter(const char *gpath, const char *leaf)
{
	return str_startswith(gpath, "memory.ecc.") && leaf &&
	       (!strcmp(leaf, "corrected_errors") || !strcmp(leaf, "uncorrected_errors"));
}

/*** Comparison ***/

struct diff_ctx {
	cJSON *changes;
	cJSON *not_compared;
	int show_volatile;
	int facts_changed, volatile_changed;
	cJSON *provenance;
};

/* Append one path segment: .key, ."key.with.dots" or [id]. */
static void seg_key(struct strbuf *sb, const char *key)
{
	const char *p;
	int plain = *key && !(key[0] >= '0' && key[0] <= '9');
	for (p = key; plain && *p; p++)
		plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			*p == '_' || *p == '-';
	if (sb->len)
		strbuf_addstr(sb, ".");
	if (plain) {
		strbuf_addstr(sb, key);
		return;
	}
	strbuf_addstr(sb, "\"");
	for (p = key; *p; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_addstr(sb, "\\");
		strbuf_add(sb, p, 1);
	}
	strbuf_addstr(sb, "\"");
}

static void add_change(struct diff_ctx *c, const char *path, const char *gpath, const char *leaf,
		       const cJSON *a, const cJSON *b)
{
	const char *kind = !a ? "added" : !b ? "removed" : "changed";
	int vol = 0, grew = 0;
	cJSON *ch;

	if (leaf && in_list(provenance_leaves, leaf) && (!a || cJSON_IsString(a) || cJSON_IsNull(a)) &&
	    (!b || cJSON_IsString(b) || cJSON_IsNull(b))) {
		ch = cJSON_CreateObject();
		cJSON_AddStringToObject(ch, "path", path);
		cJSON_AddItemToObject(ch, "old", a ? cJSON_Duplicate(a, 1) : cJSON_CreateNull());
		cJSON_AddItemToObject(ch, "new", b ? cJSON_Duplicate(b, 1) : cJSON_CreateNull());
		cJSON_AddItemToArray(c->provenance, ch);
		return;
	}
	if (in_list(volatile_paths, gpath) || (leaf && in_list(volatile_leaves, leaf)) ||
	    !strcmp(gpath, "bench") || str_startswith(gpath, "bench."))
		vol = 1;
	if (!strcmp(gpath, "kernel.cmdline.raw") && cJSON_IsString(a) && cJSON_IsString(b))
		vol = cmdline_same_but_node(a->valuestring, b->valuestring);
	if (is_edac_counter(gpath, leaf) && cJSON_IsNumber(a) && cJSON_IsNumber(b)) {
		/* More errors is news, always; fewer is a reboot or a driver reload. */
		grew = b->valuedouble > a->valuedouble;
		vol = !grew;
	}
	if (vol)
		c->volatile_changed++;
	else
		c->facts_changed++;
	if (vol && !c->show_volatile)
		return;
	ch = cJSON_CreateObject();
	cJSON_AddStringToObject(ch, "path", path);
	cJSON_AddItemToObject(ch, "old", a ? cJSON_Duplicate(a, 1) : cJSON_CreateNull());
	cJSON_AddItemToObject(ch, "new", b ? cJSON_Duplicate(b, 1) : cJSON_CreateNull());
	cJSON_AddStringToObject(ch, "kind", kind);
	cJSON_AddBoolToObject(ch, "volatile", vol);
	if (grew)
		cJSON_AddBoolToObject(ch, "grew", 1);
	cJSON_AddItemToArray(c->changes, ch);
}

static void cmp_value(struct diff_ctx *c, const cJSON *a, const cJSON *b, struct strbuf *path,
		      struct strbuf *gpath, const char *leaf);

/* Objects of fewer keys (most of them) are searched as they are. */
#define OBJ_INDEX_MIN 32

static void cmp_object(struct diff_ctx *c, const cJSON *a, const cJSON *b, struct strbuf *path,
		       struct strbuf *gpath)
{
	const cJSON *it;
	size_t pl = path->len, gl = gpath->len;
	int partial = gpath->len && in_list(partial_maps, gpath->buf);
	struct jindex ia, ib;

	jindex_init(&ia, a, OBJ_INDEX_MIN);
	jindex_init(&ib, b, OBJ_INDEX_MIN);
	cJSON_ArrayForEach(it, a) {
		const cJSON *other;
		if (!it->string)
			continue;
		other = jindex_get(&ib, it->string);
		seg_key(path, it->string);
		seg_key(gpath, it->string);
		if (other)
			cmp_value(c, it, other, path, gpath, it->string);
		else if (partial)
			cJSON_AddItemToArray(c->not_compared, cJSON_CreateString(path->buf));
		else
			add_change(c, path->buf, gpath->buf, it->string, it, NULL);
		path->len = pl;
		path->buf[pl] = '\0';
		gpath->len = gl;
		gpath->buf[gl] = '\0';
	}
	cJSON_ArrayForEach(it, b) {
		if (!it->string || jindex_get(&ia, it->string))
			continue;
		seg_key(path, it->string);
		seg_key(gpath, it->string);
		if (partial)
			cJSON_AddItemToArray(c->not_compared, cJSON_CreateString(path->buf));
		else
			add_change(c, path->buf, gpath->buf, it->string, NULL, it);
		path->len = pl;
		path->buf[pl] = '\0';
		gpath->len = gl;
		gpath->buf[gl] = '\0';
	}
	jindex_release(&ia);
	jindex_release(&ib);
}

/* The identity of an array element as text, or NULL when it has none. */
static char *element_id(const cJSON *e, const struct identity *id)
{
	struct strbuf sb = STRBUF_INIT;
	size_t k;
	if (!cJSON_IsObject(e))
		return NULL;
	for (k = 0; k < ARRAY_SIZE(id->keys) && id->keys[k]; k++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, id->keys[k]);
		if (k)
			strbuf_addstr(&sb, "/");
		if (cJSON_IsString(v) && *v->valuestring && !strpbrk(v->valuestring, "[]"))
			strbuf_addstr(&sb, v->valuestring);
		else if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
			 fabs(v->valuedouble) < 1e15)
			strbuf_addf(&sb, "%.0f", v->valuedouble);
		else {
			strbuf_release(&sb);
			return NULL;
		}
	}
	return strbuf_detach(&sb);
}

/* An element and its identity. */
struct keyed {
	char *id;
	const cJSON *item;
};

static int cmp_keyed(const void *x, const void *y)
{
	return strcmp(((const struct keyed *)x)->id, ((const struct keyed *)y)->id);
}

static void free_keyed(struct keyed *v, int n)
{
	int i;
	for (i = 0; v && i < n; i++)
		free(v[i].id);
	free(v);
}

/*
 * The identities of every element in array order (*sorted: the same, sorted
 * by identity, for lookups), or NULL when one lacks it or two share it.
 * Sorting keeps a hostile input with many elements from costing n squared.
 */
static struct keyed *array_ids(const cJSON *arr, const struct identity *id, int *n, struct keyed **sorted)
{
	const cJSON *e;
	struct keyed *v;
	int i = 0;
	*n = cJSON_GetArraySize(arr);
	v = xcalloc((size_t)*n + 1, sizeof(*v));
	cJSON_ArrayForEach(e, arr) {
		v[i].item = e;
		v[i].id = element_id(e, id);
		if (!v[i].id) {
			free_keyed(v, i);
			return NULL;
		}
		i++;
	}
	*sorted = xcalloc((size_t)*n + 1, sizeof(**sorted));
	if (*n)
		memcpy(*sorted, v, (size_t)*n * sizeof(*v));
	qsort(*sorted, (size_t)*n, sizeof(**sorted), cmp_keyed);
	for (i = 1; i < *n; i++)
		if (!strcmp((*sorted)[i - 1].id, (*sorted)[i].id))
			break;
	if (*n && i < *n) {
		free(*sorted);
		*sorted = NULL;
		free_keyed(v, *n);
		return NULL;
	}
	return v;
}

static const cJSON *lookup(const struct keyed *sorted, int n, const char *id)
{
	struct keyed k = { (char *)id, NULL };
	const struct keyed *hit = n ? bsearch(&k, sorted, (size_t)n, sizeof(k), cmp_keyed) : NULL;
	return hit ? hit->item : NULL;
}

static int all_objects(const cJSON *arr)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, arr)
		if (!cJSON_IsObject(e))
			return 0;
	return 1;
}

static void cmp_array(struct diff_ctx *c, const cJSON *a, const cJSON *b, struct strbuf *path,
		      struct strbuf *gpath, const char *leaf)
{
	const struct identity *id = NULL;
	size_t pl = path->len, gl = gpath->len, k;
	struct keyed *ia = NULL, *ib = NULL, *sa = NULL, *sb = NULL;
	int na = 0, nb = 0, i;
	const cJSON *x, *y;

	if (!all_objects(a) || !all_objects(b) || (!cJSON_GetArraySize(a) && !cJSON_GetArraySize(b))) {
		/* Lists of values (cpu.isa, distances) change as a whole. */
		if (!cJSON_Compare(a, b, 1))
			add_change(c, path->buf, gpath->buf, leaf, a, b);
		return;
	}
	for (k = 0; k < ARRAY_SIZE(identities); k++)
		if (!strcmp(identities[k].path, gpath->buf))
			id = &identities[k];
	if (id && (ia = array_ids(a, id, &na, &sa)) && !(ib = array_ids(b, id, &nb, &sb))) {
		free_keyed(ia, na);
		free(sa);
		ia = sa = NULL;
	}
	strbuf_addstr(gpath, "[]");
	if (ia) {
		for (i = 0; i < na; i++) {
			const cJSON *match = lookup(sb, nb, ia[i].id);
			strbuf_addf(path, "[%s]", ia[i].id);
			if (match)
				cmp_value(c, ia[i].item, match, path, gpath, NULL);
			else
				add_change(c, path->buf, gpath->buf, NULL, ia[i].item, NULL);
			path->len = pl;
			path->buf[pl] = '\0';
		}
		for (i = 0; i < nb; i++) {
			if (lookup(sa, na, ib[i].id))
				continue;
			strbuf_addf(path, "[%s]", ib[i].id);
			add_change(c, path->buf, gpath->buf, NULL, NULL, ib[i].item);
			path->len = pl;
			path->buf[pl] = '\0';
		}
		free_keyed(ia, na);
		free_keyed(ib, nb);
		free(sa);
		free(sb);
	} else {
		/* By index: walk both lists once. */
		for (i = 0, x = a->child, y = b->child; x || y; i++) {
			strbuf_addf(path, "[%d]", i);
			if (x && y)
				cmp_value(c, x, y, path, gpath, NULL);
			else
				add_change(c, path->buf, gpath->buf, NULL, x, y);
			path->len = pl;
			path->buf[pl] = '\0';
			x = x ? x->next : NULL;
			y = y ? y->next : NULL;
		}
	}
	gpath->len = gl;
	gpath->buf[gl] = '\0';
}

static void cmp_value(struct diff_ctx *c, const cJSON *a, const cJSON *b, struct strbuf *path,
		      struct strbuf *gpath, const char *leaf)
{
	if (cJSON_IsObject(a) && cJSON_IsObject(b))
		cmp_object(c, a, b, path, gpath);
	else if (cJSON_IsArray(a) && cJSON_IsArray(b))
		cmp_array(c, a, b, path, gpath, leaf);
	else if (!cJSON_Compare(a, b, 1))
		add_change(c, path->buf, gpath->buf, leaf, a, b);
}

/*** Findings ***/

/* pass, info and skip are not problems; unknown is (the fact went dark);
 * warn and fail are, in that order. */
static int status_rank(const char *st)
{
	if (!st)
		return 0;
	if (!strcmp(st, "fail"))
		return 3;
	if (!strcmp(st, "warn"))
		return 2;
	if (!strcmp(st, "unknown"))
		return 1;
	return 0;
}

/* A list of findings sorted by (id, key), the first of each kept (what a
 * walk from the start finds): one lookup is log n.  A finding is the same
 * check on the same key; no key matches only no key. */
struct finding_ref {
	const char *id, *key;   /* key NULL: none */
	const cJSON *f;
	size_t pos;
};

struct finding_index {
	struct finding_ref *r;
	size_t n;
};

static int cmp_finding_key(const char *ida, const char *ka, const char *idb, const char *kb)
{
	int c = strcmp(ida, idb);
	if (c)
		return c;
	if (!ka || !kb)
		return !!ka - !!kb;
	return strcmp(ka, kb);
}

static int cmp_finding_ref(const void *x, const void *y)
{
	const struct finding_ref *a = x, *b = y;
	int c = cmp_finding_key(a->id, a->key, b->id, b->key);
	return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

static void finding_index_init(struct finding_index *ix, const cJSON *list)
{
	const cJSON *f;
	size_t i, k, n = (size_t)cJSON_GetArraySize(list);
	ix->r = xcalloc(n + 1, sizeof(*ix->r));
	ix->n = 0;
	cJSON_ArrayForEach(f, list) {
		const char *id = fj_get_str(f, "id");
		if (!id)
			continue;
		ix->r[ix->n].id = id;
		ix->r[ix->n].key = fj_get_str(f, "key");
		ix->r[ix->n].f = f;
		ix->r[ix->n].pos = ix->n;
		ix->n++;
	}
	qsort(ix->r, ix->n, sizeof(*ix->r), cmp_finding_ref);
	for (i = k = 0; i < ix->n; i++)
		if (!k || cmp_finding_key(ix->r[k - 1].id, ix->r[k - 1].key, ix->r[i].id, ix->r[i].key))
			ix->r[k++] = ix->r[i];
	ix->n = k;
}

static int cmp_finding_probe(const void *x, const void *y)
{
	const struct finding_ref *a = x, *b = y;
	return cmp_finding_key(a->id, a->key, b->id, b->key);
}

static const cJSON *find_finding(const struct finding_index *ix, const char *id, const char *key)
{
	struct finding_ref k = { id, key, NULL, 0 };
	const struct finding_ref *hit = ix->n ? bsearch(&k, ix->r, ix->n, sizeof(k), cmp_finding_probe) : NULL;
	return hit ? hit->f : NULL;
}

static void add_finding(cJSON *out, const cJSON *of, const cJSON *nf, int *worse, int *better)
{
	const cJSON *f = nf ? nf : of;
	const char *id = fj_get_str(f, "id"), *key = fj_get_str(f, "key");
	const char *os = of ? fj_get_str(of, "status") : NULL, *ns = nf ? fj_get_str(nf, "status") : NULL;
	int orank = status_rank(os), nrank = status_rank(ns);
	const char *change;
	const cJSON *v;
	cJSON *o;

	if (orank == nrank)
		return;
	/* appeared and cleared: a finding on one side only; pass -> fail is worse. */
	if (!of)
		change = "appeared";
	else if (!nf)
		change = "cleared";
	else
		change = nrank > orank ? "worse" : "better";
	if (nrank > orank)
		(*worse)++;
	else
		(*better)++;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddItemToObject(o, "key", key ? cJSON_CreateString(key) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "title", fj_get_str(f, "title") ? cJSON_CreateString(fj_get_str(f, "title"))
								   : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "old_status", os ? cJSON_CreateString(os) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "new_status", ns ? cJSON_CreateString(ns) : cJSON_CreateNull());
	v = of ? cJSON_GetObjectItemCaseSensitive(of, "observed") : NULL;
	cJSON_AddItemToObject(o, "old_observed", v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
	v = nf ? cJSON_GetObjectItemCaseSensitive(nf, "observed") : NULL;
	cJSON_AddItemToObject(o, "new_observed", v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
	cJSON_AddStringToObject(o, "change", change);
	cJSON_AddItemToArray(out, o);
}

static void cmp_findings(cJSON *out, const cJSON *olist, const cJSON *nlist, int *worse, int *better)
{
	const cJSON *f;
	struct finding_index io, in;
	finding_index_init(&io, olist);
	finding_index_init(&in, nlist);
	cJSON_ArrayForEach(f, olist) {
		const char *id = fj_get_str(f, "id");
		if (id && find_finding(&io, id, fj_get_str(f, "key")) == f)
			add_finding(out, f, find_finding(&in, id, fj_get_str(f, "key")), worse, better);
	}
	cJSON_ArrayForEach(f, nlist) {
		const char *id = fj_get_str(f, "id");
		if (id && find_finding(&in, id, fj_get_str(f, "key")) == f &&
		    !find_finding(&io, id, fj_get_str(f, "key")))
			add_finding(out, NULL, f, worse, better);
	}
	free(io.r);
	free(in.r);
}

/*** The document ***/

static cJSON *str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *side_info(const struct diff_side *s)
{
	cJSON *o = cJSON_CreateObject();
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(s->facts, "host");
	cJSON_AddItemToObject(o, "source", str_or_null(s->source));
	cJSON_AddItemToObject(o, "kind", str_or_null(s->kind));
	cJSON_AddItemToObject(o, "hostname", str_or_null(fj_get_str(host, "hostname")));
	cJSON_AddItemToObject(o, "collected_at", str_or_null(fj_get_str(host, "collected_at")));
	cJSON_AddItemToObject(o, "profile", str_or_null(s->findings ? s->profile : NULL));
	return o;
}

cJSON *diff_build(const struct diff_side *old, const struct diff_side *new, int show_volatile)
{
	struct diff_ctx c = { NULL, NULL, show_volatile, 0, 0, NULL };
	struct strbuf path = STRBUF_INIT, gpath = STRBUF_INIT;
	cJSON *doc = cJSON_CreateObject(), *findings, *sum;
	int worse = 0, better = 0, compared, code;

	cJSON_AddStringToObject(doc, "schema", DIFF_SCHEMA);
	cJSON_AddItemToObject(doc, "old", side_info(old));
	cJSON_AddItemToObject(doc, "new", side_info(new));
	c.changes = cJSON_AddArrayToObject(doc, "changes");
	c.not_compared = cJSON_CreateArray();
	c.provenance = cJSON_CreateArray();
	strbuf_addstr(&path, "");
	strbuf_addstr(&gpath, "");
	if (old->facts && new->facts)
		cmp_value(&c, old->facts, new->facts, &path, &gpath, NULL);
	strbuf_release(&path);
	strbuf_release(&gpath);
	findings = cJSON_AddArrayToObject(doc, "findings");
	compared = cJSON_IsArray(old->findings) && cJSON_IsArray(new->findings);
	if (compared)
		cmp_findings(findings, old->findings, new->findings, &worse, &better);
	cJSON_AddItemToObject(doc, "not_compared", c.not_compared);
	cJSON_AddItemToObject(doc, "provenance", c.provenance);

	code = worse ? 2 : c.facts_changed || better ? 1 : 0;
	sum = cJSON_AddObjectToObject(doc, "summary");
	cJSON_AddNumberToObject(sum, "facts_changed", c.facts_changed);
	cJSON_AddNumberToObject(sum, "volatile_changed", c.volatile_changed);
	cJSON_AddBoolToObject(sum, "volatile_shown", show_volatile != 0);
	cJSON_AddNumberToObject(sum, "provenance_changed", cJSON_GetArraySize(c.provenance));
	cJSON_AddBoolToObject(sum, "findings_compared", compared);
	cJSON_AddNumberToObject(sum, "checks_worse", worse);
	cJSON_AddNumberToObject(sum, "checks_better", better);
	cJSON_AddNumberToObject(sum, "exit", code);
	return doc;
}

int diff_exit(const cJSON *diff)
{
	double v;
	if (!fj_get_num(cJSON_GetObjectItemCaseSensitive(diff, "summary"), "exit", &v) || v < 0 || v > 3)
		return 3;
	return (int)v;
}

int diff_report_baseline(cJSON *report, const struct diff_side *baseline, const char *fail_on,
			 int exit_code)
{
	struct diff_side now = { NULL, "check", NULL, NULL, NULL };
	cJSON *facts = diff_facts_of(report), *d, *sum;
	const cJSON *facts_changed;
	double worse = 0, changed = 0;
	int code = exit_code;

	now.facts = facts;
	now.findings = cJSON_GetObjectItemCaseSensitive(report, "findings");
	now.profile = fj_get_str(cJSON_GetObjectItemCaseSensitive(report, "profile"), "name");
	d = diff_build(baseline, &now, 0);
	cJSON_Delete(facts);
	sum = cJSON_GetObjectItemCaseSensitive(d, "summary");
	fj_get_num(sum, "checks_worse", &worse);
	facts_changed = cJSON_GetObjectItemCaseSensitive(sum, "facts_changed");
	if (cJSON_IsNumber(facts_changed))
		changed = facts_changed->valuedouble;
	/* Drift is a warning: the findings themselves already carry their level. */
	if ((!fail_on || !strcmp(fail_on, "warn")) && (worse > 0 || changed > 0) && code < 1)
		code = 1;
	fj_set(report, "baseline", d);
	sum = cJSON_GetObjectItemCaseSensitive(report, "summary");
	if (cJSON_IsObject(sum))
		fj_set(sum, "exit", cJSON_CreateNumber(code));
	return code;
}
