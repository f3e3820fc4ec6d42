/* The on-disk cache of program binaries: a second process and a second
 * context load what the first built, a damaged or foreign file is rebuilt and
 * replaced, another program's binary under the right key is rebuilt and
 * replaced, a FIFO, a link or an oversize file at a file's name neither hangs
 * nor stops the cache, a folder that cannot be used means no disk cache and
 * no error, "off" in every spelling writes nothing, clgpu_disk_cache_clear
 * removes only clgpu's files, and a memory hit touches no file.
 *
 * Every test works in folders of its own and asks for programs with a salt
 * define of its own, so that no test can be served by another's binary.
 * Tests that need a later process re-execute this binary with "--child",
 * which main() handles before cmocka starts; the child sets an alarm, so a
 * hang fails the test. */
#include "support.h"

#include <dirent.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Not declared by <unistd.h> under plain POSIX feature macros. */
extern char **environ;

#define SUFFIX ".clgpubin"
/* The file format of src/runtime/disk_cache.c: magic, version, key length and binary
 * length, then the key text and the binary. */
#define HEADER_SIZE 24u
#define TRAILER_SIZE 8u
/* The largest cache file src/runtime/disk_cache.c reads. */
#define MAX_FILE_SIZE ((size_t)64 << 20)
/* Seconds a child process may take: a cold build of fill.cl on a loaded
 * machine takes a few. */
#define CHILD_TIME_LIMIT_S 60u

/* ---- shared helpers ---- */

struct corruption;

/* What a test holds that must be released even when an assertion fails:
 * contexts, folders, and the environment variables some tests change; and
 * the row a corruption test runs. */
typedef struct fixture {
  const struct corruption *row;
  const struct plant *plant;
  clgpu_context *contexts[4];
  char *folders[4];
  char *saved_disk_cache;
  char *saved_cache_dir;
  int had_disk_cache;
  int had_cache_dir;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f) return -1;
  const char *disk_cache = getenv("CLGPU_DISK_CACHE");
  const char *cache_dir = getenv("CLGPU_CACHE_DIR");
  f->had_disk_cache = disk_cache != NULL;
  f->had_cache_dir = cache_dir != NULL;
  f->saved_disk_cache = disk_cache ? strdup(disk_cache) : NULL;
  f->saved_cache_dir = cache_dir ? strdup(cache_dir) : NULL;
  *state = f;
  return 0;
}

static void restore_variable(const char *name, int had, const char *value) {
  /* Leave an unchanged variable alone: every setenv leaks its old string by
   * design, and churning the environment gains nothing. */
  const char *current = getenv(name);
  if (had && current && strcmp(current, value) == 0) return;
  if (!had && !current) return;
  if (had) {
    setenv(name, value, 1);
  } else {
    unsetenv(name);
  }
}

static int teardown(void **state) {
  fixture *f = *state;
  for (size_t i = 0; i < 4; i++) clgpu_context_destroy(f->contexts[i]);
  for (size_t i = 0; i < 4; i++) test_remove_folder(f->folders[i]);
  restore_variable("CLGPU_DISK_CACHE", f->had_disk_cache, f->saved_disk_cache);
  restore_variable("CLGPU_CACHE_DIR", f->had_cache_dir, f->saved_cache_dir);
  free(f->saved_disk_cache);
  free(f->saved_cache_dir);
  free(f);
  return 0;
}

/* A fresh folder that the fixture removes. */
static const char *new_folder(fixture *f, const char *label) {
  for (size_t i = 0; i < 4; i++) {
    if (!f->folders[i]) {
      f->folders[i] = test_make_folder(label);
      return f->folders[i];
    }
  }
  fail_msg("the fixture holds 4 folders at most");
  return NULL;
}

/* A context with the given options, kept by the fixture until closed. */
static clgpu_context *open_with(fixture *f, const clgpu_context_options *options) {
  for (size_t i = 0; i < 4; i++) {
    if (!f->contexts[i]) {
      f->contexts[i] = test_context(options);
      return f->contexts[i];
    }
  }
  fail_msg("the fixture holds 4 contexts at most");
  return NULL;
}

/* A context whose disk cache is forced on in `folder`. */
static clgpu_context *open_in(fixture *f, const char *folder) {
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_ON;
  options.cache_dir = folder;
  return open_with(f, &options);
}

static void close_context(fixture *f, clgpu_context *context) {
  for (size_t i = 0; i < 4; i++) {
    if (f->contexts[i] == context) f->contexts[i] = NULL;
  }
  clgpu_context_destroy(context);
}

/* The salt that makes a test's program (and so its disk-cache key) its own;
 * the seed keeps runs that share a POCL cache from sharing keys too. */
static void make_salt(char *salt, size_t size, const char *name) {
  snprintf(salt, size, "%s_%llu", name, (unsigned long long)test_seed());
}

static clgpu_status get_fill(clgpu_context *context, const char *salt, clgpu_program **program) {
  const clgpu_define defines[] = {{"CLGPU_T", "uint"}, {"CLGPU_TEST_SALT", salt}};
  return clgpu_program_get_named(context, "fill", defines, 2, NULL, program);
}

/* Get the salted fill program, failing the test on error. */
static clgpu_program *fill(clgpu_context *context, const char *salt) {
  clgpu_program *program = NULL;
  assert_status(get_fill(context, salt, &program), CLGPU_SUCCESS);
  assert_non_null(program);
  return program;
}

static clgpu_cache_stats stats_of(const clgpu_context *context) {
  clgpu_cache_stats stats;
  memset(&stats, 0xff, sizeof stats);
  assert_status(clgpu_program_cache_stats(context, &stats), CLGPU_SUCCESS);
  return stats;
}

static int ends_with(const char *text, const char *tail) {
  size_t length = strlen(text), tail_length = strlen(tail);
  return length >= tail_length && strcmp(text + length - tail_length, tail) == 0;
}

/* The number of entries in `folder` whose names end with `tail` ("" counts
 * everything); *first (if not NULL) receives the malloc'd path of one. */
