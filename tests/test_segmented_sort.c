/* clgpu_segmented_sort (sort.h) against a host reference: each segment
 * [offsets[k], offsets[k + 1]) sorted stably on the host (a bottom-up merge
 * sort of indices, test_sort.c's), in the order of the spec, the keys
 * outside every segment where they were.
 *
 * The natural order is test_sort.c's: integers by value, floats by their
 * bits with every NaN after +inf whatever its sign (NaNs among themselves
 * by their bits without the sign), -0 before +0, half by hand over 16 bits;
 * descending inverts it, still stably. A comparator sorts by the same
 * comparison on the host; custom keys are a struct { float x; int id; }
 * compared by x.
 *
 * Every case runs through one runner (run_case): keys, values and offsets
 * each sit in a guarded region of their own, with random bytes around and
 * between their elements. After the call the runner compares the keys and
 * values with the reference (values are the input indices or random bytes,
 * so an unstable order of equal keys shows), the offsets with what they
 * were, every other byte of the regions with its initial contents, and
 * the guards. Options alternate between CLGPU_ALGORITHM_AUTO and MERGE
 * (a segmented sort always merges).
 *
 * Tests:
 * - host_reference: the reference itself, on small hand-checked cases.
 * - segment_shapes: uint32 keys with their indices as values, both shapes,
 *   n in {0, 1, 17, 1000, 70000}; one segment of everything, segments of
 *   one key, of 16 (the bench case), of 15, 17, 31, 32, 33, 1000 and 4097
 *   keys (around merge_block, 16, and its doublings), random lengths 0 to
 *   40 with empty segments among them, one giant segment among tiny ones,
 *   offsets[0] > 0 and offsets[S] < n, S = 0, and keys with many
 *   duplicates; uint and ulong offsets alternating.
 * - segments_at_a_ranges_end: sizes and short segments that put a segment
 *   across the start of the last work-item's range of block starts and
 *   another inside it.
 * - every_key_type(T): each built-in type in the natural order (floats with
 *   NaNs of both signs, -0 and +0), ascending and descending, one of them
 *   with keys alone and the other with values (1, 2, 4, 8 or 16 bytes,
 *   rotating over the types), uint and ulong offsets, both shapes.
 * - comparators_and_custom_keys: "a < b" and "a > b" over float keys (and
 *   "a < b" descending), struct keys with key_size and declarations, with
 *   and without 16-byte values.
 * - strided_views: keys of stride 2 and -1 (staged), values and offsets of
 *   strides 2, -1 and -2.
 * - workspaces: the report, a workspace of the queried size (no allocation
 *   in the call), one wrapped over a guarded region, _upto serving smaller
 *   calls, and the refusals: too small, made for clgpu_sort, for the other
 *   shape, over the offsets.
 * - bad_offsets_stay_in_bounds: descending offsets, offsets past n, random
 *   ones: the call succeeds and writes nothing outside the keys and values
 *   (the order inside them means nothing). Runs under Oclgrind too, which
 *   reports out-of-bounds accesses.
 * - wait_list_and_event: a user event holds the call back; no event asked.
 * - misuse: each bad argument of the call and the size queries, its status,
 *   a message naming clgpu_segmented_sort, no event, nothing written.
 *
 * Under Oclgrind sizes stop at 4099, each concern keeps a few rows, and
 * calls that would make their own scratch take a workspace made at the
 * start instead (oclgrind_workspaces: a false report of Oclgrind's
 * uninitialized-value check). On POCL the programs (one per key width and
 * kind, order, value width, shape and comparator) are most of a cold run.
 * One context serves the file (group setup), so each program is built once.
 * CLGPU_TEST_SEED replays a run; CLGPU_TEST_FILTER picks tests. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "guard.h"
#include "support.h"
#include "views.h"

/* ---- the device ---- */

static clgpu_context *shared_context;
static int oclgrind;

static const clgpu_shape both_shapes[] = {CLGPU_SHAPE_CHUNKED, CLGPU_SHAPE_TILED};

/* Oclgrind 21.10's uninitialized-value check keeps the shadow of a released
 * buffer and gives it to the next buffer that gets the same index, at the
 * old size: a kernel's stores past that size into the new buffer are not
 * recorded, and a later kernel's loads of them are reported as
 * uninitialized (a false report; tools/oclgrind-run fails on it). A
 * segmented sort's scratch, made by the call, is such a buffer: the depth
 * kernel writes pass_state there and the passes read it. Under Oclgrind the
 * calls that would make their own scratch take one of these workspaces
 * instead (one a shape; each serves every call of this file there: up to
 * 10000 keys of up to 8 bytes, strided, with up to 16 bytes of values),
 * whose shadow a host write of their whole region sets to its full size. */
static clgpu_workspace *oclgrind_workspaces[2];

/* A workspace's region written from the host (zeros), so that Oclgrind's
 * shadow of it has its size (see above). */
static void settle_shadow(clgpu_workspace *workspace) {
  cl_mem buffer = NULL;
  size_t offset = 0, size = 0;
  assert_status(clgpu_workspace_region(workspace, &buffer, &offset, &size), CLGPU_SUCCESS);
  if (!buffer || size == 0) return;
  /* Oclgrind sizes the shadow by the write, from the buffer's start: the
   * workspaces clgpu_workspace_create makes start there (offset 0). */
  assert_int_equal(offset, 0);
  unsigned char *zeros = calloc(1, size);
  assert_non_null(zeros);
  assert_int_equal(clEnqueueWriteBuffer(clgpu_context_queue(shared_context), buffer, CL_TRUE, 0,
                                        size, zeros, 0, NULL, NULL),
                   CL_SUCCESS);
  free(zeros);
}

static void make_oclgrind_workspaces(void) {
  const size_t n = 10000;
  cl_mem scratch = NULL;
  assert_status(clgpu_buffer_create(shared_context, CL_MEM_READ_WRITE, 4 * n * 8 + 64, &scratch),
                CLGPU_SUCCESS);
  ptrdiff_t two = 2;
  clgpu_array keys, values, offsets;
  assert_status(clgpu_array_strided(scratch, 0, CLGPU_TYPE_UINT64, 1, &n, &two, &keys),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_strided(scratch, 2 * n * 8, CLGPU_TYPE_UINT64, 1, &n, &two, &values),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(scratch, 4 * n * 8, CLGPU_TYPE_UINT32, 2, &offsets), CLGPU_SUCCESS);
  for (size_t h = 0; h < 2; h++) {
    clgpu_sort_options options = {CLGPU_ALGORITHM_AUTO, both_shapes[h], NULL};
    clgpu_workspace_size report;
    assert_status(clgpu_segmented_sort_workspace_size(shared_context, NULL, &keys, &values,
                                                      &offsets, &options, &report),
                  CLGPU_SUCCESS);
    assert_status(clgpu_workspace_create(shared_context, &report, &oclgrind_workspaces[h]),
                  CLGPU_SUCCESS);
    settle_shadow(oclgrind_workspaces[h]);
  }
  clgpu_buffer_release(shared_context, scratch);
}

/* The workspace a call of `shape` takes under Oclgrind when it has none of
 * its own; NULL elsewhere. */
static clgpu_workspace *oclgrind_workspace(clgpu_shape shape) {
  if (!oclgrind) return NULL;
  return oclgrind_workspaces[shape == CLGPU_SHAPE_TILED ? 1 : 0];
}

static int group_setup(void **state) {
  (void)state;
  test_seed();
  /* Without clgpu's binary cache (test_disk_cache covers it), as in
   * test_sort.c. */
  clgpu_context_options options;
  memset(&options, 0, sizeof options);
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  shared_context = test_context(&options);
  oclgrind = test_on_oclgrind(shared_context);
  if (oclgrind) make_oclgrind_workspaces();
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  for (size_t h = 0; h < 2; h++) {
    clgpu_workspace_destroy(oclgrind_workspaces[h]);
    oclgrind_workspaces[h] = NULL;
  }
  clgpu_context_destroy(shared_context);
  shared_context = NULL;
  return 0;
}

/* ---- key types ---- */

enum { KIND_UNSIGNED, KIND_SIGNED, KIND_FLOAT };

typedef struct key_type {
  const char *name;
  clgpu_type type;
  size_t size;
  int kind;
  test_type host; /* how data.h generates and loads it (half: as uint16) */
  int is_half;
} key_type;

enum {
  KEY_INT8,
  KEY_UINT8,
  KEY_INT16,
  KEY_UINT16,
  KEY_INT32,
  KEY_UINT32,
  KEY_INT64,
  KEY_UINT64,
  KEY_FLOAT,
  KEY_DOUBLE,
  KEY_HALF,
  KEY_TYPE_COUNT
};

static const key_type key_types[KEY_TYPE_COUNT] = {
    {"int8", CLGPU_TYPE_INT8, 1, KIND_SIGNED, TEST_INT8, 0},
    {"uint8", CLGPU_TYPE_UINT8, 1, KIND_UNSIGNED, TEST_UINT8, 0},
    {"int16", CLGPU_TYPE_INT16, 2, KIND_SIGNED, TEST_INT16, 0},
    {"uint16", CLGPU_TYPE_UINT16, 2, KIND_UNSIGNED, TEST_UINT16, 0},
    {"int32", CLGPU_TYPE_INT32, 4, KIND_SIGNED, TEST_INT32, 0},
    {"uint32", CLGPU_TYPE_UINT32, 4, KIND_UNSIGNED, TEST_UINT32, 0},
    {"int64", CLGPU_TYPE_INT64, 8, KIND_SIGNED, TEST_INT64, 0},
    {"uint64", CLGPU_TYPE_UINT64, 8, KIND_UNSIGNED, TEST_UINT64, 0},
    {"float", CLGPU_TYPE_FLOAT, 4, KIND_FLOAT, TEST_FLOAT, 0},
    {"double", CLGPU_TYPE_DOUBLE, 8, KIND_FLOAT, TEST_DOUBLE, 0},
    {"half", CLGPU_TYPE_HALF, 2, KIND_FLOAT, TEST_UINT16, 1},
};

/* cmocka's state for the per-type tests. */
static unsigned key_states[KEY_TYPE_COUNT] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

/* The unsigned test type of an element size, to move raw bits. */
static test_type raw_type(size_t size) {
  switch (size) {
    case 1:
      return TEST_UINT8;
    case 2:
      return TEST_UINT16;
    case 4:
      return TEST_UINT32;
    default:
      return TEST_UINT64;
  }
}

static uint64_t width_mask(size_t size) {
  return size >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * size)) - 1;
}

static uint64_t infinity_of(const key_type *t) {
  return t->size == 2   ? UINT64_C(0x7c00)
         : t->size == 4 ? UINT64_C(0x7f800000)
                        : UINT64_C(0x7ff0000000000000);
}

static int bits_are_nan(const key_type *t, uint64_t bits) {
  if (t->kind != KIND_FLOAT) return 0;
  uint64_t top = (uint64_t)1 << (8 * t->size - 1);
  return (bits & ~top) > infinity_of(t);
}

/* ---- the host reference ---- */

/* The ascending order image of a key's bits: test_order_key, with NaNs
 * canonicalised (sign cleared) and half done by hand over 16 bits. */
static uint64_t order_image(const key_type *t, uint64_t bits) {
  uint64_t top = (uint64_t)1 << (8 * t->size - 1);
  if (bits_are_nan(t, bits)) bits &= ~top;
  if (t->is_half) return (bits & top) ? (~bits & 0xffffu) : (bits | top);
  unsigned char element[8];
  test_store_bits(element, 0, t->host, bits);
  return test_order_key(element, t->host);
}

/* The image a sort orders by: descending inverts it. */
static uint64_t sort_key(const key_type *t, uint64_t bits, int descending) {
  uint64_t image = order_image(t, bits);
  return descending ? ~image & width_mask(t->size) : image;
}

/* Whether element a must come before element b (strictly). */
typedef int (*precedes_fn)(const void *context, size_t a, size_t b);

/* The stable sorting permutation of n elements under `precedes`: a
 * bottom-up merge sort of indices that takes the right run's element only
 * when it strictly precedes the left one's. */
static void stable_permutation(size_t n, precedes_fn precedes, const void *context,
                               uint32_t *permutation) {
  uint32_t *scratch = malloc((n ? n : 1) * sizeof *scratch);
  assert_non_null(scratch);
  for (size_t i = 0; i < n; i++) permutation[i] = (uint32_t)i;
  uint32_t *from = permutation, *to = scratch;
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t low = 0; low < n; low += 2 * width) {
      size_t middle = low + width < n ? low + width : n;
      size_t high = low + 2 * width < n ? low + 2 * width : n;
      size_t left = low, right = middle, out = low;
      while (left < middle && right < high) {
        to[out++] = precedes(context, from[right], from[left]) ? from[right++] : from[left++];
      }
      while (left < middle) to[out++] = from[left++];
      while (right < high) to[out++] = from[right++];
    }
    uint32_t *swap = from;
    from = to;
    to = swap;
  }
  if (from != permutation) memcpy(permutation, from, n * sizeof *permutation);
  free(scratch);
}

/* `precedes` over the elements from `base` on. */
typedef struct shifted {
  precedes_fn precedes;
  const void *context;
  size_t base;
} shifted;

static int shifted_precedes(const void *context, size_t a, size_t b) {
  const shifted *s = context;
  return s->precedes(s->context, s->base + a, s->base + b);
}

/* The reference of a segmented sort as a permutation of n positions: each
 * position outside the segments keeps its element; segment k,
 * [offsets[k], offsets[k + 1]), gets the stable permutation of its own
 * elements. The offsets (count of them) must be ascending and at most n. */
static void segmented_permutation(size_t n, const uint64_t *offsets, size_t count,
                                  precedes_fn precedes, const void *context,
                                  uint32_t *permutation) {
  for (size_t i = 0; i < n; i++) permutation[i] = (uint32_t)i;
  uint32_t *local = malloc((n ? n : 1) * sizeof *local);
  assert_non_null(local);
  for (size_t k = 0; k + 1 < count; k++) {
    size_t start = (size_t)offsets[k], stop = (size_t)offsets[k + 1];
    assert_true(start <= stop && stop <= n);
    shifted s = {precedes, context, start};
    stable_permutation(stop - start, shifted_precedes, &s, local);
    for (size_t j = 0; j < stop - start; j++) permutation[start + j] = (uint32_t)(start + local[j]);
  }
  free(local);
}

