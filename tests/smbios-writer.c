/* smbios-writer.c - build SMBIOS tables byte by byte (tests and mksmbios) */
#include "smbios-writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *grow(void *p, size_t n)
{
	void *q = realloc(p, n);
	if (!q) {
		fprintf(stderr, "smbios-writer: out of memory\n");
		exit(99);
	}
	return q;
}

void sw_init(struct sw *w)
{
	memset(w, 0, sizeof(*w));
}

void sw_release(struct sw *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

void sw_raw(struct sw *w, const void *p, size_t n)
{
	if (w->len + n > w->cap) {
		w->cap = (w->len + n) * 2 + 64;
		w->buf = grow(w->buf, w->cap);
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

void sw_begin(struct sw *w, unsigned type, unsigned len, unsigned handle)
{
	memset(w->fmt, 0, sizeof(w->fmt));
	w->flen = len;
	w->fmt[0] = (uint8_t)type;
	w->fmt[1] = (uint8_t)len;
	w->fmt[2] = (uint8_t)handle;
	w->fmt[3] = (uint8_t)(handle >> 8);
	w->slen = 0;
	w->nstr = 0;
}

void sw_u8(struct sw *w, unsigned off, unsigned v)
{
	if (off < w->flen)
		w->fmt[off] = (uint8_t)v;
}

void sw_u16(struct sw *w, unsigned off, unsigned v)
{
	sw_u8(w, off, v & 0xFF);
	sw_u8(w, off + 1, (v >> 8) & 0xFF);
}

void sw_u32(struct sw *w, unsigned off, uint32_t v)
{
	sw_u16(w, off, v & 0xFFFF);
	sw_u16(w, off + 2, v >> 16);
}

void sw_u64(struct sw *w, unsigned off, uint64_t v)
{
	sw_u32(w, off, (uint32_t)v);
	sw_u32(w, off + 4, (uint32_t)(v >> 32));
}

void sw_str(struct sw *w, unsigned off, const char *s)
{
	size_t n;
	if (!s || off >= w->flen)
		return;
	n = strlen(s) + 1;
	if (w->slen + n >= sizeof(w->strs))
		return;
	memcpy(w->strs + w->slen, s, n);
	w->slen += n;
	sw_u8(w, off, ++w->nstr);
}

void sw_end(struct sw *w)
{
	size_t before = w->len;
	sw_raw(w, w->fmt, w->flen);
	if (w->slen) {
		sw_raw(w, w->strs, w->slen);
		sw_raw(w, "", 1);
	} else
		sw_raw(w, "\0", 2);
	if (w->len - before > w->maxsize)
		w->maxsize = (unsigned)(w->len - before);
	w->nstructs++;
}

static void checksum(uint8_t *p, size_t n, size_t at)
{
	uint8_t sum = 0;
	size_t i;
	p[at] = 0;
	for (i = 0; i < n; i++)
		sum = (uint8_t)(sum + p[i]);
	p[at] = (uint8_t)(0x100 - sum);
}

uint8_t *sw_dump(const struct sw *w, const char *kind, int major, int minor, size_t *len)
{
	size_t n = 0x20 + w->len;
	uint8_t *b = calloc(1, n);
	if (!b)
		exit(99);
	memcpy(b + 0x20, w->buf, w->len);
	if (!strcmp(kind, "_SM3_")) {
		memcpy(b, "_SM3_", 5);
		b[0x06] = 0x18;
		b[0x07] = (uint8_t)major;
		b[0x08] = (uint8_t)minor;
		b[0x0A] = 0x01;
		b[0x0C] = (uint8_t)w->len;
		b[0x0D] = (uint8_t)(w->len >> 8);
		b[0x0E] = (uint8_t)(w->len >> 16);
		b[0x10] = 0x20;
		checksum(b, 0x18, 0x05);
	} else if (!strcmp(kind, "_SM_")) {
		memcpy(b, "_SM_", 4);
		b[0x05] = 0x1F;
		b[0x06] = (uint8_t)major;
		b[0x07] = (uint8_t)minor;
		b[0x08] = (uint8_t)w->maxsize;
		b[0x09] = (uint8_t)(w->maxsize >> 8);
		memcpy(b + 0x10, "_DMI_", 5);
		b[0x16] = (uint8_t)w->len;
		b[0x17] = (uint8_t)(w->len >> 8);
		b[0x18] = 0x20;
		b[0x1C] = (uint8_t)w->nstructs;
		b[0x1D] = (uint8_t)(w->nstructs >> 8);
		b[0x1E] = (uint8_t)(major << 4 | (minor & 0x0F));
		checksum(b + 0x10, 0x0F, 0x05);
		checksum(b, 0x1F, 0x04);
	} else {
		memcpy(b, "_DMI_", 5);
		b[0x06] = (uint8_t)w->len;
		b[0x07] = (uint8_t)(w->len >> 8);
		b[0x08] = 0x20;
		b[0x0C] = (uint8_t)w->nstructs;
		b[0x0D] = (uint8_t)(w->nstructs >> 8);
		b[0x0E] = (uint8_t)(major << 4 | (minor & 0x0F));
		checksum(b, 0x0F, 0x05);
	}
	*len = n;
	return b;
}

unsigned sw_type17_len(int major, int minor)
{
	int v = major * 100 + minor;
	if (v >= 303) return 0x5C;
	if (v >= 302) return 0x54;
	if (v >= 208) return 0x28;
	if (v >= 207) return 0x22;
	if (v >= 206) return 0x1C;
	if (v >= 203) return 0x1B;
	return 0x15;
}
