/* clgpu_partition (partition.h) against a host reference: a stable
 * partition computed on the host (the selected elements in their order,
 * then the others in theirs) and the count of the first.
 *
 * Every call runs on guarded buffers (guard.h): the bytes of a region
 * outside the output's elements, the gaps of a strided output and the
 * guards around every region must not change, and the input's region must
 * not change unless the output lies in it. Elements are compared bit for
 * bit (floats too: partition moves elements and never computes on them).
 *
 * - every_type(T): each built-in type (half and double where the device
 *   has cl_khr_fp16 / cl_khr_fp64; where it has not, the call's refusal
 *   with CLGPU_UNSUPPORTED_FEATURE), both shapes, sizes 0, 1, 2, 17, 1000,
 *   4099 and 100003, predicates selecting none ("0"), all ("1"), about half
 *   (x's low bit), about an eighth (x's low three bits are 5), one over the
 *   index ("i % 3 == 0") and NULL (x != 0, over data with zeros: for floats
 *   +0 and -0, which are not selected, and NaNs, which are). The data are
 *   random bits, so the elements of one side have different values in
 *   different places and a reordering shows.
 * - strided_views: inputs of stride 3 and -1, outputs of stride 2 and -2
 *   (int16 by x's low bit, float by x != 0, uint64 by the index).
 * - in_place_and_overlap: the output the input itself, shifted over it,
 *   reversed over it, interleaved with it and beside it, in one region
 *   (the result as through a fresh buffer, the rest of the region as it
 *   was); the size query's "staged_input" is n exactly when they may
 *   overlap; the call's own scratch, a workspace and a wrapped one.
 * - workspaces: the report, _upto serving the calls it covers, a wrapped
 *   workspace, too small ones, ones of another shape or operation.
 * - wait_list_and_event: a user event holds the call back.
 * - large: 3,000,000 uint32, about half selected (many ranges and a nested
 *   scan of their counts); not under Oclgrind.
 * - misuse: each bad argument, its status, a message naming
 *   clgpu_partition, no event, nothing written; the size queries too.
 *
 * Under Oclgrind sizes stop at 4099, the every-type matrix is thinner, "1"
 * is left out (Oclgrind 21.10 cannot create the kernel LLVM makes of it)
 * and staged calls get a workspace over a host-written region (see
 * in_place_and_overlap). The file builds a program per type, predicate and
 * shape: about 130 on a cold cache (80-120 s on POCL with 2 cores, 13 s
 * once its cache holds them).
 * CLGPU_TEST_SEED replays a run; CLGPU_TEST_FILTER picks tests. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "guard.h"
#include "support.h"
#include "views.h"

static clgpu_context *context;
static int oclgrind;

static int setup(void **state) {
  (void)state;
  test_seed();
  /* Without clgpu's binary cache (test_disk_cache covers it), as
   * test_findall: on POCL a cold build that also stores the binary costs
   * about three times one that does not, and this file builds a program per
   * type, predicate and shape. POCL's own kernel cache still serves later
   * runs. */
  clgpu_context_options options;
  memset(&options, 0, sizeof options);
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  context = test_context(&options);
  oclgrind = test_on_oclgrind(context);
  return context ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  clgpu_context_destroy(context);
  context = NULL;
  return 0;
}

static const clgpu_shape shapes[] = {CLGPU_SHAPE_CHUNKED, CLGPU_SHAPE_TILED};

/* ---- types ---- */

typedef enum kind { K_SIGNED, K_UNSIGNED, K_FLOAT } kind;

typedef struct ptype {
  const char *name;
  clgpu_type cl;
  test_type storage; /* how the host holds the bits (half: as uint16) */
  kind kind;
  const char *bits; /* OpenCL C for x's bits as an unsigned integer */
} ptype;

enum {
  T_INT8,
  T_UINT8,
  T_INT16,
  T_UINT16,
  T_INT32,
  T_UINT32,
  T_INT64,
  T_UINT64,
  T_HALF,
  T_FLOAT,
  T_DOUBLE,
  T_COUNT
};

static const ptype ptypes[T_COUNT] = {
    {"int8", CLGPU_TYPE_INT8, TEST_INT8, K_SIGNED, "x"},
    {"uint8", CLGPU_TYPE_UINT8, TEST_UINT8, K_UNSIGNED, "x"},
    {"int16", CLGPU_TYPE_INT16, TEST_INT16, K_SIGNED, "x"},
    {"uint16", CLGPU_TYPE_UINT16, TEST_UINT16, K_UNSIGNED, "x"},
    {"int32", CLGPU_TYPE_INT32, TEST_INT32, K_SIGNED, "x"},
    {"uint32", CLGPU_TYPE_UINT32, TEST_UINT32, K_UNSIGNED, "x"},
    {"int64", CLGPU_TYPE_INT64, TEST_INT64, K_SIGNED, "x"},
    {"uint64", CLGPU_TYPE_UINT64, TEST_UINT64, K_UNSIGNED, "x"},
    {"half", CLGPU_TYPE_HALF, TEST_UINT16, K_FLOAT, "as_ushort(x)"},
    {"float", CLGPU_TYPE_FLOAT, TEST_FLOAT, K_FLOAT, "as_uint(x)"},
    {"double", CLGPU_TYPE_DOUBLE, TEST_DOUBLE, K_FLOAT, "as_ulong(x)"},
};

static size_t type_size(const ptype *t) { return test_type_size(t->storage); }

/* Whether the device runs partition over the type. */
static int supported(const ptype *t) {
  const clgpu_device_info *info = clgpu_context_device_info(context);
  if (t->cl == CLGPU_TYPE_HALF) return info->has_fp16;
  if (t->cl == CLGPU_TYPE_DOUBLE) return info->has_fp64;
  return 1;
}

/* ---- predicates and their host versions ---- */

typedef enum pred {
  P_NONE,    /* "0" */
  P_ALL,     /* "1" */
  P_HALF,    /* x's low bit */
  P_EIGHTH,  /* x's low three bits are 5 */
  P_INDEX,   /* i % 3 == 0 */
  P_NONZERO, /* NULL: x != 0 */
  P_COUNT
} pred;

static const char *const pred_names[] = {"none (\"0\")",   "all (\"1\")", "x's low bit",
                                         "x's low bits 5", "i % 3 == 0",  "NULL (x != 0)"};

/* The predicate's text for a type (NULL for P_NONZERO), in `text`. */
static const char *predicate_text(pred p, const ptype *t, char *text, size_t size) {
  switch (p) {
    case P_NONE:
      return "0";
    case P_ALL:
      return "1";
    case P_HALF:
      snprintf(text, size, "(%s & 1) != 0", t->bits);
      return text;
    case P_EIGHTH:
      snprintf(text, size, "(%s & 7) == 5", t->bits);
      return text;
    case P_INDEX:
      return "i % 3 == 0";
    default:
      return NULL;
  }
}

/* OpenCL C's x != 0: for floats -0 is 0 and NaN is not. */
static int nonzero(const ptype *t, uint64_t bits) {
  if (t->kind != K_FLOAT) return bits != 0;
  size_t width = 8 * type_size(t);
  uint64_t magnitude = width == 64 ? ~((uint64_t)1 << 63) : ((uint64_t)1 << (width - 1)) - 1;
  return (bits & magnitude) != 0;
}

static int host_select(pred p, const ptype *t, uint64_t bits, uint64_t i) {
  switch (p) {
    case P_NONE:
      return 0;
    case P_ALL:
      return 1;
    case P_HALF:
      return (bits & 1) != 0;
    case P_EIGHTH:
      return (bits & 7) == 5;
    case P_INDEX:
      return i % 3 == 0;
    default:
      return nonzero(t, bits);
  }
}

/* n random elements; for P_NONZERO about 30% of them zeros (+0 or -0 for
 * floats). */
static unsigned char *make_values(const ptype *t, pred p, size_t n, uint64_t seed) {
  unsigned char *values = test_allocate(n, t->storage);
  test_generate(values, n, t->storage, TEST_UNIFORM, seed, 0);
  if (p != P_NONZERO) return values;
  test_rng rng;
  test_rng_init(&rng, seed ^ 0x5a5au);
  uint64_t sign = (uint64_t)1 << (8 * type_size(t) - 1);
  for (size_t i = 0; i < n; i++) {
    uint64_t pick = test_rng_below(&rng, 10);
    if (pick < 3) {
      test_store_bits(values, i, t->storage, t->kind == K_FLOAT && pick == 0 ? sign : 0);
    }
  }
  return values;
}

