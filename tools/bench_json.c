/* clgpu-bench's JSON reader (bench_json.h): a recursive descent over the
 * text, one json_value per value, arrays and objects grown by doubling. */
#include "bench_json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct parser {
  const char *text;
  size_t length, at;
  char *error;
  size_t error_size;
  int failed;
} parser;

/* Record the first failure, at the current place: "line L, column C: ...". */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int
fail(parser *p, const char *format, ...) {
  if (p->failed) return -1;
  p->failed = 1;
  size_t line = 1, column = 1;
  for (size_t k = 0; k < p->at && k < p->length; k++) {
    if (p->text[k] == '\n') {
      line++;
      column = 1;
    } else {
      column++;
    }
  }
  int used = snprintf(p->error, p->error_size, "line %zu, column %zu: ", line, column);
  if (used >= 0 && (size_t)used < p->error_size) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(p->error + used, p->error_size - (size_t)used, format, arguments);
    va_end(arguments);
  }
  return -1;
}

static void skip_space(parser *p) {
  while (p->at < p->length) {
    char c = p->text[p->at];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    p->at++;
  }
}

static int peek(const parser *p) { return p->at < p->length ? (unsigned char)p->text[p->at] : -1; }

/* What a failure says was found: "end of text" or "'c'". */
static const char *found(const parser *p, char *buffer, size_t size) {
  int c = peek(p);
  if (c < 0) return "the end of the text";
  if (c < 0x20 || c >= 0x7f) {
    snprintf(buffer, size, "byte 0x%02x", (unsigned)c);
  } else {
    snprintf(buffer, size, "'%c'", c);
  }
  return buffer;
}

static int parse_value(parser *p, json_value *out, int depth);

/* A growing byte buffer for a string's decoded text. */
typedef struct text_buffer {
  char *bytes;
  size_t used, size;
} text_buffer;

static int put_byte(text_buffer *b, unsigned char c) {
  if (b->used + 1 >= b->size) {
    size_t size = b->size ? b->size * 2 : 32;
    char *bytes = realloc(b->bytes, size);
    if (!bytes) return -1;
    b->bytes = bytes;
    b->size = size;
  }
  b->bytes[b->used++] = (char)c;
  b->bytes[b->used] = '\0';
  return 0;
}

/* A code point as UTF-8. */
static int put_code_point(text_buffer *b, unsigned long c) {
  if (c < 0x80) return put_byte(b, (unsigned char)c);
  if (c < 0x800) {
    return put_byte(b, (unsigned char)(0xc0 | (c >> 6))) ||
           put_byte(b, (unsigned char)(0x80 | (c & 0x3f)));
  }
  if (c < 0x10000) {
    return put_byte(b, (unsigned char)(0xe0 | (c >> 12))) ||
           put_byte(b, (unsigned char)(0x80 | ((c >> 6) & 0x3f))) ||
           put_byte(b, (unsigned char)(0x80 | (c & 0x3f)));
  }
  return put_byte(b, (unsigned char)(0xf0 | (c >> 18))) ||
         put_byte(b, (unsigned char)(0x80 | ((c >> 12) & 0x3f))) ||
         put_byte(b, (unsigned char)(0x80 | ((c >> 6) & 0x3f))) ||
         put_byte(b, (unsigned char)(0x80 | (c & 0x3f)));
}

