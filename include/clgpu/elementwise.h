/* Elementwise kernels over array views of any layout, and the built-in
 * elementwise operations made with them (type conversion, a*x + b*y,
 * comparisons into a mask, index sequences).
 *
 * An elementwise kernel is made once from a list of arguments and an
 * operation in OpenCL C, and run many times:
 *
 *   clgpu_elementwise_arg args[] = {
 *       {"y", CLGPU_OUT, CLGPU_FLOAT}, {"a", CLGPU_SCALAR, CLGPU_FLOAT},
 *       {"x", CLGPU_IN, CLGPU_FLOAT}, {"z", CLGPU_IN, CLGPU_FLOAT}};
 *   clgpu_elementwise *k;
 *   clgpu_elementwise_create(context, 4, args, "y = a * x + sin(z)", NULL, &k);
 *   clgpu_elementwise_value values[] = {
 *       {&y_view, NULL}, {NULL, &a}, {&x_view, NULL}, {&z_view, NULL}};
 *   clgpu_elementwise_run(k, values, 0, NULL, NULL);
 *
 * The operation. OpenCL C statements (one or several, comments and line
 * breaks allowed; see the rules for the text below) run once per element. Each array argument is a local
 * variable named as declared, holding the current element: an input's
 * variable holds its element, an output's starts at 0 and is stored after
 * the operation, an in-out's holds its element and is stored back. The
 * variable of a half array is a float (half is read with vload_half and
 * written with vstore_half_rte, so half arrays need no cl_khr_fp16). Scalars
 * are variables of their type. `i` (ulong) is the element's index in
 * row-major order over the call's shape, so "y = (float)i" writes 0, 1, 2,
 * ... whatever the layout of y. A preamble (clgpu_elementwise_options)
 * goes before the kernel: helper functions, types, pragmas.
 *
 * Rules for the text, checked at create so that a kernel object works on
 * every layout or on none: in the operation and the preamble, brackets (),
 * [] and {} are balanced and properly nested (at most 256 deep), comments
 * and character and string literals are closed, the only preprocessor
 * lines are #pragma lines (no #include, #define or #if), there is no
 * trigraph, no digraph and no backslash at the end of a line, and no
 * identifier starts with clgpu_ or CLGPU_ (the library's). The operation
 * may not use `return` (on some layouts it runs inside the kernel's loop
 * over elements, where return would end more than one element); `break`
 * and `continue` outside a loop of its own end the operation for the
 * element, whose outputs are still stored. Line breaks are whitespace. The
 * operation may be at most 65536 bytes, the preamble 1048576 bytes
 * (CLGPU_EXPRESSION_TOO_LONG above that).
 *
 * Layouts. Every array argument of a call has the same shape (broadcast
 * with clgpu_array_broadcast first: a stride-0 input is fine); each may have
 * any strides, negative and zero included, and arrays of different layouts
 * mix in one call (row-major, column-major, reversed, sliced). The order in
 * which elements are visited is unspecified; an operation must not depend
 * on it (it sees `i`, not the order).
 *
 * Specialisation. A kernel object builds nothing when it is made: the
 * program is generated and built at the call, when the layouts are known,
 * and kept in the context's program cache (and the disk cache, when on).
 * At each call the dimensions of extent 1 are dropped, the rest ordered by
 * the first output's strides (largest first), reversed where every array
 * runs backwards, and neighbouring dimensions merged where every array (and
 * `i`, when the operation uses it) is contiguous across them. Then:
 * - every array contiguous, with matching layouts: the plain 1-D kernel,
 *   `x = x_base[offset + gid]`, with no index arithmetic at all. One program
 *   per kernel object serves every size and offset.
 * - otherwise a kernel specialised for the layout: the rank, the inner
 *   extents and every stride are -D definitions, so the compiler sees
 *   constants. Each work-item decodes its first index once and then steps
 *   along the rows; there is no division or modulo in the per-element loop.
 *   Offsets and the outermost extent are run-time arguments, so views that
 *   differ only in where they start or in their number of rows share one
 *   program. On CPU devices, a layout of rank 2 or more and at least 4096
 *   elements in which an array is fastest along another dimension than the
 *   outputs (a transposed input) is walked in 64 x 64 squares of those two
 *   dimensions instead, so that both stay in the cache; every extent is
 *   then a constant of the program.
 * - the generic kernel: the same loop with every extent and stride a
 *   run-time argument (one program for every layout). It serves layouts the
 *   variant table has no room for.
 * The variant table holds up to `variant_cap` specialised layouts (default
 * 16), most recently used first. A new layout is specialised while the
 * table has room. When it is full, a new layout runs the generic kernel; it
 * is remembered among as many candidates, and once a candidate has run
 * `promote_after` times (default 4) it takes the slot of the least recently
 * used layout and is specialised. So a working set of up to variant_cap
 * layouts runs specialised, a stream of ever-new layouts builds at most
 * variant_cap specialised programs, and a changed working set is specialised
 * again after a few calls. With `specialise_after` above 1 a new layout
 * runs the generic kernel that many times less one before it is specialised
 * even while the table has room, so that a layout used once builds no
 * program of its own (the built-in operations, clgpu_copy's included, use
 * 2). clgpu_elementwise_stats shows what happened.
 *
 * Overlap. Outputs (CLGPU_OUT and CLGPU_INOUT) must not share a byte with
 * each other (clgpu_may_alias), nor with themselves (the rules of
 * clgpu_copy: no stride 0 on a dimension longer than 1, strides that step
 * past each other). An input that may alias an output and is not exactly
 * the same view (clgpu_array_same) is first copied to a temporary (through
 * clgpu_buffer_create, so an allocation-cache scope serves it), so
 * `x[1:] = x[:-1] + 1` gives what it gives with a fresh buffer. An input
 * that is exactly an output's view is read in place.
 *
 * Asynchronous: a run enqueues its commands (the temporaries' copies, then
 * the kernel) on the context's queue behind the wait list and returns; the
 * caller's event, when asked for, completes with the kernel. Nothing
 * blocks. Scalars are captured at the call.
 *
 * Threads: a kernel object may be run from several threads at once (its
 * variant table is locked); it must not be destroyed while a run is in
 * progress. It holds no OpenCL object of its own. It holds a reference to
 * its context until it is destroyed, so the context may be destroyed first
 * (context.h, "Lifetimes"): the kernel object keeps running on it. */
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

