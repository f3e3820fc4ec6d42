/* clgpu-bench's report destinations and the facts of a report's making
 * (bench_output.h). The report is printed on stdout as always; --output
 * points descriptor 1 at the file while it is printed, so that every
 * format's printer stays as it is. */
#include "bench_output.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench_common.h"

int bench_command_line_argc = 0;
char **bench_command_line_argv = NULL;

/* Open path for writing without changing it: the descriptor, *created set
 * when the file was made here; -1 with errno when it cannot be. */
static int open_for_writing(const char *path, int *created) {
  *created = 0;
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
  if (fd >= 0) {
    *created = 1;
    return fd;
  }
  if (errno != EEXIST) return -1;
  return open(path, O_WRONLY);
}

int bench_output_open(const bench_command *command, const char *option, const char *path,
                      bench_output *out) {
  out->path = path;
  out->fd = -1;
  out->created = 0;
  out->saved = -1;
  if (!path) return 0;
  out->fd = open_for_writing(path, &out->created);
  if (out->fd < 0) {
    return bench_usage_error(command, "%s: cannot write '%s': %s", option, path, strerror(errno));
  }
  return 0;
}

int bench_output_begin(bench_output *out, const char *prefix) {
  if (out->fd < 0) return 0;
  /* Emptied only now: a run that fails before its report leaves an existing
   * file as it was. Devices and pipes are not emptied. */
  struct stat info;
  if (fstat(out->fd, &info) == 0 && S_ISREG(info.st_mode) && ftruncate(out->fd, 0) != 0) {
    fprintf(stderr, "%scannot write the report to '%s': %s\n", prefix, out->path, strerror(errno));
    return 1;
  }
  fflush(stdout);
  out->saved = dup(STDOUT_FILENO);
  if (dup2(out->fd, STDOUT_FILENO) < 0) {
    int saved = errno;
    if (out->saved >= 0) close(out->saved);
    out->saved = -1;
    fprintf(stderr, "%scannot write the report to '%s': %s\n", prefix, out->path, strerror(saved));
    return 1;
  }
  return 0;
}

int bench_output_end(bench_output *out, const char *prefix) {
  if (out->fd < 0) return 0;
  int failed = fflush(stdout) != 0 || ferror(stdout);
  int saved = failed ? (errno ? errno : EIO) : 0;
  clearerr(stdout);
  if (out->saved >= 0) {
    dup2(out->saved, STDOUT_FILENO);
    close(out->saved);
  } else {
    close(STDOUT_FILENO); /* stdout was closed before */
  }
  out->saved = -1;
  if (close(out->fd) != 0 && !failed) {
    failed = 1;
    saved = errno;
  }
  out->fd = -1;
  if (failed) {
    fprintf(stderr, "%scannot write the report to '%s': %s\n", prefix, out->path, strerror(saved));
  }
  return failed;
}

void bench_output_discard(bench_output *out) {
  if (out->fd < 0) return;
  close(out->fd);
  out->fd = -1;
  if (out->created) unlink(out->path);
}

int bench_check_writable(const bench_command *command, const char *option, const char *path) {
  int created = 0;
  int fd = open_for_writing(path, &created);
  if (fd < 0) {
    return bench_usage_error(command, "%s: cannot write '%s': %s", option, path, strerror(errno));
  }
  close(fd);
  if (created) unlink(path);
  return 0;
}

const char *bench_utc_timestamp(time_t when, char *buffer, size_t size) {
  struct tm utc;
  if (size == 0) return buffer;
  if (!gmtime_r(&when, &utc) || strftime(buffer, size, "%Y-%m-%dT%H:%M:%SZ", &utc) == 0) {
    buffer[0] = '\0';
  }
  return buffer;
}

void bench_json_command_line(FILE *out, const char *before) {
  fprintf(out, "%s\"command_line\": [", before);
  for (int k = 0; k < bench_command_line_argc; k++) {
    if (k) fputs(", ", out);
    bench_json_string(out, bench_command_line_argv[k]);
  }
  fputc(']', out);
}

void bench_json_host(FILE *out, const char *before) {
  char hostname[256];
  int named = gethostname(hostname, sizeof hostname) == 0;
  hostname[sizeof hostname - 1] = '\0';
  struct utsname system;
  int described = uname(&system) == 0;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  fprintf(out, "%s\"host\": ", before);
  bench_json_string_member(out, "{", "hostname", named ? hostname : NULL);
  fputs(", \"os\": ", out);
  if (described) {
    bench_json_string_member(out, "{", "sysname", system.sysname);
    bench_json_string_member(out, ", ", "release", system.release);
    bench_json_string_member(out, ", ", "version", system.version);
    bench_json_string_member(out, ", ", "machine", system.machine);
    fputc('}', out);
  } else {
    fputs("null", out);
  }
  bench_json_number_member(out, ", ", "cpus", cpus > 0 ? (double)cpus : NAN);
  fputc('}', out);
}
