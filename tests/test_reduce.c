/* clgpu_reduce, clgpu_reduce_read and clgpu_count_if against host models.
 *
 * Every device result is checked against a model computed here from the
 * same input bytes: integer results (wrapping sums and products, min, max,
 * argmin, argmax, count, any, all, the custom reductions over integers) bit
 * for bit; float MIN, MAX, ARGMIN, ARGMAX, COUNT, ANY, ALL bit for bit too
 * (reduce.h makes them exact whatever the combining order); float sums and
 * products within the bounds that check_result states; the float max-abs
 * custom reduction bit for bit. Every output lives in a guarded buffer
 * (tests/guard.h) whose guards are checked after each call, and bytes of an
 * output region that are not elements of the output view must keep their
 * fill.
 *
 * What runs:
 * - every_kind_*: every kind (and a CUSTOM max-abs) over every type and
 *   every distribution of data.h plus sawtooths of period 64/65 (chunk
 *   lengths) and 2048/2049 (the TILED tile), at sizes 93, 2049 and 16385
 *   (one tile and a bit, past CHUNKED's split and TILED's four tiles), and
 *   sizes 0 and 1. A program is built per (operator, type, algorithm), about
 *   0.2 s each on POCL, so each (type, kind) pair of the matrix runs one
 *   algorithm (home_mode: CHUNKED and TILED alternate over types and kinds,
 *   so every type and every kind meets both), and the pairs named below run
 *   both. The file builds about 135 programs.
 * - sizes_around_tiles_and_chunks: the size list of the brief (0 to 65537,
 *   tile and chunk boundaries, two seeded random sizes) for a few types and
 *   kinds, with inputs that make a dropped or doubled element visible (the
 *   only non-zero element last for ANY, the only zero last for ALL, the
 *   minimum last for ARGMIN, ties across tiles for ARGMIN and ARGMAX, an
 *   index-weighted CUSTOM sum); both algorithms for int32 SUM, ARGMIN, ANY
 *   and the weighted sum, float SUM and MIN, uint8 SUM, int64 ARGMIN.
 * - along_an_axis: whole-array and per-axis reductions of 2-D and 3-D views
 *   (row-major, transposed, sliced with step 2 and reversed, pitched with
 *   negative strides; built with the library's constructors and
 *   derivations), axis 0, middle and last, outputs without and with the
 *   kept extent-1 dimension and strided with a negative stride; CUSTOM with
 *   `i` checks that the index is the one along the axis.
 * - float_sums_are_deterministic, initial_is_combined_once (and distinct
 *   from neutral), reduce_read_results, count_if_results, events, a wait
 *   list gating the call (skipped on Oclgrind, whose clFlush would wait
 *   forever on a user event in a single-threaded test), a workspace in the
 *   caller's buffer, AUTO, the result types, half where the device has
 *   cl_khr_fp16 (skipped elsewhere), double where it has cl_khr_fp64
 *   (skipped elsewhere), and misuse tables for clgpu_reduce (and its size
 *   query), clgpu_reduce_read and clgpu_count_if: the status, a detail
 *   message (a compiler log for build failures), no event, the output and
 *   the input unchanged after each refused call.
 *
 * Under Oclgrind (the device name says "Oclgrind") sizes stay at or below
 * 5000 elements, the type-by-distribution matrix runs at size 93 over three
 * integer types with a third of the distributions per type, and the axis
 * cases take half the layouts.
 *
 * CLGPU_TEST_FILTER, when set, is a cmocka filter ("*axis*") naming the
 * tests to run, for replaying one quickly. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data.h"
#include "guard.h"
#include "support.h"

/* ---- the device ---- */

typedef struct device_facts {
  int oclgrind;
  int has_fp64;
  int has_fp16;
  int float_denormals;
  int double_denormals;
} device_facts;

static device_facts facts;

/* One context serves the whole file (group setup), so each program is built
 * once per run, and without clgpu's binary cache (test_disk_cache covers
 * it): on POCL a cold build that also stores the binary took about 1.1 s per
 * program against about 0.35 s without (measured), and the build time is
 * most of this file's. POCL's own kernel cache (POCL_CACHE_DIR) still makes
 * later runs fast. */
static clgpu_context *shared_context;

static int group_setup(void **state) {
  (void)state;
  test_seed();
  clgpu_context_options options;
  memset(&options, 0, sizeof options);
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  shared_context = test_context(&options);
  const clgpu_device_info *info = clgpu_context_device_info(shared_context);
  facts.oclgrind =
      strstr(info->name, "Oclgrind") != NULL || strstr(info->platform_name, "Oclgrind") != NULL;
  facts.has_fp64 = info->has_fp64;
  facts.has_fp16 = info->has_fp16;
  cl_device_id device = clgpu_context_device(shared_context);
  cl_device_fp_config config = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof config, &config, NULL) ==
      CL_SUCCESS) {
    facts.float_denormals = (config & CL_FP_DENORM) != 0;
  }
  config = 0;
  if (facts.has_fp64 && clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof config, &config,
                                        NULL) == CL_SUCCESS) {
    facts.double_denormals = (config & CL_FP_DENORM) != 0;
  }
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  clgpu_context_destroy(shared_context);
  shared_context = NULL;
  return 0;
}

/* The shared context; a failed test leaves it usable for the next. */
static clgpu_context *open_context(void) {
  assert_non_null(shared_context);
  assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
  return shared_context;
}

/* ---- elements of any clgpu_type, half included ---- */

static int is_float_type(clgpu_type type) {
  return type == CLGPU_TYPE_HALF || type == CLGPU_TYPE_FLOAT || type == CLGPU_TYPE_DOUBLE;
}

static int is_signed_integer(clgpu_type type) {
  return type == CLGPU_TYPE_INT8 || type == CLGPU_TYPE_INT16 || type == CLGPU_TYPE_INT32 ||
         type == CLGPU_TYPE_INT64;
}

static test_type to_test_type(clgpu_type type) {
  switch (type) {
    case CLGPU_TYPE_INT8:
      return TEST_INT8;
    case CLGPU_TYPE_UINT8:
      return TEST_UINT8;
    case CLGPU_TYPE_INT16:
      return TEST_INT16;
    case CLGPU_TYPE_UINT16:
      return TEST_UINT16;
    case CLGPU_TYPE_INT32:
      return TEST_INT32;
    case CLGPU_TYPE_UINT32:
      return TEST_UINT32;
    case CLGPU_TYPE_INT64:
      return TEST_INT64;
    case CLGPU_TYPE_UINT64:
      return TEST_UINT64;
    case CLGPU_TYPE_FLOAT:
      return TEST_FLOAT;
    case CLGPU_TYPE_DOUBLE:
      return TEST_DOUBLE;
    default:
      break;
  }
  fail_msg("no test_type for %s", clgpu_type_cl_name(type));
  abort();
}

/* The unsigned type of the same width: abs() of an OpenCL integer. */
static clgpu_type unsigned_of(clgpu_type type) {
  switch (type) {
    case CLGPU_TYPE_INT8:
      return CLGPU_TYPE_UINT8;
    case CLGPU_TYPE_INT16:
      return CLGPU_TYPE_UINT16;
    case CLGPU_TYPE_INT32:
      return CLGPU_TYPE_UINT32;
    case CLGPU_TYPE_INT64:
      return CLGPU_TYPE_UINT64;
    default:
      return type;
  }
}

static uint64_t width_mask(clgpu_type type) {
  size_t size = clgpu_type_size(type);
  return size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1;
}

static uint64_t top_bit(clgpu_type type) { return (uint64_t)1 << (8 * clgpu_type_size(type) - 1); }

/* The bits of +inf. */
static uint64_t infinity_bits(clgpu_type type) {
  switch (type) {
    case CLGPU_TYPE_HALF:
      return 0x7c00;
    case CLGPU_TYPE_FLOAT:
      return 0x7f800000;
    default:
      return UINT64_C(0x7ff0000000000000);
  }
}

static int bits_are_nan(uint64_t bits, clgpu_type type) {
  return is_float_type(type) && (bits & ~top_bit(type) & width_mask(type)) > infinity_bits(type);
}

static int bits_are_infinite(uint64_t bits, clgpu_type type) {
  return is_float_type(type) && (bits & ~top_bit(type) & width_mask(type)) == infinity_bits(type);
}

/* Whether an element is 0: -0 is, NaN is not. */
static int bits_are_zero(uint64_t bits, clgpu_type type) {
  if (is_float_type(type)) return (bits & ~top_bit(type) & width_mask(type)) == 0;
  return bits == 0;
}

