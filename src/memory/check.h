/* The argument checks every entry point shares: a view argument, an output's
 * layout, a buffer's context and access flags, a wait list. Each names the
 * entry point (`who`) and the argument (`name`) in its message and changes
 * nothing. */
#ifndef CLGPU_SRC_CHECK_H
#define CLGPU_SRC_CHECK_H

#include <clgpu/array.h>
#include <clgpu/context.h>

/* A view argument: CLGPU_INVALID_ARGUMENT when NULL, else clgpu_array_check's
 * status with " (who: the name)" appended. */
clgpu_status clgpu__check_view(const clgpu_array *array, const char *who, const char *name);

/* Refuse an output view whose elements may land on one another (a stride 0
 * on a dimension longer than 1, or strides that do not step past each
 * other): CLGPU_INVALID_OUTPUT. */
clgpu_status clgpu__check_output_layout(const clgpu_array *array, const char *who,
                                        const char *name);

/* The buffer must belong to the context's cl_context (CLGPU_MISMATCHED_OBJECTS),
 * and allow writing (`written`: not CL_MEM_READ_ONLY, else
 * CLGPU_INVALID_OUTPUT) or reading (not CL_MEM_WRITE_ONLY, else
 * CLGPU_INVALID_ARGUMENT). */
clgpu_status clgpu__check_buffer(const clgpu_context *context, cl_mem buffer, const char *who,
                                 const char *name, int written);

/* A wait list must match its count (CLGPU_INVALID_ARGUMENT), hold no NULL
 * entry (CLGPU_CL_INVALID_EVENT_WAIT_LIST) and, when `context` is given,
 * only events of the context's cl_context (CLGPU_CL_INVALID_CONTEXT); the
 * message names `who` and the entry. The one check of every entry point. */
clgpu_status clgpu__check_wait_list(const clgpu_context *context, cl_uint num_events,
                                    const cl_event *wait_list, const char *who);

/* An array of indices (findall's indices, a sort permutation): uint or
 * ulong (CLGPU_TYPE_MISMATCH otherwise), ulong when it must count `n`
 * elements past UINT32_MAX. */
clgpu_status clgpu__check_index_type(clgpu_type type, uint64_t n, const char *who,
                                     const char *name);

/* Refuse an output that may share memory with another argument:
 * CLGPU_INVALID_OUTPUT, "who: the <output_name> may overlap the <name>". */
clgpu_status clgpu__check_apart(const clgpu_array *output, const clgpu_array *other,
                                const char *who, const char *output_name, const char *name);

/* A view argument that must be 1-D (sorts, gather): clgpu__check_view's
 * checks, then CLGPU_SHAPE_MISMATCH for another rank. */
clgpu_status clgpu__check_view_1d(const clgpu_array *array, const char *who, const char *name);

#endif
