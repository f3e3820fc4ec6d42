#!/usr/bin/env bash
# Run tests/test_mpi.c under mpirun on 1, 2, 3 and 4 ranks (oversubscribed:
# more ranks than cores), each run under a time limit so that a rank left
# waiting in a collective fails the test instead of hanging it.
# Usage: mpi_run.sh MPIRUN TEST_PROGRAM
set -u
mpirun=$1
program=$2
# As root Open MPI refuses to start without being told; POCL gets one
# compute thread per rank so that the ranks share the cores.
flags=(--oversubscribe)
if [ "$(id -u)" = 0 ]; then flags+=(--allow-run-as-root); fi
export POCL_CPU_MAX_CU_COUNT=${POCL_CPU_MAX_CU_COUNT:-1}
# Shared memory between the ranks of one machine, without the kernel's
# cross-memory attach (refused in containers and chroots).
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
status=0
for ranks in 1 2 3 4; do
  echo "=== $ranks rank(s)"
  if ! timeout --kill-after=10 600 "$mpirun" "${flags[@]}" -np "$ranks" "$program"; then
    echo "=== FAILED on $ranks rank(s)"
    status=1
  fi
done
exit $status
