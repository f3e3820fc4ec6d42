/** @file
 * Device allocations through the library, and the caching allocator.
 *
 * clgpu_buffer_create and clgpu_buffer_release are how the library makes its
 * temporaries and how a caller can make buffers that take part in caching.
 * Outside a cache scope they are clCreateBuffer and clReleaseMemObject.
 *
 * Key concepts:
 * - A cached scope (clgpu_alloc_scope_begin) opened by a thread on a context
 *   serves that thread's requests from a cache's free pool when it holds a
 *   block of the same size class (four steps per power of two), memory flags
 *   and OpenCL context that is safe to reuse, and makes a new block
 *   otherwise. Blocks are keyed by byte size, never by shape.
 * - When the scope ends, the blocks allocated in it that are still out go
 *   back to the pool: the caller promises not to use them after the scope.
 *   A workspace's block is the exception: it stays the workspace's.
 * - A released block is reusable at once on the same in-order queue; on
 *   another queue, or an out-of-order one, only after a marker enqueued at
 *   its release has completed.
 * - Scopes nest and are per thread; a cache may serve several threads (it is
 *   locked). An uncached scope inside a cached one opts out.
 * - A scope holds a reference to its context; every scope opened must be
 *   closed, on its own thread. docs/lifetimes.md has the lifetimes of
 *   contexts, scopes, caches and workspaces.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     clgpu_context *context = NULL;
 *     clgpu_alloc_cache *cache = NULL;
 *     clgpu_alloc_stats stats;
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS) status = clgpu_alloc_cache_create(&cache);
 *     for (int round = 0; status == CLGPU_SUCCESS && round < 3; round++) {
 *       cl_mem scratch = NULL;
 *       status = clgpu_alloc_scope_begin(context, cache);
 *       if (status != CLGPU_SUCCESS) break;
 *       status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, 1 << 20, &scratch);
 *       clgpu_buffer_release(context, scratch);
 *       clgpu_status closed = clgpu_alloc_scope_end(context);
 *       if (status == CLGPU_SUCCESS) status = closed;
 *     }
 *     if (status == CLGPU_SUCCESS) status = clgpu_alloc_cache_stats(cache, &stats);
 *     if (status == CLGPU_SUCCESS)
 *       printf("%llu device allocations, %llu hits\n",
 *              (unsigned long long)stats.device_allocations, (unsigned long long)stats.hits);
 *     else
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     clgpu_context_destroy(context);
 *     clgpu_alloc_cache_destroy(cache);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_ALLOC_H
#define CLGPU_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/api.h>
#include <clgpu/context.h>
#include <clgpu/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct clgpu_alloc_cache clgpu_alloc_cache;

/** Make an empty cache, written to *out; it holds no context and no device
 * memory yet. Free it with clgpu_alloc_cache_destroy. Errors:
 * CLGPU_INVALID_ARGUMENT (out is NULL), CLGPU_CL_OUT_OF_HOST_MEMORY. */
CLGPU_API clgpu_status clgpu_alloc_cache_create(clgpu_alloc_cache **out);

/** Release every free block the cache holds, and the cache. NULL does
 * nothing. The only blocks still handed out with no scope open are those of
 * live workspaces: they are detached, each left to its workspace as a plain
 * buffer that clgpu_workspace_destroy releases. While any thread has a
 * scope open on the cache (on a context destroyed since or not), the
 * cache lives on until the last of those scopes ends, which frees it; no
 * new scope may be opened on it. A thread that exits with a scope open
 * leaves it open for good, and the cache with it. */
CLGPU_API void clgpu_alloc_cache_destroy(clgpu_alloc_cache *cache);

/** Open a cached scope on the calling thread for allocations on `context`,
 * served by `cache`. Scopes nest (a later begin on the same thread pushes a
 * new scope, on any cache); only the innermost scope serves requests, and
 * only those on its own context (others get plain buffers). The scope holds a
 * reference to `context` until clgpu_alloc_scope_end on this thread.
 * Errors: CLGPU_INVALID_ARGUMENT, CLGPU_CL_OUT_OF_HOST_MEMORY. */
