/* A fuzz operation on CLGPU_TYPE_OPAQUE (array.h): one byte per element,
 * moved and never interpreted. The other operations never make an opaque
 * view (take_type and take_algo_type draw from INT8..DOUBLE, and widening
 * them would change what the checked-in corpus means), so this one picks a
 * public function from its bytes and calls it with opaque views over the
 * mirrored buffers, every other argument valid by construction: views the
 * fuzzer made inside their buffers (outputs in other buffers than inputs,
 * except a copy's, which copy.h lets overlap), the main context, a wait list of
 * completed events, fixed expressions, known enum values. So the expected
 * result is exact:
 * - a function that computes on elements (clgpu_elementwise_create,
 *   clgpu_convert, clgpu_axpby, clgpu_compare, clgpu_iota, clgpu_reduce,
 *   clgpu_count_if, clgpu_scan, clgpu_findall, and a sort or permutation in
 *   the natural order; the calls and their size queries) returns
 *   CLGPU_TYPE_MISMATCH with a message that says "opaque", and changes
 *   nothing (finish_algo_call: no event, no byte of any buffer; a query
 *   leaves its report alone); clgpu_reduce_result_type gives 0;
 * - a function that moves elements (clgpu_copy, clgpu_fill, the four
 *   transfers, clgpu_gather, a sort or permutation with custom keys over
 *   opaque bytes, a sort of built-in keys carrying opaque values) succeeds,
 *   and every byte of the mirrored buffers, and of the host memory of a
 *   transfer, is the host model's.
 *
 * The input bytes, after the opcode: which function (WHAT_*, modulo
 * WHAT_COUNT), the seed of the buffers' pattern, the length n (views are
 * shortened to fit their buffers), then the function's own bytes in the
 * order its case reads them (a view's layout is one byte, take_layout), and
 * last, for a call that enqueues, the wait byte (begin_valid_call). */
#include "harness.h"

enum {
  WHAT_ELEMENTWISE_CREATE,
  WHAT_CONVERT,
  WHAT_AXPBY,
  WHAT_COMPARE,
  WHAT_IOTA,
  WHAT_REDUCE,
  WHAT_COUNT_IF,
  WHAT_SCAN,
  WHAT_FINDALL,
  WHAT_NATURAL_SORT,
  WHAT_COPY,
  WHAT_FILL,
  WHAT_TRANSFER,
  WHAT_GATHER,
  WHAT_CUSTOM_SORT,
  WHAT_VALUES_SORT,
  WHAT_COUNT
};

/* ---- views the fuzzer makes, valid by construction ---- */

typedef struct layout {
  ptrdiff_t step;
  size_t start; /* in units of the element size, or of `align` bytes when larger */
  size_t align;
} layout;

enum { ANY_STEP, NO_BROADCAST, CONTIGUOUS };

/* One byte: the low 3 bits the step (1, 2, -1, 3, 1, -2, 0 or 1 elements;
 * 0 becomes 1 for a view the call writes, and every step 1 for CONTIGUOUS),
 * the next 4 bits where the view starts. */
static layout take_layout(byte_reader *in, int rules, size_t align) {
  static const ptrdiff_t steps[] = {1, 2, -1, 3, 1, -2, 0, 1};
  uint8_t byte = take_byte(in);
  layout l = {steps[byte % 8], (size_t)(byte >> 3) % 16, align ? align : 1};
  if (rules == CONTIGUOUS || (rules == NO_BROADCAST && l.step == 0)) l.step = 1;
  return l;
}

static size_t first_byte(const layout *l, clgpu_type type) {
  size_t size = clgpu_type_size(type);
  return l->start * (size > l->align ? size : l->align);
}

/* The most elements of `type` the layout holds in a mirrored buffer. */
static size_t room(const layout *l, clgpu_type type, int buffer) {
  size_t size = clgpu_type_size(type), first = first_byte(l, type);
  size_t span = (size_t)(l->step < 0 ? -l->step : l->step) * size;
  if (first + size > algo.sizes[buffer]) return 0;
  return span == 0 ? SIZE_MAX : (algo.sizes[buffer] - first - size) / span + 1;
}

static size_t smaller(size_t a, size_t b) { return a < b ? a : b; }

/* A 1-D view of n elements (n at most the room) over a mirrored buffer. */
static void make_view(const layout *l, clgpu_type type, size_t n, int buffer, algo_view *out) {
  size_t size = clgpu_type_size(type);
  size_t offset = first_byte(l, type);
  if (n > room(l, type, buffer)) violation("make_view", "%zu elements do not fit", n);
  if (l->step < 0 && n > 0) offset += (n - 1) * (size_t)(-l->step) * size;
  size_t shape[1] = {n};
  ptrdiff_t strides[1] = {l->step};
  make_algo_view(buffer, offset, type, 1, shape, strides, out);
}

static uint8_t *before_at(const algo_view *view, size_t k) {
  return &algo_before[view->buffer][element_offset(&view->view, k)];
}

static uint8_t *model_at(const algo_view *view, size_t k) {
  return &algo_model[view->buffer][element_offset(&view->view, k)];
}

/* The elements of a view, in index order, as they were before the call,
 * and elements written back into the model. */
