/* Which findall predicates mean the same on sixteen lanes as on one
 * element (vector_predicate.h). A recursive descent over the checked
 * text:
 *
 *   either     := all ( "||" all )*
 *   all        := one ( "&&" one )*
 *   one        := "!" one | "(" either ")" | operand compare operand
 *   operand    := "x" | literal           (at least one side is x)
 *   compare    := "<" | "<=" | ">" | ">=" | "==" | "!="
 *
 * Why these alone: on vectors a comparison gives -1 (not 1) per true lane,
 * and &&, || and ! give -1 or 0 per lane too, so a predicate that only
 * combines comparisons is nonzero in exactly the lanes where the scalar
 * predicate is; one that computes with a comparison's result ((x > 5) == 1)
 * is not. A literal beside a vector must not outrank the element type
 * (OpenCL C refuses uchar16 < 5, 5 being an int), so the vector text casts
 * each literal to the element type; a literal is taken only where that
 * cast keeps its value and the comparison is then the scalar one
 * (literal). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array_internal.h"
#include "expression.h"
#include "text.h"
#include "vector_predicate.h"

typedef struct parser {
  const char *at;
  clgpu_type type;
  clgpu__text out; /* the vector text so far */
} parser;

static void skip_blanks(parser *p) {
  while (*p->at == ' ' || *p->at == '\t' || *p->at == '\n' || *p->at == '\r') p->at++;
}

/* The next token is `token` (an operator): taken, 1. A "<" or ">" is not
 * taken where "<=", "<<", ">=" or ">>" is written, nor "!" where "!=" is. */
static int take(parser *p, const char *token) {
  skip_blanks(p);
  size_t length = strlen(token);
  if (strncmp(p->at, token, length) != 0) return 0;
  char next = p->at[length];
  if (length == 1 && (token[0] == '<' || token[0] == '>') && (next == '=' || next == token[0])) {
    return 0;
  }
  if (length == 1 && token[0] == '!' && next == '=') return 0;
  p->at += length;
  clgpu__text_add(&p->out, "%s ", token);
  return 1;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* A literal, with an optional minus before it, whose comparison with x
 * is the same on a lane as on the element:
 * - integer x: an integer literal whose value x's type holds (so the
 *   conversion to the element type keeps it), with no 'u' suffix when x
 *   is signed (a scalar comparison with an unsigned literal converts x to
 *   unsigned, a vector one converts the literal to signed);
 * - float x: a literal with an 'f' suffix (the same float both ways), or
 *   an integer of magnitude at most 2^24 (exact in a float). A literal
 *   without the suffix is a double, beside which a scalar float compares
 *   in double;
 * - double x: any floating literal, or an integer of magnitude at most
 *   2^53;
 * - half x: none (a half vector's comparisons are not worth the risk). */
static int literal(parser *p) {
  skip_blanks(p);
  int negative = 0;
  if (*p->at == '-') {
    negative = 1;
    p->at++;
    skip_blanks(p);
  }
  const char *start = p->at;
  if (!is_digit(*start) && !(*start == '.' && is_digit(start[1]))) return 0;
  const char *end = start;
  while (clgpu__is_identifier_char(*end) || *end == '.' ||
         ((*end == '+' || *end == '-') && (end[-1] == 'e' || end[-1] == 'E') &&
          !(start[0] == '0' && (start[1] == 'x' || start[1] == 'X')))) {
    end++;
  }
  size_t length = (size_t)(end - start);
  char text[80];
  if (length == 0 || length >= sizeof text) return 0;
  memcpy(text, start, length);
  text[length] = '\0';
  p->at = end;
  int hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  int floating = !hex && (strchr(text, '.') || strchr(text, 'e') || strchr(text, 'E'));
  /* The suffix: the letters after the digits (hex digits count as digits). */
  size_t digits = length;
  while (digits > 0) {
    char c = text[digits - 1];
    int digit = is_digit(c) || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) &&
                                !(floating && (c == 'f' || c == 'F')));
    if (digit || c == '.') break;
    digits--;
  }
  const char *suffix = text + digits;
  int has_f = 0, has_u = 0, has_l = 0;
  for (const char *s = suffix; *s; s++) {
    if (*s == 'f' || *s == 'F') {
      has_f++;
    } else if (*s == 'u' || *s == 'U') {
      has_u++;
    } else if (*s == 'l' || *s == 'L') {
      has_l++;
    } else {
      return 0;
    }
  }
  if (has_u > 1 || has_l > 2 || has_f > 1 || (has_f && (has_u || has_l))) return 0;
  if (has_f && !floating) return 0; /* 5f is no C literal */
  /* The literal as written, cast to the element type. */
  clgpu_type type = p->type;
  clgpu__text_add(&p->out, "((%s)(%s%s)) ", clgpu__type_cl_name(type), negative ? "-" : "", text);
  text[digits] = '\0';
  if (floating) {
    if (has_u || has_l) return 0;
    if (type == CLGPU_TYPE_DOUBLE) return 1;
    return type == CLGPU_TYPE_FLOAT && has_f;
  }
  /* An integer literal: its value, by C's bases (0x hex, 0 octal). */
  errno = 0;
  char *stop = NULL;
  unsigned long long value = strtoull(text, &stop, 0);
  if (errno != 0 || !stop || *stop != '\0') return 0;
  if (type == CLGPU_TYPE_FLOAT || type == CLGPU_TYPE_DOUBLE) {
    unsigned long long exact = type == CLGPU_TYPE_FLOAT ? 1ull << 24 : 1ull << 53;
    return value <= exact;
  }
  unsigned bits = (unsigned)(8 * clgpu__type_size(type));
  if (clgpu__type_is_unsigned(type)) {
    unsigned long long max = bits == 64 ? ~0ull : (1ull << bits) - 1;
    return !negative || value == 0 ? value <= max : 0;
  }
  if (!clgpu__type_is_signed(type) || has_u) return 0;
  unsigned long long max = (1ull << (bits - 1)) - 1;
  /* The type's minimum is written as minus (max + 1), and that literal must
   * itself be signed in C for the scalar comparison to stay signed: a
   * decimal one is, below 2^63 (-2147483648 is a long); a hex or octal one
   * may be unsigned (-0x80000000 is 0x80000000u), so those stop at max. */
  int decimal = text[0] != '0' || text[1] == '\0';
  if (negative && decimal && bits < 64) return value <= max + 1;
  return value <= max;
}

