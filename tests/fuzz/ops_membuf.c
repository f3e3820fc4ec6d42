/* Fuzz operations on buffers across memory spaces (clgpu_membuf_*), checked
 * against the model in harness_membuf.c after every call. */
#include "harness.h"

#define FORMAT_GUARD 16

#define STALE_MEMBUF ((clgpu_membuf *)(void *)&not_a_handle)
static uint8_t fixed_before[MEMBUF_MAX_BYTES + FIXED_SLACK];
static char format_text[FORMAT_ROOM + FORMAT_GUARD];
static char format_expected[FORMAT_ROOM];

static const clgpu_status membuf_create_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                      CLGPU_CL_OUT_OF_HOST_MEMORY};
static const clgpu_status membuf_create_device_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                             CLGPU_CL_OUT_OF_HOST_MEMORY,
                                                             CLGPU_CL_INVALID_BUFFER_SIZE};
static const clgpu_status membuf_move_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                    CLGPU_WRONG_SPACE};
static const clgpu_status membuf_touch_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                     CLGPU_WRONG_SPACE};
static const clgpu_status membuf_reallocate_statuses[] = {
    CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT, CLGPU_WRONG_SPACE, CLGPU_CAPACITY_EXCEEDED,
    CLGPU_CL_OUT_OF_HOST_MEMORY};
static const clgpu_status membuf_assign_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                      CLGPU_TYPE_MISMATCH, CLGPU_CAPACITY_EXCEEDED};
static const clgpu_status membuf_name_statuses[] = {CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT,
                                                    CLGPU_CL_OUT_OF_HOST_MEMORY};

/* The refusals a call's arguments call for; any one of them may be the one
 * given when several apply, and none means the call must succeed. */
enum {
  REFUSE_INVALID = 1,
  REFUSE_WRONG_SPACE = 2,
  REFUSE_CAPACITY = 4,
  REFUSE_TYPE = 8,
  REFUSE_BUFFER_SIZE = 16
};

static void expect_refusals(const char *call, clgpu_status status, unsigned refusals) {
  static const struct {
    unsigned bit;
    clgpu_status status;
  } codes[] = {
      {REFUSE_INVALID, CLGPU_INVALID_ARGUMENT},           {REFUSE_WRONG_SPACE, CLGPU_WRONG_SPACE},
      {REFUSE_CAPACITY, CLGPU_CAPACITY_EXCEEDED},         {REFUSE_TYPE, CLGPU_TYPE_MISMATCH},
      {REFUSE_BUFFER_SIZE, CLGPU_CL_INVALID_BUFFER_SIZE},
  };
  if (!refusals) {
    expect_status(call, status, CLGPU_SUCCESS, "every argument is valid");
    return;
  }
  char expected[160] = "";
  size_t used = 0;
  for (size_t i = 0; i < COUNT_OF(codes); i++) {
    if (!(refusals & codes[i].bit)) continue;
    if (status == codes[i].status) return;
    used += (size_t)snprintf(expected + used, sizeof expected - used, "%s%s", used ? " or " : "",
                             clgpu_status_name(codes[i].status));
    if (used >= sizeof expected) used = sizeof expected - 1;
  }
  violation(call, "returned %s, expected %s", clgpu_status_name(status), expected);
}

/* ---- decoding membuf arguments ---- */

static const char *const membuf_name_words[] = {
    "", "keys", "values", "a b", "%s%n%x", "\n", "\xff\xfe", "Moved ", long_identifier, huge_text,
};

static const char *const membuf_type_name_words[] = {
    "int", "uint", "float4", "", "my_type", "%n%n", "\t", long_identifier, huge_text,
};

static int valid_access(clgpu_access access) {
  return access == CLGPU_ACCESS_READ_WRITE || access == CLGPU_ACCESS_READ_ONLY ||
         access == CLGPU_ACCESS_WRITE_ONLY;
}

/* Mostly the two spaces; 0 (not a space), 3, -1 and any int. */
static clgpu_space take_space(byte_reader *in) {
  static const int spaces[] = {
      CLGPU_SPACE_HOST, CLGPU_SPACE_DEVICE, CLGPU_SPACE_HOST, CLGPU_SPACE_DEVICE, 0, 3, -1};
  uint8_t choice = take_byte(in) % (COUNT_OF(spaces) + 1);
  return (clgpu_space)(choice == COUNT_OF(spaces) ? take_int(in) : spaces[choice]);
}

static clgpu_access take_access(byte_reader *in) {
  static const int accesses[] = {CLGPU_ACCESS_READ_WRITE,
                                 CLGPU_ACCESS_READ_ONLY,
                                 CLGPU_ACCESS_WRITE_ONLY,
                                 CLGPU_ACCESS_READ_WRITE,
                                 CLGPU_ACCESS_READ_ONLY,
                                 CLGPU_ACCESS_WRITE_ONLY,
                                 3,
                                 -1};
  uint8_t choice = take_byte(in) % (COUNT_OF(accesses) + 1);
  return (clgpu_access)(choice == COUNT_OF(accesses) ? take_int(in) : accesses[choice]);
}

