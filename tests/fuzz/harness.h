/* A libFuzzer target for the public API's argument checks. The input bytes
 * are decoded into a sequence of calls with hostile arguments, and every call
 * is held to what its header promises: no crash, no sanitizer report, only a
 * status the header documents for that function, a detail message on every
 * failure (and an untouched one on success), and no change to anything the
 * call should leave alone. A violation prints what happened and aborts, which
 * libFuzzer reports as a crash and which makes tests/fuzz_replay.c, the
 * driver that replays the checked-in corpus as an ordinary test, fail.
 *
 * The input format, so that corpus files can be written by hand: a sequence
 * of operations, each an opcode byte (taken modulo OP_COUNT, see the enums
 * and dispatch tables in harness.c; the byte 0xfe instead escapes to the array, copy and allocation
 * operations and the byte 0xfd to the operations on buffers across memory
 * spaces, and the byte 0xfc to the algorithms, elementwise kernels and
 * workspaces, each escape's sub-opcode byte following) followed by the bytes
 * its arguments take, in the order each op_* function reads them. Running out
 * of bytes reads zeros. A string argument starts with a byte B: 0 is NULL, 1
 * to 127 is B - 1 raw bytes (at most 64) that follow, and 128 and up is entry
 * B - 128 (modulo its size) of that argument's dictionary.
 *
 * One context made on first use serves every input, with one program built
 * from a fixed source, so that most inputs run in microseconds. Calls that
 * could reach the OpenCL compiler are bounded: a handful of fixed requests
 * build once and are then served from memory, and after NOVEL_BUILD_BUDGET
 * builds of other requests the fuzzer spoils every further such request with
 * a refused build option, so that it does not spend its time in POCL's
 * compiler.
 *
 * The target is a harness and one file of operations per API family:
 * harness.c reads the input, keeps the long-lived state, checks every call's
 * status and detail message, and maps opcodes to operations;
 * harness_algo.c and harness_membuf.c hold what the algorithm and membuf
 * operations share (their buffers, models and checks); each ops_*.c holds
 * one family's op_* functions, except ops_opaque.c, whose one operation
 * calls every family with opaque views. This header is what they share. */
#ifndef FUZZ_HARNESS_H
#define FUZZ_HARNESS_H

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <clgpu/clgpu.h>

/* The entry points libFuzzer calls, and the device the replay driver prints
 * (tests/fuzz_replay.c). */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const clgpu_device_info *fuzz_api_device_info(void);
void fuzz_api_teardown(void);

/* Bounds that keep one input cheap and its effects small. */
#define MAX_TEXT 64
#define MAX_LEASES 16
#define MAX_STALE 8
#define POOL_SIZE 8
#define LONG_LENGTH 300
#define HUGE_LENGTH 20000
#define KNOWN_VARIANTS 15
#define CACHE_PATH_CHOICES 12

/* ---- the long-lived state ---- */

/* Everything made once per process. Programs stay valid until their context
 * is destroyed, so pointers to them can be kept across inputs. */
typedef struct fuzz_world {
  int ready;
  char *scratch;           /* the private temporary folder; nothing is written elsewhere */
  clgpu_context *context;  /* the context every program call uses */
  clgpu_context *other;    /* a second context on the same device */
  clgpu_program *program;  /* the fixed source, no defines, no options: has kernel "k" */
  cl_device_id sub_device; /* a sub-device with a context and queue of its own, when */
  cl_context sub_context;  /* the device can be partitioned; NULL otherwise */
  cl_command_queue sub_queue;
  char *listing; /* the full device listing, for clgpu_device_list's prefixes */
  size_t listing_length;
  char sentinel[512]; /* the message the priming failure leaves */
  char *cache_paths[CACHE_PATH_CHOICES];
  clgpu_program *pool[POOL_SIZE]; /* programs the kernel operations lease from */
  size_t pool_count;
  unsigned novel_builds;
  int variant_built[KNOWN_VARIANTS];
  clgpu_cache_stats last_stats;
} fuzz_world;

/* ---- reading the input ---- */

typedef struct byte_reader {
  const uint8_t *data;
  size_t size;
  size_t used;
} byte_reader;

#define COUNT_OF(array) (sizeof(array) / sizeof((array)[0]))
#define TAKE_TEXT(in, dictionary, buffer) \
  take_text((in), (dictionary), COUNT_OF(dictionary), (buffer))

