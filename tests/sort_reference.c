/* What the sort tests share; see sort_reference.h. */
#include "sort_reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* ---- key types ---- */

const key_type key_types[KEY_TYPE_COUNT] = {
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

unsigned key_states[KEY_TYPE_COUNT] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

test_type raw_type(size_t size) {
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

/* The bits of an element of `size` bytes (all 64 for 8 or more). */
static uint64_t width_mask(size_t size) {
  return size >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * size)) - 1;
}

static uint64_t infinity_of(const key_type *t) {
  return t->size == 2   ? UINT64_C(0x7c00)
         : t->size == 4 ? UINT64_C(0x7f800000)
                        : UINT64_C(0x7ff0000000000000);
}

int bits_are_nan(const key_type *t, uint64_t bits) {
  if (t->kind != KIND_FLOAT) return 0;
  uint64_t top = (uint64_t)1 << (8 * t->size - 1);
  return (bits & ~top) > infinity_of(t);
}

/* ---- the host reference ---- */

uint64_t natural_order_key(const void *element, test_type type) {
  if (!test_is_nan(element, type)) return test_order_key(element, type);
  uint64_t bits = test_load_bits(element, 0, type);
  unsigned char positive[8];
  test_store_bits(positive, 0, type, bits & ~((uint64_t)1 << (8 * test_type_size(type) - 1)));
  return test_order_key(positive, type);
}

uint64_t order_image(const key_type *t, uint64_t bits) {
  if (t->is_half) {
    uint64_t top = (uint64_t)1 << (8 * t->size - 1);
    if (bits_are_nan(t, bits)) bits &= ~top;
    return (bits & top) ? (~bits & 0xffffu) : (bits | top);
  }
  unsigned char element[8];
  test_store_bits(element, 0, t->host, bits);
  return natural_order_key(element, t->host);
}

uint64_t sort_key(const key_type *t, uint64_t bits, int descending, unsigned begin_bit,
                  unsigned end_bit) {
  uint64_t image = order_image(t, bits);
  if (descending) image = ~image & width_mask(t->size);
  if (begin_bit == 0 && end_bit == 0) return image;
  unsigned width = end_bit - begin_bit;
  uint64_t mask = width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << width) - 1;
  return (image >> begin_bit) & mask;
}

uint64_t *order_keys(const key_type *t, const unsigned char *keys, size_t n, int descending,
                     unsigned begin_bit, unsigned end_bit) {
  uint64_t *order = malloc((n ? n : 1) * sizeof *order);
  assert_non_null(order);
  for (size_t i = 0; i < n; i++) {
    order[i] =
        sort_key(t, test_load_bits(keys, i, raw_type(t->size)), descending, begin_bit, end_bit);
  }
  return order;
}

int key_precedes(const void *context, size_t a, size_t b) {
  const uint64_t *keys = context;
  return keys[a] < keys[b];
}

void apply_permutation(const unsigned char *in, const uint32_t *permutation, size_t n, size_t size,
                       unsigned char *out) {
  for (size_t i = 0; i < n; i++) memcpy(out + i * size, in + (size_t)permutation[i] * size, size);
}

/* ---- comparators over float keys ---- */

int float_precedes(const void *context, size_t a, size_t b) {
  const float_reference *r = context;
  float xa = r->x[a], xb = r->x[b];
  if (r->compare == FLOAT_FABS_LESS) {
    xa = fabsf(xa);
    xb = fabsf(xb);
  }
  if (r->compare == FLOAT_GREATER) { /* "a > b" is "b < a" */
    float swap = xa;
    xa = xb;
    xb = swap;
  }
  return r->descending ? xb < xa : xa < xb;
}

const char point_declarations[] = "typedef struct { float x; int id; } point;";

/* ---- data ---- */

/* Half's specials as bits: ±0, ±inf, NaNs of both signs and several
 * payloads, denormals, the smallest normal, ±65504, ±1. */
static const uint16_t half_specials[] = {
    0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0xfc01, 0x7d23, 0x7fff, 0xffff,
    0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x7bff, 0xfbff, 0x3c00, 0xbc00,
};

