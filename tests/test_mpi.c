/* The MPI component (include/clgpu/mpi.h) under mpirun: tests/mpi_run.sh
 * starts this program on 1, 2, 3 and 4 ranks. Every rank makes the same
 * global array from the shared seed, holds the part its split gives it,
 * and checks the distributed result against a host reduction or scan of
 * the whole array; failures on one rank must come back on every rank.
 *
 * Not cmocka: its output of several ranks would interleave, and a failed
 * assertion on one rank would leave the others waiting. Each check
 * counts; the program ends with an MPI_Allreduce of the failure counts, so
 * every rank exits 1 when any rank saw a failure. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include <clgpu/clgpu.h>
#include <clgpu/mpi.h>

/* The library's fault injection (src/core/fault.h), exported under its
 * internal names for tests: the n-th enqueue after arming fails with
 * CL_OUT_OF_RESOURCES. */
void clgpu__fault_arm(unsigned kinds, long n);
void clgpu__fault_disarm(void);
long clgpu__fault_points_seen(void);
#define FAULT_ENQUEUE 4u

static int rank, size;
static long failures, checks;
static clgpu_context *context;
static uint64_t seed;

static void fail(const char *format, ...) {
  va_list args;
  va_start(args, format);
  printf("rank %d of %d: FAIL: ", rank, size);
  vprintf(format, args);
  printf("\n");
  fflush(stdout);
  va_end(args);
  failures++;
}

#define CHECK(condition, ...)            \
  do {                                   \
    checks++;                            \
    if (!(condition)) fail(__VA_ARGS__); \
  } while (0)

/* ---- data ---- */

static uint64_t next(uint64_t *state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  uint64_t x = *state;
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ULL;
  return x ^ (x >> 32);
}

static const clgpu_type all_types[] = {
    CLGPU_TYPE_INT8,  CLGPU_TYPE_UINT8,  CLGPU_TYPE_INT16,  CLGPU_TYPE_UINT16,
    CLGPU_TYPE_INT32, CLGPU_TYPE_UINT32, CLGPU_TYPE_INT64,  CLGPU_TYPE_UINT64,
    CLGPU_TYPE_HALF,  CLGPU_TYPE_FLOAT,  CLGPU_TYPE_DOUBLE,
};

static int is_float(clgpu_type t) {
  return t == CLGPU_TYPE_HALF || t == CLGPU_TYPE_FLOAT || t == CLGPU_TYPE_DOUBLE;
}

static int supported(clgpu_type t) {
  const clgpu_device_info *info = clgpu_context_device_info(context);
  if (t == CLGPU_TYPE_DOUBLE) return info->has_fp64;
  if (t == CLGPU_TYPE_HALF) return info->has_fp16;
  return 1;
}

/* Half from a small integer or a power-of-two fraction (exact). */
static uint16_t half_of(double x) {
  if (x == 0) return signbit(x) ? 0x8000 : 0;
  uint16_t sign = x < 0 ? 0x8000 : 0;
  int e;
  double f = frexp(fabs(x), &e); /* x = f 2^e, f in [0.5, 1) */
  unsigned mantissa = (unsigned)ldexp(f, 11) - 1024;
  return (uint16_t)(sign | ((e - 1 + 15) << 10) | mantissa);
}

static double half_value(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
  return (h & 0x8000) ? -v : v;
}

/* Element i of a global array as a double (what the generators produce
 * is exact in every type), by `pattern`: 0 random small values (sums stay
 * exact in float), 1 all equal, 2 a few special float values (signed
 * zeros, infinities, NaNs) among random ones. */
static double value_at(clgpu_type t, int pattern, uint64_t i) {
  uint64_t state = seed ^ (i * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)t << 56) ^ (uint64_t)pattern;
  uint64_t r = next(&state);
  if (pattern == 1) return 3;
  if (pattern == 2 && is_float(t) && r % 7 == 0) {
    static const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN};
    return specials[(r >> 8) % 5];
  }
  int is_signed = t == CLGPU_TYPE_INT8 || t == CLGPU_TYPE_INT16 || t == CLGPU_TYPE_INT32 ||
                  t == CLGPU_TYPE_INT64 || is_float(t);
  double v = (double)((r >> 16) % 100);
  if (is_signed && (r & 1) && v != 0) v = -v; /* -0 only among pattern 2's specials */
  if (is_float(t)) v = v / 4; /* quarters: exact in half */
  return v;
}

static void store(clgpu_type t, void *bytes, size_t i, double v) {
  switch (t) {
    case CLGPU_TYPE_INT8:
      ((int8_t *)bytes)[i] = (int8_t)v;
      break;
    case CLGPU_TYPE_UINT8:
      ((uint8_t *)bytes)[i] = (uint8_t)v;
      break;
    case CLGPU_TYPE_INT16:
      ((int16_t *)bytes)[i] = (int16_t)v;
      break;
    case CLGPU_TYPE_UINT16:
      ((uint16_t *)bytes)[i] = (uint16_t)v;
      break;
    case CLGPU_TYPE_INT32:
      ((int32_t *)bytes)[i] = (int32_t)v;
      break;
    case CLGPU_TYPE_UINT32:
      ((uint32_t *)bytes)[i] = (uint32_t)v;
      break;
    case CLGPU_TYPE_INT64:
      ((int64_t *)bytes)[i] = (int64_t)v;
      break;
    case CLGPU_TYPE_UINT64:
      ((uint64_t *)bytes)[i] = (uint64_t)v;
      break;
    case CLGPU_TYPE_HALF:
      ((uint16_t *)bytes)[i] = isnan(v)   ? 0x7e00
                               : isinf(v) ? (v < 0 ? 0xfc00 : 0x7c00)
                                          : half_of(v);
      break;
    case CLGPU_TYPE_FLOAT:
      ((float *)bytes)[i] = (float)v;
      break;
    case CLGPU_TYPE_DOUBLE:
      ((double *)bytes)[i] = v;
      break;
    default:
      break;
  }
}

static double load(clgpu_type t, const void *bytes, size_t i) {
  switch (t) {
    case CLGPU_TYPE_INT8:
      return ((const int8_t *)bytes)[i];
    case CLGPU_TYPE_UINT8:
      return ((const uint8_t *)bytes)[i];
    case CLGPU_TYPE_INT16:
      return ((const int16_t *)bytes)[i];
    case CLGPU_TYPE_UINT16:
      return ((const uint16_t *)bytes)[i];
    case CLGPU_TYPE_INT32:
      return ((const int32_t *)bytes)[i];
    case CLGPU_TYPE_UINT32:
      return ((const uint32_t *)bytes)[i];
    case CLGPU_TYPE_INT64:
      return (double)((const int64_t *)bytes)[i];
    case CLGPU_TYPE_UINT64:
      return (double)((const uint64_t *)bytes)[i];
    case CLGPU_TYPE_HALF:
      return half_value(((const uint16_t *)bytes)[i]);
    case CLGPU_TYPE_FLOAT:
      return ((const float *)bytes)[i];
    case CLGPU_TYPE_DOUBLE:
      return ((const double *)bytes)[i];
    default:
      return 0;
  }
}

/* An integer type's largest value, or with `lowest` its lowest, as a
 * double (exact up to 2^53; the 64-bit limits round to the same double as
 * the loaded element does). */
static double type_limit(clgpu_type t, int lowest) {
  switch (t) {
  case CLGPU_TYPE_INT8: return lowest ? INT8_MIN : INT8_MAX;
  case CLGPU_TYPE_UINT8: return lowest ? 0 : UINT8_MAX;
  case CLGPU_TYPE_INT16: return lowest ? INT16_MIN : INT16_MAX;
  case CLGPU_TYPE_UINT16: return lowest ? 0 : UINT16_MAX;
  case CLGPU_TYPE_INT32: return lowest ? INT32_MIN : INT32_MAX;
  case CLGPU_TYPE_UINT32: return lowest ? 0 : UINT32_MAX;
  case CLGPU_TYPE_INT64: return lowest ? (double)INT64_MIN : (double)INT64_MAX;
  case CLGPU_TYPE_UINT64: return lowest ? 0 : (double)UINT64_MAX;
  default: return NAN;
  }
}

