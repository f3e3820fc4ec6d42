/* clgpu_elementwise (elementwise.h): kernels made from a list of arguments
 * and an operation, run over views of any layout.
 *
 * Every run is compared with a host model of the same views: each array
 * sits in a guarded region of its own (or shares one, for the overlap
 * cases) filled with random bytes, so bytes around and between elements are
 * random too; the model gathers every input from the initial images first
 * (the result the header promises for overlapping views: that of fresh
 * buffers), applies the operation per element in C, and scatters the
 * outputs into copies of the images. After the call each region is compared
 * byte for byte with its expected image (outputs' elements and every byte
 * the call must leave alone), then its guards. Integer operations compare
 * bit for bit; the one float operation that rounds (a * x + z, which the
 * compiler may contract into an fma) within 4 ulp of its largest operand;
 * the other float cases are exact by construction and compare bit for bit.
 * A failure names the case, its seed and the first differing argument,
 * element and index.
 *
 * Tests, one concern each: fixed layouts (ranks 0 to 4, odd and empty
 * extents, extents of 1 with wild strides, transposed, permuted, reversed
 * and broadcast inputs made with array.h's derivations beside contiguous
 * ones and a column-major output, in one call); seeded random layouts
 * (ranks 1 to 8) on a kernel that specialises each and on one that runs the
 * generic kernel; the index i; in-out arrays; overlap and staging, sub-buffers
 * included; the contiguous fast path; the variant table; refusals at run
 * and at creation, and build failures; empty shapes; events, and an
 * out-of-order queue; forced launch shapes (chunks of 1, 3 and 5 elements);
 * two threads on one kernel; a preamble and a multi-line operation; every
 * integer width; the most arguments (16, 10 of them arrays); half, float
 * and double; a kernel object run and destroyed after its context's
 * destroy. The index, integer and half cases run on the generic kernel
 * too (make_generic_kernel).
 *
 * Run time: every distinct layout builds a program (0.1 to 0.3 s on POCL),
 * so coverage is rotated rather than multiplied out: about 10 s on POCL
 * with its cache warm, 25 s cold. Under Oclgrind cases stay under 5000
 * elements (the large fixed layouts, the 3 x 20011 index case and the
 * every-half case are left out), one forced launch shape runs, the two
 * threads take turns, and the rows that build failing programs are left
 * out.
 *
 * One context serves the file (group setup), without the disk cache, so
 * that the program cache's build counter counts what the variant table
 * builds; the out-of-order and launch-shape tests swap in contexts of
 * their own. */
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

static clgpu_context *shared_context; /* what the runner uses */
static clgpu_context *group_context;
static int oclgrind;

static int group_setup(void **state) {
  (void)state;
  test_seed();
  clgpu_context_options options;
  memset(&options, 0, sizeof options);
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  shared_context = group_context = test_context(&options);
  oclgrind = test_on_oclgrind(shared_context);
  return 0;
}

/* Put the group's context back after a test that swapped in another (also
 * when it failed). */
static int restore_context(void **state) {
  (void)state;
  shared_context = group_context;
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  clgpu_context_destroy(shared_context);
  shared_context = NULL;
  return 0;
}

static clgpu_elementwise_stats stats_of(clgpu_elementwise *kernel) {
  clgpu_elementwise_stats stats;
  assert_status(clgpu_elementwise_get_stats(kernel, &stats), CLGPU_SUCCESS);
  return stats;
}

static uint64_t builds_so_far(void) {
  clgpu_cache_stats stats;
  assert_status(clgpu_program_cache_stats(shared_context, &stats), CLGPU_SUCCESS);
  return stats.builds;
}

/* ---- element access for the host models ---- */

/* A model sees one slot per argument: an array's current element (an
 * input's value, an output's 0, an in-out's value) or a scalar, as bytes. */
#define DEFINE_ACCESS(name, T)                           \
  static inline T get_##name(void *const *v, size_t k) { \
    T x;                                                 \
    memcpy(&x, v[k], sizeof x);                          \
    return x;                                            \
  }                                                      \
  static inline void set_##name(void *const *v, size_t k, T x) { memcpy(v[k], &x, sizeof x); }
DEFINE_ACCESS(u8, uint8_t)
DEFINE_ACCESS(i8, int8_t)
DEFINE_ACCESS(u16, uint16_t)
DEFINE_ACCESS(i16, int16_t)
DEFINE_ACCESS(u32, uint32_t)
DEFINE_ACCESS(i32, int32_t)
DEFINE_ACCESS(u64, uint64_t)
DEFINE_ACCESS(i64, int64_t)
DEFINE_ACCESS(f32, float)
DEFINE_ACCESS(f64, double)

/* Half by hand: vload_half is exact, vstore_half_rte rounds to nearest
 * even, overflowing to infinity from 65520 up. */
static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu,
           mantissa = h & 0x3ffu;
  float magnitude;
  if (exponent == 0) {
    magnitude = ldexpf((float)mantissa, -24);
  } else if (exponent == 31) {
    magnitude = mantissa ? NAN : INFINITY;
  } else {
    magnitude = ldexpf((float)(mantissa | 0x400u), (int)exponent - 25);
  }
  uint32_t bits;
  memcpy(&bits, &magnitude, 4);
  bits |= sign;
  memcpy(&magnitude, &bits, 4);
  return magnitude;
}

static uint16_t float_to_half_rte(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
  if (magnitude >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* 65520 and up */
  if (magnitude < 0x38800000u) {                                   /* below 2^-14 */
    float value;
    memcpy(&value, &magnitude, 4);
    /* Exact in double; nearbyint rounds to nearest even; 1024 encodes the
     * smallest normal. */
    return (uint16_t)(sign | (uint16_t)nearbyint((double)value * 16777216.0));
  }
  uint32_t base = ((((magnitude >> 23) - 127 + 15) << 10) | ((magnitude & 0x7fffffu) >> 13));
  uint32_t rest = magnitude & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (base & 1u))) base++;
  return (uint16_t)(sign | base);
}

/* ---- kernels and their host models ---- */

typedef void (*model_fn)(uint64_t i, void *const *v);
/* Absolute error allowed for a float output element, from its slots after
 * the model ran. */
typedef double (*bound_fn)(void *const *v);
/* Rewrite a region's random bytes into values an operation is tested on. */
typedef void (*prepare_fn)(unsigned char *bytes, size_t n);

typedef struct kernel_def {
  size_t num_args;
  clgpu_elementwise_arg args[CLGPU_ELEMENTWISE_MAX_ARGS];
  const char *operation;
  model_fn model;
  prepare_fn prepare[CLGPU_ELEMENTWISE_MAX_ARGS]; /* per argument's region; NULL: raw */
} kernel_def;

static clgpu_elementwise *make_kernel(const kernel_def *def, const char *preamble, unsigned cap,
                                      unsigned promote_after) {
  clgpu_elementwise_options options = {
      .preamble = preamble, .variant_cap = cap, .promote_after = promote_after};
  clgpu_elementwise *kernel = NULL;
  clgpu_status status = clgpu_elementwise_create(shared_context, def->operation, def->num_args,
                                                 def->args, &options, &kernel);
  if (status != CLGPU_SUCCESS) {
    fail_msg("clgpu_elementwise_create(\"%s\"): %s: %s", def->operation, clgpu_status_name(status),
             clgpu_last_error());
  }
  assert_non_null(kernel);
  return kernel;
}

static void model_layouts(uint64_t i, void *const *v) {
  (void)i;
  set_u32(v, 0, get_u32(v, 1) * get_u32(v, 2) + (uint32_t)(int32_t)get_i16(v, 3) - get_u8(v, 4));
}
/* Four inputs of three element sizes and a scalar: every array has a
 * layout of its own in the layout tests. */
static const kernel_def layouts_kernel = {5,
                                          {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_UINT32},
                                           {"a", CLGPU_ARG_SCALAR, CLGPU_TYPE_UINT32},
                                           {"x", CLGPU_ARG_IN, CLGPU_TYPE_UINT32},
                                           {"z", CLGPU_ARG_IN, CLGPU_TYPE_INT16},
                                           {"w", CLGPU_ARG_IN, CLGPU_TYPE_UINT8}},
                                          "y = a * x + (uint)z - (uint)w",
                                          model_layouts,
                                          {0}};

/* A kernel y = f(x) over uints, its model the same expression in C. */
#define UNARY_KERNEL(name, operation, expression)                                        \
  static void model_##name(uint64_t i, void *const *v) {                                 \
    uint32_t x = get_u32(v, 1);                                                          \
    (void)i;                                                                             \
    set_u32(v, 0, (uint32_t)(expression));                                               \
  }                                                                                      \
  static const kernel_def name##_kernel = {                                              \
      2,                                                                                 \
      {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_UINT32}, {"x", CLGPU_ARG_IN, CLGPU_TYPE_UINT32}}, \
      operation,                                                                         \
      model_##name,                                                                      \
      {0}};
UNARY_KERNEL(index, "y = (uint)i * 3u + x", (uint32_t)i * 3u + x)
UNARY_KERNEL(plus_one, "y = x + 1u", x + 1u)
UNARY_KERNEL(plus_index, "y = x + (uint)i", x + (uint32_t)i)
/* One operation per test that counts programs, so that no other test has
 * built them before. */
UNARY_KERNEL(xor, "y = x ^ 0x9e3779b9u", x ^ 0x9e3779b9u)
UNARY_KERNEL(minus_seven, "y = x - 7u", x - 7u)
UNARY_KERNEL(times_five, "y = x * 5u", x * 5u)

static void model_accumulate(uint64_t i, void *const *v) {
  (void)i;
  set_u32(v, 0, get_u32(v, 0) + get_u32(v, 1));
}
static const kernel_def accumulate_kernel = {
    2,
    {{"y", CLGPU_ARG_INOUT, CLGPU_TYPE_UINT32}, {"x", CLGPU_ARG_IN, CLGPU_TYPE_UINT32}},
    "y += x",
    model_accumulate,
    {0}};

/* Halves without NaNs (whose payloads the device may change): a NaN gets
 * exponent 15. Infinities, denormals and both zeros stay. */
static void prepare_halves(unsigned char *bytes, size_t n) {
  for (size_t b = 0; b + 1 < n; b += 2) {
    uint16_t h;
    memcpy(&h, bytes + b, 2);
    if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu)) h ^= 0x4000u;
    memcpy(bytes + b, &h, 2);
  }
}
/* Element k holds half k (NaNs made finite as above). */
static void prepare_every_half(unsigned char *bytes, size_t n) {
  for (size_t b = 0; b + 1 < n; b += 2) {
    uint16_t h = (uint16_t)(b / 2);
    memcpy(bytes + b, &h, 2);
  }
  prepare_halves(bytes, n);
}
/* x * 1.5 is exact in float; storing it as half rounds (ties included). */
static void model_half(uint64_t i, void *const *v) {
  (void)i;
  set_u16(v, 0, float_to_half_rte(half_to_float(get_u16(v, 1)) * 1.5f));
}
static const kernel_def half_kernel = {
    2,
    {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_HALF}, {"x", CLGPU_ARG_IN, CLGPU_TYPE_HALF}},
    "y = x * 1.5f",
    model_half,
    {NULL, prepare_halves}};

static void model_half_in_place(uint64_t i, void *const *v) {
  (void)i;
  set_u16(v, 0, float_to_half_rte(half_to_float(get_u16(v, 0)) * 1.5f));
}
static const kernel_def half_in_place_kernel = {1,
                                                {{"y", CLGPU_ARG_INOUT, CLGPU_TYPE_HALF}},
                                                "y *= 1.5f",
                                                model_half_in_place,
                                                {prepare_halves}};

/* Floats k / 1024 with |k| <= 10^6, and ints in [-1000, 1000]. */
static void prepare_scaled_floats(unsigned char *bytes, size_t n) {
  for (size_t b = 0; b + 3 < n; b += 4) {
    uint32_t word;
    memcpy(&word, bytes + b, 4);
    float value = (float)((int32_t)(word % 2000001u) - 1000000) / 1024.0f;
    memcpy(bytes + b, &value, 4);
  }
}
static void prepare_small_ints(unsigned char *bytes, size_t n) {
  for (size_t b = 0; b + 3 < n; b += 4) {
    uint32_t word;
    memcpy(&word, bytes + b, 4);
    int32_t value = (int32_t)(word % 2001u) - 1000;
    memcpy(bytes + b, &value, 4);
  }
}
static void model_float(uint64_t i, void *const *v) {
  (void)i;
  set_f32(v, 0, get_f32(v, 1) * get_f32(v, 2) + (float)get_i32(v, 3));
}
/* With or without contraction into an fma the result is within one ulp of
 * the largest operand of the exact value; allow 4. */
static double bound_float(void *const *v) {
  double product = fabs((double)get_f32(v, 1) * (double)get_f32(v, 2));
  double largest = fmax(product, fabs((double)get_i32(v, 3)));
  int exponent = 0;
  frexp(largest, &exponent);
  return 4.0 * ldexp(1.0, exponent - 24);
}
static const kernel_def float_kernel = {4,
                                        {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_FLOAT},
                                         {"a", CLGPU_ARG_SCALAR, CLGPU_TYPE_FLOAT},
                                         {"x", CLGPU_ARG_IN, CLGPU_TYPE_FLOAT},
                                         {"z", CLGPU_ARG_IN, CLGPU_TYPE_INT32}},
                                        "y = a * x + (float)z",
                                        model_float,
                                        {NULL, NULL, prepare_scaled_floats, prepare_small_ints}};

/* Finite doubles: an all-ones exponent loses its top bit. */
static void prepare_doubles(unsigned char *bytes, size_t n) {
  for (size_t b = 0; b + 7 < n; b += 8) {
    uint64_t bits;
    memcpy(&bits, bytes + b, 8);
    if (((bits >> 52) & 0x7ffu) == 0x7ffu) bits ^= UINT64_C(1) << 62;
    memcpy(bytes + b, &bits, 8);
  }
}
/* One IEEE addition of finite values: exact to compare bit for bit. */
static void model_double(uint64_t i, void *const *v) {
  (void)i;
  set_f64(v, 0, get_f64(v, 1) + get_f64(v, 2));
}
static const kernel_def double_kernel = {3,
                                         {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_DOUBLE},
                                          {"x", CLGPU_ARG_IN, CLGPU_TYPE_DOUBLE},
                                          {"b", CLGPU_ARG_SCALAR, CLGPU_TYPE_DOUBLE}},
                                         "y = x + b",
                                         model_double,
                                         {NULL, prepare_doubles}};

/* Every integer width in, a long out; no intermediate overflows. */
static void model_widen(uint64_t i, void *const *v) {
  (void)i;
  set_i64(v, 0,
          (int64_t)get_i8(v, 1) * 1000003 + (int64_t)get_u8(v, 2) * 65537 +
              (int64_t)get_i16(v, 3) * 3 - (int64_t)get_u16(v, 4) + (int64_t)get_u32(v, 5) -
              (int64_t)get_i32(v, 6));
}
static const kernel_def widen_kernel = {
    7,
    {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_INT64},
     {"p", CLGPU_ARG_IN, CLGPU_TYPE_INT8},
     {"q", CLGPU_ARG_IN, CLGPU_TYPE_UINT8},
     {"r", CLGPU_ARG_IN, CLGPU_TYPE_INT16},
     {"s", CLGPU_ARG_IN, CLGPU_TYPE_UINT16},
     {"u", CLGPU_ARG_IN, CLGPU_TYPE_UINT32},
     {"t", CLGPU_ARG_IN, CLGPU_TYPE_INT32}},
    "y = (long)p * 1000003L + (long)q * 65537L + (long)r * 3L - (long)s + (long)u - (long)t",
    model_widen,
    {0}};

/* A long in, three narrow outputs and a ulong; conversions stay in range. */
static void model_narrow(uint64_t i, void *const *v) {
  (void)i;
  uint64_t t = (uint64_t)(get_i64(v, 4) ^ get_i64(v, 5));
  set_i8(v, 0, (int8_t)((int64_t)(t & 0x7fu) - 64));
  set_u8(v, 1, (uint8_t)(t >> 8));
  set_i16(v, 2, (int16_t)((int64_t)((t >> 16) & 0x7fffu) - 16384));
  set_u64(v, 3, t * UINT64_C(0x9e3779b97f4a7c15) + i);
}
static const kernel_def narrow_kernel = {6,
                                         {{"p", CLGPU_ARG_OUT, CLGPU_TYPE_INT8},
                                          {"q", CLGPU_ARG_OUT, CLGPU_TYPE_UINT8},
                                          {"r", CLGPU_ARG_OUT, CLGPU_TYPE_INT16},
                                          {"big", CLGPU_ARG_OUT, CLGPU_TYPE_UINT64},
                                          {"x", CLGPU_ARG_IN, CLGPU_TYPE_INT64},
                                          {"m", CLGPU_ARG_SCALAR, CLGPU_TYPE_INT64}},
                                         "ulong t = (ulong)(x ^ m);\n"
                                         "p = (char)((long)(t & 0x7f) - 64L);\n"
                                         "q = (uchar)(t >> 8);\n"
                                         "r = (short)((long)((t >> 16) & 0x7fff) - 16384L);\n"
                                         "big = t * 0x9e3779b97f4a7c15UL + i;",
                                         model_narrow,
                                         {0}};

/* Small integers as floats: twice them is exact. */
static void prepare_integer_floats(unsigned char *bytes, size_t n) {
  for (size_t b = 0; b + 3 < n; b += 4) {
    uint32_t word;
    memcpy(&word, bytes + b, 4);
    float value = (float)((int32_t)(word % 2001u) - 1000);
    memcpy(bytes + b, &value, 4);
  }
}
static void model_twice(uint64_t i, void *const *v) {
  (void)i;
  set_f32(v, 0, 2.0f * get_f32(v, 1));
}
static const kernel_def twice_kernel = {
    2,
    {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_FLOAT}, {"x", CLGPU_ARG_IN, CLGPU_TYPE_FLOAT}},
    "y = twice(x)",
    model_twice,
    {NULL, prepare_integer_floats}};

