#!/usr/bin/env python3
"""Tests of the clgpu-bench tool: its subcommands run on the default device
(CLGPU_DEVICE selects another) and their output is checked, not just their
exit status.

    test_bench.py CLGPU_BENCH TESTS_SOURCE_DIR [unittest options]

CLGPU_BENCH is the built tool, TESTS_SOURCE_DIR the folder holding
bench_kernel_ok.cl and bench_kernel_broken.cl. Temporary files go under
CLGPU_TEST_TMPDIR when it is set. Only the standard library is used.
"""
import csv
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

BENCH = None
SOURCE = None
TMP = None
SVG = "{http://www.w3.org/2000/svg}"

# A kernel call with every kind of argument spec: out, a, k, n, stage.
OK_ARGS = [
    "--kernel", "scale_add", "--global", "4K", "--local", "64",
    "--arg", "float[4K]=zeros", "--arg", "float[4K]", "--arg", "float=2.5",
    "--arg", "uint=4096", "--arg", "local:256", "--define", "OFFSET=1.0f",
    "--repeat", "3", "--warmup", "1",
]


# Under the asan setup, LeakSanitizer's tracer sometimes crashes at exit
# ("Tracer caught signal 11 ... LeakSanitizer has encountered a fatal
# error"): an intermittent fault of the sanitizer runtime while threads (here
# POCL's) come and go (google/sanitizers#1353), not a leak; the leak check
# did not run at all. Such a run is repeated, twice at most. A leak report
# ("detected memory leaks") is never repeated.
LSAN_TRACER_CRASH = "LeakSanitizer has encountered a fatal error"


def bench(*args, timeout=300, env=None):
    """Run clgpu-bench with args (and `env` added to the environment); the
    CompletedProcess (text)."""
    environment = None
    if env:
        environment = dict(os.environ)
        environment.update(env)
    for attempt in range(3):
        result = subprocess.run([BENCH, *args], capture_output=True, text=True, timeout=timeout,
                                env=environment)
        if LSAN_TRACER_CRASH not in result.stderr:
            break
        print(f"# LeakSanitizer's tracer crashed at exit (not a leak); run {attempt + 2} of "
              f"clgpu-bench {' '.join(args)}", file=sys.stderr)
    else:
        # The tracer crashed in every run of this command. Seen with the
        # first-call children of `run` under asan, depending on nothing but
        # the length of an environment variable's value (OCL_ICD_VENDORS: a
        # 13-character folder passed, 33 and 35 crashed every time). Run it
        # once more with the leak check off: ASan's and UBSan's checks stay
        # on, and every other run of the suite keeps its leak check.
        environment = dict(environment if environment is not None else os.environ)
        environment["ASAN_OPTIONS"] = environment.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
        print(f"# LeakSanitizer's tracer crashed in every run; clgpu-bench {' '.join(args)} once "
              f"more without the leak check (detect_leaks=0)", file=sys.stderr)
        result = subprocess.run([BENCH, *args], capture_output=True, text=True, timeout=timeout,
                                env=environment)
    return result


def first_call_folder(name):
    """An empty folder under TMP for a run's TMPDIR, where its first calls
    make (and must remove) their own folders."""
    folder = os.path.join(TMP, name)
    os.makedirs(folder, exist_ok=True)
    return folder


def ok_kernel():
    return os.path.join(SOURCE, "bench_kernel_ok.cl")


def broken_kernel():
    return os.path.join(SOURCE, "bench_kernel_broken.cl")


_TIMER = []


def device_has_timer():
    """Whether the device reports a profiling timer (resolution above 0 ns),
    read once from clgpu-bench kernel's JSON device object."""
    if not _TIMER:
        result = bench("kernel", ok_kernel(), *OK_ARGS, "--format", "json", "--repeat", "1",
                       "--warmup", "0", "--no-reference")
        if result.returncode != 0:
            raise AssertionError(describe(result))
        _TIMER.append(json.loads(result.stdout)["device"]["timer_resolution_ns"] > 0)
    return _TIMER[0]


def describe(result):
    return (f"\n$ {' '.join(result.args)}\nexit status {result.returncode}\n"
            f"--- stdout\n{result.stdout}--- stderr\n{result.stderr}")


class BenchTestCase(unittest.TestCase):
    def assert_exit(self, result, status):
        self.assertEqual(result.returncode, status, describe(result))

    def assert_timing(self, timing, where):
        """A {median, min, max} object of positive, ordered figures."""
        self.assertIsInstance(timing, dict, where)
        for key in ("median", "min", "max"):
            self.assertIsInstance(timing.get(key), (int, float), f"{where}: {key}")
        self.assertGreater(timing["min"], 0, where)
        self.assertLessEqual(timing["min"], timing["median"], where)
        self.assertLessEqual(timing["median"], timing["max"], where)


class Devices(BenchTestCase):
    def test_lists_devices_and_the_chosen_one(self):
        result = bench("devices")
        self.assert_exit(result, 0)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[0], "devices (P:D  platform / device):", describe(result))
        listed = [line for line in lines if re.match(r"^  \d+:\d+  \S.* / \S", line)]
        self.assertTrue(listed, describe(result))
        self.assertTrue(any(line.startswith("chosen (CLGPU_DEVICE=") for line in lines),
                        describe(result))
        chosen = [line for line in lines if line.startswith("device:     ")]
        self.assertEqual(len(chosen), 1, describe(result))
        if not os.environ.get("CLGPU_DEVICE"):
            # The default choice on the machines without a GPU: POCL.
            if any("Portable Computing Language" in line for line in listed) and not any(
                    "(GPU)" in line or "(accelerator)" in line for line in listed):
                self.assertIn("Portable Computing Language", chosen[0], describe(result))