/* The stable partition of n values into `out`; returns the selected count. */
static size_t reference_partition(pred p, const ptype *t, const unsigned char *values, size_t n,
                                  unsigned char *out) {
  size_t size = type_size(t), selected = 0;
  for (size_t i = 0; i < n; i++) {
    if (host_select(p, t, test_load_bits(values, i, t->storage), i)) {
      memcpy(out + selected++ * size, values + i * size, size);
    }
  }
  size_t other = selected;
  for (size_t i = 0; i < n; i++) {
    if (!host_select(p, t, test_load_bits(values, i, t->storage), i)) {
      memcpy(out + other++ * size, values + i * size, size);
    }
  }
  return selected;
}

/* ---- checking regions ---- */

/* Whether region element `position` is element k of a 1-D view. */
static int view_index(const view_spec *spec, size_t position, size_t *k) {
  if (!spec || spec->shape[0] == 0) return 0;
  ptrdiff_t distance = (ptrdiff_t)position - (ptrdiff_t)spec->offset;
  ptrdiff_t stride = spec->strides[0];
  if (stride == 0 || distance % stride != 0) return 0;
  ptrdiff_t index = distance / stride;
  if (index < 0 || (size_t)index >= spec->shape[0]) return 0;
  *k = (size_t)index;
  return 1;
}

/* The region of a guarded buffer must hold `wanted` byte for byte and its
 * guards be intact; on a difference, name it (the output's element index
 * when `spec` is the output's view). */
static void check_bytes(const test_guarded *g, const unsigned char *wanted, const view_spec *spec,
                        size_t size, const char *label, const char *what) {
  unsigned char *actual = malloc(g->region_bytes + 1);
  assert_non_null(actual);
  test_guarded_read(context, g, actual);
  if (memcmp(actual, wanted, g->region_bytes) != 0) {
    size_t b = 0, differ = 0;
    while (actual[b] == wanted[b]) b++;
    for (size_t e = 0; e < g->region_bytes / size; e++) {
      differ += memcmp(actual + e * size, wanted + e * size, size) != 0;
    }
    size_t position = b / size, k = 0;
    uint64_t got = 0, expected = 0;
    memcpy(&got, actual + position * size, size);
    memcpy(&expected, wanted + position * size, size);
    if (view_index(spec, position, &k)) {
      fail_msg(
          "%s (seed %llu): %s element %zu (region element %zu) holds 0x%llx, expected 0x%llx "
          "(%zu elements of the region differ)",
          label, (unsigned long long)test_seed(), what, k, position, (unsigned long long)got,
          (unsigned long long)expected, differ);
    }
    fail_msg(
        "%s (seed %llu): %s region element %zu, outside the view, changed to 0x%llx from "
        "0x%llx (%zu elements of the region differ)",
        label, (unsigned long long)test_seed(), what, position, (unsigned long long)got,
        (unsigned long long)expected, differ);
  }
  test_guarded_check(context, g, label);
  free(actual);
}

/* A placed view's region after a call: as placed, with `count` logical
 * elements of `expected` scattered in. */
static void check_placed(const test_placed *p, size_t size, const unsigned char *expected,
                         size_t count, const char *label, const char *what) {
  unsigned char *wanted = malloc(p->region_bytes + 1);
  unsigned char *logical = malloc(p->spec.shape[0] * size + 1);
  assert_non_null(wanted);
  assert_non_null(logical);
  memcpy(wanted, p->region, p->region_bytes);
  gather(p->region, &p->spec, size, logical);
  if (count) memcpy(logical, expected, count * size);
  scatter(wanted, &p->spec, size, logical);
  check_bytes(&p->guarded, wanted, &p->spec, size, label, what);
  free(wanted);
  free(logical);
}

/* ---- workspace reports ---- */

/* The part of the call itself (parent -1). */
static int own_part(const clgpu_workspace_size *report) {
  int own = -1;
  for (unsigned p = 0; p < report->num_parts; p++) {
    if (report->parts[p].parent == -1) {
      if (own != -1) fail_msg("the report has two parts without a parent");
      own = (int)p;
    }
  }
  if (own < 0) fail_msg("the report has no part for the call");
  return own;
}

/* The buffer of partition's own part called `name`. */
static const clgpu_workspace_buffer *own_buffer(const clgpu_workspace_size *report,
                                                const char *name) {
  int own = own_part(report);
  for (unsigned b = 0; b < report->num_buffers; b++) {
    if ((int)report->buffers[b].part == own && strcmp(report->buffers[b].name, name) == 0) {
      return &report->buffers[b];
    }
  }
  fail_msg("the report has no buffer \"%s\" in partition's part", name);
  return NULL;
}

/* ---- one case ---- */

typedef struct part_case {
  const ptype *type;
  pred predicate;
  size_t n;
  clgpu_shape shape;
  ptrdiff_t in_stride, out_stride;
  clgpu_workspace *workspace;
  int no_event; /* call without an event and wait with clFinish */
} part_case;

static void describe(const part_case *c, char *label, size_t size) {
  snprintf(label, size, "partition of %zu %s by %s, %s, input stride %td, output stride %td%s%s",
           c->n, c->type->name, pred_names[c->predicate], clgpu_shape_name(c->shape), c->in_stride,
           c->out_stride, c->workspace ? ", with a workspace" : "",
           c->no_event ? ", no event" : "");
}

static void run_case(const part_case *c) {
  char label[300];
  describe(c, label, sizeof label);
  uint64_t seed = test_case_seed(label);
  const ptype *t = c->type;
  size_t n = c->n, size = type_size(t);
  unsigned char *values = make_values(t, c->predicate, n, seed);
  unsigned char *expected = test_allocate(n, t->storage);
  uint64_t selected = reference_partition(c->predicate, t, values, n, expected);
  unsigned char *junk = random_bytes(n * size + 8, seed + 1);

  test_placed in = test_place(context, values, n, size, t->cl, c->in_stride, seed + 2);
  test_placed out = test_place(context, junk, n, size, t->cl, c->out_stride, seed + 3);
  test_placed count = test_place(context, junk, 1, 8, CLGPU_TYPE_UINT64, 1, seed + 4);
  clgpu_call_options options = {.shape = c->shape, .workspace = c->workspace};
  char text[64];
  const char *predicate = predicate_text(c->predicate, t, text, sizeof text);
  cl_event event = NULL;
  clgpu_status status = clgpu_partition(context, predicate, &out.view, &count.view, &in.view,
                                        &options, 0, NULL, c->no_event ? NULL : &event);
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s: %s (%d): %s", label, clgpu_status_name(status), (int)status, clgpu_last_error());
  }
  if (c->no_event) {
    assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
  } else {
    if (event == NULL) fail_msg("%s: no event", label);
    assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
    assert_int_equal(test_event_status(event), CL_COMPLETE);
    clReleaseEvent(event);
  }
  check_placed(&count, 8, (const unsigned char *)&selected, 1, label, "count");
  check_placed(&out, size, expected, n, label, "output");
  check_placed(&in, size, values, 0, label, "input");
  test_placed_release(&in);
  test_placed_release(&out);
  test_placed_release(&count);
  free(junk);
  free(expected);
  free(values);
}

