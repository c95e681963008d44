/* test-sysroot.c - the read layer: parsing, re-rooting, refusals, gaps */
#include "config.h"
#include "read/sysroot.h"
#include "read/path.h"
#include "lib/facts.h"
#include "lib/tempdir.h"
#include "lib/util.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#ifdef HAVE_SYS_SYSCALL_H
#include <sys/syscall.h>
#endif

static char root[256];

static void put(const char *rel, const char *content)
{
	char path[512], *slash;
	FILE *f;
	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	fputs(content, f);
	fclose(f);
}

/* cpulist_dup() of set compared with want, freed. */
static void is_list(hwloc_const_bitmap_t set, const char *want, const char *name)
{
	char *l = cpulist_dup(set);
	is_str(l, want, "%s", name);
	free(l);
}

static void test_parsers(void)
{
	hwloc_bitmap_t s = hwloc_bitmap_alloc();
	is_int(parse_cpulist("0-3,8,10-11\n", s), 0, "cpulist parses");
	is_list(s, "0-3,8,10-11", "cpulist round trip");
	is_int(hwloc_bitmap_weight(s), 7, "cpulist weight");
	is_int(parse_cpulist("", s), 0, "empty cpulist is an empty set");
	is_int(hwloc_bitmap_weight(s), 0, "empty set has no CPU");
	is_int(parse_cpulist("3-1", s), -EINVAL, "reversed range refused");
	is_int(parse_cpulist("0-4294967295", s), -ERANGE, "absurd range refused");
	is_int(parse_cpulist("0,,x", s), -EINVAL, "garbage refused");
	is_int(parse_cpulist("-1", s), -EINVAL, "negative refused");
	is_int(parse_cpumask("00000000,0000000f\n", s), 0, "cpumask parses");
	is_list(s, "0-3", "cpumask low word");
	is_int(parse_cpumask("1,00000000", s), 0, "cpumask two words");
	is_list(s, "32", "cpumask high word is CPU 32");
	is_int(parse_cpumask("zz", s), -EINVAL, "bad cpumask refused");
	/* Whole however long: every other CPU of 4096 is 9,684 bytes (the
	 * lists were written into buffers of 256 to 8,192 bytes). */
	hwloc_bitmap_zero(s);
	{
		unsigned c;
		size_t want = 0;
		char *l;
		for (c = 0; c < 4096; c += 2) {
			hwloc_bitmap_set(s, c);
			want += (c < 10 ? 1 : c < 100 ? 2 : c < 1000 ? 3 : 4) + (c ? 1 : 0);
		}
		l = cpulist_dup(s);
		is_int(strlen(l), want, "a list of 2,048 CPUs whole (9,684 bytes)");
		ok(!strncmp(l, "0,2,4,", 6) && !strcmp(l + strlen(l) - 10, ",4092,4094"), "from its first CPU to its last");
		free(l);
	}
	hwloc_bitmap_free(s);
}

static void test_numbers(void)
{
	uint64_t u;
	int64_t i;
	is_int(parse_u64(" 42\n", &u), 0, "u64 with white space");
	is_int(u, 42, "u64 value");
	is_int(parse_u64("-1", &u), -EINVAL, "negative is not a u64");
	is_int(parse_u64("99999999999999999999999", &u), -ERANGE, "u64 overflow");
	is_int(parse_u64("12abc", &u), -EINVAL, "trailing garbage");
	is_int(parse_s64("-5", &i), 0, "s64 negative");
	is_int(i, -5, "s64 value");
}

