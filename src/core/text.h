/* A growing string for generated text (kernel argument lists, program
 * sources, cache keys, constants): appends after a failed allocation do
 * nothing, and the failure shows once, when the text is taken. */
#ifndef CLGPU_SRC_TEXT_H
#define CLGPU_SRC_TEXT_H

#include <stddef.h>

#include "status_internal.h"

typedef struct clgpu__text {
  char *data;
  size_t length;
  size_t capacity;
  int failed; /* an allocation or a format failed; appends do nothing */
} clgpu__text;

/* Append printf-formatted text. */
void clgpu__text_add(clgpu__text *text, const char *format, ...) CLGPU__PRINTF(2, 3);

/* Append `length` bytes (which may hold NUL bytes). */
void clgpu__text_add_bytes(clgpu__text *text, const char *bytes, size_t length);

/* The text, malloc'd and NUL-terminated, its length in `*length` when not
 * NULL; NULL when an append failed. Either way `text` is empty again. */
char *clgpu__text_take(clgpu__text *text, size_t *length);

/* printf into a new malloc'd string; NULL when out of memory. */
char *clgpu__format(const char *format, ...) CLGPU__PRINTF(1, 2);

#endif
