/* The model the buffers across memory spaces are checked against (the
 * operations are in ops_membuf.c).
 *
 * The operations work on a per-input pool of up to MEMBUF_SLOTS buffers of
 * the three kinds, of at most MEMBUF_MAX_COUNT elements each (larger requests
 * are made only where the header promises a refusal before anything is
 * allocated), all freed when the input ends. A fixed buffer's storage is the
 * fuzzer's, one block per slot, with canary bytes around the capacity it was
 * given.
 *
 * For each buffer the fuzzer keeps a shadow of its contents: the leading
 * `known` elements, which it wrote through the host pointer (or which a fixed
 * buffer's storage held when it was made). Moves, reallocations and
 * assignments carry the shadow along as the header says they carry the data,
 * and after every call each side that is current is compared with it (the
 * host side in place, the device side read back with clEnqueueReadBuffer).
 * After every call each buffer is also held to clgpu_membuf_get_info's
 * invariants and its move counts to the move reports, which go to a callback
 * of the fuzzer's (never to stderr); after a refusal, nothing about the
 * buffer may change. Once a buffer is freed, the fuzzer's own reference must
 * be the last to every cl_mem it showed: LeakSanitizer cannot see an OpenCL
 * object the library forgets to release. */
#include "harness.h"

membuf_slot membufs[MEMBUF_SLOTS];
uint8_t membuf_shadow[MEMBUF_SLOTS][MEMBUF_MAX_BYTES];
_Alignas(16) uint8_t fixed_storage[MEMBUF_SLOTS][MEMBUF_MAX_BYTES + FIXED_SLACK];
char membuf_names[MEMBUF_SLOTS][HUGE_LENGTH + 1];
char membuf_type_names[MEMBUF_SLOTS][HUGE_LENGTH + 1];
static uint8_t device_copy[MEMBUF_MAX_BYTES];
char format_full[FORMAT_ROOM];

report_target report_targets[2];
cl_event done_on_other; /* a completed user event on the second context */

int valid_space(clgpu_space space) {
  return space == CLGPU_SPACE_HOST || space == CLGPU_SPACE_DEVICE;
}

int host_only(int index) { return membufs[index].context == NULL; }

static const char *expected_type_name(int index) {
  return membufs[index].named_type ? membuf_type_names[index]
                                   : clgpu_type_cl_name(membufs[index].type);
}

/* ---- the move reports ---- */

void membuf_report(void *user, const clgpu_move_report *report) {
  const char *call = "the move report callback";
  report_target *target = user;
  if (target != &report_targets[0] && target != &report_targets[1]) {
    violation(call, "got a user pointer it was not given");
  }
  if (!target->on) violation(call, "was called while its context's reports were off");
  if (!report) violation(call, "got a NULL report");
  int index = -1;
  for (int i = 0; i < MEMBUF_SLOTS; i++) {
    if (membufs[i].buffer && membufs[i].buffer == report->buffer) index = i;
  }
  if (index < 0) violation(call, "got a report for a buffer the fuzzer does not hold");
  membuf_slot *slot = &membufs[index];
  if (slot->context != target->context) {
    violation(call, "got a report of buffer #%d on the callback of another context", index);
  }
  if (!valid_space(report->to)) violation(call, "got a report to space %d", (int)report->to);
  if (!report->line || !report->type_name || !report->name) {
    violation(call, "got a report with a NULL line, type name or name");
  }
  size_t length = strlen(report->line);
  if (strncmp(report->line, "Moved ", 6) != 0) {
    char shown[128];
    violation(call, "got the line %s, which does not start with \"Moved \"",
              quoted(report->line, shown));
  }
  if (strcmp(report->name, membuf_names[index]) != 0 ||
      strcmp(report->type_name, expected_type_name(index)) != 0) {
    violation(call, "buffer #%d is reported by another name or type name", index);
  }
  /* The line is what clgpu_move_report_format makes of the report, or the
   * start of it when that is long. */
  size_t needed =
      clgpu_move_report_format(report->bytes, report->to, report->type_name, report->name, NULL, 0);
  if (needed < sizeof format_full) {
    clgpu_move_report_format(report->bytes, report->to, report->type_name, report->name,
                             format_full, sizeof format_full);
    if (length > needed || strncmp(format_full, report->line, length) != 0 ||
        (length < needed && length < 255)) {
      char shown[128];
      violation(call, "the line %s is not what clgpu_move_report_format gives",
                quoted(report->line, shown));
    }
  }
  if (report->bytes == 0 || report->bytes % slot->element_size != 0 ||
      report->bytes > (uint64_t)MEMBUF_MAX_COUNT * slot->element_size) {
    violation(call, "reported %llu bytes for buffer #%d of %s", (unsigned long long)report->bytes,
              index, clgpu_type_cl_name(slot->type));
  }
  int to = report->to == CLGPU_SPACE_HOST ? 0 : 1;
  slot->reported_moves[to]++;
  slot->reported_bytes[to] += report->bytes;
}

