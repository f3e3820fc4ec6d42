/** @file
 * Contexts: the device clgpu works on, its facts, its queue and its program
 * cache, and device selection.
 *
 * A clgpu_context either owns OpenCL objects it created itself
 * (clgpu_context_create) or wraps the caller's own (clgpu_context_wrap).
 * Every operation of the library takes one and enqueues its work on the
 * context's queue.
 *
 * Thread safety: one context may be used from several threads at once (its
 * program cache is locked, and operations only enqueue work on the queue,
 * which OpenCL makes thread-safe). Destroying a context while another thread
 * uses it is the caller's error.
 *
 * Lifetimes: what you make from a context (scopes, membufs, elementwise
 * kernel objects) keeps it alive until you free it; docs/lifetimes.md has
 * the whole story.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     char devices[4096];
 *     clgpu_context_options options = {0};
 *     clgpu_context *context = NULL;
 *     options.device = "0:0";
 *     options.disk_cache = CLGPU_DISK_CACHE_OFF;
 *     if (clgpu_device_list(devices, sizeof devices, NULL) == CLGPU_SUCCESS)
 *       printf("%s", devices);
 *     clgpu_status status = clgpu_context_create(&options, &context);
 *     if (status != CLGPU_SUCCESS) {
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *       return 1;
 *     }
 *     const clgpu_device_info *info = clgpu_context_device_info(context);
 *     printf("%s on %s, %u compute units\n", info->name, info->platform_name,
 *            info->compute_units);
 *     clgpu_context_destroy(context);
 *     return 0;
 *   }
 *
 * End of example. */
#ifndef CLGPU_CONTEXT_H
#define CLGPU_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/api.h>
#include <clgpu/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct clgpu_context clgpu_context;

/** Whether the on-disk cache of program binaries is used. */
typedef enum clgpu_disk_cache_mode {
  /** On, unless the environment variable CLGPU_DISK_CACHE is "off" (or "0"),
   * or the device's row in the quirks table turns it off for a platform whose
   * own binary cache is faster (none does so far: on POCL 3.1 clgpu's cache
   * made a warm first call 5 times faster than POCL's own). CLGPU_DISK_CACHE
   * "on" (or "1") overrides the quirks table. */
  CLGPU_DISK_CACHE_DEFAULT = 0,
  /** On wherever a cache folder can be used, whatever the quirks table and
   * CLGPU_DISK_CACHE say (a cache_dir or CLGPU_CACHE_DIR of "off" still
   * turns it off). */
  CLGPU_DISK_CACHE_ON = 1,
  /** Off. */
  CLGPU_DISK_CACHE_OFF = 2,
} clgpu_disk_cache_mode;

/** Number of reserved fields at the end of every options struct: later
 * versions name them without changing the struct's size (docs/queues.md,
 * "Growing the options"). */
#define CLGPU_OPTIONS_RESERVED 4

/** A build log handed to clgpu_context_options.build_log: the options the
 * program was built with and the compiler's log (NUL-terminated, not empty;
 * both valid only during the call). */
typedef void (*clgpu_build_log_fn)(void *user_data, const char *options, const char *log);

/** Options for creating or wrapping a context. Zero-initialise ({0}) for the
 * defaults, then set fields: the reserved fields must stay zero (a context
 * is refused otherwise), so that fields added later take them with zero as
 * their default. */
typedef struct clgpu_context_options {
  /** Device selector, as CLGPU_DEVICE takes it (see clgpu_device_select). NULL
   * means: CLGPU_DEVICE from the environment if set, else the default device.
   * Ignored by clgpu_context_wrap. */
  const char *device;
  /** Create the queue without CL_QUEUE_PROFILING_ENABLE (it is on by default so
   * that events can be timed). Ignored when a queue is wrapped. */
  int disable_profiling;
  /** Folder of the on-disk binary cache. NULL (or "") means CLGPU_CACHE_DIR from the
   * environment, else $XDG_CACHE_HOME/clgpu, else $HOME/.cache/clgpu. The
   * string "off" disables the disk cache. The string is copied.
   *
   * The folder is trusted: the binaries in it run on the device as they are,
   * so anyone who can write the folder can make every process that uses it
   * run code of their choosing there. Share a folder only among users who
   * trust one another; see docs/program-cache.md for what is checked. */
  const char *cache_dir;
  /** Whether the disk cache is used at all; see clgpu_disk_cache_mode. */
  clgpu_disk_cache_mode disk_cache;
  /** Called with the compiler's log of every program the context builds from
   * source successfully whose log is not blank (the library's own programs
   * and yours; a failed build's log is in clgpu_last_error() instead, and a
   * program loaded from the disk cache has none). The library's own
   * programs are built with -w unless CLGPU_BUILD_WARNINGS is on (README), so
   * set it to see their warnings here. Called on the thread that builds,
   * which may be a prebuild's thread (prebuild.h): the function must be
   * safe to call from several threads at once. NULL: no call. */
  clgpu_build_log_fn build_log;
  void *build_log_data;                      /**< passed to build_log as user_data */
  uint64_t reserved[CLGPU_OPTIONS_RESERVED]; /**< must be zero */
} clgpu_context_options;