static void gather_before(const algo_view *view, uint8_t *out) {
  size_t size = clgpu_type_size(view->view.type);
  for (size_t k = 0; k < view->count; k++) memcpy(out + k * size, before_at(view, k), size);
}

static void scatter_model(const algo_view *view, const uint8_t *in) {
  size_t size = clgpu_type_size(view->view.type);
  for (size_t k = 0; k < view->count; k++) memcpy(model_at(view, k), in + k * size, size);
}

/* ---- calls and their endings ---- */

/* The wait byte: 0, 1 or 2 completed events in the wait list (b % 3), an
 * event asked for or not ((b / 3) % 2). */
static void begin_valid_call(algo_call *call, byte_reader *in) {
  uint8_t byte = take_byte(in);
  memset(&call->wait, 0, sizeof call->wait);
  call->wait.events[0] = call->wait.events[1] = arrays.done;
  call->wait.count = byte % 3;
  call->wait.list = call->wait.count ? call->wait.events : NULL;
  snprintf(call->wait.word, sizeof call->wait.word, "%u completed events", call->wait.count);
  call->want_event = (byte / 3) % 2;
  call->event = STALE_EVENT;
  call->stats = current_stats();
  prime_last_error();
}

static void begin_query(algo_call *call) {
  snprintf(call->wait.word, sizeof call->wait.word, "none (a size query)");
  call->stats = current_stats();
  prime_last_error();
}

static cl_event *event_of(algo_call *call) { return call->want_event ? &call->event : NULL; }

/* A refusal of opaque bytes: CLGPU_TYPE_MISMATCH, and a message that says
 * why. */
static void expect_refusal(const char *call, clgpu_status status) {
  expect_status(call, status, CLGPU_TYPE_MISMATCH,
                "an opaque argument is the only thing wrong with the call");
  if (!strstr(clgpu_last_error(), "opaque")) {
    violation(call, "refused opaque bytes with a message that does not say they are opaque");
  }
}

/* The refused call changed nothing: no event, no byte anywhere. */
static void finish_refused(algo_call *call, clgpu_status status) {
  expect_refusal(call->text, status);
  finish_algo_call(call, status, STATUS_SET(algo_statuses, 1));
}

static void finish_query(algo_call *call, clgpu_status status, const clgpu_workspace_size *report) {
  clgpu_workspace_size untouched;
  memset(&untouched, 0x5a, sizeof untouched);
  trace_status(call->text, status);
  expect_refusal(call->text, status);
  check_call(call->text, status, STATUS_SET(algo_statuses, 1), 0);
  if (memcmp(report, &untouched, sizeof untouched) != 0) {
    violation(call->text, "failed but wrote the report");
  }
}

/* The moving call succeeded and the buffers are the model's. */
static void finish_moved(algo_call *call, clgpu_status status) {
  expect_status(call->text, status, CLGPU_SUCCESS, "valid views of opaque bytes");
  finish_algo_call(call, status, STATUS_SET(algo_statuses, 1));
}

/* NULL, or options with a known shape (and no workspace). */
static const clgpu_call_options *take_options(byte_reader *in, clgpu_call_options *storage) {
  memset(storage, 0, sizeof *storage); /* the queue and reserved fields too */
  uint8_t byte = take_byte(in);
  storage->shape = (clgpu_shape)(byte / 2 % 3);
  storage->workspace = NULL;
  return byte % 2 ? storage : NULL;
}

/* NULL, or sort options with a known shape and an algorithm of `choices`. */
static const clgpu_sort_options *take_sort_options(byte_reader *in, clgpu_sort_options *storage,
                                                   const clgpu_algorithm *choices, size_t count) {
  memset(storage, 0, sizeof *storage); /* the queue and reserved fields too */
  uint8_t byte = take_byte(in);
  storage->algorithm = choices[byte / 2 % count];
  storage->shape = (clgpu_shape)(byte / 8 % 3);
  storage->workspace = NULL;
  return byte % 2 ? storage : NULL;
}

/* ---- functions that compute on elements: refused ---- */

/* clgpu_elementwise_create's statuses: those elementwise.h lists, and
 * CLGPU_TYPE_MISMATCH, which array.h gives it for an opaque argument. */
static const clgpu_status create_statuses[] = {
    CLGPU_SUCCESS,       CLGPU_INVALID_ARGUMENT,    CLGPU_EXPRESSION_TOO_LONG,
    CLGPU_TYPE_MISMATCH, CLGPU_UNSUPPORTED_FEATURE, CLGPU_CL_OUT_OF_HOST_MEMORY};

/* Bytes: the arguments (1 + b % 3 of y, x, a; y an INOUT when (b / 3) % 2),
 * which one is opaque, the others' types (2 bits each). */
