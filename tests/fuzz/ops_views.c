/* Fuzz operations on views: constructors and derivations checked against
 * the harness's independent model of a view, hand-corrupted views, and
 * clgpu_array_alias. */
#include "harness.h"

#define MAX_RANK_TAKEN 10
#define MAX_MODEL_ELEMENTS 4096

static const clgpu_status view_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                             CLGPU_MISALIGNED_VIEW, CLGPU_VIEW_OUT_OF_BOUNDS};
static const clgpu_status reshape_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                CLGPU_MISALIGNED_VIEW, CLGPU_VIEW_OUT_OF_BOUNDS,
                                                CLGPU_RESHAPE_NEEDS_COPY};
static const clgpu_status reinterpret_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                    CLGPU_MISALIGNED_VIEW, CLGPU_VIEW_OUT_OF_BOUNDS,
                                                    CLGPU_REINTERPRET_IMPOSSIBLE};
static const clgpu_status broadcast_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                  CLGPU_MISALIGNED_VIEW, CLGPU_VIEW_OUT_OF_BOUNDS,
                                                  CLGPU_BROADCAST_IMPOSSIBLE};

/* ---- taking view arguments ---- */

static cl_mem take_buffer(byte_reader *in) {
  uint8_t choice = take_byte(in) % (BUF_COUNT + 1);
  return choice == BUF_COUNT ? NULL : arrays.buffers[choice];
}

static size_t take_offset(byte_reader *in) {
  switch (take_byte(in) % 7) {
    case 0:
      return take_byte(in);
    case 1:
      return (size_t)take_byte(in) * 8;
    case 2:
      return SIZE_MAX - take_byte(in);
    case 3:
      return take_count(in);
    case 4:
      return (size_t)take_byte(in) | 1u;
    case 5:
      return 1000u - take_byte(in) % 32;
    default:
      return 0;
  }
}

static size_t take_extent(byte_reader *in) {
  switch (take_byte(in) % 6) {
    case 0:
      return take_byte(in) % 17;
    case 1:
      return 0;
    case 2:
      return take_count(in);
    case 3:
      return 1;
    case 4:
      return take_byte(in);
    default:
      return 2;
  }
}

static ptrdiff_t take_stride(byte_reader *in) {
  switch (take_byte(in) % 8) {
    case 0:
      return (int8_t)take_byte(in);
    case 1:
      return 0;
    case 2:
      return PTRDIFF_MIN;
    case 3:
      return PTRDIFF_MAX;
    case 4:
      return -(ptrdiff_t)take_byte(in) * 16;
    case 5:
      return 1;
    case 6: {
      uint64_t bits = take_u64(in);
      int64_t value;
      memcpy(&value, &bits, sizeof value);
      return (ptrdiff_t)value;
    }
    default:
      return (ptrdiff_t)(take_byte(in) % 16);
  }
}

static ptrdiff_t take_slice_bound(byte_reader *in) {
  switch (take_byte(in) % 8) {
    case 0:
      return (int8_t)take_byte(in);
    case 1:
      return CLGPU_SLICE_BEGIN;
    case 2:
      return CLGPU_SLICE_END;
    case 3:
      return PTRDIFF_MIN + 1;
    case 4:
      return PTRDIFF_MAX - 1;
    case 5:
      return -(ptrdiff_t)take_byte(in);
    case 6:
      return (ptrdiff_t)(int64_t)take_u64(in);
    default:
      return take_byte(in);
  }
}

static ptrdiff_t take_step(byte_reader *in) {
  switch (take_byte(in) % 7) {
    case 0:
      return (int8_t)take_byte(in);
    case 1:
      return 0;
    case 2:
      return PTRDIFF_MIN;
    case 3:
      return 1;
    case 4:
      return -1;
    case 5:
      return PTRDIFF_MAX;
    default:
      return 2;
  }
}

/* A success must have made a view that the model finds valid, that
 * clgpu_array_check passes and whose location is the model's. */
