/* CLGPU_TYPE_OPAQUE (array.h): views of bytes the library moves and never
 * interprets. Sorts of 12-byte records with a custom key type (a size no
 * built-in type has) against a stable host sort, byte-wise copies, fills
 * and transfers of strided opaque views against the host, and the
 * refusal, with CLGPU_TYPE_MISMATCH and nothing enqueued, of every
 * operation that computes on elements. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

typedef struct record {
  uint32_t key, a, b;
} record;

static const char record_declarations[] = "typedef struct { uint key; uint a; uint b; } record;";

static cl_mem make_buffer(clgpu_context *context, size_t bytes) {
  cl_mem buffer = NULL;
  assert_status(clgpu_buffer_create(context, CL_MEM_READ_WRITE, bytes, &buffer), CLGPU_SUCCESS);
  return buffer;
}

static int record_before(const void *x, const void *y) {
  const record *a = x, *b = y;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  /* Stable: equal keys keep their order, which `a` numbers. */
  return a->a < b->a ? -1 : a->a > b->a;
}

/* n records with few distinct keys, numbered in `a`, each carrying a
 * 4-byte value; sorted on the device (merge sort over CLGPU_TYPE_OPAQUE
 * views) and on the host. */
static void sort_records(clgpu_context *context, size_t n, int shape) {
  uint64_t seed = test_seed() ^ (uint64_t)n;
  record *host = malloc(n * sizeof *host);
  uint32_t *values = malloc(n * sizeof *values);
  record *expected = malloc(n * sizeof *expected);
  assert_true(host && values && expected);
  for (size_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    host[i].key = (uint32_t)(seed >> 59);
    host[i].a = (uint32_t)i;
    host[i].b = (uint32_t)(seed >> 20);
    values[i] = host[i].b ^ 0xa5a5a5a5u;
  }
  memcpy(expected, host, n * sizeof *host);
  qsort(expected, n, sizeof *expected, record_before);

  cl_mem key_buffer = make_buffer(context, n * sizeof *host);
  cl_mem value_buffer = make_buffer(context, n * sizeof *values);
  clgpu_array keys = clgpu_array_of(key_buffer, CLGPU_TYPE_OPAQUE, n * sizeof *host);
  clgpu_array payload = clgpu_array_of(value_buffer, CLGPU_TYPE_OPAQUE, n * sizeof *values);
  assert_status(clgpu_array_write(context, &keys, host, n * sizeof *host, 0, NULL), CLGPU_SUCCESS);
  assert_status(clgpu_array_write(context, &payload, values, n * sizeof *values, 0, NULL),
                CLGPU_SUCCESS);
  clgpu_sort_spec spec = {.compare = "a.key < b.key",
                          .key_type = "record",
                          .declarations = record_declarations,
                          .key_size = sizeof(record)};
  clgpu_sort_options options = {.algorithm = CLGPU_ALGORITHM_MERGE,
                                .shape = shape ? CLGPU_SHAPE_TILED : CLGPU_SHAPE_CHUNKED};
  assert_status(clgpu_sort(context, &spec, &keys, &payload, &options, 0, NULL, NULL),
                CLGPU_SUCCESS);
  record *sorted = malloc(n * sizeof *sorted);
  uint32_t *moved = malloc(n * sizeof *moved);
  assert_true(sorted && moved);
  assert_status(clgpu_array_read(context, sorted, n * sizeof *sorted, &keys, 0, NULL),
                CLGPU_SUCCESS);
  assert_status(clgpu_array_read(context, moved, n * sizeof *moved, &payload, 0, NULL),
                CLGPU_SUCCESS);
  for (size_t i = 0; i < n; i++) {
    if (memcmp(&sorted[i], &expected[i], sizeof *sorted) != 0) {
      fail_msg("sort of %zu records (%s): record %zu is (%u, %u, %u), expected (%u, %u, %u)", n,
               shape ? "tiled" : "chunked", i, sorted[i].key, sorted[i].a, sorted[i].b,
               expected[i].key, expected[i].a, expected[i].b);
    }
    if (moved[i] != (expected[i].b ^ 0xa5a5a5a5u)) {
      fail_msg("sort of %zu records: value %zu did not travel with its key", n, i);
    }
  }
  clReleaseMemObject(key_buffer);
  clReleaseMemObject(value_buffer);
  free(host);
  free(values);
  free(expected);
  free(sorted);
  free(moved);
}

