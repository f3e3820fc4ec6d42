/* The tuning table: every number that shapes a plan (how ranges are cut, how
 * wide groups are, how many elements a work-item takes), with why each value
 * is what it is. It is like the quirks table (quirks.c), but it holds speed
 * choices rather than workarounds: a quirk keeps results right, a tuning
 * value only changes how fast they come.
 *
 * One base row serves every device; device classes (a device type and,
 * optionally, part of the platform's name) override some of its values, in
 * the syntax of the CLGPU_TUNING environment variable, which is applied
 * last. A class's values come with the measurement behind them (the
 * command, the figures, the date); `clgpu-bench tune` prints a line to
 * paste as a class's overrides. The base values were chosen on POCL and
 * Intel's CPU runtime (which compiles work-group-shaped kernels as GPU
 * compilers do) and by reasoning about GPUs; the one GPU measured so far,
 * an NVIDIA H200, has its class below. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/context.h>

#include "status_internal.h"
#include "tuning.h"

/* The base row, for every device. */
static const clgpu__tuning base_row = {
    .device_class = "every device",
    /* The 16-wide vector loop of cl/reduce.cl's CHUNKED kernels runs
     * four vectors per step: chunks are cut at multiples of that. */
    .chunk_unit = 64,
    /* Below this a range is not cut: one work-item walks it faster
     * than a second pass over partials can be launched and run. */
    .chunk_minimum = 16384,
    /* A cut range gets at most this many chunks per compute unit
     * (CHUNKED), so that uneven chunks even out. */
    .chunked_chunks_per_unit = 4,
    /* Elements per work-item of a TILED tile (CLGPU_ITEMS in
     * cl/reduce.cl): enough loads in flight per item, and a tile's
     * group scan (a fixed number of barriers) spread over more
     * elements. Intel's CPU runtime, 16M elements, uint32 and float,
     * `clgpu-bench run --shape tiled --ops scan,findall --sizes 16M`,
     * two rounds alternating with 8 (2026-12-02): scan 0.21-0.23 of
     * the copy kernel at 8, 0.28-0.30 at 16, 0.25-0.30 at 32; findall
     * 0.10 of the read kernel at 8, 0.12-0.13 at 16 and at 32. 16
     * keeps a work-item's elements in registers on a GPU. */
    .tile_items = 16,
    /* TILED: a range of fewer tiles than this runs in one group. */
    .tiled_minimum_tiles = 4,
    /* The widest TILED group: local memory holds two arrays of 8-byte
     * values of this length (4 KiB), which every device offers. */
    .tiled_group_cap = 256,
    /* TILED chunks per compute unit, and the most in all: the second
     * pass reads the partials in one group, four per item at 256. */
    .tiled_chunks_per_unit = 8,
    .tiled_chunks_cap = 1024,
    /* A scan's first pass only needs each chunk's total: where the
     * operator commutes (SUM, MIN, MAX) it is folded like the TILED
     * reduce, with coalesced loads and no group scan per tile. Intel's
     * CPU runtime, 16M uint32 and float, `clgpu-bench run --shape
     * tiled --ops scan --sizes 16M`, three rounds alternating: 0.21-0.23
     * of the copy kernel tile by tile, 0.24-0.25 folded (2026-12-02).
     * POCL is the other way (its class below). */
    .tiled_scan_totals_coalesced = 1,
    /* GPUs run a group's work-items together, so loads of consecutive
     * items coalesce without help: no barrier in a range walk. CPU
     * runtimes run them one after another between barriers (their
     * class below). */
    .tiled_step_barrier = 0,
    /* Where the device has sub-groups, a TILED scan that adds and
     * findall cut each chunk into this many slices, and each sub-group
     * walks whole slices alone in rows of its width: coalesced loads
     * and stores, a sub-group scan per row, no group barrier, the
     * carries scanned per slice. 16 slices give each sub-group of a
     * 256-wide group of 16-wide sub-groups one slice; sub-groups of 32
     * or 64 take two or four. Intel's CPU runtime, 16M elements,
     * `clgpu-bench run --shape tiled --ops scan,findall --sizes 16M`
     * three rounds alternating with 3a1f0ef (tile-by-tile scans with
     * sub-group prefixes; 2026-12-02): scan 0.31-0.33 of the copy kernel
     * before, 0.41-0.45 after for uint32, 0.33-0.36 for float; findall
     * 0.15-0.17 of the read kernel both. */
    .tiled_slices = 16,
    /* findall's slices are read in rows (consecutive items, consecutive
     * elements), as a GPU coalesces them; CPU runtimes vectorise runs of
     * consecutive elements per item better (the CPU classes). */
    .tiled_lane_runs = 0,
    /* CHUNKED findall takes each block's sixteen predicates one by one
     * into a mask; where the compiler turns them into vector loads and
     * compares when they are built into one vector (POCL, its class
     * below), it builds them so (cl/reduce.cl clgpu_findall_compact has
     * the harness's figures). */
    .findall_vector_flags = 0,
    /* CHUNKED findall packs each block's hits' positions with AVX-512's
     * compress instead of the table of eight-lane stores, where the
     * device's compiler targets AVX-512 and offers Clang's builtins for
     * it (cl/reduce.cl clgpu_findall_compact, which has the figures):
     * only where a class measured it faster (POCL, below); a compiler
     * without them takes the table whatever this says. */
    .findall_compress = 0,
    /* The CHUNKED kernels of cl/reduce.cl and cl/runs.cl load (store)
     * sixteen elements with vload16 (vstore16), or (1) through a pointer
     * to the vector type where the address is aligned for it (cl/common.cl
     * CLGPU_VLOAD16). POCL builds vload16 from eight 8-byte loads. Whole
     * calls in one process, each form's kernel files through
     * CLGPU_KERNEL_DIR, calls alternating (2026-12-06, 2-core AMD EPYC):
     * POCL 16M float SUM scan 7.4-7.7 ms a call with vload16, 3.1-3.5
     * with the pointer, exclusive 7.6-8.9 against 4.7-5.0, uint32 4.6-6.3
     * against 4.1-5.4; reduce, findall and scan_by_key alike or faster.
     * Intel's runtime alike either way (16M scan, reduce, findall,
     * scan_by_key within 0.9-1.05), so its row stays at 0. rusticl
     * (llvmpipe) slower with the pointer: 1M scan 1.57-1.61 of the time,
     * reduce 1.56-1.58, scan_by_key 1.37-1.44, float findall 1.19. */
    .aligned_vector_access = 0,
    /* CHUNKED findall's table path writes a block's two eight-lane stores
     * in a loop of two steps, or (1) the two one after the other. POCL
     * does not unroll the loop; Intel's runtime runs the loop faster.
     * 16M elements, 10% selected, whole calls in one process, the kernel
     * file of each form through CLGPU_KERNEL_DIR, calls alternating,
     * median of 25 per-call ratios, split over loop (2026-12-06, 2-core
     * AMD EPYC): POCL float 0.92, uint32 0.91; Intel's runtime float
     * 1.05, uint32 1.00. With the mask also taken by AVX2's movmskps
     * (not kept: alone it changed nothing) POCL 0.89-0.95 in four runs,
     * Intel's runtime 1.03-1.04 float. */
    .findall_split_stores = 0,
    /* Radix sort: keys up to this count are sorted by one work-item in
     * one kernel (CHUNKED), every pass at once: one launch instead of
     * three per pass and a copy back, and a program of one kernel (a
     * first call loads and creates less). Keys alone, uint32, whole
     * sorts in one process through two contexts made under
     * `CLGPU_TUNING=sort_single_chunk=16384` and `=131072`, calls
     * alternating, median of 31 per-pair ratios (a throw-away harness
     * over the public API, 2026-12-05), three processes each: POCL 32K
     * 0.31 / 0.89 / 0.90 of the per-pass kernels' time, 64K 0.91 / 0.59
     * / 0.92, 128K 0.85 / 0.85 / 0.92; Intel's CPU runtime 32K 0.35, 64K
     * 0.70 / 0.70, 128K 0.88 / 0.85; rusticl 0.97-1.04 (its loop cap
     * keeps most of these on the per-pass kernels). At 256K the per-pass
     * kernels were faster (POCL 2.6-2.8 ms against 3.8). Those figures
     * are of two cores, where the passes gain at most twice from running
     * in parallel; with more cores they gain more, so the row stops at
     * 64K rather than 128K. */
    .sort_single_chunk = 65536,
    /* The same with values: the one-kernel sort was no faster on POCL
     * (32K 0.92, 64K 0.95, 128K 1.03 of the per-pass kernels' time, the
     * harness above) and slower on Intel's runtime (32K 1.05, 64K 1.47,
     * 128K 1.58). */
    .sort_single_chunk_values = 16384,
    /* CHUNKED radix sort: while a pass has at most this many digit counts
     * (digits times chunks), each scatter work-item adds up the counts
     * before its chunk itself and no scan kernel runs: a kernel less per
     * pass and none to create on a first call, for at most this many
     * additions per work-item (32768: 11-bit digits over 16 chunks, a
     * CPU with 4 compute units; 8-bit ones over 128). */
    .sort_summed_counts = 32768,
    /* Radix sort, CHUNKED: nothing is cut below this, as for ranges. */
    .sort_chunk_minimum = 16384,
    /* The widest digit of a CHUNKED radix pass (2048 counters per
     * chunk, which stay in a CPU core's cache). */
    .sort_chunked_digit_max = 11,
    /* The same for a sort that moves values beside its keys. The CPU
     * classes (below), whose scatter combines each digit's keys and
     * values into 64-byte lines in local memory, take 8: 2048 digits'
     * lines of keys and values (256 KiB with uint32 values) spill out of
     * a core's L1 and L2 on every store, 256 digits' (32 KiB) stay in
     * L1. 16M uint32 keys and values, `CLGPU_TUNING=
     * sort_chunked_digit_max_values=11|8 clgpu-bench run --ops
     * sort_by_key,argsort`, two rounds alternating (2026-12-04): POCL
     * sort_by_key 167-169 -> 126-131 ms, argsort 172-175 -> 135-139;
     * Intel's CPU runtime sort_by_key 275-278 -> 133-164 (2.0x -> 3.7-
     * 4.2x the C key-value radix sort), where 11 bits left no room for
     * lines at all. Keys alone take 8 bits on those classes through
     * sort_stream_digit_max (below), but not in the one-kernel sort,
     * whose plain scatter does not combine lines: 64K uint32 keys there,
     * 8 against 11 bits, POCL 1.70, Intel's CPU runtime 1.26. */
    .sort_chunked_digit_max_values = 11,
    /* Write-combined lines in the CHUNKED radix scatter (each digit's
     * keys wait in local memory until they fill a 64-byte line): off
     * unless a device class measured them faster. With non-temporal
     * stores from sort_stream_floor: POCL, 16M uint32, `clgpu-bench run
     * --ops radix_sort,sort_by_key`, three rounds alternating with
     * 83902ae (2026-12-02): radix_sort 95-99 -> 148-165 Mkeys/s,
     * sort_by_key 57-62 -> 79-95; Intel's CPU runtime radix_sort 79-98
     * -> 155-164. Below the floor, with plain stores of whole lines, where
     * the scatter had stored key by key: whole sorts, one process holding
     * contexts under `CLGPU_TUNING=sort_stream=0` and `=1`, calls
     * alternating, median of 15 per-call ratios (2026-12-06), POCL:
     * uint32 keys 128K 0.99, 256K 0.98, 1M 0.72, 1000000 0.94, 2M 0.58;
     * uint32 pairs 64K 0.70, 256K 0.38, 1000000 0.96, 1M 0.39; Intel's
     * CPU runtime keys 256K 0.89, 1M 0.76, 2M 0.68, pairs 64K 0.78, 256K
     * 0.52, 1000000 1.00, 1M 0.53. Key by key, a pass stores to 2^bits
     * places n / 2^bits keys apart, all in a few of the cache's sets
     * where that is a multiple of 4 KiB (n a power of two). */
    .sort_stream = 0,
    /* Below this many bytes of keys and values the scatter stores key by
     * key after all (and takes sort_chunked_digit_max(_values)'s digits),
     * where sort_stream asks for lines: 0, lines at every size, unless a
     * host overlay (below the classes) measured the plain scatter faster
     * while the places stay in the cache. */
    .sort_lines_floor = 0,
    /* The widest digit of a scatter through write-combined lines: 2048
     * digits' lines of keys (128 KiB) miss a core's L1 on every store,
     * 256 digits' (16 KiB) stay in it. uint32 keys, 8 against 11 bits,
     * whole sorts alternating in one process as for sort_stream, median
     * of 15 ratios (9 at 16M; 2026-12-06): POCL 128K 0.80, 256K 0.92,
     * 1000000 0.97, 1M 0.92, 2M 0.94, 4M 0.89 / 0.92 / 0.91, 16M 0.94 /
     * 1.09 / 0.89 / 0.90 / 0.91 / 0.95; Intel's CPU runtime 128K 0.73, 1M
     * 0.90, 4M 0.94, 16M 0.99. */
    .sort_stream_digit_max = 11,
    /* Below this many bytes of keys and values, the sort's places stay
     * in the cache between passes and non-temporal stores, which bypass
     * it, are slower (1M keys, 4 MiB: 112 -> 92-105 Mkeys/s on POCL). */
    .sort_stream_floor = (uint64_t)16 << 20,
    /* From this many bytes of keys and values on, the scatter through
     * lines takes sort_chunked_digit_max's wider digits after all where a
     * line per digit fits in local memory: a pass fewer, for lines that
     * no longer stay in L1. Never (0) unless a host overlay (below the
     * classes) measured it faster. */
    .sort_stream_wide_floor = 0,
    /* From this many bytes of 4-byte keys and 4-byte values on, the
     * scatter through lines moves each key and its value as one 8-byte
     * pair between passes (cl/sort.cl place_after): one load and one
     * store a pair where keys and values take two, for twice the
     * workspace's alternate places. Never (0) unless a device class
     * measured it faster. The CPU rows (POCL, Intel's CPU runtime) take
     * it from 8 MiB (1M pairs): uint32 keys with uint32 values,
     * `CLGPU_TUNING=sort_pack_pairs=0|1 clgpu-bench run --ops sort_by_key
     * --types uint32`, runs alternating (2026-12-06, the 2-core AMD EPYC):
     * POCL 16M 223 / 228 ms -> 163 / 156 (2.12x / 1.92x the one-thread C
     * LSD radix sort -> 2.87x / 2.85x), 4M 52.9 / 52.9 -> 37.0 / 40.5,
     * 1M 12.1 / 11.8 -> 11.8 / 11.6, 128K 1.8 / 2.8 -> 2.2 / 2.4 (too
     * noisy to call, hence the floor); Intel's CPU runtime 16M 203 -> 179
     * (2.17x -> 2.47x). A 16M sort's four 8-bit passes on POCL (a
     * kernel timing shim): the scatters 207 -> 168 ms, the histograms,
     * which read 8 bytes a key from pairs, 24 -> 31. */
    .sort_pack_pairs = 0,
    /* Scans writing this many bytes or more store them non-temporally
     * (CHUNKED sums, 16 elements a store, where the output is aligned for
     * it): never (0) unless a device class measured it faster. The CPU
     * classes take 32 MiB: whole sums of uint32 alternating in one process
     * under `CLGPU_TUNING=scan_stream_floor=0` and a floor below n, median
     * of the per-call ratios (15 to 21 calls; 2026-12-06), streamed / plain
     * time: POCL 16M 0.85 / 0.88, 16M float exclusive 0.90, 64M 0.91,
     * 8M 0.88; Intel's CPU runtime 16M 0.88, float exclusive 0.89, 8M
     * 0.84. A reader of the output pays for lines no longer in the cache:
     * the scan and a sum of its output together, POCL 16M 0.95, 8M 0.99,
     * 4M 1.11, 1M 1.14; Intel's runtime 16M 0.95, 8M 0.99, 4M 1.04, 1M
     * 1.11; hence nothing below 32 MiB. rusticl's row keeps 0: 16M there
     * took 1.01 of the time streamed. */
    .scan_stream_floor = 0,
    /* Keys per work-item of a TILED radix tile (CLGPU_SORT_ITEMS):
     * a tile's ranking costs a fixed number of group barriers, so more
     * keys per tile spread them thinner. Intel's CPU runtime (which
     * vectorises work-items as GPU compilers do), 16M uint32 keys,
     * `clgpu-bench run --shape tiled --ops radix_sort --sizes 16M`:
     * 8 keys 19 Mkeys/s, 16 keys 25, 32 keys 29 (one run each,
     * 2026-12-02). 16, as GPU radix sorts take (CUB ranks 15 to 23
     * keys per thread), keeps a work-item's keys in registers on a
     * GPU; 32 would spill there. */
    .radix_items = 16,
    /* The widest TILED radix digit: each work-item counts into its own
     * column of 2^bits counters, so local memory bounds it (the plan
     * takes the widest that fits, 4 bits at least). */
    .tiled_digit_max = 5,
    /* The widest sort group, as tiled_group_cap. */
    .sort_group_cap = 256,
    /* TILED radix: up to this many tiles run every pass in one group. */
    .sort_single_tiles = 4,
    /* Merge sort: blocks of this many keys are sorted by insertion
     * before the first merge (CLGPU_MERGE_BLOCK). */
    .merge_block = 16,
    /* AUTO takes a segmented sort's radix path, where its packed form
     * fits, when the segments hold at least this many keys on average
     * (n / S), and merges below it. POCL, 2 cores, uint32 keys in
     * uniform segments, radix path against merging (medians of 5 to 7,
     * 2026-12-03): at 256K keys even at 1024 keys a segment, 1.13x
     * faster at 4096; at 1M even at 1024, 1.25x at 4096; at 4M even at
     * 16K (the packed form fits from 8K); at 16M it fits from 66K on,
     * 1.37x faster there. The split form (8-byte keys, or more
     * segments) never beat merging there: 16M uint64 keys in one
     * segment 0.77x, 16M uint32 keys in 1024 segments 0.84x. */
    .segmented_radix_mean = 4096,
    /* A copy between contiguous views is one clEnqueueCopyBuffer, the
     * implementation's own copy, unless a class measured the library's
     * copy kernel faster from some size on. */
    .copy_kernel_floor = 0,
    /* Elementwise, CPU devices: the side of the squares a blocked
     * kernel walks (both arrays of a transpose stay in the cache), and
     * the fewest elements for which blocking is worth its own
     * program. 32 against 64 (`clgpu-bench run --ops
     * strided_copy_transposed,elementwise_transposed --sizes 16M`, float
     * 4096x4096, two runs each under CLGPU_TUNING=block=N, 2026-12-04):
     * POCL copy 11.7-12.6 ms against 13.8-13.9 (0.61-0.63 of
     * clEnqueueCopyBuffer against 0.54), elementwise 11.4-13.2 against
     * 13.8-14.1 (three later runs of the whole bench: 0.59 of it);
     * Intel's CPU runtime copy 12.4-12.7 against 13.6-13.9;
     * 16 was no faster than 32 on either. Two 32x32 squares of floats
     * (8 KiB) leave room in a 48 KiB L1 for the lines in flight. */
    .block = 32,
    .blocking_floor = 4096,
    /* The blocked walk's runs read a transposed array with a long stride
     * per element; they run one element at a time unless a class measured
     * its compiler's gathers faster (blocked_gather). */
    .blocked_gather = 0,
    /* A work-item of the blocked walk takes one band of `block` columns
     * down the whole tile dimension, unless a class measured bands over
     * fewer rows faster (blocked_rows, blocked_columns: the rows' pages
     * met again by each band while their translations are held). */
    .blocked_rows = 0,
    .blocked_columns = 0,
    /* The contiguous elementwise kernel's work-items test the count
     * themselves, unless a class measured the group's test first faster
     * (1: only the last group's work-items test it). POCL, 16M elements,
     * y = a * x + z, `CLGPU_TUNING=group_bound_check=0|1 clgpu-bench run
     * --ops elementwise --types float,uint32 --sizes 16M`, two runs each
     * alternating (2026-12-06): 10.2-15.3 ms against 5.4-6.9 (1.62-2.17
     * against 0.98-1.04 of the hand-written kernel's time, which has no
     * test); its compiler leaves the group's loop over its work-items
     * scalar around a test of each. Intel's CPU runtime the other way:
     * 6.0-6.5 ms against 9.3-11.7 (1.04-1.07 against 1.68-2.37); rusticl,
     * 1M: 1.21 against 1.29. A plain kernel alone, 16M, POCL: 5.2-5.7 ms
     * without a test, 10.1-10.7 with the work-item's, 5.4-6.3 with the
     * group's first. The contiguous clgpu_copy, which is that kernel on
     * POCL (copy_kernel_floor), the same way: 16M float 8.6-10.2 ms
     * against 4.2-4.6, 1M 0.41-0.76 against 0.22-0.25 (`--ops copy`). */
    .group_bound_check = 0,
};

