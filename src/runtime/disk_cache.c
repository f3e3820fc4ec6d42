/* The on-disk cache of program binaries.
 *
 * One file per program, named by the SHA-256 of its key text, holding:
 *   "CLGPUBIN"            8 bytes
 *   format version        4 bytes, little-endian (1)
 *   key length            4 bytes, little-endian
 *   binary length         8 bytes, little-endian
 *   key text, binary
 *   check of all of the above, 8 bytes, little-endian (file_check)
 * A file whose magic, version, key, lengths or check do not match is
 * rejected as a whole. Files are written to a temporary name in the same
 * folder and renamed into place, so readers never see a partial file. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <clgpu/context.h>
#include <clgpu/program.h>
#include <clgpu/version.h>

#include "disk_cache.h"
#include "quirks.h"
#include "sha256.h"
#include "status_internal.h"
#include "text.h"

/* Version 1 ended in a SHA-256 of the file (32 bytes), whose computation
 * took about 1.5 ms of a 200 KiB binary's load, a third of a warm first
 * call on POCL; version 2 ends in file_check's 8 bytes. A version 1 file is
 * rejected like a damaged one, and replaced. */
#define FORMAT_VERSION 2u
#define HEADER_SIZE 24u
#define TRAILER_SIZE 8u
#define SUFFIX ".clgpubin"
/* The largest cache file read or written: far above any binary of clgpu's
 * kernels, and small enough that a planted file cannot exhaust memory. */
#define MAX_FILE_SIZE ((size_t)64 << 20)

static char *copy_string(const char *text) {
  size_t length = strlen(text);
  char *copy = malloc(length + 1);
  if (copy) memcpy(copy, text, length + 1);
  return copy;
}

/* The folder the options and environment name, before mode checks: malloc'd,
 * or NULL when "off" or when no folder can be named. */
static char *named_folder(const char *option) {
  const char *chosen = option && *option ? option : getenv("CLGPU_CACHE_DIR");
  if (chosen && *chosen) {
    if (strcmp(chosen, "off") == 0) return NULL;
    return copy_string(chosen);
  }
  const char *base = getenv("XDG_CACHE_HOME");
  const char *tail = "/clgpu";
  if (!base || base[0] != '/') {
    base = getenv("HOME");
    tail = "/.cache/clgpu";
  }
  if (!base || !*base) return NULL;
  size_t size = strlen(base) + strlen(tail) + 1;
  char *folder = malloc(size);
  if (folder) snprintf(folder, size, "%s%s", base, tail);
  return folder;
}

/* mkdir -p; 1 when the folder exists afterwards and is writable. */
static int make_folder(const char *folder) {
  char *path = copy_string(folder);
  if (!path) return 0;
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
      free(path);
      return 0;
    }
    *p = '/';
  }
  int made = mkdir(path, 0755) == 0 || errno == EEXIST;
  free(path);
  struct stat info;
  return made && stat(folder, &info) == 0 && S_ISDIR(info.st_mode) &&
         access(folder, W_OK | X_OK) == 0;
}

char *clgpu__disk_cache_folder(const char *option, clgpu_disk_cache_mode mode,
                               int from_environment, const clgpu__quirks *quirks) {
  if (mode == CLGPU_DISK_CACHE_OFF) return NULL;
  if (mode == CLGPU_DISK_CACHE_DEFAULT) {
    int on = from_environment >= 0 ? from_environment : quirks->disk_cache_by_default;
    if (!on) return NULL;
  }
  char *folder = named_folder(option);
  if (folder && !make_folder(folder)) {
    free(folder);
    folder = NULL;
  }
  return folder;
}

char *clgpu__disk_cache_device_text(const clgpu_device_info *info) {
  return clgpu__format("clgpu %s\nplatform: %s | %s\ndevice: %s | %s | %s | %s\n",
                       CLGPU_VERSION_STRING, info->platform_name, info->platform_version,
                       info->name, info->vendor, info->device_version, info->driver_version);
}

static char *file_path(const char *folder, const char *key) {
  unsigned char digest[32];
  char hex[65];
  clgpu__sha256 hash;
  clgpu__sha256_init(&hash);
  clgpu__sha256_update(&hash, key, strlen(key));
  clgpu__sha256_final(&hash, digest);
  clgpu__sha256_hex(digest, hex);
  size_t size = strlen(folder) + 1 + 64 + sizeof SUFFIX;
  char *path = malloc(size);
  if (path) snprintf(path, size, "%s/%s%s", folder, hex, SUFFIX);
  return path;
}

static void put_le(unsigned char *out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; i++) out[i] = (unsigned char)(value >> (8 * i));
}

