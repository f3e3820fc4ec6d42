/* clgpu_scan: inclusive and exclusive SUM, MIN, MAX and CUSTOM scans over
 * whole arrays and along axes, compared with host models.
 *
 * Every case runs through one runner (run_scan_case): the input is a view
 * into a guarded region of its own, the output a view into another guarded
 * region or (in-place and overlapping cases) into the input's region. Both
 * regions start with random bytes around the views. After the call the
 * runner checks the guards, that the input region is unchanged, that no byte
 * of the output region outside the output view changed, and the output
 * view's elements against the host model of scan.h:
 *
 *   SUM on integers  tests/data.c's test_reference_scan (wrapping), bit for
 *                    bit.
 *   SUM on floats    bit for bit for TEST_SMALL_INTEGERS (every partial sum
 *                    is an integer below 2^24, so exact in any order); for
 *                    other values the bound of check_sum_prefix below.
 *   MIN, MAX         a running min/max from scan.h's neutral element
 *                    (model_extreme), bit for bit: NaNs ignored until every
 *                    element so far is a NaN, then the lowest (MIN) or
 *                    highest (MAX) NaN by test_order_key; -0 below +0.
 *   CUSTOM           the composition of affine maps t -> m*t + c packed into
 *                    one word (uint64: two 32-bit halves; uint32: two 16-bit
 *                    halves), associative but not commutative, bit for bit:
 *                    any element combined out of order changes the result.
 *                    A product scan on doubles, with a relative bound.
 *
 * Float bounds. Whatever order a device adds the k elements of a prefix in
 * (a sequence, chunks, a tree), the rounded result differs from the exact
 * sum by at most gamma_{k-1} * sum|x| <= k * eps/2 * sum|x| (Higham, Accuracy
 * and Stability, 4.2). The host's exact value is a long double sum whose own
 * error is at most k * LDBL_EPSILON * sum|x|. So the test allows
 * k * eps * sum|x| + k * LDBL_EPSILON * sum|x|, twice the device's worst case,
 * plus 2k * FLT_MIN (DBL_MIN) only on a device that does not report
 * CL_FP_DENORM (flushing an operand or a result to zero moves it by less than
 * the smallest normal). Infinities and NaNs: a prefix holding a NaN or both
 * infinities must give a NaN; one holding +inf (-inf) must give +inf (-inf),
 * or a NaN when the finite part could overflow to the other infinity in some
 * order; a prefix whose magnitude sum could overflow in some order may give
 * an infinity or a NaN, and a finite result must still meet the bound (a sum
 * that overflowed never becomes finite again). Random float bit patterns
 * overflow quickly, so the tight checks come from TEST_SMALL_INTEGERS (exact)
 * and from "moderate" values (multiples of 0.001 in [-1000, 1000]).
 * Products: each of the k-1 roundings scales by (1 + d), |d| <= eps/2, in any
 * order, so the relative error is at most gamma_{k-1} <= k * eps/2; the test
 * allows 2k * DBL_EPSILON + k * LDBL_EPSILON relative to the long double
 * product (values e^u with |u| <= 0.05, the running log kept in [-5, 5], so
 * nothing overflows or underflows).
 * Determinism: scan.h promises the same bits for the same n, algorithm and
 * device, so float scans are also compared bit for bit between two runs,
 * between AUTO and the algorithm it resolves to, and between an in-place or
 * overlapping call and the same call through fresh buffers.
 *
 * Sizes: 0-3, TILED's tile T = 8 * min(256, max work-group size) at T-1,
 * T, T+1, 2T+-1, 4T-1, 4T, 4T+1 (above four tiles the work is split over
 * groups), CHUNKED's split at 16384 (16383, 16384, 16385, 32767, 32769),
 * the chunk granule 64 (63, 64, 65), odd and prime sizes (7, 93, 1000, 4099,
 * 65537) and two seeded random sizes. The full type x kind x distribution
 * matrix runs at a size per algorithm that crosses its boundaries (16411
 * for CHUNKED, 4T + 17 for TILED); the full size list runs on a handful of
 * configurations; it also runs at 1000 (one chunk, one group). Under
 * Oclgrind sizes stop at 5000 and the matrix keeps three distributions at
 * one size.
 *
 * One context serves the whole file (group setup), so each program is built
 * once per run. */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data.h"
#include "guard.h"
#include "support.h"
#include "views.h"

/* ---- the device ---- */

static clgpu_context *shared_context;
static int oclgrind;         /* Oclgrind: sizes <= 5000, a small matrix */
static int single_denormals; /* CL_FP_DENORM in CL_DEVICE_SINGLE_FP_CONFIG */
static int double_denormals; /* CL_FP_DENORM in CL_DEVICE_DOUBLE_FP_CONFIG */
static size_t tile;          /* TILED: 8 elements per work-item, min(256, max) work-items */

static int group_setup(void **state) {
  (void)state;
  test_seed();
  /* Without clgpu's binary cache (test_disk_cache covers it): on POCL a
   * cold build that also stores the binary took about 1.1 s per program
   * against 0.35 s without (measured), and this file builds about 70
   * programs, so a first run would take well over a minute. POCL's own
   * kernel cache (POCL_CACHE_DIR) still makes later runs fast. */
  clgpu_context_options options;
  memset(&options, 0, sizeof options);
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  shared_context = test_context(&options);
  const clgpu_device_info *info = clgpu_context_device_info(shared_context);
  oclgrind =
      strstr(info->name, "Oclgrind") != NULL || strstr(info->platform_name, "Oclgrind") != NULL;
  size_t group = info->max_work_group_size < 256 ? info->max_work_group_size : 256;
  tile = 8 * group;
  cl_device_fp_config config = 0;
  cl_device_id device = clgpu_context_device(shared_context);
  if (clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof config, &config, NULL) ==
      CL_SUCCESS) {
    single_denormals = (config & CL_FP_DENORM) != 0;
  }
  config = 0;
  if (info->has_fp64 && clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof config, &config,
                                        NULL) == CL_SUCCESS) {
    double_denormals = (config & CL_FP_DENORM) != 0;
  }
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  clgpu_context_destroy(shared_context);
  shared_context = NULL;
  return 0;
}

/* Skip the test (never pass it silently) when the device lacks the type. */
/* Whether `type` can be scanned here. On a device without cl_khr_fp64, a
 * sum over double is checked to be refused instead (CLGPU_UNSUPPORTED_
 * FEATURE naming the extension, no event, the output and its guards as
 * they were) and the caller returns. */
static int type_available(test_type type) {
  if (type != TEST_DOUBLE || clgpu_context_device_info(shared_context)->has_fp64) return 1;
  const double zeros[8] = {0};
  test_guarded input = test_guarded_create(shared_context, sizeof zeros, zeros);
  test_guarded output = test_guarded_create(shared_context, sizeof zeros, NULL);
  clgpu_array in, out;
  assert_status(clgpu_array_1d(input.buffer, input.offset, CLGPU_TYPE_DOUBLE, 8, &in),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(output.buffer, output.offset, CLGPU_TYPE_DOUBLE, 8, &out),
                CLGPU_SUCCESS);
  clgpu_scan_op op = {.kind = CLGPU_SCAN_SUM};
  cl_event event = NULL;
  clgpu_status status =
      clgpu_scan(shared_context, &op, CLGPU_ALL_AXES, &out, &in, NULL, 0, NULL, &event);
  if (status != CLGPU_UNSUPPORTED_FEATURE || !strstr(clgpu_last_error(), "cl_khr_fp64")) {
    fail_msg(
        "a double scan without cl_khr_fp64: %s (%d), \"%s\"; expected "
        "CLGPU_UNSUPPORTED_FEATURE naming cl_khr_fp64",
        clgpu_status_name(status), (int)status, clgpu_last_error());
  }
  assert_null(event);
  unsigned char after[sizeof zeros], fill[sizeof zeros];
  memset(fill, TEST_GUARD_REGION_FILL, sizeof fill);
  test_guarded_read(shared_context, &output, after);
  assert_memory_equal(after, fill, sizeof fill);
  test_guarded_check(shared_context, &output, "a refused double scan");
  test_guarded_release(&input);
  test_guarded_release(&output);
  return 0;
}

static const char *algorithm_name(clgpu_shape algorithm) {
  return algorithm == CLGPU_SHAPE_CHUNKED ? "chunked"
         : algorithm == CLGPU_SHAPE_TILED ? "tiled"
                                          : "auto";
}

static const clgpu_shape both_algorithms[] = {CLGPU_SHAPE_CHUNKED, CLGPU_SHAPE_TILED};

/* The matrix size for an algorithm: past CHUNKED's split into chunks, or
 * past four of TILED's tiles (several groups). */
static size_t matrix_size(clgpu_shape algorithm) {
  if (oclgrind) return 4099;
  return algorithm == CLGPU_SHAPE_TILED ? 4 * tile + 17 : 16411;
}

/* ---- views described on the host (as in test_copy.c) ---- */

static view_spec line_spec(size_t offset, size_t n, ptrdiff_t stride) {
  view_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.offset = offset;
  spec.rank = 1;
  spec.shape[0] = n;
  spec.strides[0] = stride;
  return spec;
}

static view_spec grid_spec(size_t offset, size_t rows, size_t columns, ptrdiff_t row_stride,
                           ptrdiff_t column_stride) {
  view_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.offset = offset;
  spec.rank = 2;
  spec.shape[0] = rows;
  spec.shape[1] = columns;
  spec.strides[0] = row_stride;
  spec.strides[1] = column_stride;
  return spec;
}

typedef enum layout {
  ROW_MAJOR,
  COLUMN_MAJOR,
  PITCHED,          /* row-major over extents padded by d + 1 past the first */
  REVERSED_PITCHED, /* PITCHED with every stride negated */
  REVERSED_LAST,    /* row-major with the last stride negated */
} layout;

static const char *const layout_names[] = {"row-major", "column-major", "pitched",
                                           "reversed-pitched", "reversed-last"};

static void layout_strides(layout kind, unsigned rank, const size_t *shape, ptrdiff_t *strides) {
  ptrdiff_t stride = 1;
  for (unsigned i = 0; i < rank; i++) {
    unsigned d = kind == COLUMN_MAJOR ? i : rank - 1 - i;
    strides[d] = stride;
    size_t extent = shape[d] ? shape[d] : 1;
    if ((kind == PITCHED || kind == REVERSED_PITCHED) && d > 0) extent += d + 1;
    stride *= (ptrdiff_t)extent;
  }
  if (kind == REVERSED_PITCHED) {
    for (unsigned d = 0; d < rank; d++) strides[d] = -strides[d];
  }
  if (kind == REVERSED_LAST && rank > 0) strides[rank - 1] = -strides[rank - 1];
}

/* ---- operators and their host models ---- */

typedef enum op_id {
  OP_SUM,
  OP_MIN,
  OP_MAX,
  OP_AFFINE32, /* CUSTOM on uint64: affine maps mod 2^32, (m << 32) | c */
  OP_AFFINE16, /* CUSTOM on uint32: affine maps mod 2^16, (m << 16) | c */
  OP_PRODUCT,  /* CUSTOM on double: a * b */
} op_id;

static const char *const op_names[] = {"sum", "min", "max", "affine32", "affine16", "product"};

/* b after a: t -> mb * (ma * t + ca) + cb. The carry of earlier elements is
 * `a` (scan.h), so the scan composes the maps from the left. */
static const char affine32_combine[] =
    "(((ulong)((uint)((b) >> 32) * (uint)((a) >> 32)) << 32) | "
    "(ulong)((uint)((b) >> 32) * (uint)(a) + (uint)(b)))";
static const char affine32_neutral[] = "((ulong)1 << 32)";
static const char affine16_combine[] =
    "(((((b) >> 16) * ((a) >> 16)) << 16) | "
    "((((b) >> 16) * ((a) & 0xffffu) + ((b) & 0xffffu)) & 0xffffu))";
static const char affine16_neutral[] = "0x10000u";

static clgpu_scan_op scan_op(op_id op, int exclusive) {
  clgpu_scan_op result = {CLGPU_SCAN_SUM, exclusive, NULL, NULL};
  switch (op) {
    case OP_SUM:
      break;
    case OP_MIN:
      result.kind = CLGPU_SCAN_MIN;
      break;
    case OP_MAX:
      result.kind = CLGPU_SCAN_MAX;
      break;
    case OP_AFFINE32:
      result.kind = CLGPU_SCAN_CUSTOM;
      result.combine = affine32_combine;
      result.neutral = affine32_neutral;
      break;
    case OP_AFFINE16:
      result.kind = CLGPU_SCAN_CUSTOM;
      result.combine = affine16_combine;
      result.neutral = affine16_neutral;
      break;
    case OP_PRODUCT:
      result.kind = CLGPU_SCAN_CUSTOM;
      result.combine = "(a) * (b)";
      result.neutral = "1.0";
      break;
  }
  return result;
}

static uint64_t width_mask(test_type type) {
  size_t bits = 8 * test_type_size(type);
  return bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
}

static uint64_t key_of_bits(uint64_t bits, test_type type) {
  unsigned char element[8];
  test_store_bits(element, 0, type, bits);
  return test_order_key(element, type);
}

static int nan_bits(uint64_t bits, test_type type) {
  unsigned char element[8];
  test_store_bits(element, 0, type, bits);
  return test_is_nan(element, type);
}

