/* The host side of clgpu-bench run's element types (bench_data.h): per type
 * its random data, the loops of the CPU baselines, qsort's comparators, the
 * elementwise ops and their checks; the LSD radix sort and the checks of a
 * sort's output. */
#include "bench_data.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

static size_t layout_at(const elementwise_layout *l, size_t r, size_t k) {
  return (size_t)((ptrdiff_t)l->first + (ptrdiff_t)r * l->row_stride +
                  (ptrdiff_t)k * l->column_stride);
}

/* Relative error allowed in float and double sums and scans, against the
 * host's sum (in double) of the absolute values: the chunked and tiled
 * orders of reduce.h stay orders of magnitude inside it at these sizes, a
 * naive left-to-right float sum of 16M values in [0, 1) does not. */
#define FLOAT_TOLERANCE 1e-4
#define DOUBLE_TOLERANCE 1e-10

/* One set of host functions per element type. T: the element, U: the type
 * sums are taken in (unsigned for integers, so they wrap like the device's),
 * PRED: the predicate over x in C, TOL: the relative tolerance of sums (0:
 * exact), PF/PC: how to print a value. */
#define HOST_TYPE_FUNCTIONS(S, T, U, PRED, TOL, PF, PC)                                            \
  /* 16 lanes, four rows of them added per step: compilers vectorise it at -O2 and keep */         \
  /* the lanes in registers. */                                                                    \
  static void S##_sum(const void *data, size_t begin, size_t end, void *out) {                     \
    const T *x = data;                                                                             \
    U lanes[16] = {0};                                                                             \
    size_t i = begin;                                                                              \
    for (; i + 64 <= end; i += 64) {                                                               \
      U rows[16];                                                                                  \
      for (int l = 0; l < 16; l++) rows[l] = (U)x[i + (size_t)l] + (U)x[i + 16 + (size_t)l];       \
      for (int l = 0; l < 16; l++) {                                                               \
        rows[l] += (U)x[i + 32 + (size_t)l] + (U)x[i + 48 + (size_t)l];                            \
      }                                                                                            \
      for (int l = 0; l < 16; l++) lanes[l] += rows[l];                                            \
    }                                                                                              \
    U s = 0;                                                                                       \
    for (; i < end; i++) s += (U)x[i];                                                             \
    for (int l = 0; l < 16; l++) s += lanes[l];                                                    \
    memcpy(out, &s, sizeof s);                                                                     \
  }                                                                                                \
  /* In blocks of 64 with a 32-bit count, which compilers vectorise at -O2. */                     \
  static size_t S##_count(const void *data, size_t begin, size_t end) {                            \
    const T *xs = data;                                                                            \
    size_t c = 0, i = begin;                                                                       \
    for (; i + 64 <= end; i += 64) {                                                               \
      uint32_t block = 0;                                                                          \
      for (int l = 0; l < 64; l++) {                                                               \
        T x = xs[i + (size_t)l];                                                                   \
        block += (PRED) ? 1u : 0u;                                                                 \
      }                                                                                            \
      c += block;                                                                                  \
    }                                                                                              \
    for (; i < end; i++) {                                                                         \
      T x = xs[i];                                                                                 \
      c += (PRED) ? 1 : 0;                                                                         \
    }                                                                                              \
    return c;                                                                                      \
  }                                                                                                \
  static void S##_scan(const void *in, void *out, size_t n) {                                      \
    const T *x = in;                                                                               \
    T *y = out;                                                                                    \
    U s = 0;                                                                                       \
    for (size_t i = 0; i < n; i++) {                                                               \
      s += (U)x[i];                                                                                \
      y[i] = (T)s;                                                                                 \
    }                                                                                              \
  }                                                                                                \
  static size_t S##_findall(const void *in, uint32_t *indices, size_t n) {                         \
    const T *xs = in;                                                                              \
    size_t c = 0;                                                                                  \
    for (size_t i = 0; i < n; i++) {                                                               \
      T x = xs[i];                                                                                 \
      indices[c] = (uint32_t)i;                                                                    \
      c += (PRED) ? 1 : 0;                                                                         \
    }                                                                                              \
    return c;                                                                                      \
  }                                                                                                \
  static void S##_copy(const void *in, void *out, size_t n) {                                      \
    const T *x = in;                                                                               \
    T *y = out;                                                                                    \
    for (size_t i = 0; i < n; i++) y[i] = x[i];                                                    \
  }                                                                                                \
  static void S##_copy_reversed(const void *in, void *out, size_t n) {                             \
    const T *x = in;                                                                               \
    T *y = out;                                                                                    \
    for (size_t i = 0; i < n; i++) y[i] = x[n - 1 - i];                                            \
  }                                                                                                \
  static int S##_check_sum(const void *in, size_t n, const void *result, check_message *message) { \
    const T *x = in;                                                                               \
    T got;                                                                                         \
    memcpy(&got, result, sizeof got);                                                              \
    if (TOL > 0) {                                                                                 \
      double exact = 0, magnitude = 0;                                                             \
      for (size_t i = 0; i < n; i++) {                                                             \
        exact += (double)x[i];                                                                     \
        magnitude += fabs((double)x[i]);                                                           \
      }                                                                                            \
      double error = fabs((double)got - exact);                                                    \
      if (error <= TOL * magnitude) return 0;                                                      \
      snprintf(message->text, sizeof message->text,                                                \
               "sum is %.9g, the host's (in double) %.9g: error %.3g above the bound %.3g",        \
               (double)got, exact, error, TOL *magnitude);                                         \
      return 1;                                                                                    \
    }                                                                                              \
    U s = 0;                                                                                       \
    for (size_t i = 0; i < n; i++) s += (U)x[i];                                                   \
    T expected = (T)s;                                                                             \
    if (memcmp(&got, &expected, sizeof got) == 0) return 0;                                        \
    snprintf(message->text, sizeof message->text, "sum is " PF ", the host's " PF, PC got,         \
             PC expected);                                                                         \
    return 1;                                                                                      \
  }                                                                                                \
  static int S##_check_scan(const void *in, size_t n, const void *out, check_message *message) {   \
    const T *x = in, *y = out;                                                                     \
    double exact = 0, magnitude = 0;                                                               \
    U s = 0;                                                                                       \
    for (size_t i = 0; i < n; i++) {                                                               \
      if (TOL > 0) {                                                                               \
        exact += (double)x[i];                                                                     \
        magnitude += fabs((double)x[i]);                                                           \
        double error = fabs((double)y[i] - exact);                                                 \
        if (!(error <= TOL * magnitude)) {                                                         \
          snprintf(message->text, sizeof message->text,                                            \
                   "out[%zu] is %.9g, the host's (in double) %.9g: error %.3g above the "          \
                   "bound %.3g",                                                                   \
                   i, (double)y[i], exact, error, TOL *magnitude);                                 \
          return 1;                                                                                \
        }                                                                                          \
      } else {                                                                                     \
        s += (U)x[i];                                                                              \
        T expected = (T)s;                                                                         \
        if (memcmp(&y[i], &expected, sizeof expected) != 0) {                                      \
          snprintf(message->text, sizeof message->text, "out[%zu] is " PF ", the host's " PF, i,   \
                   PC y[i], PC expected);                                                          \
          return 1;                                                                                \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    return 0;                                                                                      \
  }                                                                                                \
  static int S##_check_selected(const void *in, size_t n, const void *out, uint64_t count,         \
                                int as_indices, check_message *message) {                          \
    const T *xs = in;                                                                              \
    const uint32_t *indices = out;                                                                 \
    const T *values = out;                                                                         \
    uint64_t j = 0;                                                                                \
    for (size_t i = 0; i < n; i++) {                                                               \
      T x = xs[i];                                                                                 \
      if (!(PRED)) continue;                                                                       \
      if (j < count && as_indices && indices[j] != (uint32_t)i) {                                  \
        snprintf(message->text, sizeof message->text, "index %llu is %u, the host's %zu",          \
                 (unsigned long long)j, indices[j], i);                                            \
        return 1;                                                                                  \
      }                                                                                            \
      if (j < count && !as_indices && memcmp(&values[j], &x, sizeof x) != 0) {                     \
        snprintf(message->text, sizeof message->text,                                              \
                 "value %llu is " PF ", the host's " PF " (element %zu)", (unsigned long long)j,   \
                 PC values[j], PC x, i);                                                           \
        return 1;                                                                                  \
      }                                                                                            \
      j++;                                                                                         \
    }                                                                                              \
    if (j == count) return 0;                                                                      \
    snprintf(message->text, sizeof message->text, "count is %llu, the host's %llu",                \
             (unsigned long long)count, (unsigned long long)j);                                    \
    return 1;                                                                                      \
  }                                                                                                \
  static int S##_check_reversed(const void *in, size_t n, const void *out,                         \
                                check_message *message) {                                          \
    const T *x = in, *y = out;                                                                     \
    for (size_t i = 0; i < n; i++) {                                                               \
      if (memcmp(&y[i], &x[n - 1 - i], sizeof y[i]) != 0) {                                        \
        snprintf(message->text, sizeof message->text, "out[%zu] is " PF ", in[%zu] is " PF, i,     \
                 PC y[i], n - 1 - i, PC x[n - 1 - i]);                                             \
        return 1;                                                                                  \
      }                                                                                            \
    }                                                                                              \
    return 0;                                                                                      \
  }                                                                                                \
  /* Two passes: the selected elements counted, then each element written to */                    \
  /* its place, the next one of its side (a select, not a branch). */                              \
  static size_t S##_partition(const void *in, void *out, size_t n) {                               \
    const T *xs = in;                                                                              \
    T *y = out;                                                                                    \
    const size_t selected = S##_count(in, 0, n);                                                   \
    size_t s = 0, u = selected;                                                                    \
    for (size_t i = 0; i < n; i++) {                                                               \
      T x = xs[i];                                                                                 \
      const size_t p = (PRED) ? 1 : 0;                                                             \
      y[p ? s : u] = x;                                                                            \
      s += p;                                                                                      \
      u += 1 - p;                                                                                  \
    }                                                                                              \
    return selected;                                                                               \
  }                                                                                                \
  static int S##_check_partition(const void *in, size_t n, const void *out, uint64_t count,        \
                                 check_message *message) {                                         \
    const T *xs = in, *y = out;                                                                    \
    const size_t selected = S##_count(in, 0, n);                                                   \
    if (count != selected) {                                                                       \
      snprintf(message->text, sizeof message->text, "count is %llu, the host's %zu",               \
               (unsigned long long)count, selected);                                               \
      return 1;                                                                                    \
    }                                                                                              \
    size_t s = 0, u = selected;                                                                    \
    for (size_t i = 0; i < n; i++) {                                                               \
      T x = xs[i];                                                                                 \
      const size_t at = (PRED) ? s++ : u++;                                                        \
      if (memcmp(&y[at], &x, sizeof x) == 0) continue;                                             \
      snprintf(message->text, sizeof message->text,                                                \
               "out[%zu] is " PF ", the host's " PF " (element %zu, %s)", at, PC y[at], PC x, i,   \
               at < selected ? "selected" : "not selected");                                       \
      return 1;                                                                                    \
    }                                                                                              \
    return 0;                                                                                      \
  }

