/* read/runbin.h - ask a runtime's own program what it is: find it on $PATH,
 * run it with one argument (--help, --version) and keep what it prints. */
#ifndef NODEAUDIT_RUNBIN_H
#define NODEAUDIT_RUNBIN_H

#include <stddef.h>

/* The first executable regular file named name in $PATH (malloc'd), or NULL. */
char *runbin_lookup(const char *name);

/* Run path with the single argument arg, stdin from /dev/null, stdout and
 * stderr into one buffer (at most 1 MiB kept, NUL-terminated, malloc'd in
 * *out), killed after timeout_s seconds.  0 when it ran and exited (any
 * status: *status has it), or -1 with a one-line reason in *err (malloc'd,
 * the path whole). */
int runbin_capture(const char *path, const char *arg, unsigned timeout_s, char **out, int *status,
		   char **err);

#endif
