/* lib/tempdir.h - private temporary directories that go away even on a signal */
#ifndef NODEAUDIT_TEMPDIR_H
#define NODEAUDIT_TEMPDIR_H

#include <sys/types.h>

/*
 * An unpacked archive, hwloc's private copy of a sysroot and a snapshot's
 * staging directory live in directories made here.  They are removed by
 * tmpdir_remove(), at exit(), and on SIGHUP, SIGINT, SIGQUIT, SIGTERM and
 * SIGPIPE (the handler removes them with async-signal-safe calls, then
 * dies of the signal).  Removal makes read-only directories writable
 * first, so a mode-0555 directory from an archive does not keep its tree.
 * A registered child (tar, a decompressor, hwloc's loader) is killed first
 * so that it cannot write into a directory being removed.
 */

/* mkdtemp("$TMPDIR/<prefix>.XXXXXX") (or beside: dir given), registered;
 * malloc'd path, or NULL with errno set. */
char *tmpdir_make(const char *dir, const char *prefix);
/* Why the last tmpdir_make() (or _scratch()) failed, as one message naming
 * the directory it tried and where that came from: "cannot create a
 * temporary directory in '/x' (TMPDIR): Permission denied; set TMPDIR to
 * a directory you can write in".  Valid until the next call. */
const char *tmpdir_strerror(void);
/* A directory for a run's own scratch (an unpacked archive, hwloc's copy),
 * made as tmpdir_make() does: the files are written once, read back by
 * this run and removed at its end, so memory serves them best.  $TMPDIR
 * when set (the user's choice); else $XDG_RUNTIME_DIR, then /dev/shm, each
 * when it is a tmpfs directory this user may write in, with room for bytes
 * and files (a container's 64 MB /dev/shm may not have it), and for
 * XDG_RUNTIME_DIR one it owns with mode 0700 as its specification says;
 * else, or when mkdtemp() fails there after all, /tmp. */
char *tmpdir_make_scratch(const char *prefix, unsigned long long bytes, unsigned long long files);
/* mkstemp(templ) with the new file registered as the directories are: it
 * is removed at exit() and on those signals until tmpdir_forget(templ)
 * (after it was renamed into place) or tmpdir_remove(templ).  The -o
 * temporary file and snapshot's partial archive.  The descriptor, or -1
 * with errno set. */
int tmpfile_make(char *templ);
/* Remove the tree and forget it.  Safe on a path never registered. */
void tmpdir_remove(const char *path);
/* Forget it without removing it (renamed into place as a result). */
void tmpdir_forget(const char *path);
/* A child to SIGKILL before cleaning up on a signal; 0 for none.  At most
 * a few at once (a decompressor and tar). */
void tmpdir_child(pid_t pid, int add);
/* Remove a tree without following symbolic links, forcing directory modes;
 * async-signal-safe.  0, or -1 if something was left. */
int rmtree(const char *path);

#endif
