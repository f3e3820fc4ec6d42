/* clgpu-bench mpi (bench_mpi.c): the MPI component's sort, allreduce and
 * scan timed on 1, 2, 4 ... ranks, at a fixed total size (strong scaling)
 * and a fixed size per rank (weak scaling), each rank count one mpirun of
 * this program, the time split into device work, splitter search, staging
 * and exchange, beside the single-rank library call on the same part. */
#ifndef CLGPU_BENCH_MPI_H
#define CLGPU_BENCH_MPI_H

/* The subcommand, run as `clgpu-bench mpi` (it starts mpirun itself) or, as
 * the children it starts, `clgpu-bench mpi --child ...` under mpirun. The
 * exit status: 0, 1 on a failure, 2 on a usage error. */
int bench_command_mpi(const char *self, int argc, char **argv);

#endif
