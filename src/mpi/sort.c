/* The distributed sort (mpi.h): each rank sorts its part with clgpu_sort,
 * the ranks find exact splitters by bisecting the keys' ordered images
 * (clgpu_lower_bound on each rank, one MPI_Allreduce per bit), exchange the
 * data once with MPI_Alltoallv, and each rank sorts what it received again
 * (docs/mpi.md). Every rank ends with as many elements as it started with. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/clgpu.h>
#include <clgpu/mpi.h>

#include "agree.h"
#include "status_internal.h"
#include "times.h"
#include "values.h"

/* ---- the keys' ordered images ---- */

/* How a key type orders: its width in bits, and for floats the image of
 * -inf (the lowest image a key can have: the images below it would be
 * negative NaNs, which sort as positive ones). */
typedef struct key_order {
  clgpu_type type;
  unsigned bits;
  int descending;
  int is_float;
  int is_signed;
  uint64_t mask, top;
  uint64_t lowest; /* the lowest image a key has */
} key_order;

static int order_of(clgpu_type type, int descending, key_order *o) {
  memset(o, 0, sizeof *o);
  o->type = type;
  o->descending = descending;
  switch (type) {
    case CLGPU_TYPE_INT8:
      o->is_signed = 1; /* fall through */
    case CLGPU_TYPE_UINT8:
      o->bits = 8;
      break;
    case CLGPU_TYPE_INT16:
      o->is_signed = 1; /* fall through */
    case CLGPU_TYPE_UINT16:
      o->bits = 16;
      break;
    case CLGPU_TYPE_INT32:
      o->is_signed = 1; /* fall through */
    case CLGPU_TYPE_UINT32:
      o->bits = 32;
      break;
    case CLGPU_TYPE_INT64:
      o->is_signed = 1; /* fall through */
    case CLGPU_TYPE_UINT64:
      o->bits = 64;
      break;
    case CLGPU_TYPE_HALF:
      o->bits = 16, o->is_float = 1;
      break;
    case CLGPU_TYPE_FLOAT:
      o->bits = 32, o->is_float = 1;
      break;
    case CLGPU_TYPE_DOUBLE:
      o->bits = 64, o->is_float = 1;
      break;
    default:
      return 0;
  }
  o->mask = o->bits == 64 ? UINT64_MAX : (((uint64_t)1 << o->bits) - 1);
  o->top = (uint64_t)1 << (o->bits - 1);
  if (o->is_float) {
    /* -inf: sign, all exponent bits, no mantissa. */
    uint64_t minus_inf = o->bits == 16   ? 0xfc00u
                         : o->bits == 32 ? 0xff800000u
                                         : UINT64_C(0xfff0000000000000);
    o->lowest = ~minus_inf & o->mask;
  }
  return 1;
}

/* What a position in the sort order (a rank image: the ordered image,
 * complemented for descending sorts) means on one rank: the key to search
 * for, or a count known without searching (no key has such an image). */
enum { SEARCH, NONE_BEFORE, ALL_BEFORE };

static int key_at(const key_order *o, uint64_t rho, clgpu__value *key) {
  uint64_t image = o->descending ? ~rho & o->mask : rho;
  memset(key, 0, sizeof *key);
  if (o->is_float && image < o->lowest) {
    /* Below -inf: no key sorts there. Ascending, every key comes after;
     * descending, every key comes before. */
    return o->descending ? ALL_BEFORE : NONE_BEFORE;
  }
  uint64_t bits;
  if (o->is_float) {
    /* Positive values, +inf and NaNs (by their bits without the sign) have
     * the top bit; negative values are complemented. */
    bits = (image & o->top) ? image & ~o->top : ~image & o->mask;
  } else {
    bits = o->is_signed ? image ^ o->top : image;
  }
  memcpy(key->bytes, &bits, o->bits / 8); /* little-endian, as the devices */
  return SEARCH;
}

/* ---- checks ---- */