/* The reference order of MIN and MAX (docs/reduce.md): NaNs last, then by
 * value, -0 before +0 (for MAX, +0 before -0). */
static int ranks_before(double a, double b, int max_order) {
  if (isnan(a) || isnan(b)) return !isnan(a) && isnan(b);
  if (a == b) {
    if (a != 0 || signbit(a) == signbit(b)) return 0;
    return max_order ? !signbit(a) : signbit(a) != 0;
  }
  return max_order ? a > b : a < b;
}

/* ---- splits: how many of the global n elements each rank holds ---- */

enum { SPLIT_EVEN, SPLIT_ALL_ON_LAST, SPLIT_FIRST_EMPTY, SPLIT_UNEVEN, SPLITS };
static const char *split_names[] = {"even", "all on the last rank", "rank 0 empty", "uneven"};

static void split(int how, uint64_t n, uint64_t *begin, uint64_t *count) {
  uint64_t at = 0;
  for (int r = 0; r < size; r++) {
    uint64_t c;
    if (how == SPLIT_EVEN) {
      c = n / (uint64_t)size + ((uint64_t)r < n % (uint64_t)size);
    } else if (how == SPLIT_ALL_ON_LAST) {
      c = r == size - 1 ? n : 0;
    } else if (how == SPLIT_FIRST_EMPTY) {
      c = r == 0 && size > 1 ? 0 : (n - at) / (uint64_t)(size - r);
      if (r == size - 1) c = n - at;
    } else {
      c = r == size - 1 ? n - at : (n - at) * (uint64_t)(r + 1) / (uint64_t)(size + 1);
    }
    if (r == rank) *begin = at, *count = c;
    at += c;
  }
}

/* This rank's part of a global array in a new buffer, as a 1-D view with
 * `stride` (1 or 2: every other element of the buffer). */
static cl_mem upload(clgpu_type t, int pattern, uint64_t begin, uint64_t count, int stride,
                     clgpu_array *view) {
  size_t element = clgpu_type_size(t);
  size_t bytes = (size_t)(count ? count : 1) * element * (size_t)stride;
  unsigned char *host = calloc(1, bytes);
  for (uint64_t i = 0; i < count; i++) {
    store(t, host, (size_t)(i * (uint64_t)stride), value_at(t, pattern, begin + i));
  }
  cl_mem buffer = NULL;
  clgpu_status status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, bytes, &buffer);
  if (status == CLGPU_SUCCESS) {
    cl_int code = clEnqueueWriteBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 0, bytes,
                                       host, 0, NULL, NULL);
    status = code == CL_SUCCESS ? CLGPU_SUCCESS : (clgpu_status)code;
  }
  free(host);
  if (status != CLGPU_SUCCESS) {
    fail("upload: %s: %s", clgpu_status_name(status), clgpu_last_error());
    return NULL;
  }
  ptrdiff_t strides[1] = {stride};
  size_t shape[1] = {(size_t)count};
  status = clgpu_array_strided(buffer, 0, t, 1, shape, strides, view);
  if (status != CLGPU_SUCCESS) fail("view: %s", clgpu_last_error());
  return buffer;
}

/* ---- reductions ---- */

static const char *reduce_names[] = {"",       "SUM",    "PRODUCT", "MIN", "MAX",
                                     "ARGMIN", "ARGMAX", "COUNT",   "ANY", "ALL"};

/* The host result of `kind` over the global array, as a double (indices
 * and counts too). */
static double reference_reduce(clgpu_reduce_kind kind, clgpu_type t, int pattern, uint64_t n,
                               double *magnitude) {
  double acc = kind == CLGPU_REDUCE_PRODUCT ? 1 : 0;
  *magnitude = 0;
  double best = NAN;
  uint64_t best_index = UINT64_MAX;
  int have = 0;
  for (uint64_t i = 0; i < n; i++) {
    double v = value_at(t, pattern, i);
    *magnitude += fabs(v);
    switch (kind) {
      case CLGPU_REDUCE_SUM:
        acc += v;
        break;
      case CLGPU_REDUCE_PRODUCT:
        acc *= v;
        break;
      case CLGPU_REDUCE_MIN:
      case CLGPU_REDUCE_MAX:
      case CLGPU_REDUCE_ARGMIN:
      case CLGPU_REDUCE_ARGMAX: {
        int max_order = kind == CLGPU_REDUCE_MAX || kind == CLGPU_REDUCE_ARGMAX;
        if (!have || ranks_before(v, best, max_order)) best = v, best_index = i;
        have = 1;
        break;
      }
      case CLGPU_REDUCE_COUNT:
        acc += v != 0;
        break;
      case CLGPU_REDUCE_ANY:
        acc = acc || v != 0;
        break;
      case CLGPU_REDUCE_ALL:
        acc = i == 0 ? v != 0 : acc && v != 0;
        break;
      default:
        break;
    }
  }
  if (kind == CLGPU_REDUCE_ALL && n == 0) return 1;
  if (kind == CLGPU_REDUCE_MIN || kind == CLGPU_REDUCE_MAX) return best;
  if (kind == CLGPU_REDUCE_ARGMIN || kind == CLGPU_REDUCE_ARGMAX) return (double)best_index;
  return acc;
}

/* The integer types' sums and products wrap: the reference (exact in a
 * double at these sizes) is taken modulo the type's range. */
static double wrap(clgpu_type t, double v) {
  int64_t w = (int64_t)v;
  switch (t) {
    case CLGPU_TYPE_INT8:
      return (int8_t)(uint8_t)w;
    case CLGPU_TYPE_UINT8:
      return (uint8_t)w;
    case CLGPU_TYPE_INT16:
      return (int16_t)(uint16_t)w;
    case CLGPU_TYPE_UINT16:
      return (uint16_t)w;
    case CLGPU_TYPE_INT32:
      return (int32_t)(uint32_t)w;
    case CLGPU_TYPE_UINT32:
      return (uint32_t)w;
    case CLGPU_TYPE_INT64:
      return (double)w;
    case CLGPU_TYPE_UINT64:
      return (double)(uint64_t)w;
    default:
      return v;
  }
}

static int same_value(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  return a == b && signbit(a) == signbit(b);
}

/* One distributed reduction of a global array of n elements split by
 * `how`, checked against the host and, for allreduce, for the same bits on
 * every rank. */
