/* Array views against a host model: every derivation is checked by listing
 * the byte address of each element in row-major index order and comparing
 * with what the derivation must give (hand-written index lists for slices,
 * index arithmetic for the rest); extent checks at the exact end of the
 * buffer; memory location through sub-buffers; the aliasing truth table. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* ---- the host model: element addresses in row-major index order ---- */

typedef struct addresses {
  size_t count;
  int64_t *byte; /* from the start of the view's buffer */
} addresses;

static addresses list_addresses(const clgpu_array *view) {
  addresses list = {clgpu_array_count(view), NULL};
  list.byte = calloc(list.count ? list.count : 1, sizeof *list.byte);
  assert_non_null(list.byte);
  size_t index[CLGPU_MAX_RANK] = {0};
  int64_t size = (int64_t)clgpu_type_size(view->type);
  for (size_t e = 0; e < list.count; e++) {
    int64_t at = (int64_t)view->offset;
    for (unsigned d = 0; d < view->rank; d++) at += (int64_t)index[d] * view->strides[d] * size;
    list.byte[e] = at;
    for (unsigned d = view->rank; d-- > 0;) {
      if (++index[d] < view->shape[d]) break;
      index[d] = 0;
    }
  }
  return list;
}

static cl_mem make_buffer(clgpu_context *context, size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem buffer =
      clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE, bytes, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  return buffer;
}

/* ---- slicing against hand-written Python results ---- */

typedef struct slice_row {
  const char *python; /* the same slice in Python, for the failure message */
  clgpu_slice slice;
  size_t count;
  size_t indices[12];
} slice_row;

#define B CLGPU_SLICE_BEGIN
#define E CLGPU_SLICE_END

static void slices_follow_python(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  cl_mem buffer = make_buffer(context, 4096);
  /* x = list(range(10)) in Python; each row is x[python]. */
  static const slice_row rows[] = {
      {"x[:]", {B, E, 1}, 10, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
      {"x[::2]", {B, E, 2}, 5, {0, 2, 4, 6, 8}},
      {"x[1::2]", {1, E, 2}, 5, {1, 3, 5, 7, 9}},
      {"x[::-1]", {B, E, -1}, 10, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
      {"x[::-3]", {B, E, -3}, 4, {9, 6, 3, 0}},
      {"x[-3:]", {-3, E, 1}, 3, {7, 8, 9}},
      {"x[8:2:-3]", {8, 2, -3}, 2, {8, 5}},
      {"x[1:-1:4]", {1, -1, 4}, 2, {1, 5}},
      {"x[100:]", {100, E, 1}, 0, {0}},
      {"x[-100:3]", {-100, 3, 1}, 3, {0, 1, 2}},
      {"x[5:5]", {5, 5, 1}, 0, {0}},
      {"x[-1:-11:-1]", {-1, -11, -1}, 10, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
      {"x[-1:-12:-1]", {-1, -12, -1}, 10, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}},
      {"x[3::-1]", {3, E, -1}, 4, {3, 2, 1, 0}},
      {"x[:3:-1]", {B, 3, -1}, 6, {9, 8, 7, 6, 5, 4}},
      {"x[20:5:-2]", {20, 5, -2}, 2, {9, 7}},
      {"x[2:8:100]", {2, 8, 100}, 1, {2}},
      {"x[0:-20:-1]", {0, -20, -1}, 1, {0}},
  };
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    /* Through a view that is itself offset and strided: x = base[4::3]. */
    clgpu_array base, x, sliced;
    assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_INT32, 40, &base), CLGPU_SUCCESS);
    clgpu_slice every_third = {4, E, 3};
    assert_status(clgpu_array_slice(&base, &every_third, &x), CLGPU_SUCCESS);
    clgpu_slice first_ten = {0, 10, 1};
    assert_status(clgpu_array_slice(&x, &first_ten, &x), CLGPU_SUCCESS);
    assert_int_equal(x.shape[0], 10);
    assert_status(clgpu_array_slice(&x, &rows[r].slice, &sliced), CLGPU_SUCCESS);
    size_t expected_count = rows[r].count;
    if (clgpu_array_count(&sliced) != expected_count) {
      fail_msg("%s: %zu elements, Python gives %zu", rows[r].python, clgpu_array_count(&sliced),
               expected_count);
    }
    addresses got = list_addresses(&sliced);
    for (size_t i = 0; i < expected_count; i++) {
      int64_t expected = (int64_t)(4 + 3 * rows[r].indices[i]) * 4;
      if (got.byte[i] != expected) {
        fail_msg("%s: element %zu at byte %lld, expected %lld (x[%zu])", rows[r].python, i,
                 (long long)got.byte[i], (long long)expected, rows[r].indices[i]);
      }
    }
    free(got.byte);
  }
  clgpu_slice zero_step = {B, E, 0};
  clgpu_array x, out = {0};
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_INT32, 10, &x), CLGPU_SUCCESS);
  assert_status(clgpu_array_slice(&x, &zero_step, &out), CLGPU_INVALID_ARGUMENT);
  assert_null(out.buffer);
  clReleaseMemObject(buffer);
  clgpu_context_destroy(context);
}

