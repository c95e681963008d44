/* lib/textlayout.h - the one text layout engine: paragraphs with a hanging
 * indent and tables that fit by wrapping cells, at the output's width */
#ifndef NODEAUDIT_TEXTLAYOUT_H
#define NODEAUDIT_TEXTLAYOUT_H

#include <stddef.h>
#include <stdio.h>

/*
 * The width every text renderer lays out to: the terminal's (TIOCGWINSZ on
 * the output, when it is a terminal), else $COLUMNS, else 80.  cmd/cli.c sets
 * it once for the stream the output goes to (an -o FILE is not a terminal);
 * tl_width() before that asks about standard output (--help).
 */
void tl_set_width(FILE *fp, int to_file);
int tl_width(void);

/* Display columns of s: as a terminal shows it (wcwidth() under C.UTF-8:
 * wide CJK characters two, combining marks none), terminal escape
 * sequences (colour) none.  tl_strnwidth: the first n bytes. */
size_t tl_strwidth(const char *s);
size_t tl_strnwidth(const char *s, size_t n);

/*
 * A paragraph: text printed from column col (what the line already holds),
 * broken at spaces before the width, continuation lines indented by indent
 * (a hanging indent); a word wider than the room is cut at it.  A newline
 * in text starts a new line at indent.  Ends the line.
 */
/* A space that does not break a line ("[--report" TL_GLUE "FILE]"); text
 * from other machines cannot hold it (text_clean() replaces controls). */
#define TL_GLUE "\x1f"
void tl_wrap(FILE *fp, size_t col, size_t indent, const char *text);
/*
 * Prose that quotes a command ('nodeaudit probe', --command "llama-server
 * -m MODEL.gguf"): a copy with the spaces inside each quote glued, so that
 * no line break falls inside it.  A quote opens after a space, a colon or
 * "(" and closes before a space, a punctuation mark or the end (an
 * apostrophe inside a word, "node's", opens nothing).  Free it.
 */
char *tl_glue_quotes(const char *s);
/* The same at most width columns wide (prose kept to a readable measure). */
void tl_wrap_width(FILE *fp, size_t col, size_t indent, size_t width, const char *text);
void tl_wrapf(FILE *fp, size_t col, size_t indent, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* One whole line (its leading spaces kept), wrapped with a hanging indent. */
#define tl_line(fp, indent, ...) tl_wrapf((fp), 0, (indent), __VA_ARGS__)

/*
 * Output written with stdio, laid out afterwards: tl_begin() gives a stream
 * to print to as before, tl_end() wraps each line it holds onto fp, with
 * continuation lines at indent, or (TL_AUTO) at the line's own leading
 * spaces plus four.  The way to adopt the engine for a renderer that
 * prints piece by piece.
 */
#define TL_AUTO ((size_t)-1)
struct tl_buf {
	FILE *fp;
	char *buf;
	size_t len;
};
FILE *tl_begin(struct tl_buf *b);
void tl_end(FILE *fp, struct tl_buf *b, size_t indent);

/*
 * A table: columns with a header (NULL: the table has no header row), a
 * width the cells are padded to, and flags.  A column grows to its widest
 * cell, but a TL_WRAP column's cells wrap at its width instead; when the
 * table is wider than the output, the TL_WRAP columns and the last one
 * shrink (the widest first) and their cells wrap, down to their longest
 * word, then further, cutting words (never a header: it is printed whole).
 * The last column is never padded; a table of no rows prints nothing.
 * The widths and the word wrapping are decided here, and libsmartcols
 * lays the table out (padding, alignment, the lines of a wrapped cell).
 *
 *   struct tl_table *t = tl_table_new(2);
 *   tl_table_column(t, "BDF", 13, 0);
 *   tl_table_column(t, "Device", 34, TL_WRAP);
 *   tl_table_row(t, bdf, name);
 *   tl_table_print(fp, t);          (prints and frees)
 */
enum { TL_RIGHT = 1, TL_WRAP = 2 };
struct tl_table;
struct tl_table *tl_table_new(size_t indent);
void tl_table_column(struct tl_table *t, const char *header, size_t width, int flags);
/* One row: as many strings as columns (NULL: empty). */
void tl_table_row(struct tl_table *t, ...);
void tl_table_rowv(struct tl_table *t, const char *const *cells);
void tl_table_print(FILE *fp, struct tl_table *t);

#endif
