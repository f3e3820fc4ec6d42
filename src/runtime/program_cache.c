/* The per-context program cache: the prelude of defines, the build-option
 * allow-list, building (or loading from disk) once per key even when threads
 * race, and kernel objects handed out by lease. */
#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgpu/context.h>
#include <clgpu/program.h>
#include <clgpu/version.h>

#include "build_log.h"
#include "context_internal.h"
#include "disk_cache.h"
#include "expression.h"
#include "fault.h"
#include "kernel_source.h"
#include "opencl.h"
#include "program_cache.h"
#include "program_record.h"
#include "quirks.h"
#include "sha256.h"
#include "status_internal.h"
#include "text.h"

typedef struct kernel_slot {
  char *name;
  cl_kernel kernel;
  int leased;
  /* Made from a binary that was replaced (see rebuild_from_source): never
   * leased again, released when its lease ends. */
  int retired;
  /* Passed lease.c's group check (clgpu__kernel_mark_group_checked). */
  int group_checked;
} kernel_slot;

typedef enum program_state { PROGRAM_BUILDING, PROGRAM_READY } program_state;

struct clgpu_program {
  unsigned char key[32];
  program_state state;
  cl_program program;
  clgpu__program_cache *cache;
  clgpu_context *owner; /* the context whose cache holds it */
  /* Set while the program is a binary from the disk cache that no kernel
   * creation has found wanting: what rebuilding it from source takes. */
  clgpu_context *context;
  char *source;
  size_t source_length;
  char *options;
  /* The binary's program after a rebuild, kept until the context is
   * destroyed because clgpu_program_cl_program may have handed it out. */
  cl_program replaced;
  /* Guards the kernels, and `program`, `source`, `options` and `replaced`
   * once the program is ready. */
  pthread_mutex_t kernel_lock;
  kernel_slot *kernels;
  size_t kernel_count;
  size_t kernel_capacity;
  clgpu_program *next;
};

struct clgpu__program_cache {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  clgpu_program *programs;
  clgpu_cache_stats stats;
};