/* A 2-D slice: rows and columns at once, against index arithmetic. */
static void two_dimensional_slices(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  cl_mem buffer = make_buffer(context, 8 * 6 * 7);
  clgpu_array m, s;
  size_t shape[2] = {6, 7};
  assert_status(clgpu_array_nd(buffer, 0, CLGPU_TYPE_DOUBLE, 2, shape, CLGPU_ORDER_ROW_MAJOR, &m),
                CLGPU_SUCCESS);
  clgpu_slice slices[2] = {{B, E, -2}, {1, 6, 2}}; /* rows 5, 3, 1; columns 1, 3, 5 */
  assert_status(clgpu_array_slice(&m, slices, &s), CLGPU_SUCCESS);
  assert_int_equal(s.shape[0], 3);
  assert_int_equal(s.shape[1], 3);
  addresses got = list_addresses(&s);
  static const size_t rows[3] = {5, 3, 1}, columns[3] = {1, 3, 5};
  for (size_t i = 0; i < 3; i++) {
    for (size_t j = 0; j < 3; j++) {
      assert_int_equal(got.byte[i * 3 + j], (int64_t)((rows[i] * 7 + columns[j]) * 8));
    }
  }
  free(got.byte);
  clReleaseMemObject(buffer);
  clgpu_context_destroy(context);
}

#undef B
#undef E

/* ---- reshape, permute, transpose, broadcast, reinterpret ---- */

static void reshape_keeps_row_major_order(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  cl_mem buffer = make_buffer(context, 4 * 240);
  size_t shape[3] = {4, 6, 10};
  clgpu_array a;
  assert_status(clgpu_array_nd(buffer, 0, CLGPU_TYPE_FLOAT, 3, shape, CLGPU_ORDER_ROW_MAJOR, &a),
                CLGPU_SUCCESS);
  /* Strided sources: every other column, every other row, a reversed one and
   * a column-major one. */
  clgpu_array every_other, every_other_row, reversed, column_major;
  clgpu_slice half[3] = {CLGPU_SLICE_ALL, CLGPU_SLICE_ALL, {CLGPU_SLICE_BEGIN, CLGPU_SLICE_END, 2}};
  assert_status(clgpu_array_slice(&a, half, &every_other), CLGPU_SUCCESS);
  clgpu_slice half_rows[3] = {
      CLGPU_SLICE_ALL, {CLGPU_SLICE_BEGIN, CLGPU_SLICE_END, 2}, CLGPU_SLICE_ALL};
  assert_status(clgpu_array_slice(&a, half_rows, &every_other_row), CLGPU_SUCCESS);
  clgpu_slice backwards[3] = {
      {CLGPU_SLICE_BEGIN, CLGPU_SLICE_END, -1}, CLGPU_SLICE_ALL, CLGPU_SLICE_ALL};
  assert_status(clgpu_array_slice(&a, backwards, &reversed), CLGPU_SUCCESS);
  assert_status(clgpu_array_nd(buffer, 0, CLGPU_TYPE_FLOAT, 3, shape, CLGPU_ORDER_COLUMN_MAJOR,
                               &column_major),
                CLGPU_SUCCESS);

  typedef struct reshape_row {
    const char *name;
    const clgpu_array *in;
    unsigned rank;
    size_t shape[4];
    clgpu_status expected;
  } reshape_row;
  const reshape_row rows[] = {
      {"contiguous to 1-D", &a, 1, {240}, CLGPU_SUCCESS},
      {"contiguous to 4-D", &a, 4, {2, 2, 6, 10}, CLGPU_SUCCESS},
      {"contiguous with ones", &a, 4, {1, 24, 1, 10}, CLGPU_SUCCESS},
      {"every other column: merge rows", &every_other, 2, {24, 5}, CLGPU_SUCCESS},
      {"every other column: split rows", &every_other, 4, {2, 2, 6, 5}, CLGPU_SUCCESS},
      /* Every other column is a lattice of stride 2 over the whole array. */
      {"every other column: flatten", &every_other, 1, {120}, CLGPU_SUCCESS},
      {"every other row: merge the first two axes", &every_other_row, 2, {12, 10}, CLGPU_SUCCESS},
      {"every other row: flatten", &every_other_row, 1, {120}, CLGPU_RESHAPE_NEEDS_COPY},
      {"every other row: merge the last two axes",
       &every_other_row,
       2,
       {4, 30},
       CLGPU_RESHAPE_NEEDS_COPY},
      {"reversed first axis: merge the rest", &reversed, 2, {4, 60}, CLGPU_SUCCESS},
      {"reversed first axis: flatten", &reversed, 1, {240}, CLGPU_RESHAPE_NEEDS_COPY},
      {"column-major: flatten", &column_major, 1, {240}, CLGPU_RESHAPE_NEEDS_COPY},
      {"column-major: split the last axis", &column_major, 4, {4, 6, 2, 5}, CLGPU_SUCCESS},
      {"count differs", &a, 2, {7, 7}, CLGPU_INVALID_ARGUMENT},
  };
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    clgpu_array out;
    clgpu_status status = clgpu_array_reshape(rows[r].in, rows[r].rank, rows[r].shape, &out);
    if (status != rows[r].expected) {
      fail_msg("reshape \"%s\": %s, expected %s (%s)", rows[r].name, clgpu_status_name(status),
               clgpu_status_name(rows[r].expected), clgpu_last_error());
    }
    if (status != CLGPU_SUCCESS) continue;
    /* The same elements in the same row-major order. */
    addresses before = list_addresses(rows[r].in), after = list_addresses(&out);
    assert_int_equal(before.count, after.count);
    for (size_t i = 0; i < before.count; i++) {
      if (before.byte[i] != after.byte[i]) {
        fail_msg("reshape \"%s\": element %zu moved from byte %lld to %lld", rows[r].name, i,
                 (long long)before.byte[i], (long long)after.byte[i]);
      }
    }
    free(before.byte);
    free(after.byte);
  }
  /* A reversed 1-D view flattens in its own (reversed) order. */
  clgpu_array line, back, flat;
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_FLOAT, 12, &line), CLGPU_SUCCESS);
  clgpu_slice reverse = {CLGPU_SLICE_BEGIN, CLGPU_SLICE_END, -1};
  assert_status(clgpu_array_slice(&line, &reverse, &back), CLGPU_SUCCESS);
  size_t three_four[2] = {3, 4};
  assert_status(clgpu_array_reshape(&back, 2, three_four, &flat), CLGPU_SUCCESS);
  addresses got = list_addresses(&flat);
  for (size_t i = 0; i < 12; i++) assert_int_equal(got.byte[i], (int64_t)(11 - i) * 4);
  free(got.byte);
  clReleaseMemObject(buffer);
  clgpu_context_destroy(context);
}

