/* probe/cmdline.c - the kernel command line, split and read as the kernel does */
#include "config.h"
#include "probe/cmdline.h"
#include "lib/facts.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const cmdline_wanted[] = {
	"isolcpus", "nohz_full", "rcu_nocbs", "mitigations", "nosmt",
	"transparent_hugepage", "default_hugepagesz", "numa_balancing",
	"iommu", "intel_iommu", "amd_iommu", "processor.max_cstate",
	"intel_idle.max_cstate", "idle",
	NULL
};

static void add(struct cmdline *cl, const char *key, const char *value)
{
	if (cl->n == cl->alloc) {
		cl->alloc = cl->alloc ? cl->alloc * 2 : 16;
		cl->v = xrealloc(cl->v, cl->alloc * sizeof(*cl->v));
	}
	cl->v[cl->n].key = xstrdup(key);
	cl->v[cl->n].value = value ? xstrdup(value) : NULL;
	cl->n++;
}

static char *skip_spaces(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* One parameter at args (not at a space); the kernel's next_arg(). */
static char *next_arg(char *args, char **param, char **val, int *unbalanced)
{
	size_t i, equals = 0;
	int in_quote = 0, quoted = 0;
	char *next;

	if (*args == '"') {
		args++;
		in_quote = 1;
		quoted = 1;
	}
	for (i = 0; args[i]; i++) {
		if (isspace((unsigned char)args[i]) && !in_quote)
			break;
		if (equals == 0 && args[i] == '=')
			equals = i;
		if (args[i] == '"')
			in_quote = !in_quote;
	}
	if (in_quote)
		*unbalanced = 1;
	*param = args;
	if (!equals)
		*val = NULL;
	else {
		args[equals] = '\0';
		*val = args + equals + 1;
		/* Don't include quotes in the value. */
		if (**val == '"') {
			(*val)++;
			if (args[i - 1] == '"')
				args[i - 1] = '\0';
		}
	}
	if (quoted && i > 0 && args[i - 1] == '"')
		args[i - 1] = '\0';
	if (args[i]) {
		args[i] = '\0';
		next = args + i + 1;
	} else
		next = args + i;
	return skip_spaces(next);
}

void cmdline_parse(const char *s, struct cmdline *cl)
{
	char *copy = xstrdup(s ? s : ""), *p;
	memset(cl, 0, sizeof(*cl));
	p = skip_spaces(copy);
	while (*p) {
		char *key, *val;
		p = next_arg(p, &key, &val, &cl->unbalanced);
		if (!val && !strcmp(key, "--")) {
			cl->init_args = 1;
			break;
		}
		add(cl, key, val);
	}
	free(copy);
}

void cmdline_free(struct cmdline *cl)
{
	size_t i;
	for (i = 0; i < cl->n; i++) {
		free(cl->v[i].key);
		free(cl->v[i].value);
	}
	free(cl->v);
	memset(cl, 0, sizeof(*cl));
}

int cmdline_keyeq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a == '-' ? '_' : *a, y = *b == '-' ? '_' : *b;
		if (x != y)
			return 0;
	}
	return *a == *b;
}

const char *cmdline_get(const struct cmdline *cl, const char *key, int *present)
{
	size_t i = cl->n;
	if (present)
		*present = 0;
	while (i-- > 0)
		if (cmdline_keyeq(cl->v[i].key, key)) {
			if (present)
				*present = 1;
			return cl->v[i].value;
		}
	return NULL;
}

int cmdline_memparse(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;
	int shift = 0;
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno)
		return -ERANGE;
	switch (*end) {
	case 'E': case 'e': shift = 60; break;
	case 'P': case 'p': shift = 50; break;
	case 'T': case 't': shift = 40; break;
	case 'G': case 'g': shift = 30; break;
	case 'M': case 'm': shift = 20; break;
	case 'K': case 'k': shift = 10; break;
	case '\0': break;
	default: return -EINVAL;
	}
	if (shift && end[1])
		return -EINVAL;
	if (shift && v > (~0ULL >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

static cJSON *hp_entry(const char *size)
{
	cJSON *e = cJSON_CreateObject();
	unsigned long long b = 0;
	int has = size && cmdline_memparse(size, &b) == 0;
	fj_str_or_null(e, "size", size);
	fj_num_or_null(e, "size_bytes", has, (double)b);
	fj_str_or_null(e, "count", NULL);
	return e;
}

cJSON *cmdline_params_json(const struct cmdline *cl)
{
	cJSON *p = cJSON_CreateObject(), *hp = NULL, *last = NULL;
	size_t i, w;
	for (i = 0; i < cl->n; i++) {
		const struct cmdline_param *c = &cl->v[i];
		if (cmdline_keyeq(c->key, "hugepagesz") || cmdline_keyeq(c->key, "hugepages")) {
			int is_size = cmdline_keyeq(c->key, "hugepagesz");
			if (!hp)
				hp = cJSON_AddArrayToObject(p, "hugepages");
			if (is_size || !last || !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(last, "count"))) {
				/* hugepagesz= opens a pair; hugepages= without one
				 * (or after a complete pair) is for the default size. */
				last = hp_entry(is_size ? c->value : NULL);
				cJSON_AddItemToArray(hp, last);
			}
			if (!is_size)
				fj_str_or_null(last, "count", c->value ? c->value : "");
			continue;
		}
		for (w = 0; cmdline_wanted[w]; w++)
			if (cmdline_keyeq(c->key, cmdline_wanted[w]))
				break;
		if (!cmdline_wanted[w])
			continue;
		fj_set(p, cmdline_wanted[w], c->value ? cJSON_CreateString(c->value) : cJSON_CreateTrue());
	}
	return p;
}
