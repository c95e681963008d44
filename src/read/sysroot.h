/* read/sysroot.h - the one read layer: every file a probe reads goes through here */
#ifndef NODEAUDIT_SYSROOT_H
#define NODEAUDIT_SYSROOT_H

#include <stddef.h>
#include <stdint.h>
#include <hwloc.h>

/*
 * A sysroot is "/" (live) or a directory (or an archive unpacked into a
 * temporary directory) written by `nodeaudit snapshot` or captured by hand.
 * Paths given to the sr_* functions are absolute paths as on the probed
 * machine ("/sys/devices/system/cpu/online"); the layer re-roots them,
 * refuses to leave the root through symbolic links (openat2 RESOLVE_IN_ROOT
 * where the kernel has it), refuses non-regular files (FIFOs would hang;
 * live /sys and /proc hold none, so a live read there skips the fstat),
 * caps sizes, and remembers every path it read so that `snapshot` can copy
 * exactly those files.
 *
 * All functions return 0 or a negative errno:
 *   -ENOENT  missing         -EACCES/-EPERM  permission denied
 *   -EINVAL  unparsable      -EFBIG  larger than the cap
 *   -ERANGE  number out of range    -EISDIR/-ENODEV  not a regular file
 */

#define SR_MAX_FILE (16u << 20)   /* bytes: /proc/cpuinfo of 1024 CPUs is ~1.5 MiB */
#define SR_MAX_CPUS 65536         /* highest CPU id + 1 accepted in lists */
/* Highest NUMA node id + 1: the kernel's MAX_NUMNODES at NODES_SHIFT 10,
 * its largest setting.  A list or a name beyond it is not a real node. */
#define SR_MAX_NODES 1024
/* An archive given as --sysroot: the sum of its members' sizes and its
 * number of entries.  A snapshot of a 1024-CPU machine is a few MiB and
 * some 60000 files; hwloc's and util-linux's test dumps are far smaller. */
#define SR_MAX_UNPACK_BYTES (128u << 20)
#define SR_MAX_UNPACK_FILES 200000u
/* The tar stream up to its end-of-archive blocks (headers and padding
 * included), as the decompressor hands it over, and the archive file
 * itself: a bound that holds whatever the headers claim. */
#define SR_MAX_UNPACK_STREAM (192u << 20)

struct sysroot {
	char *root;        /* "/" when live, else the directory (no trailing slash) */
	char *tmpdir;      /* an unpacked archive, removed by sysroot_close(); else NULL */
	int live;          /* 1 when probing this machine */
	int rootfd;        /* O_PATH descriptor of root */
	char **read;       /* paths read successfully, in order, each once */
	size_t nread, aread;
	struct sr_cache *cache;   /* what was read or listed, and how it ended */
	/* Reads refused as not a regular file (a FIFO, a device, a socket) or
	 * over the size cap: a sysroot with any is not handed to hwloc whole
	 * (read/hwloc.c). */
	size_t refused;
	/* 1 when rootfd is the sysroot's private read-only, nodev view
	 * (sysroot-cache.c: sr_make_view()), where no device can be opened. */
	int view;
};

/* dir NULL or "/" means the live system.  An archive (.tar, .tar.gz, .tgz,
 * .tar.xz) is unpacked into a private temporary directory first.  On
 * failure prints one line and returns -1. */
int sysroot_open(struct sysroot *sr, const char *dir);
void sysroot_close(struct sysroot *sr);

/* The path as the host sees it (for libraries that read by themselves:
 * hwloc's HWLOC_FSROOT, libpci's sysfs.path); malloc'd. */
char *sr_hostpath(const struct sysroot *sr, const char *path);

/* Whole file, NUL-terminated, at most SR_MAX_FILE bytes; *len may be NULL.
 * A file is read once per run: a second sr_read() of the same path (and
 * sr_list() of the same directory, sr_exists(), sr_is_dir()) answers from
 * what the first one got, failures included, so every probe sees the same
 * bytes and no file costs its system calls twice. */
int sr_read(struct sysroot *sr, const char *path, char **buf, size_t *len);
/* The same without a copy: *buf points into the run's cache (read-only,
 * NUL-terminated, valid until sysroot_close()): for a large file read by
 * several probes (/proc/cpuinfo of many CPUs). */
int sr_read_view(struct sysroot *sr, const char *path, const char **buf, size_t *len);
/* The same, read again now (volatile values: MemAvailable, the load
 * average), and not kept. */
int sr_read_fresh(struct sysroot *sr, const char *path, char **buf, size_t *len);
/* The same, not recorded as read (so not copied by `snapshot`): for the
 * private copy of hwloc's inputs. */
int sr_read_unrecorded(struct sysroot *sr, const char *path, char **buf, size_t *lenp);
/* First line, white space squashed ("1024\t65535\n" -> "1024 65535"); malloc'd. */
int sr_read_str(struct sysroot *sr, const char *path, char **out);
int sr_read_u64(struct sysroot *sr, const char *path, uint64_t *v);
int sr_read_s64(struct sysroot *sr, const char *path, int64_t *v);
/* A descriptor (>= 0) on a regular file inside the root, for bounded
 * pread()s of binary attributes; not recorded.  Close it. */
int sr_open_file(struct sysroot *sr, const char *path);
/* Kernel CPU list ("0-3,8,10-11") or hex mask ("ff,0000000f") into set. */
int sr_read_cpulist(struct sysroot *sr, const char *path, hwloc_bitmap_t set);
int sr_read_cpumask(struct sysroot *sr, const char *path, hwloc_bitmap_t set);
/* 1 if path exists (file, directory or link to one), else 0.  Not recorded. */
int sr_exists(struct sysroot *sr, const char *path);
int sr_is_dir(struct sysroot *sr, const char *path);
/* Directory entries (no "." or ".."), sorted in natural order ("cpu2" before
 * "cpu10"); free with sr_free_list().  At most 1<<20 entries. */
int sr_list(struct sysroot *sr, const char *dir, char ***names, size_t *n);
void sr_free_list(char **names, size_t n);
/* Target of a symbolic link (as stored, not re-rooted); malloc'd. */
int sr_readlink(struct sysroot *sr, const char *path, char **out);
/* The same, recorded for snapshot (the link and the links on its way). */
int sr_readlink_recorded(struct sysroot *sr, const char *path, char **out);

/* Parsers the read functions use, exposed for tests and other sources. */
int parse_cpulist(const char *s, hwloc_bitmap_t set);
int parse_cpumask(const char *s, hwloc_bitmap_t set);
/* The set as a list, "0-3,8" (hwloc's list syntax), whole however long
 * (every other CPU of 4096 is 9.7 KB); "" for an empty set.  Free it. */
char *cpulist_dup(hwloc_const_bitmap_t set);

#endif