HOST_TYPE_FUNCTIONS(int32, int32_t, uint32_t, x < -1717986918, 0, "%lld", (long long))
HOST_TYPE_FUNCTIONS(uint32, uint32_t, uint32_t, x < 429496730u, 0, "%llu", (unsigned long long))
HOST_TYPE_FUNCTIONS(uint64, uint64_t, uint64_t, x < 1844674407370955162ull, 0, "%llu",
                    (unsigned long long))
HOST_TYPE_FUNCTIONS(float, float, float, x < 0.1f, FLOAT_TOLERANCE, "%.9g", (double))
HOST_TYPE_FUNCTIONS(double, double, double, x < 0.1, DOUBLE_TOLERANCE, "%.17g", (double))

/* The elementwise ops' host side. T: the element, U: the type arithmetic is
 * done in (unsigned for integers, so that it wraps as the device's does),
 * EPS: the float type's epsilon (0: integers, exact). a * x + z may be
 * contracted into an fma on the device (OpenCL C allows it), so floats are
 * checked against the exact value (in double) within 2 epsilon of |a*x| +
 * |z|; x * x is one correctly rounded multiplication: exact. */
#define ELEMENTWISE_TYPE_FUNCTIONS(S, T, U, EPS, PF, PC)                                          \
  static void S##_axpy(const void *a_bits, const void *x, const void *z, void *y, size_t n) {     \
    T a;                                                                                          \
    memcpy(&a, a_bits, sizeof a);                                                                 \
    const T *xs = x, *zs = z;                                                                     \
    T *ys = y;                                                                                    \
    for (size_t i = 0; i < n; i++) ys[i] = (T)((U)a * (U)xs[i] + (U)zs[i]);                       \
  }                                                                                               \
  static int S##_check_axpy(const void *a_bits, const void *x, const void *z, const void *y,      \
                            size_t n, check_message *message) {                                   \
    T a;                                                                                          \
    memcpy(&a, a_bits, sizeof a);                                                                 \
    const T *xs = x, *zs = z, *ys = y;                                                            \
    for (size_t i = 0; i < n; i++) {                                                              \
      if (EPS > 0) {                                                                              \
        double product = (double)a * (double)xs[i], exact = product + (double)zs[i];              \
        double bound = 2 * EPS * (fabs(product) + fabs((double)zs[i]));                           \
        if (fabs((double)ys[i] - exact) <= bound) continue;                                       \
        snprintf(message->text, sizeof message->text,                                             \
                 "y[%zu] is " PF ", a * x + z (in double) is %.17g: off by more than %.3g", i,    \
                 PC ys[i], exact, bound);                                                         \
        return 1;                                                                                 \
      }                                                                                           \
      T expected = (T)((U)a * (U)xs[i] + (U)zs[i]);                                               \
      if (memcmp(&ys[i], &expected, sizeof expected) == 0) continue;                              \
      snprintf(message->text, sizeof message->text,                                               \
               "y[%zu] is " PF ", the host's a * x + z " PF " (a " PF ", x " PF ", z " PF ")", i, \
               PC ys[i], PC expected, PC a, PC xs[i], PC zs[i]);                                  \
      return 1;                                                                                   \
    }                                                                                             \
    return 0;                                                                                     \
  }                                                                                               \
  static void S##_square(const void *x, const elementwise_layout *l, void *y) {                   \
    const T *xs = x;                                                                              \
    T *ys = y;                                                                                    \
    for (size_t r = 0; r < l->rows; r++) {                                                        \
      const T *row = xs + layout_at(l, r, 0);                                                     \
      T *out = ys + r * l->columns;                                                               \
      for (size_t k = 0; k < l->columns; k++) {                                                   \
        T v = row[(ptrdiff_t)k * l->column_stride];                                               \
        out[k] = (T)((U)v * (U)v);                                                                \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  static int S##_check_square(const void *x, const elementwise_layout *l, const void *y,          \
                              check_message *message) {                                           \
    const T *xs = x, *ys = y;                                                                     \
    for (size_t r = 0; r < l->rows; r++) {                                                        \
      for (size_t k = 0; k < l->columns; k++) {                                                   \
        size_t at = layout_at(l, r, k);                                                           \
        T v = xs[at], expected = (T)((U)v * (U)v);                                                \
        T got = ys[r * l->columns + k];                                                           \
        if (memcmp(&got, &expected, sizeof got) == 0) continue;                                   \
        snprintf(message->text, sizeof message->text,                                             \
                 "y[%zu, %zu] is " PF ", x * x is " PF " (x " PF ", input element %zu)", r, k,    \
                 PC got, PC expected, PC v, at);                                                  \
        return 1;                                                                                 \
      }                                                                                           \
    }                                                                                             \
    return 0;                                                                                     \
  }

ELEMENTWISE_TYPE_FUNCTIONS(int32, int32_t, uint32_t, 0, "%lld", (long long))
ELEMENTWISE_TYPE_FUNCTIONS(uint32, uint32_t, uint32_t, 0, "%llu", (unsigned long long))
ELEMENTWISE_TYPE_FUNCTIONS(uint64, uint64_t, uint64_t, 0, "%llu", (unsigned long long))
ELEMENTWISE_TYPE_FUNCTIONS(float, float, float, FLT_EPSILON, "%.9g", (double))
ELEMENTWISE_TYPE_FUNCTIONS(double, double, double, DBL_EPSILON, "%.17g", (double))

/* The strided copies' host side, by element size: the baseline and the check. */
void bench_copy_layout(size_t size, const void *x, const elementwise_layout *l, void *y) {
  const unsigned char *from = x;
  unsigned char *to = y;
  if (size == 4) {
    const uint32_t *xs = x;
    uint32_t *ys = y;
    for (size_t r = 0; r < l->rows; r++) {
      const uint32_t *row = xs + layout_at(l, r, 0);
      for (size_t k = 0; k < l->columns; k++) {
        ys[r * l->columns + k] = row[(ptrdiff_t)k * l->column_stride];
      }
    }
    return;
  }
  for (size_t r = 0; r < l->rows; r++) {
    for (size_t k = 0; k < l->columns; k++) {
      memcpy(to + (r * l->columns + k) * size, from + layout_at(l, r, k) * size, size);
    }
  }
}

int bench_check_copy_layout(size_t size, const void *x, const elementwise_layout *l, const void *y,
                            check_message *message) {
  const unsigned char *from = x, *got = y;
  for (size_t r = 0; r < l->rows; r++) {
    for (size_t k = 0; k < l->columns; k++) {
      size_t at = layout_at(l, r, k);
      if (memcmp(got + (r * l->columns + k) * size, from + at * size, size) == 0) continue;
      snprintf(message->text, sizeof message->text,
               "out[%zu, %zu] differs from the view's element (input element %zu)", r, k, at);
      return 1;
    }
  }
  return 0;
}

/* qsort's side of the sort baselines, per key type. */
#define SORT_TYPE_FUNCTIONS(S, T)                                                               \
  typedef struct S##_pair {                                                                     \
    T key;                                                                                      \
    uint32_t value;                                                                             \
  } S##_pair;                                                                                   \
  static int S##_compare(const void *a, const void *b) {                                        \
    T x = *(const T *)a, y = *(const T *)b;                                                     \
    return (x > y) - (x < y);                                                                   \
  }                                                                                             \
  static int S##_compare_pair(const void *a, const void *b) {                                   \
    const S##_pair *x = a, *y = b;                                                              \
    if (x->key != y->key) return x->key < y->key ? -1 : 1;                                      \
    return (x->value > y->value) - (x->value < y->value);                                       \
  }                                                                                             \
  static void S##_make_pairs(const void *keys, const uint32_t *values, void *pairs, size_t n) { \
    const T *k = keys;                                                                          \
    S##_pair *p = pairs;                                                                        \
    for (size_t i = 0; i < n; i++) {                                                            \
      p[i].key = k[i];                                                                          \
      p[i].value = values[i];                                                                   \
    }                                                                                           \
  }

