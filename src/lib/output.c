/* lib/output.c - atomic output files, JSON printing, colour and text layout */
#include "config.h"
#include "lib/output.h"
#include "lib/tempdir.h"
#include "lib/textlayout.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int color_on;

/*
 * -o PATH: a new or an existing regular file is replaced atomically (a
 * temporary file beside it, renamed over it); a character device or a FIFO
 * (/dev/stdout, /dev/null, a named pipe a reader holds open) is written in
 * place, as a shell redirection would; anything else -- a directory, a
 * block device, a socket, a symbolic link to a file -- is refused, so that
 * nothing but a regular file is ever created or replaced.
 */
/* 1 when real (a resolved path) is root or below it. */
static int path_below(const char *real, const char *root)
{
	size_t n = strlen(root);
	return strcmp(root, "/") && !strncmp(real, root, n) && (real[n] == '\0' || real[n] == '/');
}

int output_refused(const char *path, const char *refuse_under)
{
	char *p, *real = NULL, *rs;
	int inside;
	if (!refuse_under || !(rs = realpath(refuse_under, NULL)))
		return 0;
	/* The nearest part of path that exists: what is still to be made
	 * would be made under it. */
	p = xstrdup(path);
	while (!(real = realpath(p, NULL)) && errno == ENOENT && strcmp(p, ".") && strcmp(p, "/")) {
		char *up = path_dirname(p);
		free(p);
		p = up;
	}
	free(p);
	inside = real && path_below(real, rs);
	free(real);
	free(rs);
	if (inside)
		return error("refusing to write '%s' inside the sysroot '%s'", path, refuse_under);
	return 0;
}

int output_open(struct output *o, const char *path, const char *refuse_under)
{
	char *dir, *realdir;
	struct stat lst, st;
	int fd;
	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->fp = stdout;
		return 0;
	}
	if (lstat(path, &lst) == 0 && !S_ISREG(lst.st_mode)) {
		if (stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
			/* O_NONBLOCK: a FIFO without a reader is an error, not a hang. */
			fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
			if (fd < 0)
				return error("cannot write '%s': %s", path,
					     errno == ENXIO ? "a named pipe with no reader" : strerror(errno));
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
			o->fp = fdopen(fd, "w");
			if (!o->fp) {
				close(fd);
				return error("cannot write '%s': %s", path, strerror(errno));
			}
			o->path = xstrdup(path);
			o->in_place = 1;
			return 0;
		}
		return error("cannot write '%s': it is %s; -o writes regular files only", path,
			     S_ISDIR(lst.st_mode) ? "a directory" : S_ISLNK(lst.st_mode) ? "a symbolic link" :
			     S_ISBLK(lst.st_mode) ? "a block device" : S_ISSOCK(lst.st_mode) ? "a socket" :
			     "not a regular file");
	}
	dir = path_dirname(path);
	realdir = realpath(dir, NULL);
	if (!realdir) {
		error("cannot write '%s': %s", path, strerror(errno));
		free(dir);
		return -1;
	}
	free(realdir);
	if (output_refused(path, refuse_under) < 0) {
		free(dir);
		return -1;
	}
	o->path = xstrdup(path);
	/* A short name: the target's own may already be NAME_MAX long. */
	o->tmp = xasprintf("%s/.nodeaudit-out.XXXXXX", dir);
	free(dir);
	/* Registered: removed on exit and on SIGTERM, SIGINT, SIGHUP (lib/tempdir.h). */
	fd = tmpfile_make(o->tmp);
	if (fd < 0) {
		error("cannot write '%s': %s", path, strerror(errno));
		free(o->tmp);
		free(o->path);
		o->tmp = o->path = NULL;
		return -1;
	}
	fchmod(fd, 0644);
	o->fp = fdopen(fd, "w");
	if (!o->fp) {
		int e = errno;
		close(fd);
		tmpdir_remove(o->tmp);
		free(o->tmp);
		free(o->path);
		o->tmp = o->path = NULL;
		return error("cannot write '%s': %s", path, strerror(e));
	}
	return 0;
}

