/* clgpu-bench run's output (bench_report.h): the table, CSV and JSON of the
 * rows and first calls, and the --plot hand-off to bench_plot.c. */
#include "bench_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cpu.h"
#include "bench_limit.h"
#include "bench_output.h"
#include "bench_plot.h"

/* ---- output ---- */

/* The figures of a row, derived once for every format. */
typedef struct row_figures {
  double wall_gbps, event_gbps, melems, share, cpu_gbps, vs_cpu, boost_gbps, vs_boost;
  double qsort_gbps, vs_qsort;
  /* The ops with a peer: its GB/s, clgpu's median wall time over the
   * peer's (above 1: clgpu is slower), and clgpu's throughput relative to
   * the peer's (its inverse: the bytes are the same). */
  double peer_gbps, time_ratio, vs_peer;
  /* The row's limit (bench_row_limit): its GB/s, the row's share of it, and
   * which measurement it is. */
  double limit_gbps, limit_share;
  const char *limit_source;
} row_figures;

static row_figures figures_of(const result *r) {
  row_figures f;
  f.wall_gbps = bench_gbps(r->bytes, &r->wall);
  f.event_gbps = bench_gbps(r->bytes, &r->event);
  f.melems = r->wall.valid ? (double)r->elements / (r->wall.median * 1e-3) / 1e6 : NAN;
  f.share = f.wall_gbps / r->reference_gbps;
  f.cpu_gbps = bench_gbps(r->bytes, &r->cpu);
  f.vs_cpu = f.wall_gbps / f.cpu_gbps;
  f.boost_gbps = bench_gbps(r->bytes, &r->boost);
  f.vs_boost = f.wall_gbps / f.boost_gbps;
  f.qsort_gbps = bench_gbps(r->bytes, &r->qsort);
  f.vs_qsort = f.wall_gbps / f.qsort_gbps;
  f.peer_gbps = bench_gbps(r->bytes, &r->peer_wall);
  f.time_ratio = r->wall.valid && r->peer_wall.valid && r->peer_wall.median > 0
                     ? r->wall.median / r->peer_wall.median
                     : NAN;
  f.vs_peer = f.wall_gbps / f.peer_gbps;
  /* The read and copy kernels' own rows are their own kernel figure. */
  double kernel = bench_op_table[r->op].reference >= 0 ? r->reference_gbps : f.wall_gbps;
  f.limit_gbps = bench_row_limit(r, kernel, &f.limit_source);
  f.limit_share = f.wall_gbps / f.limit_gbps;
  return f;
}

/* What a row's event figure covers (csv and json). */
static const char *event_covers(const result *r) {
  return bench_op_table[r->op].sort ? "marker_to_last_command" : "last_command";
}

/* The counters of a row's elementwise kernel object, as every format
 * prints them; op_*: the runs of the operation's own calls, by kernel. */
typedef struct kernel_counters {
  /* The programs the kernel object has run: the plain 1-D kernel's, one per
   * specialised layout, and the generic kernel's (each one program of the
   * context's cache, built or loaded at its first call). */
  unsigned long long programs;
  unsigned long long specialisations, variants_held, evictions, staged_inputs;
  unsigned long long contiguous_runs, specialised_runs, generic_runs;
  unsigned long long op_contiguous_runs, op_specialised_runs, op_generic_runs;
} kernel_counters;

static kernel_counters counters_of(const result *r) {
  const clgpu_elementwise_stats *st = &r->kernel_stats;
  kernel_counters c;
  c.programs = (st->contiguous_runs > 0) + st->specialisations + (st->generic_runs > 0);
  c.specialisations = st->specialisations;
  c.variants_held = st->variants_held;
  c.evictions = st->evictions;
  c.staged_inputs = st->staged_inputs;
  c.contiguous_runs = st->contiguous_runs;
  c.specialised_runs = st->specialised_runs;
  c.generic_runs = st->generic_runs;
  c.op_contiguous_runs = r->op_contiguous_runs;
  c.op_specialised_runs = r->op_specialised_runs;
  c.op_generic_runs = r->op_generic_runs;
  return c;
}

/* The memory limits of each type and size of the run, from the first row
 * of each case (every row of a case holds the same figures), and which of
 * them bound each kind of traffic. */
static void print_limits_table(const run_report *report) {
  int any = 0;
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    if (!r->limits.measured) continue;
    if (k > 0 && report->rows[k - 1].limits.measured && report->rows[k - 1].type == r->type &&
        report->rows[k - 1].n == r->n)
      continue;
    if (!any) {
      printf(
          "\nMemory limits in GB/s (before each type and size's operations, in rounds of\n"
          "every figure in turn; median of %d rounds after %d; bytes as the read and copy\n"
          "kernels count them):\n",
          r->limits.calls, r->limits.warmup);
      printf("%-6s %5s %12s %16s %16s %11s %12s %12s  %s\n", "type", "n", "host memcpy",
             "host copy", "host read", "CopyBuffer", "read kernel", "copy kernel",
             "bound the device");
      any = 1;
    }
    const bench_limits *l = &r->limits;
    char n_label[32], memcpy_text[16], copy[24], read[24], buffer[16], copy_gbps[16], read_gbps[16],
        read_kernel[16], copy_kernel[16];
    bench_format_or_na(memcpy_text, sizeof memcpy_text, "%.2f", l->host_memcpy_gbps);
    bench_format_or_na(copy_gbps, sizeof copy_gbps, "%.2f", l->host_copy_gbps);
    bench_format_or_na(read_gbps, sizeof read_gbps, "%.2f", l->host_read_gbps);
    snprintf(copy, sizeof copy, "%s (%d thr)", copy_gbps, l->threads);
    snprintf(read, sizeof read, "%s (%d thr)", read_gbps, l->threads);
    bench_format_or_na(buffer, sizeof buffer, "%.2f", l->copy_buffer_gbps);
    bench_format_or_na(read_kernel, sizeof read_kernel, "%.2f", l->read_kernel_gbps);
    bench_format_or_na(copy_kernel, sizeof copy_kernel, "%.2f", l->copy_kernel_gbps);
    printf("%-6s %5s %12s %16s %16s %11s %12s %12s  %s\n", r->type->name,
           bench_size_label(r->n, n_label, sizeof n_label), memcpy_text, copy, read, buffer,
           read_kernel, copy_kernel, l->host_counts ? "all (a CPU device)" : "kernels, CopyBuffer");
  }
  if (any) {
    printf(
        "host memcpy: memcpy of n*size bytes on one thread; host copy: a share of them per\n"
        "thread; host read: a 64-bit sum of a share per thread (thr: threads, one per 256\n"
        "KiB at most, up to one per core); CopyBuffer: clEnqueueCopyBuffer to clFinish;\n"
        "read kernel, copy kernel: the references of %%ref, in the same rounds. A CPU\n"
        "device shares the host's memory, so the host figures bound it too; on other\n"
        "devices only the kernels and CopyBuffer count toward %%lim.\n");
  }
}

/* The ops timed beside a peer: the ratios, the views, the kernels. */
static void print_peer_table(const run_report *report, int name_width, int n_width) {
  int any = 0;
  for (size_t k = 0; k < report->num_rows; k++) any |= report->rows[k].has_peer;
  if (!any) return;
  printf(
      "\nBeside their peers in the same run (the peer's calls alternate with clgpu's; medians of\n"
      "the wall time from call to clFinish):\n");
  printf("%-*s %-6s %*s %-11s %22s %22s %8s %8s  %s\n", name_width, "op", "type", n_width, "n",
         "kernel", "clgpu ms (min-max)", "peer ms (min-max)", "t ratio", "thr rel", "peer");
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    if (!r->has_peer) continue;
    row_figures f = figures_of(r);
    char mine[64], theirs[64], ratio[16], relative[16];
    bench_timing_text(&r->wall, mine, sizeof mine);
    bench_timing_text(&r->peer_wall, theirs, sizeof theirs);
    bench_format_or_na(ratio, sizeof ratio, "%.3f", f.time_ratio);
    bench_format_or_na(relative, sizeof relative, "%.3f", f.vs_peer);
    printf("%-*s %-6s %*s %-11s %22s %22s %8s %8s  %s\n", name_width, bench_op_table[r->op].name,
           r->type->name, n_width, r->shape, r->algorithm, mine, theirs, ratio, relative,
           bench_op_table[r->op].peer);
    printf("    view: %s; %zu elements; peer: %s\n", r->layout, r->elements, r->peer_launch);
    if (r->has_elementwise) {
      kernel_counters c = counters_of(r);
      printf(
          "    kernel object: %llu programs: %llu layouts specialised (%llu held), %llu evicted; "
          "runs contiguous %llu, specialised %llu, generic %llu (clgpu's own calls: %llu, %llu, "
          "%llu)\n",
          c.programs, c.specialisations, c.variants_held, c.evictions, c.contiguous_runs,
          c.specialised_runs, c.generic_runs, c.op_contiguous_runs, c.op_specialised_runs,
          c.op_generic_runs);
    }
    if (r->has_cache) {
      printf(
          "    program cache over clgpu's calls: %llu built from source (%.0f ms), %llu from "
          "the disk cache, %llu memory hits\n",
          (unsigned long long)r->cache_builds, r->cache_build_ms,
          (unsigned long long)r->cache_disk_hits, (unsigned long long)r->cache_memory_hits);
    }
  }
  printf(
      "t ratio: clgpu's median wall time over the peer's (above 1: clgpu slower; elementwise's\n"
      "target is at most 1.10 against the hand-written kernel). thr rel: clgpu's throughput\n"
      "relative to the peer's over the same bytes (its inverse): for elementwise_strided and\n"
      "elementwise_transposed, the strided view's throughput relative to the contiguous case\n"
      "of as many elements. GB/s: elementwise 3*n*size (x, z read, y written); the others\n"
      "2*count*size (the view's elements read, as many written). kernel object: the programs\n"
      "the row's elementwise kernel object (made once per type and size, shared by clgpu's\n"
      "calls and, for the strided ops, the contiguous peer's) has run. program cache: the\n"
      "context's cache over clgpu's calls and a clgpu peer's (the first call builds or loads;\n"
      "the reference kernel and the hand kernel, built outside clgpu, are not counted).\n"
      "%%ref in the table above: of the copy kernel's GB/s, for all of these.\n");
}

