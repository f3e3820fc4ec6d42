/* clgpu_histogram_even and clgpu_histogram_edges (histogram.h) against a
 * host reference computed from the header's formulas: every built-in type
 * (half as storage, double where the device has cl_khr_fp64), every way an
 * integer value finds its even bin (bins of 2^k values, of a width that is
 * not a power of two, of uneven widths, ranges whose products pass 64
 * bits, the whole 64-bit range), float bounds, bins by edges with
 * duplicates, -0 and +0, infinities and NaNs, bins past the local-memory
 * budget (the global-atomic path), sizes from 0 up, strided, broadcast and
 * packed N-D inputs, strided counts and counts over their own input or
 * edges, both shapes, workspaces, events, and the misuse table. Every call
 * runs on guarded buffers: bytes outside the counts' view must not change,
 * and the inputs not at all. */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "guard.h"
#include "support.h"
#include "views.h"

/* histogram.h's convention: the highest bound (`upper`, the last edge) is
 * in the last bin (NumPy's), so an integer range holds upper - lower + 1
 * values. 0 tests the half-open convention [lower, upper). */
#define UPPER_INCLUDED 1

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

static clgpu_context *context;

/* On Oclgrind only: a buffer made first thing (setup) that every call's
 * workspace lies in. Oclgrind reuses the identities of released buffers,
 * and a new buffer can inherit "uninitialised" marks
 * (docs/portability.md): rows that the count kernel had just zeroed in a
 * call's own scratch were reported as uninitialised when the same
 * work-item added to them, after other buffers had been released, and
 * never in a workspace laid over a buffer made before any was released.
 * So on Oclgrind every call gets a workspace of exactly its report
 * (clgpu_workspace_wrap) over this buffer; the other devices run the
 * calls' own scratch. */
#define POOL_BYTES ((size_t)16 << 20)
static cl_mem pool;

/* Whether the device keeps float and double denormals (a device that
 * flushes them may bin a denormal, or a difference that is one, as 0). */
static int float_denormals, double_denormals;

/* One context for the file, without clgpu's binary cache (test_disk_cache
 * covers it), as test_reduce.c does: storing each binary costs POCL an
 * extra compile, and this file builds a program for each type, way of
 * binning and shape, a few hundred on a cold cache. POCL's own kernel
 * cache still makes later runs fast. */
static int setup(void **state) {
  (void)state;
  clgpu_context_options options;
  memset(&options, 0, sizeof options);
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  context = test_context(&options);
  if (!context) return -1;
  cl_device_id device = clgpu_context_device(context);
  cl_device_fp_config config = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof config, &config, NULL) ==
      CL_SUCCESS) {
    float_denormals = (config & CL_FP_DENORM) != 0;
  }
  config = 0;
  if (clgpu_context_device_info(context)->has_fp64 &&
      clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof config, &config, NULL) ==
          CL_SUCCESS) {
    double_denormals = (config & CL_FP_DENORM) != 0;
  }
  if (!float_denormals || (clgpu_context_device_info(context)->has_fp64 && !double_denormals)) {
    printf(
        "# denormal %s inputs are replaced by zeros: the device does not report "
        "CL_FP_DENORM for them\n",
        !float_denormals ? "float" : "double");
  }
  if (test_on_oclgrind(context)) {
    cl_int err = CL_SUCCESS;
    pool = clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE, POOL_BYTES, NULL,
                          &err);
    if (err != CL_SUCCESS) return -1;
  }
  return 0;
}

static int teardown(void **state) {
  (void)state;
  if (pool) clReleaseMemObject(pool);
  clgpu_context_destroy(context);
  return 0;
}

static const clgpu_shape shapes[] = {CLGPU_SHAPE_CHUNKED, CLGPU_SHAPE_TILED};

static int fp64(void) { return clgpu_context_device_info(context)->has_fp64; }

static int oclgrind(void) { return test_on_oclgrind(context); }

/* Bins whose 32-bit counters fit in half the device's local memory: with
 * more, TILED takes the global-atomic path (CHUNKED takes it with more
 * than four bins per element; docs/histogram.md). */
static uint64_t local_bins(void) {
  return clgpu_context_device_info(context)->local_mem_size / 2 / 4;
}

/* clgpu_histogram_even and its size query, with the counts and the input
 * first as in every other call here (histogram.h takes the bounds first). */
static clgpu_status even_call(clgpu_context *ctx, const clgpu_array *counts,
                              const clgpu_array *input, const void *lower, const void *upper,
                              const clgpu_call_options *options, cl_uint num_events,
                              const cl_event *wait_list, cl_event *event) {
  return clgpu_histogram_even(ctx, lower, upper, counts, input, options, num_events, wait_list,
                              event);
}

static clgpu_status even_query(clgpu_context *ctx, const clgpu_array *counts,
                               const clgpu_array *input, const void *lower, const void *upper,
                               const clgpu_call_options *options, clgpu_workspace_size *out) {
  return clgpu_histogram_even_workspace_size(ctx, lower, upper, counts, input, options, out);
}

/* ---- values of every type, as their bits ---- */

static const clgpu_type every_type[] = {
    CLGPU_TYPE_INT8,  CLGPU_TYPE_UINT8,  CLGPU_TYPE_INT16,  CLGPU_TYPE_UINT16,
    CLGPU_TYPE_INT32, CLGPU_TYPE_UINT32, CLGPU_TYPE_INT64,  CLGPU_TYPE_UINT64,
    CLGPU_TYPE_HALF,  CLGPU_TYPE_FLOAT,  CLGPU_TYPE_DOUBLE,
};
#define EVERY_TYPE_COUNT (sizeof every_type / sizeof every_type[0])

static int is_float(clgpu_type t) {
  return t == CLGPU_TYPE_HALF || t == CLGPU_TYPE_FLOAT || t == CLGPU_TYPE_DOUBLE;
}

static int is_signed_integer(clgpu_type t) {
  return t == CLGPU_TYPE_INT8 || t == CLGPU_TYPE_INT16 || t == CLGPU_TYPE_INT32 ||
         t == CLGPU_TYPE_INT64;
}

static const char *type_name(clgpu_type t) { return clgpu_type_cl_name(t); }

static uint64_t get_bits(const void *array, size_t i, size_t size) {
  uint64_t bits = 0;
  memcpy(&bits, (const unsigned char *)array + i * size, size);
  return bits;
}

static void put_bits(void *array, size_t i, size_t size, uint64_t bits) {
  memcpy((unsigned char *)array + i * size, &bits, size);
}

static uint64_t mask_of(clgpu_type t) {
  size_t bits = 8 * clgpu_type_size(t);
  return bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
}

static i128 type_min(clgpu_type t) {
  if (!is_signed_integer(t)) return 0;
  return -((i128)1 << (8 * clgpu_type_size(t) - 1));
}

static i128 type_max(clgpu_type t) {
  size_t bits = 8 * clgpu_type_size(t);
  if (is_signed_integer(t)) return ((i128)1 << (bits - 1)) - 1;
  return ((i128)1 << bits) - 1;
}

/* An integer element's value (sign-extended for signed types). */
static i128 int_of(clgpu_type t, uint64_t bits) {
  if (!is_signed_integer(t)) return (i128)bits;
  size_t width = 8 * clgpu_type_size(t);
  uint64_t top = (uint64_t)1 << (width - 1);
  bits &= mask_of(t);
  return (i128)(int64_t)((bits ^ top) - top);
}

static uint64_t bits_of_int(clgpu_type t, i128 value) { return (uint64_t)value & mask_of(t); }

static i128 clamp_int(clgpu_type t, i128 value) {
  if (value < type_min(t)) return type_min(t);
  if (value > type_max(t)) return type_max(t);
  return value;
}

static float half_to_float(uint16_t h) {
  int exponent = (h >> 10) & 31, mantissa = h & 1023;
  float v;
  if (exponent == 0) {
    v = ldexpf((float)mantissa, -24);
  } else if (exponent == 31) {
    v = mantissa ? NAN : INFINITY;
  } else {
    v = ldexpf((float)(mantissa | 1024), exponent - 25);
  }
  return (h & 0x8000) ? -v : v;
}

/* The half nearest to f (ties to even). */
static uint16_t half_of(float f) {
  uint16_t sign = signbit(f) ? 0x8000 : 0;
  if (isnan(f)) return sign | 0x7e00;
  double a = fabs((double)f);
  if (a >= 65520.0) return sign | 0x7c00;
  if (a < 0x1p-14) return sign | (uint16_t)nearbyint(a * 0x1p24); /* 1024 is 2^-14's bits */
  int e = 0;
  frexp(a, &e);
  int exponent = e - 1; /* a in [2^exponent, 2^(exponent + 1)) */
  double q = nearbyint(ldexp(a, 10 - exponent));
  if (q == 2048.0) {
    q = 1024.0;
    exponent++;
  }
  return sign | (uint16_t)((exponent + 15) << 10) | (uint16_t)((int)q - 1024);
}

/* A float element's value (half and float exactly in double). */
static double float_of(clgpu_type t, uint64_t bits) {
  if (t == CLGPU_TYPE_HALF) return half_to_float((uint16_t)bits);
  if (t == CLGPU_TYPE_FLOAT) {
    uint32_t narrow = (uint32_t)bits;
    float f;
    memcpy(&f, &narrow, 4);
    return f;
  }
  double d;
  memcpy(&d, &bits, 8);
  return d;
}

/* The bits of `value` rounded to the float type. */
static uint64_t bits_of_float(clgpu_type t, double value) {
  if (t == CLGPU_TYPE_HALF) return half_of((float)value);
  if (t == CLGPU_TYPE_FLOAT) {
    float f = (float)value;
    uint32_t narrow;
    memcpy(&narrow, &f, 4);
    return narrow;
  }
  uint64_t bits;
  memcpy(&bits, &value, 8);
  return bits;
}

/* Whether a float element is a denormal the device flushes. */
static int flushed(clgpu_type t, uint64_t bits) {
  if (t == CLGPU_TYPE_FLOAT && !float_denormals) {
    return (bits & 0x7f800000u) == 0 && (bits & 0x007fffffu) != 0;
  }
  if (t == CLGPU_TYPE_DOUBLE && !double_denormals) {
    return (bits & 0x7ff0000000000000u) == 0 && (bits & 0x000fffffffffffffu) != 0;
  }
  return 0;
}

/* A value as text for labels. */
static void value_text(clgpu_type t, uint64_t bits, char *text, size_t size) {
  if (is_float(t)) {
    snprintf(text, size, "%.17g", float_of(t, bits));
  } else if (is_signed_integer(t)) {
    snprintf(text, size, "%lld", (long long)int_of(t, bits));
  } else {
    snprintf(text, size, "%llu", (unsigned long long)bits);
  }
}

/* ---- the host reference ---- */

#define NO_BIN UINT64_MAX

/* What the bins are: even over [lower, upper] (their bits), or by edges
 * (bins + 1 values). */
typedef struct bins_def {
  clgpu_type type;
  size_t bins;
  int by_edges;
  uint64_t lower, upper;
  const unsigned char *edges;
} bins_def;