static int key_precedes(const void *context, size_t a, size_t b) {
  const uint64_t *keys = context;
  return keys[a] < keys[b];
}

/* The order images of n built-in keys (raw bytes of type t). */
static uint64_t *order_keys(const key_type *t, const unsigned char *keys, size_t n,
                            int descending) {
  uint64_t *order = malloc((n ? n : 1) * sizeof *order);
  assert_non_null(order);
  for (size_t i = 0; i < n; i++) {
    order[i] = sort_key(t, test_load_bits(keys, i, raw_type(t->size)), descending);
  }
  return order;
}

/* Comparators on the host, over float x of element i. */
typedef enum compare_kind {
  COMPARE_NONE,    /* built-in keys in the natural order */
  COMPARE_LESS,    /* float keys, "a < b" */
  COMPARE_GREATER, /* float keys, "a > b" */
  COMPARE_POINT,   /* struct { float x; int id; } keys, "a.x < b.x" */
} compare_kind;

typedef struct float_reference {
  const float *x;
  int greater;
  int descending;
} float_reference;

static int float_precedes(const void *context, size_t a, size_t b) {
  const float_reference *r = context;
  float xa = r->x[a], xb = r->x[b];
  int before = r->greater ? xa > xb : xa < xb;
  int after = r->greater ? xb > xa : xb < xa;
  /* Descending: b precedes a in the comparator's order. */
  return r->descending ? after : before;
}

/* out[i] = in[permutation[i]] for elements of `size` bytes. */
static void apply_permutation(const unsigned char *in, const uint32_t *permutation, size_t n,
                              size_t size, unsigned char *out) {
  for (size_t i = 0; i < n; i++) memcpy(out + i * size, in + (size_t)permutation[i] * size, size);
}

/* ---- data ---- */

/* Half's specials as bits: ±0, ±inf, NaNs of both signs and several
 * payloads, denormals, the smallest normal, ±65504, ±1. */
static const uint16_t half_specials[] = {
    0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0xfc01, 0x7d23, 0x7fff, 0xffff,
    0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x7bff, 0xfbff, 0x3c00, 0xbc00,
};

/* The half with a given ascending order key. */
static uint16_t half_of_order_key(uint64_t key) {
  key &= 0xffffu;
  return (uint16_t)((key & 0x8000u) ? (key ^ 0x8000u) : (~key & 0xffffu));
}

/* n keys of type t from a distribution (half as test_sort.c makes them:
 * uint16 data read as order keys, the specials list mixed in). */
static void generate_keys(const key_type *t, test_distribution distribution, size_t parameter,
                          size_t n, uint64_t seed, unsigned char *out) {
  if (!t->is_half) {
    test_generate(out, n, t->host, distribution, seed, parameter);
    return;
  }
  if (distribution == TEST_FLOAT_SPECIALS) {
    test_generate(out, n, TEST_UINT16, TEST_UNIFORM, seed, 0);
    size_t specials = sizeof half_specials / sizeof half_specials[0];
    test_rng rng;
    test_rng_init(&rng, seed ^ 0x5eed);
    for (size_t i = 0; i < n; i++) {
      if (i < specials || test_rng_below(&rng, 2)) {
        test_store_bits(out, i, TEST_UINT16, half_specials[i % specials]);
      }
    }
    for (size_t i = n; i > 1; i--) { /* shuffle */
      size_t j = (size_t)test_rng_below(&rng, i);
      uint16_t a, b;
      memcpy(&a, out + 2 * (i - 1), 2);
      memcpy(&b, out + 2 * j, 2);
      memcpy(out + 2 * (i - 1), &b, 2);
      memcpy(out + 2 * j, &a, 2);
    }
    return;
  }
  test_generate(out, n, TEST_UINT16, distribution, seed, parameter);
  for (size_t i = 0; i < n; i++) {
    test_store_bits(out, i, TEST_UINT16, half_of_order_key(test_load_bits(out, i, TEST_UINT16)));
  }
}

/* n floats without NaNs (a comparator over NaNs is no strict weak order):
 * NaNs from the distribution become finite by clearing the exponent's top
 * bit. -0 and +0 stay, and compare equal under "a < b". */
static void finite_floats(test_distribution distribution, size_t parameter, size_t n, uint64_t seed,
                          float *out) {
  test_generate(out, n, TEST_FLOAT, distribution, seed, parameter);
  for (size_t i = 0; i < n; i++) {
    if (isnan(out[i])) {
      uint32_t bits;
      memcpy(&bits, &out[i], 4);
      bits &= ~UINT32_C(0x40000000);
      memcpy(&out[i], &bits, 4);
    }
  }
}

/* ---- segment layouts ---- */

typedef enum layout_kind {
  LAYOUT_ONE,        /* {0, n}: one segment of everything */
  LAYOUT_SINGLES,    /* 0, 1, ..., n: every key a segment */
  LAYOUT_FIXED,      /* segments of `length` keys, the last one shorter */
  LAYOUT_RANDOM,     /* lengths 0 to 40, more empty segments among them */
  LAYOUT_GIANT_TINY, /* tiny segments (0 to 3 keys), one of n / 2, tiny again */
  LAYOUT_INNER,      /* offsets[0] > 0 and offsets[S] < n, random lengths between */
  LAYOUT_NONE,       /* S = 0: one offset, n / 3 */
  LAYOUT_PHASED,     /* a first segment of length - 2 keys, then segments of `length` */
  /* Offsets that break the rules: the order means nothing. */
  LAYOUT_DESCENDING, /* n down to 0 in random steps */
  LAYOUT_PAST_N,     /* ascending past n, up to the type's largest value */
  LAYOUT_GARBAGE,    /* random values, most below 2n, some anywhere */
} layout_kind;

typedef struct layout {
  layout_kind kind;
  size_t length; /* LAYOUT_FIXED's */
} layout;

static int layout_is_valid(layout l) { return l.kind < LAYOUT_DESCENDING; }

static void describe_layout(layout l, char *text, size_t size) {
  static const char *const names[] = {
      "one segment",         "segments of 1",    "fixed",
      "random lengths 0-40", "giant among tiny", "inside [a, b) of n",
      "no segment (S = 0)",  "phased",           "descending offsets",
      "offsets past n",      "garbage offsets",
  };
  if (l.kind == LAYOUT_FIXED) {
    snprintf(text, size, "segments of %zu", l.length);
  } else if (l.kind == LAYOUT_PHASED) {
    snprintf(text, size, "one segment of %zu, then segments of %zu", l.length - 2, l.length);
  } else {
    snprintf(text, size, "%s", names[l.kind]);
  }
}

/* A growing list of offsets. */
typedef struct offset_list {
  uint64_t *values;
  size_t count, capacity;
} offset_list;

static void push_offset(offset_list *list, uint64_t value) {
  if (list->count == list->capacity) {
    list->capacity = list->capacity ? 2 * list->capacity : 64;
    list->values = realloc(list->values, list->capacity * sizeof *list->values);
    assert_non_null(list->values);
  }
  list->values[list->count++] = value;
}

/* Random segments from `from` up to `to`: lengths 0 to 40, and an empty
 * segment more about one time in five; every `long_every`th (0: never) up
 * to 300 keys. */
static void push_random_segments(offset_list *list, test_rng *rng, size_t from, size_t to,
                                 size_t long_every) {
  size_t at = from, k = 0;
  while (at < to) {
    if (test_rng_below(rng, 5) == 0) push_offset(list, at); /* an empty segment */
    size_t length = (size_t)test_rng_below(rng, 41);
    if (long_every && ++k % long_every == 0) length = (size_t)test_rng_below(rng, 301);
    at = at + length < to ? at + length : to;
    push_offset(list, at);
  }
}

/* The S + 1 offsets of a layout over n keys (malloc'd), their count in
 * *count; `top` is the offsets type's largest value. */
static uint64_t *make_offsets(layout l, size_t n, uint64_t seed, uint64_t top, size_t *count) {
  offset_list list = {NULL, 0, 0};
  test_rng rng;
  test_rng_init(&rng, seed);
  switch (l.kind) {
    case LAYOUT_ONE:
      push_offset(&list, 0);
      push_offset(&list, n);
      break;
    case LAYOUT_SINGLES:
      for (size_t i = 0; i <= n; i++) push_offset(&list, i);
      break;
    case LAYOUT_FIXED:
      push_offset(&list, 0);
      for (size_t at = 0; at < n;) {
        at = at + l.length < n ? at + l.length : n;
        push_offset(&list, at);
      }
      if (list.count == 1) push_offset(&list, n);
      break;
    case LAYOUT_RANDOM:
      push_offset(&list, 0);
      push_offset(&list, 0); /* an empty first segment */
      push_random_segments(&list, &rng, 0, n, 0);
      push_offset(&list, n); /* an empty last segment */
      break;
    case LAYOUT_GIANT_TINY: {
      size_t giant_from = n / 4, giant_to = n / 4 + n / 2;
      push_offset(&list, 0);
      for (size_t at = 0; at < giant_from;) {
        size_t length = (size_t)test_rng_below(&rng, 4);
        at = at + length < giant_from ? at + length : giant_from;
        push_offset(&list, at);
      }
      push_offset(&list, giant_to);
      for (size_t at = giant_to; at < n;) {
        size_t length = (size_t)test_rng_below(&rng, 4);
        at = at + length < n ? at + length : n;
        push_offset(&list, at);
      }
      if (list.values[list.count - 1] != n) push_offset(&list, n);
      break;
    }
    case LAYOUT_INNER: {
      size_t first = n / 7 + (n > 2 ? 1 : 0);
      size_t last = n - n / 5 - (n > 2 ? 1 : 0);
      if (last < first) last = first;
      push_offset(&list, first);
      push_random_segments(&list, &rng, first, last, 7);
      if (list.count == 1) push_offset(&list, last);
      break;
    }
    case LAYOUT_NONE:
      push_offset(&list, n / 3);
      break;
    case LAYOUT_PHASED:
      push_offset(&list, 0);
      for (size_t at = l.length - 2; at < n; at += l.length) push_offset(&list, at);
      push_offset(&list, n);
      break;
    case LAYOUT_DESCENDING: {
      size_t at = n;
      push_offset(&list, at);
      while (at > 0) {
        size_t step = 1 + (size_t)test_rng_below(&rng, 40);
        at = at > step ? at - step : 0;
        push_offset(&list, at);
      }
      break;
    }
    case LAYOUT_PAST_N: {
      push_offset(&list, 0);
      push_random_segments(&list, &rng, 0, n / 2, 5);
      /* From n / 2 on: steps past n, then the largest values. */
      uint64_t at = n / 2;
      while (at < 3 * (uint64_t)n + 10) {
        at += 1 + test_rng_below(&rng, 200);
        push_offset(&list, at);
      }
      push_offset(&list, top - 1);
      push_offset(&list, top);
      push_offset(&list, top);
      break;
    }
    case LAYOUT_GARBAGE: {
      size_t segments = n / 8 + 2;
      for (size_t k = 0; k <= segments; k++) {
        uint64_t pick = test_rng_below(&rng, 8);
        uint64_t value = pick < 5   ? test_rng_below(&rng, 2 * (uint64_t)n + 1)
                         : pick < 7 ? test_rng_next64(&rng) & top
                                    : top - test_rng_below(&rng, 3);
        push_offset(&list, value);
      }
      break;
    }
  }
  *count = list.count;
  return list.values;
}

/* ---- reporting ---- */

/* The first index at which two arrays of n elements of `size` bytes
 * differ, and how many do; n when none. */
static size_t first_difference(const unsigned char *a, const unsigned char *b, size_t n,
                               size_t size, size_t *differing) {
  size_t first = n, count = 0;
  for (size_t i = 0; i < n; i++) {
    if (memcmp(a + i * size, b + i * size, size) != 0) {
      if (first == n) first = i;
      count++;
    }
  }
  if (differing) *differing = count;
  return first;
}

/* The bits of an element of up to 16 bytes, as hex, into text. */
static void element_hex(const unsigned char *element, size_t size, char *text, size_t length) {
  size_t used = 0;
  text[0] = '\0';
  for (size_t b = size; b-- > 0 && used + 3 < length;) {
    used += (size_t)snprintf(text + used, length - used, "%02x", element[b]);
  }
}

/* The segment (by index in the offsets) holding position i, or -1. */
static long segment_of(const uint64_t *offsets, size_t count, size_t i) {
  for (size_t k = 0; k + 1 < count; k++) {
    if (offsets[k] <= i && i < offsets[k + 1]) return (long)k;
  }
  return -1;
}

/* Fail unless n elements equal the expected ones, naming the case, the run
 * seed, the first differing index with both elements' bits, its segment
 * and the input index the reference put there. */
static void expect_elements(const unsigned char *actual, const unsigned char *expected, size_t n,
                            size_t size, const uint32_t *permutation, const uint64_t *offsets,
                            size_t offset_count, const char *what, const char *label) {
  size_t differing = 0;
  size_t first = first_difference(actual, expected, n, size, &differing);
  if (first == n) return;
  char got[40], want[40], where[120] = "";
  element_hex(actual + first * size, size, got, sizeof got);
  element_hex(expected + first * size, size, want, sizeof want);
  if (offsets) {
    long k = segment_of(offsets, offset_count, first);
    if (k < 0) {
      snprintf(where, sizeof where, ", outside every segment");
    } else {
      snprintf(where, sizeof where, ", in segment %ld [%llu, %llu)", k,
               (unsigned long long)offsets[k], (unsigned long long)offsets[k + 1]);
    }
  }
  fail_msg(
      "%s [%s] (run seed %llu, CLGPU_TEST_SEED replays it): %s differ at index %zu first (%zu of "
      "%zu differ)%s: got 0x%s, expected 0x%s%s%u%s",
      label, what, (unsigned long long)test_seed(), what, first, differing, n, where, got, want,
      permutation ? " (input index " : "", permutation ? permutation[first] : 0,
      permutation ? ")" : "");
}

