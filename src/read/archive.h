/* read/archive.h - a .tar[.gz|.xz|.bz2] sysroot unpacked into a directory */
#ifndef NODEAUDIT_ARCHIVE_H
#define NODEAUDIT_ARCHIVE_H

/* 1 when p names an archive sysroot_open() unpacks (.tar, .tar.gz, .tgz,
 * .tar.xz, .txz, .tar.bz2). */
int sr_is_archive(const char *p);
/* archive unpacked into dir, within SR_MAX_UNPACK_BYTES, _FILES and
 * _STREAM; on failure prints one line and returns -1. */
int sr_unpack(const char *archive, const char *dir);

#endif
