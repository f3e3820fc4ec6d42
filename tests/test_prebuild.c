/* clgpu_prebuild: listed operations prebuild exactly the programs their
 * calls use (the calls afterwards build and load nothing, and their results
 * match the host); a later context replays the record of an earlier one
 * from the disk cache, and records of other names stay apart; a call made
 * while a prebuild runs gets the right result and no program is built
 * twice; a build failure comes back from clgpu_prebuild_wait with the log;
 * a recipe whose source changed is skipped as stale; a prebuild may outlive
 * its context's caller reference and be destroyed while it works; and bad
 * arguments are refused with nothing started.
 *
 * Every test works in a fresh disk-cache folder with a record name of its
 * own (CLGPU_PROGRAM_RECORD), so that no test sees another's programs. */
#include "support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 3000
#define SORT_N 2048

/* ---- helpers ---- */

typedef struct fixture {
  char *folder;
  clgpu_context *contexts[3];
  clgpu_prebuild *prebuild;
  cl_mem buffers[6];
  char *kernel_dir;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  clgpu_prebuild_destroy(f->prebuild);
  for (size_t i = 0; i < 6; i++) {
    if (f->buffers[i]) clReleaseMemObject(f->buffers[i]);
  }
  for (size_t i = 0; i < 3; i++) clgpu_context_destroy(f->contexts[i]);
  if (f->kernel_dir) test_remove_folder(f->kernel_dir);
  if (f->folder) test_remove_folder(f->folder);
  unsetenv("CLGPU_PROGRAM_RECORD");
  unsetenv("CLGPU_KERNEL_DIR");
  free(f);
  return 0;
}

/* A context whose disk cache is on in `folder` (NULL: off). */
static clgpu_context *context_in(const char *folder) {
  clgpu_context_options options = {0};
  options.cache_dir = folder;
  options.disk_cache = folder ? CLGPU_DISK_CACHE_ON : CLGPU_DISK_CACHE_OFF;
  return test_context(&options);
}

/* A record name no other test or run shares. */
static void name_record(const char *label) {
  char name[96];
  snprintf(name, sizeof name, "test-prebuild-%s-%llu", label, (unsigned long long)test_seed());
  setenv("CLGPU_PROGRAM_RECORD", name, 1);
}

static cl_mem make_buffer(fixture *f, size_t slot, clgpu_context *context, size_t bytes,
                          const void *data) {
  cl_int err = CL_SUCCESS;
  cl_mem buffer =
      clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE, bytes, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  f->buffers[slot] = buffer;
  if (data) {
    assert_int_equal(clEnqueueWriteBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 0, bytes,
                                          data, 0, NULL, NULL),
                     CL_SUCCESS);
  }
  return buffer;
}

static void read_buffer(clgpu_context *context, cl_mem buffer, size_t bytes, void *out) {
  assert_int_equal(clEnqueueReadBuffer(clgpu_context_queue(context), buffer, CL_TRUE, 0, bytes, out,
                                       0, NULL, NULL),
                   CL_SUCCESS);
}

/* The buffers of a run in the fixture's slots are released at its end. */
static void release_buffers(fixture *f) {
  for (size_t i = 0; i < 6; i++) {
    if (f->buffers[i]) clReleaseMemObject(f->buffers[i]);
    f->buffers[i] = NULL;
  }
}

/* A float SUM over N values, checked against the host (small integers:
 * every order of addition gives the same float). */
static void run_reduce(fixture *f, clgpu_context *context) {
  float input[N];
  float expected = 0;
  uint64_t seed = test_seed();
  for (size_t i = 0; i < N; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    input[i] = (float)((seed >> 40) % 100);
    expected += input[i];
  }
  cl_mem buffer = make_buffer(f, 0, context, sizeof input, input);
  clgpu_array view;
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_FLOAT, N, &view), CLGPU_SUCCESS);
  clgpu_reduce_op sum = {.kind = CLGPU_REDUCE_SUM};
  float result = -1;
  assert_status(clgpu_reduce_read(context, &sum, &result, sizeof result, &view, NULL),
                CLGPU_SUCCESS);
  assert_true(result == expected);
  release_buffers(f);
}

/* An inclusive uint SUM scan over N values against the host. */
static void run_scan(fixture *f, clgpu_context *context) {
  static cl_uint input[N], output[N];
  for (size_t i = 0; i < N; i++) input[i] = (cl_uint)(i * 7 % 13);
  cl_mem in = make_buffer(f, 0, context, sizeof input, input);
  cl_mem out = make_buffer(f, 1, context, sizeof output, NULL);
  clgpu_array in_view, out_view;
  assert_status(clgpu_array_1d(in, 0, CLGPU_TYPE_UINT32, N, &in_view), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(out, 0, CLGPU_TYPE_UINT32, N, &out_view), CLGPU_SUCCESS);
  clgpu_scan_op sum = {.kind = CLGPU_SCAN_SUM};
  assert_status(clgpu_scan(context, &sum, CLGPU_ALL_AXES, &out_view, &in_view, NULL, 0, NULL, NULL),
                CLGPU_SUCCESS);
  read_buffer(context, out, sizeof output, output);
  cl_uint running = 0;
  for (size_t i = 0; i < N; i++) {
    running += input[i];
    assert_int_equal(output[i], running);
  }
  release_buffers(f);
}

/* findall of "x > 5" over N ints against the host. */
static void run_findall_with(fixture *f, clgpu_context *context,
                             const clgpu_call_options *options) {
  static cl_int input[N];
  static cl_uint indices[N];
  for (size_t i = 0; i < N; i++) input[i] = (cl_int)(i * 5 % 11);
  cl_mem in = make_buffer(f, 0, context, sizeof input, input);
  cl_mem out = make_buffer(f, 1, context, sizeof indices, NULL);
  clgpu_array in_view, out_view;
  assert_status(clgpu_array_1d(in, 0, CLGPU_TYPE_INT32, N, &in_view), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(out, 0, CLGPU_TYPE_UINT32, N, &out_view), CLGPU_SUCCESS);
  uint64_t count = 0;
  assert_status(clgpu_findall_read(context, "x > 5", &out_view, NULL, &count, &in_view, options),
                CLGPU_SUCCESS);
  read_buffer(context, out, sizeof indices, indices);
  size_t expected = 0;
  for (size_t i = 0; i < N; i++) {
    if (input[i] > 5) {
      assert_true(expected < count);
      assert_int_equal(indices[expected], i);
      expected++;
    }
  }
  assert_int_equal(count, expected);
  release_buffers(f);
}

