/* Fault injection: make the n-th OpenCL object creation, program build or
 * enqueue inside the library fail, for every n up to the number the scenario
 * makes, and check that the call in progress returns the injected status with
 * a message, that a caller's objects get their references back, and (under
 * the asan setup) that nothing leaks. Links the static library, whose
 * internal clgpu__fault_* functions the shared one does not export. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <clgpu/clgpu.h>

#include "fault.h"

static const clgpu_define uint_define[] = {{"CLGPU_T", "uint"}};

/* What a scenario did: the status of the first failing call (or success)
 * and which call that was. */
typedef struct outcome {
  clgpu_status status;
  const char *call;
} outcome;

static outcome done(clgpu_status status, const char *call) { return (outcome){status, call}; }

/* Create a context, get a program, lease two kernels at once (so two kernel
 * objects are created), release everything. */
static outcome create_build_lease(const clgpu_context_options *options) {
  clgpu_context *context = (clgpu_context *)&context;
  clgpu_status status = clgpu_context_create(options, &context);
  if (status != CLGPU_SUCCESS) {
    assert_null(context);
    return done(status, "clgpu_context_create");
  }
  clgpu_program *program = NULL;
  status = clgpu_program_get_named(context, "fill", uint_define, 1, NULL, &program);
  if (status != CLGPU_SUCCESS) {
    assert_null(program);
    clgpu_context_destroy(context);
    return done(status, "clgpu_program_get_named");
  }
  cl_kernel first = NULL, second = NULL;
  status = clgpu_kernel_acquire(program, "clgpu_iota", &first);
  if (status == CLGPU_SUCCESS) status = clgpu_kernel_acquire(program, "clgpu_iota", &second);
  const char *call = "clgpu_kernel_acquire";
  clgpu_kernel_release(program, first);
  clgpu_kernel_release(program, second);
  clgpu_context_destroy(context);
  return done(status, status == CLGPU_SUCCESS ? NULL : call);
}

/* Run a scenario with the n-th fault point failing, for n = 1, 2, ... until
 * a run passes every point; returns the number of fault points. */
static long fail_each_point(const char *label, outcome (*scenario)(void *), void *argument,
                            int fallback_may_absorb) {
  long n = 1;
  for (;; n++) {
    clgpu__fault_arm(CLGPU__FAULT_ALL, n);
    outcome result = scenario(argument);
    long seen = clgpu__fault_points_seen();
    clgpu__fault_disarm();
    if (seen < n) {
      /* No point was left to fail: the scenario ran clean. */
      if (result.status != CLGPU_SUCCESS) {
        fail_msg("%s: with no fault injected, %s gave %s: %s", label, result.call,
                 clgpu_status_name(result.status), clgpu_last_error());
      }
      break;
    }
    if (result.status == CLGPU_SUCCESS && fallback_may_absorb) {
      print_message("# %s: fault %ld absorbed by a fallback\n", label, n);
      continue;
    }
    if (result.status != CLGPU__INJECTED_STATUS) {
      fail_msg("%s: fault %ld of %ld: %s gave %s, expected the injected %s", label, n, seen,
               result.call ? result.call : "(every call)", clgpu_status_name(result.status),
               clgpu_status_name(CLGPU__INJECTED_STATUS));
    }
    assert_true(strlen(clgpu_last_error()) > 0);
    print_message("# %s: fault %ld -> %s: %s\n", label, n, result.call,
                  clgpu_status_name(result.status));
  }
  return n - 1;
}

static outcome memory_only(void *argument) {
  (void)argument;
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  return create_build_lease(&options);
}

static void every_failure_on_the_source_path(void **state) {
  (void)state;
  long points = fail_each_point("source build", memory_only, NULL, 0);
  /* Context, queue, program, build, two kernels. */
  assert_true(points >= 6);
}

static outcome from_disk(void *argument) {
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_ON;
  options.cache_dir = argument;
  return create_build_lease(&options);
}