clgpu_status clgpu__program_cache_create(clgpu__program_cache **out) {
  clgpu__program_cache *cache = calloc(1, sizeof *cache);
  CLGPU__RETURN_ERROR_IF(!cache, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  if (pthread_mutex_init(&cache->lock, NULL) != 0) {
    free(cache);
    return clgpu__fail(CLGPU_INTERNAL_ERROR, "pthread_mutex_init failed");
  }
  if (pthread_cond_init(&cache->changed, NULL) != 0) {
    pthread_mutex_destroy(&cache->lock);
    free(cache);
    return clgpu__fail(CLGPU_INTERNAL_ERROR, "pthread_cond_init failed");
  }
  *out = cache;
  return CLGPU_SUCCESS;
}

static void free_program(clgpu_program *program) {
  for (size_t i = 0; i < program->kernel_count; i++) {
    clReleaseKernel(program->kernels[i].kernel);
    free(program->kernels[i].name);
  }
  free(program->kernels);
  if (program->program) clReleaseProgram(program->program);
  if (program->replaced) clReleaseProgram(program->replaced);
  free(program->source);
  free(program->options);
  pthread_mutex_destroy(&program->kernel_lock);
  free(program);
}

void clgpu__program_cache_destroy(clgpu__program_cache *cache) {
  if (!cache) return;
  clgpu_program *program = cache->programs;
  while (program) {
    clgpu_program *next = program->next;
    free_program(program);
    program = next;
  }
  pthread_cond_destroy(&cache->changed);
  pthread_mutex_destroy(&cache->lock);
  free(cache);
}

/* ---- arguments ---- */

static clgpu_status check_defines(const clgpu_define *defines, size_t count) {
  CLGPU__RETURN_ERROR_IF(count > 0 && !defines, CLGPU_INVALID_ARGUMENT,
                         "defines is NULL but num_defines is %zu", count);
  for (size_t i = 0; i < count; i++) {
    CLGPU__RETURN_ERROR_IF(!clgpu__is_identifier(defines[i].name), CLGPU_INVALID_ARGUMENT,
                           "define %zu: name \"%s\" is not an identifier", i,
                           defines[i].name ? defines[i].name : "(null)");
    const char *value = defines[i].value;
    CLGPU__RETURN_ERROR_IF(value && strpbrk(value, "\r\n"), CLGPU_INVALID_ARGUMENT,
                           "define %zu (%s): the value contains a line break", i, defines[i].name);
    /* A trailing backslash would splice the next prelude line into this one. */
    size_t length = value ? strlen(value) : 0;
    CLGPU__RETURN_ERROR_IF(length > 0 && value[length - 1] == '\\', CLGPU_INVALID_ARGUMENT,
                           "define %zu (%s): the value ends with a backslash", i, defines[i].name);
  }
  return CLGPU_SUCCESS;
}

static const char *const allowed_flags[] = {
    "-w",
    "-Werror",
    "-cl-opt-disable",
    "-cl-mad-enable",
    "-cl-kernel-arg-info",
    "-cl-single-precision-constant",
};

static const char *const forbidden_flags[] = {
    "-cl-fast-relaxed-math",         "-cl-finite-math-only", "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations", "-cl-denorms-are-zero",
};

/* Every option must be on the allow-list; options that change float
 * semantics or the language version get a message saying why they are
 * refused. */
static clgpu_status check_options(const char *options) {
  if (!options) return CLGPU_SUCCESS;
  /* Implementations differ on other whitespace (POCL 3.1 refuses a tab). */
  for (const char *c = options; *c; c++) {
    CLGPU__RETURN_ERROR_IF(isspace((unsigned char)*c) && *c != ' ', CLGPU_INVALID_ARGUMENT,
                           "build options must be separated by spaces only (found character "
                           "0x%02x at position %zu)",
                           (unsigned)(unsigned char)*c, (size_t)(c - options));
  }
  const char *p = options;
  int expect_define = 0;
  while (*p) {
    while (isspace((unsigned char)*p)) p++;
    if (!*p) break;
    const char *start = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    size_t length = (size_t)(p - start);
    char token[256];
    if (length >= sizeof token) length = sizeof token - 1;
    memcpy(token, start, length);
    token[length] = '\0';
    if (expect_define) {
      CLGPU__RETURN_ERROR_IF(!isalpha((unsigned char)token[0]) && token[0] != '_',
                             CLGPU_FORBIDDEN_BUILD_OPTION,
                             "build option \"-D %s\": expected a macro name after -D", token);
      expect_define = 0;
      continue;
    }
    if (strcmp(token, "-D") == 0) {
      expect_define = 1;
      continue;
    }
    if (strncmp(token, "-D", 2) == 0) {
      CLGPU__RETURN_ERROR_IF(!isalpha((unsigned char)token[2]) && token[2] != '_',
                             CLGPU_FORBIDDEN_BUILD_OPTION,
                             "build option \"%s\": expected a macro name after -D", token);
      continue;
    }
    int allowed = 0;
    for (size_t i = 0; i < sizeof allowed_flags / sizeof allowed_flags[0]; i++) {
      allowed |= strcmp(token, allowed_flags[i]) == 0;
    }
    if (allowed) continue;
    for (size_t i = 0; i < sizeof forbidden_flags / sizeof forbidden_flags[0]; i++) {
      CLGPU__RETURN_ERROR_IF(strcmp(token, forbidden_flags[i]) == 0, CLGPU_FORBIDDEN_BUILD_OPTION,
                             "build option \"%s\" is refused: it changes float semantics "
                             "(signed zeros, NaN, infinities or denormals) that clgpu's "
                             "results depend on",
                             token);
    }
    CLGPU__RETURN_ERROR_IF(strncmp(token, "-cl-std", 7) == 0, CLGPU_FORBIDDEN_BUILD_OPTION,
                           "build option \"%s\" is refused: clgpu's kernels are OpenCL C 1.2 "
                           "and are built without -cl-std",
                           token);
    return clgpu__fail(CLGPU_FORBIDDEN_BUILD_OPTION,
                       "build option \"%s\" is not on the allow-list (-D NAME[=VALUE], -w, "
                       "-Werror, -cl-opt-disable, -cl-mad-enable, -cl-kernel-arg-info, "
                       "-cl-single-precision-constant)",
                       token);
  }
  CLGPU__RETURN_ERROR_IF(expect_define, CLGPU_FORBIDDEN_BUILD_OPTION,
                         "build options end with -D and no macro name");
  return CLGPU_SUCCESS;
}

/* One part of a request as the cache uses it: its text (embedded in
 * place, or `owned`: generated text is borrowed, a CLGPU_KERNEL_DIR file is
 * read into `owned`), its SHA-256, and the name the #line before it gives. */
typedef struct resolved_part {
  const char *name; /* the embedded file's stem; NULL for generated text */
  const char *text;
  size_t length;
  unsigned char digest[32];
  char label[80];
  char *owned;
} resolved_part;

static void release_parts(resolved_part *parts, size_t count) {
  for (size_t i = 0; i < count; i++) free(parts[i].owned);
}

static void digest_text(const char *text, size_t length, unsigned char digest[32]) {
  clgpu__sha256 hash;
  clgpu__sha256_init(&hash);
  clgpu__sha256_update(&hash, text, length);
  clgpu__sha256_final(&hash, digest);
}

/* Each part's text and digest: an embedded source in place with the digest
 * computed at build time; a file of CLGPU_KERNEL_DIR (which overrides every
 * embedded part) copied and hashed per call; generated text hashed. */
static clgpu_status resolve_parts(const clgpu__source_part *parts, size_t count,
                                  resolved_part *resolved) {
  for (size_t i = 0; i < count; i++) {
    resolved_part *r = &resolved[i];
    memset(r, 0, sizeof *r);
    clgpu_status status = CLGPU_SUCCESS;
    if (parts[i].name) {
      r->name = parts[i].name;
      snprintf(r->label, sizeof r->label, "%s.cl", parts[i].name);
      const clgpu__embedded_source *embedded = NULL;
      status = clgpu__find_embedded_source(parts[i].name, &embedded);
      if (status == CLGPU_SUCCESS && embedded) {
        r->text = (const char *)embedded->text;
        r->length = embedded->length;
        memcpy(r->digest, embedded->digest, sizeof r->digest);
      } else if (status == CLGPU_SUCCESS) {
        status = clgpu__kernel_source(parts[i].name, &r->owned, NULL);
        r->text = r->owned;
        /* Up to a NUL the file may hold, as for a caller's source. */
        r->length = r->owned ? strlen(r->owned) : 0;
        if (status == CLGPU_SUCCESS) digest_text(r->text, r->length, r->digest);
      }
    } else {
      snprintf(r->label, sizeof r->label, "%s", parts[i].label ? parts[i].label : "generated");
      r->text = parts[i].text;
      r->length = strlen(parts[i].text);
      digest_text(r->text, r->length, r->digest);
    }
    if (status != CLGPU_SUCCESS) {
      release_parts(resolved, i + 1);
      return status;
    }
  }
  return CLGPU_SUCCESS;
}

/* The prelude of #define lines, then the parts. A #line directive before
 * each part makes the compiler's messages count lines of that part: a bare
 * "#line 1" before the first (after the defines, as for a caller's source),
 * "#line 1 \"label\"" before each later one. */
static char *assemble_source(const resolved_part *parts, size_t num_parts,
                             const clgpu_define *defines, size_t count, size_t *length) {
  clgpu__text text = {NULL, 0, 0, 0};
  for (size_t i = 0; i < count; i++) {
    clgpu__text_add(&text, "#define %s %s\n", defines[i].name,
                    defines[i].value ? defines[i].value : "");
  }
  for (size_t p = 0; p < num_parts; p++) {
    if (p > 0) {
      /* A part need not end its last line; the directive needs one of its own. */
      if (text.length > 0 && text.data[text.length - 1] != '\n') clgpu__text_add(&text, "\n");
      clgpu__text_add(&text, "#line 1 \"%s\"\n", parts[p].label);
    } else if (count > 0) {
      clgpu__text_add(&text, "#line 1\n");
    }
    clgpu__text_add_bytes(&text, parts[p].text, parts[p].length);
  }
  return clgpu__text_take(&text, length);
}

/* ---- building ---- */

/* The text that identifies a binary on disk; malloc'd, NULL when out of
 * memory. Every field is stored whole in the file and compared on load. */
static char *describe_key(const clgpu_context *ctx, const unsigned char program_key[32],
                          const char *options) {
  char hex[65];
  clgpu__sha256_hex(program_key, hex);
  char *device = clgpu__disk_cache_device_text(&ctx->info);
  char *key =
      device ? clgpu__format("%sprogram: %s\noptions: %s\n", device, hex, options ? options : "")
             : NULL;
  free(device);
  return key;
}

/* The log as a caller should see it, where the device's compiler needs it
 * rewritten (malloc'd), else NULL: use the log as it is. */
static char *caller_log(const clgpu_context *ctx, const char *source, size_t length,
                        const char *log) {
  if (!ctx->quirks.log_ignores_line_directives) return NULL;
  return clgpu__build_log_map_lines(source, length, log);
}

static clgpu_status report_build_failure(const clgpu_context *ctx, const char *source,
                                         size_t source_length, cl_program program, cl_int err,
                                         const char *options) {
  clgpu__fail((clgpu_status)err,
              "building an OpenCL program for %s failed: %s (%d)\noptions: \"%s\"\nbuild "
              "log:\n",
              ctx->info.name, clgpu__status_name(err), (int)err, options ? options : "");
  size_t length = 0;
  if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &length) ==
          CL_SUCCESS &&
      length > 0) {
    char *log = malloc(length + 1);
    if (log && clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, length, log,
                                     NULL) == CL_SUCCESS) {
      log[length] = '\0';
      char *mapped = caller_log(ctx, source, source_length, log);
      clgpu__append_error("%s", mapped ? mapped : log);
      free(mapped);
    }
    free(log);
  } else {
    clgpu__append_error("(the implementation gave no log)");
  }
  return (clgpu_status)err;
}