static size_t count_files(const char *folder, const char *tail, char **first) {
  if (first) *first = NULL;
  DIR *directory = opendir(folder);
  if (!directory) fail_msg("opendir(%s): %s", folder, strerror(errno));
  size_t count = 0;
  struct dirent *entry;
  while ((entry = readdir(directory)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
    if (!ends_with(entry->d_name, tail)) continue;
    if (first && !*first) {
      size_t size = strlen(folder) + strlen(entry->d_name) + 2;
      *first = malloc(size);
      assert_non_null(*first);
      snprintf(*first, size, "%s/%s", folder, entry->d_name);
    }
    count++;
  }
  closedir(directory);
  return count;
}

/* The path of the one cache file in `folder`, malloc'd; fails unless the
 * folder holds that file and nothing else (no temporary left behind). */
static char *only_cache_file(const char *folder) {
  char *path = NULL;
  size_t everything = count_files(folder, "", NULL);
  size_t binaries = count_files(folder, SUFFIX, &path);
  if (binaries != 1 || everything != 1) {
    free(path);
    fail_msg("%s holds %zu entries and %zu %s files, expected exactly one cache file", folder,
             everything, binaries, SUFFIX);
  }
  return path;
}

static unsigned char *read_file(const char *path, size_t *size) {
  FILE *file = fopen(path, "rb");
  if (!file) fail_msg("fopen(%s): %s", path, strerror(errno));
  struct stat info;
  assert_int_equal(fstat(fileno(file), &info), 0);
  *size = (size_t)info.st_size;
  unsigned char *data = malloc(*size ? *size : 1);
  assert_non_null(data);
  size_t got = fread(data, 1, *size, file);
  fclose(file);
  assert_int_equal(got, *size);
  return data;
}

static void write_file(const char *path, const void *data, size_t size) {
  FILE *file = fopen(path, "wb");
  if (!file) fail_msg("fopen(%s): %s", path, strerror(errno));
  size_t written = fwrite(data, 1, size, file);
  int closed = fclose(file);
  assert_int_equal(written, size);
  assert_int_equal(closed, 0);
}

static uint64_t get_le(const unsigned char *in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; i++) value |= (uint64_t)in[i] << (8 * i);
  return value;
}

/* ---- the child process of test 1 ---- */

/* Run fill.cl's iota as test_check_iota does, without cmocka, whose
 * assertions abort outside a test run. NULL on success, else what failed. */
static const char *child_check_iota(clgpu_context *context, clgpu_program *program, size_t n) {
  static char message[160];
  cl_kernel kernel = NULL;
  if (clgpu_kernel_acquire(program, "clgpu_iota", &kernel) != CLGPU_SUCCESS) {
    return "clgpu_kernel_acquire failed";
  }
  cl_int err = CL_SUCCESS;
  size_t bytes = n * sizeof(cl_uint);
  cl_mem buffer =
      clCreateBuffer(clgpu_context_cl_context(context), CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err != CL_SUCCESS) {
    clgpu_kernel_release(program, kernel);
    return "clCreateBuffer failed";
  }
  cl_ulong offset = 0, count = n;
  cl_uint start = 7, step = 3;
  err |= clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
  err |= clSetKernelArg(kernel, 1, sizeof offset, &offset);
  err |= clSetKernelArg(kernel, 2, sizeof count, &count);
  err |= clSetKernelArg(kernel, 3, sizeof start, &start);
  err |= clSetKernelArg(kernel, 4, sizeof step, &step);
  size_t local = 64, global = (n + local - 1) / local * local;
  cl_command_queue queue = clgpu_context_queue(context);
  if (err == CL_SUCCESS) {
    err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
  }
  clgpu_kernel_release(program, kernel);
  cl_uint *host = malloc(bytes);
  if (err == CL_SUCCESS && host) {
    err = clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
  }
  clReleaseMemObject(buffer);
  const char *result = NULL;
  if (err != CL_SUCCESS || !host) {
    result = "setting arguments, enqueueing or reading back failed";
  } else {
    for (size_t i = 0; i < n && !result; i++) {
      cl_uint expected = start + (cl_uint)i * step;
      if (host[i] != expected) {
        snprintf(message, sizeof message, "iota element %zu is %u, expected %u", i, host[i],
                 expected);
        result = message;
      }
    }
  }
  free(host);
  return result;
}

/* "--child <folder> <salt>": get the salted program with the disk cache on in
 * <folder>, check it runs, and print the counters on stdout. */
static int child_main(const char *folder, const char *salt) {
  /* A child that hangs (on a FIFO planted in the folder, say) is killed by
   * the alarm, and the parent fails the test instead of waiting forever. */
  alarm(CHILD_TIME_LIMIT_S);
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_ON;
  options.cache_dir = folder;
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(&options, &context);
  if (status != CLGPU_SUCCESS) {
    fprintf(stderr, "child: clgpu_context_create: %s: %s\n", clgpu_status_name(status),
            clgpu_last_error());
    return 2;
  }
  int code = 0;
  clgpu_program *program = NULL;
  status = get_fill(context, salt, &program);
  if (status != CLGPU_SUCCESS) {
    fprintf(stderr, "child: clgpu_program_get_named: %s: %s\n", clgpu_status_name(status),
            clgpu_last_error());
    code = 3;
  } else {
    const char *failure = child_check_iota(context, program, 1000);
    if (failure) {
      fprintf(stderr, "child: %s\n", failure);
      code = 4;
    }
  }
  clgpu_cache_stats stats;
  if (code == 0 && clgpu_program_cache_stats(context, &stats) == CLGPU_SUCCESS) {
    printf("builds=%llu disk_hits=%llu disk_writes=%llu disk_rejects=%llu\n",
           (unsigned long long)stats.builds, (unsigned long long)stats.disk_hits,
           (unsigned long long)stats.disk_writes, (unsigned long long)stats.disk_rejects);
  }
  clgpu_context_destroy(context);
  return code;
}

typedef struct child_counts {
  unsigned long long builds, disk_hits, disk_writes, disk_rejects;
} child_counts;

/* Run this binary as "--child folder salt" with the same environment, and
 * read the counters it prints. */