static uint64_t even_bin(const bins_def *d, uint64_t bits) {
  clgpu_type t = d->type;
  uint64_t bins = d->bins;
  if (bins == 0) return NO_BIN;
  if (!is_float(t)) {
    i128 x = int_of(t, bits), lo = int_of(t, d->lower), hi = int_of(t, d->upper);
    if (x < lo || (UPPER_INCLUDED ? x > hi : x >= hi)) return NO_BIN;
    u128 values = (u128)(hi - lo) + (UPPER_INCLUDED ? 1 : 0);
    return (uint64_t)((u128)(x - lo) * bins / values);
  }
  if (t == CLGPU_TYPE_DOUBLE) {
    double x = float_of(t, bits), lo = float_of(t, d->lower), hi = float_of(t, d->upper);
    if (!(x >= lo) || !(UPPER_INCLUDED ? x <= hi : x < hi)) return NO_BIN;
    double scale = (double)bins / (hi - lo);
    double difference = x - lo;
    double product = difference * scale;
    return product < (double)bins ? (uint64_t)product : bins - 1;
  }
  /* half and float: in float, x and lower converted first */
  float x = (float)float_of(t, bits), lo = (float)float_of(t, d->lower);
  float hi = (float)float_of(t, d->upper);
  if (!(x >= lo) || !(UPPER_INCLUDED ? x <= hi : x < hi)) return NO_BIN;
  float scale = (float)((double)bins / ((double)hi - (double)lo));
  float difference = x - lo;
  float product = difference * scale;
  /* min(B - 1, (uint64_t)product), without converting what reaches B
   * (an overflowed difference included) */
  return product < (float)bins ? (uint64_t)product : bins - 1;
}

/* The edges' values, for comparing: as integers or as doubles. */
typedef struct edge_values {
  i128 *ints;
  double *reals;
} edge_values;

static edge_values edge_values_of(const bins_def *d) {
  edge_values e = {NULL, NULL};
  size_t count = d->bins + 1, size = clgpu_type_size(d->type);
  if (is_float(d->type)) {
    e.reals = malloc(count * sizeof *e.reals);
    assert_non_null(e.reals);
    for (size_t k = 0; k < count; k++) e.reals[k] = float_of(d->type, get_bits(d->edges, k, size));
  } else {
    e.ints = malloc(count * sizeof *e.ints);
    assert_non_null(e.ints);
    for (size_t k = 0; k < count; k++) e.ints[k] = int_of(d->type, get_bits(d->edges, k, size));
  }
  return e;
}

/* Bin b holds edges[b] <= x < edges[b + 1] (and x == edges[B] in the last
 * bin when the upper bound is included). With ascending edges the bin is
 * the last b below B with edges[b] <= x; the bisection finds it and the
 * definition is checked on it. */
static uint64_t edges_bin(const bins_def *d, const edge_values *e, uint64_t bits) {
  size_t bins = d->bins;
  if (bins == 0) return NO_BIN;
  size_t lo = 0, hi = bins;
  if (e->reals) {
    double x = float_of(d->type, bits);
    if (isnan(x) || !(e->reals[0] <= x)) return NO_BIN;
    if (!(x < e->reals[bins] || (UPPER_INCLUDED && x == e->reals[bins]))) return NO_BIN;
    while (hi - lo > 1) {
      size_t mid = lo + (hi - lo) / 2;
      if (e->reals[mid] <= x) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    assert_true(e->reals[lo] <= x && (x < e->reals[lo + 1] || lo == bins - 1));
    return lo;
  }
  i128 x = int_of(d->type, bits);
  if (!(e->ints[0] <= x)) return NO_BIN;
  if (!(x < e->ints[bins] || (UPPER_INCLUDED && x == e->ints[bins]))) return NO_BIN;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (e->ints[mid] <= x) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  assert_true(e->ints[lo] <= x && (x < e->ints[lo + 1] || lo == bins - 1));
  return lo;
}

/* counts[b] for n elements of data. */
static void reference(const bins_def *d, const unsigned char *data, size_t n, uint64_t *counts) {
  size_t size = clgpu_type_size(d->type);
  for (size_t b = 0; b < d->bins; b++) counts[b] = 0;
  edge_values e = {NULL, NULL};
  if (d->by_edges) e = edge_values_of(d);
  for (size_t i = 0; i < n; i++) {
    uint64_t bits = get_bits(data, i, size);
    uint64_t b = d->by_edges ? edges_bin(d, &e, bits) : even_bin(d, bits);
    if (b != NO_BIN) {
      assert_true(b < d->bins);
      counts[b]++;
    }
  }
  free(e.ints);
  free(e.reals);
}

/* ---- test data ---- */

/* A float value of the type near `value`: it, or one of its neighbours. */
static uint64_t near_float(clgpu_type t, double value, test_rng *rng) {
  uint64_t bits = bits_of_float(t, value);
  uint64_t step = test_rng_below(rng, 3);
  if (step == 1) bits = (bits + 1) & mask_of(t);
  if (step == 2) bits = (bits - 1) & mask_of(t);
  return bits;
}

static uint64_t float_special(clgpu_type t, test_rng *rng) {
  static const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0};
  size_t pick = (size_t)test_rng_below(rng, 9);
  if (pick < 7) {
    uint64_t bits = bits_of_float(t, specials[pick]);
    if (pick == 4 && test_rng_below(rng, 2)) bits |= (uint64_t)1 << (8 * clgpu_type_size(t) - 1);
    return bits;
  }
  /* the largest finite value, of either sign */
  double largest = t == CLGPU_TYPE_HALF ? 65504.0 : t == CLGPU_TYPE_FLOAT ? FLT_MAX : DBL_MAX;
  return bits_of_float(t, pick == 7 ? largest : -largest);
}

/* One element for even bins: below, inside and above [lower, upper], at
 * and beside the bins' edges, and random bits. */
static uint64_t even_sample(const bins_def *d, test_rng *rng) {
  clgpu_type t = d->type;
  uint64_t kind = test_rng_below(rng, 10);
  if (kind == 0) return test_rng_next64(rng) & mask_of(t);
  if (!is_float(t)) {
    i128 lo = int_of(t, d->lower), hi = int_of(t, d->upper);
    u128 values = (u128)(hi - lo) + 1;
    i128 span = (hi - lo) / 4 + 1;
    i128 x;
    if (kind == 1) {
      const i128 near[] = {lo, hi, lo - 1, hi + 1, lo + 1, hi - 1};
      x = near[test_rng_below(rng, 6)];
    } else if (kind == 2) {
      /* the first value of a bin, or the one before it */
      uint64_t k = test_rng_below(rng, d->bins + 1);
      u128 first = ((u128)k * values + d->bins - 1) / d->bins;
      x = lo + (i128)first - (i128)test_rng_below(rng, 2);
    } else if (kind == 3) {
      i128 away = (i128)test_rng_below(rng, span > UINT64_MAX ? UINT64_MAX : (uint64_t)span) + 1;
      x = test_rng_below(rng, 2) ? lo - away : hi + away;
    } else {
      u128 offset = values > UINT64_MAX ? (u128)test_rng_next64(rng)
                                        : (u128)test_rng_below(rng, (uint64_t)values);
      x = lo + (i128)offset;
    }
    return bits_of_int(t, clamp_int(t, x));
  }
  double lo = float_of(t, d->lower), hi = float_of(t, d->upper);
  double u = (double)(test_rng_next64(rng) >> 11) * 0x1p-53;
  if (kind == 1) return float_special(t, rng);
  if (kind == 2) {
    uint64_t k = test_rng_below(rng, d->bins + 1);
    return near_float(t, lo + (hi - lo) * (double)k / (double)d->bins, rng);
  }
  if (kind == 3) {
    const double near[] = {lo, hi};
    return near_float(t, near[test_rng_below(rng, 2)], rng);
  }
  if (kind == 4) {
    double away = (hi - lo) / 2 * u;
    return bits_of_float(t, test_rng_below(rng, 2) ? lo - away : hi + away);
  }
  return bits_of_float(t, lo + (hi - lo) * u);
}

/* One element for bins by edges: the edges and their neighbours, values
 * between, below and above them, specials and random bits. */
static uint64_t edges_sample(const bins_def *d, test_rng *rng) {
  clgpu_type t = d->type;
  size_t size = clgpu_type_size(t);
  uint64_t kind = test_rng_below(rng, 8);
  if (kind == 0) return test_rng_next64(rng) & mask_of(t);
  uint64_t edge = get_bits(d->edges, (size_t)test_rng_below(rng, d->bins + 1), size);
  if (kind == 1) return edge;
  if (!is_float(t)) {
    i128 first = int_of(t, get_bits(d->edges, 0, size));
    i128 last = int_of(t, get_bits(d->edges, d->bins, size));
    i128 x;
    if (kind == 2) {
      x = int_of(t, edge) + (test_rng_below(rng, 2) ? 1 : -1);
    } else if (kind == 3) {
      const i128 ends[] = {type_min(t), type_max(t), first - 1, last + 1};
      x = ends[test_rng_below(rng, 4)];
    } else {
      i128 span = (last - first) / 8 + 1;
      i128 low = first - span, width = last - first + 2 * span + 1;
      u128 offset = (u128)width > UINT64_MAX ? (u128)test_rng_next64(rng)
                                             : (u128)test_rng_below(rng, (uint64_t)width);
      x = low + (i128)offset;
    }
    return bits_of_int(t, clamp_int(t, x));
  }
  if (kind == 2) return near_float(t, float_of(t, edge), rng);
  if (kind == 3) return float_special(t, rng);
  double first = float_of(t, get_bits(d->edges, 0, size));
  double last = float_of(t, get_bits(d->edges, d->bins, size));
  if (!isfinite(first)) first = -200.0;
  if (!isfinite(last)) last = 200.0;
  double u = (double)(test_rng_next64(rng) >> 11) * 0x1p-53;
  double span = (last - first) * 1.25 + 1.0;
  return bits_of_float(t, first - (last - first) * 0.125 - 0.5 + span * u);
}

/* n elements for the bins, from a seed; denormals the device flushes are
 * replaced by zeros of their sign. */
static unsigned char *make_input(const bins_def *d, size_t n, uint64_t seed) {
  size_t size = clgpu_type_size(d->type);
  unsigned char *data = malloc(n * size + 8);
  assert_non_null(data);
  test_rng rng;
  test_rng_init(&rng, seed);
  for (size_t i = 0; i < n; i++) {
    uint64_t bits = d->by_edges ? edges_sample(d, &rng) : even_sample(d, &rng);
    if (flushed(d->type, bits)) bits &= (uint64_t)1 << (8 * size - 1);
    put_bits(data, i, size, bits);
  }
  return data;
}

static int compare_i128(const void *a, const void *b) {
  i128 x, y;
  memcpy(&x, a, sizeof x);
  memcpy(&y, b, sizeof y);
  return x < y ? -1 : x > y;
}

