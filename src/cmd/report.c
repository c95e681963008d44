/* cmd/report.c - `nodeaudit report`: fleet summary of many check reports */
#include "config.h"
#include "cmd/cli.h"
#include "lib/output.h"
#include "audit/fleet.h"
#include "render/html.h"
#include "lib/textlayout.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { OPT_TOP = 256 };

/* A report bigger than this is not one nodeaudit wrote. */
#define REPORT_MAX_BYTES (64u << 20)
/* Directories nested deeper than this are not followed (loops, mistakes). */
#define REPORT_MAX_DEPTH 32

struct report_state {
	struct fleet fleet;
	size_t top;
	char *buf;      /* one file at a time, reused */
	size_t abuf;
};

static void report_init(void *args)
{
	struct report_state *st = args;
	st->top = 10;
}

static int report_option(void *args, int val, const char *arg)
{
	struct report_state *st = args;
	uint64_t n;
	if (val != OPT_TOP)
		return -1;
	if (parse_u64(arg, &n) < 0 || n > 1000000) {
		usage_error("report", "--top takes a number from 0 to 1000000, not '%s'", arg);
		return -1;
	}
	st->top = (size_t)n;
	return 0;
}

static void skip_file(struct report_state *st, const char *path, const char *why)
{
	char *shown = str_clean(path, CLEAN_LINE);   /* printed in every view */
	fleet_skip(&st->fleet, shown ? shown : path, why);
	free(shown);
	if (verbosity >= 0)   /* -q: the skipped files are still named in the JSON */
		error("skipping '%s': %s", path, why);
}

/*
 * What the text, CSV and HTML views print comes from other machines: every
 * string of a report through the one cleaner, on one line (C0, C1, DEL
 * replaced), before the fleet reads it -- but the names fleet_add() refuses
 * when they hold a control (host.hostname, findings[].id and .key), so
 * that such a report is still named and skipped rather than shown altered.
 */
static void clean_report(cJSON *root)
{
	cJSON *it, *f, *m;
	for (it = root ? root->child : NULL; it; it = it->next) {
		if (it->string && !strcmp(it->string, "host")) {
			for (m = it->child; m; m = m->next)
				if (!m->string || strcmp(m->string, "hostname"))
					json_clean(m, CLEAN_LINE);
		} else if (it->string && !strcmp(it->string, "findings")) {
			for (f = it->child; f; f = f->next)
				for (m = f->child; m; m = m->next)
					if (!m->string || (strcmp(m->string, "id") && strcmp(m->string, "key")))
						json_clean(m, CLEAN_LINE);
		} else
			json_clean(it, CLEAN_LINE);
	}
}

/* Line and column (1-based) of offset off in buf. */
static void line_col(const char *buf, size_t off, size_t *line, size_t *col)
{
	size_t i;
	*line = 1;
	*col = 1;
	for (i = 0; i < off; i++) {
		if (buf[i] == '\n') {
			(*line)++;
			*col = 1;
		} else
			(*col)++;
	}
}