/* Four hexadecimal digits after "\u": their value, or -1. */
static long hex4(parser *p) {
  if (p->length - p->at < 4) return -1;
  long value = 0;
  for (int k = 0; k < 4; k++) {
    char c = p->text[p->at + (size_t)k];
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  p->at += 4;
  return value;
}

/* A string, the opening quote at p->at: its decoded text into *out
 * (malloc'ed). */
static int parse_string(parser *p, char **out) {
  text_buffer b = {NULL, 0, 0};
  p->at++; /* the quote */
  if (put_byte(&b, 0) != 0) return fail(p, "out of host memory");
  b.used = 0;
  for (;;) {
    int c = peek(p);
    if (c < 0) {
      free(b.bytes);
      return fail(p, "a string without its closing quote");
    }
    if (c == '"') {
      p->at++;
      *out = b.bytes;
      return 0;
    }
    if (c < 0x20) {
      free(b.bytes);
      return fail(p, "a control character (0x%02x) in a string", (unsigned)c);
    }
    int failed = 0;
    if (c != '\\') {
      failed = put_byte(&b, (unsigned char)c);
      p->at++;
    } else {
      p->at++;
      int e = peek(p);
      const char *plain = "\"\\/bfnrt", *meaning = "\"\\/\b\f\n\r\t";
      const char *where = e > 0 ? strchr(plain, e) : NULL;
      if (where) {
        failed = put_byte(&b, (unsigned char)meaning[where - plain]);
        p->at++;
      } else if (e == 'u') {
        p->at++;
        long unit = hex4(p);
        unsigned long code = (unsigned long)unit;
        if (unit >= 0xd800 && unit < 0xdc00) { /* a high surrogate: its low one must follow */
          long low = -1;
          if (p->length - p->at >= 2 && p->text[p->at] == '\\' && p->text[p->at + 1] == 'u') {
            p->at += 2;
            low = hex4(p);
          }
          if (low < 0xdc00 || low >= 0xe000) {
            free(b.bytes);
            return fail(p, "a \\u escape of a lone surrogate");
          }
          code = 0x10000 + (((unsigned long)unit - 0xd800) << 10) + ((unsigned long)low - 0xdc00);
        } else if (unit < 0 || (unit >= 0xdc00 && unit < 0xe000)) {
          free(b.bytes);
          return fail(p, unit < 0 ? "\\u without four hexadecimal digits"
                                  : "a \\u escape of a lone surrogate");
        }
        failed = put_code_point(&b, code);
      } else {
        free(b.bytes);
        return fail(p, "an unknown escape in a string");
      }
    }
    if (failed) {
      free(b.bytes);
      return fail(p, "out of host memory");
    }
  }
}

/* A number as RFC 8259 writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int parse_number(parser *p, double *out) {
  size_t start = p->at;
  if (peek(p) == '-') p->at++;
  if (peek(p) == '0') {
    p->at++;
  } else if (peek(p) >= '1' && peek(p) <= '9') {
    while (peek(p) >= '0' && peek(p) <= '9') p->at++;
  } else {
    return fail(p, "a number without digits");
  }
  if (peek(p) == '.') {
    p->at++;
    if (!(peek(p) >= '0' && peek(p) <= '9')) return fail(p, "a number without digits after '.'");
    while (peek(p) >= '0' && peek(p) <= '9') p->at++;
  }
  if (peek(p) == 'e' || peek(p) == 'E') {
    p->at++;
    if (peek(p) == '+' || peek(p) == '-') p->at++;
    if (!(peek(p) >= '0' && peek(p) <= '9')) return fail(p, "a number without an exponent");
    while (peek(p) >= '0' && peek(p) <= '9') p->at++;
  }
  char digits[64];
  size_t length = p->at - start;
  if (length >= sizeof digits) {
    /* Longer than any double needs: strtod reads it from a copy all the same. */
    char *copy = malloc(length + 1);
    if (!copy) return fail(p, "out of host memory");
    memcpy(copy, p->text + start, length);
    copy[length] = '\0';
    *out = strtod(copy, NULL);
    free(copy);
    return 0;
  }
  memcpy(digits, p->text + start, length);
  digits[length] = '\0';
  *out = strtod(digits, NULL); /* the grammar above is a subset of strtod's in the C locale */
  return 0;
}

/* Append an item (and, for objects, its name) to a container. */
static int append(json_value *container, size_t *capacity, const json_value *item, char *name) {
  if (container->count == *capacity) {
    size_t size = *capacity ? *capacity * 2 : 8;
    json_value *items = realloc(container->items, size * sizeof *items);
    if (!items) return -1;
    container->items = items;
    if (container->kind == JSON_OBJECT) {
      char **names = realloc(container->names, size * sizeof *names);
      if (!names) return -1;
      container->names = names;
    }
    *capacity = size;
  }
  container->items[container->count] = *item;
  if (container->kind == JSON_OBJECT) container->names[container->count] = name;
  container->count++;
  return 0;
}

/* The values in `value` (not value itself). */
static void free_contents(json_value *value) {
  for (size_t k = 0; k < value->count; k++) {
    free_contents(&value->items[k]);
    if (value->names) free(value->names[k]);
  }
  free(value->items);
  free(value->names);
  free(value->string);
}

