/* Distributed reductions (mpi.h): each rank reduces its part with
 * clgpu_reduce_read, the ranks agree and exchange their partial results in
 * one MPI_Allgather, and every rank combines them on the host from rank 0
 * upward (docs/mpi.md). */
#include <stdlib.h>
#include <string.h>

#include <clgpu/clgpu.h>
#include <clgpu/mpi.h>

#include "agree.h"
#include "element.h"
#include "status_internal.h"
#include "times.h"
#include "values.h"

/* Local checks of a reduction on this rank; `needs_result`: this rank
 * receives the result. */
static clgpu_status check_reduce(const char *who, clgpu_context *context, const clgpu_reduce_op *op,
                                 const void *result, size_t result_size, const clgpu_array *input,
                                 int needs_result, const clgpu_call_options *options) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__RETURN_ERROR_IF(!op, CLGPU_INVALID_ARGUMENT, "%s: op is NULL", who);
  CLGPU__RETURN_ERROR_IF(!input, CLGPU_INVALID_ARGUMENT, "%s: input is NULL", who);
  CLGPU__RETURN_ERROR_IF(op->kind == CLGPU_REDUCE_CUSTOM, CLGPU_INVALID_ARGUMENT,
                         "%s: a CUSTOM reduction has no host operator to combine the ranks' "
                         "results with; the built-in kinds are distributed",
                         who);
  CLGPU__RETURN_ERROR_IF(needs_result && !result, CLGPU_INVALID_ARGUMENT, "%s: result is NULL",
                         who);
  clgpu_workspace_size need;
  clgpu_status status = clgpu_reduce_read_workspace_size(context, op, input, options, &need);
  if (status != CLGPU_SUCCESS) return status;
  clgpu_type result_type = clgpu_reduce_result_type(op, input->type);
  CLGPU__RETURN_ERROR_IF(
      needs_result && result_size != clgpu_type_size(result_type), CLGPU_INVALID_ARGUMENT,
      "%s: result_size is %zu bytes, the result (%s) takes %zu", who, result_size,
      clgpu_type_cl_name(result_type), clgpu_type_size(result_type));
  return CLGPU_SUCCESS;
}

/* This rank's partial result into *mine: rank 0 applies op->initial, the
 * others reduce without it; ARGMIN and ARGMAX also read the value at the
 * index they found. */
static clgpu_status reduce_part(clgpu_context *context, const clgpu_reduce_op *op, int rank,
                                const clgpu_array *input, const clgpu_call_options *options,
                                clgpu__mpi_record *mine) {
  clgpu_reduce_op local = *op;
  if (rank != 0) local.initial = NULL;
  clgpu_type result_type = clgpu_reduce_result_type(op, input->type);
  clgpu_status status = clgpu_reduce_read(context, &local, &mine->value,
                                          clgpu_type_size(result_type), input, options);
  if (status != CLGPU_SUCCESS) return status;
  mine->present = mine->count > 0 || (rank == 0 && op->initial);
  if ((op->kind == CLGPU_REDUCE_ARGMIN || op->kind == CLGPU_REDUCE_ARGMAX) &&
      mine->value.u64 != UINT64_MAX) {
    cl_command_queue queue =
        options && options->queue ? options->queue : clgpu_context_queue(context);
    status = clgpu__mpi_read_element(queue, input, mine->value.u64, &mine->second, 0, NULL, NULL,
                                     CL_TRUE);
  }
  return status;
}

/* Combine the ranks' partial results in rank order into *out. */
static void combine(const clgpu_reduce_op *op, clgpu_type type, int size,
                    const clgpu__mpi_record *all, clgpu__value *out) {
  int have = 0;
  uint64_t before = 0; /* elements of the ranks before r */
  clgpu__value best_value;
  memset(&best_value, 0, sizeof best_value);
  *out = all[0].value; /* every part empty: rank 0's empty result */
  for (int r = 0; r < size; before += all[r].count, r++) {
    if (!all[r].present) continue;
    const clgpu__value *v = &all[r].value;
    if (op->kind == CLGPU_REDUCE_ARGMIN || op->kind == CLGPU_REDUCE_ARGMAX) {
      if (v->u64 == UINT64_MAX) continue;
      int max_order = op->kind == CLGPU_REDUCE_ARGMAX;
      if (!have || clgpu__value_before(type, max_order, &all[r].second, &best_value)) {
        best_value = all[r].second;
        out->u64 = before + v->u64;
      }
      have = 1;
      continue;
    }
    if (!have) {
      *out = *v;
      have = 1;
      continue;
    }
    switch (op->kind) {
      case CLGPU_REDUCE_SUM:
        clgpu__value_add(type, out, v);
        break;
      case CLGPU_REDUCE_PRODUCT:
        clgpu__value_multiply(type, out, v);
        break;
      case CLGPU_REDUCE_MIN:
      case CLGPU_REDUCE_MAX:
        if (clgpu__value_before(type, op->kind == CLGPU_REDUCE_MAX, v, out)) *out = *v;
        break;
      case CLGPU_REDUCE_COUNT:
        out->u64 += v->u64;
        break;
      case CLGPU_REDUCE_ANY:
        out->i32 = out->i32 || v->i32;
        break;
      case CLGPU_REDUCE_ALL:
        out->i32 = out->i32 && v->i32;
        break;
      default:
        break;
    }
  }
}

