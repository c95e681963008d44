/* read/sysroot-internal.h - what sysroot.c and sysroot-cache.c share: the cache's entries, opening in the root */
#ifndef NODEAUDIT_SYSROOT_INTERNAL_H
#define NODEAUDIT_SYSROOT_INTERNAL_H

#include "read/sysroot.h"

/* A directory's listing: its names, sorted; names[i][-1] is its d_type. */
struct sr_listing {
	char **names;
	size_t n;
};

/* One path of the run's cache (sysroot-cache.c): what reading or listing
 * it got, and how that ended.  48 bytes and the path: a 256-CPU capture
 * has thousands, every page of them a first touch. */
struct sr_entry {
	struct sr_entry *next;
	char *buf;                /* the file, NUL-terminated (sr_cache_alloc()) */
	struct sr_listing *ls;    /* its listing (has_list, list_err 0), else NULL */
	uint32_t hash;            /* hash_path(path), its low 32 bits: compared before the paths */
	uint32_t len;             /* of buf (at most SR_MAX_FILE) */
	int file_err, list_err;   /* 0 or the negative errno the read ended with */
	unsigned has_file : 1, has_list : 1, recorded : 1;
	signed dir : 2;           /* 1 a directory, -1 missing, 0 not asked */
	signed exists : 2;        /* 1 there (a file or a directory), -1 missing, 0 not asked */
	char path[];              /* in the same block */
};

/*
 * What the run's listing of path's directory says of path: LISTED_NO when
 * the name is not in it (then path is missing: no system call needs to
 * say it), LISTED_REG, LISTED_DIR or LISTED_OTHER (a link, a FIFO, a type
 * the file system does not give) by its d_type, LISTED_UNKNOWN where the
 * directory was not listed whole.  Sysroots only: a tree of files lists
 * every name it holds, where /proc does not list its threads.
 */
enum { LISTED_UNKNOWN = -1, LISTED_NO, LISTED_REG, LISTED_DIR, LISTED_OTHER };

/* path without its leading slashes, "." for the root. */
const char *sr_rel(const char *path);
/* path opened inside the root (openat2 RESOLVE_IN_ROOT, or a walk by hand). */
int sr_open_in_root(struct sysroot *sr, const char *path, int flags);
/* path appended to the paths read (for snapshot). */
void sr_record(struct sysroot *sr, const char *path);

/* n bytes (16-aligned) that live until sysroot_close(): entries, paths,
 * the files' contents. */
void *sr_cache_alloc(struct sysroot *sr, size_t n);
/* path's entry, made when new; sr_cache_find() never makes one. */
struct sr_entry *sr_cache_get(struct sysroot *sr, const char *path);
struct sr_entry *sr_cache_find(struct sysroot *sr, const char *path);
/* 1 when a directory above path is known missing. */
int sr_above_missing(struct sysroot *sr, const char *path);
/* LISTED_*: what path's directory's listing says of it. */
int sr_listed(struct sysroot *sr, const char *path);
void sr_cache_free(struct sysroot *sr);
/* The sysroot's private view (read-only, nodev, nosuid, noexec) as its
 * root descriptor, where one can be made; sr->view says whether it was. */
void sr_make_view(struct sysroot *sr);


/* Natural order of two char * (qsort): cpu2 before cpu10. */
int sr_natcmp(const void *pa, const void *pb);
/* A listing's name, its d_type in the byte before it; freed with sr_free_typed(). */
char *sr_typed_name(const char *name, unsigned char type);
void sr_free_typed(char **names, size_t n);

#endif
