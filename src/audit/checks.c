/* audit/checks.c - the engine: a profile's checks against the facts -> findings */
#include "config.h"
#include "audit/checks.h"
#include "audit/profile.h"
#include "probe/probe.h"
#include "lib/facts.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*** Evaluation ***/

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
			free(o->reason);   /* the value whole: a sysctl's or a parameter's */
			o->reason = xasprintf("'%s' is not a single number",
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
static char *gap_reason(const struct obs *o, const cJSON *root, const cJSON *gaps)
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
				return xasprintf("%s: %s", f->valuestring, r->valuestring);
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
		return xasprintf("%s not known (the %s probe did not report it)", p,
				 !strcmp(subject, "host") ? "cpu" : subject);
	}
	return xstrdup("not known");
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

/* A list's first member this host could have: cpu.isa's list names x86's
 * and ARM's words (avx2, dotprod, sve), and a fix names this host's. */
static const cJSON *first_for_host(const cJSON *list, const cJSON *root)
{
	const char *fam = arch_family(cJSON_GetStringValue(facts_get(root, "host.arch"))), *w;
	const cJSON *e;
	cJSON_ArrayForEach(e, list) {
		w = cJSON_GetStringValue(e);
		if (!fam || !w || !cpu_isa_arch(w) || !strcmp(cpu_isa_arch(w), fam))
			return e;
	}
	return list->child;
}

/* "{expected}" and "{key}" in a fix template. */
static char *fill(const char *tpl, const struct pspec *s, const cJSON *root)
{
	struct strbuf sb = STRBUF_INIT;
	char *ex;   /* whole: a profile's expected value of any length (a sysctl's) */
	const cJSON *e = s->expect;
	if (cJSON_IsArray(e))
		e = first_for_host(e, root);
	if (cJSON_IsString(e))
		ex = xstrdup(e->valuestring);
	else if (cJSON_IsNumber(e))
		ex = xasprintf("%.15g", e->valuedouble);
	else if (cJSON_IsBool(e))
		ex = xstrdup(cJSON_IsTrue(e) ? "true" : "false");
	else if (s->has_min)
		ex = xasprintf("%.15g", s->min);
	else if (s->has_max)
		ex = xasprintf("%.15g", s->max);
	else
		ex = xstrdup("");
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
	free(ex);
	return strbuf_detach(&sb);
}

static void first_sentence(const char *why, char *buf, size_t n)
{
	const char *e = strstr(why, ". ");
	size_t k = e ? (size_t)(e - why) + 1 : strlen(why);
	snprintf(buf, n, "%.*s", (int)k, why);
}

/* Observe (or take the profile's skip: a guest cannot decide what the host
 * does), compare, and so the finding's status. */
static void finding_observe(const struct pspec *s, const cJSON *root, struct obs *o,
			    enum status *st)
{
	const struct check *c = s->check;
	int m = -1;

	if (s->skip) {
		/* The profile says this node cannot decide it (a guest: the host). */
		memset(o, 0, sizeof(*o));
		o->state = OBS_SKIP;
		o->reason = xstrdup(s->skip);   /* the profile's text, whole */
	} else
		check_observe(c, root, s->key, o);
	if (o->state == OBS_VALUE) {
		m = compare(s, o);
		if (m < 0)
			o->state = OBS_UNKNOWN;
	}
	if (o->state == OBS_SKIP)
		*st = ST_SKIP;
	else if (o->state == OBS_UNKNOWN)
		*st = ST_UNKNOWN;
	else if (m == 1)
		*st = ST_PASS;
	else
		*st = s->severity == SEV_FAIL ? ST_FAIL : s->severity == SEV_WARN ? ST_WARN : ST_INFO;
}