/* Every element type, and 0, 12, 99 and -1, which are none. */
static clgpu_type take_membuf_type(byte_reader *in) {
  static const int odd[] = {0, 12, 99, -1, CLGPU_TYPE_UINT32};
  uint8_t choice = take_byte(in) % (CLGPU_TYPE_DOUBLE + COUNT_OF(odd));
  return (clgpu_type)(choice < CLGPU_TYPE_DOUBLE ? choice + 1 : odd[choice - CLGPU_TYPE_DOUBLE]);
}

/* An element count: small ones, the edges around `reference` (a capacity or
 * a size), and huge ones. */
static size_t take_membuf_count(byte_reader *in, size_t reference) {
  switch (take_byte(in) % 10) {
    case 0:
      return 0;
    case 1:
      return 1 + take_byte(in) % 16;
    case 2:
      return take_byte(in);
    case 3: {
      size_t low = take_byte(in);
      return (low | (size_t)take_byte(in) << 8) % (MEMBUF_MAX_COUNT + 1);
    }
    case 4:
      return MEMBUF_MAX_COUNT;
    case 5:
      return reference;
    case 6:
      return reference + 1;
    case 7:
      return reference ? reference - 1 : 0;
    case 8:
      return SIZE_MAX / 3;
    default:
      return take_count(in);
  }
}

static int overflows(clgpu_type type, size_t count) {
  size_t size = clgpu_type_size(type);
  return size && count > SIZE_MAX / size;
}

/* Whether `count` elements are refused by the device's largest allocation:
 * a byte count OpenCL is never asked for. */
static int beyond_device(clgpu_type type, size_t count) {
  size_t size = clgpu_type_size(type);
  return size && !overflows(type, count) && count * size > arrays.max_alloc;
}

/* The slot an argument names, or -1 for a NULL handle. */
static int take_slot(byte_reader *in) {
  uint8_t choice = take_byte(in) % (MEMBUF_SLOTS + 1);
  return choice == MEMBUF_SLOTS ? -1 : choice;
}

static clgpu_membuf *handle_of(int index) { return index < 0 ? NULL : membufs[index].buffer; }

static const char *slot_word(int index, char text[48]) {
  if (index < 0 || !membufs[index].buffer) {
    snprintf(text, 48, "NULL");
  } else {
    static const char *const kinds[] = {"?", "host", "host+device", "fixed"};
    const membuf_slot *slot = &membufs[index];
    snprintf(text, 48, "#%d (%s%s, %s)", index, kinds[slot->kind % 4],
             slot->kind == CLGPU_MEMBUF_FIXED && !slot->context ? " host-only" : "",
             clgpu_type_cl_name(slot->type));
  }
  return text;
}

typedef struct wait_args {
  cl_uint count;
  const cl_event *list;
  int bad;     /* a count without a list, or a list without a count */
  int foreign; /* an event of the other context, which OpenCL may refuse */
  cl_event events[2];
} wait_args;

/* A wait list of completed events of the buffer's context, one of another
 * context, or a mismatched one (never a count longer than the list). */
static void take_wait(byte_reader *in, clgpu_context *context, wait_args *wait) {
  cl_event done = context == world.other ? done_on_other : arrays.done;
  wait->events[0] = wait->events[1] = done;
  wait->count = 0;
  wait->list = NULL;
  wait->bad = 0;
  wait->foreign = 0;
  switch (take_byte(in) % 8) {
    case 2:
      wait->events[0] = context == world.other ? arrays.done : done_on_other;
      wait->count = 1;
      wait->list = wait->events;
      wait->foreign = 1;
      break;
    case 3:
      wait->count = 1;
      wait->list = wait->events;
      break;
    case 4:
      wait->count = 2;
      wait->list = wait->events;
      break;
    case 5:
      wait->count = 1;
      wait->bad = 1;
      break;
    case 6:
      wait->list = wait->events;
      wait->bad = 1;
      break;
    case 7:
      wait->count = UINT32_MAX - take_byte(in);
      wait->bad = 1;
      break;
    default:
      break;
  }
}

static const char *membuf_options_word(const clgpu_membuf_options *options, char text[300]) {
  char name[128], type_name[128];
  if (!options) return "NULL";
  snprintf(text, 300, "{name %s, type_name %s}", quoted(options->name, name),
           quoted(options->type_name, type_name));
  return text;
}

static const clgpu_membuf_options *take_membuf_options(byte_reader *in,
                                                       clgpu_membuf_options *options,
                                                       char name[MAX_TEXT + 1],
                                                       char type_name[MAX_TEXT + 1]) {
  uint8_t mode = take_byte(in) % 4;
  memset(options, 0, sizeof *options);
  if (mode == 0) return NULL;
  if (mode == 1) return options;
  options->name = TAKE_TEXT(in, membuf_name_words, name);
  if (mode == 3) options->type_name = TAKE_TEXT(in, membuf_type_name_words, type_name);
  return options;
}

static void copy_text(char *destination, const char *text) {
  size_t length = text ? strlen(text) : 0;
  if (length > HUGE_LENGTH) length = HUGE_LENGTH;
  if (length) memcpy(destination, text, length);
  destination[length] = '\0';
}

static void write_pattern(uint8_t *data, size_t bytes, uint8_t seed, int index) {
  for (size_t i = 0; i < bytes; i++) {
    data[i] = (uint8_t)(seed + i * 13u + (size_t)index * 29u + (i >> 8));
  }
}