static clgpu_status check_sort(const char *who, clgpu_context *context, const clgpu_sort_spec *spec,
                               const clgpu_array *keys, const clgpu_array *values,
                               const clgpu_sort_options *options) {
  CLGPU__RETURN_ERROR_IF(!context, CLGPU_INVALID_ARGUMENT, "%s: context is NULL", who);
  CLGPU__RETURN_ERROR_IF(!keys, CLGPU_INVALID_ARGUMENT, "%s: keys is NULL", who);
  CLGPU__RETURN_ERROR_IF(spec && (spec->compare || spec->key_type || spec->declarations),
                         CLGPU_INVALID_ARGUMENT,
                         "%s: comparators and custom key types are merge sort's, which is not "
                         "distributed; the distributed sort takes built-in keys in their natural "
                         "order",
                         who);
  CLGPU__RETURN_ERROR_IF(spec && (spec->begin_bit || spec->end_bit), CLGPU_INVALID_ARGUMENT,
                         "%s: the distributed sort sorts by every bit of the key (bits [%u, %u) "
                         "asked)",
                         who, spec->begin_bit, spec->end_bit);
  CLGPU__RETURN_ERROR_IF(
      options && options->algorithm == CLGPU_ALGORITHM_MERGE, CLGPU_INVALID_ARGUMENT,
      "%s: the distributed sort runs radix sorts (CLGPU_ALGORITHM_MERGE asked)", who);
  key_order o;
  CLGPU__RETURN_ERROR_IF(!order_of(keys->type, 0, &o), CLGPU_TYPE_MISMATCH,
                         "%s: keys of %s have no natural order to distribute", who,
                         clgpu_type_cl_name(keys->type));
  clgpu_workspace_size need;
  clgpu_status status = clgpu_sort_workspace_size(context, spec, keys, values, options, &need);
  if (status == CLGPU_SUCCESS && options && options->workspace) {
    status = clgpu_workspace_check(context, options->workspace, &need);
  }
  if (status != CLGPU_SUCCESS) return status;
  CLGPU__RETURN_ERROR_IF(clgpu_array_count(keys) > INT_MAX, CLGPU_SIZE_OVERFLOW,
                         "%s: a rank's part holds %zu keys; MPI counts them in an int (at most "
                         "%d)",
                         who, clgpu_array_count(keys), INT_MAX);
  return CLGPU_SUCCESS;
}

/* Bytes of values per key: the values view's bytes over the keys (sort.h),
 * its element size for an empty part; 0 without values. */
static uint64_t value_bytes(const clgpu_array *keys, const clgpu_array *values) {
  if (!values) return 0;
  size_t n = clgpu_array_count(keys);
  size_t bytes = clgpu_array_count(values) * clgpu_type_size(values->type);
  return n ? bytes / n : clgpu_type_size(values->type);
}

/* ---- the local sorts ---- */

static clgpu_status local_sort(clgpu_context *context, const clgpu_sort_spec *spec,
                               const clgpu_array *keys, const clgpu_array *values,
                               const clgpu_sort_options *options) {
  cl_event done = NULL;
  clgpu_status status = clgpu_sort(context, spec, keys, values, options, 0, NULL, &done);
  if (status != CLGPU_SUCCESS) return status;
  cl_int code = clWaitForEvents(1, &done);
  clReleaseEvent(done);
  if (code != CL_SUCCESS) return clgpu__fail_cl(code, "clWaitForEvents (the local sort)");
  return CLGPU_SUCCESS;
}

/* The local sort, waited for, its time counted as the device's. */
static clgpu_status sort_and_wait(clgpu_context *context, const clgpu_sort_spec *spec,
                                  const clgpu_array *keys, const clgpu_array *values,
                                  const clgpu_sort_options *options) {
  double start = clgpu__mpi_now_ms();
  clgpu_status status = local_sort(context, spec, keys, values, options);
  clgpu__mpi_times_current()->device_ms += clgpu__mpi_now_ms() - start;
  return status;
}

