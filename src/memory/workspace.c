/* Workspaces: reports of what a call needs, workspaces made from them or
 * laid over the caller's memory, and the check every call makes (see
 * include/clgpu/workspace.h for the contract). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/workspace.h>

#include "alloc_cache.h"
#include "array_internal.h"
#include "chain.h"
#include "check.h"
#include "context_internal.h"
#include "opencl.h"
#include "overflow.h"
#include "status_internal.h"
#include "workspace_internal.h"

/* A workspace keeps no pointer to its context: it must stay safe to destroy
 * after the context (see workspace.h). The buffer it holds keeps its OpenCL
 * context alive, so no other can take that handle while the workspace could
 * lend its memory to a call; one without a buffer lends nothing. */
struct clgpu_workspace {
  cl_context cl_context;
  cl_device_id device;
  clgpu_workspace_size report;
  cl_mem buffer; /* NULL when the report needs no bytes */
  size_t offset; /* bytes */
  size_t size;   /* bytes */
  int owned;     /* made by clgpu_workspace_create */
  /* The queue of the last call that enqueued work with it (retained; NULL
   * before the first): a call on another queue, or on an out-of-order one,
   * first waits for a marker enqueued there, which waits for that call
   * (docs/queues.md). No event is kept: an event holds its command, and on
   * some implementations (rusticl) the command holds the buffers it used,
   * which would stay alive until the workspace's next call. The lock guards
   * it. */
  pthread_mutex_t lock;
  cl_command_queue last_queue;
};

const char *clgpu_operation_name(clgpu_operation operation) {
  switch (operation) {
    case CLGPU_OPERATION_REDUCE:
      return "reduce";
    case CLGPU_OPERATION_SCAN:
      return "scan";
    case CLGPU_OPERATION_FINDALL:
      return "findall";
    case CLGPU_OPERATION_SORT:
      return "sort";
    case CLGPU_OPERATION_SEARCH:
      return "search";
    case CLGPU_OPERATION_SCAN_BY_KEY:
      return "scan_by_key";
    case CLGPU_OPERATION_REDUCE_BY_KEY:
      return "reduce_by_key";
    case CLGPU_OPERATION_UNIQUE:
      return "unique";
    case CLGPU_OPERATION_RUN_LENGTH_ENCODE:
      return "run_length_encode";
    case CLGPU_OPERATION_HISTOGRAM:
      return "histogram";
    case CLGPU_OPERATION_PARTITION:
      return "partition";
    case CLGPU_OPERATION_SEGMENTED_SORT:
      return "segmented_sort";
    case CLGPU_OPERATION_MPI_SORT:
      return "mpi_sort";
  }
  return "invalid";
}

const char *clgpu_shape_name(clgpu_shape shape) {
  switch (shape) {
    case CLGPU_SHAPE_AUTO:
      return "auto";
    case CLGPU_SHAPE_CHUNKED:
      return "chunked";
    case CLGPU_SHAPE_TILED:
      return "tiled";
  }
  return "invalid";
}

const char *clgpu_algorithm_name(clgpu_algorithm algorithm) {
  switch (algorithm) {
    case CLGPU_ALGORITHM_AUTO:
      return "auto";
    case CLGPU_ALGORITHM_RADIX:
      return "radix";
    case CLGPU_ALGORITHM_MERGE:
      return "merge";
  }
  return "invalid";
}

/* ---- reports ---- */

void clgpu__report_init(clgpu_workspace_size *report) { memset(report, 0, sizeof *report); }

unsigned clgpu__report_part(clgpu_workspace_size *report, clgpu_operation operation,
                            clgpu_shape shape, clgpu_algorithm algorithm, int parent) {
  unsigned index = report->num_parts++;
  report->parts[index].operation = operation;
  report->parts[index].shape = shape;
  report->parts[index].algorithm = algorithm;
  report->parts[index].parent = parent;
  return index;
}

