/* Shared helpers of the test suite: the test context (on the device the
 * environment selects, printed once), seeds, temporary folders, and a kernel
 * run checked against the host. Every test file links tests/support.c. */
#ifndef CLGPU_TEST_SUPPORT_H
#define CLGPU_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <clgpu/clgpu.h>

/* Create a context the way the library's users do (CLGPU_DEVICE or the
 * default) with `options` (NULL for defaults), and print the device once per
 * process. Fails the test on error, printing the status and message. */
clgpu_context *test_context(const clgpu_context_options *options);

/* test_context without clgpu's binary cache (test_disk_cache covers it), for
 * tests that build many programs: on POCL a cold build that also stores the
 * binary took about three times as long as one without. POCL's own kernel
 * cache still makes later runs fast. */
clgpu_context *test_context_without_disk_cache(void);

/* test_context_without_disk_cache with CLGPU_TUNING set to `tuning` while
 * the context is made (the tuning table is read then), so that a test runs
 * a tuning field's other values on every device. */
clgpu_context *test_context_tuned(const char *tuning);

/* Print the device of a context on stdout ("# device: platform / name"). */
void test_print_device(const clgpu_context *context);

/* The run's seed: CLGPU_TEST_SEED if set, else from the clock; printed once. */
uint64_t test_seed(void);

/* A fresh empty folder under the build's temporary area, malloc'd; the test
 * removes it with test_remove_folder. */
char *test_make_folder(const char *label);

/* Remove a folder and the plain files in it. */
void test_remove_folder(char *folder);

/* Run fill.cl's iota (start 7, step 3, uint) from `program` over n elements
 * and compare every element with the host; fails the test on a mismatch. */
void test_check_iota(clgpu_context *context, clgpu_program *program, size_t n);

/* An event's CL_EVENT_COMMAND_EXECUTION_STATUS (fails the test when the
 * query does). */
cl_int test_event_status(cl_event event);

/* A new out-of-order queue on the context's cl_context and device, or NULL
 * when the device cannot make one (the caller skips); the caller releases
 * it. */
cl_command_queue test_out_of_order_queue(const clgpu_context *context);

/* Opens a user event `gate` from another thread after a pause of 20 ms,
 * noting first the execution status of `call` (a command that waits for
 * the gate). A thread, because Oclgrind runs commands inside clFlush and
 * clWaitForEvents on the calling thread and waits there for the wait list.
 * Use: set gate and call, pthread_create(..., test_open_gate_later, &opener),
 * clFlush, clWaitForEvents(call), pthread_join; then
 * call_status_before_opening must not be CL_COMPLETE. */
typedef struct test_gate_opener {
  cl_event gate;
  cl_event call;
  cl_int call_status_before_opening;
} test_gate_opener;
void *test_open_gate_later(void *argument);

/* Assert a clgpu status, printing both names and the detail message. */
#define assert_status(actual, expected) \
  test_assert_status((actual), (expected), #actual, __FILE__, __LINE__)
void test_assert_status(cl_int actual, cl_int expected, const char *expression, const char *file,
                        int line);

/* The reference count `references` reports for an OpenCL object once it has
 * come down to `expected`, or after two seconds. POCL and rusticl let go of
 * the references their finished commands hold from a thread of their own,
 * sometimes a moment after clFinish or a blocking read has returned. */
cl_uint test_settled_references(cl_uint (*references)(void *), void *object, cl_uint expected);

#endif