/* ---- the splitters ---- */

/* The search of one step: for each of `count` rank images, how many of this
 * rank's sorted keys sort before it (upper: before or equal). */
typedef struct searcher {
  clgpu_context *context;
  const clgpu_sort_spec *spec;
  const clgpu_array *keys;
  key_order order;
  cl_command_queue queue;
  clgpu_call_options call;
  size_t count;
  uint64_t n;
  cl_mem needles, positions;
  unsigned char *packed; /* the needles' bytes, one key after the other */
  uint64_t *found;       /* the positions read back */
  int *kinds;
} searcher;

static clgpu_status searcher_open(searcher *s, clgpu_context *context, const clgpu_sort_spec *spec,
                                  const clgpu_array *keys, const clgpu_sort_options *options,
                                  size_t count) {
  memset(s, 0, sizeof *s);
  s->context = context;
  s->spec = spec;
  s->keys = keys;
  order_of(keys->type, spec && spec->descending, &s->order);
  s->queue = options && options->queue ? options->queue : clgpu_context_queue(context);
  s->call.queue = options ? options->queue : NULL;
  s->call.shape = options ? options->shape : CLGPU_SHAPE_AUTO;
  s->count = count;
  s->n = clgpu_array_count(keys);
  size_t slots = count ? count : 1;
  s->packed = calloc(slots, clgpu_type_size(keys->type));
  s->found = calloc(slots, sizeof *s->found);
  s->kinds = calloc(slots, sizeof *s->kinds);
  if (!s->packed || !s->found || !s->kinds) {
    return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "clgpu_mpi_sort: no memory for %zu splitters",
                       count);
  }
  size_t key_size = clgpu_type_size(keys->type);
  clgpu_status status =
      clgpu_buffer_create(context, CL_MEM_READ_WRITE, (count ? count : 1) * key_size, &s->needles);
  if (status == CLGPU_SUCCESS) {
    status = clgpu_buffer_create(context, CL_MEM_READ_WRITE, (count ? count : 1) * sizeof(uint64_t),
                                 &s->positions);
  }
  return status;
}

static void searcher_close(searcher *s) {
  if (s->needles) clgpu_buffer_release(s->context, s->needles);
  if (s->positions) clgpu_buffer_release(s->context, s->positions);
  free(s->packed);
  free(s->found);
  free(s->kinds);
}

/* out[i] = this rank's count of keys before rank image rho[i] (upper: or
 * at it). */
static clgpu_status searcher_count(searcher *s, const uint64_t *rho, int upper, uint64_t *out) {
  size_t searched = 0, key_size = clgpu_type_size(s->keys->type);
  for (size_t i = 0; i < s->count; i++) {
    clgpu__value key;
    s->kinds[i] = s->n ? key_at(&s->order, rho[i], &key) : NONE_BEFORE;
    memcpy(s->packed + i * key_size, key.bytes, key_size);
    out[i] = s->kinds[i] == ALL_BEFORE ? s->n : 0;
    searched += s->kinds[i] == SEARCH;
  }
  if (!searched) return CLGPU_SUCCESS;
  /* Every needle goes to the device (the ones counted above are searched
   * too and their answers ignored): the write, the search and the read in
   * order on the device, one wait on the host. */
  clgpu_array needles = clgpu_array_of(s->needles, s->keys->type, s->count);
  clgpu_array positions = clgpu_array_of(s->positions, CLGPU_TYPE_UINT64, s->count);
  cl_event written = NULL, found = NULL;
  clgpu_status status = clgpu_copy_from_host(s->context, &needles, s->packed,
                                             s->count * key_size, 0, NULL, &written);
  if (status == CLGPU_SUCCESS) {
    status = upper ? clgpu_upper_bound(s->context, s->spec, &positions, &needles, s->keys, &s->call,
                                       1, &written, &found)
                   : clgpu_lower_bound(s->context, s->spec, &positions, &needles, s->keys, &s->call,
                                       1, &written, &found);
  }
  if (status == CLGPU_SUCCESS) {
    cl_int code = clEnqueueReadBuffer(s->queue, s->positions, CL_TRUE, 0,
                                      s->count * sizeof *s->found, s->found, 1, &found, NULL);
    if (code != CL_SUCCESS) status = clgpu__fail_cl(code, "clEnqueueReadBuffer (positions)");
  } else if (written) {
    clWaitForEvents(1, &written); /* the needles' bytes are read until then */
  }
  if (written) clReleaseEvent(written);
  if (found) clReleaseEvent(found);
  for (size_t i = 0; status == CLGPU_SUCCESS && i < s->count; i++) {
    if (s->kinds[i] == SEARCH) out[i] = s->found[i];
  }
  return status;
}

