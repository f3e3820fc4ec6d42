/* The tuning table (tuning.c): the numbers that shape plans, one row per
 * class of device. */
#ifndef CLGPU_SRC_TUNING_H
#define CLGPU_SRC_TUNING_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/context.h>
#include <clgpu/status.h>

typedef struct clgpu__tuning {
  const char *device_class; /* the class whose values these are (messages) */
  /* Reductions, scans, findall, count_if (ops/shape.c). */
  uint64_t chunk_unit;
  uint64_t chunk_minimum;
  unsigned chunked_chunks_per_unit;
  unsigned tile_items;
  unsigned tiled_minimum_tiles;
  size_t tiled_group_cap;
  unsigned tiled_chunks_per_unit;
  uint64_t tiled_chunks_cap;
  unsigned tiled_scan_totals_coalesced; /* 1: a scan whose operator commutes folds
                                           its chunks' totals with the reduce's
                                           coalesced loads; 0: tile by tile */
  unsigned tiled_step_barrier;          /* 1: TILED range walks pass a barrier
                                           after each whole tile (CPU runtimes) */
  unsigned tiled_slices;                /* slices of a TILED chunk that sub-groups
                                           walk alone (scans that add, findall);
                                           1: none */
  unsigned tiled_lane_runs;             /* 1: findall's sub-groups take runs of
                                           consecutive elements per item, not
                                           coalesced rows (CPU runtimes) */
  unsigned findall_vector_flags;        /* 1: CHUNKED findall builds each block's
                                           sixteen predicates into one vector
                                           (POCL vectorises them) */
  unsigned findall_compress;            /* 1: CHUNKED findall packs each block's
                                           hits with AVX-512's compress where
                                           the device's compiler offers it */
  unsigned aligned_vector_access;       /* 1: CHUNKED reduce, scan, findall and
                                           runs kernels load and store 16-vectors
                                           through a pointer where aligned */
  unsigned findall_split_stores;        /* 1: CHUNKED findall writes a block's
                                           two eight-lane stores one after the
                                           other, not in a two-step loop */
  /* Sorts (ops/sort.c). */
  uint64_t sort_single_chunk;
  uint64_t sort_single_chunk_values; /* ... of a sort that moves values too */
  uint64_t sort_summed_counts;       /* CHUNKED radix: the scatter adds up the
                                        digit counts itself (no scan kernel)
                                        while digits x chunks is at most this */
  uint64_t sort_chunk_minimum;
  unsigned sort_chunked_digit_max;
  unsigned sort_chunked_digit_max_values; /* ... of a sort that moves values too */
  unsigned sort_stream;                   /* 1: the CHUNKED radix scatter combines each digit's
                                             keys into whole 64-byte lines in local memory */
  uint64_t sort_lines_floor;              /* ... for sorts moving at least this many bytes of
                                             keys and values (below: the plain scatter, at
                                             sort_chunked_digit_max(_values)); 0: all */
  unsigned sort_stream_digit_max;         /* ... then takes digits at most this wide */
  uint64_t sort_stream_floor;             /* ... and writes the lines with non-temporal stores
                                             for sorts moving at least this many bytes of
                                             keys and values */
  uint64_t sort_stream_wide_floor;        /* from this many bytes of keys and values on,
                                             the lines' digits are as wide as
                                             sort_chunked_digit_max(_values) where their
                                             lines fit in local memory; 0: never */
  uint64_t sort_pack_pairs;               /* ... and moves 4-byte keys with 4-byte values as
                                             8-byte pairs between passes from this many
                                             bytes of keys and values on; 0: never */
  uint64_t scan_stream_floor;             /* CHUNKED scans writing at least this many bytes
                                             write them with non-temporal stores; 0: never */
  unsigned radix_items;
  unsigned tiled_digit_max; /* widest TILED radix digit, if local memory allows */
  size_t sort_group_cap;
  unsigned sort_single_tiles;
  unsigned merge_block;
  uint64_t segmented_radix_mean; /* AUTO segmented sorts take the radix path
                                    from this many keys per segment on */
  /* Copies (ops/copy.c). */
  uint64_t copy_kernel_floor; /* contiguous copies of at least this many
                                 bytes run the elementwise copy kernel, not
                                 clEnqueueCopyBuffer; 0: never */
  /* Elementwise kernels (ops/elementwise.c). */
  unsigned block;
  uint64_t blocking_floor;
  uint64_t blocked_rows;      /* rows of the tile dimension one work-item of the
                                 blocked walk takes (rounded up to a multiple of
                                 block); 0: all of them */
  uint64_t blocked_columns;   /* columns of the last dimension it takes, in bands
                                 of block (at least one band); 0: one band */
  unsigned group_bound_check; /* 1: the contiguous elementwise kernel tests the group
                                 before the work-item against the count */
  unsigned blocked_gather; /* 1: the blocked walk's runs are vectorised (gathers)
                              where every array's stride along them is 0, +-1
                              or a far one, of 4- or 8-byte elements */
} clgpu__tuning;

/* The tuning table's values for a device, into *out: the base row with
 * the overrides of the first device class that matches it, then those of
 * every host overlay that matches it (a CPU device's processor). */
void clgpu__tuning_for(const clgpu_device_info *info, clgpu__tuning *out);

/* Whether every device class's overrides parse (for the tests): 1, or 0
 * with the message of the first that does not. */
int clgpu__tuning_classes_parse(void);

/* Apply CLGPU_TUNING's text to *row: "name=value" pairs separated by
 * commas, each name a field of the row that takes overrides (the table in
 * tuning.c), each value a decimal within that field's range. NULL or ""
 * changes nothing. On a bad pair *row is unchanged and the status is
 * CLGPU_INVALID_ARGUMENT with a message naming `who`, the pair and what the
 * field takes. */
clgpu_status clgpu__tuning_apply(clgpu__tuning *row, const char *text, const char *who);

#endif
