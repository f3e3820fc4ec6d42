/* Fuzz operations on sort, sort permutation and gather, with built-in and
 * custom keys, compared with a host sort when the order is known; and on
 * the searches in a sorted haystack (lower and upper bounds), which take a
 * sort's order, compared with a host count over a haystack the fuzzer
 * sorted itself. */
#include "harness.h"

/* ---- sort, sort permutation, gather ---- */

/* Fixed comparators over built-in keys, with the rank the host sorts by. */
static const char *const comparators[] = {"a < b", "a > b", "(a & 7) < (b & 7)"};

/* Key types and declarations that never compile, whatever key_size says. */
static const char *const broken_key_types[] = {
    "", " ", "fuzz_missing", "struct fuzz_nothing", "int int", "void", "int)", "a;b",
    "#error fuzz", long_identifier,
};
static const char *const broken_declarations[] = {
    "typedef struct {", "}", "#error fuzz\n", "int x = ;", "typedef int int2;", "/*",
    "__kernel void fuzz(void) {}", long_identifier,
};

/* A sort's order on the host: a signed or unsigned rank per key. */
typedef struct host_order {
  int kind; /* 0 the image of sort.h, 1 a comparator rank, 2 a custom key field */
  int comparator;
  int descending;
  unsigned begin_bit, end_bit;
  const custom_key *custom;
  clgpu_type type;
  size_t key_size;
} host_order;

static int64_t key_rank(const host_order *order, const uint8_t *key, int *unsigned_rank,
                        uint64_t *image) {
  *unsigned_rank = 0;
  if (order->kind == 0) {
    uint64_t bits = order_image(key, order->type);
    if (order->begin_bit || order->end_bit) {
      bits >>= order->begin_bit;
      unsigned width = order->end_bit - order->begin_bit;
      if (width < 64) bits &= ((uint64_t)1 << width) - 1;
    }
    *unsigned_rank = 1;
    *image = bits;
    return 0;
  }
  if (order->kind == 1) {
    /* Reals here hold the small integers of write_values (the sorts leave
     * reals with comparators unmodelled; the searches write such values). */
    int64_t value = is_real(order->type) ? (int64_t)element_real(key, order->type)
                                         : element_int(key, order->type);
    if (order->comparator == 0) return value;
    if (order->comparator == 1) return -value;
    return value & 7;
  }
  if (order->custom->real) return (int64_t)element_real(key, CLGPU_TYPE_FLOAT);
  int64_t value = order->custom->size == 8 && strcmp(order->custom->type, "fuzz_wide") == 0
                      ? element_int(key, CLGPU_TYPE_INT64)
                      : element_int(key, CLGPU_TYPE_INT32);
  return order->custom->compare[0] == 'b' ? -value : value;
}

/* Whether key a sorts strictly before key b. */
static int sorts_before(const host_order *order, const uint8_t *a, const uint8_t *b) {
  int unsigned_a, unsigned_b;
  uint64_t image_a = 0, image_b = 0;
  int64_t rank_a = key_rank(order, a, &unsigned_a, &image_a);
  int64_t rank_b = key_rank(order, b, &unsigned_b, &image_b);
  if (unsigned_a) return order->descending ? image_b < image_a : image_a < image_b;
  return order->descending ? rank_b < rank_a : rank_a < rank_b;
}

/* The stable order of n keys of key_size bytes (gathered into `keys`):
 * permutation[0..n) by insertion sort, which is stable. */
static void host_sort(const host_order *order, const uint8_t *keys, size_t n, uint32_t *perm) {
  for (size_t i = 0; i < n; i++) {
    size_t j = i;
    uint32_t moving = (uint32_t)i;
    while (j > 0 && sorts_before(order, keys + moving * order->key_size,
                                 keys + perm[j - 1] * order->key_size)) {
      perm[j] = perm[j - 1];
      j--;
    }
    perm[j] = moving;
  }
}

static void scatter_view(const algo_view *view, const uint8_t *in) {
  size_t size = clgpu_type_size(view->view.type);
  for (size_t k = 0; k < view->count; k++) {
    memcpy(&algo_model[view->buffer][element_offset(&view->view, k)], in + k * size, size);
  }
}

typedef struct sort_request {
  clgpu_sort_spec spec;
  const clgpu_sort_spec *spec_pointer;
  clgpu_sort_options options;
  const clgpu_sort_options *options_pointer;
  host_order order;
  int orderable; /* the host knows the order */
  int key_size_wrong;
  expression compare;
  char key_type_text[MAX_TEXT + 1];
} sort_request;