static void test_reads(void)
{
	struct sysroot sr;
	char *s, **names;
	size_t n;
	uint64_t u;
	char path[512];

	snprintf(root, sizeof(root), "/tmp/nodeaudit-test-XXXXXX");
	if (!mkdtemp(root)) {
		ok(0, "mkdtemp");
		return;
	}
	put("/sys/a/value", "  1024\t65535 \n");
	put("/sys/a/num", "17\n");
	put("/sys/a/bad", "seventeen\n");
	put("/sys/a/binary", "ab\001cd\n");
	put("/sys/dir/cpu10", "");
	{
		char p[512];
		FILE *f;
		snprintf(p, sizeof(p), "%s/sys/a/nul", root);
		f = fopen(p, "w");
		fwrite("perf\0\001", 1, 6, f);
		fclose(f);
		/* kernels 5.14-5.15 and hwloc-gather-topology captures */
		snprintf(p, sizeof(p), "%s/sys/a/cpulist-nul", root);
		f = fopen(p, "w");
		fwrite("0-31\n\0", 1, 6, f);
		fclose(f);
		snprintf(p, sizeof(p), "%s/sys/a/cpumask-nul", root);
		f = fopen(p, "w");
		fwrite("ffffffff,00000000\n\0", 1, 19, f);
		fclose(f);
	}
	put("/sys/dir/cpu2", "");
	put("/sys/dir/cpu1", "");
	put("/etc/secret", "host file\n");
	snprintf(path, sizeof(path), "%s/sys/a/fifo", root);
	mkfifo(path, 0644);
	snprintf(path, sizeof(path), "%s/sys/a/escape", root);
	if (symlink("/etc/hostname", path) < 0)
		ok(0, "symlink");
	snprintf(path, sizeof(path), "%s/sys/a/loop", root);
	if (symlink("loop", path) < 0)
		ok(0, "symlink");

	ok(sysroot_open(&sr, root) == 0, "open sysroot");
	ok(!sr.live, "a directory is not live");
	is_int(sr_read_str(&sr, "/sys/a/value", &s), 0, "read str");
	is_str(s, "1024 65535", "white space squashed");
	free(s);
	is_int(sr_read_u64(&sr, "/sys/a/num", &u), 0, "read u64");
	is_int(u, 17, "u64 value");
	is_int(sr_read_u64(&sr, "/sys/a/bad", &u), -EINVAL, "unparsable u64 is -EINVAL");
	is_int(sr_read_str(&sr, "/sys/a/binary", &s), -EINVAL, "control characters refused");
	is_int(sr_read_str(&sr, "/sys/a/nul", &s), -EINVAL, "an embedded NUL is refused");
	{
		hwloc_bitmap_t set = hwloc_bitmap_alloc();
		is_int(sr_read_cpulist(&sr, "/sys/a/cpulist-nul", set), 0,
		       "a cpulist ending in a NUL parses up to it (as the kernel's parser)");
		is_list(set, "0-31", "0-31\\n\\0 is CPUs 0-31");
		is_int(sr_read_cpumask(&sr, "/sys/a/cpumask-nul", set), 0, "a cpumask ending in a NUL parses");
		is_list(set, "32-63", "its CPUs");
		hwloc_bitmap_free(set);
	}
	is_int(sr_read_str(&sr, "/sys/a/missing", &s), -ENOENT, "missing is -ENOENT");
	is_str(sr_reason(-ENOENT), "missing", "reason for missing");
	is_str(sr_reason(-EACCES), "permission denied (run as root)", "reason for EACCES");
	is_int(sr_read_str(&sr, "/sys/a/fifo", &s), -ENODEV, "a FIFO is refused, not read (would hang)");
	is_int(sr_read_str(&sr, "/sys/a", &s), -EISDIR, "a directory is refused");
	ok(sr_read_str(&sr, "/sys/a/escape", &s) < 0, "an absolute symlink cannot leave the sysroot");
	is_int(sr_read_str(&sr, "/sys/a/loop", &s), -ELOOP, "a symlink loop is ELOOP");
	is_int(sr_list(&sr, "/sys/dir", &names, &n), 0, "list");
	is_int(n, 3, "three entries");
	if (n == 3) {
		is_str(names[0], "cpu1", "natural order 1");
		is_str(names[1], "cpu2", "natural order 2");
		is_str(names[2], "cpu10", "natural order 3");
	}
	sr_free_list(names, n);
	ok(sr.nread >= 2, "reads are recorded for snapshot");

	/* Each path is read once a run: a change on disk after the first
	 * read is not seen by a second sr_read (every probe sees the same
	 * bytes), but is by sr_read_fresh; failures are remembered too. */
	{
		size_t before = sr.nread, len = 0;
		char big[20000], *b = NULL;
		put("/sys/a/num", "18\n");
		is_int(sr_read_u64(&sr, "/sys/a/num", &u), 0, "second read");
		is_int(u, 17, "a second read answers what the first one got");
		is_int(sr.nread, before, "a second read is not recorded again");
		is_int(sr_read_fresh(&sr, "/sys/a/num", &s, NULL), 0, "fresh read");
		is_str(s, "18\n", "a fresh read sees the file now");
		free(s);
		put("/sys/a/missing", "1\n");
		is_int(sr_read_str(&sr, "/sys/a/missing", &s), -ENOENT, "a missing file stays missing");
		ok(!sr_exists(&sr, "/sys/a/missing") , "sr_exists answers from the failed read");
		ok(sr_is_dir(&sr, "/sys/dir"), "sr_is_dir answers from the listing");
		put("/sys/dir/cpu3", "");
		is_int(sr_list(&sr, "/sys/dir", &names, &n), 0, "second listing");
		is_int(n, 3, "a second listing answers what the first one got");
		sr_free_list(names, n);
		/* Larger than the first read's buffer: read whole. */
		memset(big, 'x', sizeof(big) - 2);
		big[sizeof(big) - 2] = '\n';
		big[sizeof(big) - 1] = '\0';
		put("/sys/a/big", big);
		is_int(sr_read(&sr, "/sys/a/big", &b, &len), 0, "read a large file");
		is_int(len, sizeof(big) - 1, "a large file is read whole");
		free(b);
		is_int(sr_read(&sr, "/sys/a/big", &b, &len), 0, "read a large file again");
		is_int(len, sizeof(big) - 1, "the copy is whole too");
		ok(b && b[len] == '\0' && b[len - 1] == '\n', "the copy is terminated");
		free(b);
	}
	sysroot_close(&sr);
	{
		char cmd[300];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			ok(0, "cleanup");
	}
}

