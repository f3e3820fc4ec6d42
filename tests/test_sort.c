/* clgpu_sort, clgpu_sort_permutation and clgpu_gather (sort.h), compared with
 * host references.
 *
 * The reference (sort_reference.c) is a stable merge sort of indices on the
 * host by an order key: for integers data.h's test_order_key; for floats
 * test_order_key of the value with its sign bit cleared when it is a NaN,
 * since sort.h puts every NaN after +inf whatever its sign, NaNs among
 * themselves by their bits without the sign; for half the same transform
 * over 16 bits (+inf is 0x7c00). Descending sorts by the inverted key,
 * still stably; a bit range [begin, end) sorts by (image >> begin) & mask,
 * the image inverted for descending; a comparator sorts by the same
 * comparison on the host.
 * Keys are compared bit for bit with the reference, values (and
 * permutations) with the reference's permutation.
 *
 * Every built-in sort case runs through one runner (run_sort_case), custom
 * keys and comparators through run_custom_case, gathers through
 * run_gather_case: each array sits in a guarded region of its own with
 * random bytes around and between its elements; after the call the runner
 * checks the logical elements against the reference (naming the case, the
 * run seed and the first differing index), every other byte of the regions
 * against their initial contents, and the guards.
 *
 * Tests, one concern each: the host reference itself; keys only for every
 * key type (int8 to uint64, float, double, half) and distribution of
 * data.h plus the sawtooth at the radix tile (2048) and one past it and the
 * float specials; every size of test_tile_sizes; stability (values are the
 * input indices); values of 1, 2, 4, 8 and 16 bytes; strided and reversed
 * keys and values; radix bit ranges; comparators and struct keys; the sort
 * permutation; gather; workspaces (reports, the buffers sort.h lists, exact
 * and wrapped ones with no allocation, every refusal, _upto); misuse tables
 * for the sorts and for gather; events and user events; n = 0 and 1;
 * unaligned values; AUTO; a work-item's loop iteration cap (llvmpipe's, a
 * one-item copy kernel against the host, then sorts past it).
 *
 * Coverage is rotated rather than multiplied out: each key type meets
 * every distribution, spread over the combinations of algorithm (RADIX,
 * MERGE), shape (CHUNKED, TILED) and order it runs in, at sizes rotated
 * through the list. Building programs is most of the run time on POCL
 * (about 70 s of a cold run, 15 s once POCL's cache holds them), and every
 * combination of key width and kind, order, algorithm, shape, digit width
 * and value width is a program of its own, so the concerns after the first
 * reuse the programs earlier ones built where they can. Under Oclgrind
 * sizes stop at 5000, each concern keeps a few rows, and the rows that
 * build failing programs are left out (--check-api reports them).
 *
 * One context serves the file (group setup), so each program is built once. */
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

/* The radix sort's tile: 256 work-items of 8 keys each. */
#define SORT_TILE ((size_t)2048)

static int group_setup(void **state) {
  (void)state;
  test_seed();
  shared_context = test_context_without_disk_cache();
  oclgrind = test_on_oclgrind(shared_context);
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  clgpu_context_destroy(shared_context);
  shared_context = NULL;
  return 0;
}

static const clgpu_algorithm both_algorithms[] = {CLGPU_ALGORITHM_RADIX, CLGPU_ALGORITHM_MERGE};
static const clgpu_shape both_shapes[] = {CLGPU_SHAPE_CHUNKED, CLGPU_SHAPE_TILED};

/* ---- the host reference ---- */

/* The key types and their order are sort_reference.h's. Every key type
 * runs on every device: the natural order works on the bits, so double
 * keys need no cl_khr_fp64 and half keys no cl_khr_fp16 (sort.h); only a
 * comparator over them would, and the comparator rows use float and struct
 * keys. */

/* The reference permutation of n keys (raw bytes of type t). */
static void reference_permutation(const key_type *t, const unsigned char *keys, size_t n,
                                  int descending, unsigned begin_bit, unsigned end_bit,
                                  uint32_t *permutation) {
  uint64_t *order = order_keys(t, keys, n, descending, begin_bit, end_bit);
  test_stable_permutation(n, key_precedes, order, permutation);
  free(order);
}

/* ---- data ---- */

/* Every distribution of data.h with its parameters, the sawtooth at the
 * radix tile and one past it, and the float specials. */
static test_distribution_case distributions[32];
static size_t distribution_count;

static void collect_distributions(void) {
  if (distribution_count) return;
  for (size_t i = 0; i < test_distribution_case_count; i++) {
    distributions[distribution_count++] = test_distribution_cases[i];
  }
  distributions[distribution_count++] = (test_distribution_case){TEST_SAWTOOTH, SORT_TILE};
  distributions[distribution_count++] = (test_distribution_case){TEST_SAWTOOTH, SORT_TILE + 1};
}

/* ---- reporting ---- */

static const char *algorithm_text(clgpu_algorithm algorithm) {
  return clgpu_algorithm_name(algorithm);
}

static const char *shape_text(clgpu_shape shape) { return clgpu_shape_name(shape); }

/* ---- one sort, checked ---- */

typedef struct sort_case {
  const char *what; /* the concern, for the report */
  unsigned key;     /* index into key_types */
  size_t n;
  test_distribution distribution;
  size_t parameter;
  clgpu_algorithm algorithm;
  clgpu_shape shape;
  int descending;
  unsigned begin_bit, end_bit;
  size_t value_bytes; /* 0: keys only; 16: a CLGPU_TYPE_UINT64 view of 2n elements */
  int index_values;   /* values are the keys' input indices (uint32): stability */
  ptrdiff_t key_stride, value_stride;
  int null_options;           /* pass NULL options (AUTO, AUTO) */
  clgpu_workspace *workspace; /* given through the options */
  int gated;                  /* wait on a user event set after the call */
  int no_event;               /* ask for no event */
  clgpu_type permutation;     /* nonzero: clgpu_sort_permutation into this type */
  const char *data_label;     /* seed the data from this label, not the case's */
} sort_case;

static sort_case base_case(unsigned key, size_t n, clgpu_algorithm algorithm, clgpu_shape shape) {
  sort_case c;
  memset(&c, 0, sizeof c);
  c.what = "keys";
  c.key = key;
  c.n = n;
  c.distribution = TEST_UNIFORM;
  c.algorithm = algorithm;
  c.shape = shape;
  c.key_stride = 1;
  c.value_stride = 1;
  return c;
}

static void describe_case(const sort_case *c, char *label, size_t size) {
  char distribution[64], bits[32] = "", values[64] = "", strides[48] = "";
  describe_distribution(c->distribution, c->parameter, distribution, sizeof distribution);
  if (c->begin_bit || c->end_bit) {
    snprintf(bits, sizeof bits, " bits=[%u,%u)", c->begin_bit, c->end_bit);
  }
  if (c->value_bytes) {
    snprintf(values, sizeof values, " values=%zu bytes%s", c->value_bytes,
             c->index_values ? " (input indices)" : "");
  }
  if (c->permutation) {
    snprintf(values, sizeof values, " permutation=%s", clgpu_type_cl_name(c->permutation));
  }
  if (c->key_stride != 1 || c->value_stride != 1) {
    snprintf(strides, sizeof strides, " key_stride=%td value_stride=%td", c->key_stride,
             c->value_stride);
  }
  snprintf(label, size,
           "%s %s: n=%zu type=%s distribution=%s algorithm=%s shape=%s order=%s%s%s%s%s%s%s",
           c->permutation ? "sort permutation" : "sort", c->what, c->n, key_types[c->key].name,
           distribution, c->null_options ? "auto (NULL options)" : algorithm_text(c->algorithm),
           c->null_options ? "auto" : shape_text(c->shape),
           c->descending ? "descending" : "ascending", bits, values, strides,
           c->workspace ? " with a workspace" : "", c->gated ? " waiting on a user event" : "",
           c->no_event ? " without an event" : "");
}

/* Sort on the device and compare with the reference. */
static void run_sort_case(const sort_case *c) {
  const key_type *t = &key_types[c->key];
  size_t n = c->n;
  char label[600];
  describe_case(c, label, sizeof label);
  uint64_t seed = test_case_seed(c->data_label ? c->data_label : label);

  unsigned char *keys = malloc(n * t->size + 1);
  assert_non_null(keys);
  generate_keys(t, c->distribution, c->parameter, n, seed, keys);
  uint32_t *permutation = malloc((n ? n : 1) * sizeof *permutation);
  assert_non_null(permutation);
  reference_permutation(t, keys, n, c->descending, c->begin_bit, c->end_bit, permutation);
  unsigned char *expected_keys = malloc(n * t->size + 1);
  assert_non_null(expected_keys);
  apply_permutation(keys, permutation, n, t->size, expected_keys);

  placed key_region =
      place_elements(shared_context, n, t->size, c->key_stride, keys, seed ^ 0x1111u);
  clgpu_array key_view = make_view(&key_region.guarded, t->type, &key_region.spec);

  size_t vsize = c->permutation    ? clgpu_type_size(c->permutation)
                 : c->index_values ? 4
                                   : c->value_bytes;
  unsigned char *values = NULL, *expected_values = NULL;
  placed value_region;
  clgpu_array value_view;
  if (vsize) {
    if (c->permutation) {
      /* The permutation's initial contents are random; it must end as the
       * reference's permutation. */
      values = random_bytes(n * vsize, seed ^ 0x2222u);
    } else if (c->index_values) {
      values = input_indices(n);
    } else {
      values = random_bytes(n * vsize, seed ^ 0x2222u);
    }
    expected_values = malloc(n * vsize + 1);
    assert_non_null(expected_values);
    if (c->permutation) {
      for (size_t i = 0; i < n; i++) {
        test_store_bits(expected_values, i, raw_type(vsize), permutation[i]);
      }
    } else {
      apply_permutation(values, permutation, n, vsize, expected_values);
    }
    value_region =
        place_elements(shared_context, n, vsize, c->value_stride, values, seed ^ 0x3333u);
    value_view = values_view(&value_region);
  }

  clgpu_sort_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.descending = c->descending;
  spec.begin_bit = c->begin_bit;
  spec.end_bit = c->end_bit;
  clgpu_sort_options options = {
      .algorithm = c->algorithm, .shape = c->shape, .workspace = c->workspace};
  cl_event event = NULL;
  cl_event gate = sort_gate(shared_context, c->gated);
  clgpu_status status =
      c->permutation ? clgpu_sort_permutation(shared_context, &spec, &value_view, &key_view,
                                              c->null_options ? NULL : &options, gate ? 1 : 0,
                                              gate ? &gate : NULL, c->no_event ? NULL : &event)
                     : clgpu_sort(shared_context, &spec, &key_view, vsize ? &value_view : NULL,
                                  c->null_options ? NULL : &options, gate ? 1 : 0,
                                  gate ? &gate : NULL, c->no_event ? NULL : &event);
  finish_sort_call(shared_context, status, gate, event, c->no_event, label);

  /* A permutation call leaves the keys as they were. */
  check_placed(&key_region, c->permutation ? keys : expected_keys, n, permutation, NULL, 0, "keys",
               label);
  if (vsize) {
    check_placed(&value_region, expected_values, n, permutation, NULL, 0,
                 c->permutation ? "permutation" : "values", label);
    release_placed(&value_region);
  }
  release_placed(&key_region);
  free(expected_values);
  free(values);
  free(expected_keys);
  free(permutation);
  free(keys);
}

/* ---- keys only: every type, distribution, algorithm, shape, order ---- */

/* Combination m (0 to 7) of algorithm, shape and order. */
static void set_combination(sort_case *c, size_t m) {
  c->algorithm = both_algorithms[m % 2];
  c->shape = both_shapes[(m / 2) % 2];
  c->descending = (int)((m / 4) % 2);
}

/* The size list of the sort tests: test_tile_sizes around the radix tile
 * (2048), at most 5000 under Oclgrind. */
static size_t sort_sizes(const char *label, size_t *sizes) {
  return test_tile_sizes(SORT_TILE, oclgrind, label, sizes);
}

/* The combinations a key type runs in: all eight for uint32, int64, float
 * and half (every_size uses the first three; floats' order has the most to
 * get wrong: NaNs, -0, descending), and for the other types half of them,
 * chosen so that every algorithm
 * meets every shape and every order, and every shape every order (the
 * combinations of even or odd bit parity); the two halves alternate between
 * types, so each pair of types of one width covers all eight. */
static size_t combinations_of(unsigned key, size_t *combinations) {
  size_t count = 0;
  int all = key == KEY_UINT32 || key == KEY_INT64 || key == KEY_FLOAT || key == KEY_HALF;
  for (size_t m = 0; m < 8; m++) {
    size_t parity = (m ^ (m >> 1) ^ (m >> 2)) & 1;
    if (all || parity == key % 2) combinations[count++] = m;
  }
  return count;
}

/* Every distribution for one key type, each in one of the type's
 * combinations (rotated, so each distribution meets another combination in
 * each type) at a size rotated through the list (63 and up; every_size has
 * the small ones); the float specials in every combination. */
static void keys_by_type(void **state) {
  unsigned key = *(const unsigned *)*state;
  collect_distributions();
  size_t all[40], sizes[40], count = 0, combinations[8];
  size_t all_count = sort_sizes("sort matrix sizes", all);
  for (size_t s = 0; s < all_count; s++) {
    if (all[s] >= 63) sizes[count++] = all[s];
  }
  size_t combination_count = combinations_of(key, combinations);
  size_t rows = oclgrind ? 4 : distribution_count;
  for (size_t d = 0; d < rows; d++) {
    size_t r = oclgrind ? (d * 5 + key) % distribution_count : d;
    sort_case c = base_case(key, sizes[(r * 7 + key * 3) % count], CLGPU_ALGORITHM_RADIX,
                            CLGPU_SHAPE_CHUNKED);
    set_combination(&c, combinations[(r + key) % combination_count]);
    c.distribution = distributions[r].distribution;
    c.parameter = distributions[r].parameter;
    run_sort_case(&c);
  }
  if (key_types[key].kind != KIND_FLOAT) return;
  for (size_t m = 0; m < 8; m++) {
    if (oclgrind && m % 3 != key % 3) continue;
    sort_case c = base_case(key, m % 2 ? 4 * SORT_TILE + 1 : 1000, CLGPU_ALGORITHM_RADIX,
                            CLGPU_SHAPE_CHUNKED);
    if (oclgrind) c.n = 1000;
    set_combination(&c, m);
    c.what = "float specials";
    c.distribution = TEST_FLOAT_SPECIALS;
    run_sort_case(&c);
  }
}

/* Every size of the list in all eight combinations, for uint32 and float
 * keys (and int64 at every other size), the distribution rotating. */
static void every_size(void **state) {
  (void)state;
  collect_distributions();
  static const unsigned keys[] = {KEY_UINT32, KEY_FLOAT, KEY_INT64};
  size_t sizes[40];
  size_t count = sort_sizes("sort every size", sizes);
  size_t key_count = oclgrind ? 2 : sizeof keys / sizeof keys[0];
  for (size_t k = 0; k < key_count; k++) {
    for (size_t m = 0; m < 8; m++) {
      if (oclgrind && m % 4 != k) continue;
      for (size_t s = 0; s < count; s++) {
        if (keys[k] == KEY_INT64 && (s + m) % 2) continue;
        size_t r = (s * 3 + m + k * 5) % distribution_count;
        sort_case c = base_case(keys[k], sizes[s], CLGPU_ALGORITHM_RADIX, CLGPU_SHAPE_CHUNKED);
        set_combination(&c, m);
        c.what = "every size";
        c.distribution = distributions[r].distribution;
        c.parameter = distributions[r].parameter;
        run_sort_case(&c);
      }
    }
  }
}

/* ---- the host reference itself ---- */

static uint64_t image_of(unsigned key, uint64_t bits) { return order_image(&key_types[key], bits); }

static void host_reference(void **state) {
  (void)state;
  /* Floats: -inf < -1 < -0 < +0 < 1 < +inf < every NaN, both signs equal. */
  static const uint64_t float_order[] = {0xff800000u, 0xbf800000u, 0x80000001u, 0x80000000u,
                                         0x00000000u, 0x00000001u, 0x3f800000u, 0x7f800000u,
                                         0x7f800001u, 0x7fc00000u, 0x7fffffffu};
  for (size_t i = 1; i < sizeof float_order / sizeof float_order[0]; i++) {
    assert_true(image_of(KEY_FLOAT, float_order[i - 1]) < image_of(KEY_FLOAT, float_order[i]));
  }
  assert_true(image_of(KEY_FLOAT, 0xffc00000u) == image_of(KEY_FLOAT, 0x7fc00000u));
  assert_true(image_of(KEY_FLOAT, 0xffffffffu) == image_of(KEY_FLOAT, 0x7fffffffu));
  assert_true(image_of(KEY_DOUBLE, UINT64_C(0xfff8000000000000)) >
              image_of(KEY_DOUBLE, UINT64_C(0x7ff0000000000000)));
  assert_true(image_of(KEY_DOUBLE, UINT64_C(0x8000000000000000)) <
              image_of(KEY_DOUBLE, UINT64_C(0x0000000000000000)));
  /* Half, by hand: -inf < -0 < +0 < +inf < NaNs (sign ignored). */
  static const uint64_t half_order[] = {0xfc00, 0xbc00, 0x8001, 0x8000, 0x0000, 0x0001,
                                        0x3c00, 0x7bff, 0x7c00, 0x7c01, 0x7e00};
  for (size_t i = 1; i < sizeof half_order / sizeof half_order[0]; i++) {
    assert_true(image_of(KEY_HALF, half_order[i - 1]) < image_of(KEY_HALF, half_order[i]));
  }
  assert_true(image_of(KEY_HALF, 0xfe00) == image_of(KEY_HALF, 0x7e00));
  /* Generated halves follow their order keys. */
  for (uint64_t k = 0; k < 0x10000; k += 7) {
    uint16_t half = half_of_order_key(k);
    if (!bits_are_nan(&key_types[KEY_HALF], half)) assert_int_equal(image_of(KEY_HALF, half), k);
  }
  /* Integers: signed by value, unsigned as they are. */
  assert_true(image_of(KEY_INT8, 0x80) < image_of(KEY_INT8, 0xff));
  assert_true(image_of(KEY_INT8, 0xff) < image_of(KEY_INT8, 0x00));
  assert_true(image_of(KEY_UINT8, 0x00) < image_of(KEY_UINT8, 0x80));
  /* Stable both ways: equal keys (and equal NaNs) keep their input order. */
  const uint32_t keys[] = {0x7fc00000u, 3, 0xffc00000u, 1, 3, 0x80000000u, 0, 1};
  uint32_t permutation[8];
  reference_permutation(&key_types[KEY_FLOAT], (const unsigned char *)keys, 8, 0, 0, 0,
                        permutation);
  const uint32_t ascending[] = {5, 6, 3, 7, 1, 4, 0, 2};
  assert_memory_equal(permutation, ascending, sizeof ascending);
  reference_permutation(&key_types[KEY_FLOAT], (const unsigned char *)keys, 8, 1, 0, 0,
                        permutation);
  const uint32_t descending[] = {0, 2, 1, 4, 3, 7, 6, 5};
  assert_memory_equal(permutation, descending, sizeof descending);
  /* A bit range sorts by those bits alone, stably. */
  const uint32_t ranged[] = {0x0200, 0x0105, 0x0201, 0x0100};
  reference_permutation(&key_types[KEY_UINT32], (const unsigned char *)ranged, 4, 0, 8, 16,
                        permutation);
  const uint32_t by_second_byte[] = {1, 3, 0, 2};
  assert_memory_equal(permutation, by_second_byte, sizeof by_second_byte);
  reference_permutation(&key_types[KEY_UINT32], (const unsigned char *)ranged, 4, 1, 8, 16,
                        permutation);
  const uint32_t by_second_byte_descending[] = {0, 2, 1, 3};
  assert_memory_equal(permutation, by_second_byte_descending, sizeof by_second_byte_descending);
}

/* ---- stability, values, strides ---- */

/* Values are the input indices: the result must be the reference's
 * stable permutation exactly, in both orders, for keys with many equal
 * ones (and, for floats, NaNs of both signs, which compare equal, and the
 * two zeros, which do not); uint32 in all eight combinations, float in
 * four. */
static void stability(void **state) {
  (void)state;
  static const struct {
    unsigned key;
    test_distribution distribution;
    size_t parameter;
  } rows[] = {
      {KEY_UINT32, TEST_ALL_EQUAL, 0},     {KEY_UINT32, TEST_FEW_UNIQUE, 2},
      {KEY_UINT32, TEST_FEW_UNIQUE, 16},   {KEY_UINT32, TEST_LOW_BIT_ONLY, 0},
      {KEY_FLOAT, TEST_FLOAT_SPECIALS, 0}, {KEY_FLOAT, TEST_FEW_UNIQUE, 2},
      {KEY_FLOAT, TEST_ALL_EQUAL, 0},      {KEY_FLOAT, TEST_HIGH_BIT_ONLY, 0},
  };
  static const size_t sizes[] = {2, 1000, 4 * SORT_TILE + 1, 16385, 65537};
  size_t size_count = sizeof sizes / sizeof sizes[0] - (oclgrind ? 3 : 0);
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    if (oclgrind && r % 3 != 0) continue;
    for (size_t m = 0; m < 8; m++) {
      if (oclgrind && m % 3 != r % 3) continue;
      /* Floats in the four combinations of even parity (every algorithm
       * with both shapes and both orders). */
      if (rows[r].key == KEY_FLOAT && ((m ^ (m >> 1) ^ (m >> 2)) & 1)) continue;
      sort_case c = base_case(rows[r].key, sizes[(r + m) % size_count], CLGPU_ALGORITHM_RADIX,
                              CLGPU_SHAPE_CHUNKED);
      set_combination(&c, m);
      c.what = "stability";
      c.distribution = rows[r].distribution;
      c.parameter = rows[r].parameter;
      c.index_values = 1;
      run_sort_case(&c);
    }
  }
}