static cl_int build_for_device(const clgpu_context *ctx, cl_program program, const char *options);

/* A failed build's message. A quiet build (quiet_options: the library's
 * own sources, built with -w) has no warnings in its log, and a user's
 * expression inside such a program may have caused the error: the source
 * is built once more without -w, and the message gives that build's log,
 * warnings and all (the first build's where the second could not run). */
static clgpu_status report_failure_with_warnings(const clgpu_context *ctx, const char *source,
                                                 size_t length, cl_program program, cl_int err,
                                                 const char *options) {
  size_t words = options ? strlen(options) : 0;
  int quiet = ctx->quiet_builds && words >= 2 && strcmp(options + words - 2, "-w") == 0 &&
              (words == 2 || options[words - 3] == ' ');
  if (!quiet) return report_build_failure(ctx, source, length, program, err, options);
  char *loud = strdup(options);
  if (!loud) return report_build_failure(ctx, source, length, program, err, options);
  loud[words > 2 ? words - 3 : 0] = '\0';
  cl_int again = CL_SUCCESS;
  cl_program second = clgpu__cl_program_with_source(ctx->cl_context, source, length, &again);
  clgpu_status status;
  if (again == CL_SUCCESS && (again = build_for_device(ctx, second, loud)) != CL_SUCCESS) {
    status = report_build_failure(ctx, source, length, second, again, loud);
  } else {
    status = report_build_failure(ctx, source, length, program, err, options);
  }
  if (second) clReleaseProgram(second);
  free(loud);
  return status;
}

/* clBuildProgram of `program` for the context's device with `options`, as
 * the device's quirks want them: with fragile_build_options, each "-D"
 * followed by blanks reaches the compiler joined to the word after it. */
static cl_int build_for_device(const clgpu_context *ctx, cl_program program, const char *options) {
  if (clgpu__cl_build_fault()) return CLGPU__INJECTED_STATUS;
  if (!options || !ctx->quirks.fragile_build_options || !strstr(options, "-D")) {
    return clBuildProgram(program, 1, &ctx->device, options, NULL, NULL);
  }
  size_t length = strlen(options);
  char *joined = malloc(length + 1);
  if (!joined) return CL_OUT_OF_HOST_MEMORY;
  size_t at = 0;
  for (size_t i = 0; i < length;) {
    int word_start = i == 0 || isspace((unsigned char)options[i - 1]);
    if (word_start && options[i] == '-' && options[i + 1] == 'D' &&
        isspace((unsigned char)options[i + 2])) {
      size_t next = i + 2;
      while (next < length && isspace((unsigned char)options[next])) next++;
      joined[at++] = '-';
      joined[at++] = 'D';
      /* "-D" last, with only blanks after it, stays as it was. */
      i = next < length ? next : i + 2;
      continue;
    }
    joined[at++] = options[i++];
  }
  joined[at] = '\0';
  cl_int err = clBuildProgram(program, 1, &ctx->device, joined, NULL, NULL);
  free(joined);
  return err;
}

/* Try the disk cache: 1 and a built program on a hit, 0 otherwise (a
 * rejected file is counted). */
