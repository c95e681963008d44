/* cmd/snapshot.c - `nodeaudit snapshot`: capture what probe reads, for replay elsewhere */
#include "config.h"
#include "audit/audit.h"
#include "cmd/cli.h"
#include "lib/output.h"
#include "read/snapshot.h"
#include "probe/sources.h"
#include "read/smbios.h"
#include "read/libpci.h"
#include "lib/tempdir.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/*
 * A snapshot is a sysroot: the files as they lie on the probed machine
 * (/proc/cpuinfo, /sys/devices/system/...), plus /nodeaudit/{arch,
 * collected_at,root,MANIFEST.json}.  It holds exactly
 *   - every file a probe read through the sysroot layer (ctx.sr.read[]);
 *   - the files hwloc's Linux backend reads for the same facts (it reads by
 *     itself, through HWLOC_FSROOT on replay): cpuinfo, meminfo, the CPU
 *     topology, cache and cpufreq attributes, the node directory;
 *   - what the extra captures below write.
 * Nothing else: no whole sysfs, so that a snapshot stays small (tens of KiB
 * on a small VM) and holds nothing the audit does not use.
 */

/* The sources outside sysfs/procfs (the CPUID dump, the PCI config space,
 * the SMBIOS table) come from the one table the probes use (probe/sources.c);
 * the staging directory is written, and the probed root copied into it, by
 * read/snapshot.c. */

/*** The manifest ***/

static cJSON *manifest_files;
static const char *manifest_stage;
static unsigned long long manifest_bytes;

static int manifest_entry(const char *fpath, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *rel = fpath + strlen(manifest_stage);
	cJSON *e;
	(void)ftw;
	if (flag != FTW_F && flag != FTW_SL && flag != FTW_SLN)
		return 0;
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "path", rel);
	if (S_ISLNK(st->st_mode)) {
		char buf[PATH_MAX];
		ssize_t r = readlink(fpath, buf, sizeof(buf) - 1);
		buf[r > 0 ? r : 0] = '\0';
		cJSON_AddStringToObject(e, "link", buf);
	} else {
		cJSON_AddNumberToObject(e, "size", (double)st->st_size);
		manifest_bytes += (unsigned long long)st->st_size;
	}
	cJSON_AddItemToArray(manifest_files, e);
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	return strcmp(cJSON_GetObjectItemCaseSensitive(x, "path")->valuestring,
		      cJSON_GetObjectItemCaseSensitive(y, "path")->valuestring);
}

