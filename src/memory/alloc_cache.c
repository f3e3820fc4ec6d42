/* The caching allocator: size classes, each cache's pool of free blocks
 * keyed by OpenCL context, memory flags and size class, the per-thread stack
 * of allocation scopes, and the registry through which clgpu_buffer_release
 * finds the cache a buffer came from.
 *
 * A block handed out in a scope is the scope's until the scope ends, unless
 * a long-lived holder (a workspace) pins it: a pinned block is the holder's
 * until the holder releases it, whatever happens to the scope, and the
 * scope's end leaves it out of the pool. Its release puts it in the pool of
 * its cache; when the cache is destroyed first, or the last clgpu context
 * of its OpenCL context is freed, the block is detached instead: it leaves
 * the cache and the registry, and its buffer becomes a plain one that the
 * holder's release frees.
 *
 * Locks: the registry's lock is always taken before a cache's lock, never
 * while one is held, because a release finds the cache through the registry
 * while a miss, a trim or a destroy change the registry with the cache
 * locked. A request served from the pool and the end of a scope take only
 * the cache's lock. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/alloc.h>
#include <clgpu/context.h>

#include "alloc_cache.h"
#include "chain.h"
#include "context_internal.h"
#include "opencl.h"
#include "status_internal.h"

typedef struct scope_frame scope_frame;
typedef struct size_bin size_bin;

typedef enum block_state { BLOCK_IN_USE, BLOCK_FREE } block_state;

/* A buffer the cache made, and what decides when it may be handed out
 * again. */
typedef struct alloc_block {
  cl_mem buffer;
  size_t size; /* the size class: the buffer's real size */
  clgpu_alloc_cache *cache;
  size_bin *bin;
  block_state state;
  /* The queue the block was last handed out on or returned through. It is
   * retained so that a queue made later at the same address is never taken
   * for it. */
  cl_command_queue queue;
  /* Whether a request on `queue` may take the block without waiting: the
   * queue runs in order, so what is enqueued next runs after the block's
   * earlier work. */
  int reuse_at_once;
  /* While free: a marker that completes once the work enqueued before the
   * return has completed (NULL when none could be made or it has been seen
   * complete), and whether that work is known to have completed. */
  cl_event marker;
  int settled;
  /* While in use: the scope it was handed out in and that scope's list, or
   * (frame NULL) the cache's list of pinned blocks. */
  scope_frame *frame;
  struct alloc_block *frame_prev, *frame_next;
  /* While free: its bin's list, newest first, and the cache's list of free
   * blocks from the least to the most recently returned. */
  struct alloc_block *bin_prev, *bin_next;
  struct alloc_block *pool_older, *pool_newer;
  struct alloc_block *registry_next;
} alloc_block;

/* The blocks of one pool key. A bin lives while any block of its key does,
 * free or in use, so that returning a block never needs memory. */
struct size_bin {
  cl_context cl_context;
  cl_mem_flags flags;
  size_t size;
  alloc_block *free_blocks;
  size_t blocks;
  size_bin *next;
};

/* One scope on a thread's stack. The list of outstanding blocks is changed
 * under the cache's lock, since another thread may release one of them. */
struct scope_frame {
  clgpu_context *context;
  clgpu_alloc_cache *cache; /* NULL: an uncached scope */
  int in_order;             /* whether the context's queue runs in order */
  alloc_block *outstanding;
  scope_frame *outer;
};

struct clgpu_alloc_cache {
  pthread_mutex_t lock;
  size_bin *bins;
  alloc_block *oldest_free, *newest_free;
  /* Scopes open on the cache over all threads: a destroy while any is
   * open only marks the cache (destroyed), and the last scope to end frees
   * it, since its blocks are handed out through them. */
  size_t open_scopes;
  int destroyed;
  /* Blocks in use that their holders pinned: no scope takes them back. */
  alloc_block *pinned;
  clgpu_alloc_stats stats;
  /* Every live cache, under the registry's lock, so that a context's last
   * reference can give its free blocks back from all of them. */
  clgpu_alloc_cache *older_cache, *newer_cache;
};

/* The innermost scope of the calling thread. */
static _Thread_local scope_frame *innermost_scope;

/* ---- the registry: which cache a buffer belongs to ---- */

enum { REGISTRY_FIRST_BUCKETS = 64 };