/* The first calls of a row's operation and type, or NULL. */
static const first_call *first_call_of(const run_report *report, const result *r) {
  for (size_t k = 0; k < report->num_first_calls; k++) {
    const first_call *fc = &report->first_calls[k];
    if (fc->op == r->op && fc->type == r->type) return fc;
  }
  return NULL;
}

/* A first call's time over the steady calls' median; NaN when missing. */
static double over_steady(const first_call *fc, double ms) {
  return fc->warm.steady.valid && fc->warm.steady.median > 0 ? ms / fc->warm.steady.median : NAN;
}

/* A first call's cell: "ms (count, count_ms)", the programs it built or
 * loaded and their time, with 2 decimals (1 from 10 ms, none from 100 ms). */
static const char *first_call_text(double ms, uint64_t count, double count_ms, char *buffer,
                                   size_t size) {
  int digits = ms >= 100 ? 0 : ms >= 10 ? 1 : 2;
  snprintf(buffer, size, "%.*f (%llu, %.*f)", digits, ms, (unsigned long long)count, digits,
           count_ms);
  return buffer;
}

/* The first calls, cold and warm, beside the later calls. */
static void print_first_call_table(const run_report *report, int name_width) {
  if (report->num_first_calls == 0) return;
  const run_options *o = report->options;
  printf(
      "\nFirst calls (each operation's first call in a new process: with a cold program cache,\n"
      "built from source; with a warm one, loaded from the disk cache; wall time from the call\n"
      "to the end of clFinish):\n");
  int n_width = 7;
  printf("%-*s %-6s %*s %26s %28s %27s %24s %11s %11s %15s\n", name_width, "op", "type", n_width,
         "n", "cold ms (builds, build ms)", "warm ms (disk hits, load ms)",
         "prebuilt ms (programs, ms)", "steady ms (min-max)", "cold/steady", "warm/steady",
         "prebuilt/steady");
  for (size_t k = 0; k < report->num_first_calls; k++) {
    const first_call *fc = &report->first_calls[k];
    char cold[64], warm[64], prebuilt[64], steady[64], cold_ratio[24], warm_ratio[24],
        prebuilt_ratio[24];
    first_call_text(fc->cold.ms, fc->cold.stats.builds, fc->cold.stats.build_ms, cold, sizeof cold);
    first_call_text(fc->warm.ms, fc->warm.stats.disk_hits, fc->warm.stats.disk_load_ms, warm,
                    sizeof warm);
    first_call_text(fc->prebuilt.ms, fc->prebuilt.prebuild_programs, fc->prebuilt.prebuild_ms,
                    prebuilt, sizeof prebuilt);
    bench_timing_text(&fc->warm.steady, steady, sizeof steady);
    bench_format_or_na(cold_ratio, sizeof cold_ratio, "%.0fx", over_steady(fc, fc->cold.ms));
    bench_format_or_na(warm_ratio, sizeof warm_ratio, "%.1fx", over_steady(fc, fc->warm.ms));
    bench_format_or_na(prebuilt_ratio, sizeof prebuilt_ratio, "%.1fx",
                       over_steady(fc, fc->prebuilt.ms));
    printf("%-*s %-6s %*s %26s %28s %27s %24s %11s %11s %15s\n", name_width,
           bench_op_table[fc->op].name, fc->type->name, n_width, fc->shape, cold, warm, prebuilt,
           steady, cold_ratio, warm_ratio, prebuilt_ratio);
    if (fc->prebuilt.stats.builds || fc->prebuilt.stats.disk_hits) {
      printf(
          "    note: after the prebuild, the first call still built %llu programs and loaded "
          "%llu\n",
          (unsigned long long)fc->prebuilt.stats.builds,
          (unsigned long long)fc->prebuilt.stats.disk_hits);
    }
    /* What would make a row read otherwise: said under it. */
    if (fc->cold.stats.disk_hits || fc->warm.stats.builds) {
      printf(
          "    note: the cold call loaded %llu programs from the disk cache; the warm call "
          "built %llu from source\n",
          (unsigned long long)fc->cold.stats.disk_hits, (unsigned long long)fc->warm.stats.builds);
    }
    if (fc->warm.steady_builds || fc->warm.steady_disk_hits) {
      printf(
          "    the warm process's later calls: programs built from source %llu, loaded %llu; "
          "in the timed calls %llu (after %d untimed)\n",
          (unsigned long long)fc->warm.steady_builds, (unsigned long long)fc->warm.steady_disk_hits,
          (unsigned long long)fc->warm.timed_programs, fc->warm.steady_warmup);
    }
  }
  printf(
      "cold: the first call in a new process and a fresh context whose disk cache is an empty\n"
      "folder; builds, build ms: the programs its program cache built from source in the call\n"
      "and the time they took (the rest of the call includes creating kernels, the run, and\n"
      "writing the programs to the disk cache, which the cache's counters do not time). warm:\n"
      "the first call in a second new process, a fresh context over the same folder; disk\n"
      "hits, load ms: the programs it loaded from there. prebuilt: the first call in a third\n"
      "new process over the same folder, after clgpu_prebuild_start replayed the record of\n"
      "the programs the first two used and clgpu_prebuild_wait returned; programs, ms: how\n"
      "many it got and its wall time, which a program overlaps with its own start-up work.\n"
      "steady: the median of %d later calls in the warm process after %d untimed (the cold\n"
      "one makes them too, so that the folder holds what a first run leaves). cold/steady,\n"
      "warm/steady, prebuilt/steady: the first call over that median. n: 64K, or the\n"
      "operation's smallest size in the run where that is smaller; no workspace (the calls\n"
      "allocate what they need). The three processes share an empty POCL_CACHE_DIR, so that\n"
      "POCL's own kernel cache holds only what the cold one put there. Every first call and\n"
      "the last later call checked against the host.\n%s\n",
      o->repeat, o->warmup < 1 ? 1 : o->warmup,
      o->first_call == FIRST_CALL_ALL
          ? "Every type of the run (--first-call all, or --types given)."
          : "Each operation at the first of its types in the run (--first-call all: at each).");
}

/* lower_bound's rows beside the C binary search: its time, clgpu's speed-up
 * over it, and both in needles per second. */
static void print_search_table(const run_report *report) {
  printf(
      "lower_bound: the n values of the data (the needles, unsorted) searched in the data\n"
      "sorted once per type and size on the host, in sort.h's order (floats by their bits:\n"
      "-0 before +0, NaNs last), into uint32 positions, with a workspace made once per type\n"
      "and size. Melem/s: needles searched per second. CPU: the C binary search of\n"
      "std::lower_bound (a branch per step, comparing the keys' order images), one thread,\n"
      "over the same needles and haystack; x CPU its time over clgpu's. The device's\n"
      "positions and the C search's are checked once against the host's reference, the\n"
      "start of each needle's run of equal keys in the sorted data.\n");
  if (report->options->no_cpu) return;
  printf("\n%-12s %-6s %5s %24s %6s %11s %13s %10s\n", "search", "type", "n",
         "C bsearch ms (min-max)", "calls", "x C bsearch", "clgpu Mkeys/s", "C Mkeys/s");
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    if (r->op != OP_LOWER_BOUND) continue;
    row_figures f = figures_of(r);
    char n_label[32], baseline[64], ratio[16], mine[16], theirs[16];
    bench_timing_text(&r->cpu, baseline, sizeof baseline);
    bench_format_or_na(ratio, sizeof ratio, "%.2fx", f.vs_cpu);
    bench_format_or_na(mine, sizeof mine, "%.1f", f.melems);
    bench_format_or_na(theirs, sizeof theirs, "%.1f",
                       r->cpu.valid ? (double)r->elements / (r->cpu.median * 1e-3) / 1e6 : NAN);
    printf("%-12s %-6s %5s %24s %6d %11s %13s %10s\n", bench_op_table[r->op].name, r->type->name,
           bench_size_label(r->n, n_label, sizeof n_label), baseline, r->cpu_calls, ratio, mine,
           theirs);
  }
}