/* An MPI_Allreduce (SUM) of `count` counts and one failure flag: 1 when
 * every rank succeeded, 0 when one failed (its status then still to be
 * agreed on), -1 when MPI failed. */
static int sum_counts(MPI_Comm comm, uint64_t *counts, size_t count, int failed) {
  counts[count] = failed ? 1 : 0;
  if (MPI_Allreduce(MPI_IN_PLACE, counts, (int)count + 1, MPI_UINT64_T, MPI_SUM, comm) !=
      MPI_SUCCESS) {
    return -1;
  }
  return counts[count] == 0;
}

/* The split points: split[j] (j = 0..size) = how many of this rank's sorted
 * keys go to ranks below j, so that rank j receives exactly the part sizes'
 * prefix difference, equal keys kept in (rank, position) order. */
static clgpu_status find_splits(const char *who, MPI_Comm comm, int size, int rank,
                                const clgpu__mpi_record *all, searcher *s, uint64_t *split) {
  size_t m = (size_t)size - 1; /* splitters */
  uint64_t *target = calloc(m + 1, sizeof *target);
  uint64_t *rho = calloc(m + 1, sizeof *rho);
  uint64_t *candidate = calloc(m + 1, sizeof *candidate);
  uint64_t *global = calloc(m + 1, sizeof *global);
  uint64_t *before = calloc(m + 1, sizeof *before);
  uint64_t *local = calloc(m + 1, sizeof *local);
  uint64_t *upto = calloc(m + 1, sizeof *upto);
  clgpu_status status = CLGPU_SUCCESS;
  if (!target || !rho || !candidate || !global || !before || !local || !upto) {
    status = clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "%s: no memory for %zu splitters", who, m);
  }
  uint64_t prefix = 0;
  for (size_t j = 0; j < m && target; j++) {
    prefix += all[j].count;
    target[j] = prefix; /* elements before rank j + 1's first */
  }
  /* Bisection, one bit a step from the top: rho[j] ends as the largest
   * rank image with at most target[j] keys before it on all ranks. Every
   * step is one MPI_Allreduce on every rank; a rank that fails raises the
   * flag in it, and then every rank stops at that same step and makes no
   * other collective call here (the caller's agreement follows). */
  int agreed = 1;
  for (unsigned bit = s->order.bits; bit-- > 0 && agreed > 0;) {
    if (status == CLGPU_SUCCESS) {
      for (size_t j = 0; j < m; j++) candidate[j] = rho[j] | ((uint64_t)1 << bit);
      status = searcher_count(s, candidate, 0, global);
    }
    agreed = sum_counts(comm, global, m, status != CLGPU_SUCCESS);
    for (size_t j = 0; agreed > 0 && j < m; j++) {
      if (global[j] <= target[j]) rho[j] = candidate[j];
    }
  }
  /* This rank's keys before each splitter image, and at it; then the
   * ranks' counts before the splitters, and the equal keys of the ranks
   * before this one (MPI_Exscan). */
  if (agreed > 0) {
    if (status == CLGPU_SUCCESS) status = searcher_count(s, rho, 0, local);
    if (status == CLGPU_SUCCESS) status = searcher_count(s, rho, 1, upto);
    if (status == CLGPU_SUCCESS) memcpy(global, local, m * sizeof *global);
    agreed = sum_counts(comm, global, m, status != CLGPU_SUCCESS);
  }
  if (agreed > 0) {
    for (size_t j = 0; j < m; j++) before[j] = upto[j] - local[j];
    before[m] = 0;
    if (MPI_Exscan(MPI_IN_PLACE, before, (int)m + 1, MPI_UINT64_T, MPI_SUM, comm) != MPI_SUCCESS) {
      agreed = -1;
    }
    if (rank == 0) memset(before, 0, (m + 1) * sizeof *before); /* undefined there */
  }
  if (agreed < 0 && status == CLGPU_SUCCESS) {
    status =
        clgpu__fail(CLGPU_MPI_ERROR, "%s: MPI_Allreduce or MPI_Exscan of the counts failed", who);
  }
  if (agreed > 0 && status == CLGPU_SUCCESS) {
    split[0] = 0;
    for (size_t j = 0; j < m; j++) {
      /* Of the keys at the splitter image, the first (target - keys before
       * it) in (rank, position) order go below rank j + 1. */
      uint64_t wanted = target[j] - global[j];
      uint64_t equal = upto[j] - local[j];
      uint64_t take = wanted > before[j] ? wanted - before[j] : 0;
      if (take > equal) take = equal;
      split[j + 1] = local[j] + take;
    }
    split[size] = s->n;
  }
  free(target);
  free(rho);
  free(candidate);
  free(global);
  free(before);
  free(local);
  free(upto);
  /* A rank that failed before the last exchange left the others with a
   * failure flag: the caller's agreement carries its status. */
  return status;
}

