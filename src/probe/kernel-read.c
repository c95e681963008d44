/* probe/kernel-read.c - what the kernel probe's parts share: a line of
 * kernel text, a number, a string or number fact with its gap, meminfo */
#include "config.h"
#include "lib/facts.h"
#include "probe/probe.h"
#include "probe/kernel.h"
#include "lib/output.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Text as the kernel prints it: printable ASCII and white space only. */
int kernel_is_text(const char *s, size_t len)
{
	size_t i;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\t' && c != '\n') || c >= 0x7f)
			return 0;
	}
	return 1;
}

/* The first line of a file, white space squashed, refusing any byte that is
 * not text anywhere in the file (a NUL would hide the rest).  malloc'd. */
int kernel_read_line(struct probe_ctx *ctx, const char *path, char **out)
{
	char *b;
	size_t len;
	int r = sr_read(&ctx->sr, path, &b, &len);
	if (r < 0)
		return r;
	if (!kernel_is_text(b, len)) {
		free(b);
		return -EINVAL;
	}
	b[strcspn(b, "\n")] = '\0';
	strsquash(b);
	*out = b;
	return 0;
}

int kernel_read_u64(struct probe_ctx *ctx, const char *path, uint64_t *v)
{
	char *s;
	int r = kernel_read_line(ctx, path, &s);
	if (r < 0)
		return r;
	r = parse_u64(s, v);
	free(s);
	return r;
}

/* One string fact from one file (first line, white space squashed): set it
 * or null with a gap.  Returns 0 or the error. */
int kernel_str_fact(struct probe_ctx *ctx, cJSON *obj, const char *key, const char *fact,
		    const char *path, char **keep)
{
	char *s = NULL;
	int r = kernel_read_line(ctx, path, &s);
	if (r == 0 && !*s)
		r = -EINVAL;
	if (r == 0) {
		fj_str_or_null(obj, key, s);
		facts_evidence(&ctx->facts, fact, path);
	} else {
		fj_str_or_null(obj, key, NULL);
		facts_gap_read(&ctx->facts, fact, path, r);
	}
	if (keep && r == 0)
		*keep = s;
	else
		free(s);
	return r;
}

int kernel_u64_fact(struct probe_ctx *ctx, cJSON *obj, const char *key, const char *fact,
		    const char *path, double scale, uint64_t *keep)
{
	uint64_t v = 0;
	int r = kernel_read_u64(ctx, path, &v);
	fj_num_or_null(obj, key, r == 0, (double)v * scale);
	if (r == 0)
		facts_evidence(&ctx->facts, fact, path);
	else
		facts_gap_read(&ctx->facts, fact, path, r);
	if (keep)
		*keep = v;
	return r;
}

/* "MemTotal:  123 kB" -> 123 (in kB).  0 or -ENOENT/-EINVAL. */
int kernel_meminfo_kb(const char *mi, const char *key, uint64_t *kb)
{
	size_t n = strlen(key);
	const char *p = mi;
	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ':') {
			char line[128];
			size_t l = strcspn(p + n + 1, "\n");
			if (l >= sizeof(line))
				return -EINVAL;
			memcpy(line, p + n + 1, l);
			line[l] = '\0';
			strtrim(line);
			if (str_endswith(line, " kB"))
				line[strlen(line) - 3] = '\0';
			else
				return -EINVAL;
			return parse_u64(line, kb) == 0 && *kb <= UINT64_MAX / 1024 ? 0 : -EINVAL;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}