static uint64_t load_bits(const void *array, size_t index, clgpu_type type) {
  const unsigned char *bytes = (const unsigned char *)array;
  switch (clgpu_type_size(type)) {
    case 1:
      return bytes[index];
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

static void store_bits(void *array, size_t index, clgpu_type type, uint64_t bits) {
  unsigned char *bytes = (unsigned char *)array;
  switch (clgpu_type_size(type)) {
    case 1:
      bytes[index] = (unsigned char)bits;
      break;
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

/* The value of a signed integer element, sign-extended. */
static int64_t signed_value(uint64_t bits, clgpu_type type) {
  if (bits & top_bit(type)) bits |= ~width_mask(type);
  int64_t value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

static long double half_value(uint64_t bits) {
  int exponent = (int)((bits >> 10) & 0x1f);
  long double mantissa = (long double)(bits & 0x3ff);
  long double magnitude;
  if (exponent == 0) {
    magnitude = ldexpl(mantissa, -24);
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? (long double)INFINITY : (long double)NAN;
  } else {
    magnitude = ldexpl(mantissa + 1024.0L, exponent - 25);
  }
  return (bits & 0x8000) ? -magnitude : magnitude;
}

/* The element's value; exact for every type (long double holds every
 * 64-bit integer on the platforms the suite runs on, and float and double
 * convert exactly). */
static long double value_of(uint64_t bits, clgpu_type type) {
  switch (type) {
    case CLGPU_TYPE_HALF:
      return half_value(bits);
    case CLGPU_TYPE_FLOAT: {
      uint32_t word = (uint32_t)bits;
      float value;
      memcpy(&value, &word, sizeof value);
      return value;
    }
    case CLGPU_TYPE_DOUBLE: {
      double value;
      memcpy(&value, &bits, sizeof value);
      return value;
    }
    default:
      return is_signed_integer(type) ? (long double)signed_value(bits, type) : (long double)bits;
  }
}

/* Round a value to a half (to nearest, ties to even). */
static uint64_t half_bits_of(long double value) {
  uint64_t sign = signbit(value) ? 0x8000 : 0;
  long double magnitude = fabsl(value);
  if (isnan(magnitude)) return 0x7e00;
  if (magnitude >= 65520.0L) return sign | 0x7c00;
  if (magnitude < 0x1p-14L) return sign | (uint64_t)nearbyintl(magnitude * 0x1p24L);
  int exponent = 0;
  frexpl(magnitude, &exponent);
  /* magnitude = scaled * 2^(exponent - 11), scaled in [1024, 2048]; a
   * rounding up to 2048 carries into the exponent field. */
  uint64_t scaled = (uint64_t)nearbyintl(ldexpl(magnitude, 11 - exponent));
  return sign | (((uint64_t)(exponent - 1 + 15) << 10) + (scaled - 1024));
}

/* The bits of `value` as an element of `type` (rounded for floats,
 * wrapped for integers). */
static uint64_t bits_of_value(long double value, clgpu_type type) {
  switch (type) {
    case CLGPU_TYPE_HALF:
      return half_bits_of(value);
    case CLGPU_TYPE_FLOAT: {
      float single = (float)value;
      uint32_t word;
      memcpy(&word, &single, sizeof word);
      return word;
    }
    case CLGPU_TYPE_DOUBLE: {
      double wide = (double)value;
      uint64_t word;
      memcpy(&word, &wide, sizeof word);
      return word;
    }
    default:
      if (value < 0) return (uint64_t)(int64_t)value & width_mask(type);
      return (uint64_t)value & width_mask(type);
  }
}

/* test_order_key for every type (data.h's for all but half, whose key is
 * built the same way). */
static uint64_t order_key(uint64_t bits, clgpu_type type) {
  if (type == CLGPU_TYPE_HALF) return (bits & 0x8000) ? (~bits & 0xffff) : (bits | 0x8000);
  unsigned char element[8];
  store_bits(element, 0, type, bits);
  return test_order_key(element, to_test_type(type));
}

static long double type_epsilon(clgpu_type type) {
  return type == CLGPU_TYPE_HALF ? 0x1p-10L : type == CLGPU_TYPE_FLOAT ? FLT_EPSILON : DBL_EPSILON;
}

static long double type_max(clgpu_type type) {
  return type == CLGPU_TYPE_HALF ? 65504.0L : type == CLGPU_TYPE_FLOAT ? FLT_MAX : DBL_MAX;
}

static long double type_min_normal(clgpu_type type) {
  return type == CLGPU_TYPE_HALF ? 0x1p-14L : type == CLGPU_TYPE_FLOAT ? FLT_MIN : DBL_MIN;
}

/* 2^(mantissa bits + 1): integers up to this are exact in the type. */
static long double type_exact_integers(clgpu_type type) {
  return type == CLGPU_TYPE_HALF ? 0x1p11L : type == CLGPU_TYPE_FLOAT ? 0x1p24L : 0x1p53L;
}

static int type_has_denormals(clgpu_type type) {
  if (type == CLGPU_TYPE_FLOAT) return facts.float_denormals;
  if (type == CLGPU_TYPE_DOUBLE) return facts.double_denormals;
  return 0;
}

/* The type's lowest and highest values (-inf and +inf for floats). */
static uint64_t lowest_bits(clgpu_type type) {
  if (is_float_type(type)) return infinity_bits(type) | top_bit(type);
  return is_signed_integer(type) ? top_bit(type) : 0;
}

static uint64_t highest_bits(clgpu_type type) {
  if (is_float_type(type)) return infinity_bits(type);
  return is_signed_integer(type) ? top_bit(type) - 1 : width_mask(type);
}

static unsigned char *allocate_elements(size_t n, clgpu_type type) {
  unsigned char *data = malloc(n * clgpu_type_size(type) + 1);
  assert_non_null(data);
  return data;
}

/* ---- input data ---- */

/* How an input is made: from a distribution of data.h, or one of the
 * shapes below that make a particular mistake visible. */
typedef enum data_kind {
  DATA_DISTRIBUTION,
  DATA_ODD,            /* uniform integers with the low bit set: products never reach 0 */
  DATA_UNIT_INTERVAL,  /* floats in [-1, 1) */
  DATA_NARROW,         /* positive floats near 1, see narrow_from */
  DATA_ZEROS_THEN_ONE, /* 0 everywhere but a 1 last: ANY */
  DATA_ONES_THEN_ZERO, /* 1 everywhere but a 0 last: ALL */
  DATA_LOWEST_LAST,    /* uniform, with the type's lowest value last: ARGMIN, MIN */
  DATA_SMALL_SIGNED,   /* integers in [-8, 8): float sums exact in any order */
  DATA_SPARSE,         /* about 30% zeros (both signs for floats), NaNs, ones, random */
} data_kind;

static const char *const data_kind_names[] = {
    "distribution",   "odd",         "unit-interval", "narrow", "zeros-then-one",
    "ones-then-zero", "lowest-last", "small-signed",  "sparse",
};

/* Map each element to a positive float in [2^-w, 2^w], keeping the order of
 * the elements' keys (so sorted stays sorted and equal stays equal), with
 * w = min(1, budget / length): any product of at most `length` of them lies
 * within 2^±budget, so no partial product of a reduction of `length`
 * elements overflows or becomes denormal. The budget is 60 for float and
 * double and 12 for half (whose normals span 2^-14 to 2^16). */
static void narrow_from(unsigned char *data, size_t n, clgpu_type type, size_t length) {
  long double budget = type == CLGPU_TYPE_HALF ? 12.0L : 60.0L;
  long double width = length == 0 ? 1.0L : fminl(1.0L, budget / (long double)length);
  uint64_t low = bits_of_value(exp2l(-width), type), high = bits_of_value(exp2l(width), type);
  long double span = ldexpl(1.0L, (int)(8 * clgpu_type_size(type)));
  for (size_t i = 0; i < n; i++) {
    long double fraction = (long double)order_key(load_bits(data, i, type), type) / span;
    store_bits(data, i, type, low + (uint64_t)(fraction * (long double)(high - low)));
  }
}

/* n elements of `type`. Half has no generator in data.h: it takes the bits
 * of the uint16 distribution, except SMALL_INTEGERS, whose values it
 * converts. */
static unsigned char *generate(data_kind kind, size_t n, clgpu_type type,
                               test_distribution distribution, size_t parameter, uint64_t seed) {
  unsigned char *data = allocate_elements(n, type);
  test_rng rng;
  test_rng_init(&rng, seed ^ UINT64_C(0x9e3779b97f4a7c15));
  switch (kind) {
    case DATA_DISTRIBUTION:
    case DATA_NARROW:
      if (type == CLGPU_TYPE_HALF) {
        test_generate(data, n, TEST_UINT16, distribution, seed, parameter);
        if (distribution == TEST_SMALL_INTEGERS) {
          for (size_t i = 0; i < n; i++) {
            store_bits(data, i, type, half_bits_of((long double)load_bits(data, i, type)));
          }
        }
      } else {
        test_generate(data, n, to_test_type(type), distribution, seed, parameter);
      }
      if (kind == DATA_NARROW) narrow_from(data, n, type, n);
      break;
    case DATA_ODD:
      test_generate(data, n, to_test_type(type), TEST_UNIFORM, seed, 0);
      for (size_t i = 0; i < n; i++) store_bits(data, i, type, load_bits(data, i, type) | 1);
      break;
    case DATA_UNIT_INTERVAL:
      for (size_t i = 0; i < n; i++) {
        long double unit = ldexpl((long double)(test_rng_next64(&rng) >> 11), -53);
        store_bits(data, i, type, bits_of_value(2.0L * unit - 1.0L, type));
      }
      break;
    case DATA_ZEROS_THEN_ONE:
    case DATA_ONES_THEN_ZERO: {
      uint64_t one = bits_of_value(1.0L, type);
      for (size_t i = 0; i < n; i++) {
        int last = i + 1 == n;
        int is_one = kind == DATA_ZEROS_THEN_ONE ? last : !last;
        store_bits(data, i, type, is_one ? one : 0);
      }
      break;
    }
    case DATA_LOWEST_LAST:
      if (type == CLGPU_TYPE_HALF) {
        test_generate(data, n, TEST_UINT16, TEST_UNIFORM, seed, 0);
      } else {
        test_generate(data, n, to_test_type(type), TEST_UNIFORM, seed, 0);
      }
      if (n > 0) store_bits(data, n - 1, type, lowest_bits(type));
      break;
    case DATA_SMALL_SIGNED:
      for (size_t i = 0; i < n; i++) {
        long double value = (long double)test_rng_below(&rng, 16) - 8.0L;
        store_bits(data, i, type, bits_of_value(value, type));
      }
      break;
    case DATA_SPARSE:
      for (size_t i = 0; i < n; i++) {
        uint64_t roll = test_rng_below(&rng, 10), bits = test_rng_next64(&rng) & width_mask(type);
        if (roll < 3) {
          bits = is_float_type(type) && roll == 0 ? top_bit(type) : 0;
        } else if (is_float_type(type) && roll == 3) {
          bits = infinity_bits(type) | 1 | (test_rng_next64(&rng) & 1 ? top_bit(type) : 0);
        } else if (roll == 4) {
          bits = bits_of_value(1.0L, type);
        }
        store_bits(data, i, type, bits);
      }
      break;
  }
  /* Oclgrind 21.10's fmax gives a NaN when an operand is a signaling NaN,
   * where OpenCL's fmax gives the other operand (docs/quirks.md): there
   * the NaNs are made quiet, so that a max-abs of random bits tests the
   * library's fold, not the simulator's fmax. */
  if (facts.oclgrind && is_float_type(type)) {
    uint64_t quiet = type == CLGPU_TYPE_HALF    ? UINT64_C(1) << 9
                     : type == CLGPU_TYPE_FLOAT ? UINT64_C(1) << 22
                                                : UINT64_C(1) << 51;
    for (size_t i = 0; i < n; i++) {
      uint64_t bits = load_bits(data, i, type);
      if (bits_are_nan(bits, type)) store_bits(data, i, type, bits | quiet);
    }
  }
  return data;
}

/* The seed of an input and a line that names it for failure reports:
 * data.h's test_make_case / test_describe_case where the type has a
 * test_type. */
static uint64_t input_seed(const char *operation, size_t n, clgpu_type type,
                           test_distribution distribution, size_t parameter) {
  if (type != CLGPU_TYPE_HALF) {
    return test_make_case(operation, n, to_test_type(type), distribution, parameter).seed;
  }
  char label[160];
  snprintf(label, sizeof label, "%s/%zu/half/%s/%zu", operation, n,
           test_distribution_name(distribution), parameter);
  return test_case_seed(label);
}

static void describe_input(char *text, size_t size, const char *operation, size_t n,
                           clgpu_type type, data_kind kind, test_distribution distribution,
                           size_t parameter, uint64_t seed) {
  char base[256];
  if (type != CLGPU_TYPE_HALF) {
    test_case c = {operation, n, to_test_type(type), distribution, parameter, seed};
    test_describe_case(&c, base, sizeof base);
  } else {
    snprintf(base, sizeof base, "%s n=%zu type=half distribution=%s(%zu) seed=0x%llx", operation, n,
             test_distribution_name(distribution), parameter, (unsigned long long)seed);
  }
  if (kind == DATA_DISTRIBUTION) {
    snprintf(text, size, "%s", base);
  } else {
    snprintf(text, size, "%s data=%s", base, data_kind_names[kind]);
  }
}

/* ---- operations ---- */

/* Which host model a CUSTOM reduction has. */
typedef enum custom_model {
  NOT_CUSTOM,
  MAX_ABS,      /* map |x|, reduce max, neutral 0 */
  WEIGHTED_SUM, /* map (ulong)x * (i + 1), reduce a + b, neutral 0: checks `i` */
  PLAIN_SUM,    /* map x, reduce a + b, neutral 0 */
} custom_model;

typedef struct op_case {
  char name[64];
  clgpu_reduce_op op;
  custom_model model;
  int has_initial;
  uint64_t initial_bits; /* in the result type */
} op_case;

static const clgpu_reduce_kind builtin_kinds[] = {
    CLGPU_REDUCE_SUM,   CLGPU_REDUCE_PRODUCT, CLGPU_REDUCE_MIN,
    CLGPU_REDUCE_MAX,   CLGPU_REDUCE_ARGMIN,  CLGPU_REDUCE_ARGMAX,
    CLGPU_REDUCE_COUNT, CLGPU_REDUCE_ANY,     CLGPU_REDUCE_ALL,
};
#define BUILTIN_KIND_COUNT (sizeof builtin_kinds / sizeof builtin_kinds[0])

static const char *kind_name(clgpu_reduce_kind kind) {
  static const char *const names[] = {"?",      "sum",   "product", "min", "max",   "argmin",
                                      "argmax", "count", "any",     "all", "custom"};
  return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

static op_case builtin_op(clgpu_reduce_kind kind) {
  op_case c;
  memset(&c, 0, sizeof c);
  c.op.kind = kind;
  snprintf(c.name, sizeof c.name, "%s", kind_name(kind));
  return c;
}

/* max |x| as a CUSTOM reduction: fabs/fmax over floats (half maps to float),
 * abs/max over integers, whose abs() is of the unsigned type. */
static op_case max_abs_op(clgpu_type input) {
  op_case c;
  memset(&c, 0, sizeof c);
  c.op.kind = CLGPU_REDUCE_CUSTOM;
  c.model = MAX_ABS;
  snprintf(c.name, sizeof c.name, "custom max-abs");
  if (is_float_type(input)) {
    c.op.map = input == CLGPU_TYPE_HALF ? "fabs((float)x)" : "fabs(x)";
    c.op.reduce = "fmax(a, b)";
    c.op.neutral = input == CLGPU_TYPE_DOUBLE ? "0.0" : "0.0f";
    c.op.result_type = input == CLGPU_TYPE_DOUBLE ? CLGPU_TYPE_DOUBLE : CLGPU_TYPE_FLOAT;
  } else {
    c.op.map = "abs(x)";
    c.op.reduce = "max(a, b)";
    c.op.neutral = "0";
    c.op.result_type = unsigned_of(input);
  }
  return c;
}

/* sum of (ulong)x * (i + 1): a wrong `i` (row-major instead of along the
 * axis, or off by one) changes the result. Integer inputs only. */
static op_case weighted_sum_op(void) {
  op_case c;
  memset(&c, 0, sizeof c);
  c.op.kind = CLGPU_REDUCE_CUSTOM;
  c.model = WEIGHTED_SUM;
  c.op.map = "(ulong)x * (i + 1)";
  c.op.reduce = "a + b";
  c.op.neutral = "0";
  c.op.result_type = CLGPU_TYPE_UINT64;
  snprintf(c.name, sizeof c.name, "custom index-weighted sum");
  return c;
}

/* A sum with neutral 0 and initial 100: padding with the initial value, or
 * adding it per chunk, shows as a multiple of 100 too many. */
static op_case sum_with_initial_op(clgpu_type type) {
  op_case c;
  memset(&c, 0, sizeof c);
  c.op.kind = CLGPU_REDUCE_CUSTOM;
  c.model = PLAIN_SUM;
  c.op.reduce = "a + b";
  c.op.neutral = is_float_type(type) ? (type == CLGPU_TYPE_DOUBLE ? "0.0" : "0.0f") : "0";
  c.op.initial = is_float_type(type) ? (type == CLGPU_TYPE_DOUBLE ? "100.0" : "100.0f") : "100";
  c.op.result_type = type;
  c.has_initial = 1;
  c.initial_bits = bits_of_value(100.0L, type);
  snprintf(c.name, sizeof c.name, "custom sum, neutral 0, initial 100");
  return c;
}

/* A builtin kind with an initial expression whose value, in the result
 * type, is `value`. */
static op_case builtin_with_initial(clgpu_reduce_kind kind, const char *text, long double value,
                                    clgpu_type result_type) {
  op_case c = builtin_op(kind);
  c.op.initial = text;
  c.has_initial = 1;
  c.initial_bits = bits_of_value(value, result_type);
  snprintf(c.name, sizeof c.name, "%s, initial %s", kind_name(kind), text);
  return c;
}

static clgpu_type model_result_type(const op_case *c, clgpu_type input) {
  switch (c->op.kind) {
    case CLGPU_REDUCE_ARGMIN:
    case CLGPU_REDUCE_ARGMAX:
    case CLGPU_REDUCE_COUNT:
      return CLGPU_TYPE_UINT64;
    case CLGPU_REDUCE_ANY:
    case CLGPU_REDUCE_ALL:
      return CLGPU_TYPE_INT32;
    case CLGPU_REDUCE_CUSTOM:
      return c->op.result_type;
    default:
      return input;
  }
}

/* ---- host models ---- */

typedef enum check_mode {
  CHECK_EXACT,
  CHECK_FLOAT_SUM,
  CHECK_FLOAT_PRODUCT,
  CHECK_MAX_ABS
} check_mode;

/* What a result must be. */
typedef struct expectation {
  check_mode mode;
  clgpu_type type; /* the result type */
  uint64_t bits;   /* CHECK_EXACT, CHECK_MAX_ABS */
  int nan_or_zero; /* CHECK_MAX_ABS over only NaNs: fmax may keep a NaN or give neutral */
  /* CHECK_FLOAT_SUM and CHECK_FLOAT_PRODUCT: the exact sum (product) of the
   * finite terms, the sum of their magnitudes, the number of terms, which
   * specials there were, and whether every partial sum is exact. */
  long double value;
  long double magnitude;
  size_t terms;
  int has_nan, has_positive_infinity, has_negative_infinity, exact;
} expectation;

/* The MIN or MAX of `line` and, when `has_extra`, one more element: data.h's
 * references (NaNs ignored unless all are, -0 below +0), and the same rule
 * written out for half. */
static uint64_t reference_extreme(const unsigned char *line, size_t n, clgpu_type type, int largest,
                                  int has_extra, uint64_t extra) {
  size_t count = n + (has_extra ? 1 : 0), size = clgpu_type_size(type);
  unsigned char *all = allocate_elements(count, type);
  if (n) memcpy(all, line, n * size);
  if (has_extra) store_bits(all, n, type, extra);
  uint64_t result;
  if (type != CLGPU_TYPE_HALF) {
    unsigned char element[8];
    if (largest) {
      test_reference_reduce_max(all, count, to_test_type(type), element);
    } else {
      test_reference_reduce_min(all, count, to_test_type(type), element);
    }
    result = load_bits(element, 0, type);
  } else {
    int found = 0, found_nan = 0;
    uint64_t best = 0, best_nan = 0;
    for (size_t i = 0; i < count; i++) {
      uint64_t bits = load_bits(all, i, type), key = order_key(bits, type);
      int nan = bits_are_nan(bits, type);
      int *seen = nan ? &found_nan : &found;
      uint64_t *kept = nan ? &best_nan : &best;
      uint64_t kept_key = order_key(*kept, type);
      if (!*seen || (largest ? key > kept_key : key < kept_key)) {
        *kept = bits;
        *seen = 1;
      }
    }
    result = found ? best : found_nan ? best_nan : largest ? lowest_bits(type) : highest_bits(type);
  }
  free(all);
  return result;
}

/* Sum or product terms of a float reduction; see check_result. */
static void float_terms(expectation *e, int product, const unsigned char *line, size_t n,
                        clgpu_type type, int has_initial, uint64_t initial) {
  e->mode = product ? CHECK_FLOAT_PRODUCT : CHECK_FLOAT_SUM;
  e->value = product ? 1.0L : 0.0L;
  e->magnitude = 0.0L;
  e->exact = 1;
  for (size_t k = 0; k < n + (has_initial ? 1 : 0); k++) {
    uint64_t bits = k < n ? load_bits(line, k, type) : initial;
    e->terms++;
    if (bits_are_nan(bits, type)) {
      e->has_nan = 1;
      continue;
    }
    if (bits_are_infinite(bits, type)) {
      if (bits & top_bit(type)) {
        e->has_negative_infinity = 1;
      } else {
        e->has_positive_infinity = 1;
      }
      continue;
    }
    long double value = value_of(bits, type);
    if (product) {
      e->value *= value;
    } else {
      e->value += value;
      e->magnitude += fabsl(value);
    }
    if (value != floorl(value)) e->exact = 0;
  }
  if (product || e->magnitude > type_exact_integers(type)) e->exact = 0;
}

/* The expected result of `c` over the n elements of `line` (contiguous, in
 * the order of the reduction; element k has index k). */
static void model(const op_case *c, clgpu_type type, const unsigned char *line, size_t n,
                  expectation *e) {
  memset(e, 0, sizeof *e);
  e->type = model_result_type(c, type);
  e->mode = CHECK_EXACT;
  uint64_t mask = width_mask(e->type);
  switch (c->op.kind) {
    case CLGPU_REDUCE_SUM:
    case CLGPU_REDUCE_PRODUCT: {
      int product = c->op.kind == CLGPU_REDUCE_PRODUCT;
      if (is_float_type(type)) {
        float_terms(e, product, line, n, type, c->has_initial, c->initial_bits);
        break;
      }
      /* Wrapping like unsigned arithmetic: the low bits of the sum and
       * product of the zero-extended bits are those of the signed ones. */
      uint64_t accumulator = product ? 1 : 0;
      for (size_t k = 0; k < n; k++) {
        uint64_t bits = load_bits(line, k, type);
        accumulator = product ? accumulator * bits : accumulator + bits;
      }
      if (c->has_initial) {
        accumulator = product ? accumulator * c->initial_bits : accumulator + c->initial_bits;
      }
      e->bits = accumulator & mask;
      break;
    }
    case CLGPU_REDUCE_MIN:
    case CLGPU_REDUCE_MAX:
      e->bits = reference_extreme(line, n, type, c->op.kind == CLGPU_REDUCE_MAX, c->has_initial,
                                  c->initial_bits);
      break;
    case CLGPU_REDUCE_ARGMIN:
    case CLGPU_REDUCE_ARGMAX: {
      e->bits = UINT64_MAX;
      if (n == 0) break;
      uint64_t extreme = reference_extreme(line, n, type, c->op.kind == CLGPU_REDUCE_ARGMAX, 0, 0);
      for (size_t k = 0; k < n; k++) {
        if (load_bits(line, k, type) == extreme) {
          e->bits = k;
          break;
        }
      }
      break;
    }
    case CLGPU_REDUCE_COUNT: {
      uint64_t count = 0;
      for (size_t k = 0; k < n; k++) count += !bits_are_zero(load_bits(line, k, type), type);
      e->bits = count + (c->has_initial ? c->initial_bits : 0);
      break;
    }
    case CLGPU_REDUCE_ANY:
    case CLGPU_REDUCE_ALL: {
      int all = c->op.kind == CLGPU_REDUCE_ALL, result = all;
      for (size_t k = 0; k < n; k++) {
        int nonzero = !bits_are_zero(load_bits(line, k, type), type);
        result = all ? result && nonzero : result || nonzero;
      }
      if (c->has_initial) {
        result = all ? result && c->initial_bits != 0 : result || c->initial_bits != 0;
      }
      e->bits = (uint64_t)result;
      break;
    }
    case CLGPU_REDUCE_CUSTOM:
      switch (c->model) {
        case MAX_ABS:
          if (is_float_type(type)) {
            /* fmax returns the other operand when one is a NaN, so NaNs drop
             * out; with only NaNs the result is a NaN or the neutral +0,
             * depending on whether a NaN ever meets a number. */
            long double best = 0.0L;
            int only_nans = n > 0;
            for (size_t k = 0; k < n; k++) {
              uint64_t bits = load_bits(line, k, type);
              if (bits_are_nan(bits, type)) continue;
              only_nans = 0;
              long double magnitude = fabsl(value_of(bits, type));
              if (magnitude > best) best = magnitude;
            }
            if (c->has_initial) {
              long double initial = value_of(c->initial_bits, e->type);
              if (initial > best) best = initial;
              only_nans = 0;
            }
            e->mode = CHECK_MAX_ABS;
            e->bits = bits_of_value(best, e->type);
            e->nan_or_zero = only_nans;
          } else {
            uint64_t best = 0;
            for (size_t k = 0; k < n; k++) {
              uint64_t bits = load_bits(line, k, type);
              uint64_t magnitude = bits;
              if (is_signed_integer(type) && signed_value(bits, type) < 0) {
                magnitude = (0 - (uint64_t)signed_value(bits, type)) & width_mask(type);
              }
              if (magnitude > best) best = magnitude;
            }
            if (c->has_initial && c->initial_bits > best) best = c->initial_bits;
            e->bits = best;
          }
          break;
        case WEIGHTED_SUM: {
          uint64_t accumulator = c->has_initial ? c->initial_bits : 0;
          for (size_t k = 0; k < n; k++) {
            uint64_t bits = load_bits(line, k, type);
            uint64_t widened = is_signed_integer(type) ? (uint64_t)signed_value(bits, type) : bits;
            accumulator += widened * (uint64_t)(k + 1);
          }
          e->bits = accumulator;
          break;
        }
        case PLAIN_SUM:
          if (is_float_type(type)) {
            float_terms(e, 0, line, n, type, c->has_initial, c->initial_bits);
          } else {
            uint64_t accumulator = c->has_initial ? c->initial_bits : 0;
            for (size_t k = 0; k < n; k++) accumulator += load_bits(line, k, type);
            e->bits = accumulator & mask;
          }
          break;
        case NOT_CUSTOM:
          fail_msg("custom op without a model");
          break;
      }
      break;
  }
}

/* Whether `actual` (one element of the result type) meets `e`; on a
 * mismatch `why` says how.
 *
 * Float sums. Any order of adding n terms rounds each addition by at most
 * u = eps/2 relative, which gives |computed - exact| <= gamma(n-1) * sum|x|
 * with gamma(k) = k u / (1 - k u) (Higham, Accuracy and Stability of
 * Numerical Algorithms, 4.2); for the n here k u < 0.01, so gamma(n-1) <=
 * n * eps. The model's sum is computed in long double (64-bit mantissa on
 * x86, 113 on AArch64) whose own error is far smaller; the bound allows 2 n
 * eps * sum|x| to cover both with margin, plus n * the smallest normal for a
 * device that flushes denormal sums to 0. When every term is an integer and
 * sum|x| fits the mantissa, every partial sum is exact and the bound is 0
 * (the sign of a zero result is not checked: -0 + +0 rounds either way).
 * Specials: a NaN term, or +inf and -inf, make the result NaN in any
 * order; one infinity makes it that infinity. A partial sum can only
 * overflow when sum|x| * (1 + 2 n eps) reaches the type's largest value;
 * only then may the result be an infinity or a NaN it would not otherwise
 * be (two partial sums overflowing with opposite signs give a NaN).
 *
 * Float products (of the narrow inputs only, which never overflow or go
 * denormal): each multiplication rounds by at most u relative, so any order
 * gives |computed - exact| <= gamma(n-1) |exact|; the check allows
 * 2 n eps |exact|. */
static int check_result(const expectation *e, const void *actual, char *why, size_t size) {
  uint64_t bits = load_bits(actual, 0, e->type);
  long double value = value_of(bits, e->type);
  switch (e->mode) {
    case CHECK_EXACT:
      if (bits == e->bits) return 1;
      snprintf(why, size, "got %Lg (bits 0x%llx), expected %Lg (bits 0x%llx)", value,
               (unsigned long long)bits, value_of(e->bits, e->type), (unsigned long long)e->bits);
      return 0;
    case CHECK_MAX_ABS: {
      if (e->nan_or_zero) {
        if (bits_are_nan(bits, e->type) || bits == 0) return 1;
        snprintf(why, size, "got %Lg (bits 0x%llx), expected a NaN or +0 (every element a NaN)",
                 value, (unsigned long long)bits);
        return 0;
      }
      if (bits == e->bits) return 1;
      long double expected = value_of(e->bits, e->type);
      if (!type_has_denormals(e->type) && fabsl(value - expected) <= type_min_normal(e->type)) {
        return 1;
      }
      snprintf(why, size, "got %Lg (bits 0x%llx), expected %Lg (bits 0x%llx)", value,
               (unsigned long long)bits, expected, (unsigned long long)e->bits);
      return 0;
    }
    case CHECK_FLOAT_PRODUCT: {
      long double bound = 2.0L * (long double)e->terms * type_epsilon(e->type) * fabsl(e->value);
      if (isfinite(value) && fabsl(value - e->value) <= bound) return 1;
      snprintf(why, size, "got %.21Lg (bits 0x%llx), expected %.21Lg within %Lg (%zu terms)", value,
               (unsigned long long)bits, e->value, bound, e->terms);
      return 0;
    }
    case CHECK_FLOAT_SUM: {
      long double n = (long double)e->terms, eps = type_epsilon(e->type);
      int overflow = e->magnitude * (1.0L + 2.0L * n * eps) >= type_max(e->type);
      int nan = bits_are_nan(bits, e->type), infinite = bits_are_infinite(bits, e->type);
      int negative = (bits & top_bit(e->type)) != 0;
      long double bound =
          e->exact ? 0.0L : 2.0L * n * eps * e->magnitude + n * type_min_normal(e->type);
      int ok;
      const char *expected_text;
      if (e->has_nan || (e->has_positive_infinity && e->has_negative_infinity)) {
        ok = nan;
        expected_text = "a NaN";
      } else if (e->has_positive_infinity) {
        ok = (infinite && !negative) || (nan && overflow);
        expected_text = "+inf";
      } else if (e->has_negative_infinity) {
        ok = (infinite && negative) || (nan && overflow);
        expected_text = "-inf";
      } else if (nan || infinite) {
        ok = overflow;
        expected_text = "a finite sum (no partial sum can overflow)";
      } else {
        ok = fabsl(value - e->value) <= bound;
        expected_text = "the sum within the bound";
      }
      if (ok) return 1;
      snprintf(why, size,
               "got %.21Lg (bits 0x%llx), expected %s: exact sum %.21Lg, sum of magnitudes %Lg, "
               "bound %Lg, %zu terms",
               value, (unsigned long long)bits, expected_text, e->value, e->magnitude, bound,
               e->terms);
      return 0;
    }
  }
  return 0;
}

/* ---- running reductions ---- */

/* How a call chooses its algorithm. */
typedef struct run_mode {
  const char *name;
  int null_options; /* pass NULL options: AUTO, no workspace */
  clgpu_shape algorithm;
} run_mode;

static const run_mode CHUNKED = {"chunked", 0, CLGPU_SHAPE_CHUNKED};
static const run_mode TILED = {"tiled", 0, CLGPU_SHAPE_TILED};
static const run_mode AUTO_NULL = {"auto (NULL options)", 1, CLGPU_SHAPE_AUTO};
static const run_mode AUTO_ZEROED = {"auto (zeroed options)", 0, CLGPU_SHAPE_AUTO};

/* The algorithm a (type, op) pair runs with unless a test asks for both.
 * A program is built per (operator, type, algorithm) and a cold build costs
 * about 0.25 s on POCL, so most pairs run one algorithm: CHUNKED and TILED
 * alternate over the types and over the ops (builtin kinds in enum order,
 * then max-abs, index-weighted sum and plain custom sum), so that every type
 * and every kind meets both. The pairs that run both are the ones named in
 * sizes_around_tiles_and_chunks, float_sums_are_deterministic,
 * along_an_axis and workspace_given_by_the_caller. */
static size_t type_index(clgpu_type type) {
  switch (type) {
    case CLGPU_TYPE_FLOAT:
      return 8;
    case CLGPU_TYPE_DOUBLE:
      return 9;
    case CLGPU_TYPE_HALF:
      return 10;
    default:
      return (size_t)type - (size_t)CLGPU_TYPE_INT8;
  }
}

static size_t op_index(const op_case *c) {
  if (c->op.kind != CLGPU_REDUCE_CUSTOM) return (size_t)c->op.kind - 1;
  return 8 + (size_t)c->model;
}

static run_mode home_mode(clgpu_type type, const op_case *c) {
  return (type_index(type) + op_index(c)) % 2 ? TILED : CHUNKED;
}

static run_mode other_mode(clgpu_type type, const op_case *c) {
  return (type_index(type) + op_index(c)) % 2 ? CHUNKED : TILED;
}

/* Wait for an event a successful call returned, check it completed, and
 * release it. */
static void finish_event(cl_event event, const char *label) {
  if (event == NULL) fail_msg("%s: no event returned", label);
  assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
  if (test_event_status(event) != CL_COMPLETE) fail_msg("%s: the event did not complete", label);
  clReleaseEvent(event);
}

static void call_reduce(clgpu_context *context, const op_case *c, const clgpu_array *input,
                        int axis, const clgpu_array *output, run_mode mode, const char *label) {
  clgpu_call_options options = {.shape = mode.algorithm, .workspace = NULL};
  cl_event event = NULL;
  clgpu_status status = clgpu_reduce(context, &c->op, axis, output, input,
                                     mode.null_options ? NULL : &options, 0, NULL, &event);
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s, %s, %s: clgpu_reduce gave %s (%d): %s", label, c->name, mode.name,
             clgpu_status_name(status), (int)status, clgpu_last_error());
  }
  finish_event(event, label);
}

/* An input in a guarded buffer of its own, as a 1-D contiguous view. */
typedef struct device_input {
  test_guarded guarded;
  clgpu_array view;
} device_input;

static device_input upload(clgpu_context *context, const unsigned char *host, size_t n,
                           clgpu_type type) {
  device_input input;
  input.guarded = test_guarded_create(context, n * clgpu_type_size(type), host);
  assert_status(clgpu_array_1d(input.guarded.buffer, input.guarded.offset, type, n, &input.view),
                CLGPU_SUCCESS);
  return input;
}

/* Check an input region still holds `host` and its guards are intact. */
static void check_unchanged(clgpu_context *context, const test_guarded *guarded,
                            const unsigned char *host, const char *label) {
  unsigned char *now = malloc(guarded->region_bytes + 1);
  assert_non_null(now);
  test_guarded_read(context, guarded, now);
  if (guarded->region_bytes && memcmp(now, host, guarded->region_bytes) != 0) {
    fail_msg("%s: the input changed", label);
  }
  free(now);
  test_guarded_check(context, guarded, label);
}

/* The shapes of a one-element output for whole-array reductions. */
typedef enum single_output { SINGLE_1D, SINGLE_RANK0, SINGLE_RANK3 } single_output;

/* Reduce the whole of `input` into a fresh guarded one-element output and
 * check the result against the model of `line` (the input's elements in
 * row-major order). */
static void reduce_whole_and_check(clgpu_context *context, const op_case *c,
                                   const clgpu_array *input, const unsigned char *line, size_t n,
                                   single_output shape, run_mode mode, const char *label) {
  clgpu_type result_type = model_result_type(c, input->type);
  size_t size = clgpu_type_size(result_type);
  test_guarded output = test_guarded_create(context, size, NULL);
  clgpu_array view;
  if (shape == SINGLE_RANK3) {
    const size_t ones[3] = {1, 1, 1};
    const ptrdiff_t strides[3] = {5, -2, 3};
    assert_status(
        clgpu_array_strided(output.buffer, output.offset, result_type, 3, ones, strides, &view),
        CLGPU_SUCCESS);
  } else {
    assert_status(
        clgpu_array_nd(output.buffer, output.offset, result_type, shape == SINGLE_RANK0 ? 0 : 1,
                       (const size_t[]){1}, CLGPU_ORDER_ROW_MAJOR, &view),
        CLGPU_SUCCESS);
  }
  call_reduce(context, c, input, CLGPU_ALL_AXES, &view, mode, label);
  unsigned char actual[8];
  test_guarded_read(context, &output, actual);
  test_guarded_check(context, &output, label);
  test_guarded_release(&output);
  expectation e;
  model(c, input->type, line, n, &e);
  char why[512];
  if (!check_result(&e, actual, why, sizeof why)) {
    fail_msg("%s, %s, %s: %s", label, c->name, mode.name, why);
  }
}

/* ---- clgpu_reduce_result_type ---- */

static void result_types(void **state) {
  (void)state;
  static const clgpu_type types[] = {CLGPU_TYPE_INT8,   CLGPU_TYPE_UINT8,  CLGPU_TYPE_INT16,
                                     CLGPU_TYPE_UINT16, CLGPU_TYPE_INT32,  CLGPU_TYPE_UINT32,
                                     CLGPU_TYPE_INT64,  CLGPU_TYPE_UINT64, CLGPU_TYPE_HALF,
                                     CLGPU_TYPE_FLOAT,  CLGPU_TYPE_DOUBLE};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    for (size_t k = 0; k < BUILTIN_KIND_COUNT; k++) {
      op_case c = builtin_op(builtin_kinds[k]);
      if (clgpu_reduce_result_type(&c.op, types[t]) != model_result_type(&c, types[t])) {
        fail_msg("result type of %s over %s: %d, expected %d", c.name, clgpu_type_cl_name(types[t]),
                 (int)clgpu_reduce_result_type(&c.op, types[t]),
                 (int)model_result_type(&c, types[t]));
      }
    }
    op_case custom = max_abs_op(types[t]);
    assert_int_equal(clgpu_reduce_result_type(&custom.op, types[t]), custom.op.result_type);
    /* An invalid input type, an unknown kind, and CUSTOM without a result
     * type give 0. */
    custom.op.result_type = (clgpu_type)0;
    assert_int_equal(clgpu_reduce_result_type(&custom.op, types[t]), 0);
    custom.op.result_type = (clgpu_type)99;
    assert_int_equal(clgpu_reduce_result_type(&custom.op, types[t]), 0);
    op_case unknown = builtin_op((clgpu_reduce_kind)0);
    assert_int_equal(clgpu_reduce_result_type(&unknown.op, types[t]), 0);
    unknown.op.kind = (clgpu_reduce_kind)(CLGPU_REDUCE_CUSTOM + 1);
    assert_int_equal(clgpu_reduce_result_type(&unknown.op, types[t]), 0);
  }
  op_case sum = builtin_op(CLGPU_REDUCE_SUM);
  assert_int_equal(clgpu_reduce_result_type(&sum.op, (clgpu_type)0), 0);
  assert_int_equal(clgpu_reduce_result_type(&sum.op, (clgpu_type)99), 0);
}

/* ---- every kind, type and distribution ---- */

static const clgpu_type integer_types[] = {CLGPU_TYPE_INT8,   CLGPU_TYPE_UINT8, CLGPU_TYPE_INT16,
                                           CLGPU_TYPE_UINT16, CLGPU_TYPE_INT32, CLGPU_TYPE_UINT32,
                                           CLGPU_TYPE_INT64,  CLGPU_TYPE_UINT64};

/* data.h's distributions plus sawtooths with this implementation's own
 * periods: 64 (chunk lengths are multiples of it) and 2048 (the TILED tile
 * when G = 256), each and one more. */
static test_distribution_case matrix_distribution(size_t index) {
  static const test_distribution_case extra[] = {
      {TEST_SAWTOOTH, 64}, {TEST_SAWTOOTH, 65}, {TEST_SAWTOOTH, 2048}, {TEST_SAWTOOTH, 2049}};
  if (index < test_distribution_case_count) return test_distribution_cases[index];
  return extra[index - test_distribution_case_count];
}

static size_t matrix_distribution_count(void) { return test_distribution_case_count + 4; }

/* The ops of the matrix for a type: every builtin kind and max-abs. */
static size_t matrix_ops(clgpu_type type, op_case *ops) {
  size_t count = 0;
  for (size_t k = 0; k < BUILTIN_KIND_COUNT; k++) ops[count++] = builtin_op(builtin_kinds[k]);
  ops[count++] = max_abs_op(type);
  return count;
}

/* Run every op of the matrix over one input (and, for float products, its
 * narrow image) of one type. */
static void run_matrix_input(clgpu_context *context, clgpu_type type, size_t n,
                             test_distribution distribution, size_t parameter) {
  uint64_t seed = input_seed("reduce", n, type, distribution, parameter);
  unsigned char *host = generate(DATA_DISTRIBUTION, n, type, distribution, parameter, seed);
  device_input input = upload(context, host, n, type);
  unsigned char *narrow = NULL;
  device_input narrow_input;
  if (is_float_type(type)) {
    narrow = allocate_elements(n, type);
    if (n) memcpy(narrow, host, n * clgpu_type_size(type));
    narrow_from(narrow, n, type, n);
    narrow_input = upload(context, narrow, n, type);
  }
  char label[400];
  describe_input(label, sizeof label, "reduce", n, type, DATA_DISTRIBUTION, distribution, parameter,
                 seed);
  op_case ops[16];
  size_t op_count = matrix_ops(type, ops);
  for (size_t k = 0; k < op_count; k++) {
    int narrowed = narrow && ops[k].op.kind == CLGPU_REDUCE_PRODUCT;
    char op_label[480];
    snprintf(op_label, sizeof op_label, "%s%s", label,
             narrowed ? " (narrowed to [2^-w, 2^w] for the product)" : "");
    /* The output's shape cycles through the one-element forms. */
    reduce_whole_and_check(context, &ops[k], narrowed ? &narrow_input.view : &input.view,
                           narrowed ? narrow : host, n, (single_output)((k + n) % 3),
                           home_mode(type, &ops[k]), op_label);
  }
  check_unchanged(context, &input.guarded, host, label);
  test_guarded_release(&input.guarded);
  if (narrow) {
    check_unchanged(context, &narrow_input.guarded, narrow, label);
    test_guarded_release(&narrow_input.guarded);
    free(narrow);
  }
  free(host);
}

static void run_matrix(clgpu_context *context, const clgpu_type *types, size_t type_count) {
  static const size_t sizes[] = {93, 2049, 16385};
  size_t size_count = facts.oclgrind ? 1 : sizeof sizes / sizeof sizes[0];
  for (size_t t = 0; t < type_count; t++) {
    /* Sizes 0 and 1 need one distribution each. */
    run_matrix_input(context, types[t], 0, TEST_UNIFORM, 0);
    run_matrix_input(context, types[t], 1, TEST_UNIFORM, 0);
    run_matrix_input(context, types[t], 1, TEST_FLOAT_SPECIALS, 0);
    for (size_t s = 0; s < size_count; s++) {
      for (size_t d = 0; d < matrix_distribution_count(); d++) {
        /* On Oclgrind every third distribution, a different third per
         * type. */
        if (facts.oclgrind && (d + t) % 3 != 0) continue;
        test_distribution_case dc = matrix_distribution(d);
        run_matrix_input(context, types[t], sizes[s], dc.distribution, dc.parameter);
      }
    }
  }
}

static void every_kind_integers(void **state) {
  (void)state;
  clgpu_context *context = open_context();
  if (facts.oclgrind) {
    static const clgpu_type few[] = {CLGPU_TYPE_INT8, CLGPU_TYPE_INT32, CLGPU_TYPE_UINT64};
    run_matrix(context, few, sizeof few / sizeof few[0]);
  } else {
    run_matrix(context, integer_types, sizeof integer_types / sizeof integer_types[0]);
  }
}

static void every_kind_float(void **state) {
  (void)state;
  clgpu_context *context = open_context();
  const clgpu_type type = CLGPU_TYPE_FLOAT;
  run_matrix(context, &type, 1);
}

/* ---- determinism ---- */

/* Sum `host` (n floats or doubles) with each algorithm twice from a
 * contiguous view and once from a view with stride 2 holding the same
 * sequence: the three results must be the same bits (reduce.h: the
 * combining order depends only on n, the algorithm and the device, and a
 * strided view is packed in row-major order first), and within the bound of
 * the model. */
static void check_deterministic_sum(clgpu_context *context, clgpu_type type, size_t n,
                                    data_kind kind, test_distribution distribution) {
  char label[400];
  uint64_t seed = input_seed("reduce determinism", n, type, distribution, 0);
  describe_input(label, sizeof label, "reduce determinism", n, type, kind, distribution, 0, seed);
  unsigned char *host = generate(kind, n, type, distribution, 0, seed);
  size_t size = clgpu_type_size(type);
  device_input input = upload(context, host, n, type);
  unsigned char *spread = allocate_elements(2 * n, type);
  memset(spread, 0x5a, 2 * n * size);
  for (size_t i = 0; i < n; i++) store_bits(spread, 2 * i, type, load_bits(host, i, type));
  test_guarded spread_buffer = test_guarded_create(context, 2 * n * size, spread);
  clgpu_array strided;
  assert_status(clgpu_array_strided(spread_buffer.buffer, spread_buffer.offset, type, 1,
                                    (const size_t[]){n}, (const ptrdiff_t[]){2}, &strided),
                CLGPU_SUCCESS);
  op_case sum = builtin_op(CLGPU_REDUCE_SUM);
  const run_mode modes[] = {CHUNKED, TILED};
  for (size_t m = 0; m < 2; m++) {
    uint64_t bits[3];
    for (int run = 0; run < 3; run++) {
      test_guarded output = test_guarded_create(context, size, NULL);
      clgpu_array view;
      assert_status(clgpu_array_1d(output.buffer, output.offset, type, 1, &view), CLGPU_SUCCESS);
      call_reduce(context, &sum, run < 2 ? &input.view : &strided, CLGPU_ALL_AXES, &view, modes[m],
                  label);
      unsigned char actual[8];
      test_guarded_read(context, &output, actual);
      test_guarded_check(context, &output, label);
      test_guarded_release(&output);
      bits[run] = load_bits(actual, 0, type);
      expectation e;
      model(&sum, type, host, n, &e);
      char why[512];
      if (!check_result(&e, actual, why, sizeof why)) {
        fail_msg("%s, %s, run %d: %s", label, modes[m].name, run, why);
      }
    }
    if (bits[0] != bits[1] || bits[0] != bits[2]) {
      fail_msg("%s, %s: not deterministic: 0x%llx, then 0x%llx, then 0x%llx from the strided view",
               label, modes[m].name, (unsigned long long)bits[0], (unsigned long long)bits[1],
               (unsigned long long)bits[2]);
    }
  }
  check_unchanged(context, &input.guarded, host, label);
  test_guarded_release(&input.guarded);
  test_guarded_release(&spread_buffer);
  free(spread);
  free(host);
}

static void float_sums_are_deterministic(void **state) {
  (void)state;
  clgpu_context *context = open_context();
  const size_t large = facts.oclgrind ? 4099 : 65537;
  check_deterministic_sum(context, CLGPU_TYPE_FLOAT, large, DATA_UNIT_INTERVAL, TEST_UNIFORM);
  check_deterministic_sum(context, CLGPU_TYPE_FLOAT, facts.oclgrind ? 2049 : 16385,
                          DATA_UNIT_INTERVAL, TEST_UNIFORM);
  /* Every exponent: rounding at every scale, and overflow to infinities
   * whose sign depends on the order. */
  check_deterministic_sum(context, CLGPU_TYPE_FLOAT, large, DATA_DISTRIBUTION,
                          TEST_SORTED_1PCT_SWAPS);
}

/* A device without the type's extension: sum, min and max over it are
 * refused with CLGPU_UNSUPPORTED_FEATURE and a message naming the
 * extension, no event made, the output and its guards unchanged. */
static void refused_without_extension(clgpu_context *context, clgpu_type type,
                                      const char *extension) {
  static const clgpu_reduce_kind kinds[] = {CLGPU_REDUCE_SUM, CLGPU_REDUCE_MIN, CLGPU_REDUCE_MAX};
  unsigned char host[7 * 8] = {0};
  device_input input = upload(context, host, 7, type);
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    test_guarded output = test_guarded_create(context, clgpu_type_size(type), NULL);
    unsigned char before[8], after[8];
    test_guarded_read(context, &output, before);
    clgpu_array view;
    assert_status(clgpu_array_1d(output.buffer, output.offset, type, 1, &view), CLGPU_SUCCESS);
    op_case c = builtin_op(kinds[k]);
    cl_event event = NULL;
    clgpu_status status =
        clgpu_reduce(context, &c.op, CLGPU_ALL_AXES, &view, &input.view, NULL, 0, NULL, &event);
    if (status != CLGPU_UNSUPPORTED_FEATURE || !strstr(clgpu_last_error(), extension)) {
      fail_msg(
          "%s over %s without %s: %s (%d), \"%s\"; expected CLGPU_UNSUPPORTED_FEATURE "
          "naming the extension",
          c.name, type == CLGPU_TYPE_HALF ? "half" : "double", extension, clgpu_status_name(status),
          (int)status, clgpu_last_error());
    }
    assert_null(event);
    test_guarded_read(context, &output, after);
    assert_memory_equal(before, after, clgpu_type_size(type));
    test_guarded_check(context, &output, c.name);
    test_guarded_release(&output);
  }
  test_guarded_release(&input.guarded);
}

/* double: the matrix and the determinism check; refused without fp64. */
static void every_kind_double(void **state) {
  (void)state;
  clgpu_context *context = open_context();
  if (!facts.has_fp64) {
    refused_without_extension(context, CLGPU_TYPE_DOUBLE, "cl_khr_fp64");
    return;
  }
  const clgpu_type type = CLGPU_TYPE_DOUBLE;
  run_matrix(context, &type, 1);
  check_deterministic_sum(context, CLGPU_TYPE_DOUBLE, facts.oclgrind ? 4099 : 65537,
                          DATA_UNIT_INTERVAL, TEST_UNIFORM);
}

/* ---- half, where the device has it ---- */

static void every_kind_half(void **state) {
  (void)state;
  clgpu_context *context = open_context();
  if (!facts.has_fp16) {
    refused_without_extension(context, CLGPU_TYPE_HALF, "cl_khr_fp16");
    return;
  }
  /* Sums use small integers below 2048 (exact in half: n <= 130 of them,
   * each < 16); products the narrow image; the rest random bits, which in
   * half include NaNs, infinities and denormals often. */
  static const size_t sizes[] = {0, 1, 7, 93, 130};
  op_case ops[16];
  size_t op_count = matrix_ops(CLGPU_TYPE_HALF, ops);
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    size_t n = sizes[s];
    static const test_distribution distributions[] = {TEST_UNIFORM, TEST_SMALL_INTEGERS,
                                                      TEST_FEW_UNIQUE, TEST_HIGH_BIT_ONLY};
    for (size_t d = 0; d < sizeof distributions / sizeof distributions[0]; d++) {
      uint64_t seed = input_seed("reduce", n, CLGPU_TYPE_HALF, distributions[d], 0);
      for (size_t k = 0; k < op_count; k++) {
        int product = ops[k].op.kind == CLGPU_REDUCE_PRODUCT;
        int sum = ops[k].op.kind == CLGPU_REDUCE_SUM;
        data_kind kind = product ? DATA_NARROW : DATA_DISTRIBUTION;
        test_distribution distribution = sum ? TEST_SMALL_INTEGERS : distributions[d];
        unsigned char *host = generate(kind, n, CLGPU_TYPE_HALF, distribution, 0, seed);
        device_input input = upload(context, host, n, CLGPU_TYPE_HALF);
        char label[400];
        describe_input(label, sizeof label, "reduce", n, CLGPU_TYPE_HALF, kind, distribution, 0,
                       seed);
        reduce_whole_and_check(context, &ops[k], &input.view, host, n, SINGLE_1D,
                               home_mode(CLGPU_TYPE_HALF, &ops[k]), label);
        check_unchanged(context, &input.guarded, host, label);
        test_guarded_release(&input.guarded);
        free(host);
      }
    }
  }
}

/* ---- sizes around tiles and chunks ---- */

typedef struct size_row {
  clgpu_type type;
  op_case op;
  data_kind kind;
  test_distribution distribution;
  size_t parameter;
  int both; /* run the other algorithm too */
} size_row;

/* Inputs that show a dropped, doubled or misplaced element at a boundary:
 * the only non-zero element last (ANY), the only zero last (ALL), the
 * minimum last (ARGMIN), two values tied across tiles (ARGMAX, ARGMIN), an
 * index-weighted sum (each element's index), odd factors (products never
 * reach 0). */
static size_t size_rows(size_row *rows) {
  size_t count = 0;
#define ROW(type_, op_, kind_, distribution_, parameter_, both_) \
  rows[count++] = (size_row){type_, op_, kind_, distribution_, parameter_, both_}
  ROW(CLGPU_TYPE_INT32, builtin_op(CLGPU_REDUCE_SUM), DATA_DISTRIBUTION, TEST_UNIFORM, 0, 1);
  ROW(CLGPU_TYPE_INT32, builtin_op(CLGPU_REDUCE_PRODUCT), DATA_ODD, TEST_UNIFORM, 0, 0);
  ROW(CLGPU_TYPE_INT32, builtin_op(CLGPU_REDUCE_MIN), DATA_DISTRIBUTION, TEST_UNIFORM, 0, 0);
  ROW(CLGPU_TYPE_INT32, builtin_op(CLGPU_REDUCE_MAX), DATA_DISTRIBUTION, TEST_SAWTOOTH, 2049, 0);
  ROW(CLGPU_TYPE_INT32, builtin_op(CLGPU_REDUCE_ARGMIN), DATA_LOWEST_LAST, TEST_UNIFORM, 0, 1);
  ROW(CLGPU_TYPE_INT32, builtin_op(CLGPU_REDUCE_ARGMAX), DATA_DISTRIBUTION, TEST_FEW_UNIQUE, 2, 0);
  ROW(CLGPU_TYPE_INT32, builtin_op(CLGPU_REDUCE_COUNT), DATA_DISTRIBUTION, TEST_SMALL_INTEGERS, 2,
      0);
  ROW(CLGPU_TYPE_INT32, builtin_op(CLGPU_REDUCE_ANY), DATA_ZEROS_THEN_ONE, TEST_UNIFORM, 0, 1);
  ROW(CLGPU_TYPE_INT32, builtin_op(CLGPU_REDUCE_ALL), DATA_ONES_THEN_ZERO, TEST_UNIFORM, 0, 0);
  ROW(CLGPU_TYPE_INT32, weighted_sum_op(), DATA_DISTRIBUTION, TEST_UNIFORM, 0, 1);
  ROW(CLGPU_TYPE_FLOAT, builtin_op(CLGPU_REDUCE_SUM), DATA_UNIT_INTERVAL, TEST_UNIFORM, 0, 1);
  ROW(CLGPU_TYPE_FLOAT, builtin_op(CLGPU_REDUCE_SUM), DATA_DISTRIBUTION, TEST_SMALL_INTEGERS, 16,
      1);
  ROW(CLGPU_TYPE_FLOAT, builtin_op(CLGPU_REDUCE_PRODUCT), DATA_NARROW, TEST_UNIFORM, 0, 0);
  ROW(CLGPU_TYPE_FLOAT, builtin_op(CLGPU_REDUCE_MIN), DATA_DISTRIBUTION, TEST_FLOAT_SPECIALS, 0, 1);
  ROW(CLGPU_TYPE_FLOAT, builtin_op(CLGPU_REDUCE_ARGMIN), DATA_DISTRIBUTION, TEST_FEW_UNIQUE, 16, 0);
  ROW(CLGPU_TYPE_FLOAT, builtin_op(CLGPU_REDUCE_ARGMAX), DATA_DISTRIBUTION, TEST_FEW_UNIQUE, 2, 0);
  ROW(CLGPU_TYPE_FLOAT, max_abs_op(CLGPU_TYPE_FLOAT), DATA_DISTRIBUTION, TEST_FLOAT_SPECIALS, 0, 0);
  ROW(CLGPU_TYPE_UINT8, builtin_op(CLGPU_REDUCE_SUM), DATA_DISTRIBUTION, TEST_UNIFORM, 0, 1);
  ROW(CLGPU_TYPE_UINT8, builtin_op(CLGPU_REDUCE_MAX), DATA_DISTRIBUTION, TEST_SAWTOOTH, 2048, 0);
  ROW(CLGPU_TYPE_INT64, builtin_op(CLGPU_REDUCE_SUM), DATA_DISTRIBUTION, TEST_UNIFORM, 0, 0);
  ROW(CLGPU_TYPE_INT64, builtin_op(CLGPU_REDUCE_ARGMIN), DATA_DISTRIBUTION, TEST_FEW_UNIQUE, 2, 1);
#undef ROW
  return count;
}

/* The size list: 0 to 3, odd and prime sizes, the TILED tile (2048) and
 * its multiples +-1 (4 tiles is where the work spreads over several
 * groups), the CHUNKED split (above 16384 elements, chunks of multiples of
 * 64), and two seeded random sizes; at most 5000 on Oclgrind. */
static size_t size_list(size_t *sizes) {
  static const size_t fixed[] = {0,    1,     2,     3,     7,     63,    64,   65,   93,
                                 1000, 2047,  2048,  2049,  4095,  4096,  4097, 4099, 8191,
                                 8193, 16383, 16384, 16385, 32767, 32769, 65537};
  size_t count = 0;
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
    if (facts.oclgrind && fixed[i] > 5000) continue;
    sizes[count++] = fixed[i];
  }
  test_rng rng;
  test_rng_init(&rng, test_case_seed("reduce random sizes"));
  size_t limit = facts.oclgrind ? 5000 : 70000;
  for (int i = 0; i < 2; i++) sizes[count++] = 1 + (size_t)test_rng_below(&rng, limit);
  return count;
}

