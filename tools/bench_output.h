/* Where clgpu-bench's reports go and what they say about their making
 * (bench_output.c): --output FILE, opened before any measuring so that a
 * path that cannot be written fails at once, the report then sent to it
 * through stdout; the same early check for --plot's file; and the facts a
 * JSON report records beside its figures (the command line, the host, the
 * time). */
#ifndef CLGPU_BENCH_OUTPUT_H
#define CLGPU_BENCH_OUTPUT_H

#include <stdio.h>
#include <time.h>

#include "bench_options.h"

/* The tool's command line as main got it (argv[0] included), for the JSON
 * reports; argc 0 until main sets them. */
extern int bench_command_line_argc;
extern char **bench_command_line_argv;

/* A report's destination: stdout, or --output's file. */
typedef struct bench_output {
  const char *path; /* NULL: stdout */
  int fd;           /* the file, from bench_output_open on; -1: none */
  int created;      /* bench_output_open made the file: removed when no report comes */
  int saved;        /* stdout's own descriptor while it is sent to the file; -1 otherwise */
} bench_output;

/* Open `path` (--output's value; NULL: stdout, nothing to do) for writing,
 * making it if it is missing but leaving an existing file's content until
 * the report comes: 0, or 2 after the usage error "OPTION: cannot write
 * 'PATH': REASON" of `command` (printed). */
int bench_output_open(const bench_command *command, const char *option, const char *path,
                      bench_output *out);

/* Right before the report: the file emptied and stdout sent to it (nothing
 * to do for stdout). 0, or 1 after a failure (printed, after `prefix`, such
 * as "clgpu-bench run: "). */
int bench_output_begin(bench_output *out, const char *prefix);

/* Right after the report: stdout flushed and back where it was, the file
 * closed. 0, or 1 when the report could not be written (printed after
 * `prefix`). */
int bench_output_end(bench_output *out, const char *prefix);

/* When no report comes (a run that failed before any row): the file closed,
 * and removed where bench_output_open made it. */
void bench_output_discard(bench_output *out);

/* Whether the file `path` can be written (--plot's, before any measuring),
 * without changing it: 0, or 2 after the usage error "OPTION: cannot write
 * 'PATH': REASON" (printed). A file it makes to find out is removed again. */
int bench_check_writable(const bench_command *command, const char *option, const char *path);

/* `when` in UTC as ISO 8601, "2024-05-31T17:04:09Z" (21 bytes hold it);
 * returns buffer. */
const char *bench_utc_timestamp(time_t when, char *buffer, size_t size);

/* JSON members: "command_line", the tool's argv as an array of strings, and
 * "host", {"hostname", "os": {"sysname", "release", "version", "machine"},
 * "cpus"} (what gethostname, uname and the online processor count say;
 * null where they fail), each after `before` (see bench_json_string_member). */
void bench_json_command_line(FILE *out, const char *before);
void bench_json_host(FILE *out, const char *before);

#endif
