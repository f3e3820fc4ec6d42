#!/usr/bin/env python3
"""Build tests/subproject_parent with clgpu as its Meson subproject, as a
user's project would, and check what it gets.

    subproject.py SOURCE_ROOT WORK_FOLDER

The library's sources (meson.build, meson_options.txt, LICENSE, include/,
src/, cl/, cmake/ and tools/embed_cl.py, which embeds cl/: the library
without its tools and tests) are
copied to WORK_FOLDER/parent/subprojects/clgpu. The parent is configured
with --force-fallback-for=clgpu, so its dependency('clgpu') is the
subproject's override whatever is installed, and built. Checked:

- it configures: clgpu adds no test setup of its own (the parent has a
  default one) and looks for no test or tool dependency;
- its tests are the parent's alone, and no clgpu-bench is built;
- the parent's program links clgpu statically (the parent gives the
  subproject default_library=static, and clgpu_dep follows it): no
  libclgpu.so in what the dynamic loader resolves;
- `meson test` runs the program, whose sum over a device buffer is
  checked against the host's ("parent: ok").
"""
import json
import os
import shutil
import subprocess
import sys


def run(command, cwd, what):
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.exit(f"subproject: {what} failed ({done.returncode}): "
                 f"{' '.join(command)}\n{done.stdout}")
    return done.stdout


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, work = sys.argv[1], sys.argv[2]
    parent = os.path.join(work, "parent")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(os.path.join(source, "tests", "subproject_parent"), parent)
    library = os.path.join(parent, "subprojects", "clgpu")
    os.makedirs(library)
    for name in ("meson.build", "meson_options.txt", "LICENSE"):
        shutil.copy(os.path.join(source, name), library)
    for name in ("include", "src", "cl", "cmake"):
        shutil.copytree(os.path.join(source, name), os.path.join(library, name))
    # The one tool the library's build runs: it embeds cl/ into the library.
    os.makedirs(os.path.join(library, "tools"))
    shutil.copy(os.path.join(source, "tools", "embed_cl.py"),
                os.path.join(library, "tools"))

    build = os.path.join(parent, "build")
    run(["meson", "setup", "--force-fallback-for=clgpu", build], parent,
        "configuring the parent")
    run(["meson", "compile", "-C", build], parent, "building the parent")

    tests = json.loads(run(["meson", "introspect", "--tests", build], parent,
                           "listing the tests"))
    names = sorted(t["name"] for t in tests)
    if names != ["parent"]:
        sys.exit(f"subproject: the parent's tests are {names}, not ['parent']: "
                 "clgpu added tests of its own")
    for folder, _, files in os.walk(build):
        if "clgpu-bench" in files:
            sys.exit(f"subproject: clgpu-bench was built in {folder}")

    program = os.path.join(build, "parent")
    linked = run(["ldd", program], parent, "ldd")
    if "libclgpu" in linked:
        sys.exit("subproject: with default_library=static the parent links the "
                 f"shared clgpu:\n{linked}")

    output = run(["meson", "test", "-C", build, "--print-errorlogs", "-v"],
                 parent, "the parent's test")
    if "parent: ok" not in output:
        sys.exit(f"subproject: the parent's program did not say ok:\n{output}")
    print("subproject: the parent built clgpu as its subproject, linked it "
          "statically and its sum was right")


if __name__ == "__main__":
    main()
