/* Where a collective call's time went on this rank (times.c): the record
 * that clgpu_mpi_last_times copies out. */
#ifndef CLGPU_SRC_MPI_TIMES_H
#define CLGPU_SRC_MPI_TIMES_H

#include <clgpu/mpi.h>

/* MPI_Wtime in ms. */
double clgpu__mpi_now_ms(void);

/* This thread's record of the call in progress. */
clgpu_mpi_times *clgpu__mpi_times_current(void);

/* This thread's record of its current (then last) call, zeroed by begin;
 * the call adds to its fields as it goes, and end sets total_ms. */
clgpu_mpi_times *clgpu__mpi_times_begin(double *start);
void clgpu__mpi_times_end(double start);

#endif