static void permute_transpose_broadcast(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  cl_mem buffer = make_buffer(context, 2 * 60);
  size_t shape[3] = {3, 4, 5};
  clgpu_array a, p, t, b;
  assert_status(clgpu_array_nd(buffer, 0, CLGPU_TYPE_UINT16, 3, shape, CLGPU_ORDER_ROW_MAJOR, &a),
                CLGPU_SUCCESS);
  unsigned axes[3] = {2, 0, 1};
  assert_status(clgpu_array_permute(&a, axes, &p), CLGPU_SUCCESS);
  assert_status(clgpu_array_transpose(&a, &t), CLGPU_SUCCESS);
  addresses pa = list_addresses(&p), ta = list_addresses(&t);
  for (size_t i = 0; i < 5; i++) {
    for (size_t j = 0; j < 3; j++) {
      for (size_t k = 0; k < 4; k++) {
        /* p[i][j][k] = a[j][k][i] */
        assert_int_equal(pa.byte[(i * 3 + j) * 4 + k], (int64_t)((j * 4 + k) * 5 + i) * 2);
      }
    }
  }
  for (size_t i = 0; i < 5; i++) {
    for (size_t j = 0; j < 4; j++) {
      for (size_t k = 0; k < 3; k++) {
        assert_int_equal(ta.byte[(i * 4 + j) * 3 + k], (int64_t)((k * 4 + j) * 5 + i) * 2);
      }
    }
  }
  free(pa.byte);
  free(ta.byte);
  unsigned repeated[3] = {0, 0, 1};
  assert_status(clgpu_array_permute(&a, repeated, &p), CLGPU_INVALID_ARGUMENT);
  unsigned too_large[3] = {0, 1, 3};
  assert_status(clgpu_array_permute(&a, too_large, &p), CLGPU_INVALID_ARGUMENT);

  /* Broadcast a (4, 1) column to (2, 4, 3). */
  clgpu_array column;
  size_t column_shape[2] = {4, 1};
  assert_status(
      clgpu_array_nd(buffer, 2, CLGPU_TYPE_UINT16, 2, column_shape, CLGPU_ORDER_ROW_MAJOR, &column),
      CLGPU_SUCCESS);
  size_t wide[3] = {2, 4, 3};
  assert_status(clgpu_array_broadcast(&column, 3, wide, &b), CLGPU_SUCCESS);
  addresses ba = list_addresses(&b);
  for (size_t i = 0; i < 2; i++) {
    for (size_t j = 0; j < 4; j++) {
      for (size_t k = 0; k < 3; k++)
        assert_int_equal(ba.byte[(i * 4 + j) * 3 + k], 2 + 2 * (int64_t)j);
    }
  }
  free(ba.byte);
  size_t mismatched[2] = {5, 3};
  assert_status(clgpu_array_broadcast(&column, 2, mismatched, &b), CLGPU_BROADCAST_IMPOSSIBLE);
  size_t smaller_rank[1] = {4};
  assert_status(clgpu_array_broadcast(&column, 1, smaller_rank, &b), CLGPU_INVALID_ARGUMENT);
  clReleaseMemObject(buffer);
  clgpu_context_destroy(context);
}

