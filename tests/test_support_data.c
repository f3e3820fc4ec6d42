/* The test data library (tests/data.c) does what data.h says: the generator
 * is the published algorithm and replays, every distribution has its shape
 * for every type and size and writes exactly n elements, the references sort
 * stably in the documented float order, scan, reduce and find as documented,
 * and the comparison catches what it claims to catch. Every later test trusts
 * these helpers, so they are checked against hand-computed values and
 * properties, never against themselves. */
#include "data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t sizes[] = {0, 1, 2, 3, 1000, 4099};
#define SIZE_COUNT (sizeof sizes / sizeof sizes[0])

/* Bytes past the end of every generated array, to catch a write past n. */
#define GUARD_BYTES 64

/* ---- small helpers of these tests ---- */

static const unsigned char *element_at(const void *array, size_t index, test_type type) {
  return (const unsigned char *)array + index * test_type_size(type);
}

static uint64_t key_at(const void *array, size_t index, test_type type) {
  return test_order_key(element_at(array, index, type), type);
}

/* An array of n elements with GUARD_BYTES after it, all bytes `fill`. */
static unsigned char *guarded_array(size_t n, test_type type, unsigned char fill) {
  size_t bytes = n * test_type_size(type) + GUARD_BYTES;
  unsigned char *array = malloc(bytes);
  assert_non_null(array);
  memset(array, fill, bytes);
  return array;
}

static void assert_guard_intact(const unsigned char *array, size_t n, test_type type,
                                unsigned char fill, const char *what) {
  const unsigned char *guard = array + n * test_type_size(type);
  for (size_t i = 0; i < GUARD_BYTES; i++) {
    if (guard[i] != fill) fail_msg("%s: byte %zu past the end was written", what, i);
  }
}

/* A generated array, owned by the caller. */
static void *generated(size_t n, test_type type, test_distribution distribution, uint64_t seed,
                       size_t parameter) {
  void *array = test_allocate(n, type);
  test_generate(array, n, type, distribution, seed, parameter);
  return array;
}

/* How many different bit patterns the array holds. */
static size_t distinct_count(const void *array, size_t n, test_type type) {
  if (n == 0) return 0;
  void *copy = test_allocate(n, type);
  memcpy(copy, array, n * test_type_size(type));
  test_reference_sort(copy, NULL, 0, n, type, 0);
  size_t count = 1;
  for (size_t i = 1; i < n; i++) {
    if (test_load_bits(copy, i, type) != test_load_bits(copy, i - 1, type)) count++;
  }
  free(copy);
  return count;
}

static size_t count_bits(uint64_t word) {
  size_t count = 0;
  for (; word; word &= word - 1) count++;
  return count;
}

static size_t set_bits_in(const void *array, size_t n, test_type type) {
  size_t total = 0;
  for (size_t i = 0; i < n; i++) total += count_bits(test_load_bits(array, i, type));
  return total;
}

/* Whether some element has exactly these bits. */
static int holds_bits(const void *array, size_t n, test_type type, uint64_t bits) {
  for (size_t i = 0; i < n; i++) {
    if (test_load_bits(array, i, type) == bits) return 1;
  }
  return 0;
}

static int holds_nan(const void *array, size_t n, test_type type, int negative) {
  uint64_t sign = (uint64_t)1 << (8 * test_type_size(type) - 1);
  for (size_t i = 0; i < n; i++) {
    uint64_t bits = test_load_bits(array, i, type);
    if (test_is_nan(element_at(array, i, type), type) && !!(bits & sign) == negative) return 1;
  }
  return 0;
}

static uint64_t float_bits(float value) {
  uint32_t word;
  memcpy(&word, &value, sizeof word);
  return word;
}

