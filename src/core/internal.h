/* Internal declarations shared by the files of src/. Not installed. */
#ifndef CLGPU_SRC_INTERNAL_H
#define CLGPU_SRC_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <clgpu/clgpu.h>

#if defined(__GNUC__) || defined(__clang__)
#define CLGPU__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLGPU__PRINTF(f, a)
#endif

/* ---- errors (status.c) ---- */

/* Record `status` with a detail message on this thread and return it. */
clgpu_status clgpu__fail(clgpu_status status, const char *format, ...) CLGPU__PRINTF(2, 3);

/* The same from a va_list. */
clgpu_status clgpu__vfail(clgpu_status status, const char *format, va_list args);

/* Append text to this thread's detail message (after a clgpu__fail). */
void clgpu__append_error(const char *format, ...) CLGPU__PRINTF(1, 2);

/* Record an OpenCL failure of `what` (the call that failed) and return it. */
clgpu_status clgpu__fail_cl(cl_int status, const char *what);

#define CLGPU__RETURN_ERROR_IF(condition, status, ...)        \
  do {                                                        \
    if (condition) return clgpu__fail((status), __VA_ARGS__); \
  } while (0)

#define CLGPU__FORWARD_IF_ERROR(expression)                           \
  do {                                                                \
    clgpu_status forwarded_status_ = (expression);                    \
    if (forwarded_status_ != CLGPU_SUCCESS) return forwarded_status_; \
  } while (0)

/* ---- fault injection for tests (fault.c) ---- */

/* Kinds of fault point: creating an OpenCL object (context, queue, buffer,
 * program, kernel), building a program, enqueueing a command. */
enum {
  CLGPU__FAULT_CREATE = 1u,
  CLGPU__FAULT_BUILD = 2u,
  CLGPU__FAULT_ENQUEUE = 4u,
  CLGPU__FAULT_ALL = 7u,
};

/* The status an injected fault reports. */
#define CLGPU__INJECTED_STATUS CL_OUT_OF_RESOURCES

/* Make the n-th fault point (1-based) of the given kinds fail, once. */
void clgpu__fault_arm(unsigned kinds, long n);
void clgpu__fault_disarm(void);
/* Fault points of the armed kinds passed since arming. */
long clgpu__fault_points_seen(void);
/* At a fault point: 1 when this call must fail. */
int clgpu__fault_hit(unsigned kind);

/* ---- environment variables (environment.c) ---- */

/* The largest CLGPU_COPY_CHUNK (elements per work-item) and
 * CLGPU_COPY_GROUP (work-items per group, then lowered to what the kernel
 * allows) that are accepted. */
#define CLGPU__COPY_CHUNK_MAX ((cl_ulong)1 << 31)
#define CLGPU__COPY_GROUP_MAX ((cl_ulong)1 << 16)

typedef struct clgpu__environment {
  cl_ulong copy_chunk; /* 0: the device's choice */
  cl_ulong copy_group; /* 0: the device's choice */
  int disk_cache;      /* CLGPU_DISK_CACHE: -1 unset, 0 off, 1 on */
} clgpu__environment;

/* Read and check every variable a context uses; CLGPU_INVALID_ARGUMENT
 * naming `who`, the variable and its value when one is set to a value it
 * does not take. */
clgpu_status clgpu__read_environment(clgpu__environment *out, const char *who);

/* ---- hashing (sha256.c) ---- */

typedef struct clgpu__sha256 {
  uint32_t state[8];
  uint64_t length;
  unsigned char block[64];
  size_t used;
} clgpu__sha256;

void clgpu__sha256_init(clgpu__sha256 *hash);
void clgpu__sha256_update(clgpu__sha256 *hash, const void *data, size_t size);
void clgpu__sha256_final(clgpu__sha256 *hash, unsigned char digest[32]);
/* Lower-case hex of a 32-byte digest into 65 bytes. */
void clgpu__sha256_hex(const unsigned char digest[32], char hex[65]);

/* ---- quirks (quirks.c) ---- */

