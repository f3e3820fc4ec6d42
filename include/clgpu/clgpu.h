/* clgpu: vendor-neutral OpenCL sort, scan, reduction and stream compaction.
 * Including this header includes every public header of the library. */
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
#include <clgpu/elementwise.h>
#include <clgpu/membuf.h>

#endif
