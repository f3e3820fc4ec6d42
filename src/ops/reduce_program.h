/* The program of cl/reduce.cl for an operator: the specs (the text of each
 * define) of reductions, count_if's predicate and scans, the program of a
 * spec in a shape, and the buffer arguments of its kernels. Shared by
 * reduce.c, scan.c and findall.c. */
#ifndef CLGPU_SRC_REDUCE_PROGRAM_H
#define CLGPU_SRC_REDUCE_PROGRAM_H

#include <stdint.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/program.h>
#include <clgpu/reduce.h>
#include <clgpu/scan.h>
#include <clgpu/workspace.h>

#include "call.h"
#include "chain.h"
#include "lease.h"
#include "shape.h"

/* The text of one program: every define of cl/reduce.cl except the shape's.
 * Strings are malloc'd. */
typedef struct clgpu__op_spec {
  clgpu_type input, accumulator, result;
  char *map, *reduce, *neutral, *store, *empty, *initial;
  char *vector_store; /* scans: r (A16) as the output's 16-vector, or NULL */
  char *vector_map;   /* count_if and findall: the predicate evaluated on a
                         16-vector x, where it means the same there
                         (vector_predicate.h), or NULL */
  int order;          /* 0, 1 (min order) or 2 (max order) */
  int arg;            /* argmin / argmax */
  int vector_op;      /* 0, or 1 sum, 2 product, 3 min, 4 max (CHUNKED only) */
  int commutes;       /* scans: the operator commutes (SUM, MIN, MAX), so a
                         range's total may be folded in any fixed order */
  int counts;         /* count_if and findall: the map gives 1 or 0, summed */
  unsigned kernels;   /* the families of cl/reduce.cl's kernels the program
                         holds (CLGPU__KERNELS_*; 0: every one): a program
                         of fewer kernels is smaller, and POCL parses a
                         program's whole binary when it loads it */
} clgpu__op_spec;

/* Kernel families of cl/reduce.cl (its CLGPU_KERNELS bits). */
#define CLGPU__KERNELS_REDUCE 1u          /* clgpu_reduce_ranges, clgpu_reduce_partials */
#define CLGPU__KERNELS_SCAN 2u            /* clgpu_scan_totals, _carries, _ranges */
#define CLGPU__KERNELS_FINDALL 4u         /* clgpu_findall_counts, _write (two passes) */
#define CLGPU__KERNELS_FINDALL_COMPACT 8u /* clgpu_findall_compact, _move (CHUNKED) */

/* The slices of each TILED chunk in a spec's program (cl/reduce.cl's
 * CLGPU_SLICES): the tuning table's tiled_slices for a scan that adds over
 * a type sub-group scans take and for findall's counts (sub-groups walk the
 * slices where the device has them), else 1. A scan's totals and findall's
 * counts have this many entries per chunk. */
unsigned clgpu__spec_slices(const clgpu_context *context, const clgpu__op_spec *s,
                            const clgpu__shape *shape);

void clgpu__spec_free(clgpu__op_spec *s);

/* The spec of a reduction, of count_if's predicate (1 per match, summed in
 * ulong; NULL means "x != 0"), of findall's (the same text), and of a scan.
 * The caller's text is checked; on success the caller frees the spec. Each
 * spec's program holds only its operation's kernels (clgpu__op_spec's
 * `kernels`): reduce and count_if the reduce kernels, findall its own, a
 * scan the scan kernels. */
clgpu_status clgpu__reduce_spec(const clgpu_reduce_op *op, clgpu_type type, const char *who,
                                clgpu__op_spec *s);
clgpu_status clgpu__predicate_spec(clgpu_type type, const char *predicate, const char *who,
                                   clgpu__op_spec *s);
clgpu_status clgpu__findall_spec(clgpu_type type, const char *predicate, const char *who,
                                 clgpu__op_spec *s);
clgpu_status clgpu__scan_spec(const clgpu_scan_op *op, clgpu_type type, const char *who,
                              clgpu__op_spec *s);

/* CLGPU_UNSUPPORTED_FEATURE when `type` needs fp64 or fp16 that the device
 * lacks. */
clgpu_status clgpu__check_type_support(const clgpu_context *context, clgpu_type type,
                                       const char *who);

/* CLGPU_UNSUPPORTED_FEATURE when a type of the spec needs fp64 or fp16 that
 * the device lacks. */
clgpu_status clgpu__check_spec_support(const clgpu_context *context, const clgpu__op_spec *s,
                                       const char *who);

