/* mksmbios.c - write a `dmidecode --dump-bin` image from a short description
 *
 * Usage: mksmbios DESCRIPTION OUTPUT.bin
 *
 * One record per line, "key value" pairs after the record word, strings in
 * double quotes, '#' starts a comment:
 *   entry _SM3_ 3.3          (or _SM_ 2.8, or _DMI_ 2.1)
 *   bios vendor "..." version "..." date "..." vm yes|no
 *   system vendor "..." product "..." version "..." family "..."
 *   board vendor "..." product "..." version "..."
 *   socket designation "CPU1" cores 32 threads 64 populated yes version "..."
 *   array handle 0x1000 ecc none|parity|single-bit|multi-bit|crc|unknown
 *         max 4T devices 16 use system|video
 *   defaults KEY VALUE ...   (applies to the dimm lines after it)
 *   dimm locator "..." bank "..." size 64G|0|unknown type DDR5 speed 4800
 *        configured 4800 rank 2 width 80/64 form DIMM registered yes|no
 *        manufacturer "..." part "..." array 0x1000 repeat N (%d in the
 *        locator becomes 0..N-1)
 *   mapped start 0 size 1T array 0x1000
 * Sizes take K, M, G, T (binary) suffixes.
 */
#include "smbios-writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAXTOK 64

static const char *desc;
static int lineno;

static void die_at(const char *msg, const char *arg)
{
	fprintf(stderr, "mksmbios: %s:%d: %s%s%s\n", desc, lineno, msg, arg ? " " : "", arg ? arg : "");
	exit(99);
}

static int tokenize(char *line, char **tok)
{
	int n = 0;
	char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (!*p || *p == '#')
			break;
		if (n == MAXTOK)
			die_at("too many words", NULL);
		if (*p == '"') {
			tok[n++] = ++p;
			while (*p && *p != '"')
				p++;
			if (!*p)
				die_at("unterminated string", NULL);
			*p++ = '\0';
		} else {
			tok[n++] = p;
			while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
				p++;
			if (*p)
				*p++ = '\0';
		}
	}
	return n;
}

static const char *get(char **tok, int n, const char *key)
{
	int i;
	for (i = n - 2; i >= 1; i -= 1)
		if (!strcmp(tok[i], key) && (i % 2) == 1)
			return tok[i + 1];
	return NULL;
}

static uint64_t size_of(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);
	switch (*end) {
	case 'K': v <<= 10; break;
	case 'M': v <<= 20; break;
	case 'G': v <<= 30; break;
	case 'T': v <<= 40; break;
	case '\0': break;
	default: die_at("bad size", s);
	}
	return v;
}

static unsigned num(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);
	if (*end)
		die_at("bad number", s);
	return (unsigned)v;
}

static int yes(const char *s)
{
	return s && (!strcmp(s, "yes") || !strcmp(s, "1"));
}

static int lookup(const char *s, const char *const *names, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (names[i] && !strcasecmp(s, names[i]))
			return (int)i;
	die_at("unknown name", s);
	return 0;
}

static const char *const mem_types[] = {
	[0x02] = "Unknown", [0x03] = "DRAM", [0x07] = "RAM", [0x0F] = "SDRAM", [0x12] = "DDR", [0x13] = "DDR2",
	[0x18] = "DDR3", [0x1A] = "DDR4", [0x1D] = "LPDDR3", [0x1E] = "LPDDR4", [0x22] = "DDR5",
	[0x23] = "LPDDR5",
};
static const char *const forms[] = {
	[0x02] = "Unknown", [0x05] = "Chip", [0x09] = "DIMM", [0x0D] = "SODIMM",
};
static const char *const eccs[] = {
	[0x01] = "other", [0x02] = "unknown", [0x03] = "none", [0x04] = "parity",
	[0x05] = "single-bit", [0x06] = "multi-bit", [0x07] = "crc",
};

