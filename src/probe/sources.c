/* probe/sources.c - the probe inputs besides sysfs and procfs: cpuid, pci, smbios */
#include "config.h"
#include "probe/sources.h"
#include "probe/probe.h"   /* struct probe_ctx, struct probe_opts */
#include "read/libcpuid.h"   /* cpu_snapshot_cpuid() */
#include "read/smbios.h"
#include "read/snapshot.h"
#include "read/libpci.h"
#include "lib/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int capture_cpuid_live(struct probe_ctx *ctx, const char *stage)
{
	char *path;
	int r;
	(void)ctx;
	r = snapshot_write_file(stage, "/nodeaudit/cpuid.raw", "", 0);
	if (r < 0)
		return r;
	path = xasprintf("%s/nodeaudit/cpuid.raw", stage);
	r = cpu_snapshot_cpuid(path);
	if (r < 0)
		unlink(path);
	free(path);
	return r < 0 ? -ENOTSUP : 0;
}

static int capture_pci_live(struct probe_ctx *ctx, const char *stage)
{
	return pci_snapshot(&ctx->sr, stage);
}

/* The SMBIOS table is stored at the sysfs names it is read from
 * (/sys/firmware/dmi/tables/{smbios_entry_point,DMI}), from --smbios's file
 * or the firmware's: smbios_snapshot() takes either. */
static int capture_smbios(struct probe_ctx *ctx, const char *stage)
{
	return smbios_snapshot(&ctx->sr, ctx->opts ? ctx->opts->smbios : NULL, stage);
}

const struct side_source side_sources[SIDE__N] = {
	[SIDE_CPUID] = { "cpuid", "--cpuid-dump", offsetof(struct probe_opts, cpuid_dump),
			 "/nodeaudit/cpuid.raw", SR_MAX_FILE, capture_cpuid_live },
	[SIDE_PCI] = { "pci", "--pci-dump", offsetof(struct probe_opts, pci_dump),
		       "/nodeaudit/pci.dump", SR_MAX_FILE, capture_pci_live },
	[SIDE_SMBIOS] = { "smbios", "--smbios", offsetof(struct probe_opts, smbios),
			  NULL, SMBIOS_MAX_TABLE + 0x20, capture_smbios },
};

const char *side_option(const struct probe_ctx *ctx, enum side_id id)
{
	if (!ctx->opts)
		return NULL;
	return *(const char *const *)((const char *)ctx->opts + side_sources[id].opt_offset);
}

int side_read_option(const struct probe_ctx *ctx, enum side_id id, char **buf, size_t *len)
{
	const char *path = side_option(ctx, id);
	if (!path)
		return -ENOENT;
	return read_file_capped(path, side_sources[id].max_bytes, buf, len);
}

int side_in_snapshot(struct probe_ctx *ctx, enum side_id id)
{
	const struct side_source *s = &side_sources[id];
	return s->snapshot_path && !side_option(ctx, id) && !ctx->sr.live &&
	       sr_exists(&ctx->sr, s->snapshot_path);
}

int side_capture(struct probe_ctx *ctx, enum side_id id, const char *stage)
{
	const struct side_source *s = &side_sources[id];
	char *buf;
	size_t len;
	int r;
	if (!s->snapshot_path)
		return s->capture(ctx, stage);
	if (side_option(ctx, id)) {
		r = side_read_option(ctx, id, &buf, &len);
		if (r < 0)
			return r;
		r = snapshot_write_file(stage, s->snapshot_path, buf, len);
		free(buf);
		return r;
	}
	if (!ctx->sr.live)
		return side_in_snapshot(ctx, id) ? snapshot_copy(&ctx->sr, stage, s->snapshot_path) : -ENOENT;
	return s->capture(ctx, stage);
}
