/* The environment variables the library reads, parsed in one place and
 * strictly: a value that is set but not one the variable accepts is refused
 * when a context is made (the message names the variable and the value),
 * never read as something else. strtoull alone would read "-1" as
 * 2^64 - 1 and " 7" or "7x" as 7. */
#include <stdlib.h>
#include <string.h>

#include "environment.h"
#include "status_internal.h"

/* A decimal of digits only, within [low, high]; 0 when it is not. */
static int parse_decimal(const char *text, cl_ulong low, cl_ulong high, cl_ulong *out) {
  cl_ulong value = 0;
  if (!*text) return 0;
  for (const char *c = text; *c; c++) {
    if (*c < '0' || *c > '9') return 0;
    unsigned digit = (unsigned)(*c - '0');
    if (value > (high - digit) / 10) return 0; /* past high, and never wraps */
    value = value * 10 + digit;
  }
  if (value < low) return 0;
  *out = value;
  return 1;
}

static clgpu_status read_launch_number(const char *name, cl_ulong high, const char *who,
                                       cl_ulong *out) {
  *out = 0;
  const char *text = getenv(name);
  if (!text || !*text) return CLGPU_SUCCESS;
  CLGPU__RETURN_ERROR_IF(!parse_decimal(text, 0, high, out), CLGPU_INVALID_ARGUMENT,
                         "%s: the environment variable %s is \"%.40s\"%s: it takes a decimal "
                         "number from 0 (the device's choice) to %llu, or nothing",
                         who, name, text, strlen(text) > 40 ? "..." : "", (unsigned long long)high);
  return CLGPU_SUCCESS;
}

/* An on/off variable into *out: 1 for "on" or "1", 0 for "off" or "0", -1
 * when unset or empty; anything else is refused with a message naming
 * `who`, the variable and its value. */
static clgpu_status read_switch(const char *name, const char *who, int *out) {
  const char *value = getenv(name);
  *out = -1;
  if (!value || !*value) return CLGPU_SUCCESS;
  if (strcmp(value, "on") == 0 || strcmp(value, "1") == 0) {
    *out = 1;
  } else if (strcmp(value, "off") == 0 || strcmp(value, "0") == 0) {
    *out = 0;
  } else {
    return clgpu__fail(CLGPU_INVALID_ARGUMENT,
                       "%s: the environment variable %s is \"%.40s\"%s: it takes on, off, 1, 0 "
                       "or nothing",
                       who, name, value, strlen(value) > 40 ? "..." : "");
  }
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__read_environment(clgpu__environment *out, const char *who) {
  memset(out, 0, sizeof *out);
  CLGPU__FORWARD_IF_ERROR(
      read_launch_number("CLGPU_COPY_CHUNK", CLGPU__COPY_CHUNK_MAX, who, &out->copy_chunk));
  CLGPU__FORWARD_IF_ERROR(
      read_launch_number("CLGPU_COPY_GROUP", CLGPU__COPY_GROUP_MAX, who, &out->copy_group));
  out->tuning = getenv("CLGPU_TUNING");
  out->who = who;
  const char *record = getenv("CLGPU_PROGRAM_RECORD");
  out->program_record = record && *record ? record : NULL;
  CLGPU__RETURN_ERROR_IF(record && strlen(record) > CLGPU__PROGRAM_RECORD_MAX,
                         CLGPU_INVALID_ARGUMENT,
                         "%s: the environment variable CLGPU_PROGRAM_RECORD is \"%.40s\"... (%zu "
                         "bytes): it takes a name of at most %d bytes, off, or nothing",
                         who, record, strlen(record), CLGPU__PROGRAM_RECORD_MAX);
  CLGPU__RETURN_ERROR_IF(record && strpbrk(record, "\r\n"), CLGPU_INVALID_ARGUMENT,
                         "%s: the environment variable CLGPU_PROGRAM_RECORD is \"%s\": it takes a "
                         "name without line breaks, off, or nothing",
                         who, record);
  CLGPU__FORWARD_IF_ERROR(read_switch("CLGPU_BUILD_WARNINGS", who, &out->build_warnings));
  if (out->build_warnings < 0) out->build_warnings = 0;
  CLGPU__FORWARD_IF_ERROR(read_switch("CLGPU_DISK_CACHE", who, &out->disk_cache));
  return CLGPU_SUCCESS;
}
