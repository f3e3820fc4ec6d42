/* clgpu-bench run's measurement of one operation on one case
 * (bench_measure.c). */
#ifndef CLGPU_BENCH_MEASURE_H
#define CLGPU_BENCH_MEASURE_H

#include "bench_case.h"

/* The buffers bench_measure_op times into, repeat entries each. */
typedef struct sample_buffers {
  double *wall, *events, *reference, *peer_wall, *peer_events;
} sample_buffers;

/* Make the buffers and views of a case and upload its data: 0, or 1 after a
 * failure (printed); bench_release_case frees what a case holds. */
int bench_prepare_case(bench_case *c);
void bench_release_case(bench_case *c);

/* At the first sort of a case: its buffers and reference. 0, or 1 after a
 * failure (printed). */
int bench_prepare_sorts(bench_case *c, int op);

/* At the first lower_bound of a case: the sorted haystack, the positions'
 * buffers and the C baseline's positions, checked. 0, or 1 after a failure
 * (printed). */
int bench_prepare_search(bench_case *c, int op);

/* At the first reduce_by_key, scan_by_key or unique of a case: the keys, uploaded,
 * and the runs as generated. 0, or 1 after a failure (printed). */
int bench_prepare_by_key(bench_case *c, int op);

/* At the first histogram of a case: the bounds, the reference counts
 * (checked: every element counted), the counts' buffer and view. 0, or 1
 * after a failure (printed). */
int bench_prepare_histogram(bench_case *c, int op);

/* At the first segmented_sort of a case: the offsets (on the host and the
 * device) and the reference. 0, or 1 after a failure (printed). */
int bench_prepare_segmented(bench_case *c, int op);

/* The algorithm of a sort's options: merge for merge_sort and
 * segmented_sort (which takes no radix), radix for the others. */
clgpu_algorithm bench_sort_algorithm(int op);

/* Refill a sort's input from the case's data, then a marker event (the
 * start of the sort's device time). */
clgpu_status bench_refill_sort(bench_case *c, int op, cl_event *marker);

/* Enqueue one call of `op` on the case. */
clgpu_status bench_enqueue_op(bench_case *c, int op, const clgpu_call_options *call,
                              const clgpu_sort_options *sort_call, cl_event *event);

/* Check what the device wrote (see bench_measure.c): 0 when right, 1 with
 * *message, or -1 with *status when reading failed. */
int bench_check_output(bench_case *c, int op, int boost, uint64_t count, check_message *message,
                       clgpu_status *status);

/* Measure `op` on this case into *row. 0, or 1 after a failure (printed). */
int bench_measure_op(bench_case *c, int op, result *row, const sample_buffers *buffers,
                     const char *progress_prefix);

#endif
