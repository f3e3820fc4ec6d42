/* clgpu-bench run's operations, options and plan (bench_plan.h). */
#include "bench_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bench_data.h"

/* The sizes of the default run (bits of op_info.default_sizes). */
static const size_t default_sizes[] = {(size_t)1 << 20, (size_t)16 << 20};
#define NUM_DEFAULT_SIZES (sizeof default_sizes / sizeof default_sizes[0])
#define SIZES_1M 1u
#define SIZES_16M 2u
/* Types by their index in bench_host_types (bits of op_info.default_types). */
#define TYPES_UINT32 1u
#define TYPES_FLOAT 2u
#define TYPES_ALL 0x1fu /* every entry of bench_host_types */

#define ALL_DEFAULT_TYPES (TYPES_UINT32 | TYPES_FLOAT)

const op_info bench_op_table[NUM_OPS] = {
    {"read", -1, BENCH_BOOST_NONE, "C read loop, all threads", 0, ALL_DEFAULT_TYPES, SIZES_16M,
     TYPES_ALL, 1, NULL, 0, NULL, 0},
    {"copy_kernel", -1, BENCH_BOOST_NONE, "memcpy", 0, ALL_DEFAULT_TYPES, SIZES_16M, TYPES_ALL, 1,
     NULL, 0, NULL, 0},
    {"reduce", OP_READ, BENCH_BOOST_REDUCE, "C loop, all threads", 0, ALL_DEFAULT_TYPES, SIZES_16M,
     TYPES_ALL, 1, NULL, 0, NULL, 0},
    {"count_if", OP_READ, BENCH_BOOST_COUNT_IF, "C loop, all threads", 0, ALL_DEFAULT_TYPES,
     SIZES_16M, TYPES_ALL, 1, NULL, 0, NULL, 0},
    {"scan", OP_COPY_KERNEL, BENCH_BOOST_INCLUSIVE_SCAN, "C loop, one thread", 0, ALL_DEFAULT_TYPES,
     SIZES_16M, TYPES_ALL, 1, NULL, 0, NULL, 0},
    {"findall", OP_READ, BENCH_BOOST_COPY_IF, "C loop, one thread", 0, ALL_DEFAULT_TYPES, SIZES_16M,
     TYPES_ALL, 1, NULL, 0, NULL, 0},
    {"copy", OP_COPY_KERNEL, BENCH_BOOST_COPY, "C loop, one thread", 0, ALL_DEFAULT_TYPES,
     SIZES_16M, TYPES_ALL, 1, NULL, 0, NULL, 0},
    {"copy_strided", OP_COPY_KERNEL, BENCH_BOOST_REVERSE_COPY, "C loop, one thread", 0,
     ALL_DEFAULT_TYPES, SIZES_16M, TYPES_ALL, 1, NULL, 0, NULL, 0},
    {"radix_sort", OP_COPY_KERNEL, BENCH_BOOST_SORT, "LSD radix, one thread", 1, ALL_DEFAULT_TYPES,
     SIZES_1M | SIZES_16M, TYPES_ALL, 1, NULL, 0, NULL, 1},
    {"sort_by_key", OP_COPY_KERNEL, BENCH_BOOST_SORT_BY_KEY, "LSD radix, one thread", 1,
     TYPES_UINT32, SIZES_1M | SIZES_16M, TYPES_ALL, 1, NULL, 0, NULL, 1},
    {"merge_sort", OP_COPY_KERNEL, BENCH_BOOST_SORT_COMPARE, "LSD radix, one thread", 1,
     TYPES_FLOAT, SIZES_1M | SIZES_16M, TYPES_ALL, 1, NULL, 0, NULL, 1},
    {"argsort", OP_COPY_KERNEL, BENCH_BOOST_ARGSORT, "LSD radix, one thread", 1, TYPES_UINT32,
     SIZES_1M, TYPES_ALL, 1, NULL, 0, NULL, 1},
    /* One kernel launch, but its C baseline takes 0.25-0.4 s a call at 1M on
     * one core (12 s at 16M, the haystack past the caches): by default at 1M
     * and one type, about 8 s of the default run on a 2-core POCL CPU device,
     * its first calls included. */
    {"lower_bound", OP_COPY_KERNEL, BENCH_BOOST_NONE, "C binary search, one thread", 0,
     TYPES_UINT32, SIZES_1M, TYPES_ALL, 1, NULL, 0, NULL, 1},
    /* One pass over the data and 1 KiB of counts: a share of the read kernel. */
    {"histogram", OP_READ, BENCH_BOOST_NONE, "C loop, one thread", 0, ALL_DEFAULT_TYPES, SIZES_16M,
     TYPES_ALL, 1, NULL, 0, NULL, 0},
    /* Over the data as values and uint32 keys in runs (mean length 8); only
     * when --ops names them. */
    {"reduce_by_key", OP_COPY_KERNEL, BENCH_BOOST_REDUCE_BY_KEY, "C loop, one thread", 0,
     ALL_DEFAULT_TYPES, SIZES_16M, TYPES_ALL, 0, NULL, 0, NULL, 0},
    {"scan_by_key", OP_COPY_KERNEL, BENCH_BOOST_NONE, "C loop, one thread", 0, ALL_DEFAULT_TYPES,
     SIZES_16M, TYPES_ALL, 0, NULL, 0, NULL, 0},
    /* The same keys alone (uint32 whatever the data's type); only when
     * --ops names it. */
    {"unique", OP_COPY_KERNEL, BENCH_BOOST_UNIQUE, "C loop, one thread", 0, TYPES_UINT32, SIZES_16M,
     TYPES_UINT32, 0, NULL, 0, NULL, 0},
    /* Keys sorted within segments of 16 (a sort: refilled before each call,
     * Melem/s, fewer calls at SORT_LARGE), at the sizes and types of
     * radix_sort, whose row in the same run it is a share of; only when
     * --ops names it. */
    {"segmented_sort", OP_COPY_KERNEL, BENCH_BOOST_SEGMENTED_SORT,
     "insertion sort per segment, one thread", 1, ALL_DEFAULT_TYPES, SIZES_1M | SIZES_16M,
     TYPES_ALL, 0, NULL, 0, NULL, 1},
    /* findall's data and predicate, every element written: a share of the
     * copy kernel; only when --ops names it. */
    {"partition", OP_COPY_KERNEL, BENCH_BOOST_STABLE_PARTITION, "C loop, one thread", 0,
     ALL_DEFAULT_TYPES, SIZES_16M, TYPES_ALL, 0, NULL, 0, NULL, 0},
    /* Timed beside a peer (with them the default run takes about 40 s on a
     * 2-core POCL CPU device, against 30 s without). */
    {"elementwise", OP_COPY_KERNEL, BENCH_BOOST_NONE, "C loop, one thread", 0, ALL_DEFAULT_TYPES,
     SIZES_16M, TYPES_ALL, 1, NULL, 0, "hand-written kernel", 0},
    {"elementwise_strided", OP_COPY_KERNEL, BENCH_BOOST_NONE, "C loop, one thread", 0, TYPES_FLOAT,
     SIZES_16M, TYPES_FLOAT | TYPES_UINT32, 1, NULL, 1, "contiguous y = x * x", 0},
    {"elementwise_transposed", OP_COPY_KERNEL, BENCH_BOOST_NONE, "C loop, one thread", 0,
     TYPES_FLOAT, SIZES_16M, TYPES_FLOAT | TYPES_UINT32, 1, NULL, 1, "contiguous y = x * x", 0},
    {"strided_copy", OP_COPY_KERNEL, BENCH_BOOST_NONE, "C loop, one thread", 0, TYPES_FLOAT,
     SIZES_16M, TYPES_FLOAT | TYPES_UINT32, 1, NULL, 0, "clEnqueueCopyBuffer", 0},
    {"strided_copy_transposed", OP_COPY_KERNEL, BENCH_BOOST_NONE, "C loop, one thread", 0,
     TYPES_FLOAT, SIZES_16M, TYPES_FLOAT | TYPES_UINT32, 1, "strided_copy", 1,
     "clEnqueueCopyBuffer", 0},
};

