#!/usr/bin/env python3
"""Tests of clgpu-bench's saved reports: what `run --format json` records
beside its figures (docs/bench-json.md), `compare A.json B.json` over saved
reports, --output, a one-size --plot's bars and --max-time.

    test_bench_json.py CLGPU_BENCH [unittest options]

CLGPU_BENCH is the built tool. Runs are tiny (two operations at 64K on the
default device, or CLGPU_DEVICE's); temporary files go under
CLGPU_TEST_TMPDIR when it is set. Only the standard library is used.
"""
import copy
import csv
import datetime
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

BENCH = None
TMP = None
SVG = "{http://www.w3.org/2000/svg}"

# The run every test starts from: reduce and scan of 64K uint32, without the
# first calls' child processes and Boost.Compute.
TINY = ("--ops", "reduce,scan", "--types", "uint32", "--sizes", "64K", "--no-first-call",
        "--no-boost")

# An intermittent crash of LeakSanitizer's tracer at exit under the asan
# setup (see tests/test_bench.py): such a run is repeated, twice at most.
LSAN_TRACER_CRASH = "LeakSanitizer has encountered a fatal error"


def bench(*args, timeout=300):
    """Run clgpu-bench with args; the CompletedProcess (text)."""
    for _ in range(3):
        result = subprocess.run([BENCH, *args], capture_output=True, text=True, timeout=timeout)
        if LSAN_TRACER_CRASH not in result.stderr:
            break
    return result


def describe(result):
    return (f"\n$ {' '.join(result.args)}\nexit status {result.returncode}\n"
            f"--- stdout\n{result.stdout}--- stderr\n{result.stderr}")


def path_of(name):
    return os.path.join(TMP, name)


def write_json(name, document):
    path = path_of(name)
    with open(path, "w", encoding="utf-8") as file:
        json.dump(document, file)
    return path


_REPORT = []


def saved_report():
    """(args, the parsed report, its file) of one JSON run, made once."""
    if not _REPORT:
        args = ("run", *TINY, "--repeat", "3", "--warmup", "1", "--format", "json")
        before = datetime.datetime.now(datetime.timezone.utc)
        result = bench(*args)
        after = datetime.datetime.now(datetime.timezone.utc)
        if result.returncode != 0:
            raise AssertionError(describe(result))
        path = path_of("a.json")
        with open(path, "w", encoding="utf-8") as file:
            file.write(result.stdout)
        _REPORT.append((args, json.loads(result.stdout), path, before, after))
    return _REPORT[0]


class BenchTestCase(unittest.TestCase):
    def assert_exit(self, result, status):
        self.assertEqual(result.returncode, status, describe(result))

    def assert_usage_error(self, result, message):
        """Exit status 2, one line on stderr saying `message`, nothing on stdout."""
        self.assert_exit(result, 2)
        self.assertEqual(result.stdout, "", describe(result))
        self.assertEqual(result.stderr.count("\n"), 1, describe(result))
        self.assertTrue(result.stderr.startswith("clgpu-bench"), describe(result))
        self.assertIn(message, result.stderr, describe(result))