static void sizes_around_tiles_and_chunks(void **state) {
  (void)state;
  clgpu_context *context = open_context();
  size_t sizes[40];
  size_t size_count = size_list(sizes);
  print_message("# random sizes: %zu and %zu\n", sizes[size_count - 2], sizes[size_count - 1]);
  size_row rows[32];
  size_t row_count = size_rows(rows);
  for (size_t s = 0; s < size_count; s++) {
    size_t n = sizes[s];
    for (size_t r = 0; r < row_count; r++) {
      const size_row *row = &rows[r];
      uint64_t seed = input_seed("reduce sizes", n, row->type, row->distribution, row->parameter);
      unsigned char *host =
          generate(row->kind, n, row->type, row->distribution, row->parameter, seed);
      device_input input = upload(context, host, n, row->type);
      char label[400];
      describe_input(label, sizeof label, "reduce sizes", n, row->type, row->kind,
                     row->distribution, row->parameter, seed);
      reduce_whole_and_check(context, &row->op, &input.view, host, n, SINGLE_1D,
                             home_mode(row->type, &row->op), label);
      if (row->both) {
        reduce_whole_and_check(context, &row->op, &input.view, host, n, SINGLE_1D,
                               other_mode(row->type, &row->op), label);
      }
      check_unchanged(context, &input.guarded, host, label);
      test_guarded_release(&input.guarded);
      free(host);
    }
  }
}