/* Every block of every cache, found by its buffer. The first table is
 * static so that registering a block can never fail; larger ones are
 * allocated as the count grows, and a failed growth only makes chains
 * longer. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static alloc_block *registry_first[REGISTRY_FIRST_BUCKETS];
static alloc_block **registry_buckets = registry_first;
static size_t registry_bucket_count = REGISTRY_FIRST_BUCKETS;
static size_t registry_count;
/* The most recently made live cache: the head of the list of all caches. */
static clgpu_alloc_cache *newest_cache;

static size_t registry_bucket(cl_mem buffer, size_t bucket_count) {
  /* Handles are pointers with zero low bits: mix the high bits down. */
  uint64_t x = (uint64_t)(uintptr_t)buffer;
  x ^= x >> 29;
  x *= UINT64_C(0x9E3779B97F4A7C15);
  x ^= x >> 32;
  return (size_t)x & (bucket_count - 1);
}

static void registry_grow(void) {
  size_t count = registry_bucket_count * 2;
  alloc_block **grown = calloc(count, sizeof *grown);
  if (!grown) return;
  for (size_t i = 0; i < registry_bucket_count; i++) {
    alloc_block *block = registry_buckets[i];
    while (block) {
      alloc_block *next = block->registry_next;
      size_t bucket = registry_bucket(block->buffer, count);
      block->registry_next = grown[bucket];
      grown[bucket] = block;
      block = next;
    }
  }
  if (registry_buckets != registry_first) free(registry_buckets);
  registry_buckets = grown;
  registry_bucket_count = count;
}

static void registry_add(alloc_block *block) {
  if (registry_count >= registry_bucket_count) registry_grow();
  size_t bucket = registry_bucket(block->buffer, registry_bucket_count);
  block->registry_next = registry_buckets[bucket];
  registry_buckets[bucket] = block;
  registry_count++;
}

static void registry_remove(alloc_block *block) {
  size_t bucket = registry_bucket(block->buffer, registry_bucket_count);
  for (alloc_block **link = &registry_buckets[bucket]; *link; link = &(*link)->registry_next) {
    if (*link == block) {
      *link = block->registry_next;
      registry_count--;
      break;
    }
  }
  /* An empty registry goes back to the static table, so that a process
   * whose caches are all gone holds no memory for it. */
  if (registry_count == 0 && registry_buckets != registry_first) {
    free(registry_buckets);
    memset(registry_first, 0, sizeof registry_first);
    registry_buckets = registry_first;
    registry_bucket_count = REGISTRY_FIRST_BUCKETS;
  }
}

static alloc_block *registry_find(cl_mem buffer) {
  alloc_block *block = registry_buckets[registry_bucket(buffer, registry_bucket_count)];
  while (block && block->buffer != buffer) block = block->registry_next;
  return block;
}

/* ---- OpenCL calls ---- */

static int queue_in_order(cl_command_queue queue) {
  cl_command_queue_properties properties = 0;
  /* A queue whose properties cannot be read counts as out of order, which
   * only delays reuse until its markers complete. */
  if (clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof properties, &properties, NULL) !=
      CL_SUCCESS) {
    return 0;
  }
  return (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0;
}

static cl_int enqueue_marker(cl_command_queue queue, cl_uint wait_count, const cl_event *wait_list,
                             cl_event *marker) {
  *marker = NULL;
  cl_int err = clgpu__cl_enqueue_marker(queue, wait_count, wait_list, marker);
  if (err != CL_SUCCESS) *marker = NULL;
  return err;
}

static cl_mem create_buffer(const clgpu_context *context, cl_mem_flags flags, size_t size,
                            cl_int *err) {
  *err = CL_SUCCESS;
  cl_mem buffer = clgpu__cl_create_buffer(context->cl_context, flags, size, err);
  return *err == CL_SUCCESS ? buffer : NULL;
}

static clgpu_status fail_create(cl_int err, size_t size, size_t requested) {
  return clgpu__fail((clgpu_status)err,
                     "clCreateBuffer of %zu bytes (for a request of %zu) failed: %s (%d)", size,
                     requested, clgpu__status_name(err), (int)err);
}

/* ---- size classes ---- */

/* The size of the block that serves a request: up to 4 KiB the next
 * multiple of 256 bytes; above, the next of four steps per power of two
 * (2^k, 1.25, 1.5 and 1.75 times 2^k), so that a block is less than 25%
 * larger than asked. A class above the device's largest allocation is cut
 * down to it (the request itself fits: the caller checked), so that every
 * request the device allows can be served. */
