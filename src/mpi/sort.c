/* The distributed sort (mpi.h): each rank sorts its part with clgpu_sort,
 * the ranks find exact splitters by bisecting the keys' ordered images
 * (clgpu_lower_bound on each rank, one MPI_Allreduce per bit), exchange the
 * data once with MPI_Alltoallv, and each rank sorts what it received again
 * (docs/mpi.md). Every rank ends with as many elements as it started with. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/clgpu.h>
#include <clgpu/mpi.h>

#include "agree.h"
#include "status_internal.h"
#include "times.h"
#include "values.h"

/* ---- the keys' ordered images ---- */

/* How a key type orders: its width in bits, and for floats the image of
 * -inf (the lowest image a key can have: the images below it would be
 * negative NaNs, which sort as positive ones). */
typedef struct key_order {
  clgpu_type type;
  unsigned bits;
  int descending;
  int is_float;
  int is_signed;
  uint64_t mask, top;
  uint64_t lowest; /* the lowest image a key has */
} key_order;

static int order_of(clgpu_type type, int descending, key_order *o) {
  memset(o, 0, sizeof *o);
  o->type = type;
  o->descending = descending;
  switch (type) {
    case CLGPU_TYPE_INT8:
      o->is_signed = 1; /* fall through */
    case CLGPU_TYPE_UINT8:
      o->bits = 8;
      break;
    case CLGPU_TYPE_INT16:
      o->is_signed = 1; /* fall through */
    case CLGPU_TYPE_UINT16:
      o->bits = 16;
      break;
    case CLGPU_TYPE_INT32:
      o->is_signed = 1; /* fall through */
    case CLGPU_TYPE_UINT32:
      o->bits = 32;
      break;
    case CLGPU_TYPE_INT64:
      o->is_signed = 1; /* fall through */
    case CLGPU_TYPE_UINT64:
      o->bits = 64;
      break;
    case CLGPU_TYPE_HALF:
      o->bits = 16, o->is_float = 1;
      break;
    case CLGPU_TYPE_FLOAT:
      o->bits = 32, o->is_float = 1;
      break;
    case CLGPU_TYPE_DOUBLE:
      o->bits = 64, o->is_float = 1;
      break;
    default:
      return 0;
  }
  o->mask = o->bits == 64 ? UINT64_MAX : (((uint64_t)1 << o->bits) - 1);
  o->top = (uint64_t)1 << (o->bits - 1);
  if (o->is_float) {
    /* -inf: sign, all exponent bits, no mantissa. */
    uint64_t minus_inf = o->bits == 16   ? 0xfc00u
                         : o->bits == 32 ? 0xff800000u
                                         : UINT64_C(0xfff0000000000000);
    o->lowest = ~minus_inf & o->mask;
  }
  return 1;
}

/* What a position in the sort order (a rank image: the ordered image,
 * complemented for descending sorts) means on one rank: the key to search
 * for, or a count known without searching (no key has such an image). */
enum { SEARCH, NONE_BEFORE, ALL_BEFORE };

static int key_at(const key_order *o, uint64_t rho, clgpu__value *key) {
  uint64_t image = o->descending ? ~rho & o->mask : rho;
  memset(key, 0, sizeof *key);
  if (o->is_float && image < o->lowest) {
    /* Below -inf: no key sorts there. Ascending, every key comes after;
     * descending, every key comes before. */
    return o->descending ? ALL_BEFORE : NONE_BEFORE;
  }
  uint64_t bits;
  if (o->is_float) {
    /* Positive values, +inf and NaNs (by their bits without the sign) have
     * the top bit; negative values are complemented. */
    bits = (image & o->top) ? image & ~o->top : ~image & o->mask;
  } else {
    bits = o->is_signed ? image ^ o->top : image;
  }
  memcpy(key->bytes, &bits, o->bits / 8); /* little-endian, as the devices */
  return SEARCH;
}

/* ---- the workspace ---- */

/* Bytes of values per key: the values view's bytes over the keys (sort.h),
 * its element size for an empty part; 0 without values. */
static uint64_t value_bytes(const clgpu_array *keys, const clgpu_array *values) {
  if (!values) return 0;
  size_t n = clgpu_array_count(keys);
  size_t bytes = clgpu_array_count(values) * clgpu_type_size(values->type);
  return n ? bytes / n : clgpu_type_size(values->type);
}

/* The staging buffers, after the local sorts' buffers: what the rank sends
 * and what it receives, keys and values, each as many bytes as its part. */
enum { KEYS_OUT, KEYS_IN, VALUES_OUT, VALUES_IN, STAGED };
static const char *const staged_name[STAGED] = {"staged keys out", "staged keys in",
                                                "staged values out", "staged values in"};

static uint64_t round_up(uint64_t x, uint64_t alignment) {
  return (x + alignment - 1) / alignment * alignment;
}

/* The reports of one call: each local sort's (of the part, of the output;
 * the same for an in-place sort) and the call's. */
typedef struct sort_reports {
  clgpu_workspace_size side[2];
  clgpu_workspace_size whole;
} sort_reports;

/* The reports of clgpu_mpi_sort on this rank, made once per call. The
 * call's: part 0 the call itself, then the local sort's parts with their
 * buffers at the offsets the local sort's report gives them (the larger of
 * the two local reports: its part of a workspace is a prefix that serves
 * both), then the four staging buffers. The rank count does not enter:
 * every rank receives its output's count. */
