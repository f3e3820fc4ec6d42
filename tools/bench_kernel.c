/* clgpu-bench kernel (bench_kernel.h): the user's OpenCL C file, built on the
 * tool's device with -D defines, one kernel of it timed by profiling events
 * over buffers, scalars and __local memory made from argument specs
 * (bench_kernel_args.c), beside the device's read bandwidth over as many
 * bytes (run's read kernel). */
#include "bench_kernel.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clgpu/clgpu.h>

#include "bench_common.h"
#include "bench_kernel_args.h"
#include "bench_options.h"
#include "bench_output.h"
#include "bench_reference.h"

static const char kernel_usage_text[] =
    "usage: clgpu-bench kernel FILE.cl --kernel NAME --global N[,N[,N]]\n"
    "                          [--local M[,M[,M]]] [--arg SPEC ...] [--define NAME[=VALUE] ...]\n"
    "                          [--repeat N] [--warmup N] [--format table|csv|json]\n"
    "                          [--no-reference] [--quiet] [--device SELECTOR]\n"
    "                          [--output FILE] [--guarded]\n"
    "\n"
    "Build FILE.cl on the default device (or --device's, or CLGPU_DEVICE's) and\n"
    "time its kernel NAME: --warmup untimed calls, then --repeat timed ones, each\n"
    "enqueued alone and waited for with clFinish. Every buffer is made and filled\n"
    "once; the calls run one after another over the same buffers.\n"
    "\n"
    "  --kernel NAME     the kernel to time\n"
    "  --global N,...    the global work size, 1 to 3 dimensions (suffixes K, M, G)\n"
    "  --local M,...     the work-group size, as many dimensions as --global, each\n"
    "                    dividing its --global; default: the implementation's choice\n"
    "                    (a NULL local size)\n"
    "  --arg SPEC        one per kernel parameter, in the parameters' order:\n"
    "                      TYPE[COUNT]          a buffer of COUNT elements, random\n"
    "                      TYPE[COUNT]=random   the same\n"
    "                      TYPE[COUNT]=zeros    a buffer of zeros\n"
    "                      TYPE[COUNT]=VALUE    a buffer with every element VALUE\n"
    "                      TYPE=VALUE           a scalar\n"
    "                      local:BYTES          a __local pointer of BYTES bytes\n"
    "                    TYPE: char, uchar, short, ushort, int, uint, long, ulong,\n"
    "                    float, double (also int8, uint8, int16, uint16, int32,\n"
    "                    uint32, int64, uint64, float32, float64). COUNT and BYTES\n"
    "                    take the suffixes K (1024), M and G. VALUE: a decimal or 0x\n"
    "                    hexadecimal integer in the type's range, or for float and\n"
    "                    double any strtod number (1.5, 1e-3, inf, nan). Random data:\n"
    "                    integers uniform over all their bits, float and double\n"
    "                    uniform in [0, 1), from a fixed seed per argument, so runs\n"
    "                    repeat. Buffers are CL_MEM_READ_WRITE. The count of specs\n"
    "                    must be the kernel's parameter count; where the device\n"
    "                    reports its parameters (-cl-kernel-arg-info), a buffer spec\n"
    "                    must meet a __global or __constant pointer, local: a\n"
    "                    __local one, and a scalar a scalar of its type\n"
    "  --define N[=V]    passed to the compiler as -D N[=V] (V without white space\n"
    "                    or quotes); repeatable\n"
    "  --repeat N        timed calls (default 10)\n"
    "  --warmup N        untimed calls first (default 2)\n"
    "  --format F        table (default), csv or json (every figure, the arguments,\n"
    "                    the device and the library version)\n"
    "  --no-reference    skip the read-bandwidth reference (then no %read)\n"
    "  --quiet           no progress line on stderr (it is shown only on a terminal)\n"
    "  --device SELECTOR the device, as CLGPU_DEVICE takes it (and in its place):\n"
    "                    \"P:D\", a flat index, gpu, cpu, accelerator, or part of a\n"
    "                    platform or device name, case-insensitive (clgpu-bench\n"
    "                    devices lists them); one that matches no device is a usage\n"
    "                    error\n";

/* --output; what the figures are, the exit status and an example. */
static const char kernel_usage_notes[] =
    "  --guarded         the kernel keeps within its buffers whatever the global\n"
    "                    size (it checks its index against a size it is given):\n"
    "                    without it, a --global with more work-items (all\n"
    "                    dimensions together) than a buffer argument has elements\n"
    "                    is a usage error, since a kernel indexed by\n"
    "                    get_global_id would read or write past that buffer\n"
    "  --output FILE     write the report (--format's) to FILE instead of stdout;\n"
    "                    FILE is opened before FILE.cl is built (made if missing,\n"
    "                    emptied when the report comes): one that cannot be written\n"
    "                    is a usage error at once\n"
    "\n"
    "Figures: the median (min-max) over the timed calls of the device time (the\n"
    "call's profiling event, CL_PROFILING_COMMAND_START to _END) and of the wall time\n"
    "(from clEnqueueNDRangeKernel to the end of clFinish). GB/s: the bytes of all\n"
    "buffer arguments, each counted once whatever the kernel reads or writes, over\n"
    "the median device time. %read: that GB/s as a share of the device's read\n"
    "bandwidth, measured in the same run by 'clgpu-bench run''s read kernel over as\n"
    "many bytes of uint32 (its median device time).\n"
    "\n"
    "Exit status: 0 when timed; 1 when FILE.cl does not build (the compiler's log\n"
    "goes to stderr), has no kernel NAME, or OpenCL fails; 2 for a usage error (bad\n"
    "option, size, type or spec, an unreadable file, a spec count that is not the\n"
    "kernel's parameter count), with one line on stderr (a successful build's log,\n"
    "warnings or remarks, goes to stderr otherwise).\n"
    "\n"
    "Example: clgpu-bench kernel saxpy.cl --kernel saxpy --global 1M --local 256 \\\n"
    "           --arg float[1M]=zeros --arg float[1M] --arg float=2.5 --define TILE=4\n";

