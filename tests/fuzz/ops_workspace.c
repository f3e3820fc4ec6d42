/* Fuzz operations on workspaces: the size queries up to n, making,
 * wrapping, describing and destroying workspaces. */
#include "harness.h"

/* ---- size queries up to n ---- */

/* The statuses of the queries up to n: the algorithms' and those their
 * headers add (a report past 64 bits is CLGPU_SIZE_OVERFLOW); the
 * search's, which stages nothing, only those search.h lists. */
static const clgpu_status search_upto_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                    CLGPU_TYPE_MISMATCH, CLGPU_UNSUPPORTED_FEATURE};

static uint64_t take_max_n(byte_reader *in) {
  uint8_t choice = take_byte(in) % 8;
  uint64_t n;
  switch (choice) {
    case 0:
      n = 0;
      break;
    case 1:
      n = take_byte(in);
      break;
    case 2:
      n = (uint64_t)take_u32(in);
      break;
    case 3:
      n = (uint64_t)1 << (take_byte(in) % 64);
      break;
    case 4:
      n = UINT64_MAX - take_byte(in);
      break;
    case 5:
      n = ((uint64_t)1 << 63) + take_byte(in);
      break;
    default:
      n = take_u64(in);
      break;
  }
  /* Item 6: past 2^40 the queries' arithmetic wraps, divides by zero or
   * never ends. */
  return n;
}

/* A report a query gave: consistent, as workspace.h describes it. */
static void check_report(const char *call, const clgpu_workspace_size *report, uint64_t max_n,
                         clgpu_type type) {
  if (report->num_parts == 0 || report->num_parts > CLGPU_WORKSPACE_MAX_PARTS ||
      report->num_buffers > CLGPU_WORKSPACE_MAX_BUFFERS || report->alignment < 16 ||
      (report->alignment & (report->alignment - 1))) {
    violation(call, "gave a malformed report (%u parts, %u buffers, alignment %llu)",
              report->num_parts, report->num_buffers, (unsigned long long)report->alignment);
  }
  uint64_t end = 0;
  for (unsigned b = 0; b < report->num_buffers; b++) {
    const clgpu_workspace_buffer *buffer = &report->buffers[b];
    size_t size = clgpu_type_size(buffer->type);
    if (!buffer->name || buffer->part >= report->num_parts || !size ||
        buffer->offset % report->alignment || (buffer->count && buffer->count > UINT64_MAX / size) ||
        buffer->bytes != buffer->count * size) {
      violation(call, "gave a report with a malformed buffer %u", b);
    }
    if (buffer->count && buffer->offset + buffer->bytes > end) end = buffer->offset + buffer->bytes;
    if (buffer->count && buffer->offset + buffer->bytes < buffer->offset) {
      violation(call, "gave a buffer whose end wraps past 2^64");
    }
  }
  if (report->total_bytes != end) {
    violation(call, "total_bytes is %llu, the buffers end at %llu",
              (unsigned long long)report->total_bytes, (unsigned long long)end);
  }
  (void)max_n;
  (void)type;
}