/* scan.h's neutral elements of MIN and MAX. */
static uint64_t extreme_neutral(test_type type, int want_max) {
  if (type == TEST_FLOAT) return want_max ? 0xffffffffu : 0x7fffffffu;
  if (type == TEST_DOUBLE) return want_max ? ~(uint64_t)0 : ~(uint64_t)0 >> 1;
  uint64_t mask = width_mask(type);
  if (test_type_is_signed(type)) {
    uint64_t top = (mask >> 1) + 1;
    return want_max ? top : mask >> 1;
  }
  return want_max ? 0 : mask;
}

/* The running MIN (MAX) combined with one more element: a NaN loses to any
 * other value; between two non-NaNs, or two NaNs, the lower (higher) key. */
static uint64_t extreme_combine(uint64_t a, uint64_t b, test_type type, int want_max) {
  int a_nan = nan_bits(a, type), b_nan = nan_bits(b, type);
  if (a_nan != b_nan) return a_nan ? b : a;
  uint64_t ka = key_of_bits(a, type), kb = key_of_bits(b, type);
  if (want_max) return kb > ka ? b : a;
  return kb < ka ? b : a;
}

static uint64_t affine32(uint64_t a, uint64_t b) {
  uint32_t am = (uint32_t)(a >> 32), ac = (uint32_t)a, bm = (uint32_t)(b >> 32), bc = (uint32_t)b;
  uint32_t m = bm * am, c = bm * ac + bc;
  return (uint64_t)m << 32 | c;
}

static uint64_t affine16(uint64_t a, uint64_t b) {
  uint32_t am = (uint32_t)(a >> 16) & 0xffffu, ac = (uint32_t)a & 0xffffu;
  uint32_t bm = (uint32_t)(b >> 16) & 0xffffu, bc = (uint32_t)b & 0xffffu;
  uint32_t m = (bm * am) & 0xffffu, c = (bm * ac + bc) & 0xffffu;
  return (uint64_t)(m << 16 | c);
}

/* The exact model of one contiguous line of n elements. */
static void model_line(op_id op, test_type type, int exclusive, const unsigned char *in,
                       unsigned char *out, size_t n) {
  if (op == OP_SUM) {
    test_reference_scan(in, out, n, type, !exclusive);
    return;
  }
  uint64_t carry = op == OP_MIN        ? extreme_neutral(type, 0)
                   : op == OP_MAX      ? extreme_neutral(type, 1)
                   : op == OP_AFFINE32 ? (uint64_t)1 << 32
                                       : (uint64_t)1 << 16;
  for (size_t i = 0; i < n; i++) {
    uint64_t x = test_load_bits(in, i, type);
    if (exclusive) test_store_bits(out, i, type, carry);
    switch (op) {
      case OP_MIN:
        carry = extreme_combine(carry, x, type, 0);
        break;
      case OP_MAX:
        carry = extreme_combine(carry, x, type, 1);
        break;
      case OP_AFFINE32:
        carry = affine32(carry, x);
        break;
      case OP_AFFINE16:
        carry = affine16(carry, x);
        break;
      default:
        fail_msg("model_line: no exact model for %s", op_names[op]);
    }
    if (!exclusive) test_store_bits(out, i, type, carry);
  }
}

static double value_of_bits(uint64_t bits, test_type type) {
  if (type == TEST_FLOAT) {
    uint32_t word = (uint32_t)bits;
    float value;
    memcpy(&value, &word, sizeof value);
    return value;
  }
  double value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

static uint64_t bits_of_value(double value, test_type type) {
  if (type == TEST_FLOAT) {
    float single = (float)value;
    uint32_t word;
    memcpy(&word, &single, sizeof word);
    return word;
  }
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

/* What is known about the elements of a prefix. */
typedef struct prefix {
  size_t k;
  long double exact;     /* the sum (or product) of the finite elements */
  long double magnitude; /* the sum of their magnitudes */
  int nan, plus_infinity, minus_infinity;
} prefix;

static void prefix_add(prefix *p, double x, int product) {
  p->k++;
  if (product) {
    p->exact *= x;
    return;
  }
  if (isnan(x)) {
    p->nan = 1;
  } else if (isinf(x)) {
    if (x > 0) p->plus_infinity = 1;
    if (x < 0) p->minus_infinity = 1;
  } else {
    p->exact += x;
    p->magnitude += fabs(x);
  }
}

/* The rules of the file header for a float sum of the prefix; NULL when
 * `bits` meets them, else what is wrong. */
static const char *check_sum_prefix(const prefix *p, uint64_t bits, test_type type, char *why,
                                    size_t why_size) {
  if (p->k == 0) {
    /* An exclusive scan's first element: SUM's neutral, +0. */
    if (bits != 0) {
      snprintf(why, why_size, "an empty prefix must give +0 (neutral)");
      return why;
    }
    return NULL;
  }
  double r = value_of_bits(bits, type);
  int single = type == TEST_FLOAT;
  long double eps = single ? FLT_EPSILON : DBL_EPSILON;
  long double largest = single ? FLT_MAX : DBL_MAX;
  long double smallest_normal = single ? FLT_MIN : DBL_MIN;
  int denormals = single ? single_denormals : double_denormals;
  long double k = (long double)p->k;
  int may_overflow = p->magnitude * (1 + 2 * k * eps) >= largest;
  if (p->nan || (p->plus_infinity && p->minus_infinity)) {
    if (isnan(r)) return NULL;
    snprintf(why, why_size, "the prefix holds a NaN or both infinities: expected a NaN");
    return why;
  }
  if (p->plus_infinity || p->minus_infinity) {
    int positive = p->plus_infinity;
    if (isinf(r) && (r > 0) == positive) return NULL;
    if (isnan(r) && may_overflow) return NULL;
    snprintf(why, why_size, "the prefix holds %sinf: expected %sinf%s", positive ? "+" : "-",
             positive ? "+" : "-", may_overflow ? " or a NaN" : "");
    return why;
  }
  if (!isfinite(r)) {
    if (may_overflow) return NULL;
    snprintf(why, why_size,
             "expected a finite sum: the magnitudes add to %Lg, no order can overflow",
             p->magnitude);
    return why;
  }
  long double bound = k * eps * p->magnitude + k * LDBL_EPSILON * p->magnitude;
  if (!denormals) bound += 2 * k * smallest_normal;
  long double error = fabsl((long double)r - p->exact);
  if (error <= bound) return NULL;
  snprintf(why, why_size,
           "|%.17g - %.21Lg| = %Lg exceeds the bound %Lg (k=%zu, sum of magnitudes %Lg)", r,
           p->exact, error, bound, p->k, p->magnitude);
  return why;
}

static const char *check_product_prefix(const prefix *p, uint64_t bits, char *why,
                                        size_t why_size) {
  if (p->k == 0) {
    if (bits != bits_of_value(1.0, TEST_DOUBLE)) {
      snprintf(why, why_size, "an empty prefix must give 1.0 (the neutral)");
      return why;
    }
    return NULL;
  }
  double r = value_of_bits(bits, TEST_DOUBLE);
  long double k = (long double)p->k;
  long double bound = (2 * k * DBL_EPSILON + k * LDBL_EPSILON) * fabsl(p->exact);
  long double error = fabsl((long double)r - p->exact);
  if (isfinite(r) && error <= bound) return NULL;
  snprintf(why, why_size, "|%.17g - %.21Lg| = %Lg exceeds the bound %Lg (k=%zu)", r, p->exact,
           error, bound, p->k);
  return why;
}

/* ---- cases ---- */

typedef enum values_kind {
  VALUES_DISTRIBUTION, /* test_generate with distribution and parameter */
  VALUES_MODERATE,     /* multiples of 0.001 in [-1000, 1000] (float, double) */
  VALUES_PRODUCT,      /* +-e^u, |u| <= 0.05, the log of the running product in [-5, 5] */
} values_kind;

typedef struct scan_case {
  const char *what; /* the layout, for the report */
  test_type type;
  op_id op;
  int exclusive;
  int axis;
  clgpu_shape algorithm;
  int null_options; /* pass NULL options (AUTO, no workspace) */
  clgpu_workspace *workspace;
  values_kind values;
  test_distribution distribution;
  size_t parameter;
  view_spec input, output;
  size_t input_elements, output_elements; /* the regions' lengths */
  int shared;                             /* the output is a view of the input's region */
  int compare_fresh;                      /* also through fresh buffers: the same bits */
  int gated;                              /* wait for a user event opened by another thread */
  const char *seed_label; /* NULL: the data's seed comes from the full description */
} scan_case;

static scan_case base_case(test_type type, op_id op, int exclusive, clgpu_shape algorithm,
                           test_distribution distribution, size_t parameter) {
  scan_case c;
  memset(&c, 0, sizeof c);
  c.what = "contiguous";
  c.type = type;
  c.op = op;
  c.exclusive = exclusive;
  c.axis = CLGPU_ALL_AXES;
  c.algorithm = algorithm;
  c.values = VALUES_DISTRIBUTION;
  c.distribution = distribution;
  c.parameter = parameter;
  return c;
}

/* Input and output in regions of their own, with slack around each. */
static void set_separate(scan_case *c, unsigned rank, const size_t *shape,
                         const ptrdiff_t *input_strides, const ptrdiff_t *output_strides) {
  memset(&c->input, 0, sizeof c->input);
  memset(&c->output, 0, sizeof c->output);
  c->input.rank = c->output.rank = rank;
  for (unsigned d = 0; d < rank; d++) {
    c->input.shape[d] = c->output.shape[d] = shape[d];
    c->input.strides[d] = input_strides[d];
    c->output.strides[d] = output_strides[d];
  }
  c->input_elements = spec_fit(&c->input, 2);
  c->output_elements = spec_fit(&c->output, 3);
  c->shared = 0;
}

static void set_contiguous(scan_case *c, size_t n) {
  const ptrdiff_t one = 1;
  set_separate(c, 1, &n, &one, &one);
}

/* Input and output in one region of `elements` elements. */
static void set_shared(scan_case *c, size_t elements, const view_spec *input,
                       const view_spec *output) {
  c->input = *input;
  c->output = *output;
  c->input_elements = elements;
  c->output_elements = 0;
  c->shared = 1;
}

static void describe(const scan_case *c, char *label, size_t size) {
  char axis[32];
  if (c->axis == CLGPU_ALL_AXES) {
    snprintf(axis, sizeof axis, "all axes");
  } else {
    snprintf(axis, sizeof axis, "axis %d", c->axis);
  }
  char shape[96] = "()";
  int used = 0;
  for (unsigned d = 0; d < c->input.rank; d++) {
    used += snprintf(shape + used, sizeof shape - (size_t)used, d ? ", %zu" : "(%zu",
                     c->input.shape[d]);
  }
  if (c->input.rank > 0) snprintf(shape + used, sizeof shape - (size_t)used, ")");
  snprintf(label, size, "scan %s %s, %s, %s, shape %s, %s%s%s", op_names[c->op],
           c->exclusive ? "exclusive" : "inclusive", axis,
           c->null_options ? "NULL options" : algorithm_name(c->algorithm), shape, c->what,
           c->values == VALUES_MODERATE  ? ", moderate values"
           : c->values == VALUES_PRODUCT ? ", product values"
                                         : "",
           c->workspace ? ", with a workspace" : "");
}

static void generate_values(const scan_case *c, unsigned char *out, size_t n, uint64_t seed) {
  if (c->values == VALUES_DISTRIBUTION) {
    test_generate(out, n, c->type, c->distribution, seed, c->parameter);
    /* Affine maps get odd multipliers: odd numbers are units mod 2^k, so
     * the composed multiplier never collapses to 0 and every element keeps
     * mattering to every later result (with even ones, random multipliers
     * multiply to 0 within a few dozen elements, and a carry combined in
     * the wrong order would show only next to chunk and tile boundaries). */
    if (c->op == OP_AFFINE32 || c->op == OP_AFFINE16) {
      unsigned shift = c->op == OP_AFFINE32 ? 32 : 16;
      for (size_t i = 0; i < n; i++) {
        test_store_bits(out, i, c->type, test_load_bits(out, i, c->type) | (uint64_t)1 << shift);
      }
    }
    return;
  }
  assert_true(test_type_is_float(c->type));
  test_rng rng;
  test_rng_init(&rng, seed);
  double log_product = 0;
  for (size_t i = 0; i < n; i++) {
    double value;
    if (c->values == VALUES_MODERATE) {
      value = ((double)test_rng_below(&rng, 2000001) - 1000000.0) / 1000.0;
    } else {
      double u = ((double)test_rng_below(&rng, 100001) - 50000.0) / 1000000.0;
      if (fabs(log_product + u) > 5) u = -u;
      log_product += u;
      value = exp(u);
      if (test_rng_below(&rng, 2)) value = -value;
    }
    test_store_bits(out, i, c->type, bits_of_value(value, c->type));
  }
}

/* The lines a scan runs along: one line of every element for all axes, else
 * count lines of `length` elements `inner` apart. */
typedef struct lines {
  size_t count, length, inner;
} lines;

static lines lines_of(const view_spec *spec, int axis) {
  lines result;
  size_t n = spec_count(spec);
  if (axis == CLGPU_ALL_AXES) {
    result.count = 1;
    result.length = n;
    result.inner = 1;
    return result;
  }
  result.length = spec->shape[axis];
  result.inner = 1;
  for (unsigned d = (unsigned)axis + 1; d < spec->rank; d++) result.inner *= spec->shape[d];
  result.count = result.length ? n / result.length : 0;
  return result;
}

static size_t line_start(const lines *l, size_t line) {
  return (line / l->inner) * l->length * l->inner + line % l->inner;
}

static void line_gather(const unsigned char *logical, const lines *l, size_t line, size_t size,
                        unsigned char *out) {
  size_t start = line_start(l, line);
  for (size_t j = 0; j < l->length; j++) {
    memcpy(out + j * size, logical + (start + j * l->inner) * size, size);
  }
}

static void line_scatter(unsigned char *logical, const lines *l, size_t line, size_t size,
                         const unsigned char *in) {
  size_t start = line_start(l, line);
  for (size_t j = 0; j < l->length; j++) {
    memcpy(logical + (start + j * l->inner) * size, in + j * size, size);
  }
}

/* Under Oclgrind every line of an axis scan is a work-group (256
 * simulated work-items in TILED): cases with more than 64 lines take
 * minutes there and reach no path the others miss, so the lists leave them
 * out on Oclgrind. */
static int too_many_lines_for_oclgrind(const view_spec *spec, int axis) {
  return oclgrind && axis != CLGPU_ALL_AXES && lines_of(spec, axis).count > 64;
}

/* Whether the case is compared bit for bit. */
static int exact_case(const scan_case *c) {
  if (c->op == OP_PRODUCT) return 0;
  if (c->op != OP_SUM || !test_type_is_float(c->type)) return 1;
  return c->values == VALUES_DISTRIBUTION && c->distribution == TEST_SMALL_INTEGERS;
}

/* Check the output's elements (row-major) against the model. */
static void check_result(const scan_case *c, const test_case *tc, const char *label,
                         const unsigned char *values, const unsigned char *actual) {
  size_t size = test_type_size(c->type), n = spec_count(&c->input);
  lines l = lines_of(&c->input, c->axis);
  unsigned char *in_line = test_allocate(l.length, c->type);
  unsigned char *out_line = test_allocate(l.length, c->type);
  if (exact_case(c)) {
    unsigned char *expected = test_allocate(n, c->type);
    for (size_t line = 0; line < l.count; line++) {
      line_gather(values, &l, line, size, in_line);
      model_line(c->op, c->type, c->exclusive, in_line, out_line, l.length);
      line_scatter(expected, &l, line, size, out_line);
    }
    int same = test_compare(actual, expected, n, c->type, 0, tc);
    free(expected);
    if (!same) {
      free(in_line);
      free(out_line);
      fail_msg("%s: differs from the model (report above)", label);
    }
  } else {
    char why[400];
    for (size_t line = 0; line < l.count; line++) {
      line_gather(values, &l, line, size, in_line);
      line_gather(actual, &l, line, size, out_line);
      prefix p = {0, c->op == OP_PRODUCT ? 1.0L : 0.0L, 0.0L, 0, 0, 0};
      for (size_t j = 0; j < l.length; j++) {
        double x = value_of_bits(test_load_bits(in_line, j, c->type), c->type);
        if (!c->exclusive) prefix_add(&p, x, c->op == OP_PRODUCT);
        uint64_t bits = test_load_bits(out_line, j, c->type);
        const char *wrong = c->op == OP_PRODUCT
                                ? check_product_prefix(&p, bits, why, sizeof why)
                                : check_sum_prefix(&p, bits, c->type, why, sizeof why);
        if (wrong) {
          char description[512];
          test_describe_case(tc, description, sizeof description);
          free(in_line);
          free(out_line);
          fail_msg("%s: line %zu of %zu, element %zu (row-major index %zu), 0x%llx: %s [%s]", label,
                   line, l.count, j, line_start(&l, line) + j * l.inner, (unsigned long long)bits,
                   wrong, description);
        }
        if (c->exclusive) prefix_add(&p, x, c->op == OP_PRODUCT);
      }
    }
  }
  free(in_line);
  free(out_line);
}

/* Run the scan, wait for its event, return the call's status. */
static clgpu_status call_scan(const scan_case *c, const char *label, const clgpu_array *input,
                              const clgpu_array *output) {
  clgpu_context *context = shared_context;
  clgpu_scan_op op = scan_op(c->op, c->exclusive);
  clgpu_call_options options = {.shape = c->algorithm, .workspace = c->workspace};
  cl_event event = NULL;
  if (!c->gated) {
    clgpu_status status = clgpu_scan(context, &op, c->axis, output, input,
                                     c->null_options ? NULL : &options, 0, NULL, &event);
    if (status != CLGPU_SUCCESS) return status;
    if (event == NULL) fail_msg("%s: no event", label);
    assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
    assert_int_equal(test_event_status(event), CL_COMPLETE);
    clReleaseEvent(event);
    return CLGPU_SUCCESS;
  }
  cl_int err = CL_SUCCESS;
  test_gate_opener opener = {NULL, NULL, CL_COMPLETE};
  opener.gate = clCreateUserEvent(clgpu_context_cl_context(context), &err);
  assert_int_equal(err, CL_SUCCESS);
  clgpu_status status = clgpu_scan(context, &op, c->axis, output, input,
                                   c->null_options ? NULL : &options, 1, &opener.gate, &event);
  if (status != CLGPU_SUCCESS) {
    clSetUserEventStatus(opener.gate, CL_COMPLETE);
    clReleaseEvent(opener.gate);
    return status;
  }
  if (event == NULL) fail_msg("%s: no event", label);
  opener.call = event;
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, test_open_gate_later, &opener), 0);
  assert_int_equal(clFlush(clgpu_context_queue(context)), CL_SUCCESS);
  assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
  assert_int_equal(pthread_join(thread, NULL), 0);
  if (opener.call_status_before_opening == CL_COMPLETE) {
    fail_msg("%s: the scan completed before its wait list", label);
  }
  assert_int_equal(test_event_status(event), CL_COMPLETE);
  clReleaseEvent(event);
  clReleaseEvent(opener.gate);
  return CLGPU_SUCCESS;
}

