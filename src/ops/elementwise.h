/* The elementwise engine's internal interface (elementwise.c): running a
 * kernel object without its argument checks, the context's built-in
 * kernels, and the any-layout copy they give. */
#ifndef CLGPU_SRC_ELEMENTWISE_H
#define CLGPU_SRC_ELEMENTWISE_H

#include <stddef.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/elementwise.h>

/* clgpu_elementwise_run with the checks (the twin the library calls). */
clgpu_status clgpu__elementwise_run(clgpu_elementwise *kernel,
                                    const clgpu_elementwise_value *values, cl_uint num_events,
                                    const cl_event *wait_list, cl_event *event);

/* clgpu_elementwise_run without its argument checks: for values the caller
 * checked or made. Inputs that overlap an output are still staged. */
clgpu_status clgpu__elementwise_enqueue(clgpu_elementwise *kernel,
                                        const clgpu_elementwise_value *values, cl_uint num_events,
                                        const cl_event *wait_list, cl_event *event);

/* The context's built-in kernel for `key` (an operation and its types),
 * made from the declaration on first use and kept until the context goes. */
clgpu_status clgpu__elementwise_builtin(clgpu_context *context, const char *key, size_t num_args,
                                        const clgpu_elementwise_arg *args, const char *operation,
                                        clgpu_elementwise **out);

/* The built-in kernel over the bits of a type (`bits`: an unsigned type of
 * its size) that writes output "y" from one more argument of `kind` named
 * `name`, by `operation`; kept under the key "family:type". */
clgpu_status clgpu__bits_builtin(clgpu_context *context, const char *family, clgpu_type bits,
                                 clgpu_elementwise_kind kind, const char *name,
                                 const char *operation, clgpu_elementwise **out);

/* CLGPU_TYPE_UINT8, _UINT16, _UINT32 or _UINT64 for an element of `size` bytes. */
clgpu_type clgpu__unsigned_clgpu_type(size_t size);

/* Copy views of one shape and type with the built-in copy (y = x over the
 * views seen as unsigned integers of their element size): any layout, a
 * temporary when they may overlap. The caller has checked the views (or made
 * them); a failure names `who`. */
clgpu_status clgpu__copy_elementwise(clgpu_context *context, const clgpu_array *destination,
                                     const clgpu_array *source, cl_uint num_events,
                                     const cl_event *wait_list, cl_event *event, const char *who);

/* Mark a kernel object as the context's own: it holds no reference on the
 * context (which owns it). */
void clgpu__elementwise_owned_by_context(clgpu_elementwise *kernel);

#endif
