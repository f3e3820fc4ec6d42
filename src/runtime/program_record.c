/* Recipes and the record of programs (program_record.h).
 *
 * A record is one file of the disk-cache folder, written and checked like a
 * binary (disk_cache.c: magic, version, key text, lengths and SHA-256,
 * written to a temporary name and renamed), under the key text
 * "<device text>record: <name>\n". Its payload is text:
 *
 *   clgpu record 1\n
 *   then per recipe, oldest first:
 *   R <parts> <defines> <has options>\n
 *   K <64 hex digits of the key>\n
 *   per part:    N <length>\n<name>\n   or   T <label length> <text length>\n<label><text>\n
 *   per define:  D <name length> <value length, or - for none>\n<name><value>\n
 *   options:     O <length>\n<options>\n      (when it has options)
 *
 * Lengths are decimal byte counts; a payload that does not parse is
 * ignored whole (the next note writes a fresh one). */
#include "program_record.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk_cache.h"
#include "sha256.h"
#include "text.h"

/* ---- recipes ---- */

static char *copy_text(const char *text) {
  if (!text) return NULL;
  size_t length = strlen(text);
  char *copy = malloc(length + 1);
  if (copy) memcpy(copy, text, length + 1);
  return copy;
}

void clgpu__recipe_free(clgpu__recipe *recipe) {
  if (!recipe) return;
  for (size_t p = 0; p < recipe->num_parts; p++) {
    free(recipe->parts[p].name);
    free(recipe->parts[p].text);
    free(recipe->parts[p].label);
  }
  for (size_t d = 0; d < recipe->num_defines; d++) {
    free((char *)recipe->defines[d].name);
    free((char *)recipe->defines[d].value);
  }
  free(recipe->defines);
  free(recipe->options);
  memset(recipe, 0, sizeof *recipe);
}

void clgpu__recipe_list_free(clgpu__recipe_list *list) {
  for (size_t i = 0; i < list->count; i++) clgpu__recipe_free(&list->items[i]);
  free(list->items);
  memset(list, 0, sizeof *list);
}

static int list_has(const clgpu__recipe_list *list, const unsigned char key[32]) {
  for (size_t i = 0; i < list->count; i++) {
    if (memcmp(list->items[i].key, key, 32) == 0) return 1;
  }
  return 0;
}

/* Room for one more recipe at the end; 0 out of memory. */
static int list_reserve(clgpu__recipe_list *list) {
  if (list->count < list->capacity) return 1;
  size_t capacity = list->capacity ? list->capacity * 2 : 16;
  clgpu__recipe *items = realloc(list->items, capacity * sizeof *items);
  if (!items) return 0;
  list->items = items;
  list->capacity = capacity;
  return 1;
}

/* Move `recipe` to the end of the list unless its key is there (then it is
 * freed). 1 appended, 0 there, -1 out of memory (freed as well). */
static int list_take(clgpu__recipe_list *list, clgpu__recipe *recipe) {
  if (list_has(list, recipe->key)) {
    clgpu__recipe_free(recipe);
    return 0;
  }
  if (!list_reserve(list)) {
    clgpu__recipe_free(recipe);
    return -1;
  }
  list->items[list->count++] = *recipe;
  memset(recipe, 0, sizeof *recipe);
  return 1;
}

