/* probe/pci.h - the PCI probe's helpers others call: link arithmetic and
 * the table of accelerators */
#ifndef NODEAUDIT_PROBE_PCI_H
#define NODEAUDIT_PROBE_PCI_H

#include <stdint.h>

/* probe/pci.c, for tests only: 1 reads every function's config space
 * (the path before sysfs-first); the facts must be the same. */
extern int pci_probe_config_all;

/* Usable bandwidth per direction in bytes/s of a link (probe/pci.c):
 * 8b/10b below 8 GT/s, 128b/130b to 32 GT/s, FLIT 242/256 from 64 GT/s. */
uint64_t pci_link_bandwidth(double gts, int width);
/* A sysfs link speed ("8.0 GT/s PCIe", "Unknown") into GT/s (probe/pci.c):
 * 0 (v = 0 for unknown) or -1 garbled.  s must be writable (it may be
 * trimmed in place). */
int pci_parse_speed(const char *s, double *v);

/*** The table of accelerators (probe/pci-vendors.c) ***/

enum pci_kind { PCI_OTHER, PCI_ACCEL, PCI_NIC, PCI_BRIDGE };
/* cls: the 24-bit class code (base, sub, prog-if). */
enum pci_kind pci_classify(unsigned vendor, unsigned device, unsigned cls);
/* Short name of a known accelerator vendor, or NULL. */
const char *pci_ai_vendor(unsigned vendor);

#endif
