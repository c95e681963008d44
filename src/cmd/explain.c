/* cmd/explain.c - `nodeaudit explain [CHECK-ID]`: what a check measures, why, how to fix */
#include "config.h"
#include "cmd/cli.h"
#include "audit/checks.h"
#include "lib/output.h"
#include "audit/profile.h"
#include "lib/textlayout.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

/* Prose at most 78 columns wide (narrower on a narrower output), indented. */
#define PROSE_WIDTH 78
static void wrap(FILE *fp, const char *indent, const char *s)
{
	size_t ind = strlen(indent);
	if (!*s)
		return;
	fputs(indent, fp);
	tl_wrap_width(fp, ind, ind, PROSE_WIDTH, s);
}

static const char *type_name(const struct check *c)
{
	switch (c->type) {
	case V_ONOFF: return "on or off";
	case V_BOOL: return "true or false";
	case V_STR: return "a string";
	case V_NUM: return "a number";
	case V_SET: return "a set of flags";
	case V_SYSCTL: return "a string as the kernel prints it";
	}
	return "?";
}

static void explain_list(FILE *fp)
{
	struct tl_table *t = tl_table_new(0);
	size_t i;
	tl_table_column(t, NULL, 34, 0);
	tl_table_column(t, NULL, 0, 0);
	for (i = 0; i < ncheck_catalog; i++)
		tl_table_row(t, check_catalog[i].id, check_catalog[i].title);
	tl_table_print(fp, t);
}

static void explain_one(FILE *fp, const struct check *c)
{
	size_t i, k;
	char buf[300];
	tl_line(fp, 2, "%s%s%s: %s", c_bold(), c->id, c_reset(), c->title);
	fputc('\n', fp);
	fprintf(fp, "What it measures\n");
	wrap(fp, "  ", c->what);
	snprintf(buf, sizeof(buf), "%s%s%s%s%s", c->cmps & CMP_EXPECT ? "expect" : "",
		 (c->cmps & CMP_EXPECT) && (c->cmps & (CMP_MIN | CMP_MAX)) ? " " : "",
		 c->cmps & CMP_MIN ? "min" : "", (c->cmps & CMP_MIN) && (c->cmps & CMP_MAX) ? " " : "",
		 c->cmps & CMP_MAX ? "max" : "");
	tl_line(fp, 4, "  Facts read: %s", c->facts);
	tl_line(fp, 4, "  Value: %s%s%s; comparators: %s", type_name(c), c->unit ? ", in " : "", c->unit ? c->unit : "", buf);
	if (c->metrics)
		tl_line(fp, 4, "  Prometheus series (check --format prometheus): %s", c->metrics);
	if (c->labels)
		tl_line(fp, 4, "  NFD labels (check --format nfd, after the prefix): %s", c->labels);
	fputc('\n', fp);
	fprintf(fp, "Why it matters\n");
	wrap(fp, "  ", c->why);
	if (c->disagree) {
		fprintf(fp, "\nWhere sources disagree\n");
		wrap(fp, "  ", c->disagree);
	}
	fprintf(fp, "\nHow to fix\n");
	for (i = 0; i < ARRAY_SIZE(c->fixes) && c->fixes[i].kind; i++) {
		snprintf(buf, sizeof(buf), "%s%s%s", c->fixes[i].command ? c->fixes[i].command : "",
			 c->fixes[i].command && c->fixes[i].text ? ": " : "",
			 c->fixes[i].text ? c->fixes[i].text : "");
		tl_line(fp, 4, "  (%s) %s", c->fixes[i].kind, buf);
	}
	fprintf(fp, "\nBuilt-in profiles\n");
	for (i = 0; i < nbuiltin_profiles; i++) {
		struct profile p;
		char *err = NULL;
		int used = 0;
		if (profile_load(&p, builtin_profiles[i].name, NULL, NULL, &err) < 0) {
			free(err);
			continue;
		}
		for (k = 0; k < p.nspecs; k++) {
			const struct pspec *s = &p.specs[k];
			if (s->check != c)
				continue;
			if (s->skip) {
				tl_line(fp, 27, "  %-24s skipped: %s", p.name, s->skip);
				used = 1;
				continue;
			}
			{
				char *ex = pspec_expected(s);
				tl_line(fp, 27, "  %-24s %s%s%s%s (%s)", p.name, s->key ? s->key : "",
					s->key ? " " : "", ex, strcmp(s->when, "always") ? ", when pinned" : "",
					severity_name(s->severity));
				free(ex);
			}
			if (s->note)
				wrap(fp, "      ", s->note);
			used = 1;
		}
		if (!used)
			fprintf(fp, "  %-24s not checked\n", p.name);
		profile_release(&p);
	}
}

void explain_render_text(FILE *fp, const struct doc *d)
{
	if (d->data)
		explain_one(fp, d->data);
	else
		explain_list(fp);
}

static int explain_cmd(struct invocation *inv)
{
	const struct check *c = NULL;
	const char *id = inv->noperands ? inv->operands[0] : NULL;
	char b1[48];
	if (id) {
		c = check_find(id);
		/* "kernel.sysctl.vm.swappiness" explains kernel.sysctl. */
		if (!c && str_startswith(id, "kernel.sysctl."))
			c = check_find("kernel.sysctl");
		else if (!c && str_startswith(id, "kernel.cmdline."))
			c = check_find("kernel.cmdline");
		if (!c) {
			const char *sug = check_suggest(id);
			if (sug)
				return error("unknown check '%s' (did you mean '%s'?)", str_shown(id, b1, sizeof(b1)), sug);
			return error("unknown check '%s'; 'nodeaudit explain' lists them", str_shown(id, b1, sizeof(b1)));
		}
	}
	inv->doc.data = c;
	return EXIT_OK;
}

static const struct cmd_format explain_formats[] = {
	{ "text", explain_render_text },
	{ NULL, NULL },
};

const struct command cmd_explain = {
	.name = "explain",
	.summary = "CHECK-ID: what a check measures, why, how to fix it",
	.synopsis = "[CHECK-ID]",
	.description =
		"What the check measures, why it matters (with the field figures), where\n"
		"sources disagree, how to fix it, and what each built-in profile expects.\n"
		"Without an ID, list every check.\n",
	.formats = explain_formats,
	.min_operands = 0, .max_operands = 1,
	.run = explain_cmd,
};