static const char *fact_str(const cJSON *root, const char *path)
{
	const cJSON *v = facts_get(root, path);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* /nodeaudit/{arch,collected_at,root} and MANIFEST.json (written last:
 * it lists every other file). */
static int write_meta(struct probe_ctx *ctx, const char *stage, int argc, char **argv,
		      size_t *nfiles)
{
	const cJSON *root = ctx->facts.root, *rv;
	const char *arch = fact_str(root, "host.arch"), *when = fact_str(root, "host.collected_at");
	cJSON *m, *tool, *sorted;
	struct strbuf cl = STRBUF_INIT;
	char *text, *mpath;
	int i, r = 0, count;
	cJSON **items;

	if (arch)
		r |= snapshot_write_file(stage, "/nodeaudit/arch", arch, strlen(arch));
	if (when)
		r |= snapshot_write_file(stage, "/nodeaudit/collected_at", when, strlen(when));
	rv = facts_get(root, "host.root");
	if (cJSON_IsBool(rv))
		r |= snapshot_write_file(stage, "/nodeaudit/root", cJSON_IsTrue(rv) ? "1" : "0", 1);
	/* Live-only facts, as seen when the snapshot was taken. */
	rv = facts_get(root, "kernel.irqbalance");
	if (cJSON_IsBool(rv))
		r |= snapshot_write_file(stage, "/nodeaudit/irqbalance", cJSON_IsTrue(rv) ? "1" : "0", 1);
	{
		const char *g = fact_str(root, "process.mempolicy.get_mempolicy");
		const char *s = fact_str(root, "process.mempolicy.set_mempolicy");
		if (g && s) {
			char *t = xasprintf("get_mempolicy %s set_mempolicy %s\n", g, s);
			r |= snapshot_write_file(stage, "/nodeaudit/mempolicy", t, strlen(t));
			free(t);
		}
	}
	if (r)
		return -EIO;

	manifest_files = cJSON_CreateArray();
	manifest_stage = stage;
	manifest_bytes = 0;
	if (nftw(stage, manifest_entry, 16, FTW_PHYS) < 0) {
		cJSON_Delete(manifest_files);
		return -errno;
	}
	/* Sorted, so that two snapshots of one machine diff cleanly. */
	count = cJSON_GetArraySize(manifest_files);
	items = xcalloc((size_t)count + 1, sizeof(*items));
	for (i = 0; i < count; i++)
		items[i] = cJSON_DetachItemFromArray(manifest_files, 0);
	qsort(items, (size_t)count, sizeof(*items), entry_cmp);
	sorted = cJSON_CreateArray();
	for (i = 0; i < count; i++)
		cJSON_AddItemToArray(sorted, items[i]);
	free(items);
	cJSON_Delete(manifest_files);
	manifest_files = NULL;

	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "schema", "nodeaudit.snapshot/1");
	tool = cJSON_AddObjectToObject(m, "tool");
	cJSON_AddStringToObject(tool, "name", PACKAGE_NAME);
	cJSON_AddStringToObject(tool, "version", PACKAGE_VERSION);
	strbuf_addstr(&cl, "nodeaudit");
	for (i = 0; i < argc; i++) {
		strbuf_addstr(&cl, " ");
		strbuf_addstr(&cl, argv[i]);
	}
	cJSON_AddStringToObject(m, "command_line", cl.buf);
	strbuf_release(&cl);
	fj_str_or_null(m, "hostname", fact_str(root, "host.hostname"));
	fj_str_or_null(m, "arch", arch);
	fj_str_or_null(m, "collected_at", when);
	fj_bool_or_null(m, "root", cJSON_IsBool(rv) ? cJSON_IsTrue(rv) : -1);
	fj_str_or_null(m, "source", ctx->sr.live ? "live" : ctx->opts->sysroot);
	cJSON_AddNumberToObject(m, "file_count", count + 1);
	cJSON_AddNumberToObject(m, "total_bytes", (double)manifest_bytes);
	cJSON_AddItemToObject(m, "files", sorted);
	text = cJSON_Print(m);
	cJSON_Delete(m);
	if (!text)
		die("out of memory");
	mpath = xasprintf("%s\n", text);
	r = snapshot_write_file(stage, "/nodeaudit/MANIFEST.json", mpath, strlen(mpath));
	free(mpath);
	free(text);
	*nfiles = (size_t)count + 1;
	return r;
}

/*** Output: a directory or an archive ***/

static void remove_tree(const char *dir)
{
	tmpdir_remove(dir);
}

/* "z", "J", "j" or "" for an archive name; NULL for a directory. */
static const char *archive_kind(const char *p)
{
	if (str_endswith(p, ".tar.gz") || str_endswith(p, ".tgz"))
		return "z";
	if (str_endswith(p, ".tar.xz") || str_endswith(p, ".txz"))
		return "J";
	if (str_endswith(p, ".tar.bz2"))
		return "j";
	if (str_endswith(p, ".tar"))
		return "";
	return NULL;
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* 1 if path is under dir (both resolved), else 0. */
static int is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (!strcmp(dir, "/"))
		return 1;
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/* Refuse an output inside the sysroot being read (or the archive itself). */
static int check_not_in_sysroot(const char *out)
{
	const char *sys = G.probe.sysroot;
	char *rs, *parent, *rp;
	int bad = 0;
	if (!sys || !*sys || !strcmp(sys, "/"))
		return 0;
	rs = realpath(sys, NULL);
	parent = path_dirname(out);
	rp = realpath(parent, NULL);
	if (rs && rp) {
		struct stat st;
		char *full = xasprintf("%s/%s", rp, base_of(out));
		if (stat(rs, &st) == 0 && S_ISDIR(st.st_mode))
			bad = is_under(full, rs);
		else
			bad = strcmp(full, rs) ? 0 : 2;
		free(full);
	}
	free(rs);
	free(parent);
	free(rp);
	if (bad == 2)
		return error("refusing to overwrite the sysroot '%s'", sys);
	if (bad)
		return error("refusing to write '%s' inside the sysroot '%s'", out, sys);
	return 0;
}

static int run_tar(const char *kind, const char *archive, const char *stage)
{
	size_t i;
	char flag[8];
	char *argv[] = { "tar", flag, (char *)archive, "-C", (char *)stage, "--owner=0", "--group=0",
			 "--numeric-owner", ".", NULL };
	pid_t pid;
	int status, r;
	posix_spawnattr_t attr;
	sigset_t sigs, old;
	static const int caught[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE };
	snprintf(flag, sizeof(flag), "-c%sf", kind);
	/* tar is registered as a child before a signal can be handled: the
	 * handler kills it, then removes the partial archive and the stage. */
	sigemptyset(&sigs);
	for (i = 0; i < ARRAY_SIZE(caught); i++)
		sigaddset(&sigs, caught[i]);
	posix_spawnattr_init(&attr);
	sigprocmask(SIG_BLOCK, &sigs, &old);
	posix_spawnattr_setsigmask(&attr, &old);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	r = posix_spawnp(&pid, "tar", NULL, &attr, argv, environ);
	if (r == 0)
		tmpdir_child(pid, 1);
	sigprocmask(SIG_SETMASK, &old, NULL);
	posix_spawnattr_destroy(&attr);
	if (r != 0)
		return error("cannot write '%s': tar not found", archive);
	while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	tmpdir_child(pid, 0);
	if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return error("cannot write '%s': tar failed", archive);
	return 0;
}

static int dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int empty = 1;
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = 0;
			break;
		}
	closedir(d);
	return empty;
}

