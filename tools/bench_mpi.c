/* clgpu-bench mpi (bench_mpi.h). The parent (no MPI of its own) runs one
 * mpirun per rank count of `clgpu-bench mpi --child ...`; rank 0 of each
 * prints one "mpi-row" line per operation and scaling, which the parent
 * reads back into one table. */
#include "bench_mpi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include <clgpu/clgpu.h>
#include <clgpu/mpi.h>

#include "bench_common.h"
#include "bench_options.h"

static const char *const mpi_help[] = {
    "usage: clgpu-bench mpi [--ranks LIST] [--size N] [--repeat R] [--ops LIST]\n"
    "                       [--mpirun PATH] [--device SELECTOR]\n\n",
    "Times the MPI component's distributed sort (uint32 keys), allreduce (float\n"
    "SUM) and scan (uint32 SUM, inclusive) on each rank count of --ranks (default\n"
    "1,2,4), one `mpirun --oversubscribe -np N` of this program each, at a fixed\n"
    "total size (strong scaling: --size elements over all ranks, default 4M) and a\n"
    "fixed size per rank (weak scaling: --size elements on every rank). Each row:\n"
    "the median over --repeat calls (default 5) of the slowest rank's time, split\n"
    "into the device's local work, the sort's splitter search, staging between\n"
    "device and host, and MPI (agreements and data), from clgpu_mpi_last_times;\n"
    "the single-rank library call on the same part (clgpu_sort, clgpu_reduce_read,\n"
    "clgpu_scan) beside it; the overhead over it at one rank; and the efficiency\n"
    "(strong: T1 / (N TN), weak: T1 / TN). Ranks on one machine share its cores,\n"
    "so there the overhead at one rank and the exchange's share are what the\n"
    "figures show; docs/mpi.md has the design's costs on many machines.\n"
    "--ops takes sort, allreduce and scan; --mpirun the launcher (default\n"
    "mpirun); as root the launcher gets --allow-run-as-root.\n\n",
    "--device SELECTOR chooses the device as CLGPU_DEVICE does, for every rank\n"
    "(clgpu-bench devices lists them).\n",
    NULL,
};

enum { OPT_RANKS, OPT_SIZE, OPT_REPEAT, OPT_OPS, OPT_MPIRUN, OPT_DEVICE, OPT_CHILD };

static const bench_option mpi_options[] = {
    {"--ranks", NULL, "a list", 1, OPT_RANKS},   {"--size", NULL, "a size", 1, OPT_SIZE},
    {"--repeat", NULL, "a count", 1, OPT_REPEAT}, {"--ops", NULL, "a list", 1, OPT_OPS},
    {"--mpirun", NULL, "a path", 1, OPT_MPIRUN},  BENCH_DEVICE_OPTION(OPT_DEVICE),
    {"--child", NULL, NULL, 0, OPT_CHILD},
};

static const bench_command mpi_command = BENCH_SUBCOMMAND("mpi", mpi_options, 1, 0, mpi_help);

enum { OP_SORT = 1, OP_ALLREDUCE = 2, OP_SCAN = 4 };
static const char *const op_names[] = {"sort", "allreduce", "scan"};

#define MAX_RANK_COUNTS 16

typedef struct mpi_settings {
  int ranks[MAX_RANK_COUNTS];
  int num_ranks;
  size_t size;
  int repeat;
  int ops;
  const char *mpirun;
  const char *device;
  int child;
} mpi_settings;

static int parse_list(const char *text, int *out, int max, int *count) {
  *count = 0;
  const char *p = text;
  while (*p) {
    char *end = NULL;
    long v = strtol(p, &end, 10);
    if (end == p || v < 1 || v > 4096 || *count >= max) return -1;
    out[(*count)++] = (int)v;
    p = end;
    if (*p == ',') p++;
    else if (*p) return -1;
  }
  return *count ? 0 : -1;
}

