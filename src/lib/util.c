/* lib/util.c - allocation, messages and small string helpers */
#include "config.h"
#include "lib/util.h"

#include <ctype.h>
#include <stdint.h>
#include <sys/mman.h>
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int verbosity;
const char *progname = "nodeaudit";

static void oom(void)
{
	fputs("nodeaudit: out of memory\n", stderr);
	exit(EXIT_UNKNOWN);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		oom();
	return p;
}

/* Formatted on the stack first, then copied into a block of its size:
 * glibc's vasprintf() takes 100 bytes and shrinks them with realloc(),
 * a fifth more instructions for the paths and keys the probes build. */
char *xvasprintf(const char *fmt, va_list ap)
{
	char buf[256], *p;
	va_list again;
	int n;
	va_copy(again, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n < 0) {
		va_end(again);
		oom();
	}
	p = xmalloc((size_t)n + 1);
	if ((size_t)n < sizeof(buf))
		memcpy(p, buf, (size_t)n + 1);
	else
		vsnprintf(p, (size_t)n + 1, fmt, again);
	va_end(again);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

/* Every message is one line: what it names (a file name, a key, a value
 * from a document) goes through the one cleaner. */
static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char *msg = NULL, *clean;
	if (vasprintf(&msg, fmt, ap) < 0) {
		fprintf(stderr, "%s: %s(message lost: out of memory)\n", progname, prefix);
		return;
	}
	clean = str_clean(msg, CLEAN_LINE);
	fprintf(stderr, "%s: %s%s\n", progname, prefix, clean ? clean : msg);
	free(clean);
	free(msg);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	if (verbosity < 0)
		return;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void debug(const char *fmt, ...)
{
	va_list ap;
	if (verbosity < 1)
		return;
	va_start(ap, fmt);
	vreport("debug: ", fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	exit(EXIT_UNKNOWN);
}

char *strtrim(char *s)
{
	size_t n;
	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* isspace() in the C locale, which is the program's (it sets no other). */
static int c_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

char *strsquash(char *s)
{
	unsigned char *r = (unsigned char *)s, *start, *w;
	int space = 0;
	while (c_space(*r))
		r++;
	/* The usual string after its leading white space is squashed already:
	 * words with one blank between them.  It moves in one piece, up to
	 * the first byte that is not so. */
	start = r;
	for (;;) {
		while (*r > ' ')
			r++;
		if (*r != ' ' || r[1] <= ' ')
			break;
		r++;
	}
	w = (unsigned char *)s + (r - start);
	if (start != (unsigned char *)s)
		memmove(s, start, (size_t)(r - start));
	for (; *r; r++) {
		if (c_space(*r)) {
			space = 1;
			continue;
		}
		if (space)
			*w++ = ' ';
		space = 0;
		*w++ = *r;
	}
	*w = '\0';
	return s;
}

int str_startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int str_endswith(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static const char *skip_space(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

static int only_space(const char *s)
{
	return *skip_space(s) == '\0';
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	s = skip_space(s);
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || !only_space(end))
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_s64(const char *s, int64_t *out)
{
	char *end;
	long long v;
	s = skip_space(s);
	if (!isdigit((unsigned char)*s) && *s != '-' && *s != '+')
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || !only_space(end))
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;
	s = skip_space(s);
	if (!*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || !only_space(end) || v != v)
		return -EINVAL;
	*out = v;
	return 0;
}

void strbuf_add(struct strbuf *sb, const char *s, size_t n)
{
	if (sb->len + n + 1 > sb->alloc) {
		sb->alloc = (sb->len + n + 1) * 2;
		sb->buf = xrealloc(sb->buf, sb->alloc);
	}
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;
	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	strbuf_add(sb, p, (size_t)n);
	free(p);
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

char *strbuf_detach(struct strbuf *sb)
{
	char *p = sb->buf ? sb->buf : xstrdup("");
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	return p;
}

char *path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

const char *human_bytes(double bytes, char *buf, size_t n)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	size_t u = 0;
	while (bytes >= 1024 && u + 1 < ARRAY_SIZE(units)) {
		bytes /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, n, "%.0f B", bytes);
	else
		snprintf(buf, n, "%.1f %s", bytes, units[u]);
	return buf;
}

FILE *fopen_input(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), e, fl;
	struct stat st;
	FILE *fp;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		e = S_ISDIR(st.st_mode) ? EISDIR : ENODEV;
		close(fd);
		errno = e;
		return NULL;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	fp = fdopen(fd, "rb");
	if (!fp) {
		e = errno;
		close(fd);
		errno = e;
	}
	return fp;
}

const char *input_strerror(int errnum)
{
	if (errnum == EISDIR || errnum == ENODEV)
		return "not a regular file";
	return strerror(errnum);
}

int parse_duration(const char *s, double *out)
{
	char buf[64];
	size_t n;
	double v, mul = 1;
	if (!s)
		return -EINVAL;
	n = strlen(s);
	if (!n || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n + 1);
	switch (buf[n - 1]) {
	case 's': mul = 1; buf[n - 1] = '\0'; break;
	case 'm': mul = 60; buf[n - 1] = '\0'; break;
	case 'h': mul = 3600; buf[n - 1] = '\0'; break;
	}
	if (parse_double(buf, &v) < 0 || !isfinite(v))
		return -EINVAL;
	v *= mul;
	if (!(v >= 0.1) || v > 3600)
		return -ERANGE;
	*out = v;
	return 0;
}

static int digits(const char *s, int n, int *v)
{
	int i;
	*v = 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (s[i] - '0');
	}
	return 0;
}

int rfc3339_parse(const char *s, time_t *t)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	struct tm tm;
	int y, mo, d, h, mi, se;
	if (!s || strlen(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
	    s[16] != ':' || s[19] != 'Z' || digits(s, 4, &y) || digits(s + 5, 2, &mo) ||
	    digits(s + 8, 2, &d) || digits(s + 11, 2, &h) || digits(s + 14, 2, &mi) ||
	    digits(s + 17, 2, &se))
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 60)
		return -1;
	if (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = se;
	*t = timegm(&tm);
	return 0;
}

int rfc3339_format(time_t t, char *buf, size_t n)
{
	struct tm tm;
	if (n)
		buf[0] = '\0';
	if (n < 21 || !gmtime_r(&t, &tm) || tm.tm_year < -1900 || tm.tm_year > 9999 - 1900)
		return -1;
	snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec);
	return 0;
}

int num_int_ok(double v, long long lo, long long hi)
{
	return isfinite(v) && v == floor(v) && v >= (double)lo && v <= (double)hi;
}

int num_clamp(double v, int lo, int hi)
{
	if (!(v >= (double)lo))
		return lo;
	if (v > (double)hi)
		return hi;
	return (int)v;
}

/*** Strings from outside: the one cleaner ***/

size_t utf8_seq(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))
			return 0;   /* overlong, or a UTF-16 surrogate */
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

