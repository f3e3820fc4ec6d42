/* Host-side views and shared helpers of the operation tests (views.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support.h"
#include "views.h"

size_t spec_count(const view_spec *spec) {
  size_t count = 1;
  for (unsigned d = 0; d < spec->rank; d++) count *= spec->shape[d];
  return count;
}

size_t spec_fit(view_spec *spec, size_t slack) {
  ptrdiff_t low = 0, high = 0;
  if (spec_count(spec) > 0) {
    for (unsigned d = 0; d < spec->rank; d++) {
      ptrdiff_t span = (ptrdiff_t)(spec->shape[d] - 1) * spec->strides[d];
      if (span < 0) low += span;
      if (span > 0) high += span;
    }
  }
  spec->offset = slack + (size_t)(-low);
  return slack + (size_t)(high - low) + 1 + slack;
}

size_t spec_position(const view_spec *spec, const size_t *index) {
  ptrdiff_t position = (ptrdiff_t)spec->offset;
  for (unsigned d = 0; d < spec->rank; d++) position += (ptrdiff_t)index[d] * spec->strides[d];
  return (size_t)position;
}

int next_index(const view_spec *spec, size_t *index) {
  for (unsigned d = spec->rank; d-- > 0;) {
    if (++index[d] < spec->shape[d]) return 1;
    index[d] = 0;
  }
  return 0;
}

void gather(const unsigned char *region, const view_spec *spec, size_t size,
            unsigned char *logical) {
  if (spec_count(spec) == 0) return;
  size_t index[CLGPU_MAX_RANK] = {0}, k = 0;
  do {
    memcpy(logical + k++ * size, region + spec_position(spec, index) * size, size);
  } while (next_index(spec, index));
}

void scatter(unsigned char *region, const view_spec *spec, size_t size,
             const unsigned char *logical) {
  if (spec_count(spec) == 0) return;
  size_t index[CLGPU_MAX_RANK] = {0}, k = 0;
  do {
    memcpy(region + spec_position(spec, index) * size, logical + k++ * size, size);
  } while (next_index(spec, index));
}

clgpu_array make_view(const test_guarded *guarded, clgpu_type type, const view_spec *spec) {
  clgpu_array view;
  size_t size = clgpu_type_size(type);
  assert_status(clgpu_array_strided(guarded->buffer, guarded->offset + spec->offset * size, type,
                                    spec->rank, spec->shape, spec->strides, &view),
                CLGPU_SUCCESS);
  return view;
}

unsigned char *random_bytes(size_t bytes, uint64_t seed) {
  unsigned char *data = malloc(bytes ? bytes : 1);
  assert_non_null(data);
  test_generate(data, bytes, TEST_UINT8, TEST_UNIFORM, seed, 0);
  return data;
}

test_placed test_place(clgpu_context *context, const void *data, size_t count, size_t size,
                       clgpu_type type, ptrdiff_t stride, uint64_t seed) {
  test_placed p;
  memset(&p, 0, sizeof p);
  p.spec.rank = 1;
  p.spec.shape[0] = count;
  p.spec.strides[0] = stride;
  size_t length = spec_fit(&p.spec, 3);
  p.region_bytes = length * size;
  p.region = random_bytes(p.region_bytes, seed);
  scatter(p.region, &p.spec, size, data);
  p.guarded = test_guarded_create(context, p.region_bytes, p.region);
  p.view = make_view(&p.guarded, type, &p.spec);
  return p;
}

void test_placed_release(test_placed *placed) {
  test_guarded_release(&placed->guarded);
  free(placed->region);
}

void test_placed_check(clgpu_context *context, const test_placed *p, size_t size,
                       const unsigned char *expected, size_t count, const char *label,
                       const char *what) {
  unsigned char *region = malloc(p->region_bytes + 1);
  unsigned char *wanted = malloc(p->region_bytes + 1);
  unsigned char *logical = malloc(p->spec.shape[0] * size + 1);
  assert_non_null(region);
  assert_non_null(wanted);
  assert_non_null(logical);
  test_guarded_read(context, &p->guarded, region);
  memcpy(wanted, p->region, p->region_bytes);
  gather(p->region, &p->spec, size, logical);
  memcpy(logical, expected, count * size);
  scatter(wanted, &p->spec, size, logical);
  for (size_t b = 0; b < p->region_bytes; b++) {
    if (region[b] != wanted[b]) {
      fail_msg("%s: seed %llu: %s: byte %zu of the region is 0x%02x, expected 0x%02x", label,
               (unsigned long long)test_seed(), what, b, region[b], wanted[b]);
    }
  }
  test_guarded_check(context, &p->guarded, label);
  free(region);
  free(wanted);
  free(logical);
}

int test_on_oclgrind(const clgpu_context *context) {
  const clgpu_device_info *info = clgpu_context_device_info(context);
  return strstr(info->name, "Oclgrind") != NULL || strstr(info->platform_name, "Oclgrind") != NULL;
}

clgpu_type test_cl_type(test_type type) {
  static const clgpu_type map[TEST_TYPE_COUNT] = {
      CLGPU_TYPE_INT8,   CLGPU_TYPE_UINT8, CLGPU_TYPE_INT16,  CLGPU_TYPE_UINT16, CLGPU_TYPE_INT32,
      CLGPU_TYPE_UINT32, CLGPU_TYPE_INT64, CLGPU_TYPE_UINT64, CLGPU_TYPE_FLOAT,  CLGPU_TYPE_DOUBLE,
  };
  return map[type];
}

static int compare_sizes(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

size_t test_tile_sizes(size_t tile, int small, const char *label, size_t *sizes) {
  size_t t = tile;
  test_rng rng;
  test_rng_init(&rng, test_case_seed(label));
  uint64_t limit = small ? 5000 : 70000;
  size_t candidates[] = {
      0,
      1,
      2,
      3,
      7,
      63,
      64,
      65,
      93,
      1000,
      t - 1,
      t,
      t + 1,
      2 * t - 1,
      2 * t + 1,
      4 * t - 1,
      4 * t,
      4 * t + 1,
      4099,
      16383,
      16384,
      16385,
      32767,
      32769,
      65537,
      (size_t)(1 + test_rng_below(&rng, limit)),
      (size_t)(1 + test_rng_below(&rng, limit)),
  };
  size_t count = 0;
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
    if (small && candidates[i] > 5000) continue;
    sizes[count++] = candidates[i];
  }
  qsort(sizes, count, sizeof *sizes, compare_sizes);
  size_t unique = 0;
  for (size_t i = 0; i < count; i++) {
    if (unique == 0 || sizes[unique - 1] != sizes[i]) sizes[unique++] = sizes[i];
  }
  return unique;
}
