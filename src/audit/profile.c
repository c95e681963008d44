/* audit/profile.c - load profiles: search, JSON, extends chains, validation, merge */
#include "config.h"
#include "audit/profile.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PROFILE_MAX_BYTES (1u << 20)

/*** Small helpers ***/

void text_line_col(const char *text, size_t off, int *line, int *col)
{
	size_t i, len = strlen(text);
	int l = 1, c = 1;
	if (off > len)
		off = len;
	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			l++;
			c = 1;
		} else
			c++;
	}
	*line = l;
	*col = c;
}

static const char *json_type(const cJSON *j)
{
	if (cJSON_IsNull(j)) return "null";
	if (cJSON_IsBool(j)) return "a boolean";
	if (cJSON_IsNumber(j)) return "a number";
	if (cJSON_IsString(j)) return "a string";
	if (cJSON_IsArray(j)) return "an array";
	if (cJSON_IsObject(j)) return "an object";
	return "invalid";
}

static int fail(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(char **err, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	free(*err);
	*err = s;
	return -1;
}

static char *basename_noext(const char *path)
{
	const char *b = strrchr(path, '/');
	char *s = xstrdup(b ? b + 1 : path);
	if (str_endswith(s, ".json"))
		s[strlen(s) - 5] = '\0';
	return s;
}

static int is_path(const char *name)
{
	return strchr(name, '/') || str_endswith(name, ".json");
}

/*** Finding profile text ***/

static int read_small(const char *path, char **text)
{
	size_t n;
	char *buf;
	int r = read_file_capped(path, PROFILE_MAX_BYTES, &buf, &n);
	if (r < 0)
		return r == -ENODEV ? -EISDIR : r;
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		free(buf);
		return -EINVAL;
	}
	*text = buf;
	return 0;
}

static const char *read_reason(int e)
{
	switch (-e) {
	case EFBIG: return "larger than 1 MiB";
	case EINVAL: return "binary data (NUL bytes)";
	case EISDIR: return "not a regular file";
	default: return strerror(-e);
	}
}

/*
 * The directories searched, in order, joined by ':': $NODEAUDIT_PROFILE_PATH,
 * then the site's (SYSCONFDIR) and the installed ones (DATADIR) -- unless
 * NODEAUDIT_NO_SYSTEM_PROFILES is set (the test suite: a copy installed on
 * the machine, older or newer, must not change what it checks).
 */
static char *profile_search_dirs(void)
{
	const char *env = getenv("NODEAUDIT_PROFILE_PATH");
	const char *nosys = getenv("NODEAUDIT_NO_SYSTEM_PROFILES");
	if (nosys && *nosys)
		return xstrdup(env ? env : "");
	return xasprintf("%s:%s:%s", env ? env : "", SYSCONFDIR "/nodeaudit/profiles",
			 DATADIR "/nodeaudit/profiles");
}

