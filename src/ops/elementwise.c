/* Elementwise kernels over views of any layout (elementwise.h): the kernel
 * object, the source it generates, the plan of a call (dimensions dropped,
 * ordered, reversed and merged), the three kinds of program (contiguous,
 * specialised, generic), the variant table, and the run.
 *
 * The source. Every kernel is cl/elementwise.cl's skeleton, built after
 * cl/common.cl and a generated part of #define lines (generate), with the
 * user's preamble and operation as parts of their own, as given. It is
 * named clgpu_elementwise and takes, in this order: for each array slot k
 * a pointer clgpu_a<k> to its root buffer and its element offset
 * clgpu_o<k>; the offset of the index clgpu_oi when the operation uses `i`;
 * the scalars by their own names; the element count; then for the strided
 * kernels the chunk, and for the generic one the extents (ulong8
 * clgpu_shape) and the strides of each slot (long8 clgpu_s<k>, clgpu_si for
 * the index). The element body is the same in all three: load the
 * arguments' variables, the operation, store the outputs. Extents and
 * strides are the macros CLGPU_SHAPE_<d> and CLGPU_STRIDE_<k>_<d> (k = i
 * for the index): defines of the prelude in a specialised program, the
 * generic kernel's arguments in the generic one.
 *
 * The index `i` is treated as one more array (slot "index"): a virtual
 * contiguous row-major array over the call's shape, whose position is the
 * row-major index. It goes through the same dropping, ordering, reversal
 * and merging as the real arrays, so `i` stays right whatever order the
 * kernel walks in. It takes part only when the operation mentions `i`, so
 * that it never stops dimensions from merging otherwise. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/elementwise.h>
#include <clgpu/program.h>

#include "alloc_cache.h"
#include "array_internal.h"
#include "chain.h"
#include "check.h"
#include "context_internal.h"
#include "elementwise.h"
#include "expression.h"
#include "lease.h"
#include "overflow.h"
#include "program_cache.h"
#include "quirks.h"
#include "status_internal.h"
#include "text.h"
#include "tuning.h"

#define MAX_ARRAYS CLGPU_ELEMENTWISE_MAX_ARRAYS
#define MAX_SLOTS (CLGPU_ELEMENTWISE_MAX_ARRAYS + 1) /* the arrays and the index */
#define NAME_LIMIT 64
#define DEFAULT_CAP 16
#define MAX_CAP 256
#define DEFAULT_PROMOTE 4
/* The side of the squares a blocked kernel walks, and the fewest elements
 * for which blocking is worth its own program, are the tuning table's
 * block and blocking_floor (runtime/tuning.c). */

typedef struct ew_arg {
  char name[NAME_LIMIT];
  clgpu_elementwise_kind kind;
  clgpu_type type;
  unsigned slot; /* array slot, for arrays */
} ew_arg;

/* What makes a specialised program: the rank, the extents but the
 * outermost (all of them for a blocked layout), and every slot's strides. Zeroed before it is
 * filled, so that keys compare with memcmp. */
typedef struct layout_key {
  unsigned rank;
  unsigned tile; /* 0, or 1 + the dimension blocked with the fastest one (CPU) */
  cl_ulong shape[CLGPU_MAX_RANK];
  cl_long strides[MAX_SLOTS][CLGPU_MAX_RANK];
} layout_key;

typedef struct variant {
  layout_key key;
  clgpu_program *program;
  uint64_t last_used;
} variant;

typedef struct candidate {
  layout_key key;
  unsigned runs;
  uint64_t last_seen;
} candidate;

struct clgpu_elementwise {
  /* A reference of the kernel's own while holds_context (see
   * clgpu__elementwise_owned_by_context). */
  clgpu_context *context;
  int holds_context;
  size_t num_args;
  ew_arg args[CLGPU_ELEMENTWISE_MAX_ARGS];
  unsigned num_arrays;
  unsigned array_arg[MAX_ARRAYS]; /* the argument of each slot */
  unsigned primary;               /* the slot of the first output */
  int uses_index;
  int any_double;
  char *operation;
  char *preamble; /* NULL for none */
  unsigned cap;
  unsigned promote_after;
  unsigned specialise_after;
  /* The queue of options->queue (retained), or NULL: the context's. */
  cl_command_queue queue;

  pthread_mutex_t lock;
  variant *variants; /* cap entries, `held` used */
  unsigned held;
  candidate *candidates; /* cap entries, `num_candidates` used */
  unsigned num_candidates;
  uint64_t clock;
  clgpu_program *contiguous; /* NULL until first needed */
  clgpu_program *generic;
  clgpu_elementwise_stats stats;
};

/* ---- the kernel object ---- */

/* Whether the text mentions the identifier `i` (not as a member after `.`
 * or `->`). Comments are not skipped: a stray `i` there only costs
 * merging. */
static int mentions_index(const char *text) {
  for (const char *c = text; *c; c++) {
    if (*c != 'i') continue;
    if (c > text && (clgpu__is_identifier_char(c[-1]) || c[-1] == '.' || c[-1] == '>')) continue;
    if (clgpu__is_identifier_char(c[1])) continue;
    return 1;
  }
  return 0;
}

static int is_array_kind(clgpu_elementwise_kind kind) {
  return kind == CLGPU_ARG_IN || kind == CLGPU_ARG_OUT || kind == CLGPU_ARG_INOUT;
}

static int is_output_kind(clgpu_elementwise_kind kind) {
  return kind == CLGPU_ARG_OUT || kind == CLGPU_ARG_INOUT;
}

static char *copy_text(const char *text) {
  size_t length = strlen(text);
  char *copy = malloc(length + 1);
  if (copy) memcpy(copy, text, length + 1);
  return copy;
}

