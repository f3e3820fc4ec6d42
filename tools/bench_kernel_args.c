/* clgpu-bench kernel's argument specs (bench_kernel_args.h): parsing a
 * --arg, its values in the bytes of its type, the types of kernel
 * parameters, and the buffers' data. */
#include "bench_kernel_args.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

static const arg_type arg_types[] = {
    {"char", "int8", NULL, 1, KIND_SIGNED},    {"uchar", "uint8", NULL, 1, KIND_UNSIGNED},
    {"short", "int16", NULL, 2, KIND_SIGNED},  {"ushort", "uint16", NULL, 2, KIND_UNSIGNED},
    {"int", "int32", NULL, 4, KIND_SIGNED},    {"uint", "uint32", NULL, 4, KIND_UNSIGNED},
    {"long", "int64", NULL, 8, KIND_SIGNED},   {"ulong", "uint64", NULL, 8, KIND_UNSIGNED},
    {"float", "float32", NULL, 4, KIND_FLOAT}, {"double", "float64", NULL, 8, KIND_FLOAT},
};
#define NUM_ARG_TYPES (sizeof arg_types / sizeof arg_types[0])

static const arg_type *find_type(const char *name, size_t length) {
  for (size_t t = 0; t < NUM_ARG_TYPES; t++) {
    const char *names[] = {arg_types[t].name, arg_types[t].alias, arg_types[t].alias2};
    for (size_t k = 0; k < 3; k++) {
      if (names[k] && strlen(names[k]) == length && strncmp(names[k], name, length) == 0) {
        return &arg_types[t];
      }
    }
  }
  return NULL;
}

/* The low `size` bytes of an integer into out, in host order: a signed
 * value passed as its uint64_t conversion keeps its two's complement bits. */
static void store_integer(uint64_t v, size_t size, unsigned char out[8]) {
  uint8_t u8 = (uint8_t)v;
  uint16_t u16 = (uint16_t)v;
  uint32_t u32 = (uint32_t)v;
  memcpy(out,
         size == 1   ? (void *)&u8
         : size == 2 ? (void *)&u16
         : size == 4 ? (void *)&u32
                     : (void *)&v,
         size);
}

/* VALUE of `type` into out (its bytes, host order): 0, or -1 when it is not a
 * number of the type or out of its range. */
static int parse_value(const arg_type *type, const char *text, unsigned char out[8]) {
  if (!*text || isspace((unsigned char)text[0])) return -1;
  char *end = NULL;
  errno = 0;
  if (type->kind == KIND_FLOAT) {
    double v = strtod(text, &end);
    if (*end != '\0' || (errno == ERANGE && isinf(v))) return -1;
    if (type->size == 4) {
      if (isfinite(v) && fabs(v) > FLT_MAX) return -1;
      float f = (float)v;
      memcpy(out, &f, sizeof f);
    } else {
      memcpy(out, &v, sizeof v);
    }
    return 0;
  }
  int hex = (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) ||
            (text[0] == '-' && text[1] == '0' && (text[2] == 'x' || text[2] == 'X'));
  if (type->kind == KIND_UNSIGNED) {
    if (text[0] == '-' || text[0] == '+') return -1;
    unsigned long long v = strtoull(text, &end, hex ? 16 : 10);
    if (*end != '\0' || end == text || errno == ERANGE) return -1;
    unsigned long long max = type->size == 8 ? ULLONG_MAX : (1ull << (8 * type->size)) - 1;
    if (v > max) return -1;
    store_integer(v, type->size, out);
    return 0;
  }
  long long v = strtoll(text, &end, hex ? 16 : 10);
  if (*end != '\0' || end == text || errno == ERANGE) return -1;
  long long max = type->size == 8 ? LLONG_MAX : (1ll << (8 * type->size - 1)) - 1;
  long long min = type->size == 8 ? LLONG_MIN : -max - 1;
  if (v < min || v > max) return -1;
  store_integer((uint64_t)v, type->size, out);
  return 0;
}

static void list_types(char *buffer, size_t size) {
  buffer[0] = '\0';
  for (size_t t = 0; t < NUM_ARG_TYPES; t++) {
    size_t used = strlen(buffer);
    snprintf(buffer + used, size - used, "%s%s", t ? ", " : "", arg_types[t].name);
  }
}