/* What an argument is. */
typedef enum clgpu_elementwise_kind {
  CLGPU_IN = 1, /* an array that is read */
  CLGPU_OUT,    /* an array that is written (its variable starts at 0) */
  CLGPU_INOUT,  /* an array that is read and written back */
  CLGPU_SCALAR, /* one value of the type, the same for every element */
} clgpu_elementwise_kind;

/* The most arguments a kernel takes, and the most of them that are arrays
 * (what fits OpenCL's smallest guaranteed parameter space with the generic
 * kernel's strides). */
#define CLGPU_ELEMENTWISE_MAX_ARGS 16
#define CLGPU_ELEMENTWISE_MAX_ARRAYS 10

/* One argument: its name, its kind and its element type. The name becomes
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
  const char *preamble;   /* OpenCL C placed before the kernel; NULL for none */
  unsigned variant_cap;   /* specialised layouts held; 0: 16; at most 256 */
  unsigned promote_after; /* runs of a candidate layout before it is specialised; 0: 4 */
  /* Runs of a new layout before it is specialised while the table has
   * room (the runs before it use the generic kernel); 0: 1, at once. */
  unsigned specialise_after;
} clgpu_elementwise_options;

typedef struct clgpu_elementwise clgpu_elementwise;

/* Make a kernel object. The arguments, operation and preamble are copied.
 * At least one argument must be an output (CLGPU_OUT or CLGPU_INOUT).
 * Nothing is compiled here, so a mistake in the operation shows at the
 * first run (CL_BUILD_PROGRAM_FAILURE, with the compiler's log in
 * clgpu_last_error(); errors in the operation are reported at lines of
 * "operation", errors in the preamble at lines of "preamble").
 * Errors: CLGPU_INVALID_ARGUMENT (NULL arguments, no output, too many
 * arguments or arrays, a name that is not an identifier, reserved (see
 * clgpu_elementwise_arg) or repeated, an unknown kind or type, a half
 * scalar, an empty operation, an operation or preamble that breaks the
 * rules for the text above, a variant_cap above 256; the message names the
 * argument, and for a text the byte offset and what is there),
 * CLGPU_EXPRESSION_TOO_LONG (an operation over 65536 bytes or a preamble
 * over 1048576), CLGPU_UNSUPPORTED_FEATURE (a double argument on a device
 * without cl_khr_fp64), CLGPU_CL_OUT_OF_HOST_MEMORY. On failure *out is
 * NULL. */
CLGPU_API clgpu_status clgpu_elementwise_create(clgpu_context *context, size_t num_args,
                                                const clgpu_elementwise_arg *args,
                                                const char *operation,
                                                const clgpu_elementwise_options *options,
                                                clgpu_elementwise **out);