static void run_findall(fixture *f, clgpu_context *context) { run_findall_with(f, context, NULL); }

/* A uint key sort carrying uint values (the key's first position) against
 * the host: keys in order, each value the position its key came from, ties
 * in that order (stable). */
static void run_sort(fixture *f, clgpu_context *context) {
  static cl_uint keys[SORT_N], values[SORT_N], original[SORT_N];
  for (size_t i = 0; i < SORT_N; i++) {
    keys[i] = original[i] = (cl_uint)((i * 2654435761u) % 1000);
    values[i] = (cl_uint)i;
  }
  cl_mem key_buffer = make_buffer(f, 0, context, sizeof keys, keys);
  cl_mem value_buffer = make_buffer(f, 1, context, sizeof values, values);
  clgpu_array key_view, value_view;
  assert_status(clgpu_array_1d(key_buffer, 0, CLGPU_TYPE_UINT32, SORT_N, &key_view), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(value_buffer, 0, CLGPU_TYPE_UINT32, SORT_N, &value_view),
                CLGPU_SUCCESS);
  assert_status(clgpu_sort(context, NULL, &key_view, &value_view, NULL, 0, NULL, NULL),
                CLGPU_SUCCESS);
  read_buffer(context, key_buffer, sizeof keys, keys);
  read_buffer(context, value_buffer, sizeof values, values);
  for (size_t i = 0; i < SORT_N; i++) {
    assert_int_equal(keys[i], original[values[i]]);
    if (i > 0) {
      assert_true(keys[i - 1] <= keys[i]);
      if (keys[i - 1] == keys[i]) assert_true(values[i - 1] < values[i]);
    }
  }
  release_buffers(f);
}

/* lower bounds of N uints in SORT_N sorted ones against the host. */
static void run_search(fixture *f, clgpu_context *context) {
  static cl_uint haystack[SORT_N], needles[N], positions[N];
  for (size_t i = 0; i < SORT_N; i++) haystack[i] = (cl_uint)(i / 2 * 3);
  for (size_t i = 0; i < N; i++) needles[i] = (cl_uint)((i * 7919u) % (SORT_N * 2));
  cl_mem hay = make_buffer(f, 0, context, sizeof haystack, haystack);
  cl_mem need = make_buffer(f, 1, context, sizeof needles, needles);
  cl_mem out = make_buffer(f, 2, context, sizeof positions, NULL);
  clgpu_array hay_view, need_view, out_view;
  assert_status(clgpu_array_1d(hay, 0, CLGPU_TYPE_UINT32, SORT_N, &hay_view), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(need, 0, CLGPU_TYPE_UINT32, N, &need_view), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(out, 0, CLGPU_TYPE_UINT32, N, &out_view), CLGPU_SUCCESS);
  assert_status(
      clgpu_lower_bound(context, NULL, &out_view, &need_view, &hay_view, NULL, 0, NULL, NULL),
      CLGPU_SUCCESS);
  read_buffer(context, out, sizeof positions, positions);
  for (size_t i = 0; i < N; i++) {
    size_t expected = 0;
    while (expected < SORT_N && haystack[expected] < needles[i]) expected++;
    assert_int_equal(positions[i], expected);
  }
  release_buffers(f);
}

/* ---- the operations over runs, bins, partitions and segments ---- */

#define BINS 10
#define EDGE_BINS 8
static const cl_uint hist_lower = 0, hist_upper = 999;

static clgpu_array view_1d(cl_mem buffer, clgpu_type type, size_t n) {
  clgpu_array view;
  assert_status(clgpu_array_1d(buffer, 0, type, n, &view), CLGPU_SUCCESS);
  return view;
}

static uint64_t read_count(clgpu_context *context, cl_mem buffer) {
  cl_ulong count = 0;
  read_buffer(context, buffer, sizeof count, &count);
  return count;
}

/* Keys in runs of five (i / 5), values i % 7. */
static void run_keys_and_values(cl_uint *keys, cl_uint *values) {
  for (size_t i = 0; i < N; i++) {
    keys[i] = (cl_uint)(i / 5);
    values[i] = (cl_uint)(i % 7);
  }
}

/* A stable partition of N ints by "x > 5" against the host. */
static void run_partition(fixture *f, clgpu_context *context) {
  static cl_int input[N], output[N], expected[N];
  size_t selected = 0, at = 0;
  for (size_t i = 0; i < N; i++) {
    input[i] = (cl_int)(i * 5 % 11);
    if (input[i] > 5) selected++;
  }
  size_t rest = selected;
  for (size_t i = 0; i < N; i++) {
    if (input[i] > 5) {
      expected[at++] = input[i];
    } else {
      expected[rest++] = input[i];
    }
  }
  clgpu_array in = view_1d(make_buffer(f, 0, context, sizeof input, input), CLGPU_TYPE_INT32, N);
  clgpu_array out = view_1d(make_buffer(f, 1, context, sizeof output, NULL), CLGPU_TYPE_INT32, N);
  clgpu_array count = view_1d(make_buffer(f, 2, context, 8, NULL), CLGPU_TYPE_UINT64, 1);
  assert_status(clgpu_partition(context, "x > 5", &out, &count, &in, NULL, 0, NULL, NULL),
                CLGPU_SUCCESS);
  read_buffer(context, out.buffer, sizeof output, output);
  assert_int_equal(read_count(context, count.buffer), selected);
  assert_memory_equal(output, expected, sizeof output);
  release_buffers(f);
}