static int load_from_disk(clgpu_context *ctx, const char *key, const char *options,
                          cl_program *out) {
  unsigned char *binary = NULL;
  size_t size = 0;
  double start = clgpu__now_ms();
  int found = clgpu__disk_cache_load(ctx->cache_folder, key, &binary, &size);
  clgpu__program_cache *cache = ctx->programs;
  if (found == 1) {
    cl_int binary_status = CL_SUCCESS, err = CL_SUCCESS;
    const unsigned char *binaries[1] = {binary};
    cl_program program = clgpu__cl_program_with_binary(ctx->cl_context, ctx->device, size,
                                                       binaries[0], &binary_status, &err);
    if (err == CL_SUCCESS && binary_status == CL_SUCCESS) {
      err = build_for_device(ctx, program, options);
      if (err == CL_SUCCESS) {
        free(binary);
        pthread_mutex_lock(&cache->lock);
        cache->stats.disk_hits++;
        cache->stats.disk_load_ms += clgpu__now_ms() - start;
        pthread_mutex_unlock(&cache->lock);
        *out = program;
        return 1;
      }
    }
    if (program) clReleaseProgram(program);
    found = -1;
  }
  free(binary);
  if (found == -1) {
    pthread_mutex_lock(&cache->lock);
    cache->stats.disk_rejects++;
    pthread_mutex_unlock(&cache->lock);
  }
  return 0;
}

static void store_to_disk(clgpu_context *ctx, const char *key, cl_program program) {
  size_t size = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
      size == 0) {
    return;
  }
  unsigned char *binary = malloc(size);
  if (!binary) return;
  unsigned char *binaries[1] = {binary};
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof binaries, binaries, NULL) ==
          CL_SUCCESS &&
      clgpu__disk_cache_store(ctx->cache_folder, key, binary, size)) {
    pthread_mutex_lock(&ctx->programs->lock);
    ctx->programs->stats.disk_writes++;
    pthread_mutex_unlock(&ctx->programs->lock);
  }
  free(binary);
}

/* A successful build's log to the context's build_log, unless it is blank
 * (most implementations give a line break or nothing). */
static void hand_over_log(const clgpu_context *ctx, const char *source, size_t source_length,
                          cl_program program, const char *options) {
  size_t length = 0;
  if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &length) !=
          CL_SUCCESS ||
      length == 0) {
    return;
  }
  char *log = malloc(length + 1);
  if (!log) return;
  if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, length, log, NULL) ==
      CL_SUCCESS) {
    log[length] = '\0';
    int blank = 1;
    for (size_t i = 0; log[i] && blank; i++) blank = isspace((unsigned char)log[i]) != 0;
    if (!blank) {
      char *mapped = caller_log(ctx, source, source_length, log);
      ctx->build_log(ctx->build_log_data, options ? options : "", mapped ? mapped : log);
      free(mapped);
    }
  }
  free(log);
}

static clgpu_status build_from_source(clgpu_context *ctx, const char *source, size_t length,
                                      const char *options, cl_program *out) {
  double start = clgpu__now_ms();
  cl_int err = CL_SUCCESS;
  cl_program program = clgpu__cl_program_with_source(ctx->cl_context, source, length, &err);
  clgpu_status status = CLGPU_SUCCESS;
  if (err != CL_SUCCESS) {
    status = clgpu__fail_cl(err, "clCreateProgramWithSource");
  } else {
    err = build_for_device(ctx, program, options);
    if (err != CL_SUCCESS)
      status = report_failure_with_warnings(ctx, source, length, program, err, options);
  }
  pthread_mutex_lock(&ctx->programs->lock);
  ctx->programs->stats.builds++;
  ctx->programs->stats.build_ms += clgpu__now_ms() - start;
  pthread_mutex_unlock(&ctx->programs->lock);
  if (status != CLGPU_SUCCESS) {
    if (program) clReleaseProgram(program);
    return status;
  }
  if (ctx->build_log) hand_over_log(ctx, source, length, program, options);
  *out = program;
  return CLGPU_SUCCESS;
}

/* From the disk cache when a usable file is there (*loaded 1), else built
 * from source and stored (*loaded 0). */
static clgpu_status build_program(clgpu_context *ctx, const char *source, size_t length,
                                  const unsigned char program_key[32], const char *options,
                                  cl_program *out, int *loaded) {
  *loaded = 0;
  char *key = ctx->cache_folder ? describe_key(ctx, program_key, options) : NULL;
  if (key && load_from_disk(ctx, key, options, out)) {
    free(key);
    *loaded = 1;
    return CLGPU_SUCCESS;
  }
  clgpu_status status = build_from_source(ctx, source, length, options, out);
  if (key && status == CLGPU_SUCCESS) store_to_disk(ctx, key, *out);
  free(key);
  return status;
}

static clgpu_program *find_program(clgpu__program_cache *cache, const unsigned char key[32]) {
  for (clgpu_program *p = cache->programs; p; p = p->next) {
    if (memcmp(p->key, key, 32) == 0) return p;
  }
  return NULL;
}

static void unlink_program(clgpu__program_cache *cache, clgpu_program *program) {
  for (clgpu_program **link = &cache->programs; *link; link = &(*link)->next) {
    if (*link == program) {
      *link = program->next;
      return;
    }
  }
}

/* The key of a program: the SHA-256 of the number of parts, each part's
 * digest (and, after the first, its label, which its #line names), every
 * define and the options, each field terminated so that no two requests
 * share a serialisation. Hashing the parts' digests rather than the
 * assembled text keeps a memory hit cheap: an embedded source's digest is
 * computed at build time, so a hit hashes only the defines and options. */
static void program_key(const resolved_part *parts, size_t num_parts, const clgpu_define *defines,
                        size_t count, const char *options, unsigned char key[32]) {
  static const char tag[] = "clgpu program key 2";
  clgpu__sha256 hash;
  clgpu__sha256_init(&hash);
  clgpu__sha256_update(&hash, tag, sizeof tag);
  uint64_t parts_count = num_parts;
  clgpu__sha256_update(&hash, &parts_count, sizeof parts_count);
  for (size_t p = 0; p < num_parts; p++) {
    if (p > 0) clgpu__sha256_update(&hash, parts[p].label, strlen(parts[p].label) + 1);
    clgpu__sha256_update(&hash, parts[p].digest, 32);
  }
  for (size_t i = 0; i < count; i++) {
    const char *value = defines[i].value ? defines[i].value : "";
    clgpu__sha256_update(&hash, defines[i].name, strlen(defines[i].name) + 1);
    clgpu__sha256_update(&hash, value, strlen(value) + 1);
  }
  /* 0x01 cannot occur in a define (names are identifiers), so it ends the list. */
  clgpu__sha256_update(&hash, "\x01", 1);
  clgpu__sha256_update(&hash, options ? options : "", options ? strlen(options) + 1 : 1);
  clgpu__sha256_final(&hash, key);
}

