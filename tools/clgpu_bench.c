/* clgpu-bench: the library's command-line tool.
 *
 * Subcommands so far (with none, or with run's options only, it does `run`):
 *   selfcheck           list the devices, run one kernel on the default device,
 *                       check its result against the host, and time the first
 *                       call with a cold and a warm disk cache
 *   devices             list platforms and devices and the default choice
 *   first-call          time the first call of one kernel in this process
 *                       (run it twice over one cache folder to compare cold
 *                       and warm disk caches across processes)
 *   run                 time the library's operations (reduce, count_if, scan,
 *                       findall, copy, strided copy, radix sort, sort by key,
 *                       merge sort through a comparator, argsort) per type
 *                       and size: wall clock and profiling events, GB/s, the
 *                       share of the device's read and copy bandwidth
 *                       (measured in the same run with plain kernels), CPU
 *                       baselines, and Boost.Compute's equivalents when the
 *                       build found Boost (bench_boost.cpp, Meson feature
 *                       boost_compute); every result checked against the host;
 *                       and elementwise kernels (contiguous,
 *                       strided, transposed) and strided copies, each beside a
 *                       peer in the same run (a hand-written kernel, the
 *                       contiguous case, clEnqueueCopyBuffer); each
 *                       operation's first call with a cold and a warm
 *                       program cache, each in a process of its own (the
 *                       internal subcommand run-first-call); --plot draws
 *                       GB/s against size as SVG (bench_plot.c)
 *   compare             run's operations on every device present, each device
 *                       measured by `run` in child processes of its own
 *                       (CLGPU_DEVICE=P:D, a timeout), as one table with a
 *                       column per device (bench_compare.c)
 *   kernel              build the user's .cl file and time one of its kernels
 *                       over buffers made from argument specs: device time
 *                       from profiling events, wall time, GB/s and the share
 *                       of the device's read bandwidth (bench_kernel.c)
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <clgpu/clgpu.h>

#include "bench_boost.h"
#include "bench_common.h"
#include "bench_compare.h"
#include "bench_kernel.h"
#include "bench_plot.h"

static const char usage_text[] =
    "usage: clgpu-bench [SUBCOMMAND] [OPTIONS]\n"
    "       clgpu-bench [RUN OPTIONS]   (the same as clgpu-bench run [RUN OPTIONS])\n"
    "\n"
    "Subcommands:\n"
    "  run                  (the default) time reduce, count_if, scan, findall,\n"
    "                       copies and sorts (radix_sort, sort_by_key, merge_sort,\n"
    "                       argsort) per type and size beside the device's read\n"
    "                       and copy bandwidth,\n"
    "                       a CPU baseline and Boost.Compute; results checked;\n"
    "                       and elementwise kernels and strided copies beside a\n"
    "                       hand-written kernel and clEnqueueCopyBuffer;\n"
    "                       each operation's first call with a cold and a warm\n"
    "                       program cache, each in a new process;\n"
    "                       --plot FILE.svg draws GB/s against size\n"
    "  kernel               build FILE.cl and time one of its kernels over buffers\n"
    "                       made from argument specs (device and wall time, GB/s,\n"
    "                       share of the device's read bandwidth)\n"
    "  compare              run's operations on every device present, each in child\n"
    "                       processes of its own (a crash or hang fails only its\n"
    "                       column): one table, a column per device, of GB/s and\n"
    "                       share of that device's read or copy bandwidth, its\n"
    "                       bandwidth and first-call time; results checked\n"
    "  selfcheck            list devices, run one kernel on the default device,\n"
    "                       check it against the host, and time its first call\n"
    "                       with a cold and a warm disk cache\n"
    "  devices              list OpenCL platforms and devices\n"
    "  first-call           time the first call of one kernel in this process\n"
    "\n"
    "The device is chosen by CLGPU_DEVICE (\"P:D\", a flat index, or part of a\n"
    "platform or device name), else the first GPU, accelerator or CPU.\n"
    "Run 'clgpu-bench SUBCOMMAND --help' for a subcommand's options.\n";

static int usage_error(const char *format, const char *argument) {
  fprintf(stderr, "clgpu-bench: ");
  fprintf(stderr, format, argument);
  fprintf(stderr, " (see clgpu-bench --help)\n");
  return 2;
}

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

static void print_device(const clgpu_device_info *info) {
  printf("device:     %s / %s (%s)\n", info->platform_name, info->name,
         bench_device_type_name(info->type));
  printf("            %s; %s; driver %s\n", info->device_version, info->opencl_c_version,
         info->driver_version);
  printf(
      "            %u compute units at %u MHz; global %.1f GiB, max allocation %.1f GiB, "
      "local %.0f KiB\n",
      info->compute_units, info->max_clock_mhz,
      (double)info->global_mem_size / (1024.0 * 1024 * 1024),
      (double)info->max_mem_alloc_size / (1024.0 * 1024 * 1024),
      (double)info->local_mem_size / 1024.0);
  printf("            work-group max %zu; fp64 %s, fp16 %s, 64-bit atomics %s, sub-groups %s\n",
         info->max_work_group_size, info->has_fp64 ? "yes" : "no", info->has_fp16 ? "yes" : "no",
         info->has_int64_base_atomics ? "yes" : "no", info->has_subgroups ? "yes" : "no");
}

static int command_devices(int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf(
          "usage: clgpu-bench devices\n\nList every OpenCL platform and device with its "
          "index, and the device clgpu chooses by default (or by CLGPU_DEVICE).\n");
      return 0;
    }
    return usage_error("devices: unknown option '%s'", argv[i]);
  }
  size_t needed = 0;
  clgpu_status status = clgpu_device_list(NULL, 0, &needed);
  if (status != CLGPU_SUCCESS) return bench_report_failure("listing devices", status);
  char *listing = malloc(needed);
  if (!listing) return 1;
  clgpu_device_list(listing, needed, NULL);
  printf("devices (P:D  platform / device):\n%s", listing);
  free(listing);
  clgpu_context *context = NULL;
  status = clgpu_context_create(NULL, &context);
  if (status != CLGPU_SUCCESS) return bench_report_failure("choosing the default device", status);
  printf("chosen (CLGPU_DEVICE=%s):\n", getenv("CLGPU_DEVICE") ? getenv("CLGPU_DEVICE") : "");
  print_device(clgpu_context_device_info(context));
  clgpu_context_destroy(context);
  return 0;
}

/* Get the fill program, run iota over n elements and check the result; the
 * time from asking for the program to having checked data is the first-call
 * time when the program was not in memory. */
static int run_iota(clgpu_context *context, size_t n, double *elapsed_ms) {
  double start = bench_now_ms();
  clgpu_define defines[] = {{"CLGPU_T", "uint"}};
  clgpu_program *program = NULL;
  clgpu_status status = clgpu_program_get_named(context, "fill", defines, 1, NULL, &program);
  if (status != CLGPU_SUCCESS) return bench_report_failure("building fill.cl", status);
  cl_kernel kernel = NULL;
  status = clgpu_kernel_acquire(program, "clgpu_iota", &kernel);
  if (status != CLGPU_SUCCESS) return bench_report_failure("creating clgpu_iota", status);
  cl_int err = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE,
                                 n * sizeof(cl_uint), NULL, &err);
  if (err != CL_SUCCESS) {
    clgpu_kernel_release(program, kernel);
    return bench_report_failure("clCreateBuffer", (clgpu_status)err);
  }
  cl_ulong offset = 0, count = n;
  cl_uint first = 7, step = 3;
  clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
  clSetKernelArg(kernel, 1, sizeof offset, &offset);
  clSetKernelArg(kernel, 2, sizeof count, &count);
  clSetKernelArg(kernel, 3, sizeof first, &first);
  clSetKernelArg(kernel, 4, sizeof step, &step);
  size_t local = 64, global = (n + local - 1) / local * local;
  cl_command_queue queue = clgpu_context_queue(context);
  err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
  clgpu_kernel_release(program, kernel);
  cl_uint *host = malloc(n * sizeof *host);
  if (err == CL_SUCCESS && host) {
    err = clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, n * sizeof *host, host, 0, NULL, NULL);
  }
  clReleaseMemObject(buffer);
  *elapsed_ms = bench_now_ms() - start;
  if (!host || err != CL_SUCCESS) {
    free(host);
    return bench_report_failure(
        "running clgpu_iota", err != CL_SUCCESS ? (clgpu_status)err : CLGPU_CL_OUT_OF_HOST_MEMORY);
  }
  size_t bad = n;
  for (size_t i = 0; i < n && bad == n; i++) {
    if (host[i] != (cl_uint)(first + (cl_uint)i * step)) bad = i;
  }
  if (bad != n) {
    fprintf(stderr, "clgpu-bench: iota gave %u at index %zu, expected %u\n", host[bad], bad,
            (cl_uint)(first + (cl_uint)bad * step));
  }
  free(host);
  return bad == n ? 0 : 1;
}

static void print_stats(const char *label, const clgpu_context *context, double ms) {
  clgpu_cache_stats stats;
  clgpu_context_cache_stats(context, &stats);
  printf(
      "%-34s %8.1f ms  (builds %llu in %.1f ms, disk hits %llu in %.1f ms, disk writes "
      "%llu)\n",
      label, ms, (unsigned long long)stats.builds, stats.build_ms,
      (unsigned long long)stats.disk_hits, stats.disk_load_ms,
      (unsigned long long)stats.disk_writes);
}

static int command_first_call(int argc, char **argv) {
  clgpu_context_options options = {0};
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf(
          "usage: clgpu-bench first-call [--cache-dir DIR] [--no-disk-cache]\n\n"
          "Time, in a fresh process, the first call of one kernel (fill.cl's iota over\n"
          "1M uints): getting the program, creating the kernel, running it and reading\n"
          "the result back. With --cache-dir the disk cache is forced on in DIR; run\n"
          "twice over one empty DIR for a cold and then a warm disk cache.\n");
      return 0;
    }
    if (strcmp(argv[i], "--cache-dir") == 0) {
      if (i + 1 >= argc) return usage_error("first-call: %s needs a folder", argv[i]);
      options.cache_dir = argv[++i];
      options.disk_cache = CLGPU_DISK_CACHE_ON;
    } else if (strcmp(argv[i], "--no-disk-cache") == 0) {
      options.disk_cache = CLGPU_DISK_CACHE_OFF;
    } else {
      return usage_error("first-call: unknown option '%s'", argv[i]);
    }
  }
  double start = bench_now_ms();
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(&options, &context);
  if (status != CLGPU_SUCCESS) return bench_report_failure("creating a context", status);
  double context_ms = bench_now_ms() - start;
  double call_ms = 0;
  int failed = run_iota(context, (size_t)1 << 20, &call_ms);
  if (!failed) {
    printf("context creation %.1f ms; ", context_ms);
    print_stats("first call", context, call_ms);
    /* What every later call pays to find its program: a memory hit. */
    enum { HITS = 100000 };
    clgpu_define defines[] = {{"CLGPU_T", "uint"}};
    clgpu_program *program = NULL;
    double hit_start = bench_now_ms();
    for (int i = 0; i < HITS && !failed; i++) {
      failed = clgpu_program_get_named(context, "fill", defines, 1, NULL, &program) != 0;
    }
    printf("memory hit: %.2f us per clgpu_program_get_named (%d calls)\n",
           (bench_now_ms() - hit_start) * 1e3 / HITS, HITS);
  }
  clgpu_context_destroy(context);
  return failed;
}

static int command_selfcheck(int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf(
          "usage: clgpu-bench selfcheck\n\n"
          "List the devices, run fill.cl's iota kernel over 1M uints on the default\n"
          "device (or CLGPU_DEVICE's), check every element against the host, and time\n"
          "the first call with a cold and then a warm disk cache (a temporary folder,\n"
          "removed afterwards). Exit status 0 when the result is right.\n");
      return 0;
    }
    return usage_error("selfcheck: unknown option '%s'", argv[i]);
  }
  printf("clgpu %s\n", clgpu_version());
  int failed = command_devices(0, NULL);
  if (failed) return failed;

  char folder[] = "/tmp/clgpu-selfcheck-XXXXXX";
  if (!mkdtemp(folder)) {
    fprintf(stderr, "clgpu-bench: cannot make a temporary folder: %s\n", strerror(errno));
    return 1;
  }
  clgpu_context_options options = {0};
  options.cache_dir = folder;
  options.disk_cache = CLGPU_DISK_CACHE_ON;
  const char *labels[] = {"first call, cold disk cache:", "first call, warm disk cache:"};
  for (int round = 0; round < 2 && !failed; round++) {
    clgpu_context *context = NULL;
    clgpu_status status = clgpu_context_create(&options, &context);
    if (status != CLGPU_SUCCESS) {
      failed = bench_report_failure("creating a context", status);
      break;
    }
    double ms = 0;
    failed = run_iota(context, (size_t)1 << 20, &ms);
    if (!failed) print_stats(labels[round], context, ms);
    clgpu_context_destroy(context);
  }
  size_t removed = 0;
  clgpu_disk_cache_clear(folder, &removed);
  rmdir(folder);
  printf("selfcheck: %s\n", failed ? "FAILED" : "iota over 1M uints matches the host: ok");
  return failed;
}

/* ==== run: time the library's operations ==== */

/* What `run` measures, in the order it measures them: the two bandwidth
 * references first, so every operation's share can be computed. */
enum {
  OP_READ,
  OP_COPY_KERNEL,
  OP_REDUCE,
  OP_COUNT_IF,
  OP_SCAN,
  OP_FINDALL,
  OP_COPY,
  OP_COPY_STRIDED,
  OP_RADIX_SORT,
  OP_SORT_BY_KEY,
  OP_MERGE_SORT,
  OP_ARGSORT,
  /* Elementwise kernels (elementwise.h) and strided copies (copy.h), each
   * timed beside a peer in the same run (op_info.peer). */
  OP_ELEMENTWISE,
  OP_ELEMENTWISE_STRIDED,
  OP_ELEMENTWISE_TRANSPOSED,
  OP_STRIDED_COPY,
  OP_STRIDED_COPY_TRANSPOSED,
  NUM_OPS
};

/* The sizes of the default run (bits of op_info.default_sizes). */
static const size_t default_sizes[] = {(size_t)1 << 20, (size_t)16 << 20};
#define NUM_DEFAULT_SIZES (sizeof default_sizes / sizeof default_sizes[0])
#define SIZES_1M 1u
#define SIZES_16M 2u
/* Types by their index in host_types (bits of op_info.default_types). */
#define TYPES_UINT32 1u
#define TYPES_FLOAT 2u
#define TYPES_ALL 0x1fu /* every entry of host_types */

/* Sorts at this many elements or more run fewer calls by default (their
 * qsort baseline alone takes seconds a call): SORT_LARGE_REPEAT timed calls
 * after SORT_LARGE_WARMUP, unless --repeat or --warmup say otherwise. */
#define SORT_LARGE ((size_t)4 << 20)
#define SORT_LARGE_REPEAT 3
#define SORT_LARGE_WARMUP 1

typedef struct op_info {
  const char *name;
  int reference;          /* OP_READ or OP_COPY_KERNEL: the bandwidth it is a share of */
  bench_boost_op boost;   /* Boost.Compute's counterpart, or BENCH_BOOST_NONE */
  const char *cpu_label;  /* what the CPU baseline runs */
  int sort;               /* a sort: refilled before every call, sort baselines */
  unsigned default_types; /* the types it runs at when --types is not given */
  unsigned default_sizes; /* the sizes it runs at when --sizes is not given */
  /* The types it runs at at all: others are skipped even when --types names
   * them (with a note on stderr). */
  unsigned supported_types;
  int in_default;     /* part of the run when --ops is not given (all are, for now) */
  const char *select; /* another --ops name that selects it too; NULL: none */
  int two_d;          /* over an s x s array, s = floor(sqrt(n)) */
  const char *peer;   /* what it is timed beside in the same run; NULL: nothing */
} op_info;

#define ALL_DEFAULT_TYPES (TYPES_UINT32 | TYPES_FLOAT)

static const op_info op_table[NUM_OPS] = {
    {"read", -1, BENCH_BOOST_NONE, "C read loop, all threads", 0, ALL_DEFAULT_TYPES, SIZES_16M,
     TYPES_ALL, 1, NULL, 0, NULL},
    {"copy_kernel", -1, BENCH_BOOST_NONE, "memcpy", 0, ALL_DEFAULT_TYPES, SIZES_16M, TYPES_ALL, 1,
     NULL, 0, NULL},
    {"reduce", OP_READ, BENCH_BOOST_REDUCE, "C loop, all threads", 0, ALL_DEFAULT_TYPES, SIZES_16M,
     TYPES_ALL, 1, NULL, 0, NULL},
    {"count_if", OP_READ, BENCH_BOOST_COUNT_IF, "C loop, all threads", 0, ALL_DEFAULT_TYPES,
     SIZES_16M, TYPES_ALL, 1, NULL, 0, NULL},
    {"scan", OP_COPY_KERNEL, BENCH_BOOST_INCLUSIVE_SCAN, "C loop, one thread", 0, ALL_DEFAULT_TYPES,
     SIZES_16M, TYPES_ALL, 1, NULL, 0, NULL},
    {"findall", OP_READ, BENCH_BOOST_COPY_IF, "C loop, one thread", 0, ALL_DEFAULT_TYPES, SIZES_16M,
     TYPES_ALL, 1, NULL, 0, NULL},
    {"copy", OP_COPY_KERNEL, BENCH_BOOST_COPY, "C loop, one thread", 0, ALL_DEFAULT_TYPES,
     SIZES_16M, TYPES_ALL, 1, NULL, 0, NULL},
    {"copy_strided", OP_COPY_KERNEL, BENCH_BOOST_REVERSE_COPY, "C loop, one thread", 0,
     ALL_DEFAULT_TYPES, SIZES_16M, TYPES_ALL, 1, NULL, 0, NULL},
    {"radix_sort", OP_COPY_KERNEL, BENCH_BOOST_SORT, "LSD radix, one thread", 1, ALL_DEFAULT_TYPES,
     SIZES_1M | SIZES_16M, TYPES_ALL, 1, NULL, 0, NULL},
    {"sort_by_key", OP_COPY_KERNEL, BENCH_BOOST_SORT_BY_KEY, "LSD radix, one thread", 1,
     TYPES_UINT32, SIZES_1M | SIZES_16M, TYPES_ALL, 1, NULL, 0, NULL},
    {"merge_sort", OP_COPY_KERNEL, BENCH_BOOST_SORT_COMPARE, "LSD radix, one thread", 1,
     TYPES_FLOAT, SIZES_1M | SIZES_16M, TYPES_ALL, 1, NULL, 0, NULL},
    {"argsort", OP_COPY_KERNEL, BENCH_BOOST_ARGSORT, "LSD radix, one thread", 1, TYPES_UINT32,
     SIZES_1M, TYPES_ALL, 1, NULL, 0, NULL},
    /* Timed beside a peer (with them the default run takes about 40 s on a
     * 2-core POCL CPU device, against 30 s without). */
    {"elementwise", OP_COPY_KERNEL, BENCH_BOOST_NONE, "C loop, one thread", 0, ALL_DEFAULT_TYPES,
     SIZES_16M, TYPES_ALL, 1, NULL, 0, "hand-written kernel"},
    {"elementwise_strided", OP_COPY_KERNEL, BENCH_BOOST_NONE, "C loop, one thread", 0, TYPES_FLOAT,
     SIZES_16M, TYPES_FLOAT | TYPES_UINT32, 1, NULL, 1, "contiguous y = x * x"},
    {"elementwise_transposed", OP_COPY_KERNEL, BENCH_BOOST_NONE, "C loop, one thread", 0,
     TYPES_FLOAT, SIZES_16M, TYPES_FLOAT | TYPES_UINT32, 1, NULL, 1, "contiguous y = x * x"},
    {"strided_copy", OP_COPY_KERNEL, BENCH_BOOST_NONE, "C loop, one thread", 0, TYPES_FLOAT,
     SIZES_16M, TYPES_FLOAT | TYPES_UINT32, 1, NULL, 0, "clEnqueueCopyBuffer"},
    {"strided_copy_transposed", OP_COPY_KERNEL, BENCH_BOOST_NONE, "C loop, one thread", 0,
     TYPES_FLOAT, SIZES_16M, TYPES_FLOAT | TYPES_UINT32, 1, "strided_copy", 1,
     "clEnqueueCopyBuffer"},
};

/* What the sorts compare with (merge_sort goes through clgpu's comparator
 * path with it; Boost.Compute's merge_sort peer gets the same expression). */
#define SORT_COMPARE "a < b"

/* ---- host side of each element type: data, CPU baselines, checks ---- */

typedef struct check_message {
  char text[512];
} check_message;

/* A 2-D view of host memory, in elements: element (r, k) of the view is
 * base[first + r * row_stride + k * column_stride], written row-major into a
 * contiguous output (rows * columns elements). A 1-D view is one row. */
typedef struct elementwise_layout {
  size_t rows, columns;
  ptrdiff_t row_stride, column_stride;
  size_t first;
} elementwise_layout;

static size_t layout_at(const elementwise_layout *l, size_t r, size_t k) {
  return (size_t)((ptrdiff_t)l->first + (ptrdiff_t)r * l->row_stride +
                  (ptrdiff_t)k * l->column_stride);
}

typedef struct host_type {
  const char *name; /* as --types takes it */
  clgpu_type type;
  size_t size;
  int is_float;
  const char *predicate;    /* OpenCL C, selects about 10% of the data */
  unsigned char gpu_key[8]; /* a value the GPU-shape read kernel compares with */
  void (*generate)(void *data, size_t n, uint64_t seed);
  void (*sum)(const void *data, size_t begin, size_t end, void *out);
  size_t (*count)(const void *data, size_t begin, size_t end);
  void (*scan)(const void *in, void *out, size_t n);
  size_t (*findall)(const void *in, uint32_t *indices, size_t n);
  void (*copy)(const void *in, void *out, size_t n);
  void (*copy_reversed)(const void *in, void *out, size_t n);
  /* Checks: 0 when right, else 1 with the first difference in *message. */
  int (*check_sum)(const void *in, size_t n, const void *result, check_message *message);
  int (*check_scan)(const void *in, size_t n, const void *out, check_message *message);
  int (*check_selected)(const void *in, size_t n, const void *out, uint64_t count, int as_indices,
                        check_message *message);
  int (*check_reversed)(const void *in, size_t n, const void *out, check_message *message);
  /* Sorts: how keys order (their bits' order-preserving image), and glibc
   * qsort's comparators over keys and over (key, uint32 value) pairs. */
  int kind;
  int (*compare)(const void *a, const void *b);
  int (*compare_pair)(const void *a, const void *b); /* ties broken by value: stable */
  size_t pair_size;
  void (*make_pairs)(const void *keys, const uint32_t *values, void *pairs, size_t n);
  /* The elementwise ops (elementwise_layout describes a 2-D view of host
   * memory): y = a * x + z over n elements; y = x * x over a view into a
   * contiguous y; and their checks (0 when right, else 1 with *message). */
  void (*axpy)(const void *a, const void *x, const void *z, void *y, size_t n);
  int (*check_axpy)(const void *a, const void *x, const void *z, const void *y, size_t n,
                    check_message *message);
  void (*square)(const void *x, const struct elementwise_layout *layout, void *y);
  int (*check_square)(const void *x, const struct elementwise_layout *layout, const void *y,
                      check_message *message);
} host_type;

enum { KIND_UNSIGNED, KIND_SIGNED, KIND_FLOAT };

uint64_t bench_splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Relative error allowed in float and double sums and scans, against the
 * host's sum (in double) of the absolute values: the chunked and tiled
 * orders of reduce.h stay orders of magnitude inside it at these sizes, a
 * naive left-to-right float sum of 16M values in [0, 1) does not. */
#define FLOAT_TOLERANCE 1e-4
#define DOUBLE_TOLERANCE 1e-10

/* One set of host functions per element type. T: the element, U: the type
 * sums are taken in (unsigned for integers, so they wrap like the device's),
 * PRED: the predicate over x in C, TOL: the relative tolerance of sums (0:
 * exact), PF/PC: how to print a value. */
