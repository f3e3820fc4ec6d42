/* The caching allocator: the steady state of a loop makes no device
 * allocation, size classes and the pool key, nested and uncached scopes,
 * allocation outside any scope, the misuse table, two threads on one cache,
 * reuse across queues only after the releasing queue's work completed,
 * trimming, and every order of tearing down contexts, workspaces, scopes and
 * caches, a workspace used and destroyed after its scope, its cache and its
 * context included (run under AddressSanitizer too). OpenCL objects the
 * cache should have released are checked through their reference counts,
 * which LeakSanitizer cannot see. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support.h"

enum { KIB = 1024, MIB = 1024 * 1024 };

static clgpu_context *quiet_context(void) {
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  return test_context(&options);
}

static clgpu_alloc_cache *new_cache(void) {
  clgpu_alloc_cache *cache = NULL;
  assert_status(clgpu_alloc_cache_create(&cache), CLGPU_SUCCESS);
  assert_non_null(cache);
  return cache;
}

static clgpu_alloc_stats stats_of(const clgpu_alloc_cache *cache) {
  clgpu_alloc_stats stats;
  assert_status(clgpu_alloc_cache_stats(cache, &stats), CLGPU_SUCCESS);
  return stats;
}

static void assert_stats_equal(clgpu_alloc_stats actual, clgpu_alloc_stats expected) {
  assert_int_equal(actual.hits, expected.hits);
  assert_int_equal(actual.misses, expected.misses);
  assert_int_equal(actual.device_allocations, expected.device_allocations);
  assert_int_equal(actual.bytes_held, expected.bytes_held);
  assert_int_equal(actual.bytes_in_use, expected.bytes_in_use);
  assert_int_equal(actual.peak_bytes, expected.peak_bytes);
}

static void print_stats(const char *label, clgpu_alloc_stats stats) {
  print_message(
      "# %s: hits %llu, misses %llu, device_allocations %llu, bytes_held %llu, "
      "bytes_in_use %llu, peak_bytes %llu\n",
      label, (unsigned long long)stats.hits, (unsigned long long)stats.misses,
      (unsigned long long)stats.device_allocations, (unsigned long long)stats.bytes_held,
      (unsigned long long)stats.bytes_in_use, (unsigned long long)stats.peak_bytes);
}

static cl_mem create(clgpu_context *context, cl_mem_flags flags, size_t size) {
  cl_mem buffer = NULL;
  assert_status(clgpu_buffer_create(context, flags, size, &buffer), CLGPU_SUCCESS);
  assert_non_null(buffer);
  return buffer;
}

static size_t size_of(cl_mem buffer) {
  size_t size = 0;
  assert_int_equal(clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, NULL), CL_SUCCESS);
  return size;
}

static cl_uint buffer_references(void *buffer) {
  cl_uint count = 0;
  assert_int_equal(
      clGetMemObjectInfo((cl_mem)buffer, CL_MEM_REFERENCE_COUNT, sizeof count, &count, NULL),
      CL_SUCCESS);
  return count;
}

static cl_uint queue_references(void *queue) {
  cl_uint count = 0;
  assert_int_equal(clGetCommandQueueInfo((cl_command_queue)queue, CL_QUEUE_REFERENCE_COUNT,
                                         sizeof count, &count, NULL),
                   CL_SUCCESS);
  return count;
}

/* Write `value` into four words at `offset` of a buffer on `queue`, after
 * the events of the wait list, without waiting. */
static void fill_words(cl_command_queue queue, cl_mem buffer, size_t offset, cl_uint value,
                       cl_uint wait_count, const cl_event *wait_list) {
  assert_int_equal(clEnqueueFillBuffer(queue, buffer, &value, sizeof value, offset,
                                       4 * sizeof value, wait_count, wait_list, NULL),
                   CL_SUCCESS);
}

static void check_words(cl_command_queue queue, cl_mem buffer, size_t offset, cl_uint value) {
  cl_uint words[4] = {0};
  assert_int_equal(
      clEnqueueReadBuffer(queue, buffer, CL_TRUE, offset, sizeof words, words, 0, NULL, NULL),
      CL_SUCCESS);
  for (int i = 0; i < 4; i++) assert_int_equal(words[i], value);
}

/* ---- the acceptance test ---- */

enum { LOOP_ITERATIONS = 1000 };
static const size_t loop_size = 64 * (size_t)MIB;

/* After the first iteration every request is served from the pool, and the
 * block really is reused: each iteration writes its own number into it and
 * reads it back. */
static void check_loop_stats(const char *label, const clgpu_alloc_cache *cache) {
  clgpu_alloc_stats stats = stats_of(cache);
  print_stats(label, stats);
  clgpu_alloc_stats expected = {LOOP_ITERATIONS - 1, 1, 1, loop_size, 0, loop_size};
  assert_stats_equal(stats, expected);
}

static void loop_with_a_scope_per_iteration(void **state) {
  (void)state;
  clgpu_context *context = quiet_context();
  cl_command_queue queue = clgpu_context_queue(context);
  clgpu_alloc_cache *cache = new_cache();
  cl_mem first = NULL;
  for (cl_uint i = 0; i < LOOP_ITERATIONS; i++) {
    assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
    cl_mem buffer = create(context, CL_MEM_READ_WRITE, loop_size);
    if (i == 0) first = buffer;
    assert_ptr_equal(buffer, first);
    size_t offset = (size_t)i * 4096 % loop_size;
    fill_words(queue, buffer, offset, i, 0, NULL);
    check_words(queue, buffer, offset, i);
    /* The block is dropped by ending the scope, not released. */
    assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
    assert_int_equal(stats_of(cache).device_allocations, 1);
  }
  check_loop_stats("1000 scopes of one 64 MiB buffer", cache);
  clgpu_alloc_cache_destroy(cache);
  clgpu_context_destroy(context);
}

static void loop_allocating_and_releasing_in_one_scope(void **state) {
  (void)state;
  clgpu_context *context = quiet_context();
  cl_command_queue queue = clgpu_context_queue(context);
  clgpu_alloc_cache *cache = new_cache();
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  cl_mem first = NULL;
  for (cl_uint i = 0; i < LOOP_ITERATIONS; i++) {
    cl_mem buffer = create(context, CL_MEM_READ_WRITE, loop_size);
    if (i == 0) first = buffer;
    assert_ptr_equal(buffer, first);
    size_t offset = (size_t)(LOOP_ITERATIONS - i) * 8192 % loop_size;
    fill_words(queue, buffer, offset, ~i, 0, NULL);
    check_words(queue, buffer, offset, ~i);
    clgpu_buffer_release(context, buffer);
    assert_int_equal(stats_of(cache).device_allocations, 1);
  }
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  check_loop_stats("1000 allocate/release of one 64 MiB buffer in one scope", cache);
  clgpu_alloc_cache_destroy(cache);
  clgpu_context_destroy(context);
}

/* ---- size classes and the pool key ---- */

typedef struct class_row {
  size_t requested;
  size_t block;
} class_row;