/* The same scan from a fresh contiguous input into a fresh contiguous
 * output must give the same bits as `actual`. */
static void compare_with_fresh(const scan_case *c, const char *label, const unsigned char *values,
                               const unsigned char *actual) {
  size_t size = test_type_size(c->type), n = spec_count(&c->input);
  if (n == 0) return;
  clgpu_type type = test_cl_type(c->type);
  test_guarded input = test_guarded_create(shared_context, n * size, values);
  test_guarded output = test_guarded_create(shared_context, n * size, NULL);
  clgpu_array input_view, output_view;
  assert_status(clgpu_array_nd(input.buffer, input.offset, type, c->input.rank, c->input.shape,
                               CLGPU_ORDER_ROW_MAJOR, &input_view),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_nd(output.buffer, output.offset, type, c->input.rank, c->input.shape,
                               CLGPU_ORDER_ROW_MAJOR, &output_view),
                CLGPU_SUCCESS);
  scan_case fresh = *c;
  fresh.gated = 0;
  fresh.workspace = NULL;
  clgpu_status status = call_scan(&fresh, label, &input_view, &output_view);
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s (through fresh buffers): %s: %s", label, clgpu_status_name(status),
             clgpu_last_error());
  }
  unsigned char *result = malloc(n * size);
  assert_non_null(result);
  test_guarded_read(shared_context, &output, result);
  test_guarded_check(shared_context, &output, label);
  if (memcmp(result, actual, n * size) != 0) {
    size_t first = 0;
    while (memcmp(result + first * size, actual + first * size, size) == 0) first++;
    fail_msg("%s: element %zu (row-major) is 0x%llx, through fresh buffers 0x%llx", label, first,
             (unsigned long long)test_load_bits(actual, first, c->type),
             (unsigned long long)test_load_bits(result, first, c->type));
  }
  free(result);
  test_guarded_release(&output);
  test_guarded_release(&input);
}

/* Run one case and check everything the file header lists. Returns the
 * output's elements (row-major, malloc'd) when `keep` is not NULL. */
static void run_scan_case_keep(const scan_case *c, unsigned char **keep) {
  clgpu_context *context = shared_context;
  size_t size = test_type_size(c->type), n = spec_count(&c->input);
  clgpu_type type = test_cl_type(c->type);
  char label[512];
  describe(c, label, sizeof label);
  test_case tc = test_make_case(label, n, c->type, c->distribution, c->parameter);
  if (c->seed_label) tc.seed = test_case_seed(c->seed_label);

  unsigned char *values = test_allocate(n, c->type);
  generate_values(c, values, n, tc.seed);
  size_t input_bytes = c->input_elements * size, output_bytes = c->output_elements * size;
  unsigned char *input_initial = random_bytes(input_bytes, tc.seed ^ 0x1234u);
  scatter(input_initial, &c->input, size, values);
  test_guarded input_buffer = test_guarded_create(context, input_bytes, input_initial);
  unsigned char *output_initial = NULL;
  test_guarded output_buffer = {NULL, 0, 0};
  if (!c->shared) {
    output_initial = random_bytes(output_bytes, tc.seed ^ 0x5678u);
    output_buffer = test_guarded_create(context, output_bytes, output_initial);
  }
  const test_guarded *output_region = c->shared ? &input_buffer : &output_buffer;
  clgpu_array input = make_view(&input_buffer, type, &c->input);
  clgpu_array output = make_view(output_region, type, &c->output);

  clgpu_status status = call_scan(c, label, &input, &output);
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s: clgpu_scan gave %s (%d): %s", label, clgpu_status_name(status), (int)status,
             clgpu_last_error());
  }

  /* The regions: nothing but the output view may change. */
  size_t region_bytes = c->shared ? input_bytes : output_bytes;
  const unsigned char *region_initial = c->shared ? input_initial : output_initial;
  unsigned char *region_after = malloc(region_bytes ? region_bytes : 1);
  unsigned char *region_model = malloc(region_bytes ? region_bytes : 1);
  unsigned char *actual = test_allocate(n, c->type);
  assert_non_null(region_after);
  assert_non_null(region_model);
  test_guarded_read(context, output_region, region_after);
  test_guarded_check(context, &input_buffer, label);
  if (!c->shared) test_guarded_check(context, &output_buffer, label);
  gather(region_after, &c->output, size, actual);
  memcpy(region_model, region_initial, region_bytes);
  scatter(region_model, &c->output, size, actual);
  if (memcmp(region_model, region_after, region_bytes) != 0) {
    size_t first = 0;
    while (region_model[first] == region_after[first]) first++;
    fail_msg("%s: byte %zu of the %s region (element %zu), outside the output view, changed", label,
             first, c->shared ? "shared" : "output", first / size);
  }
  if (!c->shared) {
    unsigned char *input_after = malloc(input_bytes ? input_bytes : 1);
    assert_non_null(input_after);
    test_guarded_read(context, &input_buffer, input_after);
    if (memcmp(input_after, input_initial, input_bytes) != 0) {
      fail_msg("%s: the input region changed", label);
    }
    free(input_after);
  }

  check_result(c, &tc, label, values, actual);
  if (c->compare_fresh) compare_with_fresh(c, label, values, actual);

  if (keep) {
    *keep = actual;
  } else {
    free(actual);
  }
  free(region_model);
  free(region_after);
  free(output_initial);
  free(input_initial);
  free(values);
  if (!c->shared) test_guarded_release(&output_buffer);
  test_guarded_release(&input_buffer);
}

static void run_scan_case(const scan_case *c) { run_scan_case_keep(c, NULL); }

/* ---- the type x kind x distribution matrix ---- */

static test_type type_states[TEST_TYPE_COUNT] = {
    TEST_INT8,   TEST_UINT8, TEST_INT16,  TEST_UINT16, TEST_INT32,
    TEST_UINT32, TEST_INT64, TEST_UINT64, TEST_FLOAT,  TEST_DOUBLE,
};

typedef struct values_row {
  values_kind values;
  test_distribution distribution;
  size_t parameter;
} values_row;

/* Every distribution of data.h, sawtooth with TILED's tile and tile + 1, and
 * moderate values for float types; under Oclgrind three of them. Returns
 * the count (at most 32). */
static size_t values_rows(test_type type, values_row *rows) {
  size_t count = 0;
  if (oclgrind) {
    rows[count++] = (values_row){VALUES_DISTRIBUTION, TEST_FLOAT_SPECIALS, 0};
    rows[count++] = (values_row){VALUES_DISTRIBUTION, TEST_SMALL_INTEGERS, 16};
    rows[count++] = (values_row){VALUES_DISTRIBUTION, TEST_SAWTOOTH, tile + 1};
    return count;
  }
  for (size_t i = 0; i < test_distribution_case_count; i++) {
    rows[count++] = (values_row){VALUES_DISTRIBUTION, test_distribution_cases[i].distribution,
                                 test_distribution_cases[i].parameter};
  }
  rows[count++] = (values_row){VALUES_DISTRIBUTION, TEST_SAWTOOTH, tile};
  rows[count++] = (values_row){VALUES_DISTRIBUTION, TEST_SAWTOOTH, tile + 1};
  if (test_type_is_float(type)) rows[count++] = (values_row){VALUES_MODERATE, TEST_UNIFORM, 0};
  return count;
}

/* SUM, MIN and MAX, inclusive and exclusive, over every distribution, with
 * both algorithms, for one type. */
