/* lib/quote.c - strings from outside into generated sh, sysctl.d and systemd text:
 * the one place that decides what may be written, and how (lib/quote.h) */
#include "config.h"
#include "lib/quote.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

#define VALUE_MAX 4096   /* a sysctl write is one page */
#define SYSCTL_KEY_MAX 255

void gen_comment(FILE *fp, const char *prefix, const char *text)
{
	char *clean = text ? str_clean(text, CLEAN_LINE) : NULL;
	fputs(prefix, fp);
	if (text)
		fputs(clean ? clean : text, fp);
	fputc('\n', fp);
	free(clean);
}

const char *gen_value_why(const char *v)
{
	long c;
	if (!v)
		return "there is no value";
	if (strlen(v) > VALUE_MAX)
		return "the value is longer than 4096 bytes";
	c = str_ctrl(v);
	if (c == 0xfffd)
		return "the value is not valid UTF-8";
	if (c == '\n' || c == '\r')
		return "the value is more than one line";
	if (c >= 0)
		return "the value holds a control character";
	return NULL;
}

char *sh_quote(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	if (!s || str_ctrl(s) >= 0)
		return NULL;
	strbuf_addstr(&sb, "'");
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(&sb, "'\\''");
		else
			strbuf_add(&sb, s, 1);
	}
	strbuf_addstr(&sb, "'");
	return strbuf_detach(&sb);
}

const char *sysctl_key_why(const char *k)
{
	size_t i, comp = 0;
	if (!k || !*k)
		return "the sysctl key is empty";
	if (strlen(k) > SYSCTL_KEY_MAX)
		return "the sysctl key is longer than 255 bytes";
	if (*k == '-')
		return "the sysctl key starts with '-'";
	for (i = 0; k[i]; i++) {
		unsigned char c = (unsigned char)k[i];
		if (c == '.' || c == '/') {
			if (!comp)
				return "the sysctl key has an empty component";
			comp = 0;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			   c == '_' || c == '-' || c == ':' || c == '@' || c == '+') {
			comp++;
		} else
			return "the sysctl key is not a kernel key (letters, digits and _ - : @ + "
			       "between '.' or '/')";
	}
	if (!comp)
		return "the sysctl key has an empty component";
	return NULL;
}

int sh_sysfs_path_ok(const char *p)
{
	if (!p || strncmp(p, "/sys/", 5) || strstr(p, ".."))
		return 0;
	return strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./*-") == strlen(p);
}

int systemd_unit_ok(const char *u)
{
	size_t n = u ? strlen(u) : 0;
	return n && n <= 200 && *u != '-' && *u != '.' &&
	       strspn(u, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:_.-") == n;
}

int cpulist_word_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n && strspn(s, "0123456789,-") == n;
}

const char *plan_step_why(const char *kind, const char *key, const char *value)
{
	const char *why;
	if (!kind)
		return "the step has no kind";
	/* Without a key a step is never automated: it is shown as a comment. */
	if (key && !strcmp(kind, "sysctl") && (why = sysctl_key_why(key)))
		return why;
	if (key && !strcmp(kind, "cmdline") && (!*key || str_ctrl(key) >= 0 || strpbrk(key, " \"'=")))
		return "the kernel parameter is not one word";
	if (key && str_ctrl(key) >= 0)
		return "the key is not one line of text";
	if (value && (why = gen_value_why(value)))
		return why;
	if (!strcmp(kind, "cmdline") && value && strpbrk(value, " \"'"))
		return "the kernel parameter's value is not one word";
	return NULL;
}
