/* Fuzz operations on histograms (histogram.h: even bins and bins by edges,
 * their workspace queries and the _upto query) and on the stable partition
 * (partition.h: the call, its query and the _upto query), compared with a
 * host model when the arguments are ones the fuzzer knows.
 *
 * Besides the contract every algorithm call is held to (harness_algo.c),
 * each call is held to its own workspace query: the query is asked first
 * with the same arguments, and when it refuses them the call must refuse
 * them too, with the same status (unless the wait list is at fault or
 * holds an event of another context, which the call checks first). A
 * call can be given a workspace of its own, made from that query's report
 * (exact, one element short, from the other shape's report, or from the
 * _upto report) by clgpu_workspace_create or wrapped over the workspace
 * buffer or over an argument's buffer; the statuses such a workspace must
 * give follow from workspace.h. The _upto
 * forms are compared with the queries of every call they claim to serve
 * (a few element and bin counts up to theirs, over views of the workspace
 * buffer, which a query never touches). */
#include <float.h>
#include <math.h>

#include "harness.h"

__extension__ typedef unsigned __int128 hist_wide;

/* The calls' and the queries' statuses (harness_algo.c's tables for the
 * partition's, which takes a text). */
static const clgpu_status hist_statuses[] = {ALGO_ARGUMENT_STATUSES, ALGO_CALL_STATUSES,
                                             CLGPU_SIZE_OVERFLOW};
static const clgpu_status hist_query_statuses[] = {ALGO_ARGUMENT_STATUSES, CLGPU_SIZE_OVERFLOW};
/* The _upto queries list exactly these (histogram.h, partition.h). */
static const clgpu_status upto_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                             CLGPU_TYPE_MISMATCH, CLGPU_UNSUPPORTED_FEATURE,
                                             CLGPU_SIZE_OVERFLOW};

/* ---- values ---- */

static int valid_shape(const clgpu_call_options *options) {
  return !options || (options->shape >= CLGPU_SHAPE_AUTO && options->shape <= CLGPU_SHAPE_TILED);
}

/* A real element as a double, half infinities and NaNs included (which
 * element_real reads as finite). */
static double real_of(const uint8_t *p, clgpu_type type) {
  if (type == CLGPU_TYPE_HALF) {
    unsigned bits = (unsigned)p[0] | (unsigned)p[1] << 8;
    if ((bits & 0x7c00) == 0x7c00) {
      if (bits & 0x3ff) return NAN;
      return bits & 0x8000 ? -INFINITY : INFINITY;
    }
  }
  return element_real(p, type);
}

/* a < b and a <= b in the type's order by value (floats by value: NaN
 * compares false, -0 equals +0). */
static int value_less(const uint8_t *a, const uint8_t *b, clgpu_type type) {
  if (is_real(type)) return real_of(a, type) < real_of(b, type);
  if (is_signed_type(type)) return element_int(a, type) < element_int(b, type);
  return (uint64_t)element_int(a, type) < (uint64_t)element_int(b, type);
}

static int value_less_equal(const uint8_t *a, const uint8_t *b, clgpu_type type) {
  if (is_real(type)) return real_of(a, type) <= real_of(b, type);
  return !value_less(b, a, type);
}

static int is_nan(const uint8_t *p, clgpu_type type) {
  if (!is_real(type)) return 0;
  double value = real_of(p, type);
  return value != value;
}

static void store_float_bits(uint8_t *p, clgpu_type type, uint64_t half, uint64_t single,
                             uint64_t wide) {
  store_bits(p, clgpu_type_size(type),
             type == CLGPU_TYPE_HALF    ? half
             : type == CLGPU_TYPE_FLOAT ? single
                                        : wide);
}

/* Special reals, none subnormal (a device may flush those): 0 +inf, 1
 * -inf, 2 NaN, 3 -0, 4 the largest finite value, 5 its negation, then a few
 * fractions and a larger integer. */
#define SPECIALS 10
static void store_special(uint8_t *p, clgpu_type type, unsigned which) {
  /* Specials 0 to 5 as half, float and double bits. */
  static const uint64_t bits[6][3] = {
      {0x7c00, 0x7f800000u, 0x7ff0000000000000ull}, {0xfc00, 0xff800000u, 0xfff0000000000000ull},
      {0x7e00, 0x7fc00000u, 0x7ff8000000000000ull}, {0x8000, 0x80000000u, 0x8000000000000000ull},
      {0x7bff, 0x7f7fffffu, 0x7fefffffffffffffull}, {0xfbff, 0xff7fffffu, 0xffefffffffffffffull},
  };
  static const double others[] = {0.5, -1.5, 2.25, 1000};
  unsigned k = which % SPECIALS;
  if (k < 6) {
    store_float_bits(p, type, bits[k][0], bits[k][1], bits[k][2]);
  } else {
    store_real(p, type, others[k - 6]);
  }
}

/* The type's lowest and highest values: integers' ends, reals' largest
 * finite values. */
static void store_extreme(uint8_t *p, clgpu_type type, int highest) {
  if (is_real(type)) {
    store_special(p, type, highest ? 4 : 5);
    return;
  }
  size_t bits = 8 * clgpu_type_size(type);
  uint64_t top = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
  uint64_t low = is_signed_type(type) ? (uint64_t)1 << (bits - 1) : 0;
  uint64_t high = is_signed_type(type) ? top >> 1 : top;
  store_bits(p, bits / 8, highest ? high : low);
}

/* The data of a made view: write_values' small values; with `data` % 4 ==
 * 1, any bits for integers and, for reals, specials among small values
 * (never subnormal values, which a device may flush when it compares). */
static void write_data(const algo_view *view, uint8_t data) {
  if (!view->made) return;
  clgpu_type type = view->view.type;
  write_values(view, data, data % 4 == 1 && !is_real(type));
  if (data % 4 != 1 || !is_real(type)) return;
  for (size_t k = 0; k < view->count; k++) {
    if ((k * 3 + data) % 4 != 0) continue;
    store_special(&algo_before[view->buffer][element_offset(&view->view, k)], type,
                  (unsigned)((k + data) % SPECIALS));
  }
}

/* ---- the buffers after a call ---- */

/* The mirrored buffers as they are now (after a call finish_algo_call
 * has waited for). */
static uint8_t read_back[ALG_COUNT][ALGO_BYTES];

static void read_buffers(void) {
  cl_command_queue queue = clgpu_context_queue(world.context);
  for (int b = 0; b < ALG_COUNT; b++) {
    if (clEnqueueReadBuffer(queue, algo.buffers[b], CL_TRUE, 0, algo.sizes[b], read_back[b], 0,
                            NULL, NULL) != CL_SUCCESS) {
      setup_failed("clEnqueueReadBuffer of an algorithm buffer", 0);
    }
  }
}

/* ---- reports ---- */

/* A report as workspace.h describes it: its parts and buffers in bounds,
 * offsets aligned, total_bytes the end of the last buffer. */
static void check_report_form(const char *text, const clgpu_workspace_size *report,
                              clgpu_operation operation) {
  if (report->num_parts == 0 || report->num_parts > CLGPU_WORKSPACE_MAX_PARTS ||
      report->num_buffers > CLGPU_WORKSPACE_MAX_BUFFERS || report->alignment < 16 ||
      (report->alignment & (report->alignment - 1))) {
    violation(text, "gave a malformed report (%u parts, %u buffers, alignment %llu)",
              report->num_parts, report->num_buffers, (unsigned long long)report->alignment);
  }
  if (report->parts[0].operation != operation) {
    violation(text, "gave a report whose first part is operation %d, not %d",
              (int)report->parts[0].operation, (int)operation);
  }
  if (report->parts[0].shape != CLGPU_SHAPE_CHUNKED &&
      report->parts[0].shape != CLGPU_SHAPE_TILED) {
    violation(text, "gave a report whose shape %d is not a resolved one",
              (int)report->parts[0].shape);
  }
  uint64_t end = 0;
  for (unsigned b = 0; b < report->num_buffers; b++) {
    const clgpu_workspace_buffer *buffer = &report->buffers[b];
    size_t size = clgpu_type_size(buffer->type);
    if (!buffer->name || buffer->part >= report->num_parts || !size ||
        buffer->offset % report->alignment ||
        (buffer->count && buffer->count > UINT64_MAX / size) ||
        buffer->bytes != buffer->count * size) {
      violation(text, "gave a report with a malformed buffer %u", b);
    }
    if (buffer->count && buffer->offset + buffer->bytes < buffer->offset) {
      violation(text, "gave a buffer whose end wraps past 2^64");
    }
    if (buffer->count && buffer->offset + buffer->bytes > end) end = buffer->offset + buffer->bytes;
  }
  if (report->total_bytes != end) {
    violation(text, "total_bytes is %llu, the buffers end at %llu",
              (unsigned long long)report->total_bytes, (unsigned long long)end);
  }
}

