#!/usr/bin/env python3
"""Run one example program and check what it prints.

  run_example.py PROGRAM NAME

Passes (exit status 0) when PROGRAM exits 0, writes nothing on stderr, and
the last line of its stdout is exactly "NAME: ok". Otherwise it says why,
shows the program's output, and exits 1.
"""
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    program, name = sys.argv[1], sys.argv[2]
    result = subprocess.run([program], capture_output=True, text=True)
    lines = result.stdout.splitlines()
    failures = []
    if result.returncode != 0:
        failures.append(f"exit status {result.returncode}")
    if not lines or lines[-1] != f"{name}: ok":
        failures.append(f"the last line of stdout is {lines[-1] if lines else ''!r}, "
                        f"not {name + ': ok'!r}")
    if result.stderr:
        failures.append("it wrote on stderr")
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if failures:
        print(f"{name}: FAILED: " + "; ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
