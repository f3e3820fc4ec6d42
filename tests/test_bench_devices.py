#!/usr/bin/env python3
"""Tests of clgpu-bench's device choice: `devices --format json`, the
--device option of the subcommands that run on one device, and
`run --all-devices`. Their output is checked, not just their exit status.

    test_bench_devices.py CLGPU_BENCH TESTS_SOURCE_DIR [unittest options]

As test_bench.py (whose helpers it uses): CLGPU_BENCH is the built tool,
TESTS_SOURCE_DIR the folder holding bench_kernel_ok.cl; temporary files go
under CLGPU_TEST_TMPDIR when it is set. The devices are those the ICD loader
shows (at least one); one test also lists POCL and rusticl (llvmpipe)
together, where both are installed, to have two devices for --all-devices.
Only the standard library is used.
"""
import csv
import io
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_bench as tb  # noqa: E402  (its bench() and BenchTestCase)

bench = tb.bench
describe = tb.describe

# A selector no device matches.
NO_DEVICE = "no-such-device-xyzzy"

# The tiny run of the --all-devices tests.
TINY_RUN = ["--ops", "reduce", "--types", "uint32", "--sizes", "64K", "--repeat", "2",
            "--no-first-call", "--no-boost"]

DEVICE_KEYS = ("index", "flat_index", "chosen", "platform", "platform_vendor",
               "platform_version", "name", "vendor", "type", "version", "opencl_c_version",
               "driver", "vendor_id", "compute_units", "max_clock_mhz", "global_mem_bytes",
               "max_alloc_bytes", "global_mem_cache_bytes", "local_mem_bytes",
               "local_mem_dedicated", "max_work_group_size", "max_work_item_sizes",
               "mem_base_addr_align_bits", "timer_resolution_ns", "fp64", "fp16",
               "int64_base_atomics", "int64_extended_atomics", "subgroups", "little_endian")


def devices_json(*args, env=None):
    """`devices --format json` (with args) parsed, and the CompletedProcess."""
    result = bench("devices", "--format", "json", *args, env=env)
    if result.returncode != 0:
        raise AssertionError(describe(result))
    return json.loads(result.stdout), result


def listed(result):
    """[(index "P:D", "platform / device (type)")] of `devices`' table."""
    return [(m.group(1), m.group(2)) for m in
            (re.match(r"^  (\d+:\d+)  (\S.*)$", line) for line in result.stdout.splitlines())
            if m]


def listing_of(device):
    """A device of the JSON as the table lists it."""
    return f"{device['platform']} / {device['name']} ({device['type']})"


def expected_by_name(devices, text):
    """The device a name selector picks: the first whose platform name or
    vendor, or device name or vendor, holds the text, case-insensitively."""
    wanted = text.strip().lower()
    for device in devices:
        if any(wanted in device[key].lower()
               for key in ("platform", "platform_vendor", "name", "vendor")):
            return device
    return None


def two_device_environment():
    """OCL_ICD_VENDORS pointing at a folder (under TMP) holding POCL's and
    rusticl's ICD files, with RUSTICL_ENABLE=llvmpipe; None when either file
    is not installed."""
    sources = [os.environ.get("OCL_ICD_VENDORS", ""), "/etc/OpenCL/vendors"]
    found = {}
    for name in ("pocl.icd", "rusticl.icd"):
        for folder in sources:
            path = os.path.join(folder, name)
            if folder and os.path.isfile(path):
                found[name] = path
                break
    if len(found) != 2:
        return None
    folder = os.path.join(tb.TMP, "icd-pocl-rusticl")
    os.makedirs(folder, exist_ok=True)
    for name, path in found.items():
        shutil.copyfile(path, os.path.join(folder, name))
    env = {"OCL_ICD_VENDORS": folder, "RUSTICL_ENABLE": "llvmpipe"}
    # Under the asan setup the leak check is POCL's alone (tests/lsan.supp
    # names no Mesa leaks): rusticl's own allocations would fail every
    # child, so this environment turns leak detection off; ASan's other
    # checks stay on.
    asan = os.environ.get("ASAN_OPTIONS")
    if asan:
        env["ASAN_OPTIONS"] = asan + ":detect_leaks=0"
    return env