static view_facts check_made_view(const char *call, const clgpu_array *view) {
  view_facts facts = facts_of(view);
  if (!facts.valid) {
    char text[128];
    snprintf(text, sizeof text, "offset %zu, type %d, rank %u", view->offset, (int)view->type,
             view->rank);
    violation(call, "succeeded with a view that reaches outside its buffer or is malformed (%s)",
              text);
  }
  clgpu_status status = clgpu_array_check(view);
  if (status != CLGPU_SUCCESS) {
    violation(call, "made a view that clgpu_array_check refuses with %s",
              clgpu_status_name(status));
  }
  clgpu_location where;
  status = clgpu_array_location(view, &where);
  if (status != CLGPU_SUCCESS) {
    violation(call, "made a view whose location fails with %s", clgpu_status_name(status));
  }
  if (where.base != arrays.buffers[facts.root] || (int64_t)where.offset != facts.offset) {
    violation(call, "made a view located at another root or offset");
  }
  int64_t first = facts.empty ? facts.offset : facts.first;
  int64_t end = facts.empty ? facts.offset : facts.end;
  if ((int64_t)where.first != first || (int64_t)where.end != end) {
    violation(call, "location gives [%zu, %zu), the model [%lld, %lld)", where.first, where.end,
              (long long)first, (long long)end);
  }
  if (where.end > arrays.sizes[facts.root]) violation(call, "location reaches past the root");
  return facts;
}

/* The common ending of every constructor and derivation: the status is
 * documented, a failure left *out alone, a success made a view that holds. */
static void finish_view_call(const char *call, clgpu_status status, status_set set,
                             const clgpu_array *out, int out_given, int out_was_sentinel,
                             const clgpu_array *before, array_run *pool, view_facts *made) {
  check_call(call, status, set, 0);
  if (status != CLGPU_SUCCESS) {
    if (!out_given) return;
    if (out_was_sentinel ? !still_sentinel(out) : memcmp(out, before, sizeof *out) != 0) {
      violation(call, "failed with %s but changed *out", clgpu_status_name(status));
    }
    return;
  }
  if (!out_given) violation(call, "succeeded with a NULL out");
  view_facts facts = check_made_view(call, out);
  if (made) *made = facts;
  keep_view(pool, out);
}

void op_view_make(fuzz_run *run) {
  byte_reader *in = &run->in;
  array_run *pool = &run->pool;
  uint8_t kind = take_byte(in) % 3;
  uint8_t nulls = take_byte(in) % 8;
  cl_mem buffer = take_buffer(in);
  size_t offset = take_offset(in);
  clgpu_type type = take_type(in);
  unsigned rank = take_byte(in) % MAX_RANK_TAKEN;
  size_t shape[MAX_RANK_TAKEN];
  ptrdiff_t strides[MAX_RANK_TAKEN];
  for (unsigned d = 0; d < MAX_RANK_TAKEN; d++) {
    shape[d] = d < rank ? take_extent(in) : 0;
    strides[d] = d < rank ? take_stride(in) : 0;
  }
  clgpu_order orders[] = {CLGPU_ORDER_ROW_MAJOR, CLGPU_ORDER_COLUMN_MAJOR, (clgpu_order)7};
  clgpu_order order = orders[take_byte(in) % 3];
  clgpu_array out;
  fill_sentinel(&out);
  clgpu_array *out_pointer = nulls == 3 ? NULL : &out;
  const size_t *shape_pointer = nulls == 1 ? NULL : shape;
  const ptrdiff_t *strides_pointer = nulls == 2 ? NULL : strides;
  clgpu_status status;
  const char *call;
  prime_last_error();
  if (kind == 0) {
    call = "clgpu_array_1d";
    status = clgpu_array_1d(buffer, offset, type, shape[0], out_pointer);
  } else if (kind == 1) {
    call = "clgpu_array_nd";
    status = clgpu_array_nd(buffer, offset, type, rank, shape_pointer, order, out_pointer);
  } else {
    call = "clgpu_array_strided";
    status = clgpu_array_strided(buffer, offset, type, rank, shape_pointer, strides_pointer,
                                 out_pointer);
  }
  finish_view_call(call, status, STATUS_SET(view_statuses, 1), &out, out_pointer != NULL, 1, NULL,
                   pool, NULL);
  if (status == CLGPU_SUCCESS && (kind == 0 || (kind == 1 && order == CLGPU_ORDER_ROW_MAJOR))) {
    if (!clgpu_array_is_contiguous(&out)) {
      violation(call, "made a contiguous constructor's view that is not contiguous");
    }
  }
}

