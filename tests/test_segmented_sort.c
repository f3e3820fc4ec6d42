/* clgpu_segmented_sort (sort.h) against a host reference: each segment
 * [offsets[k], offsets[k + 1]) sorted stably on the host (a bottom-up merge
 * sort of indices, sort_reference.c's), in the order of the spec, the keys
 * outside every segment where they were.
 *
 * The natural order is sort_reference.h's: integers by value, floats by their
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
 * the guards. Options alternate between CLGPU_ALGORITHM_AUTO (the radix
 * path for keys of up to 4 bytes in segments of 4096 keys or more on
 * average, sort.h) and MERGE, but for calls given a workspace (made for
 * AUTO); the radix path's cases ask for RADIX or MERGE themselves.
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
 * - radix_key_type(T), radix_segments, radix_strided: the radix path
 *   (CLGPU_ALGORITHM_RADIX) for every key type, both orders, values of 1 to
 *   16 bytes, uint and ulong offsets, every valid layout from 2 to 70000
 *   keys (segments across every tile and work-item range, its packed and
 *   split forms, 32- and 64-bit pairs), strided views.
 * - radix_against_merge: RADIX, MERGE and AUTO give the same bytes.
 * - radix_auto_threshold: which path and family each report shows.
 * - radix_workspaces: exact and _upto workspaces serve radix calls, and
 *   the refusals (too small, the other family).
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
#include "sort_reference.h"
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
 * instead (one a shape and algorithm family, merge or radix; each serves
 * every call of its family in this file there: up to 10000 keys of up to 8
 * bytes, strided, with up to 16 bytes of values, on either path), whose
 * shadow a host write of their whole region sets to its full size. */
static clgpu_workspace *oclgrind_workspaces[2][2];

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
  /* RADIX: the radix path's split form (8-byte keys), whose report holds
   * the merge path's and the packed form's needs too for as many keys. */
  for (size_t h = 0; h < 2; h++) {
    for (int radix = 0; radix < 2; radix++) {
      clgpu_sort_options options = {
          .algorithm = radix ? CLGPU_ALGORITHM_RADIX : CLGPU_ALGORITHM_MERGE,
          .shape = both_shapes[h]};
      clgpu_workspace_size report;
      assert_status(clgpu_segmented_sort_workspace_size(shared_context, NULL, &keys, &values,
                                                        &offsets, &options, &report),
                    CLGPU_SUCCESS);
      assert_int_equal(report.parts[0].algorithm,
                       radix ? CLGPU_ALGORITHM_RADIX : CLGPU_ALGORITHM_MERGE);
      assert_status(clgpu_workspace_create(shared_context, &report, &oclgrind_workspaces[h][radix]),
                    CLGPU_SUCCESS);
      settle_shadow(oclgrind_workspaces[h][radix]);
    }
  }
  clgpu_buffer_release(shared_context, scratch);
}

/* The workspace a call of `shape` takes under Oclgrind when it has none of
 * its own, for the family its keys and options resolve to (radix: built-in
 * keys in their natural order, AUTO or RADIX); NULL elsewhere. */
static clgpu_workspace *oclgrind_workspace(clgpu_shape shape, int radix_family) {
  if (!oclgrind) return NULL;
  return oclgrind_workspaces[shape == CLGPU_SHAPE_TILED ? 1 : 0][radix_family ? 1 : 0];
}

static int group_setup(void **state) {
  (void)state;
  test_seed();
  shared_context = test_context_without_disk_cache();
  oclgrind = test_on_oclgrind(shared_context);
  if (oclgrind) make_oclgrind_workspaces();
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  for (size_t h = 0; h < 2; h++) {
    for (int radix = 0; radix < 2; radix++) {
      clgpu_workspace_destroy(oclgrind_workspaces[h][radix]);
      oclgrind_workspaces[h][radix] = NULL;
    }
  }
  clgpu_context_destroy(shared_context);
  shared_context = NULL;
  return 0;
}

/* ---- the host reference of a segmented sort ---- */

/* `precedes` over the elements from `base` on. */
typedef struct shifted {
  test_precedes_fn precedes;
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
                                  test_precedes_fn precedes, const void *context,
                                  uint32_t *permutation) {
  for (size_t i = 0; i < n; i++) permutation[i] = (uint32_t)i;
  uint32_t *local = malloc((n ? n : 1) * sizeof *local);
  assert_non_null(local);
  for (size_t k = 0; k + 1 < count; k++) {
    size_t start = (size_t)offsets[k], stop = (size_t)offsets[k + 1];
    assert_true(start <= stop && stop <= n);
    shifted s = {precedes, context, start};
    test_stable_permutation(stop - start, shifted_precedes, &s, local);
    for (size_t j = 0; j < stop - start; j++) permutation[start + j] = (uint32_t)(start + local[j]);
  }
  free(local);
}

/* The comparators of the cases (float_reference on the host). */
typedef enum compare_kind {
  COMPARE_NONE,    /* built-in keys in the natural order */
  COMPARE_LESS,    /* float keys, "a < b" */
  COMPARE_GREATER, /* float keys, "a > b" */
  COMPARE_POINT,   /* struct { float x; int id; } keys, "a.x < b.x" */
} compare_kind;

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