static void size_classes(void **state) {
  (void)state;
  clgpu_context *context = quiet_context();
  clgpu_alloc_cache *cache = new_cache();
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  static const class_row rows[] = {
      {1, 256},
      {256, 256},
      {257, 512},
      {4095, 4096},
      {4096, 4096},
      {4097, 5 * KIB},
      {5 * KIB, 5 * KIB},
      {5 * KIB + 1, 6 * KIB},
      {6 * KIB + 1, 7 * KIB},
      {7 * KIB + 1, 8 * KIB},
      {8 * KIB + 1, 10 * KIB},
      {3 * MIB + 1, 3 * MIB + MIB / 2},
      {64 * (size_t)MIB, 64 * (size_t)MIB},
      {64 * (size_t)MIB + 1, 80 * (size_t)MIB},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    cl_mem buffer = create(context, CL_MEM_READ_WRITE, rows[i].requested);
    if (size_of(buffer) != rows[i].block) {
      fail_msg("a request of %zu bytes got a block of %zu, expected %zu", rows[i].requested,
               size_of(buffer), rows[i].block);
    }
    clgpu_buffer_release(context, buffer);
  }
  /* Rows that share a class made one block between them. */
  clgpu_alloc_stats stats = stats_of(cache);
  assert_int_equal(stats.misses, 11);
  assert_int_equal(stats.hits, 3);

  /* Two sizes of one class share a block; the next class does not. */
  cl_mem small = create(context, CL_MEM_READ_WRITE, 4500);
  cl_mem same_class = NULL, next_class = NULL, read_only = NULL;
  clgpu_buffer_release(context, small);
  same_class = create(context, CL_MEM_READ_WRITE, 5000);
  assert_ptr_equal(same_class, small);
  clgpu_buffer_release(context, same_class);
  /* The next class is served by the 6 KiB block the table made. */
  next_class = create(context, CL_MEM_READ_WRITE, 5200);
  assert_ptr_not_equal(next_class, small);
  assert_int_equal(size_of(next_class), 6 * KIB);
  /* The flags are part of the key: no read-only block of 5 KiB is free. */
  read_only = create(context, CL_MEM_READ_ONLY, 5000);
  assert_ptr_not_equal(read_only, small);
  assert_int_equal(size_of(read_only), 5 * KIB);
  stats = stats_of(cache);
  assert_int_equal(stats.misses, 12);
  assert_int_equal(stats.hits, 6);
  assert_int_equal(stats.device_allocations, 12);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  stats = stats_of(cache);
  assert_int_equal(stats.bytes_in_use, 0);
  assert_int_equal(stats.bytes_held, 256 + 512 + 4096 + 5 * KIB + 6 * KIB + 7 * KIB + 8 * KIB +
                                         10 * KIB + 3 * MIB + MIB / 2 + 64 * MIB + 80 * MIB +
                                         5 * KIB);
  assert_int_equal(stats.peak_bytes, stats.bytes_held);
  clgpu_alloc_cache_destroy(cache);
  clgpu_context_destroy(context);
}

/* ---- scopes ---- */

static void nested_scopes(void **state) {
  (void)state;
  clgpu_context *context = quiet_context();
  clgpu_alloc_cache *cache = new_cache();
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  cl_mem outer = create(context, CL_MEM_READ_WRITE, 10 * KIB);
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  cl_mem inner = create(context, CL_MEM_READ_WRITE, 20 * KIB);
  cl_mem inner_released = create(context, CL_MEM_READ_WRITE, 40 * KIB);
  clgpu_buffer_release(context, inner_released);
  /* A second release of a block already back in the pool changes nothing. */
  clgpu_buffer_release(context, inner_released);
  assert_int_equal(stats_of(cache).bytes_held, 40 * KIB);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  /* The inner scope gave back its block; the outer one is still out. */
  clgpu_alloc_stats stats = stats_of(cache);
  assert_int_equal(stats.bytes_in_use, 10 * KIB);
  assert_int_equal(stats.bytes_held, 20 * KIB + 40 * KIB);
  cl_mem again = create(context, CL_MEM_READ_WRITE, 20 * KIB);
  assert_ptr_equal(again, inner);
  assert_ptr_not_equal(again, outer);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  stats = stats_of(cache);
  clgpu_alloc_stats expected = {1, 3, 3, 70 * KIB, 0, 70 * KIB};
  assert_stats_equal(stats, expected);

  /* An uncached scope inside a cached one makes plain buffers of the exact
   * size, which outlive both scopes. */
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  assert_status(clgpu_alloc_uncached_begin(context), CLGPU_SUCCESS);
  cl_mem plain = create(context, CL_MEM_READ_WRITE, 10 * KIB);
  assert_ptr_not_equal(plain, outer);
  assert_int_equal(size_of(plain), 10 * KIB);
  /* A cached scope inside the uncached one is served by the cache again. */
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  cl_mem cached = create(context, CL_MEM_READ_WRITE, 10 * KIB);
  assert_ptr_equal(cached, outer);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  expected.hits = 2;
  assert_stats_equal(stats_of(cache), expected);
  cl_command_queue queue = clgpu_context_queue(context);
  fill_words(queue, plain, 64, 0xC0FFEEu, 0, NULL);
  check_words(queue, plain, 64, 0xC0FFEEu);
  assert_int_equal(test_settled_references(buffer_references, plain, 1), 1);
  clgpu_buffer_release(context, plain);
  assert_stats_equal(stats_of(cache), expected);
  clgpu_alloc_cache_destroy(cache);
  clgpu_context_destroy(context);
}

static void outside_any_scope(void **state) {
  (void)state;
  clgpu_context *context = quiet_context();
  clgpu_context *other = quiet_context();
  clgpu_alloc_cache *cache = new_cache();
  cl_mem plain = create(context, CL_MEM_READ_WRITE, 5000);
  assert_int_equal(size_of(plain), 5000);
  assert_int_equal(buffer_references(plain), 1);
  clgpu_buffer_release(context, plain);
  /* A scope serves requests on its own context only: another context's
   * request inside it is plain too. */
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  cl_mem elsewhere = create(other, CL_MEM_READ_WRITE, 5000);
  assert_int_equal(size_of(elsewhere), 5000);
  clgpu_buffer_release(other, elsewhere);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  clgpu_alloc_stats nothing = {0, 0, 0, 0, 0, 0};
  assert_stats_equal(stats_of(cache), nothing);
  clgpu_alloc_cache_destroy(cache);
  clgpu_context_destroy(other);
  clgpu_context_destroy(context);
}

/* ---- misuse ---- */

typedef struct fixture {
  clgpu_context *context;
  clgpu_context *other;
  clgpu_alloc_cache *cache;
} fixture;

static clgpu_status end_without_scope(fixture *f) { return clgpu_alloc_scope_end(f->context); }

static clgpu_status end_on_another_context(fixture *f) {
  assert_status(clgpu_alloc_scope_begin(f->context, f->cache), CLGPU_SUCCESS);
  clgpu_status status = clgpu_alloc_scope_end(f->other);
  /* The refused end left the scope open. */
  assert_status(clgpu_alloc_scope_end(f->context), CLGPU_SUCCESS);
  return status;
}

static clgpu_status end_uncached_on_another_context(fixture *f) {
  assert_status(clgpu_alloc_uncached_begin(f->other), CLGPU_SUCCESS);
  clgpu_status status = clgpu_alloc_scope_end(f->context);
  assert_status(clgpu_alloc_scope_end(f->other), CLGPU_SUCCESS);
  return status;
}

static clgpu_status create_null_out(fixture *f) {
  (void)f;
  return clgpu_alloc_cache_create(NULL);
}

static clgpu_status begin_null_context(fixture *f) {
  return clgpu_alloc_scope_begin(NULL, f->cache);
}

static clgpu_status begin_null_cache(fixture *f) {
  return clgpu_alloc_scope_begin(f->context, NULL);
}

static clgpu_status uncached_null_context(fixture *f) {
  (void)f;
  return clgpu_alloc_uncached_begin(NULL);
}

static clgpu_status end_null_context(fixture *f) {
  (void)f;
  return clgpu_alloc_scope_end(NULL);
}

static clgpu_status stats_null_cache(fixture *f) {
  (void)f;
  clgpu_alloc_stats stats;
  return clgpu_alloc_cache_stats(NULL, &stats);
}