/* ---- options ---- */

static const char run_usage_text[] =
    "usage: clgpu-bench run [--ops LIST] [--types LIST] [--sizes LIST] [--repeat N]\n"
    "                       [--warmup N] [--shape auto|chunked|tiled]   \n"
    "                       [--format table|csv|json] [--quiet] [--no-boost] [--no-cpu]\n"
    "                       [--reference-shape auto|cpu|gpu] [--plot FILE.svg]\n"
    "                       [--first-call first|all] [--no-first-call]\n"
    "                       [--output FILE] [--max-time S]\n"
    "                       [--device SELECTOR | --all-devices]\n"
    "\n"
    "Time clgpu's operations on the default device (or --device's, or CLGPU_DEVICE's;\n"
    "with --all-devices on every device in turn) beside the device's own read and\n"
    "copy bandwidth, a CPU baseline and Boost.Compute.\n"
    "'clgpu-bench' alone runs this with its defaults (about 70 s on a 2-core CPU\n"
    "device, 20 s of them the first calls); 'clgpu-bench OPTIONS' is 'clgpu-bench run\n"
    "OPTIONS'.\n"
    "\n"
    "  --ops LIST        comma-separated, default all but reduce_by_key, scan_by_key,\n"
    "                    unique, segmented_sort and partition ('all': every one):\n"
    "                      reduce        SUM over the whole array\n"
    "                      count_if      elements where the predicate holds\n"
    "                      scan          inclusive SUM\n"
    "                      findall       indices (uint32) where the predicate holds\n"
    "                      copy          clgpu_copy of a contiguous view\n"
    "                      copy_strided  clgpu_copy of a reversed view (stride -1)\n"
    "                      radix_sort    clgpu_sort of the keys, algorithm radix\n"
    "                      sort_by_key   clgpu_sort, radix, carrying uint32 values\n"
    "                      merge_sort    clgpu_sort, algorithm merge, through the\n"
    "                                    comparator path (compare \"" SORT_COMPARE
    "\")\n"
    "                      argsort       clgpu_sort_permutation, radix, into uint32\n"
    "                      lower_bound   clgpu_lower_bound of n needles (the data) in the\n"
    "                                    data sorted, into uint32 positions\n"
    "                      histogram     clgpu_histogram_even into 256 uint32 counts, the\n"
    "                                    bins even over the data's whole range\n"
    "                      reduce_by_key clgpu_reduce_by_key, SUM of the data (the values)\n"
    "                                    per run of equal uint32 keys, into run keys,\n"
    "                                    sums and a uint64 count (not in the default)\n"
    "                      scan_by_key   clgpu_scan_by_key, inclusive SUM of the data\n"
    "                                    restarting at each run of keys (not in the\n"
    "                                    default)\n"
    "                      unique        clgpu_unique of reduce_by_key's uint32 keys\n"
    "                                    into run keys and a uint64 count (uint32\n"
    "                                    only; not in the default)\n"
    "                      segmented_sort  clgpu_segmented_sort, merge, of the keys in\n"
    "                                    segments of 16, uint32 offsets (not in the\n"
    "                                    default)\n"
    "                      partition     clgpu_partition by the predicate: the selected\n"
    "                                    elements, then the others, and a uint64 count\n"
    "                                    (not in the default)\n"
    "                      read          reference: a plain kernel reading every element\n"
    "                      copy_kernel   reference: a plain copy kernel\n"
    "                    and, each timed beside a peer:\n";