static clgpu_status mpi_sort_report(const char *who, clgpu_context *context,
                                    const clgpu_sort_spec *spec, const clgpu_array *out_keys,
                                    const clgpu_array *out_values, const clgpu_array *keys,
                                    const clgpu_array *values, const clgpu_sort_options *options,
                                    sort_reports *reports) {
  CLGPU__FORWARD_IF_ERROR(
      clgpu_sort_workspace_size(context, spec, keys, values, options, &reports->side[0]));
  reports->side[1] = reports->side[0];
  if (out_keys != keys) {
    CLGPU__FORWARD_IF_ERROR(
        clgpu_sort_workspace_size(context, spec, out_keys, out_values, options, &reports->side[1]));
  }
  const clgpu_workspace_size *local = reports->side[1].total_bytes > reports->side[0].total_bytes
                                          ? &reports->side[1]
                                          : &reports->side[0];
  clgpu_workspace_size *out = &reports->whole;
  CLGPU__RETURN_ERROR_IF(local->num_parts + 1 > CLGPU_WORKSPACE_MAX_PARTS ||
                             local->num_buffers + STAGED > CLGPU_WORKSPACE_MAX_BUFFERS,
                         CLGPU_INTERNAL_ERROR,
                         "%s: the local sort's report (%u parts, %u buffers) leaves no room for "
                         "the staging",
                         who, local->num_parts, local->num_buffers);
  memset(out, 0, sizeof *out);
  out->alignment = local->alignment;
  out->num_parts = local->num_parts + 1;
  out->parts[0].operation = CLGPU_OPERATION_MPI_SORT;
  out->parts[0].shape = local->parts[0].shape;
  out->parts[0].algorithm = CLGPU_ALGORITHM_AUTO;
  out->parts[0].parent = -1;
  for (unsigned p = 0; p < local->num_parts; p++) {
    out->parts[p + 1] = local->parts[p];
    out->parts[p + 1].parent = local->parts[p].parent + 1;
  }
  out->num_buffers = local->num_buffers;
  for (unsigned b = 0; b < local->num_buffers; b++) {
    out->buffers[b] = local->buffers[b];
    out->buffers[b].part = local->buffers[b].part + 1;
  }
  uint64_t n = clgpu_array_count(keys), m = clgpu_array_count(out_keys);
  uint64_t key_size = clgpu_type_size(keys->type);
  uint64_t unit = n ? value_bytes(keys, values) : value_bytes(out_keys, out_values);
  uint64_t bytes[STAGED] = {n * key_size, m * key_size, n * unit, m * unit};
  uint64_t at = round_up(local->total_bytes, local->alignment), total = local->total_bytes;
  for (unsigned i = 0; i < STAGED; i++) {
    clgpu_workspace_buffer *buffer = &out->buffers[out->num_buffers++];
    buffer->name = staged_name[i];
    buffer->part = 0;
    buffer->type = CLGPU_TYPE_UINT8;
    buffer->count = bytes[i];
    buffer->bytes = bytes[i];
    buffer->offset = at;
    if (bytes[i]) {
      total = at + bytes[i];
      at = round_up(total, local->alignment);
    }
  }
  out->total_bytes = total;
  return CLGPU_SUCCESS;
}

/* ---- checks ---- */

/* Whether a view may overlap any of the others (NULL ones skipped). */
static const char *overlapping(const clgpu_array *view, const clgpu_array *const *others,
                               const char *const *names, int count) {
  for (int i = 0; view && i < count; i++) {
    if (others[i] && clgpu_may_alias(view, others[i])) return names[i];
  }
  return NULL;
}

static clgpu_status check_sort(const char *who, int into, clgpu_context *context,
                               const clgpu_sort_spec *spec, const clgpu_array *out_keys,
                               const clgpu_array *out_values, const clgpu_array *keys,
                               const clgpu_array *values, const clgpu_sort_options *options,
                               sort_reports *reports) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__RETURN_ERROR_IF(!keys, CLGPU_INVALID_ARGUMENT, "%s: keys is NULL", who);
  CLGPU__RETURN_ERROR_IF(!out_keys, CLGPU_INVALID_ARGUMENT, "%s: out_keys is NULL", who);
  CLGPU__RETURN_ERROR_IF(into && out_keys == keys, CLGPU_INVALID_OUTPUT,
                         "%s: out_keys is keys (clgpu_mpi_sort sorts in place)", who);
  CLGPU__RETURN_ERROR_IF(spec && (spec->compare || spec->key_type || spec->declarations),
                         CLGPU_INVALID_ARGUMENT,
                         "%s: comparators and custom key types are merge sort's, which is not "
                         "distributed; the distributed sort takes built-in keys in their natural "
                         "order",
                         who);
  CLGPU__RETURN_ERROR_IF(spec && (spec->begin_bit || spec->end_bit), CLGPU_INVALID_ARGUMENT,
                         "%s: the distributed sort sorts by every bit of the key (bits [%u, %u) "
                         "asked)",
                         who, spec->begin_bit, spec->end_bit);
  CLGPU__RETURN_ERROR_IF(
      options && options->algorithm == CLGPU_ALGORITHM_MERGE, CLGPU_INVALID_ARGUMENT,
      "%s: the distributed sort runs radix sorts (CLGPU_ALGORITHM_MERGE asked)", who);
  key_order o;
  CLGPU__RETURN_ERROR_IF(!order_of(keys->type, 0, &o), CLGPU_TYPE_MISMATCH,
                         "%s: keys of %s have no natural order to distribute", who,
                         clgpu_type_cl_name(keys->type));
  if (out_keys != keys) {
    CLGPU__RETURN_ERROR_IF(out_keys->type != keys->type, CLGPU_TYPE_MISMATCH,
                           "%s: out_keys are %s, keys %s", who, clgpu_type_cl_name(out_keys->type),
                           clgpu_type_cl_name(keys->type));
    CLGPU__RETURN_ERROR_IF(!out_values != !values, CLGPU_INVALID_ARGUMENT,
                           "%s: values and out_values go together (one of them is NULL)", who);
    CLGPU__RETURN_ERROR_IF(values && out_values->type != values->type, CLGPU_TYPE_MISMATCH,
                           "%s: out_values are %s, values %s", who,
                           clgpu_type_cl_name(out_values->type), clgpu_type_cl_name(values->type));
    CLGPU__RETURN_ERROR_IF(values && clgpu_array_count(keys) && clgpu_array_count(out_keys) &&
                               value_bytes(keys, values) != value_bytes(out_keys, out_values),
                           CLGPU_SHAPE_MISMATCH,
                           "%s: out_values carry %llu bytes per key, values %llu", who,
                           (unsigned long long)value_bytes(out_keys, out_values),
                           (unsigned long long)value_bytes(keys, values));
    const clgpu_array *inputs[] = {keys, values, out_values};
    static const char *const names[] = {"keys", "values", "out_values"};
    const char *hit = overlapping(out_keys, inputs, names, 3);
    if (!hit) hit = overlapping(out_values, inputs, names, 2);
    CLGPU__RETURN_ERROR_IF(hit != NULL, CLGPU_INVALID_OUTPUT,
                           "%s: the outputs may overlap the %s (the outputs are written while "
                           "the inputs are sent)",
                           who, hit);
  }
  clgpu_status status =
      mpi_sort_report(who, context, spec, out_keys, out_values, keys, values, options, reports);
  if (status == CLGPU_SUCCESS && options && options->workspace) {
    status = clgpu_workspace_check(context, options->workspace, &reports->whole);
  }
  if (status != CLGPU_SUCCESS) return status;
  if (options && options->workspace) {
    /* The local sorts check their own part of it; the staging is checked
     * here, with the whole region. */
    cl_mem buffer = NULL;
    size_t offset = 0, bytes = 0;
    clgpu_workspace_region(options->workspace, &buffer, &offset, &bytes);
    clgpu_array region;
    if (buffer &&
        clgpu_array_1d(buffer, offset, CLGPU_TYPE_UINT8, bytes, &region) == CLGPU_SUCCESS) {
      const clgpu_array *views[] = {keys, values, out_keys, out_values};
      static const char *const names[] = {"keys", "values", "out_keys", "out_values"};
      const char *hit = overlapping(&region, views, names, 4);
      CLGPU__RETURN_ERROR_IF(hit != NULL, CLGPU_WORKSPACE_ALIASES_ARGUMENT,
                             "%s: the workspace's bytes [%zu, %zu) may overlap the %s", who, offset,
                             offset + bytes, hit);
    }
  }
  size_t most = clgpu_array_count(keys) > clgpu_array_count(out_keys) ? clgpu_array_count(keys)
                                                                      : clgpu_array_count(out_keys);
  CLGPU__RETURN_ERROR_IF(most > INT_MAX, CLGPU_SIZE_OVERFLOW,
                         "%s: a rank's part holds %zu keys; MPI counts them in an int (at most "
                         "%d)",
                         who, most, INT_MAX);
  return CLGPU_SUCCESS;
}