static int handle(const bench_command *command, void *state, const bench_option *option,
                  const char *value) {
  mpi_settings *s = state;
  switch (option->id) {
  case OPT_RANKS:
    if (parse_list(value, s->ranks, MAX_RANK_COUNTS, &s->num_ranks) != 0) {
      return bench_usage_error(command, "--ranks: '%s' is not a list of rank counts (1,2,4)",
                               value);
    }
    return 0;
  case OPT_SIZE:
    if (bench_parse_size(value, &s->size) != 0) {
      return bench_usage_error(command, "--size: '%s' is not a size (4M, 65536)", value);
    }
    return 0;
  case OPT_REPEAT: return bench_option_count(command, option, value, 1, &s->repeat);
  case OPT_OPS: {
    s->ops = 0;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", value);
    for (char *name = strtok(copy, ","); name; name = strtok(NULL, ",")) {
      int found = 0;
      for (int i = 0; i < 3; i++) {
        if (strcmp(name, op_names[i]) == 0) s->ops |= 1 << i, found = 1;
      }
      if (!found) {
        return bench_usage_error(command, "--ops: '%s' is not sort, allreduce or scan", name);
      }
    }
    return 0;
  }
  case OPT_MPIRUN: s->mpirun = value; return 0;
  case OPT_DEVICE: s->device = value; return 0;
  case OPT_CHILD: s->child = 1; return 0;
  default: return 0;
  }
}

/* ---- the child: one rank count under mpirun ---- */

typedef struct row {
  double total, device, search, staging, exchange, local;
} row;