/* The rest of run's usage (one literal would pass the 4095 characters
 * that ISO C requires compilers to support). */
static const char run_usage_more[] =
    "                      elementwise   clgpu_elementwise y = a * x + z over contiguous\n"
    "                                    1-D arrays, beside a hand-written OpenCL kernel\n"
    "                                    doing the same (clCreateProgramWithSource)\n"
    "                      elementwise_strided  y = x * x over v = b[::2, :-1] of an\n"
    "                                    s x s array b (s = floor(sqrt(n))) into a\n"
    "                                    contiguous y, beside a contiguous y = x * x of\n"
    "                                    as many elements (float and uint32 only)\n"
    "                      elementwise_transposed  y = x * x with x the transpose of\n"
    "                                    an s x s array, beside the contiguous case\n"
    "                                    (float and uint32 only)\n"
    "                      strided_copy  clgpu_copy of x[::2] into a contiguous array\n"
    "                                    and (strided_copy_transposed, also selected\n"
    "                                    by strided_copy) of an s x s transpose, each\n"
    "                                    beside clEnqueueCopyBuffer of the same bytes\n"
    "                                    (float and uint32 only)\n"
    "                    Each of these is timed beside its peer in the same run, calls\n"
    "                    alternating (the table's second section: the ratios).\n"
    "                    The predicate selects about 10% of the uniformly random data:\n"
    "                    uint32 x < 429496730u, float x < 0.1f (data in [0, 1)), int32\n"
    "                    x < -1717986918, uint64 x < 1844674407370955162UL, double x < 0.1.\n"
    "                    Every operation's share of the read or copy kernel comes from\n"
    "                    that kernel run right before each of its calls, whatever --ops.\n"
    "                    The sorts sort a fresh copy of the data on every call (copied on\n"
    "                    the device before the call, not timed), with a workspace made\n"
    "                    once per type and size. lower_bound searches the data (n needles)\n"
    "                    in a copy sorted once per type and size on the host, beside a C\n"
    "                    binary search (std::lower_bound's loop) on one thread.\n"
    "                    reduce_by_key and scan_by_key take the data as values and\n"
    "                    uint32 keys in runs of 1 to 15 (mean 8; each run's key random\n"
    "                    and unlike the one before, the same for every call of a type\n"
    "                    and size), key equality bitwise, beside a C loop on one thread;\n"
    "                    unique takes those keys alone (uint32, whatever --types says),\n"
    "                    beside a C loop and Boost.Compute's unique_copy.\n"
    "                    histogram counts the data in 256 even bins over its whole range\n"
    "                    (integers: the type's minimum to maximum; float, double: [0, 1],\n"
    "                    the data in [0, 1)), with a workspace made once per type and\n"
    "                    size, beside a C loop of histogram.h's formula on one thread.\n"
    "                    segmented_sort sorts a fresh copy of the data (as the sorts) in\n"
    "                    n/16 segments of 16 keys, keys only, the n/16 + 1 uint32 offsets\n"
    "                    made once per type and size, beside an insertion sort of each\n"
    "                    segment on one thread and Boost.Compute's sort of (segment << 32\n"
    "                    | key) packed in a uint64 (32-bit keys only; packed before the\n"
    "                    calls); its x radix is its Melem/s over radix_sort's at the same\n"
    "                    type and size in the run (--ops segmented_sort,radix_sort).\n"
    "                    partition takes findall's data and predicate, beside a\n"
    "                    two-pass stable partition on one thread and Boost.Compute's\n"
    "                    stable_partition; its x findall is its Melem/s over findall's\n"
    "                    (--ops partition,findall).\n";

