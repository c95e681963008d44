/* cmd/usage.c - what the commands share below the table: usage_error() and the help text */
#include "config.h"
#include "cmd/cli.h"
#include "cmd/options.h"
#include "lib/textlayout.h"
#include "lib/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* `nodeaudit` alone runs `check` with the default profile (nodeaudit(1) DESCRIPTION). */
const char cli_default_command[] = "check";

static const char *current_command;

const char *cli_command_name(void)
{
	return current_command;
}

void cli_set_command_name(const char *name)
{
	current_command = name;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	char *msg, *clean;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	clean = str_clean(msg, CLEAN_LINE);   /* one line, as every message */
	fprintf(stderr, "%s: %s", progname, clean ? clean : msg);
	free(clean);
	free(msg);
	if (!cmd)
		cmd = current_command;
	if (cmd)
		fprintf(stderr, "; try 'nodeaudit %s --help'\n", cmd);
	else
		fprintf(stderr, "; try 'nodeaudit --help'\n");
	return -1;
}

/*** Help, generated from the descriptors ***/

/* An option's help from column 22, one paragraph wrapped under itself: the
 * line breaks of its string are spaces (a sentence is never cut by one). */
static void help_para(FILE *fp, const char *s)
{
	char *line = tl_glue_quotes(s), *p;
	for (p = line; *p; p++)
		if (*p == '\n')
			*p = ' ';
	tl_wrap(fp, 22, 22, line);
	free(line);
}

/* A paragraph of help text at the margin, its quoted commands whole. */
static void help_block(FILE *fp, const char *s)
{
	char *g = tl_glue_quotes(s);
	tl_wrap(fp, 0, 0, g);
	free(g);
}

/*
 * Text broken by hand (a description, an epilog): the lines that start at
 * the margin are joined into paragraphs and wrapped to the width (a line
 * break meant for 80 columns never leaves "and" alone on a line); an
 * indented line (a formula, an example) keeps its own line, wrapped under
 * its indent plus two.
 */
static void help_text(FILE *fp, const char *s)
{
	struct strbuf para = STRBUF_INIT;
	while (*s) {
		size_t n = strcspn(s, "\n");
		char *line = xstrndup(s, n);
		if (line[0] && line[0] != ' ') {
			strbuf_addf(&para, "%s%s", para.len ? " " : "", line);
		} else {
			if (para.len) {
				help_block(fp, para.buf);
				strbuf_release(&para);
			}
			if (line[0])
				tl_wrap(fp, 0, strspn(line, " ") + 2, line);
			else
				fputc('\n', fp);
		}
		free(line);
		s += n;
		if (*s == '\n')
			s++;
	}
	if (para.len)
		help_block(fp, para.buf);
	strbuf_release(&para);
}

/* "  --name ARG      help" with continuation lines indented to the text. */
static void print_option(FILE *fp, const struct cmd_option *o)
{
	char head[64];
	const char *h = o->help;
	if (!h)
		return;
	if (o->key > 0 && o->key < 128 && o->key != OPT_HELP && o->key != OPT_VERSION && o->arg)
		snprintf(head, sizeof(head), "-%c, --%s %s", o->key, o->name, o->arg);
	else if (o->key > 0 && o->key < 128)
		snprintf(head, sizeof(head), "-%c, --%s", o->key, o->name);
	else if (o->arg)
		snprintf(head, sizeof(head), "--%s %s", o->name, o->arg);
	else
		snprintf(head, sizeof(head), "--%s", o->name);
	fprintf(fp, "  %-20s", head);
	if (strlen(head) > 19)
		fprintf(fp, "\n  %-20s", "");
	help_para(fp, h);
}

static void print_globals(FILE *fp, int probes)
{
	size_t i;
	fprintf(fp, "Global options:\n");
	for (i = 0; i < nglobal_options; i++) {
		if (global_options[i].probe && !probes)
			continue;
		if (global_options[i].o.key == OPT_FORMAT)
			continue;   /* each command lists its own formats */
		print_option(fp, &global_options[i].o);
	}
}

/* "text (default), json or csv" */
static void print_formats(FILE *fp, const struct command *c)
{
	size_t i, n = 0;
	while (c->formats[n].name)
		n++;
	struct strbuf sb = STRBUF_INIT;
	while (c->formats[n].name)
		n++;
	fprintf(fp, "  %-20s", "--format FMT");
	for (i = 0; i < n; i++)
		strbuf_addf(&sb, "%s%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", c->formats[i].name,
			    i == 0 ? " (default)" : "");
	help_para(fp, sb.buf);
	strbuf_release(&sb);
	if (c->format_help) {
		fprintf(fp, "  %-20s", "");
		help_para(fp, c->format_help);
	}
}

void cli_print_usage(FILE *fp, const struct command *c)
{
	const char *s = c->synopsis, *nl;
	const struct cmd_option *o;
	/* Each synopsis line wrapped under its first option (GNU's usage). */
	size_t ind = strlen("Usage: nodeaudit ") + strlen(c->name) + 1;
	const char *lead = "Usage:";
	do {
		char *line, *p;
		int depth = 0;
		nl = strchr(s, '\n');
		line = xasprintf("%-6s nodeaudit %s%s%.*s", lead, c->name, *s && s != nl ? " " : "",
				 nl ? (int)(nl - s) : (int)strlen(s), s);
		/* "[--report FILE]" stays on one line. */
		for (p = line; *p; p++) {
			depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
			if (*p == ' ' && depth > 0)
				*p = TL_GLUE[0];
		}
		tl_wrap(fp, 0, ind, line);
		free(line);
		lead = "";
		s = nl ? nl + 1 : s + strlen(s);
	} while (nl);
	fputc('\n', fp);
	help_text(fp, c->description);
	if ((c->options && c->options->name) || c->formats) {
		fprintf(fp, "\nOptions:\n");
		for (o = c->options; o && o->name; o++)
			print_option(fp, o);
		if (c->formats)
			print_formats(fp, c);
	}
	if (c->epilog) {
		fputc('\n', fp);
		help_text(fp, c->epilog);
	}
	fputc('\n', fp);
	print_globals(fp, (c->flags & CMD_PROBES) != 0);
}

void cli_print_help(FILE *fp, const struct command *const *cmds, size_t n)
{
	size_t i;
	fprintf(fp, "Usage: nodeaudit [OPTIONS] [COMMAND [ARGS]]\n\n"
		    "Audit a Linux server before it takes AI-agent traffic.\n\n"
		    "Commands:\n");
	for (i = 0; i < n; i++)
		tl_line(fp, 13, "  %-10s %s", cmds[i]->name, cmds[i]->summary);
	fputc('\n', fp);
	tl_wrapf(fp, 0, 0, "With no command, nodeaudit runs '%s' on this machine.  Options may stand "
		 "before or after the command.", cli_default_command);
	fputc('\n', fp);
	print_globals(fp, 1);
	fputc('\n', fp);
	help_text(fp, "Exit status: 0 OK, 1 warning, 2 critical, 3 unknown (could not run).\n"
		  "See nodeaudit(1); the checks and the field figures behind them: nodeaudit-checks(7).\n");
}