static child_counts run_child(const char *folder, const char *salt) {
  int pipe_ends[2];
  assert_int_equal(pipe(pipe_ends), 0);
  posix_spawn_file_actions_t actions;
  assert_int_equal(posix_spawn_file_actions_init(&actions), 0);
  assert_int_equal(posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO), 0);
  assert_int_equal(posix_spawn_file_actions_addclose(&actions, pipe_ends[0]), 0);
  assert_int_equal(posix_spawn_file_actions_addclose(&actions, pipe_ends[1]), 0);
  char *argv[] = {"test_disk_cache", "--child", (char *)folder, (char *)salt, NULL};
  pid_t child = 0;
  int spawned = posix_spawn(&child, "/proc/self/exe", &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_ends[1]);
  if (spawned != 0) {
    close(pipe_ends[0]);
    fail_msg("posix_spawn(/proc/self/exe): %s", strerror(spawned));
  }
  /* Read to the end before waiting, so that a chatty child never blocks on a
   * full pipe. */
  char output[4096];
  size_t used = 0;
  for (;;) {
    ssize_t got = read(pipe_ends[0], output + used, sizeof output - 1 - used);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    used += (size_t)got;
    if (used == sizeof output - 1) break;
  }
  output[used] = '\0';
  close(pipe_ends[0]);
  int wait_status = 0;
  while (waitpid(child, &wait_status, 0) < 0) {
    if (errno != EINTR) fail_msg("waitpid: %s", strerror(errno));
  }
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
    fail_msg("the child process failed (wait status 0x%x); its output:\n%s", wait_status, output);
  }
  child_counts counts = {0, 0, 0, 0};
  const char *line = strstr(output, "builds=");
  if (!line ||
      sscanf(line, "builds=%llu disk_hits=%llu disk_writes=%llu disk_rejects=%llu", &counts.builds,
             &counts.disk_hits, &counts.disk_writes, &counts.disk_rejects) != 4) {
    fail_msg("the child printed no counters; its output:\n%s", output);
  }
  return counts;
}

/* ---- tests ---- */

/* The point of the disk cache: a second process finds the binary the first
 * wrote and builds nothing. */
static void test_second_process_loads_without_building(void **state) {
  fixture *f = *state;
  const char *folder = new_folder(f, "second-process");
  char salt[96];
  make_salt(salt, sizeof salt, "second_process");

  child_counts first = run_child(folder, salt);
  assert_int_equal(first.builds, 1);
  assert_int_equal(first.disk_hits, 0);
  assert_int_equal(first.disk_writes, 1);
  assert_int_equal(first.disk_rejects, 0);
  char *path = only_cache_file(folder);
  free(path);

  child_counts second = run_child(folder, salt);
  assert_int_equal(second.builds, 0);
  assert_int_equal(second.disk_hits, 1);
  assert_int_equal(second.disk_writes, 0);
  assert_int_equal(second.disk_rejects, 0);
  path = only_cache_file(folder);
  free(path);
}

/* Within one process, a second context over the same folder loads the
 * binary, and the loaded program computes what the host does. */
static void test_second_context_loads_from_disk(void **state) {
  fixture *f = *state;
  const char *folder = new_folder(f, "second-context");
  char salt[96];
  make_salt(salt, sizeof salt, "second_context");

  clgpu_context *first = open_in(f, folder);
  assert_string_equal(clgpu_context_cache_dir(first), folder);
  (void)fill(first, salt);
  clgpu_cache_stats stats = stats_of(first);
  assert_int_equal(stats.builds, 1);
  assert_int_equal(stats.disk_hits, 0);
  assert_int_equal(stats.disk_writes, 1);
  /* A missing file is a miss, not a rejected file. */
  assert_int_equal(stats.disk_rejects, 0);
  close_context(f, first);
  char *path = only_cache_file(folder);
  free(path);

  clgpu_context *second = open_in(f, folder);
  clgpu_program *program = fill(second, salt);
  stats = stats_of(second);
  assert_int_equal(stats.disk_hits, 1);
  assert_int_equal(stats.builds, 0);
  assert_int_equal(stats.disk_writes, 0);
  assert_int_equal(stats.disk_rejects, 0);
  assert_int_equal(stats.memory_hits, 0);
  test_check_iota(second, program, 1000);
}

/* ---- damaged and foreign files ---- */

typedef enum corruption_kind {
  TRUNCATE_HALF,
  TRUNCATE_TO_10,
  EMPTY,
  FLIP_BINARY_BYTE,
  FLIP_KEY_BYTE,
  GARBAGE,
  FOREIGN,
  WRAPPED_LENGTHS,
  FLIP_CHECK_BYTE,
  PREVIOUS_FORMAT,
} corruption_kind;

typedef struct corruption {
  corruption_kind kind;
  const char *name; /* also the salt's stem */
} corruption;

static corruption corruptions[] = {
    {TRUNCATE_HALF, "truncated_to_half"},
    {TRUNCATE_TO_10, "truncated_to_10_bytes"},
    {EMPTY, "empty"},
    {FLIP_BINARY_BYTE, "byte_flipped_in_binary"},
    {FLIP_KEY_BYTE, "byte_flipped_in_key"},
    {GARBAGE, "garbage_of_same_size"},
    {FOREIGN, "foreign_key"},
    {WRAPPED_LENGTHS, "wrapped_lengths"},
    {FLIP_CHECK_BYTE, "byte_flipped_in_check"},
    {PREVIOUS_FORMAT, "previous_format"},
};

/* Damage the cache file at `path` as `row` says. `f` and `salt` serve the
 * foreign row, which builds another program in another folder. */