report_target *target_of(const clgpu_context *context) {
  for (size_t i = 0; i < COUNT_OF(report_targets); i++) {
    if (report_targets[i].context == context) return &report_targets[i];
  }
  return NULL;
}

/* Reports on for both contexts, so that no report is ever printed. */
static void membuf_reports_on(void) {
  for (size_t i = 0; i < COUNT_OF(report_targets); i++) {
    report_targets[i].on = 1;
    if (clgpu_membuf_set_move_report(report_targets[i].context, membuf_report,
                                     &report_targets[i]) != CLGPU_SUCCESS) {
      setup_failed("clgpu_membuf_set_move_report", 0);
    }
  }
}

void membuf_setup(void) {
  report_targets[0].context = world.context;
  report_targets[1].context = world.other;
  membuf_reports_on();
  cl_int err = CL_SUCCESS;
  done_on_other = clCreateUserEvent(clgpu_context_cl_context(world.other), &err);
  if (err != CL_SUCCESS || clSetUserEventStatus(done_on_other, CL_COMPLETE) != CL_SUCCESS) {
    setup_failed("clCreateUserEvent on the second context", 0);
  }
}

void membuf_teardown(void) {
  if (done_on_other) clReleaseEvent(done_on_other);
  done_on_other = NULL;
}

/* ---- what every buffer must satisfy after every call ---- */

clgpu_membuf_info membuf_info(const char *call, int index) {
  clgpu_membuf_info info;
  memset(&info, 0, sizeof info);
  clgpu_status status = clgpu_membuf_get_info(membufs[index].buffer, &info);
  if (status != CLGPU_SUCCESS) {
    violation(call, "afterwards clgpu_membuf_get_info of buffer #%d failed with %s", index,
              clgpu_status_name(status));
  }
  return info;
}

static void check_canaries(const char *call, int index) {
  const membuf_slot *slot = &membufs[index];
  const uint8_t *base = fixed_storage[index];
  size_t start = (size_t)(slot->storage - base);
  size_t end = start + slot->fixed_capacity * slot->element_size;
  for (size_t i = 0; i < sizeof fixed_storage[0]; i++) {
    if ((i < start || i >= end) && base[i] != CANARY) {
      violation(call,
                "wrote byte %zu of fixed buffer #%d's storage, outside its %zu elements "
                "at byte %zu",
                i, index, slot->fixed_capacity, start);
    }
  }
}

static void check_device_contents(const char *call, int index, const clgpu_membuf_info *info) {
  const membuf_slot *slot = &membufs[index];
  cl_mem memory = clgpu_membuf_device_memory(slot->buffer);
  size_t real_size = 0;
  if (clGetMemObjectInfo(memory, CL_MEM_SIZE, sizeof real_size, &real_size, NULL) != CL_SUCCESS ||
      real_size < (info->capacity ? info->capacity : 1) * slot->element_size) {
    violation(call, "buffer #%d's cl_mem has %zu bytes, less than its capacity of %zu elements",
              index, real_size, info->capacity);
  }
  if (!info->device_current || slot->known == 0) return;
  cl_command_queue queue = clgpu_context_queue(slot->context);
  size_t bytes = slot->known * slot->element_size;
  if (clFinish(queue) != CL_SUCCESS ||
      clEnqueueReadBuffer(queue, memory, CL_TRUE, 0, bytes, device_copy, 0, NULL, NULL) !=
          CL_SUCCESS) {
    violation(call, "buffer #%d's cl_mem could not be read", index);
  }
  for (size_t i = 0; i < bytes; i++) {
    if (device_copy[i] != membuf_shadow[index][i]) {
      violation(call, "buffer #%d's device side is current but byte %zu is %u, expected %u", index,
                i, device_copy[i], membuf_shadow[index][i]);
    }
  }
}

