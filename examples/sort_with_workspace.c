/* sort_with_workspace: a key-value sort whose scratch memory is made once.
 *
 * Every operation that needs scratch memory can take a workspace: ask how
 * much the call needs (clgpu_sort_workspace_size), make it
 * (clgpu_workspace_create), and pass it in the options. A call given a
 * fitting workspace allocates nothing on the device, so a loop of sorts can
 * reuse one. Here one sort of a few thousand keys carries each key's
 * original position along as its value; the sort is stable, so equal keys
 * keep their order, which the host reference (qsort by key, then position)
 * checks. */
#include <stdio.h>
#include <stdlib.h>
#include <clgpu/clgpu.h>

#define CHECK(call)                                                                           \
  do {                                                                                        \
    clgpu_status status_ = (call);                                                            \
    if (status_ != CLGPU_SUCCESS) {                                                           \
      fprintf(stderr, "%s: %s: %s\n", #call, clgpu_status_name(status_), clgpu_last_error()); \
      goto done;                                                                              \
    }                                                                                         \
  } while (0)

enum { N = 5000 };

/* A key and its value (the key's position before the sort). */
typedef struct pair {
  cl_uint key, value;
} pair;

static int by_key_then_value(const void *a, const void *b) {
  const pair *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->value < y->value ? -1 : x->value > y->value;
}

static cl_uint keys_host[N], values_host[N];
static pair expected[N];

int main(void) {
  clgpu_context *ctx = NULL;
  cl_mem keys_mem = NULL, values_mem = NULL;
  clgpu_workspace *workspace = NULL;
  clgpu_workspace_size report;
  clgpu_array keys, values;
  clgpu_sort_options options = {0}; /* automatic algorithm and shape, no workspace yet */
  int rc = 1;

  /* Keys from a small range, so that many are equal; values 0, 1, 2, ... */
  srand(1);
  for (cl_uint k = 0; k < N; k++) {
    keys_host[k] = (cl_uint)rand() % 500;
    values_host[k] = k;
    expected[k] = (pair){keys_host[k], k};
  }
  qsort(expected, N, sizeof expected[0], by_key_then_value); /* = a stable sort by key */

  CHECK(clgpu_context_create(NULL, &ctx));
  CHECK(clgpu_buffer_create(ctx, CL_MEM_READ_WRITE, sizeof keys_host, &keys_mem));
  CHECK(clgpu_buffer_create(ctx, CL_MEM_READ_WRITE, sizeof values_host, &values_mem));
  CHECK(clgpu_array_1d(keys_mem, 0, CLGPU_TYPE_UINT32, N, &keys));
  CHECK(clgpu_array_1d(values_mem, 0, CLGPU_TYPE_UINT32, N, &values));
  CHECK(clgpu_array_write(ctx, &keys, keys_host, sizeof keys_host, 0, NULL));
  CHECK(clgpu_array_write(ctx, &values, values_host, sizeof values_host, 0, NULL));

  /* 1. Ask what this very call needs: the same arguments as clgpu_sort. The
   *    report names each scratch buffer; total_bytes is what gets allocated.
   *    (clgpu_sort_workspace_size_upto sizes one for every sort up to n keys.) */
  CHECK(clgpu_sort_workspace_size(ctx, NULL, &keys, &values, &options, &report));
  printf("workspace: %llu bytes in %u buffers, %s sort\n", (unsigned long long)report.total_bytes,
         report.num_buffers, clgpu_algorithm_name(report.parts[0].algorithm));

  /* 2. Make it, and hand it to the call through the options. */
  CHECK(clgpu_workspace_create(ctx, &report, &workspace));
  options.workspace = workspace;

  /* 3. Sort the keys ascending (spec NULL), the values moving with them. */
  CHECK(clgpu_sort(ctx, NULL, &keys, &values, &options, 0, NULL, NULL));

  /* 4. Read back (waits for the sort) and compare with the host's stable sort. */
  CHECK(clgpu_array_read(ctx, keys_host, sizeof keys_host, &keys, 0, NULL));
  CHECK(clgpu_array_read(ctx, values_host, sizeof values_host, &values, 0, NULL));
  rc = 0;
  for (size_t k = 0; k < N; k++) {
    if (keys_host[k] != expected[k].key || values_host[k] != expected[k].value) {
      fprintf(stderr, "at %zu: key %u value %u, expected key %u value %u\n", k, keys_host[k],
              values_host[k], expected[k].key, expected[k].value);
      rc = 1;
      break;
    }
  }

done:
  /* A workspace holds no reference to the context: destroy it either side. */
  clgpu_workspace_destroy(workspace);
  clgpu_buffer_release(ctx, values_mem);
  clgpu_buffer_release(ctx, keys_mem);
  clgpu_context_destroy(ctx);
  if (rc == 0) printf("sort_with_workspace: ok\n");
  return rc;
}
