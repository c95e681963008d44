/* fuzz-plan.c - `plan --report`: a saved report, as text, through the same
 * steps as the command (UTF-8, JSON, the report's strings, plan_build) and
 * every generated format.  The oracle is the one rule of lib/quote.h, checked
 * in process: the output has no raw control character; every line of the
 * sysctl.d file is a comment, blank, or KEY = VALUE with a kernel key; every
 * line of the systemd drop-ins is a comment, blank or one of the four
 * settings the plan writes; every line of the shell script is a comment, or
 * -- once its single-quoted words are taken out (sh has no escapes inside
 * them) and its /sys paths named P -- one of the lines the script is made
 * of, with no quote left open.  tests/hostile-plan.sh runs `sh -n` on the
 * scripts of this target's corpus. */
#include "config.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "audit/plan.h"
#include "lib/quote.h"
#include "render/render.h"
#include "lib/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The lines of a step, once quoted words are removed and paths are P;
 * the script's other lines are those of a plan without steps (base). */
static const char *const step_lines[] = {
	"set_sysctl  ", "set_choice P ", "for g in P; do", "\t[ -e \"$g\" ] || continue", "\tset_plain \"$g\" ",
	"done", "if [ -e P ]; then", "\tset_plain P off", "\tset_plain P ", "fi", NULL,
};
static char **base;
static size_t nbase;

static int raw_ctrl(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	for (; *p; p++)
		if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0))
			return 1;
	return 0;
}

/* A line of the script with its quoted words out and its paths as P, or
 * NULL when a quote is left open (it would run into the next line). */
static char *skeleton(const char *line)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = line;
	while (*p) {
		if (*p == '\'') {
			const char *q = strchr(p + 1, '\'');
			if (!q) {
				strbuf_release(&sb);
				return NULL;
			}
			p = q + 1;
		} else if (*p == '\\' && p[1] == '\'') {
			p += 2;   /* 'it'\''s: the quote between two quoted parts */
		} else if (!strncmp(p, "/sys/", 5)) {
			strbuf_addstr(&sb, "P");
			p += strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./*-");
		} else {
			strbuf_add(&sb, p, 1);
			p++;
		}
	}
	return sb.buf ? strbuf_detach(&sb) : xstrdup("");
}

static int sh_line_ok(const char *line)
{
	char *sk;
	size_t i;
	int ok = 0;
	if (*line == '#')
		return 1;
	if (!(sk = skeleton(line)))
		return 0;
	for (i = 0; step_lines[i] && !ok; i++)
		ok = !strcmp(sk, step_lines[i]);
	for (i = 0; i < nbase && !ok; i++)
		ok = !strcmp(sk, base[i]);
	free(sk);
	return ok;
}

static int sysctl_line_ok(const char *line)
{
	const char *eq;
	char *key;
	int ok;
	if (!*line || *line == '#')
		return 1;
	eq = strstr(line, " = ");
	if (!eq)
		return 0;
	key = xstrndup(line, (size_t)(eq - line));
	ok = !sysctl_key_why(key) && !gen_value_why(eq + 3);
	free(key);
	return ok;
}

static int systemd_line_ok(const char *line)
{
	/* The template unit's fixed lines (the command is the placeholder here). */
	static const char *const fixed[] = {
		"[Unit]", "Description=Inference worker %i (nodeaudit plan)", "After=network-online.target",
		"Wants=network-online.target", "Type=exec", "ExecStart=", "ExecStart=<your-inference-command>",
		"Restart=on-failure", "RestartSec=5", "[Install]", "WantedBy=multi-user.target", NULL,
	};
	size_t i;
	if (!*line || *line == '#' || !strcmp(line, "[Service]") || !strcmp(line, "NUMAPolicy=bind"))
		return 1;
	for (i = 0; fixed[i]; i++)
		if (!strcmp(line, fixed[i]))
			return 1;
	if (str_startswith(line, "ExecStart=<your-inference-command> -t "))   /* a worker's threads */
		return line[38] && strspn(line + 38, "0123456789") == strlen(line + 38);
	if (str_startswith(line, "CPUAffinity="))
		return cpulist_word_ok(line + 12);
	if (str_startswith(line, "NUMAMask="))
		return line[9] && strspn(line + 9, "0123456789") == strlen(line + 9);
	return 0;
}

static char *rendered(const struct doc *d, render_fn render)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		abort();
	render(mem, d);
	if (fclose(mem) != 0 || !buf)
		abort();
	if (strlen(buf) != len)
		abort();   /* a NUL in the output */
	return buf;
}

/* The script of a plan without steps: the lines every script has. */
static void load_base(void)
{
	struct doc d;
	char *buf, *line, *save = NULL;
	memset(&d, 0, sizeof(d));
	d.json = cJSON_CreateObject();
	buf = rendered(&d, plan_render_sh);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sk = skeleton(line);
		if (!sk)
			abort();
		base = xrealloc(base, (nbase + 1) * sizeof(*base));
		base[nbase++] = sk;
	}
	free(buf);
	cJSON_Delete(d.json);
}

static void check_format(const struct doc *d, render_fn render, int (*line_ok)(const char *))
{
	char *buf = rendered(d, render), *line, *save = NULL;
	size_t len = strlen(buf);
	if (raw_ctrl(buf) || (len && buf[len - 1] != '\n'))
		abort();   /* a raw control character, or a last line left open */
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!line_ok(line))
			abort();   /* a line the format does not intend */
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *why = NULL;
	const char *bad;
	cJSON *report, *plan;
	const cJSON *facts;
	struct plan_opts o = { .command = NULL, .reserve = -1, .unit = NULL, .ctx = -1 };
	struct doc d;
	if (size > (1u << 20))
		return 0;
	if (!base)
		load_base();
	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	/* As plan --report reads it (audit_load_doc): the raw text's check
	 * (UTF-8, no \u0000), then JSON. */
	if (json_bad_offset(text, size, &bad) >= 0 || !(report = cJSON_ParseWithLength(text, size))) {
		free(text);
		return 0;
	}
	free(text);
	facts = cJSON_GetObjectItemCaseSensitive(report, "facts");
	if (!cJSON_IsObject(facts) || (why = plan_report_refusal(report))) {
		free(why);
		cJSON_Delete(report);
		return 0;
	}
	if (!cJSON_GetObjectItemCaseSensitive(facts, "host") && cJSON_GetObjectItemCaseSensitive(report, "host"))
		cJSON_AddItemToObject((cJSON *)facts, "host",
				      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(report, "host"), 1));
	plan = plan_build(facts, cJSON_GetObjectItemCaseSensitive(report, "findings"),
			  fj_get_str(cJSON_GetObjectItemCaseSensitive(report, "profile"), "name"), &o);
	/* As cmd/cli.c does before every text format. */
	json_clean(plan, 1);
	memset(&d, 0, sizeof(d));
	d.json = plan;
	check_format(&d, plan_render_sh, sh_line_ok);
	check_format(&d, plan_render_sysctl, sysctl_line_ok);
	check_format(&d, plan_render_systemd, systemd_line_ok);
	cJSON_Delete(plan);
	cJSON_Delete(report);
	return 0;
}