static void take_sort_request(byte_reader *in, sort_request *request, clgpu_type key_type,
                              algo_call *call, int *slot) {
  memset(request, 0, sizeof *request);
  clgpu_sort_spec *spec = &request->spec;
  host_order *order = &request->order;
  order->type = key_type;
  order->key_size = clgpu_type_size(key_type);
  request->orderable = 1;
  uint8_t mode = take_byte(in) % 8;
  request->spec_pointer = mode == 0 ? NULL : spec;
  spec->descending = take_byte(in) % 3 == 2 ? take_int(in) : 0;
  order->descending = request->spec_pointer && spec->descending != 0;
  if (mode == 2 || mode == 3) {
    /* A comparator over built-in keys. */
    take_expression(in, comparators, COUNT_OF(comparators), &request->compare);
    spec->compare = request->compare.text;
    add_expression(call, &request->compare);
    order->kind = 1;
    order->comparator = request->compare.fixed;
    if (is_real(key_type) || request->compare.fixed < 0) request->orderable = 0;
  } else if (mode == 4 || mode == 5) {
    /* A custom key type: one of the table, or one that never compiles. */
    uint8_t which = take_byte(in);
    const custom_key *custom = &custom_keys[which % COUNT_OF(custom_keys)];
    spec->key_type = custom->type;
    spec->declarations = custom->declarations;
    spec->compare = custom->compare;
    spec->key_size = custom->size;
    uint8_t size_choice = take_byte(in) % 8;
    if (size_choice == 1) spec->key_size = 0;
    if (size_choice >= 6) {
      static const size_t sizes[] = {4, 8, 12, 16, 32};
      spec->key_size = sizes[take_byte(in) % COUNT_OF(sizes)];
    }
    request->key_size_wrong = spec->key_size != custom->size;
    order->kind = 2;
    order->custom = custom;
    order->key_size = spec->key_size;
    int budget_left = algo.builds < ALGO_BUILD_BUDGET;
    if (size_choice == 2) {
      char buffer[MAX_TEXT + 1];
      const char *type = TAKE_TEXT(in, broken_key_types, buffer);
      size_t size = take_byte(in) % 20;
      if (budget_left) {
        snprintf(request->key_type_text, sizeof request->key_type_text, "%s", type ? type : "");
        spec->key_type = type ? request->key_type_text : NULL;
        spec->key_size = size;
        request->orderable = 0;
        request->key_size_wrong = 0;
      }
    } else if (size_choice == 3) {
      const char *declarations = broken_declarations[take_byte(in) % COUNT_OF(broken_declarations)];
      if (budget_left) {
        spec->declarations = declarations;
        request->orderable = 0;
      }
    } else if (size_choice == 4) {
      take_expression(in, comparators, COUNT_OF(comparators), &request->compare);
      if (request->compare.fixed < 0) {
        spec->compare = request->compare.text;
        add_expression(call, &request->compare);
        request->orderable = 0;
      }
    }
    if (!spec->key_size) request->orderable = 0;
  }
  if (mode == 6) {
    spec->begin_bit = take_byte(in) % 70;
    spec->end_bit = take_byte(in) % 70;
    order->begin_bit = spec->begin_bit;
    order->end_bit = spec->end_bit;
    if ((spec->begin_bit || spec->end_bit) &&
        (spec->begin_bit >= spec->end_bit || spec->end_bit > 8 * clgpu_type_size(key_type))) {
      request->orderable = 0;
    }
  }
  request->options_pointer = NULL;
  uint8_t options_mode = take_byte(in) % 4;
  *slot = -1;
  if (options_mode) {
    request->options.algorithm = take_algorithm(in);
    request->options.shape = take_shape(in);
    if (options_mode == 3) request->options.workspace = take_algo_workspace(in, slot);
    request->options_pointer = &request->options;
  }
  if (!request->spec_pointer) {
    memset(order, 0, sizeof *order);
    order->type = key_type;
    order->key_size = clgpu_type_size(key_type);
    request->orderable = 1;
    return;
  }
  if (request->key_size_wrong) call->must_fail = 1;
  if (spec->key_type && !spec->key_size) call->must_fail = 1;
  int radix = request->options_pointer && request->options.algorithm == CLGPU_ALGORITHM_RADIX;
  if (radix && (spec->compare || spec->key_type)) call->must_fail = 1;
  /* A bit range is for radix sorts: what a merge sort makes of it is not
   * modelled. */
  if ((spec->begin_bit || spec->end_bit) && !radix) request->orderable = 0;
}

