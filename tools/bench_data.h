/* The host side of clgpu-bench run's element types (bench_data.c): random
 * data, the CPU baselines' loops, the reference sort and the checks of what
 * the device wrote. */
#ifndef CLGPU_BENCH_DATA_H
#define CLGPU_BENCH_DATA_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/clgpu.h>

typedef struct check_message {
  char text[512];
} check_message;

/* A 2-D view of host memory, in elements: element (r, k) of the view is
 * base[first + r * row_stride + k * column_stride], written row-major into a
 * contiguous output (rows * columns elements). A 1-D view is one row. */
typedef struct elementwise_layout {
  size_t rows, columns;
  ptrdiff_t row_stride, column_stride;
  size_t first;
} elementwise_layout;

typedef struct host_type {
  const char *name; /* as --types takes it */
  clgpu_type type;
  size_t size;
  int is_float;
  const char *predicate;    /* OpenCL C, selects about 10% of the data */
  unsigned char gpu_key[8]; /* a value the GPU-shape read kernel compares with */
  void (*generate)(void *data, size_t n, uint64_t seed);
  void (*sum)(const void *data, size_t begin, size_t end, void *out);
  size_t (*count)(const void *data, size_t begin, size_t end);
  void (*scan)(const void *in, void *out, size_t n);
  size_t (*findall)(const void *in, uint32_t *indices, size_t n);
  void (*copy)(const void *in, void *out, size_t n);
  void (*copy_reversed)(const void *in, void *out, size_t n);
  /* Checks: 0 when right, else 1 with the first difference in *message. */
  int (*check_sum)(const void *in, size_t n, const void *result, check_message *message);
  int (*check_scan)(const void *in, size_t n, const void *out, check_message *message);
  int (*check_selected)(const void *in, size_t n, const void *out, uint64_t count, int as_indices,
                        check_message *message);
  int (*check_reversed)(const void *in, size_t n, const void *out, check_message *message);
  /* Sorts: how keys order (their bits' order-preserving image), and glibc
   * qsort's comparators over keys and over (key, uint32 value) pairs. */
  int kind;
  int (*compare)(const void *a, const void *b);
  int (*compare_pair)(const void *a, const void *b); /* ties broken by value: stable */
  size_t pair_size;
  void (*make_pairs)(const void *keys, const uint32_t *values, void *pairs, size_t n);
  /* The elementwise ops (elementwise_layout describes a 2-D view of host
   * memory): y = a * x + z over n elements; y = x * x over a view into a
   * contiguous y; and their checks (0 when right, else 1 with *message). */
  void (*axpy)(const void *a, const void *x, const void *z, void *y, size_t n);
  int (*check_axpy)(const void *a, const void *x, const void *z, const void *y, size_t n,
                    check_message *message);
  void (*square)(const void *x, const struct elementwise_layout *layout, void *y);
  int (*check_square)(const void *x, const struct elementwise_layout *layout, const void *y,
                      check_message *message);
  /* partition: the C baseline, one thread (the selected elements counted,
   * then each written to the next place of its side), into out (n
   * elements), returning the count of selected; and the check of a stable
   * partition by the predicate with `count` selected (0 when right, else 1
   * with *message). */
  size_t (*partition)(const void *in, void *out, size_t n);
  int (*check_partition)(const void *in, size_t n, const void *out, uint64_t count,
                         check_message *message);
} host_type;

enum { KIND_UNSIGNED, KIND_SIGNED, KIND_FLOAT };

/* Every type run measures, in --types' order of defaults (index 0 is uint32,
 * 1 float: the bits of op_info's type masks). */
#define NUM_HOST_TYPES 5
extern const host_type bench_host_types[NUM_HOST_TYPES];

/* The strided copies' host side, by element size: copy the view `l` of x
 * into the contiguous y, and check such a copy (0 when right, else 1 with
 * *message). */
void bench_copy_layout(size_t size, const void *x, const elementwise_layout *l, void *y);
int bench_check_copy_layout(size_t size, const void *x, const elementwise_layout *l, const void *y,
                            check_message *message);

/* The CPU baseline of the radix sorts: a stable LSD radix sort of n keys (and
 * their uint32 values when values is not NULL), one thread, through buffers
 * of as many keys and values. */