/* The count of a report's buffer by name (0 when it has none). */
static uint64_t report_count(const clgpu_workspace_size *report, const char *name, int *found) {
  if (found) *found = 0;
  for (unsigned b = 0; b < report->num_buffers && b < CLGPU_WORKSPACE_MAX_BUFFERS; b++) {
    if (report->buffers[b].name && strcmp(report->buffers[b].name, name) == 0) {
      if (found) *found = 1;
      return report->buffers[b].count;
    }
  }
  return 0;
}

/* Whether a workspace made from `has` passes the checks of workspace.h
 * item 3 for a call that needs `needed` (the overlap aside): the same
 * operation, parts, shape and algorithm, and each buffer at least as
 * large. */
static int report_serves(const clgpu_workspace_size *has, const clgpu_workspace_size *needed,
                         char *why, size_t why_size) {
  if (has->num_parts != needed->num_parts || has->num_buffers != needed->num_buffers) {
    snprintf(why, why_size, "%u parts and %u buffers, the call needs %u and %u", has->num_parts,
             has->num_buffers, needed->num_parts, needed->num_buffers);
    return 0;
  }
  for (unsigned p = 0; p < needed->num_parts && p < CLGPU_WORKSPACE_MAX_PARTS; p++) {
    const clgpu_workspace_part *a = &has->parts[p], *b = &needed->parts[p];
    if (a->operation != b->operation || a->shape != b->shape || a->algorithm != b->algorithm ||
        a->parent != b->parent) {
      snprintf(why, why_size, "part %u is operation %d shape %d, the call's %d shape %d", p,
               (int)a->operation, (int)a->shape, (int)b->operation, (int)b->shape);
      return 0;
    }
  }
  for (unsigned i = 0; i < needed->num_buffers && i < CLGPU_WORKSPACE_MAX_BUFFERS; i++) {
    const clgpu_workspace_buffer *a = &has->buffers[i], *b = &needed->buffers[i];
    if (!a->name || !b->name || strcmp(a->name, b->name) != 0) {
      snprintf(why, why_size, "buffer %u is \"%s\", the call's \"%s\"", i,
               a->name ? a->name : "(null)", b->name ? b->name : "(null)");
      return 0;
    }
    if (a->bytes < b->bytes) {
      snprintf(why, why_size, "buffer \"%s\" holds %llu bytes, the call needs %llu", b->name,
               (unsigned long long)a->bytes, (unsigned long long)b->bytes);
      return 0;
    }
  }
  return 1;
}

/* ---- options and workspaces ---- */

/* The options' bytes: the mode (0 NULL; 1 a shape; 2 a shape and a
 * workspace of the input's slots, take_algo_workspace; 3 a shape and a
 * workspace of the call's own), the shape (take_shape), then for mode 2
 * the slot byte, for mode 3 the report (0 the query's, 1 one element short
 * in its first buffer that has any, 2 the _upto query's for the call's
 * counts plus the extra byte, 3 the query's for the other resolved shape),
 * how it is made (0 and 1 clgpu_workspace_create, 2 wrapped over the
 * workspace buffer, 3 wrapped over mirrored buffer A, B or C), a placement
 * byte (the buffer, and the offset in alignments), the slot it takes, and
 * the extra byte. */
typedef struct option_plan {
  uint8_t mode;
  clgpu_call_options base; /* the shape, no workspace */
  clgpu_workspace *slot_workspace;
  int slot;
  uint8_t report, how, where, own_slot, extra;
} option_plan;

static void take_option_plan(byte_reader *in, option_plan *plan) {
  memset(plan, 0, sizeof *plan);
  plan->slot = -1;
  plan->mode = take_byte(in) % 4;
  if (plan->mode == 0) return;
  plan->base.shape = take_shape(in);
  if (plan->mode == 2) plan->slot_workspace = take_algo_workspace(in, &plan->slot);
  if (plan->mode == 3) {
    plan->report = take_byte(in) % 4;
    plan->how = take_byte(in) % 4;
    plan->where = take_byte(in);
    plan->own_slot = take_byte(in) % ALGO_WORKSPACES;
    plan->extra = take_byte(in);
  }
}

static const clgpu_call_options *base_options(const option_plan *plan) {
  return plan->mode ? &plan->base : NULL;
}

/* The options a query in place of the call is asked with: the plan's
 * shape, with the slot's workspace in mode 2 (in `with_slot`). */
static const clgpu_call_options *query_options(const option_plan *plan,
                                               clgpu_call_options *with_slot) {
  if (plan->mode != 2) return base_options(plan);
  *with_slot = plan->base;
  with_slot->workspace = plan->slot_workspace;
  return with_slot;
}

/* The start of a query in place of the call: its report prefilled (and
 * `before`, a copy), the wait list's word, its views described under
 * `name`; returns whether *out is NULL (a byte, one time in 8). */
static int start_query(byte_reader *in, algo_call *call, const char *name,
                       clgpu_workspace_size *report, clgpu_workspace_size *before) {
  memset(report, 0x5a, sizeof *report);
  *before = *report;
  int out_null = take_byte(in) % 8 == 7;
  snprintf(call->wait.word, sizeof call->wait.word, "none (a query)");
  describe_views(call, name);
  return out_null;
}

/* The workspace queries a call's options are made from: the query of the
 * call's arguments with given options, and the _upto query that claims to
 * serve it (with `extra` more elements and bins). */
typedef clgpu_status (*query_fn)(const void *state, const clgpu_call_options *options,
                                 clgpu_workspace_size *out);
typedef clgpu_status (*upto_fn)(const void *state, const clgpu_call_options *options,
                                uint64_t extra, clgpu_workspace_size *out);

/* What the options of a call are, and what their workspace must give. */
typedef struct options_made {
  clgpu_call_options storage;
  const clgpu_call_options *options;
  int own;        /* a workspace of the call's own */
  int over_space; /* made, or wrapped over the workspace buffer: no argument's bytes */
  int fits;       /* its report serves the call (workspace.h item 3, the overlap aside) */
  int short_by_one;
  int wrong;     /* its report does not serve the call */
  int from_upto; /* its report is the _upto query's */
  char why[160];
} options_made;

/* The options for the call, after the query of its arguments (`needed`,
 * when `queried` succeeded). A workspace of the call's own is made in the
 * main context and kept in a slot of the input's, which finish_algo_call
 * knows and the input's end destroys. */
