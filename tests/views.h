/* Views described on the host, for tests of operations over strided views:
 * where a view's elements sit in a region image, gathering and scattering
 * them in row-major order (the host model's side of a view), and making the
 * device view over a guarded buffer. Also the helpers the operation tests
 * share: random bytes, the Oclgrind check, the size list around a tile. */
#ifndef CLGPU_TEST_VIEWS_H
#define CLGPU_TEST_VIEWS_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/clgpu.h>

#include "data.h"
#include "guard.h"

/* A view inside a region: element (0, ..., 0) is `offset` elements from the
 * region's start. */
typedef struct view_spec {
  size_t offset;
  unsigned rank;
  size_t shape[CLGPU_MAX_RANK];
  ptrdiff_t strides[CLGPU_MAX_RANK];
} view_spec;

size_t spec_count(const view_spec *spec);

/* Place the view in a region so that the lowest element it reaches lies
 * `slack` elements after the region's start and the highest `slack` before
 * its end; returns the region's length in elements. The slack holds bytes
 * an operation must leave alone. */
size_t spec_fit(view_spec *spec, size_t slack);

/* The element that index `index` of the view names, from the region's
 * start. */
size_t spec_position(const view_spec *spec, const size_t *index);

/* Step `index` to the next one in row-major order; 0 after the last. */
int next_index(const view_spec *spec, size_t *index);

/* The view's elements (of `size` bytes) in row-major order, from a region
 * image, into `logical`. */
void gather(const unsigned char *region, const view_spec *spec, size_t size,
            unsigned char *logical);

/* Row-major elements into the view's places in a region image. */
void scatter(unsigned char *region, const view_spec *spec, size_t size,
             const unsigned char *logical);

/* The device view of `spec` over the region of a guarded buffer. */
clgpu_array make_view(const test_guarded *guarded, clgpu_type type, const view_spec *spec);

/* A guarded 1-D view holding host data: `count` elements of `size` bytes
 * at `stride` in a region of their own (the other bytes of the region
 * random, from `seed`), and the region's bytes as written. */
typedef struct test_placed {
  view_spec spec;
  test_guarded guarded;
  clgpu_array view;
  unsigned char *region;
  size_t region_bytes;
} test_placed;
test_placed test_place(clgpu_context *context, const void *data, size_t count, size_t size,
                       clgpu_type type, ptrdiff_t stride, uint64_t seed);
void test_placed_release(test_placed *placed);

/* Fail unless a placed view's region, read back after a call, is as it was
 * placed with the first `count` elements of `expected` (of `size` bytes)
 * scattered into the view (naming `label`, the run seed, `what` and the
 * first differing byte), and its guards are intact. */
void test_placed_check(clgpu_context *context, const test_placed *p, size_t size,
                       const unsigned char *expected, size_t count, const char *label,
                       const char *what);

/* malloc'd random bytes (at least one byte), from a seed. */
unsigned char *random_bytes(size_t bytes, uint64_t seed);

/* Whether the context's device is Oclgrind (tests trim their sizes there). */
int test_on_oclgrind(const clgpu_context *context);

/* The library's type for a test type. */
clgpu_type test_cl_type(test_type type);

/* The sizes docs/testing.md asks for around a tile of `tile` elements (0 to 3,
 * T-1, T, T+1, 2T±1, 4T-1, 4T, 4T+1, the CHUNKED split at 16384, odd and
 * prime sizes up to 65537, and two random sizes seeded from `label`), sorted
 * and without repeats; none above 5000 when `small`. Returns the count (at
 * most 32). */
size_t test_tile_sizes(size_t tile, int small, const char *label, size_t *sizes);

#endif