static void every_failure_on_the_disk_path(void **state) {
  (void)state;
  char folder[] = "/tmp/clgpu-fault-XXXXXX";
  assert_non_null(mkdtemp(folder));
  /* Warm the disk cache, then fail each point of a run that loads from it:
   * a failed binary load falls back to a source build, which is not an
   * error. */
  outcome warm = from_disk(folder);
  assert_int_equal(warm.status, CLGPU_SUCCESS);
  long points = fail_each_point("disk load", from_disk, folder, 1);
  assert_true(points >= 6);
  size_t removed = 0;
  assert_int_equal(clgpu_disk_cache_clear(folder, &removed), CLGPU_SUCCESS);
  assert_int_equal(rmdir(folder), 0);
}

typedef struct wrapped {
  cl_context context;
  cl_device_id device;
} wrapped;

static cl_uint context_references(cl_context context) {
  cl_uint count = 0;
  assert_int_equal(
      clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof count, &count, NULL),
      CL_SUCCESS);
  return count;
}

static outcome wrap_and_build(void *argument) {
  wrapped *caller = argument;
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  clgpu_context *context = NULL;
  cl_uint before = context_references(caller->context);
  clgpu_status status =
      clgpu_context_wrap(caller->context, caller->device, NULL, &options, &context);
  if (status != CLGPU_SUCCESS) {
    /* A failed wrap gives back every reference it took. */
    assert_int_equal(context_references(caller->context), before);
    return done(status, "clgpu_context_wrap");
  }
  clgpu_program *program = NULL;
  status = clgpu_program_get_named(context, "fill", uint_define, 1, NULL, &program);
  clgpu_context_destroy(context);
  assert_int_equal(context_references(caller->context), before);
  return done(status, status == CLGPU_SUCCESS ? NULL : "clgpu_program_get_named");
}

static void every_failure_of_a_wrapped_context(void **state) {
  (void)state;
  wrapped caller;
  cl_platform_id platform = NULL;
  assert_int_equal(clgpu_device_select(NULL, &platform, &caller.device), CLGPU_SUCCESS);
  cl_int err = CL_SUCCESS;
  caller.context = clCreateContext(NULL, 1, &caller.device, NULL, NULL, &err);
  assert_int_equal(err, CL_SUCCESS);
  long points = fail_each_point("wrapped context", wrap_and_build, &caller, 0);
  assert_true(points >= 3);
  clReleaseContext(caller.context);
}

/* A copy whose destination overlaps its source other than exactly: a
 * temporary allocation and two enqueues, each a fault point, plus the
 * program and kernel the first copy builds. Run on a fresh context every
 * time, inside a cache scope or not. */
typedef struct copy_case {
  int in_scope;
} copy_case;

static outcome overlapping_copy(void *argument) {
  const copy_case *c = argument;
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(&options, &context);
  if (status != CLGPU_SUCCESS) return done(status, "clgpu_context_create");
  clgpu_alloc_cache *cache = NULL;
  assert_int_equal(clgpu_alloc_cache_create(&cache), CLGPU_SUCCESS);
  if (c->in_scope) assert_int_equal(clgpu_alloc_scope_begin(context, cache), CLGPU_SUCCESS);
  const char *call = "clgpu_buffer_create";
  cl_mem buffer = NULL;
  status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, 1024 * sizeof(cl_uint), &buffer);
  if (status == CLGPU_SUCCESS) {
    /* x[2::2] = x[0:1022:2]: strided views that share elements, so the copy
     * goes through a temporary with the strided kernel. */
    clgpu_array x, source, destination;
    assert_int_equal(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT32, 1024, &x), CLGPU_SUCCESS);
    clgpu_slice head = {0, 1022, 2}, tail = {2, CLGPU_SLICE_END, 2};
    assert_int_equal(clgpu_array_slice(&x, &head, &source), CLGPU_SUCCESS);
    assert_int_equal(clgpu_array_slice(&x, &tail, &destination), CLGPU_SUCCESS);
    cl_event sentinel = (cl_event)&call, event = sentinel;
    call = "clgpu_copy";
    status = clgpu_copy(context, &destination, &source, 0, NULL, &event);
    if (status == CLGPU_SUCCESS) {
      assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
      clReleaseEvent(event);
    } else {
      /* A failed call makes no event (it leaves the pointer alone or NULL). */
      assert_true(event == sentinel || event == NULL);
    }
    clgpu_buffer_release(context, buffer);
  }
  if (c->in_scope) assert_int_equal(clgpu_alloc_scope_end(context), CLGPU_SUCCESS);
  clgpu_alloc_cache_destroy(cache);
  clgpu_context_destroy(context);
  return done(status, status == CLGPU_SUCCESS ? NULL : call);
}