class DevicesJson(tb.BenchTestCase):
    def test_lists_every_device_and_the_chosen_one(self):
        report, result = devices_json()
        self.assertEqual(report["tool"], "clgpu-bench devices")
        devices = report["devices"]
        self.assertTrue(devices, describe(result))
        for device in devices:
            self.assertEqual(sorted(device), sorted(DEVICE_KEYS), device.get("index"))
        # The same devices as the table, in its order, with flat indices.
        table = bench("devices")
        self.assert_exit(table, 0)
        self.assertEqual([(d["index"], listing_of(d)) for d in devices], listed(table))
        self.assertEqual([d["flat_index"] for d in devices], list(range(len(devices))))
        # Exactly one chosen, the one "chosen" names.
        self.assertEqual([d["index"] for d in devices if d["chosen"]], [report["chosen"]])
        self.assertEqual(report["selector"], os.environ.get("CLGPU_DEVICE") or None)
        # Every platform, its devices counted; each device's "P" names its
        # platform, and its "D" counts within it.
        platforms = report["platforms"]
        self.assertEqual([p["index"] for p in platforms], list(range(len(platforms))))
        for platform in platforms:
            mine = [d for d in devices if int(d["index"].split(":")[0]) == platform["index"]]
            self.assertEqual(len(mine), platform["devices"], platform["name"])
            self.assertEqual([d["index"] for d in mine],
                             [f"{platform['index']}:{k}" for k in range(len(mine))])
            for device in mine:
                self.assertEqual(device["platform"], platform["name"])
                self.assertEqual(device["platform_vendor"], platform["vendor"])
                self.assertEqual(device["platform_version"], platform["version"])
        for device in devices:
            where = device["index"]
            self.assertIn(device["type"], ("GPU", "accelerator", "CPU", "other"), where)
            for key in ("compute_units", "max_work_group_size", "global_mem_bytes",
                        "max_alloc_bytes", "local_mem_bytes"):
                self.assertGreater(device[key], 0, f"{where}: {key}")
            self.assertLessEqual(device["max_alloc_bytes"], device["global_mem_bytes"], where)
            self.assertEqual(len(device["max_work_item_sizes"]), 3, where)
            for key in ("fp64", "fp16", "subgroups", "little_endian", "local_mem_dedicated"):
                self.assertIsInstance(device[key], bool, f"{where}: {key}")
            self.assertTrue(device["version"].startswith("OpenCL "), where)

    def test_the_chosen_device_agrees_with_the_table(self):
        report, _ = devices_json()
        chosen = [d for d in report["devices"] if d["chosen"]][0]
        table = bench("devices")
        self.assert_exit(table, 0)
        lines = table.stdout.splitlines()
        start = [k for k, line in enumerate(lines) if line.startswith("device:     ")]
        self.assertEqual(len(start), 1, describe(table))
        facts = lines[start[0]:start[0] + 4]
        yes = {True: "yes", False: "no"}
        gib = 1024.0 ** 3
        self.assertEqual(facts, [
            f"device:     {listing_of(chosen)}",
            f"            {chosen['version']}; {chosen['opencl_c_version']}; "
            f"driver {chosen['driver']}",
            f"            {chosen['compute_units']} compute units at {chosen['max_clock_mhz']} MHz; "
            f"global {chosen['global_mem_bytes'] / gib:.1f} GiB, max allocation "
            f"{chosen['max_alloc_bytes'] / gib:.1f} GiB, local "
            f"{chosen['local_mem_bytes'] / 1024:.0f} KiB",
            f"            work-group max {chosen['max_work_group_size']}; fp64 "
            f"{yes[chosen['fp64']]}, fp16 {yes[chosen['fp16']]}, 64-bit atomics "
            f"{yes[chosen['int64_base_atomics']]}, sub-groups {yes[chosen['subgroups']]}",
        ])
        self.assertIn(f"chosen (CLGPU_DEVICE={os.environ.get('CLGPU_DEVICE', '')}):", lines)

    def test_clgpu_device_chooses_too(self):
        report, _ = devices_json()
        last = report["devices"][-1]["index"]
        chosen, _ = devices_json(env={"CLGPU_DEVICE": last})
        self.assertEqual((chosen["selector"], chosen["chosen"]), (last, last))


