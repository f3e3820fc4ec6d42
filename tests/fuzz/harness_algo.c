/* What the algorithm operations share (reduce, scan, findall, sort, gather,
 * elementwise, transfer and workspaces; the operations are in the ops_*.c
 * files): the mirrored buffers, their views, wait lists, expressions and the
 * checks that end every call.
 *
 * The operations run on three mirrored buffers of the main context (and a
 * small CL_MEM_WRITE_ONLY one), whose bytes are written from a seed before
 * every call and read back after it, and on the views of the array pool
 * (which include invalid, foreign, read-only and broadcast views) for hostile
 * arguments.
 *
 * Every call is held to its header: a documented status, a detail message on
 * failure, no event and no changed byte anywhere after a refusal. A success
 * over views the fuzzer made itself, with built-in operations or with the
 * expressions of a fixed table whose meaning it knows, is compared byte for
 * byte with a host model of every mirrored buffer (outputs hold the host
 * reference, every other byte is unchanged). Hostile expressions, drawn from
 * fragments (unbalanced delimiters, comments, '#', ';', OpenCL keywords,
 * long identifiers) and raw bytes, count against a build budget: each may
 * reach POCL's compiler, which takes about a second, so once
 * ALGO_BUILD_BUDGET builds have been spent only fixed expressions are used,
 * and those build once. */
#include "harness.h"

algo_world algo;
uint8_t algo_before[ALG_COUNT][ALGO_BYTES];
static uint8_t algo_after[ALG_COUNT][ALGO_BYTES];
uint8_t algo_model[ALG_COUNT][ALGO_BYTES];

algo_workspace algo_workspaces[ALGO_WORKSPACES];
algo_kernel algo_kernels[ALGO_KERNELS];

const clgpu_status algo_statuses[15] = {ALGO_ARGUMENT_STATUSES, ALGO_CALL_STATUSES};
const clgpu_status algo_text_statuses[17] = {ALGO_ARGUMENT_STATUSES, ALGO_CALL_STATUSES,
                                             CLGPU_EXPRESSION_TOO_LONG, CLGPU_SIZE_OVERFLOW};
const clgpu_status algo_text_query_statuses[11] = {ALGO_ARGUMENT_STATUSES,
                                                   CLGPU_EXPRESSION_TOO_LONG, CLGPU_SIZE_OVERFLOW};
const clgpu_status workspace_create_statuses[6] = {CLGPU_SUCCESS,
                                                   CLGPU_INVALID_ARGUMENT,
                                                   CLGPU_CL_INVALID_BUFFER_SIZE,
                                                   CLGPU_CL_MEM_OBJECT_ALLOCATION_FAILURE,
                                                   CLGPU_CL_OUT_OF_RESOURCES,
                                                   CLGPU_CL_OUT_OF_HOST_MEMORY};
const clgpu_status workspace_wrap_statuses[5] = {
    CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT, CLGPU_MISMATCHED_OBJECTS, CLGPU_WORKSPACE_MISALIGNED,
    CLGPU_WORKSPACE_TOO_SMALL};

void algo_setup(void) {
  cl_context context = clgpu_context_cl_context(world.context);
  const size_t sizes[ALG_COUNT] = {ALGO_BYTES, ALGO_BYTES, ALGO_BYTES, 256};
  for (int i = 0; i < ALG_COUNT; i++) {
    algo.sizes[i] = sizes[i];
    algo.buffers[i] =
        make_buffer(context, i == ALG_WRITE_ONLY ? CL_MEM_WRITE_ONLY : CL_MEM_READ_WRITE, sizes[i]);
  }
  algo.space = make_buffer(context, CL_MEM_READ_WRITE, ALGO_SPACE_BYTES);
  const clgpu_device_info *info = clgpu_context_device_info(world.context);
  algo.fp64 = strstr(info->extensions, "cl_khr_fp64") != NULL;
  algo.fp16 = strstr(info->extensions, "cl_khr_fp16") != NULL;
}

void algo_teardown(void) {
  for (int i = 0; i < ALG_COUNT; i++) {
    if (algo.buffers[i]) clReleaseMemObject(algo.buffers[i]);
  }
  if (algo.space) clReleaseMemObject(algo.space);
  memset(&algo, 0, sizeof algo);
}

/* ---- elements on the host ---- */

int is_real(clgpu_type type) {
  return type == CLGPU_TYPE_HALF || type == CLGPU_TYPE_FLOAT || type == CLGPU_TYPE_DOUBLE;
}

int is_signed_type(clgpu_type type) {
  return type == CLGPU_TYPE_INT8 || type == CLGPU_TYPE_INT16 || type == CLGPU_TYPE_INT32 ||
         type == CLGPU_TYPE_INT64;
}