/* What every create function's outcome must be; a success fills the slot. */
static void finish_create(const char *call, clgpu_status status, int index, clgpu_membuf *made,
                          int out_given, clgpu_membuf_kind kind, clgpu_context *context,
                          clgpu_type type, size_t count, size_t capacity, clgpu_space space,
                          const clgpu_membuf_options *options, uint8_t *storage) {
  if (status != CLGPU_SUCCESS) {
    if (out_given && made) violation(call, "failed but left *out non-NULL");
    return;
  }
  if (!made || made == STALE_MEMBUF) violation(call, "succeeded without a buffer");
  membuf_slot *slot = &membufs[index];
  memset(slot, 0, sizeof *slot);
  slot->buffer = made;
  slot->kind = kind;
  slot->context = context;
  slot->type = type;
  slot->element_size = clgpu_type_size(type);
  slot->storage = storage;
  slot->fixed_capacity = kind == CLGPU_MEMBUF_FIXED ? capacity : 0;
  copy_text(membuf_names[index], options ? options->name : NULL);
  slot->named_type = options && options->type_name;
  copy_text(membuf_type_names[index], options ? options->type_name : NULL);
  if (storage) {
    memcpy(membuf_shadow[index], storage, count * slot->element_size);
    slot->known = count;
  }
  clgpu_membuf_info info = membuf_info(call, index);
  int on_host = space == CLGPU_SPACE_HOST;
  if (info.size != count || info.capacity != capacity) {
    violation(call, "made a buffer of size %zu and capacity %zu, asked %zu and %zu", info.size,
              info.capacity, count, capacity);
  }
  if (info.host_current != on_host || info.device_current != !on_host ||
      info.host_allocated != on_host || info.device_allocated != !on_host) {
    violation(call, "made a buffer current and allocated on the %s %d/%d, the device %d/%d", "host",
              info.host_current, info.host_allocated, info.device_current, info.device_allocated);
  }
  if (info.moves_to_host || info.moves_to_device || info.bytes_to_host || info.bytes_to_device) {
    violation(call, "made a buffer that has moves already");
  }
}

void op_membuf_create_host(fuzz_run *run) {
  byte_reader *in = &run->in;
  int index = take_byte(in) % MEMBUF_SLOTS;
  clgpu_type type = take_membuf_type(in);
  size_t count = take_membuf_count(in, 16);
  char name[MAX_TEXT + 1], type_name[MAX_TEXT + 1], shown[300];
  clgpu_membuf_options storage;
  const clgpu_membuf_options *options = take_membuf_options(in, &storage, name, type_name);
  int out_given = take_byte(in) % 8 != 0;
  unsigned refusals = 0;
  if (!out_given || !clgpu_type_size(type) || overflows(type, count)) refusals |= REFUSE_INVALID;
  /* A large request that can be granted would allocate for real. */
  if (!refusals && count > MEMBUF_MAX_COUNT) return;
  free_slot(index);
  char call[512];
  snprintf(call, sizeof call, "clgpu_membuf_create_host(type %d, count %zu, options %s, %s)",
           (int)type, count, membuf_options_word(options, shown), out_given ? "&out" : "NULL");
  clgpu_membuf *made = STALE_MEMBUF;
  prime_last_error();
  clgpu_status status = clgpu_membuf_create_host(type, count, options, out_given ? &made : NULL);
  check_call(call, status, STATUS_SET(membuf_create_statuses, 0), 0);
  expect_refusals(call, status, refusals);
  finish_create(call, status, index, made, out_given, CLGPU_MEMBUF_HOST, NULL, type, count, count,
                CLGPU_SPACE_HOST, options, NULL);
  check_membufs(call);
}

static clgpu_context *take_membuf_context(byte_reader *in) {
  clgpu_context *contexts[] = {world.context, world.context, world.other, NULL};
  return contexts[take_byte(in) % COUNT_OF(contexts)];
}

void op_membuf_create(fuzz_run *run) {
  byte_reader *in = &run->in;
  int index = take_byte(in) % MEMBUF_SLOTS;
  clgpu_context *context = take_membuf_context(in);
  clgpu_type type = take_membuf_type(in);
  size_t count = take_membuf_count(in, 16);
  clgpu_space space = take_space(in);
  char name[MAX_TEXT + 1], type_name[MAX_TEXT + 1], shown[300];
  clgpu_membuf_options storage;
  const clgpu_membuf_options *options = take_membuf_options(in, &storage, name, type_name);
  int out_given = take_byte(in) % 8 != 0;
  unsigned refusals = 0;
  if (!out_given || !context || !valid_space(space) || !clgpu_type_size(type) ||
      overflows(type, count)) {
    refusals |= REFUSE_INVALID;
  }
  if (!refusals && count > MEMBUF_MAX_COUNT) {
    if (space != CLGPU_SPACE_DEVICE || !beyond_device(type, count)) return;
    refusals |= REFUSE_BUFFER_SIZE;
  }
  free_slot(index);
  char call[512];
  snprintf(call, sizeof call,
           "clgpu_membuf_create(%s, type %d, count %zu, space %d, options %s, %s)",
           !context                 ? "NULL"
           : context == world.other ? "other ctx"
                                    : "ctx",
           (int)type, count, (int)space, membuf_options_word(options, shown),
           out_given ? "&out" : "NULL");
  clgpu_membuf *made = STALE_MEMBUF;
  prime_last_error();
  clgpu_status status =
      clgpu_membuf_create(context, type, count, space, options, out_given ? &made : NULL);
  check_call(call, status, STATUS_SET(membuf_create_device_statuses, 1), 0);
  expect_refusals(call, status, refusals);
  finish_create(call, status, index, made, out_given, CLGPU_MEMBUF_HOST_DEVICE, context, type,
                count, count, space, options, NULL);
  check_membufs(call);
}

