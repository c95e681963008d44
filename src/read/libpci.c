/* read/libpci.c - libpci adapter: config space (sysfs or dump), names, snapshot */
#include "config.h"
#include "read/libpci.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pci/pci.h>

/*** Error hooks ***/

/*
 * libpci reports through acc->error, declared noreturn; its default prints
 * and calls exit(1).  Ours keeps the message and longjmps back to the call
 * that armed it (every libpci call below, all of them for names, runs
 * under it).  After an unwind the handle may be half-built: it is
 * abandoned, never used again.
 */
static jmp_buf *pci_jmp;
static char pci_msg[512];

static void __attribute__((noreturn, format(printf, 1, 2))) pci_err_hook(char *msg, ...)
{
	va_list ap;
	va_start(ap, msg);
	vsnprintf(pci_msg, sizeof(pci_msg), msg, ap);
	va_end(ap);
	strsquash(pci_msg);
	if (pci_jmp)
		longjmp(*pci_jmp, 1);
	die("libpci: %s", pci_msg);   /* not reached: every call is armed */
}

static void __attribute__((format(printf, 1, 2))) pci_warn_hook(char *msg, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, msg);
	vsnprintf(buf, sizeof(buf), msg, ap);
	va_end(ap);
	debug("libpci: %s", strsquash(buf));
}

static void __attribute__((format(printf, 1, 2))) pci_debug_hook(char *msg, ...)
{
	(void)msg;
}

/*** The library ***/

/* A new handle with our hooks. */
static struct pci_access *new_access(void)
{
	struct pci_access *a;
	a = pci_alloc();
	a->error = pci_err_hook;
	a->warning = pci_warn_hook;
	a->debug = pci_debug_hook;
	a->numeric_ids = 0;
	return a;
}

/*** Sources ***/

/*
 * A dump is parsed once, by pci_dump_parse() below: the pass that judges
 * each line (with its number in the message) keeps the bytes it judged, as
 * libpci's dump method would have held them (filled with 0xff, readable up
 * to the highest byte given; a device named twice read from its last
 * block; hex lines after a blank line belong to no device).  libpci's
 * reader could only be handed a file name (a private copy of the text) and
 * reported by a longjmp out of its error hook, with no line number.
 */
struct dumpdev {
	unsigned addr[4];  /* domain, bus, device, function */
	int len;           /* bytes readable: the highest offset given + 1 */
	uint8_t *data;     /* 256 bytes, 4096 once an offset past 255 is given */
};

struct pcisrc {
	struct dumpdev *dev;
	size_t n, alloc;
};

void pcisrc_close(struct pcisrc *ps)
{
	size_t i;
	if (!ps)
		return;
	for (i = 0; i < ps->n; i++)
		free(ps->dev[i].data);
	free(ps->dev);
	free(ps);
}

size_t pcisrc_devices(struct pcisrc *ps, unsigned (**addrs)[4])
{
	size_t i;
	*addrs = NULL;
	if (!ps->n)
		return 0;
	*addrs = xcalloc(ps->n, sizeof(**addrs));
	/* Last in the file first, as libpci links them; the caller sorts. */
	for (i = 0; i < ps->n; i++)
		memcpy((*addrs)[i], ps->dev[ps->n - 1 - i].addr, sizeof((*addrs)[i]));
	return ps->n;
}

int pcisrc_config(struct pcisrc *ps, unsigned dom, unsigned bus, unsigned dev,
		  unsigned fn, uint8_t *buf)
{
	return pcisrc_config_max(ps, dom, bus, dev, fn, buf, 4096);
}

static int read_block(const struct dumpdev *d, int pos, uint8_t *buf, int len)
{
	if (pos + len > d->len)
		return 0;
	memcpy(buf, d->data + pos, (size_t)len);
	return 1;
}