/* Values of 1, 2, 4, 8 and 16 bytes per key (16: a CLGPU_TYPE_UINT64 view of
 * 2n elements), random bytes, moved with their keys. The 4-, 8- and
 * 16-byte rows run in all four algorithm and shape pairs (uint32 keys: the
 * 4-byte programs are the stability test's, the 8-byte ones the
 * permutation test's), the 1- and 2-byte rows in two complementary ones,
 * one of them descending. */
static void value_sizes(void **state) {
  (void)state;
  static const struct {
    size_t value_bytes;
    unsigned key;
    size_t combinations[4], count;
  } rows[] = {
      {1, KEY_INT8, {0, 7}, 2},          {2, KEY_FLOAT, {1, 6}, 2},
      {4, KEY_UINT32, {0, 1, 2, 3}, 4},  {8, KEY_UINT32, {0, 1, 2, 3}, 4},
      {16, KEY_UINT32, {0, 1, 2, 3}, 4},
  };
  static const size_t sizes[] = {1, 7, 1000, 4 * SORT_TILE + 1, 16385, 65537};
  size_t size_count = sizeof sizes / sizeof sizes[0] - (oclgrind ? 2 : 0);
  collect_distributions();
  for (size_t v = 0; v < sizeof rows / sizeof rows[0]; v++) {
    for (size_t k = 0; k < rows[v].count; k++) {
      if (oclgrind && k != v % rows[v].count) continue;
      for (size_t s = 0; s < size_count; s++) {
        if ((s + k) % 2 && s != size_count - 1) continue;
        size_t r = (v * 5 + s * 3 + k) % distribution_count;
        sort_case c = base_case(rows[v].key, sizes[s], CLGPU_ALGORITHM_RADIX, CLGPU_SHAPE_CHUNKED);
        set_combination(&c, rows[v].combinations[k]);
        c.what = "values";
        c.distribution = distributions[r].distribution;
        c.parameter = distributions[r].parameter;
        c.value_bytes = rows[v].value_bytes;
        run_sort_case(&c);
      }
    }
  }
}

/* The CHUNKED radix scatter through write-combined lines (the tuning
 * table's sort_stream, cl/sort.cl scatter_range_streaming), forced on:
 * every key width (a line holds 64, 32, 16 or 8 keys), every value size,
 * both orders, stability, and places at offsets that put the lines'
 * boundaries anywhere (place_elements' guards), with non-temporal stores
 * at every size (sort_stream_floor=0) over 11-bit digits (where local
 * memory holds their lines) and 8-bit ones (which every device's 32 KiB
 * holds), with plain stores of the lines (a floor above every size), the
 * scatter key by key (sort_stream=0) beside them, and 8-bit digits below
 * sort_stream_wide_floor with 11-bit ones from it (the tuning table's
 * overlay for AMD processors). */
static clgpu_context *shared_before_streaming;

/* Puts the shared context back after streaming_scatter, also when a
 * failure left its own context in place. */
static int streaming_teardown(void **state) {
  (void)state;
  unsetenv("CLGPU_TUNING");
  if (shared_before_streaming && shared_context != shared_before_streaming) {
    clgpu_context_destroy(shared_context);
    shared_context = shared_before_streaming;
  }
  shared_before_streaming = NULL;
  return 0;
}

/* A CHUNKED radix sort's case under a tuning: `what` names the tuning in
 * the report; the caller sets the distribution. */
static sort_case chunked_radix_case(unsigned key, size_t n, const char *what, size_t value_bytes,
                                    int descending, int index_values) {
  sort_case c = base_case(key, n, CLGPU_ALGORITHM_RADIX, CLGPU_SHAPE_CHUNKED);
  c.what = what;
  c.value_bytes = value_bytes;
  c.descending = descending;
  c.index_values = index_values;
  return c;
}

static void streaming_scatter(void **state) {
  (void)state;
  static const char *const tunings[] = {
      "sort_stream=1,sort_lines_floor=0,sort_stream_floor=0,sort_stream_digit_max=11,"
      "sort_chunked_digit_max_values=11",
      "sort_stream=1,sort_lines_floor=0,sort_stream_floor=0,sort_stream_digit_max=8,sort_chunked_"
      "digit_max=8,"
      "sort_chunked_digit_max_values=8",
      "sort_stream=1,sort_lines_floor=0,sort_stream_floor=1099511627776,sort_stream_digit_max=8",
      "sort_stream=0",
      /* Wide digits from 400000 bytes: below (uint8 keys), at (int16
       * keys with 2-byte values, uint32 keys) and above it, where the
       * lines of 2048 digits fit in local memory (not on Oclgrind or
       * rusticl: 32 KiB). */
      "sort_stream=1,sort_lines_floor=0,sort_stream_floor=0,sort_stream_digit_max=8,sort_stream_"
      "wide_floor=400000",
  };
  static const struct {
    unsigned key;
    size_t value_bytes;
    int descending, index_values;
  } rows[] = {
      {KEY_UINT8, 0, 0, 0},  {KEY_INT16, 2, 1, 0}, {KEY_UINT32, 0, 0, 0},  {KEY_FLOAT, 4, 1, 0},
      {KEY_UINT32, 1, 0, 0}, {KEY_INT32, 8, 0, 0}, {KEY_UINT32, 16, 1, 0}, {KEY_INT64, 4, 0, 1},
      {KEY_DOUBLE, 0, 1, 0}, {KEY_HALF, 0, 0, 1},
  };
  shared_before_streaming = shared_context;
  clgpu_context_options options;
  memset(&options, 0, sizeof options);
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  size_t n = oclgrind ? 20011 : 100003;
  collect_distributions();
  for (size_t t = 0; t < sizeof tunings / sizeof tunings[0]; t++) {
    assert_int_equal(setenv("CLGPU_TUNING", tunings[t], 1), 0);
    shared_context = test_context(&options);
    unsetenv("CLGPU_TUNING");
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
      if (oclgrind && (r + t) % 3) continue;
      sort_case c = chunked_radix_case(rows[r].key, n, tunings[t], rows[r].value_bytes,
                                       rows[r].descending, rows[r].index_values);
      size_t d = (r * 7 + t) % distribution_count;
      c.distribution = distributions[d].distribution;
      c.parameter = distributions[d].parameter;
      run_sort_case(&c);
    }
    clgpu_context_destroy(shared_context);
    shared_context = shared_before_streaming;
  }
}

/* The CHUNKED radix scatter either adds up the digit counts itself (the
 * tuning table's sort_summed_counts: digits times chunks at most that) or
 * takes them from the scan kernel, which then also decides whether a pass
 * is skipped: both forced here, on chunks of 1000 keys or more (several
 * per work-item count) and past the one-kernel sort's sizes, over data
 * whose passes are all skipped (one value), some skipped (small integers,
 * one bit varying) or none, keys alone and with values, both orders. */
static void summed_and_scanned_counts(void **state) {
  (void)state;
  static const char *const tunings[] = {
      "sort_summed_counts=0,sort_single_chunk=1,sort_single_chunk_values=1,sort_chunk_minimum=1000",
      "sort_summed_counts=16777216,sort_single_chunk=1,sort_single_chunk_values=1,"
      "sort_chunk_minimum=1000",
  };
  static const struct {
    unsigned key;
    size_t value_bytes;
    int descending, index_values;
    test_distribution distribution;
    size_t parameter;
  } rows[] = {
      {KEY_UINT32, 0, 0, 0, TEST_UNIFORM, 0},           {KEY_UINT32, 0, 1, 0, TEST_ALL_EQUAL, 0},
      {KEY_UINT32, 4, 0, 1, TEST_SMALL_INTEGERS, 1000}, {KEY_INT64, 0, 0, 0, TEST_HIGH_BIT_ONLY, 0},
      {KEY_FLOAT, 4, 1, 1, TEST_LOW_BIT_ONLY, 0},       {KEY_UINT16, 2, 0, 1, TEST_FEW_UNIQUE, 3},
  };
  static const size_t sizes[] = {5003, 100003};
  size_t size_count = oclgrind ? 1 : 2;
  clgpu_context *kept = shared_context;
  for (size_t t = 0; t < sizeof tunings / sizeof tunings[0]; t++) {
    shared_context = test_context_tuned(tunings[t]);
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
      for (size_t s = 0; s < size_count; s++) {
        sort_case c = chunked_radix_case(rows[r].key, sizes[s], tunings[t], rows[r].value_bytes,
                                         rows[r].descending, rows[r].index_values);
        c.distribution = rows[r].distribution;
        c.parameter = rows[r].parameter;
        run_sort_case(&c);
      }
    }
    clgpu_context_destroy(shared_context);
  }
  shared_context = kept;
}

/* Strided keys and values (packed into the workspace and written back):
 * the same as sorting the logical elements, and every byte between them
 * unchanged. */
static void strided_views(void **state) {
  (void)state;
  static const struct {
    ptrdiff_t key_stride, value_stride;
    size_t value_bytes;
  } layouts[] = {
      {2, 1, 0}, {-1, 1, 0}, {2, 2, 4}, {-1, -1, 4}, {1, 2, 4}, {1, -1, 4}, {-1, 2, 4}, {3, -2, 4},
  };
  static const size_t sizes[] = {1, 1000, 4 * SORT_TILE + 1, 16385, 65537};
  size_t size_count = sizeof sizes / sizeof sizes[0] - (oclgrind ? 3 : 0);
  for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
    for (size_t m = 0; m < 4; m++) {
      if (oclgrind && m != l % 4) continue;
      for (size_t s = 0; s < size_count; s++) {
        if (!oclgrind && (s + l + m) % 2) continue;
        sort_case c = base_case(KEY_UINT32, sizes[s], CLGPU_ALGORITHM_RADIX, CLGPU_SHAPE_CHUNKED);
        set_combination(&c, m);
        c.what = "strided";
        c.distribution = s % 2 ? TEST_FEW_UNIQUE : TEST_UNIFORM;
        c.parameter = 16;
        c.key_stride = layouts[l].key_stride;
        c.value_stride = layouts[l].value_stride;
        c.value_bytes = layouts[l].value_bytes;
        c.index_values = layouts[l].value_bytes != 0 && s % 2;
        run_sort_case(&c);
      }
    }
  }
}

/* ---- radix bit ranges ---- */

/* Bits [begin, end) of the ordered image alone (inverted for descending):
 * keys equal in those bits keep their order. The first three rows run in
 * both shapes, one ascending and one descending, the orders swapping
 * between rows; the others in one shape each (the last two are full or
 * nearly full ranges, which sort like every bit). */
static void bit_ranges(void **state) {
  (void)state;
  static const struct {
    unsigned key, begin_bit, end_bit;
    test_distribution distribution;
    int both_shapes;
    size_t shape;
    int descending;
  } rows[] = {
      {KEY_UINT32, 8, 16, TEST_UNIFORM, 1, 0, 0},
      {KEY_UINT8, 0, 4, TEST_UNIFORM, 1, 0, 1},
      {KEY_INT64, 20, 40, TEST_UNIFORM, 1, 0, 0},
      {KEY_FLOAT, 16, 32, TEST_FLOAT_SPECIALS, 0, 1, 1},
      {KEY_INT16, 15, 16, TEST_MIN_MAX_MIXED, 0, 0, 0},
      {KEY_INT32, 0, 32, TEST_ENTROPY_REDUCED, 0, 1, 1},
      {KEY_UINT64, 1, 64, TEST_LOW_BIT_ONLY, 0, 1, 0},
  };
  static const size_t sizes[] = {1000, 4 * SORT_TILE + 1, 16385, 65537};
  size_t size_count = oclgrind ? 1 : sizeof sizes / sizeof sizes[0];
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    for (size_t h = 0; h < 2; h++) {
      if (!rows[r].both_shapes && h != rows[r].shape) continue;
      if (oclgrind && (r + h) % 3 != 0) continue;
      for (size_t s = 0; s < size_count; s++) {
        sort_case c = base_case(rows[r].key, sizes[s], CLGPU_ALGORITHM_RADIX, both_shapes[h]);
        c.what = "bit range";
        c.descending =
            rows[r].both_shapes ? (int)((rows[r].descending + h) % 2) : rows[r].descending;
        c.begin_bit = rows[r].begin_bit;
        c.end_bit = rows[r].end_bit;
        c.distribution = rows[r].distribution;
        c.parameter = 3;
        c.index_values = s % 2 == 0;
        run_sort_case(&c);
      }
    }
  }
}

/* ---- merge sort with comparators and custom keys ---- */

typedef enum custom_kind {
  CUSTOM_FABS,  /* float keys, compare "fabs(a) < fabs(b)" */
  CUSTOM_POINT, /* struct { float x; int id; } keys, compare "a.x < b.x" */
} custom_kind;

typedef struct custom_case {
  custom_kind kind;
  size_t n;
  test_distribution distribution;
  size_t parameter;
  clgpu_algorithm algorithm; /* MERGE or AUTO */
  clgpu_shape shape;
  int descending;
  size_t value_bytes; /* 0 or 16 */
  int permutation;    /* clgpu_sort_permutation instead of clgpu_sort */
} custom_case;

static void run_custom_case(const custom_case *c) {
  size_t n = c->n;
  size_t key_size = c->kind == CUSTOM_POINT ? 8 : 4;
  char label[400];
  snprintf(
      label, sizeof label,
      "%s %s: n=%zu distribution=%s(%zu) algorithm=%s shape=%s order=%s values=%zu",
      c->permutation ? "sort permutation" : "sort",
      c->kind == CUSTOM_POINT ? "point keys, \"a.x < b.x\"" : "float keys, \"fabs(a) < fabs(b)\"",
      n, test_distribution_name(c->distribution), c->parameter, algorithm_text(c->algorithm),
      shape_text(c->shape), c->descending ? "descending" : "ascending", c->value_bytes);
  uint64_t seed = test_case_seed(label);
  float *x = malloc((n ? n : 1) * sizeof *x);
  unsigned char *keys = malloc(n * key_size + 1);
  uint32_t *permutation = malloc((n ? n : 1) * sizeof *permutation);
  unsigned char *expected_keys = malloc(n * key_size + 1);
  assert_non_null(x);
  assert_non_null(keys);
  assert_non_null(permutation);
  assert_non_null(expected_keys);
  finite_floats(c->distribution, c->parameter, n, seed, x);
  for (size_t i = 0; i < n; i++) {
    memcpy(keys + i * key_size, &x[i], 4);
    if (c->kind == CUSTOM_POINT) {
      int32_t id = (int32_t)i;
      memcpy(keys + i * key_size + 4, &id, 4);
    }
  }
  float_reference reference = {x, c->kind == CUSTOM_FABS ? FLOAT_FABS_LESS : FLOAT_LESS,
                               c->descending};
  test_stable_permutation(n, float_precedes, &reference, permutation);
  apply_permutation(keys, permutation, n, key_size, expected_keys);

  placed key_region = place_elements(shared_context, n, key_size, 1, keys, seed ^ 0x4444u);
  clgpu_array key_view;
  if (c->kind == CUSTOM_POINT) {
    assert_status(clgpu_array_1d(key_region.guarded.buffer,
                                 key_region.guarded.offset + key_region.spec.offset * 8,
                                 CLGPU_TYPE_UINT32, 2 * n, &key_view),
                  CLGPU_SUCCESS);
  } else {
    key_view = make_view(&key_region.guarded, CLGPU_TYPE_FLOAT, &key_region.spec);
  }
  size_t vsize = c->permutation ? 4 : c->value_bytes;
  unsigned char *values = NULL, *expected_values = NULL;
  placed value_region;
  clgpu_array value_view;
  if (vsize) {
    values = random_bytes(n * vsize, seed ^ 0x5555u);
    expected_values = malloc(n * vsize + 1);
    assert_non_null(expected_values);
    if (c->permutation) {
      memcpy(expected_values, permutation, n * 4);
    } else {
      apply_permutation(values, permutation, n, vsize, expected_values);
    }
    value_region = place_elements(shared_context, n, vsize, 1, values, seed ^ 0x6666u);
    value_view = values_view(&value_region);
  }

  clgpu_sort_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.descending = c->descending;
  if (c->kind == CUSTOM_POINT) {
    spec.compare = "a.x < b.x";
    spec.key_type = "point";
    spec.declarations = point_declarations;
    spec.key_size = 8;
  } else {
    spec.compare = "fabs(a) < fabs(b)";
  }
  clgpu_sort_options options = {.algorithm = c->algorithm, .shape = c->shape, .workspace = NULL};
  cl_event event = NULL;
  clgpu_status status = c->permutation
                            ? clgpu_sort_permutation(shared_context, &spec, &value_view, &key_view,
                                                     &options, 0, NULL, &event)
                            : clgpu_sort(shared_context, &spec, &key_view,
                                         vsize ? &value_view : NULL, &options, 0, NULL, &event);
  expect_success(status, label);
  if (event == NULL) fail_msg("%s: no event", label);
  assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
  clReleaseEvent(event);

  /* A permutation call leaves the keys as they were. */
  check_placed(&key_region, c->permutation ? keys : expected_keys, n, permutation, NULL, 0, "keys",
               label);
  if (vsize) {
    check_placed(&value_region, expected_values, n, permutation, NULL, 0,
                 c->permutation ? "permutation" : "values", label);
    release_placed(&value_region);
  }
  release_placed(&key_region);
  free(expected_values);
  free(values);
  free(expected_keys);
  free(permutation);
  free(keys);
  free(x);
}

/* "fabs(a) < fabs(b)" over float keys: -0 and +0, and x and -x, are equal
 * and keep their order; descending reverses the comparator, stably. */
static void custom_comparator(void **state) {
  (void)state;
  static const struct {
    test_distribution distribution;
    size_t parameter;
  } data[] = {{TEST_FEW_UNIQUE, 16},
              {TEST_HIGH_BIT_ONLY, 0},
              {TEST_FLOAT_SPECIALS, 0},
              {TEST_UNIFORM, 0},
              {TEST_ORGAN_PIPE, 0}};
  static const size_t sizes[] = {0, 1, 17, 1000, 4099, 16385, 65537};
  size_t size_count = sizeof sizes / sizeof sizes[0] - (oclgrind ? 2 : 0);
  for (size_t h = 0; h < 2; h++) {
    for (int descending = 0; descending < 2; descending++) {
      if (descending && h == 1) continue; /* descending in one shape */
      for (size_t s = 0; s < size_count; s++) {
        if (oclgrind && s % 2) continue;
        custom_case c = {CUSTOM_FABS,
                         sizes[s],
                         data[(s + h) % 5].distribution,
                         data[(s + h) % 5].parameter,
                         CLGPU_ALGORITHM_MERGE,
                         both_shapes[h],
                         descending,
                         0,
                         0};
        run_custom_case(&c);
      }
    }
  }
}

static int compare_bits(const void *a, const void *b) {
  uint32_t x, y;
  memcpy(&x, a, sizeof x);
  memcpy(&y, b, sizeof y);
  return x < y ? -1 : x > y;
}

/* "a < b" over floats holding NaNs is not a strict weak order (a NaN is
 * unordered with every key, so "equal" is not transitive): the order of
 * such a sort is not defined, but a merge sort of up to merge_block keys
 * (one block, 16 here) still returns the keys it was given, each once,
 * whatever order it chose. The merge sort's blocks are sorted by rank,
 * where such a comparator can give two keys one place; such a block goes
 * by insertion instead. Keys of one to 16 elements, a third of them NaNs
 * of three payloads, both shapes, keys alone and with their indices. */
