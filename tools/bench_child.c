/* Child processes of clgpu-bench (bench_child.h). */
#include "bench_child.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"

extern char **environ;

static void stream_append(bench_child_stream *s, const char *data, size_t n) {
  if (s->length + n > s->limit) n = s->limit - s->length;
  if (n == 0) return;
  if (s->length + n + 1 > s->capacity) {
    size_t capacity = s->capacity ? s->capacity : 4096;
    while (capacity < s->length + n + 1) capacity *= 2;
    char *grown = realloc(s->text, capacity);
    if (!grown) return; /* what does not fit is lost; the figures then read as missing */
    s->text = grown;
    s->capacity = capacity;
  }
  memcpy(s->text + s->length, data, n);
  s->length += n;
  s->text[s->length] = '\0';
}

void bench_child_result_free(bench_child_result *r) {
  free(r->out.text);
  free(r->err.text);
  memset(r, 0, sizeof *r);
}

/* The process group of the child running now (0: none), killed when this
 * process is interrupted, so that no child outlives it. */
static volatile sig_atomic_t running_group;

static void kill_child_and_die(int sig) {
  pid_t group = (pid_t)running_group;
  if (group > 0) kill(-group, SIGKILL);
  signal(sig, SIG_DFL);
  raise(sig);
}

void bench_child_install_signal_handlers(void) {
  static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = kill_child_and_die;
  sigemptyset(&action.sa_mask);
  for (size_t k = 0; k < sizeof signals / sizeof signals[0]; k++) {
    sigaction(signals[k], &action, NULL);
  }
}

/* The environment as main found it (bench_environment_snapshot). */
static char **start_environment;

void bench_environment_snapshot(void) {
  size_t count = 0;
  while (environ[count]) count++;
  char **copy = calloc(count + 1, sizeof *copy);
  if (!copy) return;
  for (size_t k = 0; k < count; k++) {
    copy[k] = strdup(environ[k]);
    if (!copy[k]) {
      for (size_t j = 0; j < k; j++) free(copy[j]);
      free(copy);
      return;
    }
  }
  start_environment = copy;
}

void bench_test_change_environment(void) {
  const char *change = getenv("CLGPU_BENCH_TEST_SETENV");
  const char *equals = change ? strchr(change, '=') : NULL;
  if (!equals || equals == change) return;
  char name[256];
  size_t length = (size_t)(equals - change);
  if (length >= sizeof name) return;
  memcpy(name, change, length);
  name[length] = '\0';
  setenv(name, equals + 1, 1);
}

/* Whether the variable is the bench's own (set on purpose since main). */
static int own_variable(const char *entry) { return strncmp(entry, "CLGPU_", 6) == 0; }

char **bench_child_environment(const char *device, const char *pocl_dir, size_t *owned) {
  static const char device_variable[] = "CLGPU_DEVICE=";
  static const char pocl_variable[] = "POCL_CACHE_DIR=";
  size_t count = 0, started = 0;
  while (environ[count]) count++;
  while (start_environment && start_environment[started]) started++;
  char **env = malloc((count + started + 3) * sizeof *env);
  size_t device_size = sizeof device_variable + (device ? strlen(device) : 0);
  size_t pocl_size = sizeof pocl_variable + (pocl_dir ? strlen(pocl_dir) : 0);
  char *device_env = device ? malloc(device_size) : NULL;
  char *pocl_env = pocl_dir ? malloc(pocl_size) : NULL;
  if (!env || (device && !device_env) || (pocl_dir && !pocl_env)) {
    free(env);
    free(device_env);
    free(pocl_env);
    return NULL;
  }
  size_t used = 0;
  if (device_env) {
    snprintf(device_env, device_size, "%s%s", device_variable, device);
    env[used++] = device_env;
  }
  if (pocl_env) {
    snprintf(pocl_env, pocl_size, "%s%s", pocl_variable, pocl_dir);
    env[used++] = pocl_env;
  }
  *owned = used;
  /* The bench's own variables as they are now; every other one as the
   * process found it, when the snapshot was taken. */
  for (size_t k = 0; k < count; k++) {
    if (device && strncmp(environ[k], device_variable, sizeof device_variable - 1) == 0) continue;
    if (start_environment && !own_variable(environ[k])) continue;
    if (pocl_dir && strncmp(environ[k], pocl_variable, sizeof pocl_variable - 1) == 0) continue;
    env[used++] = environ[k];
  }
  for (size_t k = 0; k < started; k++) {
    const char *entry = start_environment[k];
    if (own_variable(entry)) continue;
    if (pocl_dir && strncmp(entry, pocl_variable, sizeof pocl_variable - 1) == 0) continue;
    env[used++] = (char *)entry;
  }
  env[used] = NULL;
  return env;
}

/* Run this tool again with argv (argv[0] included) on `device`, stdin from
 * /dev/null, stdout and stderr collected, in a new process group that is
 * killed (SIGKILL) when it runs longer than timeout_s. */