/* Device classes, in the order they are matched: the first whose type bits
 * meet the device's and whose platform name holds `platform` (when not
 * NULL) overrides the base row with `values`. */
typedef struct tuning_class {
  const char *name;
  cl_device_type types;
  const char *platform;
  const char *values;
} tuning_class;

static const tuning_class classes[] = {
    /* NVIDIA's OpenCL on an H200 (driver 580.159.04, the first GPU this
     * project was lent, 2026-12-04): one value swept at a time from the
     * base row, `CLGPU_TUNING=P=V clgpu-bench run --ops ... --types uint32
     * --sizes 64M --repeat 5 --no-cpu --no-first-call --format csv`, one
     * run per value, Melem/s. tile_items 4 / 8 / 16 / 32: scan 179558 /
     * 89760 / 70763 / 53161, findall 230348 / 216586 / 194508 / 132854,
     * reduce 706052 / 693438 / 690946 / 655866 (a GPU hides latency with
     * more work-items in flight, not more items each). radix_items 4 / 8 /
     * 16 / 24 / 32: radix_sort 10511 / 10551 / 9467 / 8739 / 8061.
     * tiled_slices (1-64) and tiled_digit_max (4-8) were flat within 5%
     * at the base row's other values, so they stay. torch 2.11 on the same
     * GPU (tools/gpu-peers.py, CUB underneath), 64M: cumsum 290 Gelem/s,
     * sum 849, nonzero 235, sort (keys with int64 indices) 22.0 Gkeys/s. */
    {"NVIDIA", CL_DEVICE_TYPE_GPU, "NVIDIA CUDA", "tile_items=4,radix_items=8"},
    /* POCL 3.1 runs a work-group as loops over its work-items, which the
     * TILED shape's per-tile group scans suit better than the coalesced
     * fold (scan, 16M uint32: 0.12 of the copy kernel tile by tile, 0.095
     * folded), and ranks radix tiles faster with more keys per work-item
     * (`clgpu-bench tune --params radix_items --sizes 256K`: 4 keys 2.7,
     * 8 keys 4.0, 16 keys 6.6, 24 keys 11.3, 32 keys 15.9 Mkeys/s;
     * 2026-12-02). Like every CPU runtime it wants the barrier per tile
     * (the CPU class below): 16M uint32, `CLGPU_TUNING=tiled_step_barrier=
     * 0|1 clgpu-bench run --shape tiled --ops reduce,scan,findall`, two
     * rounds alternating (2026-12-02): reduce 0.06 of the read kernel
     * without, 0.33-0.35 with; scan 0.13-0.14 of the copy kernel against
     * 0.15-0.19; findall 0.04 of the read kernel against 0.08. TILED is
     * not POCL's automatic shape; these keep the shape it is asked for no
     * slower than before. Its clEnqueueCopyBuffer copies on one thread:
     * contiguous clgpu_copy, uint32 and float, `CLGPU_TUNING=
     * copy_kernel_floor=0|1 clgpu-bench run --ops copy --sizes
     * 16K,256K,1M,4M,16M`, two rounds each (2026-12-02): 16M 7.0-8.8 ms
     * through it, 3.5-4.0 through the copy kernel; 4M 1.24-1.44 against
     * 0.76-1.03; 1M 0.32-0.44 against 0.23-0.38; alike below. */
    {"POCL", CL_DEVICE_TYPE_CPU, "Portable Computing Language",
     "tiled_scan_totals_coalesced=0,radix_items=32,tiled_step_barrier=1,sort_stream=1,"
     "sort_stream_digit_max=8,sort_chunked_digit_max_values=8,"
     "copy_kernel_floor=1048576,findall_vector_flags=1,findall_compress=1,"
     "findall_split_stores=1,aligned_vector_access=1,blocked_gather=1,"
     "scan_stream_floor=33554432,group_bound_check=1,sort_pack_pairs=8388608"},
    /* Mesa's rusticl on llvmpipe pays more for a barrier than it gains:
     * 4M uint32, `CLGPU_TUNING=tiled_step_barrier=0|1 clgpu-bench run
     * --shape tiled --ops reduce,scan,findall --sizes 4M`, two rounds
     * alternating (2026-12-02): reduce 16 ms without, 25-27 with; scan
     * 88-94 against 100-105; findall 81 against 95. */
    {"rusticl", CL_DEVICE_TYPE_CPU, "rusticl", "tiled_step_barrier=0"},
    /* Other CPU runtimes (Intel's) also run a group's work-items one
     * after another between barriers, vectorised across items: without
     * a barrier per tile, each vector of items walks a whole range
     * alone, one element in GROUP, and reads each cache line of it
     * GROUP / width times. Intel's CPU runtime, 16M elements, TILED
     * reduce (`clgpu-bench run --shape tiled --ops reduce --sizes 16M`,
     * 2026-12-02): 0.51 of the read kernel without, 0.93-0.97 with;
     * TILED radix sort 28 -> 42-45 Mkeys/s (its histogram walks the
     * same way). Its TILED radix ranks faster with 24 keys per
     * work-item: 16M uint32, `CLGPU_TUNING=radix_items=16|24|32
     * clgpu-bench run --shape tiled --ops radix_sort,sort_by_key`, two
     * rounds alternating (2026-12-02): radix_sort 25-34 Mkeys/s at 16,
     * 37-38 at 24, 29-33 at 32; sort_by_key 22 at 16, 26-28 at 24, 25-28
     * at 32. Its sub-groups read findall's slices faster in runs of
     * consecutive elements per item than in rows: 16M, `CLGPU_TUNING=
     * tiled_lane_runs=0|1 clgpu-bench run --shape tiled --ops findall`,
     * two rounds alternating (2026-12-02): 0.13-0.14 of the read kernel
     * in rows, 0.16-0.18 in runs. Runs of 32 stored lowest hit first,
     * in as many store steps as an item's most hits (same command, three
     * rounds alternating with 83902ae, 2026-12-02): uint32 1231 -> 1498
     * Melem/s, float 1306 -> 1975 (medians); at b17477c, three runs with
     * Boost.Compute beside: 0.21-0.23 (uint32) and 0.24-0.25 (float) of
     * the read kernel. */
    /* Oclgrind 21.10 (which reports every device type) takes the CPU
     * class's values, and copies through the copy kernel: bytes that its
     * clEnqueueCopyBuffer writes at a nonzero offset of the destination
     * stay "uninitialised" to its checker, so every kernel reading a
     * workspace slot past the first that a call staged into was reported
     * (clgpu_reduce_by_key over its own keys and values; a MAX
     * reduction of 256 ints copied to byte 1024 of a buffer gave 16
     * reports, copied to byte 0 none, 2026-12-03). */
    {"Oclgrind", CL_DEVICE_TYPE_ALL, "Oclgrind",
     "tiled_step_barrier=1,radix_items=24,tiled_lane_runs=1,sort_stream=1,copy_kernel_floor=1,"
     "sort_stream_digit_max=8,sort_chunked_digit_max_values=8,scan_stream_floor=33554432"},
    {"CPU", CL_DEVICE_TYPE_CPU, NULL,
     "tiled_step_barrier=1,radix_items=24,tiled_lane_runs=1,sort_stream=1,"
     "sort_stream_digit_max=8,sort_chunked_digit_max_values=8,scan_stream_floor=33554432,"
     "sort_pack_pairs=8388608"},
};

