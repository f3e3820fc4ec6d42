/* Replays a corpus folder through the fuzz target of tests/fuzz/, so
 * that the checked-in corpus runs as an ordinary test with gcc and without
 * libFuzzer. Every regular file is one input, run in name order so that a
 * run is reproducible. The target aborts on any violation, so a run that
 * reaches the end has passed every input; the closing line has the shape the
 * other tests' summaries have. An empty or missing corpus fails: a test that
 * replays nothing must not pass. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <clgpu/clgpu.h>

/* Defined in tests/fuzz/harness.c. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const clgpu_device_info *fuzz_api_device_info(void);
void fuzz_api_teardown(void);

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join_path(const char *folder, const char *name) {
  size_t size = strlen(folder) + strlen(name) + 2;
  char *path = malloc(size);
  if (path) snprintf(path, size, "%s/%s", folder, name);
  return path;
}

/* The names of the regular files in `folder`, sorted, malloc'd; NULL when
 * the folder cannot be read. */
static char **list_inputs(const char *folder, size_t *count) {
  *count = 0;
  DIR *entries = opendir(folder);
  if (!entries) return NULL;
  size_t capacity = 64;
  char **names = malloc(capacity * sizeof *names);
  struct dirent *entry;
  while (names && (entry = readdir(entries)) != NULL) {
    char *path = join_path(folder, entry->d_name);
    struct stat info;
    int regular = path && stat(path, &info) == 0 && S_ISREG(info.st_mode);
    free(path);
    if (!regular) continue;
    if (*count == capacity) {
      capacity *= 2;
      char **grown = realloc(names, capacity * sizeof *names);
      if (!grown) break;
      names = grown;
    }
    names[*count] = strdup(entry->d_name);
    if (names[*count]) (*count)++;
  }
  closedir(entries);
  if (!names) return NULL;
  qsort(names, *count, sizeof *names, compare_names);
  return names;
}

/* The whole file, malloc'd (one byte at least, so that an empty input has a
 * valid pointer); NULL when it cannot be read. */
static uint8_t *read_input(const char *path, size_t *size) {
  FILE *file = fopen(path, "rb");
  if (!file) return NULL;
  uint8_t *data = NULL;
  size_t used = 0, capacity = 4096;
  for (;;) {
    uint8_t *grown = realloc(data, capacity);
    if (!grown) {
      free(data);
      data = NULL;
      break;
    }
    data = grown;
    used += fread(data + used, 1, capacity - used, file);
    if (used < capacity) break;
    capacity *= 2;
  }
  if (data && ferror(file)) {
    free(data);
    data = NULL;
  }
  fclose(file);
  *size = used;
  return data;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CORPUS_FOLDER\n", argv[0]);
    return 1;
  }
  const char *folder = argv[1];
  size_t count = 0;
  char **names = list_inputs(folder, &count);
  if (!names || count == 0) {
    fprintf(stderr, "fuzz_replay: no inputs in \"%s\" (missing or empty folder)\n", folder);
    free(names);
    return 1;
  }
  LLVMFuzzerInitialize(&argc, &argv);
  const clgpu_device_info *info = fuzz_api_device_info();
  printf("# device: %s / %s (driver %s)\n", info->platform_name, info->name, info->driver_version);
  fflush(stdout);

  int unreadable = 0;
  size_t run = 0;
  for (size_t i = 0; i < count; i++) {
    char *path = join_path(folder, names[i]);
    size_t size = 0;
    uint8_t *data = path && !unreadable ? read_input(path, &size) : NULL;
    if (data) {
      printf("%s (%zu bytes)\n", names[i], size);
      fflush(stdout);
      LLVMFuzzerTestOneInput(data, size);
      run++;
    } else if (!unreadable) {
      fprintf(stderr, "fuzz_replay: cannot read \"%s\"\n", path ? path : names[i]);
      unreadable = 1;
    }
    free(data);
    free(path);
    free(names[i]);
  }
  free(names);
  /* Everything released before main returns, while the OpenCL runtime is
   * whole (not from the atexit handler). */
  fuzz_api_teardown();
  /* An input that cannot be read was not replayed: no summary claims it. */
  if (unreadable) return 1;
  /* A violation aborts inside the target, so every input counted here passed. */
  printf("fuzz_replay: %zu passed, 0 failed\n", run);
  return 0;
}
