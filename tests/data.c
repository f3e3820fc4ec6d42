/* Host-side test data; see data.h. */
#include "data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- element types ---- */

typedef struct type_facts {
  size_t size;
  const char *name;
  int is_float;
  int is_signed;
} type_facts;

static const type_facts facts_table[TEST_TYPE_COUNT] = {
    [TEST_INT8] = {1, "int8", 0, 1},   [TEST_UINT8] = {1, "uint8", 0, 0},
    [TEST_INT16] = {2, "int16", 0, 1}, [TEST_UINT16] = {2, "uint16", 0, 0},
    [TEST_INT32] = {4, "int32", 0, 1}, [TEST_UINT32] = {4, "uint32", 0, 0},
    [TEST_INT64] = {8, "int64", 0, 1}, [TEST_UINT64] = {8, "uint64", 0, 0},
    [TEST_FLOAT] = {4, "float", 1, 1}, [TEST_DOUBLE] = {8, "double", 1, 1},
};

const test_type test_types[TEST_TYPE_COUNT] = {
    TEST_INT8,   TEST_UINT8, TEST_INT16,  TEST_UINT16, TEST_INT32,
    TEST_UINT32, TEST_INT64, TEST_UINT64, TEST_FLOAT,  TEST_DOUBLE,
};

/* A type outside the enum is a bug in the calling test, caught here rather
 * than read past the table. */
static const type_facts *facts_of(test_type type) {
  if ((unsigned)type >= TEST_TYPE_COUNT) {
    fail_msg("test data: no such type %d", (int)type);
    /* fail_msg returns outside a running test; never index past the table. */
    abort();
  }
  return &facts_table[type];
}

size_t test_type_size(test_type type) { return facts_of(type)->size; }

const char *test_type_name(test_type type) { return facts_of(type)->name; }

int test_type_is_float(test_type type) { return facts_of(type)->is_float; }

int test_type_is_signed(test_type type) { return facts_of(type)->is_signed; }

/* All the bits an element of the type has, as the low bits of a word. */
static uint64_t width_mask(test_type type) {
  size_t size = test_type_size(type);
  return size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1;
}

/* The top bit of an element: the sign of signed integers and floats. */
static uint64_t top_bit(test_type type) { return (uint64_t)1 << (8 * test_type_size(type) - 1); }

/* The bits of +inf; everything above it, sign aside, is a NaN. */
static uint64_t infinity_bits(test_type type) {
  return type == TEST_FLOAT ? UINT64_C(0x7f800000) : UINT64_C(0x7ff0000000000000);
}

static uint64_t largest_finite_bits(test_type type) {
  return type == TEST_FLOAT ? UINT64_C(0x7f7fffff) : UINT64_C(0x7fefffffffffffff);
}

uint64_t test_load_bits(const void *array, size_t index, test_type type) {
  const unsigned char *bytes = (const unsigned char *)array;
  /* Each width is read through its own unsigned type, so the result is the
   * element's value whatever the machine's byte order. */
  switch (test_type_size(type)) {
    case 1: {
      uint8_t value;
      memcpy(&value, bytes + index, sizeof value);
      return value;
    }
    case 2: {
      uint16_t value;
      memcpy(&value, bytes + index * 2, sizeof value);
      return value;
    }
    case 4: {
      uint32_t value;
      memcpy(&value, bytes + index * 4, sizeof value);
      return value;
    }
    default: {
      uint64_t value;
      memcpy(&value, bytes + index * 8, sizeof value);
      return value;
    }
  }
}

void test_store_bits(void *array, size_t index, test_type type, uint64_t bits) {
  unsigned char *bytes = (unsigned char *)array;
  switch (test_type_size(type)) {
    case 1: {
      uint8_t value = (uint8_t)bits;
      memcpy(bytes + index, &value, sizeof value);
      break;
    }
    case 2: {
      uint16_t value = (uint16_t)bits;
      memcpy(bytes + index * 2, &value, sizeof value);
      break;
    }
    case 4: {
      uint32_t value = (uint32_t)bits;
      memcpy(bytes + index * 4, &value, sizeof value);
      break;
    }
    default:
      memcpy(bytes + index * 8, &bits, sizeof bits);
      break;
  }
}

/* The order key of an element's bits; see test_order_key. */
static uint64_t key_of_bits(uint64_t bits, test_type type) {
  uint64_t top = top_bit(type);
  if (test_type_is_float(type)) return (bits & top) ? (~bits & width_mask(type)) : (bits | top);
  if (test_type_is_signed(type)) return bits ^ top;
  return bits;
}