/* Fail unless a whole region equals its model byte for byte. */
static void expect_region(const unsigned char *actual, const unsigned char *model, size_t bytes,
                          const char *what, const char *label) {
  size_t first = first_difference(actual, model, bytes, 1, NULL);
  if (first == bytes) return;
  fail_msg(
      "%s: %s region byte %zu of %zu changed: 0x%02x, expected 0x%02x (a byte outside the "
      "view's elements, or an element's)",
      label, what, first, bytes, actual[first], model[first]);
}

static void expect_success(clgpu_status status, const char *label) {
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s: %s (%d): %s", label, clgpu_status_name(status), (int)status, clgpu_last_error());
  }
}

/* ---- guarded placement ---- */

/* A guarded region holding a 1-D view of n elements of `size` bytes with a
 * stride, random bytes elsewhere, the logical elements scattered in. */
typedef struct placed {
  view_spec spec;
  size_t size;  /* bytes of one logical element */
  size_t bytes; /* of the region */
  unsigned char *initial;
  test_guarded guarded;
} placed;

static placed place_elements(size_t n, size_t size, ptrdiff_t stride, const unsigned char *logical,
                             uint64_t seed) {
  placed p;
  memset(&p, 0, sizeof p);
  p.spec.rank = 1;
  p.spec.shape[0] = n;
  p.spec.strides[0] = stride;
  p.size = size;
  p.bytes = spec_fit(&p.spec, 3) * size;
  p.initial = random_bytes(p.bytes, seed);
  scatter(p.initial, &p.spec, size, logical);
  p.guarded = test_guarded_create(shared_context, p.bytes, p.initial);
  return p;
}

static void release_placed(placed *p) {
  test_guarded_release(&p->guarded);
  free(p->initial);
}

/* The region after the call: fail unless it is `initial` with `expected`
 * scattered in (the logical elements compared first, for a better report),
 * and the guards intact. */
static void check_placed(const placed *p, const unsigned char *expected, size_t n,
                         const uint32_t *permutation, const uint64_t *offsets, size_t offset_count,
                         const char *what, const char *label) {
  unsigned char *after = malloc(p->bytes);
  unsigned char *logical = malloc(n * p->size + 1);
  unsigned char *model = malloc(p->bytes);
  assert_non_null(after);
  assert_non_null(logical);
  assert_non_null(model);
  test_guarded_read(shared_context, &p->guarded, after);
  test_guarded_check(shared_context, &p->guarded, label);
  gather(after, &p->spec, p->size, logical);
  expect_elements(logical, expected, n, p->size, permutation, offsets, offset_count, what, label);
  memcpy(model, p->initial, p->bytes);
  scatter(model, &p->spec, p->size, expected);
  expect_region(after, model, p->bytes, what, label);
  free(model);
  free(logical);
  free(after);
}

/* The region after a call whose elements mean nothing: every byte that is
 * not one of the view's elements as it was, and the guards intact. */
static void check_outside(const placed *p, size_t n, const char *what, const char *label) {
  unsigned char *after = malloc(p->bytes);
  unsigned char *logical = malloc(n * p->size + 1);
  unsigned char *model = malloc(p->bytes);
  assert_non_null(after);
  assert_non_null(logical);
  assert_non_null(model);
  test_guarded_read(shared_context, &p->guarded, after);
  test_guarded_check(shared_context, &p->guarded, label);
  gather(after, &p->spec, p->size, logical);
  memcpy(model, p->initial, p->bytes);
  scatter(model, &p->spec, p->size, logical);
  expect_region(after, model, p->bytes, what, label);
  free(model);
  free(logical);
  free(after);
}

/* The device view of a placed values region: elements of their own size,
 * or a CLGPU_TYPE_UINT64 view of 2n elements for 16-byte values (which
 * must then be contiguous). */
static clgpu_array values_view(const placed *p) {
  if (p->size == 16) {
    assert_int_equal(p->spec.strides[0], 1);
    clgpu_array view;
    assert_status(clgpu_array_1d(p->guarded.buffer, p->guarded.offset + p->spec.offset * 16,
                                 CLGPU_TYPE_UINT64, 2 * p->spec.shape[0], &view),
                  CLGPU_SUCCESS);
    return view;
  }
  return make_view(&p->guarded, test_cl_type(raw_type(p->size)), &p->spec);
}

/* ---- one segmented sort, checked ---- */

static const char point_declarations[] = "typedef struct { float x; int id; } point;";

typedef struct seg_case {
  const char *what; /* the concern, for the report */
  unsigned key;     /* index into key_types (COMPARE_NONE) */
  compare_kind compare;
  size_t n;
  layout layout;
  test_distribution distribution;
  size_t parameter;
  clgpu_shape shape;
  int descending;
  size_t value_bytes; /* 0: keys only; 16: a CLGPU_TYPE_UINT64 view of 2n elements */
  int index_values;   /* values are the keys' input indices (uint32): stability */
  ptrdiff_t key_stride, value_stride, offsets_stride;
  clgpu_type offsets_type; /* CLGPU_TYPE_UINT32 or CLGPU_TYPE_UINT64 */
  int null_options;        /* NULL options (AUTO shape, no workspace) */
  clgpu_workspace *workspace;
  int own_scratch; /* no workspace even under Oclgrind (the call allocates) */
  int gated;       /* wait on a user event set after the call */
  int no_event;    /* ask for no event */
} seg_case;

static seg_case base_case(unsigned key, size_t n, layout l, clgpu_shape shape) {
  seg_case c;
  memset(&c, 0, sizeof c);
  c.what = "keys";
  c.key = key;
  c.n = n;
  c.layout = l;
  c.distribution = TEST_UNIFORM;
  c.shape = shape;
  c.key_stride = 1;
  c.value_stride = 1;
  c.offsets_stride = 1;
  c.offsets_type = CLGPU_TYPE_UINT32;
  return c;
}

static size_t case_key_size(const seg_case *c) {
  if (c->compare == COMPARE_POINT) return 8;
  if (c->compare != COMPARE_NONE) return 4;
  return key_types[c->key].size;
}

static size_t case_value_size(const seg_case *c) { return c->index_values ? 4 : c->value_bytes; }

static void describe_case(const seg_case *c, char *label, size_t size) {
  static const char *const compares[] = {"", " \"a < b\"", " \"a > b\"",
                                         " (struct point, \"a.x < b.x\")"};
  char distribution[64], segments[64], values[64] = "", strides[96] = "";
  if (test_distribution_has_parameter(c->distribution)) {
    snprintf(distribution, sizeof distribution, "%s(%zu)", test_distribution_name(c->distribution),
             c->parameter);
  } else {
    snprintf(distribution, sizeof distribution, "%s", test_distribution_name(c->distribution));
  }
  describe_layout(c->layout, segments, sizeof segments);
  if (c->value_bytes || c->index_values) {
    snprintf(values, sizeof values, " values=%zu bytes%s", case_value_size(c),
             c->index_values ? " (input indices)" : "");
  }
  if (c->key_stride != 1 || c->value_stride != 1 || c->offsets_stride != 1) {
    snprintf(strides, sizeof strides, " strides keys=%td values=%td offsets=%td", c->key_stride,
             c->value_stride, c->offsets_stride);
  }
  snprintf(label, size,
           "segmented sort %s: n=%zu keys=%s%s layout=%s offsets=%s distribution=%s shape=%s "
           "order=%s%s%s%s%s%s",
           c->what, c->n, c->compare == COMPARE_NONE ? key_types[c->key].name : "float",
           compares[c->compare], segments, clgpu_type_cl_name(c->offsets_type), distribution,
           c->null_options ? "auto (NULL options)" : clgpu_shape_name(c->shape),
           c->descending ? "descending" : "ascending", values, strides,
           c->workspace ? " with a workspace" : "", c->gated ? " waiting on a user event" : "",
           c->no_event ? " without an event" : "");
}

/* Sort on the device and compare with the reference (for valid offsets),
 * or check only that nothing outside the views changed (for offsets that
 * break the rules). */
static void run_case(const seg_case *c) {
  size_t n = c->n, ksize = case_key_size(c), vsize = case_value_size(c);
  char label[700];
  describe_case(c, label, sizeof label);
  uint64_t seed = test_case_seed(label);
  int valid = layout_is_valid(c->layout);

  /* Keys, and what the reference compares. */
  unsigned char *keys = malloc(n * ksize + 1);
  assert_non_null(keys);
  float *x = NULL;
  uint64_t *order = NULL;
  if (c->compare == COMPARE_NONE) {
    generate_keys(&key_types[c->key], c->distribution, c->parameter, n, seed, keys);
    order = order_keys(&key_types[c->key], keys, n, c->descending);
  } else {
    x = malloc((n ? n : 1) * sizeof *x);
    assert_non_null(x);
    finite_floats(c->distribution, c->parameter, n, seed, x);
    for (size_t i = 0; i < n; i++) {
      memcpy(keys + i * ksize, &x[i], 4);
      if (c->compare == COMPARE_POINT) {
        int32_t id = (int32_t)i;
        memcpy(keys + i * ksize + 4, &id, 4);
      }
    }
  }
  float_reference floats = {x, c->compare == COMPARE_GREATER, c->descending};

  /* Offsets. */
  size_t osize = clgpu_type_size(c->offsets_type);
  uint64_t top = osize == 4 ? UINT32_MAX : UINT64_MAX;
  size_t offset_count = 0;
  uint64_t *offsets = make_offsets(c->layout, n, seed ^ 0x0ff5u, top, &offset_count);
  unsigned char *offset_bytes = malloc(offset_count * osize);
  assert_non_null(offset_bytes);
  for (size_t k = 0; k < offset_count; k++) {
    test_store_bits(offset_bytes, k, raw_type(osize), offsets[k]);
  }

  /* The reference. */
  uint32_t *permutation = malloc((n ? n : 1) * sizeof *permutation);
  unsigned char *expected_keys = malloc(n * ksize + 1);
  assert_non_null(permutation);
  assert_non_null(expected_keys);
  if (valid) {
    if (order) {
      segmented_permutation(n, offsets, offset_count, key_precedes, order, permutation);
    } else {
      segmented_permutation(n, offsets, offset_count, float_precedes, &floats, permutation);
    }
    apply_permutation(keys, permutation, n, ksize, expected_keys);
  }

  placed key_region = place_elements(n, ksize, c->key_stride, keys, seed ^ 0x1111u);
  clgpu_array key_view;
  if (c->compare == COMPARE_POINT) {
    assert_int_equal(c->key_stride, 1);
    assert_status(clgpu_array_1d(key_region.guarded.buffer,
                                 key_region.guarded.offset + key_region.spec.offset * ksize,
                                 CLGPU_TYPE_OPAQUE, n * ksize, &key_view),
                  CLGPU_SUCCESS);
  } else {
    clgpu_type type = c->compare == COMPARE_NONE ? key_types[c->key].type : CLGPU_TYPE_FLOAT;
    key_view = make_view(&key_region.guarded, type, &key_region.spec);
  }

  unsigned char *values = NULL, *expected_values = NULL;
  placed value_region;
  clgpu_array value_view;
  if (vsize) {
    if (c->index_values) {
      values = malloc(n * 4 + 1);
      assert_non_null(values);
      for (size_t i = 0; i < n; i++) {
        uint32_t index = (uint32_t)i;
        memcpy(values + 4 * i, &index, 4);
      }
    } else {
      values = random_bytes(n * vsize, seed ^ 0x2222u);
    }
    expected_values = malloc(n * vsize + 1);
    assert_non_null(expected_values);
    if (valid) apply_permutation(values, permutation, n, vsize, expected_values);
    value_region = place_elements(n, vsize, c->value_stride, values, seed ^ 0x3333u);
    value_view = values_view(&value_region);
  }

  placed offset_region =
      place_elements(offset_count, osize, c->offsets_stride, offset_bytes, seed ^ 0x4444u);
  clgpu_array offset_view = make_view(&offset_region.guarded, c->offsets_type, &offset_region.spec);

  clgpu_sort_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.descending = c->descending;
  if (c->compare == COMPARE_LESS) spec.compare = "a < b";
  if (c->compare == COMPARE_GREATER) spec.compare = "a > b";
  if (c->compare == COMPARE_POINT) {
    spec.compare = "a.x < b.x";
    spec.key_type = "point";
    spec.declarations = point_declarations;
    spec.key_size = 8;
  }
  clgpu_sort_options options = {CLGPU_ALGORITHM_AUTO, c->shape, c->workspace};
  if (!options.workspace && !c->own_scratch) options.workspace = oclgrind_workspace(c->shape);
  if ((c->n + c->layout.kind) % 3 == 1) options.algorithm = CLGPU_ALGORITHM_MERGE;
  cl_event event = NULL, gate = NULL;
  cl_int err = CL_SUCCESS;
  if (c->gated) {
    gate = clCreateUserEvent(clgpu_context_cl_context(shared_context), &err);
    assert_int_equal(err, CL_SUCCESS);
  }
  clgpu_status status =
      clgpu_segmented_sort(shared_context, &spec, &key_view, vsize ? &value_view : NULL,
                           &offset_view, c->null_options ? NULL : &options, gate ? 1 : 0,
                           gate ? &gate : NULL, c->no_event ? NULL : &event);
  if (status != CLGPU_SUCCESS && gate) clSetUserEventStatus(gate, CL_COMPLETE);
  expect_success(status, label);
  if (c->no_event) {
    assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
  } else {
    if (event == NULL) fail_msg("%s: no event", label);
    if (gate) {
      /* No clFlush before the gate opens: Oclgrind runs the queue on the
       * flushing thread, so a flush would wait for the gate forever. */
      if (test_event_status(event) == CL_COMPLETE) {
        clSetUserEventStatus(gate, CL_COMPLETE);
        fail_msg("%s: the sort completed before its wait list", label);
      }
      assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    }
    assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
    assert_int_equal(test_event_status(event), CL_COMPLETE);
    clReleaseEvent(event);
  }
  if (gate) clReleaseEvent(gate);

  if (valid) {
    check_placed(&key_region, expected_keys, n, permutation, offsets, offset_count, "keys", label);
    if (vsize) {
      check_placed(&value_region, expected_values, n, permutation, offsets, offset_count, "values",
                   label);
    }
  } else {
    check_outside(&key_region, n, "keys", label);
    if (vsize) check_outside(&value_region, n, "values", label);
  }
  check_placed(&offset_region, offset_bytes, offset_count, NULL, NULL, 0, "offsets (unchanged)",
               label);

  release_placed(&offset_region);
  if (vsize) release_placed(&value_region);
  release_placed(&key_region);
  free(expected_values);
  free(values);
  free(expected_keys);
  free(permutation);
  free(offset_bytes);
  free(offsets);
  free(order);
  free(x);
  free(keys);
}