void op_membuf_create_fixed(fuzz_run *run) {
  byte_reader *in = &run->in;
  int index = take_byte(in) % MEMBUF_SLOTS;
  clgpu_context *contexts[] = {world.context, world.context, NULL, world.other};
  clgpu_context *context = contexts[take_byte(in) % COUNT_OF(contexts)];
  clgpu_type type = take_membuf_type(in);
  uint8_t storage_mode = take_byte(in) % 8;
  size_t size = clgpu_type_size(type);
  size_t offset = storage_mode == 1 ? 1 : 0;
  size_t room = size ? (sizeof fixed_storage[0] - offset) / size : MEMBUF_MAX_COUNT;
  if (room > MEMBUF_MAX_COUNT) room = MEMBUF_MAX_COUNT;
  size_t capacity;
  switch (take_byte(in) % 8) {
    case 0:
      capacity = room;
      break;
    case 1:
      capacity = 1 + take_byte(in) % room;
      break;
    case 2:
      capacity = take_byte(in) % 33;
      break;
    case 3:
      capacity = 0;
      break;
    case 4:
      capacity = room + 1 + take_byte(in);
      break;
    case 5:
      capacity = SIZE_MAX / 3;
      break;
    case 6:
      capacity = SIZE_MAX;
      break;
    default:
      capacity = take_count(in);
      break;
  }
  size_t count = take_membuf_count(in, capacity);
  char name[MAX_TEXT + 1], type_name[MAX_TEXT + 1], shown[300];
  clgpu_membuf_options options_storage;
  const clgpu_membuf_options *options = take_membuf_options(in, &options_storage, name, type_name);
  int out_given = take_byte(in) % 8 != 0;
  uint8_t seed = take_byte(in);
  uint8_t *storage = storage_mode == 0 ? NULL : fixed_storage[index] + offset;
  unsigned refusals = 0;
  if (!out_given || !storage || !size || overflows(type, capacity) || capacity == 0 ||
      count > capacity || (size && offset % size != 0)) {
    refusals |= REFUSE_INVALID;
  }
  /* A capacity past the storage would be the caller's error. */
  if (!refusals && capacity > room) return;
  free_slot(index);
  memset(fixed_storage[index], CANARY, sizeof fixed_storage[0]);
  size_t filled = (capacity < room ? capacity : room) * (size ? size : 1);
  write_pattern(fixed_storage[index] + offset, filled, seed, index);
  memcpy(fixed_before, fixed_storage[index], sizeof fixed_before);
  char call[512];
  snprintf(call, sizeof call,
           "clgpu_membuf_create_fixed(%s, type %d, storage %s, capacity %zu, count %zu, options "
           "%s, %s)",
           !context                 ? "NULL"
           : context == world.other ? "other ctx"
                                    : "ctx",
           (int)type,
           !storage ? "NULL"
           : offset ? "misaligned by 1"
                    : "aligned",
           capacity, count, membuf_options_word(options, shown), out_given ? "&out" : "NULL");
  clgpu_membuf *made = STALE_MEMBUF;
  prime_last_error();
  clgpu_status status = clgpu_membuf_create_fixed(context, type, storage, capacity, count, options,
                                                  out_given ? &made : NULL);
  check_call(call, status, STATUS_SET(membuf_create_statuses, 0), 0);
  expect_refusals(call, status, refusals);
  if (memcmp(fixed_before, fixed_storage[index], sizeof fixed_before) != 0) {
    violation(call, "wrote to the storage it was given");
  }
  finish_create(call, status, index, made, out_given, CLGPU_MEMBUF_FIXED, context, type, count,
                capacity, CLGPU_SPACE_HOST, options, storage);
  check_membufs(call);
}

void op_membuf_free(fuzz_run *run) {
  byte_reader *in = &run->in;
  int index = take_slot(in);
  if (index < 0) {
    prime_last_error();
    clgpu_membuf_destroy(NULL);
    check_message_untouched("clgpu_membuf_destroy(NULL)");
  } else {
    free_slot(index);
  }
  check_membufs("clgpu_membuf_destroy");
}

/* ---- moving ---- */

