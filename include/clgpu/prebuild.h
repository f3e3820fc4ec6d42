/** @file
 * Prebuilding: getting the programs of later calls ready on background
 * threads while the caller goes on, so that first calls cost what later
 * calls cost.
 *
 * Key concepts:
 * - Every operation runs kernels of programs built at run time, once per
 *   context: from source on a cold disk cache (a second or more per program
 *   on CPU implementations), loaded from the disk cache on a warm one (a few
 *   milliseconds per program). The first call that needs a program pays
 *   for it; clgpu_prebuild_start pays ahead, on threads of its own.
 * - What to prepare comes from two places, in this order:
 *   1. the context's record (unless options->skip_record): with the disk
 *      cache on, every context notes each program it gets in a file of the
 *      cache folder, one per device and per record name (the environment
 *      variable CLGPU_PROGRAM_RECORD, by default the executable's file name
 *      as /proc/self/exe gives it, else "default"; "off" keeps no record).
 *      At most 512 programs are kept per record, the oldest dropped first.
 *      So a program that prebuilds at start gets, in its next run,
 *      every program its last runs used, the library's and its own
 *      (clgpu_program_get), whatever the sizes, layouts and expressions of
 *      its calls were;
 *   2. the items the caller lists: operations over element types, as the
 *      call would be made (the same operator, predicate, sort spec and
 *      options), for a first run, when no record exists yet.
 * - A call that needs a program being prepared waits for that program only,
 *   not for the others, and a program no thread has started yet is built by
 *   the call that needs it, as without a prebuild: results never depend on
 *   whether or when a prebuild ran.
 * - The list is worked out when clgpu_prebuild_start is called, on the
 *   caller's thread: what is wrong with an item (an unknown type, an
 *   expression that breaks the rules) is reported there and nothing starts.
 *   Only getting the programs happens on the background threads, and their
 *   failures (a build error) are reported by clgpu_prebuild_wait.
 *
 * The example prebuilds what the last run used, plus a reduction for the
 * first run, then does other work; a first reduction would wait at most for
 * its own program.
 *
 * Example:
 *
 *   #include <stdio.h>
 *   #include <clgpu/clgpu.h>
 *
 *   int main(void) {
 *     clgpu_context *context = NULL;
 *     clgpu_prebuild *prebuild = NULL;
 *     clgpu_prebuild_stats stats;
 *     clgpu_prebuild_item items[1] = {{.kind = CLGPU_PREBUILD_REDUCE, .type = CLGPU_TYPE_FLOAT}};
 *     clgpu_prebuild_options options = {.items = items, .num_items = 1};
 *     clgpu_status status = clgpu_context_create(NULL, &context);
 *     if (status == CLGPU_SUCCESS) status = clgpu_prebuild_start(context, &options, &prebuild);
 *     // ... read input files, make buffers: the programs load meanwhile ...
 *     if (status == CLGPU_SUCCESS) status = clgpu_prebuild_wait(prebuild, &stats);
 *     if (status == CLGPU_SUCCESS)
 *       printf("%zu programs: %zu from memory, %zu from disk, %zu built\n", stats.programs,
 *              stats.from_memory, stats.from_disk, stats.built);
 *     else
 *       fprintf(stderr, "%s: %s\n", clgpu_status_name(status), clgpu_last_error());
 *     clgpu_prebuild_destroy(prebuild);
 *     clgpu_context_destroy(context);
 *     return status == CLGPU_SUCCESS ? 0 : 1;
 *   }
 *
 * End of example. */
#ifndef CLGPU_PREBUILD_H
#define CLGPU_PREBUILD_H

#include <stddef.h>
#include <stdint.h>

#include <clgpu/api.h>
#include <clgpu/array.h>
#include <clgpu/context.h>
#include <clgpu/reduce.h>
#include <clgpu/scan.h>
#include <clgpu/sort.h>
#include <clgpu/status.h>
#include <clgpu/workspace.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A prebuild under way (or done); see clgpu_prebuild_start. */
typedef struct clgpu_prebuild clgpu_prebuild;

