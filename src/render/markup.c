/* render/markup.c - the one writer of HTML and SVG markup (render/markup.h) */
#include "config.h"
#include "render/markup.h"
#include "lib/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void mk_raw(FILE *fp, const char *lit)
{
	fputs(lit, fp);
}

int mk_format_numeric(const char *fmt)
{
	const char *p;
	for (p = fmt; (p = strchr(p, '%'));) {
		p++;
		if (*p == '%') {
			p++;
			continue;
		}
		p += strspn(p, "-+ #0123456789.*'");
		p += strspn(p, "hlLqjzt");
		if (!*p || !strchr("diouxXeEfFgGaA", *p))
			return 0;
		p++;
	}
	return 1;
}

void mk_rawf(FILE *fp, const char *fmt, ...)
{
	va_list ap;
	if (!mk_format_numeric(fmt))
		die("internal error: markup format \"%s\" converts more than numbers", fmt);
	va_start(ap, fmt);
	vfprintf(fp, fmt, ap);
	va_end(ap);
}

/* The escaping: the only place a string from outside turns into markup. */
void mk_text(FILE *fp, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&': fputs("&amp;", fp); break;
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&#39;", fp); break;
		default:
			if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
				fputs("\xef\xbf\xbd", fp);   /* U+FFFD */
			else
				fputc(c, fp);
		}
	}
}

void mk_textf(FILE *fp, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	mk_text(fp, s);
	free(s);
}

/* An attribute's name is the program's: letters, digits and '-' only. */
static void attr_name(FILE *fp, const char *name)
{
	if (!*name || name[strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-:")])
		die("internal error: attribute name \"%s\"", name);
	fputc(' ', fp);
	fputs(name, fp);
	fputs("=\"", fp);
}

void mk_attr(FILE *fp, const char *name, const char *value)
{
	attr_name(fp, name);
	mk_text(fp, value);
	fputc('"', fp);
}

void mk_attrf(FILE *fp, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	mk_attr(fp, name, s);
	free(s);
}

void mk_id(FILE *fp, const char *prefix, const char *s)
{
	for (s = s ? s : ""; *prefix; prefix++)
		fprintf(fp, strchr("abcdefghijklmnopqrstuvwxyz-", *prefix) ? "%c" : "_%02x",
			(unsigned char)*prefix);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.')
			fputc(c, fp);
		else
			fprintf(fp, "_%02x", c);
	}
}