int pcisrc_config_max(struct pcisrc *ps, unsigned dom, unsigned bus, unsigned dev,
		      unsigned fn, uint8_t *buf, int max)
{
	const struct dumpdev *d = NULL;
	size_t i;
	int len = 0, pos;
	if (!ps)
		return 0;
	for (i = ps->n; i-- > 0 && !d;)
		if (ps->dev[i].addr[0] == dom && ps->dev[i].addr[1] == bus && ps->dev[i].addr[2] == dev &&
		    ps->dev[i].addr[3] == fn)
			d = &ps->dev[i];
	if (!d || !read_block(d, 0, buf, 64))
		return 0;
	len = 64;
	/* Whole chunks first, then line by line where a dump stops early. */
	if (read_block(d, 64, buf + 64, 192))
		len = 256;
	else
		for (pos = 64; pos < 256 && read_block(d, pos, buf + pos, 16); pos += 16)
			len = pos + 16;
	if (len == 256 && max > 256) {
		if (read_block(d, 256, buf + 256, 4096 - 256))
			len = 4096;
		else
			for (pos = 256; pos < 4096 && read_block(d, pos, buf + pos, 16); pos += 16)
				len = pos + 16;
	}
	return len;
}

/*** Names ***/

static struct pci_access *names_acc;
static int names_failed;
static char *names_path;   /* pci_names_file()'s list, else NULL: libpci's */

/* The list libpci's own handle would read: pci_alloc() sets it from these
 * two macros of its config.h (tests/unit/test-pci.c checks that the
 * loaded library agrees); without them, the library is asked. */
const char *pci_names_default(void)
{
#if defined(PCI_PATH_IDS_DIR) && defined(PCI_IDS)
	return PCI_PATH_IDS_DIR "/" PCI_IDS;
#else
	if (!names_acc)
		names_acc = new_access();
	return names_acc->id_file_name;
#endif
}

/*
 * libpci parses all of pci.ids into a hash on the first lookup (1.3 MB:
 * most of a probe's user time).  A probe names a handful of devices, so
 * when the list is a plain file, look the few lines up in it directly:
 * the same lines libpci would use, the same name text.  The file is
 * mapped, not read: reading it copies 1.3 MB into freshly faulted memory
 * (5 to 20 ms on the reference VM), while a lookup touches only the pages
 * up to its vendor.  A compressed list (pci.ids.gz) goes through libpci.
 */
static const char *ids_text;   /* the plain list, mapped */
static size_t ids_len;
static int ids_state;          /* 0 untried, 1 mapped, -1 use libpci */

#define IDS_MAX (64u << 20)

static void ids_load(void)
{
	const char *name = names_path ? names_path : pci_names_default();
	char *plain;
	size_t n;
	struct stat st;
	int fd;
	ids_state = -1;
	if (!name)
		return;
	n = strlen(name);
	if (n > 3 && !strcmp(name + n - 3, ".gz")) {
		if (stat(name, &st) == 0)
			return;    /* compressed: libpci reads it */
		plain = xstrdup(name);
		plain[n - 3] = '\0';
	} else
		plain = xstrdup(name);
	fd = open(plain, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	free(plain);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (unsigned long long)st.st_size < IDS_MAX) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			ids_text = m;
			ids_len = (size_t)st.st_size;
			ids_state = 1;
		}
	}
	close(fd);
}

/* The name after the 4-digit id at p, up to the end of its line. */
static char *ids_name(const char *p, const char *end)
{
	const char *e;
	p += 4;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end)
		return NULL;
	e = memchr(p, '\n', (size_t)(end - p));
	if (!e)
		e = end;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	return e > p ? xstrndup(p, (size_t)(e - p)) : NULL;
}

static int is_id_at(const char *p, const char *end, const char *id)
{
	return end - p > 4 && !strncmp(p, id, 4) && (p[4] == ' ' || p[4] == '\t');
}

/* The line after the one at p, or NULL at the end. */
static const char *next_line(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl && nl + 1 < end ? nl + 1 : NULL;
}

static int is_hexc(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_hex4(const char *p, const char *end)
{
	return end - p > 4 && is_hexc(p[0]) && is_hexc(p[1]) && is_hexc(p[2]) && is_hexc(p[3]) &&
	       (p[4] == ' ' || p[4] == '\t');
}

/* The first line after the one at p that does not start with a tab, or
 * NULL at the end: over a vendor's devices and subsystems (Intel's run to
 * 8,000 lines) one memchr() a line and no other call. */
static const char *next_untabbed(const char *p, const char *end)
{
	for (;;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl || nl + 1 >= end)
			return NULL;
		p = nl + 1;
		if (*p != '\t')
			return p;
	}
}