typedef struct clgpu__quirks {
  /* Whether CLGPU_DISK_CACHE_DEFAULT turns the disk cache on. */
  int disk_cache_by_default;
  /* Upper bound on the work-group size clgpu's kernels use on this device. */
  size_t work_group_cap;
  /* Whether the compiler crashes on some build options the allow-list
   * passes: then a "-D" reaches it joined to the name after it ("-D X" as
   * "-DX"), and options holding a double quote are refused. */
  int fragile_build_options;
  /* 0, or the most loop iterations one work-item may run in one kernel,
   * summed over every loop of the kernel (an inner loop's iterations
   * counted each time): past it the device leaves its loops early and the
   * results are wrong. Kernels whose work per item grows with n (the
   * CHUNKED sorts) size that work to stay below it. */
  uint64_t loop_iteration_cap;
} clgpu__quirks;

void clgpu__quirks_for(const clgpu_device_info *info, clgpu__quirks *quirks);

/* ---- the tuning table (tuning.c): the numbers that shape plans ---- */

typedef struct clgpu__tuning {
  const char *device_class;
  cl_device_type device_types; /* the row serves devices of these types */
  /* Reductions, scans, findall, count_if (ops/shape.c). */
  uint64_t chunk_unit;
  uint64_t chunk_minimum;
  unsigned chunked_chunks_per_unit;
  unsigned tile_items;
  unsigned tiled_minimum_tiles;
  size_t tiled_group_cap;
  unsigned tiled_chunks_per_unit;
  uint64_t tiled_chunks_cap;
  /* Sorts (ops/sort.c). */
  uint64_t sort_single_chunk;
  uint64_t sort_chunk_minimum;
  unsigned sort_chunked_digit_max;
  unsigned radix_items;
  size_t sort_group_cap;
  unsigned sort_single_tiles;
  unsigned merge_block;
  /* Elementwise kernels (ops/elementwise.c). */
  unsigned block;
  uint64_t blocking_floor;
} clgpu__tuning;

/* The row of the tuning table for a device (never NULL). */
const clgpu__tuning *clgpu__tuning_for(const clgpu_device_info *info);

/* ---- device facts (device.c) ---- */

clgpu_status clgpu__read_device_info(cl_platform_id platform, cl_device_id device,
                                     clgpu_device_info *info, char **extensions);

/* The process-wide lock around platform and device enumeration, device
 * queries and context creation (device.c says why). Not recursive. */
void clgpu__platform_lock(void);
void clgpu__platform_unlock(void);

/* ---- program cache (program_cache.c) ---- */

typedef struct clgpu__program_cache clgpu__program_cache;

clgpu_status clgpu__program_cache_create(clgpu__program_cache **out);
void clgpu__program_cache_destroy(clgpu__program_cache *cache);

/* ---- disk cache (disk_cache.c) ---- */

/* Resolve the folder a context uses: NULL when off. `from_environment` is
 * CLGPU_DISK_CACHE as clgpu__read_environment parsed it. Creates the folder (and
 * its parents); NULL when that fails. The result is malloc'd. */
char *clgpu__disk_cache_folder(const char *option, clgpu_disk_cache_mode mode, int from_environment,
                               const clgpu__quirks *quirks);

/* Load a binary for `key` from `folder`. Returns 1 and a malloc'd binary when
 * a valid file is there, 0 when there is none, -1 when a file is there but
 * is unusable (truncated, corrupt, foreign). */
int clgpu__disk_cache_load(const char *folder, const char *key, unsigned char **binary,
                           size_t *size);

/* Store a binary for `key` atomically. Returns 1 on success, 0 when the file
 * could not be written (never an error for the caller). */
int clgpu__disk_cache_store(const char *folder, const char *key, const unsigned char *binary,
                            size_t size);

/* What reading a file in a folder others may write found. */
typedef enum clgpu__file_result {
  CLGPU__FILE_READ = 0,
  CLGPU__FILE_MISSING,     /* no such file (or a path through a non-folder) */
  CLGPU__FILE_NOT_REGULAR, /* a folder, FIFO, device, socket; a link when links are refused */
  CLGPU__FILE_TOO_LARGE,   /* more than the limit */
  CLGPU__FILE_UNREADABLE,  /* opening or reading failed */
  CLGPU__FILE_NO_MEMORY,
} clgpu__file_result;

/* Read a regular file whole, never blocking on what sits at `path` (a FIFO)
 * and never reading more than `limit` bytes (a link to /dev/zero is refused,
 * a file above the limit too). `follow_links` 0 refuses a symbolic link at
 * the path itself. On CLGPU__FILE_READ, *data is malloc'd, NUL-terminated
 * after its *size bytes; otherwise *data is NULL and `reason` (if not NULL)
 * says what was found ("a FIFO", "70000000 bytes", strerror's text). */
