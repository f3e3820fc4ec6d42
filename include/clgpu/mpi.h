/** @file
 * The MPI component (library clgpu_mpi, pkg-config clgpu-mpi): reductions,
 * scans and sorts of one array spread over the ranks of an MPI
 * communicator, each rank holding its part on its own clgpu context (its
 * own device).
 *
 * Key concepts:
 * - The distributed array is the concatenation of the ranks' parts in rank
 *   order: rank 0's elements (in row-major order of its view) first. Parts
 *   may have any size, zero included, any layout and any rank (as
 *   clgpu_reduce's and clgpu_scan's inputs), and every rank passes the same
 *   operator and the same element type.
 * - Collective: every rank of `comm` must make the same call, in the same
 *   order as its other collective calls on `comm`. The caller initialises
 *   MPI (MPI_Init or MPI_Init_thread); the library never does, and calls MPI
 *   only from the calling thread. A program that calls these functions from
 *   several threads at once needs MPI_THREAD_MULTIPLE and distinct
 *   communicators, as any MPI code does.
 * - Failure is agreed on: before any rank changes anything, the ranks
 *   exchange their statuses, so a call that fails on one rank (a bad
 *   argument, a refused workspace, a device error) returns the same status
 *   on every rank, with a message naming the first failing rank and what it
 *   said. No rank is left waiting in a collective.
 * - Host waits: these calls block until their exchange is done (the data
 *   must reach the host to cross ranks). clgpu_mpi_scan's last pass, adding
 *   each rank's offset, is only enqueued; its event says when it is done.
 * - Workspaces: each call takes a workspace whose size its
 *   clgpu_mpi_*_workspace_size query gives, per rank, from that rank's part
 *   (the rank count does not enter). Reductions and scans take their local
 *   operation's; the few values per rank they exchange cross in host memory
 *   the call allocates (64 bytes per rank). The sort's workspace holds the
 *   local sorts' scratch and the staging buffers through which its data
 *   crosses ranks (twice the part's bytes, mapped into host memory for the
 *   exchange); without one, the call makes one for itself.
 * docs/mpi.md has the details: the order in which partial results are
 *   combined (and so the bits of float results), the messages each call
 *   sends, and how the design scales with the rank count.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <mpi.h>
 *   #include <clgpu/clgpu.h>
 *   #include <clgpu/mpi.h>
 *
 *   int main(int argc, char **argv) {
 *     int rank = 0;
 *     double total = 0;
 *     clgpu_reduce_op op = {.kind = CLGPU_REDUCE_SUM};
 *     clgpu_context *context = NULL;
 *     cl_mem buffer = NULL;
 *     clgpu_array part;
 *     MPI_Init(&argc, &argv);
 *     MPI_Comm_rank(MPI_COMM_WORLD, &rank);
 *     double host[3] = {rank + 0.5, rank + 1.0, rank + 2.0};
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof host, &buffer);
 *     if (status == CLGPU_SUCCESS) status = clgpu_array_1d(buffer, 0, CLGPU_TYPE_DOUBLE, 3, &part);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_array_write(context, &part, host, sizeof host, 0, NULL);
 *     // Every rank calls, even one whose context failed: the call agrees on
 *     // the failure instead of leaving the others waiting.
 *     status = clgpu_mpi_allreduce(status == CLGPU_SUCCESS ? context : NULL, &op, &total,
 *                                  sizeof total, &part, MPI_COMM_WORLD, NULL);
 *     if (status == CLGPU_SUCCESS)
 *       printf("rank %d: total %g\n", rank, total);
 *     else
 *       fprintf(stderr, "rank %d: %s: %s\n", rank, clgpu_status_name(status), clgpu_last_error());
 *     clgpu_buffer_release(context, buffer);
 *     clgpu_context_destroy(context);
 *     MPI_Finalize();
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_MPI_H
#define CLGPU_MPI_H

#include <stddef.h>

#include <mpi.h>

#include <clgpu/api.h>
#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/reduce.h>
#include <clgpu/scan.h>
#include <clgpu/sort.h>
#include <clgpu/status.h>
#include <clgpu/workspace.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Reduce the distributed array and write the result to host memory
 * `result` (result_size bytes, exactly the size of
 * clgpu_reduce_result_type(op, input->type)) on every rank.
 *
 * Every built-in kind of reduce.h: SUM, PRODUCT, MIN, MAX, COUNT, ANY, ALL,
 * and ARGMIN and ARGMAX, whose result is the index in the concatenated
 * array (the first element holding the minimum or maximum, UINT64_MAX when
 * every part is empty). `op->initial` is applied once, by rank 0. MIN and
 * MAX follow the float order of docs/reduce.md and are exact. Float SUM and
 * PRODUCT: each rank reduces its part as clgpu_reduce does, then every rank
 * combines the non-empty parts' results on the host from rank 0 upward
 * (half through double, rounded once per step). The result is the same bits
 * on every rank and every run for the same part sizes, devices and rank
 * count.
 *
 * `context` may be NULL on a rank that has none (the call then fails on
 * every rank, see below). Blocks until the result is on the host. Uses the
 * workspace of `options` (clgpu_mpi_reduce_workspace_size) or allocates
 * what it needs.
 * Errors, the same status on every rank, `result` unchanged everywhere:
 * CLGPU_INVALID_ARGUMENT (NULL context, op, result or input; CUSTOM, which
 * has no host operator to combine ranks with; a result_size that is not the
 * result type's size; ranks whose operators or element types differ: the
 * message names both), CLGPU_MPI_ERROR (an MPI call failed under an error
 * handler that returns, such as MPI_ERRORS_RETURN; MPI's error string is in
 * the message), and the errors of clgpu_reduce_read. When some rank failed,
 * clgpu_last_error() on every rank is "clgpu_mpi_allreduce: rank R of N: "
 * followed by the first failing rank's own message. Only two failures stay
 * on one rank: MPI_COMM_NULL and a call before MPI_Init (there is nothing
 * to agree over). An MPI failure under the default handler
 * (MPI_ERRORS_ARE_FATAL on MPI_COMM_WORLD) ends the program inside MPI, as
 * it does for any MPI call. */