static clgpu_status stats_null_out(fixture *f) { return clgpu_alloc_cache_stats(f->cache, NULL); }

static clgpu_status trim_null_cache(fixture *f) {
  (void)f;
  size_t released = 1;
  clgpu_status status = clgpu_alloc_cache_trim(NULL, 0, &released);
  assert_int_equal(released, 0);
  return status;
}

/* A buffer request in a cached scope and outside any scope; both must give
 * the same status, leave *out NULL and change no counter. */
static clgpu_status refused_request(fixture *f, clgpu_context *context, cl_mem_flags flags,
                                    size_t size, int null_out) {
  clgpu_status statuses[2];
  for (int scoped = 0; scoped < 2; scoped++) {
    if (scoped) assert_status(clgpu_alloc_scope_begin(f->context, f->cache), CLGPU_SUCCESS);
    cl_mem buffer = (cl_mem)&buffer;
    statuses[scoped] = clgpu_buffer_create(context, flags, size, null_out ? NULL : &buffer);
    if (!null_out) assert_null(buffer);
    if (scoped) assert_status(clgpu_alloc_scope_end(f->context), CLGPU_SUCCESS);
  }
  assert_status(statuses[1], statuses[0]);
  return statuses[0];
}

static clgpu_status create_null_context(fixture *f) {
  return refused_request(f, NULL, CL_MEM_READ_WRITE, 64, 0);
}

static clgpu_status create_null_buffer(fixture *f) {
  return refused_request(f, f->context, CL_MEM_READ_WRITE, 64, 1);
}

static clgpu_status create_size_zero(fixture *f) {
  return refused_request(f, f->context, CL_MEM_READ_WRITE, 0, 0);
}

static clgpu_status create_use_host_ptr(fixture *f) {
  return refused_request(f, f->context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 64, 0);
}

static clgpu_status create_copy_host_ptr(fixture *f) {
  return refused_request(f, f->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 64, 0);
}

static clgpu_status create_above_max_allocation(fixture *f) {
  cl_ulong largest = clgpu_context_device_info(f->context)->max_mem_alloc_size;
  clgpu_status status = refused_request(f, f->context, CL_MEM_READ_WRITE, (size_t)largest + 1, 0);
  /* The message names the limit. */
  char limit[32];
  snprintf(limit, sizeof limit, "%llu", (unsigned long long)largest);
  assert_non_null(strstr(clgpu_last_error(), limit));
  return status;
}

typedef struct misuse_row {
  const char *what;
  clgpu_status (*call)(fixture *);
  clgpu_status expected;
} misuse_row;

static void misuse(void **state) {
  (void)state;
  fixture f = {quiet_context(), quiet_context(), new_cache()};
  static const misuse_row rows[] = {
      {"end with no scope open", end_without_scope, CLGPU_ALLOC_SCOPE_MISMATCH},
      {"end on another context", end_on_another_context, CLGPU_ALLOC_SCOPE_MISMATCH},
      {"end of an uncached scope on another context", end_uncached_on_another_context,
       CLGPU_ALLOC_SCOPE_MISMATCH},
      {"cache_create(NULL)", create_null_out, CLGPU_INVALID_ARGUMENT},
      {"scope_begin(NULL, cache)", begin_null_context, CLGPU_INVALID_ARGUMENT},
      {"scope_begin(context, NULL)", begin_null_cache, CLGPU_INVALID_ARGUMENT},
      {"uncached_begin(NULL)", uncached_null_context, CLGPU_INVALID_ARGUMENT},
      {"scope_end(NULL)", end_null_context, CLGPU_INVALID_ARGUMENT},
      {"cache_stats(NULL, stats)", stats_null_cache, CLGPU_INVALID_ARGUMENT},
      {"cache_stats(cache, NULL)", stats_null_out, CLGPU_INVALID_ARGUMENT},
      {"cache_trim(NULL)", trim_null_cache, CLGPU_INVALID_ARGUMENT},
      {"buffer_create(NULL context)", create_null_context, CLGPU_INVALID_ARGUMENT},
      {"buffer_create(out NULL)", create_null_buffer, CLGPU_INVALID_ARGUMENT},
      {"buffer_create(size 0)", create_size_zero, CLGPU_INVALID_ARGUMENT},
      {"buffer_create(CL_MEM_USE_HOST_PTR)", create_use_host_ptr, CLGPU_INVALID_ARGUMENT},
      {"buffer_create(CL_MEM_COPY_HOST_PTR)", create_copy_host_ptr, CLGPU_INVALID_ARGUMENT},
      {"buffer_create(max allocation + 1)", create_above_max_allocation,
       CLGPU_CL_INVALID_BUFFER_SIZE},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    clgpu_alloc_stats before = stats_of(f.cache);
    clgpu_status status = rows[i].call(&f);
    if (status != rows[i].expected) {
      fail_msg("%s: got %s, expected %s (%s)", rows[i].what, clgpu_status_name(status),
               clgpu_status_name(rows[i].expected), clgpu_last_error());
    }
    assert_true(strlen(clgpu_last_error()) > 0);
    /* Only the row that shows the cache still works may change a counter. */
    assert_stats_equal(stats_of(f.cache), before);
  }
  /* Every row closed what it opened: ending now finds no scope. */
  assert_status(clgpu_alloc_scope_end(f.context), CLGPU_ALLOC_SCOPE_MISMATCH);
  clgpu_buffer_release(f.context, NULL);
  clgpu_alloc_cache_destroy(NULL);
  clgpu_alloc_cache_destroy(f.cache);
  clgpu_context_destroy(f.other);
  clgpu_context_destroy(f.context);
}

/* A scope open on another thread keeps the cache from being destroyed. */
typedef struct scope_holder {
  clgpu_context *context;
  clgpu_alloc_cache *cache;
  pthread_barrier_t *opened;
  pthread_barrier_t *checked;
} scope_holder;

static void *hold_a_scope(void *argument) {
  scope_holder *self = argument;
  clgpu_status begun = clgpu_alloc_scope_begin(self->context, self->cache);
  pthread_barrier_wait(self->opened);
  pthread_barrier_wait(self->checked);
  if (begun == CLGPU_SUCCESS) clgpu_alloc_scope_end(self->context);
  return NULL;
}

/* A destroy while a scope is open on the cache only marks it: the scope
 * goes on serving blocks, and its end frees the cache (a leak under the
 * sanitizers otherwise). */
static void destroy_with_a_scope_open_waits_for_its_end(void **state) {
  (void)state;
  clgpu_context *context = quiet_context();
  clgpu_alloc_cache *cache = new_cache();
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  cl_mem first = create(context, CL_MEM_READ_WRITE, 1000);
  assert_int_equal(size_of(first), 1024);
  clgpu_buffer_release(context, first);
  clgpu_alloc_cache_destroy(cache);
  /* Still served from the cache: the block just given back. */
  cl_mem again = create(context, CL_MEM_READ_WRITE, 1000);
  assert_ptr_equal(again, first);
  clgpu_buffer_release(context, again);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  /* The cache is gone; a new scope on the context uses plain buffers. */
  cl_mem plain = create(context, CL_MEM_READ_WRITE, 1000);
  assert_int_equal(size_of(plain), 1000);
  clgpu_buffer_release(context, plain);
  clgpu_context_destroy(context);
}

