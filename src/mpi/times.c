/* Where a collective call's time went on this rank (times.h). */
#include "times.h"

#include <string.h>

#include "status_internal.h"

static _Thread_local clgpu_mpi_times last;

double clgpu__mpi_now_ms(void) { return MPI_Wtime() * 1e3; }

clgpu_mpi_times *clgpu__mpi_times_current(void) { return &last; }

clgpu_mpi_times *clgpu__mpi_times_begin(double *start) {
  memset(&last, 0, sizeof last);
  *start = clgpu__mpi_now_ms();
  return &last;
}

void clgpu__mpi_times_end(double start) { last.total_ms = clgpu__mpi_now_ms() - start; }

clgpu_status clgpu_mpi_last_times(clgpu_mpi_times *out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "clgpu_mpi_last_times: out is NULL");
  *out = last;
  return CLGPU_SUCCESS;
}