static void kinds_by_distribution(void **state) {
  test_type type = *(const test_type *)*state;
  if (!type_available(type)) return;
  values_row rows[32];
  size_t row_count = values_rows(type, rows);
  static const op_id ops[] = {OP_SUM, OP_MIN, OP_MAX};
  for (size_t a = 0; a < 2; a++) {
    /* One size inside a single chunk or group, one across them. */
    const size_t sizes[2] = {1000, matrix_size(both_algorithms[a])};
    for (size_t s = oclgrind ? 1 : 0; s < 2; s++) {
      for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        for (size_t r = 0; r < row_count; r++) {
          for (int exclusive = 0; exclusive < 2; exclusive++) {
            if (ops[o] != OP_SUM && rows[r].values == VALUES_MODERATE) continue;
            scan_case c = base_case(type, ops[o], exclusive, both_algorithms[a],
                                    rows[r].distribution, rows[r].parameter);
            c.values = rows[r].values;
            set_contiguous(&c, sizes[s]);
            run_scan_case(&c);
          }
        }
      }
    }
  }
}

/* ---- the size list ---- */

typedef struct config {
  test_type type;
  op_id op;
  int exclusive;
  values_kind values;
  test_distribution distribution;
  size_t parameter;
} config;

static const config size_configs[] = {
    {TEST_INT32, OP_SUM, 0, VALUES_DISTRIBUTION, TEST_UNIFORM, 0},
    {TEST_FLOAT, OP_SUM, 1, VALUES_DISTRIBUTION, TEST_SMALL_INTEGERS, 16},
    {TEST_FLOAT, OP_MIN, 0, VALUES_DISTRIBUTION, TEST_FLOAT_SPECIALS, 0},
    {TEST_UINT64, OP_AFFINE32, 0, VALUES_DISTRIBUTION, TEST_UNIFORM, 0},
    /* The rest not under Oclgrind. */
    {TEST_UINT8, OP_SUM, 1, VALUES_DISTRIBUTION, TEST_UNIFORM, 0},
    {TEST_FLOAT, OP_SUM, 0, VALUES_DISTRIBUTION, TEST_SMALL_INTEGERS, 16},
    {TEST_FLOAT, OP_SUM, 1, VALUES_MODERATE, TEST_UNIFORM, 0},
    {TEST_INT64, OP_MAX, 1, VALUES_DISTRIBUTION, TEST_MIN_MAX_MIXED, 0},
    {TEST_INT16, OP_MIN, 0, VALUES_DISTRIBUTION, TEST_UNIFORM, 0},
    {TEST_FLOAT, OP_MAX, 1, VALUES_DISTRIBUTION, TEST_FLOAT_SPECIALS, 0},
    {TEST_UINT32, OP_AFFINE16, 1, VALUES_DISTRIBUTION, TEST_UNIFORM, 0},
};

static void every_size(void **state) {
  (void)state;
  size_t sizes[40];
  size_t size_count = test_tile_sizes(tile, oclgrind, "scan random sizes", sizes);
  char text[400];
  int used = snprintf(text, sizeof text, "# sizes:");
  for (size_t s = 0; s < size_count && used < (int)sizeof text - 12; s++) {
    used += snprintf(text + used, sizeof text - (size_t)used, " %zu", sizes[s]);
  }
  print_message("%s\n", text);
  size_t config_count = oclgrind ? 4 : sizeof size_configs / sizeof size_configs[0];
  for (size_t k = 0; k < config_count; k++) {
    const config *f = &size_configs[k];
    for (size_t a = 0; a < 2; a++) {
      for (size_t s = 0; s < size_count; s++) {
        scan_case c = base_case(f->type, f->op, f->exclusive, both_algorithms[a], f->distribution,
                                f->parameter);
        c.values = f->values;
        set_contiguous(&c, sizes[s]);
        run_scan_case(&c);
      }
    }
  }
}

/* ---- CUSTOM ---- */

/* The affine compositions over every distribution: any element taken out of
 * order, or a carry used as the right operand, changes the bits. */
static void custom_non_commutative(void **state) {
  (void)state;
  static const struct {
    test_type type;
    op_id op;
  } customs[] = {{TEST_UINT64, OP_AFFINE32}, {TEST_UINT32, OP_AFFINE16}};
  values_row rows[32];
  for (size_t k = 0; k < sizeof customs / sizeof customs[0]; k++) {
    size_t row_count = values_rows(customs[k].type, rows);
    for (size_t a = 0; a < 2; a++) {
      for (size_t r = 0; r < row_count; r++) {
        for (int exclusive = 0; exclusive < 2; exclusive++) {
          scan_case c = base_case(customs[k].type, customs[k].op, exclusive, both_algorithms[a],
                                  rows[r].distribution, rows[r].parameter);
          set_contiguous(&c, matrix_size(both_algorithms[a]));
          run_scan_case(&c);
        }
      }
    }
  }
}

/* A product scan on doubles over the size list, with the bound of the file
 * header. */
static void custom_product_of_doubles(void **state) {
  (void)state;
  if (!type_available(TEST_DOUBLE)) return;
  size_t sizes[40];
  size_t size_count = test_tile_sizes(tile, oclgrind, "scan random sizes", sizes);
  for (size_t a = 0; a < 2; a++) {
    for (size_t s = 0; s < size_count; s++) {
      for (int exclusive = 0; exclusive < 2; exclusive++) {
        scan_case c =
            base_case(TEST_DOUBLE, OP_PRODUCT, exclusive, both_algorithms[a], TEST_UNIFORM, 0);
        c.values = VALUES_PRODUCT;
        set_contiguous(&c, sizes[s]);
        run_scan_case(&c);
      }
    }
  }
}

/* ---- along axes, and views of every layout ---- */

typedef struct shape_row {
  unsigned rank;
  size_t shape[CLGPU_MAX_RANK];
} shape_row;

static const shape_row axis_shapes[] = {
    {0, {0}},
    {2, {0, 5}},
    {2, {1, 1}},
    {2, {3, 31}},
    {2, {40, 25}},
    {2, {1, 4099}},
    {2, {4099, 1}},
    {2, {2, 2049}},
    {3, {2, 3, 4}},
    {3, {3, 1, 31}},
    {3, {5, 0, 2}},
    {3, {7, 11, 13}},
    /* Lines longer than CHUNKED's split and than four tiles: not under
     * Oclgrind. */
    {2, {3, 16411}},
    {3, {2, 9000, 2}},
};

static const struct {
  layout input;
  layout output;
} axis_layouts[] = {
    {ROW_MAJOR, ROW_MAJOR},    {PITCHED, REVERSED_PITCHED}, {COLUMN_MAJOR, ROW_MAJOR},
    {ROW_MAJOR, COLUMN_MAJOR}, {REVERSED_LAST, PITCHED},
};

static const config axis_configs[] = {
    {TEST_UINT64, OP_AFFINE32, 0, VALUES_DISTRIBUTION, TEST_UNIFORM, 0},
    {TEST_FLOAT, OP_SUM, 1, VALUES_DISTRIBUTION, TEST_SMALL_INTEGERS, 16},
    {TEST_INT32, OP_SUM, 0, VALUES_DISTRIBUTION, TEST_UNIFORM, 0},
    {TEST_FLOAT, OP_MAX, 1, VALUES_DISTRIBUTION, TEST_FLOAT_SPECIALS, 0},
    {TEST_FLOAT, OP_SUM, 0, VALUES_MODERATE, TEST_UNIFORM, 0},
};

static void along_axes(void **state) {
  (void)state;
  const size_t large_shapes = 2;
  size_t shape_count = sizeof axis_shapes / sizeof axis_shapes[0];
  if (oclgrind) shape_count -= large_shapes;
  for (size_t s = 0; s < shape_count; s++) {
    const shape_row *row = &axis_shapes[s];
    /* The large shapes with two layouts and two configurations: the lines
     * that cross chunk and tile boundaries are what they add. */
    int large = s >= sizeof axis_shapes / sizeof axis_shapes[0] - large_shapes;
    size_t layout_count = large || oclgrind ? 2 : sizeof axis_layouts / sizeof axis_layouts[0];
    size_t config_count = large || oclgrind ? 2 : sizeof axis_configs / sizeof axis_configs[0];
    view_spec probe;
    memset(&probe, 0, sizeof probe);
    probe.rank = row->rank;
    memcpy(probe.shape, row->shape, sizeof probe.shape);
    for (int axis = -1; axis < (int)row->rank; axis++) {
      if (too_many_lines_for_oclgrind(&probe, axis < 0 ? CLGPU_ALL_AXES : axis)) continue;
      for (size_t l = 0; l < layout_count; l++) {
        ptrdiff_t input_strides[CLGPU_MAX_RANK], output_strides[CLGPU_MAX_RANK];
        layout_strides(axis_layouts[l].input, row->rank, row->shape, input_strides);
        layout_strides(axis_layouts[l].output, row->rank, row->shape, output_strides);
        char what[96];
        snprintf(what, sizeof what, "%s into %s", layout_names[axis_layouts[l].input],
                 layout_names[axis_layouts[l].output]);
        for (size_t k = 0; k < config_count; k++) {
          const config *f = &axis_configs[k];
          for (size_t a = 0; a < 2; a++) {
            scan_case c = base_case(f->type, f->op, f->exclusive, both_algorithms[a],
                                    f->distribution, f->parameter);
            c.values = f->values;
            c.what = what;
            c.axis = axis < 0 ? CLGPU_ALL_AXES : axis;
            set_separate(&c, row->rank, row->shape, input_strides, output_strides);
            run_scan_case(&c);
          }
        }
      }
    }
  }
}

/* 1-D views with strides of every sign, input and output. */
static void strided_and_reversed_views(void **state) {
  (void)state;
  static const struct {
    const char *what;
    ptrdiff_t input, output;
  } strides[] = {
      {"strided input", 3, 1},
      {"reversed input", -1, 1},
      {"strided output", 1, 2},
      {"reversed output", 1, -1},
      {"both strided and reversed", -2, -3},
      {"reversed onto reversed", -1, -1},
  };
  static const size_t sizes[] = {0, 1, 7, 1000, 4099, 16411, 65537};
  size_t size_count = sizeof sizes / sizeof sizes[0] - (oclgrind ? 2 : 0);
  size_t config_count = sizeof axis_configs / sizeof axis_configs[0];
  for (size_t v = 0; v < sizeof strides / sizeof strides[0]; v++) {
    for (size_t s = 0; s < size_count; s++) {
      for (size_t k = 0; k < config_count; k++) {
        const config *f = &axis_configs[k];
        for (size_t a = 0; a < 2; a++) {
          scan_case c = base_case(f->type, f->op, f->exclusive, both_algorithms[a], f->distribution,
                                  f->parameter);
          c.values = f->values;
          c.what = strides[v].what;
          set_separate(&c, 1, &sizes[s], &strides[v].input, &strides[v].output);
          run_scan_case(&c);
        }
      }
    }
  }
}

/* ---- in place and overlapping ---- */

static const config shared_configs[] = {
    {TEST_INT32, OP_SUM, 0, VALUES_DISTRIBUTION, TEST_UNIFORM, 0},
    {TEST_FLOAT, OP_SUM, 1, VALUES_DISTRIBUTION, TEST_SMALL_INTEGERS, 16},
    {TEST_FLOAT, OP_SUM, 0, VALUES_MODERATE, TEST_UNIFORM, 0},
    {TEST_INT8, OP_MAX, 0, VALUES_DISTRIBUTION, TEST_UNIFORM, 0},
    {TEST_FLOAT, OP_MIN, 1, VALUES_DISTRIBUTION, TEST_FLOAT_SPECIALS, 0},
    {TEST_UINT64, OP_AFFINE32, 1, VALUES_DISTRIBUTION, TEST_UNIFORM, 0},
};

static const size_t shared_sizes[] = {1, 2, 7, 1000, 4099, 16411, 65537};

/* Under Oclgrind up to 1000 (4099 took two minutes per test there). */
static size_t shared_size_count(void) {
  return sizeof shared_sizes / sizeof shared_sizes[0] - (oclgrind ? 3 : 0);
}

/* Run every shared config on one layout, with both algorithms; the result
 * must match the model and the same call through fresh buffers. */
static void run_shared(const char *what, size_t elements, const view_spec *input,
                       const view_spec *output, int axis) {
  if (too_many_lines_for_oclgrind(input, axis)) return;
  for (size_t k = 0; k < sizeof shared_configs / sizeof shared_configs[0]; k++) {
    const config *f = &shared_configs[k];
    for (size_t a = 0; a < 2; a++) {
      scan_case c = base_case(f->type, f->op, f->exclusive, both_algorithms[a], f->distribution,
                              f->parameter);
      c.values = f->values;
      c.what = what;
      c.axis = axis;
      c.compare_fresh = 1;
      set_shared(&c, elements, input, output);
      run_scan_case(&c);
    }
  }
}

/* The output is exactly the input view (clgpu_array_same). */
static void exactly_in_place(void **state) {
  (void)state;
  for (size_t s = 0; s < shared_size_count(); s++) {
    size_t n = shared_sizes[s];
    view_spec a = line_spec(1, n, 1);
    run_shared("in place, contiguous", n + 2, &a, &a, CLGPU_ALL_AXES);
    a = line_spec(n, n, -1);
    run_shared("in place, reversed", n + 2, &a, &a, CLGPU_ALL_AXES);
    a = line_spec(1, n, 2);
    run_shared("in place, stride 2", 2 * n + 1, &a, &a, CLGPU_ALL_AXES);
    /* A pitched matrix, along each axis and over all. */
    size_t columns = n < 31 ? n : 31, rows = n / columns;
    a = grid_spec(2, rows, columns, (ptrdiff_t)columns + 3, 1);
    size_t elements = 2 + rows * (columns + 3);
    for (int axis = -1; axis < 2; axis++) {
      run_shared("in place, pitched matrix", elements, &a, &a, axis < 0 ? CLGPU_ALL_AXES : axis);
    }
    /* Column-major, along the rows. */
    a = grid_spec(0, rows, columns, 1, (ptrdiff_t)rows);
    run_shared("in place, column-major matrix", rows * columns, &a, &a, 1);
  }
}