static size_t block_size_for(size_t size, cl_ulong max_allocation) {
  size_t block_size;
  if (size <= 4096) {
    block_size = (size + 255) / 256 * 256;
  } else {
    unsigned exponent = 0;
    while ((size >> exponent) > 1) exponent++;
    size_t step = (size_t)1 << (exponent - 2);
    block_size = size > SIZE_MAX - (step - 1) ? SIZE_MAX : (size + step - 1) & ~(step - 1);
  }
  if ((cl_ulong)block_size > max_allocation) block_size = (size_t)max_allocation;
  return block_size;
}

/* ---- blocks, bins and the pool (under the cache's lock) ---- */

static size_bin *find_bin(clgpu_alloc_cache *cache, cl_context owner, cl_mem_flags flags,
                          size_t size) {
  for (size_bin *bin = cache->bins; bin; bin = bin->next) {
    if (bin->cl_context == owner && bin->flags == flags && bin->size == size) return bin;
  }
  return NULL;
}

static size_bin *find_or_add_bin(clgpu_alloc_cache *cache, cl_context owner, cl_mem_flags flags,
                                 size_t size) {
  size_bin *bin = find_bin(cache, owner, flags, size);
  if (bin) return bin;
  bin = calloc(1, sizeof *bin);
  if (!bin) return NULL;
  bin->cl_context = owner;
  bin->flags = flags;
  bin->size = size;
  bin->next = cache->bins;
  cache->bins = bin;
  return bin;
}

static void note_peak(clgpu_alloc_stats *stats) {
  uint64_t total = stats->bytes_held + stats->bytes_in_use;
  if (total > stats->peak_bytes) stats->peak_bytes = total;
}

/* Put a free block into its bin (newest first) and at the new end of the
 * pool. */
static void pool_insert(clgpu_alloc_cache *cache, alloc_block *block) {
  block->state = BLOCK_FREE;
  size_bin *bin = block->bin;
  block->bin_prev = NULL;
  block->bin_next = bin->free_blocks;
  if (bin->free_blocks) bin->free_blocks->bin_prev = block;
  bin->free_blocks = block;
  block->pool_newer = NULL;
  block->pool_older = cache->newest_free;
  if (cache->newest_free) {
    cache->newest_free->pool_newer = block;
  } else {
    cache->oldest_free = block;
  }
  cache->newest_free = block;
  cache->stats.bytes_held += block->size;
}

static void pool_remove(clgpu_alloc_cache *cache, alloc_block *block) {
  size_bin *bin = block->bin;
  if (block->bin_prev) {
    block->bin_prev->bin_next = block->bin_next;
  } else {
    bin->free_blocks = block->bin_next;
  }
  if (block->bin_next) block->bin_next->bin_prev = block->bin_prev;
  if (block->pool_older) {
    block->pool_older->pool_newer = block->pool_newer;
  } else {
    cache->oldest_free = block->pool_newer;
  }
  if (block->pool_newer) {
    block->pool_newer->pool_older = block->pool_older;
  } else {
    cache->newest_free = block->pool_older;
  }
  block->bin_prev = block->bin_next = block->pool_older = block->pool_newer = NULL;
  cache->stats.bytes_held -= block->size;
}

/* Take a block in use off the list it is on: its scope's outstanding
 * blocks, or its cache's pinned ones. */
static void frame_unlink(alloc_block *block) {
  alloc_block **head = block->frame ? &block->frame->outstanding : &block->cache->pinned;
  if (block->frame_prev) {
    block->frame_prev->frame_next = block->frame_next;
  } else {
    *head = block->frame_next;
  }
  if (block->frame_next) block->frame_next->frame_prev = block->frame_prev;
  block->frame = NULL;
  block->frame_prev = block->frame_next = NULL;
}

static void set_queue(alloc_block *block, cl_command_queue queue, int reuse_at_once) {
  if (block->queue != queue) {
    clRetainCommandQueue(queue);
    if (block->queue) clReleaseCommandQueue(block->queue);
    block->queue = queue;
  }
  block->reuse_at_once = reuse_at_once;
}

/* Give a block to a request in `frame`: it is in use on the frame's queue
 * from now on, and its marker is no longer needed. */
static void hand_out(scope_frame *frame, alloc_block *block) {
  block->state = BLOCK_IN_USE;
  if (block->marker) clReleaseEvent(block->marker);
  block->marker = NULL;
  block->settled = 0;
  set_queue(block, frame->context->queue, frame->in_order);
  block->frame = frame;
  block->frame_prev = NULL;
  block->frame_next = frame->outstanding;
  if (frame->outstanding) frame->outstanding->frame_prev = block;
  frame->outstanding = block;
  frame->cache->stats.bytes_in_use += block->size;
}