static void every_failure_of_an_overlapping_copy(void **state) {
  (void)state;
  copy_case plain = {0}, scoped = {1};
  /* Context, queue, buffer, the temporary, program, build, kernel and two
   * enqueues at the least. */
  assert_true(fail_each_point("overlapping copy", overlapping_copy, &plain, 0) >= 9);
  /* In a scope, returning blocks enqueues markers; when one fails the cache
   * waits with clFinish instead, so those faults are absorbed. */
  assert_true(fail_each_point("overlapping copy in a cache scope", overlapping_copy, &scoped, 1) >=
              9);
}

/* reduce, scan, findall and an upper bound over a strided input of more
 * elements than one chunk holds, so each call packs its input (a strided
 * copy), runs several kernels, and (scan, the bound) writes a strided output
 * through a packed one; with no
 * workspace, so the scratch buffer is made and released inside the call.
 * Each runs on a fresh context so that its programs are built inside it. */
typedef enum family_operation {
  FAMILY_REDUCE,
  FAMILY_SCAN,
  FAMILY_FINDALL,
  FAMILY_SEARCH
} family_operation;

static outcome strided_family_call(void *argument) {
  family_operation operation = *(const family_operation *)argument;
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(&options, &context);
  if (status != CLGPU_SUCCESS) return done(status, "clgpu_context_create");
  const size_t n = 40000; /* past one chunk in either shape */
  const char *call = "clgpu_buffer_create";
  cl_mem buffer = NULL, results = NULL;
  status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, 2 * n * sizeof(cl_uint), &buffer);
  if (status == CLGPU_SUCCESS) {
    status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, 2 * n * sizeof(cl_uint) + 64,
                                 &results);
  }
  if (status == CLGPU_SUCCESS) {
    clgpu_array whole, input, output, indices, count;
    clgpu_slice every_other = {0, CLGPU_SLICE_END, 2};
    assert_int_equal(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT32, 2 * n, &whole), CLGPU_SUCCESS);
    assert_int_equal(clgpu_array_slice(&whole, &every_other, &input), CLGPU_SUCCESS);
    assert_int_equal(clgpu_array_1d(results, 0, CLGPU_TYPE_UINT32, 2 * n, &whole), CLGPU_SUCCESS);
    assert_int_equal(clgpu_array_slice(&whole, &every_other, &output), CLGPU_SUCCESS);
    assert_int_equal(clgpu_array_1d(results, 0, CLGPU_TYPE_UINT32, n, &indices), CLGPU_SUCCESS);
    assert_int_equal(clgpu_array_1d(results, 2 * n * sizeof(cl_uint), CLGPU_TYPE_UINT64, 1, &count),
                     CLGPU_SUCCESS);
    clgpu_call_options chunked = {.shape = CLGPU_SHAPE_CHUNKED, .workspace = NULL};
    cl_event sentinel = (cl_event)&call, event = sentinel;
    if (operation == FAMILY_REDUCE) {
      clgpu_reduce_op argmax = {.kind = CLGPU_REDUCE_ARGMAX};
      clgpu_array first;
      assert_int_equal(clgpu_array_1d(results, 0, CLGPU_TYPE_UINT64, 1, &first), CLGPU_SUCCESS);
      call = "clgpu_reduce";
      status =
          clgpu_reduce(context, &argmax, CLGPU_ALL_AXES, &first, &input, &chunked, 0, NULL, &event);
    } else if (operation == FAMILY_SCAN) {
      clgpu_scan_op sum = {.kind = CLGPU_SCAN_SUM, .exclusive = 1};
      call = "clgpu_scan";
      status =
          clgpu_scan(context, &sum, CLGPU_ALL_AXES, &output, &input, &chunked, 0, NULL, &event);
    } else if (operation == FAMILY_FINDALL) {
      call = "clgpu_findall";
      status = clgpu_findall(context, "(x & 7) == 0", &indices, &count, &input, &chunked, 0, NULL,
                             &event);
    } else {
      /* Needles and haystack staged, positions packed. */
      call = "clgpu_upper_bound";
      status = clgpu_upper_bound(context, NULL, &output, &input, &input, &chunked, 0, NULL, &event);
    }
    if (status == CLGPU_SUCCESS) {
      assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
      clReleaseEvent(event);
    } else {
      assert_true(event == sentinel || event == NULL);
    }
  }
  clgpu_buffer_release(context, results);
  clgpu_buffer_release(context, buffer);
  clgpu_context_destroy(context);
  return done(status, status == CLGPU_SUCCESS ? NULL : call);
}