/* And the rest of the options. */
static const char run_usage_end[] =
    "  --types LIST      uint32, float, int32, uint64, double (default uint32,float;\n"
    "                    sort_by_key, argsort and lower_bound uint32, merge_sort float,\n"
    "                    the strided and transposed elementwise ops and copies float)\n"
    "  --sizes LIST      element counts, with suffix K (1024) or M (1048576) (default\n"
    "                    16M; radix_sort, sort_by_key, merge_sort and segmented_sort\n"
    "                    1M,16M; argsort and lower_bound 1M)\n"
    "                    For the 2-D ops (elementwise_strided, elementwise_transposed,\n"
    "                    strided_copy_transposed) a size n means an s x s array with\n"
    "                    s = floor(sqrt(n)): 16000000 is 4000x4000.\n"
    "  --repeat N        timed calls per figure (default 10; sorts and lower_bound of 4M\n"
    "                    elements or more 3, and the sorts' qsort and Boost.Compute\n"
    "                    baselines and lower_bound's C binary search 1)\n"
    "  --warmup N        untimed calls first (default 2; sorts and lower_bound of 4M\n"
    "                    elements or more 1; Boost.Compute gets at least 1, so that its\n"
    "                    kernel builds are never timed)\n"
    "  --shape S         clgpu's kernel shape: auto (default), chunked (the CPU shape)\n"
    "                    or tiled (the GPU shape), for every operation\n"
    "  --format F        table (default), csv or json (every figure, the device and\n"
    "                    the library version)\n"
    "  --quiet           no progress line on stderr (it is shown only on a terminal)\n"
    "  --no-boost        skip the Boost.Compute peer\n"
    "  --no-cpu          skip the CPU baseline\n"
    "  --reference-shape the shape of the read and copy kernels: auto (CPU shape on\n"
    "                    CPU devices, GPU shape elsewhere), cpu or gpu\n"
    "  --plot FILE.svg   also draw GB/s (the table's: bytes moved over the median wall\n"
    "                    time) as an SVG 1.1 file, written after the report: against\n"
    "                    n, log-log, one line with markers per operation and type; a\n"
    "                    run of one size gets a bar per operation and type instead,\n"
    "                    with min-max whiskers (bytes over the slowest and fastest\n"
    "                    call) and the read and copy kernels' GB/s as reference lines.\n"
    "                    The path is checked before measuring: one that cannot be\n"
    "                    written ends the run at once with exit status 2\n"
    "  --first-call WHICH time operations' first calls with a cold and a warm\n"
    "                    program cache (the table's last section; see below) at\n"
    "                    first: each operation at the first of its types in the run\n"
    "                    (the default without --types), or all: at every type (the\n"
    "                    default with --types)\n"
    "  --no-first-call   skip the first calls\n";

/* The options that choose the device or devices. */
static const char run_usage_devices[] =
    "  --device SELECTOR the device to run on, as CLGPU_DEVICE takes it (and in its\n"
    "                    place, for this run and the processes it starts): \"P:D\", a\n"
    "                    flat index, gpu, cpu, accelerator, or part of a platform or\n"
    "                    device name, case-insensitive (clgpu-bench devices lists\n"
    "                    them); one that matches no device is a usage error (exit\n"
    "                    status 2) before any work\n"
    "  --all-devices     run on every device clgpu-bench devices lists, one after\n"
    "                    the other, each in a child process of its own (this tool\n"
    "                    started again with CLGPU_DEVICE=P:D and the other options as\n"
    "                    given), then a summary with a column per device, as\n"
    "                    clgpu-bench compare prints it (GB/s or Melem/s and the\n"
    "                    shares of each device's read or copy kernel and limit).\n"
    "                    Table: each device's report under a line naming its index\n"
    "                    and name, then the summary; json: one document with a\n"
    "                    section per device (\"devices\": index, listing, status,\n"
    "                    exit_status, message and \"report\", run's JSON report) and\n"
    "                    the summary (\"summary\": compare's \"devices\" and \"results\");\n"
    "                    csv: one CSV, every device's rows after a device_index column\n"
    "                    (the rows are the summary). Not with --device or --plot; with\n"
    "                    --output the whole of it goes to the file; --max-time is\n"
    "                    each device's budget. Exit status 1 when a device failed\n"
    "                    (the others are still run)\n";

