/* clgpu-bench run's measurement of one operation on one case
 * (bench_measure.h): the case's buffers, the calls, the sorts' refill and
 * reference, lower_bound's haystack and reference, histogram's bounds and
 * reference, the by-key ops' keys and runs, segmented_sort's offsets and
 * reference, the checks of every result, and the CPU, Boost.Compute and
 * peer figures beside them. */
#include "bench_measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_boost.h"
#include "bench_cpu.h"
#include "bench_peers.h"
#include "bench_reference.h"

static const clgpu_reduce_op sum_op = {CLGPU_REDUCE_SUM, NULL, (clgpu_type)0, NULL, NULL, NULL};
static const clgpu_scan_op scan_op = {CLGPU_SCAN_SUM, 0, NULL, NULL};

/* merge_sort's spec: the comparator path (a built-in key type with an
 * expression), not the natural order. */
static const clgpu_sort_spec merge_spec = {0, SORT_COMPARE, NULL, NULL, 0, 0, 0};

static const clgpu_sort_spec *sort_spec(int op) { return op == OP_MERGE_SORT ? &merge_spec : NULL; }

clgpu_algorithm bench_sort_algorithm(int op) {
  return op == OP_MERGE_SORT || op == OP_SEGMENTED_SORT ? CLGPU_ALGORITHM_MERGE
                                                        : CLGPU_ALGORITHM_RADIX;
}

clgpu_status bench_enqueue_op(bench_case *c, int op, const clgpu_call_options *call,
                              const clgpu_sort_options *sort_call, cl_event *event) {
  switch (op) {
    case OP_RADIX_SORT:
    case OP_MERGE_SORT:
      return clgpu_sort(c->context, sort_spec(op), &c->v_out, NULL, sort_call, 0, NULL, event);
    case OP_SORT_BY_KEY:
      return clgpu_sort(c->context, NULL, &c->v_out, &c->v_indices, sort_call, 0, NULL, event);
    case OP_ARGSORT:
      return clgpu_sort_permutation(c->context, NULL, &c->v_indices, &c->v_in, sort_call, 0, NULL,
                                    event);
    case OP_READ:
      return bench_enqueue_reference(c, 0, event);
    case OP_COPY_KERNEL:
      return bench_enqueue_reference(c, 1, event);
    case OP_REDUCE:
      return clgpu_reduce(c->context, &sum_op, CLGPU_ALL_AXES, &c->v_result, &c->v_in, call, 0,
                          NULL, event);
    case OP_COUNT_IF:
      return clgpu_count_if(c->context, c->type->predicate, &c->v_count64, &c->v_in, call, 0, NULL,
                            event);
    case OP_SCAN:
      return clgpu_scan(c->context, &scan_op, CLGPU_ALL_AXES, &c->v_out, &c->v_in, call, 0, NULL,
                        event);
    case OP_FINDALL:
      return clgpu_findall(c->context, c->type->predicate, &c->v_indices, &c->v_count, &c->v_in,
                           call, 0, NULL, event);
    case OP_LOWER_BOUND:
      return clgpu_lower_bound(c->context, NULL, &c->v_positions, &c->v_in, &c->v_haystack, call, 0,
                               NULL, event);
    case OP_HISTOGRAM:
      return clgpu_histogram_even(c->context, c->histogram_lower, c->histogram_upper,
                                  &c->v_histogram, &c->v_in, call, 0, NULL, event);
    case OP_REDUCE_BY_KEY:
      return clgpu_reduce_by_key(c->context, &sum_op, NULL, &c->v_indices, &c->v_out, &c->v_count,
                                 &c->v_keys, &c->v_in, call, 0, NULL, event);
    case OP_SCAN_BY_KEY:
      return clgpu_scan_by_key(c->context, &scan_op, NULL, &c->v_out, &c->v_in, &c->v_keys, call, 0,
                               NULL, event);
    case OP_UNIQUE:
      return clgpu_unique(c->context, NULL, &c->v_indices, &c->v_count, &c->v_keys, call, 0, NULL,
                          event);
    case OP_SEGMENTED_SORT:
      return clgpu_segmented_sort(c->context, NULL, &c->v_out, NULL, &c->v_offsets, sort_call, 0,
                                  NULL, event);
    case OP_PARTITION:
      return clgpu_partition(c->context, c->type->predicate, &c->v_out, &c->v_count, &c->v_in, call,
                             0, NULL, event);
    case OP_COPY:
      return clgpu_copy(c->context, &c->v_out, &c->v_in, 0, NULL, event);
    case OP_ELEMENTWISE: {
      const clgpu_elementwise_value values[] = {
          {&c->op_dst, NULL}, {NULL, c->scalar_a}, {&c->op_src, NULL}, {&c->v_z, NULL}};
      return clgpu_elementwise_run(c->kernel, values, 0, NULL, event);
    }
    case OP_ELEMENTWISE_STRIDED:
    case OP_ELEMENTWISE_TRANSPOSED: {
      const clgpu_elementwise_value values[] = {{&c->op_dst, NULL}, {&c->op_src, NULL}};
      return clgpu_elementwise_run(c->kernel, values, 0, NULL, event);
    }
    case OP_STRIDED_COPY:
    case OP_STRIDED_COPY_TRANSPOSED:
      return clgpu_copy(c->context, &c->op_dst, &c->op_src, 0, NULL, event);
    default:
      return clgpu_copy(c->context, &c->v_out, &c->v_reversed, 0, NULL, event);
  }
}

/* The workspace report of an operation that takes one; 0 when it takes none. */
static int workspace_report(bench_case *c, int op, const clgpu_call_options *call,
                            const clgpu_sort_options *sort_call, clgpu_workspace_size *report,
                            clgpu_status *status) {
  switch (op) {
    case OP_RADIX_SORT:
    case OP_MERGE_SORT:
      *status =
          clgpu_sort_workspace_size(c->context, sort_spec(op), &c->v_out, NULL, sort_call, report);
      return 1;
    case OP_SORT_BY_KEY:
      *status =
          clgpu_sort_workspace_size(c->context, NULL, &c->v_out, &c->v_indices, sort_call, report);
      return 1;
    case OP_ARGSORT:
      *status = clgpu_sort_permutation_workspace_size(c->context, NULL, &c->v_indices, &c->v_in,
                                                      sort_call, report);
      return 1;
    case OP_REDUCE:
      *status = clgpu_reduce_workspace_size(c->context, &sum_op, CLGPU_ALL_AXES, &c->v_result,
                                            &c->v_in, call, report);
      return 1;
    case OP_COUNT_IF:
      *status = clgpu_count_if_workspace_size(c->context, c->type->predicate, &c->v_count64,
                                              &c->v_in, call, report);
      return 1;
    case OP_SCAN:
      *status = clgpu_scan_workspace_size(c->context, &scan_op, CLGPU_ALL_AXES, &c->v_out, &c->v_in,
                                          call, report);
      return 1;
    case OP_FINDALL:
      *status = clgpu_findall_workspace_size(c->context, c->type->predicate, &c->v_indices,
                                             &c->v_count, &c->v_in, call, report);
      return 1;
    case OP_LOWER_BOUND:
      *status = clgpu_search_workspace_size(c->context, NULL, &c->v_positions, &c->v_in,
                                            &c->v_haystack, call, report);
      return 1;
    case OP_HISTOGRAM:
      *status =
          clgpu_histogram_even_workspace_size(c->context, c->histogram_lower, c->histogram_upper,
                                              &c->v_histogram, &c->v_in, call, report);
      return 1;
    case OP_REDUCE_BY_KEY:
      *status =
          clgpu_reduce_by_key_workspace_size(c->context, &sum_op, NULL, &c->v_indices, &c->v_out,
                                             &c->v_count, &c->v_keys, &c->v_in, call, report);
      return 1;
    case OP_SCAN_BY_KEY:
      *status = clgpu_scan_by_key_workspace_size(c->context, &scan_op, NULL, &c->v_out, &c->v_in,
                                                 &c->v_keys, call, report);
      return 1;
    case OP_UNIQUE:
      *status = clgpu_unique_workspace_size(c->context, NULL, &c->v_indices, NULL, &c->v_count,
                                            &c->v_keys, NULL, call, report);
      return 1;
    case OP_SEGMENTED_SORT:
      *status = clgpu_segmented_sort_workspace_size(c->context, NULL, &c->v_out, NULL,
                                                    &c->v_offsets, sort_call, report);
      return 1;
    case OP_PARTITION:
      *status = clgpu_partition_workspace_size(c->context, c->type->predicate, &c->v_out,
                                               &c->v_count, &c->v_in, call, report);
      return 1;
    default:
      return 0;
  }
}