static void algo_sort(fuzz_run *run, int permutation) {
  byte_reader *in = &run->in;
  const array_run *pool = &run->pool;
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t form = take_byte(in) % 4; /* the call, the query, the call, the call */
  algo_write_buffers(take_byte(in));
  clgpu_type key_type = take_algo_type(in);
  size_t n = take_byte(in) % (ALGO_MAX_N + 1);
  sort_request request;
  int slot;
  take_sort_request(in, &request, key_type, &call, &slot);
  call.workspace_slot = slot;
  /* Custom keys: a view of 32-bit (or 64-bit) elements, key_size bytes per
   * key; built-in keys: a view of key_type. */
  algo_view keys, values;
  const custom_key *custom = request.order.kind == 2 ? request.order.custom : NULL;
  view_wish wish = wish_1d(key_type, n, ALG_A);
  if (custom) {
    wish.type = custom->real                             ? CLGPU_TYPE_FLOAT
                : strcmp(custom->type, "fuzz_wide") == 0 ? CLGPU_TYPE_INT64
                                                         : CLGPU_TYPE_INT32;
    wish.shape[0] = n * (custom->size / clgpu_type_size(wish.type));
  }
  take_algo_view(in, pool, wish, &keys);
  uint8_t data = take_byte(in);
  write_values(&keys, data, request.order.kind == 0 && data % 3 == 0);
  size_t key_count = keys.made ? keys.count : 0;
  size_t key_size = request.order.key_size;
  if (custom && keys.made) {
    size_t bytes = keys.count * clgpu_type_size(keys.view.type);
    key_count = key_size ? bytes / key_size : 0;
    if (!key_size || bytes % key_size != 0 || keys.view.type != wish.type) request.orderable = 0;
  } else if (keys.made && keys.view.type != key_type) {
    request.order.type = keys.view.type;
    request.order.key_size = key_size = clgpu_type_size(keys.view.type);
    if (request.order.kind == 1 && is_real(keys.view.type)) request.orderable = 0;
  }
  /* Values: none, or indices 0, 1, ... of 4 bytes (or other widths) in B. */
  uint8_t values_mode = take_byte(in) % 4;
  clgpu_type value_type = values_mode == 3 ? take_algo_type(in) : CLGPU_TYPE_UINT32;
  if (permutation) value_type = take_byte(in) % 2 ? CLGPU_TYPE_UINT32 : CLGPU_TYPE_UINT64;
  if (values_mode == 0 && !permutation) {
    memset(&values, 0, sizeof values);
    values.made = 1;
  } else {
    take_algo_view(in, pool, wish_1d(value_type, key_count, ALG_B), &values);
    if (values.made && !permutation) {
      for (size_t k = 0; k < values.count; k++) {
        store_int(&algo_before[values.buffer][element_offset(&values.view, k)], values.view.type,
                  k);
      }
    }
  }
  add_view(&call, &keys);
  if (values.pointer || permutation) add_view(&call, &values);
  if ((!permutation && broadcast_output(&keys)) || broadcast_output(&values)) call.must_fail = 1;
  algo_upload();
  if (!request.orderable || context != world.context || !keys.made || !values.made ||
      (keys.made && keys.view.rank != 1) || (values.pointer && values.view.rank != 1)) {
    call.checkable = 0;
  }
  if (call.checkable && request.spec_pointer == NULL) request.order.descending = 0;
  if (call.checkable) {
    static uint8_t gathered[ALGO_BYTES], sorted[ALGO_BYTES], moved[ALGO_BYTES];
    static uint32_t order[ALGO_BYTES];
    gather_view(&keys, gathered);
    host_sort(&request.order, gathered, key_count, order);
    if (permutation) {
      if (values.count != key_count) call.checkable = 0;
      for (size_t k = 0; k < key_count && call.checkable; k++) {
        store_int(&algo_model[values.buffer][element_offset(&values.view, k)], values.view.type,
                  order[k]);
      }
    } else {
      for (size_t k = 0; k < key_count; k++) {
        memcpy(sorted + k * key_size, gathered + order[k] * key_size, key_size);
      }
      scatter_view(&keys, sorted);
      if (values.pointer) {
        size_t bytes = values.count * clgpu_type_size(values.view.type);
        size_t per_key = key_count ? bytes / key_count : 0;
        /* Values go by bytes per key; only the simple layouts are modelled. */
        if (!key_count || bytes % key_count ||
            (values.view.strides[0] != 1 && per_key != clgpu_type_size(values.view.type))) {
          call.checkable = 0;
        } else {
          gather_view(&values, gathered);
          for (size_t k = 0; k < key_count; k++) {
            memcpy(moved + k * per_key, gathered + order[k] * per_key, per_key);
          }
          scatter_view(&values, moved);
        }
      }
    }
  }
  if (form == 1) {
    clgpu_workspace_size report;
    memset(&report, 0x5a, sizeof report);
    clgpu_workspace_size before = report;
    describe_views(&call, permutation ? "clgpu_sort_permutation_workspace_size"
                                      : "clgpu_sort_workspace_size");
    prime_last_error();
    clgpu_status status =
        permutation
            ? clgpu_sort_permutation_workspace_size(context, request.spec_pointer, values.pointer,
                                                    keys.pointer, request.options_pointer, &report)
            : clgpu_sort_workspace_size(context, request.spec_pointer, keys.pointer, values.pointer,
                                        request.options_pointer, &report);
    check_call(call.text, status, STATUS_SET(algo_statuses, 1), 0);
    if (status != CLGPU_SUCCESS && memcmp(&report, &before, sizeof report) != 0) {
      violation(call.text, "failed but wrote the report");
    }
    if (status == CLGPU_SUCCESS && request.key_size_wrong) {
      violation(call.text, "accepted a key_size that is not the key type's");
    }
    return;
  }
  begin_algo_call(&call, in);
  char name[64];
  snprintf(name, sizeof name, "%s[%s%s%s]", permutation ? "clgpu_sort_permutation" : "clgpu_sort",
           request.spec.key_type ? request.spec.key_type : "",
           request.spec.key_type ? " " : "", request.spec.descending ? "desc" : "asc");
  describe_views(&call, name);
  clgpu_status status =
      permutation ? clgpu_sort_permutation(context, request.spec_pointer, values.pointer,
                                           keys.pointer, request.options_pointer, call.wait.count,
                                           call.wait.list, call.want_event ? &call.event : NULL)
                  : clgpu_sort(context, request.spec_pointer, keys.pointer, values.pointer,
                               request.options_pointer, call.wait.count, call.wait.list,
                               call.want_event ? &call.event : NULL);
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
}