/* ---- the contract every call is held to ---- */

typedef struct status_set {
  const clgpu_status *codes;
  size_t count;
  int opencl_codes; /* the header also allows "OpenCL's codes" */
} status_set;

#define STATUS_SET(array, opencl) ((status_set){(array), COUNT_OF(array), (opencl)})

#define MAX_ROOT_BYTES 8192

/* The buffers views are made over. A sub-buffer's root is its parent. */
enum { BUF_SMALL, BUF_LARGE, BUF_PARENT, BUF_SUB, BUF_READ_ONLY, BUF_FOREIGN, BUF_COUNT };

typedef struct array_world {
  cl_mem buffers[BUF_COUNT];
  size_t sizes[BUF_COUNT];
  int roots[BUF_COUNT];      /* the index of each buffer's root */
  size_t origins[BUF_COUNT]; /* the byte offset of each buffer in its root */
  cl_event done;             /* a completed user event, for wait lists */
  clgpu_alloc_cache *cache;
  cl_ulong max_alloc;
} array_world;

/* ---- the independent model of a view ---- */

/* What the fuzzer itself computes about a view: whether it is valid (with
 * 128-bit arithmetic, each term saturated far beyond any buffer here), and
 * then its bytes in root coordinates. */
typedef struct view_facts {
  int valid;
  int empty;
  size_t count;
  int root;
  int64_t first; /* bytes from the root's start */
  int64_t end;
  int64_t offset;
} view_facts;

/* ---- the per-input pool of views ---- */

#define VIEW_POOL 12

typedef struct held_buffer {
  clgpu_context *context;
  cl_mem buffer;
  int scope; /* the index of the cached scope that owns it, or -1 */
} held_buffer;

#define MAX_HELD_BUFFERS 8
#define MAX_SCOPES 6

typedef struct array_run {
  clgpu_array views[VIEW_POOL];
  size_t view_count;
  size_t view_next;
  held_buffer held[MAX_HELD_BUFFERS];
  size_t held_count;
  clgpu_context *scopes[MAX_SCOPES];
  int scope_cached[MAX_SCOPES];
  size_t scope_count;
} array_run;

/* ---- one input's state ---- */

typedef struct lease {
  clgpu_program *program;
  cl_kernel kernel;
} lease;

typedef struct fuzz_run {
  byte_reader in;
  lease leases[MAX_LEASES]; /* held: every one is released before the input ends */
  size_t lease_count;
  lease stale[MAX_STALE]; /* released, kept to release again */
  size_t stale_count;
  size_t stale_next;
  int creates;
  array_run pool; /* the views, buffers and scopes of the array operations */
} fuzz_run;

/* ---- copies, checked against a host model ---- */

typedef struct mirrors {
  uint8_t bytes[BUF_COUNT][MAX_ROOT_BYTES];
} mirrors;

#define MEMBUF_SLOTS 4
#define MEMBUF_MAX_COUNT 4096
#define MEMBUF_MAX_BYTES (MEMBUF_MAX_COUNT * 8)
#define FIXED_SLACK 16 /* storage past the largest capacity: canaries, a misaligned start */
#define CANARY 0xa5
#define FORMAT_ROOM (2 * HUGE_LENGTH + 256)
#define SEEN_MEMORIES 16
#define STALE_EVENT ((cl_event)(void *)&not_a_handle)
#define STALE_DATA ((void *)&not_a_handle)

typedef struct membuf_slot {
  clgpu_membuf *buffer; /* NULL: the slot is free (and its handle a zeroed one) */
  clgpu_membuf_kind kind;
  clgpu_context *context; /* NULL: host only */
  clgpu_type type;
  size_t element_size;
  uint8_t *storage; /* a fixed buffer's storage, inside fixed_storage[slot] */
  size_t fixed_capacity;
  size_t known;      /* leading elements whose contents the shadow holds */
  int named_type;    /* a type name was given; otherwise the element type's */
  uint64_t moves[2]; /* the counts as last seen: [0] to the host, [1] to the device */
  uint64_t bytes[2];
  uint64_t reported_moves[2]; /* reports since then */
  uint64_t reported_bytes[2];
  /* Every cl_mem the buffer has shown, retained by the fuzzer: once the
   * buffer has let go of one, the fuzzer's must be its only reference. */
  cl_mem seen[SEEN_MEMORIES];
  size_t seen_count;
} membuf_slot;