int main(int argc, char **argv)
{
	FILE *in, *out;
	char line[1024], *tok[MAXTOK], dflt[1024] = "defaults", *dtok[MAXTOK];
	int ndt = 1, major = 3, minor = 3;
	char kind[8] = "_SM3_";
	unsigned handle = 0x0100;
	struct sw w;
	uint8_t *img;
	size_t len;

	if (argc != 3) {
		fprintf(stderr, "usage: mksmbios DESCRIPTION OUTPUT.bin\n");
		return 99;
	}
	desc = argv[1];
	in = fopen(desc, "r");
	if (!in) {
		perror(desc);
		return 99;
	}
	dtok[0] = dflt;
	sw_init(&w);
	while (fgets(line, sizeof(line), in)) {
		int n;
		lineno++;
		n = tokenize(line, tok);
		if (!n)
			continue;
		if (n % 2 == 0 && strcmp(tok[0], "entry"))
			die_at("expected KEY VALUE pairs after", tok[0]);
		if (!strcmp(tok[0], "entry")) {
			if (n != 3 || sscanf(tok[2], "%d.%d", &major, &minor) != 2)
				die_at("usage: entry _SM3_|_SM_|_DMI_ MAJOR.MINOR", NULL);
			snprintf(kind, sizeof(kind), "%s", tok[1]);
		} else if (!strcmp(tok[0], "bios")) {
			sw_begin(&w, 0, 0x18, handle++);
			sw_str(&w, 0x04, get(tok, n, "vendor"));
			sw_str(&w, 0x05, get(tok, n, "version"));
			sw_u16(&w, 0x06, 0xE800);
			sw_str(&w, 0x08, get(tok, n, "date"));
			sw_u8(&w, 0x09, 0xFF);
			sw_u64(&w, 0x0A, 0x08);   /* characteristics not supported bit clear */
			sw_u8(&w, 0x12, 0x01);
			sw_u8(&w, 0x13, yes(get(tok, n, "vm")) ? 0x10 : 0x00);
			sw_u8(&w, 0x14, 0xFF);
			sw_u8(&w, 0x15, 0xFF);
			sw_u8(&w, 0x16, 0xFF);
			sw_u8(&w, 0x17, 0xFF);
			sw_end(&w);
		} else if (!strcmp(tok[0], "system")) {
			sw_begin(&w, 1, 0x1B, handle++);
			sw_str(&w, 0x04, get(tok, n, "vendor"));
			sw_str(&w, 0x05, get(tok, n, "product"));
			sw_str(&w, 0x06, get(tok, n, "version"));
			sw_u8(&w, 0x18, 0x06);
			sw_str(&w, 0x1A, get(tok, n, "family"));
			sw_end(&w);
		} else if (!strcmp(tok[0], "board")) {
			sw_begin(&w, 2, 0x0F, handle++);
			sw_str(&w, 0x04, get(tok, n, "vendor"));
			sw_str(&w, 0x05, get(tok, n, "product"));
			sw_str(&w, 0x06, get(tok, n, "version"));
			sw_u8(&w, 0x0D, 0x0A);
			sw_end(&w);
		} else if (!strcmp(tok[0], "socket")) {
			int v = major * 100 + minor;
			unsigned l = v >= 300 ? 0x30 : v >= 206 ? 0x2A : v >= 205 ? 0x28 : 0x23;
			const char *pop = get(tok, n, "populated");
			sw_begin(&w, 4, l, handle++);
			sw_str(&w, 0x04, get(tok, n, "designation"));
			sw_u8(&w, 0x05, 0x03);
			sw_str(&w, 0x07, get(tok, n, "manufacturer"));
			sw_str(&w, 0x10, get(tok, n, "version"));
			sw_u8(&w, 0x18, !pop || yes(pop) ? 0x41 : 0x00);
			if (get(tok, n, "cores")) {
				unsigned c = num(get(tok, n, "cores"));
				sw_u8(&w, 0x23, c > 255 ? 0xFF : c);
				sw_u8(&w, 0x24, c > 255 ? 0xFF : c);
				sw_u16(&w, 0x2A, c);
				sw_u16(&w, 0x2C, c);
			}
			if (get(tok, n, "threads")) {
				unsigned c = num(get(tok, n, "threads"));
				sw_u8(&w, 0x25, c > 255 ? 0xFF : c);
				sw_u16(&w, 0x2E, c);
			}
			sw_end(&w);
		} else if (!strcmp(tok[0], "array")) {
			int v = major * 100 + minor;
			const char *s;
			uint64_t max = get(tok, n, "max") ? size_of(get(tok, n, "max")) : 0;
			sw_begin(&w, 16, v >= 207 ? 0x17 : 0x0F, get(tok, n, "handle") ? num(get(tok, n, "handle")) : handle++);
			sw_u8(&w, 0x04, 0x03);
			s = get(tok, n, "use");
			sw_u8(&w, 0x05, s && !strcmp(s, "video") ? 0x04 : 0x03);
			s = get(tok, n, "ecc");
			sw_u8(&w, 0x06, s ? (unsigned)lookup(s, eccs, sizeof(eccs) / sizeof(eccs[0])) : 2);
			if ((max >> 10) >= 0x80000000ull) {
				sw_u32(&w, 0x07, 0x80000000u);
				sw_u64(&w, 0x0F, max);
			} else
				sw_u32(&w, 0x07, (uint32_t)(max >> 10));
			sw_u16(&w, 0x0B, 0xFFFE);
			sw_u16(&w, 0x0D, get(tok, n, "devices") ? num(get(tok, n, "devices")) : 0);
			sw_end(&w);
		} else if (!strcmp(tok[0], "defaults")) {
			/* keep the pairs, in a private copy */
			size_t off = strlen("defaults") + 1;
			int i;
			ndt = 1;
			for (i = 1; i < n && ndt < MAXTOK; i++) {
				size_t l = strlen(tok[i]) + 1;
				if (off + l > sizeof(dflt))
					die_at("defaults too long", NULL);
				memcpy(dflt + off, tok[i], l);
				dtok[ndt++] = dflt + off;
				off += l;
			}
		} else if (!strcmp(tok[0], "dimm")) {
			char *all[2 * MAXTOK];
			int na = 0, i, rep, r;
			for (i = 0; i < ndt; i++)
				all[na++] = dtok[i];
			for (i = 1; i < n; i++)
				all[na++] = tok[i];
			rep = get(all, na, "repeat") ? (int)num(get(all, na, "repeat")) : 1;
			for (r = 0; r < rep; r++) {
				unsigned l = get(all, na, "length") ? num(get(all, na, "length")) : sw_type17_len(major, minor);
				const char *s = get(all, na, "size");
				char loc[256];
				uint64_t size = 0;
				int unknown = s && !strcmp(s, "unknown");
				if (s && !unknown)
					size = size_of(s);
				sw_begin(&w, 17, l, handle++);
				sw_u16(&w, 0x04, get(all, na, "array") ? num(get(all, na, "array")) : 0xFFFE);
				sw_u16(&w, 0x06, 0xFFFE);
				s = get(all, na, "width");
				if (s) {
					unsigned tw, dw;
					if (sscanf(s, "%u/%u", &tw, &dw) != 2)
						die_at("width is TOTAL/DATA", s);
					sw_u16(&w, 0x08, tw);
					sw_u16(&w, 0x0A, dw);
				} else {
					sw_u16(&w, 0x08, 0xFFFF);
					sw_u16(&w, 0x0A, 0xFFFF);
				}
				if (unknown)
					sw_u16(&w, 0x0C, 0xFFFF);
				else if (size && size < (1u << 20))
					sw_u16(&w, 0x0C, 0x8000 | (unsigned)(size >> 10));
				else if ((size >> 20) >= 0x7FFF) {
					sw_u16(&w, 0x0C, 0x7FFF);
					sw_u32(&w, 0x1C, (uint32_t)(size >> 20));
				} else
					sw_u16(&w, 0x0C, (unsigned)(size >> 20));
				s = get(all, na, "form");
				sw_u8(&w, 0x0E, s ? (unsigned)lookup(s, forms, sizeof(forms) / sizeof(forms[0])) : 2);
				s = get(all, na, "locator");
				snprintf(loc, sizeof(loc), s ? s : "", r);
				sw_str(&w, 0x10, s ? loc : NULL);
				sw_str(&w, 0x11, get(all, na, "bank"));
				s = get(all, na, "type");
				sw_u8(&w, 0x12, s ? (unsigned)lookup(s, mem_types, sizeof(mem_types) / sizeof(mem_types[0])) : 2);
				s = get(all, na, "registered");
				sw_u16(&w, 0x13, !s ? 0x0002 : yes(s) ? 0x2080 : 0x4080);
				s = get(all, na, "speed");
				sw_u16(&w, 0x15, s ? num(s) : 0);
				sw_str(&w, 0x17, size ? get(all, na, "manufacturer") : NULL);
				sw_str(&w, 0x1A, size ? get(all, na, "part") : NULL);
				s = get(all, na, "rank");
				sw_u8(&w, 0x1B, s ? num(s) : 0);
				s = get(all, na, "configured");
				sw_u16(&w, 0x20, s ? num(s) : 0);
				sw_end(&w);
			}
		} else if (!strcmp(tok[0], "mapped")) {
			uint64_t start = size_of(get(tok, n, "start") ? get(tok, n, "start") : "0");
			uint64_t size = size_of(get(tok, n, "size") ? get(tok, n, "size") : "0");
			sw_begin(&w, 19, 0x1F, handle++);
			if (((start + size) >> 10) > 0xFFFFFFFFull) {
				sw_u32(&w, 0x04, 0xFFFFFFFFu);
				sw_u32(&w, 0x08, 0xFFFFFFFFu);
				sw_u64(&w, 0x0F, start);
				sw_u64(&w, 0x17, start + size - 1);
			} else {
				sw_u32(&w, 0x04, (uint32_t)(start >> 10));
				sw_u32(&w, 0x08, (uint32_t)(((start + size) >> 10) - 1));
			}
			sw_u16(&w, 0x0C, get(tok, n, "array") ? num(get(tok, n, "array")) : 0xFFFE);
			sw_u8(&w, 0x0E, 1);
			sw_end(&w);
		} else
			die_at("unknown record", tok[0]);
	}
	fclose(in);
	sw_begin(&w, 127, 4, 0xFEFF);
	sw_end(&w);
	img = sw_dump(&w, kind, major, minor, &len);
	out = fopen(argv[2], "wb");
	if (!out || fwrite(img, 1, len, out) != len || fclose(out) != 0) {
		perror(argv[2]);
		return 99;
	}
	free(img);
	sw_release(&w);
	return 0;
}