/* ---- one segmented sort, checked ---- */

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
  /* AUTO (0): AUTO, or MERGE on some cases without a workspace of their
   * own; RADIX or MERGE: that one */
  clgpu_algorithm algorithm;
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
  describe_distribution(c->distribution, c->parameter, distribution, sizeof distribution);
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
  if (c->algorithm != CLGPU_ALGORITHM_AUTO) {
    size_t used = strlen(label);
    snprintf(label + used, size - used, " algorithm=%s", clgpu_algorithm_name(c->algorithm));
  }
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
    order = order_keys(&key_types[c->key], keys, n, c->descending, 0, 0);
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
  float_reference floats = {x, c->compare == COMPARE_GREATER ? FLOAT_GREATER : FLOAT_LESS,
                            c->descending};

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

  placed key_region = place_elements(shared_context, n, ksize, c->key_stride, keys, seed ^ 0x1111u);
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
    values = c->index_values ? input_indices(n) : random_bytes(n * vsize, seed ^ 0x2222u);
    expected_values = malloc(n * vsize + 1);
    assert_non_null(expected_values);
    if (valid) apply_permutation(values, permutation, n, vsize, expected_values);
    value_region =
        place_elements(shared_context, n, vsize, c->value_stride, values, seed ^ 0x3333u);
    value_view = values_view(&value_region);
  }

  placed offset_region = place_elements(shared_context, offset_count, osize, c->offsets_stride,
                                        offset_bytes, seed ^ 0x4444u);
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
  clgpu_sort_options options = {
      .algorithm = c->algorithm, .shape = c->shape, .workspace = c->workspace};
  /* A workspace made for AUTO (the radix family for built-in keys) serves
   * AUTO calls, not MERGE ones. */
  if (c->algorithm == CLGPU_ALGORITHM_AUTO && !c->workspace && (c->n + c->layout.kind) % 3 == 1) {
    options.algorithm = CLGPU_ALGORITHM_MERGE;
  }
  int radix_family = c->compare == COMPARE_NONE && options.algorithm != CLGPU_ALGORITHM_MERGE;
  if (!options.workspace && !c->own_scratch) {
    options.workspace = oclgrind_workspace(c->shape, radix_family);
  }
  cl_event event = NULL, gate = sort_gate(shared_context, c->gated);
  clgpu_status status =
      clgpu_segmented_sort(shared_context, &spec, &key_view, vsize ? &value_view : NULL,
                           &offset_view, c->null_options ? NULL : &options, gate ? 1 : 0,
                           gate ? &gate : NULL, c->no_event ? NULL : &event);
  finish_sort_call(shared_context, status, gate, event, c->no_event, label);

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
  uint64_t *order = order_keys(&key_types[KEY_UINT32], (const unsigned char *)keys, 10, 0, 0, 0);
  segmented_permutation(10, offsets, 4, key_precedes, order, permutation);
  const uint32_t ascending[] = {0, 2, 1, 3, 7, 5, 4, 6, 8, 9};
  assert_memory_equal(permutation, ascending, sizeof ascending);
  free(order);
  order = order_keys(&key_types[KEY_UINT32], (const unsigned char *)keys, 10, 1, 0, 0);
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
  float_reference less = {x, FLOAT_LESS, 0}, greater = {x, FLOAT_GREATER, 0},
                  less_descending = {x, FLOAT_LESS, 1};
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
  clgpu_sort_options options = {
      .algorithm = CLGPU_ALGORITHM_AUTO, .shape = c->shape, .workspace = NULL};
  clgpu_status status = clgpu_segmented_sort_workspace_size(
      shared_context, &spec, &key_view, vsize ? &value_view : NULL, &offset_view, &options, report);
  test_guarded_release(&offset_buffer);
  test_guarded_release(&value_buffer);
  test_guarded_release(&key_buffer);
  return status;
}

/* The buffers a segmented sort's report lists after sort.h's six: its
 * radix path's. */
static const char *const segment_buffer_names[2] = {"segment_images", "segment_pairs"};
enum { SEGMENT_IMAGES = 6, SEGMENT_PAIRS };

/* The name of buffer b of a segmented sort's report. */
static const char *segmented_buffer_name(unsigned b) {
  return b < 6 ? sort_buffer_names[b] : segment_buffer_names[b - 6];
}

/* A report of uint32 keys with AUTO: one part (SEGMENTED_SORT, RADIX, the
 * shape asked for: the radix family, whichever path), sort.h's six buffers
 * and the radix path's two, aligned and apart inside total_bytes; the
 * staged copies exactly where a view is strided, the other half of the
 * ping-pong n * (k + v) bytes. A call's report (segments of 16 keys on
 * average: the merge path) has no digit counts, images or pairs and one
 * pass_state word when keys move; an _upto report (`upto`) covers the
 * radix path too: n images and 2n pairs. */
