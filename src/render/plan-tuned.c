/* render/plan-tuned.c - the plan as a tuned profile (tuned.conf): the base
 * profile included, then the settings the plan implies, each plugin's
 * section as tuned reads it (tuned.profiles.loader: configparser, '='
 * only, '#' comments) */
#include "config.h"
#include "audit/plan.h"
#include "render/render.h"
#include "lib/facts.h"
#include "lib/quote.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

static const char *jstr_or(const cJSON *o, const char *key, const char *dflt)
{
	const char *s = fj_get_str(o, key);
	return s ? s : dflt;
}

/* A key or value tuned reads back as written: one line, no '#' (a comment
 * inline), no ';' (a list separator in include=), no '$' (tuned's
 * ${variables}), no '%', no brackets, no blank at either end. */
static int tuned_ok(const char *s)
{
	size_t n;
	if (!s || !*s)
		return 0;
	n = strlen(s);
	if (s[0] == ' ' || s[n - 1] == ' ')
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f || strchr("#;$%[]", *s))
			return 0;
	return 1;
}

static int step_is(const cJSON *s, const char *kind)
{
	return fj_get_str(s, "kind") && !strcmp(fj_get_str(s, "kind"), kind) &&
	       !plan_step_why(kind, fj_get_str(s, "key"), fj_get_str(s, "value"));
}

/* The finding and its reason above a setting. */
static void why(FILE *out, const cJSON *s)
{
	char *line = xasprintf("%s%s%s", jstr_or(s, "finding", "?"), fj_get_str(s, "key") ? " " : "",
			       jstr_or(s, "key", ""));
	gen_comment(out, "# ", line);
	free(line);
	if (fj_get_str(s, "reason"))
		gen_comment(out, "# why: ", fj_get_str(s, "reason"));
}

/* One section of KEY=VALUE lines from the steps of one kind; key NULL: the
 * step's own key.  n: lines the section already holds (its header is
 * written with the first).  Returns the number written, n included. */
static int section(FILE *out, const cJSON *plan, const char *kind, const char *name, const char *key, int n)
{
	const cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(plan, "steps")) {
		const char *k = key ? key : fj_get_str(s, "key"), *v = fj_get_str(s, "value");
		if (!step_is(s, kind) || !v)
			continue;
		if (!tuned_ok(k) || !tuned_ok(v) || strchr(k, '=')) {
			char *line = xasprintf("%s %s: not written: its key or value has a character tuned reads "
					       "otherwise (# ; $ %% [ ] or a blank at an end)",
					       jstr_or(s, "finding", "?"), k ? k : "?");
			gen_comment(out, "# ", line);
			free(line);
			continue;
		}
		if (!n++)
			fprintf(out, "\n[%s]\n", name);
		why(out, s);
		fprintf(out, "%s=%s\n", k, v);
	}
	return n;
}

/* [bootloader]: the kernel parameters, one cmdline_ option (tuned appends
 * every cmdline* option of the merged profiles). */
static void bootloader(FILE *out, const cJSON *plan)
{
	const cJSON *s;
	struct strbuf sb = STRBUF_INIT;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(plan, "steps")) {
		const char *text = fj_get_str(s, "text");
		if (!step_is(s, "cmdline") || !fj_get_str(s, "key") || !tuned_ok(text) || strchr(text, ' '))
			continue;
		if (!sb.len)
			fputs("\n[bootloader]\n# Kernel parameters: tuned adds them to the boot loader's entries; "
			      "they take effect at the next boot.\n", out);
		why(out, s);
		strbuf_addf(&sb, "%s%s", sb.len ? " " : "", text);
	}
	if (sb.len)
		fprintf(out, "cmdline_nodeaudit=%s\n", sb.buf);
	strbuf_release(&sb);
}

/* [scheduler]: the workers' CPUs isolated, so that tuned moves every other
 * process and the IRQs it can onto the housekeeping CPUs. */
static void scheduler(FILE *out, const cJSON *plan)
{
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(plan, "housekeeping"), *w;
	struct strbuf sb = STRBUF_INIT;
	const char *hc = jstr_or(h, "cpus", "");
	if (!*hc || !tuned_ok(hc))
		return;
	cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(plan, "workers")) {
		const char *c = fj_get_str(w, "cpus");
		if (c && *c && tuned_ok(c))
			strbuf_addf(&sb, "%s%s", sb.len ? "," : "", c);
	}
	if (sb.len) {
		char *line = xasprintf("# The plan's workers run on CPUs %s (numactl/taskset, 'nodeaudit plan'); "
				       "everything else belongs on the housekeeping CPUs %s (%s): tuned moves "
				       "processes and IRQs off the isolated cores.", sb.buf, hc,
				       jstr_or(h, "purpose", "the OS"));
		fputs("\n[scheduler]\n", out);
		gen_comment(out, "", line);
		free(line);
		fprintf(out, "isolated_cores=%s\n", sb.buf);
	}
	strbuf_release(&sb);
}

void plan_render_tuned(FILE *out, const struct doc *d)
{
	const cJSON *plan = d->json;
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(plan, "tuned"), *i;
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(plan, "host");
	const char *name = jstr_or(t, "name", PLAN_TUNED_NAME);
	struct strbuf inc = STRBUF_INIT;
	char *line;

	line = xasprintf("# tuned.conf: a tuned profile from nodeaudit %s for %s (profile %s).", PACKAGE_VERSION,
			 jstr_or(host, "hostname", "an unknown host"), jstr_or(plan, "profile", "none"));
	gen_comment(out, "", line);
	free(line);
	fprintf(out, "# Review before use: nodeaudit never changes the system itself.\n"
		     "# Install and apply (as root; the directory's name is the profile's):\n"
		     "#   nodeaudit plan --format tuned -o /etc/tuned/%s\n"
		     "#   tuned-adm profile %s\n"
		     "# Check that the node matches it: tuned-adm verify\n", name, name);
	cJSON_ArrayForEach(i, cJSON_GetObjectItemCaseSensitive(t, "include"))
		if (cJSON_IsString(i) && tuned_ok(i->valuestring) && !strpbrk(i->valuestring, " ,"))
			strbuf_addf(&inc, "%s%s", inc.len ? "," : "", i->valuestring);
	fputs("\n[main]\n", out);
	line = xasprintf("summary=nodeaudit plan (profile %s)", jstr_or(plan, "profile", "none"));
	fprintf(out, "%s\n", tuned_ok(line) ? line : "summary=nodeaudit plan");
	free(line);
	if (fj_get_str(t, "include_from"))
		gen_comment(out, "# The base: ", fj_get_str(t, "include_from"));
	fprintf(out, "include=%s\n", inc.len ? inc.buf : "throughput-performance");
	strbuf_release(&inc);

	section(out, plan, "governor", "cpu", "governor", 0);
	section(out, plan, "thp", "vm", "transparent_hugepages", 0);
	section(out, plan, "sysctl", "sysctl", NULL, 0);
	/* tuned's sysfs plugin expands a key that is a glob (one file per port). */
	section(out, plan, "sysfs", "sysfs", NULL, section(out, plan, "smt", "sysfs", NULL, 0));
	bootloader(out, plan);
	scheduler(out, plan);
}