static int marker_complete(alloc_block *block) {
  cl_int execution = CL_QUEUED;
  if (clGetEventInfo(block->marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof execution, &execution,
                     NULL) != CL_SUCCESS ||
      execution != CL_COMPLETE) {
    /* Not yet complete; or ended in an error, which says nothing about when
     * the work before it stopped, so that block waits for a trim or the
     * destroy. */
    return 0;
  }
  clReleaseEvent(block->marker);
  block->marker = NULL;
  block->settled = 1;
  return 1;
}

/* A free block of the bin that a request on `queue` may take now: first one
 * last used on that same in-order queue, which needs no waiting, else one
 * whose earlier work has completed. */
static alloc_block *find_reusable(size_bin *bin, cl_command_queue queue) {
  for (alloc_block *block = bin->free_blocks; block; block = block->bin_next) {
    if (block->queue == queue && block->reuse_at_once) return block;
  }
  for (alloc_block *block = bin->free_blocks; block; block = block->bin_next) {
    if (block->settled || (block->marker && marker_complete(block))) return block;
  }
  return NULL;
}

/* Return the blocks still outstanding in a closing scope to the pool behind
 * one marker on the scope's queue, the queue they were all handed out on. */
static void return_outstanding(scope_frame *frame) {
  if (!frame->outstanding) return;
  clgpu_alloc_cache *cache = frame->cache;
  cl_command_queue queue = frame->context->queue;
  cl_event marker = NULL;
  int settled = 0;
  if (enqueue_marker(queue, 0, NULL, &marker) != CL_SUCCESS) {
    /* Without a marker only waiting tells when the blocks' work is done; if
     * even that fails they are reused on this queue alone, and only when it
     * runs in order. */
    settled = clFinish(queue) == CL_SUCCESS;
  }
  while (frame->outstanding) {
    alloc_block *block = frame->outstanding;
    frame_unlink(block);
    if (marker) clRetainEvent(marker);
    block->marker = marker;
    block->settled = settled;
    cache->stats.bytes_in_use -= block->size;
    pool_insert(cache, block);
  }
  if (marker) clReleaseEvent(marker);
}

/* Return one block the caller released through `context` (NULL: through
 * the queue it was handed out on). The marker covers the work enqueued on
 * the block's queue and, when the releasing queue is another one of the same
 * OpenCL context, that queue's work too; the block then counts as last used
 * on the releasing queue. With `after`, the marker also waits for that
 * event (work of the block's last user on a queue the cache does not
 * know). */
static void return_released(clgpu_alloc_cache *cache, alloc_block *block,
                            const clgpu_context *context, cl_event after) {
  frame_unlink(block);
  cl_command_queue releasing = block->queue;
  if (context && context->cl_context == block->bin->cl_context) releasing = context->queue;
  cl_event marker = NULL;
  cl_int err = enqueue_marker(block->queue, 0, NULL, &marker);
  if (err == CL_SUCCESS && releasing != block->queue) {
    /* A marker with a wait list waits for the listed events alone, so the
     * releasing queue's own earlier work gets a marker of its own and a
     * third one joins the two. */
    cl_event own = NULL, joined = NULL;
    err = enqueue_marker(releasing, 0, NULL, &own);
    if (err == CL_SUCCESS) {
      cl_event both[2] = {marker, own};
      err = enqueue_marker(releasing, 2, both, &joined);
      clReleaseEvent(own);
    }
    clReleaseEvent(marker);
    marker = joined;
    if (err == CL_SUCCESS) set_queue(block, releasing, queue_in_order(releasing));
  }
  if (err == CL_SUCCESS && after) {
    /* On an in-order queue the joined marker also holds back the commands
     * after it, so reuse on that queue stays immediate. */
    cl_event joined = NULL;
    cl_event both[2] = {marker, after};
    err = enqueue_marker(block->queue, 2, both, &joined);
    clReleaseEvent(marker);
    marker = joined;
  }
  int settled = 0;
  if (err != CL_SUCCESS) {
    if (marker) clReleaseEvent(marker);
    marker = NULL;
    settled = clFinish(block->queue) == CL_SUCCESS &&
              (releasing == block->queue || clFinish(releasing) == CL_SUCCESS) &&
              (!after || clWaitForEvents(1, &after) == CL_SUCCESS);
    /* The block's queue alone does not order the releasing queue's work. */
    if (!settled && releasing != block->queue) block->reuse_at_once = 0;
  }
  block->marker = marker;
  block->settled = settled;
  cache->stats.bytes_in_use -= block->size;
  pool_insert(cache, block);
}

