/* clgpu-bench: the library's command-line tool.
 *
 * Subcommands so far (with none, or with run's options only, it does `run`):
 *   selfcheck           list the devices, run one kernel on the default device,
 *                       check its result against the host, and time the first
 *                       call with a cold and a warm disk cache
 *   devices             list platforms and devices and the default choice
 *                       (--format json: every device's facts)
 *   first-call          time the first call of one kernel in this process
 *                       (run it twice over one cache folder to compare cold
 *                       and warm disk caches across processes)
 *   run                 time the library's operations (reduce, count_if, scan,
 *                       findall, copy, strided copy, radix sort, sort by key,
 *                       merge sort through a comparator, argsort,
 *                       lower_bound beside a C binary search, histogram
 *                       beside a C loop; with --ops, reduce_by_key and
 *                       scan_by_key beside a C loop, segmented_sort beside
 *                       an insertion sort and radix_sort, partition beside
 *                       a C loop and findall) per
 *                       type and size: wall clock and profiling events, GB/s, the
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
 *                       GB/s against size as SVG (bench_plot.c);
 *                       --all-devices: on every device in turn, each in a
 *                       child process, then a summary as compare's
 *                       (bench_command_run_all_devices, bench_compare.c)
 *   compare             run's operations on every device present, each device
 *                       measured by `run` in child processes of its own
 *                       (CLGPU_DEVICE=P:D, a timeout), as one table with a
 *                       column per device (bench_compare.c)
 *   tune                sweep the tuning table's values on the device, each
 *                       measured by run in a child with CLGPU_TUNING set, and
 *                       print the best (bench_tune.c)
 *   kernel              build the user's .cl file and time one of its kernels
 *                       over buffers made from argument specs: device time
 *                       from profiling events, wall time, GB/s and the share
 *                       of the device's read bandwidth (bench_kernel.c)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clgpu/clgpu.h>

#include "bench_child.h"
#include "bench_common.h"
#include "bench_compare.h"
#include "bench_first_call.h"
#include "bench_kernel.h"
#ifdef CLGPU_BENCH_MPI
#include "bench_mpi.h"
#endif
#include "bench_options.h"
#include "bench_output.h"
#include "bench_plan.h"
#include "bench_run.h"
#include "bench_tune.h"

static const char usage_text[] =
    "usage: clgpu-bench [SUBCOMMAND] [OPTIONS]\n"
    "       clgpu-bench [RUN OPTIONS]   (the same as clgpu-bench run [RUN OPTIONS])\n"
    "\n"
    "Subcommands:\n"
    "  run                  (the default) time reduce, count_if, scan, findall,\n"
    "                       copies, sorts (radix_sort, sort_by_key, merge_sort,\n"
    "                       argsort), lower_bound and histogram (and, named in --ops,\n"
    "                       reduce_by_key, scan_by_key, segmented_sort and partition)\n"
    "                       per type and size beside the device's read and copy\n"
    "                       bandwidth, a CPU baseline and Boost.Compute; results checked;\n"
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
    "  tune                 sweep the tuning table's values (tile sizes, group caps,\n"
    "                       chunks per compute unit) on the device, each measured\n"
    "                       by run in a child process with CLGPU_TUNING set, and\n"
    "                       print the best as a CLGPU_TUNING value to keep\n"
    "  selfcheck            list devices, run one kernel on the default device,\n"
    "                       check it against the host, and time its first call\n"
    "                       with a cold and a warm disk cache\n"
    "  devices              list OpenCL platforms and devices (--format json: every\n"
    "                       device's facts)\n"
    "  first-call           time the first call of one kernel in this process\n"
    "  mpi                  time the MPI component's sort, allreduce and scan on 1, 2\n"
    "                       and 4 ranks (it starts mpirun), strong and weak scaling,\n"
    "                       split into device, search, staging and MPI (where clgpu\n"
    "                       was built with MPI)\n"
    "\n"
    "The device is chosen by --device SELECTOR (run, kernel, tune, selfcheck,\n"
    "first-call, devices) or else CLGPU_DEVICE, both taking \"P:D\", a flat index,\n"
    "gpu, cpu, accelerator, or part of a platform or device name (clgpu-bench\n"
    "devices lists them; a --device that matches none is a usage error), else the\n"
    "first GPU, accelerator or CPU. run --all-devices runs on every device in turn\n"
    "and ends with a summary, a column per device.\n"
    "Run 'clgpu-bench SUBCOMMAND --help' for a subcommand's options.\n";

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

/* The help of --device in the subcommands without an option column. */
#define DEVICE_HELP                                                                   \
  "--device SELECTOR chooses the device as CLGPU_DEVICE does (and in its place,\n"    \
  "for this process and the processes it starts): \"P:D\", a flat index, gpu, cpu,\n" \
  "accelerator, or part of a platform or device name, case-insensitive\n"             \
  "(clgpu-bench devices lists them); one that matches no device is a usage error\n"   \
  "(exit status 2).\n"

