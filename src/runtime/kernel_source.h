/* Kernel sources (kernel_source.c and the table tools/embed_cl.py generates
 * from cl/): the embedded files, or the folder CLGPU_KERNEL_DIR names. */
#ifndef CLGPU_SRC_KERNEL_SOURCE_H
#define CLGPU_SRC_KERNEL_SOURCE_H

#include <stddef.h>

#include <clgpu/status.h>

typedef struct clgpu__embedded_source {
  const char *name;
  const unsigned char *text; /* NUL-terminated */
  size_t length;
  unsigned char digest[32]; /* SHA-256 of the text, computed at build time */
} clgpu__embedded_source;

extern const clgpu__embedded_source clgpu__embedded_sources[];
extern const size_t clgpu__embedded_source_count;

/* The embedded source named `name`, or NULL in *found when CLGPU_KERNEL_DIR
 * is set (the caller reads the folder instead). Errors:
 * CLGPU_INVALID_ARGUMENT (not a valid stem), CLGPU_KERNEL_SOURCE_NOT_FOUND. */
clgpu_status clgpu__find_embedded_source(const char *name, const clgpu__embedded_source **found);

/* Internal twins of public functions (the public one is a wrapper): the
 * library calls these, never its own public entry points. */
clgpu_status clgpu__kernel_source(const char *name, char **source, size_t *length);

#endif