static int compare_u32_for_edges(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* bins + 1 ascending edges of the type (malloc'd), with duplicates
 * (empty bins); floats include -0 beside +0. */
static unsigned char *make_edges(clgpu_type t, size_t bins, uint64_t seed) {
  size_t size = clgpu_type_size(t), count = bins + 1;
  unsigned char *edges = malloc(count * size);
  assert_non_null(edges);
  test_rng rng;
  test_rng_init(&rng, seed);
  if (is_float(t)) {
    double *values = malloc(count * sizeof *values);
    assert_non_null(values);
    double spread = t == CLGPU_TYPE_HALF && bins > 1000 ? 1000.0 : 100.0 + (double)bins;
    for (size_t k = 0; k < count; k++) {
      uint64_t kind = test_rng_below(&rng, 10);
      double u = (double)(test_rng_next64(&rng) >> 11) * 0x1p-53;
      if (k > 0 && kind == 0) {
        values[k] = values[k - 1]; /* a duplicate */
      } else {
        values[k] = float_of(t, bits_of_float(t, (2.0 * u - 1.0) * spread));
      }
    }
    if (count >= 4) {
      values[1] = -0.0;
      values[2] = 0.0;
    }
    qsort(values, count, sizeof *values, compare_double);
    for (size_t k = 0; k < count; k++) put_bits(edges, k, size, bits_of_float(t, values[k]));
    free(values);
    return edges;
  }
  i128 *values = malloc(count * sizeof *values);
  assert_non_null(values);
  i128 lo = type_min(t), hi = type_max(t);
  if (size > 1) {
    lo = is_signed_integer(t) ? -1000 - (i128)bins : 0;
    hi = lo + 6 * (i128)bins + 2000;
    if (lo < type_min(t)) lo = type_min(t);
    if (hi > type_max(t)) hi = type_max(t);
  }
  for (size_t k = 0; k < count; k++) {
    if (k > 0 && test_rng_below(&rng, 8) == 0) {
      values[k] = values[k - 1];
    } else {
      values[k] = lo + (i128)test_rng_below(&rng, (uint64_t)(hi - lo + 1));
    }
  }
  qsort(values, count, sizeof *values, compare_i128);
  for (size_t k = 0; k < count; k++) put_bits(edges, k, size, bits_of_int(t, values[k]));
  free(values);
  return edges;
}

/* Five bins whose edges are the type's extremes: for floats -inf, -1, -0,
 * +0, 1, +inf (the bin [-0, +0) is empty: -0 == +0); for integers the
 * lowest value twice (an empty first bin), -1 or 1 twice, 7, the highest
 * value. */
static unsigned char *extreme_edges(clgpu_type t) {
  size_t size = clgpu_type_size(t);
  unsigned char *edges = malloc(6 * size);
  assert_non_null(edges);
  if (is_float(t)) {
    const double values[] = {-INFINITY, -1.0, -0.0, 0.0, 1.0, INFINITY};
    for (size_t k = 0; k < 6; k++) put_bits(edges, k, size, bits_of_float(t, values[k]));
  } else {
    i128 middle = is_signed_integer(t) ? -1 : 1;
    const i128 values[] = {type_min(t), type_min(t), middle, middle, 7, type_max(t)};
    for (size_t k = 0; k < 6; k++) put_bits(edges, k, size, bits_of_int(t, values[k]));
  }
  return edges;
}

/* ---- one case ---- */

typedef struct hist_case {
  const char *what;
  bins_def def;
  size_t n;
  clgpu_shape shape;
  clgpu_type count_type;
  ptrdiff_t input_stride, edges_stride, counts_stride;
  const unsigned char *data; /* n elements, or NULL: made from the case's seed */
} hist_case;

static void describe(const hist_case *c, char *text, size_t size) {
  const bins_def *d = &c->def;
  char bounds[96] = "edges";
  if (!d->by_edges) {
    char lo[48], hi[40];
    value_text(d->type, d->lower, lo, sizeof lo);
    value_text(d->type, d->upper, hi, sizeof hi);
    snprintf(bounds, sizeof bounds, "[%s, %s%s", lo, hi, UPPER_INCLUDED ? "]" : ")");
  }
  snprintf(text, size, "%s: %zu %s in %zu bins by %s, %s counts, %s, strides %td/%td/%td", c->what,
           c->n, type_name(d->type), d->bins, bounds, type_name(c->count_type),
           clgpu_shape_name(c->shape), c->input_stride, c->edges_stride, c->counts_stride);
}

/* The counts in the count type's bytes. */
static unsigned char *counts_bytes(const uint64_t *counts, size_t bins, clgpu_type count_type) {
  size_t size = clgpu_type_size(count_type);
  unsigned char *bytes = malloc(bins * size + 8);
  assert_non_null(bytes);
  for (size_t b = 0; b < bins; b++) put_bits(bytes, b, size, counts[b]);
  return bytes;
}

/* Fails with the first bin that differs. */
static void compare_counts(const uint64_t *got, const uint64_t *expected, size_t bins,
                           const char *label) {
  size_t differ = 0, first = 0;
  for (size_t b = 0; b < bins; b++) {
    if (got[b] != expected[b] && differ++ == 0) first = b;
  }
  if (differ) {
    fail_msg("%s: seed %llu: bin %zu is %llu, expected %llu (%zu of %zu bins differ)", label,
             (unsigned long long)test_seed(), first, (unsigned long long)got[first],
             (unsigned long long)expected[first], differ, bins);
  }
}

/* Reads a placed view's elements (unsigned, `size` bytes) into `out`. */
static void read_placed(const test_placed *p, size_t size, uint64_t *out) {
  unsigned char *region = malloc(p->region_bytes + 1);
  unsigned char *logical = malloc(p->spec.shape[0] * size + 1);
  assert_non_null(region);
  assert_non_null(logical);
  test_guarded_read(context, &p->guarded, region);
  gather(region, &p->spec, size, logical);
  for (size_t i = 0; i < p->spec.shape[0]; i++) out[i] = get_bits(logical, i, size);
  free(region);
  free(logical);
}

/* A workspace of exactly `report` over the pool on Oclgrind (see pool);
 * NULL elsewhere: the call makes its own scratch. */
static clgpu_workspace *pooled(const clgpu_workspace_size *report) {
  if (!pool) return NULL;
  assert_true(report->total_bytes <= POOL_BYTES);
  clgpu_workspace *workspace = NULL;
  assert_status(
      clgpu_workspace_wrap(context, report, pool, 0, (size_t)report->total_bytes, &workspace),
      CLGPU_SUCCESS);
  return workspace;
}

/* A workspace for `report`: clgpu_workspace_create, or on Oclgrind one
 * over the pool. */
static clgpu_workspace *make_workspace(const clgpu_workspace_size *report) {
  if (pool) return pooled(report);
  clgpu_workspace *workspace = NULL;
  assert_status(clgpu_workspace_create(context, report, &workspace), CLGPU_SUCCESS);
  return workspace;
}

/* On Oclgrind, points options->workspace at a workspace of exactly what
 * the call needs, over the pool, and returns it (the caller destroys it
 * after the call); elsewhere does nothing and returns NULL. */
static clgpu_workspace *pool_even(clgpu_call_options *options, const clgpu_array *counts,
                                  const clgpu_array *input, const void *lower, const void *upper) {
  if (!pool) return NULL;
  clgpu_workspace_size report;
  options->workspace = NULL;
  assert_status(even_query(context, counts, input, lower, upper, options, &report), CLGPU_SUCCESS);
  options->workspace = pooled(&report);
  return options->workspace;
}

static clgpu_workspace *pool_edges(clgpu_call_options *options, const clgpu_array *counts,
                                   const clgpu_array *input, const clgpu_array *edges) {
  if (!pool) return NULL;
  clgpu_workspace_size report;
  options->workspace = NULL;
  assert_status(
      clgpu_histogram_edges_workspace_size(context, counts, input, edges, options, &report),
      CLGPU_SUCCESS);
  options->workspace = pooled(&report);
  return options->workspace;
}

/* Puts back a placed view's region as test_place wrote it, writing the
 * whole buffer, guards included, in one command: Oclgrind 21.10 mistracks
 * bytes written at an offset into a buffer (see test_search.c), and
 * reported uninitialised values in later kernels after such writes. */
static void restore_placed(const test_placed *p) {
  size_t total = p->region_bytes + 2 * TEST_GUARD_BYTES;
  unsigned char *image = malloc(total);
  assert_non_null(image);
  for (size_t i = 0; i < total; i++) image[i] = test_guard_canary(i);
  memcpy(image + p->guarded.offset, p->region, p->region_bytes);
  assert_int_equal(clEnqueueWriteBuffer(clgpu_context_queue(context), p->guarded.buffer, CL_TRUE, 0,
                                        total, image, 0, NULL, NULL),
                   CL_SUCCESS);
  free(image);
}

/* Runs a case on guarded buffers and checks the counts (against the
 * reference, bin by bin, then every byte of their region), the input and
 * the edges (unchanged). The counts come back in `got` (bins values) when
 * it is not NULL. */
static void run_case(const hist_case *c, uint64_t *got) {
  char label[400];
  /* The seed leaves the shape out, so that both shapes count the same
   * data. */
  hist_case unshaped = *c;
  unshaped.shape = CLGPU_SHAPE_AUTO;
  describe(&unshaped, label, sizeof label);
  uint64_t seed = test_case_seed(label);
  describe(c, label, sizeof label);
  const bins_def *d = &c->def;
  size_t n = c->n, bins = d->bins, size = clgpu_type_size(d->type);
  size_t count_size = clgpu_type_size(c->count_type);
  unsigned char *data = c->data ? NULL : make_input(d, n, seed);
  const unsigned char *input = c->data ? c->data : data;
  uint64_t *expected = malloc((bins + 1) * sizeof *expected);
  uint64_t *counted = malloc((bins + 1) * sizeof *counted);
  assert_non_null(expected);
  assert_non_null(counted);
  reference(d, input, n, expected);
  test_placed in = test_place(context, input, n, size, d->type, c->input_stride, seed + 1);
  test_placed edges;
  memset(&edges, 0, sizeof edges);
  if (d->by_edges) {
    edges = test_place(context, d->edges, bins + 1, size, d->type, c->edges_stride, seed + 2);
  }
  unsigned char *junk = random_bytes(bins * count_size + 8, seed + 3);
  test_placed counts =
      test_place(context, junk, bins, count_size, c->count_type, c->counts_stride, seed + 4);
  clgpu_call_options options = {.shape = c->shape};
  clgpu_workspace *workspace =
      d->by_edges ? pool_edges(&options, &counts.view, &in.view, &edges.view)
                  : pool_even(&options, &counts.view, &in.view, &d->lower, &d->upper);
  clgpu_status status = d->by_edges ? clgpu_histogram_edges(context, &counts.view, &in.view,
                                                            &edges.view, &options, 0, NULL, NULL)
                                    : even_call(context, &counts.view, &in.view, &d->lower,
                                                &d->upper, &options, 0, NULL, NULL);
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s: seed %llu: %s: %s", label, (unsigned long long)test_seed(),
             clgpu_status_name(status), clgpu_last_error());
  }
  clgpu_workspace_destroy(workspace);
  read_placed(&counts, count_size, counted);
  compare_counts(counted, expected, bins, label);
  unsigned char *wanted = counts_bytes(expected, bins, c->count_type);
  test_placed_check(context, &counts, count_size, wanted, bins, label, "counts");
  test_placed_check(context, &in, size, input, 0, label, "input");
  if (d->by_edges) {
    test_placed_check(context, &edges, size, d->edges, 0, label, "edges");
    test_placed_release(&edges);
  }
  if (got) memcpy(got, counted, bins * sizeof *got);
  test_placed_release(&in);
  test_placed_release(&counts);
  free(wanted);
  free(junk);
  free(data);
  free(expected);
  free(counted);
}

/* Runs a case on both shapes (the case's shape is ignored) and checks
 * that they count alike. */
static void run_both_shapes(hist_case c) {
  size_t bins = c.def.bins;
  uint64_t *first = malloc((bins + 1) * sizeof *first);
  uint64_t *second = malloc((bins + 1) * sizeof *second);
  assert_non_null(first);
  assert_non_null(second);
  c.shape = shapes[0];
  run_case(&c, first);
  c.shape = shapes[1];
  run_case(&c, second);
  char label[440];
  describe(&c, label, sizeof label - 32);
  strcat(label, " (TILED against CHUNKED)");
  compare_counts(second, first, bins, label);
  free(first);
  free(second);
}

/* ---- even bins over every type ---- */

/* The counts' type of the type's cases: the counts only reach the last
 * kernel, and one type per input type keeps the programs to build fewer
 * (a program per type, way of binning, counts' type and shape). Both
 * appear with every way of binning. */
static clgpu_type count_type_for(size_t type_index) {
  return type_index % 2 ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32;
}

typedef struct even_bounds {
  i128 lower, upper;       /* integers */
  double lower_f, upper_f; /* floats */
  size_t bins;
  const char *what;
} even_bounds;