enum {
  KERNEL_QUIET,
  KERNEL_NO_REFERENCE,
  KERNEL_KERNEL,
  KERNEL_GLOBAL,
  KERNEL_LOCAL,
  KERNEL_ARG,
  KERNEL_DEFINE,
  KERNEL_REPEAT,
  KERNEL_WARMUP,
  KERNEL_FORMAT,
  KERNEL_DEVICE,
  KERNEL_OUTPUT,
  KERNEL_GUARDED
};

static const bench_option kernel_option_table[] = {
    {"--quiet", "-q", NULL, 0, KERNEL_QUIET},
    {"--no-reference", NULL, NULL, 0, KERNEL_NO_REFERENCE},
    {"--kernel", NULL, "a value", 0, KERNEL_KERNEL},
    {"--global", NULL, "a value", 0, KERNEL_GLOBAL},
    {"--local", NULL, "a value", 0, KERNEL_LOCAL},
    {"--arg", NULL, "a value", 0, KERNEL_ARG},
    {"--define", NULL, "a value", 0, KERNEL_DEFINE},
    {"--repeat", NULL, "a value", 0, KERNEL_REPEAT},
    {"--warmup", NULL, "a value", 0, KERNEL_WARMUP},
    {"--format", NULL, "a value", 0, KERNEL_FORMAT},
    BENCH_DEVICE_OPTION(KERNEL_DEVICE),
    {"--output", NULL, "a value", 1, KERNEL_OUTPUT},
    {"--guarded", NULL, NULL, 0, KERNEL_GUARDED},
};

static const char *const kernel_help[] = {kernel_usage_text, kernel_usage_notes, NULL};

/* FILE.cl is its operand. */
static const bench_command kernel_command =
    BENCH_SUBCOMMAND("kernel", kernel_option_table, 1, 1, kernel_help);

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static int
kernel_usage_error(const char *format, ...) {
  va_list arguments;
  va_start(arguments, format);
  int status = bench_usage_verror(&kernel_command, format, arguments);
  va_end(arguments);
  return status;
}

static int cl_failure(const char *what, cl_int err) {
  bench_progress_clear();
  fprintf(stderr, "clgpu-bench kernel: %s: %s (%d): %s\n", what, clgpu_status_name(err), (int)err,
          clgpu_status_string(err));
  return 1;
}

/* ---- options ---- */

enum { OUT_TABLE, OUT_CSV, OUT_JSON };

typedef struct kernel_options {
  const char *file;
  const char *kernel;
  cl_uint dims, local_dims; /* local_dims 0: no --local */
  size_t global[3], local[3];
  arg_spec *args; /* argc entries at most */
  size_t num_args;
  const char **defines; /* NAME or NAME=VALUE, argc entries at most */
  size_t num_defines;
  int repeat, warmup;
  int format;
  int quiet;
  int no_reference;
  int guarded;        /* --guarded: the kernel checks its bounds */
  const char *device; /* --device, or NULL */
  const char *output; /* --output, or NULL (stdout) */
} kernel_options;

/* "N[,N[,N]]" into sizes: 0, or -1. */
static int parse_dims(const char *text, size_t sizes[3], cl_uint *dims) {
  *dims = 0;
  const char *start = text;
  for (;;) {
    const char *comma = strchr(start, ',');
    size_t length = comma ? (size_t)(comma - start) : strlen(start);
    char item[32];
    if (*dims == 3 || length == 0 || length >= sizeof item) return -1;
    memcpy(item, start, length);
    item[length] = '\0';
    if (bench_parse_size(item, &sizes[*dims]) != 0) return -1;
    (*dims)++;
    if (!comma) return 0;
    start = comma + 1;
  }
}

/* NAME or NAME=VALUE: NAME a C identifier, VALUE without white space or
 * quotes (OpenCL's build options are one string split at spaces). */
static int valid_define(const char *text) {
  if (!(isalpha((unsigned char)text[0]) || text[0] == '_')) return 0;
  const char *p = text;
  while (isalnum((unsigned char)*p) || *p == '_') p++;
  if (*p == '\0') return 1;
  if (*p != '=') return 0;
  for (p++; *p; p++) {
    if (isspace((unsigned char)*p) || *p == '"' || *p == '\'' || *p == '\\') return 0;
  }
  return 1;
}

/* One of kernel's options, or its FILE.cl (option NULL), into *state (a
 * kernel_options). */
static int kernel_option(const bench_command *command, void *state, const bench_option *option,
                         const char *value) {
  kernel_options *o = state;
  if (!option) {
    if (o->file) return kernel_usage_error("a second file '%s' (one FILE.cl only)", value);
    o->file = value;
    return 0;
  }
  switch (option->id) {
    case KERNEL_QUIET:
      o->quiet = 1;
      break;
    case KERNEL_NO_REFERENCE:
      o->no_reference = 1;
      break;
    case KERNEL_GUARDED:
      o->guarded = 1;
      break;
    case KERNEL_KERNEL:
      if (!*value) return kernel_usage_error("--kernel needs a name");
      o->kernel = value;
      break;
    case KERNEL_GLOBAL:
    case KERNEL_LOCAL: {
      int global = option->id == KERNEL_GLOBAL;
      if (parse_dims(value, global ? o->global : o->local, global ? &o->dims : &o->local_dims) !=
          0) {
        return kernel_usage_error(
            "%s: '%s' is not 1 to 3 comma-separated sizes from 1 to 4G-1 (suffixes K, M, G)",
            option->name, value);
      }
      break;
    }
    case KERNEL_ARG: {
      int failed = bench_arg_parse(command, value, o->num_args, &o->args[o->num_args]);
      if (failed) return failed;
      o->num_args++;
      break;
    }
    case KERNEL_DEFINE:
      if (!valid_define(value)) {
        return kernel_usage_error(
            "--define: '%s' is not NAME or NAME=VALUE (NAME an identifier, VALUE without "
            "white space or quotes)",
            value);
      }
      o->defines[o->num_defines++] = value;
      break;
    case KERNEL_REPEAT:
      return bench_option_count(command, option, value, 1, &o->repeat);
    case KERNEL_WARMUP:
      return bench_option_count(command, option, value, 0, &o->warmup);
    case KERNEL_DEVICE:
      o->device = value;
      break;
    case KERNEL_OUTPUT:
      o->output = value;
      break;
    default: {
      static const char *const names[] = {"table", "csv", "json"}; /* OUT_TABLE... */
      return bench_option_choice(command, option, value, names, 3, &o->format);
    }
  }
  return 0;
}