int profile_fetch_default(void *data, const char *name, const char *from,
			  char **text, char **source, char **err)
{
	char *dirs, *dir, *save = NULL;
	const char *p;
	size_t i;
	int r;
	(void)data;

	if (!*name)
		return fail(err, "empty profile name");
	if (is_path(name)) {
		char *path;
		/* "extends": "../x.json" is relative to the file that says it. */
		if (name[0] != '/' && from && !str_startswith(from, "built-in:") && strrchr(from, '/'))
			path = xasprintf("%.*s/%s", (int)(strrchr(from, '/') - from), from, name);
		else
			path = xstrdup(name);
		r = read_small(path, text);
		if (r < 0) {
			fail(err, "cannot read profile '%s': %s", path, read_reason(r));
			free(path);
			return -1;
		}
		*source = path;
		return 0;
	}
	for (p = name; *p; p++)
		if (!(*p == '-' || *p == '_' || *p == '.' || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return fail(err, "bad profile name '%s' (letters, digits, '-', '_' and '.')", name);

	dirs = profile_search_dirs();
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *path;
		if (!*dir)
			continue;
		path = xasprintf("%s/%s.json", dir, name);
		r = read_small(path, text);
		if (r == 0) {
			*source = path;
			free(dirs);
			return 0;
		}
		if (r != -ENOENT && r != -ENOTDIR) {
			fail(err, "cannot read profile '%s': %s", path, read_reason(r));
			free(path);
			free(dirs);
			return -1;
		}
		free(path);
	}
	free(dirs);
	for (i = 0; i < nbuiltin_profiles; i++)
		if (!strcmp(builtin_profiles[i].name, name)) {
			*text = xstrdup(builtin_profiles[i].json);
			*source = xasprintf("built-in:%s", name);
			return 0;
		}
	{
		const char *names[16];
		const char *sug;
		size_t k;
		for (k = 0; k < nbuiltin_profiles && k < 15; k++)
			names[k] = builtin_profiles[k].name;
		names[k] = NULL;
		sug = closest_word(name, names);
		if (sug)
			return fail(err, "no profile named '%s' (did you mean '%s'?)", name, sug);
		return fail(err, "no profile named '%s'; 'nodeaudit profiles list' shows them", name);
	}
}

/*** Validation of one file ***/

static const char *const spec_keys[] = { "expect", "min", "max", "severity", "when", "note", "skip", NULL };
static const char *const top_keys[] = { "name", "extends", "description", "checks", NULL };
static const char *const severities[] = { "info", "warn", "fail", NULL };
static const char *const whens[] = { "always", "pinned", NULL };

static int word_in(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(w, *list))
			return 1;
	return 0;
}

static char *join_words(const char *const *list)
{
	struct strbuf sb = STRBUF_INIT;
	for (; *list; list++) {
		if (sb.len)
			strbuf_addstr(&sb, ", ");
		strbuf_addstr(&sb, *list);
	}
	return strbuf_detach(&sb);
}

