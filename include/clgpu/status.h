/** @file
 * Status codes, their names and descriptions, the per-thread detail message
 * of the last failure, and the library's version.
 *
 * Every clgpu function that can fail returns a clgpu_status; 0 is success.
 * OpenCL's own error codes pass through unchanged (CLGPU_CL_INVALID_VALUE ==
 * CL_INVALID_VALUE, and so on), so a status can be compared with either name.
 * clgpu's own codes live in a band of their own, -2001 and below, explicitly
 * numbered and never renumbered; the band stays clear of the codes that
 * OpenCL extensions use (-1000 to -1200).
 *
 * The status says what kind of failure happened; clgpu_last_error() says, in
 * words, which argument or which object was at fault.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     if (clgpu_version_number() != CLGPU_VERSION_NUMBER)
 *       fprintf(stderr, "built against clgpu %s, running %s\n", CLGPU_VERSION_STRING,
 *               clgpu_version());
 *     clgpu_context *context = NULL;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status != CLGPU_SUCCESS) {
 *       fprintf(stderr, "%s (%s): %s\n", clgpu_status_name(status), clgpu_status_string(status),
 *               clgpu_last_error());
 *       return 1;
 *     }
 *     clgpu_context_destroy(context);
 *     return 0;
 *   }
 *
 * End of example. */
#ifndef CLGPU_STATUS_H
#define CLGPU_STATUS_H

#include <clgpu/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The one table of status codes: X(ENUM_SUFFIX, value, "description").
 * The enum, clgpu_status_name() and clgpu_status_string() are generated from
 * it, so a new code is one line here. Codes taken from OpenCL keep the
 * OpenCL name after CLGPU_CL_. */