/* Even bins of [0, 999] and float bins by edges against the host. */
static void run_histograms(fixture *f, clgpu_context *context) {
  static cl_uint input[N];
  static cl_float floats[N];
  cl_uint counts[BINS], expected[BINS] = {0};
  cl_float edges[EDGE_BINS + 1];
  cl_ulong edge_counts[EDGE_BINS], edge_expected[EDGE_BINS] = {0};
  for (size_t b = 0; b <= EDGE_BINS; b++) edges[b] = (cl_float)(b * b);
  for (size_t i = 0; i < N; i++) {
    input[i] = (cl_uint)(i * 7 % 1000);
    expected[input[i] * BINS / 1000]++;
    floats[i] = (cl_float)(i % 70);
    for (size_t b = 0; b < EDGE_BINS; b++) {
      if (floats[i] >= edges[b] && (floats[i] < edges[b + 1] || b == EDGE_BINS - 1) &&
          floats[i] <= edges[EDGE_BINS]) {
        edge_expected[b]++;
      }
    }
  }
  clgpu_array in = view_1d(make_buffer(f, 0, context, sizeof input, input), CLGPU_TYPE_UINT32, N);
  clgpu_array out =
      view_1d(make_buffer(f, 1, context, sizeof counts, NULL), CLGPU_TYPE_UINT32, BINS);
  assert_status(
      clgpu_histogram_even(context, &hist_lower, &hist_upper, &out, &in, NULL, 0, NULL, NULL),
      CLGPU_SUCCESS);
  read_buffer(context, out.buffer, sizeof counts, counts);
  assert_memory_equal(counts, expected, sizeof counts);
  clgpu_array values =
      view_1d(make_buffer(f, 2, context, sizeof floats, floats), CLGPU_TYPE_FLOAT, N);
  clgpu_array bounds =
      view_1d(make_buffer(f, 3, context, sizeof edges, edges), CLGPU_TYPE_FLOAT, EDGE_BINS + 1);
  clgpu_array wide =
      view_1d(make_buffer(f, 4, context, sizeof edge_counts, NULL), CLGPU_TYPE_UINT64, EDGE_BINS);
  assert_status(clgpu_histogram_edges(context, &wide, &values, &bounds, NULL, 0, NULL, NULL),
                CLGPU_SUCCESS);
  read_buffer(context, wide.buffer, sizeof edge_counts, edge_counts);
  assert_memory_equal(edge_counts, edge_expected, sizeof edge_counts);
  release_buffers(f);
}

/* reduce_by_key and scan_by_key (SUMs) over runs of five against the
 * host. */
static void run_by_key(fixture *f, clgpu_context *context) {
  static cl_uint keys[N], values[N], run_keys[N], reduced[N], scanned[N];
  run_keys_and_values(keys, values);
  clgpu_array k = view_1d(make_buffer(f, 0, context, sizeof keys, keys), CLGPU_TYPE_UINT32, N);
  clgpu_array v = view_1d(make_buffer(f, 1, context, sizeof values, values), CLGPU_TYPE_UINT32, N);
  clgpu_array rk = view_1d(make_buffer(f, 2, context, sizeof run_keys, NULL), CLGPU_TYPE_UINT32, N);
  clgpu_array r = view_1d(make_buffer(f, 3, context, sizeof reduced, NULL), CLGPU_TYPE_UINT32, N);
  clgpu_array count = view_1d(make_buffer(f, 4, context, 8, NULL), CLGPU_TYPE_UINT64, 1);
  clgpu_array s = view_1d(make_buffer(f, 5, context, sizeof scanned, NULL), CLGPU_TYPE_UINT32, N);
  clgpu_reduce_op sum = {.kind = CLGPU_REDUCE_SUM};
  clgpu_scan_op running = {.kind = CLGPU_SCAN_SUM};
  assert_status(
      clgpu_reduce_by_key(context, &sum, NULL, &rk, &r, &count, &k, &v, NULL, 0, NULL, NULL),
      CLGPU_SUCCESS);
  assert_status(clgpu_scan_by_key(context, &running, NULL, &s, &v, &k, NULL, 0, NULL, NULL),
                CLGPU_SUCCESS);
  read_buffer(context, rk.buffer, sizeof run_keys, run_keys);
  read_buffer(context, r.buffer, sizeof reduced, reduced);
  read_buffer(context, s.buffer, sizeof scanned, scanned);
  size_t runs = (N + 4) / 5;
  assert_int_equal(read_count(context, count.buffer), runs);
  cl_uint total = 0;
  for (size_t i = 0; i < N; i++) {
    total = (i % 5 == 0 ? 0 : total) + values[i];
    assert_int_equal(scanned[i], total);
    if (i % 5 == 4 || i == N - 1) {
      assert_int_equal(run_keys[i / 5], keys[i]);
      assert_int_equal(reduced[i / 5], total);
    }
  }
  release_buffers(f);
}

/* unique, and a run-length encoding into uint lengths and offsets,
 * against the host. */
static void run_unique_and_encode(fixture *f, clgpu_context *context) {
  static cl_uint keys[N], values[N], run_keys[N], lengths[N], offsets[N];
  run_keys_and_values(keys, values);
  size_t runs = (N + 4) / 5;
  clgpu_array k = view_1d(make_buffer(f, 0, context, sizeof keys, keys), CLGPU_TYPE_UINT32, N);
  clgpu_array rk = view_1d(make_buffer(f, 1, context, sizeof run_keys, NULL), CLGPU_TYPE_UINT32, N);
  clgpu_array count = view_1d(make_buffer(f, 2, context, 8, NULL), CLGPU_TYPE_UINT64, 1);
  clgpu_array l = view_1d(make_buffer(f, 3, context, sizeof lengths, NULL), CLGPU_TYPE_UINT32, N);
  clgpu_array o = view_1d(make_buffer(f, 4, context, sizeof offsets, NULL), CLGPU_TYPE_UINT32, N);
  assert_status(clgpu_unique(context, NULL, &rk, &count, &k, NULL, 0, NULL, NULL), CLGPU_SUCCESS);
  read_buffer(context, rk.buffer, sizeof run_keys, run_keys);
  assert_int_equal(read_count(context, count.buffer), runs);
  for (size_t r = 0; r < runs; r++) assert_int_equal(run_keys[r], r);
  assert_status(
      clgpu_run_length_encode(context, NULL, NULL, &l, &o, &count, &k, NULL, 0, NULL, NULL),
      CLGPU_SUCCESS);
  read_buffer(context, l.buffer, sizeof lengths, lengths);
  read_buffer(context, o.buffer, sizeof offsets, offsets);
  assert_int_equal(read_count(context, count.buffer), runs);
  for (size_t r = 0; r < runs; r++) {
    assert_int_equal(offsets[r], r * 5);
    assert_int_equal(lengths[r], r * 5 + 5 <= N ? 5 : N - r * 5);
  }
  release_buffers(f);
}