/* The call over a type the device lacks: refused, nothing written. */
static void check_refused_type(const ptype *t) {
  const size_t n = 100;
  size_t size = type_size(t);
  uint64_t seed = test_case_seed(t->name);
  unsigned char *values = random_bytes(n * size, seed);
  unsigned char *junk = random_bytes(n * size + 8, seed + 1);
  test_placed in = test_place(context, values, n, size, t->cl, 1, seed + 2);
  test_placed out = test_place(context, junk, n, size, t->cl, 1, seed + 3);
  test_placed count = test_place(context, junk, 1, 8, CLGPU_TYPE_UINT64, 1, seed + 4);
  char label[80];
  snprintf(label, sizeof label, "%s without its extension", t->name);
  for (size_t s = 0; s < 2; s++) {
    clgpu_call_options options = {.shape = shapes[s], .workspace = NULL};
    cl_event event = NULL;
    assert_status(
        clgpu_partition(context, NULL, &out.view, &count.view, &in.view, &options, 0, NULL, &event),
        CLGPU_UNSUPPORTED_FEATURE);
    print_message("# %s: %s\n", label, clgpu_last_error());
    if (!strstr(clgpu_last_error(), "clgpu_partition")) {
      fail_msg("%s: the message does not name clgpu_partition: %s", label, clgpu_last_error());
    }
    assert_null(event);
    clgpu_workspace_size report;
    assert_status(clgpu_partition_workspace_size(context, NULL, &out.view, &count.view, &in.view,
                                                 &options, &report),
                  CLGPU_UNSUPPORTED_FEATURE);
    assert_status(clgpu_partition_workspace_size_upto(context, t->cl, n, &options, &report),
                  CLGPU_UNSUPPORTED_FEATURE);
  }
  assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
  check_placed(&count, 8, NULL, 0, label, "count");
  check_placed(&out, size, NULL, 0, label, "output");
  check_placed(&in, size, NULL, 0, label, "input");
  test_placed_release(&in);
  test_placed_release(&out);
  test_placed_release(&count);
  free(junk);
  free(values);
}

/* ---- every type ---- */

static const size_t type_indices[T_COUNT] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

static void every_type(void **state) {
  const ptype *t = &ptypes[*(const size_t *)*state];
  if (!supported(t)) {
    print_message("# %s: the device lacks its extension; checking the refusal\n", t->name);
    check_refused_type(t);
    return;
  }
  static const size_t sizes[] = {0, 1, 2, 17, 1000, 4099, 100003};
  size_t size_count = sizeof sizes / sizeof sizes[0];
  for (size_t s = 0; s < 2; s++) {
    for (size_t z = 0; z < size_count; z++) {
      if (oclgrind && sizes[z] > 5000) continue;
      for (int p = 0; p < P_COUNT; p++) {
        /* Oclgrind 21.10 cannot run the llvm.usub.sat intrinsic that LLVM
         * makes of the counting loop when the predicate is the constant 1
         * (it refuses to create the kernel, as test_findall notes), so "all"
         * runs on real devices only. Oclgrind interprets every work-item:
         * there "none" runs at the small sizes and 4099 only. */
        if (oclgrind && p == P_ALL) continue;
        if (oclgrind && p == P_NONE && sizes[z] > 2 && sizes[z] != 4099) continue;
        part_case c = {t, (pred)p, sizes[z], shapes[s], 1, 1, NULL, 0};
        run_case(&c);
      }
    }
  }
}

/* ---- strided views ---- */

static void strided_views(void **state) {
  (void)state;
  static const ptrdiff_t strides[][2] = {{3, 2}, {3, -2}, {-1, 2}, {-1, -2}, {3, 1}, {1, -2}};
  static const size_t sizes[] = {0, 1, 17, 1000, 4099, 100003};
  static const struct {
    size_t type;
    pred predicate;
  } rows[] = {{T_INT16, P_HALF}, {T_FLOAT, P_NONZERO}, {T_UINT64, P_INDEX}};
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    for (size_t v = 0; v < sizeof strides / sizeof strides[0]; v++) {
      for (size_t s = 0; s < 2; s++) {
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
          if (oclgrind && sizes[z] > 5000) continue;
          if (oclgrind && z % 2 != v % 2 && sizes[z] > 17) continue;
          part_case c = {&ptypes[rows[r].type], rows[r].predicate, sizes[z], shapes[s],
                         strides[v][0],         strides[v][1],     NULL,     (int)(z == 3)};
          run_case(&c);
        }
      }
    }
  }
}

/* ---- outputs over the input ---- */

typedef struct overlap_layout {
  const char *what;
  size_t in_offset; /* elements from the region's start */
  ptrdiff_t in_stride;
  ptrdiff_t out_from_in; /* the output's first element, from the input's */
  ptrdiff_t out_stride;
  int staged; /* whether the views may overlap */
} overlap_layout;

static void in_place_and_overlap(void **state) {
  (void)state;
  size_t n = oclgrind ? 4099 : 70001;
  size_t margin = 2 * n + 64; /* room on both sides for any layout */
  const overlap_layout layouts[] = {
      {"the output is the input", margin, 1, 0, 1, 1},
      {"the output 7 elements after the input", margin, 1, 7, 1, 1},
      {"the output 7 elements before the input", margin, 1, -7, 1, 1},
      {"the output the input reversed", margin, 1, (ptrdiff_t)n - 1, -1, 1},
      {"the output over every other element of the input", margin, 1, 3, 2, 1},
      {"a reversed input written over its own elements forwards", margin, -1, 1 - (ptrdiff_t)n, 1,
       1},
      {"the output on the next lattice element of a stride-2 input", margin, 2, 2, 2, 1},
      {"the output interleaved with a stride-2 input", margin, 2, 1, 2, 0},
      {"the output right after the input", margin, 1, (ptrdiff_t)n, 1, 0},
      {"the output reversed, right before a reversed input", margin, -1, -(ptrdiff_t)n, -1, 0},
  };
  const ptype *t = &ptypes[T_INT32];
  size_t size = type_size(t), length = 2 * margin + 1;
  unsigned char *values = test_allocate(n, t->storage);
  unsigned char *expected = test_allocate(n, t->storage);
  unsigned char *wanted = malloc(length * size);
  assert_non_null(wanted);
  for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
    const overlap_layout *layout = &layouts[l];
    for (size_t s = 0; s < 2; s++) {
      for (int q = 0; q < 2; q++) {
        pred p = q ? P_NONZERO : P_HALF;
        char label[300];
        /* By turns: the call's own scratch, a workspace of the queried
         * size, one laid over a guarded region. On Oclgrind a staged call
         * always gets the last: there, once earlier tests have made and
         * released buffers, the input staged into scratch that no host
         * command wrote reads as uninitialised to its checker, whichever of
         * the first two holds it (every element, every staged layout, with
         * the right results; the same cases run first are clean). That is
         * its reuse of released buffers' identities (docs/portability.md,
         * docs/architecture.md), not the partition. */
        int mode = (int)((l + s + (size_t)q) % 3);
        if (oclgrind && layout->staged) mode = 2;
        static const char *const modes[] = {"its own scratch", "a workspace",
                                            "a workspace over a guarded region"};
        snprintf(label, sizeof label, "partition of %zu int32 by %s, %s, %s, %s", n, pred_names[p],
                 clgpu_shape_name(shapes[s]), layout->what, modes[mode]);
        uint64_t seed = test_case_seed(label);
        unsigned char *region = random_bytes(length * size, seed);
        view_spec in_spec, out_spec;
        memset(&in_spec, 0, sizeof in_spec);
        memset(&out_spec, 0, sizeof out_spec);
        in_spec.rank = out_spec.rank = 1;
        in_spec.shape[0] = out_spec.shape[0] = n;
        in_spec.offset = layout->in_offset;
        in_spec.strides[0] = layout->in_stride;
        out_spec.offset = (size_t)((ptrdiff_t)layout->in_offset + layout->out_from_in);
        out_spec.strides[0] = layout->out_stride;
        /* The input's values: random, with zeros for x != 0. */
        free(values);
        values = make_values(t, p, n, seed + 1);
        scatter(region, &in_spec, size, values);
        uint64_t selected = reference_partition(p, t, values, n, expected);
        memcpy(wanted, region, length * size);
        scatter(wanted, &out_spec, size, expected);
        test_guarded g = test_guarded_create(context, length * size, region);
        clgpu_array input = make_view(&g, t->cl, &in_spec);
        clgpu_array output = make_view(&g, t->cl, &out_spec);
        test_placed count = test_place(context, region, 1, 8, CLGPU_TYPE_UINT64, 1, seed + 2);
        clgpu_call_options options = {.shape = shapes[s], .workspace = NULL};
        char text[64];
        const char *predicate = predicate_text(p, t, text, sizeof text);
        clgpu_workspace_size report;
        assert_status(clgpu_partition_workspace_size(context, predicate, &output, &count.view,
                                                     &input, &options, &report),
                      CLGPU_SUCCESS);
        const clgpu_workspace_buffer *staged = own_buffer(&report, "staged_input");
        if (staged->count != (layout->staged ? n : 0)) {
          fail_msg("%s: the report stages %llu input elements, expected %zu", label,
                   (unsigned long long)staged->count, layout->staged ? n : (size_t)0);
        }
        if (layout->staged) assert_int_equal(staged->type, t->cl);
        clgpu_workspace *workspace = NULL;
        test_guarded laid = {NULL, 0, 0};
        if (mode == 1) {
          assert_status(clgpu_workspace_create(context, &report, &workspace), CLGPU_SUCCESS);
        } else if (mode == 2) {
          laid = test_guarded_create(context, (size_t)report.total_bytes + 1, NULL);
          assert_status(clgpu_workspace_wrap(context, &report, laid.buffer, laid.offset,
                                             (size_t)report.total_bytes + 1, &workspace),
                        CLGPU_SUCCESS);
        }
        options.workspace = workspace;
        cl_event event = NULL;
        clgpu_status status = clgpu_partition(context, predicate, &output, &count.view, &input,
                                              &options, 0, NULL, &event);
        if (status != CLGPU_SUCCESS) {
          fail_msg("%s: %s: %s", label, clgpu_status_name(status), clgpu_last_error());
        }
        assert_non_null(event);
        assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
        clReleaseEvent(event);
        check_bytes(&g, wanted, &out_spec, size, label, "output");
        check_placed(&count, 8, (const unsigned char *)&selected, 1, label, "count");
        clgpu_workspace_destroy(workspace);
        if (mode == 2) {
          test_guarded_check(context, &laid, label);
          test_guarded_release(&laid);
        }
        test_placed_release(&count);
        test_guarded_release(&g);
        free(region);
      }
    }
  }
  free(wanted);
  free(expected);
  free(values);
}

