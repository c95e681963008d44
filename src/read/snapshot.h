/* read/snapshot.h - writing a snapshot: the staging directory and the copies from the probed root */
#ifndef NODEAUDIT_SNAPSHOT_H
#define NODEAUDIT_SNAPSHOT_H

#include <stddef.h>

struct sysroot;

/*
 * `nodeaudit snapshot` (cmd/snapshot.c) runs every probe, then copies into
 * a staging directory (the future sysroot) every file the probes read, the
 * files hwloc's Linux backend reads, and what each side source stores
 * (side_sources[] in probe/sources.c), at the fixed names that `--sysroot`
 * replays (nodeaudit(1) GLOBAL OPTIONS --smbios, --pci-dump, --cpuid-dump),
 * e.g. "/sys/firmware/dmi/tables/DMI" or "/nodeaudit/cpuid.raw", with
 * snapshot_write_file() or snapshot_copy().  A capture returns 0, or a
 * negative errno when the source could not be read (the file is then
 * simply absent, and the replay shows the same gap; snapshot only says so
 * with -v).  sr->live tells whether this is the live machine or a
 * re-snapshot.
 */

/* Write buf as the file `path` ("/nodeaudit/cpuid.raw") under stage,
 * creating its directories.  0 or -errno. */
int snapshot_write_file(const char *stage, const char *path, const void *buf, size_t len);
/* Copy `path` from the probed root (live or sysroot) to the same path under
 * stage; symbolic links on the way are recreated (relative, as stored).
 * 0 or -errno. */
int snapshot_copy(struct sysroot *sr, const char *stage, const char *path);

/* The files the probes read (sr->read[]), once each, minus the
 * /nodeaudit/ files snapshot writes itself. */
void snapshot_capture_read_files(struct sysroot *sr, const char *stage);
/* What hwloc's Linux backend reads for the objects we use: cpuinfo,
 * meminfo, the CPU and node directories, the DMI identity. */
void snapshot_capture_hwloc_inputs(struct sysroot *sr, const char *stage);

#endif