/* The options on the report's file and the run's time, and how calls are
 * timed. */
static const char run_usage_output[] =
    "  --output FILE     write the report (--format's) to FILE instead of stdout;\n"
    "                    FILE is opened before measuring (made if missing, emptied\n"
    "                    when the report comes): one that cannot be written ends the\n"
    "                    run at once with exit status 2\n"
    "  --max-time S      a budget of S seconds (a decimal number above 0) for the\n"
    "                    run's timed calls: each row gets as many as fit in its share\n"
    "                    of the time left (what remains of S since the run started,\n"
    "                    over the rows not yet measured, this one included), each\n"
    "                    call counted at the time its last warm-up call took (its\n"
    "                    first timed call with --warmup 0), at least 1 and at most\n"
    "                    what the row gets without --max-time (--repeat, or its\n"
    "                    default); its CPU baseline and Boost.Compute peer get no more\n"
    "                    timed calls than it, and the memory limits take 11 rounds\n"
    "                    whatever --repeat says. Warm-up calls and preparing data are\n"
    "                    not adapted, and the first calls come on top: add\n"
    "                    --no-first-call for a run that ends near S. The\n"
    "                    table gets a calls column; the JSON and CSV rows' repeat is\n"
    "                    the calls each row got\n"
    "\n"
    "Each call is timed by the wall clock from the call to the end of clFinish\n"
    "(the primary figure) and by the profiling event it returns, which covers only\n"
    "its last command; for the sorts, by the device's clock from a marker enqueued\n"
    "right before the call to the end of that event. Figures are the median over the\n"
    "repetitions, with min and max. Every result is checked once against the host\n"
    "(the sorts: in order, and the keys and values of a stable sort); a wrong one\n"
    "ends the run with exit status 1.\n";

/* The first calls' footnote. */
static const char run_usage_first_call[] =
    "\n"
    "First calls (the table's last section): each operation's first call (read and\n"
    "copy_kernel aside: they are not clgpu's) at n = 64K, or the operation's smallest\n"
    "size in the run where that is smaller (the 2-D ops: 256x256 from 64K), timed by\n"
    "the wall clock from the call to the end of clFinish, without a workspace (the\n"
    "call allocates what it needs; for the elementwise ops clgpu_elementwise_create\n"
    "is inside the time too). cold: in a new process (this tool, started again), a\n"
    "fresh context whose disk cache is an empty folder, so that its programs are\n"
    "built from source; warm: in a second new process, a fresh context over the same\n"
    "folder, so that they load from it; prebuilt: in a third new process over the same\n"
    "folder, after clgpu_prebuild_start replayed the record of the programs the first\n"
    "two used and clgpu_prebuild_wait returned (its time is shown beside the call's);\n"
    "steady: the median of --repeat later calls in the warm process, after --warmup\n"
    "untimed (at least one). The three processes'\n"
    "POCL_CACHE_DIR is an empty folder too: POCL's own kernel cache, which can make a\n"
    "build from source many times faster, holds only what the cold process put there,\n"
    "as on a program's first and second run on a new machine; other platforms' own\n"
    "compiler caches are as they are. Every first call and the last later call are\n"
    "checked against the host; the folders are removed afterwards. About 20 s of the\n"
    "default run on a 2-core CPU device (with --first-call all, 30 s).\n";

/* Split `text` at commas into `items` (pointers into `copy`); 0, or -1 for
 * an empty item or too many. */
static int split_list(const char *text, char *copy, size_t copy_size, char **items, size_t *count) {
  size_t length = strlen(text);
  if (length + 1 > copy_size) return -1;
  memcpy(copy, text, length + 1);
  *count = 0;
  char *start = copy;
  for (;;) {
    char *comma = strchr(start, ',');
    if (comma) *comma = '\0';
    if (*start == '\0' || *count == MAX_LIST) return -1;
    items[(*count)++] = start;
    if (!comma) return 0;
    start = comma + 1;
  }
}

/* The value of a list option (--ops, --types, --sizes) split as split_list
 * does: 0, or 2 after the usage error "NAME: malformed list" (printed). */