/* Free a kernel object (NULL does nothing) and drop its reference to its
 * context (which frees a context destroyed before). Its programs stay in
 * the context's program cache while the context lives. */
CLGPU_API void clgpu_elementwise_destroy(clgpu_elementwise *kernel);

/* The value of one argument at a run: `array` for an array argument (and
 * `scalar` NULL), `scalar` for a scalar argument, pointing to a value of its
 * declared type (and `array` NULL). */
typedef struct clgpu_elementwise_value {
  const clgpu_array *array;
  const void *scalar;
} clgpu_elementwise_value;

/* Run the kernel over `values` (one per declared argument, in order).
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
 * enqueued leaves that copy enqueued (it writes only the temporary). An
 * empty shape enqueues nothing (a marker when an event is wanted). */
CLGPU_API clgpu_status clgpu_elementwise_run(clgpu_elementwise *kernel,
                                             const clgpu_elementwise_value *values,
                                             cl_uint num_events, const cl_event *wait_list,
                                             cl_event *event);

/* What a kernel object has done since it was made. */
typedef struct clgpu_elementwise_stats {
  uint64_t contiguous_runs;  /* runs of the plain 1-D kernel */
  uint64_t specialised_runs; /* runs of a specialised kernel */
  uint64_t generic_runs;     /* runs of the generic kernel */
  uint64_t empty_runs;       /* runs with no elements (nothing enqueued) */
  uint64_t specialisations;  /* layouts put in the variant table (each one program) */
  uint64_t evictions;        /* layouts taken out of the table for a promoted one */
  uint64_t staged_inputs;    /* inputs copied to a temporary because of overlap */
  unsigned variants_held;    /* layouts in the table now */
} clgpu_elementwise_stats;

/* Errors: CLGPU_INVALID_ARGUMENT. */
CLGPU_API clgpu_status clgpu_elementwise_get_stats(clgpu_elementwise *kernel,
                                                   clgpu_elementwise_stats *stats);

/* ---- built-in elementwise operations ----
 *
 * Each runs an elementwise kernel that the context makes on first use and
 * keeps until it is destroyed (one per operation and types), so they have
 * the layout rules, overlap rules, specialisation and errors of
 * clgpu_elementwise_run, and are asynchronous in the same way. Arrays of a
 * call have one shape. */

/* destination = source converted to the destination's type, any two types.
 * Integer to integer keeps the low bits (C's conversion for unsigned
 * targets, the same two's complement rule for signed ones); float to
 * integer rounds toward zero and saturates (NaN gives 0); to a float type
 * rounds to nearest even. With equal types it is a copy. */
CLGPU_API clgpu_status clgpu_convert(clgpu_context *context, const clgpu_array *destination,
                                     const clgpu_array *source, cl_uint num_events,
                                     const cl_event *wait_list, cl_event *event);

/* out = alpha * x + beta * y, in the arrays' type (all three the same; half
 * computes in float). alpha and beta point to values of that type (float
 * for half). Integer arithmetic wraps (unsigned) as OpenCL C's does. out may
 * be exactly x or y (in place). */
CLGPU_API clgpu_status clgpu_axpby(clgpu_context *context, const clgpu_array *out,
                                   const void *alpha, const clgpu_array *x, const void *beta,
                                   const clgpu_array *y, cl_uint num_events,
                                   const cl_event *wait_list, cl_event *event);

typedef enum clgpu_comparison {
  CLGPU_LESS = 1,
  CLGPU_LESS_EQUAL,
  CLGPU_EQUAL,
  CLGPU_NOT_EQUAL,
  CLGPU_GREATER,
  CLGPU_GREATER_EQUAL,
} clgpu_comparison;

/* mask = (x OP y) ? 1 : 0, mask a CLGPU_UINT8 array, x and y of one type
 * (broadcast y to compare with one value). Comparisons with NaN follow IEEE
 * (only NOT_EQUAL is true). */
CLGPU_API clgpu_status clgpu_compare(clgpu_context *context, const clgpu_array *mask,
                                     const clgpu_array *x, clgpu_comparison comparison,
                                     const clgpu_array *y, cl_uint num_events,
                                     const cl_event *wait_list, cl_event *event);

/* out[index] = start + i * step, where i is the row-major index of the
 * element, computed in out's type (a float type converts i first; half
 * computes in float: start and step point to floats for half). */
CLGPU_API clgpu_status clgpu_iota(clgpu_context *context, const clgpu_array *out,
                                  const void *start, const void *step, cl_uint num_events,
                                  const cl_event *wait_list, cl_event *event);

#ifdef __cplusplus
}
#endif

#endif