/* ---- the exchange ---- */

/* Send this rank's sorted elements of `unit` bytes each to the ranks by the
 * split points and receive its own, both through host memory. */
static clgpu_status exchange(const char *who, MPI_Comm comm, int size, const uint64_t *split,
                             const int *receive_counts, size_t unit, const void *send,
                             void *receive) {
  int *counts = malloc(4 * (size_t)size * sizeof *counts);
  if (!counts) return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "%s: no memory", who);
  int *send_counts = counts, *send_at = counts + size, *receive_at = counts + 2 * size;
  int received = 0;
  for (int r = 0; r < size; r++) {
    send_counts[r] = (int)(split[r + 1] - split[r]);
    send_at[r] = (int)split[r];
    receive_at[r] = received;
    received += receive_counts[r];
  }
  MPI_Datatype element;
  int code = MPI_Type_contiguous((int)unit, MPI_BYTE, &element);
  if (code == MPI_SUCCESS) code = MPI_Type_commit(&element);
  if (code == MPI_SUCCESS) {
    code = MPI_Alltoallv(send, send_counts, send_at, element, receive, receive_counts, receive_at,
                         element, comm);
    MPI_Type_free(&element);
  }
  free(counts);
  CLGPU__RETURN_ERROR_IF(code != MPI_SUCCESS, CLGPU_MPI_ERROR, "%s: MPI_Alltoallv failed (%d)", who,
                         code);
  return CLGPU_SUCCESS;
}

/* ---- the call ---- */