enum { DEVICES_DEVICE, DEVICES_FORMAT };

static const bench_option devices_options[] = {
    BENCH_DEVICE_OPTION(DEVICES_DEVICE),
    {"--format", NULL, "a value", 0, DEVICES_FORMAT},
};

static const char *const devices_help[] = {
    "usage: clgpu-bench devices [--device SELECTOR] [--format table|json]\n\n"
    "List every OpenCL platform and device with its index, and the device clgpu\n"
    "chooses by default (or by CLGPU_DEVICE, or by --device).\n\n" DEVICE_HELP
    "--format table (the default) lists the devices, one a line (\"P:D  platform /\n"
    "device (type)\"), then the chosen device's facts; --format json prints one\n"
    "document: \"selector\" (CLGPU_DEVICE's value, or null), \"chosen\" (its \"P:D\"),\n"
    "\"platforms\" (every platform, those without a device too: index, name, vendor,\n"
    "version, and its count of devices) and \"devices\" (every device: its index\n"
    "\"P:D\", flat_index, chosen, and the facts a context on it reads: platform,\n"
    "platform_vendor, platform_version, name, vendor, type, version,\n"
    "opencl_c_version, driver, vendor_id, compute_units, max_clock_mhz,\n"
    "global_mem_bytes, max_alloc_bytes, global_mem_cache_bytes, local_mem_bytes,\n"
    "local_mem_dedicated, max_work_group_size, max_work_item_sizes,\n"
    "mem_base_addr_align_bits, timer_resolution_ns, fp64, fp16, int64_base_atomics,\n"
    "int64_extended_atomics, subgroups, little_endian; or, where no context could be\n"
    "made on it, \"error\" and exit status 1).\n",
    NULL};

static const bench_command devices_command = BENCH_TOOL_SUBCOMMAND(
    "devices", devices_options, sizeof devices_options / sizeof devices_options[0], devices_help);

typedef struct devices_state {
  const char *device;
  int json;
} devices_state;

static int devices_option(const bench_command *command, void *state, const bench_option *option,
                          const char *value) {
  devices_state *d = state;
  if (option->id == DEVICES_DEVICE) {
    d->device = value;
    return 0;
  }
  static const char *const names[] = {"table", "json"};
  return bench_option_choice(command, option, value, names, 2, &d->json);
}

/* A platform's string property whole (malloc'ed; "" when it cannot be
 * read), NULL when out of memory. */
static char *platform_string(cl_platform_id platform, cl_platform_info what) {
  size_t length = 0;
  if (clGetPlatformInfo(platform, what, 0, NULL, &length) != CL_SUCCESS) length = 0;
  char *text = malloc(length + 1);
  if (!text) return NULL;
  if (length == 0 || clGetPlatformInfo(platform, what, length, text, NULL) != CL_SUCCESS) {
    length = 0;
  }
  text[length] = '\0';
  return text;
}

/* The "platforms" member of devices' JSON: every platform the ICD loader
 * shows, in the order that numbers them in "P:D" (clGetPlatformIDs'). */