static void every_failure_of_reduce_scan_findall(void **state) {
  (void)state;
  family_operation operations[] = {FAMILY_REDUCE, FAMILY_SCAN, FAMILY_FINDALL, FAMILY_SEARCH};
  const char *labels[] = {"strided argmax", "strided exclusive scan", "strided findall",
                          "strided upper bound"};
  for (int i = 0; i < 4; i++) {
    /* Context, queue, two buffers, scratch, the copy's program, build and
     * kernel, the operation's program, build and kernels, and at least three
     * enqueues. */
    assert_true(fail_each_point(labels[i], strided_family_call, &operations[i], 0) >= 13);
  }
}

/* Sorts over a strided key view past one chunk (so the keys are staged by
 * a strided copy and every pass runs as several kernels), with values, in
 * both algorithms and shapes; the sort permutation; gather. No workspace:
 * the scratch buffer is made and released inside the call. */
typedef enum sort_call_kind {
  SORT_RADIX_CHUNKED,
  SORT_RADIX_TILED,
  SORT_MERGE_CHUNKED,
  SORT_MERGE_TILED,
  SORT_PERMUTATION,
  SORT_GATHER
} sort_call_kind;

static outcome sort_call(void *argument) {
  sort_call_kind kind = *(const sort_call_kind *)argument;
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(&options, &context);
  if (status != CLGPU_SUCCESS) return done(status, "clgpu_context_create");
  const size_t n = 40000; /* past the single-group path in either shape */
  const char *call = "clgpu_buffer_create";
  cl_mem buffer = NULL, values_buffer = NULL;
  status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, 2 * n * sizeof(cl_uint), &buffer);
  if (status == CLGPU_SUCCESS) {
    status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, n * sizeof(cl_ulong), &values_buffer);
  }
  if (status == CLGPU_SUCCESS) {
    clgpu_array whole, keys, values, indices;
    clgpu_slice every_other = {0, CLGPU_SLICE_END, 2};
    assert_int_equal(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT32, 2 * n, &whole), CLGPU_SUCCESS);
    assert_int_equal(clgpu_array_slice(&whole, &every_other, &keys), CLGPU_SUCCESS);
    assert_int_equal(clgpu_array_1d(values_buffer, 0, CLGPU_TYPE_UINT32, n, &values),
                     CLGPU_SUCCESS);
    assert_int_equal(clgpu_array_1d(values_buffer, 0, CLGPU_TYPE_UINT64, n, &indices),
                     CLGPU_SUCCESS);
    clgpu_sort_options sort_options = {
        .algorithm = CLGPU_ALGORITHM_RADIX, .shape = CLGPU_SHAPE_CHUNKED, .workspace = NULL};
    clgpu_sort_spec spec = {0};
    if (kind == SORT_RADIX_TILED || kind == SORT_MERGE_TILED) {
      sort_options.shape = CLGPU_SHAPE_TILED;
    }
    if (kind == SORT_MERGE_CHUNKED || kind == SORT_MERGE_TILED) {
      sort_options.algorithm = CLGPU_ALGORITHM_MERGE;
      spec.compare = "a > b";
    }
    cl_event sentinel = (cl_event)&call, event = sentinel;
    if (kind == SORT_PERMUTATION) {
      call = "clgpu_sort_permutation";
      status =
          clgpu_sort_permutation(context, &spec, &indices, &keys, &sort_options, 0, NULL, &event);
    } else if (kind == SORT_GATHER) {
      clgpu_array gathered;
      assert_int_equal(
          clgpu_array_1d(values_buffer, n * sizeof(cl_uint), CLGPU_TYPE_UINT32, n, &gathered),
          CLGPU_SUCCESS);
      call = "clgpu_gather";
      status = clgpu_gather(context, &gathered, &keys, &values, 0, NULL, &event);
    } else {
      call = "clgpu_sort";
      status = clgpu_sort(context, &spec, &keys, &values, &sort_options, 0, NULL, &event);
    }
    if (status == CLGPU_SUCCESS) {
      assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
      clReleaseEvent(event);
    } else {
      assert_true(event == sentinel || event == NULL);
    }
  }
  clgpu_buffer_release(context, values_buffer);
  clgpu_buffer_release(context, buffer);
  clgpu_context_destroy(context);
  return done(status, status == CLGPU_SUCCESS ? NULL : call);
}