/* The bytes of lower_bound's positions over a haystack of n keys: uint32,
 * or uint64 past 2^32 - 1 keys. */
static size_t position_size(size_t n) {
  return (uint64_t)n > UINT32_MAX ? sizeof(uint64_t) : sizeof(uint32_t);
}

/* findall's and partition's count of selected elements: clgpu's read from
 * d_count (a peer's is given in *count), at most n. 0 when it is, 1 with
 * *message, or -1 with *status when reading failed. */
static int selected_count(bench_case *c, int boost, uint64_t *count, check_message *message,
                          clgpu_status *status) {
  if (!boost) {
    *status = bench_read_buffer(c, c->d_count, sizeof *count, count);
    if (*status != CLGPU_SUCCESS) return -1;
  }
  if (*count <= c->n) return 0;
  snprintf(message->text, sizeof message->text, "count is %llu, more than n",
           (unsigned long long)*count);
  return 1;
}

/* Check what the device wrote. `boost`: the output of Boost.Compute's peer
 * (copy_if gives values, reduce its sum in output[0], reduce_by_key its
 * run keys and sums where clgpu's go, stable_partition its partition
 * where clgpu's goes, segmented_sort's its packed keys in d_packed_work),
 * with `count` from it.
 * 0 when right, 1 with *message, or -1 with *status when reading failed. */
int bench_check_output(bench_case *c, int op, int boost, uint64_t count, check_message *message,
                       clgpu_status *status) {
  const host_type *t = c->type;
  size_t bytes = c->n * t->size;
  *status = CLGPU_SUCCESS;
  switch (op) {
    case OP_RADIX_SORT:
    case OP_SORT_BY_KEY:
    case OP_MERGE_SORT:
    case OP_ARGSORT: {
      /* Keys in d_out (argsort: d_out only from Boost's peer, which sorts a
       * copy there), values or the permutation in d_indices. clgpu's sorts
       * must be stable; a peer's only right. */
      int with_keys = op != OP_ARGSORT;
      int with_values = op == OP_SORT_BY_KEY || op == OP_ARGSORT;
      if (with_keys) *status = bench_read_buffer(c, c->d_out, bytes, c->host_out);
      if (*status == CLGPU_SUCCESS && with_values) {
        *status = bench_read_buffer(c, c->d_indices, c->n * sizeof(uint32_t), c->host_values);
      }
      if (*status != CLGPU_SUCCESS) return -1;
      return bench_check_sorted(t, c->host_in, c->n, c->perm, with_keys ? c->host_out : NULL,
                                with_values ? c->host_values : NULL, !boost, c->scratch, message);
    }
    case OP_READ:
      return 0; /* its value only keeps the reads alive */
    case OP_REDUCE: {
      unsigned char value[8];
      *status = bench_read_buffer(c, boost ? c->d_out : c->d_result, t->size, value);
      if (*status != CLGPU_SUCCESS) return -1;
      return t->check_sum(c->host_in, c->n, value, message);
    }
    case OP_COUNT_IF: {
      if (!boost) {
        *status = bench_read_buffer(c, c->d_result, sizeof count, &count);
        if (*status != CLGPU_SUCCESS) return -1;
      }
      if (count == c->selected) return 0;
      snprintf(message->text, sizeof message->text, "count is %llu, the host's %llu",
               (unsigned long long)count, (unsigned long long)c->selected);
      return 1;
    }
    case OP_SCAN:
      *status = bench_read_buffer(c, c->d_out, bytes, c->host_out);
      if (*status != CLGPU_SUCCESS) return -1;
      return t->check_scan(c->host_in, c->n, c->host_out, message);
    case OP_FINDALL: {
      int counted = selected_count(c, boost, &count, message, status);
      if (counted != 0) return counted;
      if (boost) {
        *status = bench_read_buffer(c, c->d_out, (size_t)count * t->size, c->host_out);
      } else {
        *status = bench_read_buffer(c, c->d_indices, (size_t)count * sizeof(uint32_t), c->host_out);
      }
      if (*status != CLGPU_SUCCESS) return -1;
      return t->check_selected(c->host_in, c->n, c->host_out, count, !boost, message);
    }
    case OP_LOWER_BOUND:
      *status = bench_read_buffer(c, c->d_positions, c->n * position_size(c->n), c->search_got);
      if (*status != CLGPU_SUCCESS) return -1;
      return bench_check_positions(t, c->host_in, c->n, c->search_got, c->search_expected,
                                   c->search_wide, "the reference's", message);
    case OP_HISTOGRAM:
      *status = bench_read_buffer(c, c->d_histogram, sizeof c->histogram_got, c->histogram_got);
      if (*status != CLGPU_SUCCESS) return -1;
      return bench_check_histogram(c->histogram_got, c->histogram_expected, HISTOGRAM_BINS,
                                   message);
    case OP_REDUCE_BY_KEY: {
      if (!boost) {
        *status = bench_read_buffer(c, c->d_count, sizeof count, &count);
        if (*status != CLGPU_SUCCESS) return -1;
      }
      /* As many runs as the outputs hold (the check then says the count is wrong). */
      size_t written = count < c->n ? (size_t)count : c->n;
      *status = bench_read_buffer(c, c->d_indices, written * sizeof(uint32_t), c->run_keys_got);
      if (*status == CLGPU_SUCCESS) {
        *status = bench_read_buffer(c, c->d_out, written * t->size, c->host_out);
      }
      if (*status != CLGPU_SUCCESS) return -1;
      return bench_check_reduce_by_key(t, c->host_keys, c->host_in, c->run_starts, c->num_runs,
                                       c->n, count, c->run_keys_got, c->host_out, message);
    }
    case OP_UNIQUE: {
      if (!boost) {
        *status = bench_read_buffer(c, c->d_count, sizeof count, &count);
        if (*status != CLGPU_SUCCESS) return -1;
      }
      size_t written = count < c->n ? (size_t)count : c->n;
      *status = bench_read_buffer(c, c->d_indices, written * sizeof(uint32_t), c->run_keys_got);
      if (*status != CLGPU_SUCCESS) return -1;
      return bench_check_unique(c->host_keys, c->run_starts, c->num_runs, count, c->run_keys_got,
                                message);
    }
    case OP_SCAN_BY_KEY:
      *status = bench_read_buffer(c, c->d_out, bytes, c->host_out);
      if (*status != CLGPU_SUCCESS) return -1;
      return bench_check_scan_by_key(t, c->host_in, c->run_starts, c->num_runs, c->n, c->host_out,
                                     message);
    case OP_SEGMENTED_SORT: {
      if (!boost) {
        *status = bench_read_buffer(c, c->d_out, bytes, c->host_out);
        if (*status != CLGPU_SUCCESS) return -1;
        return bench_check_segmented_sort(t, c->host_out, c->segmented_expected, c->n,
                                          c->segment_offsets, c->num_segments, message);
      }
      uint64_t *packed = malloc(c->n * sizeof *packed);
      *status = packed ? bench_read_buffer(c, c->d_packed_work, c->n * sizeof *packed, packed)
                       : CLGPU_CL_OUT_OF_HOST_MEMORY;
      int wrong = *status != CLGPU_SUCCESS
                      ? -1
                      : bench_check_segmented_packed(t, packed, c->segmented_expected,
                                                     c->segment_offsets, c->num_segments, message);
      free(packed);
      return wrong;
    }
    case OP_PARTITION: {
      int counted = selected_count(c, boost, &count, message, status);
      if (counted != 0) return counted;
      *status = bench_read_buffer(c, c->d_out, bytes, c->host_out);
      if (*status != CLGPU_SUCCESS) return -1;
      return t->check_partition(c->host_in, c->n, c->host_out, count, message);
    }
    case OP_COPY_STRIDED:
      *status = bench_read_buffer(c, c->d_out, bytes, c->host_out);
      if (*status != CLGPU_SUCCESS) return -1;
      return t->check_reversed(c->host_in, c->n, c->host_out, message);
    case OP_ELEMENTWISE:
    case OP_ELEMENTWISE_STRIDED:
    case OP_ELEMENTWISE_TRANSPOSED:
    case OP_STRIDED_COPY:
    case OP_STRIDED_COPY_TRANSPOSED:
      *status = bench_read_buffer(c, c->d_out, c->count * t->size, c->host_out);
      if (*status != CLGPU_SUCCESS) return -1;
      if (op == OP_ELEMENTWISE) {
        return t->check_axpy(c->scalar_a, c->host_in, c->host_z, c->host_out, c->n, message);
      }
      if (op == OP_ELEMENTWISE_STRIDED || op == OP_ELEMENTWISE_TRANSPOSED) {
        return t->check_square(c->host_in, &c->layout, c->host_out, message);
      }
      return bench_check_copy_layout(t->size, c->host_in, &c->layout, c->host_out, message);
    default: /* OP_COPY, OP_COPY_KERNEL */
      *status = bench_read_buffer(c, c->d_out, bytes, c->host_out);
      if (*status != CLGPU_SUCCESS) return -1;
      if (memcmp(c->host_out, c->host_in, bytes) == 0) return 0;
      for (size_t i = 0; i < c->n; i++) {
        const unsigned char *got = (const unsigned char *)c->host_out + i * t->size;
        if (memcmp(got, (const unsigned char *)c->host_in + i * t->size, t->size) != 0) {
          snprintf(message->text, sizeof message->text, "out[%zu] differs from in[%zu]", i, i);
          break;
        }
      }
      return 1;
  }
}

