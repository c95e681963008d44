/* probe/cmdline.h - the kernel command line, split and read as the kernel does */
#ifndef NODEAUDIT_CMDLINE_H
#define NODEAUDIT_CMDLINE_H

#include <stddef.h>
#include <cjson/cJSON.h>

/*
 * /proc/cmdline is split like the kernel's next_arg(): white space separates
 * parameters except inside double quotes; `"key=a b"` and `key="a b"` both
 * give key = `a b` (the quotes are dropped); a parameter without '=' is a
 * flag (value NULL); "--" ends the kernel's parameters (the rest goes to
 * init).  Repeated keys are all kept, in order.
 */
struct cmdline_param {
	char *key;
	char *value;    /* NULL: a flag ("nosmt", "quiet") */
};

struct cmdline {
	struct cmdline_param *v;
	size_t n, alloc;
	int unbalanced;     /* an opening quote was never closed */
	int init_args;      /* "--" was seen: what follows is init's */
};

void cmdline_parse(const char *s, struct cmdline *cl);
void cmdline_free(struct cmdline *cl);

/* Parameter names compare as the kernel's parameq() does: '-' equals '_'. */
int cmdline_keyeq(const char *a, const char *b);

/* The last value of key (repeats: the last one wins, as for the kernel's
 * handlers).  Returns NULL if absent; *flag = 1 if present without '='. */
const char *cmdline_get(const struct cmdline *cl, const char *key, int *present);

/* The parameters nodeaudit reports (isolcpus, nohz_full, ...), NULL-ended. */
extern const char *const cmdline_wanted[];

/* {"isolcpus": "2-15", "nosmt": true, "hugepages": [{"size": "1G",
 * "size_bytes": 1073741824, "count": "4"}], ...}: the wanted parameters that
 * are present, last one wins, a flag is true; hugepagesz=/hugepages= pairs
 * are kept in order as a list (hugepages= before any hugepagesz= is for the
 * default size: "size": null). */
cJSON *cmdline_params_json(const struct cmdline *cl);

/* The kernel's memparse(): "1G" -> 1073741824; 0 or -EINVAL/-ERANGE. */
int cmdline_memparse(const char *s, unsigned long long *out);

#endif