static void make_options(const option_plan *plan, algo_call *call, query_fn query, upto_fn upto,
                         const void *state, clgpu_context *context, clgpu_status queried,
                         const clgpu_workspace_size *needed, options_made *made) {
  memset(made, 0, sizeof *made);
  made->options = base_options(plan);
  if (plan->mode == 0) return;
  made->storage = plan->base;
  made->options = &made->storage;
  if (plan->mode == 2) {
    made->storage.workspace = plan->slot_workspace;
    call->workspace_slot = plan->slot;
    clgpu_workspace_size has;
    if (plan->slot_workspace && queried == CLGPU_SUCCESS &&
        clgpu_workspace_describe(plan->slot_workspace, &has) == CLGPU_SUCCESS) {
      made->wrong = !report_serves(&has, needed, made->why, sizeof made->why);
    }
    return;
  }
  if (plan->mode != 3 || queried != CLGPU_SUCCESS || context != world.context) return;
  clgpu_workspace_size report = *needed;
  if (plan->report == 1) {
    for (unsigned b = 0; b < report.num_buffers; b++) {
      clgpu_workspace_buffer *buffer = &report.buffers[b];
      if (!buffer->count) continue;
      buffer->count -= 1;
      buffer->bytes -= clgpu_type_size(buffer->type);
      uint64_t end = 0;
      for (unsigned i = 0; i < report.num_buffers; i++) {
        const clgpu_workspace_buffer *other = &report.buffers[i];
        if (other->count && other->offset + other->bytes > end) end = other->offset + other->bytes;
      }
      report.total_bytes = end;
      made->short_by_one = 1;
      break;
    }
  } else if (plan->report == 2) {
    if (upto(state, &plan->base, plan->extra, &report) != CLGPU_SUCCESS) return;
    made->from_upto = 1;
  } else if (plan->report == 3) {
    clgpu_call_options other = plan->base;
    other.shape =
        needed->parts[0].shape == CLGPU_SHAPE_TILED ? CLGPU_SHAPE_CHUNKED : CLGPU_SHAPE_TILED;
    if (query(state, &other, &report) != CLGPU_SUCCESS) return;
  }
  made->fits = report_serves(&report, needed, made->why, sizeof made->why);
  made->wrong = !made->fits;
  clgpu_workspace *workspace = (clgpu_workspace *)STALE_DATA;
  char text[192];
  prime_last_error();
  clgpu_status status;
  if (plan->how < 2) {
    snprintf(text, sizeof text, "clgpu_workspace_create(a report of the call's, edit %u)",
             plan->report);
    status = clgpu_workspace_create(world.context, &report, &workspace);
    check_call(text, status, STATUS_SET(workspace_create_statuses, 1), 0);
    if (status == CLGPU_INVALID_ARGUMENT) {
      violation(text, "refused a report a query made (%s)", clgpu_last_error());
    }
    made->over_space = 1;
  } else {
    cl_mem target = plan->how == 2 ? algo.space : algo.buffers[plan->where % 3];
    size_t offset = (size_t)report.alignment * (plan->where / 4 % 4);
    size_t room = plan->how == 2 ? ALGO_SPACE_BYTES : ALGO_BYTES;
    size_t size = offset < room ? room - offset : 0;
    if (report.total_bytes < size && plan->how == 3) size = (size_t)report.total_bytes;
    snprintf(text, sizeof text,
             "clgpu_workspace_wrap(a report of the call's, edit %u, %s, offset %zu, size %zu)",
             plan->report, plan->how == 2 ? "the workspace buffer" : "an argument buffer", offset,
             size);
    status = clgpu_workspace_wrap(world.context, &report, target, offset, size, &workspace);
    check_call(text, status, STATUS_SET(workspace_wrap_statuses, 1), 0);
    if (status == CLGPU_SUCCESS && size < report.total_bytes) {
      violation(text, "wrapped a region smaller than the report's total");
    }
    made->over_space = plan->how == 2;
  }
  if (status != CLGPU_SUCCESS) {
    if (workspace) violation(text, "failed but left *out non-NULL");
    return;
  }
  if (!workspace || workspace == (clgpu_workspace *)STALE_DATA) violation(text, "made nothing");
  int slot = plan->own_slot;
  destroy_workspace(slot);
  cl_mem region = NULL;
  size_t region_offset = 0, region_size = 0;
  if (clgpu_workspace_region(workspace, &region, &region_offset, &region_size) != CLGPU_SUCCESS) {
    violation(text, "has no region");
  }
  algo_workspaces[slot].workspace = workspace;
  algo_workspaces[slot].context = world.context;
  algo_workspaces[slot].buffer = region;
  algo_workspaces[slot].offset = region_offset;
  algo_workspaces[slot].size = region_size;
  made->storage.workspace = workspace;
  made->own = 1;
  call->workspace_slot = slot;
}

/* Whether the call's wait list is one it takes: no fault of its own, and
 * its events (the completed event of the main context) the call's
 * context's. The call checks its wait list before its arguments. */
static int wait_clean(const algo_call *call, const clgpu_context *context) {
  return !call->wait.bad && !call->wait.hostile &&
         (call->wait.count == 0 || context == world.context);
}

/* After the call: what its workspace must have given. `checked`: the call
 * reaches its workspace check (its arguments pass, and it has work). */
static void check_options_outcome(const algo_call *call, const clgpu_context *context,
                                  const options_made *made, int checked, clgpu_status status) {
  if (!checked || !wait_clean(call, context) || !made->options || !made->options->workspace) {
    return;
  }
  if (made->wrong && status == CLGPU_SUCCESS) {
    violation(call->text, "accepted a workspace that does not serve it: %s", made->why);
  }
  if (made->own && made->short_by_one && made->over_space) {
    expect_status(call->text, status, CLGPU_WORKSPACE_TOO_SMALL,
                  "a workspace one element short of its query's report");
  }
  if (made->own && made->fits &&
      (status == CLGPU_WORKSPACE_TOO_SMALL || status == CLGPU_WORKSPACE_WRONG_OPERATION ||
       status == CLGPU_WORKSPACE_WRONG_ALGORITHM || status == CLGPU_WORKSPACE_WRONG_DEVICE ||
       (made->over_space && status == CLGPU_WORKSPACE_ALIASES_ARGUMENT))) {
    violation(call->text, "refused a workspace whose report serves it (%s)",
              clgpu_status_name(status));
  }
}

/* The call after its query: a refusal of the query is the call's (the
 * wait list aside, which the call checks before its arguments). */
static void check_agreement(const algo_call *call, const clgpu_context *context,
                            clgpu_status queried, clgpu_status status) {
  if (queried == CLGPU_SUCCESS || !wait_clean(call, context)) return;
  if (status != queried) {
    violation(call->text, "returned %s, but its workspace query refused the same arguments with %s",
              clgpu_status_name(status), clgpu_status_name(queried));
  }
}

/* A type for the _upto queries: any built-in type, opaque, or unknown. */
static clgpu_type take_any_type(byte_reader *in) {
  uint8_t choice = take_byte(in) % 16;
  if (choice <= CLGPU_TYPE_OPAQUE) return (clgpu_type)choice;
  return choice == 13 ? (clgpu_type)99 : choice == 14 ? (clgpu_type)-1 : CLGPU_TYPE_FLOAT;
}

static uint64_t take_upto_count(byte_reader *in) {
  uint8_t choice = take_byte(in) % 4;
  if (choice == 0) return take_byte(in);
  if (choice == 1) return (uint64_t)take_byte(in) * 64;
  if (choice == 2) return take_u64(in);
  return 1;
}

static int type_supported(clgpu_type type, int needs_fp16) {
  if (type == CLGPU_TYPE_DOUBLE && !algo.fp64) return 0;
  if (type == CLGPU_TYPE_HALF && needs_fp16 && !algo.fp16) return 0;
  return type >= CLGPU_TYPE_INT8 && type <= CLGPU_TYPE_DOUBLE;
}

/* ======== histograms ======== */

typedef struct hist_state {
  clgpu_context *context;
  int edges_form;
  const void *lower, *upper;
  const clgpu_array *counts, *input, *edges;
  clgpu_type type;
  uint64_t n, bins;
} hist_state;

static clgpu_status hist_query(const void *state, const clgpu_call_options *options,
                               clgpu_workspace_size *out) {
  const hist_state *s = state;
  return s->edges_form ? clgpu_histogram_edges_workspace_size(s->context, s->counts, s->input,
                                                              s->edges, options, out)
                       : clgpu_histogram_even_workspace_size(s->context, s->lower, s->upper,
                                                             s->counts, s->input, options, out);
}

static clgpu_status hist_upto(const void *state, const clgpu_call_options *options, uint64_t extra,
                              clgpu_workspace_size *out) {
  const hist_state *s = state;
  return clgpu_histogram_workspace_size_upto(world.context, s->type, s->n + extra % 16,
                                             s->bins + extra / 16, options, out);
}

/* The number of bins: mostly 1 to 16, up to 300, 0, 1, or up to 65. */
static size_t take_bins(byte_reader *in) {
  uint8_t choice = take_byte(in) % 8;
  if (choice <= 3) return 1 + take_byte(in) % 16;
  if (choice == 4) return take_byte(in) % (ALGO_MAX_N + 1);
  if (choice == 5) return 0;
  if (choice == 6) return 1;
  return 2 + take_byte(in) % 64;
}

/* A bound of the input's type into `bytes`: mode 0 to 2 a small value
 * (the next byte as an int8, wrapped for unsigned types), 3 the type's
 * lowest, 4 its highest, 5 any bits (a u64), 6 a special (reals:
 * store_special of the next byte; integers: the lowest plus or the highest
 * minus the next byte), 7 NULL. */
static const void *take_bound(byte_reader *in, clgpu_type type, uint8_t bytes[8]) {
  memset(bytes, 0, 8);
  uint8_t mode = take_byte(in) % 8;
  switch (mode) {
    case 3:
    case 4:
      store_extreme(bytes, type, mode == 4);
      break;
    case 5:
      store_bits(bytes, clgpu_type_size(type), take_u64(in));
      break;
    case 6: {
      uint8_t which = take_byte(in);
      if (is_real(type)) {
        store_special(bytes, type, which);
      } else {
        store_extreme(bytes, type, which % 2);
        uint64_t value = (uint64_t)element_int(bytes, type);
        store_bits(bytes, clgpu_type_size(type), which % 2 ? value - which / 2 : value + which / 2);
      }
      break;
    }
    case 7:
      return NULL;
    default:
      store_int(bytes, type, (uint64_t)(int64_t)(int8_t)take_byte(in));
      break;
  }
  return bytes;
}

