/* The context (context.c): what a clgpu_context holds, and its reference
 * count; the internal side of include/clgpu/context.h. */
#ifndef CLGPU_SRC_CONTEXT_INTERNAL_H
#define CLGPU_SRC_CONTEXT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include <clgpu/context.h>
#include <clgpu/membuf.h>

#include "program_cache.h"
#include "program_record.h"
#include "quirks.h"
#include "tuning.h"

struct clgpu_context {
  cl_platform_id platform;
  cl_context cl_context;
  cl_device_id device;
  cl_command_queue queue;
  clgpu_device_info info;
  char *extensions;
  clgpu__quirks quirks;
  /* The library's own programs are built with -w (quirks.quiet_builds,
   * unless CLGPU_BUILD_WARNINGS is on); program_cache.c adds it. */
  int quiet_builds;
  const clgpu__tuning *tuning; /* &tuning_row */
  clgpu__tuning tuning_row;    /* the tuning table's row for the device, with
                                  CLGPU_TUNING's overrides */
  char *cache_folder;          /* NULL: no disk cache */
  /* The record of programs this context used (program_record.h), in the
   * disk-cache folder; NULL when the disk cache or the record is off. */
  clgpu__record *record;
  clgpu__program_cache *programs;
  /* CLGPU_COPY_CHUNK and CLGPU_COPY_GROUP, read once (0: the device's choice). */
  cl_ulong copy_chunk;
  cl_ulong copy_group;
  /* The built-in elementwise kernels (elementwise_ops.c), made on first use
   * and destroyed with the context; the lock guards the list. */
  struct clgpu__builtin *builtins;
  pthread_mutex_t builtins_lock;
  int builtins_lock_ready;
  /* The move-report callback of membuf.h: membuf.c's default until
   * clgpu_membuf_set_move_report sets one (NULL for off);
   * builtins_lock guards it too. */
  clgpu_move_report_fn move_report;
  void *move_report_user;
  int move_report_set;
  /* clgpu_context_options.build_log and its data (program_cache.c calls it
   * after each build from source with a log that is not blank). */
  clgpu_build_log_fn build_log;
  void *build_log_data;
  /* Set by elementwise_ops.c with its first built-in kernel: frees them
   * when the context goes (the context does not call the layer above). */
  void (*builtins_teardown)(clgpu_context *context);
  /* References beyond the first, which is the caller's and needs no count
   * (so a context fresh from calloc holds exactly one): each open allocation
   * scope holds one. The last clgpu__context_release frees the context. */
  atomic_size_t extra_references;
  /* Counted among the live contexts over its cl_context (context.c). */
  int live;
};

/* Take or drop a reference to a context (context.c). Dropping the last one
 * frees the context; never call it with a cache's or the registry's lock
 * held, since freeing gives the context's free blocks back to every cache. */
void clgpu__context_retain(clgpu_context *context);
void clgpu__context_release(clgpu_context *context);

/* Register what runs when the last clgpu context over a cl_context is
 * freed (alloc_cache.c registers clgpu__alloc_drop_context). */
void clgpu__context_on_last_wrapper_gone(void (*hook)(cl_context));

#endif