/* ---- the local sorts ---- */

static clgpu_status local_sort(clgpu_context *context, const clgpu_sort_spec *spec,
                               const clgpu_array *keys, const clgpu_array *values,
                               const clgpu_sort_options *options, cl_uint num_events,
                               const cl_event *wait_list) {
  cl_event done = NULL;
  clgpu_status status =
      clgpu_sort(context, spec, keys, values, options, num_events, wait_list, &done);
  if (status != CLGPU_SUCCESS) return status;
  cl_int code = clWaitForEvents(1, &done);
  clReleaseEvent(done);
  if (code != CL_SUCCESS) return clgpu__fail_cl(code, "clWaitForEvents (the local sort)");
  return CLGPU_SUCCESS;
}

/* The local sort, waited for, its time counted as the device's. */
static clgpu_status sort_and_wait(clgpu_context *context, const clgpu_sort_spec *spec,
                                  const clgpu_array *keys, const clgpu_array *values,
                                  const clgpu_sort_options *options, cl_uint num_events,
                                  const cl_event *wait_list) {
  double start = clgpu__mpi_now_ms();
  clgpu_status status = local_sort(context, spec, keys, values, options, num_events, wait_list);
  clgpu__mpi_times_current()->device_ms += clgpu__mpi_now_ms() - start;
  return status;
}

/* ---- the workspace on this rank ---- */

/* The call's workspace: the caller's, or one the call makes for a run on
 * more than one rank; the local sorts' prefix of it as a workspace of their
 * own (wrapped over the same bytes); the staging buffers, mapped into host
 * memory while the data crosses ranks. */
typedef struct staging {
  clgpu_context *context;
  cl_command_queue queue; /* the context's, where clgpu_copy enqueues */
  const sort_reports *reports;
  clgpu_workspace *own;          /* made by the call */
  clgpu_workspace *sorts[2];     /* the local sorts' part: for the input, the output */
  cl_mem buffer;                 /* the whole workspace's; NULL without bytes */
  size_t offset;                 /* its region's first byte in buffer */
  clgpu_sort_options options[2]; /* the caller's, with sorts[0] and sorts[1] */
  size_t bytes[STAGED];
  cl_mem sub[STAGED]; /* each staging buffer as a sub-buffer of its own */
  void *host[STAGED]; /* where each is mapped */
} staging;

/* The offset of staging buffer `which` in the call's report. */
static size_t staged_offset(const staging *st, unsigned which) {
  const clgpu_workspace_size *report = &st->reports->whole;
  return (size_t)report->buffers[report->num_buffers - STAGED + which].offset;
}

static clgpu_status staging_open(staging *st, clgpu_context *context, const sort_reports *reports,
                                 const clgpu_sort_options *options, int ranks) {
  memset(st, 0, sizeof *st);
  st->context = context;
  st->queue = clgpu_context_queue(context);
  st->reports = reports;
  if (options) st->options[0] = st->options[1] = *options;
  const clgpu_workspace_size *report = &reports->whole;
  for (unsigned i = 0; i < STAGED; i++) {
    st->bytes[i] = (size_t)report->buffers[report->num_buffers - STAGED + i].bytes;
  }
  clgpu_workspace *whole = options ? options->workspace : NULL;
  if (!whole && ranks == 1) return CLGPU_SUCCESS; /* the local sort allocates its own */
  if (whole) {
    /* Work enqueued with it before (maybe on another queue) is done before
     * the local sorts use its bytes through their own workspace. */
    CLGPU__FORWARD_IF_ERROR(clgpu_workspace_finish(whole));
  } else {
    CLGPU__FORWARD_IF_ERROR(clgpu_workspace_create(context, report, &st->own));
    whole = st->own;
  }
  clgpu_workspace_region(whole, &st->buffer, &st->offset, NULL);
  /* Each local sort gets its own report over the same prefix, which holds
   * the larger of the two. */
  clgpu_status status = CLGPU_SUCCESS;
  for (int side = 0; side < 2 && status == CLGPU_SUCCESS; side++) {
    const clgpu_workspace_size *own_report = &reports->side[side];
    status = own_report->total_bytes && st->buffer
                 ? clgpu_workspace_wrap(context, own_report, st->buffer, st->offset,
                                        (size_t)own_report->total_bytes, &st->sorts[side])
                 : clgpu_workspace_create(context, own_report, &st->sorts[side]);
    st->options[side].workspace = st->sorts[side];
  }
  if (status != CLGPU_SUCCESS || ranks == 1) return status;
  /* The staging buffers as sub-buffers, so that mapping one leaves the
   * others free for the device (OpenCL leaves commands on a mapped memory
   * object undefined). The report's offsets are multiples of the device's
   * base address alignment, and so is the region's offset; a region in a
   * sub-buffer of the caller's is taken from its parent. */
  cl_mem root = st->buffer;
  size_t base = st->offset;
  cl_mem parent = NULL;
  if (clGetMemObjectInfo(root, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) ==
          CL_SUCCESS &&
      parent) {
    size_t origin = 0;
    clGetMemObjectInfo(root, CL_MEM_OFFSET, sizeof origin, &origin, NULL);
    root = parent;
    base += origin;
  }
  for (unsigned i = 0; i < STAGED && status == CLGPU_SUCCESS; i++) {
    if (!st->bytes[i]) continue;
    cl_buffer_region region = {base + staged_offset(st, i), st->bytes[i]};
    cl_int code = CL_SUCCESS;
    st->sub[i] =
        clCreateSubBuffer(root, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &code);
    if (code != CL_SUCCESS) {
      st->sub[i] = NULL;
      status = clgpu__fail_cl(code, "clCreateSubBuffer (the staging)");
    }
  }
  return status;
}