/* Where each context's move reports go: the fuzzer's callback, with the
 * address of its entry as the user pointer, or nowhere. */
typedef struct report_target {
  clgpu_context *context;
  int on;
} report_target;

#define ALGO_BYTES 4096
#define ALGO_SPACE_BYTES 65536
#define ALGO_MAX_N 300
#define ALGO_BUILD_BUDGET 40
#define ALGO_WORKSPACES 4
#define ALGO_KERNELS 2

/* The mirrored buffers: A, B and C of ALGO_BYTES, and a write-only one. */
enum { ALG_A, ALG_B, ALG_C, ALG_WRITE_ONLY, ALG_COUNT };

typedef struct algo_world {
  cl_mem buffers[ALG_COUNT];
  size_t sizes[ALG_COUNT];
  cl_mem space; /* where workspaces are wrapped; not mirrored */
  unsigned builds;
  int fp64;
  int fp16;
} algo_world;

/* A workspace an input made, and an elementwise kernel object. */
typedef struct algo_workspace {
  clgpu_workspace *workspace;
  clgpu_context *context;
  cl_mem buffer; /* the region's buffer, as clgpu_workspace_region gives it */
  size_t offset;
  size_t size;
} algo_workspace;

typedef struct algo_kernel {
  clgpu_elementwise *kernel;
  clgpu_context *context;
  int config; /* a fixed configuration, or -1 */
  clgpu_type type;
  size_t num_args;
  clgpu_elementwise_arg args[CLGPU_ELEMENTWISE_MAX_ARGS + 2];
  int checkable; /* fixed names, operation and options: the model knows the result */
} algo_kernel;

/* What a view taken for a call is: one the fuzzer made over a mirrored
 * buffer (valid, its elements known), or something else. */
typedef struct algo_view {
  clgpu_array view;
  const clgpu_array *pointer; /* what the call gets: &view, a pool view, or NULL */
  int made;
  int buffer; /* ALG_* when made */
  size_t count;
} algo_view;

/* What a call would like a view to be: a type, a rank and a shape, and the
 * buffer it would best be in. The bytes may ignore any of it. */
typedef struct view_wish {
  clgpu_type type;
  unsigned rank;
  size_t shape[2];
  int buffer;
} view_wish;

/* ---- wait lists, events, options ---- */

typedef struct algo_wait {
  cl_uint count;
  const cl_event *list;
  int bad;     /* a count without a list or a list without a count */
  int hostile; /* a NULL entry or an event of another context */
  cl_event events[2];
  char word[48];
} algo_wait;

typedef struct expression {
  const char *text;
  int fixed; /* the index in the fixed table, or -1 for a hostile one */
  char buffer[3 * (LONG_LENGTH + 2) + MAX_TEXT];
} expression;

/* ---- the shared ending of every algorithm call ---- */

typedef struct algo_call {
  char text[384];
  const algo_view *views[6];
  size_t view_count;
  int checkable; /* the model in algo_model is the exact expected result */
  int must_fail; /* the arguments break a rule the header states */
  const expression *expressions[4];
  size_t expression_count;
  algo_wait wait;
  int want_event;
  cl_event event;
  int workspace_slot;
  clgpu_cache_stats stats;
} algo_call;

/* Custom key types: the name, its declarations, its size on the device,
 * the comparator, and where the int or float it sorts by lies. */
typedef struct custom_key {
  const char *type;
  const char *declarations;
  size_t size;
  const char *compare;
  int real; /* the sort field is a float, else an int */
} custom_key;

/* ---- harness.c ---- */

/* The long-lived state and the long arguments, filled in at setup. */
extern fuzz_world world;
extern char long_identifier[LONG_LENGTH + 1];
extern char huge_text[HUGE_LENGTH + 1];
extern char long_define_option[LONG_LENGTH + 3];
extern char not_a_handle;

/* Reading the input: running out of bytes reads zeros. */
uint8_t take_byte(byte_reader *in);
uint32_t take_u32(byte_reader *in);
uint64_t take_u64(byte_reader *in);
size_t take_count(byte_reader *in);
int take_int(byte_reader *in);
const char *take_text(byte_reader *in, const char *const *dictionary, size_t count,
                      char buffer[MAX_TEXT + 1]);