static void reinterpret_rules(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  cl_mem buffer = make_buffer(context, 256);
  clgpu_array bytes, words, back, matrix, as_pairs, strided, out;
  assert_status(clgpu_array_1d(buffer, 16, CLGPU_TYPE_UINT8, 32, &bytes), CLGPU_SUCCESS);
  assert_status(clgpu_array_reinterpret(&bytes, CLGPU_TYPE_UINT32, &words), CLGPU_SUCCESS);
  assert_int_equal(words.shape[0], 8);
  assert_int_equal(words.offset, 16);
  assert_status(clgpu_array_reinterpret(&words, CLGPU_TYPE_FLOAT, &back), CLGPU_SUCCESS);
  assert_int_equal(back.shape[0], 8);
  assert_status(clgpu_array_reinterpret(&words, CLGPU_TYPE_INT8, &back), CLGPU_SUCCESS);
  assert_int_equal(back.shape[0], 32);
  /* A (4, 8) float matrix seen as (4, 4) doubles: rows keep their 32 bytes. */
  size_t shape[2] = {4, 8};
  assert_status(
      clgpu_array_nd(buffer, 0, CLGPU_TYPE_FLOAT, 2, shape, CLGPU_ORDER_ROW_MAJOR, &matrix),
      CLGPU_SUCCESS);
  assert_status(clgpu_array_reinterpret(&matrix, CLGPU_TYPE_DOUBLE, &as_pairs), CLGPU_SUCCESS);
  assert_int_equal(as_pairs.shape[1], 4);
  assert_int_equal(as_pairs.strides[0], 4);
  addresses got = list_addresses(&as_pairs);
  for (size_t i = 0; i < 16; i++) assert_int_equal(got.byte[i], (int64_t)i * 8);
  free(got.byte);
  typedef struct row {
    const char *name;
    const clgpu_array *in;
    clgpu_type type;
  } row;
  clgpu_slice odd = {1, CLGPU_SLICE_END, 2};
  assert_status(clgpu_array_slice(&words, &odd, &strided), CLGPU_SUCCESS);
  clgpu_array misaligned, odd_length;
  assert_status(clgpu_array_1d(buffer, 2, CLGPU_TYPE_UINT8, 8, &misaligned), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT8, 6, &odd_length), CLGPU_SUCCESS);
  const row impossible[] = {
      {"strided last dimension", &strided, CLGPU_TYPE_UINT8},
      {"offset not aligned to the new size", &misaligned, CLGPU_TYPE_UINT32},
      {"length not a multiple of the new size", &odd_length, CLGPU_TYPE_UINT32},
  };
  for (size_t r = 0; r < sizeof impossible / sizeof impossible[0]; r++) {
    clgpu_status status = clgpu_array_reinterpret(impossible[r].in, impossible[r].type, &out);
    if (status != CLGPU_REINTERPRET_IMPOSSIBLE) {
      fail_msg("reinterpret \"%s\": %s", impossible[r].name, clgpu_status_name(status));
    }
  }
  clReleaseMemObject(buffer);
  clgpu_context_destroy(context);
}

/* ---- extents at the exact end of the buffer ---- */

typedef struct extent_row {
  const char *name;
  size_t offset;
  clgpu_type type;
  size_t shape;
  ptrdiff_t stride;
  clgpu_status expected;
} extent_row;