/* 2^128 - 2^103: the smallest double that rounds to a float infinity. */
#define FLOAT_OVERFLOW 0x1.ffffffp127

/* Whether histogram.h refuses these bounds: NULL, lower above upper, for
 * reals not below it or not finite, a range or (with bins known) an
 * inverse bin width that is not finite in the type's arithmetic. */
static int bounds_refused(clgpu_type type, const uint8_t *lower, const uint8_t *upper,
                          int bins_known, uint64_t bins) {
  if (!lower || !upper) return 1;
  if (!is_real(type)) return value_less(upper, lower, type);
  double lo = real_of(lower, type), hi = real_of(upper, type);
  if (!isfinite(lo) || !isfinite(hi) || !(lo < hi)) return 1;
  double range = hi - lo;
  if (!isfinite(range)) return 1;
  if (!bins_known || bins == 0) return 0;
  double scale = (double)bins / range;
  if (!isfinite(scale)) return 1;
  return type != CLGPU_TYPE_DOUBLE && scale >= FLOAT_OVERFLOW;
}

/* The even bin of x (histogram.h's formulas), `bins` when x is in none.
 * *uncertain is set where the real formula converts a product past 2^64
 * (or an infinity) to uint64_t, which C leaves undefined: such an x is in
 * some bin, the model cannot say which. */
static uint64_t even_bin(const uint8_t *x, clgpu_type type, const uint8_t *lower,
                         const uint8_t *upper, uint64_t bins, int *uncertain) {
  *uncertain = 0;
  if (bins == 0) return 0;
  if (!is_real(type)) {
    if (value_less(x, lower, type) || value_less(upper, x, type)) return bins;
    uint64_t d = (uint64_t)element_int(x, type) - (uint64_t)element_int(lower, type);
    hist_wide values =
        (hist_wide)((uint64_t)element_int(upper, type) - (uint64_t)element_int(lower, type)) + 1;
    return (uint64_t)((hist_wide)d * bins / values);
  }
  double p;
  if (type == CLGPU_TYPE_DOUBLE) {
    double v = real_of(x, type), lo = real_of(lower, type), hi = real_of(upper, type);
    if (!(v >= lo) || !(v <= hi)) return bins;
    double scale = (double)bins / (hi - lo);
    volatile double d = v - lo;
    p = d * scale;
  } else {
    float v = (float)real_of(x, type), lo = (float)real_of(lower, type),
          hi = (float)real_of(upper, type);
    if (!(v >= lo) || !(v <= hi)) return bins;
    float scale = (float)((double)bins / ((double)hi - (double)lo));
    volatile float d = v - lo;
    volatile float product = d * scale;
    p = product;
  }
  if (!(p < 18446744073709551616.0)) {
    *uncertain = 1;
    return bins - 1;
  }
  uint64_t b = (uint64_t)p;
  return b < bins ? b : bins - 1;
}

/* The bin of x by edges (gathered, bins + 1 of them), `bins` when none. */
static uint64_t edges_bin(const uint8_t *x, clgpu_type type, const uint8_t *edges, uint64_t bins) {
  if (bins == 0) return 0;
  size_t size = clgpu_type_size(type);
  if (!value_less_equal(edges, x, type) || !value_less_equal(x, edges + bins * size, type)) {
    return bins;
  }
  for (uint64_t b = 0; b < bins; b++) {
    if (value_less_equal(edges + b * size, x, type) &&
        value_less(x, edges + (b + 1) * size, type)) {
      return b;
    }
  }
  return bins - 1; /* x equals the last edge */
}

/* Edges ascending by `<`, no NaN among them. */
static int edges_sorted(const uint8_t *edges, clgpu_type type, size_t count) {
  size_t size = clgpu_type_size(type);
  for (size_t k = 0; k < count; k++) {
    if (is_nan(edges + k * size, type)) return 0;
    if (k > 0 && value_less(edges + k * size, edges + (k - 1) * size, type)) return 0;
  }
  return 1;
}

/* Edges' values: 0 ascending small integers, 1 ascending with ties, 2 any
 * values (reals: specials and small values, no NaN) sorted, 3 small values
 * in any order. */
static void write_edges(const algo_view *edges, uint8_t data) {
  if (!edges->made || edges->count == 0) return;
  clgpu_type type = edges->view.type;
  size_t size = clgpu_type_size(type);
  static uint8_t values[ALGO_BYTES];
  uint32_t state = 0x2545f491u * (data + 7u);
  int64_t value = (int8_t)(data * 37u) / 4;
  if (!is_signed_type(type) && !is_real(type) && value < 0) value = -value;
  /* Within the type (1-byte types) and exact (half). */
  int64_t most = size > 1 ? 2000 : is_signed_type(type) ? 127 : 255;
  for (size_t k = 0; k < edges->count; k++) {
    state = state * 1103515245u + 12345u;
    uint8_t *p = values + k * size;
    switch (data % 4) {
      case 0:
      case 1:
        store_int(p, type, (uint64_t)value);
        value += (int64_t)((state >> 16) % 3) + (data % 4 == 0);
        if (value > most) value = most;
        break;
      case 2:
        if (is_real(type)) {
          if ((state >> 16) % 3 == 0) {
            store_special(p, type, (unsigned)((state >> 8) % SPECIALS));
            if (is_nan(p, type)) store_int(p, type, 7);
          } else {
            store_int(p, type, (uint64_t)(int64_t)((int)((state >> 16) % 64) - 32));
          }
        } else {
          for (size_t b = 0; b < size; b++) p[b] = (uint8_t)(state >> (8 * (b % 3) + 3) ^ (b * 71));
        }
        break;
      default:
        store_int(p, type, (uint64_t)(int64_t)((int)((state >> 16) % 24) - 8));
        break;
    }
  }
  if (data % 4 == 2) {
    /* Insertion sort by value: a few hundred at most. */
    uint8_t held[8];
    for (size_t k = 1; k < edges->count; k++) {
      memcpy(held, values + k * size, size);
      size_t j = k;
      while (j > 0 && value_less(held, values + (j - 1) * size, type)) {
        memcpy(values + j * size, values + (j - 1) * size, size);
        j--;
      }
      memcpy(values + j * size, held, size);
    }
  }
  for (size_t k = 0; k < edges->count; k++) {
    memcpy(&algo_before[edges->buffer][element_offset(&edges->view, k)], values + k * size, size);
  }
}

/* Elements on and around the bins' boundaries: every third element the
 * bound or edge `k` picks, for integers also one below or above. */
static void write_boundaries(const algo_view *input, const uint8_t *marks, size_t mark_count,
                             uint8_t data) {
  if (!input->made || mark_count == 0) return;
  clgpu_type type = input->view.type;
  size_t size = clgpu_type_size(type);
  for (size_t k = 0; k < input->count; k++) {
    if ((k + data) % 3 != 0) continue;
    uint8_t *p = &algo_before[input->buffer][element_offset(&input->view, k)];
    memcpy(p, marks + (k / 3 % mark_count) * size, size);
    if (!is_real(type) && k % 2) {
      uint64_t value = (uint64_t)element_int(p, type) + (k % 4 == 1 ? 1 : (uint64_t)-1);
      store_bits(p, size, value);
    }
  }
}

/* The even bins' boundaries: lower, upper, and each bin's first value
 * (integers: lower + ceil(b * N / B); reals: lower + b * (upper - lower) /
 * B in double, rounded to the type). */
static size_t even_marks(clgpu_type type, const uint8_t *lower, const uint8_t *upper, uint64_t bins,
                         uint8_t *marks) {
  size_t size = clgpu_type_size(type), count = 0;
  memcpy(marks + size * count++, lower, size);
  memcpy(marks + size * count++, upper, size);
  if (bins == 0 || bins > 64) return count;
  for (uint64_t b = 1; b < bins; b++) {
    uint8_t *p = marks + size * count++;
    if (is_real(type)) {
      double lo = real_of(lower, type), hi = real_of(upper, type);
      double at = lo + (double)b * ((hi - lo) / (double)bins);
      if (!isfinite(at) || (type != CLGPU_TYPE_DOUBLE && (at >= FLT_MAX || at <= -FLT_MAX))) {
        memcpy(p, lower, size);
      } else if (type == CLGPU_TYPE_HALF && (at >= 65504 || at <= -65504)) {
        memcpy(p, upper, size);
      } else {
        store_real(p, type, at);
      }
    } else {
      uint64_t lo = (uint64_t)element_int(lower, type), hi = (uint64_t)element_int(upper, type);
      hist_wide values = (hist_wide)(hi - lo) + 1;
      hist_wide first = ((hist_wide)b * values + bins - 1) / bins;
      store_bits(p, size, lo + (uint64_t)first);
    }
  }
  return count;
}

