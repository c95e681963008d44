/* probe/sources.h - the probe inputs besides sysfs and procfs, in one table */
#ifndef NODEAUDIT_SOURCES_H
#define NODEAUDIT_SOURCES_H

#include <stddef.h>

struct probe_ctx;   /* probe/probe.h */

/*
 * A side source is a dump with a format of its own (pciutils' struct
 * pci_methods is the model: one row per backend).  Each has the option that
 * names a file of it, the fixed name of its copy in a snapshot, one size
 * cap for every copy of it, and the capture of the live machine's.  The
 * probes ask the table where their input comes from (the option's file,
 * else the snapshot's copy, else the live machine), snapshot stores it from
 * the same rows, so the two cannot drift apart.
 */
enum side_id { SIDE_CPUID, SIDE_PCI, SIDE_SMBIOS, SIDE__N };

struct side_source {
	const char *name;            /* "cpuid" */
	const char *option;          /* "--cpuid-dump" */
	size_t opt_offset;           /* of the option's path in struct probe_opts */
	const char *snapshot_path;   /* its copy in a snapshot; NULL: capture() stores it */
	size_t max_bytes;            /* the cap for a file of it */
	/* Store this machine's (or, with snapshot_path NULL, any) copy under stage:
	 * 0, -ENOTSUP when this machine has none, or -errno. */
	int (*capture)(struct probe_ctx *ctx, const char *stage);
};
extern const struct side_source side_sources[SIDE__N];

/* The file the option names, or NULL. */
const char *side_option(const struct probe_ctx *ctx, enum side_id id);
/* Read the option's file whole, within the cap, never blocking on a FIFO
 * or device: 0, or a negative errno (-EFBIG over the cap). */
int side_read_option(const struct probe_ctx *ctx, enum side_id id, char **buf, size_t *len);
/* 1 when a sysroot (not live, no option given) holds the snapshot's copy. */
int side_in_snapshot(struct probe_ctx *ctx, enum side_id id);
/* snapshot: store the source under stage, from the option's file, the
 * snapshot's copy or the live machine, whichever the probe used. */
int side_capture(struct probe_ctx *ctx, enum side_id id, const char *stage);

#endif
