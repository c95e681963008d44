/* read/smbios.c - a small bounds-checked SMBIOS (DMI) table parser */
#include "config.h"
#include "read/smbios.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned rd8(const uint8_t *p) { return p[0]; }
static unsigned rd16(const uint8_t *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static int fail(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(char **err, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;
	char buf[256];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	strbuf_addstr(&sb, buf);
	if (err) {
		free(*err);
		*err = strbuf_detach(&sb);
	} else
		strbuf_release(&sb);
	return -1;
}

static int checksum_ok(const uint8_t *p, size_t n)
{
	uint8_t sum = 0;
	size_t i;
	for (i = 0; i < n; i++)
		sum = (uint8_t)(sum + p[i]);
	return sum == 0;
}

/* One structure: formatted area [p, p+len), strings after it. */
struct sm_struct {
	unsigned type, len, handle;
	const uint8_t *p;
	const char *strings;      /* first string, or the terminating NUL pair */
	const char *end;          /* one past the double NUL */
};

/* String number n (1-based) of s, squashed, non-printables as '.'; NULL for
 * 0, a missing string, or one that is blank. */
static char *sm_string(const struct sm_struct *s, unsigned off)
{
	unsigned n, i;
	const char *q = s->strings;
	char *r, *c;
	if (off >= s->len)
		return NULL;
	n = rd8(s->p + off);
	if (n == 0)
		return NULL;
	for (i = 1; i < n; i++) {
		size_t l = strnlen(q, (size_t)(s->end - q));
		if (l == 0)
			return NULL;     /* ran into the terminator */
		q += l + 1;
		if (q >= s->end)
			return NULL;
	}
	if (q >= s->end || !*q)
		return NULL;
	r = xstrndup(q, strnlen(q, (size_t)(s->end - q)));
	for (c = r; *c; c++)
		if ((unsigned char)*c < 32 || (unsigned char)*c == 127)
			*c = '.';
	strsquash(r);
	if (!*r) {
		free(r);
		return NULL;
	}
	return r;
}

#define HAS(s, off, n) ((s)->len >= (unsigned)(off) + (n))

static void decode_bios(struct smbios_info *o, const struct sm_struct *s)
{
	if (o->seen & (1u << 0))
		return;
	o->seen |= 1u << 0;
	o->bios_vendor = sm_string(s, 0x04);
	o->bios_version = sm_string(s, 0x05);
	o->bios_date = sm_string(s, 0x08);
	/* Characteristics extension byte 2, bit 4: "system is a virtual machine" (2.4+). */
	if (HAS(s, 0x13, 1))
		o->virtual_machine = (rd8(s->p + 0x13) >> 4) & 1;
}

static void decode_system(struct smbios_info *o, const struct sm_struct *s)
{
	if (o->seen & (1u << 1))
		return;
	o->seen |= 1u << 1;
	o->sys_vendor = sm_string(s, 0x04);
	o->sys_product = sm_string(s, 0x05);
	o->sys_version = sm_string(s, 0x06);
	if (HAS(s, 0x1A, 1))
		o->sys_family = sm_string(s, 0x1A);
}

static void decode_board(struct smbios_info *o, const struct sm_struct *s)
{
	if (o->seen & (1u << 2))
		return;
	o->seen |= 1u << 2;
	o->board_vendor = sm_string(s, 0x04);
	o->board_product = sm_string(s, 0x05);
	o->board_version = sm_string(s, 0x06);
}

static void decode_proc(struct smbios_info *o, const struct sm_struct *s)
{
	struct smbios_proc *c;
	if (!HAS(s, 0x19, 1))
		return;
	o->procs = xrealloc(o->procs, (o->nprocs + 1) * sizeof(*o->procs));
	c = &o->procs[o->nprocs++];
	memset(c, 0, sizeof(*c));
	c->socket = sm_string(s, 0x04);
	c->manufacturer = sm_string(s, 0x07);
	c->version = sm_string(s, 0x10);
	c->populated = (rd8(s->p + 0x18) >> 6) & 1;
	c->cores = c->threads = -1;
	if (HAS(s, 0x26, 0)) {   /* 2.5: core and thread counts */
		if (rd8(s->p + 0x23))
			c->cores = (int)rd8(s->p + 0x23);
		if (rd8(s->p + 0x25))
			c->threads = (int)rd8(s->p + 0x25);
	}
	if (HAS(s, 0x30, 0)) {   /* 3.0: 16-bit counts when the byte says 0xFF */
		if (c->cores == 0xFF && rd16(s->p + 0x2A))
			c->cores = (int)rd16(s->p + 0x2A);
		if (c->threads == 0xFF && rd16(s->p + 0x2E))
			c->threads = (int)rd16(s->p + 0x2E);
	}
}

static void decode_array(struct smbios_info *o, const struct sm_struct *s)
{
	struct smbios_array *a;
	uint32_t max;
	if (!HAS(s, 0x0F, 0))
		return;
	o->arrays = xrealloc(o->arrays, (o->narrays + 1) * sizeof(*o->arrays));
	a = &o->arrays[o->narrays++];
	memset(a, 0, sizeof(*a));
	a->handle = (uint16_t)s->handle;
	a->use = (int)rd8(s->p + 0x05);
	a->ecc = (int)rd8(s->p + 0x06);
	max = rd32(s->p + 0x07);
	if (max == 0x80000000u && HAS(s, 0x17, 0))
		a->max_bytes = rd64(s->p + 0x0F);
	else if (max != 0x80000000u)
		a->max_bytes = (uint64_t)max * 1024;
	a->devices = (int)rd16(s->p + 0x0D);
}

static void decode_dimm(struct smbios_info *o, const struct sm_struct *s)
{
	struct smbios_dimm *d;
	unsigned size, w;
	if (!HAS(s, 0x15, 0))    /* 2.1 minimum: up to type detail */
		return;
	o->dimms = xrealloc(o->dimms, (o->ndimms + 1) * sizeof(*o->dimms));
	d = &o->dimms[o->ndimms++];
	memset(d, 0, sizeof(*d));
	d->handle = (uint16_t)s->handle;
	d->array_handle = (uint16_t)rd16(s->p + 0x04);
	w = rd16(s->p + 0x08);
	d->total_width = w == 0xFFFF || w == 0 ? -1 : (int)w;
	w = rd16(s->p + 0x0A);
	d->data_width = w == 0xFFFF || w == 0 ? -1 : (int)w;
	size = rd16(s->p + 0x0C);
	if (size == 0) {
		d->installed = 0;
	} else if (size == 0xFFFF) {
		d->installed = -1;
	} else if (size == 0x7FFF && HAS(s, 0x20, 0)) {
		/* 2.7 extended size: bits 0-30 in MiB */
		uint32_t ext = rd32(s->p + 0x1C) & 0x7FFFFFFFu;
		d->installed = ext ? 1 : -1;
		d->size_bytes = (uint64_t)ext << 20;
	} else {
		d->installed = 1;
		d->size_bytes = size & 0x8000 ? (uint64_t)(size & 0x7FFF) << 10
					      : (uint64_t)size << 20;
	}
	d->form_factor = (int)rd8(s->p + 0x0E);
	d->locator = sm_string(s, 0x10);
	d->bank = sm_string(s, 0x11);
	d->type = (int)rd8(s->p + 0x12);
	d->type_detail = (int)rd16(s->p + 0x13);
	if (HAS(s, 0x17, 0)) {
		unsigned sp = rd16(s->p + 0x15);
		if (sp == 0xFFFF && HAS(s, 0x58, 0))
			d->speed = rd32(s->p + 0x54) & 0x7FFFFFFFu;
		else if (sp != 0xFFFF)
			d->speed = sp;
	}
	if (HAS(s, 0x1B, 0)) {
		d->manufacturer = sm_string(s, 0x17);
		d->part = sm_string(s, 0x1A);
	}
	if (HAS(s, 0x1C, 0))
		d->rank = (int)(rd8(s->p + 0x1B) & 0x0F);
	if (HAS(s, 0x22, 0)) {
		unsigned sp = rd16(s->p + 0x20);
		if (sp == 0xFFFF && HAS(s, 0x5C, 0))
			d->configured_speed = rd32(s->p + 0x58) & 0x7FFFFFFFu;
		else if (sp != 0xFFFF)
			d->configured_speed = sp;
	}
	/* Firmware that leaves an empty slot's size at "unknown" but names
	 * it so is common enough: trust the words. */
	if (d->installed != 1 && d->part && strstr(d->part, "NO DIMM"))
		d->installed = 0;
}

static void decode_mapped(struct smbios_info *o, const struct sm_struct *s)
{
	uint64_t start, end;
	if (!HAS(s, 0x0F, 0))
		return;
	start = rd32(s->p + 0x04);
	end = rd32(s->p + 0x08);
	if (start == 0xFFFFFFFFu && HAS(s, 0x1F, 0)) {
		start = rd64(s->p + 0x0F);
		end = rd64(s->p + 0x17);
		if (end < start)
			return;
		o->mapped_bytes += end - start + 1;
	} else {
		if (end < start)
			return;
		o->mapped_bytes += (end - start + 1) << 10;
	}
	o->nmapped++;
}

int smbios_parse_table(const uint8_t *t, size_t len, size_t maxcount, struct smbios_info *o,
		       char **err)
{
	size_t off = 0, n = 0;
	while (off < len && (!maxcount || n < maxcount)) {
		struct sm_struct s;
		const uint8_t *q;
		size_t rest = len - off, i;
		if (rest < 4) {
			for (i = off; i < len && !t[i]; i++)
				;
			if (i == len)
				break;
			return fail(err, "structure at offset 0x%zx cut short (%zu bytes of a 4-byte header)", off, rest);
		}
		s.type = t[off];
		s.len = t[off + 1];
		s.handle = rd16(t + off + 2);
		s.p = t + off;
		if (s.len < 4) {
			for (i = off; i < len && !t[i]; i++)
				;
			if (i == len)
				break;   /* zero padding after the last structure */
			return fail(err, "structure at offset 0x%zx (type %u) has length %u (at least 4)",
				    off, s.type, s.len);
		}
		if (s.len > rest)
			return fail(err, "structure at offset 0x%zx (type %u, length %u) runs past the end of the table (%zu bytes)",
				    off, s.type, s.len, len);
		/* The string set ends with two NULs. */
		q = t + off + s.len;
		for (i = off + s.len; i + 1 < len; i++)
			if (!t[i] && !t[i + 1])
				break;
		if (i + 1 >= len)
			return fail(err, "strings of structure at offset 0x%zx (type %u) have no terminator before the end of the table",
				    off, s.type);
		s.strings = (const char *)q;
		s.end = (const char *)t + i + 2;
		switch (s.type) {
		case 0: decode_bios(o, &s); break;
		case 1: decode_system(o, &s); break;
		case 2: decode_board(o, &s); break;
		case 4: decode_proc(o, &s); break;
		case 16: decode_array(o, &s); break;
		case 17: decode_dimm(o, &s); break;
		case 19: decode_mapped(o, &s); break;
		default: break;
		}
		n++;
		off = i + 2;
		if (s.type == 127)
			break;
	}
	o->nstructs = n;
	return 0;
}

static void init_info(struct smbios_info *o)
{
	memset(o, 0, sizeof(*o));
	o->virtual_machine = -1;
}

/* Entry point at ep; on success the table's address, length and structure
 * count (0 = unknown). */
static int parse_ep(const uint8_t *ep, size_t eplen, struct smbios_info *o, uint64_t *addr,
		    size_t *tlen, size_t *count, char **err)
{
	if (eplen >= 5 && !memcmp(ep, "_SM3_", 5)) {
		unsigned l;
		if (eplen < 0x18)
			return fail(err, "_SM3_ entry point cut short (%zu of 24 bytes)", eplen);
		l = rd8(ep + 0x06);
		if (l < 0x18 || l > eplen)
			return fail(err, "_SM3_ entry point length %u is invalid", l);
		if (!checksum_ok(ep, l))
			return fail(err, "_SM3_ entry point checksum is wrong");
		o->source = SMBIOS_SRC_SM3;
		o->major = (int)rd8(ep + 0x07);
		o->minor = (int)rd8(ep + 0x08);
		*tlen = rd32(ep + 0x0C);
		*addr = rd64(ep + 0x10);
		*count = 0;
		return 0;
	}
	if (eplen >= 4 && !memcmp(ep, "_SM_", 4)) {
		unsigned l;
		if (eplen < 0x1F)
			return fail(err, "_SM_ entry point cut short (%zu of 31 bytes)", eplen);
		l = rd8(ep + 0x05);
		if (l < 0x1E || l > 0x20 || l > eplen)  /* 0x1E: the SMBIOS 2.1 length bug */
			return fail(err, "_SM_ entry point length %u is invalid", l);
		if (!checksum_ok(ep, l))
			return fail(err, "_SM_ entry point checksum is wrong");
		if (memcmp(ep + 0x10, "_DMI_", 5) || !checksum_ok(ep + 0x10, 0x0F))
			return fail(err, "_SM_ entry point lacks a valid _DMI_ part");
		o->source = SMBIOS_SRC_SM2;
		o->major = (int)rd8(ep + 0x06);
		o->minor = (int)rd8(ep + 0x07);
		*tlen = rd16(ep + 0x16);
		*addr = rd32(ep + 0x18);
		*count = rd16(ep + 0x1C);
		return 0;
	}
	if (eplen >= 5 && !memcmp(ep, "_DMI_", 5)) {
		if (eplen < 0x0F)
			return fail(err, "_DMI_ entry point cut short (%zu of 15 bytes)", eplen);
		if (!checksum_ok(ep, 0x0F))
			return fail(err, "_DMI_ entry point checksum is wrong");
		o->source = SMBIOS_SRC_DMI;
		o->major = (int)(rd8(ep + 0x0E) >> 4);
		o->minor = (int)(rd8(ep + 0x0E) & 0x0F);
		*tlen = rd16(ep + 0x06);
		*addr = rd32(ep + 0x08);
		*count = rd16(ep + 0x0C);
		return 0;
	}
	return fail(err, "no SMBIOS entry point (_SM_, _SM3_ or _DMI_) at offset 0");
}

int smbios_parse_dump(const uint8_t *buf, size_t len, struct smbios_info *o, char **err)
{
	uint64_t addr;
	size_t tlen, count;
	init_info(o);
	if (parse_ep(buf, len, o, &addr, &tlen, &count, err) < 0)
		return -1;
	if (tlen == 0)
		return fail(err, "the entry point announces an empty table");
	if (addr >= len)
		return fail(err, "table at 0x%llx lies past the end of the file (%zu bytes)",
			    (unsigned long long)addr, len);
	if (tlen > len - addr) {
		/* 3.x gives a maximum size; 2.x an exact one. */
		if (o->source != SMBIOS_SRC_SM3)
			return fail(err, "table truncated: %zu bytes at 0x%llx announced, %zu present",
				    tlen, (unsigned long long)addr, (size_t)(len - addr));
		tlen = len - addr;
	}
	return smbios_parse_table(buf + addr, tlen, count, o, err);
}

int smbios_parse_split(const uint8_t *ep, size_t eplen, const uint8_t *table, size_t len,
		       struct smbios_info *o, char **err)
{
	uint64_t addr;
	size_t tlen, count;
	init_info(o);
	if (parse_ep(ep, eplen, o, &addr, &tlen, &count, err) < 0)
		return -1;
	if (tlen > len) {
		if (o->source != SMBIOS_SRC_SM3)
			return fail(err, "table truncated: %zu bytes announced, %zu present", tlen, len);
		tlen = len;
	}
	return smbios_parse_table(table, tlen, count, o, err);
}

void smbios_free(struct smbios_info *s)
{
	size_t i;
	free(s->bios_vendor); free(s->bios_version); free(s->bios_date);
	free(s->sys_vendor); free(s->sys_product); free(s->sys_version); free(s->sys_family);
	free(s->board_vendor); free(s->board_product); free(s->board_version);
	for (i = 0; i < s->ndimms; i++) {
		free(s->dimms[i].locator); free(s->dimms[i].bank);
		free(s->dimms[i].manufacturer); free(s->dimms[i].part);
	}
	for (i = 0; i < s->nprocs; i++) {
		free(s->procs[i].socket); free(s->procs[i].manufacturer); free(s->procs[i].version);
	}
	free(s->dimms);
	free(s->procs);
	free(s->arrays);
	memset(s, 0, sizeof(*s));
}

const char *smbios_mem_type(int c)
{
	static const char *const names[] = {
		[0x03] = "DRAM", [0x04] = "EDRAM", [0x05] = "VRAM", [0x06] = "SRAM", [0x07] = "RAM",
		[0x08] = "ROM", [0x09] = "Flash", [0x0A] = "EEPROM", [0x0B] = "FEPROM",
		[0x0C] = "EPROM", [0x0D] = "CDRAM", [0x0E] = "3DRAM", [0x0F] = "SDRAM",
		[0x10] = "SGRAM", [0x11] = "RDRAM", [0x12] = "DDR", [0x13] = "DDR2",
		[0x14] = "DDR2 FB-DIMM", [0x18] = "DDR3", [0x19] = "FBD2", [0x1A] = "DDR4",
		[0x1B] = "LPDDR", [0x1C] = "LPDDR2", [0x1D] = "LPDDR3", [0x1E] = "LPDDR4",
		[0x1F] = "Logical non-volatile device", [0x20] = "HBM", [0x21] = "HBM2",
		[0x22] = "DDR5", [0x23] = "LPDDR5", [0x24] = "HBM3",
	};
	if (c < 0 || (size_t)c >= ARRAY_SIZE(names))
		return NULL;
	return names[c];
}

const char *smbios_form_factor(int c)
{
	static const char *const names[] = {
		[0x03] = "SIMM", [0x04] = "SIP", [0x05] = "Chip", [0x06] = "DIP", [0x07] = "ZIP",
		[0x08] = "Proprietary Card", [0x09] = "DIMM", [0x0A] = "TSOP",
		[0x0B] = "Row Of Chips", [0x0C] = "RIMM", [0x0D] = "SODIMM", [0x0E] = "SRIMM",
		[0x0F] = "FB-DIMM", [0x10] = "Die", [0x11] = "CAMM",
	};
	if (c < 0 || (size_t)c >= ARRAY_SIZE(names))
		return NULL;
	return names[c];
}

const char *smbios_ecc_mode(int c)
{
	switch (c) {
	case 3: return "none";
	case 4: return "parity";
	case 5: return "single-bit";
	case 6: return "multi-bit";
	case 7: return "crc";
	default: return NULL;     /* 1 other, 2 unknown, absent */
	}
}

int smbios_read_file(const char *path, uint8_t **buf, size_t *len)
{
	char *b;
	int r = read_file_capped(path, SMBIOS_MAX_TABLE + 0x20, &b, len);
	if (r < 0)
		return r;
	*buf = (uint8_t *)b;
	return 0;
}

static int mkdirs(const char *path)
{
	char *p = xstrdup(path), *s;
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			free(p);
			return -errno;
		}
		*s = '/';
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST) {
		free(p);
		return -errno;
	}
	free(p);
	return 0;
}

