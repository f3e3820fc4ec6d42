/* Host-side test data: element types, a seeded generator, the input
 * distributions of docs/testing.md, host references for sort, scan, reduce and
 * findall, and a comparison that reports a failing case well enough to replay
 * it. Everything works on raw bytes plus a test_type, so one test body can
 * run over every type.
 *
 * The order of floats. Sorting and min/max order a float by its bits, as a
 * radix sort does: the bits of a negative value are all flipped, the sign bit
 * of a positive value is flipped, and the results compare as unsigned
 * integers (test_order_key). That order is
 *   -NaN < -inf < -FLT_MAX < ... < -denormal < -0 < +0 < +denormal < ...
 *   < +FLT_MAX < +inf < +NaN,
 * with NaNs further ordered by payload. It agrees with numeric order on
 * non-NaN values, except that -0 comes before +0. Two keys are equal only
 * when the bits are equal, so "equal keys keep their input order" is about
 * identical bit patterns; -0 and +0, or two NaNs with different payloads, are
 * different keys. */
#ifndef CLGPU_TEST_DATA_H
#define CLGPU_TEST_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "support.h"

/* ---- element types ---- */

typedef enum test_type {
  TEST_INT8,
  TEST_UINT8,
  TEST_INT16,
  TEST_UINT16,
  TEST_INT32,
  TEST_UINT32,
  TEST_INT64,
  TEST_UINT64,
  TEST_FLOAT,
  TEST_DOUBLE,
  TEST_TYPE_COUNT
} test_type;

/* Every type, in the enum's order, for tests that run over all of them. */
extern const test_type test_types[TEST_TYPE_COUNT];

/* Bytes of one element: 1, 2, 4 or 8. */
size_t test_type_size(test_type type);

/* "int8", "uint8", ..., "uint64", "float", "double". */
const char *test_type_name(test_type type);

/* Whether the type is float or double. */
int test_type_is_float(test_type type);

/* Whether the type has negative values: the signed integers, float and
 * double. */
int test_type_is_signed(test_type type);

/* The bits of element `index` of an array of `type`, zero-extended to 64 bits
 * (so an int8 of -1 reads as 0xff). */
uint64_t test_load_bits(const void *array, size_t index, test_type type);

/* Store the low bits of `bits` as element `index`. */
void test_store_bits(void *array, size_t index, test_type type, uint64_t bits);

/* The element's key in the order that the references sort by (see the top of
 * this file): unsigned integers as they are, signed integers with the sign
 * bit flipped, floats as described above. Keys of one type compare as
 * unsigned integers; equal keys mean equal bits. */
uint64_t test_order_key(const void *element, test_type type);

/* Whether a float or double element is a NaN; 0 for integer types. */
int test_is_nan(const void *element, test_type type);

/* malloc'd room for n elements (at least one byte, so n = 0 gives a pointer
 * that can be freed); fails the test when memory runs out. */
void *test_allocate(size_t n, test_type type);

/* ---- a seeded generator ---- */

/* xoshiro256**, seeded through splitmix64: fast, good enough for test data,
 * and the same sequence on every machine, so a seed replays anywhere. */
typedef struct test_rng {
  uint64_t state[4];
} test_rng;

/* The next output of splitmix64 for `*state`, advancing it. Used to seed
 * test_rng and to derive seeds. */
uint64_t test_splitmix64(uint64_t *state);

void test_rng_init(test_rng *rng, uint64_t seed);
uint64_t test_rng_next64(test_rng *rng);

/* A value in [0, bound), every value equally likely (rejection, not a biased
 * modulo). A bound of 0 gives 0. */
uint64_t test_rng_below(test_rng *rng, uint64_t bound);

/* A seed for one case, from a run seed and a label that names the case. The
 * same (seed, label) always gives the same result; different labels give
 * unrelated seeds. */
uint64_t test_derive_seed(uint64_t run_seed, const char *label);

/* test_derive_seed(test_seed(), label). */
uint64_t test_case_seed(const char *label);

/* ---- distributions ---- */

/* The input shapes of docs/testing.md. Unless said otherwise, float and double
 * values are finite (random bit patterns that are not inf or NaN, so every
 * exponent from denormals to FLT_MAX appears); only UNIFORM, ENTROPY_REDUCED
 * and FLOAT_SPECIALS produce infinities and NaNs. "Sorted" is by the order of
 * test_order_key, which for finite floats is numeric order (with -0 before
 * +0). A parameter of 0 means the distribution's default. */
