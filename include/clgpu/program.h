/** @file
 * Runtime-built programs: kernel sources, the per-context program cache,
 * kernel objects, and the on-disk binary cache.
 *
 * Key concepts:
 * - clgpu_program_get builds a program from OpenCL C, a prelude of #define
 *   lines and allow-listed build options, once per context: the context's
 *   cache keys it by the SHA-256 of the full source and the options, and
 *   several threads asking at once build it once.
 * - Programs belong to the cache and live until the context is freed; kernel
 *   objects are leased (clgpu_kernel_acquire, clgpu_kernel_release), so no
 *   two threads share one.
 * - With the disk cache on, built binaries are kept in a folder and loaded
 *   on the next run. The folder is trusted: its binaries run on the device
 *   as they are, so share it only among users who trust one another.
 * docs/program-cache.md has the details: the keys, what is checked in a
 * cached file, and what a writer of the folder can and cannot do.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   static const char source[] =
 *       "kernel void scale(global float *x, float by) {\n"
 *       "  x[get_global_id(0)] *= BY_TWO ? 2 * by : by;\n"
 *       "}\n";
 *
 *   int main(void) {
 *     clgpu_define defines[] = {{.name = "BY_TWO", .value = "1"}};
 *     clgpu_context *context = NULL;
 *     clgpu_program *program = NULL;
 *     cl_kernel kernel = NULL;
 *     cl_mem buffer = NULL;
 *     float by = 1.5f;
 *     size_t global = 256;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_program_get(context, source, defines, 1, "-cl-mad-enable", &program);
 *     if (status == CLGPU_SUCCESS)
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, global * sizeof(float), &buffer);
 *     if (status == CLGPU_SUCCESS) status = clgpu_kernel_acquire(program, "scale", &kernel);
 *     if (status == CLGPU_SUCCESS) {
 *       clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
 *       clSetKernelArg(kernel, 1, sizeof by, &by);
 *       status = clEnqueueNDRangeKernel(clgpu_context_queue(context), kernel, 1, NULL, &global,
 *                                       NULL, 0, NULL, NULL);
 *       clgpu_kernel_release(program, kernel);
 *     }
 *     if (status == CLGPU_SUCCESS) status = clFinish(clgpu_context_queue(context));
 *     if (status != CLGPU_SUCCESS)
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     clgpu_buffer_release(context, buffer);
 *     clgpu_context_destroy(context);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_PROGRAM_H
#define CLGPU_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/api.h>
#include <clgpu/context.h>
#include <clgpu/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A built program in a context's cache. Owned by the cache: valid until the
 * context is destroyed, never freed by the caller. */
typedef struct clgpu_program clgpu_program;

/** One line of the prelude: `#define name value`. `value` may be NULL or ""
 * for a bare `#define name`. The name must be an identifier; the value must
 * not contain a newline. */
typedef struct clgpu_define {
  const char *name;
  const char *value;
} clgpu_define;

/** The embedded source of one of clgpu's kernel files, by stem ("fill" for
 * cl/fill.cl). When CLGPU_KERNEL_DIR is set, the file <dir>/<name>.cl is read
 * instead (for people working on kernels), at every call.
 *
 * CLGPU_KERNEL_DIR is trusted like code: its sources are compiled and run on
 * the device. The file must be a regular file of at most 4 MiB; a symbolic
 * link is followed, but only to such a file. A FIFO, a device (a link to
 * /dev/zero, say), a folder or a larger file is refused at once, unread.
 *
 * *source receives a NUL-terminated copy the caller frees with free();
 * *length (if not NULL) its length. On failure *source is NULL and *length
 * 0. Errors: CLGPU_INVALID_ARGUMENT, CLGPU_KERNEL_SOURCE_NOT_FOUND (unknown
 * name, or no such file in CLGPU_KERNEL_DIR), CLGPU_IO_ERROR (the file is not
 * a regular file, is larger than 4 MiB, or cannot be read; the message names
 * the file and what it is), CLGPU_CL_OUT_OF_HOST_MEMORY. */
CLGPU_API clgpu_status clgpu_kernel_source(const char *name, char **source, size_t *length);

/** Get the program built from `source` with the given defines and options,
 * building it (or loading it from the disk cache) on the first request, which
 * blocks for the build; *out belongs to the cache (see clgpu_program).
 * `source` is NUL-terminated OpenCL C 1.2; the library copies what it needs.
 * `options` may be NULL; options are separated by spaces (no tabs or line
 * breaks) and each must be on the allow-list: -D NAME[=V], -w, -Werror,
 * -cl-opt-disable, -cl-mad-enable, -cl-kernel-arg-info,
 * -cl-single-precision-constant. Options that change float semantics
 * (-cl-fast-relaxed-math, -cl-finite-math-only, -cl-no-signed-zeros,
 * -cl-unsafe-math-optimizations, -cl-denorms-are-zero) and -cl-std are
 * refused with CLGPU_FORBIDDEN_BUILD_OPTION. So are options holding a double
 * quote on an implementation whose compiler crashes on them (rusticl of Mesa
 * 22.3; pass such a value through a clgpu_define there).
 * Errors: CLGPU_INVALID_ARGUMENT (NULL argument, a define name that is not an
 * identifier, a value with a line break or a trailing backslash, options
 * separated by other whitespace than spaces), CLGPU_FORBIDDEN_BUILD_OPTION,
 * CLGPU_CL_BUILD_PROGRAM_FAILURE (clgpu_last_error() holds the options and
 * the compiler's log), and OpenCL's codes. A failed build is not cached: the
 * next request builds again. Device quirks your own kernels may meet:
 * docs/program-cache.md. */