int bench_arg_parse(const bench_command *command, const char *text, size_t index, arg_spec *spec) {
  memset(spec, 0, sizeof *spec);
  spec->text = text;
  if (strncmp(text, "local:", 6) == 0) {
    spec->kind = ARG_LOCAL;
    if (bench_parse_size(text + 6, &spec->bytes) != 0) {
      return bench_usage_error(
          command,
          "--arg %zu '%s': local:BYTES needs a byte count from 1 to 4G-1 (suffixes K, M, G)", index,
          text);
    }
    return 0;
  }
  size_t length = strcspn(text, "[=");
  spec->type = find_type(text, length);
  if (!spec->type) {
    char types[160];
    list_types(types, sizeof types);
    return bench_usage_error(command,
                             "--arg %zu '%s': unknown type '%.*s' (types: %s, or local:BYTES)",
                             index, text, (int)length, text, types);
  }
  const char *rest = text + length;
  if (*rest == '\0') {
    return bench_usage_error(
        command,
        "--arg %zu '%s': a buffer needs a count (%s[COUNT]) and a scalar a value (%s=VALUE)", index,
        text, spec->type->name, spec->type->name);
  }
  if (*rest == '=') {
    spec->kind = ARG_SCALAR;
    spec->bytes = spec->type->size;
    spec->value_text = rest + 1;
    if (parse_value(spec->type, rest + 1, spec->value) != 0) {
      return bench_usage_error(command, "--arg %zu '%s': '%s' is not a %s value", index, text,
                               rest + 1, spec->type->name);
    }
    return 0;
  }
  /* TYPE[COUNT]... */
  const char *close = strchr(rest, ']');
  char count_text[32];
  size_t count_length = close ? (size_t)(close - rest - 1) : 0;
  if (!close || count_length == 0 || count_length >= sizeof count_text) {
    return bench_usage_error(command, "--arg %zu '%s': expected %s[COUNT] with a count in brackets",
                             index, text, spec->type->name);
  }
  memcpy(count_text, rest + 1, count_length);
  count_text[count_length] = '\0';
  spec->kind = ARG_BUFFER;
  if (bench_parse_size(count_text, &spec->count) != 0) {
    return bench_usage_error(
        command, "--arg %zu '%s': '%s' is not an element count from 1 to 4G-1 (suffixes K, M, G)",
        index, text, count_text);
  }
  spec->bytes = spec->count * spec->type->size;
  const char *after = close + 1;
  if (*after == '\0' || strcmp(after, "=random") == 0) {
    spec->fill = FILL_RANDOM;
  } else if (strcmp(after, "=zeros") == 0) {
    spec->fill = FILL_ZEROS;
  } else if (*after == '=') {
    spec->fill = FILL_VALUE;
    spec->value_text = after + 1;
    if (parse_value(spec->type, after + 1, spec->value) != 0) {
      return bench_usage_error(command,
                               "--arg %zu '%s': '%s' is not a %s value (nor random or zeros)",
                               index, text, after + 1, spec->type->name);
    }
  } else {
    return bench_usage_error(command, "--arg %zu '%s': unexpected '%s' after the count", index,
                             text, after);
  }
  return 0;
}

const arg_type *bench_arg_type_of_parameter(const char *type_name) {
  /* "unsigned int" -> "uint", "float*" -> "float": the name specs use. */
  static const char *const unsigned_names[][2] = {
      {"unsigned char", "uchar"}, {"unsigned short", "ushort"}, {"unsigned int", "uint"},
      {"unsigned long", "ulong"}, {"signed char", "char"},
  };
  char base[128];
  snprintf(base, sizeof base, "%s", type_name);
  size_t length = strlen(base);
  while (length > 0 && (base[length - 1] == '*' || isspace((unsigned char)base[length - 1]))) {
    base[--length] = '\0';
  }
  for (size_t k = 0; k < sizeof unsigned_names / sizeof unsigned_names[0]; k++) {
    if (strcmp(base, unsigned_names[k][0]) == 0)
      snprintf(base, sizeof base, "%s", unsigned_names[k][1]);
  }
  return find_type(base, strlen(base));
}

void bench_arg_fill(const arg_spec *a, size_t index, void *data) {
  unsigned char *bytes = data;
  uint64_t seed = 0x6b65726e656c0000ull + index; /* "kernel" and the index */
  if (a->fill == FILL_ZEROS) {
    memset(bytes, 0, a->bytes);
  } else if (a->fill == FILL_VALUE) {
    for (size_t i = 0; i < a->count; i++)
      memcpy(bytes + i * a->type->size, a->value, a->type->size);
  } else if (a->type->kind == KIND_FLOAT && a->type->size == 4) {
    float *x = data;
    for (size_t i = 0; i < a->count; i++) x[i] = (float)(bench_splitmix64(&seed) >> 40) * 0x1p-24f;
  } else if (a->type->kind == KIND_FLOAT) {
    double *x = data;
    for (size_t i = 0; i < a->count; i++) x[i] = (double)(bench_splitmix64(&seed) >> 11) * 0x1p-53;
  } else {
    size_t i = 0;
    for (; i + 8 <= a->bytes; i += 8) {
      uint64_t word = bench_splitmix64(&seed);
      memcpy(bytes + i, &word, 8);
    }
    if (i < a->bytes) {
      uint64_t word = bench_splitmix64(&seed);
      memcpy(bytes + i, &word, a->bytes - i);
    }
  }
}

const char *bench_arg_kind_name(const arg_spec *a) {
  return a->kind == ARG_BUFFER ? "buffer" : a->kind == ARG_LOCAL ? "local" : "scalar";
}

const char *bench_arg_fill_name(const arg_spec *a) {
  return a->fill == FILL_ZEROS ? "zeros" : a->fill == FILL_VALUE ? "value" : "random";
}