static int open_fds(void)
{
	char **names;
	size_t n;
	struct sysroot live;
	int k;
	if (sysroot_open(&live, "/") < 0 || sr_list(&live, "/proc/self/fd", &names, &n) < 0)
		return -1;
	sr_free_list(names, n);
	sysroot_close(&live);
	k = (int)n;
	return k;
}

/* Files below a directory the read layer has listed or asked about
 * (sr_list(), sr_is_dir()): every answer is the root's, links leaving that
 * directory included, and no descriptor is held between reads.  (The read
 * layer once kept 64 directory descriptors and opened files relative to
 * them, a trick that saved no measurable time.) */
static void test_below_dirs(void)
{
	struct sysroot sr;
	char *s, **names, path[512];
	size_t n;
	uint64_t u;
	int i, fds0 = open_fds();

	snprintf(root, sizeof(root), "/tmp/nodeaudit-test-XXXXXX");
	if (!mkdtemp(root)) {
		ok(0, "mkdtemp");
		return;
	}
	put("/sys/cpu/cpu0/topology/core_id", "3\n");
	put("/sys/cpu/cpu0/topology/thread_siblings_list", "0-1\n");
	put("/sys/cpu/cpufreq/policy0/max", "2000\n");
	put("/sys/cpu/other/f", "other\n");
	put("/etc/hostname", "in the root\n");
	for (i = 0; i < 80; i++) {
		snprintf(path, sizeof(path), "/sys/many/d%d/v", i);
		put(path, i % 2 ? "1\n" : "0\n");
	}
	{
		static const char *const links[][2] = {
			{ "/sys/cpu/cpu0/cpufreq", "../cpufreq/policy0" },   /* a directory link up */
			{ "/sys/cpu/cpu0/topology/up", "../../other/f" },    /* a file link up */
			{ "/sys/cpu/cpu0/topology/abs", "/sys/cpu/other/f" },
			{ "/sys/cpu/cpu0/topology/host", "/etc/hostname" },  /* the root's, not the host's */
			{ "/sys/cpu/cpu0/topology/deep", "../../../../../../../etc/hostname" },
		};
		size_t k;
		for (k = 0; k < sizeof(links) / sizeof(links[0]); k++) {
			snprintf(path, sizeof(path), "%s%s", root, links[k][0]);
			if (symlink(links[k][1], path) < 0)
				ok(0, "symlink %s", links[k][0]);
		}
	}
	ok(sysroot_open(&sr, root) == 0, "open sysroot");
	is_int(sr_list(&sr, "/sys/cpu/cpu0/topology", &names, &n), 0, "list a directory");
	sr_free_list(names, n);
	is_int(sr_read_u64(&sr, "/sys/cpu/cpu0/topology/core_id", &u), 0, "a file below it");
	is_int(u, 3, "its value");
	s = NULL;
	is_int(sr_read_str(&sr, "/sys/cpu/cpu0/topology/up", &s), 0, "a link leaving the directory, up");
	is_str(s, "other", "resolved as from the root");
	free(s);
	s = NULL;
	is_int(sr_read_str(&sr, "/sys/cpu/cpu0/topology/abs", &s), 0, "an absolute link");
	is_str(s, "other", "resolved inside the root");
	free(s);
	s = NULL;
	is_int(sr_read_str(&sr, "/sys/cpu/cpu0/topology/host", &s), 0, "an absolute link to /etc");
	is_str(s, "in the root", "the root's /etc, never the host's");
	free(s);
	s = NULL;
	is_int(sr_read_str(&sr, "/sys/cpu/cpu0/topology/deep", &s), 0, "a link with more .. than levels");
	is_str(s, "in the root", "stops at the root");
	free(s);
	is_int(sr_read_str(&sr, "/sys/cpu/cpu0/topology/missing", &s), -ENOENT, "missing below a listed directory");
	is_int(sr_read_str(&sr, "/sys/cpu/cpu0/topology/missing/x", &s), -ENOENT, "below a missing name");
	is_int(sr_read_str(&sr, "/sys/cpu/cpu0/topology/core_id/x", &s), -ENOTDIR, "below a file");
	/* cpu0 asked, then a file through its cpufreq link. */
	ok(sr_is_dir(&sr, "/sys/cpu/cpu0"), "sr_is_dir");
	is_int(sr_read_u64(&sr, "/sys/cpu/cpu0/cpufreq/max", &u), 0, "through a directory link that leaves it");
	is_int(u, 2000, "its value");
	ok(sr_is_dir(&sr, "/sys/cpu/cpu0/cpufreq"), "the link is a directory");
	is_int(sr_read_str(&sr, "/sys/cpu/cpu0/cpufreq/missing", &s), -ENOENT, "missing in the link's target");
	/* Many directories asked: every answer stays right, no descriptor
	 * held. */
	for (i = 0; i < 80; i++) {
		snprintf(path, sizeof(path), "/sys/many/d%d", i);
		if (!sr_is_dir(&sr, path))
			break;
	}
	is_int(i, 80, "80 directories");
	for (i = 0; i < 80; i++) {
		snprintf(path, sizeof(path), "/sys/many/d%d/v", i);
		if (sr_read_u64(&sr, path, &u) < 0 || u != (uint64_t)(i % 2))
			break;
	}
	is_int(i, 80, "a file in each");
	if (fds0 >= 0)
		ok(open_fds() <= fds0 + 1, "no directory descriptor held, only the root's (%d before)", fds0);
	sysroot_close(&sr);
	if (fds0 >= 0)
		is_int(open_fds(), fds0, "sysroot_close() closes every descriptor");
	{
		char cmd[300];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			ok(0, "cleanup");
	}
}