static void staging_close(staging *st) {
  for (unsigned i = 0; i < STAGED; i++) {
    if (st->sub[i]) clReleaseMemObject(st->sub[i]);
  }
  clgpu_workspace_destroy(st->sorts[0]);
  clgpu_workspace_destroy(st->sorts[1]);
  clgpu_workspace_destroy(st->own);
}

/* A contiguous view over staging buffer `which`, in the layout of `like`
 * (the keys, or the values of 1 or 2 dimensions). */
static clgpu_status staged_view(const staging *st, unsigned which, const clgpu_array *like,
                                clgpu_array *out) {
  return clgpu_array_nd(st->sub[which], 0, like->type, like->rank, like->shape,
                        CLGPU_ORDER_ROW_MAJOR, out);
}

/* Enqueue the mapping of staging buffers [first, end) that hold bytes: the
 * "out" ones for reading once `after` completes, the "in" ones for writing;
 * *mapped completes when all are mapped (NULL when none is). */
static clgpu_status stage_map(staging *st, unsigned first, unsigned end, cl_event after,
                              cl_event *mapped) {
  cl_event events[STAGED];
  cl_uint made = 0;
  clgpu_status status = CLGPU_SUCCESS;
  *mapped = NULL;
  for (unsigned i = first; i < end && status == CLGPU_SUCCESS; i++) {
    if (!st->sub[i]) continue;
    int out = i == KEYS_OUT || i == VALUES_OUT;
    cl_int code = CL_SUCCESS;
    st->host[i] = clEnqueueMapBuffer(
        st->queue, st->sub[i], CL_FALSE, out ? CL_MAP_READ : CL_MAP_WRITE_INVALIDATE_REGION, 0,
        st->bytes[i], out && after ? 1 : 0, out && after ? &after : NULL, &events[made], &code);
    if (code != CL_SUCCESS) {
      st->host[i] = NULL;
      status = clgpu__fail_cl(code, "clEnqueueMapBuffer (the staging)");
    } else {
      made++;
    }
  }
  if (made && status == CLGPU_SUCCESS) {
    cl_int code = clEnqueueMarkerWithWaitList(st->queue, made, events, mapped);
    if (code != CL_SUCCESS) status = clgpu__fail_cl(code, "clEnqueueMarkerWithWaitList (staging)");
  }
  if (made && status != CLGPU_SUCCESS) clWaitForEvents(made, events);
  for (cl_uint e = 0; e < made; e++) clReleaseEvent(events[e]);
  return status;
}

/* Unmap the mapped staging buffers among [first, end); *done (when not
 * NULL) completes when all are unmapped (NULL when none was mapped). Every
 * mapped one is unmapped even after a failure. */
static clgpu_status stage_unmap(staging *st, unsigned first, unsigned end, cl_event *done) {
  cl_event events[STAGED];
  cl_uint made = 0;
  clgpu_status status = CLGPU_SUCCESS;
  if (done) *done = NULL;
  for (unsigned i = first; i < end; i++) {
    if (!st->host[i]) continue;
    cl_int code =
        clEnqueueUnmapMemObject(st->queue, st->sub[i], st->host[i], 0, NULL, &events[made]);
    st->host[i] = NULL;
    if (code == CL_SUCCESS) {
      made++;
    } else if (status == CLGPU_SUCCESS) {
      status = clgpu__fail_cl(code, "clEnqueueUnmapMemObject (the staging)");
    }
  }
  if (made && done && status == CLGPU_SUCCESS) {
    cl_int code = clEnqueueMarkerWithWaitList(st->queue, made, events, done);
    if (code != CL_SUCCESS) status = clgpu__fail_cl(code, "clEnqueueMarkerWithWaitList (staging)");
  }
  if (made && (!done || status != CLGPU_SUCCESS)) clWaitForEvents(made, events);
  for (cl_uint e = 0; e < made; e++) clReleaseEvent(events[e]);
  return status;
}

/* ---- the splitters ---- */

/* The search of one step: for each of `count` rank images, how many of this
 * rank's sorted keys sort before it (upper: before or equal). */
typedef struct searcher {
  clgpu_context *context;
  const clgpu_sort_spec *spec;
  const clgpu_array *keys;
  key_order order;
  cl_command_queue queue;
  clgpu_call_options call;
  size_t count;
  uint64_t n;
  cl_mem needles, positions;
  unsigned char *packed; /* the needles' bytes, one key after the other */
  uint64_t *found;       /* the positions read back */
  int *kinds;
} searcher;

static clgpu_status searcher_open(searcher *s, clgpu_context *context, const clgpu_sort_spec *spec,
                                  const clgpu_array *keys, const clgpu_sort_options *options,
                                  size_t count) {
  memset(s, 0, sizeof *s);
  s->context = context;
  s->spec = spec;
  s->keys = keys;
  order_of(keys->type, spec && spec->descending, &s->order);
  s->queue = options && options->queue ? options->queue : clgpu_context_queue(context);
  s->call.queue = options ? options->queue : NULL;
  s->call.shape = options ? options->shape : CLGPU_SHAPE_AUTO;
  s->count = count;
  s->n = clgpu_array_count(keys);
  size_t slots = count ? count : 1;
  s->packed = calloc(slots, clgpu_type_size(keys->type));
  s->found = calloc(slots, sizeof *s->found);
  s->kinds = calloc(slots, sizeof *s->kinds);
  if (!s->packed || !s->found || !s->kinds) {
    return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "clgpu_mpi_sort: no memory for %zu splitters",
                       count);
  }
  size_t key_size = clgpu_type_size(keys->type);
  clgpu_status status =
      clgpu_buffer_create(context, CL_MEM_READ_WRITE, (count ? count : 1) * key_size, &s->needles);
  if (status == CLGPU_SUCCESS) {
    status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, (count ? count : 1) * sizeof(uint64_t),
                                 &s->positions);
  }
  return status;
}