/*** The command ***/

/* A name that looks like an archive snapshot cannot write: its suffix, or NULL. */
static const char *unsupported_archive(const char *p)
{
	static const char *const sfx[] = { ".zip", ".7z", ".rar", ".tar.zst", ".tzst", ".zst", ".tar.lz4",
					    ".lz4", ".tar.lzma", ".lzma", ".tbz2", ".tbz", ".cpio", ".gz",
					    ".xz", ".bz2", ".jar", NULL };
	size_t i;
	for (i = 0; sfx[i]; i++)
		if (str_endswith(p, sfx[i]))
			return sfx[i];
	return NULL;
}

/*** The command ***/

/* What -o names, checked before anything is written: 0, or -1 after one line. */
static int check_output(const char *out, const char *kind, const char *parent)
{
	struct stat st;
	if (!strcmp(out, "/")) {
		error("refusing to write a snapshot into '/'");
		return -1;
	}
	if (check_not_in_sysroot(out) < 0)
		return -1;
	/* As every -o: a symbolic link is refused, not replaced or followed. */
	if (lstat(out, &st) == 0 && S_ISLNK(st.st_mode)) {
		error("cannot write '%s': it is a symbolic link; -o writes regular files and directories only", out);
		return -1;
	}
	if (stat(out, &st) == 0) {
		if (kind && !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
			error("cannot write '%s': it is not a regular file", out);
			return -1;
		}
		if (kind && S_ISDIR(st.st_mode)) {
			error("cannot write '%s': it is a directory", out);
			return -1;
		}
		if (!kind && !S_ISDIR(st.st_mode)) {
			error("cannot write '%s': it exists and is not a directory", out);
			return -1;
		}
		if (!kind && dir_is_empty(out) != 1) {
			error("refusing to write into '%s': it exists and is not empty", out);
			return -1;
		}
	}
	if (stat(parent, &st) < 0 || !S_ISDIR(st.st_mode)) {
		error("cannot write '%s': no directory '%s'", out, parent);
		return -1;
	}
	return 0;
}

/* Stage beside the output (a directory is then renamed into place); an
 * archive's staging directory is temporary, so it goes to TMPDIR. */
static char *make_stage(const char *out, const char *kind, const char *parent)
{
	/* Registered: removed on exit and on SIGINT/SIGTERM (lib/tempdir.h). */
	char *pre = kind ? NULL : xasprintf(".%s", base_of(out));
	char *stage = tmpdir_make(kind ? NULL : parent, kind ? "nodeaudit-snapshot" : pre);
	free(pre);
	return stage;
}

/* Everything a replay needs, into stage (ctx probed): 0, or -1 after one line. */
static int capture_all(struct probe_ctx *ctx, struct invocation *inv, const char *stage, size_t *nfiles)
{
	size_t i;
	/* A sysctl that only a custom profile names must replay too. */
	audit_read_all_profile_inputs(ctx);
	for (i = 0; i < SIDE__N; i++) {
		int r = side_capture(ctx, (enum side_id)i, stage);
		if (r < 0)
			debug("snapshot: %s not captured: %s", side_sources[i].name, sr_reason(r));
	}
	snapshot_capture_read_files(&ctx->sr, stage);
	snapshot_capture_hwloc_inputs(&ctx->sr, stage);
	if (write_meta(ctx, stage, inv->argc, inv->argv, nfiles) < 0) {
		error("cannot write '%s': %s", stage, strerror(errno));
		return -1;
	}
	return 0;
}

/* The archive: tar into a temporary file beside out, renamed over it.
 * *tmparp is that file while it is left to remove (by the caller, on
 * failure).  0, or -1 after one line. */