static uint64_t load_bits(const uint8_t *p, size_t size) {
  uint64_t bits = 0;
  for (size_t i = 0; i < size; i++) bits |= (uint64_t)p[i] << (8 * i);
  return bits;
}

void store_bits(uint8_t *p, size_t size, uint64_t bits) {
  for (size_t i = 0; i < size; i++) p[i] = (uint8_t)(bits >> (8 * i));
}

/* Half precision, without libm: exact for the small integers the fuzzer
 * writes, and read back exactly. */
static uint16_t half_from(double value) {
  if (value == 0) {
    /* -0 keeps its sign, as the device's conversion does (an axpby of
     * -3 * 0 + 0 * -1 is -0). */
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits >> 63 ? 0x8000 : 0;
  }
  uint16_t sign = value < 0 ? 0x8000 : 0;
  double magnitude = value < 0 ? -value : value;
  int exponent = 0;
  while (magnitude >= 2) {
    magnitude /= 2;
    exponent++;
  }
  while (magnitude < 1) {
    magnitude *= 2;
    exponent--;
  }
  if (exponent > 15) return sign | 0x7c00;
  return (uint16_t)(sign | (uint16_t)((exponent + 15) << 10) |
                    (uint16_t)((magnitude - 1) * 1024 + 0.5));
}

static double half_value(uint16_t bits) {
  int exponent = (bits >> 10) & 31;
  double value = bits & 1023;
  if (exponent == 0) {
    value /= 1024;
    exponent = -14;
  } else {
    value = 1 + value / 1024;
    exponent -= 15;
  }
  for (; exponent > 0; exponent--) value *= 2;
  for (; exponent < 0; exponent++) value /= 2;
  return bits & 0x8000 ? -value : value;
}

/* An element as an integer (sign- or zero-extended) or as a real. */
int64_t element_int(const uint8_t *p, clgpu_type type) {
  size_t size = clgpu_type_size(type);
  uint64_t bits = load_bits(p, size);
  if (is_signed_type(type) && size < 8 && (bits >> (8 * size - 1)) & 1) {
    bits |= ~(uint64_t)0 << (8 * size);
  }
  return (int64_t)bits;
}

double element_real(const uint8_t *p, clgpu_type type) {
  if (type == CLGPU_TYPE_HALF) return half_value((uint16_t)load_bits(p, 2));
  if (type == CLGPU_TYPE_FLOAT) {
    float value;
    memcpy(&value, p, sizeof value);
    return value;
  }
  if (type == CLGPU_TYPE_DOUBLE) {
    double value;
    memcpy(&value, p, sizeof value);
    return value;
  }
  if (type == CLGPU_TYPE_UINT64) return (double)(uint64_t)element_int(p, type);
  return (double)element_int(p, type);
}

/* Store a value computed on the host: integers keep their low bits, reals
 * are converted (exactly, for the values the models compute). */
void store_int(uint8_t *p, clgpu_type type, uint64_t value) {
  if (is_real(type)) {
    double real = (double)(int64_t)value;
    if (type == CLGPU_TYPE_HALF) {
      store_bits(p, 2, half_from(real));
    } else if (type == CLGPU_TYPE_FLOAT) {
      float narrow = (float)real;
      memcpy(p, &narrow, sizeof narrow);
    } else {
      memcpy(p, &real, sizeof real);
    }
    return;
  }
  store_bits(p, clgpu_type_size(type), value);
}

void store_real(uint8_t *p, clgpu_type type, double value) {
  if (!is_real(type)) {
    store_int(p, type, (uint64_t)(int64_t)value);
    return;
  }
  if (type == CLGPU_TYPE_HALF) {
    store_bits(p, 2, half_from(value));
  } else if (type == CLGPU_TYPE_FLOAT) {
    float narrow = (float)value;
    memcpy(p, &narrow, sizeof narrow);
  } else {
    memcpy(p, &value, sizeof value);
  }
}

/* The order of sort.h, as an unsigned image of the bits: integers by
 * value, floats -inf < ... < -0 < +0 < ... < +inf < NaN (NaNs by their bits
 * with the sign cleared). */
uint64_t order_image(const uint8_t *p, clgpu_type type) {
  size_t size = clgpu_type_size(type);
  uint64_t bits = load_bits(p, size);
  uint64_t sign = (uint64_t)1 << (8 * size - 1);
  uint64_t mask = size == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * size)) - 1;
  if (!is_real(type)) return is_signed_type(type) ? bits ^ sign : bits;
  uint64_t infinity = type == CLGPU_TYPE_HALF    ? 0x7c00
                      : type == CLGPU_TYPE_FLOAT ? 0x7f800000
                                                 : 0x7ff0000000000000ull;
  if ((bits & ~sign) > infinity) bits &= ~sign;
  return bits & sign ? ~bits & mask : bits | sign;
}