static void inconsistent_comparator_in_one_block(void **state) {
  (void)state;
  clgpu_context *context = test_context_tuned("merge_block=16");
  static const uint32_t nans[] = {0x7fc00000u, 0xffc00001u, 0x7f800123u};
  test_rng rng;
  test_rng_init(&rng, test_case_seed("inconsistent comparator in one block"));
  cl_mem key_buffer = NULL, value_buffer = NULL;
  assert_status(clgpu_buffer_create(context, CL_MEM_READ_WRITE, 16 * sizeof(float), &key_buffer),
                CLGPU_SUCCESS);
  assert_status(
      clgpu_buffer_create(context, CL_MEM_READ_WRITE, 16 * sizeof(uint32_t), &value_buffer),
      CLGPU_SUCCESS);
  size_t collided = 0;
  for (size_t round = 0; round < (oclgrind ? 8u : 60u); round++) {
    size_t n = 1 + (size_t)test_rng_below(&rng, 16);
    int with_values = (int)(round % 2);
    uint32_t input[16], keys[16], values[16], indices[16];
    for (size_t k = 0; k < n; k++) {
      float x = (float)test_rng_below(&rng, 5);
      memcpy(&input[k], &x, sizeof x);
      if (test_rng_below(&rng, 3) == 0) input[k] = nans[test_rng_below(&rng, 3)];
      indices[k] = (uint32_t)k;
    }
    if (round == 0) {
      /* 1, NaN, 0: each key's rank is 1. */
      static const float fixed[] = {1.0f, 0.0f, 0.0f};
      n = 3;
      memcpy(input, fixed, sizeof fixed);
      input[1] = nans[0];
      for (size_t k = 0; k < n; k++) indices[k] = (uint32_t)k;
    }
    clgpu_array key_view, value_view;
    assert_status(clgpu_array_1d(key_buffer, 0, CLGPU_TYPE_FLOAT, n, &key_view), CLGPU_SUCCESS);
    assert_status(clgpu_array_1d(value_buffer, 0, CLGPU_TYPE_UINT32, n, &value_view),
                  CLGPU_SUCCESS);
    assert_status(clgpu_array_write(context, &key_view, input, n * 4, 0, NULL), CLGPU_SUCCESS);
    assert_status(clgpu_array_write(context, &value_view, indices, n * 4, 0, NULL), CLGPU_SUCCESS);
    clgpu_sort_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.compare = "a < b";
    clgpu_sort_options options;
    memset(&options, 0, sizeof options);
    options.algorithm = CLGPU_ALGORITHM_MERGE;
    options.shape = both_shapes[(round / 2) % 2];
    clgpu_status status = clgpu_sort(context, &spec, &key_view, with_values ? &value_view : NULL,
                                     &options, 0, NULL, NULL);
    if (status != CLGPU_SUCCESS) {
      fail_msg("a < b over %zu floats with NaNs: %s: %s", n, clgpu_status_name(status),
               clgpu_last_error());
    }
    assert_status(clgpu_array_read(context, keys, n * 4, &key_view, 0, NULL), CLGPU_SUCCESS);
    assert_status(clgpu_array_read(context, values, n * 4, &value_view, 0, NULL), CLGPU_SUCCESS);
    if (with_values) {
      /* Each index once, with the key it came with. */
      uint32_t seen = 0;
      for (size_t k = 0; k < n; k++) {
        if (values[k] >= n || (seen >> values[k] & 1u)) {
          fail_msg("a < b over %zu floats with NaNs: value %zu is %u, not a new index", n, k,
                   values[k]);
        }
        seen |= 1u << values[k];
        if (keys[k] != input[values[k]]) {
          fail_msg("a < b over %zu floats with NaNs: key %zu is 0x%08x, not key %u's 0x%08x", n, k,
                   keys[k], values[k], input[values[k]]);
        }
      }
    }
    /* The same keys (bits), each as often. */
    uint32_t sorted_input[16];
    memcpy(sorted_input, input, n * 4);
    qsort(sorted_input, n, 4, compare_bits);
    qsort(keys, n, 4, compare_bits);
    if (memcmp(sorted_input, keys, n * 4) != 0) {
      fail_msg(
          "a < b over %zu floats with NaNs (round %zu): the keys that came back are not "
          "the keys given",
          n, round);
    }
    /* Whether ranks would have collided here: the test reaches the
     * insertion path (counted below). */
    uint32_t used = 0;
    for (size_t k = 0; k < n; k++) {
      uint32_t rank = 0;
      float x;
      memcpy(&x, &input[k], 4);
      for (size_t m = 0; m < n; m++) {
        float y;
        memcpy(&y, &input[m], 4);
        if (m < k ? !(x < y) : m > k && y < x) rank++;
      }
      used |= 1u << rank;
    }
    if (used != (n == 32 ? 0xffffffffu : (1u << n) - 1u)) collided++;
  }
  print_message("# %zu of the sorts had keys whose ranks collide\n", collided);
  assert_true(collided > 0);
  clgpu_buffer_release(context, key_buffer);
  clgpu_buffer_release(context, value_buffer);
  clgpu_context_destroy(context);
}

/* A struct key declared in OpenCL C, with and without 16-byte values, and
 * descending; ties in x (few unique x) show stability through the ids. */
static void struct_keys(void **state) {
  (void)state;
  static const size_t sizes[] = {1, 2, 33, 1000, 4099, 16385, 65537};
  size_t size_count = sizeof sizes / sizeof sizes[0] - (oclgrind ? 2 : 0);
  for (size_t h = 0; h < 2; h++) {
    for (size_t variant = 0; variant < 3; variant++) {
      if (variant == 2 && h == 1) continue; /* descending in one shape */
      for (size_t s = 0; s < size_count; s++) {
        if (oclgrind && (s + variant) % 2) continue;
        custom_case c = {CUSTOM_POINT,
                         sizes[s],
                         s % 2 ? TEST_FEW_UNIQUE : TEST_SAWTOOTH,
                         16,
                         CLGPU_ALGORITHM_MERGE,
                         both_shapes[h],
                         variant == 2,
                         variant == 1 ? 16 : 0,
                         0};
        run_custom_case(&c);
      }
    }
  }
}

/* ---- the sort permutation ---- */

/* clgpu_sort_permutation: the reference's stable permutation, the keys
 * unchanged; both algorithms and shapes, both permutation types, strided
 * and reversed permutations and keys, and custom keys. The rows run in the
 * combinations whose programs the stability and value tests built (a
 * permutation sorts its keys with 4- or 8-byte indices as values). */
static void sort_permutation(void **state) {
  (void)state;
  static const size_t uint32_combinations[] = {0, 1, 2, 3}, float_combinations[] = {0, 3, 5, 6};
  static const struct {
    unsigned key;
    test_distribution distribution;
    size_t parameter;
    clgpu_type permutation;
    ptrdiff_t key_stride, permutation_stride;
  } rows[] = {
      {KEY_UINT32, TEST_FEW_UNIQUE, 16, CLGPU_TYPE_UINT32, 1, 1},
      {KEY_FLOAT, TEST_FLOAT_SPECIALS, 0, CLGPU_TYPE_UINT32, 1, 1},
      {KEY_UINT32, TEST_UNIFORM, 0, CLGPU_TYPE_UINT64, 1, 1},
      {KEY_UINT32, TEST_ALL_EQUAL, 0, CLGPU_TYPE_UINT64, 1, 2},
      {KEY_FLOAT, TEST_SORTED_1PCT_SWAPS, 0, CLGPU_TYPE_UINT32, -1, -1},
      {KEY_UINT32, TEST_SAWTOOTH, 257, CLGPU_TYPE_UINT32, 2, 1},
  };
  static const size_t sizes[] = {0, 1, 2, 1000, 4 * SORT_TILE + 1, 16385, 65537};
  size_t size_count = sizeof sizes / sizeof sizes[0] - (oclgrind ? 3 : 0);
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    const size_t *combinations =
        rows[r].key == KEY_FLOAT ? float_combinations : uint32_combinations;
    for (size_t k = 0; k < 4; k++) {
      if (oclgrind && k != r % 4) continue;
      for (size_t s = 0; s < size_count; s++) {
        if (!oclgrind && (s + k + r) % 2 && s + 1 != size_count) continue;
        sort_case c = base_case(rows[r].key, sizes[s], CLGPU_ALGORITHM_RADIX, CLGPU_SHAPE_CHUNKED);
        set_combination(&c, combinations[k]);
        c.what = "argsort";
        c.distribution = rows[r].distribution;
        c.parameter = rows[r].parameter;
        c.permutation = rows[r].permutation;
        c.key_stride = rows[r].key_stride;
        c.value_stride = rows[r].permutation_stride;
        run_sort_case(&c);
      }
    }
  }
  /* Custom keys and a comparator. */
  static const size_t custom_sizes[] = {1, 1000, 16385};
  for (size_t h = 0; h < 2; h++) {
    for (size_t s = 0; s < (oclgrind ? 2 : 3); s++) {
      custom_case c = {CUSTOM_POINT,
                       custom_sizes[s],
                       TEST_FEW_UNIQUE,
                       16,
                       CLGPU_ALGORITHM_MERGE,
                       both_shapes[h],
                       0,
                       0,
                       1};
      run_custom_case(&c);
      c.kind = CUSTOM_FABS;
      c.distribution = TEST_FLOAT_SPECIALS;
      run_custom_case(&c);
    }
  }
}

/* ---- gather ---- */

typedef struct gather_case {
  size_t element_size; /* 1, 2, 4 or 8 */
  size_t n;            /* the permutation's and the destination's length */
  size_t source_n;
  clgpu_type permutation_type;
  ptrdiff_t permutation_stride, source_stride, destination_stride;
  int out_of_range; /* some indices at or past source_n */
} gather_case;

static void run_gather_case(const gather_case *c) {
  size_t n = c->n, size = c->element_size;
  size_t index_size = clgpu_type_size(c->permutation_type);
  char label[300];
  snprintf(label, sizeof label,
           "gather: %zu-byte elements, n=%zu from %zu, %s permutation, strides %td/%td/%td%s", size,
           n, c->source_n, clgpu_type_cl_name(c->permutation_type), c->permutation_stride,
           c->source_stride, c->destination_stride,
           c->out_of_range ? ", indices out of range" : "");
  uint64_t seed = test_case_seed(label);
  test_rng rng;
  test_rng_init(&rng, seed);
  /* A random permutation of the source when it is long enough (a shuffle),
   * random indices otherwise; out of range ones from source_n up to 2^32
   * (or 2^64) - 1. */
  uint64_t *indices = malloc((n ? n : 1) * sizeof *indices);
  assert_non_null(indices);
  for (size_t i = 0; i < n; i++)
    indices[i] = c->source_n >= n ? i : test_rng_below(&rng, c->source_n);
  for (size_t i = n; c->source_n >= n && i > 1; i--) {
    size_t j = (size_t)test_rng_below(&rng, i);
    uint64_t swap = indices[i - 1];
    indices[i - 1] = indices[j];
    indices[j] = swap;
  }
  if (c->out_of_range) {
    uint64_t top = index_size == 4 ? UINT32_MAX : UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
      uint64_t pick = test_rng_below(&rng, 5);
      if (pick == 0) indices[i] = c->source_n;
      if (pick == 1) indices[i] = top;
      if (pick == 2) indices[i] = c->source_n + test_rng_below(&rng, 1000);
    }
  }
  unsigned char *permutation = malloc(n * index_size + 1);
  assert_non_null(permutation);
  for (size_t i = 0; i < n; i++) test_store_bits(permutation, i, raw_type(index_size), indices[i]);
  unsigned char *source = random_bytes(c->source_n * size, seed ^ 0x7777u);
  unsigned char *destination = random_bytes(n * size, seed ^ 0x8888u);
  unsigned char *expected = malloc(n * size + 1);
  assert_non_null(expected);
  memcpy(expected, destination, n * size);
  for (size_t i = 0; i < n; i++) {
    if (indices[i] < c->source_n) memcpy(expected + i * size, source + indices[i] * size, size);
  }
  placed p =
      place_elements(shared_context, n, index_size, c->permutation_stride, permutation, seed ^ 1);
  placed s = place_elements(shared_context, c->source_n, size, c->source_stride, source, seed ^ 2);
  placed d = place_elements(shared_context, n, size, c->destination_stride, destination, seed ^ 3);
  clgpu_array p_view = make_view(&p.guarded, c->permutation_type, &p.spec);
  clgpu_type element_type = test_cl_type(raw_type(size));
  clgpu_array s_view = make_view(&s.guarded, element_type, &s.spec);
  clgpu_array d_view = make_view(&d.guarded, element_type, &d.spec);
  cl_event event = NULL;
  expect_success(clgpu_gather(shared_context, &d_view, &s_view, &p_view, 0, NULL, &event), label);
  if (event == NULL) fail_msg("%s: no event", label);
  assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
  clReleaseEvent(event);
  check_placed(&d, expected, n, NULL, NULL, 0, "destination", label);
  check_placed(&p, permutation, n, NULL, NULL, 0, "permutation (unchanged)", label);
  check_placed(&s, source, c->source_n, NULL, NULL, 0, "source (unchanged)", label);
  release_placed(&d);
  release_placed(&s);
  release_placed(&p);
  free(expected);
  free(destination);
  free(source);
  free(permutation);
  free(indices);
}

/* destination[i] = source[permutation[i]] for element sizes 1 to 8, both
 * permutation types, strided and reversed views, a source longer or
 * shorter than the permutation, and indices past the source's end, which
 * leave their destination element as it was. */
static void gather_elements(void **state) {
  (void)state;
  static const size_t sizes[] = {0, 1, 7, 1000, 65537};
  static const struct {
    ptrdiff_t permutation_stride, source_stride, destination_stride;
  } strides[] = {{1, 1, 1}, {2, 1, 1}, {1, -1, 1}, {1, 1, 2}, {-1, 3, -2}};
  size_t size_count = sizeof sizes / sizeof sizes[0] - (oclgrind ? 1 : 0);
  for (size_t e = 0; e < 4; e++) {
    for (size_t k = 0; k < sizeof strides / sizeof strides[0]; k++) {
      for (size_t s = 0; s < size_count; s++) {
        if ((e + k + s) % 2 && s + 1 != size_count) continue;
        gather_case c = {(size_t)1 << e,
                         sizes[s],
                         sizes[s],
                         (e + s) % 2 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32,
                         strides[k].permutation_stride,
                         strides[k].source_stride,
                         strides[k].destination_stride,
                         0};
        run_gather_case(&c);
        c.out_of_range = 1;
        run_gather_case(&c);
        c.source_n = sizes[s] / 3 + 1; /* a shorter source: repeated indices */
        c.out_of_range = k % 2;
        run_gather_case(&c);
      }
    }
  }
}

/* ---- workspaces ---- */

static size_t case_value_size(const sort_case *c) {
  return c->permutation ? clgpu_type_size(c->permutation) : c->index_values ? 4 : c->value_bytes;
}

/* The query for a case's layout: views of the same types, shapes and
 * strides (the query looks at nothing else) over scratch buffers. */
static clgpu_status query_case(const sort_case *c, const clgpu_sort_spec *spec,
                               clgpu_workspace_size *report) {
  const key_type *t = &key_types[c->key];
  size_t vsize = case_value_size(c);
  view_spec keys = {0, 1, {c->n}, {c->key_stride}};
  view_spec values = {0, 1, {c->n}, {c->value_stride}};
  size_t key_elements = spec_fit(&keys, 3), value_elements = spec_fit(&values, 3);
  test_guarded key_buffer = test_guarded_create(shared_context, key_elements * t->size, NULL);
  test_guarded value_buffer =
      test_guarded_create(shared_context, value_elements * (vsize ? vsize : 1), NULL);
  clgpu_array key_view = make_view(&key_buffer, t->type, &keys);
  clgpu_array value_view;
  if (vsize) value_view = view_of_values(&value_buffer, &values, vsize);
  clgpu_sort_spec zero;
  memset(&zero, 0, sizeof zero);
  zero.descending = c->descending;
  zero.begin_bit = c->begin_bit;
  zero.end_bit = c->end_bit;
  clgpu_sort_options options = {.algorithm = c->algorithm, .shape = c->shape, .workspace = NULL};
  clgpu_status status =
      c->permutation
          ? clgpu_sort_permutation_workspace_size(shared_context, spec ? spec : &zero, &value_view,
                                                  &key_view, &options, report)
          : clgpu_sort_workspace_size(shared_context, spec ? spec : &zero, &key_view,
                                      vsize ? &value_view : NULL, &options, report);
  test_guarded_release(&value_buffer);
  test_guarded_release(&key_buffer);
  return status;
}

static clgpu_workspace_size case_report(const sort_case *c, const char *label) {
  clgpu_workspace_size report;
  memset(&report, 0, sizeof report);
  expect_success(query_case(c, NULL, &report), label);
  return report;
}

/* The report of a sort: one part (SORT, the shape, the algorithm); aligned, non-overlapping buffers
 * inside total_bytes; at least the second half of the ping-pong, n * (k + v) bytes, plus the packed
 * or sorted copy of the keys where the call makes one. */
static void check_report(const clgpu_workspace_size *report, const sort_case *c,
                         const char *label) {
  if (report->num_parts != 1 || report->parts[0].operation != CLGPU_OPERATION_SORT ||
      report->parts[0].algorithm != c->algorithm || report->parts[0].shape != c->shape ||
      report->parts[0].parent != -1) {
    fail_msg("%s: the report's parts are not (sort, %s, %s, -1): %u parts, (%s, %s, %s, %d)", label,
             algorithm_text(c->algorithm), shape_text(c->shape), report->num_parts,
             clgpu_operation_name(report->parts[0].operation),
             algorithm_text(report->parts[0].algorithm), shape_text(report->parts[0].shape),
             report->parts[0].parent);
  }
  uint64_t alignment = report->alignment;
  if (alignment < 16 || (alignment & (alignment - 1)) != 0) {
    fail_msg("%s: alignment %llu", label, (unsigned long long)alignment);
  }
  for (unsigned b = 0; b < report->num_buffers; b++) {
    const clgpu_workspace_buffer *buffer = &report->buffers[b];
    if (buffer->name == NULL || buffer->part >= report->num_parts ||
        buffer->offset % alignment != 0 ||
        buffer->bytes != buffer->count * clgpu_type_size(buffer->type) ||
        (buffer->bytes > 0 && buffer->offset + buffer->bytes > report->total_bytes)) {
      fail_msg("%s: buffer %u (%s) is not a consistent part of the report", label, b,
               buffer->name ? buffer->name : "unnamed");
    }
    for (unsigned other = 0; other < b; other++) {
      const clgpu_workspace_buffer *o = &report->buffers[other];
      if (buffer->bytes > 0 && o->bytes > 0 && buffer->offset < o->offset + o->bytes &&
          o->offset < buffer->offset + buffer->bytes) {
        fail_msg("%s: buffers %s and %s overlap", label, o->name, buffer->name);
      }
    }
  }
  uint64_t k = key_types[c->key].size, v = case_value_size(c), n = c->n;
  uint64_t least = n > 1 ? n * (k + v) : 0;
  /* A permutation of contiguous keys that travel as pairs reads them
   * where they are (docs/sort.md): its places hold the pairs instead. */
  int pairs = k == 4 && v == 4 && n > 1 && report->buffers[KEYS_ALTERNATE].bytes == 8 * n &&
              report->buffers[VALUES_ALTERNATE].bytes == 8 * n;
  if ((c->permutation && !(pairs && c->key_stride == 1)) || (c->key_stride != 1 && n > 1)) {
    least += n * k;
  }
  if (report->total_bytes < least) {
    fail_msg("%s: total_bytes %llu, below the %llu bytes of the ping-pong and copies", label,
             (unsigned long long)report->total_bytes, (unsigned long long)least);
  }
}

/* The layouts the workspace tests use: contiguous keys with their input
 * indices as values, strided keys and values (packed copies), keys only,
 * and the sort permutation. */
static sort_case workspace_case(size_t layout, size_t n, size_t m) {
  sort_case c = base_case(KEY_UINT32, n, CLGPU_ALGORITHM_RADIX, CLGPU_SHAPE_CHUNKED);
  set_combination(&c, m % 4);
  c.what = "workspace";
  c.distribution = TEST_FEW_UNIQUE;
  c.parameter = 256;
  switch (layout) {
    case 0:
      c.index_values = 1;
      break;
    case 1:
      c.index_values = 1;
      c.key_stride = -1;
      c.value_stride = 2;
      break;
    case 2:
      break;
    default:
      c.permutation = CLGPU_TYPE_UINT32;
      break;
  }
  return c;
}

#define WORKSPACE_LAYOUTS 4

/* Reports: their parts and buffers, for every layout, algorithm and shape;
 * two reports of one algorithm and shape name the same buffers (a sort
 * permutation's too); the queries allocate nothing. */
static void workspace_reports(void **state) {
  (void)state;
  clgpu_alloc_cache *cache = NULL;
  assert_status(clgpu_alloc_cache_create(&cache), CLGPU_SUCCESS);
  static const size_t sizes[] = {0, 1, 2, 1000, 16385, 65537};
  for (size_t m = 0; m < 4; m++) {
    clgpu_workspace_size first;
    memset(&first, 0, sizeof first);
    for (size_t layout = 0; layout < WORKSPACE_LAYOUTS; layout++) {
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        sort_case c = workspace_case(layout, sizes[s], m);
        char label[600];
        describe_case(&c, label, sizeof label);
        /* The views of the probe are made outside the scope; the query
         * runs inside it. */
        assert_status(clgpu_alloc_scope_begin(shared_context, cache), CLGPU_SUCCESS);
        clgpu_alloc_stats before = stats_of(cache);
        clgpu_workspace_size report;
        clgpu_status status = query_case(&c, NULL, &report);
        clgpu_alloc_stats after = stats_of(cache);
        assert_status(clgpu_alloc_scope_end(shared_context), CLGPU_SUCCESS);
        expect_success(status, label);
        if (allocated_between(before, after)) fail_msg("%s: the size query allocated", label);
        check_report(&report, &c, label);
        if (layout == 0 && s == 0) first = report;
        if (report.num_buffers != first.num_buffers) {
          fail_msg("%s: %u buffers, another report of the same algorithm lists %u", label,
                   report.num_buffers, first.num_buffers);
        }
        for (unsigned b = 0; b < report.num_buffers; b++) {
          if (strcmp(report.buffers[b].name, first.buffers[b].name) != 0) {
            fail_msg("%s: buffer %u is %s, in another report of the same algorithm %s", label, b,
                     report.buffers[b].name, first.buffers[b].name);
          }
        }
      }
    }
  }
  clgpu_alloc_cache_destroy(cache);
}

