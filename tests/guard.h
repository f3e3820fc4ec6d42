/* Guarded device buffers: a region an operation may touch, with guard zones
 * before and after it filled with a canary, so that an out-of-bounds write
 * fails the test on any device (POCL does not fault on one). The region is
 * pre-filled with a pattern that no operation produces by chance in every
 * byte, so that "forgot to write" shows up when the result is compared with
 * the host reference. */
#ifndef CLGPU_TEST_GUARD_H
#define CLGPU_TEST_GUARD_H

#include <stddef.h>

#include <clgpu/clgpu.h>

/* Bytes of guard on each side: a multiple of every device's base-address
 * alignment, so the region itself starts aligned. */
#define TEST_GUARD_BYTES ((size_t)4096)

/* The byte the region is pre-filled with when no initial contents are given. */
#define TEST_GUARD_REGION_FILL 0xCDu

typedef struct test_guarded {
  cl_mem buffer;       /* the whole allocation: guard, region, guard */
  size_t offset;       /* byte offset of the region in `buffer` */
  size_t region_bytes; /* bytes an operation may touch */
} test_guarded;

/* The canary byte at byte `position` of the buffer. Position-dependent, so a
 * write that copies guard bytes to the wrong place is caught too. */
unsigned char test_guard_canary(size_t position);

/* Allocate a guarded buffer whose region holds `initial` (region_bytes bytes)
 * or, when `initial` is NULL, TEST_GUARD_REGION_FILL in every byte. Blocks
 * until written. Fails the test on an OpenCL error. */
test_guarded test_guarded_create(clgpu_context *context, size_t region_bytes, const void *initial);

/* Whether both guards are intact (1) or not (0). On damage, writes a line
 * naming the first damaged byte (before or after the region, its distance
 * from the region, its value and the canary) and the count of damaged bytes
 * into `report` (may be NULL). Blocks on the queue. */
int test_guarded_intact(clgpu_context *context, const test_guarded *guarded, char *report,
                        size_t report_size);

/* Fail the test, naming `what`, unless both guards are intact. */
void test_guarded_check(clgpu_context *context, const test_guarded *guarded, const char *what);

/* Read the region into host memory (region_bytes bytes). Blocks. */
void test_guarded_read(clgpu_context *context, const test_guarded *guarded, void *host);

/* Release the buffer. */
void test_guarded_release(test_guarded *guarded);

#endif