/* The operation a row's throughput is compared with in the same run:
 * plain scan for scan_by_key, one radix sort of the same keys for
 * segmented_sort, findall (the same data and predicate) for partition; -1
 * for the others. */
static int companion_of(int op) {
  switch (op) {
    case OP_SCAN_BY_KEY:
      return OP_SCAN;
    case OP_SEGMENTED_SORT:
      return OP_RADIX_SORT;
    case OP_PARTITION:
      return OP_FINDALL;
    default:
      return -1;
  }
}

/* A row's throughput over its companion's in the same run (companion_of,
 * at the same type and size): *gbps over their GB/s, *melems over their
 * Melem/s (elements per second, the inverse of their times' ratio). Both
 * NaN for rows without a companion and without its row. */
static void companion_ratios(const run_report *report, const result *r, double *gbps,
                             double *melems) {
  *gbps = *melems = NAN;
  int companion = companion_of(r->op);
  if (companion < 0) return;
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *other = &report->rows[k];
    if (other->op != companion || other->type != r->type || other->n != r->n) continue;
    row_figures mine = figures_of(r), theirs = figures_of(other);
    *gbps = mine.wall_gbps / theirs.wall_gbps;
    *melems = mine.melems / theirs.melems;
  }
}

/* The by-key ops' rows beside the C loop (and scan_by_key's beside plain
 * scan): the runs, the C loop's time, clgpu's speed-up over it, both in
 * keys per second, and the ratios to scan. */
static void print_by_key_table(const run_report *report) {
  printf(
      "reduce_by_key, scan_by_key: the data as values beside n uint32 keys in runs of 1 to\n"
      "%d equal keys (mean 8; each run's key random and unlike the one before, the same for\n"
      "every call of a type and size), key equality bitwise (key_equal NULL), SUM (scan_by_key\n"
      "inclusive), with a workspace made once per type and size; unique: those keys alone\n"
      "(uint32), into run keys and the count. GB/s: reduce_by_key n*(4 + size) read +\n"
      "runs*(4 + size) written + 8 (the count); scan_by_key n*(4 + size) read + n*size\n"
      "written; unique n*4 read + runs*4 + 8 written; %%ref: of the copy kernel. Mkeys/s:\n"
      "elements per second. C: one pass on one thread, a head where a key differs from the\n"
      "one before; x C its time over clgpu's. x scan: scan_by_key's GB/s, and its\n"
      "Melem/s, over plain scan's at the same type and size in this run (n/a without a\n"
      "scan row: --ops scan,scan_by_key).\n"
      "clgpu's, the C loop's and Boost.Compute's results are checked against the runs as\n"
      "generated: the count and run keys exactly, each run's sum or scan by the host\n"
      "(integers exactly, wrapping; floats within 1e-4, doubles 1e-10, of the run's\n"
      "absolute sum). Boost.Compute: reduce_by_key (plus, equal_to), unique_copy; it has\n"
      "no inclusive_scan_by_key. " BY_KEY_NO_PYOPENCL ".\n",
      BY_KEY_MAX_RUN);
  printf("\n%-13s %-6s %5s %9s %24s %6s %8s %13s %10s %11s %14s  %s\n", "by key", "type", "n",
         "runs", "C loop ms (min-max)", "calls", "x C", "clgpu Mkeys/s", "C Mkeys/s", "x scan GB/s",
         "x scan Melem/s", "peers");
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    if (!bench_op_by_key(r->op)) continue;
    row_figures f = figures_of(r);
    double over_scan_gbps = NAN, over_scan_melems = NAN;
    companion_ratios(report, r, &over_scan_gbps, &over_scan_melems);
    char n_label[32], baseline[64], ratio[16], mine[16], theirs[16], scan_gbps[16], scan_melems[16];
    if (r->cpu.valid) {
      bench_timing_text(&r->cpu, baseline, sizeof baseline);
    } else {
      snprintf(baseline, sizeof baseline, "n/a");
    }
    bench_format_or_na(ratio, sizeof ratio, "%.2fx", f.vs_cpu);
    bench_format_or_na(mine, sizeof mine, "%.1f", f.melems);
    bench_format_or_na(theirs, sizeof theirs, "%.1f",
                       r->cpu.valid ? (double)r->elements / (r->cpu.median * 1e-3) / 1e6 : NAN);
    bench_format_or_na(scan_gbps, sizeof scan_gbps, "%.2fx", over_scan_gbps);
    bench_format_or_na(scan_melems, sizeof scan_melems, "%.2fx", over_scan_melems);
    printf("%-13s %-6s %5s %9llu %24s %6d %8s %13s %10s %11s %14s  %s\n",
           bench_op_table[r->op].name, r->type->name,
           bench_size_label(r->n, n_label, sizeof n_label), (unsigned long long)r->runs, baseline,
           r->cpu_calls, ratio, mine, theirs, scan_gbps, scan_melems,
           r->boost.valid     ? r->boost_note
           : r->boost_note[0] ? r->boost_note
                              : "-");
  }
}

/* A row's C baseline in a table: "median (min-max)" or n/a; its speed in
 * Melem/s (elements per second). */
static void baseline_texts(const result *r, char *baseline, size_t baseline_size, char *melems,
                           size_t melems_size) {
  if (r->cpu.valid) {
    bench_timing_text(&r->cpu, baseline, baseline_size);
  } else {
    snprintf(baseline, baseline_size, "n/a");
  }
  bench_format_or_na(melems, melems_size, "%.1f",
                     r->cpu.valid ? (double)r->elements / (r->cpu.median * 1e-3) / 1e6 : NAN);
}

/* segmented_sort's rows beside the C insertion sort and radix_sort's row of
 * the same keys: the segments, the C sort's time, clgpu's speed-up over it,
 * both in keys per second, and the ratio to the radix sort. */
static void print_segmented_table(const run_report *report) {
  printf(
      "segmented_sort: the data, keys only, sorted within segments of %d keys (n/%d of them;\n"
      "the n/%d + 1 uint32 offsets made on the device once per type and size, not timed),\n"
      "clgpu_segmented_sort (merge: insertion-sorted blocks, merged within each segment)\n"
      "with a workspace made once per type and size; each call sorts a fresh copy of the\n"
      "data, as the sorts do. Mkeys/s: keys sorted per second; GB/s: n*size read + n*size\n"
      "written; %%ref: of the copy kernel. C: an insertion sort of each segment, out of\n"
      "place, on one thread (comparing the keys' order images); x C its time over clgpu's.\n"
      "x radix: segmented_sort's Mkeys/s over radix_sort's (one clgpu_sort, radix, of the\n"
      "same n keys) at the same type and size in this run (n/a without a radix_sort row:\n"
      "--ops segmented_sort,radix_sort); the goal at 16M keys (1M segments) is 0.50x or\n"
      "more. Boost.Compute has no segmented sort; its peer is its sort of uint64 keys\n"
      "segment << 32 | the key's order image (32-bit keys only), packed on the host once\n"
      "per type and size and copied on the device before each call (not timed), checked\n"
      "by segment and image. clgpu's and the C sort's keys are checked bit for bit against\n"
      "the host's reference, a qsort of each segment by (order image, index).\n",
      SEGMENT_KEYS, SEGMENT_KEYS, SEGMENT_KEYS);
  printf("\n%-14s %-6s %5s %9s %24s %6s %8s %13s %10s %8s  %s\n", "segmented", "type", "n",
         "segments", "C insertion ms (min-max)", "calls", "x C", "clgpu Mkeys/s", "C Mkeys/s",
         "x radix", "peers");
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    if (r->op != OP_SEGMENTED_SORT) continue;
    row_figures f = figures_of(r);
    double over_gbps = NAN, over_melems = NAN;
    companion_ratios(report, r, &over_gbps, &over_melems);
    char n_label[32], baseline[64], ratio[16], mine[16], theirs[16], radix[16];
    baseline_texts(r, baseline, sizeof baseline, theirs, sizeof theirs);
    bench_format_or_na(ratio, sizeof ratio, "%.2fx", f.vs_cpu);
    bench_format_or_na(mine, sizeof mine, "%.1f", f.melems);
    bench_format_or_na(radix, sizeof radix, "%.2fx", over_melems);
    printf("%-14s %-6s %5s %9llu %24s %6d %8s %13s %10s %8s  %s\n", bench_op_table[r->op].name,
           r->type->name, bench_size_label(r->n, n_label, sizeof n_label),
           (unsigned long long)r->segments, baseline, r->cpu_calls, ratio, mine, theirs, radix,
           r->boost_note[0] ? r->boost_note : "-");
  }
}