static void read_report(struct report_state *st, const char *path)
{
	struct stat sb;
	size_t len = 0, line, col;
	cJSON *root;
	char *why;
	const char *what;
	long bad;
	int fd;

	st->fleet.files++;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		skip_file(st, path, strerror(errno));
		return;
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		skip_file(st, path, "not a regular file");
		close(fd);
		return;
	}
	if ((uint64_t)sb.st_size > REPORT_MAX_BYTES) {
		skip_file(st, path, "too large for a report (over 64 MiB)");
		close(fd);
		return;
	}
	for (;;) {
		ssize_t r;
		if (len + 1 >= st->abuf) {
			st->abuf = st->abuf ? 2 * st->abuf : (size_t)sb.st_size + 4096;
			if (st->abuf > REPORT_MAX_BYTES + 2)
				st->abuf = REPORT_MAX_BYTES + 2;
			st->buf = xrealloc(st->buf, st->abuf);
		}
		if (len + 1 >= st->abuf) {
			skip_file(st, path, "too large for a report (over 64 MiB)");
			close(fd);
			return;
		}
		r = read(fd, st->buf + len, st->abuf - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			skip_file(st, path, strerror(errno));
			close(fd);
			return;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	st->buf[len] = '\0';
	if (!len) {
		skip_file(st, path, "empty file");
		return;
	}
	if ((bad = json_bad_offset(st->buf, len, &what)) >= 0) {
		line_col(st->buf, (size_t)bad, &line, &col);
		why = !strncmp(what, "invalid UTF-8", 13) ?
			xasprintf("not UTF-8 (invalid byte at line %zu, column %zu)", line, col) :
			xasprintf("%s at line %zu, column %zu", what, line, col);
		skip_file(st, path, why);
		free(why);
		return;
	}
	root = cJSON_ParseWithLength(st->buf, len);
	if (!root) {
		const char *e = cJSON_GetErrorPtr();
		size_t off = e && e >= st->buf && e <= st->buf + len ? (size_t)(e - st->buf) : len;
		line_col(st->buf, off, &line, &col);
		why = xasprintf("not JSON (syntax error at line %zu, column %zu)", line, col);
		skip_file(st, path, why);
		free(why);
		return;
	}
	clean_report(root);
	{
		/* The file name is printed in every view: one line, no controls. */
		char *shown = str_clean(path, CLEAN_LINE);
		if (fleet_add(&st->fleet, shown ? shown : path, root, &why) < 0) {
			skip_file(st, path, why);
			free(why);
		}
		free(shown);
	}
	cJSON_Delete(root);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.json under dir (not dot-files: temporary files of -o live there),
 * in byte order so that the output does not depend on the file system. */
static void read_dir(struct report_state *st, const char *dir, int depth)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, a = 0, i;

	if (depth > REPORT_MAX_DEPTH) {
		error("not descending into '%s': nested more than %d deep", dir, REPORT_MAX_DEPTH);
		return;
	}
	d = opendir(dir);
	if (!d) {
		error("cannot read directory '%s': %s", dir, strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == a) {
			a = a ? 2 * a : 64;
			names = xrealloc(names, a * sizeof(*names));
		}
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		char *p = xasprintf("%s%s%s", dir, str_endswith(dir, "/") ? "" : "/", names[i]);
		struct stat sb;
		/* lstat: a symbolic link to a directory is not followed (loops). */
		if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
			read_dir(st, p, depth + 1);
		else if (str_endswith(names[i], ".json"))
			read_report(st, p);
		free(p);
		free(names[i]);
	}
	free(names);
}

static int cmp_row_host(const void *a, const void *b)
{
	const struct node_row *x = *(struct node_row *const *)a, *y = *(struct node_row *const *)b;
	int r = strcmp(x->hostname, y->hostname);
	return r ? r : (x > y) - (x < y);
}

/* A host with two reports (a rerun saved elsewhere) is counted twice: say so. */
static void warn_duplicates(const struct fleet *f)
{
	const struct node_row **v = xcalloc(f->nrows + 1, sizeof(*v));
	size_t i, j;
	for (i = 0; i < f->nrows; i++)
		v[i] = &f->rows[i];
	qsort(v, f->nrows, sizeof(*v), cmp_row_host);
	for (i = 0; i < f->nrows; i = j) {
		for (j = i + 1; j < f->nrows && !strcmp(v[i]->hostname, v[j]->hostname); j++)
			;
		if (j - i > 1)
			warning("host '%s' has %zu reports ('%s', '%s'%s); each is counted",
				v[i]->hostname, j - i, v[i]->file, v[i + 1]->file, j - i > 2 ? ", ..." : "");
	}
	free(v);
}

static void release_state(void *data)
{
	struct report_state *st = data;
	fleet_release(&st->fleet);
}

static void render_text(FILE *fp, const struct doc *d)
{
	const struct report_state *st = d->data;
	struct tl_buf b;
	fleet_text(tl_begin(&b), &st->fleet, st->top);
	tl_end(fp, &b, TL_AUTO);
}

static void render_csv(FILE *fp, const struct doc *d)
{
	const struct report_state *st = d->data;
	fleet_csv(fp, &st->fleet);
}

static void render_html(FILE *fp, const struct doc *d)
{
	const struct report_state *st = d->data;
	fleet_html(fp, &st->fleet, st->top);
}

static int report_cmd(struct invocation *inv)
{
	struct report_state *st = inv->args;
	int i;

	fleet_init(&st->fleet);
	for (i = 0; i < inv->noperands; i++) {
		struct stat sb;
		if (stat(inv->operands[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			read_dir(st, inv->operands[i], 0);
		else
			read_report(st, inv->operands[i]);
	}
	free(st->buf);
	st->buf = NULL;
	if (!st->fleet.nrows) {
		error("no usable report among %zu file%s", st->fleet.files,
		      st->fleet.files == 1 ? "" : "s");
		fleet_release(&st->fleet);
		return -1;
	}
	fleet_finish(&st->fleet);
	warn_duplicates(&st->fleet);
	if (st->fleet.nprofiles > 1)
		warning("the reports were checked against %zu different profiles ('%s', '%s'%s); "
			"their findings do not compare", st->fleet.nprofiles, st->fleet.profiles[0].name,
			st->fleet.profiles[1].name, st->fleet.nprofiles > 2 ? ", ..." : "");
	/* The JSON document only when it is the format asked for (it is big). */
	if (!strcmp(inv->format->name, "json"))
		inv->doc.json = fleet_json(&st->fleet, st->top);
	inv->doc.data = st;
	inv->doc.free_data = release_state;
	return fleet_exit(&st->fleet);
}

static const struct cmd_option report_options[] = {
	{ "top", OPT_TOP, "N", "list at most N worst nodes (default 10)" },
	{ NULL, 0, NULL, NULL },
};

static const struct cmd_format report_formats[] = {
	{ "text", render_text },
	{ "json", render_json },
	{ "csv", render_csv },
	{ "html", render_html },
	{ NULL, NULL },
};

const struct command cmd_report = {
	.name = "report",
	.summary = "fleet summary of many 'check --format json' reports",
	.synopsis = "[--top N] FILE|DIR...",
	.description =
		"Read the reports that 'nodeaudit check --format json' wrote on many nodes\n"
		"(directories are searched for *.json) and print the fleet view: per check\n"
		"the count of pass/warn/fail/unknown/skip and the failing nodes, the worst\n"
		"nodes, the spread of key figures (memory channels and bandwidth, core\n"
		"counts, accelerator link widths) and the outliers: the nodes that differ\n"
		"from the fleet in a fact that should be uniform.  A file that is not\n"
		"such a report is named on standard error and skipped.\n",
	.options = report_options,
	.formats = report_formats,
	.format_help = "json: schema nodeaudit.fleet/1; csv: one row per node;\nhtml: one self-contained page",
	.epilog = "Exit status: the worst node's (0, 1 or 2; a node that exited 3 counts as 2),\n"
		  "3 when no file is a usable report.\n",
	.min_operands = 1, .max_operands = -1,
	.operands_help = "report files or directories",
	.args_size = sizeof(struct report_state),
	.init = report_init,
	.option = report_option,
	.run = report_cmd,
};
