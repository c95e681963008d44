/* read/snapshot.h - writing a snapshot: helpers for the extra captures other modules add */
#ifndef NODEAUDIT_SNAPSHOT_H
#define NODEAUDIT_SNAPSHOT_H

#include <stddef.h>
#include "probe/probe.h"

/*
 * `nodeaudit snapshot` runs every probe, then copies into a staging
 * directory (the future sysroot) every file the probes read, the files
 * hwloc's Linux backend reads, and what each extra capture writes.  An extra
 * capture is registered with one line in `extra_captures[]` (cmd/snapshot.c):
 *
 *     { "smbios", memory_snapshot_smbios },
 *
 * where the function writes under `stage` at the fixed names that
 * `--sysroot` replays (nodeaudit(1) GLOBAL OPTIONS --smbios, --pci-dump, --cpuid-dump), e.g.
 * "/sys/firmware/dmi/tables/DMI" or "/nodeaudit/cpuid.raw", with
 * snapshot_write_file() or snapshot_copy().  It returns 0, or a negative
 * errno when the source could not be read (the file is then simply absent,
 * and the replay shows the same gap; snapshot only says so with -v).
 * ctx->sr.live tells whether this is the live machine or a re-snapshot.
 */
typedef int (*snapshot_capture_fn)(struct probe_ctx *ctx, const char *stage);

/* Write buf as the file `path` ("/nodeaudit/cpuid.raw") under stage,
 * creating its directories.  0 or -errno. */
int snapshot_write_file(const char *stage, const char *path, const void *buf, size_t len);
/* Copy `path` from the probed root (live or sysroot) to the same path under
 * stage; symbolic links on the way are recreated (relative, as stored).
 * 0 or -errno. */
int snapshot_copy(struct probe_ctx *ctx, const char *stage, const char *path);

#endif
