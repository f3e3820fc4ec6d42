/* Kernel sources: embedded at build time from the files in cl/, or read from
 * CLGPU_KERNEL_DIR for people working on kernels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/program.h>

#include "disk_cache.h"
#include "kernel_source.h"
#include "status_internal.h"

static int is_valid_name(const char *name) {
  if (!*name) return 0;
  for (const char *c = name; *c; c++) {
    int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
             *c == '_' || *c == '-';
    if (!ok) return 0;
  }
  return 1;
}

/* The largest kernel source read from CLGPU_KERNEL_DIR: clgpu's own are
 * below 32 KiB. */
#define KERNEL_SOURCE_LIMIT ((size_t)4 << 20)

static clgpu_status read_from_folder(const char *folder, const char *name, char **source,
                                     size_t *length) {
  size_t size = strlen(folder) + strlen(name) + 5;
  char *path = malloc(size);
  CLGPU__RETURN_ERROR_IF(!path, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  snprintf(path, size, "%s/%s.cl", folder, name);
  /* Links are followed (a kernel folder of links into a source tree is
   * fine), but only to a regular file of bounded size. */
  unsigned char *text = NULL;
  size_t used = 0;
  char reason[128];
  clgpu__file_result result =
      clgpu__read_regular_file(path, KERNEL_SOURCE_LIMIT, 1, &text, &used, reason, sizeof reason);
  clgpu_status status = CLGPU_SUCCESS;
  switch (result) {
    case CLGPU__FILE_READ:
      break;
    case CLGPU__FILE_MISSING:
      status = clgpu__fail(CLGPU_KERNEL_SOURCE_NOT_FOUND,
                           "kernel source \"%s\" (CLGPU_KERNEL_DIR): cannot open \"%s\": %s", name,
                           path, reason);
      break;
    case CLGPU__FILE_NOT_REGULAR:
      status = clgpu__fail(CLGPU_IO_ERROR,
                           "kernel source \"%s\" (CLGPU_KERNEL_DIR): \"%s\" is %s, not a regular "
                           "file",
                           name, path, reason);
      break;
    case CLGPU__FILE_TOO_LARGE:
      status = clgpu__fail(CLGPU_IO_ERROR,
                           "kernel source \"%s\" (CLGPU_KERNEL_DIR): \"%s\" has %s, more than "
                           "the limit of %zu bytes for a kernel source",
                           name, path, reason, KERNEL_SOURCE_LIMIT);
      break;
    case CLGPU__FILE_UNREADABLE:
      status = clgpu__fail(CLGPU_IO_ERROR,
                           "kernel source \"%s\" (CLGPU_KERNEL_DIR): reading \"%s\" failed: %s",
                           name, path, reason);
      break;
    case CLGPU__FILE_NO_MEMORY:
      status = clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
      break;
  }
  free(path);
  if (status != CLGPU_SUCCESS) return status;
  *source = (char *)text;
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

clgpu_status clgpu__kernel_source(const char *name, char **source, size_t *length) {
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

clgpu_status clgpu_kernel_source(const char *name, char **source, size_t *length) {
  return clgpu__kernel_source(name, source, length);
}