clgpu__file_result clgpu__read_regular_file(const char *path, size_t limit, int follow_links,
                                            unsigned char **data, size_t *size, char *reason,
                                            size_t reason_size);

/* ---- kernel sources (kernel_source.c and the generated table) ---- */

typedef struct clgpu__embedded_source {
  const char *name;
  const unsigned char *text; /* NUL-terminated */
  size_t length;
  unsigned char digest[32]; /* SHA-256 of the text, computed at build time */
} clgpu__embedded_source;

extern const clgpu__embedded_source clgpu__embedded_sources[];
extern const size_t clgpu__embedded_source_count;

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

/* The embedded source named `name`, or NULL in *found when CLGPU_KERNEL_DIR
 * is set (the caller reads the folder instead). Errors:
 * CLGPU_INVALID_ARGUMENT (not a valid stem), CLGPU_KERNEL_SOURCE_NOT_FOUND. */
clgpu_status clgpu__find_embedded_source(const char *name, const clgpu__embedded_source **found);

/* ---- event chains (chain.c) ---- */

/* A sequence of commands each waiting for the one before: the first waits
 * for the caller's wait list, the caller's event is the last one's. Right on
 * out-of-order queues too. */
typedef struct clgpu__chain {
  cl_uint num_events;
  const cl_event *wait_list;
  cl_event last; /* NULL before the first command */
  int started;
} clgpu__chain;

void clgpu__chain_begin(clgpu__chain *chain, cl_uint num_events, const cl_event *wait_list);
/* What the next command waits for. */
cl_uint clgpu__chain_wait_count(const clgpu__chain *chain);
const cl_event *clgpu__chain_wait_list(const clgpu__chain *chain);
/* Record the event of the command just enqueued (takes ownership). */
void clgpu__chain_push(clgpu__chain *chain, cl_event event);
/* Enqueue a kernel as the chain's next command (a fault point). */
clgpu_status clgpu__chain_kernel(clgpu_context *context, clgpu__chain *chain, cl_kernel kernel,
                                 size_t global, size_t local, const char *what);
/* Hand the last event to the caller (a marker when nothing was enqueued
 * and an event is wanted), or release it. */
clgpu_status clgpu__chain_end(clgpu_context *context, clgpu__chain *chain, cl_event *event);
/* Drop the chain after a failure. */
void clgpu__chain_abandon(clgpu__chain *chain);

/* Kernel arguments from index `first` on, naming `what` in the message of
 * a failure. */
typedef struct clgpu__kernel_arg {
  size_t size;
  const void *value;
} clgpu__kernel_arg;
#define CLGPU__ARG(x) \
  { sizeof(x), &(x) }
clgpu_status clgpu__set_args(cl_kernel kernel, cl_uint first, const clgpu__kernel_arg *args,
                             cl_uint count, const char *what);

/* "uchar", "ushort", "uint" or "ulong": the OpenCL C unsigned integer of
 * 1, 2, 4 or 8 bytes (ulong for any other size). */
const char *clgpu__unsigned_type(size_t size);

/* The work-group size the wide (TILED) kernels may use on the context's
 * device: `cap`, lowered to the quirks table's cap, the device's maximum
 * work-group size and its first work-item dimension. */
size_t clgpu__work_group_limit(const clgpu_context *context, size_t cap);

/* ---- kernel leases (lease.c) ---- */

/* Set the kernel's buffer arguments (bit i of `buffer_args`: argument i)
 * to NULL before it goes back to the cache, so that no cached kernel keeps
 * a caller's cl_mem alive. Every family gives its kernels back through
 * this, mostly by clgpu__leases_give_back. */
void clgpu__kernel_clear_buffers(cl_kernel kernel, uint64_t buffer_args);
#define CLGPU__BUFFER_ARG(i) ((uint64_t)1 << (i))

/* The kernels one call leases, given back together. */
#define CLGPU__MAX_LEASES 8
typedef struct clgpu__leases {
  clgpu_program *programs[CLGPU__MAX_LEASES];
  cl_kernel kernels[CLGPU__MAX_LEASES];
  uint64_t buffer_args[CLGPU__MAX_LEASES];
  unsigned count;
} clgpu__leases;

/* Lease kernel `name` of `program` into `held`; `buffer_args` marks its
 * buffer arguments (CLGPU__BUFFER_ARG bits), cleared when given back. */
clgpu_status clgpu__lease(clgpu__leases *held, clgpu_program *program, const char *name,
                          uint64_t buffer_args, cl_kernel *out);