static void corrupt(fixture *f, const corruption *row, const char *path, const char *salt) {
  size_t size = 0;
  unsigned char *data = read_file(path, &size);
  assert_true(size > HEADER_SIZE + TRAILER_SIZE);
  uint64_t key_length = get_le(data + 12, 4);
  uint64_t binary_length = get_le(data + 16, 8);
  assert_int_equal(HEADER_SIZE + key_length + binary_length + TRAILER_SIZE, size);
  switch (row->kind) {
    case TRUNCATE_HALF:
      assert_int_equal(truncate(path, (off_t)(size / 2)), 0);
      break;
    case TRUNCATE_TO_10:
      assert_int_equal(truncate(path, 10), 0);
      break;
    case EMPTY:
      assert_int_equal(truncate(path, 0), 0);
      break;
    case FLIP_BINARY_BYTE:
      data[HEADER_SIZE + key_length + binary_length / 2] ^= 0x5a;
      write_file(path, data, size);
      break;
    case FLIP_KEY_BYTE:
      assert_true(key_length > 30);
      data[HEADER_SIZE + 30] ^= 0x5a;
      write_file(path, data, size);
      break;
    case GARBAGE: {
      /* xorshift64 from the seed: a replayable run gets the same garbage. */
      uint64_t x = test_seed() | 1;
      for (size_t i = 0; i < size; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        data[i] = (unsigned char)(x >> 24);
      }
      write_file(path, data, size);
      break;
    }
    case FOREIGN: {
      /* A well-formed file for another program, under this program's name:
       * only the stored key can tell it apart. */
      const char *other_folder = new_folder(f, "foreign");
      char other_salt[160];
      snprintf(other_salt, sizeof other_salt, "%s_other", salt);
      clgpu_context *other = open_in(f, other_folder);
      (void)fill(other, other_salt);
      assert_int_equal(stats_of(other).disk_writes, 1);
      close_context(f, other);
      char *other_path = only_cache_file(other_folder);
      size_t other_size = 0;
      unsigned char *other_data = read_file(other_path, &other_size);
      free(other_path);
      assert_memory_not_equal(other_data + HEADER_SIZE, data + HEADER_SIZE, key_length);
      write_file(path, other_data, other_size);
      free(other_data);
      break;
    }
    case WRAPPED_LENGTHS: {
      /* The file ends halfway through the key, and the binary length is what
       * the file size minus the other parts gives when it wraps around below
       * zero: each length checks out against the other in 64-bit arithmetic,
       * but the key runs past the end of the file. A loader must reject this
       * without reading past what it read (a sanitizer build catches that). */
      size_t short_size = HEADER_SIZE + (size_t)key_length / 2;
      assert_true(short_size >= HEADER_SIZE + TRAILER_SIZE);
      uint64_t wrapped = (uint64_t)short_size - HEADER_SIZE - key_length - TRAILER_SIZE;
      for (int i = 0; i < 8; i++) data[16 + i] = (unsigned char)(wrapped >> (8 * i));
      write_file(path, data, short_size);
      break;
    }
    case FLIP_CHECK_BYTE:
      data[size - 3] ^= 0x01;
      write_file(path, data, size);
      break;
    case PREVIOUS_FORMAT: {
      /* Format 1 ended in a 32-byte SHA-256 instead of the 8-byte check: a
       * file of that shape with version 1 (its lengths consistent, 24 bytes
       * of zeros standing in for the rest of the digest) is not loaded. */
      size_t old_size = size + 24;
      unsigned char *old = calloc(old_size, 1);
      assert_non_null(old);
      memcpy(old, data, size);
      for (int i = 0; i < 4; i++) old[8 + i] = (unsigned char)(1u >> (8 * i));
      write_file(path, old, old_size);
      free(old);
      break;
    }
  }
  free(data);
}

/* A damaged or foreign file is rejected, the program is built from source
 * and works, and the file is replaced by one the next context loads. */
static void test_corrupt_file_recovered(void **state) {
  fixture *f = *state;
  const corruption *row = f->row;
  const char *folder = new_folder(f, row->name);
  char salt[128];
  make_salt(salt, sizeof salt, row->name);

  clgpu_context *first = open_in(f, folder);
  (void)fill(first, salt);
  assert_int_equal(stats_of(first).disk_writes, 1);
  close_context(f, first);
  char *path = only_cache_file(folder);
  corrupt(f, row, path, salt);

  clgpu_context *second = open_in(f, folder);
  clgpu_program *program = fill(second, salt);
  clgpu_cache_stats stats = stats_of(second);
  assert_int_equal(stats.builds, 1);
  assert_int_equal(stats.disk_hits, 0);
  assert_int_equal(stats.disk_rejects, 1);
  assert_int_equal(stats.disk_writes, 1);
  test_check_iota(second, program, 1000);
  close_context(f, second);

  /* The replacement sits under the same name, alone. */
  char *replaced = only_cache_file(folder);
  assert_string_equal(replaced, path);
  free(replaced);
  free(path);

  clgpu_context *third = open_in(f, folder);
  program = fill(third, salt);
  stats = stats_of(third);
  assert_int_equal(stats.disk_hits, 1);
  assert_int_equal(stats.builds, 0);
  assert_int_equal(stats.disk_rejects, 0);
  assert_int_equal(stats.disk_writes, 0);
  test_check_iota(third, program, 1000);
}

/* The corruption rows run as tests of their own, each with its row in the
 * fixture. */
static int setup_corruption(void **state, size_t index) {
  if (setup(state) != 0) return -1;
  fixture *f = *state;
  f->row = &corruptions[index];
  return 0;
}

#define CORRUPTION_SETUP(index) \
  static int setup_corruption_##index(void **state) { return setup_corruption(state, index); }
CORRUPTION_SETUP(0)
CORRUPTION_SETUP(1)
CORRUPTION_SETUP(2)
CORRUPTION_SETUP(3)
CORRUPTION_SETUP(4)
CORRUPTION_SETUP(5)
CORRUPTION_SETUP(6)
CORRUPTION_SETUP(7)
CORRUPTION_SETUP(8)
CORRUPTION_SETUP(9)

/* ---- the files' check, to forge files that pass it ----
 *
 * Written from the format's definition in src/runtime/disk_cache.c, not
 * from its code: four 64-bit lanes start at (size ^ K1, ~size, K2, K1 ^ K2);
 * 32-byte blocks of the data (the last one padded with zeros) give lane k
 * their k-th little-endian word w, and the lane becomes rotl(l ^ w, 23) * K1;
 * the check starts at the size and, for each lane in order, becomes
 * (h ^ mix(l)) * K1 with h ^= h >> 32 after, where mix is
 * x ^= x >> 31, x *= K2, x ^= x >> 29. */
