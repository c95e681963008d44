/* fuzz-facts.c - `check --facts`: a saved probe document or an earlier
 * report, as a file, through audit_run() as the command runs it (the raw
 * text's check, JSON, the schema, a report's facts taken back) and every
 * format check writes but the drawings.  The oracle, checked in process:
 * no output has a NUL; NFD's +expiry-time is an RFC 3339 time with a
 * four-digit year; the JSON report, checked again as an earlier report,
 * gives the same report byte for byte (nodeaudit(1): --facts takes one);
 * and the sanitizers' (a number cast out of range). */
#include "config.h"
#include "audit/audit.h"
#include "lib/facts.h"
#include "lib/output.h"
#include "probe/probe.h"
#include "render/nfd.h"
#include "render/render.h"
#include "lib/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *rendered(cJSON *json, render_fn render, void *opts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	struct doc d;
	if (!mem)
		abort();
	memset(&d, 0, sizeof(d));
	d.json = json;
	d.data = opts;
	render(mem, &d);
	if (fclose(mem) != 0 || !buf)
		abort();
	if (strlen(buf) != len)
		abort();   /* a NUL in the output */
	return buf;
}

/* The report of the document at text (its exit code in *code), or NULL
 * when audit_run() refuses it. */
static cJSON *checked(const char *text, size_t len, int *code)
{
	struct audit_opts ao = { .fail_on = "warn" };
	struct probe_opts po;
	cJSON *report = NULL;
	char *err = NULL, *path;
	int memfd, r;
	memset(&po, 0, sizeof(po));
	path = private_copy("fuzz-facts", text, len, &memfd, &err);
	if (!path)
		abort();
	ao.facts = path;
	r = audit_run(&ao, &po, &report, code);
	private_copy_drop(path, memfd);
	return r < 0 ? NULL : report;
}

static void check_nfd(cJSON *report)
{
	struct nfd_opts o = { 30 * 86400 };
	char *buf = rendered(report, report_render_nfd, &o), *line, *save = NULL;
	time_t t;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "# +expiry-time=", 15) && rfc3339_parse(line + 15, &t) < 0)
			abort();   /* not RFC 3339 */
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static render_fn *const formats[] = {
		report_render_text, report_render_junit, report_render_prometheus, report_render_tap,
	};
	cJSON *report, *again;
	char *json, *json2;
	size_t i;
	int code, code2;
	if (size > (1u << 20))
		return 0;
	if (!(report = checked((const char *)data, size, &code)))
		return 0;
	json = rendered(report, render_json, NULL);
	json_clean(report, 1);
	for (i = 0; i < ARRAY_SIZE(formats); i++)
		free(rendered(report, formats[i], NULL));
	check_nfd(report);
	cJSON_Delete(report);
	/* The report checked again, as an earlier report. */
	again = checked(json, strlen(json), &code2);
	if (!again || code2 != code)
		abort();
	json2 = rendered(again, render_json, NULL);
	if (strcmp(json, json2))
		abort();   /* not the same report */
	free(json2);
	cJSON_Delete(again);
	free(json);
	return 0;
}
