/* lib/tempdir.c - private temporary directories that go away even on a signal */
#include "config.h"
#include "lib/tempdir.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_DIRS 8
#define MAX_KIDS 4
#define MAX_DEPTH 128   /* archives deeper than this are refused (read/sysroot.c) */

/* Written with the signals blocked, read by the handler. */
static char dirs[MAX_DIRS][4096];
static volatile sig_atomic_t used[MAX_DIRS];
static volatile pid_t kids[MAX_KIDS];
static pid_t owner;
static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE };

struct dirent64_raw {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Everything below is async-signal-safe: no malloc, no stdio, no nftw. */
static int rm_at(int dfd, const char *name, int depth)
{
	struct stat st;
	int fd, left = 0;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dfd, name, 0) == 0 || errno == ENOENT ? 0 : -1;
	if (depth > MAX_DEPTH)
		return -1;
	/* A directory unpacked as 0555 (or 0000) cannot be emptied until it
	 * is ours to write; it is a directory, checked above without
	 * following links, and it lies in our private 0700 directory. */
	if ((st.st_mode & 0700) != 0700)
		fchmodat(dfd, name, 0700, 0);
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		char buf[512];
		int removed;
		do {
			long n;
			removed = 0;
			left = 0;
			lseek(fd, 0, SEEK_SET);
			while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
				long off = 0;
				while (off < n) {
					struct dirent64_raw *d = (struct dirent64_raw *)(buf + off);
					off += d->d_reclen;
					if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
						continue;
					if (rm_at(fd, d->d_name, depth + 1) == 0)
						removed = 1;
					else
						left = 1;
				}
			}
		} while (removed && !left);
		close(fd);
	}
	return unlinkat(dfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : -1;
}

int rmtree(const char *path)
{
	return rm_at(AT_FDCWD, path, 0);
}

