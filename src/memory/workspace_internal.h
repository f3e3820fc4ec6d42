/* Workspaces (workspace.c): the report of what a call needs, built part by
 * part, and the scratch memory of one call. */
#ifndef CLGPU_SRC_WORKSPACE_INTERNAL_H
#define CLGPU_SRC_WORKSPACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/workspace.h>

#include "chain.h"

void clgpu__report_init(clgpu_workspace_size *report);
/* Add a part; returns its index. */
unsigned clgpu__report_part(clgpu_workspace_size *report, clgpu_operation operation,
                            clgpu_shape shape, clgpu_algorithm algorithm, int parent);
/* Add a buffer to a part; returns its index. */
unsigned clgpu__report_buffer(clgpu_workspace_size *report, unsigned part, const char *name,
                              clgpu_type type, uint64_t count);
/* Lay the buffers out, each at a multiple of the device's alignment.
 * CLGPU_SIZE_OVERFLOW, naming `who` and the buffer, when a buffer's bytes,
 * its offset or the total do not fit in 64 bits (the report is then not to
 * be used). */
clgpu_status clgpu__report_finish(clgpu_workspace_size *report, const clgpu_context *context,
                                  const char *who);

/* The scratch memory of one call: the caller's workspace, checked against
 * what the call needs, or a temporary buffer. */
typedef struct clgpu__scratch {
  clgpu_workspace *workspace;  /* the caller's, or NULL */
  cl_mem buffer;               /* NULL when nothing is needed */
  size_t base;                 /* byte offset of the workspace in buffer */
  clgpu_workspace_size layout; /* offsets used (the workspace's own when given) */
  cl_mem temporary;            /* what to give back, or NULL */
} clgpu__scratch;

/* An argument of the call, for the overlap check. */
typedef struct clgpu__argument {
  const clgpu_array *array; /* NULL entries are skipped */
  const char *name;
} clgpu__argument;

/* The report the last call on this thread planned (recorded when it reached
 * its workspace), or NULL after clgpu__forget_last_call_report; for tests. */
const clgpu_workspace_size *clgpu__last_call_report(void);
void clgpu__forget_last_call_report(void);
clgpu_status clgpu__scratch_acquire(clgpu_context *context, const clgpu_workspace_size *needed,
                                    clgpu_workspace *workspace, const clgpu__argument *arguments,
                                    size_t num_arguments, const char *who, clgpu__scratch *out);
/* Buffer `index` of the layout: its cl_mem and its byte offset there. */
void clgpu__scratch_slot(const clgpu__scratch *scratch, unsigned index, cl_mem *buffer,
                         size_t *byte_offset);
void clgpu__scratch_release(clgpu_context *context, clgpu__scratch *scratch);

/* A call's order against the last call that used the caller's workspace
 * (none without one): unless that call ran on this call's queue, in order,
 * the chain's first command waits for a marker enqueued on that call's
 * queue. Right after clgpu__scratch_acquire and clgpu__chain_begin, before
 * any command. */
clgpu_status clgpu__scratch_order(const clgpu_context *context, const clgpu__scratch *scratch,
                                  clgpu__chain *chain);
/* This call's queue as the workspace's last user's, when the chain
 * enqueued anything. Before the chain's end or abandon (a failed call's
 * commands still run). */
void clgpu__scratch_record(const clgpu_context *context, const clgpu__scratch *scratch,
                           const clgpu__chain *chain);

#endif
