/** @file
 * Export macro and the OpenCL header every public header needs. */
#ifndef CLGPU_API_H
#define CLGPU_API_H

/* clgpu's kernels are OpenCL C 1.2 and its host code uses the OpenCL 1.2 API.
 * A caller who needs a later API defines CL_TARGET_OPENCL_VERSION before
 * including any clgpu header; clgpu works with either. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#if defined(_WIN32) && defined(CLGPU_BUILDING_SHARED)
#define CLGPU_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define CLGPU_API __attribute__((visibility("default")))
#else
#define CLGPU_API
#endif

#endif
