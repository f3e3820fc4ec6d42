/* Prebuilding (include/clgpu/prebuild.h): the list of recipes worked out on
 * the caller's thread (the record's, then the items' through the
 * operations' own program requests, captured), then got into the
 * context's program cache by background threads. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clgpu/prebuild.h>

#include "chain.h"
#include "context_internal.h"
#include "op_prepare.h"
#include "program_cache.h"
#include "program_record.h"
#include "reduce_program.h"
#include "shape.h"
#include "sort_prepare.h"
#include "sort_search.h"
#include "status_internal.h"

#define MOST_THREADS 64
#define DEFAULT_THREADS 4

struct clgpu_prebuild {
  clgpu_context *context; /* a reference of the prebuild's own */
  clgpu__recipe_list list;
  pthread_t threads[MOST_THREADS];
  size_t thread_count;
  pthread_mutex_t lock;
  pthread_cond_t finished;
  /* Guarded by lock: */
  size_t next; /* the next recipe a thread takes */
  int stop;
  clgpu_prebuild_stats stats;
  clgpu_status failure;
  char *failure_message;
  double start_ms;
};

static const char *const who = "clgpu_prebuild_start";

/* ---- the items ---- */

/* The specs of the reduce family's items, and their programs asked for. */
static clgpu_status prepare_spec(clgpu_context *context, clgpu__op_spec *s,
                                 const clgpu_call_options *options, const char *where) {
  clgpu__shape shape;
  clgpu_program *program = NULL;
  clgpu_status status = clgpu__check_spec_support(context, s, where);
  if (status == CLGPU_SUCCESS) status = clgpu__shape_resolve(context, options, where, &shape);
  if (status == CLGPU_SUCCESS) status = clgpu__spec_program(context, s, &shape, &program);
  clgpu__spec_free(s);
  return status;
}

static clgpu_status prepare_item(clgpu_context *context, const clgpu_prebuild_item *item,
                                 const char *where) {
  clgpu__op_spec s;
  const clgpu_reduce_op sum = {CLGPU_REDUCE_SUM, NULL, (clgpu_type)0, NULL, NULL, NULL};
  const clgpu_scan_op inclusive = {CLGPU_SCAN_SUM, 0, NULL, NULL};
  switch (item->kind) {
    case CLGPU_PREBUILD_REDUCE:
      CLGPU__FORWARD_IF_ERROR(
          clgpu__reduce_spec(item->reduce_op ? item->reduce_op : &sum, item->type, where, &s));
      return prepare_spec(context, &s, item->call_options, where);
    case CLGPU_PREBUILD_COUNT_IF:
      CLGPU__FORWARD_IF_ERROR(clgpu__predicate_spec(item->type, item->predicate, where, &s));
      return prepare_spec(context, &s, item->call_options, where);
    case CLGPU_PREBUILD_SCAN:
      CLGPU__FORWARD_IF_ERROR(
          clgpu__scan_spec(item->scan_op ? item->scan_op : &inclusive, item->type, where, &s));
      return prepare_spec(context, &s, item->call_options, where);
    case CLGPU_PREBUILD_FINDALL:
      return clgpu__findall_prepare(context, item->predicate, item->type, item->call_options,
                                    where);
    case CLGPU_PREBUILD_SORT:
      return clgpu__sort_prepare(context, item->sort_spec, item->sort_options, item->type,
                                 item->value_bytes, item->max_n, where);
    case CLGPU_PREBUILD_SEARCH: {
      clgpu__search_order order;
      clgpu_shape shape = item->call_options ? item->call_options->shape : CLGPU_SHAPE_AUTO;
      CLGPU__FORWARD_IF_ERROR(
          clgpu__search_resolve(context, item->sort_spec, shape, item->type, where, &order));
      clgpu_program *program = NULL;
      return clgpu__search_program(context, &order, where, &program);
    }
    case CLGPU_PREBUILD_SEGMENTED_SORT:
      return clgpu__segmented_sort_prepare(context, item->sort_spec, item->sort_options, item->type,
                                           item->value_bytes, item->max_n, where);
    case CLGPU_PREBUILD_PARTITION:
      return clgpu__partition_prepare(context, item->predicate, item->type, item->call_options,
                                      where);
    case CLGPU_PREBUILD_HISTOGRAM:
      return clgpu__histogram_prepare(context, item->type, item->lower, item->upper, item->bins,
                                      item->count_type ? item->count_type : CLGPU_TYPE_UINT32,
                                      item->max_n, item->call_options, where);
    case CLGPU_PREBUILD_REDUCE_BY_KEY:
      return clgpu__runs_prepare(context, CLGPU__RUNS_REDUCE_BY_KEY, item->reduce_op,
                                 item->key_equal, item->type, item->value_type, item->call_options,
                                 where);
    case CLGPU_PREBUILD_SCAN_BY_KEY:
      return clgpu__runs_prepare(context, CLGPU__RUNS_SCAN_BY_KEY, item->scan_op, item->key_equal,
                                 item->type, item->value_type, item->call_options, where);
    case CLGPU_PREBUILD_UNIQUE:
      return clgpu__runs_prepare(context, CLGPU__RUNS_UNIQUE, NULL, item->key_equal, item->type,
                                 item->value_type, item->call_options, where);
    case CLGPU_PREBUILD_RUN_LENGTH_ENCODE:
      return clgpu__runs_prepare(context, CLGPU__RUNS_LENGTH_ENCODE, NULL, item->key_equal,
                                 item->type, item->count_type, item->call_options, where);
  }
  return clgpu__fail(CLGPU_INVALID_ARGUMENT,
                     "%s: unknown kind %d (CLGPU_PREBUILD_REDUCE, _COUNT_IF, _SCAN, _FINDALL, "
                     "_SORT, _SEARCH, _SEGMENTED_SORT, _PARTITION, _HISTOGRAM, _REDUCE_BY_KEY, "
                     "_SCAN_BY_KEY, _UNIQUE or _RUN_LENGTH_ENCODE)",
                     where, (int)item->kind);
}

