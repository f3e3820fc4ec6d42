/* What clgpu-bench run's measuring files share (bench_case.c): a row of
 * results, an operation's first calls, and the case (one type and size)
 * with its buffers, views and host data; failure messages of an operation. */
#ifndef CLGPU_BENCH_CASE_H
#define CLGPU_BENCH_CASE_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/clgpu.h>

#include "bench_common.h"
#include "bench_data.h"
#include "bench_plan.h"

/* A median with min and max, in ms (bench_common.h). */
typedef bench_timing timing;

/* The memory limits of a case (bench_limit.c), measured once per case (type
 * and size) before its operations, in rounds of every figure in turn, each
 * the median of `calls` timed rounds (--repeat, at least 11) after `warmup`;
 * bytes as the read and copy kernels count them (n*size read; n*size read +
 * n*size written). */
typedef struct bench_limits {
  int measured; /* 0: none (the row's case measured none) */
  int calls, warmup;
  int threads;        /* the host's threads of host_copy and host_read */
  int host_counts;    /* a CPU device: the host figures bound the device too */
  timing host_memcpy; /* memcpy on one thread */
  timing host_copy;   /* memcpy of a share per thread, on `threads` threads */
  timing host_read;   /* a 64-bit sum of a share per thread, on `threads` threads */
  timing copy_buffer; /* clEnqueueCopyBuffer on the device, to clFinish */
  timing read_kernel, copy_kernel; /* the reference kernels, in the same rounds */
  double host_memcpy_gbps, host_copy_gbps, host_read_gbps, copy_buffer_gbps; /* NaN: none */
  double read_kernel_gbps, copy_kernel_gbps;
} bench_limits;

/* One row: an operation on one type and size. */
typedef struct result {
  int op;
  const host_type *type;
  size_t n;
  double bytes;      /* the bytes the operation must move */
  uint64_t selected; /* findall, count_if: elements selected */
  uint64_t runs;     /* reduce_by_key, scan_by_key: runs of equal keys */
  uint64_t segments; /* segmented_sort: segments of SEGMENT_KEYS keys */
  char algorithm[24];
  timing wall, event;
  timing reference;      /* the read or copy kernel, timed alternately with this operation */
  double reference_gbps; /* its wall-clock GB/s; NaN if none */
  timing cpu;
  int cpu_calls; /* the timed calls behind cpu */
  timing boost;
  char boost_note[640]; /* why Boost has no figure, if it has none */
  int repeat, warmup;   /* the calls behind wall and event (bench_op_calls, --max-time) */
  timing qsort;         /* sorts: glibc qsort on the host, beside the LSD radix in cpu */
  int qsort_calls;
  /* The timed calls' own figures, in their order, repeat each (malloc'ed;
   * NULL when the row has none): wall clock and event (NaN where the event
   * has no time), in ms. planned_repeat: the timed calls bench_op_calls
   * gave the row, which --max-time may have lowered to repeat. */
  double *wall_samples, *event_samples;
  int planned_repeat;
  /* Every row: the elements the operation writes (n, but the view's count
   * for the strided ops) and its shape label ("16M", or "4000x4000" for an
   * s x s array). */
  size_t elements;
  char shape[32];
  /* The ops with a peer (op_info.peer): the peer timed in the same run, its
   * calls alternating with the operation's, over the same bytes. */
  int has_peer;
  timing peer_wall, peer_event;
  char layout[96];      /* the operation's view, in words */
  char peer_launch[96]; /* how the peer ran */
  /* The elementwise ops: the kernel object's counters after the run, the
   * runs of the operation's own calls by kernel (the peer's excluded), and
   * the context's program cache over clgpu's calls (and a clgpu peer's). */
  int has_elementwise;
  clgpu_elementwise_stats kernel_stats;
  uint64_t op_contiguous_runs, op_specialised_runs, op_generic_runs;
  int has_cache;
  uint64_t cache_builds, cache_memory_hits, cache_disk_hits;
  double cache_build_ms;
  /* The limits of the row's case (bench_limit.h). */
  bench_limits limits;
} result;