static void scope_on_another_thread_defers_destroy(void **state) {
  (void)state;
  clgpu_context *context = quiet_context();
  clgpu_alloc_cache *cache = new_cache();
  pthread_barrier_t opened, checked;
  pthread_barrier_init(&opened, NULL, 2);
  pthread_barrier_init(&checked, NULL, 2);
  scope_holder holder = {context, cache, &opened, &checked};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, hold_a_scope, &holder), 0);
  pthread_barrier_wait(&opened);
  /* Returns at once; the other thread's scope end frees the cache. */
  clgpu_alloc_cache_destroy(cache);
  /* This thread has no scope of its own. */
  clgpu_status no_scope = clgpu_alloc_scope_end(context);
  pthread_barrier_wait(&checked);
  pthread_join(thread, NULL);
  pthread_barrier_destroy(&opened);
  pthread_barrier_destroy(&checked);
  assert_status(no_scope, CLGPU_ALLOC_SCOPE_MISMATCH);
  clgpu_context_destroy(context);
}

/* ---- threads ---- */

enum { WORKERS = 2, WORKER_ROUNDS = 300, WORKER_WORDS = 1000 };

typedef struct worker {
  clgpu_context *context;
  clgpu_alloc_cache *cache;
  pthread_barrier_t *start;
  cl_uint id;
  const char *failure; /* NULL when every round read back its pattern */
} worker;

static void *allocate_and_check(void *argument) {
  worker *self = argument;
  cl_uint *written = malloc(WORKER_WORDS * sizeof *written);
  cl_uint *read = malloc(WORKER_WORDS * sizeof *read);
  cl_command_queue queue = clgpu_context_queue(self->context);
  pthread_barrier_wait(self->start);
  int begun = clgpu_alloc_scope_begin(self->context, self->cache) == CLGPU_SUCCESS;
  if (!written || !read || !begun) self->failure = "setup failed";
  for (cl_uint round = 0; round < WORKER_ROUNDS && !self->failure; round++) {
    cl_mem buffer = NULL;
    if (clgpu_buffer_create(self->context, CL_MEM_READ_WRITE, WORKER_WORDS * sizeof(cl_uint),
                            &buffer) != CLGPU_SUCCESS) {
      self->failure = "clgpu_buffer_create failed";
      break;
    }
    for (cl_uint i = 0; i < WORKER_WORDS; i++) written[i] = self->id << 28 | round << 12 | i;
    if (clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, WORKER_WORDS * sizeof(cl_uint), written, 0,
                             NULL, NULL) != CL_SUCCESS ||
        clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, WORKER_WORDS * sizeof(cl_uint), read, 0,
                            NULL, NULL) != CL_SUCCESS) {
      self->failure = "a write or read failed";
    } else if (memcmp(written, read, WORKER_WORDS * sizeof(cl_uint)) != 0) {
      self->failure = "read back another pattern than written";
    }
    clgpu_buffer_release(self->context, buffer);
  }
  if (begun && clgpu_alloc_scope_end(self->context) != CLGPU_SUCCESS && !self->failure) {
    self->failure = "clgpu_alloc_scope_end failed";
  }
  free(written);
  free(read);
  return NULL;
}

static void two_threads_on_one_cache(void **state) {
  (void)state;
  clgpu_context *context = quiet_context();
  clgpu_alloc_cache *cache = new_cache();
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, WORKERS);
  worker workers[WORKERS];
  pthread_t threads[WORKERS];
  for (cl_uint i = 0; i < WORKERS; i++) {
    workers[i] = (worker){context, cache, &start, i + 1, NULL};
    assert_int_equal(pthread_create(&threads[i], NULL, allocate_and_check, &workers[i]), 0);
  }
  for (int i = 0; i < WORKERS; i++) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&start);
  for (int i = 0; i < WORKERS; i++) {
    if (workers[i].failure) fail_msg("thread %d: %s", i, workers[i].failure);
  }
  clgpu_alloc_stats stats = stats_of(cache);
  print_stats("two threads", stats);
  assert_int_equal(stats.hits + stats.misses, WORKERS * WORKER_ROUNDS);
  assert_int_equal(stats.device_allocations, stats.misses);
  /* At most one block per thread is out at any time, and on the shared
   * in-order queue a released block is free for the other thread at once. */
  assert_true(stats.misses >= 1 && stats.misses <= WORKERS);
  assert_int_equal(stats.bytes_in_use, 0);
  assert_int_equal(stats.bytes_held, stats.misses * 4096);
  assert_int_equal(stats.peak_bytes, stats.bytes_held);
  clgpu_alloc_cache_destroy(cache);
  clgpu_context_destroy(context);
}

/* ---- queues ---- */

static cl_event user_event(cl_context context) {
  cl_int err = CL_SUCCESS;
  cl_event event = clCreateUserEvent(context, &err);
  assert_int_equal(err, CL_SUCCESS);
  return event;
}

static clgpu_context *wrap_with_queue(clgpu_context *base, cl_command_queue_properties properties,
                                      cl_command_queue *queue) {
  cl_int err = CL_SUCCESS;
  *queue = clCreateCommandQueue(clgpu_context_cl_context(base), clgpu_context_device(base),
                                properties, &err);
  assert_int_equal(err, CL_SUCCESS);
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  clgpu_context *wrapped = NULL;
  assert_status(clgpu_context_wrap(clgpu_context_cl_context(base), clgpu_context_device(base),
                                   *queue, &options, &wrapped),
                CLGPU_SUCCESS);
  return wrapped;
}

static void reuse_across_queues_waits_for_the_marker(void **state) {
  (void)state;
  enum { SIZE = 64 * KIB };
  clgpu_context *a = quiet_context();
  cl_command_queue queue_a = clgpu_context_queue(a);
  cl_command_queue queue_b = NULL;
  clgpu_context *b = wrap_with_queue(a, 0, &queue_b);
  cl_uint references_a = queue_references(queue_a);
  clgpu_alloc_cache *cache = new_cache();

  /* Queue A is held back behind a user event; the block's last work on A
   * (a fill) is waiting for it when the block is released. */
  cl_event hold = user_event(clgpu_context_cl_context(a));
  assert_status(clgpu_alloc_scope_begin(a, cache), CLGPU_SUCCESS);
  cl_mem first = create(a, CL_MEM_READ_WRITE, SIZE);
  fill_words(queue_a, first, 0, 0xA, 1, &hold);
  clgpu_buffer_release(a, first);
  /* On the same in-order queue the block is reusable at once. */
  cl_mem same_queue = create(a, CL_MEM_READ_WRITE, SIZE);
  assert_ptr_equal(same_queue, first);
  clgpu_buffer_release(a, same_queue);
  assert_status(clgpu_alloc_scope_end(a), CLGPU_SUCCESS);

  /* On queue B it is not, while A's marker is pending. */
  assert_status(clgpu_alloc_scope_begin(b, cache), CLGPU_SUCCESS);
  cl_mem on_b = create(b, CL_MEM_READ_WRITE, SIZE);
  assert_ptr_not_equal(on_b, first);
  clgpu_alloc_stats stats = stats_of(cache);
  assert_int_equal(stats.misses, 2);
  assert_int_equal(stats.hits, 1);
  assert_int_equal(clSetUserEventStatus(hold, CL_COMPLETE), CL_SUCCESS);
  assert_int_equal(clFinish(queue_a), CL_SUCCESS);
  cl_mem after = create(b, CL_MEM_READ_WRITE, SIZE);
  assert_ptr_equal(after, first);
  assert_int_equal(stats_of(cache).hits, 2);
  /* The block holds what A wrote into it. */
  check_words(queue_b, after, 0, 0xA);
  assert_status(clgpu_alloc_scope_end(b), CLGPU_SUCCESS);
  assert_int_equal(clFinish(queue_b), CL_SUCCESS);
  clReleaseEvent(hold);

  /* A block handed out on A and released through B waits for the work of
   * both queues: B (in order, behind the joining marker) may take it at
   * once, A may not until the work has completed. */
  hold = user_event(clgpu_context_cl_context(a));
  assert_status(clgpu_alloc_scope_begin(a, cache), CLGPU_SUCCESS);
  cl_mem crossing = create(a, CL_MEM_READ_WRITE, SIZE);
  fill_words(queue_a, crossing, 0, 0xB, 1, &hold);
  clgpu_buffer_release(b, crossing);
  cl_mem back_on_a = create(a, CL_MEM_READ_WRITE, SIZE);
  assert_ptr_not_equal(back_on_a, crossing);
  assert_status(clgpu_alloc_scope_begin(b, cache), CLGPU_SUCCESS);
  cl_mem taken_on_b = create(b, CL_MEM_READ_WRITE, SIZE);
  assert_ptr_equal(taken_on_b, crossing);
  assert_status(clgpu_alloc_scope_end(b), CLGPU_SUCCESS);
  assert_int_equal(clSetUserEventStatus(hold, CL_COMPLETE), CL_SUCCESS);
  assert_status(clgpu_alloc_scope_end(a), CLGPU_SUCCESS);
  assert_int_equal(clFinish(queue_a), CL_SUCCESS);
  assert_int_equal(clFinish(queue_b), CL_SUCCESS);
  clReleaseEvent(hold);
  stats = stats_of(cache);
  clgpu_alloc_stats expected = {5, 2, 2, 2 * SIZE, 0, 2 * SIZE};
  assert_stats_equal(stats, expected);

  /* The cache retained the queues its blocks were last used on and gives
   * them back when it goes. */
  clgpu_alloc_cache_destroy(cache);
  assert_int_equal(test_settled_references(queue_references, queue_a, references_a), references_a);
  clgpu_context_destroy(b);
  assert_int_equal(test_settled_references(queue_references, queue_b, 1), 1);
  clReleaseCommandQueue(queue_b);
  clgpu_context_destroy(a);
}