/* Outputs that overlap the input without being it: the result is that of a
 * scan into a fresh buffer. */
static void overlapping_output(void **state) {
  (void)state;
  for (size_t s = 0; s < shared_size_count(); s++) {
    size_t n = shared_sizes[s] + 1;
    view_spec a = line_spec(1, n - 1, 1), b = line_spec(0, n - 1, 1);
    run_shared("out = x[1:], in = x[:-1]", n, &b, &a, CLGPU_ALL_AXES);
    run_shared("out = x[:-1], in = x[1:]", n, &a, &b, CLGPU_ALL_AXES);
    a = line_spec(0, n, 1);
    b = line_spec(n - 1, n, -1);
    run_shared("out = x, in = x[::-1]", n, &b, &a, CLGPU_ALL_AXES);
    run_shared("out = x[::-1], in = x", n, &a, &b, CLGPU_ALL_AXES);
    a = line_spec(0, n, 2);
    b = line_spec(0, n, 1);
    run_shared("out = x[::2], in = x[:n]", 2 * n, &b, &a, CLGPU_ALL_AXES);
    /* Rows shifted down by one and mirrored, along each axis. */
    size_t columns = n < 7 ? n : 7, rows = (n + columns - 1) / columns;
    a = grid_spec(columns, rows, columns, (ptrdiff_t)columns, 1);
    b = grid_spec(columns - 1, rows, columns, (ptrdiff_t)columns, -1);
    for (int axis = -1; axis < 2; axis++) {
      run_shared("out = x[1:, :], in = x[:-1, ::-1]", (rows + 1) * columns, &b, &a,
                 axis < 0 ? CLGPU_ALL_AXES : axis);
    }
  }
  /* A square matrix scanned into its own transpose. */
  static const size_t squares[] = {1, 2, 3, 7, 31, 64};
  for (size_t s = 0; s < sizeof squares / sizeof squares[0]; s++) {
    size_t k = squares[s];
    view_spec a = grid_spec(0, k, k, (ptrdiff_t)k, 1), b = grid_spec(0, k, k, 1, (ptrdiff_t)k);
    for (int axis = -1; axis < 2; axis++) {
      run_shared("out = x.T, in = x", k * k, &a, &b, axis < 0 ? CLGPU_ALL_AXES : axis);
    }
  }
}

/* ---- determinism and AUTO ---- */

static void float_sums_are_deterministic(void **state) {
  (void)state;
  static const size_t sizes[] = {1000, 4099, 16411, 65537};
  size_t size_count = sizeof sizes / sizeof sizes[0] - (oclgrind ? 2 : 0);
  int has_double = clgpu_context_device_info(shared_context)->has_fp64;
  for (int t = 0; t < (has_double ? 2 : 1); t++) {
    test_type type = t ? TEST_DOUBLE : TEST_FLOAT;
    for (size_t a = 0; a < 2; a++) {
      for (size_t s = 0; s < size_count; s++) {
        for (int exclusive = 0; exclusive < 2; exclusive++) {
          scan_case c = base_case(type, OP_SUM, exclusive, both_algorithms[a], TEST_UNIFORM, 0);
          c.values = VALUES_MODERATE;
          set_contiguous(&c, sizes[s]);
          unsigned char *first = NULL, *second = NULL;
          run_scan_case_keep(&c, &first);
          run_scan_case_keep(&c, &second);
          if (memcmp(first, second, sizes[s] * test_type_size(type)) != 0) {
            char label[512];
            describe(&c, label, sizeof label);
            fail_msg("%s: two runs gave different bits", label);
          }
          free(second);
          free(first);
        }
      }
    }
  }
}

/* AUTO (NULL options, and a zeroed struct) gives correct results, and the
 * same bits as the algorithm it resolves to (CPU: CHUNKED, else TILED). */
static void auto_algorithm(void **state) {
  (void)state;
  const clgpu_device_info *info = clgpu_context_device_info(shared_context);
  clgpu_shape resolved =
      (info->type & CL_DEVICE_TYPE_CPU) ? CLGPU_SHAPE_CHUNKED : CLGPU_SHAPE_TILED;
  static const size_t sizes[] = {0, 1000, 16411, 65537};
  size_t size_count = sizeof sizes / sizeof sizes[0] - (oclgrind ? 2 : 0);
  for (size_t s = 0; s < size_count; s++) {
    for (int null_options = 0; null_options < 2; null_options++) {
      scan_case c = base_case(TEST_INT32, OP_SUM, 0, CLGPU_SHAPE_AUTO, TEST_UNIFORM, 0);
      c.null_options = null_options;
      set_contiguous(&c, sizes[s]);
      run_scan_case(&c);
      c = base_case(TEST_FLOAT, OP_SUM, 1, CLGPU_SHAPE_AUTO, TEST_UNIFORM, 0);
      c.values = VALUES_MODERATE;
      /* The same data for both calls. */
      char seed_label[64];
      snprintf(seed_label, sizeof seed_label, "scan auto vs resolved, n=%zu", sizes[s]);
      c.seed_label = seed_label;
      c.null_options = null_options;
      set_contiguous(&c, sizes[s]);
      unsigned char *automatic = NULL, *explicit_result = NULL;
      run_scan_case_keep(&c, &automatic);
      c.null_options = 0;
      c.algorithm = resolved;
      run_scan_case_keep(&c, &explicit_result);
      if (memcmp(automatic, explicit_result, sizes[s] * sizeof(float)) != 0) {
        fail_msg("float sum scan n=%zu: AUTO%s and %s gave different bits", sizes[s],
                 null_options ? " (NULL options)" : "", algorithm_name(resolved));
      }
      free(explicit_result);
      free(automatic);
    }
  }
}

/* ---- events ---- */

/* Each way a scan can run waits for its wait list: its event does not
 * complete before a user event does, and the result is right afterwards. */
static void waits_for_its_wait_list(void **state) {
  (void)state;
  const size_t n = 1000;
  for (size_t a = 0; a < 2; a++) {
    scan_case c = base_case(TEST_INT32, OP_SUM, 0, both_algorithms[a], TEST_UNIFORM, 0);
    c.gated = 1;
    set_contiguous(&c, n);
    run_scan_case(&c);
    c.what = "empty";
    set_contiguous(&c, 0);
    run_scan_case(&c);
    const ptrdiff_t three = 3, one = 1;
    c.what = "strided input (packed)";
    set_separate(&c, 1, &n, &three, &one);
    run_scan_case(&c);
    c.what = "reversed output (written through packed_output)";
    const ptrdiff_t minus_one = -1;
    set_separate(&c, 1, &n, &one, &minus_one);
    run_scan_case(&c);
    view_spec x = line_spec(1, n, 1), y = line_spec(0, n, 1);
    c.what = "in place";
    set_shared(&c, n + 1, &x, &x);
    run_scan_case(&c);
    c.what = "overlapping (staged)";
    set_shared(&c, n + 1, &y, &x);
    run_scan_case(&c);
    const size_t shape[2] = {20, 50};
    ptrdiff_t strides[2];
    layout_strides(ROW_MAJOR, 2, shape, strides);
    c.what = "along axis 0";
    c.axis = 0;
    set_separate(&c, 2, shape, strides, strides);
    run_scan_case(&c);
  }
}

/* Without an event out the scan still runs; with one, the event completes
 * (call_scan checks it for every other case). */
/* Lines longer than 65535 elements along an axis, in every shape: a device
 * that silently leaves a work-item's loops after so many iterations (Mesa's
 * llvmpipe, docs/quirks.md) once lost everything past element 65535 of a
 * CHUNKED line. AUTO and TILED must be right everywhere; CHUNKED is right,
 * or refused with CLGPU_UNSUPPORTED_FEATURE naming the cap and changing
 * nothing. MIN of a descending sequence: every output is its own input. */
static void long_lines_along_an_axis(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  const size_t rows = 2, length = 70001, n = rows * length;
  int32_t *values = test_allocate(n, TEST_INT32);
  for (size_t i = 0; i < n; i++) values[i] = (int32_t)(1000000 - (int64_t)i);
  const clgpu_shape shapes[] = {CLGPU_SHAPE_AUTO, CLGPU_SHAPE_TILED, CLGPU_SHAPE_CHUNKED};
  const char *names[] = {"AUTO", "TILED", "CHUNKED"};
  for (size_t s = 0; s < 3; s++) {
    test_guarded input = test_guarded_create(context, n * sizeof(int32_t), values);
    test_guarded output = test_guarded_create(context, n * sizeof(int32_t), NULL);
    int32_t *before = test_allocate(n, TEST_INT32), *actual = test_allocate(n, TEST_INT32);
    test_guarded_read(context, &output, before);
    size_t shape[2] = {rows, length};
    clgpu_array input_view, output_view;
    assert_status(clgpu_array_nd(input.buffer, input.offset, CLGPU_TYPE_INT32, 2, shape,
                                 CLGPU_ORDER_ROW_MAJOR, &input_view),
                  CLGPU_SUCCESS);
    assert_status(clgpu_array_nd(output.buffer, output.offset, CLGPU_TYPE_INT32, 2, shape,
                                 CLGPU_ORDER_ROW_MAJOR, &output_view),
                  CLGPU_SUCCESS);
    clgpu_scan_op op = scan_op(OP_MIN, 0);
    clgpu_call_options options = {.shape = shapes[s], .workspace = NULL};
    clgpu_status status =
        clgpu_scan(context, &op, 1, &output_view, &input_view, &options, 0, NULL, NULL);
    assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
    test_guarded_read(context, &output, actual);
    char what[96];
    snprintf(what, sizeof what, "scan MIN along lines of %zu, %s", length, names[s]);
    if (status == CLGPU_UNSUPPORTED_FEATURE && shapes[s] == CLGPU_SHAPE_CHUNKED) {
      printf("# %s refused: %s\n", what, clgpu_last_error());
      assert_non_null(strstr(clgpu_last_error(), "loop_iteration_cap"));
      assert_memory_equal(actual, before, n * sizeof(int32_t));
    } else {
      if (status != CLGPU_SUCCESS) {
        fail_msg("%s: %s: %s", what, clgpu_status_name(status), clgpu_last_error());
      }
      test_case tc = test_make_case(what, n, TEST_INT32, TEST_UNIFORM, 0);
      assert_same(actual, values, n, TEST_INT32, 0, &tc);
    }
    test_guarded_check(context, &output, what);
    free(actual);
    free(before);
    test_guarded_release(&output);
    test_guarded_release(&input);
  }
  free(values);
}

static void without_an_event(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  const size_t n = 4099;
  uint64_t seed = test_case_seed("scan without an event");
  int32_t *values = test_allocate(n, TEST_INT32);
  test_generate(values, n, TEST_INT32, TEST_UNIFORM, seed, 0);
  test_guarded input = test_guarded_create(context, n * sizeof(int32_t), values);
  test_guarded output = test_guarded_create(context, n * sizeof(int32_t), NULL);
  clgpu_array input_view, output_view;
  assert_status(clgpu_array_1d(input.buffer, input.offset, CLGPU_TYPE_INT32, n, &input_view),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(output.buffer, output.offset, CLGPU_TYPE_INT32, n, &output_view),
                CLGPU_SUCCESS);
  clgpu_scan_op op = scan_op(OP_SUM, 0);
  assert_status(
      clgpu_scan(context, &op, CLGPU_ALL_AXES, &output_view, &input_view, NULL, 0, NULL, NULL),
      CLGPU_SUCCESS);
  assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
  int32_t *actual = test_allocate(n, TEST_INT32), *expected = test_allocate(n, TEST_INT32);
  test_guarded_read(context, &output, actual);
  test_reference_scan(values, expected, n, TEST_INT32, 1);
  test_case tc =
      test_make_case("scan sum inclusive without an event", n, TEST_INT32, TEST_UNIFORM, 0);
  assert_same(actual, expected, n, TEST_INT32, 0, &tc);
  test_guarded_check(context, &output, "scan without an event");
  free(expected);
  free(actual);
  free(values);
  test_guarded_release(&output);
  test_guarded_release(&input);
}

/* ---- workspaces ---- */

/* A call given a workspace of exactly the queried size, made by the library
 * or laid over a guarded region of the test's own buffer, gives the same
 * result and stays inside the workspace. */
/* An empty scan enqueues nothing, but its workspace is checked as any
 * call's: one of another operation is refused, one of its own taken. */