cl_uint memory_references(cl_mem memory) {
  cl_uint count = 0;
  clGetMemObjectInfo(memory, CL_MEM_REFERENCE_COUNT, sizeof count, &count, NULL);
  return count;
}

/* Once a buffer is freed and its commands are done, the fuzzer's reference
 * is the last one to every cl_mem the buffer has shown. POCL drops a
 * command's references to its buffers on its own thread, around the moment
 * the command completes, so a reference may linger for a moment after
 * clFinish returns: a count above 1 is given a second (a leak stays). */
static void check_released(const char *call, int index) {
  membuf_slot *slot = &membufs[index];
  if (slot->seen_count == 0) return;
  if (clFinish(clgpu_context_queue(slot->context)) != CL_SUCCESS) {
    violation(call, "the queue of buffer #%d could not be finished", index);
  }
  for (size_t i = 0; i < slot->seen_count; i++) {
    cl_uint count = memory_references(slot->seen[i]);
    for (int tries = 0; count != 1 && tries < 1000; tries++) {
      struct timespec pause = {0, 1000000};
      nanosleep(&pause, NULL);
      count = memory_references(slot->seen[i]);
    }
    if (count != 1) {
      violation(call, "a cl_mem of freed buffer #%d still has %u references besides the fuzzer's",
                index, count - 1);
    }
    clReleaseMemObject(slot->seen[i]);
  }
  slot->seen_count = 0;
}

static void remember_memory(int index, cl_mem memory) {
  membuf_slot *slot = &membufs[index];
  for (size_t i = 0; i < slot->seen_count; i++) {
    if (slot->seen[i] == memory) return;
  }
  /* Only a freed buffer has surely dropped the commands that may still hold
   * an old cl_mem, so the oldest goes unchecked when there are too many. */
  if (slot->seen_count == SEEN_MEMORIES) {
    clReleaseMemObject(slot->seen[0]);
    memmove(&slot->seen[0], &slot->seen[1], (SEEN_MEMORIES - 1) * sizeof slot->seen[0]);
    slot->seen_count--;
  }
  clRetainMemObject(memory);
  slot->seen[slot->seen_count++] = memory;
}