static void out_of_order_queue_waits_for_the_marker(void **state) {
  (void)state;
  clgpu_context *base = quiet_context();
  cl_command_queue_properties supported = 0;
  assert_int_equal(clGetDeviceInfo(clgpu_context_device(base), CL_DEVICE_QUEUE_PROPERTIES,
                                   sizeof supported, &supported, NULL),
                   CL_SUCCESS);
  if (!(supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
    print_message("# the device has no out-of-order queues: nothing to test\n");
    clgpu_context_destroy(base);
    skip();
  }
  cl_command_queue queue = NULL;
  clgpu_context *context = wrap_with_queue(base, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &queue);
  clgpu_alloc_cache *cache = new_cache();
  cl_event hold = user_event(clgpu_context_cl_context(base));
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  cl_mem first = create(context, CL_MEM_READ_WRITE, 4 * KIB);
  fill_words(queue, first, 0, 0xD, 1, &hold);
  clgpu_buffer_release(context, first);
  /* Later commands on an out-of-order queue may run before the fill. */
  cl_mem second = create(context, CL_MEM_READ_WRITE, 4 * KIB);
  assert_ptr_not_equal(second, first);
  assert_int_equal(clSetUserEventStatus(hold, CL_COMPLETE), CL_SUCCESS);
  assert_int_equal(clFinish(queue), CL_SUCCESS);
  cl_mem third = create(context, CL_MEM_READ_WRITE, 4 * KIB);
  assert_ptr_equal(third, first);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  assert_int_equal(clFinish(queue), CL_SUCCESS);
  clReleaseEvent(hold);
  clgpu_alloc_stats expected = {1, 2, 2, 8 * KIB, 0, 8 * KIB};
  assert_stats_equal(stats_of(cache), expected);
  clgpu_alloc_cache_destroy(cache);
  clgpu_context_destroy(context);
  clReleaseCommandQueue(queue);
  clgpu_context_destroy(base);
}

/* ---- trim ---- */

static void trim_releases_free_blocks(void **state) {
  (void)state;
  clgpu_context *context = quiet_context();
  clgpu_alloc_cache *cache = new_cache();
  static const size_t sizes[] = {256, 8 * KIB, 64 * KIB, 1 * MIB};
  const size_t total = 256 + 8 * KIB + 64 * KIB + 1 * MIB;
  cl_mem kept[4];
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  for (int i = 0; i < 4; i++) {
    kept[i] = create(context, CL_MEM_READ_WRITE, sizes[i]);
    /* The test keeps a reference to see the cache let go of the buffer. */
    clRetainMemObject(kept[i]);
  }
  cl_mem in_use = create(context, CL_MEM_READ_WRITE, 5000);
  for (int i = 0; i < 4; i++) clgpu_buffer_release(context, kept[i]);
  assert_int_equal(stats_of(cache).bytes_held, total);

  size_t released = 1;
  assert_status(clgpu_alloc_cache_trim(cache, total, &released), CLGPU_SUCCESS);
  assert_int_equal(released, 0);
  assert_status(clgpu_alloc_cache_trim(cache, 100 * KIB, &released), CLGPU_SUCCESS);
  clgpu_alloc_stats stats = stats_of(cache);
  assert_true(stats.bytes_held <= 100 * KIB);
  assert_int_equal(stats.bytes_held + released, total);
  assert_int_equal(stats.bytes_in_use, 5 * KIB);
  assert_status(clgpu_alloc_cache_trim(cache, 0, NULL), CLGPU_SUCCESS);
  stats = stats_of(cache);
  assert_int_equal(stats.bytes_held, 0);
  /* Blocks in use are not touched; the released ones are gone from the
   * device, so asking again allocates anew. */
  assert_int_equal(stats.bytes_in_use, 5 * KIB);
  for (int i = 0; i < 4; i++) {
    assert_int_equal(test_settled_references(buffer_references, kept[i], 1), 1);
    clReleaseMemObject(kept[i]);
  }
  cl_mem again = create(context, CL_MEM_READ_WRITE, 8 * KIB);
  assert_int_equal(stats_of(cache).device_allocations, 6);
  clgpu_buffer_release(context, again);
  clgpu_buffer_release(context, in_use);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  stats = stats_of(cache);
  assert_int_equal(stats.bytes_held, 8 * KIB + 5 * KIB);
  assert_int_equal(stats.peak_bytes, total + 5 * KIB);

  /* Destroying the cache releases what it still holds. */
  clRetainMemObject(in_use);
  clgpu_alloc_cache_destroy(cache);
  assert_int_equal(test_settled_references(buffer_references, in_use, 1), 1);
  clReleaseMemObject(in_use);
  clgpu_context_destroy(context);
}

/* ---- lifetimes: a context destroyed before what was made in its scopes ---- */

/* Sum 1..n (uint64) on the device with clgpu_reduce_read, through
 * `workspace` (NULL: the call allocates), and compare with n(n+1)/2. The
 * input is a plain buffer, so that it never comes from a cache. */
static void check_sum(clgpu_context *context, clgpu_workspace *workspace, size_t n) {
  uint64_t *values = malloc(n * sizeof *values);
  assert_non_null(values);
  for (size_t i = 0; i < n; i++) values[i] = i + 1;
  cl_int err = CL_SUCCESS;
  cl_mem input_buffer = clCreateBuffer(clgpu_context_cl_context(context),
                                       CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                       n * sizeof *values, values, &err);
  assert_int_equal(err, CL_SUCCESS);
  free(values);
  clgpu_array input;
  assert_status(clgpu_array_1d(input_buffer, 0, CLGPU_TYPE_UINT64, n, &input), CLGPU_SUCCESS);
  clgpu_reduce_op sum = {CLGPU_REDUCE_SUM, NULL, 0, NULL, NULL, NULL};
  clgpu_call_options options = {.shape = CLGPU_SHAPE_AUTO, .workspace = workspace};
  uint64_t result = 0;
  assert_status(clgpu_reduce_read(context, &sum, &result, sizeof result, &input, &options),
                CLGPU_SUCCESS);
  assert_int_equal(result, (uint64_t)n * (n + 1) / 2);
  clReleaseMemObject(input_buffer);
}

/* A workspace for any sum of up to `max_n` uint64. */
static clgpu_workspace *sum_workspace(clgpu_context *context, uint64_t max_n) {
  clgpu_reduce_op sum = {CLGPU_REDUCE_SUM, NULL, 0, NULL, NULL, NULL};
  clgpu_workspace_size report;
  assert_status(
      clgpu_reduce_workspace_size_upto(context, &sum, CLGPU_TYPE_UINT64, max_n, NULL, &report),
      CLGPU_SUCCESS);
  clgpu_workspace *workspace = NULL;
  assert_status(clgpu_workspace_create(context, &report, &workspace), CLGPU_SUCCESS);
  assert_non_null(workspace);
  return workspace;
}

static cl_mem retained_region(const clgpu_workspace *workspace) {
  cl_mem buffer = NULL;
  assert_status(clgpu_workspace_region(workspace, &buffer, NULL, NULL), CLGPU_SUCCESS);
  assert_non_null(buffer);
  clRetainMemObject(buffer);
  return buffer;
}

/* A workspace made in a scope and destroyed after its context, then the
 * scope closed: the workspace's block goes back to the pool, the scope keeps
 * the context's queue until it ends, and the context's last reference gives
 * its blocks back to the device. A workspace made outside any scope (a plain
 * buffer) outlives its context too. */
static void context_destroyed_before_its_workspace(void **state) {
  (void)state;
  enum { N = 5000 };
  clgpu_context *context = quiet_context();
  clgpu_alloc_cache *cache = new_cache();
  cl_command_queue queue = clgpu_context_queue(context);
  clRetainCommandQueue(queue);
  clgpu_workspace *plain = sum_workspace(context, N);
  assert_int_equal(stats_of(cache).misses, 0);

  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  clgpu_workspace *scoped = sum_workspace(context, N);
  cl_mem block = retained_region(scoped);
  clgpu_alloc_stats stats = stats_of(cache);
  assert_int_equal(stats.misses, 1);
  assert_int_equal(stats.bytes_in_use, size_of(block));
  check_sum(context, scoped, N);
  check_sum(context, plain, N);
  assert_int_equal(clFinish(queue), CL_SUCCESS);

  clgpu_context_destroy(context);
  /* The open scope still holds the context, and so its queue. */
  assert_true(queue_references(queue) >= 2);
  clgpu_workspace_destroy(scoped);
  clgpu_workspace_destroy(plain);
  stats = stats_of(cache);
  assert_int_equal(stats.bytes_in_use, 0);
  assert_int_equal(stats.bytes_held, size_of(block));

  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  /* The context is gone now: its block left the pool and the device, and
   * the queue is held by this test alone. */
  stats = stats_of(cache);
  assert_int_equal(stats.bytes_held, 0);
  assert_int_equal(stats.bytes_in_use, 0);
  assert_int_equal(test_settled_references(buffer_references, block, 1), 1);
  /* POCL's buffers hold their last command's event, and so its queue. */
  clReleaseMemObject(block);
  assert_int_equal(test_settled_references(queue_references, queue, 1), 1);
  clReleaseCommandQueue(queue);
  clgpu_alloc_cache_destroy(cache);
}

/* A context destroyed with a scope open: the cache refuses to go while the
 * scope is open, a context made meanwhile is another one (never the old
 * address, never served by the old scope), the scope closes with the
 * destroyed context's handle, and then the cache goes. */
static void context_destroyed_with_a_scope_open(void **state) {
  (void)state;
  enum { SIZE = 64 * KIB };
  clgpu_context *context = quiet_context();
  clgpu_alloc_cache *cache = new_cache();
  cl_command_queue queue = clgpu_context_queue(context);
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  cl_mem block = create(context, CL_MEM_READ_WRITE, SIZE);
  clRetainMemObject(block);
  fill_words(queue, block, 0, 0x5EED, 0, NULL);
  clgpu_context_destroy(context);
  /* Work enqueued before the destroy completes, on the queue the scope
   * keeps. */
  check_words(queue, block, 0, 0x5EED);

  clgpu_context *later = quiet_context();
  assert_ptr_not_equal(later, context);
  clgpu_alloc_stats before = stats_of(cache);
  cl_mem plain = create(later, CL_MEM_READ_WRITE, SIZE);
  assert_ptr_not_equal(plain, block);
  /* The old scope is on another context: the request was not the cache's. */
  assert_stats_equal(stats_of(cache), before);
  clgpu_buffer_release(later, plain);
  assert_status(clgpu_alloc_scope_end(later), CLGPU_ALLOC_SCOPE_MISMATCH);
  assert_non_null(strstr(clgpu_last_error(), "another context"));

  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  clgpu_alloc_stats stats = stats_of(cache);
  assert_int_equal(stats.bytes_in_use, 0);
  assert_int_equal(stats.bytes_held, 0);
  assert_int_equal(test_settled_references(buffer_references, block, 1), 1);
  clReleaseMemObject(block);
  clgpu_alloc_cache_destroy(cache);
  clgpu_context_destroy(later);
}

static cl_context context_of(cl_mem buffer) {
  cl_context owner = NULL;
  assert_int_equal(clGetMemObjectInfo(buffer, CL_MEM_CONTEXT, sizeof owner, &owner, NULL),
                   CL_SUCCESS);
  return owner;
}

/* The free blocks of a destroyed context leave the cache with it: a context
 * made afterwards allocates its own, of its own OpenCL context, even when
 * it lands at the old one's address. */
static void second_context_gets_none_of_the_first_ones_blocks(void **state) {
  (void)state;
  static const size_t sizes[] = {256, 8 * KIB, 1 * MIB};
  const size_t total = 256 + 8 * KIB + 1 * MIB;
  clgpu_alloc_cache *cache = new_cache();
  clgpu_context *first = quiet_context();
  cl_mem old_blocks[3];
  assert_status(clgpu_alloc_scope_begin(first, cache), CLGPU_SUCCESS);
  for (int i = 0; i < 3; i++) {
    old_blocks[i] = create(first, CL_MEM_READ_WRITE, sizes[i]);
    clRetainMemObject(old_blocks[i]);
  }
  assert_status(clgpu_alloc_scope_end(first), CLGPU_SUCCESS);
  assert_int_equal(stats_of(cache).bytes_held, total);
  clgpu_context_destroy(first);
  clgpu_alloc_stats stats = stats_of(cache);
  assert_int_equal(stats.bytes_held, 0);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(test_settled_references(buffer_references, old_blocks[i], 1), 1);
  }

  clgpu_context *second = quiet_context();
  assert_status(clgpu_alloc_scope_begin(second, cache), CLGPU_SUCCESS);
  for (int i = 0; i < 3; i++) {
    cl_mem block = create(second, CL_MEM_READ_WRITE, sizes[i]);
    assert_ptr_not_equal(block, old_blocks[i]);
    assert_ptr_equal(context_of(block), clgpu_context_cl_context(second));
  }
  stats = stats_of(cache);
  assert_int_equal(stats.hits, 0);
  assert_int_equal(stats.device_allocations, 6);
  assert_int_equal(stats.bytes_in_use, total);
  check_sum(second, NULL, 1000);
  assert_status(clgpu_alloc_scope_end(second), CLGPU_SUCCESS);
  for (int i = 0; i < 3; i++) clReleaseMemObject(old_blocks[i]);
  clgpu_alloc_cache_destroy(cache);
  clgpu_context_destroy(second);
}

