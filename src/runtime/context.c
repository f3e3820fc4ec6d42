/* Contexts: creating one on a selected device, wrapping the caller's objects,
 * and the accessors. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/context.h>

#include "chain.h"
#include "context_internal.h"
#include "device.h"
#include "disk_cache.h"
#include "environment.h"
#include "opencl.h"
#include "program_cache.h"
#include "quirks.h"
#include "status_internal.h"
#include "tuning.h"

/* How many fully made, not yet freed contexts there are over each
 * cl_context, so that the last one can be told from the others. A context
 * half made by a failing create or wrap is never counted: it handed out no
 * block, and its failure must change nothing, so it gives back no other
 * context's blocks. The table holds cl_context handles only, never the
 * contexts themselves, so that a context the caller never destroys stays a
 * leak LeakSanitizer can see. */
typedef struct live_count {
  cl_context cl_context;
  size_t contexts;
} live_count;

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static live_count *live_table;
static size_t live_used, live_capacity;

static void add_live(clgpu_context *ctx) {
  pthread_mutex_lock(&live_lock);
  size_t at = 0;
  while (at < live_used && live_table[at].cl_context != ctx->cl_context) at++;
  if (at == live_used && live_used == live_capacity) {
    size_t capacity = live_capacity ? 2 * live_capacity : 8;
    live_count *grown = realloc(live_table, capacity * sizeof *grown);
    if (!grown) {
      /* Uncounted: the context then never gives blocks back when freed;
       * a cache trim or destroy still does. */
      pthread_mutex_unlock(&live_lock);
      return;
    }
    live_table = grown;
    live_capacity = capacity;
  }
  if (at == live_used) live_table[live_used++] = (live_count){ctx->cl_context, 0};
  live_table[at].contexts++;
  ctx->live = 1;
  pthread_mutex_unlock(&live_lock);
}

/* Uncount the context; 1 when it was the last counted context over its
 * cl_context. */
static int remove_live(clgpu_context *ctx) {
  if (!ctx->live) return 0;
  ctx->live = 0;
  pthread_mutex_lock(&live_lock);
  int last = 0;
  for (size_t at = 0; at < live_used; at++) {
    if (live_table[at].cl_context != ctx->cl_context) continue;
    if (--live_table[at].contexts == 0) {
      live_table[at] = live_table[--live_used];
      last = 1;
    }
    break;
  }
  if (live_used == 0) {
    free(live_table);
    live_table = NULL;
    live_capacity = 0;
  }
  pthread_mutex_unlock(&live_lock);
  return last;
}

/* Fill in everything but the OpenCL handles, which the caller has set. On
 * failure the caller destroys the half-made context. */
static clgpu_status finish_context(clgpu_context *ctx, const clgpu_context_options *options,
                                   const clgpu__environment *environment) {
  clgpu__platform_lock();
  clgpu_status status =
      clgpu__read_device_info(ctx->platform, ctx->device, &ctx->info, &ctx->extensions);
  clgpu__platform_unlock();
  CLGPU__FORWARD_IF_ERROR(status);
  clgpu__quirks_for(&ctx->info, &ctx->quirks);
  ctx->quiet_builds = ctx->quirks.quiet_builds && !environment->build_warnings;
  clgpu__tuning_for(&ctx->info, &ctx->tuning_row);
  ctx->tuning = &ctx->tuning_row;
  CLGPU__FORWARD_IF_ERROR(
      clgpu__tuning_apply(&ctx->tuning_row, environment->tuning, environment->who));
  ctx->copy_chunk = environment->copy_chunk;
  ctx->copy_group = environment->copy_group;
  /* The move report starts as membuf.c's default (move_report_set 0). */
  ctx->move_report = NULL;
  ctx->move_report_user = NULL;
  ctx->move_report_set = 0;
  ctx->build_log = options ? options->build_log : NULL;
  ctx->build_log_data = options ? options->build_log_data : NULL;
  if (!ctx->queue) {
    cl_command_queue_properties properties =
        options && options->disable_profiling ? 0 : CL_QUEUE_PROFILING_ENABLE;
    cl_int err = CL_SUCCESS;
    ctx->queue = clgpu__cl_create_queue(ctx->cl_context, ctx->device, properties, &err);
    if (err != CL_SUCCESS) {
      ctx->queue = NULL;
      return clgpu__fail_cl(err, "clCreateCommandQueue");
    }
  }
  ctx->cache_folder = clgpu__disk_cache_folder(
      options ? options->cache_dir : NULL, options ? options->disk_cache : CLGPU_DISK_CACHE_DEFAULT,
      environment->disk_cache, &ctx->quirks);
  ctx->record = clgpu__record_open(ctx->cache_folder, &ctx->info, environment->program_record);
  return clgpu__program_cache_create(&ctx->programs);
}

