/* Helpers of clgpu-bench run's case (bench_case.h). */
#include "bench_case.h"

#include <stdio.h>

int bench_op_failure(const bench_case *c, int op, const char *what, clgpu_status status) {
  bench_progress_clear();
  char n_label[32];
  fprintf(stderr, "clgpu-bench run: %s %s %s: %s: %s (%d): %s\n%s\n", bench_op_table[op].name,
          c->type->name, bench_size_label(c->n, n_label, sizeof n_label), what,
          clgpu_status_name(status), (int)status, clgpu_status_string(status), clgpu_last_error());
  return 1;
}

int bench_wrong_result(const bench_case *c, int op, const char *who, const check_message *message) {
  bench_progress_clear();
  char n_label[32];
  fprintf(stderr, "clgpu-bench run: WRONG RESULT from %s %s over %s %s: %s\n", who,
          bench_op_table[op].name, bench_size_label(c->n, n_label, sizeof n_label), c->type->name,
          message->text);
  return 1;
}

clgpu_status bench_read_buffer(bench_case *c, cl_mem buffer, size_t bytes, void *host) {
  return (clgpu_status)clEnqueueReadBuffer(c->queue, buffer, CL_TRUE, 0, bytes, host, 0, NULL,
                                           NULL);
}
