/* clgpu-bench run's first calls (bench_first_call.h): each operation's first
 * call with a cold and a warm program cache, each in a child process of its
 * own (the internal subcommand run-first-call), and that child. */
#include "bench_first_call.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_child.h"
#include "bench_measure.h"
#include "bench_peers.h"

const char *bench_self;

/* What a context's program cache did from `before` to `after`. */
static clgpu_cache_stats cache_delta(const clgpu_cache_stats *before,
                                     const clgpu_cache_stats *after) {
  clgpu_cache_stats d;
  d.memory_hits = after->memory_hits - before->memory_hits;
  d.disk_hits = after->disk_hits - before->disk_hits;
  d.builds = after->builds - before->builds;
  d.build_ms = after->build_ms - before->build_ms;
  d.disk_load_ms = after->disk_load_ms - before->disk_load_ms;
  d.disk_writes = after->disk_writes - before->disk_writes;
  d.disk_rejects = after->disk_rejects - before->disk_rejects;
  d.kernels_created = after->kernels_created - before->kernels_created;
  return d;
}

/* One call of `op`, timed from the call to the end of clFinish (a sort's
 * input refilled first, not timed). With `create`, the elementwise ops'
 * kernel object is made inside the time: a user's first call makes it.
 * No workspace: the call allocates what it needs. 0, or 1 after a failure
 * (printed). */
static int first_call_once(bench_case *c, int op, int create, double *ms) {
  const run_options *o = c->options;
  clgpu_call_options call = {.shape = o->call_shape, .workspace = NULL};
  clgpu_sort_options sort_call = {
      .algorithm = bench_sort_algorithm(op), .shape = o->call_shape, .workspace = NULL};
  clgpu_status status = CLGPU_SUCCESS;
  if (bench_op_table[op].sort) {
    cl_event marker = NULL;
    status = bench_refill_sort(c, op, &marker);
    if (marker) clReleaseEvent(marker);
    if (status != CLGPU_SUCCESS) return bench_op_failure(c, op, "refilling the input", status);
  }
  double start = bench_now_ms();
  if (create) status = bench_create_op_kernel(c, op);
  if (status == CLGPU_SUCCESS) status = bench_enqueue_op(c, op, &call, &sort_call, NULL);
  if (status == CLGPU_SUCCESS) status = (clgpu_status)clFinish(c->queue);
  *ms = bench_now_ms() - start;
  if (status != CLGPU_SUCCESS)
    return bench_op_failure(c, op, create ? "first call" : "later call", status);
  return 0;
}

/* The result of the last call against the host. 0, or 1 (printed). */
static int first_call_check(bench_case *c, int op, const char *which, const char *label) {
  char who[96];
  snprintf(who, sizeof who, "clgpu's %s (%s program cache)", which, label);
  check_message message = {{0}};
  clgpu_status status = CLGPU_SUCCESS;
  int verdict = bench_check_output(c, op, 0, 0, &message, &status);
  if (verdict < 0) return bench_op_failure(c, op, "reading the result back", status);
  if (verdict > 0) return bench_wrong_result(c, op, who, &message);
  return 0;
}

/* In a fresh context over the disk-cache `folder`: the first call of `op`
 * (its time and what the program cache did over it), then later calls:
 * --warmup untimed (at least one) and --repeat timed (into `samples`).
 * The cold side makes them too, so that the disk cache holds what a
 * program's first run leaves there (a layout that specialises at its second
 * call, say). `label`: "cold" or "warm", for messages. 0, or 1 after a
 * failure (printed). */