/* Segments of 16 uint keys (the last shorter) sorted, against the host. */
static void run_segmented_sort(fixture *f, clgpu_context *context) {
  enum { SEGMENT = 16, SEGMENTS = (N + SEGMENT - 1) / SEGMENT };
  static cl_uint keys[N], sorted[N], offsets[SEGMENTS + 1];
  for (size_t i = 0; i < N; i++) keys[i] = (cl_uint)((i * 2654435761u) % 1000);
  for (size_t s = 0; s <= SEGMENTS; s++) offsets[s] = (cl_uint)(s * SEGMENT < N ? s * SEGMENT : N);
  clgpu_array k = view_1d(make_buffer(f, 0, context, sizeof keys, keys), CLGPU_TYPE_UINT32, N);
  clgpu_array o =
      view_1d(make_buffer(f, 1, context, sizeof offsets, offsets), CLGPU_TYPE_UINT32, SEGMENTS + 1);
  assert_status(clgpu_segmented_sort(context, NULL, &k, NULL, &o, NULL, 0, NULL, NULL),
                CLGPU_SUCCESS);
  read_buffer(context, k.buffer, sizeof sorted, sorted);
  for (size_t s = 0; s < SEGMENTS; s++) {
    /* An insertion sort of the segment on the host. */
    for (size_t i = offsets[s] + 1; i < offsets[s + 1]; i++) {
      cl_uint key = keys[i];
      size_t j = i;
      for (; j > offsets[s] && keys[j - 1] > key; j--) keys[j] = keys[j - 1];
      keys[j] = key;
    }
  }
  assert_memory_equal(sorted, keys, sizeof sorted);
  release_buffers(f);
}

static clgpu_cache_stats cache_stats(const clgpu_context *context) {
  clgpu_cache_stats stats;
  assert_status(clgpu_program_cache_stats(context, &stats), CLGPU_SUCCESS);
  return stats;
}

/* Replay the record of `context` (the fixture's previous prebuild
 * destroyed first) and wait for it; its counts into *stats. */
static void replay(fixture *f, clgpu_context *context, clgpu_prebuild_stats *stats) {
  clgpu_prebuild_destroy(f->prebuild);
  f->prebuild = NULL;
  assert_status(clgpu_prebuild_start(context, NULL, &f->prebuild), CLGPU_SUCCESS);
  assert_status(clgpu_prebuild_wait(f->prebuild, stats), CLGPU_SUCCESS);
}

/* Destroy the context in a fixture slot: a run that has ended. */
static void end_run(fixture *f, size_t slot) {
  clgpu_context_destroy(f->contexts[slot]);
  f->contexts[slot] = NULL;
}

/* The operations the listed-item tests prepare and run. */
static const clgpu_prebuild_item listed_items[] = {
    {.kind = CLGPU_PREBUILD_REDUCE, .type = CLGPU_TYPE_FLOAT},
    {.kind = CLGPU_PREBUILD_SCAN, .type = CLGPU_TYPE_UINT32},
    {.kind = CLGPU_PREBUILD_FINDALL, .type = CLGPU_TYPE_INT32, .predicate = "x > 5"},
    {.kind = CLGPU_PREBUILD_SORT, .type = CLGPU_TYPE_UINT32, .value_bytes = 4, .max_n = SORT_N},
    {.kind = CLGPU_PREBUILD_SEARCH, .type = CLGPU_TYPE_UINT32},
};

/* ---- tests ---- */

static void test_items_cover_their_calls(void **state) {
  fixture *f = *state;
  f->folder = test_make_folder("prebuild-items");
  name_record("items");
  clgpu_context *context = f->contexts[0] = context_in(f->folder);
  clgpu_prebuild_options options = {.items = listed_items, .num_items = 5, .skip_record = 1};
  assert_status(clgpu_prebuild_start(context, &options, &f->prebuild), CLGPU_SUCCESS);
  clgpu_prebuild_stats stats;
  assert_status(clgpu_prebuild_wait(f->prebuild, &stats), CLGPU_SUCCESS);
  print_message("# prebuilt %zu programs in %.0f ms (%zu built)\n", stats.programs, stats.ms,
                stats.built);
  /* reduce 1, scan 1, findall 1 or 2 (the predicate's, and the counts'
   * scan, a ulong SUM, where a call may scan them: TILED, or CHUNKED under
   * a loop cap), sort at least 1, search 1. The calls below check that
   * nothing a call uses was left out. */
  assert_true(stats.programs >= 5);
  assert_int_equal(stats.done, stats.programs);
  assert_int_equal(stats.built + stats.from_disk, stats.programs);
  assert_int_equal(stats.failed + stats.stale + stats.from_memory + stats.recorded, 0);
  clgpu_cache_stats before = cache_stats(context);
  assert_int_equal(before.builds + before.disk_hits, stats.programs);
  /* It made the programs' kernel objects too. */
  assert_true(before.kernels_created >= stats.programs);

  run_reduce(f, context);
  run_scan(f, context);
  run_findall(f, context);
  run_sort(f, context);
  run_search(f, context);
  /* The calls found every program in memory: the prebuild made exactly
   * what they use. */
  clgpu_cache_stats after = cache_stats(context);
  assert_int_equal(after.builds, before.builds);
  assert_int_equal(after.disk_hits, before.disk_hits);
  /* and leased the kernels the prebuild made, creating none. */
  assert_int_equal(after.kernels_created, before.kernels_created);
}

/* clgpu_sort_permutation where its sort moves 4-byte keys with uint32
 * indices as pairs (forced by the tuning: 7-bit digits, whose lines every
 * device's local memory holds) makes the indices in its kernels, a program
 * of its own: a SORT item with 4-byte values prepares it too, so that the
 * call builds nothing and creates no kernel. */