void op_algo_sort(fuzz_run *run) { algo_sort(run, 0); }

void op_algo_permutation(fuzz_run *run) { algo_sort(run, 1); }

void op_algo_gather(fuzz_run *run) {
  byte_reader *in = &run->in;
  const array_run *pool = &run->pool;
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  algo_write_buffers(take_byte(in));
  size_t n = take_byte(in) % (ALGO_MAX_N + 1);
  size_t source_n = take_byte(in) % (ALGO_MAX_N + 1);
  clgpu_type type = take_algo_type(in);
  algo_view permutation, source, destination;
  take_algo_view(in, pool,
                 wish_1d(take_byte(in) % 2 ? CLGPU_TYPE_UINT32 : CLGPU_TYPE_UINT64, n, ALG_A),
                 &permutation);
  take_algo_view(in, pool, wish_1d(type, source_n, ALG_B), &source);
  take_algo_view(in, pool, wish_1d(type, n, take_byte(in) % 4 ? ALG_C : ALG_B), &destination);
  write_values(&source, take_byte(in), 1);
  uint8_t spread = take_byte(in);
  if (permutation.made &&
      (permutation.view.type == CLGPU_TYPE_UINT32 || permutation.view.type == CLGPU_TYPE_UINT64)) {
    uint32_t state = spread * 2654435761u + 1;
    for (size_t k = 0; k < permutation.count; k++) {
      state = state * 1103515245u + 12345u;
      /* Mostly inside the source, sometimes just past it, now and then huge. */
      uint64_t index = (state >> 8) % (source.count + 3);
      if ((state >> 4) % 64 == 0) index = ~(uint64_t)0 - (state % 5);
      store_int(&algo_before[permutation.buffer][element_offset(&permutation.view, k)],
                permutation.view.type, index);
    }
  } else {
    write_values(&permutation, spread, 1);
  }
  add_view(&call, &permutation);
  add_view(&call, &source);
  add_view(&call, &destination);
  if (broadcast_output(&destination)) call.must_fail = 1;
  algo_upload();
  if (context != world.context || !call.checkable || permutation.view.rank != 1 ||
      source.view.rank != 1 || destination.view.rank != 1 ||
      (permutation.view.type != CLGPU_TYPE_UINT32 && permutation.view.type != CLGPU_TYPE_UINT64) ||
      clgpu_type_size(source.view.type) != clgpu_type_size(destination.view.type) ||
      destination.count != permutation.count) {
    call.checkable = 0;
  }
  if (call.checkable) {
    size_t size = clgpu_type_size(source.view.type);
    for (size_t k = 0; k < permutation.count; k++) {
      uint64_t index = (uint64_t)element_int(
          &algo_before[permutation.buffer][element_offset(&permutation.view, k)],
          permutation.view.type);
      if (permutation.view.type == CLGPU_TYPE_UINT32) index &= 0xffffffffu;
      if (index >= source.count) continue;
      memcpy(&algo_model[destination.buffer][element_offset(&destination.view, k)],
             &algo_before[source.buffer][element_offset(&source.view, (size_t)index)], size);
    }
  }
  begin_algo_call(&call, in);
  describe_views(&call, "clgpu_gather");
  clgpu_status status =
      clgpu_gather(context, destination.pointer, source.pointer, permutation.pointer,
                   call.wait.count, call.wait.list, call.want_event ? &call.event : NULL);
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
}

