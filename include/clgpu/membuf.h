/** @file
 * Buffers across memory spaces: a block of elements that lives in host
 * memory, in device memory or in both, and moves between them on request.
 *
 * Key concepts:
 * - A clgpu_membuf holds `capacity` elements of one clgpu_type, of which the
 *   first `size` are in use, and copies them between the host and the device
 *   of a context. Three kinds: host only, host+device (each side made when
 *   first needed), and fixed (over storage the caller provides; cannot grow).
 * - A host+device buffer records which sides hold the current data; a move
 *   copies only when the destination is stale, and `access` says what the
 *   caller will do there (clgpu_access).
 * - Handles are shallow: copying a `clgpu_membuf *` shares the buffer, and
 *   exactly one copy is given to clgpu_membuf_destroy. A NULL handle is refused
 *   by every function except clgpu_membuf_destroy.
 * - Moves to the device only enqueue; moves to the host block unless the
 *   caller asks for the event. Every copy between spaces calls the context's
 *   move report (by default one line on stderr).
 * - A buffer is not safe to use from several threads at once; different
 *   buffers are, as is one context.
 * docs/membuf.md has the details: the kinds, how moves are ordered and when
 * they wait, and the reports.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   static void count_bytes(void *user, const clgpu_move_report *report) {
 *     *(uint64_t *)user += report->bytes;
 *   }
 *
 *   int main(void) {
 *     float storage[8];
 *     float *host = NULL;
 *     uint64_t moved = 0;
 *     clgpu_context *context = NULL;
 *     clgpu_membuf *buffer = NULL;
 *     clgpu_array view;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_membuf_set_move_report(context, count_bytes, &moved);
 *     if (status == CLGPU_SUCCESS)
 *       status =
 *           clgpu_membuf_create_fixed(context, CLGPU_TYPE_FLOAT, storage, 8, 8, NULL, &buffer);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_membuf_device_array(buffer, CLGPU_ACCESS_WRITE_ONLY, 0, NULL, NULL, &view);
 *     if (status == CLGPU_SUCCESS) {
 *       float start = 1.0f, step = 0.5f;
 *       status = clgpu_iota(context, &view, &start, &step, 0, NULL, NULL);
 *     }
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_membuf_host(buffer, CLGPU_ACCESS_READ_ONLY, (void **)&host);
 *     if (status == CLGPU_SUCCESS)
 *       printf("%g ... %g, %llu bytes moved\n", host[0], host[7], (unsigned long long)moved);
 *     else
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     clgpu_membuf_destroy(buffer);
 *     clgpu_context_destroy(context);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_MEMBUF_H
#define CLGPU_MEMBUF_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/api.h>
#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct clgpu_membuf clgpu_membuf;

/** Memory spaces. 0 is not a space. */
typedef enum clgpu_space {
  CLGPU_SPACE_HOST = 1,
  CLGPU_SPACE_DEVICE = 2,
} clgpu_space;

/** What the caller will do with the data in the space it moves to.
 *   READ_WRITE  the data is copied there if that side is not current, and
 *               that side becomes the only current one (the other is stale:
 *               a later move back copies).
 *   READ_ONLY   a const move: the data is copied there if needed, and both
 *               sides stay current. A write the caller makes anyway is not
 *               tracked: a later move back copies nothing and the other
 *               side keeps its old data.
 *   WRITE_ONLY  the caller will overwrite every element in use: nothing is
 *               copied, and that side becomes the only current one. */
typedef enum clgpu_access {
  CLGPU_ACCESS_READ_WRITE = 0,
  CLGPU_ACCESS_READ_ONLY = 1,
  CLGPU_ACCESS_WRITE_ONLY = 2,
} clgpu_access;

/** The kinds above. */
typedef enum clgpu_membuf_kind {
  CLGPU_MEMBUF_HOST = 1,
  CLGPU_MEMBUF_HOST_DEVICE = 2,
  CLGPU_MEMBUF_FIXED = 3,
} clgpu_membuf_kind;