/* Many CPUs' files of one shape, the first CPU's (the model) first; every
 * answer right: a value, an empty file, a file larger than a page, a
 * missing name, a FIFO and a directory where a file is expected (refused
 * as not regular files), a link inside the root, a device node (root
 * only: on the private nodev view it is not even opened); directories
 * asked with sr_is_dir() and sr_exists(); nothing recorded for snapshot
 * until asked. */
static void test_cpu_files(void)
{
	struct sysroot sr;
	char path[512], big[3001], *s;
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
	size_t nread0;
	uint64_t u;
	int i, r;
	snprintf(root, sizeof(root), "/tmp/nodeaudit-test-XXXXXX");
	if (!mkdtemp(root)) {
		ok(0, "mkdtemp");
		return;
	}
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put("/etc/hostname", "in the root\n");
	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "/sys/cpu/cpu%d/topology/core_id", i);
		if (i == 5) {
			snprintf(path, sizeof(path), "%s/sys/cpu/cpu%d/topology/core_id/x", root, i);
			put(path + strlen(root), "a directory where a file was\n");
		} else {
			char v[16];
			snprintf(v, sizeof(v), "%d\n", i);
			put(path, v);
		}
		snprintf(path, sizeof(path), "/sys/cpu/cpu%d/online", i);
		put(path, "");
		snprintf(path, sizeof(path), "/sys/cpu/cpu%d/big", i);
		put(path, big);
		snprintf(path, sizeof(path), "%s/sys/cpu/cpu%d/fifo", root, i);
		if (i == 3 ? mkfifo(path, 0644) < 0 : (put(path + strlen(root), "plain\n"), 0))
			ok(0, "mkfifo");
		snprintf(path, sizeof(path), "%s/sys/cpu/cpu%d/link", root, i);
		if (symlink("/etc/hostname", path) < 0)
			ok(0, "symlink");
		snprintf(path, sizeof(path), "/sys/cpu/cpu%d/cache/index0/level", i);
		put(path, "1\n");
		hwloc_bitmap_set(cpus, (unsigned)i);
	}
	snprintf(path, sizeof(path), "%s/sys/cpu/cpu6/topology/core_id", root);
	if (geteuid() == 0 && (unlink(path) < 0 || mknod(path, S_IFCHR | 0644, makedev(1, 5)) < 0))
		ok(0, "mknod");
	ok(sysroot_open(&sr, root) == 0, "open sysroot");
	is_int(sr_read_u64(&sr, "/sys/cpu/cpu0/topology/core_id", &u), 0, "the model's value");
	s = NULL;
	is_int(sr_read_str(&sr, "/sys/cpu/cpu0/missing", &s), -ENOENT, "the model's missing name");
	for (const char *const *f = (const char *const[]){ "online", "big", "fifo", "link", NULL }; *f; f++) {
		snprintf(path, sizeof(path), "/sys/cpu/cpu0/%s", *f);
		r = sr_read(&sr, path, &s, NULL);
		free(s);
		s = NULL;
		ok(r == 0, "the model's %s", *f);
	}
	ok(sr_is_dir(&sr, "/sys/cpu/cpu0/cache"), "the model's cache directory");
	ok(!sr_is_dir(&sr, "/sys/cpu/cpu0/cpufreq"), "the model has no cpufreq directory");
	ok(sr_exists(&sr, "/sys/cpu/cpu0/cache/index0"), "the model's index0");
	nread0 = sr.nread;
	for (i = 1; i < 8; i++) {
		snprintf(path, sizeof(path), "/sys/cpu/cpu%d/topology/core_id", i);
		r = sr_read_u64(&sr, path, &u);
		if (i == 5)
			is_int(r, -EISDIR, "cpu%d: a directory for a file is not a regular file", i);
		else if (i == 6 && geteuid() == 0)
			is_int(r, -ENODEV, "cpu%d: a device node is not a regular file", i);
		else {
			is_int(r, 0, "cpu%d: its value read", i);
			is_int(u, i, "cpu%d: the value", i);
		}
		snprintf(path, sizeof(path), "/sys/cpu/cpu%d/missing", i);
		is_int(sr_read_str(&sr, path, &s), -ENOENT, "cpu%d: missing", i);
		snprintf(path, sizeof(path), "/sys/cpu/cpu%d/online", i);
		ok(sr_read(&sr, path, &s, NULL) == 0 && !*s, "cpu%d: an empty file is empty", i);
		free(s);
		s = NULL;
		snprintf(path, sizeof(path), "/sys/cpu/cpu%d/big", i);
		ok(sr_read(&sr, path, &s, NULL) == 0 && !strcmp(s, big), "cpu%d: a file larger than a page, whole", i);
		free(s);
		s = NULL;
		snprintf(path, sizeof(path), "/sys/cpu/cpu%d/fifo", i);
		r = sr_read_str(&sr, path, &s);
		if (i == 3)
			is_int(r, -ENODEV, "cpu%d: a FIFO is refused, not read", i);
		else
			ok(r == 0 && !strcmp(s, "plain"), "cpu%d: the regular file beside it", i);
		free(s);
		s = NULL;
		snprintf(path, sizeof(path), "/sys/cpu/cpu%d/link", i);
		ok(sr_read_str(&sr, path, &s) == 0 && !strcmp(s, "in the root"), "cpu%d: a link, inside the root", i);
		free(s);
		s = NULL;
		snprintf(path, sizeof(path), "/sys/cpu/cpu%d/cache", i);
		ok(sr_is_dir(&sr, path), "cpu%d: sr_is_dir of a directory", i);
		snprintf(path, sizeof(path), "/sys/cpu/cpu%d/cpufreq", i);
		ok(!sr_is_dir(&sr, path), "cpu%d: sr_is_dir of a missing one", i);
		snprintf(path, sizeof(path), "/sys/cpu/cpu%d/cache/index0", i);
		ok(sr_exists(&sr, path), "cpu%d: sr_exists", i);
	}
	ok(sr.nread > nread0, "the files asked for are recorded");
	sysroot_close(&sr);
	hwloc_bitmap_free(cpus);
	{
		char cmd[300];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			ok(0, "cleanup");
	}
}