/* 0, 2 after a usage error (printed), or -1 after --help (printed). */
static int parse_kernel_options(int argc, char **argv, kernel_options *o) {
  o->repeat = 10;
  o->warmup = 2;
  int parsed = bench_parse_options(&kernel_command, argc, argv, kernel_option, o);
  if (parsed != 0) return parsed;
  if (!o->file) return kernel_usage_error("no kernel file given (clgpu-bench kernel FILE.cl ...)");
  if (!o->kernel) return kernel_usage_error("--kernel NAME is missing");
  if (o->dims == 0) return kernel_usage_error("--global N[,N[,N]] is missing");
  if (o->local_dims) {
    if (o->local_dims != o->dims) {
      return kernel_usage_error("--local gives %u size%s for the %u dimension%s of --global",
                                o->local_dims, o->local_dims == 1 ? "" : "s", o->dims,
                                o->dims == 1 ? "" : "s");
    }
    for (cl_uint d = 0; d < o->dims; d++) {
      if (o->global[d] % o->local[d] != 0) {
        return kernel_usage_error("--local %zu does not divide --global %zu (dimension %u)",
                                  o->local[d], o->global[d], d);
      }
    }
  }
  /* More work-items than a buffer has elements: a kernel indexed by
   * get_global_id would run past the buffer (on a CPU device, into this
   * process's memory) unless it checks its bounds, which --guarded says. */
  unsigned long long items = 1;
  for (cl_uint d = 0; d < o->dims; d++) items *= o->global[d]; /* 3 x 32 bits: no overflow */
  for (size_t k = 0; k < o->num_args && !o->guarded; k++) {
    const arg_spec *a = &o->args[k];
    if (a->kind == ARG_BUFFER && a->count < items) {
      return kernel_usage_error(
          "--global gives %llu work-items but --arg %zu '%s' has %zu elements: a kernel "
          "indexed by get_global_id would go past that buffer; give it at least %llu "
          "elements, or pass --guarded if the kernel checks its index (if (i < n), with n an "
          "--arg)",
          items, k, a->text, a->count, items);
    }
  }
  return 0;
}

/* The whole of `path` with a terminating NUL: 0, or 2 after a usage error
 * (printed). */
static int read_file(const char *path, char **text, size_t *length) {
  FILE *in = fopen(path, "rb");
  if (!in) return kernel_usage_error("cannot read '%s': %s", path, strerror(errno));
  size_t size = 0, capacity = 4096;
  char *buffer = malloc(capacity);
  int error = 0;
  while (buffer) {
    if (size + 1 >= capacity) {
      char *grown = realloc(buffer, capacity * 2);
      if (!grown) {
        free(buffer);
        buffer = NULL;
        break;
      }
      buffer = grown;
      capacity *= 2;
    }
    size_t got = fread(buffer + size, 1, capacity - 1 - size, in);
    size += got;
    if (got == 0) {
      if (ferror(in)) error = errno ? errno : EIO;
      break;
    }
  }
  fclose(in);
  if (!buffer) return kernel_usage_error("cannot read '%s': out of host memory", path);
  if (error) {
    free(buffer);
    return kernel_usage_error("cannot read '%s': %s", path, strerror(error));
  }
  buffer[size] = '\0';
  *text = buffer;
  *length = size;
  return 0;
}

/* ---- the run ---- */

typedef struct kernel_run {
  const kernel_options *options;
  clgpu_context *context;
  const clgpu_device_info *device;
  cl_command_queue queue;
  cl_program program;
  cl_kernel kernel;
  cl_mem *buffers; /* per argument; NULL but for buffers */
  char *build_options;
  char *build_log; /* a successful build's log (warnings), shown unless a usage error follows */
  double build_ms;
  size_t buffer_bytes; /* all buffer arguments */
  bench_timing event, wall;
  int has_reference;
  bench_timing reference_event, reference_wall;
  size_t reference_bytes;
} kernel_run;

static void release_run(kernel_run *r) {
  for (size_t k = 0; r->buffers && k < r->options->num_args; k++) {
    if (r->buffers[k]) clReleaseMemObject(r->buffers[k]);
  }
  free(r->buffers);
  if (r->kernel) clReleaseKernel(r->kernel);
  if (r->program) clReleaseProgram(r->program);
  free(r->build_options);
  free(r->build_log);
  clgpu_context_destroy(r->context);
}

/* -cl-kernel-arg-info (for the parameter checks) and the defines. */
static char *make_build_options(const kernel_options *o) {
  static const char base[] = "-cl-kernel-arg-info";
  size_t length = sizeof base;
  for (size_t k = 0; k < o->num_defines; k++) length += 4 + strlen(o->defines[k]);
  char *text = malloc(length);
  if (!text) return NULL;
  memcpy(text, base, sizeof base);
  for (size_t k = 0; k < o->num_defines; k++) {
    strcat(text, " -D ");
    strcat(text, o->defines[k]);
  }
  return text;
}