/** Options for making a buffer; NULL or {0} for the defaults. */
typedef struct clgpu_membuf_options {
  const char *name;      /**< for move reports; copied; NULL: no name */
  const char *type_name; /**< for move reports; copied; NULL: the element type's OpenCL C name */
  /** The queue the buffer's moves, resizes and copies enqueue on; NULL: the
   * context's. It must be a queue of the context's OpenCL context and
   * device (checked when the buffer is made, docs/queues.md); the buffer
   * retains it until clgpu_membuf_destroy. Must be NULL for a host-only
   * buffer. */
  cl_command_queue queue;
  uint64_t reserved[CLGPU_OPTIONS_RESERVED]; /**< must be zero */
} clgpu_membuf_options;

/* ---- making and freeing ---- */

/** Make a host-only buffer of `count` elements of `type` (contents
 * uninitialised), with capacity `count`, written to *out; free it with
 * clgpu_membuf_destroy. Errors: CLGPU_INVALID_ARGUMENT (NULL out, unknown type,
 * a byte size that overflows), CLGPU_CL_OUT_OF_HOST_MEMORY. On failure *out
 * is NULL. */
CLGPU_API clgpu_status clgpu_membuf_create_host(clgpu_type type, size_t count,
                                                const clgpu_membuf_options *options,
                                                clgpu_membuf **out);

/** Make a host+device buffer of `count` elements (capacity `count`) on
 * `context`, written to *out, allocated in `space`, which holds the current
 * (uninitialised) data; the other side is made by the first move there. The
 * buffer holds a reference to the context until clgpu_membuf_destroy, so the
 * context may be destroyed first and the buffer keeps working
 * (docs/lifetimes.md). Errors: as clgpu_membuf_create_host,
 * CLGPU_INVALID_ARGUMENT (NULL context, unknown space),
 * CLGPU_CL_INVALID_BUFFER_SIZE (more than the device's largest allocation)
 * and OpenCL's codes from clCreateBuffer. */
CLGPU_API clgpu_status clgpu_membuf_create(clgpu_context *context, clgpu_type type, size_t count,
                                           clgpu_space space,
                                           const clgpu_membuf_options *options,
                                           clgpu_membuf **out);

/** Make a fixed-capacity buffer over `storage` (capacity elements of `type`,
 * suitably aligned for it; the first `count` in use, their current contents
 * taken as the data), written to *out. The storage stays the caller's, valid
 * until the buffer is destroyed. With a context, a cl_mem of `capacity` elements
 * is made by the first move to the device, and the buffer holds a reference
 * to the context as clgpu_membuf_create's do; with NULL, the buffer is
 * host-only (device requests get CLGPU_WRONG_SPACE). Errors:
 * CLGPU_INVALID_ARGUMENT (NULL storage or out, count > capacity, capacity 0,
 * storage not aligned to the element size, unknown type),
 * CLGPU_CL_OUT_OF_HOST_MEMORY. */
CLGPU_API clgpu_status clgpu_membuf_create_fixed(clgpu_context *context, clgpu_type type,
                                                 void *storage, size_t capacity, size_t count,
                                                 const clgpu_membuf_options *options,
                                                 clgpu_membuf **out);

/** Free the buffer's allocations (never a fixed buffer's storage), after any
 * pending command that reads its host memory has completed (so it may
 * block), and drop its reference to its context (which frees a context
 * destroyed before). Every handle copied from this one dangles afterwards.
 * NULL does nothing. */
CLGPU_API void clgpu_membuf_destroy(clgpu_membuf *buffer);

/* ---- moving ---- */

