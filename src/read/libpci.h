/* read/libpci.h - libpci behind one small interface: config space, names, the
 * snapshot dump; and the one table of accelerator vendors and classes */
#ifndef NODEAUDIT_SRC_PCI_H
#define NODEAUDIT_SRC_PCI_H

#include <stdint.h>
#include "read/sysroot.h"

/*
 * A config-space source: `lspci -xxx` text (--pci-dump, a snapshot's
 * /nodeaudit/pci.dump), parsed once by pci_dump_parse(), which judges it
 * and keeps its bytes.  Sysfs config space is never read through libpci
 * (it opens paths with plain open()): probe/pci.c reads it through the
 * read layer.
 */
struct pcisrc;

/* Parse and judge an lspci -xxx dump: a source, or NULL with a message
 * naming what is wrong in *why (malloc'd; without the file name). */
struct pcisrc *pci_dump_parse(const char *text, size_t len, char **why);
void pcisrc_close(struct pcisrc *ps);

/* Devices the dump holds.  Returns the count; fills *addrs (malloc'd,
 * four ints per device: domain, bus, device, function). */
size_t pcisrc_devices(struct pcisrc *ps, unsigned (**addrs)[4]);

/* Read as much config space as can be read (0, 64, 256 ... 4096 bytes)
 * into buf (4096 bytes); returns the length. */
int pcisrc_config(struct pcisrc *ps, unsigned dom, unsigned bus, unsigned dev,
		  unsigned fn, uint8_t *buf);
/* The same, reading at most max bytes (256: the standard header and
 * capability list, enough for the PCIe link registers; extended space is
 * slow to read on some hosts, a VM traps every dword). */
int pcisrc_config_max(struct pcisrc *ps, unsigned dom, unsigned bus, unsigned dev,
		      unsigned fn, uint8_t *buf, int max);

/* Names from pci.ids (NULL when there is no pci.ids or no entry); malloc'd.
 * Works with ps NULL (a private name-only handle). */
char *pci_vendor_name(unsigned vendor);
char *pci_device_name(unsigned vendor, unsigned device);
/* Release the name database (at exit; optional). */
void pci_names_release(void);
/* Name devices from this pci.ids instead of libpci's (the unit tests). */
void pci_names_file(const char *path);
/* The list libpci reads by default (its pci_alloc()'s id_file_name). */
const char *pci_names_default(void);

/* Write the config space of every device under sr's /sys/bus/pci as an
 * `lspci -xxx`-style dump to DIR/nodeaudit/pci.dump (what `probe` reads
 * back from a sysroot); config files are read through the read layer.  Returns 0 or a negative errno after one message. */
int pci_snapshot(struct sysroot *sr, const char *dir);

#endif