/* Queries for calls an _upto report claims to serve: element and bin
 * counts up to its own (within the workspace buffer), even bins (lower 0,
 * upper from `pick`) and edges, their views contiguous over the workspace
 * buffer (which no query touches). Each report that succeeds must be
 * served by the _upto report. */
static void hist_upto_cover(const char *text, clgpu_type type, uint64_t max_n, uint64_t max_bins,
                            const clgpu_call_options *options, const clgpu_workspace_size *upto,
                            uint8_t pick) {
  if (!type_supported(type, 0)) return;
  size_t size = clgpu_type_size(type);
  uint64_t most_n = ALGO_SPACE_BYTES / size, most_bins = ALGO_SPACE_BYTES / 8 - 1;
  uint64_t n_cap = max_n < most_n ? max_n : most_n;
  uint64_t bins_cap = max_bins < most_bins ? max_bins : most_bins;
  uint64_t pairs[6][2] = {
      {n_cap, bins_cap},
      {n_cap, bins_cap ? 1 : 0},
      {n_cap, bins_cap / 2},
      {n_cap / 2, bins_cap},
      {n_cap ? 1 : 0, bins_cap},
      {n_cap ? pick % (n_cap + 1) : 0, bins_cap ? (pick * 7u) % (bins_cap + 1) : 0}};
  for (size_t i = 0; i < COUNT_OF(pairs); i++) {
    size_t n = (size_t)pairs[i][0], bins = (size_t)pairs[i][1];
    clgpu_array input, counts, edges;
    if (clgpu_array_1d(algo.space, 0, type, n, &input) != CLGPU_SUCCESS ||
        clgpu_array_1d(algo.space, 0, CLGPU_TYPE_UINT64, bins, &counts) != CLGPU_SUCCESS ||
        clgpu_array_1d(algo.space, 0, type, bins + 1, &edges) != CLGPU_SUCCESS) {
      violation(text, "a view for its cover queries was refused (%s)", clgpu_last_error());
    }
    uint8_t lower[8] = {0}, upper[8] = {0};
    store_int(lower, type, 0);
    switch ((pick + i) % 3) {
      case 0:
        store_int(upper, type, bins ? bins - 1 : 1);
        break;
      case 1:
        store_extreme(lower, type, 0);
        store_extreme(upper, type, 1);
        break;
      default:
        store_int(upper, type, 100);
        break;
    }
    for (int edges_form = 0; edges_form < 2; edges_form++) {
      clgpu_workspace_size report;
      clgpu_status status =
          edges_form ? clgpu_histogram_edges_workspace_size(world.context, &counts, &input, &edges,
                                                            options, &report)
                     : clgpu_histogram_even_workspace_size(world.context, lower, upper, &counts,
                                                           &input, options, &report);
      if (status != CLGPU_SUCCESS) continue;
      char why[160];
      if (!report_serves(upto, &report, why, sizeof why)) {
        violation(text, "does not serve a histogram %s of %zu elements in %zu bins: %s",
                  edges_form ? "by edges" : "of even bins", n, bins, why);
      }
    }
  }
}

/* What an _upto form takes after its type and counts: the options (NULL
 * one time in four, else a shape), whether *out is NULL (one time in 16)
 * and a byte for the cover queries; and its report, prefilled. */
typedef struct upto_form {
  clgpu_call_options storage;
  const clgpu_call_options *options;
  int out_null;
  uint8_t pick;
  clgpu_workspace_size report, before;
} upto_form;

static void take_upto_form(byte_reader *in, upto_form *form) {
  form->storage = (clgpu_call_options){.shape = CLGPU_SHAPE_AUTO, .workspace = NULL};
  form->options = NULL;
  if (take_byte(in) % 4 != 0) {
    form->storage.shape = take_shape(in);
    form->options = &form->storage;
  }
  form->out_null = take_byte(in) % 16 == 15;
  form->pick = take_byte(in);
  memset(&form->report, 0x5a, sizeof form->report);
  form->before = form->report;
}

static const char *context_name(const clgpu_context *context) {
  return context == world.context ? "ctx" : context ? "other" : "NULL";
}

/* Whether an _upto query succeeded: its status documented, *out unwritten
 * by a failure, and no success for a type `type_refused` or the form's
 * faults (a NULL out or context, an unknown shape). */
static int upto_succeeded(const char *text, clgpu_status status, const clgpu_context *context,
                          const upto_form *form, int type_refused) {
  trace_status(text, status);
  check_call(text, status, STATUS_SET(upto_statuses, 0), 0);
  if (status != CLGPU_SUCCESS) {
    if (memcmp(&form->report, &form->before, sizeof form->report) != 0) {
      violation(text, "failed but wrote *out");
    }
    return 0;
  }
  if (form->out_null || !context || type_refused || !valid_shape(form->options)) {
    violation(text, "accepted arguments its header refuses");
  }
  return 1;
}

/* clgpu_histogram_workspace_size_upto (form 4 of op_algo_histogram). */
static void histogram_upto(byte_reader *in, clgpu_context *context) {
  clgpu_type type = take_any_type(in);
  uint64_t max_n = take_upto_count(in), max_bins = take_upto_count(in);
  upto_form form;
  take_upto_form(in, &form);
  char text[192];
  snprintf(text, sizeof text,
           "clgpu_histogram_workspace_size_upto(%s, type %d, max_n %llu, max_bins %llu%s)",
           context_name(context), (int)type, (unsigned long long)max_n,
           (unsigned long long)max_bins, form.out_null ? ", out NULL" : "");
  prime_last_error();
  clgpu_status status = clgpu_histogram_workspace_size_upto(
      context, type, max_n, max_bins, form.options, form.out_null ? NULL : &form.report);
  if (!upto_succeeded(text, status, context, &form, !type_supported(type, 0))) return;
  check_report_form(text, &form.report, CLGPU_OPERATION_HISTOGRAM);
  if (context == world.context) {
    hist_upto_cover(text, type, max_n, max_bins, form.options, &form.report, form.pick);
  }
}

/* The elements of the input in each bin, and the check of a call whose
 * counts the model knows only in part: the certain counts at least, the
 * total exactly (`total_known`), and no byte outside the counts (and the
 * workspace) changed. */
static void check_loose(const algo_call *call, const algo_view *counts, const uint64_t *certain,
                        uint64_t total, int total_known) {
  read_buffers();
  static uint8_t marks[ALG_COUNT][ALGO_BYTES];
  memset(marks, 0, sizeof marks);
  size_t size = clgpu_type_size(counts->view.type);
  uint64_t sum = 0;
  for (size_t b = 0; b < counts->count; b++) {
    size_t at = element_offset(&counts->view, b);
    memset(&marks[counts->buffer][at], 1, size);
    uint64_t value = (uint64_t)element_int(&read_back[counts->buffer][at], counts->view.type);
    if (value < certain[b]) {
      violation(call->text, "bin %zu holds %llu, the host counts %llu elements certainly in it", b,
                (unsigned long long)value, (unsigned long long)certain[b]);
    }
    sum += value;
  }
  if (total_known && sum != total) {
    violation(call->text, "the counts add to %llu, the host counts %llu elements in the bins",
              (unsigned long long)sum, (unsigned long long)total);
  }
  const algo_workspace *space =
      call->workspace_slot >= 0 ? &algo_workspaces[call->workspace_slot] : NULL;
  for (int b = 0; b < ALG_COUNT; b++) {
    for (size_t i = 0; i < algo.sizes[b]; i++) {
      if (marks[b][i]) continue;
      if (space && space->buffer == algo.buffers[b] && i >= space->offset &&
          i < space->offset + space->size) {
        continue;
      }
      if (read_back[b][i] != algo_model[b][i]) {
        violation(call->text, "changed byte %zu of mirrored buffer %d, outside the counts", i, b);
      }
    }
  }
}