#define HOST_TYPE_FUNCTIONS(S, T, U, PRED, TOL, PF, PC)                                            \
  /* 16 lanes, four rows of them added per step: compilers vectorise it at -O2 and keep */         \
  /* the lanes in registers. */                                                                    \
  static void S##_sum(const void *data, size_t begin, size_t end, void *out) {                     \
    const T *x = data;                                                                             \
    U lanes[16] = {0};                                                                             \
    size_t i = begin;                                                                              \
    for (; i + 64 <= end; i += 64) {                                                               \
      U rows[16];                                                                                  \
      for (int l = 0; l < 16; l++) rows[l] = (U)x[i + (size_t)l] + (U)x[i + 16 + (size_t)l];       \
      for (int l = 0; l < 16; l++) {                                                               \
        rows[l] += (U)x[i + 32 + (size_t)l] + (U)x[i + 48 + (size_t)l];                            \
      }                                                                                            \
      for (int l = 0; l < 16; l++) lanes[l] += rows[l];                                            \
    }                                                                                              \
    U s = 0;                                                                                       \
    for (; i < end; i++) s += (U)x[i];                                                             \
    for (int l = 0; l < 16; l++) s += lanes[l];                                                    \
    memcpy(out, &s, sizeof s);                                                                     \
  }                                                                                                \
  /* In blocks of 64 with a 32-bit count, which compilers vectorise at -O2. */                     \
  static size_t S##_count(const void *data, size_t begin, size_t end) {                            \
    const T *xs = data;                                                                            \
    size_t c = 0, i = begin;                                                                       \
    for (; i + 64 <= end; i += 64) {                                                               \
      uint32_t block = 0;                                                                          \
      for (int l = 0; l < 64; l++) {                                                               \
        T x = xs[i + (size_t)l];                                                                   \
        block += (PRED) ? 1u : 0u;                                                                 \
      }                                                                                            \
      c += block;                                                                                  \
    }                                                                                              \
    for (; i < end; i++) {                                                                         \
      T x = xs[i];                                                                                 \
      c += (PRED) ? 1 : 0;                                                                         \
    }                                                                                              \
    return c;                                                                                      \
  }                                                                                                \
  static void S##_scan(const void *in, void *out, size_t n) {                                      \
    const T *x = in;                                                                               \
    T *y = out;                                                                                    \
    U s = 0;                                                                                       \
    for (size_t i = 0; i < n; i++) {                                                               \
      s += (U)x[i];                                                                                \
      y[i] = (T)s;                                                                                 \
    }                                                                                              \
  }                                                                                                \
  static size_t S##_findall(const void *in, uint32_t *indices, size_t n) {                         \
    const T *xs = in;                                                                              \
    size_t c = 0;                                                                                  \
    for (size_t i = 0; i < n; i++) {                                                               \
      T x = xs[i];                                                                                 \
      indices[c] = (uint32_t)i;                                                                    \
      c += (PRED) ? 1 : 0;                                                                         \
    }                                                                                              \
    return c;                                                                                      \
  }                                                                                                \
  static void S##_copy(const void *in, void *out, size_t n) {                                      \
    const T *x = in;                                                                               \
    T *y = out;                                                                                    \
    for (size_t i = 0; i < n; i++) y[i] = x[i];                                                    \
  }                                                                                                \
  static void S##_copy_reversed(const void *in, void *out, size_t n) {                             \
    const T *x = in;                                                                               \
    T *y = out;                                                                                    \
    for (size_t i = 0; i < n; i++) y[i] = x[n - 1 - i];                                            \
  }                                                                                                \
  static int S##_check_sum(const void *in, size_t n, const void *result, check_message *message) { \
    const T *x = in;                                                                               \
    T got;                                                                                         \
    memcpy(&got, result, sizeof got);                                                              \
    if (TOL > 0) {                                                                                 \
      double exact = 0, magnitude = 0;                                                             \
      for (size_t i = 0; i < n; i++) {                                                             \
        exact += (double)x[i];                                                                     \
        magnitude += fabs((double)x[i]);                                                           \
      }                                                                                            \
      double error = fabs((double)got - exact);                                                    \
      if (error <= TOL * magnitude) return 0;                                                      \
      snprintf(message->text, sizeof message->text,                                                \
               "sum is %.9g, the host's (in double) %.9g: error %.3g above the bound %.3g",        \
               (double)got, exact, error, TOL *magnitude);                                         \
      return 1;                                                                                    \
    }                                                                                              \
    U s = 0;                                                                                       \
    for (size_t i = 0; i < n; i++) s += (U)x[i];                                                   \
    T expected = (T)s;                                                                             \
    if (memcmp(&got, &expected, sizeof got) == 0) return 0;                                        \
    snprintf(message->text, sizeof message->text, "sum is " PF ", the host's " PF, PC got,         \
             PC expected);                                                                         \
    return 1;                                                                                      \
  }                                                                                                \
  static int S##_check_scan(const void *in, size_t n, const void *out, check_message *message) {   \
    const T *x = in, *y = out;                                                                     \
    double exact = 0, magnitude = 0;                                                               \
    U s = 0;                                                                                       \
    for (size_t i = 0; i < n; i++) {                                                               \
      if (TOL > 0) {                                                                               \
        exact += (double)x[i];                                                                     \
        magnitude += fabs((double)x[i]);                                                           \
        double error = fabs((double)y[i] - exact);                                                 \
        if (!(error <= TOL * magnitude)) {                                                         \
          snprintf(message->text, sizeof message->text,                                            \
                   "out[%zu] is %.9g, the host's (in double) %.9g: error %.3g above the "          \
                   "bound %.3g",                                                                   \
                   i, (double)y[i], exact, error, TOL *magnitude);                                 \
          return 1;                                                                                \
        }                                                                                          \
      } else {                                                                                     \
        s += (U)x[i];                                                                              \
        T expected = (T)s;                                                                         \
        if (memcmp(&y[i], &expected, sizeof expected) != 0) {                                      \
          snprintf(message->text, sizeof message->text, "out[%zu] is " PF ", the host's " PF, i,   \
                   PC y[i], PC expected);                                                          \
          return 1;                                                                                \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
    return 0;                                                                                      \
  }                                                                                                \
  static int S##_check_selected(const void *in, size_t n, const void *out, uint64_t count,         \
                                int as_indices, check_message *message) {                          \
    const T *xs = in;                                                                              \
    const uint32_t *indices = out;                                                                 \
    const T *values = out;                                                                         \
    uint64_t j = 0;                                                                                \
    for (size_t i = 0; i < n; i++) {                                                               \
      T x = xs[i];                                                                                 \
      if (!(PRED)) continue;                                                                       \
      if (j < count && as_indices && indices[j] != (uint32_t)i) {                                  \
        snprintf(message->text, sizeof message->text, "index %llu is %u, the host's %zu",          \
                 (unsigned long long)j, indices[j], i);                                            \
        return 1;                                                                                  \
      }                                                                                            \
      if (j < count && !as_indices && memcmp(&values[j], &x, sizeof x) != 0) {                     \
        snprintf(message->text, sizeof message->text,                                              \
                 "value %llu is " PF ", the host's " PF " (element %zu)", (unsigned long long)j,   \
                 PC values[j], PC x, i);                                                           \
        return 1;                                                                                  \
      }                                                                                            \
      j++;                                                                                         \
    }                                                                                              \
    if (j == count) return 0;                                                                      \
    snprintf(message->text, sizeof message->text, "count is %llu, the host's %llu",                \
             (unsigned long long)count, (unsigned long long)j);                                    \
    return 1;                                                                                      \
  }                                                                                                \
  static int S##_check_reversed(const void *in, size_t n, const void *out,                         \
                                check_message *message) {                                          \
    const T *x = in, *y = out;                                                                     \
    for (size_t i = 0; i < n; i++) {                                                               \
      if (memcmp(&y[i], &x[n - 1 - i], sizeof y[i]) != 0) {                                        \
        snprintf(message->text, sizeof message->text, "out[%zu] is " PF ", in[%zu] is " PF, i,     \
                 PC y[i], n - 1 - i, PC x[n - 1 - i]);                                             \
        return 1;                                                                                  \
      }                                                                                            \
    }                                                                                              \
    return 0;                                                                                      \
  }

HOST_TYPE_FUNCTIONS(int32, int32_t, uint32_t, x < -1717986918, 0, "%lld", (long long))
HOST_TYPE_FUNCTIONS(uint32, uint32_t, uint32_t, x < 429496730u, 0, "%llu", (unsigned long long))
HOST_TYPE_FUNCTIONS(uint64, uint64_t, uint64_t, x < 1844674407370955162ull, 0, "%llu",
                    (unsigned long long))
HOST_TYPE_FUNCTIONS(float, float, float, x < 0.1f, FLOAT_TOLERANCE, "%.9g", (double))
HOST_TYPE_FUNCTIONS(double, double, double, x < 0.1, DOUBLE_TOLERANCE, "%.17g", (double))

/* The elementwise ops' host side. T: the element, U: the type arithmetic is
 * done in (unsigned for integers, so that it wraps as the device's does),
 * EPS: the float type's epsilon (0: integers, exact). a * x + z may be
 * contracted into an fma on the device (OpenCL C allows it), so floats are
 * checked against the exact value (in double) within 2 epsilon of |a*x| +
 * |z|; x * x is one correctly rounded multiplication: exact. */
#define ELEMENTWISE_TYPE_FUNCTIONS(S, T, U, EPS, PF, PC)                                          \
  static void S##_axpy(const void *a_bits, const void *x, const void *z, void *y, size_t n) {     \
    T a;                                                                                          \
    memcpy(&a, a_bits, sizeof a);                                                                 \
    const T *xs = x, *zs = z;                                                                     \
    T *ys = y;                                                                                    \
    for (size_t i = 0; i < n; i++) ys[i] = (T)((U)a * (U)xs[i] + (U)zs[i]);                       \
  }                                                                                               \
  static int S##_check_axpy(const void *a_bits, const void *x, const void *z, const void *y,      \
                            size_t n, check_message *message) {                                   \
    T a;                                                                                          \
    memcpy(&a, a_bits, sizeof a);                                                                 \
    const T *xs = x, *zs = z, *ys = y;                                                            \
    for (size_t i = 0; i < n; i++) {                                                              \
      if (EPS > 0) {                                                                              \
        double product = (double)a * (double)xs[i], exact = product + (double)zs[i];              \
        double bound = 2 * EPS * (fabs(product) + fabs((double)zs[i]));                           \
        if (fabs((double)ys[i] - exact) <= bound) continue;                                       \
        snprintf(message->text, sizeof message->text,                                             \
                 "y[%zu] is " PF ", a * x + z (in double) is %.17g: off by more than %.3g", i,    \
                 PC ys[i], exact, bound);                                                         \
        return 1;                                                                                 \
      }                                                                                           \
      T expected = (T)((U)a * (U)xs[i] + (U)zs[i]);                                               \
      if (memcmp(&ys[i], &expected, sizeof expected) == 0) continue;                              \
      snprintf(message->text, sizeof message->text,                                               \
               "y[%zu] is " PF ", the host's a * x + z " PF " (a " PF ", x " PF ", z " PF ")", i, \
               PC ys[i], PC expected, PC a, PC xs[i], PC zs[i]);                                  \
      return 1;                                                                                   \
    }                                                                                             \
    return 0;                                                                                     \
  }                                                                                               \
  static void S##_square(const void *x, const elementwise_layout *l, void *y) {                   \
    const T *xs = x;                                                                              \
    T *ys = y;                                                                                    \
    for (size_t r = 0; r < l->rows; r++) {                                                        \
      const T *row = xs + layout_at(l, r, 0);                                                     \
      T *out = ys + r * l->columns;                                                               \
      for (size_t k = 0; k < l->columns; k++) {                                                   \
        T v = row[(ptrdiff_t)k * l->column_stride];                                               \
        out[k] = (T)((U)v * (U)v);                                                                \
      }                                                                                           \
    }                                                                                             \
  }                                                                                               \
  static int S##_check_square(const void *x, const elementwise_layout *l, const void *y,          \
                              check_message *message) {                                           \
    const T *xs = x, *ys = y;                                                                     \
    for (size_t r = 0; r < l->rows; r++) {                                                        \
      for (size_t k = 0; k < l->columns; k++) {                                                   \
        size_t at = layout_at(l, r, k);                                                           \
        T v = xs[at], expected = (T)((U)v * (U)v);                                                \
        T got = ys[r * l->columns + k];                                                           \
        if (memcmp(&got, &expected, sizeof got) == 0) continue;                                   \
        snprintf(message->text, sizeof message->text,                                             \
                 "y[%zu, %zu] is " PF ", x * x is " PF " (x " PF ", input element %zu)", r, k,    \
                 PC got, PC expected, PC v, at);                                                  \
        return 1;                                                                                 \
      }                                                                                           \
    }                                                                                             \
    return 0;                                                                                     \
  }

ELEMENTWISE_TYPE_FUNCTIONS(int32, int32_t, uint32_t, 0, "%lld", (long long))
ELEMENTWISE_TYPE_FUNCTIONS(uint32, uint32_t, uint32_t, 0, "%llu", (unsigned long long))
ELEMENTWISE_TYPE_FUNCTIONS(uint64, uint64_t, uint64_t, 0, "%llu", (unsigned long long))
ELEMENTWISE_TYPE_FUNCTIONS(float, float, float, FLT_EPSILON, "%.9g", (double))
ELEMENTWISE_TYPE_FUNCTIONS(double, double, double, DBL_EPSILON, "%.17g", (double))

/* The strided copies' host side, by element size: the baseline and the check. */
static void copy_layout(size_t size, const void *x, const elementwise_layout *l, void *y) {
  const unsigned char *from = x;
  unsigned char *to = y;
  if (size == 4) {
    const uint32_t *xs = x;
    uint32_t *ys = y;
    for (size_t r = 0; r < l->rows; r++) {
      const uint32_t *row = xs + layout_at(l, r, 0);
      for (size_t k = 0; k < l->columns; k++) {
        ys[r * l->columns + k] = row[(ptrdiff_t)k * l->column_stride];
      }
    }
    return;
  }
  for (size_t r = 0; r < l->rows; r++) {
    for (size_t k = 0; k < l->columns; k++) {
      memcpy(to + (r * l->columns + k) * size, from + layout_at(l, r, k) * size, size);
    }
  }
}

static int check_copy_layout(size_t size, const void *x, const elementwise_layout *l, const void *y,
                             check_message *message) {
  const unsigned char *from = x, *got = y;
  for (size_t r = 0; r < l->rows; r++) {
    for (size_t k = 0; k < l->columns; k++) {
      size_t at = layout_at(l, r, k);
      if (memcmp(got + (r * l->columns + k) * size, from + at * size, size) == 0) continue;
      snprintf(message->text, sizeof message->text,
               "out[%zu, %zu] differs from the view's element (input element %zu)", r, k, at);
      return 1;
    }
  }
  return 0;
}

/* qsort's side of the sort baselines, per key type. */
#define SORT_TYPE_FUNCTIONS(S, T)                                                               \
  typedef struct S##_pair {                                                                     \
    T key;                                                                                      \
    uint32_t value;                                                                             \
  } S##_pair;                                                                                   \
  static int S##_compare(const void *a, const void *b) {                                        \
    T x = *(const T *)a, y = *(const T *)b;                                                     \
    return (x > y) - (x < y);                                                                   \
  }                                                                                             \
  static int S##_compare_pair(const void *a, const void *b) {                                   \
    const S##_pair *x = a, *y = b;                                                              \
    if (x->key != y->key) return x->key < y->key ? -1 : 1;                                      \
    return (x->value > y->value) - (x->value < y->value);                                       \
  }                                                                                             \
  static void S##_make_pairs(const void *keys, const uint32_t *values, void *pairs, size_t n) { \
    const T *k = keys;                                                                          \
    S##_pair *p = pairs;                                                                        \
    for (size_t i = 0; i < n; i++) {                                                            \
      p[i].key = k[i];                                                                          \
      p[i].value = values[i];                                                                   \
    }                                                                                           \
  }

SORT_TYPE_FUNCTIONS(int32, int32_t)
SORT_TYPE_FUNCTIONS(uint32, uint32_t)
SORT_TYPE_FUNCTIONS(uint64, uint64_t)
SORT_TYPE_FUNCTIONS(float, float)
SORT_TYPE_FUNCTIONS(double, double)

/* Uniformly random data from a fixed seed: integers over their whole range,
 * floats in [0, 1). */
static void generate_32(void *data, size_t n, uint64_t seed) {
  uint32_t *x = data;
  for (size_t i = 0; i < n; i++) x[i] = (uint32_t)(bench_splitmix64(&seed) >> 32);
}
static void generate_64(void *data, size_t n, uint64_t seed) {
  uint64_t *x = data;
  for (size_t i = 0; i < n; i++) x[i] = bench_splitmix64(&seed);
}
static void generate_float(void *data, size_t n, uint64_t seed) {
  float *x = data;
  for (size_t i = 0; i < n; i++) x[i] = (float)(bench_splitmix64(&seed) >> 40) * 0x1p-24f;
}
static void generate_double(void *data, size_t n, uint64_t seed) {
  double *x = data;
  for (size_t i = 0; i < n; i++) x[i] = (double)(bench_splitmix64(&seed) >> 11) * 0x1p-53;
}

#define HOST_TYPE_ENTRY(S, CLTYPE, SIZE, IS_FLOAT, PREDICATE, KEY, GENERATE, KIND)               \
  {                                                                                              \
#S, CLTYPE, SIZE, IS_FLOAT, PREDICATE, KEY, GENERATE, S##_sum, S##_count, S##_scan,          \
        S##_findall, S##_copy, S##_copy_reversed, S##_check_sum, S##_check_scan,                 \
        S##_check_selected, S##_check_reversed, KIND, S##_compare, S##_compare_pair,             \
        sizeof(S##_pair), S##_make_pairs, S##_axpy, S##_check_axpy, S##_square, S##_check_square \
  }

/* The GPU-shape read kernel writes an element only when it equals the key:
 * all ones for integers, -1.0 (little-endian bytes) for floats; the data
 * practically never holds it, so the kernel reads and does not write. */
#define KEY_ONES \
  { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }
#define KEY_MINUS_ONE_FLOAT \
  { 0x00, 0x00, 0x80, 0xbf }
#define KEY_MINUS_ONE_DOUBLE \
  { 0, 0, 0, 0, 0, 0, 0xf0, 0xbf }

static const host_type host_types[] = {
    HOST_TYPE_ENTRY(uint32, CLGPU_UINT32, 4, 0, "x < 429496730u", KEY_ONES, generate_32,
                    KIND_UNSIGNED),
    HOST_TYPE_ENTRY(float, CLGPU_FLOAT, 4, 1, "x < 0.1f", KEY_MINUS_ONE_FLOAT, generate_float,
                    KIND_FLOAT),
    HOST_TYPE_ENTRY(int32, CLGPU_INT32, 4, 0, "x < -1717986918", KEY_ONES, generate_32,
                    KIND_SIGNED),
    HOST_TYPE_ENTRY(uint64, CLGPU_UINT64, 8, 0, "x < 1844674407370955162UL", KEY_ONES, generate_64,
                    KIND_UNSIGNED),
    HOST_TYPE_ENTRY(double, CLGPU_DOUBLE, 8, 1, "x < 0.1", KEY_MINUS_ONE_DOUBLE, generate_double,
                    KIND_FLOAT),
};
#define NUM_HOST_TYPES (sizeof host_types / sizeof host_types[0])

/* ---- host side of the sorts: the LSD radix baseline, the reference, checks ---- */

/* The order-preserving image of a key's bits, sort.h's order: integers by
 * value; floats -inf < negatives < -0 < +0 < positives < +inf < NaN, every
 * NaN by its bits with the sign bit cleared. */
static inline uint32_t order32(uint32_t x, int kind) {
  if (kind == KIND_SIGNED) return x ^ 0x80000000u;
  if (kind != KIND_FLOAT) return x;
  if ((x & 0x7fffffffu) > 0x7f800000u) x &= 0x7fffffffu;
  return x & 0x80000000u ? ~x : x | 0x80000000u;
}
static inline uint64_t order64(uint64_t x, int kind) {
  const uint64_t sign = 0x8000000000000000ull;
  if (kind == KIND_SIGNED) return x ^ sign;
  if (kind != KIND_FLOAT) return x;
  if ((x & ~sign) > 0x7ff0000000000000ull) x &= ~sign;
  return x & sign ? ~x : x | sign;
}
/* Back from an image to bits (a NaN comes back with its sign bit cleared). */
static inline uint32_t unorder32(uint32_t image, int kind) {
  if (kind == KIND_SIGNED) return image ^ 0x80000000u;
  if (kind != KIND_FLOAT) return image;
  return image & 0x80000000u ? image & 0x7fffffffu : ~image;
}
static inline uint64_t unorder64(uint64_t image, int kind) {
  const uint64_t sign = 0x8000000000000000ull;
  if (kind == KIND_SIGNED) return image ^ sign;
  if (kind != KIND_FLOAT) return image;
  return image & sign ? image & ~sign : ~image;
}

#define RADIX_BITS 11
#define RADIX_BUCKETS (1u << RADIX_BITS)

/* The CPU baseline of the radix sorts, one thread: a stable LSD radix sort
 * of n W-bit keys (their bits, of `kind`) in place, carrying `values` (NULL:
 * keys only), through tmp_keys and tmp_values of the same sizes. One pass
 * turns the keys into their images and counts every digit's histogram, then
 * one scatter pass per 11-bit digit (a digit that every key shares is
 * skipped, as clgpu's radix sort does), and one pass back to the bits. */
#define RADIX_HOST_FUNCTION(W)                                                            \
  static void radix_sort##W(uint##W##_t *keys, uint32_t *values, uint##W##_t *tmp_keys,   \
                            uint32_t *tmp_values, size_t n, int kind) {                   \
    enum { PASSES = (W + RADIX_BITS - 1) / RADIX_BITS };                                  \
    uint32_t counts[PASSES][RADIX_BUCKETS];                                               \
    memset(counts, 0, sizeof counts);                                                     \
    for (size_t i = 0; i < n; i++) {                                                      \
      uint##W##_t image = order##W(keys[i], kind);                                        \
      keys[i] = image;                                                                    \
      for (unsigned p = 0; p < PASSES; p++) {                                             \
        counts[p][(image >> (p * RADIX_BITS)) & (RADIX_BUCKETS - 1)]++;                   \
      }                                                                                   \
    }                                                                                     \
    uint##W##_t *from = keys, *to = tmp_keys;                                             \
    uint32_t *values_from = values, *values_to = tmp_values;                              \
    for (unsigned p = 0; p < PASSES && n > 0; p++) {                                      \
      const unsigned shift = p * RADIX_BITS;                                              \
      uint32_t *offsets = counts[p];                                                      \
      if (offsets[(from[0] >> shift) & (RADIX_BUCKETS - 1)] == n) continue;               \
      uint32_t total = 0;                                                                 \
      for (unsigned b = 0; b < RADIX_BUCKETS; b++) {                                      \
        uint32_t here = offsets[b];                                                       \
        offsets[b] = total;                                                               \
        total += here;                                                                    \
      }                                                                                   \
      if (values) {                                                                       \
        for (size_t i = 0; i < n; i++) {                                                  \
          uint32_t at = offsets[(from[i] >> shift) & (RADIX_BUCKETS - 1)]++;              \
          to[at] = from[i];                                                               \
          values_to[at] = values_from[i];                                                 \
        }                                                                                 \
        uint32_t *swap_values = values_from;                                              \
        values_from = values_to;                                                          \
        values_to = swap_values;                                                          \
      } else {                                                                            \
        for (size_t i = 0; i < n; i++) {                                                  \
          to[offsets[(from[i] >> shift) & (RADIX_BUCKETS - 1)]++] = from[i];              \
        }                                                                                 \
      }                                                                                   \
      uint##W##_t *swap_keys = from;                                                      \
      from = to;                                                                          \
      to = swap_keys;                                                                     \
    }                                                                                     \
    for (size_t i = 0; i < n; i++) keys[i] = unorder##W(from[i], kind);                   \
    if (values && values_from != values) memcpy(values, values_from, n * sizeof *values); \
  }

RADIX_HOST_FUNCTION(32)
RADIX_HOST_FUNCTION(64)

static void radix_sort_host(const host_type *t, void *keys, uint32_t *values, void *tmp_keys,
                            uint32_t *tmp_values, size_t n) {
  if (t->size == 4) {
    radix_sort32(keys, values, tmp_keys, tmp_values, n, t->kind);
  } else {
    radix_sort64(keys, values, tmp_keys, tmp_values, n, t->kind);
  }
}

static uint64_t element_bits(const host_type *t, const void *data, size_t i) {
  const unsigned char *at = (const unsigned char *)data + i * t->size;
  if (t->size == 4) {
    uint32_t x;
    memcpy(&x, at, sizeof x);
    return x;
  }
  uint64_t x;
  memcpy(&x, at, sizeof x);
  return x;
}

static uint64_t element_image(const host_type *t, uint64_t bits) {
  return t->size == 4 ? order32((uint32_t)bits, t->kind) : order64(bits, t->kind);
}

static const char *format_element(const host_type *t, uint64_t bits, char *buffer, size_t size) {
  if (t->kind == KIND_FLOAT && t->size == 4) {
    uint32_t b = (uint32_t)bits;
    float x;
    memcpy(&x, &b, sizeof x);
    snprintf(buffer, size, "%.9g", (double)x);
  } else if (t->kind == KIND_FLOAT) {
    double x;
    memcpy(&x, &bits, sizeof x);
    snprintf(buffer, size, "%.17g", x);
  } else if (t->kind == KIND_SIGNED && t->size == 4) {
    snprintf(buffer, size, "%ld", (long)(int32_t)(uint32_t)bits);
  } else if (t->kind == KIND_SIGNED) {
    snprintf(buffer, size, "%lld", (long long)(int64_t)bits);
  } else {
    snprintf(buffer, size, "%llu", (unsigned long long)bits);
  }
  return buffer;
}

/* Check a sort's output over the n keys of `in`. `keys`: the n keys it
 * wrote, or NULL for an argsort, whose keys are then in[values[j]].
 * `values`: the uint32 values it carried (the input's indices, 0 to n-1) or
 * the permutation it wrote, or NULL for keys only. `perm`: the stable
 * sorting permutation of `in` (the reference). In turn: every index below n;
 * the keys in sort.h's order; the keys bit for bit those of a stable sort
 * (keys that order equal have equal bits, NaNs of both signs aside, so this
 * holds for any correct sort); and the values those of the stable sort when
 * `stable`, else a permutation of the indices whose every index points at a
 * key with the bits written beside it. `scratch`: n / 8 + 1 bytes, for the
 * last check. 0 when right, else 1 with *message. */
static int check_sorted(const host_type *t, const void *in, size_t n, const uint32_t *perm,
                        const void *keys, const uint32_t *values, int stable,
                        unsigned char *scratch, check_message *message) {
  char a[48], b[48];
  uint64_t previous_bits = 0, previous_image = 0;
  for (size_t j = 0; j < n; j++) {
    if (values && values[j] >= n) {
      snprintf(message->text, sizeof message->text, "%s %zu is %u, not an index below n",
               keys ? "value" : "permutation element", j, values[j]);
      return 1;
    }
    uint64_t bits = keys ? element_bits(t, keys, j) : element_bits(t, in, values[j]);
    uint64_t image = element_image(t, bits);
    if (j > 0 && image < previous_image) {
      snprintf(message->text, sizeof message->text, "NOT SORTED: key %zu is %s and key %zu is %s%s",
               j - 1, format_element(t, previous_bits, a, sizeof a), j,
               format_element(t, bits, b, sizeof b), keys ? "" : " (keys[permutation[j]])");
      return 1;
    }
    previous_bits = bits;
    previous_image = image;
  }
  if (keys) {
    for (size_t j = 0; j < n; j++) {
      uint64_t got = element_bits(t, keys, j), expected = element_bits(t, in, perm[j]);
      if (got != expected) {
        snprintf(message->text, sizeof message->text,
                 "in order, but key %zu is %s where a stable sort of the input has %s (keys "
                 "lost, duplicated or changed)",
                 j, format_element(t, got, a, sizeof a), format_element(t, expected, b, sizeof b));
        return 1;
      }
    }
  }
  if (!values) return 0;
  if (stable) {
    for (size_t j = 0; j < n; j++) {
      if (values[j] == perm[j]) continue;
      int same_key = element_image(t, element_bits(t, in, values[j])) ==
                     element_image(t, element_bits(t, in, perm[j]));
      snprintf(message->text, sizeof message->text, "%s %zu is %u, a stable sort's %u: %s",
               keys ? "value" : "permutation element", j, values[j], perm[j],
               same_key ? "equal keys out of their input order (not stable)"
                        : "not the index of the key beside it");
      return 1;
    }
    return 0;
  }
  memset(scratch, 0, n / 8 + 1);
  for (size_t j = 0; j < n; j++) {
    uint32_t v = values[j];
    if (scratch[v / 8] & (1u << (v % 8))) {
      snprintf(message->text, sizeof message->text, "index %u appears twice (again at %zu)", v, j);
      return 1;
    }
    scratch[v / 8] |= (unsigned char)(1u << (v % 8));
    if (keys && element_bits(t, in, v) != element_bits(t, keys, j)) {
      snprintf(message->text, sizeof message->text,
               "value %zu is %u, whose key is %s, but the key beside it is %s", j, v,
               format_element(t, element_bits(t, in, v), a, sizeof a),
               format_element(t, element_bits(t, keys, j), b, sizeof b));
      return 1;
    }
  }
  return 0;
}