static void check_membuf(const char *call, int index) {
  membuf_slot *slot = &membufs[index];
  clgpu_membuf_info info = membuf_info(call, index);
  if (info.kind != slot->kind || info.type != slot->type) {
    violation(call, "buffer #%d is now of kind %d and type %d, made as %d and %d", index,
              (int)info.kind, (int)info.type, (int)slot->kind, (int)slot->type);
  }
  if (info.size > info.capacity) {
    violation(call, "buffer #%d has size %zu above its capacity %zu", index, info.size,
              info.capacity);
  }
  if (info.capacity > MEMBUF_MAX_COUNT) {
    violation(call, "buffer #%d has capacity %zu, more than any request that was granted", index,
              info.capacity);
  }
  if (!info.host_current && !info.device_current) {
    violation(call, "buffer #%d has no current side", index);
  }
  if ((info.host_current && !info.host_allocated) ||
      (info.device_current && !info.device_allocated)) {
    violation(call,
              "buffer #%d has a current side without an allocation (host %d/%d, device "
              "%d/%d current/allocated)",
              index, info.host_current, info.host_allocated, info.device_current,
              info.device_allocated);
  }
  void *host = clgpu_membuf_host_pointer(slot->buffer);
  cl_mem device = clgpu_membuf_device_memory(slot->buffer);
  if (!info.host_allocated != !host || !info.device_allocated != !device) {
    violation(call, "buffer #%d's allocations and its raw sides disagree", index);
  }
  if (host_only(index) && (info.device_allocated || info.device_current)) {
    violation(call, "host-only buffer #%d has a device side", index);
  }
  if (slot->kind == CLGPU_MEMBUF_FIXED) {
    if (info.capacity != slot->fixed_capacity || host != slot->storage) {
      violation(call, "fixed buffer #%d left its storage or its capacity (%zu, made with %zu)",
                index, info.capacity, slot->fixed_capacity);
    }
    check_canaries(call, index);
  }
  if (!info.name || !info.type_name || strcmp(info.name, membuf_names[index]) != 0 ||
      strcmp(info.type_name, expected_type_name(index)) != 0) {
    char name[128], type_name[128];
    violation(call, "buffer #%d is named %s with type name %s, not as it was named", index,
              quoted(info.name, name), quoted(info.type_name, type_name));
  }
  const uint64_t moves[2] = {info.moves_to_host, info.moves_to_device};
  const uint64_t bytes[2] = {info.bytes_to_host, info.bytes_to_device};
  int reporting = target_of(slot->context) && target_of(slot->context)->on;
  for (int to = 0; to < 2; to++) {
    if (moves[to] < slot->moves[to] || bytes[to] < slot->bytes[to]) {
      violation(call, "buffer #%d's move counts went down", index);
    }
    if (reporting && (moves[to] - slot->moves[to] != slot->reported_moves[to] ||
                      bytes[to] - slot->bytes[to] != slot->reported_bytes[to])) {
      violation(call,
                "buffer #%d counted %llu moves (%llu bytes) to the %s, its reports %llu "
                "(%llu bytes)",
                index, (unsigned long long)(moves[to] - slot->moves[to]),
                (unsigned long long)(bytes[to] - slot->bytes[to]), to ? "device" : "host",
                (unsigned long long)slot->reported_moves[to],
                (unsigned long long)slot->reported_bytes[to]);
    }
    slot->moves[to] = moves[to];
    slot->bytes[to] = bytes[to];
    slot->reported_moves[to] = 0;
    slot->reported_bytes[to] = 0;
  }
  if (info.host_current && slot->known) {
    const uint8_t *data = host;
    for (size_t i = 0; i < slot->known * slot->element_size; i++) {
      if (data[i] != membuf_shadow[index][i]) {
        violation(call, "buffer #%d's host side is current but byte %zu is %u, expected %u", index,
                  i, data[i], membuf_shadow[index][i]);
      }
    }
  }
  if (info.device_allocated) {
    remember_memory(index, device);
    check_device_contents(call, index, &info);
  }
}

void check_membufs(const char *call) {
  for (int i = 0; i < MEMBUF_SLOTS; i++) {
    if (membufs[i].buffer) check_membuf(call, i);
  }
}

/* A refused call changes nothing about the buffer. */
void check_unchanged(const char *call, clgpu_status status, int index,
                     const clgpu_membuf_info *before) {
  if (index < 0 || !membufs[index].buffer) return;
  clgpu_membuf_info after = membuf_info(call, index);
  if (after.size != before->size || after.capacity != before->capacity ||
      after.host_current != before->host_current ||
      after.device_current != before->device_current ||
      after.host_allocated != before->host_allocated ||
      after.device_allocated != before->device_allocated ||
      after.moves_to_host != before->moves_to_host ||
      after.moves_to_device != before->moves_to_device) {
    violation(call,
              "failed with %s but changed buffer #%d: size %zu -> %zu, capacity %zu -> %zu, "
              "current host %d -> %d, device %d -> %d, allocated host %d -> %d, device %d -> %d, "
              "moves %llu -> %llu",
              clgpu_status_name(status), index, before->size, after.size, before->capacity,
              after.capacity, before->host_current, after.host_current, before->device_current,
              after.device_current, before->host_allocated, after.host_allocated,
              before->device_allocated, after.device_allocated,
              (unsigned long long)(before->moves_to_host + before->moves_to_device),
              (unsigned long long)(after.moves_to_host + after.moves_to_device));
  }
}

clgpu_membuf_info info_before(int index) {
  clgpu_membuf_info info;
  memset(&info, 0, sizeof info);
  if (index >= 0 && membufs[index].buffer) info = membuf_info("before a call", index);
  return info;
}