CLGPU_API clgpu_status clgpu_alloc_scope_begin(clgpu_context *context, clgpu_alloc_cache *cache);

/** Open an uncached scope on the calling thread: allocations in it bypass
 * every cache until the matching end. It holds a reference to `context` as
 * a cached scope does. Errors: CLGPU_INVALID_ARGUMENT,
 * CLGPU_CL_OUT_OF_HOST_MEMORY. */
CLGPU_API clgpu_status clgpu_alloc_uncached_begin(clgpu_context *context);

/** Close the innermost scope of the calling thread, which must have been
 * opened on `context` (a context destroyed since is still the handle to pass:
 * the scope kept it alive). A cached scope returns its outstanding blocks to
 * the pool. The scope drops its reference to the context last; when that was
 * the context's last one the context is freed here, and its free blocks leave
 * every cache (unless another live context wraps its OpenCL context).
 * Errors: CLGPU_ALLOC_SCOPE_MISMATCH (no scope open on this thread, or the
 * innermost one is on another context; nothing changes),
 * CLGPU_INVALID_ARGUMENT (context is NULL). */
CLGPU_API clgpu_status clgpu_alloc_scope_end(clgpu_context *context);

/** Allocate `size` bytes (size > 0) with `flags` on the context, through the
 * innermost scope of the calling thread if any, written to *out (NULL on
 * failure). The caller gives it back with clgpu_buffer_release; in a cached
 * scope it belongs to the scope and must not be used after the scope ends. A
 * block from the cache may be larger than asked (its size class) and holds
 * whatever it held before. CL_MEM_USE_HOST_PTR and CL_MEM_COPY_HOST_PTR are
 * refused (a cached block has no host pointer). When the device is out of
 * memory, the cache releases its free blocks of that context and tries once
 * more. Errors: CLGPU_INVALID_ARGUMENT, CLGPU_CL_INVALID_BUFFER_SIZE (above
 * the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE, refused by clgpu itself since
 * some drivers allocate past the limit they report), OpenCL's codes from
 * clCreateBuffer. */
CLGPU_API clgpu_status clgpu_buffer_create(clgpu_context *context, cl_mem_flags flags, size_t size,
                                           cl_mem *out);

/** Give back a buffer from clgpu_buffer_create. A cached block returns to its
 * cache's pool (reusable on the same in-order queue at once, elsewhere once
 * the work enqueued before this call has completed); any other buffer is
 * released. NULL does nothing. `context` names the queue whose work the
 * release follows besides the queue the block was handed out on; it may be
 * NULL (that queue alone, which is what a workspace's destroy does), and
 * must not be a context destroyed with no scope left open on it. */
CLGPU_API void clgpu_buffer_release(clgpu_context *context, cl_mem buffer);

/** Counters of a cache since it was made. */
typedef struct clgpu_alloc_stats {
  uint64_t hits;               /**< requests served from the pool */
  uint64_t misses;             /**< requests that made a new block */
  uint64_t device_allocations; /**< clCreateBuffer calls the cache made */
  uint64_t bytes_held;         /**< bytes of blocks in the pool, free */
  uint64_t bytes_in_use;       /**< bytes of blocks handed out, live workspaces'
                                  included (a detached block leaves it) */
  uint64_t peak_bytes;         /**< largest bytes_held + bytes_in_use seen */
} clgpu_alloc_stats;

/** Copy the counters of a cache into *stats; safe while other threads use
 * the cache. Errors: CLGPU_INVALID_ARGUMENT (NULL cache or stats). */
CLGPU_API clgpu_status clgpu_alloc_cache_stats(const clgpu_alloc_cache *cache,
                                               clgpu_alloc_stats *stats);

/** Release free blocks until at most `keep_bytes` are held. Blocks in use are
 * not touched. *released (if not NULL) receives the bytes released (0 on
 * failure). Errors: CLGPU_INVALID_ARGUMENT (cache is NULL). */
CLGPU_API clgpu_status clgpu_alloc_cache_trim(clgpu_alloc_cache *cache, size_t keep_bytes,
                                              size_t *released);

#ifdef __cplusplus
}
#endif

#endif
