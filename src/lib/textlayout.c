/* lib/textlayout.c - the one text layout engine: the width, wrapped paragraphs, tables */
#include "config.h"
#include "lib/textlayout.h"
#include "lib/util.h"

#include <libsmartcols.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

/* Narrower than this, nothing can be laid out; wider, lines stop being read. */
#define WIDTH_MIN 20
#define WIDTH_MAX 1000
#define WIDTH_DEFAULT 80

static int columns;

static int clamp_width(long n)
{
	return n < WIDTH_MIN ? WIDTH_MIN : n > WIDTH_MAX ? WIDTH_MAX : (int)n;
}

/* $COLUMNS when it is a number, else 0. */
static int env_columns(void)
{
	const char *c = getenv("COLUMNS");
	char *end;
	long n;
	if (!c || !*c)
		return 0;
	n = strtol(c, &end, 10);
	return *end || n <= 0 ? 0 : clamp_width(n);
}

void tl_set_width(FILE *fp, int to_file)
{
	struct winsize ws;
	int n;
	if (!to_file && fp && isatty(fileno(fp)) && ioctl(fileno(fp), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
		columns = clamp_width(ws.ws_col);
		return;
	}
	n = env_columns();
	columns = n ? n : WIDTH_DEFAULT;
}

int tl_width(void)
{
	if (!columns)
		tl_set_width(stdout, 0);
	return columns;
}

/*** Display width ***/

/* Bytes of the terminal escape at s (ESC [ ... final), or 0. */
static size_t escape_len(const char *s)
{
	size_t i = 2;
	if (s[0] != '\033' || s[1] != '[')
		return 0;
	while (s[i] && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e))
		i++;
	return s[i] ? i + 1 : i;
}

/* C.UTF-8, which the widths of text are measured by whatever the
 * process's locale; (locale_t)0 where the C library lacks it. */
static locale_t utf8_locale(void)
{
	static locale_t utf8;
	static int tried;
	if (!tried++)
		utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	return utf8;
}

/* The columns a terminal gives code point c: libc's wcwidth() under
 * C.UTF-8's tables whatever the locale (2 for CJK, 0 for a combining
 * mark); 1 where the locale is missing or c is not printable. */
static size_t cp_width(wchar_t c)
{
	locale_t utf8 = utf8_locale(), old;
	int w;
	if (!utf8)
		return 1;
	old = uselocale(utf8);
	w = wcwidth(c);
	uselocale(old);
	return w < 0 ? 1 : (size_t)w;
}

/* Bytes of the character (or escape) at s, and its columns in *cols. */
static size_t char_len(const char *s, size_t *cols)
{
	unsigned char b = (unsigned char)s[0];
	size_t n = escape_len(s), k;
	wchar_t c;
	if (n) {
		*cols = 0;
		return n;
	}
	n = 1;
	while (s[n] && ((unsigned char)s[n] & 0xc0) == 0x80)
		n++;
	*cols = 1;
	if (b < 0x80 || n < 2 || n > 4)
		return n;
	/* The code point of a well-formed sequence (2 to 4 bytes). */
	c = b & (0x7f >> n);
	for (k = 1; k < n; k++)
		c = (wchar_t)((c << 6) | ((unsigned char)s[k] & 0x3f));
	if (n == (c < 0x800 ? 2u : c < 0x10000 ? 3u : 4u))
		*cols = cp_width(c);
	return n;
}

size_t tl_strnwidth(const char *s, size_t n)
{
	size_t w = 0, i = 0, c;
	while (i < n && s[i]) {
		i += char_len(s + i, &c);
		w += c;
	}
	return w;
}

size_t tl_strwidth(const char *s)
{
	return s ? tl_strnwidth(s, strlen(s)) : 0;
}

/*** Paragraphs ***/

/* sb onto fp, the glue as the spaces it stands for. */
static void emit(FILE *fp, struct strbuf *sb)
{
	size_t i;
	for (i = 0; i < sb->len; i++)
		if (sb->buf[i] == TL_GLUE[0])
			sb->buf[i] = ' ';
	if (sb->len)
		fputs(sb->buf, fp);
}