static void searcher_close(searcher *s) {
  if (s->needles) clgpu_buffer_release(s->context, s->needles);
  if (s->positions) clgpu_buffer_release(s->context, s->positions);
  free(s->packed);
  free(s->found);
  free(s->kinds);
}

/* out[i] = this rank's count of keys before rank image rho[i] (upper: or
 * at it). */
static clgpu_status searcher_count(searcher *s, const uint64_t *rho, int upper, uint64_t *out) {
  size_t searched = 0, key_size = clgpu_type_size(s->keys->type);
  for (size_t i = 0; i < s->count; i++) {
    clgpu__value key;
    s->kinds[i] = s->n ? key_at(&s->order, rho[i], &key) : NONE_BEFORE;
    memcpy(s->packed + i * key_size, key.bytes, key_size);
    out[i] = s->kinds[i] == ALL_BEFORE ? s->n : 0;
    searched += s->kinds[i] == SEARCH;
  }
  if (!searched) return CLGPU_SUCCESS;
  /* Every needle goes to the device (the ones counted above are searched
   * too and their answers ignored): the write, the search and the read in
   * order on the device, one wait on the host. */
  clgpu_array needles = clgpu_array_of(s->needles, s->keys->type, s->count);
  clgpu_array positions = clgpu_array_of(s->positions, CLGPU_TYPE_UINT64, s->count);
  cl_event written = NULL, found = NULL;
  clgpu_status status =
      clgpu_copy_from_host(s->context, &needles, s->packed, s->count * key_size, 0, NULL, &written);
  if (status == CLGPU_SUCCESS) {
    status = upper ? clgpu_upper_bound(s->context, s->spec, &positions, &needles, s->keys, &s->call,
                                       1, &written, &found)
                   : clgpu_lower_bound(s->context, s->spec, &positions, &needles, s->keys, &s->call,
                                       1, &written, &found);
  }
  if (status == CLGPU_SUCCESS) {
    cl_int code = clEnqueueReadBuffer(s->queue, s->positions, CL_TRUE, 0,
                                      s->count * sizeof *s->found, s->found, 1, &found, NULL);
    if (code != CL_SUCCESS) status = clgpu__fail_cl(code, "clEnqueueReadBuffer (positions)");
  } else if (written) {
    clWaitForEvents(1, &written); /* the needles' bytes are read until then */
  }
  if (written) clReleaseEvent(written);
  if (found) clReleaseEvent(found);
  for (size_t i = 0; status == CLGPU_SUCCESS && i < s->count; i++) {
    if (s->kinds[i] == SEARCH) out[i] = s->found[i];
  }
  return status;
}

/* An MPI_Allreduce (SUM) of `count` counts and one failure flag: 1 when
 * every rank succeeded, 0 when one failed (its status then still to be
 * agreed on), -1 when MPI failed. */
static int sum_counts(MPI_Comm comm, uint64_t *counts, size_t count, int failed) {
  counts[count] = failed ? 1 : 0;
  if (MPI_Allreduce(MPI_IN_PLACE, counts, (int)count + 1, MPI_UINT64_T, MPI_SUM, comm) !=
      MPI_SUCCESS) {
    return -1;
  }
  return counts[count] == 0;
}

/* The split points: split[j] (j = 0..size) = how many of this rank's sorted
 * keys go to ranks below j, so that rank j receives exactly the part sizes'
 * prefix difference, equal keys kept in (rank, position) order. */
static clgpu_status find_splits(const char *who, MPI_Comm comm, int size, int rank,
                                const clgpu__mpi_record *all, searcher *s, uint64_t *split) {
  size_t m = (size_t)size - 1; /* splitters */
  uint64_t *target = calloc(m + 1, sizeof *target);
  uint64_t *rho = calloc(m + 1, sizeof *rho);
  uint64_t *candidate = calloc(m + 1, sizeof *candidate);
  uint64_t *global = calloc(m + 1, sizeof *global);
  uint64_t *before = calloc(m + 1, sizeof *before);
  uint64_t *local = calloc(m + 1, sizeof *local);
  uint64_t *upto = calloc(m + 1, sizeof *upto);
  clgpu_status status = CLGPU_SUCCESS;
  if (!target || !rho || !candidate || !global || !before || !local || !upto) {
    status = clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "%s: no memory for %zu splitters", who, m);
  }
  uint64_t prefix = 0;
  for (size_t j = 0; j < m && target; j++) {
    prefix += all[j].second.u64s[1];
    target[j] = prefix; /* elements before rank j + 1's first output */
  }
  /* Bisection, one bit a step from the top: rho[j] ends as the largest
   * rank image with at most target[j] keys before it on all ranks. Every
   * step is one MPI_Allreduce on every rank; a rank that fails raises the
   * flag in it, and then every rank stops at that same step and makes no
   * other collective call here (the caller's agreement follows). */
  int agreed = 1;
  for (unsigned bit = s->order.bits; bit-- > 0 && agreed > 0;) {
    if (status == CLGPU_SUCCESS) {
      for (size_t j = 0; j < m; j++) candidate[j] = rho[j] | ((uint64_t)1 << bit);
      status = searcher_count(s, candidate, 0, global);
    }
    agreed = sum_counts(comm, global, m, status != CLGPU_SUCCESS);
    for (size_t j = 0; agreed > 0 && j < m; j++) {
      if (global[j] <= target[j]) rho[j] = candidate[j];
    }
  }
  /* This rank's keys before each splitter image, and at it; then the
   * ranks' counts before the splitters, and the equal keys of the ranks
   * before this one (MPI_Exscan). */
  if (agreed > 0) {
    if (status == CLGPU_SUCCESS) status = searcher_count(s, rho, 0, local);
    if (status == CLGPU_SUCCESS) status = searcher_count(s, rho, 1, upto);
    if (status == CLGPU_SUCCESS) memcpy(global, local, m * sizeof *global);
    agreed = sum_counts(comm, global, m, status != CLGPU_SUCCESS);
  }
  if (agreed > 0) {
    for (size_t j = 0; j < m; j++) before[j] = upto[j] - local[j];
    before[m] = 0;
    if (MPI_Exscan(MPI_IN_PLACE, before, (int)m + 1, MPI_UINT64_T, MPI_SUM, comm) != MPI_SUCCESS) {
      agreed = -1;
    }
    if (rank == 0) memset(before, 0, (m + 1) * sizeof *before); /* undefined there */
  }
  if (agreed < 0 && status == CLGPU_SUCCESS) {
    status =
        clgpu__fail(CLGPU_MPI_ERROR, "%s: MPI_Allreduce or MPI_Exscan of the counts failed", who);
  }
  if (agreed > 0 && status == CLGPU_SUCCESS) {
    split[0] = 0;
    for (size_t j = 0; j < m; j++) {
      /* Of the keys at the splitter image, the first (target - keys before
       * it) in (rank, position) order go below rank j + 1. */
      uint64_t wanted = target[j] - global[j];
      uint64_t equal = upto[j] - local[j];
      uint64_t take = wanted > before[j] ? wanted - before[j] : 0;
      if (take > equal) take = equal;
      split[j + 1] = local[j] + take;
    }
    split[size] = s->n;
  }
  free(target);
  free(rho);
  free(candidate);
  free(global);
  free(before);
  free(local);
  free(upto);
  /* A rank that failed before the last exchange left the others with a
   * failure flag: the caller's agreement carries its status. */
  return status;
}

