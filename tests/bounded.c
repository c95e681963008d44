/* bounded.c - run a command under a wall-clock limit and say what it cost
 *
 * Usage: bounded -t SECONDS [-w DIR]... -r REPORT -- COMMAND [ARG]...
 * Runs COMMAND in its own process group, kills the group (SIGKILL) after
 * SECONDS, and writes to REPORT one line:
 *   wall_ms=N maxrss_kb=N opened=N timed_out=0|1
 * maxrss_kb is the peak resident set of COMMAND or of any descendant it
 * waited for (Linux folds reaped children into ru_maxrss).  opened counts
 * inotify IN_OPEN/IN_ACCESS events on the files in each -w DIR: bait
 * planted outside a sysroot must never be opened.  Exits with COMMAND's
 * status, 128+signal if it died of one, 124 if it ran out of time. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int main(int argc, char **argv)
{
	const char *report = NULL;
	double secs = 10;
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC), opt, st = 0, timed_out = 0, opened = 0;
	struct rusage ru;
	long start, end;
	pid_t pid;
	FILE *f;
	char buf[65536];
	ssize_t n;

	while ((opt = getopt(argc, argv, "+t:w:r:")) != -1) {
		switch (opt) {
		case 't':
			secs = atof(optarg);
			break;
		case 'w':
			if (in < 0 || inotify_add_watch(in, optarg, IN_OPEN | IN_ACCESS) < 0) {
				fprintf(stderr, "bounded: cannot watch '%s': %s\n", optarg, strerror(errno));
				return 99;
			}
			break;
		case 'r':
			report = optarg;
			break;
		default:
			return 99;
		}
	}
	if (optind >= argc || !report) {
		fprintf(stderr, "usage: bounded -t SECONDS [-w DIR]... -r REPORT -- COMMAND...\n");
		return 99;
	}
	start = now_ms();
	pid = fork();
	if (pid < 0)
		return 99;
	if (pid == 0) {
		setpgid(0, 0);
		execvp(argv[optind], argv + optind);
		_exit(127);
	}
	setpgid(pid, pid);
	for (;;) {
		pid_t w = wait4(pid, &st, WNOHANG, &ru);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return 99;
		if (now_ms() - start > (long)(secs * 1000)) {
			timed_out = 1;
			kill(-pid, SIGKILL);
			while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
				;
			break;
		}
		usleep(5000);
	}
	end = now_ms();
	kill(-pid, SIGKILL);   /* anything it left running */
	if (in >= 0)
		while ((n = read(in, buf, sizeof(buf))) > 0) {
			char *p = buf;
			while (p < buf + n) {
				struct inotify_event *ev = (struct inotify_event *)p;
				opened++;
				fprintf(stderr, "bounded: bait touched: %s\n", ev->len ? ev->name : "(the directory)");
				p += sizeof(*ev) + ev->len;
			}
		}
	f = fopen(report, "w");
	if (!f)
		return 99;
	fprintf(f, "wall_ms=%ld maxrss_kb=%ld opened=%d timed_out=%d\n", end - start, ru.ru_maxrss,
		opened, timed_out);
	fclose(f);
	if (timed_out)
		return 124;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
