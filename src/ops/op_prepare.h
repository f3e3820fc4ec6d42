/* What prebuilding (prebuild.c) asks of the histogram, partition and runs
 * operations: each function asks for the programs a call of its kind could
 * use, after the checks the call makes of the same arguments; meant to run
 * under clgpu__program_capture, which takes the requests as recipes. The
 * shape is the call's (options NULL: AUTO); views are taken as
 * contiguous. */
#ifndef CLGPU_SRC_OP_PREPARE_H
#define CLGPU_SRC_OP_PREPARE_H

#include <stdint.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/reduce.h>
#include <clgpu/scan.h>
#include <clgpu/status.h>

/* clgpu_histogram_even (lower and upper: host values of `type`) or, with
 * both NULL, clgpu_histogram_edges, into `bins` counts of `count_type`
 * (CLGPU_TYPE_UINT32 or CLGPU_TYPE_UINT64), for inputs of 0 to max_n
 * elements (0: 2^32). */
clgpu_status clgpu__histogram_prepare(clgpu_context *context, clgpu_type type, const void *lower,
                                      const void *upper, uint64_t bins, clgpu_type count_type,
                                      uint64_t max_n, const clgpu_call_options *options,
                                      const char *who);

/* clgpu_findall with `predicate` (NULL: "x != 0") over `type`: its
 * program, and the counts' scan where a call may scan them. */
clgpu_status clgpu__findall_prepare(clgpu_context *context, const char *predicate, clgpu_type type,
                                    const clgpu_call_options *options, const char *who);

/* clgpu_partition with `predicate` (NULL: "x != 0") over `type`. */
clgpu_status clgpu__partition_prepare(clgpu_context *context, const char *predicate,
                                      clgpu_type type, const clgpu_call_options *options,
                                      const char *who);

/* The operations of runs.h. */
typedef enum clgpu__runs_kind {
  CLGPU__RUNS_SCAN_BY_KEY,   /* op: a clgpu_scan_op (NULL: inclusive SUM) */
  CLGPU__RUNS_REDUCE_BY_KEY, /* op: a clgpu_reduce_op (NULL: SUM) */
  CLGPU__RUNS_UNIQUE,        /* value_type 0: clgpu_unique, else unique_by_key */
  CLGPU__RUNS_LENGTH_ENCODE, /* value_type: the lengths' and offsets' type */
} clgpu__runs_kind;

/* The program of a call of `kind` with keys of `key_type` compared by
 * `key_equal` (NULL: bitwise) and values of `value_type`. */
clgpu_status clgpu__runs_prepare(clgpu_context *context, clgpu__runs_kind kind, const void *op,
                                 const char *key_equal, clgpu_type key_type, clgpu_type value_type,
                                 const clgpu_call_options *options, const char *who);

#endif