/* Two contexts on one cache with their scopes nested on one thread; the
 * outer one's context is destroyed first, the inner one keeps working
 * (blocks and a workspace served, a kernel run through it), and each
 * context's blocks leave the cache when its last reference goes. */
static void interleaved_contexts_share_one_cache(void **state) {
  (void)state;
  enum { N = 3000 };
  clgpu_alloc_cache *cache = new_cache();
  clgpu_context *a = quiet_context();
  clgpu_context *b = quiet_context();
  assert_status(clgpu_alloc_scope_begin(a, cache), CLGPU_SUCCESS);
  cl_mem on_a = create(a, CL_MEM_READ_WRITE, 8 * KIB);
  assert_status(clgpu_alloc_scope_begin(b, cache), CLGPU_SUCCESS);
  cl_mem on_b = create(b, CL_MEM_READ_WRITE, 8 * KIB);
  assert_ptr_not_equal(on_a, on_b);
  clgpu_context_destroy(a);

  clgpu_workspace *workspace = sum_workspace(b, N);
  cl_mem workspace_block = retained_region(workspace);
  size_t workspace_bytes = size_of(workspace_block);
  check_sum(b, workspace, N);
  clgpu_workspace_destroy(workspace);
  clgpu_buffer_release(b, on_b);
  /* Served again from the pool, on B's own OpenCL context. */
  cl_mem again = create(b, CL_MEM_READ_WRITE, 8 * KIB);
  assert_ptr_equal(again, on_b);
  assert_status(clgpu_alloc_scope_end(a), CLGPU_ALLOC_SCOPE_MISMATCH);
  assert_status(clgpu_alloc_scope_end(b), CLGPU_SUCCESS);
  clgpu_alloc_stats stats = stats_of(cache);
  assert_int_equal(stats.bytes_in_use, 8 * KIB);
  assert_int_equal(stats.bytes_held, 8 * KIB + workspace_bytes);

  /* A's scope is the innermost now; its end frees A and A's block. */
  assert_status(clgpu_alloc_scope_end(a), CLGPU_SUCCESS);
  stats = stats_of(cache);
  assert_int_equal(stats.bytes_in_use, 0);
  assert_int_equal(stats.bytes_held, 8 * KIB + workspace_bytes);
  clgpu_context_destroy(b);
  assert_int_equal(stats_of(cache).bytes_held, 0);
  assert_int_equal(test_settled_references(buffer_references, workspace_block, 1), 1);
  clReleaseMemObject(workspace_block);
  clgpu_alloc_cache_destroy(cache);
}