/* ---- views over the mirrored buffers ---- */

/* The byte offset of the element with row-major index k. */
size_t element_offset(const clgpu_array *view, size_t k) {
  int64_t offset = (int64_t)view->offset;
  int64_t size = (int64_t)clgpu_type_size(view->type);
  for (unsigned d = view->rank; d-- > 0;) {
    int64_t index = (int64_t)(k % view->shape[d]);
    k /= view->shape[d];
    offset += index * (int64_t)view->strides[d] * size;
  }
  return (size_t)offset;
}

view_wish wish_1d(clgpu_type type, size_t n, int buffer) {
  view_wish wish = {type, 1, {n, 1}, buffer};
  return wish;
}

clgpu_type take_algo_type(byte_reader *in) {
  return (clgpu_type)(1 + take_byte(in) % CLGPU_TYPE_DOUBLE);
}

/* A view for a call. Mode 0 is NULL, mode 1 a view of the array pool (any
 * of its hostile views), the rest a view the fuzzer makes over a mirrored
 * buffer: the wish, or another type, length or buffer, with a stride of 1,
 * 2, 3, -1 or 0 along each dimension and an aligned offset. The view is
 * shortened until it fits its buffer. */
void take_algo_view(byte_reader *in, const array_run *pool, view_wish wish, algo_view *out) {
  memset(out, 0, sizeof *out);
  uint8_t mode = take_byte(in);
  if (mode % 16 == 15) return;
  if (mode % 16 == 14) {
    out->pointer = take_view(in, pool);
    return;
  }
  uint8_t changes = take_byte(in);
  clgpu_type type = changes & 1 ? take_algo_type(in) : wish.type;
  unsigned rank = changes & 2 ? 1u + take_byte(in) % 2u : wish.rank;
  size_t shape[2] = {wish.shape[0], rank == 2 ? wish.shape[1] : 1};
  if (rank != wish.rank) {
    shape[0] = wish.rank == 2 ? wish.shape[0] * wish.shape[1] : wish.shape[0];
    shape[1] = 1;
  }
  if (changes & 4) {
    shape[0] = take_byte(in) % (rank == 2 ? 12 : ALGO_MAX_N + 1);
    if (rank == 2) shape[1] = take_byte(in) % 40;
  }
  int buffer = changes & 8 ? take_byte(in) % ALG_COUNT : wish.buffer;
  static const ptrdiff_t steps[] = {1, 1, 1, 2, -1, 3, 0, -2};
  ptrdiff_t step[2] = {steps[(mode >> 4) % 8], 1};
  if (rank == 2) {
    uint8_t layout = take_byte(in) % 4;
    /* Row-major, column-major, rows reversed, or a stepped row. */
    if (layout == 0) {
      step[0] = (ptrdiff_t)shape[1];
      step[1] = 1;
    } else if (layout == 1) {
      step[0] = 1;
      step[1] = (ptrdiff_t)shape[0];
    } else if (layout == 2) {
      step[0] = -(ptrdiff_t)shape[1];
      step[1] = 1;
    } else {
      step[0] = 2 * (ptrdiff_t)shape[1];
      step[1] = 2;
    }
  }
  size_t size = clgpu_type_size(type);
  size_t base = (take_byte(in) % 16) * size;
  for (;;) {
    /* The lowest and highest element, in elements from element 0. */
    int64_t low = 0, high = 0;
    int empty = shape[0] == 0 || (rank == 2 && shape[1] == 0);
    for (unsigned d = 0; d < rank && !empty; d++) {
      int64_t span = (int64_t)(shape[d] - 1) * step[d];
      if (span < 0) low += span;
      else high += span;
    }
    size_t offset = base + (size_t)(-low) * size;
    if (empty || offset + (size_t)(high + 1) * size <= algo.sizes[buffer]) {
      if (empty) offset = base;
      make_algo_view(buffer, offset, type, rank, shape, step, out);
      return;
    }
    if (base > 0) {
      base = 0;
    } else if (rank == 2 && shape[1] > 1) {
      shape[1] /= 2;
    } else {
      shape[0] /= 2;
    }
  }
}

/* Small values that every type holds and every model computes exactly
 * (sums of a few hundred stay integers below 2^11 for half, 2^24 for
 * float), or any bits at all where only the bits matter. */