static double op_bytes(const bench_case *c, int op) {
  double data = (double)c->n * (double)c->type->size;
  switch (op) {
    case OP_READ:
    case OP_REDUCE:
    case OP_COUNT_IF:
      return data;
    case OP_FINDALL:
      return data + 4.0 * (double)c->selected;
    case OP_SORT_BY_KEY: /* keys and values read and written once */
      return 2 * (data + 4.0 * (double)c->n);
    case OP_ARGSORT: /* keys read once, the permutation written once */
      return data + 4.0 * (double)c->n;
    case OP_LOWER_BOUND: /* the needles read, their positions written */
      return data + (double)position_size(c->n) * (double)c->n;
    case OP_HISTOGRAM: /* the data read, the uint32 counts written */
      return data + 4.0 * HISTOGRAM_BINS;
    case OP_REDUCE_BY_KEY: /* keys and values read; a key and a sum per run and the count written */
      return data + 4.0 * (double)c->n + (4.0 + (double)c->type->size) * (double)c->num_runs + 8.0;
    case OP_SCAN_BY_KEY: /* keys and values read, the scan written */
      return 2 * data + 4.0 * (double)c->n;
    case OP_UNIQUE: /* the uint32 keys read; a key per run and the count written */
      return 4.0 * (double)c->n + 4.0 * (double)c->num_runs + 8.0;
    case OP_PARTITION: /* the data read, every element and the count written */
      return 2 * data + 8.0;
    case OP_ELEMENTWISE: /* x and z read, y written */
      return 3.0 * (double)c->count * (double)c->type->size;
    case OP_ELEMENTWISE_STRIDED: /* the view's elements read, as many written */
    case OP_ELEMENTWISE_TRANSPOSED:
    case OP_STRIDED_COPY:
    case OP_STRIDED_COPY_TRANSPOSED:
      return 2.0 * (double)c->count * (double)c->type->size;
    default: /* scan, the copies, radix_sort, merge_sort, segmented_sort: read and write once */
      return 2 * data;
  }
}

/* ---- the sorts' setup, refill and baselines ---- */

/* At the first sort of a case: the host's buffers, the reference (a stable
 * sort of the data with its indices, itself checked) and d_iota. 0, or 1
 * after a failure (printed). */
int bench_prepare_sorts(bench_case *c, int op) {
  if (c->sorts_ready) return 0;
  const host_type *t = c->type;
  size_t n = c->n, bytes = n * t->size, index_bytes = n * sizeof(uint32_t);
  c->perm = malloc(index_bytes);
  c->host_values = malloc(index_bytes);
  c->iota = malloc(index_bytes);
  c->scratch = malloc(n / 8 + 1);
  c->sort_keys = malloc(bytes);
  c->sort_tmp_keys = malloc(bytes);
  c->sort_values = malloc(index_bytes);
  c->sort_tmp_values = malloc(index_bytes);
  c->pairs = malloc(n * t->pair_size);
  if (!c->perm || !c->host_values || !c->iota || !c->scratch || !c->sort_keys ||
      !c->sort_tmp_keys || !c->sort_values || !c->sort_tmp_values || !c->pairs) {
    bench_progress_clear();
    fprintf(stderr, "clgpu-bench run: out of host memory for sorting %zu elements of %s\n", n,
            t->name);
    return 1;
  }
  for (size_t i = 0; i < n; i++) c->iota[i] = (uint32_t)i;
  /* Every page touched once, so that no baseline's first call pays for it. */
  memset(c->sort_tmp_keys, 0, bytes);
  memset(c->sort_tmp_values, 0, index_bytes);
  memset(c->sort_values, 0, index_bytes);
  memset(c->pairs, 0, n * t->pair_size);

  memcpy(c->sort_keys, c->host_in, bytes);
  memcpy(c->perm, c->iota, index_bytes);
  bench_radix_sort_host(t, c->sort_keys, c->perm, c->sort_tmp_keys, c->sort_tmp_values, n);
  check_message message = {{0}};
  int wrong = bench_check_sorted(t, c->host_in, n, c->perm, NULL, c->perm, 0, c->scratch, &message);
  for (size_t j = 1; j < n && !wrong; j++) {
    if (c->perm[j - 1] > c->perm[j] &&
        bench_element_image(t, bench_element_bits(t, c->host_in, c->perm[j - 1])) ==
            bench_element_image(t, bench_element_bits(t, c->host_in, c->perm[j]))) {
      snprintf(message.text, sizeof message.text, "equal keys out of order at %zu", j);
      wrong = 1;
    }
  }
  if (wrong) return bench_wrong_result(c, op, "the host's reference sort", &message);

  cl_int err = CL_SUCCESS;
  c->d_iota = clCreateBuffer(clgpu_context_cl_context(c->context), CL_MEM_READ_ONLY, index_bytes,
                             NULL, &err);
  if (err == CL_SUCCESS) {
    err =
        clEnqueueWriteBuffer(c->queue, c->d_iota, CL_TRUE, 0, index_bytes, c->iota, 0, NULL, NULL);
  }
  if (err != CL_SUCCESS)
    return bench_op_failure(c, op, "making the values buffer", (clgpu_status)err);
  c->sorts_ready = 1;
  return 0;
}

static void release_sorts(bench_case *c) {
  if (c->d_iota) clReleaseMemObject(c->d_iota);
  c->d_iota = NULL;
  void *buffers[] = {c->perm,        c->host_values,     c->iota,
                     c->scratch,     c->sort_keys,       c->sort_tmp_keys,
                     c->sort_values, c->sort_tmp_values, c->pairs};
  for (size_t k = 0; k < sizeof buffers / sizeof buffers[0]; k++) free(buffers[k]);
  c->perm = c->host_values = c->iota = c->sort_values = c->sort_tmp_values = NULL;
  c->scratch = NULL;
  c->sort_keys = c->sort_tmp_keys = c->pairs = NULL;
  memset(c->baseline_done, 0, sizeof c->baseline_done);
  c->sorts_ready = 0;
}

/* ---- lower_bound's haystack and reference ---- */

/* At the first lower_bound of a case: the data sorted on the host by the
 * sorts' LSD radix (sort.h's order), uploaded as the haystack; the buffers
 * of the positions; and the reference positions, where each needle's run
 * of equal keys starts in the sorted data (no search: a second way to the
 * answer), checked against the definition of a lower bound. 0, or 1 after
 * a failure (printed). */