SORT_TYPE_FUNCTIONS(int32, int32_t)
SORT_TYPE_FUNCTIONS(uint32, uint32_t)
SORT_TYPE_FUNCTIONS(uint64, uint64_t)
SORT_TYPE_FUNCTIONS(float, float)
SORT_TYPE_FUNCTIONS(double, double)

/* Uniformly random data from a fixed seed: integers over their whole range,
 * floats in [0, 1). */
static void generate_32(void *data, size_t n, uint64_t seed) {
  uint32_t *x = data;
  for (size_t i = 0; i < n; i++) x[i] = (uint32_t)(bench_splitmix64(&seed) >> 32);
}
static void generate_64(void *data, size_t n, uint64_t seed) {
  uint64_t *x = data;
  for (size_t i = 0; i < n; i++) x[i] = bench_splitmix64(&seed);
}
static void generate_float(void *data, size_t n, uint64_t seed) {
  float *x = data;
  for (size_t i = 0; i < n; i++) x[i] = (float)(bench_splitmix64(&seed) >> 40) * 0x1p-24f;
}
static void generate_double(void *data, size_t n, uint64_t seed) {
  double *x = data;
  for (size_t i = 0; i < n; i++) x[i] = (double)(bench_splitmix64(&seed) >> 11) * 0x1p-53;
}