extern const char fixed_source[];

/* Reporting, and the contract every call is held to. */
const char *quoted(const char *text, char out[128]);
void violation(const char *call, const char *format, ...);
void setup_failed(const char *what, clgpu_status status);
int is_opencl_code(clgpu_status status);
extern const char sentinel_name[];
extern const clgpu_status plain_statuses[2];
void prime_last_error(void);
void check_call(const char *call, clgpu_status status, status_set set, int may_repeat);
void expect_status(const char *call, clgpu_status status, clgpu_status expected, const char *why);
void check_message_untouched(const char *call);

/* Files and folders under the private temporary folder. */
char *join_path(const char *folder, const char *name);
char *scratch_path(const char *tail);
void write_file(const char *path);
int is_folder(const char *path);

/* Programs and kernel leases. */
void add_to_pool(clgpu_program *program);
void release_lease(fuzz_run *run, size_t index);
void release_all_leases(fuzz_run *run);
clgpu_cache_stats current_stats(void);

/* The buffers views are made over, the model of a view, the view pool, and
 * the host mirrors of the root buffers. */
extern array_world arrays;
cl_mem make_buffer(cl_context context, cl_mem_flags flags, size_t size);
clgpu_type take_type(byte_reader *in);
view_facts facts_of(const clgpu_array *view);
void for_each_element(const clgpu_array *view, const view_facts *facts,
                      void (*visit)(int64_t address, void *state), void *state);
void keep_view(array_run *pool, const clgpu_array *view);
const clgpu_array *take_view(byte_reader *in, const array_run *pool);
void fill_sentinel(clgpu_array *view);
int still_sentinel(const clgpu_array *view);
extern mirrors before_copy, after_copy, model_copy;
void write_roots(uint8_t seed);
void read_roots(void);
void compare_roots(const char *call, const mirrors *expected, const char *what);

/* ---- harness_algo.c: what the algorithm operations share ---- */

extern algo_world algo;
extern uint8_t algo_before[ALG_COUNT][ALGO_BYTES];
extern uint8_t algo_model[ALG_COUNT][ALGO_BYTES];
extern algo_workspace algo_workspaces[ALGO_WORKSPACES];
extern algo_kernel algo_kernels[ALGO_KERNELS];
/* What the status tables are made of: the statuses every algorithm call and
 * size query may give for its arguments, and those a call adds (its
 * workspace, its program's build). */
#define ALGO_ARGUMENT_STATUSES                                                      \
  CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT, CLGPU_TYPE_MISMATCH, CLGPU_SHAPE_MISMATCH, \
      CLGPU_INVALID_OUTPUT, CLGPU_UNSUPPORTED_FEATURE, CLGPU_MISMATCHED_OBJECTS,    \
      CLGPU_MISALIGNED_VIEW, CLGPU_VIEW_OUT_OF_BOUNDS
#define ALGO_CALL_STATUSES                                                                        \
  CLGPU_WORKSPACE_WRONG_DEVICE, CLGPU_WORKSPACE_WRONG_OPERATION, CLGPU_WORKSPACE_WRONG_ALGORITHM, \
      CLGPU_WORKSPACE_TOO_SMALL, CLGPU_WORKSPACE_ALIASES_ARGUMENT, CLGPU_CL_BUILD_PROGRAM_FAILURE
extern const clgpu_status algo_statuses[15];
/* Those of the calls that take a text (CLGPU_EXPRESSION_TOO_LONG) and
 * report sizes past 64 bits (CLGPU_SIZE_OVERFLOW), and of their queries. */