static int measure_first_call_side(const run_options *o, int op, const host_type *t, size_t n,
                                   const char *folder, const char *label, first_call_side *out,
                                   double *samples) {
  clgpu_context_options options = {0};
  options.cache_dir = folder;
  options.disk_cache = CLGPU_DISK_CACHE_ON;
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(&options, &context);
  if (status != CLGPU_SUCCESS) return bench_report_failure("creating a context", status);
  bench_case c;
  memset(&c, 0, sizeof c);
  c.context = context;
  c.queue = clgpu_context_queue(context);
  c.device = clgpu_context_device_info(context);
  c.options = o;
  c.type = t;
  c.n = n;
  c.cpu_shape = (c.device->type & CL_DEVICE_TYPE_CPU) != 0;
  result scratch; /* bench_setup_peer_views describes the views in a row */
  memset(&scratch, 0, sizeof scratch);
  int failed = 0;
  /* The prebuilt side replays the record the cold and warm sides left (the
   * programs of every call they made), and waits for it, before anything
   * else. */
  if (strcmp(label, "prebuilt") == 0) {
    clgpu_prebuild *prebuild = NULL;
    clgpu_prebuild_stats prebuilt;
    double start = bench_now_ms();
    status = clgpu_prebuild_start(context, NULL, &prebuild);
    if (status == CLGPU_SUCCESS) status = clgpu_prebuild_wait(prebuild, &prebuilt);
    out->prebuild_ms = bench_now_ms() - start;
    clgpu_prebuild_destroy(prebuild);
    if (status != CLGPU_SUCCESS) {
      failed = bench_report_failure("prebuilding the recorded programs", status);
    } else {
      out->prebuild_programs = prebuilt.programs;
    }
  }
  if (!failed) failed = bench_prepare_case(&c);
  if (!failed && bench_op_table[op].sort && op != OP_SEGMENTED_SORT)
    failed = bench_prepare_sorts(&c, op);
  if (!failed && op == OP_SEGMENTED_SORT) failed = bench_prepare_segmented(&c, op);
  if (!failed && op == OP_LOWER_BOUND) failed = bench_prepare_search(&c, op);
  if (!failed && op == OP_HISTOGRAM) failed = bench_prepare_histogram(&c, op);
  if (!failed && bench_op_by_key(op)) failed = bench_prepare_by_key(&c, op);
  if (!failed && bench_op_table[op].peer) {
    failed = bench_prepare_peer_ops(&c, op);
    status = failed ? CLGPU_SUCCESS : bench_setup_peer_views(&c, op, &scratch);
    if (status != CLGPU_SUCCESS) failed = bench_op_failure(&c, op, "setting up views", status);
  }
  clgpu_cache_stats before, after;
  memset(&before, 0, sizeof before);
  memset(&after, 0, sizeof after);
  if (!failed) {
    clgpu_program_cache_stats(context, &before);
    failed = first_call_once(&c, op, 1, &out->ms);
  }
  if (!failed) {
    clgpu_program_cache_stats(context, &after);
    out->stats = cache_delta(&before, &after);
    failed = first_call_check(&c, op, "first call", label);
  }
  if (!failed) {
    int warmup = o->warmup < 1 ? 1 : o->warmup;
    clgpu_cache_stats warmed = after, end;
    for (int k = 0; k < warmup + o->repeat && !failed; k++) {
      if (k == warmup) clgpu_program_cache_stats(context, &warmed);
      double ignored = 0;
      failed = first_call_once(&c, op, 0, k < warmup ? &ignored : &samples[k - warmup]);
    }
    if (!failed && clgpu_program_cache_stats(context, &end) == CLGPU_SUCCESS) {
      out->steady = bench_summarize(samples, o->repeat);
      out->steady_calls = o->repeat;
      out->steady_warmup = warmup;
      out->steady_builds = end.builds - after.builds;
      out->steady_disk_hits = end.disk_hits - after.disk_hits;
      out->timed_programs = (end.builds + end.disk_hits) - (warmed.builds + warmed.disk_hits);
    }
    if (!failed) failed = first_call_check(&c, op, "later calls", label);
  }
  bench_release_case(&c);
  clgpu_context_destroy(context);
  return failed;
}

/* The child process of `run`'s first calls (an internal subcommand, left out
 * of the help): clgpu-bench run-first-call OP TYPE N REPEAT WARMUP ALGORITHM
 * FOLDER LABEL [PROGRESS], LABEL cold, warm or prebuilt (the last prebuilds
 * the record first; all three name messages) and PROGRESS
 * the prefix of the progress line. Prints one line of key=value figures on
 * stdout; exit status 0, 1 after a failure or a wrong result (printed on
 * stderr), 2 after a usage error. */