/* Host overlays: values that depend on the processor under a CPU device
 * rather than on the implementation, applied over whichever class row the
 * device took, where the device's type matches and its name holds
 * `device_name` (POCL names its CPU device "pthread-<target>-<the
 * processor's model name>", Intel's CPU runtime by the model name alone;
 * rusticl's llvmpipe and Oclgrind name no processor, and take none).
 *
 * AMD processors: the scatter through lines (sort_stream) with 11-bit
 * rather than 8-bit digits from 4 MiB of keys and values. On the 2-core
 * AMD EPYC (family 25, model 1: Zen 3; 32 KiB L1d and 512 KiB L2 per
 * core) of 2026-12-06, uint32 keys, whole sorts alternating in one
 * process under `CLGPU_TUNING=sort_stream_digit_max=8` and `=11`, median
 * of 11 to 15 per-call ratios, time at 11 bits over time at 8: POCL 128K
 * 1.06, 256K 1.08, 512K 0.96, 1M 0.88, 2M 0.83, 4M 0.74, 16M 0.79;
 * Intel's CPU runtime 256K 1.14, 512K 1.04, 1M 0.97, 2M 0.81, 4M 0.91,
 * 16M 0.83 (a pass's time there is the same at either width: the 2048
 * lines of 64 bytes live in L2 at no cost, and the fourth pass goes).
 * uint32 pairs stay at 8 bits (sort_chunked_digit_max_values): POCL 1M
 * 0.99, 4M 1.03, 16M 1.02 at 11. The 8 of the class rows was measured
 * on another machine of this project, where 8 bits took 0.80-0.97 of the
 * time of 11 from 128K to 4M keys and a median 0.92 at 16M (the
 * sort_stream_digit_max comment above). `clgpu-radix-bound`
 * (tools/radix_bound.c) shows it in C on this host too: the kernels'
 * design at 11 bits took 0.72-0.87 of its time at 8 (five runs).
 *
 * AMD processors, the scatter through lines only from 16 MiB of keys and
 * values (sort_lines_floor): below, the places stay in the cache and the
 * plain scatter with the wide digits was faster. Same host (2026-12-07),
 * uint32 keys, whole sorts with a workspace alternating in one process
 * under `CLGPU_TUNING=sort_lines_floor=0` and the overlay, median of 11
 * per-call ratios, time with the floor over time without, POCL / Intel's
 * CPU runtime: keys alone 128K 0.78 / 0.65, 512K 0.54 / 0.67, 1M 0.74 /
 * 0.86, 2M 0.97 / 0.89, 4M (lines on both sides) 1.02 / 1.04; with uint32
 * values 128K 0.76 / 0.57, 512K 0.53 / 0.63, 1M 0.71 / 0.78, 2M (lines on
 * both sides) 1.04 / 0.99. Without a workspace (each call allocating its
 * places) alike: keys 128K 0.76 / 0.80, 512K 0.64 / 0.76, 1M 0.64 / 0.72,
 * 2M 0.89 / 0.94; with values 0.76 / 0.68, 0.52 / 0.67, 0.56 / 0.66. The
 * 2026-12-06 figures under sort_stream above, where the lines won from
 * 1M keys and 256K pairs on, no longer hold on this host: the lines'
 * digits have been 8 bits below sort_stream_wide_floor since, a pass more
 * than the plain scatter's 11. Above the floor the lines stay ahead: the
 * plain scatter (sort_stream=0 against the default, same harness, a test
 * run beside it) took 1.18 / 1.15 of the time at 4M keys and 1.09 / 1.24
 * at 2M pairs. The one-kernel sort keeps its thresholds: against the
 * plain per-pass kernels below the floor it took 1.2-1.9 times the time
 * with values from 32K to 256K, and 0.82-1.58 with keys alone at 128K and
 * 256K.
 *
 * AMD processors, the blocked walk (`block`) in squares of 16 rather than
 * 32: a transpose of 4096 x 4096 floats reads (or writes) rows 16 KiB
 * apart, which all fall in one set of the 8-way L1 (32 KiB) and in four
 * of the 8-way L2 (512 KiB): a square of 32 needs 64 such lines, one of
 * 16 needs 32, which L2 holds. Same host (2026-12-06), `CLGPU_TUNING=
 * block=32|16|8 clgpu-bench run --ops strided_copy_transposed,
 * elementwise_transposed --types float --sizes 16M`, medians of 7, two
 * rounds alternating: POCL copy 21.6-21.7 ms at 32, 16.0-16.7 at 16,
 * 25.6 at 8; elementwise 21.3-21.6, 15.9-16.2, 27.4; Intel's CPU runtime
 * copy 27.1-27.3, 17.0-17.5, 17.6; elementwise 26.8-27.4, 17.3-17.7,
 * 17.4. (On the 48 KiB 12-way L1 of the other host, 16 was no faster than
 * 32: the `block` comment above.)
 *
 * AMD processors, a blocked work-item's 16 columns of bands over 256
 * rows, sixteen bands one after another (blocked_rows, blocked_columns)
 * rather than one band down the whole tile dimension: in a 4096 x 4096
 * transpose each row of the contiguous arrays is a page of its own, and
 * a band down all 4096 rows met 4096 pages for 16 elements each, more
 * than the second-level TLB holds; sixteen bands over 256 rows meet the
 * same 256 pages sixteen times. Same host (2026-12-06), the transposed
 * float copy (`clgpu_copy` from a transposed 4096 x 4096 view) and
 * `clgpu_axpby` with x transposed, two contexts in one process under
 * `CLGPU_TUNING=block=16` and `block=16,blocked_rows=R,blocked_columns=C`,
 * calls alternating, median of 15 per-call ratios: POCL at 256/256 copy
 * 0.785, axpby 0.579 (a sweep of R 64-512 and C 256-2048: 64 rows 1.08-
 * 1.11 for the copy, every R from 128 0.74-0.85 up to C 1024); Intel's
 * CPU runtime copy 0.766, axpby 0.782. In squares of 32 it changed
 * nothing on POCL (1.00-1.02 copy, 0.99-1.08 axpby), and on rusticl (not
 * in this overlay: llvmpipe names no processor) it was slower (1.1 and
 * 1.6), so it stays with the squares of 16 here. */
