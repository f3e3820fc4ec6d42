/* Device allocations through the library, and the caching allocator.
 *
 * clgpu_buffer_create and clgpu_buffer_release are how the library makes its
 * temporaries and how a caller can make buffers that take part in caching.
 * Outside a cache scope they are clCreateBuffer and clReleaseMemObject.
 *
 * Inside a scope that the calling thread opened on a context with
 * clgpu_alloc_scope_begin, a request is served from the cache's free pool
 * when the pool holds a block of the same size class, memory flags and
 * OpenCL context that is safe to reuse, and made new otherwise. Blocks are
 * keyed by byte size class (sizes rounded up to one of four steps per power
 * of two), never by shape. When the scope ends, the blocks allocated in it
 * that are still outstanding go back to the pool: the caller promises not to
 * use them after the scope (as with GPUArrays' @cached). A workspace's block
 * is the exception (see "Lifetimes" below). A block released or
 * returned is reusable at once on the same in-order queue (later commands
 * run after earlier ones); on another queue, or an out-of-order one, only
 * after a marker enqueued at its release has completed, never earlier.
 *
 * Scopes nest and are per thread: each thread opens its own, possibly on the
 * same cache (the cache is locked). An "uncached" scope inside a cached one
 * opts out: what is allocated in it is made and released plainly and may
 * outlive every scope.
 *
 * Lifetimes. The rule of context.h: what you make from a context keeps it
 * alive until you free it, and may be used and freed in any order with
 * clgpu_context_destroy; only allocation scopes must still be closed. A
 * scope (cached or not) holds a reference to its context: the context may
 * be destroyed while the scope is open, and then lives until the scope is
 * closed, which is still done with clgpu_alloc_scope_end(context) on the
 * scope's thread. A cache holds no context: its blocks are keyed by OpenCL
 * context and keep that alive themselves (an OpenCL context lives while its
 * buffers do), and when the last live clgpu context over an OpenCL context
 * is freed, that OpenCL context's free blocks leave every cache, so a
 * context made later never receives them.
 *
 * A workspace made in a cached scope (workspace.h) may outlive the scope
 * and the cache, in any order: its block is pinned, the workspace's alone
 * until clgpu_workspace_destroy. The scope's end leaves it out of the pool,
 * so no later request gets that memory while the workspace lives. Destroyed,
 * the workspace gives the block back to its cache's pool; if the cache was
 * destroyed first, or the last live clgpu context over the block's OpenCL
 * context was freed, the block was detached from the cache then (it left the
 * cache's counters) and is released as a plain buffer. A workspace made and
 * destroyed in one scope still reuses one block: a loop of them makes one
 * device allocation. A buffer that the caller takes from
 * clgpu_buffer_create in a scope is not pinned: it is the scope's, and not
 * to be used after the scope ends. */
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

/* Make an empty cache. Errors: CLGPU_INVALID_ARGUMENT,
 * CLGPU_CL_OUT_OF_HOST_MEMORY. */
CLGPU_API clgpu_status clgpu_alloc_cache_create(clgpu_alloc_cache **out);

/* Release every free block the cache holds and the cache. NULL is
 * allowed. Unlike other destroy functions this one can refuse: while any
 * thread has a scope open on the cache (on a context destroyed since or
 * not) it returns CLGPU_ALLOC_SCOPE_OPEN, the message giving the number of
 * open scopes, and frees nothing. With no scope open the only blocks handed
 * out are those of live workspaces (a scope's end takes back the rest):
 * they are detached, each left to its workspace as a plain buffer that
 * clgpu_workspace_destroy releases, and the destroy succeeds. A thread that
 * exits with a scope open leaves it open for good: close every scope you
 * open. */
CLGPU_API clgpu_status clgpu_alloc_cache_destroy(clgpu_alloc_cache *cache);