int bench_command_first_call_child(int argc, char **argv) {
  if (argc < 8 || argc > 9) {
    return bench_usage_error(&bench_tool_command, "%s: internal; takes 8 or 9 arguments",
                             FIRST_CALL_CHILD);
  }
  int op = 0;
  while (op < NUM_OPS && strcmp(argv[0], bench_op_table[op].name) != 0) op++;
  size_t t = 0;
  while (t < NUM_HOST_TYPES && strcmp(argv[1], bench_host_types[t].name) != 0) t++;
  run_options o;
  memset(&o, 0, sizeof o);
  size_t n = 0;
  if (op == NUM_OPS || bench_op_table[op].reference < 0 || t == NUM_HOST_TYPES ||
      bench_parse_size(argv[2], &n) != 0 || bench_parse_count(argv[3], 1, &o.repeat) != 0 ||
      bench_parse_count(argv[4], 0, &o.warmup) != 0) {
    return bench_usage_error(&bench_tool_command, "%s: internal; malformed arguments",
                             FIRST_CALL_CHILD);
  }
  static const clgpu_shape shapes[] = {CLGPU_SHAPE_AUTO, CLGPU_SHAPE_CHUNKED, CLGPU_SHAPE_TILED};
  size_t a = 0;
  while (a < 3 && strcmp(argv[5], clgpu_shape_name(shapes[a])) != 0) a++;
  if (a == 3)
    return bench_usage_error(&bench_tool_command, FIRST_CALL_CHILD ": internal; unknown shape '%s'",
                             argv[5]);
  o.call_shape = shapes[a];
  const char *folder = argv[6], *label = argv[7];
  /* The progress line goes over the parent's, with its prefix. */
  const char *progress = argc == 9 ? argv[8] : "";
  bench_progress_enabled = argc == 9 && isatty(STDERR_FILENO);

  first_call_side out;
  memset(&out, 0, sizeof out);
  double *samples = malloc(sizeof(double) * (size_t)o.repeat);
  if (!samples) {
    fprintf(stderr, "clgpu-bench run: out of host memory\n");
    return 1;
  }
  bench_progress("%s %s %s: %s program cache", progress, bench_op_table[op].name,
                 bench_host_types[t].name, label);
  int failed =
      measure_first_call_side(&o, op, &bench_host_types[t], n, folder, label, &out, samples);
  free(samples);
  bench_progress_clear();
  if (failed) return 1;
  printf(
      "ms=%.17g builds=%llu build_ms=%.17g disk_hits=%llu load_ms=%.17g disk_writes=%llu "
      "kernels=%llu steady_median=%.17g steady_min=%.17g steady_max=%.17g steady_calls=%d "
      "steady_warmup=%d steady_builds=%llu steady_disk_hits=%llu timed_programs=%llu "
      "prebuild_ms=%.17g prebuild_programs=%llu\n",
      out.ms, (unsigned long long)out.stats.builds, out.stats.build_ms,
      (unsigned long long)out.stats.disk_hits, out.stats.disk_load_ms,
      (unsigned long long)out.stats.disk_writes, (unsigned long long)out.stats.kernels_created,
      out.steady.median, out.steady.min, out.steady.max, out.steady_calls, out.steady_warmup,
      (unsigned long long)out.steady_builds, (unsigned long long)out.steady_disk_hits,
      (unsigned long long)out.timed_programs, out.prebuild_ms,
      (unsigned long long)out.prebuild_programs);
  return fflush(stdout) == 0 ? 0 : 1;
}

/* The child's line of key=value figures into *side: 0, or -1 when one is
 * missing or malformed. */
static int parse_first_call_side(char *line, first_call_side *side) {
  static const char *const keys[] = {
      "ms",           "builds",           "build_ms",      "disk_hits",        "load_ms",
      "disk_writes",  "kernels",          "steady_median", "steady_min",       "steady_max",
      "steady_calls", "steady_warmup",    "steady_builds", "steady_disk_hits", "timed_programs",
      "prebuild_ms",  "prebuild_programs"};
  enum { NUM_KEYS = sizeof keys / sizeof keys[0] };
  double values[NUM_KEYS];
  int seen[NUM_KEYS] = {0};
  char *save = NULL;
  for (char *item = strtok_r(line, " \n", &save); item; item = strtok_r(NULL, " \n", &save)) {
    char *equals = strchr(item, '=');
    if (!equals) return -1;
    *equals = '\0';
    for (size_t k = 0; k < NUM_KEYS; k++) {
      if (strcmp(item, keys[k]) != 0) continue;
      char *end = NULL;
      values[k] = strtod(equals + 1, &end);
      if (end == equals + 1 || *end != '\0') return -1;
      seen[k] = 1;
    }
  }
  for (size_t k = 0; k < NUM_KEYS; k++) {
    if (!seen[k]) return -1;
  }
  memset(side, 0, sizeof *side);
  side->ms = values[0];
  side->stats.builds = (uint64_t)values[1];
  side->stats.build_ms = values[2];
  side->stats.disk_hits = (uint64_t)values[3];
  side->stats.disk_load_ms = values[4];
  side->stats.disk_writes = (uint64_t)values[5];
  side->stats.kernels_created = (uint64_t)values[6];
  side->steady.median = values[7];
  side->steady.min = values[8];
  side->steady.max = values[9];
  side->steady_calls = (int)values[10];
  side->steady_warmup = (int)values[11];
  side->steady_builds = (uint64_t)values[12];
  side->steady_disk_hits = (uint64_t)values[13];
  side->timed_programs = (uint64_t)values[14];
  side->prebuild_ms = values[15];
  side->prebuild_programs = (uint64_t)values[16];
  side->steady.valid = side->steady_calls > 0 && side->steady.median >= 0;
  return 0;
}