static void model_multiline(uint64_t i, void *const *v) {
  uint32_t t = get_u32(v, 1) * 2u;
  t += 1u;
  set_u32(v, 0, t ^ (uint32_t)i);
}
static const kernel_def multiline_kernel = {
    2,
    {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_UINT32}, {"x", CLGPU_ARG_IN, CLGPU_TYPE_UINT32}},
    "uint t = x * 2u; // doubled\n"
    "\n"
    "t += 1u; /* and one */\n"
    "y = t ^ (uint)i;  // then the index\n",
    model_multiline,
    {0}};

/* ---- cases: arrays placed in guarded regions, and the runner ---- */

#define MAX_ARGS CLGPU_ELEMENTWISE_MAX_ARGS
#define MAX_REGIONS 12

/* How an array's view is made from the view of its spec, with array.h's
 * derivations (so the call sees what a caller's derived views look like). */
typedef enum derive {
  DERIVE_NONE,
  DERIVE_TRANSPOSE, /* clgpu_array_transpose */
  DERIVE_REVERSE,   /* clgpu_array_slice with step -1 on every dimension */
  DERIVE_PERMUTE,   /* clgpu_array_permute by `axes` */
  DERIVE_BROADCAST, /* clgpu_array_broadcast to `to_rank`, `to_shape` */
} derive;

typedef struct placement {
  unsigned region;
  view_spec spec; /* before the derivation; offset in elements of the argument's type */
  derive how;
  unsigned axes[CLGPU_MAX_RANK];
  unsigned to_rank;
  size_t to_shape[CLGPU_MAX_RANK];
} placement;

typedef struct ew_case {
  char label[400];
  clgpu_elementwise *kernel;
  const kernel_def *def;
  bound_fn bound; /* float outputs within a bound; NULL: bit for bit */
  const void *scalar[MAX_ARGS];
  placement place[MAX_ARGS];
  unsigned num_regions;
  size_t region_bytes[MAX_REGIONS];
  prepare_fn region_prepare[MAX_REGIONS];
  int no_event; /* pass no event out (then clFinish) */
  int gated;    /* wait on a user event and check that the kernel waits */
} ew_case;

static void case_init(ew_case *c, clgpu_elementwise *kernel, const kernel_def *def,
                      const char *label) {
  memset(c, 0, sizeof *c);
  snprintf(c->label, sizeof c->label, "%s", label);
  c->kernel = kernel;
  c->def = def;
}

static unsigned add_region(ew_case *c, size_t bytes, prepare_fn prepare) {
  assert_true(c->num_regions < MAX_REGIONS);
  c->region_bytes[c->num_regions] = bytes;
  c->region_prepare[c->num_regions] = prepare;
  return c->num_regions++;
}

static size_t arg_size(const ew_case *c, size_t k) { return clgpu_type_size(c->def->args[k].type); }

/* Argument k in a region of its own, fitted to `spec` with `slack`
 * elements of bytes to leave alone on each side. */
static placement *put(ew_case *c, size_t k, view_spec spec, size_t slack) {
  size_t elements = spec_fit(&spec, slack);
  placement *p = &c->place[k];
  memset(p, 0, sizeof *p);
  p->region = add_region(c, elements * arg_size(c, k), c->def->prepare[k]);
  p->spec = spec;
  return p;
}

/* Argument k in an existing region, at the spec's own offset. */
static placement *put_shared(ew_case *c, size_t k, unsigned region, view_spec spec) {
  placement *p = &c->place[k];
  memset(p, 0, sizeof *p);
  p->region = region;
  p->spec = spec;
  return p;
}

static view_spec line(size_t offset, size_t n, ptrdiff_t stride) {
  view_spec spec = {offset, 1, {n}, {stride}};
  return spec;
}

/* Dense strides over `shape`, the dimensions taken innermost first in
 * `order` (NULL: row-major), each extent padded by pad[d] (NULL: none). */
static view_spec dense(unsigned rank, const size_t *shape, const unsigned *order,
                       const size_t *pad) {
  view_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.rank = rank;
  ptrdiff_t stride = 1;
  for (unsigned j = 0; j < rank; j++) {
    unsigned d = order ? order[j] : rank - 1 - j;
    spec.shape[d] = shape[d];
    spec.strides[d] = stride;
    stride *= (ptrdiff_t)((shape[d] ? shape[d] : 1) + (pad ? pad[d] : 0));
  }
  return spec;
}

static view_spec column_major(unsigned rank, const size_t *shape) {
  unsigned order[CLGPU_MAX_RANK];
  for (unsigned d = 0; d < rank; d++) order[d] = d;
  return dense(rank, shape, order, NULL);
}

static int is_array(const ew_case *c, size_t k) { return c->def->args[k].kind != CLGPU_ARG_SCALAR; }
static int is_output(const ew_case *c, size_t k) {
  return c->def->args[k].kind == CLGPU_ARG_OUT || c->def->args[k].kind == CLGPU_ARG_INOUT;
}

typedef struct prepared {
  uint64_t seed;
  size_t n; /* elements of the call's shape */
  test_guarded guarded[MAX_REGIONS];
  unsigned char *initial[MAX_REGIONS];
  unsigned char *expected[MAX_REGIONS];
  clgpu_array views[MAX_ARGS];
  view_spec specs[MAX_ARGS]; /* the views as the call sees them, in their regions */
  clgpu_elementwise_value values[MAX_ARGS];
  uint64_t scalars[MAX_ARGS]; /* the copies the call points to */
  unsigned char *in_logical[MAX_ARGS];
  unsigned char *out_logical[MAX_ARGS];
} prepared;

static clgpu_array derived_view(const test_guarded *guarded, clgpu_type type, const placement *p) {
  clgpu_array base = make_view(guarded, type, &p->spec), out = base;
  clgpu_slice slices[CLGPU_MAX_RANK];
  switch (p->how) {
    case DERIVE_NONE:
      break;
    case DERIVE_TRANSPOSE:
      assert_status(clgpu_array_transpose(&base, &out), CLGPU_SUCCESS);
      break;
    case DERIVE_REVERSE:
      for (unsigned d = 0; d < base.rank; d++) {
        slices[d] = (clgpu_slice){CLGPU_SLICE_BEGIN, CLGPU_SLICE_END, -1};
      }
      assert_status(clgpu_array_slice(&base, slices, &out), CLGPU_SUCCESS);
      break;
    case DERIVE_PERMUTE:
      assert_status(clgpu_array_permute(&base, p->axes, &out), CLGPU_SUCCESS);
      break;
    case DERIVE_BROADCAST:
      assert_status(clgpu_array_broadcast(&base, p->to_rank, p->to_shape, &out), CLGPU_SUCCESS);
      break;
  }
  return out;
}

/* A view in the model's terms: elements from its region's start. */
static view_spec spec_of(const clgpu_array *view, const test_guarded *guarded) {
  view_spec spec;
  memset(&spec, 0, sizeof spec);
  size_t size = clgpu_type_size(view->type);
  spec.offset = (view->offset - guarded->offset) / size;
  spec.rank = view->rank;
  for (unsigned d = 0; d < view->rank; d++) {
    spec.shape[d] = view->shape[d];
    spec.strides[d] = view->strides[d];
  }
  return spec;
}

/* The slots of element e: inputs and in-outs from the gathered inputs,
 * outputs 0, scalars the case's values. */
static void fill_slots(const ew_case *c, const prepared *p, size_t e, uint64_t *slots, void **v) {
  for (size_t k = 0; k < c->def->num_args; k++) {
    if (!is_array(c, k)) {
      v[k] = (void *)c->scalar[k];
      continue;
    }
    slots[k] = 0;
    if (c->def->args[k].kind != CLGPU_ARG_OUT) {
      memcpy(&slots[k], p->in_logical[k] + e * arg_size(c, k), arg_size(c, k));
    }
    v[k] = &slots[k];
  }
}

static void prepare_case(const ew_case *c, prepared *p) {
  memset(p, 0, sizeof *p);
  p->seed = test_case_seed(c->label);
  for (unsigned r = 0; r < c->num_regions; r++) {
    size_t bytes = c->region_bytes[r];
    p->initial[r] = random_bytes(bytes, p->seed + 0x9e3779b97f4a7c15u * (r + 1));
    if (c->region_prepare[r]) c->region_prepare[r](p->initial[r], bytes);
    p->guarded[r] = test_guarded_create(shared_context, bytes, p->initial[r]);
    p->expected[r] = malloc(bytes ? bytes : 1);
    assert_non_null(p->expected[r]);
    memcpy(p->expected[r], p->initial[r], bytes);
  }
  int first = 1;
  for (size_t k = 0; k < c->def->num_args; k++) {
    if (!is_array(c, k)) {
      assert_non_null(c->scalar[k]);
      memcpy(&p->scalars[k], c->scalar[k], clgpu_type_size(c->def->args[k].type));
      p->values[k] = (clgpu_elementwise_value){NULL, &p->scalars[k]};
      continue;
    }
    const placement *place = &c->place[k];
    p->views[k] = derived_view(&p->guarded[place->region], c->def->args[k].type, place);
    p->specs[k] = spec_of(&p->views[k], &p->guarded[place->region]);
    p->values[k] = (clgpu_elementwise_value){&p->views[k], NULL};
    if (first) p->n = spec_count(&p->specs[k]);
    first = 0;
    assert_int_equal(spec_count(&p->specs[k]), p->n);
  }
  /* Every input first, from the initial images; then the operation; then
   * the outputs into the expected images. */
  for (size_t k = 0; k < c->def->num_args; k++) {
    if (!is_array(c, k)) continue;
    size_t bytes = p->n * arg_size(c, k) + 1;
    p->in_logical[k] = malloc(bytes);
    p->out_logical[k] = malloc(bytes);
    assert_non_null(p->in_logical[k]);
    assert_non_null(p->out_logical[k]);
    gather(p->initial[c->place[k].region], &p->specs[k], arg_size(c, k), p->in_logical[k]);
  }
  uint64_t slots[MAX_ARGS];
  void *v[MAX_ARGS];
  for (size_t e = 0; e < p->n; e++) {
    fill_slots(c, p, e, slots, v);
    c->def->model(e, v);
    for (size_t k = 0; k < c->def->num_args; k++) {
      if (is_output(c, k))
        memcpy(p->out_logical[k] + e * arg_size(c, k), &slots[k], arg_size(c, k));
    }
  }
  for (size_t k = 0; k < c->def->num_args; k++) {
    if (is_output(c, k)) {
      scatter(p->expected[c->place[k].region], &p->specs[k], arg_size(c, k), p->out_logical[k]);
    }
  }
}

static void release_case(const ew_case *c, prepared *p) {
  for (unsigned r = 0; r < c->num_regions; r++) {
    test_guarded_release(&p->guarded[r]);
    free(p->initial[r]);
    free(p->expected[r]);
  }
  for (size_t k = 0; k < c->def->num_args; k++) {
    free(p->in_logical[k]);
    free(p->out_logical[k]);
  }
}

/* "(i0, i1, ...)" of row-major element e of a spec. */
static void describe_index(const view_spec *spec, size_t e, char *text, size_t size) {
  size_t index[CLGPU_MAX_RANK] = {0};
  for (unsigned d = spec->rank; d-- > 0;) {
    size_t extent = spec->shape[d] ? spec->shape[d] : 1;
    index[d] = e % extent;
    e /= extent;
  }
  int used = snprintf(text, size, "(");
  for (unsigned d = 0; d < spec->rank && (size_t)used < size; d++) {
    used += snprintf(text + used, size - (size_t)used, d ? ", %zu" : "%zu", index[d]);
  }
  if ((size_t)used < size) snprintf(text + used, size - (size_t)used, ")");
}

/* Which array element of region r holds byte `byte`, in words. */
static void describe_byte(const ew_case *c, const prepared *p, unsigned r, size_t byte, char *text,
                          size_t size) {
  for (size_t k = 0; k < c->def->num_args; k++) {
    if (!is_array(c, k) || c->place[k].region != r || p->n == 0) continue;
    size_t element_size = arg_size(c, k), index[CLGPU_MAX_RANK] = {0}, e = 0;
    do {
      size_t at = spec_position(&p->specs[k], index) * element_size;
      if (byte >= at && byte < at + element_size) {
        char where[96];
        describe_index(&p->specs[k], e, where, sizeof where);
        snprintf(text, size, "%s %s element %zu %s", is_output(c, k) ? "output" : "input",
                 c->def->args[k].name, e, where);
        return;
      }
      e++;
    } while (next_index(&p->specs[k], index));
  }
  snprintf(text, size, "a byte of no array's element (the call must leave it alone)");
}

static int is_float_type(clgpu_type type) {
  return type == CLGPU_TYPE_FLOAT || type == CLGPU_TYPE_DOUBLE;
}

static double load_float(const unsigned char *element, clgpu_type type) {
  if (type == CLGPU_TYPE_FLOAT) {
    float f;
    memcpy(&f, element, 4);
    return f;
  }
  double d;
  memcpy(&d, element, 8);
  return d;
}

/* Float outputs within the case's bound; then their bytes are taken as
 * expected, so the byte comparison covers everything else. */
static void check_bounded(const ew_case *c, const prepared *p, unsigned r, unsigned char *actual) {
  for (size_t k = 0; k < c->def->num_args; k++) {
    clgpu_type type = c->def->args[k].type;
    if (!is_output(c, k) || c->place[k].region != r || !is_float_type(type)) continue;
    size_t size = clgpu_type_size(type);
    unsigned char *got = malloc(p->n * size + 1);
    assert_non_null(got);
    gather(actual, &p->specs[k], size, got);
    uint64_t slots[MAX_ARGS];
    void *v[MAX_ARGS];
    for (size_t e = 0; e < p->n; e++) {
      fill_slots(c, p, e, slots, v);
      c->def->model(e, v);
      double want = load_float((const unsigned char *)v[k], type);
      double have = load_float(got + e * size, type);
      double bound = c->bound(v);
      int same = (isnan(want) && isnan(have)) || want == have || fabs(have - want) <= bound;
      if (!same) {
        char where[96];
        describe_index(&p->specs[k], e, where, sizeof where);
        fail_msg(
            "%s (run seed %llu, case seed %llu): output %s element %zu %s is %.9g, expected "
            "%.9g within %.3g",
            c->label, (unsigned long long)test_seed(), (unsigned long long)p->seed,
            c->def->args[k].name, e, where, have, want, bound);
      }
    }
    scatter(actual, &p->specs[k], size, p->out_logical[k]);
    free(got);
  }
}

static void check_case(const ew_case *c, const prepared *p) {
  for (unsigned r = 0; r < c->num_regions; r++) {
    size_t bytes = c->region_bytes[r];
    unsigned char *actual = malloc(bytes ? bytes : 1);
    assert_non_null(actual);
    test_guarded_read(shared_context, &p->guarded[r], actual);
    if (c->bound) check_bounded(c, p, r, actual);
    if (memcmp(actual, p->expected[r], bytes) != 0) {
      size_t first = 0, differing = 0;
      for (size_t b = bytes; b-- > 0;) {
        if (actual[b] != p->expected[r][b]) {
          first = b;
          differing++;
        }
      }
      char where[200];
      describe_byte(c, p, r, first, where, sizeof where);
      fail_msg(
          "%s (run seed %llu, case seed %llu): region %u differs from the host model at "
          "byte %zu, %s: 0x%02x, expected 0x%02x (initially 0x%02x); %zu byte(s) differ",
          c->label, (unsigned long long)test_seed(), (unsigned long long)p->seed, r, first, where,
          actual[first], p->expected[r][first], p->initial[r][first], differing);
    }
    free(actual);
    test_guarded_check(shared_context, &p->guarded[r], c->label);
  }
}

static void expect_run(const ew_case *c, clgpu_status status) {
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s: clgpu_elementwise_run: %s (%d): %s", c->label, clgpu_status_name(status),
             (int)status, clgpu_last_error());
  }
}

/* Held back by a user event: with a real device the kernel must not have
 * run 30 ms after a flush (the outputs still hold their initial bytes, read
 * on a second queue). Oclgrind runs a queue on the flushing thread, so
 * there the event's status is checked without a flush. The scalars the
 * call pointed to are overwritten before the gate opens: they were
 * captured at the call. */