int output_close(struct output *o, int ok)
{
	int ret = 0;
	if (!o->fp)
		return 0;
	if (!o->path) {
		if (fflush(stdout) != 0 || ferror(stdout))
			ret = error("cannot write to standard output: %s", strerror(errno));
		clearerr(stdout);
		o->fp = NULL;
		return ret;
	}
	if (o->in_place) {
		if (fflush(o->fp) != 0 || ferror(o->fp))
			ret = error("cannot write '%s': %s", o->path, strerror(errno));
		if (fclose(o->fp) != 0 && !ret)
			ret = error("cannot write '%s': %s", o->path, strerror(errno));
		free(o->path);
		memset(o, 0, sizeof(*o));
		return ret;
	}
	if (ok) {
		if (fflush(o->fp) != 0 || ferror(o->fp) || fsync(fileno(o->fp)) != 0) {
			ret = error("cannot write '%s': %s", o->path, strerror(errno));
			ok = 0;
		}
	}
	if (fclose(o->fp) != 0 && ok) {
		ret = error("cannot write '%s': %s", o->path, strerror(errno));
		ok = 0;
	}
	if (ok && rename(o->tmp, o->path) != 0) {
		ret = error("cannot write '%s': %s", o->path, strerror(errno));
		ok = 0;
	}
	if (!ok)
		tmpdir_remove(o->tmp);   /* unlinks it, and forgets it */
	else
		tmpdir_forget(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	return ret;
}

void output_json(FILE *fp, const cJSON *j)
{
	char *s = cJSON_Print(j);
	if (!s)
		die("out of memory");
	fputs(s, fp);
	fputc('\n', fp);
	free(s);
}

const char *c_bold(void) { return color_on ? "\033[1m" : ""; }
const char *c_red(void) { return color_on ? "\033[31m" : ""; }
const char *c_yellow(void) { return color_on ? "\033[33m" : ""; }
const char *c_green(void) { return color_on ? "\033[32m" : ""; }
const char *c_dim(void) { return color_on ? "\033[2m" : ""; }
const char *c_reset(void) { return color_on ? "\033[0m" : ""; }

void tx_section(FILE *fp, const char *title)
{
	tl_wrapf(fp, 0, 2, "%s%s%s", c_bold(), title, c_reset());
}

/* "  KEY                    VALUE", the value wrapped under itself. */
void tx_kv(FILE *fp, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *v;
	size_t kw = tl_strwidth(key);
	fprintf(fp, "  %-22s ", key);
	va_start(ap, fmt);
	v = xvasprintf(fmt, ap);
	va_end(ap);
	tl_wrap(fp, 2 + (kw > 22 ? kw : 22) + 1, 2 + 22 + 1, v);
	free(v);
}

/*** Strings from outside: valid UTF-8, no terminal controls ***/

char *text_clean(const char *in, int for_text)
{
	return str_clean(in, for_text == CLEAN_LINE ? CLEAN_LINE : for_text ? CLEAN_TEXT : CLEAN_UTF8);
}

void json_clean(cJSON *j, int for_text)
{
	cJSON *it;
	char *c;
	if (!j)
		return;
	if (j->string && (c = text_clean(j->string, for_text))) {
		if (!(j->type & cJSON_StringIsConst))
			free(j->string);
		j->type &= ~cJSON_StringIsConst;
		j->string = c;
	}
	if (cJSON_IsString(j) && j->valuestring && (c = text_clean(j->valuestring, for_text))) {
		cJSON_free(j->valuestring);
		j->valuestring = c;
	}
	for (it = j->child; it; it = it->next)
		json_clean(it, for_text);
}

void markup_escape(FILE *fp, const char *s, const char *apos, const char *bad, int del_too)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs(apos, fp); break;
		default:
			if ((c < 0x20 && c != '\n' && c != '\t') || (del_too && c == 0x7f))
				fputs(bad, fp);
			else
				fputc(c, fp);
		}
	}
}