static void cleanup_all(void)
{
	int i;
	if (getpid() != owner)
		return;   /* a forked child exiting: the directories are not its own */
	for (i = 0; i < MAX_KIDS; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
	for (i = 0; i < MAX_DIRS; i++)
		if (used[i]) {
			rmtree(dirs[i]);
			used[i] = 0;
		}
}

static void on_signal(int sig)
{
	int e = errno;
	cleanup_all();
	signal(sig, SIG_DFL);
	raise(sig);
	errno = e;
}

static void block(sigset_t *old)
{
	sigset_t all;
	size_t i;
	sigemptyset(&all);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaddset(&all, sigs[i]);
	sigprocmask(SIG_BLOCK, &all, old);
}

static void install(void)
{
	static int done;
	size_t i;
	if (done && owner == getpid())
		return;
	done = 1;
	owner = getpid();
	atexit(cleanup_all);
	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		struct sigaction sa, old;
		/* Leave an ignored signal ignored (nohup, a shell's trap ''). */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

/* A tmpfs directory this user may create in, with room for bytes and
 * files (tmpfs reports 0 files for no limit); own: one it must own with
 * mode 0700 (XDG_RUNTIME_DIR), else a sticky one (/dev/shm, as /tmp). */
static int scratch_ok(const char *d, int own, unsigned long long bytes, unsigned long long files)
{
	struct statfs fs;
	struct stat st;
	if (!d || d[0] != '/' || statfs(d, &fs) < 0 || (unsigned long)fs.f_type != TMPFS_MAGIC ||
	    (unsigned long long)fs.f_bavail * (unsigned long long)fs.f_bsize < bytes ||
	    (fs.f_files && (unsigned long long)fs.f_ffree < files) ||
	    stat(d, &st) < 0 || !S_ISDIR(st.st_mode) || access(d, W_OK | X_OK) < 0)
		return 0;
	if (own)
		return st.st_uid == geteuid() && (st.st_mode & 07777) == 0700;
	return (st.st_mode & S_ISVTX) != 0;
}

/* The memory directory for scratch of that size, or NULL for none. */
static const char *memory_dir(unsigned long long bytes, unsigned long long files)
{
	const char *x = getenv("XDG_RUNTIME_DIR");
	return scratch_ok(x, 1, bytes, files) ? x : scratch_ok("/dev/shm", 0, bytes, files) ? "/dev/shm" : NULL;
}

static const char *tmpdir_env(void)
{
	const char *t = getenv("TMPDIR");
	return t && *t ? t : NULL;
}

char *tmpdir_make_scratch(const char *prefix, unsigned long long bytes, unsigned long long files)
{
	const char *mem = tmpdir_env() ? NULL : memory_dir(bytes, files);
	char *d = mem ? tmpdir_make(mem, prefix) : NULL;
	return d ? d : tmpdir_make(NULL, prefix);
}

/* Where the last tmpdir_make() that failed tried, and why (tmpdir_strerror()). */
static char *fail_dir;   /* whole: a TMPDIR of any length is named as given */
static const char *fail_from;
static int fail_errno;

static void failed(const char *dir, const char *from, int e)
{
	free(fail_dir);
	fail_dir = xstrdup(dir);
	fail_from = from;
	fail_errno = e;
	errno = e;
}

const char *tmpdir_strerror(void)
{
	static char *msg;   /* the last answer, until the next call */
	if (!fail_errno)
		return "cannot create a temporary directory";
	free(msg);
	if (fail_errno == EMFILE && !fail_dir[0])
		msg = xstrdup("cannot create a temporary directory: too many at once");
	else
		msg = xasprintf("cannot create a temporary directory in '%s'%s%s%s: %s%s", fail_dir,
				fail_from ? " (" : "", fail_from ? fail_from : "", fail_from ? ")" : "",
				strerror(fail_errno),
				fail_from && !strcmp(fail_from, "TMPDIR") ? "; set TMPDIR to a directory you can write in" : "");
	return msg;
}

char *tmpdir_make(const char *dir, const char *prefix)
{
	char *t;
	sigset_t old;
	const char *from = NULL;
	int i;
	if (!dir) {
		from = tmpdir_env() ? "TMPDIR" : "the default, TMPDIR unset";
		dir = tmpdir_env() ? tmpdir_env() : "/tmp";
	}
	t = xasprintf("%s/%s.XXXXXX", dir, prefix);
	if (strlen(t) >= sizeof(dirs[0])) {
		free(t);
		failed(dir, from, ENAMETOOLONG);
		return NULL;
	}
	install();
	block(&old);
	for (i = 0; i < MAX_DIRS && used[i]; i++)
		;
	if (i == MAX_DIRS || !mkdtemp(t)) {
		int e = i == MAX_DIRS ? EMFILE : errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		free(t);
		failed(i == MAX_DIRS ? "" : dir, from, e);
		return NULL;
	}
	memcpy(dirs[i], t, strlen(t) + 1);
	used[i] = 1;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return t;
}

int tmpfile_make(char *templ)
{
	sigset_t old;
	int i, fd, e;
	if (strlen(templ) >= sizeof(dirs[0])) {
		errno = ENAMETOOLONG;
		return -1;
	}
	install();
	/* Blocked from creation to registration: no signal leaves it behind. */
	block(&old);
	for (i = 0; i < MAX_DIRS && used[i]; i++)
		;
	if (i == MAX_DIRS) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		errno = EMFILE;
		return -1;
	}
	fd = mkstemp(templ);
	e = errno;
	if (fd >= 0) {
		memcpy(dirs[i], templ, strlen(templ) + 1);
		used[i] = 1;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return fd;
}

void tmpdir_remove(const char *path)
{
	if (!path)
		return;
	rmtree(path);
	tmpdir_forget(path);
}

void tmpdir_forget(const char *path)
{
	sigset_t old;
	int i;
	block(&old);
	for (i = 0; i < MAX_DIRS; i++)
		if (used[i] && !strcmp(dirs[i], path))
			used[i] = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void tmpdir_child(pid_t pid, int add)
{
	sigset_t old;
	int i;
	block(&old);
	for (i = 0; i < MAX_KIDS; i++)
		if (add ? kids[i] == 0 : kids[i] == pid) {
			kids[i] = add ? pid : 0;
			break;
		}
	sigprocmask(SIG_SETMASK, &old, NULL);
}