static int split_option_list(const bench_command *command, const bench_option *option,
                             const char *value, char *copy, size_t copy_size, char **items,
                             size_t *count) {
  if (split_list(value, copy, copy_size, items, count) == 0) return 0;
  return bench_usage_error(command, "%s: malformed list '%s'", option->name, value);
}

/* One item of --types or --sizes into *out: 0, or 2 after a usage error
 * (printed). */
typedef int (*list_item_parser)(const bench_command *command, const char *item, size_t *out);

/* A --types item: its index in bench_host_types. */
static int parse_type_item(const bench_command *command, const char *item, size_t *out) {
  size_t t = 0;
  while (t < NUM_HOST_TYPES && strcmp(item, bench_host_types[t].name) != 0) t++;
  if (t == NUM_HOST_TYPES) return bench_usage_error(command, "--types: unknown type '%s'", item);
  *out = t;
  return 0;
}

/* A --sizes item: an element count. */
static int parse_size_item(const bench_command *command, const char *item, size_t *out) {
  if (bench_parse_size(item, out) == 0) return 0;
  return bench_usage_error(
      command, "--sizes: '%s' is not an element count from 1 to 4G-1 (suffixes K, M, G)", item);
}

/* --types or --sizes: the list's items, each through `parse`, into
 * list[0..*count), each once (an item given twice runs once): 0, or 2 after
 * a usage error (printed). */
static int parse_list_option(const bench_command *command, const bench_option *option,
                             const char *value, list_item_parser parse, size_t *list,
                             size_t *count) {
  char copy[1024];
  char *items[MAX_LIST];
  size_t num_items = 0;
  int failed = split_option_list(command, option, value, copy, sizeof copy, items, &num_items);
  if (failed) return failed;
  *count = 0;
  for (size_t k = 0; k < num_items; k++) {
    size_t item = 0;
    failed = parse(command, items[k], &item);
    if (failed) return failed;
    int seen = 0;
    for (size_t s = 0; s < *count; s++) seen |= list[s] == item;
    if (!seen) list[(*count)++] = item;
  }
  return 0;
}

enum {
  RUN_QUIET,
  RUN_NO_BOOST,
  RUN_NO_CPU,
  RUN_NO_FIRST_CALL,
  RUN_OPS,
  RUN_TYPES,
  RUN_SIZES,
  RUN_REPEAT,
  RUN_WARMUP,
  RUN_SHAPE,
  RUN_FORMAT,
  RUN_REFERENCE_SHAPE,
  RUN_PLOT,
  RUN_FIRST_CALL,
  RUN_OUTPUT,
  RUN_MAX_TIME,
  RUN_DEVICE,
  RUN_ALL_DEVICES,
  RUN_SUMMARY_CSV
};

static const bench_option run_option_table[] = {
    {"--quiet", "-q", NULL, 0, RUN_QUIET},
    {"--no-boost", NULL, NULL, 0, RUN_NO_BOOST},
    {"--no-cpu", NULL, NULL, 0, RUN_NO_CPU},
    {"--no-first-call", NULL, NULL, 0, RUN_NO_FIRST_CALL},
    {"--ops", NULL, "a value", 0, RUN_OPS},
    {"--types", NULL, "a value", 0, RUN_TYPES},
    {"--sizes", NULL, "a value", 0, RUN_SIZES},
    {"--repeat", NULL, "a value", 0, RUN_REPEAT},
    {"--warmup", NULL, "a value", 0, RUN_WARMUP},
    {"--shape", NULL, "a value", 0, RUN_SHAPE},
    {"--format", NULL, "a value", 0, RUN_FORMAT},
    {"--reference-shape", NULL, "a value", 0, RUN_REFERENCE_SHAPE},
    {"--plot", NULL, "a value", 0, RUN_PLOT},
    {"--first-call", NULL, "a value", 0, RUN_FIRST_CALL},
    {"--output", NULL, "a value", 0, RUN_OUTPUT},
    {"--max-time", NULL, "a value", 0, RUN_MAX_TIME},
    BENCH_DEVICE_OPTION(RUN_DEVICE),
    {"--all-devices", NULL, NULL, 0, RUN_ALL_DEVICES},
    {"--summary-csv", NULL, "a file name", 1, RUN_SUMMARY_CSV},
};

static const char *const run_help[] = {
    run_usage_text,   run_usage_more,       run_usage_end, run_usage_devices,
    run_usage_output, run_usage_first_call, NULL};

const bench_command bench_run_command = BENCH_SUBCOMMAND("run", run_option_table, 1, 0, run_help);