void op_membuf_move(fuzz_run *run) {
  byte_reader *in = &run->in;
  int index = take_slot(in);
  clgpu_membuf *buffer = handle_of(index);
  clgpu_space space = take_space(in);
  clgpu_access access = take_access(in);
  wait_args wait;
  take_wait(in, buffer ? membufs[index].context : world.context, &wait);
  int want_event = take_byte(in) % 2;
  unsigned refusals = 0;
  if (!buffer || !valid_space(space) || !valid_access(access) || wait.bad) {
    refusals |= REFUSE_INVALID;
  }
  if (buffer && space == CLGPU_SPACE_DEVICE && host_only(index)) refusals |= REFUSE_WRONG_SPACE;
  clgpu_membuf_info before = info_before(index);
  char call[256], shown[48];
  snprintf(call, sizeof call, "clgpu_membuf_move(%s, space %d, access %d, %u, %s, %s)",
           slot_word(index, shown), (int)space, (int)access, wait.count,
           wait.foreign ? "other context's list"
           : wait.list  ? "list"
                        : "NULL",
           want_event ? "&event" : "NULL");
  cl_event event = STALE_EVENT;
  prime_last_error();
  clgpu_status status =
      clgpu_membuf_move(buffer, space, access, wait.count, wait.list, want_event ? &event : NULL);
  check_call(call, status, STATUS_SET(membuf_move_statuses, 1), 0);
  if (!(wait.foreign && !refusals && is_opencl_code(status))) {
    expect_refusals(call, status, refusals);
  }
  if (status != CLGPU_SUCCESS) {
    check_no_event(call, status, event);
    check_unchanged(call, status, index, &before);
  } else {
    finish_event(call, want_event, event, index);
    check_moved(call, index, &before, space == CLGPU_SPACE_DEVICE, access);
  }
  check_membufs(call);
}

void op_membuf_touch(fuzz_run *run) {
  byte_reader *in = &run->in;
  int index = take_slot(in);
  clgpu_membuf *buffer = handle_of(index);
  clgpu_space space = take_space(in);
  clgpu_membuf_info before = info_before(index);
  int side = space == CLGPU_SPACE_DEVICE;
  unsigned refusals = 0;
  if (!buffer || !valid_space(space)) refusals |= REFUSE_INVALID;
  if (buffer && valid_space(space) &&
      ((side && host_only(index)) || !(side ? before.device_allocated : before.host_allocated))) {
    refusals |= REFUSE_WRONG_SPACE;
  }
  char call[128], shown[48];
  snprintf(call, sizeof call, "clgpu_membuf_touch(%s, space %d)", slot_word(index, shown),
           (int)space);
  prime_last_error();
  clgpu_status status = clgpu_membuf_touch(buffer, space);
  check_call(call, status, STATUS_SET(membuf_touch_statuses, 0), 0);
  expect_refusals(call, status, refusals);
  if (status != CLGPU_SUCCESS) {
    check_unchanged(call, status, index, &before);
  } else {
    clgpu_membuf_info after = membuf_info(call, index);
    if ((side ? !after.device_current || after.host_current
              : !after.host_current || after.device_current) ||
        after.size != before.size || after.capacity != before.capacity) {
      violation(call, "did not make the %s the only current side of buffer #%d",
                side ? "device" : "host", index);
    }
    const int none[2] = {0, 0};
    check_moves_added(call, index, &before, none);
    /* The other side's data becomes the buffer's, and the fuzzer never
     * wrote it there. */
    if (!(side ? before.device_current : before.host_current)) membufs[index].known = 0;
  }
  check_membufs(call);
}

/* ---- reallocation and assignment ---- */

void op_membuf_reallocate(fuzz_run *run) {
  byte_reader *in = &run->in;
  int index = take_slot(in);
  clgpu_membuf *buffer = handle_of(index);
  clgpu_space space = take_space(in);
  clgpu_membuf_info before = info_before(index);
  size_t capacity = take_membuf_count(in, buffer ? before.capacity : 16);
  size_t size = take_membuf_count(in, capacity);
  int side = space == CLGPU_SPACE_DEVICE;
  int fixed = buffer && membufs[index].kind == CLGPU_MEMBUF_FIXED;
  clgpu_type type = buffer ? membufs[index].type : CLGPU_TYPE_UINT8;
  unsigned refusals = 0;
  if (!buffer || !valid_space(space) || capacity == 0 || size > capacity) {
    refusals |= REFUSE_INVALID;
  }
  if (buffer && side && host_only(index)) refusals |= REFUSE_WRONG_SPACE;
  if (fixed && capacity > membufs[index].fixed_capacity) refusals |= REFUSE_CAPACITY;
  if (buffer && !fixed && overflows(type, capacity)) refusals |= REFUSE_INVALID;
  if (!refusals && !fixed && capacity > MEMBUF_MAX_COUNT) {
    if (!side || !beyond_device(type, capacity)) return;
    refusals |= REFUSE_BUFFER_SIZE;
  }
  char call[192], shown[48];
  snprintf(call, sizeof call, "clgpu_membuf_reallocate(%s, size %zu, space %d, capacity %zu)",
           slot_word(index, shown), size, (int)space, capacity);
  prime_last_error();
  clgpu_status status = clgpu_membuf_reallocate(buffer, size, space, capacity);
  check_call(call, status, STATUS_SET(membuf_reallocate_statuses, 1), 0);
  expect_refusals(call, status, refusals);
  if (status != CLGPU_SUCCESS) {
    check_unchanged(call, status, index, &before);
    check_membufs(call);
    return;
  }
  clgpu_membuf_info after = membuf_info(call, index);
  size_t expected_capacity = fixed ? membufs[index].fixed_capacity : capacity;
  if (after.size != size || after.capacity != expected_capacity) {
    violation(call, "left size %zu and capacity %zu, expected %zu and %zu", after.size,
              after.capacity, size, expected_capacity);
  }
  if ((side ? !after.device_current || after.host_current
            : !after.host_current || after.device_current)) {
    violation(call, "did not leave the %s the only current side", side ? "device" : "host");
  }
  if (!fixed && (side ? after.host_allocated : after.device_allocated)) {
    violation(call, "kept the other side's allocation");
  }
  size_t keep = size < before.size ? size : before.size;
  int expected_moves[2] = {0, 0};
  if (keep > 0 && !(side ? before.device_current : before.host_current)) expected_moves[side] = 1;
  check_moves_added(call, index, &before, expected_moves);
  if (membufs[index].known > keep) membufs[index].known = keep;
  check_membufs(call);
}