static void newline(struct strbuf *sb, size_t indent, size_t *col)
{
	size_t i;
	strbuf_addstr(sb, "\n");
	for (i = 0; i < indent; i++)
		strbuf_addstr(sb, " ");
	*col = indent;
}

/*
 * text into sb from column col, lines of at most width columns,
 * continuation lines at indent; no final newline.  Runs of spaces inside a
 * line are kept (padding), dropped at a break.
 */
static void wrap_into(struct strbuf *sb, size_t col, size_t indent, size_t width, const char *s)
{
	if (indent + 8 > width)
		indent = width > 16 ? width / 2 : 0;
	while (*s) {
		size_t n, w, run;
		if (*s == '\n') {
			newline(sb, indent, &col);
			s++;
			continue;
		}
		n = strcspn(s, " \n");
		w = tl_strnwidth(s, n);
		if (col > indent && col + w > width)
			newline(sb, indent, &col);
		/* A word wider than the room: cut at the width, after its last
		 * comma that fits when it has one (a CPU list "0,2,4,...": each
		 * number whole, the line still one list). */
		while (col + w > width) {
			size_t i = 0, c, cw = 0, ci = 0, ccw = 0;
			while (i < n) {
				size_t l = char_len(s + i, &c);
				if (col + cw + c > width && (cw || col > indent))
					break;
				i += l;
				cw += c;
				if (s[i - 1] == ',' && i < n) {
					ci = i;
					ccw = cw;
				}
			}
			if (ci && i < n) {
				i = ci;
				cw = ccw;
			}
			strbuf_add(sb, s, i);
			s += i;
			n -= i;
			w -= cw;
			newline(sb, indent, &col);
		}
		strbuf_add(sb, s, n);
		col += w;
		s += n;
		run = strspn(s, " ");
		if (!run)
			continue;
		if (!s[run] || s[run] == '\n') {
			s += run;
			continue;
		}
		n = strcspn(s + run, " \n");
		if (col + run + tl_strnwidth(s + run, n) <= width) {
			strbuf_add(sb, s, run);
			col += run;
		} else
			newline(sb, indent, &col);
		s += run;
	}
}

char *tl_glue_quotes(const char *s)
{
	char *d = xstrdup(s), *p, *q;
	for (p = d; *p; p++) {
		if ((*p != '\'' && *p != '"') || (p > d && p[-1] != ' ' && p[-1] != ':' && p[-1] != '('))
			continue;
		for (q = p + 1; *q && *q != *p && *q != '\n'; q++)
			;
		if (*q != *p || (q[1] && !strchr(" .,;:)\n", q[1])))
			continue;
		for (; p < q; p++)
			if (*p == ' ')
				*p = TL_GLUE[0];
	}
	return d;
}

void tl_wrap(FILE *fp, size_t col, size_t indent, const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	wrap_into(&sb, col, indent, (size_t)tl_width(), text ? text : "");
	emit(fp, &sb);
	fputc('\n', fp);
	strbuf_release(&sb);
}

void tl_wrap_width(FILE *fp, size_t col, size_t indent, size_t width, const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	if (width > (size_t)tl_width())
		width = (size_t)tl_width();
	wrap_into(&sb, col, indent, width, text ? text : "");
	emit(fp, &sb);
	fputc('\n', fp);
	strbuf_release(&sb);
}

void tl_wrapf(FILE *fp, size_t col, size_t indent, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	wrap_into(&sb, col, indent, (size_t)tl_width(), s);
	emit(fp, &sb);
	fputc('\n', fp);
	strbuf_release(&sb);
	free(s);
}

FILE *tl_begin(struct tl_buf *b)
{
	b->buf = NULL;
	b->len = 0;
	b->fp = open_memstream(&b->buf, &b->len);
	if (!b->fp)
		die("out of memory");
	return b->fp;
}

void tl_end(FILE *fp, struct tl_buf *b, size_t indent)
{
	char *line, *nl;
	if (fclose(b->fp) != 0)
		die("out of memory");
	for (line = b->buf; line && *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		tl_wrap(fp, 0, indent == TL_AUTO ? strspn(line, " ") + 4 : indent, line);
	}
	free(b->buf);
	b->buf = NULL;
	b->fp = NULL;
}

/*** Tables ***/