static clgpu_status check_declaration(const clgpu_context *context, size_t num_args,
                                      const clgpu_elementwise_arg *args, const char *operation,
                                      const clgpu_elementwise_options *options) {
  const char *who = "clgpu_elementwise_create";
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__RETURN_ERROR_IF(!args, CLGPU_INVALID_ARGUMENT, "%s: args is NULL", who);
  CLGPU__RETURN_ERROR_IF(!operation, CLGPU_INVALID_ARGUMENT, "%s: operation is NULL", who);
  CLGPU__RETURN_ERROR_IF(num_args == 0, CLGPU_INVALID_ARGUMENT, "%s: no arguments", who);
  CLGPU__RETURN_ERROR_IF(num_args > CLGPU_ELEMENTWISE_MAX_ARGS, CLGPU_INVALID_ARGUMENT,
                         "%s: %zu arguments, more than the %d a kernel takes", who, num_args,
                         CLGPU_ELEMENTWISE_MAX_ARGS);
  int blank = 1;
  for (const char *c = operation; *c && blank; c++) {
    blank = *c == ' ' || *c == '\t' || *c == '\n' || *c == '\r' || *c == ';';
  }
  CLGPU__RETURN_ERROR_IF(blank, CLGPU_INVALID_ARGUMENT, "%s: the operation is empty", who);
  unsigned arrays = 0, outputs = 0;
  for (size_t a = 0; a < num_args; a++) {
    const char *name = args[a].name;
    CLGPU__RETURN_ERROR_IF(!name, CLGPU_INVALID_ARGUMENT, "%s: argument %zu has no name", who, a);
    char what[48];
    snprintf(what, sizeof what, "args[%zu].name", a);
    CLGPU__FORWARD_IF_ERROR(clgpu__check_user_name(name, NAME_LIMIT - 1, who, what));
    CLGPU__RETURN_ERROR_IF(strcmp(name, "i") == 0, CLGPU_INVALID_ARGUMENT,
                           "%s: %s is \"i\", which is the element's index", who, what);
    for (size_t b = 0; b < a; b++) {
      CLGPU__RETURN_ERROR_IF(strcmp(args[b].name, name) == 0, CLGPU_INVALID_ARGUMENT,
                             "%s: arguments %zu and %zu are both named \"%s\"", who, b, a, name);
    }
    clgpu_elementwise_kind kind = args[a].kind;
    CLGPU__RETURN_ERROR_IF(!is_array_kind(kind) && kind != CLGPU_ARG_SCALAR, CLGPU_INVALID_ARGUMENT,
                           "%s: argument \"%s\" has an unknown kind %d", who, name, (int)kind);
    CLGPU__RETURN_ERROR_IF(clgpu__type_size(args[a].type) == 0, CLGPU_INVALID_ARGUMENT,
                           "%s: argument \"%s\" has an unknown type %d", who, name,
                           (int)args[a].type);
    char shown[96];
    snprintf(shown, sizeof shown, "argument \"%s\"", name);
    CLGPU__FORWARD_IF_ERROR(clgpu__check_arithmetic_type(args[a].type, who, shown));
    CLGPU__RETURN_ERROR_IF(kind == CLGPU_ARG_SCALAR && args[a].type == CLGPU_TYPE_HALF,
                           CLGPU_INVALID_ARGUMENT,
                           "%s: scalar \"%s\" is half; declare it float (half arrays compute "
                           "in float)",
                           who, name);
    CLGPU__RETURN_ERROR_IF(
        args[a].type == CLGPU_TYPE_DOUBLE && !context->info.has_fp64, CLGPU_UNSUPPORTED_FEATURE,
        "%s: argument \"%s\" is double, and the device lacks cl_khr_fp64", who, name);
    if (is_array_kind(kind)) arrays++;
    if (is_output_kind(kind)) outputs++;
  }
  CLGPU__RETURN_ERROR_IF(outputs == 0, CLGPU_INVALID_ARGUMENT,
                         "%s: no argument is an output (CLGPU_ARG_OUT or CLGPU_ARG_INOUT)", who);
  CLGPU__RETURN_ERROR_IF(arrays > MAX_ARRAYS, CLGPU_INVALID_ARGUMENT,
                         "%s: %u array arguments, more than the %d a kernel takes", who, arrays,
                         MAX_ARRAYS);
  CLGPU__RETURN_ERROR_IF(options && options->variant_cap > MAX_CAP, CLGPU_INVALID_ARGUMENT,
                         "%s: variant_cap %u is above %d", who, options->variant_cap, MAX_CAP);
  if (options) {
    CLGPU__FORWARD_IF_ERROR(
        clgpu__check_reserved(options->reserved, CLGPU_OPTIONS_RESERVED, who, "options"));
    CLGPU__FORWARD_IF_ERROR(clgpu__queue_check(context, options->queue, who, "options->queue"));
  }
  CLGPU__FORWARD_IF_ERROR(
      clgpu__check_user_text(operation, CLGPU__TEXT_STATEMENTS, who, "operation"));
  if (options && options->preamble) {
    CLGPU__FORWARD_IF_ERROR(clgpu__check_user_text(options->preamble, CLGPU__TEXT_DECLARATIONS, who,
                                                   "options->preamble"));
  }
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_elementwise_create(clgpu_context *context, const char *operation,
                                      size_t num_args, const clgpu_elementwise_arg *args,
                                      const clgpu_elementwise_options *options,
                                      clgpu_elementwise **out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "clgpu_elementwise_create: out is NULL");
  *out = NULL;
  CLGPU__FORWARD_IF_ERROR(check_declaration(context, num_args, args, operation, options));
  clgpu_elementwise *kernel = calloc(1, sizeof *kernel);
  CLGPU__RETURN_ERROR_IF(!kernel, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  kernel->context = context;
  kernel->num_args = num_args;
  kernel->primary = MAX_SLOTS;
  for (size_t a = 0; a < num_args; a++) {
    ew_arg *arg = &kernel->args[a];
    memcpy(arg->name, args[a].name, strlen(args[a].name) + 1);
    arg->kind = args[a].kind;
    arg->type = args[a].type;
    if (arg->type == CLGPU_TYPE_DOUBLE) kernel->any_double = 1;
    if (is_array_kind(arg->kind)) {
      arg->slot = kernel->num_arrays;
      kernel->array_arg[kernel->num_arrays] = (unsigned)a;
      if (is_output_kind(arg->kind) && kernel->primary == MAX_SLOTS) kernel->primary = arg->slot;
      kernel->num_arrays++;
    }
  }
  kernel->cap = options && options->variant_cap ? options->variant_cap : DEFAULT_CAP;
  kernel->promote_after =
      options && options->promote_after ? options->promote_after : DEFAULT_PROMOTE;
  kernel->specialise_after = options && options->specialise_after ? options->specialise_after : 1;
  kernel->uses_index = mentions_index(operation);
  kernel->operation = copy_text(operation);
  kernel->preamble = options && options->preamble ? copy_text(options->preamble) : NULL;
  kernel->variants = calloc(kernel->cap, sizeof *kernel->variants);
  kernel->candidates = calloc(kernel->cap, sizeof *kernel->candidates);
  int locked = 0;
  if (kernel->operation && (!options || !options->preamble || kernel->preamble) &&
      kernel->variants && kernel->candidates) {
    locked = pthread_mutex_init(&kernel->lock, NULL) == 0;
  }
  if (!locked) {
    free(kernel->operation);
    free(kernel->preamble);
    free(kernel->variants);
    free(kernel->candidates);
    free(kernel);
    return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "clgpu_elementwise_create: out of host memory");
  }
  if (options && options->queue && options->queue != context->queue) {
    kernel->queue = options->queue;
    clRetainCommandQueue(kernel->queue);
  }
  /* The kernel keeps its context (and so the programs of the context's
   * cache it holds) alive until it is destroyed. */
  clgpu__context_retain(context);
  kernel->holds_context = 1;
  *out = kernel;
  return CLGPU_SUCCESS;
}

void clgpu__elementwise_owned_by_context(clgpu_elementwise *kernel) {
  /* Not the context's last reference: the context is being used to make
   * the kernel, so its caller holds one. */
  if (kernel->holds_context) clgpu__context_release(kernel->context);
  kernel->holds_context = 0;
}

void clgpu_elementwise_destroy(clgpu_elementwise *kernel) {
  if (!kernel) return;
  pthread_mutex_destroy(&kernel->lock);
  free(kernel->operation);
  free(kernel->preamble);
  free(kernel->variants);
  free(kernel->candidates);
  if (kernel->queue) clReleaseCommandQueue(kernel->queue);
  clgpu_context *context = kernel->holds_context ? kernel->context : NULL;
  free(kernel);
  /* Last: it may be the context's last reference, which frees it. */
  if (context) clgpu__context_release(context);
}

clgpu_status clgpu_elementwise_get_stats(clgpu_elementwise *kernel,
                                         clgpu_elementwise_stats *stats) {
  CLGPU__RETURN_ERROR_IF(!kernel || !stats, CLGPU_INVALID_ARGUMENT,
                         "clgpu_elementwise_get_stats: kernel and stats must not be NULL");
  pthread_mutex_lock(&kernel->lock);
  *stats = kernel->stats;
  stats->variants_held = kernel->held;
  pthread_mutex_unlock(&kernel->lock);
  return CLGPU_SUCCESS;
}

/* ---- generated source ---- */

typedef enum program_kind { KIND_CONTIGUOUS, KIND_SPECIALISED, KIND_GENERIC } program_kind;

/* The variable type of an argument: half computes in float. */
static const char *variable_type(clgpu_type type) {
  return type == CLGPU_TYPE_HALF ? "float" : clgpu__type_cl_name(type);
}

/* CLGPU_LOADS and CLGPU_STORES: the element's variables, in the order of
 * the arguments, at the skeleton's CLGPU_AT(slot). */