static void reduce_case(clgpu_reduce_kind kind, clgpu_type t, int pattern, uint64_t n, int how,
                        int stride, int root) {
  uint64_t begin = 0, count = 0;
  split(how, n, &begin, &count);
  clgpu_array part;
  cl_mem buffer = upload(t, pattern, begin, count, stride, &part);
  clgpu_reduce_op op = {.kind = kind};
  clgpu_type result_type = clgpu_reduce_result_type(&op, t);
  unsigned char result[16] = {0}, sentinel[16];
  memset(result, 0xa5, sizeof result);
  memcpy(sentinel, result, sizeof result);
  size_t result_size = clgpu_type_size(result_type);
  clgpu_status status =
      root < 0 ? clgpu_mpi_allreduce(context, &op, result, result_size, &part, MPI_COMM_WORLD, NULL)
               : clgpu_mpi_reduce(context, &op, rank == root ? result : NULL, result_size, &part,
                                  root, MPI_COMM_WORLD, NULL);
  const char *what = root < 0 ? "allreduce" : "reduce";
  CHECK(status == CLGPU_SUCCESS, "%s %s %s n=%llu (%s): %s: %s", what, reduce_names[kind],
        clgpu_type_cl_name(t), (unsigned long long)n, split_names[how], clgpu_status_name(status),
        clgpu_last_error());
  if (status == CLGPU_SUCCESS && (root < 0 || rank == root)) {
    double magnitude;
    double want = reference_reduce(kind, t, pattern, n, &magnitude);
    double got = load(result_type, result, 0);
    if (kind == CLGPU_REDUCE_ARGMIN || kind == CLGPU_REDUCE_ARGMAX) {
      uint64_t index;
      memcpy(&index, result, sizeof index);
      CHECK(index == (uint64_t)want || (n == 0 && index == UINT64_MAX),
            "%s %s %s n=%llu (%s): index %llu, want %.0f", what, reduce_names[kind],
            clgpu_type_cl_name(t), (unsigned long long)n, split_names[how],
            (unsigned long long)index, want);
    } else {
      if (!is_float(t) && (kind == CLGPU_REDUCE_SUM || kind == CLGPU_REDUCE_PRODUCT)) {
        want = wrap(t, want);
      }
      /* Empty: reduce.md's largest (MIN) or lowest (MAX) value. */
      if (kind == CLGPU_REDUCE_MIN && n == 0) want = is_float(t) ? INFINITY : type_limit(t, 0);
      if (kind == CLGPU_REDUCE_MAX && n == 0) want = is_float(t) ? -INFINITY : type_limit(t, 1);
      /* Quarters below 100 summed: exact in float and double, so those
       * check the combining exactly. Half has 11 bits, and a device may
       * round every partial sum to half (Intel's CPU runtime does): the
       * roundings of random signs walk, and 2^-11 of the sum of the
       * magnitudes (about 36 here) bounds what was seen (up to 5) with room,
       * while a lost rank's partial (hundreds) still fails. */
      double tolerance =
          t == CLGPU_TYPE_HALF && kind == CLGPU_REDUCE_SUM ? magnitude * ldexp(1, -11) : 0;
      int same = (kind == CLGPU_REDUCE_MIN || kind == CLGPU_REDUCE_MAX) ? same_value(got, want)
                 : isnan(want)                                          ? isnan(got)
                               : fabs(got - want) <= tolerance;
      CHECK(same, "%s %s %s n=%llu (%s): got %.17g, want %.17g", what, reduce_names[kind],
            clgpu_type_cl_name(t), (unsigned long long)n, split_names[how], got, want);
    }
  }
  if (status == CLGPU_SUCCESS && root >= 0 && rank != root) {
    CHECK(memcmp(result, sentinel, sizeof result) == 0,
          "reduce: a rank other than the root got a "
          "result written");
  }
  if (status == CLGPU_SUCCESS && root < 0) {
    /* The same bits on every rank. */
    unsigned char *every = malloc((size_t)size * 16);
    MPI_Allgather(result, 16, MPI_BYTE, every, 16, MPI_BYTE, MPI_COMM_WORLD);
    for (int r = 1; r < size; r++) {
      CHECK(memcmp(every, every + 16 * r, result_size) == 0,
            "allreduce %s %s: rank %d's result differs from rank 0's", reduce_names[kind],
            clgpu_type_cl_name(t), r);
    }
    free(every);
  }
  clgpu_buffer_release(context, buffer);
}

static void test_reductions(void) {
  static const clgpu_reduce_kind kinds[] = {
      CLGPU_REDUCE_SUM,   CLGPU_REDUCE_PRODUCT, CLGPU_REDUCE_MIN,
      CLGPU_REDUCE_MAX,   CLGPU_REDUCE_ARGMIN,  CLGPU_REDUCE_ARGMAX,
      CLGPU_REDUCE_COUNT, CLGPU_REDUCE_ANY,     CLGPU_REDUCE_ALL};
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    for (size_t ti = 0; ti < sizeof all_types / sizeof *all_types; ti++) {
      clgpu_type t = all_types[ti];
      if (!supported(t)) continue;
      clgpu_reduce_kind kind = kinds[k];
      /* Every kind on the common types, SUM, MIN and MAX on all of them. */
      int common = t == CLGPU_TYPE_INT8 || t == CLGPU_TYPE_UINT32 || t == CLGPU_TYPE_FLOAT ||
                   t == CLGPU_TYPE_INT64;
      if (!common && kind != CLGPU_REDUCE_SUM && kind != CLGPU_REDUCE_MIN &&
          kind != CLGPU_REDUCE_MAX) {
        continue;
      }
      /* Products of up to 12 values: small and exact. */
      uint64_t n = kind == CLGPU_REDUCE_PRODUCT ? 12 : 3001;
      int pattern = kind == CLGPU_REDUCE_PRODUCT ? 1 : 0;
      for (int how = 0; how < SPLITS; how++) reduce_case(kind, t, pattern, n, how, 1, -1);
      if (is_float(t) && kind != CLGPU_REDUCE_PRODUCT && kind != CLGPU_REDUCE_SUM) {
        reduce_case(kind, t, 2, 2000, SPLIT_UNEVEN, 2, -1);
      }
    }
  }
  /* Empty everywhere, strided parts, a larger array, reduce to each root. */
  reduce_case(CLGPU_REDUCE_SUM, CLGPU_TYPE_FLOAT, 0, 0, SPLIT_EVEN, 1, -1);
  reduce_case(CLGPU_REDUCE_ARGMAX, CLGPU_TYPE_INT32, 0, 0, SPLIT_EVEN, 1, -1);
  reduce_case(CLGPU_REDUCE_MIN, CLGPU_TYPE_UINT16, 0, 0, SPLIT_EVEN, 1, -1);
  reduce_case(CLGPU_REDUCE_SUM, CLGPU_TYPE_INT32, 1, 9, SPLIT_EVEN, 2, -1);
  reduce_case(CLGPU_REDUCE_SUM, CLGPU_TYPE_UINT32, 0, 300000, SPLIT_UNEVEN, 1, -1);
  reduce_case(CLGPU_REDUCE_ARGMIN, CLGPU_TYPE_FLOAT, 0, 300000, SPLIT_EVEN, 1, -1);
  for (int root = 0; root < size; root++) {
    reduce_case(CLGPU_REDUCE_MAX, CLGPU_TYPE_INT16, 0, 1000, SPLIT_EVEN, 1, root);
  }
}

/* ---- scans ---- */

static void scan_case(clgpu_scan_kind kind, int exclusive, clgpu_type t, int pattern, uint64_t n,
                      int how, int in_place) {
  uint64_t begin = 0, count = 0;
  split(how, n, &begin, &count);
  clgpu_array input, output;
  cl_mem in_buffer = upload(t, pattern, begin, count, 1, &input);
  cl_mem out_buffer = in_place ? NULL : upload(t, 1, 0, count, 1, &output);
  if (in_place) output = input;
  clgpu_scan_op op = {.kind = kind, .exclusive = exclusive};
  cl_event done = NULL;
  clgpu_status status =
      clgpu_mpi_scan(context, &op, &output, &input, MPI_COMM_WORLD, NULL, 0, NULL, &done);
  static const char *names[] = {"", "SUM", "MIN", "MAX"};
  CHECK(status == CLGPU_SUCCESS, "scan %s%s %s n=%llu (%s): %s: %s", names[kind],
        exclusive ? " exclusive" : "", clgpu_type_cl_name(t), (unsigned long long)n,
        split_names[how], clgpu_status_name(status), clgpu_last_error());
  if (status == CLGPU_SUCCESS) {
    size_t element = clgpu_type_size(t);
    unsigned char *host = malloc((size_t)(count ? count : 1) * element);
    cl_int code =
        clEnqueueReadBuffer(clgpu_context_queue(context), output.buffer, CL_TRUE, 0,
                            (size_t)count * element, host, done ? 1 : 0, done ? &done : NULL, NULL);
    CHECK(code == CL_SUCCESS, "scan: read back: %d", code);
    /* The reference: the global scan, walked from element 0. */
    double acc = 0, magnitude = 0;
    int have = 0;
    long wrong = 0;
    for (uint64_t i = 0; i < begin + count && code == CL_SUCCESS; i++) {
      double v = value_at(t, pattern, i);
      double before = acc;
      int had = have;
      magnitude += fabs(v);
      if (!have) {
        acc = v;
      } else if (kind == CLGPU_SCAN_SUM) {
        acc += v;
      } else if (ranks_before(v, acc, kind == CLGPU_SCAN_MAX)) {
        acc = v;
      }
      have = 1;
      if (i < begin) continue;
      double want = exclusive ? before : acc;
      double got = load(t, host, (size_t)(i - begin));
      int same;
      if (exclusive && !had) {
        /* The neutral (scan.h): 0 for SUM; for MIN and MAX a NaN for
         * floats, the type's largest (lowest) value for integers. */
        same = kind == CLGPU_SCAN_SUM   ? got == 0
               : is_float(t)            ? isnan(got)
                                        : got == type_limit(t, kind == CLGPU_SCAN_MAX);
      } else if (kind == CLGPU_SCAN_SUM && !is_float(t)) {
        same = got == wrap(t, want);
      } else if (kind == CLGPU_SCAN_SUM && t == CLGPU_TYPE_HALF) {
        /* A device may round every running sum to half (Intel's CPU runtime
         * does): the roundings walk, up to 6 at 800 elements here. */
        same = fabs(got - want) <= magnitude * ldexp(1, -8) + 1;
      } else if (kind == CLGPU_SCAN_SUM) {
        /* Quarters below 100: the sums are exact in float and double.
         * Compared as numbers: clgpu_scan's SUM starts from +0, so a part
         * whose first elements are -0 gives +0 there. */
        same = got == want;
      } else {
        same = same_value(got, want);
      }
      if (!same && wrong++ < 3) {
        fail("scan %s%s %s n=%llu (%s): element %llu is %.17g, want %.17g", names[kind],
             exclusive ? " exclusive" : "", clgpu_type_cl_name(t), (unsigned long long)n,
             split_names[how], (unsigned long long)i, got, want);
      }
    }
    free(host);
  }
  if (done) clReleaseEvent(done);
  clgpu_buffer_release(context, in_buffer);
  if (out_buffer) clgpu_buffer_release(context, out_buffer);
}