/* partition's rows beside the C loop and findall's row over the same data:
 * the selected count, the C loop's time, clgpu's speed-up over it, both in
 * elements per second, and the ratio to findall. */
static void print_partition_table(const run_report *report) {
  printf(
      "partition: findall's data and predicate (about 10%% selected), clgpu_partition into a\n"
      "second array, the selected elements then the others, each in their order, and the\n"
      "count into a uint64, with a workspace made once per type and size. GB/s: n*size read\n"
      "+ n*size written + 8 (the count); %%ref: of the copy kernel (findall's: of the read\n"
      "kernel). C: two passes on one thread (the selected counted, then each element to\n"
      "the next place of its side); x C its time over clgpu's. x findall: partition's\n"
      "Melem/s over findall's at the same type and size in this run (n/a without a\n"
      "findall row: --ops partition,findall). Boost.Compute: stable_partition, in place on\n"
      "a copy made before each call (not timed); it copies into a temporary vector and\n"
      "runs copy_if twice. clgpu's, the C loop's and Boost.Compute's results are checked\n"
      "against the host: the count, the selected elements in their order, then the\n"
      "others in theirs.\n");
  printf("\n%-10s %-6s %5s %9s %24s %6s %8s %13s %10s %9s  %s\n", "partition", "type", "n",
         "selected", "C loop ms (min-max)", "calls", "x C", "clgpu Melem/s", "C Melem/s",
         "x findall", "peers");
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    if (r->op != OP_PARTITION) continue;
    row_figures f = figures_of(r);
    double over_gbps = NAN, over_melems = NAN;
    companion_ratios(report, r, &over_gbps, &over_melems);
    char n_label[32], baseline[64], ratio[16], mine[16], theirs[16], findall[16];
    baseline_texts(r, baseline, sizeof baseline, theirs, sizeof theirs);
    bench_format_or_na(ratio, sizeof ratio, "%.2fx", f.vs_cpu);
    bench_format_or_na(mine, sizeof mine, "%.1f", f.melems);
    bench_format_or_na(findall, sizeof findall, "%.2fx", over_melems);
    printf("%-10s %-6s %5s %9llu %24s %6d %8s %13s %10s %9s  %s\n", bench_op_table[r->op].name,
           r->type->name, bench_size_label(r->n, n_label, sizeof n_label),
           (unsigned long long)r->selected, baseline, r->cpu_calls, ratio, mine, theirs, findall,
           r->boost_note[0] ? r->boost_note : "-");
  }
}

static void print_table(const run_report *report) {
  const clgpu_device_info *d = report->device;
  const run_options *o = report->options;
  char title[640];
  printf("%s\n", bench_device_title(d, title, sizeof title));
  printf("shape %s; %s%d timed calls after %d warm-up calls", clgpu_shape_name(o->call_shape),
         o->max_time_s > 0 ? "up to " : "", o->repeat, o->warmup);
  if (o->max_time_s > 0)
    printf(" (--max-time %g s: each row's in its calls column)", o->max_time_s);
  int sorts = 0, searches = 0, by_key = 0, segmented = 0, partition = 0;
  for (size_t k = 0; k < report->num_rows; k++) {
    searches |= report->rows[k].op == OP_LOWER_BOUND;
    by_key |= bench_op_by_key(report->rows[k].op);
    segmented |= report->rows[k].op == OP_SEGMENTED_SORT;
    partition |= report->rows[k].op == OP_PARTITION;
  }
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    /* segmented_sort has its own table (print_segmented_table). */
    sorts |= bench_op_table[r->op].sort && r->op != OP_SEGMENTED_SORT;
    if (r->planned_repeat != o->repeat || r->warmup != o->warmup) {
      printf(" (sorts and lower_bound of %zuM elements or more: %d after %d)", SORT_LARGE >> 20,
             r->planned_repeat, r->warmup);
      break;
    }
  }
  printf("; median (min-max) of the wall time from call to clFinish\n");
  printf("peers: CPU baseline %s; Boost.Compute %s%s\n",
         o->no_cpu ? "skipped (--no-cpu)" : "on the host", report->boost_built ? "" : "not built",
         !report->boost_built ? " (no boost/compute.hpp, or -Dboost_compute=disabled)"
         : o->no_boost        ? "skipped (--no-boost)"
                              : report->boost_version);
  int name_width = 12, n_width = 5;
  for (size_t k = 0; k < report->num_rows; k++) {
    int name = (int)strlen(bench_op_table[report->rows[k].op].name);
    int shape = (int)strlen(report->rows[k].shape);
    if (name > name_width) name_width = name;
    if (shape > n_width) n_width = shape;
  }
  /* --max-time: the timed calls each row got, in a last column. */
  const char *calls_header = o->max_time_s > 0 ? " | calls" : "";
  printf("\n%-*s %-6s %*s %-13s %24s %8s %7s %5s %5s %9s | %7s %6s | %7s %6s%s\n", name_width, "op",
         "type", n_width, "n", "algo", "wall ms: median (min-max)", "Melem/s", "GB/s", "%ref",
         "%lim", "event ms", "CPU GB/s", "x CPU", "Boost", "x Boost", calls_header);
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    row_figures f = figures_of(r);
    char wall[64], share[16], limit[16], event[24], cpu[16], vs_cpu[16], boost[16], vs_boost[16];
    bench_timing_text(&r->wall, wall, sizeof wall);
    if (bench_op_table[r->op].reference < 0) {
      snprintf(share, sizeof share, "ref");
    } else {
      bench_format_or_na(share, sizeof share, "%.0f%%", 100 * f.share);
    }
    bench_format_or_na(limit, sizeof limit, "%.0f%%", 100 * f.limit_share);
    bench_format_or_na(event, sizeof event, "%.3f", r->event.valid ? r->event.median : NAN);
    bench_format_or_na(cpu, sizeof cpu, "%.2f", f.cpu_gbps);
    bench_format_or_na(vs_cpu, sizeof vs_cpu, "%.2fx", f.vs_cpu);
    bench_format_or_na(boost, sizeof boost, "%.2f", f.boost_gbps);
    bench_format_or_na(vs_boost, sizeof vs_boost, "%.2fx", f.vs_boost);
    if (r->boost_note[0] && strncmp(r->boost_note, "wrong", 5) == 0) {
      snprintf(boost, sizeof boost, "WRONG");
    } else if (r->boost_note[0] && strncmp(r->boost_note, "failed", 6) == 0) {
      snprintf(boost, sizeof boost, "FAILED");
    }
    char calls[24] = "";
    if (o->max_time_s > 0) snprintf(calls, sizeof calls, " | %5d", r->repeat);
    printf("%-*s %-6s %*s %-13s %24s %8.0f %7.2f %5s %5s %9s | %8s %6s | %7s %6s%s\n", name_width,
           bench_op_table[r->op].name, r->type->name, n_width, r->shape, r->algorithm, wall,
           f.melems, f.wall_gbps, share, limit, event, cpu, vs_cpu, boost, vs_boost, calls);
  }
  printf(
      "\nGB/s: the bytes an operation must move over the median wall time (reduce, count_if,\n"
      "read: n*size read; findall: n*size read + 4 bytes per index written; histogram:\n"
      "n*size read + 256 uint32 counts written; scan, copy, copy_strided, copy_kernel:\n"
      "n*size read + n*size written; lower_bound: n*size needles read + 4 bytes per\n"
      "position written; the by-key ops, unique, segmented_sort, partition: below).\n"
      "%%ref: share of the read kernel's GB/s (reduce, count_if, findall, histogram) or the\n"
      "copy kernel's (scan, copy, copy_strided, lower_bound, the by-key ops, segmented_sort,\n"
      "partition) at the same type and size, the kernel timed right before each call of\n"
      "the operation (medians of both).\n"
      "%%lim: share of the limit of its kind of traffic at the same type and size, the\n"
      "fastest of: the read kernel, and on a CPU device the host's read on all threads\n"
      "(reduce, count_if, findall, histogram, read); the copy kernel, clEnqueueCopyBuffer,\n"
      "and on a CPU device the host's memcpy on one thread and on all (the others). The\n"
      "memory limits table below gives them; a row's limit is its %%ref kernel's figure\n"
      "times the fastest one's ratio to that kernel there, so that %%lim drifts no more\n"
      "than %%ref as the machine's speed changes during the run.\n"
      "event ms: the profiling event the call returns, which covers only its last command.\n"
      "CPU: a plain C loop over the same host data (reduce, count_if, read: up to %d\n"
      "threads, one per 64K elements; copy_kernel: memcpy; the others one thread).\n"
      "x CPU, x Boost: clgpu's GB/s over the peer's (above 1: clgpu is faster).\n"
      "Boost.Compute's peers: reduce, count_if, inclusive_scan, copy_if (writes the\n"
      "selected values, not indices; same byte count), copy, reverse_copy; n/a: none.\n"
      "lower_bound has no peer: Boost.Compute's lower_bound searches for one value (no\n"
      "form for many needles) and PyOpenCL has none. histogram has none: Boost.Compute\n"
      "has no histogram and PyOpenCL has none. histogram's bins: 256, even over the\n"
      "data's whole range (integers: the type's minimum to maximum; float, double: 0\n"
      "to 1, the data in [0, 1)), by histogram.h's formula; its C loop the same formula.\n"
      "reduce_by_key's peer: Boost.Compute's reduce_by_key; unique's its unique_copy;\n"
      "scan_by_key has none (Boost.Compute has no inclusive_scan_by_key); PyOpenCL has\n"
      "no by-key operations.\n"
      "segmented_sort's peer: Boost.Compute's sort of (segment, key) packed in a uint64\n"
      "(32-bit keys); partition's: its stable_partition.\n",
      bench_cpu_threads());
  int sort_peers = !o->no_cpu;
  for (size_t k = 0; k < report->num_rows; k++) sort_peers |= report->rows[k].boost.valid;
  if (sorts) {
    printf(
        "Sorts (radix_sort, sort_by_key, merge_sort, argsort): each call sorts a fresh copy of\n"
        "the data, copied on the device before the call and not timed, with a workspace made\n"
        "once per type and size. Melem/s: keys sorted per second. GB/s counts the keys (and\n"
        "uint32 values) read once and written once, n*(key + value bytes)*2 (argsort: keys\n"
        "read, the uint32 permutation written), whatever the passes really move. %%ref: of\n"
        "the copy kernel. event ms: the device's clock from a marker enqueued right before\n"
        "the call (the refill done) to the end of the sort's event: all its commands and the\n"
        "gaps between them. CPU: an LSD radix sort in C, one thread, 11-bit digits, a digit\n"
        "that every key shares skipped (sort_by_key and argsort: carrying uint32 values).\n"
        "Boost.Compute: sort, sort with the comparator " SORT_COMPARE
        " (merge_sort), sort_by_key;\n"
        "argsort: copy + iota + sort_by_key, all timed; checked without asking stability.\n"
        "Every sort is checked once on the host after its timed calls: in order, and the\n"
        "keys and values of a stable sort.\n");
  }
  if (sorts && sort_peers) {
    printf("\n%-12s %-6s %5s %22s %8s %22s %8s  %s\n", "sort", "type", "n",
           "LSD radix ms (min-max)", "x radix", "qsort ms (calls)", "x qsort",
           "Boost.Compute runs");
    for (size_t k = 0; k < report->num_rows; k++) {
      const result *r = &report->rows[k];
      if (!bench_op_table[r->op].sort || r->op == OP_SEGMENTED_SORT) continue;
      row_figures f = figures_of(r);
      char n_label[32], radix[64], vs_radix[16], quick[64], vs_quick[16];
      if (r->cpu.valid) {
        snprintf(radix, sizeof radix, "%.1f (%.1f-%.1f)", r->cpu.median, r->cpu.min, r->cpu.max);
      } else {
        snprintf(radix, sizeof radix, "n/a");
      }
      if (r->qsort.valid) {
        snprintf(quick, sizeof quick, "%.1f (%d)", r->qsort.median, r->qsort_calls);
      } else {
        snprintf(quick, sizeof quick, "n/a");
      }
      bench_format_or_na(vs_radix, sizeof vs_radix, "%.2fx", f.vs_cpu);
      bench_format_or_na(vs_quick, sizeof vs_quick, "%.2fx", f.vs_qsort);
      printf("%-12s %-6s %5s %22s %8s %22s %8s  %s\n", bench_op_table[r->op].name, r->type->name,
             bench_size_label(r->n, n_label, sizeof n_label), radix, vs_radix, quick, vs_quick,
             r->boost.valid ? r->boost_note : "-");
    }
  }
  if (searches) print_search_table(report);
  if (by_key) print_by_key_table(report);
  if (segmented) print_segmented_table(report);
  if (partition) print_partition_table(report);
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    if (strncmp(r->boost_note, "wrong", 5) == 0 || strncmp(r->boost_note, "failed", 6) == 0) {
      printf("Boost.Compute %s %s: %s\n", bench_op_table[r->op].name, r->type->name, r->boost_note);
    }
  }
  print_limits_table(report);
  print_peer_table(report, name_width, n_width);
  print_first_call_table(report, name_width);
}