static void an_empty_scan_checks_its_workspace(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  test_guarded region = test_guarded_create(context, 64, NULL);
  clgpu_array input, output;
  assert_status(clgpu_array_1d(region.buffer, region.offset, CLGPU_TYPE_FLOAT, 0, &input),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(region.buffer, region.offset + 32, CLGPU_TYPE_FLOAT, 0, &output),
                CLGPU_SUCCESS);
  clgpu_scan_op op = scan_op(OP_SUM, 0);
  clgpu_reduce_op sum = {.kind = CLGPU_REDUCE_SUM};
  clgpu_workspace_size report;
  assert_status(
      clgpu_reduce_workspace_size_upto(context, &sum, CLGPU_TYPE_FLOAT, 1024, NULL, &report),
      CLGPU_SUCCESS);
  clgpu_workspace *reduce_workspace = NULL;
  assert_status(clgpu_workspace_create(context, &report, &reduce_workspace), CLGPU_SUCCESS);
  clgpu_call_options options = {.shape = CLGPU_SHAPE_AUTO, .workspace = reduce_workspace};
  assert_status(clgpu_scan(context, &op, CLGPU_ALL_AXES, &output, &input, &options, 0, NULL, NULL),
                CLGPU_WORKSPACE_WRONG_OPERATION);
  assert_non_null(strstr(clgpu_last_error(), "clgpu_scan"));
  assert_status(
      clgpu_scan_workspace_size(context, &op, CLGPU_ALL_AXES, &output, &input, NULL, &report),
      CLGPU_SUCCESS);
  clgpu_workspace *workspace = NULL;
  assert_status(clgpu_workspace_create(context, &report, &workspace), CLGPU_SUCCESS);
  options.workspace = workspace;
  cl_event event = NULL;
  assert_status(
      clgpu_scan(context, &op, CLGPU_ALL_AXES, &output, &input, &options, 0, NULL, &event),
      CLGPU_SUCCESS);
  assert_non_null(event);
  assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
  clReleaseEvent(event);
  /* Nothing was written, in the region or around it. */
  unsigned char bytes[64];
  test_guarded_read(context, &region, bytes);
  for (size_t i = 0; i < sizeof bytes; i++) assert_int_equal(bytes[i], TEST_GUARD_REGION_FILL);
  test_guarded_check(context, &region, "an empty scan's region");
  clgpu_workspace_destroy(workspace);
  clgpu_workspace_destroy(reduce_workspace);
  test_guarded_release(&region);
}

static void with_a_workspace(void **state) {
  (void)state;
  clgpu_context *context = shared_context;
  static const struct {
    const char *what;
    ptrdiff_t input, output;
    size_t n;
  } rows[] = {
      {"contiguous", 1, 1, 65537},
      {"strided input, reversed output", 3, -1, 16411},
      {"strided input, reversed output", 3, -1, 1000},
  };
  size_t row_count = sizeof rows / sizeof rows[0];
  for (size_t r = oclgrind ? 2 : 0; r < row_count; r++) {
    for (size_t a = 0; a < 2; a++) {
      for (int wrapped = 0; wrapped < 2; wrapped++) {
        scan_case c = base_case(TEST_FLOAT, OP_SUM, 0, both_algorithms[a], TEST_SMALL_INTEGERS, 16);
        c.what = rows[r].what;
        set_separate(&c, 1, &rows[r].n, &rows[r].input, &rows[r].output);
        /* Views for the size query only: the runner makes its own buffers,
         * and the query depends on the shapes and strides, not the
         * buffers. */
        size_t size = sizeof(float);
        test_guarded probe_input = test_guarded_create(context, c.input_elements * size, NULL);
        test_guarded probe_output = test_guarded_create(context, c.output_elements * size, NULL);
        clgpu_array input = make_view(&probe_input, CLGPU_TYPE_FLOAT, &c.input);
        clgpu_array output = make_view(&probe_output, CLGPU_TYPE_FLOAT, &c.output);
        clgpu_scan_op op = scan_op(OP_SUM, 0);
        clgpu_call_options options = {.shape = both_algorithms[a], .workspace = NULL};
        clgpu_workspace_size report;
        assert_status(clgpu_scan_workspace_size(context, &op, CLGPU_ALL_AXES, &output, &input,
                                                &options, &report),
                      CLGPU_SUCCESS);
        test_guarded_release(&probe_output);
        test_guarded_release(&probe_input);
        clgpu_workspace *workspace = NULL;
        test_guarded region = {NULL, 0, 0};
        if (wrapped) {
          region = test_guarded_create(context, (size_t)report.total_bytes, NULL);
          assert_status(clgpu_workspace_wrap(context, &report, region.buffer, region.offset,
                                             (size_t)report.total_bytes, &workspace),
                        CLGPU_SUCCESS);
        } else {
          assert_status(clgpu_workspace_create(context, &report, &workspace), CLGPU_SUCCESS);
        }
        c.workspace = workspace;
        run_scan_case(&c);
        if (wrapped) {
          test_guarded_check(context, &region, "scan workspace laid over a guarded region");
          test_guarded_release(&region);
        }
        clgpu_workspace_destroy(workspace);
      }
    }
  }
}

/* ---- misuse ---- */

/* The fixture's call is valid: an inclusive SUM over all axes of a 4 x 5
 * int32 input into a 4 x 5 int32 output, each in a guarded buffer of its
 * own. Each row changes one thing. */
typedef struct misuse_call {
  clgpu_context *context;
  const clgpu_scan_op *op;
  const clgpu_array *input;
  int axis;
  const clgpu_array *output;
  const clgpu_call_options *options;
  cl_uint num_events;
  const cl_event *wait_list;
  clgpu_scan_op op_value;
  clgpu_array input_view;
  clgpu_array output_view;
  clgpu_call_options options_value;
} misuse_call;

/* ---- non-temporal stores ---- */

/* The contexts of streamed_output, put back by its teardown also when a
 * failure left the streamed one shared. */
static clgpu_context *plain_context, *streamed_context;

static int streaming_teardown(void **state) {
  (void)state;
  unsetenv("CLGPU_TUNING");
  if (plain_context) shared_context = plain_context;
  if (streamed_context) clgpu_context_destroy(streamed_context);
  plain_context = streamed_context = NULL;
  return 0;
}

/* One case in two contexts whose tunings differ only in how the kernels
 * reach memory: both right, and the same bits (a float sum's rounding must
 * not depend on how its elements are loaded or stored). `what` names the
 * two forms in the failure message. Leaves shared_context at the second. */
static void run_in_both(const scan_case *c, clgpu_context *first_context,
                        clgpu_context *second_context, const char *what) {
  unsigned char *first_output = NULL, *second_output = NULL;
  shared_context = first_context;
  run_scan_case_keep(c, &first_output);
  shared_context = second_context;
  run_scan_case_keep(c, &second_output);
  size_t bytes = spec_count(&c->output) * test_type_size(c->type);
  if (memcmp(first_output, second_output, bytes) != 0) {
    char label[512];
    describe(c, label, sizeof label);
    size_t first = 0;
    while (first_output[first] == second_output[first]) first++;
    fail_msg("%s: %s differ from element %zu", label, what, first / test_type_size(c->type));
  }
  free(first_output);
  free(second_output);
}

/* A case in the streamed context and in the shared one, which stores
 * plainly. */
static void run_streamed_and_plain(const scan_case *c) {
  run_in_both(c, streamed_context, plain_context, "streamed and plain stores");
}

/* CHUNKED sums whose output goes out in non-temporal stores (the tuning's
 * scan_stream_floor: 32 MiB on CPU devices, here every size), 16 elements
 * a store where the output is aligned for them: every type a vectorised
 * sum takes, inclusive and exclusive, sizes around the 16-element steps
 * and across chunks, outputs at offsets that keep the 16-vectors aligned
 * (0, 16 and 32 elements from the region's aligned start) and one that
 * does not (3), and in place. */
static void streamed_output(void **state) {
  (void)state;
  static const test_type types[] = {TEST_UINT8, TEST_INT16, TEST_INT32, TEST_UINT32,
                                    TEST_INT64, TEST_FLOAT, TEST_DOUBLE};
  static const size_t sizes[] = {1, 15, 16, 33, 1000, 16411, 100003};
  static const size_t offsets[] = {0, 3, 16, 32};
  size_t size_count = sizeof sizes / sizeof sizes[0] - (oclgrind ? 2 : 0);
  plain_context = shared_context;
  clgpu_context_options options;
  memset(&options, 0, sizeof options);
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  assert_int_equal(setenv("CLGPU_TUNING", "scan_stream_floor=1", 1), 0);
  streamed_context = test_context(&options);
  unsetenv("CLGPU_TUNING");
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    if (!type_available(types[t])) continue;
    for (size_t s = 0; s < size_count; s++) {
      size_t n = sizes[s];
      for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
        for (int exclusive = 0; exclusive < 2; exclusive++) {
          if (oclgrind && (t + s + o + (size_t)exclusive) % 3) continue;
          scan_case c =
              base_case(types[t], OP_SUM, exclusive, CLGPU_SHAPE_CHUNKED, TEST_UNIFORM, 0);
          if (test_type_is_float(types[t])) c.values = VALUES_MODERATE;
          c.what = "streamed";
          set_contiguous(&c, n);
          c.output.offset = offsets[o];
          c.output_elements = offsets[o] + n + 3;
          run_streamed_and_plain(&c);
          if (offsets[o] % 16 == 0) {
            view_spec line = line_spec(offsets[o], n, 1);
            c.what = "streamed in place";
            set_shared(&c, offsets[o] + n + 2, &line, &line);
            run_streamed_and_plain(&c);
          }
        }
      }
    }
  }
  clgpu_context_destroy(streamed_context);
  streamed_context = NULL;
  shared_context = plain_context;
  plain_context = NULL;
}

/* The contexts of aligned_vector_forms: one under each form, and the
 * shared context to put back. */
static clgpu_context *vector_form_contexts[2], *kept_shared_context;

static int vector_forms_teardown(void **state) {
  (void)state;
  if (kept_shared_context) shared_context = kept_shared_context;
  for (int f = 0; f < 2; f++) {
    if (vector_form_contexts[f]) clgpu_context_destroy(vector_form_contexts[f]);
    vector_form_contexts[f] = NULL;
  }
  kept_shared_context = NULL;
  return 0;
}

/* CHUNKED sums under both forms of the tuning's aligned_vector_access
 * (sixteen elements through a pointer to the vector where aligned, else
 * vload16 and vstore16; or vload16 and vstore16 always), whichever the
 * device's row picks: both right against the host, and the same bits.
 * Inputs and outputs at element offsets that keep the vectors aligned (0
 * and 16 from the region's aligned start) and one that does not (3),
 * inclusive and exclusive, sizes across a chunk's 16-element steps and
 * across chunks. */
static void aligned_vector_forms(void **state) {
  (void)state;
  static const test_type types[] = {TEST_UINT8, TEST_INT32, TEST_INT64, TEST_FLOAT, TEST_DOUBLE};
  static const size_t sizes[] = {33, 1000, 16411};
  static const size_t offsets[] = {0, 3, 16};
  size_t size_count = sizeof sizes / sizeof sizes[0] - (oclgrind ? 1 : 0);
  kept_shared_context = shared_context;
  vector_form_contexts[0] = test_context_tuned("aligned_vector_access=1");
  vector_form_contexts[1] = test_context_tuned("aligned_vector_access=0");
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    if (!type_available(types[t])) continue;
    for (size_t s = 0; s < size_count; s++) {
      for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
          for (int exclusive = 0; exclusive < 2; exclusive++) {
            if (oclgrind && (t + s + i + o + (size_t)exclusive) % 3) continue;
            scan_case c =
                base_case(types[t], OP_SUM, exclusive, CLGPU_SHAPE_CHUNKED, TEST_UNIFORM, 0);
            if (test_type_is_float(types[t])) c.values = VALUES_MODERATE;
            c.what = "vector forms";
            set_contiguous(&c, sizes[s]);
            c.input.offset = offsets[i];
            c.input_elements = offsets[i] + sizes[s] + 2;
            c.output.offset = offsets[o];
            c.output_elements = offsets[o] + sizes[s] + 3;
            run_in_both(&c, vector_form_contexts[0], vector_form_contexts[1],
                        "aligned and plain vector accesses");
          }
        }
      }
    }
  }
  vector_forms_teardown(NULL);
}

typedef struct misuse_fixture {
  clgpu_context *context;
  clgpu_context *other_context;
  test_guarded input;
  test_guarded output;
  cl_mem foreign; /* a buffer of other_context */
  cl_event user_event;
  clgpu_workspace *reduce_workspace;  /* made for clgpu_reduce */
  clgpu_workspace *tiled_workspace;   /* a scan workspace resolved to TILED */
  clgpu_workspace *chunked_workspace; /* one resolved to CHUNKED */
  clgpu_workspace *foreign_workspace; /* a scan workspace of other_context */
} misuse_fixture;