static void test_sort_item_covers_the_permutation(void **state) {
  fixture *f = *state;
  f->folder = test_make_folder("prebuild-permutation");
  name_record("permutation");
  assert_int_equal(
      setenv("CLGPU_TUNING",
             "sort_stream=1,sort_lines_floor=0,sort_pack_pairs=1,sort_single_chunk_values=1,"
             "sort_stream_digit_max=7,sort_chunked_digit_max_values=7",
             1),
      0);
  clgpu_context *context = f->contexts[0] = context_in(f->folder);
  unsetenv("CLGPU_TUNING");
  clgpu_sort_options sort_options = {.algorithm = CLGPU_ALGORITHM_RADIX,
                                     .shape = CLGPU_SHAPE_CHUNKED};
  clgpu_prebuild_item item = {.kind = CLGPU_PREBUILD_SORT,
                              .type = CLGPU_TYPE_UINT32,
                              .value_bytes = 4,
                              .max_n = SORT_N,
                              .sort_options = &sort_options};
  clgpu_prebuild_options options = {.items = &item, .num_items = 1, .skip_record = 1};
  assert_status(clgpu_prebuild_start(context, &options, &f->prebuild), CLGPU_SUCCESS);
  assert_status(clgpu_prebuild_wait(f->prebuild, NULL), CLGPU_SUCCESS);
  clgpu_cache_stats before = cache_stats(context);

  static cl_uint keys[SORT_N], permutation[SORT_N];
  for (size_t i = 0; i < SORT_N; i++) keys[i] = (cl_uint)((i * 2654435761u) % 1000);
  cl_mem key_buffer = make_buffer(f, 0, context, sizeof keys, keys);
  cl_mem permutation_buffer = make_buffer(f, 1, context, sizeof permutation, NULL);
  clgpu_array key_view, permutation_view;
  assert_status(clgpu_array_1d(key_buffer, 0, CLGPU_TYPE_UINT32, SORT_N, &key_view), CLGPU_SUCCESS);
  assert_status(clgpu_array_1d(permutation_buffer, 0, CLGPU_TYPE_UINT32, SORT_N, &permutation_view),
                CLGPU_SUCCESS);
  /* The pairs' form: the keys are read where they are. */
  clgpu_workspace_size report;
  assert_status(clgpu_sort_permutation_workspace_size(context, NULL, &permutation_view, &key_view,
                                                      &sort_options, &report),
                CLGPU_SUCCESS);
  assert_int_equal(report.buffers[0].bytes, 0); /* staged_keys */
  assert_status(clgpu_sort_permutation(context, NULL, &permutation_view, &key_view, &sort_options,
                                       0, NULL, NULL),
                CLGPU_SUCCESS);
  read_buffer(context, permutation_buffer, sizeof permutation, permutation);
  static unsigned char seen[SORT_N];
  memset(seen, 0, sizeof seen);
  for (size_t i = 0; i < SORT_N; i++) {
    assert_true(permutation[i] < SORT_N);
    assert_false(seen[permutation[i]]);
    seen[permutation[i]] = 1;
    if (i > 0) {
      cl_uint a = keys[permutation[i - 1]], b = keys[permutation[i]];
      assert_true(a <= b);
      if (a == b) assert_true(permutation[i - 1] < permutation[i]);
    }
  }
  release_buffers(f);
  clgpu_cache_stats after = cache_stats(context);
  assert_int_equal(after.builds, before.builds);
  assert_int_equal(after.disk_hits, before.disk_hits);
  assert_int_equal(after.kernels_created, before.kernels_created);
}

/* findall's item in each shape: CHUNKED's program holds the compaction
 * (and the counts' scan only where a call may take it), TILED's the counts
 * and writes and the scan; each call then finds what it uses in memory. */
static void test_findall_in_each_shape(void **state) {
  fixture *f = *state;
  f->folder = test_make_folder("prebuild-findall-shapes");
  name_record("findall-shapes");
  static const clgpu_shape shapes[] = {CLGPU_SHAPE_CHUNKED, CLGPU_SHAPE_TILED};
  for (size_t s = 0; s < 2; s++) {
    clgpu_call_options call = {0};
    call.shape = shapes[s];
    clgpu_prebuild_item item = {.kind = CLGPU_PREBUILD_FINDALL,
                                .type = CLGPU_TYPE_INT32,
                                .predicate = "x > 5",
                                .call_options = &call};
    clgpu_context *context = f->contexts[s] = context_in(f->folder);
    clgpu_prebuild_options options = {.items = &item, .num_items = 1, .skip_record = 1};
    clgpu_prebuild_destroy(f->prebuild);
    f->prebuild = NULL;
    assert_status(clgpu_prebuild_start(context, &options, &f->prebuild), CLGPU_SUCCESS);
    clgpu_prebuild_stats stats;
    assert_status(clgpu_prebuild_wait(f->prebuild, &stats), CLGPU_SUCCESS);
    assert_true(stats.programs >= 1 && stats.programs <= 2);
    assert_int_equal(stats.failed, 0);
    clgpu_cache_stats before = cache_stats(context);
    run_findall_with(f, context, &call);
    clgpu_cache_stats after = cache_stats(context);
    assert_int_equal(after.builds, before.builds);
    assert_int_equal(after.disk_hits, before.disk_hits);
    assert_int_equal(after.kernels_created, before.kernels_created);
  }
}

/* The operations of runs.h, histogram.h, partition.h and the segmented
 * sort, as listed items. */
static const clgpu_prebuild_item more_items[] = {
    {.kind = CLGPU_PREBUILD_PARTITION, .type = CLGPU_TYPE_INT32, .predicate = "x > 5"},
    {.kind = CLGPU_PREBUILD_HISTOGRAM,
     .type = CLGPU_TYPE_UINT32,
     .bins = BINS,
     .lower = &hist_lower,
     .upper = &hist_upper,
     .max_n = N},
    {.kind = CLGPU_PREBUILD_HISTOGRAM,
     .type = CLGPU_TYPE_FLOAT,
     .bins = EDGE_BINS,
     .count_type = CLGPU_TYPE_UINT64},
    {.kind = CLGPU_PREBUILD_REDUCE_BY_KEY, .type = CLGPU_TYPE_UINT32},
    {.kind = CLGPU_PREBUILD_SCAN_BY_KEY, .type = CLGPU_TYPE_UINT32},
    {.kind = CLGPU_PREBUILD_UNIQUE, .type = CLGPU_TYPE_UINT32},
    {.kind = CLGPU_PREBUILD_RUN_LENGTH_ENCODE,
     .type = CLGPU_TYPE_UINT32,
     .count_type = CLGPU_TYPE_UINT32},
    {.kind = CLGPU_PREBUILD_SEGMENTED_SORT, .type = CLGPU_TYPE_UINT32, .max_n = N},
};
#define MORE_ITEMS (sizeof more_items / sizeof more_items[0])