static int write_archive(const char *kind, const char *out, const char *parent, const char *stage,
			 char **tmparp)
{
	int fd;
	char *tmpar = xasprintf("%s/.%s.XXXXXX", parent, base_of(out));
	*tmparp = tmpar;
	/* Registered: removed on exit and on SIGTERM, SIGINT, SIGHUP. */
	fd = tmpfile_make(tmpar);
	if (fd < 0) {
		error("cannot write '%s': %s", out, strerror(errno));
		free(tmpar);
		*tmparp = NULL;
		return -1;
	}
	close(fd);
	if (run_tar(kind, tmpar, stage) < 0)
		return -1;
	chmod(tmpar, 0644);
	if (rename(tmpar, out) < 0) {
		error("cannot write '%s': %s", out, strerror(errno));
		return -1;
	}
	tmpdir_forget(tmpar);
	free(tmpar);
	*tmparp = NULL;
	return 0;
}

/* The directory: the stage renamed into place (*stagep NULL then).  0, or
 * -1 after one line. */
static int move_stage(char **stagep, const char *out)
{
	/* rename() replaces an empty directory atomically. */
	if (rename(*stagep, out) < 0) {
		error("cannot write '%s': %s", out, strerror(errno));
		return -1;
	}
	tmpdir_forget(*stagep);
	free(*stagep);
	*stagep = NULL;
	return 0;
}

static int snapshot_cmd(struct invocation *inv)
{
	struct probe_ctx ctx;
	const char *out, *kind, *bad;
	char *stage = NULL, *parent = NULL, *tmpar = NULL, *outbuf = NULL;
	size_t i, nfiles = 0;
	int ret = -1;

	(void)inv;
	if (!G.output || !*G.output || !strcmp(G.output, "-"))
		return usage_error("snapshot", "needs -o DIR or -o FILE.tar.gz");
	/* "snap/" is the directory "snap". */
	outbuf = xstrdup(G.output);
	for (i = strlen(outbuf); i > 1 && outbuf[i - 1] == '/'; i--)
		outbuf[i - 1] = '\0';
	out = outbuf;
	kind = archive_kind(out);
	if (!kind && (bad = unsupported_archive(out))) {
		error("cannot write '%s': '%s' is not an archive format snapshot writes (use a "
		      "directory name, or .tar, .tar.gz, .tgz, .tar.xz, .txz or .tar.bz2)", out, bad);
		free(outbuf);
		return -1;
	}
	parent = path_dirname(out);
	if (check_output(out, kind, parent) < 0)
		goto done;
	stage = make_stage(out, kind, parent);
	if (!stage) {
		error("cannot create the staging directory of '%s': %s", out, tmpdir_strerror());
		goto done;
	}
	chmod(stage, 0755);

	if (probe_run(&ctx, &G.probe, NULL) < 0)
		goto out;
	if (capture_all(&ctx, inv, stage, &nfiles) < 0)
		goto out;
	if (kind ? write_archive(kind, out, parent, stage, &tmpar) < 0 : move_stage(&stage, out) < 0)
		goto out;
	if (verbosity >= 0)
		printf("snapshot: %zu files in '%s'\n", nfiles, out);
	ret = EXIT_OK;
out:
	if (tmpar) {
		tmpdir_remove(tmpar);
		free(tmpar);
	}
	probe_release(&ctx);
done:
	if (stage) {
		remove_tree(stage);
		free(stage);
	}
	free(parent);
	free(outbuf);
	return ret;
}

const struct command cmd_snapshot = {
	.name = "snapshot",
	.summary = "capture what probe reads, for offline audit elsewhere",
	.synopsis = "-o DIR|FILE.tar.gz [OPTIONS]",
	.description =
		"Run every probe, then copy exactly the files they read (and those hwloc\n"
		"reads for the same facts, and every sysctl a profile in the search path\n"
		"names) into DIR, or into an archive (.tar.gz, .tgz, .tar.xz, .txz,\n"
		".tar.bz2, .tar) written atomically, with a manifest in\n"
		"/nodeaudit/MANIFEST.json.  'nodeaudit probe --sysroot DIR' then prints\n"
		"the same facts on any machine.  With --sysroot, re-snapshots a snapshot.\n"
		"Files that cannot be read (run as root for all) are left out.  -o names a\n"
		"new or empty directory, or an archive.\n",
	.min_operands = 0, .max_operands = 0,
	.flags = CMD_PROBES | CMD_OUTPUT_DEST,
	.run = snapshot_cmd,
};