/* What the device allows, checked before anything is built: 0, or 2. */
static int check_against_device(const kernel_run *r) {
  const kernel_options *o = r->options;
  const clgpu_device_info *d = r->device;
  size_t local_bytes = 0;
  for (size_t k = 0; k < o->num_args; k++) {
    const arg_spec *a = &o->args[k];
    if (a->kind == ARG_BUFFER && (cl_ulong)a->bytes > d->max_mem_alloc_size) {
      return kernel_usage_error(
          "--arg %zu '%s': %zu bytes exceed the device's largest buffer "
          "(%llu bytes)",
          k, a->text, a->bytes, (unsigned long long)d->max_mem_alloc_size);
    }
    if (a->kind == ARG_SCALAR && a->type->size == 8 && a->type->kind == KIND_FLOAT &&
        !d->has_fp64) {
      return kernel_usage_error("--arg %zu '%s': double needs cl_khr_fp64, which %s lacks", k,
                                a->text, d->name);
    }
    if (a->kind == ARG_LOCAL) local_bytes += a->bytes;
  }
  if ((cl_ulong)local_bytes > d->local_mem_size) {
    return kernel_usage_error("the local: arguments take %zu bytes; the device has %llu",
                              local_bytes, (unsigned long long)d->local_mem_size);
  }
  if (o->local_dims) {
    size_t items = 1;
    for (cl_uint k = 0; k < o->dims; k++) {
      if (o->local[k] > d->max_work_item_sizes[k]) {
        return kernel_usage_error("--local %zu exceeds the device's %zu in dimension %u",
                                  o->local[k], d->max_work_item_sizes[k], k);
      }
      items *= o->local[k];
    }
    if (items > d->max_work_group_size) {
      return kernel_usage_error("--local: %zu work-items per group exceed the device's %zu", items,
                                d->max_work_group_size);
    }
  }
  return 0;
}

/* A `#line 1 "FILE.cl"` directive for the file's path (quotes and
 * backslashes escaped, other control bytes dropped), so that the
 * compiler's messages name FILE.cl and its lines rather than the
 * implementation's temporary file ("input.cl", "<stdin>", a cache path). */
static int line_directive(const char *path, char *text, size_t size) {
  size_t at = 0;
  const char *head = "#line 1 \"";
  for (const char *p = head; *p && at + 1 < size; p++) text[at++] = *p;
  for (const char *p = path; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c < 0x20 || c == 0x7f) continue;
    if (at + 4 >= size) return 0;
    if (c == '"' || c == '\\') text[at++] = '\\';
    text[at++] = (char)c;
  }
  if (at + 3 >= size) return 0;
  text[at++] = '"';
  text[at++] = '\n';
  text[at] = '\0';
  return 1;
}

/* Build the file: 0, or 1 with the compiler's log on stderr. */
static int build_program(kernel_run *r, const char *source, size_t length) {
  cl_device_id device = clgpu_context_device(r->context);
  cl_int err = CL_SUCCESS;
  char line[4200];
  const char *sources[2] = {line, source};
  size_t lengths[2] = {0, length};
  cl_uint count = 2;
  if (line_directive(r->options->file, line, sizeof line)) {
    lengths[0] = strlen(line);
  } else {
    sources[0] = source; /* a path too long to name: the messages keep the implementation's name */
    lengths[0] = length;
    count = 1;
  }
  r->program = clCreateProgramWithSource(clgpu_context_cl_context(r->context), count, sources,
                                         lengths, &err);
  if (err != CL_SUCCESS) {
    r->program = NULL;
    return cl_failure("clCreateProgramWithSource", err);
  }
  double start = bench_now_ms();
  err = clBuildProgram(r->program, 1, &device, r->build_options, NULL, NULL);
  r->build_ms = bench_now_ms() - start;
  size_t log_size = 0;
  char *log = NULL;
  if (clGetProgramBuildInfo(r->program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size) ==
          CL_SUCCESS &&
      log_size > 0) {
    log = malloc(log_size + 1);
    if (log && clGetProgramBuildInfo(r->program, device, CL_PROGRAM_BUILD_LOG, log_size, log,
                                     NULL) != CL_SUCCESS) {
      log[0] = '\0';
    }
    if (log) log[log_size] = '\0';
  }
  int blank = 1;
  for (const char *p = log; p && *p && blank; p++) blank = isspace((unsigned char)*p) != 0;
  bench_progress_clear();
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clgpu-bench kernel: building %s failed: %s (%d), options \"%s\"; ",
            r->options->file, clgpu_status_name(err), (int)err, r->build_options);
    if (blank) {
      fprintf(stderr, "the compiler's log is empty\n");
    } else {
      size_t end = strlen(log);
      fprintf(stderr, "the compiler's log:\n%s%s", log, end && log[end - 1] == '\n' ? "" : "\n");
    }
    free(log);
    return 1;
  }
  /* Warnings (or, from Intel's CPU runtime, remarks on every build): worth
   * seeing, and no reason to stop; shown once the arguments are known to
   * fit the kernel, so that a usage error stays one line. */
  if (!blank) {
    r->build_log = log;
  } else {
    free(log);
  }
  return 0;
}

static void show_build_log(const kernel_run *r) {
  if (!r->build_log) return;
  size_t end = strlen(r->build_log);
  bench_progress_clear();
  fprintf(stderr, "clgpu-bench kernel: the compiler's log for %s:\n%s%s", r->options->file,
          r->build_log, end && r->build_log[end - 1] == '\n' ? "" : "\n");
}