/* The row's CPU baseline, or why it has none. */
static const char *cpu_label_of(const run_report *report, const result *r) {
  return report->options->no_cpu ? "--no-cpu" : bench_op_table[r->op].cpu_label;
}

/* Two CSV cells: ",GB/s ratio,Melem/s ratio" where `mine`, else empty. */
static void csv_ratios(int mine, double gbps, double melems) {
  putchar(',');
  bench_csv_number(stdout, mine ? gbps : NAN);
  putchar(',');
  bench_csv_number(stdout, mine ? melems : NAN);
}

static void print_csv(const run_report *report) {
  const clgpu_device_info *d = report->device;
  printf(
      BENCH_CSV_DEVICE_COLUMNS
      ",op,type,n,bytes,selected,"
      "algorithm,repeat,warmup,wall_ms_median,wall_ms_min,wall_ms_max,melem_per_s,gb_per_s,"
      "event_ms_median,event_ms_min,event_ms_max,event_gb_per_s,reference_op,reference_ms_median,"
      "reference_gb_per_s,"
      "share_of_reference,cpu_ms_median,cpu_ms_min,cpu_ms_max,cpu_gb_per_s,clgpu_over_cpu,"
      "boost_version,boost_ms_median,boost_ms_min,boost_ms_max,boost_gb_per_s,clgpu_over_boost,"
      "boost_note,event_covers,cpu_baseline,qsort_calls,qsort_ms_median,qsort_ms_min,"
      "qsort_ms_max,qsort_gb_per_s,clgpu_over_qsort,elements,shape,layout,peer,peer_launch,"
      "peer_ms_median,peer_ms_min,peer_ms_max,peer_event_ms_median,peer_gb_per_s,"
      "time_ratio_over_peer,throughput_relative_to_peer,kernel_programs,kernel_specialisations,"
      "kernel_variants_held,kernel_contiguous_runs,kernel_specialised_runs,kernel_generic_runs,"
      "op_contiguous_runs,op_specialised_runs,op_generic_runs,cache_builds,cache_build_ms,"
      "cache_disk_hits,cache_memory_hits,first_call_n,first_call_shape,first_call_cold_ms,"
      "first_call_cold_builds,first_call_cold_build_ms,first_call_warm_ms,"
      "first_call_warm_disk_hits,first_call_warm_load_ms,first_call_warm_builds,"
      "first_call_steady_ms_median,first_call_steady_calls,first_call_cold_over_steady,"
      "first_call_warm_over_steady,first_call_prebuilt_ms,first_call_prebuild_programs,"
      "first_call_prebuild_ms,first_call_prebuilt_over_steady,limit_source,limit_gb_per_s,"
      "share_of_limit,limit_threads,host_memcpy_gb_per_s,host_copy_gb_per_s,"
      "host_read_gb_per_s,copy_buffer_gb_per_s,limit_read_kernel_gb_per_s,"
      "limit_copy_kernel_gb_per_s,cpu_calls,runs,gb_per_s_relative_to_scan,"
      "melem_per_s_relative_to_scan,segments,gb_per_s_relative_to_radix_sort,"
      "melem_per_s_relative_to_radix_sort,gb_per_s_relative_to_findall,"
      "melem_per_s_relative_to_findall\n");
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    row_figures f = figures_of(r);
    bench_csv_device(stdout, d);
    printf(",%s,%s,%zu,%.0f,%llu,%s,%d,%d,", bench_op_table[r->op].name, r->type->name, r->n,
           r->bytes, (unsigned long long)r->selected, r->algorithm, r->repeat, r->warmup);
    const double numbers1[] = {r->wall.median,
                               r->wall.min,
                               r->wall.max,
                               f.melems,
                               f.wall_gbps,
                               r->event.valid ? r->event.median : NAN,
                               r->event.valid ? r->event.min : NAN,
                               r->event.valid ? r->event.max : NAN,
                               f.event_gbps};
    for (size_t i = 0; i < sizeof numbers1 / sizeof numbers1[0]; i++) {
      bench_csv_number(stdout, numbers1[i]);
      putchar(',');
    }
    printf("%s,", bench_op_table[r->op].reference >= 0
                      ? bench_op_table[bench_op_table[r->op].reference].name
                      : "");
    const double numbers2[] = {r->reference.valid ? r->reference.median : NAN,
                               r->reference_gbps,
                               f.share,
                               r->cpu.valid ? r->cpu.median : NAN,
                               r->cpu.valid ? r->cpu.min : NAN,
                               r->cpu.valid ? r->cpu.max : NAN,
                               f.cpu_gbps,
                               f.vs_cpu};
    for (size_t i = 0; i < sizeof numbers2 / sizeof numbers2[0]; i++) {
      bench_csv_number(stdout, numbers2[i]);
      putchar(',');
    }
    printf("%s,", report->boost_built ? report->boost_version : "");
    const double numbers3[] = {r->boost.valid ? r->boost.median : NAN,
                               r->boost.valid ? r->boost.min : NAN,
                               r->boost.valid ? r->boost.max : NAN, f.boost_gbps, f.vs_boost};
    for (size_t i = 0; i < sizeof numbers3 / sizeof numbers3[0]; i++) {
      bench_csv_number(stdout, numbers3[i]);
      putchar(',');
    }
    bench_csv_string(stdout, r->boost_note);
    printf(",%s,", event_covers(r));
    bench_csv_string(stdout, cpu_label_of(report, r));
    printf(",%d", r->qsort_calls);
    const double numbers4[] = {r->qsort.valid ? r->qsort.median : NAN,
                               r->qsort.valid ? r->qsort.min : NAN,
                               r->qsort.valid ? r->qsort.max : NAN, f.qsort_gbps, f.vs_qsort};
    for (size_t i = 0; i < sizeof numbers4 / sizeof numbers4[0]; i++) {
      putchar(',');
      bench_csv_number(stdout, numbers4[i]);
    }
    printf(",%zu,", r->elements);
    bench_csv_string(stdout, r->shape);
    putchar(',');
    bench_csv_string(stdout, r->layout);
    putchar(',');
    bench_csv_string(stdout, bench_op_table[r->op].peer ? bench_op_table[r->op].peer : "");
    putchar(',');
    bench_csv_string(stdout, r->peer_launch);
    const double numbers5[] = {r->peer_wall.valid ? r->peer_wall.median : NAN,
                               r->peer_wall.valid ? r->peer_wall.min : NAN,
                               r->peer_wall.valid ? r->peer_wall.max : NAN,
                               r->peer_event.valid ? r->peer_event.median : NAN,
                               f.peer_gbps,
                               f.time_ratio,
                               f.vs_peer};
    for (size_t i = 0; i < sizeof numbers5 / sizeof numbers5[0]; i++) {
      putchar(',');
      bench_csv_number(stdout, numbers5[i]);
    }
    if (r->has_elementwise) {
      kernel_counters c = counters_of(r);
      printf(",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu", c.programs, c.specialisations,
             c.variants_held, c.contiguous_runs, c.specialised_runs, c.generic_runs,
             c.op_contiguous_runs, c.op_specialised_runs, c.op_generic_runs);
    } else {
      printf(",,,,,,,,,");
    }
    if (r->has_cache) {
      printf(",%llu,%.6g,%llu,%llu", (unsigned long long)r->cache_builds, r->cache_build_ms,
             (unsigned long long)r->cache_disk_hits, (unsigned long long)r->cache_memory_hits);
    } else {
      printf(",,,,");
    }
    const first_call *fc = first_call_of(report, r);
    if (fc) {
      printf(",%zu,", fc->n);
      bench_csv_string(stdout, fc->shape);
      printf(",%.6g,%llu,%.6g,%.6g,%llu,%.6g,%llu,", fc->cold.ms,
             (unsigned long long)fc->cold.stats.builds, fc->cold.stats.build_ms, fc->warm.ms,
             (unsigned long long)fc->warm.stats.disk_hits, fc->warm.stats.disk_load_ms,
             (unsigned long long)fc->warm.stats.builds);
      bench_csv_number(stdout, fc->warm.steady.valid ? fc->warm.steady.median : NAN);
      printf(",%d,", fc->warm.steady_calls);
      bench_csv_number(stdout, over_steady(fc, fc->cold.ms));
      putchar(',');
      bench_csv_number(stdout, over_steady(fc, fc->warm.ms));
      printf(",%.6g,%llu,%.6g,", fc->prebuilt.ms,
             (unsigned long long)fc->prebuilt.prebuild_programs, fc->prebuilt.prebuild_ms);
      bench_csv_number(stdout, over_steady(fc, fc->prebuilt.ms));
    } else {
      printf(",,,,,,,,,,,,,,,,,");
    }
    putchar(',');
    bench_csv_string(stdout, f.limit_source);
    const double numbers6[] = {f.limit_gbps,
                               f.limit_share,
                               r->limits.measured ? r->limits.threads : NAN,
                               r->limits.host_memcpy_gbps,
                               r->limits.host_copy_gbps,
                               r->limits.host_read_gbps,
                               r->limits.copy_buffer_gbps,
                               r->limits.read_kernel_gbps,
                               r->limits.copy_kernel_gbps};
    for (size_t i = 0; i < sizeof numbers6 / sizeof numbers6[0]; i++) {
      putchar(',');
      bench_csv_number(stdout, numbers6[i]);
    }
    printf(",%d,", r->cpu_calls);
    if (bench_op_by_key(r->op)) printf("%llu", (unsigned long long)r->runs);
    /* The ratios to the companion under its columns (scan's, radix_sort's
     * or findall's), segmented_sort's segments between. */
    double over_gbps = NAN, over_melems = NAN;
    companion_ratios(report, r, &over_gbps, &over_melems);
    const int companion = companion_of(r->op);
    csv_ratios(companion == OP_SCAN, over_gbps, over_melems);
    putchar(',');
    if (r->op == OP_SEGMENTED_SORT) printf("%llu", (unsigned long long)r->segments);
    csv_ratios(companion == OP_RADIX_SORT, over_gbps, over_melems);
    csv_ratios(companion == OP_FINDALL, over_gbps, over_melems);
    putchar('\n');
  }
}