/* clgpu_mpi_allreduce (root < 0) and clgpu_mpi_reduce. */
static clgpu_status distributed_reduce(const char *who, clgpu_context *context,
                                       const clgpu_reduce_op *op, void *result, size_t result_size,
                                       const clgpu_array *input, int root, MPI_Comm comm,
                                       const clgpu_call_options *options) {
  int size = 0, rank = 0;
  CLGPU__FORWARD_IF_ERROR(clgpu__mpi_where(who, comm, &size, &rank));
  int all_ranks = root < 0;
  clgpu__mpi_record mine;
  memset(&mine, 0, sizeof mine);
  mine.kind = op ? (int32_t)op->kind : 0;
  mine.type = input ? (int32_t)input->type : 0;
  mine.detail = all_ranks ? -1 : root;
  mine.status = CLGPU_SUCCESS;
  if (!all_ranks && root >= size) {
    mine.status =
        clgpu__fail(CLGPU_INVALID_ARGUMENT, "%s: root %d is outside the communicator of %d ranks",
                    who, root, size);
  }
  int needs_result = all_ranks || rank == root;
  if (mine.status == CLGPU_SUCCESS) {
    mine.status = check_reduce(who, context, op, result, result_size, input, needs_result, options);
  }
  if (mine.status == CLGPU_SUCCESS) {
    mine.count = clgpu_array_count(input);
    double start = clgpu__mpi_now_ms();
    mine.status = reduce_part(context, op, rank, input, options, &mine);
    clgpu__mpi_times_current()->device_ms += clgpu__mpi_now_ms() - start;
  }
  clgpu__mpi_record *all = NULL;
  clgpu_status status = clgpu__mpi_agree_first(who, comm, size, rank, &mine, &all, "root");
  if (status == CLGPU_SUCCESS && needs_result) {
    clgpu__value value;
    combine(op, (clgpu_type)input->type, size, all, &value);
    memcpy(result, &value, result_size);
  }
  free(all);
  return status;
}

clgpu_status clgpu_mpi_allreduce(clgpu_context *context, const clgpu_reduce_op *op, void *result,
                                 size_t result_size, const clgpu_array *input, MPI_Comm comm,
                                 const clgpu_call_options *options) {
  double start;
  clgpu__mpi_times_begin(&start);
  clgpu_status status = distributed_reduce("clgpu_mpi_allreduce", context, op, result,
                                           result_size, input, -1, comm, options);
  clgpu__mpi_times_end(start);
  return status;
}

static clgpu_status reduce_to_root(clgpu_context *context, const clgpu_reduce_op *op,
                                   void *result, size_t result_size, const clgpu_array *input,
                                   int root, MPI_Comm comm, const clgpu_call_options *options) {
  const char *who = "clgpu_mpi_reduce";
  if (root < 0) {
    /* Every rank takes part all the same, so that none waits alone. */
    int size = 0, rank = 0;
    CLGPU__FORWARD_IF_ERROR(clgpu__mpi_where(who, comm, &size, &rank));
    clgpu__mpi_record mine, spare[1];
    memset(&mine, 0, sizeof mine);
    mine.status = clgpu__fail(CLGPU_INVALID_ARGUMENT, "%s: root %d is negative", who, root);
    return clgpu__mpi_agree(who, comm, size, rank, &mine, spare, "root");
  }
  return distributed_reduce(who, context, op, result, result_size, input, root, comm, options);
}

clgpu_status clgpu_mpi_reduce(clgpu_context *context, const clgpu_reduce_op *op, void *result,
                              size_t result_size, const clgpu_array *input, int root,
                              MPI_Comm comm, const clgpu_call_options *options) {
  double start;
  clgpu__mpi_times_begin(&start);
  clgpu_status status =
      reduce_to_root(context, op, result, result_size, input, root, comm, options);
  clgpu__mpi_times_end(start);
  return status;
}

clgpu_status clgpu_mpi_reduce_workspace_size(clgpu_context *context, const clgpu_reduce_op *op,
                                             const clgpu_array *input,
                                             const clgpu_call_options *options,
                                             clgpu_workspace_size *out) {
  return clgpu_reduce_read_workspace_size(context, op, input, options, out);
}