static void test_more_items_cover_their_calls(void **state) {
  fixture *f = *state;
  f->folder = test_make_folder("prebuild-more-items");
  name_record("more-items");
  clgpu_context *context = f->contexts[0] = context_in(f->folder);
  clgpu_prebuild_options options = {.items = more_items, .num_items = MORE_ITEMS, .skip_record = 1};
  assert_status(clgpu_prebuild_start(context, &options, &f->prebuild), CLGPU_SUCCESS);
  clgpu_prebuild_stats stats;
  assert_status(clgpu_prebuild_wait(f->prebuild, &stats), CLGPU_SUCCESS);
  print_message("# prebuilt %zu programs in %.0f ms (%zu built)\n", stats.programs, stats.ms,
                stats.built);
  /* At least a program per item (partition's and findall's scans of
   * counts are one, a histogram's shared-row and own-row programs two). */
  assert_true(stats.programs >= MORE_ITEMS);
  assert_int_equal(stats.done, stats.programs);
  assert_int_equal(stats.failed + stats.stale + stats.from_memory + stats.recorded, 0);
  clgpu_cache_stats before = cache_stats(context);

  run_partition(f, context);
  run_histograms(f, context);
  run_by_key(f, context);
  run_unique_and_encode(f, context);
  run_segmented_sort(f, context);
  /* The calls found every program in memory. */
  clgpu_cache_stats after = cache_stats(context);
  assert_int_equal(after.builds, before.builds);
  assert_int_equal(after.disk_hits, before.disk_hits);
}

static void test_record_replays_in_a_later_context(void **state) {
  fixture *f = *state;
  f->folder = test_make_folder("prebuild-record");
  name_record("replay");
  /* The first run: its programs are recorded as it gets them. */
  clgpu_context *first = f->contexts[0] = context_in(f->folder);
  run_reduce(f, first);
  run_findall(f, first);
  clgpu_cache_stats first_stats = cache_stats(first);
  /* reduce 1, findall 1 or 2 (the counts' scan only where the input takes
   * more than one range). */
  size_t used = (size_t)(first_stats.builds + first_stats.disk_hits);
  assert_true(used >= 2 && used <= 3);
  end_run(f, 0);

  /* The next run replays them from the disk cache, then uses them. */
  clgpu_context *second = f->contexts[1] = context_in(f->folder);
  clgpu_prebuild_stats stats;
  replay(f, second, &stats);
  assert_int_equal(stats.programs, used);
  assert_int_equal(stats.recorded, used);
  assert_int_equal(stats.from_disk, used);
  assert_int_equal(stats.built + stats.failed + stats.stale, 0);
  /* A second wait says the same. */
  clgpu_prebuild_stats again;
  assert_status(clgpu_prebuild_wait(f->prebuild, &again), CLGPU_SUCCESS);
  assert_int_equal(again.from_disk, used);
  clgpu_cache_stats before = cache_stats(second);
  run_findall(f, second);
  run_reduce(f, second);
  clgpu_cache_stats after = cache_stats(second);
  assert_int_equal(after.builds, 0);
  assert_int_equal(after.disk_hits, before.disk_hits);
  assert_int_equal(after.kernels_created, before.kernels_created);

  /* Another record name over the same folder and device has no programs. */
  name_record("replay-other");
  clgpu_context *other = f->contexts[2] = context_in(f->folder);
  replay(f, other, &stats);
  assert_int_equal(stats.programs, 0);
  assert_int_equal(cache_stats(other).disk_hits, 0);

  /* And clgpu_disk_cache_clear removes the records with the binaries. */
  clgpu_prebuild_destroy(f->prebuild);
  f->prebuild = NULL;
  size_t removed = 0;
  assert_status(clgpu_disk_cache_clear(f->folder, &removed), CLGPU_SUCCESS);
  assert_int_equal(removed, used + 1);
}

/* The path of the folder's file whose content holds `text` (malloc'd), or
 * NULL. */