/* Give back every kernel of `held`, its buffer arguments cleared. */
void clgpu__leases_give_back(clgpu__leases *held);

/* ---- workspaces (workspace.c) ---- */

void clgpu__report_init(clgpu_workspace_size *report);
/* Add a part; returns its index. */
unsigned clgpu__report_part(clgpu_workspace_size *report, clgpu_operation operation,
                            clgpu_shape shape, clgpu_algorithm algorithm, int parent);
/* Add a buffer to a part; returns its index. */
unsigned clgpu__report_buffer(clgpu_workspace_size *report, unsigned part, const char *name,
                              clgpu_type type, uint64_t count);
/* Lay the buffers out, each at a multiple of the device's alignment.
 * CLGPU_SIZE_OVERFLOW, naming `who` and the buffer, when a buffer's bytes,
 * its offset or the total do not fit in 64 bits (the report is then not to
 * be used). */
clgpu_status clgpu__report_finish(clgpu_workspace_size *report, const clgpu_context *context,
                                  const char *who);

/* The scratch memory of one call: the caller's workspace, checked against
 * what the call needs, or a temporary buffer. */
typedef struct clgpu__scratch {
  cl_mem buffer;               /* NULL when nothing is needed */
  size_t base;                 /* byte offset of the workspace in buffer */
  clgpu_workspace_size layout; /* offsets used (the workspace's own when given) */
  cl_mem temporary;            /* what to give back, or NULL */
} clgpu__scratch;

/* An argument of the call, for the overlap check. */
typedef struct clgpu__argument {
  const clgpu_array *array; /* NULL entries are skipped */
  const char *name;
} clgpu__argument;

/* The report the last call on this thread planned (recorded when it reached
 * its workspace), or NULL after clgpu__forget_last_call_report; for tests. */
const clgpu_workspace_size *clgpu__last_call_report(void);
void clgpu__forget_last_call_report(void);
clgpu_status clgpu__scratch_acquire(clgpu_context *context, const clgpu_workspace_size *needed,
                                    clgpu_workspace *workspace, const clgpu__argument *arguments,
                                    size_t num_arguments, const char *who, clgpu__scratch *out);
/* Buffer `index` of the layout: its cl_mem and its byte offset there. */
void clgpu__scratch_slot(const clgpu__scratch *scratch, unsigned index, cl_mem *buffer,
                         size_t *byte_offset);
void clgpu__scratch_release(clgpu_context *context, clgpu__scratch *scratch);

/* "(3, 4, 5)" for messages; "()" for rank 0. */
void clgpu__describe_shape(const clgpu_array *array, char *text, size_t size);

/* The root buffer of a view and the element offset of its element (0, ...)
 * from the root's start. */
clgpu_status clgpu__array_root(const clgpu_array *array, cl_mem *root, cl_ulong *element_offset);

/* ---- the context ---- */

struct clgpu_context {
  cl_platform_id platform;
  cl_context cl_context;
  cl_device_id device;
  cl_command_queue queue;
  clgpu_device_info info;
  char *extensions;
  clgpu__quirks quirks;
  const clgpu__tuning *tuning; /* the tuning table's row for the device */
  char *cache_folder;          /* NULL: no disk cache */
  clgpu__program_cache *programs;
  /* CLGPU_COPY_CHUNK and CLGPU_COPY_GROUP, read once (0: the device's choice). */
  cl_ulong copy_chunk;
  cl_ulong copy_group;
  /* The built-in elementwise kernels (elementwise_ops.c), made on first use
   * and destroyed with the context; the lock guards the list. */
  struct clgpu__builtin *builtins;
  pthread_mutex_t builtins_lock;
  int builtins_lock_ready;
  /* The move-report callback of membuf.h: membuf.c's default until
   * clgpu_membuf_set_move_report sets one (NULL for off);
   * builtins_lock guards it too. */
  clgpu_move_report_fn move_report;
  void *move_report_user;
  int move_report_set;
  /* Set by elementwise_ops.c with its first built-in kernel: frees them
   * when the context goes (the context does not call the layer above). */
  void (*builtins_teardown)(clgpu_context *context);
  /* References beyond the first, which is the caller's and needs no count
   * (so a context fresh from calloc holds exactly one): each open allocation
   * scope holds one. The last clgpu__context_release frees the context. */
  atomic_size_t extra_references;
  /* Counted among the live contexts over its cl_context (context.c). */
  int live;
};