/* Take a block out of the registry and out of its bin, which goes when it
 * was the bin's last block. Under the registry's and the cache's locks. */
static void forget_block(clgpu_alloc_cache *cache, alloc_block *block) {
  registry_remove(block);
  size_bin *bin = block->bin;
  if (--bin->blocks == 0) {
    for (size_bin **link = &cache->bins; *link; link = &(*link)->next) {
      if (*link == bin) {
        *link = bin->next;
        break;
      }
    }
    free(bin);
  }
  block->bin = NULL;
}

/* Take free blocks out of the cache and the registry, oldest first, until
 * at most `keep_bytes` are held, skipping blocks of other OpenCL contexts
 * when `cl_context` is not NULL. Under the registry's and the cache's locks;
 * the caller destroys the list (chained through pool_newer) after unlocking.
 * Returns the bytes taken. */
static size_t take_free_blocks(clgpu_alloc_cache *cache, cl_context owner, size_t keep_bytes,
                               alloc_block **taken) {
  size_t bytes = 0;
  alloc_block *block = cache->oldest_free;
  while (block && cache->stats.bytes_held > keep_bytes) {
    alloc_block *newer = block->pool_newer;
    if (!owner || block->bin->cl_context == owner) {
      pool_remove(cache, block);
      forget_block(cache, block);
      block->pool_newer = *taken;
      *taken = block;
      bytes += block->size;
    }
    block = newer;
  }
  return bytes;
}

/* Detach the pinned blocks of `owner` (every one when NULL) from the
 * cache: out of the registry and the stats, their buffers left to their
 * holders, whose release then frees them as plain buffers. Under the
 * registry's and the cache's locks; the caller passes the list (chained
 * through pool_newer) to free_detached after unlocking. */
static void detach_pinned(clgpu_alloc_cache *cache, cl_context owner, alloc_block **detached) {
  alloc_block *block = cache->pinned;
  while (block) {
    alloc_block *next = block->frame_next;
    if (!owner || block->bin->cl_context == owner) {
      frame_unlink(block);
      cache->stats.bytes_in_use -= block->size;
      forget_block(cache, block);
      block->pool_newer = *detached;
      *detached = block;
    }
    block = next;
  }
}

/* Let go of what the cache kept for each block of a list; the buffers too
 * unless `keep_buffers` (detached blocks, whose buffers are their
 * holders'). */
static void free_blocks(alloc_block *block, int keep_buffers) {
  while (block) {
    alloc_block *next = block->pool_newer;
    if (block->marker) clReleaseEvent(block->marker);
    if (block->queue) clReleaseCommandQueue(block->queue);
    /* OpenCL frees the memory once the commands that use it have finished,
     * so a block whose work is still running is released safely. */
    if (!keep_buffers) clReleaseMemObject(block->buffer);
    free(block);
    block = next;
  }
}

static void destroy_blocks(alloc_block *block) { free_blocks(block, 0); }

static void free_detached(alloc_block *block) { free_blocks(block, 1); }

/* ---- the cache ---- */

clgpu_status clgpu_alloc_cache_create(clgpu_alloc_cache **out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "clgpu_alloc_cache_create: out is NULL");
  *out = NULL;
  clgpu_alloc_cache *cache = calloc(1, sizeof *cache);
  CLGPU__RETURN_ERROR_IF(!cache, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  if (pthread_mutex_init(&cache->lock, NULL) != 0) {
    free(cache);
    return clgpu__fail(CLGPU_INTERNAL_ERROR, "pthread_mutex_init failed");
  }
  clgpu__context_on_last_wrapper_gone(clgpu__alloc_drop_context);
  pthread_mutex_lock(&registry_lock);
  cache->older_cache = newest_cache;
  if (newest_cache) newest_cache->newer_cache = cache;
  newest_cache = cache;
  pthread_mutex_unlock(&registry_lock);
  *out = cache;
  return CLGPU_SUCCESS;
}

/* Free the cache once no scope is open on it (by then destroyed). Takes the
 * registry's lock, then the cache's. */