unsigned clgpu__report_buffer(clgpu_workspace_size *report, unsigned part, const char *name,
                              clgpu_type type, uint64_t count) {
  unsigned index = report->num_buffers++;
  clgpu_workspace_buffer *buffer = &report->buffers[index];
  buffer->name = name;
  buffer->part = part;
  buffer->type = type;
  buffer->count = count;
  /* A product that does not fit is left at UINT64_MAX here and refused by
   * clgpu__report_finish, which checks every buffer once. */
  if (!clgpu__mul_u64(count, clgpu__type_size(type), &buffer->bytes)) buffer->bytes = UINT64_MAX;
  return index;
}

static uint64_t device_alignment(const clgpu_context *context) {
  uint64_t alignment = context->info.mem_base_addr_align_bits / 8;
  return alignment < 16 ? 16 : alignment;
}

clgpu_status clgpu__report_finish(clgpu_workspace_size *report, const clgpu_context *context,
                                  const char *who) {
  uint64_t alignment = device_alignment(context);
  uint64_t at = 0, total = 0;
  for (unsigned i = 0; i < report->num_buffers; i++) {
    clgpu_workspace_buffer *buffer = &report->buffers[i];
    size_t size = clgpu__type_size(buffer->type);
    CLGPU__RETURN_ERROR_IF(!clgpu__mul_u64(buffer->count, size, &buffer->bytes),
                           CLGPU_SIZE_OVERFLOW,
                           "%s: the workspace buffer \"%s\" would hold %llu elements of %zu bytes, "
                           "more bytes than 64 bits can count",
                           who, buffer->name, (unsigned long long)buffer->count, size);
    buffer->offset = at;
    if (buffer->bytes == 0) continue;
    /* The end of the last buffer that has bytes, not the padding after it. */
    CLGPU__RETURN_ERROR_IF(
        !clgpu__add_u64(at, buffer->bytes, &total) || !clgpu__round_up_u64(total, alignment, &at),
        CLGPU_SIZE_OVERFLOW,
        "%s: the workspace buffer \"%s\" of %llu bytes at byte %llu would end "
        "past what 64 bits can count",
        who, buffer->name, (unsigned long long)buffer->bytes, (unsigned long long)buffer->offset);
  }
  report->alignment = alignment;
  report->total_bytes = total;
  return CLGPU_SUCCESS;
}

/* A report as the queries make them: parts and buffers within bounds, known
 * operations and resolved algorithms, parents before children, buffers in
 * order, aligned, not overlapping, and a total that covers them. */