/* ---- the exchange ---- */

/* Send this rank's sorted elements of `unit` bytes each to the ranks by the
 * split points and receive its own, both through host memory. */
static clgpu_status exchange(const char *who, MPI_Comm comm, int size, const uint64_t *split,
                             const int *receive_counts, size_t unit, const void *send,
                             void *receive) {
  int *counts = malloc(4 * (size_t)size * sizeof *counts);
  if (!counts) return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "%s: no memory", who);
  int *send_counts = counts, *send_at = counts + size, *receive_at = counts + 2 * size;
  int received = 0;
  for (int r = 0; r < size; r++) {
    send_counts[r] = (int)(split[r + 1] - split[r]);
    send_at[r] = (int)split[r];
    receive_at[r] = received;
    received += receive_counts[r];
  }
  MPI_Datatype element;
  int code = MPI_Type_contiguous((int)unit, MPI_BYTE, &element);
  if (code == MPI_SUCCESS) code = MPI_Type_commit(&element);
  if (code == MPI_SUCCESS) {
    code = MPI_Alltoallv(send, send_counts, send_at, element, receive, receive_counts, receive_at,
                         element, comm);
    MPI_Type_free(&element);
  }
  free(counts);
  CLGPU__RETURN_ERROR_IF(code != MPI_SUCCESS, CLGPU_MPI_ERROR, "%s: MPI_Alltoallv failed (%d)", who,
                         code);
  return CLGPU_SUCCESS;
}

/* ---- the call ---- */

/* The staging's dummy for empty parts: MPI takes a pointer even for no
 * bytes. */
static unsigned char nothing_staged;

static void *staged_host(const staging *st, unsigned which) {
  return st->host[which] ? st->host[which] : &nothing_staged;
}

/* One rank alone: its sorted part copied into its outputs, waited for. */
static clgpu_status copy_out(clgpu_context *context, const clgpu_array *out_keys,
                             const clgpu_array *out_values, const clgpu_array *keys,
                             const clgpu_array *values) {
  cl_event done[2] = {NULL, NULL};
  clgpu_status status = clgpu_copy(context, out_keys, keys, 0, NULL, &done[0]);
  if (status == CLGPU_SUCCESS && values) {
    status = clgpu_copy(context, out_values, values, 0, NULL, &done[1]);
  }
  for (int e = 0; e < 2; e++) {
    if (!done[e]) continue;
    cl_int code = clWaitForEvents(1, &done[e]);
    if (code != CL_SUCCESS && status == CLGPU_SUCCESS) {
      status = clgpu__fail_cl(code, "clWaitForEvents (the copy into the outputs)");
    }
    clReleaseEvent(done[e]);
  }
  return status;
}

/* The sort of keys (and values) into out_keys (and out_values): the same
 * views for clgpu_mpi_sort, in place. */
