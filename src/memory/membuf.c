/* Buffers across memory spaces (membuf.h): host, host+device and
 * fixed-capacity buffers, their moves with the record of which side is
 * current, and the move reports. */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/membuf.h>

#include "array_internal.h"
#include "chain.h"
#include "check.h"
#include "context_internal.h"
#include "membuf_internal.h"
#include "opencl.h"
#include "status_internal.h"

enum { HOST = 0, DEVICE = 1 };

struct clgpu_membuf {
  clgpu_membuf_kind kind;
  /* NULL: host only. A reference of the buffer's own, dropped by
   * clgpu_membuf_destroy, so that the caller may destroy the context first. */
  clgpu_context *context;
  clgpu_type type;
  size_t element_size;
  size_t size;     /* elements in use */
  size_t capacity; /* elements allocated on each side that exists */
  void *host;      /* NULL until a host allocation exists */
  cl_mem device;   /* NULL until a device allocation exists */
  int current[2];  /* [HOST], [DEVICE]: that side holds the current data */
  /* The last command this buffer enqueued (every command waits for it), and
   * the last one that reads or writes the host memory; retained, or NULL. */
  cl_event last;
  cl_event host_pending;
  char *name;      /* "" when unnamed */
  char *type_name; /* NULL: the element type's name */
  /* The queue of options->queue (retained), or NULL: the context's. */
  cl_command_queue queue;
  uint64_t moves[2], bytes[2];
};

/* The queue the buffer's commands go to. */
static cl_command_queue queue_of(const clgpu_membuf *buffer) {
  return buffer->queue ? buffer->queue : buffer->context->queue;
}

static const char *space_word(int side) { return side == HOST ? "host" : "device"; }

static const char *kind_word(clgpu_membuf_kind kind) {
  return kind == CLGPU_MEMBUF_HOST ? "host" : kind == CLGPU_MEMBUF_FIXED ? "fixed" : "host+device";
}

static const char *type_name_of(const clgpu_membuf *buffer) {
  return buffer->type_name ? buffer->type_name : clgpu__type_cl_name(buffer->type);
}

/* "the host+device buffer 'keys'" or "the host buffer (unnamed)", for
 * messages. */
static const char *describe(const clgpu_membuf *buffer, char *text, size_t size) {
  if (buffer->name[0])
    snprintf(text, size, "the %s buffer '%s'", kind_word(buffer->kind), buffer->name);
  else
    snprintf(text, size, "the %s buffer (unnamed)", kind_word(buffer->kind));
  return text;
}

static char *copy_string(const char *text) {
  size_t length = strlen(text) + 1;
  char *copy = malloc(length);
  if (copy) memcpy(copy, text, length);
  return copy;
}

/* ---- move reports ---- */

size_t clgpu_move_report_format(uint64_t bytes, clgpu_space to, const char *type_name,
                                const char *name, char *text, size_t size) {
  static const char *const units[] = {"B", "KB", "MB", "GB"};
  double value = (double)bytes;
  unsigned unit = 0;
  while (unit < 3 && value >= 1024.0) {
    value /= 1024.0;
    unit++;
  }
  int has_name = name && name[0];
  int length = snprintf(text, size, "Moved %6.1f %s to the %s: %s%s%s", value, units[unit],
                        to == CLGPU_SPACE_HOST ? "HOST" : "DEVICE", type_name ? type_name : "",
                        has_name ? " " : "", has_name ? name : "");
  return length < 0 ? 0 : (size_t)length;
}

void clgpu_move_report_stderr(void *user, const clgpu_move_report *report) {
  (void)user;
  if (report && report->line) fprintf(stderr, "%s\n", report->line);
}

clgpu_status clgpu_membuf_set_move_report(clgpu_context *context, clgpu_move_report_fn callback,
                                          void *user) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT,
                         "clgpu_membuf_set_move_report: context must not be NULL");
  if (context->builtins_lock_ready) pthread_mutex_lock(&context->builtins_lock);
  context->move_report = callback;
  context->move_report_user = callback ? user : NULL;
  context->move_report_set = 1;
  if (context->builtins_lock_ready) pthread_mutex_unlock(&context->builtins_lock);
  return CLGPU_SUCCESS;
}