static char *file_holding(const char *folder, const char *text) {
  DIR *directory = opendir(folder);
  assert_non_null(directory);
  char *found = NULL;
  struct dirent *entry;
  static char data[1 << 20];
  while (!found && (entry = readdir(directory)) != NULL) {
    if (entry->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
    FILE *file = fopen(path, "rb");
    if (!file) continue;
    size_t size = fread(data, 1, sizeof data - 1, file);
    fclose(file);
    data[size] = '\0';
    for (size_t i = 0; i + strlen(text) <= size && !found; i++) {
      if (memcmp(data + i, text, strlen(text)) == 0) found = strdup(path);
    }
  }
  closedir(directory);
  return found;
}

static void test_damaged_record_is_ignored_and_rewritten(void **state) {
  fixture *f = *state;
  f->folder = test_make_folder("prebuild-damaged");
  name_record("damaged");
  clgpu_context *first = f->contexts[0] = context_in(f->folder);
  run_reduce(f, first);
  end_run(f, 0);
  /* Cut the record in half: its digest no longer checks out. */
  char *path = file_holding(f->folder, "\nrecord: test-prebuild-damaged-");
  assert_non_null(path);
  FILE *file = fopen(path, "rb");
  assert_non_null(file);
  assert_int_equal(fseek(file, 0, SEEK_END), 0);
  long size = ftell(file);
  fclose(file);
  assert_true(size > 0);
  assert_int_equal(truncate(path, size / 2), 0);

  clgpu_context *second = f->contexts[1] = context_in(f->folder);
  clgpu_prebuild_stats stats;
  replay(f, second, &stats);
  assert_int_equal(stats.programs, 0);
  /* The next program the context gets writes a whole record again. */
  run_reduce(f, second);
  clgpu_context *third = f->contexts[2] = context_in(f->folder);
  replay(f, third, &stats);
  assert_int_equal(stats.programs, 1);
  assert_int_equal(stats.from_disk, 1);
  free(path);
}

static void test_call_during_a_prebuild(void **state) {
  fixture *f = *state;
  f->folder = test_make_folder("prebuild-during");
  name_record("during");
  clgpu_context *context = f->contexts[0] = context_in(f->folder);
  /* One thread: the sort's program first, then the reduction's, which the
   * call below needs at once. */
  const clgpu_prebuild_item items[] = {listed_items[3], listed_items[0]};
  clgpu_prebuild_options options = {.items = items, .num_items = 2, .threads = 1, .skip_record = 1};
  assert_status(clgpu_prebuild_start(context, &options, &f->prebuild), CLGPU_SUCCESS);
  run_reduce(f, context);
  run_sort(f, context);
  clgpu_prebuild_stats stats;
  assert_status(clgpu_prebuild_wait(f->prebuild, &stats), CLGPU_SUCCESS);
  /* Whoever came first built each program; nothing was built twice. */
  assert_int_equal(stats.from_memory + stats.built, stats.programs);
  clgpu_cache_stats cache = cache_stats(context);
  assert_int_equal(cache.builds, stats.programs);
  /* The results stay right with every program in memory. */
  run_reduce(f, context);
  assert_int_equal(cache_stats(context).builds, stats.programs);
}

static void test_build_failure_comes_back_from_wait(void **state) {
  fixture *f = *state;
  name_record("failure");
  clgpu_context *context = f->contexts[0] = context_in(NULL);
  clgpu_reduce_op broken = {.kind = CLGPU_REDUCE_CUSTOM,
                            .result_type = CLGPU_TYPE_FLOAT,
                            .map = "x + prebuild_not_declared",
                            .reduce = "a + b",
                            .neutral = "0"};
  const clgpu_prebuild_item items[] = {
      {.kind = CLGPU_PREBUILD_REDUCE, .type = CLGPU_TYPE_FLOAT, .reduce_op = &broken},
      listed_items[0]};
  clgpu_prebuild_options options = {.items = items, .num_items = 2};
  assert_status(clgpu_prebuild_start(context, &options, &f->prebuild), CLGPU_SUCCESS);
  clgpu_prebuild_stats stats;
  assert_status(clgpu_prebuild_wait(f->prebuild, &stats), CLGPU_CL_BUILD_PROGRAM_FAILURE);
  assert_non_null(strstr(clgpu_last_error(), "prebuild_not_declared"));
  assert_non_null(strstr(clgpu_last_error(), "1 of 2 programs failed"));
  assert_int_equal(stats.failed, 1);
  assert_int_equal(stats.built, 1);
  assert_int_equal(cache_stats(context).builds, 2); /* the cache counts failed builds too */
  assert_int_equal(stats.done, 2);
  /* The working program is there, and the call of the broken one fails as
   * its prebuild did. */
  run_reduce(f, context);
  cl_mem buffer = make_buffer(f, 0, context, sizeof(float) * 4, NULL);
  clgpu_array view;
  assert_status(clgpu_array_1d(buffer, 0, CLGPU_TYPE_FLOAT, 4, &view), CLGPU_SUCCESS);
  float result = 0;
  assert_status(clgpu_reduce_read(context, &broken, &result, sizeof result, &view, NULL),
                CLGPU_CL_BUILD_PROGRAM_FAILURE);
}

static const clgpu_define uint_define[] = {{"CLGPU_T", "uint"}};

static void test_changed_source_is_stale(void **state) {
  fixture *f = *state;
  f->folder = test_make_folder("prebuild-stale");
  f->kernel_dir = test_make_folder("prebuild-stale-kernels");
  name_record("stale");
  char *fill = NULL;
  size_t length = 0;
  assert_status(clgpu_kernel_source("fill", &fill, &length), CLGPU_SUCCESS);
  char path[4096];
  snprintf(path, sizeof path, "%s/fill.cl", f->kernel_dir);
  FILE *file = fopen(path, "w");
  assert_non_null(file);
  assert_int_equal(fwrite(fill, 1, length, file), length);
  assert_int_equal(fclose(file), 0);
  free(fill);
  setenv("CLGPU_KERNEL_DIR", f->kernel_dir, 1);

  /* The first run gets fill.cl from the folder, and a program of its own. */
  static const char own[] = "kernel void twice(global uint *x) { x[get_global_id(0)] *= 2; }\n";
  clgpu_context *first = f->contexts[0] = context_in(f->folder);
  clgpu_program *program = NULL;
  assert_status(clgpu_program_get_named(first, "fill", uint_define, 1, NULL, &program),
                CLGPU_SUCCESS);
  test_check_iota(first, program, 1000);
  assert_status(clgpu_program_get(first, own, NULL, 0, NULL, &program), CLGPU_SUCCESS);
  end_run(f, 0);

  /* fill.cl changes: its recipe no longer gives the recorded key. */
  file = fopen(path, "a");
  assert_non_null(file);
  assert_true(fputs("\n/* edited */\n", file) >= 0);
  assert_int_equal(fclose(file), 0);
  clgpu_context *second = f->contexts[1] = context_in(f->folder);
  clgpu_prebuild_stats stats;
  replay(f, second, &stats);
  assert_int_equal(stats.programs, 2);
  assert_int_equal(stats.stale, 1);
  assert_int_equal(stats.from_disk, 1);
  assert_int_equal(stats.built, 0);
  /* The edited file is built by the call that asks for it, and works. */
  assert_status(clgpu_program_get_named(second, "fill", uint_define, 1, NULL, &program),
                CLGPU_SUCCESS);
  test_check_iota(second, program, 1000);
  assert_int_equal(cache_stats(second).builds, 1);
}

static void test_destroyed_while_working(void **state) {
  fixture *f = *state;
  f->folder = test_make_folder("prebuild-destroy");
  name_record("destroy");
  clgpu_context *context = context_in(f->folder);
  clgpu_prebuild_options options = {.items = listed_items, .num_items = 4, .threads = 2};
  clgpu_prebuild *prebuild = NULL;
  assert_status(clgpu_prebuild_start(context, &options, &prebuild), CLGPU_SUCCESS);
  /* The caller's reference goes first; the prebuild keeps the context. */
  clgpu_context_destroy(context);
  clgpu_prebuild_stats stats;
  assert_status(clgpu_prebuild_stats_get(prebuild, &stats), CLGPU_SUCCESS);
  assert_true(stats.done <= stats.programs);
  assert_true(stats.programs >= 4); /* reduce, scan, findall, sort: 1 or more each */
  clgpu_prebuild_destroy(prebuild);
}

static void test_bad_arguments_start_nothing(void **state) {
  fixture *f = *state;
  name_record("bad");
  clgpu_context *context = f->contexts[0] = context_in(NULL);
  clgpu_prebuild *prebuild = (clgpu_prebuild *)context; /* must come back NULL */
  assert_status(clgpu_prebuild_start(context, NULL, NULL), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_prebuild_start(NULL, NULL, &prebuild), CLGPU_INVALID_ARGUMENT);
  assert_null(prebuild);

  clgpu_prebuild_options options = {.num_items = 1};
  prebuild = (clgpu_prebuild *)context;
  assert_status(clgpu_prebuild_start(context, &options, &prebuild), CLGPU_INVALID_ARGUMENT);
  assert_null(prebuild);
  assert_non_null(strstr(clgpu_last_error(), "items is NULL"));

  options = (clgpu_prebuild_options){.threads = 65};
  assert_status(clgpu_prebuild_start(context, &options, &prebuild), CLGPU_INVALID_ARGUMENT);
  assert_non_null(strstr(clgpu_last_error(), "65 threads"));

  static const clgpu_sort_spec bad_bits = {.begin_bit = 1, .end_bit = 9};
  static const clgpu_reduce_op argmin = {.kind = CLGPU_REDUCE_ARGMIN};
  static const struct {
    clgpu_prebuild_item item;
    clgpu_status status;
    const char *says;
  } rows[] = {
      {{.kind = (clgpu_prebuild_kind)99, .type = CLGPU_TYPE_FLOAT},
       CLGPU_INVALID_ARGUMENT,
       "unknown kind 99"},
      {{.kind = CLGPU_PREBUILD_REDUCE, .type = (clgpu_type)999}, CLGPU_INVALID_ARGUMENT, "item 1"},
      {{.kind = CLGPU_PREBUILD_FINDALL, .type = CLGPU_TYPE_INT32, .predicate = "x > 1; }"},
       CLGPU_INVALID_ARGUMENT,
       "item 1"},
      {{.kind = CLGPU_PREBUILD_SORT, .type = CLGPU_TYPE_UINT32, .value_bytes = 3},
       CLGPU_INVALID_ARGUMENT,
       "value_bytes is 3"},
      {{.kind = CLGPU_PREBUILD_SORT, .type = CLGPU_TYPE_OPAQUE}, CLGPU_TYPE_MISMATCH, "opaque"},
      {{.kind = CLGPU_PREBUILD_SEARCH, .type = CLGPU_TYPE_OPAQUE}, CLGPU_TYPE_MISMATCH, "opaque"},
      {{.kind = CLGPU_PREBUILD_SEARCH, .type = CLGPU_TYPE_INT32, .sort_spec = &bad_bits},
       CLGPU_INVALID_ARGUMENT,
       "radix sort only"},
      {{.kind = CLGPU_PREBUILD_HISTOGRAM, .type = CLGPU_TYPE_UINT32},
       CLGPU_INVALID_ARGUMENT,
       "no bins"},
      {{.kind = CLGPU_PREBUILD_HISTOGRAM,
        .type = CLGPU_TYPE_UINT32,
        .bins = 4,
        .count_type = CLGPU_TYPE_INT32},
       CLGPU_TYPE_MISMATCH,
       "counts are uint or ulong"},
      {{.kind = CLGPU_PREBUILD_HISTOGRAM,
        .type = CLGPU_TYPE_UINT32,
        .bins = 4,
        .lower = &hist_lower},
       CLGPU_INVALID_ARGUMENT,
       "both NULL"},
      {{.kind = CLGPU_PREBUILD_HISTOGRAM,
        .type = CLGPU_TYPE_UINT32,
        .bins = 4,
        .lower = &hist_upper,
        .upper = &hist_lower},
       CLGPU_INVALID_ARGUMENT,
       "above upper"},
      {{.kind = CLGPU_PREBUILD_RUN_LENGTH_ENCODE,
        .type = CLGPU_TYPE_UINT32,
        .count_type = CLGPU_TYPE_FLOAT},
       CLGPU_TYPE_MISMATCH,
       "uint or ulong"},
      {{.kind = CLGPU_PREBUILD_PARTITION, .type = CLGPU_TYPE_INT32, .predicate = "x > 1; }"},
       CLGPU_INVALID_ARGUMENT,
       "item 1"},
      {{.kind = CLGPU_PREBUILD_REDUCE_BY_KEY, .type = CLGPU_TYPE_UINT32, .reduce_op = &argmin},
       CLGPU_INVALID_ARGUMENT,
       "ARGMIN"},
      {{.kind = CLGPU_PREBUILD_UNIQUE, .type = CLGPU_TYPE_OPAQUE}, CLGPU_TYPE_MISMATCH, "opaque"},
  };
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
    /* The bad item second, after a good one: nothing starts either way. */
    const clgpu_prebuild_item items[] = {listed_items[0], rows[r].item};
    options = (clgpu_prebuild_options){.items = items, .num_items = 2};
    prebuild = (clgpu_prebuild *)context;
    assert_status(clgpu_prebuild_start(context, &options, &prebuild), rows[r].status);
    assert_null(prebuild);
    if (!strstr(clgpu_last_error(), rows[r].says)) {
      fail_msg("row %zu: \"%s\" does not say \"%s\"", r, clgpu_last_error(), rows[r].says);
    }
  }
  /* Nothing was built or loaded by the refused starts. */
  clgpu_cache_stats stats = cache_stats(context);
  assert_int_equal(stats.builds + stats.disk_hits + stats.memory_hits, 0);

  clgpu_prebuild_stats counts;
  assert_status(clgpu_prebuild_wait(NULL, &counts), CLGPU_INVALID_ARGUMENT);
  assert_status(clgpu_prebuild_stats_get(NULL, &counts), CLGPU_INVALID_ARGUMENT);
  clgpu_prebuild_destroy(NULL);

  /* No record and no items: done at once. */
  options = (clgpu_prebuild_options){0};
  assert_status(clgpu_prebuild_start(context, &options, &f->prebuild), CLGPU_SUCCESS);
  assert_status(clgpu_prebuild_stats_get(f->prebuild, &counts), CLGPU_SUCCESS);
  assert_int_equal(counts.programs, 0);
  assert_status(clgpu_prebuild_wait(f->prebuild, NULL), CLGPU_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_items_cover_their_calls, setup, teardown),
      cmocka_unit_test_setup_teardown(test_more_items_cover_their_calls, setup, teardown),
      cmocka_unit_test_setup_teardown(test_findall_in_each_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sort_item_covers_the_permutation, setup, teardown),
      cmocka_unit_test_setup_teardown(test_record_replays_in_a_later_context, setup, teardown),
      cmocka_unit_test_setup_teardown(test_damaged_record_is_ignored_and_rewritten, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_call_during_a_prebuild, setup, teardown),
      cmocka_unit_test_setup_teardown(test_build_failure_comes_back_from_wait, setup, teardown),
      cmocka_unit_test_setup_teardown(test_changed_source_is_stale, setup, teardown),
      cmocka_unit_test_setup_teardown(test_destroyed_while_working, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_arguments_start_nothing, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