/* An array or object, its bracket at p->at. */
static int parse_container(parser *p, json_value *out, int depth) {
  const int object = peek(p) == '{';
  const char close = object ? '}' : ']';
  char seen[16];
  size_t capacity = 0;
  out->kind = object ? JSON_OBJECT : JSON_ARRAY;
  if (depth >= MAX_DEPTH) return fail(p, "more than %d levels of nesting", MAX_DEPTH);
  p->at++;
  skip_space(p);
  if (peek(p) == close) {
    p->at++;
    return 0;
  }
  for (;;) {
    char *name = NULL;
    if (object) {
      skip_space(p);
      if (peek(p) != '"')
        return fail(p, "a member name expected, found %s", found(p, seen, sizeof seen));
      if (parse_string(p, &name) != 0) return -1;
      skip_space(p);
      if (peek(p) != ':') {
        free(name);
        return fail(p, "':' expected after a member name, found %s", found(p, seen, sizeof seen));
      }
      p->at++;
    }
    json_value item;
    memset(&item, 0, sizeof item);
    if (parse_value(p, &item, depth + 1) != 0) {
      free_contents(&item);
      free(name);
      return -1;
    }
    if (append(out, &capacity, &item, name) != 0) {
      free_contents(&item);
      free(name);
      return fail(p, "out of host memory");
    }
    skip_space(p);
    if (peek(p) == ',') {
      p->at++;
      continue;
    }
    if (peek(p) == close) {
      p->at++;
      return 0;
    }
    return fail(p, "',' or '%c' expected, found %s", close, found(p, seen, sizeof seen));
  }
}

/* The literal `word` (true, false, null) at p->at. */
static int parse_word(parser *p, const char *word) {
  size_t length = strlen(word);
  if (p->length - p->at < length || memcmp(p->text + p->at, word, length) != 0) {
    char seen[16];
    return fail(p, "a value expected, found %s", found(p, seen, sizeof seen));
  }
  p->at += length;
  return 0;
}

static int parse_value(parser *p, json_value *out, int depth) {
  skip_space(p);
  int c = peek(p);
  switch (c) {
    case '{':
    case '[':
      return parse_container(p, out, depth);
    case '"':
      out->kind = JSON_STRING;
      return parse_string(p, &out->string);
    case 't':
      out->kind = JSON_TRUE;
      return parse_word(p, "true");
    case 'f':
      out->kind = JSON_FALSE;
      return parse_word(p, "false");
    case 'n':
      out->kind = JSON_NULL;
      return parse_word(p, "null");
    default:
      if (c == '-' || (c >= '0' && c <= '9')) {
        out->kind = JSON_NUMBER;
        return parse_number(p, &out->number);
      }
      char seen[16];
      return fail(p, "a value expected, found %s", found(p, seen, sizeof seen));
  }
}

int bench_json_parse(const char *text, size_t length, json_value **out, char *error,
                     size_t error_size) {
  *out = NULL;
  if (error_size) error[0] = '\0';
  parser p = {text, length, 0, error, error_size, 0};
  json_value *root = calloc(1, sizeof *root);
  if (!root) return fail(&p, "out of host memory");
  int failed = parse_value(&p, root, 0);
  if (!failed) {
    skip_space(&p);
    if (p.at < p.length) {
      char seen[16];
      failed = fail(&p, "text after the value: %s", found(&p, seen, sizeof seen));
    }
  }
  if (failed) {
    bench_json_free(root);
    return -1;
  }
  *out = root;
  return 0;
}

int bench_json_read_file(const char *path, json_value **out, char *error, size_t error_size) {
  *out = NULL;
  const int standard_input = strcmp(path, "-") == 0;
  FILE *in = standard_input ? stdin : fopen(path, "rb");
  if (!in) {
    snprintf(error, error_size, "%s", strerror(errno));
    return -1;
  }
  char *text = NULL;
  size_t used = 0, size = 0;
  int failed = 0;
  for (;;) {
    if (used == size) {
      size_t bigger = size ? size * 2 : 65536;
      char *grown = realloc(text, bigger);
      if (!grown) {
        failed = ENOMEM;
        break;
      }
      text = grown;
      size = bigger;
    }
    size_t got = fread(text + used, 1, size - used, in);
    used += got;
    if (got == 0) {
      if (ferror(in)) failed = errno ? errno : EIO;
      break;
    }
  }
  if (!standard_input) fclose(in);
  if (failed) {
    free(text);
    snprintf(error, error_size, "%s", strerror(failed));
    return -1;
  }
  int parsed = bench_json_parse(text ? text : "", used, out, error, error_size);
  free(text);
  return parsed == 0 ? 0 : -2;
}

void bench_json_free(json_value *value) {
  if (!value) return;
  free_contents(value);
  free(value);
}

const json_value *bench_json_member(const json_value *value, const char *name) {
  if (!value || value->kind != JSON_OBJECT) return NULL;
  for (size_t k = 0; k < value->count; k++) {
    if (strcmp(value->names[k], name) == 0) return &value->items[k];
  }
  return NULL;
}

double bench_json_as_number(const json_value *value) {
  return value && value->kind == JSON_NUMBER ? value->number : NAN;
}

const char *bench_json_as_string(const json_value *value) {
  return value && value->kind == JSON_STRING ? value->string : NULL;
}
