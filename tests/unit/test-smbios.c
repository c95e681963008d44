/* test-smbios.c - the SMBIOS parser on tables built byte by byte, valid and
 * damaged, and the locator grammar */
#include "config.h"
#include "tap.h"
#include "smbios-writer.h"
#include "read/smbios.h"
#include "probe/memory.h"
#include "probe/probe.h"
#include "read/sysroot.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A small valid table: BIOS (VM bit as given), system, one array, two
 * DIMMs (one empty), one processor, end of table. */
static void build(struct sw *w, int major, int minor, int vm)
{
	unsigned l17 = sw_type17_len(major, minor);
	sw_init(w);
	sw_begin(w, 0, 0x18, 0x0000);
	sw_str(w, 0x04, "Acme BIOS Co.");
	sw_str(w, 0x05, "1.2.3");
	sw_str(w, 0x08, "01/02/2025");
	sw_u8(w, 0x13, vm ? 0x10 : 0);
	sw_end(w);
	sw_begin(w, 1, 0x1B, 0x0001);
	sw_str(w, 0x04, "Acme  Computers ");   /* squashed to "Acme Computers" */
	sw_str(w, 0x05, "Box 9000");
	sw_end(w);
	sw_begin(w, 16, 0x17, 0x1000);
	sw_u8(w, 0x05, 3);
	sw_u8(w, 0x06, 6);                      /* multi-bit ECC */
	sw_u32(w, 0x07, 0x80000000u);
	sw_u64(w, 0x0F, (uint64_t)4 << 40);     /* 4 TiB, extended */
	sw_u16(w, 0x0D, 2);
	sw_end(w);
	sw_begin(w, 17, l17, 0x1100);
	sw_u16(w, 0x04, 0x1000);
	sw_u16(w, 0x08, 80);
	sw_u16(w, 0x0A, 64);
	sw_u16(w, 0x0C, 0x7FFF);
	sw_u32(w, 0x1C, 131072);                /* 128 GiB in MiB */
	sw_u8(w, 0x0E, 0x09);
	sw_str(w, 0x10, "CPU1_DIMM_A1");
	sw_str(w, 0x11, "NODE 0");
	sw_u8(w, 0x12, 0x22);                   /* DDR5 */
	sw_u16(w, 0x13, 0x2080);                /* registered */
	sw_u16(w, 0x15, 0xFFFF);                /* speed in the extended field */
	sw_u32(w, 0x54, 8800);
	sw_str(w, 0x17, "Samsung");
	sw_str(w, 0x1A, "M321");
	sw_u8(w, 0x1B, 2);
	sw_u16(w, 0x20, 6400);
	sw_end(w);
	sw_begin(w, 17, l17, 0x1101);
	sw_u16(w, 0x04, 0x1000);
	sw_u16(w, 0x0C, 0);                     /* No Module Installed */
	sw_str(w, 0x10, "CPU1_DIMM_A2");
	sw_end(w);
	sw_begin(w, 4, 0x30, 0x0400);
	sw_str(w, 0x04, "CPU1");
	sw_u8(w, 0x18, 0x41);
	sw_u8(w, 0x23, 0xFF);
	sw_u8(w, 0x25, 0xFF);
	sw_u16(w, 0x2A, 288);                   /* 3.0: 16-bit core count */
	sw_u16(w, 0x2E, 288);
	sw_end(w);
	sw_begin(w, 127, 4, 0xFEFF);
	sw_end(w);
}

static int parse(const uint8_t *b, size_t n, struct smbios_info *s, char **err)
{
	free(*err);
	*err = NULL;
	smbios_free(s);
	return smbios_parse_dump(b, n, s, err);
}

