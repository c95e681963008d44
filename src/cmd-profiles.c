/* cmd-profiles.c - `nodeaudit profiles list|show NAME|validate FILE...` */
#include "config.h"
#include "cli.h"
#include "output.h"
#include "profile.h"
#include "util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int profiles_list(FILE *fp)
{
	const char *env = getenv("NODEAUDIT_PROFILE_PATH");
	char *dirs = xasprintf("%s:%s:%s", env ? env : "", SYSCONFDIR "/nodeaudit/profiles",
			       DATADIR "/nodeaudit/profiles");
	char *dir, *save = NULL, **names = NULL;
	size_t n = 0, i, j;
	int json = G.format && !strcmp(G.format, "json");
	cJSON *arr = json ? cJSON_CreateArray() : NULL;

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
	for (i = 0; i < n; i++) {
		struct profile p;
		char *err = NULL;
		if (profile_load(&p, names[i], NULL, NULL, &err) < 0) {
			warning("%s", err);
			free(err);
			free(names[i]);
			continue;
		}
		if (json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", p.name);
			cJSON_AddStringToObject(o, "source", p.source);
			cJSON_AddStringToObject(o, "description", p.description);
			cJSON_AddBoolToObject(o, "default", !strcmp(p.name, DEFAULT_PROFILE));
			cJSON_AddItemToArray(arr, o);
		} else
			fprintf(fp, "%-24s %s%s\n", p.name, p.description,
				!strcmp(p.name, DEFAULT_PROFILE) ? " (default)" : "");
		profile_release(&p);
		free(names[i]);
	}
	free(names);
	if (json) {
		output_json(fp, arr);
		cJSON_Delete(arr);
	}
	return 0;
}

static void profile_show_text(FILE *fp, const struct profile *p)
{
	size_t i;
	char buf[300], id[200];
	fprintf(fp, "%s: %s\n", p->name, p->description);
	fprintf(fp, "  source: %s\n  chain: ", p->source);
	for (i = 0; i < p->nchain; i++)
		fprintf(fp, "%s%s", i ? " > " : "", p->chain[i]);
	fprintf(fp, "\n\n  %-44s %-9s %-22s %s\n", "CHECK", "SEVERITY", "FROM", "EXPECTED");
	for (i = 0; i < p->nspecs; i++) {
		const struct pspec *s = &p->specs[i];
		if (s->key)
			snprintf(id, sizeof(id), "%s %s", s->check->id, s->key);
		else
			snprintf(id, sizeof(id), "%s", s->check->id);
		fprintf(fp, "  %-44s %-9s %-22s %s%s\n", id, severity_name(s->severity), s->from,
			pspec_expected(s, buf, sizeof(buf)), strcmp(s->when, "always") ? " (when pinned)" : "");
	}
}

int cmd_profiles(int argc, char **argv)
{
	struct output out;
	int i = parse_cmd_options(argc, argv, NULL, "", NULL, NULL);
	const char *sub;
	int ret = EXIT_OK, ok;

	if (i == -2)
		return EXIT_OK;
	if (i < 0)
		return EXIT_UNKNOWN;
	if (i >= argc) {
		usage_error("profiles", "missing subcommand (list, show NAME or validate FILE)");
		return EXIT_UNKNOWN;
	}
	sub = argv[i++];
	if (check_format("profiles", "text,json") < 0)
		return EXIT_UNKNOWN;
	if (!strcmp(sub, "validate")) {
		if (i >= argc) {
			usage_error("profiles", "validate needs at least one FILE");
			return EXIT_UNKNOWN;
		}
		for (; i < argc; i++) {
			struct profile p;
			char *err = NULL;
			/* A bare name would be looked up; validate reads exactly the file given. */
			char *path = strchr(argv[i], '/') ? xstrdup(argv[i]) : xasprintf("./%s", argv[i]);
			if (profile_load(&p, path, NULL, NULL, &err) < 0) {
				error("%s", err);
				free(err);
				ret = EXIT_UNKNOWN;
			} else {
				if (verbosity >= 0)
					printf("%s: ok, profile '%s', %zu check(s), chain %zu deep\n", argv[i],
					       p.name, p.nspecs, p.nchain);
				profile_release(&p);
			}
			free(path);
		}
		return ret;
	}
	if (!strcmp(sub, "list")) {
		if (i < argc) {
			usage_error("profiles", "unexpected argument '%s'", argv[i]);
			return EXIT_UNKNOWN;
		}
		if (output_open(&out, G.output, NULL) < 0)
			return EXIT_UNKNOWN;
		profiles_list(out.fp);
		return output_close(&out, 1) == 0 ? EXIT_OK : EXIT_UNKNOWN;
	}
	if (!strcmp(sub, "show")) {
		struct profile p;
		char *err = NULL;
		if (i + 1 != argc) {
			usage_error("profiles", "show takes one profile NAME (or FILE)");
			return EXIT_UNKNOWN;
		}
		if (profile_load(&p, argv[i], NULL, NULL, &err) < 0) {
			error("%s", err);
			free(err);
			return EXIT_UNKNOWN;
		}
		if (output_open(&out, G.output, NULL) < 0) {
			profile_release(&p);
			return EXIT_UNKNOWN;
		}
		if (G.format && !strcmp(G.format, "json")) {
			cJSON *j = profile_json(&p);
			output_json(out.fp, j);
			cJSON_Delete(j);
		} else
			profile_show_text(out.fp, &p);
		ok = output_close(&out, 1) == 0;
		profile_release(&p);
		return ok ? EXIT_OK : EXIT_UNKNOWN;
	}
	usage_error("profiles", "unknown subcommand '%s' (list, show or validate)", sub);
	return EXIT_UNKNOWN;
}
