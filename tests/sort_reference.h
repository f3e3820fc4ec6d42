/* What the sort tests (test_sort.c, test_segmented_sort.c) share: the key
 * types, the host reference of sort.h's natural order and of comparators
 * over float keys (for data.h's test_stable_permutation), the keys they
 * generate, and the checks of a sort's results in guarded regions.
 *
 * The natural order: integers by value; floats by their bits (test_order_key)
 * with every NaN after +inf whatever its sign (a NaN's image is that of the
 * NaN with its sign bit cleared, so NaNs among themselves go by their bits
 * without the sign), -0 before +0; half the same transform done by hand over
 * 16 bits (+inf is 0x7c00). Descending inverts the image, still stably; a
 * bit range [begin, end) sorts by (image >> begin) & mask, the image
 * inverted first for descending. */
#ifndef CLGPU_TEST_SORT_REFERENCE_H
#define CLGPU_TEST_SORT_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/clgpu.h>

#include "data.h"
#include "guard.h"
#include "views.h"

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

extern const key_type key_types[KEY_TYPE_COUNT];

/* cmocka's state for the per-type tests: key_states[k] is k. */
extern unsigned key_states[KEY_TYPE_COUNT];

/* The unsigned test type of an element size, to move raw bits. */
test_type raw_type(size_t size);

/* Whether a key's bits are a NaN (never for integer keys). */
int bits_are_nan(const key_type *t, uint64_t bits);

/* ---- the host reference ---- */

/* The ascending order key of an element of a test type in sort.h's order:
 * test_order_key, but a NaN's is that of the NaN with its sign bit
 * cleared. */
uint64_t natural_order_key(const void *element, test_type type);

/* The ascending order image of a key's bits (see the top of the file). */
uint64_t order_image(const key_type *t, uint64_t bits);

/* The image a sort orders by: descending inverts it, a bit range takes its
 * bits [begin, end) (begin_bit = end_bit = 0: the whole image). */
uint64_t sort_key(const key_type *t, uint64_t bits, int descending, unsigned begin_bit,
                  unsigned end_bit);

/* The sort_key images of n keys (raw bytes of type t), malloc'd. */
uint64_t *order_keys(const key_type *t, const unsigned char *keys, size_t n, int descending,
                     unsigned begin_bit, unsigned end_bit);

/* `precedes` over order images (a test_precedes_fn for data.h's
 * test_stable_permutation): the context is the uint64_t images. */
int key_precedes(const void *context, size_t a, size_t b);

/* out[i] = in[permutation[i]] for elements of `size` bytes. */
void apply_permutation(const unsigned char *in, const uint32_t *permutation, size_t n, size_t size,
                       unsigned char *out);

/* ---- comparators over float keys ---- */

/* The comparators the tests give, on the float x of element i. */
typedef enum float_compare {
  FLOAT_LESS,      /* "a < b" (and "a.x < b.x" over struct point keys) */
  FLOAT_GREATER,   /* "a > b" */
  FLOAT_FABS_LESS, /* "fabs(a) < fabs(b)" */
} float_compare;

typedef struct float_reference {
  const float *x;
  float_compare compare;
  int descending; /* b precedes a in the comparator's order */
} float_reference;

/* `precedes` under a comparator: the context is a float_reference. */
int float_precedes(const void *context, size_t a, size_t b);

/* The custom key type of the tests: struct { float x; int id; }. */
extern const char point_declarations[];

/* ---- data ---- */

/* The half with a given ascending order key (data.h's transform over 16
 * bits, inverted): keys in order give halves in order. */
uint16_t half_of_order_key(uint64_t key);

/* n keys of type t from a distribution. Half keys come from uint16 data
 * read as order keys, so "sorted" is sorted in half's order too; half's
 * float specials are ±0, ±inf, NaNs of both signs and several payloads,
 * denormals, the smallest normal, ±65504 and ±1 mixed with random bits. */
void generate_keys(const key_type *t, test_distribution distribution, size_t parameter, size_t n,
                   uint64_t seed, unsigned char *out);

/* n floats without NaNs (a comparator over NaNs is no strict weak order):
 * NaNs from the distribution become finite by clearing the exponent's top
 * bit. -0 and +0 stay, and compare equal under "a < b". */
void finite_floats(test_distribution distribution, size_t parameter, size_t n, uint64_t seed,
                   float *out);

/* The input indices 0 to n - 1 as uint32 values (bytes, malloc'd): values
 * that show the order a sort gave equal keys. */
unsigned char *input_indices(size_t n);

/* "name" or "name(parameter)" into `text`, as the cases' labels say it. */
void describe_distribution(test_distribution distribution, size_t parameter, char *text,
                           size_t size);

/* ---- checks ---- */

