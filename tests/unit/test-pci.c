/* test-pci.c - link bandwidth, the accelerator table, dump validation */
#include "config.h"
#include "read/libpci.h"
#include "probe/pci.h"
#include <pci/pci.h>
#include "tap.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void put(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(data, 1, n, f);
		fclose(f);
	}
}

/* pci_snapshot() on a sysroot whose config files we wrote: the dump it
 * writes passes our check and libpci reads back the same bytes. */
static void test_snapshot(void)
{
	char root[] = "/tmp/test-pci.XXXXXX", cmd[512], path[512];
	uint8_t cfg[256] = { 0 }, back[4096];
	struct sysroot sr;
	struct pcisrc *ps;
	char *err = NULL, *text = NULL;
	size_t len = 0;
	unsigned (*addrs)[4] = NULL;
	FILE *f;
	if (!mkdtemp(root)) {
		ok(0, "mkdtemp");
		return;
	}
	cfg[0] = 0xde; cfg[1] = 0x10; cfg[2] = 0xb5; cfg[3] = 0x20;   /* 10de:20b5 */
	cfg[0x0a] = 0x02; cfg[0x0b] = 0x03;                           /* 3D controller */
	cfg[0x06] = 0x10; cfg[0x34] = 0x40; cfg[0x40] = 0x10;         /* PCIe capability */
	cfg[0xff] = 0x5a;
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0 "
		 "%s/sys/bus/pci/devices %s/out && ln -s ../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0 "
		 "%s/sys/bus/pci/devices/0000:01:00.0", root, root, root, root);
	ok(system(cmd) == 0, "build a sysroot");
	snprintf(path, sizeof(path), "%s/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/config", root);
	put(path, cfg, sizeof(cfg));
	if (sysroot_open(&sr, root) < 0) {
		ok(0, "open the sysroot");
		return;
	}
	snprintf(path, sizeof(path), "%s/out", root);
	is_int(pci_snapshot(&sr, path), 0, "pci_snapshot");
	sysroot_close(&sr);
	snprintf(path, sizeof(path), "%s/out/nodeaudit/pci.dump", root);
	f = fopen(path, "r");
	if (f) {
		text = calloc(1, 65536);
		len = fread(text, 1, 65535, f);
		fclose(f);
	}
	ok(text && strstr(text, "0000:01:00.0 Class 0302: 10de:20b5\n00: de 10 b5 20"), "lspci -x layout");
	ps = text ? pci_dump_parse(text, len, &err) : NULL;
	free(text);
	ok(ps != NULL, "the dump is read back (%s)", err ? err : "ok");
	if (ps) {
		is_int(pcisrc_devices(ps, &addrs), 1, "one device");
		is_int(pcisrc_config(ps, 0, 1, 0, 0, back), 256, "256 bytes back");
		ok(!memcmp(back, cfg, sizeof(cfg)), "the same bytes");
		free(addrs);
		pcisrc_close(ps);
	}
	free(err);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd) != 0)
		fprintf(stderr, "# cannot remove %s\n", root);
}

static int dump_ok(const char *text, const char *want_why)
{
	char *why = NULL;
	struct pcisrc *ps = pci_dump_parse(text, strlen(text), &why);
	int m = want_why ? !ps && why && strstr(why, want_why) != NULL : ps != NULL;
	if (!m)
		fprintf(stderr, "#   pci_dump_parse: %s '%s'\n", ps ? "read" : "refused", why ? why : "");
	pcisrc_close(ps);
	free(why);
	return m;
}

#define HEX64 "00: 86 80 00 2a 06 01 90 20 03 00 00 06 00 00 00 00\n" \
	      "10: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n" \
	      "20: 00 00 00 00 00 00 00 00 00 00 00 00 cf 10 f2 13\n" \
	      "30: 00 00 00 00 e0 00 00 00 00 00 00 00 00 00 00 00\n"

/* The bytes a dump gives back, as libpci's dump method held them: 0xff
 * where none is given, readable up to the highest byte given, in 16-byte
 * steps past 64; a device named twice read from its last block; hex lines
 * after a blank line belong to no device; extended space past 255; the
 * devices listed last first; a last line without its newline read. */