/* clgpu_histogram_even, clgpu_histogram_edges, their queries and the
 * _upto query. Bytes: the context, the form (modulo 5: 0 even bins, 1 by
 * edges, 2 the even query, 3 the edges query, 4 the _upto query, whose
 * bytes follow below), the seed of the buffers, the input's type, n, the
 * shape choice (0 modulo 4: a 2-D input of 1 + byte % 9 rows and byte % 33
 * columns follows), the bins (take_bins), the input's view; for even bins
 * the lower and the upper bound (take_bound, in the input's type); by
 * edges the edges' mode (0 over the input's bytes, a shift byte following;
 * 1 the input's own view; 2 a view in buffer A; 7 NULL; else one in buffer
 * B) and view; the counts' type (0 and 1 uint, 2 ulong, 3 take_algo_type)
 * and mode (0 over the input's bytes, 1 over the edges', each with a shift
 * byte; 2 a view in buffer A, 3 in the write-only buffer, 4 NULL, else in
 * buffer C) and view; the input's data (write_data; 2 modulo 3 also puts
 * the bounds, the bins' first values or the edges, and integers' neighbours,
 * in every third element), by edges the edges' data (write_edges), the
 * options (take_option_plan), then a query's out choice (7: NULL) or the
 * call's wait list and event. The _upto form takes the type (take_any_type),
 * max_n and max_bins (take_upto_count), the options (0 NULL, else a shape),
 * the out choice (15: NULL) and a byte that picks the bounds and the
 * counts of the calls it is held to serve. A success over views the fuzzer
 * made is compared with the host's counts by histogram.h's formulas, every
 * other byte unchanged; with edges out of order only the bytes outside the
 * counts are. */
void op_algo_histogram(fuzz_run *run) {
  byte_reader *in = &run->in;
  const array_run *pool = &run->pool;
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t form = take_byte(in) % 5;
  if (form == 4) {
    histogram_upto(in, context);
    return;
  }
  int edges_form = form % 2 == 1, query = form >= 2;
  algo_write_buffers(take_byte(in));
  clgpu_type type = take_algo_type(in);
  size_t n = take_byte(in) % (ALGO_MAX_N + 1);
  view_wish wish = wish_1d(type, n, ALG_A);
  if (take_byte(in) % 4 == 0) {
    wish.rank = 2;
    wish.shape[0] = 1 + take_byte(in) % 9;
    wish.shape[1] = take_byte(in) % 33;
  }
  size_t bins = take_bins(in);
  algo_view input, edges, counts;
  memset(&edges, 0, sizeof edges);
  memset(&counts, 0, sizeof counts);
  take_algo_view(in, pool, wish, &input);
  if (input.made) type = input.view.type;
  uint8_t lower_bytes[8], upper_bytes[8];
  const uint8_t *lower = NULL, *upper = NULL;
  if (!edges_form) {
    lower = take_bound(in, type, lower_bytes);
    upper = take_bound(in, type, upper_bytes);
  } else {
    uint8_t mode = take_byte(in) % 8;
    if (mode == 0) {
      int shift = take_byte(in) % 5 - 2;
      if (input.made) view_over(&input, type, bins + 1, shift, &edges);
    } else if (mode == 1) {
      if (input.made) {
        edges = input;
        edges.pointer = &edges.view;
      }
    } else if (mode != 7) {
      take_algo_view(in, pool, wish_1d(type, bins + 1, mode == 2 ? ALG_A : ALG_B), &edges);
    }
  }
  uint8_t counts_choice = take_byte(in) % 4;
  clgpu_type counts_type = counts_choice == 2   ? CLGPU_TYPE_UINT64
                           : counts_choice == 3 ? take_algo_type(in)
                                                : CLGPU_TYPE_UINT32;
  uint8_t counts_mode = take_byte(in) % 8;
  if (counts_mode <= 1) {
    int shift = take_byte(in) % 5 - 2;
    const algo_view *under = counts_mode == 0 ? &input : &edges;
    if (under->made) {
      view_over(under, counts_type, bins, shift, &counts);
    } else {
      take_algo_view(in, pool, wish_1d(counts_type, bins, ALG_C), &counts);
    }
  } else if (counts_mode != 4) {
    int buffer = counts_mode == 2 ? ALG_A : counts_mode == 3 ? ALG_WRITE_ONLY : ALG_C;
    take_algo_view(in, pool, wish_1d(counts_type, bins, buffer), &counts);
  }
  int bins_known = counts.made && counts.view.rank == 1;
  if (bins_known) bins = counts.view.shape[0];

  /* The data: the input's, then the edges' (which may lie over it), then
   * the bounds or edges copied into the input. */
  uint8_t data = take_byte(in), edges_data = edges_form ? take_byte(in) : 0;
  write_data(&input, data);
  if (edges_form) write_edges(&edges, edges_data);
  static uint8_t marks[(ALGO_MAX_N + 2) * 8];
  if (data % 3 == 2 && input.made) {
    size_t mark_count = 0;
    if (!edges_form && lower && upper && bins_known) {
      mark_count = even_marks(type, lower, upper, bins, marks);
    } else if (edges_form && edges.made && edges.view.type == type &&
               edges.count <= ALGO_MAX_N + 1) {
      gather_view(&edges, marks);
      mark_count = edges.count;
    }
    write_boundaries(&input, marks, mark_count, data);
  }
  option_plan plan;
  take_option_plan(in, &plan);

  add_view(&call, &counts);
  add_view(&call, &input);
  if (edges_form) add_view(&call, &edges);

  /* What the header refuses whatever else the call gets. */
  int any_made = input.made || counts.made || edges.made;
  if (!context || !input.pointer || !counts.pointer) call.must_fail = 1;
  if (edges_form && !edges.pointer) call.must_fail = 1;
  if (!edges_form && (!lower || !upper)) call.must_fail = 1;
  int counts_fault =
      counts.made &&
      (counts.view.rank != 1 ||
       (counts.view.type != CLGPU_TYPE_UINT32 && counts.view.type != CLGPU_TYPE_UINT64) ||
       broadcast_output(&counts));
  if (counts_fault) call.must_fail = 1;
  int input_fault = input.made && (input.buffer == ALG_WRITE_ONLY || !type_supported(type, 0));
  if (input_fault) call.must_fail = 1;
  if (edges_form && edges.made &&
      (edges.view.rank != 1 || edges.buffer == ALG_WRITE_ONLY ||
       (input.made && edges.view.type != type) ||
       (bins_known && edges.view.rank == 1 && edges.view.shape[0] != bins + 1))) {
    call.must_fail = 1;
  }
  int bounds_fault = !edges_form && input.made && lower && upper &&
                     bounds_refused(type, lower, upper, bins_known, bins);
  if (bounds_fault) call.must_fail = 1;
  if (context && context != world.context && any_made) call.must_fail = 1;
  if (!valid_shape(base_options(&plan))) call.must_fail = 1;
  /* A fault of the bounds alone is CLGPU_INVALID_ARGUMENT. */
  int bounds_only = bounds_fault && context == world.context && input.made && counts.made &&
                    !counts_fault && !input_fault && valid_shape(base_options(&plan));

  hist_state state = {context,       edges_form,     lower,
                      upper,         counts.pointer, input.pointer,
                      edges.pointer, type,           input.made ? input.count : n,
                      bins};
  char name[160];
  if (edges_form) {
    snprintf(name, sizeof name, "%s",
             query ? "clgpu_histogram_edges_workspace_size" : "clgpu_histogram_edges");
  } else {
    char low[40] = "NULL", high[40] = "NULL";
    if (lower && is_real(type)) snprintf(low, sizeof low, "%g", real_of(lower, type));
    if (lower && !is_real(type))
      snprintf(low, sizeof low, "%lld", (long long)element_int(lower, type));
    if (upper && is_real(type)) snprintf(high, sizeof high, "%g", real_of(upper, type));
    if (upper && !is_real(type))
      snprintf(high, sizeof high, "%lld", (long long)element_int(upper, type));
    snprintf(name, sizeof name, "%s[lower %s, upper %s]",
             query ? "clgpu_histogram_even_workspace_size" : "clgpu_histogram_even", low, high);
  }

  if (query) {
    clgpu_workspace_size report, before;
    int out_null = start_query(in, &call, name, &report, &before);
    prime_last_error();
    clgpu_call_options with_slot;
    const clgpu_call_options *options = query_options(&plan, &with_slot);
    clgpu_status status = hist_query(&state, options, out_null ? NULL : &report);
    check_query(call.text, status, STATUS_SET(hist_query_statuses, 1), out_null, call.must_fail,
                &report, &before);
    if (bounds_only && !out_null) {
      expect_status(call.text, status, CLGPU_INVALID_ARGUMENT, "bounds histogram.h refuses");
    }
    if (status == CLGPU_SUCCESS) {
      check_report_form(call.text, &report, CLGPU_OPERATION_HISTOGRAM);
      int found = 0;
      (void)report_count(&report, "rows", &found);
      if (!found) violation(call.text, "gave a report without \"rows\"");
      if (input.made && input.count > 0 && input.view.rank > 1 &&
          !clgpu_array_is_contiguous(&input.view) &&
          report_count(&report, "packed_input", NULL) < input.count) {
        violation(call.text, "gave \"packed_input\" fewer than the %zu elements of a strided input",
                  input.count);
      }
    }
    return;
  }

  /* The call's own query first, then the options. */
  clgpu_workspace_size needed;
  char label[192];
  snprintf(label, sizeof label, "%s (its query before the call)", name);
  prime_last_error();
  clgpu_status queried = hist_query(&state, base_options(&plan), &needed);
  check_call(label, queried, STATUS_SET(hist_query_statuses, 1), 0);
  if (queried == CLGPU_SUCCESS && call.must_fail) {
    violation(label, "accepted arguments its header refuses");
  }
  if (bounds_only)
    expect_status(label, queried, CLGPU_INVALID_ARGUMENT, "bounds histogram.h refuses");
  options_made made;
  make_options(&plan, &call, hist_query, hist_upto, &state, context, queried, &needed, &made);
  /* histogram.h: the _upto report serves 1-D and contiguous inputs. */
  if (made.from_upto && !made.fits && input.made && bins_known &&
      (input.view.rank == 1 || clgpu_array_is_contiguous(&input.view))) {
    violation(label,
              "the _upto report of %zu more elements and %zu more bins does not serve "
              "it: %s",
              (size_t)(plan.extra % 16), (size_t)(plan.extra / 16), made.why);
  }

  algo_upload();
  /* The model: the fuzzer's own views, a known type, bounds histogram.h
   * takes or edges in order. */
  int loose = 0;
  static uint64_t certain[ALGO_MAX_N + 1];
  uint64_t total = 0;
  if (context != world.context || call.must_fail || !input.made || !counts.made ||
      counts.view.rank != 1 || input.buffer == ALG_WRITE_ONLY ||
      (edges_form && (!edges.made || edges.buffer == ALG_WRITE_ONLY)) ||
      counts.count > ALGO_MAX_N) {
    call.checkable = 0;
  }
  if (call.checkable) {
    static uint8_t values[ALGO_BYTES], edge_values[ALGO_BYTES];
    gather_view(&input, values);
    size_t size = clgpu_type_size(type);
    int sorted = 1;
    if (edges_form) {
      gather_view(&edges, edge_values);
      sorted = edges_sorted(edge_values, type, edges.count);
    }
    memset(certain, 0, sizeof certain);
    for (size_t k = 0; k < input.count; k++) {
      int uncertain = 0;
      uint64_t bin = edges_form ? edges_bin(values + k * size, type, edge_values, bins)
                                : even_bin(values + k * size, type, lower, upper, bins, &uncertain);
      if (bins == 0 || bin >= bins) continue;
      total++;
      if (uncertain) {
        loose = 1;
      } else {
        certain[bin]++;
      }
    }
    if (!sorted) loose = 2;
    if (loose) {
      call.checkable = 0;
    } else {
      for (size_t b = 0; b < bins; b++) {
        store_int(&algo_model[counts.buffer][element_offset(&counts.view, b)], counts.view.type,
                  certain[b]);
      }
    }
  }
  begin_algo_call(&call, in);
  describe_views(&call, name);
  cl_event *event = call.want_event ? &call.event : NULL;
  clgpu_status status =
      edges_form ? clgpu_histogram_edges(context, counts.pointer, input.pointer, edges.pointer,
                                         made.options, call.wait.count, call.wait.list, event)
                 : clgpu_histogram_even(context, lower, upper, counts.pointer, input.pointer,
                                        made.options, call.wait.count, call.wait.list, event);
  check_agreement(&call, context, queried, status);
  if (bounds_only && wait_clean(&call, context)) {
    expect_status(call.text, status, CLGPU_INVALID_ARGUMENT, "bounds histogram.h refuses");
  }
  /* A call with no bins has nothing to do and reaches no workspace. */
  check_options_outcome(&call, context, &made, queried == CLGPU_SUCCESS && bins_known && bins > 0,
                        status);
  finish_algo_call(&call, status, STATUS_SET(hist_statuses, 1));
  if (status == CLGPU_SUCCESS && loose) {
    if (loose == 2) memset(certain, 0, sizeof certain);
    check_loose(&call, &counts, certain, total, loose == 1);
  }
}

