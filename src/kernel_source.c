/* Kernel sources: embedded at build time from the files in cl/, or read from
 * CLGPU_KERNEL_DIR for people working on kernels. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int is_valid_name(const char *name) {
  if (!*name) return 0;
  for (const char *c = name; *c; c++) {
    int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
             *c == '_' || *c == '-';
    if (!ok) return 0;
  }
  return 1;
}

static clgpu_status read_from_folder(const char *folder, const char *name, char **source,
                                     size_t *length) {
  size_t size = strlen(folder) + strlen(name) + 5;
  char *path = malloc(size);
  CLGPU__RETURN_ERROR_IF(!path, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  snprintf(path, size, "%s/%s.cl", folder, name);
  FILE *file = fopen(path, "rb");
  if (!file) {
    clgpu_status status = clgpu__fail(CLGPU_KERNEL_SOURCE_NOT_FOUND,
                                      "kernel source \"%s\" (CLGPU_KERNEL_DIR): cannot open "
                                      "\"%s\": %s",
                                      name, path, strerror(errno));
    free(path);
    return status;
  }
  char *text = NULL;
  size_t used = 0, capacity = 0;
  clgpu_status status = CLGPU_SUCCESS;
  for (;;) {
    if (capacity - used < 4096) {
      capacity = capacity ? 2 * capacity : 16384;
      char *grown = realloc(text, capacity + 1);
      if (!grown) {
        status = clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
        break;
      }
      text = grown;
    }
    size_t got = fread(text + used, 1, capacity - used, file);
    used += got;
    if (got == 0) {
      if (ferror(file)) {
        status =
            clgpu__fail(CLGPU_IO_ERROR, "kernel source \"%s\": reading \"%s\" failed", name, path);
      }
      break;
    }
  }
  fclose(file);
  free(path);
  if (status != CLGPU_SUCCESS) {
    free(text);
    return status;
  }
  text[used] = '\0';
  *source = text;
  if (length) *length = used;
  return CLGPU_SUCCESS;
}

static clgpu_status check_name(const char *name) {
  CLGPU__RETURN_ERROR_IF(!name, CLGPU_INVALID_ARGUMENT, "kernel source name is NULL");
  CLGPU__RETURN_ERROR_IF(!is_valid_name(name), CLGPU_INVALID_ARGUMENT,
                         "\"%s\" is not a kernel file stem (letters, digits, '_' and '-' only)",
                         name);
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__find_embedded_source(const char *name, const clgpu__embedded_source **found) {
  *found = NULL;
  CLGPU__FORWARD_IF_ERROR(check_name(name));
  const char *folder = getenv("CLGPU_KERNEL_DIR");
  if (folder && *folder) return CLGPU_SUCCESS;
  for (size_t i = 0; i < clgpu__embedded_source_count; i++) {
    if (strcmp(clgpu__embedded_sources[i].name, name) == 0) {
      *found = &clgpu__embedded_sources[i];
      return CLGPU_SUCCESS;
    }
  }
  clgpu__fail(CLGPU_KERNEL_SOURCE_NOT_FOUND,
              "no embedded kernel source named \"%s\"; known:", name);
  for (size_t i = 0; i < clgpu__embedded_source_count; i++) {
    clgpu__append_error(" %s", clgpu__embedded_sources[i].name);
  }
  return CLGPU_KERNEL_SOURCE_NOT_FOUND;
}

clgpu_status clgpu_kernel_source(const char *name, char **source, size_t *length) {
  CLGPU__RETURN_ERROR_IF(!source, CLGPU_INVALID_ARGUMENT, "clgpu_kernel_source: source is NULL");
  *source = NULL;
  if (length) *length = 0;
  const clgpu__embedded_source *embedded = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu__find_embedded_source(name, &embedded));
  if (!embedded) return read_from_folder(getenv("CLGPU_KERNEL_DIR"), name, source, length);
  char *copy = malloc(embedded->length + 1);
  CLGPU__RETURN_ERROR_IF(!copy, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  memcpy(copy, embedded->text, embedded->length + 1);
  *source = copy;
  if (length) *length = embedded->length;
  return CLGPU_SUCCESS;
}