extern const clgpu_status algo_text_statuses[17];
extern const clgpu_status algo_text_query_statuses[11];
/* clgpu_workspace_create's and clgpu_workspace_wrap's. */
extern const clgpu_status workspace_create_statuses[6];
extern const clgpu_status workspace_wrap_statuses[5];
void algo_setup(void);
void algo_teardown(void);
int is_real(clgpu_type type);
int is_signed_type(clgpu_type type);
void store_bits(uint8_t *p, size_t size, uint64_t bits);
int64_t element_int(const uint8_t *p, clgpu_type type);
double element_real(const uint8_t *p, clgpu_type type);
void store_int(uint8_t *p, clgpu_type type, uint64_t value);
void store_real(uint8_t *p, clgpu_type type, double value);
uint64_t order_image(const uint8_t *p, clgpu_type type);
size_t element_offset(const clgpu_array *view, size_t k);
view_wish wish_1d(clgpu_type type, size_t n, int buffer);
clgpu_type take_algo_type(byte_reader *in);
void take_algo_view(byte_reader *in, const array_run *pool, view_wish wish, algo_view *out);
void write_values(const algo_view *view, uint8_t seed, int any_bits);
void algo_write_buffers(uint8_t seed);
void algo_upload(void);
clgpu_context *take_algo_context(byte_reader *in);
clgpu_workspace *take_algo_workspace(byte_reader *in, int *slot);
clgpu_algorithm take_algorithm(byte_reader *in);
clgpu_shape take_shape(byte_reader *in);
const clgpu_call_options *take_call_options(byte_reader *in, clgpu_call_options *storage,
                                            int *slot);
void take_expression(byte_reader *in, const char *const *table, size_t count, expression *out);
void algo_call_init(algo_call *call);
int broadcast_output(const algo_view *view);
void begin_algo_call(algo_call *call, byte_reader *in);
void add_view(algo_call *call, const algo_view *view);
void add_expression(algo_call *call, const expression *taken);
void finish_algo_call(algo_call *call, clgpu_status status, status_set set);
void describe_views(algo_call *call, const char *name);
extern const custom_key custom_keys[6];
void destroy_kernel(int slot);
void destroy_workspace(int slot);
void algo_release_workspaces(void);
/* FUZZ_API_TRACE=1 lists the calls and queries finish_algo_call does not
 * see (as it lists the others) with their status. */
void trace_status(const char *text, clgpu_status status);
/* The contract of a workspace size query, traced: a documented status, no
 * success with out NULL or over arguments its header refuses (`refused`),
 * and the report unwritten by a failure (`before`: its bytes before). */
void check_query(const char *text, clgpu_status status, status_set set, int out_null, int refused,
                 const clgpu_workspace_size *report, const clgpu_workspace_size *before);
/* The elements of a made view, as they are in algo_before, into `out`. */
void gather_view(const algo_view *view, uint8_t *out);
/* A made view of `type` (`rank`, `shape` and `step` in elements as
 * clgpu_array_strided takes them) from byte `offset` of mirrored buffer
 * `buffer`, which must hold it. */
void make_algo_view(int buffer, size_t offset, clgpu_type type, unsigned rank, const size_t *shape,
                    const ptrdiff_t *step, algo_view *out);
/* Whether two made views share a byte (or one view repeats a byte). */
int views_overlap(const algo_view *a, const algo_view *b);
/* A 1-D view of `count` elements of `type` over the bytes of a made view;
 * see harness_algo.c. */
void view_over(const algo_view *under, clgpu_type type, size_t count, int shift, algo_view *out);

/* ---- harness_membuf.c: the model of buffers across memory spaces ---- */

extern membuf_slot membufs[MEMBUF_SLOTS];
extern uint8_t membuf_shadow[MEMBUF_SLOTS][MEMBUF_MAX_BYTES];
extern uint8_t fixed_storage[MEMBUF_SLOTS][MEMBUF_MAX_BYTES + FIXED_SLACK];
extern char membuf_names[MEMBUF_SLOTS][HUGE_LENGTH + 1];
extern char membuf_type_names[MEMBUF_SLOTS][HUGE_LENGTH + 1];
extern char format_full[FORMAT_ROOM];
extern report_target report_targets[2];
extern cl_event done_on_other;
int valid_space(clgpu_space space);
int host_only(int index);
void membuf_report(void *user, const clgpu_move_report *report);
report_target *target_of(const clgpu_context *context);
void membuf_setup(void);
void membuf_teardown(void);
clgpu_membuf_info membuf_info(const char *call, int index);
cl_uint memory_references(cl_mem memory);
void check_membufs(const char *call);
void check_unchanged(const char *call, clgpu_status status, int index,
                     const clgpu_membuf_info *before);
clgpu_membuf_info info_before(int index);
void check_moves_added(const char *call, int index, const clgpu_membuf_info *before,
                       const int expected[2]);