struct tl_column {
	char *header;
	size_t width;
	int flags;
};

struct tl_table {
	size_t indent, ncols, nrows, cap;
	struct tl_column *cols;
	char **cells;   /* nrows x ncols */
};

struct tl_table *tl_table_new(size_t indent)
{
	struct tl_table *t = xcalloc(1, sizeof(*t));
	t->indent = indent;
	return t;
}

void tl_table_column(struct tl_table *t, const char *header, size_t width, int flags)
{
	if (t->nrows)
		die("tl_table_column: a column after the first row");
	t->cols = xrealloc(t->cols, (t->ncols + 1) * sizeof(*t->cols));
	t->cols[t->ncols].header = header ? xstrdup(header) : NULL;
	t->cols[t->ncols].width = width;
	t->cols[t->ncols].flags = flags;
	t->ncols++;
}

void tl_table_rowv(struct tl_table *t, const char *const *cells)
{
	size_t i;
	if (t->nrows == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 8;
		t->cells = xrealloc(t->cells, t->cap * t->ncols * sizeof(*t->cells));
	}
	for (i = 0; i < t->ncols; i++)
		t->cells[t->nrows * t->ncols + i] = xstrdup(cells[i] ? cells[i] : "");
	t->nrows++;
}

void tl_table_row(struct tl_table *t, ...)
{
	const char **cells = xcalloc(t->ncols + 1, sizeof(*cells));
	va_list ap;
	size_t i;
	va_start(ap, t);
	for (i = 0; i < t->ncols; i++)
		cells[i] = va_arg(ap, const char *);
	va_end(ap);
	tl_table_rowv(t, cells);
	free(cells);
}

/* The widest word of s. */
static size_t longest_word(const char *s)
{
	size_t best = 0;
	while (*s) {
		size_t n = strcspn(s, " \n"), w = tl_strnwidth(s, n);
		if (w > best)
			best = w;
		s += n;
		s += strspn(s, " \n");
	}
	return best;
}

/*
 * libsmartcols's wrap callbacks.  A cell reaches it already wrapped (our
 * word wrapper, at the width the table gave its column), its lines
 * separated by newlines, which scols_wrapnl_nextchunk() splits.  The chunk
 * size libsmartcols measures a column by is that width: each column is
 * exactly as wide as tl_table_print() decided.
 */
static size_t column_width(const struct libscols_column *cl, const char *data, void *w)
{
	(void)cl;
	(void)data;
	return *(const size_t *)w;
}

/* The cell wrapped at width, its lines separated by newlines. */
static char *cell_lines(const char *s, size_t width)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	wrap_into(&sb, 0, 0, width ? width : 1, s);
	for (i = 0; i < sb.len; i++)
		if (sb.buf[i] == TL_GLUE[0])
			sb.buf[i] = ' ';
	return sb.buf ? sb.buf : xstrdup("");
}

/* What libsmartcols wrote, onto fp: each line after the table's indent,
 * without the padding it gives the empty cells of a row's later lines. */
static void put_lines(FILE *fp, size_t indent, const char *s, size_t len)
{
	const char *end = s + len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *e = nl ? nl : end;
		while (e > s && e[-1] == ' ')
			e--;
		if (e > s)
			fprintf(fp, "%*s%.*s", (int)indent, "", (int)(e - s), s);
		fputc('\n', fp);
		s = nl ? nl + 1 : end;
	}
}

static void no_memory(int rc)
{
	if (rc)
		die("out of memory laying out a table");
}