/* A baseline's GB/s and clgpu's over it, members of the baseline's JSON
 * object: "gb_per_s" and "clgpu_over_NAME". */
static void print_json_speed(FILE *out, const char *name, double gbps, double clgpu_over) {
  char key[32];
  snprintf(key, sizeof key, "clgpu_over_%s", name);
  bench_json_number_member(out, ", ", "gb_per_s", gbps);
  bench_json_number_member(out, ", ", key, clgpu_over);
}

/* A row's timed calls, each figure in their order: "samples": {"wall_ms":
 * [...], "event_ms": [...]} (an event without a time is null), or null. */
static void print_json_samples(FILE *out, const result *r) {
  fputs(",\n     \"samples\": ", out);
  if (!r->wall_samples || !r->event_samples) {
    fputs("null", out);
    return;
  }
  const double *lists[] = {r->wall_samples, r->event_samples};
  const char *names[] = {"wall_ms", "event_ms"};
  for (int l = 0; l < 2; l++) {
    fprintf(out, "%s\"%s\": [", l ? ", " : "{", names[l]);
    for (int k = 0; k < r->repeat; k++) {
      if (k) fputs(", ", out);
      bench_json_number(out, lists[l][k]);
    }
    fputc(']', out);
  }
  fputc('}', out);
}

