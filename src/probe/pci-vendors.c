/* probe/pci-vendors.c - the one table of what counts as an accelerator */
#include "config.h"
#include "read/libpci.h"
#include "probe/pci.h"
#include "lib/util.h"

#include <stddef.h>

/*
 * Accelerators are display and 3D controllers (0x0300, 0x0302), processing
 * accelerators (0x1200) and co-processors (0x0b40), plus the cards of the
 * vendors below that use other classes (AMD Instinct and Intel Data Center
 * GPUs say "Display controller" 0x0380; NPUs often say 0xff00 or 0x0880).
 * Not accelerators: bridges of any vendor, virtio and other emulated
 * displays, and the BMC's VGA that every server has.
 */

#define ANY_CLASS 0xffffffu

struct ai_vendor {
	unsigned vendor;
	const char *name;
	unsigned cls16[3];       /* other classes (base<<8 | sub) that count; ANY_CLASS: all */
	unsigned devices[12];    /* or only these device ids (0-terminated) */
};

static const struct ai_vendor ai_vendors[] = {
	{ 0x10de, "NVIDIA", { 0x0380 }, { 0 } },
	{ 0x1002, "AMD", { 0x0380 }, { 0 } },
	{ 0x8086, "Intel", { 0x0380 }, { 0 } },
	{ 0x1da3, "Intel Habana", { ANY_CLASS }, { 0 } },
	/* Huawei makes NICs and HBAs too: only the Ascend NPUs. */
	{ 0x19e5, "Huawei Ascend", { 0 }, { 0xd100, 0xd105, 0xd107, 0xd500, 0xd801, 0xd802, 0xd803, 0 } },
	{ 0xcabc, "Cambricon", { ANY_CLASS }, { 0 } },
	{ 0x1e52, "Tenstorrent", { ANY_CLASS }, { 0 } },
	{ 0x1e60, "Hailo", { ANY_CLASS }, { 0 } },
	/* Qualcomm makes Wi-Fi and modems too: only the Cloud AI 100. */
	{ 0x17cb, "Qualcomm", { 0 }, { 0xa100, 0 } },
	{ 0x1d95, "Graphcore", { ANY_CLASS }, { 0 } },
	{ 0x1de0, "Groq", { ANY_CLASS }, { 0 } },
	{ 0x1bcf, "NEC Vector Engine", { ANY_CLASS }, { 0 } },
	/* Xilinx PCIe cores are everywhere: only the Alveo cards. */
	{ 0x10ee, "Xilinx/AMD Alveo", { 0 },
	  { 0x5000, 0x5004, 0x5005, 0x500c, 0x5020, 0x505c, 0xd000, 0xd004, 0xd00c, 0xd020, 0 } },
	{ 0x1e36, "Enflame", { ANY_CLASS }, { 0 } },
	{ 0x1ed2, "FuriosaAI", { ANY_CLASS }, { 0 } },
};

/* Display controllers that are not accelerators: BMC and emulated VGA. */
static const unsigned not_accel_vendors[] = {
	0x1a03,  /* ASPEED (BMC graphics) */
	0x102b,  /* Matrox (server BMC graphics) */
	0x1af4,  /* virtio (virtio-gpu) */
	0x1b36,  /* Red Hat QEMU devices (QXL) */
	0x1234,  /* QEMU/Bochs standard VGA */
	0x15ad,  /* VMware SVGA */
	0x80ee,  /* VirtualBox graphics */
	0x1414,  /* Microsoft Hyper-V */
};

const char *pci_ai_vendor(unsigned vendor)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(ai_vendors); i++)
		if (ai_vendors[i].vendor == vendor)
			return ai_vendors[i].name;
	return NULL;
}

static int in_ai_table(unsigned vendor, unsigned device, unsigned cls16)
{
	size_t i, j;
	for (i = 0; i < ARRAY_SIZE(ai_vendors); i++) {
		const struct ai_vendor *v = &ai_vendors[i];
		if (v->vendor != vendor)
			continue;
		for (j = 0; j < ARRAY_SIZE(v->cls16) && v->cls16[j]; j++)
			if (v->cls16[j] == ANY_CLASS || v->cls16[j] == cls16)
				return 1;
		for (j = 0; j < ARRAY_SIZE(v->devices) && v->devices[j]; j++)
			if (v->devices[j] == device)
				return 1;
	}
	return 0;
}

enum pci_kind pci_classify(unsigned vendor, unsigned device, unsigned cls)
{
	unsigned cls16 = cls >> 8;
	size_t i;
	if ((cls16 >> 8) == 0x06)
		return PCI_BRIDGE;
	/* Ethernet, InfiniBand, and InfiniBand as older HCAs (mlx4) class it. */
	if (cls16 == 0x0200 || cls16 == 0x0207 || cls16 == 0x0c06)
		return PCI_NIC;
	/* ConnectX-3 VPI says "Network controller" (0x0280), as Wi-Fi does. */
	if (vendor == 0x15b3 && (cls16 >> 8) == 0x02)
		return PCI_NIC;
	for (i = 0; i < ARRAY_SIZE(not_accel_vendors); i++)
		if (not_accel_vendors[i] == vendor)
			return PCI_OTHER;
	if (cls16 == 0x0300 || cls16 == 0x0302 || cls16 == 0x1200 || cls16 == 0x0b40)
		return PCI_ACCEL;
	/* Audio, USB and serial bus functions of a GPU are not accelerators. */
	if ((cls16 >> 8) == 0x04 || (cls16 >> 8) == 0x0c || (cls16 >> 8) == 0x07)
		return PCI_OTHER;
	return in_ai_table(vendor, device, cls16) ? PCI_ACCEL : PCI_OTHER;
}