/* ---- the reference kernels: the device's read and copy bandwidth ---- */

/* CPU shape (BENCH_CPU_SHAPE 1): a few work-groups of one work-item, each
 * walking one long contiguous chunk with vload16/vstore16 and four vector
 * accumulators (POCL vectorises nothing else). GPU shape: one element per
 * work-item in groups of BENCH_GROUP. The read kernel writes one value per
 * work-item in the CPU shape (the chunk's xor or sum, so nothing is
 * optimised away) and, in the GPU shape, only where an element equals `key`
 * (practically never). Both kernels take the same arguments in both shapes. */
static const char reference_kernels[] =
    "#ifdef BENCH_FP64\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#endif\n"
    "#define BENCH_CAT_(a, b) a##b\n"
    "#define BENCH_CAT(a, b) BENCH_CAT_(a, b)\n"
    "#define T2 BENCH_CAT(T, 2)\n"
    "#define T4 BENCH_CAT(T, 4)\n"
    "#define T8 BENCH_CAT(T, 8)\n"
    "#define T16 BENCH_CAT(T, 16)\n"
    "#if BENCH_IS_FLOAT\n"
    "#define ACC(a, b) ((a) + (b))\n"
    "#else\n"
    "#define ACC(a, b) ((a) ^ (b))\n"
    "#endif\n"
    "#if BENCH_CPU_SHAPE\n"
    "__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void bench_read(\n"
    "    __global const T *src, ulong n, ulong chunk, T key, __global T *out) {\n"
    "  ulong i = get_global_id(0) * chunk;\n"
    "  ulong end = min(n, i + chunk);\n"
    "  T16 a0 = (T16)((T)0), a1 = (T16)((T)0), a2 = (T16)((T)0), a3 = (T16)((T)0);\n"
    "  for (; i + 64 <= end; i += 64) {\n"
    "    a0 = ACC(a0, vload16(0, src + i));\n"
    "    a1 = ACC(a1, vload16(0, src + i + 16));\n"
    "    a2 = ACC(a2, vload16(0, src + i + 32));\n"
    "    a3 = ACC(a3, vload16(0, src + i + 48));\n"
    "  }\n"
    "  for (; i + 16 <= end; i += 16) a0 = ACC(a0, vload16(0, src + i));\n"
    "  T16 a = ACC(ACC(a0, a1), ACC(a2, a3));\n"
    "  T8 b = ACC(a.lo, a.hi);\n"
    "  T4 c = ACC(b.lo, b.hi);\n"
    "  T2 d = ACC(c.lo, c.hi);\n"
    "  T s = ACC(d.lo, d.hi);\n"
    "  for (; i < end; i++) s = ACC(s, src[i]);\n"
    "  out[get_global_id(0)] = s;\n"
    "}\n"
    "__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void bench_copy(\n"
    "    __global const T *src, __global T *dst, ulong n, ulong chunk) {\n"
    "  ulong i = get_global_id(0) * chunk;\n"
    "  ulong end = min(n, i + chunk);\n"
    "  for (; i + 64 <= end; i += 64) {\n"
    "    T16 v0 = vload16(0, src + i);\n"
    "    T16 v1 = vload16(0, src + i + 16);\n"
    "    T16 v2 = vload16(0, src + i + 32);\n"
    "    T16 v3 = vload16(0, src + i + 48);\n"
    "    vstore16(v0, 0, dst + i);\n"
    "    vstore16(v1, 0, dst + i + 16);\n"
    "    vstore16(v2, 0, dst + i + 32);\n"
    "    vstore16(v3, 0, dst + i + 48);\n"
    "  }\n"
    "  for (; i + 16 <= end; i += 16) vstore16(vload16(0, src + i), 0, dst + i);\n"
    "  for (; i < end; i++) dst[i] = src[i];\n"
    "}\n"
    "#else\n"
    "__kernel __attribute__((reqd_work_group_size(BENCH_GROUP, 1, 1))) void bench_read(\n"
    "    __global const T *src, ulong n, ulong chunk, T key, __global T *out) {\n"
    "  ulong i = get_global_id(0);\n"
    "  if (i < n) {\n"
    "    T x = src[i];\n"
    "    if (x == key) out[get_group_id(0)] = x;\n"
    "  }\n"
    "}\n"
    "__kernel __attribute__((reqd_work_group_size(BENCH_GROUP, 1, 1))) void bench_copy(\n"
    "    __global const T *src, __global T *dst, ulong n, ulong chunk) {\n"
    "  ulong i = get_global_id(0);\n"
    "  if (i < n) dst[i] = src[i];\n"
    "}\n"
    "#endif\n";

/* ---- options ---- */

typedef enum output_format { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON } output_format;
typedef enum reference_shape { SHAPE_AUTO, SHAPE_CPU, SHAPE_GPU } reference_shape;
/* Which (operation, type) pairs get their first calls timed: each operation
 * at the first of its types in the run (the default without --types), at
 * every type (--first-call all; the default with --types), or none. */
typedef enum first_call_mode {
  FIRST_CALL_DEFAULT,
  FIRST_CALL_FIRST,
  FIRST_CALL_ALL,
  FIRST_CALL_OFF
} first_call_mode;

#define MAX_LIST 32

typedef struct run_options {
  int ops[NUM_OPS]; /* requested */
  size_t types[MAX_LIST];
  size_t num_types;
  size_t sizes[MAX_LIST];
  size_t num_sizes;
  int repeat;
  int warmup;
  clgpu_algorithm algorithm;
  output_format format;
  reference_shape shape;
  int quiet;
  int no_boost;
  int no_cpu;
  const char *plot;           /* --plot: the SVG file to write, or NULL */
  first_call_mode first_call; /* resolved by parse_run_options: never DEFAULT */
  /* Given on the command line: otherwise each operation runs at its own
   * default types and sizes (op_info), and sorts at SORT_LARGE elements and
   * more run fewer calls. */
  int types_given, sizes_given, repeat_given, warmup_given;
} run_options;

static const char run_usage_text[] =
    "usage: clgpu-bench run [--ops LIST] [--types LIST] [--sizes LIST] [--repeat N]\n"
    "                       [--warmup N] [--algorithm auto|chunked|tiled]\n"
    "                       [--format table|csv|json] [--quiet] [--no-boost] [--no-cpu]\n"
    "                       [--reference-shape auto|cpu|gpu] [--plot FILE.svg]\n"
    "                       [--first-call first|all] [--no-first-call]\n"
    "\n"
    "Time clgpu's operations on the default device (or CLGPU_DEVICE's) beside the\n"
    "device's own read and copy bandwidth, a CPU baseline and Boost.Compute.\n"
    "'clgpu-bench' alone runs this with its defaults (about 70 s on a 2-core CPU\n"
    "device, 20 s of them the first calls); 'clgpu-bench OPTIONS' is 'clgpu-bench run\n"
    "OPTIONS'.\n"
    "\n"
    "  --ops LIST        comma-separated, default all:\n"
    "                      reduce        SUM over the whole array\n"
    "                      count_if      elements where the predicate holds\n"
    "                      scan          inclusive SUM\n"
    "                      findall       indices (uint32) where the predicate holds\n"
    "                      copy          clgpu_copy of a contiguous view\n"
    "                      copy_strided  clgpu_copy of a reversed view (stride -1)\n"
    "                      radix_sort    clgpu_sort of the keys, algorithm radix\n"
    "                      sort_by_key   clgpu_sort, radix, carrying uint32 values\n"
    "                      merge_sort    clgpu_sort, algorithm merge, through the\n"
    "                                    comparator path (compare \"" SORT_COMPARE
    "\")\n"
    "                      argsort       clgpu_sort_permutation, radix, into uint32\n"
    "                      read          reference: a plain kernel reading every element\n"
    "                      copy_kernel   reference: a plain copy kernel\n"
    "                    and, each timed beside a peer:\n";

/* The rest of run's usage (one literal would pass the 4095 characters
 * that ISO C requires compilers to support). */
static const char run_usage_more[] =
    "                      elementwise   clgpu_elementwise y = a * x + z over contiguous\n"
    "                                    1-D arrays, beside a hand-written OpenCL kernel\n"
    "                                    doing the same (clCreateProgramWithSource)\n"
    "                      elementwise_strided  y = x * x over v = b[::2, :-1] of an\n"
    "                                    s x s array b (s = floor(sqrt(n))) into a\n"
    "                                    contiguous y, beside a contiguous y = x * x of\n"
    "                                    as many elements (float and uint32 only)\n"
    "                      elementwise_transposed  y = x * x with x the transpose of\n"
    "                                    an s x s array, beside the contiguous case\n"
    "                                    (float and uint32 only)\n"
    "                      strided_copy  clgpu_copy of x[::2] into a contiguous array\n"
    "                                    and (strided_copy_transposed, also selected\n"
    "                                    by strided_copy) of an s x s transpose, each\n"
    "                                    beside clEnqueueCopyBuffer of the same bytes\n"
    "                                    (float and uint32 only)\n"
    "                    Each of these is timed beside its peer in the same run, calls\n"
    "                    alternating (the table's second section: the ratios).\n"
    "                    The predicate selects about 10% of the uniformly random data:\n"
    "                    uint32 x < 429496730u, float x < 0.1f (data in [0, 1)), int32\n"
    "                    x < -1717986918, uint64 x < 1844674407370955162UL, double x < 0.1.\n"
    "                    Every operation's share of the read or copy kernel comes from\n"
    "                    that kernel run right before each of its calls, whatever --ops.\n"
    "                    The sorts sort a fresh copy of the data on every call (copied on\n"
    "                    the device before the call, not timed), with a workspace made\n"
    "                    once per type and size.\n";

/* And the rest of the options. */
static const char run_usage_end[] =
    "  --types LIST      uint32, float, int32, uint64, double (default uint32,float;\n"
    "                    sort_by_key and argsort uint32, merge_sort float, the strided\n"
    "                    and transposed elementwise ops and copies float)\n"
    "  --sizes LIST      element counts, with suffix K (1024) or M (1048576) (default\n"
    "                    16M; radix_sort, sort_by_key and merge_sort 1M,16M; argsort 1M)\n"
    "                    For the 2-D ops (elementwise_strided, elementwise_transposed,\n"
    "                    strided_copy_transposed) a size n means an s x s array with\n"
    "                    s = floor(sqrt(n)): 16000000 is 4000x4000.\n"
    "  --repeat N        timed calls per figure (default 10; sorts of 4M elements or\n"
    "                    more 3, and their qsort and Boost.Compute baselines 1)\n"
    "  --warmup N        untimed calls first (default 2; sorts of 4M elements or more 1;\n"
    "                    Boost.Compute gets at least 1, so that its kernel builds are\n"
    "                    never timed)\n"
    "  --algorithm A     clgpu's algorithm: auto (default), chunked (CPU shape) or\n"
    "                    tiled (GPU shape); for the sorts, their shape\n"
    "  --format F        table (default), csv or json (every figure, the device and\n"
    "                    the library version)\n"
    "  --quiet           no progress line on stderr (it is shown only on a terminal)\n"
    "  --no-boost        skip the Boost.Compute peer\n"
    "  --no-cpu          skip the CPU baseline\n"
    "  --reference-shape the shape of the read and copy kernels: auto (CPU shape on\n"
    "                    CPU devices, GPU shape elsewhere), cpu or gpu\n"
    "  --plot FILE.svg   also draw GB/s (the table's: bytes moved over the median wall\n"
    "                    time) against n, log-log, one line with markers per operation\n"
    "                    and type (markers only where a series has one size), as an\n"
    "                    SVG 1.1 file; written after the table; a file that cannot be\n"
    "                    written ends the run with exit status 1\n"
    "  --first-call WHICH time operations' first calls with a cold and a warm\n"
    "                    program cache (the table's last section; see below) at\n"
    "                    first: each operation at the first of its types in the run\n"
    "                    (the default without --types), or all: at every type (the\n"
    "                    default with --types)\n"
    "  --no-first-call   skip the first calls\n"
    "\n"
    "Each call is timed by the wall clock from the call to the end of clFinish\n"
    "(the primary figure) and by the profiling event it returns, which covers only\n"
    "its last command; for the sorts, by the device's clock from a marker enqueued\n"
    "right before the call to the end of that event. Figures are the median over the\n"
    "repetitions, with min and max. Every result is checked once against the host\n"
    "(the sorts: in order, and the keys and values of a stable sort); a wrong one\n"
    "ends the run with exit status 1.\n";

/* The first calls' footnote. */
static const char run_usage_first_call[] =
    "\n"
    "First calls (the table's last section): each operation's first call (read and\n"
    "copy_kernel aside: they are not clgpu's) at n = 64K, or the operation's smallest\n"
    "size in the run where that is smaller (the 2-D ops: 256x256 from 64K), timed by\n"
    "the wall clock from the call to the end of clFinish, without a workspace (the\n"
    "call allocates what it needs; for the elementwise ops clgpu_elementwise_create\n"
    "is inside the time too). cold: in a new process (this tool, started again), a\n"
    "fresh context whose disk cache is an empty folder, so that its programs are\n"
    "built from source; warm: in a second new process, a fresh context over the same\n"
    "folder, so that they load from it; steady: the median of --repeat later calls in\n"
    "the warm process, after --warmup untimed (at least one). The two processes'\n"
    "POCL_CACHE_DIR is an empty folder too: POCL's own kernel cache, which can make a\n"
    "build from source many times faster, holds only what the cold process put there,\n"
    "as on a program's first and second run on a new machine; other platforms' own\n"
    "compiler caches are as they are. Every first call and the last later call are\n"
    "checked against the host; the folders are removed afterwards. About 20 s of the\n"
    "default run on a 2-core CPU device (with --first-call all, 30 s).\n";

static int run_usage_error(const char *format, const char *argument) {
  fprintf(stderr, "clgpu-bench run: ");
  fprintf(stderr, format, argument);
  fprintf(stderr, " (see clgpu-bench run --help)\n");
  return 2;
}

/* Split `text` at commas into `items` (pointers into `copy`); 0, or -1 for
 * an empty item or too many. */
static int split_list(const char *text, char *copy, size_t copy_size, char **items, size_t *count) {
  size_t length = strlen(text);
  if (length + 1 > copy_size) return -1;
  memcpy(copy, text, length + 1);
  *count = 0;
  char *start = copy;
  for (;;) {
    char *comma = strchr(start, ',');
    if (comma) *comma = '\0';
    if (*start == '\0' || *count == MAX_LIST) return -1;
    items[(*count)++] = start;
    if (!comma) return 0;
    start = comma + 1;
  }
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

/* Parse `run`'s arguments: 0, 2 after a usage error (printed), or -1 after
 * --help (printed). */
static int parse_run_options(int argc, char **argv, run_options *options) {
  memset(options, 0, sizeof *options);
  for (int op = 0; op < NUM_OPS; op++) options->ops[op] = op_table[op].in_default;
  options->repeat = 10;
  options->warmup = 2;
  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      fputs(run_usage_text, stdout);
      fputs(run_usage_more, stdout);
      fputs(run_usage_end, stdout);
      fputs(run_usage_first_call, stdout);
      return -1;
    }
    if (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0) {
      options->quiet = 1;
      continue;
    }
    if (strcmp(arg, "--no-boost") == 0) {
      options->no_boost = 1;
      continue;
    }
    if (strcmp(arg, "--no-cpu") == 0) {
      options->no_cpu = 1;
      continue;
    }
    if (strcmp(arg, "--no-first-call") == 0) {
      options->first_call = FIRST_CALL_OFF;
      continue;
    }
    static const char *const valued[] = {"--ops",    "--types",     "--sizes",  "--repeat",
                                         "--warmup", "--algorithm", "--format", "--reference-shape",
                                         "--plot",   "--first-call"};
    size_t which = sizeof valued / sizeof valued[0];
    const char *value = NULL;
    for (size_t v = 0; v < sizeof valued / sizeof valued[0]; v++) {
      size_t length = strlen(valued[v]);
      if (strncmp(arg, valued[v], length) == 0 && arg[length] == '=') {
        which = v;
        value = arg + length + 1;
      } else if (strcmp(arg, valued[v]) == 0) {
        if (i + 1 >= argc) return run_usage_error("%s needs a value", arg);
        which = v;
        value = argv[++i];
      }
      if (value) break;
    }
    if (!value) return run_usage_error("unknown option '%s'", arg);
    char copy[1024];
    char *items[MAX_LIST];
    size_t count = 0;
    switch (which) {
      case 0: /* --ops */
        if (split_list(value, copy, sizeof copy, items, &count) != 0) {
          return run_usage_error("--ops: malformed list '%s'", value);
        }
        for (int op = 0; op < NUM_OPS; op++) options->ops[op] = 0;
        for (size_t k = 0; k < count; k++) {
          int all = strcmp(items[k], "all") == 0, found = all;
          for (int op = 0; op < NUM_OPS; op++) {
            if (all || strcmp(items[k], op_table[op].name) == 0 ||
                (op_table[op].select && strcmp(items[k], op_table[op].select) == 0)) {
              options->ops[op] = 1;
              found = 1;
            }
          }
          if (!found) return run_usage_error("--ops: unknown operation '%s'", items[k]);
        }
        break;
      case 1: /* --types */
        if (split_list(value, copy, sizeof copy, items, &count) != 0) {
          return run_usage_error("--types: malformed list '%s'", value);
        }
        options->num_types = 0;
        options->types_given = 1;
        for (size_t k = 0; k < count; k++) {
          size_t t = 0;
          while (t < NUM_HOST_TYPES && strcmp(items[k], host_types[t].name) != 0) t++;
          if (t == NUM_HOST_TYPES) return run_usage_error("--types: unknown type '%s'", items[k]);
          int seen = 0;
          for (size_t s = 0; s < options->num_types; s++) seen |= options->types[s] == t;
          if (!seen) options->types[options->num_types++] = t;
        }
        break;
      case 2: /* --sizes */
        if (split_list(value, copy, sizeof copy, items, &count) != 0) {
          return run_usage_error("--sizes: malformed list '%s'", value);
        }
        options->num_sizes = 0;
        options->sizes_given = 1;
        for (size_t k = 0; k < count; k++) {
          size_t n = 0;
          if (bench_parse_size(items[k], &n) != 0) {
            return run_usage_error(
                "--sizes: '%s' is not an element count from 1 to 4G-1 (suffixes K, M, G)",
                items[k]);
          }
          int seen = 0;
          for (size_t s = 0; s < options->num_sizes; s++) seen |= options->sizes[s] == n;
          if (!seen) options->sizes[options->num_sizes++] = n;
        }
        break;
      case 3:
        if (bench_parse_count(value, 1, &options->repeat) != 0) {
          return run_usage_error("--repeat: '%s' is not a count from 1 to 1000000", value);
        }
        options->repeat_given = 1;
        break;
      case 4:
        if (bench_parse_count(value, 0, &options->warmup) != 0) {
          return run_usage_error("--warmup: '%s' is not a count from 0 to 1000000", value);
        }
        options->warmup_given = 1;
        break;
      case 5:
        if (strcmp(value, "auto") == 0) {
          options->algorithm = CLGPU_ALGORITHM_AUTO;
        } else if (strcmp(value, "chunked") == 0) {
          options->algorithm = CLGPU_ALGORITHM_CHUNKED;
        } else if (strcmp(value, "tiled") == 0) {
          options->algorithm = CLGPU_ALGORITHM_TILED;
        } else {
          return run_usage_error("--algorithm: '%s' is not auto, chunked or tiled", value);
        }
        break;
      case 6:
        if (strcmp(value, "table") == 0) {
          options->format = FORMAT_TABLE;
        } else if (strcmp(value, "csv") == 0) {
          options->format = FORMAT_CSV;
        } else if (strcmp(value, "json") == 0) {
          options->format = FORMAT_JSON;
        } else {
          return run_usage_error("--format: '%s' is not table, csv or json", value);
        }
        break;
      case 7:
        if (strcmp(value, "auto") == 0) {
          options->shape = SHAPE_AUTO;
        } else if (strcmp(value, "cpu") == 0) {
          options->shape = SHAPE_CPU;
        } else if (strcmp(value, "gpu") == 0) {
          options->shape = SHAPE_GPU;
        } else {
          return run_usage_error("--reference-shape: '%s' is not auto, cpu or gpu", value);
        }
        break;
      case 8:
        if (value[0] == '\0') return run_usage_error("--plot needs a file name%s", "");
        options->plot = value;
        break;
      default: /* --first-call */
        if (strcmp(value, "first") == 0) {
          options->first_call = FIRST_CALL_FIRST;
        } else if (strcmp(value, "all") == 0) {
          options->first_call = FIRST_CALL_ALL;
        } else {
          return run_usage_error("--first-call: '%s' is not first or all", value);
        }
        break;
    }
  }
  if (options->first_call == FIRST_CALL_DEFAULT) {
    options->first_call = options->types_given ? FIRST_CALL_ALL : FIRST_CALL_FIRST;
  }
  /* Not given: the types and sizes that the requested operations default to,
   * in host_types' order and in increasing size. */
  unsigned types = 0, sizes = 0;
  for (int op = 0; op < NUM_OPS; op++) {
    if (!options->ops[op]) continue;
    types |= op_table[op].default_types;
    sizes |= op_table[op].default_sizes;
  }
  if (!options->types_given) {
    for (size_t t = 0; t < NUM_HOST_TYPES; t++) {
      if (types & (1u << t)) options->types[options->num_types++] = t;
    }
  }
  if (!options->sizes_given) {
    for (size_t k = 0; k < NUM_DEFAULT_SIZES; k++) {
      if (sizes & (1u << k)) options->sizes[options->num_sizes++] = default_sizes[k];
    }
  }
  return 0;
}

/* The side of the 2-D ops' square array at n elements: floor(sqrt(n)). */
static size_t square_side(size_t n) {
  size_t s = (size_t)sqrt((double)n);
  while (s > 0 && s * s > n) s--;
  while ((s + 1) * (s + 1) <= n) s++;
  return s;
}

/* Whether `op` runs at host_types[type_index] and n elements: requested, and
 * at a type and size it defaults to unless --types and --sizes were given. */
static int op_runs(const run_options *o, int op, size_t type_index, size_t n) {
  if (!o->ops[op]) return 0;
  if (!(op_table[op].supported_types & (1u << type_index))) return 0;
  if (op_table[op].two_d && square_side(n) < 2) return 0; /* b[::2, :-1] would be empty */
  if (!o->types_given && !(op_table[op].default_types & (1u << type_index))) return 0;
  if (o->sizes_given) return 1;
  for (size_t k = 0; k < NUM_DEFAULT_SIZES; k++) {
    if ((op_table[op].default_sizes & (1u << k)) && default_sizes[k] == n) return 1;
  }
  return 0;
}

/* The calls of `op` at n elements: --repeat and --warmup, or for the sorts
 * at SORT_LARGE elements and more fewer unless given; *qsort_repeat: the
 * timed calls of the sorts' qsort baseline (seconds each at 16M). */
static void op_calls(const run_options *o, int op, size_t n, int *repeat, int *warmup,
                     int *qsort_repeat) {
  *repeat = o->repeat;
  *warmup = o->warmup;
  *qsort_repeat = o->repeat;
  if (!op_table[op].sort || n < SORT_LARGE) return;
  if (!o->repeat_given && *repeat > SORT_LARGE_REPEAT) *repeat = SORT_LARGE_REPEAT;
  if (!o->warmup_given && *warmup > SORT_LARGE_WARMUP) *warmup = SORT_LARGE_WARMUP;
  if (!o->repeat_given) *qsort_repeat = 1;
}

/* ---- figures ---- */

/* A median with min and max, in ms (bench_common.h). */
typedef bench_timing timing;

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