/* The integer cases: each way a value finds its bin (histogram.c's modes):
 * bins of 2^k values, of a width that is not a power of two, of uneven
 * widths within 32 and 64 bits, through a 128-bit product, over all 2^64
 * values; one bin, 7 bins over the whole type, 256 bins, more bins than
 * values, a single value. The bins are those of a closed range (see
 * UPPER_INCLUDED). */
static size_t integer_cases(clgpu_type t, even_bounds *out) {
  int sgn = is_signed_integer(t);
  size_t width = 8 * clgpu_type_size(t);
  i128 lo = type_min(t), hi = type_max(t);
  size_t k = 0;
#define CASE(l, u, b, w) out[k++] = (even_bounds){(i128)(l), (i128)(u), 0, 0, (b), (w)}
  CASE(sgn ? -100 : 3, width == 8 ? (sgn ? 90 : 200) : 30000, 1, "one bin");
  CASE(lo, hi, 7, "the whole type in 7 bins");
  CASE(sgn ? -128 : 10, width == 8 ? (sgn ? 100 : 250) : 23456, 256,
       width == 8 ? "256 bins, more than the values" : "256 bins");
  if (width <= 32) {
    CASE(lo, hi, width == 8 ? 16 : 256, "bins of 2^k values over the whole type");
  } else {
    CASE(sgn ? lo : (i128)1 << 63, sgn ? lo + ((i128)1 << 40) - 1 : hi, sgn ? 256 : 2,
         "bins of 2^32 values or more");
  }
  CASE(sgn ? -30 : 30, sgn ? 59 : 119, 9, "bins of 10 values");
  CASE(width == 8 && sgn ? -100 : 3, width == 8 ? (sgn ? 96 : 249) : 999, 7,
       "bins of uneven widths");
  if (width == 32) CASE(lo, hi - 1, 7, "bins of uneven widths, products past 32 bits");
  if (width == 64) {
    CASE(sgn ? -1000000000000 : 0, sgn ? 999999999999 : 1999999999999, 5, "bins of 4e11 values");
    CASE(sgn ? -1000000000000000 : 1000000000000000, sgn ? 1000000000000000 : 3000000000000000,
         1000, "bins of uneven widths, products past 32 bits");
    CASE(lo, hi - 1, sgn ? 1000 : 7, "2^64 - 1 values: products past 64 bits");
    if (!sgn) CASE(1, hi, 1000, "2^64 - 1 values from 1: products past 64 bits");
    if (!sgn) CASE(lo, hi - 1, 3, "2^64 - 1 values in 3 bins of equal width");
    CASE(lo, hi, sgn ? 1000 : 3, "all 2^64 values");
  }
  if (UPPER_INCLUDED) CASE(sgn ? 5 : hi, sgn ? 5 : hi, sgn ? 7 : 1, "a single value");
#undef CASE
  return k;
}

static size_t float_cases(clgpu_type t, even_bounds *out) {
  size_t k = 0;
#define CASE(l, u, b, w) out[k++] = (even_bounds){0, 0, (l), (u), (b), (w)}
  CASE(-1000.0, 1000.0, 1, "one bin");
  CASE(-2.5, 7.25, 7, "7 bins");
  CASE(0.0, 1.0, 256, "256 bins from 0");
  if (t == CLGPU_TYPE_HALF) {
    CASE(1.0, 1.0 + 0x1p-10, 256, "256 bins over one step of the type");
    CASE(-65504.0, 65504.0, 7, "the whole finite range");
  } else if (t == CLGPU_TYPE_FLOAT) {
    CASE(1.0, 1.0 + 0x1p-20, 256, "256 bins over a few steps of the type");
    CASE(-1e38, 1.5e38, 256, "a range near FLT_MAX");
  } else {
    CASE(1.0, 1.0 + 0x1p-40, 256, "256 bins over a few steps of the type");
    CASE(-8e307, 8e307, 7, "a range near DBL_MAX");
  }
#undef CASE
  return k;
}

static void every_type_even(void **state) {
  (void)state;
  int small = oclgrind();
  const size_t sizes[] = {0, 1, 17, 1000, small ? 20011 : 100003};
  for (size_t ti = 0; ti < EVERY_TYPE_COUNT; ti++) {
    clgpu_type t = every_type[ti];
    if (t == CLGPU_TYPE_DOUBLE && !fp64()) {
      printf("# every_type_even: double skipped: the device has no cl_khr_fp64\n");
      continue;
    }
    even_bounds cases[16];
    size_t count = is_float(t) ? float_cases(t, cases) : integer_cases(t, cases);
    for (size_t ci = 0; ci < count; ci++) {
      const even_bounds *b = &cases[ci];
      bins_def def = {t, b->bins, 0, 0, 0, NULL};
      if (is_float(t)) {
        def.lower = bits_of_float(t, b->lower_f);
        def.upper = bits_of_float(t, b->upper_f);
      } else {
        def.lower = bits_of_int(t, b->lower);
        def.upper = bits_of_int(t, b->upper);
      }
      /* The first three cases (1, 7 and 256 bins) at every size, the
       * others at a small and the largest size; on Oclgrind the largest
       * size only for one of the first three cases of each type. */
      for (size_t z = 0; z < 5; z++) {
        if (ci >= 3 && z != 2 + ci % 2 && z != 4) continue;
        if (small && z == 4 && ci != ti % 3) continue;
        hist_case c = {b->what, def, sizes[z], CLGPU_SHAPE_CHUNKED, count_type_for(ti), 1,
                       1,       1,   NULL};
        run_both_shapes(c);
      }
    }
  }
}

/* Float bounds whose difference float cannot hold (finite in double, as
 * histogram.h asks): x - lower overflows to +inf in float for the
 * elements near upper, and a conversion of +inf to an integer is left to
 * the implementation (Oclgrind gave 0, putting them in the first bin,
 * while the kernel converted (V)(x - lower) * scale to ulong unclamped).
 * By the formula's min(B - 1, ...) they belong in the last bin, as every
 * product that reaches B does. With 7 bins over [-FLT_MAX, FLT_MAX] the
 * scale, 7 / 6.8e38, is a float denormal too. */
static void float_range_wider_than_float(void **state) {
  (void)state;
  const double bounds[][2] = {{-3e38, 3e38}, {-FLT_MAX, FLT_MAX}};
  const size_t bins[] = {256, 7};
  const size_t sizes[] = {17, 1000, oclgrind() ? 20011 : 100003};
  for (size_t r = 0; r < 2; r++) {
    bins_def def = {CLGPU_TYPE_FLOAT,
                    bins[r],
                    0,
                    bits_of_float(CLGPU_TYPE_FLOAT, bounds[r][0]),
                    bits_of_float(CLGPU_TYPE_FLOAT, bounds[r][1]),
                    NULL};
    for (size_t z = 0; z < 3; z++) {
      hist_case c = {"a range wider than float holds",
                     def,
                     sizes[z],
                     CLGPU_SHAPE_CHUNKED,
                     CLGPU_TYPE_UINT32,
                     1,
                     1,
                     1,
                     NULL};
      run_both_shapes(c);
    }
  }
}

/* ---- bins by edges over every type ---- */

/* How the library plans bins (docs/histogram.md, without a device loop
 * cap): TILED counts in local memory within half of it, CHUNKED in a row
 * per group unless there are more than four bins per element; past that
 * one shared row with global atomics. */
static const char *path_of(clgpu_shape shape, size_t n, size_t bins) {
  if (shape == CLGPU_SHAPE_TILED) return (uint64_t)bins > local_bins() ? "global atomics" : "local";
  return bins / 4 > n ? "global atomics" : "a row per group";
}

static void every_type_edges(void **state) {
  (void)state;
  int small = oclgrind();
  const size_t bin_counts[] = {1, 5, 300, 5000, 20000};
  const size_t sizes[] = {0, 17, 1000, small ? 20011 : 100003};
  const size_t many = small ? 2 : 3; /* the size of 5000 and 20000 bins */
  for (size_t bi = 3; bi < 5; bi++) {
    printf(
        "# every_type_edges: %zu bins over %zu elements: TILED %s, CHUNKED %s (local memory "
        "%llu bytes)\n",
        bin_counts[bi], sizes[many], path_of(CLGPU_SHAPE_TILED, sizes[many], bin_counts[bi]),
        path_of(CLGPU_SHAPE_CHUNKED, sizes[many], bin_counts[bi]),
        (unsigned long long)clgpu_context_device_info(context)->local_mem_size);
  }
  for (size_t ti = 0; ti < EVERY_TYPE_COUNT; ti++) {
    clgpu_type t = every_type[ti];
    if (t == CLGPU_TYPE_DOUBLE && !fp64()) {
      printf("# every_type_edges: double skipped: the device has no cl_khr_fp64\n");
      continue;
    }
    for (size_t bi = 0; bi < 5; bi++) {
      size_t bins = bin_counts[bi];
      /* 5000 and 20000 bins over a few types each. */
      if (bi == 3 && ti % 4 != 1) continue;
      if (bi == 4 && ti % 4 != 3) continue;
      char what[64];
      snprintf(what, sizeof what, "edges (%s)", bi == 1 ? "extremes" : "random");
      unsigned char *edges =
          bi == 1 ? extreme_edges(t) : make_edges(t, bins, test_case_seed(what) + ti * 131 + bi);
      bins_def def = {t, bins, 1, 0, 0, edges};
      for (size_t z = 0; z < 4; z++) {
        /* 5000 and 20000 bins over the largest size (on Oclgrind over
         * 1000 elements, and the largest size only with 300 bins). */
        if (bi >= 3 && z != many) continue;
        if (bi == 0 && z == 2) continue;
        if (small && z == 3 && bi != 2) continue;
        hist_case c = {what, def, sizes[z], CLGPU_SHAPE_CHUNKED, count_type_for(ti), 1, 1, 1, NULL};
        run_both_shapes(c);
      }
      free(edges);
    }
  }
}

/* ---- more bins than local memory holds ---- */

static void many_bins_global_path(void **state) {
  (void)state;
  size_t bins = (size_t)local_bins() + 1000;
  size_t n = oclgrind() ? 20011 : 300000;
  printf("# many_bins_global_path: %zu bins (local memory %llu bytes: global atomics past %llu)\n",
         bins, (unsigned long long)clgpu_context_device_info(context)->local_mem_size,
         (unsigned long long)local_bins());
  /* Even bins of uneven widths over part of the data's range, and bins of
   * uneven widths over the whole of uint. */
  const uint32_t bounds[][2] = {{1000, 1000 + (uint32_t)bins * 3 + 12}, {0, UINT32_MAX}};
  for (size_t r = 0; r < 2; r++) {
    bins_def def = {CLGPU_TYPE_UINT32, bins, 0, bounds[r][0], bounds[r][1], NULL};
    unsigned char *data = malloc(n * 4);
    assert_non_null(data);
    test_rng rng;
    test_rng_init(&rng, test_case_seed("many_bins_global_path") + r);
    for (size_t i = 0; i < n; i++) {
      uint32_t x = r == 0 ? (uint32_t)test_rng_below(&rng, (uint64_t)bounds[0][1] + 2000)
                          : (uint32_t)test_rng_next64(&rng);
      memcpy(data + 4 * i, &x, 4);
    }
    for (size_t s = 0; s < 2; s++) {
      for (size_t w = 0; w < 2; w++) {
        hist_case c = {"many bins", def, n, shapes[s], w ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32,
                       1,           1,   1, data};
        run_case(&c, NULL);
      }
    }
    free(data);
  }
  /* CHUNKED takes the shared row with more than four bins per element. */
  bins_def few = {CLGPU_TYPE_UINT32, bins, 0, 1000, 1000 + (uint32_t)bins * 3 + 12, NULL};
  hist_case sparse = {"more than four bins per element",
                      few,
                      bins / 5,
                      CLGPU_SHAPE_CHUNKED,
                      CLGPU_TYPE_UINT32,
                      1,
                      1,
                      1,
                      NULL};
  printf("# many_bins_global_path: %zu bins over %zu elements: TILED %s, CHUNKED %s\n", bins,
         sparse.n, path_of(CLGPU_SHAPE_TILED, sparse.n, bins),
         path_of(CLGPU_SHAPE_CHUNKED, sparse.n, bins));
  run_both_shapes(sparse);
  /* Edges past the budget. */
  unsigned char *edges = make_edges(CLGPU_TYPE_UINT32, bins, test_case_seed("many edges"));
  bins_def def = {CLGPU_TYPE_UINT32, bins, 1, 0, 0, edges};
  for (size_t s = 0; s < 2; s++) {
    hist_case c = {
        "many edges", def, n, shapes[s], s ? CLGPU_TYPE_UINT32 : CLGPU_TYPE_UINT64, 1, 1, 1, NULL};
    run_case(&c, NULL);
  }
  free(edges);
}