/* One of run's options into *state (a run_options). */
static int run_option(const bench_command *command, void *state, const bench_option *option,
                      const char *value) {
  run_options *options = state;
  switch (option->id) {
    case RUN_QUIET:
      options->quiet = 1;
      break;
    case RUN_NO_BOOST:
      options->no_boost = 1;
      break;
    case RUN_NO_CPU:
      options->no_cpu = 1;
      break;
    case RUN_NO_FIRST_CALL:
      options->first_call = FIRST_CALL_OFF;
      break;
    case RUN_OPS: {
      char copy[1024];
      char *items[MAX_LIST];
      size_t count = 0;
      int failed = split_option_list(command, option, value, copy, sizeof copy, items, &count);
      if (failed) return failed;
      for (int op = 0; op < NUM_OPS; op++) options->ops[op] = 0;
      for (size_t k = 0; k < count; k++) {
        int all = strcmp(items[k], "all") == 0, found = all;
        for (int op = 0; op < NUM_OPS; op++) {
          if (all || strcmp(items[k], bench_op_table[op].name) == 0 ||
              (bench_op_table[op].select && strcmp(items[k], bench_op_table[op].select) == 0)) {
            options->ops[op] = 1;
            found = 1;
          }
        }
        if (!found) return bench_usage_error(command, "--ops: unknown operation '%s'", items[k]);
      }
      break;
    }
    case RUN_TYPES:
      options->types_given = 1;
      return parse_list_option(command, option, value, parse_type_item, options->types,
                               &options->num_types);
    case RUN_SIZES:
      options->sizes_given = 1;
      return parse_list_option(command, option, value, parse_size_item, options->sizes,
                               &options->num_sizes);
    case RUN_REPEAT:
      options->repeat_given = 1;
      return bench_option_count(command, option, value, 1, &options->repeat);
    case RUN_WARMUP:
      options->warmup_given = 1;
      return bench_option_count(command, option, value, 0, &options->warmup);
    case RUN_SHAPE: {
      static const char *const names[] = {"auto", "chunked", "tiled"};
      static const clgpu_shape shapes[] = {CLGPU_SHAPE_AUTO, CLGPU_SHAPE_CHUNKED,
                                           CLGPU_SHAPE_TILED};
      int k = 0, failed = bench_option_choice(command, option, value, names, 3, &k);
      if (!failed) options->call_shape = shapes[k];
      return failed;
    }
    case RUN_FORMAT: {
      static const char *const names[] = {"table", "csv", "json"};
      int k = 0, failed = bench_option_choice(command, option, value, names, 3, &k);
      if (!failed) options->format = (output_format)k;
      return failed;
    }
    case RUN_REFERENCE_SHAPE: {
      static const char *const names[] = {"auto", "cpu", "gpu"};
      int k = 0, failed = bench_option_choice(command, option, value, names, 3, &k);
      if (!failed) options->shape = (reference_shape)k;
      return failed;
    }
    case RUN_PLOT:
      if (value[0] == '\0') return bench_usage_error(command, "--plot needs a file name");
      options->plot = value;
      break;
    case RUN_OUTPUT:
      if (value[0] == '\0') return bench_usage_error(command, "--output needs a file name");
      options->output = value;
      break;
    case RUN_MAX_TIME: {
      char *end = NULL;
      double seconds = strtod(value, &end);
      if (end == value || *end != '\0' || !(seconds > 0) || seconds > 86400) {
        return bench_usage_error(
            command, "--max-time: '%s' is not a number of seconds above 0 and up to 86400", value);
      }
      options->max_time_s = seconds;
      break;
    }
    case RUN_DEVICE:
      options->device = value;
      break;
    case RUN_ALL_DEVICES:
      options->all_devices = 1;
      break;
    case RUN_SUMMARY_CSV:
      options->summary_csv = value;
      break;
    default: { /* --first-call */
      static const char *const names[] = {"first", "all"};
      int k = 0, failed = bench_option_choice(command, option, value, names, 2, &k);
      if (!failed) options->first_call = k == 0 ? FIRST_CALL_FIRST : FIRST_CALL_ALL;
      return failed;
    }
  }
  return 0;
}