static void check_report(const clgpu_workspace_size *report, const seg_case *c, int upto,
                         const char *label) {
  if (report->num_parts != 1 || report->parts[0].operation != CLGPU_OPERATION_SEGMENTED_SORT ||
      report->parts[0].algorithm != CLGPU_ALGORITHM_RADIX || report->parts[0].shape != c->shape ||
      report->parts[0].parent != -1) {
    fail_msg(
        "%s: the report's parts are not (segmented_sort, radix, %s, -1): %u parts, (%s, %s, "
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
  if (report->num_buffers != 8) fail_msg("%s: %u buffers, not 8", label, report->num_buffers);
  for (unsigned b = 0; b < report->num_buffers; b++) {
    const clgpu_workspace_buffer *buffer = &report->buffers[b];
    if (buffer->name == NULL || strcmp(buffer->name, segmented_buffer_name(b)) != 0 ||
        buffer->part != 0 || buffer->offset % alignment != 0 ||
        buffer->bytes != buffer->count * clgpu_type_size(buffer->type) ||
        (buffer->bytes > 0 && buffer->offset + buffer->bytes > report->total_bytes)) {
      fail_msg("%s: buffer %u (%s, expected %s) is not a consistent part of the report", label, b,
               buffer->name ? buffer->name : "unnamed", segmented_buffer_name(b));
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
  uint64_t images = upto ? moves * n : 0, pairs = upto ? moves * 2 * n : 0;
  if (buffers[KEYS_ALTERNATE].bytes != moves * n * k ||
      buffers[VALUES_ALTERNATE].bytes != moves * n * v || (!upto && buffers[COUNTS].count != 0) ||
      (upto ? buffers[PASS_STATE].count < moves : buffers[PASS_STATE].count != moves) ||
      buffers[SEGMENT_IMAGES].count != images || buffers[SEGMENT_PAIRS].count != pairs) {
    fail_msg(
        "%s: keys_alternate %llu, values_alternate %llu bytes, counts %llu, pass_state %llu, "
        "segment_images %llu, segment_pairs %llu elements",
        label, (unsigned long long)buffers[KEYS_ALTERNATE].bytes,
        (unsigned long long)buffers[VALUES_ALTERNATE].bytes,
        (unsigned long long)buffers[COUNTS].count, (unsigned long long)buffers[PASS_STATE].count,
        (unsigned long long)buffers[SEGMENT_IMAGES].count,
        (unsigned long long)buffers[SEGMENT_PAIRS].count);
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
  f.key_region = place_elements(shared_context, n, 4, 1, f.keys, seed ^ 3);
  f.value_region = place_elements(shared_context, n, 4, 1, f.values, seed ^ 4);
  f.offset_region = place_elements(shared_context, f.offset_count, 4, 1, f.offsets, seed ^ 5);
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
  clgpu_sort_options options = {
      .algorithm = CLGPU_ALGORITHM_AUTO, .shape = shape, .workspace = workspace};
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
  clgpu_sort_options options = {
      .algorithm = CLGPU_ALGORITHM_AUTO, .shape = shape, .workspace = NULL};
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
        check_report(&report, &c, 0, label);
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
    clgpu_sort_options options = {
        .algorithm = CLGPU_ALGORITHM_AUTO, .shape = shape, .workspace = NULL};
    clgpu_workspace_size upto;
    assert_status(clgpu_segmented_sort_workspace_size_upto(shared_context, NULL, CLGPU_TYPE_UINT32,
                                                           4, max_n, max_segments, &options, &upto),
                  CLGPU_SUCCESS);
    seg_case whole = workspace_case(max_n, h, 0);
    check_report(&upto, &whole, 1, "clgpu_segmented_sort_workspace_size_upto");
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
      clgpu_sort_options sort_options = {
          .algorithm = radix ? CLGPU_ALGORITHM_RADIX : CLGPU_ALGORITHM_MERGE, .shape = shape};
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
    clgpu_sort_options merge = {
        .algorithm = CLGPU_ALGORITHM_MERGE, .shape = shape, .workspace = workspace};
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
      clgpu_sort_options over = {
          .algorithm = CLGPU_ALGORITHM_AUTO, .shape = shape, .workspace = aliasing};
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
  misuse_others others;
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
static void edit_radix_comparator(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.compare = "a < b";
  call->options_value.algorithm = CLGPU_ALGORITHM_RADIX;
  call->options = &call->options_value;
}
static void edit_radix_custom_keys(const misuse_fixture *f, misuse_call *call) {
  call->spec.compare = "a.x < b.x";
  call->spec.key_type = "point";
  call->spec.declarations = point_declarations;
  call->spec.key_size = 8;
  call->keys_view = view_1d(f->keys.buffer, f->keys.offset, CLGPU_TYPE_OPAQUE, MISUSE_N * 4);
  call->values = NULL;
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
  call->wait_list = &f->others.user_event;
}
static void edit_foreign_offsets(const misuse_fixture *f, misuse_call *call) {
  call->offsets_view = view_1d(f->others.foreign, 0, CLGPU_TYPE_UINT32, MISUSE_OFFSETS);
}
static void edit_foreign_keys(const misuse_fixture *f, misuse_call *call) {
  call->keys_view = view_1d(f->others.foreign, 0, CLGPU_TYPE_UINT32, MISUSE_N);
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
    {"CLGPU_ALGORITHM_RADIX with a comparator", CLGPU_INVALID_ARGUMENT, edit_radix_comparator,
     CALL_AND_QUERY, NULL},
    {"CLGPU_ALGORITHM_RADIX with custom keys", CLGPU_INVALID_ARGUMENT, edit_radix_custom_keys,
     CALL_AND_QUERY, NULL},
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

/* Run one misuse row through the call and (where it applies) the size
 * query, and check the refusal: its status, a message naming the entry
 * point, no event, every region unchanged. */
static void check_misuse_row(const misuse_fixture *f, const misuse_row *row) {
  if (misuse_row_skipped(row->name, row->expected, row->applies, oclgrind)) return;
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
    expect_region_unchanged(shared_context, &f->keys, f->keys_initial, "keys", label);
    expect_region_unchanged(shared_context, &f->values, f->values_initial, "values", label);
    expect_region_unchanged(shared_context, &f->offsets, f->offsets_initial, "offsets", label);
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
  f.others = misuse_others_make(shared_context, MISUSE_N * 8);

  for (size_t r = 0; r < sizeof misuse_rows / sizeof misuse_rows[0]; r++) {
    check_misuse_row(&f, &misuse_rows[r]);
  }

  /* The _upto query. */
  const char *upto = "clgpu_segmented_sort_workspace_size_upto";
  clgpu_workspace_size report;
  clgpu_sort_options radix = {
      .algorithm = CLGPU_ALGORITHM_RADIX, .shape = CLGPU_SHAPE_AUTO, .workspace = NULL};
  clgpu_sort_spec ranged, compared;
  memset(&ranged, 0, sizeof ranged);
  ranged.end_bit = 16;
  memset(&compared, 0, sizeof compared);
  compared.compare = "a < b";
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
      {"CLGPU_ALGORITHM_RADIX with a comparator", shared_context, &compared, CLGPU_TYPE_UINT32, 4,
       &radix, &report},
      {"a bit range with CLGPU_ALGORITHM_RADIX", shared_context, &ranged, CLGPU_TYPE_UINT32, 4,
       &radix, &report},
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
  expect_region_unchanged(shared_context, &f.keys, f.keys_initial, "keys", "after the queries");

  /* The unedited call works: the rows failed for their own reason. */
  uint32_t permutation[MISUSE_N];
  unsigned char expected[MISUSE_N * 4], after[MISUSE_N * 32];
  uint64_t *order = order_keys(&key_types[KEY_UINT32], f.keys_initial, MISUSE_N, 0, 0, 0);
  segmented_permutation(MISUSE_N, offsets, MISUSE_OFFSETS, key_precedes, order, permutation);
  free(order);
  reset_call(&f, &call);
  /* NULL options, but for Oclgrind's workspace (see oclgrind_workspaces). */
  clgpu_sort_options plain = {.algorithm = CLGPU_ALGORITHM_AUTO,
                              .shape = CLGPU_SHAPE_CHUNKED,
                              .workspace = oclgrind_workspace(CLGPU_SHAPE_CHUNKED, 1)};
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
  expect_region_unchanged(shared_context, &f.offsets, f.offsets_initial, "offsets",
                          "the unedited clgpu_segmented_sort");

  misuse_others_release(&f.others);
  test_guarded_release(&f.offsets);
  test_guarded_release(&f.values);
  test_guarded_release(&f.keys);
}

/* ---- the radix path ---- */

/* One key type on the radix path (CLGPU_ALGORITHM_RADIX): ascending and
 * descending, keys alone and with values whose size rotates over the
 * types (every size from 1 to 16 bytes meets both orders), uint and ulong
 * offsets, both shapes; floats with their specials (NaNs of both signs and
 * several payloads, -0 and +0, infinities, denormals), integers with their
 * extremes. Sizes on both sides of one radix kernel's (16384 keys, the
 * tuning table's sort_single_chunk); segments inside [offsets[0],
 * offsets[S]) with empty ones among them, a giant among tiny ones,
 * segments of 1000 keys, one segment. */
static void radix_key_type(void **state) {
  unsigned key = *(const unsigned *)*state;
  static const size_t value_sizes[] = {1, 2, 4, 8, 16};
  int is_float = key_types[key].kind == KIND_FLOAT;
  const struct {
    int descending;
    size_t value_bytes;
    clgpu_type offsets;
    size_t shape, n, small_n;
    layout l;
  } rows[] = {
      {0, value_sizes[key % 5], CLGPU_TYPE_UINT32, key % 2, 3001, 1000, {LAYOUT_INNER, 0}},
      {1,
       value_sizes[(key + 2) % 5],
       CLGPU_TYPE_UINT64,
       (key + 1) % 2,
       70000,
       2000,
       {LAYOUT_GIANT_TINY, 0}},
      {(int)(key % 2),
       0,
       key % 2 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32,
       key % 2,
       20000,
       1500,
       {LAYOUT_FIXED, 1000}},
  };
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    seg_case c = base_case(key, oclgrind ? rows[r].small_n : rows[r].n, rows[r].l,
                           both_shapes[rows[r].shape]);
    c.what = "radix path, every key type";
    c.algorithm = CLGPU_ALGORITHM_RADIX;
    c.descending = rows[r].descending;
    c.value_bytes = rows[r].value_bytes;
    c.offsets_type = rows[r].offsets;
    c.distribution = is_float || r == 0 ? TEST_FLOAT_SPECIALS : TEST_MIN_MAX_MIXED;
    run_case(&c);
    if (r == 1 && !oclgrind) {
      /* The same program over one segment of few distinct keys. */
      c.n = 5000;
      c.layout = (layout){LAYOUT_ONE, 0};
      c.distribution = is_float ? TEST_FLOAT_SPECIALS : TEST_FEW_UNIQUE;
      c.parameter = 16;
      run_case(&c);
    }
  }
}

/* uint32 keys with their input indices as values (stability shows) on the
 * radix path, both shapes, every valid layout from 2 keys to several radix
 * chunks (70000 keys: more than one group's kernels in both shapes, and
 * more than one work-item of the prepare and gather kernels). Segments of
 * 1000 and 4097 keys, and of 4096 after one of 4094, put a segment across
 * every multiple of 4096 (a TILED radix tile of 256 items of 16 keys) and
 * across every work-item's range; segments of one key at 70000 keys take
 * 34 bits of position and segment, so the pairs take 64 bits. Then keys
 * alone, on a few layouts. */
static void radix_segments(void **state) {
  (void)state;
  static const layout layouts[] = {
      {LAYOUT_ONE, 0},        {LAYOUT_SINGLES, 0},   {LAYOUT_FIXED, 16}, {LAYOUT_RANDOM, 0},
      {LAYOUT_GIANT_TINY, 0}, {LAYOUT_INNER, 0},     {LAYOUT_NONE, 0},   {LAYOUT_FIXED, 1000},
      {LAYOUT_FIXED, 4097},   {LAYOUT_PHASED, 4096},
  };
  static const size_t sizes[] = {2, 17, 1000, 16385, 70000};
  static const size_t small_sizes[] = {2, 17, 1000, 4099};
  size_t layout_count = sizeof layouts / sizeof layouts[0];
  for (size_t l = 0; l < layout_count; l++) {
    for (size_t s = 0; s < (oclgrind ? 4u : 5u); s++) {
      for (size_t h = 0; h < 2; h++) {
        /* Small sizes (and every size under Oclgrind) in one shape. */
        if ((oclgrind || s < 3) && h != (l + s) % 2) continue;
        seg_case c =
            base_case(KEY_UINT32, oclgrind ? small_sizes[s] : sizes[s], layouts[l], both_shapes[h]);
        c.what = "radix path, segments";
        c.algorithm = CLGPU_ALGORITHM_RADIX;
        c.index_values = 1;
        c.distribution = (l + s) % 3 ? TEST_FEW_UNIQUE : TEST_UNIFORM;
        c.parameter = 8;
        c.offsets_type = (l + s + h) % 2 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32;
        run_case(&c);
      }
    }
  }
  static const layout alone[] = {{LAYOUT_ONE, 0}, {LAYOUT_SINGLES, 0}, {LAYOUT_INNER, 0}};
  for (size_t h = 0; h < 2; h++) {
    for (size_t l = 0; l < 3; l++) {
      if (oclgrind && (l + h) % 2) continue;
      seg_case c = base_case(KEY_UINT32, oclgrind ? 4099 : (l == 2 ? 16385 : 70000), alone[l],
                             both_shapes[h]);
      c.what = "radix path, keys only";
      c.algorithm = CLGPU_ALGORITHM_RADIX;
      c.offsets_type = l % 2 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32;
      run_case(&c);
    }
  }
}

/* Strided keys (staged through the workspace and written back), values
 * and offsets on the radix path: the same as sorting the logical
 * elements, every byte between them unchanged. */
static void radix_strided(void **state) {
  (void)state;
  static const struct {
    unsigned key;
    ptrdiff_t key_stride, value_stride, offsets_stride;
    size_t value_bytes;
    int descending;
    layout l;
  } rows[] = {
      {KEY_UINT32, 2, -1, 1, 4, 0, {LAYOUT_RANDOM, 0}},
      {KEY_UINT32, -1, 2, -2, 4, 1, {LAYOUT_FIXED, 1000}},
      {KEY_FLOAT, -2, 3, 2, 8, 0, {LAYOUT_INNER, 0}},
      {KEY_INT64, 3, 1, -1, 0, 1, {LAYOUT_GIANT_TINY, 0}},
      {KEY_HALF, -1, -1, 1, 2, 0, {LAYOUT_ONE, 0}},
  };
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    for (size_t s = 0; s < 2; s++) {
      if (oclgrind && s) continue;
      seg_case c = base_case(rows[r].key, s ? 70000 : 1000, rows[r].l, both_shapes[(r + s) % 2]);
      c.what = "radix path, strided";
      c.algorithm = CLGPU_ALGORITHM_RADIX;
      c.distribution = r % 2 ? TEST_FEW_UNIQUE : TEST_FLOAT_SPECIALS;
      c.parameter = 16;
      c.key_stride = rows[r].key_stride;
      c.value_stride = rows[r].value_stride;
      c.offsets_stride = rows[r].offsets_stride;
      c.index_values = rows[r].value_bytes == 4;
      c.value_bytes = rows[r].value_bytes == 4 ? 0 : rows[r].value_bytes;
      c.descending = rows[r].descending;
      c.offsets_type = r % 2 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32;
      run_case(&c);
    }
  }
}

/* Sort keys and values of a contiguous buffer pair (made from `keys` and
 * `values`) with `algorithm`, and read them back. */
static void sort_copy(clgpu_algorithm algorithm, clgpu_shape shape, const key_type *t,
                      const clgpu_sort_spec *spec, const unsigned char *keys,
                      const unsigned char *values, size_t n, size_t value_bytes,
                      const clgpu_array *offsets, unsigned char *keys_out,
                      unsigned char *values_out, const char *label) {
  cl_mem key_buffer = NULL, value_buffer = NULL;
  assert_status(clgpu_buffer_create(shared_context, CL_MEM_READ_WRITE, n * t->size, &key_buffer),
                CLGPU_SUCCESS);
  assert_status(
      clgpu_buffer_create(shared_context, CL_MEM_READ_WRITE, n * value_bytes, &value_buffer),
      CLGPU_SUCCESS);
  clgpu_array key_view, value_view;
  assert_status(clgpu_array_1d(key_buffer, 0, t->type, n, &key_view), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(value_buffer, 0, CLGPU_TYPE_UINT8, n * value_bytes, &value_view),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_write(shared_context, &key_view, keys, n * t->size, 0, NULL),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_write(shared_context, &value_view, values, n * value_bytes, 0, NULL),
                CLGPU_SUCCESS);
  int radix_family = algorithm != CLGPU_ALGORITHM_MERGE;
  clgpu_sort_options options = {
      .algorithm = algorithm, .shape = shape, .workspace = oclgrind_workspace(shape, radix_family)};
  expect_success(clgpu_segmented_sort(shared_context, spec, &key_view, &value_view, offsets,
                                      &options, 0, NULL, NULL),
                 label);
  assert_status(clgpu_array_read(shared_context, keys_out, n * t->size, &key_view, 0, NULL),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_read(shared_context, values_out, n * value_bytes, &value_view, 0, NULL),
                CLGPU_SUCCESS);
  clgpu_buffer_release(shared_context, value_buffer);
  clgpu_buffer_release(shared_context, key_buffer);
}

/* The same keys, values and offsets sorted on the radix path
 * (CLGPU_ALGORITHM_RADIX), merged (MERGE) and by AUTO: the same bytes,
 * NaNs' signs and payloads included, keys and values. */
static void radix_against_merge(void **state) {
  (void)state;
  static const struct {
    unsigned key;
    size_t n, small_n;
    layout l;
    size_t value_bytes;
    int descending;
  } rows[] = {
      {KEY_FLOAT, 5000, 1000, {LAYOUT_INNER, 0}, 16, 0},
      {KEY_HALF, 3000, 1000, {LAYOUT_GIANT_TINY, 0}, 2, 1},
      {KEY_DOUBLE, 70000, 2000, {LAYOUT_FIXED, 1000}, 8, 1},
      {KEY_INT16, 20000, 1500, {LAYOUT_ONE, 0}, 1, 0},
      {KEY_UINT64, 16385, 1000, {LAYOUT_RANDOM, 0}, 4, 1},
  };
  static const clgpu_algorithm algorithms[] = {CLGPU_ALGORITHM_RADIX, CLGPU_ALGORITHM_MERGE,
                                               CLGPU_ALGORITHM_AUTO};
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    const key_type *t = &key_types[rows[r].key];
    size_t n = oclgrind ? rows[r].small_n : rows[r].n, v = rows[r].value_bytes;
    clgpu_shape shape = both_shapes[r % 2];
    char label[200];
    snprintf(label, sizeof label, "segmented sort radix against merge: n=%zu keys=%s values=%zu %s",
             n, t->name, v, clgpu_shape_name(shape));
    uint64_t seed = test_case_seed(label);
    unsigned char *keys = malloc(n * t->size);
    assert_non_null(keys);
    generate_keys(t, TEST_FLOAT_SPECIALS, 0, n, seed, keys);
    unsigned char *values = random_bytes(n * v, seed ^ 1);
    size_t count = 0;
    uint64_t *offsets = make_offsets(rows[r].l, n, seed ^ 2, UINT64_MAX, &count);
    cl_mem offset_buffer = NULL;
    assert_status(clgpu_buffer_create(shared_context, CL_MEM_READ_WRITE, count * 8, &offset_buffer),
                  CLGPU_SUCCESS);
    clgpu_array offset_view;
    assert_status(clgpu_array_1d(offset_buffer, 0, CLGPU_TYPE_UINT64, count, &offset_view),
                  CLGPU_SUCCESS);
    assert_status(clgpu_array_write(shared_context, &offset_view, offsets, count * 8, 0, NULL),
                  CLGPU_SUCCESS);
    clgpu_sort_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.descending = rows[r].descending;
    unsigned char *out_keys[3], *out_values[3];
    for (size_t a = 0; a < 3; a++) {
      out_keys[a] = malloc(n * t->size);
      out_values[a] = malloc(n * v);
      assert_non_null(out_keys[a]);
      assert_non_null(out_values[a]);
      sort_copy(algorithms[a], shape, t, &spec, keys, values, n, v, &offset_view, out_keys[a],
                out_values[a], label);
    }
    for (size_t a = 1; a < 3; a++) {
      expect_elements(out_keys[a], out_keys[0], n, t->size, NULL, offsets, count,
                      a == 1 ? "keys (merged against radix)" : "keys (AUTO against radix)", label);
      expect_elements(out_values[a], out_values[0], n, v, NULL, offsets, count,
                      a == 1 ? "values (merged against radix)" : "values (AUTO against radix)",
                      label);
    }
    for (size_t a = 0; a < 3; a++) {
      free(out_values[a]);
      free(out_keys[a]);
    }
    clgpu_buffer_release(shared_context, offset_buffer);
    free(offsets);
    free(values);
    free(keys);
  }
}

/* The report of a segmented sort of n contiguous keys of `keys_type`
 * (custom keys with spec->key_type: 4 bytes each) with 4-byte values in
 * `segments` segments (views over one scratch buffer; the query reads no
 * data). */
static clgpu_workspace_size report_in(clgpu_context *context, size_t n, size_t segments,
                                      clgpu_type keys_type, clgpu_algorithm algorithm,
                                      const clgpu_sort_spec *spec, clgpu_shape shape) {
  cl_mem buffer = NULL;
  assert_status(
      clgpu_buffer_create(context, CL_MEM_READ_WRITE, 16 * n + 8 * (segments + 1), &buffer),
      CLGPU_SUCCESS);
  clgpu_array keys, values, offsets;
  assert_status(clgpu_array_1d(buffer, 0, spec && spec->key_type ? CLGPU_TYPE_OPAQUE : keys_type,
                               spec && spec->key_type ? 4 * n : n, &keys),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 8 * n, CLGPU_TYPE_UINT32, n, &values), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 16 * n, CLGPU_TYPE_UINT64, segments + 1, &offsets),
                CLGPU_SUCCESS);
  clgpu_sort_options options = {.algorithm = algorithm, .shape = shape, .workspace = NULL};
  clgpu_workspace_size report;
  assert_status(clgpu_segmented_sort_workspace_size(context, spec, &keys, &values, &offsets,
                                                    &options, &report),
                CLGPU_SUCCESS);
  clgpu_buffer_release(context, buffer);
  return report;
}

static clgpu_workspace_size path_report(size_t n, size_t segments, clgpu_type keys_type,
                                        clgpu_algorithm algorithm, const clgpu_sort_spec *spec,
                                        clgpu_shape shape) {
  return report_in(shared_context, n, segments, keys_type, algorithm, spec, shape);
}

/* Which path AUTO takes, as the report shows it (the radix path's images
 * and pairs), and the family in its part: the radix path at 4096 keys a
 * segment on average where image, segment number and position fit in 64
 * bits, merging below it, for 8-byte keys and where they do not fit;
 * RADIX always the radix path (2 keys or more); MERGE, a comparator and
 * custom keys merging, in the MERGE family; the threshold moved by
 * CLGPU_TUNING; then both sides of the threshold sorted. */
static void radix_auto_threshold(void **state) {
  (void)state;
  static const char declarations[] = "typedef struct { float x; } one;";
  clgpu_sort_spec compare, custom;
  memset(&compare, 0, sizeof compare);
  compare.compare = "a < b";
  memset(&custom, 0, sizeof custom);
  custom.compare = "a.x < b.x";
  custom.key_type = "one";
  custom.declarations = declarations;
  custom.key_size = 4;
  const clgpu_type u32 = CLGPU_TYPE_UINT32;
  const clgpu_algorithm automatic = CLGPU_ALGORITHM_AUTO, radix = CLGPU_ALGORITHM_RADIX;
  const struct {
    const char *name;
    size_t n, segments;
    clgpu_type key_type;
    clgpu_algorithm algorithm;
    const clgpu_sort_spec *spec;
    int radix_path;
    clgpu_algorithm family;
  } rows[] = {
      {"AUTO, 4096 keys a segment", 16384, 4, u32, automatic, NULL, 1, radix},
      {"AUTO, 3276 keys a segment", 16384, 5, u32, automatic, NULL, 0, radix},
      {"AUTO, one segment", 100000, 1, u32, automatic, NULL, 1, radix},
      {"AUTO, one segment of int16", 100000, 1, CLGPU_TYPE_INT16, automatic, NULL, 1, radix},
      {"AUTO, one segment of uint64", 100000, 1, CLGPU_TYPE_UINT64, automatic, NULL, 0, radix},
      {"AUTO, 2^22 keys in 510 segments (31 bits)", (size_t)1 << 22, 510, u32, automatic, NULL, 1,
       radix},
      {"AUTO, 2^22 keys in 1024 segments (33 bits)", (size_t)1 << 22, 1024, u32, automatic, NULL, 0,
       radix},
      {"AUTO, no segment", 100000, 0, u32, automatic, NULL, 0, radix},
      {"RADIX, 16 keys a segment", 4096, 256, u32, radix, NULL, 1, radix},
      {"RADIX, one segment of uint64", 4096, 1, CLGPU_TYPE_UINT64, radix, NULL, 1, radix},
      {"RADIX, 2 keys", 2, 1, u32, radix, NULL, 1, radix},
      {"RADIX, 1 key", 1, 1, u32, radix, NULL, 0, radix},
      {"MERGE, one segment", 100000, 1, u32, CLGPU_ALGORITHM_MERGE, NULL, 0, CLGPU_ALGORITHM_MERGE},
      {"AUTO with a comparator", 100000, 1, u32, automatic, &compare, 0, CLGPU_ALGORITHM_MERGE},
      {"AUTO with custom keys", 100000, 1, u32, automatic, &custom, 0, CLGPU_ALGORITHM_MERGE},
  };
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    for (size_t h = 0; h < 2; h++) {
      if (oclgrind && rows[r].n > 100000) continue;
      clgpu_workspace_size report = path_report(rows[r].n, rows[r].segments, rows[r].key_type,
                                                rows[r].algorithm, rows[r].spec, both_shapes[h]);
      uint64_t images = report.buffers[SEGMENT_IMAGES].count;
      uint64_t pairs = report.buffers[SEGMENT_PAIRS].count;
      int radix_path = pairs > 0;
      /* Packed (no images) where image, segment number and position fit
       * in 64 bits. */
      unsigned bits = 8 * (unsigned)clgpu_type_size(rows[r].key_type);
      for (uint64_t x = rows[r].n - 1; x; x >>= 1) bits++;
      for (uint64_t x = rows[r].segments + 1; x; x >>= 1) bits++;
      uint64_t split_images = bits > 64 ? rows[r].n : 0;
      if (report.num_buffers != 8 || radix_path != rows[r].radix_path ||
          images != (radix_path ? split_images : 0) || pairs != (radix_path ? 2 * rows[r].n : 0) ||
          report.parts[0].algorithm != rows[r].family) {
        fail_msg(
            "%s (%s): the report has %u buffers, %llu images and %llu pairs, part algorithm "
            "%s; expected the %s path, family %s",
            rows[r].name, clgpu_shape_name(both_shapes[h]), report.num_buffers,
            (unsigned long long)images, (unsigned long long)pairs,
            clgpu_algorithm_name(report.parts[0].algorithm), rows[r].radix_path ? "radix" : "merge",
            clgpu_algorithm_name(rows[r].family));
      }
    }
  }
  /* The threshold is the tuning row's segmented_radix_mean: a context
   * made under CLGPU_TUNING=segmented_radix_mean=16 takes the radix path
   * for 16 keys a segment, and merges 15. */
  if (!getenv("CLGPU_TUNING")) {
    assert_int_equal(setenv("CLGPU_TUNING", "segmented_radix_mean=16", 1), 0);
    clgpu_context *tuned = NULL;
    clgpu_status made = clgpu_context_create(NULL, &tuned);
    unsetenv("CLGPU_TUNING");
    assert_status(made, CLGPU_SUCCESS);
    for (size_t length = 15; length <= 16; length++) {
      clgpu_workspace_size report = report_in(tuned, 256 * length, 256, CLGPU_TYPE_UINT32,
                                              CLGPU_ALGORITHM_AUTO, NULL, CLGPU_SHAPE_CHUNKED);
      if ((report.buffers[SEGMENT_PAIRS].count > 0) != (length == 16)) {
        fail_msg("segmented_radix_mean=16, %zu keys a segment: the report shows the %s path",
                 length, report.buffers[SEGMENT_PAIRS].count > 0 ? "radix" : "merge");
      }
    }
    clgpu_context_destroy(tuned);
  }
  /* Both sides of the threshold, sorted by AUTO. */
  for (size_t h = 0; h < 2 && !oclgrind; h++) {
    for (size_t length = 4095; length <= 4096; length++) {
      seg_case c = base_case(KEY_INT32, 4 * length, (layout){LAYOUT_FIXED, length}, both_shapes[h]);
      c.what = "radix path, AUTO's threshold";
      c.index_values = 1;
      c.distribution = TEST_FEW_UNIQUE;
      c.parameter = 64;
      /* AUTO, not the MERGE that run_case takes on some cases. */
      assert_true((c.n + c.layout.kind) % 3 != 1);
      c.workspace = oclgrind_workspace(both_shapes[h], 1);
      run_case(&c);
    }
  }
}

/* A call with these options that must fail with `expected`: no event, the
 * keys, values and offsets unchanged, guards intact. */
static void expect_refused_as(const fixture *f, clgpu_algorithm algorithm, clgpu_shape shape,
                              clgpu_workspace *workspace, clgpu_status expected,
                              const char *label) {
  clgpu_sort_options options = {.algorithm = algorithm, .shape = shape, .workspace = workspace};
  cl_event event = NULL;
  clgpu_status status = clgpu_segmented_sort(shared_context, NULL, &f->key_view, &f->value_view,
                                             &f->offset_view, &options, 0, NULL, &event);
  if (status != expected || !strstr(clgpu_last_error(), "clgpu_segmented_sort")) {
    fail_msg("%s: %s (%d), expected %s and a message naming clgpu_segmented_sort; detail: %s",
             label, clgpu_status_name(status), (int)status, clgpu_status_name(expected),
             clgpu_last_error());
  }
  print_message("# %s: %s\n", label, clgpu_last_error());
  if (event != NULL) fail_msg("%s: the failing call made an event", label);
  assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
  fixture_unchanged(f, label);
}

/* A workspace from a report: made, and under Oclgrind written whole. */
static clgpu_workspace *workspace_of(const clgpu_workspace_size *report) {
  clgpu_workspace *workspace = NULL;
  assert_status(clgpu_workspace_create(shared_context, report, &workspace), CLGPU_SUCCESS);
  if (oclgrind) settle_shadow(workspace);
  return workspace;
}

/* Workspaces on the radix path: the exact query's serves its call without
 * an allocation; _upto's (RADIX and AUTO) serve radix calls of fewer keys
 * and segments, 64-bit pairs included, and AUTO calls that merge; the
 * refusals: made for fewer keys, an AUTO call's that merged (no room for
 * images or pairs), the other family's either way. */
static void radix_workspaces(void **state) {
  (void)state;
  clgpu_alloc_cache *cache = NULL;
  assert_status(clgpu_alloc_cache_create(&cache), CLGPU_SUCCESS);
  size_t big = oclgrind ? 4000 : 70000;
  for (size_t h = 0; h < 2; h++) {
    clgpu_shape shape = both_shapes[h];
    /* The exact query's workspace, no allocation in the call. */
    seg_case c =
        base_case(KEY_UINT32, oclgrind ? 1000 : 20000, (layout){LAYOUT_FIXED, 1000}, shape);
    c.what = "radix path, workspace";
    c.algorithm = CLGPU_ALGORITHM_RADIX;
    c.index_values = 1;
    c.distribution = TEST_FEW_UNIQUE;
    c.parameter = 16;
    clgpu_workspace_size exact =
        path_report(c.n, (c.n + 999) / 1000, CLGPU_TYPE_UINT32, CLGPU_ALGORITHM_RADIX, NULL, shape);
    if (exact.buffers[SEGMENT_PAIRS].count != 2 * c.n) {
      fail_msg("radix path workspace: the exact report has %llu pairs for %zu keys",
               (unsigned long long)exact.buffers[SEGMENT_PAIRS].count, c.n);
    }
    assert_status(clgpu_alloc_scope_begin(shared_context, cache), CLGPU_SUCCESS);
    c.workspace = workspace_of(&exact);
    clgpu_alloc_stats before = stats_of(cache);
    run_case(&c);
    if (allocated_between(before, stats_of(cache))) {
      fail_msg("radix path workspace (%s): the call allocated with the queried workspace",
               clgpu_shape_name(shape));
    }
    clgpu_workspace_destroy(c.workspace);
    assert_status(clgpu_alloc_scope_end(shared_context), CLGPU_SUCCESS);

    /* _upto, RADIX and AUTO, serving smaller calls on both paths. */
    for (int automatic = 0; automatic < 2; automatic++) {
      clgpu_sort_options options = {
          .algorithm = automatic ? CLGPU_ALGORITHM_AUTO : CLGPU_ALGORITHM_RADIX, .shape = shape};
      clgpu_workspace_size upto;
      assert_status(clgpu_segmented_sort_workspace_size_upto(
                        shared_context, NULL, CLGPU_TYPE_UINT32, 4, big, big, &options, &upto),
                    CLGPU_SUCCESS);
      seg_case whole = base_case(KEY_UINT32, big, (layout){LAYOUT_ONE, 0}, shape);
      whole.index_values = 1;
      check_report(&upto, &whole, 1, "clgpu_segmented_sort_workspace_size_upto (radix path)");
      clgpu_workspace *workspace = workspace_of(&upto);
      static const layout served[] = {
          {LAYOUT_SINGLES, 0}, {LAYOUT_ONE, 0}, {LAYOUT_RANDOM, 0}, {LAYOUT_INNER, 0}};
      for (size_t l = 0; l < 4; l++) {
        if (oclgrind && (l + h + (size_t)automatic) % 2) continue;
        seg_case s = base_case(KEY_UINT32, l % 2 ? big / 3 : big, served[l], shape);
        s.what = automatic ? "radix path, an AUTO _upto workspace"
                           : "radix path, a RADIX _upto workspace";
        s.algorithm = l == 2 && automatic ? CLGPU_ALGORITHM_AUTO : CLGPU_ALGORITHM_RADIX;
        s.index_values = 1;
        s.distribution = TEST_FEW_UNIQUE;
        s.parameter = 16;
        s.workspace = workspace;
        run_case(&s);
      }
      clgpu_workspace_destroy(workspace);
    }

    /* Refusals. */
    size_t n = oclgrind ? 1000 : 16385;
    fixture f = fixture_new(n, test_case_seed("segmented sort radix refusals") + h);
    char label[300], row[400];
    snprintf(label, sizeof label,
             "segmented sort radix path workspace refusals, n=%zu uint32 keys and values, %s", n,
             clgpu_shape_name(shape));
    clgpu_sort_options radix = {
        .algorithm = CLGPU_ALGORITHM_RADIX, .shape = shape, .workspace = NULL};
    clgpu_workspace_size report;
    assert_status(clgpu_segmented_sort_workspace_size_upto(shared_context, NULL, CLGPU_TYPE_UINT32,
                                                           4, n / 2, n / 2, &radix, &report),
                  CLGPU_SUCCESS);
    clgpu_workspace *workspace = workspace_of(&report);
    snprintf(row, sizeof row, "%s: RADIX with a RADIX workspace for n/2 keys", label);
    expect_refused_as(&f, CLGPU_ALGORITHM_RADIX, shape, workspace, CLGPU_WORKSPACE_TOO_SMALL, row);
    clgpu_workspace_destroy(workspace);
    /* The exact report of an AUTO call that merges (the fixture's short
     * segments): the radix family, without the radix path's buffers. */
    clgpu_sort_options automatic = {
        .algorithm = CLGPU_ALGORITHM_AUTO, .shape = shape, .workspace = NULL};
    assert_status(
        clgpu_segmented_sort_workspace_size(shared_context, NULL, &f.key_view, &f.value_view,
                                            &f.offset_view, &automatic, &report),
        CLGPU_SUCCESS);
    assert_int_equal(report.buffers[SEGMENT_IMAGES].count, 0);
    workspace = workspace_of(&report);
    snprintf(row, sizeof row, "%s: RADIX with an AUTO call's workspace that merged", label);
    expect_refused_as(&f, CLGPU_ALGORITHM_RADIX, shape, workspace, CLGPU_WORKSPACE_TOO_SMALL, row);
    snprintf(row, sizeof row, "%s: MERGE with an AUTO call's workspace", label);
    expect_refused_as(&f, CLGPU_ALGORITHM_MERGE, shape, workspace, CLGPU_WORKSPACE_WRONG_ALGORITHM,
                      row);
    clgpu_workspace_destroy(workspace);
    clgpu_sort_options merge = {
        .algorithm = CLGPU_ALGORITHM_MERGE, .shape = shape, .workspace = NULL};
    assert_status(clgpu_segmented_sort_workspace_size_upto(shared_context, NULL, CLGPU_TYPE_UINT32,
                                                           4, n, n, &merge, &report),
                  CLGPU_SUCCESS);
    workspace = workspace_of(&report);
    snprintf(row, sizeof row, "%s: RADIX with a MERGE workspace", label);
    expect_refused_as(&f, CLGPU_ALGORITHM_RADIX, shape, workspace, CLGPU_WORKSPACE_WRONG_ALGORITHM,
                      row);
    clgpu_workspace_destroy(workspace);
    fixture_free(&f);
  }
  clgpu_alloc_cache_destroy(cache);
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
      KEY_TEST(radix_key_type, KEY_INT8),
      KEY_TEST(radix_key_type, KEY_UINT8),
      KEY_TEST(radix_key_type, KEY_INT16),
      KEY_TEST(radix_key_type, KEY_UINT16),
      KEY_TEST(radix_key_type, KEY_INT32),
      KEY_TEST(radix_key_type, KEY_UINT32),
      KEY_TEST(radix_key_type, KEY_INT64),
      KEY_TEST(radix_key_type, KEY_UINT64),
      KEY_TEST(radix_key_type, KEY_FLOAT),
      KEY_TEST(radix_key_type, KEY_DOUBLE),
      KEY_TEST(radix_key_type, KEY_HALF),
      cmocka_unit_test(radix_segments),
      cmocka_unit_test(radix_strided),
      cmocka_unit_test(radix_against_merge),
      cmocka_unit_test(radix_auto_threshold),
      cmocka_unit_test(radix_workspaces),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