int bench_prepare_search(bench_case *c, int op) {
  if (c->search_ready) return 0;
  const host_type *t = c->type;
  size_t n = c->n, bytes = n * t->size, position_bytes = n * position_size(n);
  size_t index_bytes = n * sizeof(uint32_t);
  c->search_wide = position_size(n) == sizeof(uint64_t);
  c->host_haystack = malloc(bytes);
  c->search_expected = malloc(position_bytes);
  c->search_got = malloc(position_bytes);
  c->search_positions = malloc(position_bytes);
  void *tmp_keys = malloc(bytes);
  uint32_t *perm = malloc(index_bytes), *tmp_values = malloc(index_bytes);
  if (!c->host_haystack || !c->search_expected || !c->search_got || !c->search_positions ||
      !tmp_keys || !perm || !tmp_values) {
    free(tmp_keys);
    free(perm);
    free(tmp_values);
    bench_progress_clear();
    fprintf(stderr, "clgpu-bench run: out of host memory for searching %zu elements of %s\n", n,
            t->name);
    return 1;
  }
  memcpy(c->host_haystack, c->host_in, bytes);
  for (size_t i = 0; i < n; i++) perm[i] = (uint32_t)i;
  bench_radix_sort_host(t, c->host_haystack, perm, tmp_keys, tmp_values, n);
  free(tmp_keys);
  free(tmp_values);
  bench_lower_bound_reference(t, c->host_haystack, perm, n, c->search_expected, c->search_wide);
  free(perm);
  /* Every page touched once, so that neither the check nor the baseline pays for it. */
  memset(c->search_got, 0, position_bytes);
  memset(c->search_positions, 0, position_bytes);
  check_message message = {{0}};
  if (bench_check_lower_bound(t, c->host_haystack, n, c->host_in, n, c->search_expected,
                              c->search_wide, &message) != 0) {
    return bench_wrong_result(c, op, "the host's reference", &message);
  }

  cl_context cl = clgpu_context_cl_context(c->context);
  cl_int err = CL_SUCCESS;
  c->d_haystack = clCreateBuffer(cl, CL_MEM_READ_ONLY, bytes, NULL, &err);
  if (err == CL_SUCCESS) {
    c->d_positions = clCreateBuffer(cl, CL_MEM_READ_WRITE, position_bytes, NULL, &err);
  }
  if (err == CL_SUCCESS) {
    err = clEnqueueWriteBuffer(c->queue, c->d_haystack, CL_TRUE, 0, bytes, c->host_haystack, 0,
                               NULL, NULL);
  }
  if (err != CL_SUCCESS)
    return bench_op_failure(c, op, "making the haystack and positions", (clgpu_status)err);
  clgpu_status status = clgpu_array_1d(c->d_haystack, 0, t->type, n, &c->v_haystack);
  if (status == CLGPU_SUCCESS) {
    status =
        clgpu_array_1d(c->d_positions, 0, c->search_wide ? CLGPU_TYPE_UINT64 : CLGPU_TYPE_UINT32, n,
                       &c->v_positions);
  }
  if (status != CLGPU_SUCCESS) return bench_op_failure(c, op, "making array views", status);
  c->search_ready = 1;
  return 0;
}

static void release_search(bench_case *c) {
  cl_mem *buffers[] = {&c->d_haystack, &c->d_positions};
  for (size_t k = 0; k < sizeof buffers / sizeof buffers[0]; k++) {
    if (*buffers[k]) clReleaseMemObject(*buffers[k]);
    *buffers[k] = NULL;
  }
  free(c->host_haystack);
  free(c->search_expected);
  free(c->search_got);
  free(c->search_positions);
  c->host_haystack = c->search_expected = c->search_got = c->search_positions = NULL;
  c->search_ready = 0;
}

/* ---- histogram's bounds and reference ---- */

/* At the first histogram of a case: the bounds over the data's whole range,
 * the reference counts by histogram.h's formula (which must count every
 * element: the bounds hold the data), and the counts' buffer and view. 0,
 * or 1 after a failure (printed). */
int bench_prepare_histogram(bench_case *c, int op) {
  if (c->histogram_ready) return 0;
  const host_type *t = c->type;
  bench_histogram_bounds(t, c->histogram_lower, c->histogram_upper);
  bench_histogram_reference(t, c->host_in, c->n, c->histogram_lower, c->histogram_upper,
                            c->histogram_expected, HISTOGRAM_BINS);
  uint64_t counted = 0;
  for (size_t b = 0; b < HISTOGRAM_BINS; b++) counted += c->histogram_expected[b];
  if (counted != c->n) {
    check_message message = {{0}};
    snprintf(message.text, sizeof message.text,
             "the reference counts %llu of the %zu elements: the bounds miss some",
             (unsigned long long)counted, c->n);
    return bench_wrong_result(c, op, "the host's reference", &message);
  }
  cl_int err = CL_SUCCESS;
  c->d_histogram = clCreateBuffer(clgpu_context_cl_context(c->context), CL_MEM_READ_WRITE,
                                  sizeof c->histogram_got, NULL, &err);
  if (err != CL_SUCCESS) return bench_op_failure(c, op, "making the counts", (clgpu_status)err);
  clgpu_status status =
      clgpu_array_1d(c->d_histogram, 0, CLGPU_TYPE_UINT32, HISTOGRAM_BINS, &c->v_histogram);
  if (status != CLGPU_SUCCESS) return bench_op_failure(c, op, "making array views", status);
  c->histogram_ready = 1;
  return 0;
}

static void release_histogram(bench_case *c) {
  if (c->d_histogram) clReleaseMemObject(c->d_histogram);
  c->d_histogram = NULL;
  c->histogram_ready = 0;
}

/* ---- the by-key ops' keys ---- */

/* At the first reduce_by_key, scan_by_key or unique of a case: the keys, generated
 * from a seed of the type and size (the same for every run of the case),
 * uploaded to d_keys, with the runs as generated. 0, or 1 after a failure
 * (printed). */
int bench_prepare_by_key(bench_case *c, int op) {
  if (c->by_key_ready) return 0;
  size_t n = c->n, key_bytes = n * sizeof(uint32_t);
  c->host_keys = malloc(key_bytes);
  c->run_starts = malloc(key_bytes);
  c->run_keys_got = malloc(key_bytes);
  if (!c->host_keys || !c->run_starts || !c->run_keys_got) {
    bench_progress_clear();
    fprintf(stderr, "clgpu-bench run: out of host memory for the keys of %zu elements of %s\n", n,
            c->type->name);
    return 1;
  }
  c->num_runs = bench_generate_runs(c->host_keys, n, BY_KEY_MAX_RUN,
                                    0x6b657900ull + (uint64_t)c->type->type * 0x100000001ull + n,
                                    c->run_starts);
  memset(c->run_keys_got, 0, key_bytes); /* paged in before any check */

  cl_int err = CL_SUCCESS;
  c->d_keys =
      clCreateBuffer(clgpu_context_cl_context(c->context), CL_MEM_READ_ONLY, key_bytes, NULL, &err);
  if (err == CL_SUCCESS) {
    err = clEnqueueWriteBuffer(c->queue, c->d_keys, CL_TRUE, 0, key_bytes, c->host_keys, 0, NULL,
                               NULL);
  }
  if (err != CL_SUCCESS) return bench_op_failure(c, op, "making the keys", (clgpu_status)err);
  clgpu_status status = clgpu_array_1d(c->d_keys, 0, CLGPU_TYPE_UINT32, n, &c->v_keys);
  if (status != CLGPU_SUCCESS) return bench_op_failure(c, op, "making array views", status);
  c->by_key_ready = 1;
  return 0;
}

static void release_by_key(bench_case *c) {
  if (c->d_keys) clReleaseMemObject(c->d_keys);
  c->d_keys = NULL;
  free(c->host_keys);
  free(c->run_starts);
  free(c->run_keys_got);
  c->host_keys = c->run_starts = c->run_keys_got = NULL;
  c->num_runs = c->cpu_runs = 0;
  c->by_key_ready = 0;
}

/* ---- segmented_sort's offsets, reference and packed keys ---- */

/* At the first segmented_sort of a case: the offsets of segments of
 * SEGMENT_KEYS keys, uploaded once (not timed); the reference, each segment
 * sorted on the host by (order image, index), itself checked in order. 0,
 * or 1 after a failure (printed). */
