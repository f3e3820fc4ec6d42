/* Distributed scans (mpi.h): each rank scans its part with clgpu_scan, the
 * ranks exchange their parts' totals, and each rank combines the totals
 * before it into an offset that a last elementwise pass applies to its
 * output (docs/mpi.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/clgpu.h>
#include <clgpu/mpi.h>

#include "agree.h"
#include "element.h"
#include "half.h"
#include "status_internal.h"
#include "times.h"
#include "values.h"

static clgpu_status check_scan(const char *who, clgpu_context *context, const clgpu_scan_op *op,
                               const clgpu_array *output, const clgpu_array *input,
                               const clgpu_call_options *options, cl_uint num_events,
                               const cl_event *wait_list) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__RETURN_ERROR_IF(!op || !output || !input, CLGPU_INVALID_ARGUMENT,
                         "%s: NULL op, output or input", who);
  CLGPU__RETURN_ERROR_IF(
      op->kind != CLGPU_SCAN_SUM && op->kind != CLGPU_SCAN_MIN && op->kind != CLGPU_SCAN_MAX,
      CLGPU_INVALID_ARGUMENT,
      "%s: scan kind %d is not distributed (SUM, MIN and MAX are; a CUSTOM combine has no "
      "host form to join the ranks' totals with)",
      who, (int)op->kind);
  CLGPU__RETURN_ERROR_IF((num_events > 0) != (wait_list != NULL), CLGPU_INVALID_ARGUMENT,
                         "%s: the wait list does not match num_events (%u)", who, num_events);
  clgpu_workspace_size need;
  clgpu_status status =
      clgpu_scan_workspace_size(context, op, CLGPU_ALL_AXES, output, input, options, &need);
  if (status == CLGPU_SUCCESS && options && options->workspace) {
    status = clgpu_workspace_check(context, options->workspace, &need);
  }
  return status;
}

/* The OpenCL C of the offset pass: y = offset (+) y for the operator and
 * the type (whose variable is float for half, elementwise.h), with the
 * semantics of clgpu_scan's operators. */
static void offset_source(clgpu_scan_kind kind, clgpu_type type, char *text, size_t size) {
  const char *name = type == CLGPU_TYPE_HALF ? "float" : clgpu_type_cl_name(type);
  int is_float = type == CLGPU_TYPE_HALF || type == CLGPU_TYPE_FLOAT || type == CLGPU_TYPE_DOUBLE;
  if (kind == CLGPU_SCAN_SUM && !is_float) {
    /* Wrapping sums: unsigned addition, the bits taken back. */
    const char *bits = type == CLGPU_TYPE_INT8 || type == CLGPU_TYPE_UINT8     ? "uchar"
                       : type == CLGPU_TYPE_INT16 || type == CLGPU_TYPE_UINT16 ? "ushort"
                       : type == CLGPU_TYPE_INT32 || type == CLGPU_TYPE_UINT32 ? "uint"
                                                                               : "ulong";
    snprintf(text, size,
             "inline %s mpi_offset(%s c, %s y) { return as_%s((%s)((%s)c + (%s)y)); }\n", name,
             name, name, name, bits, bits, bits);
  } else if (kind == CLGPU_SCAN_SUM) {
    snprintf(text, size, "inline %s mpi_offset(%s c, %s y) { return c + y; }\n", name, name, name);
  } else if (!is_float) {
    snprintf(text, size, "inline %s mpi_offset(%s c, %s y) { return %s(c, y); }\n", name, name,
             name, kind == CLGPU_SCAN_MIN ? "min" : "max");
  } else {
    /* The order of docs/reduce.md: NaNs after everything, other values by
     * their bits as the sorts order them. */
    const char *bits = type == CLGPU_TYPE_DOUBLE ? "ulong" : "uint";
    const char *top = type == CLGPU_TYPE_DOUBLE ? "0x8000000000000000UL" : "0x80000000U";
    snprintf(text, size,
             "inline %s mpi_key(%s v) {\n"
             "  %s u = as_%s(v);\n"
             "  return (u & %s) ? ~u : (u | %s);\n"
             "}\n"
             "inline %s mpi_offset(%s c, %s y) {\n"
             "  int c_nan = isnan(c) ? 1 : 0, y_nan = isnan(y) ? 1 : 0;\n"
             "  if (c_nan != y_nan) return c_nan ? y : c;\n"
             "  return mpi_key(y) %s mpi_key(c) ? y : c;\n"
             "}\n",
             bits, name, bits, bits, top, top, name, name, name,
             kind == CLGPU_SCAN_MIN ? "<" : ">");
  }
}