static clgpu_status check_report(const clgpu_workspace_size *report, const char *who) {
  CLGPU__RETURN_ERROR_IF(!report, CLGPU_INVALID_ARGUMENT, "%s: the report is NULL", who);
  CLGPU__RETURN_ERROR_IF(report->num_parts == 0 || report->num_parts > CLGPU_WORKSPACE_MAX_PARTS,
                         CLGPU_INVALID_ARGUMENT, "%s: the report has %u parts (1 to %d allowed)",
                         who, report->num_parts, CLGPU_WORKSPACE_MAX_PARTS);
  CLGPU__RETURN_ERROR_IF(report->num_buffers > CLGPU_WORKSPACE_MAX_BUFFERS, CLGPU_INVALID_ARGUMENT,
                         "%s: the report has %u buffers (at most %d)", who, report->num_buffers,
                         CLGPU_WORKSPACE_MAX_BUFFERS);
  CLGPU__RETURN_ERROR_IF(
      report->alignment == 0 || (report->alignment & (report->alignment - 1)) != 0,
      CLGPU_INVALID_ARGUMENT, "%s: the report's alignment %llu is not a power of two", who,
      (unsigned long long)report->alignment);
  for (unsigned p = 0; p < report->num_parts; p++) {
    const clgpu_workspace_part *part = &report->parts[p];
    int sort = part->operation == CLGPU_OPERATION_SORT ||
               part->operation == CLGPU_OPERATION_SEGMENTED_SORT;
    CLGPU__RETURN_ERROR_IF(
        strcmp(clgpu_operation_name(part->operation), "invalid") == 0 ||
            (part->shape != CLGPU_SHAPE_CHUNKED && part->shape != CLGPU_SHAPE_TILED) ||
            (sort ? part->algorithm != CLGPU_ALGORITHM_RADIX &&
                        part->algorithm != CLGPU_ALGORITHM_MERGE
                  : part->algorithm != CLGPU_ALGORITHM_AUTO),
        CLGPU_INVALID_ARGUMENT,
        "%s: part %u of the report has an unknown operation, an "
        "unresolved shape, or an algorithm its operation does not have "
        "(operation %d, shape %d, algorithm %d)",
        who, p, (int)part->operation, (int)part->shape, (int)part->algorithm);
    CLGPU__RETURN_ERROR_IF(
        p == 0 ? part->parent != -1 : (part->parent < 0 || part->parent >= (int)p),
        CLGPU_INVALID_ARGUMENT, "%s: part %u of the report has parent %d", who, p, part->parent);
  }
  uint64_t end = 0;
  for (unsigned i = 0; i < report->num_buffers; i++) {
    const clgpu_workspace_buffer *buffer = &report->buffers[i];
    size_t size = clgpu__type_size(buffer->type);
    CLGPU__RETURN_ERROR_IF(
        !buffer->name || buffer->part >= report->num_parts || size == 0, CLGPU_INVALID_ARGUMENT,
        "%s: buffer %u of the report has no name, an unknown part or type", who, i);
    CLGPU__RETURN_ERROR_IF(
        buffer->count > UINT64_MAX / size || buffer->bytes != buffer->count * size,
        CLGPU_INVALID_ARGUMENT, "%s: buffer %u (%s) of the report has %llu bytes for %llu elements",
        who, i, buffer->name, (unsigned long long)buffer->bytes, (unsigned long long)buffer->count);
    CLGPU__RETURN_ERROR_IF(
        buffer->offset % report->alignment != 0 || (buffer->bytes > 0 && buffer->offset < end) ||
            buffer->offset > UINT64_MAX - buffer->bytes,
        CLGPU_INVALID_ARGUMENT, "%s: buffer %u (%s) of the report is misplaced at byte %llu", who,
        i, buffer->name, (unsigned long long)buffer->offset);
    if (buffer->bytes > 0) end = buffer->offset + buffer->bytes;
  }
  CLGPU__RETURN_ERROR_IF(report->total_bytes < end, CLGPU_INVALID_ARGUMENT,
                         "%s: the report's total of %llu bytes does not cover its buffers (%llu)",
                         who, (unsigned long long)report->total_bytes, (unsigned long long)end);
  return CLGPU_SUCCESS;
}

/* ---- workspaces ---- */