static int print_platforms_json(void) {
  cl_uint count = 0;
  if (clGetPlatformIDs(0, NULL, &count) != CL_SUCCESS) count = 0;
  cl_platform_id *platforms = calloc(count ? count : 1, sizeof *platforms);
  if (!platforms) return 1;
  if (count && clGetPlatformIDs(count, platforms, NULL) != CL_SUCCESS) count = 0;
  fputs(",\n  \"platforms\": [", stdout);
  int failed = 0;
  for (cl_uint p = 0; p < count && !failed; p++) {
    char *name = platform_string(platforms[p], CL_PLATFORM_NAME);
    char *vendor = platform_string(platforms[p], CL_PLATFORM_VENDOR);
    char *version = platform_string(platforms[p], CL_PLATFORM_VERSION);
    cl_uint devices = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &devices) != CL_SUCCESS)
      devices = 0;
    failed = !name || !vendor || !version;
    if (!failed) {
      printf("%s\n    {\"index\": %u", p ? "," : "", p);
      bench_json_string_member(stdout, ", ", "name", name);
      bench_json_string_member(stdout, ", ", "vendor", vendor);
      bench_json_string_member(stdout, ", ", "version", version);
      printf(", \"devices\": %u}", devices);
    }
    free(name);
    free(vendor);
    free(version);
  }
  fputs("\n  ]", stdout);
  free(platforms);
  return failed;
}

/* One device of devices' JSON: its facts from a context made on it. 0, or
 * 1 when no context could be made (the entry then holds "error"). */
static int print_device_json(const char *index, size_t flat_index, cl_device_id chosen) {
  clgpu_context_options options = {0};
  options.device = index;
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(&options, &context);
  printf("%s\n    ", flat_index ? "," : "");
  bench_json_string_member(stdout, "{", "index", index);
  printf(", \"flat_index\": %zu", flat_index);
  if (status != CLGPU_SUCCESS) {
    char error[1024];
    snprintf(error, sizeof error, "%s: %s", clgpu_status_name(status), clgpu_last_error());
    printf(", \"chosen\": false");
    bench_json_string_member(stdout, ", ", "error", error);
    fputc('}', stdout);
    fprintf(stderr, "clgpu-bench: devices: no context on %s: %s\n", index, error);
    return 1;
  }
  const clgpu_device_info *d = clgpu_context_device_info(context);
  cl_device_id device = clgpu_context_device(context);
  cl_platform_id platform = NULL;
  clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL);
  char *platform_vendor = platform ? platform_string(platform, CL_PLATFORM_VENDOR) : NULL;
  printf(", \"chosen\": %s", device == chosen ? "true" : "false");
  const char *const strings[][2] = {
      {"platform", d->platform_name},
      {"platform_vendor", platform_vendor},
      {"platform_version", d->platform_version},
      {"name", d->name},
      {"vendor", d->vendor},
  };
  for (size_t k = 0; k < sizeof strings / sizeof strings[0]; k++) {
    bench_json_string_member(stdout, ",\n     ", strings[k][0], strings[k][1]);
  }
  printf(", \"type\": \"%s\"", bench_device_type_name(d->type));
  bench_json_string_member(stdout, ",\n     ", "version", d->device_version);
  bench_json_string_member(stdout, ", ", "opencl_c_version", d->opencl_c_version);
  bench_json_string_member(stdout, ", ", "driver", d->driver_version);
  printf(
      ",\n     \"vendor_id\": %u, \"compute_units\": %u, \"max_clock_mhz\": %u,"
      "\n     \"global_mem_bytes\": %llu, \"max_alloc_bytes\": %llu, \"global_mem_cache_bytes\": "
      "%llu,\n     \"local_mem_bytes\": %llu, \"local_mem_dedicated\": %s, "
      "\"max_work_group_size\": %zu, \"max_work_item_sizes\": [%zu, %zu, %zu],"
      "\n     \"mem_base_addr_align_bits\": %u, \"timer_resolution_ns\": %zu,"
      "\n     \"fp64\": %s, \"fp16\": %s, \"int64_base_atomics\": %s, "
      "\"int64_extended_atomics\": %s, \"subgroups\": %s, \"little_endian\": %s}",
      d->vendor_id, d->compute_units, d->max_clock_mhz, (unsigned long long)d->global_mem_size,
      (unsigned long long)d->max_mem_alloc_size, (unsigned long long)d->global_mem_cache_size,
      (unsigned long long)d->local_mem_size, d->local_mem_is_dedicated ? "true" : "false",
      d->max_work_group_size, d->max_work_item_sizes[0], d->max_work_item_sizes[1],
      d->max_work_item_sizes[2], d->mem_base_addr_align_bits, d->profiling_timer_resolution_ns,
      d->has_fp64 ? "true" : "false", d->has_fp16 ? "true" : "false",
      d->has_int64_base_atomics ? "true" : "false",
      d->has_int64_extended_atomics ? "true" : "false", d->has_subgroups ? "true" : "false",
      d->is_little_endian ? "true" : "false");
  free(platform_vendor);
  clgpu_context_destroy(context);
  return 0;
}