static void test_facts(void)
{
	struct facts f;
	cJSON *cpu;
	facts_init(&f);
	cpu = facts_obj(&f, "cpu.smt");
	cJSON_AddBoolToObject(cpu, "active", 1);
	ok(cJSON_IsTrue(facts_get(f.root, "cpu.smt.active")), "dotted get");
	facts_gap_read(&f, "cpu.kinds", "/sys/x", -ENOENT);
	facts_gap_read(&f, "cpu.kinds", "/sys/x", -ENOENT);
	is_int(cJSON_GetArraySize(f.gaps), 1, "duplicate gaps folded");
	facts_evidence(&f, "cpu.smt.active", "/sys/devices/system/cpu/smt/active");
	facts_evidence(&f, "cpu.smt.active", "/sys/devices/system/cpu/smt/active");
	is_int(cJSON_GetArraySize(cJSON_GetObjectItem(f.evidence, "cpu.smt.active")), 1, "evidence deduplicated");
	facts_release(&f);
}

/* Where tmpdir_make_scratch(prefix, bytes, 1) made its directory, less the
 * ".XXXXXX" name: the parent, in buf.  The directory is removed. */
static const char *scratch_at(unsigned long long bytes, char *buf, size_t n)
{
	char *d = tmpdir_make_scratch("test-scratch", bytes, 1), *slash;
	if (!d)
		return "(none)";
	snprintf(buf, n, "%s", d);
	tmpdir_remove(d);
	free(d);
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	return buf;
}