static void cache_teardown(clgpu_alloc_cache *cache) {
  pthread_mutex_lock(&registry_lock);
  pthread_mutex_lock(&cache->lock);
  size_t open_scopes = cache->open_scopes;
  alloc_block *taken = NULL, *detached = NULL;
  /* With no scope open the only blocks in use are pinned ones (every scope
   * returns what else it handed out when it ends): they are detached, left
   * to their holders as plain buffers, and the free blocks released. */
  if (open_scopes == 0) {
    take_free_blocks(cache, NULL, 0, &taken);
    detach_pinned(cache, NULL, &detached);
    if (cache->older_cache) cache->older_cache->newer_cache = cache->newer_cache;
    if (cache->newer_cache) {
      cache->newer_cache->older_cache = cache->older_cache;
    } else {
      newest_cache = cache->older_cache;
    }
  }
  /* Open scopes keep it: the last one to end comes back here. */
  if (open_scopes > 0) cache->destroyed = 1;
  pthread_mutex_unlock(&cache->lock);
  pthread_mutex_unlock(&registry_lock);
  if (open_scopes > 0) return;
  destroy_blocks(taken);
  free_detached(detached);
  pthread_mutex_destroy(&cache->lock);
  free(cache);
}

void clgpu_alloc_cache_destroy(clgpu_alloc_cache *cache) {
  if (cache) cache_teardown(cache);
}

clgpu_status clgpu_alloc_cache_stats(const clgpu_alloc_cache *cache, clgpu_alloc_stats *stats) {
  CLGPU__RETURN_ERROR_IF(!cache || !stats, CLGPU_INVALID_ARGUMENT,
                         "clgpu_alloc_cache_stats: cache and stats must not be NULL");
  /* The lock is not part of what the caller sees as the cache's value, and
   * every cache is allocated by clgpu_alloc_cache_create, never const. */
  clgpu_alloc_cache *locked = (clgpu_alloc_cache *)cache;
  pthread_mutex_lock(&locked->lock);
  *stats = locked->stats;
  pthread_mutex_unlock(&locked->lock);
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_alloc_cache_trim(clgpu_alloc_cache *cache, size_t keep_bytes, size_t *released) {
  if (released) *released = 0;
  CLGPU__RETURN_ERROR_IF(!cache, CLGPU_INVALID_ARGUMENT, "clgpu_alloc_cache_trim: cache is NULL");
  alloc_block *taken = NULL;
  pthread_mutex_lock(&registry_lock);
  pthread_mutex_lock(&cache->lock);
  size_t bytes = take_free_blocks(cache, NULL, keep_bytes, &taken);
  pthread_mutex_unlock(&cache->lock);
  pthread_mutex_unlock(&registry_lock);
  destroy_blocks(taken);
  if (released) *released = bytes;
  return CLGPU_SUCCESS;
}

void clgpu__alloc_drop_context(cl_context owner) {
  alloc_block *taken = NULL, *detached = NULL;
  pthread_mutex_lock(&registry_lock);
  for (clgpu_alloc_cache *cache = newest_cache; cache; cache = cache->older_cache) {
    pthread_mutex_lock(&cache->lock);
    take_free_blocks(cache, owner, 0, &taken);
    /* Pinned blocks would come back to the pool after their context: they
     * leave now, as their holders' plain buffers. */
    detach_pinned(cache, owner, &detached);
    pthread_mutex_unlock(&cache->lock);
  }
  pthread_mutex_unlock(&registry_lock);
  destroy_blocks(taken);
  free_detached(detached);
}

/* ---- scopes ---- */

static clgpu_status push_scope(clgpu_context *context, clgpu_alloc_cache *cache) {
  scope_frame *frame = calloc(1, sizeof *frame);
  CLGPU__RETURN_ERROR_IF(!frame, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  /* The scope holds a reference to its context, so that the context lives
   * (and no other lands at its address) until the scope is closed, even if
   * the caller destroys it first: the scope's end needs its queue. */
  clgpu__context_retain(context);
  frame->context = context;
  frame->cache = cache;
  frame->outer = innermost_scope;
  if (cache) {
    /* Asked once per scope: every block handed out in it is on this queue. */
    frame->in_order = queue_in_order(context->queue);
    pthread_mutex_lock(&cache->lock);
    cache->open_scopes++;
    pthread_mutex_unlock(&cache->lock);
  }
  innermost_scope = frame;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_alloc_scope_begin(clgpu_context *context, clgpu_alloc_cache *cache) {
  CLGPU__RETURN_ERROR_IF(!context || !cache, CLGPU_INVALID_ARGUMENT,
                         "clgpu_alloc_scope_begin: context and cache must not be NULL");
  return push_scope(context, cache);
}

clgpu_status clgpu_alloc_uncached_begin(clgpu_context *context) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT,
                         "clgpu_alloc_uncached_begin: context is NULL");
  return push_scope(context, NULL);
}

clgpu_status clgpu_alloc_scope_end(clgpu_context *context) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT,
                         "clgpu_alloc_scope_end: context is NULL");
  scope_frame *frame = innermost_scope;
  CLGPU__RETURN_ERROR_IF(!frame, CLGPU_ALLOC_SCOPE_MISMATCH,
                         "clgpu_alloc_scope_end: no allocation scope is open on this thread");
  CLGPU__RETURN_ERROR_IF(frame->context != context, CLGPU_ALLOC_SCOPE_MISMATCH,
                         "clgpu_alloc_scope_end: the innermost scope of this thread is on "
                         "another context");
  innermost_scope = frame->outer;
  clgpu_alloc_cache *finished = NULL;
  if (frame->cache) {
    pthread_mutex_lock(&frame->cache->lock);
    return_outstanding(frame);
    frame->cache->open_scopes--;
    if (frame->cache->destroyed && frame->cache->open_scopes == 0) finished = frame->cache;
    pthread_mutex_unlock(&frame->cache->lock);
  }
  free(frame);
  /* The last scope on a cache destroyed meanwhile frees it. */
  if (finished) cache_teardown(finished);
  /* Last, with no lock held: it may be the context's last reference, whose
   * release gives the context's free blocks back from every cache. */
  clgpu__context_release(context);
  return CLGPU_SUCCESS;
}