class DeviceOption(tb.BenchTestCase):
    def test_every_index_picks_its_device(self):
        report, _ = devices_json()
        devices = report["devices"]
        first = devices[0]["index"]
        for device in devices:
            index = device["index"]
            # --device takes CLGPU_DEVICE's place.
            chosen, _ = devices_json("--device", index, env={"CLGPU_DEVICE": first})
            self.assertEqual((chosen["selector"], chosen["chosen"]), (index, index))
            chosen, _ = devices_json("--device", str(device["flat_index"]))
            self.assertEqual(chosen["chosen"], index)
            table = bench("devices", "--device", index)
            self.assert_exit(table, 0)
            self.assertIn(f"chosen (CLGPU_DEVICE={index}):", table.stdout.splitlines())
            self.assertIn(f"device:     {listing_of(device)}", table.stdout.splitlines())

    def test_type_and_name_selectors(self):
        report, _ = devices_json()
        devices = report["devices"]
        cpus = [d for d in devices if d["type"] == "CPU"]
        result = bench("devices", "--format", "json", "--device", "cpu")
        if cpus:
            self.assert_exit(result, 0)
            self.assertEqual(json.loads(result.stdout)["chosen"], cpus[0]["index"])
        else:
            self.assert_exit(result, 2)
        # A part of the last device's name, in other case.
        name = devices[-1]["name"]
        part = name[1:-1].strip() if len(name.strip()) > 4 else name
        if re.fullmatch(r"[\d:]*", part) or part.lower() in ("gpu", "cpu", "accelerator"):
            part = name
        part = part.swapcase()
        expected = expected_by_name(devices, part)
        self.assertIsNotNone(expected, part)
        chosen, _ = devices_json("--device", part)
        self.assertEqual(chosen["chosen"], expected["index"], part)
        # run measures on it: its JSON's device facts are the chosen one's.
        folder = tb.first_call_folder("device_run")
        result = bench("run", "--device", part, "--ops", "reduce", "--types", "uint32", "--sizes",
                       "64K", "--repeat", "2", "--warmup", "1", "--no-first-call", "--no-boost",
                       "--no-cpu", "--format", "json", env={"TMPDIR": folder})
        self.assert_exit(result, 0)
        run = json.loads(result.stdout)
        self.assertEqual((run["device"]["platform"], run["device"]["name"]),
                         (expected["platform"], expected["name"]))
        self.assertEqual([(r["op"], r["n"]) for r in run["results"]], [("reduce", 65536)])

    def test_kernel_and_selfcheck_use_it(self):
        report, _ = devices_json()
        device = report["devices"][-1]
        result = bench("kernel", tb.ok_kernel(), *tb.OK_ARGS, "--format", "json", "--repeat", "1",
                       "--warmup", "0", "--no-reference", "--device", device["index"])
        self.assert_exit(result, 0)
        self.assertEqual(json.loads(result.stdout)["device"]["name"], device["name"])
        result = bench("selfcheck", "--device", device["index"])
        self.assert_exit(result, 0)
        lines = result.stdout.splitlines()
        self.assertIn(f"device:     {listing_of(device)}", lines)
        self.assertIn("selfcheck: iota over 1M uints matches the host: ok", lines)
        result = bench("first-call", "--device", device["index"], "--no-disk-cache")
        self.assert_exit(result, 0)
        self.assertRegex(result.stdout, r"^context creation [\d.]+ ms; first call")

    def test_run_passes_it_to_its_first_call_children(self):
        # CLGPU_DEVICE names no device: the first calls' processes can only
        # make their contexts through the CLGPU_DEVICE that --device set.
        report, _ = devices_json()
        device = report["devices"][-1]
        folder = tb.first_call_folder("device_first_calls")
        result = bench("run", "--device", device["index"], "--ops", "reduce", "--types", "uint32",
                       "--sizes", "64K", "--repeat", "2", "--warmup", "1", "--no-boost", "--no-cpu",
                       "--format", "json", env={"TMPDIR": folder, "CLGPU_DEVICE": NO_DEVICE})
        self.assert_exit(result, 0)
        run = json.loads(result.stdout)
        self.assertEqual(run["device"]["name"], device["name"])
        first = run["results"][0]["first_call"]
        for key in ("cold_ms", "warm_ms", "prebuilt_ms"):
            self.assertGreater(first[key], 0, key)
        self.assertEqual(os.listdir(folder), [], "the first calls' folders were left behind")

    def test_a_selector_that_matches_nothing_is_a_usage_error(self):
        commands = [
            ["run", *TINY_RUN],
            [*TINY_RUN],  # run's options without "run"
            ["kernel", tb.ok_kernel(), *tb.OK_ARGS],
            ["tune", "--params", "tile_items"],
            ["selfcheck"],
            ["first-call"],
            ["devices"],
            ["devices", "--format", "json"],
        ]
        for selector in (NO_DEVICE, "97:3", "1:"):
            for command in commands:
                result = bench(*command, "--device", selector)
                where = f"{' '.join(command)} --device {selector}"
                self.assert_exit(result, 2)
                self.assertEqual(result.stdout, "", where)
                lines = result.stderr.splitlines()
                self.assertEqual(len(lines), 1, describe(result))
                self.assertIn(f"no device matches '{selector}'", lines[0], where)
                self.assertIn("clgpu-bench devices", lines[0], where)
                name = "run" if command[0].startswith("-") else command[0]
                self.assertRegex(lines[0], rf"^clgpu-bench:? {name}:", where)

    def test_an_empty_selector_is_a_missing_value(self):
        result = bench("run", "--device", "")
        self.assert_exit(result, 2)
        self.assertEqual(len(result.stderr.splitlines()), 1, describe(result))
        self.assertIn("--device needs a selector", result.stderr)

    def test_device_and_all_devices_together_are_a_usage_error(self):
        for args in (["run", "--device", "0:0", "--all-devices"],
                     ["--all-devices", *TINY_RUN, "--device", NO_DEVICE]):
            result = bench(*args)
            self.assert_exit(result, 2)
            self.assertEqual(result.stdout, "")
            lines = result.stderr.splitlines()
            self.assertEqual(len(lines), 1, describe(result))
            self.assertIn("--device and --all-devices", lines[0])
        result = bench("run", "--all-devices", "--plot", os.path.join(tb.TMP, "no.svg"))
        self.assert_exit(result, 2)
        self.assertEqual(len(result.stderr.splitlines()), 1, describe(result))
        self.assertIn("--plot", result.stderr)

    def test_help_names_the_option(self):
        for command in ("run", "kernel", "tune", "selfcheck", "first-call", "devices"):
            result = bench(command, "--help")
            self.assert_exit(result, 0)
            self.assertIn("--device SELECTOR", result.stdout, command)
        self.assertIn("--all-devices", bench("run", "--help").stdout)
        self.assertIn("--format table|json", bench("devices", "--help").stdout)
        usage = bench("--help").stdout
        self.assertIn("--device SELECTOR", usage)
        self.assertIn("--all-devices", usage)


