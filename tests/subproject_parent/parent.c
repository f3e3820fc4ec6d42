/* The parent project's program: a sum over the caller's own buffer, checked
 * on the host. Prints "parent: ok" and exits 0 when the device's sum is
 * right. */
#include <stdio.h>

#include <clgpu/clgpu.h>

enum { N = 1000 };

static int fail(const char *what, clgpu_status status) {
  printf("parent: %s: %s: %s\n", what, clgpu_status_name(status), clgpu_last_error());
  return 1;
}

int main(void) {
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(NULL, &context);
  if (status != CLGPU_SUCCESS) return fail("clgpu_context_create", status);
  cl_uint host[N], sum = 0, expected = 0;
  for (cl_uint i = 0; i < N; i++) {
    host[i] = i * 7u % 13u;
    expected += host[i];
  }
  cl_mem in = NULL, out = NULL;
  clgpu_array x, total;
  clgpu_reduce_op add = {0};
  add.kind = CLGPU_REDUCE_SUM;
  int code = 0;
  if ((status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof host, &in)) != 0 ||
      (status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof sum, &out)) != 0 ||
      (status = clgpu_array_1d(in, 0, CLGPU_TYPE_UINT32, N, &x)) != 0 ||
      (status = clgpu_array_1d(out, 0, CLGPU_TYPE_UINT32, 1, &total)) != 0 ||
      (status = clgpu_array_write(context, &x, host, sizeof host, 0, NULL)) != 0 ||
      (status = clgpu_reduce(context, &add, CLGPU_ALL_AXES, &total, &x, NULL, 0, NULL, NULL)) != 0 ||
      (status = clgpu_array_read(context, &sum, sizeof sum, &total, 0, NULL)) != 0) {
    code = fail("the sum", status);
  } else if (sum != expected) {
    printf("parent: the sum is %u, not %u\n", sum, expected);
    code = 1;
  } else {
    printf("parent: ok (clgpu %d.%d.%d)\n", CLGPU_VERSION_MAJOR, CLGPU_VERSION_MINOR,
           CLGPU_VERSION_PATCH);
  }
  clgpu_buffer_release(context, in);
  clgpu_buffer_release(context, out);
  clgpu_context_destroy(context);
  return code;
}
