/* Environment variables (environment.c): the CLGPU_* variables a context
 * reads, read and checked once. */
#ifndef CLGPU_SRC_ENVIRONMENT_H
#define CLGPU_SRC_ENVIRONMENT_H

#include <clgpu/status.h>

/* The largest CLGPU_COPY_CHUNK (elements per work-item) and
 * CLGPU_COPY_GROUP (work-items per group, then lowered to what the kernel
 * allows) that are accepted. */
#define CLGPU__COPY_CHUNK_MAX ((cl_ulong)1 << 31)
#define CLGPU__COPY_GROUP_MAX ((cl_ulong)1 << 16)
/* The longest CLGPU_PROGRAM_RECORD accepted, in bytes. */
#define CLGPU__PROGRAM_RECORD_MAX 255

typedef struct clgpu__environment {
  cl_ulong copy_chunk; /* 0: the device's choice */
  cl_ulong copy_group; /* 0: the device's choice */
  int disk_cache;      /* CLGPU_DISK_CACHE: -1 unset, 0 off, 1 on */
  int build_warnings;  /* CLGPU_BUILD_WARNINGS: 1 on, 0 off or unset */
  const char *tuning;  /* CLGPU_TUNING as getenv gave it (NULL: unset), checked
                          by the tuning table when the context is finished */
  /* CLGPU_PROGRAM_RECORD as getenv gave it (NULL: unset or empty): the name
   * of the context's record of programs, "off" for none. */
  const char *program_record;
  const char *who; /* the function making the context, for messages */
} clgpu__environment;

/* Read and check every variable a context uses; CLGPU_INVALID_ARGUMENT
 * naming `who`, the variable and its value when one is set to a value it
 * does not take. */
clgpu_status clgpu__read_environment(clgpu__environment *out, const char *who);

#endif