typedef struct tuning_overlay {
  const char *name;
  cl_device_type types;
  const char *device_name;
  const char *values;
} tuning_overlay;

static const tuning_overlay overlays[] = {
    {"AMD processors", CL_DEVICE_TYPE_CPU, "AMD",
     "sort_stream_wide_floor=4194304,sort_lines_floor=16777216,block=16,blocked_rows=256,"
     "blocked_columns=256"},
};

void clgpu__tuning_for(const clgpu_device_info *info, clgpu__tuning *out) {
  *out = base_row;
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
    const tuning_class *c = &classes[i];
    if (!(info->type & c->types)) continue;
    if (c->platform && !strstr(info->platform_name, c->platform)) continue;
    /* The classes' texts are the library's own (clgpu__tuning_classes_parse
     * is tested): a failure here would leave the base row. */
    clgpu__tuning row = base_row;
    if (clgpu__tuning_apply(&row, c->values, "tuning table") == CLGPU_SUCCESS) {
      row.device_class = c->name;
      *out = row;
    }
    break;
  }
  for (size_t i = 0; i < sizeof overlays / sizeof overlays[0]; i++) {
    const tuning_overlay *o = &overlays[i];
    if (!(info->type & o->types) || !strstr(info->name, o->device_name)) continue;
    /* As for the classes: tested, and a failure leaves the row as it was. */
    clgpu__tuning row = *out;
    if (clgpu__tuning_apply(&row, o->values, "tuning table") == CLGPU_SUCCESS) *out = row;
  }
}