static void opaque_elementwise_create(byte_reader *in) {
  static const clgpu_type others[] = {CLGPU_TYPE_INT32, CLGPU_TYPE_FLOAT, CLGPU_TYPE_UINT8,
                                      CLGPU_TYPE_INT64};
  static const char *const operations[] = {"y = 1", "y = x", "y = a * x"};
  uint8_t shape = take_byte(in);
  size_t num_args = 1 + shape % 3;
  clgpu_elementwise_arg args[3] = {
      {"y", shape / 3 % 2 ? CLGPU_ARG_INOUT : CLGPU_ARG_OUT, CLGPU_TYPE_INT32},
      {"x", CLGPU_ARG_IN, CLGPU_TYPE_INT32},
      {"a", CLGPU_ARG_SCALAR, CLGPU_TYPE_INT32}};
  size_t opaque = take_byte(in) % num_args;
  uint8_t types = take_byte(in);
  for (size_t a = 0; a < num_args; a++) {
    args[a].type = a == opaque ? CLGPU_TYPE_OPAQUE : others[(types >> (2 * a)) % 4];
  }
  char call[192];
  snprintf(call, sizeof call, "clgpu_elementwise_create(ctx, \"%s\", %zu args, \"%s\" opaque)",
           operations[num_args - 1], num_args, args[opaque].name);
  clgpu_elementwise *kernel = (clgpu_elementwise *)STALE_DATA;
  prime_last_error();
  clgpu_status status = clgpu_elementwise_create(world.context, operations[num_args - 1], num_args,
                                                 args, NULL, &kernel);
  trace_status(call, status);
  expect_refusal(call, status);
  check_call(call, status, STATUS_SET(create_statuses, 0), 0);
  if (kernel) violation(call, "failed but left *out non-NULL");
}

/* convert, axpby, compare, iota. Bytes: the form (convert: both opaque,
 * the destination of another type, or the source; axpby and compare: y the
 * same view as x when odd), two scalar bytes (alpha and beta, start and
 * step), the comparison (1 + b % 6), convert's other type, the layouts of
 * out (in C), x (in A) and y (in B), the wait byte. */
static void opaque_builtin(byte_reader *in, int what, size_t n) {
  algo_call call;
  algo_call_init(&call);
  uint8_t form = take_byte(in);
  uint8_t alpha[8], beta[8];
  memset(alpha, take_byte(in), sizeof alpha);
  memset(beta, take_byte(in), sizeof beta);
  clgpu_comparison comparison = (clgpu_comparison)(1 + take_byte(in) % 6);
  clgpu_type out_type = CLGPU_TYPE_OPAQUE, x_type = CLGPU_TYPE_OPAQUE;
  if (what == WHAT_CONVERT) {
    clgpu_type other = take_algo_type(in);
    if (form % 3 == 1) out_type = other;
    if (form % 3 == 2) x_type = other;
  }
  if (what == WHAT_COMPARE) out_type = CLGPU_TYPE_UINT8;
  layout lo = take_layout(in, NO_BROADCAST, 1), lx = take_layout(in, ANY_STEP, 1),
         ly = take_layout(in, ANY_STEP, 1);
  int inputs = what == WHAT_IOTA ? 0 : what == WHAT_CONVERT ? 1 : 2;
  n = smaller(n, room(&lo, out_type, ALG_C));
  if (inputs >= 1) n = smaller(n, room(&lx, x_type, ALG_A));
  if (inputs >= 2) n = smaller(n, room(&ly, x_type, ALG_B));
  algo_view out, x, y;
  memset(&x, 0, sizeof x);
  memset(&y, 0, sizeof y);
  make_view(&lo, out_type, n, ALG_C, &out);
  add_view(&call, &out);
  if (inputs >= 1) {
    make_view(&lx, x_type, n, ALG_A, &x);
    add_view(&call, &x);
  }
  if (inputs >= 2) {
    make_view(&ly, x_type, n, ALG_B, &y);
    if (form % 2) y = x;
    add_view(&call, &y);
  }
  algo_upload();
  begin_valid_call(&call, in);
  static const char *const names[] = {"", "clgpu_convert", "clgpu_axpby", "clgpu_compare",
                                      "clgpu_iota"};
  char name[64];
  snprintf(name, sizeof name, "%s[opaque]", names[what]);
  describe_views(&call, name);
  clgpu_status status;
  if (what == WHAT_CONVERT) {
    status = clgpu_convert(world.context, out.pointer, x.pointer, call.wait.count, call.wait.list,
                           event_of(&call));
  } else if (what == WHAT_AXPBY) {
    status = clgpu_axpby(world.context, out.pointer, alpha, x.pointer, beta, y.pointer,
                         call.wait.count, call.wait.list, event_of(&call));
  } else if (what == WHAT_COMPARE) {
    status = clgpu_compare(world.context, comparison, out.pointer, x.pointer, y.pointer,
                           call.wait.count, call.wait.list, event_of(&call));
  } else {
    status = clgpu_iota(world.context, out.pointer, alpha, beta, call.wait.count, call.wait.list,
                        event_of(&call));
  }
  finish_refused(&call, status);
}

/* reduce, count_if, scan, findall over an opaque input (in A). Bytes: the
 * kind (reduce 1 + b % 10, scan 1 + b % 4 and exclusive when (b / 4) % 2),
 * flags (1: the size query; 2: the predicate "x > 3", else NULL; 4: along
 * axis 0, else all axes; 8: scan in place, findall's indices 64-bit), the
 * options byte, three layouts (the input; the output: reduce's and
 * count_if's one element in C, scan's n opaque elements in C, findall's n
 * indices in B; findall's count in C, a byte the others skip), the wait
 * byte unless a query. */
