/* The ranks' agreement on a collective call's outcome (agree.h). */
#include "agree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/array.h>
#include <clgpu/status.h>

#include "status_internal.h"
#include "times.h"

static clgpu_status mpi_failed(const char *who, const char *what, int code) {
  char text[MPI_MAX_ERROR_STRING + 1] = {0};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) {
    snprintf(text, sizeof text, "error code %d", code);
  }
  return clgpu__fail(CLGPU_MPI_ERROR, "%s: %s failed: %s", who, what, text);
}

clgpu_status clgpu__mpi_where(const char *who, MPI_Comm comm, int *size, int *rank) {
  CLGPU__RETURN_ERROR_IF(comm == MPI_COMM_NULL, CLGPU_INVALID_ARGUMENT,
                         "%s: the communicator is MPI_COMM_NULL", who);
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  CLGPU__RETURN_ERROR_IF(!initialised || finalised, CLGPU_MPI_ERROR,
                         "%s: MPI is %s (the caller initialises MPI before a collective call)", who,
                         finalised ? "already finalised" : "not initialised");
  int code = MPI_Comm_size(comm, size);
  if (code != MPI_SUCCESS) return mpi_failed(who, "MPI_Comm_size", code);
  code = MPI_Comm_rank(comm, rank);
  if (code != MPI_SUCCESS) return mpi_failed(who, "MPI_Comm_rank", code);
  return CLGPU_SUCCESS;
}

/* The first failing rank's status and message, sent by that rank. */
typedef struct failure {
  int32_t status;
  char message[CLGPU__MPI_MESSAGE_BYTES];
} failure;

static clgpu_status agree(const char *who, MPI_Comm comm, int size, int rank,
                          const clgpu__mpi_record *mine, clgpu__mpi_record *all,
                          const char *detail_name);

clgpu_status clgpu__mpi_agree(const char *who, MPI_Comm comm, int size, int rank,
                              const clgpu__mpi_record *mine, clgpu__mpi_record *all,
                              const char *detail_name) {
  double start = clgpu__mpi_now_ms();
  clgpu_status status = agree(who, comm, size, rank, mine, all, detail_name);
  clgpu__mpi_times_current()->exchange_ms += clgpu__mpi_now_ms() - start;
  return status;
}

static clgpu_status agree(const char *who, MPI_Comm comm, int size, int rank,
                          const clgpu__mpi_record *mine, clgpu__mpi_record *all,
                          const char *detail_name) {
  /* Who failed first: the lowest failing rank, or size when none did. */
  int first = mine->status != CLGPU_SUCCESS ? rank : size;
  int code = MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
  if (code != MPI_SUCCESS) return mpi_failed(who, "MPI_Allreduce", code);
  if (first < size) {
    failure sent;
    memset(&sent, 0, sizeof sent);
    if (rank == first) {
      sent.status = mine->status;
      snprintf(sent.message, sizeof sent.message, "%s", clgpu_last_error());
    }
    code = MPI_Bcast(&sent, (int)sizeof sent, MPI_BYTE, first, comm);
    if (code != MPI_SUCCESS) return mpi_failed(who, "MPI_Bcast", code);
    sent.message[sizeof sent.message - 1] = '\0';
    return clgpu__fail((clgpu_status)sent.status, "%s: rank %d of %d: %s", who, first, size,
                       sent.message);
  }
  code = MPI_Allgather(mine, (int)sizeof *mine, MPI_BYTE, all, (int)sizeof *mine, MPI_BYTE, comm);
  if (code != MPI_SUCCESS) return mpi_failed(who, "MPI_Allgather", code);
  for (int r = 1; r < size; r++) {
    CLGPU__RETURN_ERROR_IF(all[r].kind != all[0].kind, CLGPU_INVALID_ARGUMENT,
                           "%s: rank %d of %d passed operator kind %d, rank 0 kind %d (every "
                           "rank must pass the same operator)",
                           who, r, size, (int)all[r].kind, (int)all[0].kind);
    CLGPU__RETURN_ERROR_IF(
        all[r].type != all[0].type, CLGPU_INVALID_ARGUMENT,
        "%s: rank %d of %d holds elements of %s, rank 0 of %s (every rank's part must have "
        "the same type)",
        who, r, size, clgpu_type_cl_name((clgpu_type)all[r].type),
        clgpu_type_cl_name((clgpu_type)all[0].type));
    CLGPU__RETURN_ERROR_IF(all[r].detail != all[0].detail, CLGPU_INVALID_ARGUMENT,
                           "%s: rank %d of %d passed %s %d, rank 0 %d (every rank must pass "
                           "the same)",
                           who, r, size, detail_name, (int)all[r].detail, (int)all[0].detail);
  }
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__mpi_agree_first(const char *who, MPI_Comm comm, int size, int rank,
                                    clgpu__mpi_record *mine, clgpu__mpi_record **all,
                                    const char *detail_name) {
  *all = calloc((size_t)size, sizeof **all);
  if (!*all && mine->status == CLGPU_SUCCESS) {
    mine->status =
        clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "%s: no memory for %d ranks' records", who, size);
  }
  clgpu__mpi_record spare[1];
  clgpu_status status =
      clgpu__mpi_agree(who, comm, size, rank, mine, *all ? *all : spare, detail_name);
  if (status != CLGPU_SUCCESS) {
    free(*all);
    *all = NULL;
  }
  return status;
}
