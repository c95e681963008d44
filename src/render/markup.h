/* render/markup.h - the one writer of HTML and SVG markup: every string that
 * becomes part of a page or a drawing passes through here */
#ifndef NODEAUDIT_MARKUP_H
#define NODEAUDIT_MARKUP_H

#include <stdio.h>

/*
 * The renderers of markup (render/html*.c, render/svg*.c) print nothing
 * themselves: tests/markup.sh fails on any fprintf, fputs, fputc, putc or
 * fwrite there.  They write
 *   MK(fp, "<tag>")        markup the program holds: a string literal only
 *                          (anything else does not compile);
 *   mk_rawf(fp, fmt, ...)  markup with numbers in it ("<rect x=\"%d\""):
 *                          a format with a string or character conversion
 *                          is refused when it runs (an internal error);
 *   mk_text(fp, s)         a text node or the inside of an attribute value,
 *                          escaped: & < > " ' as entities, control
 *                          characters and DEL as U+FFFD;
 *   mk_attr(fp, name, s)   ` name="s"`, escaped;
 *   mk_id(fp, prefix, s)   an id or fragment: [A-Za-z0-9.-] kept, any other
 *                          byte as _XX.
 */
#define MK(fp, lit) mk_raw((fp), "" lit)

void mk_raw(FILE *fp, const char *lit);
void mk_rawf(FILE *fp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mk_text(FILE *fp, const char *s);
void mk_textf(FILE *fp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mk_attr(FILE *fp, const char *name, const char *value);
void mk_attrf(FILE *fp, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void mk_id(FILE *fp, const char *prefix, const char *s);

/* Whether a printf format converts only numbers (and %%): 1, else 0. */
int mk_format_numeric(const char *fmt);

#endif