/* ---- workspaces ---- */

/* A call that must be refused with `expected`, writing nothing: the
 * output's and the count's regions keep their bytes. */
static void expect_refused(const test_placed *out, size_t size, const test_placed *count,
                           const char *predicate, const clgpu_array *output,
                           const clgpu_array *count_view, const clgpu_array *input,
                           const clgpu_call_options *options, clgpu_status expected,
                           const char *label) {
  cl_event event = NULL;
  clgpu_status status =
      clgpu_partition(context, predicate, output, count_view, input, options, 0, NULL, &event);
  if (status != expected) {
    fail_msg("%s: %s, expected %s: %s", label, clgpu_status_name(status),
             clgpu_status_name(expected), clgpu_last_error());
  }
  print_message("# %s: %s\n", label, clgpu_last_error());
  if (!strstr(clgpu_last_error(), "clgpu_partition")) {
    fail_msg("%s: the message does not name clgpu_partition: %s", label, clgpu_last_error());
  }
  if (event) fail_msg("%s: an event was made", label);
  assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
  check_placed(out, size, NULL, 0, label, "output");
  check_placed(count, 8, NULL, 0, label, "count");
}

static void workspaces(void **state) {
  (void)state;
  size_t n = oclgrind ? 4099 : 100003;
  const ptype *t = &ptypes[T_INT32];
  size_t size = type_size(t);
  uint64_t seed = test_case_seed("partition workspaces");
  unsigned char *values = random_bytes(n * size, seed);
  test_placed in = test_place(context, values, n, size, t->cl, 1, seed + 1);
  test_placed out = test_place(context, values, n, size, t->cl, 1, seed + 2);
  test_placed count = test_place(context, values, 1, 8, CLGPU_TYPE_UINT64, 1, seed + 3);
  const char *predicate = "(x & 1) != 0";
  for (size_t s = 0; s < 2; s++) {
    clgpu_call_options options = {.shape = shapes[s], .workspace = NULL};
    clgpu_workspace_size report, upto, twice, small;
    assert_status(clgpu_partition_workspace_size(context, predicate, &out.view, &count.view,
                                                 &in.view, &options, &report),
                  CLGPU_SUCCESS);
    /* Partition's part, with the shape asked for, and its nested scan. */
    int own = own_part(&report);
    assert_int_equal(report.parts[own].operation, CLGPU_OPERATION_PARTITION);
    assert_int_equal(report.parts[own].shape, shapes[s]);
    int nested = -1;
    for (unsigned p = 0; p < report.num_parts; p++) {
      if (report.parts[p].parent == own && report.parts[p].operation == CLGPU_OPERATION_SCAN) {
        nested = (int)p;
      }
    }
    if (nested < 0) fail_msg("partition's report has no part for its scan");
    assert_int_equal(report.parts[nested].shape, shapes[s]);
    assert_int_equal(own_buffer(&report, "staged_input")->count, 0);
    const clgpu_workspace_buffer *counts = own_buffer(&report, "counts");
    assert_int_equal(counts->type, CLGPU_TYPE_UINT64);
    assert_true(counts->count >= 1);
    assert_true(report.total_bytes >= counts->offset + counts->bytes);
    print_message("# %s: %llu range counts, %llu bytes\n", clgpu_shape_name(shapes[s]),
                  (unsigned long long)counts->count, (unsigned long long)report.total_bytes);

    /* _upto covers the call; a workspace of it serves calls up to n, over
     * strided views too, and one of 2n serves n. */
    assert_status(clgpu_partition_workspace_size_upto(context, t->cl, n, &options, &upto),
                  CLGPU_SUCCESS);
    assert_true(upto.total_bytes >= report.total_bytes);
    assert_int_equal(upto.parts[own_part(&upto)].operation, CLGPU_OPERATION_PARTITION);
    assert_int_equal(own_buffer(&upto, "staged_input")->count, 0);
    assert_status(clgpu_partition_workspace_size_upto(context, t->cl, 2 * n, &options, &twice),
                  CLGPU_SUCCESS);
    assert_true(twice.total_bytes >= upto.total_bytes);
    clgpu_workspace *workspace = NULL, *wide = NULL;
    assert_status(clgpu_workspace_create(context, &upto, &workspace), CLGPU_SUCCESS);
    assert_status(clgpu_workspace_create(context, &twice, &wide), CLGPU_SUCCESS);
    const size_t sizes[] = {n, n - 1, n / 2, 4099, 17, 1, 0};
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
      part_case c = {t, P_HALF, sizes[z], shapes[s], 1, 1, workspace, (int)(z == 2)};
      run_case(&c);
      if (z % 3 == 0) {
        c.in_stride = -1;
        c.out_stride = 2;
        run_case(&c);
      }
    }
    part_case c = {t, P_NONZERO, n, shapes[s], 1, 1, wide, 0};
    run_case(&c);

    /* A workspace laid over a guarded region: nothing outside it changes. */
    test_guarded region = test_guarded_create(context, (size_t)report.total_bytes, NULL);
    clgpu_workspace *wrapped = NULL;
    assert_status(clgpu_workspace_wrap(context, &report, region.buffer, region.offset,
                                       (size_t)report.total_bytes, &wrapped),
                  CLGPU_SUCCESS);
    c.predicate = P_HALF;
    c.workspace = wrapped;
    run_case(&c);
    test_guarded_check(context, &region, "partition workspace laid over a guarded region");
    clgpu_workspace_destroy(wrapped);
    test_guarded_release(&region);

    /* Too small: an _upto workspace stages nothing, and a call in place
     * stages its n elements. */
    clgpu_call_options with = {.shape = shapes[s], .workspace = workspace};
    clgpu_workspace_size in_place;
    assert_status(clgpu_partition_workspace_size(context, predicate, &out.view, &count.view,
                                                 &out.view, &options, &in_place),
                  CLGPU_SUCCESS);
    assert_int_equal(own_buffer(&in_place, "staged_input")->count, n);
    assert_true(in_place.total_bytes > upto.total_bytes);
    expect_refused(&out, size, &count, predicate, &out.view, &count.view, &out.view, &with,
                   CLGPU_WORKSPACE_TOO_SMALL, "in place with an _upto workspace");
    /* Too small: sized for a call of one element, when that is smaller. */
    assert_status(clgpu_partition_workspace_size_upto(context, t->cl, 1, &options, &small),
                  CLGPU_SUCCESS);
    if (small.total_bytes < report.total_bytes) {
      clgpu_workspace *tiny = NULL;
      assert_status(clgpu_workspace_create(context, &small, &tiny), CLGPU_SUCCESS);
      clgpu_call_options tiny_options = {.shape = shapes[s], .workspace = tiny};
      expect_refused(&out, size, &count, predicate, &out.view, &count.view, &in.view, &tiny_options,
                     CLGPU_WORKSPACE_TOO_SMALL, "a workspace for one element");
      clgpu_workspace_destroy(tiny);
    } else {
      print_message("# %s: a workspace for one element is as large as one for %zu\n",
                    clgpu_shape_name(shapes[s]), n);
    }
    /* Another shape's workspace; another operation's (findall's) both
     * ways round. */
    clgpu_call_options other_shape = {.shape = shapes[1 - s], .workspace = workspace};
    expect_refused(&out, size, &count, predicate, &out.view, &count.view, &in.view, &other_shape,
                   CLGPU_WORKSPACE_WRONG_ALGORITHM, "a workspace of the other shape");
    clgpu_workspace_size findall_report;
    assert_status(clgpu_findall_workspace_size_upto(context, t->cl, n, &options, &findall_report),
                  CLGPU_SUCCESS);
    clgpu_workspace *findall_workspace = NULL;
    assert_status(clgpu_workspace_create(context, &findall_report, &findall_workspace),
                  CLGPU_SUCCESS);
    clgpu_call_options findall_options = {.shape = shapes[s], .workspace = findall_workspace};
    expect_refused(&out, size, &count, predicate, &out.view, &count.view, &in.view,
                   &findall_options, CLGPU_WORKSPACE_WRONG_OPERATION, "findall's workspace");
    clgpu_array indices;
    assert_status(clgpu_array_reinterpret(&out.view, CLGPU_TYPE_UINT32, &indices), CLGPU_SUCCESS);
    assert_status(
        clgpu_findall(context, predicate, &indices, &count.view, &in.view, &with, 0, NULL, NULL),
        CLGPU_WORKSPACE_WRONG_OPERATION);
    clgpu_workspace_destroy(findall_workspace);
    clgpu_workspace_destroy(wide);
    clgpu_workspace_destroy(workspace);
  }
  assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
  check_placed(&in, size, NULL, 0, "partition workspaces", "input");
  test_placed_release(&in);
  test_placed_release(&out);
  test_placed_release(&count);
  free(values);
}

