/* read/lazylib.h - a shared library loaded by name, where a platform may lack it */
#ifndef NODEAUDIT_LAZYLIB_H
#define NODEAUDIT_LAZYLIB_H

#include <stddef.h>
#include <stdint.h>

/*
 * What every build needs is linked.  A library that a platform may lack
 * (libcpuid: x86 only, and not packaged everywhere) is loaded by name the
 * first time a command needs it, the way systemd loads its optional ones:
 *
 *   LAZYLIB_SYM(cpuid_present);              a slot of the header's type
 *   struct lazy_sym syms[] = { LAZYLIB_ARG(cpuid_present), ... };
 *   lazylib_load(&lib, syms, n);             then sym_cpuid_present()
 *
 * The symbol's name and its slot come from the one token, and the slot is
 * declared with the type of the function the library's header declares, so
 * a name without its prototype, or a call of the wrong type, does not
 * compile.  LAZYLIB_NOTE() records the library in the binary's
 * .note.dlopen section (https://systemd.io/ELF_DLOPEN_METADATA/), where
 * packaging tools read what a program loads by name.
 *
 * A lazylib is loaded once: later calls give the first answer.
 */
#define LAZYLIB_SYM(fn) static __typeof__(&fn) sym_##fn
#define LAZYLIB_ARG(fn) { #fn, (void **)&sym_##fn }

/* The FDO note: owner "FDO", type 0x407c0c0a, a NUL-terminated JSON array. */
#define LAZYLIB_NOTE_JSON(feature, description, priority, soname) \
	"[{\"feature\":\"" feature "\",\"description\":\"" description "\",\"priority\":\"" \
	priority "\",\"soname\":[\"" soname "\"]}]"
/* AddressSanitizer pads a global with a red zone, which in a note section
 * would read as notes of zeros. */
#if defined(__clang__)
#define LAZYLIB_NOTE_NO_ASAN __attribute__((no_sanitize("address")))
#else
#define LAZYLIB_NOTE_NO_ASAN
#endif
#define LAZYLIB_NOTE(feature, description, priority, soname) \
	static const struct { \
		uint32_t n_namesz, n_descsz, n_type; \
		char name[4]; \
		char desc[(sizeof(LAZYLIB_NOTE_JSON(#feature, description, priority, soname)) + 3) & ~3u]; \
	} lazylib_note_##feature __attribute__((used, aligned(4), section(".note.dlopen"))) \
		LAZYLIB_NOTE_NO_ASAN = { \
		4, sizeof(LAZYLIB_NOTE_JSON(#feature, description, priority, soname)), 0x407c0c0a, "FDO", \
		LAZYLIB_NOTE_JSON(#feature, description, priority, soname) \
	}

enum lazylib_state {
	LAZYLIB_UNTRIED = 0,
	LAZYLIB_LOADED = 1,
	LAZYLIB_MISSING = -1,   /* not installed: no file of that name */
	LAZYLIB_BROKEN = -2,    /* found, but it does not load, or lacks a symbol */
};

struct lazylib {
	const char *soname;   /* e.g. "libcpuid.so.16" */
	int state;            /* enum lazylib_state */
	char err[256];        /* why not, when state < 0 */
};

struct lazy_sym {
	const char *name;
	void **slot;
};

/* 0 when soname is loaded and every symbol bound; else -1, with l->state
 * saying whether it is missing or broken and a one-line reason in l->err
 * ("not installed", the loader's message, or the first missing symbol);
 * no slot is to be used then. */
int lazylib_load(struct lazylib *l, const struct lazy_sym *syms, size_t n);

#endif
