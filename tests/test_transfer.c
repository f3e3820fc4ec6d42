/* Transfers between host memory and views (clgpu_array_read,
 * clgpu_array_write, clgpu_fill) and the built-in elementwise operations
 * (clgpu_convert, clgpu_axpby, clgpu_compare, clgpu_iota).
 *
 * Every result is compared with a host model over host images of the
 * buffers: each device view sits in a guarded region whose bytes around and
 * between the view's elements are random, so the whole region is compared
 * after each call (the view's elements against the model, every other byte
 * against what was there) and the guards are checked. Host buffers of reads
 * carry a guard of their own after host_size. The layouts cover the three
 * ways a transfer moves data (one plain read or write, one rectangular
 * transfer, packing through a temporary), each also with the view's first
 * byte at byte 0 and its last at the last byte of the cl_mem, and through
 * a sub-buffer. Non-blocking calls are checked behind a user event (the
 * call returns at once; nothing changes until the event completes), and
 * the temporary of a packed transfer is checked to come from the
 * allocation cache.
 *
 * Conversions are modelled from the header's rules: integer to integer keeps
 * the low bits, float to integer rounds toward zero and saturates (NaN gives
 * 0), to a float type rounds to nearest even, directly from the source value
 * (a double is not rounded to float on its way to half). A NaN result
 * matches any NaN, except for a conversion between equal types, which is a
 * copy of the bits.
 *
 * Sizes stay at 5000 elements or fewer under Oclgrind (the large rows are
 * left out there); doubles run in a test of their own, whose conversions
 * are checked to be refused on a device without cl_khr_fp64. The run seed is printed; each case derives
 * its own from its label. */
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

/* Bytes after a host buffer that a read must leave alone. */
#define HOST_GUARD 64

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

typedef struct fixture {
  clgpu_context *context;
  clgpu_context *other_context; /* for buffers of another cl_context */
  int oclgrind;
  int fp64;
} fixture;

static int group_setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->context = test_context(NULL);
  f->other_context = test_context(NULL);
  f->oclgrind = test_on_oclgrind(f->context);
  f->fp64 = clgpu_context_device_info(f->context)->has_fp64;
  *state = f;
  return 0;
}

static int group_teardown(void **state) {
  fixture *f = *state;
  clgpu_context_destroy(f->other_context);
  clgpu_context_destroy(f->context);
  free(f);
  return 0;
}

static void *allocate(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  assert_non_null(p);
  return p;
}

static void *duplicate(const void *source, size_t bytes) {
  void *p = allocate(bytes);
  if (bytes) memcpy(p, source, bytes);
  return p;
}

static int is_float_type(clgpu_type type) {
  return type == CLGPU_TYPE_HALF || type == CLGPU_TYPE_FLOAT || type == CLGPU_TYPE_DOUBLE;
}

static int is_signed_type(clgpu_type type) {
  return type == CLGPU_TYPE_INT8 || type == CLGPU_TYPE_INT16 || type == CLGPU_TYPE_INT32 ||
         type == CLGPU_TYPE_INT64;
}

static uint64_t load(const void *array, size_t index, size_t size) {
  uint64_t bits = 0;
  memcpy(&bits, (const unsigned char *)array + index * size, size); /* little-endian host */
  return bits;
}

static void store(void *array, size_t index, size_t size, uint64_t bits) {
  memcpy((unsigned char *)array + index * size, &bits, size);
}

/* ---- half and the value of a float element ---- */

