/* Fuzz operations on allocation: clgpu_buffer_create, allocation scopes and
 * the allocation cache's statistics, with the operation and algorithm names
 * and clgpu_reduce_result_type. */
#include "harness.h"

static const clgpu_status buffer_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                               CLGPU_CL_INVALID_BUFFER_SIZE};
static const clgpu_status scope_begin_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                    CLGPU_CL_OUT_OF_HOST_MEMORY};
static const clgpu_status scope_end_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                  CLGPU_ALLOC_SCOPE_MISMATCH};

/* ---- allocation and scopes ---- */

static clgpu_context *take_alloc_context(byte_reader *in) {
  clgpu_context *contexts[] = {world.context, world.context, world.other, NULL};
  return contexts[take_byte(in) % 4];
}

static void release_held(array_run *pool, size_t index) {
  held_buffer held = pool->held[index];
  prime_last_error();
  clgpu_buffer_release(held.context, held.buffer);
  check_message_untouched("clgpu_buffer_release");
  pool->held[index] = pool->held[--pool->held_count];
}

void op_buffer_create(fuzz_run *run) {
  byte_reader *in = &run->in;
  array_run *pool = &run->pool;
  clgpu_context *context = take_alloc_context(in);
  static const cl_mem_flags flag_choices[] = {
      0,
      CL_MEM_READ_WRITE,
      CL_MEM_READ_ONLY,
      CL_MEM_WRITE_ONLY,
      CL_MEM_USE_HOST_PTR,
      CL_MEM_COPY_HOST_PTR,
      CL_MEM_ALLOC_HOST_PTR,
      CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
      CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
  };
  uint8_t flag_choice = take_byte(in) % (COUNT_OF(flag_choices) + 1);
  cl_mem_flags flags = flag_choice == COUNT_OF(flag_choices) ? (cl_mem_flags)take_u64(in)
                                                             : flag_choices[flag_choice];
  size_t size;
  switch (take_byte(in) % 6) {
    case 0:
      size = 0;
      break;
    case 1:
      size = SIZE_MAX - take_byte(in);
      break;
    case 2:
      size = (size_t)arrays.max_alloc + 1 + take_byte(in);
      break;
    case 3:
      size = (size_t)1 << (56 + take_byte(in) % 8);
      break;
    case 4:
      size = 1 + (size_t)take_byte(in) * 64;
      break;
    default:
      size = 1 + take_byte(in) % 16;
      break;
  }
  int null_out = take_byte(in) % 8 == 0;
  /* Only plain requests can succeed, so only small ones are made for real. */
  if (size > 65536 && size <= arrays.max_alloc) size = 65536;
  cl_mem stale = (cl_mem)(void *)&not_a_handle;
  cl_mem made = stale;
  const char *call = "clgpu_buffer_create";
  prime_last_error();
  clgpu_status status = clgpu_buffer_create(context, flags, size, null_out ? NULL : &made);
  check_call(call, status, STATUS_SET(buffer_statuses, 1), 0);
  if (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) {
    expect_status(call, status, CLGPU_INVALID_ARGUMENT, "host-pointer flags are refused");
  }
  if (size == 0 || !context || null_out) {
    expect_status(call, status, CLGPU_INVALID_ARGUMENT, "NULL argument or size 0");
  }
  if (status != CLGPU_SUCCESS) {
    /* The header does not say what a failure leaves in *out; the library
     * clears it first, so NULL and the untouched value are both accepted. */
    if (made != stale && made != NULL) {
      violation(call, "failed with %s but left a buffer in *out", clgpu_status_name(status));
    }
    return;
  }
  if (size > arrays.max_alloc) violation(call, "succeeded above CL_DEVICE_MAX_MEM_ALLOC_SIZE");
  size_t real_size = 0;
  if (!made || made == stale ||
      clGetMemObjectInfo(made, CL_MEM_SIZE, sizeof real_size, &real_size, NULL) != CL_SUCCESS ||
      real_size < size) {
    violation(call, "succeeded without a buffer of at least %zu bytes", size);
  }
  held_buffer held = {context, made, -1};
  if (pool->scope_count > 0 && pool->scope_cached[pool->scope_count - 1] &&
      pool->scopes[pool->scope_count - 1] == context) {
    held.scope = (int)pool->scope_count - 1;
  }
  if (pool->held_count == MAX_HELD_BUFFERS) release_held(pool, 0);
  pool->held[pool->held_count++] = held;
  if (take_byte(in) % 2) release_held(pool, pool->held_count - 1);
}