typedef struct misuse_row {
  const char *name;
  clgpu_status expected;
  void (*edit)(misuse_fixture *fixture, misuse_call *call);
  int (*applies)(const misuse_fixture *fixture); /* NULL: always */
} misuse_row;

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
  call->op_value.kind = (clgpu_scan_kind)0;
}
static void edit_kind_unknown(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->op_value.kind = (clgpu_scan_kind)99;
}
static void edit_custom_without_combine(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->op_value.kind = CLGPU_SCAN_CUSTOM;
  call->op_value.combine = NULL;
  call->op_value.neutral = "0";
}
static void edit_custom_without_neutral(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->op_value.kind = CLGPU_SCAN_CUSTOM;
  call->op_value.combine = "(a) + (b)";
  call->op_value.neutral = NULL;
}
static void edit_custom_bad_combine(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->op_value.kind = CLGPU_SCAN_CUSTOM;
  call->op_value.combine = "(a) +* (b)";
  call->op_value.neutral = "0";
}
static void edit_custom_bad_neutral(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->op_value.kind = CLGPU_SCAN_CUSTOM;
  call->op_value.combine = "(a) + (b)";
  call->op_value.neutral = "no_such_identifier";
}
static void edit_output_float(misuse_fixture *f, misuse_call *call) {
  (void)f;
  assert_status(clgpu_array_reinterpret(&call->output_view, CLGPU_TYPE_FLOAT, &call->output_view),
                CLGPU_SUCCESS);
}
static void edit_input_uint32(misuse_fixture *f, misuse_call *call) {
  (void)f;
  assert_status(clgpu_array_reinterpret(&call->input_view, CLGPU_TYPE_UINT32, &call->input_view),
                CLGPU_SUCCESS);
}
static void edit_output_transposed_shape(misuse_fixture *f, misuse_call *call) {
  const size_t shape[2] = {5, 4};
  assert_status(clgpu_array_nd(f->output.buffer, f->output.offset, CLGPU_TYPE_INT32, 2, shape,
                               CLGPU_ORDER_ROW_MAJOR, &call->output_view),
                CLGPU_SUCCESS);
}
static void edit_output_1d(misuse_fixture *f, misuse_call *call) {
  assert_status(
      clgpu_array_1d(f->output.buffer, f->output.offset, CLGPU_TYPE_INT32, 20, &call->output_view),
      CLGPU_SUCCESS);
}
static void edit_axis_2(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->axis = 2;
}
static void edit_axis_minus_2(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->axis = -2;
}
static void edit_broadcast_output(misuse_fixture *f, misuse_call *call) {
  const size_t row_shape[2] = {1, 5}, shape[2] = {4, 5};
  clgpu_array row;
  assert_status(clgpu_array_nd(f->output.buffer, f->output.offset, CLGPU_TYPE_INT32, 2, row_shape,
                               CLGPU_ORDER_ROW_MAJOR, &row),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_broadcast(&row, 2, shape, &call->output_view), CLGPU_SUCCESS);
}
static void edit_self_overlapping_output(misuse_fixture *f, misuse_call *call) {
  const size_t shape[2] = {4, 5};
  const ptrdiff_t strides[2] = {2, 1};
  assert_status(clgpu_array_strided(f->output.buffer, f->output.offset, CLGPU_TYPE_INT32, 2, shape,
                                    strides, &call->output_view),
                CLGPU_SUCCESS);
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
  call->options_value.shape = (clgpu_shape)7;
  call->options = &call->options_value;
}
static void edit_output_past_end(misuse_fixture *f, misuse_call *call) {
  /* Edited by hand (no constructor makes it): the last element of the
   * buffer, then 19 more past its end. */
  call->output_view.offset = f->output.offset + f->output.region_bytes + TEST_GUARD_BYTES - 4;
}
static void edit_input_misaligned(misuse_fixture *f, misuse_call *call) {
  (void)f;
  call->input_view.offset += 2;
}
static void edit_foreign_input(misuse_fixture *f, misuse_call *call) {
  const size_t shape[2] = {4, 5};
  assert_status(clgpu_array_nd(f->foreign, 0, CLGPU_TYPE_INT32, 2, shape, CLGPU_ORDER_ROW_MAJOR,
                               &call->input_view),
                CLGPU_SUCCESS);
}
static void edit_half(misuse_fixture *f, misuse_call *call) {
  (void)f;
  assert_status(clgpu_array_reinterpret(&call->input_view, CLGPU_TYPE_HALF, &call->input_view),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_reinterpret(&call->output_view, CLGPU_TYPE_HALF, &call->output_view),
                CLGPU_SUCCESS);
}
static void edit_double(misuse_fixture *f, misuse_call *call) {
  assert_status(
      clgpu_array_1d(f->input.buffer, f->input.offset, CLGPU_TYPE_DOUBLE, 10, &call->input_view),
      CLGPU_SUCCESS);
  assert_status(
      clgpu_array_1d(f->output.buffer, f->output.offset, CLGPU_TYPE_DOUBLE, 10, &call->output_view),
      CLGPU_SUCCESS);
}
static void edit_reduce_workspace(misuse_fixture *f, misuse_call *call) {
  call->options_value.workspace = f->reduce_workspace;
  call->options = &call->options_value;
}
static void edit_wrong_algorithm_workspace(misuse_fixture *f, misuse_call *call) {
  call->options_value.shape = CLGPU_SHAPE_CHUNKED;
  call->options_value.workspace = f->tiled_workspace;
  call->options = &call->options_value;
}
static void edit_wrong_algorithm_workspace_2(misuse_fixture *f, misuse_call *call) {
  call->options_value.shape = CLGPU_SHAPE_TILED;
  call->options_value.workspace = f->chunked_workspace;
  call->options = &call->options_value;
}
static void edit_foreign_workspace(misuse_fixture *f, misuse_call *call) {
  call->options_value.workspace = f->foreign_workspace;
  call->options = &call->options_value;
}

static int lacks_fp16(const misuse_fixture *f) {
  return !clgpu_context_device_info(f->context)->has_fp16;
}
static int lacks_fp64(const misuse_fixture *f) {
  return !clgpu_context_device_info(f->context)->has_fp64;
}

static const misuse_row misuse_rows[] = {
    {"NULL context", CLGPU_INVALID_ARGUMENT, edit_null_context, NULL},
    {"NULL op", CLGPU_INVALID_ARGUMENT, edit_null_op, NULL},
    {"NULL input", CLGPU_INVALID_ARGUMENT, edit_null_input, NULL},
    {"NULL output", CLGPU_INVALID_ARGUMENT, edit_null_output, NULL},
    {"kind 0", CLGPU_INVALID_ARGUMENT, edit_kind_zero, NULL},
    {"kind 99", CLGPU_INVALID_ARGUMENT, edit_kind_unknown, NULL},
    {"CUSTOM without combine", CLGPU_INVALID_ARGUMENT, edit_custom_without_combine, NULL},
    {"CUSTOM without neutral", CLGPU_INVALID_ARGUMENT, edit_custom_without_neutral, NULL},
    {"CUSTOM with a malformed combine", CLGPU_CL_BUILD_PROGRAM_FAILURE, edit_custom_bad_combine,
     NULL},
    {"CUSTOM with an undefined neutral", CLGPU_CL_BUILD_PROGRAM_FAILURE, edit_custom_bad_neutral,
     NULL},
    {"int32 input, float output", CLGPU_TYPE_MISMATCH, edit_output_float, NULL},
    {"uint32 input, int32 output", CLGPU_TYPE_MISMATCH, edit_input_uint32, NULL},
    {"shapes (4, 5) and (5, 4)", CLGPU_SHAPE_MISMATCH, edit_output_transposed_shape, NULL},
    {"ranks 2 and 1, 20 elements each", CLGPU_SHAPE_MISMATCH, edit_output_1d, NULL},
    {"axis 2 of a rank-2 input", CLGPU_INVALID_ARGUMENT, edit_axis_2, NULL},
    {"axis -2", CLGPU_INVALID_ARGUMENT, edit_axis_minus_2, NULL},
    {"broadcast output", CLGPU_INVALID_OUTPUT, edit_broadcast_output, NULL},
    {"self-overlapping output", CLGPU_INVALID_OUTPUT, edit_self_overlapping_output, NULL},
    {"num_events 1, wait_list NULL", CLGPU_INVALID_ARGUMENT, edit_wait_list_missing, NULL},
    {"num_events 0, wait_list set", CLGPU_INVALID_ARGUMENT, edit_wait_list_without_count, NULL},
    {"unknown algorithm", CLGPU_INVALID_ARGUMENT, edit_unknown_algorithm, NULL},
    {"output past the buffer's end", CLGPU_VIEW_OUT_OF_BOUNDS, edit_output_past_end, NULL},
    {"misaligned input offset", CLGPU_MISALIGNED_VIEW, edit_input_misaligned, NULL},
    {"input in another cl_context", CLGPU_MISMATCHED_OBJECTS, edit_foreign_input, NULL},
    {"half without cl_khr_fp16", CLGPU_UNSUPPORTED_FEATURE, edit_half, lacks_fp16},
    {"double without cl_khr_fp64", CLGPU_UNSUPPORTED_FEATURE, edit_double, lacks_fp64},
    {"a reduce workspace", CLGPU_WORKSPACE_WRONG_OPERATION, edit_reduce_workspace, NULL},
    {"a TILED workspace for CHUNKED", CLGPU_WORKSPACE_WRONG_ALGORITHM,
     edit_wrong_algorithm_workspace, NULL},
    {"a CHUNKED workspace for TILED", CLGPU_WORKSPACE_WRONG_ALGORITHM,
     edit_wrong_algorithm_workspace_2, NULL},
    {"a workspace of another context", CLGPU_WORKSPACE_WRONG_DEVICE, edit_foreign_workspace, NULL},
};

static clgpu_workspace *make_scan_workspace(clgpu_context *context, clgpu_shape algorithm) {
  clgpu_scan_op op = scan_op(OP_SUM, 0);
  clgpu_call_options options = {.shape = algorithm, .workspace = NULL};
  clgpu_workspace_size report;
  assert_status(
      clgpu_scan_workspace_size_upto(context, &op, CLGPU_TYPE_INT32, 20, &options, &report),
      CLGPU_SUCCESS);
  clgpu_workspace *workspace = NULL;
  assert_status(clgpu_workspace_create(context, &report, &workspace), CLGPU_SUCCESS);
  return workspace;
}