/** Make the data current in `space` for `access` (see clgpu_access),
 * allocating that side if it is missing. A copy is made only when the
 * destination is not current and access is not WRITE_ONLY, and each copy
 * calls the context's move report. `event` (may be NULL) receives an event
 * that completes when the data is there (a marker when nothing was copied);
 * the caller releases it; NULL asks for none and changes nothing else.
 * Only enqueues, in both directions, as every function with an event does:
 * to read the data on the host, wait for the event (or finish the queue),
 * or call clgpu_membuf_host, which waits. A host-only buffer enqueues
 * nothing: it waits for the wait list on the host and sets *event to NULL.
 * Errors: CLGPU_INVALID_ARGUMENT (NULL buffer, unknown space or access, a
 * bad wait list), CLGPU_WRONG_SPACE (the device space of a host-only
 * buffer), OpenCL's codes from allocating or enqueueing. On failure the
 * buffer's record of which side is current is unchanged. */
CLGPU_API clgpu_status clgpu_membuf_move(clgpu_membuf *buffer, clgpu_space space,
                                         clgpu_access access, cl_uint num_events,
                                         const cl_event *wait_list, cl_event *event);

/** Mark `space`'s copy as modified without moving anything: it becomes the
 * only current side, so the next move to the other space copies. Errors:
 * CLGPU_INVALID_ARGUMENT, CLGPU_WRONG_SPACE (the device of a host-only
 * buffer, or a side that has no allocation yet: the message says which). */
CLGPU_API clgpu_status clgpu_membuf_touch(clgpu_membuf *buffer, clgpu_space space);

/** Resize to `size` elements in use and `capacity` allocated (size <=
 * capacity), in `space`: the first min(size, old size) elements are kept
 * there (moved there first if that side was not current, which is a move
 * and is reported), elements beyond the old size are uninitialised, and the
 * other side's allocation is freed, so `space` is the only one holding the
 * data. A host reallocation waits for pending commands on the host memory
 * (and for the data, when it comes from the device); a device one enqueues
 * the copy and returns. A fixed buffer keeps its storage and its capacity:
 * any capacity up to the fixed one is accepted (only the size changes).
 * Errors: CLGPU_INVALID_ARGUMENT (size > capacity, capacity 0, unknown
 * space), CLGPU_WRONG_SPACE, CLGPU_CAPACITY_EXCEEDED (a fixed buffer asked
 * to grow), out-of-memory and OpenCL's codes. On failure the buffer, its
 * contents and its allocations are as they were. */
CLGPU_API clgpu_status clgpu_membuf_reallocate(clgpu_membuf *buffer, size_t size,
                                               clgpu_space space, size_t capacity);

/** Copy the contents of `source` (its `size` elements, from whichever side
 * is current, the host if both are) into `destination`'s host side, giving
 * it the same size: a destination whose capacity is too small grows like a
 * host reallocation, except a fixed one, which refuses with
 * CLGPU_CAPACITY_EXCEEDED. The destination's host side becomes its only
 * current one. Blocks until the data is on the host. Copying from the device
 * is a move of the source, reported as one; the source's record does not
 * change. Errors: CLGPU_INVALID_ARGUMENT (NULL, the same buffer),
 * CLGPU_TYPE_MISMATCH, CLGPU_CAPACITY_EXCEEDED, OpenCL's codes. */
CLGPU_API clgpu_status clgpu_membuf_assign(clgpu_membuf *destination, clgpu_membuf *source);

/* ---- the data ---- */

/** Move to the host for `access`, wait until the data is there (and for any
 * move still pending on the buffer, such as a clgpu_membuf_move without an
 * event), and set *data to the host pointer, valid until the buffer is
 * reallocated, assigned into or destroyed. Errors as clgpu_membuf_move, and
 * CLGPU_INVALID_ARGUMENT for NULL data. */
CLGPU_API clgpu_status clgpu_membuf_host(clgpu_membuf *buffer, clgpu_access access, void **data);

/** Move to the device for `access` (only enqueues, as clgpu_membuf_move) and
 * give a contiguous 1-D view of the `size` elements in use over the buffer's
 * cl_mem, for any operation of the library. The view stays valid until the
 * buffer is reallocated or destroyed. A buffer of size 0 gives a view of 0
 * elements. Errors as clgpu_membuf_move, and CLGPU_INVALID_ARGUMENT for NULL
 * out. */
