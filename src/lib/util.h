/* lib/util.h - allocation, messages and small string helpers shared by every module */
#ifndef NODEAUDIT_UTIL_H
#define NODEAUDIT_UTIL_H

#include <time.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit statuses, as monitoring plugins use them (nodeaudit(1) EXIT STATUS):
 * only cmd/cli.c and the command functions use them. */
enum { EXIT_OK = 0, EXIT_WARN = 1, EXIT_CRIT = 2, EXIT_UNKNOWN = 3 };

extern int verbosity;       /* -q: -1, default 0, -v: 1 or more */
extern const char *progname;

/* Allocation that cannot fail: on out-of-memory the program stops with exit 3. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* All n bytes to fd, through EINTR and short writes: 0, or -1 with errno. */
int write_all(int fd, const void *p, size_t n);

/* A private copy of text for a library that reads only a named file (a
 * dump for libpci or libcpuid): an anonymous memory file where the kernel
 * has them (the path is /proc/self/fd/N, readable in a forked child too),
 * else a temporary file under $TMPDIR (default /tmp) named NAME.XXXXXX.
 * Returns the path (malloc'd) and *memfd (-1 for a temporary file), or
 * NULL with a one-line reason in *err (malloc'd).  private_copy_drop()
 * closes or removes it and frees path. */
char *private_copy(const char *name, const char *text, size_t len, int *memfd, char **err);
void private_copy_drop(char *path, int memfd);

/* "nodeaudit: MSG" on stderr.  error() returns -1 so callers may write
 * "return error(...)"; warning() is silenced by -q; debug() needs -v. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Strip leading and trailing white space in place; returns s. */
char *strtrim(char *s);
/* Collapse runs of white space to one blank, trim the ends; in place. */
char *strsquash(char *s);
int str_startswith(const char *s, const char *prefix);
int str_endswith(const char *s, const char *suffix);

/* Strict number parsing: the whole string (after trimming) must be the
 * number.  Returns 0, -EINVAL (not a number) or -ERANGE (overflow). */
int parse_u64(const char *s, uint64_t *out);
int parse_s64(const char *s, int64_t *out);
int parse_double(const char *s, double *out);
/* A duration in seconds, the one grammar of every option that takes one:
 * a decimal number with an optional unit s, m or h ("5", "0.5", "90s",
 * "2m"), from 0.1 s to 1 h.  0 or -EINVAL / -ERANGE. */
int parse_duration(const char *s, double *out);

/* A growable string buffer. */
struct strbuf {
	char *buf;
	size_t len, alloc;
};
#define STRBUF_INIT { NULL, 0, 0 }
void strbuf_add(struct strbuf *sb, const char *s, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_release(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb);
/* Drop the last "/component" of a path held in sb ("/a/b" -> "/a", "/a" -> ""). */
void strbuf_drop_component(struct strbuf *sb);

/* A user's or a file's word for a message: at most n-1 bytes (cut at 40
 * characters), control characters and bytes over 0x7e as '?'; returns buf. */
const char *str_shown(const char *s, char *buf, size_t n);

/*
 * The one cleaner of strings from outside (a document, a sysroot file, a
 * file name) on their way to a person: invalid UTF-8 becomes U+FFFD, and
 * C0 controls, DEL and the C1 controls U+0080-U+009F (an 8-bit CSI moves a
 * terminal as ESC [ does) become '?'.  CLEAN_UTF8 repairs the encoding only,
 * CLEAN_TEXT keeps newline and tab, CLEAN_LINE keeps no control at all (one
 * line: messages, comments in generated files).  A malloc'd copy, or NULL
 * when nothing had to change.
 */
enum clean_mode { CLEAN_UTF8, CLEAN_TEXT, CLEAN_LINE };
char *str_clean(const char *s, enum clean_mode mode);
/* The first control character of s (C0, DEL or C1) as its code point, 0xFFFD
 * for invalid UTF-8, or -1 when s has none: what documents are refused for
 * in names, keys and values that reach a plan. */
long str_ctrl(const char *s);
/* Length (1-4) of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlong forms, surrogates or code points past U+10FFFF), 0 if none. */
size_t utf8_seq(const unsigned char *s);
/* Offset of the first byte of text[0..len) that is not well-formed UTF-8
 * (a NUL byte included), or -1: every document read is checked with it. */
long utf8_bad_offset(const char *text, size_t len);
/* The one check of a JSON document's raw text before cJSON parses it:
 * the offset of its first byte that is not well-formed UTF-8 (*why "invalid
 * UTF-8 (documents are UTF-8)"), or of a \u0000 escape inside a string (*why
 * "a string holds \u0000 (U+0000): a control character"; cJSON's string
 * would end there, so the string the tool used would not be the one the
 * document holds), or -1.  Every document read goes through it. */
long json_bad_offset(const char *text, size_t len, const char **why);

/* A number from a document before it is used as an id, a count or an
 * integer cast: 1 when v is finite, integral and within [lo, hi] (bounds
 * within +-2^53), so that the cast is defined and means what it says. */
int num_int_ok(double v, long long lo, long long hi);
/* v as an int clamped into [lo, hi] (NaN: lo), for a drawing's sizes. */
int num_clamp(double v, int lo, int hi);

/* RFC 3339 UTC times as the tool writes them ("2026-12-01T21:43:48Z"):
 * exactly that form, a four-digit year (0000 to 9999), each field in
 * range, into seconds since the epoch: 0, or -1 for anything else.
 * rfc3339_format() writes t in that form into buf (at least 21 bytes):
 * 0, or -1 (and "" in buf) when its year has no four digits. */
int rfc3339_parse(const char *s, time_t *t);
int rfc3339_format(time_t t, char *buf, size_t n);

/* The directory part of path ("." when it has none); malloc'd. */
char *path_dirname(const char *path);

/* Human-readable size ("31.3 GiB"), into buf. */
const char *human_bytes(double bytes, char *buf, size_t n);

/* Open a file the user named (a profile, a facts file, a dump) for reading:
 * never blocks on a FIFO or a device, and refuses anything but a regular
 * file.  A stream, or NULL with errno set (EISDIR or ENODEV for a directory
 * or another non-regular file: input_strerror() says "not a regular file"). */
FILE *fopen_input(const char *path);
const char *input_strerror(int errnum);
/* The whole of a file the user named, NUL-terminated, at most cap bytes,
 * opened as fopen_input() does: 0, or a negative errno (-EFBIG over cap,
 * -EISDIR/-ENODEV not a regular file). */
int read_file_capped(const char *path, size_t cap, char **buf, size_t *len);

/* A short reason for a gap, from a read layer error (a negative errno):
 * "missing", "permission denied (run as root)"... */
const char *sr_reason(int err);

#endif
