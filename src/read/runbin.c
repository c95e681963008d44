/* read/runbin.c - run a runtime's program with one argument and keep what it
 * prints (plan --runtime reads llama-server's --help to choose its syntax). */
#include "config.h"
#include "read/runbin.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OUT_CAP (1u << 20)

char *runbin_lookup(const char *name)
{
	const char *p = getenv("PATH"), *e;
	if (!p || !*name || strchr(name, '/'))
		return NULL;
	for (; *p; p = *e ? e + 1 : e) {
		struct stat st;
		char *c;
		size_t n;
		e = strchrnul(p, ':');
		n = (size_t)(e - p);
		/* An empty entry is the current directory: not searched here. */
		if (!n)
			continue;
		c = xasprintf("%.*s/%s", (int)n, p, name);
		if (stat(c, &st) == 0 && S_ISREG(st.st_mode) && access(c, X_OK) == 0)
			return c;
		free(c);
	}
	return NULL;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int runbin_capture(const char *path, const char *arg, unsigned timeout_s, char **out, int *status,
		   char **err)
{
	int fd[2], st = 0, timed_out = 0;
	pid_t pid;
	char *buf = xmalloc(OUT_CAP + 1);
	size_t len = 0;
	long long end = now_ms() + (long long)timeout_s * 1000;
	*out = NULL;
	*err = NULL;
	if (pipe2(fd, O_CLOEXEC) < 0) {
		*err = xasprintf("cannot run %s: %s", path, strerror(errno));
		free(buf);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		*err = xasprintf("cannot run %s: %s", path, strerror(errno));
		close(fd[0]);
		close(fd[1]);
		free(buf);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, 0) < 0 || dup2(fd[1], 1) < 0 || dup2(fd[1], 2) < 0)
			_exit(127);
		execl(path, path, arg, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	for (;;) {
		struct pollfd pf = { .fd = fd[0], .events = POLLIN };
		long long left = end - now_ms();
		char sink[4096];
		ssize_t r;
		if (left <= 0) {
			timed_out = 1;
			break;
		}
		r = poll(&pf, 1, (int)(left > 1000 ? 1000 : left));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		if (len < OUT_CAP)
			r = read(fd[0], buf + len, OUT_CAP - len);
		else
			r = read(fd[0], sink, sizeof(sink));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (len < OUT_CAP)
			len += (size_t)r;
	}
	close(fd[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	buf[len] = '\0';
	if (timed_out) {
		*err = xasprintf("'%s %s' did not end within %u s", path, arg, timeout_s);
		free(buf);
		return -1;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && !len) {
		*err = xasprintf("cannot run %s", path);
		free(buf);
		return -1;
	}
	if (WIFSIGNALED(st)) {
		*err = xasprintf("'%s %s' was killed by signal %d", path, arg, WTERMSIG(st));
		free(buf);
		return -1;
	}
	*status = WEXITSTATUS(st);
	*out = buf;
	return 0;
}