CLGPU_API clgpu_status clgpu_program_get(clgpu_context *context, const char *source,
                                         const clgpu_define *defines, size_t num_defines,
                                         const char *options, clgpu_program **out);

/** The same for one of clgpu's kernel files, by stem, as clgpu_kernel_source
 * finds it. The library's families ("reduce", "sort", "elementwise") are
 * built after the shared prelude "common" (cl/common.cl), which they need:
 * clgpu_program_get over clgpu_kernel_source's text of one of them alone is
 * not the same program. Other stems ("fill") are built alone. The
 * library's files are built with -w added to `options` (unless they hold
 * it, or the environment variable CLGPU_BUILD_WARNINGS is on, README), so
 * that their warnings never reach the caller's stderr on implementations
 * that print them (POCL); a build that fails so is built again without -w,
 * and clgpu_last_error() gives that build's log, warnings included. The
 * library's operations build their programs the same way, with your
 * expressions inside them. clgpu_program_get builds with exactly the
 * options it is given. Errors as clgpu_kernel_source's and
 * clgpu_program_get's. */
CLGPU_API clgpu_status clgpu_program_get_named(clgpu_context *context, const char *name,
                                               const clgpu_define *defines, size_t num_defines,
                                               const char *options, clgpu_program **out);

/** The OpenCL program; owned by the cache (retain it to keep it longer). After
 * a rebuild (see clgpu_kernel_acquire) later calls return the rebuilt
 * program; the one returned before stays valid until the context is
 * destroyed. */
CLGPU_API cl_program clgpu_program_cl_program(const clgpu_program *program);

/** Lease a kernel object of `program` by kernel name. The kernel is the
 * caller's alone until clgpu_kernel_release: set its arguments, enqueue it,
 * release it (OpenCL captures the arguments at enqueue, so releasing right
 * after enqueueing is safe). Leases reuse kernel objects; a new one is
 * created only when every kernel of that name is leased.
 *
 * When the program was loaded from the disk cache and the kernel cannot be
 * made from its binary, the program is first rebuilt from source (once per
 * program) and its file replaced; kernels leased from the binary stay valid
 * until released, and the binary's cl_program until the context is
 * destroyed. Such a call takes as long as a build and can fail as one does.
 * Errors: CLGPU_INVALID_ARGUMENT, CLGPU_CL_INVALID_KERNEL_NAME (also for a
 * name that is not an identifier, refused before OpenCL sees it), and those
 * of clgpu_program_get for the rebuild. */
CLGPU_API clgpu_status clgpu_kernel_acquire(clgpu_program *program, const char *kernel_name,
                                            cl_kernel *kernel);

/** Return a leased kernel. Its arguments stay as the caller set them: a
 * caller whose implementation retains the memory objects of kernel
 * arguments, and who wants its buffers freed while the cache lives, sets
 * buffer arguments to NULL first (the library does so for its own calls).
 * NULL program or kernel does nothing; a kernel not leased from this
 * program is ignored. */
CLGPU_API void clgpu_kernel_release(clgpu_program *program, cl_kernel kernel);

/** Counters of a context's program cache, since the context was made. */
typedef struct clgpu_cache_stats {
  uint64_t memory_hits;     /**< requests served from memory */
  uint64_t disk_hits;       /**< programs loaded from a disk-cache binary */
  uint64_t builds;          /**< programs built from source (failed builds too) */
  double build_ms;          /**< wall time spent building from source */
  double disk_load_ms;      /**< wall time spent loading binaries from disk */
  uint64_t disk_writes;     /**< binaries written to the disk cache */
  uint64_t disk_rejects;    /**< disk-cache files found but not usable (a loaded
                               binary that lacked a kernel counts here too,
                               after its disk hit) */
  uint64_t kernels_created; /**< kernel objects created */
} clgpu_cache_stats;

/** Copy the counters of the context's program cache into *stats; safe while
 * other threads use the context. Errors: CLGPU_INVALID_ARGUMENT (NULL context
 * or stats). */
CLGPU_API clgpu_status clgpu_program_cache_stats(const clgpu_context *context,
                                                 clgpu_cache_stats *stats);

/** Remove every clgpu binary from a disk-cache folder (NULL: the folder the
 * defaults give: CLGPU_CACHE_DIR, $XDG_CACHE_HOME/clgpu or
 * $HOME/.cache/clgpu). Only files clgpu writes there are removed. A missing
 * folder (or a path through a regular file) is not an error. *removed (if
 * not NULL) receives the number of files removed. Errors: CLGPU_IO_ERROR (the
 * folder exists but cannot be read, or a file could not be removed; the
 * message names it), CLGPU_INVALID_ARGUMENT (folder is NULL and no folder is
 * configured: CLGPU_CACHE_DIR is "off", or HOME is unset). */
CLGPU_API clgpu_status clgpu_disk_cache_clear(const char *folder, size_t *removed);

#ifdef __cplusplus
}
#endif

#endif