class Run(BenchTestCase):
    def test_json_holds_every_requested_figure(self):
        folder = first_call_folder("json_run")
        result = bench("run", "--ops", "reduce,scan", "--types", "uint32", "--sizes", "64K",
                       "--repeat", "2", "--warmup", "1", "--format", "json", "--no-boost",
                       env={"TMPDIR": folder})
        self.assert_exit(result, 0)
        report = json.loads(result.stdout)
        self.assertEqual(report["tool"], "clgpu-bench run")
        version = bench("--version")
        self.assert_exit(version, 0)
        self.assertEqual(version.stdout.strip(), "clgpu-bench " + report["library_version"])
        device = report["device"]
        for key in ("platform", "name", "vendor", "version", "driver", "type", "compute_units",
                    "timer_resolution_ns"):
            self.assertIn(key, device)
        self.assertTrue(device["name"])
        self.assertEqual((report["repeat"], report["warmup"]), (2, 1))
        rows = report["results"]
        self.assertEqual(sorted((r["op"], r["type"], r["n"]) for r in rows),
                         [("reduce", "uint32", 65536), ("scan", "uint32", 65536)])
        for row in rows:
            where = f"{row['op']} {row['type']} {row['n']}"
            self.assert_timing(row["wall_ms"], where + " wall_ms")
            # Profiling events of a few microseconds may read 0 on some
            # devices: present and ordered, not necessarily above 0; null
            # where the device has no profiling timer (resolution 0 ns).
            event = row["event_ms"]
            if device["timer_resolution_ns"] == 0:
                self.assertIsNone(event, where)
                print(f"# {where}: no profiling timer, event_ms is null", file=sys.stderr)
            else:
                self.assertLessEqual(event["min"], event["median"], where)
                self.assertLessEqual(event["median"], event["max"], where)
            self.assertGreater(row["gb_per_s"], 0, where)
            self.assertGreater(row["melem_per_s"], 0, where)
            self.assertIn(row["reference_op"], ("read", "copy_kernel"), where)
            self.assert_timing(row["reference_ms"], where + " reference_ms")
            self.assertGreater(row["share_of_reference"], 0, where)
            # The limit: the fastest of the case's figures for the row's kind
            # of traffic (a reduce reads, a scan reads and writes; the host's
            # count on a CPU device only), as a multiple of the case's read or
            # copy kernel, applied to the row's own kernel figure.
            limit = row["limit"]
            cpu = device["type"] == "CPU"
            self.assertEqual(limit["host_counts"], cpu, where)
            self.assertEqual(limit["threads"], 1, where)  # 256 KiB: one thread's share
            for key in ("host_memcpy_gb_per_s", "host_copy_gb_per_s", "host_read_gb_per_s",
                        "copy_buffer_gb_per_s", "read_kernel_gb_per_s", "copy_kernel_gb_per_s"):
                self.assertGreater(limit[key], 0, f"{where}: limit {key}")
            if row["op"] == "reduce":
                kernel = limit["read_kernel_gb_per_s"]
                candidates = {"read kernel": kernel}
                if cpu:
                    candidates["host read"] = limit["host_read_gb_per_s"]
            else:
                kernel = limit["copy_kernel_gb_per_s"]
                candidates = {"copy kernel": kernel, "CopyBuffer": limit["copy_buffer_gb_per_s"]}
                if cpu:
                    candidates["host memcpy"] = limit["host_memcpy_gb_per_s"]
                    candidates["host copy"] = limit["host_copy_gb_per_s"]
            self.assertEqual(limit["source"], max(candidates, key=candidates.get), where)
            expected = row["reference_gb_per_s"] * max(candidates.values()) / kernel
            self.assertAlmostEqual(limit["gb_per_s"], expected, delta=expected * 2e-3, msg=where)
            self.assertGreaterEqual(limit["gb_per_s"], row["reference_gb_per_s"] * (1 - 1e-3))
            self.assertAlmostEqual(limit["share"], row["gb_per_s"] / limit["gb_per_s"],
                                   delta=limit["share"] * 1e-3, msg=where)
            self.assertEqual(row["boost"]["note"], "--no-boost", where)
            self.assertEqual(row["bytes"], 65536 * 4 * (1 if row["op"] == "reduce" else 2))
            # --types given: every (operation, type) gets its first calls,
            # at 64K; the cold one built its programs, the warm one loaded
            # them from the disk cache the cold one left.
            first = row["first_call"]
            self.assertIsInstance(first, dict, where)
            self.assertEqual((first["n"], first["shape"]), (65536, "64K"), where)
            for key in ("cold_ms", "cold_build_ms", "warm_ms", "warm_load_ms"):
                self.assertGreater(first[key], 0, f"{where}: first_call {key}")
            self.assertGreater(first["cold_builds"], 0, where)
            self.assertGreater(first["cold_disk_writes"], 0, where)
            self.assertEqual(first["cold_disk_hits"], 0, where)
            self.assertGreater(first["warm_disk_hits"], 0, where)
            self.assertEqual(first["warm_builds"], 0, where)
            self.assert_timing(first["steady_ms"], where + " first_call steady_ms")
            self.assertEqual((first["steady_calls"], first["steady_warmup"]), (2, 1), where)
            self.assertAlmostEqual(first["cold_over_steady"],
                                   first["cold_ms"] / first["steady_ms"]["median"],
                                   delta=first["cold_over_steady"] * 1e-3)
            # The prebuilt side replayed the record of what the cold and
            # warm sides used, so its first call found every program in
            # memory.
            self.assertGreater(first["prebuild_programs"], 0, where)
            self.assertGreater(first["prebuild_ms"], 0, where)
            self.assertGreater(first["prebuilt_ms"], 0, where)
            self.assertEqual((first["prebuilt_builds"], first["prebuilt_disk_hits"]), (0, 0),
                             where)
        self.assertEqual(report["first_calls"]["selection"], "all")
        self.assertEqual(os.listdir(folder), [], "the first calls' folders were left behind")

    def test_first_calls_default_to_each_operations_first_type(self):
        folder = first_call_folder("first_type")
        result = bench("run", "--ops", "reduce", "--sizes", "4K", "--repeat", "1", "--warmup",
                       "0", "--format", "csv", "--no-boost", "--no-cpu", env={"TMPDIR": folder})
        self.assert_exit(result, 0)
        rows = {row["type"]: row for row in csv.DictReader(io.StringIO(result.stdout))}
        self.assertEqual(sorted(rows), ["float", "uint32"], describe(result))
        # Without --types, only the first type: at the run's size, under 64K.
        self.assertEqual((rows["uint32"]["first_call_n"], rows["uint32"]["first_call_shape"]),
                         ("4096", "4K"), describe(result))
        self.assertGreater(int(rows["uint32"]["first_call_cold_builds"]), 0)
        self.assertGreater(int(rows["uint32"]["first_call_warm_disk_hits"]), 0)
        self.assertGreater(int(rows["uint32"]["first_call_prebuild_programs"]), 0)
        self.assertGreater(float(rows["uint32"]["first_call_prebuilt_ms"]), 0)
        self.assertEqual(rows["float"]["first_call_prebuilt_ms"], "")
        self.assertGreater(float(rows["uint32"]["first_call_steady_ms_median"]), 0)
        self.assertEqual(rows["float"]["first_call_n"], "")
        # The limit columns: each case's own figures (4K elements: one thread).
        for row in rows.values():
            self.assertIn(row["limit_source"], ("read kernel", "host read"), describe(result))
            self.assertEqual(row["limit_threads"], "1")
            for key in ("limit_gb_per_s", "share_of_limit", "host_memcpy_gb_per_s",
                        "host_copy_gb_per_s", "host_read_gb_per_s", "copy_buffer_gb_per_s",
                        "limit_read_kernel_gb_per_s", "limit_copy_kernel_gb_per_s"):
                self.assertGreater(float(row[key]), 0, key)
        self.assertEqual(rows["float"]["first_call_cold_ms"], "")
        self.assertEqual(os.listdir(folder), [], "the first calls' folders were left behind")

    def test_no_first_call_leaves_them_out(self):
        result = bench("run", "--ops", "reduce", "--types", "uint32", "--sizes", "4K",
                       "--repeat", "1", "--warmup", "0", "--format", "json", "--no-boost",
                       "--no-cpu", "--no-first-call")
        self.assert_exit(result, 0)
        report = json.loads(result.stdout)
        self.assertEqual(report["first_calls"]["selection"], "off")
        self.assertEqual([row["first_call"] for row in report["results"]], [None])
        table = bench("run", "--ops", "reduce", "--types", "uint32", "--sizes", "4K",
                      "--repeat", "1", "--warmup", "0", "--no-boost", "--no-cpu",
                      "--no-first-call")
        self.assert_exit(table, 0)
        self.assertNotIn("First calls", table.stdout)

    def test_options_without_a_subcommand_are_run_options(self):
        result = bench("--ops", "reduce", "--types", "uint32", "--sizes", "4K", "--repeat", "1",
                       "--warmup", "0", "--no-boost", "--no-cpu")
        self.assert_exit(result, 0)
        self.assertTrue(result.stdout.startswith("clgpu "), describe(result))
        main, _, first_calls = result.stdout.partition("\nFirst calls (")
        rows = [line for line in main.splitlines() if re.match(r"^reduce\s+uint32\s+4K ", line)]
        self.assertEqual(len(rows), 1, describe(result))
        # The table's last section: cold ms (builds, build ms), warm ms (disk
        # hits, load ms), prebuilt ms (programs, prebuild ms), steady ms
        # (min-max), cold/steady, warm/steady, prebuilt/steady.
        rows = [line for line in first_calls.splitlines() if line.startswith("reduce ")]
        self.assertEqual(len(rows), 1, describe(result))
        figures = re.match(r"^reduce\s+uint32\s+4K\s+([\d.]+) \((\d+), [\d.]+\)\s+([\d.]+) "
                           r"\((\d+), [\d.]+\)\s+([\d.]+) \((\d+), [\d.]+\)\s+"
                           r"[\d.]+ \([\d.]+-[\d.]+\)\s+\d+x\s+[\d.]+x\s+[\d.]+x$",
                           rows[0])
        self.assertIsNotNone(figures, describe(result))
        self.assertGreater(int(figures.group(2)), 0, describe(result))  # cold: builds
        self.assertGreater(int(figures.group(4)), 0, describe(result))  # warm: disk hits
        self.assertGreater(int(figures.group(6)), 0, describe(result))  # prebuilt: programs

    def test_lower_bound_json_beside_the_c_binary_search(self):
        folder = first_call_folder("lower_bound_json")
        n = 65536
        result = bench("run", "--ops", "lower_bound", "--types", "uint32,float", "--sizes", "64K",
                       "--repeat", "2", "--warmup", "1", "--format", "json", "--no-boost",
                       "--first-call", "first", env={"TMPDIR": folder})
        self.assert_exit(result, 0)
        rows = json.loads(result.stdout)["results"]
        self.assertEqual([(r["op"], r["type"], r["n"]) for r in rows],
                         [("lower_bound", "uint32", n), ("lower_bound", "float", n)])
        for row in rows:
            where = f"lower_bound {row['type']}"
            self.assertIn(row["algorithm"], ("chunked", "tiled"), where)
            # n needles of 4 bytes read, n uint32 positions written.
            self.assertEqual(row["bytes"], n * 4 + n * 4, where)
            self.assert_timing(row["wall_ms"], where + " wall_ms")
            # Melem/s: needles searched per second.
            self.assertGreater(row["melem_per_s"], 0, where)
            self.assertAlmostEqual(row["melem_per_s"], n / (row["wall_ms"]["median"] * 1e3),
                                   delta=row["melem_per_s"] * 1e-3, msg=where)
            self.assertGreater(row["gb_per_s"], 0, where)
            # %ref and %lim as the copies': the copy kernel, read-and-write
            # traffic.
            self.assertEqual(row["reference_op"], "copy_kernel", where)
            self.assertGreater(row["share_of_reference"], 0, where)
            self.assertIn(row["limit"]["source"],
                          ("copy kernel", "CopyBuffer", "host memcpy", "host copy"), where)
            self.assertGreater(row["limit"]["share"], 0, where)
            # The C binary search on one thread over the same needles: its
            # time, calls and clgpu's speed-up over it (the bytes are the
            # same, so the ratio of the times).
            cpu = row["cpu"]
            self.assertEqual(cpu["baseline"], "C binary search, one thread", where)
            self.assert_timing(cpu["ms"], where + " cpu ms")
            self.assertEqual(cpu["calls"], 2, where)
            self.assertGreater(cpu["gb_per_s"], 0, where)
            self.assertGreater(cpu["clgpu_over_cpu"], 0, where)
            self.assertAlmostEqual(cpu["clgpu_over_cpu"],
                                   cpu["ms"]["median"] / row["wall_ms"]["median"],
                                   delta=cpu["clgpu_over_cpu"] * 1e-3, msg=where)
            self.assertIsNone(row["qsort"]["ms"], where)
            # No peer, and the note says why.
            self.assertIsNone(row["boost"]["ms"], where)
            self.assertTrue(
                row["boost"]["note"].startswith("no peer: Boost.Compute's lower_bound"), where)
            self.assertIsNone(row["peer"], where)
        # --first-call first: the first type's first calls, checked too.
        first = rows[0]["first_call"]
        self.assertIsInstance(first, dict)
        self.assertEqual(first["n"], n)
        self.assertGreater(first["cold_builds"], 0)
        self.assertGreater(first["warm_disk_hits"], 0)
        self.assertIsNone(rows[1]["first_call"])
        self.assertEqual(os.listdir(folder), [], "the first calls' folders were left behind")

    def test_histogram_json_beside_the_c_loop(self):
        folder = first_call_folder("histogram_json")
        n = 65536
        # Every integer mode's bounds (the full ranges of uint32, int32 and
        # uint64) and float's [0, 1]; double needs cl_khr_fp64.
        types = ("uint32", "float", "int32", "uint64")
        result = bench("run", "--ops", "histogram", "--types", ",".join(types), "--sizes", "64K",
                       "--repeat", "2", "--warmup", "1", "--format", "json", "--no-boost",
                       "--first-call", "first", env={"TMPDIR": folder})
        # Exit status 0: the counts read back after the timed calls, and the
        # C loop's, were the host's reference exactly.
        self.assert_exit(result, 0)
        rows = json.loads(result.stdout)["results"]
        self.assertEqual([(r["op"], r["type"], r["n"]) for r in rows],
                         [("histogram", t, n) for t in types], describe(result))
        for row in rows:
            where = f"histogram {row['type']}"
            size = 8 if row["type"] == "uint64" else 4
            self.assertIn(row["algorithm"], ("chunked", "tiled"), where)
            # The data read, 256 uint32 counts written.
            self.assertEqual(row["bytes"], n * size + 256 * 4, where)
            self.assert_timing(row["wall_ms"], where + " wall_ms")
            self.assertGreater(row["gb_per_s"], 0, where)
            self.assertGreater(row["melem_per_s"], 0, where)
            # %ref and %lim as reduce's: the read kernel, read traffic.
            self.assertEqual(row["reference_op"], "read", where)
            self.assertGreater(row["share_of_reference"], 0, where)
            self.assertAlmostEqual(row["share_of_reference"],
                                   row["gb_per_s"] / row["reference_gb_per_s"],
                                   delta=row["share_of_reference"] * 1e-3, msg=where)
            self.assertIn(row["limit"]["source"], ("read kernel", "host read"), where)
            self.assertGreater(row["limit"]["share"], 0, where)
            # The C loop of the same formula on one thread over the same data.
            cpu = row["cpu"]
            self.assertEqual(cpu["baseline"], "C loop, one thread", where)
            self.assert_timing(cpu["ms"], where + " cpu ms")
            self.assertEqual(cpu["calls"], 2, where)
            self.assertGreater(cpu["gb_per_s"], 0, where)
            self.assertGreater(cpu["clgpu_over_cpu"], 0, where)
            self.assertAlmostEqual(cpu["clgpu_over_cpu"],
                                   cpu["ms"]["median"] / row["wall_ms"]["median"],
                                   delta=cpu["clgpu_over_cpu"] * 1e-3, msg=where)
            self.assertIsNone(row["qsort"]["ms"], where)
            # No peer, and the note says why.
            self.assertIsNone(row["boost"]["ms"], where)
            self.assertEqual(row["boost"]["note"],
                             "no peer: Boost.Compute has no histogram, PyOpenCL has none", where)
            self.assertIsNone(row["peer"], where)
        # --first-call first: the first type's first calls, checked too.
        first = rows[0]["first_call"]
        self.assertIsInstance(first, dict)
        self.assertEqual(first["n"], n)
        self.assertGreater(first["cold_builds"], 0)
        self.assertGreater(first["warm_disk_hits"], 0)
        self.assertIsNone(rows[1]["first_call"])
        self.assertEqual(os.listdir(folder), [], "the first calls' folders were left behind")

        # The table: the row's %ref and x CPU, and the note on its peers.
        table = bench("run", "--ops", "histogram", "--types", "uint32", "--sizes", "4K",
                      "--repeat", "2", "--warmup", "1", "--no-boost", "--no-first-call")
        self.assert_exit(table, 0)
        figures = [re.match(r"^histogram\s+uint32\s+4K\s+(chunked|tiled)\s+"
                            r"[\d.]+ \([\d.]+-[\d.]+\)\s+\d+\s+[\d.]+\s+(\d+)%\s+\d+%\s+\S+ \|"
                            r"\s+([\d.]+)\s+([\d.]+)x \|\s+n/a\s+n/a$", line)
                   for line in table.stdout.splitlines() if line.startswith("histogram ")]
        self.assertEqual(len(figures), 1, describe(table))
        self.assertIsNotNone(figures[0], describe(table))
        self.assertGreater(float(figures[0].group(3)), 0, describe(table))  # CPU GB/s
        # x CPU: printed to two places, so a slow device's launch against a
        # 4K C loop may read 0.00 (rusticl); the JSON above checks its value.
        self.assertGreaterEqual(float(figures[0].group(4)), 0, describe(table))
        self.assertIn("histogram has none: Boost.Compute\nhas no histogram", table.stdout)

    def test_lower_bound_table_and_csv(self):
        # A warm-up call: the first one builds the program.
        common = ("run", "--ops", "lower_bound", "--types", "int32,uint64", "--sizes", "4K,16K",
                  "--repeat", "2", "--warmup", "1", "--no-boost", "--no-first-call")
        table = bench(*common)
        self.assert_exit(table, 0)
        lines = table.stdout.splitlines()
        for type_name in ("int32", "uint64"):
            for size in ("4K", "16K"):
                where = f"lower_bound {type_name} {size}\n" + describe(table)
                # The main table: algo, wall ms, Melem/s, GB/s, %ref, %lim,
                # event ms | CPU GB/s, x CPU | Boost n/a.
                rows = [line for line in lines
                        if re.match(rf"^lower_bound\s+{type_name}\s+{size}\s+[a-z]", line)]
                self.assertEqual(len(rows), 1, where)
                figures = re.match(
                    rf"^lower_bound\s+{type_name}\s+{size}\s+(chunked|tiled)\s+"
                    r"[\d.]+ \([\d.]+-[\d.]+\)\s+(\d+)\s+([\d.]+)\s+\d+%\s+\d+%\s+\S+ \|"
                    r"\s+([\d.]+)\s+([\d.]+)x \|\s+n/a\s+n/a$", rows[0])
                self.assertIsNotNone(figures, where)
                self.assertGreater(float(figures.group(5)), 0, where)  # x CPU
                # The searches' table: the C binary search's ms (min-max),
                # its calls, x C bsearch, clgpu's and C's Mkeys/s.
                rows = [line for line in lines
                        if re.match(rf"^lower_bound\s+{type_name}\s+{size}\s+[\d.]", line)]
                self.assertEqual(len(rows), 1, where)
                figures = re.match(
                    rf"^lower_bound\s+{type_name}\s+{size}\s+([\d.]+) \([\d.]+-[\d.]+\)\s+(\d+)"
                    r"\s+([\d.]+)x\s+([\d.]+)\s+([\d.]+)$", rows[0])
                self.assertIsNotNone(figures, where)
                self.assertEqual(figures.group(2), "2", where)
                for k in (1, 3, 4, 5):
                    self.assertGreater(float(figures.group(k)), 0, where)
        self.assertRegex(table.stdout, r"(?m)^search\s+type\s+n\s+C bsearch ms \(min-max\)\s+"
                         r"calls\s+x C bsearch\s+clgpu Mkeys/s\s+C Mkeys/s$")
        self.assertIn("lower_bound has no peer: Boost.Compute's lower_bound", table.stdout)

        result = bench(*common, "--format", "csv")
        self.assert_exit(result, 0)
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        self.assertEqual([(r["op"], r["type"], r["n"]) for r in rows],
                         [("lower_bound", t, n) for t in ("int32", "uint64")
                          for n in ("4096", "16384")], describe(result))
        for row in rows:
            where = f"lower_bound {row['type']} {row['n']}"
            n, size = int(row["n"]), 4 if row["type"] == "int32" else 8
            self.assertEqual(int(row["bytes"]), n * size + n * 4, where)
            self.assertEqual(row["reference_op"], "copy_kernel", where)
            self.assertEqual(row["cpu_baseline"], "C binary search, one thread", where)
            self.assertEqual(row["cpu_calls"], "2", where)
            for key in ("melem_per_s", "gb_per_s", "cpu_ms_median", "cpu_gb_per_s",
                        "clgpu_over_cpu", "share_of_reference"):
                self.assertGreater(float(row[key]), 0, f"{where}: {key}")
            self.assertAlmostEqual(float(row["clgpu_over_cpu"]),
                                   float(row["cpu_ms_median"]) / float(row["wall_ms_median"]),
                                   delta=float(row["clgpu_over_cpu"]) * 1e-3, msg=where)
            self.assertTrue(row["boost_note"].startswith("no peer"), where)

        # reduce_by_key and scan_by_key (with scan, for scan_by_key's ratio
        # to it), the same way: not part of the default run, so named.
        self.check_by_key_table_and_csv()

    def check_by_key_table_and_csv(self):
        common = ("run", "--ops", "reduce_by_key,scan_by_key,scan", "--types", "int32,uint64",
                  "--sizes", "1K,64K", "--repeat", "2", "--warmup", "1", "--no-boost",
                  "--no-first-call")
        table = bench(*common)
        self.assert_exit(table, 0)
        lines = table.stdout.splitlines()
        runs = {}
        for op in ("reduce_by_key", "scan_by_key"):
            for type_name in ("int32", "uint64"):
                for size in ("1K", "64K"):
                    where = f"{op} {type_name} {size}\n" + describe(table)
                    # The main table: algo, wall ms, Melem/s, GB/s, %ref,
                    # %lim, event ms | CPU GB/s, x CPU | Boost n/a.
                    rows = [line for line in lines
                            if re.match(rf"^{op}\s+{type_name}\s+{size}\s+[a-z]", line)]
                    self.assertEqual(len(rows), 1, where)
                    figures = re.match(
                        rf"^{op}\s+{type_name}\s+{size}\s+(chunked|tiled)\s+"
                        r"[\d.]+ \([\d.]+-[\d.]+\)\s+(\d+)\s+([\d.]+)\s+\d+%\s+\d+%\s+\S+ \|"
                        r"\s+([\d.]+)\s+([\d.]+)x \|\s+n/a\s+n/a$", rows[0])
                    self.assertIsNotNone(figures, where)
                    # x CPU: printed to two places, so a slow device's
                    # launch against a 1K C loop may read 0.00 (rusticl).
                    self.assertGreaterEqual(float(figures.group(5)), 0, where)
                    if size == "64K":
                        self.assertGreater(float(figures.group(4)), 0, where)  # CPU GB/s
                    # The by-key table: runs, the C loop's ms (min-max), its
                    # calls, x C, clgpu's and C's Mkeys/s, x scan (GB/s and
                    # Melem/s: scan_by_key only), the peers' note.
                    rows = [line for line in lines
                            if re.match(rf"^{op}\s+{type_name}\s+{size}\s+\d+\s+[\d.]", line)]
                    self.assertEqual(len(rows), 1, where)
                    figures = re.match(
                        rf"^{op}\s+{type_name}\s+{size}\s+(\d+)\s+([\d.]+) \([\d.]+-[\d.]+\)"
                        r"\s+(\d+)\s+([\d.]+)x\s+([\d.]+)\s+([\d.]+)\s+(\S+)\s+(\S+)\s+(.*)$",
                        rows[0])
                    self.assertIsNotNone(figures, where)
                    self.assertEqual(figures.group(3), "2", where)
                    # The C loop's ms and x C may round to 0 at 1K; the
                    # rates may not.
                    for k in (2, 4):
                        self.assertGreaterEqual(float(figures.group(k)), 0, where)
                    for k in (5, 6):
                        self.assertGreater(float(figures.group(k)), 0, where)
                    # Runs of 1 to 15 keys: n/15 to n of them, about n/8.
                    n = 1024 if size == "1K" else 65536
                    count = int(figures.group(1))
                    self.assertTrue(n / 15 <= count <= n, where)
                    if size == "64K":
                        self.assertAlmostEqual(count / n, 1 / 8, delta=0.01, msg=where)
                    runs.setdefault((type_name, size), set()).add(count)
                    if op == "scan_by_key":
                        for k in (7, 8):
                            self.assertRegex(figures.group(k), r"^[\d.]+x$", where)
                            self.assertGreater(float(figures.group(k)[:-1]), 0, where)
                        self.assertTrue(figures.group(9).startswith(
                            "no peer: Boost.Compute has no inclusive_scan_by_key"), where)
                    else:
                        self.assertEqual((figures.group(7), figures.group(8)), ("n/a", "n/a"), where)
                        self.assertEqual(figures.group(9),
                                         "--no-boost; PyOpenCL has no by-key operations", where)
        # Both ops see the same keys in a case.
        for key, counts in runs.items():
            self.assertEqual(len(counts), 1, f"{key}: {counts}")
        self.assertRegex(table.stdout, r"(?m)^by key\s+type\s+n\s+runs\s+C loop ms \(min-max\)\s+"
                         r"calls\s+x C\s+clgpu Mkeys/s\s+C Mkeys/s\s+x scan GB/s\s+"
                         r"x scan Melem/s\s+peers$")
        self.assertIn("PyOpenCL has no by-key operations", table.stdout)

        result = bench(*common, "--format", "csv")
        self.assert_exit(result, 0)
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        self.assertEqual([(r["op"], r["type"], r["n"]) for r in rows],
                         [(op, t, n) for t in ("int32", "uint64") for n in ("1024", "65536")
                          for op in ("scan", "reduce_by_key", "scan_by_key")], describe(result))
        gbps = {}
        for row in rows:
            where = f"{row['op']} {row['type']} {row['n']}"
            n, size = int(row["n"]), 4 if row["type"] == "int32" else 8
            gbps[(row["op"], row["type"], n)] = float(row["gb_per_s"])
            if row["op"] == "scan":
                self.assertEqual(row["runs"], "", where)
                self.assertEqual(row["gb_per_s_relative_to_scan"], "", where)
                continue
            runs = int(row["runs"])
            self.assertTrue(n / 15 <= runs <= n, where)
            # Keys and values read; reduce_by_key: a key and a sum per run
            # and the uint64 count written; scan_by_key: n values written.
            if row["op"] == "reduce_by_key":
                self.assertEqual(int(row["bytes"]), n * (4 + size) + runs * (4 + size) + 8, where)
                self.assertEqual(row["gb_per_s_relative_to_scan"], "", where)
                self.assertEqual(row["boost_note"],
                                 "--no-boost; PyOpenCL has no by-key operations", where)
            else:
                self.assertEqual(int(row["bytes"]), n * (4 + size) + n * size, where)
                for key in ("gb_per_s_relative_to_scan", "melem_per_s_relative_to_scan"):
                    self.assertGreater(float(row[key]), 0, f"{where}: {key}")
                self.assertTrue(row["boost_note"].startswith("no peer"), where)
            self.assertEqual(row["reference_op"], "copy_kernel", where)
            self.assertEqual(row["cpu_baseline"], "C loop, one thread", where)
            self.assertEqual(row["cpu_calls"], "2", where)
            for key in ("melem_per_s", "gb_per_s", "cpu_ms_median", "cpu_gb_per_s",
                        "clgpu_over_cpu", "share_of_reference"):
                self.assertGreater(float(row[key]), 0, f"{where}: {key}")
            self.assertAlmostEqual(float(row["clgpu_over_cpu"]),
                                   float(row["cpu_ms_median"]) / float(row["wall_ms_median"]),
                                   delta=float(row["clgpu_over_cpu"]) * 1e-3, msg=where)
        # scan_by_key's ratio is its GB/s over the scan row's of the same case.
        for row in rows:
            if row["op"] != "scan_by_key":
                continue
            key = (row["type"], int(row["n"]))
            self.assertAlmostEqual(float(row["gb_per_s_relative_to_scan"]),
                                   gbps[("scan_by_key", *key)] / gbps[("scan", *key)],
                                   delta=float(row["gb_per_s_relative_to_scan"]) * 1e-3,
                                   msg=str(key))

    def test_unique_json_beside_the_c_loop(self):
        # unique over reduce_by_key's keys (uint32 alone, whatever --types
        # says): the same runs as reduce_by_key's in the same case, its
        # bytes the keys read and a key per run and the count written.
        n = 65536
        result = bench("run", "--ops", "unique,reduce_by_key", "--types", "uint32,float",
                       "--sizes", "64K", "--repeat", "2", "--warmup", "1", "--format", "json",
                       "--no-boost", "--no-first-call")
        self.assert_exit(result, 0)
        rows = json.loads(result.stdout)["results"]
        self.assertEqual([(r["op"], r["type"], r["n"]) for r in rows],
                         [("reduce_by_key", "uint32", n), ("unique", "uint32", n),
                          ("reduce_by_key", "float", n)], describe(result))
        self.assertIn("unique", result.stderr)  # the float case it skips, said on stderr
        row = rows[1]
        runs = row["runs"]
        self.assertEqual(runs, rows[0]["runs"])
        self.assertAlmostEqual(runs / n, 1 / 8, delta=0.01)
        self.assertEqual(row["bytes"], n * 4 + runs * 4 + 8)
        self.assertIn(row["algorithm"], ("chunked", "tiled"))
        self.assert_timing(row["wall_ms"], "unique wall_ms")
        self.assertGreater(row["gb_per_s"], 0)
        self.assertEqual(row["reference_op"], "copy_kernel")
        self.assertGreater(row["share_of_reference"], 0)
        cpu = row["cpu"]
        self.assertEqual(cpu["baseline"], "C loop, one thread")
        self.assert_timing(cpu["ms"], "unique cpu ms")
        self.assertGreater(cpu["clgpu_over_cpu"], 0)
        self.assertEqual(row["boost"]["note"], "--no-boost; PyOpenCL has no by-key operations")
        # The table lists it with the by-key ops.
        table = bench("run", "--ops", "unique", "--types", "uint32", "--sizes", "1K",
                      "--repeat", "2", "--warmup", "1", "--no-boost", "--no-first-call")
        self.assert_exit(table, 0)
        self.assertRegex(table.stdout, r"(?m)^unique\s+uint32\s+1K\s+\d+\s+[\d.]+ \(")
        self.assertIn("unique n*4 read + runs*4 + 8 written", table.stdout)

    def test_segmented_sort_json_beside_radix_sort(self):
        folder = first_call_folder("segmented_sort_json")
        # 1000 keys: a last segment of 8; 64K: 4096 segments of 16. The
        # 32-bit types have Boost.Compute's packed peer (when built), uint64
        # none; double needs cl_khr_fp64.
        types = ("uint32", "float", "int32", "uint64")
        sizes = (1000, 65536)
        result = bench("run", "--ops", "segmented_sort,radix_sort", "--types", ",".join(types),
                       "--sizes", "1000,64K", "--repeat", "2", "--warmup", "1", "--format", "json",
                       "--first-call", "first", env={"TMPDIR": folder})
        # Exit status 0: clgpu's keys and the C insertion sort's were the
        # host's reference bit for bit (a wrong peer only marks its row).
        self.assert_exit(result, 0)
        report = json.loads(result.stdout)
        rows = report["results"]
        self.assertEqual([(r["op"], r["type"], r["n"]) for r in rows],
                         [(op, t, n) for t in types for n in sizes
                          for op in ("radix_sort", "segmented_sort")], describe(result))
        radix = {(r["type"], r["n"]): r for r in rows if r["op"] == "radix_sort"}
        for row in rows:
            where = f"{row['op']} {row['type']} {row['n']}"
            n, size = row["n"], 8 if row["type"] == "uint64" else 4
            if row["op"] == "radix_sort":
                self.assertIsNone(row["segments"], where)
                self.assertIsNone(row["relative_to_radix_sort"], where)
                continue
            self.assertRegex(row["algorithm"], r"^merge/(chunked|tiled)$", where)
            self.assertEqual(row["segments"], (n + 15) // 16, where)
            # Keys read once and written once, counted as a sort's.
            self.assertEqual(row["bytes"], 2 * n * size, where)
            self.assertEqual(row["event_covers"], "marker_to_last_command", where)
            self.assert_timing(row["wall_ms"], where + " wall_ms")
            self.assertAlmostEqual(row["melem_per_s"], n / (row["wall_ms"]["median"] * 1e3),
                                   delta=row["melem_per_s"] * 1e-3, msg=where)
            self.assertEqual(row["reference_op"], "copy_kernel", where)
            self.assertGreater(row["share_of_reference"], 0, where)
            # The insertion sort of each segment on one thread.
            cpu = row["cpu"]
            self.assertEqual(cpu["baseline"], "insertion sort per segment, one thread", where)
            self.assert_timing(cpu["ms"], where + " cpu ms")
            self.assertEqual(cpu["calls"], 2, where)
            self.assertAlmostEqual(cpu["clgpu_over_cpu"],
                                   cpu["ms"]["median"] / row["wall_ms"]["median"],
                                   delta=cpu["clgpu_over_cpu"] * 1e-3, msg=where)
            self.assertIsNone(row["qsort"]["ms"], where)
            # Its throughput over the radix sort of the same keys in the run
            # (the same bytes: both ratios the inverse of the times' ratio).
            other = radix[(row["type"], n)]
            ratio = row["relative_to_radix_sort"]
            self.assertIsInstance(ratio, dict, where)
            expected = other["wall_ms"]["median"] / row["wall_ms"]["median"]
            for key in ("gb_per_s", "melem_per_s"):
                self.assertAlmostEqual(ratio[key], expected, delta=expected * 2e-3,
                                       msg=f"{where}: {key}")
            self.assertIsNone(row["relative_to_scan"], where)
            self.assertIsNone(row["relative_to_findall"], where)
            self.assertIsNone(row["runs"], where)
            # Boost.Compute's sort of (segment << 32 | key's image), checked.
            boost = row["boost"]
            if size == 8:
                self.assertIsNone(boost["ms"], where)
                self.assertTrue(boost["note"].startswith(
                    "no peer: Boost.Compute has no segmented sort"), where)
            elif report["boost_compute"] is None:
                self.assertIsNone(boost["ms"], where)
                self.assertEqual(boost["note"], "not built (boost_compute feature)", where)
            else:
                self.assert_timing(boost["ms"], where + " boost ms")
                self.assertTrue(boost["note"].startswith(
                    "sort of packed uint64 (segment << 32 | key's order image): "), where)
        # --first-call first: the first type's first calls, at 1000 keys
        # (the run's smallest size), checked too.
        first = [r["first_call"] for r in rows if r["op"] == "segmented_sort"]
        self.assertIsInstance(first[0], dict)
        self.assertEqual(first[0]["n"], 1000)
        self.assertGreater(first[0]["cold_builds"], 0)
        self.assertGreater(first[0]["warm_disk_hits"], 0)
        self.assertEqual(first[1:], [first[0]] + [None] * (len(first) - 2))
        self.assertEqual(os.listdir(folder), [], "the first calls' folders were left behind")

    def test_partition_json_beside_findall(self):
        folder = first_call_folder("partition_json")
        n = 65536
        types = ("uint32", "float", "int32", "uint64")
        result = bench("run", "--ops", "partition,findall", "--types", ",".join(types),
                       "--sizes", "64K", "--repeat", "2", "--warmup", "1", "--format", "json",
                       "--first-call", "first", env={"TMPDIR": folder})
        # Exit status 0: the count and every element of clgpu's partition
        # and the C loop's were the host's.
        self.assert_exit(result, 0)
        report = json.loads(result.stdout)
        rows = report["results"]
        self.assertEqual([(r["op"], r["type"], r["n"]) for r in rows],
                         [(op, t, n) for t in types for op in ("findall", "partition")],
                         describe(result))
        findall = {r["type"]: r for r in rows if r["op"] == "findall"}
        for row in rows:
            if row["op"] != "partition":
                continue
            where = f"partition {row['type']}"
            size = 8 if row["type"] == "uint64" else 4
            self.assertIn(row["algorithm"], ("chunked", "tiled"), where)
            # findall's predicate over the same data: the same selection,
            # about 10%.
            self.assertEqual(row["selected"], findall[row["type"]]["selected"], where)
            self.assertAlmostEqual(row["selected"] / n, 0.1, delta=0.01, msg=where)
            # The data read, every element and the uint64 count written.
            self.assertEqual(row["bytes"], 2 * n * size + 8, where)
            self.assert_timing(row["wall_ms"], where + " wall_ms")
            self.assertEqual(row["reference_op"], "copy_kernel", where)
            self.assertAlmostEqual(row["share_of_reference"],
                                   row["gb_per_s"] / row["reference_gb_per_s"],
                                   delta=row["share_of_reference"] * 1e-3, msg=where)
            self.assertIn(row["limit"]["source"],
                          ("copy kernel", "CopyBuffer", "host memcpy", "host copy"), where)
            cpu = row["cpu"]
            self.assertEqual(cpu["baseline"], "C loop, one thread", where)
            self.assert_timing(cpu["ms"], where + " cpu ms")
            self.assertEqual(cpu["calls"], 2, where)
            self.assertAlmostEqual(cpu["clgpu_over_cpu"],
                                   cpu["ms"]["median"] / row["wall_ms"]["median"],
                                   delta=cpu["clgpu_over_cpu"] * 1e-3, msg=where)
            # Its throughput over findall's in the same run: by GB/s (the
            # bytes differ) and by elements per second.
            other = findall[row["type"]]
            ratio = row["relative_to_findall"]
            self.assertIsInstance(ratio, dict, where)
            self.assertAlmostEqual(ratio["gb_per_s"], row["gb_per_s"] / other["gb_per_s"],
                                   delta=ratio["gb_per_s"] * 2e-3, msg=where)
            expected = other["wall_ms"]["median"] / row["wall_ms"]["median"]
            self.assertAlmostEqual(ratio["melem_per_s"], expected, delta=expected * 2e-3,
                                   msg=where)
            self.assertIsNone(row["relative_to_radix_sort"], where)
            self.assertIsNone(row["segments"], where)
            boost = row["boost"]
            if report["boost_compute"] is None:
                self.assertIsNone(boost["ms"], where)
                self.assertEqual(boost["note"], "not built (boost_compute feature)", where)
            else:
                self.assert_timing(boost["ms"], where + " boost ms")
                self.assertEqual(boost["note"], "stable_partition, in place on a copy made "
                                 "before each call (not timed)", where)
        first = rows[1]["first_call"]
        self.assertIsInstance(first, dict)
        self.assertEqual(first["n"], n)
        self.assertGreater(first["cold_builds"], 0)
        self.assertGreater(first["warm_disk_hits"], 0)
        self.assertIsNone(rows[3]["first_call"])
        self.assertEqual(os.listdir(folder), [], "the first calls' folders were left behind")

    def test_segmented_sort_and_partition_table_and_csv(self):
        # Named, as the by-key ops: not part of the default run. Without a
        # radix_sort row segmented_sort's x radix is n/a; findall's row
        # gives partition its x findall.
        common = ("run", "--ops", "segmented_sort,partition,findall", "--types", "int32,uint64",
                  "--sizes", "1K,64K", "--repeat", "2", "--warmup", "1", "--no-boost",
                  "--no-first-call")
        table = bench(*common)
        self.assert_exit(table, 0)
        lines = table.stdout.splitlines()
        for op in ("segmented_sort", "partition"):
            for type_name in ("int32", "uint64"):
                for size in ("1K", "64K"):
                    where = f"{op} {type_name} {size}\n" + describe(table)
                    n = 1024 if size == "1K" else 65536
                    # The main table: algo, wall ms, Melem/s, GB/s, %ref,
                    # %lim, event ms | CPU GB/s, x CPU | Boost n/a.
                    rows = [line for line in lines
                            if re.match(rf"^{op}\s+{type_name}\s+{size}\s+[a-z]", line)]
                    self.assertEqual(len(rows), 1, where)
                    algorithm = "merge/(chunked|tiled)" if op == "segmented_sort" else \
                        "(chunked|tiled)"
                    figures = re.match(
                        rf"^{op}\s+{type_name}\s+{size}\s+{algorithm}\s+"
                        r"[\d.]+ \([\d.]+-[\d.]+\)\s+\d+\s+[\d.]+\s+\d+%\s+\d+%\s+\S+ \|"
                        r"\s+([\d.]+)\s+([\d.]+)x \|\s+n/a\s+n/a$", rows[0])
                    self.assertIsNotNone(figures, where)
                    # The op's own table: segments or selected, the C
                    # baseline's ms (min-max), its calls, x C, clgpu's and
                    # C's Mkeys/s or Melem/s, x radix or x findall, peers.
                    rows = [line for line in lines
                            if re.match(rf"^{op}\s+{type_name}\s+{size}\s+\d+\s+[\d.]", line)]
                    self.assertEqual(len(rows), 1, where)
                    figures = re.match(
                        rf"^{op}\s+{type_name}\s+{size}\s+(\d+)\s+([\d.]+) \([\d.]+-[\d.]+\)"
                        r"\s+(\d+)\s+([\d.]+)x\s+([\d.]+)\s+([\d.]+)\s+(\S+)\s+(.*)$", rows[0])
                    self.assertIsNotNone(figures, where)
                    self.assertEqual(figures.group(3), "2", where)
                    for k in (2, 5, 6):
                        self.assertGreater(float(figures.group(k)), 0, where)
                    # x C: two places, so a slow device's launch against a 1K
                    # C loop may read 0.00 (the CSV below checks its value).
                    self.assertGreaterEqual(float(figures.group(4)), 0, where)
                    # 64-bit keys have no packed peer: that says so first.
                    if op == "segmented_sort" and type_name == "uint64":
                        self.assertTrue(figures.group(8).startswith(
                            "no peer: Boost.Compute has no segmented sort"), where)
                    else:
                        self.assertEqual(figures.group(8), "--no-boost", where)
                    count = int(figures.group(1))
                    if op == "segmented_sort":
                        self.assertEqual(count, n // 16, where)
                        self.assertEqual(figures.group(7), "n/a", where)
                    else:
                        self.assertAlmostEqual(count / n, 0.1, delta=0.03, msg=where)
                        self.assertRegex(figures.group(7), r"^[\d.]+x$", where)
        self.assertRegex(table.stdout, r"(?m)^segmented\s+type\s+n\s+segments\s+"
                         r"C insertion ms \(min-max\)\s+calls\s+x C\s+clgpu Mkeys/s\s+"
                         r"C Mkeys/s\s+x radix\s+peers$")
        self.assertRegex(table.stdout, r"(?m)^partition\s+type\s+n\s+selected\s+"
                         r"C loop ms \(min-max\)\s+calls\s+x C\s+clgpu Melem/s\s+"
                         r"C Melem/s\s+x findall\s+peers$")
        self.assertIn("segmented_sort's peer: Boost.Compute's sort of (segment, key) packed",
                      table.stdout)
        # Neither is a whole sort: no row in the sorts' table, no sorts' note.
        self.assertNotRegex(table.stdout, r"(?m)^sort\s+type\s+n\s+LSD radix")
        self.assertNotIn("Sorts (radix_sort", table.stdout)

        result = bench(*common, "--format", "csv")
        self.assert_exit(result, 0)
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        self.assertEqual([(r["op"], r["type"], r["n"]) for r in rows],
                         [(op, t, n) for t in ("int32", "uint64") for n in ("1024", "65536")
                          for op in ("findall", "segmented_sort", "partition")], describe(result))
        gbps = {}
        for row in rows:
            gbps[(row["op"], row["type"], row["n"])] = float(row["gb_per_s"])
        for row in rows:
            where = f"{row['op']} {row['type']} {row['n']}"
            n, size = int(row["n"]), 4 if row["type"] == "int32" else 8
            for key in ("gb_per_s_relative_to_scan", "gb_per_s_relative_to_radix_sort",
                        "melem_per_s_relative_to_radix_sort"):
                self.assertEqual(row[key], "", f"{where}: {key}")
            if row["op"] == "findall":
                self.assertEqual(row["segments"], "", where)
                self.assertEqual(row["gb_per_s_relative_to_findall"], "", where)
                continue
            self.assertEqual(row["reference_op"], "copy_kernel", where)
            self.assertEqual(row["cpu_calls"], "2", where)
            if row["op"] == "segmented_sort" and size == 8:
                self.assertTrue(row["boost_note"].startswith("no peer"), where)
            else:
                self.assertEqual(row["boost_note"], "--no-boost", where)
            for key in ("melem_per_s", "gb_per_s", "cpu_ms_median", "cpu_gb_per_s",
                        "clgpu_over_cpu", "share_of_reference"):
                self.assertGreater(float(row[key]), 0, f"{where}: {key}")
            self.assertAlmostEqual(float(row["clgpu_over_cpu"]),
                                   float(row["cpu_ms_median"]) / float(row["wall_ms_median"]),
                                   delta=float(row["clgpu_over_cpu"]) * 1e-3, msg=where)
            if row["op"] == "segmented_sort":
                self.assertEqual(int(row["bytes"]), 2 * n * size, where)
                self.assertEqual(int(row["segments"]), n // 16, where)
                self.assertEqual(row["cpu_baseline"], "insertion sort per segment, one thread",
                                 where)
                self.assertEqual(row["gb_per_s_relative_to_findall"], "", where)
            else:
                self.assertEqual(int(row["bytes"]), 2 * n * size + 8, where)
                self.assertEqual(row["segments"], "", where)
                self.assertEqual(row["cpu_baseline"], "C loop, one thread", where)
                key = (row["type"], row["n"])
                self.assertAlmostEqual(float(row["gb_per_s_relative_to_findall"]),
                                       gbps[("partition", *key)] / gbps[("findall", *key)],
                                       delta=float(row["gb_per_s_relative_to_findall"]) * 1e-3,
                                       msg=where)
                self.assertGreater(float(row["melem_per_s_relative_to_findall"]), 0, where)

    def test_help_names_run_the_default(self):
        result = bench("--help")
        self.assert_exit(result, 0)
        self.assertRegex(result.stdout, r"run\s+\(the default\)")
        self.assertIn("kernel", result.stdout)
        self.assertIn("selfcheck", result.stdout)
        self.assertRegex(result.stdout, r"compare\s+run's operations on every device")
        compare_help = bench("compare", "--help")
        self.assert_exit(compare_help, 0)
        for option in ("--sizes LIST", "--devices LIST", "--timeout S", "--no-first-call",
                       "--format F", "CLGPU_DEVICE"):
            self.assertIn(option, compare_help.stdout)
        run_help = bench("run", "--help")
        self.assert_exit(run_help, 0)
        self.assertIn("--plot FILE.svg", run_help.stdout)
        self.assertRegex(run_help.stdout, r"lower_bound\s+clgpu_lower_bound of n needles")
        self.assertRegex(run_help.stdout, r"histogram\s+clgpu_histogram_even into 256 uint32")
        self.assertRegex(run_help.stdout, r"reduce_by_key\s+clgpu_reduce_by_key, SUM")
        self.assertRegex(run_help.stdout, r"scan_by_key\s+clgpu_scan_by_key, inclusive SUM")
        self.assertRegex(run_help.stdout, r"segmented_sort\s+clgpu_segmented_sort, merge")
        self.assertRegex(run_help.stdout, r"partition\s+clgpu_partition by the predicate")
        self.assertRegex(run_help.stdout, r"unique\s+clgpu_unique of reduce_by_key's uint32 keys")
        self.assertRegex(run_help.stdout, r"default all but reduce_by_key,\s+scan_by_key,\s+"
                         r"unique,\s+segmented_sort and partition")
        self.assertIn("--first-call first|all", run_help.stdout)
        self.assertIn("--no-first-call", run_help.stdout)
        self.assertIn("POCL_CACHE_DIR", run_help.stdout)


class Plot(BenchTestCase):
    def plot(self, name, *run_args):
        path = os.path.join(TMP, name)
        if os.path.exists(path):
            os.remove(path)
        result = bench("run", "--repeat", "1", "--warmup", "0", "--no-boost", "--no-cpu",
                       "--no-first-call", "--plot", path, *run_args)
        self.assert_exit(result, 0)
        self.assertIn("GB/s", result.stdout, describe(result))  # the table came too
        root = ElementTree.parse(path).getroot()
        self.assertEqual(root.tag, SVG + "svg")
        self.assertEqual(root.get("version"), "1.1")
        return root

    @staticmethod
    def series(root):
        return [g for g in root.iter(SVG + "g") if g.get("class") == "series"]

    @staticmethod
    def markers(group):
        return [e for e in group.iter() if e.get("class") == "marker"]

    def test_a_line_with_markers_per_operation_and_type(self):
        root = self.plot("two_sizes.svg", "--ops", "reduce,scan", "--types", "uint32,float",
                         "--sizes", "4K,16K")
        groups = self.series(root)
        titles = sorted(g.find(SVG + "title").text for g in groups)
        self.assertEqual(titles, ["reduce float", "reduce uint32", "scan float", "scan uint32"])
        for group in groups:
            lines = group.findall(SVG + "polyline")
            self.assertEqual(len(lines), 1)
            self.assertEqual(len(lines[0].get("points").split()), 2)
            self.assertEqual(len(self.markers(group)), 2)
        legend = [g for g in root.iter(SVG + "g") if g.get("class") == "legend"]
        self.assertEqual(len(legend), 1)
        self.assertEqual(sorted(t.text for t in legend[0].iter(SVG + "text")), titles)
        texts = " ".join(t.text or "" for t in root.iter(SVG + "text"))
        self.assertIn("GB/s", texts)
        self.assertIn("n (elements)", texts)
        self.assertIn("4K", texts)

    def test_one_size_gives_bars(self):
        # One size: a bar per operation and type (no lines, no markers),
        # each with its min-max whisker, and the read and copy kernels'
        # GB/s as reference lines (tests/test_bench_json.py checks more).
        root = self.plot("one_size.svg", "--ops", "reduce", "--types", "uint32", "--sizes", "4K")
        self.assertEqual(self.series(root), [])
        bars = [g for g in root.iter(SVG + "g") if g.get("class") == "bar"]
        self.assertEqual([g.find(SVG + "title").text for g in bars], ["reduce uint32"])
        self.assertEqual(len([r for r in bars[0].iter(SVG + "rect") if r.get("class") == "bar"]), 1)
        self.assertEqual(len([p for p in bars[0].iter(SVG + "path")
                              if p.get("class") == "whisker"]), 1)
        references = [e for e in root.iter(SVG + "line") if e.get("class") == "reference"]
        self.assertEqual(len(references), 2)  # the read and the copy kernel

    def test_an_unwritable_file_fails_before_the_run(self):
        path = os.path.join(TMP, "no-such-folder", "plot.svg")
        result = bench("run", "--ops", "reduce", "--types", "uint32", "--sizes", "4K",
                       "--repeat", "1", "--warmup", "0", "--no-boost", "--no-cpu",
                       "--no-first-call", "--plot", path)
        self.assert_exit(result, 2)
        self.assertEqual(result.stdout, "", describe(result))  # nothing measured
        self.assertEqual(result.stderr.count("\n"), 1, describe(result))
        self.assertIn(f"--plot: cannot write '{path}'", result.stderr)
        self.assertFalse(os.path.exists(path))


class Compare(BenchTestCase):
    """clgpu-bench compare on every device the ICD loader shows (at least
    one): a column per device, each measured in child processes of its own."""

    @staticmethod
    def listed_devices():
        """[(index "P:D", "platform / device (type)")] as `devices` lists them."""
        result = bench("devices")
        return [(m.group(1), m.group(2)) for m in
                (re.match(r"^  (\d+:\d+)  (\S.*)$", line) for line in result.stdout.splitlines())
                if m]

    def test_json_has_a_checked_cell_per_device_and_operation(self):
        devices = self.listed_devices()
        self.assertTrue(devices, "no device listed")
        folder = first_call_folder("compare")
        result = bench("compare", "--ops", "reduce,scan", "--types", "uint32", "--sizes", "64K",
                       "--repeat", "2", "--warmup", "1", "--format", "json",
                       env={"TMPDIR": folder}, timeout=600 * len(devices))
        self.assert_exit(result, 0)
        report = json.loads(result.stdout)
        self.assertEqual(report["tool"], "clgpu-bench compare")
        self.assertEqual(report["run_options"]["sizes"], "64K")
        # One column per listed device, in the listing's order.
        self.assertEqual([(d["index"], d["listing"]) for d in report["devices"]], devices)
        results = report["results"]
        # read and copy_kernel come with any --ops: the device's bandwidth.
        self.assertEqual([(r["op"], r["type"], r["n"]) for r in results],
                         [("read", "uint32", 65536), ("copy_kernel", "uint32", 65536),
                          ("reduce", "uint32", 65536), ("scan", "uint32", 65536)])
        for device in report["devices"]:
            where = device["index"]
            self.assertEqual(device["status"], "ok", where)
            self.assertEqual((device["verified"], device["cells"]), (4, 4), where)
            self.assertEqual(device["timeouts"], 0, where)
            self.assertGreaterEqual(device["children"], 2, where)  # the first call, the run
            self.assertGreater(device["seconds"], 0, where)
            first = device["first_call"]
            self.assertEqual(first["state"], "verified", where)
            self.assertIsNone(first["message"], where)
            self.assertGreater(first["ms"], 0, where)
            self.assertGreater(first["context_ms"], 0, where)
        for row in results:
            self.assertEqual(row["bandwidth_reference"], row["op"] in ("read", "copy_kernel"))
            self.assertEqual(row["unit"], "GB/s")
            self.assertEqual([cell["index"] for cell in row["devices"]],
                             [index for index, _ in devices])
            for cell in row["devices"]:
                where = f"{row['op']} on {cell['index']}"
                self.assertEqual(cell["state"], "verified", where)
                self.assertIsNone(cell["message"], where)
                # run checks every result against the host but read's, whose
                # value only keeps the reads alive.
                self.assertEqual(cell["checked_on_host"], row["op"] != "read", where)
                self.assertGreater(cell["gb_per_s"], 0, where)
                self.assertGreater(cell["melem_per_s"], 0, where)
                self.assertGreater(cell["wall_ms_median"], 0, where)
                # Every row, the kernels' own too, has a limit at least as
                # fast as its kernel figure (a kernel's row: itself).
                self.assertAlmostEqual(cell["share_of_limit"],
                                       cell["gb_per_s"] / cell["limit_gb_per_s"],
                                       delta=cell["share_of_limit"] * 1e-3, msg=where)
                if row["bandwidth_reference"]:
                    self.assertIsNone(cell["reference_op"], where)
                    self.assertLessEqual(cell["share_of_limit"], 1.0 + 1e-3, where)
                    continue
                self.assertLessEqual(cell["share_of_limit"],
                                     cell["share_of_reference"] * (1.0 + 1e-3), where)
                self.assertEqual(cell["reference_op"],
                                 "read" if row["op"] == "reduce" else "copy_kernel", where)
                self.assertGreater(cell["reference_gb_per_s"], 0, where)
                self.assertAlmostEqual(cell["share_of_reference"],
                                       cell["gb_per_s"] / cell["reference_gb_per_s"],
                                       delta=cell["share_of_reference"] * 1e-3, msg=where)
        self.assertEqual(os.listdir(folder), [], "the first call's folders were left behind")

    def test_table_has_a_column_per_device(self):
        devices = self.listed_devices()
        result = bench("compare", "--ops", "reduce", "--types", "float", "--sizes", "16K",
                       "--repeat", "1", "--warmup", "0", "--no-first-call",
                       timeout=600 * len(devices))
        self.assert_exit(result, 0)
        lines = result.stdout.splitlines()
        self.assertTrue(lines[0].startswith("clgpu "), describe(result))
        for index, listing in devices:
            self.assertIn(f"  {index:<5} {listing}", lines, describe(result))
        # The columns' first header line: the indices alone, in order.
        self.assertIn([index for index, _ in devices], [line.split() for line in lines],
                      describe(result))
        self.assertNotIn("first call", result.stdout)
        for label, figure in (("read float 16K GB/s", r"[\d.]+"),
                              ("copy_kernel float 16K GB/s", r"[\d.]+"),
                              ("reduce float 16K GB/s", r"[\d.]+ \(\d+%, lim \d+%\)")):
            rows = [line for line in lines if line.startswith(label + " ")]
            self.assertEqual(len(rows), 1, describe(result))
            cells = re.findall(figure, rows[0][len(label):])
            self.assertEqual(len(cells), len(devices), describe(result))
        self.assertIn(f"{3 * len(devices)} of {3 * len(devices)} cells measured and checked.",
                      lines, describe(result))

    def test_a_child_past_the_timeout_fails_its_cell(self):
        # 16M elements read a million times: no device finishes in 2 s. Each
        # device's run times out, then its first operation alone does (the
        # second timeout), and the rest are not measured.
        devices = self.listed_devices()
        result = bench("compare", "--ops", "reduce", "--types", "uint32", "--sizes", "16M",
                       "--repeat", "1000000", "--timeout", "2", "--no-first-call",
                       "--format", "json", timeout=120 * len(devices))
        self.assert_exit(result, 1)
        report = json.loads(result.stdout)
        for device in report["devices"]:
            self.assertEqual(device["status"], "failed", device["index"])
            self.assertEqual((device["verified"], device["timeouts"], device["children"]),
                             (0, 2, 2), device["index"])
            self.assertLess(device["seconds"], 60, device["index"])
        states = [[cell["state"] for cell in row["devices"]] for row in report["results"]]
        self.assertEqual(states, [["timeout"] * len(devices)] + [["skipped"] * len(devices)] * 2)
        for row in report["results"]:
            for cell in row["devices"]:
                self.assertIsNone(cell["gb_per_s"])
                self.assertIn("timeout of 2 s" if cell["state"] == "timeout" else "timed out 2 times",
                              cell["message"])
        table = bench("compare", "--ops", "reduce", "--types", "uint32", "--sizes", "16M",
                      "--repeat", "1000000", "--timeout", "1", "--no-first-call",
                      "--devices", devices[0][0], timeout=120)
        self.assert_exit(table, 1)
        self.assertRegex(table.stdout, r"(?m)^read uint32 16M GB/s\s+TIMEOUT \[1\]$")
        self.assertRegex(table.stdout, r"(?m)^reduce uint32 16M GB/s\s+skipped \[2\]$")
        self.assertRegex(table.stdout, rf"(?m)^\[1\] {devices[0][0]} read uint32 16M: run: no "
                         r"result within the timeout of 1 s")
        self.assertIn("0 of 3 cells measured and checked.", table.stdout)


class Tune(BenchTestCase):
    """clgpu-bench tune: each value measured by run in a child with
    CLGPU_TUNING set; the best kept and printed as a value to keep."""

    def test_sweeps_a_parameter_and_prints_the_value_to_keep(self):
        # chunked_chunks_per_unit shapes plans only, not programs: the
        # children find their programs in the disk cache.
        result = bench("tune", "--shape", "chunked", "--params", "chunked_chunks_per_unit",
                       "--sizes", "64K", "--repeat", "1", timeout=900)
        self.assert_exit(result, 0)
        lines = result.stdout.splitlines()
        self.assertTrue(lines[0].startswith("tune: clgpu "), describe(result))
        scores = {}
        for line in lines:
            match = re.match(r"^  chunked_chunks_per_unit=(\d+)\s+([\d.]+) Melem/s$", line)
            if match:
                scores[int(match.group(1))] = float(match.group(2))
        self.assertEqual(sorted(scores), [1, 2, 4, 8, 16], describe(result))
        self.assertTrue(all(score > 0 for score in scores.values()), describe(result))
        # The best by its unrounded score: values whose printed scores tie
        # (rounded to 0.1) may each be it.
        top = max(scores.values())
        chosen = [line for line in lines if line.startswith("  best: chunked_chunks_per_unit=")]
        self.assertEqual(len(chosen), 1, describe(result))
        best = int(chosen[0].split("=")[1])
        self.assertEqual(scores[best], top, describe(result))
        self.assertIn(f"keep: CLGPU_TUNING=chunked_chunks_per_unit={best}", lines,
                      describe(result))
        self.assertIn(f"    .chunked_chunks_per_unit = {best},", lines, describe(result))

    def test_starts_from_the_callers_value_and_refuses_a_bad_one(self):
        result = bench("tune", "--shape", "chunked", "--params", "chunked_chunks_per_unit",
                       "--sizes", "4K", "--repeat", "1", env={"CLGPU_TUNING": "tile_items=40"})
        self.assert_exit(result, 1)
        self.assertIn("CLGPU_TUNING is \"tile_items=40\"", result.stderr)
        self.assertIn("tile_items takes a decimal from 1 to 32", result.stderr)

    def test_children_get_the_environment_the_tool_started_with(self):
        # An OpenCL implementation may change the environment of the process
        # that loads it (POCL 5.0 sets OCL_ICD_FILENAMES, which hid NVIDIA's
        # platform from every child on a GPU machine). The test hook makes
        # the tool point OCL_ICD_VENDORS at a folder that does not exist
        # once its context is made: children given that environment would
        # find no device; given the one the tool started with, they measure.
        change = {"CLGPU_BENCH_TEST_SETENV": "OCL_ICD_VENDORS=" +
                  os.path.join(TMP, "no-such-icd-folder")}
        result = bench("tune", "--shape", "chunked", "--params", "chunked_chunks_per_unit",
                       "--sizes", "4K", "--repeat", "1", env=change, timeout=900)
        self.assert_exit(result, 0)
        scores = re.findall(r"^  chunked_chunks_per_unit=(\d+)\s+[\d.]+ Melem/s$", result.stdout,
                            re.M)
        self.assertEqual(sorted(int(v) for v in scores), [1, 2, 4, 8, 16], describe(result))
        folder = first_call_folder("changed_environment")
        result = bench("run", "--ops", "reduce", "--types", "uint32", "--sizes", "4K",
                       "--repeat", "1", "--warmup", "0", "--no-cpu", "--no-boost",
                       "--first-call", "first", "--format", "json",
                       env=dict(change, TMPDIR=folder))
        self.assert_exit(result, 0)
        first = json.loads(result.stdout)["results"][0]["first_call"]
        self.assertIsNotNone(first, describe(result))
        self.assertGreater(first["cold_ms"], 0, describe(result))

    def test_misuse_exits_2(self):
        for args, message in ((["--params", "no_such"], "'no_such' is not a parameter"),
                              (["--params", "tile_items", "--shape", "chunked"],
                               "'tile_items' is not a parameter of the chunked shape"),
                              (["--shape", "round"], "--shape"),
                              (["--sizes", "1K,2K"], "one size only"),
                              (["--rounds", "0"], "--rounds")):
            result = bench("tune", *args)
            self.assert_exit(result, 2)
            self.assertIn(message, result.stderr, describe(result))


class Kernel(BenchTestCase):
    def test_table_has_a_timing_row(self):
        result = bench("kernel", ok_kernel(), *OK_ARGS)
        self.assert_exit(result, 0)
        row = [line for line in result.stdout.splitlines() if line.startswith("scale_add ")]
        self.assertEqual(len(row), 1, describe(result))
        if not device_has_timer():
            # device ms n/a, wall ms: median (min-max), GB/s, read GB/s, %read n/a
            figures = re.match(r"^scale_add\s+n/a\s+([\d.]+) \(([\d.]+)-([\d.]+)\)"
                               r"\s+n/a\s+n/a\s+n/a$", row[0])
            self.assertIsNotNone(figures, describe(result))
            self.assertGreater(float(figures.group(1)), 0)
            self.assertIn("No device times: the device's profiling timer resolution is 0 ns",
                          result.stdout)
            print("# the device has no profiling timer: its device figures are n/a",
                  file=sys.stderr)
        else:
            # device ms: median (min-max), wall ms: median (min-max), GB/s, read GB/s, %read
            figures = re.match(r"^scale_add\s+([\d.]+) \(([\d.]+)-([\d.]+)\)\s+([\d.]+) "
                               r"\(([\d.]+)-([\d.]+)\)\s+([\d.]+)\s+([\d.]+)\s+(\d+)%$",
                               row[0])
            self.assertIsNotNone(figures, describe(result))
            self.assertGreater(float(figures.group(1)), 0)
            self.assertGreater(float(figures.group(7)), 0)
        self.assertIn("-D OFFSET=1.0f", result.stdout)
        self.assertRegex(result.stdout, r"arg 4\s+local:256\s+__local, 256 bytes")

    def test_json_timing(self):
        result = bench("kernel", ok_kernel(), *OK_ARGS, "--format", "json")
        self.assert_exit(result, 0)
        report = json.loads(result.stdout)
        self.assertEqual(report["tool"], "clgpu-bench kernel")
        self.assertEqual(report["kernel"], "scale_add")
        self.assertEqual(report["global"], [4096])
        self.assertEqual(report["local"], [64])
        self.assertEqual(report["defines"], ["OFFSET=1.0f"])
        self.assertIn("-D OFFSET=1.0f", report["build_options"])
        self.assertEqual((report["repeat"], report["warmup"]), (3, 1))
        self.assertTrue(report["device"]["name"])
        self.assertTrue(report["library_version"])
        self.assert_timing(report["wall_ms"], "wall_ms")
        self.assertEqual(report["bytes"], 2 * 4096 * 4)
        if report["device"]["timer_resolution_ns"] == 0:
            # No profiling timer: no device time, and nothing computed from one.
            for key in ("event_ms", "gb_per_s", "reference_op", "reference_event_ms",
                        "reference_gb_per_s", "share_of_reference"):
                self.assertIsNone(report.get(key), key)
            print("# the device has no profiling timer: its device figures are null",
                  file=sys.stderr)
            return
        self.assertGreater(report["event_ms"]["median"], 0)
        self.assert_timing(report["event_ms"], "event_ms")
        self.assert_timing(report["wall_ms"], "wall_ms")
        self.assertEqual(report["bytes"], 2 * 4096 * 4)
        self.assertAlmostEqual(report["gb_per_s"],
                               report["bytes"] / (report["event_ms"]["median"] * 1e-3) / 1e9,
                               delta=report["gb_per_s"] * 1e-3)
        self.assertEqual(report["reference_op"], "read")
        self.assertEqual(report["reference_bytes"], report["bytes"])
        self.assert_timing(report["reference_event_ms"], "reference_event_ms")
        self.assertAlmostEqual(report["share_of_reference"],
                               report["gb_per_s"] / report["reference_gb_per_s"],
                               delta=report["share_of_reference"] * 1e-3)
        kinds = [(a["kind"], a.get("type"), a.get("fill"), a["bytes"])
                 for a in report["arguments"]]
        self.assertEqual(kinds, [("buffer", "float", "zeros", 16384),
                                 ("buffer", "float", "random", 16384),
                                 ("scalar", "float", None, 4), ("scalar", "uint", None, 4),
                                 ("local", None, None, 256)])

    def test_csv_is_one_row_under_its_header(self):
        result = bench("kernel", ok_kernel(), "--kernel", "fill_index", "--global", "64,4",
                       "--arg", "uint32[256]", "--repeat", "2", "--warmup", "0",
                       "--no-reference", "--format", "csv")
        self.assert_exit(result, 0)
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        self.assertEqual(len(rows), 1, describe(result))
        row = rows[0]
        self.assertEqual(row["kernel"], "fill_index")
        self.assertEqual(row["global"], "64x4")
        self.assertEqual(row["bytes"], "1024")
        self.assertGreater(float(row["wall_ms_median"]), 0)
        self.assertEqual(row["reference_op"], "")  # --no-reference
        self.assertEqual(row["share_of_reference"], "")

    def test_a_build_failure_prints_the_compiler_log(self):
        result = bench("kernel", broken_kernel(), "--kernel", "broken", "--global", "64",
                       "--arg", "float[64]")
        self.assertNotEqual(result.returncode, 0, describe(result))
        self.assertEqual(result.returncode, 1, describe(result))
        self.assertEqual(result.stdout, "")
        self.assertIn("building " + broken_kernel() + " failed", result.stderr)
        self.assertIn("error", result.stderr.lower())
        self.assertIn("undeclared_name", result.stderr)
        # The compiler's messages name the file and the line (4) of the
        # mistake, not the implementation's temporary file.
        self.assertIn(broken_kernel() + ":4:", result.stderr)

    def test_guarded_lets_the_global_size_exceed_a_buffer(self):
        # scale_add checks i < n: 128 work-items over buffers of 100.
        args = ["--kernel", "scale_add", "--global", "128", "--local", "64",
                "--arg", "float[100]=zeros", "--arg", "float[100]", "--arg", "float=2",
                "--arg", "uint=100", "--arg", "local:256", "--repeat", "1", "--warmup", "0",
                "--no-reference", "--format", "csv"]
        refused = bench("kernel", ok_kernel(), *args)
        self.assert_exit(refused, 2)
        self.assertIn("--global gives 128 work-items but --arg 0 'float[100]=zeros' has 100 "
                      "elements", refused.stderr)
        self.assertIn("--guarded", refused.stderr)
        result = bench("kernel", ok_kernel(), *args, "--guarded")
        self.assert_exit(result, 0)
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        self.assertEqual(len(rows), 1, describe(result))
        self.assertEqual(rows[0]["global"], "128")
        self.assertEqual(rows[0]["bytes"], "800")

    def test_a_kernel_not_in_the_program(self):
        result = bench("kernel", ok_kernel(), "--kernel", "no_such_kernel", "--global", "64")
        self.assert_exit(result, 1)
        self.assertIn("no kernel 'no_such_kernel'", result.stderr)
        self.assertIn("scale_add", result.stderr)
        self.assertIn("fill_index", result.stderr)

    def test_help_documents_the_spec_grammar(self):
        result = bench("kernel", "--help")
        self.assert_exit(result, 0)
        for text in ("TYPE[COUNT]", "TYPE[COUNT]=zeros", "TYPE[COUNT]=VALUE", "TYPE=VALUE",
                     "local:BYTES", "--define", "--global", "--local", "--guarded"):
            self.assertIn(text, result.stdout)


class UsageErrors(BenchTestCase):
    """Each misuse: exit status 2, one line on stderr that says what was
    wrong, nothing on stdout."""

    def cases(self):
        ok = ok_kernel()
        one_buffer = ["--kernel", "fill_index", "--global", "64"]
        return [
            (["frobnicate"], "unknown subcommand 'frobnicate'"),
            (["--frobnicate"], "unknown option '--frobnicate'"),
            (["run", "--frobnicate"], "unknown option '--frobnicate'"),
            (["run", "--sizes", "12Q"], "'12Q' is not an element count"),
            (["run", "--sizes", "0"], "'0' is not an element count"),
            (["run", "--types", "int7"], "unknown type 'int7'"),
            (["run", "--ops", "sorting"], "unknown operation 'sorting'"),
            (["run", "--plot"], "--plot needs a value"),
            (["run", "--first-call", "some"], "--first-call: 'some' is not first or all"),
            (["compare", "--frobnicate"], "unknown option '--frobnicate'"),
            (["compare", "--timeout", "0"], "--timeout: '0' is not a number of seconds"),
            (["compare", "--format", "csv"], "--format: 'csv' is not table or json"),
            (["compare", "--devices", "99:99"], "--devices: no device '99:99'"),
            (["compare", "--sizes", "0"], "'0' is not an element count"),
            (["compare", "--ops", "sorting"], "unknown operation 'sorting'"),
            (["kernel"], "no kernel file given"),
            (["kernel", os.path.join(TMP, "missing.cl"), *one_buffer], "cannot read"),
            (["kernel", TMP, *one_buffer], "cannot read"),
            (["kernel", ok, "--global", "64"], "--kernel NAME is missing"),
            (["kernel", ok, "--kernel", "fill_index"], "--global N[,N[,N]] is missing"),
            (["kernel", ok, "--kernel", "fill_index", "--global", "1x"], "--global: '1x'"),
            (["kernel", ok, "--kernel", "fill_index", "--global", "1,2,3,4"], "--global"),
            (["kernel", ok, *one_buffer, "--local", "3"], "does not divide"),
            # More work-items than a buffer's elements, without --guarded.
            (["kernel", ok, "--kernel", "fill_index", "--global", "128", "--arg", "uint[64]"],
             "--global gives 128 work-items but --arg 0 'uint[64]' has 64 elements"),
            (["kernel", ok, "--kernel", "fill_index", "--global", "64,4", "--arg", "uint[128]"],
             "--global gives 256 work-items"),
            (["kernel", ok, *one_buffer, "--frobnicate"], "unknown option '--frobnicate'"),
            (["kernel", ok, *one_buffer, "--arg", "int7[64]"], "unknown type 'int7'"),
            (["kernel", ok, *one_buffer, "--arg", "uint[64"], "'uint[64'"),
            (["kernel", ok, *one_buffer, "--arg", "uint[0]"], "'0' is not an element count"),
            (["kernel", ok, *one_buffer, "--arg", "uint"], "'uint'"),
            (["kernel", ok, *one_buffer, "--arg", "uchar=256"], "'256' is not a uchar value"),
            (["kernel", ok, *one_buffer, "--arg", "float[4]=one"], "'one' is not a float value"),
            (["kernel", ok, *one_buffer, "--arg", "local:"], "local:BYTES"),
            (["kernel", ok, *one_buffer, "--define", "A B"], "--define: 'A B'"),
            (["kernel", ok, *one_buffer, "--repeat", "0"], "--repeat: '0'"),
            (["kernel", ok, *one_buffer, "--format", "xml"], "--format: 'xml'"),
            # Counted against CL_KERNEL_NUM_ARGS once the program is built.
            (["kernel", ok, *one_buffer], "takes 1 argument (out); 0 --arg specs were given"),
            (["kernel", ok, *one_buffer, "--arg", "uint[64]", "--arg", "uint=1"],
             "takes 1 argument (out); 2 --arg specs were given"),
            (["kernel", ok, "--kernel", "scale_add", "--global", "64", "--arg", "float[64]",
              "--arg", "float[64]", "--arg", "float=1", "--arg", "uint=64"],
             "takes 5 arguments (out, a, k, n, stage); 4 --arg specs were given"),
            # Checked against the parameters the device reports.
            (["kernel", ok, *one_buffer, "--arg", "uint=3"], "takes a buffer"),
            (["kernel", ok, "--kernel", "scale_add", "--global", "64", "--arg", "float[64]",
              "--arg", "float[64]", "--arg", "uint=1", "--arg", "uint=64", "--arg", "local:256"],
             "is a float, not a uint"),
        ]

    def test_each_misuse_exits_2_with_one_line(self):
        for args, message in self.cases():
            with self.subTest(args=args):
                result = bench(*args)
                self.assert_exit(result, 2)
                self.assertEqual(result.stdout, "", describe(result))
                self.assertEqual(result.stderr.count("\n"), 1, describe(result))
                self.assertTrue(result.stderr.startswith("clgpu-bench"), describe(result))
                self.assertIn(message, result.stderr, describe(result))


def main():
    global BENCH, SOURCE, TMP
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    BENCH = os.path.abspath(sys.argv[1])
    SOURCE = os.path.abspath(sys.argv[2])
    base = os.environ.get("CLGPU_TEST_TMPDIR")
    if base:
        os.makedirs(base, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="clgpu-bench-test-", dir=base) as folder:
        TMP = folder
        program = unittest.main(argv=[sys.argv[0], *sys.argv[3:]], exit=False, verbosity=2)
        return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
