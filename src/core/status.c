/* Status names and strings, the thread-local detail message, the version. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <clgpu/status.h>
#include <clgpu/version.h>

#include "status_internal.h"

/* Long enough for a compiler log of a few hundred lines; longer messages are
 * cut with a note saying so. */
#define CLGPU__DETAIL_SIZE 16384

static _Thread_local char detail[CLGPU__DETAIL_SIZE];

const char *clgpu__status_name(cl_int status) {
  switch (status) {
#define CLGPU__STATUS_NAME(suffix, value, text) \
  case value:                                   \
    return strncmp(#suffix, "CL_", 3) == 0 ? #suffix : "CLGPU_" #suffix;
    CLGPU_STATUS_MAP(CLGPU__STATUS_NAME)
#undef CLGPU__STATUS_NAME
    default:
      return "CLGPU_UNKNOWN_STATUS";
  }
}

const char *clgpu_status_name(cl_int status) { return clgpu__status_name(status); }

const char *clgpu_status_string(cl_int status) {
  switch (status) {
#define CLGPU__STATUS_STRING(suffix, value, text) \
  case value:                                     \
    return text;
    CLGPU_STATUS_MAP(CLGPU__STATUS_STRING)
#undef CLGPU__STATUS_STRING
    default:
      return "unknown status code";
  }
}

const char *clgpu__last_error(void) { return detail; }

static void mark_truncated(void) {
  static const char note[] = "\n[message cut: longer than 16 KiB]";
  memcpy(detail + CLGPU__DETAIL_SIZE - sizeof note, note, sizeof note);
}

const char *clgpu_last_error(void) { return clgpu__last_error(); }

clgpu_status clgpu__vfail(clgpu_status status, const char *format, va_list args) {
  int written = vsnprintf(detail, CLGPU__DETAIL_SIZE, format, args);
  if (written >= CLGPU__DETAIL_SIZE) mark_truncated();
  return status;
}

clgpu_status clgpu__fail(clgpu_status status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  clgpu__vfail(status, format, args);
  va_end(args);
  return status;
}

void clgpu__append_error(const char *format, ...) {
  size_t used = strlen(detail);
  if (used + 1 >= CLGPU__DETAIL_SIZE) return;
  va_list args;
  va_start(args, format);
  int written = vsnprintf(detail + used, CLGPU__DETAIL_SIZE - used, format, args);
  va_end(args);
  if (written >= 0 && (size_t)written >= CLGPU__DETAIL_SIZE - used) mark_truncated();
}

clgpu_status clgpu__fail_cl(cl_int status, const char *what) {
  return clgpu__fail((clgpu_status)status, "%s failed: %s (%d, %s)", what,
                     clgpu_status_name(status), (int)status, clgpu_status_string(status));
}

const char *clgpu_version(void) { return CLGPU_VERSION_STRING; }

int clgpu_version_number(void) { return CLGPU_VERSION_NUMBER; }

double clgpu__now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec * 1e-6;
}