static void print_json(const run_report *report) {
  const run_options *o = report->options;
  FILE *out = stdout;
  char timestamp[32];
  bench_json_report_start(out, "clgpu-bench run", report->device);
  fprintf(out, ",\n  \"schema_version\": %d, \"library_version_number\": %d",
          BENCH_RUN_SCHEMA_VERSION, clgpu_version_number());
  bench_utc_timestamp(report->started, timestamp, sizeof timestamp);
  bench_json_string_member(out, ",\n  ", "timestamp", timestamp[0] ? timestamp : NULL);
  bench_json_number_member(out, ", ", "elapsed_s", report->elapsed_s);
  bench_json_command_line(out, ",\n  ");
  bench_json_host(out, ",\n  ");
  fprintf(out,
          ",\n  \"shape\": \"%s\",\n  \"repeat\": %d,\n  \"warmup\": %d,\n"
          "  \"cpu_threads\": %d",
          clgpu_shape_name(o->call_shape), o->repeat, o->warmup, bench_cpu_threads());
  bench_json_number_member(out, ", ", "max_time_s", o->max_time_s > 0 ? o->max_time_s : NAN);
  bench_json_string_member(out, ",\n  ", "boost_compute",
                           report->boost_built ? report->boost_version : NULL);
  fputs(",\n  \"units\": {\"time\": \"ms\", \"throughput\": \"GB/s (1e9 bytes) and Melem/s\"},\n",
        out);
  fprintf(out,
          "  \"first_calls\": {\"selection\": \"%s\", \"max_n\": %zu, \"steady_calls\": %d, "
          "\"steady_warmup\": %d,\n    \"processes\": \"cold, then warm: a new process each, "
          "sharing an empty disk-cache folder and an empty POCL_CACHE_DIR\"},\n",
          o->first_call == FIRST_CALL_OFF   ? "off"
          : o->first_call == FIRST_CALL_ALL ? "all"
                                            : "first",
          FIRST_CALL_N, o->repeat, o->warmup < 1 ? 1 : o->warmup);
  fputs("  \"results\": [", out);
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    row_figures f = figures_of(r);
    int reference = bench_op_table[r->op].reference;
    fprintf(out, "%s\n    {\"op\": \"%s\", \"type\": \"%s\", \"n\": %zu, \"bytes\": %.0f, ",
            k ? "," : "", bench_op_table[r->op].name, r->type->name, r->n, r->bytes);
    fprintf(out, "\"selected\": %llu", (unsigned long long)r->selected);
    bench_json_string_member(out, ", ", "algorithm", r->algorithm);
    fprintf(out, ", \"repeat\": %d, \"warmup\": %d, \"event_covers\": \"%s\"", r->repeat, r->warmup,
            event_covers(r));
    fprintf(out, ", \"planned_repeat\": %d", r->planned_repeat);
    bench_json_timing(out, ",\n     ", "wall_ms", &r->wall);
    bench_json_number_member(out, ", ", "melem_per_s", f.melems);
    bench_json_number_member(out, ", ", "gb_per_s", f.wall_gbps);
    bench_json_timing(out, ",\n     ", "event_ms", &r->event);
    bench_json_number_member(out, ", ", "event_gb_per_s", f.event_gbps);
    print_json_samples(out, r);
    bench_json_string_member(out, ",\n     ", "reference_op",
                             reference >= 0 ? bench_op_table[reference].name : NULL);
    bench_json_timing(out, ", ", "reference_ms", &r->reference);
    bench_json_number_member(out, ", ", "reference_gb_per_s", r->reference_gbps);
    bench_json_number_member(out, ", ", "share_of_reference", f.share);
    fputs(",\n     \"limit\": ", out);
    bench_json_string_member(out, "{", "source", f.limit_source[0] ? f.limit_source : NULL);
    bench_json_number_member(out, ", ", "gb_per_s", f.limit_gbps);
    bench_json_number_member(out, ", ", "share", f.limit_share);
    bench_json_number_member(out, ", ", "threads", r->limits.measured ? r->limits.threads : NAN);
    bench_json_number_member(out, ", ", "host_memcpy_gb_per_s", r->limits.host_memcpy_gbps);
    bench_json_number_member(out, ", ", "host_copy_gb_per_s", r->limits.host_copy_gbps);
    bench_json_number_member(out, ", ", "host_read_gb_per_s", r->limits.host_read_gbps);
    bench_json_number_member(out, ", ", "copy_buffer_gb_per_s", r->limits.copy_buffer_gbps);
    bench_json_number_member(out, ", ", "read_kernel_gb_per_s", r->limits.read_kernel_gbps);
    bench_json_number_member(out, ", ", "copy_kernel_gb_per_s", r->limits.copy_kernel_gbps);
    fprintf(out, ", \"host_counts\": %s}", r->limits.host_counts ? "true" : "false");
    fputs(",\n     \"cpu\": ", out);
    bench_json_string_member(out, "{", "baseline", cpu_label_of(report, r));
    bench_json_timing(out, ", ", "ms", &r->cpu);
    fprintf(out, ", \"calls\": %d", r->cpu_calls);
    print_json_speed(out, "cpu", f.cpu_gbps, f.vs_cpu);
    fputs("},\n     \"qsort\": ", out);
    bench_json_timing(out, "{", "ms", &r->qsort);
    fprintf(out, ", \"calls\": %d", r->qsort_calls);
    print_json_speed(out, "qsort", f.qsort_gbps, f.vs_qsort);
    fputs("},\n     \"boost\": ", out);
    bench_json_timing(out, "{", "ms", &r->boost);
    print_json_speed(out, "boost", f.boost_gbps, f.vs_boost);
    bench_json_string_member(out, ", ", "note", r->boost_note);
    fputs("},\n     \"runs\": ", out);
    if (bench_op_by_key(r->op)) {
      fprintf(out, "%llu", (unsigned long long)r->runs);
    } else {
      fputs("null", out);
    }
    fputs(", \"segments\": ", out);
    if (r->op == OP_SEGMENTED_SORT) {
      fprintf(out, "%llu", (unsigned long long)r->segments);
    } else {
      fputs("null", out);
    }
    /* The ratios to the companion (companion_of): under its name, null
     * under the others'. */
    double over_gbps = NAN, over_melems = NAN;
    companion_ratios(report, r, &over_gbps, &over_melems);
    const int companions[] = {OP_SCAN, OP_RADIX_SORT, OP_FINDALL};
    for (size_t i = 0; i < sizeof companions / sizeof companions[0]; i++) {
      fprintf(out, ", \"relative_to_%s\": ", bench_op_table[companions[i]].name);
      if (companion_of(r->op) == companions[i]) {
        bench_json_number_member(out, "{", "gb_per_s", over_gbps);
        bench_json_number_member(out, ", ", "melem_per_s", over_melems);
        fputc('}', out);
      } else {
        fputs("null", out);
      }
    }
    fprintf(out, ",\n     \"elements\": %zu", r->elements);
    bench_json_string_member(out, ", ", "shape", r->shape);
    fputs(", \"peer\": ", out);
    if (r->has_peer) {
      bench_json_string_member(out, "{", "name", bench_op_table[r->op].peer);
      bench_json_string_member(out, ", ", "launch", r->peer_launch);
      bench_json_string_member(out, ", ", "layout", r->layout);
      bench_json_timing(out, ", ", "wall_ms", &r->peer_wall);
      bench_json_timing(out, ", ", "event_ms", &r->peer_event);
      bench_json_number_member(out, ", ", "gb_per_s", f.peer_gbps);
      bench_json_number_member(out, ", ", "time_ratio", f.time_ratio);
      bench_json_number_member(out, ", ", "throughput_relative", f.vs_peer);
      fputc('}', out);
    } else {
      fputs("null", out);
    }
    fputs(",\n     \"elementwise_kernel\": ", out);
    if (r->has_elementwise) {
      kernel_counters c = counters_of(r);
      fprintf(out,
              "{\"programs\": %llu, \"specialisations\": %llu, \"variants_held\": %llu, "
              "\"evictions\": %llu, "
              "\"contiguous_runs\": %llu, \"specialised_runs\": %llu, \"generic_runs\": %llu, "
              "\"staged_inputs\": %llu, \"op_runs\": {\"contiguous\": %llu, \"specialised\": "
              "%llu, \"generic\": %llu}}",
              c.programs, c.specialisations, c.variants_held, c.evictions, c.contiguous_runs,
              c.specialised_runs, c.generic_runs, c.staged_inputs, c.op_contiguous_runs,
              c.op_specialised_runs, c.op_generic_runs);
    } else {
      fputs("null", out);
    }
    fputs(", \"program_cache\": ", out);
    if (r->has_cache) {
      fprintf(out,
              "{\"builds\": %llu, \"build_ms\": %.6g, \"disk_hits\": %llu, "
              "\"memory_hits\": %llu}",
              (unsigned long long)r->cache_builds, r->cache_build_ms,
              (unsigned long long)r->cache_disk_hits, (unsigned long long)r->cache_memory_hits);
    } else {
      fputs("null", out);
    }
    fputs(",\n     \"first_call\": ", out);
    const first_call *fc = first_call_of(report, r);
    if (fc) {
      fprintf(out, "{\"n\": %zu", fc->n);
      bench_json_string_member(out, ", ", "shape", fc->shape);
      bench_json_number_member(out, ", ", "cold_ms", fc->cold.ms);
      fprintf(out, ", \"cold_builds\": %llu", (unsigned long long)fc->cold.stats.builds);
      bench_json_number_member(out, ", ", "cold_build_ms", fc->cold.stats.build_ms);
      fprintf(out, ", \"cold_disk_hits\": %llu, \"cold_disk_writes\": %llu",
              (unsigned long long)fc->cold.stats.disk_hits,
              (unsigned long long)fc->cold.stats.disk_writes);
      bench_json_number_member(out, ",\n      ", "warm_ms", fc->warm.ms);
      fprintf(out, ", \"warm_disk_hits\": %llu", (unsigned long long)fc->warm.stats.disk_hits);
      bench_json_number_member(out, ", ", "warm_load_ms", fc->warm.stats.disk_load_ms);
      fprintf(out, ", \"warm_builds\": %llu", (unsigned long long)fc->warm.stats.builds);
      bench_json_timing(out, ",\n      ", "steady_ms", &fc->warm.steady);
      fprintf(out,
              ", \"steady_calls\": %d, \"steady_warmup\": %d, \"steady_builds\": %llu, "
              "\"steady_disk_hits\": %llu, \"steady_timed_programs\": %llu",
              fc->warm.steady_calls, fc->warm.steady_warmup,
              (unsigned long long)fc->warm.steady_builds,
              (unsigned long long)fc->warm.steady_disk_hits,
              (unsigned long long)fc->warm.timed_programs);
      bench_json_number_member(out, ", ", "cold_over_steady", over_steady(fc, fc->cold.ms));
      bench_json_number_member(out, ", ", "warm_over_steady", over_steady(fc, fc->warm.ms));
      bench_json_number_member(out, ",\n      ", "prebuilt_ms", fc->prebuilt.ms);
      fprintf(out, ", \"prebuild_programs\": %llu",
              (unsigned long long)fc->prebuilt.prebuild_programs);
      bench_json_number_member(out, ", ", "prebuild_ms", fc->prebuilt.prebuild_ms);
      fprintf(out, ", \"prebuilt_builds\": %llu, \"prebuilt_disk_hits\": %llu",
              (unsigned long long)fc->prebuilt.stats.builds,
              (unsigned long long)fc->prebuilt.stats.disk_hits);
      bench_json_number_member(out, ", ", "prebuilt_over_steady", over_steady(fc, fc->prebuilt.ms));
      fputc('}', out);
    } else {
      fputs("null", out);
    }
    fputc('}', out);
  }
  fputs("\n  ]\n}\n", out);
}

