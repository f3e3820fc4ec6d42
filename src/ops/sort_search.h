/* What the searches (search.c) ask of sort.c: the order of a sort spec,
 * its key views and the program of cl/sort.c's search kernels. A search
 * takes the order of a merge sort: the natural order of a built-in type
 * or a comparator, over built-in or custom keys, ascending or descending. */
#ifndef CLGPU_SRC_SORT_SEARCH_H
#define CLGPU_SRC_SORT_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/program.h>
#include <clgpu/sort.h>

typedef struct clgpu__search_order {
  const clgpu_sort_spec *spec; /* the caller's, or the zeroed default */
  clgpu_shape shape;           /* resolved: CHUNKED or TILED */
  size_t group;                /* work-items per group of the shape */
  int builtin;                 /* keys of a built-in type, not spec->key_type */
  clgpu_type key_type;         /* built-in keys */
  size_t key_bytes;
} clgpu__search_order;

/* The order of `spec` (NULL: ascending, natural) over keys of `key_type`
 * (ignored with spec->key_type) in `shape` (AUTO by device type), after
 * clgpu_sort's checks of a merge sort's spec. */
clgpu_status clgpu__search_resolve(clgpu_context *context, const clgpu_sort_spec *spec,
                                   clgpu_shape shape, clgpu_type key_type, const char *who,
                                   clgpu__search_order *out);

/* The number of keys of the order in the 1-D view `keys` (called `name` in
 * messages) and whether it must be staged to be read contiguously, with
 * clgpu_sort's checks of a keys view (custom keys: contiguous, aligned,
 * whole keys) and of its buffer when it has one (read only). */
clgpu_status clgpu__search_keys(clgpu_context *context, const clgpu__search_order *order,
                                const clgpu_array *keys, const char *who, const char *name,
                                uint64_t *n, int *stage);

/* The program of cl/sort.cl's search kernels for the order. */
clgpu_status clgpu__search_program(clgpu_context *context, const clgpu__search_order *order,
                                   const char *who, clgpu_program **out);

#endif