bench_timing bench_summarize(double *values, int count) {
  timing t = {0, NAN, NAN, NAN};
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

/* One row: an operation on one type and size. */
typedef struct result {
  int op;
  const host_type *type;
  size_t n;
  double bytes;      /* the bytes the operation must move */
  uint64_t selected; /* findall, count_if: elements selected */
  char algorithm[24];
  timing wall, event;
  timing reference;      /* the read or copy kernel, timed alternately with this operation */
  double reference_gbps; /* its wall-clock GB/s; NaN if none */
  timing cpu;
  timing boost;
  char boost_note[640]; /* why Boost has no figure, if it has none */
  int repeat, warmup;   /* the calls behind wall and event (op_calls) */
  timing qsort;         /* sorts: glibc qsort on the host, beside the LSD radix in cpu */
  int qsort_calls;
  /* Every row: the elements the operation writes (n, but the view's count
   * for the strided ops) and its shape label ("16M", or "4000x4000" for an
   * s x s array). */
  size_t elements;
  char shape[32];
  /* The ops with a peer (op_info.peer): the peer timed in the same run, its
   * calls alternating with the operation's, over the same bytes. */
  int has_peer;
  timing peer_wall, peer_event;
  char layout[96];      /* the operation's view, in words */
  char peer_launch[96]; /* how the peer ran */
  /* The elementwise ops: the kernel object's counters after the run, the
   * runs of the operation's own calls by kernel (the peer's excluded), and
   * the context's program cache over clgpu's calls (and a clgpu peer's). */
  int has_elementwise;
  clgpu_elementwise_stats kernel_stats;
  uint64_t op_contiguous_runs, op_specialised_runs, op_generic_runs;
  int has_cache;
  uint64_t cache_builds, cache_memory_hits, cache_disk_hits;
  double cache_build_ms;
} result;

/* The first calls' size: this many elements at most (the 2-D ops: 256x256). */
#define FIRST_CALL_N ((size_t)64 << 10)

/* One side of an operation's first calls (cold or warm), measured in a
 * child process of its own: the first call in a fresh context, what the
 * context's program cache did over it, and the later calls. */
typedef struct first_call_side {
  double ms;
  clgpu_cache_stats stats;
  timing steady;
  int steady_calls, steady_warmup;
  /* Programs the later calls (warm-up calls included) built from source and
   * loaded from the disk cache (a layout that specialises at its second
   * call, say), and how many of them came in the timed calls. */
  uint64_t steady_builds, steady_disk_hits, timed_programs;
} first_call_side;

/* The first calls of an operation at one type (measure_first_call): cold
 * with an empty disk cache, then warm over what the cold side left. */
typedef struct first_call {
  int op;
  const host_type *type;
  size_t n;
  char shape[32];
  first_call_side cold, warm;
} first_call;

static double gbps(double bytes, const timing *t) {
  return t->valid && t->median > 0 ? bytes / (t->median * 1e-3) / 1e9 : NAN;
}

/* ---- the run ---- */

/* Everything one (type, size) needs. */
typedef struct bench_case {
  clgpu_context *context;
  cl_command_queue queue;
  const clgpu_device_info *device;
  const run_options *options;
  const host_type *type;
  size_t n;
  int cpu_shape;
  void *host_in;       /* the data */
  void *host_out;      /* what the device wrote, read back */
  void *cpu_out;       /* the CPU baselines' output */
  uint32_t *cpu_index; /* findall's CPU baseline */
  cl_mem d_in, d_out, d_indices, d_result, d_count;
  clgpu_array v_in, v_reversed, v_out, v_indices, v_result, v_count64, v_count;
  uint64_t selected;
  /* The sorts' (prepare_sorts, at the first sort of a case): keys are sorted
   * in d_out, values and permutations in d_indices, refilled before every
   * call from d_in and d_iota (0, 1, ..., n-1). */
  int sorts_ready;
  cl_mem d_iota;
  uint32_t *perm;                  /* the stable sorting permutation of host_in: the reference */
  uint32_t *host_values;           /* values or permutation read back */
  uint32_t *iota;                  /* 0, 1, ..., n-1 on the host */
  unsigned char *scratch;          /* n / 8 + 1 bytes for check_sorted */
  void *sort_keys, *sort_tmp_keys; /* the host baselines' keys (n each) */
  uint32_t *sort_values, *sort_tmp_values;
  void *pairs; /* qsort's (key, value) pairs */
  /* The host baselines are the same work for several sorts of a case
   * (radix_sort and merge_sort, sort_by_key and argsort): timed once. */
  timing baseline[4];
  int baseline_done[4];
  /* The ops with a peer (setup_peer_op, per operation): the operation's
   * source and destination views (and z for elementwise), the peer's, the
   * host side of the source view, the elements written, and the buffers
   * they add (made at the first such op of a case): d_z and host_z (z of
   * y = a * x + z), d_peer_out (the peer's output) and host_peer. */
  int peer_ready;
  cl_mem d_z, d_peer_out;
  void *host_z, *host_peer;
  clgpu_array op_src, op_dst, v_z, peer_src, peer_dst;
  elementwise_layout layout;
  size_t count;
  unsigned char scalar_a[8]; /* a of y = a * x + z, of the type */
  clgpu_elementwise *kernel; /* the op's kernel object, made once per case and op */
  cl_program hand_program;   /* elementwise's hand-written peer */
  cl_kernel hand_kernel;
  int hand_guarded; /* its global size was rounded up: it takes n */
  size_t hand_global;
} bench_case;

/* The host baselines of the sorts (bench_case.baseline). */
enum { BASE_RADIX_KEYS, BASE_RADIX_PAIRS, BASE_QSORT_KEYS, BASE_QSORT_PAIRS };

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

static const char *size_label(size_t n, char *buffer, size_t size) {
  if (n % ((size_t)1 << 20) == 0) {
    snprintf(buffer, size, "%zuM", n >> 20);
  } else if (n % 1024 == 0) {
    snprintf(buffer, size, "%zuK", n >> 10);
  } else {
    snprintf(buffer, size, "%zu", n);
  }
  return buffer;
}

static int op_failure(const bench_case *c, int op, const char *what, clgpu_status status) {
  bench_progress_clear();
  char n_label[32];
  fprintf(stderr, "clgpu-bench run: %s %s %s: %s: %s (%d): %s\n%s\n", op_table[op].name,
          c->type->name, size_label(c->n, n_label, sizeof n_label), what, clgpu_status_name(status),
          (int)status, clgpu_status_string(status), clgpu_last_error());
  return 1;
}

static int wrong_result(const bench_case *c, int op, const char *who,
                        const check_message *message) {
  bench_progress_clear();
  char n_label[32];
  fprintf(stderr, "clgpu-bench run: WRONG RESULT from %s %s over %s %s: %s\n", who,
          op_table[op].name, size_label(c->n, n_label, sizeof n_label), c->type->name,
          message->text);
  return 1;
}

/* The chunk of the CPU-shape reference kernels: about four per compute unit,
 * a multiple of 64 elements. */
static size_t reference_chunk(const bench_case *c, size_t *groups) {
  size_t chunks = 4 * (size_t)(c->device->compute_units ? c->device->compute_units : 1);
  size_t chunk = (c->n + chunks - 1) / chunks;
  chunk = (chunk + 63) / 64 * 64;
  *groups = (c->n + chunk - 1) / chunk;
  return chunk;
}

static size_t reference_group(const bench_case *c) {
  size_t group = 256;
  if (c->device->max_work_group_size < group) group = c->device->max_work_group_size;
  return group;
}

static clgpu_status enqueue_reference(bench_case *c, int copy, cl_event *event) {
  char shape[8], group_text[24];
  snprintf(shape, sizeof shape, "%d", c->cpu_shape);
  snprintf(group_text, sizeof group_text, "%zu", reference_group(c));
  clgpu_define defines[] = {
      {"T", clgpu_type_cl_name(c->type->type)},
      {"BENCH_IS_FLOAT", c->type->is_float ? "1" : "0"},
      {"BENCH_CPU_SHAPE", shape},
      {"BENCH_GROUP", group_text},
      {"BENCH_FP64", NULL},
  };
  size_t num_defines = c->type->type == CLGPU_DOUBLE ? 5 : 4;
  clgpu_program *program = NULL;
  clgpu_status status =
      clgpu_program_get(c->context, reference_kernels, defines, num_defines, NULL, &program);
  if (status != CLGPU_SUCCESS) return status;
  cl_kernel kernel = NULL;
  status = clgpu_kernel_acquire(program, copy ? "bench_copy" : "bench_read", &kernel);
  if (status != CLGPU_SUCCESS) return status;
  size_t groups = 0;
  cl_ulong n = c->n, chunk = reference_chunk(c, &groups);
  size_t local = c->cpu_shape ? 1 : reference_group(c);
  size_t global = c->cpu_shape ? groups : (c->n + local - 1) / local * local;
  cl_int err = CL_SUCCESS;
  if (copy) {
    err |= clSetKernelArg(kernel, 0, sizeof c->d_in, &c->d_in);
    err |= clSetKernelArg(kernel, 1, sizeof c->d_out, &c->d_out);
    err |= clSetKernelArg(kernel, 2, sizeof n, &n);
    err |= clSetKernelArg(kernel, 3, sizeof chunk, &chunk);
  } else {
    err |= clSetKernelArg(kernel, 0, sizeof c->d_in, &c->d_in);
    err |= clSetKernelArg(kernel, 1, sizeof n, &n);
    err |= clSetKernelArg(kernel, 2, sizeof chunk, &chunk);
    err |= clSetKernelArg(kernel, 3, c->type->size, c->type->gpu_key);
    err |= clSetKernelArg(kernel, 4, sizeof c->d_out, &c->d_out);
  }
  if (err == CL_SUCCESS) {
    err = clEnqueueNDRangeKernel(c->queue, kernel, 1, NULL, &global, &local, 0, NULL, event);
  } else {
    err = CL_INVALID_KERNEL_ARGS;
  }
  clgpu_kernel_release(program, kernel);
  return (clgpu_status)err;
}

/* The read kernel on its own, for the other subcommands (bench_common.h):
 * a case of uint32 zeros, which the GPU shape's key (all ones) never
 * matches, so it reads and does not write. */
int bench_measure_read(clgpu_context *context, size_t bytes, int repeat, int warmup,
                       bench_timing *event, bench_timing *wall, size_t *measured_bytes) {
  bench_case c;
  memset(&c, 0, sizeof c);
  c.context = context;
  c.queue = clgpu_context_queue(context);
  c.device = clgpu_context_device_info(context);
  c.type = &host_types[0]; /* uint32 */
  c.cpu_shape = (c.device->type & CL_DEVICE_TYPE_CPU) != 0;
  cl_ulong largest = c.device->max_mem_alloc_size;
  c.n = (bytes + 3) / 4;
  if (c.n == 0) c.n = 1;
  if ((cl_ulong)c.n * 4 > largest) c.n = (size_t)(largest / 4);
  *measured_bytes = c.n * 4;
  size_t groups = 0;
  reference_chunk(&c, &groups);
  size_t group = reference_group(&c);
  size_t outputs = (c.n + group - 1) / group;
  if (groups > outputs) outputs = groups;
  double *samples = malloc(sizeof(double) * (size_t)repeat);
  double *events = malloc(sizeof(double) * (size_t)repeat);
  cl_int err = samples && events ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
  cl_context cl = clgpu_context_cl_context(context);
  if (err == CL_SUCCESS) c.d_in = clCreateBuffer(cl, CL_MEM_READ_ONLY, c.n * 4, NULL, &err);
  if (err == CL_SUCCESS) c.d_out = clCreateBuffer(cl, CL_MEM_READ_WRITE, outputs * 4, NULL, &err);
  if (err == CL_SUCCESS) {
    cl_uint zero = 0;
    err = clEnqueueFillBuffer(c.queue, c.d_in, &zero, sizeof zero, 0, c.n * 4, 0, NULL, NULL);
  }
  if (err == CL_SUCCESS) err = clFinish(c.queue);
  clgpu_status status = (clgpu_status)err;
  for (int call = 0; call < warmup + repeat && status == CLGPU_SUCCESS; call++) {
    cl_event done = NULL;
    double start = bench_now_ms();
    status = enqueue_reference(&c, 0, &done);
    if (status == CLGPU_SUCCESS) status = (clgpu_status)clFinish(c.queue);
    double ms = bench_now_ms() - start;
    if (status == CLGPU_SUCCESS && call >= warmup) {
      samples[call - warmup] = ms;
      events[call - warmup] = bench_event_ms(done);
    }
    if (done) clReleaseEvent(done);
  }
  if (status == CLGPU_SUCCESS) {
    *wall = bench_summarize(samples, repeat);
    *event = bench_summarize(events, repeat);
  }
  if (c.d_in) clReleaseMemObject(c.d_in);
  if (c.d_out) clReleaseMemObject(c.d_out);
  free(samples);
  free(events);
  if (status != CLGPU_SUCCESS) {
    bench_progress_clear();
    return bench_report_failure("timing the read kernel", status);
  }
  return 0;
}

static const clgpu_reduce_op sum_op = {CLGPU_REDUCE_SUM, NULL, (clgpu_type)0, NULL, NULL, NULL};
static const clgpu_scan_op scan_op = {CLGPU_SCAN_SUM, 0, NULL, NULL};

/* merge_sort's spec: the comparator path (a built-in key type with an
 * expression), not the natural order. */
static const clgpu_sort_spec merge_spec = {0, SORT_COMPARE, NULL, NULL, 0, 0, 0};

static const clgpu_sort_spec *sort_spec(int op) { return op == OP_MERGE_SORT ? &merge_spec : NULL; }

static clgpu_status enqueue_op(bench_case *c, int op, const clgpu_call_options *call,
                               const clgpu_sort_options *sort_call, cl_event *event) {
  switch (op) {
    case OP_RADIX_SORT:
    case OP_MERGE_SORT:
      return clgpu_sort(c->context, sort_spec(op), &c->v_out, NULL, sort_call, 0, NULL, event);
    case OP_SORT_BY_KEY:
      return clgpu_sort(c->context, NULL, &c->v_out, &c->v_indices, sort_call, 0, NULL, event);
    case OP_ARGSORT:
      return clgpu_sort_permutation(c->context, NULL, &c->v_in, &c->v_indices, sort_call, 0, NULL,
                                    event);
    case OP_READ:
      return enqueue_reference(c, 0, event);
    case OP_COPY_KERNEL:
      return enqueue_reference(c, 1, event);
    case OP_REDUCE:
      return clgpu_reduce(c->context, &sum_op, &c->v_in, CLGPU_ALL_AXES, &c->v_result, call, 0,
                          NULL, event);
    case OP_COUNT_IF:
      return clgpu_count_if(c->context, &c->v_in, c->type->predicate, &c->v_count64, call, 0, NULL,
                            event);
    case OP_SCAN:
      return clgpu_scan(c->context, &scan_op, &c->v_in, CLGPU_ALL_AXES, &c->v_out, call, 0, NULL,
                        event);
    case OP_FINDALL:
      return clgpu_findall(c->context, &c->v_in, c->type->predicate, &c->v_indices, &c->v_count,
                           call, 0, NULL, event);
    case OP_COPY:
      return clgpu_copy(c->context, &c->v_out, &c->v_in, 0, NULL, event);
    case OP_ELEMENTWISE: {
      const clgpu_elementwise_value values[] = {
          {&c->op_dst, NULL}, {NULL, c->scalar_a}, {&c->op_src, NULL}, {&c->v_z, NULL}};
      return clgpu_elementwise_run(c->kernel, values, 0, NULL, event);
    }
    case OP_ELEMENTWISE_STRIDED:
    case OP_ELEMENTWISE_TRANSPOSED: {
      const clgpu_elementwise_value values[] = {{&c->op_dst, NULL}, {&c->op_src, NULL}};
      return clgpu_elementwise_run(c->kernel, values, 0, NULL, event);
    }
    case OP_STRIDED_COPY:
    case OP_STRIDED_COPY_TRANSPOSED:
      return clgpu_copy(c->context, &c->op_dst, &c->op_src, 0, NULL, event);
    default:
      return clgpu_copy(c->context, &c->v_out, &c->v_reversed, 0, NULL, event);
  }
}

/* ---- the ops with a peer: elementwise kernels and strided copies ---- */

/* elementwise's peer: what a user writes by hand for y = a * x + z. With n
 * a multiple of 64 it is launched over exactly n work-items; otherwise over
 * n rounded up to a multiple of 64, with a bound check (BENCH_GUARDED, n as
 * a fifth argument). Local size NULL either way: the implementation picks
 * the work-group size, as a user who has no reason to pick one would do. */
static const char hand_kernel_source[] =
    "#ifdef BENCH_FP64\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#endif\n"
    "#ifdef BENCH_GUARDED\n"
    "__kernel void hand(__global T *y, T a, __global const T *x, __global const T *z, ulong n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) y[i] = a * x[i] + z[i];\n"
    "}\n"
    "#else\n"
    "__kernel void hand(__global T *y, T a, __global const T *x, __global const T *z) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = a * x[i] + z[i];\n"
    "}\n"
    "#endif\n";

#define HAND_ROUND 64

/* a of y = a * x + z: 1.5 for floats, 3 for integers (which wrap). */
static void scalar_a_of(const host_type *t, unsigned char out[8]) {
  memset(out, 0, 8);
  if (t->type == CLGPU_FLOAT) {
    float a = 1.5f;
    memcpy(out, &a, sizeof a);
  } else if (t->type == CLGPU_DOUBLE) {
    double a = 1.5;
    memcpy(out, &a, sizeof a);
  } else if (t->size == 4) {
    uint32_t a = 3;
    memcpy(out, &a, sizeof a);
  } else {
    uint64_t a = 3;
    memcpy(out, &a, sizeof a);
  }
}

/* At the first op with a peer in a case: z (random, another seed) on the
 * host and the device, and the peer's output buffer. 0, or 1 after a
 * failure (printed). */
static int prepare_peer_ops(bench_case *c, int op) {
  if (c->peer_ready) return 0;
  const host_type *t = c->type;
  size_t bytes = c->n * t->size;
  c->host_z = malloc(bytes);
  c->host_peer = malloc(bytes);
  if (!c->host_z || !c->host_peer) {
    bench_progress_clear();
    fprintf(stderr, "clgpu-bench run: out of host memory for %zu elements of %s\n", c->n, t->name);
    return 1;
  }
  t->generate(c->host_z, c->n, 0x2e2e0000ull + (uint64_t)t->type);
  memset(c->host_peer, 0, bytes);
  cl_context cl = clgpu_context_cl_context(c->context);
  cl_int err = CL_SUCCESS;
  c->d_z = clCreateBuffer(cl, CL_MEM_READ_ONLY, bytes, NULL, &err);
  if (err == CL_SUCCESS) c->d_peer_out = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err == CL_SUCCESS) {
    err = clEnqueueWriteBuffer(c->queue, c->d_z, CL_TRUE, 0, bytes, c->host_z, 0, NULL, NULL);
  }
  if (err != CL_SUCCESS) return op_failure(c, op, "making the peer's buffers", (clgpu_status)err);
  clgpu_status status = clgpu_array_1d(c->d_z, 0, t->type, c->n, &c->v_z);
  if (status != CLGPU_SUCCESS) return op_failure(c, op, "making a view of z", status);
  scalar_a_of(t, c->scalar_a);
  c->peer_ready = 1;
  return 0;
}

static void release_peer_op(bench_case *c) {
  clgpu_elementwise_destroy(c->kernel);
  c->kernel = NULL;
  if (c->hand_kernel) clReleaseKernel(c->hand_kernel);
  if (c->hand_program) clReleaseProgram(c->hand_program);
  c->hand_kernel = NULL;
  c->hand_program = NULL;
}

static void release_peer_ops(bench_case *c) {
  release_peer_op(c);
  if (c->d_z) clReleaseMemObject(c->d_z);
  if (c->d_peer_out) clReleaseMemObject(c->d_peer_out);
  c->d_z = c->d_peer_out = NULL;
  free(c->host_z);
  free(c->host_peer);
  c->host_z = c->host_peer = NULL;
  c->peer_ready = 0;
}

/* Build the hand-written kernel for the case's type, as a user would. */
static clgpu_status build_hand_kernel(bench_case *c, char *launch, size_t launch_size) {
  const host_type *t = c->type;
  c->hand_guarded = c->n % HAND_ROUND != 0;
  c->hand_global = c->hand_guarded ? (c->n + HAND_ROUND - 1) / HAND_ROUND * HAND_ROUND : c->n;
  char options[96];
  snprintf(options, sizeof options, "-DT=%s%s%s", clgpu_type_cl_name(t->type),
           t->type == CLGPU_DOUBLE ? " -DBENCH_FP64" : "",
           c->hand_guarded ? " -DBENCH_GUARDED" : "");
  const char *source = hand_kernel_source;
  cl_int err = CL_SUCCESS;
  c->hand_program =
      clCreateProgramWithSource(clgpu_context_cl_context(c->context), 1, &source, NULL, &err);
  if (err != CL_SUCCESS) return (clgpu_status)err;
  cl_device_id device = clgpu_context_device(c->context);
  err = clBuildProgram(c->hand_program, 1, &device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[4096] = "";
    clGetProgramBuildInfo(c->hand_program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    bench_progress_clear();
    fprintf(stderr, "clgpu-bench run: the hand-written kernel (%s) failed to build:\n%s\n", options,
            log);
    return (clgpu_status)err;
  }
  c->hand_kernel = clCreateKernel(c->hand_program, "hand", &err);
  if (err != CL_SUCCESS) return (clgpu_status)err;
  snprintf(launch, launch_size, "hand kernel: global %zu%s, local NULL", c->hand_global,
           c->hand_guarded ? " (n rounded up, bound check)" : "");
  return CLGPU_SUCCESS;
}

/* The views of an op with a peer and the words that describe them in the
 * row (its kernel object comes from create_op_kernel). */
static clgpu_status setup_peer_views(bench_case *c, int op, result *row) {
  const host_type *t = c->type;
  clgpu_status status = CLGPU_SUCCESS;
  size_t s = square_side(c->n);
  size_t square_shape[2] = {s, s};
  clgpu_array square;
  memset(&c->layout, 0, sizeof c->layout);
  if (op_table[op].two_d) {
    status = clgpu_array_nd(c->d_in, 0, t->type, 2, square_shape, CLGPU_ROW_MAJOR, &square);
    if (status != CLGPU_SUCCESS) return status;
    snprintf(row->shape, sizeof row->shape, "%zux%zu", s, s);
  }
  switch (op) {
    case OP_ELEMENTWISE:
    case OP_STRIDED_COPY:
      if (op == OP_ELEMENTWISE) {
        c->op_src = c->v_in;
        snprintf(row->layout, sizeof row->layout, "contiguous 1-D, n %zu", c->n);
      } else {
        clgpu_slice step2 = {CLGPU_SLICE_BEGIN, CLGPU_SLICE_END, 2};
        status = clgpu_array_slice(&c->v_in, &step2, &c->op_src);
        snprintf(row->layout, sizeof row->layout, "x[::2] of %zu (stride 2) -> contiguous", c->n);
      }
      break;
    case OP_ELEMENTWISE_STRIDED: {
      clgpu_slice slices[2] = {{CLGPU_SLICE_BEGIN, CLGPU_SLICE_END, 2}, {CLGPU_SLICE_BEGIN, -1, 1}};
      status = clgpu_array_slice(&square, slices, &c->op_src);
      break;
    }
    default: /* the transposes */
      status = clgpu_array_transpose(&square, &c->op_src);
      break;
  }
  if (status != CLGPU_SUCCESS) return status;
  /* The host side of the source view, and a contiguous destination of its
   * shape in d_out. */
  const clgpu_array *v = &c->op_src;
  if (v->rank == 1) {
    c->layout.rows = 1;
    c->layout.columns = v->shape[0];
    c->layout.column_stride = v->strides[0];
  } else {
    c->layout.rows = v->shape[0];
    c->layout.columns = v->shape[1];
    c->layout.row_stride = v->strides[0];
    c->layout.column_stride = v->strides[1];
  }
  c->layout.first = v->offset / t->size;
  c->count = clgpu_array_count(v);
  status = clgpu_array_nd(c->d_out, 0, t->type, v->rank, v->shape, CLGPU_ROW_MAJOR, &c->op_dst);
  if (status == CLGPU_SUCCESS) status = clgpu_array_1d(c->d_in, 0, t->type, c->count, &c->peer_src);
  if (status == CLGPU_SUCCESS) {
    status = clgpu_array_1d(c->d_peer_out, 0, t->type, c->count, &c->peer_dst);
  }
  if (status != CLGPU_SUCCESS) return status;
  if (op == OP_ELEMENTWISE_STRIDED) {
    snprintf(row->layout, sizeof row->layout, "b[::2, :-1] of %zux%zu: %zux%zu, strides (%td, %td)",
             s, s, v->shape[0], v->shape[1], v->strides[0], v->strides[1]);
  } else if (op_table[op].two_d) {
    snprintf(row->layout, sizeof row->layout, "transpose of %zux%zu: strides (%td, %td)", s, s,
             v->strides[0], v->strides[1]);
  }
  row->elements = c->count;
  row->has_peer = 1;
  return CLGPU_SUCCESS;
}

/* The kernel object of an elementwise op (c->kernel); nothing for the
 * copies. It builds nothing: its programs come at its first run. */
static clgpu_status create_op_kernel(bench_case *c, int op) {
  const host_type *t = c->type;
  if (op == OP_ELEMENTWISE) {
    const clgpu_elementwise_arg args[] = {{"y", CLGPU_OUT, t->type},
                                          {"a", CLGPU_SCALAR, t->type},
                                          {"x", CLGPU_IN, t->type},
                                          {"z", CLGPU_IN, t->type}};
    return clgpu_elementwise_create(c->context, 4, args, "y = a * x + z", NULL, &c->kernel);
  }
  if (op == OP_ELEMENTWISE_STRIDED || op == OP_ELEMENTWISE_TRANSPOSED) {
    const clgpu_elementwise_arg args[] = {{"y", CLGPU_OUT, t->type}, {"x", CLGPU_IN, t->type}};
    return clgpu_elementwise_create(c->context, 2, args, "y = x * x", NULL, &c->kernel);
  }
  return CLGPU_SUCCESS;
}

/* The views of an op with a peer, its kernel object (or hand kernel), and
 * the words that describe them in the row. */
static clgpu_status setup_peer_op(bench_case *c, int op, result *row) {
  clgpu_status status = setup_peer_views(c, op, row);
  if (status == CLGPU_SUCCESS) status = create_op_kernel(c, op);
  if (status != CLGPU_SUCCESS) return status;
  if (op == OP_ELEMENTWISE) {
    status = build_hand_kernel(c, row->peer_launch, sizeof row->peer_launch);
  } else if (op == OP_ELEMENTWISE_STRIDED || op == OP_ELEMENTWISE_TRANSPOSED) {
    snprintf(row->peer_launch, sizeof row->peer_launch,
             "the same kernel object over contiguous 1-D views of %zu", c->count);
  } else {
    snprintf(row->peer_launch, sizeof row->peer_launch, "clEnqueueCopyBuffer of %zu bytes",
             c->count * c->type->size);
  }
  row->has_elementwise = c->kernel != NULL;
  return status;
}

/* One call of the peer. */
static clgpu_status enqueue_peer(bench_case *c, int op, cl_event *event) {
  switch (op) {
    case OP_ELEMENTWISE: {
      cl_ulong n = c->n;
      cl_int err = clSetKernelArg(c->hand_kernel, 0, sizeof c->d_peer_out, &c->d_peer_out);
      err |= clSetKernelArg(c->hand_kernel, 1, c->type->size, c->scalar_a);
      err |= clSetKernelArg(c->hand_kernel, 2, sizeof c->d_in, &c->d_in);
      err |= clSetKernelArg(c->hand_kernel, 3, sizeof c->d_z, &c->d_z);
      if (c->hand_guarded) err |= clSetKernelArg(c->hand_kernel, 4, sizeof n, &n);
      if (err != CL_SUCCESS) return CLGPU_CL_INVALID_KERNEL_ARGS;
      return (clgpu_status)clEnqueueNDRangeKernel(c->queue, c->hand_kernel, 1, NULL,
                                                  &c->hand_global, NULL, 0, NULL, event);
    }
    case OP_ELEMENTWISE_STRIDED:
    case OP_ELEMENTWISE_TRANSPOSED: {
      const clgpu_elementwise_value values[] = {{&c->peer_dst, NULL}, {&c->peer_src, NULL}};
      return clgpu_elementwise_run(c->kernel, values, 0, NULL, event);
    }
    default: /* the copies */
      return (clgpu_status)clEnqueueCopyBuffer(c->queue, c->d_in, c->d_peer_out, 0, 0,
                                               c->count * c->type->size, 0, NULL, event);
  }
}

/* The workspace report of an operation that takes one; 0 when it takes none. */
static int workspace_report(bench_case *c, int op, const clgpu_call_options *call,
                            const clgpu_sort_options *sort_call, clgpu_workspace_size *report,
                            clgpu_status *status) {
  switch (op) {
    case OP_RADIX_SORT:
    case OP_MERGE_SORT:
      *status =
          clgpu_sort_workspace_size(c->context, sort_spec(op), &c->v_out, NULL, sort_call, report);
      return 1;
    case OP_SORT_BY_KEY:
      *status =
          clgpu_sort_workspace_size(c->context, NULL, &c->v_out, &c->v_indices, sort_call, report);
      return 1;
    case OP_ARGSORT:
      *status = clgpu_sort_permutation_workspace_size(c->context, NULL, &c->v_in, &c->v_indices,
                                                      sort_call, report);
      return 1;
    case OP_REDUCE:
      *status = clgpu_reduce_workspace_size(c->context, &sum_op, &c->v_in, CLGPU_ALL_AXES,
                                            &c->v_result, call, report);
      return 1;
    case OP_COUNT_IF:
      *status = clgpu_count_if_workspace_size(c->context, &c->v_in, c->type->predicate,
                                              &c->v_count64, call, report);
      return 1;
    case OP_SCAN:
      *status = clgpu_scan_workspace_size(c->context, &scan_op, &c->v_in, CLGPU_ALL_AXES, &c->v_out,
                                          call, report);
      return 1;
    case OP_FINDALL:
      *status = clgpu_findall_workspace_size(c->context, &c->v_in, c->type->predicate,
                                             &c->v_indices, &c->v_count, call, report);
      return 1;
    default:
      return 0;
  }
}

static clgpu_status read_buffer(bench_case *c, cl_mem buffer, size_t bytes, void *host) {
  return (clgpu_status)clEnqueueReadBuffer(c->queue, buffer, CL_TRUE, 0, bytes, host, 0, NULL,
                                           NULL);
}

/* Check what the device wrote. `boost`: the output of Boost.Compute's peer
 * (copy_if gives values, reduce its sum in output[0]), with `count` from it.
 * 0 when right, 1 with *message, or -1 with *status when reading failed. */
static int check_output(bench_case *c, int op, int boost, uint64_t count, check_message *message,
                        clgpu_status *status) {
  const host_type *t = c->type;
  size_t bytes = c->n * t->size;
  *status = CLGPU_SUCCESS;
  switch (op) {
    case OP_RADIX_SORT:
    case OP_SORT_BY_KEY:
    case OP_MERGE_SORT:
    case OP_ARGSORT: {
      /* Keys in d_out (argsort: d_out only from Boost's peer, which sorts a
       * copy there), values or the permutation in d_indices. clgpu's sorts
       * must be stable; a peer's only right. */
      int with_keys = op != OP_ARGSORT;
      int with_values = op == OP_SORT_BY_KEY || op == OP_ARGSORT;
      if (with_keys) *status = read_buffer(c, c->d_out, bytes, c->host_out);
      if (*status == CLGPU_SUCCESS && with_values) {
        *status = read_buffer(c, c->d_indices, c->n * sizeof(uint32_t), c->host_values);
      }
      if (*status != CLGPU_SUCCESS) return -1;
      return check_sorted(t, c->host_in, c->n, c->perm, with_keys ? c->host_out : NULL,
                          with_values ? c->host_values : NULL, !boost, c->scratch, message);
    }
    case OP_READ:
      return 0; /* its value only keeps the reads alive */
    case OP_REDUCE: {
      unsigned char value[8];
      *status = read_buffer(c, boost ? c->d_out : c->d_result, t->size, value);
      if (*status != CLGPU_SUCCESS) return -1;
      return t->check_sum(c->host_in, c->n, value, message);
    }
    case OP_COUNT_IF: {
      if (!boost) {
        *status = read_buffer(c, c->d_result, sizeof count, &count);
        if (*status != CLGPU_SUCCESS) return -1;
      }
      if (count == c->selected) return 0;
      snprintf(message->text, sizeof message->text, "count is %llu, the host's %llu",
               (unsigned long long)count, (unsigned long long)c->selected);
      return 1;
    }
    case OP_SCAN:
      *status = read_buffer(c, c->d_out, bytes, c->host_out);
      if (*status != CLGPU_SUCCESS) return -1;
      return t->check_scan(c->host_in, c->n, c->host_out, message);
    case OP_FINDALL:
      if (!boost) {
        *status = read_buffer(c, c->d_count, sizeof count, &count);
        if (*status != CLGPU_SUCCESS) return -1;
      }
      if (count > c->n) {
        snprintf(message->text, sizeof message->text, "count is %llu, more than n",
                 (unsigned long long)count);
        return 1;
      }
      if (boost) {
        *status = read_buffer(c, c->d_out, (size_t)count * t->size, c->host_out);
      } else {
        *status = read_buffer(c, c->d_indices, (size_t)count * sizeof(uint32_t), c->host_out);
      }
      if (*status != CLGPU_SUCCESS) return -1;
      return t->check_selected(c->host_in, c->n, c->host_out, count, !boost, message);
    case OP_COPY_STRIDED:
      *status = read_buffer(c, c->d_out, bytes, c->host_out);
      if (*status != CLGPU_SUCCESS) return -1;
      return t->check_reversed(c->host_in, c->n, c->host_out, message);
    case OP_ELEMENTWISE:
    case OP_ELEMENTWISE_STRIDED:
    case OP_ELEMENTWISE_TRANSPOSED:
    case OP_STRIDED_COPY:
    case OP_STRIDED_COPY_TRANSPOSED:
      *status = read_buffer(c, c->d_out, c->count * t->size, c->host_out);
      if (*status != CLGPU_SUCCESS) return -1;
      if (op == OP_ELEMENTWISE) {
        return t->check_axpy(c->scalar_a, c->host_in, c->host_z, c->host_out, c->n, message);
      }
      if (op == OP_ELEMENTWISE_STRIDED || op == OP_ELEMENTWISE_TRANSPOSED) {
        return t->check_square(c->host_in, &c->layout, c->host_out, message);
      }
      return check_copy_layout(t->size, c->host_in, &c->layout, c->host_out, message);
    default: /* OP_COPY, OP_COPY_KERNEL */
      *status = read_buffer(c, c->d_out, bytes, c->host_out);
      if (*status != CLGPU_SUCCESS) return -1;
      if (memcmp(c->host_out, c->host_in, bytes) == 0) return 0;
      for (size_t i = 0; i < c->n; i++) {
        const unsigned char *got = (const unsigned char *)c->host_out + i * t->size;
        if (memcmp(got, (const unsigned char *)c->host_in + i * t->size, t->size) != 0) {
          snprintf(message->text, sizeof message->text, "out[%zu] differs from in[%zu]", i, i);
          break;
        }
      }
      return 1;
  }
}

/* Check what the peer of an op wrote (d_peer_out): as check_output. */
static int check_peer(bench_case *c, int op, check_message *message, clgpu_status *status) {
  const host_type *t = c->type;
  *status = read_buffer(c, c->d_peer_out, c->count * t->size, c->host_peer);
  if (*status != CLGPU_SUCCESS) return -1;
  if (op == OP_ELEMENTWISE) {
    return t->check_axpy(c->scalar_a, c->host_in, c->host_z, c->host_peer, c->n, message);
  }
  elementwise_layout contiguous = {1, c->count, 0, 1, 0};
  if (op == OP_ELEMENTWISE_STRIDED || op == OP_ELEMENTWISE_TRANSPOSED) {
    return t->check_square(c->host_in, &contiguous, c->host_peer, message);
  }
  return check_copy_layout(t->size, c->host_in, &contiguous, c->host_peer, message);
}

/* ---- CPU baselines ---- */

typedef struct cpu_task {
  const bench_case *c;
  int count;
  size_t begin, end;
  unsigned char sum[8];
  size_t counted;
} cpu_task;

static volatile uint64_t cpu_sink; /* keeps the baselines' results alive */

static void *cpu_worker(void *argument) {
  cpu_task *task = argument;
  if (task->count) {
    task->counted = task->c->type->count(task->c->host_in, task->begin, task->end);
  } else {
    task->c->type->sum(task->c->host_in, task->begin, task->end, task->sum);
  }
  return NULL;
}

static int cpu_threads(void) {
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online < 1) return 1;
  return online > 64 ? 64 : (int)online;
}

