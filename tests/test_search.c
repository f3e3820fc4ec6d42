/* clgpu_lower_bound and clgpu_upper_bound (search.h) against a host
 * reference: every built-in type in its natural order (both directions),
 * comparators and custom keys, needles in and out of order with values
 * below, above, between and equal to the haystack's (NaN, -0 and the
 * infinities among floats), haystacks with duplicates and of every small
 * size, strided views, positions written over their own needles or haystack,
 * both shapes, workspaces, events, and the misuse table. Every call runs on
 * guarded buffers: bytes outside the positions' view must not change. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data.h"
#include "guard.h"
#include "sort_reference.h"
#include "support.h"
#include "views.h"

static clgpu_context *context;

static int setup(void **state) {
  (void)state;
  context = test_context(NULL);
  return context ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  clgpu_context_destroy(context);
  return 0;
}

static const clgpu_shape shapes[] = {CLGPU_SHAPE_CHUNKED, CLGPU_SHAPE_TILED};

/* A buffer holding `bytes` bytes of `image`, written whole in one command:
 * Oclgrind 21.10 does not count bytes written at an offset into a buffer
 * (clEnqueueWriteBuffer at a nonzero offset) as initialised and then reports
 * every search over them (docs/portability.md). */
static cl_mem buffer_with(const void *image, size_t bytes) {
  cl_mem buffer = NULL;
  assert_status(clgpu_buffer_create(context, CL_MEM_READ_WRITE, bytes, &buffer), CLGPU_SUCCESS);
  cl_int err = clEnqueueWriteBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 0, bytes, image,
                                    0, NULL, NULL);
  assert_int_equal(err, CL_SUCCESS);
  return buffer;
}

/* ---- the host reference ---- */

/* The number of haystack keys before x (lower) or not after it (upper),
 * by binary search over the haystack's order keys (descending: inverted). */
