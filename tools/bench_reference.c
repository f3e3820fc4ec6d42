/* clgpu-bench run's bandwidth references (bench_reference.h): plain read and
 * copy kernels in a CPU and a GPU shape, and the read bandwidth measured
 * alone for the other subcommands. */
#include "bench_reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_case.h"

/* ---- the reference kernels: the device's read and copy bandwidth ---- */

/* CPU shape (BENCH_CPU_SHAPE 1): a few work-groups of one work-item, each
 * walking one long contiguous chunk with vload16/vstore16 and four vector
 * accumulators (POCL vectorises nothing else). GPU shape: four 4-element
 * vectors per work-item in groups of BENCH_GROUP, consecutive work-items at
 * consecutive vectors in each of the four loads, all four loads issued
 * before any is used (on an H200, one element per work-item read 1.4 TB/s
 * at 64M uint32 where CUB's reduce reads 3.4); work-item 0 takes the n % 4
 * elements past the last whole vector. Buffers start aligned far beyond 16
 * bytes, so the vector casts are aligned. The read kernel writes one value
 * per work-item in the CPU shape (the chunk's xor or sum, so nothing is
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
    "#define BENCH_UNROLL 4\n"
    "__kernel __attribute__((reqd_work_group_size(BENCH_GROUP, 1, 1))) void bench_read(\n"
    "    __global const T *src, ulong n, ulong chunk, T key, __global T *out) {\n"
    "  __global const T4 *v = (__global const T4 *)src;\n"
    "  ulong vectors = n / 4;\n"
    "  ulong base = get_group_id(0) * (ulong)(BENCH_GROUP * BENCH_UNROLL) + get_local_id(0);\n"
    "  T4 x[BENCH_UNROLL];\n"
    "  for (int k = 0; k < BENCH_UNROLL; k++) {\n"
    "    ulong at = base + k * BENCH_GROUP;\n"
    "    x[k] = at < vectors ? v[at] : (T4)((T)0);\n"
    "  }\n"
    "  int hit = 0;\n"
    "  for (int k = 0; k < BENCH_UNROLL; k++) hit |= any(x[k] == (T4)(key));\n"
    "  if (get_global_id(0) == 0) {\n"
    "    for (ulong i = vectors * 4; i < n; i++) hit |= src[i] == key;\n"
    "  }\n"
    "  if (hit) out[get_group_id(0)] = key;\n"
    "}\n"
    "__kernel __attribute__((reqd_work_group_size(BENCH_GROUP, 1, 1))) void bench_copy(\n"
    "    __global const T *src, __global T *dst, ulong n, ulong chunk) {\n"
    "  __global const T4 *v = (__global const T4 *)src;\n"
    "  __global T4 *w = (__global T4 *)dst;\n"
    "  ulong vectors = n / 4;\n"
    "  ulong base = get_group_id(0) * (ulong)(BENCH_GROUP * BENCH_UNROLL) + get_local_id(0);\n"
    "  T4 x[BENCH_UNROLL];\n"
    "  for (int k = 0; k < BENCH_UNROLL; k++) {\n"
    "    ulong at = base + k * BENCH_GROUP;\n"
    "    if (at < vectors) x[k] = v[at];\n"
    "  }\n"
    "  for (int k = 0; k < BENCH_UNROLL; k++) {\n"
    "    ulong at = base + k * BENCH_GROUP;\n"
    "    if (at < vectors) w[at] = x[k];\n"
    "  }\n"
    "  if (get_global_id(0) == 0) {\n"
    "    for (ulong i = vectors * 4; i < n; i++) dst[i] = src[i];\n"
    "  }\n"
    "}\n"
    "#endif\n";
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

clgpu_status bench_enqueue_reference(bench_case *c, int copy, cl_event *event) {
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
  size_t num_defines = c->type->type == CLGPU_TYPE_DOUBLE ? 5 : 4;
  clgpu_program *program = NULL;
  /* -w: the library's own programs are quiet, and so are the bench's
   * (POCL prints a build's warnings on stderr). */
  clgpu_status status =
      clgpu_program_get(c->context, reference_kernels, defines, num_defines, "-w", &program);
  if (status != CLGPU_SUCCESS) return status;
  cl_kernel kernel = NULL;
  status = clgpu_kernel_acquire(program, copy ? "bench_copy" : "bench_read", &kernel);
  if (status != CLGPU_SUCCESS) return status;
  size_t groups = 0;
  cl_ulong n = c->n, chunk = reference_chunk(c, &groups);
  size_t local = c->cpu_shape ? 1 : reference_group(c);
  /* The GPU shape: four vectors of four per work-item, at least one group. */
  size_t items = (c->n / 4 + 3) / 4;
  size_t global = c->cpu_shape
                      ? groups
                      : ((items + local - 1) / local > 0 ? (items + local - 1) / local : 1) * local;
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

/* The read kernel on its own, for the other subcommands (bench_reference.h):
 * a case of uint32 zeros, which the GPU shape's key (all ones) never
 * matches, so it reads and does not write. */
int bench_measure_read(clgpu_context *context, size_t bytes, int repeat, int warmup,
                       bench_timing *event, bench_timing *wall, size_t *measured_bytes) {
  bench_case c;
  memset(&c, 0, sizeof c);
  c.context = context;
  c.queue = clgpu_context_queue(context);
  c.device = clgpu_context_device_info(context);
  c.type = &bench_host_types[0]; /* uint32 */
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
    status = bench_enqueue_reference(&c, 0, &done);
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
