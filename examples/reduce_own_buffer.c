/* reduce_own_buffer: clgpu over OpenCL objects the caller already has.
 *
 * A program that already uses OpenCL keeps its own cl_context,
 * cl_command_queue and cl_mem buffers. This example makes those with plain
 * OpenCL calls, wraps them into a clgpu context (clgpu_context_wrap), views
 * its own buffer as an array, and sums it into a second buffer of its own.
 * The sum is read back with plain OpenCL and compared with the host's.
 *
 * Only the choice of device goes through clgpu (clgpu_device_select), so
 * that CLGPU_DEVICE picks it, as it does for the rest of the library. */
#include <stdio.h>
#include <stdlib.h>
#include <clgpu/clgpu.h>

/* On failure: say which call failed and why, then clean up. OpenCL's codes
 * pass through clgpu unchanged, so clgpu_status_name names them too. */
#define CHECK(call)                                                                           \
  do {                                                                                        \
    cl_int status_ = (call);                                                                  \
    if (status_ != CL_SUCCESS) {                                                              \
      fprintf(stderr, "%s: %s: %s\n", #call, clgpu_status_name(status_), clgpu_last_error()); \
      goto done;                                                                              \
    }                                                                                         \
  } while (0)

enum { N = 100000 };

static cl_int data[N];

int main(void) {
  cl_platform_id platform = NULL;
  cl_device_id device = NULL;
  cl_context cl_ctx = NULL;
  cl_command_queue queue = NULL;
  cl_mem input_mem = NULL, sum_mem = NULL;
  clgpu_context *ctx = NULL;
  clgpu_array input, sum;
  clgpu_reduce_op op = {.kind = CLGPU_REDUCE_SUM};
  cl_int err = CL_SUCCESS, device_sum = 0, host_sum = 0;
  int rc = 1;

  /* The data and its sum on the host (small values: the int sum cannot wrap). */
  for (cl_int k = 0; k < N; k++) {
    data[k] = (k * 7919) % 2001 - 1000;
    host_sum += data[k];
  }

  /* 1. The caller's own OpenCL objects, made as any OpenCL program makes
   *    them. clgpu_device_select does not read the environment itself (NULL
   *    would mean the default device), so we pass it CLGPU_DEVICE's value. */
  CHECK(clgpu_device_select(getenv("CLGPU_DEVICE"), &platform, &device));
  cl_ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK(err);
  queue = clCreateCommandQueue(cl_ctx, device, 0, &err); /* in order */
  CHECK(err);
  input_mem = clCreateBuffer(cl_ctx, CL_MEM_READ_ONLY, sizeof data, NULL, &err);
  CHECK(err);
  sum_mem = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &err);
  CHECK(err);
  CHECK(clEnqueueWriteBuffer(queue, input_mem, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL));

  /* 2. Wrap them. clgpu retains the context, device and queue and enqueues
   *    its work on our queue; we keep our references and release them below. */
  CHECK(clgpu_context_wrap(cl_ctx, device, queue, NULL, &ctx));

  /* 3. Views over our buffers: the N ints, and the one int the sum goes to.
   *    A view is a plain struct and holds no reference to its cl_mem. */
  CHECK(clgpu_array_1d(input_mem, 0, CLGPU_TYPE_INT32, N, &input));
  CHECK(clgpu_array_1d(sum_mem, 0, CLGPU_TYPE_INT32, 1, &sum));

  /* 4. Sum all of the input into sum_mem. This only enqueues, on our queue. */
  CHECK(clgpu_reduce(ctx, &op, CLGPU_ALL_AXES, &sum, &input, NULL, 0, NULL, NULL));

  /* 5. Our queue is in order, so a blocking read enqueued after the
   *    reduction sees its result. */
  CHECK(clEnqueueReadBuffer(queue, sum_mem, CL_TRUE, 0, sizeof device_sum, &device_sum, 0, NULL,
                            NULL));

  if (device_sum == host_sum)
    rc = 0;
  else
    fprintf(stderr, "sum %d on the device, %d on the host\n", device_sum, host_sum);

done:
  /* clgpu drops its references; ours are released as if clgpu were not there. */
  clgpu_context_destroy(ctx);
  if (sum_mem) clReleaseMemObject(sum_mem);
  if (input_mem) clReleaseMemObject(input_mem);
  if (queue) clReleaseCommandQueue(queue);
  if (cl_ctx) clReleaseContext(cl_ctx);
  if (rc == 0) printf("reduce_own_buffer: ok\n");
  return rc;
}