/* The first calls' size: this many elements at most (the 2-D ops: 256x256). */
#define FIRST_CALL_N ((size_t)64 << 10)

/* One side of an operation's first calls (cold or warm), measured in a
 * child process of its own: the first call in a fresh context, what the
 * context's program cache did over it, and the later calls. */
typedef struct first_call_side {
  double ms;
  clgpu_cache_stats stats;
  timing steady;
  int steady_calls, steady_warmup;
  /* Programs the later calls (warm-up calls included) built from source and
   * loaded from the disk cache (a layout that specialises at its second
   * call, say), and how many of them came in the timed calls. */
  uint64_t steady_builds, steady_disk_hits, timed_programs;
  /* The prebuilt side: clgpu_prebuild_start over the record and its wait,
   * before the first call (0 on the other sides). */
  double prebuild_ms;
  uint64_t prebuild_programs;
} first_call_side;

/* The first calls of an operation at one type (bench_measure_first_call): cold
 * with an empty disk cache, then warm over what the cold side left. */
typedef struct first_call {
  int op;
  const host_type *type;
  size_t n;
  char shape[32];
  first_call_side cold, warm, prebuilt;
} first_call;

/* Everything one (type, size) needs. */
typedef struct bench_case {
  clgpu_context *context;
  cl_command_queue queue;
  const clgpu_device_info *device;
  const run_options *options;
  const host_type *type;
  size_t n;
  int cpu_shape;
  bench_limits limits; /* measured at the case's start (bench_measure_limits) */
  /* --max-time: when the budget ends (bench_now_ms's clock) and the rows
   * still to measure, this one included; deadline_ms 0: no budget. */
  double deadline_ms;
  size_t rows_left;
  /* What a timed call costs with what follows it in its row (the CPU
   * baseline's and Boost.Compute's calls), as a multiple of the call alone,
   * learned from the row before (0: none yet); the time the row's timed
   * calls started and took (bench_measure.c). */
  double cost_factor;
  double timed_start_ms, timed_loop_ms;
  void *host_in;       /* the data */
  void *host_out;      /* what the device wrote, read back */
  void *cpu_out;       /* the CPU baselines' output */
  uint32_t *cpu_index; /* findall's CPU baseline */
  cl_mem d_in, d_out, d_indices, d_result, d_count;
  clgpu_array v_in, v_reversed, v_out, v_indices, v_result, v_count64, v_count;
  uint64_t selected;
  /* The sorts' (bench_prepare_sorts, at the first sort of a case): keys are sorted
   * in d_out, values and permutations in d_indices, refilled before every
   * call from d_in and d_iota (0, 1, ..., n-1). */
  int sorts_ready;
  cl_mem d_iota;
  uint32_t *perm;                  /* the stable sorting permutation of host_in: the reference */
  uint32_t *host_values;           /* values or permutation read back */
  uint32_t *iota;                  /* 0, 1, ..., n-1 on the host */
  unsigned char *scratch;          /* n / 8 + 1 bytes for bench_check_sorted */
  void *sort_keys, *sort_tmp_keys; /* the host baselines' keys (n each) */
  uint32_t *sort_values, *sort_tmp_values;
  void *pairs; /* qsort's (key, value) pairs */
  /* The host baselines are the same work for several sorts of a case
   * (radix_sort and merge_sort, sort_by_key and argsort): timed once. */
  timing baseline[4];
  int baseline_done[4];
  /* lower_bound's (bench_prepare_search, at its first call in a case): the
   * haystack, the data sorted on the host in sort.h's order (host_haystack,
   * uploaded to d_haystack), and n positions of search_wide ? 8 : 4 bytes
   * each: the reference (search_expected, from the sort, no search), the
   * device's (d_positions, read back into search_got) and the C binary
   * search's (search_positions). Needles: the data, v_in. */
  int search_ready, search_wide;
  void *host_haystack, *search_expected, *search_got, *search_positions;
  cl_mem d_haystack, d_positions;
  clgpu_array v_haystack, v_positions;
  /* reduce_by_key's, scan_by_key's and unique's (bench_prepare_by_key, at
   * the first of them in a case): the keys, uint32 runs of 1 to BY_KEY_MAX_RUN equal
   * keys (host_keys, uploaded to d_keys), and the runs as generated, the
   * checks' reference (run_starts, num_runs). Values: the data, v_in.
   * Outputs: the run keys in v_indices, the sums or the scan in v_out, the
   * count in v_count (unique: the run keys and the count only); run keys
   * read back into run_keys_got. The C
   * baselines write run keys to cpu_index, sums and scans to cpu_out, and
   * the number of runs to cpu_runs. */
  int by_key_ready;
  uint32_t *host_keys, *run_starts, *run_keys_got;
  uint64_t num_runs, cpu_runs;
  cl_mem d_keys;
  clgpu_array v_keys;
  /* histogram's (bench_prepare_histogram, at its first call in a case): the
   * bounds, a value of the type each (bench_histogram_bounds); the counts,
   * HISTOGRAM_BINS uint32 in d_histogram (v_histogram), read back into
   * histogram_got; the reference (histogram_expected) and the C baseline's
   * counts (histogram_cpu). */
  int histogram_ready;
  unsigned char histogram_lower[8], histogram_upper[8];
  cl_mem d_histogram;
  clgpu_array v_histogram;
  uint32_t histogram_expected[HISTOGRAM_BINS], histogram_got[HISTOGRAM_BINS],
      histogram_cpu[HISTOGRAM_BINS];
  /* segmented_sort's (bench_prepare_segmented, at its first call in a
   * case): the offsets of num_segments segments of SEGMENT_KEYS keys,
   * num_segments + 1 uint32 on the host (segment_offsets) and on the device
   * (d_offsets, v_offsets), and the reference (segmented_expected, n keys).
   * The keys are sorted in d_out (v_out), refilled from d_in before every
   * call as the sorts' are; the C baseline writes cpu_out. Boost.Compute's
   * peer (32-bit keys, made at its first run): the packed keys in d_packed,
   * copied into d_packed_work and sorted there. */
  int segmented_ready;
  uint64_t num_segments;
  uint32_t *segment_offsets;
  void *segmented_expected;
  cl_mem d_offsets, d_packed, d_packed_work;
  clgpu_array v_offsets;
  /* partition's C baseline's count of selected elements (its elements in
   * cpu_out); clgpu's go to d_out and d_count (v_out, v_count). */
  uint64_t partition_cpu_count;
  /* The ops with a peer (bench_setup_peer_op, per operation): the operation's
   * source and destination views (and z for elementwise), the peer's, the
   * host side of the source view, the elements written, and the buffers
   * they add (made at the first such op of a case): d_z and host_z (z of
   * y = a * x + z), d_peer_out (the peer's output) and host_peer. */
  int peer_ready;
  cl_mem d_z, d_peer_out;
  void *host_z, *host_peer;
  clgpu_array op_src, op_dst, v_z, peer_src, peer_dst;
  elementwise_layout layout;
  size_t count;
  unsigned char scalar_a[8]; /* a of y = a * x + z, of the type */
  clgpu_elementwise *kernel; /* the op's kernel object, made once per case and op */
  cl_program hand_program;   /* elementwise's hand-written peer */
  cl_kernel hand_kernel;
  int hand_guarded; /* its global size was rounded up: it takes n */
  size_t hand_global;
} bench_case;

/* The host baselines of the sorts (bench_case.baseline). */
enum { BASE_RADIX_KEYS, BASE_RADIX_PAIRS, BASE_QSORT_KEYS, BASE_QSORT_PAIRS };

/* "clgpu-bench run: OP TYPE N: WHAT: STATUS..." on stderr; returns 1. */
int bench_op_failure(const bench_case *c, int op, const char *what, clgpu_status status);

/* "clgpu-bench run: WRONG RESULT from WHO OP over N TYPE: ..." on stderr;
 * returns 1. */
int bench_wrong_result(const bench_case *c, int op, const char *who, const check_message *message);

/* Read `bytes` of `buffer` into `host`, blocking. */
clgpu_status bench_read_buffer(bench_case *c, cl_mem buffer, size_t bytes, void *host);

#endif