void write_values(const algo_view *view, uint8_t seed, int any_bits) {
  if (!view->made) return;
  clgpu_type type = view->view.type;
  size_t size = clgpu_type_size(type);
  uint32_t state = 0x9e3779b9u * (seed + 1u);
  int spread = seed % 4; /* few values, many, all equal, or two */
  for (size_t k = 0; k < view->count; k++) {
    state = state * 1103515245u + 12345u;
    uint8_t *p = &algo_before[view->buffer][element_offset(&view->view, k)];
    if (any_bits) {
      for (size_t b = 0; b < size; b++) p[b] = (uint8_t)(state >> (8 * (b % 3) + 5) ^ (b * 77));
      continue;
    }
    int value = spread == 2 ? 5 : spread == 3 ? (int)(state >> 16) % 2 : (int)(state >> 16) % 16;
    if (spread == 1) value = (int)(state >> 16) % 16 - 8;
    if (type == CLGPU_TYPE_HALF) value = value % 4 - 2 + (value < 0);
    if (!is_signed_type(type) && !is_real(type) && value < 0) value = -value;
    store_int(p, type, (uint64_t)(int64_t)value);
  }
}

void gather_view(const algo_view *view, uint8_t *out) {
  size_t size = clgpu_type_size(view->view.type);
  for (size_t k = 0; k < view->count; k++) {
    memcpy(out + k * size, &algo_before[view->buffer][element_offset(&view->view, k)], size);
  }
}

void make_algo_view(int buffer, size_t offset, clgpu_type type, unsigned rank, const size_t *shape,
                    const ptrdiff_t *step, algo_view *out) {
  memset(out, 0, sizeof *out);
  size_t count = 1;
  for (unsigned d = 0; d < rank; d++) count *= shape[d];
  clgpu_status status =
      clgpu_array_strided(algo.buffers[buffer], offset, type, rank, shape, step, &out->view);
  if (status != CLGPU_SUCCESS) {
    violation("clgpu_array_strided", "refused a view inside its buffer: %s (%s)",
              clgpu_status_name(status), clgpu_last_error());
  }
  out->pointer = &out->view;
  out->made = 1;
  out->buffer = buffer;
  out->count = count;
}

int views_overlap(const algo_view *a, const algo_view *b) {
  if (!a->made || !b->made || !a->pointer || !b->pointer || a->buffer != b->buffer) return 0;
  static uint8_t marks[ALGO_BYTES];
  memset(marks, 0, sizeof marks);
  size_t a_size = clgpu_type_size(a->view.type), b_size = clgpu_type_size(b->view.type);
  for (size_t k = 0; k < a->count; k++) memset(marks + element_offset(&a->view, k), 1, a_size);
  for (size_t k = 0; k < b->count; k++) {
    size_t at = element_offset(&b->view, k);
    for (size_t i = 0; i < b_size; i++) {
      if (marks[at + i]) return 1;
    }
  }
  return 0;
}

/* The view over `under`'s bytes (positions over needles or haystack, a
 * histogram's edges or counts over its input, a partition's output over
 * its input): from the byte of its element 0 (rounded down to the type's
 * size) moved by `shift` elements, with its step in bytes where the type's
 * size divides it (1-D views); contiguous, moved down, then shortened,
 * until it fits the buffer. */
void view_over(const algo_view *under, clgpu_type type, size_t count, int shift, algo_view *out) {
  int64_t size = (int64_t)clgpu_type_size(type);
  int64_t bytes = under->view.rank == 1
                      ? (int64_t)under->view.strides[0] * (int64_t)clgpu_type_size(under->view.type)
                      : size;
  ptrdiff_t step = bytes != 0 && bytes % size == 0 ? (ptrdiff_t)(bytes / size) : 1;
  int64_t offset = (int64_t)under->view.offset - (int64_t)under->view.offset % size;
  offset += shift * size;
  if (offset < 0) offset = 0;
  int64_t limit = (int64_t)algo.sizes[under->buffer];
  if (offset > limit - size) offset = (limit - size) - (limit - size) % size;
  for (;;) {
    int64_t reach = count ? (int64_t)(count - 1) * step * size : 0;
    int64_t low = offset + (reach < 0 ? reach : 0), high = offset + (reach > 0 ? reach : 0) + size;
    if (count == 0 || (low >= 0 && high <= limit)) break;
    if (step != 1) {
      step = 1;
    } else if (offset > 0 && offset + (int64_t)count * size > limit) {
      int64_t moved = limit - (int64_t)count * size;
      offset = moved > 0 ? moved - moved % size : 0;
      if (moved <= 0) count /= 2;
    } else {
      count /= 2;
    }
  }
  make_algo_view(under->buffer, (size_t)offset, type, 1, &count, &step, out);
}