/* The items' recipes added to the list, each under the name of its item. */
static clgpu_status prepare_items(clgpu_context *context, const clgpu_prebuild_options *options,
                                  clgpu__recipe_list *list) {
  clgpu_status status = CLGPU_SUCCESS;
  clgpu__program_capture(list);
  for (size_t i = 0; i < options->num_items && status == CLGPU_SUCCESS; i++) {
    char where[64];
    snprintf(where, sizeof where, "%s: item %zu", who, i);
    status = prepare_item(context, &options->items[i], where);
  }
  clgpu__program_capture(NULL);
  return status;
}

/* ---- the threads ---- */

static void *work(void *argument) {
  clgpu_prebuild *prebuild = argument;
  for (;;) {
    pthread_mutex_lock(&prebuild->lock);
    if (prebuild->stop || prebuild->next >= prebuild->list.count) {
      pthread_mutex_unlock(&prebuild->lock);
      return NULL;
    }
    const clgpu__recipe *recipe = &prebuild->list.items[prebuild->next++];
    pthread_mutex_unlock(&prebuild->lock);

    clgpu_program *program = NULL;
    clgpu__program_from from = CLGPU__FROM_STALE;
    clgpu_status status = clgpu__program_get_recipe(prebuild->context, recipe, &program, &from);
    /* Its kernel objects too, so that the first call leases them ready; a
     * program already in memory was got by a call, which made its own. */
    if (status == CLGPU_SUCCESS && program && from != CLGPU__FROM_MEMORY)
      clgpu__program_create_kernels(program);

    pthread_mutex_lock(&prebuild->lock);
    clgpu_prebuild_stats *stats = &prebuild->stats;
    if (status != CLGPU_SUCCESS) {
      stats->failed++;
      if (prebuild->failure == CLGPU_SUCCESS) {
        prebuild->failure = status;
        const char *message = clgpu__last_error();
        prebuild->failure_message = malloc(strlen(message) + 1);
        if (prebuild->failure_message) strcpy(prebuild->failure_message, message);
      }
    } else if (from == CLGPU__FROM_MEMORY) {
      stats->from_memory++;
    } else if (from == CLGPU__FROM_DISK) {
      stats->from_disk++;
    } else if (from == CLGPU__FROM_SOURCE) {
      stats->built++;
    } else {
      stats->stale++;
    }
    stats->done++;
    stats->ms = clgpu__now_ms() - prebuild->start_ms;
    if (stats->done == stats->programs) pthread_cond_broadcast(&prebuild->finished);
    pthread_mutex_unlock(&prebuild->lock);
  }
}

/* ---- entry points ---- */

static void free_prebuild(clgpu_prebuild *prebuild) {
  clgpu__recipe_list_free(&prebuild->list);
  free(prebuild->failure_message);
  pthread_cond_destroy(&prebuild->finished);
  pthread_mutex_destroy(&prebuild->lock);
  clgpu__context_release(prebuild->context);
  free(prebuild);
}

static unsigned default_threads(void) {
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online < 1) return 1;
  return online < DEFAULT_THREADS ? (unsigned)online : DEFAULT_THREADS;
}

/* The checks of the arguments that need no work. */
static clgpu_status check_start(const clgpu_context *context, const clgpu_prebuild_options *options,
                                clgpu_prebuild **out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "%s: out is NULL", who);
  *out = NULL;
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  if (!options) return CLGPU_SUCCESS;
  CLGPU__RETURN_ERROR_IF(options->num_items > 0 && !options->items, CLGPU_INVALID_ARGUMENT,
                         "%s: items is NULL but num_items is %zu", who, options->num_items);
  CLGPU__RETURN_ERROR_IF(options->threads > MOST_THREADS, CLGPU_INVALID_ARGUMENT,
                         "%s: %u threads asked for (at most %d; 0 for the default)", who,
                         options->threads, MOST_THREADS);
  return clgpu__check_reserved(options->reserved, CLGPU_OPTIONS_RESERVED, who, "options");
}