static void opaque_reduction(byte_reader *in, int what, size_t n) {
  algo_call call;
  algo_call_init(&call);
  uint8_t kind = take_byte(in), flags = take_byte(in);
  clgpu_call_options storage;
  const clgpu_call_options *options = take_options(in, &storage);
  int query = flags & 1, axis = flags & 4 ? 0 : CLGPU_ALL_AXES;
  const char *predicate = flags & 2 ? "x > 3" : NULL;
  int in_place = what == WHAT_SCAN && (flags & 8);
  clgpu_reduce_op reduce;
  memset(&reduce, 0, sizeof reduce);
  reduce.kind = (clgpu_reduce_kind)(1 + kind % 10);
  if (reduce.kind == CLGPU_REDUCE_CUSTOM) {
    reduce.result_type = CLGPU_TYPE_UINT64;
    reduce.reduce = "a + b";
    reduce.neutral = "0";
  }
  clgpu_scan_op scan;
  memset(&scan, 0, sizeof scan);
  scan.kind = (clgpu_scan_kind)(1 + kind % 4);
  scan.exclusive = kind / 4 % 2;
  if (scan.kind == CLGPU_SCAN_CUSTOM) {
    scan.combine = "a + b";
    scan.neutral = "0";
  }
  /* The output a uchar input would have. */
  clgpu_type output_type = what == WHAT_REDUCE ? clgpu_reduce_result_type(&reduce, CLGPU_TYPE_UINT8)
                           : what == WHAT_SCAN ? CLGPU_TYPE_OPAQUE
                                               : CLGPU_TYPE_UINT64;
  clgpu_type indices_type = flags & 8 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32;
  if (what == WHAT_REDUCE) {
    if (!output_type) violation("clgpu_reduce_result_type", "no result type for uchar");
    if (clgpu_reduce_result_type(&reduce, CLGPU_TYPE_OPAQUE) != 0) {
      violation("clgpu_reduce_result_type", "gave a result type for opaque bytes (kind %d)",
                (int)reduce.kind);
    }
  }
  layout li = take_layout(in, in_place ? NO_BROADCAST : ANY_STEP, 1);
  layout lo = take_layout(in, NO_BROADCAST, 1), lc = take_layout(in, NO_BROADCAST, 1);
  n = smaller(n, room(&li, CLGPU_TYPE_OPAQUE, ALG_A));
  if (what == WHAT_SCAN && !in_place) n = smaller(n, room(&lo, output_type, ALG_C));
  if (what == WHAT_FINDALL) n = smaller(n, room(&lo, indices_type, ALG_B));
  algo_view input, output, count;
  memset(&count, 0, sizeof count);
  make_view(&li, CLGPU_TYPE_OPAQUE, n, ALG_A, &input);
  if (what == WHAT_FINDALL) {
    make_view(&lo, indices_type, n, ALG_B, &output);
    make_view(&lc, CLGPU_TYPE_UINT64, 1, ALG_C, &count);
  } else if (in_place) {
    output = input;
  } else {
    make_view(&lo, output_type, what == WHAT_SCAN ? n : 1, ALG_C, &output);
  }
  add_view(&call, &output);
  if (what == WHAT_FINDALL) add_view(&call, &count);
  add_view(&call, &input);
  algo_upload();
  static const char *const names[] = {"clgpu_reduce", "clgpu_count_if", "clgpu_scan",
                                      "clgpu_findall"};
  static const char *const query_names[] = {
      "clgpu_reduce_workspace_size", "clgpu_count_if_workspace_size", "clgpu_scan_workspace_size",
      "clgpu_findall_workspace_size"};
  char name[96];
  /* One array indexed at a time: UBSan's object-size check (GCC) misjudges
   * an index into `query ? query_names : names`. */
  const char *entry = query ? query_names[what - WHAT_REDUCE] : names[what - WHAT_REDUCE];
  snprintf(name, sizeof name, "%s[opaque, axis %d]", entry, axis);
  if (query) {
    clgpu_workspace_size report;
    memset(&report, 0x5a, sizeof report);
    begin_query(&call);
    describe_views(&call, name);
    clgpu_status status;
    if (what == WHAT_REDUCE) {
      status = clgpu_reduce_workspace_size(world.context, &reduce, axis, output.pointer,
                                           input.pointer, options, &report);
    } else if (what == WHAT_COUNT_IF) {
      status = clgpu_count_if_workspace_size(world.context, predicate, output.pointer,
                                             input.pointer, options, &report);
    } else if (what == WHAT_SCAN) {
      status = clgpu_scan_workspace_size(world.context, &scan, axis, output.pointer, input.pointer,
                                         options, &report);
    } else {
      status = clgpu_findall_workspace_size(world.context, predicate, output.pointer, count.pointer,
                                            input.pointer, options, &report);
    }
    finish_query(&call, status, &report);
    return;
  }
  begin_valid_call(&call, in);
  describe_views(&call, name);
  clgpu_status status;
  if (what == WHAT_REDUCE) {
    status = clgpu_reduce(world.context, &reduce, axis, output.pointer, input.pointer, options,
                          call.wait.count, call.wait.list, event_of(&call));
  } else if (what == WHAT_COUNT_IF) {
    status = clgpu_count_if(world.context, predicate, output.pointer, input.pointer, options,
                            call.wait.count, call.wait.list, event_of(&call));
  } else if (what == WHAT_SCAN) {
    status = clgpu_scan(world.context, &scan, axis, output.pointer, input.pointer, options,
                        call.wait.count, call.wait.list, event_of(&call));
  } else {
    status = clgpu_findall(world.context, predicate, output.pointer, count.pointer, input.pointer,
                           options, call.wait.count, call.wait.list, event_of(&call));
  }
  finish_refused(&call, status);
}