#define HOST_TYPE_ENTRY(S, CLTYPE, SIZE, IS_FLOAT, PREDICATE, KEY, GENERATE, KIND)                \
  {                                                                                               \
#S, CLTYPE, SIZE, IS_FLOAT, PREDICATE, KEY, GENERATE, S##_sum, S##_count, S##_scan,           \
        S##_findall, S##_copy, S##_copy_reversed, S##_check_sum, S##_check_scan,                  \
        S##_check_selected, S##_check_reversed, KIND, S##_compare, S##_compare_pair,              \
        sizeof(S##_pair), S##_make_pairs, S##_axpy, S##_check_axpy, S##_square, S##_check_square, \
        S##_partition, S##_check_partition                                                        \
  }

/* The GPU-shape read kernel writes an element only when it equals the key:
 * all ones for integers, -1.0 (little-endian bytes) for floats; the data
 * practically never holds it, so the kernel reads and does not write. */
#define KEY_ONES \
  { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }
#define KEY_MINUS_ONE_FLOAT \
  { 0x00, 0x00, 0x80, 0xbf }
#define KEY_MINUS_ONE_DOUBLE \
  { 0, 0, 0, 0, 0, 0, 0xf0, 0xbf }

const host_type bench_host_types[] = {
    HOST_TYPE_ENTRY(uint32, CLGPU_TYPE_UINT32, 4, 0, "x < 429496730u", KEY_ONES, generate_32,
                    KIND_UNSIGNED),
    HOST_TYPE_ENTRY(float, CLGPU_TYPE_FLOAT, 4, 1, "x < 0.1f", KEY_MINUS_ONE_FLOAT, generate_float,
                    KIND_FLOAT),
    HOST_TYPE_ENTRY(int32, CLGPU_TYPE_INT32, 4, 0, "x < -1717986918", KEY_ONES, generate_32,
                    KIND_SIGNED),
    HOST_TYPE_ENTRY(uint64, CLGPU_TYPE_UINT64, 8, 0, "x < 1844674407370955162UL", KEY_ONES,
                    generate_64, KIND_UNSIGNED),
    HOST_TYPE_ENTRY(double, CLGPU_TYPE_DOUBLE, 8, 1, "x < 0.1", KEY_MINUS_ONE_DOUBLE,
                    generate_double, KIND_FLOAT),
};
_Static_assert(sizeof bench_host_types / sizeof bench_host_types[0] == NUM_HOST_TYPES,
               "NUM_HOST_TYPES counts bench_host_types");

/* ---- host side of the sorts: the LSD radix baseline, the reference, checks ---- */

/* The order-preserving image of a key's bits, sort.h's order: integers by
 * value; floats -inf < negatives < -0 < +0 < positives < +inf < NaN, every
 * NaN by its bits with the sign bit cleared. */
static inline uint32_t order32(uint32_t x, int kind) {
  if (kind == KIND_SIGNED) return x ^ 0x80000000u;
  if (kind != KIND_FLOAT) return x;
  if ((x & 0x7fffffffu) > 0x7f800000u) x &= 0x7fffffffu;
  return x & 0x80000000u ? ~x : x | 0x80000000u;
}
static inline uint64_t order64(uint64_t x, int kind) {
  const uint64_t sign = 0x8000000000000000ull;
  if (kind == KIND_SIGNED) return x ^ sign;
  if (kind != KIND_FLOAT) return x;
  if ((x & ~sign) > 0x7ff0000000000000ull) x &= ~sign;
  return x & sign ? ~x : x | sign;
}
/* Back from an image to bits (a NaN comes back with its sign bit cleared). */
static inline uint32_t unorder32(uint32_t image, int kind) {
  if (kind == KIND_SIGNED) return image ^ 0x80000000u;
  if (kind != KIND_FLOAT) return image;
  return image & 0x80000000u ? image & 0x7fffffffu : ~image;
}
static inline uint64_t unorder64(uint64_t image, int kind) {
  const uint64_t sign = 0x8000000000000000ull;
  if (kind == KIND_SIGNED) return image ^ sign;
  if (kind != KIND_FLOAT) return image;
  return image & sign ? image & ~sign : ~image;
}

#define RADIX_BITS 11
#define RADIX_BUCKETS (1u << RADIX_BITS)

/* The CPU baseline of the radix sorts, one thread: a stable LSD radix sort
 * of n W-bit keys (their bits, of `kind`) in place, carrying `values` (NULL:
 * keys only), through tmp_keys and tmp_values of the same sizes. One pass
 * turns the keys into their images and counts every digit's histogram, then
 * one scatter pass per 11-bit digit (a digit that every key shares is
 * skipped, as clgpu's radix sort does), and one pass back to the bits. */
#define RADIX_HOST_FUNCTION(W)                                                            \
  static void radix_sort##W(uint##W##_t *keys, uint32_t *values, uint##W##_t *tmp_keys,   \
                            uint32_t *tmp_values, size_t n, int kind) {                   \
    enum { PASSES = (W + RADIX_BITS - 1) / RADIX_BITS };                                  \
    uint32_t counts[PASSES][RADIX_BUCKETS];                                               \
    memset(counts, 0, sizeof counts);                                                     \
    for (size_t i = 0; i < n; i++) {                                                      \
      uint##W##_t image = order##W(keys[i], kind);                                        \
      keys[i] = image;                                                                    \
      for (unsigned p = 0; p < PASSES; p++) {                                             \
        counts[p][(image >> (p * RADIX_BITS)) & (RADIX_BUCKETS - 1)]++;                   \
      }                                                                                   \
    }                                                                                     \
    uint##W##_t *from = keys, *to = tmp_keys;                                             \
    uint32_t *values_from = values, *values_to = tmp_values;                              \
    for (unsigned p = 0; p < PASSES && n > 0; p++) {                                      \
      const unsigned shift = p * RADIX_BITS;                                              \
      uint32_t *offsets = counts[p];                                                      \
      if (offsets[(from[0] >> shift) & (RADIX_BUCKETS - 1)] == n) continue;               \
      uint32_t total = 0;                                                                 \
      for (unsigned b = 0; b < RADIX_BUCKETS; b++) {                                      \
        uint32_t here = offsets[b];                                                       \
        offsets[b] = total;                                                               \
        total += here;                                                                    \
      }                                                                                   \
      if (values) {                                                                       \
        for (size_t i = 0; i < n; i++) {                                                  \
          uint32_t at = offsets[(from[i] >> shift) & (RADIX_BUCKETS - 1)]++;              \
          to[at] = from[i];                                                               \
          values_to[at] = values_from[i];                                                 \
        }                                                                                 \
        uint32_t *swap_values = values_from;                                              \
        values_from = values_to;                                                          \
        values_to = swap_values;                                                          \
      } else {                                                                            \
        for (size_t i = 0; i < n; i++) {                                                  \
          to[offsets[(from[i] >> shift) & (RADIX_BUCKETS - 1)]++] = from[i];              \
        }                                                                                 \
      }                                                                                   \
      uint##W##_t *swap_keys = from;                                                      \
      from = to;                                                                          \
      to = swap_keys;                                                                     \
    }                                                                                     \
    for (size_t i = 0; i < n; i++) keys[i] = unorder##W(from[i], kind);                   \
    if (values && values_from != values) memcpy(values, values_from, n * sizeof *values); \
  }

RADIX_HOST_FUNCTION(32)
RADIX_HOST_FUNCTION(64)

void bench_radix_sort_host(const host_type *t, void *keys, uint32_t *values, void *tmp_keys,
                           uint32_t *tmp_values, size_t n) {
  if (t->size == 4) {
    radix_sort32(keys, values, tmp_keys, tmp_values, n, t->kind);
  } else {
    radix_sort64(keys, values, tmp_keys, tmp_values, n, t->kind);
  }
}

uint64_t bench_element_bits(const host_type *t, const void *data, size_t i) {
  const unsigned char *at = (const unsigned char *)data + i * t->size;
  if (t->size == 4) {
    uint32_t x;
    memcpy(&x, at, sizeof x);
    return x;
  }
  uint64_t x;
  memcpy(&x, at, sizeof x);
  return x;
}

uint64_t bench_element_image(const host_type *t, uint64_t bits) {
  return t->size == 4 ? order32((uint32_t)bits, t->kind) : order64(bits, t->kind);
}

static const char *format_element(const host_type *t, uint64_t bits, char *buffer, size_t size) {
  if (t->kind == KIND_FLOAT && t->size == 4) {
    uint32_t b = (uint32_t)bits;
    float x;
    memcpy(&x, &b, sizeof x);
    snprintf(buffer, size, "%.9g", (double)x);
  } else if (t->kind == KIND_FLOAT) {
    double x;
    memcpy(&x, &bits, sizeof x);
    snprintf(buffer, size, "%.17g", x);
  } else if (t->kind == KIND_SIGNED && t->size == 4) {
    snprintf(buffer, size, "%ld", (long)(int32_t)(uint32_t)bits);
  } else if (t->kind == KIND_SIGNED) {
    snprintf(buffer, size, "%lld", (long long)(int64_t)bits);
  } else {
    snprintf(buffer, size, "%llu", (unsigned long long)bits);
  }
  return buffer;
}

/* Check a sort's output over the n keys of `in`. `keys`: the n keys it
 * wrote, or NULL for an argsort, whose keys are then in[values[j]].
 * `values`: the uint32 values it carried (the input's indices, 0 to n-1) or
 * the permutation it wrote, or NULL for keys only. `perm`: the stable
 * sorting permutation of `in` (the reference). In turn: every index below n;
 * the keys in sort.h's order; the keys bit for bit those of a stable sort
 * (keys that order equal have equal bits, NaNs of both signs aside, so this
 * holds for any correct sort); and the values those of the stable sort when
 * `stable`, else a permutation of the indices whose every index points at a
 * key with the bits written beside it. `scratch`: n / 8 + 1 bytes, for the
 * last check. 0 when right, else 1 with *message. */