static uint64_t file_check(const unsigned char *data, size_t size) {
  const uint64_t k1 = 0x9e3779b97f4a7c15ull, k2 = 0xc2b2ae3d27d4eb4full;
  uint64_t lanes[4] = {(uint64_t)size ^ k1, ~(uint64_t)size, k2, k1 ^ k2};
  for (size_t at = 0; at < size; at += 32) {
    for (size_t k = 0; k < 4; k++) {
      uint64_t word = 0;
      for (size_t b = 0; b < 8; b++) {
        size_t i = at + 8 * k + b;
        if (i < size) word |= (uint64_t)data[i] << (8 * b);
      }
      uint64_t x = lanes[k] ^ word;
      lanes[k] = ((x << 23) | (x >> 41)) * k1;
    }
  }
  uint64_t h = (uint64_t)size;
  for (size_t k = 0; k < 4; k++) {
    uint64_t x = lanes[k];
    x ^= x >> 31;
    x *= k2;
    x ^= x >> 29;
    h = (h ^ x) * k1;
    h ^= h >> 32;
  }
  return h;
}

/* The check of data[0, size - TRAILER_SIZE) into the last TRAILER_SIZE bytes. */
static void seal(unsigned char *data, size_t size) {
  uint64_t check = file_check(data, size - TRAILER_SIZE);
  for (size_t i = 0; i < TRAILER_SIZE; i++) {
    data[size - TRAILER_SIZE + i] = (unsigned char)(check >> (8 * i));
  }
}

/* ---- a binary of another program under the right key ---- */

/* Another program with one kernel of fill.cl's names and not the other:
 * from its binary, clgpu_fill can be made and clgpu_iota cannot. */
static const char foreign_source[] =
    "kernel void clgpu_fill(global uint *out) { out[get_global_id(0)] = 12345u; }\n"
    "kernel void foreign_only(global uint *out) { out[0] = 1u; }\n";

static cl_program program_of(cl_kernel kernel) {
  cl_program program = NULL;
  assert_int_equal(clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, NULL),
                   CL_SUCCESS);
  return program;
}

/* A file in the right format, with the right key and a digest that checks
 * out, carrying another program's binary (what anyone who can write the
 * folder can make): the first kernel it cannot make sends the program back
 * to its source, the results are right, and the file is replaced by one a
 * later process loads without building. */
static void test_binary_of_another_program_rebuilt_and_replaced(void **state) {
  fixture *f = *state;
  const char *folder = new_folder(f, "another-binary");
  char salt[96];
  make_salt(salt, sizeof salt, "another_binary");

  clgpu_context *first = open_in(f, folder);
  (void)fill(first, salt);
  assert_int_equal(stats_of(first).disk_writes, 1);
  close_context(f, first);
  char *path = only_cache_file(folder);
  size_t size = 0;
  unsigned char *data = read_file(path, &size);
  /* The test's check agrees with the library's on the file it wrote. */
  assert_int_equal(file_check(data, size - TRAILER_SIZE), get_le(data + size - TRAILER_SIZE, 8));
  size_t key_length = (size_t)get_le(data + 12, 4);

  /* The other program's binary, from a file of its own. */
  const char *other_folder = new_folder(f, "another-binary-source");
  clgpu_context *other = open_in(f, other_folder);
  clgpu_program *other_program = NULL;
  const clgpu_define salt_define[] = {{"CLGPU_TEST_SALT", salt}};
  assert_status(clgpu_program_get(other, foreign_source, salt_define, 1, NULL, &other_program),
                CLGPU_SUCCESS);
  assert_int_equal(stats_of(other).disk_writes, 1);
  close_context(f, other);
  char *other_path = only_cache_file(other_folder);
  size_t other_size = 0;
  unsigned char *other_data = read_file(other_path, &other_size);
  free(other_path);
  size_t other_key_length = (size_t)get_le(other_data + 12, 4);
  size_t binary_length = (size_t)get_le(other_data + 16, 8);
  assert_int_equal(HEADER_SIZE + other_key_length + binary_length + TRAILER_SIZE, other_size);
  const unsigned char *binary = other_data + HEADER_SIZE + other_key_length;

  /* This program's header and key, the other's binary, a fresh digest. */
  size_t forged_size = HEADER_SIZE + key_length + binary_length + TRAILER_SIZE;
  unsigned char *forged = malloc(forged_size);
  assert_non_null(forged);
  memcpy(forged, data, HEADER_SIZE + key_length);
  for (int i = 0; i < 8; i++) forged[16 + i] = (unsigned char)((uint64_t)binary_length >> (8 * i));
  memcpy(forged + HEADER_SIZE + key_length, binary, binary_length);
  seal(forged, forged_size);
  write_file(path, forged, forged_size);
  free(forged);
  free(data);

  /* Nothing in the file tells it apart: it loads. */
  clgpu_context *second = open_in(f, folder);
  clgpu_program *program = fill(second, salt);
  clgpu_cache_stats stats = stats_of(second);
  assert_int_equal(stats.disk_hits, 1);
  assert_int_equal(stats.builds, 0);
  assert_int_equal(stats.disk_rejects, 0);
  cl_program loaded = clgpu_program_cl_program(program);
  assert_non_null(loaded);
  /* A kernel name the other program shares is made from its binary (what
   * the folder is trusted with), and its lease outlives the repair. */
  cl_kernel borrowed = NULL;
  assert_status(clgpu_kernel_acquire(program, "clgpu_fill", &borrowed), CLGPU_SUCCESS);
  assert_ptr_equal(program_of(borrowed), loaded);

  /* clgpu_iota is not in the binary: the program is rebuilt from source,
   * and the kernel computes what the host does. */
  test_check_iota(second, program, 1000);
  stats = stats_of(second);
  assert_int_equal(stats.disk_hits, 1);
  assert_int_equal(stats.builds, 1);
  assert_int_equal(stats.disk_rejects, 1);
  assert_int_equal(stats.disk_writes, 1);
  cl_program rebuilt = clgpu_program_cl_program(program);
  assert_non_null(rebuilt);
  assert_ptr_not_equal(rebuilt, loaded);
  assert_ptr_equal(program_of(borrowed), loaded);
  clgpu_kernel_release(program, borrowed);
  /* From now on every kernel comes from the rebuilt program. */
  cl_kernel again = NULL;
  assert_status(clgpu_kernel_acquire(program, "clgpu_fill", &again), CLGPU_SUCCESS);
  assert_ptr_equal(program_of(again), rebuilt);
  clgpu_kernel_release(program, again);
  cl_kernel missing = (cl_kernel)&missing;
  assert_status(clgpu_kernel_acquire(program, "foreign_only", &missing),
                CLGPU_CL_INVALID_KERNEL_NAME);
  assert_null(missing);
  assert_int_equal(stats_of(second).builds, 1);
  test_check_iota(second, program, 333);
  close_context(f, second);

  /* The file was replaced: alone under its name, without the other binary. */
  char *replaced = only_cache_file(folder);
  assert_string_equal(replaced, path);
  free(replaced);
  data = read_file(path, &size);
  assert_int_equal(get_le(data + 12, 4), key_length);
  uint64_t stored_length = get_le(data + 16, 8);
  assert_true(stored_length != binary_length ||
              memcmp(data + HEADER_SIZE + key_length, binary, binary_length) != 0);
  free(data);
  free(other_data);
  free(path);

  /* A later process loads the replacement and builds nothing. */
  child_counts counts = run_child(folder, salt);
  assert_int_equal(counts.builds, 0);
  assert_int_equal(counts.disk_hits, 1);
  assert_int_equal(counts.disk_rejects, 0);
  assert_int_equal(counts.disk_writes, 0);
}