typedef enum test_distribution {
  /* Random bits: floats include NaNs, infinities, denormals and ±0 as often
   * as their bit patterns occur. */
  TEST_UNIFORM,
  /* One random value, n times. */
  TEST_ALL_EQUAL,
  /* Random values, ascending. */
  TEST_SORTED,
  /* Random values, descending. */
  TEST_REVERSE_SORTED,
  /* Ascending, then n/100 random pairs swapped (at least one pair when
   * n >= 2). */
  TEST_SORTED_1PCT_SWAPS,
  /* Ascending to the middle and back down, mirrored: a[i] == a[n-1-i]. */
  TEST_ORGAN_PIPE,
  /* One ascending run of `parameter` random values (default 256), repeated:
   * a[i] == a[i % parameter]. */
  TEST_SAWTOOTH,
  /* `parameter` distinct random values (default 16; at most what the type
   * holds), each appearing at least once when n >= parameter, shuffled. */
  TEST_FEW_UNIQUE,
  /* The AND of `parameter` random words (default 3): 1 is UNIFORM, and each
   * further word halves the expected number of set bits. For floats these
   * are raw bit patterns too. */
  TEST_ENTROPY_REDUCED,
  /* One random value whose top bit (for floats the sign) is random per
   * element. */
  TEST_HIGH_BIT_ONLY,
  /* One random value whose lowest bit is random per element. */
  TEST_LOW_BIT_ONLY,
  /* Random values with the type's lowest and highest values mixed in (about
   * a quarter of the elements; both appear whenever n >= 2). For floats these
   * are -FLT_MAX and +FLT_MAX (or the double ones); infinities belong to
   * FLOAT_SPECIALS. */
  TEST_MIN_MAX_MIXED,
  /* For float and double: ±0, ±inf, quiet and signalling NaNs of both signs
   * and several payloads, ±the smallest and largest denormals, ±the smallest
   * normal, ±FLT_MAX, ±1, and random finite values, shuffled; every special
   * value appears whenever n >= 21. For integer types the same as
   * MIN_MAX_MIXED. */
  TEST_FLOAT_SPECIALS,
  /* Integers drawn from [0, parameter) (default 16, capped at the type's
   * largest value + 1), stored as the type. Float sums of these are exact
   * while they stay below 2^24 (2^53 for double), so scans and reductions of
   * them can be compared bit for bit whatever the order of addition. */
  TEST_SMALL_INTEGERS,
  TEST_DISTRIBUTION_COUNT
} test_distribution;

/* A stable lower-case name: "uniform", "all_equal", "sorted",
 * "reverse_sorted", "sorted_1pct_swaps", "organ_pipe", "sawtooth",
 * "few_unique", "entropy_reduced", "high_bit_only", "low_bit_only",
 * "min_max_mixed", "float_specials", "small_integers". */
const char *test_distribution_name(test_distribution distribution);

/* Whether `parameter` changes the distribution (sawtooth, few unique,
 * entropy reduced, small integers). */
int test_distribution_has_parameter(test_distribution distribution);

/* One distribution with one parameter. */
typedef struct test_distribution_case {
  test_distribution distribution;
  size_t parameter;
} test_distribution_case;

/* Every distribution with the parameters docs/testing.md asks for (sawtooth 256
 * and 257, few unique 2, 16 and 256, entropy reduced 1, 3 and 9, small
 * integers 16), for tests that run over "every distribution". Sawtooth with
 * a kernel's own tile size T and T+1 is the test's to add. */
extern const test_distribution_case test_distribution_cases[];
extern const size_t test_distribution_case_count;

/* Fill `out` with n elements of `type` drawn from `distribution`. The same
 * arguments always give the same bytes; nothing past n elements is written. */
void test_generate(void *out, size_t n, test_type type, test_distribution distribution,
                   uint64_t seed, size_t parameter);

/* ---- host references ---- */

/* Sort n keys of `type` in place by test_order_key, ascending or (when
 * `descending`) descending, stably: equal keys keep their input order in both
 * directions. `values` (NULL for none) holds n elements of `value_size` bytes
 * and moves with its keys. */
void test_reference_sort(void *keys, void *values, size_t value_size, size_t n, test_type type,
                         int descending);