void check_moved(const char *call, int index, const clgpu_membuf_info *before, int to,
                 clgpu_access access);
void finish_event(const char *call, int wanted, cl_event event, int index);
void check_no_event(const char *call, clgpu_status status, cl_event event);
void free_slot(int index);
void finish_membufs(void);

/* ---- the operations, one file per API family ----
 *
 * Each takes its arguments from run->in, in the order the input format
 * fixes, and is held to the contract above. harness.c's tables map opcodes to
 * them; no family file calls another. */

/* ops_context.c: status names, accessors, devices, contexts. */
void op_status_names(fuzz_run *run);
void op_accessors(fuzz_run *run);
void op_device_list(fuzz_run *run);
void op_device_select(fuzz_run *run);
void op_context_create(fuzz_run *run);
void op_context_wrap(fuzz_run *run);

/* ops_program.c: the program cache, kernel leases, the disk cache. */
void op_cache_stats(fuzz_run *run);
void op_kernel_source(fuzz_run *run);
void op_program_get(fuzz_run *run);
void op_program_get_named(fuzz_run *run);
void op_kernel_acquire(fuzz_run *run);
void op_kernel_release(fuzz_run *run);
void op_disk_cache_clear(fuzz_run *run);

/* ops_views.c: making, deriving and comparing views. */
void op_view_make(fuzz_run *run);
void op_view_derive(fuzz_run *run);
void op_view_corrupt(fuzz_run *run);
void op_alias(fuzz_run *run);

/* ops_copy.c: copies between views, and transfers to and from the host. */
void op_copy(fuzz_run *run);
void op_algo_transfer(fuzz_run *run);

/* ops_alloc.c: buffers, allocation scopes, the allocation cache. */
void op_buffer_create(fuzz_run *run);
void op_scope(fuzz_run *run);
void op_algo_names(fuzz_run *run);
void finish_arrays(array_run *pool);

/* ops_membuf.c: buffers across memory spaces. */
void op_membuf_create_host(fuzz_run *run);
void op_membuf_create(fuzz_run *run);
void op_membuf_create_fixed(fuzz_run *run);
void op_membuf_free(fuzz_run *run);
void op_membuf_move(fuzz_run *run);
void op_membuf_touch(fuzz_run *run);
void op_membuf_reallocate(fuzz_run *run);
void op_membuf_assign(fuzz_run *run);
void op_membuf_host(fuzz_run *run);
void op_membuf_device_array(fuzz_run *run);
void op_membuf_info(fuzz_run *run);
void op_membuf_name(fuzz_run *run);
void op_membuf_report_set(fuzz_run *run);
void op_membuf_report_format(fuzz_run *run);

/* ops_reduce.c: reduce, count_if, scan, findall. */
void op_algo_reduce(fuzz_run *run);
void op_algo_count_if(fuzz_run *run);
void op_algo_scan(fuzz_run *run);
void op_algo_findall(fuzz_run *run);

/* ops_sort.c: sort, sort permutation, gather, and the searches in a sorted
 * haystack (lower and upper bounds), which take a sort's order. */
void op_algo_sort(fuzz_run *run);
void op_algo_permutation(fuzz_run *run);
void op_algo_gather(fuzz_run *run);
void op_algo_search(fuzz_run *run);

/* ops_elementwise.c: elementwise kernels and the built-in operations. */
void op_algo_elementwise_create(fuzz_run *run);
void op_algo_elementwise_run(fuzz_run *run);
void op_algo_builtin(fuzz_run *run);

/* ops_workspace.c: size queries and workspaces. */
void op_algo_query_upto(fuzz_run *run);
void op_algo_workspace(fuzz_run *run);
void op_algo_workspace_destroy(fuzz_run *run);

/* ops_runs.c: scan and reduce by key over runs of equal adjacent keys, and
 * their workspace queries. */
void op_algo_runs(fuzz_run *run);

/* ops_histogram.c: histograms of even bins and by edges, the stable
 * partition, their workspace queries and _upto queries. */
void op_algo_histogram(fuzz_run *run);
void op_algo_partition(fuzz_run *run);

/* ops_opaque.c: CLGPU_TYPE_OPAQUE views across the families, refused by
 * every function that computes and moved exactly by every one that moves. */
void op_algo_opaque(fuzz_run *run);

#endif
