/* lib/quote.h - strings from outside into generated sh, sysctl.d and systemd text */
#ifndef NODEAUDIT_QUOTE_H
#define NODEAUDIT_QUOTE_H

#include <stdio.h>

/*
 * The one rule of every generated file (plan --format sh|sysctl|systemd,
 * and any renderer that writes text a machine will run or parse): a string
 * that came from outside -- a report, a facts document, a profile, a
 * sysroot file, GGUF metadata, a file name -- is a value, never syntax.
 *   - On a comment line it goes through gen_comment(): one line, every
 *     control character (C0, DEL, C1) and invalid UTF-8 replaced.
 *   - As a shell word it goes through sh_quote(), and only when it is one
 *     line (gen_value_why() says so): single quotes, ' as '\''.
 *   - As a sysctl it must pass sysctl_key_why() and gen_value_why().
 * What fails is refused with the reason these functions give; the plan
 * lists it under "refused" instead of writing it.
 */

/* "PREFIX TEXT\n" with TEXT on one line; TEXT may be NULL. */
void gen_comment(FILE *fp, const char *prefix, const char *text);

/* A one-line value as one shell word: 'it'\''s'.  malloc'd; NULL when s is
 * not one line (a newline inside quotes would still add a line). */
char *sh_quote(const char *s);

/* NULL when v can be written as one value of one line (valid UTF-8, no
 * control character, at most 4096 bytes); else why not. */
const char *gen_value_why(const char *v);

/* NULL when k has the kernel's sysctl key grammar: components of letters,
 * digits and _ - : @ +, separated by '.' or '/', at most 255 bytes, not
 * starting with '-' (sysctl.d's "ignore errors" mark); else why not. */
const char *sysctl_key_why(const char *k);

/* A sysfs path (or glob) a script may name unquoted: /sys/, then letters,
 * digits and _ . / * - only, no "..". */
int sh_sysfs_path_ok(const char *p);

/* A systemd unit name (template prefix) that a file name and a unit file
 * may carry as is: letters, digits and : _ . - only, at most 200 bytes. */
int systemd_unit_ok(const char *u);

/* A CPU list as the plan writes it ("0-3,8"): digits, ',' and '-' only. */
int cpulist_word_ok(const char *s);

/* NULL when a settings step of this kind with this key and value can be
 * written into the generated files; else the reason it is refused. */
const char *plan_step_why(const char *kind, const char *key, const char *value);

#endif