class RunJson(BenchTestCase):
    def test_records_schema_time_command_line_host_and_device(self):
        args, report, _, before, after = saved_report()
        self.assertIs(type(report["schema_version"]), int)
        self.assertEqual(report["schema_version"], 1)
        self.assertEqual(report["tool"], "clgpu-bench run")
        # The run's start, in UTC, to the second.
        started = datetime.datetime.strptime(report["timestamp"], "%Y-%m-%dT%H:%M:%SZ")
        started = started.replace(tzinfo=datetime.timezone.utc)
        self.assertLessEqual(before.replace(microsecond=0), started)
        self.assertLessEqual(started, after)
        self.assertGreater(report["elapsed_s"], 0)
        self.assertLessEqual(report["elapsed_s"], (after - before).total_seconds() + 1)
        self.assertEqual(report["command_line"], [BENCH, *args])
        host = report["host"]
        self.assertIsInstance(host["hostname"], str)
        self.assertTrue(host["hostname"])
        self.assertEqual(host["os"]["sysname"], os.uname().sysname)
        self.assertEqual(host["os"]["release"], os.uname().release)
        self.assertEqual(host["os"]["machine"], os.uname().machine)
        self.assertIs(type(host["cpus"]), int)
        self.assertGreaterEqual(host["cpus"], 1)
        version = bench("--version")
        self.assert_exit(version, 0)
        self.assertEqual(version.stdout.strip(), "clgpu-bench " + report["library_version"])
        self.assertIs(type(report["library_version_number"]), int)
        major, minor, patch = (int(part) for part in report["library_version"].split("."))
        self.assertEqual(report["library_version_number"], major * 10000 + minor * 100 + patch)
        device = report["device"]
        for key in ("name", "platform", "platform_version", "vendor", "version", "driver",
                    "opencl_c_version"):
            self.assertIsInstance(device[key], str, key)
        self.assertTrue(device["name"])
        self.assertIn(device["type"], ("GPU", "CPU", "accelerator", "other"))
        self.assertTrue(device["opencl_c_version"].startswith("OpenCL C "))
        for key in ("compute_units", "global_mem_bytes", "max_alloc_bytes", "local_mem_bytes",
                    "max_work_group_size"):
            self.assertIs(type(device[key]), int, key)
            self.assertGreater(device[key], 0, key)
        self.assertLessEqual(device["max_alloc_bytes"], device["global_mem_bytes"])
        self.assertIs(type(device["max_clock_mhz"]), int)
        self.assertIsInstance(device["fp64"], bool)
        self.assertIsInstance(device["fp16"], bool)
        # What was there before stays: the run's options and its rows.
        self.assertEqual((report["repeat"], report["warmup"]), (3, 1))
        self.assertIsNone(report["max_time_s"])
        self.assertEqual([(r["op"], r["type"], r["n"]) for r in report["results"]],
                         [("reduce", "uint32", 65536), ("scan", "uint32", 65536)])

    def test_rows_carry_every_timed_calls_figures(self):
        _, report, _, _, _ = saved_report()
        timer = report["device"]["timer_resolution_ns"] > 0
        for row in report["results"]:
            where = f"{row['op']} {row['type']} {row['n']}"
            self.assertEqual((row["repeat"], row["planned_repeat"]), (3, 3), where)
            walls = row["samples"]["wall_ms"]
            events = row["samples"]["event_ms"]
            self.assertEqual(len(walls), row["repeat"], where)
            self.assertEqual(len(events), row["repeat"], where)
            for sample in walls:
                self.assertGreater(sample, 0, where)
            # The summary is of these very figures (both printed to 6
            # significant digits).
            wall = row["wall_ms"]
            self.assertEqual(min(walls), wall["min"], where)
            self.assertEqual(max(walls), wall["max"], where)
            self.assertLessEqual(min(walls), wall["median"], where)
            self.assertLessEqual(wall["median"], max(walls), where)
            self.assertAlmostEqual(wall["median"], statistics.median(walls),
                                   delta=wall["median"] * 1e-5, msg=where)
            if timer:
                self.assertEqual(min(events), row["event_ms"]["min"], where)
                self.assertEqual(max(events), row["event_ms"]["max"], where)
            else:
                self.assertEqual(events, [None] * row["repeat"], where)


