/* A growing string (text.h). */
#include "text.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for `more` bytes and a NUL after the text. */
static int reserve(clgpu__text *text, size_t more) {
  if (text->failed) return 0;
  if (more > SIZE_MAX - text->length - 1) {
    text->failed = 1;
    return 0;
  }
  size_t needed = text->length + more + 1;
  if (needed <= text->capacity) return 1;
  size_t capacity = text->capacity ? text->capacity : 256;
  while (capacity < needed) capacity = capacity > SIZE_MAX / 2 ? needed : capacity * 2;
  char *grown = realloc(text->data, capacity);
  if (!grown) {
    text->failed = 1;
    return 0;
  }
  text->data = grown;
  text->capacity = capacity;
  return 1;
}

static void add_formatted(clgpu__text *text, const char *format, va_list args) {
  va_list again;
  va_copy(again, args);
  int needed = vsnprintf(NULL, 0, format, args);
  if (needed < 0) {
    text->failed = 1;
  } else if (reserve(text, (size_t)needed)) {
    vsnprintf(text->data + text->length, (size_t)needed + 1, format, again);
    text->length += (size_t)needed;
  }
  va_end(again);
}

void clgpu__text_add(clgpu__text *text, const char *format, ...) {
  if (text->failed) return;
  va_list args;
  va_start(args, format);
  add_formatted(text, format, args);
  va_end(args);
}

void clgpu__text_add_bytes(clgpu__text *text, const char *bytes, size_t length) {
  if (!reserve(text, length)) return;
  memcpy(text->data + text->length, bytes, length);
  text->length += length;
  text->data[text->length] = '\0';
}

char *clgpu__text_take(clgpu__text *text, size_t *length) {
  char *data = NULL;
  if (!text->failed && reserve(text, 0)) {
    data = text->data;
    data[text->length] = '\0';
    if (length) *length = text->length;
  } else {
    free(text->data);
  }
  memset(text, 0, sizeof *text);
  return data;
}

char *clgpu__format(const char *format, ...) {
  clgpu__text text = {NULL, 0, 0, 0};
  va_list args;
  va_start(args, format);
  add_formatted(&text, format, args);
  va_end(args);
  return clgpu__text_take(&text, NULL);
}