void clgpu__report_move(clgpu_context *context, const clgpu_membuf *buffer, uint64_t bytes,
                        clgpu_space to) {
  if (context->builtins_lock_ready) pthread_mutex_lock(&context->builtins_lock);
  clgpu_move_report_fn callback =
      context->move_report_set ? context->move_report : clgpu_move_report_stderr;
  void *user = context->move_report_user;
  if (context->builtins_lock_ready) pthread_mutex_unlock(&context->builtins_lock);
  if (!callback) return;
  /* A type name or a name too long for the line is cut; the report's own
   * fields keep them whole. */
  char line[512];
  clgpu_move_report_format(bytes, to, type_name_of(buffer), buffer->name, line, sizeof line);
  clgpu_move_report report = {bytes, to, type_name_of(buffer), buffer->name, buffer, line};
  callback(user, &report);
}

/* An OpenCL failure of `who` at `what`, as clgpu__fail_cl words it. */
static clgpu_status fail_cl_in(cl_int err, const char *who, const char *what) {
  char text[200];
  snprintf(text, sizeof text, "%s: %s", who, what);
  return clgpu__fail_cl(err, text);
}

/* ---- events ---- */

static void set_last(clgpu_membuf *buffer, cl_event event, int touches_host) {
  if (buffer->last) clReleaseEvent(buffer->last);
  buffer->last = event;
  if (touches_host) {
    clRetainEvent(event);
    if (buffer->host_pending) clReleaseEvent(buffer->host_pending);
    buffer->host_pending = event;
  }
}

/* Wait until no command reads or writes the host memory. */
static clgpu_status settle_host(clgpu_membuf *buffer, const char *who) {
  if (!buffer->host_pending) return CLGPU_SUCCESS;
  cl_int err = clWaitForEvents(1, &buffer->host_pending);
  clReleaseEvent(buffer->host_pending);
  buffer->host_pending = NULL;
  if (err != CL_SUCCESS) {
    return fail_cl_in(err, who, "waiting for the transfer on the host memory");
  }
  return CLGPU_SUCCESS;
}

/* The caller's wait list and the buffer's last command, as one list. */
static clgpu_status wait_set_make(clgpu__wait_join *set, const clgpu_membuf *buffer,
                                  cl_uint num_events, const cl_event *wait_list) {
  return clgpu__wait_join_make(set, num_events, wait_list, buffer->last);
}

/* ---- allocations ---- */

static clgpu_status byte_size(clgpu_type type, size_t count, size_t *bytes, const char *who) {
  size_t size = clgpu__type_size(type);
  CLGPU__RETURN_ERROR_IF(size == 0, CLGPU_INVALID_ARGUMENT, "%s: unknown element type %d", who,
                         (int)type);
  CLGPU__RETURN_ERROR_IF(count > SIZE_MAX / size, CLGPU_INVALID_ARGUMENT,
                         "%s: %zu elements of %s overflow a byte count", who, count,
                         clgpu__type_cl_name(type));
  /* Every side holds at least one element, so that a buffer of capacity 0
   * still has a cl_mem and a host pointer to give. */
  *bytes = (count ? count : 1) * size;
  return CLGPU_SUCCESS;
}

static clgpu_status create_device(clgpu_context *context, size_t bytes, cl_mem *out,
                                  const char *who) {
  CLGPU__RETURN_ERROR_IF(bytes > context->info.max_mem_alloc_size, CLGPU_CL_INVALID_BUFFER_SIZE,
                         "%s: %zu bytes exceed the device's largest allocation (%llu bytes)", who,
                         bytes, (unsigned long long)context->info.max_mem_alloc_size);
  cl_int err = CL_SUCCESS;
  cl_mem memory = clgpu__cl_create_buffer(context->cl_context, CL_MEM_READ_WRITE, bytes, &err);
  if (err != CL_SUCCESS) {
    return clgpu__fail((clgpu_status)err, "%s: clCreateBuffer of %zu bytes failed: %s (%d)", who,
                       bytes, clgpu__status_name(err), (int)err);
  }
  *out = memory;
  return CLGPU_SUCCESS;
}

static clgpu_status ensure_side(clgpu_membuf *buffer, int side, const char *who) {
  size_t bytes = 0;
  CLGPU__FORWARD_IF_ERROR(byte_size(buffer->type, buffer->capacity, &bytes, who));
  if (side == DEVICE) {
    if (buffer->device) return CLGPU_SUCCESS;
    return create_device(buffer->context, bytes, &buffer->device, who);
  }
  if (buffer->host) return CLGPU_SUCCESS;
  buffer->host = malloc(bytes);
  CLGPU__RETURN_ERROR_IF(!buffer->host, CLGPU_CL_OUT_OF_HOST_MEMORY,
                         "%s: out of host memory allocating %zu bytes", who, bytes);
  return CLGPU_SUCCESS;
}

/* ---- making and freeing ---- */

