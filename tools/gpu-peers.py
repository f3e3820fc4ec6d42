#!/usr/bin/env python3
"""Time the peers of clgpu's operations on an NVIDIA GPU through PyTorch.

PyTorch's CUDA kernels for these operations are CUB's (sum: DeviceReduce,
cumsum: DeviceScan, sort: DeviceRadixSort / DeviceSegmentedSort, nonzero:
DeviceSelect) or its own, so they are the figures a GPU library is judged
against on the same machine. Run by tools/gpu-check as its `peers` step:

    python3 tools/gpu-peers.py [--sizes 1M,16M,64M] [--repeat N] [--json FILE]

Each row is the median of --repeat timed calls (CUDA events around each call,
after two warm-up calls), over uniformly random data like clgpu-bench's:
uint32-like keys as int32 (and uint32 where this torch sorts them), float in
[0, 1). The table gives milliseconds, elements per second and the bytes the
operation must move per second (read once, written once where it writes).
torch.sort always returns the permutation too (int64 indices), so it is
clgpu's sort_by_key with 8-byte values rather than its radix_sort; the key
bytes alone and the key+index bytes are both shown. Exit status 0 when torch
and a CUDA device are there, 1 when not (it says why), 2 on a usage error.
"""
import argparse
import json
import statistics
import sys


def parse_size(text):
    text = text.strip()
    mult = 1
    if text[-1:] in "KMG":
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[text[-1]]
        text = text[:-1]
    return int(text) * mult


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1M,16M,64M")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    try:
        sizes = [parse_size(s) for s in args.sizes.split(",")]
    except (ValueError, KeyError):
        print(f"gpu-peers: --sizes {args.sizes}: give numbers with K, M or G", file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError as err:
        print(f"gpu-peers: no torch ({err})", file=sys.stderr)
        return 1
    if not torch.cuda.is_available():
        print("gpu-peers: torch sees no CUDA device", file=sys.stderr)
        return 1
    dev = torch.device("cuda")
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name(0)}, "
          f"median of {args.repeat} calls (CUDA events)")

    def timed(fn):
        for _ in range(2):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(args.repeat):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times)

    rows = []

    def row(op, dtype, n, ms, nbytes, note=""):
        gbs = nbytes / (ms * 1e-3) / 1e9
        melem = n / (ms * 1e-3) / 1e6
        rows.append({"op": op, "type": dtype, "n": n, "ms": ms, "melem_s": melem,
                     "gb_s": gbs, "note": note})
        print(f"{op:<14} {dtype:<7} {n:>10} {ms:>9.4f} ms {melem:>10.0f} Melem/s "
              f"{gbs:>8.1f} GB/s  {note}", flush=True)

    gen = torch.Generator(device=dev)
    gen.manual_seed(12345)
    for n in sizes:
        xf = torch.rand(n, device=dev, generator=gen)
        xi = torch.randint(-(2**31), 2**31 - 1, (n,), device=dev, dtype=torch.int32,
                           generator=gen)
        y = torch.empty_like(xf)
        row("copy", "float", n, timed(lambda: y.copy_(xf)), 8 * n, "y.copy_(x)")
        row("reduce", "float", n, timed(lambda: torch.sum(xf)), 4 * n, "torch.sum")
        row("reduce", "int32", n, timed(lambda: torch.sum(xi, dtype=torch.int32)), 4 * n,
            "torch.sum(dtype=int32)")
        row("scan", "float", n, timed(lambda: torch.cumsum(xf, 0)), 8 * n, "torch.cumsum")
        row("scan", "int32", n, timed(lambda: torch.cumsum(xi, 0, dtype=torch.int32)), 8 * n,
            "torch.cumsum(dtype=int32)")
        # findall: the predicate selects 10% (x < 0.1); indices are int64.
        row("findall", "float", n, timed(lambda: torch.nonzero(xf < 0.1)), 4 * n + 0.8 * n,
            "torch.nonzero(x < 0.1), int64 indices")
        for name, keys in (("int32", xi), ("float", xf)):
            ms = timed(lambda: torch.sort(keys))
            row("sort", name, n, ms, 2 * 4 * n,
                f"torch.sort (keys + int64 indices): key bytes; with indices "
                f"{(2 * 12 * n) / (ms * 1e-3) / 1e9:.1f} GB/s")
        try:
            xu = xi.view(torch.uint32)
            ms = timed(lambda: torch.sort(xu))
            row("sort", "uint32", n, ms, 2 * 4 * n, "torch.sort of uint32 keys")
        except (RuntimeError, AttributeError, TypeError) as err:
            print(f"sort uint32: not in this torch ({str(err).splitlines()[0]})", flush=True)
        hay = torch.sort(xf).values
        row("lower_bound", "float", n, timed(lambda: torch.searchsorted(hay, xf)), 8 * n,
            "torch.searchsorted, n needles in n sorted (int64 out)")
        row("histogram", "float", n, timed(lambda: torch.histc(xf, bins=256, min=0, max=1)),
            4 * n, "torch.histc, 256 bins")
        del xf, xi, y, hay
        torch.cuda.empty_cache()
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
                       "rows": rows}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
