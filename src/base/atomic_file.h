#ifndef TRACETAX_ATOMIC_FILE_H
#define TRACETAX_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

/*
 * The one way tracetax writes a file a reader may be looking at (the
 * results document, CSV, Markdown, the report, pair's JSON): whole or not
 * at all. @fn writes to a temporary of its own in the same directory
 * (.NAME.tmp.XXXXXX, created O_EXCL|O_NOFOLLOW: nothing planted there is
 * followed); it is fsync'ed, renamed over @path, and the directory
 * fsync'ed, so a reader or a crash sees the old file or the new one, never
 * half of one. NULL or "-"
 * is stdout. @fn returns 0, or -1 with errno set. Returns 0, or -1 after
 * error() said what failed, the temporary removed.
 */
int atomic_file_write(const char *path, int (*fn)(FILE *f, void *arg), void *arg);
/* The same for a string. */
int atomic_file_text(const char *path, const char *text);
/*
 * Whether @path can be written this way, asked now (before minutes of
 * measuring): creates the temporary and removes it again. 0, or -1 with a
 * one-line message in @err.
 */
int atomic_file_check(const char *path, char *err, size_t len);

#endif