/* The kernel, or exit status 1 with the program's kernel names. */
static int create_kernel(kernel_run *r) {
  cl_int err = CL_SUCCESS;
  r->kernel = clCreateKernel(r->program, r->options->kernel, &err);
  if (err == CL_SUCCESS) return 0;
  r->kernel = NULL;
  if (err != CL_INVALID_KERNEL_NAME) return cl_failure("clCreateKernel", err);
  /* CL_PROGRAM_KERNEL_NAMES: "a;b;c", shown as "a, b, c". */
  size_t size = 0;
  char *names = NULL, *shown = NULL;
  if (clGetProgramInfo(r->program, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &size) == CL_SUCCESS &&
      size > 0 && (names = calloc(size + 1, 1)) != NULL && (shown = calloc(2 * size + 1, 1)) &&
      clGetProgramInfo(r->program, CL_PROGRAM_KERNEL_NAMES, size, names, NULL) == CL_SUCCESS) {
    char *to = shown;
    for (const char *p = names; *p; p++) {
      if (*p == ';') {
        *to++ = ',';
        *to++ = ' ';
      } else {
        *to++ = *p;
      }
    }
  }
  bench_progress_clear();
  fprintf(stderr, "clgpu-bench kernel: %s has no kernel '%s' (its kernels: %s)\n", r->options->file,
          r->options->kernel, shown && shown[0] ? shown : "none");
  free(shown);
  free(names);
  return 1;
}

/* The spec count against CL_KERNEL_NUM_ARGS, and, where the device reports
 * parameters, each spec's kind against its parameter's: 0, or 2. */
static int check_parameters(const kernel_run *r) {
  const kernel_options *o = r->options;
  cl_uint count = 0;
  cl_int err = clGetKernelInfo(r->kernel, CL_KERNEL_NUM_ARGS, sizeof count, &count, NULL);
  if (err != CL_SUCCESS) return cl_failure("clGetKernelInfo(CL_KERNEL_NUM_ARGS)", err);
  char names[512] = "";
  for (cl_uint k = 0; k < count; k++) {
    char name[128] = "";
    if (clGetKernelArgInfo(r->kernel, k, CL_KERNEL_ARG_NAME, sizeof name, name, NULL) !=
        CL_SUCCESS) {
      names[0] = '\0';
      break;
    }
    size_t used = strlen(names);
    snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "", name);
  }
  if (count != o->num_args) {
    return kernel_usage_error("kernel '%s' takes %u argument%s%s%s%s; %zu --arg spec%s given",
                              o->kernel, count, count == 1 ? "" : "s", names[0] ? " (" : "", names,
                              names[0] ? ")" : "", o->num_args,
                              o->num_args == 1 ? " was" : "s were");
  }
  for (cl_uint k = 0; k < count; k++) {
    const arg_spec *a = &o->args[k];
    cl_kernel_arg_address_qualifier address = 0;
    char type_name[128] = "", name[128] = "";
    if (clGetKernelArgInfo(r->kernel, k, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address, &address,
                           NULL) != CL_SUCCESS ||
        clGetKernelArgInfo(r->kernel, k, CL_KERNEL_ARG_TYPE_NAME, sizeof type_name, type_name,
                           NULL) != CL_SUCCESS) {
      return 0; /* not reported: clSetKernelArg checks what it can */
    }
    clGetKernelArgInfo(r->kernel, k, CL_KERNEL_ARG_NAME, sizeof name, name, NULL);
    int pointer = strchr(type_name, '*') != NULL;
    const char *wanted = NULL;
    if (address == CL_KERNEL_ARG_ADDRESS_LOCAL) {
      if (a->kind != ARG_LOCAL) wanted = "local:BYTES";
    } else if (address == CL_KERNEL_ARG_ADDRESS_GLOBAL ||
               address == CL_KERNEL_ARG_ADDRESS_CONSTANT) {
      if (a->kind != ARG_BUFFER) wanted = "a buffer, TYPE[COUNT]";
    } else if (pointer || a->kind != ARG_SCALAR) {
      wanted = "a scalar, TYPE=VALUE";
    }
    if (wanted) {
      return kernel_usage_error("--arg %u '%s': parameter %u '%s' of %s is %s%s, so it takes %s", k,
                                a->text, k, name, o->kernel,
                                address == CL_KERNEL_ARG_ADDRESS_LOCAL      ? "__local "
                                : address == CL_KERNEL_ARG_ADDRESS_GLOBAL   ? "__global "
                                : address == CL_KERNEL_ARG_ADDRESS_CONSTANT ? "__constant "
                                                                            : "",
                                type_name, wanted);
    }
    const arg_type *known = bench_arg_type_of_parameter(type_name);
    if (known && a->type && known != a->type) {
      if (a->kind == ARG_SCALAR) {
        return kernel_usage_error("--arg %u '%s': parameter %u '%s' of %s is a %s, not a %s", k,
                                  a->text, k, name, o->kernel, type_name, a->type->name);
      }
      bench_progress_clear();
      fprintf(stderr,
              "clgpu-bench kernel: note: --arg %u '%s' is %s data for parameter '%s' (%s)\n", k,
              a->text, a->type->name, name, type_name);
    }
  }
  return 0;
}

/* Buffers made and filled, every argument set: 0, 1 (OpenCL failed) or 2
 * (OpenCL refused an argument: a spec that does not fit its parameter). */