void bench_radix_sort_host(const host_type *t, void *keys, uint32_t *values, void *tmp_keys,
                           uint32_t *tmp_values, size_t n);

/* The bits of element i of data. */
uint64_t bench_element_bits(const host_type *t, const void *data, size_t i);

/* The order-preserving image of an element's bits, sort.h's order. */
uint64_t bench_element_image(const host_type *t, uint64_t bits);

/* Check a sort's output against the reference permutation `perm` (see
 * bench_data.c): 0 when right, else 1 with *message. */
int bench_check_sorted(const host_type *t, const void *in, size_t n, const uint32_t *perm,
                       const void *keys, const uint32_t *values, int stable, unsigned char *scratch,
                       check_message *message);

/* lower_bound's CPU baseline, one thread: for each of the m needles, the
 * lower bound in the n keys of `haystack` (sorted in sort.h's order) by the
 * branching binary search of std::lower_bound, which compares the keys'
 * order-preserving images; into positions, uint32 (uint64 when `wide`). */
void bench_lower_bound_host(const host_type *t, const void *haystack, size_t n, const void *needles,
                            size_t m, void *positions, int wide);

/* The lower bound of each of n keys in the same keys sorted, without a
 * search: `sorted` holds them in sort.h's order, sorted[j] the key
 * perm[j] (the sorting permutation), and key perm[j] goes where the run of
 * keys equal to sorted[j] starts. Into positions, uint32 (uint64 when
 * `wide`). */
void bench_lower_bound_reference(const host_type *t, const void *sorted, const uint32_t *perm,
                                 size_t n, void *positions, int wide);

/* Check lower bounds against their definition: the haystack in sort.h's
 * order, and for each needle every key before its position ordered below
 * it and none from there on (the keys beside the position tell). 0 when
 * right, else 1 with *message. */
int bench_check_lower_bound(const host_type *t, const void *haystack, size_t n, const void *needles,
                            size_t m, const void *positions, int wide, check_message *message);

/* Compare the m positions a search wrote (`got`) with the expected ones: 0
 * when equal, else 1 with the first difference and its needle in *message,
 * as `who` ("the C binary search's") names the expected side. */
int bench_check_positions(const host_type *t, const void *needles, size_t m, const void *got,
                          const void *expected, int wide, const char *who, check_message *message);

/* The by-key ops' keys: n uint32 keys in runs of 1 to max_run equal keys
 * (lengths uniform, from the seed; the last run cut at n), each run's key
 * random and unlike the one before; starts[r] receives where run r starts
 * (room for n). Returns the number of runs. */
uint64_t bench_generate_runs(uint32_t *keys, size_t n, unsigned max_run, uint64_t seed,
                             uint32_t *starts);

/* reduce_by_key's C baseline, one thread: a head wherever a key differs from
 * the one before; each run's key into run_keys and the SUM of its values
 * (of t, integers wrapping) into sums, each with room for n. Returns the
 * number of runs. */
uint64_t bench_reduce_by_key_host(const host_type *t, const uint32_t *keys, const void *values,
                                  size_t n, uint32_t *run_keys, void *sums);

/* scan_by_key's C baseline, one thread: the inclusive SUM of the values
 * restarting at each head, into output (n values of t). */
void bench_scan_by_key_host(const host_type *t, const uint32_t *keys, const void *values, size_t n,
                            void *output);

/* Check a reduce by key against the runs as generated (starts, runs): the
 * count, each run's key, and each run's sum against the host's sum of its
 * values (t->check_sum: integers exact, floats within its tolerance of the
 * run's absolute sum). 0 when right, else 1 with *message. */
int bench_check_reduce_by_key(const host_type *t, const uint32_t *keys, const void *values,
                              const uint32_t *starts, uint64_t runs, size_t n, uint64_t count,
                              const uint32_t *run_keys, const void *sums, check_message *message);

/* unique's C baseline, one thread: the key at each head (a key unlike the
 * one before) into run_keys (room for n). Returns the number of runs. */
uint64_t bench_unique_host(const uint32_t *keys, size_t n, uint32_t *run_keys);

/* Check a unique against the runs as generated (starts, runs): the count
 * and each run's key exactly. 0 when right, else 1 with *message. */