static void add_slot_loads(clgpu__text *t, const clgpu_elementwise *kernel) {
  clgpu__text_add(t, "#define CLGPU_LOADS");
  for (size_t a = 0; a < kernel->num_args; a++) {
    const ew_arg *arg = &kernel->args[a];
    if (!is_array_kind(arg->kind)) continue;
    const char *type = variable_type(arg->type);
    if (arg->kind == CLGPU_ARG_OUT) {
      clgpu__text_add(t, " %s %s = (%s)0;", type, arg->name, type);
    } else if (arg->type == CLGPU_TYPE_HALF) {
      clgpu__text_add(t, " float %s = vload_half((size_t)(CLGPU_AT(%u)), clgpu_a%u);", arg->name,
                      arg->slot, arg->slot);
    } else {
      clgpu__text_add(t, " %s %s = clgpu_a%u[CLGPU_AT(%u)];", type, arg->name, arg->slot,
                      arg->slot);
    }
  }
  clgpu__text_add(t, "\n#define CLGPU_STORES");
  for (size_t a = 0; a < kernel->num_args; a++) {
    const ew_arg *arg = &kernel->args[a];
    if (!is_output_kind(arg->kind)) continue;
    if (arg->type == CLGPU_TYPE_HALF) {
      clgpu__text_add(t, " vstore_half_rte(%s, (size_t)(CLGPU_AT(%u)), clgpu_a%u);", arg->name,
                      arg->slot, arg->slot);
    } else {
      clgpu__text_add(t, " clgpu_a%u[CLGPU_AT(%u)] = %s;", arg->slot, arg->slot, arg->name);
    }
  }
  clgpu__text_add(t, "\n");
}

/* How a specialised kernel's innermost loop (a run along the last
 * dimension) is compiled: as the compiler likes, one element at a time
 * (CLGPU_SCALAR_RUN), or vectorised however it can (CLGPU_GATHER_RUN). */
typedef enum run_form { RUN_DEFAULT, RUN_SCALAR, RUN_GATHER } run_form;

/* The fewest elements between an array's consecutive elements along a run
 * for which a blocked kernel's run gathers (blocked_gather): shorter
 * strides than this vectorise into interleaved loads, which ran slower
 * than the scalar loop (see cl/elementwise.cl's strided loop). */
#define GATHER_STRIDE 16

/* The run form of a specialised layout. A run along which an array's
 * stride is a constant other than 0 and +-1 is kept scalar, except in a
 * blocked walk on a class whose compiler gathers faster (tuning
 * blocked_gather: POCL), when every such stride is far (GATHER_STRIDE)
 * and every array's elements are 4 or 8 bytes, the widths gathers load. */
static run_form run_form_of(const clgpu_elementwise *kernel, const layout_key *key) {
  int strided = 0, gathers = key->tile != 0 && kernel->context->tuning->blocked_gather;
  for (unsigned k = 0; k < kernel->num_arrays; k++) {
    uint64_t stride = clgpu__magnitude(key->strides[k][key->rank - 1]);
    size_t size = clgpu__type_size(kernel->args[kernel->array_arg[k]].type);
    if (stride > 1) strided = 1;
    if ((stride > 1 && stride < GATHER_STRIDE) || (size != 4 && size != 8)) gathers = 0;
  }
  if (!strided) return RUN_DEFAULT;
  return gathers ? RUN_GATHER : RUN_SCALAR;
}

/* The generated part of a program: the #define lines cl/elementwise.cl
 * reads (the argument list, the slots, the element's loads and stores, the
 * kind and rank); malloc'd, NULL when out of memory. The user's preamble
 * and operation are parts of their own, as given. */
static char *generate(const clgpu_elementwise *kernel, program_kind kind, unsigned rank,
                      unsigned tile, run_form run) {
  clgpu__text t = {NULL, 0, 0, 0};
  clgpu__text_add(&t, "#define CLGPU_PARAMS");
  for (unsigned k = 0; k < kernel->num_arrays; k++) {
    const ew_arg *arg = &kernel->args[kernel->array_arg[k]];
    clgpu__text_add(&t, "%s __global %s%s *clgpu_a%u, long clgpu_o%u", k ? "," : "",
                    arg->kind == CLGPU_ARG_IN ? "const " : "", clgpu__type_cl_name(arg->type), k,
                    k);
  }
  if (kernel->uses_index) clgpu__text_add(&t, ", long clgpu_oi");
  for (size_t a = 0; a < kernel->num_args; a++) {
    const ew_arg *arg = &kernel->args[a];
    if (arg->kind == CLGPU_ARG_SCALAR) {
      clgpu__text_add(&t, ", const %s %s", clgpu__type_cl_name(arg->type), arg->name);
    }
  }
  clgpu__text_add(&t, ", ulong clgpu_count\n#define CLGPU_EACH_SLOT(X, d)");
  for (unsigned k = 0; k < kernel->num_arrays; k++) clgpu__text_add(&t, " X(%u, d)", k);
  if (kernel->uses_index) clgpu__text_add(&t, " X(i, d)\n#define CLGPU_USES_INDEX");
  clgpu__text_add(&t, "\n");
  add_slot_loads(&t, kernel);
  if (kind == KIND_CONTIGUOUS) {
    clgpu__text_add(&t, "#define CLGPU_CONTIGUOUS\n");
    if (kernel->context->tuning->group_bound_check) {
      clgpu__text_add(&t, "#define CLGPU_GROUP_BOUND\n");
    }
  } else {
    if (kind == KIND_GENERIC) clgpu__text_add(&t, "#define CLGPU_GENERIC\n");
    clgpu__text_add(&t, "#define CLGPU_RANK %u\n#define CLGPU_INNER %u\n", rank, rank - 1);
    if (tile) clgpu__text_add(&t, "#define CLGPU_TILE %u\n", tile - 1);
    if (run == RUN_SCALAR) clgpu__text_add(&t, "#define CLGPU_SCALAR_RUN\n");
    if (run == RUN_GATHER) clgpu__text_add(&t, "#define CLGPU_GATHER_RUN\n");
  }
  return clgpu__text_take(&t, NULL);
}

/* ---- the plan of a call ---- */

typedef struct plan {
  unsigned rank;
  cl_ulong shape[CLGPU_MAX_RANK];
  cl_long offset[MAX_SLOTS];
  cl_long strides[MAX_SLOTS][CLGPU_MAX_RANK];
  cl_mem buffer[MAX_ARRAYS];
  cl_ulong count;
} plan;

/* Reduce the plan to its fewest dimensions without changing which elements
 * meet: drop extent 1, order by the primary output's strides (largest
 * first, ties in their order), walk a dimension the other way when no
 * array runs forwards along it and one runs backwards, and merge a
 * dimension into the slower one before it when every slot is contiguous
 * across the two. The visiting order changes; outputs are distinct
 * elements and inputs never share bytes with an output they are not
 * exactly, so that is safe. */
static void simplify(plan *p, unsigned slots, unsigned arrays, unsigned primary) {
  unsigned order[CLGPU_MAX_RANK];
  unsigned count = 0;
  for (unsigned d = 0; d < p->rank; d++) {
    if (p->shape[d] == 1) continue;
    unsigned at = count++;
    while (at > 0 && clgpu__magnitude(p->strides[primary][order[at - 1]]) <
                         clgpu__magnitude(p->strides[primary][d])) {
      order[at] = order[at - 1];
      at--;
    }
    order[at] = d;
  }
  plan result = *p;
  unsigned kept = 0;
  for (unsigned n = 0; n < count; n++) {
    unsigned d = order[n];
    cl_ulong extent = p->shape[d];
    cl_long strides[MAX_SLOTS];
    int forwards = 0, backwards = 0;
    for (unsigned k = 0; k < slots; k++) {
      strides[k] = p->strides[k][d];
      if (k < arrays && strides[k] > 0) forwards = 1;
      if (k < arrays && strides[k] < 0) backwards = 1;
    }
    if (backwards && !forwards) {
      for (unsigned k = 0; k < slots; k++) {
        result.offset[k] += (cl_long)(extent - 1) * strides[k];
        strides[k] = -strides[k];
      }
    }
    int merges = kept > 0;
    for (unsigned k = 0; k < slots && merges; k++) {
      merges = result.strides[k][kept - 1] == strides[k] * (cl_long)extent;
    }
    if (merges) {
      result.shape[kept - 1] *= extent;
      for (unsigned k = 0; k < slots; k++) result.strides[k][kept - 1] = strides[k];
      continue;
    }
    result.shape[kept] = extent;
    for (unsigned k = 0; k < slots; k++) result.strides[k][kept] = strides[k];
    kept++;
  }
  for (unsigned d = kept; d < CLGPU_MAX_RANK; d++) {
    result.shape[d] = 1;
    for (unsigned k = 0; k < slots; k++) result.strides[k][d] = 0;
  }
  result.rank = kept;
  *p = result;
}