static uint64_t reference_bound(const uint64_t *keys, size_t n, uint64_t x, int upper) {
  size_t low = 0, high = n;
  while (low < high) {
    size_t middle = low + (high - low) / 2;
    int before = upper ? keys[middle] <= x : keys[middle] < x;
    if (before) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

/* The library's order (sort.h), sort_reference.h's: every NaN goes after
 * +inf whatever its sign. */
static uint64_t key_of(const void *array, size_t i, test_type type, int descending) {
  uint64_t key = natural_order_key((const unsigned char *)array + i * test_type_size(type), type);
  return descending ? ~key : key;
}

/* NaNs with their sign bit cleared, so that test_reference_sort (which
 * puts negative NaNs first) sorts as the library orders. */
static void positive_nans(void *array, size_t n, test_type type) {
  for (size_t i = 0; i < n; i++) {
    if (test_is_nan((const unsigned char *)array + i * test_type_size(type), type)) {
      uint64_t bits = test_load_bits(array, i, type);
      test_store_bits(array, i, type, bits & ~((uint64_t)1 << (8 * test_type_size(type) - 1)));
    }
  }
}

/* ---- one case ---- */

typedef struct search_case {
  test_type type;
  size_t n, m;
  test_distribution distribution; /* of the haystack */
  size_t parameter;
  int sorted_needles;
  int descending;
  clgpu_shape shape;
  clgpu_type positions_type;
  ptrdiff_t needles_stride, haystack_stride, positions_stride;
  int upper;
} search_case;

static void describe(const search_case *c, char *text, size_t size) {
  snprintf(text, size,
           "%s bound, %s, %zu needles%s in %zu keys (%s %zu)%s, %s, %s positions, strides "
           "%td/%td/%td",
           c->upper ? "upper" : "lower", test_type_name(c->type), c->m,
           c->sorted_needles ? " in order" : "", c->n, test_distribution_name(c->distribution),
           c->parameter, c->descending ? " descending" : "", clgpu_shape_name(c->shape),
           c->positions_type == CLGPU_TYPE_UINT64 ? "ulong" : "uint", c->needles_stride,
           c->haystack_stride, c->positions_stride);
}

/* Needles: keys of the haystack, their neighbours one bit pattern away,
 * random and special values (the type's extremes; NaN, the infinities and
 * both zeros among floats), shuffled, or in the haystack's order. */
static unsigned char *make_needles(const search_case *c, const unsigned char *haystack,
                                   uint64_t seed) {
  size_t size = test_type_size(c->type);
  unsigned char *needles = test_allocate(c->m, c->type);
  unsigned char *random = test_allocate(c->m, c->type);
  unsigned char *special = test_allocate(c->m, c->type);
  test_generate(random, c->m, c->type, TEST_UNIFORM, seed, 0);
  test_generate(special, c->m, c->type,
                test_type_is_float(c->type) ? TEST_FLOAT_SPECIALS : TEST_MIN_MAX_MIXED, seed + 1,
                0);
  test_rng rng;
  test_rng_init(&rng, seed + 2);
  for (size_t i = 0; i < c->m; i++) {
    uint64_t pick = test_rng_below(&rng, c->n > 0 ? 4 : 2);
    if (pick == 0) {
      memcpy(needles + i * size, random + i * size, size);
    } else if (pick == 1) {
      memcpy(needles + i * size, special + i * size, size);
    } else {
      size_t k = (size_t)test_rng_below(&rng, c->n);
      uint64_t bits = test_load_bits(haystack, k, c->type);
      if (pick == 3) bits += test_rng_below(&rng, 2) ? 1 : (uint64_t)-1;
      test_store_bits(needles, i, c->type, bits);
    }
  }
  if (c->sorted_needles) {
    /* In the library's order, with a negative NaN here and there (equal to
     * the positive one of its payload). */
    positive_nans(needles, c->m, c->type);
    test_reference_sort(needles, NULL, 0, c->m, c->type, c->descending);
    for (size_t i = 0; i < c->m; i += 7) {
      if (test_is_nan(needles + i * size, c->type)) {
        uint64_t bits = test_load_bits(needles, i, c->type);
        test_store_bits(needles, i, c->type, bits | ((uint64_t)1 << (8 * size - 1)));
      }
    }
  }
  free(random);
  free(special);
  return needles;
}

static void run_case(const search_case *c) {
  char label[256];
  describe(c, label, sizeof label);
  uint64_t seed = test_case_seed(label);
  size_t size = test_type_size(c->type);
  clgpu_type type = test_cl_type(c->type);
  unsigned char *haystack = test_allocate(c->n, c->type);
  test_generate(haystack, c->n, c->type, c->distribution, seed, c->parameter);
  positive_nans(haystack, c->n, c->type);
  test_reference_sort(haystack, NULL, 0, c->n, c->type, c->descending);
  unsigned char *needles = make_needles(c, haystack, seed + 10);

  uint64_t *keys = malloc((c->n + 1) * sizeof *keys);
  assert_non_null(keys);
  for (size_t i = 0; i < c->n; i++) keys[i] = key_of(haystack, i, c->type, c->descending);
  size_t position_size = c->positions_type == CLGPU_TYPE_UINT64 ? 8 : 4;
  unsigned char *expected = malloc(c->m * position_size + 1);
  unsigned char *initial = random_bytes(c->m * position_size, seed + 20);
  assert_non_null(expected);
  for (size_t i = 0; i < c->m; i++) {
    uint64_t bound =
        reference_bound(keys, c->n, key_of(needles, i, c->type, c->descending), c->upper);
    if (position_size == 8) {
      memcpy(expected + i * 8, &bound, 8);
    } else {
      uint32_t narrow = (uint32_t)bound;
      memcpy(expected + i * 4, &narrow, 4);
    }
  }

  test_placed hay = test_place(context, haystack, c->n, size, type, c->haystack_stride, seed + 30);
  test_placed need = test_place(context, needles, c->m, size, type, c->needles_stride, seed + 31);
  test_placed pos = test_place(context, initial, c->m, position_size, c->positions_type,
                               c->positions_stride, seed + 32);
  clgpu_sort_spec spec = {.descending = c->descending};
  clgpu_call_options options = {.shape = c->shape};
  clgpu_status status = c->upper ? clgpu_upper_bound(context, &spec, &pos.view, &need.view,
                                                     &hay.view, &options, 0, NULL, NULL)
                                 : clgpu_lower_bound(context, &spec, &pos.view, &need.view,
                                                     &hay.view, &options, 0, NULL, NULL);
  if (status != CLGPU_SUCCESS)
    fail_msg("%s: %s: %s", label, clgpu_status_name(status), clgpu_last_error());

  unsigned char *region = malloc(pos.region_bytes);
  unsigned char *wanted = malloc(pos.region_bytes);
  assert_non_null(region);
  assert_non_null(wanted);
  test_guarded_read(context, &pos.guarded, region);
  memcpy(wanted, pos.region, pos.region_bytes);
  scatter(wanted, &pos.spec, position_size, expected);
  for (size_t b = 0; b < pos.region_bytes; b++) {
    if (region[b] != wanted[b]) {
      size_t element = b / position_size;
      fail_msg(
          "%s: seed %llu: byte %zu of the positions' region (element %zu) is 0x%02x, "
          "expected 0x%02x",
          label, (unsigned long long)test_seed(), b, element, region[b], wanted[b]);
    }
  }
  test_guarded_check(context, &pos.guarded, label);
  /* The inputs are read only. */
  unsigned char *hay_after = malloc(hay.region_bytes + 1);
  assert_non_null(hay_after);
  test_guarded_read(context, &hay.guarded, hay_after);
  assert_memory_equal(hay_after, hay.region, hay.region_bytes);
  free(hay_after);
  test_placed_release(&hay);
  test_placed_release(&need);
  test_placed_release(&pos);
  free(region);
  free(wanted);
  free(expected);
  free(initial);
  free(keys);
  free(needles);
  free(haystack);
}

/* ---- the tests ---- */

static void every_type_both_orders(void **state) {
  (void)state;
  int small = test_on_oclgrind(context);
  const size_t sizes[][2] = {{0, 5}, {1, 9}, {2, 3}, {3, 40}, {17, 17}, {1000, 333}, {4099, 2000}};
  size_t count = sizeof sizes / sizeof sizes[0];
  for (size_t t = 0; t < TEST_TYPE_COUNT; t++) {
    for (size_t s = 0; s < 2; s++) {
      for (size_t z = 0; z < count; z++) {
        /* Oclgrind simulates every load: its sizes stay small. */
        if (small && sizes[z][0] > 1000) continue;
        for (int descending = 0; descending < 2; descending++) {
          search_case c = {test_types[t],
                           sizes[z][0],
                           sizes[z][1],
                           TEST_FEW_UNIQUE,
                           16,
                           0,
                           descending,
                           shapes[s],
                           CLGPU_TYPE_UINT32,
                           1,
                           1,
                           1,
                           (int)(z % 2)};
          c.upper = (int)((z + (size_t)descending) % 2);
          run_case(&c);
          c.upper = !c.upper;
          c.sorted_needles = 1;
          c.positions_type = CLGPU_TYPE_UINT64;
          run_case(&c);
        }
      }
    }
  }
}

static void distributions_and_sizes(void **state) {
  (void)state;
  int small = test_on_oclgrind(context);
  const test_distribution distributions[] = {TEST_UNIFORM, TEST_ALL_EQUAL, TEST_FEW_UNIQUE,
                                             TEST_FLOAT_SPECIALS, TEST_SORTED};
  const size_t haystacks[] = {4, 255, 256, 257, 16384, 65537};
  const test_type types[] = {TEST_UINT32, TEST_FLOAT, TEST_INT64, TEST_DOUBLE};
  for (size_t d = 0; d < sizeof distributions / sizeof distributions[0]; d++) {
    for (size_t h = 0; h < sizeof haystacks / sizeof haystacks[0]; h++) {

      for (size_t s = 0; s < 2; s++) {
        for (int upper = 0; upper < 2; upper++) {
          size_t m = small ? 300 : 5000 + h;
          search_case c = {types[(d + h) % 4],
                           haystacks[h],
                           m,
                           distributions[d],
                           2,
                           (int)(h % 2),
                           0,
                           shapes[s],
                           CLGPU_TYPE_UINT32,
                           1,
                           1,
                           1,
                           upper};
          run_case(&c);
        }
      }
    }
  }
}

static void strided_views(void **state) {
  (void)state;
  const ptrdiff_t strides[][3] = {{2, 1, 1}, {1, -3, 1}, {1, 1, 2}, {-1, 2, -2}, {3, -1, 5}};
  for (size_t v = 0; v < sizeof strides / sizeof strides[0]; v++) {
    for (size_t s = 0; s < 2; s++) {
      int small = test_on_oclgrind(context);
      search_case c = {v % 2 ? TEST_FLOAT : TEST_INT16,
                       small ? 70 : 700,
                       small ? 91 : 901,
                       TEST_FEW_UNIQUE,
                       256,
                       (int)(v % 2),
                       (int)(v == 3),
                       shapes[s],
                       v % 2 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32,
                       strides[v][0],
                       strides[v][1],
                       strides[v][2],
                       (int)((v + s) % 2)};
      run_case(&c);
    }
  }
}

/* A host array of uint32 keys in a buffer, read back after a call. */
static void read_uints(cl_mem buffer, size_t offset, uint32_t *host, size_t count) {
  cl_int err = clEnqueueReadBuffer(clgpu_context_queue(context), buffer, CL_TRUE, offset, count * 4,
                                   host, 0, NULL, NULL);
  assert_int_equal(err, CL_SUCCESS);
}

/* Positions written over the needles themselves, and over the haystack:
 * every needle is searched before any position lands. */
static void positions_over_their_inputs(void **state) {
  (void)state;
  const size_t N = test_on_oclgrind(context) ? 300 : 3000;
  uint32_t *haystack = malloc(N * 4), *needles = malloc(N * 4), *out = malloc(N * 4);
  uint32_t *image = malloc(2 * N * 4);
  assert_non_null(image);
  assert_non_null(haystack);
  assert_non_null(needles);
  assert_non_null(out);
  test_rng rng;
  test_rng_init(&rng, test_case_seed("positions_over_their_inputs"));
  for (size_t i = 0; i < N; i++) haystack[i] = (uint32_t)test_rng_below(&rng, 5000);
  test_reference_sort(haystack, NULL, 0, N, TEST_UINT32, 0);
  for (size_t i = 0; i < N; i++) needles[i] = (uint32_t)test_rng_below(&rng, 5200);
  uint64_t *keys = malloc(N * sizeof *keys);
  assert_non_null(keys);
  for (size_t i = 0; i < N; i++) keys[i] = haystack[i];
  for (size_t s = 0; s < 2; s++) {
    for (int target = 0; target < 2; target++) {
      memcpy(image, haystack, N * 4);
      memcpy(image + N, needles, N * 4);
      cl_mem buffer = buffer_with(image, 2 * N * 4);
      clgpu_array hay, need;
      assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT32, N, &hay), CLGPU_SUCCESS);
      assert_status(clgpu_array_1d(buffer, N * 4, CLGPU_TYPE_UINT32, N, &need), CLGPU_SUCCESS);
      clgpu_call_options options = {.shape = shapes[s]};
      clgpu_workspace_size report;
      const clgpu_array *positions = target ? &hay : &need;
      assert_status(
          clgpu_search_workspace_size(context, NULL, positions, &need, &hay, &options, &report),
          CLGPU_SUCCESS);
      assert_int_equal(report.num_buffers, 3);
      assert_string_equal(report.buffers[2].name, "packed_positions");
      assert_int_equal(report.buffers[2].bytes, N * 4);
      assert_status(
          clgpu_upper_bound(context, NULL, positions, &need, &hay, &options, 0, NULL, NULL),
          CLGPU_SUCCESS);
      read_uints(buffer, target ? 0 : N * 4, out, N);
      for (size_t i = 0; i < N; i++) {
        uint64_t want = reference_bound(keys, N, needles[i], 1);
        if (out[i] != want) {
          fail_msg("%s, positions over the %s: position %zu is %u, expected %llu",
                   clgpu_shape_name(shapes[s]), target ? "haystack" : "needles", i, out[i],
                   (unsigned long long)want);
        }
      }
      clgpu_buffer_release(context, buffer);
    }
  }
  free(haystack);
  free(needles);
  free(out);
  free(image);
  free(keys);
}

