/* Transfers between contiguous host memory and views (copy.h:
 * clgpu_copy_to_host, clgpu_copy_from_host, which only enqueue;
 * clgpu_array_read, clgpu_array_write, which wait; clgpu_fill): the argument checks,
 * the layout's reduction to its fewest dimensions, and the three ways a
 * layout moves: one plain transfer, one rectangular transfer, or packing
 * through a temporary on the device. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/copy.h>

#include "alloc_cache.h"
#include "array_internal.h"
#include "chain.h"
#include "check.h"
#include "context_internal.h"
#include "copy.h"
#include "elementwise_ops.h"
#include "opencl.h"
#include "status_internal.h"

/* A view's layout reduced for a transfer: dimensions of extent 1 dropped and
 * neighbours merged where the view is contiguous across them. The host side
 * is contiguous in the view's row-major order, so dimensions keep their
 * order and are never reversed. Strides in elements. */
typedef struct transfer_layout {
  unsigned rank;
  size_t shape[CLGPU_MAX_RANK];
  ptrdiff_t strides[CLGPU_MAX_RANK];
} transfer_layout;

static transfer_layout layout_of(const clgpu_array *array) {
  transfer_layout layout = {0, {0}, {0}};
  for (unsigned d = 0; d < array->rank; d++) {
    size_t extent = array->shape[d];
    if (extent == 1) continue;
    ptrdiff_t stride = array->strides[d];
    if (layout.rank > 0 && layout.strides[layout.rank - 1] == stride * (ptrdiff_t)extent) {
      layout.shape[layout.rank - 1] *= extent;
      layout.strides[layout.rank - 1] = stride;
      continue;
    }
    layout.shape[layout.rank] = extent;
    layout.strides[layout.rank] = stride;
    layout.rank++;
  }
  return layout;
}

typedef enum transfer_path { PATH_PLAIN, PATH_RECT, PATH_PACKED } transfer_path;

/* Rectangular transfers describe up to three dimensions: bytes along a row,
 * rows at a row pitch, slices at a slice pitch, each pitch at least the
 * extent it steps over and the slice pitch a multiple of the row pitch. */
static transfer_path path_of(const transfer_layout *layout, size_t size, size_t region[3],
                             size_t *row_pitch, size_t *slice_pitch) {
  if (layout->rank == 0 || (layout->rank == 1 && layout->strides[0] == 1)) return PATH_PLAIN;
  if (layout->rank > 3 || layout->strides[layout->rank - 1] != 1) return PATH_PACKED;
  size_t extents[3] = {1, 1, 1};
  size_t pitches[3] = {0, 0, 0};
  for (unsigned d = 0; d < layout->rank; d++) {
    unsigned at = layout->rank - 1 - d; /* 0: the row */
    if (layout->strides[d] <= 0) return PATH_PACKED;
    extents[at] = layout->shape[d];
    pitches[at] = (size_t)layout->strides[d] * size;
  }
  region[0] = extents[0] * size;
  region[1] = extents[1];
  region[2] = extents[2];
  *row_pitch = layout->rank >= 2 ? pitches[1] : 0;
  *slice_pitch = layout->rank == 3 ? pitches[2] : 0;
  if (layout->rank >= 2 && *row_pitch < region[0]) return PATH_PACKED;
  if (layout->rank == 3 &&
      (*slice_pitch < region[1] * *row_pitch || *slice_pitch % *row_pitch != 0)) {
    return PATH_PACKED;
  }
  if (layout->rank == 2) *slice_pitch = region[1] * *row_pitch;
  return PATH_RECT;
}

