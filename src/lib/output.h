/* lib/output.h - where a command's output goes: stdout or -o FILE written atomically */
#ifndef NODEAUDIT_OUTPUT_H
#define NODEAUDIT_OUTPUT_H

#include <stdio.h>
#include <cjson/cJSON.h>

struct output {
	FILE *fp;
	char *path;   /* NULL for stdout */
	char *tmp;    /* temporary file beside path, renamed over it on success */
	int in_place; /* 1: a character device or FIFO, written directly */
};

/* path NULL or "-": stdout.  Else a temporary file in path's directory.
 * Refuses to write inside the sysroot being read (refuse_under, may be NULL).
 * Returns 0 or -1 after printing one line. */
int output_open(struct output *o, const char *path, const char *refuse_under);
/* -1 after one line when path (a file or a directory, made or still to be
 * made) is inside refuse_under, the sysroot being read; else 0. */
int output_refused(const char *path, const char *refuse_under);
/* ok: flush, fsync and rename into place; !ok: remove the temporary file.
 * Returns 0 or -1 after printing one line (a write error, a full disk). */
int output_close(struct output *o, int ok);

/* Strings from other machines (hostnames, SMBIOS and cpuinfo strings): a
 * copy with invalid UTF-8 replaced by U+FFFD and, for_text, C0/C1 control
 * characters (but newline and tab) by '?'; NULL when nothing had to change.
 * for_text CLEAN_LINE (lib/util.h): newline and tab too.  str_clean() does it. */
char *text_clean(const char *s, int for_text);
/* The same for every key and string of a tree, in place. */
void json_clean(cJSON *j, int for_text);

/* Print a JSON tree, indented, with a final newline. */
void output_json(FILE *fp, const cJSON *j);

/* Colour: set once by main from --color and NO_COLOR. */
extern int color_on;
const char *c_bold(void);
const char *c_red(void);
const char *c_yellow(void);
const char *c_green(void);
const char *c_dim(void);
const char *c_reset(void);

/* Text layout helpers shared by the text renderers. */
/* s with the five markup characters as entities (' as apos, "&#39;" in
 * HTML, "&apos;" in XML) and every C0 control but newline and tab, and DEL
 * when del_too, replaced by bad: the one escaper of the HTML and JUnit
 * renderers. */
void markup_escape(FILE *fp, const char *s, const char *apos, const char *bad, int del_too);
void tx_section(FILE *fp, const char *title);
void tx_kv(FILE *fp, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