/* A comparator (int keys sorted from the largest, so the order of
 * descending natural int keys) and a float comparator in plain numeric
 * order; then its reverse through spec.descending. */
static void comparators(void **state) {
  (void)state;
  const size_t N = test_on_oclgrind(context) ? 250 : 2500;
  const size_t M = test_on_oclgrind(context) ? 170 : 1700;
  for (size_t s = 0; s < 2; s++) {
    for (int upper = 0; upper < 2; upper++) {
      for (int variant = 0; variant < 3; variant++) {
        test_type type = variant == 0 ? TEST_INT32 : TEST_FLOAT;
        int descending = variant != 1; /* the host order the comparator gives */
        unsigned char *haystack = test_allocate(N, type), *needles = test_allocate(M, type);
        uint64_t seed = test_case_seed("comparators") + s * 8 + (uint64_t)upper * 2 + variant;
        test_generate(haystack, N, type, TEST_SMALL_INTEGERS, seed, 400);
        test_generate(needles, M, type, TEST_SMALL_INTEGERS, seed + 1, 420);
        test_reference_sort(haystack, NULL, 0, N, type, descending);
        uint64_t *keys = malloc(N * sizeof *keys);
        assert_non_null(keys);
        for (size_t i = 0; i < N; i++) keys[i] = key_of(haystack, i, type, descending);
        test_placed hay = test_place(context, haystack, N, 4, test_cl_type(type), 1, seed + 2);
        test_placed need = test_place(context, needles, M, 4, test_cl_type(type), 1, seed + 3);
        test_placed pos = test_place(context, needles, M, 4, CLGPU_TYPE_UINT32, 1, seed + 4);
        clgpu_sort_spec spec = {.compare = variant == 0 ? "a > b" : "a < b",
                                .descending = variant == 2};
        clgpu_call_options options = {.shape = shapes[s]};
        clgpu_status status = upper ? clgpu_upper_bound(context, &spec, &pos.view, &need.view,
                                                        &hay.view, &options, 0, NULL, NULL)
                                    : clgpu_lower_bound(context, &spec, &pos.view, &need.view,
                                                        &hay.view, &options, 0, NULL, NULL);
        if (status != CLGPU_SUCCESS)
          fail_msg("%s: %s", clgpu_status_name(status), clgpu_last_error());
        uint32_t *out = malloc(pos.region_bytes);
        assert_non_null(out);
        test_guarded_read(context, &pos.guarded, out);
        for (size_t i = 0; i < M; i++) {
          uint64_t want = reference_bound(keys, N, key_of(needles, i, type, descending), upper);
          uint32_t got = out[pos.spec.offset + i];
          if (got != want) {
            fail_msg("comparator variant %d, %s, %s bound: position %zu is %u, expected %llu",
                     variant, clgpu_shape_name(shapes[s]), upper ? "upper" : "lower", i, got,
                     (unsigned long long)want);
          }
        }
        test_guarded_check(context, &pos.guarded, "comparators");
        free(out);
        free(keys);
        test_placed_release(&hay);
        test_placed_release(&need);
        test_placed_release(&pos);
        free(haystack);
        free(needles);
      }
    }
  }
}