/* ---- the host reference itself ---- */

static void host_reference(void **state) {
  (void)state;
  const key_type *f = &key_types[KEY_FLOAT];
  /* Floats: -inf < -1 < -0 < +0 < 1 < +inf < every NaN, both signs equal. */
  static const uint64_t float_order[] = {0xff800000u, 0xbf800000u, 0x80000001u, 0x80000000u,
                                         0x00000000u, 0x00000001u, 0x3f800000u, 0x7f800000u,
                                         0x7f800001u, 0x7fc00000u, 0x7fffffffu};
  for (size_t i = 1; i < sizeof float_order / sizeof float_order[0]; i++) {
    assert_true(order_image(f, float_order[i - 1]) < order_image(f, float_order[i]));
  }
  assert_true(order_image(f, 0xffc00000u) == order_image(f, 0x7fc00000u));
  /* Half: -inf < -0 < +0 < +inf < NaNs. */
  const key_type *h = &key_types[KEY_HALF];
  static const uint64_t half_order[] = {0xfc00, 0xbc00, 0x8000, 0x0000, 0x3c00, 0x7c00, 0x7e00};
  for (size_t i = 1; i < sizeof half_order / sizeof half_order[0]; i++) {
    assert_true(order_image(h, half_order[i - 1]) < order_image(h, half_order[i]));
  }
  assert_true(order_image(h, 0xfe00) == order_image(h, 0x7e00));

  /* Segments [1, 4), [4, 4), [4, 8) of 10 uint32 keys, position 0 and 8, 9
   * outside: each segment sorted stably, the others where they were. */
  const uint32_t keys[] = {9, 5, 3, 5, 7, 1, 7, 0, 4, 2};
  const uint64_t offsets[] = {1, 4, 4, 8};
  uint32_t permutation[10];
  uint64_t *order = order_keys(&key_types[KEY_UINT32], (const unsigned char *)keys, 10, 0);
  segmented_permutation(10, offsets, 4, key_precedes, order, permutation);
  const uint32_t ascending[] = {0, 2, 1, 3, 7, 5, 4, 6, 8, 9};
  assert_memory_equal(permutation, ascending, sizeof ascending);
  free(order);
  order = order_keys(&key_types[KEY_UINT32], (const unsigned char *)keys, 10, 1);
  segmented_permutation(10, offsets, 4, key_precedes, order, permutation);
  const uint32_t descending[] = {0, 1, 3, 2, 4, 6, 5, 7, 8, 9};
  assert_memory_equal(permutation, descending, sizeof descending);
  free(order);
  /* S = 0: nothing moves. */
  segmented_permutation(10, offsets, 1, key_precedes, keys, permutation);
  for (uint32_t i = 0; i < 10; i++) assert_int_equal(permutation[i], i);

  /* "a < b" over floats keeps -0 and +0 (equal) in input order; "a > b"
   * and descending "a < b" reverse it, stably. */
  const float x[] = {1.0f, -0.0f, 0.0f, -1.0f, 0.0f};
  const uint64_t all[] = {0, 5};
  float_reference less = {x, 0, 0}, greater = {x, 1, 0}, less_descending = {x, 0, 1};
  segmented_permutation(5, all, 2, float_precedes, &less, permutation);
  const uint32_t by_less[] = {3, 1, 2, 4, 0};
  assert_memory_equal(permutation, by_less, sizeof by_less);
  const uint32_t by_greater[] = {0, 1, 2, 4, 3};
  segmented_permutation(5, all, 2, float_precedes, &greater, permutation);
  assert_memory_equal(permutation, by_greater, sizeof by_greater);
  segmented_permutation(5, all, 2, float_precedes, &less_descending, permutation);
  assert_memory_equal(permutation, by_greater, sizeof by_greater);

  /* The layouts: ascending, within [0, n], ending at n where they say so. */
  static const size_t sizes[] = {0, 1, 17, 1000};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    for (int kind = LAYOUT_ONE; kind <= LAYOUT_PHASED; kind++) {
      layout l = {(layout_kind)kind, 16};
      size_t count = 0;
      uint64_t *made = make_offsets(l, sizes[s], 7 + s, UINT32_MAX, &count);
      assert_true(count >= 1);
      for (size_t k = 0; k < count; k++) {
        assert_true(made[k] <= sizes[s]);
        if (k) assert_true(made[k - 1] <= made[k]);
      }
      if (kind != LAYOUT_INNER && kind != LAYOUT_NONE) {
        assert_int_equal(made[0], 0);
        assert_int_equal(made[count - 1], sizes[s]);
      }
      if (kind == LAYOUT_INNER && sizes[s] > 2) {
        assert_true(made[0] > 0);
        assert_true(made[count - 1] < sizes[s]);
      }
      free(made);
    }
  }
}

/* ---- segment shapes ---- */

/* uint32 keys with their indices as values, in both shapes, every layout
 * at every size; distributions with many duplicates (stability shows in the
 * values) on several layouts. */
static void segment_shapes(void **state) {
  (void)state;
  static const struct {
    layout l;
    test_distribution distribution;
    size_t parameter;
  } rows[] = {
      {{LAYOUT_ONE, 0}, TEST_UNIFORM, 0},
      {{LAYOUT_ONE, 0}, TEST_FEW_UNIQUE, 2},
      {{LAYOUT_SINGLES, 0}, TEST_UNIFORM, 0},
      {{LAYOUT_FIXED, 16}, TEST_UNIFORM, 0},
      {{LAYOUT_FIXED, 16}, TEST_FEW_UNIQUE, 4},
      {{LAYOUT_RANDOM, 0}, TEST_UNIFORM, 0},
      {{LAYOUT_RANDOM, 0}, TEST_FEW_UNIQUE, 3},
      {{LAYOUT_FIXED, 15}, TEST_REVERSE_SORTED, 0},
      {{LAYOUT_FIXED, 17}, TEST_UNIFORM, 0},
      {{LAYOUT_FIXED, 31}, TEST_FEW_UNIQUE, 16},
      {{LAYOUT_FIXED, 32}, TEST_ORGAN_PIPE, 0},
      {{LAYOUT_FIXED, 33}, TEST_UNIFORM, 0},
      {{LAYOUT_FIXED, 1000}, TEST_SORTED_1PCT_SWAPS, 0},
      {{LAYOUT_FIXED, 4097}, TEST_UNIFORM, 0},
      {{LAYOUT_FIXED, 4097}, TEST_ALL_EQUAL, 0},
      {{LAYOUT_GIANT_TINY, 0}, TEST_UNIFORM, 0},
      {{LAYOUT_GIANT_TINY, 0}, TEST_FEW_UNIQUE, 2},
      {{LAYOUT_INNER, 0}, TEST_UNIFORM, 0},
      {{LAYOUT_INNER, 0}, TEST_FEW_UNIQUE, 5},
      {{LAYOUT_NONE, 0}, TEST_UNIFORM, 0},
  };
  static const size_t sizes[] = {0, 1, 17, 1000, 70000};
  static const size_t small_sizes[] = {0, 1, 17, 1000, 4099};
  const size_t *list = oclgrind ? small_sizes : sizes;
  size_t row_count = sizeof rows / sizeof rows[0];
  for (size_t r = 0; r < row_count; r++) {
    for (size_t s = 0; s < 5; s++) {
      for (size_t h = 0; h < 2; h++) {
        /* Oclgrind: one shape per row and size, the largest size on every
         * third row. */
        if (oclgrind && (h != (r + s) % 2 || (s == 4 && r % 3 != 0))) continue;
        seg_case c = base_case(KEY_UINT32, list[s], rows[r].l, both_shapes[h]);
        c.what = "segment shapes";
        c.distribution = rows[r].distribution;
        c.parameter = rows[r].parameter;
        c.index_values = 1;
        c.offsets_type = (r + s + h) % 2 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32;
        run_case(&c);
      }
    }
  }
  /* Keys alone, the first rows at the largest size. */
  for (size_t h = 0; h < 2; h++) {
    for (size_t r = 0; r < 6; r++) {
      if (oclgrind && (r + h) % 3) continue;
      seg_case c = base_case(KEY_UINT32, list[oclgrind ? 3 : 4], rows[r].l, both_shapes[h]);
      c.what = "segment shapes, keys only";
      c.distribution = rows[r].distribution;
      c.parameter = rows[r].parameter;
      c.offsets_type = r % 2 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32;
      run_case(&c);
    }
  }
}

/* Short segments where the last work-item's range of block starts ends:
 * a work-item takes the blocks that start in its range (TILED: 4 *
 * merge_block = 64 positions; CHUNKED: n / pieces), and the first one it
 * owns in a segment that began before its range may start past the range's
 * end while later segments still start inside it. Sizes around 64 * 16 + 8
 * and 64 * 78 + 8 with segments of 8 keys (the first of 6) put a segment
 * across the last range's start and another after it; segments of 5 and
 * of 12 and random short ones other phases. Both shapes; on llvmpipe the
 * plan shortens the ranges, which these sizes cover too. */
static void segments_at_a_ranges_end(void **state) {
  (void)state;
  static const layout layouts[] = {
      {LAYOUT_PHASED, 8}, {LAYOUT_PHASED, 5}, {LAYOUT_PHASED, 12}, {LAYOUT_RANDOM, 0}};
  for (size_t h = 0; h < 2; h++) {
    for (size_t n = 1028; n <= 1042; n++) {
      for (size_t l = 0; l < 4; l++) {
        if (l > 0 && (n + l + h) % 3) continue;
        if (oclgrind && (l > 0 || n % 2)) continue;
        seg_case c = base_case(KEY_UINT32, n, layouts[l], both_shapes[h]);
        c.what = "short segments at a range's end";
        c.distribution = TEST_REVERSE_SORTED;
        c.index_values = 1;
        c.offsets_type = (n + h) % 2 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32;
        run_case(&c);
      }
    }
    for (size_t n = 4996; n <= 5008 && !oclgrind; n++) {
      seg_case c = base_case(KEY_UINT32, n, (layout){LAYOUT_PHASED, 8}, both_shapes[h]);
      c.what = "short segments at a range's end";
      c.distribution = n % 2 ? TEST_REVERSE_SORTED : TEST_UNIFORM;
      c.index_values = 1;
      run_case(&c);
    }
  }
}

/* ---- every key type ---- */

/* One key type in its natural order, ascending and descending, in one
 * shape each (alternating over the types): one of the two with keys alone,
 * the other with values, whose size rotates over the types so that every
 * size from 1 to 16 bytes meets keys of both orders; uint offsets for one,
 * ulong for the other. Floats get their specials (NaNs of both signs, -0
 * and +0, infinities, denormals), integers their extremes and few unique
 * values. Natural orders need neither cl_khr_fp64 nor cl_khr_fp16
 * (sort.h). Two rows a type: each row is a program of its own to build. */
static void every_key_type(void **state) {
  unsigned key = *(const unsigned *)*state;
  static const size_t value_sizes[] = {1, 2, 4, 8, 16};
  int is_float = key_types[key].kind == KIND_FLOAT;
  int odd = key % 2;
  const struct {
    int descending;
    size_t value_bytes;
    clgpu_type offsets;
    size_t shape;
    size_t n;
    layout l;
    test_distribution distribution;
    size_t parameter;
  } rows[] = {
      {0,
       odd ? value_sizes[key % 5] : 0,
       odd ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32,
       key % 2,
       oclgrind ? 1000 : 3001,
       {odd ? LAYOUT_GIANT_TINY : LAYOUT_RANDOM, 0},
       TEST_FLOAT_SPECIALS,
       0},
      {1,
       odd ? 0 : value_sizes[(key + 2) % 5],
       odd ? CLGPU_TYPE_UINT32 : CLGPU_TYPE_UINT64,
       (key + 1) % 2,
       2000,
       {odd ? LAYOUT_FIXED : LAYOUT_GIANT_TINY, 33},
       is_float ? TEST_FLOAT_SPECIALS : TEST_FEW_UNIQUE,
       16},
  };
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    seg_case c = base_case(key, rows[r].n, rows[r].l, both_shapes[rows[r].shape]);
    c.what = "every key type";
    c.descending = rows[r].descending;
    c.value_bytes = rows[r].value_bytes;
    c.offsets_type = rows[r].offsets;
    c.distribution = rows[r].distribution;
    c.parameter = rows[r].parameter;
    run_case(&c);
    /* The same program over other segments and data: one segment, and
     * segments of 1 key. */
    c.n = oclgrind ? 300 : 1000;
    c.layout = (layout){r ? LAYOUT_ONE : LAYOUT_SINGLES, 0};
    c.distribution = is_float ? TEST_FLOAT_SPECIALS : TEST_MIN_MAX_MIXED;
    if (!oclgrind || r == 0) run_case(&c);
  }
}

/* ---- comparators and custom keys ---- */

/* "a < b" over float keys (ascending and descending), "a > b", and struct
 * keys declared in OpenCL C with key_size, without values and with 16-byte
 * ones; float specials made finite keep -0 and +0, which the comparators
 * call equal, and few unique values make ties: the input indices as values
 * (or the ids inside the struct keys) show the order kept. */