/* AUTO, through NULL options and through zeroed ones, gives the model's
 * result (for float sums within the bound: AUTO is one of the two). */
static void auto_algorithm(void **state) {
  (void)state;
  clgpu_context *context = open_context();
  const size_t n = 4097;
  const struct {
    clgpu_type type;
    clgpu_reduce_kind kind;
    data_kind data;
  } rows[] = {
      {CLGPU_TYPE_INT32, CLGPU_REDUCE_SUM, DATA_DISTRIBUTION},
      {CLGPU_TYPE_FLOAT, CLGPU_REDUCE_SUM, DATA_UNIT_INTERVAL},
      {CLGPU_TYPE_FLOAT, CLGPU_REDUCE_ARGMIN, DATA_DISTRIBUTION},
  };
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    uint64_t seed = input_seed("reduce auto", n, rows[r].type, TEST_UNIFORM, 0);
    unsigned char *host = generate(rows[r].data, n, rows[r].type, TEST_UNIFORM, 0, seed);
    device_input input = upload(context, host, n, rows[r].type);
    char label[400];
    describe_input(label, sizeof label, "reduce auto", n, rows[r].type, rows[r].data, TEST_UNIFORM,
                   0, seed);
    op_case op = builtin_op(rows[r].kind);
    reduce_whole_and_check(context, &op, &input.view, host, n, SINGLE_1D, AUTO_NULL, label);
    reduce_whole_and_check(context, &op, &input.view, host, n, SINGLE_RANK0, AUTO_ZEROED, label);
    test_guarded_release(&input.guarded);
    free(host);
  }
}

/* ---- along an axis, and views of every layout ---- */

typedef enum input_layout {
  LAYOUT_ROW_MAJOR,
  LAYOUT_TRANSPOSED,       /* clgpu_array_transpose of a row-major view of the reversed shape */
  LAYOUT_SLICED_REVERSED,  /* every other row of a taller array, last dimension reversed */
  LAYOUT_PITCHED_NEGATIVE, /* clgpu_array_strided: padded rows, every stride negative */
  LAYOUT_COUNT
} input_layout;

static const char *const layout_names[] = {"row-major", "transposed", "sliced [::2, ..., ::-1]",
                                           "pitched, negative strides"};

static size_t shape_count(unsigned rank, const size_t *shape) {
  size_t count = 1;
  for (unsigned d = 0; d < rank; d++) count *= shape[d];
  return count;
}

/* Strides padded by d + 1 elements in dimension d > 0 (row-major), all
 * negated when `negative`; returns the elements the view spans. */
static size_t pitched_strides(unsigned rank, const size_t *shape, int negative,
                              ptrdiff_t *strides) {
  ptrdiff_t stride = 1;
  for (unsigned i = rank; i-- > 0;) {
    strides[i] = negative ? -stride : stride;
    stride *= (ptrdiff_t)((shape[i] ? shape[i] : 1) + (i > 0 ? i + 1 : 0));
  }
  size_t span = 1;
  if (shape_count(rank, shape) == 0) return 0;
  for (unsigned d = 0; d < rank; d++) {
    span += (shape[d] - 1) * (size_t)(strides[d] < 0 ? -strides[d] : strides[d]);
  }
  return span;
}

/* Elements of the region a layout needs. */
static size_t layout_region(input_layout layout, unsigned rank, const size_t *shape) {
  size_t count = shape_count(rank, shape);
  ptrdiff_t strides[CLGPU_MAX_RANK];
  switch (layout) {
    case LAYOUT_SLICED_REVERSED:
      return 2 * count;
    case LAYOUT_PITCHED_NEGATIVE:
      return pitched_strides(rank, shape, 1, strides);
    default:
      return count;
  }
}

/* A view of `shape` in the region of `guarded`, built the way the layout
 * says, through the library's constructors and derivations. */
static clgpu_array make_layout_view(const test_guarded *guarded, clgpu_type type,
                                    input_layout layout, unsigned rank, const size_t *shape) {
  clgpu_array view, base;
  size_t size = clgpu_type_size(type);
  switch (layout) {
    case LAYOUT_ROW_MAJOR:
      assert_status(clgpu_array_nd(guarded->buffer, guarded->offset, type, rank, shape,
                                   CLGPU_ORDER_ROW_MAJOR, &view),
                    CLGPU_SUCCESS);
      break;
    case LAYOUT_TRANSPOSED: {
      size_t reversed[CLGPU_MAX_RANK];
      for (unsigned d = 0; d < rank; d++) reversed[d] = shape[rank - 1 - d];
      assert_status(clgpu_array_nd(guarded->buffer, guarded->offset, type, rank, reversed,
                                   CLGPU_ORDER_ROW_MAJOR, &base),
                    CLGPU_SUCCESS);
      assert_status(clgpu_array_transpose(&base, &view), CLGPU_SUCCESS);
      break;
    }
    case LAYOUT_SLICED_REVERSED: {
      size_t taller[CLGPU_MAX_RANK];
      clgpu_slice slices[CLGPU_MAX_RANK];
      for (unsigned d = 0; d < rank; d++) {
        taller[d] = d == 0 ? 2 * shape[d] : shape[d];
        slices[d] = CLGPU_SLICE_ALL;
      }
      slices[0].step = 2;
      slices[rank - 1].step = -1;
      if (rank == 1) slices[0].step = -2;
      assert_status(clgpu_array_nd(guarded->buffer, guarded->offset, type, rank, taller,
                                   CLGPU_ORDER_ROW_MAJOR, &base),
                    CLGPU_SUCCESS);
      assert_status(clgpu_array_slice(&base, slices, &view), CLGPU_SUCCESS);
      break;
    }
    default: {
      ptrdiff_t strides[CLGPU_MAX_RANK];
      size_t span = pitched_strides(rank, shape, 1, strides);
      size_t first = span ? span - 1 : 0;
      assert_status(clgpu_array_strided(guarded->buffer, guarded->offset + first * size, type, rank,
                                        shape, strides, &view),
                    CLGPU_SUCCESS);
      break;
    }
  }
  for (unsigned d = 0; d < rank; d++) {
    if (view.shape[d] != shape[d]) fail_msg("%s view: wrong shape", layout_names[layout]);
  }
  return view;
}

/* Where element `index` of `view` lies in the region of the guarded buffer
 * it was made in, in elements. */
static size_t view_position(const clgpu_array *view, const test_guarded *guarded,
                            const size_t *index) {
  size_t size = clgpu_type_size(view->type);
  ptrdiff_t position = (ptrdiff_t)((view->offset - guarded->offset) / size);
  for (unsigned d = 0; d < view->rank; d++) position += (ptrdiff_t)index[d] * view->strides[d];
  if (position < 0 || (size_t)position * size >= guarded->region_bytes) {
    fail_msg("view_position: outside the region");
  }
  return (size_t)position;
}

/* Step a multi-index in row-major order; 0 after the last. */
static int next_index(unsigned rank, const size_t *shape, size_t *index) {
  for (unsigned d = rank; d-- > 0;) {
    if (++index[d] < shape[d]) return 1;
    index[d] = 0;
  }
  return 0;
}

/* The forms of the output of an axis reduction. */
typedef enum output_form { OUTPUT_DROPPED, OUTPUT_KEPT, OUTPUT_STRIDED } output_form;
static const char *const output_form_names[] = {"dropped dimension", "kept extent-1 dimension",
                                                "strided, negative first stride"};

/* One axis case: data already in a region, the view over it. */
typedef struct axis_input {
  clgpu_type type;
  const test_guarded *guarded;
  const unsigned char *region; /* the region's bytes on the host */
  clgpu_array view;
} axis_input;

/* Reduce `input` along `axis` (or CLGPU_ALL_AXES) into an output of the
 * given form in a fresh guarded region, and check every output element
 * against the model of its line, and every other byte of the region
 * against its fill. */
static void run_axis_case(clgpu_context *context, const op_case *c, const axis_input *input,
                          int axis, output_form form, run_mode mode, const char *label) {
  const clgpu_array *view = &input->view;
  clgpu_type result_type = model_result_type(c, input->type);
  size_t result_size = clgpu_type_size(result_type), input_size = clgpu_type_size(input->type);
  if (axis == CLGPU_ALL_AXES) {
    size_t n = clgpu_array_count(view);
    unsigned char *line = allocate_elements(n, input->type);
    size_t index[CLGPU_MAX_RANK] = {0};
    if (n) {
      size_t k = 0;
      do {
        memcpy(line + k++ * input_size,
               input->region + view_position(view, input->guarded, index) * input_size, input_size);
      } while (next_index(view->rank, view->shape, index));
    }
    reduce_whole_and_check(context, c, view, line, n, (single_output)form, mode, label);
    free(line);
    return;
  }
  /* The output's shape and strides. */
  unsigned output_rank = form == OUTPUT_KEPT ? view->rank : view->rank - 1;
  size_t output_shape[CLGPU_MAX_RANK];
  for (unsigned d = 0, o = 0; d < view->rank; d++) {
    if ((int)d == axis) {
      if (form == OUTPUT_KEPT) output_shape[o++] = 1;
    } else {
      output_shape[o++] = view->shape[d];
    }
  }
  ptrdiff_t output_strides[CLGPU_MAX_RANK];
  size_t output_count = shape_count(output_rank, output_shape);
  size_t span;
  if (form == OUTPUT_STRIDED) {
    /* Row-major over extents padded by one, innermost stride 2, first
     * stride negated: gaps everywhere, and the first element not first. */
    ptrdiff_t stride = 2;
    for (unsigned i = output_rank; i-- > 0;) {
      output_strides[i] = stride;
      stride *= (ptrdiff_t)(output_shape[i] + 1);
    }
    output_strides[0] = -output_strides[0];
    span = 1;
    for (unsigned d = 0; d < output_rank; d++) {
      if (output_shape[d] == 0) continue;
      span += (output_shape[d] - 1) *
              (size_t)(output_strides[d] < 0 ? -output_strides[d] : output_strides[d]);
    }
  } else {
    /* Row-major as clgpu_array_nd makes it: an extent of 0 counts as 1,
     * so no stride is 0. */
    ptrdiff_t stride = 1;
    for (unsigned i = output_rank; i-- > 0;) {
      output_strides[i] = stride;
      stride *= (ptrdiff_t)(output_shape[i] ? output_shape[i] : 1);
    }
    span = output_count;
  }
  /* One slack element on each side inside the region. */
  size_t first = 1;
  if (form == OUTPUT_STRIDED && output_count) {
    first += (output_shape[0] - 1) * (size_t)(-output_strides[0]);
  }
  size_t region_elements = span + 2;
  if (form == OUTPUT_STRIDED && output_count) region_elements = 1 + span + 1;
  size_t region_bytes = region_elements * result_size;
  test_guarded output = test_guarded_create(context, region_bytes, NULL);
  clgpu_array output_view;
  assert_status(clgpu_array_strided(output.buffer, output.offset + first * result_size, result_type,
                                    output_rank, output_shape, output_strides, &output_view),
                CLGPU_SUCCESS);
  call_reduce(context, c, view, axis, &output_view, mode, label);
  unsigned char *actual = malloc(region_bytes);
  unsigned char *covered = calloc(region_elements, 1);
  assert_non_null(actual);
  assert_non_null(covered);
  test_guarded_read(context, &output, actual);
  test_guarded_check(context, &output, label);

  size_t length = view->shape[axis];
  unsigned char *line = allocate_elements(length, input->type);
  if (output_count) {
    size_t out_index[CLGPU_MAX_RANK] = {0};
    do {
      /* The input index of element k of this line. */
      size_t in_index[CLGPU_MAX_RANK];
      for (unsigned d = 0, o = 0; d < view->rank; d++) {
        if ((int)d == axis) {
          in_index[d] = 0;
          if (form == OUTPUT_KEPT) o++;
        } else {
          in_index[d] = out_index[o++];
        }
      }
      for (size_t k = 0; k < length; k++) {
        in_index[axis] = k;
        memcpy(line + k * input_size,
               input->region + view_position(view, input->guarded, in_index) * input_size,
               input_size);
      }
      size_t position = view_position(&output_view, &output, out_index);
      covered[position] = 1;
      expectation e;
      model(c, input->type, line, length, &e);
      char why[512];
      if (!check_result(&e, actual + position * result_size, why, sizeof why)) {
        char where[128];
        int used = snprintf(where, sizeof where, "output (");
        for (unsigned d = 0; d < output_rank; d++) {
          used += snprintf(where + used, sizeof where - (size_t)used, d ? ", %zu" : "%zu",
                           out_index[d]);
        }
        snprintf(where + used, sizeof where - (size_t)used, ")");
        fail_msg("%s, axis %d, %s, %s, %s: %s: %s", label, axis, output_form_names[form], c->name,
                 mode.name, where, why);
      }
    } while (next_index(output_rank, output_shape, out_index));
  }
  for (size_t i = 0; i < region_elements; i++) {
    if (covered[i]) continue;
    for (size_t b = 0; b < result_size; b++) {
      if (actual[i * result_size + b] != TEST_GUARD_REGION_FILL) {
        fail_msg(
            "%s, axis %d, %s, %s, %s: region element %zu is not in the output view but was "
            "written",
            label, axis, output_form_names[form], c->name, mode.name, i);
      }
    }
  }
  free(line);
  free(covered);
  free(actual);
  test_guarded_release(&output);
}

typedef struct axis_shape {
  unsigned rank;
  size_t shape[3];
  int large; /* left out on Oclgrind */
} axis_shape;

/* Lines of 0, 1 and a few elements, lines longer than CHUNKED's vector
 * step (64) and than a TILED tile (2048), many short lines and a few long
 * ones. On Oclgrind, where every line of a TILED reduction is a group of 256
 * simulated work-items, the large shapes are left out (they took the
 * simulated run of this test from about 40 s to over 6 minutes). */
static const axis_shape axis_shapes[] = {
    {2, {4, 5}, 0},     {2, {1, 7}, 0},      {2, {7, 1}, 0},       {2, {0, 5}, 0},
    {2, {5, 0}, 0},     {2, {3, 129}, 0},    {2, {33, 65}, 1},     {2, {3, 2049}, 1},
    {2, {2049, 3}, 1},  {3, {3, 4, 5}, 0},   {3, {2, 1, 3}, 0},    {3, {4, 0, 3}, 0},
    {3, {2, 3, 65}, 0}, {3, {5, 17, 33}, 1}, {3, {3, 2, 2049}, 1},
};