int bench_check_unique(const uint32_t *keys, const uint32_t *starts, uint64_t runs, uint64_t count,
                       const uint32_t *run_keys, check_message *message);

/* Check a scan by key against the runs as generated: each run's elements
 * an inclusive scan of its own values (t->check_scan). 0 when right, else 1
 * with *message. */
int bench_check_scan_by_key(const host_type *t, const void *values, const uint32_t *starts,
                            uint64_t runs, size_t n, const void *output, check_message *message);

/* histogram's bounds over t's data, the whole range bench_host_types'
 * generate draws it from: integers the type's minimum and maximum, float
 * and double 0 and 1 (the data in [0, 1)). Into lower and upper, a value
 * of t each (histogram.h's `lower` and `upper`). */
void bench_histogram_bounds(const host_type *t, void *lower, void *upper);

/* histogram's C baseline, one thread: counts[b] (`bins` of them, zeroed
 * first) the number of the n elements of data (of t) in even bin b of
 * [*lower, *upper], by histogram.h's formula (floats: (V)(x - lower) *
 * scale, the last bin taking what reaches `bins`; integers: floor((x -
 * lower) * bins / N), N = upper - lower + 1). Where N and bins are powers
 * of two, bins <= N (the bench's full ranges: N = 2^32 or 2^64, 256 bins),
 * an integer's bin is (x - lower) >> (log2 N - log2 bins), which is that
 * floor exactly. */
void bench_histogram_host(const host_type *t, const void *data, size_t n, const void *lower,
                          const void *upper, uint32_t *counts, size_t bins);

/* The same counts by histogram.h's formula as written (integers: the
 * 128-bit product (x - lower) * bins divided by N, no shift): the
 * reference of the device's and the C baseline's. */
void bench_histogram_reference(const host_type *t, const void *data, size_t n, const void *lower,
                               const void *upper, uint32_t *counts, size_t bins);

/* Compare `bins` counts a histogram wrote (`got`) with the expected ones: 0
 * when equal, else 1 with the first bin that differs and both totals in
 * *message. */
int bench_check_histogram(const uint32_t *got, const uint32_t *expected, size_t bins,
                          check_message *message);

/* segmented_sort's offsets: segments of `keys` keys over n, the last one
 * shorter where n is not a multiple; offsets[k] = min(k * keys, n) for k
 * from 0 to the number of segments, which is returned (room for n / keys
 * + 2 offsets). */
uint64_t bench_segment_offsets(uint32_t *offsets, size_t n, size_t keys);

/* segmented_sort's C baseline, one thread: each segment [offsets[k],
 * offsets[k + 1]) of `in` (n keys of t) sorted into the same place of out
 * by an insertion sort, out of place, comparing the keys' order images
 * (sort.h's order), stable. */
void bench_segmented_sort_host(const host_type *t, const void *in, void *out,
                               const uint32_t *offsets, uint64_t segments);

/* The reference of segmented_sort: each segment of `in` sorted into the
 * same place of `expected` by qsort over (order image, index) pairs (the
 * stable order, by another way than the baseline's). 0, or -1 when out of
 * host memory. */
int bench_segmented_sort_reference(const host_type *t, const void *in, void *expected,
                                   const uint32_t *offsets, uint64_t segments);

/* Compare the n keys a segmented sort wrote (`got`) with the reference: 0
 * when equal bit for bit, else 1 with the first key that differs and its
 * segment in *message. */
int bench_check_segmented_sort(const host_type *t, const void *got, const void *expected, size_t n,
                               const uint32_t *offsets, uint64_t segments, check_message *message);

/* segmented_sort's Boost.Compute peer's keys (32-bit types only): for each
 * key i of segment k, packed[i] = k << 32 | the key's order image, so that
 * one sort of the uint64 sorts within the segments. */
void bench_segmented_pack(const host_type *t, const void *in, const uint32_t *offsets,
                          uint64_t segments, uint64_t *packed);

/* Check the packed keys after such a sort against the reference: key i of
 * segment k must be k << 32 | the order image of expected[i]. 0 when
 * right, else 1 with *message. */
int bench_check_segmented_packed(const host_type *t, const uint64_t *packed, const void *expected,
                                 const uint32_t *offsets, uint64_t segments,
                                 check_message *message);

#endif