/* A sort or permutation of opaque keys (in A) in the natural order. Bytes:
 * the spec (NULL, zeroed, or descending), the options byte (AUTO, RADIX or
 * MERGE), the second view (none, uint values, or a uint or ulong
 * permutation, in B), flags (1: the size query), the layouts of the keys and
 * the second view, the wait byte. */
static void opaque_natural_sort(byte_reader *in, size_t n) {
  static const clgpu_algorithm algorithms[] = {CLGPU_ALGORITHM_AUTO, CLGPU_ALGORITHM_RADIX,
                                               CLGPU_ALGORITHM_MERGE};
  algo_call call;
  algo_call_init(&call);
  clgpu_sort_spec spec;
  memset(&spec, 0, sizeof spec);
  uint8_t spec_mode = take_byte(in) % 3;
  spec.descending = spec_mode == 2;
  const clgpu_sort_spec *spec_pointer = spec_mode ? &spec : NULL;
  clgpu_sort_options storage;
  const clgpu_sort_options *options = take_sort_options(in, &storage, algorithms, 3);
  uint8_t second = take_byte(in) % 4;
  int query = take_byte(in) % 2;
  int permutation = second >= 2;
  clgpu_type second_type = second == 3 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32;
  layout lk = take_layout(in, NO_BROADCAST, 1), lv = take_layout(in, NO_BROADCAST, 1);
  n = smaller(n, room(&lk, CLGPU_TYPE_OPAQUE, ALG_A));
  if (second) n = smaller(n, room(&lv, second_type, ALG_B));
  algo_view keys, values;
  make_view(&lk, CLGPU_TYPE_OPAQUE, n, ALG_A, &keys);
  add_view(&call, &keys);
  memset(&values, 0, sizeof values);
  if (second) {
    make_view(&lv, second_type, n, ALG_B, &values);
    add_view(&call, &values);
  }
  algo_upload();
  char name[96];
  snprintf(name, sizeof name, "%s%s[opaque, natural order%s]",
           permutation ? "clgpu_sort_permutation" : "clgpu_sort", query ? "_workspace_size" : "",
           spec.descending ? ", descending" : "");
  if (query) {
    clgpu_workspace_size report;
    memset(&report, 0x5a, sizeof report);
    begin_query(&call);
    describe_views(&call, name);
    clgpu_status status =
        permutation
            ? clgpu_sort_permutation_workspace_size(world.context, spec_pointer, values.pointer,
                                                    keys.pointer, options, &report)
            : clgpu_sort_workspace_size(world.context, spec_pointer, keys.pointer, values.pointer,
                                        options, &report);
    finish_query(&call, status, &report);
    return;
  }
  begin_valid_call(&call, in);
  describe_views(&call, name);
  clgpu_status status =
      permutation
          ? clgpu_sort_permutation(world.context, spec_pointer, values.pointer, keys.pointer,
                                   options, call.wait.count, call.wait.list, event_of(&call))
          : clgpu_sort(world.context, spec_pointer, keys.pointer, values.pointer, options,
                       call.wait.count, call.wait.list, event_of(&call));
  finish_refused(&call, status);
}

/* ---- functions that move elements: exact ---- */

/* copy and fill. Bytes: the source's buffer (A, B or C: it may be the
 * destination's, and overlap it) or fill's value, the layouts of the
 * destination (in C) and of the source, the wait byte. */
static void opaque_copy_fill(byte_reader *in, int what, size_t n) {
  algo_call call;
  algo_call_init(&call);
  uint8_t value = take_byte(in);
  int source_buffer = value % 3;
  layout ld = take_layout(in, NO_BROADCAST, 1), ls = take_layout(in, ANY_STEP, 1);
  n = smaller(n, room(&ld, CLGPU_TYPE_OPAQUE, ALG_C));
  if (what == WHAT_COPY) n = smaller(n, room(&ls, CLGPU_TYPE_OPAQUE, source_buffer));
  algo_view destination, source;
  make_view(&ld, CLGPU_TYPE_OPAQUE, n, ALG_C, &destination);
  add_view(&call, &destination);
  if (what == WHAT_COPY) {
    make_view(&ls, CLGPU_TYPE_OPAQUE, n, source_buffer, &source);
    add_view(&call, &source);
  }
  algo_upload();
  /* The copy reads every source byte before it writes any (copy.h). */
  static uint8_t moved[ALGO_BYTES];
  if (what == WHAT_COPY) {
    gather_before(&source, moved);
  } else {
    memset(moved, value, n);
  }
  scatter_model(&destination, moved);
  begin_valid_call(&call, in);
  describe_views(&call, what == WHAT_COPY ? "clgpu_copy[opaque]" : "clgpu_fill[opaque]");
  clgpu_status status = what == WHAT_COPY
                            ? clgpu_copy(world.context, destination.pointer, source.pointer,
                                         call.wait.count, call.wait.list, event_of(&call))
                            : clgpu_fill(world.context, destination.pointer, &value,
                                         call.wait.count, call.wait.list, event_of(&call));
  finish_moved(&call, status);
}