/* The rows laid out by libsmartcols at the widths w, onto fp. */
static void print_scols(FILE *fp, const struct tl_table *t, size_t *w, int headers)
{
	struct libscols_table *tb = scols_new_table();
	char *text = NULL;
	size_t len = 0, i, r;
	FILE *mem = open_memstream(&text, &len);
	locale_t old = (locale_t)0;
	int rc;
	if (!tb || !mem)
		no_memory(1);
	no_memory(scols_table_set_stream(tb, mem));
	scols_table_set_termforce(tb, SCOLS_TERMFORCE_NEVER);
	no_memory(scols_table_set_column_separator(tb, " "));
	scols_table_enable_noheadings(tb, !headers);
	for (i = 0; i < t->ncols; i++) {
		struct libscols_column *cl = scols_table_new_column(tb, t->cols[i].header ? t->cols[i].header : "",
								    (double)(w[i] ? w[i] : 1),
								    SCOLS_FL_WRAP | (t->cols[i].flags & TL_RIGHT ? SCOLS_FL_RIGHT : 0));
		if (!cl)
			no_memory(1);
		no_memory(scols_column_set_wrapfunc(cl, column_width, scols_wrapnl_nextchunk, &w[i]));
		no_memory(scols_column_set_safechars(cl, "\n"));
	}
	for (r = 0; r < t->nrows; r++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		if (!ln)
			no_memory(1);
		for (i = 0; i < t->ncols; i++)
			no_memory(scols_line_refer_data(ln, i, cell_lines(t->cells[r * t->ncols + i], w[i])));
	}
	/* Widths and the escaping of what a terminal cannot show by C.UTF-8's
	 * tables, as tl_strwidth() measures, whatever the locale. */
	if (utf8_locale())
		old = uselocale(utf8_locale());
	rc = scols_print_table(tb);
	if (rc)
		die("cannot lay out a table: %s", strerror(rc < 0 ? -rc : rc));
	if (old)
		uselocale(old);
	scols_unref_table(tb);
	if (fclose(mem))
		no_memory(1);
	put_lines(fp, t->indent, text, len);
	free(text);
}

void tl_table_print(FILE *fp, struct tl_table *t)
{
	size_t *w, *floor_w, *nat_w, *head_w, i, r, total, avail, last;
	int headers = 0, pass;
	if (!t->ncols)
		goto out;
	w = xcalloc(t->ncols, sizeof(*w));
	floor_w = xcalloc(t->ncols, sizeof(*floor_w));
	nat_w = xcalloc(t->ncols, sizeof(*nat_w));
	head_w = xcalloc(t->ncols, sizeof(*head_w));
	last = t->ncols - 1;
	for (i = 0; i < t->ncols; i++) {
		size_t hw = tl_strwidth(t->cols[i].header), nat = hw, lw = hw;
		headers |= t->cols[i].header != NULL;
		for (r = 0; r < t->nrows; r++) {
			const char *c = t->cells[r * t->ncols + i];
			size_t cw = tl_strwidth(c), cl = longest_word(c);
			if (cw > nat)
				nat = cw;
			if (cl > lw)
				lw = cl;
		}
		if (i == last)
			w[i] = nat;
		else if (t->cols[i].flags & TL_WRAP)
			w[i] = t->cols[i].width ? t->cols[i].width : nat;
		else
			w[i] = nat > t->cols[i].width ? nat : t->cols[i].width;
		floor_w[i] = lw ? lw : 1;
		nat_w[i] = nat ? nat : 1;
		head_w[i] = hw > 4 ? hw : 4;
	}
	total = t->indent + last;
	for (i = 0; i < t->ncols; i++)
		total += w[i];
	avail = (size_t)tl_width();
	/* Too wide: first give up padding (every column down to its widest
	 * cell), then shrink the widest wrapping column, down to its longest
	 * word, then (pass 2) cutting words, down to 4 columns or its header,
	 * which libsmartcols prints whole. */
	for (pass = 0; pass < 3 && total > avail; pass++) {
		while (total > avail) {
			size_t best = t->ncols;
			for (i = 0; i < t->ncols; i++) {
				size_t fl = pass == 0 ? nat_w[i] : pass == 1 ? floor_w[i] : head_w[i];
				if ((pass == 0 || i == last || (t->cols[i].flags & TL_WRAP)) && w[i] > fl &&
				    (best == t->ncols || w[i] > w[best]))
					best = i;
			}
			if (best == t->ncols)
				break;
			w[best]--;
			total--;
		}
	}
	if (t->nrows)
		print_scols(fp, t, w, headers);
	free(w);
	free(floor_w);
	free(nat_w);
	free(head_w);
out:
	for (r = 0; r < t->nrows * t->ncols; r++)
		free(t->cells[r]);
	for (i = 0; i < t->ncols; i++)
		free(t->cols[i].header);
	free(t->cells);
	free(t->cols);
	free(t);
}