/* Run one child process for *fc (`label`: cold or warm) with clgpu's disk
 * cache in `clgpu_dir` and POCL_CACHE_DIR set to `pocl_dir` (the rest of the
 * environment as it is), and read its figures into *side. 0, or 1 after a
 * failure (printed). */
static int spawn_first_call(const run_options *o, const first_call *fc, const char *label,
                            first_call_side *side, const char *clgpu_dir, const char *pocl_dir,
                            const char *progress) {
  char n_text[32], repeat_text[24], warmup_text[24];
  snprintf(n_text, sizeof n_text, "%zu", fc->n);
  snprintf(repeat_text, sizeof repeat_text, "%d", o->repeat);
  snprintf(warmup_text, sizeof warmup_text, "%d", o->warmup);
  /* The running executable itself where /proc has it, else argv[0]. */
  const char *self = access("/proc/self/exe", X_OK) == 0 ? "/proc/self/exe" : bench_self;
  char *argv[] = {(char *)bench_self,
                  FIRST_CALL_CHILD,
                  (char *)bench_op_table[fc->op].name,
                  (char *)fc->type->name,
                  n_text,
                  repeat_text,
                  warmup_text,
                  (char *)clgpu_shape_name(o->call_shape),
                  (char *)clgpu_dir,
                  (char *)label,
                  (char *)progress,
                  NULL};
  size_t owned = 0;
  char **env = bench_child_environment(NULL, pocl_dir, &owned);
  if (!env) {
    fprintf(stderr, "clgpu-bench run: out of host memory\n");
    return 1;
  }

  int fds[2];
  int spawned = pipe(fds) == 0 ? 0 : errno;
  pid_t pid = 0;
  if (spawned == 0) {
    posix_spawn_file_actions_t actions;
    spawned = posix_spawn_file_actions_init(&actions);
    if (spawned == 0) {
      spawned = posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
      if (spawned == 0) spawned = posix_spawn_file_actions_addclose(&actions, fds[0]);
      if (spawned == 0) spawned = posix_spawn_file_actions_addclose(&actions, fds[1]);
      if (spawned == 0) {
        spawned = strchr(self, '/') ? posix_spawn(&pid, self, &actions, NULL, argv, env)
                                    : posix_spawnp(&pid, self, &actions, NULL, argv, env);
      }
      posix_spawn_file_actions_destroy(&actions);
    }
    close(fds[1]);
    if (spawned != 0) close(fds[0]);
  }
  for (size_t k = 0; k < owned; k++) free(env[k]);
  free(env);
  if (spawned != 0) {
    bench_progress_clear();
    fprintf(stderr, "clgpu-bench run: cannot start %s for the first calls: %s\n", self,
            strerror(spawned));
    return 1;
  }
  char output[4096];
  size_t length = 0;
  for (;;) {
    char chunk[512];
    ssize_t got = read(fds[0], chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    size_t room = sizeof output - 1 - length;
    size_t take = (size_t)got < room ? (size_t)got : room;
    memcpy(output + length, chunk, take);
    length += take;
  }
  output[length] = '\0';
  close(fds[0]);
  int wait_status = 0;
  while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
    bench_progress_clear();
    fprintf(stderr,
            "clgpu-bench run: the first call of %s %s with a %s program cache failed (the "
            "child process %s %d)\n",
            bench_op_table[fc->op].name, fc->type->name, label,
            WIFEXITED(wait_status) ? "exited with status" : "was killed by signal",
            WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : WTERMSIG(wait_status));
    return 1;
  }
  if (parse_first_call_side(output, side) != 0) {
    bench_progress_clear();
    fprintf(stderr, "clgpu-bench run: the first call of %s %s: unreadable figures '%s'\n",
            bench_op_table[fc->op].name, fc->type->name, output);
    return 1;
  }
  return 0;
}