static void extents_at_the_buffer_boundary(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  cl_mem buffer = make_buffer(context, 1000);
  static const extent_row rows[] = {
      {"exactly fills", 0, CLGPU_TYPE_UINT32, 250, 1, CLGPU_SUCCESS},
      {"one element over", 0, CLGPU_TYPE_UINT32, 251, 1, CLGPU_VIEW_OUT_OF_BOUNDS},
      {"offset, exactly fills", 4, CLGPU_TYPE_UINT32, 249, 1, CLGPU_SUCCESS},
      {"offset, one element over", 4, CLGPU_TYPE_UINT32, 250, 1, CLGPU_VIEW_OUT_OF_BOUNDS},
      {"bytes, exactly fills", 1, CLGPU_TYPE_UINT8, 999, 1, CLGPU_SUCCESS},
      {"bytes, one byte over", 1, CLGPU_TYPE_UINT8, 1000, 1, CLGPU_VIEW_OUT_OF_BOUNDS},
      {"reversed, reaches byte 0", 996, CLGPU_TYPE_UINT32, 250, -1, CLGPU_SUCCESS},
      {"reversed, one before the start", 996, CLGPU_TYPE_UINT32, 251, -1, CLGPU_VIEW_OUT_OF_BOUNDS},
      {"stride 3, last element fits", 0, CLGPU_TYPE_UINT32, 84, 3, CLGPU_SUCCESS},
      {"stride 3, one more", 0, CLGPU_TYPE_UINT32, 85, 3, CLGPU_VIEW_OUT_OF_BOUNDS},
      {"broadcast", 996, CLGPU_TYPE_UINT32, 1000000, 0, CLGPU_SUCCESS},
      {"misaligned offset", 2, CLGPU_TYPE_UINT32, 1, 1, CLGPU_MISALIGNED_VIEW},
      {"empty at the end", 1000, CLGPU_TYPE_UINT32, 0, 1, CLGPU_SUCCESS},
      {"empty past the end", 1004, CLGPU_TYPE_UINT32, 0, 1, CLGPU_VIEW_OUT_OF_BOUNDS},
      {"huge extent", 0, CLGPU_TYPE_UINT64, SIZE_MAX, 1, CLGPU_VIEW_OUT_OF_BOUNDS},
      {"huge stride", 0, CLGPU_TYPE_UINT8, 2, PTRDIFF_MAX, CLGPU_VIEW_OUT_OF_BOUNDS},
      {"most negative stride", 0, CLGPU_TYPE_UINT8, 2, PTRDIFF_MIN, CLGPU_VIEW_OUT_OF_BOUNDS},
      {"offset near SIZE_MAX", SIZE_MAX - 7, CLGPU_TYPE_UINT64, 1, 1, CLGPU_VIEW_OUT_OF_BOUNDS},
  };
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    clgpu_array out;
    memset(&out, 0x5A, sizeof out);
    clgpu_array untouched = out;
    clgpu_status status = clgpu_array_strided(buffer, rows[r].offset, rows[r].type, 1,
                                              &rows[r].shape, &rows[r].stride, &out);
    if (status != rows[r].expected) {
      fail_msg("extent \"%s\": %s, expected %s (%s)", rows[r].name, clgpu_status_name(status),
               clgpu_status_name(rows[r].expected), clgpu_last_error());
    }
    if (status != CLGPU_SUCCESS) {
      /* A failed constructor leaves its output alone. */
      assert_memory_equal(&out, &untouched, sizeof out);
      assert_true(strlen(clgpu_last_error()) > 0);
    }
    /* The short form checks nothing; its first check finds the same. */
    clgpu_array short_form =
        clgpu_array_of_strided(buffer, rows[r].offset, rows[r].type, rows[r].shape, rows[r].stride);
    clgpu_status checked = clgpu_array_check(&short_form);
    if (checked != rows[r].expected) {
      fail_msg("extent \"%s\", short form: %s, expected %s (%s)", rows[r].name,
               clgpu_status_name(checked), clgpu_status_name(rows[r].expected), clgpu_last_error());
    }
    if (status == CLGPU_SUCCESS) assert_true(clgpu_array_same(&short_form, &out));
  }
  /* The contiguous short form is clgpu_array_1d's view from byte 0. */
  clgpu_array made, short_made = clgpu_array_of(buffer, CLGPU_TYPE_FLOAT, 250);
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_FLOAT, 250, &made), CLGPU_SUCCESS);
  assert_true(clgpu_array_same(&made, &short_made));
  assert_status(clgpu_array_check(&short_made), CLGPU_SUCCESS);
  clgpu_array no_buffer = clgpu_array_of(NULL, CLGPU_TYPE_FLOAT, 4);
  assert_status(clgpu_array_check(&no_buffer), CLGPU_INVALID_ARGUMENT);
  clgpu_array unknown_type = clgpu_array_of(buffer, (clgpu_type)99, 4);
  assert_status(clgpu_array_check(&unknown_type), CLGPU_INVALID_ARGUMENT);
  /* A view edited by hand after it was made is caught when used. */
  clgpu_array view;
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT32, 250, &view), CLGPU_SUCCESS);
  view.shape[0] = 251;
  assert_status(clgpu_array_check(&view), CLGPU_VIEW_OUT_OF_BOUNDS);
  view.shape[0] = 1;
  view.type = (clgpu_type)99;
  assert_status(clgpu_array_check(&view), CLGPU_INVALID_ARGUMENT);
  view.type = CLGPU_TYPE_UINT32;
  view.rank = CLGPU_MAX_RANK + 1;
  assert_status(clgpu_array_check(&view), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_array_check(NULL), CLGPU_INVALID_ARGUMENT);
  clReleaseMemObject(buffer);
  clgpu_context_destroy(context);
}

/* ---- memory location ---- */

static size_t base_alignment_bytes(clgpu_context *context) {
  return clgpu_context_device_info(context)->mem_base_addr_align_bits / 8;
}

static cl_mem make_sub_buffer(cl_mem parent, size_t origin, size_t size, cl_int *err) {
  cl_buffer_region region = {origin, size};
  return clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, err);
}

static void location_resolves_sub_buffers(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  size_t align = base_alignment_bytes(context);
  cl_mem parent = make_buffer(context, 8 * align);
  cl_int err = CL_SUCCESS;
  cl_mem sub = make_sub_buffer(parent, 2 * align, 4 * align, &err);
  assert_int_equal(err, CL_SUCCESS);
  clgpu_array view, reversed;
  assert_status(clgpu_array_1d(sub, 8, CLGPU_TYPE_INT32, 10, &view), CLGPU_SUCCESS);
  clgpu_location where;
  assert_status(clgpu_array_location(&view, &where), CLGPU_SUCCESS);
  assert_ptr_equal(where.base, parent);
  assert_int_equal(where.offset, 2 * align + 8);
  assert_int_equal(where.first, 2 * align + 8);
  assert_int_equal(where.end, 2 * align + 8 + 40);
  /* A derived view reports the same base and its own offset and range. */
  clgpu_slice backwards = {CLGPU_SLICE_BEGIN, CLGPU_SLICE_END, -1};
  assert_status(clgpu_array_slice(&view, &backwards, &reversed), CLGPU_SUCCESS);
  assert_status(clgpu_array_location(&reversed, &where), CLGPU_SUCCESS);
  assert_ptr_equal(where.base, parent);
  assert_int_equal(where.offset, 2 * align + 8 + 36);
  assert_int_equal(where.first, 2 * align + 8);
  assert_int_equal(where.end, 2 * align + 8 + 40);
  /* OpenCL forbids a sub-buffer of a sub-buffer: the implementation must
   * refuse it. (If one allowed it, location would still follow the chain.) */
  cl_mem nested = make_sub_buffer(sub, align, align, &err);
  if (err == CL_SUCCESS) {
    clgpu_array deep;
    assert_status(clgpu_array_1d(nested, 0, CLGPU_TYPE_INT32, 1, &deep), CLGPU_SUCCESS);
    assert_status(clgpu_array_location(&deep, &where), CLGPU_SUCCESS);
    assert_ptr_equal(where.base, parent);
    assert_int_equal(where.offset, 3 * align);
    clReleaseMemObject(nested);
  } else {
    assert_int_equal(err, CL_INVALID_MEM_OBJECT);
  }
  clReleaseMemObject(sub);
  clReleaseMemObject(parent);
  clgpu_context_destroy(context);
}