/* Before a call: the pattern into every mirrored buffer and every array
 * root, so that a refused call is seen to change nothing anywhere. */
void algo_write_buffers(uint8_t seed) {
  for (int b = 0; b < ALG_COUNT; b++) {
    for (size_t i = 0; i < algo.sizes[b]; i++) {
      algo_before[b][i] = (uint8_t)(seed * 7u + i * 13u + (size_t)b * 101u + (i >> 7));
    }
  }
  write_roots(seed);
}

void algo_upload(void) {
  cl_command_queue queue = clgpu_context_queue(world.context);
  for (int b = 0; b < ALG_COUNT; b++) {
    if (clEnqueueWriteBuffer(queue, algo.buffers[b], CL_TRUE, 0, algo.sizes[b], algo_before[b], 0,
                             NULL, NULL) != CL_SUCCESS) {
      setup_failed("clEnqueueWriteBuffer of an algorithm buffer", 0);
    }
  }
  memcpy(algo_model, algo_before, sizeof algo_model);
}

static void algo_read_buffers(void) {
  read_roots();
  cl_command_queue queue = clgpu_context_queue(world.context);
  for (int b = 0; b < ALG_COUNT; b++) {
    if (clEnqueueReadBuffer(queue, algo.buffers[b], CL_TRUE, 0, algo.sizes[b], algo_after[b], 0,
                            NULL, NULL) != CL_SUCCESS) {
      setup_failed("clEnqueueReadBuffer of an algorithm buffer", 0);
    }
  }
}

static void take_algo_wait(byte_reader *in, algo_wait *wait) {
  memset(wait, 0, sizeof *wait);
  wait->events[0] = wait->events[1] = arrays.done;
  uint8_t choice = take_byte(in) % 10;
  switch (choice) {
    case 1:
      wait->count = 1;
      break;
    case 2:
      wait->count = 2;
      break;
    case 3:
      wait->count = 1;
      wait->bad = 1;
      snprintf(wait->word, sizeof wait->word, "count 1, list NULL");
      return;
    case 4:
      wait->list = wait->events;
      wait->bad = 1;
      snprintf(wait->word, sizeof wait->word, "count 0, list given");
      return;
    case 5:
      wait->count = UINT32_MAX - take_byte(in);
      wait->bad = 1;
      snprintf(wait->word, sizeof wait->word, "count %u, list NULL", wait->count);
      return;
    case 7:
      wait->events[0] = NULL;
      wait->count = 1;
      wait->hostile = 1;
      break;
    case 8:
      wait->events[0] = done_on_other;
      wait->count = 1;
      wait->hostile = 1;
      break;
    case 9:
      wait->events[1] = NULL;
      wait->count = 2;
      wait->hostile = 1;
      break;
    default:
      break;
  }
  if (wait->count) wait->list = wait->events;
  snprintf(wait->word, sizeof wait->word, "%u events%s", wait->count,
           wait->hostile ? " (a NULL or foreign one)" : "");
}

clgpu_context *take_algo_context(byte_reader *in) {
  uint8_t choice = take_byte(in) % 16;
  return choice == 15 ? NULL : choice == 14 ? world.other : world.context;
}

clgpu_workspace *take_algo_workspace(byte_reader *in, int *slot) {
  uint8_t choice = take_byte(in) % (2 * ALGO_WORKSPACES);
  *slot = -1;
  if (choice >= ALGO_WORKSPACES || !algo_workspaces[choice].workspace) return NULL;
  *slot = choice;
  return algo_workspaces[choice].workspace;
}

/* Shapes and sort algorithms from one table of values, each a known one,
 * the other enum's, or out of range. */
static int take_enum_value(byte_reader *in) {
  static const int values[] = {0, 0, 1, 2, 1, 2, 5, -1};
  return values[take_byte(in) % COUNT_OF(values)];
}

clgpu_algorithm take_algorithm(byte_reader *in) { return (clgpu_algorithm)take_enum_value(in); }

clgpu_shape take_shape(byte_reader *in) { return (clgpu_shape)take_enum_value(in); }

/* A call's options: NULL, or a shape and maybe a workspace of the
 * input's. */
const clgpu_call_options *take_call_options(byte_reader *in, clgpu_call_options *storage,
                                            int *slot) {
  *slot = -1;
  memset(storage, 0, sizeof *storage); /* the queue and reserved fields too */
  uint8_t mode = take_byte(in) % 4;
  if (mode == 0) return NULL;
  storage->shape = take_shape(in);
  storage->workspace = mode == 3 ? take_algo_workspace(in, slot) : NULL;
  return storage;
}