static void every_failure_of_the_sorts(void **state) {
  (void)state;
  sort_call_kind kinds[] = {SORT_RADIX_CHUNKED, SORT_RADIX_TILED, SORT_MERGE_CHUNKED,
                            SORT_MERGE_TILED,   SORT_PERMUTATION, SORT_GATHER};
  const char *labels[] = {"strided radix sort (chunked)", "strided radix sort (tiled)",
                          "strided merge sort (chunked)", "strided merge sort (tiled)",
                          "strided sort permutation",     "gather"};
  /* Context, queue, two buffers, and at least: scratch, the staging copy's
   * program, build, kernel and enqueue, the sort's program, build, kernels
   * and enqueues. Gather: its program, build, kernel and one enqueue. */
  long least[] = {14, 14, 12, 12, 14, 8};
  for (int i = 0; i < 6; i++) {
    assert_true(fail_each_point(labels[i], sort_call, &kinds[i], 0) >= least[i]);
  }
}

/* The elementwise family: an elementwise run whose input overlaps its
 * output (a temporary, its copy, a specialised program, the kernel), a
 * packed strided read and write (a temporary, the copy program, the
 * transfer), a strided fill (a built-in kernel) and a conversion. */
typedef enum elementwise_call_kind {
  ELEMENTWISE_OVERLAP,
  ELEMENTWISE_READ,
  ELEMENTWISE_WRITE,
  ELEMENTWISE_FILL,
  ELEMENTWISE_CONVERT,
} elementwise_call_kind;

static outcome elementwise_call(void *argument) {
  elementwise_call_kind kind = *(const elementwise_call_kind *)argument;
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(&options, &context);
  if (status != CLGPU_SUCCESS) return done(status, "clgpu_context_create");
  const size_t n = 3000;
  const char *call = "clgpu_buffer_create";
  cl_mem buffer = NULL;
  cl_uint host[3000] = {0};
  status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, 2 * n * sizeof(cl_uint), &buffer);
  if (status == CLGPU_SUCCESS) {
    clgpu_array whole, head, tail, strided, floats;
    clgpu_slice every_other = {0, CLGPU_SLICE_END, 2};
    assert_int_equal(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT32, 2 * n, &whole), CLGPU_SUCCESS);
    assert_int_equal(clgpu_array_1d(buffer, 0, CLGPU_TYPE_UINT32, n, &head), CLGPU_SUCCESS);
    assert_int_equal(clgpu_array_1d(buffer, sizeof(cl_uint), CLGPU_TYPE_UINT32, n, &tail),
                     CLGPU_SUCCESS);
    assert_int_equal(clgpu_array_slice(&whole, &every_other, &strided), CLGPU_SUCCESS);
    assert_int_equal(clgpu_array_1d(buffer, n * sizeof(cl_uint), CLGPU_TYPE_FLOAT, n, &floats),
                     CLGPU_SUCCESS);
    cl_event sentinel = (cl_event)&call, event = sentinel;
    cl_uint value = 7;
    if (kind == ELEMENTWISE_OVERLAP) {
      call = "clgpu_elementwise_run";
      const clgpu_elementwise_arg args[] = {{"y", CLGPU_ARG_OUT, CLGPU_TYPE_UINT32},
                                            {"x", CLGPU_ARG_IN, CLGPU_TYPE_UINT32}};
      clgpu_elementwise *kernel = NULL;
      assert_int_equal(clgpu_elementwise_create(context, "y = x + 1u", 2, args, NULL, &kernel),
                       CLGPU_SUCCESS);
      const clgpu_elementwise_value values[] = {{&tail, NULL}, {&head, NULL}};
      status = clgpu_elementwise_run(kernel, values, 0, NULL, &event);
      clgpu_elementwise_destroy(kernel);
    } else if (kind == ELEMENTWISE_READ) {
      call = "clgpu_copy_to_host";
      status = clgpu_copy_to_host(context, host, sizeof host, &strided, 0, NULL, &event);
    } else if (kind == ELEMENTWISE_WRITE) {
      call = "clgpu_copy_from_host";
      status = clgpu_copy_from_host(context, &strided, host, sizeof host, 0, NULL, &event);
    } else if (kind == ELEMENTWISE_FILL) {
      call = "clgpu_fill";
      status = clgpu_fill(context, &strided, &value, 0, NULL, &event);
    } else {
      call = "clgpu_convert";
      status = clgpu_convert(context, &floats, &head, 0, NULL, &event);
    }
    if (status == CLGPU_SUCCESS) {
      assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
      clReleaseEvent(event);
    } else {
      assert_true(event == sentinel);
    }
  }
  clgpu_buffer_release(context, buffer);
  clgpu_context_destroy(context);
  return done(status, status == CLGPU_SUCCESS ? NULL : call);
}

