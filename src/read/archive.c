/* read/archive.c - a .tar[.gz|.xz|.bz2] sysroot unpacked, bounded, into a directory */
#include "config.h"
#include "read/archive.h"
#include "read/sysroot.h"
#include "read/lazylib.h"
#include "lib/util.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sr_is_archive(const char *p)
{
	return str_endswith(p, ".tar") || str_endswith(p, ".tar.gz") || str_endswith(p, ".tgz") ||
	       str_endswith(p, ".tar.xz") || str_endswith(p, ".txz") || str_endswith(p, ".tar.bz2");
}

/*
 * Unpacking an archive, through libarchive: one reader decompresses the
 * stream (gzip, xz, bzip2: the library's own, no program run), reads each
 * member's header, and hands exactly that member to its writer, so what is
 * judged is what is made.  Two passes over the file: the first reads it
 * through without writing anything, so that an archive whose members add
 * up to more than SR_MAX_UNPACK_BYTES, or hold more than
 * SR_MAX_UNPACK_FILES entries, or whose tar stream runs past
 * SR_MAX_UNPACK_STREAM before its end, is refused before a byte of it
 * reaches TMPDIR (an 80 KB .tar.xz can hold 500 MB of zeros); the second
 * unpacks it, judged and bounded again (the file may have changed).
 *
 * Judged: what a capture never holds (sysfs, procfs, the dumps of hwloc
 * and util-linux and our own snapshot are regular files, directories and
 * links).  A device node made as root would be opened by the read layer,
 * before its fstat() could refuse it, wherever it cannot read through its
 * nodev view (no CAP_SYS_ADMIN, a kernel before 5.12), and opening a
 * watchdog arms it, opening a tape rewinds it; a FIFO, a socket and a
 * sparse file are refused with them.  The writer keeps every member inside
 * the directory (ARCHIVE_EXTRACT_SECURE_NODOTDOT, _SYMLINKS,
 * _NOABSOLUTEPATHS: no "..", no path through a link the archive made, no
 * absolute name) and restores no owner, mode bits beyond the umask,
 * extended attribute, ACL or file flag.
 */
#define TAR_NAME_SHOWN 1024   /* bytes of a member's name kept for a message */

/*
 * libarchive is loaded by name (read/lazylib.h), and only by a run that
 * unpacks an archive: Debian's pulls in libxml2, ICU and libstdc++, whose
 * mapping and start-up would cost every other run 1.6 ms (an empty
 * program linked with it against one without, medians of 101 alternating
 * runs on the reference VM: 2.19 against 0.59 ms), a quarter of a live
 * check.  systemd loads its libarchive the same way.
 */
LAZYLIB_NOTE(archive, "reading a tar sysroot (--sysroot FILE.tar, .tar.gz, .tar.xz, .tar.bz2)", "required",
	     ARCHIVE_SONAME);
LAZYLIB_SYM(archive_entry_filetype);
LAZYLIB_SYM(archive_entry_hardlink);
LAZYLIB_SYM(archive_entry_pathname);
LAZYLIB_SYM(archive_entry_size);
LAZYLIB_SYM(archive_entry_size_is_set);
LAZYLIB_SYM(archive_entry_sparse_count);
LAZYLIB_SYM(archive_error_string);
LAZYLIB_SYM(archive_filter_bytes);
LAZYLIB_SYM(archive_read_data_block);
LAZYLIB_SYM(archive_read_data_skip);
LAZYLIB_SYM(archive_read_free);
LAZYLIB_SYM(archive_read_new);
LAZYLIB_SYM(archive_read_next_header);
LAZYLIB_SYM(archive_read_open_fd);
LAZYLIB_SYM(archive_read_support_filter_bzip2);
LAZYLIB_SYM(archive_read_support_filter_gzip);
LAZYLIB_SYM(archive_read_support_filter_xz);
LAZYLIB_SYM(archive_read_support_format_tar);
LAZYLIB_SYM(archive_write_close);
LAZYLIB_SYM(archive_write_data_block);
LAZYLIB_SYM(archive_write_disk_new);
LAZYLIB_SYM(archive_write_disk_set_options);
LAZYLIB_SYM(archive_write_finish_entry);
LAZYLIB_SYM(archive_write_free);
LAZYLIB_SYM(archive_write_header);
static struct lazylib libarchive = { ARCHIVE_SONAME, 0, "" };