void op_algo_query_upto(fuzz_run *run) {
  byte_reader *in = &run->in;
  clgpu_context *context = take_algo_context(in);
  uint8_t which = take_byte(in) % 6;
  clgpu_type type = take_type(in);
  uint64_t max_n = take_max_n(in);
  clgpu_call_options call_options = {.shape = take_shape(in), .workspace = NULL};
  clgpu_sort_options sort_options = {
      .algorithm = take_algorithm(in), .shape = take_shape(in), .workspace = NULL};
  int options_null = take_byte(in) % 4 == 3;
  clgpu_reduce_op reduce_op = {(clgpu_reduce_kind)(1 + take_byte(in) % 9), NULL, 0, NULL, NULL,
                               NULL};
  clgpu_scan_op scan_op = {(clgpu_scan_kind)(1 + take_byte(in) % 3), take_byte(in) % 2, NULL,
                           NULL};
  clgpu_sort_spec spec;
  memset(&spec, 0, sizeof spec);
  if (take_byte(in) % 4 == 0) {
    const custom_key *custom = &custom_keys[take_byte(in) % COUNT_OF(custom_keys)];
    spec.key_type = custom->type;
    spec.declarations = custom->declarations;
    spec.compare = custom->compare;
    spec.key_size = take_byte(in) % 3 ? custom->size : take_count(in);
  }
  size_t value_size = take_byte(in) % 4 ? (size_t)1 << (take_byte(in) % 5) : take_count(in);
  clgpu_type permutation_type = take_byte(in) % 4 ? CLGPU_TYPE_UINT32 : take_type(in);
  clgpu_workspace_size report;
  memset(&report, 0x5a, sizeof report);
  clgpu_workspace_size before = report;
  int out_null = take_byte(in) % 16 == 15;
  clgpu_workspace_size *out = out_null ? NULL : &report;
  /* The searches' second count, read last so that the other queries'
   * inputs keep their meaning. */
  uint64_t max_haystack = which == 5 ? take_max_n(in) : 0;
  static const char *const names[] = {
      "clgpu_reduce_workspace_size_upto",           "clgpu_scan_workspace_size_upto",
      "clgpu_findall_workspace_size_upto",          "clgpu_sort_workspace_size_upto",
      "clgpu_sort_permutation_workspace_size_upto", "clgpu_search_workspace_size_upto"};
  char call[256];
  snprintf(call, sizeof call, "%s(type %d, max_n %llu)", names[which], (int)type,
           (unsigned long long)max_n);
  prime_last_error();
  clgpu_status status;
  const clgpu_call_options *options = options_null ? NULL : &call_options;
  const clgpu_sort_options *sorting = options_null ? NULL : &sort_options;
  switch (which) {
    case 0:
      status = clgpu_reduce_workspace_size_upto(context, &reduce_op, type, max_n, options, out);
      break;
    case 1:
      status = clgpu_scan_workspace_size_upto(context, &scan_op, type, max_n, options, out);
      break;
    case 2:
      status = clgpu_findall_workspace_size_upto(context, type, max_n, options, out);
      break;
    case 3:
      status = clgpu_sort_workspace_size_upto(context, &spec, type, value_size, max_n, sorting,
                                              out);
      break;
    case 4:
      status = clgpu_sort_permutation_workspace_size_upto(context, &spec, permutation_type, type,
                                                          max_n, sorting, out);
      break;
    default:
      status =
          clgpu_search_workspace_size_upto(context, &spec, type, max_n, max_haystack, options, out);
      break;
  }
  check_call(call, status,
             which == 5 ? STATUS_SET(search_upto_statuses, 0) : STATUS_SET(algo_text_statuses, 1),
             0);
  if ((out_null || !context) && status == CLGPU_SUCCESS) {
    violation(call, "succeeded with a NULL argument");
  }
  if (status != CLGPU_SUCCESS) {
    if (memcmp(&report, &before, sizeof report) != 0) violation(call, "failed but wrote *out");
    return;
  }
  check_report(call, &report, max_n, type);
  /* search.h: contiguous views apart from each other stage nothing. */
  if (which == 5 &&
      (report.parts[0].operation != CLGPU_OPERATION_SEARCH || report.total_bytes != 0)) {
    violation(call, "gave a report that is not a search's or holds %llu bytes",
              (unsigned long long)report.total_bytes);
  }
  /* The query is the call's at max_n: a larger n never needs less. */
  if (max_n > 0 && max_n < ((uint64_t)1 << 40)) {
    clgpu_workspace_size smaller;
    clgpu_status again;
    switch (which) {
      case 0:
        again = clgpu_reduce_workspace_size_upto(context, &reduce_op, type, max_n - 1, options,
                                                 &smaller);
        break;
      case 1:
        again = clgpu_scan_workspace_size_upto(context, &scan_op, type, max_n - 1, options,
                                               &smaller);
        break;
      case 2:
        again = clgpu_findall_workspace_size_upto(context, type, max_n - 1, options, &smaller);
        break;
      case 3:
        again = clgpu_sort_workspace_size_upto(context, &spec, type, value_size, max_n - 1,
                                               sorting, &smaller);
        break;
      case 4:
        again = clgpu_sort_permutation_workspace_size_upto(context, &spec, permutation_type, type,
                                                           max_n - 1, sorting, &smaller);
        break;
      default:
        again = clgpu_search_workspace_size_upto(context, &spec, type, max_n - 1, max_haystack,
                                                 options, &smaller);
        break;
    }
    if (again != CLGPU_SUCCESS) violation(call, "works at n but not at n - 1");
    for (unsigned b = 0; b < report.num_buffers && b < smaller.num_buffers; b++) {
      if (smaller.buffers[b].count > report.buffers[b].count) {
        violation(call, "buffer \"%s\" needs %llu at n - 1 but %llu at n", report.buffers[b].name,
                  (unsigned long long)smaller.buffers[b].count,
                  (unsigned long long)report.buffers[b].count);
      }
    }
  }
}

