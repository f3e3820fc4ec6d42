/* The disk cache (disk_cache.c): program binaries kept in a folder across
 * processes, and reading a file from a folder others may write. */
#ifndef CLGPU_SRC_DISK_CACHE_H
#define CLGPU_SRC_DISK_CACHE_H

#include <stddef.h>

#include <clgpu/context.h>

#include "quirks.h"

/* Resolve the folder a context uses: NULL when off. `from_environment` is
 * CLGPU_DISK_CACHE as clgpu__read_environment parsed it. Creates the folder (and
 * its parents); NULL when that fails. The result is malloc'd. */
char *clgpu__disk_cache_folder(const char *option, clgpu_disk_cache_mode mode, int from_environment,
                               const clgpu__quirks *quirks);

/* The part of every cache file's key text that names the library and the
 * device: "clgpu <version>\nplatform: <name> | <version>\ndevice: <name> |
 * <vendor> | <version> | <driver>\n". malloc'd, NULL out of memory. */
char *clgpu__disk_cache_device_text(const clgpu_device_info *info);

/* Load a binary for `key` from `folder`. Returns 1 and a malloc'd binary when
 * a valid file is there, 0 when there is none, -1 when a file is there but
 * is unusable (truncated, corrupt, foreign). */
int clgpu__disk_cache_load(const char *folder, const char *key, unsigned char **binary,
                           size_t *size);

/* Store a binary for `key` atomically. Returns 1 on success, 0 when the file
 * could not be written (never an error for the caller). */
int clgpu__disk_cache_store(const char *folder, const char *key, const unsigned char *binary,
                            size_t size);

/* What reading a file in a folder others may write found. */
typedef enum clgpu__file_result {
  CLGPU__FILE_READ = 0,
  CLGPU__FILE_MISSING,     /* no such file (or a path through a non-folder) */
  CLGPU__FILE_NOT_REGULAR, /* a folder, FIFO, device, socket; a link when links are refused */
  CLGPU__FILE_TOO_LARGE,   /* more than the limit */
  CLGPU__FILE_UNREADABLE,  /* opening or reading failed */
  CLGPU__FILE_NO_MEMORY,
} clgpu__file_result;

/* Read a regular file whole, never blocking on what sits at `path` (a FIFO)
 * and never reading more than `limit` bytes (a link to /dev/zero is refused,
 * a file above the limit too). `follow_links` 0 refuses a symbolic link at
 * the path itself. On CLGPU__FILE_READ, *data is malloc'd, NUL-terminated
 * after its *size bytes; otherwise *data is NULL and `reason` (if not NULL)
 * says what was found ("a FIFO", "70000000 bytes", strerror's text). */
clgpu__file_result clgpu__read_regular_file(const char *path, size_t limit, int follow_links,
                                            unsigned char **data, size_t *size, char *reason,
                                            size_t reason_size);

#endif