/* Custom keys: records ordered by one field, the other riding along. */
typedef struct record {
  int32_t key;
  uint32_t tag;
} record;

static int record_order(const void *a, const void *b) {
  const record *x = a, *y = b;
  return (x->key > y->key) - (x->key < y->key);
}

static void custom_keys(void **state) {
  (void)state;
  const size_t N = test_on_oclgrind(context) ? 301 : 3001;
  const size_t M = test_on_oclgrind(context) ? 99 : 999;
  record *haystack = malloc(N * sizeof *haystack), *needles = malloc(M * sizeof *needles);
  assert_non_null(haystack);
  assert_non_null(needles);
  test_rng rng;
  test_rng_init(&rng, test_case_seed("custom_keys"));
  for (size_t i = 0; i < N; i++) {
    haystack[i].key = (int32_t)test_rng_below(&rng, 2000) - 1000;
    haystack[i].tag = (uint32_t)i;
  }
  qsort(haystack, N, sizeof *haystack, record_order);
  for (size_t i = 0; i < M; i++) {
    needles[i].key = (int32_t)test_rng_below(&rng, 2100) - 1050;
    needles[i].tag = (uint32_t)test_rng_below(&rng, 1u << 30);
  }
  uint64_t *keys = malloc(N * sizeof *keys);
  assert_non_null(keys);
  for (size_t i = 0; i < N; i++) keys[i] = (uint64_t)((int64_t)haystack[i].key + 5000);
  clgpu_sort_spec spec = {.compare = "a.key < b.key",
                          .key_type = "search_record",
                          .declarations = "typedef struct { int key; uint tag; } search_record;",
                          .key_size = sizeof(record)};
  record *image = malloc((N + M) * sizeof *image);
  assert_non_null(image);
  memcpy(image, haystack, N * sizeof *image);
  memcpy(image + N, needles, M * sizeof *image);
  cl_mem buffer = buffer_with(image, (N + M) * sizeof *image);
  free(image);
  clgpu_array hay, need;
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT8, N * sizeof(record), &hay),
                CLGPU_SUCCESS);
  assert_status(
      clgpu_array_1d(buffer, N * sizeof(record), CLGPU_TYPE_UINT8, M * sizeof(record), &need),
      CLGPU_SUCCESS);
  for (size_t s = 0; s < 2; s++) {
    for (int upper = 0; upper < 2; upper++) {
      test_placed pos = test_place(context, needles, M, 8, CLGPU_TYPE_UINT64, 2, 7);
      clgpu_call_options options = {.shape = shapes[s]};
      clgpu_status status =
          upper
              ? clgpu_upper_bound(context, &spec, &pos.view, &need, &hay, &options, 0, NULL, NULL)
              : clgpu_lower_bound(context, &spec, &pos.view, &need, &hay, &options, 0, NULL, NULL);
      if (status != CLGPU_SUCCESS) {
        fail_msg("%s: %s", clgpu_status_name(status), clgpu_last_error());
      }
      uint64_t *out = malloc(pos.region_bytes);
      assert_non_null(out);
      test_guarded_read(context, &pos.guarded, out);
      for (size_t i = 0; i < M; i++) {
        uint64_t want = reference_bound(keys, N, (uint64_t)((int64_t)needles[i].key + 5000), upper);
        uint64_t got = out[pos.spec.offset + 2 * i];
        if (got != want) {
          fail_msg("custom keys, %s, %s bound: position %zu is %llu, expected %llu",
                   clgpu_shape_name(shapes[s]), upper ? "upper" : "lower", i,
                   (unsigned long long)got, (unsigned long long)want);
        }
      }
      test_guarded_check(context, &pos.guarded, "custom keys");
      free(out);
      test_placed_release(&pos);
    }
  }
  /* Custom keys must be whole records, contiguous and aligned. */
  clgpu_array odd, strided, shifted;
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT8, N * sizeof(record) - 1, &odd),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_strided(buffer, 0, CLGPU_TYPE_UINT8, 1, (size_t[]){16},
                                    (ptrdiff_t[]){2}, &strided),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 4, CLGPU_TYPE_UINT8, 8 * sizeof(record), &shifted),
                CLGPU_SUCCESS);
  cl_mem out_buffer = NULL;
  assert_status(clgpu_buffer_create(context, CL_MEM_READ_WRITE, M * 8, &out_buffer), CLGPU_SUCCESS);
  clgpu_array positions;
  assert_status(clgpu_array_1d(out_buffer, 0, CLGPU_TYPE_UINT64, M, &positions), CLGPU_SUCCESS);
  assert_status(clgpu_lower_bound(context, &spec, &positions, &need, &odd, NULL, 0, NULL, NULL),
                CLGPU_SHAPE_MISMATCH);
  assert_status(clgpu_lower_bound(context, &spec, &positions, &need, &strided, NULL, 0, NULL, NULL),
                CLGPU_SHAPE_MISMATCH);
  assert_status(clgpu_lower_bound(context, &spec, &positions, &need, &shifted, NULL, 0, NULL, NULL),
                CLGPU_MISALIGNED_VIEW);
  /* A key_size that is not the device's sizeof(key_type) is refused, with
   * needles or without (as clgpu_sort refuses it whatever n). */
  clgpu_sort_spec wrong_size = spec;
  wrong_size.key_size = 12;
  clgpu_array no_needles, no_positions, twelve;
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT8, 0, &no_needles), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(out_buffer, 0, CLGPU_TYPE_UINT64, 0, &no_positions), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT8, 120, &twelve), CLGPU_SUCCESS);
  /* (Not on Oclgrind, which reports every failed build as an error.) */
  if (!test_on_oclgrind(context)) {
    assert_status(clgpu_lower_bound(context, &wrong_size, &no_positions, &no_needles, &twelve,
                                    NULL, 0, NULL, NULL),
                  CLGPU_INVALID_ARGUMENT);
    assert_non_null(strstr(clgpu_last_error(), "sizeof"));
  }
  clgpu_buffer_release(context, out_buffer);
  clgpu_buffer_release(context, buffer);
  free(haystack);
  free(needles);
  free(keys);
}

