/* catalog-reads.c - what each check's observe function reads, against what
 * its catalogue row says it reads (.facts).
 *
 *   tests/catalog-reads FACTS.json...
 *   tests/catalog-reads --renderers
 *
 * Linked with -Wl,--wrap=cJSON_GetObjectItemCaseSensitive: every member
 * lookup the observe functions make (directly, or through facts_get() and
 * the fj_*() helpers) goes through __wrap_cJSON_GetObjectItemCaseSensitive
 * below, which names it by its path from the fact tree's root, array
 * indices as "[]": "pci.nics[].roce_ecn.np".  Each check runs over every
 * fact tree given (probe documents), with the key "vm.swappiness" for a
 * keyed one.  Prints one line per finding and exits 1 when a check
 *   - reads a path its row's .facts does not list (a path is listed when
 *     it equals an entry, lies above one: reading "pci.nics" to walk
 *     "pci.nics[].link.width.current", or below one: a member of
 *     "pci.matrix.info"; "KEY" in an entry stands for any member name), or
 *   - lists an entry it read on none of the trees (a stale row).
 * The members that name a device in a finding's detail (bdf, interface)
 * are read by any check over devices and need no listing.
 */
#include "config.h"
#include "audit/check-catalog.h"
#include "lib/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cJSON *__real_cJSON_GetObjectItemCaseSensitive(const cJSON *object, const char *string);
cJSON *__wrap_cJSON_GetObjectItemCaseSensitive(const cJSON *object, const char *string);

/* Every node of the tree being observed, with its path. */
static struct node { const cJSON *j; char *path; } *nodes;
static size_t nnodes, anodes;
/* The paths read by the check being observed. */
static char **reads;
static size_t nreads, areads;
static int tracing;

static void index_tree(const cJSON *j, const char *path)
{
	const cJSON *c;
	if (nnodes == anodes) {
		anodes = anodes ? 2 * anodes : 1024;
		nodes = xrealloc(nodes, anodes * sizeof(*nodes));
	}
	nodes[nnodes].j = j;
	nodes[nnodes++].path = xstrdup(path);
	cJSON_ArrayForEach(c, j) {
		char *p = cJSON_IsArray(j) ? xasprintf("%s[]", path)
					   : xasprintf("%s%s%s", path, *path ? "." : "", c->string ? c->string : "?");
		index_tree(c, p);
		free(p);
	}
}

static const char *path_of(const cJSON *j)
{
	size_t i;
	for (i = 0; i < nnodes; i++)
		if (nodes[i].j == j)
			return nodes[i].path;
	return NULL;
}

cJSON *__wrap_cJSON_GetObjectItemCaseSensitive(const cJSON *object, const char *string)
{
	const char *p;
	size_t i;
	char *r;
	if (tracing && string && (p = path_of(object))) {
		r = xasprintf("%s%s%s", p, *p ? "." : "", string);
		for (i = 0; i < nreads; i++)
			if (!strcmp(reads[i], r))
				break;
		if (i < nreads)
			free(r);
		else {
			if (nreads == areads) {
				areads = areads ? 2 * areads : 64;
				reads = xrealloc(reads, areads * sizeof(*reads));
			}
			reads[nreads++] = r;
		}
	}
	return __real_cJSON_GetObjectItemCaseSensitive(object, string);
}

/* Whether the path p matches entry e (a "KEY" component matches any one
 * member name, quoted or not), or lies above it (n: compare p's length). */
static int match(const char *e, const char *p, int above)
{
	while (*e && *p) {
		if (!strncmp(e, "\"KEY\"", 5) || !strncmp(e, "KEY", 3)) {
			e += e[0] == '"' ? 5 : 3;
			/* A key may hold dots ("vm.swappiness"): the last component takes the rest. */
			p += *e ? strcspn(p, ".[") : strlen(p);
			continue;
		}
		if (*e == '"') {   /* a quoted key: kernel.sysctl."kernel.numa_balancing" */
			e++;
			continue;
		}
		if (*e != *p)
			return 0;
		e++, p++;
	}
	if (*e == '"')
		e++;
	return !*p && (!*e || (above && (*e == '.' || *e == '[')));
}

/* The row's entries: "a, b, c" split, each trimmed. */
static size_t entries(const char *facts, char out[][160], size_t max)
{
	size_t n = 0;
	const char *s = facts;
	while (s && *s && n < max) {
		size_t len = strcspn(s, ",");
		while (*s == ' ')
			s++, len--;
		snprintf(out[n], sizeof(out[n]), "%.*s", (int)len, s);
		while (len && out[n][len - 1] == ' ')
			out[n][--len] = '\0';
		n++;
		s += len;
		s += strspn(s, ", ");
	}
	return n;
}