int clgpu__recipe_list_add(clgpu__recipe_list *list, const clgpu__recipe_source *parts,
                           size_t num_parts, const clgpu_define *defines, size_t num_defines,
                           const char *options, const unsigned char key[32]) {
  if (list_has(list, key)) return 0;
  if (num_parts == 0 || num_parts > CLGPU__MAX_PARTS) return -1;
  clgpu__recipe recipe;
  memset(&recipe, 0, sizeof recipe);
  memcpy(recipe.key, key, 32);
  int ok = 1;
  for (size_t p = 0; p < num_parts; p++) {
    clgpu__recipe_part *to = &recipe.parts[p];
    recipe.num_parts = p + 1;
    if (parts[p].name) {
      ok = ok && (to->name = copy_text(parts[p].name)) != NULL;
    } else {
      ok = ok && (to->text = copy_text(parts[p].text)) != NULL;
      ok = ok && (to->label = copy_text(parts[p].label ? parts[p].label : "generated")) != NULL;
    }
  }
  if (ok && num_defines > 0) {
    recipe.defines = calloc(num_defines, sizeof *recipe.defines);
    ok = recipe.defines != NULL;
  }
  for (size_t d = 0; ok && d < num_defines; d++) {
    recipe.num_defines = d + 1;
    recipe.defines[d].name = copy_text(defines[d].name);
    ok = recipe.defines[d].name != NULL;
    if (ok && defines[d].value) {
      recipe.defines[d].value = copy_text(defines[d].value);
      ok = recipe.defines[d].value != NULL;
    }
  }
  if (ok && options) ok = (recipe.options = copy_text(options)) != NULL;
  if (!ok) {
    clgpu__recipe_free(&recipe);
    return -1;
  }
  return list_take(list, &recipe);
}

/* ---- the payload ---- */

static void add_bytes_field(clgpu__text *text, char tag, const char *bytes) {
  size_t length = strlen(bytes);
  clgpu__text_add(text, "%c %zu\n", tag, length);
  clgpu__text_add_bytes(text, bytes, length);
  clgpu__text_add(text, "\n");
}

static char *serialise(const clgpu__recipe_list *list, size_t *length) {
  clgpu__text text = {NULL, 0, 0, 0};
  clgpu__text_add(&text, "clgpu record 1\n");
  for (size_t i = 0; i < list->count; i++) {
    const clgpu__recipe *r = &list->items[i];
    char hex[65];
    clgpu__sha256_hex(r->key, hex);
    clgpu__text_add(&text, "R %zu %zu %d\nK %s\n", r->num_parts, r->num_defines, r->options != NULL,
                    hex);
    for (size_t p = 0; p < r->num_parts; p++) {
      const clgpu__recipe_part *part = &r->parts[p];
      if (part->name) {
        add_bytes_field(&text, 'N', part->name);
      } else {
        clgpu__text_add(&text, "T %zu %zu\n", strlen(part->label), strlen(part->text));
        clgpu__text_add_bytes(&text, part->label, strlen(part->label));
        clgpu__text_add_bytes(&text, part->text, strlen(part->text));
        clgpu__text_add(&text, "\n");
      }
    }
    for (size_t d = 0; d < r->num_defines; d++) {
      const char *name = r->defines[d].name, *value = r->defines[d].value;
      if (value) {
        clgpu__text_add(&text, "D %zu %zu\n", strlen(name), strlen(value));
      } else {
        clgpu__text_add(&text, "D %zu -\n", strlen(name));
      }
      clgpu__text_add_bytes(&text, name, strlen(name));
      if (value) clgpu__text_add_bytes(&text, value, strlen(value));
      clgpu__text_add(&text, "\n");
    }
    if (r->options) add_bytes_field(&text, 'O', r->options);
  }
  return clgpu__text_take(&text, length);
}

/* A cursor over the payload; every read checks the bytes left. */
typedef struct reader {
  const char *at, *end;
} reader;

/* A decimal count of at most `limit`, then the separator `after`. */
static int read_count(reader *r, size_t limit, char after, size_t *out) {
  size_t value = 0;
  const char *start = r->at;
  while (r->at < r->end && *r->at >= '0' && *r->at <= '9') {
    size_t digit = (size_t)(*r->at - '0');
    if (value > (limit - digit) / 10) return 0;
    value = value * 10 + digit;
    r->at++;
  }
  if (r->at == start || r->at >= r->end || *r->at != after) return 0;
  r->at++;
  *out = value;
  return 1;
}

static int read_tag(reader *r, char tag) {
  if (r->end - r->at < 2 || r->at[0] != tag || r->at[1] != ' ') return 0;
  r->at += 2;
  return 1;
}