/* The end of creating and of wrapping: the context finished and counted
 * live, or destroyed half-made. */
static clgpu_status publish_context(clgpu_context *ctx, const clgpu_context_options *options,
                                    const clgpu__environment *environment, clgpu_context **out) {
  clgpu_status status = finish_context(ctx, options, environment);
  if (status != CLGPU_SUCCESS) {
    clgpu_context_destroy(ctx);
    return status;
  }
  add_live(ctx);
  *out = ctx;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_context_create(const clgpu_context_options *options, clgpu_context **out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT,
                         "clgpu_context_create: out must not be NULL");
  *out = NULL;
  if (options) {
    CLGPU__FORWARD_IF_ERROR(clgpu__check_reserved(options->reserved, CLGPU_OPTIONS_RESERVED,
                                                  "clgpu_context_create", "options"));
  }
  clgpu__environment environment;
  CLGPU__FORWARD_IF_ERROR(clgpu__read_environment(&environment, "clgpu_context_create"));
  const char *selector = options ? options->device : NULL;
  if (!selector) selector = getenv("CLGPU_DEVICE");
  cl_platform_id platform = NULL;
  cl_device_id device = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu__device_select(selector, &platform, &device));

  clgpu_context *ctx = calloc(1, sizeof *ctx);
  CLGPU__RETURN_ERROR_IF(!ctx, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  ctx->builtins_lock_ready = pthread_mutex_init(&ctx->builtins_lock, NULL) == 0;
  ctx->platform = platform;
  clRetainDevice(device);
  ctx->device = device;
  cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
  cl_int err = CL_SUCCESS;
  clgpu__platform_lock();
  ctx->cl_context = clgpu__cl_create_context(properties, device, &err);
  clgpu__platform_unlock();
  if (err != CL_SUCCESS) {
    ctx->cl_context = NULL;
    clgpu_context_destroy(ctx);
    return clgpu__fail_cl(err, "clCreateContext");
  }
  return publish_context(ctx, options, &environment, out);
}

/* Check that the device is one of the context's and the queue (if any)
 * belongs to both; find the platform. */
static clgpu_status check_wrapped(cl_context context, cl_device_id device, cl_command_queue queue,
                                  cl_platform_id *platform) {
  cl_uint count = 0;
  cl_int err = clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof count, &count, NULL);
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clgpu_context_wrap: querying the context");
  cl_device_id *devices = calloc(count ? count : 1, sizeof *devices);
  CLGPU__RETURN_ERROR_IF(!devices, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  err = clGetContextInfo(context, CL_CONTEXT_DEVICES, count * sizeof *devices, devices, NULL);
  int found = 0;
  for (cl_uint i = 0; err == CL_SUCCESS && i < count; i++) found |= devices[i] == device;
  free(devices);
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clgpu_context_wrap: querying the context");
  err = clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof *platform, platform, NULL);
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clgpu_context_wrap: querying the device");
  CLGPU__RETURN_ERROR_IF(!found, CLGPU_MISMATCHED_OBJECTS,
                         "clgpu_context_wrap: the device is not one of the context's %u "
                         "device(s)",
                         (unsigned)count);
  if (queue) {
    cl_context queue_context = NULL;
    cl_device_id queue_device = NULL;
    err =
        clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof queue_context, &queue_context, NULL);
    if (err == CL_SUCCESS) {
      err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof queue_device, &queue_device, NULL);
    }
    if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clgpu_context_wrap: querying the queue");
    CLGPU__RETURN_ERROR_IF(queue_context != context, CLGPU_MISMATCHED_OBJECTS,
                           "clgpu_context_wrap: the queue belongs to another context");
    CLGPU__RETURN_ERROR_IF(queue_device != device, CLGPU_MISMATCHED_OBJECTS,
                           "clgpu_context_wrap: the queue belongs to another device");
  }
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_context_wrap(cl_context context, cl_device_id device, cl_command_queue queue,
                                const clgpu_context_options *options, clgpu_context **out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "clgpu_context_wrap: out must not be NULL");
  *out = NULL;
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT,
                         "clgpu_context_wrap: context must not be NULL");
  CLGPU__RETURN_ERROR_IF(!device, CLGPU_INVALID_ARGUMENT,
                         "clgpu_context_wrap: device must not be NULL");
  if (options) {
    CLGPU__FORWARD_IF_ERROR(clgpu__check_reserved(options->reserved, CLGPU_OPTIONS_RESERVED,
                                                  "clgpu_context_wrap", "options"));
  }
  clgpu__environment environment;
  CLGPU__FORWARD_IF_ERROR(clgpu__read_environment(&environment, "clgpu_context_wrap"));
  cl_platform_id platform = NULL;
  CLGPU__FORWARD_IF_ERROR(check_wrapped(context, device, queue, &platform));

  clgpu_context *ctx = calloc(1, sizeof *ctx);
  CLGPU__RETURN_ERROR_IF(!ctx, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  ctx->builtins_lock_ready = pthread_mutex_init(&ctx->builtins_lock, NULL) == 0;
  /* Retain first so that destroy (on a later failure) releases exactly what
   * was retained. */
  clRetainContext(context);
  ctx->cl_context = context;
  clRetainDevice(device);
  ctx->device = device;
  if (queue) {
    clRetainCommandQueue(queue);
    ctx->queue = queue;
  }
  ctx->platform = platform;
  return publish_context(ctx, options, &environment, out);
}

