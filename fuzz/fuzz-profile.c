/* fuzz-profile.c - the profile loader on a profile given as text: JSON
 * syntax, types, comparators, and "extends" chains that reach the built-in
 * profiles (or the input itself, by the names "fuzz" and "fuzz.json"). */
#include "config.h"
#include "audit/profile.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz {
	const char *text;
};

/* Never the file system: the input for "fuzz"/"fuzz.json", built-ins by name. */
static int fetch(void *data, const char *name, const char *from, char **text, char **source,
		 char **err)
{
	struct fz *fz = data;
	size_t i;
	(void)from;
	if (!strcmp(name, "fuzz") || !strcmp(name, "fuzz.json")) {
		*text = xstrdup(fz->text);
		*source = xstrdup("fuzz.json");
		return 0;
	}
	for (i = 0; i < nbuiltin_profiles; i++)
		if (!strcmp(builtin_profiles[i].name, name)) {
			*text = xstrdup(builtin_profiles[i].json);
			*source = xasprintf("built-in:%s", name);
			return 0;
		}
	*err = xasprintf("no profile '%s'", name);
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p;
	struct fz fz;
	char *text = malloc(size + 1), *err = NULL;
	memcpy(text, data, size);
	text[size] = '\0';
	fz.text = text;
	memset(&p, 0, sizeof(p));
	if (profile_load(&p, "fuzz.json", fetch, &fz, &err) == 0) {
		cJSON *j = profile_json(&p);
		size_t i;
		if (err)
			abort();
		for (i = 0; i < p.nspecs; i++)
			free(pspec_expected(&p.specs[i]));
		cJSON_Delete(j);
	} else if (!err) {
		abort();   /* a refusal always says why */
	}
	free(err);
	profile_release(&p);
	free(text);
	return 0;
}
