/* Fuzz operations that move the elements of views: clgpu_copy, checked
 * byte for byte against a host model of every root buffer, and the
 * transfers between a view and host memory. */
#include "harness.h"

static const clgpu_status copy_statuses[] = {
    CLGPU_SUCCESS,         CLGPU_INVALID_ARGUMENT,   CLGPU_SHAPE_MISMATCH,
    CLGPU_TYPE_MISMATCH,   CLGPU_INVALID_OUTPUT,     CLGPU_MISMATCHED_OBJECTS,
    CLGPU_MISALIGNED_VIEW, CLGPU_VIEW_OUT_OF_BOUNDS, CLGPU_CL_BUILD_PROGRAM_FAILURE};

typedef struct gather_state {
  const uint8_t *root;
  uint8_t *temporary;
  size_t used;
  size_t size;
} gather_state;

static void gather(int64_t address, void *state) {
  gather_state *g = state;
  memcpy(g->temporary + g->used, g->root + address, g->size);
  g->used += g->size;
}

static void scatter(int64_t address, void *state) {
  gather_state *g = state;
  memcpy((uint8_t *)g->root + address, g->temporary + g->used, g->size);
  g->used += g->size;
}

void op_copy(fuzz_run *run) {
  byte_reader *in = &run->in;
  array_run *pool = &run->pool;
  uint8_t flags = take_byte(in);
  const clgpu_array *destination = take_view(in, pool);
  const clgpu_array *source = take_view(in, pool);
  if ((flags & 0x30) == 0x30) source = destination;
  clgpu_context *contexts[] = {world.context, world.context, NULL, world.other};
  clgpu_context *context = contexts[flags & 3];
  cl_uint num_events = 0;
  const cl_event *wait_list = NULL;
  switch ((flags >> 2) & 3) {
    case 1:
      num_events = 1;
      wait_list = &arrays.done;
      break;
    case 2:
      num_events = 2;
      break;
    case 3:
      wait_list = &arrays.done;
      break;
    default:
      break;
  }
  /* The event belongs to the main context: OpenCL would refuse it in a wait
   * list on the other one, which is not what is being tested. */
  if (context == world.other && wait_list) {
    wait_list = NULL;
    num_events = 0;
  }
  int want_event = (flags & 0x40) != 0;
  cl_event stale = (cl_event)(void *)&not_a_handle;
  cl_event event = stale;
  write_roots(take_byte(in));
  model_copy = before_copy;
  const char *call = "clgpu_copy";
  prime_last_error();
  clgpu_status status =
      clgpu_copy(context, destination, source, num_events, wait_list, want_event ? &event : NULL);
  check_call(call, status, STATUS_SET(copy_statuses, 1), 0);
  if (status != CLGPU_SUCCESS) {
    if (event != stale && event != NULL) {
      violation(call, "failed with %s but returned an event", clgpu_status_name(status));
    }
    read_roots();
    compare_roots(call, &before_copy, "failed but changed a buffer");
    return;
  }
  if (want_event) {
    if (event == stale || !event) violation(call, "succeeded without returning an event");
    if (clWaitForEvents(1, &event) != CL_SUCCESS) violation(call, "its event did not complete");
    clReleaseEvent(event);
  }
  read_roots();
  view_facts facts_d = facts_of(destination), facts_s = facts_of(source);
  if (!facts_d.valid || !facts_s.valid) {
    violation(call, "succeeded on a view that the model finds invalid");
  }
  if (destination->type != source->type || destination->rank != source->rank ||
      facts_d.count != facts_s.count) {
    violation(call, "succeeded on views of different types or shapes");
  }
  for (unsigned d = 0; d < destination->rank; d++) {
    if (destination->shape[d] != source->shape[d]) {
      violation(call, "succeeded on views of different shapes");
    }
  }
  size_t size = clgpu_type_size(destination->type);
  if (!facts_d.empty && facts_d.count * size > arrays.sizes[facts_d.root]) {
    violation(call, "accepted a destination with more element bytes than its buffer");
  }
  if (!facts_d.empty) {
    static uint8_t temporary[MAX_ROOT_BYTES];
    gather_state g = {before_copy.bytes[facts_s.root], temporary, 0, size};
    for_each_element(source, &facts_s, gather, &g);
    g.root = model_copy.bytes[facts_d.root];
    g.used = 0;
    for_each_element(destination, &facts_d, scatter, &g);
  }
  compare_roots(call, &model_copy, "the result differs from the host model");
}

/* clgpu_array_read and clgpu_array_write with a host block of guard bytes
 * around the room the call is given. */
