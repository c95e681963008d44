/* audit/profile.h - profiles: JSON files of checks with comparators, extends chains */
#ifndef NODEAUDIT_PROFILE_H
#define NODEAUDIT_PROFILE_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "audit/check-catalog.h"

#define PROFILE_MAX_DEPTH 8
#define DEFAULT_PROFILE "agent-cpu-inference"

/* One enabled check (or one key of a keyed check such as kernel.sysctl). */
struct pspec {
	const struct check *check;
	char *key;            /* sysctl name for kernel.sysctl; NULL otherwise */
	cJSON *expect;        /* a value or an array of accepted values; NULL: none */
	int has_min, has_max;
	double min, max;
	enum severity severity;
	char *when;           /* "always" or "pinned" */
	char *note;           /* the profile's own rationale, or NULL */
	char *skip;           /* not decided on this kind of node, and why ("the
	                         host decides this"), or NULL */
	char *from;           /* name of the profile that last set it */
};

struct profile {
	char *name;
	char *description;
	char *source;         /* file path or "built-in" */
	char **chain;         /* names, base first */
	size_t nchain;
	struct pspec *specs;
	size_t nspecs;
};

/* Profiles compiled into the binary (src/profiles-builtin.c, generated). */
struct builtin_profile {
	const char *name;
	const char *json;
};
extern const struct builtin_profile builtin_profiles[];
extern const size_t nbuiltin_profiles;

/*
 * Where profile text comes from.  fetch(name_or_path, from, &text, &source)
 * returns 0 with a malloc'd text and source (a path or "built-in:NAME"), or
 * -1 with *err set (malloc'd, one line).  from is the source of the profile
 * naming it in "extends" (NULL at the top), for relative paths.
 */
typedef int (*profile_fetch_fn)(void *data, const char *name, const char *from,
				char **text, char **source, char **err);

/* The standard search: $NODEAUDIT_PROFILE_PATH, SYSCONFDIR/nodeaudit/profiles,
 * DATADIR/nodeaudit/profiles, built-in.  A name with '/' or ending in
 * ".json" is a path. */
int profile_fetch_default(void *data, const char *name, const char *from,
			  char **text, char **source, char **err);

/* Load name (and its extends chain) into p.  0, or -1 with *err one line
 * (malloc'd): "'FILE': KEY: PROBLEM".  The default fetcher when fetch is NULL. */
int profile_load(struct profile *p, const char *name, profile_fetch_fn fetch, void *data,
		 char **err);
void profile_release(struct profile *p);

/* Every profile name in the search path, built-in ones first; free each
 * name and the array. */
void profile_list_names(char ***names, size_t *n);

/* "off", "one of: madvise, always", ">= 1", ">= 2 and <= 10", whole
 * (a profile's value may be long); free it. */
char *pspec_expected(const struct pspec *s);
/* The profile as JSON (for `profiles show --format json`). */
cJSON *profile_json(const struct profile *p);

/* Line and column (1-based) of offset off in text. */
void text_line_col(const char *text, size_t off, int *line, int *col);

#endif