/* x, or a literal: 1 for x, 2 for a literal, 0 for neither. */
static int operand(parser *p) {
  skip_blanks(p);
  if (p->at[0] == 'x' && !clgpu__is_identifier_char(p->at[1])) {
    p->at++;
    clgpu__text_add(&p->out, "x ");
    return 1;
  }
  return literal(p) ? 2 : 0;
}

static int compare_operator(parser *p) {
  static const char *const operators[] = {"<=", ">=", "==", "!=", "<", ">"};
  for (size_t k = 0; k < sizeof operators / sizeof operators[0]; k++) {
    if (take(p, operators[k])) return 1;
  }
  return 0;
}

static int either(parser *p, int depth);

static int one(parser *p, int depth) {
  if (depth > 64) return 0;
  if (take(p, "!")) return one(p, depth + 1);
  if (take(p, "(")) return either(p, depth + 1) && take(p, ")");
  int left = operand(p);
  if (!left || !compare_operator(p)) return 0;
  int right = operand(p);
  return right && (left == 1 || right == 1);
}

static int all(parser *p, int depth) {
  if (!one(p, depth)) return 0;
  while (take(p, "&&")) {
    if (!one(p, depth)) return 0;
  }
  return 1;
}

static int either(parser *p, int depth) {
  if (!all(p, depth)) return 0;
  while (take(p, "||")) {
    if (!all(p, depth)) return 0;
  }
  return 1;
}

int clgpu__vector_predicate(const char *text, clgpu_type type, char **vector_text) {
  *vector_text = NULL;
  if (!text || type == CLGPU_TYPE_HALF) return 0;
  if (!clgpu__type_is_signed(type) && !clgpu__type_is_unsigned(type) && type != CLGPU_TYPE_FLOAT &&
      type != CLGPU_TYPE_DOUBLE) {
    return 0;
  }
  parser p = {text, type, {NULL, 0, 0, 0}};
  int safe = either(&p, 0);
  skip_blanks(&p);
  safe = safe && *p.at == '\0';
  char *out = clgpu__text_take(&p.out, NULL);
  if (!safe) {
    free(out);
    return 0;
  }
  if (!out) return -1;
  *vector_text = out;
  return 1;
}