CLGPU_API clgpu_status clgpu_mpi_allreduce(clgpu_context *context, const clgpu_reduce_op *op,
                                           void *result, size_t result_size,
                                           const clgpu_array *input, MPI_Comm comm,
                                           const clgpu_call_options *options);

/** As clgpu_mpi_allreduce, but the result reaches rank `root` only: other
 * ranks may pass a NULL result (and any result_size), and their `result` is
 * not written. The same combining order, so the same bits as
 * clgpu_mpi_allreduce. Errors as clgpu_mpi_allreduce's, on every rank, and
 * CLGPU_INVALID_ARGUMENT for a root outside the communicator or ranks that
 * name different roots. */
CLGPU_API clgpu_status clgpu_mpi_reduce(clgpu_context *context, const clgpu_reduce_op *op,
                                        void *result, size_t result_size, const clgpu_array *input,
                                        int root, MPI_Comm comm, const clgpu_call_options *options);

/** The workspace clgpu_mpi_allreduce and clgpu_mpi_reduce need on this rank
 * for its part `input`, written to *out: the workspace of the local
 * reduction (clgpu_reduce_read's). Local: communicates nothing, allocates
 * and enqueues nothing. Errors as clgpu_reduce_workspace_size's. */
CLGPU_API clgpu_status clgpu_mpi_reduce_workspace_size(clgpu_context *context,
                                                       const clgpu_reduce_op *op,
                                                       const clgpu_array *input,
                                                       const clgpu_call_options *options,
                                                       clgpu_workspace_size *out);

/** Scan the distributed array: `output` on each rank (the shape and type of
 * its `input`, any layout) receives the inclusive or exclusive scan of the
 * concatenated array at its elements. SUM, MIN and MAX (CUSTOM is refused:
 * its combine has no host form). Rank 0's first exclusive element is the
 * operator's neutral, as clgpu_scan's.
 *
 * How: each rank scans its part with clgpu_scan; the ranks exchange their
 * parts' totals; each rank combines the totals of the ranks before it on
 * the host, from rank 0 upward, into its offset, and a last pass on the
 * device combines the offset with every element of its output. Integer sums
 * wrap around as clgpu_scan's; MIN and MAX are exact; a float sum's
 * element is (offset + the local scan's element), so its bits depend on
 * the parts' sizes, devices and the rank count, and are the same on every
 * run.
 *
 * Output and input may be the same view (scanned in place) or overlap as
 * clgpu_scan allows. The call blocks until the totals are exchanged (the
 * local scan finished); the last pass is enqueued on the call's queue and
 * `event` (if not NULL) completes when the output is written. The wait list
 * is waited for on the device, as clgpu_scan's.
 * Errors, the same status on every rank: those of clgpu_mpi_allreduce's
 * agreement (CLGPU_INVALID_ARGUMENT for ranks with different operators or
 * types, CLGPU_MPI_ERROR) and those of clgpu_scan. Failures found before
 * the local scan (the argument checks and the workspace's, on any rank)
 * leave every rank's output unchanged; a failure during the local scan (an
 * OpenCL error on one rank after every rank's checks passed) is returned on
 * every rank, but the other ranks' outputs may then hold their local scans;
 * a failure enqueueing the last pass is returned on that rank only (the
 * exchange is over by then). */