/* ---- workspaces ---- */

typedef struct fixture {
  cl_mem buffer;
  clgpu_array haystack, needles, positions, strided_needles;
  uint32_t host_haystack[512], host_needles[256];
} fixture;

/* 512 sorted uint32 keys, 256 needles, 256 uint positions (zeros), and the
 * needles again with stride 2 over the first 512 elements of the haystack. */
static void fixture_make(fixture *f) {
  memset(f, 0, sizeof *f);
  for (uint32_t i = 0; i < 512; i++) f->host_haystack[i] = i / 3 * 2;
  for (uint32_t i = 0; i < 256; i++) f->host_needles[i] = (i * 37u) % 400u;
  uint32_t image[1024] = {0};
  memcpy(image, f->host_haystack, 2048);
  memcpy(image + 512, f->host_needles, 1024);
  f->buffer = buffer_with(image, sizeof image);
  assert_status(clgpu_array_1d(f->buffer, 0, CLGPU_TYPE_UINT32, 512, &f->haystack), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(f->buffer, 2048, CLGPU_TYPE_UINT32, 256, &f->needles),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(f->buffer, 3072, CLGPU_TYPE_UINT32, 256, &f->positions),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_strided(f->buffer, 0, CLGPU_TYPE_UINT32, 1, (size_t[]){256},
                                    (ptrdiff_t[]){2}, &f->strided_needles),
                CLGPU_SUCCESS);
}