/** The operations an item may name. */
typedef enum clgpu_prebuild_kind {
  /** clgpu_reduce (whole array or along an axis) with `reduce_op` (NULL: a
   * SUM) over `type`, in the shape of `call_options`. */
  CLGPU_PREBUILD_REDUCE = 1,
  /** clgpu_count_if with `predicate` (NULL: "x != 0") over `type`. */
  CLGPU_PREBUILD_COUNT_IF,
  /** clgpu_scan with `scan_op` (NULL: an inclusive SUM) over `type`. */
  CLGPU_PREBUILD_SCAN,
  /** clgpu_findall (and clgpu_findall_read) with `predicate` (NULL: "x != 0")
   * over `type`. */
  CLGPU_PREBUILD_FINDALL,
  /** clgpu_sort of keys of `type` (ignored for custom keys: sort_spec's
   * key_type) with `sort_spec` (NULL: ascending, natural order) and
   * `sort_options` (NULL: AUTO algorithm and shape), carrying `value_bytes`
   * per key (0: keys only; 1, 2, 4, 8 or 16), for every count from 2 to
   * `max_n` (0: to 2^32). clgpu_sort_permutation's sort is the one with
   * value_bytes 4 (a uint32 permutation) or 8 (uint64), and value_bytes 4
   * also prepares the permutation's own program where its sort makes the
   * indices itself (docs/sort.md, "Keys and values as pairs"); elsewhere it
   * fills the permutation with an elementwise kernel items do not cover. */
  CLGPU_PREBUILD_SORT,
  /** clgpu_lower_bound and clgpu_upper_bound (search.h) over keys of `type`
   * (ignored for custom keys: sort_spec's key_type) in the order of
   * `sort_spec` (NULL: ascending, natural order), in the shape of
   * `call_options`. */
  CLGPU_PREBUILD_SEARCH,
  /** clgpu_segmented_sort (sort.h) of keys of `type` (custom keys: as SORT)
   * with `sort_spec` and `sort_options` (as SORT; the algorithm AUTO, MERGE
   * or RADIX), carrying `value_bytes` per key, for every count up to
   * `max_n` (0: to 2^32) and any segments. */
  CLGPU_PREBUILD_SEGMENTED_SORT,
  /** clgpu_partition (partition.h) with `predicate` (NULL: "x != 0") over
   * `type`, in the shape of `call_options`. */
  CLGPU_PREBUILD_PARTITION,
  /** clgpu_histogram_even (histogram.h) over `type` with the bounds
   * `lower` and `upper` (host values of `type`, as the call takes them),
   * or clgpu_histogram_edges with both NULL, into `bins` counts (at least
   * 1) of `count_type` (0: CLGPU_TYPE_UINT32; or CLGPU_TYPE_UINT64), for
   * inputs of up to `max_n` elements (0: to 2^32), in the shape of
   * `call_options`. Integer bounds choose the program (how a value's bin
   * is found), so an item serves calls with the same bounds and bins. */
  CLGPU_PREBUILD_HISTOGRAM,
  /** clgpu_reduce_by_key (runs.h) of values of `value_type` (0: `type`) by
   * keys of `type` compared by `key_equal` (NULL: bitwise), with
   * `reduce_op` (NULL: a SUM), in the shape of `call_options`. */
  CLGPU_PREBUILD_REDUCE_BY_KEY,
  /** clgpu_scan_by_key: as REDUCE_BY_KEY, with `scan_op` (NULL: an
   * inclusive SUM). */
  CLGPU_PREBUILD_SCAN_BY_KEY,
  /** clgpu_unique over keys of `type` compared by `key_equal` (NULL:
   * bitwise); with a `value_type`, clgpu_unique_by_key carrying values of
   * that type. */
  CLGPU_PREBUILD_UNIQUE,
  /** clgpu_run_length_encode over keys of `type` compared by `key_equal`
   * (NULL: bitwise), with lengths and offsets of `count_type` (0:
   * CLGPU_TYPE_UINT64; or CLGPU_TYPE_UINT32; a call whose lengths and
   * offsets differ in type uses a program the item does not cover). */
  CLGPU_PREBUILD_RUN_LENGTH_ENCODE,
} clgpu_prebuild_kind;

/** One operation to prepare. Zero-initialise, then set `kind`, `type` and
 * what the kind reads (each kind's comment above); the rest is ignored. The
 * pointers are read during clgpu_prebuild_start only. Views that are not
 * contiguous also use the copy kernels of copy.h, which items do not cover
 * (the record does). */
typedef struct clgpu_prebuild_item {
  clgpu_prebuild_kind kind;
  clgpu_type type;
  const clgpu_call_options *call_options; /**< all but SORT and SEGMENTED_SORT: the
                                             shape (NULL: AUTO); the workspace is
                                             ignored */
  const clgpu_reduce_op *reduce_op;       /**< REDUCE, REDUCE_BY_KEY */
  const clgpu_scan_op *scan_op;           /**< SCAN, SCAN_BY_KEY */
  const char *predicate;                  /**< COUNT_IF, FINDALL, PARTITION */
  const clgpu_sort_spec *sort_spec;       /**< SORT, SEARCH, SEGMENTED_SORT */
  const clgpu_sort_options *sort_options; /**< SORT, SEGMENTED_SORT: algorithm and
                                             shape; the workspace is ignored */
  size_t value_bytes;                     /**< SORT, SEGMENTED_SORT */
  uint64_t max_n;                         /**< SORT, SEGMENTED_SORT, HISTOGRAM */
  const char *key_equal; /**< REDUCE_BY_KEY, SCAN_BY_KEY, UNIQUE, RUN_LENGTH_ENCODE */
  clgpu_type value_type; /**< REDUCE_BY_KEY, SCAN_BY_KEY, UNIQUE */
  clgpu_type count_type; /**< HISTOGRAM, RUN_LENGTH_ENCODE */
  uint64_t bins;         /**< HISTOGRAM */
  const void *lower;     /**< HISTOGRAM (even bins) */
  const void *upper;     /**< HISTOGRAM (even bins) */
} clgpu_prebuild_item;