static int valid_key_name(const char *k)
{
	const char *p;
	if (!*k || *k == '.' || strstr(k, ".."))
		return 0;
	for (p = k; *p; p++)
		if (!(*p == '-' || *p == '_' || *p == '.' || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return 0;
	return 1;
}

/* Names, descriptions, notes and expected values reach reports, plans and
 * terminals: one line of text, no control character (a newline would end a
 * comment line of a generated script and start a command). */
static int no_ctrl(const char *s, const char *src, const char *kp, char **err)
{
	long c = str_ctrl(s);
	if (c < 0)
		return 0;
	if (c == 0xfffd)
		return fail(err, "'%s': %s: invalid UTF-8", src, kp);
	return fail(err, "'%s': %s: control character U+%04lX is not allowed (one line of text)", src, kp,
		    (unsigned long)c);
}

/* One expected value of the right type for the check. */
static int valid_expect_value(const struct check *c, const cJSON *v, const char *src,
			      const char *kp, char **err)
{
	if (cJSON_IsNumber(v) && (!isfinite(v->valuedouble) || fabs(v->valuedouble) > 9.007199254740992e15))
		return fail(err, "'%s': %s.expect: a finite number of at most 2^53 is expected", src, kp);
	if (cJSON_IsString(v)) {
		char *ep = xasprintf("%s.expect", kp);
		int r = no_ctrl(v->valuestring, src, ep, err);
		free(ep);
		if (r < 0)
			return -1;
	}
	switch (c->type) {
	case V_ONOFF:
	case V_STR:
	case V_SET:
		if (!cJSON_IsString(v))
			return fail(err, "'%s': %s.expect: expected a string, not %s", src, kp, json_type(v));
		if (c->values && !word_in(v->valuestring, c->values)) {
			char *all = join_words(c->values);
			fail(err, "'%s': %s.expect: '%s' is not one of: %s", src, kp, v->valuestring, all);
			free(all);
			return -1;
		}
		return 0;
	case V_BOOL:
		if (!cJSON_IsBool(v))
			return fail(err, "'%s': %s.expect: expected true or false, not %s", src, kp, json_type(v));
		return 0;
	case V_NUM:
		if (!cJSON_IsNumber(v))
			return fail(err, "'%s': %s.expect: expected a number, not %s", src, kp, json_type(v));
		return 0;
	case V_SYSCTL:
		if (!cJSON_IsNumber(v) && !cJSON_IsString(v))
			return fail(err, "'%s': %s.expect: expected a string or a number, not %s", src, kp,
				    json_type(v));
		return 0;
	}
	return 0;
}

static int validate_spec(const struct check *c, const cJSON *spec, const char *src, const char *kp,
			 char **err)
{
	const cJSON *f;
	if (cJSON_IsNull(spec))
		return 0;
	if (!cJSON_IsObject(spec))
		return fail(err, "'%s': %s: expected an object (or null to disable), not %s", src, kp,
			    json_type(spec));
	cJSON_ArrayForEach(f, spec) {
		const char *k = f->string;
		if (!word_in(k, spec_keys)) {
			const char *sug = closest_word(k, spec_keys);
			if (sug)
				return fail(err, "'%s': %s: unknown comparator '%s' (did you mean '%s'?)", src,
					    kp, k, sug);
			return fail(err, "'%s': %s: unknown comparator '%s' (expect, min, max, severity, "
				    "when, note or skip)", src, kp, k);
		}
		if (cJSON_IsNull(f))
			continue;   /* removes an inherited field */
		if ((!strcmp(k, "expect") && !(c->cmps & CMP_EXPECT)) ||
		    (!strcmp(k, "min") && !(c->cmps & CMP_MIN)) ||
		    (!strcmp(k, "max") && !(c->cmps & CMP_MAX)))
			return fail(err, "'%s': %s: comparator '%s' does not apply to %s (it takes %s)", src,
				    kp, k, c->id,
				    c->cmps == CMP_EXPECT ? "expect" :
				    c->cmps == (CMP_MIN | CMP_MAX) ? "min and max" : "expect, min and max");
		if (!strcmp(k, "expect")) {
			if (cJSON_IsArray(f)) {
				const cJSON *v;
				if (cJSON_GetArraySize(f) == 0)
					return fail(err, "'%s': %s.expect: empty list", src, kp);
				cJSON_ArrayForEach(v, f)
					if (valid_expect_value(c, v, src, kp, err) < 0)
						return -1;
			} else if (valid_expect_value(c, f, src, kp, err) < 0)
				return -1;
		} else if (!strcmp(k, "min") || !strcmp(k, "max")) {
			if (!cJSON_IsNumber(f))
				return fail(err, "'%s': %s.%s: expected a number, not %s", src, kp, k, json_type(f));
			/* cJSON reads 1e999 as infinity: a bound nothing can meet (or miss). */
			if (!isfinite(f->valuedouble) || fabs(f->valuedouble) > 9.007199254740992e15)
				return fail(err, "'%s': %s.%s: a finite number of at most 2^53 is expected", src, kp, k);
		} else if (!strcmp(k, "severity")) {
			if (!cJSON_IsString(f) || !word_in(f->valuestring, severities))
				return fail(err, "'%s': %s.severity: expected info, warn or fail, not %s", src,
					    kp, cJSON_IsString(f) ? f->valuestring : json_type(f));
		} else if (!strcmp(k, "when")) {
			if (!cJSON_IsString(f) || !word_in(f->valuestring, whens))
				return fail(err, "'%s': %s.when: expected always or pinned, not %s", src, kp,
					    cJSON_IsString(f) ? f->valuestring : json_type(f));
		} else if (!strcmp(k, "note")) {
			if (!cJSON_IsString(f))
				return fail(err, "'%s': %s.note: expected a string, not %s", src, kp, json_type(f));
			{
				char *np = xasprintf("%s.note", kp);
				int r = no_ctrl(f->valuestring, src, np, err);
				free(np);
				if (r < 0)
					return -1;
			}
		} else if (!strcmp(k, "skip")) {
			if (!cJSON_IsString(f) || !*f->valuestring)
				return fail(err, "'%s': %s.skip: expected the reason as a string, not %s", src, kp,
					    cJSON_IsString(f) ? "an empty one" : json_type(f));
			{
				char *np = xasprintf("%s.skip", kp);
				int r = no_ctrl(f->valuestring, src, np, err);
				free(np);
				if (r < 0)
					return -1;
			}
		}
	}
	{
		const cJSON *mn = cJSON_GetObjectItemCaseSensitive(spec, "min");
		const cJSON *mx = cJSON_GetObjectItemCaseSensitive(spec, "max");
		if (cJSON_IsNumber(mn) && cJSON_IsNumber(mx) && mn->valuedouble > mx->valuedouble)
			return fail(err, "'%s': %s: min %g is greater than max %g", src, kp, mn->valuedouble,
				    mx->valuedouble);
	}
	return 0;
}

static int validate_doc(const cJSON *doc, const char *src, char **err)
{
	const cJSON *it, *checks;
	if (!cJSON_IsObject(doc))
		return fail(err, "'%s': expected a JSON object at the top, not %s", src, json_type(doc));
	cJSON_ArrayForEach(it, doc) {
		if (!word_in(it->string, top_keys)) {
			const char *sug = closest_word(it->string, top_keys);
			return fail(err, "'%s': unknown key '%s'%s%s%s", src, it->string,
				    sug ? " (did you mean '" : "", sug ? sug : "", sug ? "'?)" : "");
		}
	}
	it = cJSON_GetObjectItemCaseSensitive(doc, "name");
	if (it && !cJSON_IsString(it))
		return fail(err, "'%s': name: expected a string, not %s", src, json_type(it));
	if (it && no_ctrl(it->valuestring, src, "name", err) < 0)
		return -1;
	it = cJSON_GetObjectItemCaseSensitive(doc, "description");
	if (it && !cJSON_IsString(it))
		return fail(err, "'%s': description: expected a string, not %s", src, json_type(it));
	if (it && no_ctrl(it->valuestring, src, "description", err) < 0)
		return -1;
	it = cJSON_GetObjectItemCaseSensitive(doc, "extends");
	if (it && !cJSON_IsString(it) && !cJSON_IsNull(it))
		return fail(err, "'%s': extends: expected a profile name or path, not %s", src, json_type(it));
	if (cJSON_IsString(it) && no_ctrl(it->valuestring, src, "extends", err) < 0)
		return -1;
	checks = cJSON_GetObjectItemCaseSensitive(doc, "checks");
	if (checks && !cJSON_IsObject(checks))
		return fail(err, "'%s': checks: expected an object, not %s", src, json_type(checks));
	cJSON_ArrayForEach(it, checks) {
		const struct check *c = check_find(it->string);
		char *kp;
		int r;
		if (!c) {
			const char *sug = check_suggest(it->string);
			if (sug)
				return fail(err, "'%s': checks.\"%s\": unknown check (did you mean '%s'?)", src,
					    it->string, sug);
			return fail(err, "'%s': checks.\"%s\": unknown check; 'nodeaudit explain' lists them",
				    src, it->string);
		}
		kp = xasprintf("checks.\"%s\"", it->string);
		if (c->keyed && !cJSON_IsNull(it)) {
			const cJSON *k, *obj;
			r = 0;
			if (!cJSON_IsObject(it))
				r = fail(err, "'%s': %s: expected an object of keys (or null), not %s", src, kp,
					 json_type(it));
			obj = r < 0 ? NULL : it;
			cJSON_ArrayForEach(k, obj) {
				char *kk = xasprintf("%s.\"%s\"", kp, k->string);
				if (!valid_key_name(k->string))
					r = fail(err, "'%s': %s: bad key name", src, kk);
				else
					r = validate_spec(c, k, src, kk, err);
				free(kk);
				if (r < 0)
					break;
			}
		} else
			r = validate_spec(c, it, src, kp, err);
		free(kp);
		if (r < 0)
			return -1;
	}
	return 0;
}

/*** Merging a chain ***/

static void merge_spec(cJSON *parent, const char *key, const cJSON *spec, const char *from)
{
	cJSON *dst = cJSON_GetObjectItemCaseSensitive(parent, key);
	const cJSON *f;
	if (!dst)
		dst = cJSON_AddObjectToObject(parent, key);
	cJSON_ArrayForEach(f, spec) {
		cJSON_DeleteItemFromObjectCaseSensitive(dst, f->string);
		if (!cJSON_IsNull(f))
			cJSON_AddItemToObject(dst, f->string, cJSON_Duplicate(f, 1));
	}
	cJSON_DeleteItemFromObjectCaseSensitive(dst, "_from");
	cJSON_AddStringToObject(dst, "_from", from);
}

static void merge_doc(cJSON *merged, const cJSON *doc, const char *pname)
{
	const cJSON *checks = cJSON_GetObjectItemCaseSensitive(doc, "checks"), *it;
	cJSON_ArrayForEach(it, checks) {
		const struct check *c = check_find(it->string);
		if (cJSON_IsNull(it)) {
			cJSON_DeleteItemFromObjectCaseSensitive(merged, it->string);
			continue;
		}
		if (c->keyed) {
			cJSON *dst = cJSON_GetObjectItemCaseSensitive(merged, it->string);
			const cJSON *k;
			if (!dst)
				dst = cJSON_AddObjectToObject(merged, it->string);
			cJSON_ArrayForEach(k, it) {
				if (cJSON_IsNull(k))
					cJSON_DeleteItemFromObjectCaseSensitive(dst, k->string);
				else
					merge_spec(dst, k->string, k, pname);
			}
		} else
			merge_spec(merged, it->string, it, pname);
	}
}

static int spec_from_json(struct pspec *s, const struct check *c, const char *key, const cJSON *j,
			  const char *src, char **err)
{
	const cJSON *f;
	memset(s, 0, sizeof(*s));
	s->check = c;
	s->key = key ? xstrdup(key) : NULL;
	s->severity = SEV_WARN;
	if ((f = cJSON_GetObjectItemCaseSensitive(j, "expect")))
		s->expect = cJSON_Duplicate(f, 1);
	if ((f = cJSON_GetObjectItemCaseSensitive(j, "min"))) {
		s->has_min = 1;
		s->min = f->valuedouble;
	}
	if ((f = cJSON_GetObjectItemCaseSensitive(j, "max"))) {
		s->has_max = 1;
		s->max = f->valuedouble;
	}
	if ((f = cJSON_GetObjectItemCaseSensitive(j, "severity")))
		s->severity = !strcmp(f->valuestring, "info") ? SEV_INFO :
			      !strcmp(f->valuestring, "fail") ? SEV_FAIL : SEV_WARN;
	f = cJSON_GetObjectItemCaseSensitive(j, "when");
	s->when = xstrdup(f ? f->valuestring : "always");
	if ((f = cJSON_GetObjectItemCaseSensitive(j, "note")))
		s->note = xstrdup(f->valuestring);
	if ((f = cJSON_GetObjectItemCaseSensitive(j, "skip")))
		s->skip = xstrdup(f->valuestring);
	f = cJSON_GetObjectItemCaseSensitive(j, "_from");
	s->from = xstrdup(cJSON_IsString(f) ? f->valuestring : "?");
	if (!s->expect && !s->has_min && !s->has_max && !s->skip) {
		if (key)
			return fail(err, "'%s': checks.\"%s\".\"%s\": no comparator left (expect, min or max)",
				    src, c->id, key);
		return fail(err, "'%s': checks.\"%s\": no comparator left (expect, min or max)", src, c->id);
	}
	if (s->has_min && s->has_max && s->min > s->max)
		return fail(err, "'%s': checks.\"%s\": min %g is greater than max %g after inheritance",
			    src, c->id, s->min, s->max);
	return 0;
}

/*** Loading ***/

/* The documents of an extends chain, the named profile first. */
struct chain {
	cJSON *docs[PROFILE_MAX_DEPTH + 1];
	char *sources[PROFILE_MAX_DEPTH + 1], *names[PROFILE_MAX_DEPTH + 1];
	size_t n;
};

/* Fetch, parse and validate one profile document: 0 with *doc and *src
 * (malloc'd), or -1 with *err. */
static int read_doc(profile_fetch_fn fetch, void *data, const char *cur, const char *from,
		    cJSON **docp, char **srcp, char **err)
{
	char *text = NULL, *src = NULL;
	const char *end = NULL, *why;
	cJSON *doc;
	long bad;
	if (fetch(data, cur, from, &text, &src, err) < 0) {
		if (from) {
			char *e = *err;
			*err = xasprintf("'%s': extends: %s", from, e);
			free(e);
		}
		return -1;
	}
	if ((bad = json_bad_offset(text, strlen(text), &why)) >= 0) {
		int line, col;
		text_line_col(text, (size_t)bad, &line, &col);
		fail(err, "'%s': line %d, column %d: %s", src, line, col,
		     strncmp(why, "invalid UTF-8", 13) ? why : "invalid UTF-8");
		free(text);
		free(src);
		return -1;
	}
	doc = cJSON_ParseWithOpts(text, &end, 1);
	if (!doc) {
		int line, col;
		size_t off = end && end >= text ? (size_t)(end - text) : strlen(text);
		text_line_col(text, off, &line, &col);
		fail(err, "'%s': line %d, column %d: invalid JSON", src, line, col);
		free(text);
		free(src);
		return -1;
	}
	free(text);
	if (validate_doc(doc, src, err) < 0) {
		cJSON_Delete(doc);
		free(src);
		return -1;
	}
	*docp = doc;
	*srcp = src;
	return 0;
}

/* -1 with *err when src is already in the chain (extends loops). */
static int chain_cycle(const struct chain *ch, const char *src, char **err)
{
	size_t i, n = ch->n;
	for (i = 0; i < n; i++)
		if (!strcmp(ch->sources[i], src)) {
			struct strbuf sb = STRBUF_INIT;
			size_t k;
			for (k = i; k < n; k++)
				strbuf_addf(&sb, "%s -> ", ch->names[k]);
			strbuf_addstr(&sb, ch->names[i]);
			fail(err, "'%s': extends: cycle: %s", ch->sources[n - 1], sb.buf);
			strbuf_release(&sb);
			return -1;
		}
	return 0;
}

/* Read name and the profiles it extends into ch. */
static int load_chain(struct chain *ch, const char *name, profile_fetch_fn fetch, void *data,
		      char **err)
{
	const char *cur = name, *from = NULL;
	for (;;) {
		char *src = NULL;
		cJSON *doc;
		const cJSON *ext, *nm;
		if (read_doc(fetch, data, cur, from, &doc, &src, err) < 0)
			return -1;
		nm = cJSON_GetObjectItemCaseSensitive(doc, "name");
		if (chain_cycle(ch, src, err) < 0) {
			cJSON_Delete(doc);
			free(src);
			return -1;
		}
		ch->docs[ch->n] = doc;
		ch->sources[ch->n] = src;
		ch->names[ch->n] = cJSON_IsString(nm) ? xstrdup(nm->valuestring) : basename_noext(cur);
		ch->n++;
		ext = cJSON_GetObjectItemCaseSensitive(doc, "extends");
		if (!cJSON_IsString(ext))
			break;
		if (ch->n == PROFILE_MAX_DEPTH) {
			fail(err, "'%s': extends: chain deeper than %d profiles", src, PROFILE_MAX_DEPTH);
			return -1;
		}
		cur = ext->valuestring;
		from = src;
	}
	return 0;
}

/* Name, description, source and chain (base first) of the loaded profile. */
static void profile_head(struct profile *p, const struct chain *ch)
{
	size_t i, n = ch->n;
	p->name = xstrdup(ch->names[0]);
	{
		const cJSON *d = NULL;
		for (i = 0; i < n && !cJSON_IsString(d); i++)
			d = cJSON_GetObjectItemCaseSensitive(ch->docs[i], "description");
		p->description = xstrdup(cJSON_IsString(d) ? d->valuestring : "");
	}
	p->source = xstrdup(ch->sources[0]);
	p->nchain = n;
	p->chain = xcalloc(n, sizeof(*p->chain));
	for (i = 0; i < n; i++)
		p->chain[i] = xstrdup(ch->names[n - 1 - i]);
}

/* The merged checks into p->specs, in catalog order. */
static int profile_specs(struct profile *p, const cJSON *merged, const char *src, char **err)
{
	size_t i;
	/* Catalog order, so that reports are stable whatever the files' order. */
	for (i = 0; i < ncheck_catalog; i++) {
		const struct check *c = &check_catalog[i];
		const cJSON *j = cJSON_GetObjectItemCaseSensitive(merged, c->id), *k;
		if (!j)
			continue;
		if (c->keyed) {
			cJSON_ArrayForEach(k, j) {
				p->specs = xrealloc(p->specs, (p->nspecs + 1) * sizeof(*p->specs));
				if (spec_from_json(&p->specs[p->nspecs++], c, k->string, k, src, err) < 0)
					return -1;
			}
		} else {
			p->specs = xrealloc(p->specs, (p->nspecs + 1) * sizeof(*p->specs));
			if (spec_from_json(&p->specs[p->nspecs++], c, NULL, j, src, err) < 0)
				return -1;
		}
	}
	return 0;
}

int profile_load(struct profile *p, const char *name, profile_fetch_fn fetch, void *data,
		 char **err)
{
	struct chain ch;
	size_t i;
	cJSON *merged = NULL;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	ch.n = 0;
	*err = NULL;
	if (!fetch)
		fetch = profile_fetch_default;
	if (load_chain(&ch, name, fetch, data, err) < 0)
		goto out;

	merged = cJSON_CreateObject();
	for (i = ch.n; i-- > 0;)
		merge_doc(merged, ch.docs[i], ch.names[i]);

	profile_head(p, &ch);
	if (profile_specs(p, merged, ch.sources[0], err) < 0)
		goto out;
	ret = 0;
out:
	cJSON_Delete(merged);
	for (i = 0; i < ch.n; i++) {
		cJSON_Delete(ch.docs[i]);
		free(ch.sources[i]);
		free(ch.names[i]);
	}
	if (ret < 0)
		profile_release(p);
	return ret;
}

void profile_release(struct profile *p)
{
	size_t i;
	for (i = 0; i < p->nspecs; i++) {
		free(p->specs[i].key);
		cJSON_Delete(p->specs[i].expect);
		free(p->specs[i].when);
		free(p->specs[i].note);
		free(p->specs[i].skip);
		free(p->specs[i].from);
	}
	free(p->specs);
	for (i = 0; i < p->nchain; i++)
		free(p->chain[i]);
	free(p->chain);
	free(p->name);
	free(p->description);
	free(p->source);
	memset(p, 0, sizeof(*p));
}

/*** Describing ***/

static void add_value(struct strbuf *sb, const cJSON *v)
{
	if (cJSON_IsString(v))
		strbuf_addstr(sb, v->valuestring);
	else if (cJSON_IsNumber(v))
		strbuf_addf(sb, "%.15g", v->valuedouble);
	else if (cJSON_IsBool(v))
		strbuf_addstr(sb, cJSON_IsTrue(v) ? "true" : "false");
	else
		strbuf_addstr(sb, "null");
}

char *pspec_expected(const struct pspec *s)
{
	struct strbuf sb = STRBUF_INIT;
	if (s->expect) {
		if (cJSON_IsArray(s->expect) && cJSON_GetArraySize(s->expect) > 1) {
			const cJSON *v;
			int first = 1;
			strbuf_addstr(&sb, s->check->type == V_SET ? "any of: " : "one of: ");
			cJSON_ArrayForEach(v, s->expect) {
				if (!first)
					strbuf_addstr(&sb, ", ");
				add_value(&sb, v);
				first = 0;
			}
		} else
			add_value(&sb, cJSON_IsArray(s->expect) ? s->expect->child : s->expect);
	}
	if (s->has_min)
		strbuf_addf(&sb, "%s>= %.15g", sb.len ? " and " : "", s->min);
	if (s->has_max)
		strbuf_addf(&sb, "%s<= %.15g", sb.len ? " and " : "", s->max);
	return sb.buf ? strbuf_detach(&sb) : xstrdup("");
}

cJSON *profile_json(const struct profile *p)
{
	cJSON *j = cJSON_CreateObject(), *chain, *checks;
	size_t i;
	cJSON_AddStringToObject(j, "name", p->name);
	cJSON_AddStringToObject(j, "description", p->description);
	cJSON_AddStringToObject(j, "source", p->source);
	chain = cJSON_AddArrayToObject(j, "chain");
	for (i = 0; i < p->nchain; i++)
		cJSON_AddItemToArray(chain, cJSON_CreateString(p->chain[i]));
	checks = cJSON_AddObjectToObject(j, "checks");
	for (i = 0; i < p->nspecs; i++) {
		const struct pspec *s = &p->specs[i];
		cJSON *o = cJSON_CreateObject(), *parent = checks;
		if (s->key) {
			parent = cJSON_GetObjectItemCaseSensitive(checks, s->check->id);
			if (!parent)
				parent = cJSON_AddObjectToObject(checks, s->check->id);
		}
		if (s->expect)
			cJSON_AddItemToObject(o, "expect", cJSON_Duplicate(s->expect, 1));
		if (s->has_min)
			cJSON_AddNumberToObject(o, "min", s->min);
		if (s->has_max)
			cJSON_AddNumberToObject(o, "max", s->max);
		cJSON_AddStringToObject(o, "severity", severity_name(s->severity));
		if (strcmp(s->when, "always"))
			cJSON_AddStringToObject(o, "when", s->when);
		if (s->note)
			cJSON_AddStringToObject(o, "note", s->note);
		if (s->skip)
			cJSON_AddStringToObject(o, "skip", s->skip);
		cJSON_AddStringToObject(o, "from", s->from);
		cJSON_AddItemToObject(parent, s->key ? s->key : s->check->id, o);
	}
	return j;
}

/* Every profile name the search finds: the built-in ones, then the *.json
 * of $NODEAUDIT_PROFILE_PATH, SYSCONFDIR and DATADIR (first name wins). */
void profile_list_names(char ***out, size_t *count)
{
	char *dirs = profile_search_dirs();
	char *dir, *save = NULL, **names = NULL;
	size_t n = 0, i, j;

	for (i = 0; i < nbuiltin_profiles; i++) {
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = xstrdup(builtin_profiles[i].name);
	}
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		DIR *d = *dir ? opendir(dir) : NULL;
		struct dirent *de;
		while (d && (de = readdir(d))) {
			char *nm;
			int dup = 0;
			if (!str_endswith(de->d_name, ".json") || de->d_name[0] == '.')
				continue;
			nm = xstrndup(de->d_name, strlen(de->d_name) - 5);
			for (j = 0; j < n; j++)
				dup |= !strcmp(names[j], nm);
			if (dup) {
				free(nm);
				continue;
			}
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = nm;
		}
		if (d)
			closedir(d);
	}
	free(dirs);
	*out = names;
	*count = n;
}