/* devices --format json: the listing's devices ("  P:D  ..." lines), each
 * with its facts, and the chosen one. */
static int print_devices_json(const char *listing) {
  const char *selector = getenv("CLGPU_DEVICE");
  cl_platform_id chosen_platform = NULL;
  cl_device_id chosen = NULL;
  clgpu_status status = clgpu_device_select(selector, &chosen_platform, &chosen);
  if (status != CLGPU_SUCCESS) return bench_report_failure("choosing the default device", status);
  /* The devices' indices, in the listing's order (a line each). */
  size_t lines = 1;
  for (const char *c = listing; *c; c++) lines += *c == '\n';
  char(*indices)[32] = calloc(lines, sizeof *indices);
  if (!indices) {
    fprintf(stderr, "clgpu-bench: devices: out of host memory\n");
    return 1;
  }
  size_t count = 0;
  for (const char *line = listing; line && *line && count < lines;) {
    unsigned p = 0, d = 0;
    if (sscanf(line, " %u:%u", &p, &d) == 2) snprintf(indices[count++], 32, "%u:%u", p, d);
    line = strchr(line, '\n');
    if (line) line++;
  }
  /* The chosen one's index: the listed device that selects the same. */
  const char *chosen_index = NULL;
  for (size_t k = 0; k < count && !chosen_index; k++) {
    cl_platform_id platform = NULL;
    cl_device_id device = NULL;
    if (clgpu_device_select(indices[k], &platform, &device) == CLGPU_SUCCESS && device == chosen)
      chosen_index = indices[k];
  }
  bench_json_report_start(stdout, "clgpu-bench devices", NULL);
  bench_json_string_member(stdout, ",\n  ", "selector", selector && *selector ? selector : NULL);
  bench_json_string_member(stdout, ",\n  ", "chosen", chosen_index);
  int failed = print_platforms_json();
  fputs(",\n  \"devices\": [", stdout);
  for (size_t k = 0; k < count; k++) failed |= print_device_json(indices[k], k, chosen);
  fputs("\n  ]\n}\n", stdout);
  free(indices);
  return failed;
}

static int command_devices(int argc, char **argv) {
  devices_state state = {NULL, 0};
  int parsed = bench_parse_options(&devices_command, argc, argv, devices_option, &state);
  if (parsed != 0) return parsed < 0 ? 0 : parsed;
  parsed = bench_use_device(&devices_command, state.device);
  if (parsed != 0) return parsed;
  size_t needed = 0;
  clgpu_status status = clgpu_device_list(NULL, 0, &needed);
  if (status != CLGPU_SUCCESS) return bench_report_failure("listing devices", status);
  char *listing = malloc(needed);
  if (!listing) return 1;
  clgpu_device_list(listing, needed, NULL);
  if (state.json) {
    int failed = print_devices_json(listing);
    free(listing);
    return failed;
  }
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
  clgpu_program_cache_stats(context, &stats);
  printf(
      "%-34s %8.1f ms  (builds %llu in %.1f ms, disk hits %llu in %.1f ms, disk writes "
      "%llu)\n",
      label, ms, (unsigned long long)stats.builds, stats.build_ms,
      (unsigned long long)stats.disk_hits, stats.disk_load_ms,
      (unsigned long long)stats.disk_writes);
}

enum { FIRST_CALL_CACHE_DIR, FIRST_CALL_NO_DISK_CACHE, FIRST_CALL_DEVICE };

static const bench_option first_call_options[] = {
    {"--cache-dir", NULL, "a folder", 0, FIRST_CALL_CACHE_DIR},
    {"--no-disk-cache", NULL, NULL, 0, FIRST_CALL_NO_DISK_CACHE},
    BENCH_DEVICE_OPTION(FIRST_CALL_DEVICE),
};

static const char *const first_call_help[] = {
    "usage: clgpu-bench first-call [--cache-dir DIR] [--no-disk-cache]\n"
    "                              [--device SELECTOR]\n\n"
    "Time, in a fresh process, the first call of one kernel (fill.cl's iota over\n"
    "1M uints) on the default device (or CLGPU_DEVICE's): getting the program,\n"
    "creating the kernel, running it and reading the result back. With --cache-dir\n"
    "the disk cache is forced on in DIR; run twice over one empty DIR for a cold\n"
    "and then a warm disk cache.\n" DEVICE_HELP,
    NULL};