static void test_scans(void) {
  static const clgpu_scan_kind kinds[] = {CLGPU_SCAN_SUM, CLGPU_SCAN_MIN, CLGPU_SCAN_MAX};
  for (size_t k = 0; k < 3; k++) {
    for (size_t ti = 0; ti < sizeof all_types / sizeof *all_types; ti++) {
      clgpu_type t = all_types[ti];
      if (!supported(t)) continue;
      for (int exclusive = 0; exclusive < 2; exclusive++) {
        for (int how = 0; how < SPLITS; how++) {
          scan_case(kinds[k], exclusive, t, 0, 2500, how, how == SPLIT_UNEVEN);
        }
      }
      if (is_float(t) && kinds[k] != CLGPU_SCAN_SUM) {
        scan_case(kinds[k], 0, t, 2, 1500, SPLIT_EVEN, 0);
        scan_case(kinds[k], 1, t, 2, 1500, SPLIT_EVEN, 1);
      }
    }
  }
  scan_case(CLGPU_SCAN_SUM, 0, CLGPU_TYPE_UINT32, 0, 0, SPLIT_EVEN, 0);
  scan_case(CLGPU_SCAN_SUM, 1, CLGPU_TYPE_INT64, 0, 400000, SPLIT_UNEVEN, 1);
  scan_case(CLGPU_SCAN_SUM, 0, CLGPU_TYPE_FLOAT, 0, 400000, SPLIT_EVEN, 0);
}

/* ---- the distributed sort ---- */

typedef struct item {
  double value;
  uint64_t index;
} item;

static int sort_descending;

/* The order of sort.h: -inf < ... < -0 < +0 < ... < +inf < NaN, equal
 * keys by index (the test's NaNs all have the same bits); descending the
 * reverse of the keys' order, still by index among equal keys. */
static int compare_items(const void *pa, const void *pb) {
  const item *a = pa, *b = pb;
  int order = 0;
  if (isnan(a->value) || isnan(b->value)) {
    order = isnan(a->value) - isnan(b->value);
  } else if (a->value != b->value) {
    order = a->value < b->value ? -1 : 1;
  } else if (signbit(a->value) != signbit(b->value)) {
    order = signbit(a->value) ? -1 : 1;
  }
  if (sort_descending) order = -order;
  if (order) return order;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* Where sort_case's workspace comes from: none (the call makes one), one
 * made from the report, or one wrapped at an offset of the caller's buffer
 * or of a sub-buffer of it. */
enum { OWN_WORKSPACE, MADE_WORKSPACE, WRAPPED_WORKSPACE, SUB_BUFFER_WORKSPACE };
static int sort_workspace;

/* The report of clgpu_mpi_sort: the call, then the local sort's parts and
 * buffers at the same offsets, then the four staging buffers of the part's
 * bytes. */
static void check_sort_report(const char *what, const clgpu_sort_spec *spec,
                              const clgpu_array *out_keys, const clgpu_array *out_values,
                              const clgpu_array *keys, const clgpu_array *values,
                              const clgpu_workspace_size *report) {
  clgpu_workspace_size local, other;
  clgpu_status status = clgpu_sort_workspace_size(context, spec, keys, values, NULL, &local);
  if (status == CLGPU_SUCCESS) {
    status = clgpu_sort_workspace_size(context, spec, out_keys, out_values, NULL, &other);
  }
  CHECK(status == CLGPU_SUCCESS, "%s: the local report: %s", what, clgpu_last_error());
  if (status != CLGPU_SUCCESS) return;
  if (other.total_bytes > local.total_bytes) local = other; /* the larger serves both */
  CHECK(report->num_parts == local.num_parts + 1 &&
            report->parts[0].operation == CLGPU_OPERATION_MPI_SORT &&
            report->parts[0].parent == -1 && report->num_buffers == local.num_buffers + 4,
        "%s: report of %u parts (operation %d) and %u buffers, the local sort's %u and %u", what,
        report->num_parts, (int)report->parts[0].operation, report->num_buffers, local.num_parts,
        local.num_buffers);
  if (report->num_buffers != local.num_buffers + 4) return;
  for (unsigned p = 0; p < local.num_parts; p++) {
    CHECK(report->parts[p + 1].operation == local.parts[p].operation &&
              report->parts[p + 1].parent == local.parts[p].parent + 1,
          "%s: part %u of the report is not the local sort's", what, p + 1);
  }
  for (unsigned b = 0; b < local.num_buffers; b++) {
    CHECK(report->buffers[b].offset == local.buffers[b].offset &&
              report->buffers[b].bytes == local.buffers[b].bytes,
          "%s: buffer %u (%s) moved from the local sort's", what, b, local.buffers[b].name);
  }
  uint64_t key_size = clgpu_type_size(keys->type);
  uint64_t key_out = clgpu_array_count(keys) * key_size;
  uint64_t key_in = clgpu_array_count(out_keys) * key_size;
  uint64_t value_out = values ? clgpu_array_count(values) * clgpu_type_size(values->type) : 0;
  uint64_t value_in =
      values ? clgpu_array_count(out_values) * clgpu_type_size(out_values->type) : 0;
  uint64_t want[4] = {key_out, key_in, value_out, value_in}, end = local.total_bytes;
  for (unsigned i = 0; i < 4; i++) {
    const clgpu_workspace_buffer *b = &report->buffers[local.num_buffers + i];
    CHECK(b->bytes == want[i] && b->part == 0 && (!b->bytes || b->offset >= end) &&
              b->offset % report->alignment == 0,
          "%s: staging buffer %s: %llu bytes at %llu, want %llu after %llu", what, b->name,
          (unsigned long long)b->bytes, (unsigned long long)b->offset, (unsigned long long)want[i],
          (unsigned long long)end);
    if (b->bytes) end = b->offset + b->bytes;
  }
  CHECK(report->total_bytes == end, "%s: total %llu bytes, buffers end at %llu", what,
        (unsigned long long)report->total_bytes, (unsigned long long)end);
}

/* A workspace for the sort by sort_workspace (NULL for OWN_WORKSPACE);
 * *holder the caller's buffer it lies in, released by the caller. */
static clgpu_workspace *sort_workspace_for(const char *what, const clgpu_sort_spec *spec,
                                           const clgpu_array *out_keys,
                                           const clgpu_array *out_values, const clgpu_array *keys,
                                           const clgpu_array *values, cl_mem *holder) {
  *holder = NULL;
  if (sort_workspace == OWN_WORKSPACE) return NULL;
  clgpu_workspace_size report;
  clgpu_workspace *workspace = NULL;
  clgpu_status status =
      out_keys == keys ? clgpu_mpi_sort_workspace_size(context, spec, keys, values, NULL, &report)
                       : clgpu_mpi_sort_into_workspace_size(context, spec, out_keys, out_values,
                                                            keys, values, NULL, &report);
  CHECK(status == CLGPU_SUCCESS, "%s: workspace size: %s", what, clgpu_last_error());
  if (status != CLGPU_SUCCESS) return NULL;
  check_sort_report(what, spec, out_keys, out_values, keys, values, &report);
  if (sort_workspace == MADE_WORKSPACE) {
    status = clgpu_workspace_create(context, &report, &workspace);
  } else {
    /* Three alignments in: a sub-buffer starts one alignment in, the
     * workspace one more. */
    size_t a = (size_t)report.alignment, total = (size_t)report.total_bytes;
    status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, total + 3 * a, holder);
    cl_mem where = *holder;
    cl_mem sub = NULL;
    if (status == CLGPU_SUCCESS && sort_workspace == SUB_BUFFER_WORKSPACE) {
      cl_buffer_region region = {a, total + 2 * a};
      cl_int code = CL_SUCCESS;
      sub = clCreateSubBuffer(*holder, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region,
                              &code);
      status = code == CL_SUCCESS ? CLGPU_SUCCESS : (clgpu_status)code;
      where = sub;
    }
    if (status == CLGPU_SUCCESS)
      status = clgpu_workspace_wrap(context, &report, where, a, total, &workspace);
    if (sub) clReleaseMemObject(sub); /* the workspace retains it */
  }
  CHECK(status == CLGPU_SUCCESS, "%s: workspace: %s", what, clgpu_last_error());
  return workspace;
}