/* sort.h's buffers: always the six names in its order; the staged copies
 * exactly where a view is strided (and the keys' copy of a permutation);
 * the other half of the ping-pong n * (k + v) bytes; digit counts for radix
 * sorts past one group only. */
static void workspace_buffer_names(void **state) {
  (void)state;
  static const size_t sizes[] = {2, 1000, 65537};
  for (size_t m = 0; m < 4; m++) {
    for (size_t layout = 0; layout < WORKSPACE_LAYOUTS; layout++) {
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        sort_case c = workspace_case(layout, sizes[s], m);
        char label[600];
        describe_case(&c, label, sizeof label);
        clgpu_workspace_size report = case_report(&c, label);
        char names[400] = "";
        size_t used = 0;
        for (unsigned b = 0; b < report.num_buffers; b++) {
          used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", b ? ", " : "",
                                   report.buffers[b].name);
          if (used >= sizeof names) used = sizeof names - 1;
        }
        int same = report.num_buffers == 6;
        for (unsigned b = 0; same && b < 6; b++) {
          same = strcmp(report.buffers[b].name, sort_buffer_names[b]) == 0;
        }
        if (!same)
          fail_msg("%s: the report lists %s, not sort.h's six buffers in order", label, names);
        const clgpu_workspace_buffer *buffers = report.buffers;
        uint64_t n = c.n, k = key_types[c.key].size, v = case_value_size(&c);
        /* A view of one element is contiguous whatever its stride. */
        int keys_copied = (c.key_stride != 1 && n > 1) || c.permutation;
        int values_copied = c.value_stride != 1 && v > 0 && n > 1;
        /* 4-byte keys with 4-byte values may travel as 8-byte pairs
         * (the tuning table's sort_pack_pairs), 8 n bytes in each place;
         * a permutation of contiguous keys as pairs then reads the keys
         * where they are. */
        int pairs = k == 4 && v == 4 && c.algorithm != CLGPU_ALGORITHM_MERGE && n > 1 &&
                    buffers[KEYS_ALTERNATE].bytes == 8 * n &&
                    buffers[VALUES_ALTERNATE].bytes == 8 * n;
        if (pairs && c.permutation && c.key_stride == 1) keys_copied = 0;
        if (buffers[STAGED_KEYS].bytes != (keys_copied ? n * k : 0)) {
          fail_msg("%s: staged_keys holds %llu bytes for %llu keys of %llu bytes (%s)", label,
                   (unsigned long long)buffers[STAGED_KEYS].bytes, (unsigned long long)n,
                   (unsigned long long)k, keys_copied ? "copied" : "sorted where they are");
        }
        if (buffers[STAGED_VALUES].bytes != (values_copied ? n * v : 0)) {
          fail_msg("%s: staged_values holds %llu bytes (values %s)", label,
                   (unsigned long long)buffers[STAGED_VALUES].bytes,
                   values_copied ? "strided" : "contiguous");
        }
        int split =
            buffers[KEYS_ALTERNATE].bytes == n * k && buffers[VALUES_ALTERNATE].bytes == n * v;
        if (!split && !pairs) {
          fail_msg("%s: the ping-pong's other half holds %llu + %llu bytes, not %llu + %llu", label,
                   (unsigned long long)buffers[KEYS_ALTERNATE].bytes,
                   (unsigned long long)buffers[VALUES_ALTERNATE].bytes, (unsigned long long)(n * k),
                   (unsigned long long)(n * v));
        }
        int past_one_group = n > 4 * SORT_TILE * 4;
        int within_one_group = n <= 1000;
        if (c.algorithm == CLGPU_ALGORITHM_MERGE || within_one_group
                ? buffers[COUNTS].count != 0
                : past_one_group && buffers[COUNTS].count == 0) {
          fail_msg("%s: counts holds %llu elements", label,
                   (unsigned long long)buffers[COUNTS].count);
        }
      }
    }
  }
}

/* A workspace of exactly the queried size works, made by the library (in
 * a cache scope or before it) or wrapped over a guarded region, and the
 * call then allocates nothing; the same call without one does allocate. */
static void workspace_exact(void **state) {
  (void)state;
  size_t n = oclgrind ? 1000 : 16385;
  for (size_t m = 0; m < 4; m++) {
    for (size_t layout = 0; layout < WORKSPACE_LAYOUTS; layout++) {
      if (oclgrind && (layout + m) % 2) continue;
      sort_case c = workspace_case(layout, n, m);
      char label[600];
      describe_case(&c, label, sizeof label);
      clgpu_workspace_size report = case_report(&c, label);
      assert_true(report.total_bytes > 0);
      clgpu_workspace *made = NULL, *wrapped = NULL;
      expect_success(clgpu_workspace_create(shared_context, &report, &made), label);
      test_guarded region = test_guarded_create(shared_context, (size_t)report.total_bytes, NULL);
      expect_success(clgpu_workspace_wrap(shared_context, &report, region.buffer, region.offset,
                                          (size_t)report.total_bytes, &wrapped),
                     label);
      clgpu_alloc_cache *cache = NULL;
      assert_status(clgpu_alloc_cache_create(&cache), CLGPU_SUCCESS);
      assert_status(clgpu_alloc_scope_begin(shared_context, cache), CLGPU_SUCCESS);
      clgpu_workspace *scoped = NULL;
      expect_success(clgpu_workspace_create(shared_context, &report, &scoped), label);
      clgpu_workspace *const workspaces[] = {made, wrapped, scoped};
      static const char *const kinds[] = {"made", "wrapped", "made inside the cache scope"};
      for (size_t w = 0; w < 3; w++) {
        clgpu_alloc_stats before = stats_of(cache);
        c.workspace = workspaces[w];
        run_sort_case(&c);
        if (allocated_between(before, stats_of(cache))) {
          fail_msg("%s: the call allocated with a workspace (%s) of the queried size", label,
                   kinds[w]);
        }
      }
      /* The control: without a workspace the call allocates in the scope. */
      clgpu_alloc_stats before = stats_of(cache);
      c.workspace = NULL;
      run_sort_case(&c);
      clgpu_alloc_stats after = stats_of(cache);
      if (after.hits + after.misses == before.hits + before.misses) {
        fail_msg(
            "%s: without a workspace the call made no cache request (the check above "
            "proves nothing)",
            label);
      }
      clgpu_workspace_destroy(scoped);
      assert_status(clgpu_alloc_scope_end(shared_context), CLGPU_SUCCESS);
      clgpu_alloc_cache_destroy(cache);
      test_guarded_check(shared_context, &region, "a wrapped sort workspace");
      clgpu_workspace_destroy(wrapped);
      clgpu_workspace_destroy(made);
      test_guarded_release(&region);
    }
  }
}

/* uint32 keys and uint32 values of their own, with room after the keys
 * (inside their region) for a workspace of `room` bytes, to wrap one over
 * the keys' own bytes or next to them. */
typedef struct sort_fixture {
  size_t n;
  unsigned char *keys, *values;
  placed key_region, value_region;
  clgpu_array key_view, value_view;
} sort_fixture;

/* n contiguous 4-byte elements with `room` bytes (and a little more) of
 * random slack on both sides inside their region. */
static placed place_with_room(size_t n, size_t room, const unsigned char *logical, uint64_t seed) {
  return place_with_slack(shared_context, n, 4, 1, room / 4 + 64, logical, seed);
}

static sort_fixture fixture_new(size_t n, size_t room, uint64_t seed) {
  sort_fixture f;
  memset(&f, 0, sizeof f);
  f.n = n;
  f.keys = malloc(n * 4 + 1);
  assert_non_null(f.keys);
  test_generate(f.keys, n, TEST_UINT32, TEST_FEW_UNIQUE, seed, 16);
  f.values = random_bytes(n * 4, seed ^ 1);
  f.key_region = place_with_room(n, room, f.keys, seed ^ 2);
  f.key_view = make_view(&f.key_region.guarded, CLGPU_TYPE_UINT32, &f.key_region.spec);
  f.value_region = place_with_room(n, room, f.values, seed ^ 3);
  f.value_view = values_view(&f.value_region);
  return f;
}

static void fixture_free(sort_fixture *f) {
  release_placed(&f->value_region);
  release_placed(&f->key_region);
  free(f->values);
  free(f->keys);
}

/* A call that must fail with `expected`: no event, keys, values and the
 * permutation (when given) unchanged, guards intact. */
static void expect_refused(sort_fixture *f, int permutation_call, const placed *permutation,
                           const clgpu_sort_options *options, clgpu_status expected,
                           const char *label) {
  clgpu_sort_spec spec;
  memset(&spec, 0, sizeof spec);
  cl_event event = NULL;
  clgpu_array permutation_view;
  if (permutation) permutation_view = values_view(permutation);
  clgpu_status status = permutation_call
                            ? clgpu_sort_permutation(shared_context, &spec, &permutation_view,
                                                     &f->key_view, options, 0, NULL, &event)
                            : clgpu_sort(shared_context, &spec, &f->key_view, &f->value_view,
                                         options, 0, NULL, &event);
  if (status != expected) {
    fail_msg("%s: %s (%d), expected %s; detail: %s", label, clgpu_status_name(status), (int)status,
             clgpu_status_name(expected), clgpu_last_error());
  }
  print_message("# %s: %s\n", label, clgpu_last_error());
  if (event != NULL) fail_msg("%s: the failing call made an event", label);
  assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
  check_placed(&f->key_region, f->keys, f->n, NULL, NULL, 0, "keys (unchanged)", label);
  check_placed(&f->value_region, f->values, f->n, NULL, NULL, 0, "values (unchanged)", label);
  if (permutation) {
    unsigned char *initial = malloc(f->n * 4 + 1);
    assert_non_null(initial);
    gather(permutation->initial, &permutation->spec, 4, initial);
    check_placed(permutation, initial, f->n, NULL, NULL, 0, "permutation (unchanged)", label);
    free(initial);
  }
}

static clgpu_workspace *workspace_upto(clgpu_context *context, clgpu_algorithm algorithm,
                                       clgpu_shape shape, size_t max_n) {
  clgpu_sort_options options = {.algorithm = algorithm, .shape = shape, .workspace = NULL};
  clgpu_workspace_size report;
  assert_status(
      clgpu_sort_workspace_size_upto(context, NULL, CLGPU_TYPE_UINT32, 4, max_n, &options, &report),
      CLGPU_SUCCESS);
  clgpu_workspace *workspace = NULL;
  assert_status(clgpu_workspace_create(context, &report, &workspace), CLGPU_SUCCESS);
  return workspace;
}

/* Workspaces that do not fit are refused, and the keys stay as they
 * were: one byte too small (refused by the wrap itself), made for fewer
 * keys, for the other algorithm or shape, for a scan, for another
 * context, or over the bytes of the keys, the values or the permutation.
 * A workspace next to the keys in their own buffer is no alias. */
static void workspace_refused(void **state) {
  (void)state;
  const size_t n = oclgrind ? 1000 : 4099;
  clgpu_scan_op sum = {CLGPU_SCAN_SUM, 0, NULL, NULL};
  clgpu_workspace_size scan_report;
  assert_status(clgpu_scan_workspace_size_upto(shared_context, &sum, CLGPU_TYPE_UINT32, n, NULL,
                                               &scan_report),
                CLGPU_SUCCESS);
  clgpu_workspace *scan_workspace = NULL;
  assert_status(clgpu_workspace_create(shared_context, &scan_report, &scan_workspace),
                CLGPU_SUCCESS);
  clgpu_context *other_context = test_context(NULL);
  for (size_t m = 0; m < 4; m++) {
    clgpu_algorithm algorithm = both_algorithms[m % 2];
    clgpu_shape shape = both_shapes[m / 2];
    clgpu_sort_options options = {.algorithm = algorithm, .shape = shape, .workspace = NULL};
    clgpu_workspace_size report;
    assert_status(clgpu_sort_workspace_size_upto(shared_context, NULL, CLGPU_TYPE_UINT32, 4, n,
                                                 &options, &report),
                  CLGPU_SUCCESS);
    clgpu_workspace_size permutation_report;
    assert_status(clgpu_sort_permutation_workspace_size_upto(shared_context, NULL,
                                                             CLGPU_TYPE_UINT32, CLGPU_TYPE_UINT32,
                                                             n, &options, &permutation_report),
                  CLGPU_SUCCESS);
    size_t room = (size_t)(report.total_bytes > permutation_report.total_bytes
                               ? report.total_bytes
                               : permutation_report.total_bytes) +
                  (size_t)report.alignment;
    sort_fixture f = fixture_new(n, room, test_case_seed("sort workspace refusals") + m);
    placed permutation_region = place_with_room(n, room, f.values, 77 + m);
    char label[300];
    snprintf(label, sizeof label, "sort workspace refusals, n=%zu uint32 keys and values, %s, %s",
             n, algorithm_text(algorithm), shape_text(shape));
    char row[400];

    /* One byte too small: the wrap refuses. */
    test_guarded region = test_guarded_create(shared_context, (size_t)report.total_bytes, NULL);
    clgpu_workspace *workspace = (clgpu_workspace *)&region; /* must become NULL */
    assert_status(clgpu_workspace_wrap(shared_context, &report, region.buffer, region.offset,
                                       (size_t)report.total_bytes - 1, &workspace),
                  CLGPU_WORKSPACE_TOO_SMALL);
    assert_null(workspace);
    /* The region reaching past the buffer's end. */
    workspace = (clgpu_workspace *)&region;
    assert_status(clgpu_workspace_wrap(shared_context, &report, region.buffer,
                                       region.offset + 2 * TEST_GUARD_BYTES,
                                       (size_t)report.total_bytes, &workspace),
                  CLGPU_WORKSPACE_TOO_SMALL);
    assert_null(workspace);
    test_guarded_release(&region);

    /* Made for fewer keys. */
    options.workspace = workspace_upto(shared_context, algorithm, shape, n / 2);
    snprintf(row, sizeof row, "%s: a workspace for n/2 keys", label);
    expect_refused(&f, 0, NULL, &options, CLGPU_WORKSPACE_TOO_SMALL, row);
    clgpu_workspace_destroy(options.workspace);

    /* The other algorithm, the other shape. */
    options.workspace = workspace_upto(shared_context, both_algorithms[(m + 1) % 2], shape, n);
    snprintf(row, sizeof row, "%s: a workspace made for %s", label,
             algorithm_text(both_algorithms[(m + 1) % 2]));
    expect_refused(&f, 0, NULL, &options, CLGPU_WORKSPACE_WRONG_ALGORITHM, row);
    expect_refused(&f, 1, &permutation_region, &options, CLGPU_WORKSPACE_WRONG_ALGORITHM, row);
    clgpu_workspace_destroy(options.workspace);
    options.workspace = workspace_upto(shared_context, algorithm, both_shapes[(m / 2 + 1) % 2], n);
    snprintf(row, sizeof row, "%s: a workspace made for %s", label,
             shape_text(both_shapes[(m / 2 + 1) % 2]));
    expect_refused(&f, 0, NULL, &options, CLGPU_WORKSPACE_WRONG_ALGORITHM, row);
    clgpu_workspace_destroy(options.workspace);

    /* Another operation, another context. */
    options.workspace = scan_workspace;
    snprintf(row, sizeof row, "%s: a scan's workspace", label);
    expect_refused(&f, 0, NULL, &options, CLGPU_WORKSPACE_WRONG_OPERATION, row);
    expect_refused(&f, 1, &permutation_region, &options, CLGPU_WORKSPACE_WRONG_OPERATION, row);
    options.workspace = workspace_upto(other_context, algorithm, shape, n);
    snprintf(row, sizeof row, "%s: a workspace of another context", label);
    expect_refused(&f, 0, NULL, &options, CLGPU_WORKSPACE_WRONG_DEVICE, row);
    clgpu_workspace_destroy(options.workspace);

    /* Over the keys, the values, the permutation. */
    const placed *over[] = {&f.key_region, &f.value_region, &permutation_region};
    static const char *const over_names[] = {"keys", "values", "permutation"};
    for (size_t o = 0; o < 3; o++) {
      const clgpu_workspace_size *fitting = o == 2 ? &permutation_report : &report;
      /* From the elements' first byte (aligned down) on: the room after
       * them holds the rest. */
      size_t first = over[o]->guarded.offset + over[o]->spec.offset * 4;
      size_t at = first / (size_t)fitting->alignment * (size_t)fitting->alignment;
      clgpu_workspace *aliasing = NULL;
      expect_success(clgpu_workspace_wrap(shared_context, fitting, over[o]->guarded.buffer, at,
                                          (size_t)fitting->total_bytes, &aliasing),
                     label);
      options.workspace = aliasing;
      snprintf(row, sizeof row, "%s: a workspace over the bytes of the %s", label, over_names[o]);
      if (o == 2) {
        expect_refused(&f, 1, &permutation_region, &options, CLGPU_WORKSPACE_ALIASES_ARGUMENT, row);
      } else {
        expect_refused(&f, 0, NULL, &options, CLGPU_WORKSPACE_ALIASES_ARGUMENT, row);
      }
      clgpu_workspace_destroy(aliasing);
      if (o == 0) {
        /* The keys of a permutation call are only read, and still no
         * workspace may overlap them. */
        expect_success(
            clgpu_workspace_wrap(shared_context, &permutation_report, over[o]->guarded.buffer, at,
                                 (size_t)permutation_report.total_bytes, &aliasing),
            label);
        options.workspace = aliasing;
        expect_refused(&f, 1, &permutation_region, &options, CLGPU_WORKSPACE_ALIASES_ARGUMENT, row);
        clgpu_workspace_destroy(aliasing);
      }
    }

    /* Next to the keys in their own buffer: no alias, and it works. */
    size_t keys_end = f.key_region.guarded.offset + (f.key_region.spec.offset + n) * 4;
    size_t next = (keys_end + (size_t)report.alignment - 1) / (size_t)report.alignment *
                  (size_t)report.alignment;
    clgpu_workspace *beside = NULL;
    expect_success(clgpu_workspace_wrap(shared_context, &report, f.key_region.guarded.buffer, next,
                                        (size_t)report.total_bytes, &beside),
                   label);
    options.workspace = beside;
    clgpu_sort_spec spec;
    memset(&spec, 0, sizeof spec);
    expect_success(
        clgpu_sort(shared_context, &spec, &f.key_view, &f.value_view, &options, 0, NULL, NULL),
        label);
    assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
    uint32_t *permutation = malloc(n * sizeof *permutation);
    unsigned char *expected = malloc(n * 4), *after = malloc(f.key_region.bytes),
                  *logical = malloc(n * 4);
    assert_non_null(permutation);
    assert_non_null(expected);
    assert_non_null(after);
    assert_non_null(logical);
    reference_permutation(&key_types[KEY_UINT32], f.keys, n, 0, 0, 0, permutation);
    apply_permutation(f.keys, permutation, n, 4, expected);
    test_guarded_read(shared_context, &f.key_region.guarded, after);
    gather(after, &f.key_region.spec, 4, logical);
    snprintf(row, sizeof row, "%s: a workspace next to the keys in their buffer", label);
    expect_elements(logical, expected, n, 4, permutation, NULL, 0, "keys", row);
    apply_permutation(f.values, permutation, n, 4, expected);
    check_placed(&f.value_region, expected, n, permutation, NULL, 0, "values", row);
    test_guarded_check(shared_context, &f.key_region.guarded, row);
    clgpu_workspace_destroy(beside);
    free(logical);
    free(after);
    free(expected);
    free(permutation);
    release_placed(&permutation_region);
    fixture_free(&f);
  }
  clgpu_workspace_destroy(scan_workspace);
  clgpu_context_destroy(other_context);
}

/* A sort permutation as pairs of keys in a CL_MEM_READ_ONLY buffer: the
 * sort reads them where they are (no staged_keys), writes the stable
 * permutation, and leaves the keys as they were. */
