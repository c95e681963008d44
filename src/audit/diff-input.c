/* audit/diff-input.c - the two sides of `diff` (and check's --baseline): JSON files or snapshots */
#include "config.h"
#include "audit/audit.h"
#include "audit/diff.h"
#include "probe/probe.h"
#include "audit/profile.h"
#include "audit/report.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A document bigger than this is not one nodeaudit wrote. */
#define INPUT_MAX_BYTES (64u << 20)

/* NEEDSWORK: the same list as read/sysroot.c's is_archive(), which is static. */
static int is_archive(const char *p)
{
	return str_endswith(p, ".tar") || str_endswith(p, ".tar.gz") || str_endswith(p, ".tgz") ||
	       str_endswith(p, ".tar.xz") || str_endswith(p, ".txz") || str_endswith(p, ".tar.bz2");
}

/* A directory is taken for a snapshot only when it has what one holds:
 * probing an unrelated directory would "find" a node with no facts.
 * (--sysroot asks the same: cmd/cli.c.) */
int diff_looks_like_snapshot(const char *dir)
{
	static const char *const parts[] = { "nodeaudit", "proc", "sys", NULL };
	size_t i;
	for (i = 0; parts[i]; i++) {
		char *p = xasprintf("%s/%s", dir, parts[i]);
		struct stat sb;
		int ok = stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
		free(p);
		if (ok)
			return 1;
	}
	return 0;
}

static const char *const not_ours = "is not a probe JSON, check report or snapshot";

static int read_json(const char *path, cJSON **doc)
{
	struct strbuf sb = STRBUF_INIT;
	const char *end = NULL, *kind, *why;
	int line, col, r;
	long bad;

	r = read_file_capped(path, INPUT_MAX_BYTES, &sb.buf, &sb.len);
	if (r == -EFBIG)
		return error("'%s' %s (larger than 64 MiB)", path, not_ours);
	if (r < 0)
		return error("cannot read '%s': %s", path, input_strerror(-r));
	sb.alloc = sb.len + 1;
	if (!sb.len) {
		strbuf_release(&sb);
		return error("'%s' %s (empty file)", path, not_ours);
	}
	if (strlen(sb.buf) != sb.len) {
		strbuf_release(&sb);
		return error("'%s' %s (it has NUL bytes)", path, not_ours);
	}
	if ((bad = json_bad_offset(sb.buf, sb.len, &why)) >= 0) {
		text_line_col(sb.buf, (size_t)bad, &line, &col);
		strbuf_release(&sb);
		return error("'%s': line %d, column %d: %s", path, line, col, why);
	}
	*doc = cJSON_ParseWithOpts(sb.buf, &end, 1);
	if (!*doc) {
		text_line_col(sb.buf, end ? (size_t)(end - sb.buf) : 0, &line, &col);
		strbuf_release(&sb);
		return error("'%s' %s (not JSON: line %d, column %d)", path, not_ours, line, col);
	}
	strbuf_release(&sb);
	kind = diff_doc_kind(*doc);
	if (!kind) {
		const char *schema = fj_get_str(*doc, "schema");
		if (schema)
			error("'%s' %s (schema '%.60s')", path, not_ours, schema);
		else
			error("'%s' %s (no 'schema' key)", path, not_ours);
		cJSON_Delete(*doc);
		*doc = NULL;
		return -1;
	}
	return 0;
}

/* Probe a snapshot (or this node) into a probe document. */
static int probe_side(const struct probe_opts *opts, const struct profile *prof, cJSON **doc)
{
	struct probe_ctx ctx;
	if (probe_run(&ctx, opts, NULL) < 0) {
		probe_release(&ctx);
		return -1;
	}
	if (prof)
		audit_read_profile_inputs(&ctx, prof);
	*doc = probe_json(&ctx);
	probe_release(&ctx);
	return 0;
}

int diff_input_load(struct diff_input *in, const char *path, const struct probe_opts *opts,
		    const struct profile *prof)
{
	struct stat sb;
	const char *kind;

	memset(in, 0, sizeof(*in));
	if (!path) {
		if (probe_side(opts, prof, &in->doc) < 0)
			return -1;
		kind = opts && opts->sysroot ? "snapshot" : "live";
		in->source = opts && opts->sysroot ? xstrdup(opts->sysroot) : NULL;
	} else if (stat(path, &sb) == 0 && (S_ISDIR(sb.st_mode) || (S_ISREG(sb.st_mode) && is_archive(path)))) {
		struct probe_opts o = { path, NULL, NULL, NULL };
		if (S_ISDIR(sb.st_mode) && !diff_looks_like_snapshot(path))
			return error("'%s' %s (a directory without proc/, sys/ or nodeaudit/)", path, not_ours);
		if (probe_side(&o, prof, &in->doc) < 0)
			return -1;
		kind = "snapshot";
		in->source = xstrdup(path);
	} else {
		if (read_json(path, &in->doc) < 0)
			return -1;
		kind = diff_doc_kind(in->doc);
		in->source = xstrdup(path);
	}
	in->facts = diff_facts_of(in->doc);
	in->side.source = in->source;
	in->side.kind = kind;
	in->side.facts = in->facts;
	if (prof) {
		int code;
		in->report = report_build(prof, in->facts, cJSON_GetObjectItemCaseSensitive(in->doc, "gaps"),
					  NULL, cJSON_GetObjectItemCaseSensitive(in->doc, "conflicts"), "warn", &code);
		in->side.findings = cJSON_GetObjectItemCaseSensitive(in->report, "findings");
		in->side.profile = prof->name;
	} else if (!strcmp(kind, "report")) {
		in->side.findings = cJSON_GetObjectItemCaseSensitive(in->doc, "findings");
		in->side.profile = fj_get_str(cJSON_GetObjectItemCaseSensitive(in->doc, "profile"), "name");
	}
	return 0;
}

void diff_input_release(struct diff_input *in)
{
	cJSON_Delete(in->report);
	cJSON_Delete(in->facts);
	cJSON_Delete(in->doc);
	free(in->source);
	memset(in, 0, sizeof(*in));
}

int diff_check_baseline(cJSON *report, const char *path, const struct profile *prof,
			const char *fail_on, int exit_code)
{
	struct diff_input in;
	int code;
	if (diff_input_load(&in, path, NULL, prof) < 0)
		return -1;
	code = diff_report_baseline(report, &in.side, fail_on, exit_code);
	diff_input_release(&in);
	return code;
}