/* Whether a view's keys (and uint32 values) are want[0 .. count). */
static void expect_items(const char *what, const char *which, clgpu_type t, const clgpu_array *keys,
                         const clgpu_array *values, const item *want, uint64_t first,
                         uint64_t count) {
  size_t element = clgpu_type_size(t);
  unsigned char *got = malloc((size_t)(count ? count : 1) * element);
  uint32_t *got_values = malloc((size_t)(count ? count : 1) * sizeof *got_values);
  clgpu_status status = clgpu_array_read(context, got, (size_t)count * element, keys, 0, NULL);
  if (status == CLGPU_SUCCESS && values) {
    status = clgpu_array_read(context, got_values, (size_t)count * 4, values, 0, NULL);
  }
  CHECK(status == CLGPU_SUCCESS, "%s: read back %s: %s", what, which, clgpu_last_error());
  long wrong = 0;
  for (uint64_t i = 0; status == CLGPU_SUCCESS && i < count; i++) {
    const item *w = &want[i];
    double key = load(t, got, (size_t)i);
    int same = same_value(key, w->value) || (!is_float(t) && key == w->value);
    if (values) same = same && got_values[i] == w->index;
    if (!same && wrong++ < 3) {
      fail("%s: %s element %llu is %.17g (value %u), want %.17g (index %llu)", what, which,
           (unsigned long long)(first + i), key, values ? got_values[i] : 0, w->value,
           (unsigned long long)w->index);
    }
  }
  checks++;
  free(got);
  free(got_values);
}

/* Where sort_case's result goes: in place (clgpu_mpi_sort), or into outputs
 * split as the split of that index (clgpu_mpi_sort_into). */
static int sort_into = -1;

static void sort_case(clgpu_type t, int pattern, uint64_t n, int how, int descending,
                      int with_values, int stride) {
  uint64_t begin = 0, count = 0, out_begin = 0, out_count = 0;
  split(how, n, &begin, &count);
  clgpu_array keys, values, out_keys, out_values;
  cl_mem key_buffer = upload(t, pattern, begin, count, stride, &keys);
  cl_mem value_buffer = NULL, out_buffer = NULL, out_value_buffer = NULL;
  if (with_values) {
    /* The values are the elements' global indices: a stable sort carries
     * them to where the host's stable sort puts them. */
    uint32_t *indices = malloc((size_t)(count ? count : 1) * sizeof *indices);
    for (uint64_t i = 0; i < count; i++) indices[i] = (uint32_t)(begin + i);
    clgpu_buffer_create(context, CL_MEM_READ_WRITE, (size_t)(count ? count : 1) * 4, &value_buffer);
    values = clgpu_array_of(value_buffer, CLGPU_TYPE_UINT32, (size_t)count);
    if (count) clgpu_array_write(context, &values, indices, (size_t)count * 4, 0, NULL);
    free(indices);
  }
  if (sort_into >= 0) {
    split(sort_into, n, &out_begin, &out_count);
    out_buffer = upload(t, 1, 0, out_count, stride, &out_keys);
    if (with_values) {
      clgpu_buffer_create(context, CL_MEM_READ_WRITE, (size_t)(out_count ? out_count : 1) * 4,
                          &out_value_buffer);
      out_values = clgpu_array_of(out_value_buffer, CLGPU_TYPE_UINT32, (size_t)out_count);
    }
  } else {
    out_begin = begin, out_count = count, out_keys = keys, out_values = values;
  }
  const clgpu_array *result_keys = sort_into >= 0 ? &out_keys : &keys;
  const clgpu_array *result_values = with_values ? (sort_into >= 0 ? &out_values : &values) : NULL;
  clgpu_sort_spec spec = {.descending = descending};
  static const char *workspace_names[] = {"", ", made workspace", ", wrapped workspace",
                                          ", workspace in a sub-buffer"};
  char what[240];
  snprintf(what, sizeof what, "sort%s %s%s%s n=%llu (%s%s%s%s%s)", sort_into >= 0 ? "_into" : "",
           clgpu_type_cl_name(t), descending ? " descending" : "",
           with_values ? " with values" : "", (unsigned long long)n, split_names[how],
           sort_into >= 0 ? " into " : "", sort_into >= 0 ? split_names[sort_into] : "",
           stride > 1 ? ", strided" : "", workspace_names[sort_workspace]);
  cl_mem holder = NULL;
  clgpu_sort_options options = {0};
  options.workspace = sort_workspace_for(what, &spec, result_keys, result_values, &keys,
                                         with_values ? &values : NULL, &holder);
  clgpu_status status =
      sort_into >= 0
          ? clgpu_mpi_sort_into(context, &spec, &out_keys, with_values ? &out_values : NULL, &keys,
                                with_values ? &values : NULL, MPI_COMM_WORLD, &options)
          : clgpu_mpi_sort(context, &spec, &keys, with_values ? &values : NULL, MPI_COMM_WORLD,
                           &options);
  clgpu_workspace_destroy(options.workspace);
  if (holder) clgpu_buffer_release(context, holder);
  CHECK(status == CLGPU_SUCCESS, "%s: %s: %s", what, clgpu_status_name(status), clgpu_last_error());
  if (status == CLGPU_SUCCESS) {
    item *all = malloc((size_t)(n ? n : 1) * sizeof *all);
    for (uint64_t i = 0; i < n; i++) all[i] = (item){value_at(t, pattern, i), i};
    sort_descending = descending;
    qsort(all, (size_t)n, sizeof *all, compare_items);
    expect_items(what, "result", t, result_keys, result_values, all + out_begin, out_begin,
                 out_count);
    if (sort_into >= 0) {
      /* The inputs: the rank's own part, sorted locally. */
      for (uint64_t i = 0; i < count; i++) {
        all[i] = (item){value_at(t, pattern, begin + i), begin + i};
      }
      qsort(all, (size_t)count, sizeof *all, compare_items);
      expect_items(what, "input", t, &keys, with_values ? &values : NULL, all, begin, count);
    }
    free(all);
  }
  clgpu_buffer_release(context, key_buffer);
  if (value_buffer) clgpu_buffer_release(context, value_buffer);
  if (out_buffer) clgpu_buffer_release(context, out_buffer);
  if (out_value_buffer) clgpu_buffer_release(context, out_value_buffer);
}