static uint64_t get_le(const unsigned char *in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; i++) value |= (uint64_t)in[i] << (8 * i);
  return value;
}

/* The check a file ends in: it finds damage (a torn copy, flipped bits, a
 * file cut or grown), not intent; the folder is trusted (docs/program-cache.md).
 * Four lanes each take every fourth 8-byte little-endian word (the last
 * block zero-padded, the size in the lanes' start) through
 * l' = rotl(l xor w, 23) * K1. For a fixed l that step is one-to-one in w,
 * and for a fixed w in l; the fold at the end is one-to-one in each lane
 * when the others are fixed. So damage inside one 8-byte word always changes
 * the check, and other damage leaves it unchanged with a chance near 2^-64.
 * 200 KiB take about 35 us here, where SHA-256 took 1.5 ms. */
#define CHECK_K1 0x9e3779b97f4a7c15ull
#define CHECK_K2 0xc2b2ae3d27d4eb4full

static uint64_t check_step(uint64_t lane, uint64_t word) {
  uint64_t x = lane ^ word;
  return ((x << 23) | (x >> 41)) * CHECK_K1;
}

static uint64_t check_mix(uint64_t x) {
  x ^= x >> 31;
  x *= CHECK_K2;
  x ^= x >> 29;
  return x;
}

typedef struct {
  uint64_t lane[4];
  unsigned char block[32]; /* bytes not yet taken, `held` of them */
  size_t held;
  uint64_t size;
} file_check;

static void check_start(file_check *c, uint64_t size) {
  c->lane[0] = size ^ CHECK_K1;
  c->lane[1] = ~size;
  c->lane[2] = CHECK_K2;
  c->lane[3] = CHECK_K1 ^ CHECK_K2;
  c->held = 0;
  c->size = size;
}

/* A little-endian word in one load where the host is little-endian
 * (get_le's byte loop is not merged into one by the compiler). */
static uint64_t load_le64(const unsigned char *in) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t word;
  memcpy(&word, in, sizeof word);
  return word;
#else
  return get_le(in, 8);
#endif
}

static void check_block(file_check *c, const unsigned char *block) {
  for (int k = 0; k < 4; k++) c->lane[k] = check_step(c->lane[k], load_le64(block + 8 * k));
}

static void check_add(file_check *c, const unsigned char *data, size_t size) {
  if (c->held > 0) {
    size_t take = 32 - c->held < size ? 32 - c->held : size;
    memcpy(c->block + c->held, data, take);
    c->held += take;
    data += take;
    size -= take;
    if (c->held < 32) return;
    check_block(c, c->block);
    c->held = 0;
  }
  for (; size >= 32; data += 32, size -= 32) check_block(c, data);
  memcpy(c->block, data, size);
  c->held = size;
}

static uint64_t check_end(file_check *c) {
  if (c->held > 0) {
    memset(c->block + c->held, 0, 32 - c->held);
    check_block(c, c->block);
  }
  uint64_t h = c->size;
  for (int k = 0; k < 4; k++) {
    h = (h ^ check_mix(c->lane[k])) * CHECK_K1;
    h ^= h >> 32;
  }
  return h;
}

/* ---- reading files from folders that others may write ---- */

static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

static clgpu__file_result file_failure(clgpu__file_result result, char *reason, size_t reason_size,
                                       const char *format, ...) CLGPU__PRINTF(4, 5);

static clgpu__file_result file_failure(clgpu__file_result result, char *reason, size_t reason_size,
                                       const char *format, ...) {
  if (reason && reason_size > 0) {
    va_list args;
    va_start(args, format);
    vsnprintf(reason, reason_size, format, args);
    va_end(args);
  }
  return result;
}

/* Whatever sits at the path, nothing here blocks or reads without bound: the
 * path is looked at before it is opened (opening a device can have effects
 * of its own), opened without blocking (a FIFO with no writer would block an
 * ordinary open forever), and what was opened is what is checked and read,
 * at most `limit` bytes. */