CLGPU_API clgpu_status clgpu_mpi_scan(clgpu_context *context, const clgpu_scan_op *op,
                                      const clgpu_array *output, const clgpu_array *input,
                                      MPI_Comm comm, const clgpu_call_options *options,
                                      cl_uint num_events, const cl_event *wait_list,
                                      cl_event *event);

/** The workspace clgpu_mpi_scan needs on this rank, written to *out: the
 * local whole-array scan's (clgpu_scan_workspace_size with
 * CLGPU_ALL_AXES). Local: communicates nothing. Errors as
 * clgpu_scan_workspace_size's. */
CLGPU_API clgpu_status clgpu_mpi_scan_workspace_size(
    clgpu_context *context, const clgpu_scan_op *op, const clgpu_array *output,
    const clgpu_array *input, const clgpu_call_options *options, clgpu_workspace_size *out);

/** Sort the distributed array of `keys` (with `values` carried along, NULL
 * for none) in place: afterwards the concatenation of the ranks' parts is
 * sorted, stably (equal keys keep their (rank, position) order, descending
 * sorts too), and every rank holds exactly as many elements as it passed.
 * Keys of every built-in type in their natural order, the order of sort.h
 * (floats by bits, NaNs last; descending the exact reverse); spec may ask
 * for descending order but not for a comparator, a custom key type or a bit
 * range (CLGPU_INVALID_ARGUMENT). Values as clgpu_sort's (1, 2, 4, 8 or 16
 * bytes per key), on all ranks or none. Parts of any size, zero included,
 * 1-D views of any stride, at most INT_MAX keys per rank (MPI's counts).
 *
 * How: each rank radix sorts its part (clgpu_sort); the ranks find the
 * exact splitters, the keys at the global positions where each rank's part
 * begins, by bisecting the keys' ordered images one bit a step (on each
 * rank a clgpu_lower_bound of size - 1 needles, then one MPI_Allreduce of
 * the counts: 8 to 64 steps by the key's width); the data crosses once:
 * copied on the device into the workspace's staging buffers, which are
 * mapped into host memory (no copy at all on CPU devices, the driver's
 * pinned transfer on GPUs), one MPI_Alltoallv of the keys and one of the
 * values, the received keys copied back on the device while the values
 * cross; each rank sorts what it received. docs/mpi.md has the costs.
 *
 * Blocks until the part is sorted. options: the algorithm AUTO or RADIX,
 * the shape, the queue (of the local sorts and searches; the staging
 * copies and maps run on the context's queue), and a workspace
 * (clgpu_mpi_sort_workspace_size). The call waits for the work enqueued
 * with that workspace before (clgpu_workspace_finish), then lends its
 * prefix to the local sorts as a workspace of their own and its staging
 * buffers to the exchange as sub-buffers: a workspace wrapped over a
 * sub-buffer is taken from its parent buffer.
 * Errors, the same status on every rank (clgpu_mpi_allreduce's agreement):
 * those of clgpu_sort, CLGPU_INVALID_ARGUMENT (as above; ranks whose key
 * types, orders or values differ), CLGPU_TYPE_MISMATCH (opaque keys),
 * CLGPU_SIZE_OVERFLOW (a part over INT_MAX keys), CLGPU_MPI_ERROR, the
 * workspace statuses of clgpu_workspace_check (another operation's
 * workspace, CLGPU_WORKSPACE_WRONG_OPERATION; one too small for the part)
 * and CLGPU_WORKSPACE_ALIASES_ARGUMENT (its bytes may overlap the keys or
 * the values).
 * Failures of the checks (a bad argument or a refused workspace on any
 * rank) leave every part unchanged. A device failure after them (in a
 * local sort, the search, the staging) is agreed on the same way, but
 * leaves the parts permuted: each rank's part sorted locally, or, from a
 * failure after the exchange, holding elements received from other ranks.
 * An MPI failure under an error handler that returns (MPI_ERRORS_RETURN)
 * is returned by the ranks that see it. */
CLGPU_API clgpu_status clgpu_mpi_sort(clgpu_context *context, const clgpu_sort_spec *spec,
                                      const clgpu_array *keys, const clgpu_array *values,
                                      MPI_Comm comm, const clgpu_sort_options *options);