/* The positions hold the lower bounds of `needles` (host values). */
static void fixture_expect(fixture *f, const uint32_t *needles, const char *what) {
  uint32_t out[256];
  uint64_t keys[512];
  for (size_t i = 0; i < 512; i++) keys[i] = f->host_haystack[i];
  assert_status(clgpu_array_read(context, out, sizeof out, &f->positions, 0, NULL), CLGPU_SUCCESS);
  for (size_t i = 0; i < 256; i++) {
    uint64_t want = reference_bound(keys, 512, needles[i], 0);
    if (out[i] != want)
      fail_msg("%s: position %zu is %u, expected %llu", what, i, out[i], (unsigned long long)want);
  }
}

static void with_workspaces(void **state) {
  (void)state;
  fixture f;
  fixture_make(&f);
  uint32_t strided_host[256];
  for (size_t i = 0; i < 256; i++) strided_host[i] = f.host_haystack[2 * i];
  for (size_t s = 0; s < 2; s++) {
    clgpu_call_options options = {.shape = shapes[s]};
    clgpu_workspace_size report;
    /* Contiguous views apart: nothing to stage. */
    assert_status(clgpu_search_workspace_size(context, NULL, &f.positions, &f.needles, &f.haystack,
                                              &options, &report),
                  CLGPU_SUCCESS);
    assert_int_equal(report.parts[0].operation, CLGPU_OPERATION_SEARCH);
    assert_int_equal(report.parts[0].shape, shapes[s]);
    assert_int_equal(report.total_bytes, 0);
    clgpu_workspace_size upto;
    assert_status(clgpu_search_workspace_size_upto(context, NULL, CLGPU_TYPE_UINT32, 1u << 20,
                                                   1u << 20, &options, &upto),
                  CLGPU_SUCCESS);
    assert_int_equal(upto.total_bytes, 0);
    clgpu_workspace *empty = NULL;
    assert_status(clgpu_workspace_create(context, &upto, &empty), CLGPU_SUCCESS);
    options.workspace = empty;
    assert_status(clgpu_lower_bound(context, NULL, &f.positions, &f.needles, &f.haystack, &options,
                                    0, NULL, NULL),
                  CLGPU_SUCCESS);
    fixture_expect(&f, f.host_needles, "contiguous, the _upto workspace");
    /* Strided needles are staged: the empty workspace is too small. */
    assert_status(clgpu_lower_bound(context, NULL, &f.positions, &f.strided_needles, &f.haystack,
                                    &options, 0, NULL, NULL),
                  CLGPU_WORKSPACE_TOO_SMALL);
    options.workspace = NULL;
    assert_status(clgpu_search_workspace_size(context, NULL, &f.positions, &f.strided_needles,
                                              &f.haystack, &options, &report),
                  CLGPU_SUCCESS);
    assert_string_equal(report.buffers[0].name, "staged_needles");
    assert_int_equal(report.buffers[0].count, 256);
    assert_int_equal(report.buffers[1].count, 0);
    assert_int_equal(report.buffers[2].count, 0);
    clgpu_workspace *workspace = NULL;
    assert_status(clgpu_workspace_create(context, &report, &workspace), CLGPU_SUCCESS);
    options.workspace = workspace;
    assert_status(clgpu_lower_bound(context, NULL, &f.positions, &f.strided_needles, &f.haystack,
                                    &options, 0, NULL, NULL),
                  CLGPU_SUCCESS);
    fixture_expect(&f, strided_host, "strided needles through a workspace");
    /* A workspace of the other shape, and one of another operation. */
    clgpu_call_options other = {.shape = shapes[1 - s], .workspace = workspace};
    assert_status(clgpu_lower_bound(context, NULL, &f.positions, &f.strided_needles, &f.haystack,
                                    &other, 0, NULL, NULL),
                  CLGPU_WORKSPACE_WRONG_ALGORITHM);
    clgpu_scan_op sum = {CLGPU_SCAN_SUM, 0, NULL, NULL};
    clgpu_workspace_size scan_report;
    clgpu_call_options plain = {.shape = shapes[s]};
    assert_status(clgpu_scan_workspace_size(context, &sum, CLGPU_ALL_AXES, &f.positions,
                                            &f.strided_needles, &plain, &scan_report),
                  CLGPU_SUCCESS);
    clgpu_workspace *scan_workspace = NULL;
    assert_status(clgpu_workspace_create(context, &scan_report, &scan_workspace), CLGPU_SUCCESS);
    plain.workspace = scan_workspace;
    assert_status(clgpu_lower_bound(context, NULL, &f.positions, &f.strided_needles, &f.haystack,
                                    &plain, 0, NULL, NULL),
                  CLGPU_WORKSPACE_WRONG_OPERATION);
    clgpu_workspace_destroy(scan_workspace);
    clgpu_workspace_destroy(workspace);
    clgpu_workspace_destroy(empty);
  }
  clgpu_buffer_release(context, f.buffer);
}