/* ---- lower and upper bounds ---- */

/* The calls' statuses: the algorithms' and a text over its length cap; the
 * query's also CLGPU_SIZE_OVERFLOW. */
static const clgpu_status search_statuses[] = {ALGO_ARGUMENT_STATUSES, ALGO_CALL_STATUSES,
                                               CLGPU_EXPRESSION_TOO_LONG};

typedef struct search_request {
  clgpu_sort_spec spec;
  const clgpu_sort_spec *spec_pointer;
  clgpu_call_options options;
  const clgpu_call_options *options_pointer;
  host_order order;
  int orderable;      /* the host knows the order */
  int refused;        /* the spec or the options break a rule whatever the views */
  int key_size_wrong; /* custom keys with a key_size other than the type's (not 0) */
  expression compare;
} search_request;

/* The order of a search. Bytes: the mode (NULL; the natural order, 1 and
 * 5; a comparator of the sorts' table or a hostile one, 2 and 3; a custom
 * key of custom_keys with its key_size right, 0 or another, 4; a bit
 * range, which only radix sorts take, 6; a key_size without a key type or
 * a key type without a comparator, 7), the descending flag, the mode's
 * bytes, then the call options. */
static void take_search_request(byte_reader *in, search_request *request, clgpu_type key_type,
                                algo_call *call) {
  memset(request, 0, sizeof *request);
  clgpu_sort_spec *spec = &request->spec;
  host_order *order = &request->order;
  order->type = key_type;
  order->key_size = clgpu_type_size(key_type);
  request->orderable = 1;
  uint8_t mode = take_byte(in) % 8;
  request->spec_pointer = mode == 0 ? NULL : spec;
  spec->descending = take_byte(in) % 3 == 2 ? take_int(in) : 0;
  if (mode == 2 || mode == 3) {
    take_expression(in, comparators, COUNT_OF(comparators), &request->compare);
    spec->compare = request->compare.text;
    add_expression(call, &request->compare);
    order->kind = 1;
    order->comparator = request->compare.fixed;
    if (request->compare.fixed < 0) request->orderable = 0;
  } else if (mode == 4) {
    const custom_key *custom = &custom_keys[take_byte(in) % COUNT_OF(custom_keys)];
    spec->key_type = custom->type;
    spec->declarations = custom->declarations;
    spec->compare = custom->compare;
    spec->key_size = custom->size;
    uint8_t size_choice = take_byte(in) % 8;
    if (size_choice == 1) spec->key_size = 0;
    if (size_choice >= 6) {
      static const size_t sizes[] = {4, 8, 12, 16, 32};
      spec->key_size = sizes[take_byte(in) % COUNT_OF(sizes)];
    }
    if (!spec->key_size) request->refused = 1;
    request->key_size_wrong = spec->key_size && spec->key_size != custom->size;
    order->kind = 2;
    order->custom = custom;
    order->key_size = custom->size;
  } else if (mode == 6) {
    spec->begin_bit = take_byte(in) % 70;
    spec->end_bit = take_byte(in) % 70;
    if (spec->begin_bit || spec->end_bit) request->refused = 1;
  } else if (mode == 7) {
    uint8_t which = take_byte(in);
    if (which % 2) {
      spec->key_type = custom_keys[which / 2 % COUNT_OF(custom_keys)].type;
      spec->key_size = custom_keys[which / 2 % COUNT_OF(custom_keys)].size;
    } else {
      spec->key_size = 1 + which / 2 % 16;
    }
    request->refused = 1;
  }
  order->descending = spec->descending != 0;
  if (!request->spec_pointer) {
    memset(order, 0, sizeof *order);
    order->type = key_type;
    order->key_size = clgpu_type_size(key_type);
  }
  request->options_pointer = take_call_options(in, &request->options, &call->workspace_slot);
  if (request->options_pointer && request->options.shape != CLGPU_SHAPE_AUTO &&
      request->options.shape != CLGPU_SHAPE_CHUNKED &&
      request->options.shape != CLGPU_SHAPE_TILED) {
    request->refused = 1;
  }
}

