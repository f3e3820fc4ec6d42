/* clgpu-bench's low layer: the clock, failure messages, parsing of sizes and
 * counts, summaries of timings, profiling events, table cells, JSON and CSV
 * writers, the progress line and removing a folder. It calls nothing else
 * of the tool. */
#include "bench_common.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double bench_now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec * 1e-6;
}

int bench_report_failure(const char *what, clgpu_status status) {
  fprintf(stderr, "clgpu-bench: %s: %s (%d): %s\n%s\n", what, clgpu_status_name(status),
          (int)status, clgpu_status_string(status), clgpu_last_error());
  return 1;
}

const char *bench_device_type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  return "other";
}

uint64_t bench_splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* "16M" -> 16777216; 0 on success, -1 when malformed, zero or too large. */
int bench_parse_size(const char *text, size_t *out) {
  if (!isdigit((unsigned char)text[0])) return -1;
  errno = 0;
  char *end = NULL;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno != 0) return -1;
  unsigned long long unit = 1;
  if (*end == 'K' || *end == 'k') {
    unit = 1024;
    end++;
  } else if (*end == 'M' || *end == 'm') {
    unit = 1024 * 1024;
    end++;
  } else if (*end == 'G' || *end == 'g') {
    unit = 1024ull * 1024 * 1024;
    end++;
  }
  if (*end != '\0' || value == 0 || value > (unsigned long long)UINT32_MAX / unit) return -1;
  *out = (size_t)(value * unit);
  return 0;
}

int bench_parse_count(const char *text, int minimum, int *out) {
  if (!isdigit((unsigned char)text[0])) return -1;
  errno = 0;
  char *end = NULL;
  long value = strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < minimum || value > 1000000) return -1;
  *out = (int)value;
  return 0;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

bench_timing bench_summarize(double *values, int count) {
  bench_timing t = {0, NAN, NAN, NAN};
  if (count <= 0) return t;
  for (int k = 0; k < count; k++) {
    if (!(values[k] >= 0)) return t; /* one missing figure: none */
  }
  qsort(values, (size_t)count, sizeof *values, compare_doubles);
  t.valid = 1;
  t.min = values[0];
  t.max = values[count - 1];
  t.median = count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
  return t;
}

int bench_progress_enabled;

void bench_progress(const char *format, ...) {
  if (!bench_progress_enabled) return;
  va_list arguments;
  va_start(arguments, format);
  fputs("\r\033[K", stderr);
  vfprintf(stderr, format, arguments);
  va_end(arguments);
  fflush(stderr);
}

void bench_progress_clear(void) {
  if (bench_progress_enabled) fputs("\r\033[K", stderr);
}

const char *bench_size_label(size_t n, char *buffer, size_t size) {
  if (n % ((size_t)1 << 20) == 0) {
    snprintf(buffer, size, "%zuM", n >> 20);
  } else if (n % 1024 == 0) {
    snprintf(buffer, size, "%zuK", n >> 10);
  } else {
    snprintf(buffer, size, "%zu", n);
  }
  return buffer;
}

double bench_gbps(double bytes, const bench_timing *t) {
  return t->valid && t->median > 0 ? bytes / (t->median * 1e-3) / 1e9 : NAN;
}

const char *bench_format_or_na(char *buffer, size_t size, const char *format, double value) {
  if (isfinite(value)) {
    snprintf(buffer, size, format, value);
  } else {
    snprintf(buffer, size, "n/a");
  }
  return buffer;
}

const char *bench_timing_text(const bench_timing *t, char *buffer, size_t size) {
  if (!t->valid) {
    snprintf(buffer, size, "n/a");
    return buffer;
  }
  int digits = t->max >= 100 ? 1 : t->max >= 10 ? 2 : 3;
  snprintf(buffer, size, "%.*f (%.*f-%.*f)", digits, t->median, digits, t->min, digits, t->max);
  return buffer;
}

const char *bench_device_title(const clgpu_device_info *d, char *buffer, size_t size) {
  snprintf(buffer, size, "clgpu %s on %s / %s (%s, %u compute units)", clgpu_version(),
           d->platform_name, d->name, bench_device_type_name(d->type), d->compute_units);
  return buffer;
}

/* Whether the device of the event's queue has a profiling timer: one whose
 * resolution is 0 ns has none (rusticl of Mesa 22.3 stamps every command
 * 0, 1, 2 and 3 ns), and its events' times are not device times. */
int bench_event_has_device_times(cl_event event) {
  cl_command_queue queue = NULL;
  cl_device_id device = NULL;
  size_t resolution = 0;
  return clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof queue, &queue, NULL) == CL_SUCCESS &&
         queue &&
         clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, NULL) ==
             CL_SUCCESS &&
         clGetDeviceInfo(device, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof resolution,
                         &resolution, NULL) == CL_SUCCESS &&
         resolution > 0;
}

double bench_event_ms(cl_event event) {
  cl_ulong start = 0, end = 0;
  if (!bench_event_has_device_times(event) ||
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) !=
          CL_SUCCESS ||
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) !=
          CL_SUCCESS ||
      end < start) {
    return NAN;
  }
  return (double)(end - start) * 1e-6;
}