/* The four transfers. Bytes: the form (copy_to_host, copy_from_host,
 * array_read, array_write), the view's buffer (A, B or C), spare host
 * bytes (b % 3), the view's layout (broadcast only when read), the wait
 * byte. The host block has guard bytes on both sides. */
static void opaque_transfer(byte_reader *in, size_t n) {
  algo_call call;
  algo_call_init(&call);
  uint8_t form = take_byte(in) % 4;
  int write = form % 2, blocking = form >= 2;
  int buffer = take_byte(in) % 3;
  size_t spare = take_byte(in) % 3;
  layout l = take_layout(in, write ? NO_BROADCAST : ANY_STEP, 1);
  n = smaller(n, room(&l, CLGPU_TYPE_OPAQUE, buffer));
  algo_view view;
  make_view(&l, CLGPU_TYPE_OPAQUE, n, buffer, &view);
  add_view(&call, &view);
  enum { GUARD_BYTES = 32 };
  static uint8_t host[ALGO_BYTES + 2 * GUARD_BYTES], host_expected[ALGO_BYTES + 2 * GUARD_BYTES];
  for (size_t i = 0; i < sizeof host; i++) host[i] = (uint8_t)(i * 29u + 3u + n);
  memcpy(host_expected, host, sizeof host);
  algo_upload();
  if (write) {
    scatter_model(&view, host + GUARD_BYTES);
  } else {
    gather_before(&view, host_expected + GUARD_BYTES);
  }
  begin_valid_call(&call, in);
  /* The waiting pair takes no event; the enqueueing pair is waited for
   * through its event, as the host memory must outlive the transfer. */
  call.want_event = !blocking;
  static const char *const names[] = {"clgpu_copy_to_host[opaque]", "clgpu_copy_from_host[opaque]",
                                      "clgpu_array_read[opaque]", "clgpu_array_write[opaque]"};
  describe_views(&call, names[form]);
  uint8_t *at = host + GUARD_BYTES;
  size_t host_size = n + spare;
  clgpu_status status;
  if (form == 0) {
    status = clgpu_copy_to_host(world.context, at, host_size, view.pointer, call.wait.count,
                                call.wait.list, &call.event);
  } else if (form == 1) {
    status = clgpu_copy_from_host(world.context, view.pointer, at, host_size, call.wait.count,
                                  call.wait.list, &call.event);
  } else if (form == 2) {
    status = clgpu_array_read(world.context, at, host_size, view.pointer, call.wait.count,
                              call.wait.list);
  } else {
    status = clgpu_array_write(world.context, view.pointer, at, host_size, call.wait.count,
                               call.wait.list);
  }
  finish_moved(&call, status);
  for (size_t i = 0; i < sizeof host; i++) {
    if (host[i] != host_expected[i]) {
      violation(call.text, "host byte %zu is %u, expected %u (%zu bytes %s at byte %d)", i, host[i],
                host_expected[i], n, write ? "written from" : "read to", GUARD_BYTES);
    }
  }
}

/* gather: an opaque destination (in C) from an opaque source (in B)
 * through a uint or ulong permutation (in A). Bytes: the permutation's type,
 * the source's length, the indices' seed, the layouts of the permutation,
 * the source and the destination, the wait byte. Indices are mostly inside
 * the source, sometimes just past it, now and then huge: those read
 * nothing and leave their element as it was (sort.h). */
static void opaque_gather(byte_reader *in, size_t n) {
  algo_call call;
  algo_call_init(&call);
  clgpu_type index_type = take_byte(in) % 2 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32;
  size_t source_n = take_byte(in);
  uint8_t spread = take_byte(in);
  layout lp = take_layout(in, ANY_STEP, 1), ls = take_layout(in, ANY_STEP, 1),
         ld = take_layout(in, NO_BROADCAST, 1);
  n = smaller(n, smaller(room(&lp, index_type, ALG_A), room(&ld, CLGPU_TYPE_OPAQUE, ALG_C)));
  source_n = smaller(source_n, room(&ls, CLGPU_TYPE_OPAQUE, ALG_B));
  algo_view permutation, source, destination;
  make_view(&lp, index_type, n, ALG_A, &permutation);
  make_view(&ls, CLGPU_TYPE_OPAQUE, source_n, ALG_B, &source);
  make_view(&ld, CLGPU_TYPE_OPAQUE, n, ALG_C, &destination);
  add_view(&call, &permutation);
  add_view(&call, &source);
  add_view(&call, &destination);
  uint32_t state = spread * 2654435761u + 1u;
  for (size_t k = 0; k < n; k++) {
    state = state * 1103515245u + 12345u;
    uint64_t index = (state >> 8) % (source_n + 3);
    if ((state >> 4) % 64 == 0) index = ~(uint64_t)0 - state % 5;
    /* Every element of a broadcast permutation reads the index stored last. */
    store_int(before_at(&permutation, k), index_type, index);
  }
  algo_upload();
  for (size_t k = 0; k < n; k++) {
    uint64_t index = (uint64_t)element_int(before_at(&permutation, k), index_type);
    if (index_type == CLGPU_TYPE_UINT32) index &= 0xffffffffu;
    if (index < source_n) *model_at(&destination, k) = *before_at(&source, (size_t)index);
  }
  begin_valid_call(&call, in);
  describe_views(&call, "clgpu_gather[opaque]");
  clgpu_status status =
      clgpu_gather(world.context, destination.pointer, source.pointer, permutation.pointer,
                   call.wait.count, call.wait.list, event_of(&call));
  finish_moved(&call, status);
}