static void run_gated(const ew_case *c, prepared *p, cl_event *event) {
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(clgpu_context_cl_context(shared_context), &err);
  assert_int_equal(err, CL_SUCCESS);
  clgpu_status status = clgpu_elementwise_run(c->kernel, p->values, 1, &gate, event);
  if (status != CLGPU_SUCCESS) clSetUserEventStatus(gate, CL_COMPLETE);
  expect_run(c, status);
  memset(p->scalars, 0xa5, sizeof p->scalars);
  int early = 0;
  if (!oclgrind) {
    assert_int_equal(clFlush(clgpu_context_queue(shared_context)), CL_SUCCESS);
    struct timespec pause = {0, 30 * 1000 * 1000};
    nanosleep(&pause, NULL);
    early = test_event_status(*event) == CL_COMPLETE;
    cl_command_queue side = clCreateCommandQueue(clgpu_context_cl_context(shared_context),
                                                 clgpu_context_device(shared_context), 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    for (unsigned r = 0; r < c->num_regions && !early; r++) {
      size_t bytes = c->region_bytes[r];
      unsigned char *now = malloc(bytes ? bytes : 1);
      assert_non_null(now);
      assert_int_equal(clEnqueueReadBuffer(side, p->guarded[r].buffer, CL_TRUE,
                                           p->guarded[r].offset, bytes, now, 0, NULL, NULL),
                       CL_SUCCESS);
      early = memcmp(now, p->initial[r], bytes) != 0;
      free(now);
    }
    clReleaseCommandQueue(side);
  } else {
    early = test_event_status(*event) == CL_COMPLETE;
  }
  assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  clReleaseEvent(gate);
  if (early) fail_msg("%s: the kernel ran before the user event in its wait list", c->label);
}

static void run_case(const ew_case *c) {
  prepared p;
  prepare_case(c, &p);
  cl_event event = NULL;
  if (c->gated) {
    run_gated(c, &p, &event);
  } else {
    expect_run(c, clgpu_elementwise_run(c->kernel, p.values, 0, NULL, c->no_event ? NULL : &event));
  }
  if (c->no_event) {
    assert_null(event);
    assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
  } else {
    if (event == NULL) fail_msg("%s: no event", c->label);
    assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
    assert_int_equal(test_event_status(event), CL_COMPLETE);
    clReleaseEvent(event);
  }
  check_case(c, &p);
  release_case(c, &p);
}

/* ---- layouts ---- */

#define SHAPE(...) ((const size_t[]){__VA_ARGS__})

static void broadcast_to(placement *p, unsigned rank, const size_t *shape) {
  p->how = DERIVE_BROADCAST;
  p->to_rank = rank;
  memcpy(p->to_shape, shape, rank * sizeof *shape);
}

static void permute_by(placement *p, unsigned rank, const unsigned *axes) {
  p->how = DERIVE_PERMUTE;
  memcpy(p->axes, axes, rank * sizeof *axes);
}

enum { LY, LA, LX, LZ, LW }; /* the arguments of layouts_kernel */
static const uint32_t layouts_scalar = 0x2545f491u;

static void layout_case(ew_case *c, clgpu_elementwise *kernel, const char *label) {
  case_init(c, kernel, &layouts_kernel, label);
  c->scalar[LA] = &layouts_scalar;
}

/* Every array of a call in a layout of its own, made with array.h's
 * derivations: transposed, permuted, reversed and broadcast inputs beside
 * contiguous ones, a column-major or reversed output; ranks 0 to 4, extents
 * of 1 (dropped by the plan) and 0. */
static void fixed_layouts(void **state) {
  (void)state;
  clgpu_elementwise *kernel = make_kernel(&layouts_kernel, NULL, 0, 0);
  ew_case c;
  layout_case(&c, kernel, "5x7: y column-major, x transposed, z pitched reversed, w row-major");
  put(&c, LY, column_major(2, SHAPE(5, 7)), 2);
  put(&c, LX, dense(2, SHAPE(7, 5), NULL, NULL), 1)->how = DERIVE_TRANSPOSE;
  put(&c, LZ, dense(2, SHAPE(5, 7), NULL, SHAPE(1, 2)), 3)->how = DERIVE_REVERSE;
  put(&c, LW, dense(2, SHAPE(5, 7), NULL, NULL), 1);
  run_case(&c);

  layout_case(&c, kernel, "3x5x7: y row-major, x permuted, z broadcast middle, w last reversed");
  put(&c, LY, dense(3, SHAPE(3, 5, 7), NULL, NULL), 1);
  permute_by(put(&c, LX, dense(3, SHAPE(7, 3, 5), NULL, NULL), 2), 3, (const unsigned[]){1, 2, 0});
  broadcast_to(put(&c, LZ, dense(3, SHAPE(3, 1, 7), NULL, NULL), 1), 3, SHAPE(3, 5, 7));
  view_spec w = dense(3, SHAPE(3, 5, 7), NULL, NULL);
  w.strides[2] = -1;
  put(&c, LW, w, 2);
  run_case(&c);

  layout_case(&c, kernel, "3x5x1x2: y column-major, x pitched reversed, z one value, w permuted");
  put(&c, LY, column_major(4, SHAPE(3, 5, 1, 2)), 1);
  put(&c, LX, dense(4, SHAPE(3, 5, 1, 2), NULL, SHAPE(1, 0, 2, 1)), 2)->how = DERIVE_REVERSE;
  broadcast_to(put(&c, LZ, dense(0, SHAPE(1), NULL, NULL), 3), 4, SHAPE(3, 5, 1, 2));
  permute_by(put(&c, LW, dense(4, SHAPE(1, 5, 2, 3), NULL, NULL), 1), 4,
             (const unsigned[]){3, 1, 0, 2});
  run_case(&c);

  layout_case(&c, kernel, "4099: y reversed, x stride 3, z stride 0, w contiguous");
  put(&c, LY, line(0, 4099, -1), 1);
  put(&c, LX, line(0, 4099, 3), 2);
  put(&c, LZ, line(0, 4099, 0), 1);
  put(&c, LW, line(0, 4099, 1), 3);
  run_case(&c);

  layout_case(&c, kernel, "rank 0: one element each");
  for (size_t k = LX; k <= LW; k++) put(&c, k, dense(0, SHAPE(1), NULL, NULL), 2);
  put(&c, LY, dense(0, SHAPE(1), NULL, NULL), 2);
  run_case(&c);

  layout_case(&c, kernel, "7x1: y transposed from 1x7, x column-major, z, w row-major");
  put(&c, LY, dense(2, SHAPE(1, 7), NULL, NULL), 1)->how = DERIVE_TRANSPOSE;
  put(&c, LX, column_major(2, SHAPE(7, 1)), 1);
  put(&c, LZ, dense(2, SHAPE(7, 1), NULL, SHAPE(2, 2)), 1);
  put(&c, LW, dense(2, SHAPE(7, 1), NULL, NULL), 1)->how = DERIVE_REVERSE;
  run_case(&c);

  /* Extents of 1 reach nothing whatever their stride. */
  layout_case(&c, kernel, "1x7x1: strides of +-2^40 on the extents of 1");
  view_spec wild = dense(3, SHAPE(1, 7, 1), NULL, NULL);
  wild.strides[0] = (ptrdiff_t)1 << 40;
  wild.strides[2] = -((ptrdiff_t)1 << 40);
  put(&c, LY, wild, 1);
  put(&c, LX, wild, 2)->how = DERIVE_REVERSE;
  wild.strides[1] = -3;
  put(&c, LZ, wild, 1);
  put(&c, LW, dense(3, SHAPE(1, 7, 1), NULL, NULL), 1);
  run_case(&c);

  for (int reversed = 0; reversed < 2; reversed++) {
    layout_case(&c, kernel,
                reversed ? "1000: every array reversed" : "1000: every array contiguous");
    for (size_t k = 0; k < 5; k++) {
      if (k != LA) put(&c, k, line(0, 1000, 1), 2)->how = reversed ? DERIVE_REVERSE : DERIVE_NONE;
    }
    run_case(&c);
  }

  /* At least 4096 elements with inputs fastest along another dimension
   * than y: CPU devices walk it in blocks (partial ones at both edges
   * here), under Oclgrind too. */
  layout_case(&c, kernel, "70x65: y row-major, x and z transposed, w reversed (blocked)");
  put(&c, LY, dense(2, SHAPE(70, 65), NULL, NULL), 1);
  put(&c, LX, dense(2, SHAPE(65, 70), NULL, NULL), 2)->how = DERIVE_TRANSPOSE;
  put(&c, LZ, dense(2, SHAPE(65, 70), NULL, SHAPE(1, 0)), 1)->how = DERIVE_TRANSPOSE;
  put(&c, LW, dense(2, SHAPE(70, 65), NULL, NULL), 1)->how = DERIVE_REVERSE;
  run_case(&c);

  if (!oclgrind) {
    layout_case(&c, kernel, "257x255: y column-major, x row-major, z reversed, w transposed");
    put(&c, LY, column_major(2, SHAPE(257, 255)), 1);
    put(&c, LX, dense(2, SHAPE(257, 255), NULL, NULL), 1);
    put(&c, LZ, dense(2, SHAPE(257, 255), NULL, NULL), 2)->how = DERIVE_REVERSE;
    put(&c, LW, dense(2, SHAPE(255, 257), NULL, SHAPE(0, 3)), 1)->how = DERIVE_TRANSPOSE;
    run_case(&c);
    layout_case(&c, kernel, "20011x3: y pitched, x column-major, z reversed, w one row");
    put(&c, LY, dense(2, SHAPE(20011, 3), NULL, SHAPE(0, 2)), 1);
    put(&c, LX, column_major(2, SHAPE(20011, 3)), 1);
    put(&c, LZ, dense(2, SHAPE(20011, 3), NULL, NULL), 1)->how = DERIVE_REVERSE;
    broadcast_to(put(&c, LW, line(0, 3, 1), 1), 2, SHAPE(20011, 3));
    run_case(&c);
    layout_case(&c, kernel, "101x103x7: y permuted, x transposed, z, w row-major");
    permute_by(put(&c, LY, dense(3, SHAPE(7, 101, 103), NULL, NULL), 1), 3,
               (const unsigned[]){1, 2, 0});
    put(&c, LX, dense(3, SHAPE(7, 103, 101), NULL, NULL), 1)->how = DERIVE_TRANSPOSE;
    put(&c, LZ, dense(3, SHAPE(101, 103, 7), NULL, NULL), 1);
    put(&c, LW, dense(3, SHAPE(101, 103, 7), NULL, NULL), 1);
    run_case(&c);
    layout_case(&c, kernel, "65537: y, x contiguous, z reversed, w stride 2");
    put(&c, LY, line(0, 65537, 1), 1);
    put(&c, LX, line(0, 65537, 1), 1);
    put(&c, LZ, line(0, 65537, -1), 1);
    put(&c, LW, line(0, 65537, 2), 1);
    run_case(&c);
  }
  clgpu_elementwise_destroy(kernel);
}

/* A random layout over `shape`: row-major, column-major, a random order of
 * the dimensions with padded extents, that reversed, or with random signs
 * and a step; inputs also with random broadcast (stride 0) dimensions. */
static view_spec random_layout(test_rng *rng, unsigned rank, const size_t *shape, int output) {
  unsigned order[CLGPU_MAX_RANK];
  size_t pad[CLGPU_MAX_RANK] = {0};
  unsigned style = (unsigned)test_rng_below(rng, output ? 5 : 6);
  for (unsigned d = 0; d < rank; d++) order[d] = style == 1 ? d : rank - 1 - d;
  if (style >= 2) {
    for (unsigned d = rank; d > 1; d--) {
      unsigned j = (unsigned)test_rng_below(rng, d), swap = order[d - 1];
      order[d - 1] = order[j];
      order[j] = swap;
    }
    for (unsigned d = 0; d < rank; d++) pad[d] = (size_t)test_rng_below(rng, 3);
  }
  view_spec spec = dense(rank, shape, order, pad);
  ptrdiff_t step = style == 4 ? 1 + (ptrdiff_t)test_rng_below(rng, 3) : 1;
  for (unsigned d = 0; d < rank; d++) {
    spec.strides[d] *= step;
    if (style == 3 || (style == 4 && test_rng_below(rng, 2))) spec.strides[d] = -spec.strides[d];
    if (style == 5 && test_rng_below(rng, 2)) spec.strides[d] = 0;
  }
  return spec;
}

/* printf onto the end of `text`, cut at `size`. */
static void append(char *text, size_t size, const char *format, ...) {
  size_t used = strlen(text);
  if (used + 1 >= size) return;
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(text + used, size - used, format, arguments);
  va_end(arguments);
}

/* case_init, the label marked when the kernel is one of make_generic_kernel. */
static void case_on(ew_case *c, clgpu_elementwise *kernel, const kernel_def *def, int generic,
                    const char *label) {
  case_init(c, kernel, def, label);
  if (generic) append(c->label, sizeof c->label, " (generic kernel)");
}

/* A kernel with room for one specialised layout, taken by a 1-D layout of
 * stride 7 (scalars 0): every other strided layout then runs the generic
 * kernel. */
static clgpu_elementwise *make_generic_kernel(const kernel_def *def) {
  clgpu_elementwise *kernel = make_kernel(def, NULL, 1, 1000);
  static const uint64_t zero = 0;
  ew_case c;
  case_init(&c, kernel, def, "taking the only slot of the variant table");
  for (size_t k = 0; k < def->num_args; k++) {
    if (is_array(&c, k)) {
      put(&c, k, line(0, 3, 7), 1);
    } else {
      c.scalar[k] = &zero;
    }
  }
  run_case(&c);
  assert_int_equal(stats_of(kernel).variants_held, 1);
  return kernel;
}

/* Seeded random shapes (ranks 1 to 8, some with an extent 0) and layouts,
 * each run on a kernel that specialises every layout and on one that runs
 * the generic kernel for all but its first: both must match the model. */
static void run_random_layouts(const char *name, unsigned cases) {
  static const size_t extents[4][7] = {{1, 2, 3, 7, 93, 1000, 4099},
                                       {1, 2, 3, 5, 7, 31, 64},
                                       {1, 2, 3, 5, 7, 13, 13},
                                       {1, 2, 3, 5, 7, 7, 7}};
  clgpu_elementwise *specialising = make_kernel(&layouts_kernel, NULL, 256, 0);
  clgpu_elementwise *generic = make_kernel(&layouts_kernel, NULL, 1, 64);
  test_rng rng;
  test_rng_init(&rng, test_case_seed(name));
  for (unsigned r = 0; r < cases; r++) {
    /* One case in eight of rank 5 to 8, extents 1 to 3. */
    unsigned rank = 1 + (unsigned)test_rng_below(&rng, 4);
    if (test_rng_below(&rng, 8) == 0) rank += 4;
    size_t shape[CLGPU_MAX_RANK], count = 1;
    for (unsigned d = 0; d < rank; d++) {
      shape[d] = rank > 4 ? 1 + (size_t)test_rng_below(&rng, 3)
                          : extents[rank - 1][test_rng_below(&rng, 7)];
      if (count * shape[d] > 5000) shape[d] = 1;
      count *= shape[d];
    }
    if (test_rng_below(&rng, 12) == 0) shape[test_rng_below(&rng, rank)] = 0;
    view_spec specs[5];
    char label[400];
    snprintf(label, sizeof label, "%s %u: shape", name, r);
    for (unsigned d = 0; d < rank; d++) append(label, sizeof label, " %zu", shape[d]);
    for (size_t k = 0; k < 5; k++) {
      if (k == LA) continue;
      specs[k] = random_layout(&rng, rank, shape, k == LY);
      append(label, sizeof label, " %s[", layouts_kernel.args[k].name);
      for (unsigned d = 0; d < rank; d++) {
        append(label, sizeof label, d ? ",%td" : "%td", specs[k].strides[d]);
      }
      append(label, sizeof label, "]");
    }
    for (int g = 0; g < 2; g++) {
      ew_case c;
      layout_case(&c, g ? generic : specialising, label);
      for (size_t k = 0; k < 5; k++) {
        if (k != LA) put(&c, k, specs[k], (size_t)test_rng_below(&rng, 4));
      }
      run_case(&c);
    }
  }
  clgpu_elementwise_stats s = stats_of(specialising), g = stats_of(generic);
  assert_int_equal(s.contiguous_runs + s.specialised_runs + s.generic_runs + s.empty_runs, cases);
  assert_int_equal(g.contiguous_runs + g.specialised_runs + g.generic_runs + g.empty_runs, cases);
  assert_int_equal(s.generic_runs, 0);
  assert_int_equal(s.variants_held, s.specialisations);
  assert_int_equal(g.contiguous_runs, s.contiguous_runs);
  assert_int_equal(g.empty_runs, s.empty_runs);
  assert_true(g.specialisations <= 1);
  assert_int_equal(g.specialised_runs + g.generic_runs, s.specialised_runs);
  print_message("# %s: %llu contiguous, %llu specialised (%llu layouts), %llu empty\n", name,
                (unsigned long long)s.contiguous_runs, (unsigned long long)s.specialised_runs,
                (unsigned long long)s.specialisations, (unsigned long long)s.empty_runs);
  clgpu_elementwise_destroy(generic);
  clgpu_elementwise_destroy(specialising);
}

static void random_layouts(void **state) {
  (void)state;
  run_random_layouts("random layouts", 40);
}

/* i is the row-major index in the call's shape whatever the output's
 * layout, on the specialised and the generic kernel. */
static void run_index_cases(void) {
  for (int generic = 0; generic < 2; generic++) {
    clgpu_elementwise *kernel =
        generic ? make_generic_kernel(&index_kernel) : make_kernel(&index_kernel, NULL, 0, 0);
    ew_case c;
    case_on(&c, kernel, &index_kernel, generic, "i: 5x7, y column-major");
    put(&c, 0, column_major(2, SHAPE(5, 7)), 1);
    put(&c, 1, dense(2, SHAPE(5, 7), NULL, NULL), 1);
    run_case(&c);
    case_on(&c, kernel, &index_kernel, generic, "i: 3x5x7, y reversed, x transposed");
    put(&c, 0, dense(3, SHAPE(3, 5, 7), NULL, SHAPE(1, 1, 1)), 1)->how = DERIVE_REVERSE;
    put(&c, 1, dense(3, SHAPE(7, 5, 3), NULL, NULL), 1)->how = DERIVE_TRANSPOSE;
    run_case(&c);
    case_on(&c, kernel, &index_kernel, generic, "i: 1000, y stride -2");
    put(&c, 0, line(0, 1000, -2), 1);
    put(&c, 1, line(0, 1000, 1), 1);
    run_case(&c);
    case_on(&c, kernel, &index_kernel, generic, "i: 1000, both reversed");
    put(&c, 0, line(0, 1000, 1), 1)->how = DERIVE_REVERSE;
    put(&c, 1, line(0, 1000, 1), 1)->how = DERIVE_REVERSE;
    run_case(&c);
    case_on(&c, kernel, &index_kernel, generic, "i: 3x5x7, both column-major");
    put(&c, 0, column_major(3, SHAPE(3, 5, 7)), 1);
    put(&c, 1, column_major(3, SHAPE(3, 5, 7)), 1);
    run_case(&c);
    case_on(&c, kernel, &index_kernel, generic, "i: 5x7, both reversed row-major");
    put(&c, 0, dense(2, SHAPE(5, 7), NULL, NULL), 1)->how = DERIVE_REVERSE;
    put(&c, 1, dense(2, SHAPE(5, 7), NULL, NULL), 1)->how = DERIVE_REVERSE;
    run_case(&c);
    if (!oclgrind) {
      case_on(&c, kernel, &index_kernel, generic, "i: 3x20011, y column-major, x reversed");
      put(&c, 0, column_major(2, SHAPE(3, 20011)), 1);
      put(&c, 1, dense(2, SHAPE(3, 20011), NULL, NULL), 1)->how = DERIVE_REVERSE;
      run_case(&c);
    }
    case_on(&c, kernel, &index_kernel, generic, "i: 4x6, both contiguous");
    put(&c, 0, dense(2, SHAPE(4, 6), NULL, NULL), 1);
    put(&c, 1, dense(2, SHAPE(4, 6), NULL, NULL), 1);
    run_case(&c);
    case_on(&c, kernel, &index_kernel, generic, "i: 2x3x1x5, y permuted, x broadcast");
    permute_by(put(&c, 0, dense(4, SHAPE(5, 1, 2, 3), NULL, NULL), 1), 4,
               (const unsigned[]){2, 3, 1, 0});
    broadcast_to(put(&c, 1, dense(2, SHAPE(1, 5), NULL, NULL), 1), 4, SHAPE(2, 3, 1, 5));
    run_case(&c);
    if (generic) assert_int_equal(stats_of(kernel).specialised_runs, 1);
    clgpu_elementwise_destroy(kernel);
  }
}

static void index_is_row_major(void **state) {
  (void)state;
  run_index_cases();
}

/* An in-out array holds its element and is stored back. */
static void in_out(void **state) {
  (void)state;
  clgpu_elementwise *kernel = make_kernel(&accumulate_kernel, NULL, 0, 0);
  ew_case c;
  case_init(&c, kernel, &accumulate_kernel, "y += x: 5x7, y pitched, x reversed");
  put(&c, 0, dense(2, SHAPE(5, 7), NULL, SHAPE(0, 3)), 1);
  put(&c, 1, dense(2, SHAPE(5, 7), NULL, NULL), 1)->how = DERIVE_REVERSE;
  run_case(&c);
  case_init(&c, kernel, &accumulate_kernel, "y += x: 1000, contiguous");
  put(&c, 0, line(0, 1000, 1), 1);
  put(&c, 1, line(0, 1000, 1), 1);
  run_case(&c);
  case_init(&c, kernel, &accumulate_kernel, "y += x: 3x5x7, y column-major, x broadcast");
  put(&c, 0, column_major(3, SHAPE(3, 5, 7)), 1);
  broadcast_to(put(&c, 1, line(0, 7, 1), 1), 3, SHAPE(3, 5, 7));
  run_case(&c);
  clgpu_elementwise_destroy(kernel);
}

/* ---- overlap ---- */

/* One case of a two-argument kernel whose arrays share one region of
 * `elements`; returns how many inputs the call staged. */
static uint64_t shared_case(clgpu_elementwise *kernel, const kernel_def *def, const char *label,
                            size_t elements, view_spec out, view_spec in) {
  ew_case c;
  case_init(&c, kernel, def, label);
  unsigned region = add_region(&c, elements * sizeof(uint32_t), NULL);
  put_shared(&c, 0, region, out);
  put_shared(&c, 1, region, in);
  uint64_t before = stats_of(kernel).staged_inputs;
  run_case(&c);
  return stats_of(kernel).staged_inputs - before;
}

static view_spec grid(size_t offset, size_t rows, size_t columns, ptrdiff_t row_stride,
                      ptrdiff_t column_stride) {
  view_spec spec = {offset, 2, {rows, columns}, {row_stride, column_stride}};
  return spec;
}

/* An input that may share bytes with an output reads what a fresh buffer
 * would hold (the model gathers every input before any output is written):
 * it is staged; an input that is exactly the output's view, or interleaved
 * with it without meeting, is read in place. */
static void overlapping_views(void **state) {
  (void)state;
  clgpu_elementwise *plus_one = make_kernel(&plus_one_kernel, NULL, 0, 0);
  clgpu_elementwise *accumulate = make_kernel(&accumulate_kernel, NULL, 0, 0);
  const size_t n = 1000;
  const kernel_def *p1 = &plus_one_kernel, *acc = &accumulate_kernel;
  assert_int_equal(
      shared_case(plus_one, p1, "x[1:] = x[:-1] + 1", n, line(1, n - 1, 1), line(0, n - 1, 1)), 1);
  assert_int_equal(
      shared_case(plus_one, p1, "x[:-1] = x[1:] + 1", n, line(0, n - 1, 1), line(1, n - 1, 1)), 1);
  assert_int_equal(
      shared_case(plus_one, p1, "x = x[::-1] + 1", n, line(0, n, 1), line(n - 1, n, -1)), 1);
  assert_int_equal(
      shared_case(plus_one, p1, "x = x + 1 (in place)", n, line(0, n, 1), line(0, n, 1)), 0);
  assert_int_equal(shared_case(plus_one, p1, "x[::-2] = x[::-2] + 1 (in place)", 2 * n + 1,
                               line(2 * n - 1, n, -2), line(2 * n - 1, n, -2)),
                   0);
  assert_int_equal(shared_case(plus_one, p1, "x[0::2] = x[1::2] + 1 (interleaved)", 2 * n,
                               line(0, n, 2), line(1, n, 2)),
                   0);
  assert_int_equal(shared_case(plus_one, p1, "x[1:, :] = x[:-1, ::-1] + 1", 8 * 7,
                               grid(7, 7, 7, 7, 1), grid(6, 7, 7, 7, -1)),
                   1);
  assert_int_equal(shared_case(plus_one, p1, "x = x.T + 1", 31 * 31, grid(0, 31, 31, 31, 1),
                               grid(0, 31, 31, 1, 31)),
                   1);
  assert_int_equal(shared_case(plus_one, p1, "x = x[-1] + 1 (its last element, broadcast)", n,
                               line(0, n, 1), line(n - 1, n, 0)),
                   1);
  assert_int_equal(
      shared_case(accumulate, acc, "y[1:] += y[:-1]", n, line(1, n - 1, 1), line(0, n - 1, 1)), 1);
  assert_int_equal(
      shared_case(accumulate, acc, "y += y (in place)", n, line(0, n, 1), line(0, n, 1)), 0);
  clgpu_elementwise_destroy(accumulate);
  clgpu_elementwise_destroy(plus_one);
}

/* Views over two sub-buffers of one buffer: the input overlaps the output
 * through their parent, so it is staged; in disjoint sub-buffers it is
 * not. Sub-buffer origins are multiples of CL_DEVICE_MEM_BASE_ADDR_ALIGN,
 * as the guard size is. */
static void sub_buffers(void **state) {
  (void)state;
  clgpu_elementwise *kernel = make_kernel(&plus_one_kernel, NULL, 0, 0);
  size_t align = clgpu_context_device_info(shared_context)->mem_base_addr_align_bits / 8;
  if (align < 8) align = 8;
  const size_t n = 1000, shift = align / 4, elements = 2 * shift + n;
  for (int disjoint = 0; disjoint < 2; disjoint++) {
    const char *label = disjoint ? "sub-buffers: disjoint" : "sub-buffers: x shifted by one";
    uint32_t *initial = (uint32_t *)random_bytes(elements * 4, test_case_seed(label));
    test_guarded parent = test_guarded_create(shared_context, elements * 4, initial);
    cl_buffer_region low_region = {parent.offset, elements * 4};
    cl_buffer_region high_region = {parent.offset + align, elements * 4 - align};
    cl_int err = CL_SUCCESS;
    cl_mem low = clCreateSubBuffer(parent.buffer, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                   &low_region, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem high = clCreateSubBuffer(parent.buffer, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                    &high_region, &err);
    assert_int_equal(err, CL_SUCCESS);
    /* y: elements shift .. shift + count of the parent; x: one before, or
     * the first shift elements. */
    size_t count = disjoint ? shift : n, x_first = disjoint ? 0 : shift - 1;
    clgpu_array y, x;
    assert_status(clgpu_array_1d(high, 0, CLGPU_TYPE_UINT32, count, &y), CLGPU_SUCCESS);
    assert_status(clgpu_array_1d(low, x_first * 4, CLGPU_TYPE_UINT32, count, &x), CLGPU_SUCCESS);
    clgpu_elementwise_value values[2] = {{&y, NULL}, {&x, NULL}};
    uint64_t staged = stats_of(kernel).staged_inputs;
    cl_event event = NULL;
    assert_status(clgpu_elementwise_run(kernel, values, 0, NULL, &event), CLGPU_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
    clReleaseEvent(event);
    assert_int_equal(stats_of(kernel).staged_inputs - staged, disjoint ? 0 : 1);
    uint32_t *expected = malloc(elements * 4), *actual = malloc(elements * 4);
    assert_non_null(expected);
    assert_non_null(actual);
    memcpy(expected, initial, elements * 4);
    for (size_t e = 0; e < count; e++) expected[shift + e] = initial[x_first + e] + 1u;
    test_guarded_read(shared_context, &parent, actual);
    for (size_t e = 0; e < elements; e++) {
      if (actual[e] != expected[e]) {
        fail_msg("%s: parent element %zu is %u, expected %u", label, e, actual[e], expected[e]);
      }
    }
    test_guarded_check(shared_context, &parent, label);
    free(actual);
    free(expected);
    free(initial);
    clReleaseMemObject(high);
    clReleaseMemObject(low);
    test_guarded_release(&parent);
  }
  clgpu_elementwise_destroy(kernel);
}

/* ---- the contiguous path and the variant table ---- */

/* One run of a two-argument kernel over its own regions; returns the
 * stats after it. */
static clgpu_elementwise_stats run_pair(clgpu_elementwise *kernel, const kernel_def *def,
                                        const char *label, placement out, placement in) {
  ew_case c;
  case_init(&c, kernel, def, label);
  put(&c, 0, out.spec, 1)->how = out.how;
  put(&c, 1, in.spec, 2)->how = in.how;
  run_case(&c);
  return stats_of(kernel);
}

static placement plain(view_spec spec) { return (placement){0, spec, DERIVE_NONE, {0}, 0, {0}}; }
static placement reversed(view_spec spec) {
  return (placement){0, spec, DERIVE_REVERSE, {0}, 0, {0}};
}

/* Every array contiguous with matching layouts runs the plain 1-D kernel:
 * 1-D, row-major N-D, both column-major, both reversed; one program serves
 * them all. Anything else, and column-major arrays when the operation uses
 * i, run a specialised kernel. */
static void contiguous_fast_path(void **state) {
  (void)state;
  clgpu_elementwise *kernel = make_kernel(&times_five_kernel, NULL, 0, 0);
  const kernel_def *def = &times_five_kernel;
  uint64_t builds = builds_so_far();
  clgpu_elementwise_stats s;
  s = run_pair(kernel, def, "x5: 1000 contiguous", plain(line(0, 1000, 1)),
               plain(line(0, 1000, 1)));
  assert_int_equal(s.contiguous_runs, 1);
  s = run_pair(kernel, def, "x5: 3x5x7 row-major", plain(dense(3, SHAPE(3, 5, 7), NULL, NULL)),
               plain(dense(3, SHAPE(3, 5, 7), NULL, NULL)));
  assert_int_equal(s.contiguous_runs, 2);
  s = run_pair(kernel, def, "x5: 5x7 both column-major", plain(column_major(2, SHAPE(5, 7))),
               plain(column_major(2, SHAPE(5, 7))));
  assert_int_equal(s.contiguous_runs, 3);
  s = run_pair(kernel, def, "x5: 4099 both reversed", reversed(line(0, 4099, 1)),
               reversed(line(0, 4099, 1)));
  assert_int_equal(s.contiguous_runs, 4);
  assert_int_equal(s.specialised_runs + s.generic_runs, 0);
  assert_true(builds_so_far() - builds <= 1);
  s = run_pair(kernel, def, "x5: 1000, x stride 2", plain(line(0, 1000, 1)),
               plain(line(0, 1000, 2)));
  assert_int_equal(s.specialised_runs, 1);
  s = run_pair(kernel, def, "x5: 5x7, y row-major, x column-major",
               plain(dense(2, SHAPE(5, 7), NULL, NULL)), plain(column_major(2, SHAPE(5, 7))));
  assert_int_equal(s.specialised_runs, 2);
  assert_int_equal(s.contiguous_runs, 4);
  clgpu_elementwise_destroy(kernel);

  kernel = make_kernel(&plus_index_kernel, NULL, 0, 0);
  s = run_pair(kernel, &plus_index_kernel, "x + i: 5x7 row-major",
               plain(dense(2, SHAPE(5, 7), NULL, NULL)), plain(dense(2, SHAPE(5, 7), NULL, NULL)));
  assert_int_equal(s.contiguous_runs, 1);
  s = run_pair(kernel, &plus_index_kernel, "x + i: 5x7 both column-major",
               plain(column_major(2, SHAPE(5, 7))), plain(column_major(2, SHAPE(5, 7))));
  assert_int_equal(s.contiguous_runs, 1);
  assert_int_equal(s.specialised_runs, 1);
  clgpu_elementwise_destroy(kernel);
}

/* variant_cap 3, promote_after 2: eight new layouts specialise three and
 * run the generic kernel for five, building at most four programs; a new
 * layout run twice takes the least recently used one's slot. Offsets and
 * the number of rows are no part of a layout. */
static void variant_table(void **state) {
  (void)state;
  clgpu_elementwise *kernel = make_kernel(&xor_kernel, NULL, 3, 2);
  const kernel_def *def = &xor_kernel;
  uint64_t builds = builds_so_far();
  char label[96];
  clgpu_elementwise_stats s;
  for (ptrdiff_t stride = 2; stride <= 9; stride++) {
    snprintf(label, sizeof label, "variants: x stride %td", stride);
    s = run_pair(kernel, def, label, plain(line(0, 200, 1)), plain(line(0, 200, stride)));
  }
  assert_int_equal(s.specialisations, 3);
  assert_int_equal(s.specialised_runs, 3);
  assert_int_equal(s.generic_runs, 5);
  assert_int_equal(s.variants_held, 3);
  assert_int_equal(s.evictions, 0);
  uint64_t built = builds_so_far() - builds;
  if (built > 4)
    fail_msg("eight layouts with variant_cap 3 built %llu programs", (unsigned long long)built);
  for (int run = 0; run < 2; run++) {
    s = run_pair(kernel, def, "variants: x stride 10", plain(line(0, 200, 1)),
                 plain(line(0, 200, 10)));
  }
  assert_int_equal(s.specialisations, 4);
  assert_int_equal(s.evictions, 1);
  assert_int_equal(s.variants_held, 3);
  uint64_t specialised = s.specialised_runs, generic = s.generic_runs;
  s = run_pair(kernel, def, "variants: x stride 10 again", plain(line(0, 200, 1)),
               plain(line(0, 200, 10)));
  assert_int_equal(s.specialised_runs, specialised + 1);
  /* Stride 2 was the least recently used: it went; 3 and 4 stay. */
  s = run_pair(kernel, def, "variants: x stride 2 again", plain(line(0, 200, 1)),
               plain(line(0, 200, 2)));
  assert_int_equal(s.generic_runs, generic + 1);
  s = run_pair(kernel, def, "variants: x stride 3 again", plain(line(0, 200, 1)),
               plain(line(0, 200, 3)));
  s = run_pair(kernel, def, "variants: x stride 4 again", plain(line(0, 200, 1)),
               plain(line(0, 200, 4)));
  assert_int_equal(s.specialised_runs, specialised + 3);
  assert_int_equal(s.specialisations, 4);
  clgpu_elementwise_destroy(kernel);

  /* A layout is every array's strides: runs that differ only in the last
   * input's are four programs, each right. */
  kernel = make_kernel(&layouts_kernel, NULL, 0, 0);
  static const ptrdiff_t w_strides[4][2] = {{7, 1}, {14, 2}, {7, -1}, {0, 1}};
  for (int variant = 0; variant < 5; variant++) {
    snprintf(label, sizeof label, "variants: w strides (%td, %td)", w_strides[variant % 4][0],
             w_strides[variant % 4][1]);
    ew_case c;
    layout_case(&c, kernel, label);
    put(&c, LY, dense(2, SHAPE(5, 7), NULL, SHAPE(0, 1)), 1);
    put(&c, LX, dense(2, SHAPE(5, 7), NULL, NULL), 1);
    put(&c, LZ, column_major(2, SHAPE(5, 7)), 1);
    put(&c, LW, grid(0, 5, 7, w_strides[variant % 4][0], w_strides[variant % 4][1]), 1);
    run_case(&c);
  }
  s = stats_of(kernel);
  assert_int_equal(s.specialisations, 4);
  assert_int_equal(s.specialised_runs, 5);
  clgpu_elementwise_destroy(kernel);

  /* specialise_after 2: a new layout runs the generic kernel once, and is
   * specialised at its second run even though the table has room. */
  const clgpu_elementwise_options later = {
      .variant_cap = 3, .promote_after = 2, .specialise_after = 2};
  assert_status(clgpu_elementwise_create(shared_context, xor_kernel.operation, xor_kernel.num_args,
                                         xor_kernel.args, &later, &kernel),
                CLGPU_SUCCESS);
  for (int run = 0; run < 3; run++) {
    s = run_pair(kernel, def, "specialise_after 2: x stride 5", plain(line(0, 200, 1)),
                 plain(line(0, 200, 5)));
    assert_int_equal(s.generic_runs, 1);
    assert_int_equal(s.specialised_runs, (uint64_t)run);
    assert_int_equal(s.specialisations, run > 0 ? 1 : 0);
  }
  s = run_pair(kernel, def, "specialise_after 2: x stride 6", plain(line(0, 200, 1)),
               plain(line(0, 200, 6)));
  assert_int_equal(s.generic_runs, 2);
  assert_int_equal(s.variants_held, 1);
  clgpu_elementwise_destroy(kernel);

  kernel = make_kernel(&minus_seven_kernel, NULL, 0, 0);
  s = run_pair(kernel, &minus_seven_kernel, "rows: 5x6, x pitched",
               plain(dense(2, SHAPE(5, 6), NULL, NULL)),
               plain(dense(2, SHAPE(5, 6), NULL, SHAPE(0, 3))));
  ew_case c;
  case_init(&c, kernel, &minus_seven_kernel, "rows: 9x6 at other offsets, x pitched");
  put(&c, 0, dense(2, SHAPE(9, 6), NULL, NULL), 5);
  put(&c, 1, dense(2, SHAPE(9, 6), NULL, SHAPE(0, 3)), 11);
  run_case(&c);
  s = stats_of(kernel);
  assert_int_equal(s.specialised_runs, 2);
  assert_int_equal(s.specialisations, 1);
  clgpu_elementwise_destroy(kernel);
}

/* ---- refusals ---- */

static void model_refused(uint64_t i, void *const *v) {
  (void)i;
  set_u32(v, 0, get_u32(v, 1) + get_u32(v, 2));
  set_u32(v, 3, get_u32(v, 1) - get_u32(v, 2));
}
static const kernel_def refused_kernel = {4,
                                          {{"out_values", CLGPU_ARG_OUT, CLGPU_TYPE_UINT32},
                                           {"in_values", CLGPU_ARG_IN, CLGPU_TYPE_UINT32},
                                           {"bias", CLGPU_ARG_SCALAR, CLGPU_TYPE_UINT32},
                                           {"other", CLGPU_ARG_OUT, CLGPU_TYPE_UINT32}},
                                          "out_values = in_values + bias; other = in_values - bias",
                                          model_refused,
                                          {0}};

enum {
  R_NULL_KERNEL,
  R_NULL_VALUES,
  R_BROADCAST_OUTPUT,
  R_SELF_OVERLAPPING_OUTPUT,
  R_SAME_OUTPUTS,
  R_OVERLAPPING_OUTPUTS,
  R_SHAPES,
  R_RANKS,
  R_TYPES,
  R_MISSING_ARRAY,
  R_SCALAR_FOR_ARRAY,
  R_BOTH_FOR_ARRAY,
  R_ARRAY_FOR_SCALAR,
  R_MISSING_SCALAR,
  R_OUTPUT_PAST_END,
  R_INPUT_BEFORE_START,
  R_MISALIGNED_INPUT,
  R_WAIT_LIST_MISSING,
  R_WAIT_LIST_WITHOUT_COUNT,
  R_READ_ONLY_OUTPUT,
  R_WRITE_ONLY_INPUT,
  R_FOREIGN_INPUT,
  R_ROWS
};
static const struct {
  const char *name;
  clgpu_status expected;
} refusal_rows[R_ROWS] = {
    {"NULL kernel", CLGPU_INVALID_ARGUMENT},
    {"NULL values", CLGPU_INVALID_ARGUMENT},
    {"broadcast output (stride 0)", CLGPU_INVALID_OUTPUT},
    {"self-overlapping output (strides 2, 1)", CLGPU_INVALID_OUTPUT},
    {"both outputs one view", CLGPU_INVALID_OUTPUT},
    {"outputs overlapping by three rows", CLGPU_INVALID_OUTPUT},
    {"shapes (4, 5) and (5, 4)", CLGPU_SHAPE_MISMATCH},
    {"ranks 2 and 1, 20 elements each", CLGPU_SHAPE_MISMATCH},
    {"int array for a uint argument", CLGPU_TYPE_MISMATCH},
    {"array missing", CLGPU_INVALID_ARGUMENT},
    {"scalar given for an array", CLGPU_INVALID_ARGUMENT},
    /* elementwise.h: an array argument's value has `scalar` NULL. */
    {"array and scalar given for an array", CLGPU_INVALID_ARGUMENT},
    {"array given for a scalar", CLGPU_INVALID_ARGUMENT},
    {"scalar missing", CLGPU_INVALID_ARGUMENT},
    {"output past the buffer's end", CLGPU_VIEW_OUT_OF_BOUNDS},
    {"input before the buffer's start", CLGPU_VIEW_OUT_OF_BOUNDS},
    {"misaligned input offset", CLGPU_MISALIGNED_VIEW},
    {"num_events 1, wait_list NULL", CLGPU_INVALID_ARGUMENT},
    {"num_events 0, wait_list set", CLGPU_INVALID_ARGUMENT},
    {"CL_MEM_READ_ONLY output", CLGPU_INVALID_OUTPUT},
    {"CL_MEM_WRITE_ONLY input", CLGPU_INVALID_ARGUMENT},
    {"input in another cl_context", CLGPU_MISMATCHED_OBJECTS},
};

static cl_mem plain_buffer(clgpu_context *context, cl_mem_flags flags, size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(clgpu_context_cl_context(context), flags, bytes, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  return buffer;
}

/* Each misuse of a run returns its status, makes no event, and changes no
 * byte of any region. */
static void run_refusals(void **state) {
  (void)state;
  clgpu_elementwise *kernel = make_kernel(&refused_kernel, NULL, 0, 0);
  clgpu_context *other_context = test_context(NULL);
  const size_t shape[2] = {4, 5}, bytes[3] = {25 * 4, 20 * 4, 20 * 4};
  test_guarded regions[3];
  unsigned char *initial[3];
  for (int r = 0; r < 3; r++) {
    initial[r] = random_bytes(bytes[r], test_case_seed("refusals") + (uint64_t)r);
    regions[r] = test_guarded_create(shared_context, bytes[r], initial[r]);
  }
  cl_mem foreign = plain_buffer(other_context, CL_MEM_READ_WRITE, 80);
  cl_mem read_only = plain_buffer(shared_context, CL_MEM_READ_ONLY, 80);
  cl_mem write_only = plain_buffer(shared_context, CL_MEM_WRITE_ONLY, 80);
  cl_int err = CL_SUCCESS;
  cl_event gate = clCreateUserEvent(clgpu_context_cl_context(shared_context), &err);
  assert_int_equal(err, CL_SUCCESS);
  const uint32_t bias = 3;
  unsigned char after[100];
  for (int row = 0; row <= R_ROWS; row++) {
    clgpu_array views[4], row_view;
    const int slot[4] = {0, 1, -1, 2};
    for (int k = 0; k < 4; k++) {
      if (slot[k] < 0) continue;
      assert_status(clgpu_array_nd(regions[slot[k]].buffer, regions[slot[k]].offset,
                                   CLGPU_TYPE_UINT32, 2, shape, CLGPU_ORDER_ROW_MAJOR, &views[k]),
                    CLGPU_SUCCESS);
    }
    clgpu_elementwise_value values[4] = {
        {&views[0], NULL}, {&views[1], NULL}, {NULL, &bias}, {&views[3], NULL}};
    clgpu_elementwise *k = kernel;
    const clgpu_elementwise_value *v = values;
    cl_uint num_events = 0;
    const cl_event *wait_list = NULL;
    const ptrdiff_t overlapping[2] = {2, 1};
    switch (row) {
      case R_NULL_KERNEL:
        k = NULL;
        break;
      case R_NULL_VALUES:
        v = NULL;
        break;
      case R_BROADCAST_OUTPUT:
        assert_status(
            clgpu_array_1d(regions[0].buffer, regions[0].offset, CLGPU_TYPE_UINT32, 5, &row_view),
            CLGPU_SUCCESS);
        assert_status(clgpu_array_broadcast(&row_view, 2, shape, &views[0]), CLGPU_SUCCESS);
        break;
      case R_SELF_OVERLAPPING_OUTPUT:
        assert_status(clgpu_array_strided(regions[0].buffer, regions[0].offset, CLGPU_TYPE_UINT32,
                                          2, shape, overlapping, &views[0]),
                      CLGPU_SUCCESS);
        break;
      case R_SAME_OUTPUTS:
        views[3] = views[0];
        break;
      case R_OVERLAPPING_OUTPUTS:
        assert_status(clgpu_array_nd(regions[0].buffer, regions[0].offset + 20, CLGPU_TYPE_UINT32,
                                     2, shape, CLGPU_ORDER_ROW_MAJOR, &views[3]),
                      CLGPU_SUCCESS);
        break;
      case R_SHAPES:
        assert_status(clgpu_array_nd(regions[1].buffer, regions[1].offset, CLGPU_TYPE_UINT32, 2,
                                     (const size_t[]){5, 4}, CLGPU_ORDER_ROW_MAJOR, &views[1]),
                      CLGPU_SUCCESS);
        break;
      case R_RANKS:
        assert_status(
            clgpu_array_1d(regions[1].buffer, regions[1].offset, CLGPU_TYPE_UINT32, 20, &views[1]),
            CLGPU_SUCCESS);
        break;
      case R_TYPES:
        assert_status(clgpu_array_reinterpret(&views[1], CLGPU_TYPE_INT32, &views[1]),
                      CLGPU_SUCCESS);
        break;
      case R_MISSING_ARRAY:
        values[1].array = NULL;
        break;
      case R_SCALAR_FOR_ARRAY:
        values[1] = (clgpu_elementwise_value){NULL, &bias};
        break;
      case R_BOTH_FOR_ARRAY:
        values[1].scalar = &bias;
        break;
      case R_ARRAY_FOR_SCALAR:
        values[2] = (clgpu_elementwise_value){&views[1], NULL};
        break;
      case R_MISSING_SCALAR:
        values[2].scalar = NULL;
        break;
      case R_OUTPUT_PAST_END:
        views[0].shape[0] = 4 + 2 * TEST_GUARD_BYTES / 20 + 1;
        break;
      case R_INPUT_BEFORE_START:
        views[1].offset = 0;
        views[1].strides[0] = -5;
        break;
      case R_MISALIGNED_INPUT:
        views[1].offset += 1;
        break;
      case R_WAIT_LIST_MISSING:
        num_events = 1;
        break;
      case R_WAIT_LIST_WITHOUT_COUNT:
        wait_list = &gate;
        break;
      case R_READ_ONLY_OUTPUT:
        assert_status(clgpu_array_nd(read_only, 0, CLGPU_TYPE_UINT32, 2, shape,
                                     CLGPU_ORDER_ROW_MAJOR, &views[0]),
                      CLGPU_SUCCESS);
        break;
      case R_WRITE_ONLY_INPUT:
        assert_status(clgpu_array_nd(write_only, 0, CLGPU_TYPE_UINT32, 2, shape,
                                     CLGPU_ORDER_ROW_MAJOR, &views[1]),
                      CLGPU_SUCCESS);
        break;
      case R_FOREIGN_INPUT:
        assert_status(clgpu_array_nd(foreign, 0, CLGPU_TYPE_UINT32, 2, shape, CLGPU_ORDER_ROW_MAJOR,
                                     &views[1]),
                      CLGPU_SUCCESS);
        break;
      default:
        break; /* R_ROWS: the unedited call, which must work */
    }
    cl_event event = NULL;
    clgpu_status status = clgpu_elementwise_run(k, v, num_events, wait_list, &event);
    assert_int_equal(clFinish(clgpu_context_queue(shared_context)), CL_SUCCESS);
    if (row == R_ROWS) {
      assert_status(status, CLGPU_SUCCESS);
      assert_non_null(event);
      clReleaseEvent(event);
      uint32_t out[20], in[20];
      test_guarded_read(shared_context, &regions[0], after);
      memcpy(out, after, sizeof out);
      memcpy(in, initial[1], sizeof in);
      for (int e = 0; e < 20; e++) assert_int_equal(out[e], in[e] + bias);
      break;
    }
    const char *name = refusal_rows[row].name;
    if (status != refusal_rows[row].expected) {
      fail_msg("refusal \"%s\": %s (%d), expected %s; detail: %s", name, clgpu_status_name(status),
               (int)status, clgpu_status_name(refusal_rows[row].expected), clgpu_last_error());
    }
    print_message("# %s: %s\n", name, clgpu_last_error());
    if (clgpu_last_error()[0] == '\0') fail_msg("refusal \"%s\": no detail message", name);
    if (row == R_SHAPES && !strstr(clgpu_last_error(), "in_values")) {
      fail_msg("refusal \"%s\": the message does not name in_values: %s", name, clgpu_last_error());
    }
    if (event != NULL) fail_msg("refusal \"%s\": an event was made", name);
    for (int r = 0; r < 3; r++) {
      test_guarded_read(shared_context, &regions[r], after);
      if (memcmp(after, initial[r], bytes[r]) != 0)
        fail_msg("refusal \"%s\": region %d changed", name, r);
      test_guarded_check(shared_context, &regions[r], name);
    }
  }
  assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
  clReleaseEvent(gate);
  clReleaseMemObject(write_only);
  clReleaseMemObject(read_only);
  clReleaseMemObject(foreign);
  for (int r = 0; r < 3; r++) {
    test_guarded_release(&regions[r]);
    free(initial[r]);
  }
  clgpu_context_destroy(other_context);
  clgpu_elementwise_destroy(kernel);
}

#define ARG_Y \
  { "y", CLGPU_ARG_OUT, CLGPU_TYPE_UINT32 }
#define ARG_X \
  { "x", CLGPU_ARG_IN, CLGPU_TYPE_UINT32 }
#define NAME_63 "n12345678901234567890123456789012345678901234567890123456789012"

static const struct {
  const char *name;
  size_t num_args;
  clgpu_elementwise_arg args[3];
  const char *operation;
  unsigned variant_cap;
  clgpu_status expected;
} create_rows[] = {
    {"no arguments", 0, {ARG_Y}, "y = 1u", 0, CLGPU_INVALID_ARGUMENT},
    {"no output", 1, {ARG_X}, "x + 1u", 0, CLGPU_INVALID_ARGUMENT},
    {"name 2x",
     2,
     {{"2x", CLGPU_ARG_OUT, CLGPU_TYPE_UINT32}, ARG_X},
     "x",
     0,
     CLGPU_INVALID_ARGUMENT},
    {"name i", 2, {{"i", CLGPU_ARG_OUT, CLGPU_TYPE_UINT32}, ARG_X}, "x", 0, CLGPU_INVALID_ARGUMENT},
    {"name clgpu_x",
     2,
     {ARG_Y, {"clgpu_x", CLGPU_ARG_IN, CLGPU_TYPE_UINT32}},
     "y = clgpu_x",
     0,
     CLGPU_INVALID_ARGUMENT},
    {"name CLGPU_X",
     2,
     {ARG_Y, {"CLGPU_X", CLGPU_ARG_IN, CLGPU_TYPE_UINT32}},
     "y = CLGPU_X",
     0,
     CLGPU_INVALID_ARGUMENT},
    {"empty name",
     2,
     {ARG_Y, {"", CLGPU_ARG_IN, CLGPU_TYPE_UINT32}},
     "y = 1u",
     0,
     CLGPU_INVALID_ARGUMENT},
    {"name a-b",
     2,
     {ARG_Y, {"a-b", CLGPU_ARG_IN, CLGPU_TYPE_UINT32}},
     "y = 1u",
     0,
     CLGPU_INVALID_ARGUMENT},
    {"NULL name",
     2,
     {ARG_Y, {NULL, CLGPU_ARG_IN, CLGPU_TYPE_UINT32}},
     "y = 1u",
     0,
     CLGPU_INVALID_ARGUMENT},
    {"64-character name",
     2,
     {ARG_Y, {NAME_63 "3", CLGPU_ARG_IN, CLGPU_TYPE_UINT32}},
     "y = 1u",
     0,
     CLGPU_INVALID_ARGUMENT},
    {"63-character name (accepted)",
     2,
     {ARG_Y, {NAME_63, CLGPU_ARG_IN, CLGPU_TYPE_UINT32}},
     "y = 1u",
     0,
     CLGPU_SUCCESS},
    {"duplicate name",
     3,
     {ARG_Y, ARG_X, {"x", CLGPU_ARG_IN, CLGPU_TYPE_INT32}},
     "y = x",
     0,
     CLGPU_INVALID_ARGUMENT},
    {"half scalar",
     3,
     {ARG_Y, ARG_X, {"h", CLGPU_ARG_SCALAR, CLGPU_TYPE_HALF}},
     "y = x",
     0,
     CLGPU_INVALID_ARGUMENT},
    {"empty operation", 2, {ARG_Y, ARG_X}, "", 0, CLGPU_INVALID_ARGUMENT},
    {"NULL operation", 2, {ARG_Y, ARG_X}, NULL, 0, CLGPU_INVALID_ARGUMENT},
    {"unknown kind",
     2,
     {ARG_Y, {"x", (clgpu_elementwise_kind)0, CLGPU_TYPE_UINT32}},
     "y = x",
     0,
     CLGPU_INVALID_ARGUMENT},
    {"unknown type",
     2,
     {ARG_Y, {"x", CLGPU_ARG_IN, (clgpu_type)0}},
     "y = x",
     0,
     CLGPU_INVALID_ARGUMENT},
    {"variant_cap 257", 2, {ARG_Y, ARG_X}, "y = x", 257, CLGPU_INVALID_ARGUMENT},
    {"variant_cap 256 (accepted)", 2, {ARG_Y, ARG_X}, "y = x", 256, CLGPU_SUCCESS},
};

static void expect_create(const char *name, clgpu_context *context, size_t num_args,
                          const clgpu_elementwise_arg *args, const char *operation,
                          const clgpu_elementwise_options *options, clgpu_status expected) {
  static int sentinel;
  clgpu_elementwise *kernel = (clgpu_elementwise *)&sentinel;
  clgpu_status status =
      clgpu_elementwise_create(context, operation, num_args, args, options, &kernel);
  if (status != expected) {
    fail_msg("create \"%s\": %s, expected %s; detail: %s", name, clgpu_status_name(status),
             clgpu_status_name(expected), clgpu_last_error());
  }
  if (status == CLGPU_SUCCESS) {
    clgpu_elementwise_destroy(kernel);
    return;
  }
  print_message("# %s: %s\n", name, clgpu_last_error());
  if (kernel != NULL) fail_msg("create \"%s\": *out is not NULL after a failure", name);
  if (clgpu_last_error()[0] == '\0') fail_msg("create \"%s\": no detail message", name);
}

static void create_refusals(void **state) {
  (void)state;
  assert_int_equal(strlen(NAME_63), 63);
  for (size_t r = 0; r < sizeof create_rows / sizeof create_rows[0]; r++) {
    clgpu_elementwise_options options = {.variant_cap = create_rows[r].variant_cap};
    expect_create(create_rows[r].name, shared_context, create_rows[r].num_args, create_rows[r].args,
                  create_rows[r].operation, &options, create_rows[r].expected);
  }
  const clgpu_elementwise_arg pair[2] = {ARG_Y, ARG_X};
  expect_create("NULL context", NULL, 2, pair, "y = x", NULL, CLGPU_INVALID_ARGUMENT);
  expect_create("NULL args", shared_context, 2, NULL, "y = x", NULL, CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_elementwise_create(shared_context, "y = x", 2, pair, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  clgpu_elementwise_destroy(NULL);
  clgpu_elementwise_stats stats;
  assert_status(clgpu_elementwise_get_stats(NULL, &stats), CLGPU_INVALID_ARGUMENT);
  clgpu_elementwise *kernel = make_kernel(&plus_one_kernel, NULL, 0, 0);
  assert_status(clgpu_elementwise_get_stats(kernel, NULL), CLGPU_INVALID_ARGUMENT);
  clgpu_elementwise_destroy(kernel);
  /* 17 arguments; 11 arrays in 16; 10 arrays in 16 is the most. */
  static const char *const names[17] = {"o", "b", "c", "d", "e", "f", "g", "h", "j",
                                        "k", "l", "m", "n", "p", "q", "r", "s"};
  clgpu_elementwise_arg many[17];
  for (int a = 0; a < 17; a++) {
    many[a] = (clgpu_elementwise_arg){names[a],
                                      a == 0   ? CLGPU_ARG_OUT
                                      : a < 10 ? CLGPU_ARG_IN
                                               : CLGPU_ARG_SCALAR,
                                      CLGPU_TYPE_UINT32};
  }
  expect_create("17 arguments", shared_context, 17, many, "o = b", NULL, CLGPU_INVALID_ARGUMENT);
  expect_create("16 arguments, 10 arrays (accepted)", shared_context, 16, many, "o = b", NULL,
                CLGPU_SUCCESS);
  many[10].kind = CLGPU_ARG_IN;
  expect_create("16 arguments, 11 arrays", shared_context, 16, many, "o = b", NULL,
                CLGPU_INVALID_ARGUMENT);
  if (!clgpu_context_device_info(shared_context)->has_fp64) {
    expect_create("double without cl_khr_fp64", shared_context, double_kernel.num_args,
                  double_kernel.args, double_kernel.operation, NULL, CLGPU_UNSUPPORTED_FEATURE);
  }
}

/* A mistake in the operation or the preamble shows at the first run as a
 * build failure whose log names its part; nothing is enqueued. Left out
 * under Oclgrind (--check-api reports the failing build). */
static void expect_build_failure(const char *operation, const char *preamble, const char *part) {
  const kernel_def def = {2, {ARG_Y, ARG_X}, operation, NULL, {0}};
  clgpu_elementwise *kernel = make_kernel(&def, preamble, 0, 0);
  unsigned char *initial = random_bytes(400, test_case_seed(operation));
  test_guarded region = test_guarded_create(shared_context, 400, initial);
  clgpu_array y, x;
  assert_status(clgpu_array_1d(region.buffer, region.offset, CLGPU_TYPE_UINT32, 50, &y),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(region.buffer, region.offset + 200, CLGPU_TYPE_UINT32, 50, &x),
                CLGPU_SUCCESS);
  clgpu_elementwise_value values[2] = {{&y, NULL}, {&x, NULL}};
  for (int attempt = 0; attempt < 2; attempt++) {
    cl_event event = NULL;
    assert_status(clgpu_elementwise_run(kernel, values, 0, NULL, &event),
                  CLGPU_CL_BUILD_PROGRAM_FAILURE);
    assert_null(event);
    if (!strstr(clgpu_last_error(), part)) {
      fail_msg("build failure of \"%s\": the log does not mention \"%s\": %s", operation, part,
               clgpu_last_error());
    }
  }
  unsigned char after[400];
  test_guarded_read(shared_context, &region, after);
  assert_memory_equal(after, initial, 400);
  test_guarded_check(shared_context, &region, operation);
  test_guarded_release(&region);
  free(initial);
  clgpu_elementwise_destroy(kernel);
}

static void build_failures(void **state) {
  (void)state;
  if (oclgrind) skip();
  expect_build_failure("y = undefined_thing", NULL, "operation");
  expect_build_failure("y = x", "this is not OpenCL C;", "preamble");
}

/* ---- names and texts refused at create (issue 15, items 3 and 9) ---- */

/* A name the kernel needs (a built-in the generator or an operation
 * calls, a keyword, a type) once ran on contiguous views and failed to
 * build on strided ones, or failed at every run: every such name is
 * refused at create, with a message naming the argument and the name. */
static const char *const reserved_names[] = {
    "min",        "max",           "clamp",      "int",       "kernel",     "global",
    "get_global_id", "float4",     "convert_int", "uchar16",  "double8",    "half",
    "size_t",     "local",         "constant",   "private",   "vload4",     "vstore_half_rte",
    "as_float",   "select",        "barrier",    "printf",    "fabs",       "mad",
    "isnan",      "ulong",         "bool",       "image2d_t", "atomic_add", "native_sin",
    "float4x4",   "FLT_MAX",       "M_PI",       "INFINITY",  "NAN",        "__x",
    "_Reserved",  "clgpu_y",       "CLGPU_Y",    "return",    "sizeof",     "struct",
    "work_group_reduce_add",       "sub_group_broadcast",     "get_image_width",
    "read_imagef", "CLK_LOCAL_MEM_FENCE",
};

static void reserved_argument_names(void **state) {
  (void)state;
  for (size_t r = 0; r < sizeof reserved_names / sizeof reserved_names[0]; r++) {
    const char *name = reserved_names[r];
    const clgpu_elementwise_arg args[2] = {ARG_Y, {name, CLGPU_ARG_IN, CLGPU_TYPE_UINT32}};
    static int sentinel;
    clgpu_elementwise *kernel = (clgpu_elementwise *)&sentinel;
    clgpu_status status =
        clgpu_elementwise_create(shared_context, "y = 1u", 2, args, NULL, &kernel);
    if (status != CLGPU_INVALID_ARGUMENT) {
      fail_msg("argument name \"%s\": %s, expected CLGPU_INVALID_ARGUMENT; detail: %s", name,
               clgpu_status_name(status), clgpu_last_error());
    }
    if (kernel != NULL) fail_msg("argument name \"%s\": *out is not NULL after a failure", name);
    char quoted[80];
    snprintf(quoted, sizeof quoted, "\"%s\"", name);
    if (!strstr(clgpu_last_error(), "args[1].name") || !strstr(clgpu_last_error(), quoted)) {
      fail_msg("argument name \"%s\": the message names neither args[1].name nor the name: %s",
               name, clgpu_last_error());
    }
  }
  print_message("# %zu reserved names refused; the last: %s\n",
                sizeof reserved_names / sizeof reserved_names[0], clgpu_last_error());
}

/* Names close to reserved ones work, on contiguous and strided views
 * alike, and the operation still calls the built-ins (min, clamp) they
 * resemble. The operation spans lines, has comments, a ternary, casts and
 * nested calls, and a `break`, which ends the element (its output stored)
 * on every layout: it used to fail to build on contiguous views and to end
 * the whole run of elements on strided ones. */
static void model_near_reserved(uint64_t i, void *const *v) {
  (void)i;
  uint32_t minimum = get_u32(v, 1), kernel2 = get_u32(v, 2);
  uint32_t low = kernel2 >> 1, high = (kernel2 >> 1) + 0x40000000u;
  uint32_t clamped = minimum < low ? low : minimum > high ? high : minimum;
  uint32_t x_max = clamped - (minimum < kernel2 ? minimum : kernel2);
  if (!(minimum > kernel2)) x_max = (uint32_t)((uint64_t)x_max * 3u);
  set_u32(v, 0, x_max);
}
static const kernel_def near_reserved_kernel = {
    3,
    {{"x_max", CLGPU_ARG_OUT, CLGPU_TYPE_UINT32},
     {"minimum", CLGPU_ARG_IN, CLGPU_TYPE_UINT32},
     {"kernel2", CLGPU_ARG_IN, CLGPU_TYPE_UINT32}},
    "/* names close to reserved ones */\n"
    "x_max = clamp(minimum, kernel2 >> 1,\n"
    "              (kernel2 >> 1) + 0x40000000u)\n"
    "        - min(minimum, (uint)(kernel2));\n"
    "if (minimum > kernel2) break; // the element ends here; x_max is stored\n"
    "x_max = (minimum > kernel2) ? 0u : (uint)((ulong)x_max * 3u);\n",
    model_near_reserved,
    {0}};

static void near_reserved_names(void **state) {
  (void)state;
  clgpu_elementwise *kernel = make_kernel(&near_reserved_kernel, NULL, 0, 0);
  ew_case c;
  case_init(&c, kernel, &near_reserved_kernel, "near-reserved names: 1000 contiguous");
  for (size_t k = 0; k < 3; k++) put(&c, k, line(0, 1000, 1), 1);
  run_case(&c);
  case_init(&c, kernel, &near_reserved_kernel, "near-reserved names: 1000, x[::2]");
  for (size_t k = 0; k < 3; k++) put(&c, k, line(0, 1000, 2), 1);
  run_case(&c);
  case_init(&c, kernel, &near_reserved_kernel, "near-reserved names: 5x7, mixed layouts");
  put(&c, 0, column_major(2, SHAPE(5, 7)), 1);
  put(&c, 1, dense(2, SHAPE(5, 7), NULL, NULL), 1);
  put(&c, 2, dense(2, SHAPE(5, 7), NULL, NULL), 1)->how = DERIVE_REVERSE;
  run_case(&c);
  clgpu_elementwise_destroy(kernel);
}

/* Operations and preambles that could escape their place in the kernel
 * (close its block, hide its code in a comment or a preprocessor
 * conditional, splice lines, leave the loop over elements, reach the
 * library's variables) are refused at create, each with its status and
 * the words that say why; the message names the argument. */
typedef struct text_row {
  const char *name;
  const char *operation;
  const char *preamble;
  clgpu_status expected;
  const char *words; /* in the message, besides the argument's name */
} text_row;

static const text_row text_rows[] = {
    {"operation closing the kernel's block", "y = x; } if (1) { y = 0u", NULL,
     CLGPU_INVALID_ARGUMENT, "'}' closes a bracket that was never opened"},
    {"operation with an open bracket", "y = (x", NULL, CLGPU_INVALID_ARGUMENT, "never closed"},
    {"operation with crossed brackets", "y = (x]", NULL, CLGPU_INVALID_ARGUMENT,
     "does not match"},
    {"operation with an open comment", "y = x; /* the rest", NULL, CLGPU_INVALID_ARGUMENT,
     "comment opened here is not closed"},
    {"operation with #define", "y = x;\n#define x 0", NULL, CLGPU_INVALID_ARGUMENT, "#define"},
    {"operation with #if", "#if 0\ny = x;", NULL, CLGPU_INVALID_ARGUMENT, "#if"},
    {"operation with # inside a line", "y = x; #pragma unroll", NULL, CLGPU_INVALID_ARGUMENT,
     "'#'"},
    {"operation that returns", "if (x) return; y = x", NULL, CLGPU_INVALID_ARGUMENT, "return"},
    {"operation naming the library's variable", "y = clgpu_a1[0]", NULL, CLGPU_INVALID_ARGUMENT,
     "clgpu_a1"},
    {"operation with a spliced line", "y = x; // note \\\ny = 0u", NULL, CLGPU_INVALID_ARGUMENT,
     "backslash"},
    {"operation with a trigraph", "y = x ?\?/\n+ 1u", NULL, CLGPU_INVALID_ARGUMENT, "trigraph"},
    {"operation with a digraph", "if (x) <% y = x; %>", NULL, CLGPU_INVALID_ARGUMENT,
     "digraph"},
    {"operation with an open literal", "y = 'a", NULL, CLGPU_INVALID_ARGUMENT,
     "character literal"},
    {"operation with a stray backslash", "y = x \\ 1u", NULL, CLGPU_INVALID_ARGUMENT, "'\\'"},
    {"preamble with #include", "y = x", "#include \"/etc/passwd\"\n", CLGPU_INVALID_ARGUMENT,
     "#include"},
    {"preamble with a stray brace", "y = x", "uint f(uint v) { return v; } }",
     CLGPU_INVALID_ARGUMENT, "'}'"},
    {"preamble with an open comment", "y = x", "/* helper", CLGPU_INVALID_ARGUMENT,
     "not closed"},
    {"preamble redefining a library name", "y = x", "#define CLGPU_SHAPE_1 1\n",
     CLGPU_INVALID_ARGUMENT, "#define"},
    {"preamble naming a library name", "y = x", "uint clgpu_helper(uint v) { return v; }",
     CLGPU_INVALID_ARGUMENT, "clgpu_helper"},
};

static void expect_text_refused(const char *name, const char *operation, const char *preamble,
                                clgpu_status expected, const char *words) {
  const clgpu_elementwise_arg args[2] = {ARG_Y, ARG_X};
  clgpu_elementwise_options options = {.preamble = preamble};
  static int sentinel;
  clgpu_elementwise *kernel = (clgpu_elementwise *)&sentinel;
  uint64_t builds = builds_so_far();
  clgpu_status status =
      clgpu_elementwise_create(shared_context, operation, 2, args, &options, &kernel);
  if (status != expected) {
    fail_msg("\"%s\": %s, expected %s; detail: %s", name, clgpu_status_name(status),
             clgpu_status_name(expected), clgpu_last_error());
  }
  if (kernel != NULL) fail_msg("\"%s\": *out is not NULL after a failure", name);
  const char *detail = clgpu_last_error();
  print_message("# %s: %s\n", name, detail);
  const char *argument = preamble ? "options->preamble" : "operation";
  if (!strstr(detail, argument) || !strstr(detail, words)) {
    fail_msg("\"%s\": the message lacks \"%s\" or \"%s\": %s", name, argument, words, detail);
  }
  assert_int_equal(builds_so_far(), builds);
}

static void refused_texts(void **state) {
  (void)state;
  for (size_t r = 0; r < sizeof text_rows / sizeof text_rows[0]; r++) {
    const text_row *row = &text_rows[r];
    expect_text_refused(row->name, row->operation, row->preamble, row->expected, row->words);
  }
  /* The length caps: 65536 bytes of operation and 1 MiB of preamble pass
   * the length check (and build nothing at create); one more byte is
   * CLGPU_EXPRESSION_TOO_LONG. */
  size_t big = 1048576;
  char *text = malloc(big + 2);
  assert_non_null(text);
  memset(text, ' ', big + 1);
  memcpy(text, "y = x", 5);
  text[65536] = '\0';
  const clgpu_elementwise_arg args[2] = {ARG_Y, ARG_X};
  clgpu_elementwise *kernel = NULL;
  assert_status(clgpu_elementwise_create(shared_context, text, 2, args, NULL, &kernel),
                CLGPU_SUCCESS);
  clgpu_elementwise_destroy(kernel);
  text[65536] = ' ';
  text[65537] = '\0';
  expect_text_refused("operation of 65537 bytes", text, NULL, CLGPU_EXPRESSION_TOO_LONG, "65536");
  memset(text, ' ', big + 1);
  text[big] = '\0';
  clgpu_elementwise_options options = {.preamble = text};
  kernel = NULL;
  assert_status(clgpu_elementwise_create(shared_context, "y = x", 2, args, &options, &kernel),
                CLGPU_SUCCESS);
  clgpu_elementwise_destroy(kernel);
  text[big] = ' ';
  text[big + 1] = '\0';
  expect_text_refused("preamble of 1048577 bytes", "y = x", text, CLGPU_EXPRESSION_TOO_LONG,
                      "1048576");
  free(text);
  /* What the rules allow: closed comments, #pragma lines, literals holding
   * what is refused outside them. */
  options.preamble = "#pragma OPENCL EXTENSION all : disable\n/* a helper */\n"
                     "constant char note[] = \"// not a comment; {\";\n";
  kernel = NULL;
  assert_status(
      clgpu_elementwise_create(shared_context, "// copy\ny = x + (uint)(';' - ';') /* none */", 2,
                               args, &options, &kernel),
      CLGPU_SUCCESS);
  clgpu_elementwise_destroy(kernel);
}

/* ---- empty shapes and events ---- */

/* An extent 0 enqueues nothing and succeeds; an event asked for completes
 * (the model writes nothing, so the runner checks every byte stays). */
static void empty_shapes(void **state) {
  (void)state;
  clgpu_elementwise *kernel = make_kernel(&plus_one_kernel, NULL, 0, 0);
  ew_case c;
  case_init(&c, kernel, &plus_one_kernel, "empty: 3x0x5, y column-major, x reversed, an event");
  put(&c, 0, column_major(3, SHAPE(3, 0, 5)), 4);
  put(&c, 1, dense(3, SHAPE(3, 0, 5), NULL, NULL), 4)->how = DERIVE_REVERSE;
  run_case(&c);
  case_init(&c, kernel, &plus_one_kernel, "empty: 0, no event");
  put(&c, 0, line(0, 0, 1), 4);
  put(&c, 1, line(0, 0, 1), 4);
  c.no_event = 1;
  run_case(&c);
  clgpu_elementwise_stats s = stats_of(kernel);
  assert_int_equal(s.empty_runs, 2);
  assert_int_equal(s.contiguous_runs + s.specialised_runs + s.generic_runs + s.staged_inputs, 0);
  clgpu_elementwise_destroy(kernel);
}

/* A user event in the wait list holds back every way a run goes: the
 * contiguous kernel, a specialised one, a staged input's copy, an empty
 * shape's marker. */
static void events(void **state) {
  (void)state;
  clgpu_elementwise *layouts = make_kernel(&layouts_kernel, NULL, 0, 0);
  clgpu_elementwise *plus_one = make_kernel(&plus_one_kernel, NULL, 0, 0);
  ew_case c;
  layout_case(&c, layouts, "gated: 1000, every array contiguous");
  for (size_t k = 0; k < 5; k++) {
    if (k != LA) put(&c, k, line(0, 1000, 1), 1);
  }
  c.gated = 1;
  run_case(&c);
  layout_case(&c, layouts, "gated: 5x7, y column-major, x transposed, z reversed");
  put(&c, LY, column_major(2, SHAPE(5, 7)), 2);
  put(&c, LX, dense(2, SHAPE(7, 5), NULL, NULL), 1)->how = DERIVE_TRANSPOSE;
  put(&c, LZ, dense(2, SHAPE(5, 7), NULL, NULL), 3)->how = DERIVE_REVERSE;
  put(&c, LW, dense(2, SHAPE(5, 7), NULL, NULL), 1);
  c.gated = 1;
  run_case(&c);
  case_init(&c, plus_one, &plus_one_kernel, "gated: x[1:] = x[:-1] + 1, staged");
  unsigned region = add_region(&c, 1000 * sizeof(uint32_t), NULL);
  put_shared(&c, 0, region, line(1, 999, 1));
  put_shared(&c, 1, region, line(0, 999, 1));
  c.gated = 1;
  run_case(&c);
  assert_int_equal(stats_of(plus_one).staged_inputs, 1);
  case_init(&c, plus_one, &plus_one_kernel, "gated: 3x0x5, a marker");
  put(&c, 0, dense(3, SHAPE(3, 0, 5), NULL, NULL), 2);
  put(&c, 1, dense(3, SHAPE(3, 0, 5), NULL, NULL), 2);
  c.gated = 1;
  run_case(&c);
  clgpu_elementwise_destroy(plus_one);
  clgpu_elementwise_destroy(layouts);
}

/* On an out-of-order queue only events order commands: a staged input's
 * copy must come before the kernel, the wait list before the copy, and runs
 * chained by their events in order (x = x[::-1] + 1 four times is x + 4).
 * The runner's context becomes one over such a queue for the test. Skipped
 * where the device has none. */
static void out_of_order_queue(void **state) {
  (void)state;
  cl_device_id device = clgpu_context_device(shared_context);
  cl_command_queue queue = test_out_of_order_queue(shared_context);
  if (!queue) skip();
  clgpu_context *in_order = shared_context, *context = NULL;
  assert_status(
      clgpu_context_wrap(clgpu_context_cl_context(in_order), device, queue, NULL, &context),
      CLGPU_SUCCESS);
  shared_context = context;
  clgpu_elementwise *kernel = make_kernel(&plus_one_kernel, NULL, 0, 0);
  const size_t n = 4099;
  assert_int_equal(shared_case(kernel, &plus_one_kernel, "out of order: x = x[::-1] + 1", n,
                               line(0, n, 1), line(n - 1, n, -1)),
                   1);
  ew_case c;
  case_init(&c, kernel, &plus_one_kernel, "out of order, gated: x[1:] = x[:-1] + 1");
  unsigned region = add_region(&c, n * sizeof(uint32_t), NULL);
  put_shared(&c, 0, region, line(1, n - 1, 1));
  put_shared(&c, 1, region, line(0, n - 1, 1));
  c.gated = 1;
  run_case(&c);

  uint32_t *initial = (uint32_t *)random_bytes(n * 4, test_case_seed("out of order chain"));
  test_guarded buffer = test_guarded_create(context, n * 4, initial);
  view_spec forward = line(0, n, 1), backward = line(n - 1, n, -1);
  clgpu_array y = make_view(&buffer, CLGPU_TYPE_UINT32, &forward);
  clgpu_array x = make_view(&buffer, CLGPU_TYPE_UINT32, &backward);
  clgpu_elementwise_value values[2] = {{&y, NULL}, {&x, NULL}};
  cl_event previous = NULL;
  for (int run = 0; run < 4; run++) {
    cl_event next = NULL;
    assert_status(
        clgpu_elementwise_run(kernel, values, previous ? 1 : 0, previous ? &previous : NULL, &next),
        CLGPU_SUCCESS);
    if (previous) clReleaseEvent(previous);
    previous = next;
  }
  assert_int_equal(clWaitForEvents(1, &previous), CL_SUCCESS);
  clReleaseEvent(previous);
  uint32_t *actual = malloc(n * 4);
  assert_non_null(actual);
  test_guarded_read(context, &buffer, actual);
  for (size_t e = 0; e < n; e++) {
    if (actual[e] != initial[e] + 4u) {
      fail_msg("out of order: x = x[::-1] + 1 four times: element %zu is %u, expected %u", e,
               actual[e], initial[e] + 4u);
    }
  }
  test_guarded_check(context, &buffer, "out of order chain");
  test_guarded_release(&buffer);
  free(actual);
  free(initial);
  clgpu_elementwise_destroy(kernel);
  shared_context = in_order;
  clgpu_context_destroy(context);
  clReleaseCommandQueue(queue);
}

/* The strided kernels give each work-item a chunk of elements (on a CPU
 * device at least 4096, so most cases above are one chunk) in groups of
 * the device's choice. CLGPU_COPY_CHUNK and CLGPU_COPY_GROUP, read when a
 * context is made, force chunks that start inside rows and cross several
 * carries, and groups whose global size is rounded up past the last chunk:
 * random layouts and the index cases run again on such contexts. */
static void launch_shapes(void **state) {
  (void)state;
  static const struct {
    const char *chunk;
    const char *group;
  } launches[] = {{"3", "32"}, {"1", NULL}, {"5", "64"}};
  size_t count = oclgrind ? 1 : sizeof launches / sizeof launches[0];
  for (size_t l = 0; l < count; l++) {
    setenv("CLGPU_COPY_CHUNK", launches[l].chunk, 1);
    if (launches[l].group) setenv("CLGPU_COPY_GROUP", launches[l].group, 1);
    clgpu_context_options options;
    memset(&options, 0, sizeof options);
    options.disk_cache = CLGPU_DISK_CACHE_OFF;
    shared_context = test_context(&options);
    unsetenv("CLGPU_COPY_CHUNK");
    unsetenv("CLGPU_COPY_GROUP");
    char name[64];
    snprintf(name, sizeof name, "chunk %s, group %s", launches[l].chunk,
             launches[l].group ? launches[l].group : "default");
    run_random_layouts(name, 8);
    run_index_cases();
    clgpu_context_destroy(shared_context);
    shared_context = group_context;
  }
}

/* ---- threads ---- */

typedef struct worker {
  ew_case cases[2];
  prepared prepared[2];
  int rounds;
  clgpu_status status;
  cl_int wait;
} worker;

/* Oclgrind simulates one kernel at a time per context (two at once abort
 * it in Context::notifyKernelBegin), so there the runs take turns; they
 * still come from two threads. */
static pthread_mutex_t oclgrind_turn = PTHREAD_MUTEX_INITIALIZER;

/* No cmocka here: failures are recorded and checked on the main thread. */
static void *work(void *argument) {
  worker *w = argument;
  for (int round = 0; round < w->rounds; round++) {
    for (int k = 0; k < 2; k++) {
      cl_event event = NULL;
      if (oclgrind) pthread_mutex_lock(&oclgrind_turn);
      w->status = clgpu_elementwise_run(w->cases[k].kernel, w->prepared[k].values, 0, NULL, &event);
      w->wait = w->status == CLGPU_SUCCESS ? clWaitForEvents(1, &event) : CL_SUCCESS;
      if (oclgrind) pthread_mutex_unlock(&oclgrind_turn);
      if (event) clReleaseEvent(event);
      if (w->status != CLGPU_SUCCESS || w->wait != CL_SUCCESS) return NULL;
    }
  }
  return NULL;
}

/* Two threads run one kernel object at once over four layouts, more than
 * its variant table holds, so they specialise, promote and evict under
 * each other; every output matches the model. */
static void two_threads(void **state) {
  (void)state;
  clgpu_elementwise *kernel = make_kernel(&index_kernel, NULL, 2, 2);
  worker *workers = calloc(2, sizeof *workers);
  assert_non_null(workers);
  ew_case *c = workers[0].cases;
  case_init(&c[0], kernel, &index_kernel, "thread 1: 1000, y stride -3");
  put(&c[0], 0, line(0, 1000, -3), 1);
  put(&c[0], 1, line(0, 1000, 1), 1);
  case_init(&c[1], kernel, &index_kernel, "thread 1: 5x7, y column-major");
  put(&c[1], 0, column_major(2, SHAPE(5, 7)), 1);
  put(&c[1], 1, dense(2, SHAPE(5, 7), NULL, NULL), 1);
  c = workers[1].cases;
  case_init(&c[0], kernel, &index_kernel, "thread 2: 3x5x7, x transposed");
  put(&c[0], 0, dense(3, SHAPE(3, 5, 7), NULL, NULL), 1);
  put(&c[0], 1, dense(3, SHAPE(7, 5, 3), NULL, NULL), 1)->how = DERIVE_TRANSPOSE;
  case_init(&c[1], kernel, &index_kernel, "thread 2: 31x64, x pitched");
  put(&c[1], 0, dense(2, SHAPE(31, 64), NULL, NULL), 1);
  put(&c[1], 1, dense(2, SHAPE(31, 64), NULL, SHAPE(0, 5)), 1);
  pthread_t threads[2];
  for (int t = 0; t < 2; t++) {
    workers[t].rounds = oclgrind ? 3 : 8;
    for (int k = 0; k < 2; k++) prepare_case(&workers[t].cases[k], &workers[t].prepared[k]);
    assert_int_equal(pthread_create(&threads[t], NULL, work, &workers[t]), 0);
  }
  for (int t = 0; t < 2; t++) assert_int_equal(pthread_join(threads[t], NULL), 0);
  for (int t = 0; t < 2; t++) {
    if (workers[t].status != CLGPU_SUCCESS || workers[t].wait != CL_SUCCESS) {
      fail_msg("thread %d: run %s, wait %d", t + 1, clgpu_status_name(workers[t].status),
               (int)workers[t].wait);
    }
    for (int k = 0; k < 2; k++) {
      check_case(&workers[t].cases[k], &workers[t].prepared[k]);
      release_case(&workers[t].cases[k], &workers[t].prepared[k]);
    }
  }
  clgpu_elementwise_stats s = stats_of(kernel);
  assert_int_equal(s.contiguous_runs + s.specialised_runs + s.generic_runs,
                   (uint64_t)(4 * workers[0].rounds));
  assert_true(s.variants_held <= 2);
  free(workers);
  clgpu_elementwise_destroy(kernel);
}

/* ---- preamble, operations over several lines, types ---- */

static void preamble_and_multiline(void **state) {
  (void)state;
  clgpu_elementwise *twice =
      make_kernel(&twice_kernel, "static float twice(float v) { return 2.0f * v; }\n", 0, 0);
  ew_case c;
  case_init(&c, twice, &twice_kernel, "preamble: 1000, x stride 2");
  put(&c, 0, line(0, 1000, 1), 1);
  put(&c, 1, line(0, 1000, 2), 1);
  run_case(&c);
  case_init(&c, twice, &twice_kernel, "preamble: 5x7 contiguous");
  put(&c, 0, dense(2, SHAPE(5, 7), NULL, NULL), 1);
  put(&c, 1, dense(2, SHAPE(5, 7), NULL, NULL), 1);
  run_case(&c);
  clgpu_elementwise_destroy(twice);
  clgpu_elementwise *multiline = make_kernel(&multiline_kernel, NULL, 0, 0);
  case_init(&c, multiline, &multiline_kernel, "multi-line: 5x7, y column-major, x reversed");
  put(&c, 0, column_major(2, SHAPE(5, 7)), 1);
  put(&c, 1, dense(2, SHAPE(5, 7), NULL, NULL), 1)->how = DERIVE_REVERSE;
  run_case(&c);
  clgpu_elementwise_destroy(multiline);
}

/* int8, uint8, int16, uint16, int32, uint32 in; int64 out; then int64 in
 * and int8, uint8, int16, uint64 out, each in a layout of its own. */
static void integer_types(void **state) {
  (void)state;
  const int64_t m = (int64_t)UINT64_C(0xc3a5c85c97cb3127);
  for (int generic = 0; generic < 2; generic++) {
    clgpu_elementwise *widen =
        generic ? make_generic_kernel(&widen_kernel) : make_kernel(&widen_kernel, NULL, 0, 0);
    ew_case c;
    case_on(&c, widen, &widen_kernel, generic, "widen: 5x7 mixed layouts");
    put(&c, 0, column_major(2, SHAPE(5, 7)), 1);
    put(&c, 1, dense(2, SHAPE(5, 7), NULL, NULL), 3)->how = DERIVE_REVERSE;
    put(&c, 2, dense(2, SHAPE(7, 5), NULL, NULL), 1)->how = DERIVE_TRANSPOSE;
    put(&c, 3, dense(2, SHAPE(5, 7), NULL, SHAPE(0, 2)), 1);
    broadcast_to(put(&c, 4, line(0, 7, 1), 1), 2, SHAPE(5, 7));
    put(&c, 5, dense(2, SHAPE(5, 7), NULL, NULL), 1);
    put(&c, 6, column_major(2, SHAPE(5, 7)), 2);
    run_case(&c);
    if (!generic) {
      case_init(&c, widen, &widen_kernel, "widen: 4099 contiguous");
      for (size_t k = 0; k < 7; k++) put(&c, k, line(0, 4099, 1), 1);
      run_case(&c);
    }
    clgpu_elementwise_destroy(widen);

    clgpu_elementwise *narrow =
        generic ? make_generic_kernel(&narrow_kernel) : make_kernel(&narrow_kernel, NULL, 0, 0);
    case_on(&c, narrow, &narrow_kernel, generic, "narrow: 3x5x7, four outputs of four layouts");
    c.scalar[5] = &m;
    put(&c, 0, column_major(3, SHAPE(3, 5, 7)), 3);
    put(&c, 1, dense(3, SHAPE(3, 5, 7), NULL, NULL), 1)->how = DERIVE_REVERSE;
    put(&c, 2, dense(3, SHAPE(3, 5, 7), NULL, NULL), 2);
    put(&c, 3, dense(3, SHAPE(3, 5, 7), NULL, SHAPE(1, 0, 1)), 1);
    put(&c, 4, dense(3, SHAPE(7, 5, 3), NULL, NULL), 1)->how = DERIVE_TRANSPOSE;
    run_case(&c);
    if (!generic) {
      case_init(&c, narrow, &narrow_kernel, "narrow: 1000 contiguous");
      c.scalar[5] = &m;
      for (size_t k = 0; k < 5; k++) put(&c, k, line(0, 1000, 1), 1);
      run_case(&c);
    }
    clgpu_elementwise_destroy(narrow);
  }
}

/* The most arguments: ten arrays and six scalars of six types. */
static void model_most(uint64_t i, void *const *v) {
  (void)i;
  uint32_t sum = 0;
  for (size_t k = 1; k < 10; k++) sum += get_u32(v, k) * (uint32_t)k;
  sum += (uint32_t)get_i8(v, 10) + (uint32_t)get_u16(v, 11) + (uint32_t)get_i64(v, 12) +
         (uint32_t)get_f32(v, 13) + (uint32_t)get_u64(v, 14) + (uint32_t)get_u8(v, 15);
  set_u32(v, 0, sum);
}
static const kernel_def most_kernel = {
    16,
    {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_UINT32},
     {"x1", CLGPU_ARG_IN, CLGPU_TYPE_UINT32},
     {"x2", CLGPU_ARG_IN, CLGPU_TYPE_UINT32},
     {"x3", CLGPU_ARG_IN, CLGPU_TYPE_UINT32},
     {"x4", CLGPU_ARG_IN, CLGPU_TYPE_UINT32},
     {"x5", CLGPU_ARG_IN, CLGPU_TYPE_UINT32},
     {"x6", CLGPU_ARG_IN, CLGPU_TYPE_UINT32},
     {"x7", CLGPU_ARG_IN, CLGPU_TYPE_UINT32},
     {"x8", CLGPU_ARG_IN, CLGPU_TYPE_UINT32},
     {"x9", CLGPU_ARG_IN, CLGPU_TYPE_UINT32},
     {"s_char", CLGPU_ARG_SCALAR, CLGPU_TYPE_INT8},
     {"s_ushort", CLGPU_ARG_SCALAR, CLGPU_TYPE_UINT16},
     {"s_long", CLGPU_ARG_SCALAR, CLGPU_TYPE_INT64},
     {"s_float", CLGPU_ARG_SCALAR, CLGPU_TYPE_FLOAT},
     {"s_ulong", CLGPU_ARG_SCALAR, CLGPU_TYPE_UINT64},
     {"s_uchar", CLGPU_ARG_SCALAR, CLGPU_TYPE_UINT8}},
    "y = x1 + x2 * 2u + x3 * 3u + x4 * 4u + x5 * 5u + x6 * 6u + x7 * 7u + x8 * 8u + x9 * 9u\n"
    "    + (uint)s_char + (uint)s_ushort + (uint)s_long + (uint)s_float + (uint)s_ulong\n"
    "    + (uint)s_uchar",
    model_most,
    {0}};

/* Rank 8 with ten arrays in random layouts, specialised and then generic
 * (the generic kernel passes every extent and stride as an argument), and
 * contiguous; scalars of every size. */
static void most_arguments(void **state) {
  (void)state;
  clgpu_elementwise *kernel = make_kernel(&most_kernel, NULL, 1, 64);
  const int8_t s_char = -5;
  const uint16_t s_ushort = 65000;
  const int64_t s_long = -(INT64_C(1) << 40) - 3;
  const float s_float = 12.0f;
  const uint64_t s_ulong = UINT64_C(0xfedcba9876543210);
  const uint8_t s_uchar = 250;
  const void *scalars[6] = {&s_char, &s_ushort, &s_long, &s_float, &s_ulong, &s_uchar};
  test_rng rng;
  test_rng_init(&rng, test_case_seed("most arguments"));
  static const size_t shapes[2][8] = {{2, 1, 3, 2, 2, 1, 3, 2}, {3, 2, 2, 1, 2, 3, 2, 2}};
  for (int r = 0; r < 3; r++) {
    ew_case c;
    case_init(&c, kernel, &most_kernel,
              r == 0   ? "16 arguments: rank 8 (specialised)"
              : r == 1 ? "16 arguments: rank 8 (generic)"
                       : "16 arguments: 4099 contiguous");
    for (int k = 0; k < 6; k++) c.scalar[10 + k] = scalars[k];
    for (size_t k = 0; k < 10; k++) {
      view_spec spec = r == 2 ? line(0, 4099, 1) : random_layout(&rng, 8, shapes[r], k == 0);
      if (r < 2 && k == 1) {
        spec = dense(8, shapes[r], NULL, NULL);
        for (unsigned d = 0; d < 8; d++) spec.strides[d] = -spec.strides[d];
      }
      put(&c, k, spec, 1);
    }
    run_case(&c);
  }
  clgpu_elementwise_stats s = stats_of(kernel);
  assert_int_equal(s.specialised_runs, 1);
  assert_int_equal(s.generic_runs, 1);
  assert_int_equal(s.contiguous_runs, 1);
  clgpu_elementwise_destroy(kernel);
}

/* Half arrays are storage: loaded exactly, computed in float, stored
 * rounding to nearest even. Compared bit for bit (NaNs left out). */
static void half_storage(void **state) {
  (void)state;
  for (int generic = 0; generic < 2; generic++) {
    clgpu_elementwise *kernel =
        generic ? make_generic_kernel(&half_kernel) : make_kernel(&half_kernel, NULL, 0, 0);
    ew_case c;
    if (!generic) {
      case_init(&c, kernel, &half_kernel, "half: 4099 contiguous");
      put(&c, 0, line(0, 4099, 1), 1);
      put(&c, 1, line(0, 4099, 1), 1);
      run_case(&c);
    }
    case_on(&c, kernel, &half_kernel, generic, "half: 31x64, y column-major, x reversed");
    put(&c, 0, column_major(2, SHAPE(31, 64)), 1);
    put(&c, 1, dense(2, SHAPE(31, 64), NULL, NULL), 1)->how = DERIVE_REVERSE;
    run_case(&c);
    case_on(&c, kernel, &half_kernel, generic, "half: every value but the NaNs, x reversed");
    put(&c, 0, line(0, 65536, 1), 1);
    put(&c, 1, line(0, 65536, 1), 0)->how = DERIVE_REVERSE;
    c.region_prepare[c.place[1].region] = prepare_every_half;
    if (!oclgrind) run_case(&c);
    clgpu_elementwise_destroy(kernel);
    kernel = generic ? make_generic_kernel(&half_in_place_kernel)
                     : make_kernel(&half_in_place_kernel, NULL, 0, 0);
    case_on(&c, kernel, &half_in_place_kernel, generic, "half in-out: 5x7x3 pitched");
    put(&c, 0, dense(3, SHAPE(5, 7, 3), NULL, SHAPE(1, 0, 1)), 1);
    run_case(&c);
    clgpu_elementwise_destroy(kernel);
  }
}

/* a * x + z, which may round once (an fma) or twice: within 4 ulp of the
 * largest operand. */
static void float_within_bound(void **state) {
  (void)state;
  clgpu_elementwise *kernel = make_kernel(&float_kernel, NULL, 0, 0);
  const float a = 1.1f;
  ew_case c;
  case_init(&c, kernel, &float_kernel, "float: 4099 contiguous");
  c.scalar[1] = &a;
  c.bound = bound_float;
  put(&c, 0, line(0, 4099, 1), 1);
  put(&c, 2, line(0, 4099, 1), 1);
  put(&c, 3, line(0, 4099, 1), 1);
  run_case(&c);
  case_init(&c, kernel, &float_kernel, "float: 5x7, y column-major, x transposed, z reversed");
  c.scalar[1] = &a;
  c.bound = bound_float;
  put(&c, 0, column_major(2, SHAPE(5, 7)), 1);
  put(&c, 2, dense(2, SHAPE(7, 5), NULL, NULL), 1)->how = DERIVE_TRANSPOSE;
  put(&c, 3, dense(2, SHAPE(5, 7), NULL, NULL), 1)->how = DERIVE_REVERSE;
  run_case(&c);
  clgpu_elementwise_destroy(kernel);
}

static void double_when_available(void **state) {
  (void)state;
  if (!clgpu_context_device_info(shared_context)->has_fp64) {
    /* Refused when the object is made, naming the argument and the
     * extension, with no object. */
    clgpu_elementwise *kernel = (clgpu_elementwise *)state;
    clgpu_status status =
        clgpu_elementwise_create(shared_context, double_kernel.operation, double_kernel.num_args,
                                 double_kernel.args, NULL, &kernel);
    if (status != CLGPU_UNSUPPORTED_FEATURE || !strstr(clgpu_last_error(), "cl_khr_fp64")) {
      fail_msg("a double kernel without cl_khr_fp64: %s (%d), \"%s\"", clgpu_status_name(status),
               (int)status, clgpu_last_error());
    }
    assert_null(kernel);
    return;
  }
  clgpu_elementwise *kernel = make_kernel(&double_kernel, NULL, 0, 0);
  const double b = -3.0e-3;
  ew_case c;
  case_init(&c, kernel, &double_kernel, "double: 1000 contiguous");
  c.scalar[2] = &b;
  put(&c, 0, line(0, 1000, 1), 1);
  put(&c, 1, line(0, 1000, 1), 1);
  run_case(&c);
  case_init(&c, kernel, &double_kernel, "double: 3x5x7, y reversed, x permuted");
  c.scalar[2] = &b;
  put(&c, 0, dense(3, SHAPE(3, 5, 7), NULL, NULL), 1)->how = DERIVE_REVERSE;
  permute_by(put(&c, 1, dense(3, SHAPE(5, 7, 3), NULL, NULL), 1), 3, (const unsigned[]){2, 0, 1});
  run_case(&c);
  clgpu_elementwise_destroy(kernel);
}

/* One case of `def`, whose y and x are uint32: y a rows x columns array,
 * x the transpose of a columns x rows one (in region `x_region`). */
static void transposed_case(clgpu_elementwise *kernel, const kernel_def *def, const char *form,
                            const char *what, size_t rows, size_t columns, unsigned x_region) {
  char label[160];
  snprintf(label, sizeof label, "%s: %s", form, what);
  ew_case c;
  case_init(&c, kernel, def, label);
  put(&c, 0, dense(2, SHAPE(rows, columns), NULL, NULL), 1);
  put(&c, 1, dense(2, SHAPE(columns, rows), NULL, NULL), x_region)->how = DERIVE_TRANSPOSE;
  run_case(&c);
}

/* ---- the blocked walk's two run forms ----
 *
 * A CPU device walks a layout whose input is fastest along another
 * dimension than the output in blocks; each block's runs read that input
 * with a long stride. The runs are compiled one element at a time, or,
 * under the tuning field blocked_gather (which the device class chooses),
 * vectorised into gathers where every stride along them is 0, +-1 or at
 * least 16 elements and every element is 4 or 8 bytes. Both forms run here
 * on every device (a context each), in squares of 32 and of 16 (the
 * tuning's `block`: 16 on AMD processors), over layouts on both sides of
 * those rules: far strides of 4- and 8-byte elements, a stride of 10, a pitched
 * transpose, a reversed input beside the transposed one. A work-item takes
 * one band down the whole tile dimension in those forms; in the last two it
 * takes several bands over a group of rows (blocked_columns, blocked_rows:
 * AMD processors), the rows a multiple of the square or rounded up to one,
 * over the same layouts and a larger one of many such groups, whose last
 * groups of bands and of rows are partial. */
static void blocked_run_forms(void **state) {
  (void)state;
  static const char *const forms[] = {
      "blocked_gather=0,block=32,blocked_rows=0,blocked_columns=0",
      "blocked_gather=1,block=32,blocked_rows=0,blocked_columns=0",
      "blocked_gather=0,block=16,blocked_rows=0,blocked_columns=0",
      "blocked_gather=1,block=16,blocked_rows=0,blocked_columns=0",
      "blocked_gather=0,block=16,blocked_rows=32,blocked_columns=32",
      "blocked_gather=1,block=16,blocked_rows=40,blocked_columns=48"};
  for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
    shared_context = test_context_tuned(forms[f]);
    char label[160];
    ew_case c;

    clgpu_elementwise *plus = make_kernel(&plus_one_kernel, NULL, 0, 0);
    transposed_case(plus, &plus_one_kernel, forms[f], "uint32 70x65, x transposed (stride 70)", 70,
                    65, 2);
    /* Extents that are multiples of the block: the walk's loop bounds are
     * then constants of the program. */
    transposed_case(plus, &plus_one_kernel, forms[f], "uint32 64x96, x transposed (whole squares)",
                    64, 96, 2);
    transposed_case(plus, &plus_one_kernel, forms[f], "uint32 10x500, x transposed (stride 10)", 10,
                    500, 1);
    snprintf(label, sizeof label, "%s: uint32 33x131, x transposed and pitched", forms[f]);
    case_init(&c, plus, &plus_one_kernel, label);
    put(&c, 0, dense(2, SHAPE(33, 131), NULL, SHAPE(0, 5)), 1);
    put(&c, 1, dense(2, SHAPE(131, 33), NULL, SHAPE(0, 19)), 3)->how = DERIVE_TRANSPOSE;
    run_case(&c);
    /* 19 bands of 16 (or 10 of 32) and 283 rows: with 2 bands and 32
     * rows a work-item, 90 work-items, with 3 and 48, 42; enough that the
     * grouped share is taken on up to 10 compute units. */
    transposed_case(plus, &plus_one_kernel, forms[f],
                    "uint32 283x300, x transposed (groups of bands)", 283, 300, 2);
    /* y += x.T: an element walked by two work-items (or twice by one)
     * would be added to twice. */
    clgpu_elementwise *add = make_kernel(&accumulate_kernel, NULL, 0, 0);
    transposed_case(add, &accumulate_kernel, forms[f], "uint32 y += x.T, 283x300", 283, 300, 2);
    clgpu_elementwise_destroy(add);
    clgpu_elementwise_destroy(plus);

    const float a = 1.1f;
    clgpu_elementwise *scaled = make_kernel(&float_kernel, NULL, 0, 0);
    snprintf(label, sizeof label, "%s: float 67x129, x transposed, z reversed", forms[f]);
    case_init(&c, scaled, &float_kernel, label);
    c.scalar[1] = &a;
    c.bound = bound_float;
    put(&c, 0, dense(2, SHAPE(67, 129), NULL, NULL), 1);
    put(&c, 2, dense(2, SHAPE(129, 67), NULL, NULL), 1)->how = DERIVE_TRANSPOSE;
    put(&c, 3, dense(2, SHAPE(67, 129), NULL, NULL), 2)->how = DERIVE_REVERSE;
    run_case(&c);
    clgpu_elementwise_destroy(scaled);

    if (clgpu_context_device_info(shared_context)->has_fp64) {
      const double b = -3.0e-3;
      clgpu_elementwise *wide = make_kernel(&double_kernel, NULL, 0, 0);
      snprintf(label, sizeof label, "%s: double 3x41x47, x permuted (stride 123)", forms[f]);
      case_init(&c, wide, &double_kernel, label);
      c.scalar[2] = &b;
      put(&c, 0, dense(3, SHAPE(3, 41, 47), NULL, NULL), 1);
      permute_by(put(&c, 1, dense(3, SHAPE(47, 3, 41), NULL, NULL), 1), 3,
                 (const unsigned[]){1, 2, 0});
      run_case(&c);
      clgpu_elementwise_destroy(wide);
    }
    clgpu_context_destroy(shared_context);
    shared_context = group_context;
  }
}

/* ---- the contiguous kernel's two bound tests ----
 *
 * The contiguous kernel runs in whole groups, so the last group's
 * work-items past the count must store nothing. They test the count
 * alone, or, under the tuning field group_bound_check (which the device
 * class chooses: POCL), test first whether theirs is the last group. Both
 * forms run here on every device (a context each), over counts below,
 * at and past a multiple of any group size, each against the host and
 * with the guards around every array checked (a work-item past the count
 * that stored would write into the guard after the output). */
static void contiguous_bound_forms(void **state) {
  (void)state;
  static const char *const forms[] = {"group_bound_check=0", "group_bound_check=1"};
  static const size_t counts[] = {1, 255, 256, 257, 1000, 4099, 65537};
  size_t count_count = oclgrind ? 5 : sizeof counts / sizeof counts[0];
  for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
    shared_context = test_context_tuned(forms[f]);
    clgpu_elementwise *kernel = make_kernel(&times_five_kernel, NULL, 0, 0);
    char label[160];
    for (size_t i = 0; i < count_count; i++) {
      snprintf(label, sizeof label, "%s: x5, %zu contiguous", forms[f], counts[i]);
      clgpu_elementwise_stats s =
          run_pair(kernel, &times_five_kernel, label, plain(line(0, counts[i], 1)),
                   plain(line(3, counts[i], 1)));
      assert_int_equal(s.contiguous_runs, 2 * i + 1);
      snprintf(label, sizeof label, "%s: x5, %zu both reversed", forms[f], counts[i]);
      s = run_pair(kernel, &times_five_kernel, label, reversed(line(0, counts[i], 1)),
                   reversed(line(0, counts[i], 1)));
      assert_int_equal(s.contiguous_runs, 2 * i + 2);
    }
    clgpu_elementwise_destroy(kernel);
    clgpu_context_destroy(shared_context);
    shared_context = group_context;
  }
}

/* ---- lifetimes ---- */

/* A kernel object made on a context that is destroyed before the kernel is
 * run: it holds a reference of its own, so it runs (once plainly, once with
 * an overlap that stages through a temporary allocated on the context) and
 * the results match the host; its destroy frees the context, which by
 * then holds a built-in kernel of its own (made by clgpu_iota), so a
 * reference cycle would show as a leak under LeakSanitizer and a context
 * freed too early as a use after free under AddressSanitizer. */
static void used_and_destroyed_after_context_destroy(void **state) {
  (void)state;
  enum { N = 4099 };
  clgpu_context_options options;
  memset(&options, 0, sizeof options);
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  clgpu_context *context = test_context(&options);
  cl_command_queue queue = clgpu_context_queue(context);
  clRetainCommandQueue(queue);
  cl_int err = CL_SUCCESS;
  cl_mem x_buffer = clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE,
                                   N * sizeof(cl_int), NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_mem y_buffer = clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE,
                                   N * sizeof(cl_int), NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  clgpu_array x, y, head, tail;
  assert_status(clgpu_array_1d(x_buffer, 0, CLGPU_TYPE_INT32, N, &x), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(y_buffer, 0, CLGPU_TYPE_INT32, N, &y), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(x_buffer, 0, CLGPU_TYPE_INT32, N - 1, &head), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(x_buffer, sizeof(cl_int), CLGPU_TYPE_INT32, N - 1, &tail),
                CLGPU_SUCCESS);
  const cl_int start = -2000, step = 3;
  assert_status(clgpu_iota(context, &x, &start, &step, 0, NULL, NULL), CLGPU_SUCCESS);
  const clgpu_elementwise_arg args[] = {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_INT32},
                                        {"a", CLGPU_ARG_SCALAR, CLGPU_TYPE_INT32},
                                        {"x", CLGPU_ARG_IN, CLGPU_TYPE_INT32}};
  clgpu_elementwise *kernel = NULL;
  assert_status(clgpu_elementwise_create(context, "y = a * x + 7;", 3, args, NULL, &kernel),
                CLGPU_SUCCESS);

  clgpu_context_destroy(context);

  const cl_int five = 5, one = 1;
  clgpu_elementwise_value plain[] = {{&y, NULL}, {NULL, &five}, {&x, NULL}};
  assert_status(clgpu_elementwise_run(kernel, plain, 0, NULL, NULL), CLGPU_SUCCESS);
  /* x[1:] = x[:-1] + 7, read as if from a fresh buffer. */
  clgpu_elementwise_value shifted[] = {{&tail, NULL}, {NULL, &one}, {&head, NULL}};
  assert_status(clgpu_elementwise_run(kernel, shifted, 0, NULL, NULL), CLGPU_SUCCESS);
  cl_int *x_host = malloc(N * sizeof *x_host);
  cl_int *y_host = malloc(N * sizeof *y_host);
  assert_non_null(x_host);
  assert_non_null(y_host);
  assert_int_equal(
      clEnqueueReadBuffer(queue, x_buffer, CL_TRUE, 0, N * sizeof *x_host, x_host, 0, NULL, NULL),
      CL_SUCCESS);
  assert_int_equal(
      clEnqueueReadBuffer(queue, y_buffer, CL_TRUE, 0, N * sizeof *y_host, y_host, 0, NULL, NULL),
      CL_SUCCESS);
  for (cl_int i = 0; i < N; i++) {
    cl_int original = start + step * i;
    assert_int_equal(y_host[i], 5 * original + 7);
    assert_int_equal(x_host[i], i == 0 ? start : start + step * (i - 1) + 7);
  }
  free(x_host);
  free(y_host);

  clgpu_elementwise_destroy(kernel);
  clReleaseMemObject(x_buffer);
  clReleaseMemObject(y_buffer);
  clReleaseCommandQueue(queue);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fixed_layouts),
      cmocka_unit_test(random_layouts),
      cmocka_unit_test(index_is_row_major),
      cmocka_unit_test(in_out),
      cmocka_unit_test(overlapping_views),
      cmocka_unit_test(sub_buffers),
      cmocka_unit_test(contiguous_fast_path),
      cmocka_unit_test(variant_table),
      cmocka_unit_test(run_refusals),
      cmocka_unit_test(create_refusals),
      cmocka_unit_test(build_failures),
      cmocka_unit_test(reserved_argument_names),
      cmocka_unit_test(near_reserved_names),
      cmocka_unit_test(refused_texts),
      cmocka_unit_test(empty_shapes),
      cmocka_unit_test(events),
      cmocka_unit_test_teardown(out_of_order_queue, restore_context),
      cmocka_unit_test_teardown(launch_shapes, restore_context),
      cmocka_unit_test(two_threads),
      cmocka_unit_test(preamble_and_multiline),
      cmocka_unit_test(integer_types),
      cmocka_unit_test(most_arguments),
      cmocka_unit_test(half_storage),
      cmocka_unit_test(float_within_bound),
      cmocka_unit_test(double_when_available),
      cmocka_unit_test_teardown(blocked_run_forms, restore_context),
      cmocka_unit_test_teardown(contiguous_bound_forms, restore_context),
      cmocka_unit_test(used_and_destroyed_after_context_destroy),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