class AllDevices(tb.BenchTestCase):
    """run --all-devices: a section per device, then a summary with a column
    per device, each device measured by run in a child process."""

    def all_devices(self, name, *args, env=None):
        """run --all-devices with TINY_RUN and args in a TMPDIR of its own,
        which it must leave empty; the CompletedProcess."""
        folder = tb.first_call_folder(name)
        result = bench("run", "--all-devices", *TINY_RUN, *args,
                       env=dict(env or {}, TMPDIR=folder), timeout=600)
        self.assertEqual(os.listdir(folder), [], "a temporary folder was left behind")
        return result

    def check_json(self, env=None, name="all_json"):
        """The JSON of run --all-devices checked against `devices`' listing;
        the devices."""
        listing, _ = devices_json(env=env)
        devices = listing["devices"]
        # Each child gets its device's CLGPU_DEVICE, whatever the parent's.
        result = self.all_devices(name, "--format", "json",
                                  env=dict(env or {}, CLGPU_DEVICE=NO_DEVICE))
        self.assert_exit(result, 0)
        report = json.loads(result.stdout)
        self.assertEqual(report["tool"], "clgpu-bench run --all-devices")
        self.assertEqual([(d["index"], d["listing"]) for d in report["devices"]],
                         [(d["index"], listing_of(d)) for d in devices])
        for section, device in zip(report["devices"], devices):
            where = section["index"]
            self.assertEqual((section["status"], section["exit_status"], section["message"]),
                             ("ok", 0, None), where)
            run = section["report"]
            self.assertEqual(run["tool"], "clgpu-bench run", where)
            self.assertEqual((run["device"]["platform"], run["device"]["name"]),
                             (device["platform"], device["name"]), where)
            self.assertEqual([(r["op"], r["type"], r["n"]) for r in run["results"]],
                             [("reduce", "uint32", 65536)], where)
            self.assertGreater(run["results"][0]["gb_per_s"], 0, where)
        summary = report["summary"]
        self.assertEqual([d["index"] for d in summary["devices"]], [d["index"] for d in devices])
        for column in summary["devices"]:
            self.assertEqual((column["status"], column["verified"], column["cells"]),
                             ("ok", 1, 1), column["index"])
        self.assertEqual([(r["op"], r["type"], r["n"]) for r in summary["results"]],
                         [("reduce", "uint32", 65536)])
        row = summary["results"][0]
        self.assertEqual([c["index"] for c in row["devices"]], [d["index"] for d in devices])
        for cell, section in zip(row["devices"], report["devices"]):
            where = cell["index"]
            self.assertEqual(cell["state"], "verified", where)
            # The summary's figure is the section's, read from the same run.
            figure = section["report"]["results"][0]["gb_per_s"]
            self.assertAlmostEqual(cell["gb_per_s"], figure, delta=figure * 1e-4, msg=where)
        return devices

    def test_json_has_a_section_and_a_summary_column_per_device(self):
        self.check_json()

    def test_table_has_a_section_and_a_summary_column_per_device(self):
        listing, _ = devices_json()
        devices = listing["devices"]
        result = self.all_devices("all_table")
        self.assert_exit(result, 0)
        lines = result.stdout.splitlines()
        headings = [line for line in lines if line.startswith("=== device ")]
        self.assertEqual(headings, [f"=== device {d['index']} ({k + 1} of {len(devices)}): "
                                    f"{listing_of(d)} ===" for k, d in enumerate(devices)])
        # Each section is run's report on that device.
        for device in devices:
            self.assertIn(f"clgpu {listing['library_version']} on {device['platform']} / "
                          f"{device['name']} ({device['type']}, {device['compute_units']} "
                          f"compute units)", lines)
        summary = lines.index("=== summary: a column per device ===")
        self.assertGreater(summary, lines.index(headings[-1]))
        tail = lines[summary:]
        indices = [d["index"] for d in devices]
        self.assertTrue(any(line.split() == indices for line in tail), describe(result))
        rows = [line for line in tail if line.startswith("reduce uint32 64K GB/s")]
        self.assertEqual(len(rows), 1, describe(result))
        figures = re.findall(r"(\d+(?:\.\d+)?) \(\d+%", rows[0])
        self.assertEqual(len(figures), len(devices), rows[0])
        self.assertIn(f"{len(devices)} of {len(devices)} cells measured and checked.", tail)

    def test_csv_has_every_device_rows(self):
        listing, _ = devices_json()
        devices = listing["devices"]
        result = self.all_devices("all_csv", "--format", "csv")
        self.assert_exit(result, 0)
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        self.assertEqual([(r["device_index"], r["device"], r["op"], r["n"]) for r in rows],
                         [(d["index"], d["name"], "reduce", "65536") for d in devices])
        for row in rows:
            self.assertGreater(float(row["gb_per_s"]), 0, row["device_index"])

    def test_output_takes_the_whole_document(self):
        path = os.path.join(tb.TMP, "all.json")
        result = self.all_devices("all_output", "--format", "json", "--output", path)
        self.assert_exit(result, 0)
        self.assertEqual(result.stdout, "")
        with open(path) as file:
            report = json.load(file)
        self.assertEqual(report["tool"], "clgpu-bench run --all-devices")
        self.assertEqual(len(report["devices"]), len(report["summary"]["devices"]))

    def test_two_devices_pocl_and_rusticl(self):
        env = two_device_environment()
        if env is None:
            self.skipTest("POCL's or rusticl's ICD file is not installed")
        listing, _ = devices_json(env=env)
        if len(listing["devices"]) < 2:
            self.skipTest("rusticl shows no llvmpipe device here")
        devices = self.check_json(env=env, name="all_two")
        self.assertGreaterEqual(len(devices), 2)
        # And a device of the second platform by --device alone.
        second = devices[-1]
        chosen, _ = devices_json("--device", second["index"], env=env)
        self.assertEqual(chosen["chosen"], second["index"])


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tb.BENCH = os.path.abspath(sys.argv[1])
    tb.SOURCE = os.path.abspath(sys.argv[2])
    base = os.environ.get("CLGPU_TEST_TMPDIR")
    if base:
        os.makedirs(base, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="clgpu-bench-devices-test-", dir=base) as folder:
        tb.TMP = folder
        program = unittest.main(argv=[sys.argv[0], *sys.argv[3:]], exit=False, verbosity=2)
        return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