/* ---- what is not a regular file at a cache file's name ---- */

/* Anyone who can write the folder can put these there; none may hang the
 * process, make it read without bound, or stop the cache from working. */
typedef enum plant_kind {
  PLANT_FIFO,
  PLANT_LINK_TO_FIFO,
  PLANT_LINK_TO_DEV_ZERO,
  PLANT_OVERSIZE,
} plant_kind;

typedef struct plant {
  plant_kind kind;
  const char *name; /* also the salt's stem */
} plant;

static plant plants[] = {
    {PLANT_FIFO, "fifo"},
    {PLANT_LINK_TO_FIFO, "link_to_fifo"},
    {PLANT_LINK_TO_DEV_ZERO, "link_to_dev_zero"},
    {PLANT_OVERSIZE, "oversize"},
};

/* Replace the cache file at `path` (in `folder`) by what `row` says. */
static void plant_at(const plant *row, const char *folder, const char *path) {
  assert_int_equal(unlink(path), 0);
  char fifo[512];
  snprintf(fifo, sizeof fifo, "%s/pipe", folder);
  switch (row->kind) {
    case PLANT_FIFO:
      if (mkfifo(path, 0644) != 0) fail_msg("mkfifo(%s): %s", path, strerror(errno));
      break;
    case PLANT_LINK_TO_FIFO:
      if (mkfifo(fifo, 0644) != 0) fail_msg("mkfifo(%s): %s", fifo, strerror(errno));
      assert_int_equal(symlink(fifo, path), 0);
      break;
    case PLANT_LINK_TO_DEV_ZERO:
      assert_int_equal(symlink("/dev/zero", path), 0);
      break;
    case PLANT_OVERSIZE:
      /* A sparse file one byte above the limit: nothing of it is worth
       * reading. */
      write_file(path, "CLGPUBIN", 8);
      assert_int_equal(truncate(path, (off_t)MAX_FILE_SIZE + 1), 0);
      break;
  }
}

/* A later process finds what was planted, treats it as an unusable file,
 * builds from source within the time limit, and puts a regular file in its
 * place, which the process after it loads. */
static void test_planted_file_ignored_and_replaced(void **state) {
  fixture *f = *state;
  const plant *row = f->plant;
  const char *folder = new_folder(f, row->name);
  char salt[128];
  make_salt(salt, sizeof salt, row->name);

  clgpu_context *first = open_in(f, folder);
  (void)fill(first, salt);
  assert_int_equal(stats_of(first).disk_writes, 1);
  close_context(f, first);
  char *path = only_cache_file(folder);
  plant_at(row, folder, path);

  child_counts counts = run_child(folder, salt);
  assert_int_equal(counts.builds, 1);
  assert_int_equal(counts.disk_hits, 0);
  assert_int_equal(counts.disk_rejects, 1);
  assert_int_equal(counts.disk_writes, 1);

  /* The name holds a regular file of clgpu's now, and a FIFO a link pointed
   * to is left as it was. */
  struct stat info;
  assert_int_equal(lstat(path, &info), 0);
  assert_true(S_ISREG(info.st_mode));
  assert_true((uint64_t)info.st_size < MAX_FILE_SIZE);
  char *replaced = NULL;
  assert_int_equal(count_files(folder, SUFFIX, &replaced), 1);
  assert_string_equal(replaced, path);
  free(replaced);
  if (row->kind == PLANT_LINK_TO_FIFO) {
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s/pipe", folder);
    assert_int_equal(lstat(fifo, &info), 0);
    assert_true(S_ISFIFO(info.st_mode));
    assert_int_equal(count_files(folder, "", NULL), 2);
  } else {
    assert_int_equal(count_files(folder, "", NULL), 1);
  }
  free(path);

  counts = run_child(folder, salt);
  assert_int_equal(counts.builds, 0);
  assert_int_equal(counts.disk_hits, 1);
  assert_int_equal(counts.disk_rejects, 0);
  assert_int_equal(counts.disk_writes, 0);
}

static int setup_plant(void **state, size_t index) {
  if (setup(state) != 0) return -1;
  fixture *f = *state;
  f->plant = &plants[index];
  return 0;
}

#define PLANT_SETUP(index) \
  static int setup_plant_##index(void **state) { return setup_plant(state, index); }
PLANT_SETUP(0)
PLANT_SETUP(1)
PLANT_SETUP(2)
PLANT_SETUP(3)

/* ---- folders that cannot be used ---- */