/* The stable order of n keys by their images (descending: largest first),
 * as permutation[0..n). */
static void stable_order(const uint64_t *images, size_t n, int descending, uint32_t *order) {
  for (size_t i = 0; i < n; i++) {
    size_t j = i;
    while (j > 0 &&
           (descending ? images[order[j - 1]] < images[i] : images[i] < images[order[j - 1]])) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = (uint32_t)i;
  }
}

/* The type of a custom key's fields, and the unsigned image of the field
 * it sorts by (its first), reversed for a comparator "b < a". */
static clgpu_type field_type(const custom_key *custom) {
  if (custom->real) return CLGPU_TYPE_FLOAT;
  return strcmp(custom->type, "fuzz_wide") == 0 ? CLGPU_TYPE_INT64 : CLGPU_TYPE_INT32;
}

static uint64_t custom_image(const custom_key *custom, const uint8_t *key) {
  clgpu_type type = field_type(custom);
  int64_t value = custom->real ? (int64_t)element_real(key, type) : element_int(key, type);
  if (custom->compare[0] == 'b') value = -value;
  return (uint64_t)value ^ ((uint64_t)1 << 63);
}

static size_t key_alignment(size_t size) {
  size_t alignment = 1;
  while (alignment < 16 && size % (alignment * 2) == 0) alignment *= 2;
  return alignment;
}

/* Sorts that move opaque bytes: custom keys over an opaque view (in A,
 * contiguous and aligned as sort.h asks), sorted or permuted, or built-in
 * keys (in A) carrying opaque values. The second view (in B) is none,
 * opaque values of 1, 2, 4, 8 or 16 bytes per key (contiguous; a strided
 * view has one byte per key), or, for custom keys, a uint or ulong
 * permutation. Bytes: the key (custom_keys[b % 6], or a built-in type), the
 * spec (odd: descending; for built-in keys 0 is a NULL spec), the options
 * byte (AUTO or MERGE; built-in keys RADIX too), the second view (custom:
 * b % 5 of none, contiguous values, strided values, a uint or a ulong
 * permutation; built-in: b % 2 of contiguous or strided values), the bytes
 * per key, the keys' values seed, the layouts of the keys and of the
 * second view, the wait byte. */