/* Take or drop a reference to a context (context.c). Dropping the last one
 * frees the context; never call it with a cache's or the registry's lock
 * held, since freeing gives the context's free blocks back to every cache. */
void clgpu__context_retain(clgpu_context *context);
void clgpu__context_release(clgpu_context *context);

/* Release the free blocks of `cl_context` from every allocation cache
 * (alloc_cache.c), when the last clgpu_context on it that a cache can know
 * of goes. Blocks still handed out are left alone. */
void clgpu__alloc_drop_context(cl_context owner);

/* Register what runs when the last clgpu context over a cl_context is
 * freed (alloc_cache.c registers clgpu__alloc_drop_context). */
void clgpu__context_on_last_wrapper_gone(void (*hook)(cl_context));

/* Call the context's move report for one copy of a buffer (membuf.c). */
void clgpu__report_move(clgpu_context *context, const clgpu_membuf *buffer, uint64_t bytes,
                        clgpu_space to);

/* clgpu_fill over a layout clEnqueueFillBuffer cannot express: the
 * context's built-in fill kernel over the view seen as unsigned integers of
 * its element size. The caller has checked the arguments. */
clgpu_status clgpu__fill_strided(clgpu_context *context, const clgpu_array *destination,
                                 const void *value, cl_uint num_events, const cl_event *wait_list,
                                 cl_event *event);

/* Milliseconds from a monotonic clock. */
double clgpu__now_ms(void);

/* Pin a block that clgpu_buffer_create handed out in a cached scope
 * (alloc_cache.c), for a holder that outlives scopes (a workspace): the
 * scope's end no longer takes it back, and it stays the holder's until
 * clgpu_buffer_release. If its cache is destroyed, or the last clgpu
 * context on its OpenCL context is freed, before that release, the block is
 * detached from the cache and its buffer becomes a plain one that the
 * release frees. Any other buffer is left as it is. */
void clgpu__buffer_pin(cl_mem buffer);

/* ---- user text and user names (expression.c) ---- */

/* What a piece of the caller's OpenCL C text is; it decides the rules. */
typedef enum clgpu__text_kind {
  /* One expression, pasted as a #define value inside the library's
   * parentheses: reduce, scan, findall and count_if expressions, sort
   * comparators. No comments, no ';', no '#'. */
  CLGPU__TEXT_EXPRESSION,
  /* Statements inside a block of the kernel (elementwise operations):
   * ';' and closed comments allowed, #pragma lines only, no "return". */
  CLGPU__TEXT_STATEMENTS,
  /* File-scope declarations (elementwise preambles, sort declarations):
   * as statements, and "return" allowed; may be blank. */
  CLGPU__TEXT_DECLARATIONS,
  /* A type name (sort key_type): words of letters, digits and '_'. */
  CLGPU__TEXT_TYPE_NAME,
} clgpu__text_kind;

/* The length caps, in bytes, documented in the public headers. */
#define CLGPU__EXPRESSION_LIMIT 65536
#define CLGPU__DECLARATIONS_LIMIT 1048576
size_t clgpu__user_text_limit(clgpu__text_kind kind);

/* Check text of `kind` that the caller passed as `name` to `who`: at most
 * the kind's length cap (CLGPU_EXPRESSION_TOO_LONG), then brackets
 * balanced and in order, literals closed on their line, no trigraph,
 * digraph or line-splicing backslash, no identifier starting with clgpu_
 * or CLGPU_, and the kind's rules above (CLGPU_INVALID_ARGUMENT, the
 * message naming `name`, the byte offset and what is there). */
clgpu_status clgpu__check_user_text(const char *text, clgpu__text_kind kind, const char *who,
                                    const char *name);

/* A checked expression as one line for a #define value, in parentheses,
 * line breaks and tabs made spaces; malloc'd, NULL when out of memory. */
char *clgpu__expression_line(const char *text);

/* Whether `name` is a C identifier. */
int clgpu__is_identifier(const char *name);
/* A letter, digit or underscore. */
int clgpu__is_identifier_char(char c);

/* A name the caller chooses for something the library declares in a
 * kernel (an elementwise argument): an identifier of at most `limit`
 * characters that no OpenCL C keyword, type, built-in function or macro,
 * reserved prefix or library name takes (CLGPU_INVALID_ARGUMENT naming
 * `what` and the name). */
