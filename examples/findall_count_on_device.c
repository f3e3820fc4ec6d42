/* findall_count_on_device: stream compaction whose count never makes the
 * host wait.
 *
 * clgpu_findall writes the indices of the elements a predicate holds for,
 * and their number into one ulong in device memory. clgpu_findall_read would
 * wait and read that number back; here it stays on the device, and the next
 * step uses it there: an elementwise kernel reads the count through a
 * broadcast view (stride 0: every element sees the same ulong) and writes a
 * sentinel into the unused tail of the indices, so that later fixed-size
 * steps can work on all N slots without knowing the count. The host reads
 * the count and the indices once, at the end, and checks them. */
#include <stdio.h>
#include <clgpu/clgpu.h>

#define CHECK(call)                                                                           \
  do {                                                                                        \
    clgpu_status status_ = (call);                                                            \
    if (status_ != CLGPU_SUCCESS) {                                                           \
      fprintf(stderr, "%s: %s: %s\n", #call, clgpu_status_name(status_), clgpu_last_error()); \
      goto done;                                                                              \
    }                                                                                         \
  } while (0)

enum { N = 100000 };

static cl_uint input_host[N];
static cl_ulong indices_host[N];

int main(void) {
  /* The predicate: OpenCL C over the element `x` and its index `i`. */
  const char *predicate = "x % 7 == 3 && i % 2 == 0";
  /* The later step: keep the first `count` indices, mark the rest. */
  clgpu_elementwise_arg args[] = {{"idx", CLGPU_ARG_INOUT, CLGPU_TYPE_UINT64},
                                  {"count", CLGPU_ARG_IN, CLGPU_TYPE_UINT64},
                                  {"sentinel", CLGPU_ARG_SCALAR, CLGPU_TYPE_UINT64}};
  const cl_ulong sentinel = N; /* no index is N */
  clgpu_context *ctx = NULL;
  clgpu_elementwise *mark_tail = NULL;
  cl_mem input_mem = NULL, indices_mem = NULL, count_mem = NULL;
  clgpu_array input, indices, count, count_everywhere;
  size_t everywhere[1] = {N};
  clgpu_elementwise_value values[] = {
      {.array = &indices}, {.array = &count_everywhere}, {.scalar = &sentinel}};
  cl_ulong count_host = 0, expected_count = 0;
  int rc = 1;

  for (cl_uint k = 0; k < N; k++) input_host[k] = k * 2654435761u; /* scrambled values */

  CHECK(clgpu_context_create(NULL, &ctx));
  CHECK(clgpu_buffer_create(ctx, CL_MEM_READ_WRITE, sizeof input_host, &input_mem));
  CHECK(clgpu_buffer_create(ctx, CL_MEM_READ_WRITE, sizeof indices_host, &indices_mem));
  CHECK(clgpu_buffer_create(ctx, CL_MEM_READ_WRITE, sizeof(cl_ulong), &count_mem));
  CHECK(clgpu_array_1d(input_mem, 0, CLGPU_TYPE_UINT32, N, &input));
  /* Room for every index: the capacity is the view's length, N. */
  CHECK(clgpu_array_1d(indices_mem, 0, CLGPU_TYPE_UINT64, N, &indices));
  CHECK(clgpu_array_1d(count_mem, 0, CLGPU_TYPE_UINT64, 1, &count));
  /* The same one ulong seen as N elements, each of them count[0] (stride 0). */
  CHECK(clgpu_array_broadcast(&count, 1, everywhere, &count_everywhere));
  CHECK(clgpu_array_write(ctx, &input, input_host, sizeof input_host, 0, NULL));

  /* 1. The indices where the predicate holds, and their count, both left on
   *    the device. This only enqueues: nothing waits for the count. */
  CHECK(clgpu_findall(ctx, predicate, &indices, &count, &input, NULL, 0, NULL, NULL));

  /* 2. Use the count on the device: slots from `count` on get the sentinel.
   *    The context's queue is in order, so this runs after the findall. */
  CHECK(clgpu_elementwise_create(ctx, "idx = i < count ? idx : sentinel;", 3, args, NULL,
                                 &mark_tail));
  CHECK(clgpu_elementwise_run(mark_tail, values, 0, NULL, NULL));

  /* 3. The only reads back: the count and the indices (each waits). */
  CHECK(clgpu_array_read(ctx, &count_host, sizeof count_host, &count, 0, NULL));
  CHECK(clgpu_array_read(ctx, indices_host, sizeof indices_host, &indices, 0, NULL));

  /* The host reference: the matching indices in ascending order, then sentinels. */
  rc = 0;
  for (cl_uint k = 0; k < N; k++) {
    if (input_host[k] % 7 == 3 && k % 2 == 0) {
      if (indices_host[expected_count] != k) rc = 1;
      expected_count++;
    }
  }
  for (cl_ulong k = expected_count; k < N; k++) rc |= indices_host[k] != sentinel;
  if (count_host != expected_count || rc) {
    fprintf(stderr, "count %llu (expected %llu), indices %s\n", (unsigned long long)count_host,
            (unsigned long long)expected_count, rc ? "wrong" : "right");
    rc = 1;
  } else {
    printf("found %llu of %d elements\n", (unsigned long long)count_host, N);
  }

done:
  clgpu_elementwise_destroy(mark_tail);
  clgpu_buffer_release(ctx, count_mem);
  clgpu_buffer_release(ctx, indices_mem);
  clgpu_buffer_release(ctx, input_mem);
  clgpu_context_destroy(ctx);
  if (rc == 0) printf("findall_count_on_device: ok\n");
  return rc;
}