void op_view_derive(fuzz_run *run) {
  byte_reader *in = &run->in;
  array_run *pool = &run->pool;
  uint8_t kind = take_byte(in) % 6;
  uint8_t flags = take_byte(in);
  const clgpu_array *chosen = take_view(in, pool);
  clgpu_array parent;
  if (chosen) parent = *chosen;
  int in_place = (flags & 1) && chosen; /* out is in */
  int null_out = (flags & 6) == 6;
  int null_argument = (flags & 0x18) == 0x18;
  clgpu_array out;
  fill_sentinel(&out);
  if (in_place) out = parent;
  clgpu_array before = out;
  clgpu_array *out_pointer = null_out ? NULL : &out;
  const clgpu_array *in_pointer = chosen ? (in_place ? &out : &parent) : NULL;
  int parent_valid = chosen && clgpu_array_check(&parent) == CLGPU_SUCCESS;
  view_facts parent_facts = parent_valid ? facts_of(&parent) : (view_facts){0};
  if (parent_valid && !parent_facts.valid) {
    violation("clgpu_array_check", "passed a view that the model finds invalid");
  }
  clgpu_status status;
  const char *call;
  status_set set = STATUS_SET(view_statuses, 1);
  size_t shape[MAX_RANK_TAKEN];
  unsigned rank = 0;
  prime_last_error();
  switch (kind) {
    case 0: {
      clgpu_slice slices[MAX_RANK_TAKEN];
      for (unsigned d = 0; d < MAX_RANK_TAKEN; d++) {
        slices[d].start = take_slice_bound(in);
        slices[d].stop = take_slice_bound(in);
        slices[d].step = take_step(in);
      }
      call = "clgpu_array_slice";
      prime_last_error();
      status = clgpu_array_slice(in_pointer, null_argument ? NULL : slices, out_pointer);
      break;
    }
    case 1:
    case 5: {
      rank = take_byte(in) % MAX_RANK_TAKEN;
      for (unsigned d = 0; d < MAX_RANK_TAKEN; d++) {
        uint8_t how = take_byte(in) % 3;
        /* Often the parent's own extents, so that the shapes are compatible. */
        size_t parent_extent = 1;
        if (chosen && parent.rank <= CLGPU_MAX_RANK && d < parent.rank) {
          parent_extent = parent.shape[d];
        }
        shape[d] = how == 0 ? parent_extent : how == 1 ? take_byte(in) % 9 : take_extent(in);
      }
      const size_t *shape_pointer = null_argument ? NULL : shape;
      prime_last_error();
      if (kind == 1) {
        call = "clgpu_array_reshape";
        set = STATUS_SET(reshape_statuses, 1);
        status = clgpu_array_reshape(in_pointer, rank, shape_pointer, out_pointer);
      } else {
        call = "clgpu_array_broadcast";
        set = STATUS_SET(broadcast_statuses, 1);
        status = clgpu_array_broadcast(in_pointer, rank, shape_pointer, out_pointer);
      }
      break;
    }
    case 2: {
      unsigned axes[MAX_RANK_TAKEN];
      uint8_t how = take_byte(in) % 3;
      unsigned parent_rank = chosen && parent.rank <= CLGPU_MAX_RANK ? parent.rank : 1;
      uint8_t turn = take_byte(in);
      for (unsigned d = 0; d < MAX_RANK_TAKEN; d++) {
        if (how == 0) {
          axes[d] = take_byte(in) % MAX_RANK_TAKEN;
        } else if (how == 1) {
          axes[d] = d < parent_rank ? parent_rank - 1 - d : d;
        } else {
          axes[d] = d < parent_rank ? (d + turn) % parent_rank : d;
        }
      }
      call = "clgpu_array_permute";
      prime_last_error();
      status = clgpu_array_permute(in_pointer, null_argument ? NULL : axes, out_pointer);
      break;
    }
    case 3:
      call = "clgpu_array_transpose";
      status = clgpu_array_transpose(in_pointer, out_pointer);
      break;
    default: {
      clgpu_type type = take_type(in);
      call = "clgpu_array_reinterpret";
      set = STATUS_SET(reinterpret_statuses, 1);
      prime_last_error();
      status = clgpu_array_reinterpret(in_pointer, type, out_pointer);
      break;
    }
  }
  if (status == CLGPU_SUCCESS && !parent_valid) {
    violation(call, "succeeded on an invalid or NULL view");
  }
  view_facts made;
  memset(&made, 0, sizeof made);
  finish_view_call(call, status, set, &out, out_pointer != NULL, !in_place, &before, pool, &made);
  if (status != CLGPU_SUCCESS) return;
  /* A derived view reaches only bytes its parent reaches. */
  if (!made.empty) {
    if (parent_facts.empty || made.root != parent_facts.root || made.first < parent_facts.first ||
        made.end > parent_facts.end) {
      violation(call, "made a view reaching [%lld, %lld) from a parent reaching [%lld, %lld)",
                (long long)made.first, (long long)made.end, (long long)parent_facts.first,
                (long long)parent_facts.end);
    }
  }
  /* Reshaping, permuting and transposing keep the number of elements. */
  if (kind >= 1 && kind <= 3 && made.count != parent_facts.count) {
    violation(call, "changed the element count from %zu to %zu", parent_facts.count, made.count);
  }
}

