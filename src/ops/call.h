/* What every operation's call does around its kernels: where its data is
 * (places in buffers, slots of its workspace), staging a strided input,
 * reading a result back, and the end of the call. */
#ifndef CLGPU_SRC_CALL_H
#define CLGPU_SRC_CALL_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/workspace.h>

#include "chain.h"
#include "lease.h"
#include "workspace_internal.h"

/* A place on the device: a buffer and an element offset into it. */
typedef struct clgpu__place {
  cl_mem buffer;
  cl_ulong offset;
} clgpu__place;

/* Slot `index` of a call's workspace as a place, in elements of its type. */
clgpu__place clgpu__scratch_place(const clgpu__scratch *scratch, unsigned index);

/* A contiguous row-major view over workspace slot `index`. */
clgpu_status clgpu__scratch_view(const clgpu__scratch *scratch, unsigned index, clgpu_type type,
                                 unsigned rank, const size_t *shape, clgpu_array *out);

/* The root buffer and element offset of a view. */
clgpu_status clgpu__place_of(const clgpu_array *array, clgpu__place *out);

/* Where a kernel reads `view` from: the view itself (pack 0), or workspace
 * slot `index`, into which the chain's next command copies it. */
clgpu_status clgpu__input_place(clgpu_context *context, clgpu__chain *chain,
                                const clgpu__scratch *scratch, unsigned index, int pack,
                                const clgpu_array *view, clgpu__place *out, const char *who);

/* Reads `size` bytes at `from` into host memory after the chain, blocking. */
clgpu_status clgpu__read_back(clgpu_context *context, const clgpu__chain *chain, clgpu__place from,
                              size_t size, void *host, const char *what);

/* The end of every call: the caller's event (or the chain dropped after a
 * failure), the kernels back to their programs, the scratch given back.
 * Returns `status`, or the first failure of ending the chain. */
clgpu_status clgpu__finish_call(clgpu_context *context, clgpu_status status, clgpu__chain *chain,
                                cl_event *event, clgpu__leases *held, clgpu__scratch *scratch);

/* The global size of `groups` groups of `group` work-items. */
static inline size_t clgpu__global_size(uint64_t groups, size_t group) {
  return (size_t)groups * group;
}

/* The view an "_upto" workspace query plans for: a contiguous 1-D view of
 * max_n elements of `type` over no buffer. The query runs the plan function
 * of the call over it, so the query and a call cannot disagree; the plan
 * functions skip what needs a buffer when the view has none (a caller's
 * view always has one: clgpu_array_check refuses NULL). */
clgpu_array clgpu__upto_view(clgpu_type type, uint64_t max_n);

/* ---- one skeleton for every operation's entry points ---- */

/* What an entry point was given, passed whole to its family's plan and run
 * functions. A size query fills in the same fields as its call (no wait
 * list, no event); an "_upto" query has clgpu__upto_view as its input. */
typedef struct clgpu__call {
  const char *who;
  const void *op;        /* the family's operator (a reduce or scan op), or NULL */
  const char *predicate; /* count_if and findall: the predicate text */
  const clgpu_array *input;
  int axis;
  const clgpu_array *output; /* findall: the indices; NULL in an _upto query */
  const clgpu_array *count;  /* findall: the count view, else NULL */
  const clgpu_call_options *options;
  cl_uint num_events;
  const cl_event *wait_list;
  cl_event *event;
  void *host;       /* the _read forms: where the result is read to */
  size_t host_size; /* clgpu_reduce_read: the bytes at `host` */
} clgpu__call;

/* An operation family: `plan` checks a call and plans it into the family's
 * plan struct (its report at `report_offset`); on success `release` is
 * called on that plan once, after the query or the run. */
typedef struct clgpu__family {
  clgpu_status (*plan)(clgpu_context *context, const clgpu__call *call, void *plan);
  clgpu_status (*run)(clgpu_context *context, void *plan, const clgpu__call *call);
  void (*release)(void *plan);
  size_t report_offset;
} clgpu__family;

/* A call's common fields; the axis is CLGPU_ALL_AXES and the family's own
 * fields (op, predicate, count, host) are NULL until the caller sets them. */
clgpu__call clgpu__call_make(const char *who, const clgpu_array *input, const clgpu_array *output,
                             const clgpu_call_options *options, cl_uint num_events,
                             const cl_event *wait_list, cl_event *event);

/* Every entry point of a family: the checks every call shares (the
 * context, the input view, the wait list), the plan, then the plan's report
 * into `query` when it is not NULL, else the run. `plan` is the family's
 * plan struct, which the caller provides. */
clgpu_status clgpu__query_or_run(clgpu_context *context, const clgpu__family *family,
                                 const clgpu__call *call, void *plan, clgpu_workspace_size *query);

/* An "_upto" query: the family's plan over clgpu__upto_view(type, max_n) as
 * the input (and as the output too when `in_place`), its report into `out`;
 * a failure names max_n. */
clgpu_status clgpu__query_upto(clgpu_context *context, const clgpu__family *family,
                               clgpu__call *call, clgpu_type type, uint64_t max_n, int in_place,
                               void *plan, clgpu_workspace_size *out);

/* The view with dimension `axis` moved last. */
clgpu_status clgpu__axis_last(const clgpu_array *array, unsigned axis, clgpu_array *out);

#endif
