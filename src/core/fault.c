/* Test-only fault injection: when armed, the n-th fault point of the armed
 * kinds reports a failure instead of calling OpenCL, so tests can prove that
 * every failure path returns its error and leaks nothing. Disarmed (always,
 * outside tests) a fault point costs one atomic load. The functions are
 * exported under the internal prefix (fault.h) and declared in no public
 * header: tests of programs linked with the shared library (the MPI
 * component's) declare them themselves. */
#include <stdatomic.h>

#include "fault.h"

static atomic_uint armed_kinds;
static atomic_long countdown;
static atomic_long points_seen;

void clgpu__fault_arm(unsigned kinds, long n) {
  atomic_store(&armed_kinds, 0u);
  atomic_store(&points_seen, 0);
  atomic_store(&countdown, n);
  atomic_store(&armed_kinds, kinds);
}

void clgpu__fault_disarm(void) { atomic_store(&armed_kinds, 0u); }

long clgpu__fault_points_seen(void) { return atomic_load(&points_seen); }

int clgpu__fault_hit(unsigned kind) {
  if ((atomic_load_explicit(&armed_kinds, memory_order_relaxed) & kind) == 0) return 0;
  atomic_fetch_add(&points_seen, 1);
  return atomic_fetch_sub(&countdown, 1) == 1;
}