/* Whether element a must come before element b (strictly). */
typedef int (*test_precedes_fn)(const void *context, size_t a, size_t b);

/* The stable sorting permutation of n elements under `precedes`:
 * permutation[i] is the input index of the element at i, equal elements
 * (neither precedes the other) in input order. n must fit in uint32_t. */
void test_stable_permutation(size_t n, test_precedes_fn precedes, const void *context,
                             uint32_t *permutation);

/* The stable sorting permutation: permutation[i] is the input index of the
 * key that test_reference_sort puts at i. n must fit in uint32_t. */
void test_reference_argsort(const void *keys, size_t n, test_type type, int descending,
                            uint32_t *permutation);

/* The prefix sums of n elements, one after another. Integers wrap around at
 * the type's width (no undefined behaviour for signed types); floats add in
 * the type itself, in order, starting from the first element (so a lone -0
 * stays -0). An inclusive scan gives out[i] = in[0] + ... + in[i]; an
 * exclusive one gives out[0] = +0 and out[i] = in[0] + ... + in[i-1]. `out`
 * may be `in`. */
void test_reference_scan(const void *in, void *out, size_t n, test_type type, int inclusive);

/* The sum of n elements into *result (one element of `type`), added as the
 * scan adds them; +0 for n = 0.
 *
 * For float scans and sums: a device that adds in another order rounds
 * differently, and random finite bit patterns (most distributions) overflow
 * to infinities whose sign depends on the order. Compare float sums with a
 * bound, or use TEST_SMALL_INTEGERS, whose sums are exact. Where NaNs meet,
 * which NaN comes out depends on the operand order the compiler or device
 * picks, even here on the host: compare such results with a bound > 0 (any
 * NaN matches any NaN), never bit for bit. */
void test_reference_reduce_sum(const void *in, size_t n, test_type type, void *result);

/* The smallest or largest element by test_order_key, ignoring NaNs: -0 is
 * smaller than +0. When every element is a NaN the result is the NaN that
 * ranks lowest (min) or highest (max) by test_order_key: negative NaNs before
 * positive ones, then by payload, as reduce.h specifies, so the result does
 * not depend on the order of the elements. For n = 0 it is the identity
 * (min: the type's largest value, +inf for floats; max: the lowest, -inf for
 * floats). */
void test_reference_reduce_min(const void *in, size_t n, test_type type, void *result);
void test_reference_reduce_max(const void *in, size_t n, test_type type, void *result);

/* The indices, ascending, of the elements for which `predicate` returns
 * non-zero, written to `indices` (which may be NULL to only count); returns
 * how many there are. */
size_t test_reference_findall(const void *in, size_t n, test_type type,
                              int (*predicate)(const void *element), uint32_t *indices);

/* ---- comparing and reporting ---- */

/* What a failure report names so that the case can be replayed. */
typedef struct test_case {
  const char *operation;
  size_t n;
  test_type type;
  test_distribution distribution;
  size_t parameter;
  uint64_t seed;
} test_case;

/* A case whose seed is test_case_seed() of a label made from all the other
 * fields, so that each case of a run has its own seed and the run seed
 * replays all of them. */
test_case test_make_case(const char *operation, size_t n, test_type type,
                         test_distribution distribution, size_t parameter);

/* "sort n=4099 type=float distribution=sawtooth(257) seed=0x..." into `text`. */
void test_describe_case(const test_case *c, char *text, size_t size);

/* Whether n elements equal the expected ones: integers bit for bit; floats
 * bit for bit when float_bound is 0 (so -0 differs from +0 and NaN payloads
 * count), otherwise a NaN matches any NaN, an infinity only itself, and other
 * values when |actual - expected| <= float_bound * max(1, |expected|).
 * On a mismatch, prints the case (`c` may be NULL), the run seed, the first
 * differing index with both values and their bits, and how many elements
 * differ, then returns 0; returns 1 on a match. */
int test_compare(const void *actual, const void *expected, size_t n, test_type type,
                 double float_bound, const test_case *c);

/* Fail the test unless test_compare matches; the report says what differed. */
#define assert_same(actual, expected, n, type, bound, c)                  \
  do {                                                                    \
    if (!test_compare((actual), (expected), (n), (type), (bound), (c))) { \
      fail();                                                             \
    }                                                                     \
  } while (0)

#endif