#define CLGPU_STATUS_MAP(X)                                                                      \
  X(SUCCESS, 0, "success")                                                                       \
  X(CL_DEVICE_NOT_FOUND, -1, "OpenCL found no device of the requested type")                     \
  X(CL_DEVICE_NOT_AVAILABLE, -2, "the OpenCL device is not available")                           \
  X(CL_COMPILER_NOT_AVAILABLE, -3, "the OpenCL implementation has no compiler")                  \
  X(CL_MEM_OBJECT_ALLOCATION_FAILURE, -4, "the device could not allocate memory for a buffer")   \
  X(CL_OUT_OF_RESOURCES, -5, "the device ran out of resources")                                  \
  X(CL_OUT_OF_HOST_MEMORY, -6, "out of host memory")                                             \
  X(CL_PROFILING_INFO_NOT_AVAILABLE, -7, "profiling information is not available")               \
  X(CL_MEM_COPY_OVERLAP, -8, "source and destination of a copy overlap")                         \
  X(CL_IMAGE_FORMAT_MISMATCH, -9, "image formats do not match")                                  \
  X(CL_IMAGE_FORMAT_NOT_SUPPORTED, -10, "image format not supported")                            \
  X(CL_BUILD_PROGRAM_FAILURE, -11, "the OpenCL program failed to build")                         \
  X(CL_MAP_FAILURE, -12, "mapping a memory object failed")                                       \
  X(CL_MISALIGNED_SUB_BUFFER_OFFSET, -13, "sub-buffer offset is not aligned for the device")     \
  X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, -14, "an event in the wait list failed")       \
  X(CL_COMPILE_PROGRAM_FAILURE, -15, "the OpenCL program failed to compile")                     \
  X(CL_LINKER_NOT_AVAILABLE, -16, "the OpenCL implementation has no linker")                     \
  X(CL_LINK_PROGRAM_FAILURE, -17, "linking the OpenCL program failed")                           \
  X(CL_DEVICE_PARTITION_FAILED, -18, "partitioning the device failed")                           \
  X(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, -19, "kernel argument information is not available")       \
  X(CL_INVALID_VALUE, -30, "OpenCL rejected a value")                                            \
  X(CL_INVALID_DEVICE_TYPE, -31, "invalid OpenCL device type")                                   \
  X(CL_INVALID_PLATFORM, -32, "invalid OpenCL platform")                                         \
  X(CL_INVALID_DEVICE, -33, "invalid OpenCL device")                                             \
  X(CL_INVALID_CONTEXT, -34, "invalid OpenCL context")                                           \
  X(CL_INVALID_QUEUE_PROPERTIES, -35, "the device does not support these queue properties")      \
  X(CL_INVALID_COMMAND_QUEUE, -36, "invalid OpenCL command queue")                               \
  X(CL_INVALID_HOST_PTR, -37, "invalid host pointer")                                            \
  X(CL_INVALID_MEM_OBJECT, -38, "invalid OpenCL memory object")                                  \
  X(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, -39, "invalid image format descriptor")                  \
  X(CL_INVALID_IMAGE_SIZE, -40, "invalid image size")                                            \
  X(CL_INVALID_SAMPLER, -41, "invalid sampler")                                                  \
  X(CL_INVALID_BINARY, -42, "invalid program binary")                                            \
  X(CL_INVALID_BUILD_OPTIONS, -43, "invalid build options")                                      \
  X(CL_INVALID_PROGRAM, -44, "invalid OpenCL program")                                           \
  X(CL_INVALID_PROGRAM_EXECUTABLE, -45, "the program has no executable for the device")          \
  X(CL_INVALID_KERNEL_NAME, -46, "no kernel of that name in the program")                        \
  X(CL_INVALID_KERNEL_DEFINITION, -47, "invalid kernel definition")                              \
  X(CL_INVALID_KERNEL, -48, "invalid OpenCL kernel")                                             \
  X(CL_INVALID_ARG_INDEX, -49, "invalid kernel argument index")                                  \
  X(CL_INVALID_ARG_VALUE, -50, "invalid kernel argument value")                                  \
  X(CL_INVALID_ARG_SIZE, -51, "invalid kernel argument size")                                    \
  X(CL_INVALID_KERNEL_ARGS, -52, "kernel arguments are not all set")                             \
  X(CL_INVALID_WORK_DIMENSION, -53, "invalid work dimension")                                    \
  X(CL_INVALID_WORK_GROUP_SIZE, -54, "invalid work-group size")                                  \
  X(CL_INVALID_WORK_ITEM_SIZE, -55, "invalid work-item size")                                    \
  X(CL_INVALID_GLOBAL_OFFSET, -56, "invalid global offset")                                      \
  X(CL_INVALID_EVENT_WAIT_LIST, -57, "invalid event wait list")                                  \
  X(CL_INVALID_EVENT, -58, "invalid event")                                                      \
  X(CL_INVALID_OPERATION, -59, "invalid operation")                                              \
  X(CL_INVALID_GL_OBJECT, -60, "invalid OpenGL object")                                          \
  X(CL_INVALID_BUFFER_SIZE, -61, "invalid buffer size")                                          \
  X(CL_INVALID_MIP_LEVEL, -62, "invalid mip level")                                              \
  X(CL_INVALID_GLOBAL_WORK_SIZE, -63, "invalid global work size")                                \
  X(CL_INVALID_PROPERTY, -64, "invalid property")                                                \
  X(CL_INVALID_IMAGE_DESCRIPTOR, -65, "invalid image descriptor")                                \
  X(CL_INVALID_COMPILER_OPTIONS, -66, "invalid compiler options")                                \
  X(CL_INVALID_LINKER_OPTIONS, -67, "invalid linker options")                                    \
  X(CL_INVALID_DEVICE_PARTITION_COUNT, -68, "invalid device partition count")                    \
  X(CL_INVALID_PIPE_SIZE, -69, "invalid pipe size")                                              \
  X(CL_INVALID_DEVICE_QUEUE, -70, "invalid device queue")                                        \
  X(CL_INVALID_SPEC_ID, -71, "invalid specialization constant id")                               \
  X(CL_MAX_SIZE_RESTRICTION_EXCEEDED, -72, "a size restriction of the device was exceeded")      \
  X(CL_PLATFORM_NOT_FOUND_KHR, -1001, "the OpenCL ICD loader found no platform")                 \
  X(INVALID_ARGUMENT, -2001, "an argument is invalid")                                           \
  X(NO_PLATFORM, -2002, "no OpenCL platform is installed")                                       \
  X(NO_DEVICE, -2003, "no OpenCL device matches the selection")                                  \
  X(INVALID_DEVICE_SELECTOR, -2004, "the device selector is malformed")                          \
  X(MISMATCHED_OBJECTS, -2005, "the OpenCL objects do not belong together")                      \
  X(FORBIDDEN_BUILD_OPTION, -2006, "a build option is not on the allow-list")                    \
  X(KERNEL_SOURCE_NOT_FOUND, -2007, "no kernel source of that name")                             \
  X(UNSUPPORTED_FEATURE, -2008, "the device lacks a feature the call needs")                     \
  X(IO_ERROR, -2009, "a file operation failed")                                                  \
  X(INTERNAL_ERROR, -2010, "internal error in clgpu")                                            \
  X(MISALIGNED_VIEW, -2011, "an array's offset is not a multiple of its element size")           \
  X(VIEW_OUT_OF_BOUNDS, -2012, "an array reaches outside its buffer")                            \
  X(RESHAPE_NEEDS_COPY, -2013, "the reshape is impossible without a copy")                       \
  X(REINTERPRET_IMPOSSIBLE, -2014, "the array cannot be seen as that element type")              \
  X(BROADCAST_IMPOSSIBLE, -2015, "the shapes cannot be broadcast together")                      \
  X(SHAPE_MISMATCH, -2016, "the arrays' shapes differ")                                          \
  X(TYPE_MISMATCH, -2017, "the arrays' element types differ")                                    \
  X(INVALID_OUTPUT, -2018, "an output array cannot be written (broadcast or self-overlapping)")  \
  X(ALLOC_SCOPE_OPEN, -2019, "the allocation cache still has a scope open (no longer returned)") \
  X(ALLOC_SCOPE_MISMATCH, -2020, "no matching allocation scope is open on this thread")          \
  X(WORKSPACE_WRONG_DEVICE, -2021, "the workspace was made on another context or device")        \
  X(WORKSPACE_WRONG_OPERATION, -2022, "the workspace was made for another operation")            \
  X(WORKSPACE_WRONG_ALGORITHM, -2023, "the workspace was made for another algorithm or shape")   \
  X(WORKSPACE_TOO_SMALL, -2024, "the workspace is smaller than the call needs")                  \
  X(WORKSPACE_ALIASES_ARGUMENT, -2025, "the workspace overlaps an argument of the call")         \
  X(WORKSPACE_MISALIGNED, -2026, "the workspace region is not aligned for the device")           \
  X(WRONG_SPACE, -2027, "the buffer has no side in that memory space")                           \
  X(CAPACITY_EXCEEDED, -2028, "the buffer's fixed capacity cannot grow")                         \
  X(EXPRESSION_TOO_LONG, -2029, "an OpenCL C text argument is longer than the library accepts")  \
  X(SIZE_OVERFLOW, -2030, "a size or byte count the call needs does not fit in 64 bits")         \
  X(MPI_ERROR, -2031, "an MPI call failed (clgpu_mpi, mpi.h)")