/* ---- buffers ---- */

static int is_allocation_failure(cl_int err) {
  return err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
         err == CL_OUT_OF_HOST_MEMORY;
}

static clgpu_status create_cached(scope_frame *frame, cl_mem_flags flags, size_t size,
                                  cl_mem *out) {
  clgpu_context *context = frame->context;
  clgpu_alloc_cache *cache = frame->cache;
  size_t block_size = block_size_for(size, context->info.max_mem_alloc_size);
  pthread_mutex_lock(&cache->lock);
  size_bin *bin = find_bin(cache, context->cl_context, flags, block_size);
  alloc_block *block = bin ? find_reusable(bin, context->queue) : NULL;
  if (block) {
    pool_remove(cache, block);
    hand_out(frame, block);
    cache->stats.hits++;
    pthread_mutex_unlock(&cache->lock);
    *out = block->buffer;
    return CLGPU_SUCCESS;
  }
  pthread_mutex_unlock(&cache->lock);

  /* The device may be out of memory because the pool holds it: give back
   * the free blocks of this OpenCL context and try once more. */
  cl_int err = CL_SUCCESS;
  cl_mem buffer = create_buffer(context, flags, block_size, &err);
  if (is_allocation_failure(err)) {
    alloc_block *taken = NULL;
    pthread_mutex_lock(&registry_lock);
    pthread_mutex_lock(&cache->lock);
    take_free_blocks(cache, context->cl_context, 0, &taken);
    pthread_mutex_unlock(&cache->lock);
    pthread_mutex_unlock(&registry_lock);
    if (taken) {
      destroy_blocks(taken);
      buffer = create_buffer(context, flags, block_size, &err);
    }
  }
  if (err != CL_SUCCESS) return fail_create(err, block_size, size);

  block = calloc(1, sizeof *block);
  pthread_mutex_lock(&registry_lock);
  pthread_mutex_lock(&cache->lock);
  bin = block ? find_or_add_bin(cache, context->cl_context, flags, block_size) : NULL;
  if (!bin) {
    pthread_mutex_unlock(&cache->lock);
    pthread_mutex_unlock(&registry_lock);
    free(block);
    clReleaseMemObject(buffer);
    return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  }
  block->buffer = buffer;
  block->size = block_size;
  block->cache = cache;
  block->bin = bin;
  bin->blocks++;
  registry_add(block);
  hand_out(frame, block);
  cache->stats.misses++;
  cache->stats.device_allocations++;
  note_peak(&cache->stats);
  pthread_mutex_unlock(&cache->lock);
  pthread_mutex_unlock(&registry_lock);
  *out = buffer;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__buffer_create(clgpu_context *context, cl_mem_flags flags, size_t size,
                                  cl_mem *out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "clgpu_buffer_create: out is NULL");
  *out = NULL;
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "clgpu_buffer_create: context is NULL");
  CLGPU__RETURN_ERROR_IF(size == 0, CLGPU_INVALID_ARGUMENT, "clgpu_buffer_create: size is 0");
  CLGPU__RETURN_ERROR_IF(flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR),
                         CLGPU_INVALID_ARGUMENT,
                         "clgpu_buffer_create: CL_MEM_USE_HOST_PTR and CL_MEM_COPY_HOST_PTR are "
                         "refused (a cached block has no host pointer)");
  /* Checked here rather than left to clCreateBuffer, since some drivers
   * allocate above the limit they report and the answer would then depend
   * on the device. */
  CLGPU__RETURN_ERROR_IF((cl_ulong)size > context->info.max_mem_alloc_size,
                         CLGPU_CL_INVALID_BUFFER_SIZE,
                         "clgpu_buffer_create: %zu bytes is more than the device's largest "
                         "allocation (%llu bytes)",
                         size, (unsigned long long)context->info.max_mem_alloc_size);
  scope_frame *frame = innermost_scope;
  /* Only a cached scope on this same context serves the request; an
   * uncached scope, a scope on another context and no scope at all make a
   * plain buffer. So does a call on another queue than its context's
   * (docs/queues.md): the cache orders the reuse of its blocks on the
   * context's queue alone. */
  if (frame && frame->cache && frame->context == context &&
      clgpu__queue_of(context) == context->queue) {
    return create_cached(frame, flags, size, out);
  }
  cl_int err = CL_SUCCESS;
  cl_mem buffer = create_buffer(context, flags, size, &err);
  if (err != CL_SUCCESS) return fail_create(err, size, size);
  *out = buffer;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_buffer_create(clgpu_context *context, cl_mem_flags flags, size_t size,
                                 cl_mem *out) {
  return clgpu__buffer_create(context, flags, size, out);
}