uint64_t test_order_key(const void *element, test_type type) {
  return key_of_bits(test_load_bits(element, 0, type), type);
}

static int bits_are_nan(uint64_t bits, test_type type) {
  if (!test_type_is_float(type)) return 0;
  return (bits & ~top_bit(type)) > infinity_bits(type);
}

static int bits_are_finite(uint64_t bits, test_type type) {
  if (!test_type_is_float(type)) return 1;
  return (bits & ~top_bit(type)) < infinity_bits(type);
}

int test_is_nan(const void *element, test_type type) {
  return bits_are_nan(test_load_bits(element, 0, type), type);
}

/* The type's lowest and highest values in the order of test_order_key, but
 * finite for floats: what MIN_MAX_MIXED mixes in. */
static uint64_t lowest_finite_bits(test_type type) {
  if (test_type_is_float(type)) return largest_finite_bits(type) | top_bit(type);
  return test_type_is_signed(type) ? top_bit(type) : 0;
}

static uint64_t highest_finite_bits(test_type type) {
  if (test_type_is_float(type)) return largest_finite_bits(type);
  return test_type_is_signed(type) ? top_bit(type) - 1 : width_mask(type);
}

static void *allocate_bytes(size_t bytes) {
  void *memory = malloc(bytes ? bytes : 1);
  if (!memory) fail_msg("test data: out of memory allocating %zu bytes", bytes);
  return memory;
}

void *test_allocate(size_t n, test_type type) {
  size_t size = test_type_size(type);
  if (n > SIZE_MAX / size) fail_msg("test data: %zu elements of %zu bytes overflow", n, size);
  return allocate_bytes(n * size);
}

/* ---- the seeded generator ---- */