int bench_prepare_segmented(bench_case *c, int op) {
  if (c->segmented_ready) return 0;
  const host_type *t = c->type;
  size_t n = c->n;
  c->segment_offsets = malloc((n / SEGMENT_KEYS + 2) * sizeof *c->segment_offsets);
  c->segmented_expected = malloc(n * t->size);
  if (c->segment_offsets && c->segmented_expected) {
    c->num_segments = bench_segment_offsets(c->segment_offsets, n, SEGMENT_KEYS);
  }
  if (!c->segment_offsets || !c->segmented_expected ||
      bench_segmented_sort_reference(t, c->host_in, c->segmented_expected, c->segment_offsets,
                                     c->num_segments) != 0) {
    bench_progress_clear();
    fprintf(stderr, "clgpu-bench run: out of host memory for segments of %zu elements of %s\n", n,
            t->name);
    return 1;
  }
  for (uint64_t k = 0; k < c->num_segments; k++) {
    for (size_t i = (size_t)c->segment_offsets[k] + 1; i < c->segment_offsets[k + 1]; i++) {
      if (bench_element_image(t, bench_element_bits(t, c->segmented_expected, i - 1)) >
          bench_element_image(t, bench_element_bits(t, c->segmented_expected, i))) {
        check_message message = {{0}};
        snprintf(message.text, sizeof message.text, "keys %zu and %zu of segment %llu out of order",
                 i - 1, i, (unsigned long long)k);
        return bench_wrong_result(c, op, "the host's reference", &message);
      }
    }
  }
  size_t offset_bytes = (size_t)(c->num_segments + 1) * sizeof *c->segment_offsets;
  cl_int err = CL_SUCCESS;
  c->d_offsets = clCreateBuffer(clgpu_context_cl_context(c->context), CL_MEM_READ_ONLY,
                                offset_bytes, NULL, &err);
  if (err == CL_SUCCESS) {
    err = clEnqueueWriteBuffer(c->queue, c->d_offsets, CL_TRUE, 0, offset_bytes, c->segment_offsets,
                               0, NULL, NULL);
  }
  if (err != CL_SUCCESS) return bench_op_failure(c, op, "making the offsets", (clgpu_status)err);
  clgpu_status status =
      clgpu_array_1d(c->d_offsets, 0, CLGPU_TYPE_UINT32, c->num_segments + 1, &c->v_offsets);
  if (status != CLGPU_SUCCESS) return bench_op_failure(c, op, "making array views", status);
  c->segmented_ready = 1;
  return 0;
}

#ifdef CLGPU_BENCH_BOOST
/* Before Boost.Compute's segmented_sort peer, once per case: its packed
 * keys (bench_segmented_pack) uploaded to d_packed, and d_packed_work to
 * sort them in. 0, or 1 after a failure (printed). */
static int prepare_packed(bench_case *c, int op) {
  if (c->d_packed) return 0;
  size_t bytes = c->n * sizeof(uint64_t);
  uint64_t *packed = malloc(bytes);
  if (!packed) {
    bench_progress_clear();
    fprintf(stderr, "clgpu-bench run: out of host memory for packing %zu keys of %s\n", c->n,
            c->type->name);
    return 1;
  }
  bench_segmented_pack(c->type, c->host_in, c->segment_offsets, c->num_segments, packed);
  cl_context cl = clgpu_context_cl_context(c->context);
  cl_int err = CL_SUCCESS;
  c->d_packed = clCreateBuffer(cl, CL_MEM_READ_ONLY, bytes, NULL, &err);
  if (err == CL_SUCCESS)
    c->d_packed_work = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err == CL_SUCCESS) {
    err = clEnqueueWriteBuffer(c->queue, c->d_packed, CL_TRUE, 0, bytes, packed, 0, NULL, NULL);
  }
  free(packed);
  if (err != CL_SUCCESS)
    return bench_op_failure(c, op, "making the packed keys", (clgpu_status)err);
  return 0;
}
#endif

static void release_segmented(bench_case *c) {
  cl_mem *buffers[] = {&c->d_offsets, &c->d_packed, &c->d_packed_work};
  for (size_t k = 0; k < sizeof buffers / sizeof buffers[0]; k++) {
    if (*buffers[k]) clReleaseMemObject(*buffers[k]);
    *buffers[k] = NULL;
  }
  free(c->segment_offsets);
  free(c->segmented_expected);
  c->segment_offsets = NULL;
  c->segmented_expected = NULL;
  c->num_segments = 0;
  c->segmented_ready = 0;
}

/* Before every call of a sort, not timed: the unsorted keys copied back into
 * d_out on the device (and the values 0, 1, ..., n-1 into d_indices), the
 * queue finished, then a marker enqueued and waited for; the sort's device
 * time runs from the marker's end to the end of the sort's event. argsort
 * leaves its keys alone: it needs no refill. */
clgpu_status bench_refill_sort(bench_case *c, int op, cl_event *marker) {
  cl_int err = CL_SUCCESS;
  if (op != OP_ARGSORT) {
    err =
        clEnqueueCopyBuffer(c->queue, c->d_in, c->d_out, 0, 0, c->n * c->type->size, 0, NULL, NULL);
  }
  if (err == CL_SUCCESS && op == OP_SORT_BY_KEY) {
    err = clEnqueueCopyBuffer(c->queue, c->d_iota, c->d_indices, 0, 0, c->n * sizeof(uint32_t), 0,
                              NULL, NULL);
  }
  if (err == CL_SUCCESS) err = clFinish(c->queue);
  if (err == CL_SUCCESS) err = clEnqueueMarkerWithWaitList(c->queue, 0, NULL, marker);
  if (err == CL_SUCCESS) err = clWaitForEvents(1, marker);
  return (clgpu_status)err;
}

/* The device's time from the end of `from` to the end of `to`. */
static double span_ms(cl_event from, cl_event to) {
  cl_ulong start = 0, end = 0;
  if (!bench_event_has_device_times(to) ||
      clGetEventProfilingInfo(from, CL_PROFILING_COMMAND_END, sizeof start, &start, NULL) !=
          CL_SUCCESS ||
      clGetEventProfilingInfo(to, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) != CL_SUCCESS ||
      end < start) {
    return NAN;
  }
  return (double)(end - start) * 1e-6;
}

/* One timed call of an op's peer: wall clock to clFinish, and its event. */
static clgpu_status time_peer(bench_case *c, int op, double *wall, double *device) {
  cl_event event = NULL;
  double start = bench_now_ms();
  clgpu_status status = bench_enqueue_peer(c, op, &event);
  if (status != CLGPU_SUCCESS) return status;
  cl_int err = clFinish(c->queue);
  *wall = bench_now_ms() - start;
  *device = event ? bench_event_ms(event) : NAN;
  if (event) clReleaseEvent(event);
  return (clgpu_status)err;
}

/* Add what the context's program cache did since `before` to the row. */
static void add_cache_delta(const bench_case *c, const clgpu_cache_stats *before, result *row) {
  clgpu_cache_stats after;
  if (clgpu_program_cache_stats(c->context, &after) != CLGPU_SUCCESS) return;
  row->has_cache = 1;
  row->cache_builds += after.builds - before->builds;
  row->cache_memory_hits += after.memory_hits - before->memory_hits;
  row->cache_disk_hits += after.disk_hits - before->disk_hits;
  row->cache_build_ms += after.build_ms - before->build_ms;
}

/* A call of the peer, kept as timed call `timed` (negative: a warm-up).
 * 0, or 1 after a failure (printed). */
static int peer_call(bench_case *c, int op, const sample_buffers *buffers, int timed, result *row) {
  double wall = NAN, device = NAN;
  clgpu_cache_stats before;
  clgpu_program_cache_stats(c->context, &before);
  clgpu_status status = time_peer(c, op, &wall, &device);
  add_cache_delta(c, &before, row);
  if (status != CLGPU_SUCCESS) return bench_op_failure(c, op, "the peer's call", status);
  if (timed >= 0) {
    buffers->peer_wall[timed] = wall;
    buffers->peer_events[timed] = device;
  }
  return 0;
}

/* --max-time: the timed calls of a row that fit in its share of the time
 * left (bench_case.deadline_ms, rows_left), each taking call_ms and, after
 * it, its part of the baselines' and the peer's time (cost_factor; before
 * any row has shown it, a guess: as long again for each that runs): `done`
 * already made plus as many more as fit, at least 1, at most `most`. */
static int calls_within_budget(const bench_case *c, double call_ms, int done, int most) {
  double share = (c->deadline_ms - bench_now_ms()) / (double)(c->rows_left ? c->rows_left : 1);
  double factor = c->cost_factor;
  if (!(factor > 0)) {
    factor = 1 + !c->options->no_cpu;
#ifdef CLGPU_BENCH_BOOST
    factor += !c->options->no_boost;
#endif
  }
  call_ms *= factor;
  double more = call_ms > 0 ? floor(share / call_ms) : (double)most;
  int calls = more <= 0 ? done : more >= (double)(most - done) ? most : done + (int)more;
  return calls < 1 ? 1 : calls;
}

