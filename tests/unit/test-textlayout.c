/* test-textlayout.c - display width: a terminal's columns, not code points
 * (wide CJK characters take two, combining marks none, colour escapes
 * none), and the tables and paragraphs laid out by it */
#include "config.h"
#include "lib/textlayout.h"
#include "lib/util.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A two-column table of two rows, as printed; malloc'd. */
static char *table_text(const char *a1, const char *b1, const char *a2, const char *b2)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	struct tl_table *t = tl_table_new(0);
	tl_table_column(t, "NAME", 0, 0);
	tl_table_column(t, "NODE", 0, 0);
	tl_table_row(t, a1, b1);
	tl_table_row(t, a2, b2);
	tl_table_print(fp, t);
	fclose(fp);
	return buf;
}

/* The four-column table below, printed at width cols; malloc'd. */
static char *layout(int cols, size_t nrows)
{
	char *buf = NULL, w[16];
	size_t len = 0, i;
	FILE *fp = open_memstream(&buf, &len);
	struct tl_table *t = tl_table_new(2);
	snprintf(w, sizeof(w), "%d", cols);
	setenv("COLUMNS", w, 1);
	tl_set_width(NULL, 1);
	tl_table_column(t, "BDF", 4, 0);
	tl_table_column(t, "Device", 6, TL_WRAP);
	tl_table_column(t, "N", 2, TL_RIGHT);
	tl_table_column(t, "Verdict", 0, 0);
	for (i = 0; i < nrows; i++)
		tl_table_row(t, i ? "b" : "a", i ? "x" : "one two three", i ? "12" : "1", "ok");
	tl_table_print(fp, t);
	fclose(fp);
	setenv("COLUMNS", "80", 1);
	tl_set_width(NULL, 1);
	return buf;
}

int main(void)
{
	char *s;
	setenv("COLUMNS", "80", 1);
	tl_set_width(NULL, 1);
	is_int(tl_strwidth("eth0"), 4, "ASCII: a column a byte");
	/* U+65E5 U+672C (two wide ideographs, UAX #11 class W): 6 bytes, 4 columns. */
	is_int(tl_strwidth("\xe6\x97\xa5\xe6\x9c\xac"), 4, "two CJK ideographs take four columns");
	/* e + U+0301 COMBINING ACUTE ACCENT: 3 bytes, 1 column. */
	is_int(tl_strwidth("e\xcc\x81"), 1, "a combining mark takes none");
	/* U+00E9 (precomposed): 2 bytes, 1 column. */
	is_int(tl_strwidth("\xc3\xa9t\xc3\xa9"), 3, "Latin-1 letters: one column each");
	is_int(tl_strwidth("\033[1mbold\033[0m"), 4, "colour escapes take none");
	/* A truncated sequence counts as one column, never a wild number. */
	is_int(tl_strwidth("\xe6\x97"), 1, "a truncated UTF-8 sequence: one column");
	/* A table aligns by columns: after a name of two ideographs (4
	 * columns) the next column starts where it does after "abcd". */
	s = table_text("\xe6\x97\xa5\xe6\x9c\xac", "1", "abcd", "2");
	ok(s && strstr(s, "\xe6\x97\xa5\xe6\x9c\xac 1\n") && strstr(s, "abcd 1") == NULL && strstr(s, "abcd 2\n"),
	   "a table aligns CJK cells by display width");
	free(s);
	/* e + U+0301 is one column: "e\xcc\x81x" (2 columns) is padded to
	 * the header's 4 as "ab" is. */
	s = table_text("e\xcc\x81x", "1", "ab", "2");
	is_str(s, "NAME NODE\ne\xcc\x81x   1\nab   2\n", "a combining mark adds no column in a table");
	free(s);
	/* Written out by hand: the indent, a column padded to its width, a
	 * wrapping cell on three lines (no padding after its last word), a
	 * right-aligned column, and the last column never padded. */
	s = layout(80, 2);
	is_str(s, "  BDF  Device  N Verdict\n"
		  "  a    one     1 ok\n"
		  "       two\n"
		  "       three\n"
		  "  b    x      12 ok\n",
	       "a table: indent, padding, a wrapped cell, right alignment");
	free(s);
	/* 20 columns: the table (2 + 4 + 6 + 2 + 7 and 3 separators = 24)
	 * gives up its padding first (BDF to 3, Device to 5, N stays 2:
	 * 2 + 3 + 5 + 2 + 7 + 3 = 22), then shrinks Device to its longest
	 * word, "three" (5), and the last column down to its header: a header
	 * is printed whole, never cut. */
	s = layout(20, 1);
	is_str(s, "  BDF Device N Verdict\n"
		  "  a   one    1 ok\n"
		  "      two\n"
		  "      three\n",
	       "too narrow: padding, then wrapping, and the headers stay whole");
	free(s);
	s = layout(80, 0);
	is_str(s, "", "a table of no rows prints nothing");
	free(s);
	return done_testing();
}