static void comparators_and_custom_keys(void **state) {
  (void)state;
  static const struct {
    compare_kind compare;
    int descending;
    size_t value_bytes;
    int index_values;
    test_distribution distribution;
    size_t parameter;
  } rows[] = {
      {COMPARE_LESS, 0, 0, 1, TEST_FLOAT_SPECIALS, 0},
      {COMPARE_LESS, 1, 0, 1, TEST_FEW_UNIQUE, 16},
      {COMPARE_GREATER, 0, 0, 1, TEST_FLOAT_SPECIALS, 0},
      {COMPARE_POINT, 0, 0, 0, TEST_FEW_UNIQUE, 16},
      {COMPARE_POINT, 0, 16, 0, TEST_SAWTOOTH, 16},
      {COMPARE_POINT, 1, 0, 0, TEST_FEW_UNIQUE, 4},
  };
  static const struct {
    size_t n;
    layout l;
  } shapes_of_segments[] = {
      {1000, {LAYOUT_RANDOM, 0}},
      {4099, {LAYOUT_GIANT_TINY, 0}},
      {17, {LAYOUT_ONE, 0}},
      {3000, {LAYOUT_FIXED, 100}},
  };
  /* Each row in one shape (a comparator is a program of its own to
   * build), the shapes alternating so that each comparator meets both. */
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    size_t h = (r + r / 3) % 2;
    for (size_t s = 0; s < 4; s++) {
      if (oclgrind && s == (r % 2 ? 1 : 3)) continue;
      seg_case c =
          base_case(KEY_FLOAT, shapes_of_segments[s].n, shapes_of_segments[s].l, both_shapes[h]);
      c.what = "comparator";
      c.compare = rows[r].compare;
      c.descending = rows[r].descending;
      c.value_bytes = rows[r].value_bytes;
      c.index_values = rows[r].index_values;
      c.distribution = rows[r].distribution;
      c.parameter = rows[r].parameter;
      c.offsets_type = (r + s) % 2 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32;
      run_case(&c);
    }
  }
}

/* ---- strided views ---- */

/* Keys of stride 2 and -1 (staged through the workspace and written
 * back), values and offsets of other strides: the same as sorting the
 * logical elements, and every byte between them unchanged. */
static void strided_views(void **state) {
  (void)state;
  static const struct {
    unsigned key;
    ptrdiff_t key_stride, value_stride, offsets_stride;
    size_t value_bytes;
    int descending;
  } rows[] = {
      {KEY_UINT32, 2, 1, 1, 4, 0},   {KEY_UINT32, -1, 1, 1, 4, 0},  {KEY_UINT32, 1, 2, 1, 4, 0},
      {KEY_UINT32, 1, -1, 1, 4, 0},  {KEY_UINT32, 1, 1, 2, 4, 0},   {KEY_UINT32, 1, 1, -1, 4, 0},
      {KEY_UINT32, 2, -2, -1, 4, 0}, {KEY_UINT32, -1, -1, 2, 4, 0}, {KEY_UINT32, 2, 1, 2, 0, 0},
      {KEY_UINT32, -1, 1, -1, 0, 0}, {KEY_DOUBLE, -1, 3, 2, 8, 1},
  };
  static const layout layouts[] = {
      {LAYOUT_RANDOM, 0}, {LAYOUT_FIXED, 16}, {LAYOUT_GIANT_TINY, 0}, {LAYOUT_INNER, 0}};
  static const size_t sizes[] = {17, 1000, 70000};
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    for (size_t h = 0; h < 2; h++) {
      for (size_t s = 0; s < 3; s++) {
        if ((r + h + s) % 2 && s != 1) continue;
        if (rows[r].key == KEY_DOUBLE && h == 0) continue; /* one shape: one more program */
        if (oclgrind && (s == 2 || h != r % 2)) continue;
        seg_case c = base_case(rows[r].key, sizes[s], layouts[(r + s) % 4], both_shapes[h]);
        c.what = "strided";
        c.distribution = (r + s) % 2 ? TEST_FEW_UNIQUE : TEST_FLOAT_SPECIALS;
        c.parameter = 16;
        c.key_stride = rows[r].key_stride;
        c.value_stride = rows[r].value_stride;
        c.offsets_stride = rows[r].offsets_stride;
        c.index_values = rows[r].value_bytes == 4;
        c.value_bytes = rows[r].value_bytes == 4 ? 0 : rows[r].value_bytes;
        c.descending = rows[r].descending;
        c.offsets_type = (r + h) % 2 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32;
        run_case(&c);
      }
    }
  }
}

/* ---- workspaces ---- */

static clgpu_alloc_stats stats_of(const clgpu_alloc_cache *cache) {
  clgpu_alloc_stats stats;
  assert_status(clgpu_alloc_cache_stats(cache, &stats), CLGPU_SUCCESS);
  return stats;
}

static int allocated_between(clgpu_alloc_stats before, clgpu_alloc_stats after) {
  return before.hits != after.hits || before.misses != after.misses ||
         before.device_allocations != after.device_allocations;
}

/* The query for a case's layout: views of the same types, shapes and
 * strides over scratch buffers (the query reads no data). */
static clgpu_status query_case(const seg_case *c, clgpu_workspace_size *report) {
  size_t ksize = case_key_size(c), vsize = case_value_size(c);
  size_t osize = clgpu_type_size(c->offsets_type);
  size_t segments = c->n / 16 + 1;
  view_spec keys = {0, 1, {c->n}, {c->key_stride}};
  view_spec values = {0, 1, {c->n}, {c->value_stride}};
  view_spec offsets = {0, 1, {segments + 1}, {c->offsets_stride}};
  size_t key_elements = spec_fit(&keys, 3), value_elements = spec_fit(&values, 3);
  size_t offset_elements = spec_fit(&offsets, 3);
  test_guarded key_buffer = test_guarded_create(shared_context, key_elements * ksize, NULL);
  test_guarded value_buffer =
      test_guarded_create(shared_context, value_elements * (vsize ? vsize : 1), NULL);
  test_guarded offset_buffer = test_guarded_create(shared_context, offset_elements * osize, NULL);
  clgpu_array key_view = make_view(&key_buffer, key_types[c->key].type, &keys);
  clgpu_array value_view;
  if (vsize) value_view = make_view(&value_buffer, test_cl_type(raw_type(vsize)), &values);
  clgpu_array offset_view = make_view(&offset_buffer, c->offsets_type, &offsets);
  clgpu_sort_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.descending = c->descending;
  clgpu_sort_options options = {CLGPU_ALGORITHM_AUTO, c->shape, NULL};
  clgpu_status status = clgpu_segmented_sort_workspace_size(
      shared_context, &spec, &key_view, vsize ? &value_view : NULL, &offset_view, &options, report);
  test_guarded_release(&offset_buffer);
  test_guarded_release(&value_buffer);
  test_guarded_release(&key_buffer);
  return status;
}

/* The buffers sort.h lists for every sort, in its order. */
static const char *const sort_buffer_names[] = {
    "staged_keys", "staged_values", "keys_alternate", "values_alternate", "counts", "pass_state"};
enum { STAGED_KEYS, STAGED_VALUES, KEYS_ALTERNATE, VALUES_ALTERNATE, COUNTS, PASS_STATE };

/* A report: one part (SEGMENTED_SORT, MERGE, the shape asked for), sort.h's
 * six buffers, aligned and apart inside total_bytes; the staged copies
 * exactly where a view is strided, the other half of the ping-pong n *
 * (k + v) bytes, no digit counts, one pass_state word when keys move. */
static void check_report(const clgpu_workspace_size *report, const seg_case *c, const char *label) {
  if (report->num_parts != 1 || report->parts[0].operation != CLGPU_OPERATION_SEGMENTED_SORT ||
      report->parts[0].algorithm != CLGPU_ALGORITHM_MERGE || report->parts[0].shape != c->shape ||
      report->parts[0].parent != -1) {
    fail_msg(
        "%s: the report's parts are not (segmented_sort, merge, %s, -1): %u parts, (%s, %s, "
        "%s, %d)",
        label, clgpu_shape_name(c->shape), report->num_parts,
        clgpu_operation_name(report->parts[0].operation),
        clgpu_algorithm_name(report->parts[0].algorithm), clgpu_shape_name(report->parts[0].shape),
        report->parts[0].parent);
  }
  uint64_t alignment = report->alignment;
  if (alignment < 16 || (alignment & (alignment - 1)) != 0) {
    fail_msg("%s: alignment %llu", label, (unsigned long long)alignment);
  }
  if (report->num_buffers != 6) fail_msg("%s: %u buffers, not 6", label, report->num_buffers);
  for (unsigned b = 0; b < report->num_buffers; b++) {
    const clgpu_workspace_buffer *buffer = &report->buffers[b];
    if (buffer->name == NULL || strcmp(buffer->name, sort_buffer_names[b]) != 0 ||
        buffer->part != 0 || buffer->offset % alignment != 0 ||
        buffer->bytes != buffer->count * clgpu_type_size(buffer->type) ||
        (buffer->bytes > 0 && buffer->offset + buffer->bytes > report->total_bytes)) {
      fail_msg("%s: buffer %u (%s, expected %s) is not a consistent part of the report", label, b,
               buffer->name ? buffer->name : "unnamed", sort_buffer_names[b]);
    }
    for (unsigned other = 0; other < b; other++) {
      const clgpu_workspace_buffer *o = &report->buffers[other];
      if (buffer->bytes > 0 && o->bytes > 0 && buffer->offset < o->offset + o->bytes &&
          o->offset < buffer->offset + buffer->bytes) {
        fail_msg("%s: buffers %s and %s overlap", label, o->name, buffer->name);
      }
    }
  }
  const clgpu_workspace_buffer *buffers = report->buffers;
  uint64_t n = c->n, k = case_key_size(c), v = case_value_size(c);
  int keys_staged = c->key_stride != 1 && n > 1, values_staged = c->value_stride != 1 && v && n > 1;
  if (buffers[STAGED_KEYS].bytes != (keys_staged ? n * k : 0) ||
      buffers[STAGED_VALUES].bytes != (values_staged ? n * v : 0)) {
    fail_msg("%s: staged_keys and staged_values hold %llu and %llu bytes", label,
             (unsigned long long)buffers[STAGED_KEYS].bytes,
             (unsigned long long)buffers[STAGED_VALUES].bytes);
  }
  uint64_t moves = n > 1;
  if (buffers[KEYS_ALTERNATE].bytes != moves * n * k ||
      buffers[VALUES_ALTERNATE].bytes != moves * n * v || buffers[COUNTS].count != 0 ||
      buffers[PASS_STATE].count != moves) {
    fail_msg(
        "%s: keys_alternate %llu, values_alternate %llu bytes, counts %llu, pass_state %llu "
        "elements",
        label, (unsigned long long)buffers[KEYS_ALTERNATE].bytes,
        (unsigned long long)buffers[VALUES_ALTERNATE].bytes,
        (unsigned long long)buffers[COUNTS].count, (unsigned long long)buffers[PASS_STATE].count);
  }
}

static seg_case workspace_case(size_t n, size_t h, int strided) {
  seg_case c = base_case(KEY_UINT32, n, (layout){LAYOUT_RANDOM, 0}, both_shapes[h]);
  c.what = "workspace";
  c.distribution = TEST_FEW_UNIQUE;
  c.parameter = 16;
  c.index_values = 1;
  if (strided) {
    c.key_stride = -1;
    c.value_stride = 2;
    c.offsets_stride = 2;
  }
  return c;
}

/* uint32 keys and values and valid offsets in guarded regions, for calls
 * that must be refused. */
typedef struct fixture {
  size_t n, offset_count;
  unsigned char *keys, *values, *offsets;
  placed key_region, value_region, offset_region;
  clgpu_array key_view, value_view, offset_view;
} fixture;

static fixture fixture_new(size_t n, uint64_t seed) {
  fixture f;
  memset(&f, 0, sizeof f);
  f.n = n;
  f.keys = malloc(n * 4 + 1);
  assert_non_null(f.keys);
  test_generate(f.keys, n, TEST_UINT32, TEST_FEW_UNIQUE, seed, 16);
  f.values = random_bytes(n * 4, seed ^ 1);
  uint64_t *offsets =
      make_offsets((layout){LAYOUT_RANDOM, 0}, n, seed ^ 2, UINT32_MAX, &f.offset_count);
  f.offsets = malloc(f.offset_count * 4);
  assert_non_null(f.offsets);
  for (size_t k = 0; k < f.offset_count; k++)
    test_store_bits(f.offsets, k, TEST_UINT32, offsets[k]);
  free(offsets);
  f.key_region = place_elements(n, 4, 1, f.keys, seed ^ 3);
  f.value_region = place_elements(n, 4, 1, f.values, seed ^ 4);
  f.offset_region = place_elements(f.offset_count, 4, 1, f.offsets, seed ^ 5);
  f.key_view = make_view(&f.key_region.guarded, CLGPU_TYPE_UINT32, &f.key_region.spec);
  f.value_view = make_view(&f.value_region.guarded, CLGPU_TYPE_UINT32, &f.value_region.spec);
  f.offset_view = make_view(&f.offset_region.guarded, CLGPU_TYPE_UINT32, &f.offset_region.spec);
  return f;
}

static void fixture_free(fixture *f) {
  release_placed(&f->offset_region);
  release_placed(&f->value_region);
  release_placed(&f->key_region);
  free(f->offsets);
  free(f->values);
  free(f->keys);
}

static void fixture_unchanged(const fixture *f, const char *label) {
  check_placed(&f->key_region, f->keys, f->n, NULL, NULL, 0, "keys (unchanged)", label);
  check_placed(&f->value_region, f->values, f->n, NULL, NULL, 0, "values (unchanged)", label);
  check_placed(&f->offset_region, f->offsets, f->offset_count, NULL, NULL, 0, "offsets (unchanged)",
               label);
}

/* A call with a workspace that must fail with `expected`: no event, the
 * keys, values and offsets unchanged, guards intact. */