/* The parts as a recipe names them: embedded files by stem, generated text
 * with its label. */
static void recipe_sources(const resolved_part *parts, size_t num_parts,
                           clgpu__recipe_source *out) {
  for (size_t p = 0; p < num_parts; p++) {
    out[p].name = parts[p].name;
    out[p].text = parts[p].name ? NULL : parts[p].text;
    out[p].label = parts[p].label;
  }
}

/* Get a program whose parts are resolved and whose key is computed: from
 * memory, else from disk, else built; *from (if not NULL) says which. A
 * program new to the context is noted in its record. Arguments are checked
 * by the caller. */
static clgpu_status get_program(clgpu_context *ctx, const resolved_part *parts, size_t num_parts,
                                const clgpu_define *defines, size_t num_defines,
                                const char *options, const unsigned char key[32],
                                clgpu_program **out, clgpu__program_from *from) {
  if (from) *from = CLGPU__FROM_MEMORY;

  clgpu__program_cache *cache = ctx->programs;
  pthread_mutex_lock(&cache->lock);
  clgpu_program *entry;
  for (;;) {
    entry = find_program(cache, key);
    if (!entry) break;
    if (entry->state == PROGRAM_READY) {
      cache->stats.memory_hits++;
      pthread_mutex_unlock(&cache->lock);
      *out = entry;
      return CLGPU_SUCCESS;
    }
    /* Another thread is building it: wait, then look again (its build may
     * have failed and been withdrawn). */
    pthread_cond_wait(&cache->changed, &cache->lock);
  }
  entry = calloc(1, sizeof *entry);
  if (!entry || pthread_mutex_init(&entry->kernel_lock, NULL) != 0) {
    pthread_mutex_unlock(&cache->lock);
    free(entry);
    return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  }
  memcpy(entry->key, key, 32);
  entry->state = PROGRAM_BUILDING;
  entry->cache = cache;
  entry->owner = ctx;
  entry->next = cache->programs;
  cache->programs = entry;
  pthread_mutex_unlock(&cache->lock);

  cl_program program = NULL;
  size_t length = 0;
  int loaded = 0;
  char *full = assemble_source(parts, num_parts, defines, num_defines, &length);
  clgpu_status status = full ? build_program(ctx, full, length, key, options, &program, &loaded)
                             : clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  /* A binary from disk is trusted only until a kernel its request names
   * cannot be made from it: keep what building it from source takes. */
  char *kept_options = loaded && options ? strdup(options) : NULL;
  if (status == CLGPU_SUCCESS && loaded && (!options || kept_options)) {
    entry->context = ctx;
    entry->source = full;
    entry->source_length = length;
    entry->options = kept_options;
    full = NULL;
  } else {
    free(kept_options);
  }
  free(full);

  pthread_mutex_lock(&cache->lock);
  if (status == CLGPU_SUCCESS) {
    entry->program = program;
    entry->state = PROGRAM_READY;
  } else {
    unlink_program(cache, entry);
  }
  pthread_cond_broadcast(&cache->changed);
  pthread_mutex_unlock(&cache->lock);
  if (status != CLGPU_SUCCESS) {
    free_program(entry);
    return status;
  }
  if (from) *from = loaded ? CLGPU__FROM_DISK : CLGPU__FROM_SOURCE;
  if (ctx->record) {
    clgpu__recipe_source sources[CLGPU__MAX_PARTS];
    recipe_sources(parts, num_parts, sources);
    clgpu__record_note(ctx->record, sources, num_parts, defines, num_defines, options, key);
  }
  *out = entry;
  return CLGPU_SUCCESS;
}

static clgpu_status check_request(const clgpu_context *ctx, const clgpu_define *defines,
                                  size_t num_defines, const char *options) {
  CLGPU__RETURN_ERROR_IF(!ctx, CLGPU_INVALID_ARGUMENT, "context is NULL");
  CLGPU__FORWARD_IF_ERROR(check_defines(defines, num_defines));
  CLGPU__FORWARD_IF_ERROR(check_options(options));
  CLGPU__RETURN_ERROR_IF(
      options && ctx->quirks.fragile_build_options && strchr(options, '"'),
      CLGPU_FORBIDDEN_BUILD_OPTION,
      "build options holding a double quote are refused on %s (driver %s): its compiler "
      "crashes the process on them (clang::SourceManager::~SourceManager); pass such a value "
      "through a clgpu_define instead",
      ctx->info.platform_name, ctx->info.driver_version);
  return CLGPU_SUCCESS;
}

#define MAX_PARTS CLGPU__MAX_PARTS

/* The list a thread's requests are captured into instead of built
 * (clgpu__program_capture), or NULL. */
static _Thread_local clgpu__recipe_list *capturing;

void clgpu__program_capture(clgpu__recipe_list *list) { capturing = list; }

/* Whether `options` holds the word -w. */
static int has_quiet_word(const char *options) {
  for (const char *at = options ? strstr(options, "-w") : NULL; at; at = strstr(at + 2, "-w")) {
    if ((at == options || at[-1] == ' ') && (at[2] == ' ' || at[2] == '\0')) return 1;
  }
  return 0;
}

/* The options a request is built with: a program of the library's own
 * sources (some part named: an embedded kernel file) is built with -w
 * where the context is quiet, so that implementations that print a
 * build's diagnostics (POCL) print nothing of ours on the caller's stderr.
 * A user's whole program (clgpu_program_get, no named part) keeps the
 * options it gave. *quiet: a malloc'd copy with " -w" added, or NULL when
 * `options` stays as it is. */