/* ---- expressions ---- */

/* Fragments of hostile expressions. */
static const char *const nasty_fragments[] = {
    "(", ")", "((", "))", "[", "]", "{", "}", "/*", "*/", "//", "#", "#define x 1\n", ";",
    "\n", "\\\n", "\"", "'", "a", "b", "x", "i", "+", "0", "1", ",", "?", ":", "__kernel",
    "return", "void", "int", "struct", "typedef", "__global", "barrier(0)", "get_global_id(0)",
    "0); return (A)(x", "x > 1000) + (1", "a // c\n + b", "a < b /* open", "#pragma", "?\?=",
    "\\", "@", "$", "`", "\t", "\xff", "clgpu_", "CLGPU_T", long_identifier, "1e999", "0x",
    "sizeof", "(void)0", "a + b", "x != 0", ".x", "->", "&", "*", "ulong", "half", "double",
};

/* Whether an expression breaks a rule that issue 15 item 9 makes the
 * library enforce for every expression-taking call: comments, preprocessor
 * lines and unbalanced delimiters. */
static int breaks_expression_rules(const char *text) {
  if (!text) return 0;
  if (strstr(text, "//") || strstr(text, "/*") || strchr(text, '#')) return 1;
  int depth[3] = {0, 0, 0};
  for (const char *p = text; *p; p++) {
    int kind = *p == '(' || *p == ')' ? 0 : *p == '[' || *p == ']' ? 1 : *p == '{' || *p == '}' ? 2 : -1;
    if (kind < 0) continue;
    if (*p == '(' || *p == '[' || *p == '{') {
      depth[kind]++;
    } else if (--depth[kind] < 0) {
      return 1;
    }
  }
  return depth[0] || depth[1] || depth[2];
}

/* A hostile expression: 1 to 3 fragments, or raw bytes. Once the build
 * budget is spent, NULL (the caller then uses a fixed expression). */
static const char *take_hostile(byte_reader *in, char buffer[3 * (LONG_LENGTH + 2) + MAX_TEXT]) {
  /* The same bytes are read whether or not the budget is spent, so that an
   * input means the same in a fresh process. */
  uint8_t mode = take_byte(in);
  if (mode % 4 == 0) {
    char raw[MAX_TEXT + 1];
    static const char *const none[] = {""};
    const char *text = TAKE_TEXT(in, none, raw);
    snprintf(buffer, MAX_TEXT + 1, "%s", text ? text : "");
  } else {
    size_t used = 0, count = 1 + mode % 3;
    buffer[0] = '\0';
    for (size_t i = 0; i < count; i++) {
      const char *fragment = nasty_fragments[take_byte(in) % COUNT_OF(nasty_fragments)];
      used += (size_t)snprintf(buffer + used, 3 * (LONG_LENGTH + 2) + MAX_TEXT - used, "%s",
                               fragment);
    }
  }
  return algo.builds >= ALGO_BUILD_BUDGET ? NULL : buffer;
}

/* A fixed expression of `table` (`count` entries), or a hostile one. */
void take_expression(byte_reader *in, const char *const *table, size_t count, expression *out) {
  uint8_t choice = take_byte(in);
  out->fixed = choice % (count + 2);
  if ((size_t)out->fixed >= count) {
    out->text = take_hostile(in, out->buffer);
    if (out->text) {
      out->fixed = -1;
      return;
    }
    out->fixed = 0;
  }
  out->text = table[out->fixed];
}

void algo_call_init(algo_call *call) {
  memset(call, 0, sizeof *call);
  call->checkable = 1;
  call->event = STALE_EVENT;
  call->workspace_slot = -1;
}

/* An output that repeats an element: a stride of 0 along a dimension of
 * more than one element. Every output of these calls refuses it. */
int broadcast_output(const algo_view *view) {
  if (!view->made || !view->pointer) return 0;
  for (unsigned d = 0; d < view->view.rank; d++) {
    if (view->view.shape[d] > 1 && view->view.strides[d] == 0) return 1;
  }
  return 0;
}

void begin_algo_call(algo_call *call, byte_reader *in) {
  take_algo_wait(in, &call->wait);
  call->want_event = take_byte(in) % 3 == 2;
  call->event = STALE_EVENT;
  call->stats = current_stats();
  prime_last_error();
}

void add_view(algo_call *call, const algo_view *view) {
  call->views[call->view_count++] = view;
  if (!view->made) call->checkable = 0;
}

void add_expression(algo_call *call, const expression *taken) {
  call->expressions[call->expression_count++] = taken;
  if (taken->fixed < 0) call->checkable = 0;
}