/* ---- aliasing ---- */

typedef struct alias_row {
  const char *name;
  clgpu_array a;
  clgpu_array b;
  int expected;
} alias_row;

static clgpu_array slice_1d(const clgpu_array *x, ptrdiff_t start, ptrdiff_t stop, ptrdiff_t step) {
  clgpu_array out;
  clgpu_slice slice = {start, stop, step};
  assert_status(clgpu_array_slice(x, &slice, &out), CLGPU_SUCCESS);
  return out;
}

static void aliasing_truth_table(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  size_t align = base_alignment_bytes(context);
  cl_mem buffer = make_buffer(context, 64 * align);
  cl_mem other = make_buffer(context, 64 * align);
  cl_int err = CL_SUCCESS;
  cl_mem sub = make_sub_buffer(buffer, 4 * align, 4 * align, &err);
  assert_int_equal(err, CL_SUCCESS);
  /* Two USE_HOST_PTR buffers over overlapping host memory, and one apart. */
  size_t host_bytes = 64 * 1024;
  unsigned char *host = aligned_alloc(4096, host_bytes);
  assert_non_null(host);
  cl_context cl = clgpu_context_cl_context(context);
  cl_mem host_a = clCreateBuffer(cl, CL_MEM_USE_HOST_PTR, 8192, host, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_mem host_b = clCreateBuffer(cl, CL_MEM_USE_HOST_PTR, 8192, host + 4096, &err);
  assert_int_equal(err, CL_SUCCESS);
  cl_mem host_c = clCreateBuffer(cl, CL_MEM_USE_HOST_PTR, 8192, host + 32768, &err);
  assert_int_equal(err, CL_SUCCESS);

  clgpu_array x, y, s, ha, hb, hc, m, empty;
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_FLOAT, 1000, &x), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(other, 0, CLGPU_TYPE_FLOAT, 1000, &y), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(sub, 0, CLGPU_TYPE_FLOAT, align, &s), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(host_a, 0, CLGPU_TYPE_UINT8, 8192, &ha), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(host_b, 0, CLGPU_TYPE_UINT8, 8192, &hb), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(host_c, 0, CLGPU_TYPE_UINT8, 8192, &hc), CLGPU_SUCCESS);
  size_t matrix_shape[2] = {10, 8};
  assert_status(
      clgpu_array_nd(buffer, 0, CLGPU_TYPE_FLOAT, 2, matrix_shape, CLGPU_ORDER_ROW_MAJOR, &m),
      CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(buffer, 40, CLGPU_TYPE_FLOAT, 0, &empty), CLGPU_SUCCESS);
  clgpu_array column0, column1, row0, row1, transposed;
  clgpu_slice first_column[2] = {CLGPU_SLICE_ALL, {0, 1, 1}};
  clgpu_slice second_column[2] = {CLGPU_SLICE_ALL, {1, 2, 1}};
  clgpu_slice first_row[2] = {{0, 1, 1}, CLGPU_SLICE_ALL};
  clgpu_slice second_row[2] = {{1, 2, 1}, CLGPU_SLICE_ALL};
  assert_status(clgpu_array_slice(&m, first_column, &column0), CLGPU_SUCCESS);
  assert_status(clgpu_array_slice(&m, second_column, &column1), CLGPU_SUCCESS);
  assert_status(clgpu_array_slice(&m, first_row, &row0), CLGPU_SUCCESS);
  assert_status(clgpu_array_slice(&m, second_row, &row1), CLGPU_SUCCESS);
  assert_status(clgpu_array_transpose(&m, &transposed), CLGPU_SUCCESS);
  clgpu_array x_as_bytes;
  assert_status(clgpu_array_reinterpret(&x, CLGPU_TYPE_UINT8, &x_as_bytes), CLGPU_SUCCESS);
  size_t sub_start = 4 * align / 4; /* sub-buffer's first float, in x's elements */

  const alias_row rows[] = {
      {"same view", x, x, 1},
      {"overlapping slices", slice_1d(&x, 0, 10, 1), slice_1d(&x, 5, 15, 1), 1},
      {"adjacent slices", slice_1d(&x, 0, 10, 1), slice_1d(&x, 10, 20, 1), 0},
      {"interleaved x[0::2], x[1::2]", slice_1d(&x, 0, CLGPU_SLICE_END, 2),
       slice_1d(&x, 1, CLGPU_SLICE_END, 2), 0},
      {"sharing x[0::2], x[2::2]", slice_1d(&x, 0, CLGPU_SLICE_END, 2),
       slice_1d(&x, 2, CLGPU_SLICE_END, 2), 1},
      {"interleaved, one reversed", slice_1d(&x, CLGPU_SLICE_BEGIN, CLGPU_SLICE_END, -2),
       slice_1d(&x, 0, CLGPU_SLICE_END, 2), 0},
      {"x[0::3], x[1::3]", slice_1d(&x, 0, CLGPU_SLICE_END, 3), slice_1d(&x, 1, CLGPU_SLICE_END, 3),
       0},
      {"stride 2 vs stride 3", slice_1d(&x, 0, CLGPU_SLICE_END, 2),
       slice_1d(&x, 1, CLGPU_SLICE_END, 3), 1},
      {"reversed whole", slice_1d(&x, CLGPU_SLICE_BEGIN, CLGPU_SLICE_END, -1), x, 1},
      {"bytes of x[0] vs x[1::2]", slice_1d(&x_as_bytes, 0, 4, 1),
       slice_1d(&x, 1, CLGPU_SLICE_END, 2), 0},
      {"sub-buffer inside the view", x, s, 1},
      {"sub-buffer past the view", slice_1d(&x, 0, (ptrdiff_t)sub_start, 1), s, 0},
      {"different buffers", x, y, 0},
      {"empty view", x, empty, 0},
      {"USE_HOST_PTR overlapping host memory", ha, hb, 1},
      {"USE_HOST_PTR apart", ha, hc, 0},
      {"USE_HOST_PTR, views past the overlap", slice_1d(&ha, 0, 4096, 1), hb, 0},
      {"matrix columns 0 and 1", column0, column1, 0},
      {"matrix rows 0 and 1", row0, row1, 0},
      {"column 0 and row 0 (share m[0][0])", column0, row0, 1},
      {"column 1 and row 0 (share m[0][1])", column1, row0, 1},
      {"matrix and its transpose", m, transposed, 1},
  };
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    int forward = clgpu_may_alias(&rows[r].a, &rows[r].b);
    int backward = clgpu_may_alias(&rows[r].b, &rows[r].a);
    if (forward != rows[r].expected || backward != rows[r].expected) {
      fail_msg("alias \"%s\": %d and %d, expected %d", rows[r].name, forward, backward,
               rows[r].expected);
    }
  }
  /* Identity, for the in-place rule. */
  assert_true(clgpu_array_same(&x, &x));
  clgpu_array x_again;
  assert_status(clgpu_array_1d(sub, 0, CLGPU_TYPE_FLOAT, 10, &x_again), CLGPU_SUCCESS);
  clgpu_array x_at_sub = slice_1d(&x, (ptrdiff_t)sub_start, (ptrdiff_t)sub_start + 10, 1);
  assert_true(clgpu_array_same(&x_again, &x_at_sub)); /* through the sub-buffer: same memory */
  assert_false(clgpu_array_same(&x, &y));
  assert_false(clgpu_array_same(&m, &transposed));
  clgpu_array broken = x;
  broken.shape[0] = 1u << 30;
  assert_true(clgpu_may_alias(&broken, &y)); /* an invalid view is treated as aliasing */

  clReleaseMemObject(host_a);
  clReleaseMemObject(host_b);
  clReleaseMemObject(host_c);
  free(host);
  clReleaseMemObject(sub);
  clReleaseMemObject(other);
  clReleaseMemObject(buffer);
  clgpu_context_destroy(context);
}