/** The workspace clgpu_mpi_sort needs on this rank for its part, written to
 * *out. Its part 0 is CLGPU_OPERATION_MPI_SORT; then come the local sort's
 * parts and buffers, at the offsets clgpu_sort_workspace_size gives them
 * (both local sorts use that prefix), and four staging buffers of bytes
 * (CLGPU_TYPE_UINT8) after them: "staged keys out" and "staged keys in",
 * each the part's keys' bytes, and "staged values out" and "staged values
 * in", each the part's values' bytes (0 without values). The rank count
 * does not enter: every rank receives as many elements as it sends.
 * Local: communicates nothing, allocates and enqueues nothing. Errors as
 * clgpu_sort_workspace_size's, and those of clgpu_mpi_sort's argument
 * checks (a comparator, a bit range, MERGE, opaque keys, a part over
 * INT_MAX keys). */
CLGPU_API clgpu_status clgpu_mpi_sort_workspace_size(
    clgpu_context *context, const clgpu_sort_spec *spec, const clgpu_array *keys,
    const clgpu_array *values, const clgpu_sort_options *options, clgpu_workspace_size *out);

/** Sort the distributed array of `keys` (and `values`) into the distributed
 * array of `out_keys` (and `out_values`), whose parts may have other sizes:
 * afterwards the concatenation of the ranks' out_keys is the stably sorted
 * concatenation of their keys. Each rank chooses its output's size; the
 * sizes must add up, over the ranks, to the inputs' total. For outputs of
 * even size, rank r of N takes floor((r + 1) T / N) - floor(r T / N) of
 * the T elements (the caller finds T, for instance with an MPI_Allreduce of
 * the part sizes): this rebalances a skewed input, which clgpu_mpi_sort
 * leaves as skewed as it came.
 *
 * The same keys, orders, values, options and agreement as clgpu_mpi_sort,
 * and the same steps, the splitters being the outputs' first global
 * positions. The inputs serve as scratch: on success each rank's keys and
 * values hold its part sorted locally; after a failure past the checks
 * they hold a permutation of it. Outputs: 1-D views of any stride, of the keys' and the values'
 * types, the same bytes of values per key, values on all ranks or none,
 * not overlapping each other nor the inputs.
 * Errors, the same status on every rank: those of clgpu_mpi_sort,
 * CLGPU_INVALID_OUTPUT (out_keys is keys: use clgpu_mpi_sort; an output
 * that may overlap an input or the other output), CLGPU_TYPE_MISMATCH (an
 * output of another type than its input), CLGPU_INVALID_ARGUMENT (NULL
 * out_keys; values without out_values or the reverse), CLGPU_SHAPE_MISMATCH
 * (the outputs' sizes add up to another total than the inputs'; other
 * bytes of values per key). Failures of the checks change nothing; later
 * failures leave the outputs undefined (the inputs as above). */
CLGPU_API clgpu_status clgpu_mpi_sort_into(clgpu_context *context, const clgpu_sort_spec *spec,
                                           const clgpu_array *out_keys,
                                           const clgpu_array *out_values, const clgpu_array *keys,
                                           const clgpu_array *values, MPI_Comm comm,
                                           const clgpu_sort_options *options);

/** The workspace clgpu_mpi_sort_into needs on this rank, written to *out:
 * as clgpu_mpi_sort_workspace_size's, with the local sort's part the larger
 * of the two local sorts' (of the part, of the output) and the "in"
 * staging buffers of the output's size. Local. Errors as
 * clgpu_mpi_sort_workspace_size's and those of clgpu_mpi_sort_into's
 * argument checks. */
CLGPU_API clgpu_status clgpu_mpi_sort_into_workspace_size(
    clgpu_context *context, const clgpu_sort_spec *spec, const clgpu_array *out_keys,
    const clgpu_array *out_values, const clgpu_array *keys, const clgpu_array *values,
    const clgpu_sort_options *options, clgpu_workspace_size *out);

/** Where the time of this thread's last clgpu_mpi_* collective call went on
 * this rank, in milliseconds of MPI_Wtime. The parts do not overlap; what
 * they leave out of the total is the call's host bookkeeping. */
typedef struct clgpu_mpi_times {
  double total_ms;    /**< the whole call */
  double device_ms;   /**< local operations on the device, waited for
                           (scan: enqueueing its last pass only) */
  double search_ms;   /**< sort: finding the splitters (device searches with
                           their reads and allreduces) */
  double staging_ms;  /**< copies of the data that crosses ranks between the
                           device and the host */
  double exchange_ms; /**< MPI: the agreements and the data exchange,
                           waiting for the slowest rank included */
} clgpu_mpi_times;

/** Copy the times of this thread's last clgpu_mpi_* call (zeros before the
 * first) into *out. Errors: CLGPU_INVALID_ARGUMENT (NULL out). */
CLGPU_API clgpu_status clgpu_mpi_last_times(clgpu_mpi_times *out);

#ifdef __cplusplus
}
#endif

#endif