static void expect_refused(const fixture *f, clgpu_shape shape, clgpu_workspace *workspace,
                           clgpu_status expected, const char *label) {
  clgpu_sort_options options = {CLGPU_ALGORITHM_AUTO, shape, workspace};
  cl_event event = NULL;
  clgpu_status status = clgpu_segmented_sort(shared_context, NULL, &f->key_view, &f->value_view,
                                             &f->offset_view, &options, 0, NULL, &event);
  if (status != expected) {
    fail_msg("%s: %s (%d), expected %s; detail: %s", label, clgpu_status_name(status), (int)status,
             clgpu_status_name(expected), clgpu_last_error());
  }
  if (!strstr(clgpu_last_error(), "clgpu_segmented_sort")) {
    fail_msg("%s: the message does not name clgpu_segmented_sort: %s", label, clgpu_last_error());
  }
  print_message("# %s: %s\n", label, clgpu_last_error());
  if (event != NULL) fail_msg("%s: the failing call made an event", label);
  assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
  fixture_unchanged(f, label);
}

static clgpu_workspace *segmented_upto(clgpu_shape shape, size_t value_size, size_t max_n,
                                       size_t max_segments) {
  clgpu_sort_options options = {CLGPU_ALGORITHM_AUTO, shape, NULL};
  clgpu_workspace_size report;
  assert_status(
      clgpu_segmented_sort_workspace_size_upto(shared_context, NULL, CLGPU_TYPE_UINT32, value_size,
                                               max_n, max_segments, &options, &report),
      CLGPU_SUCCESS);
  clgpu_workspace *workspace = NULL;
  assert_status(clgpu_workspace_create(shared_context, &report, &workspace), CLGPU_SUCCESS);
  if (oclgrind) settle_shadow(workspace);
  return workspace;
}

/* The reports; a workspace of the queried size, made or wrapped, serves the
 * call without an allocation; one from _upto serves every smaller call;
 * the refusals leave everything as it was. */
static void workspaces(void **state) {
  (void)state;
  size_t n = oclgrind ? 1000 : 16385;
  clgpu_alloc_cache *cache = NULL;
  assert_status(clgpu_alloc_cache_create(&cache), CLGPU_SUCCESS);
  for (size_t h = 0; h < 2; h++) {
    clgpu_shape shape = both_shapes[h];
    /* The reports: queries allocate nothing. */
    static const size_t report_sizes[] = {0, 1, 2, 1000, 16385};
    for (size_t s = 0; s < sizeof report_sizes / sizeof report_sizes[0]; s++) {
      for (int strided = 0; strided < 2; strided++) {
        seg_case c = workspace_case(report_sizes[s], h, strided);
        if (s % 2) c.index_values = 0; /* keys alone */
        char label[700];
        describe_case(&c, label, sizeof label);
        clgpu_workspace_size report;
        assert_status(clgpu_alloc_scope_begin(shared_context, cache), CLGPU_SUCCESS);
        clgpu_alloc_stats before = stats_of(cache);
        clgpu_status status = query_case(&c, &report);
        clgpu_alloc_stats after = stats_of(cache);
        assert_status(clgpu_alloc_scope_end(shared_context), CLGPU_SUCCESS);
        expect_success(status, label);
        if (allocated_between(before, after)) fail_msg("%s: the size query allocated", label);
        check_report(&report, &c, label);
      }
    }

    /* Exactly the queried size, made in a cache scope and wrapped over a
     * guarded region: no allocation in the call. */
    for (int strided = 0; strided < 2; strided++) {
      seg_case c = workspace_case(n, h, strided);
      char label[700];
      describe_case(&c, label, sizeof label);
      clgpu_workspace_size report;
      expect_success(query_case(&c, &report), label);
      assert_true(report.total_bytes > 0);
      test_guarded region = test_guarded_create(shared_context, (size_t)report.total_bytes, NULL);
      clgpu_workspace *wrapped = NULL, *made = NULL;
      expect_success(clgpu_workspace_wrap(shared_context, &report, region.buffer, region.offset,
                                          (size_t)report.total_bytes, &wrapped),
                     label);
      assert_status(clgpu_alloc_scope_begin(shared_context, cache), CLGPU_SUCCESS);
      expect_success(clgpu_workspace_create(shared_context, &report, &made), label);
      if (oclgrind) settle_shadow(made);
      clgpu_workspace *const both[] = {made, wrapped};
      for (size_t w = 0; w < 2; w++) {
        clgpu_alloc_stats before = stats_of(cache);
        c.workspace = both[w];
        run_case(&c);
        if (allocated_between(before, stats_of(cache))) {
          fail_msg("%s: the call allocated with a workspace (%s) of the queried size", label,
                   w ? "wrapped" : "made");
        }
      }
      /* The control: without one the call does allocate in the scope
       * (under Oclgrind 16 keys: one block, no pass reads the scratch; see
       * oclgrind_workspaces). */
      clgpu_alloc_stats before = stats_of(cache);
      c.workspace = NULL;
      c.own_scratch = 1;
      if (oclgrind) c.n = 16;
      run_case(&c);
      clgpu_alloc_stats after = stats_of(cache);
      if (after.hits + after.misses == before.hits + before.misses) {
        fail_msg("%s: without a workspace the call made no cache request", label);
      }
      clgpu_workspace_destroy(made);
      assert_status(clgpu_alloc_scope_end(shared_context), CLGPU_SUCCESS);
      test_guarded_check(shared_context, &region, "a wrapped segmented sort workspace");
      clgpu_workspace_destroy(wrapped);
      test_guarded_release(&region);
    }

    /* _upto: at least every smaller call's query; a workspace for (max_n,
     * max_segments) serves smaller calls of both layouts. */
    size_t max_n = oclgrind ? 2000 : 5000, max_segments = max_n / 4;
    clgpu_sort_options options = {CLGPU_ALGORITHM_AUTO, shape, NULL};
    clgpu_workspace_size upto;
    assert_status(clgpu_segmented_sort_workspace_size_upto(shared_context, NULL, CLGPU_TYPE_UINT32,
                                                           4, max_n, max_segments, &options, &upto),
                  CLGPU_SUCCESS);
    seg_case whole = workspace_case(max_n, h, 0);
    check_report(&upto, &whole, "clgpu_segmented_sort_workspace_size_upto");
    clgpu_workspace *workspace = segmented_upto(shape, 4, max_n, max_segments);
    clgpu_workspace *keys_only = segmented_upto(shape, 0, max_n, max_segments);
    static const size_t smaller[] = {0, 1, 17, 1000, 2000, 5000};
    for (size_t s = 0; s < sizeof smaller / sizeof smaller[0]; s++) {
      if (smaller[s] > max_n) continue;
      for (int strided = 0; strided < 2; strided++) {
        seg_case c = workspace_case(smaller[s], h, strided);
        if (strided && smaller[s] > 1) continue; /* staged copies: not what _upto covers */
        char label[700];
        describe_case(&c, label, sizeof label);
        clgpu_workspace_size exact;
        expect_success(query_case(&c, &exact), label);
        if (exact.total_bytes > upto.total_bytes) {
          fail_msg("%s: the call needs %llu bytes, more than _upto's %llu", label,
                   (unsigned long long)exact.total_bytes, (unsigned long long)upto.total_bytes);
        }
        c.workspace = workspace;
        run_case(&c);
        c.index_values = 0;
        c.workspace = keys_only;
        run_case(&c);
      }
    }
    clgpu_workspace_destroy(keys_only);
    clgpu_workspace_destroy(workspace);

    /* Refusals. */
    fixture f = fixture_new(n, test_case_seed("segmented sort workspace refusals") + h);
    char label[300], row[400];
    snprintf(label, sizeof label,
             "segmented sort workspace refusals, n=%zu uint32 keys and values, %s", n,
             clgpu_shape_name(shape));
    /* One byte too small: the wrap refuses. */
    clgpu_workspace_size report;
    assert_status(
        clgpu_segmented_sort_workspace_size(shared_context, NULL, &f.key_view, &f.value_view,
                                            &f.offset_view, &options, &report),
        CLGPU_SUCCESS);
    test_guarded region = test_guarded_create(shared_context, (size_t)report.total_bytes, NULL);
    clgpu_workspace *refused = NULL;
    assert_status(clgpu_workspace_wrap(shared_context, &report, region.buffer, region.offset,
                                       (size_t)report.total_bytes - 1, &refused),
                  CLGPU_WORKSPACE_TOO_SMALL);
    assert_null(refused);
    test_guarded_release(&region);
    /* Made for fewer keys. */
    workspace = segmented_upto(shape, 4, n / 2, n / 8);
    snprintf(row, sizeof row, "%s: a workspace for n/2 keys", label);
    expect_refused(&f, shape, workspace, CLGPU_WORKSPACE_TOO_SMALL, row);
    clgpu_workspace_destroy(workspace);
    /* Made for keys alone. */
    workspace = segmented_upto(shape, 0, n, n);
    snprintf(row, sizeof row, "%s: a workspace for keys alone", label);
    expect_refused(&f, shape, workspace, CLGPU_WORKSPACE_TOO_SMALL, row);
    clgpu_workspace_destroy(workspace);
    /* Made for clgpu_sort (merge and radix, this shape). */
    for (int radix = 0; radix < 2; radix++) {
      clgpu_sort_options sort_options = {radix ? CLGPU_ALGORITHM_RADIX : CLGPU_ALGORITHM_MERGE,
                                         shape, NULL};
      clgpu_workspace_size sort_report;
      assert_status(clgpu_sort_workspace_size_upto(shared_context, NULL, CLGPU_TYPE_UINT32, 4, n,
                                                   &sort_options, &sort_report),
                    CLGPU_SUCCESS);
      assert_int_equal(sort_report.parts[0].operation, CLGPU_OPERATION_SORT);
      assert_status(clgpu_workspace_create(shared_context, &sort_report, &workspace),
                    CLGPU_SUCCESS);
      snprintf(row, sizeof row, "%s: clgpu_sort's workspace (%s)", label,
               radix ? "radix" : "merge");
      expect_refused(&f, shape, workspace, CLGPU_WORKSPACE_WRONG_OPERATION, row);
      clgpu_workspace_destroy(workspace);
    }
    /* And a segmented sort's workspace given to clgpu_sort. */
    workspace = segmented_upto(shape, 4, n, n);
    clgpu_sort_options merge = {CLGPU_ALGORITHM_MERGE, shape, workspace};
    assert_status(
        clgpu_sort(shared_context, NULL, &f.key_view, &f.value_view, &merge, 0, NULL, NULL),
        CLGPU_WORKSPACE_WRONG_OPERATION);
    assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
    snprintf(row, sizeof row, "%s: clgpu_sort with a segmented sort's workspace", label);
    fixture_unchanged(&f, row);
    clgpu_workspace_destroy(workspace);
    /* The other shape's. */
    workspace = segmented_upto(both_shapes[1 - h], 4, n, n);
    snprintf(row, sizeof row, "%s: a workspace for the %s shape", label,
             clgpu_shape_name(both_shapes[1 - h]));
    expect_refused(&f, shape, workspace, CLGPU_WORKSPACE_WRONG_ALGORITHM, row);
    clgpu_workspace_destroy(workspace);
    /* A workspace over the offsets' bytes: offsets placed inside the
     * bytes a wrapped workspace covers. */
    {
      size_t bytes = (size_t)report.total_bytes + (size_t)report.alignment + f.offset_count * 4;
      test_guarded big = test_guarded_create(shared_context, bytes, NULL);
      /* Offsets in the middle of the workspace's bytes. */
      size_t inside = big.offset + (size_t)report.alignment;
      assert_int_equal(
          clEnqueueWriteBuffer(clgpu_context_queue(shared_context), big.buffer, CL_TRUE, inside,
                               f.offset_count * 4, f.offsets, 0, NULL, NULL),
          CL_SUCCESS);
      clgpu_workspace *aliasing = NULL;
      expect_success(clgpu_workspace_wrap(shared_context, &report, big.buffer, big.offset,
                                          (size_t)report.total_bytes, &aliasing),
                     label);
      fixture g = f;
      assert_status(
          clgpu_array_1d(big.buffer, inside, CLGPU_TYPE_UINT32, f.offset_count, &g.offset_view),
          CLGPU_SUCCESS);
      clgpu_sort_options over = {CLGPU_ALGORITHM_AUTO, shape, aliasing};
      cl_event event = NULL;
      clgpu_status status = clgpu_segmented_sort(shared_context, NULL, &g.key_view, &g.value_view,
                                                 &g.offset_view, &over, 0, NULL, &event);
      snprintf(row, sizeof row, "%s: a workspace over the offsets", label);
      if (status != CLGPU_WORKSPACE_ALIASES_ARGUMENT) {
        fail_msg("%s: %s (%d), expected CLGPU_WORKSPACE_ALIASES_ARGUMENT; detail: %s", row,
                 clgpu_status_name(status), (int)status, clgpu_last_error());
      }
      if (event != NULL) fail_msg("%s: an event was made", row);
      assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
      fixture_unchanged(&f, row);
      test_guarded_check(shared_context, &big, row);
      clgpu_workspace_destroy(aliasing);
      test_guarded_release(&big);
    }
    fixture_free(&f);
  }
  clgpu_alloc_cache_destroy(cache);
}

/* ---- offsets that break the rules ---- */

/* Offsets descending, past n (up to the type's largest value), and random:
 * the call succeeds, and nothing outside the keys, values and offsets is
 * written (the order inside the keys means nothing). Both offset types and
 * shapes, keys alone and with 4- and 16-byte values, strided views too.
 *
 * Under Oclgrind, which reports out-of-bounds accesses: offsets that are
 * not ascending give positions segments that disagree, so two work-items
 * may move the same keys, which Oclgrind reports as a data race (the keys'
 * order means nothing then, and no byte outside them is touched); those
 * layouts run there in the CHUNKED shape only, whose kernels run one
 * work-item up to 16384 keys (sort_chunk_minimum), and offsets past n,
 * which stay ascending, in both. */