/* Open a cached scope on the calling thread for allocations on `context`,
 * served by `cache`. Scopes nest (a later begin on the same thread pushes a
 * new scope, on any cache); only the innermost scope serves requests, and
 * only those on its own context (others get plain buffers). The scope holds
 * a reference to `context` until it is closed (see "Lifetimes" above).
 * Errors:
 * CLGPU_INVALID_ARGUMENT, CLGPU_CL_OUT_OF_HOST_MEMORY. */
CLGPU_API clgpu_status clgpu_alloc_scope_begin(clgpu_context *context, clgpu_alloc_cache *cache);

/* Open an uncached scope on the calling thread: allocations in it bypass
 * every cache until the matching end. It holds a reference to `context` as
 * a cached scope does. Errors: CLGPU_INVALID_ARGUMENT,
 * CLGPU_CL_OUT_OF_HOST_MEMORY. */
CLGPU_API clgpu_status clgpu_alloc_uncached_begin(clgpu_context *context);

/* Close the innermost scope of the calling thread, which must have been
 * opened on `context` (a context destroyed since is still the handle to
 * pass: the scope kept it alive). A cached scope returns its outstanding
 * blocks to the pool. The scope drops its reference to the context last;
 * when that was the context's last one the context is freed here, and its
 * free blocks leave every cache (unless another live context wraps its
 * OpenCL context). Errors: CLGPU_ALLOC_SCOPE_MISMATCH (no scope open on this thread, or
 * the innermost one is on another context; nothing changes),
 * CLGPU_INVALID_ARGUMENT (context is NULL). */
CLGPU_API clgpu_status clgpu_alloc_scope_end(clgpu_context *context);

/* Allocate `size` bytes (size > 0) with `flags` on the context, through the
 * innermost scope of the calling thread if any. On failure *out is NULL. CL_MEM_USE_HOST_PTR and
 * CL_MEM_COPY_HOST_PTR are refused (a cached block has no host pointer).
 * A block from the cache may be larger than asked (its size class) and holds
 * whatever it held before. Errors: CLGPU_INVALID_ARGUMENT,
 * CLGPU_CL_INVALID_BUFFER_SIZE (above the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE,
 * refused by clgpu itself since some drivers allocate past the limit they
 * report), OpenCL's codes from clCreateBuffer. When the device is out of
 * memory, the cache releases its free blocks of that context and tries once
 * more. */
CLGPU_API clgpu_status clgpu_buffer_create(clgpu_context *context, cl_mem_flags flags, size_t size,
                                           cl_mem *out);

/* Give back a buffer from clgpu_buffer_create. A cached block returns to its
 * cache's pool (reusable on the same in-order queue at once, elsewhere once
 * the work enqueued before this call has completed); any other buffer is
 * released. NULL does nothing. `context` names the queue whose work the
 * release follows besides the queue the block was handed out on; it may be
 * NULL (that queue alone, which is what a workspace's destroy does), and
 * must not be a context destroyed with no scope left open on it. */
CLGPU_API void clgpu_buffer_release(clgpu_context *context, cl_mem buffer);

/* Counters of a cache since it was made. */
typedef struct clgpu_alloc_stats {
  uint64_t hits;               /* requests served from the pool */
  uint64_t misses;             /* requests that made a new block */
  uint64_t device_allocations; /* clCreateBuffer calls the cache made */
  uint64_t bytes_held;         /* bytes of blocks in the pool, free */
  uint64_t bytes_in_use;       /* bytes of blocks handed out, live workspaces'
                                  included (a detached block leaves it) */
  uint64_t peak_bytes;         /* largest bytes_held + bytes_in_use seen */
} clgpu_alloc_stats;

CLGPU_API clgpu_status clgpu_alloc_cache_stats(const clgpu_alloc_cache *cache,
                                               clgpu_alloc_stats *stats);

/* Release free blocks until at most `keep_bytes` are held. Blocks in use are
 * not touched. *released (if not NULL) receives the bytes released. */
CLGPU_API clgpu_status clgpu_alloc_cache_trim(clgpu_alloc_cache *cache, size_t keep_bytes,
                                              size_t *released);

#ifdef __cplusplus
}
#endif

#endif