static clgpu_status check_transfer(clgpu_context *context, const clgpu_array *view,
                                   const void *host, size_t host_size, cl_uint num_events,
                                   const cl_event *wait_list, const char *who, int write) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__RETURN_ERROR_IF(!view, CLGPU_INVALID_ARGUMENT, "%s: the view is NULL", who);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(context, num_events, wait_list, who));
  clgpu_status status = clgpu__array_check(view);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (%s: the view)", who);
    return status;
  }
  size_t bytes = clgpu__array_count(view) * clgpu__type_size(view->type);
  CLGPU__RETURN_ERROR_IF(bytes > 0 && !host, CLGPU_INVALID_ARGUMENT, "%s: the host pointer is NULL",
                         who);
  CLGPU__RETURN_ERROR_IF(host_size < bytes, CLGPU_INVALID_ARGUMENT,
                         "%s: host_size is %zu bytes and the view's %zu elements take %zu", who,
                         host_size, clgpu__array_count(view), bytes);
  if (write) CLGPU__FORWARD_IF_ERROR(clgpu__check_output_layout(view, who, "destination"));
  return clgpu__check_buffer(context, view->buffer, who, write ? "destination" : "source", write);
}

/* A contiguous temporary of the view's shape, and the view over it. */
static clgpu_status make_temporary(clgpu_context *context, const clgpu_array *view, const char *who,
                                   cl_mem *buffer, clgpu_array *packed) {
  size_t bytes = clgpu__array_count(view) * clgpu__type_size(view->type);
  clgpu_status status = clgpu__buffer_create(context, CL_MEM_READ_WRITE, bytes, buffer);
  if (status != CLGPU_SUCCESS) {
    *buffer = NULL;
    clgpu__append_error(" (%s: the temporary of %zu bytes to pack the view)", who, bytes);
    return status;
  }
  status = clgpu__array_nd(*buffer, 0, view->type, view->rank, view->shape, CLGPU_ORDER_ROW_MAJOR,
                           packed);
  if (status != CLGPU_SUCCESS) {
    clgpu__buffer_release(context, *buffer);
    *buffer = NULL;
  }
  return status;
}

/* A rectangular transfer of `region` at byte `origin` of `root`, each
 * command pushed on the chain. Implementations read the spec's bounds check
 * of a rectangle differently: NVIDIA's OpenCL refuses one whose rows or
 * slices, counted whole with their pitch, would pass the buffer's end, even
 * when the bytes it moves do not (CL_INVALID_VALUE for rows 0:3, columns 0:6
 * of a 3 x 11 array that ends the buffer: the last row's padding is past
 * it). Where that padded extent passes the buffer's end, the last slice
 * and then the last row go as commands of their own: all slices but the
 * last as one rectangle, the last slice's rows but its last as another,
 * and the last row as a plain transfer; each piece's padding then ends at
 * or before the next piece's start. */
static cl_int transfer_rect(clgpu_context *context, clgpu__chain *chain, int write, cl_mem root,
                            cl_bool blocking, size_t origin, const size_t region[3],
                            size_t row_pitch, size_t slice_pitch, void *host) {
  cl_command_queue queue = clgpu__queue_of(context);
  size_t root_size = 0;
  cl_int err = clGetMemObjectInfo(root, CL_MEM_SIZE, sizeof root_size, &root_size, NULL);
  if (err != CL_SUCCESS) return err;
  unsigned char *bytes = host;
  size_t padded = origin + region[2] * slice_pitch;
  size_t pieces[3][3] = {{region[0], region[1], region[2]}, {0, 0, 0}, {0, 0, 0}};
  size_t starts[3] = {origin, 0, 0}, host_starts[3] = {0, 0, 0};
  size_t count = 1;
  if (padded > root_size) {
    count = 0;
    size_t last_slice = origin + (region[2] - 1) * slice_pitch;
    size_t last_slice_host = (region[2] - 1) * region[0] * region[1];
    if (region[2] > 1) {
      pieces[count][0] = region[0], pieces[count][1] = region[1], pieces[count][2] = region[2] - 1;
      starts[count] = origin, host_starts[count] = 0, count++;
    }
    if (region[1] > 1) {
      pieces[count][0] = region[0], pieces[count][1] = region[1] - 1, pieces[count][2] = 1;
      starts[count] = last_slice, host_starts[count] = last_slice_host, count++;
    }
    pieces[count][0] = region[0], pieces[count][1] = 1, pieces[count][2] = 1;
    starts[count] = last_slice + (region[1] - 1) * row_pitch;
    host_starts[count] = last_slice_host + (region[1] - 1) * region[0];
    count++;
  }
  for (size_t k = 0; k < count; k++) {
    cl_event made = NULL;
    cl_uint waits = clgpu__chain_wait_count(chain);
    const cl_event *list = clgpu__chain_wait_list(chain);
    if (pieces[k][1] == 1 && pieces[k][2] == 1 && count > 1) {
      err = clgpu__cl_enqueue_transfer(queue, write, root, blocking, starts[k], pieces[k][0],
                                       bytes + host_starts[k], waits, list, &made);
    } else {
      size_t buffer_origin[3] = {starts[k], 0, 0};
      /* A 2-D piece's slice pitch is its own rows' span. */
      size_t pitch = pieces[k][2] > 1 ? slice_pitch : pieces[k][1] * row_pitch;
      err = clgpu__cl_enqueue_transfer_rect(queue, write, root, blocking, buffer_origin, pieces[k],
                                            row_pitch, pitch, bytes + host_starts[k], waits, list,
                                            &made);
    }
    if (err != CL_SUCCESS) return err;
    clgpu__chain_push(chain, made);
  }
  return CL_SUCCESS;
}