/* A scope open on another thread when its context is destroyed here: that
 * thread keeps allocating through the scope, closes it, and its end is the
 * context's last reference. */
typedef struct late_scope {
  clgpu_context *context;
  clgpu_alloc_cache *cache;
  pthread_barrier_t *opened;
  pthread_barrier_t *destroyed;
  const char *failure;
} late_scope;

static void *close_a_scope_late(void *argument) {
  late_scope *self = argument;
  clgpu_status begun = clgpu_alloc_scope_begin(self->context, self->cache);
  cl_mem first = NULL, second = NULL;
  if (begun != CLGPU_SUCCESS ||
      clgpu_buffer_create(self->context, CL_MEM_READ_WRITE, 4 * KIB, &first) != CLGPU_SUCCESS) {
    self->failure = "scope_begin or the first buffer_create failed";
  }
  pthread_barrier_wait(self->opened);
  pthread_barrier_wait(self->destroyed);
  if (!self->failure) {
    clgpu_buffer_release(self->context, first);
    /* The same in-order queue: the block is taken again at once. */
    if (clgpu_buffer_create(self->context, CL_MEM_READ_WRITE, 4 * KIB, &second) != CLGPU_SUCCESS ||
        second != first) {
      self->failure = "the scope did not serve the block again after the destroy";
    }
  }
  if (begun == CLGPU_SUCCESS && clgpu_alloc_scope_end(self->context) != CLGPU_SUCCESS &&
      !self->failure) {
    self->failure = "clgpu_alloc_scope_end failed";
  }
  return NULL;
}

static void context_destroyed_while_another_thread_has_a_scope(void **state) {
  (void)state;
  clgpu_alloc_cache *cache = new_cache();
  pthread_barrier_t opened, destroyed;
  pthread_barrier_init(&opened, NULL, 2);
  pthread_barrier_init(&destroyed, NULL, 2);
  late_scope scope = {quiet_context(), cache, &opened, &destroyed, NULL};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, close_a_scope_late, &scope), 0);
  pthread_barrier_wait(&opened);
  clgpu_context_destroy(scope.context);
  pthread_barrier_wait(&destroyed);
  pthread_join(thread, NULL);
  pthread_barrier_destroy(&opened);
  pthread_barrier_destroy(&destroyed);
  if (scope.failure) fail_msg("the thread with the scope: %s", scope.failure);
  clgpu_alloc_stats stats = stats_of(cache);
  assert_int_equal(stats.hits, 1);
  assert_int_equal(stats.misses, 1);
  assert_int_equal(stats.bytes_in_use, 0);
  assert_int_equal(stats.bytes_held, 0);
  clgpu_alloc_cache_destroy(cache);
}

/* ---- lifetimes: a workspace made in a scope outlives the scope ---- */

/* Write `words` words of `value` over the start of a buffer, blocking. */
static void write_pattern(cl_command_queue queue, cl_mem buffer, size_t words, cl_uint value) {
  cl_uint *data = malloc(words * sizeof *data);
  assert_non_null(data);
  for (size_t i = 0; i < words; i++) data[i] = value ^ (cl_uint)i;
  assert_int_equal(
      clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, words * sizeof *data, data, 0, NULL, NULL),
      CL_SUCCESS);
  free(data);
}

/* Whether the first `words` words of a buffer still hold write_pattern's
 * `value`; prints the first that does not. */
static int pattern_intact(cl_command_queue queue, cl_mem buffer, size_t words, cl_uint value) {
  cl_uint *data = malloc(words * sizeof *data);
  assert_non_null(data);
  assert_int_equal(
      clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, words * sizeof *data, data, 0, NULL, NULL),
      CL_SUCCESS);
  int intact = 1;
  for (size_t i = 0; i < words && intact; i++) {
    if (data[i] != (value ^ (cl_uint)i)) {
      print_message("# word %zu is %#x, expected %#x\n", i, data[i], value ^ (cl_uint)i);
      intact = 0;
    }
  }
  free(data);
  return intact;
}

/* A workspace made in a scope and used after the scope ended: its block
 * stays out of the pool, so a request of the same size class in a later
 * scope gets another block, and the workspace's scratch writes never reach
 * what the caller keeps in that other block; the sums stay right. Then the
 * workspace is destroyed after the scope (its block, and no other, goes
 * back to the pool), and the loop of workspaces made and destroyed inside
 * one scope still makes a single device allocation. */