static int write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	const uint8_t *p = buf;
	if (fd < 0)
		return error("cannot write '%s': %s", path, strerror(errno));
	while (len) {
		ssize_t r = write(fd, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = errno;
			close(fd);
			return error("cannot write '%s': %s", path, strerror(e));
		}
		p += r;
		len -= (size_t)r;
	}
	if (close(fd) < 0)
		return error("cannot write '%s': %s", path, strerror(errno));
	return 0;
}

int smbios_snapshot(struct sysroot *sr, const char *smbios_file, const char *dir)
{
	char *tdir = xasprintf("%s/sys/firmware/dmi/tables", dir);
	char *pep = xasprintf("%s/smbios_entry_point", tdir);
	char *ptab = xasprintf("%s/DMI", tdir);
	uint8_t *ep = NULL, *tab = NULL;
	size_t eplen = 0, tlen = 0;
	int ret = 0, r;

	if (smbios_file) {
		uint8_t *buf;
		size_t len;
		struct smbios_info info;
		char *err = NULL;
		uint64_t addr;
		size_t tl, count;
		r = smbios_read_file(smbios_file, &buf, &len);
		if (r < 0) {
			ret = error("cannot read SMBIOS dump '%s': %s", smbios_file, sr_reason(r));
			goto out;
		}
		init_info(&info);
		if (parse_ep(buf, len, &info, &addr, &tl, &count, &err) < 0 || addr >= len) {
			ret = error("'%s': %s", smbios_file, err ? err : "table lies past the end of the file");
			free(err);
			free(buf);
			goto out;
		}
		/* _SM_ keeps its _DMI_ part up to 0x1E even when the length byte
		 * says 0x1E (the SMBIOS 2.1 bug). */
		eplen = info.source == SMBIOS_SRC_SM3 ? rd8(buf + 6) : info.source == SMBIOS_SRC_SM2 ? 0x1F : 0x0F;
		ep = xmalloc(eplen);
		memcpy(ep, buf, eplen);
		tlen = tl > len - addr ? len - addr : tl;
		tab = xmalloc(tlen ? tlen : 1);
		memcpy(tab, buf + addr, tlen);
		free(buf);
	} else {
		char *a = NULL, *b = NULL;
		if (sr_read(sr, "/sys/firmware/dmi/tables/smbios_entry_point", &a, &eplen) < 0 ||
		    sr_read(sr, "/sys/firmware/dmi/tables/DMI", &b, &tlen) < 0) {
			free(a);
			free(b);
			goto out;     /* nothing readable: the probe reports the gap */
		}
		ep = (uint8_t *)a;
		tab = (uint8_t *)b;
	}
	r = mkdirs(tdir);
	if (r < 0) {
		ret = error("cannot create '%s': %s", tdir, strerror(-r));
		goto out;
	}
	if (write_file(pep, ep, eplen) < 0 || write_file(ptab, tab, tlen) < 0) {
		ret = -1;
		goto out;
	}
	ret = 1;
out:
	free(ep);
	free(tab);
	free(tdir);
	free(pep);
	free(ptab);
	return ret;
}

