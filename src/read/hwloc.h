/* read/hwloc.h - hwloc over a sysroot, fenced (see read/hwloc.c) */
#ifndef NODEAUDIT_SRC_HWLOC_H
#define NODEAUDIT_SRC_HWLOC_H

#include <hwloc.h>
#include "lib/facts.h"
#include "read/sysroot.h"

#define HW_MAX_NODES SR_MAX_NODES
#define HW_MAX_FILES 300000u           /* files in the private copy */
#define HW_MAX_BYTES (64u << 20)       /* bytes in the private copy */
#define HW_TIMEOUT_MS 5000             /* wall clock for hwloc's load */
#define HW_TICK_MS 20                  /* a FIFO's open() in the child gives up */
#define HW_MAX_DATA (512ul << 20)      /* its child's data segment (RLIMIT_DATA) */

/* Copy exactly the files hwloc's Linux backend reads from sr into the
 * empty directory dst: through the sysroot layer (in the root, regular
 * files only, capped; not recorded for `snapshot`), as plain files and
 * directories, skipping CPU and node names, lists and masks out of our
 * bounds (a gap under "cpu" says which).  0, or -E2BIG when the copy would
 * exceed HW_MAX_FILES or HW_MAX_BYTES, or another -errno. */
int hwloc_copy_inputs(struct sysroot *sr, const char *dst, struct facts *f);

/* Why sr cannot be handed to hwloc whole, written into buf (n bytes), or
 * NULL when it can: what hwloc trips on that the namespace fence does not
 * stop (a file our reads refused, a CPU or node list, name or processor
 * number out of bounds), judged from what the probes read already. */
const char *hwloc_not_plain(struct sysroot *sr, char *buf, size_t n);

/* The topology of a sysroot, loaded by hwloc in a child with a
 * wall-clock limit and handed back as XML: the live system as it is, any
 * other behind a user and mount namespace (read-only bind, chroot), or
 * from the copy above where that cannot be or the tree holds what hwloc
 * trips on (read/hwloc.c).  NULL with a gap under "cpu" naming hwloc and
 * the reason when it fails, aborts, crashes or stalls. */
hwloc_topology_t hwloc_load_sysroot(struct sysroot *sr, struct facts *f);

/* NULL when the libhwloc this run links is of the API nodeaudit was built
 * for (hwloc's own rule: the same major version as the headers); else why
 * not, one line. */
const char *hwloc_api_mismatch(void);

/* The CPUs this process may run on, as hwloc tells them: its binding,
 * else the topology's allowed CPUs, into out. */
void hwloc_allowed_cpus(hwloc_topology_t t, hwloc_bitmap_t out);

/* The filters every topology nodeaudit loads uses (live or not). */
void hwloc_set_filters(hwloc_topology_t t);

#endif