/* The call waits for its wait list and its event completes with the
 * positions written; an empty search still gives an event. */
static void events(void **state) {
  (void)state;
  fixture f;
  fixture_make(&f);
  cl_int err = CL_SUCCESS;
  test_gate_opener opener = {NULL, NULL, CL_COMPLETE};
  opener.gate = clCreateUserEvent(clgpu_context_cl_context(context), &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_event done = NULL;
  assert_status(clgpu_lower_bound(context, NULL, &f.positions, &f.needles, &f.haystack, NULL, 1,
                                  &opener.gate, &done),
                CLGPU_SUCCESS);
  assert_non_null(done);
  opener.call = done;
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, test_open_gate_later, &opener), 0);
  assert_int_equal(clFlush(clgpu_context_queue(context)), CL_SUCCESS);
  assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
  assert_int_equal(pthread_join(thread, NULL), 0);
  if (opener.call_status_before_opening == CL_COMPLETE) {
    fail_msg("the search completed before its wait list");
  }
  assert_int_equal(test_event_status(done), CL_COMPLETE);
  fixture_expect(&f, f.host_needles, "after the gate");
  clReleaseEvent(done);
  clReleaseEvent(opener.gate);
  clgpu_array none_needles, none_positions;
  assert_status(clgpu_array_1d(f.buffer, 0, CLGPU_TYPE_UINT32, 0, &none_needles), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(f.buffer, 0, CLGPU_TYPE_UINT32, 0, &none_positions), CLGPU_SUCCESS);
  done = NULL;
  assert_status(clgpu_upper_bound(context, NULL, &none_positions, &none_needles, &f.haystack, NULL,
                                  0, NULL, &done),
                CLGPU_SUCCESS);
  assert_non_null(done);
  assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
  clReleaseEvent(done);
  clgpu_buffer_release(context, f.buffer);
}

/* ---- misuse: each refused with its status, the positions unchanged ---- */

typedef struct misuse {
  const char *name;
  clgpu_status expected;
} misuse;

