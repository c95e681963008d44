/* read/libpci.h - libpci behind one small interface: config space, names, the
 * snapshot dump; and the one table of accelerator vendors and classes */
#ifndef NODEAUDIT_SRC_PCI_H
#define NODEAUDIT_SRC_PCI_H

#include <stdint.h>
#include "read/sysroot.h"

/*
 * A config-space source: libpci's dump method on `lspci -xxx` text
 * (--pci-dump, a snapshot's /nodeaudit/pci.dump).  libpci's error handler
 * would exit the process: ours records the message and unwinds, so every
 * failure comes back as -1 with a message.  Sysfs config space is never
 * read through libpci (it opens paths with plain open()): probe/pci.c
 * reads it through the read layer.
 */
struct pcisrc;

/* text: a dump already validated by pci_dump_check(); libpci parses a
 * private copy of it.  Returns a source, or NULL with a message in *err
 * (malloc'd). */
struct pcisrc *pcisrc_open_text(const char *text, size_t len, char **err);
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

/* Validate an lspci -xxx dump before libpci reads it: 0, or -1 with a
 * message naming what is wrong (malloc'd; without the file name). */
int pci_dump_check(const char *text, size_t len, char **why);

/* Write the config space of every device under sr's /sys/bus/pci as an
 * `lspci -xxx`-style dump to DIR/nodeaudit/pci.dump (what `probe` reads
 * back from a sysroot); config files are read through the read layer.  Returns 0 or a negative errno after one message. */
int pci_snapshot(struct sysroot *sr, const char *dir);

#endif