static clgpu_status quiet_options(const clgpu_context *ctx, const clgpu__source_part *parts,
                                  size_t num_parts, const char *options, char **quiet) {
  *quiet = NULL;
  int library = 0;
  for (size_t i = 0; i < num_parts; i++) library |= parts[i].name != NULL;
  if (!library || !ctx->quiet_builds || has_quiet_word(options)) return CLGPU_SUCCESS;
  *quiet = options && *options ? clgpu__format("%s -w", options) : strdup("-w");
  CLGPU__RETURN_ERROR_IF(!*quiet, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  return CLGPU_SUCCESS;
}

/* The parts resolved, then the program; the request is checked by the
 * caller. */
static clgpu_status get_parts(clgpu_context *ctx, const clgpu__source_part *parts, size_t num_parts,
                              const clgpu_define *defines, size_t num_defines,
                              const char *asked_options, clgpu_program **out) {
  CLGPU__RETURN_ERROR_IF(num_parts == 0 || num_parts > MAX_PARTS, CLGPU_INTERNAL_ERROR,
                         "a program of %zu source parts (1 to %d)", num_parts, MAX_PARTS);
  resolved_part resolved[MAX_PARTS];
  CLGPU__FORWARD_IF_ERROR(resolve_parts(parts, num_parts, resolved));
  char *quiet = NULL;
  clgpu_status quieted = quiet_options(ctx, parts, num_parts, asked_options, &quiet);
  if (quieted != CLGPU_SUCCESS) {
    release_parts(resolved, num_parts);
    return quieted;
  }
  const char *options = quiet ? quiet : asked_options;
  unsigned char key[32];
  program_key(resolved, num_parts, defines, num_defines, options, key);
  clgpu_status status = CLGPU_SUCCESS;
  if (capturing) {
    clgpu__recipe_source sources[MAX_PARTS];
    recipe_sources(resolved, num_parts, sources);
    if (clgpu__recipe_list_add(capturing, sources, num_parts, defines, num_defines, options, key) <
        0) {
      status = clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
    }
  } else {
    status = get_program(ctx, resolved, num_parts, defines, num_defines, options, key, out, NULL);
  }
  release_parts(resolved, num_parts);
  free(quiet);
  return status;
}

clgpu_status clgpu__program_get_recipe(clgpu_context *ctx, const clgpu__recipe *recipe,
                                       clgpu_program **out, clgpu__program_from *from) {
  *out = NULL;
  *from = CLGPU__FROM_STALE;
  clgpu__source_part parts[MAX_PARTS];
  CLGPU__RETURN_ERROR_IF(recipe->num_parts == 0 || recipe->num_parts > MAX_PARTS,
                         CLGPU_INTERNAL_ERROR, "a recipe of %zu parts", recipe->num_parts);
  for (size_t p = 0; p < recipe->num_parts; p++) {
    parts[p].name = recipe->parts[p].name;
    parts[p].text = recipe->parts[p].text;
    parts[p].label = recipe->parts[p].label;
  }
  CLGPU__FORWARD_IF_ERROR(
      check_request(ctx, recipe->defines, recipe->num_defines, recipe->options));
  resolved_part resolved[MAX_PARTS];
  clgpu_status resolving = resolve_parts(parts, recipe->num_parts, resolved);
  /* A stem this library no longer embeds, or a file CLGPU_KERNEL_DIR no
   * longer holds: stale. (A recorded stem that is not a valid name at all
   * is refused as CLGPU_INVALID_ARGUMENT, a failure.) */
  if (resolving == CLGPU_KERNEL_SOURCE_NOT_FOUND) return CLGPU_SUCCESS;
  CLGPU__FORWARD_IF_ERROR(resolving);
  unsigned char key[32];
  program_key(resolved, recipe->num_parts, recipe->defines, recipe->num_defines, recipe->options,
              key);
  clgpu_status status = CLGPU_SUCCESS;
  /* Sources changed since the recipe was taken (another build of the
   * library, an edited CLGPU_KERNEL_DIR): no call of this process would ask
   * for what it builds. */
  if (memcmp(key, recipe->key, 32) == 0) {
    status = get_program(ctx, resolved, recipe->num_parts, recipe->defines, recipe->num_defines,
                         recipe->options, key, out, from);
  }
  release_parts(resolved, recipe->num_parts);
  return status;
}

clgpu_status clgpu__program_get_parts(clgpu_context *ctx, const clgpu__source_part *parts,
                                      size_t num_parts, const clgpu_define *defines,
                                      size_t num_defines, const char *options,
                                      clgpu_program **out) {
  *out = NULL;
  CLGPU__FORWARD_IF_ERROR(check_request(ctx, defines, num_defines, options));
  return get_parts(ctx, parts, num_parts, defines, num_defines, options, out);
}

clgpu_status clgpu__program_get(clgpu_context *ctx, const char *source, const clgpu_define *defines,
                                size_t num_defines, const char *options, clgpu_program **out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "clgpu_program_get: out is NULL");
  *out = NULL;
  CLGPU__RETURN_ERROR_IF(!source, CLGPU_INVALID_ARGUMENT, "clgpu_program_get: source is NULL");
  CLGPU__FORWARD_IF_ERROR(check_request(ctx, defines, num_defines, options));
  clgpu__source_part part = {NULL, source, NULL};
  return get_parts(ctx, &part, 1, defines, num_defines, options, out);
}

clgpu_status clgpu_program_get(clgpu_context *ctx, const char *source, const clgpu_define *defines,
                               size_t num_defines, const char *options, clgpu_program **out) {
  return clgpu__program_get(ctx, source, defines, num_defines, options, out);
}

/* The families written on cl/common.cl, which is built before them. */
static int needs_common(const char *name) {
  static const char *const families[] = {"elementwise", "reduce", "sort"};
  for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
    if (strcmp(name, families[i]) == 0) return 1;
  }
  return 0;
}