static clgpu_status transfer(clgpu_context *context, const clgpu_array *view, void *host,
                             cl_bool blocking, cl_uint num_events, const cl_event *wait_list,
                             cl_event *event, int write, const char *who) {
  size_t size = clgpu__type_size(view->type);
  size_t bytes = clgpu__array_count(view) * size;
  clgpu__chain chain;
  clgpu__chain_begin(&chain, num_events, wait_list);
  if (bytes == 0) return clgpu__chain_end(context, &chain, event);
  cl_mem root = NULL;
  cl_ulong element_offset = 0;
  CLGPU__FORWARD_IF_ERROR(clgpu__array_root(view, &root, &element_offset));
  transfer_layout layout = layout_of(view);
  size_t region[3] = {0, 0, 0}, row_pitch = 0, slice_pitch = 0;
  transfer_path path = path_of(&layout, size, region, &row_pitch, &slice_pitch);
  /* The lowest byte the view reaches, from the root's start: a
   * rectangular transfer starts there. */
  size_t origin = (size_t)element_offset * size;

  cl_mem temporary = NULL;
  clgpu_array packed;
  if (path == PATH_PACKED) {
    CLGPU__FORWARD_IF_ERROR(make_temporary(context, view, who, &temporary, &packed));
  }
  clgpu_status status = CLGPU_SUCCESS;
  if (path == PATH_PACKED && !write)
    status = clgpu__chain_copy(context, &chain, &packed, view, who);
  if (status == CLGPU_SUCCESS) {
    cl_event made = NULL;
    cl_int err = CL_SUCCESS;
    cl_uint waits = clgpu__chain_wait_count(&chain);
    const cl_event *list = clgpu__chain_wait_list(&chain);
    /* A packed write must finish reading the host before the call returns
     * only when blocking; the unpacking copy runs after it either way. */
    if (path == PATH_RECT) {
      err = transfer_rect(context, &chain, write, root, blocking, origin, region, row_pitch,
                          slice_pitch, host);
    } else {
      cl_mem buffer = path == PATH_PACKED ? temporary : root;
      size_t offset = path == PATH_PACKED ? 0 : origin;
      err = clgpu__cl_enqueue_transfer(clgpu__queue_of(context), write, buffer, blocking, offset,
                                       bytes, host, waits, list, &made);
    }
    if (err != CL_SUCCESS) {
      status = clgpu__fail_cl(
          err, path == PATH_RECT ? (write ? "clEnqueueWriteBufferRect" : "clEnqueueReadBufferRect")
                                 : (write ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer"));
    } else if (made) {
      clgpu__chain_push(&chain, made);
    }
  }
  if (status == CLGPU_SUCCESS && path == PATH_PACKED && write) {
    status = clgpu__chain_copy(context, &chain, view, &packed, who);
  }
  if (status == CLGPU_SUCCESS) {
    status = clgpu__chain_end(context, &chain, event);
  } else {
    clgpu__chain_abandon(&chain);
  }
  if (temporary) clgpu__buffer_release(context, temporary);
  if (status != CLGPU_SUCCESS) clgpu__append_error(" (in %s)", who);
  return status;
}

/* The argument checks, then the transfer: the one path of the four entry
 * points below. */
static clgpu_status checked_transfer(clgpu_context *context, const clgpu_array *view, void *host,
                                     size_t host_size, cl_bool blocking, cl_uint num_events,
                                     const cl_event *wait_list, cl_event *event, int write,
                                     const char *who) {
  CLGPU__FORWARD_IF_ERROR(
      check_transfer(context, view, host, host_size, num_events, wait_list, who, write));
  return transfer(context, view, host, blocking, num_events, wait_list, event, write, who);
}

clgpu_status clgpu_copy_to_host(clgpu_context *context, void *host, size_t host_size,
                                const clgpu_array *source, cl_uint num_events,
                                const cl_event *wait_list, cl_event *event) {
  return checked_transfer(context, source, host, host_size, CL_FALSE, num_events, wait_list, event,
                          0, "clgpu_copy_to_host");
}

clgpu_status clgpu_copy_from_host(clgpu_context *context, const clgpu_array *destination,
                                  const void *host, size_t host_size, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event) {
  return checked_transfer(context, destination, (void *)host, host_size, CL_FALSE, num_events,
                          wait_list, event, 1, "clgpu_copy_from_host");
}

/* The read is the last command, and it blocks. */
clgpu_status clgpu_array_read(clgpu_context *context, void *host, size_t host_size,
                              const clgpu_array *source, cl_uint num_events,
                              const cl_event *wait_list) {
  return checked_transfer(context, source, host, host_size, CL_TRUE, num_events, wait_list, NULL, 0,
                          "clgpu_array_read");
}

/* The write blocks; a packed write ends with the unpacking copy, waited
 * for too. */
clgpu_status clgpu_array_write(clgpu_context *context, const clgpu_array *destination,
                               const void *host, size_t host_size, cl_uint num_events,
                               const cl_event *wait_list) {
  const char *who = "clgpu_array_write";
  cl_event done = NULL;
  CLGPU__FORWARD_IF_ERROR(checked_transfer(context, destination, (void *)host, host_size, CL_TRUE,
                                           num_events, wait_list, &done, 1, who));
  if (!done) return CLGPU_SUCCESS;
  cl_int err = clWaitForEvents(1, &done);
  clReleaseEvent(done);
  if (err == CL_SUCCESS) return CLGPU_SUCCESS;
  clgpu_status status = clgpu__fail_cl(err, "clWaitForEvents");
  clgpu__append_error(" (in %s)", who);
  return status;
}

clgpu_status clgpu_fill(clgpu_context *context, const clgpu_array *destination, const void *value,
                        cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  const char *who = "clgpu_fill";
  CLGPU__RETURN_ERROR_IF(!value, CLGPU_INVALID_ARGUMENT, "%s: value is NULL", who);
  CLGPU__FORWARD_IF_ERROR(
      check_transfer(context, destination, value, (size_t)-1, num_events, wait_list, who, 1));
  size_t size = clgpu__type_size(destination->type);
  size_t count = clgpu__array_count(destination);
  clgpu__chain chain;
  clgpu__chain_begin(&chain, num_events, wait_list);
  if (count == 0) return clgpu__chain_end(context, &chain, event);
  transfer_layout layout = layout_of(destination);
  if (!(layout.rank == 0 || (layout.rank == 1 && layout.strides[0] == 1))) {
    return clgpu__fill_strided(context, destination, value, num_events, wait_list, event);
  }
  cl_mem root = NULL;
  cl_ulong element_offset = 0;
  CLGPU__FORWARD_IF_ERROR(clgpu__array_root(destination, &root, &element_offset));
  cl_event made = NULL;
  cl_int err = clgpu__cl_enqueue_fill(clgpu__queue_of(context), root, value, size,
                                      (size_t)element_offset * size, count * size, num_events,
                                      wait_list, &made);
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clEnqueueFillBuffer (in clgpu_fill)");
  clgpu__chain_push(&chain, made);
  return clgpu__chain_end(context, &chain, event);
}