/* ---- events ---- */

/* The call orders itself after its wait list and returns an event that
 * completes with both outputs written. */
static void wait_list_and_event(void **state) {
  (void)state;
  size_t n = 5000;
  int32_t *host = malloc(n * 4);
  int32_t *back = malloc(n * 4);
  assert_non_null(host);
  assert_non_null(back);
  for (size_t i = 0; i < n; i++) host[i] = (int32_t)(i % 10);
  cl_mem buffer = NULL;
  size_t bytes = 2 * n * 4 + 8;
  unsigned char *image = calloc(1, bytes);
  assert_non_null(image);
  memcpy(image, host, n * 4);
  assert_status(clgpu_buffer_create(context, CL_MEM_READ_WRITE, bytes, &buffer), CLGPU_SUCCESS);
  assert_int_equal(clEnqueueWriteBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 0, bytes,
                                        image, 0, NULL, NULL),
                   CL_SUCCESS);
  clgpu_array in, out, count;
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_INT32, n, &in), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, n * 4, CLGPU_TYPE_INT32, n, &out), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 2 * n * 4, CLGPU_TYPE_UINT64, 1, &count), CLGPU_SUCCESS);
  for (size_t s = 0; s < 2; s++) {
    cl_int err = CL_SUCCESS;
    cl_event gate = clCreateUserEvent(clgpu_context_cl_context(context), &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_event done = NULL;
    clgpu_call_options options = {.shape = shapes[s], .workspace = NULL};
    /* Odd values first: 1, 3, 5, 7, 9, ..., then 0, 2, 4, 6, 8, ... */
    assert_status(
        clgpu_partition(context, "x % 2 == 1", &out, &count, &in, &options, 1, &gate, &done),
        CLGPU_SUCCESS);
    assert_non_null(done);
    test_gate_opener opener = {gate, done, CL_COMPLETE};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, test_open_gate_later, &opener), 0);
    clFlush(clgpu_context_queue(context));
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_true(opener.call_status_before_opening != CL_COMPLETE);
    assert_int_equal(test_event_status(done), CL_COMPLETE);
    uint64_t counted = 0;
    assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(context), buffer, CL_TRUE, n * 4,
                                         n * 4, back, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 2 * n * 4,
                                         8, &counted, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(counted, n / 2);
    for (size_t i = 0; i < n; i++) {
      int32_t want = i < n / 2 ? (int32_t)(2 * (i % 5) + 1) : (int32_t)(2 * ((i - n / 2) % 5));
      if (back[i] != want) {
        fail_msg("%s: element %zu is %d, expected %d", clgpu_shape_name(shapes[s]), i, back[i],
                 want);
      }
    }
    clReleaseEvent(done);
    clReleaseEvent(gate);
    /* Clear the output for the next shape. */
    assert_int_equal(clEnqueueWriteBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 0, bytes,
                                          image, 0, NULL, NULL),
                     CL_SUCCESS);
  }
  clgpu_buffer_release(context, buffer);
  free(image);
  free(host);
  free(back);
}

/* ---- many ranges ---- */

static void large(void **state) {
  (void)state;
  if (oclgrind) {
    print_message("# skipped on Oclgrind: 3,000,000 elements\n");
    skip();
  }
  for (size_t s = 0; s < 2; s++) {
    clgpu_call_options options = {.shape = shapes[s], .workspace = NULL};
    clgpu_workspace_size report;
    test_guarded probe = test_guarded_create(context, 3000000 * 4 + 8, NULL);
    clgpu_array in, count;
    assert_status(clgpu_array_1d(probe.buffer, probe.offset, CLGPU_TYPE_UINT32, 3000000, &in),
                  CLGPU_SUCCESS);
    assert_status(
        clgpu_array_1d(probe.buffer, probe.offset + 3000000 * 4, CLGPU_TYPE_UINT64, 1, &count),
        CLGPU_SUCCESS);
    assert_status(
        clgpu_partition_workspace_size(context, NULL, &in, &count, &in, &options, &report),
        CLGPU_SUCCESS);
    uint64_t ranges = own_buffer(&report, "counts")->count;
    print_message("# %s: 3,000,000 elements in %llu ranges\n", clgpu_shape_name(shapes[s]),
                  (unsigned long long)ranges);
    assert_true(ranges > 1);
    test_guarded_release(&probe);
    part_case c = {&ptypes[T_UINT32], P_HALF, 3000000, shapes[s], 1, 1, NULL, 0};
    run_case(&c);
  }
}

/* The write kernel adds up the ranges' counts itself while they are few
 * (at most 256) and takes them from a scan beyond. A context whose tuning
 * cuts the input into short ranges reaches both in each shape; the
 * workspace report's "counts" says how many ranges a call makes, and each
 * shape must make at most 256 for one size and more for another. */
static void many_ranges(void **state) {
  (void)state;
  static const char *const tunings[] = {
      "chunk_minimum=64,chunked_chunks_per_unit=1024",
      "tile_items=1,tiled_minimum_tiles=1,tiled_chunks_per_unit=1024,tiled_chunks_cap=4096"};
  static const size_t sizes[] = {1000, 16384, 16385, 70000, 300000};
  size_t size_count = sizeof sizes / sizeof sizes[0] - (oclgrind ? 1 : 0);
  clgpu_context *kept = context;
  for (size_t s = 0; s < 2; s++) {
    int few = 0, many = 0;
    for (size_t k = 0; k < size_count; k++) {
      context = test_context_tuned(tunings[s]);
      clgpu_call_options options = {.shape = shapes[s], .workspace = NULL};
      clgpu_workspace_size report;
      clgpu_array in, count;
      size_t count_at = (sizes[k] * 4 + 7) / 8 * 8;
      test_guarded probe = test_guarded_create(context, count_at + 8, NULL);
      assert_status(clgpu_array_1d(probe.buffer, probe.offset, CLGPU_TYPE_UINT32, sizes[k], &in),
                    CLGPU_SUCCESS);
      assert_status(
          clgpu_array_1d(probe.buffer, probe.offset + count_at, CLGPU_TYPE_UINT64, 1, &count),
          CLGPU_SUCCESS);
      assert_status(
          clgpu_partition_workspace_size(context, NULL, &in, &count, &in, &options, &report),
          CLGPU_SUCCESS);
      uint64_t ranges = own_buffer(&report, "counts")->count;
      print_message("# %s: %zu elements in %llu ranges\n", clgpu_shape_name(shapes[s]), sizes[k],
                    (unsigned long long)ranges);
      few |= ranges > 1 && ranges <= 256;
      many |= ranges > 256;
      test_guarded_release(&probe);
      part_case c = {&ptypes[T_UINT32], P_HALF, sizes[k], shapes[s], 1, 1, NULL, 0};
      run_case(&c);
      clgpu_context_destroy(context);
    }
    assert_true(few);
    assert_true(many);
  }
  context = kept;
}