/* Which data an op's axis cases reduce (see data_kind). */
static data_kind axis_data(const op_case *c, clgpu_type type) {
  switch (c->op.kind) {
    case CLGPU_REDUCE_COUNT:
    case CLGPU_REDUCE_ANY:
    case CLGPU_REDUCE_ALL:
      return DATA_SPARSE;
    case CLGPU_REDUCE_SUM:
      return is_float_type(type) ? DATA_SMALL_SIGNED : DATA_DISTRIBUTION;
    case CLGPU_REDUCE_PRODUCT:
      return is_float_type(type) ? DATA_NARROW : DATA_DISTRIBUTION;
    default:
      return DATA_DISTRIBUTION;
  }
}

/* The ops of the axis cases for a type; `both` marks those that alternate
 * between the two algorithms (the rest run their home_mode). */
static size_t axis_ops(clgpu_type type, op_case *ops, int *both) {
  size_t count = 0;
  if (type == CLGPU_TYPE_INT32 || type == CLGPU_TYPE_FLOAT) {
    for (size_t k = 0; k < BUILTIN_KIND_COUNT; k++) ops[count++] = builtin_op(builtin_kinds[k]);
    ops[count++] = max_abs_op(type);
    if (type == CLGPU_TYPE_INT32) ops[count++] = weighted_sum_op();
  } else {
    ops[count++] = builtin_op(CLGPU_REDUCE_SUM);
    ops[count++] = builtin_op(CLGPU_REDUCE_MIN);
    ops[count++] = builtin_op(CLGPU_REDUCE_ARGMAX);
  }
  for (size_t k = 0; k < count; k++) {
    clgpu_reduce_kind kind = ops[k].op.kind;
    both[k] = type == CLGPU_TYPE_INT32 ? kind == CLGPU_REDUCE_SUM || kind == CLGPU_REDUCE_ARGMIN ||
                                             ops[k].model == WEIGHTED_SUM
              : type == CLGPU_TYPE_FLOAT ? kind == CLGPU_REDUCE_SUM || kind == CLGPU_REDUCE_MIN
                                         : 0;
  }
  return count;
}

static void run_axis_type(clgpu_context *context, clgpu_type type) {
  op_case ops[16];
  int both[16];
  size_t op_count = axis_ops(type, ops, both);
  size_t size = clgpu_type_size(type);
  for (size_t s = 0; s < sizeof axis_shapes / sizeof axis_shapes[0]; s++) {
    const axis_shape *shape = &axis_shapes[s];
    if (facts.oclgrind && shape->large) continue;
    size_t count = shape_count(shape->rank, shape->shape);
    for (int l = 0; l < LAYOUT_COUNT; l++) {
      /* The narrower types run two layouts. */
      if (type != CLGPU_TYPE_INT32 && type != CLGPU_TYPE_FLOAT && l != LAYOUT_ROW_MAJOR &&
          l != LAYOUT_PITCHED_NEGATIVE) {
        continue;
      }
      /* On Oclgrind half the layouts, a different half per shape. */
      if (facts.oclgrind && ((size_t)l + s) % 2 != 0) continue;
      size_t region_elements = layout_region((input_layout)l, shape->rank, shape->shape);
      /* One region per kind of data, made when first needed. */
      test_guarded regions[DATA_SPARSE + 1];
      unsigned char *hosts[DATA_SPARSE + 1] = {NULL};
      char label[200];
      if (shape->rank == 3) {
        snprintf(label, sizeof label, "%s (%zu, %zu, %zu) %s", clgpu_type_cl_name(type),
                 shape->shape[0], shape->shape[1], shape->shape[2], layout_names[l]);
      } else {
        snprintf(label, sizeof label, "%s (%zu, %zu) %s", clgpu_type_cl_name(type), shape->shape[0],
                 shape->shape[1], layout_names[l]);
      }
      for (int axis = -1; axis < (int)shape->rank; axis++) {
        /* On Oclgrind the medium shapes reduce whole or along the last
         * axis only: a few long lines rather than a hundred short ones,
         * each a simulated group. */
        if (facts.oclgrind && count > 64 && axis != -1 && axis != (int)shape->rank - 1) continue;
        for (size_t k = 0; k < op_count; k++) {
          /* Every op on the row-major layout; on the others the ops that
           * run both algorithms and half of the rest, a different half per
           * shape, layout and axis. */
          size_t turn = (size_t)l + s + (size_t)(axis + 1);
          if (l != LAYOUT_ROW_MAJOR && !both[k] && (turn + k) % 2 != 0) continue;
          data_kind kind = axis_data(&ops[k], type);
          if (!hosts[kind]) {
            char seed_label[240];
            snprintf(seed_label, sizeof seed_label, "%s data %d", label, (int)kind);
            uint64_t seed = test_case_seed(seed_label);
            test_distribution distribution =
                is_float_type(type) ? TEST_FLOAT_SPECIALS : TEST_UNIFORM;
            hosts[kind] = generate(kind == DATA_NARROW ? DATA_DISTRIBUTION : kind, region_elements,
                                   type, distribution, 0, seed);
            /* Narrow enough for a product of all the shape's elements, so
             * of any line. */
            if (kind == DATA_NARROW) narrow_from(hosts[kind], region_elements, type, count);
            regions[kind] = test_guarded_create(context, region_elements * size, hosts[kind]);
          }
          axis_input input = {
              type, &regions[kind], hosts[kind],
              make_layout_view(&regions[kind], type, (input_layout)l, shape->rank, shape->shape)};
          output_form form = (output_form)(((size_t)l + (size_t)(axis + 1) + k) % 3);
          run_mode mode =
              both[k] && turn % 2 ? other_mode(type, &ops[k]) : home_mode(type, &ops[k]);
          char case_label[600];
          snprintf(case_label, sizeof case_label, "%s data=%s seed label \"%s data %d\"", label,
                   data_kind_names[kind], label, (int)kind);
          run_axis_case(context, &ops[k], &input, axis, form, mode, case_label);
        }
      }
      for (int kind = 0; kind <= DATA_SPARSE; kind++) {
        if (!hosts[kind]) continue;
        check_unchanged(context, &regions[kind], hosts[kind], label);
        test_guarded_release(&regions[kind]);
        free(hosts[kind]);
      }
    }
  }
}

/* Whole arrays long enough that a CPU-shaped chunk per work-item would pass
 * 65535 loop iterations on a device with a loop cap (llvmpipe: 32 chunks of
 * 2.4M / 32 elements), in every shape: count_if over uint8 against the
 * host's count. On Oclgrind (no cap, and slow) a 100003-element array. */
int test_on_oclgrind(const clgpu_context *context); /* views.h, whose other names clash here */

static void long_ranges_in_every_shape(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  const size_t n = test_on_oclgrind(context) ? 100003 : 2400017;
  uint8_t *values = malloc(n);
  assert_non_null(values);
  test_generate(values, n, TEST_UINT8, TEST_UNIFORM, test_case_seed("long ranges"), 0);
  uint64_t expected = 0;
  for (size_t i = 0; i < n; i++) expected += values[i] < 100;
  test_guarded input = test_guarded_create(context, n, values);
  test_guarded output = test_guarded_create(context, sizeof(uint64_t), NULL);
  clgpu_array input_view, output_view;
  assert_status(clgpu_array_1d(input.buffer, input.offset, CLGPU_TYPE_UINT8, n, &input_view),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(output.buffer, output.offset, CLGPU_TYPE_UINT64, 1, &output_view),
                CLGPU_SUCCESS);
  const clgpu_shape shapes[] = {CLGPU_SHAPE_AUTO, CLGPU_SHAPE_TILED, CLGPU_SHAPE_CHUNKED};
  for (size_t s = 0; s < 3; s++) {
    clgpu_call_options options = {.shape = shapes[s], .workspace = NULL};
    clgpu_status status =
        clgpu_count_if(context, "x < 100", &output_view, &input_view, &options, 0, NULL, NULL);
    if (status != CLGPU_SUCCESS) {
      fail_msg("count_if over %zu uint8, algorithm %d: %s: %s", n, (int)shapes[s],
               clgpu_status_name(status), clgpu_last_error());
    }
    uint64_t actual = 0;
    test_guarded_read(context, &output, &actual);
    if (actual != expected) {
      fail_msg("count_if over %zu uint8, algorithm %d: %llu, the host counts %llu", n,
               (int)shapes[s], (unsigned long long)actual, (unsigned long long)expected);
    }
  }
  test_guarded_check(context, &output, "count_if over a long range");
  test_guarded_release(&output);
  test_guarded_release(&input);
  free(values);
}

static void along_an_axis(void **state) {
  (void)state;
  clgpu_context *context = open_context();
  static const clgpu_type types[] = {CLGPU_TYPE_INT32, CLGPU_TYPE_FLOAT, CLGPU_TYPE_UINT8,
                                     CLGPU_TYPE_INT64};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) run_axis_type(context, types[t]);
}

/* ---- initial ---- */

/* `initial` is combined once with the whole result (per line along an
 * axis) and is the result of an empty reduction; `neutral` pads. */
static void initial_is_combined_once(void **state) {
  (void)state;
  clgpu_context *context = open_context();
  struct {
    clgpu_type type;
    op_case op;
    data_kind kind;
    test_distribution distribution;
  } rows[16];
  size_t count = 0;
#define ROW(type_, op_, kind_, distribution_) \
  do {                                        \
    rows[count].type = type_;                 \
    rows[count].op = op_;                     \
    rows[count].kind = kind_;                 \
    rows[count].distribution = distribution_; \
    count++;                                  \
  } while (0)
  ROW(CLGPU_TYPE_INT32, sum_with_initial_op(CLGPU_TYPE_INT32), DATA_DISTRIBUTION, TEST_UNIFORM);
  ROW(CLGPU_TYPE_FLOAT, sum_with_initial_op(CLGPU_TYPE_FLOAT), DATA_DISTRIBUTION,
      TEST_SMALL_INTEGERS);
  ROW(CLGPU_TYPE_INT32, builtin_with_initial(CLGPU_REDUCE_SUM, "100", 100, CLGPU_TYPE_INT32),
      DATA_DISTRIBUTION, TEST_SMALL_INTEGERS);
  ROW(CLGPU_TYPE_INT16, builtin_with_initial(CLGPU_REDUCE_MIN, "-5", -5, CLGPU_TYPE_INT16),
      DATA_DISTRIBUTION, TEST_SMALL_INTEGERS);
  ROW(CLGPU_TYPE_FLOAT, builtin_with_initial(CLGPU_REDUCE_MAX, "1.5f", 1.5L, CLGPU_TYPE_FLOAT),
      DATA_UNIT_INTERVAL, TEST_UNIFORM);
  ROW(CLGPU_TYPE_UINT32, builtin_with_initial(CLGPU_REDUCE_COUNT, "5", 5, CLGPU_TYPE_UINT64),
      DATA_SPARSE, TEST_UNIFORM);
  ROW(CLGPU_TYPE_INT32, builtin_with_initial(CLGPU_REDUCE_ALL, "0", 0, CLGPU_TYPE_INT32),
      DATA_ONES_THEN_ZERO, TEST_UNIFORM);
#undef ROW
  const size_t sizes[] = {0, 1, 93, 4097, facts.oclgrind ? 2049 : 16385};
  for (size_t r = 0; r < count; r++) {
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      size_t n = sizes[s];
      uint64_t seed = input_seed("reduce initial", n, rows[r].type, rows[r].distribution, 0);
      unsigned char *host = generate(rows[r].kind, n, rows[r].type, rows[r].distribution, 0, seed);
      device_input input = upload(context, host, n, rows[r].type);
      char label[400];
      describe_input(label, sizeof label, "reduce initial", n, rows[r].type, rows[r].kind,
                     rows[r].distribution, 0, seed);
      reduce_whole_and_check(context, &rows[r].op, &input.view, host, n, SINGLE_1D,
                             home_mode(rows[r].type, &rows[r].op), label);
      test_guarded_release(&input.guarded);
      free(host);
    }
    /* Along an axis the initial value is combined with each line: lines of
     * 0, 1 and 700 elements. */
    static const size_t line_shapes[][2] = {{3, 0}, {4, 1}, {5, 700}};
    for (size_t s = 0; s < 3; s++) {
      const size_t *shape = line_shapes[s];
      char label[400];
      snprintf(label, sizeof label, "initial along axis 1 of (%zu, %zu) %s %s", shape[0], shape[1],
               clgpu_type_cl_name(rows[r].type), data_kind_names[rows[r].kind]);
      size_t elements = shape[0] * shape[1];
      unsigned char *host = generate(rows[r].kind, elements, rows[r].type, rows[r].distribution, 0,
                                     test_case_seed(label));
      test_guarded region =
          test_guarded_create(context, elements * clgpu_type_size(rows[r].type), host);
      axis_input input = {rows[r].type, &region, host,
                          make_layout_view(&region, rows[r].type, LAYOUT_ROW_MAJOR, 2, shape)};
      run_axis_case(context, &rows[r].op, &input, 1, (output_form)(s % 3),
                    home_mode(rows[r].type, &rows[r].op), label);
      test_guarded_release(&region);
      free(host);
    }
  }
}

/* ---- clgpu_reduce_read ---- */

#define HOST_GUARD 8
#define HOST_FILL 0xA5

static void reduce_read_results(void **state) {
  (void)state;
  clgpu_context *context = open_context();
  static const clgpu_type types[] = {CLGPU_TYPE_INT32, CLGPU_TYPE_FLOAT, CLGPU_TYPE_UINT64};
  const size_t sizes[] = {0, 1, 4097};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    clgpu_type type = types[t];
    op_case ops[16];
    size_t op_count = matrix_ops(type, ops);
    if (type != CLGPU_TYPE_UINT64) ops[op_count++] = sum_with_initial_op(type);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      size_t n = sizes[s];
      for (size_t k = 0; k < op_count; k++) {
        int product = ops[k].op.kind == CLGPU_REDUCE_PRODUCT && is_float_type(type);
        int logical = ops[k].op.kind == CLGPU_REDUCE_COUNT || ops[k].op.kind == CLGPU_REDUCE_ANY ||
                      ops[k].op.kind == CLGPU_REDUCE_ALL;
        data_kind kind = product ? DATA_NARROW : logical ? DATA_SPARSE : DATA_DISTRIBUTION;
        test_distribution distribution = is_float_type(type) ? TEST_FLOAT_SPECIALS : TEST_UNIFORM;
        char operation[96];
        snprintf(operation, sizeof operation, "reduce_read %s", ops[k].name);
        uint64_t seed = input_seed(operation, n, type, distribution, 0);
        unsigned char *host = generate(kind, n, type, distribution, 0, seed);
        /* The input reversed in a region of its own, read through a view
         * with stride -1 at the largest size. */
        size_t size = clgpu_type_size(type);
        unsigned char *stored = allocate_elements(n, type);
        int reversed = n > 1;
        for (size_t i = 0; i < n; i++) {
          store_bits(stored, reversed ? n - 1 - i : i, type, load_bits(host, i, type));
        }
        test_guarded region = test_guarded_create(context, n * size, stored);
        clgpu_array view;
        if (reversed) {
          assert_status(clgpu_array_strided(region.buffer, region.offset + (n - 1) * size, type, 1,
                                            (const size_t[]){n}, (const ptrdiff_t[]){-1}, &view),
                        CLGPU_SUCCESS);
        } else {
          assert_status(clgpu_array_1d(region.buffer, region.offset, type, n, &view),
                        CLGPU_SUCCESS);
        }
        char label[400];
        describe_input(label, sizeof label, operation, n, type, kind, distribution, 0, seed);
        /* AUTO through NULL options for SUM, the home algorithm otherwise. */
        run_mode mode = ops[k].op.kind == CLGPU_REDUCE_SUM ? AUTO_NULL : home_mode(type, &ops[k]);
        clgpu_call_options options = {.shape = mode.algorithm, .workspace = NULL};
        clgpu_type result_type = model_result_type(&ops[k], type);
        size_t result_size = clgpu_type_size(result_type);
        unsigned char result[8 + 2 * HOST_GUARD];
        memset(result, HOST_FILL, sizeof result);
        clgpu_status status =
            clgpu_reduce_read(context, &ops[k].op, result + HOST_GUARD, result_size, &view,
                              mode.null_options ? NULL : &options);
        if (status != CLGPU_SUCCESS) {
          fail_msg("%s, %s, %s: clgpu_reduce_read gave %s: %s", label, ops[k].name, mode.name,
                   clgpu_status_name(status), clgpu_last_error());
        }
        for (size_t b = 0; b < sizeof result; b++) {
          if ((b < HOST_GUARD || b >= HOST_GUARD + result_size) && result[b] != HOST_FILL) {
            fail_msg("%s, %s: clgpu_reduce_read wrote byte %d outside the result", label,
                     ops[k].name, (int)b - HOST_GUARD);
          }
        }
        expectation e;
        model(&ops[k], type, host, n, &e);
        char why[512];
        if (!check_result(&e, result + HOST_GUARD, why, sizeof why)) {
          fail_msg("%s, %s, %s: %s", label, ops[k].name, mode.name, why);
        }
        check_unchanged(context, &region, stored, label);
        test_guarded_release(&region);
        free(stored);
        free(host);
      }
    }
  }
}

/* ---- clgpu_count_if ---- */

typedef struct predicate_row {
  const char *text; /* NULL: x != 0 */
  int (*host)(uint64_t bits, clgpu_type type, uint64_t index);
  int floats_only;
  int signed_only;
} predicate_row;

static int predicate_nonzero(uint64_t bits, clgpu_type type, uint64_t index) {
  (void)index;
  return !bits_are_zero(bits, type);
}
static int predicate_above_five(uint64_t bits, clgpu_type type, uint64_t index) {
  (void)index;
  return value_of(bits, type) > 5.0L; /* false for NaN */
}
static int predicate_index(uint64_t bits, clgpu_type type, uint64_t index) {
  (void)bits;
  (void)type;
  return index % 3 == 1;
}
static int predicate_nan(uint64_t bits, clgpu_type type, uint64_t index) {
  (void)index;
  return bits_are_nan(bits, type);
}
static int predicate_negative_or_first(uint64_t bits, clgpu_type type, uint64_t index) {
  return value_of(bits, type) < 0.0L || index == 0;
}

static const predicate_row predicates[] = {
    {NULL, predicate_nonzero, 0, 0},
    {"x > 5", predicate_above_five, 0, 0},
    {"i % 3 == 1", predicate_index, 0, 0},
    {"x != x", predicate_nan, 1, 0},
    {"x < 0 || i == 0", predicate_negative_or_first, 0, 1},
};

/* Count with clgpu_count_if into a guarded output and compare with the
 * host's count over `line` (the input's elements in row-major order). */
static void count_if_and_check(clgpu_context *context, const clgpu_array *input,
                               const unsigned char *line, size_t n, const predicate_row *p,
                               run_mode mode, const char *label) {
  test_guarded output = test_guarded_create(context, sizeof(cl_ulong), NULL);
  clgpu_array view;
  assert_status(clgpu_array_1d(output.buffer, output.offset, CLGPU_TYPE_UINT64, 1, &view),
                CLGPU_SUCCESS);
  clgpu_call_options options = {.shape = mode.algorithm, .workspace = NULL};
  cl_event event = NULL;
  clgpu_status status = clgpu_count_if(context, p->text, &view, input,
                                       mode.null_options ? NULL : &options, 0, NULL, &event);
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s, predicate %s, %s: clgpu_count_if gave %s: %s", label, p->text ? p->text : "NULL",
             mode.name, clgpu_status_name(status), clgpu_last_error());
  }
  finish_event(event, label);
  uint64_t actual = 0, expected = 0;
  test_guarded_read(context, &output, &actual);
  test_guarded_check(context, &output, label);
  test_guarded_release(&output);
  for (size_t i = 0; i < n; i++) {
    expected += p->host(load_bits(line, i, input->type), input->type, i) != 0;
  }
  if (actual != expected) {
    fail_msg("%s, predicate %s, %s: counted %llu, expected %llu", label, p->text ? p->text : "NULL",
             mode.name, (unsigned long long)actual, (unsigned long long)expected);
  }
}

/* The algorithm of a predicate over a type: alternating, as home_mode. */
static run_mode count_mode(clgpu_type type, size_t predicate) {
  return (type_index(type) + predicate) % 2 ? TILED : CHUNKED;
}