/** Facts about the device, read once when the context is made. Strings are
 * NUL-terminated and cut at the array size. */
typedef struct clgpu_device_info {
  char platform_name[256];
  char platform_version[256];
  char name[256];
  char vendor[256];
  char device_version[256]; /**< "OpenCL 3.0 ..." */
  char driver_version[256];
  char opencl_c_version[256]; /**< "OpenCL C 1.2 ..." */
  cl_device_type type;
  cl_uint vendor_id;
  cl_uint compute_units;
  cl_uint max_clock_mhz;
  size_t max_work_group_size;
  size_t max_work_item_sizes[3];
  cl_ulong local_mem_size;
  int local_mem_is_dedicated; /**< CL_LOCAL, not host RAM */
  cl_ulong global_mem_size;
  cl_ulong max_mem_alloc_size;
  cl_uint mem_base_addr_align_bits; /**< as OpenCL reports it, in bits */
  cl_ulong global_mem_cache_size;
  size_t profiling_timer_resolution_ns;
  int has_fp64;               /**< cl_khr_fp64 */
  int has_fp16;               /**< cl_khr_fp16 */
  int has_int64_base_atomics; /**< cl_khr_int64_base_atomics */
  int has_int64_extended_atomics;
  int has_subgroups; /**< cl_khr_subgroups or cl_intel_subgroups */
  int is_little_endian;
  /** The full extension string; owned by the context, valid while it lives. */
  const char *extensions;
} clgpu_device_info;

/** Create a context on one device: the one `options->device` selects, else
 * the one CLGPU_DEVICE selects, else the default (the first GPU over all
 * platforms, else the first accelerator, else the first CPU). Creates an
 * OpenCL context and an in-order queue with profiling enabled, both owned by
 * the clgpu context and released by clgpu_context_destroy.
 *
 * `options` may be NULL for the defaults. On success *out holds the context;
 * on failure *out is NULL and nothing needs cleaning up.
 * Errors: CLGPU_INVALID_ARGUMENT (out is NULL), CLGPU_NO_PLATFORM (no
 * platform is installed: the message says how to install one),
 * CLGPU_NO_DEVICE or CLGPU_INVALID_DEVICE_SELECTOR (the message lists the
 * devices), and OpenCL's codes from creating the context or queue.
 * CLGPU_INVALID_ARGUMENT also when an environment variable the library reads
 * (CLGPU_COPY_CHUNK, CLGPU_COPY_GROUP, CLGPU_DISK_CACHE, a CLGPU_PROGRAM_RECORD
 * over 255 bytes or with a line break; README's table)
 * holds a value it does not take: the message names the variable and the
 * value, which is never read as something else.
 *
 * Thread safety: contexts may be created from many threads at once. The
 * platform and device enumeration, device queries and clCreateContext of
 * every context creation run under one process-wide lock, because OpenCL
 * implementations have crashed when first initialised from several threads
 * at once. */
CLGPU_API clgpu_status clgpu_context_create(const clgpu_context_options *options,
                                            clgpu_context **out);