clgpu_status clgpu_prebuild_start(clgpu_context *context, const clgpu_prebuild_options *options,
                                  clgpu_prebuild **out) {
  CLGPU__FORWARD_IF_ERROR(check_start(context, options, out));
  clgpu_prebuild *prebuild = calloc(1, sizeof *prebuild);
  CLGPU__RETURN_ERROR_IF(!prebuild, CLGPU_CL_OUT_OF_HOST_MEMORY, "%s: out of host memory", who);
  if (pthread_mutex_init(&prebuild->lock, NULL) != 0) {
    free(prebuild);
    return clgpu__fail(CLGPU_INTERNAL_ERROR, "%s: pthread_mutex_init failed", who);
  }
  if (pthread_cond_init(&prebuild->finished, NULL) != 0) {
    pthread_mutex_destroy(&prebuild->lock);
    free(prebuild);
    return clgpu__fail(CLGPU_INTERNAL_ERROR, "%s: pthread_cond_init failed", who);
  }
  clgpu__context_retain(context);
  prebuild->context = context;
  prebuild->start_ms = clgpu__now_ms();

  clgpu_status status = CLGPU_SUCCESS;
  if ((!options || !options->skip_record) && context->record &&
      clgpu__record_read(context->record, &prebuild->list) < 0) {
    status = clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "%s: out of host memory", who);
  }
  prebuild->stats.recorded = prebuild->list.count;
  if (status == CLGPU_SUCCESS && options) status = prepare_items(context, options, &prebuild->list);
  prebuild->stats.programs = prebuild->list.count;

  unsigned threads = options && options->threads ? options->threads : default_threads();
  size_t wanted = prebuild->list.count < threads ? prebuild->list.count : threads;
  for (size_t t = 0; t < wanted && status == CLGPU_SUCCESS; t++) {
    if (pthread_create(&prebuild->threads[t], NULL, work, prebuild) != 0) {
      /* Fewer threads do the same work; none cannot. */
      if (t == 0) status = clgpu__fail(CLGPU_INTERNAL_ERROR, "%s: no thread could be started", who);
      break;
    }
    prebuild->thread_count = t + 1;
  }
  if (status != CLGPU_SUCCESS) {
    /* Nothing started stays: the threads that did run stop at once. */
    pthread_mutex_lock(&prebuild->lock);
    prebuild->stop = 1;
    pthread_mutex_unlock(&prebuild->lock);
    for (size_t t = 0; t < prebuild->thread_count; t++) pthread_join(prebuild->threads[t], NULL);
    free_prebuild(prebuild);
    return status;
  }
  *out = prebuild;
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_prebuild_stats_get(clgpu_prebuild *prebuild, clgpu_prebuild_stats *stats) {
  CLGPU__RETURN_ERROR_IF(!prebuild || !stats, CLGPU_INVALID_ARGUMENT,
                         "clgpu_prebuild_stats_get: NULL argument");
  pthread_mutex_lock(&prebuild->lock);
  *stats = prebuild->stats;
  if (stats->done < stats->programs) stats->ms = clgpu__now_ms() - prebuild->start_ms;
  pthread_mutex_unlock(&prebuild->lock);
  return CLGPU_SUCCESS;
}

clgpu_status clgpu_prebuild_wait(clgpu_prebuild *prebuild, clgpu_prebuild_stats *stats) {
  CLGPU__RETURN_ERROR_IF(!prebuild, CLGPU_INVALID_ARGUMENT,
                         "clgpu_prebuild_wait: prebuild is NULL");
  pthread_mutex_lock(&prebuild->lock);
  while (prebuild->stats.done < prebuild->stats.programs) {
    pthread_cond_wait(&prebuild->finished, &prebuild->lock);
  }
  if (stats) *stats = prebuild->stats;
  clgpu_status failure = prebuild->failure;
  clgpu_status status = CLGPU_SUCCESS;
  if (failure != CLGPU_SUCCESS) {
    status = clgpu__fail(
        failure, "clgpu_prebuild_wait: %zu of %zu programs failed; the first: %s",
        prebuild->stats.failed, prebuild->stats.programs,
        prebuild->failure_message ? prebuild->failure_message : "(no message: out of host memory)");
  }
  pthread_mutex_unlock(&prebuild->lock);
  return status;
}

void clgpu_prebuild_destroy(clgpu_prebuild *prebuild) {
  if (!prebuild) return;
  pthread_mutex_lock(&prebuild->lock);
  prebuild->stop = 1;
  prebuild->stats.skipped = prebuild->list.count - prebuild->next;
  pthread_mutex_unlock(&prebuild->lock);
  for (size_t t = 0; t < prebuild->thread_count; t++) pthread_join(prebuild->threads[t], NULL);
  free_prebuild(prebuild);
}