class CompareFiles(BenchTestCase):
    @staticmethod
    def slowed(report, op, factor):
        """A copy of `report` whose `op` row's times are `factor` times
        longer (and its throughputs as many times lower)."""
        changed = copy.deepcopy(report)
        for row in changed["results"]:
            if row["op"] != op:
                continue
            row["wall_ms"] = {key: value * factor for key, value in row["wall_ms"].items()}
            row["samples"]["wall_ms"] = [value * factor for value in row["samples"]["wall_ms"]]
            for key in ("gb_per_s", "melem_per_s"):
                row[key] /= factor
        return changed

    def compare_json(self, *args, status):
        result = bench("compare", *args, "--format", "json")
        self.assert_exit(result, status)
        return json.loads(result.stdout)

    def test_a_file_against_itself_is_the_same_everywhere(self):
        _, report, path, _, _ = saved_report()
        comparison = self.compare_json(path, path, status=0)
        self.assertEqual(comparison["compared"], "files")
        self.assertEqual((comparison["a"]["file"], comparison["b"]["file"]), (path, path))
        self.assertEqual(comparison["threshold_percent"], 5)
        rows = comparison["rows"]
        self.assertEqual([(r["op"], r["type"], r["n"]) for r in rows],
                         [(r["op"], r["type"], r["n"]) for r in report["results"]])
        for row, saved in zip(rows, report["results"]):
            self.assertEqual(row["b_over_a"], 1, row)
            self.assertEqual(row["status"], "within", row)
            self.assertEqual(row["unit"], "GB/s", row)
            self.assertEqual(row["a"], row["b"], row)
            self.assertEqual(row["a"]["wall_ms_median"], saved["wall_ms"]["median"], row)
            self.assertEqual(row["a"]["value"], saved["gb_per_s"], row)
        self.assertEqual(comparison["counts"]["slower"], 0)
        # The CSV says the same.
        result = bench("compare", path, path, "--format", "csv")
        self.assert_exit(result, 0)
        cells = list(csv.DictReader(io.StringIO(result.stdout)))
        self.assertEqual([(c["op"], c["b_over_a"], c["status"]) for c in cells],
                         [("reduce", "1", "within"), ("scan", "1", "within")])

    def test_a_row_twice_as_slow_is_flagged_and_fails(self):
        _, report, path, _, _ = saved_report()
        slow = write_json("slow_scan.json", self.slowed(report, "scan", 2))
        comparison = self.compare_json(path, slow, status=1)
        by_op = {row["op"]: row for row in comparison["rows"]}
        self.assertEqual(by_op["scan"]["status"], "slower")
        self.assertAlmostEqual(by_op["scan"]["b_over_a"], 0.5, delta=1e-4)
        self.assertAlmostEqual(by_op["scan"]["b"]["wall_ms_median"],
                               2 * by_op["scan"]["a"]["wall_ms_median"],
                               delta=by_op["scan"]["a"]["wall_ms_median"] * 1e-5)
        self.assertEqual(by_op["reduce"]["status"], "within")
        self.assertEqual(comparison["counts"]["slower"], 1)
        # The table flags that row alone.
        result = bench("compare", path, slow)
        self.assert_exit(result, 1)
        flagged = [line.split()[0] for line in result.stdout.splitlines()
                   if line.endswith("SLOWER")]
        self.assertEqual(flagged, ["scan"], describe(result))
        # Faster in B is no failure; a threshold above the loss is none either.
        self.assertEqual(self.compare_json(slow, path, status=0)["rows"][1]["status"], "faster")
        self.compare_json(path, slow, "--threshold", "60", status=0)

    def test_rows_in_one_file_only_are_listed(self):
        _, report, path, _, _ = saved_report()
        fewer = copy.deepcopy(report)
        fewer["results"] = [row for row in fewer["results"] if row["op"] != "reduce"]
        fewer_path = write_json("no_reduce.json", fewer)
        comparison = self.compare_json(path, fewer_path, status=0)
        self.assertEqual([(r["op"], r["status"]) for r in comparison["rows"]],
                         [("reduce", "only_in_a"), ("scan", "within")])
        self.assertIsNone(comparison["rows"][0]["b"])
        self.assertIsNone(comparison["rows"][0]["b_over_a"])
        comparison = self.compare_json(fewer_path, path, status=0)
        self.assertEqual([(r["op"], r["status"]) for r in comparison["rows"]],
                         [("scan", "within"), ("reduce", "only_in_b")])
        self.assertEqual(comparison["counts"]["only_in_b"], 1)

    def test_bad_files_are_usage_errors(self):
        _, report, path, _, _ = saved_report()
        not_json = path_of("not.json")
        with open(not_json, "w", encoding="utf-8") as file:
            file.write('{"tool": "clgpu-bench run", "results": [\n')
        unversioned = copy.deepcopy(report)
        del unversioned["schema_version"]
        future = copy.deepcopy(report)
        future["schema_version"] = 2
        other_tool = copy.deepcopy(report)
        other_tool["tool"] = "clgpu-bench kernel"
        cases = [
            ([path, path_of("missing.json")], "cannot read"),
            ([path, not_json], "is not JSON: line 2"),
            ([write_json("unversioned.json", unversioned), path], "has no schema_version"),
            ([write_json("other_tool.json", other_tool), path], "is not a report of clgpu-bench run"),
            ([path, write_json("future.json", future)], "different schema versions"),
            ([path_of("future.json"), path_of("future.json")], "has schema_version 2"),
            ([path], "compare takes two"),
            ([path, path, path], "a third file"),
            ([path, path, "--sizes", "1M"], "--sizes is for measuring devices"),
            ([path, path, "--threshold", "-1"], "--threshold: '-1' is not a percentage"),
            ([path, path, "--format", "xml"], "--format: 'xml' is not table, csv or json"),
            (["--threshold", "5"], "--threshold is for comparing two files"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                self.assert_usage_error(bench("compare", *args), message)


class Output(BenchTestCase):
    def test_compare_writes_what_stdout_would_get(self):
        _, _, path, _, _ = saved_report()
        for form in ("table", "csv", "json"):
            with self.subTest(format=form):
                printed = bench("compare", path, path, "--format", form)
                self.assert_exit(printed, 0)
                target = path_of(f"compare.{form}")
                written = bench("compare", path, path, "--format", form, "--output", target)
                self.assert_exit(written, 0)
                self.assertEqual(written.stdout, "", describe(written))
                with open(target, encoding="utf-8") as file:
                    self.assertEqual(file.read(), printed.stdout)

    def test_run_writes_its_report_to_the_file(self):
        target = path_of("run.csv")
        with open(target, "w", encoding="utf-8") as file:
            file.write("an older report, longer than the new one will be\n" * 200)
        written = bench("run", *TINY, "--repeat", "2", "--format", "csv", "--output", target)
        self.assert_exit(written, 0)
        self.assertEqual(written.stdout, "", describe(written))
        printed = bench("run", *TINY, "--repeat", "2", "--format", "csv")
        self.assert_exit(printed, 0)
        with open(target, encoding="utf-8") as file:
            text = file.read()
        # The same report (its figures aside, which no two runs share): the
        # header, and per row the device, operation, type and size; nothing
        # of the file's old content.
        ours = list(csv.reader(io.StringIO(text)))
        theirs = list(csv.reader(io.StringIO(printed.stdout)))
        self.assertEqual(ours[0], theirs[0])
        self.assertEqual([row[:8] for row in ours[1:]], [row[:8] for row in theirs[1:]])
        self.assertNotIn("an older report", text)

    def test_an_unwritable_file_fails_before_measuring(self):
        folder = path_of("no-such-folder")
        for option in ("--output", "--plot"):
            with self.subTest(option=option):
                target = os.path.join(folder, "report.svg")
                result = bench("run", *TINY, option, target)
                self.assert_usage_error(result, f"{option}: cannot write '{target}'")
                self.assertFalse(os.path.exists(folder))
        # A folder is no file either.
        self.assert_usage_error(bench("run", *TINY, "--output", TMP), f"cannot write '{TMP}'")
        _, _, path, _, _ = saved_report()
        target = os.path.join(folder, "compare.txt")
        self.assert_usage_error(bench("compare", path, path, "--output", target),
                                f"--output: cannot write '{target}'")
        self.assert_usage_error(bench("run", "--output", ""), "--output needs a file name")


class Plot(BenchTestCase):
    def test_one_size_gives_bars_and_reference_lines(self):
        target = path_of("bars.svg")
        result = bench("run", *TINY, "--repeat", "3", "--format", "json", "--plot", target)
        self.assert_exit(result, 0)
        report = json.loads(result.stdout)
        root = ElementTree.parse(target).getroot()
        self.assertEqual(root.tag, SVG + "svg")
        self.assertEqual(root.get("version"), "1.1")
        self.assertEqual([g for g in root.iter(SVG + "g") if g.get("class") == "series"], [])
        groups = [g for g in root.iter(SVG + "g") if g.get("class") == "bar"]
        self.assertEqual([g.find(SVG + "title").text for g in groups],
                         [f"{r['op']} {r['type']}" for r in report["results"]])
        heights = []
        for group, row in zip(groups, report["results"]):
            where = f"{row['op']} {row['type']}"
            rects = [r for r in group.iter(SVG + "rect") if r.get("class") == "bar"]
            self.assertEqual(len(rects), 1, where)
            # Its tooltip: GB/s (slowest-fastest), as the row says.
            tooltip = rects[0].find(SVG + "title").text
            value, spread = tooltip.split(": ")[1].split(" ")
            low, high = (float(x) for x in spread.strip("()").split("-"))
            self.assertAlmostEqual(float(value), row["gb_per_s"], delta=row["gb_per_s"] * 1e-3)
            bytes_per_ms = row["bytes"] / 1e6
            self.assertAlmostEqual(low, bytes_per_ms / row["wall_ms"]["max"], delta=low * 1e-3)
            self.assertAlmostEqual(high, bytes_per_ms / row["wall_ms"]["min"], delta=high * 1e-3)
            whiskers = [p for p in group.iter(SVG + "path") if p.get("class") == "whisker"]
            self.assertEqual(len(whiskers), 1, where)
            heights.append(float(rects[0].get("height")))
        # The bars' heights are in proportion to their GB/s (a linear axis).
        ratio = report["results"][0]["gb_per_s"] / report["results"][1]["gb_per_s"]
        self.assertAlmostEqual(heights[0] / heights[1], ratio, delta=ratio * 0.01)
        lines = [e for e in root.iter(SVG + "line") if e.get("class") == "reference"]
        names = sorted(e.find(SVG + "title").text.split(":")[0] for e in lines)
        self.assertEqual(names, ["copy kernel GB/s (uint32)", "read kernel GB/s (uint32)"])
        legend = [g for g in root.iter(SVG + "g") if g.get("class") == "legend"]
        self.assertEqual(sorted(t.text for t in legend[0].iter(SVG + "text")), names)
        limits = report["results"][0]["limit"]
        for line in lines:
            value = float(line.find(SVG + "title").text.split(": ")[1])
            kernel = "read" if line.find(SVG + "title").text.startswith("read") else "copy"
            expected = limits[f"{kernel}_kernel_gb_per_s"]
            self.assertAlmostEqual(value, expected, delta=expected * 1e-3)


class MaxTime(BenchTestCase):
    def test_a_small_budget_gives_fewer_calls(self):
        result = bench("run", *TINY, "--max-time", "0.001", "--format", "json")
        self.assert_exit(result, 0)
        report = json.loads(result.stdout)
        self.assertEqual(report["max_time_s"], 0.001)
        for row in report["results"]:
            where = f"{row['op']} {row['type']} {row['n']}"
            # The default is 10 calls; the budget was spent before the first
            # row's timed calls, so each row gets the least: one.
            self.assertEqual(row["planned_repeat"], 10, where)
            self.assertEqual(row["repeat"], 1, where)
            self.assertEqual(len(row["samples"]["wall_ms"]), 1, where)
            self.assertEqual(row["wall_ms"]["median"], row["samples"]["wall_ms"][0], where)
            self.assertLessEqual(row["cpu"]["calls"], row["repeat"], where)

    def test_never_more_than_repeat(self):
        result = bench("run", *TINY, "--max-time", "600", "--repeat", "3", "--format", "json")
        self.assert_exit(result, 0)
        for row in json.loads(result.stdout)["results"]:
            self.assertEqual((row["repeat"], row["planned_repeat"]), (3, 3), row["op"])
            self.assertEqual(len(row["samples"]["wall_ms"]), 3, row["op"])

    def test_the_table_shows_each_rows_calls(self):
        result = bench("run", *TINY, "--max-time", "0.001")
        self.assert_exit(result, 0)
        lines = result.stdout.splitlines()
        self.assertIn("--max-time 0.001 s", lines[1], describe(result))
        header = [line for line in lines if line.startswith("op ")]
        self.assertTrue(header and header[0].endswith("| calls"), describe(result))
        for op in ("reduce", "scan"):
            rows = [line for line in lines if line.startswith(op + " ") and "|" in line]
            self.assertEqual(len(rows), 1, describe(result))
            self.assertEqual(rows[0].split("|")[-1].strip(), "1", describe(result))

    def test_help_says_what_it_does_and_misuse_exits_2(self):
        result = bench("run", "--help")
        self.assert_exit(result, 0)
        for text in ("--max-time S", "--output FILE", "at least 1", "--repeat"):
            self.assertIn(text, result.stdout)
        self.assert_usage_error(bench("run", "--max-time", "0"), "--max-time: '0' is not a number")
        self.assert_usage_error(bench("run", "--max-time", "soon"), "--max-time: 'soon'")


def main():
    global BENCH, TMP
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    BENCH = os.path.abspath(sys.argv[1])
    base = os.environ.get("CLGPU_TEST_TMPDIR")
    if base:
        os.makedirs(base, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="clgpu-bench-json-test-", dir=base) as folder:
        TMP = folder
        program = unittest.main(argv=[sys.argv[0], *sys.argv[2:]], exit=False, verbosity=2)
        return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