static int plan_is_contiguous(const plan *p, unsigned slots) {
  if (p->rank == 0) return 1;
  if (p->rank > 1) return 0;
  for (unsigned k = 0; k < slots; k++) {
    if (p->strides[k][0] != 1) return 0;
  }
  return 1;
}

static layout_key key_of(const plan *p, unsigned slots, unsigned tile) {
  layout_key key;
  memset(&key, 0, sizeof key);
  key.rank = p->rank;
  key.tile = tile;
  for (unsigned d = tile ? 0 : 1; d < p->rank; d++) key.shape[d] = p->shape[d];
  for (unsigned k = 0; k < slots; k++) {
    for (unsigned d = 0; d < p->rank; d++) key.strides[k][d] = p->strides[k][d];
  }
  return key;
}

/* How a blocked kernel's work-items share a layout of `rank` dimensions,
 * blocked along `tile` (the dimension, not 1 + it) with the last: each
 * takes `bands` bands of `block` columns of the last dimension over
 * `rows` rows of the tile dimension (a multiple of `block`, so that
 * every square lies in one item's rows), and there are `items` of them.
 * From the tuning table's blocked_columns and blocked_rows (cl/
 * elementwise.cl's CLGPU_BANDS and CLGPU_ROWS), unless that would leave
 * fewer than four items per compute unit: then one band down the whole
 * tile dimension, as without them, so that small layouts keep every core
 * busy. */
typedef struct blocked_share {
  cl_ulong block, bands, rows, items;
} blocked_share;

static cl_ulong blocked_items(const blocked_share *b, unsigned rank, const cl_ulong *shape,
                              unsigned tile) {
  cl_ulong bands = (shape[rank - 1] + b->block - 1) / b->block;
  cl_ulong items = (bands + b->bands - 1) / b->bands * ((shape[tile] + b->rows - 1) / b->rows);
  for (unsigned d = 0; d + 1 < rank; d++) {
    if (d != tile) items *= shape[d];
  }
  return items;
}

static blocked_share blocked_share_of(const clgpu_context *context, unsigned rank,
                                      const cl_ulong *shape, unsigned tile) {
  const clgpu__tuning *tuning = context->tuning;
  blocked_share b;
  b.block = tuning->block;
  cl_ulong whole = (shape[tile] + b.block - 1) / b.block * b.block;
  b.bands = 1;
  b.rows = whole;
  b.items = blocked_items(&b, rank, shape, tile);
  blocked_share grouped = b;
  grouped.bands = tuning->blocked_columns / b.block ? tuning->blocked_columns / b.block : 1;
  cl_ulong rows = (tuning->blocked_rows + b.block - 1) / b.block * b.block;
  grouped.rows = rows == 0 || rows > whole ? whole : rows;
  grouped.items = blocked_items(&grouped, rank, shape, tile);
  cl_ulong units = context->info.compute_units > 0 ? context->info.compute_units : 1;
  return grouped.items >= 4 * units ? grouped : b;
}

/* ---- programs ---- */

typedef struct define_text {
  char name[48];
  char value[32];
} define_text;

static clgpu_status get_program(clgpu_elementwise *kernel, program_kind kind, const layout_key *key,
                                clgpu_program **out) {
  unsigned rank = kind == KIND_GENERIC ? CLGPU_MAX_RANK : kind == KIND_SPECIALISED ? key->rank : 0;
  unsigned tile = kind == KIND_SPECIALISED ? key->tile : 0;
  run_form run = kind == KIND_SPECIALISED ? run_form_of(kernel, key) : RUN_DEFAULT;
  char *arguments = generate(kernel, kind, rank, tile, run);
  /* The operation, ended so that a last line without `;` or with a `//`
   * comment cannot run into the skeleton. */
  size_t operation_size = strlen(kernel->operation) + 4;
  char *operation = malloc(operation_size);
  if (!arguments || !operation) {
    free(arguments);
    free(operation);
    return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY,
                       "clgpu_elementwise_run: out of host memory generating the kernel");
  }
  snprintf(operation, operation_size, "%s\n;\n", kernel->operation);
  clgpu__source_part parts[6];
  size_t num_parts = 0;
  parts[num_parts++] = (clgpu__source_part){"common", NULL, NULL};
  parts[num_parts++] = (clgpu__source_part){NULL, arguments, "arguments"};
  if (kernel->preamble) {
    parts[num_parts++] = (clgpu__source_part){NULL, kernel->preamble, "preamble"};
  }
  parts[num_parts++] = (clgpu__source_part){"elementwise", NULL, NULL};
  parts[num_parts++] = (clgpu__source_part){NULL, operation, "operation"};
  parts[num_parts++] = (clgpu__source_part){"elementwise", NULL, NULL};
  define_text texts[CLGPU_MAX_RANK * (MAX_SLOTS + 1) + 4];
  clgpu_define defines[CLGPU_MAX_RANK * (MAX_SLOTS + 1) + 4];
  size_t count = 0;
  if (kernel->any_double) {
    snprintf(texts[count].name, sizeof texts[count].name, "CLGPU_NEEDS_FP64");
    texts[count].value[0] = '\0';
    count++;
  }
  if (kind == KIND_SPECIALISED) {
    if (tile) {
      blocked_share share = blocked_share_of(kernel->context, key->rank, key->shape, tile - 1);
      const struct {
        const char *name;
        cl_ulong value;
      } blocking[] = {
          {"CLGPU_BLOCK", share.block}, {"CLGPU_BANDS", share.bands}, {"CLGPU_ROWS", share.rows}};
      for (size_t b = 0; b < sizeof blocking / sizeof blocking[0]; b++) {
        snprintf(texts[count].name, sizeof texts[count].name, "%s", blocking[b].name);
        snprintf(texts[count].value, sizeof texts[count].value, "%lluUL",
                 (unsigned long long)blocking[b].value);
        count++;
      }
    }
    for (unsigned d = tile ? 0 : 1; d < key->rank; d++) {
      snprintf(texts[count].name, sizeof texts[count].name, "CLGPU_SHAPE_%u", d);
      snprintf(texts[count].value, sizeof texts[count].value, "%lluUL",
               (unsigned long long)key->shape[d]);
      count++;
    }
    unsigned slots = kernel->num_arrays + (kernel->uses_index ? 1u : 0u);
    for (unsigned k = 0; k < slots; k++) {
      for (unsigned d = 0; d < key->rank; d++) {
        if (k == kernel->num_arrays) {
          snprintf(texts[count].name, sizeof texts[count].name, "CLGPU_STRIDE_i_%u", d);
        } else {
          snprintf(texts[count].name, sizeof texts[count].name, "CLGPU_STRIDE_%u_%u", k, d);
        }
        snprintf(texts[count].value, sizeof texts[count].value, "(%lldL)",
                 (long long)key->strides[k][d]);
        count++;
      }
    }
  }
  for (size_t n = 0; n < count; n++) {
    defines[n].name = texts[n].name;
    defines[n].value = texts[n].value;
  }
  clgpu_status status =
      clgpu__program_get_parts(kernel->context, parts, num_parts, defines, count, NULL, out);
  free(arguments);
  free(operation);
  if (status != CLGPU_SUCCESS) {
    clgpu__append_error(" (clgpu_elementwise_run: the %s kernel)",
                        kind == KIND_CONTIGUOUS    ? "contiguous"
                        : kind == KIND_SPECIALISED ? "specialised"
                                                   : "generic");
  }
  return status;
}