/* ---- misuse ---- */

#define MISUSE_N 64

typedef struct misuse_fixture {
  test_guarded input, output, count;
  unsigned char input_initial[MISUSE_N * 4], output_initial[MISUSE_N * 4], count_initial[8];
  cl_mem read_only;
  unsigned char read_only_initial[MISUSE_N * 4];
  cl_event user_event;
} misuse_fixture;

typedef struct misuse_call {
  clgpu_context *context;
  const char *predicate;
  const clgpu_array *output, *count, *input;
  const clgpu_call_options *options;
  cl_uint num_events;
  const cl_event *wait_list;
  clgpu_array output_view, count_view, input_view;
  clgpu_call_options options_value;
} misuse_call;

static clgpu_array view_of(cl_mem buffer, size_t offset, clgpu_type type, size_t n) {
  clgpu_array view;
  assert_status(clgpu_array_1d(buffer, offset, type, n, &view), CLGPU_SUCCESS);
  return view;
}

static void reset_call(misuse_fixture *f, misuse_call *call) {
  memset(call, 0, sizeof *call);
  call->context = context;
  call->predicate = "x > 5";
  call->input_view = view_of(f->input.buffer, f->input.offset, CLGPU_TYPE_INT32, MISUSE_N);
  call->output_view = view_of(f->output.buffer, f->output.offset, CLGPU_TYPE_INT32, MISUSE_N);
  call->count_view = view_of(f->count.buffer, f->count.offset, CLGPU_TYPE_UINT64, 1);
  call->input = &call->input_view;
  call->output = &call->output_view;
  call->count = &call->count_view;
}

#define UNUSED_FIXTURE (void)f

static void edit_null_context(misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->context = NULL;
}
static void edit_null_output(misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->output = NULL;
}
static void edit_null_count(misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->count = NULL;
}
static void edit_null_input(misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->input = NULL;
}
static void edit_output_float(misuse_fixture *f, misuse_call *call) {
  call->output_view = view_of(f->output.buffer, f->output.offset, CLGPU_TYPE_FLOAT, MISUSE_N);
}
static void edit_output_uint32(misuse_fixture *f, misuse_call *call) {
  call->output_view = view_of(f->output.buffer, f->output.offset, CLGPU_TYPE_UINT32, MISUSE_N);
}
static void edit_output_short(misuse_fixture *f, misuse_call *call) {
  call->output_view = view_of(f->output.buffer, f->output.offset, CLGPU_TYPE_INT32, MISUSE_N - 1);
}
static void edit_output_long(misuse_fixture *f, misuse_call *call) {
  call->input_view = view_of(f->input.buffer, f->input.offset, CLGPU_TYPE_INT32, MISUSE_N / 2);
}
static void edit_input_2d(misuse_fixture *f, misuse_call *call) {
  const size_t shape[2] = {8, 8};
  assert_status(clgpu_array_nd(f->input.buffer, f->input.offset, CLGPU_TYPE_INT32, 2, shape,
                               CLGPU_ORDER_ROW_MAJOR, &call->input_view),
                CLGPU_SUCCESS);
}
static void edit_output_2d(misuse_fixture *f, misuse_call *call) {
  const size_t shape[2] = {8, 8};
  assert_status(clgpu_array_nd(f->output.buffer, f->output.offset, CLGPU_TYPE_INT32, 2, shape,
                               CLGPU_ORDER_ROW_MAJOR, &call->output_view),
                CLGPU_SUCCESS);
}
static void edit_both_2d(misuse_fixture *f, misuse_call *call) {
  edit_input_2d(f, call);
  edit_output_2d(f, call);
}
static void edit_count_uint32(misuse_fixture *f, misuse_call *call) {
  call->count_view = view_of(f->count.buffer, f->count.offset, CLGPU_TYPE_UINT32, 1);
}
static void edit_count_int64(misuse_fixture *f, misuse_call *call) {
  call->count_view = view_of(f->count.buffer, f->count.offset, CLGPU_TYPE_INT64, 1);
}
static void edit_count_two(misuse_fixture *f, misuse_call *call) {
  call->count_view =
      view_of(f->output.buffer, f->output.offset + MISUSE_N * 4 - 16, CLGPU_TYPE_UINT64, 2);
  call->output_view = view_of(f->output.buffer, f->output.offset, CLGPU_TYPE_INT32, MISUSE_N / 2);
  call->input_view = view_of(f->input.buffer, f->input.offset, CLGPU_TYPE_INT32, MISUSE_N / 2);
}
static void edit_count_empty(misuse_fixture *f, misuse_call *call) {
  call->count_view = view_of(f->count.buffer, f->count.offset, CLGPU_TYPE_UINT64, 0);
}
static void edit_count_over_input(misuse_fixture *f, misuse_call *call) {
  call->count_view = view_of(f->input.buffer, f->input.offset + 16, CLGPU_TYPE_UINT64, 1);
}
static void edit_count_over_output(misuse_fixture *f, misuse_call *call) {
  call->count_view = view_of(f->output.buffer, f->output.offset + 72, CLGPU_TYPE_UINT64, 1);
}
static void edit_read_only_output(misuse_fixture *f, misuse_call *call) {
  call->output_view = view_of(f->read_only, 0, CLGPU_TYPE_INT32, MISUSE_N);
}
static void edit_read_only_count(misuse_fixture *f, misuse_call *call) {
  call->count_view = view_of(f->read_only, 0, CLGPU_TYPE_UINT64, 1);
}
static void edit_output_stride_0(misuse_fixture *f, misuse_call *call) {
  call->output_view =
      clgpu_array_of_strided(f->output.buffer, f->output.offset, CLGPU_TYPE_INT32, MISUSE_N, 0);
}
static void edit_predicate_unclosed(misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->predicate = "(x > 5";
}
static void edit_predicate_unopened(misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->predicate = "x > 1000) + (1";
}
static void edit_predicate_semicolon(misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->predicate = "x > 5; }";
}
static void edit_predicate_comment(misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->predicate = "x > 5 // all";
}
static void edit_predicate_empty(misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->predicate = "  ";
}
static void edit_predicate_library_name(misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->predicate = "clgpu_map(x, i)";
}
static char long_predicate[65600];
static void edit_predicate_too_long(misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->predicate = long_predicate;
}
static void edit_opaque(misuse_fixture *f, misuse_call *call) {
  call->input_view = view_of(f->input.buffer, f->input.offset, CLGPU_TYPE_OPAQUE, MISUSE_N);
  call->output_view = view_of(f->output.buffer, f->output.offset, CLGPU_TYPE_OPAQUE, MISUSE_N);
}
static void edit_half(misuse_fixture *f, misuse_call *call) {
  call->input_view = view_of(f->input.buffer, f->input.offset, CLGPU_TYPE_HALF, MISUSE_N);
  call->output_view = view_of(f->output.buffer, f->output.offset, CLGPU_TYPE_HALF, MISUSE_N);
}
static void edit_double(misuse_fixture *f, misuse_call *call) {
  call->input_view = view_of(f->input.buffer, f->input.offset, CLGPU_TYPE_DOUBLE, MISUSE_N / 2);
  call->output_view = view_of(f->output.buffer, f->output.offset, CLGPU_TYPE_DOUBLE, MISUSE_N / 2);
}
static void edit_wait_list_null(misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->num_events = 1;
  call->wait_list = NULL;
}
static void edit_wait_list_without_count(misuse_fixture *f, misuse_call *call) {
  call->num_events = 0;
  call->wait_list = &f->user_event;
}
static void edit_unknown_shape(misuse_fixture *f, misuse_call *call) {
  UNUSED_FIXTURE;
  call->options_value.shape = (clgpu_shape)7;
  call->options = &call->options_value;
}
static void edit_output_past_end(misuse_fixture *f, misuse_call *call) {
  /* Edited by hand: the last element of the buffer, then 63 past it. */
  call->output_view.offset = f->output.offset + f->output.region_bytes + TEST_GUARD_BYTES - 4;
}