/* Sum (or count) over all threads, each a contiguous share. */
static void cpu_parallel(const bench_case *c, int count) {
  cpu_task tasks[64];
  pthread_t threads[64];
  /* A thread per core, but none for less than 64K elements. */
  size_t most = (c->n + 65535) / 65536;
  int num = (size_t)cpu_threads() < most ? cpu_threads() : (int)most;
  size_t share = (c->n + (size_t)num - 1) / (size_t)num;
  for (int k = 0; k < num; k++) {
    tasks[k].c = c;
    tasks[k].count = count;
    tasks[k].begin = (size_t)k * share < c->n ? (size_t)k * share : c->n;
    tasks[k].end = tasks[k].begin + share < c->n ? tasks[k].begin + share : c->n;
  }
  int started[64] = {0};
  for (int k = 1; k < num; k++) {
    started[k] = pthread_create(&threads[k], NULL, cpu_worker, &tasks[k]) == 0;
    if (!started[k]) cpu_worker(&tasks[k]);
  }
  cpu_worker(&tasks[0]);
  uint64_t sink = 0;
  for (int k = 0; k < num; k++) {
    if (k > 0 && started[k]) pthread_join(threads[k], NULL);
    uint64_t bits = 0;
    memcpy(&bits, tasks[k].sum, sizeof bits < c->type->size ? sizeof bits : c->type->size);
    sink += count ? tasks[k].counted : bits;
  }
  cpu_sink = sink;
}

static void cpu_run(bench_case *c, int op) {
  const host_type *t = c->type;
  switch (op) {
    case OP_READ:
    case OP_REDUCE:
      cpu_parallel(c, 0);
      break;
    case OP_COUNT_IF:
      cpu_parallel(c, 1);
      break;
    case OP_SCAN:
      t->scan(c->host_in, c->cpu_out, c->n);
      break;
    case OP_FINDALL:
      cpu_sink = t->findall(c->host_in, c->cpu_index, c->n);
      break;
    case OP_COPY:
      t->copy(c->host_in, c->cpu_out, c->n);
      break;
    case OP_COPY_STRIDED:
      t->copy_reversed(c->host_in, c->cpu_out, c->n);
      break;
    case OP_ELEMENTWISE:
      t->axpy(c->scalar_a, c->host_in, c->host_z, c->cpu_out, c->n);
      break;
    case OP_ELEMENTWISE_STRIDED:
    case OP_ELEMENTWISE_TRANSPOSED:
      t->square(c->host_in, &c->layout, c->cpu_out);
      break;
    case OP_STRIDED_COPY:
    case OP_STRIDED_COPY_TRANSPOSED:
      copy_layout(t->size, c->host_in, &c->layout, c->cpu_out);
      break;
    default: /* OP_COPY_KERNEL */
      memcpy(c->cpu_out, c->host_in, c->n * t->size);
      break;
  }
}

static timing time_cpu(bench_case *c, int op, double *samples) {
  const run_options *o = c->options;
  int warmup = o->warmup < 1 ? 1 : o->warmup; /* at least one: page in the output */
  for (int call = 0; call < warmup + o->repeat; call++) {
    double start = bench_now_ms();
    cpu_run(c, op);
    double ms = bench_now_ms() - start;
    if (call >= warmup) samples[call - warmup] = ms;
  }
  return bench_summarize(samples, o->repeat);
}

/* ---- one operation ---- */

/* Whether the device of the event's queue has a profiling timer: one whose
 * resolution is 0 ns has none (rusticl of Mesa 22.3 stamps every command
 * 0, 1, 2 and 3 ns), and its events' times are not device times. */
static int event_has_device_times(cl_event event) {
  cl_command_queue queue = NULL;
  cl_device_id device = NULL;
  size_t resolution = 0;
  return clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof queue, &queue, NULL) ==
             CL_SUCCESS &&
         queue &&
         clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, NULL) ==
             CL_SUCCESS &&
         clGetDeviceInfo(device, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof resolution,
                         &resolution, NULL) == CL_SUCCESS &&
         resolution > 0;
}

double bench_event_ms(cl_event event) {
  cl_ulong start = 0, end = 0;
  if (!event_has_device_times(event) ||
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) !=
          CL_SUCCESS ||
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) !=
          CL_SUCCESS ||
      end < start) {
    return NAN;
  }
  return (double)(end - start) * 1e-6;
}

static double op_bytes(const bench_case *c, int op) {
  double data = (double)c->n * (double)c->type->size;
  switch (op) {
    case OP_READ:
    case OP_REDUCE:
    case OP_COUNT_IF:
      return data;
    case OP_FINDALL:
      return data + 4.0 * (double)c->selected;
    case OP_SORT_BY_KEY: /* keys and values read and written once */
      return 2 * (data + 4.0 * (double)c->n);
    case OP_ARGSORT: /* keys read once, the permutation written once */
      return data + 4.0 * (double)c->n;
    case OP_ELEMENTWISE: /* x and z read, y written */
      return 3.0 * (double)c->count * (double)c->type->size;
    case OP_ELEMENTWISE_STRIDED: /* the view's elements read, as many written */
    case OP_ELEMENTWISE_TRANSPOSED:
    case OP_STRIDED_COPY:
    case OP_STRIDED_COPY_TRANSPOSED:
      return 2.0 * (double)c->count * (double)c->type->size;
    default: /* scan, the copies, radix_sort, merge_sort: read and write once */
      return 2 * data;
  }
}

/* ---- the sorts' setup, refill and baselines ---- */

/* At the first sort of a case: the host's buffers, the reference (a stable
 * sort of the data with its indices, itself checked) and d_iota. 0, or 1
 * after a failure (printed). */
static int prepare_sorts(bench_case *c, int op) {
  if (c->sorts_ready) return 0;
  const host_type *t = c->type;
  size_t n = c->n, bytes = n * t->size, index_bytes = n * sizeof(uint32_t);
  c->perm = malloc(index_bytes);
  c->host_values = malloc(index_bytes);
  c->iota = malloc(index_bytes);
  c->scratch = malloc(n / 8 + 1);
  c->sort_keys = malloc(bytes);
  c->sort_tmp_keys = malloc(bytes);
  c->sort_values = malloc(index_bytes);
  c->sort_tmp_values = malloc(index_bytes);
  c->pairs = malloc(n * t->pair_size);
  if (!c->perm || !c->host_values || !c->iota || !c->scratch || !c->sort_keys ||
      !c->sort_tmp_keys || !c->sort_values || !c->sort_tmp_values || !c->pairs) {
    bench_progress_clear();
    fprintf(stderr, "clgpu-bench run: out of host memory for sorting %zu elements of %s\n", n,
            t->name);
    return 1;
  }
  for (size_t i = 0; i < n; i++) c->iota[i] = (uint32_t)i;
  /* Every page touched once, so that no baseline's first call pays for it. */
  memset(c->sort_tmp_keys, 0, bytes);
  memset(c->sort_tmp_values, 0, index_bytes);
  memset(c->sort_values, 0, index_bytes);
  memset(c->pairs, 0, n * t->pair_size);

  memcpy(c->sort_keys, c->host_in, bytes);
  memcpy(c->perm, c->iota, index_bytes);
  radix_sort_host(t, c->sort_keys, c->perm, c->sort_tmp_keys, c->sort_tmp_values, n);
  check_message message = {{0}};
  int wrong = check_sorted(t, c->host_in, n, c->perm, NULL, c->perm, 0, c->scratch, &message);
  for (size_t j = 1; j < n && !wrong; j++) {
    if (c->perm[j - 1] > c->perm[j] &&
        element_image(t, element_bits(t, c->host_in, c->perm[j - 1])) ==
            element_image(t, element_bits(t, c->host_in, c->perm[j]))) {
      snprintf(message.text, sizeof message.text, "equal keys out of order at %zu", j);
      wrong = 1;
    }
  }
  if (wrong) return wrong_result(c, op, "the host's reference sort", &message);

  cl_int err = CL_SUCCESS;
  c->d_iota = clCreateBuffer(clgpu_context_cl_context(c->context), CL_MEM_READ_ONLY, index_bytes,
                             NULL, &err);
  if (err == CL_SUCCESS) {
    err =
        clEnqueueWriteBuffer(c->queue, c->d_iota, CL_TRUE, 0, index_bytes, c->iota, 0, NULL, NULL);
  }
  if (err != CL_SUCCESS) return op_failure(c, op, "making the values buffer", (clgpu_status)err);
  c->sorts_ready = 1;
  return 0;
}

static void release_sorts(bench_case *c) {
  if (c->d_iota) clReleaseMemObject(c->d_iota);
  c->d_iota = NULL;
  void *buffers[] = {c->perm,        c->host_values,     c->iota,
                     c->scratch,     c->sort_keys,       c->sort_tmp_keys,
                     c->sort_values, c->sort_tmp_values, c->pairs};
  for (size_t k = 0; k < sizeof buffers / sizeof buffers[0]; k++) free(buffers[k]);
  c->perm = c->host_values = c->iota = c->sort_values = c->sort_tmp_values = NULL;
  c->scratch = NULL;
  c->sort_keys = c->sort_tmp_keys = c->pairs = NULL;
  memset(c->baseline_done, 0, sizeof c->baseline_done);
  c->sorts_ready = 0;
}

/* Before every call of a sort, not timed: the unsorted keys copied back into
 * d_out on the device (and the values 0, 1, ..., n-1 into d_indices), the
 * queue finished, then a marker enqueued and waited for; the sort's device
 * time runs from the marker's end to the end of the sort's event. argsort
 * leaves its keys alone: it needs no refill. */
static clgpu_status refill_sort(bench_case *c, int op, cl_event *marker) {
  cl_int err = CL_SUCCESS;
  if (op != OP_ARGSORT) {
    err =
        clEnqueueCopyBuffer(c->queue, c->d_in, c->d_out, 0, 0, c->n * c->type->size, 0, NULL, NULL);
  }
  if (err == CL_SUCCESS && op == OP_SORT_BY_KEY) {
    err = clEnqueueCopyBuffer(c->queue, c->d_iota, c->d_indices, 0, 0, c->n * sizeof(uint32_t), 0,
                              NULL, NULL);
  }
  if (err == CL_SUCCESS) err = clFinish(c->queue);
  if (err == CL_SUCCESS) err = clEnqueueMarkerWithWaitList(c->queue, 0, NULL, marker);
  if (err == CL_SUCCESS) err = clWaitForEvents(1, marker);
  return (clgpu_status)err;
}

/* The device's time from the end of `from` to the end of `to`. */
static double span_ms(cl_event from, cl_event to) {
  cl_ulong start = 0, end = 0;
  if (!event_has_device_times(to) ||
      clGetEventProfilingInfo(from, CL_PROFILING_COMMAND_END, sizeof start, &start, NULL) !=
          CL_SUCCESS ||
      clGetEventProfilingInfo(to, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) != CL_SUCCESS ||
      end < start) {
    return NAN;
  }
  return (double)(end - start) * 1e-6;
}

/* One timed call of a sort baseline; its refill (the unsorted keys, the
 * values 0, 1, ..., n-1, qsort's pairs) is not timed. */
static double cpu_sort_once(bench_case *c, int base) {
  const host_type *t = c->type;
  memcpy(c->sort_keys, c->host_in, c->n * t->size);
  if (base == BASE_RADIX_PAIRS) memcpy(c->sort_values, c->iota, c->n * sizeof(uint32_t));
  if (base == BASE_QSORT_PAIRS) t->make_pairs(c->host_in, c->iota, c->pairs, c->n);
  double start = bench_now_ms();
  switch (base) {
    case BASE_RADIX_KEYS:
      radix_sort_host(t, c->sort_keys, NULL, c->sort_tmp_keys, NULL, c->n);
      break;
    case BASE_RADIX_PAIRS:
      radix_sort_host(t, c->sort_keys, c->sort_values, c->sort_tmp_keys, c->sort_tmp_values, c->n);
      break;
    case BASE_QSORT_KEYS:
      qsort(c->sort_keys, c->n, t->size, t->compare);
      break;
    default:
      qsort(c->pairs, c->n, t->pair_size, t->compare_pair);
      break;
  }
  double ms = bench_now_ms() - start;
  cpu_sink = element_bits(t, base == BASE_QSORT_PAIRS ? c->pairs : c->sort_keys, 0);
  return ms;
}

/* A sort baseline over `repeat` calls, timed once per case. */
static timing time_cpu_sort(bench_case *c, int base, int repeat, double *samples) {
  if (!c->baseline_done[base]) {
    for (int k = 0; k < repeat; k++) samples[k] = cpu_sort_once(c, base);
    c->baseline[base] = bench_summarize(samples, repeat);
    c->baseline_done[base] = 1;
  }
  return c->baseline[base];
}

/* The buffers measure_op times into, repeat entries each. */
typedef struct sample_buffers {
  double *wall, *events, *reference, *peer_wall, *peer_events;
} sample_buffers;

/* One timed call of an op's peer: wall clock to clFinish, and its event. */
static clgpu_status time_peer(bench_case *c, int op, double *wall, double *device) {
  cl_event event = NULL;
  double start = bench_now_ms();
  clgpu_status status = enqueue_peer(c, op, &event);
  if (status != CLGPU_SUCCESS) return status;
  cl_int err = clFinish(c->queue);
  *wall = bench_now_ms() - start;
  *device = event ? bench_event_ms(event) : NAN;
  if (event) clReleaseEvent(event);
  return (clgpu_status)err;
}

/* Add what the context's program cache did since `before` to the row. */
static void add_cache_delta(const bench_case *c, const clgpu_cache_stats *before, result *row) {
  clgpu_cache_stats after;
  if (clgpu_context_cache_stats(c->context, &after) != CLGPU_SUCCESS) return;
  row->has_cache = 1;
  row->cache_builds += after.builds - before->builds;
  row->cache_memory_hits += after.memory_hits - before->memory_hits;
  row->cache_disk_hits += after.disk_hits - before->disk_hits;
  row->cache_build_ms += after.build_ms - before->build_ms;
}

/* A call of the peer, kept as timed call `timed` (negative: a warm-up).
 * 0, or 1 after a failure (printed). */
static int peer_call(bench_case *c, int op, const sample_buffers *buffers, int timed, result *row) {
  double wall = NAN, device = NAN;
  clgpu_cache_stats before;
  clgpu_context_cache_stats(c->context, &before);
  clgpu_status status = time_peer(c, op, &wall, &device);
  add_cache_delta(c, &before, row);
  if (status != CLGPU_SUCCESS) return op_failure(c, op, "the peer's call", status);
  if (timed >= 0) {
    buffers->peer_wall[timed] = wall;
    buffers->peer_events[timed] = device;
  }
  return 0;
}