static void test_valid(void)
{
	struct sw w;
	struct smbios_info s;
	char *err = NULL;
	size_t n;
	uint8_t *b;

	memset(&s, 0, sizeof(s));
	build(&w, 3, 3, 1);
	b = sw_dump(&w, "_SM3_", 3, 3, &n);
	is_int(parse(b, n, &s, &err), 0, "3.3 table parses");
	is_int(s.source, SMBIOS_SRC_SM3, "_SM3_ entry point");
	is_int(s.major * 10 + s.minor, 33, "version 3.3");
	is_str(s.bios_vendor, "Acme BIOS Co.", "BIOS vendor");
	is_str(s.bios_date, "01/02/2025", "BIOS date");
	is_str(s.sys_vendor, "Acme Computers", "system vendor squashed");
	is_int(s.virtual_machine, 1, "VM bit");
	is_int(s.narrays, 1, "one array");
	is_int(s.arrays[0].ecc, 6, "multi-bit ECC code");
	is_str(smbios_ecc_mode(s.arrays[0].ecc), "multi-bit", "ECC name");
	ok(s.arrays[0].max_bytes == (uint64_t)4 << 40, "extended maximum capacity");
	is_int(s.ndimms, 2, "two memory devices");
	ok(s.dimms[0].installed == 1 && s.dimms[0].size_bytes == (uint64_t)128 << 30, "extended size 128 GiB");
	is_int(s.dimms[0].speed, 8800, "extended speed");
	is_int(s.dimms[0].configured_speed, 6400, "configured speed");
	is_int(s.dimms[0].rank, 2, "rank");
	is_str(smbios_mem_type(s.dimms[0].type), "DDR5", "type DDR5");
	is_str(smbios_form_factor(s.dimms[0].form_factor), "DIMM", "form factor");
	is_str(s.dimms[0].locator, "CPU1_DIMM_A1", "locator");
	is_str(s.dimms[0].part, "M321", "part number");
	is_int(s.dimms[1].installed, 0, "empty slot");
	ok(s.dimms[1].bank == NULL, "missing bank string is NULL");
	is_int(s.nprocs, 1, "one processor");
	is_int(s.procs[0].cores, 288, "16-bit core count");
	is_int(s.procs[0].threads, 288, "16-bit thread count");
	free(b);

	/* The same table behind a 2.x and a legacy entry point. */
	b = sw_dump(&w, "_SM_", 2, 8, &n);
	is_int(parse(b, n, &s, &err), 0, "_SM_ 2.8 parses");
	is_int(s.source, SMBIOS_SRC_SM2, "_SM_ entry point");
	is_int(s.ndimms, 2, "_SM_: two devices");
	free(b);
	b = sw_dump(&w, "_DMI_", 2, 1, &n);
	is_int(parse(b, n, &s, &err), 0, "legacy _DMI_ parses");
	is_int(s.source, SMBIOS_SRC_DMI, "_DMI_ entry point");
	is_int(s.major * 10 + s.minor, 21, "_DMI_ BCD version 2.1");
	free(b);
	sw_release(&w);

	/* SMBIOS 2.4: short type 17 (no configured speed, no rank), type 4
	 * without core counts, KB granularity. */
	sw_init(&w);
	sw_begin(&w, 17, 0x1B, 0x0020);
	sw_u16(&w, 0x04, 0x0010);
	sw_u16(&w, 0x08, 64);
	sw_u16(&w, 0x0A, 64);
	sw_u16(&w, 0x0C, 0x8000 | 512);         /* 512 KiB */
	sw_str(&w, 0x10, "A2");
	sw_str(&w, 0x11, "Bank4/5");
	sw_u16(&w, 0x15, 0);                    /* speed unknown */
	sw_end(&w);
	sw_begin(&w, 17, 0x1B, 0x0021);
	sw_u16(&w, 0x0C, 0xFFFF);               /* size unknown */
	sw_end(&w);
	sw_begin(&w, 4, 0x23, 0x0004);
	sw_str(&w, 0x04, "Socket M2");
	sw_u8(&w, 0x18, 0x41);
	sw_end(&w);
	b = sw_dump(&w, "_SM_", 2, 4, &n);
	is_int(parse(b, n, &s, &err), 0, "2.4 table without an end marker parses");
	ok(s.dimms[0].installed == 1 && s.dimms[0].size_bytes == 512 * 1024, "KB granularity");
	is_int(s.dimms[0].speed, 0, "speed 0 = unknown");
	is_int(s.dimms[0].configured_speed, 0, "no configured speed before 2.7");
	is_int(s.dimms[0].rank, 0, "no rank before 2.6");
	is_int(s.dimms[1].installed, -1, "size 0xFFFF = unknown");
	is_int(s.procs[0].cores, -1, "2.4 processor: cores unknown");
	free(b);
	sw_release(&w);
	smbios_free(&s);
	free(err);
}

static void expect_fail(const uint8_t *b, size_t n, const char *want, const char *what)
{
	struct smbios_info s;
	char *err = NULL;
	int r = smbios_parse_dump(b, n, &s, &err);
	ok(r < 0 && err && strstr(err, want), "%s: refused (%s)", what, err ? err : "accepted");
	smbios_free(&s);
	free(err);
}

static void fix_sm3_checksum(uint8_t *b)
{
	uint8_t sum = 0;
	int i;
	b[5] = 0;
	for (i = 0; i < 0x18; i++)
		sum = (uint8_t)(sum + b[i]);
	b[5] = (uint8_t)(0x100 - sum);
}

