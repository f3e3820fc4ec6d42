#!/usr/bin/env python3
"""Install the build into a staging folder and build programs against the
installed clgpu the two ways a user outside Meson would.

    install_consumers.py SOURCE_ROOT BUILD_ROOT WORK_FOLDER

`meson install --no-rebuild --destdir WORK_FOLDER/stage` puts the build's
install under the staging folder (the prefix inside it, as configured).
The program is tests/subproject_parent/parent.c: a sum over a device
buffer, checked against the host's, that prints "parent: ok". Built:

- with pkg-config: `pkg-config --cflags --libs clgpu` (PKG_CONFIG_PATH the
  staged pkgconfig folder, PKG_CONFIG_SYSROOT_DIR the staging folder, so
  that the paths in the installed clgpu.pc lead into it), then cc;
- with CMake: tests/cmake_consumer, whose find_package(clgpu CONFIG) finds
  the staged package (CMAKE_PREFIX_PATH), twice: the shared library (the
  default; the program must load libclgpu.so.0 from the staging folder)
  and the static one (CLGPU_USE_STATIC_LIBS=ON; no libclgpu.so loaded).

Each program runs with LD_LIBRARY_PATH the staged library folder and must
print "parent: ok". A build configured with sanitizers (b_sanitize)
installs instrumented libraries, so the consumers are compiled with the
same -fsanitize flags. CMake comes with the project's set-up
(tools/setup-and-run installs it).
"""
import json
import os
import shutil
import subprocess
import sys


def run(command, what, cwd=None, env=None):
    done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.exit(f"install_consumers: {what} failed ({done.returncode}): "
                 f"{' '.join(command)}\n{done.stdout}")
    return done.stdout


def check_program(program, library_dir, static, what):
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = library_dir + (
        ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    linked = run(["ldd", program], f"ldd of the {what} consumer", env=env)
    if static and "libclgpu" in linked:
        sys.exit(f"install_consumers: the {what} consumer links the shared "
                 f"clgpu though it asked for the static one:\n{linked}")
    if not static and os.path.join(library_dir, "libclgpu.so.0") not in linked:
        sys.exit(f"install_consumers: the {what} consumer does not load the "
                 f"staged libclgpu.so.0:\n{linked}")
    output = run([program], f"the {what} consumer", env=env)
    if "parent: ok" not in output:
        sys.exit(f"install_consumers: the {what} consumer did not say ok:\n{output}")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    source, build, work = sys.argv[1:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    stage = os.path.join(work, "stage")
    run(["meson", "install", "-C", build, "--no-rebuild", "--quiet",
         "--destdir", stage], "meson install")

    options = {o["name"]: o["value"] for o in json.loads(
        run(["meson", "introspect", "--buildoptions", build], "meson introspect"))}
    prefix = stage + options["prefix"]
    library_dir = os.path.join(prefix, options["libdir"])
    # A string ("none", "address,undefined") up to Meson 1.7, a list ([] for
    # none) from Meson 1.8 on.
    sanitize = options.get("b_sanitize", "none")
    if isinstance(sanitize, list):
        sanitize = ",".join(sanitize)
    flags = [] if sanitize in ("none", "") else [f"-fsanitize={sanitize}"]
    consumer = os.path.join(source, "tests", "subproject_parent", "parent.c")

    # pkg-config
    env = dict(os.environ)
    env["PKG_CONFIG_PATH"] = os.path.join(library_dir, "pkgconfig")
    env["PKG_CONFIG_SYSROOT_DIR"] = stage
    found = run(["pkg-config", "--cflags", "--libs", "clgpu"],
                "pkg-config clgpu", env=env).split()
    program = os.path.join(work, "consumer_pkgconfig")
    cc = os.environ.get("CC", "cc")
    run([cc, "-std=c11", *flags, consumer, "-o", program, *found], "cc with pkg-config")
    check_program(program, library_dir, False, "pkg-config")

    # CMake, shared then static
    if not shutil.which("cmake"):
        sys.exit("install_consumers: cmake is not installed "
                 "(bash tools/setup-and-run installs it)")
    # Ninja, which building clgpu itself needs: CMake's default generator
    # wants make, which a minimal Debian does not have.
    ninja = shutil.which("ninja")
    if not ninja:
        sys.exit("install_consumers: ninja is not installed "
                 "(bash tools/setup-and-run installs ninja-build)")
    for static in (False, True):
        what = "CMake (static)" if static else "CMake (shared)"
        folder = os.path.join(work, "cmake-static" if static else "cmake-shared")
        run(["cmake", "-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}",
             "-S", os.path.join(source, "tests", "cmake_consumer"),
             "-B", folder, f"-DCMAKE_PREFIX_PATH={prefix}",
             f"-DCONSUMER_SOURCE={consumer}",
             f"-DCMAKE_C_FLAGS={' '.join(flags)}",
             f"-DCLGPU_USE_STATIC_LIBS={'ON' if static else 'OFF'}"],
            f"configuring the {what} consumer")
        run(["cmake", "--build", folder], f"building the {what} consumer")
        check_program(os.path.join(folder, "consumer"), library_dir, static, what)
    # The version check: a later minor version than the installed one is
    # refused (the API may change between 0.x versions).
    later = "0.99"
    refused = subprocess.run(
        ["cmake", "-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}",
         "-S", os.path.join(source, "tests", "cmake_consumer"),
         "-B", os.path.join(work, "cmake-later"), f"-DCMAKE_PREFIX_PATH={prefix}",
         f"-DCONSUMER_SOURCE={consumer}", f"-DCLGPU_WANT={later}"],
        capture_output=True, text=True)
    said = refused.stdout + refused.stderr
    if refused.returncode == 0 or "Could not find a configuration file" not in said:
        sys.exit(f"install_consumers: find_package(clgpu {later}) was not refused by the "
                 f"package's version file (exit {refused.returncode}):\n"
                 + said)
    print("install_consumers: pkg-config and CMake (shared and static) consumers "
          "of the installed clgpu built and ran")


if __name__ == "__main__":
    main()