long utf8_bad_offset(const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;
	while (i < len) {
		size_t n;
		if ((unsigned)(s[i] - 1) < 0x7f) {   /* ASCII but NUL: most bytes */
			i++;
			continue;
		}
		if (!s[i])
			return (long)i;   /* a NUL inside a document is not text */
		n = utf8_seq(s + i);
		if (!n || i + n > len)
			return (long)i;
		i += n;
	}
	return -1;
}

static int hex4_zero(const char *s, size_t left)
{
	return left >= 4 && s[0] == '0' && s[1] == '0' && s[2] == '0' && s[3] == '0';
}

long json_bad_offset(const char *text, size_t len, const char **why)
{
	long bad = utf8_bad_offset(text, len);
	size_t i;
	int in_str = 0;
	if (bad >= 0) {
		*why = "invalid UTF-8 (documents are UTF-8)";
		return bad;
	}
	/* Strings and their escapes as RFC 8259 writes them: a backslash
	 * escapes the next character, so "\\u0000" is a backslash and text. */
	for (i = 0; i < len; i++) {
		char c = text[i];
		if (!in_str) {
			in_str = c == '"';
			continue;
		}
		if (c == '"')
			in_str = 0;
		else if (c == '\\' && i + 1 < len) {
			if (text[i + 1] == 'u' && hex4_zero(text + i + 2, len - i - 2)) {
				*why = "a string holds \\u0000 (U+0000, a control character)";
				return (long)i;
			}
			i++;
		}
	}
	return -1;
}

/* The control character (C0, DEL, C1) of a valid sequence of n bytes at s. */
static int is_ctrl_seq(const unsigned char *s, size_t n)
{
	return (n == 1 && (*s < 0x20 || *s == 0x7f)) || (n == 2 && s[0] == 0xc2 && s[1] < 0xa0);
}

long str_ctrl(const char *in)
{
	const unsigned char *s = (const unsigned char *)in;
	while (s && *s) {
		size_t n = utf8_seq(s);
		if (!n)
			return 0xfffd;
		if (is_ctrl_seq(s, n))
			return n == 1 ? s[0] : s[1];
		s += n;
	}
	return -1;
}