/** What to prepare and how. Zero-initialise ({0}) for the defaults: the
 * record only, on the default number of threads. Fields added later keep
 * zero as their default. */
typedef struct clgpu_prebuild_options {
  /** Do not replay the context's record (only the items). */
  int skip_record;
  /** The items, prepared after the record's programs. */
  const clgpu_prebuild_item *items;
  size_t num_items;
  /** Background threads: 0 for the default (the online processors, at most
   * 4, at least 1), at most 64. More than the programs to get are not
   * started. */
  unsigned threads;
  uint64_t reserved[CLGPU_OPTIONS_RESERVED]; /**< must be zero */
} clgpu_prebuild_options;

/** Counts of a prebuild, over the programs its list named. */
typedef struct clgpu_prebuild_stats {
  size_t programs;    /**< in the list (items and record, no two alike) */
  size_t done;        /**< got (or failed, or found stale) so far */
  size_t from_memory; /**< already in the context's cache (a call got it first) */
  size_t from_disk;   /**< loaded from the disk cache */
  size_t built;       /**< built from source */
  size_t stale;       /**< recorded by another build of the library, or from
                         CLGPU_KERNEL_DIR files changed since: skipped */
  size_t failed;      /**< could not be got; the first failure is what
                         clgpu_prebuild_wait returns */
  size_t skipped;     /**< not started because clgpu_prebuild_destroy came first */
  size_t recorded;    /**< of `programs`, taken from the record */
  double ms;          /**< wall time from start to the last program got, or so
                         far */
} clgpu_prebuild_stats;

/** Work out the programs that `options` names (NULL: the record only) and
 * start getting them into the context's program cache on background
 * threads; returns at once with the handle in *out. Programs come from the
 * disk cache where it holds them, else are built (and written there).
 *
 * The prebuild holds a reference to the context (clgpu_context_destroy
 * before clgpu_prebuild_destroy is allowed; the context lives until both
 * are done). It uses the context's queue for nothing, and enqueues nothing.
 * An empty list (no record yet, no items) is not an error: the prebuild is
 * done at once.
 *
 * Errors (nothing started, *out NULL): CLGPU_INVALID_ARGUMENT (NULL context
 * or out, an unknown kind, a type the kind does not take, threads above 64,
 * items NULL with num_items not 0; the message names the item), the errors
 * the item's operation gives for its operator, predicate, spec and options
 * (CLGPU_UNSUPPORTED_FEATURE for a double type without fp64, say),
 * CLGPU_CL_OUT_OF_HOST_MEMORY, CLGPU_INTERNAL_ERROR (a thread could not be
 * started). */
CLGPU_API clgpu_status clgpu_prebuild_start(clgpu_context *context,
                                            const clgpu_prebuild_options *options,
                                            clgpu_prebuild **out);

/** Wait until every program of the prebuild is got (or failed), and write
 * its counts to *stats (if not NULL). Returns CLGPU_SUCCESS when none
 * failed, else the status of the first failure with its message (the
 * build log of a failed build, say): the library's own calls that need
 * that program will fail in the same way. May be called more than once,
 * and from any thread. Errors: CLGPU_INVALID_ARGUMENT (NULL prebuild). */
CLGPU_API clgpu_status clgpu_prebuild_wait(clgpu_prebuild *prebuild, clgpu_prebuild_stats *stats);

/** The counts so far, without waiting; stats->done == stats->programs once
 * the prebuild is done. Errors: CLGPU_INVALID_ARGUMENT (a NULL argument). */
CLGPU_API clgpu_status clgpu_prebuild_stats_get(clgpu_prebuild *prebuild,
                                                clgpu_prebuild_stats *stats);

/** Stop and free a prebuild: programs not started are skipped, the ones
 * being got are finished (a build cannot be interrupted), then the threads
 * are joined and the context's reference dropped. Programs already got stay
 * in the context's cache. NULL does nothing. */
CLGPU_API void clgpu_prebuild_destroy(clgpu_prebuild *prebuild);

#ifdef __cplusplus
}
#endif

#endif
