/* clgpu-bench compare A.json B.json: two saved `run --format json` reports
 * compared row by row (bench_compare_files.c). */
#ifndef CLGPU_BENCH_COMPARE_FILES_H
#define CLGPU_BENCH_COMPARE_FILES_H

#include "bench_options.h"

/* The forms of the comparison (--format). */
enum { COMPARE_FILES_TABLE, COMPARE_FILES_CSV, COMPARE_FILES_JSON };

/* Compare the run reports in the files `a` and `b` ("-": stdin) and print
 * the comparison in `format` on stdout, or into the file `output` (NULL:
 * stdout). Rows match by operation, type, n and shape; a row is slower in B
 * when B's throughput is below A's by more than threshold_percent. Usage
 * errors are `command`'s. Returns the exit status: 0 when no row is slower,
 * 1 when one is (or the comparison could not be written), 2 after a usage
 * error (one line on stderr: a file that cannot be read, is not JSON, is not
 * a run report of a schema version this tool reads, or whose schema version
 * differs from the other's; an --output that cannot be written). */
int bench_compare_files(const bench_command *command, const char *a, const char *b,
                        double threshold_percent, int format, const char *output);

#endif