void clgpu__buffer_release(clgpu_context *context, cl_mem buffer) {
  if (!buffer) return;
  pthread_mutex_lock(&registry_lock);
  alloc_block *block = registry_find(buffer);
  if (!block) {
    pthread_mutex_unlock(&registry_lock);
    clReleaseMemObject(buffer);
    return;
  }
  /* Holding the cache's lock before letting go of the registry's keeps the
   * cache from being destroyed in between. */
  clgpu_alloc_cache *cache = block->cache;
  pthread_mutex_lock(&cache->lock);
  pthread_mutex_unlock(&registry_lock);
  /* A free block was given back before (by its scope's end or an earlier
   * release) and the caller no longer holds it: releasing it again changes
   * nothing. */
  if (block->state == BLOCK_IN_USE) return_released(cache, block, context, NULL);
  pthread_mutex_unlock(&cache->lock);
}

void clgpu__buffer_release_after(cl_mem buffer, cl_event after) {
  if (!buffer) return;
  pthread_mutex_lock(&registry_lock);
  alloc_block *block = registry_find(buffer);
  if (!block) {
    pthread_mutex_unlock(&registry_lock);
    clReleaseMemObject(buffer); /* OpenCL keeps it until its commands are done */
    return;
  }
  clgpu_alloc_cache *cache = block->cache;
  pthread_mutex_lock(&cache->lock);
  pthread_mutex_unlock(&registry_lock);
  if (block->state == BLOCK_IN_USE) return_released(cache, block, NULL, after);
  pthread_mutex_unlock(&cache->lock);
}

void clgpu_buffer_release(clgpu_context *context, cl_mem buffer) {
  clgpu__buffer_release(context, buffer);
}

void clgpu__buffer_pin(cl_mem buffer) {
  if (!buffer) return;
  pthread_mutex_lock(&registry_lock);
  alloc_block *block = registry_find(buffer);
  if (!block) {
    pthread_mutex_unlock(&registry_lock);
    return;
  }
  clgpu_alloc_cache *cache = block->cache;
  pthread_mutex_lock(&cache->lock);
  pthread_mutex_unlock(&registry_lock);
  if (block->state == BLOCK_IN_USE && block->frame) {
    frame_unlink(block);
    block->frame_prev = NULL;
    block->frame_next = cache->pinned;
    if (cache->pinned) cache->pinned->frame_prev = block;
    cache->pinned = block;
  }
  pthread_mutex_unlock(&cache->lock);
}