/* 0 when libarchive is loaded; else -1, with libarchive.err saying why. */
static int load_libarchive(void)
{
	static const struct lazy_sym syms[] = {
		LAZYLIB_ARG(archive_entry_filetype),
		LAZYLIB_ARG(archive_entry_hardlink),
		LAZYLIB_ARG(archive_entry_pathname),
		LAZYLIB_ARG(archive_entry_size),
		LAZYLIB_ARG(archive_entry_size_is_set),
		LAZYLIB_ARG(archive_entry_sparse_count),
		LAZYLIB_ARG(archive_error_string),
		LAZYLIB_ARG(archive_filter_bytes),
		LAZYLIB_ARG(archive_read_data_block),
		LAZYLIB_ARG(archive_read_data_skip),
		LAZYLIB_ARG(archive_read_free),
		LAZYLIB_ARG(archive_read_new),
		LAZYLIB_ARG(archive_read_next_header),
		LAZYLIB_ARG(archive_read_open_fd),
		LAZYLIB_ARG(archive_read_support_filter_bzip2),
		LAZYLIB_ARG(archive_read_support_filter_gzip),
		LAZYLIB_ARG(archive_read_support_filter_xz),
		LAZYLIB_ARG(archive_read_support_format_tar),
		LAZYLIB_ARG(archive_write_close),
		LAZYLIB_ARG(archive_write_data_block),
		LAZYLIB_ARG(archive_write_disk_new),
		LAZYLIB_ARG(archive_write_disk_set_options),
		LAZYLIB_ARG(archive_write_finish_entry),
		LAZYLIB_ARG(archive_write_free),
		LAZYLIB_ARG(archive_write_header),
	};
	return lazylib_load(&libarchive, syms, sizeof(syms) / sizeof(syms[0]));
}

/* What a member is when a capture never holds it, for the message; NULL
 * for a regular file, a directory, a symbolic or a hard link. */
static const char *member_kind(struct archive_entry *e)
{
	if (sym_archive_entry_hardlink(e))
		return NULL;
	switch (sym_archive_entry_filetype(e)) {
	case AE_IFREG:
		return sym_archive_entry_sparse_count(e) > 0 ? "a sparse file" : NULL;
	case AE_IFDIR:
	case AE_IFLNK:
		return NULL;
	case AE_IFCHR:
		return "a character device";
	case AE_IFBLK:
		return "a block device";
	case AE_IFIFO:
		return "a FIFO";
	case AE_IFSOCK:
		return "a socket";
	}
	return "of no type a tar archive defines";
}

/* A member's name for a message: cut to TAR_NAME_SHOWN bytes, cleaned
 * (it comes from the archive); malloc'd. */
static char *member_name(struct archive_entry *e)
{
	const char *p = sym_archive_entry_pathname(e);
	char *s, *clean;
	if (!p)
		p = "";
	if (strlen(p) > TAR_NAME_SHOWN)
		s = xasprintf("%.*s...", TAR_NAME_SHOWN, p);
	else
		s = xstrdup(p);
	clean = str_clean(s, CLEAN_LINE);
	if (clean) {
		free(s);
		s = clean;
	}
	return s;
}

/* One pass's state. */
struct pass {
	const char *archive;     /* the file's name, for messages */
	struct archive *r, *w;   /* w only when unpacking */
	uint64_t bytes, files;
};

/* The reader over afd, from its start. */
static struct archive *reader(int afd)
{
	struct archive *r;
	if (lseek(afd, 0, SEEK_SET) < 0)
		return NULL;
	r = sym_archive_read_new();
	if (!r)
		die("out of memory");
	sym_archive_read_support_filter_gzip(r);
	sym_archive_read_support_filter_xz(r);
	sym_archive_read_support_filter_bzip2(r);
	sym_archive_read_support_format_tar(r);
	if (sym_archive_read_open_fd(r, afd, 64 << 10) != ARCHIVE_OK) {
		sym_archive_read_free(r);
		return NULL;
	}
	return r;
}

/* The member's data, from the reader to the writer. */
static int copy_data(struct pass *p)
{
	const void *buf;
	size_t len;
	la_int64_t off;
	int r;
	while ((r = sym_archive_read_data_block(p->r, &buf, &len, &off)) == ARCHIVE_OK)
		if (sym_archive_write_data_block(p->w, buf, len, off) != ARCHIVE_OK)
			return ARCHIVE_FATAL;
	return r == ARCHIVE_EOF ? ARCHIVE_OK : r;
}

/* A member: judged, counted against the caps, skipped or made.  0, or -1
 * after the one line. */