/* The number of keys of a made 1-D view as the library counts them:
 * elements, or bytes over spec->key_size for custom keys. */
static size_t search_keys(const algo_view *view, const search_request *request) {
  if (!request->spec_pointer || !request->spec.key_type) return view->count;
  size_t key_size = request->spec.key_size;
  return key_size ? view->count * clgpu_type_size(view->view.type) / key_size : 0;
}

/* Custom keys as the library takes them: contiguous, whole keys of
 * spec->key_size bytes, starting at a multiple of the largest power of two
 * (up to 16) that divides the key size. */
static int whole_custom_keys(const algo_view *view, size_t key_size) {
  size_t alignment = 1;
  while (alignment < 16 && key_size % (2 * alignment) == 0) alignment *= 2;
  size_t bytes = view->count * clgpu_type_size(view->view.type);
  return clgpu_array_is_contiguous(&view->view) && bytes % key_size == 0 &&
         view->view.offset % alignment == 0;
}

/* Write back into algo_before what gather_view took from a made view. */
static void put_view(const algo_view *view, const uint8_t *in) {
  size_t size = clgpu_type_size(view->view.type);
  for (size_t k = 0; k < view->count; k++) {
    memcpy(&algo_before[view->buffer][element_offset(&view->view, k)], in + k * size, size);
  }
}

/* The haystack's keys in `order`: gathered, sorted stably on the host and
 * written back, so that the model's bounds are exact. */
static void sort_haystack(const algo_view *haystack, const host_order *order) {
  static uint8_t gathered[ALGO_BYTES], sorted[ALGO_BYTES];
  static uint32_t permutation[ALGO_BYTES];
  size_t bytes = haystack->count * clgpu_type_size(haystack->view.type);
  size_t count = bytes / order->key_size;
  gather_view(haystack, gathered);
  memcpy(sorted, gathered, bytes);
  host_sort(order, gathered, count, permutation);
  for (size_t k = 0; k < count; k++) {
    memcpy(sorted + k * order->key_size, gathered + permutation[k] * order->key_size,
           order->key_size);
  }
  put_view(haystack, sorted);
}

/* The buffers a query's report must hold for these views, as search.h
 * says: staging for needles and haystack that are not contiguous, packing
 * for positions that are not or that may overlap an input. */
static void check_search_report(const char *text, const clgpu_workspace_size *report,
                                const algo_view *positions, const algo_view *needles,
                                const algo_view *haystack, int builtin, size_t needle_count,
                                size_t haystack_count) {
  if (report->num_parts < 1 || report->parts[0].operation != CLGPU_OPERATION_SEARCH) {
    violation(text, "gave a report whose first part is not a search's");
  }
  if (!positions->made || !needles->made || !haystack->made || needle_count == 0) return;
  uint64_t needed[3] = {0, 0, 0};
  static const char *const names[] = {"staged_needles", "staged_haystack", "packed_positions"};
  if (builtin && !clgpu_array_is_contiguous(&needles->view)) needed[0] = needle_count;
  if (builtin && !clgpu_array_is_contiguous(&haystack->view)) needed[1] = haystack_count;
  if (!clgpu_array_is_contiguous(&positions->view) ||
      clgpu_may_alias(&positions->view, &needles->view) ||
      clgpu_may_alias(&positions->view, &haystack->view)) {
    needed[2] = needle_count;
  }
  for (size_t i = 0; i < 3; i++) {
    uint64_t held = 0;
    for (unsigned b = 0; b < report->num_buffers && b < CLGPU_WORKSPACE_MAX_BUFFERS; b++) {
      if (report->buffers[b].name && strcmp(report->buffers[b].name, names[i]) == 0) {
        held = report->buffers[b].count;
      }
    }
    if (held < needed[i]) {
      violation(text, "gave \"%s\" %llu elements; these views need %llu", names[i],
                (unsigned long long)held, (unsigned long long)needed[i]);
    }
  }
}