/* Edit one field of a pool view by hand, keeping the result in the pool. */
void op_view_corrupt(fuzz_run *run) {
  byte_reader *in = &run->in;
  array_run *pool = &run->pool;
  const clgpu_array *chosen = take_view(in, pool);
  clgpu_array view;
  if (chosen)
    view = *chosen;
  else
    memset(&view, 0, sizeof view);
  uint8_t field = take_byte(in) % 6;
  unsigned d = take_byte(in) % CLGPU_MAX_RANK;
  switch (field) {
    case 0:
      view.offset = take_offset(in);
      break;
    case 1:
      view.type = take_type(in);
      break;
    case 2:
      view.rank = take_byte(in) % 3 == 0 ? take_u32(in) : take_byte(in) % MAX_RANK_TAKEN;
      break;
    case 3:
      view.shape[d] = take_extent(in);
      break;
    case 4:
      view.strides[d] = take_stride(in);
      break;
    default:
      view.buffer = take_buffer(in);
      break;
  }
  prime_last_error();
  clgpu_status status = clgpu_array_check(&view);
  check_call("clgpu_array_check", status, STATUS_SET(view_statuses, 1), 0);
  if (status == CLGPU_SUCCESS) check_made_view("clgpu_array_check", &view);
  keep_view(pool, &view);
}

typedef struct byte_marks {
  uint8_t marks[MAX_ROOT_BYTES];
  int root;
  size_t size;
  int hit;
} byte_marks;

static void mark_bytes(int64_t address, void *state) {
  byte_marks *marks = state;
  for (size_t i = 0; i < marks->size; i++) {
    if (address + (int64_t)i >= 0 && address + (int64_t)i < MAX_ROOT_BYTES) {
      marks->marks[address + (int64_t)i] = 1;
    }
  }
}

static void test_bytes(int64_t address, void *state) {
  byte_marks *marks = state;
  for (size_t i = 0; i < marks->size; i++) {
    if (address + (int64_t)i >= 0 && address + (int64_t)i < MAX_ROOT_BYTES &&
        marks->marks[address + (int64_t)i]) {
      marks->hit = 1;
    }
  }
}

/* Whether two valid views share a byte, by listing their bytes. */
static int views_share_a_byte(const clgpu_array *a, const view_facts *facts_a, const clgpu_array *b,
                              const view_facts *facts_b) {
  if (facts_a->root != facts_b->root || facts_a->empty || facts_b->empty) return 0;
  static byte_marks marks;
  memset(marks.marks, 0, sizeof marks.marks);
  marks.hit = 0;
  marks.size = clgpu_type_size(a->type);
  for_each_element(a, facts_a, mark_bytes, &marks);
  marks.size = clgpu_type_size(b->type);
  for_each_element(b, facts_b, test_bytes, &marks);
  return marks.hit;
}

void op_alias(fuzz_run *run) {
  byte_reader *in = &run->in;
  array_run *pool = &run->pool;
  const clgpu_array *a = take_view(in, pool);
  const clgpu_array *b = take_view(in, pool);
  if (take_byte(in) % 4 == 0) b = a;
  const char *call = "clgpu_may_alias/clgpu_array_same";
  int ab = clgpu_may_alias(a, b);
  int ba = clgpu_may_alias(b, a);
  int same = clgpu_array_same(a, b);
  if ((ab != 0 && ab != 1) || (ba != 0 && ba != 1) || (same != 0 && same != 1)) {
    violation(call, "gave a value other than 0 and 1");
  }
  if (ab != ba) violation(call, "is not symmetric: %d one way, %d the other", ab, ba);
  int valid_a = a && clgpu_array_check(a) == CLGPU_SUCCESS;
  int valid_b = b && clgpu_array_check(b) == CLGPU_SUCCESS;
  if ((!valid_a || !valid_b) && ab != 1) violation(call, "gave 0 for an invalid view");
  if ((!valid_a || !valid_b) && same) violation(call, "called an invalid view the same");
  if (!valid_a || !valid_b) return;
  view_facts facts_a = facts_of(a), facts_b = facts_of(b);
  if (!facts_a.valid || !facts_b.valid) {
    violation("clgpu_array_check", "passed a view that the model finds invalid");
  }
  if (a == b && !same) violation(call, "a view is not the same as itself");
  if (same && !facts_a.empty && !ab) violation(call, "the same non-empty views do not alias");
  if (facts_a.count <= MAX_MODEL_ELEMENTS && facts_b.count <= MAX_MODEL_ELEMENTS &&
      views_share_a_byte(a, &facts_a, b, &facts_b) && !ab) {
    violation(call, "gave 0 for views that share a byte");
  }
}