static void test_dump_bytes(void)
{
	const char *text = "0000:00:00.0 first\n" HEX64 "50: 11 22\n\n60: 33\n"
			   "0001:02:03.4 x\n" HEX64 "\n"
			   "00:00.0 again\n" HEX64 "40: aa\n100: bb 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01";
	char *why = NULL;
	struct pcisrc *ps = pci_dump_parse(text, strlen(text), &why);
	unsigned (*addrs)[4] = NULL;
	uint8_t buf[4096];
	ok(ps != NULL, "read (%s)", why ? why : "ok");
	free(why);
	if (!ps)
		return;
	is_int(pcisrc_devices(ps, &addrs), 3, "three device lines");
	ok(addrs[0][0] == 0 && addrs[0][1] == 0 && addrs[1][0] == 1 && addrs[1][1] == 2 && addrs[1][2] == 3 &&
	   addrs[1][3] == 4, "last first, domain, bus, device, function");
	free(addrs);
	is_int(pcisrc_config_max(ps, 1, 2, 3, 4, buf, 4096), 64, "64 bytes given: 64");
	is_int(buf[0], 0x86, "its first byte");
	is_int(pcisrc_config_max(ps, 0, 0, 0, 0, buf, 256), 256, "the last block of 00:00.0: past 0x100, 256 at most");
	is_int(buf[0x40], 0xaa, "the last block's byte");
	is_int(buf[0x50], 0xff, "not the first block's");
	is_int(pcisrc_config(ps, 0, 0, 0, 0, buf), 272, "up to 0x100 in 16-byte steps");
	is_int(buf[0x100], 0xbb, "extended space, the unterminated last line");
	is_int(buf[0x10f], 0x01, "its last byte");
	is_int(buf[0x60], 0xff, "0xff where none is given");
	is_int(pcisrc_config(ps, 0, 9, 0, 0, buf), 0, "a device not in it");
	pcisrc_close(ps);
	text = "00:00.0 x\n" HEX64 "\n40: 01\n";
	ps = pci_dump_parse(text, strlen(text), &why);
	ok(ps && pcisrc_config(ps, 0, 0, 0, 0, buf) == 64, "a hex line after a blank line: no device's");
	pcisrc_close(ps);
	free(why);
}

/* Names from a pci.ids laid out as the real one is: vendors sorted, each
 * followed by its devices and subsystems, long blocks between them (so a
 * bisection lands inside them), comments, and the classes at the end. */
static void test_names(void)
{
	char path[] = "/tmp/nodeaudit-pciids-XXXXXX", *v;
	int fd = mkstemp(path), i;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		ok(0, "temporary pci.ids");
		return;
	}
	fputs("# pci.ids test list\n#\n0001  SafeNet (wrong ID)\n", f);
	fputs("1000  Broadcom / LSI\n\t0001  53c810\n\t\t1000 1000  LSI53C810AE PCI to SCSI I/O Processor\n", f);
	fputs("10de  NVIDIA Corporation\n", f);
	for (i = 0; i < 3000; i++)
		fprintf(f, "\t%04x  Filler device %d\n", i, i);
	fputs("\t2331  GH100 [H100 PCIe]\n", f);
	fputs("# a comment between vendors\n\n1af4  Red Hat, Inc.\n\t1000  Virtio network device\n", f);
	fputs("8086  Intel Corporation\n", f);
	for (i = 0; i < 3000; i++)
		fprintf(f, "\t%04x  Intel filler %d\n\t\t8086 0001  Subsystem %d\n", i, i, i);
	fputs("ffff  Illegal Vendor ID\n", f);
	fputs("\n# List of known device classes\nC 00  Unclassified device\n\t00  Non-VGA unclassified device\n", f);
	fclose(f);
	pci_names_file(path);
	v = pci_vendor_name(0x0001);
	is_str(v, "SafeNet (wrong ID)", "pci.ids: the first vendor");
	free(v);
	v = pci_vendor_name(0x1af4);
	is_str(v, "Red Hat, Inc.", "pci.ids: a vendor after a long block and a comment");
	free(v);
	v = pci_device_name(0x1af4, 0x1000);
	is_str(v, "Virtio network device", "pci.ids: its device");
	free(v);
	v = pci_device_name(0x10de, 0x2331);
	is_str(v, "GH100 [H100 PCIe]", "pci.ids: a device after 3000 others");
	free(v);
	v = pci_vendor_name(0xffff);
	is_str(v, "Illegal Vendor ID", "pci.ids: the last vendor, before the classes");
	free(v);
	v = pci_vendor_name(0x8086);
	is_str(v, "Intel Corporation", "pci.ids: a vendor whose block follows it");
	free(v);
	v = pci_device_name(0x8086, 2999);
	is_str(v, "Intel filler 2999", "pci.ids: the last device of a 190 kB block");
	free(v);
	v = pci_vendor_name(0x0002);
	ok(v == NULL, "pci.ids: a vendor that is not listed has no name");
	free(v);
	v = pci_device_name(0x1000, 0x0002);
	ok(v == NULL, "pci.ids: a device that is not listed has no name");
	free(v);
	/* Out of order: the bisection misses, the scan from the top finds it. */
	f = fopen(path, "w");
	fputs("8086  Intel Corporation\n1af4  Red Hat, Inc.\n0001  SafeNet (wrong ID)\n", f);
	fclose(f);
	pci_names_file(path);
	v = pci_vendor_name(0x0001);
	is_str(v, "SafeNet (wrong ID)", "pci.ids out of order: still found");
	free(v);
	pci_names_release();
	unlink(path);
}