clgpu__file_result clgpu__read_regular_file(const char *path, size_t limit, int follow_links,
                                            unsigned char **data, size_t *size, char *reason,
                                            size_t reason_size) {
  *data = NULL;
  *size = 0;
  if (reason && reason_size > 0) reason[0] = '\0';
  struct stat info;
  if ((follow_links ? stat(path, &info) : lstat(path, &info)) != 0) {
    int error = errno;
    return file_failure(
        error == ENOENT || error == ENOTDIR ? CLGPU__FILE_MISSING : CLGPU__FILE_UNREADABLE, reason,
        reason_size, "%s", strerror(error));
  }
  if (!S_ISREG(info.st_mode)) {
    return file_failure(CLGPU__FILE_NOT_REGULAR, reason, reason_size, "%s",
                        file_kind(info.st_mode));
  }
  int descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (follow_links ? 0 : O_NOFOLLOW));
  if (descriptor < 0) {
    int error = errno;
    if (error == ELOOP && !follow_links) {
      return file_failure(CLGPU__FILE_NOT_REGULAR, reason, reason_size, "a symbolic link");
    }
    return file_failure(
        error == ENOENT || error == ENOTDIR ? CLGPU__FILE_MISSING : CLGPU__FILE_UNREADABLE, reason,
        reason_size, "%s", strerror(error));
  }
  /* The path may have been swapped since it was looked at: what counts is
   * what was opened. */
  clgpu__file_result result = CLGPU__FILE_READ;
  unsigned char *buffer = NULL;
  size_t used = 0;
  if (fstat(descriptor, &info) != 0) {
    result = file_failure(CLGPU__FILE_UNREADABLE, reason, reason_size, "%s", strerror(errno));
  } else if (!S_ISREG(info.st_mode)) {
    result =
        file_failure(CLGPU__FILE_NOT_REGULAR, reason, reason_size, "%s", file_kind(info.st_mode));
  } else if (info.st_size < 0 || (uint64_t)info.st_size > limit) {
    result = file_failure(CLGPU__FILE_TOO_LARGE, reason, reason_size, "%lld bytes",
                          (long long)info.st_size);
  } else {
    /* A file that grows while it is read is read up to the size it had. */
    size_t length = (size_t)info.st_size;
    buffer = malloc(length + 1);
    if (!buffer) result = file_failure(CLGPU__FILE_NO_MEMORY, reason, reason_size, "out of memory");
    while (buffer && used < length) {
      ssize_t got = read(descriptor, buffer + used, length - used);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        result = file_failure(CLGPU__FILE_UNREADABLE, reason, reason_size, "%s", strerror(errno));
        break;
      }
      if (got == 0) break;
      used += (size_t)got;
    }
  }
  close(descriptor);
  if (result != CLGPU__FILE_READ) {
    free(buffer);
    return result;
  }
  buffer[used] = '\0';
  *data = buffer;
  *size = used;
  return CLGPU__FILE_READ;
}

/* ---- the cache files ---- */

int clgpu__disk_cache_load(const char *folder, const char *key, unsigned char **binary,
                           size_t *size) {
  *binary = NULL;
  *size = 0;
  char *path = file_path(folder, key);
  if (!path) return 0;
  /* clgpu writes regular files only, never links: anything else at the name
   * is unusable (and replaced by the next store, which renames over it). */
  unsigned char *data = NULL;
  size_t file_size = 0;
  clgpu__file_result result =
      clgpu__read_regular_file(path, MAX_FILE_SIZE, 0, &data, &file_size, NULL, 0);
  free(path);
  if (result == CLGPU__FILE_MISSING || result == CLGPU__FILE_NO_MEMORY) return 0;
  if (result != CLGPU__FILE_READ) return -1;
  size_t key_length = strlen(key);
  /* Every length is checked against the file's size before it is used, so
   * a damaged header cannot make a read run past the data. */
  int valid = file_size >= HEADER_SIZE + TRAILER_SIZE &&
              file_size - HEADER_SIZE - TRAILER_SIZE >= key_length &&
              memcmp(data, "CLGPUBIN", 8) == 0 && get_le(data + 8, 4) == FORMAT_VERSION &&
              get_le(data + 12, 4) == key_length;
  uint64_t binary_length = valid ? get_le(data + 16, 8) : 0;
  valid = valid && binary_length > 0 &&
          binary_length == (uint64_t)file_size - HEADER_SIZE - key_length - TRAILER_SIZE &&
          memcmp(data + HEADER_SIZE, key, key_length) == 0;
  if (valid) {
    file_check check;
    check_start(&check, file_size - TRAILER_SIZE);
    check_add(&check, data, file_size - TRAILER_SIZE);
    valid = check_end(&check) == get_le(data + file_size - TRAILER_SIZE, 8);
  }
  if (!valid) {
    free(data);
    return -1;
  }
  unsigned char *copy = malloc((size_t)binary_length);
  if (!copy) {
    free(data);
    return 0;
  }
  memcpy(copy, data + HEADER_SIZE + key_length, (size_t)binary_length);
  free(data);
  *binary = copy;
  *size = (size_t)binary_length;
  return 1;
}