/* Measure `op` on this case into *row. 0, or 1 after a failure (printed). */
static int measure_op_body(bench_case *c, int op, result *row, const sample_buffers *buffers,
                           const char *progress_prefix) {
  double *samples = buffers->wall, *events = buffers->events;
  double *reference_samples = buffers->reference;
  const run_options *o = c->options;
  const int is_sort = bench_op_table[op].sort;
  const int has_peer = bench_op_table[op].peer != NULL;
  const int by_key = bench_op_by_key(op);
  memset(row, 0, sizeof *row);
  row->op = op;
  row->type = c->type;
  row->n = c->n;
  row->elements = c->n;
  bench_size_label(c->n, row->shape, sizeof row->shape);
  if (has_peer) {
    if (bench_prepare_peer_ops(c, op) != 0) return 1;
    clgpu_status setup = bench_setup_peer_op(c, op, row);
    if (setup != CLGPU_SUCCESS)
      return bench_op_failure(c, op, "setting up views and kernels", setup);
  }
  if (by_key && bench_prepare_by_key(c, op) != 0) return 1; /* op_bytes counts its runs */
  if (op == OP_SEGMENTED_SORT && bench_prepare_segmented(c, op) != 0) return 1;
  row->bytes = op_bytes(c, op);
  row->selected = op == OP_FINDALL || op == OP_COUNT_IF || op == OP_PARTITION ? c->selected : 0;
  row->runs = by_key ? c->num_runs : 0;
  row->segments = op == OP_SEGMENTED_SORT ? c->num_segments : 0;
  row->reference_gbps = NAN;
  row->limits = c->limits;
  int baseline_repeat = 0;
  bench_op_calls(o, op, c->n, &row->repeat, &row->warmup, &baseline_repeat);
  row->planned_repeat = row->repeat;
  int repeat = row->repeat; /* --max-time may lower it after the warm-up calls */
  const int warmup = row->warmup;
  /* segmented_sort needs none of the whole sorts' reference and baselines. */
  if (is_sort && op != OP_SEGMENTED_SORT && bench_prepare_sorts(c, op) != 0) return 1;
  if (op == OP_LOWER_BOUND && bench_prepare_search(c, op) != 0) return 1;
  if (op == OP_HISTOGRAM && bench_prepare_histogram(c, op) != 0) return 1;

  clgpu_call_options call = {.shape = o->call_shape, .workspace = NULL};
  clgpu_sort_options sort_call = {
      .algorithm = bench_sort_algorithm(op), .shape = o->call_shape, .workspace = NULL};
  clgpu_workspace_size report;
  clgpu_status status = CLGPU_SUCCESS;
  clgpu_workspace *workspace = NULL;
  if (op == OP_READ || op == OP_COPY_KERNEL) {
    snprintf(row->algorithm, sizeof row->algorithm, "%s-shape", c->cpu_shape ? "cpu" : "gpu");
  } else if (op == OP_COPY || op == OP_COPY_STRIDED || has_peer) {
    snprintf(row->algorithm, sizeof row->algorithm, "-");
  }
  if (workspace_report(c, op, &call, &sort_call, &report, &status)) {
    if (status != CLGPU_SUCCESS) return bench_op_failure(c, op, "workspace size query", status);
    status = clgpu_workspace_create(c->context, &report, &workspace);
    if (status != CLGPU_SUCCESS) return bench_op_failure(c, op, "clgpu_workspace_create", status);
    call.workspace = workspace;
    sort_call.workspace = workspace;
    if (is_sort && report.num_parts > 0) { /* the algorithm, then the shape */
      snprintf(row->algorithm, sizeof row->algorithm, "%s/%s",
               clgpu_algorithm_name(report.parts[0].algorithm),
               clgpu_shape_name(report.parts[0].shape));
    } else {
      snprintf(row->algorithm, sizeof row->algorithm, "%s",
               report.num_parts > 0 ? clgpu_shape_name(report.parts[0].shape) : "?");
    }
  }

  bench_progress("%s %s: clgpu", progress_prefix, bench_op_table[op].name);
  int failed = 0;
  int reference = bench_op_table[op].reference;
  /* --max-time: the timed calls are decided when the last warm-up call (or,
   * without any, the first timed call) has shown what a call takes. */
  const int decide_at = warmup > 0 ? warmup : 1;
  double call_ms = NAN;
  for (int call_index = 0; call_index < warmup + repeat && !failed; call_index++) {
    if (c->deadline_ms > 0 && call_index == decide_at) {
      repeat = calls_within_budget(c, call_ms, call_index - warmup, repeat);
      if (call_index >= warmup + repeat) break;
    }
    const double call_start = bench_now_ms();
    if (call_index == warmup) c->timed_start_ms = call_start;
    if (reference >= 0) {
      /* The reference kernel right before each call: both see the same
       * machine, which matters where other work comes and goes. */
      double start = bench_now_ms();
      status = bench_enqueue_reference(c, reference == OP_COPY_KERNEL, NULL);
      cl_int err = status == CLGPU_SUCCESS ? clFinish(c->queue) : CL_SUCCESS;
      if (status != CLGPU_SUCCESS || err != CL_SUCCESS) {
        failed = bench_op_failure(c, reference, "reference kernel",
                                  status != CLGPU_SUCCESS ? status : (clgpu_status)err);
        break;
      }
      if (call_index >= warmup) reference_samples[call_index - warmup] = bench_now_ms() - start;
    }
    cl_event marker = NULL;
    if (is_sort) {
      status = bench_refill_sort(c, op, &marker);
      if (status != CLGPU_SUCCESS) {
        if (marker) clReleaseEvent(marker);
        failed = bench_op_failure(c, op, "refilling the input", status);
        break;
      }
    }
    /* The peer's calls alternate with the operation's: before it on odd
     * calls, after it on even ones, so that neither always follows the
     * reference kernel. */
    const int peer_first = has_peer && (call_index & 1);
    if (peer_first && peer_call(c, op, buffers, call_index - warmup, row) != 0) {
      if (marker) clReleaseEvent(marker);
      failed = 1;
      break;
    }
    clgpu_elementwise_stats kernel_before, kernel_after;
    memset(&kernel_before, 0, sizeof kernel_before);
    if (c->kernel) clgpu_elementwise_get_stats(c->kernel, &kernel_before);
    clgpu_cache_stats cache_before;
    memset(&cache_before, 0, sizeof cache_before);
    if (has_peer) clgpu_program_cache_stats(c->context, &cache_before);
    cl_event event = NULL;
    double start = bench_now_ms();
    status = bench_enqueue_op(c, op, &call, &sort_call, &event);
    if (status != CLGPU_SUCCESS) {
      if (marker) clReleaseEvent(marker);
      failed = bench_op_failure(c, op, call_index < warmup ? "warm-up call" : "timed call", status);
      break;
    }
    cl_int err = clFinish(c->queue);
    double wall = bench_now_ms() - start;
    if (err != CL_SUCCESS) {
      failed = bench_op_failure(c, op, "clFinish", (clgpu_status)err);
    } else if (call_index >= warmup) {
      samples[call_index - warmup] = wall;
      events[call_index - warmup] = !event   ? NAN
                                    : marker ? span_ms(marker, event)
                                             : bench_event_ms(event);
    }
    if (event) clReleaseEvent(event);
    if (marker) clReleaseEvent(marker);
    if (has_peer) add_cache_delta(c, &cache_before, row);
    if (c->kernel && clgpu_elementwise_get_stats(c->kernel, &kernel_after) == CLGPU_SUCCESS) {
      row->op_contiguous_runs += kernel_after.contiguous_runs - kernel_before.contiguous_runs;
      row->op_specialised_runs += kernel_after.specialised_runs - kernel_before.specialised_runs;
      row->op_generic_runs += kernel_after.generic_runs - kernel_before.generic_runs;
    }
    if (has_peer && !peer_first && !failed)
      failed = peer_call(c, op, buffers, call_index - warmup, row);
    call_ms = bench_now_ms() - call_start;
  }
  c->timed_loop_ms = c->deadline_ms > 0 ? bench_now_ms() - c->timed_start_ms : 0;
  clgpu_workspace_destroy(workspace);
  if (failed) return 1;
  /* The timed calls' own figures, in their order, before the summaries
   * sort them. */
  row->repeat = repeat;
  row->wall_samples = malloc(sizeof(double) * (size_t)repeat);
  row->event_samples = malloc(sizeof(double) * (size_t)repeat);
  if (!row->wall_samples || !row->event_samples) {
    return bench_op_failure(c, op, "keeping the timed calls' figures", CLGPU_CL_OUT_OF_HOST_MEMORY);
  }
  memcpy(row->wall_samples, samples, sizeof(double) * (size_t)repeat);
  memcpy(row->event_samples, events, sizeof(double) * (size_t)repeat);
  row->wall = bench_summarize(samples, repeat);
  row->event = bench_summarize(events, repeat);
  if (reference >= 0) {
    row->reference = bench_summarize(reference_samples, repeat);
    row->reference_gbps = bench_gbps(op_bytes(c, reference), &row->reference);
  }
  if (has_peer) {
    row->peer_wall = bench_summarize(buffers->peer_wall, repeat);
    row->peer_event = bench_summarize(buffers->peer_events, repeat);
  }
  if (c->kernel) {
    clgpu_elementwise_get_stats(c->kernel, &row->kernel_stats);
    int paths =
        (row->op_contiguous_runs > 0) + (row->op_specialised_runs > 0) + (row->op_generic_runs > 0);
    snprintf(row->algorithm, sizeof row->algorithm, "%s",
             paths > 1                  ? "mixed"
             : row->op_generic_runs     ? "generic"
             : row->op_specialised_runs ? "specialised"
             : row->op_contiguous_runs  ? "contiguous"
                                        : "?");
  }

  /* The baselines' timed calls: their own, and under --max-time no more
   * than the row got. */
  const int cpu_repeat = c->deadline_ms > 0 && repeat < o->repeat ? repeat : o->repeat;
  if (c->deadline_ms > 0 && baseline_repeat > repeat) baseline_repeat = repeat;

  check_message message = {{0}};
  int verdict = bench_check_output(c, op, 0, 0, &message, &status);
  if (verdict < 0) return bench_op_failure(c, op, "reading the result back", status);
  if (verdict > 0) return bench_wrong_result(c, op, "clgpu", &message);
  if (has_peer) {
    verdict = bench_check_peer(c, op, &message, &status);
    if (verdict < 0) return bench_op_failure(c, op, "reading the peer's result back", status);
    if (verdict > 0) return bench_wrong_result(c, op, bench_op_table[op].peer, &message);
  }

  if (!o->no_cpu && op == OP_SEGMENTED_SORT) {
    /* The insertion sort per segment, out of place, over the same offsets;
     * its keys, like the device's, must be the reference's. */
    bench_progress("%s %s: CPU baseline (insertion sort)", progress_prefix,
                   bench_op_table[op].name);
    row->cpu = bench_time_cpu(c, op, repeat, warmup, samples);
    row->cpu_calls = repeat;
    if (bench_check_segmented_sort(c->type, c->cpu_out, c->segmented_expected, c->n,
                                   c->segment_offsets, c->num_segments, &message) != 0) {
      return bench_wrong_result(c, op, "the C insertion sort", &message);
    }
  } else if (!o->no_cpu && op == OP_PARTITION) {
    /* The two-pass C partition; its output is checked as the device's. */
    bench_progress("%s %s: CPU baseline (C loop)", progress_prefix, bench_op_table[op].name);
    row->cpu = bench_time_cpu(c, op, cpu_repeat, o->warmup, samples);
    row->cpu_calls = cpu_repeat;
    if (c->type->check_partition(c->host_in, c->n, c->cpu_out, c->partition_cpu_count, &message))
      return bench_wrong_result(c, op, "the C loop", &message);
  } else if (!o->no_cpu && is_sort) {
    int pairs = op == OP_SORT_BY_KEY || op == OP_ARGSORT;
    bench_progress("%s %s: CPU baseline (LSD radix)", progress_prefix, bench_op_table[op].name);
    row->cpu = bench_time_cpu_sort(c, pairs ? BASE_RADIX_PAIRS : BASE_RADIX_KEYS, repeat, samples);
    row->cpu_calls = repeat;
    bench_progress("%s %s: CPU baseline (qsort)", progress_prefix, bench_op_table[op].name);
    row->qsort = bench_time_cpu_sort(c, pairs ? BASE_QSORT_PAIRS : BASE_QSORT_KEYS, baseline_repeat,
                                     samples);
    row->qsort_calls = baseline_repeat;
  } else if (!o->no_cpu && op == OP_LOWER_BOUND) {
    /* The C binary search: as many calls as qsort gets, after the row's
     * warm-ups (seconds a call at 16M). */
    bench_progress("%s %s: CPU baseline (C binary search)", progress_prefix,
                   bench_op_table[op].name);
    row->cpu = bench_time_cpu(c, op, baseline_repeat, warmup, samples);
    row->cpu_calls = baseline_repeat;
    /* Its positions, like the device's, must be the reference's. */
    if (bench_check_positions(c->type, c->host_in, c->n, c->search_positions, c->search_expected,
                              c->search_wide, "the reference's", &message) != 0) {
      return bench_wrong_result(c, op, "the C binary search", &message);
    }
  } else if (!o->no_cpu && op == OP_HISTOGRAM) {
    /* The C loop of the same formula; its counts, like the device's, must
     * be the reference's. */
    bench_progress("%s %s: CPU baseline (C loop)", progress_prefix, bench_op_table[op].name);
    row->cpu = bench_time_cpu(c, op, cpu_repeat, o->warmup, samples);
    row->cpu_calls = cpu_repeat;
    if (bench_check_histogram(c->histogram_cpu, c->histogram_expected, HISTOGRAM_BINS, &message))
      return bench_wrong_result(c, op, "the C loop", &message);
  } else if (!o->no_cpu && by_key) {
    /* The C loop over the same keys and values, as lower_bound's C search;
     * its output is checked against the runs as generated too. */
    bench_progress("%s %s: CPU baseline (C loop)", progress_prefix, bench_op_table[op].name);
    row->cpu = bench_time_cpu(c, op, baseline_repeat, warmup, samples);
    row->cpu_calls = baseline_repeat;
    int wrong = op == OP_REDUCE_BY_KEY
                    ? bench_check_reduce_by_key(c->type, c->host_keys, c->host_in, c->run_starts,
                                                c->num_runs, c->n, c->cpu_runs, c->cpu_index,
                                                c->cpu_out, &message)
                : op == OP_UNIQUE
                    ? bench_check_unique(c->host_keys, c->run_starts, c->num_runs, c->cpu_runs,
                                         c->cpu_index, &message)
                    : bench_check_scan_by_key(c->type, c->host_in, c->run_starts, c->num_runs, c->n,
                                              c->cpu_out, &message);
    if (wrong) return bench_wrong_result(c, op, "the C loop", &message);
  } else if (!o->no_cpu) {
    bench_progress("%s %s: CPU baseline", progress_prefix, bench_op_table[op].name);
    row->cpu = bench_time_cpu(c, op, cpu_repeat, o->warmup, samples);
    row->cpu_calls = cpu_repeat;
  }

  /* Boost.Compute's segmented_sort peer packs the key beside its segment
   * into 32 bits: none for 64-bit keys. */
  const int boost_fits = op != OP_SEGMENTED_SORT || c->type->size == 4;
  snprintf(row->boost_note, sizeof row->boost_note, "%s%s",
           op == OP_LOWER_BOUND                           ? LOWER_BOUND_NO_PEER
           : op == OP_HISTOGRAM                           ? HISTOGRAM_NO_PEER
           : op == OP_SCAN_BY_KEY                         ? SCAN_BY_KEY_NO_PEER
           : !boost_fits                                  ? SEGMENTED_SORT_NO_PEER
           : bench_op_table[op].boost == BENCH_BOOST_NONE ? "no peer"
           : o->no_boost                                  ? "--no-boost"
                                                          : "not built (boost_compute feature)",
           op == OP_REDUCE_BY_KEY || op == OP_UNIQUE ? "; " BY_KEY_NO_PYOPENCL : "");
#ifdef CLGPU_BENCH_BOOST
  if (bench_op_table[op].boost != BENCH_BOOST_NONE && !o->no_boost && boost_fits) {
    bench_progress("%s %s: Boost.Compute", progress_prefix, bench_op_table[op].name);
    char error[512] = "";
    uint64_t count = 0;
    int boost_warmup = warmup < 1 ? 1 : warmup; /* Boost's kernel builds are never timed */
    /* Boost's sorts on a CPU device take seconds a call at 16M: one timed
     * call there, as the qsort baseline, unless --repeat says otherwise. */
    int boost_repeat = is_sort && baseline_repeat == 1 && !o->repeat_given ? 1 : repeat;
    row->boost_note[0] = '\0';
    if (op == OP_SEGMENTED_SORT && prepare_packed(c, op) != 0) return 1;
    int boost_failed =
        op == OP_SEGMENTED_SORT
            ? bench_boost_sort(c->queue, BENCH_BOOST_SEGMENTED_SORT, CLGPU_TYPE_UINT64, c->d_packed,
                               c->d_packed_work, NULL, NULL, c->n, boost_warmup, boost_repeat,
                               samples, error, sizeof error)
        : op == OP_PARTITION ? bench_boost_partition(c->queue, c->type->type, c->type->predicate,
                                                     c->d_in, c->d_out, c->n, boost_warmup, repeat,
                                                     samples, &count, error, sizeof error)
        : is_sort ? bench_boost_sort(c->queue, bench_op_table[op].boost, c->type->type, c->d_in,
                                     c->d_out, c->d_iota, c->d_indices, c->n, boost_warmup,
                                     boost_repeat, samples, error, sizeof error)
        : by_key  ? bench_boost_by_key(c->queue, bench_op_table[op].boost, c->type->type, c->d_keys,
                                       c->d_in, c->d_indices, c->d_out, c->n, boost_warmup, repeat,
                                       samples, &count, error, sizeof error)
                  : bench_boost_run(c->queue, bench_op_table[op].boost, c->type->type,
                                    c->type->predicate, c->d_in, c->d_out, c->n, boost_warmup,
                                    repeat, samples, &count, error, sizeof error);
    if (boost_failed) {
      bench_progress_clear();
      fprintf(stderr, "clgpu-bench run: Boost.Compute %s %s failed: %s\n", bench_op_table[op].name,
              c->type->name, error);
      snprintf(row->boost_note, sizeof row->boost_note, "failed: %s", error);
      clFinish(c->queue);
    } else {
      verdict = bench_check_output(c, op, 1, count, &message, &status);
      if (verdict < 0) return bench_op_failure(c, op, "reading Boost.Compute's result", status);
      if (verdict > 0) {
        /* A peer's wrong answer is reported, not fatal: it is not ours. */
        bench_wrong_result(c, op, "Boost.Compute", &message);
        snprintf(row->boost_note, sizeof row->boost_note, "wrong result: %s", message.text);
      } else {
        row->boost = bench_summarize(samples, is_sort ? boost_repeat : repeat);
        if (op == OP_SEGMENTED_SORT) {
          snprintf(row->boost_note, sizeof row->boost_note, "%s: %s", SEGMENTED_SORT_PEER,
                   bench_boost_sort_algorithm(BENCH_BOOST_SEGMENTED_SORT, c->device->type));
        } else if (op == OP_PARTITION) {
          snprintf(row->boost_note, sizeof row->boost_note, "%s", PARTITION_PEER);
        } else if (is_sort) {
          snprintf(row->boost_note, sizeof row->boost_note, "%s",
                   bench_boost_sort_algorithm(bench_op_table[op].boost, c->device->type));
        } else if (by_key) {
          snprintf(row->boost_note, sizeof row->boost_note, "%s", BY_KEY_NO_PYOPENCL);
        }
      }
    }
  }
#endif
  return 0;
}