static void count_if_results(void **state) {
  (void)state;
  clgpu_context *context = open_context();
  static const clgpu_type types[] = {CLGPU_TYPE_INT8, CLGPU_TYPE_INT32, CLGPU_TYPE_UINT64,
                                     CLGPU_TYPE_FLOAT};
  static const test_distribution_case distributions[] = {
      {TEST_UNIFORM, 0},
      {TEST_SMALL_INTEGERS, 16},
      {TEST_FLOAT_SPECIALS, 0},
      {TEST_ENTROPY_REDUCED, 9},
  };
  const size_t sizes[] = {0, 1, 93, 4097, facts.oclgrind ? 2049 : 16385};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    clgpu_type type = types[t];
    for (size_t p = 0; p < sizeof predicates / sizeof predicates[0]; p++) {
      if (predicates[p].floats_only && !is_float_type(type)) continue;
      if (predicates[p].signed_only && !(is_float_type(type) || type == CLGPU_TYPE_INT32)) continue;
      /* NULL on every type, the others on a few (a program each). */
      if (p >= 1 && type != CLGPU_TYPE_INT32 && !(type == CLGPU_TYPE_UINT64 && p == 1) &&
          !(type == CLGPU_TYPE_FLOAT && (p == 1 || p == 3))) {
        continue;
      }
      run_mode mode = count_mode(type, p);
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (size_t d = 0; d < sizeof distributions / sizeof distributions[0]; d++) {
          size_t n = sizes[s];
          uint64_t seed = input_seed("count_if", n, type, distributions[d].distribution,
                                     distributions[d].parameter);
          unsigned char *host = generate(DATA_DISTRIBUTION, n, type, distributions[d].distribution,
                                         distributions[d].parameter, seed);
          device_input input = upload(context, host, n, type);
          char label[400];
          describe_input(label, sizeof label, "count_if", n, type, DATA_DISTRIBUTION,
                         distributions[d].distribution, distributions[d].parameter, seed);
          count_if_and_check(context, &input.view, host, n, &predicates[p], mode, label);
          check_unchanged(context, &input.guarded, host, label);
          test_guarded_release(&input.guarded);
          free(host);
        }
      }
    }
  }
  /* A transposed 2-D input: `i` is the row-major index of the view, not of
   * the memory. */
  const size_t shape[2] = {37, 29};
  for (size_t p = 0; p < sizeof predicates / sizeof predicates[0]; p++) {
    if (predicates[p].floats_only) continue;
    size_t n = shape[0] * shape[1];
    char label[400];
    snprintf(label, sizeof label, "count_if over a transposed (37, 29) int32 view");
    unsigned char *stored = generate(DATA_DISTRIBUTION, n, CLGPU_TYPE_INT32, TEST_SMALL_INTEGERS,
                                     16, test_case_seed(label));
    test_guarded region = test_guarded_create(context, n * sizeof(cl_int), stored);
    axis_input input = {CLGPU_TYPE_INT32, &region, stored,
                        make_layout_view(&region, CLGPU_TYPE_INT32, LAYOUT_TRANSPOSED, 2, shape)};
    unsigned char *line = allocate_elements(n, CLGPU_TYPE_INT32);
    size_t index[2] = {0, 0}, k = 0;
    do {
      store_bits(line, k++, CLGPU_TYPE_INT32,
                 load_bits(stored, view_position(&input.view, &region, index), CLGPU_TYPE_INT32));
    } while (next_index(2, shape, index));
    count_if_and_check(context, &input.view, line, n, &predicates[p],
                       count_mode(CLGPU_TYPE_INT32, p), label);
    free(line);
    test_guarded_release(&region);
    free(stored);
  }
}

/* ---- events ---- */

static void events(void **state) {
  (void)state;
  clgpu_context *context = open_context();
  const size_t n = 4097;
  unsigned char *host = generate(DATA_DISTRIBUTION, n, CLGPU_TYPE_INT32, TEST_UNIFORM, 0,
                                 test_case_seed("reduce events"));
  device_input input = upload(context, host, n, CLGPU_TYPE_INT32);
  op_case sum = builtin_op(CLGPU_REDUCE_SUM), max = builtin_op(CLGPU_REDUCE_MAX);
  expectation expected_sum, expected_max;
  model(&sum, CLGPU_TYPE_INT32, host, n, &expected_sum);
  model(&max, CLGPU_TYPE_INT32, host, n, &expected_max);
  test_guarded outputs[3];
  clgpu_array views[3];
  for (int i = 0; i < 3; i++) {
    outputs[i] = test_guarded_create(context, 8, NULL);
    assert_status(clgpu_array_1d(outputs[i].buffer, outputs[i].offset,
                                 i == 2 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_INT32, 1, &views[i]),
                  CLGPU_SUCCESS);
  }
  /* Without an event out, the reduction still happens. */
  assert_status(
      clgpu_reduce(context, &sum.op, CLGPU_ALL_AXES, &views[0], &input.view, NULL, 0, NULL, NULL),
      CLGPU_SUCCESS);
  assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
  unsigned char value[8];
  test_guarded_read(context, &outputs[0], value);
  assert_int_equal(load_bits(value, 0, CLGPU_TYPE_INT32), expected_sum.bits);

  /* A chain: each call waits for the one before through its wait list,
   * and the last event completes with every result written. */
  cl_event first = NULL, second = NULL, third = NULL;
  clgpu_call_options tiled = {.shape = CLGPU_SHAPE_TILED, .workspace = NULL};
  assert_status(clgpu_reduce(context, &max.op, CLGPU_ALL_AXES, &views[1], &input.view, &tiled, 0,
                             NULL, &first),
                CLGPU_SUCCESS);
  assert_non_null(first);
  assert_status(clgpu_reduce(context, &sum.op, CLGPU_ALL_AXES, &views[0], &input.view, NULL, 1,
                             &first, &second),
                CLGPU_SUCCESS);
  assert_non_null(second);
  cl_event both[2] = {first, second};
  assert_status(clgpu_count_if(context, "x > 5", &views[2], &input.view, &tiled, 2, both, &third),
                CLGPU_SUCCESS);
  finish_event(third, "count_if after two reductions");
  assert_int_equal(test_event_status(first), CL_COMPLETE);
  assert_int_equal(test_event_status(second), CL_COMPLETE);
  clReleaseEvent(first);
  clReleaseEvent(second);
  test_guarded_read(context, &outputs[1], value);
  assert_int_equal(load_bits(value, 0, CLGPU_TYPE_INT32), expected_max.bits);
  test_guarded_read(context, &outputs[0], value);
  assert_int_equal(load_bits(value, 0, CLGPU_TYPE_INT32), expected_sum.bits);
  uint64_t expected_count = 0;
  test_guarded_read(context, &outputs[2], value);
  for (size_t i = 0; i < n; i++) {
    expected_count +=
        predicate_above_five(load_bits(host, i, CLGPU_TYPE_INT32), CLGPU_TYPE_INT32, i);
  }
  assert_int_equal(load_bits(value, 0, CLGPU_TYPE_UINT64), expected_count);
  for (int i = 0; i < 3; i++) {
    test_guarded_check(context, &outputs[i], "events");
    test_guarded_release(&outputs[i]);
  }
  test_guarded_release(&input.guarded);
  free(host);
}

/* A reduction and a count waiting for a user event do not run before it
 * completes: their events stay incomplete, their outputs keep their fill,
 * and the input rewritten meanwhile (through a second queue) is what they
 * reduce. Skipped on Oclgrind, which runs commands inside clFlush on the
 * calling thread and would wait there for the user event forever. */