/* Measure `op` on this case into *row. 0, or 1 after a failure (printed). */
static int measure_op_body(bench_case *c, int op, result *row, const sample_buffers *buffers,
                           const char *progress_prefix) {
  double *samples = buffers->wall, *events = buffers->events;
  double *reference_samples = buffers->reference;
  const run_options *o = c->options;
  const int is_sort = op_table[op].sort;
  const int has_peer = op_table[op].peer != NULL;
  memset(row, 0, sizeof *row);
  row->op = op;
  row->type = c->type;
  row->n = c->n;
  row->elements = c->n;
  size_label(c->n, row->shape, sizeof row->shape);
  if (has_peer) {
    if (prepare_peer_ops(c, op) != 0) return 1;
    clgpu_status setup = setup_peer_op(c, op, row);
    if (setup != CLGPU_SUCCESS) return op_failure(c, op, "setting up views and kernels", setup);
  }
  row->bytes = op_bytes(c, op);
  row->selected = op == OP_FINDALL || op == OP_COUNT_IF ? c->selected : 0;
  row->reference_gbps = NAN;
  int qsort_repeat = 0;
  op_calls(o, op, c->n, &row->repeat, &row->warmup, &qsort_repeat);
  const int repeat = row->repeat, warmup = row->warmup;
  if (is_sort && prepare_sorts(c, op) != 0) return 1;

  clgpu_call_options call = {o->algorithm, NULL};
  clgpu_sort_options sort_call = {
      op == OP_MERGE_SORT ? CLGPU_ALGORITHM_MERGE : CLGPU_ALGORITHM_RADIX, o->algorithm, NULL};
  clgpu_workspace_size report;
  clgpu_status status = CLGPU_SUCCESS;
  clgpu_workspace *workspace = NULL;
  if (op == OP_READ || op == OP_COPY_KERNEL) {
    snprintf(row->algorithm, sizeof row->algorithm, "%s-shape", c->cpu_shape ? "cpu" : "gpu");
  } else if (op == OP_COPY || op == OP_COPY_STRIDED || has_peer) {
    snprintf(row->algorithm, sizeof row->algorithm, "-");
  }
  if (workspace_report(c, op, &call, &sort_call, &report, &status)) {
    if (status != CLGPU_SUCCESS) return op_failure(c, op, "workspace size query", status);
    status = clgpu_workspace_create(c->context, &report, &workspace);
    if (status != CLGPU_SUCCESS) return op_failure(c, op, "clgpu_workspace_create", status);
    call.workspace = workspace;
    sort_call.workspace = workspace;
    if (is_sort && report.num_parts > 1) { /* the algorithm, then the shape */
      snprintf(row->algorithm, sizeof row->algorithm, "%s/%s",
               clgpu_algorithm_name(report.parts[0].algorithm),
               clgpu_algorithm_name(report.parts[1].algorithm));
    } else {
      snprintf(row->algorithm, sizeof row->algorithm, "%s",
               report.num_parts > 0 ? clgpu_algorithm_name(report.parts[0].algorithm) : "?");
    }
  }

  bench_progress("%s %s: clgpu", progress_prefix, op_table[op].name);
  int failed = 0;
  int reference = op_table[op].reference;
  for (int call_index = 0; call_index < warmup + repeat && !failed; call_index++) {
    if (reference >= 0) {
      /* The reference kernel right before each call: both see the same
       * machine, which matters where other work comes and goes. */
      double start = bench_now_ms();
      status = enqueue_reference(c, reference == OP_COPY_KERNEL, NULL);
      cl_int err = status == CLGPU_SUCCESS ? clFinish(c->queue) : CL_SUCCESS;
      if (status != CLGPU_SUCCESS || err != CL_SUCCESS) {
        failed = op_failure(c, reference, "reference kernel",
                            status != CLGPU_SUCCESS ? status : (clgpu_status)err);
        break;
      }
      if (call_index >= warmup) reference_samples[call_index - warmup] = bench_now_ms() - start;
    }
    cl_event marker = NULL;
    if (is_sort) {
      status = refill_sort(c, op, &marker);
      if (status != CLGPU_SUCCESS) {
        if (marker) clReleaseEvent(marker);
        failed = op_failure(c, op, "refilling the input", status);
        break;
      }
    }
    /* The peer's calls alternate with the operation's: before it on odd
     * calls, after it on even ones, so that neither always follows the
     * reference kernel. */
    const int peer_first = has_peer && (call_index & 1);
    if (peer_first && peer_call(c, op, buffers, call_index - warmup, row) != 0) {
      if (marker) clReleaseEvent(marker);
      failed = 1;
      break;
    }
    clgpu_elementwise_stats kernel_before, kernel_after;
    memset(&kernel_before, 0, sizeof kernel_before);
    if (c->kernel) clgpu_elementwise_get_stats(c->kernel, &kernel_before);
    clgpu_cache_stats cache_before;
    memset(&cache_before, 0, sizeof cache_before);
    if (has_peer) clgpu_context_cache_stats(c->context, &cache_before);
    cl_event event = NULL;
    double start = bench_now_ms();
    status = enqueue_op(c, op, &call, &sort_call, &event);
    if (status != CLGPU_SUCCESS) {
      if (marker) clReleaseEvent(marker);
      failed = op_failure(c, op, call_index < warmup ? "warm-up call" : "timed call", status);
      break;
    }
    cl_int err = clFinish(c->queue);
    double wall = bench_now_ms() - start;
    if (err != CL_SUCCESS) {
      failed = op_failure(c, op, "clFinish", (clgpu_status)err);
    } else if (call_index >= warmup) {
      samples[call_index - warmup] = wall;
      events[call_index - warmup] = !event   ? NAN
                                    : marker ? span_ms(marker, event)
                                             : bench_event_ms(event);
    }
    if (event) clReleaseEvent(event);
    if (marker) clReleaseEvent(marker);
    if (has_peer) add_cache_delta(c, &cache_before, row);
    if (c->kernel && clgpu_elementwise_get_stats(c->kernel, &kernel_after) == CLGPU_SUCCESS) {
      row->op_contiguous_runs += kernel_after.contiguous_runs - kernel_before.contiguous_runs;
      row->op_specialised_runs += kernel_after.specialised_runs - kernel_before.specialised_runs;
      row->op_generic_runs += kernel_after.generic_runs - kernel_before.generic_runs;
    }
    if (has_peer && !peer_first && !failed)
      failed = peer_call(c, op, buffers, call_index - warmup, row);
  }
  clgpu_workspace_destroy(workspace);
  if (failed) return 1;
  row->wall = bench_summarize(samples, repeat);
  row->event = bench_summarize(events, repeat);
  if (reference >= 0) {
    row->reference = bench_summarize(reference_samples, repeat);
    row->reference_gbps = gbps(op_bytes(c, reference), &row->reference);
  }
  if (has_peer) {
    row->peer_wall = bench_summarize(buffers->peer_wall, repeat);
    row->peer_event = bench_summarize(buffers->peer_events, repeat);
  }
  if (c->kernel) {
    clgpu_elementwise_get_stats(c->kernel, &row->kernel_stats);
    int paths =
        (row->op_contiguous_runs > 0) + (row->op_specialised_runs > 0) + (row->op_generic_runs > 0);
    snprintf(row->algorithm, sizeof row->algorithm, "%s",
             paths > 1                  ? "mixed"
             : row->op_generic_runs     ? "generic"
             : row->op_specialised_runs ? "specialised"
             : row->op_contiguous_runs  ? "contiguous"
                                        : "?");
  }

  check_message message = {{0}};
  int verdict = check_output(c, op, 0, 0, &message, &status);
  if (verdict < 0) return op_failure(c, op, "reading the result back", status);
  if (verdict > 0) return wrong_result(c, op, "clgpu", &message);
  if (has_peer) {
    verdict = check_peer(c, op, &message, &status);
    if (verdict < 0) return op_failure(c, op, "reading the peer's result back", status);
    if (verdict > 0) return wrong_result(c, op, op_table[op].peer, &message);
  }

  if (!o->no_cpu && is_sort) {
    int pairs = op == OP_SORT_BY_KEY || op == OP_ARGSORT;
    bench_progress("%s %s: CPU baseline (LSD radix)", progress_prefix, op_table[op].name);
    row->cpu = time_cpu_sort(c, pairs ? BASE_RADIX_PAIRS : BASE_RADIX_KEYS, repeat, samples);
    bench_progress("%s %s: CPU baseline (qsort)", progress_prefix, op_table[op].name);
    row->qsort =
        time_cpu_sort(c, pairs ? BASE_QSORT_PAIRS : BASE_QSORT_KEYS, qsort_repeat, samples);
    row->qsort_calls = qsort_repeat;
  } else if (!o->no_cpu) {
    bench_progress("%s %s: CPU baseline", progress_prefix, op_table[op].name);
    row->cpu = time_cpu(c, op, samples);
  }

  snprintf(row->boost_note, sizeof row->boost_note, "%s",
           op_table[op].boost == BENCH_BOOST_NONE ? "no peer"
           : o->no_boost                          ? "--no-boost"
                                                  : "not built (boost_compute feature)");
#ifdef CLGPU_BENCH_BOOST
  if (op_table[op].boost != BENCH_BOOST_NONE && !o->no_boost) {
    bench_progress("%s %s: Boost.Compute", progress_prefix, op_table[op].name);
    char error[512] = "";
    uint64_t count = 0;
    int boost_warmup = warmup < 1 ? 1 : warmup; /* Boost's kernel builds are never timed */
    /* Boost's sorts on a CPU device take seconds a call at 16M: one timed
     * call there, as the qsort baseline, unless --repeat says otherwise. */
    int boost_repeat = is_sort && qsort_repeat == 1 && !o->repeat_given ? 1 : repeat;
    row->boost_note[0] = '\0';
    int boost_failed =
        is_sort ? bench_boost_sort(c->queue, op_table[op].boost, c->type->type, c->d_in, c->d_out,
                                   c->d_iota, c->d_indices, c->n, boost_warmup, boost_repeat, samples,
                                   error, sizeof error)
                : bench_boost_run(c->queue, op_table[op].boost, c->type->type, c->type->predicate,
                                  c->d_in, c->d_out, c->n, boost_warmup, repeat, samples, &count,
                                  error, sizeof error);
    if (boost_failed) {
      bench_progress_clear();
      fprintf(stderr, "clgpu-bench run: Boost.Compute %s %s failed: %s\n", op_table[op].name,
              c->type->name, error);
      snprintf(row->boost_note, sizeof row->boost_note, "failed: %s", error);
      clFinish(c->queue);
    } else {
      verdict = check_output(c, op, 1, count, &message, &status);
      if (verdict < 0) return op_failure(c, op, "reading Boost.Compute's result", status);
      if (verdict > 0) {
        /* A peer's wrong answer is reported, not fatal: it is not ours. */
        wrong_result(c, op, "Boost.Compute", &message);
        snprintf(row->boost_note, sizeof row->boost_note, "wrong result: %s", message.text);
      } else {
        row->boost = bench_summarize(samples, is_sort ? boost_repeat : repeat);
        if (is_sort) {
          snprintf(row->boost_note, sizeof row->boost_note, "%s",
                   bench_boost_sort_algorithm(op_table[op].boost, c->device->type));
        }
      }
    }
  }
#endif
  return 0;
}

static int measure_op(bench_case *c, int op, result *row, const sample_buffers *buffers,
                      const char *progress_prefix) {
  int failed = measure_op_body(c, op, row, buffers, progress_prefix);
  release_peer_op(c); /* the op's kernel object and hand kernel: once per case and op */
  return failed;
}

/* ---- output ---- */

typedef struct run_report {
  const run_options *options;
  const clgpu_device_info *device;
  result *rows;
  size_t num_rows;
  int boost_built;
  const char *boost_version;
  first_call *first_calls; /* measured, in op_table's order */
  size_t num_first_calls;
} run_report;

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

/* The figures of a row, derived once for every format. */
typedef struct row_figures {
  double wall_gbps, event_gbps, melems, share, cpu_gbps, vs_cpu, boost_gbps, vs_boost;
  double qsort_gbps, vs_qsort;
  /* The ops with a peer: its GB/s, clgpu's median wall time over the
   * peer's (above 1: clgpu is slower), and clgpu's throughput relative to
   * the peer's (its inverse: the bytes are the same). */
  double peer_gbps, time_ratio, vs_peer;
} row_figures;

static row_figures figures_of(const result *r) {
  row_figures f;
  f.wall_gbps = gbps(r->bytes, &r->wall);
  f.event_gbps = gbps(r->bytes, &r->event);
  f.melems = r->wall.valid ? (double)r->elements / (r->wall.median * 1e-3) / 1e6 : NAN;
  f.share = f.wall_gbps / r->reference_gbps;
  f.cpu_gbps = gbps(r->bytes, &r->cpu);
  f.vs_cpu = f.wall_gbps / f.cpu_gbps;
  f.boost_gbps = gbps(r->bytes, &r->boost);
  f.vs_boost = f.wall_gbps / f.boost_gbps;
  f.qsort_gbps = gbps(r->bytes, &r->qsort);
  f.vs_qsort = f.wall_gbps / f.qsort_gbps;
  f.peer_gbps = gbps(r->bytes, &r->peer_wall);
  f.time_ratio = r->wall.valid && r->peer_wall.valid && r->peer_wall.median > 0
                     ? r->wall.median / r->peer_wall.median
                     : NAN;
  f.vs_peer = f.wall_gbps / f.peer_gbps;
  return f;
}

/* What a row's event figure covers (csv and json). */
static const char *event_covers(const result *r) {
  return op_table[r->op].sort ? "marker_to_last_command" : "last_command";
}

static const char *format_or_na(char *buffer, size_t size, const char *format, double value) {
  if (isfinite(value)) {
    snprintf(buffer, size, format, value);
  } else {
    snprintf(buffer, size, "n/a");
  }
  return buffer;
}

/* The programs a kernel object has run: the plain 1-D kernel's, one per
 * specialised layout, and the generic kernel's (each one program of the
 * context's cache, built or loaded at its first call). */
static uint64_t kernel_programs(const clgpu_elementwise_stats *st) {
  return (st->contiguous_runs > 0) + st->specialisations + (st->generic_runs > 0);
}

/* The ops timed beside a peer: the ratios, the views, the kernels. */
static void print_peer_table(const run_report *report, int name_width, int n_width) {
  int any = 0;
  for (size_t k = 0; k < report->num_rows; k++) any |= report->rows[k].has_peer;
  if (!any) return;
  printf(
      "\nBeside their peers in the same run (the peer's calls alternate with clgpu's; medians of\n"
      "the wall time from call to clFinish):\n");
  printf("%-*s %-6s %*s %-11s %22s %22s %8s %8s  %s\n", name_width, "op", "type", n_width, "n",
         "kernel", "clgpu ms (min-max)", "peer ms (min-max)", "t ratio", "thr rel", "peer");
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    if (!r->has_peer) continue;
    row_figures f = figures_of(r);
    char mine[64], theirs[64], ratio[16], relative[16];
    int digits = r->wall.max >= 100 ? 1 : r->wall.max >= 10 ? 2 : 3;
    snprintf(mine, sizeof mine, "%.*f (%.*f-%.*f)", digits, r->wall.median, digits, r->wall.min,
             digits, r->wall.max);
    if (r->peer_wall.valid) {
      digits = r->peer_wall.max >= 100 ? 1 : r->peer_wall.max >= 10 ? 2 : 3;
      snprintf(theirs, sizeof theirs, "%.*f (%.*f-%.*f)", digits, r->peer_wall.median, digits,
               r->peer_wall.min, digits, r->peer_wall.max);
    } else {
      snprintf(theirs, sizeof theirs, "n/a");
    }
    format_or_na(ratio, sizeof ratio, "%.3f", f.time_ratio);
    format_or_na(relative, sizeof relative, "%.3f", f.vs_peer);
    printf("%-*s %-6s %*s %-11s %22s %22s %8s %8s  %s\n", name_width, op_table[r->op].name,
           r->type->name, n_width, r->shape, r->algorithm, mine, theirs, ratio, relative,
           op_table[r->op].peer);
    printf("    view: %s; %zu elements; peer: %s\n", r->layout, r->elements, r->peer_launch);
    if (r->has_elementwise) {
      const clgpu_elementwise_stats *st = &r->kernel_stats;
      printf(
          "    kernel object: %llu programs: %llu layouts specialised (%u held), %llu evicted; "
          "runs contiguous %llu, specialised %llu, generic %llu (clgpu's own calls: %llu, %llu, "
          "%llu)\n",
          (unsigned long long)kernel_programs(st), (unsigned long long)st->specialisations,
          st->variants_held, (unsigned long long)st->evictions,
          (unsigned long long)st->contiguous_runs, (unsigned long long)st->specialised_runs,
          (unsigned long long)st->generic_runs, (unsigned long long)r->op_contiguous_runs,
          (unsigned long long)r->op_specialised_runs, (unsigned long long)r->op_generic_runs);
    }
    if (r->has_cache) {
      printf(
          "    program cache over clgpu's calls: %llu built from source (%.0f ms), %llu from "
          "the disk cache, %llu memory hits\n",
          (unsigned long long)r->cache_builds, r->cache_build_ms,
          (unsigned long long)r->cache_disk_hits, (unsigned long long)r->cache_memory_hits);
    }
  }
  printf(
      "t ratio: clgpu's median wall time over the peer's (above 1: clgpu slower; elementwise's\n"
      "target is at most 1.10 against the hand-written kernel). thr rel: clgpu's throughput\n"
      "relative to the peer's over the same bytes (its inverse): for elementwise_strided and\n"
      "elementwise_transposed, the strided view's throughput relative to the contiguous case\n"
      "of as many elements. GB/s: elementwise 3*n*size (x, z read, y written); the others\n"
      "2*count*size (the view's elements read, as many written). kernel object: the programs\n"
      "the row's elementwise kernel object (made once per type and size, shared by clgpu's\n"
      "calls and, for the strided ops, the contiguous peer's) has run. program cache: the\n"
      "context's cache over clgpu's calls and a clgpu peer's (the first call builds or loads;\n"
      "the reference kernel and the hand kernel, built outside clgpu, are not counted).\n"
      "%%ref in the table above: of the copy kernel's GB/s, for all of these.\n");
}

/* The first calls of a row's operation and type, or NULL. */
static const first_call *first_call_of(const run_report *report, const result *r) {
  for (size_t k = 0; k < report->num_first_calls; k++) {
    const first_call *fc = &report->first_calls[k];
    if (fc->op == r->op && fc->type == r->type) return fc;
  }
  return NULL;
}

/* A first call's time over the steady calls' median; NaN when missing. */
static double over_steady(const first_call *fc, double ms) {
  return fc->warm.steady.valid && fc->warm.steady.median > 0 ? ms / fc->warm.steady.median : NAN;
}

/* The first calls, cold and warm, beside the later calls. */
static void print_first_call_table(const run_report *report, int name_width) {
  if (report->num_first_calls == 0) return;
  const run_options *o = report->options;
  printf(
      "\nFirst calls (each operation's first call in a new process: with a cold program cache,\n"
      "built from source; with a warm one, loaded from the disk cache; wall time from the call\n"
      "to the end of clFinish):\n");
  int n_width = 7;
  printf("%-*s %-6s %*s %26s %28s %24s %11s %11s\n", name_width, "op", "type", n_width, "n",
         "cold ms (builds, build ms)", "warm ms (disk hits, load ms)", "steady ms (min-max)",
         "cold/steady", "warm/steady");
  for (size_t k = 0; k < report->num_first_calls; k++) {
    const first_call *fc = &report->first_calls[k];
    char cold[64], warm[64], steady[64], cold_ratio[24], warm_ratio[24];
    int digits = fc->cold.ms >= 100 ? 0 : fc->cold.ms >= 10 ? 1 : 2;
    snprintf(cold, sizeof cold, "%.*f (%llu, %.*f)", digits, fc->cold.ms,
             (unsigned long long)fc->cold.stats.builds, digits, fc->cold.stats.build_ms);
    digits = fc->warm.ms >= 100 ? 0 : fc->warm.ms >= 10 ? 1 : 2;
    snprintf(warm, sizeof warm, "%.*f (%llu, %.*f)", digits, fc->warm.ms,
             (unsigned long long)fc->warm.stats.disk_hits, digits, fc->warm.stats.disk_load_ms);
    if (fc->warm.steady.valid) {
      digits = fc->warm.steady.max >= 100 ? 1 : fc->warm.steady.max >= 10 ? 2 : 3;
      snprintf(steady, sizeof steady, "%.*f (%.*f-%.*f)", digits, fc->warm.steady.median, digits,
               fc->warm.steady.min, digits, fc->warm.steady.max);
    } else {
      snprintf(steady, sizeof steady, "n/a");
    }
    format_or_na(cold_ratio, sizeof cold_ratio, "%.0fx", over_steady(fc, fc->cold.ms));
    format_or_na(warm_ratio, sizeof warm_ratio, "%.1fx", over_steady(fc, fc->warm.ms));
    printf("%-*s %-6s %*s %26s %28s %24s %11s %11s\n", name_width, op_table[fc->op].name,
           fc->type->name, n_width, fc->shape, cold, warm, steady, cold_ratio, warm_ratio);
    /* What would make a row read otherwise: said under it. */
    if (fc->cold.stats.disk_hits || fc->warm.stats.builds) {
      printf(
          "    note: the cold call loaded %llu programs from the disk cache; the warm call "
          "built %llu from source\n",
          (unsigned long long)fc->cold.stats.disk_hits, (unsigned long long)fc->warm.stats.builds);
    }
    if (fc->warm.steady_builds || fc->warm.steady_disk_hits) {
      printf(
          "    the warm process's later calls: programs built from source %llu, loaded %llu; "
          "in the timed calls %llu (after %d untimed)\n",
          (unsigned long long)fc->warm.steady_builds, (unsigned long long)fc->warm.steady_disk_hits,
          (unsigned long long)fc->warm.timed_programs, fc->warm.steady_warmup);
    }
  }
  printf(
      "cold: the first call in a new process and a fresh context whose disk cache is an empty\n"
      "folder; builds, build ms: the programs its program cache built from source in the call\n"
      "and the time they took (the rest of the call includes creating kernels, the run, and\n"
      "writing the programs to the disk cache, which the cache's counters do not time). warm:\n"
      "the first call in a second new process, a fresh context over the same folder; disk\n"
      "hits, load ms: the programs it loaded from there. steady: the median of %d later calls\n"
      "in the warm process after %d untimed (the cold one makes them too, so that the folder\n"
      "holds what a first run leaves). cold/steady, warm/steady: the first call over that\n"
      "median. n: 64K, or the operation's smallest size in the run where that is smaller; no\n"
      "workspace (the calls allocate what they need). The two processes share an empty\n"
      "POCL_CACHE_DIR, so that POCL's own kernel cache holds only what the cold one put\n"
      "there. Every first call and the last later call checked against the host.\n%s\n",
      o->repeat, o->warmup < 1 ? 1 : o->warmup,
      o->first_call == FIRST_CALL_ALL
          ? "Every type of the run (--first-call all, or --types given)."
          : "Each operation at the first of its types in the run (--first-call all: at each).");
}

static void print_table(const run_report *report) {
  const clgpu_device_info *d = report->device;
  const run_options *o = report->options;
  printf("clgpu %s on %s / %s (%s, %u compute units)\n", clgpu_version(), d->platform_name, d->name,
         bench_device_type_name(d->type), d->compute_units);
  printf("algorithm %s; %d timed calls after %d warm-up calls", clgpu_algorithm_name(o->algorithm),
         o->repeat, o->warmup);
  int sorts = 0;
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    sorts |= op_table[r->op].sort;
    if (r->repeat != o->repeat || r->warmup != o->warmup) {
      printf(" (sorts of %zuM elements or more: %d after %d)", SORT_LARGE >> 20, r->repeat,
             r->warmup);
      break;
    }
  }
  printf("; median (min-max) of the wall time from call to clFinish\n");
  printf("peers: CPU baseline %s; Boost.Compute %s%s\n",
         o->no_cpu ? "skipped (--no-cpu)" : "on the host", report->boost_built ? "" : "not built",
         !report->boost_built ? " (no boost/compute.hpp, or -Dboost_compute=disabled)"
         : o->no_boost        ? "skipped (--no-boost)"
                              : report->boost_version);
  int name_width = 12, n_width = 5;
  for (size_t k = 0; k < report->num_rows; k++) {
    int name = (int)strlen(op_table[report->rows[k].op].name);
    int shape = (int)strlen(report->rows[k].shape);
    if (name > name_width) name_width = name;
    if (shape > n_width) n_width = shape;
  }
  printf("\n%-*s %-6s %*s %-13s %24s %8s %7s %5s %9s | %7s %6s | %7s %6s\n", name_width, "op",
         "type", n_width, "n", "algo", "wall ms: median (min-max)", "Melem/s", "GB/s", "%ref",
         "event ms", "CPU GB/s", "x CPU", "Boost", "x Boost");
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    row_figures f = figures_of(r);
    char wall[64], share[16], event[24], cpu[16], vs_cpu[16], boost[16], vs_boost[16];
    int digits = r->wall.max >= 100 ? 1 : r->wall.max >= 10 ? 2 : 3;
    snprintf(wall, sizeof wall, "%.*f (%.*f-%.*f)", digits, r->wall.median, digits, r->wall.min,
             digits, r->wall.max);
    if (op_table[r->op].reference < 0) {
      snprintf(share, sizeof share, "ref");
    } else {
      format_or_na(share, sizeof share, "%.0f%%", 100 * f.share);
    }
    format_or_na(event, sizeof event, "%.3f", r->event.valid ? r->event.median : NAN);
    format_or_na(cpu, sizeof cpu, "%.2f", f.cpu_gbps);
    format_or_na(vs_cpu, sizeof vs_cpu, "%.2fx", f.vs_cpu);
    format_or_na(boost, sizeof boost, "%.2f", f.boost_gbps);
    format_or_na(vs_boost, sizeof vs_boost, "%.2fx", f.vs_boost);
    if (r->boost_note[0] && strncmp(r->boost_note, "wrong", 5) == 0) {
      snprintf(boost, sizeof boost, "WRONG");
    } else if (r->boost_note[0] && strncmp(r->boost_note, "failed", 6) == 0) {
      snprintf(boost, sizeof boost, "FAILED");
    }
    printf("%-*s %-6s %*s %-13s %24s %8.0f %7.2f %5s %9s | %8s %6s | %7s %6s\n", name_width,
           op_table[r->op].name, r->type->name, n_width, r->shape, r->algorithm, wall, f.melems,
           f.wall_gbps, share, event, cpu, vs_cpu, boost, vs_boost);
  }
  printf(
      "\nGB/s: the bytes an operation must move over the median wall time (reduce, count_if,\n"
      "read: n*size read; findall: n*size read + 4 bytes per index written; scan, copy,\n"
      "copy_strided, copy_kernel: n*size read + n*size written).\n"
      "%%ref: share of the read kernel's GB/s (reduce, count_if, findall) or the copy\n"
      "kernel's (scan, copy, copy_strided) at the same type and size, the kernel timed right\n"
      "before each call of the operation (medians of both).\n"
      "event ms: the profiling event the call returns, which covers only its last command.\n"
      "CPU: a plain C loop over the same host data (reduce, count_if, read: up to %d\n"
      "threads, one per 64K elements; copy_kernel: memcpy; the others one thread).\n"
      "x CPU, x Boost: clgpu's GB/s over the peer's (above 1: clgpu is faster).\n"
      "Boost.Compute's peers: reduce, count_if, inclusive_scan, copy_if (writes the\n"
      "selected values, not indices; same byte count), copy, reverse_copy; n/a: none.\n",
      cpu_threads());
  int sort_peers = !o->no_cpu;
  for (size_t k = 0; k < report->num_rows; k++) sort_peers |= report->rows[k].boost.valid;
  if (sorts) {
    printf(
        "Sorts (radix_sort, sort_by_key, merge_sort, argsort): each call sorts a fresh copy of\n"
        "the data, copied on the device before the call and not timed, with a workspace made\n"
        "once per type and size. Melem/s: keys sorted per second. GB/s counts the keys (and\n"
        "uint32 values) read once and written once, n*(key + value bytes)*2 (argsort: keys\n"
        "read, the uint32 permutation written), whatever the passes really move. %%ref: of\n"
        "the copy kernel. event ms: the device's clock from a marker enqueued right before\n"
        "the call (the refill done) to the end of the sort's event: all its commands and the\n"
        "gaps between them. CPU: an LSD radix sort in C, one thread, 11-bit digits, a digit\n"
        "that every key shares skipped (sort_by_key and argsort: carrying uint32 values).\n"
        "Boost.Compute: sort, sort with the comparator " SORT_COMPARE
        " (merge_sort), sort_by_key;\n"
        "argsort: copy + iota + sort_by_key, all timed; checked without asking stability.\n"
        "Every sort is checked once on the host after its timed calls: in order, and the\n"
        "keys and values of a stable sort.\n");
  }
  if (sorts && sort_peers) {
    printf("\n%-12s %-6s %5s %22s %8s %22s %8s  %s\n", "sort", "type", "n",
           "LSD radix ms (min-max)", "x radix", "qsort ms (calls)", "x qsort",
           "Boost.Compute runs");
    for (size_t k = 0; k < report->num_rows; k++) {
      const result *r = &report->rows[k];
      if (!op_table[r->op].sort) continue;
      row_figures f = figures_of(r);
      char n_label[32], radix[64], vs_radix[16], quick[64], vs_quick[16];
      if (r->cpu.valid) {
        snprintf(radix, sizeof radix, "%.1f (%.1f-%.1f)", r->cpu.median, r->cpu.min, r->cpu.max);
      } else {
        snprintf(radix, sizeof radix, "n/a");
      }
      if (r->qsort.valid) {
        snprintf(quick, sizeof quick, "%.1f (%d)", r->qsort.median, r->qsort_calls);
      } else {
        snprintf(quick, sizeof quick, "n/a");
      }
      format_or_na(vs_radix, sizeof vs_radix, "%.2fx", f.vs_cpu);
      format_or_na(vs_quick, sizeof vs_quick, "%.2fx", f.vs_qsort);
      printf("%-12s %-6s %5s %22s %8s %22s %8s  %s\n", op_table[r->op].name, r->type->name,
             size_label(r->n, n_label, sizeof n_label), radix, vs_radix, quick, vs_quick,
             r->boost.valid ? r->boost_note : "-");
    }
  }
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    if (strncmp(r->boost_note, "wrong", 5) == 0 || strncmp(r->boost_note, "failed", 6) == 0) {
      printf("Boost.Compute %s %s: %s\n", op_table[r->op].name, r->type->name, r->boost_note);
    }
  }
  print_peer_table(report, name_width, n_width);
  print_first_call_table(report, name_width);
}

