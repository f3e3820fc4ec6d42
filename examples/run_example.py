#!/usr/bin/env python3
"""Run one example program and check what it prints.

  run_example.py PROGRAM NAME

Passes (exit status 0) when PROGRAM exits 0, writes nothing on stderr, and
the last line of its stdout is exactly "NAME: ok". Otherwise it says why,
shows the program's output, and exits 1.

One line on stderr is not counted: the warning Mesa's rusticl prints itself
when it compiles a kernel that reads an argument inside a branch (its own
print, which no build option silences; docs/quirks.md). It appears only when
Mesa compiles the program (a cold Mesa shader cache), for findall's program
among others, so a check that counted it would pass or fail with the state of
~/.cache/mesa_shader_cache. The line must match exactly; anything else on
stderr still fails.
"""
import subprocess
import sys

MESA_OWN_WARNING = ("MESA: warning: Treating load_kernel_arg in control flow as uniform, "
                    "results may be incorrect.")


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
    if any(line != MESA_OWN_WARNING for line in result.stderr.splitlines()):
        failures.append("it wrote on stderr")
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if failures:
        print(f"{name}: FAILED: " + "; ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