void op_algo_workspace(fuzz_run *run) {
  byte_reader *in = &run->in;
  int slot = take_byte(in) % ALGO_WORKSPACES;
  destroy_workspace(slot);
  clgpu_context *context = take_algo_context(in);
  /* A report from a query: a small whole-array call of some operation. */
  uint8_t which = take_byte(in) % 6;
  clgpu_type type = (clgpu_type)(1 + take_byte(in) % CLGPU_TYPE_FLOAT);
  uint64_t n = take_byte(in) % (ALGO_MAX_N + 1);
  clgpu_call_options call_options = {.shape = take_shape(in), .workspace = NULL};
  clgpu_sort_options sort_options = {
      .algorithm = take_algorithm(in), .shape = take_shape(in), .workspace = NULL};
  clgpu_reduce_op reduce_op = {CLGPU_REDUCE_SUM, NULL, 0, NULL, NULL, NULL};
  clgpu_scan_op scan_op = {CLGPU_SCAN_SUM, 0, NULL, NULL};
  clgpu_workspace_size report;
  memset(&report, 0, sizeof report);
  clgpu_status status;
  switch (which) {
    case 0:
      status = clgpu_reduce_workspace_size_upto(world.context, &reduce_op, type, n, &call_options,
                                                &report);
      break;
    case 1:
      status = clgpu_scan_workspace_size_upto(world.context, &scan_op, type, n, &call_options,
                                              &report);
      break;
    case 2:
      status = clgpu_findall_workspace_size_upto(world.context, type, n, &call_options, &report);
      break;
    case 3:
      status = clgpu_sort_workspace_size_upto(world.context, NULL, type, take_byte(in) % 2 ? 4 : 0,
                                              n, &sort_options, &report);
      break;
    case 4:
      status = clgpu_sort_permutation_workspace_size_upto(world.context, NULL, CLGPU_TYPE_UINT32,
                                                          type, n, &sort_options, &report);
      break;
    default:
      status =
          clgpu_search_workspace_size_upto(world.context, NULL, type, n, n, &call_options, &report);
      break;
  }
  if (status != CLGPU_SUCCESS) return;
  check_report("a workspace query", &report, n, type);
  /* Hostile edits of the report: some make it inconsistent (refused), some
   * keep it consistent but smaller than the calls need. */
  int inconsistent = 0;
  uint8_t edit = take_byte(in) % 10;
  unsigned b = report.num_buffers ? take_byte(in) % report.num_buffers : 0;
  clgpu_workspace_buffer *buffer = &report.buffers[b];
  switch (edit) {
    case 1:
      report.num_parts = CLGPU_WORKSPACE_MAX_PARTS + 1 + take_byte(in) % 4;
      inconsistent = 1;
      break;
    case 2:
      report.num_buffers = CLGPU_WORKSPACE_MAX_BUFFERS + 1 + take_byte(in);
      inconsistent = 1;
      break;
    case 3:
      if (report.num_buffers && buffer->count) {
        buffer->bytes += 1;
        inconsistent = 1;
      }
      break;
    case 4:
      if (report.num_buffers && buffer->count) {
        buffer->offset += 1;
        inconsistent = 1;
      }
      break;
    case 5:
      if (report.total_bytes) {
        report.total_bytes -= 1;
        inconsistent = 1;
      }
      break;
    case 6:
      /* Consistently smaller: one buffer loses an element. */
      if (report.num_buffers && buffer->count) {
        buffer->count -= 1;
        buffer->bytes -= clgpu_type_size(buffer->type);
        uint64_t end = 0;
        for (unsigned i = 0; i < report.num_buffers; i++) {
          const clgpu_workspace_buffer *other = &report.buffers[i];
          if (other->count && other->offset + other->bytes > end) {
            end = other->offset + other->bytes;
          }
        }
        report.total_bytes = end;
      }
      break;
    case 7:
      report.parts[0].operation = (clgpu_operation)(take_byte(in) % 7);
      if (report.parts[0].operation < CLGPU_OPERATION_REDUCE ||
          report.parts[0].operation > CLGPU_OPERATION_SEARCH) {
        inconsistent = 1;
      }
      break;
    case 8:
      report.parts[0].shape = take_shape(in);
      if (report.parts[0].shape != CLGPU_SHAPE_CHUNKED &&
          report.parts[0].shape != CLGPU_SHAPE_TILED) {
        inconsistent = 1;
      }
      break;
    case 9:
      report.alignment = take_byte(in) % 2 ? 3 : 0;
      inconsistent = 1;
      break;
    default:
      break;
  }
  uint8_t how = take_byte(in) % 4; /* create, create, wrap, wrap over an argument buffer */
  clgpu_workspace *made = (clgpu_workspace *)STALE_DATA;
  int out_null = take_byte(in) % 16 == 15;
  int report_null = take_byte(in) % 16 == 15;
  cl_mem target = NULL;
  size_t offset = 0, size = 0;
  char call[256];
  prime_last_error();
  if (how < 2) {
    snprintf(call, sizeof call, "clgpu_workspace_create(%s, report of op %u edited %u)",
             context == world.context ? "ctx" : context ? "other" : "NULL", which, edit);
    status = clgpu_workspace_create(context, report_null ? NULL : &report,
                                    out_null ? NULL : &made);
    check_call(call, status, STATUS_SET(workspace_create_statuses, 1), 0);
  } else {
    static const cl_mem *const none = NULL;
    (void)none;
    uint8_t where = take_byte(in) % 6;
    target = where == 0   ? arrays.buffers[BUF_FOREIGN]
             : where == 1 ? NULL
             : how == 3   ? algo.buffers[take_byte(in) % 3]
                          : algo.space;
    size_t target_size = target == algo.space            ? ALGO_SPACE_BYTES
                         : target == arrays.buffers[BUF_FOREIGN] ? arrays.sizes[BUF_FOREIGN]
                                                                 : ALGO_BYTES;
    uint8_t offset_choice = take_byte(in) % 4;
    offset = offset_choice == 0   ? 0
             : offset_choice == 1 ? (size_t)report.alignment * (take_byte(in) % 4)
             : offset_choice == 2 ? 1u + take_byte(in) % 15u
                                  : take_count(in);
    uint8_t size_choice = take_byte(in) % 4;
    size = size_choice == 0   ? (size_t)report.total_bytes
           : size_choice == 1 ? (size_t)report.total_bytes + take_byte(in)
           : size_choice == 2 ? (report.total_bytes ? (size_t)report.total_bytes - 1 : 0)
                              : take_count(in);
    snprintf(call, sizeof call,
             "clgpu_workspace_wrap(%s, report of op %u edited %u, buffer %s, offset %zu, size %zu)",
             context == world.context ? "ctx" : context ? "other" : "NULL", which, edit,
             target == algo.space ? "space" : target ? "other buffer" : "NULL", offset, size);
    cl_uint references = target ? memory_references(target) : 0;
    status = clgpu_workspace_wrap(context, report_null ? NULL : &report, target, offset, size,
                                  out_null ? NULL : &made);
    check_call(call, status, STATUS_SET(workspace_wrap_statuses, 1), 0);
    int fits = target && (offset <= target_size && size <= target_size - offset);
    if (status == CLGPU_SUCCESS &&
        (!fits || size < report.total_bytes ||
         (report.alignment && offset % report.alignment))) {
      violation(call, "wrapped a region that does not fit, is too small or misaligned");
    }
    if (status != CLGPU_SUCCESS && target && memory_references(target) > references) {
      violation(call, "failed but kept a reference to the buffer");
    }
  }
  if ((out_null || report_null || !context || inconsistent) && status == CLGPU_SUCCESS) {
    violation(call, "accepted %s", inconsistent ? "an inconsistent report" : "a NULL argument");
  }
  if (out_null) return;
  if (status != CLGPU_SUCCESS) {
    if (made) violation(call, "failed but left *out non-NULL");
    return;
  }
  if (!made || made == (clgpu_workspace *)STALE_DATA) violation(call, "made no workspace");
  clgpu_workspace_size described;
  if (clgpu_workspace_describe(made, &described) != CLGPU_SUCCESS ||
      described.total_bytes != report.total_bytes || described.num_buffers != report.num_buffers ||
      described.num_parts != report.num_parts) {
    violation(call, "describes another report than the one it was made from");
  }
  for (unsigned i = 0; i < report.num_buffers; i++) {
    if (described.buffers[i].count != report.buffers[i].count ||
        described.buffers[i].offset != report.buffers[i].offset) {
      violation(call, "describes buffer %u otherwise", i);
    }
  }
  cl_mem region = STALE_DATA;
  size_t region_offset = 1, region_size = 1;
  if (clgpu_workspace_region(made, &region, &region_offset, &region_size) != CLGPU_SUCCESS) {
    violation(call, "has no region");
  }
  if (how >= 2 && (region != target || region_offset != offset || region_size != size)) {
    violation(call, "gives a region other than the one it was wrapped over");
  }
  if (how < 2 && (report.total_bytes ? !region || region_size < report.total_bytes : 0)) {
    violation(call, "made a region smaller than the report's total");
  }
  algo_workspaces[slot].workspace = made;
  algo_workspaces[slot].context = context;
  algo_workspaces[slot].buffer = region;
  algo_workspaces[slot].offset = region_offset;
  algo_workspaces[slot].size = region_size;
}

void op_algo_workspace_destroy(fuzz_run *run) {
  byte_reader *in = &run->in;
  uint8_t choice = take_byte(in) % (ALGO_WORKSPACES + 2);
  if (choice < ALGO_WORKSPACES) {
    destroy_workspace(choice);
    return;
  }
  prime_last_error();
  clgpu_workspace_destroy(NULL);
  check_message_untouched("clgpu_workspace_destroy(NULL)");
  clgpu_workspace_size report;
  clgpu_status status = clgpu_workspace_describe(NULL, &report);
  check_call("clgpu_workspace_describe(NULL)", status, STATUS_SET(plain_statuses, 0), 0);
  expect_status("clgpu_workspace_describe(NULL)", status, CLGPU_INVALID_ARGUMENT, "NULL");
  prime_last_error();
  cl_mem buffer;
  size_t offset, size;
  status = clgpu_workspace_region(NULL, &buffer, &offset, &size);
  check_call("clgpu_workspace_region(NULL)", status, STATUS_SET(plain_statuses, 0), 0);
  expect_status("clgpu_workspace_region(NULL)", status, CLGPU_INVALID_ARGUMENT, "NULL");
}