void op_membuf_assign(fuzz_run *run) {
  byte_reader *in = &run->in;
  int to = take_slot(in);
  int from = take_slot(in);
  if (take_byte(in) % 4 == 0) from = to;
  clgpu_membuf *destination = handle_of(to);
  clgpu_membuf *source = handle_of(from);
  clgpu_membuf_info before_to = info_before(to), before_from = info_before(from);
  unsigned refusals = 0;
  if (!destination || !source || destination == source) {
    refusals |= REFUSE_INVALID;
  } else {
    if (membufs[to].type != membufs[from].type) refusals |= REFUSE_TYPE;
    if (membufs[to].kind == CLGPU_MEMBUF_FIXED && before_from.size > membufs[to].fixed_capacity) {
      refusals |= REFUSE_CAPACITY;
    }
  }
  char call[160], shown_to[48], shown_from[48];
  snprintf(call, sizeof call, "clgpu_membuf_assign(%s, %s)", slot_word(to, shown_to),
           slot_word(from, shown_from));
  prime_last_error();
  clgpu_status status = clgpu_membuf_assign(destination, source);
  check_call(call, status, STATUS_SET(membuf_assign_statuses, 1), 0);
  expect_refusals(call, status, refusals);
  if (status != CLGPU_SUCCESS) {
    check_unchanged(call, status, to, &before_to);
    check_unchanged(call, status, from, &before_from);
    check_membufs(call);
    return;
  }
  clgpu_membuf_info after_to = membuf_info(call, to), after_from = membuf_info(call, from);
  size_t expected_capacity = membufs[to].kind == CLGPU_MEMBUF_FIXED  ? membufs[to].fixed_capacity
                             : before_from.size > before_to.capacity ? before_from.size
                                                                     : before_to.capacity;
  if (after_to.size != before_from.size || after_to.capacity != expected_capacity ||
      !after_to.host_current || after_to.device_current) {
    violation(call,
              "left the destination of size %zu, capacity %zu, current host %d device %d; "
              "expected size %zu, capacity %zu, the host only",
              after_to.size, after_to.capacity, after_to.host_current, after_to.device_current,
              before_from.size, expected_capacity);
  }
  if (after_from.size != before_from.size || after_from.capacity != before_from.capacity ||
      after_from.host_current != before_from.host_current ||
      after_from.device_current != before_from.device_current ||
      after_from.host_allocated != before_from.host_allocated ||
      after_from.device_allocated != before_from.device_allocated) {
    violation(call, "changed the source's record");
  }
  const int none[2] = {0, 0};
  const int read_back[2] = {before_from.size > 0 && !before_from.host_current, 0};
  check_moves_added(call, to, &before_to, none);
  check_moves_added(call, from, &before_from, read_back);
  size_t known = membufs[from].known;
  memcpy(membuf_shadow[to], membuf_shadow[from], known * membufs[from].element_size);
  membufs[to].known = known;
  check_membufs(call);
}

/* ---- the data ---- */

void op_membuf_host(fuzz_run *run) {
  byte_reader *in = &run->in;
  int index = take_slot(in);
  clgpu_membuf *buffer = handle_of(index);
  clgpu_access access = take_access(in);
  int data_given = take_byte(in) % 8 != 0;
  uint8_t seed = take_byte(in);
  unsigned refusals = 0;
  if (!buffer || !valid_access(access) || !data_given) refusals |= REFUSE_INVALID;
  clgpu_membuf_info before = info_before(index);
  char call[160], shown[48];
  snprintf(call, sizeof call, "clgpu_membuf_host(%s, access %d, %s)", slot_word(index, shown),
           (int)access, data_given ? "&data" : "NULL");
  void *data = STALE_DATA;
  prime_last_error();
  clgpu_status status = clgpu_membuf_host(buffer, access, data_given ? &data : NULL);
  check_call(call, status, STATUS_SET(membuf_move_statuses, 1), 0);
  expect_refusals(call, status, refusals);
  if (status != CLGPU_SUCCESS) {
    if (data != STALE_DATA && data != NULL) violation(call, "failed but gave a pointer");
    check_unchanged(call, status, index, &before);
    check_membufs(call);
    return;
  }
  membuf_slot *slot = &membufs[index];
  if (!data || data == STALE_DATA || data != clgpu_membuf_host_pointer(buffer)) {
    violation(call, "gave a pointer that is not the buffer's host side");
  }
  check_moved(call, index, &before, 0, access);
  /* check_moved forgot the contents of a WRITE_ONLY move; the others must
   * have brought back what was written, through the device and back too. */
  check_membufs(call);
  if (access != CLGPU_ACCESS_READ_ONLY) {
    size_t bytes = before.size * slot->element_size;
    write_pattern(data, bytes, seed, index);
    memcpy(membuf_shadow[index], data, bytes);
    slot->known = before.size;
  }
}