/* ---- strided, broadcast and N-D inputs; counts over their inputs ---- */

/* A guarded N-D view of `spec` holding `logical` (row-major), the other
 * bytes random. */
typedef struct placed_nd {
  view_spec spec;
  test_guarded guarded;
  clgpu_array view;
  unsigned char *region;
  size_t region_bytes;
} placed_nd;

static placed_nd place_nd(const view_spec *spec, clgpu_type t, const unsigned char *logical,
                          uint64_t seed) {
  placed_nd p;
  memset(&p, 0, sizeof p);
  p.spec = *spec;
  size_t size = clgpu_type_size(t);
  size_t length = spec_fit(&p.spec, 5);
  p.region_bytes = length * size;
  p.region = random_bytes(p.region_bytes, seed);
  scatter(p.region, &p.spec, size, logical);
  p.guarded = test_guarded_create(context, p.region_bytes, p.region);
  p.view = make_view(&p.guarded, t, &p.spec);
  return p;
}

static void strided_and_nd_views(void **state) {
  (void)state;
  size_t n = oclgrind() ? 3001 : 30001;
  /* Input strides 3 and -2, counts strides 2 and -1, edges stride -3. */
  const ptrdiff_t strides[][3] = {{3, 2, 1}, {-2, -1, -3}, {3, -1, 2}, {-2, 2, 1}};
  const clgpu_type types[] = {CLGPU_TYPE_INT16, CLGPU_TYPE_FLOAT, CLGPU_TYPE_HALF,
                              CLGPU_TYPE_UINT64};
  for (size_t v = 0; v < 4; v++) {
    clgpu_type t = types[v];
    for (int by_edges = 0; by_edges < 2; by_edges++) {
      bins_def def = {t, 37, by_edges, 0, 0, NULL};
      unsigned char *edges = NULL;
      if (by_edges) {
        edges = make_edges(t, def.bins, test_case_seed("strided edges") + v);
        def.edges = edges;
      } else if (is_float(t)) {
        def.lower = bits_of_float(t, -3.0);
        def.upper = bits_of_float(t, 5.5);
      } else {
        def.lower = bits_of_int(t, is_signed_integer(t) ? -700 : 7);
        def.upper = bits_of_int(t, 2000);
      }
      hist_case c = {
          "strided",     def,           n,   CLGPU_SHAPE_CHUNKED, CLGPU_TYPE_UINT32, strides[v][0],
          strides[v][2], strides[v][1], NULL};
      run_both_shapes(c);
      free(edges);
    }
  }

  /* Stride 0: one value n times; counts of a bin it is in and one it is
   * not. */
  for (size_t s = 0; s < 2; s++) {
    const float values[] = {2.0f, -7.0f, 5.5f};
    for (size_t k = 0; k < 3; k++) {
      float *data = malloc(n * sizeof *data);
      assert_non_null(data);
      for (size_t i = 0; i < n; i++) data[i] = values[k];
      bins_def def = {CLGPU_TYPE_FLOAT,
                      11,
                      0,
                      bits_of_float(CLGPU_TYPE_FLOAT, -3.0),
                      bits_of_float(CLGPU_TYPE_FLOAT, 5.5),
                      NULL};
      hist_case c = {
          "broadcast", def, n, shapes[s], CLGPU_TYPE_UINT64, 0, 1, 1, (const unsigned char *)data};
      run_case(&c, NULL);
      free(data);
    }
  }

  /* N-D inputs: a transposed 2-D view and a 3-D view with a negative
   * stride are packed ("packed_input" holds every element); a contiguous
   * 2-D view is not. */
  const size_t rows = oclgrind() ? 37 : 301, cols = oclgrind() ? 41 : 123;
  view_spec specs[3];
  memset(specs, 0, sizeof specs);
  specs[0].rank = 2; /* transposed: shape cols x rows over a rows x cols block */
  specs[0].shape[0] = cols;
  specs[0].shape[1] = rows;
  specs[0].strides[0] = 1;
  specs[0].strides[1] = (ptrdiff_t)cols;
  specs[1].rank = 3;
  specs[1].shape[0] = 3;
  specs[1].shape[1] = rows / 3;
  specs[1].shape[2] = 5;
  specs[1].strides[0] = -(ptrdiff_t)(rows / 3 * 14);
  specs[1].strides[1] = 14;
  specs[1].strides[2] = 2;
  specs[2].rank = 2;
  specs[2].shape[0] = rows;
  specs[2].shape[1] = cols;
  specs[2].strides[0] = (ptrdiff_t)cols;
  specs[2].strides[1] = 1;
  for (size_t v = 0; v < 3; v++) {
    for (size_t s = 0; s < 2; s++) {
      for (int by_edges = 0; by_edges < 2; by_edges++) {
        clgpu_type t = v == 1 ? CLGPU_TYPE_INT8 : CLGPU_TYPE_DOUBLE;
        if (t == CLGPU_TYPE_DOUBLE && !fp64()) t = CLGPU_TYPE_FLOAT;
        size_t count = spec_count(&specs[v]), size = clgpu_type_size(t);
        bins_def def = {t, 19, by_edges, 0, 0, NULL};
        unsigned char *edges = NULL;
        if (by_edges) {
          edges = make_edges(t, def.bins, test_case_seed("nd edges") + v);
          def.edges = edges;
        } else if (is_float(t)) {
          def.lower = bits_of_float(t, -1.0);
          def.upper = bits_of_float(t, 1.0);
        } else {
          def.lower = bits_of_int(t, -50);
          def.upper = bits_of_int(t, 60);
        }
        char label[128];
        snprintf(label, sizeof label, "%u-D view %zu of %zu %s, %s, %s", specs[v].rank, v, count,
                 type_name(t), by_edges ? "edges" : "even", clgpu_shape_name(shapes[s]));
        uint64_t seed = test_case_seed(label);
        unsigned char *data = make_input(&def, count, seed);
        uint64_t *expected = malloc((def.bins + 1) * sizeof *expected);
        uint64_t *got = malloc((def.bins + 1) * sizeof *got);
        assert_non_null(expected);
        assert_non_null(got);
        reference(&def, data, count, expected);
        placed_nd in = place_nd(&specs[v], t, data, seed + 1);
        test_placed edge_view;
        memset(&edge_view, 0, sizeof edge_view);
        if (by_edges) edge_view = test_place(context, edges, def.bins + 1, size, t, 1, seed + 2);
        unsigned char *junk = random_bytes(def.bins * 4 + 8, seed + 3);
        test_placed counts = test_place(context, junk, def.bins, 4, CLGPU_TYPE_UINT32, 1, seed + 4);
        clgpu_call_options options = {.shape = shapes[s]};
        clgpu_workspace_size report;
        if (by_edges) {
          assert_status(clgpu_histogram_edges_workspace_size(context, &counts.view, &in.view,
                                                             &edge_view.view, &options, &report),
                        CLGPU_SUCCESS);
        } else {
          assert_status(even_query(context, &counts.view, &in.view, &def.lower, &def.upper,
                                   &options, &report),
                        CLGPU_SUCCESS);
        }
        assert_string_equal(report.buffers[0].name, "packed_input");
        assert_int_equal(report.buffers[0].count, v == 2 ? 0 : count);
        assert_int_equal(report.buffers[0].type, t);
        clgpu_workspace *workspace =
            by_edges ? pool_edges(&options, &counts.view, &in.view, &edge_view.view)
                     : pool_even(&options, &counts.view, &in.view, &def.lower, &def.upper);
        clgpu_status status = by_edges
                                  ? clgpu_histogram_edges(context, &counts.view, &in.view,
                                                          &edge_view.view, &options, 0, NULL, NULL)
                                  : even_call(context, &counts.view, &in.view, &def.lower,
                                              &def.upper, &options, 0, NULL, NULL);
        if (status != CLGPU_SUCCESS) {
          fail_msg("%s: %s: %s", label, clgpu_status_name(status), clgpu_last_error());
        }
        clgpu_workspace_destroy(workspace);
        read_placed(&counts, 4, got);
        compare_counts(got, expected, def.bins, label);
        unsigned char *wanted = counts_bytes(expected, def.bins, CLGPU_TYPE_UINT32);
        test_placed_check(context, &counts, 4, wanted, def.bins, label, "counts");
        /* The input is unchanged, guards included. */
        unsigned char *region = malloc(in.region_bytes);
        assert_non_null(region);
        test_guarded_read(context, &in.guarded, region);
        assert_memory_equal(region, in.region, in.region_bytes);
        test_guarded_check(context, &in.guarded, label);
        free(region);
        free(wanted);
        test_guarded_release(&in.guarded);
        free(in.region);
        if (by_edges) test_placed_release(&edge_view);
        test_placed_release(&counts);
        free(junk);
        free(data);
        free(edges);
        free(expected);
        free(got);
      }
    }
  }

  /* Counts over their own input, and over their own edges: the counts are
   * written after every element and edge was read. */
  size_t m = oclgrind() ? 2000 : 20000;
  const size_t over_bins[] = {7, (size_t)local_bins() + 10};
  for (size_t s = 0; s < 2; s++) {
    for (size_t bi = 0; bi < 2; bi++) {
      for (int by_edges = 0; by_edges < 2; by_edges++) {
        size_t bins = over_bins[bi];
        size_t total = (m > bins + 1 ? m : bins + 1) + 8;
        uint32_t *image = malloc(total * 4);
        uint32_t *back = malloc(total * 4);
        uint64_t *expected = malloc((bins + 1) * sizeof *expected);
        assert_non_null(image);
        assert_non_null(back);
        assert_non_null(expected);
        test_rng rng;
        test_rng_init(
            &rng, test_case_seed("counts over their input") + s * 4 + bi * 2 + (uint64_t)by_edges);
        bins_def def = {CLGPU_TYPE_UINT32, bins, by_edges, 100, 100 + (uint64_t)bins * 5 + 3, NULL};
        if (by_edges) {
          /* The edges are the buffer's first bins + 1 values, the input
           * the first m; the counts lie over both. */
          for (size_t k = 0; k < total; k++) image[k] = (uint32_t)test_rng_below(&rng, 8 * bins);
          qsort(image, bins + 1, 4, compare_u32_for_edges);
          def.edges = (const unsigned char *)image;
        } else {
          for (size_t k = 0; k < total; k++) {
            image[k] = (uint32_t)test_rng_below(&rng, 100 + bins * 5 + 400);
          }
        }
        reference(&def, (const unsigned char *)image, m, expected);
        cl_mem buffer = NULL;
        assert_status(clgpu_buffer_create(context, CL_MEM_READ_WRITE, total * 4, &buffer),
                      CLGPU_SUCCESS);
        assert_int_equal(clEnqueueWriteBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 0,
                                              total * 4, image, 0, NULL, NULL),
                         CL_SUCCESS);
        clgpu_array input, counts, edges;
        assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT32, m, &input), CLGPU_SUCCESS);
        assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT32, bins, &counts), CLGPU_SUCCESS);
        assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT32, bins + 1, &edges),
                      CLGPU_SUCCESS);
        clgpu_call_options options = {.shape = shapes[s]};
        clgpu_workspace *workspace =
            by_edges ? pool_edges(&options, &counts, &input, &edges)
                     : pool_even(&options, &counts, &input, &def.lower, &def.upper);
        clgpu_status status = by_edges ? clgpu_histogram_edges(context, &counts, &input, &edges,
                                                               &options, 0, NULL, NULL)
                                       : even_call(context, &counts, &input, &def.lower, &def.upper,
                                                   &options, 0, NULL, NULL);
        assert_status(status, CLGPU_SUCCESS);
        clgpu_workspace_destroy(workspace);
        assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 0,
                                             total * 4, back, 0, NULL, NULL),
                         CL_SUCCESS);
        for (size_t b = 0; b < bins; b++) {
          if (back[b] != expected[b]) {
            fail_msg("counts over their %s (%zu bins, %s): bin %zu is %u, expected %llu",
                     by_edges ? "edges and input" : "input", bins, clgpu_shape_name(shapes[s]), b,
                     back[b], (unsigned long long)expected[b]);
          }
        }
        assert_memory_equal(back + bins, image + bins, (total - bins) * 4);
        clgpu_buffer_release(context, buffer);
        free(image);
        free(back);
        free(expected);
      }
    }
  }
}

