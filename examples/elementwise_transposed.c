/* elementwise_transposed: an elementwise kernel over a transposed view.
 *
 * A view is a buffer, an offset, a shape and strides (in elements), so the
 * transpose of a row-major matrix is the same memory with its shape and
 * strides swapped: no copy. Elementwise kernels take views of any layout,
 * so B = 2 * A^T is one kernel run over a plain B and a transposed A, and
 * the library builds a kernel for that pair of layouts at the first run.
 * The result is checked on the host. */
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

enum { ROWS = 300, COLS = 200 }; /* A is ROWS x COLS, B = 2 * A^T is COLS x ROWS */

static float a_host[ROWS][COLS], b_host[COLS][ROWS];

int main(void) {
  clgpu_elementwise_arg args[] = {{"b", CLGPU_ARG_OUT, CLGPU_TYPE_FLOAT},
                                  {"scale", CLGPU_ARG_SCALAR, CLGPU_TYPE_FLOAT},
                                  {"a", CLGPU_ARG_IN, CLGPU_TYPE_FLOAT}};
  const float scale = 2.0f;
  size_t a_shape[2] = {ROWS, COLS}, b_shape[2] = {COLS, ROWS};
  size_t at_shape[2] = {COLS, ROWS};   /* A^T: COLS x ROWS ... */
  ptrdiff_t at_strides[2] = {1, COLS}; /* ... whose row j is column j of A */
  clgpu_context *ctx = NULL;
  clgpu_elementwise *scaled = NULL;
  cl_mem a_mem = NULL, b_mem = NULL;
  clgpu_array a, a_transposed, same_thing, b;
  clgpu_elementwise_value values[] = {{.array = &b}, {.scalar = &scale}, {.array = &a_transposed}};
  int rc = 1;

  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++) a_host[r][c] = (float)(r * COLS + c); /* exact in float */

  CHECK(clgpu_context_create(NULL, &ctx));
  CHECK(clgpu_buffer_create(ctx, CL_MEM_READ_WRITE, sizeof a_host, &a_mem));
  CHECK(clgpu_buffer_create(ctx, CL_MEM_READ_WRITE, sizeof b_host, &b_mem));

  /* A and B: contiguous row-major matrices, as C lays out a_host and b_host. */
  CHECK(clgpu_array_nd(a_mem, 0, CLGPU_TYPE_FLOAT, 2, a_shape, CLGPU_ORDER_ROW_MAJOR, &a));
  CHECK(clgpu_array_nd(b_mem, 0, CLGPU_TYPE_FLOAT, 2, b_shape, CLGPU_ORDER_ROW_MAJOR, &b));

  /* A^T over A's memory: element (j, i) is at j * 1 + i * COLS, which is A[i][j]. */
  CHECK(clgpu_array_strided(a_mem, 0, CLGPU_TYPE_FLOAT, 2, at_shape, at_strides, &a_transposed));
  /* clgpu_array_transpose derives the same view from A. */
  CHECK(clgpu_array_transpose(&a, &same_thing));
  if (!clgpu_array_same(&a_transposed, &same_thing)) {
    fprintf(stderr, "the two transposed views differ\n");
    goto done;
  }

  CHECK(clgpu_array_write(ctx, &a, a_host, sizeof a_host, 0, NULL));

  /* The kernel object: made once, run over any layouts. In the operation each
   * array argument is a variable holding the current element. */
  CHECK(clgpu_elementwise_create(ctx, "b = scale * a;", 3, args, NULL, &scaled));
  CHECK(clgpu_elementwise_run(scaled, values, 0, NULL, NULL)); /* only enqueues */

  /* Read B back (waits for the kernel) and check every element. */
  CHECK(clgpu_array_read(ctx, b_host, sizeof b_host, &b, 0, NULL));
  rc = 0;
  for (int c = 0; c < COLS && rc == 0; c++) {
    for (int r = 0; r < ROWS; r++) {
      if (b_host[c][r] != scale * a_host[r][c]) {
        fprintf(stderr, "B[%d][%d] = %g, expected %g\n", c, r, b_host[c][r], scale * a_host[r][c]);
        rc = 1;
        break;
      }
    }
  }

done:
  clgpu_elementwise_destroy(scaled);
  clgpu_buffer_release(ctx, b_mem);
  clgpu_buffer_release(ctx, a_mem);
  clgpu_context_destroy(ctx);
  if (rc == 0) printf("elementwise_transposed: ok\n");
  return rc;
}