int bench_check_sorted(const host_type *t, const void *in, size_t n, const uint32_t *perm,
                       const void *keys, const uint32_t *values, int stable, unsigned char *scratch,
                       check_message *message) {
  char a[48], b[48];
  uint64_t previous_bits = 0, previous_image = 0;
  for (size_t j = 0; j < n; j++) {
    if (values && values[j] >= n) {
      snprintf(message->text, sizeof message->text, "%s %zu is %u, not an index below n",
               keys ? "value" : "permutation element", j, values[j]);
      return 1;
    }
    uint64_t bits = keys ? bench_element_bits(t, keys, j) : bench_element_bits(t, in, values[j]);
    uint64_t image = bench_element_image(t, bits);
    if (j > 0 && image < previous_image) {
      snprintf(message->text, sizeof message->text, "NOT SORTED: key %zu is %s and key %zu is %s%s",
               j - 1, format_element(t, previous_bits, a, sizeof a), j,
               format_element(t, bits, b, sizeof b), keys ? "" : " (keys[permutation[j]])");
      return 1;
    }
    previous_bits = bits;
    previous_image = image;
  }
  if (keys) {
    for (size_t j = 0; j < n; j++) {
      uint64_t got = bench_element_bits(t, keys, j), expected = bench_element_bits(t, in, perm[j]);
      if (got != expected) {
        snprintf(message->text, sizeof message->text,
                 "in order, but key %zu is %s where a stable sort of the input has %s (keys "
                 "lost, duplicated or changed)",
                 j, format_element(t, got, a, sizeof a), format_element(t, expected, b, sizeof b));
        return 1;
      }
    }
  }
  if (!values) return 0;
  if (stable) {
    for (size_t j = 0; j < n; j++) {
      if (values[j] == perm[j]) continue;
      int same_key = bench_element_image(t, bench_element_bits(t, in, values[j])) ==
                     bench_element_image(t, bench_element_bits(t, in, perm[j]));
      snprintf(message->text, sizeof message->text, "%s %zu is %u, a stable sort's %u: %s",
               keys ? "value" : "permutation element", j, values[j], perm[j],
               same_key ? "equal keys out of their input order (not stable)"
                        : "not the index of the key beside it");
      return 1;
    }
    return 0;
  }
  memset(scratch, 0, n / 8 + 1);
  for (size_t j = 0; j < n; j++) {
    uint32_t v = values[j];
    if (scratch[v / 8] & (1u << (v % 8))) {
      snprintf(message->text, sizeof message->text, "index %u appears twice (again at %zu)", v, j);
      return 1;
    }
    scratch[v / 8] |= (unsigned char)(1u << (v % 8));
    if (keys && bench_element_bits(t, in, v) != bench_element_bits(t, keys, j)) {
      snprintf(message->text, sizeof message->text,
               "value %zu is %u, whose key is %s, but the key beside it is %s", j, v,
               format_element(t, bench_element_bits(t, in, v), a, sizeof a),
               format_element(t, bench_element_bits(t, keys, j), b, sizeof b));
      return 1;
    }
  }
  return 0;
}

/* ---- host side of lower_bound: the C baseline and the checks ---- */

/* lower_bound's C baseline over W-bit keys of one kind (a constant, so that
 * the images fold into the loop): std::lower_bound's loop, one branch per
 * step, over the keys' images (the needle's taken once). */
#define LOWER_BOUND_HOST_FUNCTION(NAME, W, KIND)                                   \
  static void NAME(const uint##W##_t *h, size_t n, const uint##W##_t *x, size_t m, \
                   void *positions, int wide) {                                    \
    uint32_t *narrow = positions;                                                  \
    uint64_t *broad = positions;                                                   \
    for (size_t i = 0; i < m; i++) {                                               \
      const uint##W##_t key = order##W(x[i], KIND);                                \
      size_t first = 0, count = n;                                                 \
      while (count > 0) {                                                          \
        size_t step = count / 2;                                                   \
        if (order##W(h[first + step], KIND) < key) {                               \
          first += step + 1;                                                       \
          count -= step + 1;                                                       \
        } else {                                                                   \
          count = step;                                                            \
        }                                                                          \
      }                                                                            \
      if (wide) {                                                                  \
        broad[i] = first;                                                          \
      } else {                                                                     \
        narrow[i] = (uint32_t)first;                                               \
      }                                                                            \
    }                                                                              \
  }

LOWER_BOUND_HOST_FUNCTION(lower_bound_u32, 32, KIND_UNSIGNED)
LOWER_BOUND_HOST_FUNCTION(lower_bound_s32, 32, KIND_SIGNED)
LOWER_BOUND_HOST_FUNCTION(lower_bound_f32, 32, KIND_FLOAT)
LOWER_BOUND_HOST_FUNCTION(lower_bound_u64, 64, KIND_UNSIGNED)
LOWER_BOUND_HOST_FUNCTION(lower_bound_s64, 64, KIND_SIGNED)
LOWER_BOUND_HOST_FUNCTION(lower_bound_f64, 64, KIND_FLOAT)

void bench_lower_bound_host(const host_type *t, const void *haystack, size_t n, const void *needles,
                            size_t m, void *positions, int wide) {
  if (t->size == 4) {
    void (*search)(const uint32_t *, size_t, const uint32_t *, size_t, void *, int) =
        t->kind == KIND_FLOAT    ? lower_bound_f32
        : t->kind == KIND_SIGNED ? lower_bound_s32
                                 : lower_bound_u32;
    search(haystack, n, needles, m, positions, wide);
  } else {
    void (*search)(const uint64_t *, size_t, const uint64_t *, size_t, void *, int) =
        t->kind == KIND_FLOAT    ? lower_bound_f64
        : t->kind == KIND_SIGNED ? lower_bound_s64
                                 : lower_bound_u64;
    search(haystack, n, needles, m, positions, wide);
  }
}

void bench_lower_bound_reference(const host_type *t, const void *sorted, const uint32_t *perm,
                                 size_t n, void *positions, int wide) {
  uint64_t previous = 0;
  size_t start = 0;
  for (size_t j = 0; j < n; j++) {
    uint64_t image = bench_element_image(t, bench_element_bits(t, sorted, j));
    if (j == 0 || image != previous) start = j;
    previous = image;
    if (wide) {
      ((uint64_t *)positions)[perm[j]] = start;
    } else {
      ((uint32_t *)positions)[perm[j]] = (uint32_t)start;
    }
  }
}

/* Position i of uint32 (uint64 when `wide`) positions. */
static uint64_t position_at(const void *positions, int wide, size_t i) {
  if (wide) {
    uint64_t p;
    memcpy(&p, (const unsigned char *)positions + i * sizeof p, sizeof p);
    return p;
  }
  uint32_t p;
  memcpy(&p, (const unsigned char *)positions + i * sizeof p, sizeof p);
  return p;
}

int bench_check_lower_bound(const host_type *t, const void *haystack, size_t n, const void *needles,
                            size_t m, const void *positions, int wide, check_message *message) {
  char a[48], b[48];
  for (size_t j = 1; j < n; j++) {
    uint64_t before = bench_element_bits(t, haystack, j - 1),
             here = bench_element_bits(t, haystack, j);
    if (bench_element_image(t, here) < bench_element_image(t, before)) {
      snprintf(message->text, sizeof message->text,
               "NOT SORTED: haystack key %zu is %s and key %zu is %s", j - 1,
               format_element(t, before, a, sizeof a), j, format_element(t, here, b, sizeof b));
      return 1;
    }
  }
  for (size_t i = 0; i < m; i++) {
    uint64_t p = position_at(positions, wide, i);
    uint64_t needle = bench_element_bits(t, needles, i);
    uint64_t key = bench_element_image(t, needle);
    if (p > n) {
      snprintf(message->text, sizeof message->text,
               "position %zu is %llu, past the haystack's %zu keys", i, (unsigned long long)p, n);
      return 1;
    }
    /* The key before the position orders below the needle, the key at it
     * does not. */
    for (int side = 0; side < 2; side++) {
      if ((side == 0 && p == 0) || (side == 1 && p == n)) continue;
      size_t at = (size_t)p - (side == 0);
      uint64_t bits = bench_element_bits(t, haystack, at);
      int below = bench_element_image(t, bits) < key;
      if (below == (side == 0)) continue;
      snprintf(message->text, sizeof message->text,
               "position %zu is %llu, but haystack key %zu (%s) %s the needle %s", i,
               (unsigned long long)p, at, format_element(t, bits, a, sizeof a),
               below ? "orders below" : "does not order below",
               format_element(t, needle, b, sizeof b));
      return 1;
    }
  }
  return 0;
}

