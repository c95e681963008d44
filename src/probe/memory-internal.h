/* probe/memory-internal.h - what the memory probe's files share: its sources, slots, channels, EDAC DIMMs */
#ifndef NODEAUDIT_MEMORY_INTERNAL_H
#define NODEAUDIT_MEMORY_INTERNAL_H

#include <stdint.h>
#include "lib/facts.h"
#include "lib/output.h"
#include "probe/memory.h"
#include "read/smbios.h"

struct probe_ctx;

/*** Small JSON helpers ***/

static inline void add_str(cJSON *o, const char *k, const char *v)
{
	fj_str_or_null(o, k, v);
}

static inline void add_u64(cJSON *o, const char *k, int has, uint64_t v)
{
	fj_num_or_null(o, k, has, (double)v);
}

enum src_kind { SRC_NONE, SRC_DUMP, SRC_TABLES, SRC_ENTRIES };

struct memsrc {
	enum src_kind kind;
	const char *path;         /* for evidence */
	struct smbios_info info;
	int have;
};

struct slot {
	const struct smbios_dimm *d;
	struct mem_loc loc;
	int has_chan;
	int pkg;          /* index, -1 unknown */
	int ch;           /* index into channels, -1 unknown */
};

struct channel {
	char pkglabel[16], label[32];
	int pkg;
	int slots, dimms;
	uint64_t bytes;
	int type;                 /* -1 mixed */
	uint32_t mts;             /* slowest DIMM's speed used */
	int used_rated;
	int width;                /* bytes per transfer */
	int speed_unknown;
};

struct edac_dimm {
	char mc[16], location[64], label[64];
	uint64_t bytes;
};

struct memstate {
	struct edac_dimm *ed;     /* populated EDAC DIMMs */
	size_t ned;
	int npackages;            /* -1 unknown */
	const char *src_path;     /* the SMBIOS source, for reasons */
	const char *pkg_source;
	const char *ecc_mode;     /* chosen */
	const char *ecc_source;
	const char *edac_mode;
	int edac_present;
};

/* memory-smbios.c */
/* 0 loaded or gap noted in *why; -1: a bad --smbios file (message printed). */
int mem_load_smbios(struct probe_ctx *ctx, struct memsrc *m, char **why);
void mem_other_machine(struct probe_ctx *ctx, const struct memsrc *m);
void mem_platform_facts(struct probe_ctx *ctx, const struct memsrc *m);
int mem_is_virtual(struct probe_ctx *ctx, const struct smbios_info *s);
const char *mem_vm_name(const struct smbios_info *s);

/* memory-dimms.c */
int mem_cmp_label(const char *a, const char *b);
int mem_dimm_ecc(const struct smbios_dimm *d);
void mem_null_channels(struct probe_ctx *ctx, cJSON *mem, const char *fmt, const char *arg);
void mem_dimm_facts(struct probe_ctx *ctx, cJSON *mem, const struct memsrc *m, struct memstate *st);

/* memory-edac.c */
void mem_ecc_facts(struct probe_ctx *ctx, cJSON *mem, const struct memsrc *m, struct memstate *st);
int mem_edac_channels(struct probe_ctx *ctx, cJSON *mem, struct memstate *st);

#endif