clgpu_status clgpu__check_user_name(const char *name, size_t limit, const char *who,
                                    const char *what);

/* ---- overflow-checked size arithmetic ---- */

/* Every size, count and byte computation of a plan or a workspace report
 * goes through these, so that a size that cannot be represented becomes
 * CLGPU_SIZE_OVERFLOW instead of a wrapped number. Each returns 1 and
 * writes *out, or returns 0 and leaves *out alone when the result does not
 * fit in 64 bits. */
static inline int clgpu__add_u64(uint64_t a, uint64_t b, uint64_t *out) {
  if (a > UINT64_MAX - b) return 0;
  *out = a + b;
  return 1;
}

static inline int clgpu__mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
  if (b != 0 && a > UINT64_MAX / b) return 0;
  *out = a * b;
  return 1;
}

/* a rounded up to a multiple of `multiple` (nonzero). */
static inline int clgpu__round_up_u64(uint64_t a, uint64_t multiple, uint64_t *out) {
  uint64_t remainder = a % multiple;
  if (remainder == 0) {
    *out = a;
    return 1;
  }
  return clgpu__add_u64(a, multiple - remainder, out);
}

/* The ceiling of a / b (b nonzero); never wraps, unlike (a + b - 1) / b. */
/* |value| as an unsigned number, right for the most negative value too: the
 * size of a stride in elements. */
static inline uint64_t clgpu__magnitude(ptrdiff_t value) {
  return value >= 0 ? (uint64_t)value : (uint64_t)(-(value + 1)) + 1u;
}

static inline uint64_t clgpu__ceil_div_u64(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

/* Internal twins of public functions (the public one is a wrapper): the
 * library calls these, never its own public entry points. */
size_t clgpu__type_size(clgpu_type type);
/* CLGPU_SUCCESS for a type operations compute on; CLGPU_TYPE_MISMATCH for
 * CLGPU_TYPE_OPAQUE and CLGPU_INVALID_ARGUMENT for an unknown type, the
 * message naming `what` (such as "the input"). */
clgpu_status clgpu__check_arithmetic_type(clgpu_type type, const char *who, const char *what);
const char *clgpu__type_cl_name(clgpu_type type);
size_t clgpu__array_count(const clgpu_array *array);
int clgpu__array_is_contiguous(const clgpu_array *array);
int clgpu__array_same(const clgpu_array *a, const clgpu_array *b);
int clgpu__may_alias(const clgpu_array *a, const clgpu_array *b);
clgpu_status clgpu__array_check(const clgpu_array *array);
clgpu_status clgpu__array_nd(cl_mem buffer, size_t offset, clgpu_type type, unsigned rank,
                             const size_t *shape, clgpu_order order, clgpu_array *out);
clgpu_status clgpu__array_1d(cl_mem buffer, size_t offset, clgpu_type type, size_t n,
                             clgpu_array *out);
clgpu_status clgpu__array_reinterpret(const clgpu_array *in, clgpu_type type, clgpu_array *out);
clgpu_status clgpu__array_permute(const clgpu_array *in, const unsigned *axes, clgpu_array *out);
clgpu_status clgpu__array_location(const clgpu_array *array, clgpu_location *out);
const char *clgpu__status_name(cl_int status);
const char *clgpu__last_error(void);
clgpu_status clgpu__buffer_create(clgpu_context *context, cl_mem_flags flags, size_t size,
                                  cl_mem *out);
void clgpu__buffer_release(clgpu_context *context, cl_mem buffer);
clgpu_status clgpu__device_select(const char *selector, cl_platform_id *platform,
                                  cl_device_id *device);

clgpu_status clgpu__kernel_acquire(clgpu_program *program, const char *kernel_name,
                                   cl_kernel *kernel);
void clgpu__kernel_release(clgpu_program *program, cl_kernel kernel);
clgpu_status clgpu__program_get_named(clgpu_context *ctx, const char *name,
                                      const clgpu_define *defines, size_t num_defines,
                                      const char *options, clgpu_program **out);
clgpu_status clgpu__program_get(clgpu_context *ctx, const char *source, const clgpu_define *defines,
                                size_t num_defines, const char *options, clgpu_program **out);
clgpu_status clgpu__kernel_source(const char *name, char **source, size_t *length);
clgpu_status clgpu__iota(clgpu_context *context, const clgpu_array *out, const void *start,
                         const void *step, cl_uint num_events, const cl_event *wait_list,
                         cl_event *event);

#endif