static int member(struct pass *p, struct archive_entry *e)
{
	const char *kind = member_kind(e);
	int64_t size = sym_archive_entry_size_is_set(e) ? sym_archive_entry_size(e) : 0;
	if (kind) {
		char *name = member_name(e);
		error("cannot unpack '%s': member '%s' is %s: a capture holds regular files, "
		      "directories and links only", p->archive, name, kind);
		free(name);
		return -1;
	}
	p->files++;
	p->bytes += size > 0 ? (uint64_t)size : 0;
	if (p->bytes > SR_MAX_UNPACK_BYTES || p->files > SR_MAX_UNPACK_FILES)
		return error("cannot unpack '%s': it holds more than %u MiB or %u files; refusing",
			     p->archive, SR_MAX_UNPACK_BYTES >> 20, SR_MAX_UNPACK_FILES);
	if (!p->w)
		return sym_archive_read_data_skip(p->r) == ARCHIVE_OK ? 0
			: error("cannot unpack '%s': not a readable tar archive (%s)", p->archive,
				sym_archive_error_string(p->r));
	if (sym_archive_write_header(p->w, e) != ARCHIVE_OK ||
	    (size > 0 && copy_data(p) != ARCHIVE_OK) || sym_archive_write_finish_entry(p->w) != ARCHIVE_OK) {
		char *name = member_name(e);
		const char *why = sym_archive_error_string(p->w);
		error("cannot unpack '%s': member '%s': %s", p->archive, name, why ? why : "cannot be made");
		free(name);
		return -1;
	}
	return 0;
}

/* Every member of the archive, to its end-of-archive blocks (what follows,
 * padding or gigabytes of zeros, is never read).  0, or -1 after the one
 * line. */
static int members(struct pass *p)
{
	struct archive_entry *e;
	int r;
	for (;;) {
		r = sym_archive_read_next_header(p->r, &e);
		if (r == ARCHIVE_EOF)
			return 0;
		if (r < ARCHIVE_WARN)
			return error("cannot unpack '%s': not a readable tar archive (%s)", p->archive,
				     sym_archive_error_string(p->r));
		if (member(p, e) < 0)
			return -1;
		if ((uint64_t)sym_archive_filter_bytes(p->r, 0) > SR_MAX_UNPACK_STREAM)
			return error("cannot unpack '%s': its tar stream runs past %u MiB before the end of "
				     "the archive; refusing", p->archive, SR_MAX_UNPACK_STREAM >> 20);
	}
}

/* One pass: read through (dir NULL) or unpacked into dir.  The writer
 * makes the members' names relative to the working directory, so the pass
 * moves into dir for its length and back. */
static int unpack_pass(const char *archive, int afd, const char *dir)
{
	struct pass p = { .archive = archive };
	int cwd = -1, r;
	p.r = reader(afd);
	if (!p.r)
		return error("cannot unpack '%s': %s", archive, strerror(errno ? errno : EIO));
	if (dir) {
		p.w = sym_archive_write_disk_new();
		if (!p.w)
			die("out of memory");
		sym_archive_write_disk_set_options(p.w, ARCHIVE_EXTRACT_SECURE_NODOTDOT |
						    ARCHIVE_EXTRACT_SECURE_SYMLINKS |
						    ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
		cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (cwd < 0 || chdir(dir) < 0) {
			int e = errno;
			if (cwd >= 0)
				close(cwd);
			sym_archive_write_free(p.w);
			sym_archive_read_free(p.r);
			return error("cannot unpack '%s' into '%s': %s", archive, dir, strerror(e));
		}
	}
	r = members(&p);
	if (p.w) {
		/* Directories get their modes last, as a tar does. */
		if (sym_archive_write_close(p.w) != ARCHIVE_OK && r == 0)
			r = error("cannot unpack '%s': %s", archive, sym_archive_error_string(p.w));
		sym_archive_write_free(p.w);
		if (fchdir(cwd) < 0)
			die("cannot return to the working directory: %s", strerror(errno));
		close(cwd);
	}
	sym_archive_read_free(p.r);
	return r;
}

int sr_unpack(const char *archive, const char *dir)
{
	struct stat st;
	int afd, r;

	afd = open(archive, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (afd < 0)
		return error("cannot unpack '%s': %s", archive, strerror(errno));
	if (fstat(afd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(afd);
		return error("cannot unpack '%s': not a regular file", archive);
	}
	if ((uint64_t)st.st_size > SR_MAX_UNPACK_STREAM) {
		close(afd);
		return error("cannot unpack '%s': the archive is larger than %u MiB; refusing", archive,
			     SR_MAX_UNPACK_STREAM >> 20);
	}
	if (load_libarchive() < 0) {
		close(afd);
		return error("cannot unpack '%s': reading a tar archive takes libarchive, and %s", archive,
			     libarchive.err);
	}
	/* First read it through without writing anything: a bomb is refused
	 * before a byte of it reaches TMPDIR.  Then unpack it, bounded again. */
	r = unpack_pass(archive, afd, NULL);
	if (r == 0)
		r = unpack_pass(archive, afd, dir);
	close(afd);
	return r;
}