static clgpu_status new_workspace(clgpu_context *context, const clgpu_workspace_size *report,
                                  clgpu_workspace **out) {
  clgpu_workspace *workspace = calloc(1, sizeof *workspace);
  if (!workspace) return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "clgpu_workspace: out of memory");
  workspace->cl_context = context->cl_context;
  workspace->device = context->device;
  workspace->report = *report;
  if (pthread_mutex_init(&workspace->lock, NULL) != 0) {
    free(workspace);
    return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "clgpu_workspace: cannot make its lock");
  }
  *out = workspace;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_workspace_create(clgpu_context *context, const clgpu_workspace_size *report,
                                    clgpu_workspace **out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "clgpu_workspace_create: out is NULL");
  *out = NULL;
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT,
                         "clgpu_workspace_create: context is NULL");
  CLGPU__FORWARD_IF_ERROR(check_report(report, "clgpu_workspace_create"));
  CLGPU__RETURN_ERROR_IF(report->total_bytes > SIZE_MAX, CLGPU_CL_INVALID_BUFFER_SIZE,
                         "clgpu_workspace_create: %llu bytes do not fit in size_t",
                         (unsigned long long)report->total_bytes);
  cl_mem buffer = NULL;
  if (report->total_bytes > 0) {
    clgpu_status status =
        clgpu__buffer_create(context, CL_MEM_READ_WRITE, (size_t)report->total_bytes, &buffer);
    if (status != CLGPU_SUCCESS) {
      clgpu__append_error(" (clgpu_workspace_create: %llu bytes)",
                          (unsigned long long)report->total_bytes);
      return status;
    }
  }
  clgpu_workspace *workspace = NULL;
  clgpu_status status = new_workspace(context, report, &workspace);
  if (status != CLGPU_SUCCESS) {
    clgpu__buffer_release(context, buffer);
    return status;
  }
  /* A workspace lives as long as its caller wants, not as long as the
   * scope that served it: its block is kept out of the pool until
   * clgpu_workspace_destroy, whatever happens to the scope or the cache. */
  clgpu__buffer_pin(buffer);
  workspace->buffer = buffer;
  workspace->size = (size_t)report->total_bytes;
  workspace->owned = 1;
  *out = workspace;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_workspace_wrap(clgpu_context *context, const clgpu_workspace_size *report,
                                  cl_mem buffer, size_t offset, size_t size,
                                  clgpu_workspace **out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "clgpu_workspace_wrap: out is NULL");
  *out = NULL;
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "clgpu_workspace_wrap: context is NULL");
  CLGPU__RETURN_ERROR_IF(!buffer, CLGPU_INVALID_ARGUMENT, "clgpu_workspace_wrap: buffer is NULL");
  CLGPU__FORWARD_IF_ERROR(check_report(report, "clgpu_workspace_wrap"));
  CLGPU__FORWARD_IF_ERROR(
      clgpu__check_buffer(context, buffer, "clgpu_workspace_wrap", "workspace", 1));
  size_t buffer_size = 0;
  cl_int err = clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof buffer_size, &buffer_size, NULL);
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clGetMemObjectInfo(CL_MEM_SIZE)");
  /* The alignment that matters is the region's place in the root buffer:
   * a sub-buffer's origin adds to it. */
  cl_mem parent = NULL;
  size_t origin = 0;
  err = clGetMemObjectInfo(buffer, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
  if (err == CL_SUCCESS && parent) {
    err = clGetMemObjectInfo(buffer, CL_MEM_OFFSET, sizeof origin, &origin, NULL);
  }
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clGetMemObjectInfo(CL_MEM_OFFSET)");
  CLGPU__RETURN_ERROR_IF((offset + origin) % report->alignment != 0, CLGPU_WORKSPACE_MISALIGNED,
                         "clgpu_workspace_wrap: the region starts at byte %zu of its root buffer, "
                         "not a multiple of the device's base-address alignment of %llu bytes "
                         "(CL_DEVICE_MEM_BASE_ADDR_ALIGN)",
                         offset + origin, (unsigned long long)report->alignment);
  CLGPU__RETURN_ERROR_IF(size < report->total_bytes, CLGPU_WORKSPACE_TOO_SMALL,
                         "clgpu_workspace_wrap: the region has %zu bytes, the report needs %llu",
                         size, (unsigned long long)report->total_bytes);
  CLGPU__RETURN_ERROR_IF(offset > buffer_size || size > buffer_size - offset,
                         CLGPU_WORKSPACE_TOO_SMALL,
                         "clgpu_workspace_wrap: the region [%zu, %zu + %zu) reaches past the "
                         "buffer's %zu bytes",
                         offset, offset, size, buffer_size);
  clgpu_workspace *workspace = NULL;
  CLGPU__FORWARD_IF_ERROR(new_workspace(context, report, &workspace));
  clRetainMemObject(buffer);
  workspace->buffer = buffer;
  workspace->offset = offset;
  workspace->size = size;
  *out = workspace;
  return CLGPU_SUCCESS;
}

void clgpu_workspace_destroy(clgpu_workspace *workspace) {
  if (!workspace) return;
  if (workspace->buffer) {
    if (workspace->owned) {
      /* Given back through the queue the block was handed out on (NULL
       * context): the workspace's context may be gone by now. The block is
       * reused only after the last call's work too, which may be on
       * another queue: a marker there covers it (without one, waiting for
       * that queue is the only way left). */
      cl_event after = NULL;
      if (workspace->last_queue) {
        if (clgpu__cl_enqueue_marker(workspace->last_queue, 0, NULL, &after) != CL_SUCCESS) {
          after = NULL;
          clFinish(workspace->last_queue);
        }
      }
      clgpu__buffer_release_after(workspace->buffer, after);
      if (after) clReleaseEvent(after);
    } else {
      clReleaseMemObject(workspace->buffer);
    }
  }
  if (workspace->last_queue) clReleaseCommandQueue(workspace->last_queue);
  pthread_mutex_destroy(&workspace->lock);
  free(workspace);
}