static void wait_list_gates_the_call(void **state) {
  (void)state;
  clgpu_context *context = open_context();
  if (facts.oclgrind) {
    skip();
  }
  const size_t n = 4097;
  unsigned char *before = generate(DATA_DISTRIBUTION, n, CLGPU_TYPE_INT32, TEST_UNIFORM, 0,
                                   test_case_seed("gate before"));
  unsigned char *after = generate(DATA_DISTRIBUTION, n, CLGPU_TYPE_INT32, TEST_SMALL_INTEGERS, 16,
                                  test_case_seed("gate after"));
  device_input input = upload(context, before, n, CLGPU_TYPE_INT32);
  test_guarded sum_output = test_guarded_create(context, sizeof(cl_int), NULL);
  test_guarded count_output = test_guarded_create(context, sizeof(cl_ulong), NULL);
  clgpu_array sum_view, count_view;
  assert_status(
      clgpu_array_1d(sum_output.buffer, sum_output.offset, CLGPU_TYPE_INT32, 1, &sum_view),
      CLGPU_SUCCESS);
  assert_status(
      clgpu_array_1d(count_output.buffer, count_output.offset, CLGPU_TYPE_UINT64, 1, &count_view),
      CLGPU_SUCCESS);
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(clgpu_context_cl_context(context), &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_command_queue side = clCreateCommandQueue(clgpu_context_cl_context(context),
                                               clgpu_context_device(context), 0, &err);
  assert_int_equal(err, CL_SUCCESS);

  op_case sum = builtin_op(CLGPU_REDUCE_SUM);
  cl_event sum_event = NULL, count_event = NULL;
  assert_status(clgpu_reduce(context, &sum.op, CLGPU_ALL_AXES, &sum_view, &input.view, NULL, 1,
                             &gate, &sum_event),
                CLGPU_SUCCESS);
  assert_status(
      clgpu_count_if(context, NULL, &count_view, &input.view, NULL, 1, &gate, &count_event),
      CLGPU_SUCCESS);
  assert_non_null(sum_event);
  assert_non_null(count_event);
  assert_int_equal(clFlush(clgpu_context_queue(context)), CL_SUCCESS);
  /* Time for a call that ignored its wait list to finish. */
  struct timespec pause = {0, 30 * 1000 * 1000};
  nanosleep(&pause, NULL);
  if (test_event_status(sum_event) == CL_COMPLETE || test_event_status(count_event) == CL_COMPLETE) {
    fail_msg("a call completed before the user event in its wait list");
  }
  unsigned char fill[8];
  assert_int_equal(clEnqueueReadBuffer(side, sum_output.buffer, CL_TRUE, sum_output.offset,
                                       sizeof(cl_int), fill, 0, NULL, NULL),
                   CL_SUCCESS);
  for (size_t b = 0; b < sizeof(cl_int); b++) assert_int_equal(fill[b], TEST_GUARD_REGION_FILL);
  assert_int_equal(clEnqueueWriteBuffer(side, input.guarded.buffer, CL_TRUE, input.guarded.offset,
                                        n * sizeof(cl_int), after, 0, NULL, NULL),
                   CL_SUCCESS);
  /* A blocking write only promises that `after` may be reused when it
   * returns, not that the buffer holds it: Intel's CPU runtime 2026.2
   * returns from a blocking write at a non-zero offset with its event still
   * CL_SUBMITTED, and a gated kernel then read the old data. The gate opens
   * once the write has completed. */
  assert_int_equal(clFinish(side), CL_SUCCESS);
  assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  finish_event(sum_event, "gated sum");
  finish_event(count_event, "gated count");

  expectation e;
  model(&sum, CLGPU_TYPE_INT32, after, n, &e);
  unsigned char actual[8];
  test_guarded_read(context, &sum_output, actual);
  char why[512];
  if (!check_result(&e, actual, why, sizeof why)) fail_msg("gated sum: %s", why);
  uint64_t counted = 0, expected = 0;
  test_guarded_read(context, &count_output, &counted);
  for (size_t i = 0; i < n; i++) {
    expected += !bits_are_zero(load_bits(after, i, CLGPU_TYPE_INT32), CLGPU_TYPE_INT32);
  }
  assert_int_equal(counted, expected);
  test_guarded_check(context, &sum_output, "gated sum");
  test_guarded_check(context, &count_output, "gated count");

  clReleaseEvent(gate);
  clReleaseCommandQueue(side);
  test_guarded_release(&sum_output);
  test_guarded_release(&count_output);
  test_guarded_release(&input.guarded);
  free(after);
  free(before);
}

/* ---- a workspace the caller provides ---- */

/* A strided input is packed into the workspace's "packed_input": a
 * workspace laid over the caller's own (guarded) buffer serves the call,
 * and one made for fewer elements, for the other algorithm, or over the
 * output's bytes is refused with the output untouched. */
static void workspace_given_by_the_caller(void **state) {
  (void)state;
  clgpu_context *context = open_context();
  const size_t n = facts.oclgrind ? 4099 : 16385;
  unsigned char *host = generate(DATA_DISTRIBUTION, n, CLGPU_TYPE_INT32, TEST_UNIFORM, 0,
                                 test_case_seed("reduce workspace"));
  unsigned char *spread = allocate_elements(2 * n, CLGPU_TYPE_INT32);
  memset(spread, 0, 2 * n * sizeof(cl_int));
  for (size_t i = 0; i < n; i++) {
    store_bits(spread, 2 * i, CLGPU_TYPE_INT32, load_bits(host, i, CLGPU_TYPE_INT32));
  }
  test_guarded region = test_guarded_create(context, 2 * n * sizeof(cl_int), spread);
  clgpu_array input, half_input;
  assert_status(clgpu_array_strided(region.buffer, region.offset, CLGPU_TYPE_INT32, 1,
                                    (const size_t[]){n}, (const ptrdiff_t[]){2}, &input),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_strided(region.buffer, region.offset, CLGPU_TYPE_INT32, 1,
                                    (const size_t[]){n / 2}, (const ptrdiff_t[]){2}, &half_input),
                CLGPU_SUCCESS);
  op_case sum = builtin_op(CLGPU_REDUCE_SUM);
  expectation e;
  model(&sum, CLGPU_TYPE_INT32, host, n, &e);
  const run_mode modes[] = {CHUNKED, TILED};
  /* The output: one int32, 32 bytes into a region large enough for a
   * workspace to be laid over it (the aliasing case). */
  const size_t output_bytes = 4 * n * sizeof(cl_int) + 4096;
  unsigned char *actual = malloc(output_bytes), *kept = malloc(output_bytes);
  assert_non_null(actual);
  assert_non_null(kept);
  for (int m = 0; m < 2; m++) {
    char label[200];
    snprintf(label, sizeof label, "workspace, strided int32 n=%zu, %s", n, modes[m].name);
    test_guarded output = test_guarded_create(context, output_bytes, NULL);
    clgpu_array view;
    assert_status(clgpu_array_1d(output.buffer, output.offset + 32, CLGPU_TYPE_INT32, 1, &view),
                  CLGPU_SUCCESS);
    clgpu_call_options options = {.shape = modes[m].algorithm, .workspace = NULL};
    clgpu_workspace_size report, small_report, other_report;
    assert_status(clgpu_reduce_workspace_size(context, &sum.op, CLGPU_ALL_AXES, &view, &input,
                                              &options, &report),
                  CLGPU_SUCCESS);
    assert_true(report.num_parts >= 1);
    assert_int_equal(report.parts[0].operation, CLGPU_OPERATION_REDUCE);
    assert_int_equal(report.parts[0].shape, modes[m].algorithm);
    int packed = 0;
    for (unsigned b = 0; b < report.num_buffers; b++) {
      if (strcmp(report.buffers[b].name, "packed_input") == 0) {
        packed = report.buffers[b].count >= n;
      }
    }
    if (!packed) fail_msg("%s: no packed_input of %zu elements in the report", label, n);
    assert_true(report.total_bytes >= n * sizeof(cl_int));
    if (report.total_bytes > output_bytes) {
      fail_msg("%s: the workspace (%llu bytes) outgrew the test's output region", label,
               (unsigned long long)report.total_bytes);
    }

    /* Exactly the queried size, in a guarded region of the caller's. */
    test_guarded space = test_guarded_create(context, report.total_bytes, NULL);
    clgpu_workspace *workspace = NULL;
    assert_status(clgpu_workspace_wrap(context, &report, space.buffer, space.offset,
                                       report.total_bytes, &workspace),
                  CLGPU_SUCCESS);
    options.workspace = workspace;
    cl_event event = NULL;
    assert_status(
        clgpu_reduce(context, &sum.op, CLGPU_ALL_AXES, &view, &input, &options, 0, NULL, &event),
        CLGPU_SUCCESS);
    finish_event(event, label);
    test_guarded_read(context, &output, actual);
    char why[512];
    if (!check_result(&e, actual + 32, why, sizeof why)) fail_msg("%s: %s", label, why);
    for (size_t b = 0; b < output_bytes; b++) {
      if ((b < 32 || b >= 36) && actual[b] != TEST_GUARD_REGION_FILL) {
        fail_msg("%s: output region byte %zu written", label, b);
      }
    }
    test_guarded_check(context, &space, label);
    test_guarded_check(context, &output, label);
    clgpu_workspace_destroy(workspace);
    test_guarded_release(&space);

    /* Refused workspaces: the output keeps what it holds now. */
    memcpy(kept, actual, output_bytes);
    struct {
      const char *name;
      clgpu_status expected;
    } refusals[] = {
        {"made for half the elements", CLGPU_WORKSPACE_TOO_SMALL},
        {"made for the other algorithm", CLGPU_WORKSPACE_WRONG_ALGORITHM},
        {"laid over the output", CLGPU_WORKSPACE_ALIASES_ARGUMENT},
    };
    for (size_t r = 0; r < 3; r++) {
      clgpu_call_options query = {.shape = modes[m].algorithm, .workspace = NULL};
      const clgpu_workspace_size *made = &report;
      if (r == 0) {
        assert_status(clgpu_reduce_workspace_size(context, &sum.op, CLGPU_ALL_AXES, &view,
                                                  &half_input, &query, &small_report),
                      CLGPU_SUCCESS);
        made = &small_report;
      } else if (r == 1) {
        query.shape = modes[1 - m].algorithm;
        assert_status(clgpu_reduce_workspace_size(context, &sum.op, CLGPU_ALL_AXES, &view, &input,
                                                  &query, &other_report),
                      CLGPU_SUCCESS);
        made = &other_report;
      }
      workspace = NULL;
      test_guarded other = {NULL, 0, 0};
      if (r == 2) {
        /* From the output region's start: the output lies 32 bytes in. */
        assert_status(clgpu_workspace_wrap(context, made, output.buffer, output.offset,
                                           made->total_bytes, &workspace),
                      CLGPU_SUCCESS);
      } else {
        other = test_guarded_create(context, made->total_bytes ? made->total_bytes : 1, NULL);
        assert_status(clgpu_workspace_wrap(context, made, other.buffer, other.offset,
                                           made->total_bytes, &workspace),
                      CLGPU_SUCCESS);
      }
      options.workspace = workspace;
      event = NULL;
      clgpu_status status =
          clgpu_reduce(context, &sum.op, CLGPU_ALL_AXES, &view, &input, &options, 0, NULL, &event);
      if (status != refusals[r].expected) {
        fail_msg("%s: a workspace %s: %s, expected %s: %s", label, refusals[r].name,
                 clgpu_status_name(status), clgpu_status_name(refusals[r].expected),
                 clgpu_last_error());
      }
      if (event) fail_msg("%s: a refused call made an event", label);
      assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
      test_guarded_read(context, &output, actual);
      if (memcmp(actual, kept, output_bytes) != 0) {
        fail_msg("%s: a workspace %s: the output changed", label, refusals[r].name);
      }
      clgpu_workspace_destroy(workspace);
      if (other.buffer) {
        test_guarded_check(context, &other, label);
        test_guarded_release(&other);
      }
    }
    test_guarded_check(context, &output, label);
    test_guarded_release(&output);
  }
  check_unchanged(context, &region, spread, "workspace input");
  test_guarded_release(&region);
  free(kept);
  free(actual);
  free(spread);
  free(host);
}

/* ---- misuse ---- */

/* The fixture: a 4 x 5 int32 input and a guarded output region of 64
 * bytes, both in buffers of their own; the default call sums along axis 0
 * into 5 int32 at the output region's start. */
typedef struct misuse_fixture {
  clgpu_context *context;
  clgpu_context *other_context;
  test_guarded input;
  test_guarded output;
  cl_mem foreign; /* a buffer of other_context */
  cl_event user_event;
} misuse_fixture;

typedef struct misuse_call {
  clgpu_context *context;
  clgpu_reduce_op op_value;
  const clgpu_reduce_op *op;
  clgpu_array input_view, output_view;
  const clgpu_array *input;
  const clgpu_array *output;
  int axis;
  clgpu_call_options options_value;
  const clgpu_call_options *options;
  cl_uint num_events;
  const cl_event *wait_list;
  const char *predicate; /* count_if */
  size_t result_size;    /* reduce_read; 0: the result type's */
  int null_result;       /* reduce_read */
} misuse_call;

typedef struct misuse_row {
  const char *name;
  clgpu_status expected;
  void (*edit)(misuse_fixture *f, misuse_call *call);
  int (*applies)(void); /* NULL: always */
  int build_log;        /* the detail message carries a compiler log */
} misuse_row;

static void output_1d(misuse_fixture *f, misuse_call *call, clgpu_type type, size_t n,
                      size_t byte_offset) {
  assert_status(
      clgpu_array_1d(f->output.buffer, f->output.offset + byte_offset, type, n, &call->output_view),
      CLGPU_SUCCESS);
}

static void edit_null_context(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->context = NULL;
}
static void edit_null_op(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->op = NULL;
}
static void edit_null_input(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->input = NULL;
}
static void edit_null_output(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->output = NULL;
}
static void edit_kind_zero(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->op_value.kind = (clgpu_reduce_kind)0;
}
static void edit_kind_past_custom(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->op_value.kind = (clgpu_reduce_kind)(CLGPU_REDUCE_CUSTOM + 1);
}
static void edit_axis_rank(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->axis = 2;
}
static void edit_axis_minus_two(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->axis = -2;
}
static void edit_argmin_initial(misuse_fixture *f, misuse_call *call) {
  call->op_value.kind = CLGPU_REDUCE_ARGMIN;
  call->op_value.initial = "0";
  output_1d(f, call, CLGPU_TYPE_UINT64, 5, 0);
}
static void edit_argmax_initial(misuse_fixture *f, misuse_call *call) {
  call->op_value.kind = CLGPU_REDUCE_ARGMAX;
  call->op_value.initial = "0";
  output_1d(f, call, CLGPU_TYPE_UINT64, 5, 0);
}
static void set_custom(misuse_call *call) {
  call->op_value.kind = CLGPU_REDUCE_CUSTOM;
  call->op_value.result_type = CLGPU_TYPE_INT32;
  call->op_value.map = NULL;
  call->op_value.reduce = "a + b";
  call->op_value.neutral = "0";
}
static void edit_custom_without_reduce(misuse_fixture *f, misuse_call *call) {
  (void)f;
  set_custom(call);
  call->op_value.reduce = NULL;
}
static void edit_custom_without_neutral(misuse_fixture *f, misuse_call *call) {
  (void)f;
  set_custom(call);
  call->op_value.neutral = NULL;
}
static void edit_custom_reduce_syntax(misuse_fixture *f, misuse_call *call) {
  (void)f;
  set_custom(call);
  call->op_value.reduce = "a +* b";
}
static void edit_custom_map_syntax(misuse_fixture *f, misuse_call *call) {
  (void)f;
  set_custom(call);
  call->op_value.map = "x +";
}
static void edit_custom_unknown_identifier(misuse_fixture *f, misuse_call *call) {
  (void)f;
  set_custom(call);
  call->op_value.neutral = "no_such_identifier";
}
static void edit_sum_initial_syntax(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->op_value.initial = "100 +";
}
static void edit_wait_list_missing(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->num_events = 1;
  call->wait_list = NULL;
}
static void edit_wait_list_without_count(misuse_fixture *f, misuse_call *call) {
  call->num_events = 0;
  call->wait_list = &f->user_event;
}
static void edit_unknown_algorithm(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->options_value.shape = (clgpu_shape)3;
  call->options = &call->options_value;
}
static void edit_float_output(misuse_fixture *f, misuse_call *call) {
  output_1d(f, call, CLGPU_TYPE_FLOAT, 5, 0);
}
static void edit_argmin_int32_output(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->op_value.kind = CLGPU_REDUCE_ARGMIN;
}
static void edit_count_int64_output(misuse_fixture *f, misuse_call *call) {
  call->op_value.kind = CLGPU_REDUCE_COUNT;
  output_1d(f, call, CLGPU_TYPE_INT64, 5, 0);
}
static void edit_any_uint8_output(misuse_fixture *f, misuse_call *call) {
  call->op_value.kind = CLGPU_REDUCE_ANY;
  output_1d(f, call, CLGPU_TYPE_UINT8, 5, 0);
}
static void edit_custom_float_into_int32(misuse_fixture *f, misuse_call *call) {
  (void)f;
  set_custom(call);
  call->op_value.result_type = CLGPU_TYPE_FLOAT;
  call->op_value.neutral = "0.0f";
}
static void edit_output_four(misuse_fixture *f, misuse_call *call) {
  output_1d(f, call, CLGPU_TYPE_INT32, 4, 0);
}
static void edit_output_six(misuse_fixture *f, misuse_call *call) {
  output_1d(f, call, CLGPU_TYPE_INT32, 6, 0);
}
static void edit_output_five_by_one(misuse_fixture *f, misuse_call *call) {
  const size_t shape[2] = {5, 1};
  assert_status(clgpu_array_nd(f->output.buffer, f->output.offset, CLGPU_TYPE_INT32, 2, shape,
                               CLGPU_ORDER_ROW_MAJOR, &call->output_view),
                CLGPU_SUCCESS);
}
static void edit_output_one_one_five(misuse_fixture *f, misuse_call *call) {
  const size_t shape[3] = {1, 1, 5};
  assert_status(clgpu_array_nd(f->output.buffer, f->output.offset, CLGPU_TYPE_INT32, 3, shape,
                               CLGPU_ORDER_ROW_MAJOR, &call->output_view),
                CLGPU_SUCCESS);
}
static void edit_whole_into_two(misuse_fixture *f, misuse_call *call) {
  call->axis = CLGPU_ALL_AXES;
  output_1d(f, call, CLGPU_TYPE_INT32, 2, 0);
}
static void edit_whole_into_none(misuse_fixture *f, misuse_call *call) {
  call->axis = CLGPU_ALL_AXES;
  output_1d(f, call, CLGPU_TYPE_INT32, 0, 0);
}
static void edit_output_is_input_row(misuse_fixture *f, misuse_call *call) {
  assert_status(
      clgpu_array_1d(f->input.buffer, f->input.offset, CLGPU_TYPE_INT32, 5, &call->output_view),
      CLGPU_SUCCESS);
}
static void edit_whole_output_in_input(misuse_fixture *f, misuse_call *call) {
  call->axis = CLGPU_ALL_AXES;
  assert_status(clgpu_array_1d(f->input.buffer, f->input.offset + 7 * sizeof(cl_int),
                               CLGPU_TYPE_INT32, 1, &call->output_view),
                CLGPU_SUCCESS);
}
static void edit_broadcast_output(misuse_fixture *f, misuse_call *call) {
  assert_status(
      clgpu_array_strided(f->output.buffer, f->output.offset, CLGPU_TYPE_INT32, 1,
                          (const size_t[]){5}, (const ptrdiff_t[]){0}, &call->output_view),
      CLGPU_SUCCESS);
}
static void edit_self_overlapping_output(misuse_fixture *f, misuse_call *call) {
  /* Input (4, 5) seen as (2, 2, 5), reduced along axis 2: a 2 x 2 output
   * with strides (1, 1) writes one element twice. */
  const size_t shape[3] = {2, 2, 5}, output_shape[2] = {2, 2};
  const ptrdiff_t strides[2] = {1, 1};
  assert_status(clgpu_array_nd(f->input.buffer, f->input.offset, CLGPU_TYPE_INT32, 3, shape,
                               CLGPU_ORDER_ROW_MAJOR, &call->input_view),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_strided(f->output.buffer, f->output.offset, CLGPU_TYPE_INT32, 2,
                                    output_shape, strides, &call->output_view),
                CLGPU_SUCCESS);
  call->axis = 2;
}
static void edit_misaligned_output(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->output_view.offset += 2;
}
static void edit_misaligned_input(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->input_view.offset += 1;
}
static void edit_input_past_end(misuse_fixture *f, misuse_call *call) {
  call->input_view.offset = f->input.offset + f->input.region_bytes + TEST_GUARD_BYTES;
}
static void edit_input_before_start(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->input_view.offset = 0;
  call->input_view.strides[0] = -5;
}
static void edit_output_past_end(misuse_fixture *f, misuse_call *call) {
  call->output_view.offset = f->output.offset + f->output.region_bytes + TEST_GUARD_BYTES - 8;
}
static void edit_unknown_input_type(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->input_view.type = (clgpu_type)0;
}
static void edit_input_rank_too_large(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->input_view.rank = CLGPU_MAX_RANK + 1;
}
static void edit_foreign_input(misuse_fixture *f, misuse_call *call) {
  const size_t shape[2] = {4, 5};
  assert_status(clgpu_array_nd(f->foreign, 0, CLGPU_TYPE_INT32, 2, shape, CLGPU_ORDER_ROW_MAJOR,
                               &call->input_view),
                CLGPU_SUCCESS);
}
static void edit_foreign_output(misuse_fixture *f, misuse_call *call) {
  assert_status(clgpu_array_1d(f->foreign, 0, CLGPU_TYPE_INT32, 5, &call->output_view),
                CLGPU_SUCCESS);
}
static void edit_double_input(misuse_fixture *f, misuse_call *call) {
  const size_t shape[2] = {2, 5};
  assert_status(clgpu_array_nd(f->input.buffer, f->input.offset, CLGPU_TYPE_DOUBLE, 2, shape,
                               CLGPU_ORDER_ROW_MAJOR, &call->input_view),
                CLGPU_SUCCESS);
  output_1d(f, call, CLGPU_TYPE_DOUBLE, 5, 0);
}
static void edit_half_input(misuse_fixture *f, misuse_call *call) {
  const size_t shape[2] = {4, 5};
  assert_status(clgpu_array_nd(f->input.buffer, f->input.offset, CLGPU_TYPE_HALF, 2, shape,
                               CLGPU_ORDER_ROW_MAJOR, &call->input_view),
                CLGPU_SUCCESS);
  output_1d(f, call, CLGPU_TYPE_HALF, 5, 0);
}
static int lacks_fp64(void) { return !facts.has_fp64; }
static int lacks_fp16(void) { return !facts.has_fp16; }

static const misuse_row reduce_misuse_rows[] = {
    {"NULL context", CLGPU_INVALID_ARGUMENT, edit_null_context, NULL, 0},
    {"NULL op", CLGPU_INVALID_ARGUMENT, edit_null_op, NULL, 0},
    {"NULL input", CLGPU_INVALID_ARGUMENT, edit_null_input, NULL, 0},
    {"NULL output", CLGPU_INVALID_ARGUMENT, edit_null_output, NULL, 0},
    {"kind 0", CLGPU_INVALID_ARGUMENT, edit_kind_zero, NULL, 0},
    {"kind past CUSTOM", CLGPU_INVALID_ARGUMENT, edit_kind_past_custom, NULL, 0},
    {"axis == rank", CLGPU_INVALID_ARGUMENT, edit_axis_rank, NULL, 0},
    {"axis -2", CLGPU_INVALID_ARGUMENT, edit_axis_minus_two, NULL, 0},
    {"ARGMIN with an initial", CLGPU_INVALID_ARGUMENT, edit_argmin_initial, NULL, 0},
    {"ARGMAX with an initial", CLGPU_INVALID_ARGUMENT, edit_argmax_initial, NULL, 0},
    {"CUSTOM without reduce", CLGPU_INVALID_ARGUMENT, edit_custom_without_reduce, NULL, 0},
    {"CUSTOM without neutral", CLGPU_INVALID_ARGUMENT, edit_custom_without_neutral, NULL, 0},
    {"num_events 1, wait_list NULL", CLGPU_INVALID_ARGUMENT, edit_wait_list_missing, NULL, 0},
    {"num_events 0, wait_list set", CLGPU_INVALID_ARGUMENT, edit_wait_list_without_count, NULL, 0},
    {"unknown algorithm", CLGPU_INVALID_ARGUMENT, edit_unknown_algorithm, NULL, 0},
    {"SUM of int32 into float", CLGPU_TYPE_MISMATCH, edit_float_output, NULL, 0},
    {"ARGMIN into int32", CLGPU_TYPE_MISMATCH, edit_argmin_int32_output, NULL, 0},
    {"COUNT into int64", CLGPU_TYPE_MISMATCH, edit_count_int64_output, NULL, 0},
    {"ANY into uint8", CLGPU_TYPE_MISMATCH, edit_any_uint8_output, NULL, 0},
    {"CUSTOM float result into int32", CLGPU_TYPE_MISMATCH, edit_custom_float_into_int32, NULL, 0},
    {"axis 0 of (4, 5) into (4)", CLGPU_SHAPE_MISMATCH, edit_output_four, NULL, 0},
    {"axis 0 of (4, 5) into (6)", CLGPU_SHAPE_MISMATCH, edit_output_six, NULL, 0},
    {"axis 0 of (4, 5) into (5, 1)", CLGPU_SHAPE_MISMATCH, edit_output_five_by_one, NULL, 0},
    {"axis 0 of (4, 5) into (1, 1, 5)", CLGPU_SHAPE_MISMATCH, edit_output_one_one_five, NULL, 0},
    {"whole array into 2 elements", CLGPU_SHAPE_MISMATCH, edit_whole_into_two, NULL, 0},
    {"whole array into 0 elements", CLGPU_SHAPE_MISMATCH, edit_whole_into_none, NULL, 0},
    {"output is the input's first row", CLGPU_INVALID_OUTPUT, edit_output_is_input_row, NULL, 0},
    {"whole-array output inside the input", CLGPU_INVALID_OUTPUT, edit_whole_output_in_input, NULL,
     0},
    {"broadcast output", CLGPU_INVALID_OUTPUT, edit_broadcast_output, NULL, 0},
    {"self-overlapping output", CLGPU_INVALID_OUTPUT, edit_self_overlapping_output, NULL, 0},
    {"misaligned output offset", CLGPU_MISALIGNED_VIEW, edit_misaligned_output, NULL, 0},
    {"misaligned input offset", CLGPU_MISALIGNED_VIEW, edit_misaligned_input, NULL, 0},
    {"input past the buffer's end", CLGPU_VIEW_OUT_OF_BOUNDS, edit_input_past_end, NULL, 0},
    {"input before the buffer's start", CLGPU_VIEW_OUT_OF_BOUNDS, edit_input_before_start, NULL, 0},
    {"output past the buffer's end", CLGPU_VIEW_OUT_OF_BOUNDS, edit_output_past_end, NULL, 0},
    {"unknown input type", CLGPU_INVALID_ARGUMENT, edit_unknown_input_type, NULL, 0},
    {"input rank above CLGPU_MAX_RANK", CLGPU_INVALID_ARGUMENT, edit_input_rank_too_large, NULL, 0},
    {"input in another cl_context", CLGPU_MISMATCHED_OBJECTS, edit_foreign_input, NULL, 0},
    {"output in another cl_context", CLGPU_MISMATCHED_OBJECTS, edit_foreign_output, NULL, 0},
    {"double without cl_khr_fp64", CLGPU_UNSUPPORTED_FEATURE, edit_double_input, lacks_fp64, 0},
    {"half without cl_khr_fp16", CLGPU_UNSUPPORTED_FEATURE, edit_half_input, lacks_fp16, 0},
    {"CUSTOM reduce \"a +* b\"", CLGPU_CL_BUILD_PROGRAM_FAILURE, edit_custom_reduce_syntax, NULL,
     1},
    {"CUSTOM map \"x +\"", CLGPU_CL_BUILD_PROGRAM_FAILURE, edit_custom_map_syntax, NULL, 1},
    {"CUSTOM neutral naming no identifier", CLGPU_CL_BUILD_PROGRAM_FAILURE,
     edit_custom_unknown_identifier, NULL, 1},
    {"SUM initial \"100 +\"", CLGPU_CL_BUILD_PROGRAM_FAILURE, edit_sum_initial_syntax, NULL, 1},
};

static void misuse_setup(misuse_fixture *f) {
  memset(f, 0, sizeof *f);
  f->context = open_context();
  f->other_context = test_context(NULL);
  unsigned char *values = generate(DATA_DISTRIBUTION, 20, CLGPU_TYPE_INT32, TEST_UNIFORM, 0,
                                   test_case_seed("reduce misuse"));
  f->input = test_guarded_create(f->context, 20 * sizeof(cl_int), values);
  free(values);
  f->output = test_guarded_create(f->context, 64, NULL);
  cl_int err = CL_SUCCESS;
  f->foreign = clCreateBuffer(clgpu_context_cl_context(f->other_context), CL_MEM_READ_WRITE, 256,
                              NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  f->user_event = clCreateUserEvent(clgpu_context_cl_context(f->context), &err);
  assert_int_equal(err, CL_SUCCESS);
}

static void misuse_teardown(misuse_fixture *f) {
  if (f->user_event) {
    clSetUserEventStatus(f->user_event, CL_COMPLETE);
    clReleaseEvent(f->user_event);
  }
  if (f->foreign) clReleaseMemObject(f->foreign);
  if (f->output.buffer) test_guarded_release(&f->output);
  if (f->input.buffer) test_guarded_release(&f->input);
  clgpu_context_destroy(f->other_context);
}

/* The fixture as cmocka setup and teardown, so that a failing row still
 * releases it (the ASan run stays about the failure). */
static int misuse_fixture_setup(void **state) {
  misuse_fixture *f = calloc(1, sizeof *f);
  if (!f) return -1;
  *state = f;
  misuse_setup(f);
  return 0;
}

static int misuse_fixture_teardown(void **state) {
  misuse_fixture *f = *state;
  if (f) {
    misuse_teardown(f);
    free(f);
  }
  *state = NULL;
  return 0;
}

/* The default call of every table. */
static void misuse_default(misuse_fixture *f, misuse_call *call) {
  memset(call, 0, sizeof *call);
  call->context = f->context;
  call->op_value.kind = CLGPU_REDUCE_SUM;
  call->op = &call->op_value;
  const size_t shape[2] = {4, 5};
  assert_status(clgpu_array_nd(f->input.buffer, f->input.offset, CLGPU_TYPE_INT32, 2, shape,
                               CLGPU_ORDER_ROW_MAJOR, &call->input_view),
                CLGPU_SUCCESS);
  output_1d(f, call, CLGPU_TYPE_INT32, 5, 0);
  call->input = &call->input_view;
  call->output = &call->output_view;
  call->axis = 0;
}

/* After a refused call: the status, the detail message, no event, and
 * both regions as they were. */
/* Whether a row runs on this device. Rows that fail a build do not run on
 * Oclgrind: its API check reports every failed clBuildProgram as a runtime
 * error, which fails the run (the same reason the 'api' suite is left out of
 * the oclgrind setup); they run everywhere else. */
static int row_applies(const misuse_row *row) {
  if (row->applies && !row->applies()) return 0;
  return !(row->build_log && facts.oclgrind);
}

static void check_refused(misuse_fixture *f, const misuse_row *row, clgpu_status status,
                          cl_event event, const unsigned char *input_before,
                          const char *entry_point) {
  if (status != row->expected) {
    fail_msg("%s misuse \"%s\": %s (%d), expected %s; detail: %s", entry_point, row->name,
             clgpu_status_name(status), (int)status, clgpu_status_name(row->expected),
             clgpu_last_error());
  }
  const char *detail = clgpu_last_error();
  print_message("# %s, %s: %s\n", entry_point, row->name, detail);
  if (detail == NULL || detail[0] == '\0') {
    fail_msg("%s misuse \"%s\": no detail message", entry_point, row->name);
  }
  if (row->build_log && strstr(detail, "error") == NULL) {
    fail_msg("%s misuse \"%s\": the detail message has no compiler log: %s", entry_point, row->name,
             detail);
  }
  if (event != NULL) fail_msg("%s misuse \"%s\": an event was made", entry_point, row->name);
  assert_int_equal(clFinish(clgpu_context_queue(f->context)), CL_SUCCESS);
  unsigned char output_after[64];
  test_guarded_read(f->context, &f->output, output_after);
  for (size_t b = 0; b < sizeof output_after; b++) {
    if (output_after[b] != TEST_GUARD_REGION_FILL) {
      fail_msg("%s misuse \"%s\": the output changed", entry_point, row->name);
    }
  }
  test_guarded_check(f->context, &f->output, row->name);
  check_unchanged(f->context, &f->input, input_before, row->name);
}

static void reduce_misuse(void **state) {
  misuse_fixture *f = *state;
  unsigned char input_before[20 * sizeof(cl_int)];
  test_guarded_read(f->context, &f->input, input_before);
  for (size_t r = 0; r < sizeof reduce_misuse_rows / sizeof reduce_misuse_rows[0]; r++) {
    const misuse_row *row = &reduce_misuse_rows[r];
    if (!row_applies(row)) continue;
    misuse_call call;
    misuse_default(f, &call);
    row->edit(f, &call);
    cl_event event = NULL;
    clgpu_status status = clgpu_reduce(call.context, call.op, call.axis, call.output, call.input,
                                       call.options, call.num_events, call.wait_list, &event);
    check_refused(f, row, status, event, input_before, "clgpu_reduce");
  }
  /* The same size query refuses the same arguments (the rows that do not
   * need a build or a wait list). */
  for (size_t r = 0; r < sizeof reduce_misuse_rows / sizeof reduce_misuse_rows[0]; r++) {
    const misuse_row *row = &reduce_misuse_rows[r];
    if (!row_applies(row) || row->build_log || row->edit == edit_wait_list_missing ||
        row->edit == edit_wait_list_without_count) {
      continue;
    }
    misuse_call call;
    misuse_default(f, &call);
    row->edit(f, &call);
    clgpu_workspace_size report;
    clgpu_status status = clgpu_reduce_workspace_size(call.context, call.op, call.axis, call.output,
                                                      call.input, call.options, &report);
    if (status != row->expected) {
      fail_msg("clgpu_reduce_workspace_size misuse \"%s\": %s, expected %s: %s", row->name,
               clgpu_status_name(status), clgpu_status_name(row->expected), clgpu_last_error());
    }
  }
  /* The boundary: the default call and its kept-dimension form work. */
  misuse_call call;
  misuse_default(f, &call);
  const size_t kept[2] = {1, 5};
  assert_status(clgpu_array_nd(f->output.buffer, f->output.offset, CLGPU_TYPE_INT32, 2, kept,
                               CLGPU_ORDER_ROW_MAJOR, &call.output_view),
                CLGPU_SUCCESS);
  assert_status(clgpu_reduce(f->context, call.op, 0, call.output, call.input, NULL, 0, NULL, NULL),
                CLGPU_SUCCESS);
  assert_int_equal(clFinish(clgpu_context_queue(f->context)), CL_SUCCESS);
  unsigned char sums[64];
  test_guarded_read(f->context, &f->output, sums);
  for (size_t c = 0; c < 5; c++) {
    uint64_t expected = 0;
    for (size_t r = 0; r < 4; r++) expected += load_bits(input_before, r * 5 + c, CLGPU_TYPE_INT32);
    assert_int_equal(load_bits(sums, c, CLGPU_TYPE_INT32), expected & 0xffffffffu);
  }
  test_guarded_check(f->context, &f->output, "kept-dimension boundary");
}

static const misuse_row read_misuse_rows[] = {
    {"NULL context", CLGPU_INVALID_ARGUMENT, edit_null_context, NULL, 0},
    {"NULL op", CLGPU_INVALID_ARGUMENT, edit_null_op, NULL, 0},
    {"NULL input", CLGPU_INVALID_ARGUMENT, edit_null_input, NULL, 0},
    {"kind 0", CLGPU_INVALID_ARGUMENT, edit_kind_zero, NULL, 0},
    {"ARGMIN with an initial", CLGPU_INVALID_ARGUMENT, edit_argmin_initial, NULL, 0},
    {"CUSTOM without reduce", CLGPU_INVALID_ARGUMENT, edit_custom_without_reduce, NULL, 0},
    {"CUSTOM without neutral", CLGPU_INVALID_ARGUMENT, edit_custom_without_neutral, NULL, 0},
    {"unknown algorithm", CLGPU_INVALID_ARGUMENT, edit_unknown_algorithm, NULL, 0},
    {"misaligned input offset", CLGPU_MISALIGNED_VIEW, edit_misaligned_input, NULL, 0},
    {"input past the buffer's end", CLGPU_VIEW_OUT_OF_BOUNDS, edit_input_past_end, NULL, 0},
    {"input in another cl_context", CLGPU_MISMATCHED_OBJECTS, edit_foreign_input, NULL, 0},
    {"double without cl_khr_fp64", CLGPU_UNSUPPORTED_FEATURE, edit_double_input, lacks_fp64, 0},
    {"CUSTOM reduce \"a +* b\"", CLGPU_CL_BUILD_PROGRAM_FAILURE, edit_custom_reduce_syntax, NULL,
     1},
};

static void edit_null_result(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->null_result = 1;
}
static void edit_result_too_small(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->result_size = 2;
}
static void edit_result_too_large(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->result_size = 8;
}

static const misuse_row read_size_rows[] = {
    {"NULL result", CLGPU_INVALID_ARGUMENT, edit_null_result, NULL, 0},
    {"result_size 2 for int32", CLGPU_INVALID_ARGUMENT, edit_result_too_small, NULL, 0},
    {"result_size 8 for int32", CLGPU_INVALID_ARGUMENT, edit_result_too_large, NULL, 0},
};

static void run_read_misuse(misuse_fixture *f, const misuse_row *row,
                            const unsigned char *input_before) {
  misuse_call call;
  misuse_default(f, &call);
  row->edit(f, &call);
  clgpu_type input_type = call.input ? call.input->type : CLGPU_TYPE_INT32;
  clgpu_type result_type =
      call.op ? clgpu_reduce_result_type(call.op, input_type) : CLGPU_TYPE_INT32;
  size_t size =
      call.result_size ? call.result_size : (result_type ? clgpu_type_size(result_type) : 4);
  unsigned char result[8 + 2 * HOST_GUARD];
  memset(result, HOST_FILL, sizeof result);
  clgpu_status status =
      clgpu_reduce_read(call.context, call.op, call.null_result ? NULL : result + HOST_GUARD, size,
                        call.input, call.options);
  check_refused(f, row, status, NULL, input_before, "clgpu_reduce_read");
  for (size_t b = 0; b < sizeof result; b++) {
    if (result[b] != HOST_FILL) {
      fail_msg("clgpu_reduce_read misuse \"%s\": the host result changed", row->name);
    }
  }
}

static void reduce_read_misuse(void **state) {
  misuse_fixture *f = *state;
  unsigned char input_before[20 * sizeof(cl_int)];
  test_guarded_read(f->context, &f->input, input_before);
  for (size_t r = 0; r < sizeof read_misuse_rows / sizeof read_misuse_rows[0]; r++) {
    if (!row_applies(&read_misuse_rows[r])) continue;
    run_read_misuse(f, &read_misuse_rows[r], input_before);
  }
  for (size_t r = 0; r < sizeof read_size_rows / sizeof read_size_rows[0]; r++) {
    run_read_misuse(f, &read_size_rows[r], input_before);
  }
  /* The boundary: exactly the size works. */
  int32_t total = 0;
  misuse_call call;
  misuse_default(f, &call);
  assert_status(clgpu_reduce_read(f->context, call.op, &total, sizeof total, call.input, NULL),
                CLGPU_SUCCESS);
  uint32_t expected = 0;
  for (size_t i = 0; i < 20; i++)
    expected += (uint32_t)load_bits(input_before, i, CLGPU_TYPE_INT32);
  assert_int_equal((uint32_t)total, expected);
}

static void edit_predicate_syntax(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->predicate = "x >";
}
static void edit_predicate_unknown(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->predicate = "x > no_such_identifier";
}
static void edit_count_output(misuse_fixture *f, misuse_call *call) {
  call->axis = CLGPU_ALL_AXES;
  output_1d(f, call, CLGPU_TYPE_UINT64, 1, 0);
}
static void edit_count_into_uint32(misuse_fixture *f, misuse_call *call) {
  output_1d(f, call, CLGPU_TYPE_UINT32, 1, 0);
}
static void edit_count_into_int64(misuse_fixture *f, misuse_call *call) {
  output_1d(f, call, CLGPU_TYPE_INT64, 1, 0);
}
static void edit_count_into_two(misuse_fixture *f, misuse_call *call) {
  output_1d(f, call, CLGPU_TYPE_UINT64, 2, 0);
}
static void edit_count_into_input(misuse_fixture *f, misuse_call *call) {
  assert_status(clgpu_array_1d(f->input.buffer, f->input.offset + 8, CLGPU_TYPE_UINT64, 1,
                               &call->output_view),
                CLGPU_SUCCESS);
}
static void edit_count_misaligned_output(misuse_fixture *f, misuse_call *call) {
  output_1d(f, call, CLGPU_TYPE_UINT64, 1, 0);
  call->output_view.offset += 4;
}
static void edit_count_foreign_output(misuse_fixture *f, misuse_call *call) {
  assert_status(clgpu_array_1d(f->foreign, 0, CLGPU_TYPE_UINT64, 1, &call->output_view),
                CLGPU_SUCCESS);
}

/* Rows applied after edit_count_output has made the one uint64 output. */
static const misuse_row count_misuse_rows[] = {
    {"NULL context", CLGPU_INVALID_ARGUMENT, edit_null_context, NULL, 0},
    {"NULL input", CLGPU_INVALID_ARGUMENT, edit_null_input, NULL, 0},
    {"NULL output", CLGPU_INVALID_ARGUMENT, edit_null_output, NULL, 0},
    {"num_events 1, wait_list NULL", CLGPU_INVALID_ARGUMENT, edit_wait_list_missing, NULL, 0},
    {"num_events 0, wait_list set", CLGPU_INVALID_ARGUMENT, edit_wait_list_without_count, NULL, 0},
    {"unknown algorithm", CLGPU_INVALID_ARGUMENT, edit_unknown_algorithm, NULL, 0},
    {"output uint32", CLGPU_TYPE_MISMATCH, edit_count_into_uint32, NULL, 0},
    {"output int64", CLGPU_TYPE_MISMATCH, edit_count_into_int64, NULL, 0},
    {"output of 2 elements", CLGPU_SHAPE_MISMATCH, edit_count_into_two, NULL, 0},
    {"output inside the input", CLGPU_INVALID_OUTPUT, edit_count_into_input, NULL, 0},
    {"misaligned output", CLGPU_MISALIGNED_VIEW, edit_count_misaligned_output, NULL, 0},
    {"input past the buffer's end", CLGPU_VIEW_OUT_OF_BOUNDS, edit_input_past_end, NULL, 0},
    {"output in another cl_context", CLGPU_MISMATCHED_OBJECTS, edit_count_foreign_output, NULL, 0},
    {"double without cl_khr_fp64", CLGPU_UNSUPPORTED_FEATURE, edit_double_input, lacks_fp64, 0},
    {"predicate \"x >\"", CLGPU_CL_BUILD_PROGRAM_FAILURE, edit_predicate_syntax, NULL, 1},
    {"predicate naming no identifier", CLGPU_CL_BUILD_PROGRAM_FAILURE, edit_predicate_unknown, NULL,
     1},
};

static void count_if_misuse(void **state) {
  misuse_fixture *f = *state;
  unsigned char input_before[20 * sizeof(cl_int)];
  test_guarded_read(f->context, &f->input, input_before);
  for (size_t r = 0; r < sizeof count_misuse_rows / sizeof count_misuse_rows[0]; r++) {
    const misuse_row *row = &count_misuse_rows[r];
    if (!row_applies(row)) continue;
    misuse_call call;
    misuse_default(f, &call);
    edit_count_output(f, &call);
    row->edit(f, &call);
    if (row->edit == edit_double_input) output_1d(f, &call, CLGPU_TYPE_UINT64, 1, 0);
    cl_event event = NULL;
    clgpu_status status = clgpu_count_if(call.context, call.predicate, call.output, call.input,
                                         call.options, call.num_events, call.wait_list, &event);
    check_refused(f, row, status, event, input_before, "clgpu_count_if");
  }
}

/* ---- expressions that could change meaning (issue 15, item 9) ---- */

/* Each expression would once have escaped the library's parentheses or
 * statement, hidden part of itself in a comment, or kept the compiler busy
 * for minutes; each is now refused before anything is built, with its
 * status, the argument's name and the words that say why, and nothing
 * written. The rows of count_if give the predicate. */
typedef struct expression_row {
  const char *field; /* "op->map", "op->reduce", "op->neutral", "op->initial", "predicate" */
  const char *text;
  clgpu_status expected;
  const char *words;
} expression_row;

static const expression_row expression_rows[] = {
    {"op->reduce", "0); return (A)(x", CLGPU_INVALID_ARGUMENT, "never opened"},
    {"op->reduce", "a // c\n + b", CLGPU_INVALID_ARGUMENT, "comment"},
    {"op->reduce", "a /* c */ + b", CLGPU_INVALID_ARGUMENT, "comment"},
    {"op->reduce", "a + b; a", CLGPU_INVALID_ARGUMENT, "';'"},
    {"op->reduce", "a +* b)", CLGPU_INVALID_ARGUMENT, "never opened"},
    {"op->reduce", "(a + b", CLGPU_INVALID_ARGUMENT, "never closed"},
    {"op->reduce", "max(a, b]", CLGPU_INVALID_ARGUMENT, "does not match"},
    {"op->map", "clgpu_map(x, i)", CLGPU_INVALID_ARGUMENT, "clgpu_map"},
    {"op->map", "x ?\?) + 1", CLGPU_INVALID_ARGUMENT, "trigraph"},
    {"op->map", "x <:0:>", CLGPU_INVALID_ARGUMENT, "digraph"},
    {"op->map", " \n\t ", CLGPU_INVALID_ARGUMENT, "empty"},
    {"op->neutral", "'0", CLGPU_INVALID_ARGUMENT, "character literal"},
    {"op->neutral", "0\n#define a 1", CLGPU_INVALID_ARGUMENT, "'#'"},
    {"op->initial", "1 \\\n + 2", CLGPU_INVALID_ARGUMENT, "backslash"},
    {"op->initial", "\"1", CLGPU_INVALID_ARGUMENT, "string literal"},
    {"predicate", "x > 1000) + (1", CLGPU_INVALID_ARGUMENT, "never opened"},
    {"predicate", "x > 0 // all", CLGPU_INVALID_ARGUMENT, "comment"},
    {"predicate", "x > 0; }", CLGPU_INVALID_ARGUMENT, "';'"},
    {"predicate", "x > 0 /* open", CLGPU_INVALID_ARGUMENT, "comment"},
};

/* A text of `length` bytes: `head`, then `fill` bytes. malloc'd. */
static char *long_text(const char *head, char fill, size_t length) {
  char *text = malloc(length + 1);
  assert_non_null(text);
  memset(text, fill, length);
  memcpy(text, head, strlen(head));
  text[length] = '\0';
  return text;
}

/* Call clgpu_reduce (CUSTOM over int32, whole array) or clgpu_count_if with
 * `text` as `field`, and check the refusal, then the size query's. */
static void expect_expression_refused(misuse_fixture *f, const char *field, const char *text,
                                      clgpu_status expected, const char *words,
                                      const unsigned char *input_before) {
  misuse_call call;
  misuse_default(f, &call);
  edit_count_output(f, &call);
  char label[160];
  snprintf(label, sizeof label, "%s \"%.60s\"", field, text);
  misuse_row row = {label, expected, NULL, NULL, 0};
  int predicate = strcmp(field, "predicate") == 0;
  clgpu_status status, query;
  clgpu_workspace_size report;
  cl_event event = NULL;
  if (predicate) {
    call.predicate = text;
    status = clgpu_count_if(call.context, call.predicate, call.output, call.input, NULL, 0, NULL,
                            &event);
    query = clgpu_count_if_workspace_size(call.context, call.predicate, call.output, call.input,
                                          NULL, &report);
  } else {
    set_custom(&call);
    call.op_value.result_type = CLGPU_TYPE_UINT64;
    if (strcmp(field, "op->map") == 0) call.op_value.map = text;
    if (strcmp(field, "op->reduce") == 0) call.op_value.reduce = text;
    if (strcmp(field, "op->neutral") == 0) call.op_value.neutral = text;
    if (strcmp(field, "op->initial") == 0) call.op_value.initial = text;
    status = clgpu_reduce(call.context, call.op, CLGPU_ALL_AXES, call.output, call.input, NULL, 0,
                          NULL, &event);
    query = clgpu_reduce_workspace_size(call.context, call.op, CLGPU_ALL_AXES, call.output,
                                        call.input, NULL, &report);
  }
  const char *entry = predicate ? "clgpu_count_if" : "clgpu_reduce";
  if (status == expected) {
    const char *detail = clgpu_last_error();
    if (!strstr(detail, entry) || !strstr(detail, field) || !strstr(detail, words)) {
      fail_msg("%s: the message lacks \"%s\", \"%s\" or \"%s\": %s", label, entry, field, words,
               detail);
    }
  }
  check_refused(f, &row, status, event, input_before, entry);
  if (query != expected) {
    fail_msg("%s: the size query gave %s, expected %s: %s", label, clgpu_status_name(query),
             clgpu_status_name(expected), clgpu_last_error());
  }
}

static void hostile_expressions(void **state) {
  misuse_fixture *f = *state;
  unsigned char input_before[20 * sizeof(cl_int)];
  test_guarded_read(f->context, &f->input, input_before);
  clgpu_cache_stats stats;
  assert_status(clgpu_program_cache_stats(f->context, &stats), CLGPU_SUCCESS);
  uint64_t builds = stats.builds;
  for (size_t r = 0; r < sizeof expression_rows / sizeof expression_rows[0]; r++) {
    const expression_row *row = &expression_rows[r];
    expect_expression_refused(f, row->field, row->text, row->expected, row->words, input_before);
  }
  /* The length cap: a 1 MB undeclared identifier (which kept the compiler
   * busy for minutes) and 65537 bytes are CLGPU_EXPRESSION_TOO_LONG; 65536
   * bytes pass the checks (the size query builds nothing). */
  char *text = long_text("x", 'y', 1000000);
  expect_expression_refused(f, "predicate", text, CLGPU_EXPRESSION_TOO_LONG, "65536",
                            input_before);
  free(text);
  text = long_text("a + b", ' ', 65537);
  expect_expression_refused(f, "op->reduce", text, CLGPU_EXPRESSION_TOO_LONG, "65536",
                            input_before);
  text[65536] = '\0';
  misuse_call call;
  misuse_default(f, &call);
  set_custom(&call);
  call.op_value.reduce = text;
  clgpu_workspace_size report;
  assert_status(
      clgpu_reduce_workspace_size(f->context, call.op, 0, call.output, call.input, NULL, &report),
      CLGPU_SUCCESS);
  free(text);
  assert_status(clgpu_program_cache_stats(f->context, &stats), CLGPU_SUCCESS);
  assert_int_equal(stats.builds, builds);

  /* Benign expressions: parentheses, nested calls, ternaries, casts and
   * line breaks, against the host. */
  int32_t x[20];
  memcpy(x, input_before, sizeof x);
  clgpu_reduce_op op = {CLGPU_REDUCE_CUSTOM,
                        NULL,
                        CLGPU_TYPE_INT64,
                        "(long)(\n  (x & 1) ? (x >> 1) : -(x >> 2)\n)\n"
                        "  + max((long)clamp(x, -100, 100), (long)0)",
                        "((a) > (b)\r\n ? a : b)",
                        "(long)(-0x7fffffffffffffffL - 1)"};
  int64_t expected = INT64_MIN;
  for (int k = 0; k < 20; k++) {
    int64_t v = (int64_t)((x[k] & 1) ? (x[k] >> 1) : -(x[k] >> 2));
    int64_t clamped = x[k] < -100 ? -100 : x[k] > 100 ? 100 : x[k];
    v += clamped > 0 ? clamped : 0;
    if (v > expected) expected = v;
  }
  misuse_default(f, &call);
  int64_t result = 0;
  assert_status(clgpu_reduce_read(f->context, &op, &result, sizeof result, call.input, NULL),
                CLGPU_SUCCESS);
  assert_int_equal(result, expected);
  op.initial = "(long)max(\n  (int)0x7fffffff,\n  0)";
  assert_status(clgpu_reduce_read(f->context, &op, &result, sizeof result, call.input, NULL),
                CLGPU_SUCCESS);
  assert_int_equal(result, expected > INT32_MAX ? expected : INT32_MAX);
  /* count_if: the predicate over lines, its count read back. */
  edit_count_output(f, &call);
  uint64_t count = 0, host = 0;
  for (int k = 0; k < 20; k++) host += (x[k] > 0 && (x[k] % 3 == 1 || x[k] < -1000)) ? 1 : 0;
  assert_status(clgpu_count_if(f->context, "(x > 0) &&\n  (x % 3 == 1 || x < -1000)", call.output,
                               call.input, NULL, 0, NULL, NULL),
                CLGPU_SUCCESS);
  assert_int_equal(clFinish(clgpu_context_queue(f->context)), CL_SUCCESS);
  unsigned char output_after[64];
  test_guarded_read(f->context, &f->output, output_after);
  memcpy(&count, output_after, sizeof count);
  assert_int_equal(count, host);
}

int main(void) {
  if (getenv("CLGPU_TEST_FILTER")) cmocka_set_test_filter(getenv("CLGPU_TEST_FILTER"));
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(result_types),
      cmocka_unit_test(every_kind_integers),
      cmocka_unit_test(every_kind_float),
      cmocka_unit_test(every_kind_double),
      cmocka_unit_test(every_kind_half),
      cmocka_unit_test(sizes_around_tiles_and_chunks),
      cmocka_unit_test(float_sums_are_deterministic),
      cmocka_unit_test(auto_algorithm),
      cmocka_unit_test(along_an_axis),
      cmocka_unit_test(long_ranges_in_every_shape),
      cmocka_unit_test(initial_is_combined_once),
      cmocka_unit_test(reduce_read_results),
      cmocka_unit_test(count_if_results),
      cmocka_unit_test(events),
      cmocka_unit_test(wait_list_gates_the_call),
      cmocka_unit_test(workspace_given_by_the_caller),
      cmocka_unit_test_setup_teardown(reduce_misuse, misuse_fixture_setup, misuse_fixture_teardown),
      cmocka_unit_test_setup_teardown(reduce_read_misuse, misuse_fixture_setup,
                                      misuse_fixture_teardown),
      cmocka_unit_test_setup_teardown(count_if_misuse, misuse_fixture_setup,
                                      misuse_fixture_teardown),
      cmocka_unit_test_setup_teardown(hostile_expressions, misuse_fixture_setup,
                                      misuse_fixture_teardown),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
