/** @file
 * Elementwise kernels over array views of any layout, and the built-in
 * elementwise operations made with them (type conversion, a*x + b*y,
 * comparisons into a mask, index sequences).
 *
 * Key concepts:
 * - A kernel object is made once (clgpu_elementwise_create) from a list of
 *   arguments and an operation in OpenCL C, and run many times
 *   (clgpu_elementwise_run). In the operation each array argument is a
 *   variable holding the current element, each scalar a variable of its type,
 *   and `i` the element's row-major index.
 * - Every array of a call has one shape but any strides; the program is built
 *   at the first call with a layout, specialised for it and kept in the
 *   context's program cache (a bounded table of layouts per kernel object).
 * - Outputs must not overlap each other or themselves; an input that
 *   overlaps an output is copied to a temporary first.
 * - Runs only enqueue, behind the wait list, on the context's queue or the
 *   queue named in the object's options; scalars are captured at the call.
 * - Threads: a kernel object may be run from several threads at once (its
 *   variant table is locked); it must not be destroyed while a run is in
 *   progress. It holds a reference to its context until destroyed
 *   (docs/lifetimes.md).
 * docs/elementwise.md has the details: the rules for the texts, layouts,
 * specialisation and the variant table, and overlap.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     clgpu_elementwise_arg args[] = {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_FLOAT},
 *                                     {"a", CLGPU_ARG_SCALAR, CLGPU_TYPE_FLOAT},
 *                                     {"x", CLGPU_ARG_IN, CLGPU_TYPE_FLOAT}};
 *     float a = 2.0f;
 *     clgpu_context *context = NULL;
 *     clgpu_elementwise *kernel = NULL;
 *     cl_mem x_buffer = NULL, y_buffer = NULL;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_elementwise_create(context, "y = a * x + sin(x)", 3, args, NULL, &kernel);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, 1000 * sizeof(float), &x_buffer);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, 1000 * sizeof(float), &y_buffer);
 *     clgpu_array x = clgpu_array_of(x_buffer, CLGPU_TYPE_FLOAT, 1000); // checked at use
 *     clgpu_array y = clgpu_array_of(y_buffer, CLGPU_TYPE_FLOAT, 1000);
 *     if (status == CLGPU_SUCCESS) {
 *       float start = 0.0f, step = 0.001f;
 *       status = clgpu_iota(context, &x, &start, &step, 0, NULL, NULL);
 *     }
 *     if (status == CLGPU_SUCCESS) {
 *       clgpu_elementwise_value values[] = {{.array = &y}, {.scalar = &a}, {.array = &x}};
 *       status = clgpu_elementwise_run(kernel, values, 0, NULL, NULL);
 *     }
 *     if (status == CLGPU_SUCCESS) status = clFinish(clgpu_context_queue(context));
 *     if (status != CLGPU_SUCCESS)
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     clgpu_buffer_release(context, y_buffer);
 *     clgpu_buffer_release(context, x_buffer);
 *     clgpu_elementwise_destroy(kernel);
 *     clgpu_context_destroy(context);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_ELEMENTWISE_H
#define CLGPU_ELEMENTWISE_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/api.h>
#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What an argument is. */
typedef enum clgpu_elementwise_kind {
  CLGPU_ARG_IN = 1, /**< an array that is read */
  CLGPU_ARG_OUT,    /**< an array that is written (its variable starts at 0) */
  CLGPU_ARG_INOUT,  /**< an array that is read and written back */
  CLGPU_ARG_SCALAR, /**< one value of the type, the same for every element */
} clgpu_elementwise_kind;

/** The most arguments a kernel takes, and the most of them that are arrays
 * (what fits OpenCL's smallest guaranteed parameter space with the generic
 * kernel's strides). */
#define CLGPU_ELEMENTWISE_MAX_ARGS 16
#define CLGPU_ELEMENTWISE_MAX_ARRAYS 10

/** One argument: its name, its kind and its element type. The name becomes
 * a variable of the kernel, so it must be an OpenCL C identifier of at most
 * 63 characters that no name the kernel needs takes: not `i`; not an
 * OpenCL C keyword, qualifier or scalar, vector or opaque type name (int,
 * kernel, global, half, float4, uchar16, double8, size_t, image2d_t, ...);
 * not a built-in function (min, max, clamp, fabs, dot, select,
 * get_global_id, barrier, printf, ..., and the families convert_*, as_*,
 * vload*, vstore*, native_*, half_*, atomic_*, atom_*, work_group_*,
 * sub_group_*, read_image*, write_image*, get_image_*) or a macro of the
 * OpenCL C specification (INT_MAX, MAXFLOAT, INFINITY, NAN, and the
 * prefixes FLT_, DBL_, HALF_, M_, CL_, CLK_); not starting with "__", with
 * '_' and a capital letter, or with clgpu_ or CLGPU_. Names close to these
 * (minimum, x_max, kernel2) are fine. Half scalars are refused (declare
 * them float); double needs cl_khr_fp64. */