static void bad_offsets_stay_in_bounds(void **state) {
  (void)state;
  static const layout_kind kinds[] = {LAYOUT_DESCENDING, LAYOUT_PAST_N, LAYOUT_GARBAGE};
  static const size_t sizes[] = {2, 1000, 4099};
  for (size_t k = 0; k < 3; k++) {
    for (size_t h = 0; h < 2; h++) {
      for (size_t s = 0; s < 3; s++) {
        for (size_t v = 0; v < 3; v++) {
          if ((k + h + s + v) % 2 && s != 1) continue;
          if (oclgrind && ((kinds[k] != LAYOUT_PAST_N && h == 1) || (s == 2 && (k + v) % 2))) {
            continue;
          }
          seg_case c = base_case(KEY_UINT32, sizes[s], (layout){kinds[k], 0}, both_shapes[h]);
          c.what = "offsets out of order or range";
          c.distribution = TEST_FEW_UNIQUE;
          c.parameter = 16;
          c.index_values = v == 1;
          c.value_bytes = v == 2 ? 16 : 0;
          c.offsets_type = (k + s + v) % 2 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32;
          if (v == 1 && s == 1) {
            c.key_stride = -1;
            c.value_stride = 2;
            c.offsets_stride = -1;
          }
          run_case(&c);
        }
      }
    }
  }
}

/* ---- events ---- */

/* A call behind a user event does not complete before the event is set,
 * then gives the reference; a call without an event out still runs; n = 0
 * and 1 still give an event. */
static void wait_list_and_event(void **state) {
  (void)state;
  static const size_t sizes[] = {0, 1, 1000, 70000};
  for (size_t h = 0; h < 2; h++) {
    for (size_t s = 0; s < 4; s++) {
      if (oclgrind && s == 3) continue;
      seg_case c = base_case(KEY_UINT32, sizes[s], (layout){s % 2 ? LAYOUT_ONE : LAYOUT_RANDOM, 0},
                             both_shapes[h]);
      c.what = "events";
      c.distribution = TEST_FEW_UNIQUE;
      c.parameter = 16;
      c.index_values = 1;
      c.gated = 1;
      run_case(&c);
      c.gated = 0;
      c.no_event = 1;
      run_case(&c);
    }
  }
  /* NULL options: the AUTO shape and no workspace (not under Oclgrind,
   * where calls take a workspace: see oclgrind_workspaces). */
  if (oclgrind) return;
  seg_case c = base_case(KEY_UINT32, 1000, (layout){LAYOUT_FIXED, 16}, CLGPU_SHAPE_AUTO);
  c.what = "events";
  c.null_options = 1;
  c.index_values = 1;
  c.distribution = TEST_FEW_UNIQUE;
  c.parameter = 4;
  run_case(&c);
}

/* ---- misuse ---- */

/* The fixture's calls are valid: 20 uint32 keys, 20 uint32 values (in a
 * region with room for 32 bytes per key) and 6 uint32 offsets {0, 4, 4, 9,
 * 15, 20} (in a region with room for 8 more bytes per offset), each in a
 * guarded region of its own. */
#define MISUSE_N 20
#define MISUSE_OFFSETS 6

typedef struct misuse_fixture {
  test_guarded keys, values, offsets;
  unsigned char keys_initial[MISUSE_N * 4], values_initial[MISUSE_N * 32],
      offsets_initial[MISUSE_OFFSETS * 16];
  clgpu_context *other_context;
  cl_mem foreign;
  cl_event user_event;
} misuse_fixture;

typedef struct misuse_call {
  clgpu_context *context;
  clgpu_sort_spec spec;
  const clgpu_array *keys, *values, *offsets;
  clgpu_array keys_view, values_view, offsets_view;
  clgpu_sort_options options_value;
  const clgpu_sort_options *options;
  cl_uint num_events;
  const cl_event *wait_list;
} misuse_call;

enum { CALL_AND_QUERY, CALL_ONLY };

typedef struct misuse_row {
  const char *name;
  clgpu_status expected;
  void (*edit)(const misuse_fixture *fixture, misuse_call *call);
  int calls;
  int (*applies)(void);
} misuse_row;

static clgpu_array view_1d(cl_mem buffer, size_t offset, clgpu_type type, size_t n) {
  clgpu_array view;
  assert_status(clgpu_array_1d(buffer, offset, type, n, &view), CLGPU_SUCCESS);
  return view;
}

static clgpu_array view_2d(cl_mem buffer, size_t offset, clgpu_type type, size_t rows,
                           size_t columns) {
  clgpu_array view;
  const size_t shape[2] = {rows, columns};
  assert_status(clgpu_array_nd(buffer, offset, type, 2, shape, CLGPU_ORDER_ROW_MAJOR, &view),
                CLGPU_SUCCESS);
  return view;
}

#define UNUSED_FIXTURE (void)f

static void edit_null_context(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->context = NULL;
}
static void edit_null_keys(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->keys = NULL;
}
static void edit_null_offsets(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->offsets = NULL;
}
static void edit_offsets_int32(const misuse_fixture *f, misuse_call *call) {
  call->offsets_view =
      view_1d(f->offsets.buffer, f->offsets.offset, CLGPU_TYPE_INT32, MISUSE_OFFSETS);
}
static void edit_offsets_float(const misuse_fixture *f, misuse_call *call) {
  call->offsets_view =
      view_1d(f->offsets.buffer, f->offsets.offset, CLGPU_TYPE_FLOAT, MISUSE_OFFSETS);
}
static void edit_offsets_uint16(const misuse_fixture *f, misuse_call *call) {
  call->offsets_view =
      view_1d(f->offsets.buffer, f->offsets.offset, CLGPU_TYPE_UINT16, MISUSE_OFFSETS);
}
static void edit_offsets_int64(const misuse_fixture *f, misuse_call *call) {
  call->offsets_view =
      view_1d(f->offsets.buffer, f->offsets.offset, CLGPU_TYPE_INT64, MISUSE_OFFSETS);
}
static void edit_offsets_rank_2(const misuse_fixture *f, misuse_call *call) {
  call->offsets_view = view_2d(f->offsets.buffer, f->offsets.offset, CLGPU_TYPE_UINT32, 2, 3);
}
static void edit_offsets_empty(const misuse_fixture *f, misuse_call *call) {
  call->offsets_view = view_1d(f->offsets.buffer, f->offsets.offset, CLGPU_TYPE_UINT32, 0);
}
static void edit_offsets_over_keys(const misuse_fixture *f, misuse_call *call) {
  call->offsets_view = view_1d(f->keys.buffer, f->keys.offset + 8, CLGPU_TYPE_UINT32, 3);
}
static void edit_offsets_over_values(const misuse_fixture *f, misuse_call *call) {
  call->offsets_view = view_1d(f->values.buffer, f->values.offset + 16, CLGPU_TYPE_UINT64, 2);
}
static void edit_offsets_are_keys(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->offsets = call->keys;
}
static void edit_radix(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->options_value.algorithm = CLGPU_ALGORITHM_RADIX;
  call->options = &call->options_value;
}
static void edit_bit_range(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.begin_bit = 0;
  call->spec.end_bit = 16;
}
static void edit_bit_range_merge(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.begin_bit = 8;
  call->spec.end_bit = 32;
  call->options_value.algorithm = CLGPU_ALGORITHM_MERGE;
  call->options = &call->options_value;
}
static void edit_opaque_keys(const misuse_fixture *f, misuse_call *call) {
  call->keys_view = view_1d(f->keys.buffer, f->keys.offset, CLGPU_TYPE_OPAQUE, MISUSE_N * 4);
  call->values = NULL;
}
static void edit_values_3_bytes(const misuse_fixture *f, misuse_call *call) {
  call->values_view = view_1d(f->values.buffer, f->values.offset, CLGPU_TYPE_UINT8, 3 * MISUSE_N);
}
static void edit_values_32_bytes(const misuse_fixture *f, misuse_call *call) {
  call->values_view = view_1d(f->values.buffer, f->values.offset, CLGPU_TYPE_UINT64, 4 * MISUSE_N);
}
static void edit_keys_rank_2(const misuse_fixture *f, misuse_call *call) {
  call->keys_view = view_2d(f->keys.buffer, f->keys.offset, CLGPU_TYPE_UINT32, 4, 5);
}
static void edit_values_over_keys(const misuse_fixture *f, misuse_call *call) {
  call->values_view = view_1d(f->keys.buffer, f->keys.offset + 8, CLGPU_TYPE_UINT16, MISUSE_N);
}
static void edit_unknown_shape(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->options_value.shape = (clgpu_shape)9;
  call->options = &call->options_value;
}
static void edit_unknown_algorithm(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->options_value.algorithm = (clgpu_algorithm)7;
  call->options = &call->options_value;
}
static void edit_key_type_without_size(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.compare = "a.x < b.x";
  call->spec.key_type = "point";
  call->spec.declarations = point_declarations;
}
static void edit_custom_keys_strided(const misuse_fixture *f, misuse_call *call) {
  call->spec.compare = "a.x < b.x";
  call->spec.key_type = "point";
  call->spec.declarations = point_declarations;
  call->spec.key_size = 8;
  size_t n = MISUSE_N / 2;
  ptrdiff_t stride = 2;
  assert_status(clgpu_array_strided(f->keys.buffer, f->keys.offset, CLGPU_TYPE_UINT32, 1, &n,
                                    &stride, &call->keys_view),
                CLGPU_SUCCESS);
  call->values = NULL;
}
static void edit_wait_list_missing(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->num_events = 1;
  call->wait_list = NULL;
}
static void edit_wait_list_without_count(const misuse_fixture *f, misuse_call *call) {
  call->num_events = 0;
  call->wait_list = &f->user_event;
}
static void edit_foreign_offsets(const misuse_fixture *f, misuse_call *call) {
  call->offsets_view = view_1d(f->foreign, 0, CLGPU_TYPE_UINT32, MISUSE_OFFSETS);
}
static void edit_foreign_keys(const misuse_fixture *f, misuse_call *call) {
  call->keys_view = view_1d(f->foreign, 0, CLGPU_TYPE_UINT32, MISUSE_N);
}
static void edit_offsets_past_end(const misuse_fixture *f, misuse_call *call) {
  /* Edited by hand: the buffer's last element, then 5 past it. */
  call->offsets_view.offset = f->offsets.offset + f->offsets.region_bytes + TEST_GUARD_BYTES - 4;
}
static void edit_offsets_misaligned(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->offsets_view.offset += 2;
}
static void edit_malformed_comparator(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.compare = "a <";
}
static void edit_comparator_semicolon(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.compare = "a < b;";
}
static void edit_double_comparator(const misuse_fixture *f, misuse_call *call) {
  call->keys_view = view_1d(f->keys.buffer, f->keys.offset, CLGPU_TYPE_DOUBLE, MISUSE_N / 2);
  call->values = NULL;
  call->spec.compare = "a < b";
}
static void edit_half_comparator(const misuse_fixture *f, misuse_call *call) {
  call->keys_view = view_1d(f->keys.buffer, f->keys.offset, CLGPU_TYPE_HALF, MISUSE_N);
  call->spec.compare = "a < b";
}

static int lacks_fp64(void) { return !clgpu_context_device_info(shared_context)->has_fp64; }
static int lacks_fp16(void) { return !clgpu_context_device_info(shared_context)->has_fp16; }

static const misuse_row misuse_rows[] = {
    {"NULL context", CLGPU_INVALID_ARGUMENT, edit_null_context, CALL_AND_QUERY, NULL},
    {"NULL keys", CLGPU_INVALID_ARGUMENT, edit_null_keys, CALL_AND_QUERY, NULL},
    {"NULL offsets", CLGPU_INVALID_ARGUMENT, edit_null_offsets, CALL_AND_QUERY, NULL},
    {"int32 offsets", CLGPU_TYPE_MISMATCH, edit_offsets_int32, CALL_AND_QUERY, NULL},
    {"float offsets", CLGPU_TYPE_MISMATCH, edit_offsets_float, CALL_AND_QUERY, NULL},
    {"uint16 offsets", CLGPU_TYPE_MISMATCH, edit_offsets_uint16, CALL_AND_QUERY, NULL},
    {"int64 offsets", CLGPU_TYPE_MISMATCH, edit_offsets_int64, CALL_AND_QUERY, NULL},
    {"2-D offsets", CLGPU_SHAPE_MISMATCH, edit_offsets_rank_2, CALL_AND_QUERY, NULL},
    {"empty offsets (0 elements)", CLGPU_SHAPE_MISMATCH, edit_offsets_empty, CALL_AND_QUERY, NULL},
    {"offsets overlapping the keys", CLGPU_INVALID_OUTPUT, edit_offsets_over_keys, CALL_AND_QUERY,
     NULL},
    {"offsets overlapping the values", CLGPU_INVALID_OUTPUT, edit_offsets_over_values,
     CALL_AND_QUERY, NULL},
    {"offsets that are the keys", CLGPU_INVALID_OUTPUT, edit_offsets_are_keys, CALL_AND_QUERY,
     NULL},
    {"CLGPU_ALGORITHM_RADIX", CLGPU_INVALID_ARGUMENT, edit_radix, CALL_AND_QUERY, NULL},
    {"a bit range [0, 16)", CLGPU_INVALID_ARGUMENT, edit_bit_range, CALL_AND_QUERY, NULL},
    {"a bit range [8, 32) with MERGE", CLGPU_INVALID_ARGUMENT, edit_bit_range_merge, CALL_AND_QUERY,
     NULL},
    {"opaque keys without spec->key_type", CLGPU_TYPE_MISMATCH, edit_opaque_keys, CALL_AND_QUERY,
     NULL},
    {"3 value bytes per key", CLGPU_SHAPE_MISMATCH, edit_values_3_bytes, CALL_AND_QUERY, NULL},
    {"32 value bytes per key", CLGPU_SHAPE_MISMATCH, edit_values_32_bytes, CALL_AND_QUERY, NULL},
    {"2-D keys", CLGPU_SHAPE_MISMATCH, edit_keys_rank_2, CALL_AND_QUERY, NULL},
    {"values overlapping the keys", CLGPU_INVALID_OUTPUT, edit_values_over_keys, CALL_AND_QUERY,
     NULL},
    {"unknown shape", CLGPU_INVALID_ARGUMENT, edit_unknown_shape, CALL_AND_QUERY, NULL},
    {"unknown algorithm", CLGPU_INVALID_ARGUMENT, edit_unknown_algorithm, CALL_AND_QUERY, NULL},
    {"key_type without key_size", CLGPU_INVALID_ARGUMENT, edit_key_type_without_size,
     CALL_AND_QUERY, NULL},
    {"strided custom keys", CLGPU_SHAPE_MISMATCH, edit_custom_keys_strided, CALL_AND_QUERY, NULL},
    {"offsets past the buffer's end", CLGPU_VIEW_OUT_OF_BOUNDS, edit_offsets_past_end,
     CALL_AND_QUERY, NULL},
    {"misaligned offsets", CLGPU_MISALIGNED_VIEW, edit_offsets_misaligned, CALL_AND_QUERY, NULL},
    {"offsets in another cl_context", CLGPU_MISMATCHED_OBJECTS, edit_foreign_offsets,
     CALL_AND_QUERY, NULL},
    {"keys in another cl_context", CLGPU_MISMATCHED_OBJECTS, edit_foreign_keys, CALL_AND_QUERY,
     NULL},
    {"a comparator with ';'", CLGPU_INVALID_ARGUMENT, edit_comparator_semicolon, CALL_AND_QUERY,
     NULL},
    {"num_events 1, wait_list NULL", CLGPU_INVALID_ARGUMENT, edit_wait_list_missing, CALL_ONLY,
     NULL},
    {"num_events 0, wait_list set", CLGPU_INVALID_ARGUMENT, edit_wait_list_without_count, CALL_ONLY,
     NULL},
    {"a comparator that does not compile", CLGPU_CL_BUILD_PROGRAM_FAILURE,
     edit_malformed_comparator, CALL_ONLY, NULL},
    {"a comparator over double keys without cl_khr_fp64", CLGPU_UNSUPPORTED_FEATURE,
     edit_double_comparator, CALL_AND_QUERY, lacks_fp64},
    {"a comparator over half keys without cl_khr_fp16", CLGPU_UNSUPPORTED_FEATURE,
     edit_half_comparator, CALL_AND_QUERY, lacks_fp16},
};