/** Wrap the caller's OpenCL objects. `context` and `device` are required and
 * `device` must be one of the context's devices. `queue` may be NULL, in
 * which case clgpu creates an in-order queue with profiling (unless
 * disable_profiling) and owns it; a queue given is used as given, whatever
 * its properties, and must belong to `context` and `device`.
 *
 * Ownership: clgpu retains `context`, `device` and `queue` with clRetain*
 * and releases them in clgpu_context_destroy; the caller keeps its own
 * references and releases them as before.
 * Errors: CLGPU_INVALID_ARGUMENT (also for an environment variable holding a
 * value it does not take, as clgpu_context_create), CLGPU_MISMATCHED_OBJECTS
 * (the device is not in the context, or the queue belongs to another context
 * or device), and OpenCL's codes from the queries. On failure nothing is
 * retained. */
CLGPU_API clgpu_status clgpu_context_wrap(cl_context context, cl_device_id device,
                                          cl_command_queue queue,
                                          const clgpu_context_options *options,
                                          clgpu_context **out);

/** Drop the caller's reference to the context. NULL does nothing. Does not
 * wait for the queue: work already enqueued completes normally. The context
 * (its program cache, kernels and OpenCL objects) is freed once nothing made
 * from it holds it any more: open allocation scopes, membufs and elementwise
 * kernel objects each hold a reference and keep working. Afterwards the
 * caller passes the context to clgpu_alloc_scope_end only, to close the
 * scopes still open on it. Workspaces hold no reference and may be destroyed
 * before or after. When the context is freed and no other live context wraps
 * its OpenCL context, every allocation cache gives up that OpenCL context's
 * free blocks. docs/lifetimes.md has the details. */
CLGPU_API void clgpu_context_destroy(clgpu_context *context);

/** The OpenCL objects of a context; NULL for a NULL context. The context
 * keeps its references: a caller who keeps one past clgpu_context_destroy
 * must retain it. */
CLGPU_API cl_context clgpu_context_cl_context(const clgpu_context *context);
CLGPU_API cl_device_id clgpu_context_device(const clgpu_context *context);
CLGPU_API cl_command_queue clgpu_context_queue(const clgpu_context *context);

/** The device facts read when the context was made. Valid while the context
 * lives. NULL only for a NULL context. */
CLGPU_API const clgpu_device_info *clgpu_context_device_info(const clgpu_context *context);

/** The folder the context's disk cache uses, or NULL when the disk cache is
 * off (by option, by CLGPU_CACHE_DIR=off, by the quirks table, or because
 * the folder could not be created). Valid while the context lives. */
CLGPU_API const char *clgpu_context_cache_dir(const clgpu_context *context);

/** Resolve a device selector to a platform and device without creating
 * anything. Selectors:
 *   NULL or ""   the default device (first GPU, else accelerator, else CPU);
 *   "P:D"        device D of platform P, both decimal, as clgpu_device_list
 *                numbers them (for example "0:1");
 *   "N"          the N-th device counting over all platforms in order;
 *   "gpu", "cpu", "accelerator"  (in any case) the first device of that
 *                type, counting as "N" does;
 *   anything else  the first device whose platform name or vendor, or device
 *                name or vendor, contains the text, compared
 *                case-insensitively ("pocl" matches POCL's platform vendor
 *                "The pocl project", "nvidia" NVIDIA's devices).
 * Whitespace around the selector is ignored. It does not read CLGPU_DEVICE
 * (clgpu_context_create does): to choose as a context would, pass
 * getenv("CLGPU_DEVICE"). On failure *platform and *device are NULL.
 * Errors: CLGPU_NO_PLATFORM, CLGPU_NO_DEVICE (nothing matches; the message
 * lists every device with its index), CLGPU_INVALID_DEVICE_SELECTOR ("1:"
 * and similar; the message lists the devices too), CLGPU_INVALID_ARGUMENT. */
CLGPU_API clgpu_status clgpu_device_select(const char *selector, cl_platform_id *platform,
                                           cl_device_id *device);

/** Write a listing of every platform and device, one device per line
 * ("  0:0  <platform> / <device> (CPU)"), into `buffer` of `size` bytes,
 * NUL-terminated and cut to fit. *needed (if not NULL) receives the full
 * length plus one. Creates nothing. Errors: CLGPU_NO_PLATFORM,
 * CLGPU_NO_DEVICE (platforms but no device), CLGPU_INVALID_ARGUMENT. */
CLGPU_API clgpu_status clgpu_device_list(char *buffer, size_t size, size_t *needed);

#ifdef __cplusplus
}
#endif

#endif
