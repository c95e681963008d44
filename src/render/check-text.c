/* render/check-text.c - the check report for people */
#include "config.h"
#include "audit/report.h"
#include "audit/diff.h"
#include "render/render.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "lib/textlayout.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Text from column col to the output's width, continuation lines at indent. */
#define wrap tl_wrap

static const char *status_color(int st)
{
	switch (st) {
	case ST_FAIL: return c_red();
	case ST_WARN: return c_yellow();
	case ST_PASS: return c_green();
	default: return c_dim();
	}
}

/* "N fail, N warn, ...; exit N", naming the drift from --baseline that
 * gave exit 1 by itself, and how many checks could not be decided. */
static void summary_lines(FILE *fp, const cJSON *r, const cJSON *sum, int quiet)
{
	const cJSON *bs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "baseline"), "summary");
	int changed = report_jint(bs, "facts_changed"), worse = report_jint(bs, "checks_worse");
	int u = report_jint(sum, "unknown");
	char drift[128] = "", line[256];
	if (changed > 0 || worse > 0)
		snprintf(drift, sizeof(drift), " (drift from the baseline: %d fact%s changed, %d check%s worse)",
			 changed, changed == 1 ? "" : "s", worse, worse == 1 ? "" : "s");
	snprintf(line, sizeof(line), "%d fail, %d warn, %d info, %d pass, %d unknown, %d skip; exit %d%s",
		 report_jint(sum, "fail"), report_jint(sum, "warn"), report_jint(sum, "info"),
		 report_jint(sum, "pass"), u, report_jint(sum, "skip"), report_jint(sum, "exit"), drift);
	fputc('\n', fp);
	wrap(fp, 0, 0, line);
	if (u && !quiet) {
		snprintf(line, sizeof(line), "%d check%s could not be decided: see the reasons above", u,
			 u == 1 ? "" : "s");
		wrap(fp, 0, 0, line);
	}
}

void report_render_text(FILE *fp, const struct doc *d)
{
	const cJSON *r = d->json;
	static const int order[] = { ST_FAIL, ST_WARN, ST_INFO, ST_UNKNOWN, ST_SKIP, ST_PASS };
	const cJSON *findings = cJSON_GetObjectItemCaseSensitive(r, "findings"), *f, *x;
	const cJSON *prof = cJSON_GetObjectItemCaseSensitive(r, "profile");
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(r, "summary");
	const char *host = fj_get_str(cJSON_GetObjectItemCaseSensitive(r, "host"), "hostname");
	size_t k, col;
	/* -q: the results only, without the reasons, details, fixes and hints. */
	int quiet = verbosity < 0;

	{
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%snodeaudit check%s: profile %s", c_bold(), c_reset(), fj_get_str(prof, "name"));
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(prof, "chain"))
			if (x == cJSON_GetObjectItemCaseSensitive(prof, "chain")->child)
				strbuf_addf(&sb, " (%s", x->valuestring);
			else
				strbuf_addf(&sb, " > %s", x->valuestring);
		strbuf_addf(&sb, ")%s%s", host ? " on " : "", host ? host : "");
		if (fj_get_str(prof, "chosen"))
			strbuf_addf(&sb, ", chosen for %s", fj_get_str(prof, "chosen"));
		wrap(fp, 0, 2, sb.buf);
		fputc('\n', fp);
		strbuf_release(&sb);
	}
	for (k = 0; k < ARRAY_SIZE(order); k++) {
		cJSON_ArrayForEach(f, findings) {
			int st = report_status_of(f);
			const char *id = fj_get_str(f, "id"), *key = fj_get_str(f, "key");
			char *idbuf, *line;
			if (st != order[k])
				continue;
			idbuf = key ? xasprintf("%s %s", id ? id : "?", key) : xstrdup(id ? id : "?");
			col = 8 + 34 + 1;
			/* A long ID (a sysctl's key) gets a line of its own: its value would run into it. */
			if (strlen(idbuf) > 34)
				fprintf(fp, "%s%-7s%s %s\n%*s", status_color(st), status_name(st), c_reset(), idbuf,
					(int)col, "");
			else
				fprintf(fp, "%s%-7s%s %-34s ", status_color(st), status_name(st), c_reset(), idbuf);
			free(idbuf);
			if (st == ST_UNKNOWN || st == ST_SKIP) {
				wrap(fp, col, 10, fj_get_str(f, "title"));
				if (quiet)
					continue;
				fprintf(fp, "        %s", c_dim());
				wrap(fp, 8, 10, fj_get_str(f, "reason") ? fj_get_str(f, "reason") : "");
				fputs(c_reset(), fp);
				continue;
			}
			{
				char *o = report_observed_text(f), *e = st != ST_PASS ? report_expected_text(f) : NULL;
				line = xasprintf("%s: %s%s%s", key ? "value" : fj_get_str(f, "title"), o,
						 e ? ", expected " : "", e ? e : "");
				free(o);
				free(e);
			}
			wrap(fp, col, 10, line);
			free(line);
			if (st == ST_PASS || quiet)
				continue;
			if (fj_get_str(f, "detail")) {
				fputs("        ", fp);
				wrap(fp, 8, 10, fj_get_str(f, "detail"));
			}
			if (fj_get_str(f, "when"))
				fprintf(fp, "        applies when workers are %s per NUMA node\n", fj_get_str(f, "when"));
			cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(f, "fix")) {
				const char *cmd = fj_get_str(x, "command"), *txt = fj_get_str(x, "text"), *kind = fj_get_str(x, "kind");
				const char *what = cmd ? cmd : txt;
				line = xasprintf("fix (%s): %s", kind ? kind : "?", what ? what : "");
				fputs("        ", fp);
				wrap(fp, 8, 10, line);
				free(line);
				if (cmd && txt) {
					fputs("          ", fp);
					wrap(fp, 10, 10, txt);
				}
			}
		}
	}
	{
		struct tl_buf b;
		diff_text_baseline(tl_begin(&b), cJSON_GetObjectItemCaseSensitive(r, "baseline"));
		tl_end(fp, &b, TL_AUTO);
	}
	summary_lines(fp, r, sum, quiet);
}