/* Decide which program serves a layout, under the lock: a table hit, a
 * free slot, a promoted candidate (evicting the least recently used
 * layout), or the generic kernel. For a layout to specialise, *program is
 * NULL and *slot is where it goes (`held` for a free slot). */
static program_kind choose(clgpu_elementwise *kernel, const layout_key *key, unsigned *slot,
                           clgpu_program **program) {
  uint64_t now = ++kernel->clock;
  for (unsigned v = 0; v < kernel->held; v++) {
    if (memcmp(&kernel->variants[v].key, key, sizeof *key) == 0 && kernel->variants[v].program) {
      kernel->variants[v].last_used = now;
      *slot = v;
      *program = kernel->variants[v].program;
      return KIND_SPECIALISED;
    }
  }
  *program = NULL;
  int room = kernel->held < kernel->cap;
  unsigned threshold = room ? kernel->specialise_after : kernel->promote_after;
  if (threshold <= 1 && room) {
    *slot = kernel->held;
    return KIND_SPECIALISED;
  }
  /* Count the layout among the candidates. */
  unsigned c = 0;
  while (c < kernel->num_candidates && memcmp(&kernel->candidates[c].key, key, sizeof *key) != 0) {
    c++;
  }
  if (c == kernel->num_candidates) {
    if (kernel->num_candidates < kernel->cap) {
      kernel->num_candidates++;
    } else {
      unsigned oldest = 0;
      for (unsigned n = 1; n < kernel->num_candidates; n++) {
        if (kernel->candidates[n].last_seen < kernel->candidates[oldest].last_seen) oldest = n;
      }
      c = oldest;
    }
    kernel->candidates[c].key = *key;
    kernel->candidates[c].runs = 0;
  }
  kernel->candidates[c].last_seen = now;
  if (++kernel->candidates[c].runs < threshold) return KIND_GENERIC;
  /* Promoted: it takes a free slot, or the least recently used layout's. */
  kernel->candidates[c] = kernel->candidates[--kernel->num_candidates];
  if (room) {
    *slot = kernel->held;
    return KIND_SPECIALISED;
  }
  unsigned victim = 0;
  for (unsigned v = 1; v < kernel->held; v++) {
    if (kernel->variants[v].last_used < kernel->variants[victim].last_used) victim = v;
  }
  *slot = victim;
  return KIND_SPECIALISED;
}

/* The most loop iterations one work-item of a blocked kernel runs: its
 * bands each walk its rows, `block` rows at a time, a run of up to
 * `block` elements in each row. */
static cl_ulong blocked_iterations(const blocked_share *b) {
  cl_ulong squares = (b->rows + b->block - 1) / b->block;
  return b->bands * (1 + squares + b->rows * (1 + b->block));
}

/* Whether the plan runs blocked on this device (add_blocked): 0 for no,
 * else 1 + the dimension to block with the fastest one. CPU devices only
 * (on GPUs neighbouring work-items already share cache lines), rank 2 and
 * up, enough elements, and an array whose smallest stride is along another
 * dimension than the last one, both dimensions at least 2 long. */
static unsigned blocking_of(const clgpu_elementwise *kernel, const plan *p) {
  if (!(kernel->context->info.type & CL_DEVICE_TYPE_CPU)) return 0;
  const clgpu__tuning *tuning = kernel->context->tuning;
  if (p->rank < 2 || p->count < tuning->blocking_floor) return 0;
  unsigned inner = p->rank - 1;
  for (unsigned k = 0; k < kernel->num_arrays; k++) {
    unsigned fastest = inner;
    for (unsigned d = 0; d < inner; d++) {
      uint64_t stride = clgpu__magnitude(p->strides[k][d]);
      if (stride != 0 && stride < clgpu__magnitude(p->strides[k][fastest])) fastest = d;
    }
    if (fastest == inner || p->shape[fastest] < 2 || p->shape[inner] < 2) continue;
    /* A band walks BLOCK columns down the whole tile dimension in one
     * work-item: its loops run about (BLOCK + 1) iterations per index of
     * that dimension. On a device that leaves loops after a count of
     * iterations (quirk loop_iteration_cap: llvmpipe) a band past that
     * would stop early, so such layouts take the strided kernel, whose
     * chunks strided_launch_shape bounds. */
    cl_ulong cap = kernel->context->quirks.loop_iteration_cap;
    if (cap) {
      blocked_share share = blocked_share_of(kernel->context, p->rank, p->shape, fastest);
      if (blocked_iterations(&share) > cap) return 0;
    }
    return fastest + 1;
  }
  return 0;
}

/* The program for a plan, and its kind; building under the kernel's lock
 * (other runs of this kernel object wait; the program cache keeps builds of
 * one program in several kernel objects to one). */
static clgpu_status program_for(clgpu_elementwise *kernel, const plan *p, unsigned slots,
                                program_kind *kind, unsigned *tile, clgpu_program **out) {
  *tile = 0;
  clgpu_status status = CLGPU_SUCCESS;
  pthread_mutex_lock(&kernel->lock);
  if (plan_is_contiguous(p, slots)) {
    *kind = KIND_CONTIGUOUS;
    if (!kernel->contiguous)
      status = get_program(kernel, KIND_CONTIGUOUS, NULL, &kernel->contiguous);
    *out = kernel->contiguous;
    if (status == CLGPU_SUCCESS) kernel->stats.contiguous_runs++;
    pthread_mutex_unlock(&kernel->lock);
    return status;
  }
  unsigned blocked = blocking_of(kernel, p);
  layout_key key = key_of(p, slots, blocked);
  unsigned slot = 0;
  clgpu_program *program = NULL;
  *kind = choose(kernel, &key, &slot, &program);
  if (*kind == KIND_GENERIC) {
    if (!kernel->generic) status = get_program(kernel, KIND_GENERIC, NULL, &kernel->generic);
    program = kernel->generic;
    if (status == CLGPU_SUCCESS) kernel->stats.generic_runs++;
  } else if (!program) {
    status = get_program(kernel, KIND_SPECIALISED, &key, &program);
    if (status == CLGPU_SUCCESS) {
      if (slot == kernel->held) {
        kernel->held++;
      } else {
        kernel->stats.evictions++;
      }
      kernel->variants[slot].key = key;
      kernel->variants[slot].program = program;
      kernel->variants[slot].last_used = kernel->clock;
      kernel->stats.specialisations++;
    }
  }
  if (status == CLGPU_SUCCESS && *kind == KIND_SPECIALISED) {
    kernel->stats.specialised_runs++;
    *tile = blocked;
  }
  pthread_mutex_unlock(&kernel->lock);
  *out = program;
  return status;
}

/* ---- the run ---- */

static const char *run_name = "clgpu_elementwise_run";