int bench_check_positions(const host_type *t, const void *needles, size_t m, const void *got,
                          const void *expected, int wide, const char *who, check_message *message) {
  size_t size = wide ? sizeof(uint64_t) : sizeof(uint32_t);
  if (memcmp(got, expected, m * size) == 0) return 0;
  for (size_t i = 0; i < m; i++) {
    uint64_t g = position_at(got, wide, i), e = position_at(expected, wide, i);
    if (g == e) continue;
    char a[48];
    snprintf(message->text, sizeof message->text, "position %zu is %llu, %s %llu (needle %s)", i,
             (unsigned long long)g, who, (unsigned long long)e,
             format_element(t, bench_element_bits(t, needles, i), a, sizeof a));
    return 1;
  }
  return 0;
}

/* ---- host side of reduce_by_key and scan_by_key: the keys, the C baselines, the checks ---- */

uint64_t bench_generate_runs(uint32_t *keys, size_t n, unsigned max_run, uint64_t seed,
                             uint32_t *starts) {
  uint64_t runs = 0;
  uint32_t key = 0;
  for (size_t i = 0; i < n;) {
    size_t length = 1 + (size_t)(bench_splitmix64(&seed) % max_run);
    uint32_t next = (uint32_t)(bench_splitmix64(&seed) >> 32);
    while (runs > 0 && next == key) next = (uint32_t)(bench_splitmix64(&seed) >> 32);
    key = next;
    starts[runs++] = (uint32_t)i;
    for (size_t end = i + length < n ? i + length : n; i < end; i++) keys[i] = key;
  }
  return runs;
}

/* The C baselines of the by-key ops over values T summed in U (unsigned for
 * integers, so that they wrap): one pass, a head where the key changes. */
#define BY_KEY_HOST_FUNCTIONS(S, T, U)                                                            \
  static uint64_t S##_reduce_by_key(const uint32_t *keys, const void *values, size_t n,           \
                                    uint32_t *run_keys, void *sums) {                             \
    const T *x = values;                                                                          \
    T *out = sums;                                                                                \
    if (n == 0) return 0;                                                                         \
    uint64_t runs = 0;                                                                            \
    uint32_t key = keys[0];                                                                       \
    U s = (U)x[0];                                                                                \
    for (size_t i = 1; i < n; i++) {                                                              \
      if (keys[i] != key) {                                                                       \
        run_keys[runs] = key;                                                                     \
        out[runs++] = (T)s;                                                                       \
        key = keys[i];                                                                            \
        s = (U)x[i];                                                                              \
      } else {                                                                                    \
        s += (U)x[i];                                                                             \
      }                                                                                           \
    }                                                                                             \
    run_keys[runs] = key;                                                                         \
    out[runs++] = (T)s;                                                                           \
    return runs;                                                                                  \
  }                                                                                               \
  static void S##_scan_by_key(const uint32_t *keys, const void *values, size_t n, void *output) { \
    const T *x = values;                                                                          \
    T *y = output;                                                                                \
    U s = 0;                                                                                      \
    for (size_t i = 0; i < n; i++) {                                                              \
      s = i == 0 || keys[i] != keys[i - 1] ? (U)x[i] : s + (U)x[i];                               \
      y[i] = (T)s;                                                                                \
    }                                                                                             \
  }

BY_KEY_HOST_FUNCTIONS(by_key_u32, uint32_t, uint32_t)
BY_KEY_HOST_FUNCTIONS(by_key_s32, int32_t, uint32_t)
BY_KEY_HOST_FUNCTIONS(by_key_u64, uint64_t, uint64_t)
BY_KEY_HOST_FUNCTIONS(by_key_f32, float, float)
BY_KEY_HOST_FUNCTIONS(by_key_f64, double, double)

uint64_t bench_reduce_by_key_host(const host_type *t, const uint32_t *keys, const void *values,
                                  size_t n, uint32_t *run_keys, void *sums) {
  switch (t->type) {
    case CLGPU_TYPE_FLOAT:
      return by_key_f32_reduce_by_key(keys, values, n, run_keys, sums);
    case CLGPU_TYPE_DOUBLE:
      return by_key_f64_reduce_by_key(keys, values, n, run_keys, sums);
    case CLGPU_TYPE_INT32:
      return by_key_s32_reduce_by_key(keys, values, n, run_keys, sums);
    case CLGPU_TYPE_UINT64:
      return by_key_u64_reduce_by_key(keys, values, n, run_keys, sums);
    default:
      return by_key_u32_reduce_by_key(keys, values, n, run_keys, sums);
  }
}

void bench_scan_by_key_host(const host_type *t, const uint32_t *keys, const void *values, size_t n,
                            void *output) {
  switch (t->type) {
    case CLGPU_TYPE_FLOAT:
      by_key_f32_scan_by_key(keys, values, n, output);
      break;
    case CLGPU_TYPE_DOUBLE:
      by_key_f64_scan_by_key(keys, values, n, output);
      break;
    case CLGPU_TYPE_INT32:
      by_key_s32_scan_by_key(keys, values, n, output);
      break;
    case CLGPU_TYPE_UINT64:
      by_key_u64_scan_by_key(keys, values, n, output);
      break;
    default:
      by_key_u32_scan_by_key(keys, values, n, output);
      break;
  }
}

/* Where run r of `runs` over n elements ends. */
static size_t run_end(const uint32_t *starts, uint64_t runs, size_t n, uint64_t r) {
  return r + 1 < runs ? starts[r + 1] : n;
}

int bench_check_reduce_by_key(const host_type *t, const uint32_t *keys, const void *values,
                              const uint32_t *starts, uint64_t runs, size_t n, uint64_t count,
                              const uint32_t *run_keys, const void *sums, check_message *message) {
  if (count != runs) {
    snprintf(message->text, sizeof message->text, "count is %llu, the host's %llu runs",
             (unsigned long long)count, (unsigned long long)runs);
    return 1;
  }
  for (uint64_t r = 0; r < runs; r++) {
    size_t start = starts[r], end = run_end(starts, runs, n, r);
    if (run_keys[r] != keys[start]) {
      snprintf(message->text, sizeof message->text,
               "run %llu's key is %u, the host's %u (elements %zu to %zu)", (unsigned long long)r,
               run_keys[r], keys[start], start, end - 1);
      return 1;
    }
    check_message inner = {{0}};
    if (t->check_sum((const unsigned char *)values + start * t->size, end - start,
                     (const unsigned char *)sums + r * t->size, &inner) != 0) {
      snprintf(message->text, sizeof message->text, "run %llu (elements %zu to %zu): %.400s",
               (unsigned long long)r, start, end - 1, inner.text);
      return 1;
    }
  }
  return 0;
}

uint64_t bench_unique_host(const uint32_t *keys, size_t n, uint32_t *run_keys) {
  if (n == 0) return 0;
  uint64_t runs = 0;
  run_keys[runs++] = keys[0];
  for (size_t i = 1; i < n; i++) {
    if (keys[i] != keys[i - 1]) run_keys[runs++] = keys[i];
  }
  return runs;
}

int bench_check_unique(const uint32_t *keys, const uint32_t *starts, uint64_t runs, uint64_t count,
                       const uint32_t *run_keys, check_message *message) {
  if (count != runs) {
    snprintf(message->text, sizeof message->text, "count is %llu, the host's %llu runs",
             (unsigned long long)count, (unsigned long long)runs);
    return 1;
  }
  for (uint64_t r = 0; r < runs; r++) {
    if (run_keys[r] != keys[starts[r]]) {
      snprintf(message->text, sizeof message->text,
               "run %llu's key is %u, the host's %u (from element %u)", (unsigned long long)r,
               run_keys[r], keys[starts[r]], starts[r]);
      return 1;
    }
  }
  return 0;
}