static clgpu_status distributed_sort(const char *who, int into, clgpu_context *context,
                                     const clgpu_sort_spec *spec, const clgpu_array *out_keys,
                                     const clgpu_array *out_values, const clgpu_array *keys,
                                     const clgpu_array *values, MPI_Comm comm,
                                     const clgpu_sort_options *options) {
  clgpu_mpi_times *times = clgpu__mpi_times_current();
  double start;
  int size = 0, rank = 0;
  CLGPU__FORWARD_IF_ERROR(clgpu__mpi_where(who, comm, &size, &rank));
  clgpu__mpi_record mine;
  memset(&mine, 0, sizeof mine);
  mine.kind = 1;
  mine.type = keys ? (int32_t)keys->type : 0;
  mine.detail = spec && spec->descending ? 1 : 0;
  sort_reports reports;
  mine.status =
      check_sort(who, into, context, spec, out_keys, out_values, keys, values, options, &reports);
  /* The workspace (made here when the caller passed none), agreed on with
   * the checks: a rank that cannot allocate it fails the call everywhere
   * before anything changed. */
  staging st;
  memset(&st, 0, sizeof st);
  if (mine.status == CLGPU_SUCCESS) {
    mine.status = staging_open(&st, context, &reports, options, size);
  }
  if (mine.status == CLGPU_SUCCESS) {
    mine.count = clgpu_array_count(keys);
    mine.value.u64 = mine.count ? value_bytes(keys, values) : value_bytes(out_keys, out_values);
    mine.second.u64s[0] = values != NULL;
    mine.second.u64s[1] = clgpu_array_count(out_keys);
  }
  clgpu__mpi_record *all = NULL;
  clgpu_status status = clgpu__mpi_agree_first(who, comm, size, rank, &mine, &all, "descending");
  /* The values must agree too: all ranks or none, the same bytes per key
   * where a rank has keys. The records are the same everywhere, so every
   * rank finds the same answer. */
  uint64_t unit = 0;
  for (int r = 0; status == CLGPU_SUCCESS && r < size; r++) {
    if (all[r].second.u64 != all[0].second.u64) {
      status = clgpu__fail(CLGPU_INVALID_ARGUMENT,
                           "%s: rank %d of %d %s values, rank 0 %s (all ranks or none)", who, r,
                           size, all[r].second.u64 ? "passes" : "passes no",
                           all[0].second.u64 ? "does" : "does not");
    } else if ((all[r].count || all[r].second.u64s[1]) && unit && all[r].value.u64 != unit) {
      status =
          clgpu__fail(CLGPU_INVALID_ARGUMENT,
                      "%s: rank %d of %d carries %llu bytes of values per key, another rank "
                      "%llu",
                      who, r, size, (unsigned long long)all[r].value.u64, (unsigned long long)unit);
    } else if (all[r].count || all[r].second.u64s[1]) {
      unit = all[r].value.u64;
    }
  }
  /* The outputs hold as many elements as the inputs, in all. */
  uint64_t total_in = 0, total_out = 0;
  for (int r = 0; status == CLGPU_SUCCESS && r < size; r++) {
    total_in += all[r].count;
    total_out += all[r].second.u64s[1];
  }
  if (status == CLGPU_SUCCESS && total_in != total_out) {
    status = clgpu__fail(CLGPU_SHAPE_MISMATCH,
                         "%s: the ranks' outputs hold %llu elements in all, their inputs %llu", who,
                         (unsigned long long)total_out, (unsigned long long)total_in);
  }
  if (status != CLGPU_SUCCESS || size == 1) {
    if (status == CLGPU_SUCCESS) {
      status = sort_and_wait(context, spec, keys, values, &st.options[0], 0, NULL);
    }
    if (status == CLGPU_SUCCESS && out_keys != keys) {
      status = copy_out(context, out_keys, out_values, keys, values);
    }
    staging_close(&st);
    free(all);
    return status;
  }
  /* 1. The local sort; agreed on, so that no rank searches alone. */
  mine.status = sort_and_wait(context, spec, keys, values, &st.options[0], 0, NULL);
  status = clgpu__mpi_agree(who, comm, size, rank, &mine, all, "descending");
  /* 2. The split points. */
  searcher s;
  uint64_t *split = calloc((size_t)size + 1, sizeof *split);
  int *receive_counts = calloc((size_t)size, sizeof *receive_counts);
  if (status == CLGPU_SUCCESS) {
    mine.status = searcher_open(&s, context, spec, keys, options, (size_t)size - 1);
    if (mine.status == CLGPU_SUCCESS && (!split || !receive_counts)) {
      mine.status = clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "%s: no memory", who);
    }
    if (mine.status != CLGPU_SUCCESS) {
      /* The others' first exchange learns of it through the flag. */
      uint64_t *flag = calloc((size_t)size, sizeof *flag);
      if (flag) sum_counts(comm, flag, (size_t)size - 1, 1);
      free(flag);
    } else {
      start = clgpu__mpi_now_ms();
      mine.status = find_splits(who, comm, size, rank, all, &s, split);
      times->search_ms += clgpu__mpi_now_ms() - start;
    }
    searcher_close(&s);
    /* 3. The receive counts, with the outcome so far. */
    status = clgpu__mpi_agree(who, comm, size, rank, &mine, all, "descending");
  }
  int *send_counts = calloc((size_t)size, sizeof *send_counts);
  if (status == CLGPU_SUCCESS) {
    start = clgpu__mpi_now_ms();
    for (int r = 0; r < size; r++) send_counts[r] = (int)(split[r + 1] - split[r]);
    if (MPI_Alltoall(send_counts, 1, MPI_INT, receive_counts, 1, MPI_INT, comm) != MPI_SUCCESS) {
      status = clgpu__fail(CLGPU_MPI_ERROR, "%s: MPI_Alltoall of the counts failed", who);
    }
    uint64_t received = 0;
    for (int r = 0; r < size; r++) received += (uint64_t)receive_counts[r];
    if (status == CLGPU_SUCCESS && received != mine.second.u64s[1]) {
      /* The split points give every rank its output's count; agreed on
       * below. */
      mine.status = clgpu__fail(
          CLGPU_INTERNAL_ERROR, "%s: rank %d would receive %llu elements for its %llu", who, rank,
          (unsigned long long)received, (unsigned long long)mine.second.u64s[1]);
    }
    times->exchange_ms += clgpu__mpi_now_ms() - start;
  }
  /* 4. The data, through the workspace's staging buffers mapped into host
   * memory: the sorted part copied into them on the device, then the
   * exchange, then the received part copied back into the views and sorted
   * (the runs arrive in rank order, each in order: a stable sort keeps equal
   * keys in (rank, position) order). The keys' copy back runs on the device
   * while the values cross. */
  size_t key_size = keys ? clgpu_type_size(keys->type) : 0;
  if (status == CLGPU_SUCCESS) {
    start = clgpu__mpi_now_ms();
    cl_event copied[2] = {NULL, NULL}, mapped[2] = {NULL, NULL};
    clgpu_array view;
    if (mine.status == CLGPU_SUCCESS && st.sub[KEYS_OUT]) {
      mine.status = staged_view(&st, KEYS_OUT, keys, &view);
      if (mine.status == CLGPU_SUCCESS) {
        mine.status = clgpu_copy(context, &view, keys, 0, NULL, &copied[0]);
      }
    }
    if (mine.status == CLGPU_SUCCESS && st.sub[VALUES_OUT]) {
      mine.status = staged_view(&st, VALUES_OUT, values, &view);
      if (mine.status == CLGPU_SUCCESS) {
        mine.status = clgpu_copy(context, &view, values, 0, NULL, &copied[1]);
      }
    }
    if (mine.status == CLGPU_SUCCESS) mine.status = stage_map(&st, 0, 2, copied[0], &mapped[0]);
    if (mine.status == CLGPU_SUCCESS) mine.status = stage_map(&st, 2, 4, copied[1], &mapped[1]);
    for (int e = 0; e < 2; e++) {
      if (mapped[e]) {
        cl_int code = clWaitForEvents(1, &mapped[e]);
        if (code != CL_SUCCESS && mine.status == CLGPU_SUCCESS) {
          mine.status = clgpu__fail_cl(code, "clWaitForEvents (the staging's mapping)");
        }
        clReleaseEvent(mapped[e]);
      } else if (copied[e]) {
        clWaitForEvents(1, &copied[e]); /* a failure: nothing left running */
      }
      if (copied[e]) clReleaseEvent(copied[e]);
    }
    times->staging_ms += clgpu__mpi_now_ms() - start;
    status = clgpu__mpi_agree(who, comm, size, rank, &mine, all, "descending");
    if (status != CLGPU_SUCCESS) stage_unmap(&st, 0, STAGED, NULL);
  }
  if (status == CLGPU_SUCCESS) {
    /* From here every rank makes the same MPI calls whatever its device
     * does; a device failure is carried to the last agreement. */
    cl_event unmapped = NULL, moved[2] = {NULL, NULL};
    cl_uint num_moved = 0;
    clgpu_array view;
    start = clgpu__mpi_now_ms();
    status = exchange(who, comm, size, split, receive_counts, key_size, staged_host(&st, KEYS_OUT),
                      staged_host(&st, KEYS_IN));
    times->exchange_ms += clgpu__mpi_now_ms() - start;
    start = clgpu__mpi_now_ms();
    clgpu_status device = stage_unmap(&st, 0, 2, &unmapped);
    if (device == CLGPU_SUCCESS && status == CLGPU_SUCCESS && st.sub[KEYS_IN]) {
      device = staged_view(&st, KEYS_IN, out_keys, &view);
      if (device == CLGPU_SUCCESS) {
        device = clgpu_copy(context, out_keys, &view, unmapped ? 1 : 0, unmapped ? &unmapped : NULL,
                            &moved[num_moved]);
        if (device == CLGPU_SUCCESS) num_moved++;
      }
    }
    if (unmapped) clReleaseEvent(unmapped);
    unmapped = NULL;
    times->staging_ms += clgpu__mpi_now_ms() - start;
    if (status == CLGPU_SUCCESS && values) {
      start = clgpu__mpi_now_ms();
      status = exchange(who, comm, size, split, receive_counts, unit, staged_host(&st, VALUES_OUT),
                        staged_host(&st, VALUES_IN));
      times->exchange_ms += clgpu__mpi_now_ms() - start;
    }
    start = clgpu__mpi_now_ms();
    clgpu_status unmapping = stage_unmap(&st, 2, 4, &unmapped);
    if (device == CLGPU_SUCCESS) device = unmapping;
    if (device == CLGPU_SUCCESS && status == CLGPU_SUCCESS && st.sub[VALUES_IN]) {
      device = staged_view(&st, VALUES_IN, out_values, &view);
      if (device == CLGPU_SUCCESS) {
        device = clgpu_copy(context, out_values, &view, unmapped ? 1 : 0,
                            unmapped ? &unmapped : NULL, &moved[num_moved]);
        if (device == CLGPU_SUCCESS) num_moved++;
      }
    }
    if (unmapped) clReleaseEvent(unmapped);
    times->staging_ms += clgpu__mpi_now_ms() - start;
    if (status == CLGPU_SUCCESS) {
      /* The local sort of the received part, and a last agreement, so that
       * a device failure here too ends the call alike on every rank. (An MPI
       * failure above, under an error handler that returns, is this rank's:
       * MPI gives no way to agree without it.) */
      mine.status = device;
      if (mine.status == CLGPU_SUCCESS) {
        mine.status = sort_and_wait(context, spec, out_keys, out_values, &st.options[1], num_moved,
                                    num_moved ? moved : NULL);
      } else if (num_moved) {
        clWaitForEvents(num_moved, moved);
      }
      status = clgpu__mpi_agree(who, comm, size, rank, &mine, all, "descending");
    } else if (num_moved) {
      clWaitForEvents(num_moved, moved);
    }
    for (cl_uint e = 0; e < num_moved; e++) clReleaseEvent(moved[e]);
  }
  staging_close(&st);
  free(send_counts);
  free(receive_counts);
  free(split);
  free(all);
  return status;
}