void bench_child_run(const char *self, char **argv, const char *device, const char *pocl_dir,
                     double timeout_s, bench_child_result *r) {
  memset(r, 0, sizeof *r);
  r->out.limit = (size_t)16 << 20;
  r->err.limit = (size_t)256 << 10;
  double start = bench_now_ms();
  const char *path = access("/proc/self/exe", X_OK) == 0 ? "/proc/self/exe" : self;
  size_t owned = 0;
  char **env = bench_child_environment(device, pocl_dir, &owned);
  if (!env) {
    r->start_error = ENOMEM;
    return;
  }
  int out[2] = {-1, -1}, err[2] = {-1, -1};
  int failed = pipe(out) != 0 || pipe(err) != 0 ? errno : 0;
  pid_t pid = 0;
  if (!failed) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    failed = posix_spawn_file_actions_init(&actions);
    if (!failed) {
      failed = posix_spawnattr_init(&attributes);
      if (!failed) {
        failed = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
        if (!failed) failed = posix_spawnattr_setpgroup(&attributes, 0);
        if (!failed) {
          failed =
              posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        }
        if (!failed) failed = posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
        if (!failed) failed = posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
        int fds[] = {out[0], out[1], err[0], err[1]};
        for (size_t k = 0; k < 4 && !failed; k++) {
          failed = posix_spawn_file_actions_addclose(&actions, fds[k]);
        }
        if (!failed) {
          failed = strchr(path, '/') ? posix_spawn(&pid, path, &actions, &attributes, argv, env)
                                     : posix_spawnp(&pid, path, &actions, &attributes, argv, env);
        }
        posix_spawnattr_destroy(&attributes);
      }
      posix_spawn_file_actions_destroy(&actions);
    }
  }
  for (size_t k = 0; k < owned; k++) free(env[k]);
  free(env);
  if (out[1] >= 0) close(out[1]);
  if (err[1] >= 0) close(err[1]);
  if (failed) {
    if (out[0] >= 0) close(out[0]);
    if (err[0] >= 0) close(err[0]);
    r->start_error = failed;
    return;
  }
  r->started = 1;
  running_group = (sig_atomic_t)pid;

  struct pollfd polled[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  bench_child_stream *streams[2] = {&r->out, &r->err};
  int open_streams = 2;
  double deadline = start + timeout_s * 1e3;
  while (open_streams > 0) {
    double left = deadline - bench_now_ms();
    if (left <= 0) {
      r->timed_out = 1;
      break;
    }
    int ready = poll(polled, 2, left > 1e6 ? 1000000 : (int)ceil(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    for (int k = 0; k < 2; k++) {
      if (polled[k].fd < 0 || !(polled[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char chunk[4096];
      ssize_t got = read(polled[k].fd, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        close(polled[k].fd);
        polled[k].fd = -1;
        open_streams--;
      } else {
        stream_append(streams[k], chunk, (size_t)got);
      }
    }
  }
  if (r->timed_out) kill(-pid, SIGKILL);
  for (int k = 0; k < 2; k++) {
    if (polled[k].fd >= 0) close(polled[k].fd);
  }
  /* A child that closed its output but has not ended (a hang at exit) is
   * held to the same deadline. */
  int status = 0, reaped = 0, wait_error = 0;
  for (;;) {
    pid_t ended = waitpid(pid, &status, r->timed_out ? 0 : WNOHANG);
    reaped = ended == pid;
    wait_error = ended < 0 ? errno : 0;
    if (reaped || (ended < 0 && wait_error != EINTR)) break;
    if (ended == 0 && bench_now_ms() >= deadline) {
      r->timed_out = 1;
      kill(-pid, SIGKILL);
    } else if (ended == 0) {
      struct timespec pause = {0, 10 * 1000 * 1000};
      nanosleep(&pause, NULL);
    }
  }
  /* What the child started in its group (none that run makes here) goes too. */
  kill(-pid, SIGKILL);
  running_group = 0;
  r->exited = reaped && WIFEXITED(status);
  r->exit_status = r->exited ? WEXITSTATUS(status) : 0;
  r->signal = reaped && WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  r->lost = !reaped;
  if (r->lost) r->start_error = wait_error;
  r->seconds = (bench_now_ms() - start) / 1e3;
}

int bench_child_succeeded(const bench_child_result *r) {
  return r->started && !r->timed_out && r->exited && r->exit_status == 0;
}

/* Why a child failed, in one line: what happened, then the first line of its
 * stderr that this tool wrote (a WRONG RESULT, a status), with the detail
 * line after it, else its last line. */
void bench_child_describe_failure(const bench_child_result *r, const char *what, double timeout_s,
                                  char *out, size_t size) {
  if (!r->started) {
    snprintf(out, size, "%s: cannot start clgpu-bench: %s", what, strerror(r->start_error));
    return;
  }
  if (r->timed_out) {
    snprintf(out, size, "%s: no result within the timeout of %g s (its process group killed)", what,
             timeout_s);
    return;
  }
  if (r->lost) {
    snprintf(out, size, "%s: waiting for the child process failed: %s", what,
             strerror(r->start_error));
    return;
  }
  int length;
  if (r->exited) {
    length = snprintf(out, size, "%s: exit status %d", what, r->exit_status);
  } else {
    length =
        snprintf(out, size, "%s: killed by signal %d (%s)", what, r->signal, strsignal(r->signal));
  }
  if (length < 0 || (size_t)length >= size || !r->err.text) return;
  /* Copy stderr to pick lines from it. */
  char *text = strdup(r->err.text);
  if (!text) return;
  char *lines[2] = {NULL, NULL}, *last = NULL;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    while (*line == '\r' || *line == ' ') line++;
    if (!*line) continue;
    last = line;
    if (lines[0] && !lines[1]) {
      if (strncmp(line, "clgpu-bench", 11) != 0) lines[1] = line;
      break;
    }
    if (!lines[0] && strncmp(line, "clgpu-bench", 11) == 0 && !strstr(line, "FAILED (see above)") &&
        !strstr(line, ": note: ")) {
      lines[0] = line;
    }
  }
  if (lines[0]) {
    snprintf(out + length, size - (size_t)length, ": %s%s%s", lines[0], lines[1] ? " -- " : "",
             lines[1] ? lines[1] : "");
  } else if (last) {
    snprintf(out + length, size - (size_t)length, ": %s", last);
  }
  free(text);
}
