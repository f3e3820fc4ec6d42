/* What prebuilding (prebuild.c) asks of sort.c. */
#ifndef CLGPU_SRC_SORT_PREPARE_H
#define CLGPU_SRC_SORT_PREPARE_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/context.h>
#include <clgpu/sort.h>

/* Ask for the program of every plan clgpu_sort would make for keys of
 * `key_type` (custom keys: spec's) with `value_bytes` per key and 2 to
 * max_n keys (0: 2^32), after the checks clgpu_sort makes of the spec and
 * options; meant to run under clgpu__program_capture, which takes the
 * requests as recipes. Errors as clgpu_sort's, and CLGPU_INVALID_ARGUMENT for
 * a value_bytes that is not 0, 1, 2, 4, 8 or 16. */
clgpu_status clgpu__sort_prepare(clgpu_context *context, const clgpu_sort_spec *spec,
                                 const clgpu_sort_options *options, clgpu_type key_type,
                                 size_t value_bytes, uint64_t max_n, const char *who);

/* Ask for every program a clgpu_segmented_sort of keys of `key_type`
 * (custom keys: spec's) with `value_bytes` per key, 2 to max_n keys (0:
 * 2^32) and any number of segments could use: the merge path's and, for
 * built-in keys in their natural order, the radix path's (its kernels
 * around the radix sorts, and the radix sorts' own), as the algorithm of
 * `options` allows. Errors as the segmented sort's checks of the spec and
 * options, and CLGPU_INVALID_ARGUMENT for a value_bytes that is not 0, 1,
 * 2, 4, 8 or 16. */
clgpu_status clgpu__segmented_sort_prepare(clgpu_context *context, const clgpu_sort_spec *spec,
                                           const clgpu_sort_options *options, clgpu_type key_type,
                                           size_t value_bytes, uint64_t max_n, const char *who);

#endif