/* clgpu_lower_bound, clgpu_upper_bound and clgpu_search_workspace_size.
 * Bytes: the context, the form (lower, upper, lower, upper, the query),
 * the seed of the buffers, the key type, the haystack's and the needles'
 * key counts, the order and options (take_search_request), the haystack's
 * view, the needles' mode (7: the haystack's own view) and view, the
 * positions' type (uint or ulong) and mode (0 to 4 a view of their own, 5
 * and 6 over the needles' bytes, 7 over the haystack's), the haystack's
 * and the needles' data, and the call's wait list and event. The haystack
 * is written sorted in the order (any bits in the natural order, NaNs
 * included; small integers with comparators and custom keys), the needles
 * are any values (some of them the haystack's keys); a success is compared
 * with the host's count of the keys before each needle (lower) or not after
 * it (upper), every other byte unchanged. */
void op_algo_search(fuzz_run *run) {
  byte_reader *in = &run->in;
  const array_run *pool = &run->pool;
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t form = take_byte(in) % 5;
  int upper = form % 2, query = form == 4;
  algo_write_buffers(take_byte(in));
  clgpu_type key_type = take_algo_type(in);
  size_t n = take_byte(in) % (ALGO_MAX_N + 1);
  size_t m = take_byte(in) % (ALGO_MAX_N + 1);
  search_request request;
  take_search_request(in, &request, key_type, &call);
  host_order *order = &request.order;
  /* Custom keys: views of their field's type, key_size bytes per key. */
  const custom_key *custom = order->kind == 2 ? order->custom : NULL;
  clgpu_type element_type = key_type;
  size_t per_key = 1;
  if (custom) {
    element_type = custom->real                             ? CLGPU_TYPE_FLOAT
                   : strcmp(custom->type, "fuzz_wide") == 0 ? CLGPU_TYPE_INT64
                                                            : CLGPU_TYPE_INT32;
    per_key = custom->size / clgpu_type_size(element_type);
  }
  algo_view haystack, needles, positions;
  take_algo_view(in, pool, wish_1d(element_type, n * per_key, ALG_A), &haystack);
  if (take_byte(in) % 8 == 7 && haystack.made) {
    needles = haystack;
    needles.pointer = &needles.view;
  } else {
    take_algo_view(in, pool, wish_1d(element_type, m * per_key, ALG_B), &needles);
  }
  size_t needle_count = needles.made ? search_keys(&needles, &request) : m;
  size_t haystack_count = haystack.made ? search_keys(&haystack, &request) : n;
  clgpu_type position_type = take_byte(in) % 2 ? CLGPU_TYPE_UINT32 : CLGPU_TYPE_UINT64;
  uint8_t positions_mode = take_byte(in) % 8;
  const algo_view *under = positions_mode == 7 ? &haystack : positions_mode >= 5 ? &needles : NULL;
  if (under && under->made && under->view.rank == 1) {
    view_over(under, position_type, needle_count, 0, &positions);
  } else {
    take_algo_view(in, pool, wish_1d(position_type, needle_count, ALG_C), &positions);
  }

  /* The data: the needles, some of them keys of the haystack, then the
   * haystack, sorted last so that it stays sorted where it overlaps the
   * needles. Any bits only where the order is the natural one. */
  if (!custom && haystack.made) order->type = haystack.view.type;
  if (!custom) order->key_size = clgpu_type_size(order->type);
  if (order->kind == 1 && order->comparator == 2 && is_real(order->type)) request.orderable = 0;
  /* Custom keys are bytes: views of another type hold other integer
   * fields, but a float field could hold a NaN. */
  if (custom && custom->real && haystack.made && haystack.view.type != element_type) {
    request.orderable = 0;
  }
  uint8_t haystack_data = take_byte(in), needles_data = take_byte(in);
  int natural = order->kind == 0;
  write_values(&haystack, haystack_data, natural && haystack_data % 3 == 0);
  write_values(&needles, needles_data, natural && needles_data % 3 == 0);
  if (haystack.made && needles.made && haystack.count > 0 &&
      clgpu_type_size(haystack.view.type) == clgpu_type_size(needles.view.type)) {
    size_t size = clgpu_type_size(needles.view.type);
    for (size_t k = 0; k < needles.count; k++) {
      if ((k + needles_data) % 3 != 0) continue;
      memcpy(&algo_before[needles.buffer][element_offset(&needles.view, k)],
             &algo_before[haystack.buffer][element_offset(&haystack.view, k * 7 % haystack.count)],
             size);
    }
  }
  if (haystack.made && haystack.view.rank == 1 && request.orderable) {
    sort_haystack(&haystack, order);
  }

  add_view(&call, &positions);
  add_view(&call, &needles);
  add_view(&call, &haystack);
  /* What the header refuses whatever else the call gets. */
  const algo_view *all[3] = {&positions, &needles, &haystack};
  int any_made = 0;
  for (int i = 0; i < 3; i++) {
    if (!all[i]->pointer) call.must_fail = 1;
    if (!all[i]->made) continue;
    any_made = 1;
    if (all[i]->view.rank != 1) call.must_fail = 1;
    if (i > 0 && all[i]->buffer == ALG_WRITE_ONLY) call.must_fail = 1;
    if (i > 0 && custom && request.spec.key_size && all[i]->view.rank == 1 &&
        !whole_custom_keys(all[i], request.spec.key_size)) {
      call.must_fail = 1;
    }
  }
  if (!context || request.refused || (context != world.context && any_made)) call.must_fail = 1;
  if (positions.made && positions.view.type != CLGPU_TYPE_UINT32 &&
      positions.view.type != CLGPU_TYPE_UINT64) {
    call.must_fail = 1;
  }
  if (broadcast_output(&positions)) call.must_fail = 1;
  if (positions.made && needles.made && positions.view.rank == 1 && needles.view.rank == 1 &&
      positions.count != needle_count) {
    call.must_fail = 1;
  }
  if (!custom && needles.made && haystack.made && needles.view.type != haystack.view.type) {
    call.must_fail = 1;
  }

  const char *function = upper ? "clgpu_upper_bound" : "clgpu_lower_bound";
  if (query) function = "clgpu_search_workspace_size";
  const char *kind = order->kind == 1 ? "compare" : "natural";
  if (custom) kind = custom->type;
  char name[96];
  snprintf(name, sizeof name, "%s[%s %s]", function, kind, order->descending ? "desc" : "asc");
  if (query) {
    clgpu_workspace_size report;
    memset(&report, 0x5a, sizeof report);
    clgpu_workspace_size before = report;
    describe_views(&call, name);
    prime_last_error();
    clgpu_status status = clgpu_search_workspace_size(
        context, request.spec_pointer, positions.pointer, needles.pointer, haystack.pointer,
        request.options_pointer, &report);
    check_call(call.text, status, STATUS_SET(algo_text_query_statuses, 1), 0);
    if (status != CLGPU_SUCCESS && memcmp(&report, &before, sizeof report) != 0) {
      violation(call.text, "failed but wrote the report");
    }
    if (status == CLGPU_SUCCESS && call.must_fail) {
      violation(call.text, "accepted arguments its header refuses");
    }
    if (status == CLGPU_SUCCESS) {
      check_search_report(call.text, &report, &positions, &needles, &haystack, !custom,
                          needle_count, haystack_count);
    }
    return;
  }
  /* A wrong key_size is found when the program is built, which every call
   * does whatever the number of needles (as clgpu_sort does whatever n). */
  if (request.key_size_wrong && needles.made) call.must_fail = 1;
  algo_upload();
  if (context != world.context || !request.orderable || request.key_size_wrong || call.must_fail ||
      !positions.made || !needles.made || !haystack.made || positions.view.rank != 1 ||
      needles.view.rank != 1 || haystack.view.rank != 1 ||
      (custom && ((custom->real && needles.view.type != element_type) ||
                  !whole_custom_keys(&needles, custom->size) ||
                  !whole_custom_keys(&haystack, custom->size)))) {
    call.checkable = 0;
  }
  if (call.checkable) {
    static uint8_t keys[ALGO_BYTES], wanted[ALGO_BYTES];
    gather_view(&haystack, keys);
    gather_view(&needles, wanted);
    size_t key_size = order->key_size;
    for (size_t i = 0; i < needle_count; i++) {
      const uint8_t *x = wanted + i * key_size;
      uint64_t bound = 0;
      for (size_t k = 0; k < haystack_count; k++) {
        const uint8_t *key = keys + k * key_size;
        bound += upper ? !sorts_before(order, x, key) : sorts_before(order, key, x);
      }
      store_int(&algo_model[positions.buffer][element_offset(&positions.view, i)],
                positions.view.type, bound);
    }
  }
  begin_algo_call(&call, in);
  describe_views(&call, name);
  clgpu_status status =
      upper ? clgpu_upper_bound(context, request.spec_pointer, positions.pointer, needles.pointer,
                                haystack.pointer, request.options_pointer, call.wait.count,
                                call.wait.list, call.want_event ? &call.event : NULL)
            : clgpu_lower_bound(context, request.spec_pointer, positions.pointer, needles.pointer,
                                haystack.pointer, request.options_pointer, call.wait.count,
                                call.wait.list, call.want_event ? &call.event : NULL);
  finish_algo_call(&call, status, STATUS_SET(search_statuses, 1));
}