int clgpu__tuning_classes_parse(void) {
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
    clgpu__tuning row = base_row;
    if (clgpu__tuning_apply(&row, classes[i].values, classes[i].name) != CLGPU_SUCCESS) return 0;
  }
  for (size_t i = 0; i < sizeof overlays / sizeof overlays[0]; i++) {
    clgpu__tuning row = base_row;
    if (clgpu__tuning_apply(&row, overlays[i].values, overlays[i].name) != CLGPU_SUCCESS) return 0;
  }
  return 1;
}

/* ---- overrides (CLGPU_TUNING) ----
 *
 * Each field that may be overridden, with the values the kernels and plans
 * accept: a range, and whether it must be a power of two (group sizes,
 * which the kernels halve in their trees). The bounds are what the code
 * relies on, not what is fast: tile_items at most 32 (findall keeps a
 * tile's flags in a uint), chunk_unit a multiple of 64 (the CHUNKED vector
 * loop), sort_chunked_digit_max, sort_chunked_digit_max_values and
 * sort_stream_digit_max at most 11 (a CHUNKED radix pass keeps 12 bytes
 * per digit value in local memory, and 32 KiB is all rusticl and Oclgrind
 * have). */
typedef struct tuning_field {
  const char *name;
  size_t offset;
  int kind; /* 0 unsigned, 1 uint64_t, 2 size_t */
  uint64_t low, high;
  int power_of_two;
  uint64_t multiple_of; /* 0: any */
} tuning_field;