static void opaque_sort(byte_reader *in, int what, size_t n) {
  static const clgpu_algorithm custom_algorithms[] = {CLGPU_ALGORITHM_AUTO, CLGPU_ALGORITHM_MERGE};
  static const clgpu_algorithm builtin_algorithms[] = {CLGPU_ALGORITHM_AUTO, CLGPU_ALGORITHM_RADIX,
                                                       CLGPU_ALGORITHM_MERGE};
  static const size_t per_key_sizes[] = {1, 2, 4, 8, 16};
  algo_call call;
  algo_call_init(&call);
  uint8_t key_byte = take_byte(in);
  const custom_key *custom =
      what == WHAT_CUSTOM_SORT ? &custom_keys[key_byte % COUNT_OF(custom_keys)] : NULL;
  clgpu_type key_type = custom ? CLGPU_TYPE_OPAQUE : (clgpu_type)(1 + key_byte % CLGPU_TYPE_DOUBLE);
  uint8_t spec_byte = take_byte(in);
  clgpu_sort_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.descending = spec_byte % 2;
  if (custom) {
    spec.compare = custom->compare;
    spec.key_type = custom->type;
    spec.declarations = custom->declarations;
    spec.key_size = custom->size;
  }
  const clgpu_sort_spec *spec_pointer = custom || spec_byte % 4 ? &spec : NULL;
  clgpu_sort_options storage;
  const clgpu_sort_options *options = custom
                                          ? take_sort_options(in, &storage, custom_algorithms, 2)
                                          : take_sort_options(in, &storage, builtin_algorithms, 3);
  uint8_t second = custom ? take_byte(in) % 5 : 1 + take_byte(in) % 2;
  uint8_t per_key_byte = take_byte(in);
  size_t per_key = second == 1 ? per_key_sizes[per_key_byte % 5] : 1;
  uint8_t seed = take_byte(in);
  int permutation = second >= 3;
  clgpu_type second_type = second == 4   ? CLGPU_TYPE_UINT64
                           : second == 3 ? CLGPU_TYPE_UINT32
                                         : CLGPU_TYPE_OPAQUE;
  /* The keys: one element per key, or key_size opaque bytes per key. */
  size_t key_bytes = custom ? custom->size : clgpu_type_size(key_type);
  layout lk =
      take_layout(in, custom ? CONTIGUOUS : NO_BROADCAST, custom ? key_alignment(key_bytes) : 1);
  layout lv = take_layout(in, second == 1 ? CONTIGUOUS : NO_BROADCAST, 1);
  size_t key_room = room(&lk, key_type, ALG_A);
  n = smaller(n, custom ? key_room / key_bytes : key_room);
  if (second) n = smaller(n, room(&lv, second_type, ALG_B) / per_key);
  algo_view keys, values;
  make_view(&lk, key_type, custom ? n * key_bytes : n, ALG_A, &keys);
  add_view(&call, &keys);
  memset(&values, 0, sizeof values);
  if (second) {
    make_view(&lv, second_type, n * per_key, ALG_B, &values);
    add_view(&call, &values);
  }
  /* Small values in every field of the keys, so that floats are exact and
   * never NaN; the values keep the pattern: any bits, never interpreted. */
  if (custom) {
    algo_view fields;
    clgpu_type type = field_type(custom);
    size_t shape[1] = {n * key_bytes / clgpu_type_size(type)};
    ptrdiff_t step[1] = {1};
    memset(&fields, 0, sizeof fields);
    if (clgpu_array_strided(algo.buffers[ALG_A], keys.view.offset, type, 1, shape, step,
                            &fields.view) != CLGPU_SUCCESS) {
      violation("clgpu_array_strided", "refused the fields of the keys: %s", clgpu_last_error());
    }
    fields.made = 1;
    fields.buffer = ALG_A;
    fields.count = shape[0];
    write_values(&fields, seed, 0);
  } else {
    write_values(&keys, seed, 0);
  }
  algo_upload();
  static uint8_t gathered[ALGO_BYTES], sorted[ALGO_BYTES];
  static uint64_t images[ALGO_BYTES];
  static uint32_t order[ALGO_BYTES];
  gather_before(&keys, gathered);
  for (size_t k = 0; k < n; k++) {
    images[k] = custom ? custom_image(custom, gathered + k * key_bytes)
                       : order_image(gathered + k * key_bytes, key_type);
  }
  stable_order(images, n, spec_pointer && spec.descending, order);
  if (permutation) {
    for (size_t k = 0; k < n; k++) store_int(model_at(&values, k), second_type, order[k]);
  } else {
    for (size_t k = 0; k < n; k++) {
      memcpy(sorted + k * key_bytes, gathered + order[k] * key_bytes, key_bytes);
    }
    scatter_model(&keys, sorted);
    if (second) {
      gather_before(&values, gathered);
      for (size_t k = 0; k < n; k++) {
        memcpy(sorted + k * per_key, gathered + order[k] * per_key, per_key);
      }
      scatter_model(&values, sorted);
    }
  }
  begin_valid_call(&call, in);
  char name[128];
  snprintf(name, sizeof name, "%s[%s%s, %zu bytes per key%s]",
           permutation ? "clgpu_sort_permutation" : "clgpu_sort",
           custom ? custom->type : clgpu_type_cl_name(key_type), custom ? " over opaque" : "",
           second ? per_key : 0, spec_pointer && spec.descending ? ", descending" : "");
  describe_views(&call, name);
  clgpu_status status =
      permutation
          ? clgpu_sort_permutation(world.context, spec_pointer, values.pointer, keys.pointer,
                                   options, call.wait.count, call.wait.list, event_of(&call))
          : clgpu_sort(world.context, spec_pointer, keys.pointer, second ? values.pointer : NULL,
                       options, call.wait.count, call.wait.list, event_of(&call));
  finish_moved(&call, status);
}

void op_algo_opaque(fuzz_run *run) {
  byte_reader *in = &run->in;
  int what = take_byte(in) % WHAT_COUNT;
  algo_write_buffers(take_byte(in));
  size_t n = take_byte(in);
  switch (what) {
    case WHAT_ELEMENTWISE_CREATE:
      opaque_elementwise_create(in);
      break;
    case WHAT_CONVERT:
    case WHAT_AXPBY:
    case WHAT_COMPARE:
    case WHAT_IOTA:
      opaque_builtin(in, what, n);
      break;
    case WHAT_REDUCE:
    case WHAT_COUNT_IF:
    case WHAT_SCAN:
    case WHAT_FINDALL:
      opaque_reduction(in, what, n);
      break;
    case WHAT_NATURAL_SORT:
      opaque_natural_sort(in, n);
      break;
    case WHAT_COPY:
    case WHAT_FILL:
      opaque_copy_fill(in, what, n);
      break;
    case WHAT_TRANSFER:
      opaque_transfer(in, n);
      break;
    case WHAT_GATHER:
      opaque_gather(in, n);
      break;
    default:
      opaque_sort(in, what, n);
      break;
  }
}