/* Enqueue output = offset (+) output on `queue` behind `after`. */
static clgpu_status apply_offset(clgpu_context *context, cl_command_queue queue,
                                 const clgpu_scan_op *op, const clgpu_array *output,
                                 const clgpu__value *offset, cl_event after, cl_event *event) {
  char preamble[1024];
  offset_source(op->kind, output->type, preamble, sizeof preamble);
  clgpu_type scalar_type = output->type == CLGPU_TYPE_HALF ? CLGPU_TYPE_FLOAT : output->type;
  clgpu_elementwise_arg args[2] = {
      {.name = "y", .kind = CLGPU_ARG_INOUT, .type = output->type},
      {.name = "c", .kind = CLGPU_ARG_SCALAR, .type = scalar_type},
  };
  clgpu_elementwise_options options;
  memset(&options, 0, sizeof options);
  options.preamble = preamble;
  options.queue = queue;
  clgpu_elementwise *kernel = NULL;
  clgpu_status status =
      clgpu_elementwise_create(context, "y = mpi_offset(c, y);", 2, args, &options, &kernel);
  if (status != CLGPU_SUCCESS) return status;
  float half_offset = 0;
  const void *scalar = offset->bytes;
  if (output->type == CLGPU_TYPE_HALF) {
    half_offset = (float)clgpu__half_to_double(offset->u16);
    scalar = &half_offset;
  }
  clgpu_elementwise_value values[2] = {{.array = output}, {.scalar = scalar}};
  status = clgpu_elementwise_run(kernel, values, after ? 1 : 0, after ? &after : NULL, event);
  clgpu_elementwise_destroy(kernel);
  return status;
}

/* The local scan and, where another rank needs it, this part's total into
 * mine->value (mine->present set). `scanned` receives the scan's event. */
static clgpu_status scan_part(clgpu_context *context, const clgpu_scan_op *op,
                              const clgpu_array *output, const clgpu_array *input,
                              const clgpu_call_options *options, cl_uint num_events,
                              const cl_event *wait_list, int needs_total, clgpu__mpi_record *mine,
                              cl_event *scanned) {
  cl_command_queue queue =
      options && options->queue ? options->queue : clgpu_context_queue(context);
  clgpu_type type = input->type;
  uint64_t last = mine->count - 1;
  clgpu__value last_input;
  cl_event read = NULL;
  clgpu_status status = CLGPU_SUCCESS;
  cl_event *waits = NULL;
  cl_uint num_waits = num_events;
  const cl_event *scan_waits = wait_list;
  if (needs_total && op->exclusive) {
    /* The last input element, read before the scan: the output may be the
     * input. */
    status = clgpu__mpi_read_element(queue, input, last, &last_input, num_events, wait_list, &read,
                                     CL_FALSE);
    if (status != CLGPU_SUCCESS) return status;
    waits = malloc(((size_t)num_events + 1) * sizeof *waits);
    if (!waits) {
      clWaitForEvents(1, &read);
      clReleaseEvent(read);
      return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "clgpu_mpi_scan: no memory for a wait list");
    }
    if (num_events) memcpy(waits, wait_list, num_events * sizeof *waits);
    waits[num_events] = read;
    num_waits = num_events + 1;
    scan_waits = waits;
  }
  status = clgpu_scan(context, op, CLGPU_ALL_AXES, output, input, options, num_waits, scan_waits,
                      scanned);
  free(waits);
  if (status == CLGPU_SUCCESS && needs_total) {
    status = clgpu__mpi_read_element(queue, output, last, &mine->value, 1, scanned, NULL, CL_TRUE);
    if (status == CLGPU_SUCCESS && op->exclusive) {
      /* The read of the last input finished before the scan started. */
      if (op->kind == CLGPU_SCAN_SUM) {
        clgpu__value_add(type, &mine->value, &last_input);
      } else if (clgpu__value_before(type, op->kind == CLGPU_SCAN_MAX, &last_input, &mine->value)) {
        mine->value = last_input;
      }
    }
    mine->present = 1;
  }
  if (read) {
    clWaitForEvents(1, &read);
    clReleaseEvent(read);
  }
  if (status != CLGPU_SUCCESS && *scanned) {
    clReleaseEvent(*scanned);
    *scanned = NULL;
  }
  return status;
}

/* This rank's offset: the totals of the ranks before it, combined from rank
 * 0 upward; 0 when no rank before it holds elements. */
