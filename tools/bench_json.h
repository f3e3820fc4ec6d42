/* clgpu-bench's JSON reader (bench_json.c): enough of RFC 8259 to read back
 * the reports the tool writes (`run --format json`, docs/bench-json.md),
 * into a tree of values. The writers are in bench_common.h. */
#ifndef CLGPU_BENCH_JSON_H
#define CLGPU_BENCH_JSON_H

#include <stddef.h>

typedef enum json_kind {
  JSON_NULL,
  JSON_FALSE,
  JSON_TRUE,
  JSON_NUMBER,
  JSON_STRING,
  JSON_ARRAY,
  JSON_OBJECT
} json_kind;

/* A value. Arrays hold `count` items; objects `count` members, names[k]
 * naming items[k], in the document's order (a name given twice is kept
 * twice; bench_json_member finds the first). */
typedef struct json_value {
  json_kind kind;
  double number; /* JSON_NUMBER */
  char *string;  /* JSON_STRING: UTF-8, escapes decoded, NUL-terminated */
  size_t count;
  struct json_value *items;
  char **names;
} json_value;

/* Parse `length` bytes of `text` as one JSON value (white space around it
 * allowed, nothing else): 0 with *out (free it with bench_json_free), or -1
 * with "line L, column C: WHAT" in `error` (out of host memory included).
 * Nesting is limited to 64 levels. */
int bench_json_parse(const char *text, size_t length, json_value **out, char *error,
                     size_t error_size);

/* Read the file `path` ("-": stdin) and parse it: 0 with *out; -1 when it
 * cannot be read, -2 when it is not JSON, with the reason in `error`. */
int bench_json_read_file(const char *path, json_value **out, char *error, size_t error_size);

/* Free a value from bench_json_parse and all it holds; NULL is allowed. */
void bench_json_free(json_value *value);

/* The member `name` of an object; NULL when value is not an object or has
 * no such member. */
const json_value *bench_json_member(const json_value *value, const char *name);

/* A number's value, or NaN for anything else (null included); a string's
 * text, or NULL for anything else. */
double bench_json_as_number(const json_value *value);
const char *bench_json_as_string(const json_value *value);

#endif