typedef struct clgpu_elementwise_arg {
  const char *name;
  clgpu_elementwise_kind kind;
  clgpu_type type;
} clgpu_elementwise_arg;

typedef struct clgpu_elementwise_options {
  const char *preamble;   /**< OpenCL C placed before the kernel; NULL for none */
  unsigned variant_cap;   /**< specialised layouts held; 0: 16; at most 256 */
  unsigned promote_after; /**< runs of a candidate layout before it is specialised; 0: 4 */
  /** Runs of a new layout before it is specialised while the table has
   * room (the runs before it use the generic kernel); 0: 1, at once. */
  unsigned specialise_after;
  /** The queue every run of the object enqueues on (its temporaries'
   * copies too); NULL: the context's. It must be a queue of the context's
   * OpenCL context and device (checked here, docs/queues.md); the object
   * retains it until clgpu_elementwise_destroy. */
  cl_command_queue queue;
  uint64_t reserved[CLGPU_OPTIONS_RESERVED]; /**< must be zero */
} clgpu_elementwise_options;

typedef struct clgpu_elementwise clgpu_elementwise;

/** Make a kernel object for `num_args` arguments and an operation, written
 * to *out. The arguments, operation and preamble are copied. At least one
 * argument must be an output (CLGPU_ARG_OUT or CLGPU_ARG_INOUT). Nothing is compiled
 * here, so a mistake in the operation shows at the first run
 * (CL_BUILD_PROGRAM_FAILURE, with the compiler's log in clgpu_last_error();
 * errors in the operation are reported at lines of "operation", errors in
 * the preamble at lines of "preamble"). The object holds a reference to the
 * context until clgpu_elementwise_destroy.
 * Errors: CLGPU_INVALID_ARGUMENT (NULL arguments, no output, too many
 * arguments or arrays, a name that is not an identifier, reserved (see
 * clgpu_elementwise_arg) or repeated, an unknown kind or type, a half scalar,
 * an empty operation, an operation or preamble that breaks the rules of
 * docs/elementwise.md, a variant_cap above 256; the message names the
 * argument, and for a text the byte offset and what is there),
 * CLGPU_EXPRESSION_TOO_LONG (an operation over 65536 bytes or a preamble
 * over 1048576), CLGPU_TYPE_MISMATCH (an argument of CLGPU_TYPE_OPAQUE,
 * which has no arithmetic), CLGPU_UNSUPPORTED_FEATURE (a double argument on
 * a device without cl_khr_fp64), CLGPU_CL_OUT_OF_HOST_MEMORY. On failure
 * *out is NULL. */
CLGPU_API clgpu_status clgpu_elementwise_create(clgpu_context *context, const char *operation,
                                                size_t num_args, const clgpu_elementwise_arg *args,
                                                const clgpu_elementwise_options *options,
                                                clgpu_elementwise **out);

/** Free a kernel object (NULL does nothing) and drop its reference to its
 * context (which frees a context destroyed before). Its programs stay in
 * the context's program cache while the context lives. */
CLGPU_API void clgpu_elementwise_destroy(clgpu_elementwise *kernel);

/** The value of one argument at a run: `array` for an array argument (and
 * `scalar` NULL), `scalar` for a scalar argument, pointing to a value of its
 * declared type (and `array` NULL). */
typedef struct clgpu_elementwise_value {
  const clgpu_array *array;
  const void *scalar;
} clgpu_elementwise_value;

/** Run the kernel over `values` (one per declared argument, in order): every
 * array of one shape, any strides. A run may first build a program
 * (on the calling thread, see docs/elementwise.md). Only enqueues: the
 * temporaries' copies, then the kernel, behind the wait list; `event` (if
 * not NULL) completes with the kernel. An empty shape enqueues nothing (a
 * marker when an event is wanted). Scalars are read at the call.
 * Errors, with nothing enqueued and no event made: CLGPU_INVALID_ARGUMENT
 * (NULL kernel or values, an array missing or given for a scalar and the
 * other way round, a wait list that does not match num_events, an input in
 * a CL_MEM_WRITE_ONLY buffer), CLGPU_SHAPE_MISMATCH (arrays of different
 * shapes; the message names both), CLGPU_TYPE_MISMATCH (an array whose type
 * is not the declared one), CLGPU_INVALID_OUTPUT (an output with stride 0,
 * self-overlapping, overlapping another output, or in a CL_MEM_READ_ONLY
 * buffer), CLGPU_MISMATCHED_OBJECTS (a buffer of another cl_context), the
 * errors of clgpu_array_check, and of building the program. OpenCL's codes
 * from enqueueing: a failure at the kernel after a temporary's copy was
 * enqueued leaves that copy enqueued (it writes only the temporary). */