void bench_print_report(const run_report *report) {
  switch (report->options->format) {
    case FORMAT_CSV:
      print_csv(report);
      break;
    case FORMAT_JSON:
      print_json(report);
      break;
    default:
      print_table(report);
      break;
  }
  fflush(stdout);
}

/* --plot of a run of one size: a bar per row (operation and type) in the
 * rows' order, coloured by operation, its GB/s with a whisker from the
 * slowest call's to the fastest's; and per type the read and copy kernels'
 * GB/s of the memory limits as reference lines. 0, or 1 after a failure
 * (printed). */
static int write_bar_plot(const run_report *report, const char *path) {
  bench_plot_bar *bars = calloc(report->num_rows, sizeof *bars);
  char(*labels)[64] = malloc(sizeof *labels * report->num_rows);
  if (!bars || !labels) {
    free(bars);
    free(labels);
    fprintf(stderr, "clgpu-bench run: out of host memory for the plot\n");
    return 1;
  }
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    snprintf(labels[k], sizeof labels[k], "%s %s", bench_op_table[r->op].name, r->type->name);
    bench_timing slowest = r->wall, fastest = r->wall;
    slowest.median = r->wall.max;
    fastest.median = r->wall.min;
    bars[k].label = labels[k];
    bars[k].value = figures_of(r).wall_gbps;
    bars[k].low = bench_gbps(r->bytes, &slowest);
    bars[k].high = bench_gbps(r->bytes, &fastest);
    bars[k].color = r->op;
  }
  /* The reference lines: each type's read and copy kernels, from the first
   * row of that type whose case measured them. */
  bench_plot_line lines[2 * NUM_HOST_TYPES];
  char line_labels[2 * NUM_HOST_TYPES][64];
  size_t num_lines = 0;
  for (size_t t = 0; t < NUM_HOST_TYPES; t++) {
    const result *r = NULL;
    for (size_t k = 0; k < report->num_rows && !r; k++) {
      const result *row = &report->rows[k];
      if (row->type == &bench_host_types[t] && row->limits.measured) r = row;
    }
    if (!r) continue;
    for (int copy = 0; copy < 2; copy++) {
      snprintf(line_labels[num_lines], sizeof line_labels[num_lines], "%s kernel GB/s (%s)",
               copy ? "copy" : "read", r->type->name);
      lines[num_lines].label = line_labels[num_lines];
      lines[num_lines].value = copy ? r->limits.copy_kernel_gbps : r->limits.read_kernel_gbps;
      lines[num_lines].color = copy ? 7 : 19; /* greys of the palette */
      lines[num_lines].style = 1 + copy + 2 * (int)(num_lines / 2);
      num_lines++;
    }
  }
  const clgpu_device_info *d = report->device;
  char title[640], subtitle[160], n_label[32];
  snprintf(subtitle, sizeof subtitle,
           "clgpu-bench run at n = %s: the table's GB/s, bytes moved over the median wall "
           "time; whiskers: the slowest and fastest call",
           bench_size_label(report->rows[0].n, n_label, sizeof n_label));
  bench_bar_plot plot = {0};
  plot.title = bench_device_title(d, title, sizeof title);
  plot.subtitle = subtitle;
  plot.y_label = "GB/s";
  plot.bars = bars;
  plot.num_bars = report->num_rows;
  plot.lines = lines;
  plot.num_lines = num_lines;
  int failed = bench_plot_write_bars_svg(path, &plot);
  if (failed) {
    fprintf(stderr, "clgpu-bench run: cannot write the plot to '%s': %s\n", path, strerror(errno));
  }
  free(bars);
  free(labels);
  return failed ? 1 : 0;
}

/* --plot: one series per (operation, type) in the rows' order, GB/s over n;
 * colour by operation, line and marker style by type; a run of one size as
 * bars (write_bar_plot). 0, or 1 after a failure (printed). */
int bench_write_plot(const run_report *report, const char *path) {
  int one_size = report->num_rows > 0;
  for (size_t k = 1; k < report->num_rows; k++) one_size &= report->rows[k].n == report->rows[0].n;
  if (one_size) return write_bar_plot(report, path);
  size_t rows = report->num_rows ? report->num_rows : 1;
  bench_plot_series *series = calloc(rows, sizeof *series);
  double *xs = malloc(sizeof(double) * rows);
  double *ys = malloc(sizeof(double) * rows);
  char(*labels)[64] = malloc(sizeof *labels * rows);
  if (!series || !xs || !ys || !labels) {
    free(series);
    free(xs);
    free(ys);
    free(labels);
    fprintf(stderr, "clgpu-bench run: out of host memory for the plot\n");
    return 1;
  }
  /* Each series' points are consecutive in xs and ys, in the rows' order. */
  size_t num_series = 0, used = 0;
  for (size_t k = 0; k < report->num_rows; k++) {
    const result *r = &report->rows[k];
    int seen = 0;
    for (size_t j = 0; j < k && !seen; j++) {
      seen = report->rows[j].op == r->op && report->rows[j].type == r->type;
    }
    if (seen) continue;
    bench_plot_series *line = &series[num_series];
    snprintf(labels[num_series], sizeof labels[num_series], "%s %s", bench_op_table[r->op].name,
             r->type->name);
    line->label = labels[num_series];
    line->x = xs + used;
    line->y = ys + used;
    line->color = r->op;
    line->style = (int)(r->type - bench_host_types);
    for (size_t j = k; j < report->num_rows; j++) {
      const result *p = &report->rows[j];
      if (p->op != r->op || p->type != r->type) continue;
      xs[used] = (double)p->n;
      ys[used] = figures_of(p).wall_gbps;
      used++;
      line->count++;
    }
    num_series++;
  }
  const clgpu_device_info *d = report->device;
  char title[640];
  bench_plot plot = {0};
  plot.title = bench_device_title(d, title, sizeof title);
  plot.subtitle = "clgpu-bench run: the table's GB/s, bytes moved over the median wall time";
  plot.x_label = "n (elements)";
  plot.y_label = "GB/s";
  plot.x_binary = 1;
  plot.series = series;
  plot.num_series = num_series;
  int failed = bench_plot_write_svg(path, &plot);
  if (failed) {
    fprintf(stderr, "clgpu-bench run: cannot write the plot to '%s': %s\n", path, strerror(errno));
  }
  free(series);
  free(xs);
  free(ys);
  free(labels);
  return failed ? 1 : 0;
}