static void reset_call(const misuse_fixture *f, misuse_call *call) {
  memset(call, 0, sizeof *call);
  call->context = shared_context;
  call->keys_view = view_1d(f->keys.buffer, f->keys.offset, CLGPU_TYPE_UINT32, MISUSE_N);
  call->values_view = view_1d(f->values.buffer, f->values.offset, CLGPU_TYPE_UINT32, MISUSE_N);
  call->offsets_view =
      view_1d(f->offsets.buffer, f->offsets.offset, CLGPU_TYPE_UINT32, MISUSE_OFFSETS);
  call->keys = &call->keys_view;
  call->values = &call->values_view;
  call->offsets = &call->offsets_view;
}

static void expect_region_unchanged(const test_guarded *region, const unsigned char *initial,
                                    const char *what, const char *label) {
  unsigned char *after = malloc(region->region_bytes);
  assert_non_null(after);
  test_guarded_read(shared_context, region, after);
  expect_region(after, initial, region->region_bytes, what, label);
  test_guarded_check(shared_context, region, label);
  free(after);
}

/* Run one misuse row through the call and (where it applies) the size
 * query, and check the refusal: its status, a message naming the entry
 * point, no event, every region unchanged. */
static void check_misuse_row(const misuse_fixture *f, const misuse_row *row) {
  if (row->applies && !row->applies()) {
    print_message("# %s: does not apply to this device\n", row->name);
    return;
  }
  /* Oclgrind's --check-api reports every failed build as an error. */
  if (oclgrind && row->expected == CLGPU_CL_BUILD_PROGRAM_FAILURE) {
    print_message("# %s: not run on Oclgrind\n", row->name);
    return;
  }
  for (int query = 0; query < 2; query++) {
    if (query && row->calls == CALL_ONLY) continue;
    const char *who = query ? "clgpu_segmented_sort_workspace_size" : "clgpu_segmented_sort";
    char label[200];
    snprintf(label, sizeof label, "%s misuse \"%s\"", who, row->name);
    misuse_call call;
    reset_call(f, &call);
    row->edit(f, &call);
    cl_event event = NULL;
    clgpu_workspace_size report;
    clgpu_status status =
        query
            ? clgpu_segmented_sort_workspace_size(call.context, &call.spec, call.keys, call.values,
                                                  call.offsets, call.options, &report)
            : clgpu_segmented_sort(call.context, &call.spec, call.keys, call.values, call.offsets,
                                   call.options, call.num_events, call.wait_list, &event);
    if (status != row->expected) {
      fail_msg("%s: %s (%d), expected %s; detail: %s", label, clgpu_status_name(status),
               (int)status, clgpu_status_name(row->expected), clgpu_last_error());
    }
    const char *detail = clgpu_last_error();
    if (detail == NULL || detail[0] == '\0') fail_msg("%s: no detail message", label);
    /* A build failure carries the compiler's log, which says "error". */
    if (row->expected == CLGPU_CL_BUILD_PROGRAM_FAILURE) {
      if (strstr(detail, "error") == NULL) {
        fail_msg("%s: the message has no compiler log: %s", label, detail);
      }
    } else if (strstr(detail, who) == NULL) {
      fail_msg("%s: the message does not name %s: %s", label, who, detail);
    }
    print_message("# %s: %.200s\n", label, detail);
    if (event != NULL) fail_msg("%s: an event was made", label);
    assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
    expect_region_unchanged(&f->keys, f->keys_initial, "keys", label);
    expect_region_unchanged(&f->values, f->values_initial, "values", label);
    expect_region_unchanged(&f->offsets, f->offsets_initial, "offsets", label);
  }
}

/* Every documented misuse gives its status, names the entry point, makes
 * no event and changes nothing; the _upto query's refusals; then the
 * unedited call works. */
static void misuse(void **state) {
  (void)state;
  misuse_fixture f;
  memset(&f, 0, sizeof f);
  uint64_t seed = test_case_seed("segmented sort misuse");
  test_generate(f.keys_initial, sizeof f.keys_initial, TEST_UINT8, TEST_UNIFORM, seed, 0);
  test_generate(f.values_initial, sizeof f.values_initial, TEST_UINT8, TEST_UNIFORM, seed + 1, 0);
  test_generate(f.offsets_initial, sizeof f.offsets_initial, TEST_UINT8, TEST_UNIFORM, seed + 2, 0);
  const uint64_t offsets[MISUSE_OFFSETS] = {0, 4, 4, 9, 15, 20};
  for (size_t k = 0; k < MISUSE_OFFSETS; k++) {
    test_store_bits(f.offsets_initial, k, TEST_UINT32, offsets[k]);
  }
  f.keys = test_guarded_create(shared_context, sizeof f.keys_initial, f.keys_initial);
  f.values = test_guarded_create(shared_context, sizeof f.values_initial, f.values_initial);
  f.offsets = test_guarded_create(shared_context, sizeof f.offsets_initial, f.offsets_initial);
  f.other_context = test_context(NULL);
  cl_int err = CL_SUCCESS;
  f.foreign = clCreateBuffer(clgpu_context_cl_context(f.other_context), CL_MEM_READ_WRITE,
                             MISUSE_N * 8, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  f.user_event = clCreateUserEvent(clgpu_context_cl_context(shared_context), &err);
  assert_int_equal(err, CL_SUCCESS);

  for (size_t r = 0; r < sizeof misuse_rows / sizeof misuse_rows[0]; r++) {
    check_misuse_row(&f, &misuse_rows[r]);
  }

  /* The _upto query. */
  const char *upto = "clgpu_segmented_sort_workspace_size_upto";
  clgpu_workspace_size report;
  clgpu_sort_options radix = {CLGPU_ALGORITHM_RADIX, CLGPU_SHAPE_AUTO, NULL};
  clgpu_sort_spec ranged;
  memset(&ranged, 0, sizeof ranged);
  ranged.end_bit = 16;
  const struct {
    const char *name;
    clgpu_context *context;
    const clgpu_sort_spec *spec;
    clgpu_type key_type;
    size_t value_size;
    const clgpu_sort_options *options;
    clgpu_workspace_size *out;
  } upto_rows[] = {
      {"NULL context", NULL, NULL, CLGPU_TYPE_UINT32, 4, NULL, &report},
      {"NULL out", shared_context, NULL, CLGPU_TYPE_UINT32, 4, NULL, NULL},
      {"CLGPU_ALGORITHM_RADIX", shared_context, NULL, CLGPU_TYPE_UINT32, 4, &radix, &report},
      {"value_size 3", shared_context, NULL, CLGPU_TYPE_UINT32, 3, NULL, &report},
      {"value_size 32", shared_context, NULL, CLGPU_TYPE_UINT32, 32, NULL, &report},
      {"a bit range", shared_context, &ranged, CLGPU_TYPE_UINT32, 4, NULL, &report},
  };
  for (size_t r = 0; r < sizeof upto_rows / sizeof upto_rows[0]; r++) {
    clgpu_status status = clgpu_segmented_sort_workspace_size_upto(
        upto_rows[r].context, upto_rows[r].spec, upto_rows[r].key_type, upto_rows[r].value_size,
        1000, 100, upto_rows[r].options, upto_rows[r].out);
    if (status != CLGPU_INVALID_ARGUMENT || !strstr(clgpu_last_error(), upto)) {
      fail_msg(
          "%s misuse \"%s\": %s (%d), expected CLGPU_INVALID_ARGUMENT and a message naming "
          "it; detail: %s",
          upto, upto_rows[r].name, clgpu_status_name(status), (int)status, clgpu_last_error());
    }
    print_message("# %s misuse \"%s\": %s\n", upto, upto_rows[r].name, clgpu_last_error());
  }
  assert_status(clgpu_segmented_sort_workspace_size_upto(shared_context, NULL, CLGPU_TYPE_OPAQUE, 0,
                                                         1000, 100, NULL, &report),
                CLGPU_TYPE_MISMATCH);
  assert_non_null(strstr(clgpu_last_error(), upto));
  /* NULL out for the exact query. */
  misuse_call call;
  reset_call(&f, &call);
  assert_status(clgpu_segmented_sort_workspace_size(shared_context, NULL, call.keys, call.values,
                                                    call.offsets, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "clgpu_segmented_sort_workspace_size"));
  expect_region_unchanged(&f.keys, f.keys_initial, "keys", "after the queries");

  /* The unedited call works: the rows failed for their own reason. */
  uint32_t permutation[MISUSE_N];
  unsigned char expected[MISUSE_N * 4], after[MISUSE_N * 32];
  uint64_t *order = order_keys(&key_types[KEY_UINT32], f.keys_initial, MISUSE_N, 0);
  segmented_permutation(MISUSE_N, offsets, MISUSE_OFFSETS, key_precedes, order, permutation);
  free(order);
  reset_call(&f, &call);
  /* NULL options, but for Oclgrind's workspace (see oclgrind_workspaces). */
  clgpu_sort_options plain = {CLGPU_ALGORITHM_AUTO, CLGPU_SHAPE_CHUNKED,
                              oclgrind_workspace(CLGPU_SHAPE_CHUNKED)};
  expect_success(clgpu_segmented_sort(call.context, NULL, call.keys, call.values, call.offsets,
                                      oclgrind ? &plain : NULL, 0, NULL, NULL),
                 "the unedited clgpu_segmented_sort");
  assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
  test_guarded_read(shared_context, &f.keys, after);
  apply_permutation(f.keys_initial, permutation, MISUSE_N, 4, expected);
  expect_elements(after, expected, MISUSE_N, 4, permutation, offsets, MISUSE_OFFSETS, "keys",
                  "the unedited clgpu_segmented_sort");
  test_guarded_read(shared_context, &f.values, after);
  apply_permutation(f.values_initial, permutation, MISUSE_N, 4, expected);
  expect_elements(after, expected, MISUSE_N, 4, permutation, offsets, MISUSE_OFFSETS, "values",
                  "the unedited clgpu_segmented_sort");
  expect_region_unchanged(&f.offsets, f.offsets_initial, "offsets",
                          "the unedited clgpu_segmented_sort");

  assert_int_equal(clSetUserEventStatus(f.user_event, CL_COMPLETE), CL_SUCCESS);
  clReleaseEvent(f.user_event);
  clReleaseMemObject(f.foreign);
  clgpu_context_destroy(f.other_context);
  test_guarded_release(&f.offsets);
  test_guarded_release(&f.values);
  test_guarded_release(&f.keys);
}

#define KEY_TEST(function, index) \
  { #function "(" #index ")", function, NULL, NULL, (void *)&key_states[index] }

int main(void) {
  test_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(host_reference),
      cmocka_unit_test(segment_shapes),
      cmocka_unit_test(segments_at_a_ranges_end),
      KEY_TEST(every_key_type, KEY_INT8),
      KEY_TEST(every_key_type, KEY_UINT8),
      KEY_TEST(every_key_type, KEY_INT16),
      KEY_TEST(every_key_type, KEY_UINT16),
      KEY_TEST(every_key_type, KEY_INT32),
      KEY_TEST(every_key_type, KEY_UINT32),
      KEY_TEST(every_key_type, KEY_INT64),
      KEY_TEST(every_key_type, KEY_UINT64),
      KEY_TEST(every_key_type, KEY_FLOAT),
      KEY_TEST(every_key_type, KEY_DOUBLE),
      KEY_TEST(every_key_type, KEY_HALF),
      cmocka_unit_test(comparators_and_custom_keys),
      cmocka_unit_test(strided_views),
      cmocka_unit_test(workspaces),
      cmocka_unit_test(bad_offsets_stay_in_bounds),
      cmocka_unit_test(wait_list_and_event),
      cmocka_unit_test(misuse),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