clgpu_status clgpu__program_get_named(clgpu_context *ctx, const char *name,
                                      const clgpu_define *defines, size_t num_defines,
                                      const char *options, clgpu_program **out) {
  CLGPU__RETURN_ERROR_IF(!out, CLGPU_INVALID_ARGUMENT, "clgpu_program_get_named: out is NULL");
  *out = NULL;
  CLGPU__FORWARD_IF_ERROR(check_request(ctx, defines, num_defines, options));
  /* Checked here so that a bad name is refused before needs_common reads
   * it, with the message it always had. */
  const clgpu__embedded_source *unused = NULL;
  CLGPU__FORWARD_IF_ERROR(clgpu__find_embedded_source(name, &unused));
  clgpu__source_part parts[2] = {{"common", NULL, NULL}, {name, NULL, NULL}};
  int prelude = needs_common(name);
  return get_parts(ctx, prelude ? parts : parts + 1, prelude ? 2 : 1, defines, num_defines, options,
                   out);
}

clgpu_status clgpu_program_get_named(clgpu_context *ctx, const char *name,
                                     const clgpu_define *defines, size_t num_defines,
                                     const char *options, clgpu_program **out) {
  return clgpu__program_get_named(ctx, name, defines, num_defines, options, out);
}

cl_program clgpu_program_cl_program(const clgpu_program *program) {
  if (!program) return NULL;
  /* A rebuild may replace the program while another thread asks; the lock
   * is not part of the program's value, so taking it through a const
   * pointer changes nothing the caller can see. */
  clgpu_program *guarded = (clgpu_program *)program;
  pthread_mutex_lock(&guarded->kernel_lock);
  cl_program result = guarded->program;
  pthread_mutex_unlock(&guarded->kernel_lock);
  return result;
}

/* A binary from the disk cache that cannot make a kernel of the caller's is
 * not the program its file's key names: the folder is shared, and anyone who
 * can write it can put another program's binary under any name. Build from
 * source, replace the file, and retire what the binary gave: kernels not
 * leased are released now, leased ones stay valid until their lease ends,
 * and the binary's cl_program until the context is destroyed (the caller of
 * clgpu_program_cl_program may hold it). Called with kernel_lock held, so
 * that no lease is handed out from the binary meanwhile. */
static clgpu_status rebuild_from_source(clgpu_program *program) {
  clgpu_context *ctx = program->context;
  cl_program fresh = NULL;
  CLGPU__FORWARD_IF_ERROR(
      build_from_source(ctx, program->source, program->source_length, program->options, &fresh));
  pthread_mutex_lock(&program->cache->lock);
  program->cache->stats.disk_rejects++;
  pthread_mutex_unlock(&program->cache->lock);
  char *key = ctx->cache_folder ? describe_key(ctx, program->key, program->options) : NULL;
  if (key) store_to_disk(ctx, key, fresh);
  free(key);
  size_t kept = 0;
  for (size_t i = 0; i < program->kernel_count; i++) {
    kernel_slot slot = program->kernels[i];
    if (!slot.leased) {
      clReleaseKernel(slot.kernel);
      free(slot.name);
      continue;
    }
    slot.retired = 1;
    program->kernels[kept++] = slot;
  }
  program->kernel_count = kept;
  program->replaced = program->program;
  program->program = fresh;
  free(program->source);
  free(program->options);
  program->source = NULL;
  program->options = NULL;
  program->context = NULL;
  return CLGPU_SUCCESS;
}

/* clCreateKernel's errors that say the program lacks the kernel, rather than
 * that the implementation ran out of something. */
static int lacks_kernel(cl_int err) {
  return err == CL_INVALID_KERNEL_NAME || err == CL_INVALID_KERNEL_DEFINITION ||
         err == CL_INVALID_PROGRAM_EXECUTABLE;
}

/* ---- kernel leases ---- */

/* The pool's kernel of that name that no lease holds, under kernel_lock;
 * NULL when there is none. */
static kernel_slot *free_slot(clgpu_program *program, const char *name) {
  for (size_t i = 0; i < program->kernel_count; i++) {
    kernel_slot *slot = &program->kernels[i];
    if (!slot->leased && !slot->retired && strcmp(slot->name, name) == 0) return slot;
  }
  return NULL;
}

/* Add a kernel to the pool (taking `name`, strdup'ed), under kernel_lock;
 * its slot, or NULL when the pool cannot grow. */
static kernel_slot *add_slot(clgpu_program *program, char *name, cl_kernel kernel, int leased) {
  if (program->kernel_count == program->kernel_capacity) {
    size_t capacity = program->kernel_capacity ? 2 * program->kernel_capacity : 4;
    kernel_slot *grown = realloc(program->kernels, capacity * sizeof *grown);
    if (!grown) return NULL;
    program->kernels = grown;
    program->kernel_capacity = capacity;
  }
  kernel_slot *slot = &program->kernels[program->kernel_count++];
  slot->name = name;
  slot->kernel = kernel;
  slot->leased = leased;
  slot->retired = 0;
  slot->group_checked = 0;
  return slot;
}