static void every_failure_of_the_elementwise_family(void **state) {
  (void)state;
  elementwise_call_kind kinds[] = {ELEMENTWISE_OVERLAP, ELEMENTWISE_READ, ELEMENTWISE_WRITE,
                                   ELEMENTWISE_FILL, ELEMENTWISE_CONVERT};
  const char *labels[] = {"overlapping elementwise run", "packed strided read",
                          "packed strided write", "strided fill", "conversion"};
  /* Context, queue and the buffer, then: the overlapping run a temporary,
   * its (contiguous: clEnqueueCopyBuffer) copy, the elementwise program,
   * build, kernel and enqueue; the packed read and write a temporary, the
   * strided copy's program, build, kernel and enqueue, and the transfer;
   * the fill and the conversion a program, build, kernel and enqueue. */
  long least[] = {9, 9, 9, 7, 7};
  for (int i = 0; i < 5; i++) {
    assert_true(fail_each_point(labels[i], elementwise_call, &kinds[i], 0) >= least[i]);
  }
}

/* The buffers across memory spaces: each step's failure leaves the
 * buffer's record (size, capacity, current sides, host pointer) as it was
 * before the step. Steps: make a host+device buffer, move it to the device
 * (a cl_mem, the write), back to the host with an event (the read), grow it
 * on the device (a cl_mem, the copy), then on the host (the read), assign
 * it from the device side of another (its cl_mem and write, the read). */
static int same_record(const clgpu_membuf_info *a, const clgpu_membuf_info *b) {
  return a->size == b->size && a->capacity == b->capacity && a->host_current == b->host_current &&
         a->device_current == b->device_current && a->host_allocated == b->host_allocated &&
         a->device_allocated == b->device_allocated;
}

