/* fuzz-markup.c - the node drawing and the check page from a facts document
 * or a report: probe --format svg on the facts, check --format svg and
 * check --format html on a report (its facts, host and findings as they
 * stand).  The oracle is render/markup.h's promise, checked in process on
 * what the renderers wrote: no NUL and no raw control character; every '<'
 * opens or closes an element the renderers write (or the page's doctype or
 * the XML declaration), with attributes of letters, digits and '-' whose
 * values are double-quoted and hold no '<'; every '&' starts an entity; no
 * attribute is an event handler (on...).  A string of the document that
 * held markup would break one of these. */
#include "config.h"
#include "lib/facts.h"
#include "render/html.h"
#include "render/render.h"
#include "lib/util.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const elements[] = {
	"svg", "g", "rect", "text", "title", "line", "path", "tspan", "circle", "polyline",
	"html", "head", "meta", "style", "body", "h1", "h2", "h3", "p", "div", "span", "b", "i", "a", "code",
	"table", "thead", "tbody", "tr", "th", "td", "ul", "li", "br", "wbr", "figure", "figcaption", "section",
	"small", "nav", "caption", "em", "strong", NULL,
};

static const char *bad_at;   /* where markup_ok() stopped */

static int known(const char *p, size_t n)
{
	size_t i;
	for (i = 0; elements[i]; i++)
		if (strlen(elements[i]) == n && !strncmp(elements[i], p, n))
			return 1;
	return 0;
}

/* The tag at p (just after '<'): its end, or NULL when it is not one the renderers write. */
static const char *tag_end(const char *p)
{
	size_t n;
	static const char doctype[] = "!DOCTYPE html>", xmldecl[] = "?xml version=\"1.0\" encoding=\"UTF-8\"?>";
	if (!strncmp(p, doctype, sizeof(doctype) - 1))
		return p + sizeof(doctype) - 2;
	if (!strncmp(p, xmldecl, sizeof(xmldecl) - 1))
		return p + sizeof(xmldecl) - 2;
	if (*p == '/')
		p++;
	n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789");
	if (!n || !known(p, n))
		return NULL;
	p += n;
	for (;;) {
		p += strspn(p, " \n");
		if (*p == '>')
			return p;
		if (p[0] == '/' && p[1] == '>')
			return p + 1;
		n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-:");
		if (!n || (p[0] == 'o' && p[1] == 'n') || p[n] != '=' || p[n + 1] != '"')
			return NULL;
		p += n + 2;
		while (*p && *p != '"') {
			if (*p == '<')
				return NULL;
			p++;
		}
		if (!*p)
			return NULL;
		p++;
	}
}

static int markup_ok(const char *s, int in_style)
{
	const char *p;
	for (p = s; *p; p++) {
		bad_at = p;
		unsigned char c = (unsigned char)*p;
		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			return 0;
		if (c == '<') {
			const char *e = tag_end(p + 1);
			if (!e)
				return 0;
			if (in_style && !strncmp(p, "<style>", 7)) {
				const char *q = strstr(p, "</style>");
				if (!q)
					return 0;
				p = q + 7;
				continue;
			}
			p = e;
		} else if (c == '&') {
			size_t n = p[1] == '#' ? 1 + strspn(p + 2, "0123456789") : strspn(p + 1, "abcdefghijklmnopqrstuvwxyz");
			if (n < 1 || p[1 + n] != ';')
				return 0;
		} else if (c == '>')
			return 0;
	}
	return 1;
}

static void check(void (*render)(FILE *, const void *), const void *arg, int page)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		abort();
	render(mem, arg);
	if (fclose(mem) != 0 || !buf)
		abort();
	if (strlen(buf) != len)
		abort();   /* a NUL */
	if (!markup_ok(buf, page)) {
		fprintf(stderr, "markup the renderers do not write at offset %ld: %.80s\n", (long)(bad_at - buf), bad_at);
		abort();
	}
	free(buf);
}

static void probe_svg(FILE *fp, const void *doc)
{
	struct doc d = { (cJSON *)doc, NULL, NULL };
	probe_render_svg(fp, &d);
}

static void check_svg(FILE *fp, const void *doc)
{
	struct doc d = { (cJSON *)doc, NULL, NULL };
	report_render_svg(fp, &d);
}

static void check_html(FILE *fp, const void *doc)
{
	report_html(fp, doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;
	cJSON *doc;
	if (size > (1u << 20))
		return 0;
	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	/* As the commands read a document: UTF-8, then JSON. */
	if (utf8_bad_offset(text, size) >= 0 || !(doc = cJSON_ParseWithLength(text, size))) {
		free(text);
		return 0;
	}
	free(text);
	/* No json_clean() (cmd/cli.c's): the strings reach the renderers as
	 * the document holds them, control characters and all. */
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "facts"))) {
		check(check_svg, doc, 0);
		check(check_html, doc, 1);
	} else
		check(probe_svg, doc, 0);
	cJSON_Delete(doc);
	return 0;
}
