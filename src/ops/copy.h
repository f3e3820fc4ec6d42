/* Copying views inside the library (copy.c). */
#ifndef CLGPU_SRC_COPY_H
#define CLGPU_SRC_COPY_H

#include <clgpu/array.h>
#include <clgpu/context.h>

#include "chain.h"

/* Copy views as the chain's next command: an operation's own staging, over
 * views it made or checked, so no argument is checked again; a failure
 * names `who`, the operation that staged. */
clgpu_status clgpu__chain_copy(clgpu_context *context, clgpu__chain *chain,
                               const clgpu_array *destination, const clgpu_array *source,
                               const char *who);

/* Internal twins of public functions (the public one is a wrapper): the
 * library calls these, never its own public entry points. */
clgpu_status clgpu__copy(clgpu_context *context, const clgpu_array *destination,
                         const clgpu_array *source, cl_uint num_events, const cl_event *wait_list,
                         cl_event *event);

#endif