static void sorts_of_records_with_custom_keys(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  static const size_t sizes[] = {1, 7, 1000, 2051};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    sort_records(context, sizes[s], 0);
    sort_records(context, sizes[s], 1);
  }
  clgpu_context_destroy(context);
}

/* A strided opaque view (every third byte, backwards) filled, copied and
 * transferred, checked byte by byte against the host. */
static void bytes_move_as_bytes(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  enum { BYTES = 300, N = 100 };
  cl_mem buffer = make_buffer(context, BYTES);
  clgpu_array all = clgpu_array_of(buffer, CLGPU_TYPE_OPAQUE, BYTES);
  clgpu_array thirds = clgpu_array_of_strided(buffer, BYTES - 1, CLGPU_TYPE_OPAQUE, N, -3);
  unsigned char initial[BYTES], written[N], image[BYTES], read[N];
  for (size_t i = 0; i < BYTES; i++) initial[i] = (unsigned char)(i * 7 + 1);
  for (size_t i = 0; i < N; i++) written[i] = (unsigned char)(255 - i);
  assert_status(clgpu_array_write(context, &all, initial, BYTES, 0, NULL), CLGPU_SUCCESS);
  assert_status(clgpu_array_write(context, &thirds, written, N, 0, NULL), CLGPU_SUCCESS);
  unsigned char model[BYTES];
  memcpy(model, initial, BYTES);
  for (size_t i = 0; i < N; i++) model[BYTES - 1 - 3 * i] = written[i];
  assert_status(clgpu_array_read(context, image, BYTES, &all, 0, NULL), CLGPU_SUCCESS);
  assert_memory_equal(image, model, BYTES);
  assert_status(clgpu_array_read(context, read, N, &thirds, 0, NULL), CLGPU_SUCCESS);
  assert_memory_equal(read, written, N);

  /* Copy the strided bytes to the first N, then fill the last byte. */
  clgpu_array first = clgpu_array_of(buffer, CLGPU_TYPE_OPAQUE, N);
  assert_status(clgpu_copy(context, &first, &thirds, 0, NULL, NULL), CLGPU_SUCCESS);
  /* The views overlap: the copy reads the bytes as they were before it. */
  unsigned char source[N];
  for (size_t i = 0; i < N; i++) source[i] = model[BYTES - 1 - 3 * i];
  memcpy(model, source, N);
  unsigned char mark = 0x5e;
  clgpu_array last = clgpu_array_of_strided(buffer, BYTES - 1, CLGPU_TYPE_OPAQUE, 1, 1);
  assert_status(clgpu_fill(context, &last, &mark, 0, NULL, NULL), CLGPU_SUCCESS);
  model[BYTES - 1] = mark;
  assert_status(clgpu_array_read(context, image, BYTES, &all, 0, NULL), CLGPU_SUCCESS);
  assert_memory_equal(image, model, BYTES);
  clReleaseMemObject(buffer);
  clgpu_context_destroy(context);
}

/* Every operation that computes on elements refuses opaque bytes, names
 * them, and enqueues nothing (no event, the output unchanged). */