static outcome membuf_steps(void *argument) {
  (void)argument;
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(&options, &context);
  if (status != CLGPU_SUCCESS) return done(status, "clgpu_context_create");
  clgpu_membuf_set_move_report(context, NULL, NULL);
  clgpu_membuf *buffer = NULL, *other = NULL;
  const char *call = "clgpu_membuf_create";
  status = clgpu_membuf_create(context, CLGPU_TYPE_UINT32, 1000, CLGPU_SPACE_HOST, NULL, &buffer);
  if (status == CLGPU_SUCCESS) {
    call = "clgpu_membuf_create";
    status = clgpu_membuf_create(context, CLGPU_TYPE_UINT32, 10, CLGPU_SPACE_DEVICE, NULL, &other);
  }
  cl_uint *host = status == CLGPU_SUCCESS ? clgpu_membuf_host_pointer(buffer) : NULL;
  for (int i = 0; host && i < 1000; i++) host[i] = (cl_uint)i;
  for (int step = 0; status == CLGPU_SUCCESS && step < 5; step++) {
    clgpu_membuf_info before, after;
    assert_int_equal(clgpu_membuf_get_info(buffer, &before), CLGPU_SUCCESS);
    void *pointer = clgpu_membuf_host_pointer(buffer);
    cl_event event = NULL;
    if (step == 0) {
      call = "clgpu_membuf_move (to the device)";
      status =
          clgpu_membuf_move(buffer, CLGPU_SPACE_DEVICE, CLGPU_ACCESS_READ_WRITE, 0, NULL, NULL);
    } else if (step == 1) {
      call = "clgpu_membuf_move (to the host, with an event)";
      status = clgpu_membuf_move(buffer, CLGPU_SPACE_HOST, CLGPU_ACCESS_READ_ONLY, 0, NULL, &event);
      if (status == CLGPU_SUCCESS) {
        assert_int_equal(clWaitForEvents(1, &event), CL_SUCCESS);
        clReleaseEvent(event);
      } else {
        assert_null(event);
      }
    } else if (step == 2) {
      call = "clgpu_membuf_reallocate (device)";
      clgpu_membuf_touch(buffer, CLGPU_SPACE_DEVICE);
      assert_int_equal(clgpu_membuf_get_info(buffer, &before), CLGPU_SUCCESS);
      status = clgpu_membuf_reallocate(buffer, 1000, CLGPU_SPACE_DEVICE, 2000);
    } else if (step == 3) {
      call = "clgpu_membuf_reallocate (host)";
      status = clgpu_membuf_reallocate(buffer, 1500, CLGPU_SPACE_HOST, 3000);
    } else {
      call = "clgpu_membuf_assign";
      status = clgpu_membuf_assign(buffer, other);
    }
    assert_int_equal(clgpu_membuf_get_info(buffer, &after), CLGPU_SUCCESS);
    if (status != CLGPU_SUCCESS) {
      assert_true(same_record(&before, &after));
      assert_ptr_equal(clgpu_membuf_host_pointer(buffer), pointer);
    }
  }
  if (status == CLGPU_SUCCESS) {
    /* The assignment gave it the other's size. */
    clgpu_membuf_info info;
    assert_int_equal(clgpu_membuf_get_info(buffer, &info), CLGPU_SUCCESS);
    assert_int_equal(info.size, 10);
  }
  clgpu_membuf_destroy(other);
  clgpu_membuf_destroy(buffer);
  clgpu_context_destroy(context);
  return done(status, status == CLGPU_SUCCESS ? NULL : call);
}

static void every_failure_of_the_buffers(void **state) {
  (void)state;
  /* Context, queue, two buffers' cl_mem (the second made on the device),
   * the move's cl_mem and write, the read, the reallocation's cl_mem and
   * copy, the host reallocation's read, the assignment's read. */
  assert_true(fail_each_point("buffers across memory spaces", membuf_steps, NULL, 0) >= 10);
}

/* A kernel the device builds for fewer work-items per group than its plan
 * compiled it for (CLGPU__FAULT_NARROW_GROUP makes the first leased kernel
 * report half): the call fails before enqueueing anything, so the caller's
 * data is unchanged, and the message says how to plan narrower groups. */
