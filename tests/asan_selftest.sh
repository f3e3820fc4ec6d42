#!/usr/bin/env bash
# Self-test of the asan setup: LeakSanitizer, with tests/lsan.supp, must report
# the context that tests/planted_leak.c leaks. Passes only when it does, so it
# also fails when the build is not sanitized.
#   asan_selftest.sh PLANTED_PROGRAM
set -u
planted=$1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$planted" >"$log" 2>&1
status=$?
if [ $status -eq 0 ]; then
  echo "FAIL: the planted leak went unreported (is this an -Db_sanitize=address build?):"
  cat "$log"
  exit 1
fi
if ! grep -q "detected memory leaks" "$log" || ! grep -q "clgpu_context_create" "$log"; then
  echo "FAIL: planted_leak failed (status $status) without a leak report naming" \
       "clgpu_context_create:"
  cat "$log"
  exit 1
fi
echo "ok: LeakSanitizer reported the planted leak (status $status):"
grep -m 1 -A 4 "Direct leak" "$log"
exit 0