static clgpu_status new_buffer(clgpu_membuf_kind kind, clgpu_context *context, clgpu_type type,
                               size_t count, const clgpu_membuf_options *options,
                               clgpu_membuf **out, const char *who) {
  if (options) {
    CLGPU__FORWARD_IF_ERROR(
        clgpu__check_reserved(options->reserved, CLGPU_OPTIONS_RESERVED, who, "options"));
    CLGPU__RETURN_ERROR_IF(!context && options->queue, CLGPU_INVALID_ARGUMENT,
                           "%s: options->queue is set, but a host-only buffer enqueues nothing "
                           "(leave it NULL)",
                           who);
    if (context) {
      CLGPU__FORWARD_IF_ERROR(clgpu__queue_check(context, options->queue, who, "options->queue"));
    }
  }
  clgpu_membuf *buffer = calloc(1, sizeof *buffer);
  CLGPU__RETURN_ERROR_IF(!buffer, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  buffer->kind = kind;
  if (context) clgpu__context_retain(context);
  buffer->context = context;
  buffer->type = type;
  buffer->element_size = clgpu__type_size(type);
  buffer->size = count;
  buffer->capacity = count;
  const char *name = options && options->name ? options->name : "";
  buffer->name = copy_string(name);
  if (options && options->type_name) buffer->type_name = copy_string(options->type_name);
  if (options && options->queue && options->queue != context->queue) {
    buffer->queue = options->queue;
    clRetainCommandQueue(buffer->queue);
  }
  if (!buffer->name || (options && options->type_name && !buffer->type_name)) {
    clgpu_membuf_destroy(buffer);
    return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  }
  *out = buffer;
  return CLGPU_SUCCESS;
}

/* Allocate a new buffer's first side, which holds its data, and give it
 * out; on failure free it. */
static clgpu_status finish_buffer(clgpu_membuf *buffer, int side, clgpu_membuf **out,
                                  const char *who) {
  clgpu_status status = ensure_side(buffer, side, who);
  if (status != CLGPU_SUCCESS) {
    clgpu_membuf_destroy(buffer);
    return status;
  }
  buffer->current[side] = 1;
  *out = buffer;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_membuf_create_host(clgpu_type type, size_t count,
                                      const clgpu_membuf_options *options, clgpu_membuf **out) {
  static const char who[] = "clgpu_membuf_create_host";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out must not be NULL", who);
  *out = NULL;
  size_t bytes = 0;
  CLGPU__FORWARD_IF_ERROR(byte_size(type, count, &bytes, who));
  clgpu_membuf *buffer = NULL;
  CLGPU__FORWARD_IF_ERROR(new_buffer(CLGPU_MEMBUF_HOST, NULL, type, count, options, &buffer, who));
  return finish_buffer(buffer, HOST, out, who);
}

clgpu_status clgpu_membuf_create(clgpu_context *context, clgpu_type type, size_t count,
                                 clgpu_space space, const clgpu_membuf_options *options,
                                 clgpu_membuf **out) {
  static const char who[] = "clgpu_membuf_create";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out must not be NULL", who);
  *out = NULL;
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT,
                         "%s: context must not be NULL (clgpu_membuf_create_host makes a "
                         "buffer without one)",
                         who);
  CLGPU__RETURN_ERROR_IF(
      space != CLGPU_SPACE_HOST && space != CLGPU_SPACE_DEVICE, CLGPU_INVALID_ARGUMENT,
      "%s: space %d is neither CLGPU_SPACE_HOST nor CLGPU_SPACE_DEVICE", who, (int)space);
  size_t bytes = 0;
  CLGPU__FORWARD_IF_ERROR(byte_size(type, count, &bytes, who));
  clgpu_membuf *buffer = NULL;
  CLGPU__FORWARD_IF_ERROR(
      new_buffer(CLGPU_MEMBUF_HOST_DEVICE, context, type, count, options, &buffer, who));
  return finish_buffer(buffer, space == CLGPU_SPACE_HOST ? HOST : DEVICE, out, who);
}

clgpu_status clgpu_membuf_create_fixed(clgpu_context *context, clgpu_type type, void *storage,
                                       size_t capacity, size_t count,
                                       const clgpu_membuf_options *options, clgpu_membuf **out) {
  static const char who[] = "clgpu_membuf_create_fixed";
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out must not be NULL", who);
  *out = NULL;
  CLGPU__RETURN_ERROR_IF(!storage, CLGPU_INVALID_ARGUMENT, "%s: storage must not be NULL", who);
  size_t bytes = 0;
  CLGPU__FORWARD_IF_ERROR(byte_size(type, capacity, &bytes, who));
  CLGPU__RETURN_ERROR_IF(capacity == 0, CLGPU_INVALID_ARGUMENT,
                         "%s: capacity must be at least 1 element", who);
  CLGPU__RETURN_ERROR_IF(count > capacity, CLGPU_INVALID_ARGUMENT,
                         "%s: count %zu exceeds the capacity of %zu elements", who, count,
                         capacity);
  CLGPU__RETURN_ERROR_IF((uintptr_t)storage % clgpu__type_size(type) != 0, CLGPU_INVALID_ARGUMENT,
                         "%s: storage %p is not aligned to the %zu bytes of %s", who, storage,
                         clgpu__type_size(type), clgpu__type_cl_name(type));
  clgpu_membuf *buffer = NULL;
  CLGPU__FORWARD_IF_ERROR(
      new_buffer(CLGPU_MEMBUF_FIXED, context, type, count, options, &buffer, who));
  buffer->capacity = capacity;
  buffer->host = storage;
  buffer->current[HOST] = 1;
  *out = buffer;
  return CLGPU_SUCCESS;
}

void clgpu_membuf_destroy(clgpu_membuf *buffer) {
  if (!buffer) return;
  /* A failed wait leaves nothing better to do than to go on freeing. */
  if (buffer->host_pending) clWaitForEvents(1, &buffer->host_pending);
  if (buffer->host_pending) clReleaseEvent(buffer->host_pending);
  if (buffer->last) clReleaseEvent(buffer->last);
  if (buffer->device) clReleaseMemObject(buffer->device);
  if (buffer->kind != CLGPU_MEMBUF_FIXED) free(buffer->host);
  free(buffer->name);
  free(buffer->type_name);
  if (buffer->queue) clReleaseCommandQueue(buffer->queue);
  clgpu_context *context = buffer->context;
  free(buffer);
  /* Last: it may be the context's last reference, which frees it. */
  if (context) clgpu__context_release(context);
}

/* ---- argument checks ---- */

static clgpu_status check_space(const clgpu_membuf *buffer, clgpu_space space, const char *who) {
  CLGPU__RETURN_ERROR_IF(!buffer, CLGPU_INVALID_ARGUMENT, "%s: the buffer is NULL (uninitialised)",
                         who);
  CLGPU__RETURN_ERROR_IF(
      space != CLGPU_SPACE_HOST && space != CLGPU_SPACE_DEVICE, CLGPU_INVALID_ARGUMENT,
      "%s: space %d is neither CLGPU_SPACE_HOST nor CLGPU_SPACE_DEVICE", who, (int)space);
  char text[300];
  CLGPU__RETURN_ERROR_IF(space == CLGPU_SPACE_DEVICE && !buffer->context, CLGPU_WRONG_SPACE,
                         "%s: %s lives in host memory only; it has no device side", who,
                         describe(buffer, text, sizeof text));
  return CLGPU_SUCCESS;
}

static clgpu_status check_access(clgpu_access access, const char *who) {
  CLGPU__RETURN_ERROR_IF(access != CLGPU_ACCESS_READ_WRITE && access != CLGPU_ACCESS_READ_ONLY &&
                             access != CLGPU_ACCESS_WRITE_ONLY,
                         CLGPU_INVALID_ARGUMENT,
                         "%s: access %d is not CLGPU_ACCESS_READ_WRITE, CLGPU_ACCESS_READ_ONLY or "
                         "CLGPU_ACCESS_WRITE_ONLY",
                         who, (int)access);
  return CLGPU_SUCCESS;
}

/* ---- moves ---- */

static void count_move(clgpu_membuf *buffer, int to, size_t bytes) {
  buffer->moves[to]++;
  buffer->bytes[to] += bytes;
  clgpu__report_move(buffer->context, buffer, bytes,
                     to == HOST ? CLGPU_SPACE_HOST : CLGPU_SPACE_DEVICE);
}

/* Enqueue the copy of the first `count` elements between `host` memory and
 * `device` memory (toward `to`), after the wait list and the buffer's last
 * command; it becomes the buffer's last command. Blocking only when asked. */
static clgpu_status enqueue_transfer(clgpu_membuf *buffer, int to, cl_mem device, void *host,
                                     size_t count, cl_bool blocking, cl_uint num_events,
                                     const cl_event *wait_list, const char *who) {
  clgpu__wait_join set;
  CLGPU__FORWARD_IF_ERROR(wait_set_make(&set, buffer, num_events, wait_list));
  size_t bytes = count * buffer->element_size;
  cl_command_queue queue = queue_of(buffer);
  cl_event done = NULL;
  cl_int err = CL_SUCCESS;
  err = clgpu__cl_enqueue_transfer(queue, to == DEVICE, device, blocking, 0, bytes, host, set.count,
                                   clgpu__wait_join_list(&set), &done);
  clgpu__wait_join_free(&set);
  if (err != CL_SUCCESS) {
    return clgpu__fail((clgpu_status)err, "%s: %s of %zu bytes failed: %s (%d)", who,
                       to == DEVICE ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer", bytes,
                       clgpu__status_name(err), (int)err);
  }
  set_last(buffer, done, 1);
  if (blocking) {
    /* Complete: nothing is pending on the host memory any more. */
    clReleaseEvent(buffer->host_pending);
    buffer->host_pending = NULL;
  }
  return CLGPU_SUCCESS;
}

/* A marker after the wait list and the buffer's last command, which becomes
 * the buffer's last command. */
static clgpu_status enqueue_marker(clgpu_membuf *buffer, cl_uint num_events,
                                   const cl_event *wait_list, const char *who) {
  clgpu__wait_join set;
  CLGPU__FORWARD_IF_ERROR(wait_set_make(&set, buffer, num_events, wait_list));
  cl_event marker = NULL;
  cl_int err =
      clgpu__cl_enqueue_marker(queue_of(buffer), set.count, clgpu__wait_join_list(&set), &marker);
  clgpu__wait_join_free(&set);
  if (err != CL_SUCCESS) {
    return fail_cl_in(err, who, "clEnqueueMarkerWithWaitList");
  }
  set_last(buffer, marker, 0);
  return CLGPU_SUCCESS;
}

/* `wait`: return only once the data is on the host (clgpu_membuf_host);
 * clgpu_membuf_move never waits. */
static clgpu_status move(clgpu_membuf *buffer, clgpu_space space, clgpu_access access,
                         cl_uint num_events, const cl_event *wait_list, cl_event *event, int wait,
                         const char *who) {
  if (event) *event = NULL;
  CLGPU__FORWARD_IF_ERROR(check_space(buffer, space, who));
  CLGPU__FORWARD_IF_ERROR(check_access(access, who));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(buffer->context, num_events, wait_list, who));
  int to = space == CLGPU_SPACE_HOST ? HOST : DEVICE;
  int from = 1 - to;
  if (!buffer->context) {
    /* Host only: nothing is ever enqueued; honour the wait list here. */
    if (num_events > 0) {
      cl_int err = clWaitForEvents(num_events, wait_list);
      if (err != CL_SUCCESS) {
        return fail_cl_in(err, who, "waiting for the wait list");
      }
    }
    return CLGPU_SUCCESS;
  }
  int had_side = to == HOST ? buffer->host != NULL : buffer->device != NULL;
  CLGPU__FORWARD_IF_ERROR(ensure_side(buffer, to, who));
  int copy = access != CLGPU_ACCESS_WRITE_ONLY && !buffer->current[to] && buffer->size > 0;
  cl_bool blocking = to == HOST && wait ? CL_TRUE : CL_FALSE;
  clgpu_status status = CLGPU_SUCCESS;
  if (copy) {
    status = enqueue_transfer(buffer, to, buffer->device, buffer->host, buffer->size, blocking,
                              num_events, wait_list, who);
  } else if (event || (!blocking && num_events > 0)) {
    /* A marker orders later commands on the buffer after the wait list. */
    status = enqueue_marker(buffer, num_events, wait_list, who);
    if (status == CLGPU_SUCCESS && blocking) status = settle_host(buffer, who);
  } else if (blocking) {
    /* Nothing to copy, but the host data is there only once the wait list
     * and the commands on it have completed. */
    clgpu__wait_join set = {{NULL}, NULL, 0};
    status = wait_set_make(&set, buffer, num_events, wait_list);
    if (status == CLGPU_SUCCESS && set.count > 0) {
      cl_int err = clWaitForEvents(set.count, set.list);
      if (err != CL_SUCCESS) {
        status = fail_cl_in(err, who, "waiting for the wait list");
      }
    }
    if (set.list) clgpu__wait_join_free(&set);
    if (status == CLGPU_SUCCESS && buffer->host_pending) {
      clReleaseEvent(buffer->host_pending);
      buffer->host_pending = NULL;
    }
  }
  if (status != CLGPU_SUCCESS) {
    /* A side made for this move goes again, so that the buffer is as it was. */
    if (!had_side && to == DEVICE) {
      clReleaseMemObject(buffer->device);
      buffer->device = NULL;
    } else if (!had_side) {
      free(buffer->host);
      buffer->host = NULL;
    }
    return status;
  }
  if (copy) count_move(buffer, to, buffer->size * buffer->element_size);
  buffer->current[to] = 1;
  if (access != CLGPU_ACCESS_READ_ONLY) buffer->current[from] = 0;
  if (event && buffer->last) {
    clRetainEvent(buffer->last);
    *event = buffer->last;
  }
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_membuf_move(clgpu_membuf *buffer, clgpu_space space, clgpu_access access,
                               cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  return move(buffer, space, access, num_events, wait_list, event, 0, "clgpu_membuf_move");
}

clgpu_status clgpu_membuf_touch(clgpu_membuf *buffer, clgpu_space space) {
  static const char who[] = "clgpu_membuf_touch";
  CLGPU__FORWARD_IF_ERROR(check_space(buffer, space, who));
  int side = space == CLGPU_SPACE_HOST ? HOST : DEVICE;
  char text[300];
  CLGPU__RETURN_ERROR_IF(side == DEVICE ? !buffer->device : !buffer->host, CLGPU_WRONG_SPACE,
                         "%s: %s has no %s allocation yet (move it there first)", who,
                         describe(buffer, text, sizeof text), space_word(side));
  buffer->current[side] = 1;
  buffer->current[1 - side] = 0;
  return CLGPU_SUCCESS;
}

/* ---- reallocation ---- */

static clgpu_status reallocate_host(clgpu_membuf *buffer, size_t size, size_t capacity, size_t keep,
                                    const char *who) {
  size_t bytes = 0;
  CLGPU__FORWARD_IF_ERROR(byte_size(buffer->type, capacity, &bytes, who));
  if (buffer->current[HOST] || keep == 0) {
    CLGPU__FORWARD_IF_ERROR(settle_host(buffer, who));
    void *grown = realloc(buffer->host, bytes);
    CLGPU__RETURN_ERROR_IF(!grown, CLGPU_CL_OUT_OF_HOST_MEMORY,
                           "%s: out of host memory allocating %zu bytes", who, bytes);
    buffer->host = grown;
  } else {
    /* The data is on the device: read what is kept into the new block. */
    void *block = malloc(bytes);
    CLGPU__RETURN_ERROR_IF(!block, CLGPU_CL_OUT_OF_HOST_MEMORY,
                           "%s: out of host memory allocating %zu bytes", who, bytes);
    clgpu_status status = settle_host(buffer, who);
    if (status == CLGPU_SUCCESS)
      status = enqueue_transfer(buffer, HOST, buffer->device, block, keep, CL_TRUE, 0, NULL, who);
    if (status != CLGPU_SUCCESS) {
      free(block);
      return status;
    }
    count_move(buffer, HOST, keep * buffer->element_size);
    free(buffer->host);
    buffer->host = block;
  }
  if (buffer->device) {
    clReleaseMemObject(buffer->device); /* OpenCL frees it once its commands are done */
    buffer->device = NULL;
  }
  buffer->size = size;
  buffer->capacity = capacity;
  buffer->current[HOST] = 1;
  buffer->current[DEVICE] = 0;
  return CLGPU_SUCCESS;
}

static clgpu_status reallocate_device(clgpu_membuf *buffer, size_t size, size_t capacity,
                                      size_t keep, const char *who) {
  size_t bytes = 0;
  CLGPU__FORWARD_IF_ERROR(byte_size(buffer->type, capacity, &bytes, who));
  cl_mem block = NULL;
  CLGPU__FORWARD_IF_ERROR(create_device(buffer->context, bytes, &block, who));
  clgpu_status status = CLGPU_SUCCESS;
  int from_host = keep > 0 && !buffer->current[DEVICE];
  if (keep > 0 && !from_host) {
    clgpu__wait_join set;
    status = wait_set_make(&set, buffer, 0, NULL);
    if (status == CLGPU_SUCCESS) {
      cl_event done = NULL;
      cl_int err = clgpu__cl_enqueue_copy(queue_of(buffer), buffer->device, block, 0, 0,
                                          keep * buffer->element_size, set.count,
                                          clgpu__wait_join_list(&set), &done);
      clgpu__wait_join_free(&set);
      if (err == CL_SUCCESS) {
        set_last(buffer, done, 0);
      } else {
        status = fail_cl_in(err, who, "clEnqueueCopyBuffer");
      }
    }
  } else if (from_host) {
    /* The host block is freed below, so this copy completes first. */
    status = enqueue_transfer(buffer, DEVICE, block, buffer->host, keep, CL_TRUE, 0, NULL, who);
  }
  if (status == CLGPU_SUCCESS && buffer->host) status = settle_host(buffer, who);
  if (status != CLGPU_SUCCESS) {
    clReleaseMemObject(block);
    return status;
  }
  if (from_host) count_move(buffer, DEVICE, keep * buffer->element_size);
  if (buffer->device) clReleaseMemObject(buffer->device);
  buffer->device = block;
  free(buffer->host);
  buffer->host = NULL;
  buffer->size = size;
  buffer->capacity = capacity;
  buffer->current[DEVICE] = 1;
  buffer->current[HOST] = 0;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_membuf_reallocate(clgpu_membuf *buffer, size_t size, clgpu_space space,
                                     size_t capacity) {
  static const char who[] = "clgpu_membuf_reallocate";
  CLGPU__FORWARD_IF_ERROR(check_space(buffer, space, who));
  CLGPU__RETURN_ERROR_IF(capacity == 0, CLGPU_INVALID_ARGUMENT,
                         "%s: capacity must be at least 1 element", who);
  CLGPU__RETURN_ERROR_IF(size > capacity, CLGPU_INVALID_ARGUMENT,
                         "%s: size %zu exceeds the capacity of %zu elements asked", who, size,
                         capacity);
  size_t keep = size < buffer->size ? size : buffer->size;
  int side = space == CLGPU_SPACE_HOST ? HOST : DEVICE;
  if (buffer->kind == CLGPU_MEMBUF_FIXED) {
    char text[300];
    CLGPU__RETURN_ERROR_IF(capacity > buffer->capacity, CLGPU_CAPACITY_EXCEEDED,
                           "%s: %s has a fixed capacity of %zu elements; %zu were asked for "
                           "(its contents are unchanged)",
                           who, describe(buffer, text, sizeof text), buffer->capacity, capacity);
    if (!buffer->current[side] && keep > 0) {
      CLGPU__FORWARD_IF_ERROR(move(buffer, space, CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL, 1, who));
    } else {
      /* Nothing to keep, but the side that becomes current must exist. */
      CLGPU__FORWARD_IF_ERROR(ensure_side(buffer, side, who));
    }
    buffer->size = size;
    buffer->current[side] = 1;
    buffer->current[1 - side] = 0;
    return CLGPU_SUCCESS;
  }
  if (side == HOST) return reallocate_host(buffer, size, capacity, keep, who);
  return reallocate_device(buffer, size, capacity, keep, who);
}

/* ---- assignment ---- */

clgpu_status clgpu_membuf_assign(clgpu_membuf *destination, clgpu_membuf *source) {
  static const char who[] = "clgpu_membuf_assign";
  CLGPU__RETURN_ERROR_IF(!destination || !source, CLGPU_INVALID_ARGUMENT,
                         "%s: the %s is NULL (uninitialised)", who,
                         destination ? "source" : "destination");
  CLGPU__RETURN_ERROR_IF(destination == source, CLGPU_INVALID_ARGUMENT,
                         "%s: the destination and the source are the same buffer", who);
  char text[300];
  CLGPU__RETURN_ERROR_IF(destination->type != source->type, CLGPU_TYPE_MISMATCH,
                         "%s: the destination holds %s and the source %s", who,
                         clgpu__type_cl_name(destination->type), clgpu__type_cl_name(source->type));
  size_t count = source->size;
  CLGPU__RETURN_ERROR_IF(
      destination->kind == CLGPU_MEMBUF_FIXED && count > destination->capacity,
      CLGPU_CAPACITY_EXCEEDED,
      "%s: %s has a fixed capacity of %zu elements; the source holds %zu (nothing was copied)", who,
      describe(destination, text, sizeof text), destination->capacity, count);
  CLGPU__FORWARD_IF_ERROR(settle_host(destination, who));
  if (count > destination->capacity) {
    size_t bytes = 0;
    CLGPU__FORWARD_IF_ERROR(byte_size(destination->type, count, &bytes, who));
    void *grown = realloc(destination->host, bytes);
    CLGPU__RETURN_ERROR_IF(!grown, CLGPU_CL_OUT_OF_HOST_MEMORY,
                           "%s: out of host memory allocating %zu bytes", who, bytes);
    destination->host = grown;
    if (destination->device) {
      clReleaseMemObject(destination->device); /* too small now */
      destination->device = NULL;
    }
    destination->capacity = count;
  } else {
    CLGPU__FORWARD_IF_ERROR(ensure_side(destination, HOST, who));
  }
  if (count > 0) {
    if (source->current[HOST]) {
      CLGPU__FORWARD_IF_ERROR(settle_host(source, who));
      memcpy(destination->host, source->host, count * source->element_size);
    } else {
      CLGPU__FORWARD_IF_ERROR(enqueue_transfer(source, HOST, source->device, destination->host,
                                               count, CL_TRUE, 0, NULL, who));
      count_move(source, HOST, count * source->element_size);
    }
  }
  destination->size = count;
  destination->current[HOST] = 1;
  destination->current[DEVICE] = 0;
  return CLGPU_SUCCESS;
}

/* ---- the data ---- */

clgpu_status clgpu_membuf_host(clgpu_membuf *buffer, clgpu_access access, void **data) {
  static const char who[] = "clgpu_membuf_host";
  CLGPU__RETURN_ERROR_IF(!data, CLGPU_INVALID_ARGUMENT, "%s: data must not be NULL", who);
  CLGPU__FORWARD_IF_ERROR(move(buffer, CLGPU_SPACE_HOST, access, 0, NULL, NULL, 1, who));
  *data = buffer->host;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_membuf_device_array(clgpu_membuf *buffer, clgpu_access access,
                                       cl_uint num_events, const cl_event *wait_list,
                                       cl_event *event, clgpu_array *out) {
  static const char who[] = "clgpu_membuf_device_array";
  if (event) *event = NULL;
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out must not be NULL", who);
  /* The view is checked before anything moves, so that a failure changes
   * nothing: the device side exists after the move, so make it first. */
  CLGPU__FORWARD_IF_ERROR(check_space(buffer, CLGPU_SPACE_DEVICE, who));
  CLGPU__FORWARD_IF_ERROR(check_access(access, who));
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(buffer->context, num_events, wait_list, who));
  int had_device = buffer->device != NULL;
  CLGPU__FORWARD_IF_ERROR(ensure_side(buffer, DEVICE, who));
  clgpu_array view;
  clgpu_status status = clgpu__array_1d(buffer->device, 0, buffer->type, buffer->size, &view);
  if (status == CLGPU_SUCCESS)
    status = move(buffer, CLGPU_SPACE_DEVICE, access, num_events, wait_list, event, 0, who);
  if (status != CLGPU_SUCCESS) {
    if (!had_device) {
      clReleaseMemObject(buffer->device);
      buffer->device = NULL;
    }
    return status;
  }
  *out = view;
  return CLGPU_SUCCESS;
}

void *clgpu_membuf_host_pointer(const clgpu_membuf *buffer) { return buffer ? buffer->host : NULL; }

cl_mem clgpu_membuf_device_memory(const clgpu_membuf *buffer) {
  return buffer ? buffer->device : NULL;
}

clgpu_status clgpu_membuf_get_info(const clgpu_membuf *buffer, clgpu_membuf_info *out) {
  CLGPU__RETURN_ERROR_IF(!buffer || !out, CLGPU_INVALID_ARGUMENT,
                         "clgpu_membuf_get_info: the %s is NULL", buffer ? "out" : "buffer");
  clgpu_membuf_info info = {
      .kind = buffer->kind,
      .type = buffer->type,
      .size = buffer->size,
      .capacity = buffer->capacity,
      .host_allocated = buffer->host != NULL,
      .device_allocated = buffer->device != NULL,
      .host_current = buffer->current[HOST],
      .device_current = buffer->current[DEVICE],
      .moves_to_host = buffer->moves[HOST],
      .moves_to_device = buffer->moves[DEVICE],
      .bytes_to_host = buffer->bytes[HOST],
      .bytes_to_device = buffer->bytes[DEVICE],
      .name = buffer->name,
      .type_name = type_name_of(buffer),
  };
  *out = info;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_membuf_set_name(clgpu_membuf *buffer, const char *name) {
  CLGPU__RETURN_ERROR_IF(!buffer, CLGPU_INVALID_ARGUMENT,
                         "clgpu_membuf_set_name: the buffer is NULL (uninitialised)");
  char *copy = copy_string(name ? name : "");
  CLGPU__RETURN_ERROR_IF(!copy, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  free(buffer->name);
  buffer->name = copy;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_membuf_set_type_name(clgpu_membuf *buffer, const char *type_name) {
  CLGPU__RETURN_ERROR_IF(!buffer, CLGPU_INVALID_ARGUMENT,
                         "clgpu_membuf_set_type_name: the buffer is NULL (uninitialised)");
  char *copy = NULL;
  if (type_name) {
    copy = copy_string(type_name);
    CLGPU__RETURN_ERROR_IF(!copy, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  }
  free(buffer->type_name);
  buffer->type_name = copy;
  return CLGPU_SUCCESS;
}