static clgpu_status check_values(clgpu_elementwise *kernel, const clgpu_elementwise_value *values,
                                 cl_uint num_events, const cl_event *wait_list) {
  CLGPU__RETURN_ERROR_IF(!kernel, CLGPU_INVALID_ARGUMENT, "%s: kernel is NULL", run_name);
  CLGPU__RETURN_ERROR_IF(!values, CLGPU_INVALID_ARGUMENT, "%s: values is NULL", run_name);
  CLGPU__FORWARD_IF_ERROR(clgpu__check_wait_list(kernel->context, num_events, wait_list, run_name));
  const clgpu_array *first = NULL;
  const char *first_name = NULL;
  for (size_t a = 0; a < kernel->num_args; a++) {
    const ew_arg *arg = &kernel->args[a];
    const clgpu_elementwise_value *value = &values[a];
    if (arg->kind == CLGPU_ARG_SCALAR) {
      CLGPU__RETURN_ERROR_IF(value->array, CLGPU_INVALID_ARGUMENT,
                             "%s: scalar \"%s\" was given an array (values[%zu].array)", run_name,
                             arg->name, a);
      CLGPU__RETURN_ERROR_IF(!value->scalar, CLGPU_INVALID_ARGUMENT,
                             "%s: scalar \"%s\" has no value (values[%zu].scalar is NULL)",
                             run_name, arg->name, a);
      continue;
    }
    CLGPU__RETURN_ERROR_IF(value->scalar, CLGPU_INVALID_ARGUMENT,
                           "%s: array \"%s\" was given a scalar (values[%zu].scalar)", run_name,
                           arg->name, a);
    CLGPU__RETURN_ERROR_IF(!value->array, CLGPU_INVALID_ARGUMENT,
                           "%s: array \"%s\" has no view (values[%zu].array is NULL)", run_name,
                           arg->name, a);
    const clgpu_array *array = value->array;
    clgpu_status status = clgpu__array_check(array);
    if (status != CLGPU_SUCCESS) {
      clgpu__append_error(" (%s: array \"%s\")", run_name, arg->name);
      return status;
    }
    CLGPU__RETURN_ERROR_IF(array->type != arg->type, CLGPU_TYPE_MISMATCH,
                           "%s: array \"%s\" is declared %s, and its view holds %s", run_name,
                           arg->name, clgpu__type_cl_name(arg->type),
                           clgpu__type_cl_name(array->type));
    if (!first) {
      first = array;
      first_name = arg->name;
    } else {
      int same = first->rank == array->rank;
      for (unsigned d = 0; same && d < array->rank; d++) same = first->shape[d] == array->shape[d];
      if (!same) {
        char one[200], other[200];
        clgpu__describe_shape(first, one, sizeof one);
        clgpu__describe_shape(array, other, sizeof other);
        return clgpu__fail(CLGPU_SHAPE_MISMATCH,
                           "%s: array \"%s\" has the shape %s and array \"%s\" the shape %s "
                           "(broadcast with clgpu_array_broadcast first)",
                           run_name, first_name, one, arg->name, other);
      }
    }
    if (is_output_kind(arg->kind)) {
      char label[NAME_LIMIT + 16];
      snprintf(label, sizeof label, "output \"%s\"", arg->name);
      CLGPU__FORWARD_IF_ERROR(clgpu__check_output_layout(array, run_name, label));
      CLGPU__FORWARD_IF_ERROR(
          clgpu__check_buffer(kernel->context, array->buffer, run_name, label, 1));
    }
    if (arg->kind != CLGPU_ARG_OUT) {
      char label[NAME_LIMIT + 16];
      snprintf(label, sizeof label, "input \"%s\"", arg->name);
      CLGPU__FORWARD_IF_ERROR(
          clgpu__check_buffer(kernel->context, array->buffer, run_name, label, 0));
    }
  }
  for (size_t a = 0; a < kernel->num_args; a++) {
    if (!is_output_kind(kernel->args[a].kind)) continue;
    for (size_t b = 0; b < a; b++) {
      if (!is_output_kind(kernel->args[b].kind)) continue;
      CLGPU__RETURN_ERROR_IF(clgpu__may_alias(values[a].array, values[b].array),
                             CLGPU_INVALID_OUTPUT, "%s: outputs \"%s\" and \"%s\" may overlap",
                             run_name, kernel->args[b].name, kernel->args[a].name);
    }
  }
  return CLGPU_SUCCESS;
}

/* Whether input `a` must go through a temporary: it may share bytes with
 * an output whose view it is not exactly. */
static int needs_staging(const clgpu_elementwise *kernel, const clgpu_elementwise_value *values,
                         size_t a) {
  if (kernel->args[a].kind != CLGPU_ARG_IN) return 0;
  for (size_t b = 0; b < kernel->num_args; b++) {
    if (!is_output_kind(kernel->args[b].kind)) continue;
    if (clgpu__may_alias(values[a].array, values[b].array) &&
        !clgpu__array_same(values[a].array, values[b].array)) {
      return 1;
    }
  }
  return 0;
}

/* The plan of the call over `views` (one per slot). */
static clgpu_status plan_of(const clgpu_elementwise *kernel, const clgpu_array *const *views,
                            plan *out) {
  plan p;
  memset(&p, 0, sizeof p);
  const clgpu_array *shape = views[0];
  p.rank = shape->rank;
  p.count = 1;
  for (unsigned d = 0; d < shape->rank; d++) {
    p.shape[d] = shape->shape[d];
    p.count *= shape->shape[d];
  }
  for (unsigned k = 0; k < kernel->num_arrays; k++) {
    cl_ulong element_offset = 0;
    clgpu_status status = clgpu__array_root(views[k], &p.buffer[k], &element_offset);
    if (status != CLGPU_SUCCESS) {
      clgpu__append_error(" (%s: array \"%s\")", run_name, kernel->args[kernel->array_arg[k]].name);
      return status;
    }
    p.offset[k] = (cl_long)element_offset;
    for (unsigned d = 0; d < p.rank; d++) p.strides[k][d] = (cl_long)views[k]->strides[d];
  }
  if (kernel->uses_index) {
    cl_long stride = 1;
    for (unsigned d = p.rank; d-- > 0;) {
      p.strides[kernel->num_arrays][d] = stride;
      stride *= (cl_long)p.shape[d];
    }
  }
  unsigned slots = kernel->num_arrays + (kernel->uses_index ? 1u : 0u);
  simplify(&p, slots, kernel->num_arrays, kernel->primary);
  *out = p;
  return CLGPU_SUCCESS;
}

/* How the strided kernels run on this device. A CPU device (POCL) runs a
 * work-group as a loop on one thread, so it gets groups of one work-item,
 * each a long chunk, about four per compute unit (docs/portability.md, what
 * the implementations here do: POCL); a chunk is at least 4096 elements so that small copies are
 * not spread thinly. Other devices get wide groups (at most 256: enough to
 * hide memory latency on every vendor, and what AMD allows) and short
 * chunks: one element per work-item until the device has about eight
 * groups' worth per compute unit, then up to 8, which amortises the
 * divisions of the first index while neighbouring work-items stay close in
 * memory. CLGPU_COPY_CHUNK and CLGPU_COPY_GROUP override the chunk and the
 * group size (the group size within what the kernel allows), so that tests
 * run every shape on any device; they are read when the context is made, not
 * on every call. */