/* ---- workspaces ---- */

/* Whether every buffer of `need` fits in the same buffer of `has`. */
static int report_fits(const clgpu_workspace_size *need, const clgpu_workspace_size *has) {
  if (need->num_buffers != has->num_buffers) return 0;
  for (unsigned i = 0; i < need->num_buffers; i++) {
    if (need->buffers[i].bytes > has->buffers[i].bytes) return 0;
  }
  return need->total_bytes <= has->total_bytes;
}

static void check_report(const clgpu_workspace_size *report, clgpu_shape shape) {
  assert_int_equal(report->num_parts, 1);
  assert_int_equal(report->parts[0].operation, CLGPU_OPERATION_HISTOGRAM);
  assert_int_equal(report->parts[0].shape, shape);
  assert_int_equal(report->parts[0].parent, -1);
  assert_int_equal(report->num_buffers, 2);
  assert_string_equal(report->buffers[0].name, "packed_input");
  assert_string_equal(report->buffers[1].name, "rows");
  assert_int_equal(report->buffers[1].type, CLGPU_TYPE_UINT32);
}

/* The size queries: what a call needs, served by a workspace of that
 * size; _upto serving every call it covers (bins past the local budget
 * included); workspaces too small, of another shape or of another
 * operation refused, the counts unchanged. */
static void workspaces(void **state) {
  (void)state;
  size_t max_n = oclgrind() ? 3000 : 100000;
  size_t budget = (size_t)local_bins();
  size_t max_bins = budget + 500;
  const clgpu_type types[] = {CLGPU_TYPE_UINT16, CLGPU_TYPE_FLOAT, CLGPU_TYPE_DOUBLE};
  const size_t pairs[][2] = {{0, 1},
                             {1, 1},
                             {17, 7},
                             {1000, 256},
                             {max_n, 256},
                             {max_n, 3},
                             {max_n, 1},
                             {max_n / 2, budget},
                             {max_n - 1, budget + 1},
                             {1000, max_bins},
                             {max_n, max_bins}};
  const size_t pair_count = sizeof pairs / sizeof pairs[0];
  for (size_t ti = 0; ti < (oclgrind() ? 2u : 3u); ti++) {
    clgpu_type t = types[ti];
    if (t == CLGPU_TYPE_DOUBLE && !fp64()) {
      printf("# workspaces: double skipped: the device has no cl_khr_fp64\n");
      continue;
    }
    size_t size = clgpu_type_size(t);
    bins_def even = {t, 1, 0, 0, 0, NULL};
    if (is_float(t)) {
      even.lower = bits_of_float(t, -3.0);
      even.upper = bits_of_float(t, 5.5);
    } else {
      even.lower = bits_of_int(t, 5);
      even.upper = bits_of_int(t, 65000);
    }
    unsigned char *edges = make_edges(t, max_bins, test_case_seed("workspace edges") + ti);
    bins_def by_edges = {t, max_bins, 1, 0, 0, edges};
    /* Data for both kinds of bins: half for the even ones, half for the
     * edges, shuffled by taking them in turns. */
    unsigned char *a = make_input(&even, max_n, test_case_seed("workspace data") + ti);
    unsigned char *b = make_input(&by_edges, max_n, test_case_seed("workspace data 2") + ti);
    unsigned char *data = malloc(max_n * size + 8);
    assert_non_null(data);
    for (size_t i = 0; i < max_n; i++) memcpy(data + i * size, (i % 2 ? a : b) + i * size, size);
    free(a);
    free(b);
    test_placed in = test_place(context, data, max_n, size, t, 1, 11 + ti);
    test_placed edge_view = test_place(context, edges, max_bins + 1, size, t, 1, 12 + ti);
    unsigned char *junk = random_bytes(max_bins * 8 + 8, 13 + ti);
    test_placed counts = test_place(context, junk, max_bins, 8, CLGPU_TYPE_UINT64, 1, 14 + ti);
    uint64_t *expected = malloc((max_bins + 1) * sizeof *expected);
    uint64_t *got = malloc((max_bins + 1) * sizeof *got);
    assert_non_null(expected);
    assert_non_null(got);
    for (size_t s = 0; s < 2; s++) {
      clgpu_call_options options = {.shape = shapes[s]};
      clgpu_workspace_size upto;
      assert_status(
          clgpu_histogram_workspace_size_upto(context, t, max_n, max_bins, &options, &upto),
          CLGPU_SUCCESS);
      check_report(&upto, shapes[s]);
      assert_int_equal(upto.buffers[0].count, 0);
      clgpu_workspace *shared = make_workspace(&upto);
      for (size_t p = 0; p < pair_count; p++) {
        size_t n = pairs[p][0], bins = pairs[p][1];
        for (int kind = 0; kind < 2; kind++) {
          char label[160];
          snprintf(label, sizeof label, "workspaces: %zu %s in %zu bins %s, %s", n, type_name(t),
                   bins, kind ? "by edges" : "even", clgpu_shape_name(shapes[s]));
          clgpu_array input, edge_array, count_array;
          assert_status(clgpu_array_1d(in.guarded.buffer, in.view.offset, t, n, &input),
                        CLGPU_SUCCESS);
          assert_status(clgpu_array_1d(edge_view.guarded.buffer, edge_view.view.offset, t, bins + 1,
                                       &edge_array),
                        CLGPU_SUCCESS);
          assert_status(clgpu_array_1d(counts.guarded.buffer, counts.view.offset, CLGPU_TYPE_UINT64,
                                       bins, &count_array),
                        CLGPU_SUCCESS);
          bins_def def = kind ? by_edges : even;
          def.bins = bins;
          reference(&def, data, n, expected);
          clgpu_workspace_size need;
          if (kind) {
            assert_status(clgpu_histogram_edges_workspace_size(context, &count_array, &input,
                                                               &edge_array, &options, &need),
                          CLGPU_SUCCESS);
          } else {
            assert_status(
                even_query(context, &count_array, &input, &def.lower, &def.upper, &options, &need),
                CLGPU_SUCCESS);
          }
          check_report(&need, shapes[s]);
          assert_int_equal(need.buffers[0].count, 0);
          if (n > 0) assert_true(need.buffers[1].count >= bins);
          if (!report_fits(&need, &upto)) {
            fail_msg("%s: the call needs %llu bytes of rows, _upto(%zu, %zu) gave %llu", label,
                     (unsigned long long)need.buffers[1].bytes, max_n, max_bins,
                     (unsigned long long)upto.buffers[1].bytes);
          }
          /* A workspace of exactly what the query says, then _upto's. */
          clgpu_workspace *exact = make_workspace(&need);
          for (int which = 0; which < 2; which++) {
            options.workspace = which ? shared : exact;
            clgpu_status status = kind ? clgpu_histogram_edges(context, &count_array, &input,
                                                               &edge_array, &options, 0, NULL, NULL)
                                       : even_call(context, &count_array, &input, &def.lower,
                                                   &def.upper, &options, 0, NULL, NULL);
            if (status != CLGPU_SUCCESS) {
              fail_msg("%s (%s workspace): %s: %s", label, which ? "_upto" : "exact",
                       clgpu_status_name(status), clgpu_last_error());
            }
            assert_status(clgpu_array_read(context, got, bins * 8, &count_array, 0, NULL),
                          CLGPU_SUCCESS);
            compare_counts(got, expected, bins, label);
            /* Put back the junk, so that the next call must write. */
            restore_placed(&counts);
          }
          options.workspace = NULL;
          clgpu_workspace_destroy(exact);
        }
      }
      test_guarded_check(context, &counts.guarded, "workspaces");

      /* Refused: the counts region stays as it is. */
      unsigned char *before = malloc(counts.region_bytes);
      unsigned char *after = malloc(counts.region_bytes);
      assert_non_null(before);
      assert_non_null(after);
      test_guarded_read(context, &counts.guarded, before);
      clgpu_array input, count_array;
      assert_status(clgpu_array_1d(in.guarded.buffer, in.view.offset, t, max_n, &input),
                    CLGPU_SUCCESS);
      assert_status(clgpu_array_1d(counts.guarded.buffer, counts.view.offset, CLGPU_TYPE_UINT64,
                                   256, &count_array),
                    CLGPU_SUCCESS);
      clgpu_workspace_size need, small;
      options.workspace = NULL;
      assert_status(
          even_query(context, &count_array, &input, &even.lower, &even.upper, &options, &need),
          CLGPU_SUCCESS);
      /* Too small: sized for 10 elements in 1 bin. */
      assert_status(clgpu_histogram_workspace_size_upto(context, t, 10, 1, &options, &small),
                    CLGPU_SUCCESS);
      assert_true(small.buffers[1].bytes < need.buffers[1].bytes);
      clgpu_workspace *workspace = make_workspace(&small);
      options.workspace = workspace;
      assert_status(even_call(context, &count_array, &input, &even.lower, &even.upper, &options, 0,
                              NULL, NULL),
                    CLGPU_WORKSPACE_TOO_SMALL);
      assert_non_null(strstr(clgpu_last_error(), "clgpu_histogram_even"));
      clgpu_workspace_destroy(workspace);
      /* A packed input needs "packed_input", which _upto leaves out. */
      clgpu_array two_d;
      assert_status(clgpu_array_strided(in.guarded.buffer, in.view.offset, t, 2, (size_t[]){30, 50},
                                        (ptrdiff_t[]){1, 30}, &two_d),
                    CLGPU_SUCCESS);
      options.workspace = shared;
      assert_status(even_call(context, &count_array, &two_d, &even.lower, &even.upper, &options, 0,
                              NULL, NULL),
                    CLGPU_WORKSPACE_TOO_SMALL);
      /* Of the other shape. */
      clgpu_call_options other = {.shape = shapes[1 - s], .workspace = shared};
      assert_status(
          even_call(context, &count_array, &input, &even.lower, &even.upper, &other, 0, NULL, NULL),
          CLGPU_WORKSPACE_WRONG_ALGORITHM);
      /* Of another operation. */
      clgpu_reduce_op sum = {.kind = CLGPU_REDUCE_SUM};
      clgpu_workspace_size reduce_report;
      options.workspace = NULL;
      assert_status(
          clgpu_reduce_workspace_size_upto(context, &sum, t, max_n, &options, &reduce_report),
          CLGPU_SUCCESS);
      clgpu_workspace *reduce_workspace = make_workspace(&reduce_report);
      options.workspace = reduce_workspace;
      assert_status(even_call(context, &count_array, &input, &even.lower, &even.upper, &options, 0,
                              NULL, NULL),
                    CLGPU_WORKSPACE_WRONG_OPERATION);
      clgpu_array edge_array;
      assert_status(
          clgpu_array_1d(edge_view.guarded.buffer, edge_view.view.offset, t, 257, &edge_array),
          CLGPU_SUCCESS);
      assert_status(clgpu_histogram_edges(context, &count_array, &input, &edge_array, &options, 0,
                                          NULL, NULL),
                    CLGPU_WORKSPACE_WRONG_OPERATION);
      assert_non_null(strstr(clgpu_last_error(), "clgpu_histogram_edges"));
      clgpu_workspace_destroy(reduce_workspace);
      clgpu_workspace_destroy(shared);
      test_guarded_read(context, &counts.guarded, after);
      assert_memory_equal(before, after, counts.region_bytes);
      free(before);
      free(after);
    }
    test_placed_release(&in);
    test_placed_release(&edge_view);
    test_placed_release(&counts);
    free(junk);
    free(data);
    free(edges);
    free(expected);
    free(got);
  }
}

