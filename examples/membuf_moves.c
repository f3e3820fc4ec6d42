/* membuf_moves: buffers that move between host and device memory.
 *
 * A clgpu_membuf holds its elements on the host, on the device or on both,
 * records which side is current, and copies only when the side asked for is
 * stale. The program never touches a cl_mem: it fills a buffer on the host,
 * triples it on the device, sums it into a one-element buffer made on the
 * device, and reads both back.
 *
 * Every copy between the spaces calls the context's move report, which by
 * default prints a line such as "Moved  390.6 KB to the DEVICE: int data" on
 * stderr. Here a callback of our own counts the copies instead (pass NULL to
 * clgpu_membuf_set_move_report to switch reports off altogether), so that
 * the program can check that exactly three copies were made. */
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

/* The move report callback: count the copies and their bytes. */
typedef struct moves {
  unsigned count;
  uint64_t bytes;
} moves;

static void count_move(void *user, const clgpu_move_report *report) {
  moves *seen = user;
  seen->count++;
  seen->bytes += report->bytes;
}

int main(void) {
  clgpu_context *ctx = NULL;
  clgpu_membuf *data = NULL, *total = NULL;
  clgpu_membuf_options data_name = {.name = "data"}, total_name = {.name = "total"};
  clgpu_reduce_op sum = {.kind = CLGPU_REDUCE_SUM};
  clgpu_array data_view, total_view;
  cl_int *host = NULL, *total_host = NULL, three = 3, zero = 0, expected_total = 0;
  moves seen = {0, 0};
  int rc = 1;

  CHECK(clgpu_context_create(NULL, &ctx));
  CHECK(clgpu_membuf_set_move_report(ctx, count_move, &seen));

  /* 1. A host+device buffer of N ints whose host side is made first. */
  CHECK(clgpu_membuf_create(ctx, CLGPU_TYPE_INT32, N, CLGPU_SPACE_HOST, &data_name, &data));
  /* The one int the sum goes to, made on the device, where it is written. */
  CHECK(clgpu_membuf_create(ctx, CLGPU_TYPE_INT32, 1, CLGPU_SPACE_DEVICE, &total_name, &total));

  /* 2. Fill it on the host. WRITE_ONLY: we overwrite everything, nothing to copy. */
  CHECK(clgpu_membuf_host(data, CLGPU_ACCESS_WRITE_ONLY, (void **)&host));
  for (cl_int k = 0; k < N; k++) {
    host[k] = k % 1000 - 500;
    expected_total += 3 * host[k];
  }

  /* 3. Views on the device. READ_WRITE copies data there (copy 1) and makes
   *    the device side the only current one; WRITE_ONLY copies nothing. */
  CHECK(clgpu_membuf_device_array(data, CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL, &data_view));
  CHECK(clgpu_membuf_device_array(total, CLGPU_ACCESS_WRITE_ONLY, 0, NULL, NULL, &total_view));

  /* 4. On the device: data = 3 * data + 0 * data (in place), then its sum. */
  CHECK(clgpu_axpby(ctx, &data_view, &three, &data_view, &zero, &data_view, 0, NULL, NULL));
  CHECK(clgpu_reduce(ctx, &sum, CLGPU_ALL_AXES, &total_view, &data_view, NULL, 0, NULL, NULL));

  /* 5. Back on the host: the host sides are stale, so both copy (copies 2
   *    and 3) and wait. READ_ONLY leaves both sides current: moving to the
   *    device again now would copy nothing. */
  CHECK(clgpu_membuf_host(data, CLGPU_ACCESS_READ_ONLY, (void **)&host));
  CHECK(clgpu_membuf_host(total, CLGPU_ACCESS_READ_ONLY, (void **)&total_host));

  rc = 0;
  for (cl_int k = 0; k < N; k++) rc |= host[k] != 3 * (k % 1000 - 500);
  if (*total_host != expected_total) rc = 1;
  if (seen.count != 3 || seen.bytes != 2 * sizeof(cl_int) * N + sizeof(cl_int)) rc = 1;
  if (rc)
    fprintf(stderr, "total %d (expected %d), %u copies of %llu bytes\n", *total_host,
            expected_total, seen.count, (unsigned long long)seen.bytes);

done:
  clgpu_membuf_destroy(total);
  clgpu_membuf_destroy(data);
  clgpu_context_destroy(ctx);
  if (rc == 0) printf("membuf_moves: ok\n");
  return rc;
}