/* The program of a spec in a shape. */
clgpu_status clgpu__spec_program(clgpu_context *context, const clgpu__op_spec *s,
                                 const clgpu__shape *shape, clgpu_program **out);

/* The most defines clgpu__spec_program_with adds. */
#define CLGPU__SPEC_EXTRA_DEFINES 10

/* The program of cl/common.cl, the operator of cl/reduce.cl
 * (CLGPU_OPERATOR_ONLY) and the embedded file `kernels`, built with the
 * spec's defines and `extra` (at most CLGPU__SPEC_EXTRA_DEFINES). With
 * `kernels` NULL: clgpu__spec_program. */
clgpu_status clgpu__spec_program_with(clgpu_context *context, const clgpu__op_spec *s,
                                      const clgpu__shape *shape, const clgpu_define *extra,
                                      size_t num_extra, const char *kernels, clgpu_program **out);

/* The buffer arguments of cl/reduce.cl's kernels, cleared when a call
 * gives them back (clgpu__leases_give_back). The argmin/argmax variants of
 * the range kernels take the partial indices as well. */
#define CLGPU__ARG_RANGES (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(6) | CLGPU__BUFFER_ARG(8))
#define CLGPU__ARG_RANGES_INDEXED \
  (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(6) | CLGPU__BUFFER_ARG(8) | CLGPU__BUFFER_ARG(10))
#define CLGPU__ARG_PARTIALS (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(3))
#define CLGPU__ARG_PARTIALS_INDEXED \
  (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(2) | CLGPU__BUFFER_ARG(5))
#define CLGPU__ARG_SCAN_RANGES (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(8))
#define CLGPU__ARG_SCAN_TOTALS (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(4))
#define CLGPU__ARG_SCAN_CARRIES (CLGPU__BUFFER_ARG(0))
#define CLGPU__ARG_FINDALL_WRITE                                                               \
  (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(8) | CLGPU__BUFFER_ARG(9) | \
   CLGPU__BUFFER_ARG(13)) /* clgpu_findall_write and clgpu_findall_move */
#define CLGPU__ARG_FINDALL_COUNTS (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(4))
#define CLGPU__ARG_FINDALL_COMPACT \
  (CLGPU__BUFFER_ARG(0) | CLGPU__BUFFER_ARG(4) | CLGPU__BUFFER_ARG(6))

/* Enqueues clgpu_reduce_ranges of a program without CLGPU_ARG. */
clgpu_status clgpu__enqueue_ranges(clgpu_context *context, clgpu__chain *chain, cl_kernel kernel,
                                   const clgpu__shape *shape, clgpu__place in, cl_ulong n,
                                   cl_ulong chunk, uint64_t groups, cl_int final,
                                   cl_int row_indices, clgpu__place partials, clgpu__place result);

/* The workspace slots of a scan, in the order clgpu__scan_buffers adds them. */
enum { CLGPU__SCAN_STAGED_INPUT, CLGPU__SCAN_PACKED_OUTPUT, CLGPU__SCAN_TOTALS };

/* The kernels of a scan program. */
typedef struct clgpu__scan_kernels {
  cl_kernel ranges, carries, scan;
} clgpu__scan_kernels;

/* The buffers of a scan, as a part of `report` (findall nests one). Returns
 * the index of the first. */
unsigned clgpu__scan_buffers(clgpu_workspace_size *report, int parent, const clgpu__shape *shape,
                             const clgpu__op_spec *s, uint64_t staged, uint64_t packed,
                             uint64_t totals);

/* Leases the kernels of a scan program (`multi`: the two of a cut range too). */
clgpu_status clgpu__lease_scan(clgpu__leases *held, clgpu_program *program, int multi,
                               clgpu__scan_kernels *out);

/* Scans n contiguous elements from `in` to `out` (which may be the same
 * place). A cut range reduces its chunks into `totals` (`slices` entries per
 * chunk, clgpu__spec_slices), scans those into carries, then scans each
 * chunk (or slice) from its carry. `stream` 1: the CHUNKED vector scan
 * writes its output with non-temporal stores (the tuning's
 * scan_stream_floor). */
clgpu_status clgpu__enqueue_scan_contiguous(clgpu_context *context, clgpu__chain *chain,
                                            const clgpu__scan_kernels *kernels,
                                            const clgpu__shape *shape, clgpu__place in,
                                            clgpu__place out, cl_ulong n, const clgpu__split *split,
                                            unsigned slices, cl_int exclusive, clgpu__place totals,
                                            cl_int stream);

#endif