clgpu_status clgpu_workspace_describe(const clgpu_workspace *workspace, clgpu_workspace_size *out) {
  CLGPU__RETURN_ERROR_IF(!workspace || !out, CLGPU_INVALID_ARGUMENT,
                         "clgpu_workspace_describe: NULL argument");
  *out = workspace->report;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_workspace_region(const clgpu_workspace *workspace, cl_mem *buffer,
                                    size_t *offset, size_t *size) {
  CLGPU__RETURN_ERROR_IF(!workspace, CLGPU_INVALID_ARGUMENT,
                         "clgpu_workspace_region: workspace is NULL");
  if (buffer) *buffer = workspace->buffer;
  if (offset) *offset = workspace->offset;
  if (size) *size = workspace->size;
  return CLGPU_SUCCESS;
}

/* The queue of the workspace's last call, retained for the caller (NULL
 * when no call has used it). */
static cl_command_queue last_queue(clgpu_workspace *workspace) {
  pthread_mutex_lock(&workspace->lock);
  cl_command_queue last = workspace->last_queue;
  if (last) clRetainCommandQueue(last);
  pthread_mutex_unlock(&workspace->lock);
  return last;
}

clgpu_status clgpu_workspace_finish(clgpu_workspace *workspace) {
  CLGPU__RETURN_ERROR_IF(!workspace, CLGPU_INVALID_ARGUMENT,
                         "clgpu_workspace_finish: workspace is NULL");
  cl_command_queue last = last_queue(workspace);
  if (!last) return CLGPU_SUCCESS;
  /* A marker waited for, not clFinish: on rusticl (Mesa 22.3) clFinish
   * returns before a finished kernel's writes are seen by a read on
   * another queue, and waiting for an event behind them makes them seen
   * (docs/quirks.md). */
  cl_event marker = NULL;
  cl_int err = clgpu__cl_enqueue_marker(last, 0, NULL, &marker);
  if (err == CL_SUCCESS) err = clWaitForEvents(1, &marker);
  if (marker) clReleaseEvent(marker);
  clReleaseCommandQueue(last);
  if (err != CL_SUCCESS)
    return clgpu__fail_cl(err, "clgpu_workspace_finish: waiting for a marker on its last queue");
  return CLGPU_SUCCESS;
}

/* ---- the check every call makes ---- */

static clgpu_status check_workspace(clgpu_context *context, const clgpu_workspace_size *needed,
                                    const clgpu_workspace *workspace,
                                    const clgpu__argument *arguments, size_t num_arguments,
                                    const char *who) {
  const clgpu_workspace_size *has = &workspace->report;
  CLGPU__RETURN_ERROR_IF(
      workspace->cl_context != context->cl_context || workspace->device != context->device,
      CLGPU_WORKSPACE_WRONG_DEVICE, "%s: the workspace was made on another %s than the call's", who,
      workspace->device != context->device ? "device" : "OpenCL context");
  CLGPU__RETURN_ERROR_IF(has->parts[0].operation != needed->parts[0].operation,
                         CLGPU_WORKSPACE_WRONG_OPERATION,
                         "%s: the workspace was made for %s, the call is %s", who,
                         clgpu_operation_name(has->parts[0].operation),
                         clgpu_operation_name(needed->parts[0].operation));
  CLGPU__RETURN_ERROR_IF(
      has->num_parts != needed->num_parts || has->num_buffers != needed->num_buffers,
      CLGPU_WORKSPACE_WRONG_OPERATION,
      "%s: the workspace's report has %u parts and %u buffers, the call's %u "
      "and %u (a report of another version or operation)",
      who, has->num_parts, has->num_buffers, needed->num_parts, needed->num_buffers);
  for (unsigned p = 0; p < needed->num_parts; p++) {
    const clgpu_workspace_part *a = &has->parts[p], *b = &needed->parts[p];
    CLGPU__RETURN_ERROR_IF(a->operation != b->operation || a->parent != b->parent,
                           CLGPU_WORKSPACE_WRONG_OPERATION,
                           "%s: part %u of the workspace is %s, the call's is %s", who, p,
                           clgpu_operation_name(a->operation), clgpu_operation_name(b->operation));
    CLGPU__RETURN_ERROR_IF(a->algorithm != b->algorithm, CLGPU_WORKSPACE_WRONG_ALGORITHM,
                           "%s: the workspace was made for the %s algorithm of %s, the call "
                           "resolved to %s",
                           who, clgpu_algorithm_name(a->algorithm),
                           clgpu_operation_name(a->operation), clgpu_algorithm_name(b->algorithm));
    CLGPU__RETURN_ERROR_IF(a->shape != b->shape, CLGPU_WORKSPACE_WRONG_ALGORITHM,
                           "%s: the workspace was made for the %s shape of %s, the call "
                           "resolved to %s",
                           who, clgpu_shape_name(a->shape), clgpu_operation_name(a->operation),
                           clgpu_shape_name(b->shape));
  }
  for (unsigned i = 0; i < needed->num_buffers; i++) {
    const clgpu_workspace_buffer *a = &has->buffers[i], *b = &needed->buffers[i];
    CLGPU__RETURN_ERROR_IF(strcmp(a->name, b->name) != 0, CLGPU_WORKSPACE_WRONG_OPERATION,
                           "%s: buffer %u of the workspace is \"%s\", the call's is \"%s\"", who, i,
                           a->name, b->name);
    CLGPU__RETURN_ERROR_IF(a->bytes < b->bytes, CLGPU_WORKSPACE_TOO_SMALL,
                           "%s: the workspace's buffer \"%s\" of %s holds %llu bytes, the call "
                           "needs %llu (%llu elements of %s)",
                           who, b->name, clgpu_operation_name(needed->parts[b->part].operation),
                           (unsigned long long)a->bytes, (unsigned long long)b->bytes,
                           (unsigned long long)b->count, clgpu__type_cl_name(b->type));
  }
  if (!workspace->buffer) return CLGPU_SUCCESS;
  clgpu_array region;
  clgpu_status status = clgpu__array_1d(workspace->buffer, workspace->offset, CLGPU_TYPE_UINT8,
                                        workspace->size, &region);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (%s: the workspace's region)", who);
    return status;
  }
  for (size_t a = 0; a < num_arguments; a++) {
    if (!arguments[a].array) continue;
    CLGPU__RETURN_ERROR_IF(
        clgpu__may_alias(&region, arguments[a].array), CLGPU_WORKSPACE_ALIASES_ARGUMENT,
        "%s: the workspace's bytes [%zu, %zu) may overlap the %s", who, workspace->offset,
        workspace->offset + workspace->size, arguments[a].name);
  }
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_workspace_check(clgpu_context *context, const clgpu_workspace *workspace,
                                   const clgpu_workspace_size *needed) {
  const char *who = "clgpu_workspace_check";
  CLGPU__RETURN_ERROR_IF(!context || !workspace || !needed, CLGPU_INVALID_ARGUMENT,
                         "%s: NULL argument", who);
  CLGPU__RETURN_ERROR_IF(needed->num_parts == 0 || needed->num_parts > CLGPU_WORKSPACE_MAX_PARTS ||
                             needed->num_buffers > CLGPU_WORKSPACE_MAX_BUFFERS,
                         CLGPU_INVALID_ARGUMENT,
                         "%s: the needed report has %u parts and %u buffers, not one a size "
                         "query makes",
                         who, needed->num_parts, needed->num_buffers);
  return check_workspace(context, needed, workspace, NULL, 0, who);
}

/* The report of the last call on this thread that reached its workspace:
 * tests/test_plan_agreement.c holds every size query to it. */
static _Thread_local clgpu_workspace_size last_call_report;
static _Thread_local int has_last_call_report;

const clgpu_workspace_size *clgpu__last_call_report(void) {
  return has_last_call_report ? &last_call_report : NULL;
}

void clgpu__forget_last_call_report(void) { has_last_call_report = 0; }

clgpu_status clgpu__scratch_acquire(clgpu_context *context, const clgpu_workspace_size *needed,
                                    clgpu_workspace *workspace, const clgpu__argument *arguments,
                                    size_t num_arguments, const char *who, clgpu__scratch *out) {
  memset(out, 0, sizeof *out);
  last_call_report = *needed;
  has_last_call_report = 1;
  if (workspace) {
    CLGPU__FORWARD_IF_ERROR(
        check_workspace(context, needed, workspace, arguments, num_arguments, who));
    out->workspace = workspace;
    out->buffer = workspace->buffer;
    out->base = workspace->offset;
    out->layout = workspace->report;
    return CLGPU_SUCCESS;
  }
  out->layout = *needed;
  if (needed->total_bytes == 0) return CLGPU_SUCCESS;
  CLGPU__RETURN_ERROR_IF(needed->total_bytes > SIZE_MAX, CLGPU_CL_INVALID_BUFFER_SIZE,
                         "%s: scratch of %llu bytes does not fit in size_t", who,
                         (unsigned long long)needed->total_bytes);
  clgpu_status status = clgpu__buffer_create(context, CL_MEM_READ_WRITE,
                                             (size_t)needed->total_bytes, &out->temporary);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (%s: scratch of %llu bytes)", who,
                        (unsigned long long)needed->total_bytes);
    return status;
  }
  out->buffer = out->temporary;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__scratch_order(const clgpu_context *context, const clgpu__scratch *scratch,
                                  clgpu__chain *chain) {
  clgpu_workspace *workspace = scratch->workspace;
  if (!workspace) return CLGPU_SUCCESS;
  cl_command_queue queue = clgpu__queue_of(context);
  cl_command_queue last = last_queue(workspace);
  if (!last) return CLGPU_SUCCESS;
  /* After the last call on the same in-order queue, the queue's order is
   * enough. Otherwise the first command waits for a marker on the last
   * call's queue, which waits for every command enqueued there before it
   * (the last call's among them). Not flushed here: Oclgrind runs a queue's
   * commands inside clFlush on the calling thread, and would wait there for
   * a gate the caller has yet to open; flushing the queues is the caller's,
   * as OpenCL asks for any wait across queues. */
  clgpu_status status = CLGPU_SUCCESS;
  if (last != queue || !clgpu__queue_in_order(queue)) {
    cl_event marker = NULL;
    cl_int err = clgpu__cl_enqueue_marker(last, 0, NULL, &marker);
    if (err != CL_SUCCESS) {
      status = clgpu__fail_cl(err, "clEnqueueMarkerWithWaitList (after the workspace's last call)");
    } else {
      status = clgpu__chain_after(chain, marker);
    }
    if (marker) clReleaseEvent(marker);
  }
  clReleaseCommandQueue(last);
  return status;
}

void clgpu__scratch_record(const clgpu_context *context, const clgpu__scratch *scratch,
                           const clgpu__chain *chain) {
  clgpu_workspace *workspace = scratch->workspace;
  if (!workspace || !chain->started) return; /* nothing enqueued: the last user stays */
  cl_command_queue queue = clgpu__queue_of(context);
  clRetainCommandQueue(queue);
  pthread_mutex_lock(&workspace->lock);
  cl_command_queue old_queue = workspace->last_queue;
  workspace->last_queue = queue;
  pthread_mutex_unlock(&workspace->lock);
  if (old_queue) clReleaseCommandQueue(old_queue);
}

void clgpu__scratch_slot(const clgpu__scratch *scratch, unsigned index, cl_mem *buffer,
                         size_t *byte_offset) {
  *buffer = scratch->buffer;
  *byte_offset = scratch->base + (size_t)scratch->layout.buffers[index].offset;
}

void clgpu__scratch_release(clgpu_context *context, clgpu__scratch *scratch) {
  if (scratch->temporary) clgpu__buffer_release(context, scratch->temporary);
  scratch->temporary = NULL;
  scratch->buffer = NULL;
}