static void type_facts(void **state) {
  (void)state;
  static const struct {
    clgpu_type type;
    size_t size;
    const char *name;
  } rows[] = {
      {CLGPU_TYPE_INT8, 1, "char"},     {CLGPU_TYPE_UINT8, 1, "uchar"},
      {CLGPU_TYPE_INT16, 2, "short"},   {CLGPU_TYPE_UINT16, 2, "ushort"},
      {CLGPU_TYPE_INT32, 4, "int"},     {CLGPU_TYPE_UINT32, 4, "uint"},
      {CLGPU_TYPE_INT64, 8, "long"},    {CLGPU_TYPE_UINT64, 8, "ulong"},
      {CLGPU_TYPE_HALF, 2, "half"},     {CLGPU_TYPE_FLOAT, 4, "float"},
      {CLGPU_TYPE_DOUBLE, 8, "double"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    assert_int_equal(clgpu_type_size(rows[i].type), rows[i].size);
    assert_string_equal(clgpu_type_cl_name(rows[i].type), rows[i].name);
  }
  assert_int_equal(clgpu_type_size((clgpu_type)0), 0);
  assert_string_equal(clgpu_type_cl_name((clgpu_type)42), "invalid");
}

/* ---- views whose elements would fill more than CLGPU_MAX_VIEW_BYTES ---- */

/* A broadcast of 2^62 uint32 elements reaches 4 bytes of its buffer but
 * stands for 2^64 bytes: count * size wraps to 0. Refused when made and by
 * every operation's view check, before any program work, with the message
 * naming the caller's argument; a read into 16 host bytes used to return
 * SUCCESS and read nothing. */
static void views_past_the_byte_bound_are_refused(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  cl_mem buffer = make_buffer(context, 64);
  clgpu_array one;
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT32, 1, &one), CLGPU_SUCCESS);
  size_t huge[] = {(size_t)1 << 62};
  clgpu_array made = one;
  made.offset = 12345; /* unchanged by a refused call */
  assert_status(clgpu_array_broadcast(&one, 1, huge, &made), CLGPU_VIEW_OUT_OF_BOUNDS);
  assert_non_null(strstr(clgpu_last_error(), "would fill more than 2^63 - 1 bytes"));
  assert_int_equal(made.offset, 12345);
  /* The largest broadcasts that stay within the bound are views. */
  size_t largest[] = {((size_t)1 << 61) - 1};
  assert_status(clgpu_array_broadcast(&one, 1, largest, &made), CLGPU_SUCCESS);
  assert_status(clgpu_array_check(&made), CLGPU_SUCCESS);

  /* The same view written by hand: every entry point refuses it. */
  clgpu_array forged = one;
  forged.shape[0] = (size_t)1 << 62;
  forged.strides[0] = 0;
  assert_status(clgpu_array_check(&forged), CLGPU_VIEW_OUT_OF_BOUNDS);
  clgpu_array count_view;
  assert_status(clgpu_array_1d(buffer, 8, CLGPU_TYPE_UINT64, 1, &count_view), CLGPU_SUCCESS);
  clgpu_cache_stats before, after;
  assert_status(clgpu_program_cache_stats(context, &before), CLGPU_SUCCESS);
  unsigned char host[16 + 16];
  memset(host, 0xC3, sizeof host);
  assert_status(clgpu_array_read(context, host, 16, &forged, 0, NULL), CLGPU_VIEW_OUT_OF_BOUNDS);
  assert_non_null(strstr(clgpu_last_error(), "clgpu_array_read"));
  for (size_t i = 0; i < sizeof host; i++) assert_int_equal(host[i], 0xC3);
  assert_status(clgpu_array_write(context, &one, host, 16, 0, NULL), CLGPU_SUCCESS);
  clgpu_reduce_op sum = {.kind = CLGPU_REDUCE_SUM};
  assert_status(clgpu_reduce(context, &sum, CLGPU_ALL_AXES, &one, &forged, NULL, 0, NULL, NULL),
                CLGPU_VIEW_OUT_OF_BOUNDS);
  assert_non_null(strstr(clgpu_last_error(), "(clgpu_reduce: the input)"));
  clgpu_array count_out;
  assert_status(clgpu_array_1d(buffer, 16, CLGPU_TYPE_UINT64, 1, &count_out), CLGPU_SUCCESS);
  assert_status(clgpu_count_if(context, "x > 1", &count_out, &forged, NULL, 0, NULL, NULL),
                CLGPU_VIEW_OUT_OF_BOUNDS);
  assert_non_null(strstr(clgpu_last_error(), "(clgpu_count_if: the input)"));
  assert_status(clgpu_findall(context, "x > 1", &one, &count_view, &forged, NULL, 0, NULL, NULL),
                CLGPU_VIEW_OUT_OF_BOUNDS);
  assert_non_null(strstr(clgpu_last_error(), "(clgpu_findall: the input)"));
  clgpu_workspace_size size;
  assert_status(
      clgpu_reduce_workspace_size(context, &sum, CLGPU_ALL_AXES, &one, &forged, NULL, &size),
      CLGPU_VIEW_OUT_OF_BOUNDS);
  clgpu_scan_op scan = {.kind = CLGPU_SCAN_SUM};
  assert_status(clgpu_scan(context, &scan, CLGPU_ALL_AXES, &one, &forged, NULL, 0, NULL, NULL),
                CLGPU_VIEW_OUT_OF_BOUNDS);
  assert_status(clgpu_copy(context, &one, &forged, 0, NULL, NULL), CLGPU_VIEW_OUT_OF_BOUNDS);
  assert_status(clgpu_sort_permutation(context, NULL, &one, &forged, NULL, 0, NULL, NULL),
                CLGPU_VIEW_OUT_OF_BOUNDS);
  assert_status(clgpu_program_cache_stats(context, &after), CLGPU_SUCCESS);
  assert_int_equal(after.builds + after.memory_hits + after.disk_hits,
                   before.builds + before.memory_hits + before.disk_hits);
  clReleaseMemObject(buffer);
  clgpu_context_destroy(context);
}

int main(void) {
  test_seed();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(type_facts),
      cmocka_unit_test(slices_follow_python),
      cmocka_unit_test(two_dimensional_slices),
      cmocka_unit_test(reshape_keeps_row_major_order),
      cmocka_unit_test(permute_transpose_broadcast),
      cmocka_unit_test(reinterpret_rules),
      cmocka_unit_test(extents_at_the_buffer_boundary),
      cmocka_unit_test(location_resolves_sub_buffers),
      cmocka_unit_test(aliasing_truth_table),
      cmocka_unit_test(views_past_the_byte_bound_are_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