/* Whether a made view and a byte range of a buffer share a byte. */
static int view_touches(const algo_view *view, cl_mem buffer, size_t first, size_t end) {
  clgpu_location where;
  if (!view->pointer || clgpu_array_check(view->pointer) != CLGPU_SUCCESS) return 0;
  if (clgpu_array_location(view->pointer, &where) != CLGPU_SUCCESS) return 0;
  if (where.base != buffer || where.first == where.end) return 0;
  return where.first < end && first < where.end;
}

/* Once a call's commands are done, the fuzzer's reference is the last one
 * to its buffers (see check_released for the lingering references), but
 * for one per workspace the input holds wrapped over the buffer
 * (clgpu_workspace_wrap retains it while the workspace lives). */
static void check_algo_references(const char *call) {
  for (int b = 0; b < ALG_COUNT; b++) {
    cl_uint expected = 1;
    for (int i = 0; i < ALGO_WORKSPACES; i++) {
      if (algo_workspaces[i].workspace && algo_workspaces[i].buffer == algo.buffers[b]) expected++;
    }
    cl_uint count = memory_references(algo.buffers[b]);
    for (int tries = 0; count != expected && tries < 1000; tries++) {
      struct timespec pause = {0, 1000000};
      nanosleep(&pause, NULL);
      count = memory_references(algo.buffers[b]);
    }
    if (count != expected) {
      violation(call,
                "mirrored buffer %d has %d references besides the fuzzer's and its %u "
                "wrapped workspaces'",
                b, (int)count - (int)expected, expected - 1);
    }
  }
}

void trace_status(const char *text, clgpu_status status) {
  static int trace = -1;
  if (trace < 0) trace = getenv("FUZZ_API_TRACE") != NULL;
  if (trace) fprintf(stderr, "  %s -> %s\n", text, clgpu_status_name(status));
}

void check_query(const char *text, clgpu_status status, status_set set, int out_null, int refused,
                 const clgpu_workspace_size *report, const clgpu_workspace_size *before) {
  trace_status(text, status);
  check_call(text, status, set, 0);
  if (out_null && status == CLGPU_SUCCESS) violation(text, "succeeded with out NULL");
  if (status != CLGPU_SUCCESS && memcmp(report, before, sizeof *report) != 0) {
    violation(text, "failed but wrote the report");
  }
  if (status == CLGPU_SUCCESS && refused) violation(text, "accepted arguments its header refuses");
}

void finish_algo_call(algo_call *call, clgpu_status status, status_set set) {
  const char *text = call->text;
  /* FUZZ_API_TRACE=1 lists every algorithm call, to see what an input
   * reaches. */
  static int trace = -1;
  if (trace < 0) trace = getenv("FUZZ_API_TRACE") != NULL;
  if (trace) {
    fprintf(stderr, "  %s -> %s%s\n", text, clgpu_status_name(status),
            status == CLGPU_SUCCESS && call->checkable ? " (checked against the model)" : "");
  }
  check_call(text, status, set, 0);
  clgpu_cache_stats stats = current_stats();
  algo.builds += (unsigned)(stats.builds - call->stats.builds);
  if (call->wait.bad && status == CLGPU_SUCCESS) {
    violation(text, "accepted a wait list that does not match its count (%s)", call->wait.word);
  }
  if (call->wait.hostile && status == CLGPU_SUCCESS) {
    violation(text, "accepted a wait list with a NULL or foreign event (%s)", call->wait.word);
  }
  if (call->must_fail && status == CLGPU_SUCCESS) {
    violation(text, "accepted arguments its header refuses");
  }
  if (status == CLGPU_SUCCESS) {
    for (size_t i = 0; i < call->expression_count; i++) {
      char shown[128];
      if (breaks_expression_rules(call->expressions[i]->text)) {
        violation(text, "accepted the expression %s", quoted(call->expressions[i]->text, shown));
      }
    }
  }
  if (status != CLGPU_SUCCESS) {
    check_no_event(text, status, call->event);
    algo_read_buffers();
    compare_roots(text, &before_copy, "failed but changed an array buffer");
    for (int b = 0; b < ALG_COUNT; b++) {
      for (size_t i = 0; i < algo.sizes[b]; i++) {
        if (algo_after[b][i] != algo_before[b][i]) {
          violation(text, "failed with %s but changed byte %zu of mirrored buffer %d",
                    clgpu_status_name(status), i, b);
        }
      }
    }
    return;
  }
  if (call->want_event) {
    if (call->event == STALE_EVENT || !call->event) violation(text, "succeeded without an event");
    if (clWaitForEvents(1, &call->event) != CL_SUCCESS) violation(text, "its event failed");
    clReleaseEvent(call->event);
  } else if (call->event != STALE_EVENT) {
    violation(text, "wrote *event though none was asked for");
  }
  /* A workspace wrapped over bytes of an argument must have been refused. */
  const algo_workspace *space =
      call->workspace_slot >= 0 ? &algo_workspaces[call->workspace_slot] : NULL;
  if (space && space->buffer) {
    for (size_t i = 0; i < call->view_count; i++) {
      if (view_touches(call->views[i], space->buffer, space->offset, space->offset + space->size)) {
        violation(text, "used a workspace whose bytes overlap argument %zu", i);
      }
    }
  }
  algo_read_buffers();
  check_algo_references(text);
  if (!call->checkable) return;
  for (int b = 0; b < ALG_COUNT; b++) {
    for (size_t i = 0; i < algo.sizes[b]; i++) {
      if (space && space->buffer == algo.buffers[b] && i >= space->offset &&
          i < space->offset + space->size) {
        continue;
      }
      if (algo_after[b][i] != algo_model[b][i]) {
        violation(text, "mirrored buffer %d byte %zu is %u, the host model says %u (before %u)", b,
                  i, algo_after[b][i], algo_model[b][i], algo_before[b][i]);
      }
    }
  }
}

