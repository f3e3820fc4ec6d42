/* clgpu-bench run's ops with a peer (bench_peers.h): the elementwise
 * kernels and strided copies, their views, and the peers each is timed
 * beside (a hand-written kernel, the contiguous case, clEnqueueCopyBuffer). */
#include "bench_peers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  if (t->type == CLGPU_TYPE_FLOAT) {
    float a = 1.5f;
    memcpy(out, &a, sizeof a);
  } else if (t->type == CLGPU_TYPE_DOUBLE) {
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
int bench_prepare_peer_ops(bench_case *c, int op) {
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
  if (err != CL_SUCCESS)
    return bench_op_failure(c, op, "making the peer's buffers", (clgpu_status)err);
  clgpu_status status = clgpu_array_1d(c->d_z, 0, t->type, c->n, &c->v_z);
  if (status != CLGPU_SUCCESS) return bench_op_failure(c, op, "making a view of z", status);
  scalar_a_of(t, c->scalar_a);
  c->peer_ready = 1;
  return 0;
}

void bench_release_peer_op(bench_case *c) {
  clgpu_elementwise_destroy(c->kernel);
  c->kernel = NULL;
  if (c->hand_kernel) clReleaseKernel(c->hand_kernel);
  if (c->hand_program) clReleaseProgram(c->hand_program);
  c->hand_kernel = NULL;
  c->hand_program = NULL;
}

void bench_release_peer_ops(bench_case *c) {
  bench_release_peer_op(c);
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
           t->type == CLGPU_TYPE_DOUBLE ? " -DBENCH_FP64" : "",
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
 * row (its kernel object comes from bench_create_op_kernel). */
clgpu_status bench_setup_peer_views(bench_case *c, int op, result *row) {
  const host_type *t = c->type;
  clgpu_status status = CLGPU_SUCCESS;
  size_t s = bench_square_side(c->n);
  size_t square_shape[2] = {s, s};
  clgpu_array square;
  memset(&c->layout, 0, sizeof c->layout);
  if (bench_op_table[op].two_d) {
    status = clgpu_array_nd(c->d_in, 0, t->type, 2, square_shape, CLGPU_ORDER_ROW_MAJOR, &square);
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
  status =
      clgpu_array_nd(c->d_out, 0, t->type, v->rank, v->shape, CLGPU_ORDER_ROW_MAJOR, &c->op_dst);
  if (status == CLGPU_SUCCESS) status = clgpu_array_1d(c->d_in, 0, t->type, c->count, &c->peer_src);
  if (status == CLGPU_SUCCESS) {
    status = clgpu_array_1d(c->d_peer_out, 0, t->type, c->count, &c->peer_dst);
  }
  if (status != CLGPU_SUCCESS) return status;
  if (op == OP_ELEMENTWISE_STRIDED) {
    snprintf(row->layout, sizeof row->layout, "b[::2, :-1] of %zux%zu: %zux%zu, strides (%td, %td)",
             s, s, v->shape[0], v->shape[1], v->strides[0], v->strides[1]);
  } else if (bench_op_table[op].two_d) {
    snprintf(row->layout, sizeof row->layout, "transpose of %zux%zu: strides (%td, %td)", s, s,
             v->strides[0], v->strides[1]);
  }
  row->elements = c->count;
  row->has_peer = 1;
  return CLGPU_SUCCESS;
}

/* The kernel object of an elementwise op (c->kernel); nothing for the
 * copies. It builds nothing: its programs come at its first run. */
clgpu_status bench_create_op_kernel(bench_case *c, int op) {
  const host_type *t = c->type;
  if (op == OP_ELEMENTWISE) {
    const clgpu_elementwise_arg args[] = {{"y", CLGPU_ARG_OUT, t->type},
                                          {"a", CLGPU_ARG_SCALAR, t->type},
                                          {"x", CLGPU_ARG_IN, t->type},
                                          {"z", CLGPU_ARG_IN, t->type}};
    return clgpu_elementwise_create(c->context, "y = a * x + z", 4, args, NULL, &c->kernel);
  }
  if (op == OP_ELEMENTWISE_STRIDED || op == OP_ELEMENTWISE_TRANSPOSED) {
    const clgpu_elementwise_arg args[] = {{"y", CLGPU_ARG_OUT, t->type},
                                          {"x", CLGPU_ARG_IN, t->type}};
    return clgpu_elementwise_create(c->context, "y = x * x", 2, args, NULL, &c->kernel);
  }
  return CLGPU_SUCCESS;
}

/* The views of an op with a peer, its kernel object (or hand kernel), and
 * the words that describe them in the row. */
clgpu_status bench_setup_peer_op(bench_case *c, int op, result *row) {
  clgpu_status status = bench_setup_peer_views(c, op, row);
  if (status == CLGPU_SUCCESS) status = bench_create_op_kernel(c, op);
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
clgpu_status bench_enqueue_peer(bench_case *c, int op, cl_event *event) {
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

/* Check what the peer of an op wrote (d_peer_out): as bench_check_output. */
int bench_check_peer(bench_case *c, int op, check_message *message, clgpu_status *status) {
  const host_type *t = c->type;
  *status = bench_read_buffer(c, c->d_peer_out, c->count * t->size, c->host_peer);
  if (*status != CLGPU_SUCCESS) return -1;
  if (op == OP_ELEMENTWISE) {
    return t->check_axpy(c->scalar_a, c->host_in, c->host_z, c->host_peer, c->n, message);
  }
  elementwise_layout contiguous = {1, c->count, 0, 1, 0};
  if (op == OP_ELEMENTWISE_STRIDED || op == OP_ELEMENTWISE_TRANSPOSED) {
    return t->check_square(c->host_in, &contiguous, c->host_peer, message);
  }
  return bench_check_copy_layout(t->size, c->host_in, &contiguous, c->host_peer, message);
}