static void misuse_is_refused(void **state) {
  (void)state;
  misuse_fixture f;
  memset(&f, 0, sizeof f);
  f.context = shared_context;
  f.other_context = test_context(NULL);
  const size_t shape[2] = {4, 5}, n = 20, bytes = n * sizeof(cl_int);
  uint64_t seed = test_case_seed("scan misuse");
  unsigned char *input_initial = random_bytes(bytes, seed);
  unsigned char *output_initial = random_bytes(bytes, seed + 1);
  f.input = test_guarded_create(f.context, bytes, input_initial);
  f.output = test_guarded_create(f.context, bytes, output_initial);
  cl_int err = CL_SUCCESS;
  f.foreign = clCreateBuffer(clgpu_context_cl_context(f.other_context), CL_MEM_READ_WRITE, bytes,
                             NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  f.user_event = clCreateUserEvent(clgpu_context_cl_context(f.context), &err);
  assert_int_equal(err, CL_SUCCESS);
  clgpu_reduce_op sum = {CLGPU_REDUCE_SUM, NULL, (clgpu_type)0, NULL, NULL, NULL};
  clgpu_workspace_size report;
  assert_status(
      clgpu_reduce_workspace_size_upto(f.context, &sum, CLGPU_TYPE_INT32, n, NULL, &report),
      CLGPU_SUCCESS);
  assert_status(clgpu_workspace_create(f.context, &report, &f.reduce_workspace), CLGPU_SUCCESS);
  f.tiled_workspace = make_scan_workspace(f.context, CLGPU_SHAPE_TILED);
  f.chunked_workspace = make_scan_workspace(f.context, CLGPU_SHAPE_CHUNKED);
  f.foreign_workspace = make_scan_workspace(f.other_context, CLGPU_SHAPE_AUTO);
  unsigned char *after = malloc(bytes);
  assert_non_null(after);

  for (size_t r = 0; r < sizeof misuse_rows / sizeof misuse_rows[0]; r++) {
    const misuse_row *row = &misuse_rows[r];
    if (row->applies && !row->applies(&f)) {
      print_message("# %s: does not apply to this device\n", row->name);
      continue;
    }
    /* Oclgrind's --check-api reports every failed build as an error, which
     * fails the run (the reason the oclgrind setup leaves the 'api' suite
     * out); the build-failure rows run on every other device. */
    if (oclgrind && row->expected == CLGPU_CL_BUILD_PROGRAM_FAILURE) {
      print_message("# %s: not run on Oclgrind\n", row->name);
      continue;
    }
    misuse_call call;
    memset(&call, 0, sizeof call);
    call.context = f.context;
    call.op_value = scan_op(OP_SUM, 0);
    call.op = &call.op_value;
    assert_status(clgpu_array_nd(f.input.buffer, f.input.offset, CLGPU_TYPE_INT32, 2, shape,
                                 CLGPU_ORDER_ROW_MAJOR, &call.input_view),
                  CLGPU_SUCCESS);
    assert_status(clgpu_array_nd(f.output.buffer, f.output.offset, CLGPU_TYPE_INT32, 2, shape,
                                 CLGPU_ORDER_ROW_MAJOR, &call.output_view),
                  CLGPU_SUCCESS);
    call.input = &call.input_view;
    call.output = &call.output_view;
    call.axis = CLGPU_ALL_AXES;
    call.options = NULL;
    row->edit(&f, &call);
    cl_event event = NULL;
    clgpu_status status = clgpu_scan(call.context, call.op, call.axis, call.output, call.input,
                                     call.options, call.num_events, call.wait_list, &event);
    if (status != row->expected) {
      fail_msg("scan misuse \"%s\": %s (%d), expected %s; detail: %s", row->name,
               clgpu_status_name(status), (int)status, clgpu_status_name(row->expected),
               clgpu_last_error());
    }
    print_message("# %s: %s\n", row->name, clgpu_last_error());
    if (event != NULL) fail_msg("scan misuse \"%s\": an event was made", row->name);
    assert_int_equal(clFinish(clgpu_context_queue(f.context)), CL_SUCCESS);
    test_guarded_read(f.context, &f.output, after);
    if (memcmp(after, output_initial, bytes) != 0) {
      fail_msg("scan misuse \"%s\": the output changed", row->name);
    }
    test_guarded_read(f.context, &f.input, after);
    if (memcmp(after, input_initial, bytes) != 0) {
      fail_msg("scan misuse \"%s\": the input changed", row->name);
    }
    test_guarded_check(f.context, &f.output, row->name);
    test_guarded_check(f.context, &f.input, row->name);
  }

  /* The unedited call works, with each of the fixture's scan workspaces of
   * the right algorithm: the rows failed for their own reason. */
  for (int w = 0; w < 3; w++) {
    clgpu_scan_op op = scan_op(OP_SUM, 0);
    clgpu_array input, output;
    assert_status(clgpu_array_nd(f.input.buffer, f.input.offset, CLGPU_TYPE_INT32, 2, shape,
                                 CLGPU_ORDER_ROW_MAJOR, &input),
                  CLGPU_SUCCESS);
    assert_status(clgpu_array_nd(f.output.buffer, f.output.offset, CLGPU_TYPE_INT32, 2, shape,
                                 CLGPU_ORDER_ROW_MAJOR, &output),
                  CLGPU_SUCCESS);
    clgpu_call_options options = {.shape = w == 1   ? CLGPU_SHAPE_TILED
                                           : w == 2 ? CLGPU_SHAPE_CHUNKED
                                                    : CLGPU_SHAPE_AUTO,
                                  .workspace = w == 1   ? f.tiled_workspace
                                               : w == 2 ? f.chunked_workspace
                                                        : NULL};
    assert_status(
        clgpu_scan(f.context, &op, CLGPU_ALL_AXES, &output, &input, &options, 0, NULL, NULL),
        CLGPU_SUCCESS);
    assert_int_equal(clFinish(clgpu_context_queue(f.context)), CL_SUCCESS);
    int32_t expected[20];
    test_reference_scan(input_initial, expected, n, TEST_INT32, 1);
    test_guarded_read(f.context, &f.output, after);
    test_case tc = test_make_case("scan misuse fixture, unedited", n, TEST_INT32, TEST_UNIFORM, 0);
    assert_same(after, expected, n, TEST_INT32, 0, &tc);
    test_guarded_check(f.context, &f.output, "unedited call");
  }

  assert_int_equal(clSetUserEventStatus(f.user_event, CL_COMPLETE), CL_SUCCESS);
  clReleaseEvent(f.user_event);
  clgpu_workspace_destroy(f.foreign_workspace);
  clgpu_workspace_destroy(f.chunked_workspace);
  clgpu_workspace_destroy(f.tiled_workspace);
  clgpu_workspace_destroy(f.reduce_workspace);
  free(after);
  free(output_initial);
  free(input_initial);
  clReleaseMemObject(f.foreign);
  test_guarded_release(&f.output);
  test_guarded_release(&f.input);
  clgpu_context_destroy(f.other_context);
}

/* ---- the host models themselves ---- */

/* The models the device is compared with, on hand-checked inputs: the MIN
 * and MAX rules of scan.h and the affine composition's order. */
static void host_models(void **state) {
  (void)state;
  /* float MIN: NaNs ignored until all so far are NaN; -0 below +0. */
  const uint32_t nan_low = 0xffc00001u, nan_high = 0x7fc00001u, nan_higher = 0x7fc00002u;
  const uint32_t plus_zero = 0, minus_zero = 0x80000000u, one = 0x3f800000u;
  uint32_t in[] = {nan_high, nan_low, nan_higher, one, minus_zero, plus_zero, nan_low};
  uint32_t out[7];
  model_line(OP_MIN, TEST_FLOAT, 0, (const unsigned char *)in, (unsigned char *)out, 7);
  const uint32_t min_expected[] = {nan_high,   nan_low,    nan_low,   one,
                                   minus_zero, minus_zero, minus_zero};
  assert_memory_equal(out, min_expected, sizeof out);
  model_line(OP_MAX, TEST_FLOAT, 1, (const unsigned char *)in, (unsigned char *)out, 7);
  const uint32_t max_expected[] = {0xffffffffu, nan_high, nan_high, nan_higher, one, one, one};
  assert_memory_equal(out, max_expected, sizeof out);
  /* int8 neutrals. */
  assert_int_equal(extreme_neutral(TEST_INT8, 0), 0x7f);
  assert_int_equal(extreme_neutral(TEST_INT8, 1), 0x80);
  assert_int_equal(extreme_neutral(TEST_UINT16, 0), 0xffff);
  assert_int_equal(extreme_neutral(TEST_UINT16, 1), 0);
  /* Affine maps: (t -> 2t + 1) then (t -> 3t + 5) is t -> 6t + 8; the other
   * way round t -> 6t + 11. */
  uint64_t f = (uint64_t)2 << 32 | 1, g = (uint64_t)3 << 32 | 5;
  assert_int_equal(affine32(f, g), (uint64_t)6 << 32 | 8);
  assert_int_equal(affine32(g, f), (uint64_t)6 << 32 | 11);
  assert_int_equal(affine16(2u << 16 | 1u, 3u << 16 | 5u), 6u << 16 | 8u);
  /* The float-sum rules accept an exact answer and refuse one just past the
   * bound. */
  char why[400];
  prefix p = {0, 0.0L, 0.0L, 0, 0, 0};
  prefix_add(&p, 0.1, 0);
  prefix_add(&p, 0.2, 0);
  assert_null(
      check_sum_prefix(&p, bits_of_value(0.1f + 0.2f, TEST_FLOAT), TEST_FLOAT, why, sizeof why));
  assert_non_null(
      check_sum_prefix(&p, bits_of_value(0.30001, TEST_FLOAT), TEST_FLOAT, why, sizeof why));
  assert_non_null(
      check_sum_prefix(&p, bits_of_value(NAN, TEST_FLOAT), TEST_FLOAT, why, sizeof why));
  prefix_add(&p, INFINITY, 0);
  assert_null(
      check_sum_prefix(&p, bits_of_value(INFINITY, TEST_FLOAT), TEST_FLOAT, why, sizeof why));
  assert_non_null(
      check_sum_prefix(&p, bits_of_value(-INFINITY, TEST_FLOAT), TEST_FLOAT, why, sizeof why));
}

#define TYPE_TEST(function, label, index) \
  { label, function, NULL, NULL, (void *)&type_states[index] }

/* ---- expressions that could change meaning (issue 15, item 9) ---- */

/* A combine or neutral element that could escape the library's
 * parentheses or statement, hide part of itself in a comment, or is over
 * the length cap is refused before anything is built: its status, a
 * message naming clgpu_scan, the field and why, no event, and input and
 * output unchanged. Then a CUSTOM scan whose expressions span lines, with
 * a ternary and casts, matches the host. */
static const struct {
  const char *field; /* "op->combine" or "op->neutral" */
  const char *text;
  const char *words;
} scan_expression_rows[] = {
    {"op->combine", "0); return (a + b", "never opened"},
    {"op->combine", "a // c\n + b", "comment"},
    {"op->combine", "a + b /* open", "comment"},
    {"op->combine", "a + b; b", "';'"},
    {"op->combine", "(a) +* (b", "never closed"},
    {"op->combine", "a + b\n#undef a", "'#'"},
    {"op->combine", "clgpu_combine(a, b)", "clgpu_combine"},
    {"op->neutral", "0 \\\n + 1", "backslash"},
    {"op->neutral", "{0]", "does not match"},
    {"op->neutral", "\t\n", "empty"},
};

static void hostile_expressions(void **state) {
  (void)state;
  const size_t n = 20, bytes = n * sizeof(cl_int);
  uint64_t seed = test_case_seed("scan expressions");
  unsigned char *input_initial = random_bytes(bytes, seed);
  unsigned char *output_initial = random_bytes(bytes, seed + 1);
  test_guarded input = test_guarded_create(shared_context, bytes, input_initial);
  test_guarded output = test_guarded_create(shared_context, bytes, output_initial);
  clgpu_array input_view, output_view;
  assert_status(clgpu_array_1d(input.buffer, input.offset, CLGPU_TYPE_INT32, n, &input_view),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(output.buffer, output.offset, CLGPU_TYPE_INT32, n, &output_view),
                CLGPU_SUCCESS);
  unsigned char *after = malloc(bytes);
  assert_non_null(after);
  char *long_text = malloc(65538);
  assert_non_null(long_text);
  memset(long_text, ' ', 65537);
  memcpy(long_text, "a + b", 5);
  long_text[65537] = '\0';
  size_t rows = sizeof scan_expression_rows / sizeof scan_expression_rows[0];
  for (size_t r = 0; r <= rows; r++) {
    const char *field = r < rows ? scan_expression_rows[r].field : "op->combine";
    const char *text = r < rows ? scan_expression_rows[r].text : long_text;
    const char *words = r < rows ? scan_expression_rows[r].words : "longer than 65536 bytes";
    clgpu_status expected = r < rows ? CLGPU_INVALID_ARGUMENT : CLGPU_EXPRESSION_TOO_LONG;
    clgpu_scan_op op = {CLGPU_SCAN_CUSTOM, 0, "a + b", "0"};
    if (strcmp(field, "op->combine") == 0) op.combine = text;
    if (strcmp(field, "op->neutral") == 0) op.neutral = text;
    char label[120];
    snprintf(label, sizeof label, "%s \"%.40s\"", field, text);
    cl_event event = NULL;
    clgpu_status status = clgpu_scan(shared_context, &op, CLGPU_ALL_AXES, &output_view, &input_view,
                                     NULL, 0, NULL, &event);
    const char *detail = clgpu_last_error();
    if (status != expected) {
      fail_msg("%s: %s, expected %s; detail: %s", label, clgpu_status_name(status),
               clgpu_status_name(expected), detail);
    }
    print_message("# %s: %s\n", label, detail);
    if (!strstr(detail, "clgpu_scan") || !strstr(detail, field) || !strstr(detail, words)) {
      fail_msg("%s: the message lacks clgpu_scan, \"%s\" or \"%s\": %s", label, field, words,
               detail);
    }
    if (event != NULL) fail_msg("%s: an event was made", label);
    clgpu_workspace_size report;
    status = clgpu_scan_workspace_size(shared_context, &op, CLGPU_ALL_AXES, &output_view,
                                       &input_view, NULL, &report);
    if (status != expected) {
      fail_msg("%s: the size query gave %s: %s", label, clgpu_status_name(status),
               clgpu_last_error());
    }
    assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
    test_guarded_read(shared_context, &output, after);
    if (memcmp(after, output_initial, bytes) != 0) fail_msg("%s: the output changed", label);
    test_guarded_read(shared_context, &input, after);
    if (memcmp(after, input_initial, bytes) != 0) fail_msg("%s: the input changed", label);
    test_guarded_check(shared_context, &output, label);
    test_guarded_check(shared_context, &input, label);
  }
  free(long_text);

  /* A running maximum over lines, with a ternary and casts. */
  clgpu_scan_op op = {CLGPU_SCAN_CUSTOM, 0, "(a > b)\n  ? a\r\n  : (int)(b)",
                      "(int)(-2147483647 - 1)"};
  assert_status(clgpu_scan(shared_context, &op, CLGPU_ALL_AXES, &output_view, &input_view, NULL, 0,
                           NULL, NULL),
                CLGPU_SUCCESS);
  assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
  int32_t x[20], expected[20], result[20];
  memcpy(x, input_initial, bytes);
  for (size_t k = 0; k < n; k++) expected[k] = k == 0 || x[k] > expected[k - 1] ? x[k] : expected[k - 1];
  test_guarded_read(shared_context, &output, after);
  memcpy(result, after, bytes);
  for (size_t k = 0; k < n; k++) {
    if (result[k] != expected[k]) {
      fail_msg("running maximum: element %zu is %d, expected %d", k, result[k], expected[k]);
    }
  }
  test_guarded_check(shared_context, &output, "running maximum");
  free(after);
  free(output_initial);
  free(input_initial);
  test_guarded_release(&output);
  test_guarded_release(&input);
}

int main(void) {
  test_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(host_models),
      TYPE_TEST(kinds_by_distribution, "kinds_by_distribution(int8)", 0),
      TYPE_TEST(kinds_by_distribution, "kinds_by_distribution(uint8)", 1),
      TYPE_TEST(kinds_by_distribution, "kinds_by_distribution(int16)", 2),
      TYPE_TEST(kinds_by_distribution, "kinds_by_distribution(uint16)", 3),
      TYPE_TEST(kinds_by_distribution, "kinds_by_distribution(int32)", 4),
      TYPE_TEST(kinds_by_distribution, "kinds_by_distribution(uint32)", 5),
      TYPE_TEST(kinds_by_distribution, "kinds_by_distribution(int64)", 6),
      TYPE_TEST(kinds_by_distribution, "kinds_by_distribution(uint64)", 7),
      TYPE_TEST(kinds_by_distribution, "kinds_by_distribution(float)", 8),
      TYPE_TEST(kinds_by_distribution, "kinds_by_distribution(double)", 9),
      cmocka_unit_test(every_size),
      cmocka_unit_test(custom_non_commutative),
      cmocka_unit_test(custom_product_of_doubles),
      cmocka_unit_test(along_axes),
      cmocka_unit_test(strided_and_reversed_views),
      cmocka_unit_test(exactly_in_place),
      cmocka_unit_test(overlapping_output),
      cmocka_unit_test(float_sums_are_deterministic),
      cmocka_unit_test(auto_algorithm),
      cmocka_unit_test(waits_for_its_wait_list),
      cmocka_unit_test(without_an_event),
      cmocka_unit_test(long_lines_along_an_axis),
      cmocka_unit_test(an_empty_scan_checks_its_workspace),
      cmocka_unit_test(with_a_workspace),
      cmocka_unit_test_teardown(streamed_output, streaming_teardown),
      cmocka_unit_test_teardown(aligned_vector_forms, vector_forms_teardown),
      cmocka_unit_test(misuse_is_refused),
      cmocka_unit_test(hostile_expressions),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