/*** Emulated firmware ***/

static int has_ci(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (; s && *s; s++)
		if (!strncasecmp(s, w, n))
			return 1;
	return 0;
}

/* Identity strings of the hypervisors' and clouds' virtual firmware, as
 * their guests show them in dmidecode and /sys/class/dmi/id. */
static const struct hv_mark {
	const char *mark, *also, *name;
} hv_marks[] = {
	{ "QEMU", NULL, "KVM" },
	{ "KVM", NULL, "KVM" },
	{ "Red Hat", "KVM", "KVM" },
	{ "RHEV Hypervisor", NULL, "KVM" },
	{ "oVirt Node", NULL, "KVM" },
	{ "VMware", NULL, "VMware" },
	{ "VMW", "Virtual Platform", "VMware" },
	{ "innotek", NULL, "VirtualBox" },
	{ "VirtualBox", NULL, "VirtualBox" },
	{ "Microsoft Corporation", "Virtual Machine", "Microsoft Hyper-V" },
	{ "Hyper-V", NULL, "Microsoft Hyper-V" },
	{ "HVM domU", NULL, "Xen" },
	{ "Xen", NULL, "Xen" },
	{ "Amazon EC2", NULL, "Amazon EC2" },
	{ "Google Compute Engine", NULL, "Google Compute Engine" },
	{ "OpenStack", NULL, "OpenStack" },
	{ "Parallels", NULL, "Parallels" },
	{ "BHYVE", NULL, "bhyve" },
	{ "Bochs", NULL, "Bochs" },
	{ "DigitalOcean", NULL, "DigitalOcean" },
	{ "Nutanix", "AHV", "Nutanix AHV" },
	{ "Apple Virtualization", NULL, "Apple Virtualization" },
	{ "Alibaba Cloud ECS", NULL, "Alibaba Cloud ECS" },
	{ "Cloud Hypervisor", NULL, "Cloud Hypervisor" },
	{ "cloud-hypervisor", NULL, "Cloud Hypervisor" },
	{ "Virtuozzo", NULL, "Virtuozzo" },
};