static void permutation_of_read_only_keys(size_t n) {
  char label[120];
  snprintf(label, sizeof label, "permutation of %zu uint32 keys in a read-only buffer", n);
  unsigned char *keys = malloc(n * 4), *after = malloc(n * 4);
  uint32_t *got = malloc(n * 4), *expected = malloc(n * 4);
  assert_non_null(keys);
  assert_non_null(after);
  assert_non_null(got);
  assert_non_null(expected);
  generate_keys(&key_types[KEY_UINT32], TEST_FEW_UNIQUE, 4096, n, test_case_seed(label), keys);
  cl_int err = CL_SUCCESS;
  cl_mem key_buffer = clCreateBuffer(clgpu_context_cl_context(shared_context),
                                     CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, keys, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_mem permutation_buffer = NULL;
  assert_status(clgpu_buffer_create(shared_context, CL_MEM_READ_WRITE, n * 4, &permutation_buffer),
                CLGPU_SUCCESS);
  clgpu_array key_view, permutation_view;
  assert_status(clgpu_array_1d(key_buffer, 0, CLGPU_TYPE_UINT32, n, &key_view), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(permutation_buffer, 0, CLGPU_TYPE_UINT32, n, &permutation_view),
                CLGPU_SUCCESS);
  clgpu_sort_options options = {.algorithm = CLGPU_ALGORITHM_RADIX, .shape = CLGPU_SHAPE_CHUNKED};
  clgpu_workspace_size report;
  expect_success(clgpu_sort_permutation_workspace_size(shared_context, NULL, &permutation_view,
                                                       &key_view, &options, &report),
                 label);
  if (report.buffers[KEYS_ALTERNATE].bytes != 8 * (uint64_t)n ||
      report.buffers[STAGED_KEYS].bytes != 0) {
    fail_msg(
        "%s: the report has %llu bytes of staged keys and %llu of alternate keys, not the "
        "pairs' 0 and 8 n",
        label, (unsigned long long)report.buffers[STAGED_KEYS].bytes,
        (unsigned long long)report.buffers[KEYS_ALTERNATE].bytes);
  }
  expect_success(clgpu_sort_permutation(shared_context, NULL, &permutation_view, &key_view,
                                        &options, 0, NULL, NULL),
                 label);
  cl_command_queue queue = clgpu_context_queue(shared_context);
  assert_int_equal(
      clEnqueueReadBuffer(queue, permutation_buffer, CL_TRUE, 0, n * 4, got, 0, NULL, NULL),
      CL_SUCCESS);
  assert_int_equal(clEnqueueReadBuffer(queue, key_buffer, CL_TRUE, 0, n * 4, after, 0, NULL, NULL),
                   CL_SUCCESS);
  reference_permutation(&key_types[KEY_UINT32], keys, n, 0, 0, 0, expected);
  expect_elements((const unsigned char *)got, (const unsigned char *)expected, n, 4, expected, NULL,
                  0, "permutation", label);
  expect_region(after, keys, n * 4, "keys", label);
  clgpu_buffer_release(shared_context, permutation_buffer);
  clReleaseMemObject(key_buffer);
  free(expected);
  free(got);
  free(after);
  free(keys);
}

/* 4-byte keys with 4-byte values as 8-byte pairs between passes (the
 * tuning table's sort_pack_pairs, cl/sort.cl place_after), forced on: a
 * first pass from keys and values into pairs, passes from pairs into
 * pairs, a last pass back into keys and values, and clgpu_radix_finish
 * unpacking what skipped passes left in pairs (data whose high digits are
 * all equal: sawtooth 256, small integers; whose low ones are: the high
 * bit only), under 8-bit digits with non-temporal stores, 11-bit ones with
 * plain stores of the lines, the scan kernel over chunks of 1000 keys,
 * and 7-bit digits (whose lines every device's local memory holds);
 * ascending and descending, index values (stability), a strided
 * key view (staged), a bit range of two passes, and the sort permutation
 * (which makes its indices in the kernels: contiguous, strided, float
 * descending and a bit range of its keys, and keys in a read-only buffer).
 * Where local memory holds the lines (the scatter through lines: 144
 * bytes a digit), the report must show the pairs' places (8 n
 * bytes each) and a permutation no staged copy of contiguous keys, so that
 * the cases cannot pass on the split form alone; and an _upto report past
 * the floor covers the counts below it, sorts and permutations. */
static void pairs_between_passes(void **state) {
  (void)state;
  static const struct {
    const char *tuning;
    unsigned bits;
  } tunings[] = {
      {"sort_stream=1,sort_lines_floor=0,sort_pack_pairs=1,sort_stream_floor=0,sort_stream_digit_"
       "max=8,"
       "sort_chunked_digit_max_values=8",
       8},
      {"sort_stream=1,sort_lines_floor=0,sort_pack_pairs=1,sort_stream_floor=1099511627776,"
       "sort_stream_digit_max=11,sort_chunked_digit_max_values=11",
       11},
      {"sort_stream=1,sort_lines_floor=0,sort_pack_pairs=1,sort_stream_floor=0,sort_stream_digit_"
       "max=8,"
       "sort_chunked_digit_max_values=8,sort_summed_counts=0,sort_chunk_minimum=1000",
       8},
      /* 7-bit digits: their lines (18 KiB) fit in the 32 KiB of local
       * memory of Oclgrind and rusticl, so that those check the pairs too
       * (five passes: three between pairs). */
      {"sort_stream=1,sort_lines_floor=0,sort_pack_pairs=1,sort_stream_floor=0,sort_stream_digit_"
       "max=7,"
       "sort_chunked_digit_max_values=7",
       7},
  };
  static const test_distribution_case data[] = {
      {TEST_UNIFORM, 0},   {TEST_SAWTOOTH, 256},      {TEST_HIGH_BIT_ONLY, 0},
      {TEST_ALL_EQUAL, 0}, {TEST_SMALL_INTEGERS, 16}, {TEST_FEW_UNIQUE, 256},
  };
  static const struct {
    unsigned key;
    int descending, index_values;
    ptrdiff_t key_stride;
    clgpu_type permutation;
    unsigned begin_bit, end_bit;
  } rows[] = {
      {KEY_UINT32, 0, 1, 1, 0, 0, 0},
      {KEY_FLOAT, 1, 1, 1, 0, 0, 0},
      {KEY_INT32, 0, 1, -2, 0, 0, 0},
      {KEY_UINT32, 0, 0, 1, CLGPU_TYPE_UINT32, 0, 0},
      {KEY_UINT32, 1, 1, 1, 0, 4, 20},
      {KEY_FLOAT, 1, 0, 1, CLGPU_TYPE_UINT32, 0, 0},
      {KEY_INT32, 0, 0, -3, CLGPU_TYPE_UINT32, 0, 0},
      {KEY_UINT32, 0, 0, 1, CLGPU_TYPE_UINT32, 8, 24},
  };
  shared_before_streaming = shared_context;
  clgpu_context_options options;
  memset(&options, 0, sizeof options);
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  size_t n = oclgrind ? 20011 : 100003;
  for (size_t t = 0; t < sizeof tunings / sizeof tunings[0]; t++) {
    const char *tuning = tunings[t].tuning;
    /* Oclgrind's 32 KiB hold the lines of 7-bit digits only: the other
     * tunings would scatter key by key there (streaming_scatter's). */
    if (oclgrind && tunings[t].bits != 7) continue;
    assert_int_equal(setenv("CLGPU_TUNING", tuning, 1), 0);
    shared_context = test_context(&options);
    unsetenv("CLGPU_TUNING");
    const clgpu_device_info *info = clgpu_context_device_info(shared_context);
    int lines_fit = info->local_mem_size >= ((uint64_t)1 << tunings[t].bits) * 144;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
      for (size_t d = 0; d < sizeof data / sizeof data[0]; d++) {
        if (oclgrind && (r + d) % 3) continue;
        sort_case c = chunked_radix_case(rows[r].key, n, tuning, rows[r].permutation ? 0 : 4,
                                         rows[r].descending, rows[r].index_values);
        c.key_stride = rows[r].key_stride;
        c.permutation = rows[r].permutation;
        c.begin_bit = rows[r].begin_bit;
        c.end_bit = rows[r].end_bit;
        c.distribution = data[d].distribution;
        c.parameter = data[d].parameter;
        if (d == 0 && lines_fit) {
          char label[160];
          snprintf(label, sizeof label, "pairs under %s", tuning);
          clgpu_workspace_size report = case_report(&c, label);
          if (report.buffers[KEYS_ALTERNATE].bytes != 8 * (uint64_t)n ||
              report.buffers[VALUES_ALTERNATE].bytes != 8 * (uint64_t)n) {
            fail_msg("%s: the alternate places hold %llu + %llu bytes, not the pairs' 8 n each",
                     label, (unsigned long long)report.buffers[KEYS_ALTERNATE].bytes,
                     (unsigned long long)report.buffers[VALUES_ALTERNATE].bytes);
          }
          /* Only strided keys are copied: a permutation reads contiguous
           * ones where they are. */
          uint64_t staged = c.key_stride != 1 ? 4 * (uint64_t)n : 0;
          if (report.buffers[STAGED_KEYS].bytes != staged) {
            fail_msg("%s: staged_keys holds %llu bytes, not %llu (%s)", label,
                     (unsigned long long)report.buffers[STAGED_KEYS].bytes,
                     (unsigned long long)staged, c.permutation ? "a permutation" : "a sort");
          }
        }
        run_sort_case(&c);
      }
    }
    if (lines_fit) permutation_of_read_only_keys(n);
    clgpu_context_destroy(shared_context);
    shared_context = shared_before_streaming;
  }
  /* Across the floor (400000 bytes: 50000 pairs): below it the split
   * places, from it the pairs; the report of the largest count holds
   * every buffer of the smaller ones. */
  assert_int_equal(
      setenv("CLGPU_TUNING", "sort_stream=1,sort_lines_floor=0,sort_pack_pairs=400000", 1), 0);
  shared_context = test_context(&options);
  unsetenv("CLGPU_TUNING");
  static const size_t sizes[] = {49999, 50000, 100003};
  clgpu_sort_options sort_options = {.algorithm = CLGPU_ALGORITHM_RADIX,
                                     .shape = CLGPU_SHAPE_CHUNKED};
  /* Sorts with uint32 values, then sort permutations (whose keys are
   * copied below the floor and read where they are from it). */
  for (size_t s = 0; s < 2 * (sizeof sizes / sizeof sizes[0]); s++) {
    int permutation = s >= sizeof sizes / sizeof sizes[0];
    size_t size = sizes[s % (sizeof sizes / sizeof sizes[0])];
    clgpu_workspace_size upto;
    assert_status(permutation
                      ? clgpu_sort_permutation_workspace_size_upto(
                            shared_context, NULL, CLGPU_TYPE_UINT32, CLGPU_TYPE_UINT32, sizes[2],
                            &sort_options, &upto)
                      : clgpu_sort_workspace_size_upto(shared_context, NULL, CLGPU_TYPE_UINT32, 4,
                                                       sizes[2], &sort_options, &upto),
                  CLGPU_SUCCESS);
    char label[160];
    snprintf(label, sizeof label, "pairs floor: %zu uint32 keys, %s", size,
             permutation ? "their permutation" : "with uint32 values");
    sort_case c = chunked_radix_case(KEY_UINT32, size, "pairs floor", permutation ? 0 : 4, 0, 1);
    if (permutation) {
      c.permutation = CLGPU_TYPE_UINT32;
      c.index_values = 0;
    }
    clgpu_workspace_size exact = case_report(&c, label);
    int as_pairs = exact.buffers[KEYS_ALTERNATE].bytes == 8 * (uint64_t)size;
    if (permutation && (exact.buffers[STAGED_KEYS].bytes == 0) != as_pairs) {
      fail_msg("%s: staged_keys holds %llu bytes with the %s form", label,
               (unsigned long long)exact.buffers[STAGED_KEYS].bytes, as_pairs ? "pairs" : "split");
    }
    for (unsigned b = 0; b < exact.num_buffers; b++) {
      if (upto.buffers[b].bytes < exact.buffers[b].bytes) {
        fail_msg("%s: the _upto(%zu) report's %s holds %llu bytes, the call's %llu", label,
                 sizes[2], exact.buffers[b].name, (unsigned long long)upto.buffers[b].bytes,
                 (unsigned long long)exact.buffers[b].bytes);
      }
    }
    if (!oclgrind) run_sort_case(&c); /* the cases above ran these paths there */
  }
  clgpu_context_destroy(shared_context);
  shared_context = shared_before_streaming;
}

/* Fail unless every buffer of an exact report is in the _upto(max_n)
 * report, by name, with at least as many elements. */
static void expect_upto_covers(const clgpu_workspace_size *upto, const clgpu_workspace_size *exact,
                               size_t max_n, const char *label) {
  for (unsigned b = 0; b < exact->num_buffers; b++) {
    int found = 0;
    for (unsigned u = 0; u < upto->num_buffers; u++) {
      if (strcmp(upto->buffers[u].name, exact->buffers[b].name) != 0) continue;
      found = 1;
      if (upto->buffers[u].count < exact->buffers[b].count) {
        fail_msg("%s: the _upto(%zu) report's %s holds %llu elements, the call's %llu", label,
                 max_n, exact->buffers[b].name, (unsigned long long)upto->buffers[u].count,
                 (unsigned long long)exact->buffers[b].count);
      }
    }
    if (!found) fail_msg("%s: the _upto report has no %s", label, exact->buffers[b].name);
  }
}

/* Under sort_stream_wide_floor the CHUNKED scatter through lines takes
 * 8-bit digits below the floor (400000 bytes here: 100000 uint32 keys) and
 * 11-bit ones from it, four passes for the smaller counts and three for the
 * larger, where local memory holds 2048 digits' lines. The _upto report of
 * a count past the floor covers every buffer of the exact reports below it
 * (the pass states sized for four passes), and a workspace made from it
 * serves those sorts: keys alone and with values, both sides of the floor
 * and at it. */
static void wide_digits_upto(void **state) {
  (void)state;
  shared_before_streaming = shared_context;
  clgpu_context_options options;
  memset(&options, 0, sizeof options);
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  assert_int_equal(
      setenv("CLGPU_TUNING",
             "sort_stream=1,sort_lines_floor=0,sort_stream_digit_max=8,sort_chunked_digit_max=11,"
             "sort_chunked_digit_max_values=11,sort_stream_wide_floor=400000",
             1),
      0);
  shared_context = test_context(&options);
  unsetenv("CLGPU_TUNING");
  static const size_t sizes[] = {65537, 99999, 100000, 150001};
  enum { SIZES = sizeof sizes / sizeof sizes[0] };
  const size_t max_n = sizes[SIZES - 1];
  const clgpu_device_info *info = clgpu_context_device_info(shared_context);
  /* Keys alone: lines of 80 bytes a digit (two counters and a line). */
  int crosses = info->local_mem_size >= 2048 * 80;
  clgpu_sort_options sort_options = {.algorithm = CLGPU_ALGORITHM_RADIX,
                                     .shape = CLGPU_SHAPE_CHUNKED};
  static const size_t value_sizes[] = {0, 4};
  for (size_t v = 0; v < 2; v++) {
    clgpu_workspace_size upto;
    assert_status(clgpu_sort_workspace_size_upto(shared_context, NULL, CLGPU_TYPE_UINT32,
                                                 value_sizes[v], max_n, &sort_options, &upto),
                  CLGPU_SUCCESS);
    uint64_t states_below = 0, states_above = 0, counts_below = 0, counts_above = 0;
    for (size_t s = 0; s < SIZES; s++) {
      char label[200];
      snprintf(label, sizeof label, "wide digits: %zu uint32 keys, %zu-byte values", sizes[s],
               value_sizes[v]);
      sort_case c = chunked_radix_case(KEY_UINT32, sizes[s], "wide digits", value_sizes[v], 0, 0);
      clgpu_workspace_size exact = case_report(&c, label);
      expect_upto_covers(&upto, &exact, max_n, label);
      for (unsigned b = 0; b < exact.num_buffers; b++) {
        if (strcmp(exact.buffers[b].name, "pass_state") == 0) {
          if (s == 1) states_below = exact.buffers[b].count;
          if (s == 2) states_above = exact.buffers[b].count;
        }
        if (strcmp(exact.buffers[b].name, "counts") == 0) {
          if (s == 1) counts_below = exact.buffers[b].count;
          if (s == 2) counts_above = exact.buffers[b].count;
        }
      }
    }
    /* Keys alone cross the floor where the lines fit: the call at it
     * counts 2048 digits a chunk where the call below counts 256 (a pass
     * fewer), and both reports size the states for the narrow digits'
     * four passes. */
    if (v == 0 && crosses) {
      if (counts_above < 4 * counts_below) {
        fail_msg(
            "wide digits: the digit counts at the floor (%llu) are not those of 11-bit "
            "digits beside the %llu below it",
            (unsigned long long)counts_above, (unsigned long long)counts_below);
      }
      assert_int_equal(states_below, states_above);
    }
    /* Not under Oclgrind: its checker takes bytes that the host wrote at a
     * nonzero offset of a buffer for uninitialised (docs/quirks.md), and
     * these sorts drew such reports there while their results are right;
     * they run on the other implementations. */
    if (oclgrind) continue;
    clgpu_workspace *workspace = NULL;
    assert_status(clgpu_workspace_create(shared_context, &upto, &workspace), CLGPU_SUCCESS);
    for (size_t s = 0; s < SIZES; s++) {
      sort_case c = chunked_radix_case(KEY_UINT32, sizes[s], "wide digits, _upto workspace",
                                       value_sizes[v], (int)(s % 2), v == 1);
      c.distribution = TEST_UNIFORM;
      c.workspace = workspace;
      run_sort_case(&c);
    }
    clgpu_workspace_destroy(workspace);
  }
  clgpu_context_destroy(shared_context);
  shared_context = shared_before_streaming;
  shared_before_streaming = NULL;
}

/* Under sort_lines_floor (400000 bytes here: 100000 uint32 keys, 50000
 * with uint32 values) the CHUNKED scatter stores key by key with 11-bit
 * digits below the floor and goes through lines of 8-bit digits from it.
 * The _upto report of a count past the floor covers every buffer of the
 * exact reports below it (the digit counts sized for the 11-bit digits
 * of the smaller counts), and a workspace made from it serves the sorts on
 * both sides of the floor and at it, keys alone and with values. */
static void lines_floor_upto(void **state) {
  (void)state;
  shared_before_streaming = shared_context;
  clgpu_context_options options;
  memset(&options, 0, sizeof options);
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  assert_int_equal(setenv("CLGPU_TUNING",
                          "sort_stream=1,sort_lines_floor=400000,sort_stream_digit_max=8,"
                          "sort_chunked_digit_max=11,sort_chunked_digit_max_values=11,"
                          "sort_stream_wide_floor=0",
                          1),
                   0);
  shared_context = test_context(&options);
  unsetenv("CLGPU_TUNING");
  enum { SIZES = 4 };
  static const size_t value_sizes[] = {0, 4};
  static const size_t sizes[2][SIZES] = {{65537, 99999, 100000, 150001},
                                         {32771, 49999, 50000, 75001}};
  clgpu_sort_options sort_options = {.algorithm = CLGPU_ALGORITHM_RADIX,
                                     .shape = CLGPU_SHAPE_CHUNKED};
  for (size_t v = 0; v < 2; v++) {
    const size_t max_n = sizes[v][SIZES - 1];
    clgpu_workspace_size upto;
    assert_status(clgpu_sort_workspace_size_upto(shared_context, NULL, CLGPU_TYPE_UINT32,
                                                 value_sizes[v], max_n, &sort_options, &upto),
                  CLGPU_SUCCESS);
    for (size_t s = 0; s < SIZES; s++) {
      char label[200];
      snprintf(label, sizeof label, "lines floor: %zu uint32 keys, %zu-byte values", sizes[v][s],
               value_sizes[v]);
      sort_case c =
          chunked_radix_case(KEY_UINT32, sizes[v][s], "lines floor", value_sizes[v], 0, 0);
      clgpu_workspace_size exact = case_report(&c, label);
      expect_upto_covers(&upto, &exact, max_n, label);
    }
    /* Not under Oclgrind, as wide_digits_upto. */
    if (oclgrind) continue;
    clgpu_workspace *workspace = NULL;
    assert_status(clgpu_workspace_create(shared_context, &upto, &workspace), CLGPU_SUCCESS);
    for (size_t s = 0; s < SIZES; s++) {
      sort_case c = chunked_radix_case(KEY_UINT32, sizes[v][s], "lines floor, _upto workspace",
                                       value_sizes[v], (int)(s % 2), v == 1);
      c.distribution = s == 2 ? TEST_SAWTOOTH : TEST_UNIFORM;
      c.parameter = s == 2 ? 4096 : 0;
      c.workspace = workspace;
      run_sort_case(&c);
    }
    clgpu_workspace_destroy(workspace);
  }
  clgpu_context_destroy(shared_context);
  shared_context = shared_before_streaming;
  shared_before_streaming = NULL;
}

/* The _upto queries grow with n and equal the query for a contiguous call
 * of that size; a workspace for max_n serves every smaller contiguous call,
 * and one made for a sort permutation serves a sort of the same keys (one
 * report's buffers, sort.h). */
