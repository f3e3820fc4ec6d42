/* Runtime-built programs: kernel sources, the per-context program cache, kernel
 * objects, and the on-disk binary cache.
 *
 * A program is built from an OpenCL C source with a prelude of `#define`
 * lines (element type, operator, tile sizes, device work-arounds) and a
 * build-option string drawn from an allow-list. Built programs are kept in the
 * context's cache, keyed by the SHA-256 of the full source (prelude included)
 * and the options, so the same request never builds twice in a context;
 * several threads asking for the same program at once build it once. Kernel
 * objects are created once and handed out by lease, so no call creates a
 * kernel object in the steady state and no two threads share one.
 *
 * With the disk cache on, a program missing from memory is looked up on disk
 * first: a binary keyed by the library version, platform name and version,
 * device name, vendor, device and driver version, source hash and options.
 * Files are written atomically (a temporary file, then rename). A truncated,
 * corrupt or foreign file is ignored, the program is built from source and
 * the file replaced. A folder that cannot be created or written means no disk
 * cache, never an error.
 *
 * What the disk-cache folder is trusted with. A file's magic, version, key
 * text, lengths and SHA-256 are checked, but the digest is no signature: it
 * catches damage, not intent. A binary is run as it is, so anyone who can
 * write the folder can make the library run code of their choosing on the
 * device, or give a kernel other code under its own name. What such a writer
 * cannot do is hang the process, make it read without bound, or stop the
 * cache from working: at a file's name, anything but a regular file (a FIFO,
 * a device, a folder, a symbolic link; links are not followed) and any file
 * above 64 MiB is ignored unread and replaced, like a corrupt file (binaries
 * above that size are not stored); and a binary from which a kernel that a
 * clgpu_kernel_acquire names cannot be made (another program's binary under
 * the right key) is rebuilt from source once and its file replaced, so later
 * calls and later processes work. */
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

/* A built program in a context's cache. Owned by the cache: valid until the
 * context is destroyed, never freed by the caller. */
typedef struct clgpu_program clgpu_program;

/* One line of the prelude: `#define name value`. `value` may be NULL or ""
 * for a bare `#define name`. The name must be an identifier; the value must
 * not contain a newline. */
typedef struct clgpu_define {
  const char *name;
  const char *value;
} clgpu_define;

/* The embedded source of one of clgpu's kernel files, by stem ("fill" for
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

/* Get the program built from `source` with the given defines and options,
 * building it (or loading it from the disk cache) on the first request.
 * `source` is NUL-terminated OpenCL C 1.2; the library copies what it needs.
 * `options` may be NULL; each option must be on the allow-list: -D NAME[=V],
 * -w, -Werror, -cl-opt-disable, -cl-mad-enable, -cl-kernel-arg-info,
 * -cl-single-precision-constant. Options that change float semantics
 * (-cl-fast-relaxed-math, -cl-finite-math-only, -cl-no-signed-zeros,
 * -cl-unsafe-math-optimizations, -cl-denorms-are-zero) and -cl-std are
 * refused with CLGPU_FORBIDDEN_BUILD_OPTION. So are options holding a double
 * quote on an implementation whose compiler crashes on them (rusticl of Mesa
 * 22.3; pass such a value through a clgpu_define there).
 *
 * Options are separated by spaces (no tabs or line breaks).
 *
 * Errors: CLGPU_INVALID_ARGUMENT (NULL argument, a define name that is not an
 * identifier, a value with a line break or a trailing backslash, options
 * separated by other whitespace than spaces), CLGPU_FORBIDDEN_BUILD_OPTION,
 * CLGPU_CL_BUILD_PROGRAM_FAILURE (clgpu_last_error() holds the options and the
 * compiler's log), and OpenCL's codes. A failed build is not cached: the next
 * request builds again.
 *
 * Your own kernels run as the device runs them: on Mesa's llvmpipe (rusticl)
 * a work-item silently leaves every loop once it has run 65535 iterations in
 * all, so keep each work-item's loops below that there (docs/quirks.md).
 * clgpu's own kernels plan around it. */
CLGPU_API clgpu_status clgpu_program_get(clgpu_context *context, const char *source,
                                         const clgpu_define *defines, size_t num_defines,
                                         const char *options, clgpu_program **out);

/* The same for one of clgpu's kernel files, by stem, as clgpu_kernel_source
 * finds it. */
CLGPU_API clgpu_status clgpu_program_get_named(clgpu_context *context, const char *name,
                                               const clgpu_define *defines, size_t num_defines,
                                               const char *options, clgpu_program **out);

/* The OpenCL program; owned by the cache (retain it to keep it longer). After
 * a rebuild (see clgpu_kernel_acquire) later calls return the rebuilt
 * program; the one returned before stays valid until the context is
 * destroyed. */
CLGPU_API cl_program clgpu_program_cl_program(const clgpu_program *program);

/* Lease a kernel object of `program` by kernel name. The kernel is the
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

/* Return a leased kernel. Its arguments stay as the caller set them: a
 * caller whose implementation retains the memory objects of kernel
 * arguments, and who wants its buffers freed while the cache lives, sets
 * buffer arguments to NULL first (the library does so for its own calls).
 * NULL program or kernel does nothing; a kernel not leased from this
 * program is ignored. */
CLGPU_API void clgpu_kernel_release(clgpu_program *program, cl_kernel kernel);

/* Counters of a context's program cache, since the context was made. */
typedef struct clgpu_cache_stats {
  uint64_t memory_hits;     /* requests served from memory */
  uint64_t disk_hits;       /* programs loaded from a disk-cache binary */
  uint64_t builds;          /* programs built from source (failed builds too) */
  double build_ms;          /* wall time spent building from source */
  double disk_load_ms;      /* wall time spent loading binaries from disk */
  uint64_t disk_writes;     /* binaries written to the disk cache */
  uint64_t disk_rejects;    /* disk-cache files found but not usable (a loaded
                               binary that lacked a kernel counts here too,
                               after its disk hit) */
  uint64_t kernels_created; /* kernel objects created */
} clgpu_cache_stats;

/* Read the counters. Errors: CLGPU_INVALID_ARGUMENT. */
CLGPU_API clgpu_status clgpu_context_cache_stats(const clgpu_context *context,
                                                 clgpu_cache_stats *stats);

/* Remove every clgpu binary from a disk-cache folder (NULL: the folder the
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