/* tmpdir_make_scratch(): TMPDIR first; unset, a tmpfs XDG_RUNTIME_DIR of
 * the user's own with mode 0700, then /dev/shm when it is a tmpfs with
 * room, else /tmp, which is also where it goes when the chosen directory
 * cannot hold the new one. */
static void test_scratch(void)
{
	char *old_tmp = getenv("TMPDIR") ? xstrdup(getenv("TMPDIR")) : NULL;
	char *old_xdg = getenv("XDG_RUNTIME_DIR") ? xstrdup(getenv("XDG_RUNTIME_DIR")) : NULL;
	char buf[4096], own[4096], *t, *d = NULL;
	struct statfs fs;
	struct stat st;
	int shm = statfs("/dev/shm", &fs) == 0 && (unsigned long)fs.f_type == 0x01021994 &&
		  stat("/dev/shm", &st) == 0 && (st.st_mode & S_ISVTX) && access("/dev/shm", W_OK | X_OK) == 0;
	const char *mem = shm ? "/dev/shm" : "/tmp";
	unsetenv("TMPDIR");
	t = tmpdir_make("/tmp", "test-tmpdir");
	setenv("TMPDIR", t, 1);
	is_str(scratch_at(1, buf, sizeof(buf)), t, "scratch: TMPDIR wins");
	is_str(scratch_at(~0ull >> 1, buf, sizeof(buf)), t, "scratch: TMPDIR wins, whatever the room");
	unsetenv("TMPDIR");
	tmpdir_remove(t);
	free(t);
	unsetenv("XDG_RUNTIME_DIR");
	is_str(scratch_at(1, buf, sizeof(buf)), mem, "scratch: no TMPDIR: %s", mem);
	is_str(scratch_at(~0ull >> 1, buf, sizeof(buf)), "/tmp", "scratch: no tmpfs has 8 EiB free: /tmp");
	setenv("XDG_RUNTIME_DIR", "relative", 1);
	is_str(scratch_at(1, buf, sizeof(buf)), mem, "scratch: a relative XDG_RUNTIME_DIR is not used");
	setenv("XDG_RUNTIME_DIR", "/", 1);
	is_str(scratch_at(1, buf, sizeof(buf)), mem, "scratch: an XDG_RUNTIME_DIR that is not a tmpfs is not used");
	if (shm) {
		d = tmpdir_make("/dev/shm", "test-scratch-xdg");
		ok(d != NULL, "scratch: a directory in /dev/shm");
	}
	if (d) {
		size_t l;
		int fd;
		setenv("XDG_RUNTIME_DIR", d, 1);
		is_str(scratch_at(1, buf, sizeof(buf)), d, "scratch: a tmpfs XDG_RUNTIME_DIR of mode 0700, ours");
		chmod(d, 0755);
		is_str(scratch_at(1, buf, sizeof(buf)), "/dev/shm", "scratch: not at mode 0755");
		chmod(d, 0700);
		if (geteuid() == 0 && chown(d, 65534, 65534) == 0) {
			is_str(scratch_at(1, buf, sizeof(buf)), "/dev/shm", "scratch: not a directory of another user's");
			if (chown(d, 0, 0) < 0)
				ok(0, "scratch: chown back");
		}
		/* A regular file of mode 0700 is no directory. */
		snprintf(own, sizeof(own), "%s/file", d);
		fd = open(own, O_WRONLY | O_CREAT | O_EXCL, 0700);
		if (fd >= 0)
			close(fd);
		setenv("XDG_RUNTIME_DIR", own, 1);
		is_str(scratch_at(1, buf, sizeof(buf)), "/dev/shm", "scratch: an XDG_RUNTIME_DIR that is a file");
		/* One whose new directory's name would pass PATH_MAX: chosen (a
		 * tmpfs of mode 0700, ours), mkdtemp() refused there, so /tmp. */
		snprintf(own, sizeof(own), "%s", d);
		for (l = strlen(own); l < 4090; l = strlen(own)) {
			size_t c = 4090 - l - 1 < 200 ? 4090 - l - 1 : 200;
			own[l] = '/';
			memset(own + l + 1, 'd', c);
			own[l + 1 + c] = '\0';
			if (mkdir(own, 0700) < 0)
				break;
		}
		setenv("XDG_RUNTIME_DIR", own, 1);
		is_str(scratch_at(1, buf, sizeof(buf)), "/tmp", "scratch: no room for the name there: /tmp (%zu bytes)",
		       strlen(own));
		tmpdir_remove(d);
		free(d);
	}
	if (old_tmp)
		setenv("TMPDIR", old_tmp, 1);
	if (old_xdg)
		setenv("XDG_RUNTIME_DIR", old_xdg, 1);
	else
		unsetenv("XDG_RUNTIME_DIR");
	free(old_tmp);
	free(old_xdg);
}