CLGPU_API clgpu_status clgpu_elementwise_run(clgpu_elementwise *kernel,
                                             const clgpu_elementwise_value *values,
                                             cl_uint num_events, const cl_event *wait_list,
                                             cl_event *event);

/** What a kernel object has done since it was made. */
typedef struct clgpu_elementwise_stats {
  uint64_t contiguous_runs;  /**< runs of the plain 1-D kernel */
  uint64_t specialised_runs; /**< runs of a specialised kernel */
  uint64_t generic_runs;     /**< runs of the generic kernel */
  uint64_t empty_runs;       /**< runs with no elements (nothing enqueued) */
  uint64_t specialisations;  /**< layouts put in the variant table (each one program) */
  uint64_t evictions;        /**< layouts taken out of the table for a promoted one */
  uint64_t staged_inputs;    /**< inputs copied to a temporary because of overlap */
  unsigned variants_held;    /**< layouts in the table now */
} clgpu_elementwise_stats;

/** Copy the counters of a kernel object into *stats (see
 * clgpu_elementwise_stats). Safe while other threads run the object.
 * Errors: CLGPU_INVALID_ARGUMENT (NULL kernel or stats). */
CLGPU_API clgpu_status clgpu_elementwise_get_stats(clgpu_elementwise *kernel,
                                                   clgpu_elementwise_stats *stats);

/* ---- built-in elementwise operations ----
 *
 * Each runs an elementwise kernel that the context makes on first use and
 * keeps until it is destroyed (one per operation and types), so they have
 * the layout rules, overlap rules, specialisation and errors of
 * clgpu_elementwise_run, and are asynchronous in the same way. Arrays of a
 * call have one shape. */

/** destination = source converted to the destination's type, any two types.
 * Integer to integer keeps the low bits (C's conversion for unsigned
 * targets, the same two's complement rule for signed ones); float to integer
 * rounds toward zero and saturates (NaN gives 0); to a float type rounds to
 * nearest even. With equal types it is clgpu_copy. Only enqueues.
 * Errors: CLGPU_INVALID_ARGUMENT (NULL context or arrays, an unknown element
 * type), and those of clgpu_elementwise_run (clgpu_copy's for equal
 * types). */
CLGPU_API clgpu_status clgpu_convert(clgpu_context *context, const clgpu_array *destination,
                                     const clgpu_array *source, cl_uint num_events,
                                     const cl_event *wait_list, cl_event *event);

/** out = alpha * x + beta * y, in the arrays' type (all three the same; half
 * computes in float). alpha and beta point to values of that type (float for
 * half), read at the call. Integer arithmetic wraps (unsigned) as OpenCL C's
 * does. out may be exactly x or y (in place). Only enqueues.
 * Errors: CLGPU_INVALID_ARGUMENT (a NULL argument, an unknown element type),
 * CLGPU_TYPE_MISMATCH (x or y of another type than out), and those of
 * clgpu_elementwise_run. */
CLGPU_API clgpu_status clgpu_axpby(clgpu_context *context, const clgpu_array *out,
                                   const void *alpha, const clgpu_array *x, const void *beta,
                                   const clgpu_array *y, cl_uint num_events,
                                   const cl_event *wait_list, cl_event *event);

typedef enum clgpu_comparison {
  CLGPU_COMPARE_LESS = 1,
  CLGPU_COMPARE_LESS_EQUAL,
  CLGPU_COMPARE_EQUAL,
  CLGPU_COMPARE_NOT_EQUAL,
  CLGPU_COMPARE_GREATER,
  CLGPU_COMPARE_GREATER_EQUAL,
} clgpu_comparison;

/** mask = (x OP y) ? 1 : 0, mask a CLGPU_TYPE_UINT8 array, x and y of one type
 * (broadcast y to compare with one value). Comparisons with NaN follow IEEE
 * (only NOT_EQUAL is true). Only enqueues.
 * Errors: CLGPU_INVALID_ARGUMENT (a NULL argument, an unknown comparison or
 * element type), CLGPU_TYPE_MISMATCH (a mask that is not CLGPU_TYPE_UINT8, x and
 * y of different types), and those of clgpu_elementwise_run. */
CLGPU_API clgpu_status clgpu_compare(clgpu_context *context, clgpu_comparison comparison,
                                     const clgpu_array *mask, const clgpu_array *x,
                                     const clgpu_array *y, cl_uint num_events,
                                     const cl_event *wait_list, cl_event *event);

/** out[index] = start + i * step, where i is the row-major index of the
 * element, computed in out's type (a float type converts i first; half
 * computes in float: start and step point to floats for half). The values
 * are read at the call. Only enqueues.
 * Errors: CLGPU_INVALID_ARGUMENT (a NULL argument, an unknown element type),
 * and those of clgpu_elementwise_run. */
CLGPU_API clgpu_status clgpu_iota(clgpu_context *context, const clgpu_array *out,
                                  const void *start, const void *step, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event);

#ifdef __cplusplus
}
#endif

#endif