/* The first calls of *fc, cold, warm and prebuilt, each in a child process of its
 * own, in a new temporary folder (under TMPDIR, else /tmp) that holds the
 * clgpu disk cache they share and their POCL_CACHE_DIR, removed afterwards.
 * 0, or 1 after a failure (printed). */
int bench_measure_first_call(const run_options *o, first_call *fc, const char *progress) {
  const char *base = getenv("TMPDIR");
  if (!base || !*base) base = "/tmp";
  size_t size = strlen(base) + 64;
  char *folder = malloc(size), *clgpu_dir = malloc(size), *pocl_dir = malloc(size);
  int failed = !folder || !clgpu_dir || !pocl_dir;
  if (failed) fprintf(stderr, "clgpu-bench run: out of host memory\n");
  int made = 0;
  if (!failed) {
    snprintf(folder, size, "%s/clgpu-bench-first-call-XXXXXX", base);
    snprintf(clgpu_dir, size, "%s", folder);
    made = mkdtemp(folder) != NULL;
    if (made) {
      snprintf(clgpu_dir, size, "%s/clgpu", folder);
      snprintf(pocl_dir, size, "%s/pocl", folder);
    }
    if (!made || mkdir(clgpu_dir, 0700) != 0 || mkdir(pocl_dir, 0700) != 0) {
      bench_progress_clear();
      fprintf(stderr, "clgpu-bench run: cannot make a temporary folder in %s: %s\n", base,
              strerror(errno));
      failed = 1;
    }
  }
  if (!failed) failed = spawn_first_call(o, fc, "cold", &fc->cold, clgpu_dir, pocl_dir, progress);
  if (!failed) failed = spawn_first_call(o, fc, "warm", &fc->warm, clgpu_dir, pocl_dir, progress);
  if (!failed) {
    failed = spawn_first_call(o, fc, "prebuilt", &fc->prebuilt, clgpu_dir, pocl_dir, progress);
  }
  if (made) {
    clgpu_disk_cache_clear(clgpu_dir, NULL);
    rmdir(clgpu_dir);
    bench_remove_tree(pocl_dir);
    if (rmdir(folder) != 0) {
      bench_progress_clear();
      fprintf(stderr, "clgpu-bench run: note: cannot remove %s: %s\n", folder, strerror(errno));
    }
  }
  free(folder);
  free(clgpu_dir);
  free(pocl_dir);
  return failed;
}

/* The first calls a run makes, into `out` (NUM_OPS * NUM_HOST_TYPES
 * entries), in bench_op_table's order and then the run's types: every operation
 * but the references (read, copy_kernel), at the first of its types in the
 * run (FIRST_CALL_FIRST) or at each, at FIRST_CALL_N elements or its
 * smallest size in the run where that is smaller. Returns their number. */
size_t bench_plan_first_calls(const run_options *o, first_call *out) {
  size_t count = 0;
  if (o->first_call == FIRST_CALL_OFF) return 0;
  for (int op = 0; op < NUM_OPS; op++) {
    if (bench_op_table[op].reference < 0) continue;
    for (size_t t = 0; t < o->num_types; t++) {
      size_t smallest = 0;
      for (size_t s = 0; s < o->num_sizes; s++) {
        if (bench_op_runs(o, op, o->types[t], o->sizes[s]) &&
            (smallest == 0 || o->sizes[s] < smallest)) {
          smallest = o->sizes[s];
        }
      }
      if (smallest == 0) continue;
      first_call *fc = &out[count++];
      memset(fc, 0, sizeof *fc);
      fc->op = op;
      fc->type = &bench_host_types[o->types[t]];
      fc->n = smallest < FIRST_CALL_N ? smallest : FIRST_CALL_N;
      if (bench_op_table[op].two_d) {
        size_t side = bench_square_side(fc->n);
        snprintf(fc->shape, sizeof fc->shape, "%zux%zu", side, side);
      } else {
        bench_size_label(fc->n, fc->shape, sizeof fc->shape);
      }
      if (o->first_call == FIRST_CALL_FIRST) break;
    }
  }
  return count;
}