static int offset_of(const clgpu_scan_op *op, clgpu_type type, int rank,
                     const clgpu__mpi_record *all, clgpu__value *offset) {
  int have = 0;
  for (int r = 0; r < rank; r++) {
    if (!all[r].present) continue;
    if (!have) {
      *offset = all[r].value;
      have = 1;
    } else if (op->kind == CLGPU_SCAN_SUM) {
      clgpu__value_add(type, offset, &all[r].value);
    } else if (clgpu__value_before(type, op->kind == CLGPU_SCAN_MAX, &all[r].value, offset)) {
      *offset = all[r].value;
    }
  }
  return have;
}

static clgpu_status distributed_scan(clgpu_context *context, const clgpu_scan_op *op,
                                     const clgpu_array *output, const clgpu_array *input,
                                     MPI_Comm comm, const clgpu_call_options *options,
                                     cl_uint num_events, const cl_event *wait_list,
                                     cl_event *event) {
  const char *who = "clgpu_mpi_scan";
  clgpu_mpi_times *times = clgpu__mpi_times_current();
  if (event) *event = NULL;
  int size = 0, rank = 0;
  CLGPU__FORWARD_IF_ERROR(clgpu__mpi_where(who, comm, &size, &rank));
  clgpu__mpi_record mine;
  memset(&mine, 0, sizeof mine);
  mine.kind = op ? (int32_t)op->kind : 0;
  mine.type = input ? (int32_t)input->type : 0;
  mine.detail = op ? (op->exclusive != 0) : 0;
  mine.status = check_scan(who, context, op, output, input, options, num_events, wait_list);
  if (mine.status == CLGPU_SUCCESS) mine.count = clgpu_array_count(input);
  /* First agreement: every rank's checks passed, so no output is written
   * unless every rank can go on. */
  clgpu__mpi_record *all = NULL;
  clgpu_status status = clgpu__mpi_agree_first(who, comm, size, rank, &mine, &all, "exclusive");
  if (status != CLGPU_SUCCESS) return status;
  if (size == 1) {
    free(all);
    double start = clgpu__mpi_now_ms();
    status = clgpu_scan(context, op, CLGPU_ALL_AXES, output, input, options, num_events,
                        wait_list, event);
    times->device_ms += clgpu__mpi_now_ms() - start;
    return status;
  }
  /* The last rank's total is nobody's offset. */
  int needs_total = rank < size - 1 && mine.count > 0;
  cl_event scanned = NULL;
  double start = clgpu__mpi_now_ms();
  mine.status = scan_part(context, op, output, input, options, num_events, wait_list, needs_total,
                          &mine, &scanned);
  times->device_ms += clgpu__mpi_now_ms() - start;
  /* Second agreement, with the totals. */
  status = clgpu__mpi_agree(who, comm, size, rank, &mine, all, "exclusive");
  clgpu__value offset;
  memset(&offset, 0, sizeof offset);
  int has_offset = status == CLGPU_SUCCESS && mine.count > 0 &&
                   offset_of(op, (clgpu_type)input->type, rank, all, &offset);
  free(all);
  if (status != CLGPU_SUCCESS) {
    if (scanned) clReleaseEvent(scanned);
    return status;
  }
  if (!has_offset) {
    if (event) {
      *event = scanned;
    } else if (scanned) {
      clReleaseEvent(scanned);
    }
    return CLGPU_SUCCESS;
  }
  cl_command_queue queue =
      options && options->queue ? options->queue : clgpu_context_queue(context);
  start = clgpu__mpi_now_ms();
  status = apply_offset(context, queue, op, output, &offset, scanned, event);
  times->device_ms += clgpu__mpi_now_ms() - start;
  if (scanned) clReleaseEvent(scanned);
  return status;
}

clgpu_status clgpu_mpi_scan(clgpu_context *context, const clgpu_scan_op *op,
                            const clgpu_array *output, const clgpu_array *input, MPI_Comm comm,
                            const clgpu_call_options *options, cl_uint num_events,
                            const cl_event *wait_list, cl_event *event) {
  double start;
  clgpu__mpi_times_begin(&start);
  clgpu_status status =
      distributed_scan(context, op, output, input, comm, options, num_events, wait_list, event);
  clgpu__mpi_times_end(start);
  return status;
}

clgpu_status clgpu_mpi_scan_workspace_size(clgpu_context *context, const clgpu_scan_op *op,
                                           const clgpu_array *output, const clgpu_array *input,
                                           const clgpu_call_options *options,
                                           clgpu_workspace_size *out) {
  return clgpu_scan_workspace_size(context, op, CLGPU_ALL_AXES, output, input, options, out);
}