static void test_damaged(void)
{
	struct sw w;
	struct smbios_info s;
	char *err = NULL;
	size_t n, i;
	uint8_t *b, *c;
	unsigned seed = 12345;

	build(&w, 3, 3, 0);
	b = sw_dump(&w, "_SM3_", 3, 3, &n);
	c = malloc(n + 64);

	expect_fail((const uint8_t *)"hello", 5, "no SMBIOS entry point", "not an entry point");
	expect_fail(b, 10, "cut short", "entry point cut short");
	memcpy(c, b, n);
	c[0x10] ^= 0x40;                        /* table address moved, checksum now wrong */
	expect_fail(c, n, "checksum", "bad checksum");
	memcpy(c, b, n);
	c[0x10] = 0xF0;
	c[0x11] = 0xFF;
	fix_sm3_checksum(c);
	expect_fail(c, n, "past the end of the file", "table address beyond the file");

	/* A structure of length 0 in the middle. */
	memcpy(c, b, n);
	c[0x20 + 1] = 0;
	expect_fail(c, n, "has length 0", "zero structure length");
	/* Oversized: the first structure claims 250 bytes of a shorter table. */
	memcpy(c, b, n);
	c[0x20 + 1] = 250;
	expect_fail(c, 0x20 + 0x40, "runs past the end", "oversized structure length");
	/* Strings without their double-NUL terminator: cut the table inside
	 * the first structure's strings. */
	expect_fail(b, 0x20 + 0x18 + 6, "no terminator", "missing string terminator");

	/* 2.x with an exact table length that the file does not have. */
	free(b);
	b = sw_dump(&w, "_SM_", 2, 7, &n);
	expect_fail(b, n - 10, "truncated", "2.x table truncated");
	/* 3.x: the length is a maximum; a shorter file is read up to its end,
	 * and the end-of-table marker stops the parse. */
	free(b);
	b = sw_dump(&w, "_SM3_", 3, 3, &n);
	memcpy(c, b, n);
	memset(c + n, 0, 64);
	is_int(smbios_parse_dump(c, n + 64, &s, &err), 0, "zero padding after the end marker");
	smbios_free(&s);
	/* Padding with no end marker: table without type 127, then zeros. */
	memcpy(c, b, n - 6);                   /* drop the 6-byte type 127 */
	memset(c + n - 6, 0, 16);
	is_int(smbios_parse_dump(c, n + 10, &s, &err), 0, "zero padding without an end marker");
	is_int(s.ndimms, 2, "...structures before the padding kept");
	smbios_free(&s);

	/* A string number past the strings present: NULL, no read beyond. */
	memcpy(c, b, n);
	c[0x20 + 4] = 200;                       /* BIOS vendor string #200 */
	is_int(smbios_parse_dump(c, n, &s, &err), 0, "string number out of range still parses");
	ok(s.bios_vendor == NULL, "...and gives no string");
	smbios_free(&s);

	/* Random corruption must never crash or read out of bounds. */
	for (i = 0; i < 3000; i++) {
		size_t k, flips = 1 + i % 8, len = n;
		memcpy(c, b, n);
		for (k = 0; k < flips; k++) {
			seed = seed * 1103515245u + 12345u;
			c[0x20 + (seed >> 8) % (n - 0x20)] = (uint8_t)(seed >> 20);
		}
		if (i % 3 == 0) {
			seed = seed * 1103515245u + 12345u;
			len = 0x20 + (seed >> 8) % (n - 0x20);
		}
		fix_sm3_checksum(c);
		if (smbios_parse_dump(c, len, &s, &err) < 0) {
			free(err);
			err = NULL;
		}
		smbios_free(&s);
	}
	ok(1, "3000 randomly damaged tables survived");
	free(b);
	free(c);
	sw_release(&w);
	free(err);
}

static void loc(const char *l, const char *bank, int chan_found, const char *pkg, const char *chan)
{
	struct mem_loc m;
	int r = mem_parse_locator(l, bank, &m);
	ok(r == chan_found && !strcmp(m.pkg, pkg) && !strcmp(m.chan, chan),
	   "locator '%s' bank '%s' -> package '%s' channel '%s' (got '%s' '%s')",
	   l ? l : "", bank ? bank : "", pkg, chan, m.pkg, m.chan);
}