CLGPU_API clgpu_status clgpu_membuf_device_array(clgpu_membuf *buffer, clgpu_access access,
                                                 cl_uint num_events, const cl_event *wait_list,
                                                 cl_event *event, clgpu_array *out);

/** The raw sides, without moving anything: the host pointer (NULL before a
 * host allocation exists) and the cl_mem (NULL before a device allocation
 * exists; not retained for the caller). NULL for a NULL buffer. */
CLGPU_API void *clgpu_membuf_host_pointer(const clgpu_membuf *buffer);
CLGPU_API cl_mem clgpu_membuf_device_memory(const clgpu_membuf *buffer);

/** What a buffer is and has done. Strings are the buffer's, valid until it
 * is renamed or destroyed. */
typedef struct clgpu_membuf_info {
  clgpu_membuf_kind kind;
  clgpu_type type;
  size_t size;     /**< elements in use */
  size_t capacity; /**< elements allocated */
  int host_allocated, device_allocated;
  int host_current, device_current; /**< which sides hold the current data */
  /** Copies between spaces since creation, and their bytes. */
  uint64_t moves_to_host, moves_to_device;
  uint64_t bytes_to_host, bytes_to_device;
  const char *name;      /**< "" when unnamed */
  const char *type_name; /**< as reports print it */
} clgpu_membuf_info;

/** Describe the buffer in *out (see clgpu_membuf_info). Moves and blocks
 * nothing. Errors: CLGPU_INVALID_ARGUMENT (NULL buffer or out). */
CLGPU_API clgpu_status clgpu_membuf_get_info(const clgpu_membuf *buffer, clgpu_membuf_info *out);

/** Rename the buffer, or change the type name its reports print; NULL
 * clears the name or restores the element type's name. Copied. Errors:
 * CLGPU_INVALID_ARGUMENT, CLGPU_CL_OUT_OF_HOST_MEMORY (the old one stays). */
CLGPU_API clgpu_status clgpu_membuf_set_name(clgpu_membuf *buffer, const char *name);
CLGPU_API clgpu_status clgpu_membuf_set_type_name(clgpu_membuf *buffer, const char *type_name);

/* ---- move reports ---- */

/** One copy between spaces, as a report callback gets it. */
typedef struct clgpu_move_report {
  uint64_t bytes;
  clgpu_space to;        /**< the destination */
  const char *type_name; /**< never NULL */
  const char *name;      /**< "" when unnamed */
  const clgpu_membuf *buffer;
  /** The line the default callback prints, without its newline:
   * "Moved    4.0 KB to the DEVICE: int my_buffer" (see
   * clgpu_move_report_format). */
  const char *line;
} clgpu_move_report;

typedef void (*clgpu_move_report_fn)(void *user, const clgpu_move_report *report);

/** The default move report callback: writes the report's line and a newline
 * to stderr. `user` is ignored. */
CLGPU_API void clgpu_move_report_stderr(void *user, const clgpu_move_report *report);

/** Replace the context's callback (every context starts with
 * clgpu_move_report_stderr); NULL switches reports off. It is called on the
 * thread that makes the move, once per copy, after the copy is enqueued,
 * possibly from several threads at once when several buffers move. Errors:
 * CLGPU_INVALID_ARGUMENT (NULL context). */
CLGPU_API clgpu_status clgpu_membuf_set_move_report(clgpu_context *context,
                                                     clgpu_move_report_fn callback, void *user);

/** Format a report line into `text` (NUL-terminated, cut to `size`):
 * "Moved " then the size right-aligned in 6 columns with one decimal and
 * its unit (B below 1024 bytes, else KB, MB, GB in powers of 1024), " to
 * the HOST" or " to the DEVICE", ": ", the type name, and " " and the name
 * when there is one. Returns the length it needed (as snprintf). */
CLGPU_API size_t clgpu_move_report_format(uint64_t bytes, clgpu_space to, const char *type_name,
                                          const char *name, char *text, size_t size);

#ifdef __cplusplus
}
#endif

#endif