static double half_to_double(uint16_t h) {
  int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double magnitude = exponent == 0    ? ldexp(mantissa, -24)
                     : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                      : ldexp(mantissa + 1024, exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

/* Round a double to half, to nearest even, in one step. */
static uint16_t half_from_double(double d) {
  uint16_t sign = signbit(d) ? 0x8000 : 0;
  if (isnan(d)) return sign | 0x7e00;
  double a = fabs(d);
  if (a >= 65520.0) return sign | 0x7c00; /* 65520 is the tie with 2^16: even is inf */
  if (a < 0x1p-14) return sign | (uint16_t)rint(a * 0x1p24); /* 1024 is the smallest normal */
  int e;
  double m = frexp(a, &e);
  unsigned r = (unsigned)rint(ldexp(m, 11)), exponent = (unsigned)(e - 1 + 15);
  if (r == 2048) r = 1024, exponent++;
  return (uint16_t)(sign | exponent << 10 | (r - 1024));
}

static double float_value(uint64_t bits, clgpu_type type) {
  if (type == CLGPU_TYPE_HALF) return half_to_double((uint16_t)bits);
  if (type == CLGPU_TYPE_FLOAT) {
    float v;
    uint32_t b = (uint32_t)bits;
    memcpy(&v, &b, 4);
    return v;
  }
  double v;
  memcpy(&v, &bits, 8);
  return v;
}

static uint64_t float_bits(double value, clgpu_type type) {
  if (type == CLGPU_TYPE_HALF) return half_from_double(value);
  if (type == CLGPU_TYPE_FLOAT) {
    float v = (float)value;
    uint32_t b;
    memcpy(&b, &v, 4);
    return b;
  }
  uint64_t b;
  memcpy(&b, &value, 8);
  return b;
}

static uint64_t type_mask(size_t size) { return size == 8 ? ~0ull : (1ull << (8 * size)) - 1; }

/* Sign- or zero-extend an integer element to 64 bits. */
static uint64_t extend(uint64_t bits, clgpu_type type) {
  size_t size = clgpu_type_size(type);
  if (size < 8 && is_signed_type(type) && (bits >> (8 * size - 1) & 1)) bits |= ~type_mask(size);
  return bits;
}

/* "0x... (value)" for an element's bits. */
static void describe(char *text, size_t size, uint64_t bits, clgpu_type type) {
  if (is_float_type(type)) {
    snprintf(text, size, "0x%llx (%.17g)", (unsigned long long)bits, float_value(bits, type));
  } else if (is_signed_type(type)) {
    snprintf(text, size, "0x%llx (%lld)", (unsigned long long)bits,
             (long long)(int64_t)extend(bits, type));
  } else {
    snprintf(text, size, "0x%llx (%llu)", (unsigned long long)bits, (unsigned long long)bits);
  }
}

/* ---- views placed in device regions ---- */

/* Where a view is placed: in a guarded region with 3 elements of random
 * bytes on either side of its reach; in a buffer of exactly the bytes it
 * reaches; or in a guarded region through a sub-buffer that starts at the
 * region (so the view's offset is from the sub-buffer's origin). */
typedef enum placement { GUARDED, EXACT, SUB_BUFFER } placement;

typedef struct placed {
  view_spec spec;
  clgpu_type type;
  size_t size;
  size_t bytes;
  placement where;
  unsigned char *image; /* what the region held when made */
  test_guarded region;
  cl_mem sub_buffer;
  clgpu_array view;
} placed;

/* Place `spec`; `logical` (row-major, NULL for random) gives the view's
 * elements, random bytes the rest. */
static placed place(fixture *f, clgpu_type type, view_spec spec, const void *logical, uint64_t seed,
                    placement where) {
  placed p;
  memset(&p, 0, sizeof p);
  p.type = type;
  p.size = clgpu_type_size(type);
  p.where = where;
  p.bytes = spec_fit(&spec, where == EXACT ? 0 : 3) * p.size;
  p.spec = spec;
  p.image = random_bytes(p.bytes, seed);
  if (logical) scatter(p.image, &spec, p.size, logical);
  cl_int err = CL_SUCCESS;
  if (where == EXACT) {
    p.region.buffer = clCreateBuffer(clgpu_context_cl_context(f->context), CL_MEM_READ_WRITE,
                                     p.bytes, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    p.region.region_bytes = p.bytes;
    assert_int_equal(clEnqueueWriteBuffer(clgpu_context_queue(f->context), p.region.buffer, CL_TRUE,
                                          0, p.bytes, p.image, 0, NULL, NULL),
                     CL_SUCCESS);
  } else {
    p.region = test_guarded_create(f->context, p.bytes, p.image);
  }
  if (where == SUB_BUFFER) {
    /* The guard's size is a multiple of every base-address alignment. */
    cl_buffer_region origin = {p.region.offset, p.bytes};
    p.sub_buffer = clCreateSubBuffer(p.region.buffer, CL_MEM_READ_WRITE,
                                     CL_BUFFER_CREATE_TYPE_REGION, &origin, &err);
    assert_int_equal(err, CL_SUCCESS);
    test_guarded sub = {p.sub_buffer, 0, p.bytes};
    p.view = make_view(&sub, type, &spec);
  } else {
    p.view = make_view(&p.region, type, &spec);
  }
  return p;
}

static void unplace(placed *p) {
  if (p->sub_buffer) clReleaseMemObject(p->sub_buffer);
  test_guarded_release(&p->region);
  free(p->image);
}

/* What the view's elements must hold after a call, in row-major order. */
typedef struct expectation {
  const unsigned char *values;
  int any_nan;                 /* a NaN matches any NaN (float types) */
  const double *bounds;        /* per element |actual - expected| allowed; NULL: bits */
  const unsigned char *inputs; /* row-major, named in a report; NULL: none */
  clgpu_type input_type;
} expectation;

static int element_matches(uint64_t actual, uint64_t expected, clgpu_type type,
                           const expectation *e, size_t k) {
  if (actual == expected) return 1;
  if (!is_float_type(type)) return 0;
  double a = float_value(actual, type), x = float_value(expected, type);
  if (e->any_nan && isnan(a) && isnan(x)) return 1;
  return e->bounds && isfinite(a) && isfinite(x) && fabs(a - x) <= e->bounds[k];
}

/* Fail, naming the case, unless the region holds `e` in the view's elements
 * (NULL: the view unchanged) and its image everywhere else, with both
 * guards intact. */
static void check_placed(fixture *f, const placed *p, const expectation *e, const char *label,
                         uint64_t seed) {
  unsigned char *actual = allocate(p->bytes), *expected = duplicate(p->image, p->bytes);
  test_guarded_read(f->context, &p->region, actual);
  if (e) {
    size_t count = spec_count(&p->spec);
    unsigned char *got = allocate(count * p->size);
    gather(actual, &p->spec, p->size, got);
    for (size_t k = 0; k < count; k++) {
      uint64_t a = load(got, k, p->size), x = load(e->values, k, p->size);
      if (!element_matches(a, x, p->type, e, k)) {
        size_t bad = 0;
        for (size_t j = k; j < count; j++) {
          bad +=
              !element_matches(load(got, j, p->size), load(e->values, j, p->size), p->type, e, j);
        }
        char actual_text[64], want[64], input[96] = "";
        describe(actual_text, sizeof actual_text, a, p->type);
        describe(want, sizeof want, x, p->type);
        if (e->inputs) {
          char in[64];
          describe(in, sizeof in, load(e->inputs, k, clgpu_type_size(e->input_type)),
                   e->input_type);
          snprintf(input, sizeof input, " from %s %s", clgpu_type_cl_name(e->input_type), in);
        }
        fail_msg(
            "%s (%s, seed %llu): element %zu of the view is %s, expected %s%s; %zu "
            "element(s) differ",
            label, clgpu_type_cl_name(p->type), (unsigned long long)seed, k, actual_text, want,
            input, bad);
      }
    }
    /* The view's elements match: make them equal so that the comparison
     * below sees only the bytes outside the view. */
    scatter(actual, &p->spec, p->size, e->values);
    scatter(expected, &p->spec, p->size, e->values);
    free(got);
  }
  if (p->bytes && memcmp(actual, expected, p->bytes) != 0) {
    size_t first = 0, differing = 0;
    for (size_t i = p->bytes; i-- > 0;) {
      if (actual[i] != expected[i]) first = i, differing++;
    }
    fail_msg(
        "%s (%s, seed %llu): byte %zu of the region (element %zu), %s the view, is "
        "0x%02x, expected 0x%02x; %zu byte(s) differ",
        label, clgpu_type_cl_name(p->type), (unsigned long long)seed, first, first / p->size,
        e ? "outside" : "in or outside", actual[first], expected[first], differing);
  }
  if (p->where != EXACT) test_guarded_check(f->context, &p->region, label);
  free(expected);
  free(actual);
}

/* Fail unless the host buffer equals `expected` (n bytes). */
static void check_host(const unsigned char *actual, const unsigned char *expected, size_t n,
                       size_t host_size, size_t size, const char *label, uint64_t seed) {
  if (memcmp(actual, expected, n) == 0) return;
  size_t first = 0;
  while (actual[first] == expected[first]) first++;
  if (first >= host_size) {
    fail_msg(
        "%s (seed %llu): byte %zu past the elements' %zu bytes was written (0x%02x, was "
        "0x%02x)",
        label, (unsigned long long)seed, first - host_size, host_size, actual[first],
        expected[first]);
  }
  fail_msg("%s (seed %llu): host element %zu (byte %zu) is 0x%02x, expected 0x%02x", label,
           (unsigned long long)seed, first / size, first, actual[first], expected[first]);
}

/* Wait for the event a call must have returned, and release it. A pointer,
 * so that the call may be an argument: *event is read after it. */
static void finish_event(const cl_event *event_out, clgpu_status status, const char *label) {
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s: %s (%d): %s", label, clgpu_status_name(status), (int)status, clgpu_last_error());
  }
  cl_event event = *event_out;
  if (event == NULL) fail_msg("%s: no event was returned", label);
  assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
  assert_int_equal(test_event_status(event), CL_COMPLETE);
  clReleaseEvent(event);
}

/* How a transfer is asked for: blocking or not, with an event, without one
 * (then the queue is finished), or non-blocking behind a user event. */
typedef enum mode { NON_BLOCKING, BLOCKING, NO_EVENT, HELD } mode;

/* The end of a call: wait for its event, or (without one) finish the queue. */
static void end_call(fixture *f, mode how, cl_event event, clgpu_status status, const char *label) {
  if (how != NO_EVENT) {
    finish_event(&event, status, label);
    return;
  }
  if (status != CLGPU_SUCCESS) {
    fail_msg("%s: %s (%d): %s", label, clgpu_status_name(status), (int)status, clgpu_last_error());
  }
  assert_int_equal(clFinish(clgpu_context_queue(f->context)), CL_SUCCESS);
}

/* ---- reads, writes and fills over every layout ---- */

typedef enum direction { READ, WRITE, FILL } direction;
static const char *const direction_names[] = {"read", "write", "fill"};

typedef struct layout_row {
  const char *name;
  view_spec spec; /* the offset is set when the view is placed */
  int read_only;  /* broadcast or overlapping: a destination refuses it */
  int large;      /* left out under Oclgrind */
} layout_row;

/* The paths of the header: contiguous views (one plain transfer), layouts a
 * rectangular transfer expresses once extent-1 dimensions are dropped and
 * contiguous ones merged, and layouts that are packed on the device. */
static const layout_row layouts[] = {
    {"rank 0", {0, 0, {0}, {0}}, 0, 0},
    {"1-D empty", {0, 1, {0}, {1}}, 0, 0},
    {"2-D empty (0 x 5)", {0, 2, {0, 5}, {5, 1}}, 0, 0},
    {"1-D one element", {0, 1, {1}, {1}}, 0, 0},
    {"1-D 1000 contiguous", {0, 1, {1000}, {1}}, 0, 0},
    {"1-D 4099 contiguous", {0, 1, {4099}, {1}}, 0, 0},
    {"2-D 9 x 11 contiguous", {0, 2, {9, 11}, {11, 1}}, 0, 0},
    {"4-D 2 x 3 x 4 x 5 contiguous", {0, 4, {2, 3, 4, 5}, {60, 20, 5, 1}}, 0, 0},
    {"1-D 65537 contiguous", {0, 1, {65537}, {1}}, 0, 1},
    {"rect a[2:5, 1:7] of 9 x 11", {0, 2, {3, 6}, {11, 1}}, 0, 0},
    {"rect 3-D box [1:5, 2:7, 3:8] of 7 x 8 x 9", {0, 3, {4, 5, 5}, {72, 9, 1}}, 0, 0},
    {"rect 4-D box that merges to 2-D", {0, 4, {2, 3, 4, 5}, {90, 30, 5, 1}}, 0, 0},
    {"rect with extent-1 dimensions", {0, 4, {1, 5, 1, 7}, {1000, 9, 3, 1}}, 0, 0},
    {"packed single elements (an extent-1 last dimension)", {0, 3, {3, 4, 1}, {40, 9, 1}}, 0, 0},
    {"plain: stride 0 and -50 on extent-1 dimensions", {0, 3, {1, 1, 6}, {0, -50, 1}}, 0, 0},
    {"3-D box with a slice pitch of 100 over rows of 9", {0, 3, {3, 5, 5}, {100, 9, 1}}, 0, 0},
    {"rect 200 x 255 of 257 x 300", {0, 2, {200, 255}, {300, 1}}, 0, 1},
    {"packed 1-D step 2", {0, 1, {500}, {2}}, 0, 0},
    {"packed 2-D last step 2", {0, 2, {5, 6}, {20, 2}}, 0, 0},
    {"packed 1-D reversed", {0, 1, {1000}, {-1}}, 0, 0},
    {"packed 2-D rows reversed", {0, 2, {9, 11}, {-11, 1}}, 0, 0},
    {"packed 2-D both reversed, pitched", {0, 2, {6, 7}, {-9, -1}}, 0, 0},
    {"packed transposed 11 x 9 of 9 x 11", {0, 2, {11, 9}, {1, 11}}, 0, 0},
    {"packed 4-D pitched (four dimensions stay)", {0, 4, {2, 3, 4, 5}, {95, 30, 7, 1}}, 0, 0},
    {"packed 3-D with a reversed middle", {0, 3, {3, 4, 5}, {50, -6, 1}}, 0, 0},
    {"packed 1-D 20000 step 3", {0, 1, {20000}, {3}}, 0, 1},
    {"read-only 2-D stride-0 rows", {0, 2, {4, 7}, {0, 1}}, 1, 0},
    {"read-only 1-D stride 0", {0, 1, {50}, {0}}, 1, 0},
    {"read-only overlapping rows", {0, 2, {4, 5}, {2, 1}}, 1, 0},
};

/* Views whose first byte is byte 0 of the cl_mem and whose last is its last
 * byte, for each path. */
static const layout_row bound_layouts[] = {
    {"rank 0", {0, 0, {0}, {0}}, 0, 0},
    {"1-D 1000 contiguous", {0, 1, {1000}, {1}}, 0, 0},
    {"rect a[0:3, 0:6] of 3 x 11", {0, 2, {3, 6}, {11, 1}}, 0, 0},
    {"rect 3-D box", {0, 3, {4, 5, 5}, {72, 9, 1}}, 0, 0},
    {"packed 1-D step 2", {0, 1, {500}, {2}}, 0, 0},
    {"packed 1-D reversed", {0, 1, {1000}, {-1}}, 0, 0},
    {"packed transposed", {0, 2, {11, 9}, {1, 11}}, 0, 0},
    {"read-only stride-0 rows", {0, 2, {4, 7}, {0, 1}}, 1, 0},
};

/* ---- a user event that holds a call back ---- */

/* Opens a user event from another thread once the call has returned (or
 * after 10 s), noting first whether the call had returned, whether its
 * event had completed, and what the memory the call is to change held. A
 * thread, because Oclgrind runs commands inside clFlush on the calling
 * thread and waits there for their wait list, and because a call that
 * wrongly blocked on its wait list would otherwise never return. The
 * device snapshot goes through a second queue,
 * polled for a while: an implementation that orders it behind the held
 * command leaves it unavailable rather than deadlocked. */
typedef struct gate {
  pthread_t thread;
  pthread_mutex_t lock;
  cl_event user_event;
  cl_event call_event; /* set once the call returned */
  int returned;         /* set once the call returned */
  int returned_before_opening;
  cl_int status_before_opening;
  cl_command_queue queue; /* for the device snapshot; NULL: none */
  const placed *target;
  cl_event snapshot_event;
  int snapshot_taken;
  const unsigned char *host; /* for a host snapshot; NULL: none */
  size_t host_bytes;
  unsigned char *snapshot;
} gate;

static void *open_gate_later(void *argument) {
  gate *g = argument;
  /* Wait for the call to return, for up to 10 s: a call that blocks on its
   * wait list never does before the gate opens, and one that builds a
   * program first may take a while (no fixed pause can tell the two). */
  struct timespec poll = {0, 2 * 1000 * 1000};
  for (int i = 0; i < 5000; i++) {
    pthread_mutex_lock(&g->lock);
    int returned = g->returned;
    pthread_mutex_unlock(&g->lock);
    if (returned) break;
    nanosleep(&poll, NULL);
  }
  nanosleep(&poll, NULL);
  pthread_mutex_lock(&g->lock);
  g->returned_before_opening = g->returned;
  g->status_before_opening = CL_COMPLETE;
  if (g->call_event) {
    clGetEventInfo(g->call_event, CL_EVENT_COMMAND_EXECUTION_STATUS,
                   sizeof g->status_before_opening, &g->status_before_opening, NULL);
  }
  pthread_mutex_unlock(&g->lock);
  if (g->host) {
    memcpy(g->snapshot, g->host, g->host_bytes);
    g->snapshot_taken = 1;
  } else if (g->queue &&
             clEnqueueReadBuffer(g->queue, g->target->region.buffer, CL_FALSE,
                                 g->target->region.offset, g->target->bytes, g->snapshot, 0, NULL,
                                 &g->snapshot_event) == CL_SUCCESS) {
    clFlush(g->queue);
    for (int i = 0; i < 100 && !g->snapshot_taken; i++) {
      struct timespec tick = {0, 2 * 1000 * 1000};
      nanosleep(&tick, NULL);
      cl_int status = CL_QUEUED; /* no cmocka assertion off the test's thread */
      clGetEventInfo(g->snapshot_event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                     NULL);
      g->snapshot_taken = status == CL_COMPLETE;
    }
  }
  clSetUserEventStatus(g->user_event, CL_COMPLETE);
  return NULL;
}

/* Start the thread that opens the gate: it snapshots `host` (a read's
 * destination) or, through a second queue, the target's region. */
static void gate_start(fixture *f, gate *g, const placed *target, const unsigned char *host,
                       size_t host_bytes) {
  cl_int err = CL_SUCCESS;
  memset(g, 0, sizeof *g);
  pthread_mutex_init(&g->lock, NULL);
  g->user_event = clCreateUserEvent(clgpu_context_cl_context(f->context), &err);
  assert_int_equal(err, CL_SUCCESS);
  g->target = target;
  g->host = host;
  g->host_bytes = host_bytes;
  g->snapshot = allocate(target->bytes > host_bytes ? target->bytes : host_bytes);
  if (!host && !f->oclgrind) {
    g->queue = clCreateCommandQueue(clgpu_context_cl_context(f->context),
                                    clgpu_context_device(f->context), 0, &err);
    assert_int_equal(err, CL_SUCCESS);
  }
  assert_int_equal(pthread_create(&g->thread, NULL, open_gate_later, g), 0);
}

/* After the call: let the gate open, then fail unless the call returned at
 * once, its event waited, and the memory it changes stayed as it was
 * (`before`) while the gate was closed. */
static void gate_end(fixture *f, gate *g, cl_event event, clgpu_status status,
                     const unsigned char *before, const char *label, uint64_t seed) {
  pthread_mutex_lock(&g->lock);
  g->call_event = event;
  g->returned = 1;
  pthread_mutex_unlock(&g->lock);
  if (status == CLGPU_SUCCESS) {
    assert_int_equal(clFlush(clgpu_context_queue(f->context)), CL_SUCCESS);
    if (event) assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
  }
  assert_int_equal(pthread_join(g->thread, NULL), 0);
  if (g->snapshot_event) {
    assert_int_equal(clWaitForEvents(1, &g->snapshot_event), CL_SUCCESS);
    clReleaseEvent(g->snapshot_event);
  }
  if (g->queue) clReleaseCommandQueue(g->queue);
  clReleaseEvent(g->user_event);
  pthread_mutex_destroy(&g->lock);
  if (status == CLGPU_SUCCESS && !g->returned_before_opening) {
    fail_msg("%s: the call blocked on its wait list", label);
  }
  if (event && g->status_before_opening == CL_COMPLETE) {
    fail_msg("%s: the event completed before its wait list", label);
  }
  size_t bytes = g->host ? g->host_bytes : g->target->bytes;
  if (g->snapshot_taken && memcmp(g->snapshot, before, bytes) != 0) {
    fail_msg("%s (seed %llu): the %s changed before the user event completed", label,
             (unsigned long long)seed, g->host ? "host memory" : "buffer");
  }
  if (!g->snapshot_taken && g->queue) {
    print_message(
        "# %s: the second queue's read waited for the held command; only the event "
        "status was checked\n",
        label);
  }
  free(g->snapshot);
}

/* ---- running one transfer ---- */

/* One read, write or fill of a view placed as `row` says, against the
 * model: a read returns the gathered elements and writes nothing past
 * host_size nor on the device; a write and a fill change only the view's
 * elements. A blocking read must have its data when the call returns, and a
 * blocking write must have taken it (the host buffer is overwritten right
 * after the call); a held call must wait for its user event. `fill_value`
 * NULL: a random value. */
static void run_transfer(fixture *f, direction dir, clgpu_type type, const layout_row *row,
                         placement where, mode how, const void *fill_value) {
  static const char *const mode_names[] = {", non-blocking", ", blocking", ", without an event",
                                           ", held by a user event"};
  cl_bool blocking = how == BLOCKING ? CL_TRUE : CL_FALSE;
  char label[240];
  snprintf(label, sizeof label, "%s %s%s%s, %s", direction_names[dir], row->name,
           where == EXACT        ? " at the buffer's bounds"
           : where == SUB_BUFFER ? " in a sub-buffer"
                                 : "",
           dir == FILL && how == BLOCKING ? "" : mode_names[how], clgpu_type_cl_name(type));
  uint64_t seed = test_case_seed(label);
  placed p = place(f, type, row->spec, NULL, seed, where);
  size_t size = p.size, count = spec_count(&p.spec), host_size = count * size;
  unsigned char *host = random_bytes(host_size + HOST_GUARD, seed ^ 0x4057u);
  unsigned char *host_initial = duplicate(host, host_size + HOST_GUARD);
  unsigned char *values = allocate(host_size + HOST_GUARD); /* what the view must hold after */
  unsigned char *expected_host = duplicate(host_initial, host_size + HOST_GUARD);
  gather(p.image, &p.spec, size, expected_host);
  uint64_t value = 0;
  if (fill_value) {
    memcpy(&value, fill_value, size);
  } else {
    test_rng rng;
    test_rng_init(&rng, seed ^ 0xf111u);
    value = test_rng_next64(&rng);
  }
  for (size_t k = 0; k < count; k++)
    store(values, k, size, dir == FILL ? value : load(host, k, size));
  gate g;
  if (how == HELD) gate_start(f, &g, &p, dir == READ ? host : NULL, host_size + HOST_GUARD);
  cl_uint waits = how == HELD ? 1 : 0;
  const cl_event *wait_list = how == HELD ? &g.user_event : NULL;
  cl_event event = NULL, *event_out = how == NO_EVENT || how == BLOCKING ? NULL : &event;
  /* Non-blocking calls say the host buffer is 8 bytes larger than the
   * elements: still only the elements move. */
  size_t host_size_given = host_size + (how == NON_BLOCKING ? 8 : 0);
  /* BLOCKING is the waiting pair, clgpu_array_read and clgpu_array_write
   * (no event); the other modes are clgpu_copy_to_host and
   * clgpu_copy_from_host, which only enqueue. A fill only enqueues. */
  clgpu_status status;
  if (dir == FILL) {
    if (how == BLOCKING) event_out = &event;
    status = clgpu_fill(f->context, &p.view, &value, waits, wait_list, event_out);
  } else if (blocking) {
    status = dir == READ
                 ? clgpu_array_read(f->context, host, host_size_given, &p.view, waits, wait_list)
                 : clgpu_array_write(f->context, &p.view, host, host_size_given, waits, wait_list);
  } else {
    status = dir == READ ? clgpu_copy_to_host(f->context, host, host_size_given, &p.view, waits,
                                              wait_list, event_out)
                         : clgpu_copy_from_host(f->context, &p.view, host, host_size_given, waits,
                                                wait_list, event_out);
  }
  value = 0x5a5a5a5a5a5a5a5aull; /* a fill's value was copied at the call */
  if (how == HELD)
    gate_end(f, &g, event, status, dir == READ ? host_initial : p.image, label, seed);
  if (status == CLGPU_SUCCESS && blocking && dir == READ) {
    char early[260];
    snprintf(early, sizeof early, "%s, before waiting", label);
    check_host(host, expected_host, host_size + HOST_GUARD, host_size, size, early, seed);
  }
  if (status == CLGPU_SUCCESS && blocking && dir == WRITE) memset(host, 0x5a, host_size);
  end_call(f, how == BLOCKING && dir != FILL ? NO_EVENT : how, event, status, label);
  if (dir == READ) {
    check_host(host, expected_host, host_size + HOST_GUARD, host_size, size, label, seed);
    check_placed(f, &p, NULL, label, seed);
  } else {
    if (!blocking)
      check_host(host, host_initial, host_size + HOST_GUARD, host_size, size, label, seed);
    expectation e = {values, 0, NULL, NULL, 0};
    check_placed(f, &p, &e, label, seed);
  }
  free(expected_host);
  free(values);
  free(host_initial);
  free(host);
  unplace(&p);
}

static void transfers_of_every_layout(void **state) {
  fixture *f = *state;
  static const clgpu_type types[] = {CLGPU_TYPE_INT8,   CLGPU_TYPE_UINT16, CLGPU_TYPE_INT32,
                                     CLGPU_TYPE_UINT64, CLGPU_TYPE_FLOAT,  CLGPU_TYPE_HALF};
  for (size_t t = 0; t < COUNT(types); t++) {
    for (size_t r = 0; r < COUNT(layouts); r++) {
      const layout_row *row = &layouts[r];
      if (row->large && f->oclgrind) continue;
      /* Both blocking modes for one 4-byte and one 2-byte type. */
      int both = types[t] == CLGPU_TYPE_INT32 || types[t] == CLGPU_TYPE_HALF;
      for (int how = BLOCKING; how >= (both ? NON_BLOCKING : BLOCKING); how--) {
        run_transfer(f, READ, types[t], row, GUARDED, (mode)how, NULL);
        if (!row->read_only) run_transfer(f, WRITE, types[t], row, GUARDED, (mode)how, NULL);
      }
    }
  }
}

static void transfers_at_the_buffer_bounds(void **state) {
  fixture *f = *state;
  static const clgpu_type types[] = {CLGPU_TYPE_INT8, CLGPU_TYPE_HALF, CLGPU_TYPE_FLOAT,
                                     CLGPU_TYPE_UINT64};
  for (size_t t = 0; t < COUNT(types); t++) {
    for (size_t r = 0; r < COUNT(bound_layouts); r++) {
      const layout_row *row = &bound_layouts[r];
      run_transfer(f, READ, types[t], row, EXACT, BLOCKING, NULL);
      run_transfer(f, READ, types[t], row, EXACT, NON_BLOCKING, NULL);
      if (row->read_only) continue;
      run_transfer(f, WRITE, types[t], row, EXACT, BLOCKING, NULL);
      run_transfer(f, WRITE, types[t], row, EXACT, NON_BLOCKING, NULL);
      run_transfer(f, FILL, types[t], row, EXACT, BLOCKING, NULL);
    }
  }
}

/* Fills of every element size, contiguous and strided. The special values
 * are bit patterns a float path could change (signalling NaNs with
 * payloads, a denormal, -0): the value is its bits. */
static void fill_every_layout(void **state) {
  fixture *f = *state;
  static const layout_row rows[] = {
      {"rank 0", {0, 0, {0}, {0}}, 0, 0},
      {"1-D empty", {0, 1, {0}, {1}}, 0, 0},
      {"1-D 1000 contiguous", {0, 1, {1000}, {1}}, 0, 0},
      {"1-D 4099 contiguous", {0, 1, {4099}, {1}}, 0, 0},
      {"1-D step 2", {0, 1, {500}, {2}}, 0, 0},
      {"1-D reversed", {0, 1, {1000}, {-1}}, 0, 0},
      {"3-D box [1:5, 2:7, 3:8] of 7 x 8 x 9", {0, 3, {4, 5, 5}, {72, 9, 1}}, 0, 0},
      {"transposed 11 x 9 of 9 x 11", {0, 2, {11, 9}, {1, 11}}, 0, 0},
  };
  static const struct {
    clgpu_type type;
    uint64_t special;
  } types[] = {
      {CLGPU_TYPE_INT8, 0x80},
      {CLGPU_TYPE_HALF, 0x7c01}, /* a signalling NaN */
      {CLGPU_TYPE_UINT16, 0xfd55},
      {CLGPU_TYPE_INT32, 0x80000000u},
      {CLGPU_TYPE_FLOAT, 0x7f800001u}, /* a signalling NaN */
      {CLGPU_TYPE_UINT64, 0xfedcba9876543210ull},
  };
  for (size_t t = 0; t < COUNT(types); t++) {
    for (size_t r = 0; r < COUNT(rows); r++) {
      run_transfer(f, FILL, types[t].type, &rows[r], GUARDED, BLOCKING, NULL);
      run_transfer(f, FILL, types[t].type, &rows[r], GUARDED, BLOCKING, &types[t].special);
    }
  }
  /* Half values of other kinds: a denormal, -0, a quiet NaN with payload. */
  static const uint64_t halves[] = {0x0001, 0x8000, 0xfe55};
  for (size_t v = 0; v < COUNT(halves); v++) {
    run_transfer(f, FILL, CLGPU_TYPE_HALF, &rows[4], GUARDED, BLOCKING, &halves[v]);
  }
}

/* ---- events ---- */

static const layout_row paths[] = {
    {"plain 1-D 1000", {0, 1, {1000}, {1}}, 0, 0},
    {"rect a[2:5, 1:7] of 9 x 11", {0, 2, {3, 6}, {11, 1}}, 0, 0},
    {"packed 1-D step 2", {0, 1, {500}, {2}}, 0, 0},
    {"packed transposed", {0, 2, {11, 9}, {1, 11}}, 0, 0},
};

/* Each path (plain, rectangular, packed) held behind a user event, without
 * an event out, and non-blocking with one. */
static void events(void **state) {
  fixture *f = *state;
  for (size_t r = 0; r < COUNT(paths); r++) {
    for (int dir = READ; dir <= FILL; dir++) {
      run_transfer(f, (direction)dir, CLGPU_TYPE_INT32, &paths[r], GUARDED, HELD, NULL);
      run_transfer(f, (direction)dir, CLGPU_TYPE_INT32, &paths[r], GUARDED, NO_EVENT, NULL);
      run_transfer(f, (direction)dir, CLGPU_TYPE_INT32, &paths[r], GUARDED, NON_BLOCKING, NULL);
    }
  }
}

/* ---- sub-buffers and the temporary ---- */

/* Views of a sub-buffer on every path: its origin counts once. The
 * temporary of a packed transfer comes from clgpu_buffer_create, so a cache
 * scope serves it (one block, reused); plain and rectangular transfers and
 * contiguous fills ask for none. */
static void sub_buffers_and_temporaries(void **state) {
  fixture *f = *state;
  for (size_t r = 0; r < COUNT(paths); r++) {
    for (int dir = READ; dir <= FILL; dir++) {
      run_transfer(f, (direction)dir, CLGPU_TYPE_FLOAT, &paths[r], SUB_BUFFER, BLOCKING, NULL);
    }
  }
  clgpu_alloc_cache *cache = NULL;
  clgpu_alloc_stats stats;
  assert_status(clgpu_alloc_cache_create(&cache), CLGPU_SUCCESS);
  assert_status(clgpu_alloc_scope_begin(f->context, cache), CLGPU_SUCCESS);
  for (int dir = READ; dir <= FILL; dir++) {
    run_transfer(f, (direction)dir, CLGPU_TYPE_INT32, &paths[0], GUARDED, BLOCKING, NULL);
    if (dir != FILL)
      run_transfer(f, (direction)dir, CLGPU_TYPE_INT32, &paths[1], GUARDED, BLOCKING, NULL);
  }
  assert_status(clgpu_alloc_cache_stats(cache, &stats), CLGPU_SUCCESS);
  assert_int_equal(stats.hits + stats.misses, 0);
  run_transfer(f, READ, CLGPU_TYPE_INT32, &paths[2], GUARDED, BLOCKING, NULL);
  run_transfer(f, WRITE, CLGPU_TYPE_INT32, &paths[2], GUARDED, BLOCKING, NULL);
  run_transfer(f, READ, CLGPU_TYPE_INT32, &paths[2], GUARDED, NON_BLOCKING, NULL);
  assert_status(clgpu_alloc_cache_stats(cache, &stats), CLGPU_SUCCESS);
  assert_int_equal(stats.misses, 1);
  assert_int_equal(stats.hits, 2);
  assert_int_equal(stats.bytes_in_use, 0);
  assert_status(clgpu_alloc_scope_end(f->context), CLGPU_SUCCESS);
  clgpu_alloc_cache_destroy(cache);
}

/* ---- clgpu_convert ---- */

/* One element converted by the header's rules. */
static uint64_t model_convert(uint64_t bits, clgpu_type from, clgpu_type to) {
  size_t to_size = clgpu_type_size(to);
  if (from == to) return bits; /* a copy (through double, a signalling NaN would turn quiet) */
  if (!is_float_type(from)) {
    uint64_t u = extend(bits, from);
    if (!is_float_type(to)) return u & type_mask(to_size);
    int negative = is_signed_type(from) && (int64_t)u < 0;
    if (to == CLGPU_TYPE_FLOAT) return float_bits(negative ? (float)(int64_t)u : (float)u, to);
    /* To half through double: exact below 2^53, and infinite in half
     * beyond either way. */
    return float_bits(negative ? (double)(int64_t)u : (double)u, to);
  }
  double v = float_value(bits, from);
  if (is_float_type(to)) return float_bits(v, to);
  if (isnan(v)) return 0;
  double t = trunc(v);
  int width = (int)(8 * to_size), is_signed = is_signed_type(to);
  double low = is_signed ? -ldexp(1, width - 1) : 0.0;
  double high = is_signed ? ldexp(1, width - 1) : ldexp(1, width);
  uint64_t result;
  if (t < low) {
    result = is_signed ? (uint64_t)1 << (width - 1) : 0;
  } else if (t >= high) {
    result = is_signed ? ((uint64_t)1 << (width - 1)) - 1 : type_mask(to_size);
  } else {
    result = t < 0 ? (uint64_t)(int64_t)t : (uint64_t)t;
  }
  return result & type_mask(to_size);
}

/* Values at the edges of every rule: rounding toward zero, saturation at
 * each integer width, half's overflow tie and subnormals, float's, and
 * doubles that round twice wrongly when taken through float. */
/* clang-format off */
static const double value_specials[] = {
    0.0, -0.0, INFINITY, -INFINITY, 0x1p-149, -0x1.fffffcp-127, 0x1p-126, FLT_MAX, -FLT_MAX,
    0.5, -0.5, 1.5, -2.5, -0.9f, 127.9f, 128, -128.5, -129, 255.5, 256,
    2147483520.0, 0x1p31, -0x1p31, -2147483904.0, 4294967040.0, 0x1p32,
    0x1.fffffep62, 0x1p63, -0x1p63, -0x1.000002p63, 0x1.fffffep63, 0x1p64,
    65504, 65519.99609375, 65520, 0x1p-25, 0x1.8p-24, 0x1p-14, 0x1.ff8p-15, 2049, 2051, -1e30f,
};
static const double double_specials[] = {
    1 + 0x1p-11 + 0x1p-40, 1 + 0x1p-24, 1 + 0x1p-24 + 0x1p-50, 0x1.fffffefp127, 0x1.ffffffp127,
    0x1p-150, 0x1.8p-149, 0x1.fffffffcp30, 2147483647.75, -2147483648.75, -2147483649.0,
    0x1.fffffffffffffp62, -0x1.0000000000001p63, 0x1.fffffffffffffp63, 4294967295.5,
    65519.999, 65520 - 0x1p-30, 1e300, -1e-300, 0x1p-1074,
};
static const uint32_t float_nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fc12345u};
static const uint64_t double_nans[] = {0x7ff8000000000000ull, 0xfff8000000000000ull,
                                       0x7ff0000000000001ull, 0x7ff8000012345000ull};
static const uint16_t half_specials[] = {
    0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0x7d55, 0x0001, 0x83ff, 0x0400,
    0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x3800, 0xb800, 0x3e00, 0xc100, 0x57f8, 0x5800, 0xd804,
    0xd808, 0x5bfc, 0x5c00, 0xbb33,
};
static const int64_t integer_specials[] = {
    0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, 65535, 65536, 2049, 2051, 65504,
    65519, 65520, -65520, 16777217, 16777219, 33554435, INT32_MAX, INT32_MIN, 0xffffffffll,
    1ll << 32, (1ll << 53) + 1, INT64_MAX, INT64_MIN, INT64_MAX - 127,
};
/* clang-format on */

/* n elements of `type`: the specials first, then random values of several
 * kinds (random bits, which give NaNs and infinities for floats; small
 * values with fractions; powers of two across every integer width; values
 * across half's range). */
static void conversion_inputs(void *out, size_t n, clgpu_type type, uint64_t seed) {
  size_t size = clgpu_type_size(type), k = 0;
  test_rng rng;
  test_rng_init(&rng, seed);
  if (type == CLGPU_TYPE_HALF) {
    for (size_t i = 0; i < COUNT(half_specials) && k < n; i++)
      store(out, k++, size, half_specials[i]);
  } else if (is_float_type(type)) {
    for (size_t i = 0; i < COUNT(value_specials) && k < n; i++) {
      store(out, k++, size, float_bits(value_specials[i], type));
    }
    for (size_t i = 0; i < 4 && k < n; i++) {
      store(out, k++, size, type == CLGPU_TYPE_FLOAT ? float_nans[i] : double_nans[i]);
    }
    for (size_t i = 0; type == CLGPU_TYPE_DOUBLE && i < COUNT(double_specials) && k < n; i++) {
      store(out, k++, size, float_bits(double_specials[i], type));
    }
  } else {
    for (size_t i = 0; i < COUNT(integer_specials) && k < n; i++) {
      store(out, k++, size, (uint64_t)integer_specials[i]);
    }
  }
  for (; k < n; k++) {
    uint64_t r = test_rng_next64(&rng);
    double unit = (double)(r >> 11) * 0x1p-53, v;
    if (!is_float_type(type)) {
      store(out, k, size, r & 1 ? r : (uint64_t)((int64_t)test_rng_below(&rng, 601) - 300));
      continue;
    }
    switch (test_rng_below(&rng, 4)) {
      case 0:
        store(out, k, size, r);
        continue;
      case 1:
        v = (unit - 0.5) * 600;
        break;
      case 2:
        v = ldexp(1 + unit, (int)test_rng_below(&rng, 66)) * (r & 1 ? -1 : 1);
        break;
      default:
        v = (unit - 0.5) * 140000;
        break;
    }
    store(out, k, size, float_bits(v, type));
  }
}

static void run_convert(fixture *f, clgpu_type from, clgpu_type to, view_spec source_spec,
                        view_spec destination_spec, const char *layout) {
  char label[160];
  snprintf(label, sizeof label, "convert %s to %s, %s", clgpu_type_cl_name(from),
           clgpu_type_cl_name(to), layout);
  uint64_t seed = test_case_seed(label);
  size_t count = spec_count(&source_spec), from_size = clgpu_type_size(from),
         to_size = clgpu_type_size(to);
  unsigned char *inputs = allocate(count * from_size), *expected = allocate(count * to_size);
  conversion_inputs(inputs, count, from, seed);
  for (size_t k = 0; k < count; k++) {
    store(expected, k, to_size, model_convert(load(inputs, k, from_size), from, to));
  }
  placed source = place(f, from, source_spec, inputs, seed ^ 1, GUARDED);
  placed destination = place(f, to, destination_spec, NULL, seed ^ 2, GUARDED);
  cl_event event = NULL;
  finish_event(&event, clgpu_convert(f->context, &destination.view, &source.view, 0, NULL, &event),
               label);
  /* Equal types are a copy: NaNs keep their bits. */
  expectation e = {expected, from != to, NULL, inputs, from};
  check_placed(f, &destination, &e, label, seed);
  check_placed(f, &source, NULL, label, seed);
  unplace(&destination);
  unplace(&source);
  free(expected);
  free(inputs);
}

static const view_spec line_1000 = {0, 1, {1000}, {1}};

typedef struct type_pair {
  clgpu_type from;
  clgpu_type to;
} type_pair;

static void convert_pairs(void **state) {
  fixture *f = *state;
  static const type_pair core[] = {
      {CLGPU_TYPE_FLOAT, CLGPU_TYPE_INT32},
      {CLGPU_TYPE_FLOAT, CLGPU_TYPE_UINT8},
      {CLGPU_TYPE_FLOAT, CLGPU_TYPE_INT64},
      {CLGPU_TYPE_HALF, CLGPU_TYPE_FLOAT},
      {CLGPU_TYPE_HALF, CLGPU_TYPE_INT8},
      {CLGPU_TYPE_INT32, CLGPU_TYPE_FLOAT},
      {CLGPU_TYPE_INT64, CLGPU_TYPE_INT8},
      {CLGPU_TYPE_INT8, CLGPU_TYPE_UINT32},
      {CLGPU_TYPE_UINT32, CLGPU_TYPE_HALF},
      {CLGPU_TYPE_FLOAT, CLGPU_TYPE_HALF},
      {CLGPU_TYPE_INT64, CLGPU_TYPE_FLOAT},
      {CLGPU_TYPE_UINT8, CLGPU_TYPE_INT32},
      /* Float and half to char: rusticl's LLVM crashed on a select of char
       * values under the NaN test when the kernel chose after converting. */
      {CLGPU_TYPE_FLOAT, CLGPU_TYPE_INT8},
  };
  for (size_t i = 0; i < COUNT(core); i++) {
    run_convert(f, core[i].from, core[i].to, line_1000, line_1000, "1-D 1000");
  }
  /* Three more pairs of the set, rotated by the run seed, so that runs
   * together cover all of them. */
  static const clgpu_type set[] = {CLGPU_TYPE_INT8,   CLGPU_TYPE_UINT8, CLGPU_TYPE_INT32,
                                   CLGPU_TYPE_UINT32, CLGPU_TYPE_INT64, CLGPU_TYPE_FLOAT,
                                   CLGPU_TYPE_HALF};
  test_rng rng;
  test_rng_init(&rng, test_case_seed("convert rotation"));
  for (int added = 0; added < 3;) {
    type_pair pair = {set[test_rng_below(&rng, COUNT(set))], set[test_rng_below(&rng, COUNT(set))]};
    int known = 0;
    for (size_t i = 0; i < COUNT(core); i++)
      known |= core[i].from == pair.from && core[i].to == pair.to;
    if (known) continue;
    print_message("# rotated pair: %s to %s\n", clgpu_type_cl_name(pair.from),
                  clgpu_type_cl_name(pair.to));
    run_convert(f, pair.from, pair.to, line_1000, line_1000, "1-D 1000, rotated");
    added++;
  }
  /* Strided: a reversed step-2 source into a column-major destination, and
   * an equal-type conversion that must copy the bits. */
  view_spec source = {0, 2, {20, 35}, {-70, -2}}, destination = {0, 2, {20, 35}, {1, 20}};
  run_convert(f, CLGPU_TYPE_FLOAT, CLGPU_TYPE_INT32, source, destination,
              "reversed step 2 to column-major");
  run_convert(f, CLGPU_TYPE_HALF, CLGPU_TYPE_UINT8, destination, source,
              "column-major to reversed step 2");
  run_convert(f, CLGPU_TYPE_FLOAT, CLGPU_TYPE_FLOAT, source, destination, "equal types, strided");
  /* Empty views convert nothing. */
  view_spec empty = {0, 2, {0, 7}, {7, 1}};
  run_convert(f, CLGPU_TYPE_INT32, CLGPU_TYPE_HALF, empty, empty, "empty");
}

/* ---- clgpu_axpby, clgpu_compare, clgpu_iota ---- */

/* A float in [-1000, 1000), or random bits for an integer type. */
static uint64_t random_operand(test_rng *rng, clgpu_type type) {
  uint64_t r = test_rng_next64(rng);
  if (type != CLGPU_TYPE_FLOAT) return r;
  return float_bits(((double)(r >> 11) * 0x1p-53 - 0.5) * 2000, CLGPU_TYPE_FLOAT);
}

/* out = alpha x + beta y with out a view of its own, or exactly x (1) or
 * exactly y (2). Floats within 4 ulp of the larger term (fma contraction
 * and the order of the roundings may differ), integers exact and wrapping. */
static void run_axpby(fixture *f, clgpu_type type, view_spec out_spec, view_spec x_spec,
                      view_spec y_spec, int in_place, const char *layout) {
  char label[160];
  snprintf(label, sizeof label, "axpby %s, %s", clgpu_type_cl_name(type), layout);
  uint64_t seed = test_case_seed(label);
  size_t count = spec_count(&x_spec), size = clgpu_type_size(type);
  unsigned char *xs = allocate(count * size), *ys = allocate(count * size);
  unsigned char *expected = allocate(count * size);
  double *bounds = allocate(count * sizeof *bounds);
  test_rng rng;
  test_rng_init(&rng, seed);
  for (size_t k = 0; k < count; k++) {
    store(xs, k, size, random_operand(&rng, type));
    store(ys, k, size, random_operand(&rng, type));
  }
  uint32_t alpha_bits = (uint32_t)random_operand(&rng, type),
           beta_bits = (uint32_t)random_operand(&rng, type);
  float alpha = (float)float_value(alpha_bits, CLGPU_TYPE_FLOAT) / 300,
        beta = (float)float_value(beta_bits, CLGPU_TYPE_FLOAT) / 300;
  for (size_t k = 0; k < count; k++) {
    if (type == CLGPU_TYPE_FLOAT) {
      double ax = (double)alpha * float_value(load(xs, k, 4), type),
             by = (double)beta * float_value(load(ys, k, 4), type);
      store(expected, k, 4, float_bits(ax + by, type));
      bounds[k] = 4 * FLT_EPSILON * (fabs(ax) + fabs(by)) + FLT_MIN;
    } else {
      store(expected, k, 4,
            alpha_bits * (uint32_t)load(xs, k, 4) + beta_bits * (uint32_t)load(ys, k, 4));
    }
  }
  placed x = place(f, type, x_spec, xs, seed ^ 1, GUARDED),
         y = place(f, type, y_spec, ys, seed ^ 2, GUARDED);
  placed out;
  memset(&out, 0, sizeof out);
  if (!in_place) out = place(f, type, out_spec, NULL, seed ^ 3, GUARDED);
  placed *target = in_place == 1 ? &x : in_place == 2 ? &y : &out;
  const void *a = type == CLGPU_TYPE_FLOAT ? (const void *)&alpha : &alpha_bits;
  const void *b = type == CLGPU_TYPE_FLOAT ? (const void *)&beta : &beta_bits;
  cl_event event = NULL;
  finish_event(&event,
               clgpu_axpby(f->context, &target->view, a, &x.view, b, &y.view, 0, NULL, &event),
               label);
  expectation e = {expected, 0, type == CLGPU_TYPE_FLOAT ? bounds : NULL, NULL, 0};
  check_placed(f, target, &e, label, seed);
  if (target != &x) check_placed(f, &x, NULL, label, seed);
  if (target != &y) check_placed(f, &y, NULL, label, seed);
  if (!in_place) unplace(&out);
  unplace(&y);
  unplace(&x);
  free(bounds);
  free(expected);
  free(ys);
  free(xs);
}

static void axpby(void **state) {
  fixture *f = *state;
  view_spec grid = {0, 2, {25, 40}, {40, 1}}, strided = {0, 2, {25, 40}, {-80, 2}};
  view_spec columns = {0, 2, {25, 40}, {1, 25}}, reversed = {0, 1, {1000}, {-2}};
  view_spec line_4099 = {0, 1, {4099}, {1}};
  for (int t = 0; t < 2; t++) {
    clgpu_type type = t ? CLGPU_TYPE_INT32 : CLGPU_TYPE_FLOAT;
    run_axpby(f, type, line_4099, line_4099, line_4099, 0, "contiguous 4099");
    run_axpby(f, type, grid, strided, columns, 0, "strided x, column-major y");
    run_axpby(f, type, line_1000, reversed, line_1000, 2, "out is y, x reversed step 2");
    run_axpby(f, type, reversed, reversed, line_1000, 1, "out is x, reversed step 2");
  }
}

/* A value for comparisons: often one of the special ones, else a multiple
 * of 0.5 in [-4, 4) (floats) or one of a few integers, so that equal values
 * are common. */
static uint64_t comparison_operand(test_rng *rng, clgpu_type type) {
  static const uint32_t specials[] = {0x7fc00000u, 0xffc00000u, 0x00000000u, 0x80000000u,
                                      0x7f800000u, 0xff800000u, 0x7f7fffffu, 0x00000001u};
  static const uint32_t integers[] = {0, 1, 0xffffffffu, 0x7fffffffu, 0x80000000u};
  uint64_t r = test_rng_below(rng, 4);
  if (type == CLGPU_TYPE_FLOAT) {
    if (r == 0) return specials[test_rng_below(rng, COUNT(specials))];
    return float_bits((double)test_rng_below(rng, 16) * 0.5 - 4, type);
  }
  if (r == 0) return integers[test_rng_below(rng, COUNT(integers))];
  return r == 1 ? test_rng_next64(rng) & 0xffffffffu : (uint32_t)test_rng_below(rng, 8) - 4;
}

static int model_compare(uint64_t x, uint64_t y, clgpu_type type, clgpu_comparison op) {
  double a = type == CLGPU_TYPE_FLOAT ? float_value(x, type) : (double)(int32_t)(uint32_t)x;
  double b = type == CLGPU_TYPE_FLOAT ? float_value(y, type) : (double)(int32_t)(uint32_t)y;
  switch (op) {
    case CLGPU_COMPARE_LESS:
      return a < b;
    case CLGPU_COMPARE_LESS_EQUAL:
      return a <= b;
    case CLGPU_COMPARE_EQUAL:
      return a == b;
    case CLGPU_COMPARE_NOT_EQUAL:
      return a != b;
    case CLGPU_COMPARE_GREATER:
      return a > b;
    default:
      return a >= b;
  }
}

static const char *const comparison_names[] = {"", "<", "<=", "==", "!=", ">", ">="};

/* mask = x OP y, y a view of its own or one element broadcast. */
static void run_compare(fixture *f, clgpu_type type, clgpu_comparison op, view_spec mask_spec,
                        view_spec x_spec, view_spec y_spec, int broadcast, const char *layout) {
  char label[160];
  snprintf(label, sizeof label, "compare %s x %s y, %s", clgpu_type_cl_name(type),
           comparison_names[op], layout);
  uint64_t seed = test_case_seed(label);
  size_t count = spec_count(&x_spec);
  unsigned char *xs = allocate(count * 4), *ys = allocate(count * 4), *expected = allocate(count);
  test_rng rng;
  test_rng_init(&rng, seed);
  uint64_t one = type == CLGPU_TYPE_FLOAT ? 0x80000000u : (uint64_t)-4 & 0xffffffffu;
  for (size_t k = 0; k < count; k++) {
    uint64_t x = comparison_operand(&rng, type), y = comparison_operand(&rng, type);
    if (test_rng_below(&rng, 4) == 0) y = x; /* equal bits, NaNs included */
    if (type == CLGPU_TYPE_FLOAT && (x & 0x7fffffffu) == 0 && test_rng_below(&rng, 2))
      y = x ^ 0x80000000u;
    store(xs, k, 4, x);
    store(ys, k, 4, broadcast ? one : y);
    expected[k] = (unsigned char)model_compare(x, load(ys, k, 4), type, op);
  }
  placed x = place(f, type, x_spec, xs, seed ^ 1, GUARDED);
  placed y =
      place(f, type, broadcast ? (view_spec){0, 1, {1}, {1}} : y_spec, ys, seed ^ 2, GUARDED);
  placed mask = place(f, CLGPU_TYPE_UINT8, mask_spec, NULL, seed ^ 3, GUARDED);
  clgpu_array y_view = y.view;
  if (broadcast) {
    assert_status(clgpu_array_broadcast(&y.view, x.view.rank, x.view.shape, &y_view),
                  CLGPU_SUCCESS);
  }
  cl_event event = NULL;
  finish_event(&event, clgpu_compare(f->context, op, &mask.view, &x.view, &y_view, 0, NULL, &event),
               label);
  expectation e = {expected, 0, NULL, xs, type};
  check_placed(f, &mask, &e, label, seed);
  check_placed(f, &x, NULL, label, seed);
  check_placed(f, &y, NULL, label, seed);
  unplace(&mask);
  unplace(&y);
  unplace(&x);
  free(expected);
  free(ys);
  free(xs);
}

static void compare(void **state) {
  fixture *f = *state;
  view_spec mask_columns = {0, 2, {20, 25}, {1, 20}}, x_reversed = {0, 2, {20, 25}, {-25, -1}};
  for (int t = 0; t < 2; t++) {
    clgpu_type type = t ? CLGPU_TYPE_INT32 : CLGPU_TYPE_FLOAT;
    for (int op = CLGPU_COMPARE_LESS; op <= CLGPU_COMPARE_GREATER_EQUAL; op++) {
      run_compare(f, type, (clgpu_comparison)op, line_1000, line_1000, line_1000, 0, "1-D 1000");
      run_compare(f, type, (clgpu_comparison)op, line_1000, line_1000, line_1000, 1,
                  "y broadcast from one element (-0 for float, -4 for int)");
    }
    run_compare(f, type, CLGPU_COMPARE_LESS_EQUAL, mask_columns, x_reversed, mask_columns, 1,
                "column-major mask, reversed x, broadcast y");
  }
}

/* out[index] = start + i * step, i row-major in the call's shape. */
static void run_iota(fixture *f, clgpu_type type, view_spec spec, const void *start,
                     const void *step, const char *layout) {
  char label[160];
  snprintf(label, sizeof label, "iota %s, %s", clgpu_type_cl_name(type), layout);
  uint64_t seed = test_case_seed(label);
  size_t count = spec_count(&spec), size = clgpu_type_size(type);
  unsigned char *expected = allocate(count * size);
  for (size_t i = 0; i < count; i++) {
    uint64_t bits;
    if (type == CLGPU_TYPE_UINT32) {
      bits = *(const uint32_t *)start + (uint32_t)i * *(const uint32_t *)step;
    } else if (type == CLGPU_TYPE_INT64) {
      bits = (uint64_t) * (const int64_t *)start + (uint64_t)i * (uint64_t) * (const int64_t *)step;
    } else {
      float v = (float)i * *(const float *)step;
      v = v + *(const float *)start;
      bits = float_bits(v, type);
    }
    store(expected, i, size, bits);
  }
  placed out = place(f, type, spec, NULL, seed, GUARDED);
  cl_event event = NULL;
  finish_event(&event, clgpu_iota(f->context, &out.view, start, step, 0, NULL, &event), label);
  expectation e = {expected, 0, NULL, NULL, 0};
  check_placed(f, &out, &e, label, seed);
  unplace(&out);
  free(expected);
}

static void iota(void **state) {
  fixture *f = *state;
  view_spec reversed = {0, 1, {1000}, {-1}}, columns = {0, 2, {30, 40}, {1, 30}};
  view_spec reversed_step = {0, 1, {3000}, {-2}};
  const uint32_t u_start = 0xffffff00u, u_step = 0x10001u; /* wraps */
  const int64_t l_start = -5000000000000ll, l_step = -3;
  const float start = 0.5f, step = 0.25f;
  run_iota(f, CLGPU_TYPE_UINT32, line_1000, &u_start, &u_step, "1-D 1000, wrapping");
  run_iota(f, CLGPU_TYPE_UINT32, reversed, &u_start, &u_step, "reversed");
  run_iota(f, CLGPU_TYPE_INT64, reversed, &l_start, &l_step, "reversed");
  run_iota(f, CLGPU_TYPE_INT64, columns, &l_start, &l_step, "column-major 30 x 40");
  run_iota(f, CLGPU_TYPE_FLOAT, reversed, &start, &step, "reversed");
  run_iota(f, CLGPU_TYPE_FLOAT, columns, &start, &step, "column-major 30 x 40");
  /* Half computes in float and rounds to nearest even past 2048. */
  run_iota(f, CLGPU_TYPE_HALF, reversed_step, &start, &step, "reversed step 2, 3000");
}

/* ---- misuse ---- */

/* The fixture of the misuse rows: `region` holds a 4 x 5 int view (`view`),
 * `other` another (`other_view`), and `host` 80 bytes and a guard. Every row
 * is checked to change none of them, nor the read-only and write-only
 * buffers, and to return no event. */
typedef struct misuse {
  fixture *f;
  test_guarded region, other;
  clgpu_array view, other_view, read_only_view, write_only_view, foreign_view;
  cl_mem read_only, write_only, foreign;
  unsigned char host[80 + HOST_GUARD];
} misuse;

typedef struct misuse_row {
  const char *name;
  clgpu_status expected;
  clgpu_status (*call)(misuse *m, cl_event *event);
} misuse_row;

/* One row's call, in a function of its own. */
#define ROW(name, ...) \
  static clgpu_status name(misuse *m, cl_event *event) { __VA_ARGS__; }
#define CTX m->f->context
ROW(read_null_context, return clgpu_copy_to_host(NULL, m->host, 80, &m->view, 0, NULL, event))
ROW(read_null_view, return clgpu_copy_to_host(CTX, m->host, 80, NULL, 0, NULL, event))
ROW(read_null_host, return clgpu_copy_to_host(CTX, NULL, 80, &m->view, 0, NULL, event))
ROW(read_short_host, return clgpu_copy_to_host(CTX, m->host, 79, &m->view, 0, NULL, event))
ROW(read_wait_list, return clgpu_copy_to_host(CTX, m->host, 80, &m->view, 1, NULL, event))
ROW(read_write_only,
    return clgpu_copy_to_host(CTX, m->host, 80, &m->write_only_view, 0, NULL, event))
ROW(read_foreign, return clgpu_copy_to_host(CTX, m->host, 80, &m->foreign_view, 0, NULL, event))
ROW(write_null_context, return clgpu_copy_from_host(NULL, &m->view, m->host, 80, 0, NULL, event))
ROW(write_null_view, return clgpu_copy_from_host(CTX, NULL, m->host, 80, 0, NULL, event))
ROW(write_null_host, return clgpu_copy_from_host(CTX, &m->view, NULL, 80, 0, NULL, event))
ROW(write_short_host, return clgpu_copy_from_host(CTX, &m->view, m->host, 79, 0, NULL, event))
ROW(write_wait_list, return clgpu_copy_from_host(CTX, &m->view, m->host, 80, 1, NULL, event))
ROW(write_read_only,
    return clgpu_copy_from_host(CTX, &m->read_only_view, m->host, 80, 0, NULL, event))
ROW(write_broadcast, clgpu_array v = m->view; v.strides[0] = 0;
    return clgpu_copy_from_host(CTX, &v, m->host, 80, 0, NULL, event))
ROW(write_overlapping, clgpu_array v = m->view; v.strides[0] = 2;
    return clgpu_copy_from_host(CTX, &v, m->host, 80, 0, NULL, event))
ROW(write_past_end, clgpu_array v = m->view;
    v.offset = m->region.offset + m->region.region_bytes + TEST_GUARD_BYTES;
    return clgpu_copy_from_host(CTX, &v, m->host, 80, 0, NULL, event))
ROW(read_past_end, clgpu_array v = m->view;
    v.offset = m->region.offset + m->region.region_bytes + TEST_GUARD_BYTES;
    return clgpu_copy_to_host(CTX, m->host, 80, &v, 0, NULL, event))
ROW(fill_past_end, clgpu_array v = m->view; const int32_t one = 1;
    v.offset = m->region.offset + m->region.region_bytes + TEST_GUARD_BYTES;
    return clgpu_fill(CTX, &v, &one, 0, NULL, event))
ROW(fill_null_value, return clgpu_fill(CTX, &m->view, NULL, 0, NULL, event))
ROW(fill_null_context, const int32_t one = 1;
    return clgpu_fill(NULL, &m->view, &one, 0, NULL, event))
ROW(fill_wait_list, const int32_t one = 1; return clgpu_fill(CTX, &m->view, &one, 1, NULL, event))
ROW(fill_read_only, const int32_t one = 1;
    return clgpu_fill(CTX, &m->read_only_view, &one, 0, NULL, event))
ROW(fill_broadcast, clgpu_array v = m->view; v.strides[0] = 0; const int32_t one = 1;
    return clgpu_fill(CTX, &v, &one, 0, NULL, event))
ROW(convert_shape, clgpu_array v;
    assert_status(clgpu_array_1d(m->other.buffer, m->other.offset, CLGPU_TYPE_INT32, 20, &v), 0);
    return clgpu_convert(CTX, &m->view, &v, 0, NULL, event))
ROW(convert_read_only,
    return clgpu_convert(CTX, &m->read_only_view, &m->other_view, 0, NULL, event))
ROW(compare_int_mask, return clgpu_compare(CTX, CLGPU_COMPARE_LESS, &m->view, &m->other_view,
                                           &m->other_view, 0, NULL, event))
ROW(compare_mixed_types, clgpu_array mask, x; const size_t shape[2] = {4, 5};
    assert_status(clgpu_array_nd(m->region.buffer, m->region.offset, CLGPU_TYPE_UINT8, 2, shape,
                                 CLGPU_ORDER_ROW_MAJOR, &mask),
                  0);
    assert_status(clgpu_array_reinterpret(&m->other_view, CLGPU_TYPE_FLOAT, &x), 0);
    return clgpu_compare(CTX, CLGPU_COMPARE_LESS, &mask, &x, &m->other_view, 0, NULL, event))
ROW(axpby_mixed_types, clgpu_array x; const int32_t one = 1;
    assert_status(clgpu_array_reinterpret(&m->other_view, CLGPU_TYPE_FLOAT, &x), 0);
    return clgpu_axpby(CTX, &m->view, &one, &x, &one, &m->other_view, 0, NULL, event))
ROW(axpby_null_alpha, const int32_t one = 1;
    return clgpu_axpby(CTX, &m->view, NULL, &m->other_view, &one, &m->other_view, 0, NULL, event))
ROW(iota_null_step, const int32_t one = 1;
    return clgpu_iota(CTX, &m->view, &one, NULL, 0, NULL, event))
#undef ROW
#undef CTX

static const misuse_row misuse_rows[] = {
    {"read: NULL context", CLGPU_INVALID_ARGUMENT, read_null_context},
    {"read: NULL view", CLGPU_INVALID_ARGUMENT, read_null_view},
    {"read: NULL host", CLGPU_INVALID_ARGUMENT, read_null_host},
    {"read: host_size one byte short", CLGPU_INVALID_ARGUMENT, read_short_host},
    {"read: num_events 1, wait_list NULL", CLGPU_INVALID_ARGUMENT, read_wait_list},
    {"read: CL_MEM_WRITE_ONLY buffer", CLGPU_INVALID_ARGUMENT, read_write_only},
    {"read: buffer of another cl_context", CLGPU_MISMATCHED_OBJECTS, read_foreign},
    {"read: view past the buffer's end", CLGPU_VIEW_OUT_OF_BOUNDS, read_past_end},
    {"write: NULL context", CLGPU_INVALID_ARGUMENT, write_null_context},
    {"write: NULL view", CLGPU_INVALID_ARGUMENT, write_null_view},
    {"write: NULL host", CLGPU_INVALID_ARGUMENT, write_null_host},
    {"write: host_size one byte short", CLGPU_INVALID_ARGUMENT, write_short_host},
    {"write: num_events 1, wait_list NULL", CLGPU_INVALID_ARGUMENT, write_wait_list},
    {"write: CL_MEM_READ_ONLY buffer", CLGPU_INVALID_OUTPUT, write_read_only},
    {"write: stride-0 view", CLGPU_INVALID_OUTPUT, write_broadcast},
    {"write: self-overlapping view", CLGPU_INVALID_OUTPUT, write_overlapping},
    {"write: view past the buffer's end", CLGPU_VIEW_OUT_OF_BOUNDS, write_past_end},
    {"fill: NULL value", CLGPU_INVALID_ARGUMENT, fill_null_value},
    {"fill: NULL context", CLGPU_INVALID_ARGUMENT, fill_null_context},
    {"fill: num_events 1, wait_list NULL", CLGPU_INVALID_ARGUMENT, fill_wait_list},
    {"fill: CL_MEM_READ_ONLY buffer", CLGPU_INVALID_OUTPUT, fill_read_only},
    {"fill: stride-0 view", CLGPU_INVALID_OUTPUT, fill_broadcast},
    {"fill: view past the buffer's end", CLGPU_VIEW_OUT_OF_BOUNDS, fill_past_end},
    {"convert: shapes (4, 5) and (20)", CLGPU_SHAPE_MISMATCH, convert_shape},
    {"convert: CL_MEM_READ_ONLY destination", CLGPU_INVALID_OUTPUT, convert_read_only},
    {"compare: int mask", CLGPU_TYPE_MISMATCH, compare_int_mask},
    {"compare: float x, int y", CLGPU_TYPE_MISMATCH, compare_mixed_types},
    {"axpby: int out and y, float x", CLGPU_TYPE_MISMATCH, axpby_mixed_types},
    {"axpby: NULL alpha", CLGPU_INVALID_ARGUMENT, axpby_null_alpha},
    {"iota: NULL step", CLGPU_INVALID_ARGUMENT, iota_null_step},
};

static cl_mem misuse_buffer(fixture *f, clgpu_context *context, cl_mem_flags flags,
                            const unsigned char *initial, clgpu_array *view) {
  cl_int err = CL_SUCCESS;
  const size_t shape[2] = {4, 5};
  cl_mem buffer = clCreateBuffer(clgpu_context_cl_context(context), flags, 80, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  assert_int_equal(clEnqueueWriteBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 0, 80,
                                        initial, 0, NULL, NULL),
                   CL_SUCCESS);
  assert_status(clgpu_array_nd(buffer, 0, CLGPU_TYPE_INT32, 2, shape, CLGPU_ORDER_ROW_MAJOR, view),
                CLGPU_SUCCESS);
  (void)f;
  return buffer;
}

static void misuse_is_refused(void **state) {
  misuse m;
  memset(&m, 0, sizeof m);
  m.f = *state;
  clgpu_context *context = m.f->context;
  const size_t shape[2] = {4, 5};
  unsigned char *initial = random_bytes(80, test_case_seed("misuse"));
  unsigned char *host_initial = random_bytes(sizeof m.host, test_case_seed("misuse host"));
  m.region = test_guarded_create(context, 80, initial);
  m.other = test_guarded_create(context, 80, initial);
  assert_status(clgpu_array_nd(m.region.buffer, m.region.offset, CLGPU_TYPE_INT32, 2, shape,
                               CLGPU_ORDER_ROW_MAJOR, &m.view),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_nd(m.other.buffer, m.other.offset, CLGPU_TYPE_INT32, 2, shape,
                               CLGPU_ORDER_ROW_MAJOR, &m.other_view),
                CLGPU_SUCCESS);
  m.read_only = misuse_buffer(m.f, context, CL_MEM_READ_ONLY, initial, &m.read_only_view);
  m.write_only = misuse_buffer(m.f, context, CL_MEM_WRITE_ONLY, initial, &m.write_only_view);
  m.foreign = misuse_buffer(m.f, m.f->other_context, CL_MEM_READ_WRITE, initial, &m.foreign_view);
  unsigned char after[80];
  for (size_t r = 0; r < COUNT(misuse_rows); r++) {
    const misuse_row *row = &misuse_rows[r];
    memcpy(m.host, host_initial, sizeof m.host);
    cl_event event = NULL;
    clgpu_status status = row->call(&m, &event);
    if (status != row->expected) {
      fail_msg("misuse \"%s\": %s (%d), expected %s; detail: %s", row->name,
               clgpu_status_name(status), (int)status, clgpu_status_name(row->expected),
               clgpu_last_error());
    }
    print_message("# %s: %s\n", row->name, clgpu_last_error());
    if (event != NULL) fail_msg("misuse \"%s\": an event was made", row->name);
    assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
    if (memcmp(m.host, host_initial, sizeof m.host) != 0) {
      fail_msg("misuse \"%s\": the host buffer changed", row->name);
    }
    const cl_mem buffers[] = {m.region.buffer, m.other.buffer, m.read_only, m.write_only};
    const size_t offsets[] = {m.region.offset, m.other.offset, 0, 0};
    for (size_t b = 0; b < COUNT(buffers); b++) {
      assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(context), buffers[b], CL_TRUE,
                                           offsets[b], 80, after, 0, NULL, NULL),
                       CL_SUCCESS);
      if (memcmp(after, initial, 80) != 0) {
        fail_msg("misuse \"%s\": buffer %zu changed", row->name, b);
      }
    }
    test_guarded_check(context, &m.region, row->name);
    test_guarded_check(context, &m.other, row->name);
  }
  /* Empty views move nothing and succeed, with NULL host memory. */
  clgpu_array empty = m.view;
  empty.shape[0] = 0;
  cl_event event = NULL;
  finish_event(&event, clgpu_copy_to_host(context, NULL, 0, &empty, 0, NULL, &event),
               "read of an empty view");
  event = NULL;
  finish_event(&event, clgpu_copy_from_host(context, &empty, NULL, 0, 0, NULL, &event),
               "write of an empty view");
  assert_status(clgpu_copy_to_host(context, NULL, 0, &empty, 0, NULL, NULL), CLGPU_SUCCESS);
  assert_status(clgpu_copy_from_host(context, &empty, NULL, 0, 0, NULL, NULL), CLGPU_SUCCESS);
  assert_status(clgpu_array_read(context, NULL, 0, &empty, 0, NULL), CLGPU_SUCCESS);
  assert_status(clgpu_array_write(context, &empty, NULL, 0, 0, NULL), CLGPU_SUCCESS);
  assert_int_equal(clFinish(clgpu_context_queue(context)), CL_SUCCESS);
  test_guarded_read(context, &m.region, after);
  assert_memory_equal(after, initial, 80);
  clReleaseMemObject(m.foreign);
  clReleaseMemObject(m.write_only);
  clReleaseMemObject(m.read_only);
  test_guarded_release(&m.other);
  test_guarded_release(&m.region);
  free(host_initial);
  free(initial);
}