char *str_clean(const char *in, enum clean_mode mode)
{
	const unsigned char *s = (const unsigned char *)in;
	struct strbuf sb = STRBUF_INIT;
	int changed = 0;
	if (!s)
		return NULL;
	/* Most strings need nothing: find the first byte that does, copy none.
	 * Printable ASCII, nearly every byte, is passed by one comparison. */
	for (;;) {
		size_t n;
		if ((unsigned)(*s - 0x20) < 0x5f) {
			s++;
			continue;
		}
		if (!*s)
			return NULL;
		n = utf8_seq(s);
		if (!n || (mode != CLEAN_UTF8 && is_ctrl_seq(s, n) &&
			   !(mode == CLEAN_TEXT && (*s == '\n' || *s == '\t'))))
			break;
		s += n;
	}
	strbuf_add(&sb, in, (size_t)((const char *)s - in));
	while (*s) {
		size_t n = utf8_seq(s);
		if (!n) {
			strbuf_addstr(&sb, "\xef\xbf\xbd");   /* U+FFFD */
			s++;
			changed = 1;
		} else if (mode != CLEAN_UTF8 && is_ctrl_seq(s, n) &&
			   !(mode == CLEAN_TEXT && (*s == '\n' || *s == '\t'))) {
			strbuf_addstr(&sb, "?");   /* C0/C1 controls move terminals, end lines */
			s += n;
			changed = 1;
		} else {
			strbuf_add(&sb, (const char *)s, n);
			s += n;
		}
	}
	if (!changed) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

const char *str_shown(const char *s, char *buf, size_t n)
{
	size_t i;
	snprintf(buf, n, "%.40s", s ? s : "");
	for (i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] >= 0x7f)
			buf[i] = '?';
	return buf;
}

int read_file_capped(const char *path, size_t cap, char **buf, size_t *len)
{
	FILE *fp = fopen_input(path);
	struct strbuf sb = STRBUF_INIT;
	char chunk[65536];
	size_t got;
	int r = 0;
	*buf = NULL;
	if (len)
		*len = 0;
	if (!fp)
		return -errno;
	while ((got = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		strbuf_add(&sb, chunk, got);
		if (sb.len > cap) {
			r = -EFBIG;
			break;
		}
	}
	if (!r && ferror(fp))
		r = -EIO;
	fclose(fp);
	if (r < 0) {
		strbuf_release(&sb);
		return r;
	}
	if (len)
		*len = sb.len;
	*buf = sb.buf ? strbuf_detach(&sb) : xstrdup("");
	return 0;
}

void strbuf_drop_component(struct strbuf *sb)
{
	while (sb->len > 0 && sb->buf[sb->len - 1] != '/')
		sb->len--;
	if (sb->len > 0)
		sb->len--;
	if (sb->buf)
		sb->buf[sb->len] = '\0';
}

/* A read error in words, for a gap (lib/util.h). */
const char *sr_reason(int err)
{
	switch (-err) {
	case ENOENT:
		return "missing";
	case ENOTDIR:   /* a directory the path goes through is something else */
		return "a directory on the path is not one";
	case EACCES:
	case EPERM:
		return "permission denied (run as root)";
	case EINVAL:
		return "unparsable";
	case ERANGE:
		return "value out of range";
	case EFBIG:
		return "file too large";
	case EISDIR:
	case ENODEV:
		return "not a regular file";
	case ELOOP:
		return "symbolic link loop";
	case EXDEV:
		return "link leads outside the sysroot";
	case EIO:
	case ENODATA:
	case EOPNOTSUPP:
		return "not provided by the driver";
	default:
		return strerror(-err);
	}
}

int write_all(int fd, const void *p, size_t n)
{
	const char *b = p;
	while (n > 0) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

char *private_copy(const char *name, const char *text, size_t len, int *memfd, char **err)
{
	const char *tmp = getenv("TMPDIR");
	char *path;
	int fd;
	*memfd = -1;
#ifdef MFD_CLOEXEC
	fd = memfd_create(name, MFD_CLOEXEC);
	if (fd >= 0) {
		path = xasprintf("/proc/self/fd/%d", fd);
		if (write_all(fd, text, len) == 0 && access(path, R_OK) == 0) {
			*memfd = fd;
			return path;
		}
		free(path);
		close(fd);
	}
#endif
	path = xasprintf("%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
	fd = mkstemp(path);
	if (fd < 0) {
		*err = xasprintf("cannot create a temporary file '%s': %s", path, strerror(errno));
		free(path);
		return NULL;
	}
	if (write_all(fd, text, len) < 0 || close(fd) < 0) {
		*err = xasprintf("cannot write '%s': %s", path, strerror(errno));
		unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

void private_copy_drop(char *path, int memfd)
{
	if (memfd >= 0)
		close(memfd);
	else if (path)
		unlink(path);
	free(path);
}
