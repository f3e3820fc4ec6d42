/* The program cache (program_cache.c): programs built from their parts and
 * kept per context, keyed by their source and options, and the kernels
 * lent out of them. */
#ifndef CLGPU_SRC_PROGRAM_CACHE_H
#define CLGPU_SRC_PROGRAM_CACHE_H

#include <stddef.h>

#include <clgpu/context.h>
#include <clgpu/program.h>

#include "program_record.h"

typedef struct clgpu__program_cache clgpu__program_cache;

clgpu_status clgpu__program_cache_create(clgpu__program_cache **out);
void clgpu__program_cache_destroy(clgpu__program_cache *cache);

/* One part of a program's source (program_cache.c): an embedded file by its
 * stem (`name`; read from CLGPU_KERNEL_DIR when that is set), or text the
 * library generated (`text`, with `label`, the file name a #line directive
 * gives it in the compiler's messages). */
typedef struct clgpu__source_part {
  const char *name;
  const char *text;
  const char *label;
} clgpu__source_part;

/* clgpu_program_get over the parts in order (1 to 8), after the prelude of
 * defines; the cache key covers every part. clgpu_program_get_named builds
 * the families written on cl/common.cl (elementwise, reduce, sort) as
 * {"common", name}. */
clgpu_status clgpu__program_get_parts(clgpu_context *ctx, const clgpu__source_part *parts,
                                      size_t num_parts, const clgpu_define *defines,
                                      size_t num_defines, const char *options, clgpu_program **out);

/* Where a program came from. */
typedef enum clgpu__program_from {
  CLGPU__FROM_MEMORY = 0, /* already in the context's cache */
  CLGPU__FROM_DISK,       /* loaded from the disk cache */
  CLGPU__FROM_SOURCE,     /* built from source */
  CLGPU__FROM_STALE,      /* not got: the recipe's sources are no longer what
                             gave its key (another build of the library, an
                             edited or missing CLGPU_KERNEL_DIR file) */
} clgpu__program_from;

/* The program of a recipe, as the request that gave the recipe would get
 * it; *from says where it came from. A stale recipe gets nothing (*out NULL,
 * CLGPU_SUCCESS). Errors as clgpu_program_get's. */
clgpu_status clgpu__program_get_recipe(clgpu_context *ctx, const clgpu__recipe *recipe,
                                       clgpu_program **out, clgpu__program_from *from);

/* While `list` is set (NULL ends it), this thread's requests for programs
 * (clgpu__program_get_parts, _get_named, _get) are checked and their
 * recipes added to the list, no two with the same key, instead of being
 * built: they succeed with *out NULL. What prebuilding takes from the
 * operations' own code paths. */
void clgpu__program_capture(clgpu__recipe_list *list);

/* Create a kernel object of every kernel of the program that has none
 * waiting in its pool, for the first calls to lease (what a prebuild does
 * after getting a program: some implementations finish compiling a kernel
 * only when its object is made). How many it created; none when the
 * implementation fails (the calls then create their kernels as before). */
size_t clgpu__program_create_kernels(clgpu_program *program);

/* Internal twins of public functions (the public one is a wrapper): the
 * library calls these, never its own public entry points. */
clgpu_status clgpu__kernel_acquire(clgpu_program *program, const char *kernel_name,
                                   cl_kernel *kernel);
void clgpu__kernel_release(clgpu_program *program, cl_kernel kernel);
clgpu_status clgpu__program_get_named(clgpu_context *ctx, const char *name,
                                      const clgpu_define *defines, size_t num_defines,
                                      const char *options, clgpu_program **out);
clgpu_status clgpu__program_get(clgpu_context *ctx, const char *source, const clgpu_define *defines,
                                size_t num_defines, const char *options, clgpu_program **out);

/* The context whose cache holds a program (and whose device it is built
 * for). */
clgpu_context *clgpu__program_owner(const clgpu_program *program);

/* Whether a kernel of the program's pool passed the lease-time group check
 * (lease.c), and marking that it did: each pooled kernel is checked once,
 * not at every lease. A kernel not in the pool reads as not checked. */
int clgpu__kernel_group_checked(clgpu_program *program, cl_kernel kernel);
void clgpu__kernel_mark_group_checked(clgpu_program *program, cl_kernel kernel);

#endif