/* What the line at p starts: 1 a vendor ("vvvv  Name"), 2 the device
 * classes ("C xx  Name", after the last vendor), 0 anything else (a
 * vendor's devices and subsystems, a comment, a blank line). */
static int line_kind(const char *p, const char *end)
{
	if (is_hex4(p, end))
		return 1;
	return p[0] == 'C' && end - p > 1 && p[1] == ' ' ? 2 : 0;
}

/* The start of the line before the one at p (p > base, at a line start). */
static const char *prev_line(const char *base, const char *p)
{
	const char *nl = p - 1 > base ? memrchr(base, '\n', (size_t)(p - 1 - base)) : NULL;
	return nl ? nl + 1 : base;
}

/*
 * The vendor line of vid by bisection: pci.ids keeps its vendors sorted
 * ("Please keep sorted"), each at the start of a line, with the device
 * classes ("C xx") after the last one.  A probe lands at a line, most
 * often among a vendor's devices, and walks both ways at once, a line at
 * a time, up to the nearer of the vendor line above it (the block it is
 * in) and the next vendor line below: a probe inside Intel's 370 kB of
 * devices walks to whichever end is closer instead of always to the
 * last.  About twenty probes touch a few dozen pages, where a scan from
 * the top reads through half a megabyte of the map.  Only an exact id is
 * ever returned; a list that is not sorted gets the scan instead.
 */
static const char *ids_bisect(const char *vid)
{
	const char *base = ids_text, *end = ids_text + ids_len;
	size_t lo = 0, hi = ids_len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *p = base + mid, *f, *b, *nx;
		int c, k = 0, back = 0;
		if (mid > 0 && base[mid - 1] != '\n') {
			p = memchr(p, '\n', (size_t)(end - p));
			p = p && p + 1 < end ? p + 1 : NULL;
		}
		if (!p) {
			hi = mid;
			continue;
		}
		/* f walks down from p, b up from the line before it. */
		for (f = p, b = p; f; ) {
			if ((k = line_kind(f, end)) != 0)
				break;
			if (b > base) {
				b = prev_line(base, b);
				if ((k = line_kind(b, end)) != 0) {
					back = 1;
					break;
				}
			}
			f = next_line(f, end);
		}
		if (!k) {             /* no vendor line from the block above to the end */
			hi = mid;
			continue;
		}
		if (back) {           /* b: the vendor of the block p is in */
			c = k == 2 ? 1 : strncasecmp(b, vid, 4);
			if (c == 0)
				return b;
			if (c > 0)
				hi = (size_t)(b - base);
			else {            /* vid's line is below p (p is no vendor line) */
				nx = next_line(p, end);
				lo = nx ? (size_t)(nx - base) : ids_len;
			}
			continue;
		}
		c = k == 2 ? 1 : strncasecmp(f, vid, 4);   /* f: the first vendor line from p */
		if (c == 0)
			return f;
		if (c > 0)
			hi = mid;
		else {
			nx = next_line(f, end);
			lo = nx ? (size_t)(nx - base) : ids_len;
		}
	}
	return NULL;
}

/* The vendor lines already found (NULL: not in the list): a vendor's name
 * and each of its devices' names start from the same line, and a bisection
 * can cross Intel's 370 kB of devices. */
static struct {
	unsigned vid;
	const char *line;
} vendor_memo[16];
static size_t nvendor_memo;

static const char *ids_vendor_line(unsigned a)
{
	char vid[8];
	const char *p, *end = ids_text + ids_len;
	size_t i;
	for (i = 0; i < nvendor_memo; i++)
		if (vendor_memo[i].vid == a)
			return vendor_memo[i].line;
	snprintf(vid, sizeof(vid), "%04x", a & 0xffff);
	/* The vendor line: "vvvv  Name" at the start of a line; where the
	 * bisection misses (a list not sorted), every vendor line in turn. */
	p = ids_bisect(vid);
	for (p = p ? p : ids_text; p && !is_id_at(p, end, vid);)
		p = next_untabbed(p, end);
	if (nvendor_memo < ARRAY_SIZE(vendor_memo)) {
		vendor_memo[nvendor_memo].vid = a;
		vendor_memo[nvendor_memo++].line = p;
	}
	return p;
}