clgpu_status clgpu__kernel_acquire(clgpu_program *program, const char *kernel_name,
                                   cl_kernel *kernel) {
  CLGPU__RETURN_ERROR_IF(!kernel, CLGPU_INVALID_ARGUMENT, "clgpu_kernel_acquire: kernel is NULL");
  *kernel = NULL;
  CLGPU__RETURN_ERROR_IF(!program, CLGPU_INVALID_ARGUMENT, "clgpu_kernel_acquire: program is NULL");
  CLGPU__RETURN_ERROR_IF(!kernel_name, CLGPU_INVALID_ARGUMENT,
                         "clgpu_kernel_acquire: kernel_name is NULL");
  /* No kernel has a name that is not an identifier, and such a name never
   * reaches clCreateKernel: rusticl (Mesa 22.3) aborts the process on a
   * name that is not UTF-8 (a Rust panic in c_string_to_string) instead of
   * returning CL_INVALID_KERNEL_NAME. */
  CLGPU__RETURN_ERROR_IF(!clgpu__is_identifier(kernel_name), CLGPU_CL_INVALID_KERNEL_NAME,
                         "clgpu_kernel_acquire: kernel_name is not an OpenCL C identifier "
                         "(letters, digits and '_', not starting with a digit), so no kernel "
                         "has that name");
  pthread_mutex_lock(&program->kernel_lock);
  kernel_slot *waiting = free_slot(program, kernel_name);
  if (waiting) {
    waiting->leased = 1;
    *kernel = waiting->kernel;
    pthread_mutex_unlock(&program->kernel_lock);
    return CLGPU_SUCCESS;
  }
  clgpu_status status = CLGPU_SUCCESS;
  cl_int err = CL_SUCCESS;
  cl_kernel created = clgpu__cl_create_kernel(program->program, kernel_name, &err);
  if (lacks_kernel(err) && program->source) {
    status = rebuild_from_source(program);
    if (status != CLGPU_SUCCESS) {
      pthread_mutex_unlock(&program->kernel_lock);
      return status;
    }
    created = clCreateKernel(program->program, kernel_name, &err);
  }
  char *name = err == CL_SUCCESS ? strdup(kernel_name) : NULL;
  if (err != CL_SUCCESS) {
    status = clgpu__fail((clgpu_status)err, "clCreateKernel(\"%s\") failed: %s (%d)", kernel_name,
                         clgpu__status_name(err), (int)err);
  } else if (!name || !add_slot(program, name, created, 1)) {
    free(name);
    clReleaseKernel(created);
    status = clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  } else {
    *kernel = created;
  }
  pthread_mutex_unlock(&program->kernel_lock);
  if (status == CLGPU_SUCCESS) {
    pthread_mutex_lock(&program->cache->lock);
    program->cache->stats.kernels_created++;
    pthread_mutex_unlock(&program->cache->lock);
  }
  return status;
}

size_t clgpu__program_create_kernels(clgpu_program *program) {
  pthread_mutex_lock(&program->kernel_lock);
  cl_program cl = program->program;
  clRetainProgram(cl); /* a rebuild may replace it meanwhile */
  pthread_mutex_unlock(&program->kernel_lock);
  cl_uint count = 0;
  cl_kernel *made = NULL;
  cl_int err = clCreateKernelsInProgram(cl, 0, NULL, &count);
  if (err == CL_SUCCESS && count > 0) made = malloc(count * sizeof *made);
  if (made) err = clCreateKernelsInProgram(cl, count, made, NULL);
  size_t added = 0;
  for (cl_uint k = 0; made && err == CL_SUCCESS && k < count; k++) {
    char name[256];
    cl_int got = clGetKernelInfo(made[k], CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
    char *copy = got == CL_SUCCESS ? strdup(name) : NULL;
    pthread_mutex_lock(&program->kernel_lock);
    int keep = copy && program->program == cl && !free_slot(program, name) &&
               add_slot(program, copy, made[k], 0);
    added += keep;
    pthread_mutex_unlock(&program->kernel_lock);
    if (!keep) {
      free(copy);
      clReleaseKernel(made[k]);
    }
  }
  free(made);
  clReleaseProgram(cl);
  if (added > 0) {
    pthread_mutex_lock(&program->cache->lock);
    program->cache->stats.kernels_created += added;
    pthread_mutex_unlock(&program->cache->lock);
  }
  return added;
}

clgpu_status clgpu_kernel_acquire(clgpu_program *program, const char *kernel_name,
                                  cl_kernel *kernel) {
  return clgpu__kernel_acquire(program, kernel_name, kernel);
}

void clgpu__kernel_release(clgpu_program *program, cl_kernel kernel) {
  if (!program || !kernel) return;
  pthread_mutex_lock(&program->kernel_lock);
  for (size_t i = 0; i < program->kernel_count; i++) {
    kernel_slot *slot = &program->kernels[i];
    if (slot->kernel != kernel) continue;
    slot->leased = 0;
    if (slot->retired) {
      clReleaseKernel(slot->kernel);
      free(slot->name);
      *slot = program->kernels[--program->kernel_count];
    }
    break;
  }
  pthread_mutex_unlock(&program->kernel_lock);
}

/* The pool's slot of a kernel, under kernel_lock; NULL when not pooled. */
static kernel_slot *slot_of(clgpu_program *program, cl_kernel kernel) {
  for (size_t i = 0; i < program->kernel_count; i++) {
    if (program->kernels[i].kernel == kernel) return &program->kernels[i];
  }
  return NULL;
}

int clgpu__kernel_group_checked(clgpu_program *program, cl_kernel kernel) {
  pthread_mutex_lock(&program->kernel_lock);
  kernel_slot *slot = slot_of(program, kernel);
  int checked = slot && slot->group_checked;
  pthread_mutex_unlock(&program->kernel_lock);
  return checked;
}

void clgpu__kernel_mark_group_checked(clgpu_program *program, cl_kernel kernel) {
  pthread_mutex_lock(&program->kernel_lock);
  kernel_slot *slot = slot_of(program, kernel);
  if (slot) slot->group_checked = 1;
  pthread_mutex_unlock(&program->kernel_lock);
}

void clgpu_kernel_release(clgpu_program *program, cl_kernel kernel) {
  clgpu__kernel_release(program, kernel);
}

clgpu_status clgpu_program_cache_stats(const clgpu_context *ctx, clgpu_cache_stats *stats) {
  CLGPU__RETURN_ERROR_IF(!ctx || !stats, CLGPU_INVALID_ARGUMENT,
                         "clgpu_program_cache_stats: context and stats must not be NULL");
  pthread_mutex_lock(&ctx->programs->lock);
  *stats = ctx->programs->stats;
  pthread_mutex_unlock(&ctx->programs->lock);
  return CLGPU_SUCCESS;
}

clgpu_context *clgpu__program_owner(const clgpu_program *program) { return program->owner; }