int bench_check_scan_by_key(const host_type *t, const void *values, const uint32_t *starts,
                            uint64_t runs, size_t n, const void *output, check_message *message) {
  for (uint64_t r = 0; r < runs; r++) {
    size_t start = starts[r], end = run_end(starts, runs, n, r);
    check_message inner = {{0}};
    if (t->check_scan((const unsigned char *)values + start * t->size, end - start,
                      (const unsigned char *)output + start * t->size, &inner) != 0) {
      snprintf(message->text, sizeof message->text,
               "run %llu (elements %zu to %zu, out[k]: element %zu + k): %.400s",
               (unsigned long long)r, start, end - 1, start, inner.text);
      return 1;
    }
  }
  return 0;
}

/* ---- host side of histogram: the bounds, the C baseline, the reference, the check ---- */

void bench_histogram_bounds(const host_type *t, void *lower, void *upper) {
  switch (t->type) {
    case CLGPU_TYPE_FLOAT: {
      const float lo = 0.0f, hi = 1.0f;
      memcpy(lower, &lo, sizeof lo);
      memcpy(upper, &hi, sizeof hi);
      break;
    }
    case CLGPU_TYPE_DOUBLE: {
      const double lo = 0.0, hi = 1.0;
      memcpy(lower, &lo, sizeof lo);
      memcpy(upper, &hi, sizeof hi);
      break;
    }
    case CLGPU_TYPE_INT32: {
      const int32_t lo = INT32_MIN, hi = INT32_MAX;
      memcpy(lower, &lo, sizeof lo);
      memcpy(upper, &hi, sizeof hi);
      break;
    }
    case CLGPU_TYPE_UINT64: {
      const uint64_t lo = 0, hi = UINT64_MAX;
      memcpy(lower, &lo, sizeof lo);
      memcpy(upper, &hi, sizeof hi);
      break;
    }
    default: {
      const uint32_t lo = 0, hi = UINT32_MAX;
      memcpy(lower, &lo, sizeof lo);
      memcpy(upper, &hi, sizeof hi);
      break;
    }
  }
}

/* floor(d * bins / (range + 1)) for d <= range, exactly: the 128-bit product
 * by 32-bit halves, then (range + 1 = 2^64) its high half, or a 64-bit
 * division where the product fits, or restoring division a bit at a time
 * (the product's high half is below range + 1: the quotient fits). */
static uint64_t histogram_scale(uint64_t d, uint64_t bins, uint64_t range) {
  const uint64_t mask = 0xffffffffu;
  uint64_t p0 = (d & mask) * (bins & mask), p1 = (d & mask) * (bins >> 32);
  uint64_t p2 = (d >> 32) * (bins & mask), p3 = (d >> 32) * (bins >> 32);
  uint64_t mid = (p0 >> 32) + (p1 & mask) + (p2 & mask);
  uint64_t lo = (p0 & mask) | (mid << 32);
  uint64_t hi = p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
  if (range == UINT64_MAX) return hi;
  uint64_t values = range + 1;
  if (hi == 0) return lo / values;
  uint64_t q = 0, r = hi;
  for (int k = 63; k >= 0; k--) {
    uint64_t top = r >> 63;
    r = (r << 1) | ((lo >> k) & 1u);
    q <<= 1;
    if (top != 0 || r >= values) {
      r -= values;
      q |= 1u;
    }
  }
  return q;
}

/* The shift that takes d = x - lower to its bin where N = range + 1 and
 * bins are powers of two with bins <= N: log2 N - log2 bins, since then
 * floor(d * bins / N) = floor(d / 2^(log2 N - log2 bins)). `bits` (no
 * shift) otherwise, and where the shift would be the type's width. */
static unsigned histogram_shift(uint64_t range, size_t bins, unsigned bits) {
  if ((range & (range + 1)) != 0 || bins == 0 || (bins & (bins - 1)) != 0) return bits;
  unsigned log_values = 0, log_bins = 0;
  for (uint64_t r = range; r != 0; r >>= 1) log_values++; /* range = 2^log_values - 1 */
  while (((size_t)1 << log_bins) < bins) log_bins++;
  if (log_bins > log_values || log_values - log_bins >= bits) return bits;
  return log_values - log_bins;
}

/* histogram over T (unsigned U of its width, `bits` wide): the baseline
 * takes the shift where histogram_shift finds one, the reference never;
 * floats bin by histogram.h's formula in T, both the same. */
#define HISTOGRAM_INT_FUNCTIONS(S, T, U, BITS)                                      \
  static void S##_histogram(const void *data, size_t n, const void *lower_bytes,    \
                            const void *upper_bytes, uint32_t *counts, size_t bins, \
                            int reference) {                                        \
    const T *x = data;                                                              \
    T lower, upper;                                                                 \
    memcpy(&lower, lower_bytes, sizeof lower);                                      \
    memcpy(&upper, upper_bytes, sizeof upper);                                      \
    memset(counts, 0, bins * sizeof *counts);                                       \
    const U range = (U)((U)upper - (U)lower); /* N - 1 */                           \
    const unsigned shift = reference ? BITS : histogram_shift(range, bins, BITS);   \
    if (shift < BITS) {                                                             \
      for (size_t i = 0; i < n; i++) {                                              \
        if (x[i] < lower || x[i] > upper) continue;                                 \
        counts[(U)((U)x[i] - (U)lower) >> shift]++;                                 \
      }                                                                             \
    } else {                                                                        \
      for (size_t i = 0; i < n; i++) {                                              \
        if (x[i] < lower || x[i] > upper) continue;                                 \
        counts[histogram_scale((U)((U)x[i] - (U)lower), bins, range)]++;            \
      }                                                                             \
    }                                                                               \
  }

#define HISTOGRAM_FLOAT_FUNCTIONS(S, T)                                             \
  static void S##_histogram(const void *data, size_t n, const void *lower_bytes,    \
                            const void *upper_bytes, uint32_t *counts, size_t bins, \
                            int reference) {                                        \
    (void)reference;                                                                \
    const T *x = data;                                                              \
    T lower, upper;                                                                 \
    memcpy(&lower, lower_bytes, sizeof lower);                                      \
    memcpy(&upper, upper_bytes, sizeof upper);                                      \
    memset(counts, 0, bins * sizeof *counts);                                       \
    const T scale = (T)((double)bins / ((double)upper - (double)lower));            \
    for (size_t i = 0; i < n; i++) {                                                \
      const T v = x[i];                                                             \
      if (!(v >= lower) || !(v <= upper)) continue; /* NaN: in no bin */            \
      const uint64_t b = (uint64_t)((T)(v - lower) * scale);                        \
      counts[b < bins ? b : bins - 1]++;                                            \
    }                                                                               \
  }

HISTOGRAM_INT_FUNCTIONS(histogram_u32, uint32_t, uint32_t, 32u)
HISTOGRAM_INT_FUNCTIONS(histogram_s32, int32_t, uint32_t, 32u)
HISTOGRAM_INT_FUNCTIONS(histogram_u64, uint64_t, uint64_t, 64u)
HISTOGRAM_FLOAT_FUNCTIONS(histogram_f32, float)
HISTOGRAM_FLOAT_FUNCTIONS(histogram_f64, double)

static void histogram_of(const host_type *t, const void *data, size_t n, const void *lower,
                         const void *upper, uint32_t *counts, size_t bins, int reference) {
  switch (t->type) {
    case CLGPU_TYPE_FLOAT:
      histogram_f32_histogram(data, n, lower, upper, counts, bins, reference);
      break;
    case CLGPU_TYPE_DOUBLE:
      histogram_f64_histogram(data, n, lower, upper, counts, bins, reference);
      break;
    case CLGPU_TYPE_INT32:
      histogram_s32_histogram(data, n, lower, upper, counts, bins, reference);
      break;
    case CLGPU_TYPE_UINT64:
      histogram_u64_histogram(data, n, lower, upper, counts, bins, reference);
      break;
    default:
      histogram_u32_histogram(data, n, lower, upper, counts, bins, reference);
      break;
  }
}