int main(void)
{
	test_names();
	{
		/* The list named without libpci is the one its handle reads. */
		struct pci_access *a = pci_alloc();
		is_str(pci_names_default(), a->id_file_name, "pci.ids: libpci's default list, without libpci");
		pci_cleanup(a);
	}
	/* Per lane and direction: 250 MB/s, 500 MB/s, then 128b/130b. */
	is_int(pci_link_bandwidth(2.5, 1), 250000000, "2.5 GT/s x1: 8b/10b");
	is_int(pci_link_bandwidth(5, 4), 2000000000, "5 GT/s x4: 8b/10b");
	is_int(pci_link_bandwidth(8, 16), 15753846153, "8 GT/s x16: 128b/130b");
	is_int(pci_link_bandwidth(16, 16), 31507692307, "16 GT/s x16");
	is_int(pci_link_bandwidth(32, 16), 63015384615, "32 GT/s x16");
	is_int(pci_link_bandwidth(64, 16), 121000000000, "64 GT/s x16: FLIT, 242/256");
	is_int(pci_link_bandwidth(0, 16), 0, "unknown speed: 0");
	is_int(pci_link_bandwidth(8, 0), 0, "link down: 0");

	is_int(pci_classify(0x10de, 0x2331, 0x030200), PCI_ACCEL, "NVIDIA 3D controller");
	is_int(pci_classify(0x8086, 0x46a6, 0x030000), PCI_ACCEL, "Intel iGPU (VGA)");
	is_int(pci_classify(0x1002, 0x740f, 0x038000), PCI_ACCEL, "AMD Instinct (display 0x0380)");
	is_int(pci_classify(0x1e60, 0x2864, 0x120000), PCI_ACCEL, "Hailo-8 (processing accelerator)");
	is_int(pci_classify(0x8086, 0x225c, 0x0b4000), PCI_ACCEL, "Xeon Phi (co-processor)");
	is_int(pci_classify(0x19e5, 0xd801, 0xff0000), PCI_ACCEL, "Ascend 910 in an unassigned class");
	is_int(pci_classify(0x19e5, 0x1822, 0x020000), PCI_NIC, "Huawei Hi1822 is a NIC");
	is_int(pci_classify(0x1a03, 0x2000, 0x030000), PCI_OTHER, "ASPEED BMC VGA is not an accelerator");
	is_int(pci_classify(0x1af4, 0x1050, 0x030000), PCI_OTHER, "virtio-gpu is not an accelerator");
	is_int(pci_classify(0x10de, 0x22a3, 0x068000), PCI_BRIDGE, "NVSwitch bridge is not an accelerator");
	is_int(pci_classify(0x10de, 0x10f0, 0x040300), PCI_OTHER, "GPU audio function");
	is_int(pci_classify(0x15b3, 0x101d, 0x020000), PCI_NIC, "ConnectX Ethernet");
	is_int(pci_classify(0x15b3, 0x101b, 0x020700), PCI_NIC, "ConnectX InfiniBand");
	is_int(pci_classify(0x15b3, 0x1003, 0x0c0600), PCI_NIC, "ConnectX-3 (mlx4) as an old InfiniBand class");
	is_int(pci_classify(0x15b3, 0x1003, 0x028000), PCI_NIC, "ConnectX-3 VPI (network, other)");
	is_int(pci_classify(0x8086, 0x4229, 0x028000), PCI_OTHER, "Wi-Fi is not a NIC here");
	is_int(pci_classify(0x10ee, 0x5004, 0x058000), PCI_ACCEL, "Alveo U250");
	is_int(pci_classify(0x10ee, 0x7011, 0x058000), PCI_OTHER, "other Xilinx FPGA core");

	ok(dump_ok("00:00.0 Host bridge: x\n" HEX64, NULL), "a 64-byte dump");
	ok(dump_ok("0000:00:00.0 Host bridge: x\n\tControl: I/O+\n" HEX64 "\n", NULL), "with -v text");
	ok(dump_ok("", "no device"), "empty");
	ok(dump_ok("00:00.0 x\n00: 86 80\n", "less than 64 bytes"), "truncated");
	ok(dump_ok("00:00.0 x\n00: 86 8g\n", "line 2: malformed"), "bad hex");
	ok(dump_ok("00: 86 80\n", "before any device"), "bytes before a device");
	{
		char *why = NULL;
		ok(!pci_dump_parse("00:00.0 x\0\n", 11, &why) && why && strstr(why, "NUL"), "binary");
		free(why);
	}
	test_dump_bytes();
	test_snapshot();
	return done_testing();
}