void op_membuf_device_array(fuzz_run *run) {
  byte_reader *in = &run->in;
  int index = take_slot(in);
  clgpu_membuf *buffer = handle_of(index);
  clgpu_access access = take_access(in);
  wait_args wait;
  take_wait(in, buffer ? membufs[index].context : world.context, &wait);
  uint8_t flags = take_byte(in);
  int want_event = flags & 1;
  int out_given = (flags & 6) != 6;
  unsigned refusals = 0;
  if (!buffer || !valid_access(access) || wait.bad || !out_given) refusals |= REFUSE_INVALID;
  if (buffer && host_only(index)) refusals |= REFUSE_WRONG_SPACE;
  clgpu_membuf_info before = info_before(index);
  char call[256], shown[48];
  snprintf(call, sizeof call, "clgpu_membuf_device_array(%s, access %d, %u, %s, %s, %s)",
           slot_word(index, shown), (int)access, wait.count,
           wait.foreign ? "other context's list"
           : wait.list  ? "list"
                        : "NULL",
           want_event ? "&event" : "NULL", out_given ? "&out" : "NULL");
  clgpu_array view;
  fill_sentinel(&view);
  cl_event event = STALE_EVENT;
  prime_last_error();
  clgpu_status status = clgpu_membuf_device_array(
      buffer, access, wait.count, wait.list, want_event ? &event : NULL, out_given ? &view : NULL);
  check_call(call, status, STATUS_SET(membuf_move_statuses, 1), 0);
  if (!(wait.foreign && !refusals && is_opencl_code(status))) {
    expect_refusals(call, status, refusals);
  }
  if (status != CLGPU_SUCCESS) {
    check_no_event(call, status, event);
    if (!still_sentinel(&view)) violation(call, "failed but wrote *out");
    check_unchanged(call, status, index, &before);
    check_membufs(call);
    return;
  }
  finish_event(call, want_event, event, index);
  cl_mem memory = clgpu_membuf_device_memory(buffer);
  if (!memory || view.buffer != memory || view.type != membufs[index].type || view.rank != 1 ||
      view.shape[0] != before.size || view.offset != 0 || !clgpu_array_is_contiguous(&view)) {
    violation(call, "gave a view that is not the buffer's %zu elements", before.size);
  }
  clgpu_status checked = clgpu_array_check(&view);
  if (checked != CLGPU_SUCCESS) {
    violation(call, "gave a view that clgpu_array_check refuses with %s",
              clgpu_status_name(checked));
  }
  check_moved(call, index, &before, 1, access);
  check_membufs(call);
}

/* ---- what a buffer is: info, raw sides, names ---- */

void op_membuf_info(fuzz_run *run) {
  byte_reader *in = &run->in;
  int index = take_slot(in);
  clgpu_membuf *buffer = handle_of(index);
  int out_given = take_byte(in) % 4 != 0;
  clgpu_membuf_info info, untouched;
  memset(&info, 0x5a, sizeof info);
  untouched = info;
  char call[128], shown[48];
  snprintf(call, sizeof call, "clgpu_membuf_get_info(%s, %s)", slot_word(index, shown),
           out_given ? "&out" : "NULL");
  prime_last_error();
  clgpu_status status = clgpu_membuf_get_info(buffer, out_given ? &info : NULL);
  check_call(call, status, STATUS_SET(plain_statuses, 0), 0);
  expect_refusals(call, status, !buffer || !out_given ? REFUSE_INVALID : 0);
  if (status != CLGPU_SUCCESS && memcmp(&info, &untouched, sizeof info) != 0) {
    violation(call, "failed but wrote *out");
  }
  prime_last_error();
  if (!buffer && (clgpu_membuf_host_pointer(NULL) || clgpu_membuf_device_memory(NULL))) {
    violation("clgpu_membuf_host_pointer/clgpu_membuf_device_memory", "gave non-NULL for NULL");
  }
  if (buffer) {
    (void)clgpu_membuf_host_pointer(buffer);
    (void)clgpu_membuf_device_memory(buffer);
  }
  check_message_untouched("clgpu_membuf_host_pointer/clgpu_membuf_device_memory");
  check_membufs(call);
}

void op_membuf_name(fuzz_run *run) {
  byte_reader *in = &run->in;
  int index = take_slot(in);
  clgpu_membuf *buffer = handle_of(index);
  int type_name = take_byte(in) % 2;
  char raw[MAX_TEXT + 1];
  const char *text = type_name ? TAKE_TEXT(in, membuf_type_name_words, raw)
                               : TAKE_TEXT(in, membuf_name_words, raw);
  char call[256], shown[48], text_shown[128];
  snprintf(call, sizeof call, "%s(%s, %s)",
           type_name ? "clgpu_membuf_set_type_name" : "clgpu_membuf_set_name",
           slot_word(index, shown), quoted(text, text_shown));
  prime_last_error();
  clgpu_status status =
      type_name ? clgpu_membuf_set_type_name(buffer, text) : clgpu_membuf_set_name(buffer, text);
  check_call(call, status, STATUS_SET(membuf_name_statuses, 0), 0);
  expect_refusals(call, status, buffer ? 0 : REFUSE_INVALID);
  if (status == CLGPU_SUCCESS) {
    if (type_name) {
      membufs[index].named_type = text != NULL;
      copy_text(membuf_type_names[index], text);
    } else {
      copy_text(membuf_names[index], text);
    }
  }
  check_membufs(call);
}

