/* clgpu-bench: the library's command-line tool.
 *
 * Subcommands so far:
 *   (none), selfcheck   list the devices, run one kernel on the default device,
 *                       check its result against the host, and time the first
 *                       call with a cold and a warm disk cache
 *   devices             list platforms and devices and the default choice
 *   first-call          time the first call of one kernel in this process
 *                       (run it twice over one cache folder to compare cold
 *                       and warm disk caches across processes)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <clgpu/clgpu.h>

static const char usage_text[] =
    "usage: clgpu-bench [SUBCOMMAND] [OPTIONS]\n"
    "\n"
    "Subcommands:\n"
    "  selfcheck            (the default) list devices, run one kernel on the\n"
    "                       default device, check it against the host, and time\n"
    "                       its first call with a cold and a warm disk cache\n"
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

static double now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec * 1e-6;
}

static int report_failure(const char *what, clgpu_status status) {
  fprintf(stderr, "clgpu-bench: %s: %s (%d): %s\n%s\n", what, clgpu_status_name(status),
          (int)status, clgpu_status_string(status), clgpu_last_error());
  return 1;
}

static const char *type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  return "other";
}

static void print_device(const clgpu_device_info *info) {
  printf("device:     %s / %s (%s)\n", info->platform_name, info->name, type_name(info->type));
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
  if (status != CLGPU_SUCCESS) return report_failure("listing devices", status);
  char *listing = malloc(needed);
  if (!listing) return 1;
  clgpu_device_list(listing, needed, NULL);
  printf("devices (P:D  platform / device):\n%s", listing);
  free(listing);
  clgpu_context *context = NULL;
  status = clgpu_context_create(NULL, &context);
  if (status != CLGPU_SUCCESS) return report_failure("choosing the default device", status);
  printf("chosen (CLGPU_DEVICE=%s):\n", getenv("CLGPU_DEVICE") ? getenv("CLGPU_DEVICE") : "");
  print_device(clgpu_context_device_info(context));
  clgpu_context_destroy(context);
  return 0;
}

/* Get the fill program, run iota over n elements and check the result; the
 * time from asking for the program to having checked data is the first-call
 * time when the program was not in memory. */
static int run_iota(clgpu_context *context, size_t n, double *elapsed_ms) {
  double start = now_ms();
  clgpu_define defines[] = {{"CLGPU_T", "uint"}};
  clgpu_program *program = NULL;
  clgpu_status status = clgpu_program_get_named(context, "fill", defines, 1, NULL, &program);
  if (status != CLGPU_SUCCESS) return report_failure("building fill.cl", status);
  cl_kernel kernel = NULL;
  status = clgpu_kernel_acquire(program, "clgpu_iota", &kernel);
  if (status != CLGPU_SUCCESS) return report_failure("creating clgpu_iota", status);
  cl_int err = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE,
                                 n * sizeof(cl_uint), NULL, &err);
  if (err != CL_SUCCESS) {
    clgpu_kernel_release(program, kernel);
    return report_failure("clCreateBuffer", (clgpu_status)err);
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
  *elapsed_ms = now_ms() - start;
  if (!host || err != CL_SUCCESS) {
    free(host);
    return report_failure("running clgpu_iota",
                          err != CL_SUCCESS ? (clgpu_status)err : CLGPU_CL_OUT_OF_HOST_MEMORY);
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
  double start = now_ms();
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(&options, &context);
  if (status != CLGPU_SUCCESS) return report_failure("creating a context", status);
  double context_ms = now_ms() - start;
  double call_ms = 0;
  int failed = run_iota(context, (size_t)1 << 20, &call_ms);
  if (!failed) {
    printf("context creation %.1f ms; ", context_ms);
    print_stats("first call", context, call_ms);
    /* What every later call pays to find its program: a memory hit. */
    enum { HITS = 100000 };
    clgpu_define defines[] = {{"CLGPU_T", "uint"}};
    clgpu_program *program = NULL;
    double hit_start = now_ms();
    for (int i = 0; i < HITS && !failed; i++) {
      failed = clgpu_program_get_named(context, "fill", defines, 1, NULL, &program) != 0;
    }
    printf("memory hit: %.2f us per clgpu_program_get_named (%d calls)\n",
           (now_ms() - hit_start) * 1e3 / HITS, HITS);
  }
  clgpu_context_destroy(context);
  return failed;
}

static int command_selfcheck(int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf(
          "usage: clgpu-bench [selfcheck]\n\n"
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
      failed = report_failure("creating a context", status);
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

int main(int argc, char **argv) {
  if (argc < 2) return command_selfcheck(0, NULL);
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
  return usage_error("unknown subcommand '%s'", command);
}