/* ======== partition ======== */

static const char *const partition_predicates[] = {"x > 3", "(i & 1) == 0", "x == 0",
                                                   "x < 2 || i > 250"};

static int predicate_holds(int fixed, int null_predicate, const uint8_t *p, clgpu_type type,
                           size_t index) {
  double x = is_real(type) ? real_of(p, type) : element_real(p, type);
  if (null_predicate) return x != 0 || x != x;
  switch (fixed) {
    case 0:
      return x > 3;
    case 1:
      return (index & 1) == 0;
    case 2:
      return x == 0;
    default:
      return x < 2 || index > 250;
  }
}

typedef struct partition_state {
  clgpu_context *context;
  const char *predicate;
  const clgpu_array *output, *count, *input;
  clgpu_type type;
  uint64_t n;
} partition_state;

static clgpu_status partition_query(const void *state, const clgpu_call_options *options,
                                    clgpu_workspace_size *out) {
  const partition_state *s = state;
  return clgpu_partition_workspace_size(s->context, s->predicate, s->output, s->count, s->input,
                                        options, out);
}

static clgpu_status partition_upto(const void *state, const clgpu_call_options *options,
                                   uint64_t extra, clgpu_workspace_size *out) {
  const partition_state *s = state;
  return clgpu_partition_workspace_size_upto(world.context, s->type, s->n + extra, options, out);
}

/* Queries for partitions an _upto report claims to serve: up to its
 * element count (within the workspace buffer), the output apart from the
 * input. */
static void partition_upto_cover(const char *text, clgpu_type type, uint64_t max_n,
                                 const clgpu_call_options *options,
                                 const clgpu_workspace_size *upto, uint8_t pick) {
  if (!type_supported(type, 1)) return;
  size_t size = clgpu_type_size(type);
  uint64_t most = (ALGO_SPACE_BYTES - 8) / (2 * size);
  uint64_t cap = max_n < most ? max_n : most;
  uint64_t counts[4] = {cap, cap / 2, cap ? 1 : 0, cap ? pick % (cap + 1) : 0};
  for (size_t i = 0; i < COUNT_OF(counts); i++) {
    size_t n = (size_t)counts[i];
    clgpu_array input, output, count;
    if (clgpu_array_1d(algo.space, 0, type, n, &input) != CLGPU_SUCCESS ||
        clgpu_array_1d(algo.space, n * size, type, n, &output) != CLGPU_SUCCESS ||
        clgpu_array_1d(algo.space, ALGO_SPACE_BYTES - 8, CLGPU_TYPE_UINT64, 1, &count) !=
            CLGPU_SUCCESS) {
      violation(text, "a view for its cover queries was refused (%s)", clgpu_last_error());
    }
    clgpu_workspace_size report;
    if (clgpu_partition_workspace_size(world.context, NULL, &output, &count, &input, options,
                                       &report) != CLGPU_SUCCESS) {
      continue;
    }
    char why[160];
    if (!report_serves(upto, &report, why, sizeof why)) {
      violation(text, "does not serve a partition of %zu elements: %s", n, why);
    }
  }
}

/* clgpu_partition_workspace_size_upto (form 2 of op_algo_partition). */
static void partition_upto_form(byte_reader *in, clgpu_context *context) {
  clgpu_type type = take_any_type(in);
  uint64_t max_n = take_upto_count(in);
  upto_form form;
  take_upto_form(in, &form);
  char text[192];
  snprintf(text, sizeof text, "clgpu_partition_workspace_size_upto(%s, type %d, max_n %llu%s)",
           context_name(context), (int)type, (unsigned long long)max_n,
           form.out_null ? ", out NULL" : "");
  prime_last_error();
  clgpu_status status = clgpu_partition_workspace_size_upto(context, type, max_n, form.options,
                                                            form.out_null ? NULL : &form.report);
  if (!upto_succeeded(text, status, context, &form, !type_supported(type, 1))) return;
  check_report_form(text, &form.report, CLGPU_OPERATION_PARTITION);
  if (context == world.context) {
    partition_upto_cover(text, type, max_n, form.options, &form.report, form.pick);
  }
}