static void workspace_upto_serves_smaller(void **state) {
  (void)state;
  size_t sizes[40];
  size_t count = sort_sizes("sort workspace sizes", sizes);
  size_t max_n = sizes[count - 1];
  for (size_t m = 0; m < 4; m++) {
    clgpu_algorithm algorithm = both_algorithms[m % 2];
    clgpu_shape shape = both_shapes[m / 2];
    clgpu_sort_options options = {.algorithm = algorithm, .shape = shape, .workspace = NULL};
    static const size_t value_sizes_upto[] = {0, 4, 16};
    for (size_t v = 0; v < 3; v++) {
      clgpu_workspace_size previous;
      memset(&previous, 0, sizeof previous);
      for (size_t s = 0; s < count; s++) {
        clgpu_workspace_size report;
        assert_status(
            clgpu_sort_workspace_size_upto(shared_context, NULL, CLGPU_TYPE_UINT32,
                                           value_sizes_upto[v], sizes[s], &options, &report),
            CLGPU_SUCCESS);
        char label[300];
        snprintf(label, sizeof label,
                 "clgpu_sort_workspace_size_upto(%zu uint32 keys, %zu-byte "
                 "values), %s, %s",
                 sizes[s], value_sizes_upto[v], algorithm_text(algorithm), shape_text(shape));
        if (report.total_bytes < previous.total_bytes) {
          fail_msg("%s: %llu bytes, fewer than the %llu for %zu keys", label,
                   (unsigned long long)report.total_bytes, (unsigned long long)previous.total_bytes,
                   sizes[s - 1]);
        }
        for (unsigned b = 0; s > 0 && b < report.num_buffers; b++) {
          if (report.buffers[b].count < previous.buffers[b].count) {
            fail_msg("%s: buffer %s shrank from %llu to %llu elements", label,
                     report.buffers[b].name, (unsigned long long)previous.buffers[b].count,
                     (unsigned long long)report.buffers[b].count);
          }
        }
        /* The query for a contiguous call of that size. */
        sort_case c = base_case(KEY_UINT32, sizes[s], algorithm, shape);
        c.value_bytes = value_sizes_upto[v];
        clgpu_workspace_size exact = case_report(&c, label);
        if (exact.total_bytes != report.total_bytes) {
          fail_msg("%s: %llu bytes, the query for a contiguous call of that size %llu", label,
                   (unsigned long long)report.total_bytes, (unsigned long long)exact.total_bytes);
        }
        previous = report;
      }
    }
    /* The permutation's _upto grows too. */
    uint64_t previous_total = 0;
    for (size_t s = 0; s < count; s++) {
      clgpu_workspace_size report;
      assert_status(
          clgpu_sort_permutation_workspace_size_upto(shared_context, NULL, CLGPU_TYPE_UINT64,
                                                     CLGPU_TYPE_FLOAT, sizes[s], &options, &report),
          CLGPU_SUCCESS);
      assert_true(report.total_bytes >= previous_total);
      previous_total = report.total_bytes;
    }

    /* One workspace for max_n serves every size, sorts and permutations. */
    if (oclgrind && m % 2) continue;
    clgpu_workspace *workspace = workspace_upto(shared_context, algorithm, shape, max_n);
    clgpu_workspace_size permutation_report;
    assert_status(clgpu_sort_permutation_workspace_size_upto(shared_context, NULL,
                                                             CLGPU_TYPE_UINT32, CLGPU_TYPE_UINT32,
                                                             max_n, &options, &permutation_report),
                  CLGPU_SUCCESS);
    clgpu_workspace *permutation_workspace = NULL;
    assert_status(
        clgpu_workspace_create(shared_context, &permutation_report, &permutation_workspace),
        CLGPU_SUCCESS);
    for (size_t s = 0; s < count; s++) {
      if ((s + m) % 3 && s + 1 != count) continue;
      if (oclgrind && sizes[s] > 1000 && s + 1 != count) continue;
      sort_case c = workspace_case(0, sizes[s], m);
      c.workspace = workspace;
      run_sort_case(&c);
      c.workspace = permutation_workspace; /* a permutation's, for a sort */
      run_sort_case(&c);
      sort_case p = workspace_case(3, sizes[s], m);
      p.workspace = permutation_workspace;
      run_sort_case(&p);
    }
    clgpu_workspace_destroy(permutation_workspace);
    clgpu_workspace_destroy(workspace);
  }
}

/* ---- misuse ---- */

/* The fixture's calls are valid: 20 uint32 keys, 20 uint32 values (in a
 * region with room for 32 bytes per key) and a 20-element uint32
 * permutation, each in a guarded region of its own. */
#define MISUSE_N 20

typedef struct misuse_fixture {
  test_guarded keys, values, permutation;
  unsigned char keys_initial[MISUSE_N * 4], values_initial[MISUSE_N * 32],
      permutation_initial[MISUSE_N * 4];
  misuse_others others;
} misuse_fixture;

typedef struct misuse_call {
  clgpu_context *context;
  clgpu_sort_spec spec;
  const clgpu_array *keys, *values, *permutation;
  clgpu_array keys_view, values_view, permutation_view;
  clgpu_sort_options options_value;
  const clgpu_sort_options *options;
  cl_uint num_events;
  const cl_event *wait_list;
} misuse_call;

enum { BOTH_CALLS, SORT_ONLY, PERMUTATION_ONLY };

typedef struct misuse_row {
  const char *name;
  clgpu_status expected;
  void (*edit)(const misuse_fixture *fixture, misuse_call *call);
  int calls; /* BOTH_CALLS, SORT_ONLY (clgpu_sort), PERMUTATION_ONLY */
  int (*applies)(void);
} misuse_row;

static clgpu_array view_strided(cl_mem buffer, size_t offset, clgpu_type type, size_t n,
                                ptrdiff_t stride) {
  clgpu_array view;
  assert_status(clgpu_array_strided(buffer, offset, type, 1, &n, &stride, &view), CLGPU_SUCCESS);
  return view;
}

static void merge_options(misuse_call *call) {
  call->options_value.algorithm = CLGPU_ALGORITHM_MERGE;
  call->options = &call->options_value;
}