static int lacks_fp16(void) { return !clgpu_context_device_info(context)->has_fp16; }
static int lacks_fp64(void) { return !clgpu_context_device_info(context)->has_fp64; }

typedef struct misuse_row {
  const char *name;
  clgpu_status expected;
  void (*edit)(misuse_fixture *f, misuse_call *call);
  int call_only; /* rows about wait lists: the size query takes none */
  int (*applies)(void);
  const char *words; /* a further word the message must hold, or NULL */
} misuse_row;

static const misuse_row misuse_rows[] = {
    {"NULL context", CLGPU_INVALID_ARGUMENT, edit_null_context, 0, NULL, "context"},
    {"NULL output", CLGPU_INVALID_ARGUMENT, edit_null_output, 0, NULL, "output"},
    {"NULL count", CLGPU_INVALID_ARGUMENT, edit_null_count, 0, NULL, "count"},
    {"NULL input", CLGPU_INVALID_ARGUMENT, edit_null_input, 0, NULL, "input"},
    {"float output for int32 input", CLGPU_TYPE_MISMATCH, edit_output_float, 0, NULL, NULL},
    {"uint32 output for int32 input", CLGPU_TYPE_MISMATCH, edit_output_uint32, 0, NULL, NULL},
    {"an output one element short", CLGPU_SHAPE_MISMATCH, edit_output_short, 0, NULL, NULL},
    {"an output longer than the input", CLGPU_SHAPE_MISMATCH, edit_output_long, 0, NULL, NULL},
    {"2-D input", CLGPU_SHAPE_MISMATCH, edit_input_2d, 0, NULL, "input"},
    {"2-D output", CLGPU_SHAPE_MISMATCH, edit_output_2d, 0, NULL, "output"},
    {"2-D input and output", CLGPU_SHAPE_MISMATCH, edit_both_2d, 0, NULL, NULL},
    {"uint32 count", CLGPU_TYPE_MISMATCH, edit_count_uint32, 0, NULL, "count"},
    {"int64 count", CLGPU_TYPE_MISMATCH, edit_count_int64, 0, NULL, "count"},
    {"a count of two elements", CLGPU_SHAPE_MISMATCH, edit_count_two, 0, NULL, "count"},
    {"a count of no element", CLGPU_SHAPE_MISMATCH, edit_count_empty, 0, NULL, "count"},
    {"count overlapping the input", CLGPU_INVALID_OUTPUT, edit_count_over_input, 0, NULL, "count"},
    {"count overlapping the output", CLGPU_INVALID_OUTPUT, edit_count_over_output, 0, NULL,
     "count"},
    {"output in a read-only buffer", CLGPU_INVALID_OUTPUT, edit_read_only_output, 0, NULL,
     "READ_ONLY"},
    {"count in a read-only buffer", CLGPU_INVALID_OUTPUT, edit_read_only_count, 0, NULL,
     "READ_ONLY"},
    {"output of stride 0", CLGPU_INVALID_OUTPUT, edit_output_stride_0, 0, NULL, "stride 0"},
    {"output past its buffer's end", CLGPU_VIEW_OUT_OF_BOUNDS, edit_output_past_end, 0, NULL, NULL},
    {"predicate never closed", CLGPU_INVALID_ARGUMENT, edit_predicate_unclosed, 0, NULL,
     "predicate"},
    {"predicate closing what it never opened", CLGPU_INVALID_ARGUMENT, edit_predicate_unopened, 0,
     NULL, "predicate"},
    {"predicate with a semicolon", CLGPU_INVALID_ARGUMENT, edit_predicate_semicolon, 0, NULL,
     "predicate"},
    {"predicate with a comment", CLGPU_INVALID_ARGUMENT, edit_predicate_comment, 0, NULL,
     "predicate"},
    {"blank predicate", CLGPU_INVALID_ARGUMENT, edit_predicate_empty, 0, NULL, "predicate"},
    {"predicate naming the library's own identifier", CLGPU_INVALID_ARGUMENT,
     edit_predicate_library_name, 0, NULL, "predicate"},
    {"predicate over 65536 bytes", CLGPU_EXPRESSION_TOO_LONG, edit_predicate_too_long, 0, NULL,
     "predicate"},
    {"opaque input and output", CLGPU_TYPE_MISMATCH, edit_opaque, 0, NULL, NULL},
    {"half without cl_khr_fp16", CLGPU_UNSUPPORTED_FEATURE, edit_half, 0, lacks_fp16, NULL},
    {"double without cl_khr_fp64", CLGPU_UNSUPPORTED_FEATURE, edit_double, 0, lacks_fp64, NULL},
    {"num_events 1, wait_list NULL", CLGPU_INVALID_ARGUMENT, edit_wait_list_null, 1, NULL,
     "wait_list"},
    {"num_events 0, wait_list set", CLGPU_INVALID_ARGUMENT, edit_wait_list_without_count, 1, NULL,
     "wait_list"},
    {"unknown shape", CLGPU_INVALID_ARGUMENT, edit_unknown_shape, 0, NULL, NULL},
};

static void check_fixture_unchanged(misuse_fixture *f, const char *what) {
  unsigned char after[MISUSE_N * 4];
  assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
  test_guarded_read(context, &f->input, after);
  if (memcmp(after, f->input_initial, sizeof after) != 0) fail_msg("%s: the input changed", what);
  test_guarded_read(context, &f->output, after);
  if (memcmp(after, f->output_initial, sizeof after) != 0) {
    fail_msg("%s: the output changed", what);
  }
  test_guarded_read(context, &f->count, after);
  if (memcmp(after, f->count_initial, 8) != 0) fail_msg("%s: the count changed", what);
  assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(context), f->read_only, CL_TRUE, 0,
                                       sizeof after, after, 0, NULL, NULL),
                   CL_SUCCESS);
  if (memcmp(after, f->read_only_initial, sizeof after) != 0) {
    fail_msg("%s: the read-only buffer changed", what);
  }
  test_guarded_check(context, &f->input, what);
  test_guarded_check(context, &f->output, what);
  test_guarded_check(context, &f->count, what);
}