/* Tests run as root, where permissions stop nothing, so the folders here are
 * impossible rather than forbidden: one under a regular file, and a regular
 * file itself. Either way the context works without a disk cache. */
static void check_without_disk_cache(fixture *f, const char *cache_dir, const char *salt) {
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_ON;
  options.cache_dir = cache_dir;
  clgpu_context *context = open_with(f, &options);
  assert_null(clgpu_context_cache_dir(context));
  clgpu_program *program = fill(context, salt);
  clgpu_cache_stats stats = stats_of(context);
  assert_int_equal(stats.builds, 1);
  assert_int_equal(stats.disk_writes, 0);
  assert_int_equal(stats.disk_hits, 0);
  assert_int_equal(stats.disk_rejects, 0);
  test_check_iota(context, program, 1000);
  close_context(f, context);
}

static void test_unusable_folder_means_no_disk_cache(void **state) {
  fixture *f = *state;
  const char *folder = new_folder(f, "unusable");
  char salt[96];
  make_salt(salt, sizeof salt, "unusable_folder");
  char file[512], under_file[600];
  snprintf(file, sizeof file, "%s/plain-file", folder);
  snprintf(under_file, sizeof under_file, "%s/sub", file);
  static const char content[] = "not a folder\n";
  write_file(file, content, sizeof content - 1);

  check_without_disk_cache(f, under_file, salt);
  check_without_disk_cache(f, file, salt);

  /* The file in the way is left as it was, and nothing else appeared. */
  size_t size = 0;
  unsigned char *data = read_file(file, &size);
  assert_int_equal(size, sizeof content - 1);
  assert_memory_equal(data, content, size);
  free(data);
  assert_int_equal(count_files(folder, "", NULL), 1);
}

/* ---- "off" ---- */

/* A context made with `options` has no disk cache and writes nothing into
 * `watched`, the folder it would otherwise have used. */
static void check_off(fixture *f, const clgpu_context_options *options, const char *watched,
                      const char *salt) {
  clgpu_context *context = open_with(f, options);
  assert_null(clgpu_context_cache_dir(context));
  clgpu_program *program = fill(context, salt);
  clgpu_cache_stats stats = stats_of(context);
  assert_int_equal(stats.builds, 1);
  assert_int_equal(stats.disk_writes, 0);
  assert_int_equal(stats.disk_hits, 0);
  test_check_iota(context, program, 64);
  close_context(f, context);
  assert_int_equal(count_files(watched, "", NULL), 0);
}

static void test_off_in_every_spelling(void **state) {
  fixture *f = *state;
  /* CLGPU_CACHE_DIR points at a watched folder, so that an "off" that fell
   * through to the environment would leave a file there. */
  const char *watched = new_folder(f, "off-watched");
  assert_int_equal(setenv("CLGPU_CACHE_DIR", watched, 1), 0);
  assert_int_equal(unsetenv("CLGPU_DISK_CACHE"), 0);
  char salt[96];
  make_salt(salt, sizeof salt, "off");

  /* cache_dir "off", even with the disk cache forced on. */
  clgpu_context_options options = {0};
  options.disk_cache = CLGPU_DISK_CACHE_ON;
  options.cache_dir = "off";
  check_off(f, &options, watched, salt);

  /* The mode off, with a usable folder named. */
  options.disk_cache = CLGPU_DISK_CACHE_OFF;
  options.cache_dir = watched;
  check_off(f, &options, watched, salt);

  /* CLGPU_DISK_CACHE off (or 0) turns the default mode off. */
  options.disk_cache = CLGPU_DISK_CACHE_DEFAULT;
  assert_int_equal(setenv("CLGPU_DISK_CACHE", "off", 1), 0);
  check_off(f, &options, watched, salt);
  assert_int_equal(setenv("CLGPU_DISK_CACHE", "0", 1), 0);
  check_off(f, &options, watched, salt);

  /* But not the forced-on mode, and without it the default mode is on (no
   * quirks row turns POCL off): the switches above are what turned it off. */
  options.disk_cache = CLGPU_DISK_CACHE_ON;
  clgpu_context *on = open_with(f, &options);
  assert_non_null(clgpu_context_cache_dir(on));
  assert_string_equal(clgpu_context_cache_dir(on), watched);
  close_context(f, on);
  assert_int_equal(unsetenv("CLGPU_DISK_CACHE"), 0);
  options.disk_cache = CLGPU_DISK_CACHE_DEFAULT;
  clgpu_context *by_default = open_with(f, &options);
  assert_non_null(clgpu_context_cache_dir(by_default));
  assert_string_equal(clgpu_context_cache_dir(by_default), watched);
  close_context(f, by_default);

  /* CLGPU_CACHE_DIR=off with no cache_dir, even forced on. No folder is
   * named then, so the check is that none called "off" is made either. */
  struct stat info;
  int off_existed = stat("off", &info) == 0;
  assert_int_equal(setenv("CLGPU_CACHE_DIR", "off", 1), 0);
  options.disk_cache = CLGPU_DISK_CACHE_ON;
  options.cache_dir = NULL;
  check_off(f, &options, watched, salt);
  if (!off_existed) assert_int_not_equal(stat("off", &info), 0);
}

/* ---- clearing ---- */