clgpu_status clgpu_mpi_sort(clgpu_context *context, const clgpu_sort_spec *spec,
                            const clgpu_array *keys, const clgpu_array *values, MPI_Comm comm,
                            const clgpu_sort_options *options) {
  double start;
  clgpu__mpi_times_begin(&start);
  clgpu_status status = distributed_sort("clgpu_mpi_sort", 0, context, spec, keys, values, keys,
                                         values, comm, options);
  clgpu__mpi_times_end(start);
  return status;
}

clgpu_status clgpu_mpi_sort_into(clgpu_context *context, const clgpu_sort_spec *spec,
                                 const clgpu_array *out_keys, const clgpu_array *out_values,
                                 const clgpu_array *keys, const clgpu_array *values, MPI_Comm comm,
                                 const clgpu_sort_options *options) {
  double start;
  clgpu__mpi_times_begin(&start);
  const char *who = "clgpu_mpi_sort_into";
  clgpu_status status;
  status =
      distributed_sort(who, 1, context, spec, out_keys, out_values, keys, values, comm, options);
  clgpu__mpi_times_end(start);
  return status;
}

static clgpu_status sort_workspace_size(const char *who, int into, clgpu_context *context,
                                        const clgpu_sort_spec *spec, const clgpu_array *out_keys,
                                        const clgpu_array *out_values, const clgpu_array *keys,
                                        const clgpu_array *values,
                                        const clgpu_sort_options *options,
                                        clgpu_workspace_size *out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  /* The call's checks, but not of a workspace in the options. */
  clgpu_sort_options plain = {0};
  if (options) plain = *options;
  plain.workspace = NULL;
  sort_reports reports;
  CLGPU__FORWARD_IF_ERROR(
      check_sort(who, into, context, spec, out_keys, out_values, keys, values, &plain, &reports));
  *out = reports.whole;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_mpi_sort_workspace_size(clgpu_context *context, const clgpu_sort_spec *spec,
                                           const clgpu_array *keys, const clgpu_array *values,
                                           const clgpu_sort_options *options,
                                           clgpu_workspace_size *out) {
  return sort_workspace_size("clgpu_mpi_sort_workspace_size", 0, context, spec, keys, values, keys,
                             values, options, out);
}

clgpu_status clgpu_mpi_sort_into_workspace_size(clgpu_context *context, const clgpu_sort_spec *spec,
                                                const clgpu_array *out_keys,
                                                const clgpu_array *out_values,
                                                const clgpu_array *keys, const clgpu_array *values,
                                                const clgpu_sort_options *options,
                                                clgpu_workspace_size *out) {
  return sort_workspace_size("clgpu_mpi_sort_into_workspace_size", 1, context, spec, out_keys,
                             out_values, keys, values, options, out);
}