uint64_t test_splitmix64(uint64_t *state) {
  uint64_t mixed = (*state += UINT64_C(0x9e3779b97f4a7c15));
  mixed = (mixed ^ (mixed >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  mixed = (mixed ^ (mixed >> 27)) * UINT64_C(0x94d049bb133111eb);
  return mixed ^ (mixed >> 31);
}

void test_rng_init(test_rng *rng, uint64_t seed) {
  /* splitmix64 spreads any seed, even 0 or a small counter, over the whole
   * state, and never yields four zero words in a row (xoshiro's one bad
   * state). */
  uint64_t state = seed;
  for (int i = 0; i < 4; i++) rng->state[i] = test_splitmix64(&state);
}

static uint64_t rotate_left(uint64_t word, int shift) {
  return (word << shift) | (word >> (64 - shift));
}

uint64_t test_rng_next64(test_rng *rng) {
  uint64_t *s = rng->state;
  uint64_t result = rotate_left(s[1] * 5, 7) * 9;
  uint64_t shifted = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= shifted;
  s[3] = rotate_left(s[3], 45);
  return result;
}

uint64_t test_rng_below(test_rng *rng, uint64_t bound) {
  if (bound == 0) return 0;
  /* Words below `threshold` would make the low residues one draw more likely
   * than the others; 2^64 - threshold is a multiple of bound, so what is
   * left maps evenly. */
  uint64_t threshold = (0 - bound) % bound;
  for (;;) {
    uint64_t word = test_rng_next64(rng);
    if (word >= threshold) return word % bound;
  }
}

uint64_t test_derive_seed(uint64_t run_seed, const char *label) {
  /* FNV-1a folds the label into a word; splitmix64 then mixes it with the run
   * seed so that neighbouring seeds or labels give unrelated results. */
  uint64_t hash = UINT64_C(0xcbf29ce484222325);
  for (const unsigned char *c = (const unsigned char *)(label ? label : ""); *c; c++) {
    hash = (hash ^ *c) * UINT64_C(0x100000001b3);
  }
  uint64_t state = run_seed;
  state = test_splitmix64(&state) ^ hash;
  return test_splitmix64(&state);
}

uint64_t test_case_seed(const char *label) { return test_derive_seed(test_seed(), label); }

/* ---- distributions ---- */

typedef struct distribution_facts {
  const char *name;
  /* The parameter that 0 stands for; 0 when the parameter means nothing. */
  size_t default_parameter;
} distribution_facts;

static const distribution_facts distribution_table[TEST_DISTRIBUTION_COUNT] = {
    [TEST_UNIFORM] = {"uniform", 0},
    [TEST_ALL_EQUAL] = {"all_equal", 0},
    [TEST_SORTED] = {"sorted", 0},
    [TEST_REVERSE_SORTED] = {"reverse_sorted", 0},
    [TEST_SORTED_1PCT_SWAPS] = {"sorted_1pct_swaps", 0},
    [TEST_ORGAN_PIPE] = {"organ_pipe", 0},
    [TEST_SAWTOOTH] = {"sawtooth", 256},
    [TEST_FEW_UNIQUE] = {"few_unique", 16},
    [TEST_ENTROPY_REDUCED] = {"entropy_reduced", 3},
    [TEST_HIGH_BIT_ONLY] = {"high_bit_only", 0},
    [TEST_LOW_BIT_ONLY] = {"low_bit_only", 0},
    [TEST_MIN_MAX_MIXED] = {"min_max_mixed", 0},
    [TEST_FLOAT_SPECIALS] = {"float_specials", 0},
    [TEST_SMALL_INTEGERS] = {"small_integers", 16},
};

static const distribution_facts *distribution_facts_of(test_distribution distribution) {
  if ((unsigned)distribution >= TEST_DISTRIBUTION_COUNT) {
    fail_msg("test data: no such distribution %d", (int)distribution);
    abort();
  }
  return &distribution_table[distribution];
}

const char *test_distribution_name(test_distribution distribution) {
  return distribution_facts_of(distribution)->name;
}

int test_distribution_has_parameter(test_distribution distribution) {
  return distribution_facts_of(distribution)->default_parameter != 0;
}

const test_distribution_case test_distribution_cases[] = {
    {TEST_UNIFORM, 0},         {TEST_ALL_EQUAL, 0},         {TEST_SORTED, 0},
    {TEST_REVERSE_SORTED, 0},  {TEST_SORTED_1PCT_SWAPS, 0}, {TEST_ORGAN_PIPE, 0},
    {TEST_SAWTOOTH, 256},      {TEST_SAWTOOTH, 257},        {TEST_FEW_UNIQUE, 2},
    {TEST_FEW_UNIQUE, 16},     {TEST_FEW_UNIQUE, 256},      {TEST_ENTROPY_REDUCED, 1},
    {TEST_ENTROPY_REDUCED, 3}, {TEST_ENTROPY_REDUCED, 9},   {TEST_HIGH_BIT_ONLY, 0},
    {TEST_LOW_BIT_ONLY, 0},    {TEST_MIN_MAX_MIXED, 0},     {TEST_FLOAT_SPECIALS, 0},
    {TEST_SMALL_INTEGERS, 16},
};

const size_t test_distribution_case_count =
    sizeof test_distribution_cases / sizeof test_distribution_cases[0];

/* Random bits of the type; for floats, when `finite`, drawn again until they
 * are neither inf nor NaN (1 draw in 256 for float, 1 in 2048 for double). */
static uint64_t random_element(test_rng *rng, test_type type, int finite) {
  for (;;) {
    uint64_t bits = test_rng_next64(rng) & width_mask(type);
    if (!finite || bits_are_finite(bits, type)) return bits;
  }
}

static void fill_random(void *out, size_t n, test_type type, test_rng *rng, int finite) {
  for (size_t i = 0; i < n; i++) test_store_bits(out, i, type, random_element(rng, type, finite));
}

static void swap_elements(void *array, size_t i, size_t j, test_type type) {
  uint64_t first = test_load_bits(array, i, type);
  test_store_bits(array, i, type, test_load_bits(array, j, type));
  test_store_bits(array, j, type, first);
}

static void reverse_elements(void *array, size_t n, test_type type) {
  for (size_t i = 0; i + 1 < n - i; i++) swap_elements(array, i, n - 1 - i, type);
}

/* Fisher-Yates: every order equally likely. */
static void shuffle_elements(void *array, size_t n, test_type type, test_rng *rng) {
  for (size_t i = n; i > 1; i--) swap_elements(array, i - 1, test_rng_below(rng, i), type);
}

/* Two different indices below n (n >= 2), each pair equally likely. */
static void two_indices(test_rng *rng, size_t n, size_t *first, size_t *second) {
  *first = test_rng_below(rng, n);
  *second = test_rng_below(rng, n - 1);
  if (*second >= *first) (*second)++;
}

static int compare_words(const void *a, const void *b) {
  uint64_t left = *(const uint64_t *)a, right = *(const uint64_t *)b;
  return (left > right) - (left < right);
}

/* `count` different random values of the type (finite for floats). */
static uint64_t *distinct_values(test_rng *rng, test_type type, size_t count) {
  uint64_t *values = allocate_bytes(count * sizeof *values);
  size_t size = test_type_size(type);
  if (size <= 2) {
    /* An 8- or 16-bit type may be asked for all of its values, which drawing
     * until unseen would reach only slowly: shuffle the whole range partway
     * instead. (There are no floats this narrow, so every pattern is fine.) */
    size_t total = (size_t)1 << (8 * size);
    uint64_t *all = allocate_bytes(total * sizeof *all);
    for (size_t i = 0; i < total; i++) all[i] = i;
    for (size_t i = 0; i < count; i++) {
      size_t j = i + test_rng_below(rng, total - i);
      uint64_t chosen = all[j];
      all[j] = all[i];
      values[i] = chosen;
    }
    free(all);
    return values;
  }
  /* Wider types rarely repeat a draw: draw, sort, drop repeats, and draw
   * again for the ones dropped until none repeats. */
  size_t unique = 0;
  while (unique < count) {
    for (size_t i = unique; i < count; i++) values[i] = random_element(rng, type, 1);
    qsort(values, count, sizeof *values, compare_words);
    unique = 1;
    for (size_t i = 1; i < count; i++) {
      if (values[i] != values[unique - 1]) values[unique++] = values[i];
    }
  }
  return values;
}

/* The special values FLOAT_SPECIALS mixes in, as bits. */
static const uint64_t float_specials[] = {
    UINT64_C(0x00000000), /* +0 */
    UINT64_C(0x80000000), /* -0 */
    UINT64_C(0x7f800000), /* +inf */
    UINT64_C(0xff800000), /* -inf */
    UINT64_C(0x7fc00000), /* the usual quiet NaN */
    UINT64_C(0xffc00000), /* the same with the sign set */
    UINT64_C(0x7f800001), /* signalling NaN, payload 1 */
    UINT64_C(0xff800001), /* the same, negative */
    UINT64_C(0x7fc12345), /* quiet NaN with a payload */
    UINT64_C(0x7fffffff), /* the largest positive NaN */
    UINT64_C(0xffffffff), /* the largest negative NaN: first in the sort order */
    UINT64_C(0x00000001), /* smallest denormal */
    UINT64_C(0x80000001), /* its negative */
    UINT64_C(0x007fffff), /* largest denormal */
    UINT64_C(0x807fffff), /* its negative */
    UINT64_C(0x00800000), /* FLT_MIN, the smallest normal */
    UINT64_C(0x80800000), /* -FLT_MIN */
    UINT64_C(0x7f7fffff), /* FLT_MAX */
    UINT64_C(0xff7fffff), /* -FLT_MAX */
    UINT64_C(0x3f800000), /* 1 */
    UINT64_C(0xbf800000), /* -1 */
};

/* The same values for double, in the same order. */
static const uint64_t double_specials[] = {
    UINT64_C(0x0000000000000000), UINT64_C(0x8000000000000000), UINT64_C(0x7ff0000000000000),
    UINT64_C(0xfff0000000000000), UINT64_C(0x7ff8000000000000), UINT64_C(0xfff8000000000000),
    UINT64_C(0x7ff0000000000001), UINT64_C(0xfff0000000000001), UINT64_C(0x7ff8000000012345),
    UINT64_C(0x7fffffffffffffff), UINT64_C(0xffffffffffffffff), UINT64_C(0x0000000000000001),
    UINT64_C(0x8000000000000001), UINT64_C(0x000fffffffffffff), UINT64_C(0x800fffffffffffff),
    UINT64_C(0x0010000000000000), UINT64_C(0x8010000000000000), UINT64_C(0x7fefffffffffffff),
    UINT64_C(0xffefffffffffffff), UINT64_C(0x3ff0000000000000), UINT64_C(0xbff0000000000000),
};

#define SPECIAL_COUNT (sizeof float_specials / sizeof float_specials[0])
_Static_assert(sizeof double_specials == sizeof float_specials,
               "float and double specials must pair up");

static void generate_min_max_mixed(void *out, size_t n, test_type type, test_rng *rng) {
  uint64_t lowest = lowest_finite_bits(type), highest = highest_finite_bits(type);
  for (size_t i = 0; i < n; i++) {
    uint64_t choice = test_rng_below(rng, 8);
    uint64_t bits = choice == 0 ? lowest : choice == 1 ? highest : random_element(rng, type, 1);
    test_store_bits(out, i, type, bits);
  }
  /* Chance alone would leave one of them out of small arrays now and then;
   * a test needs both every time. */
  if (n >= 2) {
    size_t first, second;
    two_indices(rng, n, &first, &second);
    test_store_bits(out, first, type, lowest);
    test_store_bits(out, second, type, highest);
  }
}

static void generate_float_specials(void *out, size_t n, test_type type, test_rng *rng) {
  const uint64_t *specials = type == TEST_FLOAT ? float_specials : double_specials;
  /* Every special once (as far as n allows), then half specials and half
   * ordinary values, all shuffled together. */
  for (size_t i = 0; i < n; i++) {
    uint64_t bits;
    if (i < SPECIAL_COUNT) {
      bits = specials[i];
    } else if (test_rng_next64(rng) & 1) {
      bits = specials[test_rng_below(rng, SPECIAL_COUNT)];
    } else {
      bits = random_element(rng, type, 1);
    }
    test_store_bits(out, i, type, bits);
  }
  shuffle_elements(out, n, type, rng);
}

static void generate_few_unique(void *out, size_t n, test_type type, test_rng *rng,
                                size_t parameter) {
  size_t count = parameter;
  size_t size = test_type_size(type);
  if (size <= 2 && count > ((size_t)1 << (8 * size))) count = (size_t)1 << (8 * size);
  /* Values no element would get are not drawn. */
  if (count > n) count = n;
  if (count == 0) return;
  uint64_t *values = distinct_values(rng, type, count);
  for (size_t i = 0; i < n; i++) {
    size_t which = i < count ? i : test_rng_below(rng, count);
    test_store_bits(out, i, type, values[which]);
  }
  free(values);
  shuffle_elements(out, n, type, rng);
}

static void generate_small_integers(void *out, size_t n, test_type type, test_rng *rng,
                                    size_t parameter) {
  uint64_t bound = parameter;
  if (!test_type_is_float(type) && highest_finite_bits(type) < UINT64_MAX &&
      bound > highest_finite_bits(type) + 1) {
    bound = highest_finite_bits(type) + 1;
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t value = test_rng_below(rng, bound);
    uint64_t bits = value;
    if (type == TEST_FLOAT) {
      float real = (float)value;
      uint32_t word;
      memcpy(&word, &real, sizeof word);
      bits = word;
    } else if (type == TEST_DOUBLE) {
      double real = (double)value;
      memcpy(&bits, &real, sizeof bits);
    }
    test_store_bits(out, i, type, bits);
  }
}

void test_generate(void *out, size_t n, test_type type, test_distribution distribution,
                   uint64_t seed, size_t parameter) {
  const distribution_facts *facts = distribution_facts_of(distribution);
  if (parameter == 0) parameter = facts->default_parameter;
  test_rng rng;
  test_rng_init(&rng, seed);
  switch (distribution) {
    case TEST_UNIFORM:
      fill_random(out, n, type, &rng, 0);
      break;
    case TEST_ALL_EQUAL: {
      uint64_t bits = random_element(&rng, type, 1);
      for (size_t i = 0; i < n; i++) test_store_bits(out, i, type, bits);
      break;
    }
    case TEST_SORTED:
    case TEST_REVERSE_SORTED:
    case TEST_SORTED_1PCT_SWAPS:
      fill_random(out, n, type, &rng, 1);
      test_reference_sort(out, NULL, 0, n, type, 0);
      if (distribution == TEST_REVERSE_SORTED) reverse_elements(out, n, type);
      if (distribution == TEST_SORTED_1PCT_SWAPS && n >= 2) {
        size_t swaps = n / 100 ? n / 100 : 1;
        for (size_t s = 0; s < swaps; s++) {
          size_t first, second;
          two_indices(&rng, n, &first, &second);
          swap_elements(out, first, second, type);
        }
      }
      break;
    case TEST_ORGAN_PIPE: {
      size_t half = (n + 1) / 2;
      fill_random(out, half, type, &rng, 1);
      test_reference_sort(out, NULL, 0, half, type, 0);
      for (size_t i = half; i < n; i++) {
        test_store_bits(out, i, type, test_load_bits(out, n - 1 - i, type));
      }
      break;
    }
    case TEST_SAWTOOTH: {
      size_t ramp = parameter < n ? parameter : n;
      fill_random(out, ramp, type, &rng, 1);
      test_reference_sort(out, NULL, 0, ramp, type, 0);
      for (size_t i = ramp; i < n; i++) {
        test_store_bits(out, i, type, test_load_bits(out, i % parameter, type));
      }
      break;
    }
    case TEST_FEW_UNIQUE:
      generate_few_unique(out, n, type, &rng, parameter);
      break;
    case TEST_ENTROPY_REDUCED:
      for (size_t i = 0; i < n; i++) {
        uint64_t bits = UINT64_MAX;
        for (size_t word = 0; word < parameter; word++) bits &= test_rng_next64(&rng);
        test_store_bits(out, i, type, bits);
      }
      break;
    case TEST_HIGH_BIT_ONLY:
    case TEST_LOW_BIT_ONLY: {
      uint64_t bit = distribution == TEST_HIGH_BIT_ONLY ? top_bit(type) : 1;
      /* Finite bits stay finite with the sign or the lowest mantissa bit
       * changed. */
      uint64_t base = random_element(&rng, type, 1) & ~bit;
      for (size_t i = 0; i < n; i++) {
        test_store_bits(out, i, type, (test_rng_next64(&rng) >> 32) & 1 ? base | bit : base);
      }
      break;
    }
    case TEST_FLOAT_SPECIALS:
      if (test_type_is_float(type)) {
        generate_float_specials(out, n, type, &rng);
        break;
      }
      generate_min_max_mixed(out, n, type, &rng);
      break;
    case TEST_MIN_MAX_MIXED:
      generate_min_max_mixed(out, n, type, &rng);
      break;
    case TEST_SMALL_INTEGERS:
      generate_small_integers(out, n, type, &rng, parameter);
      break;
    default:
      fail_msg("test data: no such distribution %d", (int)distribution);
  }
}

/* ---- host references ---- */

/* A bottom-up merge sort of input indices. Taking from the left run unless
 * the right element strictly comes first keeps equal elements in input
 * order. */
void test_stable_permutation(size_t n, test_precedes_fn precedes, const void *context,
                             uint32_t *permutation) {
  uint32_t *scratch = allocate_bytes(n * sizeof *scratch);
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

/* Order keys, and the direction they sort in. */
typedef struct ordered_keys {
  const uint64_t *order;
  int descending;
} ordered_keys;

static int comes_before(const void *context, size_t a, size_t b) {
  const ordered_keys *keys = context;
  uint64_t key = keys->order[a], other = keys->order[b];
  return keys->descending ? key > other : key < other;
}

/* The stable permutation by test_order_key, in either direction. */
static void sort_permutation(const void *keys, size_t n, test_type type, int descending,
                             uint32_t *permutation) {
  if (n == 0) return;
  if (n > UINT32_MAX) fail_msg("test data: %zu elements do not fit a uint32_t permutation", n);
  size_t size = test_type_size(type);
  uint64_t *order = allocate_bytes(n * sizeof *order);
  for (size_t i = 0; i < n; i++) {
    order[i] = test_order_key((const unsigned char *)keys + i * size, type);
  }
  ordered_keys ordered = {order, descending};
  test_stable_permutation(n, comes_before, &ordered, permutation);
  free(order);
}

void test_reference_argsort(const void *keys, size_t n, test_type type, int descending,
                            uint32_t *permutation) {
  sort_permutation(keys, n, type, descending, permutation);
}

/* Rearrange n elements of `size` bytes so that element i is old element
 * permutation[i]. */
static void apply_permutation(void *array, size_t size, size_t n, const uint32_t *permutation) {
  unsigned char *bytes = array;
  unsigned char *copy = allocate_bytes(n * size);
  memcpy(copy, bytes, n * size);
  for (size_t i = 0; i < n; i++) memcpy(bytes + i * size, copy + permutation[i] * size, size);
  free(copy);
}

void test_reference_sort(void *keys, void *values, size_t value_size, size_t n, test_type type,
                         int descending) {
  if (n == 0) return;
  uint32_t *permutation = allocate_bytes(n * sizeof *permutation);
  sort_permutation(keys, n, type, descending, permutation);
  apply_permutation(keys, test_type_size(type), n, permutation);
  if (values && value_size) apply_permutation(values, value_size, n, permutation);
  free(permutation);
}

static float float_of_bits(uint64_t bits) {
  uint32_t word = (uint32_t)bits;
  float value;
  memcpy(&value, &word, sizeof value);
  return value;
}

static uint64_t bits_of_float(float value) {
  uint32_t word;
  memcpy(&word, &value, sizeof word);
  return word;
}

static double double_of_bits(uint64_t bits) {
  double value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

static uint64_t bits_of_double(double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

/* The running sum of a scan or reduction, in the element's own arithmetic:
 * integers in a 64-bit unsigned word that wraps (storing keeps the low bits,
 * which is the sum wrapped at the type's width), floats in float or double.
 * `started` tells the first element apart, so that the sum starts from it
 * rather than from +0 (which would turn a lone -0 into +0). */
typedef struct running_sum {
  test_type type;
  int started;
  uint64_t integer;
  float single;
  double twice;
} running_sum;

static void running_sum_add(running_sum *sum, uint64_t bits) {
  if (sum->type == TEST_FLOAT) {
    float value = float_of_bits(bits);
    sum->single = sum->started ? sum->single + value : value;
  } else if (sum->type == TEST_DOUBLE) {
    double value = double_of_bits(bits);
    sum->twice = sum->started ? sum->twice + value : value;
  } else {
    sum->integer += bits;
  }
  sum->started = 1;
}

static uint64_t running_sum_bits(const running_sum *sum) {
  if (!sum->started) return 0;
  if (sum->type == TEST_FLOAT) return bits_of_float(sum->single);
  if (sum->type == TEST_DOUBLE) return bits_of_double(sum->twice);
  return sum->integer & width_mask(sum->type);
}

void test_reference_scan(const void *in, void *out, size_t n, test_type type, int inclusive) {
  running_sum sum = {type, 0, 0, 0.0f, 0.0};
  for (size_t i = 0; i < n; i++) {
    /* Read before writing: `out` may be `in`. */
    uint64_t bits = test_load_bits(in, i, type);
    if (inclusive) {
      running_sum_add(&sum, bits);
      test_store_bits(out, i, type, running_sum_bits(&sum));
    } else {
      test_store_bits(out, i, type, running_sum_bits(&sum));
      running_sum_add(&sum, bits);
    }
  }
}

void test_reference_reduce_sum(const void *in, size_t n, test_type type, void *result) {
  running_sum sum = {type, 0, 0, 0.0f, 0.0};
  for (size_t i = 0; i < n; i++) running_sum_add(&sum, test_load_bits(in, i, type));
  test_store_bits(result, 0, type, running_sum_bits(&sum));
}

static void reduce_extreme(const void *in, size_t n, test_type type, void *result,
                           int want_largest) {
  if (n == 0) {
    uint64_t identity;
    if (test_type_is_float(type)) {
      identity = infinity_bits(type) | (want_largest ? top_bit(type) : 0);
    } else {
      identity = want_largest ? lowest_finite_bits(type) : highest_finite_bits(type);
    }
    test_store_bits(result, 0, type, identity);
    return;
  }
  /* The best non-NaN element, and apart from it the best NaN, which is the
   * result only when every element is a NaN: both are the extreme of their
   * set by test_order_key, so the result does not depend on the order of the
   * elements. */
  int found = 0, found_nan = 0;
  uint64_t best = 0, best_key = 0, best_nan = 0, best_nan_key = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t bits = test_load_bits(in, i, type);
    uint64_t key = key_of_bits(bits, type);
    if (bits_are_nan(bits, type)) {
      if (!found_nan || (want_largest ? key > best_nan_key : key < best_nan_key)) {
        best_nan = bits;
        best_nan_key = key;
        found_nan = 1;
      }
      continue;
    }
    if (!found || (want_largest ? key > best_key : key < best_key)) {
      best = bits;
      best_key = key;
      found = 1;
    }
  }
  test_store_bits(result, 0, type, found ? best : best_nan);
}

void test_reference_reduce_min(const void *in, size_t n, test_type type, void *result) {
  reduce_extreme(in, n, type, result, 0);
}

void test_reference_reduce_max(const void *in, size_t n, test_type type, void *result) {
  reduce_extreme(in, n, type, result, 1);
}

size_t test_reference_findall(const void *in, size_t n, test_type type,
                              int (*predicate)(const void *element), uint32_t *indices) {
  size_t size = test_type_size(type), count = 0;
  for (size_t i = 0; i < n; i++) {
    if (!predicate((const unsigned char *)in + i * size)) continue;
    if (indices) indices[count] = (uint32_t)i;
    count++;
  }
  return count;
}

/* ---- comparing and reporting ---- */

test_case test_make_case(const char *operation, size_t n, test_type type,
                         test_distribution distribution, size_t parameter) {
  char label[256];
  snprintf(label, sizeof label, "%s/%zu/%s/%s/%zu", operation ? operation : "", n,
           test_type_name(type), test_distribution_name(distribution), parameter);
  test_case c = {operation, n, type, distribution, parameter, test_case_seed(label)};
  return c;
}

void test_describe_case(const test_case *c, char *text, size_t size) {
  if (!c) {
    snprintf(text, size, "(no case given)");
    return;
  }
  char distribution[64];
  if (test_distribution_has_parameter(c->distribution) || c->parameter != 0) {
    snprintf(distribution, sizeof distribution, "%s(%zu)", test_distribution_name(c->distribution),
             c->parameter);
  } else {
    snprintf(distribution, sizeof distribution, "%s", test_distribution_name(c->distribution));
  }
  snprintf(text, size, "%s n=%zu type=%s distribution=%s seed=0x%016llx",
           c->operation ? c->operation : "?", c->n, test_type_name(c->type), distribution,
           (unsigned long long)c->seed);
}

/* Whether one element matches under the rules of test_compare. */
static int element_matches(uint64_t actual, uint64_t expected, test_type type, double float_bound) {
  if (actual == expected) return 1;
  if (!test_type_is_float(type) || float_bound == 0) return 0;
  int actual_nan = bits_are_nan(actual, type), expected_nan = bits_are_nan(expected, type);
  if (actual_nan || expected_nan) return actual_nan && expected_nan;
  /* Unequal bits with an infinity on either side: not the same infinity. */
  if (!bits_are_finite(actual, type) || !bits_are_finite(expected, type)) return 0;
  double a = type == TEST_FLOAT ? float_of_bits(actual) : double_of_bits(actual);
  double e = type == TEST_FLOAT ? float_of_bits(expected) : double_of_bits(expected);
  /* a - e may overflow to inf for doubles far apart, which fails as it
   * should. */
  return fabs(a - e) <= float_bound * fmax(1.0, fabs(e));
}

/* An element's value for a report: signed or unsigned integer, or a float
 * with all its digits. */
static void describe_value(uint64_t bits, test_type type, char *text, size_t size) {
  if (type == TEST_FLOAT) {
    snprintf(text, size, "%.9g", (double)float_of_bits(bits));
  } else if (type == TEST_DOUBLE) {
    snprintf(text, size, "%.17g", double_of_bits(bits));
  } else if (test_type_is_signed(type) && (bits & top_bit(type))) {
    /* Negate within unsigned arithmetic, so even the minimum prints without
     * an overflowing conversion. */
    snprintf(text, size, "-%llu", (unsigned long long)((~bits & width_mask(type)) + 1));
  } else {
    snprintf(text, size, "%llu", (unsigned long long)bits);
  }
}

int test_compare(const void *actual, const void *expected, size_t n, test_type type,
                 double float_bound, const test_case *c) {
  size_t differing = 0, first = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t a = test_load_bits(actual, i, type), e = test_load_bits(expected, i, type);
    if (element_matches(a, e, type, float_bound)) continue;
    if (differing == 0) first = i;
    differing++;
  }
  if (differing == 0) return 1;

  char description[512], actual_text[64], expected_text[64];
  test_describe_case(c, description, sizeof description);
  uint64_t a = test_load_bits(actual, first, type), e = test_load_bits(expected, first, type);
  describe_value(a, type, actual_text, sizeof actual_text);
  describe_value(e, type, expected_text, sizeof expected_text);
  int digits = (int)(2 * test_type_size(type));
  uint64_t run_seed = test_seed();
  print_error("mismatch: %s\n", description);
  print_error(
      "  compared n=%zu type=%s, float bound %g; run seed %llu "
      "(CLGPU_TEST_SEED=%llu replays it)\n",
      n, test_type_name(type), float_bound, (unsigned long long)run_seed,
      (unsigned long long)run_seed);
  print_error("  first difference at index %zu: actual %s (0x%0*llx), expected %s (0x%0*llx)\n",
              first, actual_text, digits, (unsigned long long)a, expected_text, digits,
              (unsigned long long)e);
  print_error("  %zu of %zu elements differ\n", differing, n);
  return 0;
}