static int write_all(int descriptor, const void *data, size_t size) {
  const unsigned char *bytes = data;
  while (size > 0) {
    ssize_t written = write(descriptor, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return 0;
    bytes += written;
    size -= (size_t)written;
  }
  return 1;
}

int clgpu__disk_cache_store(const char *folder, const char *key, const unsigned char *binary,
                            size_t size) {
  size_t key_length = strlen(key);
  /* A file the loader would refuse is not worth writing. */
  if (key_length > MAX_FILE_SIZE - HEADER_SIZE - TRAILER_SIZE ||
      size > MAX_FILE_SIZE - HEADER_SIZE - TRAILER_SIZE - key_length) {
    return 0;
  }
  char *path = file_path(folder, key);
  if (!path) return 0;
  static _Atomic unsigned counter;
  unsigned serial = counter++;
  size_t temporary_size = strlen(path) + 48;
  char *temporary = malloc(temporary_size);
  if (!temporary) {
    free(path);
    return 0;
  }
  snprintf(temporary, temporary_size, "%s.%ld.%u.tmp", path, (long)getpid(), serial);

  unsigned char header[HEADER_SIZE];
  memcpy(header, "CLGPUBIN", 8);
  put_le(header + 8, FORMAT_VERSION, 4);
  put_le(header + 12, key_length, 4);
  put_le(header + 16, size, 8);
  file_check check;
  check_start(&check, HEADER_SIZE + key_length + size);
  check_add(&check, header, sizeof header);
  check_add(&check, (const unsigned char *)key, key_length);
  check_add(&check, binary, size);
  unsigned char trailer[TRAILER_SIZE];
  put_le(trailer, check_end(&check), TRAILER_SIZE);

  int stored = 0;
  int descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (descriptor >= 0) {
    int written = write_all(descriptor, header, sizeof header) &&
                  write_all(descriptor, key, key_length) && write_all(descriptor, binary, size) &&
                  write_all(descriptor, trailer, sizeof trailer);
    int closed = close(descriptor) == 0;
    stored = written && closed && rename(temporary, path) == 0;
    if (!stored) unlink(temporary);
  }
  free(temporary);
  free(path);
  return stored;
}

/* Names clgpu writes: 64 lower-case hex digits, the suffix, and for a
 * writer's temporary file ".<pid>.<n>.tmp" after it. */
static int is_cache_file(const char *name) {
  size_t length = strlen(name);
  size_t suffix = sizeof SUFFIX - 1;
  if (length < 64 + suffix) return 0;
  for (size_t i = 0; i < 64; i++) {
    if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f'))) return 0;
  }
  if (length == 64 + suffix && strcmp(name + 64, SUFFIX) == 0) return 1;
  /* Temporary files of a writer that died: "<hash>.clgpubin.<pid>.<n>.tmp". */
  return length > 64 + suffix + 4 && strncmp(name + 64, SUFFIX ".", suffix + 1) == 0 &&
         strcmp(name + length - 4, ".tmp") == 0;
}

clgpu_status clgpu_disk_cache_clear(const char *folder, size_t *removed) {
  if (removed) *removed = 0;
  char *chosen = folder ? copy_string(folder) : named_folder(NULL);
  CLGPU__RETURN_ERROR_IF(!chosen && !folder, CLGPU_INVALID_ARGUMENT,
                         "clgpu_disk_cache_clear: no folder given and none configured "
                         "(CLGPU_CACHE_DIR is \"off\" or HOME is unset)");
  CLGPU__RETURN_ERROR_IF(!chosen, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  DIR *directory = opendir(chosen);
  if (!directory) {
    int error = errno;
    clgpu_status status = CLGPU_SUCCESS;
    if (error != ENOENT && error != ENOTDIR) {
      status = clgpu__fail(CLGPU_IO_ERROR, "clgpu_disk_cache_clear: cannot open \"%s\": %s", chosen,
                           strerror(error));
    }
    free(chosen);
    return status;
  }
  clgpu_status status = CLGPU_SUCCESS;
  size_t count = 0;
  struct dirent *entry;
  while ((entry = readdir(directory)) != NULL) {
    if (!is_cache_file(entry->d_name)) continue;
    size_t size = strlen(chosen) + strlen(entry->d_name) + 2;
    char *path = malloc(size);
    if (!path) {
      status = clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
      break;
    }
    snprintf(path, size, "%s/%s", chosen, entry->d_name);
    if (unlink(path) == 0) {
      count++;
    } else if (errno != ENOENT) {
      status = clgpu__fail(CLGPU_IO_ERROR, "clgpu_disk_cache_clear: cannot remove \"%s\": %s", path,
                           strerror(errno));
    }
    free(path);
  }
  closedir(directory);
  free(chosen);
  if (removed) *removed = count;
  return status;
}