int bench_parse_run_options(int argc, char **argv, run_options *options) {
  memset(options, 0, sizeof *options);
  for (int op = 0; op < NUM_OPS; op++) options->ops[op] = bench_op_table[op].in_default;
  options->repeat = 10;
  options->warmup = 2;
  int parsed = bench_parse_options(&bench_run_command, argc, argv, run_option, options);
  if (parsed != 0) return parsed;
  if (options->first_call == FIRST_CALL_DEFAULT) {
    options->first_call = options->types_given ? FIRST_CALL_ALL : FIRST_CALL_FIRST;
  }
  /* Not given: the types and sizes that the requested operations default to,
   * in bench_host_types' order and in increasing size. */
  unsigned types = 0, sizes = 0;
  for (int op = 0; op < NUM_OPS; op++) {
    if (!options->ops[op]) continue;
    types |= bench_op_table[op].default_types;
    sizes |= bench_op_table[op].default_sizes;
  }
  if (!options->types_given) {
    for (size_t t = 0; t < NUM_HOST_TYPES; t++) {
      if (types & (1u << t)) options->types[options->num_types++] = t;
    }
  }
  if (!options->sizes_given) {
    for (size_t k = 0; k < NUM_DEFAULT_SIZES; k++) {
      if (sizes & (1u << k)) options->sizes[options->num_sizes++] = default_sizes[k];
    }
  }
  return 0;
}

/* The side of the 2-D ops' square array at n elements: floor(sqrt(n)). */
size_t bench_square_side(size_t n) {
  size_t s = (size_t)sqrt((double)n);
  while (s > 0 && s * s > n) s--;
  while ((s + 1) * (s + 1) <= n) s++;
  return s;
}

/* Whether `op` runs at bench_host_types[type_index] and n elements: requested, and
 * at a type and size it defaults to unless --types and --sizes were given. */
int bench_op_runs(const run_options *o, int op, size_t type_index, size_t n) {
  if (!o->ops[op]) return 0;
  if (!(bench_op_table[op].supported_types & (1u << type_index))) return 0;
  if (bench_op_table[op].two_d && bench_square_side(n) < 2)
    return 0; /* b[::2, :-1] would be empty */
  if (!o->types_given && !(bench_op_table[op].default_types & (1u << type_index))) return 0;
  if (o->sizes_given) return 1;
  for (size_t k = 0; k < NUM_DEFAULT_SIZES; k++) {
    if ((bench_op_table[op].default_sizes & (1u << k)) && default_sizes[k] == n) return 1;
  }
  return 0;
}

/* The calls of `op` at n elements: --repeat and --warmup, or for the sorts
 * and lower_bound at SORT_LARGE elements and more fewer unless given;
 * *baseline_repeat: the timed calls of the slow host baselines, the sorts'
 * qsort and lower_bound's C binary search (seconds each at 16M). */
void bench_op_calls(const run_options *o, int op, size_t n, int *repeat, int *warmup,
                    int *baseline_repeat) {
  *repeat = o->repeat;
  *warmup = o->warmup;
  *baseline_repeat = o->repeat;
  if (!bench_op_table[op].keys || n < SORT_LARGE) return;
  if (!o->repeat_given && *repeat > SORT_LARGE_REPEAT) *repeat = SORT_LARGE_REPEAT;
  if (!o->warmup_given && *warmup > SORT_LARGE_WARMUP) *warmup = SORT_LARGE_WARMUP;
  if (!o->repeat_given) *baseline_repeat = 1;
}

size_t bench_count_runs(const run_options *o) {
  size_t total = 0;
  for (size_t t = 0; t < o->num_types; t++) {
    for (size_t s = 0; s < o->num_sizes; s++) {
      for (int op = 0; op < NUM_OPS; op++)
        total += (size_t)bench_op_runs(o, op, o->types[t], o->sizes[s]);
    }
  }
  return total;
}

int bench_run_plan(int argc, char **argv, bench_plan_entry **entries, size_t *count) {
  *entries = NULL;
  *count = 0;
  run_options options;
  int parsed = bench_parse_run_options(argc, argv, &options);
  if (parsed != 0) return parsed;
  size_t total = bench_count_runs(&options);
  bench_plan_entry *out = calloc(total ? total : 1, sizeof *out);
  if (!out) {
    fprintf(stderr, "clgpu-bench: out of host memory\n");
    return 1;
  }
  size_t used = 0;
  for (size_t t = 0; t < options.num_types; t++) {
    for (size_t s = 0; s < options.num_sizes; s++) {
      for (int op = 0; op < NUM_OPS; op++) {
        size_t n = options.sizes[s];
        if (!bench_op_runs(&options, op, options.types[t], n)) continue;
        bench_plan_entry *e = &out[used++];
        e->op = bench_op_table[op].name;
        e->type = bench_host_types[options.types[t]].name;
        e->n = n;
        e->op_index = op;
        e->reference = bench_op_table[op].reference < 0;
        e->sort = bench_op_table[op].sort;
        e->keys = bench_op_table[op].keys;
        if (bench_op_table[op].two_d) {
          size_t side = bench_square_side(n);
          snprintf(e->shape, sizeof e->shape, "%zux%zu", side, side);
        } else {
          bench_size_label(n, e->shape, sizeof e->shape);
        }
      }
    }
  }
  *entries = out;
  *count = used;
  return 0;
}