/* read/path.c: names under a directory, and a member with its evidence
 * or its gap under one key. */
static void test_path_cxt(void)
{
	struct sysroot sr;
	struct facts f;
	struct path_cxt pc;
	cJSON *o, *g;
	uint64_t v = 0;
	char *s = NULL, longname[600], cmd[300];
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	snprintf(root, sizeof(root), "/tmp/nodeaudit-test-XXXXXX");
	if (!mkdtemp(root)) {
		ok(0, "mkdtemp");
		return;
	}
	put("/sys/devices/system/node/node3/size", "2048\n");
	put("/sys/devices/system/node/node3/name", "  fast \t mem\n");
	put("/sys/devices/system/node/node3/empty", "\n");
	put("/sys/devices/system/node/node3/bad", "many\n");
	put("/sys/devices/system/node/node3/cpulist", "0-3,8\n");
	put("/proc/top", "7\n");
	if (sysroot_open(&sr, root) < 0) {
		ok(0, "sysroot_open");
		return;
	}
	facts_init(&f);
	o = facts_obj(&f, "numa");
	pc_init(&pc, &sr, &f);
	pc_setdir(&pc, "/sys/devices/system/node/node%u", 3u);
	pc_setobj(&pc, o, "numa.nodes[%d]", 3);
	is_str(pc_fact(&pc, "size"), "numa.nodes[3].size", "the fact path is the object's and the key");
	is_str(pc_name(&pc, "x%d", 1), "/sys/devices/system/node/node3/x1", "a name is under the directory");
	is_str(pc_name(&pc, "/proc/%s", "top"), "/proc/top", "an absolute name is not");

	is_int(pc_u64_fact(&pc, "size", 1024, &v, "size"), 0, "u64 fact read");
	is_int(v, 2048, "the number read is kept");
	is_int((long long)cJSON_GetObjectItem(o, "size")->valuedouble, 2048 * 1024, "member set, scaled");
	g = cJSON_GetObjectItem(f.evidence, "numa.nodes[3].size");
	is_str(g ? cJSON_GetArrayItem(g, 0)->valuestring : NULL, "/sys/devices/system/node/node3/size",
	       "its evidence is the file");

	is_int(pc_str_fact(&pc, "name", &s, "name"), 0, "string fact read");
	is_str(s, "fast mem", "white space squashed");
	is_str(cJSON_GetObjectItem(o, "name")->valuestring, "fast mem", "member set");
	free(s);

	is_int(pc_str_fact(&pc, "empty", NULL, "empty"), -EINVAL, "an empty value is no string fact");
	ok(cJSON_IsNull(cJSON_GetObjectItem(o, "empty")), "its member is null");
	is_int(pc_u64_fact(&pc, "bad", 1, NULL, "bad"), -EINVAL, "a word is no number");
	is_int(pc_u64_fact(&pc, "gone", 1, NULL, "missing"), -ENOENT, "a missing file");
	ok(cJSON_IsNull(cJSON_GetObjectItem(o, "gone")), "its member is null");
	is_int(pc_list_fact(&pc, "cpus", set, "cpulist"), 0, "list fact read");
	is_str(cJSON_GetObjectItem(o, "cpus")->valuestring, "0-3,8", "as a list");
	is_int(hwloc_bitmap_weight(set), 5, "the set is kept");
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	is_int(pc_u64_fact(&pc, "long", 1, NULL, "%s", longname), -ENAMETOOLONG,
	       "a name too long is refused, never truncated");
	is_int(pc_read_u64(&pc, &v, "%s", longname), -ENAMETOOLONG, "the same for a plain read");
	{
		struct path_cxt d = pc;
		pc_setdir(&d, "/sys/%s", longname);
		is_int(pc_read_u64(&d, &v, "size"), -ENAMETOOLONG, "a directory too long is not cut either");
		is_int(pc_read_u64(&d, &v, "/proc/top"), 0, "an absolute name is still read");
		pc_setdir(&d, "/sys/devices/system/node/node3");
		is_int(pc_read_u64(&d, &v, "size"), 0, "a directory that fits again");
	}
	{
		const char *want[] = {
			"numa.nodes[3].empty", "/sys/devices/system/node/node3/empty: unparsable",
			"numa.nodes[3].bad", "/sys/devices/system/node/node3/bad: unparsable",
			"numa.nodes[3].gone", "/sys/devices/system/node/node3/missing: missing",
			"numa.nodes[3].long", "(a path too long): File name too long",
		};
		size_t i;
		is_int(cJSON_GetArraySize(f.gaps), 4, "one gap per failed fact");
		for (i = 0; i < 4; i++) {
			cJSON *gap = cJSON_GetArrayItem(f.gaps, (int)i);
			is_str(fj_get_str(gap, "fact"), want[2 * i], "gap %zu names the fact", i);
			is_str(fj_get_str(gap, "reason"), want[2 * i + 1], "gap %zu names the file and why", i);
		}
	}
	pc_setobj_in(&pc, o, "numa.list");
	is_str(pc_fact(&pc, "size"), "numa.list", "an entry of a list: its members' facts are the list's");
	pc_setobj(&pc, o, "numa");
	is_str(pc_fact(&pc, "size"), "numa.size", "and back");
	pc_setobj(&pc, o, "kernel.sysctl");
	is_str(pc_fact(&pc, "vm.swappiness"), "kernel.sysctl.\"vm.swappiness\"",
	       "a key with dots of its own is quoted");
	pc_setobj_quoted(&pc, o, "kernel.sysctl");
	is_str(pc_fact(&pc, "vm swappiness"), "kernel.sysctl.\"vm swappiness\"",
	       "every key of a quoted object is");
	{
		/* A key from outside (a profile's sysctl name) longer than
		 * pc->fact: its fact path whole, never cut, freed by pc_release(). */
		char key[700], *want;
		memset(key, 'a', sizeof(key) - 1);
		key[sizeof(key) - 1] = '\0';
		memcpy(key, "net.", 4);
		want = xasprintf("kernel.sysctl.\"%s\"", key);
		is_str(pc_fact(&pc, key), want, "a 699-byte key: its fact path whole (%zu bytes)", strlen(want));
		is_str(pc_fact(&pc, key), want, "asked again, the same");
		is_str(pc_fact(&pc, "vm.swappiness"), "kernel.sysctl.\"vm.swappiness\"", "a short one after it");
		pc_release(&pc);
		ok(!pc.fact_long, "pc_release() frees it");
		free(want);
	}
	pc_init(&pc, &sr, NULL);
	is_int(pc_read_u64(&pc, &v, "/proc/top"), 0, "a context without facts reads");
	is_int(v, 7, "the value");
	is_int(pc_u64_fact(&pc, "x", 1, NULL, "/proc/none"), -ENOENT, "and records nothing");
	is_int(cJSON_GetArraySize(f.gaps), 4, "no gap more");
	{
		char big[1500];
		cJSON *gap;
		memset(big, 'r', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		pc_init(&pc, &sr, &f);
		pc_gap(&pc, "long_reason", "%s", big);
		gap = cJSON_GetArrayItem(f.gaps, cJSON_GetArraySize(f.gaps) - 1);
		is_int(strlen(fj_get_str(gap, "reason")), sizeof(big) - 1, "a long reason is kept whole");
	}

	hwloc_bitmap_free(set);
	facts_release(&f);
	sysroot_close(&sr);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		ok(0, "cleanup");
}

int main(void)
{
	test_parsers();
	test_numbers();
	test_reads();
	test_below_dirs();
	test_cpu_files();
	test_facts();
	test_path_cxt();
	test_scratch();
	return done_testing();
}
