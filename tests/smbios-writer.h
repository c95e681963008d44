/* smbios-writer.h - build SMBIOS tables byte by byte (tests and mksmbios) */
#ifndef NODEAUDIT_SMBIOS_WRITER_H
#define NODEAUDIT_SMBIOS_WRITER_H

#include <stddef.h>
#include <stdint.h>

struct sw {
	uint8_t *buf;             /* the structure table so far */
	size_t len, cap;
	unsigned nstructs, maxsize;
	/* the structure being built */
	uint8_t fmt[256];
	unsigned flen;
	char strs[4096];
	size_t slen;
	unsigned nstr;
};

void sw_init(struct sw *w);
void sw_release(struct sw *w);
/* Start a structure of `len` formatted bytes (header included). */
void sw_begin(struct sw *w, unsigned type, unsigned len, unsigned handle);
void sw_u8(struct sw *w, unsigned off, unsigned v);
void sw_u16(struct sw *w, unsigned off, unsigned v);
void sw_u32(struct sw *w, unsigned off, uint32_t v);
void sw_u64(struct sw *w, unsigned off, uint64_t v);
/* Add a string and store its number at off (0 and nothing added for NULL). */
void sw_str(struct sw *w, unsigned off, const char *s);
void sw_end(struct sw *w);
/* Append raw bytes to the table (for damaged tables). */
void sw_raw(struct sw *w, const void *p, size_t n);

/* A `dmidecode --dump-bin` image: entry point at 0, table at 0x20.
 * kind: "_SM3_", "_SM_" or "_DMI_".  malloc'd; *len set. */
uint8_t *sw_dump(const struct sw *w, const char *kind, int major, int minor, size_t *len);

/* The type 17 length SMBIOS major.minor defines. */
unsigned sw_type17_len(int major, int minor);

#endif