/* ---- doubles ---- */

/* Reads, writes and fills move doubles as 8-byte bits and need no
 * cl_khr_fp64, so they run everywhere; conversions compute in double and
 * are refused on a device without it. */
static void doubles(void **state) {
  fixture *f = *state;
  for (size_t r = 0; r < COUNT(layouts); r++) {
    if (layouts[r].large && f->oclgrind) continue;
    run_transfer(f, READ, CLGPU_TYPE_DOUBLE, &layouts[r], GUARDED, BLOCKING, NULL);
    if (!layouts[r].read_only)
      run_transfer(f, WRITE, CLGPU_TYPE_DOUBLE, &layouts[r], GUARDED, NON_BLOCKING, NULL);
  }
  const uint64_t nan = 0x7ff0000000000001ull;
  for (size_t r = 0; r < COUNT(bound_layouts); r++) {
    if (!bound_layouts[r].read_only)
      run_transfer(f, FILL, CLGPU_TYPE_DOUBLE, &bound_layouts[r], EXACT, BLOCKING, &nan);
  }
  static const type_pair pairs[] = {
      {CLGPU_TYPE_DOUBLE, CLGPU_TYPE_INT64},  {CLGPU_TYPE_DOUBLE, CLGPU_TYPE_HALF},
      {CLGPU_TYPE_DOUBLE, CLGPU_TYPE_FLOAT},  {CLGPU_TYPE_DOUBLE, CLGPU_TYPE_UINT32},
      {CLGPU_TYPE_DOUBLE, CLGPU_TYPE_INT8},   {CLGPU_TYPE_INT64, CLGPU_TYPE_DOUBLE},
      {CLGPU_TYPE_UINT32, CLGPU_TYPE_DOUBLE}, {CLGPU_TYPE_HALF, CLGPU_TYPE_DOUBLE},
      {CLGPU_TYPE_FLOAT, CLGPU_TYPE_DOUBLE},
  };
  if (!f->fp64) {
    print_message(
        "# the device lacks cl_khr_fp64: double conversions are checked to be "
        "refused, not run\n");
    cl_int err = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(clgpu_context_cl_context(f->context), CL_MEM_READ_WRITE,
                                   2 * 1000 * sizeof(cl_double), NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    for (size_t i = 0; i < COUNT(pairs); i++) {
      clgpu_array from, to;
      assert_status(clgpu_array_1d(buffer, 0, pairs[i].from, 1000, &from), CLGPU_SUCCESS);
      assert_status(clgpu_array_1d(buffer, 1000 * sizeof(cl_double), pairs[i].to, 1000, &to),
                    CLGPU_SUCCESS);
      cl_event event = NULL;
      assert_status(clgpu_convert(f->context, &to, &from, 0, NULL, &event),
                    CLGPU_UNSUPPORTED_FEATURE);
      assert_null(event);
      assert_non_null(strstr(clgpu_last_error(), "cl_khr_fp64"));
    }
    assert_int_equal(clReleaseMemObject(buffer), CL_SUCCESS);
    return;
  }
  for (size_t i = 0; i < COUNT(pairs); i++) {
    run_convert(f, pairs[i].from, pairs[i].to, line_1000, line_1000, "1-D 1000");
  }
}

int main(void) {
  test_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(transfers_of_every_layout),
      cmocka_unit_test(transfers_at_the_buffer_bounds),
      cmocka_unit_test(fill_every_layout),
      cmocka_unit_test(events),
      cmocka_unit_test(sub_buffers_and_temporaries),
      cmocka_unit_test(convert_pairs),
      cmocka_unit_test(axpby),
      cmocka_unit_test(compare),
      cmocka_unit_test(iota),
      cmocka_unit_test(misuse_is_refused),
      cmocka_unit_test(doubles),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
