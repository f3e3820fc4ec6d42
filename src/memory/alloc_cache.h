/* The allocation cache (alloc_cache.c): the twins of include/clgpu/alloc.h's
 * buffers, pinning a block, dropping a dead cl_context's free blocks. */
#ifndef CLGPU_SRC_ALLOC_CACHE_H
#define CLGPU_SRC_ALLOC_CACHE_H

#include <stddef.h>

#include <clgpu/context.h>

/* Internal twins of public functions (the public one is a wrapper): the
 * library calls these, never its own public entry points. */
clgpu_status clgpu__buffer_create(clgpu_context *context, cl_mem_flags flags, size_t size,
                                  cl_mem *out);
void clgpu__buffer_release(clgpu_context *context, cl_mem buffer);
/* clgpu__buffer_release through the queue the block was handed out on,
 * its reuse also after `after` (NULL: none) completes. */
void clgpu__buffer_release_after(cl_mem buffer, cl_event after);

/* Release the free blocks of `cl_context` from every allocation cache
 * (alloc_cache.c), when the last clgpu_context on it that a cache can know
 * of goes. Blocks still handed out are left alone. */
void clgpu__alloc_drop_context(cl_context owner);

/* Pin a block that clgpu_buffer_create handed out in a cached scope
 * (alloc_cache.c), for a holder that outlives scopes (a workspace): the
 * scope's end no longer takes it back, and it stays the holder's until
 * clgpu_buffer_release. If its cache is destroyed, or the last clgpu
 * context on its OpenCL context is freed, before that release, the block is
 * detached from the cache and its buffer becomes a plain one that the
 * release frees. Any other buffer is left as it is. */
void clgpu__buffer_pin(cl_mem buffer);

#endif