static void misuse(void **state) {
  (void)state;
  static misuse_fixture fixture;
  misuse_fixture *f = &fixture;
  memset(f, 0, sizeof *f);
  memset(long_predicate, ' ', 65537);
  memcpy(long_predicate, "x > 5", 5);
  long_predicate[65537] = '\0';
  uint64_t seed = test_case_seed("partition misuse");
  test_generate(f->input_initial, MISUSE_N, TEST_INT32, TEST_SMALL_INTEGERS, seed, 12);
  test_generate(f->output_initial, MISUSE_N * 4, TEST_UINT8, TEST_UNIFORM, seed + 1, 0);
  test_generate(f->count_initial, 8, TEST_UINT8, TEST_UNIFORM, seed + 2, 0);
  test_generate(f->read_only_initial, MISUSE_N * 4, TEST_UINT8, TEST_UNIFORM, seed + 3, 0);
  f->input = test_guarded_create(context, sizeof f->input_initial, f->input_initial);
  f->output = test_guarded_create(context, sizeof f->output_initial, f->output_initial);
  f->count = test_guarded_create(context, sizeof f->count_initial, f->count_initial);
  cl_int err = CL_SUCCESS;
  f->read_only =
      clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                     sizeof f->read_only_initial, f->read_only_initial, &err);
  assert_int_equal(err, CL_SUCCESS);
  f->user_event = clCreateUserEvent(clgpu_context_cl_context(context), &err);
  assert_int_equal(err, CL_SUCCESS);

  for (size_t r = 0; r < sizeof misuse_rows / sizeof misuse_rows[0]; r++) {
    const misuse_row *row = &misuse_rows[r];
    if (row->applies && !row->applies()) {
      print_message("# %s: does not apply to this device\n", row->name);
      continue;
    }
    for (size_t s = 0; s < 2; s++) {
      for (int query = 0; query < 2; query++) {
        if (query && row->call_only) continue;
        const char *who = query ? "clgpu_partition_workspace_size" : "clgpu_partition";
        misuse_call call;
        reset_call(f, &call);
        call.options_value.shape = shapes[s];
        call.options = &call.options_value;
        row->edit(f, &call);
        cl_event event = NULL;
        clgpu_workspace_size report;
        clgpu_status status =
            query
                ? clgpu_partition_workspace_size(call.context, call.predicate, call.output,
                                                 call.count, call.input, call.options, &report)
                : clgpu_partition(call.context, call.predicate, call.output, call.count, call.input,
                                  call.options, call.num_events, call.wait_list, &event);
        const char *detail = clgpu_last_error();
        if (status != row->expected) {
          fail_msg("%s, %s, \"%s\": %s (%d), expected %s; detail: %s", who,
                   clgpu_shape_name(shapes[s]), row->name, clgpu_status_name(status), (int)status,
                   clgpu_status_name(row->expected), detail);
        }
        if (s == 0) print_message("# %s, %s: %s\n", who, row->name, detail);
        if (!strstr(detail, who) || (row->words && !strstr(detail, row->words))) {
          fail_msg("%s, \"%s\": the message lacks %s%s%s: %s", who, row->name, who,
                   row->words ? " or " : "", row->words ? row->words : "", detail);
        }
        if (event != NULL) fail_msg("%s, \"%s\": an event was made", who, row->name);
        check_fixture_unchanged(f, row->name);
      }
    }
  }

  /* The size queries' own NULL arguments, and _upto's refusals. */
  misuse_call call;
  reset_call(f, &call);
  assert_status(clgpu_partition_workspace_size(context, NULL, call.output, call.count, call.input,
                                               NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  clgpu_workspace_size report;
  assert_status(clgpu_partition_workspace_size_upto(NULL, CLGPU_TYPE_INT32, 10, NULL, &report),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_partition_workspace_size_upto(context, CLGPU_TYPE_INT32, 10, NULL, NULL),
                CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_partition_workspace_size_upto(context, CLGPU_TYPE_OPAQUE, 10, NULL, &report),
                CLGPU_TYPE_MISMATCH);
  assert_non_null(strstr(clgpu_last_error(), "clgpu_partition_workspace_size_upto"));
  assert_status(clgpu_partition_workspace_size_upto(context, (clgpu_type)99, 10, NULL, &report),
                CLGPU_INVALID_ARGUMENT);
  clgpu_call_options bad_shape = {.shape = (clgpu_shape)7, .workspace = NULL};
  assert_status(
      clgpu_partition_workspace_size_upto(context, CLGPU_TYPE_INT32, 10, &bad_shape, &report),
      CLGPU_INVALID_ARGUMENT);
  if (lacks_fp16()) {
    assert_status(clgpu_partition_workspace_size_upto(context, CLGPU_TYPE_HALF, 10, NULL, &report),
                  CLGPU_UNSUPPORTED_FEATURE);
  }
  if (lacks_fp64()) {
    assert_status(
        clgpu_partition_workspace_size_upto(context, CLGPU_TYPE_DOUBLE, 10, NULL, &report),
        CLGPU_UNSUPPORTED_FEATURE);
  }
  assert_status(clgpu_partition_workspace_size_upto(context, CLGPU_TYPE_INT32, 0, NULL, &report),
                CLGPU_SUCCESS);
  check_fixture_unchanged(f, "the size queries");

  /* The unedited call works: each row failed for its own reason. */
  for (size_t s = 0; s < 2; s++) {
    reset_call(f, &call);
    call.options_value.shape = shapes[s];
    assert_status(clgpu_partition(context, call.predicate, call.output, call.count, call.input,
                                  &call.options_value, 0, NULL, NULL),
                  CLGPU_SUCCESS);
    assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
    int32_t values[MISUSE_N], expected[MISUSE_N], actual[MISUSE_N];
    memcpy(values, f->input_initial, sizeof values);
    uint64_t selected = 0, counted = 0;
    for (size_t i = 0; i < MISUSE_N; i++) {
      if (values[i] > 5) expected[selected++] = values[i];
    }
    for (size_t i = 0, k = selected; i < MISUSE_N; i++) {
      if (values[i] <= 5) expected[k++] = values[i];
    }
    test_guarded_read(context, &f->count, &counted);
    assert_int_equal(counted, selected);
    test_guarded_read(context, &f->output, actual);
    assert_memory_equal(actual, expected, sizeof actual);
    test_guarded_check(context, &f->output, "the unedited call");
    test_guarded_check(context, &f->count, "the unedited call");
  }

  assert_int_equal(clSetUserEventStatus(f->user_event, CL_COMPLETE), CL_SUCCESS);
  clReleaseEvent(f->user_event);
  clReleaseMemObject(f->read_only);
  test_guarded_release(&f->input);
  test_guarded_release(&f->output);
  test_guarded_release(&f->count);
}

/* ---- the host model itself ---- */

static void host_model(void **state) {
  (void)state;
  /* x != 0 as OpenCL C has it. */
  assert_false(nonzero(&ptypes[T_FLOAT], 0x80000000u));
  assert_true(nonzero(&ptypes[T_FLOAT], 0x7fc00000u));
  assert_true(nonzero(&ptypes[T_FLOAT], 0x00000001u));
  assert_false(nonzero(&ptypes[T_HALF], 0x8000u));
  assert_true(nonzero(&ptypes[T_HALF], 0x7e00u));
  assert_false(nonzero(&ptypes[T_DOUBLE], (uint64_t)1 << 63));
  assert_true(nonzero(&ptypes[T_INT8], 0x80u));
  /* The reference is stable: 5 1 4 2 3 by odd values is 5 1 3 4 2. */
  int32_t in[5] = {5, 1, 4, 2, 3}, out[5], want[5] = {5, 1, 3, 4, 2};
  assert_int_equal(reference_partition(P_HALF, &ptypes[T_INT32], (const unsigned char *)in, 5,
                                       (unsigned char *)out),
                   3);
  assert_memory_equal(out, want, sizeof want);
  /* The data hit their rates: about half, an eighth, a third, 70%. */
  static const struct {
    pred p;
    double rate;
  } rates[] = {{P_HALF, 0.5}, {P_EIGHTH, 0.125}, {P_INDEX, 1.0 / 3}, {P_NONZERO, 0.7}};
  const size_t n = 20000;
  for (size_t t = 0; t < T_COUNT; t++) {
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
      unsigned char *values = make_values(&ptypes[t], rates[r].p, n, 42 + r);
      unsigned char *sorted = test_allocate(n, ptypes[t].storage);
      double rate =
          (double)reference_partition(rates[r].p, &ptypes[t], values, n, sorted) / (double)n;
      if (rate < rates[r].rate - 0.03 || rate > rates[r].rate + 0.03) {
        fail_msg("%s %s: %g selected, wanted about %g", ptypes[t].name, pred_names[rates[r].p],
                 rate, rates[r].rate);
      }
      free(sorted);
      free(values);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(host_model),
      {"every_type(int8)", every_type, NULL, NULL, (void *)&type_indices[T_INT8]},
      {"every_type(uint8)", every_type, NULL, NULL, (void *)&type_indices[T_UINT8]},
      {"every_type(int16)", every_type, NULL, NULL, (void *)&type_indices[T_INT16]},
      {"every_type(uint16)", every_type, NULL, NULL, (void *)&type_indices[T_UINT16]},
      {"every_type(int32)", every_type, NULL, NULL, (void *)&type_indices[T_INT32]},
      {"every_type(uint32)", every_type, NULL, NULL, (void *)&type_indices[T_UINT32]},
      {"every_type(int64)", every_type, NULL, NULL, (void *)&type_indices[T_INT64]},
      {"every_type(uint64)", every_type, NULL, NULL, (void *)&type_indices[T_UINT64]},
      {"every_type(half)", every_type, NULL, NULL, (void *)&type_indices[T_HALF]},
      {"every_type(float)", every_type, NULL, NULL, (void *)&type_indices[T_FLOAT]},
      {"every_type(double)", every_type, NULL, NULL, (void *)&type_indices[T_DOUBLE]},
      cmocka_unit_test(strided_views),
      cmocka_unit_test(in_place_and_overlap),
      cmocka_unit_test(workspaces),
      cmocka_unit_test(wait_list_and_event),
      cmocka_unit_test(large),
      cmocka_unit_test(many_ranges),
      cmocka_unit_test(misuse),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