/* `length` bytes as a NUL-terminated malloc'd string (no NUL inside). */
static int read_string(reader *r, size_t length, char **out) {
  if ((size_t)(r->end - r->at) < length || memchr(r->at, '\0', length)) return 0;
  char *copy = malloc(length + 1);
  if (!copy) return 0;
  memcpy(copy, r->at, length);
  copy[length] = '\0';
  r->at += length;
  *out = copy;
  return 1;
}

static int read_newline(reader *r) {
  if (r->at >= r->end || *r->at != '\n') return 0;
  r->at++;
  return 1;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

static int read_recipe(reader *r, clgpu__recipe *recipe) {
  size_t parts = 0, defines = 0, has_options = 0;
  if (!read_tag(r, 'R') || !read_count(r, CLGPU__MAX_PARTS, ' ', &parts) || parts == 0 ||
      !read_count(r, 4096, ' ', &defines) || !read_count(r, 1, '\n', &has_options) ||
      !read_tag(r, 'K') || r->end - r->at < 65) {
    return 0;
  }
  for (int i = 0; i < 32; i++) {
    int high = hex_value(r->at[2 * i]), low = hex_value(r->at[2 * i + 1]);
    if (high < 0 || low < 0) return 0;
    recipe->key[i] = (unsigned char)(high * 16 + low);
  }
  r->at += 64;
  if (!read_newline(r)) return 0;
  size_t most = (size_t)(r->end - r->at);
  for (size_t p = 0; p < parts; p++) {
    clgpu__recipe_part *part = &recipe->parts[p];
    recipe->num_parts = p + 1;
    size_t label_length = 0, length = 0;
    if (read_tag(r, 'N')) {
      if (!read_count(r, most, '\n', &length) || !read_string(r, length, &part->name)) return 0;
    } else if (read_tag(r, 'T')) {
      if (!read_count(r, most, ' ', &label_length) || !read_count(r, most, '\n', &length) ||
          !read_string(r, label_length, &part->label) || !read_string(r, length, &part->text)) {
        return 0;
      }
    } else {
      return 0;
    }
    if (!read_newline(r)) return 0;
  }
  if (defines > 0 && !(recipe->defines = calloc(defines, sizeof *recipe->defines))) return 0;
  for (size_t d = 0; d < defines; d++) {
    recipe->num_defines = d + 1;
    size_t name_length = 0, value_length = 0;
    char *name = NULL, *value = NULL;
    if (!read_tag(r, 'D') || !read_count(r, most, ' ', &name_length)) return 0;
    int has_value = !(r->end - r->at >= 2 && r->at[0] == '-' && r->at[1] == '\n');
    if (has_value ? !read_count(r, most, '\n', &value_length) : (r->at += 2, 0)) return 0;
    if (!read_string(r, name_length, &name)) return 0;
    recipe->defines[d].name = name;
    if (has_value && !read_string(r, value_length, &value)) return 0;
    recipe->defines[d].value = value;
    if (!read_newline(r)) return 0;
  }
  size_t length = 0;
  if (has_options && (!read_tag(r, 'O') || !read_count(r, most, '\n', &length) ||
                      !read_string(r, length, &recipe->options) || !read_newline(r))) {
    return 0;
  }
  return 1;
}

/* The recipes of a payload; the list is left empty when any of it does not
 * parse. 0, or -1 out of memory. */
static int parse(const unsigned char *data, size_t size, clgpu__recipe_list *out) {
  static const char header[] = "clgpu record 1\n";
  reader r = {(const char *)data, (const char *)data + size};
  if (size < sizeof header - 1 || memcmp(data, header, sizeof header - 1) != 0) return 0;
  r.at += sizeof header - 1;
  while (r.at < r.end) {
    clgpu__recipe recipe;
    memset(&recipe, 0, sizeof recipe);
    if (!read_recipe(&r, &recipe)) {
      clgpu__recipe_free(&recipe);
      clgpu__recipe_list_free(out);
      return 0;
    }
    /* More than a record holds was not written by clgpu: unusable, and
     * not worth the quadratic check for repeated keys. */
    if (out->count >= CLGPU__RECORD_MAX + 1) {
      clgpu__recipe_free(&recipe);
      clgpu__recipe_list_free(out);
      return 0;
    }
    if (list_take(out, &recipe) < 0) {
      clgpu__recipe_list_free(out);
      return -1;
    }
  }
  return 0;
}

/* ---- the record ---- */

struct clgpu__record {
  char *folder;
  char *key; /* the file's key text */
  char *name;
  pthread_mutex_t lock;
  /* The recipes of the file as this record last read or wrote it (empty
   * before the first note); guarded by lock. */
  clgpu__recipe_list known;
};

/* The executable's file name, or "default". malloc'd (NULL out of memory). */
static char *default_name(void) {
  char path[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) return copy_text("default");
  path[length] = '\0';
  const char *slash = strrchr(path, '/');
  return copy_text(slash && slash[1] ? slash + 1 : path);
}

clgpu__record *clgpu__record_open(const char *folder, const clgpu_device_info *info,
                                  const char *name) {
  if (!folder || (name && strcmp(name, "off") == 0)) return NULL;
  clgpu__record *record = calloc(1, sizeof *record);
  if (!record) return NULL;
  record->folder = copy_text(folder);
  record->name = name && *name ? copy_text(name) : default_name();
  char *device = clgpu__disk_cache_device_text(info);
  record->key =
      device && record->name ? clgpu__format("%srecord: %s\n", device, record->name) : NULL;
  free(device);
  if (!record->folder || !record->name || !record->key ||
      pthread_mutex_init(&record->lock, NULL) != 0) {
    free(record->folder);
    free(record->name);
    free(record->key);
    free(record);
    return NULL;
  }
  return record;
}

void clgpu__record_close(clgpu__record *record) {
  if (!record) return;
  clgpu__recipe_list_free(&record->known);
  pthread_mutex_destroy(&record->lock);
  free(record->folder);
  free(record->name);
  free(record->key);
  free(record);
}

const char *clgpu__record_name(const clgpu__record *record) { return record ? record->name : NULL; }

/* The file's recipes into `out` (empty when there is no usable file). */
static int read_file(const clgpu__record *record, clgpu__recipe_list *out) {
  unsigned char *data = NULL;
  size_t size = 0;
  memset(out, 0, sizeof *out);
  if (clgpu__disk_cache_load(record->folder, record->key, &data, &size) != 1) return 0;
  int result = parse(data, size, out);
  free(data);
  return result;
}

int clgpu__record_read(clgpu__record *record, clgpu__recipe_list *out) {
  return read_file(record, out);
}

void clgpu__record_note(clgpu__record *record, const clgpu__recipe_source *parts, size_t num_parts,
                        const clgpu_define *defines, size_t num_defines, const char *options,
                        const unsigned char key[32]) {
  if (!record) return;
  pthread_mutex_lock(&record->lock);
  if (list_has(&record->known, key)) {
    pthread_mutex_unlock(&record->lock);
    return;
  }
  /* Not known: read the file (the first note, or another process may have
   * added recipes since); written only when it lacks the key too. */
  clgpu__recipe_list fresh;
  read_file(record, &fresh);
  int added = clgpu__recipe_list_add(&fresh, parts, num_parts, defines, num_defines, options, key);
  if (added == 1) {
    size_t drop = fresh.count > CLGPU__RECORD_MAX ? fresh.count - CLGPU__RECORD_MAX : 0;
    for (size_t i = 0; i < drop; i++) clgpu__recipe_free(&fresh.items[i]);
    memmove(fresh.items, fresh.items + drop, (fresh.count - drop) * sizeof *fresh.items);
    fresh.count -= drop;
    size_t length = 0;
    char *payload = serialise(&fresh, &length);
    if (payload) {
      clgpu__disk_cache_store(record->folder, record->key, (const unsigned char *)payload, length);
    }
    free(payload);
  }
  if (added >= 0) {
    clgpu__recipe_list_free(&record->known);
    record->known = fresh;
  } else {
    clgpu__recipe_list_free(&fresh);
  }
  pthread_mutex_unlock(&record->lock);
}