static clgpu_status strided_launch_shape(const clgpu_context *context, cl_kernel kernel,
                                         cl_ulong count, cl_ulong *chunk, size_t *local,
                                         size_t *global) {
  const clgpu_device_info *info = &context->info;
  cl_ulong units = info->compute_units > 0 ? info->compute_units : 1;
  cl_ulong forced_chunk = context->copy_chunk;
  cl_ulong forced_group = context->copy_group;
  int cpu = (info->type & CL_DEVICE_TYPE_CPU) != 0;
  size_t group = 1;
  if (!cpu || forced_group) {
    size_t kernel_group_size = 0;
    cl_int err = clGetKernelWorkGroupInfo(kernel, context->device, CL_KERNEL_WORK_GROUP_SIZE,
                                          sizeof kernel_group_size, &kernel_group_size, NULL);
    if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clGetKernelWorkGroupInfo(elementwise)");
    group = forced_group ? (size_t)forced_group : context->quirks.work_group_cap;
    if (!forced_group && group > 256) group = 256;
    if (kernel_group_size > 0 && group > kernel_group_size) group = kernel_group_size;
    if (group == 0) group = 1;
  }
  *local = group;
  if (cpu) {
    cl_ulong pieces = 4 * units;
    *chunk = (count + pieces - 1) / pieces;
    if (*chunk < 4096) *chunk = 4096;
  } else {
    cl_ulong items = units * group * 8;
    *chunk = (count + items - 1) / items;
    if (*chunk > 8) *chunk = 8;
    if (*chunk < 1) *chunk = 1;
  }
  /* A chunk's loops run at most two iterations per element (a run of one
   * element each, at worst) and a few more: on a device that leaves loops
   * after a count of iterations (quirk loop_iteration_cap: llvmpipe) the
   * chunk stays below half of it. */
  if (forced_chunk) *chunk = forced_chunk;
  /* After CLGPU_COPY_CHUNK too: a forced chunk past the cap would stop
   * early and leave elements unwritten. */
  cl_ulong cap = context->quirks.loop_iteration_cap;
  if (cap > 128 && *chunk > (cap - 64) / 2) *chunk = (cap - 64) / 2;
  cl_ulong items = (count + *chunk - 1) / *chunk;
  *global = (size_t)((items + *local - 1) / *local * *local);
  return CLGPU_SUCCESS;
}

/* The work-group size of the contiguous kernel: wide groups everywhere
 * (POCL runs a group as one vectorised loop over its work-items, GPUs hide
 * latency with them), at most 256 and what the kernel allows. */
static clgpu_status contiguous_shape(const clgpu_context *context, cl_kernel kernel, cl_ulong count,
                                     size_t *local, size_t *global) {
  size_t group = clgpu__work_group_limit(context, 256);
  size_t kernel_group_size = 0;
  cl_int err = clGetKernelWorkGroupInfo(kernel, context->device, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof kernel_group_size, &kernel_group_size, NULL);
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clGetKernelWorkGroupInfo(elementwise)");
  if (kernel_group_size > 0 && group > kernel_group_size) group = kernel_group_size;
  if (group == 0) group = 1;
  *local = group;
  *global = (size_t)((count + group - 1) / group * group);
  return CLGPU_SUCCESS;
}

static clgpu_status set_arguments(const clgpu_elementwise *kernel, cl_kernel cl, program_kind kind,
                                  const plan *p, const clgpu_elementwise_value *values,
                                  cl_ulong chunk) {
  cl_uint index = 0;
  cl_int err = CL_SUCCESS;
  for (unsigned k = 0; k < kernel->num_arrays && err == CL_SUCCESS; k++) {
    err = clSetKernelArg(cl, index++, sizeof(cl_mem), &p->buffer[k]);
    if (err == CL_SUCCESS) err = clSetKernelArg(cl, index++, sizeof(cl_long), &p->offset[k]);
  }
  if (kernel->uses_index && err == CL_SUCCESS) {
    err = clSetKernelArg(cl, index++, sizeof(cl_long), &p->offset[kernel->num_arrays]);
  }
  for (size_t a = 0; a < kernel->num_args && err == CL_SUCCESS; a++) {
    if (kernel->args[a].kind != CLGPU_ARG_SCALAR) continue;
    err = clSetKernelArg(cl, index++, clgpu__type_size(kernel->args[a].type), values[a].scalar);
  }
  if (err == CL_SUCCESS) err = clSetKernelArg(cl, index++, sizeof(cl_ulong), &p->count);
  if (kind != KIND_CONTIGUOUS && err == CL_SUCCESS) {
    err = clSetKernelArg(cl, index++, sizeof(cl_ulong), &chunk);
  }
  if (kind == KIND_GENERIC && err == CL_SUCCESS) {
    /* The layout's dimensions at the back, padding of extent 1 in front. */
    unsigned padding = CLGPU_MAX_RANK - p->rank;
    cl_ulong8 shape;
    for (unsigned d = 0; d < CLGPU_MAX_RANK; d++) {
      shape.s[d] = d >= padding ? p->shape[d - padding] : 1;
    }
    err = clSetKernelArg(cl, index++, sizeof shape, &shape);
    unsigned slots = kernel->num_arrays + (kernel->uses_index ? 1u : 0u);
    for (unsigned k = 0; k < slots && err == CL_SUCCESS; k++) {
      cl_long8 strides;
      for (unsigned d = 0; d < CLGPU_MAX_RANK; d++) {
        strides.s[d] = d >= padding ? p->strides[k][d - padding] : 0;
      }
      err = clSetKernelArg(cl, index++, sizeof strides, &strides);
    }
  }
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clSetKernelArg(clgpu_elementwise)");
  return CLGPU_SUCCESS;
}

/* A cached kernel keeps no caller's buffer alive: its buffer arguments go
 * back to NULL before it returns to the cache. */
clgpu_status clgpu__elementwise_enqueue(clgpu_elementwise *kernel,
                                        const clgpu_elementwise_value *values, cl_uint num_events,
                                        const cl_event *wait_list, cl_event *event) {
  clgpu_context *context = kernel->context;
  const clgpu_array *views[MAX_ARRAYS];
  for (unsigned k = 0; k < kernel->num_arrays; k++) views[k] = values[kernel->array_arg[k]].array;
  if (clgpu__array_count(views[0]) == 0) {
    pthread_mutex_lock(&kernel->lock);
    kernel->stats.empty_runs++;
    pthread_mutex_unlock(&kernel->lock);
    clgpu__chain chain;
    clgpu__chain_begin(&chain, num_events, wait_list);
    return clgpu__chain_end(context, &chain, event);
  }

  /* Temporaries for inputs that overlap an output. */
  clgpu_array staged[MAX_ARRAYS];
  cl_mem temporaries[MAX_ARRAYS] = {NULL};
  unsigned num_staged = 0;
  clgpu_status status = CLGPU_SUCCESS;
  for (unsigned k = 0; k < kernel->num_arrays && status == CLGPU_SUCCESS; k++) {
    unsigned a = kernel->array_arg[k];
    if (!needs_staging(kernel, values, a)) continue;
    const clgpu_array *view = views[k];
    size_t bytes = clgpu__array_count(view) * clgpu__type_size(view->type);
    status = clgpu__buffer_create(context, CL_MEM_READ_WRITE, bytes, &temporaries[k]);
    if (status != CLGPU_SUCCESS) {
      temporaries[k] = NULL;
      clgpu__append_error(
          " (%s: the temporary of %zu bytes for input \"%s\", which overlaps "
          "an output)",
          run_name, bytes, kernel->args[a].name);
      break;
    }
    status = clgpu__array_nd(temporaries[k], 0, view->type, view->rank, view->shape,
                             CLGPU_ORDER_ROW_MAJOR, &staged[k]);
    num_staged++;
  }
  const clgpu_array *planned[MAX_ARRAYS];
  for (unsigned k = 0; k < kernel->num_arrays; k++) {
    planned[k] = temporaries[k] ? &staged[k] : views[k];
  }
  plan p;
  if (status == CLGPU_SUCCESS) status = plan_of(kernel, planned, &p);
  unsigned slots = kernel->num_arrays + (kernel->uses_index ? 1u : 0u);
  program_kind kind = KIND_CONTIGUOUS;
  clgpu_program *program = NULL;
  cl_kernel cl = NULL;
  unsigned tile = 0;
  if (status == CLGPU_SUCCESS) status = program_for(kernel, &p, slots, &kind, &tile, &program);
  if (status == CLGPU_SUCCESS) status = clgpu__kernel_acquire(program, "clgpu_elementwise", &cl);
  cl_ulong chunk = 1;
  size_t local = 1, global = 1;
  if (status == CLGPU_SUCCESS) {
    if (tile) {
      /* One work-item per group of bands of the last dimension, group of
       * rows of the tile dimension and index of the others (cl/
       * elementwise.cl's blocked walk), in groups of one (a CPU device). */
      blocked_share share = blocked_share_of(context, p.rank, p.shape, tile - 1);
      global = (size_t)share.items;
    } else if (kind == KIND_CONTIGUOUS) {
      status = contiguous_shape(context, cl, p.count, &local, &global);
    } else {
      status = strided_launch_shape(context, cl, p.count, &chunk, &local, &global);
    }
  }
  if (status == CLGPU_SUCCESS) status = set_arguments(kernel, cl, kind, &p, values, chunk);

  /* Enqueue: the temporaries' copies, then the kernel. */
  clgpu__chain chain;
  clgpu__chain_begin(&chain, num_events, wait_list);
  for (unsigned k = 0; k < kernel->num_arrays && status == CLGPU_SUCCESS; k++) {
    if (!temporaries[k]) continue;
    /* The engine's own copy: a fresh temporary never overlaps its source,
     * so the copy stages nothing itself. */
    cl_event made = NULL;
    status = clgpu__copy_elementwise(context, &staged[k], views[k], clgpu__chain_wait_count(&chain),
                                     clgpu__chain_wait_list(&chain), &made, run_name);
    if (status == CLGPU_SUCCESS) clgpu__chain_push(&chain, made);
  }
  if (status == CLGPU_SUCCESS) {
    status = clgpu__chain_kernel(context, &chain, cl, global, local,
                                 "clEnqueueNDRangeKernel(clgpu_elementwise)");
  }
  if (status == CLGPU_SUCCESS) {
    status = clgpu__chain_end(context, &chain, event);
  } else {
    clgpu__chain_abandon(&chain);
  }
  if (cl) {
    /* The arrays are arguments 0, 2, 4, ... (each followed by its offset). */
    uint64_t buffer_args = 0;
    for (unsigned k = 0; k < kernel->num_arrays; k++) buffer_args |= CLGPU__BUFFER_ARG(2 * k);
    clgpu__kernel_clear_buffers(cl, buffer_args);
    clgpu__kernel_release(program, cl);
  }
  for (unsigned k = 0; k < kernel->num_arrays; k++) {
    if (temporaries[k]) clgpu__buffer_release(context, temporaries[k]);
  }
  if (status == CLGPU_SUCCESS && num_staged) {
    pthread_mutex_lock(&kernel->lock);
    kernel->stats.staged_inputs += num_staged;
    pthread_mutex_unlock(&kernel->lock);
  }
  return status;
}