static void a_kernel_built_narrower_than_its_plan_is_refused(void **state) {
  (void)state;
  clgpu_context *context = NULL;
  assert_int_equal(clgpu_context_create(NULL, &context), CLGPU_SUCCESS);
  enum { N = 50000 };
  static cl_uint host[N], after[N];
  for (cl_uint i = 0; i < N; i++) host[i] = (i * 2654435761u) % 1000u;
  cl_mem keys = NULL, result = NULL;
  assert_int_equal(clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof host, &keys),
                   CLGPU_SUCCESS);
  assert_int_equal(clgpu_buffer_create(context, CL_MEM_READ_WRITE, sizeof(cl_uint), &result),
                   CLGPU_SUCCESS);
  clgpu_array x, r;
  assert_int_equal(clgpu_array_1d(keys, 0, CLGPU_TYPE_UINT32, N, &x), CLGPU_SUCCESS);
  assert_int_equal(clgpu_array_1d(result, 0, CLGPU_TYPE_UINT32, 1, &r), CLGPU_SUCCESS);
  assert_int_equal(clgpu_array_write(context, &x, host, sizeof host, 0, NULL), CLGPU_SUCCESS);
  cl_uint sentinel = 0xabcdef01u, read_back = 0;
  assert_int_equal(clgpu_array_write(context, &r, &sentinel, sizeof sentinel, 0, NULL),
                   CLGPU_SUCCESS);

  clgpu_reduce_op sum = {0};
  sum.kind = CLGPU_REDUCE_SUM;
  clgpu_call_options tiled = {.shape = CLGPU_SHAPE_TILED, .workspace = NULL};
  clgpu__fault_arm(CLGPU__FAULT_NARROW_GROUP, 1);
  clgpu_status status = clgpu_reduce(context, &sum, CLGPU_ALL_AXES, &r, &x, &tiled, 0, NULL, NULL);
  clgpu__fault_disarm();
  assert_int_equal(status, CLGPU_UNSUPPORTED_FEATURE);
  const char *message = clgpu_last_error();
  if (!strstr(message, "clgpu_reduce_ranges") || !strstr(message, "CL_KERNEL_WORK_GROUP_SIZE") ||
      !strstr(message, "CLGPU_TUNING=tiled_group_cap=")) {
    fail_msg("the message does not name the kernel, the limit and the remedy: %s", message);
  }
  assert_int_equal(clgpu_array_read(context, &read_back, sizeof read_back, &r, 0, NULL),
                   CLGPU_SUCCESS);
  assert_int_equal(read_back, sentinel);

  clgpu_sort_options radix = {
      .algorithm = CLGPU_ALGORITHM_RADIX, .shape = CLGPU_SHAPE_TILED, .workspace = NULL};
  clgpu__fault_arm(CLGPU__FAULT_NARROW_GROUP, 1);
  status = clgpu_sort(context, NULL, &x, NULL, &radix, 0, NULL, NULL);
  clgpu__fault_disarm();
  assert_int_equal(status, CLGPU_UNSUPPORTED_FEATURE);
  assert_non_null(strstr(clgpu_last_error(), "clgpu_radix_"));
  assert_int_equal(clgpu_array_read(context, after, sizeof after, &x, 0, NULL), CLGPU_SUCCESS);
  assert_memory_equal(after, host, sizeof host);

  /* Disarmed, the same calls run. */
  assert_int_equal(clgpu_reduce(context, &sum, CLGPU_ALL_AXES, &r, &x, &tiled, 0, NULL, NULL),
                   CLGPU_SUCCESS);
  assert_int_equal(clgpu_array_read(context, &read_back, sizeof read_back, &r, 0, NULL),
                   CLGPU_SUCCESS);
  cl_uint expected = 0;
  for (cl_uint i = 0; i < N; i++) expected += host[i];
  assert_int_equal(read_back, expected);
  clgpu_buffer_release(context, keys);
  clgpu_buffer_release(context, result);
  clgpu_context_destroy(context);
}

int main(void) {
  /* CLGPU_TEST_FILTER picks cases, as in the programs on support.c. */
  const char *pattern = getenv("CLGPU_TEST_FILTER");
  if (pattern && *pattern) cmocka_set_test_filter(pattern);
  clgpu_context *context = NULL;
  if (clgpu_context_create(NULL, &context) == CLGPU_SUCCESS) {
    const clgpu_device_info *info = clgpu_context_device_info(context);
    printf("# device: %s / %s (driver %s)\n", info->platform_name, info->name,
           info->driver_version);
    clgpu_context_destroy(context);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_failure_on_the_source_path),
      cmocka_unit_test(every_failure_on_the_disk_path),
      cmocka_unit_test(every_failure_of_a_wrapped_context),
      cmocka_unit_test(every_failure_of_an_overlapping_copy),
      cmocka_unit_test(every_failure_of_reduce_scan_findall),
      cmocka_unit_test(every_failure_of_the_sorts),
      cmocka_unit_test(every_failure_of_the_elementwise_family),
      cmocka_unit_test(every_failure_of_the_buffers),
      cmocka_unit_test(a_kernel_built_narrower_than_its_plan_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