static void test_locators(void)
{
	struct mem_loc m;
	loc("ChannelA-DIMM0", "BANK 0", 1, "", "A");
	loc("ChannelB-DIMM1", "BANK 3", 1, "", "B");
	loc("DIMM_A1", "BANK 0", 1, "", "A");
	loc("DIMMB2", NULL, 1, "", "B");
	loc("CPU1_DIMM_A1", "NODE 0", 1, "1", "A");
	loc("CPU2 DIMM H1", NULL, 1, "2", "H");
	loc("P1-DIMMA1", "P0_Node0_Channel0_Dimm0", 1, "1", "A");
	loc("DIMM 0", "P0 CHANNEL A", 1, "0", "A");
	loc("DIMM 1", "P1 CHANNEL B", 1, "1", "B");
	loc("P0_Node0_Channel3_Dimm0", NULL, 1, "0", "N0-3");
	loc("CPU_SrcID#0_MC#1_Chan#2_DIMM#0", NULL, 1, "0", "MC1-2");
	loc("Controller1-ChannelA-DIMM0", "BANK 0", 1, "", "MC1-A");
	loc("DIMM_P1_B0", "BANK 0", 1, "1", "B");
	loc("SODIMM1", "BANK 0", 0, "", "");
	loc("DIMM A", "Not Specified", 1, "", "A");
	loc("DIMM B", NULL, 1, "", "B");
	loc("DIMMA", NULL, 0, "", "");
	loc("Huawei DIMM000", "SOCKET 0 CHANNEL 1 DIMM 0", 1, "0", "1");
	loc("PROC 1 DIMM 3", NULL, 0, "1", "");
	loc("DIMM 0", "BANK 0", 0, "", "");
	loc("Bank0/1", NULL, 0, "", "");
	loc("RAM slot #0", NULL, 0, "", "");
	loc("Node0_Dimm1", NULL, 0, "", "");
	loc(NULL, NULL, 0, "", "");
	loc("", "", 0, "", "");
	mem_parse_locator("A1", "Bank 0", &m);
	ok(m.bare && m.letter == 'A' && m.num == 1, "bare A1 is marked for the probe to judge");
	mem_parse_locator("B12", NULL, &m);
	ok(m.bare && m.letter == 'B' && m.num == 12, "bare B12");
	mem_parse_locator("DIMM_A10", NULL, &m);
	ok(!m.bare && !strcmp(m.chan, "A"), "DIMM_A10 reads as letter A (the probe rejects 12 slots per channel)");
}

/* --smbios FILE stored by the snapshot hook replays through --sysroot. */
static void test_snapshot(void)
{
	struct sw w;
	uint8_t *b;
	size_t n;
	char dir[] = "/tmp/test-smbios.XXXXXX", *file, *cmd;
	FILE *f;
	struct probe_opts opts;
	struct probe_ctx ctx;
	const cJSON *v;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	build(&w, 3, 3, 0);
	b = sw_dump(&w, "_SM3_", 3, 3, &n);
	file = xasprintf("%s/dump.bin", dir);
	f = fopen(file, "wb");
	ok(f && fwrite(b, 1, n, f) == n && fclose(f) == 0, "dump written");
	cmd = xasprintf("%s/snap", dir);
	is_int(smbios_snapshot(NULL, file, cmd), 1, "snapshot stores the --smbios table");
	memset(&opts, 0, sizeof(opts));
	opts.sysroot = cmd;
	is_int(probe_run(&ctx, &opts, "memory"), 0, "probe over the snapshot");
	v = facts_get(ctx.facts.root, "memory.slots.total");
	ok(cJSON_IsNumber(v) && v->valuedouble == 2, "replayed: 2 slots");
	v = facts_get(ctx.facts.root, "memory.dimms[0].size_bytes");
	ok(cJSON_IsNumber(v) && v->valuedouble == (double)((uint64_t)128 << 30), "replayed: 128 GiB DIMM");
	v = facts_get(ctx.facts.root, "memory.ecc.mode");
	ok(cJSON_IsString(v) && !strcmp(v->valuestring, "multi-bit"), "replayed: multi-bit ECC");
	v = facts_get(ctx.facts.root, "platform.smbios.version");
	ok(cJSON_IsString(v) && !strcmp(v->valuestring, "3.3"), "replayed: SMBIOS 3.3");
	probe_release(&ctx);
	is_int(smbios_snapshot(NULL, "/nonexistent/dump.bin", cmd), -1, "snapshot of a missing file fails");
	free(b);
	sw_release(&w);
	free(cmd);
	cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", dir);
	free(cmd);
	free(file);
}

int main(void)
{
	test_valid();
	test_damaged();
	test_locators();
	test_snapshot();
	return done_testing();
}