clgpu_status clgpu__elementwise_run(clgpu_elementwise *kernel,
                                    const clgpu_elementwise_value *values, cl_uint num_events,
                                    const cl_event *wait_list, cl_event *event) {
  CLGPU__FORWARD_IF_ERROR(check_values(kernel, values, num_events, wait_list));
  return clgpu__elementwise_enqueue(kernel, values, num_events, wait_list, event);
}

clgpu_status clgpu_elementwise_run(clgpu_elementwise *kernel, const clgpu_elementwise_value *values,
                                   cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  if (!kernel || !kernel->queue) {
    return clgpu__elementwise_run(kernel, values, num_events, wait_list, event);
  }
  /* Everything the run enqueues (the temporaries' copies too) goes to the
   * object's queue. */
  clgpu__queue_scope previous;
  clgpu__queue_use(kernel->context, kernel->queue, &previous);
  clgpu_status status = clgpu__elementwise_run(kernel, values, num_events, wait_list, event);
  clgpu__queue_leave(&previous);
  return status;
}

/* ---- the context's built-in kernels ---- */

/* Each is an elementwise kernel object the context makes on first use,
 * keyed by the operation and its types, and keeps until it is destroyed, so
 * the variant table of each serves every call. The engine owns them because
 * it stages its own overlapping inputs with the built-in copy. */
struct clgpu__builtin {
  char key[64];
  clgpu_elementwise *kernel;
  struct clgpu__builtin *next;
};

static void builtins_destroy(clgpu_context *context) {
  struct clgpu__builtin *entry = context->builtins;
  while (entry) {
    struct clgpu__builtin *next = entry->next;
    clgpu_elementwise_destroy(entry->kernel);
    free(entry);
    entry = next;
  }
  context->builtins = NULL;
}

clgpu_status clgpu__elementwise_builtin(clgpu_context *context, const char *key, size_t num_args,
                                        const clgpu_elementwise_arg *args, const char *operation,
                                        clgpu_elementwise **out) {
  CLGPU__RETURN_ERROR_IF(!context->builtins_lock_ready, CLGPU_INTERNAL_ERROR,
                         "the context's lock for built-in kernels could not be made");
  pthread_mutex_lock(&context->builtins_lock);
  struct clgpu__builtin *entry = context->builtins;
  while (entry && strcmp(entry->key, key) != 0) entry = entry->next;
  clgpu_status status = CLGPU_SUCCESS;
  if (!entry) {
    entry = calloc(1, sizeof *entry);
    if (!entry) {
      status = clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
    } else {
      /* A layout is specialised on its second use: a copy or fill that
       * runs once (a sort staging a strided view) builds nothing of its
       * own, and one that repeats gets its constants. */
      const clgpu_elementwise_options options = {.specialise_after = 2};
      status =
          clgpu_elementwise_create(context, operation, num_args, args, &options, &entry->kernel);
      if (status == CLGPU_SUCCESS) {
        clgpu__elementwise_owned_by_context(entry->kernel);
        snprintf(entry->key, sizeof entry->key, "%s", key);
        entry->next = context->builtins;
        context->builtins = entry;
        context->builtins_teardown = builtins_destroy;
      } else {
        free(entry);
        entry = NULL;
      }
    }
  }
  if (entry) *out = entry->kernel;
  pthread_mutex_unlock(&context->builtins_lock);
  return status;
}

clgpu_type clgpu__unsigned_clgpu_type(size_t size) {
  return size == 1   ? CLGPU_TYPE_UINT8
         : size == 2 ? CLGPU_TYPE_UINT16
         : size == 4 ? CLGPU_TYPE_UINT32
                     : CLGPU_TYPE_UINT64;
}

clgpu_status clgpu__bits_builtin(clgpu_context *context, const char *family, clgpu_type bits,
                                 clgpu_elementwise_kind kind, const char *name,
                                 const char *operation, clgpu_elementwise **out) {
  char key[64];
  snprintf(key, sizeof key, "%s:%s", family, clgpu__type_cl_name(bits));
  const clgpu_elementwise_arg args[] = {{"y", CLGPU_ARG_OUT, bits}, {name, kind, bits}};
  return clgpu__elementwise_builtin(context, key, 2, args, operation, out);
}

clgpu_status clgpu__copy_elementwise(clgpu_context *context, const clgpu_array *destination,
                                     const clgpu_array *source, cl_uint num_events,
                                     const cl_event *wait_list, cl_event *event, const char *who) {
  clgpu_type bits = clgpu__unsigned_clgpu_type(clgpu__type_size(destination->type));
  clgpu_array to, from;
  CLGPU__FORWARD_IF_ERROR(clgpu__array_reinterpret(destination, bits, &to));
  CLGPU__FORWARD_IF_ERROR(clgpu__array_reinterpret(source, bits, &from));
  clgpu_elementwise *kernel = NULL;
  CLGPU__FORWARD_IF_ERROR(
      clgpu__bits_builtin(context, "copy", bits, CLGPU_ARG_IN, "x", "y = x", &kernel));
  const clgpu_elementwise_value values[] = {{&to, NULL}, {&from, NULL}};
  /* Views the copy's caller checked or made: no check again. */
  clgpu_status status = clgpu__elementwise_enqueue(kernel, values, num_events, wait_list, event);
  if (status != CLGPU_SUCCESS) clgpu__append_error(" (in %s)", who);
  return status;
}