/* The row's CPU baseline, or why it has none. */
static const char *cpu_label_of(const run_report *report, const result *r) {
  return report->options->no_cpu ? "--no-cpu" : op_table[r->op].cpu_label;
}

static void print_csv(const run_report *report) {
  const clgpu_device_info *d = report->device;
  printf(
      "library_version,platform,device,device_type,compute_units,op,type,n,bytes,selected,"
      "algorithm,repeat,warmup,wall_ms_median,wall_ms_min,wall_ms_max,melem_per_s,gb_per_s,"
      "event_ms_median,event_ms_min,event_ms_max,event_gb_per_s,reference_op,reference_ms_median,"
      "reference_gb_per_s,"
      "share_of_reference,cpu_ms_median,cpu_ms_min,cpu_ms_max,cpu_gb_per_s,clgpu_over_cpu,"
      "boost_version,boost_ms_median,boost_ms_min,boost_ms_max,boost_gb_per_s,clgpu_over_boost,"
      "boost_note,event_covers,cpu_baseline,qsort_calls,qsort_ms_median,qsort_ms_min,"
      "qsort_ms_max,qsort_gb_per_s,clgpu_over_qsort,elements,shape,layout,peer,peer_launch,"
      "peer_ms_median,peer_ms_min,peer_ms_max,peer_event_ms_median,peer_gb_per_s,"
      "time_ratio_over_peer,throughput_relative_to_peer,kernel_programs,kernel_specialisations,"
      "kernel_variants_held,kernel_contiguous_runs,kernel_specialised_runs,kernel_generic_runs,"
      "op_contiguous_runs,op_specialised_runs,op_generic_runs,cache_builds,cache_build_ms,"
      "cache_disk_hits,cache_memory_hits,first_call_n,first_call_shape,first_call_cold_ms,"
      "first_call_cold_builds,first_call_cold_build_ms,first_call_warm_ms,"
      "first_call_warm_disk_hits,first_call_warm_load_ms,first_call_warm_builds,"
      "first_call_steady_ms_median,first_call_steady_calls,first_call_cold_over_steady,"
      "first_call_warm_over_steady\n");
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    row_figures f = figures_of(r);
    bench_csv_string(stdout, clgpu_version());
    putchar(',');
    bench_csv_string(stdout, d->platform_name);
    putchar(',');
    bench_csv_string(stdout, d->name);
    printf(",%s,%u,%s,%s,%zu,%.0f,%llu,%s,%d,%d,", bench_device_type_name(d->type),
           d->compute_units, op_table[r->op].name, r->type->name, r->n, r->bytes,
           (unsigned long long)r->selected, r->algorithm, r->repeat, r->warmup);
    const double numbers1[] = {r->wall.median,
                               r->wall.min,
                               r->wall.max,
                               f.melems,
                               f.wall_gbps,
                               r->event.valid ? r->event.median : NAN,
                               r->event.valid ? r->event.min : NAN,
                               r->event.valid ? r->event.max : NAN,
                               f.event_gbps};
    for (size_t i = 0; i < sizeof numbers1 / sizeof numbers1[0]; i++) {
      bench_csv_number(stdout, numbers1[i]);
      putchar(',');
    }
    printf("%s,", op_table[r->op].reference >= 0 ? op_table[op_table[r->op].reference].name : "");
    const double numbers2[] = {r->reference.valid ? r->reference.median : NAN,
                               r->reference_gbps,
                               f.share,
                               r->cpu.valid ? r->cpu.median : NAN,
                               r->cpu.valid ? r->cpu.min : NAN,
                               r->cpu.valid ? r->cpu.max : NAN,
                               f.cpu_gbps,
                               f.vs_cpu};
    for (size_t i = 0; i < sizeof numbers2 / sizeof numbers2[0]; i++) {
      bench_csv_number(stdout, numbers2[i]);
      putchar(',');
    }
    printf("%s,", report->boost_built ? report->boost_version : "");
    const double numbers3[] = {r->boost.valid ? r->boost.median : NAN,
                               r->boost.valid ? r->boost.min : NAN,
                               r->boost.valid ? r->boost.max : NAN, f.boost_gbps, f.vs_boost};
    for (size_t i = 0; i < sizeof numbers3 / sizeof numbers3[0]; i++) {
      bench_csv_number(stdout, numbers3[i]);
      putchar(',');
    }
    bench_csv_string(stdout, r->boost_note);
    printf(",%s,", event_covers(r));
    bench_csv_string(stdout, cpu_label_of(report, r));
    printf(",%d", r->qsort_calls);
    const double numbers4[] = {r->qsort.valid ? r->qsort.median : NAN,
                               r->qsort.valid ? r->qsort.min : NAN,
                               r->qsort.valid ? r->qsort.max : NAN, f.qsort_gbps, f.vs_qsort};
    for (size_t i = 0; i < sizeof numbers4 / sizeof numbers4[0]; i++) {
      putchar(',');
      bench_csv_number(stdout, numbers4[i]);
    }
    printf(",%zu,", r->elements);
    bench_csv_string(stdout, r->shape);
    putchar(',');
    bench_csv_string(stdout, r->layout);
    putchar(',');
    bench_csv_string(stdout, op_table[r->op].peer ? op_table[r->op].peer : "");
    putchar(',');
    bench_csv_string(stdout, r->peer_launch);
    const double numbers5[] = {r->peer_wall.valid ? r->peer_wall.median : NAN,
                               r->peer_wall.valid ? r->peer_wall.min : NAN,
                               r->peer_wall.valid ? r->peer_wall.max : NAN,
                               r->peer_event.valid ? r->peer_event.median : NAN,
                               f.peer_gbps,
                               f.time_ratio,
                               f.vs_peer};
    for (size_t i = 0; i < sizeof numbers5 / sizeof numbers5[0]; i++) {
      putchar(',');
      bench_csv_number(stdout, numbers5[i]);
    }
    if (r->has_elementwise) {
      const clgpu_elementwise_stats *st = &r->kernel_stats;
      printf(",%llu,%llu,%u,%llu,%llu,%llu,%llu,%llu,%llu", (unsigned long long)kernel_programs(st),
             (unsigned long long)st->specialisations, st->variants_held,
             (unsigned long long)st->contiguous_runs, (unsigned long long)st->specialised_runs,
             (unsigned long long)st->generic_runs, (unsigned long long)r->op_contiguous_runs,
             (unsigned long long)r->op_specialised_runs, (unsigned long long)r->op_generic_runs);
    } else {
      printf(",,,,,,,,,");
    }
    if (r->has_cache) {
      printf(",%llu,%.6g,%llu,%llu", (unsigned long long)r->cache_builds, r->cache_build_ms,
             (unsigned long long)r->cache_disk_hits, (unsigned long long)r->cache_memory_hits);
    } else {
      printf(",,,,");
    }
    const first_call *fc = first_call_of(report, r);
    if (fc) {
      printf(",%zu,", fc->n);
      bench_csv_string(stdout, fc->shape);
      printf(",%.6g,%llu,%.6g,%.6g,%llu,%.6g,%llu,", fc->cold.ms,
             (unsigned long long)fc->cold.stats.builds, fc->cold.stats.build_ms, fc->warm.ms,
             (unsigned long long)fc->warm.stats.disk_hits, fc->warm.stats.disk_load_ms,
             (unsigned long long)fc->warm.stats.builds);
      bench_csv_number(stdout, fc->warm.steady.valid ? fc->warm.steady.median : NAN);
      printf(",%d,", fc->warm.steady_calls);
      bench_csv_number(stdout, over_steady(fc, fc->cold.ms));
      putchar(',');
      bench_csv_number(stdout, over_steady(fc, fc->warm.ms));
    } else {
      printf(",,,,,,,,,,,,,");
    }
    putchar('\n');
  }
}

void bench_json_timing(FILE *out, const char *name, const bench_timing *t) {
  fprintf(out, "\"%s\": ", name);
  if (!t->valid) {
    fputs("null", out);
    return;
  }
  fputs("{\"median\": ", out);
  bench_json_number(out, t->median);
  fputs(", \"min\": ", out);
  bench_json_number(out, t->min);
  fputs(", \"max\": ", out);
  bench_json_number(out, t->max);
  fputc('}', out);
}

void bench_json_device(FILE *out, const clgpu_device_info *d) {
  fputs("{\"platform\": ", out);
  bench_json_string(out, d->platform_name);
  fputs(", \"platform_version\": ", out);
  bench_json_string(out, d->platform_version);
  fputs(", \"name\": ", out);
  bench_json_string(out, d->name);
  fputs(", \"vendor\": ", out);
  bench_json_string(out, d->vendor);
  fputs(", \"version\": ", out);
  bench_json_string(out, d->device_version);
  fputs(", \"driver\": ", out);
  bench_json_string(out, d->driver_version);
  fprintf(out,
          ", \"type\": \"%s\", \"compute_units\": %u, \"max_clock_mhz\": %u, "
          "\"global_mem_bytes\": %llu, \"max_alloc_bytes\": %llu, \"timer_resolution_ns\": %zu}",
          bench_device_type_name(d->type), d->compute_units, d->max_clock_mhz,
          (unsigned long long)d->global_mem_size, (unsigned long long)d->max_mem_alloc_size,
          d->profiling_timer_resolution_ns);
}

static void print_json(const run_report *report) {
  const clgpu_device_info *d = report->device;
  const run_options *o = report->options;
  FILE *out = stdout;
  fputs("{\n  \"tool\": \"clgpu-bench run\",\n  \"library_version\": ", out);
  bench_json_string(out, clgpu_version());
  fputs(",\n  \"device\": ", out);
  bench_json_device(out, d);
  fputs(",\n", out);
  fprintf(out,
          "  \"algorithm\": \"%s\",\n  \"repeat\": %d,\n  \"warmup\": %d,\n"
          "  \"cpu_threads\": %d,\n  \"boost_compute\": ",
          clgpu_algorithm_name(o->algorithm), o->repeat, o->warmup, cpu_threads());
  if (report->boost_built) {
    bench_json_string(out, report->boost_version);
  } else {
    fputs("null", out);
  }
  fputs(",\n  \"units\": {\"time\": \"ms\", \"throughput\": \"GB/s (1e9 bytes) and Melem/s\"},\n",
        out);
  fprintf(out,
          "  \"first_calls\": {\"selection\": \"%s\", \"max_n\": %zu, \"steady_calls\": %d, "
          "\"steady_warmup\": %d,\n    \"processes\": \"cold, then warm: a new process each, "
          "sharing an empty disk-cache folder and an empty POCL_CACHE_DIR\"},\n",
          o->first_call == FIRST_CALL_OFF   ? "off"
          : o->first_call == FIRST_CALL_ALL ? "all"
                                            : "first",
          FIRST_CALL_N, o->repeat, o->warmup < 1 ? 1 : o->warmup);
  fputs("  \"results\": [", out);
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    row_figures f = figures_of(r);
    fprintf(out, "%s\n    {\"op\": \"%s\", \"type\": \"%s\", \"n\": %zu, \"bytes\": %.0f, ",
            k ? "," : "", op_table[r->op].name, r->type->name, r->n, r->bytes);
    fprintf(out, "\"selected\": %llu, \"algorithm\": ", (unsigned long long)r->selected);
    bench_json_string(out, r->algorithm);
    fprintf(out, ", \"repeat\": %d, \"warmup\": %d, \"event_covers\": \"%s\",\n     ", r->repeat,
            r->warmup, event_covers(r));
    bench_json_timing(out, "wall_ms", &r->wall);
    fputs(", \"melem_per_s\": ", out);
    bench_json_number(out, f.melems);
    fputs(", \"gb_per_s\": ", out);
    bench_json_number(out, f.wall_gbps);
    fputs(",\n     ", out);
    bench_json_timing(out, "event_ms", &r->event);
    fputs(", \"event_gb_per_s\": ", out);
    bench_json_number(out, f.event_gbps);
    fputs(",\n     \"reference_op\": ", out);
    if (op_table[r->op].reference >= 0) {
      bench_json_string(out, op_table[op_table[r->op].reference].name);
    } else {
      fputs("null", out);
    }
    fputs(", ", out);
    bench_json_timing(out, "reference_ms", &r->reference);
    fputs(", \"reference_gb_per_s\": ", out);
    bench_json_number(out, r->reference_gbps);
    fputs(", \"share_of_reference\": ", out);
    bench_json_number(out, f.share);
    fputs(",\n     \"cpu\": {\"baseline\": ", out);
    bench_json_string(out, cpu_label_of(report, r));
    fputs(", ", out);
    bench_json_timing(out, "ms", &r->cpu);
    fputs(", \"gb_per_s\": ", out);
    bench_json_number(out, f.cpu_gbps);
    fputs(", \"clgpu_over_cpu\": ", out);
    bench_json_number(out, f.vs_cpu);
    fputs("},\n     \"qsort\": {", out);
    bench_json_timing(out, "ms", &r->qsort);
    fprintf(out, ", \"calls\": %d, \"gb_per_s\": ", r->qsort_calls);
    bench_json_number(out, f.qsort_gbps);
    fputs(", \"clgpu_over_qsort\": ", out);
    bench_json_number(out, f.vs_qsort);
    fputs("},\n     \"boost\": {", out);
    bench_json_timing(out, "ms", &r->boost);
    fputs(", \"gb_per_s\": ", out);
    bench_json_number(out, f.boost_gbps);
    fputs(", \"clgpu_over_boost\": ", out);
    bench_json_number(out, f.vs_boost);
    fputs(", \"note\": ", out);
    bench_json_string(out, r->boost_note);
    fprintf(out, "},\n     \"elements\": %zu, \"shape\": ", r->elements);
    bench_json_string(out, r->shape);
    fputs(", \"peer\": ", out);
    if (r->has_peer) {
      fputs("{\"name\": ", out);
      bench_json_string(out, op_table[r->op].peer);
      fputs(", \"launch\": ", out);
      bench_json_string(out, r->peer_launch);
      fputs(", \"layout\": ", out);
      bench_json_string(out, r->layout);
      fputs(", ", out);
      bench_json_timing(out, "wall_ms", &r->peer_wall);
      fputs(", ", out);
      bench_json_timing(out, "event_ms", &r->peer_event);
      fputs(", \"gb_per_s\": ", out);
      bench_json_number(out, f.peer_gbps);
      fputs(", \"time_ratio\": ", out);
      bench_json_number(out, f.time_ratio);
      fputs(", \"throughput_relative\": ", out);
      bench_json_number(out, f.vs_peer);
      fputc('}', out);
    } else {
      fputs("null", out);
    }
    fputs(",\n     \"elementwise_kernel\": ", out);
    if (r->has_elementwise) {
      const clgpu_elementwise_stats *st = &r->kernel_stats;
      fprintf(out,
              "{\"programs\": %llu, \"specialisations\": %llu, \"variants_held\": %u, "
              "\"evictions\": %llu, "
              "\"contiguous_runs\": %llu, \"specialised_runs\": %llu, \"generic_runs\": %llu, "
              "\"staged_inputs\": %llu, \"op_runs\": {\"contiguous\": %llu, \"specialised\": "
              "%llu, \"generic\": %llu}}",
              (unsigned long long)kernel_programs(st), (unsigned long long)st->specialisations,
              st->variants_held, (unsigned long long)st->evictions,
              (unsigned long long)st->contiguous_runs, (unsigned long long)st->specialised_runs,
              (unsigned long long)st->generic_runs, (unsigned long long)st->staged_inputs,
              (unsigned long long)r->op_contiguous_runs, (unsigned long long)r->op_specialised_runs,
              (unsigned long long)r->op_generic_runs);
    } else {
      fputs("null", out);
    }
    fputs(", \"program_cache\": ", out);
    if (r->has_cache) {
      fprintf(out,
              "{\"builds\": %llu, \"build_ms\": %.6g, \"disk_hits\": %llu, "
              "\"memory_hits\": %llu}",
              (unsigned long long)r->cache_builds, r->cache_build_ms,
              (unsigned long long)r->cache_disk_hits, (unsigned long long)r->cache_memory_hits);
    } else {
      fputs("null", out);
    }
    fputs(",\n     \"first_call\": ", out);
    const first_call *fc = first_call_of(report, r);
    if (fc) {
      fprintf(out, "{\"n\": %zu, \"shape\": ", fc->n);
      bench_json_string(out, fc->shape);
      fputs(", \"cold_ms\": ", out);
      bench_json_number(out, fc->cold.ms);
      fprintf(out, ", \"cold_builds\": %llu, \"cold_build_ms\": ",
              (unsigned long long)fc->cold.stats.builds);
      bench_json_number(out, fc->cold.stats.build_ms);
      fprintf(out, ", \"cold_disk_hits\": %llu, \"cold_disk_writes\": %llu,\n      \"warm_ms\": ",
              (unsigned long long)fc->cold.stats.disk_hits,
              (unsigned long long)fc->cold.stats.disk_writes);
      bench_json_number(out, fc->warm.ms);
      fprintf(out, ", \"warm_disk_hits\": %llu, \"warm_load_ms\": ",
              (unsigned long long)fc->warm.stats.disk_hits);
      bench_json_number(out, fc->warm.stats.disk_load_ms);
      fprintf(out, ", \"warm_builds\": %llu,\n      ", (unsigned long long)fc->warm.stats.builds);
      bench_json_timing(out, "steady_ms", &fc->warm.steady);
      fprintf(out,
              ", \"steady_calls\": %d, \"steady_warmup\": %d, \"steady_builds\": %llu, "
              "\"steady_disk_hits\": %llu, \"steady_timed_programs\": %llu, "
              "\"cold_over_steady\": ",
              fc->warm.steady_calls, fc->warm.steady_warmup,
              (unsigned long long)fc->warm.steady_builds,
              (unsigned long long)fc->warm.steady_disk_hits,
              (unsigned long long)fc->warm.timed_programs);
      bench_json_number(out, over_steady(fc, fc->cold.ms));
      fputs(", \"warm_over_steady\": ", out);
      bench_json_number(out, over_steady(fc, fc->warm.ms));
      fputc('}', out);
    } else {
      fputs("null", out);
    }
    fputc('}', out);
  }
  fputs("\n  ]\n}\n", out);
}

static void print_report(const run_report *report) {
  switch (report->options->format) {
    case FORMAT_CSV:
      print_csv(report);
      break;
    case FORMAT_JSON:
      print_json(report);
      break;
    default:
      print_table(report);
      break;
  }
  fflush(stdout);
}

/* --plot: one series per (operation, type) in the rows' order, GB/s over n;
 * colour by operation, line and marker style by type. 0, or 1 after a
 * failure (printed). */
static int write_plot(const run_report *report, const char *path) {
  size_t rows = report->num_rows ? report->num_rows : 1;
  bench_plot_series *series = calloc(rows, sizeof *series);
  double *xs = malloc(sizeof(double) * rows);
  double *ys = malloc(sizeof(double) * rows);
  char(*labels)[64] = malloc(sizeof *labels * rows);
  if (!series || !xs || !ys || !labels) {
    free(series);
    free(xs);
    free(ys);
    free(labels);
    fprintf(stderr, "clgpu-bench run: out of host memory for the plot\n");
    return 1;
  }
  /* Each series' points are consecutive in xs and ys, in the rows' order. */
  size_t num_series = 0, used = 0;
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    int seen = 0;
    for (size_t j = 0; j < k && !seen; j++) {
      seen = report->rows[j].op == r->op && report->rows[j].type == r->type;
    }
    if (seen) continue;
    bench_plot_series *line = &series[num_series];
    snprintf(labels[num_series], sizeof labels[num_series], "%s %s", op_table[r->op].name,
             r->type->name);
    line->label = labels[num_series];
    line->x = xs + used;
    line->y = ys + used;
    line->color = r->op;
    line->style = (int)(r->type - host_types);
    for (size_t j = k; j < report->num_rows; j++) {
      const result *p = &report->rows[j];
      if (p->op != r->op || p->type != r->type) continue;
      xs[used] = (double)p->n;
      ys[used] = figures_of(p).wall_gbps;
      used++;
      line->count++;
    }
    num_series++;
  }
  const clgpu_device_info *d = report->device;
  char title[640];
  snprintf(title, sizeof title, "clgpu %s on %s / %s (%s, %u compute units)", clgpu_version(),
           d->platform_name, d->name, bench_device_type_name(d->type), d->compute_units);
  bench_plot plot = {0};
  plot.title = title;
  plot.subtitle = "clgpu-bench run: the table's GB/s, bytes moved over the median wall time";
  plot.x_label = "n (elements)";
  plot.y_label = "GB/s";
  plot.x_binary = 1;
  plot.series = series;
  plot.num_series = num_series;
  int failed = bench_plot_write_svg(path, &plot);
  if (failed) {
    fprintf(stderr, "clgpu-bench run: cannot write the plot to '%s': %s\n", path, strerror(errno));
  }
  free(series);
  free(xs);
  free(ys);
  free(labels);
  return failed ? 1 : 0;
}

/* ---- the driver ---- */

static void release_case(bench_case *c) {
  cl_mem *buffers[] = {&c->d_in, &c->d_out, &c->d_indices, &c->d_result, &c->d_count};
  for (size_t k = 0; k < sizeof buffers / sizeof buffers[0]; k++) {
    if (*buffers[k]) clReleaseMemObject(*buffers[k]);
    *buffers[k] = NULL;
  }
  free(c->host_in);
  free(c->host_out);
  free(c->cpu_out);
  free(c->cpu_index);
  c->host_in = c->host_out = c->cpu_out = NULL;
  c->cpu_index = NULL;
  release_sorts(c);
  release_peer_ops(c);
}

/* Make the buffers and views of a case and upload its data. */
static int prepare_case(bench_case *c) {
  const host_type *t = c->type;
  size_t bytes = c->n * t->size;
  c->host_in = malloc(bytes);
  c->host_out = malloc(bytes > c->n * sizeof(uint32_t) ? bytes : c->n * sizeof(uint32_t));
  c->cpu_out = malloc(bytes);
  c->cpu_index = malloc(c->n * sizeof(uint32_t));
  if (!c->host_in || !c->host_out || !c->cpu_out || !c->cpu_index) {
    bench_progress_clear();
    fprintf(stderr, "clgpu-bench run: out of host memory for %zu elements of %s\n", c->n, t->name);
    return 1;
  }
  t->generate(c->host_in, c->n, 0x5eed0000ull + (uint64_t)t->type);
  c->selected = t->count(c->host_in, 0, c->n);

  cl_context cl = clgpu_context_cl_context(c->context);
  cl_int err = CL_SUCCESS;
  struct {
    cl_mem *buffer;
    size_t bytes;
    cl_mem_flags flags;
  } wanted[] = {
      {&c->d_in, bytes, CL_MEM_READ_ONLY},
      {&c->d_out, bytes, CL_MEM_READ_WRITE},
      {&c->d_indices, c->n * sizeof(uint32_t), CL_MEM_READ_WRITE},
      {&c->d_result, 8, CL_MEM_READ_WRITE},
      {&c->d_count, 8, CL_MEM_READ_WRITE},
  };
  for (size_t k = 0; k < sizeof wanted / sizeof wanted[0] && err == CL_SUCCESS; k++) {
    *wanted[k].buffer = clCreateBuffer(cl, wanted[k].flags, wanted[k].bytes, NULL, &err);
  }
  if (err == CL_SUCCESS) {
    err = clEnqueueWriteBuffer(c->queue, c->d_in, CL_TRUE, 0, bytes, c->host_in, 0, NULL, NULL);
  }
  if (err != CL_SUCCESS)
    return op_failure(c, OP_READ, "making and filling buffers", (clgpu_status)err);

  clgpu_status status = clgpu_array_1d(c->d_in, 0, t->type, c->n, &c->v_in);
  if (status == CLGPU_SUCCESS) status = clgpu_array_1d(c->d_out, 0, t->type, c->n, &c->v_out);
  if (status == CLGPU_SUCCESS) {
    status = clgpu_array_1d(c->d_indices, 0, CLGPU_UINT32, c->n, &c->v_indices);
  }
  if (status == CLGPU_SUCCESS) status = clgpu_array_1d(c->d_result, 0, t->type, 1, &c->v_result);
  if (status == CLGPU_SUCCESS) {
    status = clgpu_array_1d(c->d_result, 0, CLGPU_UINT64, 1, &c->v_count64);
  }
  if (status == CLGPU_SUCCESS) status = clgpu_array_1d(c->d_count, 0, CLGPU_UINT64, 1, &c->v_count);
  if (status == CLGPU_SUCCESS) {
    clgpu_slice reverse = {CLGPU_SLICE_BEGIN, CLGPU_SLICE_END, -1};
    status = clgpu_array_slice(&c->v_in, &reverse, &c->v_reversed);
  }
  if (status != CLGPU_SUCCESS) return op_failure(c, OP_READ, "making array views", status);
  return 0;
}

/* ---- first calls: a cold and a warm program cache, in child processes ---- */

/* The internal subcommand that `run` starts twice per (operation, type). */
#define FIRST_CALL_CHILD "run-first-call"

/* The tool itself, for the child processes (main sets it). */
static const char *bench_self;

/* What a context's program cache did from `before` to `after`. */
static clgpu_cache_stats cache_delta(const clgpu_cache_stats *before,
                                     const clgpu_cache_stats *after) {
  clgpu_cache_stats d;
  d.memory_hits = after->memory_hits - before->memory_hits;
  d.disk_hits = after->disk_hits - before->disk_hits;
  d.builds = after->builds - before->builds;
  d.build_ms = after->build_ms - before->build_ms;
  d.disk_load_ms = after->disk_load_ms - before->disk_load_ms;
  d.disk_writes = after->disk_writes - before->disk_writes;
  d.disk_rejects = after->disk_rejects - before->disk_rejects;
  d.kernels_created = after->kernels_created - before->kernels_created;
  return d;
}

/* One call of `op`, timed from the call to the end of clFinish (a sort's
 * input refilled first, not timed). With `create`, the elementwise ops'
 * kernel object is made inside the time: a user's first call makes it.
 * No workspace: the call allocates what it needs. 0, or 1 after a failure
 * (printed). */
static int first_call_once(bench_case *c, int op, int create, double *ms) {
  const run_options *o = c->options;
  clgpu_call_options call = {o->algorithm, NULL};
  clgpu_sort_options sort_call = {
      op == OP_MERGE_SORT ? CLGPU_ALGORITHM_MERGE : CLGPU_ALGORITHM_RADIX, o->algorithm, NULL};
  clgpu_status status = CLGPU_SUCCESS;
  if (op_table[op].sort) {
    cl_event marker = NULL;
    status = refill_sort(c, op, &marker);
    if (marker) clReleaseEvent(marker);
    if (status != CLGPU_SUCCESS) return op_failure(c, op, "refilling the input", status);
  }
  double start = bench_now_ms();
  if (create) status = create_op_kernel(c, op);
  if (status == CLGPU_SUCCESS) status = enqueue_op(c, op, &call, &sort_call, NULL);
  if (status == CLGPU_SUCCESS) status = (clgpu_status)clFinish(c->queue);
  *ms = bench_now_ms() - start;
  if (status != CLGPU_SUCCESS)
    return op_failure(c, op, create ? "first call" : "later call", status);
  return 0;
}