typedef enum clgpu_status {
#define CLGPU__STATUS_ENUM(suffix, value, text) CLGPU_##suffix = value,
  CLGPU_STATUS_MAP(CLGPU__STATUS_ENUM)
#undef CLGPU__STATUS_ENUM
} clgpu_status;

/** The enum name of a status, such as "CLGPU_INVALID_ARGUMENT", or
 * "CL_BUILD_PROGRAM_FAILURE" for a code that OpenCL defines. An unknown code
 * gives "CLGPU_UNKNOWN_STATUS". Never NULL; the string is static. */
CLGPU_API const char *clgpu_status_name(cl_int status);

/** A short human description of a status. Unknown codes give
 * "unknown status code". Never NULL; the string is static. */
CLGPU_API const char *clgpu_status_string(cl_int status);

/** The detail message of the last failure of a clgpu function on the calling
 * thread: which argument or object was wrong and why, or a compiler's build
 * log. It stays until the next failure on the same thread (a successful call
 * does not clear it). Never NULL (empty when nothing failed yet). The string
 * belongs to the thread and stays valid until the thread's next clgpu call. */
CLGPU_API const char *clgpu_last_error(void);

/** The run-time version of the library, "MAJOR.MINOR.PATCH"; compare with
 * CLGPU_VERSION_STRING from <clgpu/version.h> to detect a header/library
 * mismatch. */
CLGPU_API const char *clgpu_version(void);

/** The run-time version as CLGPU_VERSION_NUMBER computes it
 * (10000 * major + 100 * minor + patch). */
CLGPU_API int clgpu_version_number(void);

#ifdef __cplusplus
}
#endif

#endif