/* What runs when the last clgpu context over a cl_context goes: the
 * allocation caches' hand-back of that cl_context's free blocks, registered
 * by alloc_cache.c when it makes its first cache. A hook rather than a call,
 * so that the context (a lower layer) does not depend on the allocator. */
static _Atomic(void (*)(cl_context)) last_wrapper_gone;

void clgpu__context_on_last_wrapper_gone(void (*hook)(cl_context)) {
  atomic_store_explicit(&last_wrapper_gone, hook, memory_order_release);
}

/* Free a context once its last reference has gone. */
static void free_context(clgpu_context *ctx) {
  /* No scope is open on the context any more, so every block handed out
   * through it is back in its cache's pool. When no other clgpu context
   * wraps the same cl_context, give those blocks back to the device now
   * rather than leave them to a trim, so that no cache holds device memory
   * for an OpenCL context nobody uses through clgpu; other wrappers keep
   * theirs (destroying one context does not change another's state). */
  if (remove_live(ctx) && ctx->cl_context) {
    void (*drop)(cl_context) = atomic_load_explicit(&last_wrapper_gone, memory_order_acquire);
    if (drop) drop(ctx->cl_context);
  }
  if (ctx->builtins_teardown) ctx->builtins_teardown(ctx);
  if (ctx->builtins_lock_ready) pthread_mutex_destroy(&ctx->builtins_lock);
  clgpu__program_cache_destroy(ctx->programs);
  if (ctx->queue) clReleaseCommandQueue(ctx->queue);
  if (ctx->cl_context) clReleaseContext(ctx->cl_context);
  /* Root devices ignore retain and release; sub-devices count. */
  if (ctx->device) clReleaseDevice(ctx->device);
  free(ctx->extensions);
  clgpu__record_close(ctx->record);
  free(ctx->cache_folder);
  free(ctx);
}

void clgpu__context_retain(clgpu_context *ctx) {
  atomic_fetch_add_explicit(&ctx->extra_references, 1, memory_order_relaxed);
}

void clgpu__context_release(clgpu_context *ctx) {
  /* The count holds the references beyond the first: 0 before the
   * subtraction means this was the last one. Acquire-release so that the
   * thread that frees sees every other holder's writes. */
  if (atomic_fetch_sub_explicit(&ctx->extra_references, 1, memory_order_acq_rel) == 0) {
    free_context(ctx);
  }
}

void clgpu_context_destroy(clgpu_context *ctx) {
  if (!ctx) return;
  clgpu__context_release(ctx);
}

cl_context clgpu_context_cl_context(const clgpu_context *ctx) {
  return ctx ? ctx->cl_context : NULL;
}

cl_device_id clgpu_context_device(const clgpu_context *ctx) { return ctx ? ctx->device : NULL; }

cl_command_queue clgpu_context_queue(const clgpu_context *ctx) { return ctx ? ctx->queue : NULL; }

const clgpu_device_info *clgpu_context_device_info(const clgpu_context *ctx) {
  return ctx ? &ctx->info : NULL;
}

const char *clgpu_context_cache_dir(const clgpu_context *ctx) {
  return ctx ? ctx->cache_folder : NULL;
}