static int set_arguments(kernel_run *r) {
  const kernel_options *o = r->options;
  r->buffers = calloc(o->num_args ? o->num_args : 1, sizeof *r->buffers);
  if (!r->buffers) return cl_failure("making buffers", CL_OUT_OF_HOST_MEMORY);
  cl_context cl = clgpu_context_cl_context(r->context);
  for (size_t k = 0; k < o->num_args; k++) {
    const arg_spec *a = &o->args[k];
    cl_int err = CL_SUCCESS;
    if (a->kind == ARG_BUFFER) {
      void *host = malloc(a->bytes);
      if (!host) return cl_failure("filling a buffer", CL_OUT_OF_HOST_MEMORY);
      bench_arg_fill(a, k, host);
      r->buffers[k] =
          clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, a->bytes, host, &err);
      free(host);
      if (err != CL_SUCCESS) {
        r->buffers[k] = NULL;
        char what[96];
        snprintf(what, sizeof what, "clCreateBuffer for --arg %zu (%zu bytes)", k, a->bytes);
        return cl_failure(what, err);
      }
      r->buffer_bytes += a->bytes;
      err = clSetKernelArg(r->kernel, (cl_uint)k, sizeof(cl_mem), &r->buffers[k]);
    } else if (a->kind == ARG_LOCAL) {
      err = clSetKernelArg(r->kernel, (cl_uint)k, a->bytes, NULL);
    } else {
      err = clSetKernelArg(r->kernel, (cl_uint)k, a->type->size, a->value);
    }
    if (err != CL_SUCCESS) {
      return kernel_usage_error("--arg %zu '%s': clSetKernelArg refused it: %s (%d)%s", k, a->text,
                                clgpu_status_name(err), (int)err,
                                err == CL_INVALID_ARG_SIZE ? ": not the parameter's size" : "");
    }
  }
  return 0;
}

static int device_has_timer(const kernel_run *r) {
  return r->device->profiling_timer_resolution_ns > 0;
}

/* --warmup untimed calls, then --repeat timed ones: 0, or 1. */
static int time_kernel(kernel_run *r) {
  const kernel_options *o = r->options;
  double *wall = malloc(sizeof(double) * (size_t)o->repeat);
  double *device = malloc(sizeof(double) * (size_t)o->repeat);
  if (!wall || !device) {
    free(wall);
    free(device);
    return cl_failure("timing", CL_OUT_OF_HOST_MEMORY);
  }
  const size_t *local = o->local_dims ? o->local : NULL;
  int failed = 0;
  for (int call = 0; call < o->warmup + o->repeat && !failed; call++) {
    bench_progress("clgpu-bench kernel: %s: %s call %d of %d", o->kernel,
                   call < o->warmup ? "warm-up" : "timed",
                   call < o->warmup ? call + 1 : call - o->warmup + 1,
                   call < o->warmup ? o->warmup : o->repeat);
    cl_event event = NULL;
    double start = bench_now_ms();
    cl_int err = clEnqueueNDRangeKernel(r->queue, r->kernel, o->dims, NULL, o->global, local, 0,
                                        NULL, &event);
    if (err == CL_SUCCESS) err = clFinish(r->queue);
    double ms = bench_now_ms() - start;
    if (err != CL_SUCCESS) {
      failed = cl_failure(
          call < o->warmup ? "running the kernel (a warm-up call)" : "running the kernel", err);
    } else if (call >= o->warmup) {
      wall[call - o->warmup] = ms;
      device[call - o->warmup] = bench_event_ms(event);
    }
    if (event) clReleaseEvent(event);
  }
  if (!failed) {
    r->wall = bench_summarize(wall, o->repeat);
    /* A device without a profiling timer (resolution 0 ns: rusticl of Mesa
     * 22.3 gives every command the times 0, 1, 2 and 3 ns) has no device
     * times, so none are shown rather than 1 ns. */
    if (device_has_timer(r)) r->event = bench_summarize(device, o->repeat);
  }
  free(wall);
  free(device);
  return failed;
}

/* ---- output ---- */

/* GB/s of buffer bytes over a time; none without buffer arguments. */
static double buffer_gbps(size_t bytes, const bench_timing *t) {
  return bytes > 0 ? bench_gbps((double)bytes, t) : NAN;
}

typedef struct kernel_figures {
  double gbps, wall_gbps, reference_gbps, share;
} kernel_figures;

static kernel_figures figures(const kernel_run *r) {
  kernel_figures f;
  f.gbps = buffer_gbps(r->buffer_bytes, &r->event);
  f.wall_gbps = buffer_gbps(r->buffer_bytes, &r->wall);
  f.reference_gbps = r->has_reference ? buffer_gbps(r->reference_bytes, &r->reference_event) : NAN;
  f.share = f.gbps / f.reference_gbps;
  return f;
}

/* "65536" or "64x64x4". */
static const char *dims_text(const size_t *sizes, cl_uint dims, char *buffer, size_t size) {
  buffer[0] = '\0';
  for (cl_uint d = 0; d < dims; d++) {
    size_t used = strlen(buffer);
    snprintf(buffer + used, size - used, "%s%zu", d ? "x" : "", sizes[d]);
  }
  return buffer;
}