static void test_sorts(void) {
  for (size_t ti = 0; ti < sizeof all_types / sizeof *all_types; ti++) {
    clgpu_type t = all_types[ti];
    if (!supported(t)) continue;
    for (int how = 0; how < SPLITS; how++) {
      sort_case(t, 0, 3001, how, 0, how % 2, how == SPLIT_UNEVEN ? 2 : 1);
    }
    sort_case(t, 0, 2000, SPLIT_EVEN, 1, 1, 1);
    if (is_float(t)) {
      sort_case(t, 2, 2000, SPLIT_UNEVEN, 0, 1, 1);
      sort_case(t, 2, 2000, SPLIT_FIRST_EMPTY, 1, 1, 1);
    }
  }
  /* Every key equal: the split is by (rank, position) alone. */
  sort_case(CLGPU_TYPE_INT32, 1, 1001, SPLIT_UNEVEN, 0, 1, 1);
  sort_case(CLGPU_TYPE_UINT64, 1, 1001, SPLIT_ALL_ON_LAST, 1, 1, 1);
  sort_case(CLGPU_TYPE_FLOAT, 0, 0, SPLIT_EVEN, 0, 1, 1);
  /* The caller's workspace, in each form. */
  for (sort_workspace = MADE_WORKSPACE; sort_workspace <= SUB_BUFFER_WORKSPACE; sort_workspace++) {
    sort_case(CLGPU_TYPE_FLOAT, 2, 3001, SPLIT_UNEVEN, sort_workspace == WRAPPED_WORKSPACE, 1, 2);
    sort_case(CLGPU_TYPE_UINT64, 0, 2000, SPLIT_FIRST_EMPTY, 0, 0, 1);
    sort_case(CLGPU_TYPE_INT16, 0, 2000, SPLIT_ALL_ON_LAST, 1, 1, 1);
  }
  sort_workspace = OWN_WORKSPACE;
  /* Into outputs of other sizes: skewed inputs rebalanced, and the
   * reverse; every key equal; an empty array; with a workspace. */
  sort_into = SPLIT_EVEN;
  sort_case(CLGPU_TYPE_UINT32, 0, 3001, SPLIT_ALL_ON_LAST, 0, 1, 1);
  sort_case(CLGPU_TYPE_FLOAT, 2, 2000, SPLIT_FIRST_EMPTY, 1, 1, 2);
  sort_case(CLGPU_TYPE_INT64, 1, 1001, SPLIT_UNEVEN, 0, 1, 1);
  sort_case(CLGPU_TYPE_UINT16, 0, 0, SPLIT_EVEN, 0, 0, 1);
  sort_into = SPLIT_ALL_ON_LAST;
  sort_case(CLGPU_TYPE_DOUBLE, 2, 2000, SPLIT_EVEN, 0, 1, 1);
  sort_case(CLGPU_TYPE_INT8, 0, 3001, SPLIT_UNEVEN, 1, 0, 1);
  sort_into = SPLIT_UNEVEN;
  sort_workspace = WRAPPED_WORKSPACE;
  sort_case(CLGPU_TYPE_UINT32, 0, 5000, SPLIT_FIRST_EMPTY, 0, 1, 1);
  sort_workspace = OWN_WORKSPACE;
  sort_into = -1;
  sort_case(CLGPU_TYPE_UINT32, 0, 200000, SPLIT_UNEVEN, 0, 1, 1);
  /* Where the last call's time went: parts that add up to no more than the
   * whole, the device's and the exchange's never zero on a part of
   * keys. */
  clgpu_mpi_times times;
  CHECK(clgpu_mpi_last_times(&times) == CLGPU_SUCCESS, "last_times: %s", clgpu_last_error());
  double parts = times.device_ms + times.search_ms + times.staging_ms + times.exchange_ms;
  CHECK(times.total_ms > 0 && times.device_ms > 0 && times.exchange_ms > 0 &&
            parts <= times.total_ms * 1.0001 + 1e-3,
        "last_times: total %g ms, device %g, search %g, staging %g, exchange %g", times.total_ms,
        times.device_ms, times.search_ms, times.staging_ms, times.exchange_ms);
  if (size > 1) {
    CHECK(times.search_ms > 0 && times.staging_ms > 0, "last_times: search %g ms, staging %g",
          times.search_ms, times.staging_ms);
  }
  CHECK(clgpu_mpi_last_times(NULL) == CLGPU_INVALID_ARGUMENT, "last_times(NULL) accepted");
}

/* ---- failures agreed on ---- */

/* Whether every rank got `want`, and on every rank the message names the
 * first failing rank. */
static void expect_everywhere(const char *what, clgpu_status status, clgpu_status want,
                              int failing_rank) {
  CHECK(status == want, "%s: status %s, want %s (%s)", what, clgpu_status_name(status),
        clgpu_status_name(want), clgpu_last_error());
  if (failing_rank >= 0) {
    char label[64];
    snprintf(label, sizeof label, "rank %d of %d:", failing_rank, size);
    CHECK(strstr(clgpu_last_error(), label) != NULL, "%s: the message does not name %s: %s", what,
          label, clgpu_last_error());
  }
}