static char *ids_lookup(int what, unsigned a, unsigned b)
{
	char did[8];
	const char *p = ids_vendor_line(a), *end = ids_text + ids_len;
	if (!p)
		return NULL;
	if (what == PCI_LOOKUP_VENDOR)
		return ids_name(p, end);
	snprintf(did, sizeof(did), "%04x", b & 0xffff);
	/* Its devices: "\tdddd  Name" up to the next line that is not a
	 * device, subsystem, comment or blank line. */
	for (p = next_line(p, end); p; p = next_line(p, end)) {
		if (*p == '\t' && p + 1 < end && p[1] != '\t') {
			if (is_id_at(p + 1, end, did))
				return ids_name(p + 1, end);
		} else if (*p != '\t' && *p != '#' && *p != '\n' && *p != '\r' && *p != '\0')
			return NULL;
		else if (*p == '\0')
			return NULL;
	}
	return NULL;
}

static char *lookup_now(int what, unsigned a, unsigned b);

/*
 * Names already looked up: a server's 64 accelerators, its switch ports
 * and its NICs are a few ids many times over, and a vendor's device list
 * in pci.ids is walked line by line (Intel's runs to thousands of lines).
 * A small open-addressing table of (what, vendor, device) -> name.
 */
struct name_memo {
	unsigned key_what, a, b;
	int used;
	char *name;   /* NULL: no name */
};
static struct name_memo *memo;
static size_t nmemo, amemo;

static char *lookup(int what, unsigned a, unsigned b)
{
	size_t i;
	if (2 * (nmemo + 1) > amemo) {
		size_t na = amemo ? 2 * amemo : 64, j;
		struct name_memo *nm = xcalloc(na, sizeof(*nm));
		for (j = 0; j < amemo; j++)
			if (memo[j].used) {
				for (i = (memo[j].key_what * 31u + memo[j].a * 65599u + memo[j].b) & (na - 1);
				     nm[i].used; i = (i + 1) & (na - 1))
					;
				nm[i] = memo[j];
			}
		free(memo);
		memo = nm;
		amemo = na;
	}
	for (i = ((unsigned)what * 31u + a * 65599u + b) & (amemo - 1); memo[i].used; i = (i + 1) & (amemo - 1))
		if (memo[i].key_what == (unsigned)what && memo[i].a == a && memo[i].b == b)
			return memo[i].name ? xstrdup(memo[i].name) : NULL;
	memo[i].used = 1;
	memo[i].key_what = (unsigned)what;
	memo[i].a = a;
	memo[i].b = b;
	memo[i].name = lookup_now(what, a, b);
	nmemo++;
	return memo[i].name ? xstrdup(memo[i].name) : NULL;
}

static char *lookup_now(int what, unsigned a, unsigned b)
{
	jmp_buf jb;
	int flags = what | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB;
	char buf[256], *r;
	if (names_failed)
		return NULL;
	if (!ids_state)
		ids_load();
	if (ids_state > 0)
		return ids_lookup(what, a, b);
	if (!names_acc)
		names_acc = new_access();
	pci_jmp = &jb;
	if (setjmp(jb)) {
		/* A garbled pci.ids: names are unknown, nothing else is. */
		pci_jmp = NULL;
		debug("libpci: %s", pci_msg);
		names_failed = 1;
		return NULL;
	}
	if (names_path && names_acc->id_file_name != names_path)
		pci_set_name_list_path(names_acc, names_path, 0);
	r = pci_lookup_name(names_acc, buf, sizeof(buf), flags, a, b);
	pci_jmp = NULL;
	return r ? xstrdup(r) : NULL;
}

char *pci_vendor_name(unsigned vendor)
{
	return lookup(PCI_LOOKUP_VENDOR, vendor, 0);
}

char *pci_device_name(unsigned vendor, unsigned device)
{
	return lookup(PCI_LOOKUP_DEVICE, vendor, device);
}

void pci_names_file(const char *path)
{
	pci_names_release();
	names_path = xstrdup(path);
}