static const char *bytes_text(double bytes, char *buffer, size_t size) {
  if (bytes >= 1024.0 * 1024 * 1024) {
    snprintf(buffer, size, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  } else if (bytes >= 1024.0 * 1024) {
    snprintf(buffer, size, "%.1f MiB", bytes / (1024.0 * 1024));
  } else if (bytes >= 1024.0) {
    snprintf(buffer, size, "%.1f KiB", bytes / 1024.0);
  } else {
    snprintf(buffer, size, "%.0f bytes", bytes);
  }
  return buffer;
}

static void print_table(const kernel_run *r) {
  const kernel_options *o = r->options;
  kernel_figures f = figures(r);
  char title[640], global[96], local[96], bytes[32];
  printf("%s\n", bench_device_title(r->device, title, sizeof title));
  printf("kernel %s from %s, built in %.1f ms with \"%s\"\n", o->kernel, o->file, r->build_ms,
         r->build_options);
  printf("global %s, local %s; %d timed calls after %d warm-up calls\n",
         dims_text(o->global, o->dims, global, sizeof global),
         o->local_dims ? dims_text(o->local, o->dims, local, sizeof local)
                       : "NULL (the implementation's choice)",
         o->repeat, o->warmup);
  for (size_t k = 0; k < o->num_args; k++) {
    const arg_spec *a = &o->args[k];
    if (a->kind == ARG_BUFFER) {
      printf("  arg %zu  %-24s buffer of %zu %s, %s, %s%s\n", k, a->text, a->count, a->type->name,
             bytes_text((double)a->bytes, bytes, sizeof bytes), bench_arg_fill_name(a),
             a->fill == FILL_RANDOM && a->type->kind == KIND_FLOAT ? " in [0, 1)" : "");
    } else if (a->kind == ARG_LOCAL) {
      printf("  arg %zu  %-24s __local, %zu bytes\n", k, a->text, a->bytes);
    } else {
      printf("  arg %zu  %-24s scalar %s %s\n", k, a->text, a->type->name, a->value_text);
    }
  }
  char event[64], wall[64], gbps[24], reference[24], share[16];
  int name_width = (int)strlen(o->kernel) > 12 ? (int)strlen(o->kernel) : 12;
  printf("\n%-*s %28s %28s %9s %10s %6s\n", name_width, "kernel", "device ms: median (min-max)",
         "wall ms: median (min-max)", "GB/s", "read GB/s", "%read");
  printf("%-*s %28s %28s %9s %10s %6s\n", name_width, o->kernel,
         bench_timing_text(&r->event, event, sizeof event),
         bench_timing_text(&r->wall, wall, sizeof wall),
         bench_format_or_na(gbps, sizeof gbps, "%.2f", f.gbps),
         bench_format_or_na(reference, sizeof reference, "%.2f", f.reference_gbps),
         bench_format_or_na(share, sizeof share, "%.0f%%", 100 * f.share));
  printf(
      "\nGB/s: the bytes of all buffer arguments (%s), each counted once, over the median\n"
      "device time (the calls' profiling events).\n",
      bytes_text((double)r->buffer_bytes, bytes, sizeof bytes));
  if (!device_has_timer(r)) {
    printf(
        "No device times: the device's profiling timer resolution is 0 ns (no timer), so\n"
        "device ms, GB/s and the read-bandwidth reference are n/a.\n");
  } else if (r->has_reference) {
    printf(
        "read GB/s: the read kernel of 'clgpu-bench run' over as many bytes (%s of uint32),\n"
        "its median device time over as many calls; %%read: GB/s over read GB/s.\n",
        bytes_text((double)r->reference_bytes, bytes, sizeof bytes));
  } else {
    printf("No read-bandwidth reference (%s).\n",
           o->no_reference ? "--no-reference" : "no buffer arguments");
  }
}

static void print_csv(const kernel_run *r) {
  const kernel_options *o = r->options;
  kernel_figures f = figures(r);
  char global[96], local[96];
  printf(BENCH_CSV_DEVICE_COLUMNS
         ",file,kernel,global,local,"
         "build_options,build_ms,repeat,warmup,arguments,bytes,event_ms_median,event_ms_min,"
         "event_ms_max,wall_ms_median,wall_ms_min,wall_ms_max,gb_per_s,wall_gb_per_s,reference_op,"
         "reference_bytes,reference_event_ms_median,reference_gb_per_s,share_of_reference\n");
  bench_csv_device(stdout, r->device);
  putchar(',');
  bench_csv_string(stdout, o->file);
  putchar(',');
  bench_csv_string(stdout, o->kernel);
  printf(",%s,%s,", dims_text(o->global, o->dims, global, sizeof global),
         o->local_dims ? dims_text(o->local, o->dims, local, sizeof local) : "");
  bench_csv_string(stdout, r->build_options);
  putchar(',');
  bench_csv_number(stdout, r->build_ms);
  printf(",%d,%d,\"", o->repeat, o->warmup);
  for (size_t k = 0; k < o->num_args; k++) {
    printf("%s", k ? " " : "");
    for (const char *p = o->args[k].text; *p; p++) {
      if (*p == '"') putchar('"');
      putchar(*p);
    }
  }
  printf("\",%zu,", r->buffer_bytes);
  const bench_timing *timings[] = {&r->event, &r->wall};
  for (size_t t = 0; t < 2; t++) {
    bench_csv_number(stdout, timings[t]->valid ? timings[t]->median : NAN);
    putchar(',');
    bench_csv_number(stdout, timings[t]->valid ? timings[t]->min : NAN);
    putchar(',');
    bench_csv_number(stdout, timings[t]->valid ? timings[t]->max : NAN);
    putchar(',');
  }
  bench_csv_number(stdout, f.gbps);
  putchar(',');
  bench_csv_number(stdout, f.wall_gbps);
  if (r->has_reference) {
    printf(",read,%zu,", r->reference_bytes);
    bench_csv_number(stdout, r->reference_event.valid ? r->reference_event.median : NAN);
  } else {
    printf(",,,");
  }
  putchar(',');
  bench_csv_number(stdout, f.reference_gbps);
  putchar(',');
  bench_csv_number(stdout, f.share);
  putchar('\n');
}

/* [N, N, N]: a work size. */
static void print_json_sizes(FILE *out, const size_t *sizes, cl_uint dims) {
  fputc('[', out);
  for (cl_uint d = 0; d < dims; d++) fprintf(out, "%s%zu", d ? ", " : "", sizes[d]);
  fputc(']', out);
}

static void print_json(const kernel_run *r) {
  const kernel_options *o = r->options;
  kernel_figures f = figures(r);
  FILE *out = stdout;
  bench_json_report_start(out, "clgpu-bench kernel", r->device);
  bench_json_string_member(out, ",\n  ", "file", o->file);
  bench_json_string_member(out, ",\n  ", "kernel", o->kernel);
  fputs(",\n  \"global\": ", out);
  print_json_sizes(out, o->global, o->dims);
  fputs(",\n  \"local\": ", out);
  if (o->local_dims) {
    print_json_sizes(out, o->local, o->dims);
  } else {
    fputs("null", out);
  }
  fputs(",\n  \"defines\": [", out);
  for (size_t k = 0; k < o->num_defines; k++) {
    if (k) fputs(", ", out);
    bench_json_string(out, o->defines[k]);
  }
  fputc(']', out);
  bench_json_string_member(out, ",\n  ", "build_options", r->build_options);
  bench_json_number_member(out, ",\n  ", "build_ms", r->build_ms);
  fprintf(out, ",\n  \"repeat\": %d,\n  \"warmup\": %d,\n  \"arguments\": [", o->repeat, o->warmup);
  for (size_t k = 0; k < o->num_args; k++) {
    const arg_spec *a = &o->args[k];
    fprintf(out, "%s\n    {\"index\": %zu", k ? "," : "", k);
    bench_json_string_member(out, ", ", "spec", a->text);
    fprintf(out, ", \"kind\": \"%s\"", bench_arg_kind_name(a));
    if (a->type) fprintf(out, ", \"type\": \"%s\"", a->type->name);
    if (a->kind == ARG_BUFFER) {
      fprintf(out, ", \"count\": %zu, \"fill\": \"%s\"", a->count, bench_arg_fill_name(a));
    }
    if (a->value_text) bench_json_string_member(out, ", ", "value", a->value_text);
    fprintf(out, ", \"bytes\": %zu}", a->bytes);
  }
  fprintf(out, "%s],\n  \"bytes\": %zu,\n", o->num_args ? "\n  " : "", r->buffer_bytes);
  fputs("  \"units\": {\"time\": \"ms\", \"throughput\": \"GB/s (1e9 bytes)\"}", out);
  bench_json_timing(out, ",\n  ", "event_ms", &r->event);
  bench_json_timing(out, ",\n  ", "wall_ms", &r->wall);
  bench_json_number_member(out, ",\n  ", "gb_per_s", f.gbps);
  bench_json_number_member(out, ",\n  ", "wall_gb_per_s", f.wall_gbps);
  bench_json_string_member(out, ",\n  ", "reference_op", r->has_reference ? "read" : NULL);
  fputs(",\n  \"reference_bytes\": ", out);
  if (r->has_reference) {
    fprintf(out, "%zu", r->reference_bytes);
  } else {
    fputs("null", out);
  }
  bench_json_timing(out, ",\n  ", "reference_event_ms", &r->reference_event);
  bench_json_timing(out, ",\n  ", "reference_wall_ms", &r->reference_wall);
  bench_json_number_member(out, ",\n  ", "reference_gb_per_s", f.reference_gbps);
  bench_json_number_member(out, ",\n  ", "share_of_reference", f.share);
  fputs("\n}\n", out);
}

/* ---- the subcommand ---- */

int bench_command_kernel(int argc, char **argv) {
  kernel_options o;
  memset(&o, 0, sizeof o);
  o.args = calloc((size_t)(argc > 0 ? argc : 1), sizeof *o.args);
  o.defines = calloc((size_t)(argc > 0 ? argc : 1), sizeof *o.defines);
  if (!o.args || !o.defines) {
    free(o.args);
    free(o.defines);
    return cl_failure("parsing options", CL_OUT_OF_HOST_MEMORY);
  }
  int status = parse_kernel_options(argc, argv, &o);
  if (status == 0) status = bench_use_device(&kernel_command, o.device);
  char *source = NULL;
  size_t length = 0;
  if (status == 0) status = read_file(o.file, &source, &length);
  bench_output output;
  if (status == 0) status = bench_output_open(&kernel_command, "--output", o.output, &output);
  if (status != 0) {
    free(source);
    free(o.args);
    free(o.defines);
    return status < 0 ? 0 : status;
  }
  bench_progress_enabled = !o.quiet && isatty(STDERR_FILENO);

  kernel_run r;
  memset(&r, 0, sizeof r);
  r.options = &o;
  clgpu_status created = clgpu_context_create(NULL, &r.context);
  if (created != CLGPU_SUCCESS) {
    status = bench_report_failure("creating a context", created);
  } else {
    r.device = clgpu_context_device_info(r.context);
    r.queue = clgpu_context_queue(r.context);
    status = check_against_device(&r);
  }
  if (status == 0) {
    r.build_options = make_build_options(&o);
    if (!r.build_options) status = cl_failure("build options", CL_OUT_OF_HOST_MEMORY);
  }
  if (status == 0) {
    bench_progress("clgpu-bench kernel: building %s", o.file);
    status = build_program(&r, source, length);
  }
  if (status == 0) status = create_kernel(&r);
  if (status == 0) status = check_parameters(&r);
  if (status == 0) {
    bench_progress("clgpu-bench kernel: making and filling %zu arguments", o.num_args);
    status = set_arguments(&r);
  }
  if (status != 2) show_build_log(&r);
  if (status == 0) status = time_kernel(&r);
  if (status == 0 && !o.no_reference && r.buffer_bytes > 0 && device_has_timer(&r)) {
    bench_progress("clgpu-bench kernel: timing the read kernel over %zu bytes", r.buffer_bytes);
    status = bench_measure_read(r.context, r.buffer_bytes, o.repeat, o.warmup, &r.reference_event,
                                &r.reference_wall, &r.reference_bytes);
    r.has_reference = status == 0;
  }
  bench_progress_clear();
  if (status == 0) status = bench_output_begin(&output, "clgpu-bench kernel: ");
  if (status == 0) {
    if (o.format == OUT_JSON) {
      print_json(&r);
    } else if (o.format == OUT_CSV) {
      print_csv(&r);
    } else {
      print_table(&r);
    }
    fflush(stdout);
    status = bench_output_end(&output, "clgpu-bench kernel: ");
  }
  bench_output_discard(&output); /* no report: a file made for it is removed */
  release_run(&r);
  free(source);
  free(o.args);
  free(o.defines);
  return status;
}
