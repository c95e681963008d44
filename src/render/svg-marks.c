/* render/svg-marks.c - the node drawing's marks: which part (device, link, slot,
 * channel, package) each finding is about */
#include "config.h"
#include "render/svg-internal.h"
#include "audit/check-catalog.h"
#include "lib/facts.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

/*** Marks: which part each finding is about ***/

/* The reason in a few words on the part, by what the key names. */
static const char *brief_of(const char *key)
{
	if (!strncmp(key, "slot:", 5))
		return "empty slot";
	if (!strncmp(key, "channel:", 8))
		return "no DIMM";
	if (!strncmp(key, "dimm:", 5))
		return "below rated speed";
	return NULL;
}

static const cJSON *cur;   /* the finding whose marks are being added */

static void add_mark(struct svg *g, const char *key, int rank, const char *why)
{
	size_t i;
	for (i = 0; i < g->nm; i++)
		if (!strcmp(g->m[i].key, key)) {
			if (rank <= g->m[i].rank && strcmp(why, g->m[i].why) && !g->m[i].also)
				g->m[i].also = why;
			if (rank > g->m[i].rank) {
				if (!g->m[i].also && strcmp(why, g->m[i].why))
					g->m[i].also = g->m[i].why;
				g->m[i].rank = rank;
				g->m[i].why = why;
				g->m[i].title = jstr(cur, "title");
				g->m[i].detail = jstr(cur, "detail");
				g->m[i].brief = brief_of(key);
			}
			return;
		}
	if (g->nm == g->am) {
		g->am = g->am ? 2 * g->am : 16;
		g->m = xrealloc(g->m, g->am * sizeof(*g->m));
	}
	snprintf(g->m[g->nm].key, sizeof(g->m[g->nm].key), "%s", key);
	g->m[g->nm].rank = rank;
	g->m[g->nm].title = jstr(cur, "title");
	g->m[g->nm].detail = jstr(cur, "detail");
	g->m[g->nm].brief = brief_of(key);
	g->m[g->nm].drawn = 0;
	g->m[g->nm].also = NULL;
	g->m[g->nm++].why = why;
}

/* A setting's mark name, spelled here once (svg_setting_mark()). */
#define SETTING_MARK "setting:%s%s%s"
#define SETTING_ARGS(f) jstr(f, "id"), jstr(f, "key") ? " " : "", jstr(f, "key") ? jstr(f, "key") : ""

static void add_markf(struct svg *g, int rank, const char *why, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add_markf(struct svg *g, int rank, const char *why, const char *fmt, ...)
{
	char key[96];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	add_mark(g, key, rank, why);
}

const struct mark *svg_mark_of(const struct svg *g, const char *fmt, ...)
{
	char key[96];
	size_t i;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	for (i = 0; i < g->nm; i++)
		if (!strcmp(g->m[i].key, key))
			return &g->m[i];
	return NULL;
}

/* The n-th PCI address (DDDD:BB:DD.F) in s, into out; 0 when there is none. */
static int nth_bdf(const char *s, int n, char *out, size_t len)
{
	const char *p;
	for (p = s; p && *p; p++) {
		int ok = 1, k;
		static const char pat[] = "xxxx:xx:xx.x";
		for (k = 0; pat[k] && ok; k++)
			ok = p[k] && (pat[k] == 'x' ? isxdigit((unsigned char)p[k]) : p[k] == pat[k]);
		if (ok && n-- == 0) {
			snprintf(out, len, "%.12s", p);
			return 1;
		}
		if (ok)
			p += 11;
	}
	return 0;
}

static void mark_devices_of(struct svg *g, const char *list, const char *prefix, int rank, const char *id)
{
	const cJSON *d;
	cJSON_ArrayForEach(d, jget(g->facts, list))
		if (jstr(d, "bdf"))
			add_markf(g, rank, id, "%s:%s", prefix, jstr(d, "bdf"));
}

/* The empty slots (or DIMM-less channels) of the memory; 0 when none is known. */
static int mark_slots(struct svg *g, int rank, const char *id)
{
	const cJSON *ch, *e;
	int any = 0;
	cJSON_ArrayForEach(ch, jget(g->facts, "memory.channels.list")) {
		if (jnum(ch, "dimms") > 0)
			continue;
		cJSON_ArrayForEach(e, jget(ch, "empty_slots"))
			if (cJSON_IsString(e)) {
				add_markf(g, rank, id, "slot:%s", e->valuestring);
				any = 1;
			}
		if (!cJSON_GetArraySize(jget(ch, "empty_slots"))) {
			add_markf(g, rank, id, "channel:%.0f:%s", jnum(ch, "package"),
				  jstr(ch, "name") ? jstr(ch, "name") : "?");
			any = 1;
		}
	}
	return any;
}

/* The DIMMs configured below their rated speed; 0 when none is known. */
static int mark_slow_dimms(struct svg *g, int rank, const char *id)
{
	const cJSON *d;
	int any = 0;
	cJSON_ArrayForEach(d, jget(g->facts, "memory.dimms")) {
		double c = jnum(d, "configured_speed_mts"), r = jnum(d, "speed_mts");
		if (!isnan(c) && !isnan(r) && c < r && jstr(d, "locator")) {
			add_markf(g, rank, id, "dimm:%s", jstr(d, "locator"));
			any = 1;
		}
	}
	return any;
}

/* Each finding on the part its check's catalogue row names (.part). */
void svg_collect_marks(struct svg *g, const cJSON *findings)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, findings) {
		const char *id = jstr(f, "id"), *st = jstr(f, "status"), *detail = jstr(f, "detail");
		int rank = st && !strcmp(st, "fail") ? MARK_FAIL : st && !strcmp(st, "warn") ? MARK_WARN : 0;
		const struct check *c = id ? check_find(id) : NULL;
		char b[16];
		if (!c || !rank)
			continue;
		cur = f;
		switch (c->part) {
		case PART_NONE:
			break;
		case PART_PACKAGE:
			add_mark(g, "package", rank, id);
			break;
		case PART_SMT:
			add_mark(g, "smt", rank, id);
			break;
		case PART_NUMA:
			add_mark(g, "numa", rank, id);
			break;
		case PART_SLOTS:
			if (!mark_slots(g, rank, id))
				add_mark(g, "memory", rank, id);
			break;
		case PART_DIMMS:
			if (!mark_slow_dimms(g, rank, id))
				add_mark(g, "memory", rank, id);
			break;
		case PART_MEMORY:
			add_mark(g, "memory", rank, id);
			break;
		case PART_LINK:
			if (detail && nth_bdf(detail, 0, b, sizeof(b)))
				add_markf(g, rank, id, "link:%s", b);
			else
				mark_devices_of(g, c->devices, "link", rank, id);
			break;
		case PART_UPLINK:
			if (detail && nth_bdf(detail, 1, b, sizeof(b)))
				add_markf(g, rank, id, "up:%s", b);
			else
				mark_devices_of(g, c->devices, "link", rank, id);
			break;
		case PART_SETTING:
			add_markf(g, rank, id, SETTING_MARK, SETTING_ARGS(f));
			break;
		case PART_DEVICE:
			if (detail && nth_bdf(detail, 0, b, sizeof(b)))
				add_markf(g, rank, id, "dev:%s", b);
			else
				mark_devices_of(g, c->devices, "dev", rank, id);
			break;
		}
	}
	cur = NULL;
}

const struct mark *svg_setting_mark(const struct svg *g, const cJSON *finding)
{
	return svg_mark_of(g, SETTING_MARK, SETTING_ARGS(finding));
}