#define FIELD(name, kind, low, high, pow2, multiple) \
  { #name, offsetof(clgpu__tuning, name), kind, low, high, pow2, multiple }

static const tuning_field fields[] = {
    FIELD(chunk_unit, 1, 64, 1u << 20, 0, 64),
    FIELD(chunk_minimum, 1, 64, (uint64_t)1 << 32, 0, 0),
    FIELD(chunked_chunks_per_unit, 0, 1, 1024, 0, 0),
    FIELD(tile_items, 0, 1, 32, 0, 0),
    FIELD(tiled_minimum_tiles, 0, 1, 1024, 0, 0),
    FIELD(tiled_group_cap, 2, 2, 1024, 1, 0),
    FIELD(tiled_chunks_per_unit, 0, 1, 1024, 0, 0),
    FIELD(tiled_chunks_cap, 1, 1, 1u << 20, 0, 0),
    FIELD(tiled_scan_totals_coalesced, 0, 0, 1, 0, 0),
    FIELD(tiled_step_barrier, 0, 0, 1, 0, 0),
    FIELD(tiled_slices, 0, 1, 64, 0, 0),
    FIELD(tiled_lane_runs, 0, 0, 1, 0, 0),
    FIELD(findall_vector_flags, 0, 0, 1, 0, 0),
    FIELD(findall_compress, 0, 0, 1, 0, 0),
    FIELD(findall_split_stores, 0, 0, 1, 0, 0),
    FIELD(aligned_vector_access, 0, 0, 1, 0, 0),
    FIELD(sort_single_chunk, 1, 1, (uint64_t)1 << 24, 0, 0),
    FIELD(sort_single_chunk_values, 1, 1, (uint64_t)1 << 24, 0, 0),
    FIELD(sort_summed_counts, 1, 0, (uint64_t)1 << 24, 0, 0),
    FIELD(sort_chunk_minimum, 1, 1, (uint64_t)1 << 32, 0, 0),
    FIELD(sort_chunked_digit_max, 0, 1, 11, 0, 0),
    FIELD(sort_chunked_digit_max_values, 0, 1, 11, 0, 0),
    FIELD(sort_stream, 0, 0, 1, 0, 0),
    FIELD(sort_stream_digit_max, 0, 1, 11, 0, 0),
    FIELD(sort_stream_floor, 1, 0, (uint64_t)1 << 40, 0, 0),
    FIELD(sort_stream_wide_floor, 1, 0, (uint64_t)1 << 40, 0, 0),
    FIELD(sort_lines_floor, 1, 0, (uint64_t)1 << 40, 0, 0),
    FIELD(sort_pack_pairs, 1, 0, (uint64_t)1 << 40, 0, 0),
    FIELD(scan_stream_floor, 1, 0, (uint64_t)1 << 40, 0, 0),
    FIELD(radix_items, 0, 1, 64, 0, 0),
    FIELD(tiled_digit_max, 0, 4, 8, 0, 0),
    FIELD(sort_group_cap, 2, 32, 1024, 1, 0),
    FIELD(sort_single_tiles, 0, 1, 64, 0, 0),
    FIELD(merge_block, 0, 1, 256, 0, 0),
    FIELD(segmented_radix_mean, 1, 1, (uint64_t)1 << 40, 0, 0),
    FIELD(copy_kernel_floor, 1, 0, (uint64_t)1 << 40, 0, 0),
    FIELD(block, 0, 8, 1024, 0, 0),
    FIELD(blocking_floor, 1, 0, (uint64_t)1 << 32, 0, 0),
    FIELD(blocked_gather, 0, 0, 1, 0, 0),
    FIELD(blocked_rows, 1, 0, (uint64_t)1 << 32, 0, 0),
    FIELD(blocked_columns, 1, 0, (uint64_t)1 << 32, 0, 0),
    FIELD(group_bound_check, 0, 0, 1, 0, 0),
};

static const tuning_field *find_field(const char *name, size_t length) {
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    if (strlen(fields[i].name) == length && strncmp(fields[i].name, name, length) == 0) {
      return &fields[i];
    }
  }
  return NULL;
}

