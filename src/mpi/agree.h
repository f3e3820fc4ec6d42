/* The ranks' agreement on a collective call's outcome (agree.c): every rank
 * contributes a record of its status, operator and part; the first failing
 * rank's status and message reach every rank, and records that disagree
 * (another operator, type or root) fail the call everywhere alike. */
#ifndef CLGPU_SRC_MPI_AGREE_H
#define CLGPU_SRC_MPI_AGREE_H

#include <stdint.h>

#include <mpi.h>

#include <clgpu/status.h>

#include "values.h"

/* The longest message of a failing rank that reaches the others. */
#define CLGPU__MPI_MESSAGE_BYTES 1024

/* What one rank contributes. `status` is the rank's own outcome so far; the
 * other fields describe its call and its part; `value` and `second` carry
 * a partial result (a total, an index and the value found there). */
typedef struct clgpu__mpi_record {
  int32_t status;
  int32_t kind;     /* the operator's kind */
  int32_t type;     /* the element type of the rank's part */
  int32_t detail;   /* the call's other choice that must agree (root, exclusive) */
  uint64_t count;   /* elements in the rank's part */
  uint64_t present; /* 1 when `value` holds a partial result */
  clgpu__value value;
  clgpu__value second;
} clgpu__mpi_record;

/* The communicator's size and this rank, written to *size and *rank.
 * Errors (local: no other rank is involved): CLGPU_INVALID_ARGUMENT for
 * MPI_COMM_NULL, CLGPU_MPI_ERROR when MPI is not initialised or refuses. */
clgpu_status clgpu__mpi_where(const char *who, MPI_Comm comm, int *size, int *rank);

/* Exchange the records: on success every rank's record is in all[0 .. size)
 * (the caller's array of `size` records). When some rank's status is not
 * CLGPU_SUCCESS, every rank returns the first such rank's status with the
 * message "who: rank R of N: <that rank's message>" and `all` is not
 * written. When every status is CLGPU_SUCCESS but a rank's kind, type or
 * detail differs from rank 0's, every rank returns CLGPU_INVALID_ARGUMENT
 * naming the first such rank and both values (`detail_name` says what the
 * detail is). Two collectives on success (an MPI_Allreduce and an
 * MPI_Allgather), two on failure (MPI_Allreduce, MPI_Bcast). */
clgpu_status clgpu__mpi_agree(const char *who, MPI_Comm comm, int size, int rank,
                              const clgpu__mpi_record *mine, clgpu__mpi_record *all,
                              const char *detail_name);

/* The first agreement of a call: allocate the records of `size` ranks into
 * *all and agree as clgpu__mpi_agree. Out of memory for them is this
 * rank's failure, agreed on like any other (the first collective needs no
 * records). On failure *all is freed and NULL; on success the caller frees
 * it. */
clgpu_status clgpu__mpi_agree_first(const char *who, MPI_Comm comm, int size, int rank,
                                    clgpu__mpi_record *mine, clgpu__mpi_record **all,
                                    const char *detail_name);

#endif