static void test_failures(void) {
  int last = size - 1;
  uint64_t begin = 0, count = 0;
  split(SPLIT_EVEN, 4000, &begin, &count);
  clgpu_array part, output;
  cl_mem buffer = upload(CLGPU_TYPE_UINT32, 0, begin, count, 1, &part);
  cl_mem out_buffer = upload(CLGPU_TYPE_UINT32, 1, 0, count, 1, &output);
  uint32_t result = 0xdeadbeef;

  /* A rank without a context. */
  clgpu_reduce_op sum = {.kind = CLGPU_REDUCE_SUM};
  clgpu_status status = clgpu_mpi_allreduce(rank == last ? NULL : context, &sum, &result,
                                            sizeof result, &part, MPI_COMM_WORLD, NULL);
  expect_everywhere("allreduce, no context on the last rank", status, CLGPU_INVALID_ARGUMENT, last);
  CHECK(result == 0xdeadbeef, "allreduce: a failed call wrote the result");

  /* Operators that differ. */
  clgpu_reduce_op max = {.kind = CLGPU_REDUCE_MAX};
  status = clgpu_mpi_allreduce(context, rank == last ? &max : &sum, &result, sizeof result, &part,
                               MPI_COMM_WORLD, NULL);
  expect_everywhere("allreduce, another operator on the last rank", status,
                    size > 1 ? CLGPU_INVALID_ARGUMENT : CLGPU_SUCCESS, -1);

  /* A wrong result size on rank 0 only. */
  status = clgpu_mpi_allreduce(context, &sum, &result, rank == 0 ? 2 : sizeof result, &part,
                               MPI_COMM_WORLD, NULL);
  expect_everywhere("allreduce, a wrong result size on rank 0", status, CLGPU_INVALID_ARGUMENT, 0);

  /* A root outside the communicator, and roots that differ. */
  status =
      clgpu_mpi_reduce(context, &sum, &result, sizeof result, &part, size, MPI_COMM_WORLD, NULL);
  expect_everywhere("reduce, root past the last rank", status, CLGPU_INVALID_ARGUMENT, 0);
  status = clgpu_mpi_reduce(context, &sum, &result, sizeof result, &part, rank == last ? 0 : last,
                            MPI_COMM_WORLD, NULL);
  expect_everywhere("reduce, roots that differ", status,
                    size > 1 ? CLGPU_INVALID_ARGUMENT : CLGPU_SUCCESS, -1);

  /* Refused workspaces on the last rank: a reduction's for the scan, a
   * scan's for the reduction. */
  clgpu_scan_op scan = {.kind = CLGPU_SCAN_SUM};
  clgpu_workspace *reduce_workspace = NULL, *scan_workspace = NULL;
  if (rank == last) {
    clgpu_workspace_size report;
    status = clgpu_mpi_reduce_workspace_size(context, &sum, &part, NULL, &report);
    if (status == CLGPU_SUCCESS)
      status = clgpu_workspace_create(context, &report, &reduce_workspace);
    if (status == CLGPU_SUCCESS) {
      status = clgpu_mpi_scan_workspace_size(context, &scan, &output, &part, NULL, &report);
    }
    if (status == CLGPU_SUCCESS) status = clgpu_workspace_create(context, &report, &scan_workspace);
    CHECK(status == CLGPU_SUCCESS, "workspaces: %s", clgpu_last_error());
  }
  clgpu_call_options options;
  memset(&options, 0, sizeof options);
  options.workspace = reduce_workspace;
  status = clgpu_mpi_scan(context, &scan, &output, &part, MPI_COMM_WORLD,
                          rank == last ? &options : NULL, 0, NULL, NULL);
  expect_everywhere("scan, a reduction's workspace on the last rank", status,
                    CLGPU_WORKSPACE_WRONG_OPERATION, last);
  /* Nothing written on any rank: the output still holds its 3s. */
  uint32_t *host = malloc((size_t)(count ? count : 1) * sizeof *host);
  clEnqueueReadBuffer(clgpu_context_queue(context), out_buffer, CL_TRUE, 0,
                      (size_t)count * sizeof *host, host, 0, NULL, NULL);
  int untouched = 1;
  for (uint64_t i = 0; i < count; i++) untouched &= host[i] == 3;
  CHECK(untouched, "scan: a failed call changed the output of rank %d", rank);
  free(host);
  options.workspace = scan_workspace;
  result = 0xdeadbeef;
  status = clgpu_mpi_allreduce(context, &sum, &result, sizeof result, &part, MPI_COMM_WORLD,
                               rank == last ? &options : NULL);
  expect_everywhere("allreduce, a scan's workspace on the last rank", status,
                    CLGPU_WORKSPACE_WRONG_OPERATION, last);
  CHECK(result == 0xdeadbeef, "allreduce: a failed call wrote the result");
  /* The right workspaces serve. */
  options.workspace = scan_workspace;
  status = clgpu_mpi_scan(context, &scan, &output, &part, MPI_COMM_WORLD,
                          rank == last ? &options : NULL, 0, NULL, NULL);
  CHECK(status == CLGPU_SUCCESS, "scan with its workspace: %s", clgpu_last_error());
  options.workspace = reduce_workspace;
  status = clgpu_mpi_allreduce(context, &sum, &result, sizeof result, &part, MPI_COMM_WORLD,
                               rank == last ? &options : NULL);
  CHECK(status == CLGPU_SUCCESS, "allreduce with its workspace: %s", clgpu_last_error());
  clgpu_workspace_destroy(reduce_workspace);
  clgpu_workspace_destroy(scan_workspace);

  /* CUSTOM operators are refused. */
  clgpu_reduce_op custom = {.kind = CLGPU_REDUCE_CUSTOM,
                            .result_type = CLGPU_TYPE_UINT32,
                            .reduce = "a + b",
                            .neutral = "0"};
  status =
      clgpu_mpi_allreduce(context, &custom, &result, sizeof result, &part, MPI_COMM_WORLD, NULL);
  expect_everywhere("allreduce, CUSTOM", status, CLGPU_INVALID_ARGUMENT, 0);
  clgpu_scan_op custom_scan = {.kind = CLGPU_SCAN_CUSTOM, .combine = "a + b", .neutral = "0"};
  status =
      clgpu_mpi_scan(context, &custom_scan, &output, &part, MPI_COMM_WORLD, NULL, 0, NULL, NULL);
  expect_everywhere("scan, CUSTOM", status, CLGPU_INVALID_ARGUMENT, 0);

  /* Sorts: values on one rank only, and a comparator: refused everywhere,
   * every part unchanged. */
  clgpu_array keys;
  cl_mem key_buffer = upload(CLGPU_TYPE_UINT32, 0, begin, count, 1, &keys);
  status = clgpu_mpi_sort(context, NULL, &keys, rank == last && size > 1 ? &output : NULL,
                          MPI_COMM_WORLD, NULL);
  expect_everywhere("sort, values on the last rank only", status,
                    size > 1 ? CLGPU_INVALID_ARGUMENT : CLGPU_SUCCESS, -1);
  clgpu_sort_spec compare = {.compare = "a < b"};
  status = clgpu_mpi_sort(context, &compare, &keys, NULL, MPI_COMM_WORLD, NULL);
  expect_everywhere("sort, a comparator", status, CLGPU_INVALID_ARGUMENT, 0);
  /* sort_into refusals, every input unchanged after them: outputs that do
   * not add up to the input (the last rank takes one more), out_keys that
   * are the keys, an output over its input, an output of another type. */
  {
    clgpu_array out_keys, shorter, wrong_type;
    cl_mem into_buffer = upload(CLGPU_TYPE_UINT32, 1, 0, count + 1, 1, &out_keys);
    shorter = out_keys;
    shorter.shape[0] = (size_t)count;
    wrong_type = shorter;
    wrong_type.type = CLGPU_TYPE_INT32;
    clgpu_status got = clgpu_mpi_sort_into(context, NULL, rank == last ? &out_keys : &shorter, NULL,
                                           &keys, NULL, MPI_COMM_WORLD, NULL);
    expect_everywhere("sort_into, outputs one longer in all", got, CLGPU_SHAPE_MISMATCH, -1);
    got = clgpu_mpi_sort_into(context, NULL, rank == last ? &keys : &shorter, NULL, &keys, NULL,
                              MPI_COMM_WORLD, NULL);
    expect_everywhere("sort_into, out_keys are the keys on the last rank", got,
                      CLGPU_INVALID_OUTPUT, last);
    clgpu_array over = keys;
    over.offset += 4; /* every rank holds 4000 / size > 1 keys */
    over.shape[0] = (size_t)count - 1;
    got = clgpu_mpi_sort_into(context, NULL, rank == last ? &over : &shorter, NULL, &keys, NULL,
                              MPI_COMM_WORLD, NULL);
    expect_everywhere("sort_into, an output over the keys on the last rank", got,
                      CLGPU_INVALID_OUTPUT, last);
    got = clgpu_mpi_sort_into(context, NULL, rank == last ? &wrong_type : &shorter, NULL, &keys,
                              NULL, MPI_COMM_WORLD, NULL);
    expect_everywhere("sort_into, int output for uint keys on the last rank", got,
                      CLGPU_TYPE_MISMATCH, last);
    clgpu_buffer_release(context, into_buffer);
  }
  /* Workspaces refused on the last rank: a local sort's, one reported for
   * half its part, and one whose staging buffers lie over its keys (the
   * local sort's part of it does not: only the call's own check sees it). */
  {
    clgpu_workspace_size report, half_report, local;
    clgpu_array half = keys;
    half.shape[0] = (size_t)count / 2;
    clgpu_workspace *local_workspace = NULL, *half_workspace = NULL, *over_keys = NULL;
    cl_mem shared = NULL;
    status = clgpu_sort_workspace_size(context, NULL, &keys, NULL, NULL, &local);
    if (status == CLGPU_SUCCESS) {
      status = clgpu_mpi_sort_workspace_size(context, NULL, &keys, NULL, NULL, &report);
    }
    if (status == CLGPU_SUCCESS) {
      status = clgpu_mpi_sort_workspace_size(context, NULL, &half, NULL, NULL, &half_report);
    }
    if (status == CLGPU_SUCCESS) status = clgpu_workspace_create(context, &local, &local_workspace);
    if (status == CLGPU_SUCCESS) {
      status = clgpu_workspace_create(context, &half_report, &half_workspace);
    }
    if (status == CLGPU_SUCCESS) {
      status = clgpu_buffer_create(context, CL_MEM_READ_WRITE,
                                   (size_t)(report.total_bytes ? report.total_bytes : 1), &shared);
    }
    if (status == CLGPU_SUCCESS) {
      status =
          clgpu_workspace_wrap(context, &report, shared, 0, (size_t)report.total_bytes, &over_keys);
    }
    CHECK(status == CLGPU_SUCCESS, "sort workspaces: %s", clgpu_last_error());
    /* The query refuses what the call refuses. */
    clgpu_workspace_size refused_report;
    clgpu_sort_options merge = {.algorithm = CLGPU_ALGORITHM_MERGE};
    CHECK(clgpu_mpi_sort_workspace_size(context, NULL, &keys, NULL, &merge, &refused_report) ==
                  CLGPU_INVALID_ARGUMENT &&
              clgpu_mpi_sort_workspace_size(context, &compare, &keys, NULL, NULL,
                                            &refused_report) == CLGPU_INVALID_ARGUMENT &&
              clgpu_mpi_sort_workspace_size(context, NULL, &keys, NULL, NULL, NULL) ==
                  CLGPU_INVALID_ARGUMENT,
          "sort workspace query: MERGE, a comparator or a NULL out accepted");
    /* The last rank's keys, copied into the "staged keys in" buffer of the
     * workspace over `shared`. */
    clgpu_array moved = keys;
    unsigned staged_in = report.num_buffers - 3;
    CHECK(strcmp(report.buffers[staged_in].name, "staged keys in") == 0,
          "sort report: buffer %u is %s", staged_in, report.buffers[staged_in].name);
    moved.buffer = shared;
    moved.offset = (size_t)report.buffers[staged_in].offset;
    if (status == CLGPU_SUCCESS && rank == last) {
      status = clgpu_copy(context, &moved, &keys, 0, NULL, NULL);
      clFinish(clgpu_context_queue(context));
    }
    struct {
      const char *what;
      clgpu_workspace *workspace;
      clgpu_status want;
    } refused[] = {
        {"sort, a local sort's workspace on the last rank", local_workspace,
         CLGPU_WORKSPACE_WRONG_OPERATION},
        {"sort, a workspace for half the part on the last rank", half_workspace,
         count / 2 == count ? CLGPU_SUCCESS : CLGPU_WORKSPACE_TOO_SMALL},
        {"sort, a workspace over its keys on the last rank", over_keys,
         count ? CLGPU_WORKSPACE_ALIASES_ARGUMENT : CLGPU_SUCCESS},
    };
    for (size_t i = 0; status == CLGPU_SUCCESS && i < sizeof refused / sizeof *refused; i++) {
      clgpu_sort_options sort_options = {0};
      sort_options.workspace = rank == last ? refused[i].workspace : NULL;
      clgpu_status got = clgpu_mpi_sort(context, NULL, rank == last ? &moved : &keys, NULL,
                                        MPI_COMM_WORLD, &sort_options);
      expect_everywhere(refused[i].what, got, refused[i].want,
                        refused[i].want == CLGPU_SUCCESS ? -1 : last);
    }
    clgpu_workspace_destroy(local_workspace);
    clgpu_workspace_destroy(half_workspace);
    clgpu_workspace_destroy(over_keys);
    if (shared) clgpu_buffer_release(context, shared);
  }
  if (size > 1) {
    uint32_t *unsorted = malloc((size_t)(count ? count : 1) * sizeof *unsorted);
    clgpu_array_read(context, unsorted, (size_t)count * 4, &keys, 0, NULL);
    int same = 1;
    for (uint64_t i = 0; i < count; i++) {
      same &= unsorted[i] == (uint32_t)value_at(CLGPU_TYPE_UINT32, 0, begin + i);
    }
    CHECK(same, "sort: a refused call changed rank %d's part", rank);
    free(unsorted);
  }
  clgpu_buffer_release(context, key_buffer);

  /* Device faults on the last rank after every check passed: in its local
   * sort, in the splitter search, in the staging before the exchange. The
   * points are counted first: the enqueues of a local sort of this part,
   * and of the whole distributed sort. */
  if (size > 1) {
    clgpu_array fault_keys;
    cl_mem fault_buffer = upload(CLGPU_TYPE_UINT32, 0, begin, count, 1, &fault_keys);
    clgpu__fault_arm(FAULT_ENQUEUE, 1L << 40);
    clgpu_sort(context, NULL, &fault_keys, NULL, NULL, 0, NULL, NULL);
    clFinish(clgpu_context_queue(context));
    long local_points = clgpu__fault_points_seen();
    clgpu__fault_arm(FAULT_ENQUEUE, 1L << 40);
    status = clgpu_mpi_sort(context, NULL, &fault_keys, NULL, MPI_COMM_WORLD, NULL);
    long all_points = clgpu__fault_points_seen();
    clgpu__fault_disarm();
    CHECK(status == CLGPU_SUCCESS && local_points > 0 && all_points > local_points + 1,
          "sort: counting fault points: %s, %ld local, %ld in all", clgpu_status_name(status),
          local_points, all_points);
    static const char *stages[] = {"its first local sort", "the splitter search",
                                   "the staging after the search", "its last local sort"};
    long points[] = {1, local_points + 1, all_points - local_points - 1, all_points};
    for (int stage = 0; stage < 4; stage++) {
      if (rank == last) clgpu__fault_arm(FAULT_ENQUEUE, points[stage]);
      status = clgpu_mpi_sort(context, NULL, &fault_keys, NULL, MPI_COMM_WORLD, NULL);
      clgpu__fault_disarm();
      char what[120];
      snprintf(what, sizeof what, "sort, a device fault on the last rank in %s", stages[stage]);
      expect_everywhere(what, status, CLGPU_CL_OUT_OF_RESOURCES, last);
    }
    /* A fault in the local reduction and in the local scan. */
    if (rank == last) clgpu__fault_arm(FAULT_ENQUEUE, 1);
    status = clgpu_mpi_allreduce(context, &sum, &result, sizeof result, &fault_keys,
                                 MPI_COMM_WORLD, NULL);
    clgpu__fault_disarm();
    expect_everywhere("allreduce, a device fault on the last rank", status,
                      CLGPU_CL_OUT_OF_RESOURCES, last);
    clgpu_scan_op fault_scan = {.kind = CLGPU_SCAN_SUM};
    if (rank == last) clgpu__fault_arm(FAULT_ENQUEUE, 1);
    status = clgpu_mpi_scan(context, &fault_scan, &fault_keys, &fault_keys, MPI_COMM_WORLD, NULL,
                            0, NULL, NULL);
    clgpu__fault_disarm();
    expect_everywhere("scan, a device fault on the last rank", status, CLGPU_CL_OUT_OF_RESOURCES,
                      last);
    /* And the sort works again, on the parts as the faults left them. */
    status = clgpu_mpi_sort(context, NULL, &fault_keys, NULL, MPI_COMM_WORLD, NULL);
    CHECK(status == CLGPU_SUCCESS, "sort after faults: %s", clgpu_last_error());
    clgpu_buffer_release(context, fault_buffer);
  }

  /* MPI_COMM_NULL: local, on every rank (each passes it). */
  status = clgpu_mpi_allreduce(context, &sum, &result, sizeof result, &part, MPI_COMM_NULL, NULL);
  CHECK(status == CLGPU_INVALID_ARGUMENT, "allreduce on MPI_COMM_NULL: %s",
        clgpu_status_name(status));

  /* The call goes on working after failures. */
  status = clgpu_mpi_allreduce(context, &sum, &result, sizeof result, &part, MPI_COMM_WORLD, NULL);
  CHECK(status == CLGPU_SUCCESS, "allreduce after failures: %s", clgpu_last_error());
  clgpu_buffer_release(context, buffer);
  clgpu_buffer_release(context, out_buffer);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* One POCL kernel cache per rank: ranks that build the same kernel at
   * the same moment must not share its folder. clgpu's disk cache writes
   * atomically (docs/program-cache.md), so the ranks share it, and the runs
   * on more ranks load what the one-rank run built. */
  const char *base = getenv("CLGPU_TEST_TMPDIR");
  if (base) {
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d-pocl", base, rank);
    setenv("POCL_CACHE_DIR", path, 1);
    snprintf(path, sizeof path, "%s/clgpu", base);
    setenv("CLGPU_CACHE_DIR", path, 1);
  }
  const char *seed_text = getenv("CLGPU_TEST_SEED");
  seed = seed_text ? strtoull(seed_text, NULL, 0) : (uint64_t)time(NULL);
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  clgpu_status status = clgpu_context_create(NULL, &context);
  if (status != CLGPU_SUCCESS) {
    fail("context: %s: %s", clgpu_status_name(status), clgpu_last_error());
  }
  int ready = status == CLGPU_SUCCESS, all_ready = 0;
  MPI_Allreduce(&ready, &all_ready, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all_ready) {
    if (rank == 0) {
      const clgpu_device_info *info = clgpu_context_device_info(context);
      printf("# %d ranks, seed %llu, device %s\n", size, (unsigned long long)seed, info->name);
    }
    test_reductions();
    test_scans();
    test_sorts();
    test_failures();
  }
  clgpu_context_destroy(context);
  long total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d of %d: %ld checks, %ld failed here, %ld on all ranks\n", rank, size, checks,
         failures, total);
  MPI_Finalize();
  return total == 0 && all_ready ? 0 : 1;
}
