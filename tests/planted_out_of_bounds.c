/* A planted fault for the Oclgrind setup's self-test: a kernel that writes one
 * element past the end of its buffer. Built always, run only by
 * tests/oclgrind_selftest.sh under tools/oclgrind-run, which must fail on it.
 * Never run it on a real device: the write corrupts memory there. */
#include <stdio.h>

#include <clgpu/clgpu.h>

static const char source[] =
    "__kernel void past_the_end(__global uint *out, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i <= n) out[i] = i; /* <= : one element too many */\n"
    "}\n";

int main(void) {
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(NULL, &context);
  if (status != CLGPU_SUCCESS) {
    fprintf(stderr, "planted_out_of_bounds: %s: %s\n", clgpu_status_name(status),
            clgpu_last_error());
    return 1;
  }
  printf("planted_out_of_bounds on %s\n", clgpu_context_device_info(context)->name);
  clgpu_program *program = NULL;
  cl_kernel kernel = NULL;
  status = clgpu_program_get(context, source, NULL, 0, NULL, &program);
  if (status == CLGPU_SUCCESS) status = clgpu_kernel_acquire(program, "past_the_end", &kernel);
  if (status != CLGPU_SUCCESS) {
    fprintf(stderr, "planted_out_of_bounds: %s\n", clgpu_last_error());
    clgpu_context_destroy(context);
    return 1;
  }
  cl_uint n = 64;
  cl_int err = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE,
                                 n * sizeof(cl_uint), NULL, &err);
  clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
  clSetKernelArg(kernel, 1, sizeof n, &n);
  size_t global = 128, local = 64;
  err = clEnqueueNDRangeKernel(clgpu_context_queue(context), kernel, 1, NULL, &global, &local, 0,
                               NULL, NULL);
  clFinish(clgpu_context_queue(context));
  clgpu_kernel_release(program, kernel);
  clReleaseMemObject(buffer);
  clgpu_context_destroy(context);
  return err == CL_SUCCESS ? 0 : 1;
}
