/* Errors (status.c): a failure's status and detail message recorded on this
 * thread, the internal twins of include/clgpu/status.h, a monotonic clock. */
#ifndef CLGPU_SRC_STATUS_INTERNAL_H
#define CLGPU_SRC_STATUS_INTERNAL_H

#include <stdarg.h>

#include <clgpu/status.h>

#if defined(__GNUC__) || defined(__clang__)
#define CLGPU__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLGPU__PRINTF(f, a)
#endif

/* The few internal functions the library's optional components (src/mpi,
 * a library of its own over the public API) share with it: exported from
 * the shared library under the internal clgpu__ prefix, never declared in a
 * public header. */
#if defined(__GNUC__) || defined(__clang__)
#define CLGPU__COMPONENT_API __attribute__((visibility("default")))
#else
#define CLGPU__COMPONENT_API
#endif

/* Record `status` with a detail message on this thread and return it. */
CLGPU__COMPONENT_API clgpu_status clgpu__fail(clgpu_status status, const char *format, ...)
    CLGPU__PRINTF(2, 3);

/* The same from a va_list. */
clgpu_status clgpu__vfail(clgpu_status status, const char *format, va_list args);

/* Append text to this thread's detail message (after a clgpu__fail). */
void clgpu__append_error(const char *format, ...) CLGPU__PRINTF(1, 2);

/* Record an OpenCL failure of `what` (the call that failed) and return it. */
CLGPU__COMPONENT_API clgpu_status clgpu__fail_cl(cl_int status, const char *what);

#define CLGPU__RETURN_ERROR_IF(condition, status, ...)        \
  do {                                                        \
    if (condition) return clgpu__fail((status), __VA_ARGS__); \
  } while (0)

#define CLGPU__FORWARD_IF_ERROR(expression)                           \
  do {                                                                \
    clgpu_status forwarded_status_ = (expression);                    \
    if (forwarded_status_ != CLGPU_SUCCESS) return forwarded_status_; \
  } while (0)

/* Internal twins of public functions (the public one is a wrapper): the
 * library calls these, never its own public entry points. */
const char *clgpu__status_name(cl_int status);
const char *clgpu__last_error(void);

/* Milliseconds from a monotonic clock. */
double clgpu__now_ms(void);

#endif