static void radix_options(misuse_call *call) {
  call->options_value.algorithm = CLGPU_ALGORITHM_RADIX;
  call->options = &call->options_value;
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
static void edit_null_permutation(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->permutation = NULL;
}
static void edit_keys_rank_2(const misuse_fixture *f, misuse_call *call) {
  call->keys_view = view_2d(f->keys.buffer, f->keys.offset, CLGPU_TYPE_UINT32, 4, 5);
}
static void edit_keys_rank_0(const misuse_fixture *f, misuse_call *call) {
  const size_t one = 1;
  assert_status(clgpu_array_nd(f->keys.buffer, f->keys.offset, CLGPU_TYPE_UINT32, 0, &one,
                               CLGPU_ORDER_ROW_MAJOR, &call->keys_view),
                CLGPU_SUCCESS);
}
static void edit_values_rank_2(const misuse_fixture *f, misuse_call *call) {
  call->values_view = view_2d(f->values.buffer, f->values.offset, CLGPU_TYPE_UINT32, 4, 5);
}
static void edit_keys_broadcast(const misuse_fixture *f, misuse_call *call) {
  call->keys_view = view_strided(f->keys.buffer, f->keys.offset, CLGPU_TYPE_UINT32, MISUSE_N, 0);
}
static void edit_values_over_keys(const misuse_fixture *f, misuse_call *call) {
  /* Two bytes per key, over the keys' bytes 8 to 48. */
  call->values_view = view_1d(f->keys.buffer, f->keys.offset + 8, CLGPU_TYPE_UINT16, MISUSE_N);
}
static void edit_values_are_keys(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->values = call->keys;
}
static void edit_permutation_over_keys(const misuse_fixture *f, misuse_call *call) {
  call->permutation_view = view_1d(f->keys.buffer, f->keys.offset, CLGPU_TYPE_UINT32, MISUSE_N);
}
static void edit_values_3_bytes(const misuse_fixture *f, misuse_call *call) {
  call->values_view = view_1d(f->values.buffer, f->values.offset, CLGPU_TYPE_UINT8, 3 * MISUSE_N);
}
static void edit_values_32_bytes(const misuse_fixture *f, misuse_call *call) {
  call->values_view = view_1d(f->values.buffer, f->values.offset, CLGPU_TYPE_UINT64, 4 * MISUSE_N);
}
static void edit_values_not_a_multiple(const misuse_fixture *f, misuse_call *call) {
  call->values_view = view_1d(f->values.buffer, f->values.offset, CLGPU_TYPE_UINT32, MISUSE_N + 1);
}
static void edit_values_strided_short(const misuse_fixture *f, misuse_call *call) {
  call->values_view =
      view_strided(f->values.buffer, f->values.offset, CLGPU_TYPE_UINT32, MISUSE_N - 1, 2);
}
static void edit_comparator_with_radix(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.compare = "a > b";
  radix_options(call);
}
static void edit_custom_keys_with_radix(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.compare = "a.x < b.x";
  call->spec.key_type = "point";
  call->spec.declarations = point_declarations;
  call->spec.key_size = 8;
  radix_options(call);
}
static void edit_key_type_without_size(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.compare = "a.x < b.x";
  call->spec.key_type = "point";
  call->spec.declarations = point_declarations;
  merge_options(call);
}
static void edit_custom_keys_not_a_multiple(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  edit_custom_keys_with_radix(f, call);
  call->spec.key_size = 12; /* 80 bytes of keys */
  merge_options(call);
}
static void edit_custom_keys_misaligned(const misuse_fixture *f, misuse_call *call) {
  edit_custom_keys_with_radix(f, call);
  merge_options(call);
  /* 8-byte keys from byte 4 of an aligned region: 9 keys. */
  call->keys_view = view_1d(f->keys.buffer, f->keys.offset + 4, CLGPU_TYPE_UINT32, 18);
  call->values = NULL;
}
static void edit_end_bit_past_key(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.begin_bit = 0;
  call->spec.end_bit = 33;
  radix_options(call);
}
static void edit_empty_bit_range(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.begin_bit = 8;
  call->spec.end_bit = 8;
  radix_options(call);
}
static void edit_reversed_bit_range(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.begin_bit = 9;
  call->spec.end_bit = 8;
  radix_options(call);
}
static void edit_end_bit_past_uint8_key(const misuse_fixture *f, misuse_call *call) {
  call->keys_view = view_1d(f->keys.buffer, f->keys.offset, CLGPU_TYPE_UINT8, MISUSE_N);
  call->values = NULL;
  call->spec.end_bit = 9;
  radix_options(call);
}
static void edit_unknown_algorithm(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->options_value.algorithm = (clgpu_algorithm)7;
  call->options = &call->options_value;
}
static void edit_negative_algorithm(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->options_value.algorithm = (clgpu_algorithm)-1;
  call->options = &call->options_value;
}
static void edit_unknown_shape(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->options_value.shape = (clgpu_shape)9;
  call->options = &call->options_value;
}
static void edit_negative_shape(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->options_value.shape = (clgpu_shape)-1;
  call->options = &call->options_value;
}
static void edit_malformed_comparator(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.compare = "a <";
  merge_options(call);
}
static void edit_undefined_comparator(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.compare = "no_such_function(a, b)";
  merge_options(call);
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
static void edit_permutation_int32(const misuse_fixture *f, misuse_call *call) {
  call->permutation_view =
      view_1d(f->permutation.buffer, f->permutation.offset, CLGPU_TYPE_INT32, MISUSE_N);
}
static void edit_permutation_float(const misuse_fixture *f, misuse_call *call) {
  call->permutation_view =
      view_1d(f->permutation.buffer, f->permutation.offset, CLGPU_TYPE_FLOAT, MISUSE_N);
}
static void edit_permutation_uint16(const misuse_fixture *f, misuse_call *call) {
  call->permutation_view =
      view_1d(f->permutation.buffer, f->permutation.offset, CLGPU_TYPE_UINT16, MISUSE_N);
}
static void edit_permutation_short(const misuse_fixture *f, misuse_call *call) {
  call->permutation_view =
      view_1d(f->permutation.buffer, f->permutation.offset, CLGPU_TYPE_UINT32, MISUSE_N - 1);
}
static void edit_permutation_long(const misuse_fixture *f, misuse_call *call) {
  call->permutation_view =
      view_1d(f->permutation.buffer, f->permutation.offset, CLGPU_TYPE_UINT16, MISUSE_N * 2);
  call->permutation_view.type = CLGPU_TYPE_UINT32; /* 21 elements would not fit: edit the view */
  call->permutation_view.shape[0] = MISUSE_N / 2 + 1;
}
static void edit_permutation_rank_2(const misuse_fixture *f, misuse_call *call) {
  call->permutation_view =
      view_2d(f->permutation.buffer, f->permutation.offset, CLGPU_TYPE_UINT32, 4, 5);
}
static void edit_keys_past_end(const misuse_fixture *f, misuse_call *call) {
  /* Edited by hand: the buffer's last element, then 19 past it. */
  call->keys_view.offset = f->keys.offset + f->keys.region_bytes + TEST_GUARD_BYTES - 4;
}
static void edit_keys_misaligned(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->keys_view.offset += 2;
}
static void edit_foreign_keys(const misuse_fixture *f, misuse_call *call) {
  call->keys_view = view_1d(f->others.foreign, 0, CLGPU_TYPE_UINT32, MISUSE_N);
}
static void edit_foreign_values(const misuse_fixture *f, misuse_call *call) {
  call->values_view = view_1d(f->others.foreign, 0, CLGPU_TYPE_UINT32, MISUSE_N);
}
static void edit_foreign_permutation(const misuse_fixture *f, misuse_call *call) {
  call->permutation_view = view_1d(f->others.foreign, 0, CLGPU_TYPE_UINT32, MISUSE_N);
}
static void edit_double_comparator(const misuse_fixture *f, misuse_call *call) {
  call->keys_view = view_1d(f->keys.buffer, f->keys.offset, CLGPU_TYPE_DOUBLE, MISUSE_N / 2);
  call->values = NULL;
  call->spec.compare = "a < b";
  merge_options(call);
}
static void edit_half_comparator(const misuse_fixture *f, misuse_call *call) {
  call->keys_view = view_1d(f->keys.buffer, f->keys.offset, CLGPU_TYPE_HALF, MISUSE_N);
  call->spec.compare = "a < b";
  merge_options(call);
}

static int lacks_fp64(void) { return !clgpu_context_device_info(shared_context)->has_fp64; }
static int lacks_fp16(void) { return !clgpu_context_device_info(shared_context)->has_fp16; }

/* Texts that could escape their place in the sort kernels (issue 15, item
 * 9): refused before anything is built. */
static void edit_comparator_open_comment(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.compare = "a < b /* open";
  merge_options(call);
}
static void edit_comparator_escaping(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.compare = "a < b) ? 1 : 0; } kernel void k(void) { if (1";
  merge_options(call);
}
static void edit_comparator_semicolon(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.compare = "a < b;";
  merge_options(call);
}
static void edit_comparator_line_comment(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->spec.compare = "a > b // descending\n || 0";
  merge_options(call);
}
static void edit_comparator_too_long(const misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  static char text[65538];
  memset(text, ' ', 65537);
  memcpy(text, "a < b", 5);
  text[65537] = '\0';
  call->spec.compare = text;
  merge_options(call);
}
static void edit_key_type_injected(const misuse_fixture *f, misuse_call *call) {
  edit_custom_keys_with_radix(f, call);
  call->spec.key_type = "point; kernel void k(void) {}";
  merge_options(call);
}
static void edit_key_type_bracket(const misuse_fixture *f, misuse_call *call) {
  edit_custom_keys_with_radix(f, call);
  call->spec.key_type = "point)";
  merge_options(call);
}
static void edit_declarations_include(const misuse_fixture *f, misuse_call *call) {
  edit_custom_keys_with_radix(f, call);
  call->spec.declarations = "#include \"/etc/passwd\"\ntypedef struct { float x; int id; } point;";
  merge_options(call);
}
static void edit_declarations_stray_brace(const misuse_fixture *f, misuse_call *call) {
  edit_custom_keys_with_radix(f, call);
  call->spec.declarations = "typedef struct { float x; int id; } point; }";
  merge_options(call);
}
static void edit_declarations_open_comment(const misuse_fixture *f, misuse_call *call) {
  edit_custom_keys_with_radix(f, call);
  call->spec.declarations = "typedef struct { float x; int id; } point; /* the rest";
  merge_options(call);
}
static void edit_declarations_too_long(const misuse_fixture *f, misuse_call *call) {
  edit_custom_keys_with_radix(f, call);
  static char text[1048578];
  memset(text, ' ', 1048577);
  memcpy(text, point_declarations, strlen(point_declarations));
  text[1048577] = '\0';
  call->spec.declarations = text;
  merge_options(call);
}

static const misuse_row misuse_rows[] = {
    {"NULL context", CLGPU_INVALID_ARGUMENT, edit_null_context, BOTH_CALLS, NULL},
    {"NULL keys", CLGPU_INVALID_ARGUMENT, edit_null_keys, BOTH_CALLS, NULL},
    {"NULL permutation", CLGPU_INVALID_ARGUMENT, edit_null_permutation, PERMUTATION_ONLY, NULL},
    {"rank-2 keys", CLGPU_SHAPE_MISMATCH, edit_keys_rank_2, BOTH_CALLS, NULL},
    {"rank-0 keys", CLGPU_SHAPE_MISMATCH, edit_keys_rank_0, BOTH_CALLS, NULL},
    {"rank-2 values", CLGPU_SHAPE_MISMATCH, edit_values_rank_2, SORT_ONLY, NULL},
    {"keys of stride 0", CLGPU_INVALID_OUTPUT, edit_keys_broadcast, SORT_ONLY, NULL},
    {"values overlapping the keys", CLGPU_INVALID_OUTPUT, edit_values_over_keys, SORT_ONLY, NULL},
    {"values that are the keys", CLGPU_INVALID_OUTPUT, edit_values_are_keys, SORT_ONLY, NULL},
    {"permutation overlapping the keys", CLGPU_INVALID_OUTPUT, edit_permutation_over_keys,
     PERMUTATION_ONLY, NULL},
    {"3 value bytes per key", CLGPU_SHAPE_MISMATCH, edit_values_3_bytes, SORT_ONLY, NULL},
    {"32 value bytes per key", CLGPU_SHAPE_MISMATCH, edit_values_32_bytes, SORT_ONLY, NULL},
    {"value bytes not a multiple of n", CLGPU_SHAPE_MISMATCH, edit_values_not_a_multiple, SORT_ONLY,
     NULL},
    {"strided values of n - 1 elements", CLGPU_SHAPE_MISMATCH, edit_values_strided_short, SORT_ONLY,
     NULL},
    {"a comparator with RADIX", CLGPU_INVALID_ARGUMENT, edit_comparator_with_radix, BOTH_CALLS,
     NULL},
    {"custom keys with RADIX", CLGPU_INVALID_ARGUMENT, edit_custom_keys_with_radix, BOTH_CALLS,
     NULL},
    {"key_type without key_size", CLGPU_INVALID_ARGUMENT, edit_key_type_without_size, BOTH_CALLS,
     NULL},
    {"custom keys not a multiple of key_size", CLGPU_SHAPE_MISMATCH,
     edit_custom_keys_not_a_multiple, SORT_ONLY, NULL},
    {"custom keys at a misaligned offset", CLGPU_MISALIGNED_VIEW, edit_custom_keys_misaligned,
     SORT_ONLY, NULL},
    {"end_bit past the key's 32 bits", CLGPU_INVALID_ARGUMENT, edit_end_bit_past_key, BOTH_CALLS,
     NULL},
    {"begin_bit == end_bit", CLGPU_INVALID_ARGUMENT, edit_empty_bit_range, BOTH_CALLS, NULL},
    {"begin_bit > end_bit", CLGPU_INVALID_ARGUMENT, edit_reversed_bit_range, BOTH_CALLS, NULL},
    {"end_bit 9 for uint8 keys", CLGPU_INVALID_ARGUMENT, edit_end_bit_past_uint8_key, SORT_ONLY,
     NULL},
    {"unknown algorithm", CLGPU_INVALID_ARGUMENT, edit_unknown_algorithm, BOTH_CALLS, NULL},
    {"a negative algorithm", CLGPU_INVALID_ARGUMENT, edit_negative_algorithm, BOTH_CALLS, NULL},
    {"unknown shape", CLGPU_INVALID_ARGUMENT, edit_unknown_shape, BOTH_CALLS, NULL},
    {"a negative shape", CLGPU_INVALID_ARGUMENT, edit_negative_shape, BOTH_CALLS, NULL},
    {"a comparator that does not compile", CLGPU_CL_BUILD_PROGRAM_FAILURE,
     edit_malformed_comparator, BOTH_CALLS, NULL},
    {"a comparator calling an undefined function", CLGPU_CL_BUILD_PROGRAM_FAILURE,
     edit_undefined_comparator, SORT_ONLY, NULL},
    {"num_events 1, wait_list NULL", CLGPU_INVALID_ARGUMENT, edit_wait_list_missing, BOTH_CALLS,
     NULL},
    {"num_events 0, wait_list set", CLGPU_INVALID_ARGUMENT, edit_wait_list_without_count,
     BOTH_CALLS, NULL},
    {"int32 permutation", CLGPU_TYPE_MISMATCH, edit_permutation_int32, PERMUTATION_ONLY, NULL},
    {"float permutation", CLGPU_TYPE_MISMATCH, edit_permutation_float, PERMUTATION_ONLY, NULL},
    {"uint16 permutation", CLGPU_TYPE_MISMATCH, edit_permutation_uint16, PERMUTATION_ONLY, NULL},
    {"permutation of n - 1", CLGPU_SHAPE_MISMATCH, edit_permutation_short, PERMUTATION_ONLY, NULL},
    {"permutation of n / 2 + 1", CLGPU_SHAPE_MISMATCH, edit_permutation_long, PERMUTATION_ONLY,
     NULL},
    {"rank-2 permutation", CLGPU_SHAPE_MISMATCH, edit_permutation_rank_2, PERMUTATION_ONLY, NULL},
    {"keys past the buffer's end", CLGPU_VIEW_OUT_OF_BOUNDS, edit_keys_past_end, BOTH_CALLS, NULL},
    {"misaligned keys", CLGPU_MISALIGNED_VIEW, edit_keys_misaligned, BOTH_CALLS, NULL},
    {"keys in another cl_context", CLGPU_MISMATCHED_OBJECTS, edit_foreign_keys, BOTH_CALLS, NULL},
    {"values in another cl_context", CLGPU_MISMATCHED_OBJECTS, edit_foreign_values, SORT_ONLY,
     NULL},
    {"permutation in another cl_context", CLGPU_MISMATCHED_OBJECTS, edit_foreign_permutation,
     PERMUTATION_ONLY, NULL},
    {"a comparator over double keys without cl_khr_fp64", CLGPU_UNSUPPORTED_FEATURE,
     edit_double_comparator, SORT_ONLY, lacks_fp64},
    {"a comparator over half keys without cl_khr_fp16", CLGPU_UNSUPPORTED_FEATURE,
     edit_half_comparator, SORT_ONLY, lacks_fp16},
};

/* Rows of misused texts, with words their message must hold besides the
 * entry point's name. */
static const struct {
  misuse_row row;
  const char *words;
} text_misuse_rows[] = {
    {{"a comparator with an open comment", CLGPU_INVALID_ARGUMENT, edit_comparator_open_comment,
     BOTH_CALLS, NULL}, "spec->compare, byte 6: \"/*\" starts a comment"},
    {{"a comparator closing the kernel's parenthesis", CLGPU_INVALID_ARGUMENT,
     edit_comparator_escaping, BOTH_CALLS, NULL}, "spec->compare, byte 5: ')' closes"},
    {{"a comparator with ';'", CLGPU_INVALID_ARGUMENT, edit_comparator_semicolon, BOTH_CALLS, NULL},
     "spec->compare, byte 5: ';'"},
    {{"a comparator with a line comment", CLGPU_INVALID_ARGUMENT, edit_comparator_line_comment,
     BOTH_CALLS, NULL}, "spec->compare, byte 6: \"//\""},
    {{"a comparator of 65537 bytes", CLGPU_EXPRESSION_TOO_LONG, edit_comparator_too_long,
     BOTH_CALLS, NULL}, "spec->compare is longer than 65536 bytes"},
    {{"a key type with ';'", CLGPU_INVALID_ARGUMENT, edit_key_type_injected, BOTH_CALLS, NULL},
     "spec->key_type, byte 5: ';'"},
    {{"a key type with ')'", CLGPU_INVALID_ARGUMENT, edit_key_type_bracket, BOTH_CALLS, NULL},
     "spec->key_type, byte 5: ')'"},
    {{"declarations with #include", CLGPU_INVALID_ARGUMENT, edit_declarations_include, BOTH_CALLS,
     NULL}, "spec->declarations, byte 0: the preprocessor directive \"#include\""},
    {{"declarations with a stray brace", CLGPU_INVALID_ARGUMENT, edit_declarations_stray_brace,
     BOTH_CALLS, NULL}, "spec->declarations, byte 43: '}'"},
    {{"declarations with an open comment", CLGPU_INVALID_ARGUMENT, edit_declarations_open_comment,
     BOTH_CALLS, NULL}, "spec->declarations, byte 43: the comment"},
    {{"declarations of 1048577 bytes", CLGPU_EXPRESSION_TOO_LONG, edit_declarations_too_long,
     BOTH_CALLS, NULL}, "spec->declarations is longer than 1048576 bytes"},
};

static void reset_call(const misuse_fixture *f, misuse_call *call) {
  memset(call, 0, sizeof *call);
  call->context = shared_context;
  call->keys_view = view_1d(f->keys.buffer, f->keys.offset, CLGPU_TYPE_UINT32, MISUSE_N);
  call->values_view = view_1d(f->values.buffer, f->values.offset, CLGPU_TYPE_UINT32, MISUSE_N);
  call->permutation_view =
      view_1d(f->permutation.buffer, f->permutation.offset, CLGPU_TYPE_UINT32, MISUSE_N);
  call->keys = &call->keys_view;
  call->values = &call->values_view;
  call->permutation = &call->permutation_view;
}

static clgpu_status misuse_invoke(misuse_call *call, int permutation_call, cl_event *event) {
  if (permutation_call) {
    return clgpu_sort_permutation(call->context, &call->spec, call->permutation, call->keys,
                                  call->options, call->num_events, call->wait_list, event);
  }
  return clgpu_sort(call->context, &call->spec, call->keys, call->values, call->options,
                    call->num_events, call->wait_list, event);
}

/* Run one misuse row (both entry points where it applies) and check the
 * refusal: its status, a message (holding `words` when not NULL), no event,
 * every region unchanged. */
static void check_misuse_row(const misuse_fixture *f, const misuse_row *row, const char *words) {
  if (misuse_row_skipped(row->name, row->expected, row->applies, oclgrind)) return;
  for (int permutation_call = 0; permutation_call < 2; permutation_call++) {
    if ((permutation_call && row->calls == SORT_ONLY) ||
        (!permutation_call && row->calls == PERMUTATION_ONLY)) {
      continue;
    }
    const char *who = permutation_call ? "clgpu_sort_permutation" : "clgpu_sort";
    char label[200];
    snprintf(label, sizeof label, "%s misuse \"%s\"", who, row->name);
    misuse_call call;
    reset_call(f, &call);
    row->edit(f, &call);
    cl_event event = NULL;
    clgpu_status status = misuse_invoke(&call, permutation_call, &event);
    if (status != row->expected) {
      fail_msg("%s: %s (%d), expected %s; detail: %s", label, clgpu_status_name(status),
               (int)status, clgpu_status_name(row->expected), clgpu_last_error());
    }
    const char *detail = clgpu_last_error();
    if (detail == NULL || detail[0] == '\0') fail_msg("%s: no detail message", label);
    if (words && (!strstr(detail, who) || !strstr(detail, words))) {
      fail_msg("%s: the message lacks \"%s\" or \"%s\": %s", label, who, words, detail);
    }
    /* A build failure carries the compiler's log, which says "error", or
     * "fatal" where the failure comes at link time: NVIDIA's compiler takes
     * a call of an undeclared function and its assembler then stops with
     * "ptxas fatal : Unresolved extern function 'no_such_function'". */
    if (row->expected == CLGPU_CL_BUILD_PROGRAM_FAILURE) {
      const char *log = strstr(detail, "build log:\n");
      if (!log || (!strstr(log, "error") && !strstr(log, "fatal"))) {
        fail_msg("%s: the message has no compiler log: %s", label, detail);
      }
    }
    print_message("# %s: %.200s\n", label, detail);
    if (event != NULL) fail_msg("%s: an event was made", label);
    assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
    expect_region_unchanged(shared_context, &f->keys, f->keys_initial, "keys", label);
    expect_region_unchanged(shared_context, &f->values, f->values_initial, "values", label);
    expect_region_unchanged(shared_context, &f->permutation, f->permutation_initial, "permutation",
                            label);
  }
}

/* Every documented misuse of clgpu_sort and clgpu_sort_permutation gives
 * its status, makes no event and changes nothing; the unedited calls
 * then work. */
static void misuse_is_refused(void **state) {
  (void)state;
  misuse_fixture f;
  memset(&f, 0, sizeof f);
  uint64_t seed = test_case_seed("sort misuse");
  test_generate(f.keys_initial, sizeof f.keys_initial, TEST_UINT8, TEST_UNIFORM, seed, 0);
  test_generate(f.values_initial, sizeof f.values_initial, TEST_UINT8, TEST_UNIFORM, seed + 1, 0);
  test_generate(f.permutation_initial, sizeof f.permutation_initial, TEST_UINT8, TEST_UNIFORM,
                seed + 2, 0);
  f.keys = test_guarded_create(shared_context, sizeof f.keys_initial, f.keys_initial);
  f.values = test_guarded_create(shared_context, sizeof f.values_initial, f.values_initial);
  f.permutation =
      test_guarded_create(shared_context, sizeof f.permutation_initial, f.permutation_initial);
  f.others = misuse_others_make(shared_context, MISUSE_N * 8);

  for (size_t r = 0; r < sizeof misuse_rows / sizeof misuse_rows[0]; r++) {
    check_misuse_row(&f, &misuse_rows[r], NULL);
  }
  for (size_t r = 0; r < sizeof text_misuse_rows / sizeof text_misuse_rows[0]; r++) {
    check_misuse_row(&f, &text_misuse_rows[r].row, text_misuse_rows[r].words);
  }

  /* The unedited calls work: the rows failed for their own reason. */
  uint32_t permutation[MISUSE_N];
  unsigned char expected[MISUSE_N * 4], after[MISUSE_N * 32];
  reference_permutation(&key_types[KEY_UINT32], f.keys_initial, MISUSE_N, 0, 0, 0, permutation);
  misuse_call call;
  reset_call(&f, &call);
  expect_success(misuse_invoke(&call, 1, NULL), "the unedited clgpu_sort_permutation");
  assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
  test_guarded_read(shared_context, &f.permutation, after);
  expect_elements(after, (const unsigned char *)permutation, MISUSE_N, 4, NULL, NULL, 0,
                  "permutation", "the unedited clgpu_sort_permutation");
  expect_success(misuse_invoke(&call, 0, NULL), "the unedited clgpu_sort");
  assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
  test_guarded_read(shared_context, &f.keys, after);
  apply_permutation(f.keys_initial, permutation, MISUSE_N, 4, expected);
  expect_elements(after, expected, MISUSE_N, 4, permutation, NULL, 0, "keys",
                  "the unedited clgpu_sort");
  test_guarded_read(shared_context, &f.values, after);
  apply_permutation(f.values_initial, permutation, MISUSE_N, 4, expected);
  expect_elements(after, expected, MISUSE_N, 4, permutation, NULL, 0, "values",
                  "the unedited clgpu_sort");

  /* A comparator over several lines, with casts and a ternary, sorts the
   * sorted keys again, largest first. */
  unsigned char ascending[MISUSE_N * 4];
  test_guarded_read(shared_context, &f.keys, after);
  memcpy(ascending, after, sizeof ascending);
  reference_permutation(&key_types[KEY_UINT32], ascending, MISUSE_N, 1, 0, 0, permutation);
  reset_call(&f, &call);
  call.spec.compare = "((uint)a > (uint)b)\n  ? 1\r\n  : 0";
  merge_options(&call);
  call.values = NULL;
  expect_success(misuse_invoke(&call, 0, NULL), "a comparator over lines");
  assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
  test_guarded_read(shared_context, &f.keys, after);
  apply_permutation(ascending, permutation, MISUSE_N, 4, expected);
  expect_elements(after, expected, MISUSE_N, 4, permutation, NULL, 0, "keys",
                  "a comparator over lines");

  misuse_others_release(&f.others);
  test_guarded_release(&f.permutation);
  test_guarded_release(&f.values);
  test_guarded_release(&f.keys);
}

/* clgpu_gather's documented misuses: each gives its status and leaves the
 * destination as it was. */
static void gather_misuse_is_refused(void **state) {
  (void)state;
  unsigned char initial[3][MISUSE_N * 8];
  test_guarded regions[3];
  for (int r = 0; r < 3; r++) {
    test_generate(initial[r], sizeof initial[r], TEST_UINT8, TEST_UNIFORM,
                  test_case_seed("gather misuse") + (uint64_t)r, 0);
    regions[r] = test_guarded_create(shared_context, sizeof initial[r], initial[r]);
  }
  const test_guarded *p = &regions[0], *s = &regions[1], *d = &regions[2];
  cl_mem pb = p->buffer, sb = s->buffer, db = d->buffer;
  size_t po = p->offset, so = s->offset, dof = d->offset;
  const size_t n = MISUSE_N;
  const struct {
    const char *name;
    clgpu_status expected;
    int context_null;
    clgpu_array permutation, source, destination;
  } rows[] = {
      {"NULL context", CLGPU_INVALID_ARGUMENT, 1, view_1d(pb, po, CLGPU_TYPE_UINT32, n),
       view_1d(sb, so, CLGPU_TYPE_UINT32, n), view_1d(db, dof, CLGPU_TYPE_UINT32, n)},
      {"int32 permutation", CLGPU_TYPE_MISMATCH, 0, view_1d(pb, po, CLGPU_TYPE_INT32, n),
       view_1d(sb, so, CLGPU_TYPE_UINT32, n), view_1d(db, dof, CLGPU_TYPE_UINT32, n)},
      {"float permutation", CLGPU_TYPE_MISMATCH, 0, view_1d(pb, po, CLGPU_TYPE_FLOAT, n),
       view_1d(sb, so, CLGPU_TYPE_UINT32, n), view_1d(db, dof, CLGPU_TYPE_UINT32, n)},
      {"element sizes that differ", CLGPU_TYPE_MISMATCH, 0, view_1d(pb, po, CLGPU_TYPE_UINT32, n),
       view_1d(sb, so, CLGPU_TYPE_UINT32, n), view_1d(db, dof, CLGPU_TYPE_UINT16, n)},
      {"a destination of another length", CLGPU_SHAPE_MISMATCH, 0,
       view_1d(pb, po, CLGPU_TYPE_UINT32, n), view_1d(sb, so, CLGPU_TYPE_UINT32, n),
       view_1d(db, dof, CLGPU_TYPE_UINT32, n - 1)},
      {"a rank-2 destination", CLGPU_SHAPE_MISMATCH, 0, view_1d(pb, po, CLGPU_TYPE_UINT32, n),
       view_1d(sb, so, CLGPU_TYPE_UINT32, n), view_2d(db, dof, CLGPU_TYPE_UINT32, 4, 5)},
      {"a destination over the source", CLGPU_INVALID_OUTPUT, 0,
       view_1d(pb, po, CLGPU_TYPE_UINT32, n), view_1d(db, dof, CLGPU_TYPE_UINT32, n),
       view_1d(db, dof + 8, CLGPU_TYPE_UINT32, n)},
      {"a destination over the permutation", CLGPU_INVALID_OUTPUT, 0,
       view_1d(db, dof, CLGPU_TYPE_UINT32, n), view_1d(sb, so, CLGPU_TYPE_UINT32, n),
       view_1d(db, dof + 4, CLGPU_TYPE_UINT32, n)},
      {"a broadcast destination", CLGPU_INVALID_OUTPUT, 0, view_1d(pb, po, CLGPU_TYPE_UINT32, n),
       view_1d(sb, so, CLGPU_TYPE_UINT32, n), view_strided(db, dof, CLGPU_TYPE_UINT32, n, 0)},
  };
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    char label[120];
    snprintf(label, sizeof label, "clgpu_gather misuse \"%s\"", rows[r].name);
    cl_event event = NULL;
    clgpu_status status =
        clgpu_gather(rows[r].context_null ? NULL : shared_context, &rows[r].destination,
                     &rows[r].source, &rows[r].permutation, 0, NULL, &event);
    if (status != rows[r].expected) {
      fail_msg("%s: %s (%d), expected %s; detail: %s", label, clgpu_status_name(status),
               (int)status, clgpu_status_name(rows[r].expected), clgpu_last_error());
    }
    print_message("# %s: %s\n", label, clgpu_last_error());
    if (event != NULL) fail_msg("%s: an event was made", label);
    assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
    for (int k = 0; k < 3; k++)
      expect_region_unchanged(shared_context, &regions[k], initial[k], "region", label);
  }
  /* NULL views. */
  clgpu_array ok = view_1d(pb, po, CLGPU_TYPE_UINT32, n);
  clgpu_array out = view_1d(db, dof, CLGPU_TYPE_UINT32, n);
  assert_status(clgpu_gather(shared_context, &out, &ok, NULL, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_gather(shared_context, &out, NULL, &ok, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_gather(shared_context, NULL, &ok, &ok, 0, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_gather(shared_context, &out, &ok, &ok, 1, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  expect_region_unchanged(shared_context, &regions[2], initial[2], "destination",
                          "clgpu_gather NULL arguments");
  for (int r = 0; r < 3; r++) test_guarded_release(&regions[r]);
}

/* ---- events, n = 0, AUTO ---- */

/* The event out completes with the result; a call behind a user event
 * does not complete before it is set, then gives the right result; a call
 * without an event out still runs. */
static void events(void **state) {
  (void)state;
  static const size_t sizes[] = {1000, 4 * SORT_TILE + 1, 65537};
  size_t size_count = oclgrind ? 1 : sizeof sizes / sizeof sizes[0];
  for (size_t m = 0; m < 4; m++) {
    for (size_t s = 0; s < size_count; s++) {
      sort_case c = workspace_case((s + m) % WORKSPACE_LAYOUTS, sizes[s], m);
      c.what = "events";
      c.gated = 1;
      run_sort_case(&c);
      c.gated = 0;
      c.no_event = 1;
      run_sort_case(&c);
    }
  }
}

/* n = 0 is a valid no-op that still returns an event (and one element
 * needs no pass): sorts with and without values, permutations, gathers. */
static void empty_and_single(void **state) {
  (void)state;
  for (size_t n = 0; n < 2; n++) {
    for (size_t m = 0; m < 4; m++) {
      for (size_t layout = 0; layout < WORKSPACE_LAYOUTS; layout++) {
        sort_case c = workspace_case(layout, n, m);
        c.what = n ? "one key" : "no keys";
        run_sort_case(&c);
        c.gated = 1;
        run_sort_case(&c);
      }
      sort_case c = base_case(KEY_FLOAT, n, both_algorithms[m % 2], both_shapes[m / 2]);
      c.what = n ? "one key" : "no keys";
      c.value_bytes = 16;
      run_sort_case(&c);
      custom_case custom = {
          CUSTOM_POINT, n, TEST_UNIFORM, 0, CLGPU_ALGORITHM_MERGE, both_shapes[m / 2], (int)(m % 2),
          16,           0};
      run_custom_case(&custom);
    }
    gather_case g = {4, n, n, CLGPU_TYPE_UINT32, 1, 1, 1, 0};
    run_gather_case(&g);
    g.source_n = 0; /* every index past the end */
    run_gather_case(&g);
  }
}

/* Values whose offset is not aligned to their size (up to 4 bytes) are
 * staged like strided ones: a CLGPU_TYPE_UINT8 view of n * v bytes starting 1
 * to 3 bytes past an aligned offset sorts like aligned values. */
static void unaligned_values(void **state) {
  (void)state;
  static const size_t sizes[] = {2, 1000, 16385};
  static const size_t value_bytes[] = {2, 4, 8, 16};
  for (size_t m = 0; m < 4; m++) {
    for (size_t v = 0; v < 4; v++) {
      if (oclgrind && v != m) continue;
      size_t n = sizes[(m + v) % (oclgrind ? 2 : 3)], vsize = value_bytes[v];
      size_t shift = 1 + (m + v) % 3;
      char label[300];
      snprintf(
          label, sizeof label,
          "sort uint32 keys, n=%zu, %zu-byte values as bytes %zu past an aligned offset, %s, %s", n,
          vsize, shift, algorithm_text(both_algorithms[m % 2]), shape_text(both_shapes[m / 2]));
      uint64_t seed = test_case_seed(label);
      unsigned char *keys = malloc(n * 4), *expected_keys = malloc(n * 4);
      uint32_t *permutation = malloc(n * sizeof *permutation);
      assert_non_null(keys);
      assert_non_null(expected_keys);
      assert_non_null(permutation);
      test_generate(keys, n, TEST_UINT32, TEST_FEW_UNIQUE, seed, 256);
      reference_permutation(&key_types[KEY_UINT32], keys, n, 0, 0, 0, permutation);
      apply_permutation(keys, permutation, n, 4, expected_keys);
      /* The values' bytes, `shift` bytes of padding first (which must stay). */
      size_t bytes = shift + n * vsize;
      unsigned char *values = random_bytes(bytes, seed ^ 1), *expected = malloc(bytes);
      assert_non_null(expected);
      memcpy(expected, values, shift);
      apply_permutation(values + shift, permutation, n, vsize, expected + shift);
      placed key_region = place_elements(shared_context, n, 4, 1, keys, seed ^ 2);
      placed value_region = place_elements(shared_context, bytes, 1, 1, values, seed ^ 3);
      clgpu_array key_view = make_view(&key_region.guarded, CLGPU_TYPE_UINT32, &key_region.spec);
      clgpu_array value_view =
          view_1d(value_region.guarded.buffer,
                  value_region.guarded.offset + value_region.spec.offset + shift, CLGPU_TYPE_UINT8,
                  n * vsize);
      clgpu_sort_options options = {
          .algorithm = both_algorithms[m % 2], .shape = both_shapes[m / 2], .workspace = NULL};
      cl_event event = NULL;
      expect_success(
          clgpu_sort(shared_context, NULL, &key_view, &value_view, &options, 0, NULL, &event),
          label);
      assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
      clReleaseEvent(event);
      check_placed(&key_region, expected_keys, n, permutation, NULL, 0, "keys", label);
      check_placed(&value_region, expected, bytes, NULL, NULL, 0, "value bytes", label);
      release_placed(&value_region);
      release_placed(&key_region);
      free(expected);
      free(values);
      free(permutation);
      free(expected_keys);
      free(keys);
    }
  }
}

/* AUTO: a built-in key type without a comparator resolves to RADIX (the
 * report's part 0 says so) and sorts like it; with a comparator, to MERGE.
 * The shape resolves to CHUNKED on CPU devices and TILED elsewhere. */
static void auto_algorithm(void **state) {
  (void)state;
  const clgpu_device_info *info = clgpu_context_device_info(shared_context);
  clgpu_shape expected_shape =
      (info->type & CL_DEVICE_TYPE_CPU) ? CLGPU_SHAPE_CHUNKED : CLGPU_SHAPE_TILED;
  static const size_t sizes[] = {1000, 16385, 65537};
  size_t size_count = oclgrind ? 1 : sizeof sizes / sizeof sizes[0];
  for (size_t s = 0; s < size_count; s++) {
    for (int null_options = 0; null_options < 2; null_options++) {
      sort_case c = base_case(KEY_UINT32, sizes[s], CLGPU_ALGORITHM_AUTO, CLGPU_SHAPE_AUTO);
      c.what = "auto";
      c.index_values = 1;
      c.distribution = TEST_FEW_UNIQUE;
      c.parameter = 16;
      c.null_options = null_options;
      char label[600];
      describe_case(&c, label, sizeof label);
      clgpu_workspace_size report = case_report(&c, label);
      if (report.parts[0].algorithm != CLGPU_ALGORITHM_RADIX ||
          report.parts[0].shape != expected_shape) {
        fail_msg("%s: AUTO resolved to %s, %s; expected radix, %s", label,
                 algorithm_text(report.parts[0].algorithm), shape_text(report.parts[0].shape),
                 shape_text(expected_shape));
      }
      /* AUTO, then RADIX explicitly on the same data: both must give
       * the reference's bytes, so the same bytes. */
      c.data_label = "sort auto against radix";
      run_sort_case(&c);
      c.null_options = 0;
      c.algorithm = CLGPU_ALGORITHM_RADIX;
      c.shape = expected_shape;
      run_sort_case(&c);
    }
    /* With a comparator: MERGE. */
    clgpu_sort_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.compare = "fabs(a) < fabs(b)";
    sort_case probe = base_case(KEY_FLOAT, sizes[s], CLGPU_ALGORITHM_AUTO, CLGPU_SHAPE_AUTO);
    clgpu_workspace_size report;
    expect_success(query_case(&probe, &spec, &report), "sort auto with a comparator");
    if (report.parts[0].algorithm != CLGPU_ALGORITHM_MERGE) {
      fail_msg("sort auto with a comparator, n=%zu: resolved to %s, not merge", sizes[s],
               algorithm_text(report.parts[0].algorithm));
    }
    custom_case c = {
        CUSTOM_FABS, sizes[s], TEST_FEW_UNIQUE, 16, CLGPU_ALGORITHM_AUTO, CLGPU_SHAPE_AUTO, 0,
        0,           0};
    run_custom_case(&c);
  }
}

/* ---- custom keys whose key_size is not the device's sizeof ---- */

/* A key_size that differs from the device's sizeof(key_type) would make
 * the kernels address key_type records over a view measured in key_size
 * records: past the caller's keys and scratch. Every call must refuse it
 * whatever n, before anything is enqueued, with a message giving both
 * sizes; and a correct size must still sort. */
typedef struct key_size_row {
  const char *key_type;
  const char *declarations;
  size_t key_size;
  const char *compare;
  size_t device_size; /* what the device's sizeof must be */
} key_size_row;

static const key_size_row wrong_key_sizes[] = {
    {"float4", NULL, 4, "a.x < b.x", 16},
    {"int", NULL, 8, "a < b", 4},
    {"float3", NULL, 12, "a.x < b.x", 16},
    {"tagged", "typedef struct { float x; uchar tag; } tagged;", 5, "a.x < b.x", 8},
};

/* Sort (keys alone, and keys with 4-byte values) and sort permutation of
 * `n` keys of row->key_size bytes: CLGPU_INVALID_ARGUMENT, both sizes in
 * the message, no event, keys, values and permutation unchanged, guards
 * intact. */
static void expect_key_size_refused(const key_size_row *row, size_t n, uint64_t seed) {
  size_t bytes = n * row->key_size;
  unsigned char *keys = random_bytes(bytes, seed);
  unsigned char *values = random_bytes(n * 4, seed + 1);
  unsigned char *permutation = random_bytes(n * 4, seed + 2);
  test_guarded key_region = test_guarded_create(shared_context, bytes, keys);
  test_guarded value_region = test_guarded_create(shared_context, n * 4, values);
  test_guarded permutation_region = test_guarded_create(shared_context, n * 4, permutation);
  clgpu_array key_view, value_view, permutation_view;
  assert_status(
      clgpu_array_1d(key_region.buffer, key_region.offset, CLGPU_TYPE_UINT8, bytes, &key_view),
      CLGPU_SUCCESS);
  assert_status(
      clgpu_array_1d(value_region.buffer, value_region.offset, CLGPU_TYPE_UINT32, n, &value_view),
      CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(permutation_region.buffer, permutation_region.offset,
                               CLGPU_TYPE_UINT32, n, &permutation_view),
                CLGPU_SUCCESS);
  clgpu_sort_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.key_type = row->key_type;
  spec.declarations = row->declarations;
  spec.key_size = row->key_size;
  spec.compare = row->compare;
  char key_size_words[64], sizeof_words[96];
  snprintf(key_size_words, sizeof key_size_words, "key_size is %zu", row->key_size);
  snprintf(sizeof_words, sizeof sizeof_words, "sizeof(%s) on this device is %zu", row->key_type,
           row->device_size);
  for (int call = 0; call < 3; call++) {
    for (size_t h = 0; h < 2; h++) {
      static const char *const calls[] = {"clgpu_sort", "clgpu_sort with values",
                                          "clgpu_sort_permutation"};
      char label[300];
      snprintf(label, sizeof label, "%s, %s keys with key_size %zu, n=%zu, %s", calls[call],
               row->key_type, row->key_size, n, shape_text(both_shapes[h]));
      clgpu_sort_options options = {
          .algorithm = CLGPU_ALGORITHM_MERGE, .shape = both_shapes[h], .workspace = NULL};
      cl_event event = NULL;
      clgpu_status status =
          call == 2 ? clgpu_sort_permutation(shared_context, &spec, &permutation_view, &key_view,
                                             &options, 0, NULL, &event)
                    : clgpu_sort(shared_context, &spec, &key_view, call == 1 ? &value_view : NULL,
                                 &options, 0, NULL, &event);
      const char *detail = clgpu_last_error();
      if (status != CLGPU_INVALID_ARGUMENT) {
        fail_msg("%s: %s (%d), expected CLGPU_INVALID_ARGUMENT; detail: %s", label,
                 clgpu_status_name(status), (int)status, detail);
      }
      const char *who = call == 2 ? "clgpu_sort_permutation:" : "clgpu_sort:";
      if (strncmp(detail, who, strlen(who)) != 0 || !strstr(detail, key_size_words) ||
          !strstr(detail, sizeof_words)) {
        fail_msg("%s: the message does not say \"%s ... %s ... %s\": %s", label, who,
                 key_size_words, sizeof_words, detail);
      }
      if (event != NULL) fail_msg("%s: an event was made", label);
      assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
      expect_region_unchanged(shared_context, &key_region, keys, "keys", label);
      expect_region_unchanged(shared_context, &value_region, values, "values", label);
      expect_region_unchanged(shared_context, &permutation_region, permutation, "permutation",
                              label);
    }
  }
  test_guarded_release(&permutation_region);
  test_guarded_release(&value_region);
  test_guarded_release(&key_region);
  free(permutation);
  free(values);
  free(keys);
}

static void custom_key_size_must_be_the_devices(void **state) {
  (void)state;
  /* Oclgrind's --check-api reports every failed build as an error. */
  if (oclgrind) {
    print_message("# refusals by a failed build: not run on Oclgrind\n");
    return;
  }
  uint64_t seed = test_case_seed("custom key_size");
  for (size_t r = 0; r < sizeof wrong_key_sizes / sizeof wrong_key_sizes[0]; r++) {
    /* 16 keys as in the report (64 bytes of float4 keys of key_size 4),
     * and a single key: refused too, though no key would move. */
    expect_key_size_refused(&wrong_key_sizes[r], 16, seed + 10 * r);
    expect_key_size_refused(&wrong_key_sizes[r], 1, seed + 10 * r + 5);
  }

  /* The refusal measures the device's size without waiting for anything
   * the caller enqueued: a marker held by a user event stays queued ahead
   * of it on the context's queue, and the call still returns. */
  unsigned char keys[64];
  test_generate(keys, sizeof keys, TEST_UINT8, TEST_UNIFORM, seed + 99, 0);
  test_guarded key_region = test_guarded_create(shared_context, sizeof keys, keys);
  clgpu_array key_view;
  assert_status(clgpu_array_1d(key_region.buffer, key_region.offset, CLGPU_TYPE_UINT8, sizeof keys,
                               &key_view),
                CLGPU_SUCCESS);
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(clgpu_context_cl_context(shared_context), &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_event marker = NULL;
  assert_int_equal(
      clEnqueueMarkerWithWaitList(clgpu_context_queue(shared_context), 1, &gate, &marker),
      CL_SUCCESS);
  clFlush(clgpu_context_queue(shared_context));
  clgpu_sort_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.key_type = "float4";
  spec.key_size = 4;
  spec.compare = "a.x < b.x";
  assert_status(clgpu_sort(shared_context, &spec, &key_view, NULL, NULL, 1, &gate, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "sizeof(float4) on this device is 16"));
  assert_int_equal(test_event_status(marker) == CL_COMPLETE, 0);
  assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  assert_int_equal(clWaitForEvents(1, &marker), CL_SUCCESS);
  clReleaseEvent(marker);
  clReleaseEvent(gate);
  expect_region_unchanged(shared_context, &key_region, keys, "keys",
                          "float4 keys behind a held marker");

  /* A type that does not compile at all is still a build failure with the
   * compiler's log, not a size complaint. */
  spec.key_type = "no_such_key_type";
  spec.key_size = 4;
  spec.compare = "a < b";
  assert_status(clgpu_sort(shared_context, &spec, &key_view, NULL, NULL, 0, NULL, NULL),
                CLGPU_CL_BUILD_PROGRAM_FAILURE);
  assert_non_null(strstr(clgpu_last_error(), "no_such_key_type"));
  assert_null(strstr(clgpu_last_error(), "on this device is"));
  expect_region_unchanged(shared_context, &key_region, keys, "keys", "keys of an undeclared type");
  test_guarded_release(&key_region);
}

/* The host's picture of a key record: x at byte 0, and `payload` bytes
 * after it that travel with it (y and z of a float3, the tag of a struct). */
typedef struct record_reference {
  const unsigned char *records;
  size_t size;
} record_reference;

static int record_precedes(const void *context, size_t a, size_t b) {
  const record_reference *r = context;
  float xa, xb;
  memcpy(&xa, r->records + a * r->size, 4);
  memcpy(&xb, r->records + b * r->size, 4);
  return xa < xb;
}

/* ---- a work-item's loop iterations ---- */

/* Mesa's llvmpipe counts the loop iterations of a work-item in one counter
 * for the whole kernel and leaves every loop once it reaches 65535
 * (gallivm's LP_MAX_TGSI_LOOP_ITERATIONS), silently; the CHUNKED sorts walk
 * up to n keys in one work-item, so there they came out wrong (quirks.c's
 * QUIRK_LOOP_ITERATION_CAP row, which src/ops/sort.c plans around). The kernel
 * below is the minimal case: one work-item copies n elements in one loop. */
#define LOOP_CAP_LLVMPIPE 65535u

static const char loop_source[] =
    "__kernel void copy_in_one_loop(__global const uint *in, __global uint *out, ulong n) {\n"
    "  for (ulong i = 0; i < n; i++) out[i] = in[i];\n"
    "}\n";

/* How many leading elements one work-item copied of n (n when all). */
static size_t one_item_copies(size_t n) {
  clgpu_program *program = NULL;
  assert_status(clgpu_program_get(shared_context, loop_source, NULL, 0, NULL, &program),
                CLGPU_SUCCESS);
  cl_kernel kernel = NULL;
  assert_status(clgpu_kernel_acquire(program, "copy_in_one_loop", &kernel), CLGPU_SUCCESS);
  cl_context cl = clgpu_context_cl_context(shared_context);
  cl_command_queue queue = clgpu_context_queue(shared_context);
  uint32_t *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
  assert_non_null(in);
  assert_non_null(out);
  for (size_t i = 0; i < n; i++) {
    in[i] = (uint32_t)(i * 2654435761u) | 1u;
    out[i] = 0;
  }
  cl_int err = CL_SUCCESS;
  cl_mem source = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, in, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_mem destination =
      clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, out, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_ulong count = n;
  assert_int_equal(clSetKernelArg(kernel, 0, sizeof source, &source), CL_SUCCESS);
  assert_int_equal(clSetKernelArg(kernel, 1, sizeof destination, &destination), CL_SUCCESS);
  assert_int_equal(clSetKernelArg(kernel, 2, sizeof count, &count), CL_SUCCESS);
  size_t one = 1;
  assert_int_equal(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL),
                   CL_SUCCESS);
  assert_int_equal(clEnqueueReadBuffer(queue, destination, CL_TRUE, 0, n * 4, out, 0, NULL, NULL),
                   CL_SUCCESS);
  cl_mem none = NULL;
  clSetKernelArg(kernel, 0, sizeof none, &none);
  clSetKernelArg(kernel, 1, sizeof none, &none);
  clgpu_kernel_release(program, kernel);
  clReleaseMemObject(source);
  clReleaseMemObject(destination);
  size_t copied = 0;
  while (copied < n && out[copied] == in[copied]) copied++;
  /* What was not copied is as it was (0: every in[i] is odd). */
  for (size_t i = copied; i < n; i++) {
    if (out[i] != 0) {
      fail_msg(
          "one work-item's copy of %zu elements: element %zu was written (%08x, expected "
          "%08x) after element %zu was not",
          n, i, (unsigned)out[i], (unsigned)in[i], copied);
    }
  }
  free(in);
  free(out);
  return copied;
}

static void loop_iteration_cap(void **state) {
  (void)state;
  if (oclgrind) {
    /* Oclgrind would take minutes over the 2^17 iterations and is no
     * device with a cap; every other device runs this. */
    printf("# loop iteration cap: not run on Oclgrind (2^17 iterations of one work-item)\n");
    return;
  }
  const clgpu_device_info *info = clgpu_context_device_info(shared_context);
  size_t n = 2 * 65536 + 5;
  size_t copied = one_item_copies(n);
  int llvmpipe = strstr(info->name, "llvmpipe") != NULL;
  if (copied == n) {
    printf("# one work-item ran %zu loop iterations: no loop cap on %s\n", n, info->name);
    /* The quirks table's row matches llvmpipe: it would be a stale row. */
    if (llvmpipe) fail_msg("%s has no loop cap: quirks.c's llvmpipe row is stale", info->name);
  } else {
    printf("# one work-item's loop of %zu iterations stopped after %zu on %s\n", n, copied,
           info->name);
    if (copied != LOOP_CAP_LLVMPIPE || !llvmpipe) {
      fail_msg(
          "%s leaves a work-item's loops after %zu iterations; quirks.c's "
          "QUIRK_LOOP_ITERATION_CAP rows cover llvmpipe's %u only",
          info->name, copied, LOOP_CAP_LLVMPIPE);
    }
  }
  /* Sorts whose CHUNKED plans walked more keys per work-item than that:
   * the single-item radix sort of keys alone at its largest n (65536, the
   * tuning table's sort_single_chunk: all passes and the copy back in one
   * item), and both algorithms at n past 2^17 in both shapes. */
  sort_case c = base_case(KEY_UINT32, 65536, CLGPU_ALGORITHM_RADIX, CLGPU_SHAPE_CHUNKED);
  c.what = "loop cap";
  run_sort_case(&c);
  for (size_t m = 0; m < 4; m++) {
    c = base_case(KEY_UINT32, n, both_algorithms[m % 2], both_shapes[m / 2]);
    c.what = "loop cap";
    c.index_values = 1;
    run_sort_case(&c);
  }
}

/* With the device's sizes the same keys sort: float3 with key_size 16 and
 * a padded struct from declarations with key_size 8, against the host's
 * stable sort by x. Only the bytes the type defines are compared (x, y, z
 * of a float3; x and the tag of the struct): padding is not the sort's. */
static void custom_key_size_right_sorts(void **state) {
  (void)state;
  static const struct {
    const char *key_type;
    const char *declarations;
    size_t key_size, defined;
  } rows[] = {
      {"float3", NULL, 16, 12},
      {"tagged", "typedef struct { float x; uchar tag; } tagged;", 8, 5},
  };
  size_t n = 250;
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    if (oclgrind && rows[r].defined == 12) {
      /* Open question: Oclgrind 21.10 returns float3 keys (16 bytes) in an
       * order or with contents that differ from the host's stable sort,
       * where POCL matches it bit for bit; not yet known whether the
       * simulator or cl/sort.cl's handling of 3-element vectors is at
       * fault. The row runs on every other device. */
      printf("# float3 keys: not run on Oclgrind (an open discrepancy, see the comment)\n");
      continue;
    }
    for (size_t h = 0; h < 2; h++) {
      char label[200];
      snprintf(label, sizeof label, "%s keys with key_size %zu, n=%zu, %s", rows[r].key_type,
               rows[r].key_size, n, shape_text(both_shapes[h]));
      uint64_t seed = test_case_seed(label);
      size_t size = rows[r].key_size;
      unsigned char *records = random_bytes(n * size, seed);
      float *x = malloc(n * sizeof *x);
      uint32_t *permutation = malloc(n * sizeof *permutation);
      unsigned char *expected = malloc(n * size);
      unsigned char *after = malloc(n * size);
      assert_non_null(x);
      assert_non_null(permutation);
      assert_non_null(expected);
      assert_non_null(after);
      finite_floats(TEST_FEW_UNIQUE, 16, n, seed + 1, x);
      for (size_t i = 0; i < n; i++) {
        memcpy(records + i * size, &x[i], 4);
        /* The tag (or y): the index, so that ties show the order kept. */
        records[i * size + 4] = (unsigned char)i;
        if (rows[r].defined == 12) {
          /* float3: y and z finite, since a device may move them as floats
           * and quiet a signalling NaN that random bits made (Oclgrind
           * does), which would change bits the comparison reads. */
          float y = (float)i, z = -0.5f * (float)i;
          memcpy(records + i * size + 4, &y, 4);
          memcpy(records + i * size + 8, &z, 4);
        }
      }
      record_reference reference = {records, size};
      test_stable_permutation(n, record_precedes, &reference, permutation);
      apply_permutation(records, permutation, n, size, expected);
      test_guarded region = test_guarded_create(shared_context, n * size, records);
      clgpu_array view;
      assert_status(clgpu_array_1d(region.buffer, region.offset, CLGPU_TYPE_UINT8, n * size, &view),
                    CLGPU_SUCCESS);
      clgpu_sort_spec spec;
      memset(&spec, 0, sizeof spec);
      spec.key_type = rows[r].key_type;
      spec.declarations = rows[r].declarations;
      spec.key_size = size;
      spec.compare = "a.x < b.x";
      clgpu_sort_options options = {
          .algorithm = CLGPU_ALGORITHM_MERGE, .shape = both_shapes[h], .workspace = NULL};
      expect_success(clgpu_sort(shared_context, &spec, &view, NULL, &options, 0, NULL, NULL),
                     label);
      assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
      test_guarded_read(shared_context, &region, after);
      test_guarded_check(shared_context, &region, label);
      for (size_t i = 0; i < n; i++) {
        if (memcmp(after + i * size, expected + i * size, rows[r].defined) != 0) {
          fail_msg("%s: key %zu differs from the host's stable sort (its x and payload)", label,
                   i);
        }
      }
      test_guarded_release(&region);
      free(after);
      free(expected);
      free(permutation);
      free(x);
      free(records);
    }
  }
}

#define KEY_TEST(function, index) \
  { #function "(" #index ")", function, NULL, NULL, (void *)&key_states[index] }

int main(void) {
  test_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(host_reference),
      KEY_TEST(keys_by_type, KEY_INT8),
      KEY_TEST(keys_by_type, KEY_UINT8),
      KEY_TEST(keys_by_type, KEY_INT16),
      KEY_TEST(keys_by_type, KEY_UINT16),
      KEY_TEST(keys_by_type, KEY_INT32),
      KEY_TEST(keys_by_type, KEY_UINT32),
      KEY_TEST(keys_by_type, KEY_INT64),
      KEY_TEST(keys_by_type, KEY_UINT64),
      KEY_TEST(keys_by_type, KEY_FLOAT),
      KEY_TEST(keys_by_type, KEY_DOUBLE),
      KEY_TEST(keys_by_type, KEY_HALF),
      cmocka_unit_test(every_size),
      cmocka_unit_test(stability),
      cmocka_unit_test(value_sizes),
      cmocka_unit_test_teardown(streaming_scatter, streaming_teardown),
      cmocka_unit_test_teardown(pairs_between_passes, streaming_teardown),
      cmocka_unit_test_teardown(lines_floor_upto, streaming_teardown),
      cmocka_unit_test_teardown(wide_digits_upto, streaming_teardown),
      cmocka_unit_test(summed_and_scanned_counts),
      cmocka_unit_test(inconsistent_comparator_in_one_block),
      cmocka_unit_test(strided_views),
      cmocka_unit_test(bit_ranges),
      cmocka_unit_test(custom_comparator),
      cmocka_unit_test(struct_keys),
      cmocka_unit_test(sort_permutation),
      cmocka_unit_test(gather_elements),
      cmocka_unit_test(workspace_reports),
      cmocka_unit_test(workspace_buffer_names),
      cmocka_unit_test(workspace_exact),
      cmocka_unit_test(workspace_refused),
      cmocka_unit_test(workspace_upto_serves_smaller),
      cmocka_unit_test(misuse_is_refused),
      cmocka_unit_test(gather_misuse_is_refused),
      cmocka_unit_test(events),
      cmocka_unit_test(empty_and_single),
      cmocka_unit_test(unaligned_values),
      cmocka_unit_test(auto_algorithm),
      cmocka_unit_test(custom_key_size_must_be_the_devices),
      cmocka_unit_test(custom_key_size_right_sorts),
      cmocka_unit_test(loop_iteration_cap),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