static void computing_on_bytes_is_refused(void **state) {
  (void)state;
  clgpu_context *context = test_context(NULL);
  enum { N = 64 };
  cl_mem buffer = make_buffer(context, 4 * N);
  clgpu_array bytes = clgpu_array_of(buffer, CLGPU_TYPE_OPAQUE, N);
  clgpu_array words = clgpu_array_of_strided(buffer, 2 * N, CLGPU_TYPE_UINT32, N / 4, 1);
  clgpu_array mask = clgpu_array_of_strided(buffer, N, CLGPU_TYPE_UINT8, N, 1);
  clgpu_array total = clgpu_array_of_strided(buffer, 3 * N, CLGPU_TYPE_UINT64, 1, 1);
  unsigned char before[4 * N], after[4 * N];
  for (size_t i = 0; i < sizeof before; i++) before[i] = (unsigned char)(i * 13);
  clgpu_array all = clgpu_array_of(buffer, CLGPU_TYPE_OPAQUE, 4 * N);
  assert_status(clgpu_array_write(context, &all, before, sizeof before, 0, NULL), CLGPU_SUCCESS);

  clgpu_reduce_op sum = {.kind = CLGPU_REDUCE_SUM};
  clgpu_scan_op scan = {.kind = CLGPU_SCAN_SUM};
  clgpu_sort_spec natural = {0};
  const clgpu_elementwise_arg args[] = {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_OPAQUE},
                                        {"x", CLGPU_ARG_IN, CLGPU_TYPE_FLOAT}};
  clgpu_elementwise *kernel = NULL;
  unsigned char one = 1, start = 0;
  cl_event event = NULL;
  struct {
    const char *name;
    clgpu_status status;
    int has_event;
  } calls[9];
  size_t count = 0;
#define CALL(label, expression, with_event)                                        \
  do {                                                                             \
    event = NULL;                                                                  \
    calls[count].name = label;                                                     \
    calls[count].status = (expression);                                            \
    calls[count].has_event = (with_event) && event != NULL;                        \
    if (calls[count].status != CLGPU_TYPE_MISMATCH) {                              \
      fail_msg("%s on opaque bytes: %s, expected CLGPU_TYPE_MISMATCH (%s)", label, \
               clgpu_status_name(calls[count].status), clgpu_last_error());        \
    }                                                                              \
    if (!strstr(clgpu_last_error(), "opaque")) {                                   \
      fail_msg("%s: the message \"%s\" does not say the bytes are opaque", label,  \
               clgpu_last_error());                                                \
    }                                                                              \
    assert_false(calls[count].has_event);                                          \
    count++;                                                                       \
  } while (0)
  CALL("clgpu_reduce",
       clgpu_reduce(context, &sum, CLGPU_ALL_AXES, &words, &bytes, NULL, 0, NULL, &event), 1);
  CALL("clgpu_count_if", clgpu_count_if(context, "x > 3", &words, &bytes, NULL, 0, NULL, &event),
       1);
  CALL("clgpu_scan", clgpu_scan(context, &scan, 0, &bytes, &bytes, NULL, 0, NULL, &event), 1);
  CALL("clgpu_findall",
       clgpu_findall(context, "x > 3", &words, &total, &bytes, NULL, 0, NULL, &event), 1);
  CALL("clgpu_sort (natural order)",
       clgpu_sort(context, &natural, &bytes, NULL, NULL, 0, NULL, &event), 1);
  CALL("clgpu_elementwise_create",
       clgpu_elementwise_create(context, "y = x", 2, args, NULL, &kernel), 0);
  CALL("clgpu_convert", clgpu_convert(context, &words, &bytes, 0, NULL, &event), 1);
  CALL("clgpu_compare",
       clgpu_compare(context, CLGPU_COMPARE_LESS, &mask, &bytes, &bytes, 0, NULL, &event), 1);
  CALL("clgpu_iota", clgpu_iota(context, &bytes, &start, &one, 0, NULL, &event), 1);
#undef CALL
  assert_null(kernel);
  assert_int_equal(clgpu_reduce_result_type(&sum, CLGPU_TYPE_OPAQUE), 0);
  assert_status(clgpu_array_read(context, after, sizeof after, &all, 0, NULL), CLGPU_SUCCESS);
  assert_memory_equal(after, before, sizeof before);
  assert_int_equal(clgpu_type_size(CLGPU_TYPE_OPAQUE), 1);
  clReleaseMemObject(buffer);
  clgpu_context_destroy(context);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sorts_of_records_with_custom_keys),
      cmocka_unit_test(bytes_move_as_bytes),
      cmocka_unit_test(computing_on_bytes_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