/* clgpu_partition, its query and the _upto query. Bytes: the context, the
 * form (modulo 3: 0 the call, 1 the query, 2 the _upto query, whose bytes
 * follow below), the seed of the buffers, the type, n, the predicate
 * (take_expression over partition_predicates) and the NULL choice (3
 * modulo 4: NULL, x != 0), the input's view, the output's mode (0 the
 * input's own view, the same pointer; 1 over the input's bytes, a shift
 * byte following; 2 a view in buffer A; 3 in the write-only buffer; 4
 * NULL; else in buffer C) and view, the count's mode (0 over the input's
 * bytes, 1 over the output's, each with a shift byte; 2 a view in buffer
 * C; 3 in the write-only buffer; 4 NULL; else in buffer B) and view, the
 * input's data (write_data), the options (take_option_plan), then a
 * query's out choice (7: NULL) or the call's wait list and event. The _upto
 * form takes the type (take_any_type), max_n (take_upto_count), the
 * options (0 NULL, else a shape), the out choice (15: NULL) and a byte that
 * picks an element count of the calls it is held to serve. A success over
 * views the fuzzer made is compared with a host stable partition and its
 * count, every other byte unchanged. */
void op_algo_partition(fuzz_run *run) {
  byte_reader *in = &run->in;
  const array_run *pool = &run->pool;
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t form = take_byte(in) % 3;
  if (form == 2) {
    partition_upto_form(in, context);
    return;
  }
  int query = form == 1;
  algo_write_buffers(take_byte(in));
  clgpu_type type = take_algo_type(in);
  size_t n = take_byte(in) % (ALGO_MAX_N + 1);
  expression predicate;
  take_expression(in, partition_predicates, COUNT_OF(partition_predicates), &predicate);
  int null_predicate = take_byte(in) % 4 == 3;
  const char *text = null_predicate ? NULL : predicate.text;
  algo_view input, output_storage, count;
  memset(&output_storage, 0, sizeof output_storage);
  memset(&count, 0, sizeof count);
  take_algo_view(in, pool, wish_1d(type, n, ALG_A), &input);
  if (input.made) type = input.view.type;
  size_t length = input.made ? input.count : n;
  const algo_view *output = &output_storage;
  uint8_t output_mode = take_byte(in) % 8;
  if (output_mode == 0) {
    output = &input;
  } else if (output_mode == 1) {
    int shift = take_byte(in) % 5 - 2;
    if (input.made) {
      view_over(&input, type, length, shift, &output_storage);
    } else {
      take_algo_view(in, pool, wish_1d(type, length, ALG_A), &output_storage);
    }
  } else if (output_mode != 4) {
    int buffer = output_mode == 2 ? ALG_A : output_mode == 3 ? ALG_WRITE_ONLY : ALG_C;
    take_algo_view(in, pool, wish_1d(type, length, buffer), &output_storage);
  }
  uint8_t count_mode = take_byte(in) % 8;
  if (count_mode <= 1) {
    int shift = take_byte(in) % 5 - 2;
    const algo_view *under = count_mode == 0 ? &input : output;
    if (under->made) {
      view_over(under, CLGPU_TYPE_UINT64, 1, shift, &count);
    } else {
      take_algo_view(in, pool, wish_1d(CLGPU_TYPE_UINT64, 1, ALG_B), &count);
    }
  } else if (count_mode != 4) {
    int buffer = count_mode == 2 ? ALG_C : count_mode == 3 ? ALG_WRITE_ONLY : ALG_B;
    take_algo_view(in, pool, wish_1d(CLGPU_TYPE_UINT64, 1, buffer), &count);
  }
  write_data(&input, take_byte(in));
  option_plan plan;
  take_option_plan(in, &plan);

  add_view(&call, output);
  add_view(&call, &count);
  add_view(&call, &input);
  if (!null_predicate) add_expression(&call, &predicate);

  /* What the header refuses whatever else the call gets. */
  int any_made = input.made || output->made || count.made;
  if (!context || !input.pointer || !output->pointer || !count.pointer) call.must_fail = 1;
  if (input.made &&
      (input.view.rank != 1 || input.buffer == ALG_WRITE_ONLY || !type_supported(type, 1))) {
    call.must_fail = 1;
  }
  if (output->made && output->view.rank != 1) call.must_fail = 1;
  if (input.made && output->made &&
      (output->view.type != type || (input.view.rank == 1 && output->view.rank == 1 &&
                                     output->view.shape[0] != input.view.shape[0]))) {
    call.must_fail = 1;
  }
  if (broadcast_output(output)) call.must_fail = 1;
  if (count.made && (count.view.type != CLGPU_TYPE_UINT64 || count.count != 1 ||
                     views_overlap(&count, &input) || views_overlap(&count, output))) {
    call.must_fail = 1;
  }
  if (context && context != world.context && any_made) call.must_fail = 1;
  if (!valid_shape(base_options(&plan))) call.must_fail = 1;

  partition_state state = {context,       text, output->pointer, count.pointer,
                           input.pointer, type, length};
  if (query) {
    clgpu_workspace_size report, before;
    int out_null = start_query(in, &call, "clgpu_partition_workspace_size", &report, &before);
    clgpu_call_options with_slot;
    const clgpu_call_options *options = query_options(&plan, &with_slot);
    prime_last_error();
    clgpu_status status = partition_query(&state, options, out_null ? NULL : &report);
    check_query(call.text, status, STATUS_SET(algo_text_query_statuses, 1), out_null,
                call.must_fail, &report, &before);
    if (status == CLGPU_SUCCESS) {
      char shown[128];
      if (!null_predicate && predicate.fixed < 0) {
        /* The rules of docs/expressions.md hold for queries too. */
        const char *p = predicate.text;
        int breaks = strstr(p, "//") || strstr(p, "/*") || strchr(p, '#');
        if (breaks) violation(call.text, "accepted the predicate %s", quoted(p, shown));
      }
      check_report_form(call.text, &report, CLGPU_OPERATION_PARTITION);
      int found = 0;
      (void)report_count(&report, "counts", &found);
      if (!found) violation(call.text, "gave a report without \"counts\"");
      if (input.made && output->made && input.count > 0 && views_overlap(output, &input) &&
          report_count(&report, "staged_input", NULL) < input.count) {
        violation(call.text,
                  "gave \"staged_input\" fewer than the %zu elements of an input its "
                  "output overlaps",
                  input.count);
      }
    }
    return;
  }

  /* The call's own query first, then the options. */
  clgpu_workspace_size needed;
  prime_last_error();
  clgpu_status queried = partition_query(&state, base_options(&plan), &needed);
  check_call("clgpu_partition_workspace_size (the query before the call)", queried,
             STATUS_SET(algo_text_query_statuses, 1), 0);
  if (queried == CLGPU_SUCCESS && call.must_fail) {
    violation("clgpu_partition_workspace_size (the query before the call)",
              "accepted arguments its header refuses");
  }
  options_made made;
  make_options(&plan, &call, partition_query, partition_upto, &state, context, queried, &needed,
               &made);
  /* partition.h: the _upto report serves outputs apart from their input. */
  if (made.from_upto && !made.fits && input.made && output->made &&
      !clgpu_may_alias(output->pointer, input.pointer)) {
    violation("clgpu_partition_workspace_size_upto",
              "the report for %zu more elements does not serve a partition of %zu: %s",
              (size_t)plan.extra, input.count, made.why);
  }

  algo_upload();
  if (context != world.context || call.must_fail || !input.made || !output->made || !count.made ||
      input.buffer == ALG_WRITE_ONLY) {
    call.checkable = 0;
  }
  if (call.checkable) {
    static uint8_t values[ALGO_BYTES];
    static size_t order[ALGO_BYTES];
    gather_view(&input, values);
    size_t size = clgpu_type_size(type), selected = 0, placed = 0;
    for (size_t k = 0; k < input.count; k++) {
      if (predicate_holds(predicate.fixed, null_predicate, values + k * size, type, k)) {
        order[placed++] = k;
      }
    }
    selected = placed;
    for (size_t k = 0; k < input.count; k++) {
      if (!predicate_holds(predicate.fixed, null_predicate, values + k * size, type, k)) {
        order[placed++] = k;
      }
    }
    for (size_t k = 0; k < input.count; k++) {
      memcpy(&algo_model[output->buffer][element_offset(&output->view, k)],
             values + order[k] * size, size);
    }
    store_int(&algo_model[count.buffer][element_offset(&count.view, 0)], CLGPU_TYPE_UINT64,
              selected);
  }
  begin_algo_call(&call, in);
  describe_views(&call, output == &input ? "clgpu_partition[in place]" : "clgpu_partition");
  clgpu_status status =
      clgpu_partition(context, text, output->pointer, count.pointer, input.pointer, made.options,
                      call.wait.count, call.wait.list, call.want_event ? &call.event : NULL);
  check_agreement(&call, context, queried, status);
  check_options_outcome(&call, context, &made, queried == CLGPU_SUCCESS, status);
  finish_algo_call(&call, status, STATUS_SET(algo_text_statuses, 1));
}