void describe_views(algo_call *call, const char *name) {
  size_t used = (size_t)snprintf(call->text, sizeof call->text, "%s(", name);
  for (size_t i = 0; i < call->view_count && used < sizeof call->text; i++) {
    const algo_view *view = call->views[i];
    if (!view->pointer) {
      used += (size_t)snprintf(call->text + used, sizeof call->text - used, "%sNULL",
                               i ? ", " : "");
    } else if (!view->made) {
      used += (size_t)snprintf(call->text + used, sizeof call->text - used, "%spool view",
                               i ? ", " : "");
    } else {
      const clgpu_array *v = &view->view;
      if (v->rank == 2) {
        used += (size_t)snprintf(call->text + used, sizeof call->text - used,
                                 "%s%s[%zux%zu] @%d+%zu step %td,%td", i ? ", " : "",
                                 clgpu_type_cl_name(v->type), v->shape[0], v->shape[1],
                                 view->buffer, v->offset, v->strides[0], v->strides[1]);
      } else {
        used += (size_t)snprintf(call->text + used, sizeof call->text - used,
                                 "%s%s[%zu] @%d+%zu step %td", i ? ", " : "",
                                 clgpu_type_cl_name(v->type), v->shape[0], view->buffer, v->offset,
                                 v->strides[0]);
      }
    }
  }
  for (size_t i = 0; i < call->expression_count && used < sizeof call->text; i++) {
    char shown[128];
    used += (size_t)snprintf(call->text + used, sizeof call->text - used, ", %s",
                             quoted(call->expressions[i]->text, shown));
  }
  if (used < sizeof call->text) {
    snprintf(call->text + used, sizeof call->text - used, ", wait %s%s)", call->wait.word,
             call->want_event ? ", &event" : "");
  }
}

const custom_key custom_keys[] = {
    {"int2", NULL, 8, "a.x < b.x", 0},
    {"fuzz_pair", "typedef struct { int k; int pad; } fuzz_pair;", 8, "a.k < b.k", 0},
    {"float4", NULL, 16, "a.x < b.x", 1},
    {"int", NULL, 4, "b < a", 0},
    {"float3", NULL, 16, "a.x < b.x", 1},
    {"fuzz_wide", "typedef struct { long k; } fuzz_wide;", 8, "a.k < b.k", 0},
};

void destroy_kernel(int slot) {
  if (!algo_kernels[slot].kernel) return;
  prime_last_error();
  clgpu_elementwise_destroy(algo_kernels[slot].kernel);
  check_message_untouched("clgpu_elementwise_destroy");
  memset(&algo_kernels[slot], 0, sizeof algo_kernels[slot]);
}

/* ---- workspaces ---- */

void destroy_workspace(int slot) {
  if (!algo_workspaces[slot].workspace) return;
  prime_last_error();
  clgpu_workspace_destroy(algo_workspaces[slot].workspace);
  check_message_untouched("clgpu_workspace_destroy");
  memset(&algo_workspaces[slot], 0, sizeof algo_workspaces[slot]);
}

/* Every workspace an input holds, before an allocation scope closes (its
 * block goes back with the scope) and when the input ends. */
void algo_release_workspaces(void) {
  for (int i = 0; i < ALGO_WORKSPACES; i++) destroy_workspace(i);
}