uint16_t half_of_order_key(uint64_t key) {
  key &= 0xffffu;
  return (uint16_t)((key & 0x8000u) ? (key ^ 0x8000u) : (~key & 0xffffu));
}

void generate_keys(const key_type *t, test_distribution distribution, size_t parameter, size_t n,
                   uint64_t seed, unsigned char *out) {
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

void finite_floats(test_distribution distribution, size_t parameter, size_t n, uint64_t seed,
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

unsigned char *input_indices(size_t n) {
  unsigned char *values = malloc(n * 4 + 1);
  assert_non_null(values);
  for (size_t i = 0; i < n; i++) {
    uint32_t index = (uint32_t)i;
    memcpy(values + 4 * i, &index, 4);
  }
  return values;
}

void describe_distribution(test_distribution distribution, size_t parameter, char *text,
                           size_t size) {
  if (test_distribution_has_parameter(distribution)) {
    snprintf(text, size, "%s(%zu)", test_distribution_name(distribution), parameter);
  } else {
    snprintf(text, size, "%s", test_distribution_name(distribution));
  }
}

/* ---- checks ---- */

/* The first index at which two arrays of n elements of `size` bytes
 * differ, and how many do (into *differing, which may be NULL); n when
 * none. */
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

void expect_elements(const unsigned char *actual, const unsigned char *expected, size_t n,
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

void expect_region(const unsigned char *actual, const unsigned char *model, size_t bytes,
                   const char *what, const char *label) {
  size_t first = first_difference(actual, model, bytes, 1, NULL);
  if (first == bytes) return;
  fail_msg(
      "%s: %s region byte %zu of %zu changed: 0x%02x, expected 0x%02x (a byte that is not "
      "an element's, or an element's)",
      label, what, first, bytes, actual[first], model[first]);
}

void expect_region_unchanged(clgpu_context *context, const test_guarded *region,
                             const unsigned char *initial, const char *what, const char *label) {
  unsigned char *after = malloc(region->region_bytes);
  assert_non_null(after);
  test_guarded_read(context, region, after);
  expect_region(after, initial, region->region_bytes, what, label);
  test_guarded_check(context, region, label);
  free(after);
}

void expect_success(clgpu_status status, const char *label) {
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s: %s (%d): %s", label, clgpu_status_name(status), (int)status, clgpu_last_error());
  }
}

cl_event sort_gate(clgpu_context *context, int gated) {
  if (!gated) return NULL;
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(clgpu_context_cl_context(context), &err);
  assert_int_equal(err, CL_SUCCESS);
  return gate;
}

void finish_sort_call(clgpu_context *context, clgpu_status status, cl_event gate, cl_event event,
                      int no_event, const char *label) {
  if (status != CLGPU_SUCCESS && gate) clSetUserEventStatus(gate, CL_COMPLETE);
  expect_success(status, label);
  if (no_event) {
    assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
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
}

/* ---- guarded placement ---- */

placed place_with_slack(clgpu_context *context, size_t n, size_t size, ptrdiff_t stride,
                        size_t slack, const unsigned char *logical, uint64_t seed) {
  placed p;
  memset(&p, 0, sizeof p);
  p.context = context;
  p.spec.rank = 1;
  p.spec.shape[0] = n;
  p.spec.strides[0] = stride;
  p.size = size;
  p.bytes = spec_fit(&p.spec, slack) * size;
  p.initial = random_bytes(p.bytes, seed);
  scatter(p.initial, &p.spec, size, logical);
  p.guarded = test_guarded_create(context, p.bytes, p.initial);
  return p;
}

placed place_elements(clgpu_context *context, size_t n, size_t size, ptrdiff_t stride,
                      const unsigned char *logical, uint64_t seed) {
  return place_with_slack(context, n, size, stride, 3, logical, seed);
}

void release_placed(placed *p) {
  test_guarded_release(&p->guarded);
  free(p->initial);
}

void check_placed(const placed *p, const unsigned char *expected, size_t n,
                  const uint32_t *permutation, const uint64_t *offsets, size_t offset_count,
                  const char *what, const char *label) {
  unsigned char *after = malloc(p->bytes);
  unsigned char *logical = malloc(n * p->size + 1);
  unsigned char *model = malloc(p->bytes);
  assert_non_null(after);
  assert_non_null(logical);
  assert_non_null(model);
  test_guarded_read(p->context, &p->guarded, after);
  test_guarded_check(p->context, &p->guarded, label);
  gather(after, &p->spec, p->size, logical);
  if (expected) {
    expect_elements(logical, expected, n, p->size, permutation, offsets, offset_count, what, label);
  }
  memcpy(model, p->initial, p->bytes);
  scatter(model, &p->spec, p->size, expected ? expected : logical);
  expect_region(after, model, p->bytes, what, label);
  free(model);
  free(logical);
  free(after);
}

void check_outside(const placed *p, size_t n, const char *what, const char *label) {
  check_placed(p, NULL, n, NULL, NULL, 0, what, label);
}

clgpu_array view_of_values(const test_guarded *guarded, const view_spec *spec, size_t size) {
  if (size == 16) {
    clgpu_array view;
    assert_status(clgpu_array_1d(guarded->buffer, guarded->offset + spec->offset * 16,
                                 CLGPU_TYPE_UINT64, 2 * spec->shape[0], &view),
                  CLGPU_SUCCESS);
    return view;
  }
  return make_view(guarded, test_cl_type(raw_type(size)), spec);
}

clgpu_array values_view(const placed *p) {
  if (p->size == 16) assert_int_equal(p->spec.strides[0], 1);
  return view_of_values(&p->guarded, &p->spec, p->size);
}

/* ---- workspaces and misuse ---- */

const char *const sort_buffer_names[6] = {"staged_keys",      "staged_values", "keys_alternate",
                                          "values_alternate", "counts",        "pass_state"};

clgpu_alloc_stats stats_of(const clgpu_alloc_cache *cache) {
  clgpu_alloc_stats stats;
  assert_status(clgpu_alloc_cache_stats(cache, &stats), CLGPU_SUCCESS);
  return stats;
}

int allocated_between(clgpu_alloc_stats before, clgpu_alloc_stats after) {
  return before.hits != after.hits || before.misses != after.misses ||
         before.device_allocations != after.device_allocations;
}

misuse_others misuse_others_make(clgpu_context *context, size_t foreign_bytes) {
  misuse_others others;
  others.other_context = test_context(NULL);
  cl_int err = CL_SUCCESS;
  others.foreign = clCreateBuffer(clgpu_context_cl_context(others.other_context), CL_MEM_READ_WRITE,
                                  foreign_bytes, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  others.user_event = clCreateUserEvent(clgpu_context_cl_context(context), &err);
  assert_int_equal(err, CL_SUCCESS);
  return others;
}

void misuse_others_release(misuse_others *others) {
  assert_int_equal(clSetUserEventStatus(others->user_event, CL_COMPLETE), CL_SUCCESS);
  clReleaseEvent(others->user_event);
  clReleaseMemObject(others->foreign);
  clgpu_context_destroy(others->other_context);
}

int misuse_row_skipped(const char *name, clgpu_status expected, int (*applies)(void),
                       int oclgrind) {
  if (applies && !applies()) {
    print_message("# %s: does not apply to this device\n", name);
    return 1;
  }
  if (oclgrind && expected == CLGPU_CL_BUILD_PROGRAM_FAILURE) {
    print_message("# %s: not run on Oclgrind\n", name);
    return 1;
  }
  return 0;
}

clgpu_array view_1d(cl_mem buffer, size_t offset, clgpu_type type, size_t n) {
  clgpu_array view;
  assert_status(clgpu_array_1d(buffer, offset, type, n, &view), CLGPU_SUCCESS);
  return view;
}

clgpu_array view_2d(cl_mem buffer, size_t offset, clgpu_type type, size_t rows, size_t columns) {
  clgpu_array view;
  const size_t shape[2] = {rows, columns};
  assert_status(clgpu_array_nd(buffer, offset, type, 2, shape, CLGPU_ORDER_ROW_MAJOR, &view),
                CLGPU_SUCCESS);
  return view;
}