void bench_json_string(FILE *out, const char *text) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    if (*p == '"' || *p == '\\') {
      fprintf(out, "\\%c", *p);
    } else if (*p < 0x20) {
      fprintf(out, "\\u%04x", *p);
    } else {
      fputc(*p, out);
    }
  }
  fputc('"', out);
}

void bench_json_number(FILE *out, double value) {
  if (isfinite(value)) {
    fprintf(out, "%.6g", value);
  } else {
    fputs("null", out);
  }
}

void bench_csv_number(FILE *out, double value) {
  if (isfinite(value)) fprintf(out, "%.6g", value);
}

void bench_csv_string(FILE *out, const char *text) {
  fputc('"', out);
  for (const char *p = text; *p; p++) {
    if (*p == '"') fputc('"', out);
    fputc(*p == '\n' ? ' ' : *p, out);
  }
  fputc('"', out);
}

void bench_json_string_member(FILE *out, const char *before, const char *name, const char *text) {
  fprintf(out, "%s\"%s\": ", before, name);
  if (text) {
    bench_json_string(out, text);
  } else {
    fputs("null", out);
  }
}

void bench_json_number_member(FILE *out, const char *before, const char *name, double value) {
  fprintf(out, "%s\"%s\": ", before, name);
  bench_json_number(out, value);
}

void bench_json_timing(FILE *out, const char *before, const char *name, const bench_timing *t) {
  fprintf(out, "%s\"%s\": ", before, name);
  if (!t->valid) {
    fputs("null", out);
    return;
  }
  bench_json_number_member(out, "{", "median", t->median);
  bench_json_number_member(out, ", ", "min", t->min);
  bench_json_number_member(out, ", ", "max", t->max);
  fputc('}', out);
}

void bench_json_device(FILE *out, const clgpu_device_info *d) {
  const char *const strings[][2] = {
      {"platform", d->platform_name},
      {"platform_version", d->platform_version},
      {"name", d->name},
      {"vendor", d->vendor},
      {"version", d->device_version},
      {"driver", d->driver_version},
      {"opencl_c_version", d->opencl_c_version},
  };
  for (size_t k = 0; k < sizeof strings / sizeof strings[0]; k++) {
    bench_json_string_member(out, k ? ", " : "{", strings[k][0], strings[k][1]);
  }
  fprintf(out,
          ", \"type\": \"%s\", \"compute_units\": %u, \"max_clock_mhz\": %u, "
          "\"global_mem_bytes\": %llu, \"max_alloc_bytes\": %llu, \"timer_resolution_ns\": %zu, "
          "\"local_mem_bytes\": %llu, \"max_work_group_size\": %zu, \"fp64\": %s, \"fp16\": %s}",
          bench_device_type_name(d->type), d->compute_units, d->max_clock_mhz,
          (unsigned long long)d->global_mem_size, (unsigned long long)d->max_mem_alloc_size,
          d->profiling_timer_resolution_ns, (unsigned long long)d->local_mem_size,
          d->max_work_group_size, d->has_fp64 ? "true" : "false", d->has_fp16 ? "true" : "false");
}

void bench_json_report_start(FILE *out, const char *tool, const clgpu_device_info *device) {
  bench_json_string_member(out, "{\n  ", "tool", tool);
  bench_json_string_member(out, ",\n  ", "library_version", clgpu_version());
  if (device) {
    fputs(",\n  \"device\": ", out);
    bench_json_device(out, device);
  }
}

void bench_csv_device(FILE *out, const clgpu_device_info *d) {
  bench_csv_string(out, clgpu_version());
  fputc(',', out);
  bench_csv_string(out, d->platform_name);
  fputc(',', out);
  bench_csv_string(out, d->name);
  fprintf(out, ",%s,%u", bench_device_type_name(d->type), d->compute_units);
}

/* Remove `path` and everything under it (a folder clgpu-bench made), without
 * following links. */
void bench_remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return;
  if (!S_ISDIR(st.st_mode)) {
    unlink(path);
    return;
  }
  DIR *dir = opendir(path);
  if (dir) {
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
      if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
      size_t size = strlen(path) + strlen(entry->d_name) + 2;
      char *inner = malloc(size);
      if (!inner) continue;
      snprintf(inner, size, "%s/%s", path, entry->d_name);
      bench_remove_tree(inner);
      free(inner);
    }
    closedir(dir);
  }
  rmdir(path);
}

/* Split a CSV line in place into fields (quotes removed, "" unescaped). */
size_t bench_split_csv(char *line, char **fields, size_t max) {
  size_t count = 0;
  char *p = line;
  for (;;) {
    if (count == max) return count;
    char *field = p, *w = p;
    if (*p == '"') {
      p++;
      for (;;) {
        if (*p == '\0') break;
        if (*p == '"' && p[1] == '"') {
          *w++ = '"';
          p += 2;
        } else if (*p == '"') {
          p++;
          break;
        } else {
          *w++ = *p++;
        }
      }
      while (*p && *p != ',') p++;
    } else {
      while (*p && *p != ',') *w++ = *p++;
    }
    char end = *p;
    *w = '\0';
    fields[count++] = field;
    if (end != ',') return count;
    p++;
  }
}

double bench_csv_value(const char *text) {
  if (!text || !*text) return NAN;
  char *end = NULL;
  double value = strtod(text, &end);
  return end && *end == '\0' ? value : NAN;
}
