/* render/diff.c - the diff document as text (formats only; decides nothing) */
#include "config.h"
#include "audit/diff.h"
#include "render/render.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Longest value shown on a line; longer ones end in "...". */
#define VALUE_MAX 72
/* Widest path column before values move right of it anyway. */
#define PATH_COL_MAX 56
/* Changes listed under check's baseline section. */
#define BASELINE_LINES 10

/* Text with control characters (from a hostile input file) shown as '?'. */
static void put_clean(FILE *fp, const char *s, size_t max)
{
	size_t n = 0;
	for (; *s && n < max; s++, n++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, fp);
	if (*s)
		fputs("...", fp);
}

static void put_value(FILE *fp, const cJSON *v)
{
	char *s;
	if (!v || cJSON_IsNull(v))
		fputs("null", fp);
	else if (cJSON_IsBool(v))
		fputs(cJSON_IsTrue(v) ? "true" : "false", fp);
	else if (cJSON_IsString(v))
		put_clean(fp, *v->valuestring ? v->valuestring : "\"\"", VALUE_MAX);
	else if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 1e15)
		fprintf(fp, "%.0f", v->valuedouble);
	else if ((s = cJSON_PrintUnformatted(v))) {
		put_clean(fp, s, VALUE_MAX);
		free(s);
	} else
		fputs("?", fp);
}

static void put_side(FILE *fp, const char *label, const cJSON *side)
{
	const char *src = fj_get_str(side, "source"), *kind = fj_get_str(side, "kind");
	const char *host = fj_get_str(side, "hostname"), *at = fj_get_str(side, "collected_at");
	const char *prof = fj_get_str(side, "profile");
	fprintf(fp, "%s%s%s  ", c_bold(), label, c_reset());
	if (src) {
		put_clean(fp, src, 200);
		fprintf(fp, " (%s", kind ? kind : "?");
		if (host)
			fputs(" of ", fp);
	} else
		fputs(kind && !strcmp(kind, "live") ? "this node (" : "this check (", fp);
	if (host)
		put_clean(fp, host, 100);
	if (at) {
		fputs(", ", fp);
		put_clean(fp, at, 40);
	}
	if (prof) {
		fputs(", profile ", fp);
		put_clean(fp, prof, 100);
	}
	fputs(")\n", fp);
}

static int path_width(const cJSON *changes, int volatile_too)
{
	const cJSON *ch;
	int w = 0;
	cJSON_ArrayForEach(ch, changes) {
		const char *p = fj_get_str(ch, "path");
		if (p && (volatile_too || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ch, "volatile"))) &&
		    (int)strlen(p) > w)
			w = (int)strlen(p);
	}
	return w > PATH_COL_MAX ? PATH_COL_MAX : w;
}

static void put_change(FILE *fp, const cJSON *ch, int width)
{
	const char *path = fj_get_str(ch, "path"), *kind = fj_get_str(ch, "kind");
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(ch, "old");
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(ch, "new");
	int len = path ? (int)strlen(path) : 1;
	fputs("  ", fp);
	put_clean(fp, path ? path : "?", 400);
	fprintf(fp, "%*s  ", len < width ? width - len : 0, "");
	if (kind && !strcmp(kind, "removed")) {
		fprintf(fp, "%sremoved%s (was ", c_red(), c_reset());
		put_value(fp, o);
		fputs(")", fp);
	} else if (kind && !strcmp(kind, "added")) {
		fprintf(fp, "%sadded%s: ", c_yellow(), c_reset());
		put_value(fp, n);
	} else {
		put_value(fp, o);
		fputs(" -> ", fp);
		put_value(fp, n);
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ch, "grew")))
		fprintf(fp, "  %s(grew)%s", c_red(), c_reset());
	fputc('\n', fp);
}

static int jnum(const cJSON *obj, const char *key)
{
	double v = 0;
	fj_get_num(obj, key, &v);
	return num_clamp(v, -1000000000, 1000000000);
}

static void put_summary(FILE *fp, const cJSON *sum, int with_exit)
{
	int fc = jnum(sum, "facts_changed"), w = jnum(sum, "checks_worse"), b = jnum(sum, "checks_better");
	fprintf(fp, "%d fact%s changed", fc, fc == 1 ? "" : "s");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sum, "findings_compared")))
		fprintf(fp, ", %d check%s worse, %d better", w, w == 1 ? "" : "s", b);
	if (with_exit)
		fprintf(fp, "; exit %d", jnum(sum, "exit"));
	fputc('\n', fp);
}

