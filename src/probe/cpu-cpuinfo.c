/* probe/cpu-cpuinfo.c - /proc/cpuinfo split into processor blocks (shared, global) */
#include "config.h"
#include "probe/cpu-internal.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

/* Whether the processor blocks are in strictly increasing order (asked
 * once, kept in ci->increasing). */
static int ci_increasing(const struct cpuinfo *ci)
{
	size_t i;
	if (ci->increasing)
		return ci->increasing > 0;
	for (i = 1; i < ci->n && ci->p[i - 1].id < ci->p[i].id; i++)
		;
	((struct cpuinfo *)ci)->increasing = i >= ci->n ? 1 : -1;
	return ci->increasing > 0;
}

static void ci_init_proc(struct ci_proc *p, int id)
{
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->implementer = p->part = -1;
	p->phys = p->coreid = -1;
}

static void ci_set(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

static void ci_copy(char **dst, const char *src)
{
	if (!*dst && src)
		*dst = xstrdup(src);
}

/* Older kernels (arm64 before 3.19, some 32-bit ARM) print every
 * "processor : N" line first and then one block for all of them: the run
 * of empty processors before a block shares it.  Its Features (the
 * kernel's hwcaps, one set for the system) apply to each; its CPU
 * implementer and part are the MIDR of the CPU that read the file, so they
 * are kept as one_part and belong to no processor. */
static void ci_share_blocks(struct cpuinfo *ci)
{
	size_t i = 0, j, k;
	ci->one_part = -1;
	while (i < ci->n) {
		for (j = i; j < ci->n && ci->p[j].nfields == 0; j++)
			;
		if (j > i && j < ci->n) {
			struct ci_proc *b = &ci->p[j];
			for (k = i; k <= j; k++) {
				ci->p[k].shared = 1;
				if (k == j)
					continue;
				ci_copy(&ci->p[k].vendor, b->vendor);
				ci_copy(&ci->p[k].model, b->model);
				ci_copy(&ci->p[k].flags, b->flags);
			}
			if (b->implementer >= 0 && b->part >= 0)
				ci->one_part = b->implementer << 12 | b->part;
		}
		i = j + 1;
	}
	if (ci->one_part < 0 && ci->g.implementer >= 0 && ci->g.part >= 0)
		ci->one_part = ci->g.implementer << 12 | ci->g.part;
}

void ci_parse(struct cpuinfo *ci, char *buf)
{
	char *line, *next;
	struct ci_proc *cur = NULL;
	size_t alloc = 0;
	ci_init_proc(&ci->g, -1);
	/* A blank line ends a processor block: what follows (ARMv7's Features,
	 * CPU part, Hardware) is global. */
	for (line = buf; line; line = next) {
		char *colon, *k, *v;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		colon = strchr(line, ':');
		uint64_t u;
		int64_t s;
		if (!colon) {
			cur = NULL;
			continue;
		}
		*colon = '\0';
		k = strtrim(line);
		v = strsquash(colon + 1);
		if (!strcmp(k, "processor") && parse_u64(v, &u) == 0 && u < SR_MAX_CPUS) {
			if (ci->n == alloc) {
				alloc = alloc ? 2 * alloc : 64;
				ci->p = xrealloc(ci->p, alloc * sizeof(*ci->p));
			}
			cur = &ci->p[ci->n++];
			ci_init_proc(cur, (int)u);
			continue;
		}
		{
			struct ci_proc *p = cur ? cur : &ci->g;
			p->nfields++;
			if (!strcmp(k, "vendor_id"))
				ci_set(&p->vendor, v);
			else if (!strcmp(k, "model name") || !strcmp(k, "Processor"))
				ci_set(&p->model, v);
			else if (!strcmp(k, "flags") || !strcmp(k, "Features"))
				ci_set(&p->flags, v);
			else if (!strcmp(k, "microcode"))
				ci_set(&p->microcode, v);
			else if (!strcmp(k, "CPU implementer") && sscanf(v, "%li", &p->implementer) != 1)
				p->implementer = -1;
			else if (!strcmp(k, "CPU part") && sscanf(v, "%li", &p->part) != 1)
				p->part = -1;
			else if (!strcmp(k, "physical id") && parse_s64(v, &s) == 0)
				p->phys = s;
			else if (!strcmp(k, "core id") && parse_s64(v, &s) == 0)
				p->coreid = s;
		}
	}
	ci_share_blocks(ci);
}

void ci_free(struct cpuinfo *ci)
{
	size_t i;
	for (i = 0; i < ci->n; i++) {
		free(ci->p[i].vendor);
		free(ci->p[i].model);
		free(ci->p[i].flags);
		free(ci->p[i].microcode);
	}
	free(ci->p);
	free(ci->g.vendor);
	free(ci->g.model);
	free(ci->g.flags);
	free(ci->g.microcode);
}

size_t cpuinfo_parse_count(const char *text)
{
	struct cpuinfo ci;
	char *buf = xstrdup(text);
	size_t n;
	memset(&ci, 0, sizeof(ci));
	ci_parse(&ci, buf);
	n = ci.n;
	ci_free(&ci);
	free(buf);
	return n;
}

const struct ci_proc *ci_find(const struct cpuinfo *ci, int id)
{
	size_t i, lo = 0, hi = ci->n;
	/* The kernel lists processors in increasing order: where they are
	 * (p[] strictly increasing, checked at both ends of the search), a
	 * binary search finds the one block of id, so that 4096 CPUs do not
	 * cost 4096 squared.  Otherwise the first block of id, in order. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ci->p[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ci->n && ci->p[lo].id == id && (lo == 0 || ci->p[lo - 1].id < id) &&
	    (lo + 1 == ci->n || ci->p[lo + 1].id > id) && ci_increasing(ci))
		return &ci->p[lo];
	for (i = 0; i < ci->n; i++)
		if (ci->p[i].id == id)
			return &ci->p[i];
	return NULL;
}

const char *ci_str(const struct cpuinfo *ci, const struct ci_proc *p, size_t off)
{
	const char *s = p ? *(char *const *)((const char *)p + off) : NULL;
	return s ? s : *(char *const *)((const char *)&ci->g + off);
}

int cpu_has_word(const char *list, const char *w)
{
	size_t n = strlen(w);
	const char *p = list;
	while (p && (p = strstr(p, w))) {
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
			return 1;
		p += n;
	}
	return 0;
}