static uint64_t double_bits(double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

/* Same bits, or both NaNs: which NaN a float addition of two NaNs gives
 * depends on the operand order the compiler picks (x86 keeps the first), so
 * two sums of the same NaNs may differ in payload. */
static int same_or_both_nan(const void *a, const void *b, test_type type) {
  if (test_is_nan(a, type) && test_is_nan(b, type)) return 1;
  return test_load_bits(a, 0, type) == test_load_bits(b, 0, type);
}

/* An element as a double: exact for every type in these tests' ranges. */
static double value_at(const void *array, size_t index, test_type type) {
  const unsigned char *element = element_at(array, index, type);
  if (type == TEST_FLOAT) {
    float single;
    memcpy(&single, element, sizeof single);
    return single;
  }
  if (type == TEST_DOUBLE) {
    double twice;
    memcpy(&twice, element, sizeof twice);
    return twice;
  }
  return (double)test_load_bits(array, index, type);
}

/* ---- the generator ---- */

static void splitmix64_gives_its_published_outputs(void **state) {
  (void)state;
  /* The first outputs from state 0, as the algorithm's reference
   * implementation prints them. */
  uint64_t counter = 0;
  assert_int_equal(test_splitmix64(&counter), UINT64_C(0xe220a8397b1dcdaf));
  assert_int_equal(test_splitmix64(&counter), UINT64_C(0x6e789e6aa1b965f4));
}

static void xoshiro_steps_as_computed_by_hand(void **state) {
  (void)state;
  /* From state {1, 2, 3, 4}: the first output is rotl(2 * 5, 7) * 9 = 11520;
   * the step leaves s[1] = 2 ^ (3 ^ 1) = 0, so the second output is 0. */
  test_rng rng = {{1, 2, 3, 4}};
  assert_int_equal(test_rng_next64(&rng), 11520);
  assert_int_equal(rng.state[0], 1 ^ (4 ^ 2));
  assert_int_equal(rng.state[1], 0);
  assert_int_equal(rng.state[2], (3 ^ 1) ^ (2 << 17));
  assert_int_equal(test_rng_next64(&rng), 0);
}

static void rng_replays_a_seed_and_differs_for_another(void **state) {
  (void)state;
  uint64_t seed = test_case_seed("rng replay");
  test_rng first, again, other;
  test_rng_init(&first, seed);
  test_rng_init(&again, seed);
  test_rng_init(&other, seed + 1);
  int differs = 0;
  for (int i = 0; i < 100; i++) {
    uint64_t word = test_rng_next64(&first);
    assert_int_equal(word, test_rng_next64(&again));
    if (word != test_rng_next64(&other)) differs = 1;
  }
  assert_true(differs);
}

static void rng_below_stays_in_range_and_spreads_evenly(void **state) {
  (void)state;
  test_rng rng;
  test_rng_init(&rng, test_case_seed("rng below"));
  assert_int_equal(test_rng_below(&rng, 0), 0);
  for (int i = 0; i < 100; i++) assert_int_equal(test_rng_below(&rng, 1), 0);
  /* A bound just above 2^63 rejects almost half the words: still in range. */
  uint64_t huge = (UINT64_C(1) << 63) + 1;
  for (int i = 0; i < 100; i++) assert_true(test_rng_below(&rng, huge) < huge);

  /* 100000 draws below 10: each count's standard deviation is about 95, so
   * a count off by 800 would be an 8-sigma event, not bad luck. */
  size_t counts[10] = {0};
  for (int i = 0; i < 100000; i++) {
    uint64_t value = test_rng_below(&rng, 10);
    assert_true(value < 10);
    counts[value]++;
  }
  for (int i = 0; i < 10; i++) {
    if (counts[i] < 9200 || counts[i] > 10800) {
      fail_msg("value %d drawn %zu times of 100000, expected about 10000", i, counts[i]);
    }
  }
}

static void derived_seeds_depend_on_both_run_seed_and_label(void **state) {
  (void)state;
  assert_int_equal(test_derive_seed(42, "sort/1000"), test_derive_seed(42, "sort/1000"));
  assert_int_not_equal(test_derive_seed(42, "sort/1000"), test_derive_seed(42, "sort/1001"));
  assert_int_not_equal(test_derive_seed(42, "sort/1000"), test_derive_seed(43, "sort/1000"));
  assert_int_equal(test_case_seed("a label"), test_derive_seed(test_seed(), "a label"));

  test_case c = test_make_case("sort", 4099, TEST_FLOAT, TEST_SAWTOOTH, 257);
  test_case same = test_make_case("sort", 4099, TEST_FLOAT, TEST_SAWTOOTH, 257);
  test_case other = test_make_case("sort", 4099, TEST_FLOAT, TEST_SAWTOOTH, 256);
  assert_int_equal(c.seed, same.seed);
  assert_int_not_equal(c.seed, other.seed);
  char text[256];
  test_describe_case(&c, text, sizeof text);
  assert_non_null(strstr(text, "sort"));
  assert_non_null(strstr(text, "n=4099"));
  assert_non_null(strstr(text, "type=float"));
  assert_non_null(strstr(text, "sawtooth(257)"));
  assert_non_null(strstr(text, "seed=0x"));
}

/* ---- types ---- */

static void type_facts_are_right(void **state) {
  (void)state;
  static const struct {
    test_type type;
    size_t size;
    const char *name;
    int is_float, is_signed;
  } expected[TEST_TYPE_COUNT] = {
      {TEST_INT8, 1, "int8", 0, 1},   {TEST_UINT8, 1, "uint8", 0, 0},
      {TEST_INT16, 2, "int16", 0, 1}, {TEST_UINT16, 2, "uint16", 0, 0},
      {TEST_INT32, 4, "int32", 0, 1}, {TEST_UINT32, 4, "uint32", 0, 0},
      {TEST_INT64, 8, "int64", 0, 1}, {TEST_UINT64, 8, "uint64", 0, 0},
      {TEST_FLOAT, 4, "float", 1, 1}, {TEST_DOUBLE, 8, "double", 1, 1},
  };
  for (size_t i = 0; i < TEST_TYPE_COUNT; i++) {
    assert_int_equal(test_types[i], expected[i].type);
    assert_int_equal(test_type_size(expected[i].type), expected[i].size);
    assert_string_equal(test_type_name(expected[i].type), expected[i].name);
    assert_int_equal(test_type_is_float(expected[i].type), expected[i].is_float);
    assert_int_equal(test_type_is_signed(expected[i].type), expected[i].is_signed);
  }
}

static void bits_load_and_store_as_the_native_types(void **state) {
  (void)state;
  int8_t small[2] = {0, -1};
  assert_int_equal(test_load_bits(small, 1, TEST_INT8), 0xff);
  int16_t medium[2] = {0, -2};
  assert_int_equal(test_load_bits(medium, 1, TEST_INT16), 0xfffe);
  uint32_t word[3] = {0};
  test_store_bits(word, 2, TEST_UINT32, UINT64_C(0x1234567890));
  assert_int_equal(word[2], 0x34567890);
  assert_int_equal(word[1], 0);
  double real[1] = {-2.5};
  assert_int_equal(test_load_bits(real, 0, TEST_DOUBLE), double_bits(-2.5));
}

static void order_keys_follow_numeric_order(void **state) {
  (void)state;
  int32_t signed_values[] = {INT32_MIN, -1, 0, 1, INT32_MAX};
  for (size_t i = 0; i + 1 < 5; i++) {
    assert_true(key_at(signed_values, i, TEST_INT32) < key_at(signed_values, i + 1, TEST_INT32));
  }
  uint16_t unsigned_values[] = {0, 1, 0x8000, 0xffff};
  for (size_t i = 0; i + 1 < 4; i++) {
    assert_true(key_at(unsigned_values, i, TEST_UINT16) <
                key_at(unsigned_values, i + 1, TEST_UINT16));
  }
  /* The documented float order, written out as bits. */
  uint32_t floats[] = {0xffc00000, 0xff800000, 0xff7fffff, 0xbf800000, 0x80000001, 0x80000000,
                       0x00000000, 0x00000001, 0x3f800000, 0x7f7fffff, 0x7f800000, 0x7fc00000};
  for (size_t i = 0; i + 1 < sizeof floats / sizeof floats[0]; i++) {
    assert_true(key_at(floats, i, TEST_FLOAT) < key_at(floats, i + 1, TEST_FLOAT));
  }
  double doubles[] = {-1e300, -1.0, -0.0, 0.0, 5e-324, 1.0, 1e300};
  for (size_t i = 0; i + 1 < sizeof doubles / sizeof doubles[0]; i++) {
    assert_true(key_at(doubles, i, TEST_DOUBLE) < key_at(doubles, i + 1, TEST_DOUBLE));
  }
}

/* ---- distributions ---- */

static void distribution_names_are_stable_and_the_list_is_complete(void **state) {
  (void)state;
  static const char *const names[TEST_DISTRIBUTION_COUNT] = {
      "uniform",      "all_equal",     "sorted",         "reverse_sorted",  "sorted_1pct_swaps",
      "organ_pipe",   "sawtooth",      "few_unique",     "entropy_reduced", "high_bit_only",
      "low_bit_only", "min_max_mixed", "float_specials", "small_integers",
  };
  int listed[TEST_DISTRIBUTION_COUNT] = {0};
  for (size_t i = 0; i < test_distribution_case_count; i++) {
    listed[test_distribution_cases[i].distribution] = 1;
  }
  for (int d = 0; d < TEST_DISTRIBUTION_COUNT; d++) {
    assert_string_equal(test_distribution_name((test_distribution)d), names[d]);
    if (!listed[d]) fail_msg("distribution %s is not in the list", names[d]);
  }
  /* The parameters docs/testing.md names are all there. */
  static const test_distribution_case required[] = {
      {TEST_SAWTOOTH, 256},      {TEST_SAWTOOTH, 257},      {TEST_FEW_UNIQUE, 2},
      {TEST_FEW_UNIQUE, 16},     {TEST_FEW_UNIQUE, 256},    {TEST_ENTROPY_REDUCED, 1},
      {TEST_ENTROPY_REDUCED, 3}, {TEST_ENTROPY_REDUCED, 9},
  };
  for (size_t r = 0; r < sizeof required / sizeof required[0]; r++) {
    int found = 0;
    for (size_t i = 0; i < test_distribution_case_count; i++) {
      found |= test_distribution_cases[i].distribution == required[r].distribution &&
               test_distribution_cases[i].parameter == required[r].parameter;
    }
    if (!found) {
      fail_msg("%s(%zu) is not in the list", test_distribution_name(required[r].distribution),
               required[r].parameter);
    }
  }
}

static void every_generator_writes_exactly_n_elements_and_replays(void **state) {
  (void)state;
  for (size_t t = 0; t < TEST_TYPE_COUNT; t++) {
    test_type type = test_types[t];
    size_t size = test_type_size(type);
    for (size_t d = 0; d < test_distribution_case_count; d++) {
      test_distribution distribution = test_distribution_cases[d].distribution;
      size_t parameter = test_distribution_cases[d].parameter;
      for (size_t s = 0; s < SIZE_COUNT; s++) {
        size_t n = sizes[s];
        test_case c = test_make_case("generate", n, type, distribution, parameter);
        char what[256];
        test_describe_case(&c, what, sizeof what);
        /* Two arrays prefilled with different bytes: if the same seed gives
         * the same bytes in both, every one of the n elements was written. */
        unsigned char *first = guarded_array(n, type, 0xa5);
        unsigned char *second = guarded_array(n, type, 0x5a);
        test_generate(first, n, type, distribution, c.seed, parameter);
        test_generate(second, n, type, distribution, c.seed, parameter);
        assert_guard_intact(first, n, type, 0xa5, what);
        assert_guard_intact(second, n, type, 0x5a, what);
        if (memcmp(first, second, n * size) != 0) {
          fail_msg("%s: not every element written, or the same seed gave different data", what);
        }
        /* Every distribution draws something at random, so another seed
         * changes a large array; eight tries make a coincidence (an int8
         * all_equal landing on the same value) vanishingly rare. */
        if (n >= 1000) {
          int differs = 0;
          for (uint64_t other = 1; other <= 8 && !differs; other++) {
            test_generate(second, n, type, distribution, c.seed + other, parameter);
            differs = memcmp(first, second, n * size) != 0;
          }
          if (!differs) fail_msg("%s: eight other seeds all gave the same data", what);
        }
        free(first);
        free(second);
      }
    }
  }
}

/* Whether the array is ascending (or descending) by the order keys. */
static void assert_ordered(const void *array, size_t n, test_type type, int descending,
                           const char *what) {
  for (size_t i = 1; i < n; i++) {
    uint64_t before = key_at(array, i - 1, type), after = key_at(array, i, type);
    if (descending ? before < after : before > after) {
      fail_msg("%s %s: elements %zu and %zu are out of order", what, test_type_name(type), i - 1,
               i);
    }
  }
}

static void assert_all_finite(const void *array, size_t n, test_type type, const char *what) {
  if (!test_type_is_float(type)) return;
  uint64_t magnitude = ((uint64_t)1 << (8 * test_type_size(type) - 1)) - 1;
  uint64_t infinity = type == TEST_FLOAT ? 0x7f800000 : UINT64_C(0x7ff0000000000000);
  for (size_t i = 0; i < n; i++) {
    if ((test_load_bits(array, i, type) & magnitude) >= infinity) {
      fail_msg("%s %s: element %zu is not finite", what, test_type_name(type), i);
    }
  }
}

static void ordered_distributions_have_their_shapes(void **state) {
  (void)state;
  for (size_t t = 0; t < TEST_TYPE_COUNT; t++) {
    test_type type = test_types[t];
    for (size_t s = 0; s < SIZE_COUNT; s++) {
      size_t n = sizes[s];
      uint64_t seed = test_make_case("shapes", n, type, TEST_SORTED, 0).seed;

      void *sorted = generated(n, type, TEST_SORTED, seed, 0);
      assert_ordered(sorted, n, type, 0, "sorted");
      assert_all_finite(sorted, n, type, "sorted");

      void *reverse = generated(n, type, TEST_REVERSE_SORTED, seed, 0);
      assert_ordered(reverse, n, type, 1, "reverse_sorted");
      assert_all_finite(reverse, n, type, "reverse_sorted");

      /* The swapped array holds the same values as the sorted one from the
       * same seed, and at most two elements move per swap (n/100 swaps, at
       * least one). */
      void *swapped = generated(n, type, TEST_SORTED_1PCT_SWAPS, seed, 0);
      size_t moved = 0;
      for (size_t i = 0; i < n; i++) {
        moved += test_load_bits(swapped, i, type) != test_load_bits(sorted, i, type);
      }
      size_t swaps = n >= 2 ? (n / 100 ? n / 100 : 1) : 0;
      assert_true(moved <= 2 * swaps);
      if (n >= 1000) assert_true(moved > 0);
      test_reference_sort(swapped, NULL, 0, n, type, 0);
      assert_memory_equal(swapped, sorted, n * test_type_size(type));

      void *pipe = generated(n, type, TEST_ORGAN_PIPE, seed, 0);
      for (size_t i = 0; i < n; i++) {
        assert_int_equal(test_load_bits(pipe, i, type), test_load_bits(pipe, n - 1 - i, type));
      }
      assert_ordered(pipe, (n + 1) / 2, type, 0, "organ_pipe's first half");
      assert_all_finite(pipe, n, type, "organ_pipe");

      static const size_t periods[] = {256, 257, 7, 1};
      for (size_t p = 0; p < sizeof periods / sizeof periods[0]; p++) {
        size_t period = periods[p];
        void *saw = generated(n, type, TEST_SAWTOOTH, seed, period);
        for (size_t i = 0; i < n; i++) {
          assert_int_equal(test_load_bits(saw, i, type), test_load_bits(saw, i % period, type));
        }
        assert_ordered(saw, n < period ? n : period, type, 0, "sawtooth's first period");
        assert_all_finite(saw, n, type, "sawtooth");
        free(saw);
      }

      void *equal = generated(n, type, TEST_ALL_EQUAL, seed, 0);
      for (size_t i = 1; i < n; i++) {
        assert_int_equal(test_load_bits(equal, i, type), test_load_bits(equal, 0, type));
      }
      assert_all_finite(equal, n, type, "all_equal");

      free(sorted);
      free(reverse);
      free(swapped);
      free(pipe);
      free(equal);
    }
  }
}

static void few_unique_has_that_many_values(void **state) {
  (void)state;
  static const size_t parameters[] = {2, 16, 256};
  for (size_t t = 0; t < TEST_TYPE_COUNT; t++) {
    test_type type = test_types[t];
    for (size_t p = 0; p < sizeof parameters / sizeof parameters[0]; p++) {
      for (size_t s = 0; s < SIZE_COUNT; s++) {
        size_t n = sizes[s], parameter = parameters[p];
        uint64_t seed = test_make_case("few", n, type, TEST_FEW_UNIQUE, parameter).seed;
        void *array = generated(n, type, TEST_FEW_UNIQUE, seed, parameter);
        size_t distinct = distinct_count(array, n, type);
        /* At most `parameter` values, and each of them used once n allows. */
        size_t expected = n < parameter ? n : parameter;
        if (distinct != expected) {
          fail_msg("few_unique(%zu) %s n=%zu: %zu distinct values, expected %zu", parameter,
                   test_type_name(type), n, distinct, expected);
        }
        assert_all_finite(array, n, type, "few_unique");
        free(array);
      }
    }
  }
}

static void single_bit_distributions_vary_only_that_bit(void **state) {
  (void)state;
  for (size_t t = 0; t < TEST_TYPE_COUNT; t++) {
    test_type type = test_types[t];
    uint64_t top = (uint64_t)1 << (8 * test_type_size(type) - 1);
    for (size_t s = 0; s < SIZE_COUNT; s++) {
      size_t n = sizes[s];
      for (int high = 0; high < 2; high++) {
        test_distribution distribution = high ? TEST_HIGH_BIT_ONLY : TEST_LOW_BIT_ONLY;
        uint64_t bit = high ? top : 1;
        uint64_t seed = test_make_case("bits", n, type, distribution, 0).seed;
        void *array = generated(n, type, distribution, seed, 0);
        int with_bit = 0, without_bit = 0;
        for (size_t i = 0; i < n; i++) {
          uint64_t bits = test_load_bits(array, i, type);
          if ((bits & ~bit) != (test_load_bits(array, 0, type) & ~bit)) {
            fail_msg("%s %s n=%zu: element %zu differs outside the varying bit",
                     test_distribution_name(distribution), test_type_name(type), n, i);
          }
          if (bits & bit) {
            with_bit = 1;
          } else {
            without_bit = 1;
          }
        }
        /* With 100 or more fair coin flips both sides appear. */
        if (n >= 100) assert_true(with_bit && without_bit);
        assert_all_finite(array, n, type, test_distribution_name(distribution));
        free(array);
      }
    }
  }
}

static void nine_word_entropy_reduction_clears_most_bits(void **state) {
  (void)state;
  for (size_t t = 0; t < TEST_TYPE_COUNT; t++) {
    test_type type = test_types[t];
    size_t n = 4099;
    uint64_t seed = test_make_case("entropy", n, type, TEST_ENTROPY_REDUCED, 9).seed;
    void *uniform = generated(n, type, TEST_UNIFORM, seed, 0);
    void *one = generated(n, type, TEST_ENTROPY_REDUCED, seed, 1);
    void *three = generated(n, type, TEST_ENTROPY_REDUCED, seed, 3);
    void *nine = generated(n, type, TEST_ENTROPY_REDUCED, seed, 9);
    size_t bits = 8 * test_type_size(type) * n;
    /* Expected set bits: a half of all bits for 1 word, an eighth for 3,
     * 1/512 for 9. The bounds leave wide room for chance. */
    size_t uniform_bits = set_bits_in(uniform, n, type);
    size_t one_bits = set_bits_in(one, n, type);
    size_t three_bits = set_bits_in(three, n, type);
    size_t nine_bits = set_bits_in(nine, n, type);
    assert_true(uniform_bits > bits * 4 / 10 && uniform_bits < bits * 6 / 10);
    assert_true(one_bits > bits * 4 / 10 && one_bits < bits * 6 / 10);
    assert_true(three_bits > bits / 16 && three_bits < bits / 5);
    if (nine_bits * 32 >= uniform_bits) {
      fail_msg("entropy_reduced(9) %s: %zu set bits, uniform %zu", test_type_name(type), nine_bits,
               uniform_bits);
    }
    free(uniform);
    free(one);
    free(three);
    free(nine);
  }
}

static void min_max_mixed_holds_both_extremes(void **state) {
  (void)state;
  static const uint64_t lowest[TEST_TYPE_COUNT] = {0x80,
                                                   0,
                                                   0x8000,
                                                   0,
                                                   0x80000000,
                                                   0,
                                                   UINT64_C(0x8000000000000000),
                                                   0,
                                                   0xff7fffff,
                                                   UINT64_C(0xffefffffffffffff)};
  static const uint64_t highest[TEST_TYPE_COUNT] = {0x7f,
                                                    0xff,
                                                    0x7fff,
                                                    0xffff,
                                                    0x7fffffff,
                                                    0xffffffff,
                                                    UINT64_C(0x7fffffffffffffff),
                                                    UINT64_MAX,
                                                    0x7f7fffff,
                                                    UINT64_C(0x7fefffffffffffff)};
  static const size_t checked_sizes[] = {2, 3, 100, 1000, 4099};
  for (size_t t = 0; t < TEST_TYPE_COUNT; t++) {
    test_type type = test_types[t];
    for (size_t s = 0; s < sizeof checked_sizes / sizeof checked_sizes[0]; s++) {
      size_t n = checked_sizes[s];
      uint64_t seed = test_make_case("extremes", n, type, TEST_MIN_MAX_MIXED, 0).seed;
      void *array = generated(n, type, TEST_MIN_MAX_MIXED, seed, 0);
      assert_true(holds_bits(array, n, type, lowest[type]));
      assert_true(holds_bits(array, n, type, highest[type]));
      assert_all_finite(array, n, type, "min_max_mixed");
      free(array);
      /* For integers FLOAT_SPECIALS is the same mix. */
      if (!test_type_is_float(type)) {
        array = generated(n, type, TEST_FLOAT_SPECIALS, seed, 0);
        assert_true(holds_bits(array, n, type, lowest[type]));
        assert_true(holds_bits(array, n, type, highest[type]));
        free(array);
      }
    }
  }
}

static void float_specials_hold_every_kind(void **state) {
  (void)state;
  static const size_t checked_sizes[] = {21, 100, 1000, 4099};
  for (int d = 0; d < 2; d++) {
    test_type type = d ? TEST_DOUBLE : TEST_FLOAT;
    uint64_t positive_zero = d ? double_bits(0.0) : float_bits(0.0f);
    uint64_t negative_zero = d ? double_bits(-0.0) : float_bits(-0.0f);
    uint64_t positive_infinity = d ? UINT64_C(0x7ff0000000000000) : 0x7f800000;
    uint64_t negative_infinity = d ? UINT64_C(0xfff0000000000000) : 0xff800000;
    uint64_t smallest_denormal = 1;
    uint64_t largest = d ? UINT64_C(0x7fefffffffffffff) : 0x7f7fffff;
    for (size_t s = 0; s < sizeof checked_sizes / sizeof checked_sizes[0]; s++) {
      size_t n = checked_sizes[s];
      uint64_t seed = test_make_case("specials", n, type, TEST_FLOAT_SPECIALS, 0).seed;
      void *array = generated(n, type, TEST_FLOAT_SPECIALS, seed, 0);
      assert_true(holds_bits(array, n, type, positive_zero));
      assert_true(holds_bits(array, n, type, negative_zero));
      assert_true(holds_bits(array, n, type, positive_infinity));
      assert_true(holds_bits(array, n, type, negative_infinity));
      assert_true(holds_bits(array, n, type, smallest_denormal));
      assert_true(holds_bits(array, n, type, largest));
      assert_true(holds_nan(array, n, type, 0));
      assert_true(holds_nan(array, n, type, 1));
      /* NaNs with more than one payload, so a kernel that rewrites them is
       * caught. */
      size_t nan_patterns = 0;
      uint64_t seen[64];
      for (size_t i = 0; i < n && nan_patterns < 64; i++) {
        if (!test_is_nan(element_at(array, i, type), type)) continue;
        uint64_t bits = test_load_bits(array, i, type);
        int known = 0;
        for (size_t k = 0; k < nan_patterns; k++) known |= seen[k] == bits;
        if (!known) seen[nan_patterns++] = bits;
      }
      assert_true(nan_patterns >= 4);
      free(array);
    }
  }
}

static void small_integers_are_small_exact_integers(void **state) {
  (void)state;
  for (size_t t = 0; t < TEST_TYPE_COUNT; t++) {
    test_type type = test_types[t];
    size_t n = 4099;
    uint64_t seed = test_make_case("small", n, type, TEST_SMALL_INTEGERS, 16).seed;
    void *array = generated(n, type, TEST_SMALL_INTEGERS, seed, 16);
    for (size_t i = 0; i < n; i++) {
      double value = value_at(array, i, type);
      assert_true(value >= 0 && value < 16 && value == (double)(int)value);
    }
    assert_int_equal(distinct_count(array, n, type), 16);
    free(array);
  }
}

/* ---- references ---- */

static void reference_sort_is_stable_both_ways(void **state) {
  (void)state;
  for (size_t t = 0; t < TEST_TYPE_COUNT; t++) {
    test_type type = test_types[t];
    size_t size = test_type_size(type);
    for (size_t s = 0; s < SIZE_COUNT; s++) {
      size_t n = sizes[s];
      for (int descending = 0; descending < 2; descending++) {
        /* Few distinct keys make long runs of equal keys; the values are
         * the input indices, so stability is visible. */
        uint64_t seed = test_make_case("stable", n, type, TEST_FEW_UNIQUE, 16).seed;
        void *input = generated(n, type, TEST_FEW_UNIQUE, seed, 16);
        void *keys = test_allocate(n, type);
        memcpy(keys, input, n * size);
        uint32_t *values = malloc((n ? n : 1) * sizeof *values);
        char *seen = calloc(n ? n : 1, 1);
        assert_non_null(values);
        assert_non_null(seen);
        for (size_t i = 0; i < n; i++) values[i] = (uint32_t)i;
        test_reference_sort(keys, values, sizeof *values, n, type, descending);

        assert_ordered(keys, n, type, descending, descending ? "descending sort" : "sort");
        for (size_t i = 0; i < n; i++) {
          /* Each value is used once and still sits with its own key. */
          assert_true(values[i] < n);
          assert_false(seen[values[i]]);
          seen[values[i]] = 1;
          assert_memory_equal(element_at(keys, i, type), element_at(input, values[i], type), size);
          if (i > 0 && key_at(keys, i, type) == key_at(keys, i - 1, type) &&
              values[i] < values[i - 1]) {
            fail_msg("%s %s n=%zu: equal keys at %zu and %zu lost their input order",
                     descending ? "descending" : "ascending", test_type_name(type), n, i - 1, i);
          }
        }
        free(input);
        free(keys);
        free(values);
        free(seen);
      }
    }
  }
}

static void reference_sort_puts_signed_zeros_and_nans_in_their_places(void **state) {
  (void)state;
  /* Input order is scrambled; two +0s and two +NaNs of equal bits check
   * stability among them, marked by their values. */
  uint32_t floats[] = {0x7fc00000, 0x00000000, 0x3f800000, 0xffc00000, 0x80000000,
                       0x7f800000, 0xff800000, 0x00000000, 0x7fc00000, 0x7f7fffff};
  uint32_t values[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  test_reference_sort(floats, values, sizeof values[0], 10, TEST_FLOAT, 0);
  const uint32_t ascending[] = {0xffc00000, 0xff800000, 0x80000000, 0x00000000, 0x00000000,
                                0x3f800000, 0x7f7fffff, 0x7f800000, 0x7fc00000, 0x7fc00000};
  const uint32_t ascending_values[] = {3, 6, 4, 1, 7, 2, 9, 5, 0, 8};
  assert_memory_equal(floats, ascending, sizeof ascending);
  assert_memory_equal(values, ascending_values, sizeof ascending_values);

  /* Descending reverses the key order, but equal keys still keep their
   * input order (1 before 7, 0 before 8). */
  test_reference_sort(floats, values, sizeof values[0], 10, TEST_FLOAT, 1);
  const uint32_t descending[] = {0x7fc00000, 0x7fc00000, 0x7f800000, 0x7f7fffff, 0x3f800000,
                                 0x00000000, 0x00000000, 0x80000000, 0xff800000, 0xffc00000};
  const uint32_t descending_values[] = {0, 8, 5, 9, 2, 1, 7, 4, 6, 3};
  assert_memory_equal(floats, descending, sizeof descending);
  assert_memory_equal(values, descending_values, sizeof descending_values);

  double doubles[] = {0.0, -0.0, INFINITY, -INFINITY, -2.0};
  uint64_t nan = UINT64_C(0x7ff8000000000001);
  double nan_value;
  memcpy(&nan_value, &nan, sizeof nan_value);
  double with_nan[] = {nan_value, doubles[0], doubles[1], doubles[2], doubles[3], doubles[4]};
  test_reference_sort(with_nan, NULL, 0, 6, TEST_DOUBLE, 0);
  const uint64_t expected[] = {double_bits(-INFINITY), double_bits(-2.0),     double_bits(-0.0),
                               double_bits(0.0),       double_bits(INFINITY), nan};
  for (size_t i = 0; i < 6; i++)
    assert_int_equal(test_load_bits(with_nan, i, TEST_DOUBLE), expected[i]);
}

static void argsort_agrees_with_the_key_value_sort(void **state) {
  (void)state;
  for (size_t t = 0; t < TEST_TYPE_COUNT; t++) {
    test_type type = test_types[t];
    size_t size = test_type_size(type);
    static const test_distribution distributions[] = {TEST_UNIFORM, TEST_FEW_UNIQUE,
                                                      TEST_FLOAT_SPECIALS};
    for (size_t d = 0; d < 3; d++) {
      for (int descending = 0; descending < 2; descending++) {
        size_t n = 4099;
        uint64_t seed = test_make_case("argsort", n, type, distributions[d], 0).seed;
        void *input = generated(n, type, distributions[d], seed, 0);
        void *keys = test_allocate(n, type);
        memcpy(keys, input, n * size);
        uint32_t *values = malloc(n * sizeof *values);
        uint32_t *permutation = malloc(n * sizeof *permutation);
        assert_non_null(values);
        assert_non_null(permutation);
        for (size_t i = 0; i < n; i++) values[i] = (uint32_t)i;
        test_reference_sort(keys, values, sizeof *values, n, type, descending);
        test_reference_argsort(input, n, type, descending, permutation);
        assert_memory_equal(permutation, values, n * sizeof *values);
        for (size_t i = 0; i < n; i++) {
          assert_memory_equal(element_at(keys, i, type), element_at(input, permutation[i], type),
                              size);
        }
        free(input);
        free(keys);
        free(values);
        free(permutation);
      }
    }
  }
}

static void scan_matches_hand_computed_sums(void **state) {
  (void)state;
  /* int8 wraps: 100 + 100 = 200 = -56, -56 + -56 = -112, -112 + 1 = -111. */
  int8_t small[] = {100, 100, -56, 1};
  int8_t small_out[4];
  const int8_t small_inclusive[] = {100, -56, -112, -111};
  const int8_t small_exclusive[] = {0, 100, -56, -112};
  test_reference_scan(small, small_out, 4, TEST_INT8, 1);
  assert_memory_equal(small_out, small_inclusive, sizeof small_out);
  test_reference_scan(small, small_out, 4, TEST_INT8, 0);
  assert_memory_equal(small_out, small_exclusive, sizeof small_out);

  uint32_t words[] = {0xffffffff, 2, 3};
  const uint32_t words_inclusive[] = {0xffffffff, 1, 4};
  test_reference_scan(words, words, 3, TEST_UINT32, 1);
  assert_memory_equal(words, words_inclusive, sizeof words);

  int64_t wide[] = {INT64_MAX, 1, -1};
  int64_t wide_out[3];
  test_reference_scan(wide, wide_out, 3, TEST_INT64, 1);
  assert_int_equal((uint64_t)wide_out[1], UINT64_C(0x8000000000000000));
  assert_int_equal(wide_out[2], INT64_MAX);

  /* Floats add in float: 1 + 1e8 rounds back to 1e8 (floats near 1e8 are 8
   * apart), so the 1 is lost, which adding in double would keep. */
  float reals[] = {1.0f, 1e8f, -1e8f, 0.5f};
  float reals_out[4];
  const float reals_inclusive[] = {1.0f, 1e8f, 0.0f, 0.5f};
  const float reals_exclusive[] = {0.0f, 1.0f, 1e8f, 0.0f};
  test_reference_scan(reals, reals_out, 4, TEST_FLOAT, 1);
  assert_memory_equal(reals_out, reals_inclusive, sizeof reals_out);
  test_reference_scan(reals, reals_out, 4, TEST_FLOAT, 0);
  assert_memory_equal(reals_out, reals_exclusive, sizeof reals_out);

  /* The sum starts from the first element: a lone -0 stays -0. */
  double zero[] = {-0.0};
  double zero_out[1];
  test_reference_scan(zero, zero_out, 1, TEST_DOUBLE, 1);
  assert_int_equal(double_bits(zero_out[0]), double_bits(-0.0));
}

static void inclusive_and_exclusive_scans_agree(void **state) {
  (void)state;
  /* Uniform bits bring wrapping integers and NaNs; small integers keep float
   * sums exact, so their values can be checked too. */
  static const test_distribution distributions[] = {TEST_UNIFORM, TEST_SMALL_INTEGERS};
  for (size_t t = 0; t < TEST_TYPE_COUNT; t++) {
    test_type type = test_types[t];
    size_t size = test_type_size(type);
    for (size_t d = 0; d < 2; d++) {
      for (size_t s = 0; s < SIZE_COUNT; s++) {
        size_t n = sizes[s];
        uint64_t seed = test_make_case("scan", n, type, distributions[d], 0).seed;
        void *input = generated(n, type, distributions[d], seed, 0);
        void *inclusive = test_allocate(n, type);
        void *exclusive = test_allocate(n, type);
        test_reference_scan(input, inclusive, n, type, 1);
        test_reference_scan(input, exclusive, n, type, 0);
        if (n > 0) {
          assert_int_equal(test_load_bits(exclusive, 0, type), 0);
          assert_int_equal(test_load_bits(inclusive, 0, type), test_load_bits(input, 0, type));
        }
        /* The exclusive scan is the inclusive one shifted by one place. */
        for (size_t i = 1; i < n; i++) {
          assert_int_equal(test_load_bits(exclusive, i, type),
                           test_load_bits(inclusive, i - 1, type));
        }
        /* inclusive = exclusive + input: wrapped at the width for integers,
         * exact for the small integers in floats. */
        if (!test_type_is_float(type)) {
          uint64_t mask = size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1;
          for (size_t i = 0; i < n; i++) {
            uint64_t sum = test_load_bits(exclusive, i, type) + test_load_bits(input, i, type);
            assert_int_equal(test_load_bits(inclusive, i, type), sum & mask);
          }
        } else if (distributions[d] == TEST_SMALL_INTEGERS) {
          double running = 0;
          for (size_t i = 0; i < n; i++) {
            assert_true(value_at(exclusive, i, type) == running);
            running += value_at(input, i, type);
            assert_true(value_at(inclusive, i, type) == running);
          }
        }
        /* The reduction is the last inclusive sum. */
        void *total = test_allocate(1, type);
        test_reference_reduce_sum(input, n, type, total);
        if (n > 0) {
          assert_true(same_or_both_nan(total, element_at(inclusive, n - 1, type), type));
        } else {
          assert_int_equal(test_load_bits(total, 0, type), 0);
        }
        /* Scanning in place gives the same. */
        test_reference_scan(input, input, n, type, 1);
        for (size_t i = 0; i < n; i++) {
          assert_true(
              same_or_both_nan(element_at(input, i, type), element_at(inclusive, i, type), type));
        }
        free(input);
        free(inclusive);
        free(exclusive);
        free(total);
      }
    }
  }
}

static void min_and_max_skip_nans_and_order_signed_zeros(void **state) {
  (void)state;
  float nan = NAN;
  float values[] = {nan, 3.0f, -1.0f, nan, 0.0f, -0.0f, 2.0f};
  float result;
  test_reference_reduce_min(values, 7, TEST_FLOAT, &result);
  assert_true(result == -1.0f);
  test_reference_reduce_max(values, 7, TEST_FLOAT, &result);
  assert_true(result == 3.0f);

  /* Among zeros, -0 is the smaller. */
  float zeros[] = {0.0f, -0.0f, 0.0f};
  test_reference_reduce_min(zeros, 3, TEST_FLOAT, &result);
  assert_int_equal(float_bits(result), float_bits(-0.0f));
  test_reference_reduce_max(zeros, 3, TEST_FLOAT, &result);
  assert_int_equal(float_bits(result), float_bits(0.0f));

  /* All NaN: the NaN that ranks lowest (min) or highest (max) by
   * test_order_key, payload and all, in either order of the elements. */
  uint32_t nans[] = {0xffc01234, 0x7fc00000};
  uint32_t nan_result;
  test_reference_reduce_min(nans, 2, TEST_FLOAT, &nan_result);
  assert_int_equal(nan_result, 0xffc01234);
  test_reference_reduce_max(nans, 2, TEST_FLOAT, &nan_result);
  assert_int_equal(nan_result, 0x7fc00000);
  uint32_t reversed_nans[] = {0x7fc00000, 0xffc01234};
  test_reference_reduce_min(reversed_nans, 2, TEST_FLOAT, &nan_result);
  assert_int_equal(nan_result, 0xffc01234);
  test_reference_reduce_max(reversed_nans, 2, TEST_FLOAT, &nan_result);
  assert_int_equal(nan_result, 0x7fc00000);
  /* Among negative NaNs the larger payload ranks lower (its bits are
   * flipped), among positive ones the larger payload ranks higher; a
   * signalling NaN (quiet bit clear) ranks by its bits like any other. */
  uint32_t payloads[] = {0x7fc00001, 0xffc00001, 0x7f800005, 0xffc00007, 0x7fc00000, 0xff800003};
  test_reference_reduce_min(payloads, 6, TEST_FLOAT, &nan_result);
  assert_int_equal(nan_result, 0xffc00007);
  test_reference_reduce_max(payloads, 6, TEST_FLOAT, &nan_result);
  assert_int_equal(nan_result, 0x7fc00001);
  uint64_t double_nans[] = {UINT64_C(0x7ff0000000000001), UINT64_C(0xfff8000000000000),
                            UINT64_C(0x7ff8000000000002)};
  uint64_t double_nan_result;
  test_reference_reduce_min(double_nans, 3, TEST_DOUBLE, &double_nan_result);
  assert_int_equal(double_nan_result, UINT64_C(0xfff8000000000000));
  test_reference_reduce_max(double_nans, 3, TEST_DOUBLE, &double_nan_result);
  assert_int_equal(double_nan_result, UINT64_C(0x7ff8000000000002));
  /* One non-NaN among NaNs wins both. */
  uint32_t one_number[] = {0xffc00000, 0x3f800000, 0x7fc00000};
  test_reference_reduce_min(one_number, 3, TEST_FLOAT, &nan_result);
  assert_int_equal(nan_result, 0x3f800000);
  test_reference_reduce_max(one_number, 3, TEST_FLOAT, &nan_result);
  assert_int_equal(nan_result, 0x3f800000);

  /* Infinities are ordinary values for min and max. */
  double infinities[] = {1.0, -INFINITY, INFINITY};
  double wide;
  test_reference_reduce_min(infinities, 3, TEST_DOUBLE, &wide);
  assert_int_equal(double_bits(wide), double_bits(-INFINITY));

  /* n = 0 gives the identity. */
  test_reference_reduce_min(values, 0, TEST_FLOAT, &result);
  assert_int_equal(float_bits(result), 0x7f800000);
  test_reference_reduce_max(values, 0, TEST_FLOAT, &result);
  assert_int_equal(float_bits(result), 0xff800000);
  int16_t identity;
  test_reference_reduce_min(values, 0, TEST_INT16, &identity);
  assert_int_equal(identity, INT16_MAX);
  test_reference_reduce_max(values, 0, TEST_INT16, &identity);
  assert_int_equal(identity, INT16_MIN);
  uint8_t byte;
  test_reference_reduce_min(values, 0, TEST_UINT8, &byte);
  assert_int_equal(byte, 0xff);
  test_reference_reduce_max(values, 0, TEST_UINT8, &byte);
  assert_int_equal(byte, 0);

  /* Signed integers compare as signed. */
  int32_t integers[] = {5, -7, 3, INT32_MIN + 1, 100};
  int32_t integer;
  test_reference_reduce_min(integers, 5, TEST_INT32, &integer);
  assert_int_equal(integer, INT32_MIN + 1);
  test_reference_reduce_max(integers, 5, TEST_INT32, &integer);
  assert_int_equal(integer, 100);

  /* Over every type, min and max are the ends of the sorted non-NaN
   * values. */
  for (size_t t = 0; t < TEST_TYPE_COUNT; t++) {
    test_type type = test_types[t];
    size_t n = 1000;
    uint64_t seed = test_make_case("extremes", n, type, TEST_SORTED, 0).seed;
    void *sorted = generated(n, type, TEST_SORTED, seed, 0);
    void *shuffled = generated(n, type, TEST_SORTED_1PCT_SWAPS, seed, 0);
    void *smallest = test_allocate(1, type), *largest = test_allocate(1, type);
    test_reference_reduce_min(shuffled, n, type, smallest);
    test_reference_reduce_max(shuffled, n, type, largest);
    assert_memory_equal(smallest, element_at(sorted, 0, type), test_type_size(type));
    assert_memory_equal(largest, element_at(sorted, n - 1, type), test_type_size(type));
    free(sorted);
    free(shuffled);
    free(smallest);
    free(largest);
  }
}

static void sums_wrap_and_stay_in_the_type(void **state) {
  (void)state;
  uint8_t bytes[] = {200, 100};
  uint8_t byte_sum;
  test_reference_reduce_sum(bytes, 2, TEST_UINT8, &byte_sum);
  assert_int_equal(byte_sum, 44);
  int16_t shorts[] = {INT16_MAX, 1};
  int16_t short_sum;
  test_reference_reduce_sum(shorts, 2, TEST_INT16, &short_sum);
  assert_int_equal(short_sum, INT16_MIN);
  float reals[] = {1e8f, 1.0f, 1.0f, 1.0f, 1.0f};
  float real_sum;
  test_reference_reduce_sum(reals, 5, TEST_FLOAT, &real_sum);
  assert_true(real_sum == 1e8f);
  test_reference_reduce_sum(reals, 0, TEST_FLOAT, &real_sum);
  assert_int_equal(float_bits(real_sum), 0);
}

/* Predicates by element width, reading the element as the test's type. */
static int low_bit_of_byte(const void *element) { return *(const uint8_t *)element & 1; }

static int low_bit_of_short(const void *element) {
  uint16_t value;
  memcpy(&value, element, sizeof value);
  return value & 1;
}

static int low_bit_of_word(const void *element) {
  uint32_t value;
  memcpy(&value, element, sizeof value);
  return value & 1;
}

static int low_bit_of_long(const void *element) {
  uint64_t value;
  memcpy(&value, element, sizeof value);
  return (int)(value & 1);
}

static int float_is_negative(const void *element) {
  float value;
  memcpy(&value, element, sizeof value);
  return value < 0;
}

static void findall_lists_exactly_the_matching_indices_in_order(void **state) {
  (void)state;
  for (size_t t = 0; t < TEST_TYPE_COUNT; t++) {
    test_type type = test_types[t];
    int (*predicate)(const void *) = NULL;
    switch (test_type_size(type)) {
      case 1:
        predicate = low_bit_of_byte;
        break;
      case 2:
        predicate = low_bit_of_short;
        break;
      case 4:
        predicate = type == TEST_FLOAT ? float_is_negative : low_bit_of_word;
        break;
      default:
        predicate = low_bit_of_long;
        break;
    }
    for (size_t s = 0; s < SIZE_COUNT; s++) {
      size_t n = sizes[s];
      uint64_t seed = test_make_case("findall", n, type, TEST_UNIFORM, 0).seed;
      void *input = generated(n, type, TEST_UNIFORM, seed, 0);
      uint32_t *indices = malloc((n ? n : 1) * sizeof *indices);
      assert_non_null(indices);
      size_t count = test_reference_findall(input, n, type, predicate, indices);
      assert_int_equal(test_reference_findall(input, n, type, predicate, NULL), count);
      size_t matching = 0;
      for (size_t i = 0; i < n; i++) matching += predicate(element_at(input, i, type)) != 0;
      assert_int_equal(count, matching);
      for (size_t k = 0; k < count; k++) {
        assert_true(indices[k] < n);
        if (k > 0) assert_true(indices[k] > indices[k - 1]);
        assert_true(predicate(element_at(input, indices[k], type)));
      }
      if (n >= 1000) assert_true(count > 0 && count < n);
      free(input);
      free(indices);
    }
  }
  int32_t hand[] = {2, 3, 5, 8, 9};
  uint32_t hand_indices[5];
  assert_int_equal(test_reference_findall(hand, 5, TEST_INT32, low_bit_of_word, hand_indices), 3);
  assert_int_equal(hand_indices[0], 1);
  assert_int_equal(hand_indices[1], 2);
  assert_int_equal(hand_indices[2], 4);
}

/* ---- comparing ---- */

static void compare_matches_equal_arrays_and_catches_a_planted_difference(void **state) {
  (void)state;
  /* On the stream test_compare reports on, so the note comes before them. */
  print_error(
      "# the mismatch reports that follow are expected: test_compare catching planted "
      "differences\n");
  for (size_t t = 0; t < TEST_TYPE_COUNT; t++) {
    test_type type = test_types[t];
    size_t n = 1000;
    test_case c = test_make_case("compare", n, type, TEST_UNIFORM, 0);
    void *expected = generated(n, type, TEST_UNIFORM, c.seed, 0);
    void *actual = generated(n, type, TEST_UNIFORM, c.seed, 0);
    assert_int_equal(test_compare(actual, expected, n, type, 0, &c), 1);
    assert_same(actual, expected, n, type, 0, &c);
    assert_int_equal(test_compare(actual, expected, 0, type, 0, &c), 1);
    /* Flip one bit of one element. */
    test_store_bits(actual, 617, type, test_load_bits(actual, 617, type) ^ 1);
    assert_int_equal(test_compare(actual, expected, n, type, 0, &c), 0);
    /* Integers are always bitwise, whatever the bound. */
    if (!test_type_is_float(type)) {
      assert_int_equal(test_compare(actual, expected, n, type, 0.5, &c), 0);
    }
    free(expected);
    free(actual);
  }
}

static void compare_applies_the_float_rules(void **state) {
  (void)state;
  float positive_zero[] = {1.0f, 0.0f};
  float negative_zero[] = {1.0f, -0.0f};
  assert_int_equal(test_compare(negative_zero, positive_zero, 2, TEST_FLOAT, 0, NULL), 0);
  assert_int_equal(test_compare(negative_zero, positive_zero, 2, TEST_FLOAT, 1e-6, NULL), 1);

  uint32_t quiet[] = {0x7fc00000};
  uint32_t payload[] = {0xffc12345};
  assert_int_equal(test_compare(payload, quiet, 1, TEST_FLOAT, 0, NULL), 0);
  assert_int_equal(test_compare(payload, quiet, 1, TEST_FLOAT, 1e-6, NULL), 1);

  float number[] = {1.0f};
  assert_int_equal(test_compare(number, quiet, 1, TEST_FLOAT, 1.0, NULL), 0);
  assert_int_equal(test_compare(quiet, number, 1, TEST_FLOAT, 1.0, NULL), 0);

  /* Infinities match only themselves, even under a huge bound. */
  uint32_t infinity[] = {0x7f800000};
  uint32_t largest[] = {0x7f7fffff};
  assert_int_equal(test_compare(largest, infinity, 1, TEST_FLOAT, 1e30, NULL), 0);
  assert_int_equal(test_compare(infinity, largest, 1, TEST_FLOAT, 1e30, NULL), 0);
  assert_int_equal(test_compare(infinity, infinity, 1, TEST_FLOAT, 1e-6, NULL), 1);

  /* Relative above 1: |1000.001 - 1000| = 1e-3 is within 1e-5 * 1000 but
   * not 1e-7 * 1000. */
  double thousand[] = {1000.0};
  double near_thousand[] = {1000.001};
  assert_int_equal(test_compare(near_thousand, thousand, 1, TEST_DOUBLE, 1e-5, NULL), 1);
  assert_int_equal(test_compare(near_thousand, thousand, 1, TEST_DOUBLE, 1e-7, NULL), 0);
  /* Absolute below 1: 1e-9 next to 0 passes a bound of 1e-8. */
  double zero[] = {0.0};
  double tiny[] = {1e-9};
  assert_int_equal(test_compare(tiny, zero, 1, TEST_DOUBLE, 1e-8, NULL), 1);
  assert_int_equal(test_compare(tiny, zero, 1, TEST_DOUBLE, 1e-10, NULL), 0);
  /* Doubles so far apart that their difference overflows still differ. */
  double most[] = {1.7976931348623157e308};
  double least[] = {-1.7976931348623157e308};
  assert_int_equal(test_compare(most, least, 1, TEST_DOUBLE, 1.0, NULL), 0);
}

int main(void) {
  /* Print the run's seed first, so that any failure below can be replayed. */
  test_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(splitmix64_gives_its_published_outputs),
      cmocka_unit_test(xoshiro_steps_as_computed_by_hand),
      cmocka_unit_test(rng_replays_a_seed_and_differs_for_another),
      cmocka_unit_test(rng_below_stays_in_range_and_spreads_evenly),
      cmocka_unit_test(derived_seeds_depend_on_both_run_seed_and_label),
      cmocka_unit_test(type_facts_are_right),
      cmocka_unit_test(bits_load_and_store_as_the_native_types),
      cmocka_unit_test(order_keys_follow_numeric_order),
      cmocka_unit_test(distribution_names_are_stable_and_the_list_is_complete),
      cmocka_unit_test(every_generator_writes_exactly_n_elements_and_replays),
      cmocka_unit_test(ordered_distributions_have_their_shapes),
      cmocka_unit_test(few_unique_has_that_many_values),
      cmocka_unit_test(single_bit_distributions_vary_only_that_bit),
      cmocka_unit_test(nine_word_entropy_reduction_clears_most_bits),
      cmocka_unit_test(min_max_mixed_holds_both_extremes),
      cmocka_unit_test(float_specials_hold_every_kind),
      cmocka_unit_test(small_integers_are_small_exact_integers),
      cmocka_unit_test(reference_sort_is_stable_both_ways),
      cmocka_unit_test(reference_sort_puts_signed_zeros_and_nans_in_their_places),
      cmocka_unit_test(argsort_agrees_with_the_key_value_sort),
      cmocka_unit_test(scan_matches_hand_computed_sums),
      cmocka_unit_test(inclusive_and_exclusive_scans_agree),
      cmocka_unit_test(min_and_max_skip_nans_and_order_signed_zeros),
      cmocka_unit_test(sums_wrap_and_stay_in_the_type),
      cmocka_unit_test(findall_lists_exactly_the_matching_indices_in_order),
      cmocka_unit_test(compare_matches_equal_arrays_and_catches_a_planted_difference),
      cmocka_unit_test(compare_applies_the_float_rules),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