void diff_text(FILE *fp, const cJSON *diff)
{
	const cJSON *changes = cJSON_GetObjectItemCaseSensitive(diff, "changes");
	const cJSON *findings = cJSON_GetObjectItemCaseSensitive(diff, "findings");
	const cJSON *nc = cJSON_GetObjectItemCaseSensitive(diff, "not_compared");
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(diff, "summary");
	const cJSON *ch;
	int width = path_width(changes, 1), nvol = jnum(sum, "volatile_changed"), k, n;

	put_side(fp, "old", cJSON_GetObjectItemCaseSensitive(diff, "old"));
	put_side(fp, "new", cJSON_GetObjectItemCaseSensitive(diff, "new"));

	fprintf(fp, "\n%sFacts%s\n", c_bold(), c_reset());
	n = 0;
	cJSON_ArrayForEach(ch, changes)
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ch, "volatile"))) {
			put_change(fp, ch, width);
			n++;
		}
	if (!n)
		fputs("  (no change)\n", fp);
	if (nvol && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sum, "volatile_shown"))) {
		fprintf(fp, "\n%sVolatile facts%s (they change without drift)\n", c_bold(), c_reset());
		cJSON_ArrayForEach(ch, changes)
			if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ch, "volatile")))
				put_change(fp, ch, width);
	} else if (nvol)
		fprintf(fp, "  %s%d volatile fact%s changed too (--all shows %s)%s\n", c_dim(), nvol,
			nvol == 1 ? "" : "s", nvol == 1 ? "it" : "them", c_reset());

	if (cJSON_GetArraySize(nc) > 0) {
		fprintf(fp, "  %snot compared, read on one side only:", c_dim());
		k = 0;
		cJSON_ArrayForEach(ch, nc) {
			if (k++ == 5) {
				fprintf(fp, " (+%d more)", cJSON_GetArraySize(nc) - 5);
				break;
			}
			fputs(k > 1 ? ", " : " ", fp);
			put_clean(fp, cJSON_IsString(ch) ? ch->valuestring : "?", 200);
		}
		fprintf(fp, "%s\n", c_reset());
	}

	{
		/* Where facts were read from: shown, never counted as drift. */
		const cJSON *prov = cJSON_GetObjectItemCaseSensitive(diff, "provenance");
		if (cJSON_GetArraySize(prov) > 0) {
			fprintf(fp, "\n%sProvenance%s (where facts were read from: not drift)\n", c_bold(),
				c_reset());
			cJSON_ArrayForEach(ch, prov)
				put_change(fp, ch, path_width(prov, 1));
		}
	}

	fprintf(fp, "\n%sChecks%s\n", c_bold(), c_reset());
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sum, "findings_compared")))
		fputs("  (not compared: only check reports, or --profile, have findings on both sides)\n", fp);
	else if (!cJSON_GetArraySize(findings))
		fputs("  (no change)\n", fp);
	cJSON_ArrayForEach(ch, findings) {
		const char *id = fj_get_str(ch, "id"), *key = fj_get_str(ch, "key");
		const char *os = fj_get_str(ch, "old_status"), *ns = fj_get_str(ch, "new_status");
		const char *change = fj_get_str(ch, "change");
		int bad = change && (!strcmp(change, "appeared") || !strcmp(change, "worse"));
		char idbuf[160];
		snprintf(idbuf, sizeof(idbuf), "%s%s%s", id ? id : "?", key ? " " : "", key ? key : "");
		fprintf(fp, "  %s%-9s%s ", bad ? c_red() : c_green(), change ? change : "?", c_reset());
		put_clean(fp, idbuf, 60);
		fprintf(fp, "%*s  %s -> %s", (int)strlen(idbuf) < 34 ? 34 - (int)strlen(idbuf) : 0, "",
			os ? os : "absent", ns ? ns : "absent");
		if (cJSON_GetObjectItemCaseSensitive(ch, "old_observed") || cJSON_GetObjectItemCaseSensitive(ch, "new_observed")) {
			fputs(" (observed ", fp);
			put_value(fp, cJSON_GetObjectItemCaseSensitive(ch, "old_observed"));
			fputs(" -> ", fp);
			put_value(fp, cJSON_GetObjectItemCaseSensitive(ch, "new_observed"));
			fputs(")", fp);
		}
		fputc('\n', fp);
	}
	fputc('\n', fp);
	put_summary(fp, sum, 1);
}

void diff_text_baseline(FILE *fp, const cJSON *baseline)
{
	const cJSON *changes = cJSON_GetObjectItemCaseSensitive(baseline, "changes");
	const cJSON *findings = cJSON_GetObjectItemCaseSensitive(baseline, "findings");
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(baseline, "summary");
	const cJSON *ch;
	int width = path_width(changes, 0), n = 0, total = cJSON_GetArraySize(changes);

	if (!baseline)
		return;
	fputc('\n', fp);
	put_side(fp, "Baseline", cJSON_GetObjectItemCaseSensitive(baseline, "old"));
	cJSON_ArrayForEach(ch, changes) {
		if (n == BASELINE_LINES) {
			fprintf(fp, "  ... and %d more; 'nodeaudit diff' shows every change\n", total - n);
			break;
		}
		put_change(fp, ch, width);
		n++;
	}
	cJSON_ArrayForEach(ch, findings) {
		const char *id = fj_get_str(ch, "id"), *key = fj_get_str(ch, "key");
		const char *os = fj_get_str(ch, "old_status"), *ns = fj_get_str(ch, "new_status");
		fprintf(fp, "  check %s", fj_get_str(ch, "change") ? fj_get_str(ch, "change") : "?");
		fputs(": ", fp);
		put_clean(fp, id ? id : "?", 80);
		if (key) {
			fputc(' ', fp);
			put_clean(fp, key, 80);
		}
		fprintf(fp, " %s -> %s\n", os ? os : "absent", ns ? ns : "absent");
	}
	fputs("  ", fp);
	put_summary(fp, sum, 0);
}
