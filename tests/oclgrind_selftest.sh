#!/usr/bin/env bash
# Self-test of the Oclgrind setup: tools/oclgrind-run must fail on a kernel
# that writes past its buffer, and say where. Passes only when it does.
#   oclgrind_selftest.sh OCLGRIND_RUN PLANTED_PROGRAM
set -u
wrapper=$1 planted=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The inner run's stderr goes to a file, so that its expected error reports
# do not reach an outer oclgrind-run (meson's exe_wrapper) and fail this test.
"$wrapper" "$planted" >"$log" 2>&1
status=$?
if [ $status -eq 0 ]; then
  echo "FAIL: oclgrind-run passed a kernel that writes out of bounds; its output:"
  cat "$log"
  exit 1
fi
if ! grep -q "Invalid write" "$log"; then
  echo "FAIL: oclgrind-run failed (status $status) but did not report the invalid write:"
  cat "$log"
  exit 1
fi
echo "ok: oclgrind-run failed (status $status) on the planted out-of-bounds write:"
grep -m 3 -A 3 "Invalid write" "$log"
exit 0