/* A decimal of digits only (at most 19, so it cannot wrap). */
static int read_decimal(const char *text, size_t length, uint64_t *out) {
  if (length == 0 || length > 19) return 0;
  uint64_t value = 0;
  for (size_t i = 0; i < length; i++) {
    if (text[i] < '0' || text[i] > '9') return 0;
    value = value * 10 + (uint64_t)(text[i] - '0');
  }
  *out = value;
  return 1;
}

static void store_field(clgpu__tuning *row, const tuning_field *f, uint64_t value) {
  char *at = (char *)row + f->offset;
  if (f->kind == 0) {
    unsigned v = (unsigned)value;
    memcpy(at, &v, sizeof v);
  } else if (f->kind == 1) {
    memcpy(at, &value, sizeof value);
  } else {
    size_t v = (size_t)value;
    memcpy(at, &v, sizeof v);
  }
}

clgpu_status clgpu__tuning_apply(clgpu__tuning *row, const char *text, const char *who) {
  if (!text || !*text) return CLGPU_SUCCESS;
  clgpu__tuning changed = *row;
  const char *at = text;
  for (;;) {
    const char *end = strchr(at, ',');
    size_t length = end ? (size_t)(end - at) : strlen(at);
    const char *equals = memchr(at, '=', length);
    const tuning_field *f = equals ? find_field(at, (size_t)(equals - at)) : NULL;
    uint64_t value = 0;
    if (!f) {
      char names[1024];
      size_t used = 0;
      names[0] = '\0';
      for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        int wrote =
            snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", fields[i].name);
        if (wrote < 0 || (size_t)wrote >= sizeof names - used) break;
        used += (size_t)wrote;
      }
      return clgpu__fail(CLGPU_INVALID_ARGUMENT,
                         "%s: the environment variable CLGPU_TUNING is \"%.80s\"%s: its part "
                         "\"%.*s\" is not NAME=VALUE with NAME one of %s (pairs separated by "
                         "commas)",
                         who, text, strlen(text) > 80 ? "..." : "",
                         (int)(length > 60 ? 60 : length), at, names);
    }
    size_t value_length = length - (size_t)(equals + 1 - at);
    int ok = read_decimal(equals + 1, value_length, &value) && value >= f->low &&
             value <= f->high && (!f->power_of_two || (value & (value - 1)) == 0) &&
             (!f->multiple_of || value % f->multiple_of == 0);
    if (!ok) {
      return clgpu__fail(CLGPU_INVALID_ARGUMENT,
                         "%s: the environment variable CLGPU_TUNING is \"%.80s\"%s: it sets "
                         "%s to \"%.*s\", and %s takes a decimal from %llu to %llu%s%s",
                         who, text, strlen(text) > 80 ? "..." : "", f->name,
                         (int)(value_length > 30 ? 30 : value_length), equals + 1, f->name,
                         (unsigned long long)f->low, (unsigned long long)f->high,
                         f->power_of_two ? ", a power of two" : "",
                         f->multiple_of == 64 ? ", a multiple of 64" : "");
    }
    store_field(&changed, f, value);
    if (!end) break;
    at = end + 1;
  }
  *row = changed;
  return CLGPU_SUCCESS;
}