static clgpu_status distributed_sort(clgpu_context *context, const clgpu_sort_spec *spec,
                                     const clgpu_array *keys, const clgpu_array *values,
                                     MPI_Comm comm, const clgpu_sort_options *options) {
  const char *who = "clgpu_mpi_sort";
  clgpu_mpi_times *times = clgpu__mpi_times_current();
  double start;
  int size = 0, rank = 0;
  CLGPU__FORWARD_IF_ERROR(clgpu__mpi_where(who, comm, &size, &rank));
  clgpu__mpi_record mine;
  memset(&mine, 0, sizeof mine);
  mine.kind = 1;
  mine.type = keys ? (int32_t)keys->type : 0;
  mine.detail = spec && spec->descending ? 1 : 0;
  mine.status = check_sort(who, context, spec, keys, values, options);
  if (mine.status == CLGPU_SUCCESS) {
    mine.count = clgpu_array_count(keys);
    mine.value.u64 = value_bytes(keys, values);
    mine.second.u64 = values != NULL;
  }
  clgpu__mpi_record *all = NULL;
  clgpu_status status = clgpu__mpi_agree_first(who, comm, size, rank, &mine, &all, "descending");
  /* The values must agree too: all ranks or none, the same bytes per key
   * where a rank has keys. The records are the same everywhere, so every
   * rank finds the same answer. */
  uint64_t unit = 0;
  for (int r = 0; status == CLGPU_SUCCESS && r < size; r++) {
    if (all[r].second.u64 != all[0].second.u64) {
      status = clgpu__fail(CLGPU_INVALID_ARGUMENT,
                           "%s: rank %d of %d %s values, rank 0 %s (all ranks or none)", who, r,
                           size, all[r].second.u64 ? "passes" : "passes no",
                           all[0].second.u64 ? "does" : "does not");
    } else if (all[r].count && unit && all[r].value.u64 != unit) {
      status =
          clgpu__fail(CLGPU_INVALID_ARGUMENT,
                      "%s: rank %d of %d carries %llu bytes of values per key, another rank "
                      "%llu",
                      who, r, size, (unsigned long long)all[r].value.u64, (unsigned long long)unit);
    } else if (all[r].count) {
      unit = all[r].value.u64;
    }
  }
  if (status != CLGPU_SUCCESS || size == 1) {
    if (status == CLGPU_SUCCESS) status = sort_and_wait(context, spec, keys, values, options);
    free(all);
    return status;
  }
  /* 1. The local sort; agreed on, so that no rank searches alone. */
  mine.status = sort_and_wait(context, spec, keys, values, options);
  status = clgpu__mpi_agree(who, comm, size, rank, &mine, all, "descending");
  /* 2. The split points. */
  searcher s;
  uint64_t *split = calloc((size_t)size + 1, sizeof *split);
  int *receive_counts = calloc((size_t)size, sizeof *receive_counts);
  if (status == CLGPU_SUCCESS) {
    mine.status = searcher_open(&s, context, spec, keys, options, (size_t)size - 1);
    if (mine.status == CLGPU_SUCCESS && (!split || !receive_counts)) {
      mine.status = clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "%s: no memory", who);
    }
    if (mine.status != CLGPU_SUCCESS) {
      /* The others' first exchange learns of it through the flag. */
      uint64_t *flag = calloc((size_t)size, sizeof *flag);
      if (flag) sum_counts(comm, flag, (size_t)size - 1, 1);
      free(flag);
    } else {
      start = clgpu__mpi_now_ms();
      mine.status = find_splits(who, comm, size, rank, all, &s, split);
      times->search_ms += clgpu__mpi_now_ms() - start;
    }
    searcher_close(&s);
    /* 3. The receive counts, with the outcome so far. */
    status = clgpu__mpi_agree(who, comm, size, rank, &mine, all, "descending");
  }
  int *send_counts = calloc((size_t)size, sizeof *send_counts);
  if (status == CLGPU_SUCCESS) {
    start = clgpu__mpi_now_ms();
    for (int r = 0; r < size; r++) send_counts[r] = (int)(split[r + 1] - split[r]);
    if (MPI_Alltoall(send_counts, 1, MPI_INT, receive_counts, 1, MPI_INT, comm) != MPI_SUCCESS) {
      status = clgpu__fail(CLGPU_MPI_ERROR, "%s: MPI_Alltoall of the counts failed", who);
    }
    uint64_t received = 0;
    for (int r = 0; r < size; r++) received += (uint64_t)receive_counts[r];
    if (status == CLGPU_SUCCESS && received != mine.count) {
      /* The split points give every rank its own count; agreed on below. */
      mine.status =
          clgpu__fail(CLGPU_INTERNAL_ERROR, "%s: rank %d would receive %llu elements for its %llu",
                      who, rank, (unsigned long long)received, (unsigned long long)mine.count);
    }
    times->exchange_ms += clgpu__mpi_now_ms() - start;
  }
  /* 4. The data, through host memory, then the local sort of the received
   * runs (each in order, arriving in rank order: a stable sort keeps equal
   * keys in (rank, position) order). */
  size_t n = (size_t)mine.count, key_size = keys ? clgpu_type_size(keys->type) : 0;
  unsigned char *host = NULL;
  if (status == CLGPU_SUCCESS) {
    host = malloc(2 * (n ? n : 1) * (key_size + unit));
    if (mine.status == CLGPU_SUCCESS && !host) {
      mine.status = clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY,
                                "%s: no host memory to stage %zu elements", who, n);
    }
    unsigned char *send_keys = host, *receive_keys = host ? host + n * key_size : NULL;
    unsigned char *send_values = host ? host + 2 * n * key_size : NULL;
    unsigned char *receive_values = host ? send_values + n * unit : NULL;
    start = clgpu__mpi_now_ms();
    if (mine.status == CLGPU_SUCCESS) {
      mine.status = clgpu_array_read(context, send_keys, n * key_size, keys, 0, NULL);
    }
    if (mine.status == CLGPU_SUCCESS && values) {
      mine.status = clgpu_array_read(context, send_values, n * unit, values, 0, NULL);
    }
    times->staging_ms += clgpu__mpi_now_ms() - start;
    status = clgpu__mpi_agree(who, comm, size, rank, &mine, all, "descending");
    start = clgpu__mpi_now_ms();
    if (status == CLGPU_SUCCESS) {
      status = exchange(who, comm, size, split, receive_counts, key_size, send_keys, receive_keys);
    }
    if (status == CLGPU_SUCCESS && values) {
      status = exchange(who, comm, size, split, receive_counts, unit, send_values, receive_values);
    }
    times->exchange_ms += clgpu__mpi_now_ms() - start;
    if (status == CLGPU_SUCCESS) {
      /* The received part into the views, its local sort, and a last
       * agreement, so that a device failure here too ends the call alike on
       * every rank. (An MPI failure above, under an error handler that
       * returns, is this rank's: MPI gives no way to agree without it.) */
      start = clgpu__mpi_now_ms();
      mine.status = clgpu_array_write(context, keys, receive_keys, n * key_size, 0, NULL);
      if (mine.status == CLGPU_SUCCESS && values) {
        mine.status = clgpu_array_write(context, values, receive_values, n * unit, 0, NULL);
      }
      times->staging_ms += clgpu__mpi_now_ms() - start;
      if (mine.status == CLGPU_SUCCESS) {
        mine.status = sort_and_wait(context, spec, keys, values, options);
      }
      status = clgpu__mpi_agree(who, comm, size, rank, &mine, all, "descending");
    }
  }
  free(host);
  free(send_counts);
  free(receive_counts);
  free(split);
  free(all);
  return status;
}

clgpu_status clgpu_mpi_sort(clgpu_context *context, const clgpu_sort_spec *spec,
                            const clgpu_array *keys, const clgpu_array *values, MPI_Comm comm,
                            const clgpu_sort_options *options) {
  double start;
  clgpu__mpi_times_begin(&start);
  clgpu_status status = distributed_sort(context, spec, keys, values, comm, options);
  clgpu__mpi_times_end(start);
  return status;
}

clgpu_status clgpu_mpi_sort_workspace_size(clgpu_context *context, const clgpu_sort_spec *spec,
                                           const clgpu_array *keys, const clgpu_array *values,
                                           const clgpu_sort_options *options,
                                           clgpu_workspace_size *out) {
  return clgpu_sort_workspace_size(context, spec, keys, values, options, out);
}