void bench_histogram_host(const host_type *t, const void *data, size_t n, const void *lower,
                          const void *upper, uint32_t *counts, size_t bins) {
  histogram_of(t, data, n, lower, upper, counts, bins, 0);
}

void bench_histogram_reference(const host_type *t, const void *data, size_t n, const void *lower,
                               const void *upper, uint32_t *counts, size_t bins) {
  histogram_of(t, data, n, lower, upper, counts, bins, 1);
}

int bench_check_histogram(const uint32_t *got, const uint32_t *expected, size_t bins,
                          check_message *message) {
  uint64_t got_total = 0, expected_total = 0;
  size_t first = bins;
  for (size_t b = 0; b < bins; b++) {
    got_total += got[b];
    expected_total += expected[b];
    if (first == bins && got[b] != expected[b]) first = b;
  }
  if (first == bins) return 0;
  snprintf(message->text, sizeof message->text,
           "bin %zu of %zu counts %u, the host's %u (%llu counted in all, the host's %llu)", first,
           bins, got[first], expected[first], (unsigned long long)got_total,
           (unsigned long long)expected_total);
  return 1;
}

/* ---- host side of segmented_sort: the offsets, the C baseline, the reference, the checks ---- */

uint64_t bench_segment_offsets(uint32_t *offsets, size_t n, size_t keys) {
  uint64_t segments = (n + keys - 1) / keys;
  for (uint64_t k = 0; k <= segments; k++) {
    uint64_t at = k * keys;
    offsets[k] = (uint32_t)(at < n ? at : n);
  }
  return segments;
}

/* An insertion sort of each segment, out of place: each key of the input
 * goes into the output's sorted prefix of its segment, past every key whose
 * order image is above its own (not above or equal: stable). `kind` a
 * constant at each call, so that integers compare their bits as they are. */
#define SEGMENTED_HOST_FUNCTION(W)                                                             \
  static inline void segmented_sort##W(const uint##W##_t *in, uint##W##_t *out,                \
                                       const uint32_t *offsets, uint64_t segments, int kind) { \
    for (uint64_t k = 0; k < segments; k++) {                                                  \
      const size_t begin = offsets[k], end = offsets[k + 1];                                   \
      for (size_t i = begin; i < end; i++) {                                                   \
        const uint##W##_t x = in[i], image = order##W(x, kind);                                \
        size_t j = i;                                                                          \
        for (; j > begin && order##W(out[j - 1], kind) > image; j--) out[j] = out[j - 1];      \
        out[j] = x;                                                                            \
      }                                                                                        \
    }                                                                                          \
  }

SEGMENTED_HOST_FUNCTION(32)
SEGMENTED_HOST_FUNCTION(64)

void bench_segmented_sort_host(const host_type *t, const void *in, void *out,
                               const uint32_t *offsets, uint64_t segments) {
  if (t->size == 4) {
    if (t->kind == KIND_UNSIGNED) {
      segmented_sort32(in, out, offsets, segments, KIND_UNSIGNED);
    } else if (t->kind == KIND_SIGNED) {
      segmented_sort32(in, out, offsets, segments, KIND_SIGNED);
    } else {
      segmented_sort32(in, out, offsets, segments, KIND_FLOAT);
    }
  } else if (t->kind == KIND_UNSIGNED) {
    segmented_sort64(in, out, offsets, segments, KIND_UNSIGNED);
  } else if (t->kind == KIND_SIGNED) {
    segmented_sort64(in, out, offsets, segments, KIND_SIGNED);
  } else {
    segmented_sort64(in, out, offsets, segments, KIND_FLOAT);
  }
}

/* The reference's (order image, index) pairs, ordered by image, then index. */
typedef struct segment_entry {
  uint64_t image;
  uint64_t index;
} segment_entry;

static int compare_segment_entries(const void *a, const void *b) {
  const segment_entry *x = a, *y = b;
  if (x->image != y->image) return x->image < y->image ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

int bench_segmented_sort_reference(const host_type *t, const void *in, void *expected,
                                   const uint32_t *offsets, uint64_t segments) {
  size_t longest = 0;
  for (uint64_t k = 0; k < segments; k++) {
    size_t length = offsets[k + 1] - offsets[k];
    if (length > longest) longest = length;
  }
  segment_entry *entries = malloc((longest ? longest : 1) * sizeof *entries);
  if (!entries) return -1;
  const unsigned char *from = in;
  unsigned char *to = expected;
  for (uint64_t k = 0; k < segments; k++) {
    const size_t begin = offsets[k], length = offsets[k + 1] - offsets[k];
    for (size_t j = 0; j < length; j++) {
      entries[j].image = bench_element_image(t, bench_element_bits(t, in, begin + j));
      entries[j].index = begin + j;
    }
    qsort(entries, length, sizeof *entries, compare_segment_entries);
    for (size_t j = 0; j < length; j++) {
      memcpy(to + (begin + j) * t->size, from + entries[j].index * t->size, t->size);
    }
  }
  free(entries);
  return 0;
}

/* The segment holding key i: the last k with offsets[k] <= i. */
static uint64_t segment_of(const uint32_t *offsets, uint64_t segments, size_t i) {
  uint64_t low = 0, high = segments;
  while (high - low > 1) {
    uint64_t middle = low + (high - low) / 2;
    if (offsets[middle] <= i) {
      low = middle;
    } else {
      high = middle;
    }
  }
  return low;
}

int bench_check_segmented_sort(const host_type *t, const void *got, const void *expected, size_t n,
                               const uint32_t *offsets, uint64_t segments, check_message *message) {
  if (memcmp(got, expected, n * t->size) == 0) return 0;
  size_t i = 0;
  while (i < n && bench_element_bits(t, got, i) == bench_element_bits(t, expected, i)) i++;
  uint64_t k = segment_of(offsets, segments, i);
  char a[48], b[48];
  snprintf(message->text, sizeof message->text,
           "key %zu (segment %llu, keys %u to %u) is %s, the host's %s", i, (unsigned long long)k,
           offsets[k], offsets[k + 1] - 1,
           format_element(t, bench_element_bits(t, got, i), a, sizeof a),
           format_element(t, bench_element_bits(t, expected, i), b, sizeof b));
  return 1;
}

void bench_segmented_pack(const host_type *t, const void *in, const uint32_t *offsets,
                          uint64_t segments, uint64_t *packed) {
  for (uint64_t k = 0; k < segments; k++) {
    for (size_t i = offsets[k]; i < offsets[k + 1]; i++) {
      packed[i] = k << 32 | bench_element_image(t, bench_element_bits(t, in, i));
    }
  }
}

int bench_check_segmented_packed(const host_type *t, const uint64_t *packed, const void *expected,
                                 const uint32_t *offsets, uint64_t segments,
                                 check_message *message) {
  for (uint64_t k = 0; k < segments; k++) {
    for (size_t i = offsets[k]; i < offsets[k + 1]; i++) {
      uint64_t image = bench_element_image(t, bench_element_bits(t, expected, i));
      if (packed[i] == (k << 32 | image)) continue;
      char b[48];
      snprintf(message->text, sizeof message->text,
               "packed key %zu is segment %llu, image 0x%08llx; the host's segment %llu, image "
               "0x%08llx (%s)",
               i, (unsigned long long)(packed[i] >> 32),
               (unsigned long long)(packed[i] & 0xffffffffu), (unsigned long long)k,
               (unsigned long long)image,
               format_element(t, bench_element_bits(t, expected, i), b, sizeof b));
      return 1;
    }
  }
  return 0;
}