/* ---- move reports ---- */

void op_membuf_report_set(fuzz_run *run) {
  byte_reader *in = &run->in;
  clgpu_context *contexts[] = {world.context, world.other, NULL};
  clgpu_context *context = contexts[take_byte(in) % COUNT_OF(contexts)];
  uint8_t mode = take_byte(in) % 3;
  report_target *target = target_of(context);
  clgpu_move_report_fn callback = mode == 0 ? membuf_report : NULL;
  void *user = mode == 1 ? NULL : (void *)(target ? target : &report_targets[0]);
  char call[160];
  snprintf(call, sizeof call, "clgpu_membuf_set_move_report(%s, %s, %s)",
           !context                 ? "NULL"
           : context == world.other ? "other ctx"
                                    : "ctx",
           callback ? "callback" : "NULL", user ? "&target" : "NULL");
  prime_last_error();
  clgpu_status status = clgpu_membuf_set_move_report(context, callback, user);
  check_call(call, status, STATUS_SET(plain_statuses, 0), 0);
  expect_refusals(call, status, context ? 0 : REFUSE_INVALID);
  if (status == CLGPU_SUCCESS) target->on = callback != NULL;
  check_membufs(call);
}

/* The line the header describes, built from its words. */
static void expected_line(uint64_t bytes, clgpu_space to, const char *type_name, const char *name,
                          char *out, size_t size) {
  static const char *const units[] = {"B", "KB", "MB", "GB"};
  double value = (double)bytes;
  unsigned unit = 0;
  for (; unit < 3 && value >= 1024.0; unit++) value /= 1024.0;
  size_t used = (size_t)snprintf(out, size, "Moved %6.1f %s to the %s: %s", value, units[unit],
                                 to == CLGPU_SPACE_HOST ? "HOST" : "DEVICE", type_name);
  if (name && *name && used < size) snprintf(out + used, size - used, " %s", name);
}

void op_membuf_report_format(fuzz_run *run) {
  byte_reader *in = &run->in;
  uint64_t bytes;
  switch (take_byte(in) % 8) {
    case 0:
      bytes = take_byte(in);
      break;
    case 1:
      bytes = 1023 + take_byte(in) % 3;
      break;
    case 2:
      bytes = (uint64_t)1 << (take_byte(in) % 64);
      break;
    case 3:
      bytes = UINT64_MAX - take_byte(in);
      break;
    case 4:
      bytes = take_u64(in);
      break;
    case 5:
      bytes = ((uint64_t)1 << 20) * take_byte(in) - take_byte(in) % 2;
      break;
    case 6:
      bytes = 0;
      break;
    default:
      bytes = ((uint64_t)1 << 30) * take_byte(in);
      break;
  }
  clgpu_space to = take_space(in);
  char raw_type[MAX_TEXT + 1], raw_name[MAX_TEXT + 1];
  const char *type_name = TAKE_TEXT(in, membuf_type_name_words, raw_type);
  const char *name = TAKE_TEXT(in, membuf_name_words, raw_name);
  uint8_t size_mode = take_byte(in) % 4;
  size_t size = size_mode == 2 ? take_byte(in) % 80 : size_mode == 3 ? FORMAT_ROOM : 0;
  char *text = size_mode == 0 ? NULL : format_text;
  memset(format_text, CANARY, sizeof format_text);
  char call[320], type_shown[128], name_shown[128];
  snprintf(call, sizeof call, "clgpu_move_report_format(%llu, %d, %s, %s, %s, %zu)",
           (unsigned long long)bytes, (int)to, quoted(type_name, type_shown),
           quoted(name, name_shown), text ? "text" : "NULL", size);
  prime_last_error();
  size_t needed = clgpu_move_report_format(bytes, to, type_name, name, text, size);
  size_t full =
      clgpu_move_report_format(bytes, to, type_name, name, format_full, sizeof format_full);
  check_message_untouched(call);
  if (needed != full || full >= sizeof format_full || strlen(format_full) != full) {
    violation(call, "needs %zu bytes one time and %zu another", needed, full);
  }
  if (strncmp(format_full, "Moved ", 6) != 0) violation(call, "does not start with \"Moved \"");
  if (valid_space(to) && type_name) {
    expected_line(bytes, to, type_name, name, format_expected, sizeof format_expected);
    if (strcmp(format_full, format_expected) != 0) {
      char shown[128], expected[128];
      violation(call, "gave %s, the header describes %s", quoted(format_full, shown),
                quoted(format_expected, expected));
    }
  }
  size_t written = text ? size : 0;
  for (size_t i = written; i < sizeof format_text; i++) {
    if ((unsigned char)format_text[i] != CANARY)
      violation(call, "wrote byte %zu, past the size", i);
  }
  if (written == 0) return;
  size_t kept = full < size - 1 ? full : size - 1;
  if (memchr(format_text, '\0', size) != format_text + kept ||
      memcmp(format_text, format_full, kept) != 0) {
    violation(call, "did not cut the line to its first %zu bytes and a NUL", kept);
  }
}