static void workspace_outlives_its_scope(void **state) {
  (void)state;
  enum { N = 50000, LOOPS = 200 };
  clgpu_context *context = quiet_context();
  cl_command_queue queue = clgpu_context_queue(context);
  clgpu_alloc_cache *cache = new_cache();
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  clgpu_workspace *workspace = sum_workspace(context, N);
  cl_mem block = NULL;
  assert_status(clgpu_workspace_region(workspace, &block, NULL, NULL), CLGPU_SUCCESS);
  const size_t block_size = size_of(block);
  check_sum(context, workspace, N);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);

  /* (a) A later scope asks for the same size class; the caller's data in
   * what it gets survives sums run with the workspace, since it is another
   * block: the scope's end left the workspace's out of the pool. */
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  cl_mem other = create(context, CL_MEM_READ_WRITE, block_size);
  const size_t words = block_size / sizeof(cl_uint);
  write_pattern(queue, other, words, 0xA11CEu);
  for (size_t n = 1; n <= N; n = n * 7 + 3) check_sum(context, workspace, n);
  check_sum(context, workspace, N);
  if (!pattern_intact(queue, other, words, 0xA11CEu)) {
    fail_msg("sums run with the workspace overwrote another scope's buffer");
  }
  assert_ptr_not_equal(other, block);
  clgpu_alloc_stats stats = stats_of(cache);
  assert_int_equal(stats.bytes_held, 0);
  assert_int_equal(stats.bytes_in_use, block_size + size_of(other));

  /* (b) Destroyed after its scope, the workspace gives back its own block,
   * not the other scope's: the next request of that class gets the
   * workspace's block, and the other buffer is still the caller's. */
  clgpu_workspace_destroy(workspace);
  stats = stats_of(cache);
  assert_int_equal(stats.bytes_in_use, size_of(other));
  assert_int_equal(stats.bytes_held, block_size);
  cl_mem again = create(context, CL_MEM_READ_WRITE, block_size);
  assert_ptr_equal(again, block);
  assert_ptr_not_equal(again, other);
  fill_words(queue, again, 0, 0xFFFFFFFFu, 0, NULL);
  if (!pattern_intact(queue, other, words, 0xA11CEu)) {
    fail_msg("the workspace's destroy gave another scope's buffer to a new request");
  }
  clgpu_buffer_release(context, again);
  clgpu_buffer_release(context, other);

  /* The steady state of workspaces made and destroyed in one scope. */
  const uint64_t allocations = stats_of(cache).device_allocations;
  for (int i = 0; i < LOOPS; i++) {
    clgpu_workspace *looped = sum_workspace(context, N);
    if (i % 50 == 0) check_sum(context, looped, N - (size_t)i);
    clgpu_workspace_destroy(looped);
  }
  assert_int_equal(stats_of(cache).device_allocations, allocations);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  stats = stats_of(cache);
  assert_int_equal(stats.bytes_in_use, 0);
  assert_int_equal(stats.bytes_held, 2 * block_size);
  clgpu_alloc_cache_destroy(cache);
  clgpu_context_destroy(context);
}

/* (c) A workspace made in a scope outlives the scope and then the cache:
 * the cache's destroy succeeds and leaves the block to the workspace (its
 * buffer is not released), the workspace keeps working, and its destroy
 * releases the buffer. Reference counts show who holds the buffer, since
 * LeakSanitizer cannot see OpenCL's objects. */
static void workspace_outlives_its_cache(void **state) {
  (void)state;
  enum { N = 20000 };
  clgpu_context *context = quiet_context();
  clgpu_alloc_cache *cache = new_cache();
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  clgpu_workspace *workspace = sum_workspace(context, N);
  /* A second workspace made and destroyed in the scope: a free block for
   * the cache's destroy to release. */
  clgpu_workspace *short_lived = sum_workspace(context, 2 * N);
  cl_mem freed = retained_region(short_lived);
  clgpu_workspace_destroy(short_lived);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  cl_mem block = retained_region(workspace);
  assert_int_equal(test_settled_references(buffer_references, block, 2), 2);

  clgpu_alloc_cache_destroy(cache);
  /* The free block went with the cache; the workspace's stayed its own. */
  assert_int_equal(test_settled_references(buffer_references, freed, 1), 1);
  clReleaseMemObject(freed);
  assert_int_equal(test_settled_references(buffer_references, block, 2), 2);
  check_sum(context, workspace, N);
  check_sum(context, workspace, 777);

  /* A new cache and scope do not know the old block. */
  cache = new_cache();
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  cl_mem other = create(context, CL_MEM_READ_WRITE, size_of(block));
  assert_ptr_not_equal(other, block);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);

  clgpu_workspace_destroy(workspace);
  assert_int_equal(test_settled_references(buffer_references, block, 1), 1);
  clReleaseMemObject(block);
  /* The old block never entered the new cache. */
  clgpu_alloc_stats stats = stats_of(cache);
  assert_int_equal(stats.bytes_in_use, 0);
  assert_int_equal(stats.bytes_held, size_of(other));
  clgpu_alloc_cache_destroy(cache);
  clgpu_context_destroy(context);
}

/* A workspace made in a scope, the scope ended, then its context destroyed
 * while a second clgpu context wraps the same OpenCL objects: the block
 * stays the workspace's and the cache's, and the workspace runs on the
 * second context. When that one, the last over the OpenCL context, is
 * destroyed too, the block is detached from the cache with the free blocks,
 * and the workspace's destroy releases it. */
static void workspace_outlives_its_scope_and_context(void **state) {
  (void)state;
  enum { N = 9000 };
  clgpu_context *context = quiet_context();
  clgpu_context *twin = NULL;
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  assert_status(clgpu_context_wrap(clgpu_context_cl_context(context), clgpu_context_device(context),
                                   clgpu_context_queue(context), &options, &twin),
                CLGPU_SUCCESS);
  clgpu_alloc_cache *cache = new_cache();
  assert_status(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  clgpu_workspace *workspace = sum_workspace(context, N);
  assert_status(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  cl_mem block = retained_region(workspace);
  const size_t block_size = size_of(block);
  clgpu_context_destroy(context);
  clgpu_alloc_stats stats = stats_of(cache);
  assert_int_equal(stats.bytes_in_use, block_size);
  assert_int_equal(stats.bytes_held, 0);
  check_sum(twin, workspace, N);
  /* A scope of the twin does not get the workspace's block. */
  assert_status(clgpu_alloc_scope_begin(twin, cache), CLGPU_SUCCESS);
  cl_mem other = create(twin, CL_MEM_READ_WRITE, block_size);
  assert_ptr_not_equal(other, block);
  assert_status(clgpu_alloc_scope_end(twin), CLGPU_SUCCESS);

  clgpu_context_destroy(twin);
  stats = stats_of(cache);
  assert_int_equal(stats.bytes_in_use, 0);
  assert_int_equal(stats.bytes_held, 0);
  assert_int_equal(test_settled_references(buffer_references, block, 2), 2);
  clgpu_workspace_destroy(workspace);
  assert_int_equal(test_settled_references(buffer_references, block, 1), 1);
  clReleaseMemObject(block);
  stats = stats_of(cache);
  assert_int_equal(stats.bytes_held, 0);
  assert_int_equal(stats.bytes_in_use, 0);
  clgpu_alloc_cache_destroy(cache);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(loop_with_a_scope_per_iteration),
      cmocka_unit_test(loop_allocating_and_releasing_in_one_scope),
      cmocka_unit_test(size_classes),
      cmocka_unit_test(nested_scopes),
      cmocka_unit_test(outside_any_scope),
      cmocka_unit_test(misuse),
      cmocka_unit_test(destroy_with_a_scope_open_waits_for_its_end),
      cmocka_unit_test(scope_on_another_thread_defers_destroy),
      cmocka_unit_test(two_threads_on_one_cache),
      cmocka_unit_test(reuse_across_queues_waits_for_the_marker),
      cmocka_unit_test(out_of_order_queue_waits_for_the_marker),
      cmocka_unit_test(trim_releases_free_blocks),
      cmocka_unit_test(context_destroyed_before_its_workspace),
      cmocka_unit_test(context_destroyed_with_a_scope_open),
      cmocka_unit_test(second_context_gets_none_of_the_first_ones_blocks),
      cmocka_unit_test(interleaved_contexts_share_one_cache),
      cmocka_unit_test(context_destroyed_while_another_thread_has_a_scope),
      cmocka_unit_test(workspace_outlives_its_scope),
      cmocka_unit_test(workspace_outlives_its_cache),
      cmocka_unit_test(workspace_outlives_its_scope_and_context),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