/* The move counts a successful call added to one buffer: `expected[to]`
 * copies in each direction (0 to the host, 1 to the device). */
void check_moves_added(const char *call, int index, const clgpu_membuf_info *before,
                       const int expected[2]) {
  clgpu_membuf_info after = membuf_info(call, index);
  uint64_t host = after.moves_to_host - before->moves_to_host;
  uint64_t device = after.moves_to_device - before->moves_to_device;
  if (host != (uint64_t)expected[0] || device != (uint64_t)expected[1]) {
    violation(call,
              "buffer #%d made %llu copies to the host and %llu to the device, expected "
              "%d and %d",
              index, (unsigned long long)host, (unsigned long long)device, expected[0],
              expected[1]);
  }
}

/* The record of which side is current after a successful move to `to` (0
 * the host, 1 the device) for `access`, and the copy it made. */
void check_moved(const char *call, int index, const clgpu_membuf_info *before, int to,
                 clgpu_access access) {
  clgpu_membuf_info after = membuf_info(call, index);
  const int current_before[2] = {before->host_current, before->device_current};
  const int current_after[2] = {after.host_current, after.device_current};
  int expected_moves[2] = {0, 0};
  if (host_only(index)) {
    if (current_after[0] != current_before[0] || current_after[1] != current_before[1]) {
      violation(call, "changed which side of host-only buffer #%d is current", index);
    }
  } else {
    int other = current_before[1 - to] && access == CLGPU_ACCESS_READ_ONLY;
    if (!current_after[to] || current_after[1 - to] != other) {
      violation(call, "left buffer #%d current on the host %d and the device %d", index,
                current_after[0], current_after[1]);
    }
    if (access != CLGPU_ACCESS_WRITE_ONLY && !current_before[to] && before->size > 0) {
      expected_moves[to] = 1;
    }
  }
  if (after.size != before->size || after.capacity != before->capacity) {
    violation(call, "a move changed buffer #%d's size or capacity", index);
  }
  check_moves_added(call, index, before, expected_moves);
  uint64_t bytes = to ? after.bytes_to_device - before->bytes_to_device
                      : after.bytes_to_host - before->bytes_to_host;
  if (bytes != (uint64_t)expected_moves[to] * before->size * membufs[index].element_size) {
    violation(call, "buffer #%d counted %llu bytes for a move of %zu elements", index,
              (unsigned long long)bytes, before->size);
  }
  if (access == CLGPU_ACCESS_WRITE_ONLY) membufs[index].known = 0;
}

/* An event a successful move gave: waited for and released. */
void finish_event(const char *call, int wanted, cl_event event, int index) {
  if (!wanted) {
    /* Without an event the call only enqueued: finish the queue before the
     * model reads the host side. */
    if (!host_only(index) && membufs[index].context &&
        clFinish(clgpu_context_queue(membufs[index].context)) != CL_SUCCESS) {
      violation(call, "the queue did not finish after it");
    }
    return;
  }
  if (event == STALE_EVENT) violation(call, "succeeded without setting *event");
  if (host_only(index)) {
    if (event) violation(call, "gave an event for host-only buffer #%d", index);
    return;
  }
  if (!event) violation(call, "succeeded without an event");
  if (clWaitForEvents(1, &event) != CL_SUCCESS) violation(call, "its event did not complete");
  clReleaseEvent(event);
}

void check_no_event(const char *call, clgpu_status status, cl_event event) {
  if (event != STALE_EVENT && event != NULL) {
    violation(call, "failed with %s but gave an event", clgpu_status_name(status));
  }
}

/* ---- making and freeing ---- */

void free_slot(int index) {
  membuf_slot *slot = &membufs[index];
  prime_last_error();
  clgpu_membuf_destroy(slot->buffer);
  check_message_untouched("clgpu_membuf_destroy");
  check_released("clgpu_membuf_destroy", index);
  memset(slot, 0, sizeof *slot);
}

/* Every buffer an input made is freed, and reports go to the fuzzer again. */
void finish_membufs(void) {
  for (int i = 0; i < MEMBUF_SLOTS; i++) {
    if (membufs[i].buffer) free_slot(i);
  }
  membuf_reports_on();
}