static int naming(const char *p)
{
	const char *last = strrchr(p, '.');
	last = last ? last + 1 : p;
	return strchr(p, '[') && (!strcmp(last, "bdf") || !strcmp(last, "interface"));
}

/* --renderers: "metric NAME ID" and "label NAME ID" per row, for the
 * script that looks for them in the renderers' outputs; and whether each
 * row's drawing part has the device list it needs, and only then. */
static int renderers(void)
{
	size_t c;
	int bad = 0;
	for (c = 0; c < ncheck_catalog; c++) {
		const struct check *ck = &check_catalog[c];
		const char *lists[2] = { ck->metrics, ck->labels }, *kind[2] = { "metric", "label" };
		int devs = ck->part == PART_LINK || ck->part == PART_UPLINK || ck->part == PART_DEVICE, l;
		for (l = 0; l < 2; l++) {
			const char *s = lists[l];
			while (s && *s) {
				size_t n = strcspn(s, " ");
				printf("%s %.*s %s\n", kind[l], (int)n, s, ck->id);
				s += n;
				s += strspn(s, " ");
			}
		}
		if (devs != (ck->devices != NULL)) {
			fprintf(stderr, "%s: its drawing part %s a device list (.devices)\n", ck->id,
				devs ? "needs" : "takes no");
			bad = 1;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	cJSON **trees = xcalloc((size_t)argc, sizeof(*trees));
	size_t c, i, k, t;
	int bad = 0, ntrees = 0, a;
	if (argc == 2 && !strcmp(argv[1], "--renderers")) {
		free(trees);
		return renderers();
	}
	for (a = 1; a < argc; a++) {
		FILE *fp = fopen(argv[a], "r");
		struct strbuf sb = STRBUF_INIT;
		char buf[65536];
		size_t n;
		if (!fp) {
			fprintf(stderr, "catalog-reads: %s: cannot open\n", argv[a]);
			return 2;
		}
		while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
			strbuf_add(&sb, buf, n);
		fclose(fp);
		if (!(trees[ntrees] = cJSON_Parse(sb.buf ? sb.buf : ""))) {
			fprintf(stderr, "catalog-reads: %s: not JSON\n", argv[a]);
			return 2;
		}
		/* A report: its facts. */
		if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(trees[ntrees], "facts"))) {
			cJSON *f = cJSON_DetachItemFromObjectCaseSensitive(trees[ntrees], "facts");
			cJSON_Delete(trees[ntrees]);
			trees[ntrees] = f;
		}
		ntrees++;
		strbuf_release(&sb);
	}
	for (c = 0; c < ncheck_catalog; c++) {
		const struct check *ck = &check_catalog[c];
		char ent[16][160];
		int used[16] = { 0 };
		size_t ne = entries(ck->facts, ent, 16);
		for (t = 0; t < (size_t)ntrees; t++) {
			struct obs o;
			nnodes = 0;
			index_tree(trees[t], "");
			memset(&o, 0, sizeof(o));
			tracing = 1;
			check_observe(ck, trees[t], ck->keyed ? "vm.swappiness" : NULL, &o);
			tracing = 0;
			obs_release(&o);
			for (i = 0; i < nreads; i++) {
				int listed = naming(reads[i]);
				for (k = 0; k < ne; k++)
					if (match(ent[k], reads[i], 1))   /* the entry, or above it */
						listed = 1, used[k] |= match(ent[k], reads[i], 0);
					else if (match(reads[i], ent[k], 1))   /* below it: a member of it */
						listed = used[k] = 1;
				if (!listed) {
					printf("%s: reads %s, which its row's facts (%s) do not list (%s)\n", ck->id,
					       reads[i], ck->facts, argv[t + 1]);
					bad = 1;
				}
				free(reads[i]);
			}
			nreads = 0;
			for (i = 0; i < nnodes; i++)
				free(nodes[i].path);
		}
		for (k = 0; k < ne; k++)
			if (!used[k]) {
				printf("%s: its row lists %s, which it read in none of the %d fact trees\n", ck->id,
				       ent[k], ntrees);
				bad = 1;
			}
	}
	printf("%zu checks over %d fact trees: %s\n", ncheck_catalog, ntrees, bad ? "differences" : "every read listed, every entry read");
	for (a = 0; a < ntrees; a++)
		cJSON_Delete(trees[a]);
	free(trees);
	free(nodes);
	free(reads);
	return bad;
}