void pci_names_release(void)
{
	jmp_buf jb;
	if (names_acc && !names_failed) {
		pci_jmp = &jb;
		if (!setjmp(jb))
			pci_cleanup(names_acc);
		pci_jmp = NULL;
	}
	names_acc = NULL;
	names_failed = 0;
	free(names_path);
	names_path = NULL;
	if (ids_state > 0)
		munmap((void *)ids_text, ids_len);
	ids_text = NULL;
	ids_len = 0;
	ids_state = 0;
	nvendor_memo = 0;
	/* The names were of that list. */
	while (amemo > 0)
		free(memo[--amemo].name);
	free(memo);
	memo = NULL;
	nmemo = 0;
}

/*** Dump parsing ***/

static int hexn(const char *s, int n)
{
	int i;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* "bb:dd.f ", "dddd:bb:dd.f " or "ddddd:bb:dd.f " (the three forms
 * libpci's dump reader takes): 1 and the address in addr. */
static int dev_line(const char *s, unsigned addr[4])
{
	int k = hexn(s, 5) && s[5] == ':' ? 6 : hexn(s, 4) && s[4] == ':' ? 5 : 0;
	const char *b = s + k;
	if (!(hexn(b, 2) && b[2] == ':' && hexn(b + 3, 2) && b[5] == '.' && isdigit((unsigned char)b[6]) &&
	      b[7] == ' '))
		return 0;
	addr[0] = k ? (unsigned)strtoul(s, NULL, 16) : 0;
	addr[1] = (unsigned)strtoul(b, NULL, 16);
	addr[2] = (unsigned)strtoul(b + 3, NULL, 16);
	addr[3] = (unsigned)(b[6] - '0');
	return 1;
}

static struct dumpdev *add_dev(struct pcisrc *ps, const unsigned addr[4])
{
	struct dumpdev *d;
	if (ps->n == ps->alloc) {
		ps->alloc = ps->alloc ? 2 * ps->alloc : 16;
		ps->dev = xrealloc(ps->dev, ps->alloc * sizeof(*ps->dev));
	}
	d = &ps->dev[ps->n++];
	memcpy(d->addr, addr, sizeof(d->addr));
	d->len = 0;
	d->data = xmalloc(256);
	memset(d->data, 0xff, 256);
	return d;
}

static void put_byte(struct dumpdev *d, unsigned off, uint8_t v)
{
	if (off >= 256 && d->len <= 256) {
		d->data = xrealloc(d->data, 4096);
		memset(d->data + 256, 0xff, 4096 - 256);
	}
	d->data[off] = v;
	if ((int)off + 1 > d->len)
		d->len = (int)off + 1;
}

static void *dump_refused(struct pcisrc *ps, char **why, char *msg)
{
	pcisrc_close(ps);
	*why = msg;
	return NULL;
}

struct pcisrc *pci_dump_parse(const char *text, size_t len, char **why)
{
	const char *p = text, *end = text + len, *nl;
	int lineno = 0, have_dev = 0, dev_lineno = 0;
	unsigned maxoff = 0, addr[4];
	char bdf[32] = "";
	struct pcisrc *ps = xcalloc(1, sizeof(*ps));
	struct dumpdev *cur = NULL;   /* where hex lines go; none after a blank line */
	*why = NULL;
	if (memchr(text, '\0', len))
		return dump_refused(ps, why, xstrdup("not a text file (NUL bytes)"));
	for (; p < end; p = nl + 1) {
		size_t n;
		char line[300];
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		n = (size_t)(nl - p);
		lineno++;
		if (n >= 254)
			return dump_refused(ps, why, xasprintf("line %d is too long for a config dump", lineno));
		memcpy(line, p, n);
		line[n] = '\0';
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (dev_line(line, addr)) {
			if (have_dev && maxoff < 64)
				return dump_refused(ps, why, xasprintf("device %s (line %d) has less than 64 bytes of config space",
								     bdf, dev_lineno));
			snprintf(bdf, sizeof(bdf), "%.*s", (int)strcspn(line, " "), line);
			have_dev = 1;
			dev_lineno = lineno;
			maxoff = 0;
			cur = add_dev(ps, addr);
			continue;
		}
		if (!n) {
			cur = NULL;
			continue;
		}
		/* A hex line: "OFF: xx xx ... xx" (OFF 2-8 hex digits). */
		{
			size_t k = 0;
			while (k < 9 && isxdigit((unsigned char)line[k]))
				k++;
			if (k >= 2 && k <= 8 && line[k] == ':' && line[k + 1] == ' ') {
				unsigned off = (unsigned)strtoul(line, NULL, 16), at = off;
				const char *z = line + k + 2;
				int bytes = 0;
				if (!have_dev)
					return dump_refused(ps, why, xasprintf("line %d: config bytes before any device line",
									     lineno));
				while (hexn(z, 2) && (z[2] == ' ' || z[2] == '\0')) {
					if (cur && at < 4096)
						put_byte(cur, at, (uint8_t)strtoul((char[3]){ z[0], z[1], '\0' }, NULL, 16));
					at++;
					bytes++;
					z += z[2] ? 3 : 2;
				}
				if (*z || !bytes || off + (unsigned)bytes > 4096)
					return dump_refused(ps, why, xasprintf("line %d: malformed config bytes", lineno));
				if (off + (unsigned)bytes > maxoff && off <= maxoff)
					maxoff = off + (unsigned)bytes;
				continue;
			}
		}
		/* Anything else is lspci -v text between the hex blocks. */
	}
	if (!have_dev)
		return dump_refused(ps, why, xstrdup("no device in it (expected 'lspci -xxx' output)"));
	if (maxoff < 64)
		return dump_refused(ps, why, xasprintf("device %s (line %d) has less than 64 bytes of config space",
						     bdf, dev_lineno));
	return ps;
}

/*** Snapshot ***/

/*
 * Every function's config space, read through the read layer (inside the
 * sysroot, regular files only, never more than 4096 bytes): what root reads
 * of it, 4096 or 256 bytes; others get the first 64.
 */
static int read_config_file(struct sysroot *sr, const char *name, uint8_t *buf)
{
	char *path = xasprintf("/sys/bus/pci/devices/%s/config", name);
	int fd = sr_open_file(sr, path), len = 0;
	free(path);
	if (fd < 0)
		return 0;
	while (len < 4096) {
		ssize_t r = pread(fd, buf + len, (size_t)(4096 - len), len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (int)r;
	}
	close(fd);
	return len & ~15;
}

int pci_snapshot(struct sysroot *sr, const char *dir)
{
	char **names = NULL, *sub, *out;
	size_t n = 0, i;
	uint8_t *buf;
	FILE *fp;
	int r;

	r = sr_list(sr, "/sys/bus/pci/devices", &names, &n);
	if (r == -ENOENT)
		return 0;   /* no PCI bus: nothing to write */
	if (r < 0) {
		error("cannot list '/sys/bus/pci/devices': %s", sr_reason(r));
		return r;
	}
	sub = xasprintf("%s/nodeaudit", dir);
	if (mkdir(sub, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		error("cannot create '%s': %s", sub, strerror(errno));
		free(sub);
		sr_free_list(names, n);
		return r;
	}
	out = xasprintf("%s/pci.dump", sub);
	free(sub);
	fp = fopen(out, "w");
	if (!fp) {
		r = -errno;
		error("cannot write '%s': %s", out, strerror(errno));
		free(out);
		sr_free_list(names, n);
		return r;
	}
	buf = xmalloc(4096);
	for (i = 0; i < n; i++) {
		unsigned dom, bus, dev, fn;
		int len, off, k;
		if (sscanf(names[i], "%x:%x:%x.%u", &dom, &bus, &dev, &fn) != 4)
			continue;
		len = read_config_file(sr, names[i], buf);
		if (len < 64)
			continue;
		/* libpci's reader wants a blank after the address. */
		fprintf(fp, "%04x:%02x:%02x.%u Class %02x%02x: %02x%02x:%02x%02x\n", dom, bus, dev, fn,
			buf[11], buf[10], buf[1], buf[0], buf[3], buf[2]);
		for (off = 0; off < len; off += 16) {
			fprintf(fp, off < 256 ? "%02x:" : "%03x:", off);
			for (k = 0; k < 16; k++)
				fprintf(fp, " %02x", buf[off + k]);
			fputc('\n', fp);
		}
		fputc('\n', fp);
	}
	free(buf);
	sr_free_list(names, n);
	if (fflush(fp) != 0 || ferror(fp)) {
		r = -errno;
		fclose(fp);
		error("cannot write '%s': %s", out, strerror(-r));
		free(out);
		return r ? r : -EIO;
	}
	fclose(fp);
	free(out);
	return 0;
}