/* Fail unless n elements equal the expected ones, naming the case, the run
 * seed, the first differing index with both elements' bits, its segment
 * among `offsets` (offset_count of them; NULL for a plain sort) and the
 * input index the reference put there (permutation may be NULL). */
void expect_elements(const unsigned char *actual, const unsigned char *expected, size_t n,
                     size_t size, const uint32_t *permutation, const uint64_t *offsets,
                     size_t offset_count, const char *what, const char *label);

/* Fail unless a whole region equals its model byte for byte (what lies
 * between and around the elements must not change). */
void expect_region(const unsigned char *actual, const unsigned char *model, size_t bytes,
                   const char *what, const char *label);

/* Fail unless a guarded region holds `initial` and its guards are intact. */
void expect_region_unchanged(clgpu_context *context, const test_guarded *region,
                             const unsigned char *initial, const char *what, const char *label);

/* Fail unless a call succeeded, naming its status and message. */
void expect_success(clgpu_status status, const char *label);

/* A user event for a call to wait on when `gated` (else NULL). */
cl_event sort_gate(clgpu_context *context, int gated);

/* After a sort call made with `gate` (sort_gate's) and asked for `event`
 * unless `no_event`: fail unless it succeeded; without an event wait for
 * the queue; with one, fail if the call completed before the gate opened,
 * then open it and wait for the event. Releases both events. */
void finish_sort_call(clgpu_context *context, clgpu_status status, cl_event gate, cl_event event,
                      int no_event, const char *label);

/* ---- guarded placement ---- */

/* A guarded region holding a 1-D view of n elements of `size` bytes with a
 * stride, random bytes elsewhere, the logical elements scattered in. */
typedef struct placed {
  clgpu_context *context;
  view_spec spec;
  size_t size;  /* bytes of one logical element */
  size_t bytes; /* of the region */
  unsigned char *initial;
  test_guarded guarded;
} placed;

/* The elements with `slack` elements of random bytes on both sides (see
 * spec_fit). */
placed place_with_slack(clgpu_context *context, size_t n, size_t size, ptrdiff_t stride,
                        size_t slack, const unsigned char *logical, uint64_t seed);

/* place_with_slack with a slack of 3 elements. */
placed place_elements(clgpu_context *context, size_t n, size_t size, ptrdiff_t stride,
                      const unsigned char *logical, uint64_t seed);

void release_placed(placed *p);

/* The region after the call: fail unless it is `initial` with `expected`
 * scattered in (the logical elements compared first, for a better report,
 * see expect_elements), and the guards intact. With `expected` NULL, as
 * check_outside. */
void check_placed(const placed *p, const unsigned char *expected, size_t n,
                  const uint32_t *permutation, const uint64_t *offsets, size_t offset_count,
                  const char *what, const char *label);

/* The region after a call whose elements mean nothing: every byte that is
 * not one of the view's elements as it was, and the guards intact. */
void check_outside(const placed *p, size_t n, const char *what, const char *label);

/* The device view of values in a guarded region: elements of their own
 * size, or a CLGPU_TYPE_UINT64 view of 2n elements for 16-byte values. */
clgpu_array view_of_values(const test_guarded *guarded, const view_spec *spec, size_t size);

/* view_of_values of a placed region (16-byte values must be contiguous). */
clgpu_array values_view(const placed *p);

/* ---- workspaces and misuse ---- */

/* The buffers sort.h lists for every sort, in its order. */
extern const char *const sort_buffer_names[6];
enum { STAGED_KEYS, STAGED_VALUES, KEYS_ALTERNATE, VALUES_ALTERNATE, COUNTS, PASS_STATE };

clgpu_alloc_stats stats_of(const clgpu_alloc_cache *cache);

/* Whether the cache served or made anything between two snapshots. */
int allocated_between(clgpu_alloc_stats before, clgpu_alloc_stats after);

/* What the misuse tables take besides their regions: a second context, a
 * buffer of it and a user event of the test's context, not set while the
 * rows run. */
typedef struct misuse_others {
  clgpu_context *other_context;
  cl_mem foreign; /* of the other context */
  cl_event user_event;
} misuse_others;

misuse_others misuse_others_make(clgpu_context *context, size_t foreign_bytes);

/* Sets the user event, then releases everything. */
void misuse_others_release(misuse_others *others);

/* Whether a misuse row is left out here, printing why: its `applies` says
 * the device does not take it, or it expects a build failure on Oclgrind,
 * whose --check-api reports every failed build as an error (the reason its
 * setup leaves the 'api' suite out). */
int misuse_row_skipped(const char *name, clgpu_status expected, int (*applies)(void), int oclgrind);

/* Views for the misuse tables (failing the test if the view is refused). */
clgpu_array view_1d(cl_mem buffer, size_t offset, clgpu_type type, size_t n);
clgpu_array view_2d(cl_mem buffer, size_t offset, clgpu_type type, size_t rows, size_t columns);

#endif