void op_algo_transfer(fuzz_run *run) {
  byte_reader *in = &run->in;
  const array_run *pool = &run->pool;
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  int write = take_byte(in) % 2;
  algo_write_buffers(take_byte(in));
  view_wish wish = wish_1d(take_algo_type(in), take_byte(in) % (ALGO_MAX_N + 1), ALG_A);
  if (take_byte(in) % 3 == 0) {
    wish.rank = 2;
    wish.shape[0] = 1 + take_byte(in) % 9;
    wish.shape[1] = take_byte(in) % 33;
  }
  algo_view view;
  take_algo_view(in, pool, wish, &view);
  enum { GUARD_BYTES = 32 };
  static uint8_t host[ALGO_BYTES + 2 * GUARD_BYTES], host_before[ALGO_BYTES + 2 * GUARD_BYTES];
  for (size_t i = 0; i < sizeof host; i++) host[i] = (uint8_t)(i * 29u + 3);
  size_t needed = 0;
  if (view.pointer && clgpu_array_check(view.pointer) == CLGPU_SUCCESS) {
    size_t count = clgpu_array_count(view.pointer);
    size_t size = clgpu_type_size(view.pointer->type);
    needed = count > SIZE_MAX / size ? SIZE_MAX : count * size;
  }
  /* A view of more than SIZE_MAX bytes (a broadcast one) used to be read
   * as if it had few; such views are refused now (issue 15, item 8). */
  size_t host_size = needed;
  uint8_t size_choice = take_byte(in) % 6;
  if (size_choice == 1) host_size = needed ? needed - 1 : 0;
  if (size_choice == 2) host_size = needed + 1;
  if (size_choice == 3) host_size = 16;
  if (host_size > ALGO_BYTES) host_size = ALGO_BYTES;
  int host_null = take_byte(in) % 16 == 15;
  if (!host_null && needed > host_size) call.must_fail = 1;
  if (host_null && needed > 0) call.must_fail = 1;
  cl_bool blocking = take_byte(in) % 2 ? CL_TRUE : CL_FALSE;
  add_view(&call, &view);
  if (write && broadcast_output(&view)) call.must_fail = 1;
  algo_upload();
  memcpy(host_before, host, sizeof host);
  if (context != world.context) call.checkable = 0;
  if (write && call.checkable && view.made) {
    size_t size = clgpu_type_size(view.view.type);
    for (size_t k = 0; k < view.count; k++) {
      memcpy(&algo_model[view.buffer][element_offset(&view.view, k)],
             host + GUARD_BYTES + k * size, size);
    }
  }
  begin_algo_call(&call, in);
  /* The waiting pair (clgpu_array_read, clgpu_array_write) takes no event;
   * the enqueueing pair is waited for through its event. */
  call.want_event = !blocking;
  describe_views(&call, write ? (blocking ? "clgpu_array_write" : "clgpu_copy_from_host")
                              : (blocking ? "clgpu_array_read" : "clgpu_copy_to_host"));
  void *at = host_null ? NULL : host + GUARD_BYTES;
  clgpu_status status;
  if (blocking) {
    status = write ? clgpu_array_write(context, view.pointer, at, host_size, call.wait.count,
                                       call.wait.list)
                   : clgpu_array_read(context, at, host_size, view.pointer, call.wait.count,
                                      call.wait.list);
  } else {
    status = write ? clgpu_copy_from_host(context, view.pointer, at, host_size, call.wait.count,
                                          call.wait.list, &call.event)
                   : clgpu_copy_to_host(context, at, host_size, view.pointer, call.wait.count,
                                        call.wait.list, &call.event);
  }
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
  size_t written = status == CLGPU_SUCCESS && !write ? needed : 0;
  for (size_t i = 0; i < sizeof host; i++) {
    if (i >= GUARD_BYTES && i < GUARD_BYTES + written) continue;
    if (host[i] != host_before[i]) {
      violation(call.text, "changed host byte %zu outside the %zu bytes it %s", i, written,
                status == CLGPU_SUCCESS ? "reads" : "may touch (it failed)");
    }
  }
  if (status == CLGPU_SUCCESS && !write && view.made && context == world.context) {
    size_t size = clgpu_type_size(view.view.type);
    for (size_t k = 0; k < view.count; k++) {
      if (memcmp(host + GUARD_BYTES + k * size,
                 &algo_before[view.buffer][element_offset(&view.view, k)], size) != 0) {
        violation(call.text, "read element %zu wrong", k);
      }
    }
  }
}