int bench_measure_op(bench_case *c, int op, result *row, const sample_buffers *buffers,
                     const char *progress_prefix) {
  c->timed_loop_ms = 0;
  int failed = measure_op_body(c, op, row, buffers, progress_prefix);
  bench_release_peer_op(c); /* the op's kernel object and hand kernel: once per case and op */
  /* --max-time: what the row's timed calls and what followed them took,
   * over the calls alone, for the next row's count (1 to 20). */
  if (!failed && c->deadline_ms > 0 && c->timed_loop_ms > 0) {
    double factor = (bench_now_ms() - c->timed_start_ms) / c->timed_loop_ms;
    c->cost_factor = factor < 1 ? 1 : factor > 20 ? 20 : factor;
  }
  return failed;
}

/* ---- the case ---- */

void bench_release_case(bench_case *c) {
  cl_mem *buffers[] = {&c->d_in, &c->d_out, &c->d_indices, &c->d_result, &c->d_count};
  for (size_t k = 0; k < sizeof buffers / sizeof buffers[0]; k++) {
    if (*buffers[k]) clReleaseMemObject(*buffers[k]);
    *buffers[k] = NULL;
  }
  free(c->host_in);
  free(c->host_out);
  free(c->cpu_out);
  free(c->cpu_index);
  c->host_in = c->host_out = c->cpu_out = NULL;
  c->cpu_index = NULL;
  release_sorts(c);
  release_search(c);
  release_by_key(c);
  release_histogram(c);
  release_segmented(c);
  bench_release_peer_ops(c);
}