const char *smbios_hypervisor_of(const char *bios_vendor, const char *bios_version,
				 const char *sys_vendor, const char *sys_product,
				 const char *sys_family, const char *board_vendor,
				 const char *board_product)
{
	const char *const v[] = { sys_vendor, sys_product, sys_family, board_vendor, board_product,
				  bios_vendor, bios_version };
	size_t i, j, k;
	/* Amazon's (and others') bare-metal instances keep the cloud's name. */
	if ((sys_product && has_ci(sys_product, ".metal")) || (sys_product && has_ci(sys_product, "bare metal")))
		return NULL;
	for (i = 0; i < sizeof(hv_marks) / sizeof(hv_marks[0]); i++)
		for (j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
			if (!v[j] || !has_ci(v[j], hv_marks[i].mark))
				continue;
			if (!hv_marks[i].also)
				return hv_marks[i].name;
			for (k = 0; k < sizeof(v) / sizeof(v[0]); k++)
				if (v[k] && has_ci(v[k], hv_marks[i].also))
					return hv_marks[i].name;
		}
	return NULL;
}

const char *smbios_hypervisor(const struct smbios_info *s)
{
	/* Emulators' memory devices: QEMU's "QEMU" manufacturer, VMware's
	 * "VMware Virtual RAM" and "VMW-4096MB" parts, Hyper-V's
	 * "Microsoft Corporation" modules. */
	static const struct { const char *mark, *name; } dimm_marks[] = {
		{ "QEMU", "KVM" }, { "VMware", "VMware" }, { "VMW-", "VMware" },
		{ "Microsoft", "Microsoft Hyper-V" }, { "innotek", "VirtualBox" }, { "Xen", "Xen" },
		{ "Parallels", "Parallels" }, { "BHYVE", "bhyve" },
	};
	const char *n;
	size_t i, j;
	if (!s)
		return NULL;
	n = smbios_hypervisor_of(s->bios_vendor, s->bios_version, s->sys_vendor, s->sys_product,
				 s->sys_family, s->board_vendor, s->board_product);
	if (n)
		return n;
	for (i = 0; i < s->ndimms; i++)
		for (j = 0; j < sizeof(dimm_marks) / sizeof(dimm_marks[0]); j++)
			if ((s->dimms[i].manufacturer && !strncmp(s->dimms[i].manufacturer, dimm_marks[j].mark,
								  strlen(dimm_marks[j].mark))) ||
			    (s->dimms[i].part && !strncmp(s->dimms[i].part, dimm_marks[j].mark,
							  strlen(dimm_marks[j].mark))))
				return dimm_marks[j].name;
	return s->virtual_machine == 1 ? "virtual machine" : NULL;
}
