/* read/smbios.h - a small bounds-checked SMBIOS (DMI) table parser */
#ifndef NODEAUDIT_SMBIOS_H
#define NODEAUDIT_SMBIOS_H

#include <stddef.h>
#include <stdint.h>

struct sysroot;

/*
 * Only what nodeaudit uses is decoded: types 0, 1, 2 (BIOS, system, board),
 * 4 (processor), 16 (physical memory array), 17 (memory device) and 19
 * (array mapped address).  Fields are decoded as dmidecode does, and only
 * when the structure is long enough to hold them (length, not the announced
 * version, decides: firmware often lies about the version).
 *
 * Every read is bounds-checked.  A damaged table (a structure length below
 * 4 or past the end, strings without their double-NUL terminator) is
 * refused as a whole with a one-line reason: a half-read table would give
 * wrong slot counts.  Zero bytes after the last structure are padding.
 */

#define SMBIOS_MAX_TABLE (16u << 20)

enum smbios_source { SMBIOS_SRC_NONE, SMBIOS_SRC_SM2, SMBIOS_SRC_SM3, SMBIOS_SRC_DMI, SMBIOS_SRC_ENTRIES };

struct smbios_array {             /* type 16 */
	uint16_t handle;
	int use;                  /* 3 = system memory */
	int ecc;                  /* error correction type, 0 = field absent */
	uint64_t max_bytes;       /* 0 = unknown */
	int devices;              /* -1 = unknown */
};

struct smbios_dimm {              /* type 17 */
	uint16_t handle, array_handle;
	char *locator, *bank, *manufacturer, *part;   /* NULL when absent */
	int installed;            /* 1 module, 0 empty slot, -1 unknown (size 0xFFFF) */
	uint64_t size_bytes;      /* when installed == 1 */
	int total_width, data_width;   /* bits, -1 unknown */
	int form_factor, type;    /* SMBIOS codes, 0 absent */
	int type_detail;          /* bit field, -1 absent */
	uint32_t speed, configured_speed;   /* MT/s, 0 unknown */
	int rank;                 /* 0 unknown */
};

struct smbios_proc {              /* type 4 */
	char *socket, *manufacturer, *version;
	int populated;            /* socket holds a CPU */
	int cores, threads;       /* -1 when the table does not say (SMBIOS < 2.5) */
};

struct smbios_info {
	enum smbios_source source;
	int major, minor;         /* version from the entry point (0.0 for entries) */
	char *bios_vendor, *bios_version, *bios_date;
	char *sys_vendor, *sys_product, *sys_version, *sys_family;
	char *board_vendor, *board_product, *board_version;
	int virtual_machine;      /* BIOS characteristics ext. byte 2 bit 4: 1/0, -1 unknown */
	struct smbios_array *arrays; size_t narrays;
	struct smbios_dimm *dimms; size_t ndimms;
	struct smbios_proc *procs; size_t nprocs;
	uint64_t mapped_bytes;    /* sum of type 19 ranges */
	size_t nmapped;
	size_t nstructs;
	unsigned seen;            /* bit T: a structure of type T (0-2) was decoded */
};

/* A `dmidecode --dump-bin` image: entry point at 0, table where the entry
 * point says (0x20).  0, or -1 with *err set (malloc'd, one line). */
int smbios_parse_dump(const uint8_t *buf, size_t len, struct smbios_info *out, char **err);
/* The kernel's split form: /sys/firmware/dmi/tables/smbios_entry_point and DMI
 * (the table starts at 0 of `table`). */
int smbios_parse_split(const uint8_t *ep, size_t eplen, const uint8_t *table, size_t tlen,
		       struct smbios_info *out, char **err);
/* Only the structure table; maxcount 0 = no limit. */
int smbios_parse_table(const uint8_t *t, size_t len, size_t maxcount, struct smbios_info *out,
		       char **err);
void smbios_free(struct smbios_info *s);

const char *smbios_mem_type(int code);       /* "DDR5", NULL for unknown */
const char *smbios_form_factor(int code);    /* "DIMM", "SODIMM", ... */
const char *smbios_ecc_mode(int code);       /* "none", "single-bit", ...; NULL unknown */

/* The hypervisor or cloud whose emulated firmware wrote these identity
 * strings (BIOS vendor and version, system vendor, product and family,
 * board vendor and product; any may be NULL), or NULL when none names one.
 * Bare-metal cloud instances ("m5.metal") name none. */
const char *smbios_hypervisor_of(const char *bios_vendor, const char *bios_version,
				 const char *sys_vendor, const char *sys_product,
				 const char *sys_family, const char *board_vendor,
				 const char *board_product);
/* The same for a whole table: its identity strings, the "virtual machine"
 * BIOS characteristic and the emulators' memory-device strings.  NULL when
 * the table shows no hypervisor; "virtual machine" when only the BIOS bit
 * says so. */
const char *smbios_hypervisor(const struct smbios_info *s);

/* Copy the SMBIOS tables into a snapshot directory as
 * DIR/sys/firmware/dmi/tables/{smbios_entry_point,DMI}: from smbios_file (a
 * --smbios dump) when given, else from the sysroot.  Returns 1 copied, 0
 * nothing to copy, -1 after printing one line. */
int smbios_snapshot(struct sysroot *sr, const char *smbios_file, const char *dir);

/* Read a whole file (a --smbios argument) with the SMBIOS size cap; 0 or
 * -errno (-EFBIG over the cap). */
int smbios_read_file(const char *path, uint8_t **buf, size_t *len);

#endif