static void test_clear_removes_only_clgpu_files(void **state) {
  fixture *f = *state;
  const char *folder = new_folder(f, "clear");
  char salt_a[96], salt_b[96];
  make_salt(salt_a, sizeof salt_a, "clear_a");
  make_salt(salt_b, sizeof salt_b, "clear_b");

  clgpu_context *context = open_in(f, folder);
  (void)fill(context, salt_a);
  (void)fill(context, salt_b);
  assert_int_equal(stats_of(context).disk_writes, 2);
  close_context(f, context);
  assert_int_equal(count_files(folder, SUFFIX, NULL), 2);

  /* Files clgpu did not write stay, even one whose name ends like a cache
   * file's. */
  char keep[512], lookalike[512];
  snprintf(keep, sizeof keep, "%s/keep.txt", folder);
  snprintf(lookalike, sizeof lookalike, "%s/notes" SUFFIX, folder);
  write_file(keep, "keep\n", 5);
  write_file(lookalike, "mine\n", 5);

  size_t removed = 99;
  assert_status(clgpu_disk_cache_clear(folder, &removed), CLGPU_SUCCESS);
  assert_int_equal(removed, 2);
  assert_int_equal(count_files(folder, "", NULL), 2);
  assert_int_equal(count_files(folder, "keep.txt", NULL), 1);
  assert_int_equal(count_files(folder, "notes" SUFFIX, NULL), 1);
  size_t size = 0;
  unsigned char *data = read_file(keep, &size);
  assert_int_equal(size, 5);
  assert_memory_equal(data, "keep\n", 5);
  free(data);

  /* Clearing again finds nothing; a missing folder is not an error. */
  removed = 99;
  assert_status(clgpu_disk_cache_clear(folder, &removed), CLGPU_SUCCESS);
  assert_int_equal(removed, 0);
  char missing[512];
  snprintf(missing, sizeof missing, "%s/missing", folder);
  removed = 99;
  assert_status(clgpu_disk_cache_clear(missing, &removed), CLGPU_SUCCESS);
  assert_int_equal(removed, 0);
  assert_status(clgpu_disk_cache_clear(missing, NULL), CLGPU_SUCCESS);

  /* After a clear the next context builds and writes again. */
  context = open_in(f, folder);
  (void)fill(context, salt_a);
  clgpu_cache_stats stats = stats_of(context);
  assert_int_equal(stats.builds, 1);
  assert_int_equal(stats.disk_hits, 0);
  assert_int_equal(stats.disk_rejects, 0);
  assert_int_equal(stats.disk_writes, 1);
  close_context(f, context);
  assert_int_equal(count_files(folder, SUFFIX, NULL), 2);
}

/* ---- memory hits ---- */

/* The second request in a context is served from memory: the same program,
 * and no disk activity beyond the first request's write. */
static void test_memory_hit_touches_no_file(void **state) {
  fixture *f = *state;
  const char *folder = new_folder(f, "memory-hit");
  char salt[96];
  make_salt(salt, sizeof salt, "memory_hit");

  clgpu_context *context = open_in(f, folder);
  clgpu_program *first = fill(context, salt);
  clgpu_cache_stats before = stats_of(context);
  assert_int_equal(before.builds, 1);
  assert_int_equal(before.memory_hits, 0);
  assert_int_equal(before.disk_writes, 1);
  char *path = only_cache_file(folder);
  /* Remove the file: a request that looked at the disk would now miss there
   * and build, or write the file again. */
  assert_int_equal(unlink(path), 0);
  free(path);

  clgpu_program *second = fill(context, salt);
  assert_ptr_equal(second, first);
  clgpu_cache_stats after = stats_of(context);
  assert_int_equal(after.memory_hits, 1);
  assert_int_equal(after.builds, 1);
  assert_int_equal(after.disk_hits, 0);
  assert_int_equal(after.disk_writes, 1);
  assert_int_equal(after.disk_rejects, 0);
  assert_int_equal(count_files(folder, "", NULL), 0);
  test_check_iota(context, second, 1000);
}

int main(int argc, char **argv) {
  /* These tests count the binaries in their folders: no record of programs
   * beside them (test_prebuild tests the record, which is a cache file of
   * the same format). Children inherit the setting. */
  setenv("CLGPU_PROGRAM_RECORD", "off", 1);
  if (argc >= 2 && strcmp(argv[1], "--child") == 0) {
    if (argc != 4) {
      fprintf(stderr, "usage: %s --child <folder> <salt>\n", argv[0]);
      return 2;
    }
    return child_main(argv[2], argv[3]);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_second_process_loads_without_building, setup, teardown),
      cmocka_unit_test_setup_teardown(test_second_context_loads_from_disk, setup, teardown),
      {"corrupt file recovered: truncated to half", test_corrupt_file_recovered, setup_corruption_0,
       teardown, NULL},
      {"corrupt file recovered: truncated to 10 bytes", test_corrupt_file_recovered,
       setup_corruption_1, teardown, NULL},
      {"corrupt file recovered: empty", test_corrupt_file_recovered, setup_corruption_2, teardown,
       NULL},
      {"corrupt file recovered: byte flipped in the binary", test_corrupt_file_recovered,
       setup_corruption_3, teardown, NULL},
      {"corrupt file recovered: byte flipped in the key", test_corrupt_file_recovered,
       setup_corruption_4, teardown, NULL},
      {"corrupt file recovered: garbage of the same size", test_corrupt_file_recovered,
       setup_corruption_5, teardown, NULL},
      {"corrupt file recovered: foreign file", test_corrupt_file_recovered, setup_corruption_6,
       teardown, NULL},
      {"corrupt file recovered: lengths that wrap around", test_corrupt_file_recovered,
       setup_corruption_7, teardown, NULL},
      {"corrupt file recovered: byte flipped in the check", test_corrupt_file_recovered,
       setup_corruption_8, teardown, NULL},
      {"corrupt file recovered: a file of the previous format", test_corrupt_file_recovered,
       setup_corruption_9, teardown, NULL},
      cmocka_unit_test_setup_teardown(test_binary_of_another_program_rebuilt_and_replaced, setup,
                                      teardown),
      {"planted at the name: a FIFO", test_planted_file_ignored_and_replaced, setup_plant_0,
       teardown, NULL},
      {"planted at the name: a link to a FIFO", test_planted_file_ignored_and_replaced,
       setup_plant_1, teardown, NULL},
      {"planted at the name: a link to /dev/zero", test_planted_file_ignored_and_replaced,
       setup_plant_2, teardown, NULL},
      {"planted at the name: a file above the size limit", test_planted_file_ignored_and_replaced,
       setup_plant_3, teardown, NULL},
      cmocka_unit_test_setup_teardown(test_unusable_folder_means_no_disk_cache, setup, teardown),
      cmocka_unit_test_setup_teardown(test_off_in_every_spelling, setup, teardown),
      cmocka_unit_test_setup_teardown(test_clear_removes_only_clgpu_files, setup, teardown),
      cmocka_unit_test_setup_teardown(test_memory_hit_touches_no_file, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