/* The result of the last call against the host. 0, or 1 (printed). */
static int first_call_check(bench_case *c, int op, const char *which, const char *label) {
  char who[96];
  snprintf(who, sizeof who, "clgpu's %s (%s program cache)", which, label);
  check_message message = {{0}};
  clgpu_status status = CLGPU_SUCCESS;
  int verdict = check_output(c, op, 0, 0, &message, &status);
  if (verdict < 0) return op_failure(c, op, "reading the result back", status);
  if (verdict > 0) return wrong_result(c, op, who, &message);
  return 0;
}

/* In a fresh context over the disk-cache `folder`: the first call of `op`
 * (its time and what the program cache did over it), then later calls:
 * --warmup untimed (at least one) and --repeat timed (into `samples`).
 * The cold side makes them too, so that the disk cache holds what a
 * program's first run leaves there (a layout that specialises at its second
 * call, say). `label`: "cold" or "warm", for messages. 0, or 1 after a
 * failure (printed). */
static int measure_first_call_side(const run_options *o, int op, const host_type *t, size_t n,
                                   const char *folder, const char *label, first_call_side *out,
                                   double *samples) {
  clgpu_context_options options = {0};
  options.cache_dir = folder;
  options.disk_cache = CLGPU_DISK_CACHE_ON;
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(&options, &context);
  if (status != CLGPU_SUCCESS) return bench_report_failure("creating a context", status);
  bench_case c;
  memset(&c, 0, sizeof c);
  c.context = context;
  c.queue = clgpu_context_queue(context);
  c.device = clgpu_context_device_info(context);
  c.options = o;
  c.type = t;
  c.n = n;
  c.cpu_shape = (c.device->type & CL_DEVICE_TYPE_CPU) != 0;
  result scratch; /* setup_peer_views describes the views in a row */
  memset(&scratch, 0, sizeof scratch);
  int failed = prepare_case(&c);
  if (!failed && op_table[op].sort) failed = prepare_sorts(&c, op);
  if (!failed && op_table[op].peer) {
    failed = prepare_peer_ops(&c, op);
    status = failed ? CLGPU_SUCCESS : setup_peer_views(&c, op, &scratch);
    if (status != CLGPU_SUCCESS) failed = op_failure(&c, op, "setting up views", status);
  }
  clgpu_cache_stats before, after;
  memset(&before, 0, sizeof before);
  memset(&after, 0, sizeof after);
  if (!failed) {
    clgpu_context_cache_stats(context, &before);
    failed = first_call_once(&c, op, 1, &out->ms);
  }
  if (!failed) {
    clgpu_context_cache_stats(context, &after);
    out->stats = cache_delta(&before, &after);
    failed = first_call_check(&c, op, "first call", label);
  }
  if (!failed) {
    int warmup = o->warmup < 1 ? 1 : o->warmup;
    clgpu_cache_stats warmed = after, end;
    for (int k = 0; k < warmup + o->repeat && !failed; k++) {
      if (k == warmup) clgpu_context_cache_stats(context, &warmed);
      double ignored = 0;
      failed = first_call_once(&c, op, 0, k < warmup ? &ignored : &samples[k - warmup]);
    }
    if (!failed && clgpu_context_cache_stats(context, &end) == CLGPU_SUCCESS) {
      out->steady = bench_summarize(samples, o->repeat);
      out->steady_calls = o->repeat;
      out->steady_warmup = warmup;
      out->steady_builds = end.builds - after.builds;
      out->steady_disk_hits = end.disk_hits - after.disk_hits;
      out->timed_programs = (end.builds + end.disk_hits) - (warmed.builds + warmed.disk_hits);
    }
    if (!failed) failed = first_call_check(&c, op, "later calls", label);
  }
  release_case(&c);
  clgpu_context_destroy(context);
  return failed;
}

/* The child process of `run`'s first calls (an internal subcommand, left out
 * of the help): clgpu-bench run-first-call OP TYPE N REPEAT WARMUP ALGORITHM
 * FOLDER LABEL [PROGRESS], LABEL cold or warm (for messages) and PROGRESS
 * the prefix of the progress line. Prints one line of key=value figures on
 * stdout; exit status 0, 1 after a failure or a wrong result (printed on
 * stderr), 2 after a usage error. */
static int command_first_call_child(int argc, char **argv) {
  if (argc < 8 || argc > 9) {
    return usage_error("%s: internal; takes 8 or 9 arguments", FIRST_CALL_CHILD);
  }
  int op = 0;
  while (op < NUM_OPS && strcmp(argv[0], op_table[op].name) != 0) op++;
  size_t t = 0;
  while (t < NUM_HOST_TYPES && strcmp(argv[1], host_types[t].name) != 0) t++;
  run_options o;
  memset(&o, 0, sizeof o);
  size_t n = 0;
  if (op == NUM_OPS || op_table[op].reference < 0 || t == NUM_HOST_TYPES ||
      bench_parse_size(argv[2], &n) != 0 || bench_parse_count(argv[3], 1, &o.repeat) != 0 ||
      bench_parse_count(argv[4], 0, &o.warmup) != 0) {
    return usage_error("%s: internal; malformed arguments", FIRST_CALL_CHILD);
  }
  static const clgpu_algorithm algorithms[] = {CLGPU_ALGORITHM_AUTO, CLGPU_ALGORITHM_CHUNKED,
                                               CLGPU_ALGORITHM_TILED};
  size_t a = 0;
  while (a < 3 && strcmp(argv[5], clgpu_algorithm_name(algorithms[a])) != 0) a++;
  if (a == 3) return usage_error(FIRST_CALL_CHILD ": internal; unknown algorithm '%s'", argv[5]);
  o.algorithm = algorithms[a];
  const char *folder = argv[6], *label = argv[7];
  /* The progress line goes over the parent's, with its prefix. */
  const char *progress = argc == 9 ? argv[8] : "";
  bench_progress_enabled = argc == 9 && isatty(STDERR_FILENO);

  first_call_side out;
  memset(&out, 0, sizeof out);
  double *samples = malloc(sizeof(double) * (size_t)o.repeat);
  if (!samples) {
    fprintf(stderr, "clgpu-bench run: out of host memory\n");
    return 1;
  }
  bench_progress("%s %s %s: %s program cache", progress, op_table[op].name, host_types[t].name,
                 label);
  int failed = measure_first_call_side(&o, op, &host_types[t], n, folder, label, &out, samples);
  free(samples);
  bench_progress_clear();
  if (failed) return 1;
  printf(
      "ms=%.17g builds=%llu build_ms=%.17g disk_hits=%llu load_ms=%.17g disk_writes=%llu "
      "kernels=%llu steady_median=%.17g steady_min=%.17g steady_max=%.17g steady_calls=%d "
      "steady_warmup=%d steady_builds=%llu steady_disk_hits=%llu timed_programs=%llu\n",
      out.ms, (unsigned long long)out.stats.builds, out.stats.build_ms,
      (unsigned long long)out.stats.disk_hits, out.stats.disk_load_ms,
      (unsigned long long)out.stats.disk_writes, (unsigned long long)out.stats.kernels_created,
      out.steady.median, out.steady.min, out.steady.max, out.steady_calls, out.steady_warmup,
      (unsigned long long)out.steady_builds, (unsigned long long)out.steady_disk_hits,
      (unsigned long long)out.timed_programs);
  return fflush(stdout) == 0 ? 0 : 1;
}

/* Remove `path` and everything under it (a folder this run made), without
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

/* The child's line of key=value figures into *side: 0, or -1 when one is
 * missing or malformed. */
static int parse_first_call_side(char *line, first_call_side *side) {
  static const char *const keys[] = {
      "ms",           "builds",        "build_ms",      "disk_hits",        "load_ms",
      "disk_writes",  "kernels",       "steady_median", "steady_min",       "steady_max",
      "steady_calls", "steady_warmup", "steady_builds", "steady_disk_hits", "timed_programs"};
  enum { NUM_KEYS = sizeof keys / sizeof keys[0] };
  double values[NUM_KEYS];
  int seen[NUM_KEYS] = {0};
  char *save = NULL;
  for (char *item = strtok_r(line, " \n", &save); item; item = strtok_r(NULL, " \n", &save)) {
    char *equals = strchr(item, '=');
    if (!equals) return -1;
    *equals = '\0';
    for (size_t k = 0; k < NUM_KEYS; k++) {
      if (strcmp(item, keys[k]) != 0) continue;
      char *end = NULL;
      values[k] = strtod(equals + 1, &end);
      if (end == equals + 1 || *end != '\0') return -1;
      seen[k] = 1;
    }
  }
  for (size_t k = 0; k < NUM_KEYS; k++) {
    if (!seen[k]) return -1;
  }
  memset(side, 0, sizeof *side);
  side->ms = values[0];
  side->stats.builds = (uint64_t)values[1];
  side->stats.build_ms = values[2];
  side->stats.disk_hits = (uint64_t)values[3];
  side->stats.disk_load_ms = values[4];
  side->stats.disk_writes = (uint64_t)values[5];
  side->stats.kernels_created = (uint64_t)values[6];
  side->steady.median = values[7];
  side->steady.min = values[8];
  side->steady.max = values[9];
  side->steady_calls = (int)values[10];
  side->steady_warmup = (int)values[11];
  side->steady_builds = (uint64_t)values[12];
  side->steady_disk_hits = (uint64_t)values[13];
  side->timed_programs = (uint64_t)values[14];
  side->steady.valid = side->steady_calls > 0 && side->steady.median >= 0;
  return 0;
}

extern char **environ;

/* Run one child process for *fc (`label`: cold or warm) with clgpu's disk
 * cache in `clgpu_dir` and POCL_CACHE_DIR set to `pocl_dir` (the rest of the
 * environment as it is), and read its figures into *side. 0, or 1 after a
 * failure (printed). */
static int spawn_first_call(const run_options *o, const first_call *fc, const char *label,
                            first_call_side *side, const char *clgpu_dir, const char *pocl_dir,
                            const char *progress) {
  static const char pocl_variable[] = "POCL_CACHE_DIR=";
  const size_t variable_length = sizeof pocl_variable - 1;
  char n_text[32], repeat_text[24], warmup_text[24];
  snprintf(n_text, sizeof n_text, "%zu", fc->n);
  snprintf(repeat_text, sizeof repeat_text, "%d", o->repeat);
  snprintf(warmup_text, sizeof warmup_text, "%d", o->warmup);
  /* The running executable itself where /proc has it, else argv[0]. */
  const char *self = access("/proc/self/exe", X_OK) == 0 ? "/proc/self/exe" : bench_self;
  char *argv[] = {(char *)bench_self,
                  FIRST_CALL_CHILD,
                  (char *)op_table[fc->op].name,
                  (char *)fc->type->name,
                  n_text,
                  repeat_text,
                  warmup_text,
                  (char *)clgpu_algorithm_name(o->algorithm),
                  (char *)clgpu_dir,
                  (char *)label,
                  (char *)progress,
                  NULL};
  size_t count = 0;
  while (environ[count]) count++;
  char **env = malloc((count + 2) * sizeof *env);
  size_t pocl_size = variable_length + strlen(pocl_dir) + 1;
  char *pocl_env = malloc(pocl_size);
  if (!env || !pocl_env) {
    free(env);
    free(pocl_env);
    fprintf(stderr, "clgpu-bench run: out of host memory\n");
    return 1;
  }
  snprintf(pocl_env, pocl_size, "%s%s", pocl_variable, pocl_dir);
  size_t used = 0;
  for (size_t k = 0; k < count; k++) {
    if (strncmp(environ[k], pocl_variable, variable_length) != 0) env[used++] = environ[k];
  }
  env[used++] = pocl_env;
  env[used] = NULL;

  int fds[2];
  int spawned = pipe(fds) == 0 ? 0 : errno;
  pid_t pid = 0;
  if (spawned == 0) {
    posix_spawn_file_actions_t actions;
    spawned = posix_spawn_file_actions_init(&actions);
    if (spawned == 0) {
      spawned = posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
      if (spawned == 0) spawned = posix_spawn_file_actions_addclose(&actions, fds[0]);
      if (spawned == 0) spawned = posix_spawn_file_actions_addclose(&actions, fds[1]);
      if (spawned == 0) {
        spawned = strchr(self, '/') ? posix_spawn(&pid, self, &actions, NULL, argv, env)
                                    : posix_spawnp(&pid, self, &actions, NULL, argv, env);
      }
      posix_spawn_file_actions_destroy(&actions);
    }
    close(fds[1]);
    if (spawned != 0) close(fds[0]);
  }
  free(env);
  free(pocl_env);
  if (spawned != 0) {
    bench_progress_clear();
    fprintf(stderr, "clgpu-bench run: cannot start %s for the first calls: %s\n", self,
            strerror(spawned));
    return 1;
  }
  char output[4096];
  size_t length = 0;
  for (;;) {
    char chunk[512];
    ssize_t got = read(fds[0], chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    size_t room = sizeof output - 1 - length;
    size_t take = (size_t)got < room ? (size_t)got : room;
    memcpy(output + length, chunk, take);
    length += take;
  }
  output[length] = '\0';
  close(fds[0]);
  int wait_status = 0;
  while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
    bench_progress_clear();
    fprintf(stderr,
            "clgpu-bench run: the first call of %s %s with a %s program cache failed (the "
            "child process %s %d)\n",
            op_table[fc->op].name, fc->type->name, label,
            WIFEXITED(wait_status) ? "exited with status" : "was killed by signal",
            WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : WTERMSIG(wait_status));
    return 1;
  }
  if (parse_first_call_side(output, side) != 0) {
    bench_progress_clear();
    fprintf(stderr, "clgpu-bench run: the first call of %s %s: unreadable figures '%s'\n",
            op_table[fc->op].name, fc->type->name, output);
    return 1;
  }
  return 0;
}

/* The first calls of *fc, cold and then warm, each in a child process of its
 * own, in a new temporary folder (under TMPDIR, else /tmp) that holds the
 * clgpu disk cache they share and their POCL_CACHE_DIR, removed afterwards.
 * 0, or 1 after a failure (printed). */
static int measure_first_call(const run_options *o, first_call *fc, const char *progress) {
  const char *base = getenv("TMPDIR");
  if (!base || !*base) base = "/tmp";
  size_t size = strlen(base) + 64;
  char *folder = malloc(size), *clgpu_dir = malloc(size), *pocl_dir = malloc(size);
  int failed = !folder || !clgpu_dir || !pocl_dir;
  if (failed) fprintf(stderr, "clgpu-bench run: out of host memory\n");
  int made = 0;
  if (!failed) {
    snprintf(folder, size, "%s/clgpu-bench-first-call-XXXXXX", base);
    snprintf(clgpu_dir, size, "%s", folder);
    made = mkdtemp(folder) != NULL;
    if (made) {
      snprintf(clgpu_dir, size, "%s/clgpu", folder);
      snprintf(pocl_dir, size, "%s/pocl", folder);
    }
    if (!made || mkdir(clgpu_dir, 0700) != 0 || mkdir(pocl_dir, 0700) != 0) {
      bench_progress_clear();
      fprintf(stderr, "clgpu-bench run: cannot make a temporary folder in %s: %s\n", base,
              strerror(errno));
      failed = 1;
    }
  }
  if (!failed) failed = spawn_first_call(o, fc, "cold", &fc->cold, clgpu_dir, pocl_dir, progress);
  if (!failed) failed = spawn_first_call(o, fc, "warm", &fc->warm, clgpu_dir, pocl_dir, progress);
  if (made) {
    clgpu_disk_cache_clear(clgpu_dir, NULL);
    rmdir(clgpu_dir);
    bench_remove_tree(pocl_dir);
    if (rmdir(folder) != 0) {
      bench_progress_clear();
      fprintf(stderr, "clgpu-bench run: note: cannot remove %s: %s\n", folder, strerror(errno));
    }
  }
  free(folder);
  free(clgpu_dir);
  free(pocl_dir);
  return failed;
}

/* The first calls a run makes, into `out` (NUM_OPS * NUM_HOST_TYPES
 * entries), in op_table's order and then the run's types: every operation
 * but the references (read, copy_kernel), at the first of its types in the
 * run (FIRST_CALL_FIRST) or at each, at FIRST_CALL_N elements or its
 * smallest size in the run where that is smaller. Returns their number. */
static size_t plan_first_calls(const run_options *o, first_call *out) {
  size_t count = 0;
  if (o->first_call == FIRST_CALL_OFF) return 0;
  for (int op = 0; op < NUM_OPS; op++) {
    if (op_table[op].reference < 0) continue;
    for (size_t t = 0; t < o->num_types; t++) {
      size_t smallest = 0;
      for (size_t s = 0; s < o->num_sizes; s++) {
        if (op_runs(o, op, o->types[t], o->sizes[s]) && (smallest == 0 || o->sizes[s] < smallest)) {
          smallest = o->sizes[s];
        }
      }
      if (smallest == 0) continue;
      first_call *fc = &out[count++];
      memset(fc, 0, sizeof *fc);
      fc->op = op;
      fc->type = &host_types[o->types[t]];
      fc->n = smallest < FIRST_CALL_N ? smallest : FIRST_CALL_N;
      if (op_table[op].two_d) {
        size_t side = square_side(fc->n);
        snprintf(fc->shape, sizeof fc->shape, "%zux%zu", side, side);
      } else {
        size_label(fc->n, fc->shape, sizeof fc->shape);
      }
      if (o->first_call == FIRST_CALL_FIRST) break;
    }
  }
  return count;
}

int bench_run_plan(int argc, char **argv, bench_plan_entry **entries, size_t *count) {
  *entries = NULL;
  *count = 0;
  run_options options;
  int parsed = parse_run_options(argc, argv, &options);
  if (parsed != 0) return parsed;
  size_t total = 0;
  for (size_t t = 0; t < options.num_types; t++) {
    for (size_t s = 0; s < options.num_sizes; s++) {
      for (int op = 0; op < NUM_OPS; op++) {
        total += (size_t)op_runs(&options, op, options.types[t], options.sizes[s]);
      }
    }
  }
  bench_plan_entry *out = calloc(total ? total : 1, sizeof *out);
  if (!out) {
    fprintf(stderr, "clgpu-bench: out of host memory\n");
    return 1;
  }
  size_t used = 0;
  for (size_t t = 0; t < options.num_types; t++) {
    for (size_t s = 0; s < options.num_sizes; s++) {
      for (int op = 0; op < NUM_OPS; op++) {
        size_t n = options.sizes[s];
        if (!op_runs(&options, op, options.types[t], n)) continue;
        bench_plan_entry *e = &out[used++];
        e->op = op_table[op].name;
        e->type = host_types[options.types[t]].name;
        e->n = n;
        e->op_index = op;
        e->reference = op_table[op].reference < 0;
        e->sort = op_table[op].sort;
        if (op_table[op].two_d) {
          size_t side = square_side(n);
          snprintf(e->shape, sizeof e->shape, "%zux%zu", side, side);
        } else {
          size_label(n, e->shape, sizeof e->shape);
        }
      }
    }
  }
  *entries = out;
  *count = used;
  return 0;
}

static int command_run(int argc, char **argv) {
  run_options options;
  int parsed = parse_run_options(argc, argv, &options);
  if (parsed < 0) return 0;
  if (parsed > 0) return parsed;

  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(NULL, &context);
  if (status != CLGPU_SUCCESS) return bench_report_failure("creating a context", status);
  const clgpu_device_info *device = clgpu_context_device_info(context);

  /* What cannot run on this device is a usage error, found before any work. */
  for (size_t t = 0; t < options.num_types; t++) {
    const host_type *type = &host_types[options.types[t]];
    if (type->type == CLGPU_DOUBLE && !device->has_fp64) {
      clgpu_context_destroy(context);
      return run_usage_error("--types: double needs cl_khr_fp64, which %s lacks", device->name);
    }
    for (size_t s = 0; s < options.num_sizes; s++) {
      if ((cl_ulong)options.sizes[s] * type->size > device->max_mem_alloc_size) {
        char text[160];
        snprintf(text, sizeof text, "%zu elements of %s exceed the device's largest buffer",
                 options.sizes[s], type->name);
        clgpu_context_destroy(context);
        return run_usage_error("--sizes: %s", text);
      }
    }
  }

  /* Types an operation does not support are skipped, with a note. */
  for (int op = 0; op < NUM_OPS && options.types_given; op++) {
    if (!options.ops[op]) continue;
    for (size_t t = 0; t < options.num_types; t++) {
      if (!(op_table[op].supported_types & (1u << options.types[t]))) {
        fprintf(stderr, "clgpu-bench run: note: %s runs at float and uint32 only; not at %s\n",
                op_table[op].name, host_types[options.types[t]].name);
      }
    }
  }

  bench_progress_enabled = !options.quiet && isatty(STDERR_FILENO);
  size_t total = 0;
  for (size_t t = 0; t < options.num_types; t++) {
    for (size_t s = 0; s < options.num_sizes; s++) {
      for (int op = 0; op < NUM_OPS; op++) {
        total += (size_t)op_runs(&options, op, options.types[t], options.sizes[s]);
      }
    }
  }
  result *rows = calloc(total ? total : 1, sizeof *rows);
  double *samples = malloc(sizeof(double) * (size_t)options.repeat);
  double *events = malloc(sizeof(double) * (size_t)options.repeat);
  double *reference_samples = malloc(sizeof(double) * (size_t)options.repeat);
  double *peer_samples = malloc(sizeof(double) * (size_t)options.repeat);
  double *peer_events = malloc(sizeof(double) * (size_t)options.repeat);
  sample_buffers buffers = {samples, events, reference_samples, peer_samples, peer_events};
  run_report report = {&options, device, rows, 0, 0, NULL, NULL, 0};
#ifdef CLGPU_BENCH_BOOST
  report.boost_built = 1;
  report.boost_version = bench_boost_version();
#endif
  int failed = !rows || !samples || !events || !reference_samples || !peer_samples || !peer_events;
  if (failed) fprintf(stderr, "clgpu-bench run: out of host memory\n");

  bench_case c;
  memset(&c, 0, sizeof c);
  c.context = context;
  c.queue = clgpu_context_queue(context);
  c.device = device;
  c.options = &options;
  c.cpu_shape = options.shape == SHAPE_CPU ||
                (options.shape == SHAPE_AUTO && (device->type & CL_DEVICE_TYPE_CPU));
  for (size_t t = 0; t < options.num_types && !failed; t++) {
    for (size_t s = 0; s < options.num_sizes && !failed; s++) {
      c.type = &host_types[options.types[t]];
      c.n = options.sizes[s];
      int runs = 0;
      for (int op = 0; op < NUM_OPS; op++) runs |= op_runs(&options, op, options.types[t], c.n);
      if (!runs) continue;
      char n_label[32], prefix[96];
      snprintf(prefix, sizeof prefix, "clgpu-bench: [%zu/%zu] %s %s", report.num_rows + 1, total,
               c.type->name, size_label(c.n, n_label, sizeof n_label));
      bench_progress("%s: preparing data", prefix);
      failed = prepare_case(&c);
      for (int op = 0; op < NUM_OPS && !failed; op++) {
        if (!op_runs(&options, op, options.types[t], c.n)) continue;
        snprintf(prefix, sizeof prefix, "clgpu-bench: [%zu/%zu] %s %s", report.num_rows + 1, total,
                 c.type->name, size_label(c.n, n_label, sizeof n_label));
        result *row = &rows[report.num_rows];
        failed = measure_op(&c, op, row, &buffers, prefix);
        if (failed) break;
        report.num_rows++;
      }
      release_case(&c);
    }
  }
  /* Then the first calls, each in a child process of its own. */
  first_call *first_calls = NULL;
  if (!failed && options.first_call != FIRST_CALL_OFF) {
    first_calls = calloc(NUM_OPS * NUM_HOST_TYPES, sizeof *first_calls);
    if (!first_calls) {
      fprintf(stderr, "clgpu-bench run: out of host memory\n");
      failed = 1;
    }
    size_t planned = first_calls ? plan_first_calls(&options, first_calls) : 0;
    for (size_t k = 0; k < planned && !failed; k++) {
      char progress[96];
      snprintf(progress, sizeof progress, "clgpu-bench: first calls [%zu/%zu]", k + 1, planned);
      bench_progress("%s %s %s", progress, op_table[first_calls[k].op].name,
                     first_calls[k].type->name);
      failed = measure_first_call(&options, &first_calls[k], progress);
      if (!failed) report.num_first_calls++;
    }
    report.first_calls = first_calls;
  }
  bench_progress_clear();
  if (report.num_rows > 0) print_report(&report);
  /* After the table: a plot that cannot be written fails the run (status 1). */
  int plot_failed = options.plot && write_plot(&report, options.plot);
  free(rows);
  free(samples);
  free(events);
  free(reference_samples);
  free(peer_samples);
  free(peer_events);
  free(first_calls);
  clgpu_context_destroy(context);
  if (failed) fprintf(stderr, "clgpu-bench run: FAILED (see above)\n");
  return failed || plot_failed;
}

int main(int argc, char **argv) {
  bench_self = argc > 0 && argv[0] ? argv[0] : "clgpu-bench";
  if (argc < 2) return command_run(0, NULL);
  const char *command = argv[1];
  if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 ||
      strcmp(command, "help") == 0) {
    fputs(usage_text, stdout);
    return 0;
  }
  if (strcmp(command, "--version") == 0) {
    printf("clgpu-bench %s\n", clgpu_version());
    return 0;
  }
  if (strcmp(command, "selfcheck") == 0) return command_selfcheck(argc - 2, argv + 2);
  if (strcmp(command, "devices") == 0) return command_devices(argc - 2, argv + 2);
  if (strcmp(command, "first-call") == 0) return command_first_call(argc - 2, argv + 2);
  if (strcmp(command, "run") == 0) return command_run(argc - 2, argv + 2);
  if (strcmp(command, "kernel") == 0) return bench_command_kernel(argc - 2, argv + 2);
  if (strcmp(command, "compare") == 0) return bench_command_compare(bench_self, argc - 2, argv + 2);
  if (strcmp(command, FIRST_CALL_CHILD) == 0) return command_first_call_child(argc - 2, argv + 2);
  /* Options without a subcommand are run's: `clgpu-bench --plot x.svg`. */
  if (command[0] == '-') return command_run(argc - 1, argv + 1);
  return usage_error("unknown subcommand '%s'", command);
}