/* id, key, status, severity, title, observed (taken from o), expected, when, detail. */
static void add_head(cJSON *f, const struct pspec *s, struct obs *o, enum status st)
{
	const struct check *c = s->check;

	cJSON_AddStringToObject(f, "id", c->id);
	if (s->key)
		cJSON_AddStringToObject(f, "key", s->key);
	cJSON_AddStringToObject(f, "status", status_name(st));
	cJSON_AddStringToObject(f, "severity", severity_name(s->severity));
	if (s->key) {
		char *t = xasprintf("%s %s", c->title, s->key);   /* the key whole (a profile's) */
		cJSON_AddStringToObject(f, "title", t);
		free(t);
	} else
		cJSON_AddStringToObject(f, "title", c->title);
	if (o->state == OBS_VALUE) {
		cJSON_AddItemToObject(f, "observed", o->value);
		o->value = NULL;
	} else
		cJSON_AddNullToObject(f, "observed");
	{
		char *ex = pspec_expected(s);
		cJSON_AddStringToObject(f, "expected", ex);
		free(ex);
	}
	if (strcmp(s->when, "always"))
		cJSON_AddStringToObject(f, "when", s->when);
	if (o->detail && *o->detail)
		cJSON_AddStringToObject(f, "detail", o->detail);
}

/* The reason of an unknown or a skip, and the rationale. */
static void add_reason(cJSON *f, const struct pspec *s, const struct obs *o, enum status st,
		       const cJSON *root, const cJSON *gaps)
{
	char buf[600];

	if (st == ST_UNKNOWN) {
		if (o->reason && *o->reason)
			cJSON_AddStringToObject(f, "reason", o->reason);
		else {
			char *why = gap_reason(o, root, gaps);   /* whole: a fact path may be long */
			cJSON_AddStringToObject(f, "reason", why);
			free(why);
		}
	} else if (st == ST_SKIP)
		cJSON_AddStringToObject(f, "reason", o->reason ? o->reason : "");
	if (s->note)
		cJSON_AddStringToObject(f, "rationale", s->note);
	else {
		first_sentence(s->check->why, buf, sizeof(buf));
		cJSON_AddStringToObject(f, "rationale", buf);
	}
}

/* The evidence (the files read) and the facts the decision rests on. */
static void add_sources(cJSON *f, const struct obs *o, const cJSON *evidence)
{
	cJSON *ev;
	size_t i;

	ev = cJSON_AddArrayToObject(f, "evidence");
	add_evidence(ev, o, evidence);
	{
		cJSON *facts = cJSON_AddArrayToObject(f, "facts");
		for (i = 0; i < o->npaths; i++)
			cJSON_AddItemToArray(facts, cJSON_CreateString(o->paths[i]));
	}
}

/* key: the template tpl filled in, when the fix has one. */
static void add_filled(cJSON *x, const char *key, const char *tpl, const struct pspec *s,
		       const cJSON *root)
{
	char *t;
	if (!tpl)
		return;
	t = fill(tpl, s, root);
	cJSON_AddStringToObject(x, key, t);
	free(t);
}

/* The check's fixes, templates filled in. */
static void add_fixes(cJSON *f, const struct pspec *s, const cJSON *root)
{
	const struct check *c = s->check;
	cJSON *fix = cJSON_AddArrayToObject(f, "fix");
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c->fixes) && c->fixes[i].kind; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "kind", c->fixes[i].kind);
		add_filled(x, "command", c->fixes[i].command, s, root);
		add_filled(x, "text", c->fixes[i].text, s, root);
		/* What the fix sets, as data: plan renders it without knowing the check. */
		if (c->fixes[i].step)
			cJSON_AddStringToObject(x, "step", c->fixes[i].step);
		add_filled(x, "key", c->fixes[i].key, s, root);
		add_filled(x, "value", c->fixes[i].value, s, root);
		cJSON_AddItemToArray(fix, x);
	}
}

static cJSON *finding(const struct pspec *s, const cJSON *root, const cJSON *gaps,
		      const cJSON *evidence, enum status *st)
{
	struct obs o;
	cJSON *f = cJSON_CreateObject();

	finding_observe(s, root, &o, st);
	add_head(f, s, &o, *st);
	add_reason(f, s, &o, *st, root, gaps);
	add_sources(f, &o, evidence);
	if (*st == ST_WARN || *st == ST_FAIL || *st == ST_INFO)
		add_fixes(f, s, root);
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
