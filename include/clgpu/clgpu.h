/** @file
 * clgpu: vendor-neutral OpenCL sort, scan, reduction and stream compaction.
 * Including this header includes every public header of the library.
 *
 * Rules shared by every call that takes an event wait list
 * (`num_events`, `wait_list`): `wait_list` is NULL exactly when
 * `num_events` is 0 (CLGPU_INVALID_ARGUMENT otherwise); no entry may be
 * NULL (CLGPU_CL_INVALID_EVENT_WAIT_LIST); every entry must be an event of
 * the context's own cl_context (CLGPU_CL_INVALID_CONTEXT), since a
 * dependency OpenCL would drop or refuse later is a race. Each entry is
 * checked before anything is enqueued, with a message naming the entry's
 * index; the library neither retains nor releases the caller's events. An
 * entry that is not an event at all (a dangling or made-up handle) cannot
 * be detected reliably and is undefined behaviour, as in OpenCL.
 *
 * Each header opens with an overview and an example program; docs/ holds
 * the background: expressions.md (the rules for OpenCL C expressions),
 * lifetimes.md, workspaces.md, copy.md, reduce.md, sort.md,
 * elementwise.md, membuf.md, program-cache.md (with prebuilding) and
 * quirks.md. */
#ifndef CLGPU_H
#define CLGPU_H

#include <clgpu/api.h>
#include <clgpu/version.h>
#include <clgpu/status.h>
#include <clgpu/context.h>
#include <clgpu/program.h>
#include <clgpu/array.h>
#include <clgpu/alloc.h>
#include <clgpu/copy.h>
#include <clgpu/workspace.h>
#include <clgpu/reduce.h>
#include <clgpu/scan.h>
#include <clgpu/findall.h>
#include <clgpu/sort.h>
#include <clgpu/search.h>
#include <clgpu/runs.h>
#include <clgpu/histogram.h>
#include <clgpu/partition.h>
#include <clgpu/elementwise.h>
#include <clgpu/membuf.h>
#include <clgpu/prebuild.h>

#endif