static const bench_command first_call_command = BENCH_TOOL_SUBCOMMAND(
    "first-call", first_call_options, sizeof first_call_options / sizeof first_call_options[0],
    first_call_help);

static int first_call_option(const bench_command *command, void *state, const bench_option *option,
                             const char *value) {
  (void)command;
  clgpu_context_options *options = state;
  if (option->id == FIRST_CALL_CACHE_DIR) {
    options->cache_dir = value;
    options->disk_cache = CLGPU_DISK_CACHE_ON;
  } else if (option->id == FIRST_CALL_DEVICE) {
    options->device = value;
  } else {
    options->disk_cache = CLGPU_DISK_CACHE_OFF;
  }
  return 0;
}

static int command_first_call(int argc, char **argv) {
  clgpu_context_options options = {0};
  int parsed = bench_parse_options(&first_call_command, argc, argv, first_call_option, &options);
  if (parsed != 0) return parsed < 0 ? 0 : parsed;
  parsed = bench_use_device(&first_call_command, options.device);
  if (parsed != 0) return parsed;
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

static const bench_option selfcheck_options[] = {BENCH_DEVICE_OPTION(0)};

static const char *const selfcheck_help[] = {
    "usage: clgpu-bench selfcheck [--device SELECTOR]\n\n"
    "List the devices, run fill.cl's iota kernel over 1M uints on the default\n"
    "device (or CLGPU_DEVICE's), check every element against the host, and time\n"
    "the first call with a cold and then a warm disk cache (a temporary folder,\n"
    "removed afterwards). Exit status 0 when the result is right.\n" DEVICE_HELP,
    NULL};

static const bench_command selfcheck_command =
    BENCH_TOOL_SUBCOMMAND("selfcheck", selfcheck_options, 1, selfcheck_help);

/* selfcheck's one option, --device, into *state (a const char *). */
static int selfcheck_option(const bench_command *command, void *state, const bench_option *option,
                            const char *value) {
  (void)command;
  (void)option;
  *(const char **)state = value;
  return 0;
}

static int command_selfcheck(int argc, char **argv) {
  const char *device = NULL;
  int parsed = bench_parse_options(&selfcheck_command, argc, argv, selfcheck_option, &device);
  if (parsed != 0) return parsed < 0 ? 0 : parsed;
  parsed = bench_use_device(&selfcheck_command, device);
  if (parsed != 0) return parsed;
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

/* run, named or not: with --all-devices, on every device through
 * compare's machinery (bench_compare.c); else on one (bench_run.c, which
 * parses the arguments again). */
static int command_run(int argc, char **argv) {
  run_options options;
  int parsed = bench_parse_run_options(argc, argv, &options);
  if (parsed != 0) return parsed < 0 ? 0 : parsed;
  if (options.all_devices) return bench_command_run_all_devices(bench_self, argc, argv, &options);
  return bench_command_run(argc, argv);
}

int main(int argc, char **argv) {
  bench_environment_snapshot();
  bench_self = argc > 0 && argv[0] ? argv[0] : "clgpu-bench";
  bench_command_line_argc = argc;
  bench_command_line_argv = argv;
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
  if (strcmp(command, "tune") == 0) return bench_command_tune(bench_self, argc - 2, argv + 2);
  if (strcmp(command, "mpi") == 0) {
#ifdef CLGPU_BENCH_MPI
    return bench_command_mpi(bench_self, argc - 2, argv + 2);
#else
    return bench_usage_error(&bench_tool_command,
                             "mpi: this clgpu-bench was built without the MPI component "
                             "(install an MPI, e.g. libopenmpi-dev, and reconfigure)");
#endif
  }
  if (strcmp(command, FIRST_CALL_CHILD) == 0)
    return bench_command_first_call_child(argc - 2, argv + 2);
  /* Options without a subcommand are run's: `clgpu-bench --plot x.svg`. */
  if (command[0] == '-') return command_run(argc - 1, argv + 1);
  return bench_usage_error(&bench_tool_command, "unknown subcommand '%s'", command);
}