static void end_scope(array_run *pool, clgpu_context *context) {
  const char *call = "clgpu_alloc_scope_end";
  /* A workspace made in the scope may outlive it (workspace.h;
   * test_alloc_cache covers that order); the fuzzer destroys all of its
   * workspaces here all the same. */
  algo_release_workspaces();
  prime_last_error();
  clgpu_status status = clgpu_alloc_scope_end(context);
  check_call(call, status, STATUS_SET(scope_end_statuses, 0), 0);
  if (!context) {
    expect_status(call, status, CLGPU_INVALID_ARGUMENT, "context is NULL");
    return;
  }
  if (pool->scope_count == 0) {
    expect_status(call, status, CLGPU_ALLOC_SCOPE_MISMATCH, "no scope is open");
    return;
  }
  if (pool->scopes[pool->scope_count - 1] != context) {
    expect_status(call, status, CLGPU_ALLOC_SCOPE_MISMATCH, "the innermost scope is elsewhere");
    return;
  }
  expect_status(call, status, CLGPU_SUCCESS, "the innermost scope is on this context");
  pool->scope_count--;
  for (size_t i = pool->held_count; i-- > 0;) {
    if (pool->held[i].scope == (int)pool->scope_count) {
      pool->held[i] = pool->held[--pool->held_count];
    }
  }
}

void op_scope(fuzz_run *run) {
  byte_reader *in = &run->in;
  array_run *pool = &run->pool;
  uint8_t kind = take_byte(in) % 4;
  clgpu_context *context = take_alloc_context(in);
  if (kind == 0 || kind == 1) {
    if (pool->scope_count == MAX_SCOPES) return;
    int null_cache = kind == 0 && take_byte(in) % 4 == 0;
    const char *call = kind == 0 ? "clgpu_alloc_scope_begin" : "clgpu_alloc_uncached_begin";
    prime_last_error();
    clgpu_status status = kind == 0
                              ? clgpu_alloc_scope_begin(context, null_cache ? NULL : arrays.cache)
                              : clgpu_alloc_uncached_begin(context);
    check_call(call, status, STATUS_SET(scope_begin_statuses, 0), 0);
    if (!context || null_cache) {
      expect_status(call, status, CLGPU_INVALID_ARGUMENT, "a NULL argument");
    }
    if (status == CLGPU_SUCCESS) {
      pool->scopes[pool->scope_count] = context;
      pool->scope_cached[pool->scope_count++] = kind == 0;
    }
    return;
  }
  end_scope(pool, kind == 3 ? NULL : context);
}

/* Everything an input made goes back, and every scope it opened closes. */
void finish_arrays(array_run *pool) {
  while (pool->held_count > 0) release_held(pool, pool->held_count - 1);
  while (pool->scope_count > 0) end_scope(pool, pool->scopes[pool->scope_count - 1]);
  end_scope(pool, world.context);
}

/* ---- names and small queries ---- */

void op_algo_names(fuzz_run *run) {
  byte_reader *in = &run->in;
  int value = take_int(in);
  prime_last_error();
  const char *operation = clgpu_operation_name((clgpu_operation)value);
  const char *algorithm = clgpu_algorithm_name((clgpu_algorithm)value);
  const char *shape = clgpu_shape_name((clgpu_shape)value);
  if (!operation || !algorithm || !shape || !*operation || !*algorithm || !*shape) {
    violation("clgpu_operation_name/clgpu_algorithm_name/clgpu_shape_name",
              "gave NULL or empty for %d", value);
  }
  if ((value < CLGPU_SHAPE_AUTO || value > CLGPU_SHAPE_TILED) != (strcmp(shape, "invalid") == 0)) {
    violation("clgpu_shape_name", "is wrong about %d: %s", value, shape);
  }
  if ((value < CLGPU_OPERATION_REDUCE || value > CLGPU_OPERATION_SORT) !=
      (strcmp(operation, "invalid") == 0)) {
    violation("clgpu_operation_name", "is wrong about %d: %s", value, operation);
  }
  if ((value < CLGPU_ALGORITHM_AUTO || value > CLGPU_ALGORITHM_MERGE) !=
      (strcmp(algorithm, "invalid") == 0)) {
    violation("clgpu_algorithm_name", "is wrong about %d: %s", value, algorithm);
  }
  clgpu_reduce_op op = {(clgpu_reduce_kind)take_int(in), NULL, take_type(in), NULL, NULL, NULL};
  if (take_byte(in) % 2) op.kind = (clgpu_reduce_kind)(1 + take_byte(in) % 10);
  clgpu_type input = take_type(in);
  clgpu_type result = clgpu_reduce_result_type(take_byte(in) % 8 ? &op : NULL, input);
  if (result && !clgpu_type_size(result)) violation("clgpu_reduce_result_type", "gave a non-type");
  if (result && !clgpu_type_size(input)) violation("clgpu_reduce_result_type", "took a non-type");
  clgpu_alloc_stats stats;
  clgpu_alloc_cache *cache = take_byte(in) % 4 ? arrays.cache : NULL;
  prime_last_error();
  clgpu_status status = clgpu_alloc_cache_stats(cache, &stats);
  check_call("clgpu_alloc_cache_stats", status, STATUS_SET(plain_statuses, 0), 0);
  if (!cache) expect_status("clgpu_alloc_cache_stats", status, CLGPU_INVALID_ARGUMENT, "NULL");
  size_t released = 0;
  prime_last_error();
  status = clgpu_alloc_cache_trim(cache, take_count(in), take_byte(in) % 2 ? &released : NULL);
  check_call("clgpu_alloc_cache_trim", status, STATUS_SET(plain_statuses, 0), 0);
  if (!cache) expect_status("clgpu_alloc_cache_trim", status, CLGPU_INVALID_ARGUMENT, "NULL");
}