/* Make the buffers and views of a case and upload its data. */
int bench_prepare_case(bench_case *c) {
  const host_type *t = c->type;
  size_t bytes = c->n * t->size;
  c->host_in = malloc(bytes);
  c->host_out = malloc(bytes > c->n * sizeof(uint32_t) ? bytes : c->n * sizeof(uint32_t));
  c->cpu_out = malloc(bytes);
  c->cpu_index = malloc(c->n * sizeof(uint32_t));
  if (!c->host_in || !c->host_out || !c->cpu_out || !c->cpu_index) {
    bench_progress_clear();
    fprintf(stderr, "clgpu-bench run: out of host memory for %zu elements of %s\n", c->n, t->name);
    return 1;
  }
  t->generate(c->host_in, c->n, 0x5eed0000ull + (uint64_t)t->type);
  c->selected = t->count(c->host_in, 0, c->n);

  cl_context cl = clgpu_context_cl_context(c->context);
  cl_int err = CL_SUCCESS;
  struct {
    cl_mem *buffer;
    size_t bytes;
    cl_mem_flags flags;
  } wanted[] = {
      {&c->d_in, bytes, CL_MEM_READ_ONLY},
      {&c->d_out, bytes, CL_MEM_READ_WRITE},
      {&c->d_indices, c->n * sizeof(uint32_t), CL_MEM_READ_WRITE},
      {&c->d_result, 8, CL_MEM_READ_WRITE},
      {&c->d_count, 8, CL_MEM_READ_WRITE},
  };
  for (size_t k = 0; k < sizeof wanted / sizeof wanted[0] && err == CL_SUCCESS; k++) {
    *wanted[k].buffer = clCreateBuffer(cl, wanted[k].flags, wanted[k].bytes, NULL, &err);
  }
  if (err == CL_SUCCESS) {
    err = clEnqueueWriteBuffer(c->queue, c->d_in, CL_TRUE, 0, bytes, c->host_in, 0, NULL, NULL);
  }
  if (err != CL_SUCCESS)
    return bench_op_failure(c, OP_READ, "making and filling buffers", (clgpu_status)err);

  clgpu_status status = clgpu_array_1d(c->d_in, 0, t->type, c->n, &c->v_in);
  if (status == CLGPU_SUCCESS) status = clgpu_array_1d(c->d_out, 0, t->type, c->n, &c->v_out);
  if (status == CLGPU_SUCCESS) {
    status = clgpu_array_1d(c->d_indices, 0, CLGPU_TYPE_UINT32, c->n, &c->v_indices);
  }
  if (status == CLGPU_SUCCESS) status = clgpu_array_1d(c->d_result, 0, t->type, 1, &c->v_result);
  if (status == CLGPU_SUCCESS) {
    status = clgpu_array_1d(c->d_result, 0, CLGPU_TYPE_UINT64, 1, &c->v_count64);
  }
  if (status == CLGPU_SUCCESS)
    status = clgpu_array_1d(c->d_count, 0, CLGPU_TYPE_UINT64, 1, &c->v_count);
  if (status == CLGPU_SUCCESS) {
    clgpu_slice reverse = {CLGPU_SLICE_BEGIN, CLGPU_SLICE_END, -1};
    status = clgpu_array_slice(&c->v_in, &reverse, &c->v_reversed);
  }
  if (status != CLGPU_SUCCESS) return bench_op_failure(c, OP_READ, "making array views", status);
  return 0;
}