/* ---- events ---- */

/* The call waits for its wait list (the counts unchanged until the gate
 * opens) and its event completes with the counts written; a call with no
 * bins still gives an event. */
static void wait_list_and_event(void **state) {
  (void)state;
  size_t n = 5000;
  for (int kind = 0; kind < 2; kind++) {
    uint32_t *data = malloc(n * 4);
    assert_non_null(data);
    for (size_t i = 0; i < n; i++) data[i] = (uint32_t)(i * 7 % 101);
    unsigned char *edges = make_edges(CLGPU_TYPE_UINT32, 13, 99);
    bins_def def = {CLGPU_TYPE_UINT32, 13, kind, 3, 90, edges};
    uint64_t expected[13], got[13];
    reference(&def, (const unsigned char *)data, n, expected);
    test_placed in = test_place(context, data, n, 4, CLGPU_TYPE_UINT32, 1, 1);
    test_placed edge_view = test_place(context, edges, 14, 4, CLGPU_TYPE_UINT32, 1, 2);
    unsigned char *junk = random_bytes(13 * 4, 3);
    test_placed counts = test_place(context, junk, 13, 4, CLGPU_TYPE_UINT32, 1, 4);
    cl_int err = CL_SUCCESS;
    test_gate_opener opener = {NULL, NULL, CL_COMPLETE};
    opener.gate = clCreateUserEvent(clgpu_context_cl_context(context), &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_event done = NULL;
    clgpu_call_options options = {.shape = CLGPU_SHAPE_AUTO};
    clgpu_workspace *workspace =
        kind ? pool_edges(&options, &counts.view, &in.view, &edge_view.view)
             : pool_even(&options, &counts.view, &in.view, &def.lower, &def.upper);
    clgpu_status status =
        kind ? clgpu_histogram_edges(context, &counts.view, &in.view, &edge_view.view, &options, 1,
                                     &opener.gate, &done)
             : even_call(context, &counts.view, &in.view, &def.lower, &def.upper, &options, 1,
                         &opener.gate, &done);
    assert_status(status, CLGPU_SUCCESS);
    assert_non_null(done);
    /* Before the gate opens, the counts are as they were (read through a
     * queue of their own, which does not wait for the call). */
    cl_command_queue reader = clCreateCommandQueue(clgpu_context_cl_context(context),
                                                   clgpu_context_device(context), 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    unsigned char *region = malloc(counts.region_bytes);
    assert_non_null(region);
    assert_int_equal(
        clEnqueueReadBuffer(reader, counts.guarded.buffer, CL_TRUE, counts.guarded.offset,
                            counts.region_bytes, region, 0, NULL, NULL),
        CL_SUCCESS);
    assert_memory_equal(region, counts.region, counts.region_bytes);
    assert_true(test_event_status(done) != CL_COMPLETE);
    clReleaseCommandQueue(reader);
    free(region);
    opener.call = done;
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, test_open_gate_later, &opener), 0);
    assert_int_equal(clFlush(clgpu_context_queue(context)), CL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    assert_int_equal(pthread_join(thread, NULL), 0);
    if (opener.call_status_before_opening == CL_COMPLETE) {
      fail_msg("the histogram completed before its wait list");
    }
    assert_int_equal(test_event_status(done), CL_COMPLETE);
    read_placed(&counts, 4, got);
    compare_counts(got, expected, 13, kind ? "after the gate, by edges" : "after the gate, even");
    clReleaseEvent(done);
    clReleaseEvent(opener.gate);
    clgpu_workspace_destroy(workspace);

    /* No bins: nothing written, an event all the same. */
    clgpu_array none, one_edge;
    assert_status(
        clgpu_array_1d(counts.guarded.buffer, counts.view.offset, CLGPU_TYPE_UINT32, 0, &none),
        CLGPU_SUCCESS);
    assert_status(clgpu_array_1d(edge_view.guarded.buffer, edge_view.view.offset, CLGPU_TYPE_UINT32,
                                 1, &one_edge),
                  CLGPU_SUCCESS);
    restore_placed(&counts);
    done = NULL;
    status =
        kind ? clgpu_histogram_edges(context, &none, &in.view, &one_edge, NULL, 0, NULL, &done)
             : even_call(context, &none, &in.view, &def.lower, &def.upper, NULL, 0, NULL, &done);
    assert_status(status, CLGPU_SUCCESS);
    assert_non_null(done);
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    test_placed_check(context, &counts, 4, junk, 0, "no bins", "counts");
    test_placed_release(&in);
    test_placed_release(&edge_view);
    test_placed_release(&counts);
    free(junk);
    free(edges);
    free(data);
  }
}

/* ---- misuse: each refused with its status, the counts unchanged ---- */

static void misuse(void **state) {
  (void)state;
  /* 256 uint elements (their bytes also read as float and as other
   * types), 16 uint counts, 17 uint edges, each guarded. */
  uint32_t data[256];
  for (uint32_t i = 0; i < 256; i++) data[i] = i * 3;
  unsigned char *edge_bytes = make_edges(CLGPU_TYPE_UINT32, 16, 5);
  test_placed in = test_place(context, data, 256, 4, CLGPU_TYPE_UINT32, 1, 21);
  test_placed edges = test_place(context, edge_bytes, 17, 4, CLGPU_TYPE_UINT32, 1, 22);
  unsigned char *junk = random_bytes(16 * 8, 23);
  test_placed counts = test_place(context, junk, 16, 4, CLGPU_TYPE_UINT32, 1, 24);
  cl_mem buffer = in.guarded.buffer;
  size_t at = in.view.offset;
  clgpu_array floats, halves, doubles, opaque, huge, int_counts, float_counts, short_counts,
      two_d_counts, broadcast_counts, int_edges, short_edges, long_edges, two_d_edges;
  assert_status(clgpu_array_1d(buffer, at, CLGPU_TYPE_FLOAT, 256, &floats), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, at, CLGPU_TYPE_HALF, 512, &halves), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, at + at % 8, CLGPU_TYPE_DOUBLE, 120, &doubles),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, at, CLGPU_TYPE_UINT8, 1024, &opaque), CLGPU_SUCCESS);
  opaque.type = CLGPU_TYPE_OPAQUE;
  assert_status(clgpu_array_strided(buffer, at, CLGPU_TYPE_UINT32, 1,
                                    (size_t[]){(size_t)UINT32_MAX + 1}, (ptrdiff_t[]){0}, &huge),
                CLGPU_SUCCESS);
  cl_mem out = counts.guarded.buffer;
  size_t out_at = counts.view.offset;
  assert_status(clgpu_array_1d(out, out_at, CLGPU_TYPE_INT32, 16, &int_counts), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(out, out_at, CLGPU_TYPE_FLOAT, 16, &float_counts), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(out, out_at, CLGPU_TYPE_UINT16, 16, &short_counts), CLGPU_SUCCESS);
  assert_status(clgpu_array_nd(out, out_at, CLGPU_TYPE_UINT32, 2, (size_t[]){4, 4},
                               CLGPU_ORDER_ROW_MAJOR, &two_d_counts),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_strided(out, out_at, CLGPU_TYPE_UINT32, 1, (size_t[]){16},
                                    (ptrdiff_t[]){0}, &broadcast_counts),
                CLGPU_SUCCESS);
  cl_mem edge_buffer = edges.guarded.buffer;
  size_t edge_at = edges.view.offset;
  assert_status(clgpu_array_1d(edge_buffer, edge_at, CLGPU_TYPE_INT32, 17, &int_edges),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(edge_buffer, edge_at, CLGPU_TYPE_UINT32, 16, &short_edges),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(edge_buffer, edge_at, CLGPU_TYPE_UINT32, 18, &long_edges),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_nd(edge_buffer, edge_at, CLGPU_TYPE_UINT32, 2, (size_t[]){1, 17},
                               CLGPU_ORDER_ROW_MAJOR, &two_d_edges),
                CLGPU_SUCCESS);
  /* Read-only counts. */
  cl_int err = CL_SUCCESS;
  cl_mem read_only =
      clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_ONLY, 256, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  clgpu_array read_only_counts;
  assert_status(clgpu_array_1d(read_only, 0, CLGPU_TYPE_UINT32, 16, &read_only_counts),
                CLGPU_SUCCESS);

  uint32_t lo = 10, hi = 300, nine = 9, three = 3;
  float f_lo = -1.0f, f_hi = 2.0f, f_nan = NAN, f_inf = INFINITY, f_tiny = 1e-45f, f_zero = 0.0f;
  float f_neg_inf = -INFINITY;
  double d_zero = 0.0, d_tiny = 4.9e-324;
  uint16_t h_nan = 0x7e00, h_one = 0x3c00;
  clgpu_call_options bad_shape = {.shape = (clgpu_shape)7};
  cl_event missing = NULL;
  const clgpu_array *c = &counts.view, *x = &in.view, *e = &edges.view;
  struct {
    const char *name;
    clgpu_status expected;
    int by_edges;
    clgpu_context *ctx;
    const clgpu_array *counts, *input;
    const void *lower, *upper;
    const clgpu_array *edges;
    const clgpu_call_options *options;
    cl_uint num_events;
    const cl_event *wait_list;
  } rows[] = {
      {"NULL context", CLGPU_INVALID_ARGUMENT, 0, NULL, c, x, &lo, &hi, NULL, NULL, 0, NULL},
      {"NULL counts", CLGPU_INVALID_ARGUMENT, 0, context, NULL, x, &lo, &hi, NULL, NULL, 0, NULL},
      {"NULL input", CLGPU_INVALID_ARGUMENT, 0, context, c, NULL, &lo, &hi, NULL, NULL, 0, NULL},
      {"NULL lower", CLGPU_INVALID_ARGUMENT, 0, context, c, x, NULL, &hi, NULL, NULL, 0, NULL},
      {"NULL upper", CLGPU_INVALID_ARGUMENT, 0, context, c, x, &lo, NULL, NULL, NULL, 0, NULL},
      {"lower above upper", CLGPU_INVALID_ARGUMENT, 0, context, c, x, &nine, &three, NULL, NULL, 0,
       NULL},
      {"float lower equal to upper", CLGPU_INVALID_ARGUMENT, 0, context, c, &floats, &f_hi, &f_hi,
       NULL, NULL, 0, NULL},
      {"float lower above upper", CLGPU_INVALID_ARGUMENT, 0, context, c, &floats, &f_hi, &f_lo,
       NULL, NULL, 0, NULL},
      {"NaN lower", CLGPU_INVALID_ARGUMENT, 0, context, c, &floats, &f_nan, &f_hi, NULL, NULL, 0,
       NULL},
      {"NaN upper", CLGPU_INVALID_ARGUMENT, 0, context, c, &floats, &f_lo, &f_nan, NULL, NULL, 0,
       NULL},
      {"infinite upper", CLGPU_INVALID_ARGUMENT, 0, context, c, &floats, &f_lo, &f_inf, NULL, NULL,
       0, NULL},
      {"infinite lower", CLGPU_INVALID_ARGUMENT, 0, context, c, &floats, &f_neg_inf, &f_hi, NULL,
       NULL, 0, NULL},
      {"float bins whose inverse width float cannot hold", CLGPU_INVALID_ARGUMENT, 0, context, c,
       &floats, &f_zero, &f_tiny, NULL, NULL, 0, NULL},
      {"half NaN lower", CLGPU_INVALID_ARGUMENT, 0, context, c, &halves, &h_nan, &h_one, NULL, NULL,
       0, NULL},
      {"int counts", CLGPU_TYPE_MISMATCH, 0, context, &int_counts, x, &lo, &hi, NULL, NULL, 0,
       NULL},
      {"float counts", CLGPU_TYPE_MISMATCH, 0, context, &float_counts, x, &lo, &hi, NULL, NULL, 0,
       NULL},
      {"ushort counts", CLGPU_TYPE_MISMATCH, 0, context, &short_counts, x, &lo, &hi, NULL, NULL, 0,
       NULL},
      {"uint counts for 2^32 elements", CLGPU_TYPE_MISMATCH, 0, context, c, &huge, &lo, &hi, NULL,
       NULL, 0, NULL},
      {"2-D counts", CLGPU_SHAPE_MISMATCH, 0, context, &two_d_counts, x, &lo, &hi, NULL, NULL, 0,
       NULL},
      {"counts of stride 0", CLGPU_INVALID_OUTPUT, 0, context, &broadcast_counts, x, &lo, &hi, NULL,
       NULL, 0, NULL},
      {"read-only counts", CLGPU_INVALID_OUTPUT, 0, context, &read_only_counts, x, &lo, &hi, NULL,
       NULL, 0, NULL},
      {"opaque input", CLGPU_TYPE_MISMATCH, 0, context, c, &opaque, &lo, &hi, NULL, NULL, 0, NULL},
      {"an unknown shape", CLGPU_INVALID_ARGUMENT, 0, context, c, x, &lo, &hi, NULL, &bad_shape, 0,
       NULL},
      {"a wait list without events", CLGPU_INVALID_ARGUMENT, 0, context, c, x, &lo, &hi, NULL, NULL,
       1, NULL},
      {"a NULL event in the wait list", CLGPU_CL_INVALID_EVENT_WAIT_LIST, 0, context, c, x, &lo,
       &hi, NULL, NULL, 1, &missing},
      {"NULL context", CLGPU_INVALID_ARGUMENT, 1, NULL, c, x, NULL, NULL, e, NULL, 0, NULL},
      {"NULL counts", CLGPU_INVALID_ARGUMENT, 1, context, NULL, x, NULL, NULL, e, NULL, 0, NULL},
      {"NULL input", CLGPU_INVALID_ARGUMENT, 1, context, c, NULL, NULL, NULL, e, NULL, 0, NULL},
      {"NULL edges", CLGPU_INVALID_ARGUMENT, 1, context, c, x, NULL, NULL, NULL, NULL, 0, NULL},
      {"edges of another type", CLGPU_TYPE_MISMATCH, 1, context, c, x, NULL, NULL, &int_edges, NULL,
       0, NULL},
      {"as many edges as bins", CLGPU_SHAPE_MISMATCH, 1, context, c, x, NULL, NULL, &short_edges,
       NULL, 0, NULL},
      {"two edges more than bins", CLGPU_SHAPE_MISMATCH, 1, context, c, x, NULL, NULL, &long_edges,
       NULL, 0, NULL},
      {"2-D edges", CLGPU_SHAPE_MISMATCH, 1, context, c, x, NULL, NULL, &two_d_edges, NULL, 0,
       NULL},
      {"int counts", CLGPU_TYPE_MISMATCH, 1, context, &int_counts, x, NULL, NULL, e, NULL, 0, NULL},
      {"2-D counts", CLGPU_SHAPE_MISMATCH, 1, context, &two_d_counts, x, NULL, NULL, e, NULL, 0,
       NULL},
      {"counts of stride 0", CLGPU_INVALID_OUTPUT, 1, context, &broadcast_counts, x, NULL, NULL, e,
       NULL, 0, NULL},
      {"read-only counts", CLGPU_INVALID_OUTPUT, 1, context, &read_only_counts, x, NULL, NULL, e,
       NULL, 0, NULL},
      {"opaque input", CLGPU_TYPE_MISMATCH, 1, context, c, &opaque, NULL, NULL, e, NULL, 0, NULL},
      {"float input, uint edges", CLGPU_TYPE_MISMATCH, 1, context, c, &floats, NULL, NULL, e, NULL,
       0, NULL},
      {"a wait list without events", CLGPU_INVALID_ARGUMENT, 1, context, c, x, NULL, NULL, e, NULL,
       1, NULL},
  };
  for (int form = 0; form < 2; form++) {
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
      if (form == 1 && rows[r].num_events > 0) continue; /* the queries take no wait list */
      clgpu_workspace_size report;
      clgpu_status status;
      if (rows[r].by_edges) {
        status = form == 0 ? clgpu_histogram_edges(rows[r].ctx, rows[r].counts, rows[r].input,
                                                   rows[r].edges, rows[r].options,
                                                   rows[r].num_events, rows[r].wait_list, NULL)
                           : clgpu_histogram_edges_workspace_size(rows[r].ctx, rows[r].counts,
                                                                  rows[r].input, rows[r].edges,
                                                                  rows[r].options, &report);
      } else {
        status = form == 0 ? even_call(rows[r].ctx, rows[r].counts, rows[r].input, rows[r].lower,
                                       rows[r].upper, rows[r].options, rows[r].num_events,
                                       rows[r].wait_list, NULL)
                           : even_query(rows[r].ctx, rows[r].counts, rows[r].input, rows[r].lower,
                                        rows[r].upper, rows[r].options, &report);
      }
      const char *who = rows[r].by_edges ? "clgpu_histogram_edges" : "clgpu_histogram_even";
      if (status != rows[r].expected) {
        fail_msg("%s: %s (%s): %s, expected %s: %s", who, rows[r].name, form ? "query" : "call",
                 clgpu_status_name(status), clgpu_status_name(rows[r].expected),
                 clgpu_last_error());
      }
      if (!strstr(clgpu_last_error(), who)) {
        fail_msg("%s: %s (%s): the message does not name the function: %s", who, rows[r].name,
                 form ? "query" : "call", clgpu_last_error());
      }
    }
  }
  /* Double: without cl_khr_fp64 refused; with it, bins whose inverse
   * width double cannot hold. */
  assert_status(even_call(context, c, &doubles, &d_zero, &d_tiny, NULL, 0, NULL, NULL),
                fp64() ? CLGPU_INVALID_ARGUMENT : CLGPU_UNSUPPORTED_FEATURE);
  assert_non_null(strstr(clgpu_last_error(), "clgpu_histogram_even"));
  /* The queries' own argument. */
  assert_status(even_query(context, c, x, &lo, &hi, NULL, NULL), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_histogram_edges_workspace_size(context, c, x, e, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  clgpu_workspace_size report;
  assert_status(clgpu_histogram_workspace_size_upto(NULL, CLGPU_TYPE_UINT32, 1, 1, NULL, &report),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_histogram_workspace_size_upto(context, CLGPU_TYPE_UINT32, 1, 1, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_histogram_workspace_size_upto(context, (clgpu_type)99, 1, 1, NULL, &report),
                CLGPU_INVALID_ARGUMENT);
  assert_status(
      clgpu_histogram_workspace_size_upto(context, CLGPU_TYPE_OPAQUE, 1, 1, NULL, &report),
      CLGPU_TYPE_MISMATCH);
  assert_non_null(strstr(clgpu_last_error(), "clgpu_histogram_workspace_size_upto"));
  assert_status(
      clgpu_histogram_workspace_size_upto(context, CLGPU_TYPE_UINT32, 1, 1, &bad_shape, &report),
      CLGPU_INVALID_ARGUMENT);
  if (!fp64()) {
    assert_status(
        clgpu_histogram_workspace_size_upto(context, CLGPU_TYPE_DOUBLE, 1, 1, NULL, &report),
        CLGPU_UNSUPPORTED_FEATURE);
  }

  /* Nothing was written: counts, input and edges as they were. */
  test_placed_check(context, &counts, 4, junk, 0, "misuse", "counts");
  test_placed_check(context, &in, 4, (const unsigned char *)data, 0, "misuse", "input");
  test_placed_check(context, &edges, 4, edge_bytes, 0, "misuse", "edges");

  /* Allowed: no bins (nothing written), and an integer range of a single
   * value (every element equal to it in the first bin). */
  clgpu_array none, one_edge;
  assert_status(clgpu_array_1d(out, out_at, CLGPU_TYPE_UINT32, 0, &none), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(edge_buffer, edge_at, CLGPU_TYPE_UINT32, 1, &one_edge),
                CLGPU_SUCCESS);
  for (size_t s = 0; s < 2; s++) {
    clgpu_call_options options = {.shape = shapes[s]};
    assert_status(even_call(context, &none, x, &lo, &hi, &options, 0, NULL, NULL), CLGPU_SUCCESS);
    assert_status(clgpu_histogram_edges(context, &none, x, &one_edge, &options, 0, NULL, NULL),
                  CLGPU_SUCCESS);
    clgpu_workspace_size none_report;
    assert_status(even_query(context, &none, x, &lo, &hi, &options, &none_report), CLGPU_SUCCESS);
  }
  test_placed_check(context, &counts, 4, junk, 0, "no bins", "counts");
  if (UPPER_INCLUDED) {
    for (size_t s = 0; s < 2; s++) {
      clgpu_call_options options = {.shape = shapes[s]};
      clgpu_workspace *workspace = pool_even(&options, c, x, &nine, &nine);
      assert_status(even_call(context, c, x, &nine, &nine, &options, 0, NULL, NULL), CLGPU_SUCCESS);
      clgpu_workspace_destroy(workspace);
      uint64_t expected[16] = {1}, got[16];
      read_placed(&counts, 4, got);
      compare_counts(got, expected, 16, "a single value in 16 bins");
    }
  } else {
    assert_status(even_call(context, c, x, &nine, &nine, NULL, 0, NULL, NULL),
                  CLGPU_INVALID_ARGUMENT);
  }
  clReleaseMemObject(read_only);
  test_placed_release(&in);
  test_placed_release(&edges);
  test_placed_release(&counts);
  free(junk);
  free(edge_bytes);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_type_even),      cmocka_unit_test(float_range_wider_than_float),
      cmocka_unit_test(every_type_edges),     cmocka_unit_test(many_bins_global_path),
      cmocka_unit_test(strided_and_nd_views), cmocka_unit_test(workspaces),
      cmocka_unit_test(wait_list_and_event),  cmocka_unit_test(misuse),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