static void misuse_is_refused(void **state) {
  (void)state;
  fixture f;
  fixture_make(&f);
  cl_mem other_buffer = NULL;
  assert_status(clgpu_buffer_create(context, CL_MEM_READ_WRITE, 4096, &other_buffer),
                CLGPU_SUCCESS);
  clgpu_array floats, int_positions, short_positions, two_d, broadcast, huge, opaque, half_view;
  assert_status(clgpu_array_1d(other_buffer, 0, CLGPU_TYPE_FLOAT, 256, &floats), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(other_buffer, 0, CLGPU_TYPE_INT32, 256, &int_positions),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(other_buffer, 0, CLGPU_TYPE_UINT32, 255, &short_positions),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_nd(other_buffer, 0, CLGPU_TYPE_UINT32, 2, (size_t[]){16, 16},
                               CLGPU_ORDER_ROW_MAJOR, &two_d),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_strided(other_buffer, 0, CLGPU_TYPE_UINT32, 1, (size_t[]){256},
                                    (ptrdiff_t[]){0}, &broadcast),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_strided(other_buffer, 0, CLGPU_TYPE_UINT32, 1,
                                    (size_t[]){(size_t)UINT32_MAX + 1}, (ptrdiff_t[]){0}, &huge),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(other_buffer, 0, CLGPU_TYPE_OPAQUE, 256, &opaque), CLGPU_SUCCESS);
  opaque.type = CLGPU_TYPE_OPAQUE;
  assert_status(clgpu_array_1d(other_buffer, 0, CLGPU_TYPE_UINT16, 256, &half_view), CLGPU_SUCCESS);
  clgpu_sort_spec bits = {.begin_bit = 0, .end_bit = 8};
  clgpu_sort_spec bad_compare = {.compare = "a < b; }"};
  clgpu_call_options bad_shape = {.shape = (clgpu_shape)7};
  cl_event missing = NULL;
  for (int form = 0; form < 2; form++) {
    struct {
      const char *name;
      clgpu_status expected;
      clgpu_context *ctx;
      const clgpu_sort_spec *spec;
      const clgpu_array *positions, *needles, *haystack;
      const clgpu_call_options *options;
      cl_uint num_events;
      const cl_event *wait_list;
    } rows[] = {
        {"NULL context", CLGPU_INVALID_ARGUMENT, NULL, NULL, &f.positions, &f.needles, &f.haystack,
         NULL, 0, NULL},
        {"NULL positions", CLGPU_INVALID_ARGUMENT, context, NULL, NULL, &f.needles, &f.haystack,
         NULL, 0, NULL},
        {"NULL needles", CLGPU_INVALID_ARGUMENT, context, NULL, &f.positions, NULL, &f.haystack,
         NULL, 0, NULL},
        {"NULL haystack", CLGPU_INVALID_ARGUMENT, context, NULL, &f.positions, &f.needles, NULL,
         NULL, 0, NULL},
        {"needles and haystack of two types", CLGPU_TYPE_MISMATCH, context, NULL, &f.positions,
         &floats, &f.haystack, NULL, 0, NULL},
        {"int positions", CLGPU_TYPE_MISMATCH, context, NULL, &int_positions, &f.needles,
         &f.haystack, NULL, 0, NULL},
        {"float positions", CLGPU_TYPE_MISMATCH, context, NULL, &floats, &f.needles, &f.haystack,
         NULL, 0, NULL},
        {"uint positions for 2^32 keys", CLGPU_TYPE_MISMATCH, context, NULL, &f.positions,
         &f.needles, &huge, NULL, 0, NULL},
        {"positions one short", CLGPU_SHAPE_MISMATCH, context, NULL, &short_positions, &f.needles,
         &f.haystack, NULL, 0, NULL},
        {"2-D needles", CLGPU_SHAPE_MISMATCH, context, NULL, &f.positions, &two_d, &f.haystack,
         NULL, 0, NULL},
        {"2-D haystack", CLGPU_SHAPE_MISMATCH, context, NULL, &f.positions, &f.needles, &two_d,
         NULL, 0, NULL},
        {"broadcast positions", CLGPU_INVALID_OUTPUT, context, NULL, &broadcast, &f.needles,
         &f.haystack, NULL, 0, NULL},
        {"opaque keys", CLGPU_TYPE_MISMATCH, context, NULL, &f.positions, &opaque, &opaque, NULL, 0,
         NULL},
        {"a bit range", CLGPU_INVALID_ARGUMENT, context, &bits, &f.positions, &f.needles,
         &f.haystack, NULL, 0, NULL},
        {"a comparator that breaks out", CLGPU_INVALID_ARGUMENT, context, &bad_compare,
         &f.positions, &f.needles, &f.haystack, NULL, 0, NULL},
        {"an unknown shape", CLGPU_INVALID_ARGUMENT, context, NULL, &f.positions, &f.needles,
         &f.haystack, &bad_shape, 0, NULL},
        {"a wait list without events", CLGPU_INVALID_ARGUMENT, context, NULL, &f.positions,
         &f.needles, &f.haystack, NULL, 1, NULL},
        {"a NULL event in the wait list", CLGPU_CL_INVALID_EVENT_WAIT_LIST, context, NULL,
         &f.positions, &f.needles, &f.haystack, NULL, 1, &missing},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
      if (form == 1 && rows[r].num_events > 0) continue; /* the query takes no wait list */
      clgpu_workspace_size report;
      clgpu_status status =
          form == 0 ? clgpu_lower_bound(rows[r].ctx, rows[r].spec, rows[r].positions,
                                        rows[r].needles, rows[r].haystack, rows[r].options,
                                        rows[r].num_events, rows[r].wait_list, NULL)
                    : clgpu_search_workspace_size(rows[r].ctx, rows[r].spec, rows[r].positions,
                                                  rows[r].needles, rows[r].haystack,
                                                  rows[r].options, &report);
      if (status != rows[r].expected) {
        fail_msg("%s (%s): %s, expected %s: %s", rows[r].name, form ? "query" : "call",
                 clgpu_status_name(status), clgpu_status_name(rows[r].expected),
                 clgpu_last_error());
      }
      assert_true(strlen(clgpu_last_error()) > 0);
    }
  }
  /* Nothing was written. */
  uint32_t out[256];
  assert_status(clgpu_array_read(context, out, sizeof out, &f.positions, 0, NULL), CLGPU_SUCCESS);
  for (size_t i = 0; i < 256; i++) assert_int_equal(out[i], 0);
  /* The _upto query's own checks. */
  clgpu_workspace_size report;
  assert_status(
      clgpu_search_workspace_size_upto(NULL, NULL, CLGPU_TYPE_UINT32, 1, 1, NULL, &report),
      CLGPU_INVALID_ARGUMENT);
  assert_status(
      clgpu_search_workspace_size_upto(context, NULL, CLGPU_TYPE_UINT32, 1, 1, NULL, NULL),
      CLGPU_INVALID_ARGUMENT);
  assert_status(
      clgpu_search_workspace_size_upto(context, NULL, (clgpu_type)99, 1, 1, NULL, &report),
      CLGPU_INVALID_ARGUMENT);
  assert_status(
      clgpu_search_workspace_size_upto(context, NULL, CLGPU_TYPE_OPAQUE, 1, 1, NULL, &report),
      CLGPU_TYPE_MISMATCH);
  assert_status(
      clgpu_search_workspace_size(context, NULL, &f.positions, &f.needles, &f.haystack, NULL, NULL),
      CLGPU_INVALID_ARGUMENT);
  (void)half_view;
  clgpu_buffer_release(context, other_buffer);
  clgpu_buffer_release(context, f.buffer);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(misuse_is_refused),
      cmocka_unit_test(with_workspaces),
      cmocka_unit_test(events),
      cmocka_unit_test(positions_over_their_inputs),
      cmocka_unit_test(strided_views),
      cmocka_unit_test(comparators),
      cmocka_unit_test(custom_keys),
      cmocka_unit_test(every_type_both_orders),
      cmocka_unit_test(distributions_and_sizes),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