static double max_over_ranks(double value) {
  double out = value;
  MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

static double median(double *values, int count) {
  bench_timing t = bench_summarize(values, count);
  return t.valid ? t.median : NAN;
}

/* Whether the distributed call's result is right, on every rank: a sort's
 * parts each in order and in order across the ranks' boundaries, a scan's
 * last element the running total of every rank's part up to its own, an
 * allreduce's sum the sum of the ranks' sums within float rounding.
 * Prints what is wrong; 0 when right everywhere, 1 otherwise. */
static int check_result(clgpu_context *context, int op, const uint32_t *host, size_t n,
                        const clgpu_array *input, const clgpu_array *output) {
  int rank = 0, size = 1, wrong = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  uint32_t *got = malloc((n ? n : 1) * 4);
  if (!got) return 1;
  const clgpu_array *view = op == OP_SCAN ? output : input;
  if (n && clgpu_array_read(context, got, n * 4, view, 0, NULL) != CLGPU_SUCCESS) wrong = 1;
  if (op == OP_SORT) {
    for (size_t i = 1; i < n && !wrong; i++) wrong = got[i - 1] > got[i];
    /* Each rank's last key against the first key of the next rank with
     * keys (a part may be empty). */
    uint32_t *ends = malloc(2 * (size_t)size * 4);
    int *has = malloc((size_t)size * sizeof *has);
    uint32_t mine[2] = {n ? got[0] : 0, n ? got[n - 1] : 0};
    int have = n > 0;
    MPI_Allgather(mine, 2, MPI_UINT32_T, ends, 2, MPI_UINT32_T, MPI_COMM_WORLD);
    MPI_Allgather(&have, 1, MPI_INT, has, 1, MPI_INT, MPI_COMM_WORLD);
    uint32_t last = 0;
    int seen = 0;
    for (int r = 0; r < size; r++) {
      if (!has[r]) continue;
      if (seen && ends[2 * r] < last && rank == 0) wrong = 1;
      last = ends[2 * r + 1];
      seen = 1;
    }
    free(ends);
    free(has);
  } else if (op == OP_SCAN) {
    uint64_t part = 0, upto = 0;
    for (size_t i = 0; i < n; i++) part += host[i];
    MPI_Scan(&part, &upto, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (n && got[n - 1] != (uint32_t)upto) wrong = 1;
  } else {
    double part = 0, all = 0;
    for (size_t i = 0; i < n; i++) {
      float f;
      memcpy(&f, &host[i], 4);
      part += f;
    }
    MPI_Allreduce(&part, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    float result = 0;
    clgpu_reduce_op sum = {.kind = CLGPU_REDUCE_SUM};
    if (clgpu_mpi_allreduce(context, &sum, &result, 4, input, MPI_COMM_WORLD, NULL) !=
            CLGPU_SUCCESS ||
        fabs(result - all) > 1e-5 * fabs(all) + 1) {
      wrong = 1;
    }
  }
  free(got);
  if (wrong) {
    fprintf(stderr, "clgpu-bench mpi: rank %d: WRONG RESULT from the distributed %s\n", rank,
            op_names[op == OP_SORT ? 0 : op == OP_ALLREDUCE ? 1 : 2]);
  }
  int any = 0;
  MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}

/* One operation at one part size: the distributed call and the local one,
 * `repeat` times each after one warm-up, the slowest rank's times. */
static int time_op(clgpu_context *context, int op, size_t n, int repeat, row *out) {
  size_t bytes = (n ? n : 1) * 4;
  uint32_t *host = malloc(bytes);
  uint64_t state = 0x9e3779b97f4a7c15ULL * (uint64_t)(n + 1);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  state ^= (uint64_t)rank << 40;
  for (size_t i = 0; i < n; i++) {
    uint32_t r = (uint32_t)bench_splitmix64(&state);
    if (op == OP_ALLREDUCE) {
      float f = (float)(r % 1000) / 8;
      memcpy(&host[i], &f, 4);
    } else {
      host[i] = op == OP_SCAN ? r % 16 : r;
    }
  }
  cl_mem in = NULL, outb = NULL;
  clgpu_status status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, bytes, &in);
  if (status == CLGPU_SUCCESS) status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, bytes, &outb);
  clgpu_type type = op == OP_ALLREDUCE ? CLGPU_TYPE_FLOAT : CLGPU_TYPE_UINT32;
  clgpu_array input = clgpu_array_of(in, type, n), output = clgpu_array_of(outb, type, n);
  double *mpi_times = calloc((size_t)repeat, 5 * sizeof(double));
  double *local_times = calloc((size_t)repeat, sizeof(double));
  int failed = status != CLGPU_SUCCESS || !host || !mpi_times || !local_times;
  clgpu_reduce_op sum = {.kind = CLGPU_REDUCE_SUM};
  clgpu_scan_op scan = {.kind = CLGPU_SCAN_SUM};
  /* The local call first, so that the distributed one's result is what
   * the check below reads. */
  for (int pass = 0; pass < 2 && !failed; pass++) {
    int local = pass == 0;
    for (int k = -1; k < repeat && !failed; k++) {
      if (op == OP_SORT && n) {
        status = clgpu_array_write(context, &input, host, n * 4, 0, NULL);
      } else if (k < 0 && n) {
        status = clgpu_array_write(context, &input, host, n * 4, 0, NULL);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      double start = bench_now_ms();
      cl_event done = NULL;
      float result = 0;
      if (status == CLGPU_SUCCESS) {
        if (op == OP_SORT) {
          status = local ? clgpu_sort(context, NULL, &input, NULL, NULL, 0, NULL, &done)
                         : clgpu_mpi_sort(context, NULL, &input, NULL, MPI_COMM_WORLD, NULL);
        } else if (op == OP_ALLREDUCE) {
          status = local ? clgpu_reduce_read(context, &sum, &result, 4, &input, NULL)
                         : clgpu_mpi_allreduce(context, &sum, &result, 4, &input, MPI_COMM_WORLD,
                                               NULL);
        } else {
          status = local ? clgpu_scan(context, &scan, CLGPU_ALL_AXES, &output, &input, NULL, 0,
                                      NULL, &done)
                         : clgpu_mpi_scan(context, &scan, &output, &input, MPI_COMM_WORLD, NULL,
                                          0, NULL, &done);
        }
      }
      if (done) {
        clWaitForEvents(1, &done);
        clReleaseEvent(done);
      }
      double elapsed = bench_now_ms() - start;
      if (status != CLGPU_SUCCESS) {
        fprintf(stderr, "clgpu-bench mpi: rank %d: %s %s: %s: %s\n", rank,
                local ? "local" : "distributed", op_names[op == OP_SORT ? 0 : op == OP_ALLREDUCE ? 1 : 2],
                clgpu_status_name(status), clgpu_last_error());
        failed = 1;
      }
      int any_failed = 0;
      MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      failed = any_failed;
      if (k < 0 || failed) continue;
      if (local) {
        local_times[k] = max_over_ranks(elapsed);
      } else {
        clgpu_mpi_times t;
        clgpu_mpi_last_times(&t);
        mpi_times[k] = max_over_ranks(elapsed);
        mpi_times[repeat + k] = max_over_ranks(t.device_ms);
        mpi_times[2 * repeat + k] = max_over_ranks(t.search_ms);
        mpi_times[3 * repeat + k] = max_over_ranks(t.staging_ms);
        mpi_times[4 * repeat + k] = max_over_ranks(t.exchange_ms);
      }
    }
  }
  if (!failed) failed = check_result(context, op, host, n, &input, &output);
  if (!failed) {
    out->total = median(mpi_times, repeat);
    out->device = median(mpi_times + repeat, repeat);
    out->search = median(mpi_times + 2 * repeat, repeat);
    out->staging = median(mpi_times + 3 * repeat, repeat);
    out->exchange = median(mpi_times + 4 * repeat, repeat);
    out->local = median(local_times, repeat);
  }
  free(mpi_times);
  free(local_times);
  free(host);
  if (in) clgpu_buffer_release(context, in);
  if (outb) clgpu_buffer_release(context, outb);
  return failed;
}

static int run_child(const mpi_settings *s) {
  MPI_Init(NULL, NULL);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(NULL, &context);
  int failed = status != CLGPU_SUCCESS, any = 0;
  if (failed) bench_report_failure("clgpu_context_create", status);
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  for (int i = 0; i < 3 && !any; i++) {
    int op = 1 << i;
    if (!(s->ops & op)) continue;
    for (int weak = 0; weak < 2 && !any; weak++) {
      size_t n = weak ? s->size
                      : s->size / (size_t)size + ((size_t)rank < s->size % (size_t)size);
      row r;
      memset(&r, 0, sizeof r);
      any = time_op(context, op, n, s->repeat, &r);
      if (!any && rank == 0) {
        printf("mpi-row %s %s %d %zu %.4f %.4f %.4f %.4f %.4f %.4f\n", op_names[i],
               weak ? "weak" : "strong", size, n, r.total, r.device, r.search, r.staging,
               r.exchange, r.local);
        fflush(stdout);
      }
    }
  }
  clgpu_context_destroy(context);
  MPI_Finalize();
  return any ? 1 : 0;
}

/* ---- the parent: one mpirun per rank count, one table ---- */

typedef struct result {
  char op[16], scaling[8];
  int ranks;
  size_t n;
  row r;
} result;

static int run_parent(const char *self, const mpi_settings *s) {
  /* Shared memory between local ranks without the kernel's cross-memory
   * attach, which containers refuse. */
  setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
  if (s->device && bench_use_device(&mpi_command, s->device) != 0) return 2;
  char ops[64] = "";
  for (int i = 0; i < 3; i++) {
    if (s->ops & (1 << i)) {
      if (ops[0]) strcat(ops, ",");
      strcat(ops, op_names[i]);
    }
  }
  result *results = calloc((size_t)s->num_ranks * 6, sizeof *results);
  int count = 0, failed = 0;
  if (!results) return 1;
  for (int k = 0; k < s->num_ranks; k++) {
    char command[4096];
    snprintf(command, sizeof command,
             "'%s' --oversubscribe %s -np %d '%s' mpi --child --size %zu --repeat %d --ops %s",
             s->mpirun, geteuid() == 0 ? "--allow-run-as-root" : "", s->ranks[k], self, s->size,
             s->repeat, ops);
    fprintf(stderr, "clgpu-bench mpi: %d rank(s)...\n", s->ranks[k]);
    FILE *pipe = popen(command, "r");
    if (!pipe) {
      fprintf(stderr, "clgpu-bench mpi: cannot start %s\n", s->mpirun);
      failed = 1;
      break;
    }
    char line[1024];
    while (fgets(line, sizeof line, pipe)) {
      result r;
      memset(&r, 0, sizeof r);
      if (sscanf(line, "mpi-row %15s %7s %d %zu %lf %lf %lf %lf %lf %lf", r.op, r.scaling,
                 &r.ranks, &r.n, &r.r.total, &r.r.device, &r.r.search, &r.r.staging,
                 &r.r.exchange, &r.r.local) == 10 &&
          count < s->num_ranks * 6) {
        results[count++] = r;
      } else {
        fputs(line, stderr);
      }
    }
    int code = pclose(pipe);
    if (code != 0) {
      fprintf(stderr, "clgpu-bench mpi: the run on %d rank(s) failed (status %d)\n", s->ranks[k],
              code);
      failed = 1;
    }
  }
  int expected = s->num_ranks * 2 * ((s->ops & 1) + ((s->ops >> 1) & 1) + ((s->ops >> 2) & 1));
  if (!failed && count != expected) {
    fprintf(stderr, "clgpu-bench mpi: %d rows came back, %d expected\n", count, expected);
    failed = 1;
  }
  printf("clgpu-bench mpi: medians of %d calls, the slowest rank's ms; size %zu (strong: in all, "
         "weak: per rank)\n",
         s->repeat, s->size);
  printf("%-9s %-6s %5s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "op", "scale", "ranks",
         "n/rank", "total", "device", "search", "staging", "MPI", "local", "overhead",
         "eff.");
  for (int i = 0; i < count; i++) {
    const result *r = &results[i];
    /* The same operation and scaling on one rank, for the efficiency. */
    double one = NAN;
    for (int j = 0; j < count; j++) {
      if (results[j].ranks == 1 && strcmp(results[j].op, r->op) == 0 &&
          strcmp(results[j].scaling, r->scaling) == 0) {
        one = results[j].r.total;
      }
    }
    int strong = strcmp(r->scaling, "strong") == 0;
    double efficiency = strong ? one / (r->ranks * r->r.total) : one / r->r.total;
    char overhead[32], eff[32];
    bench_format_or_na(overhead, sizeof overhead, "%+.1f%%",
                       r->ranks == 1 ? 100 * (r->r.total / r->r.local - 1) : NAN);
    bench_format_or_na(eff, sizeof eff, "%.2f", efficiency);
    printf("%-9s %-6s %5d %9zu %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9s %9s\n", r->op, r->scaling,
           r->ranks, r->n, r->r.total, r->r.device, r->r.search, r->r.staging, r->r.exchange,
           r->r.local, overhead, eff);
  }
  free(results);
  return failed;
}

int bench_command_mpi(const char *self, int argc, char **argv) {
  mpi_settings s;
  memset(&s, 0, sizeof s);
  s.ranks[0] = 1, s.ranks[1] = 2, s.ranks[2] = 4;
  s.num_ranks = 3;
  s.size = (size_t)4 << 20;
  s.repeat = 5;
  s.ops = OP_SORT | OP_ALLREDUCE | OP_SCAN;
  s.mpirun = "mpirun";
  int code = bench_parse_options(&mpi_command, argc, argv, handle, &s);
  if (code < 0) return 0;
  if (code > 0) return code;
  if (s.child) return run_child(&s);
  return run_parent(self, &s);
}
