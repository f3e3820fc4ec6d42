/* The one gate for OpenCL C text that callers hand the library: the
 * expressions of reduce, scan, findall, count_if and sort, elementwise
 * operations, preambles and sort declarations (clgpu__check_user_text),
 * and the names callers give to things the library declares
 * (clgpu__check_user_name).
 *
 * User text is pasted into generated kernels: expressions as the values of
 * #define lines used inside the library's own parentheses, operations
 * inside a block of the kernel's body, declarations before the kernels. The
 * checks here make sure such text stays what it looks like: it cannot
 * close the library's parentheses or braces, end a statement early, hide
 * the library's code in a comment or a preprocessor conditional, splice
 * lines, or name the library's own identifiers. What passes may still fail
 * to compile; then the compiler's log says why. The scan is a small
 * tokenizer (literals, comments, punctuation, identifiers), not a parser,
 * and runs in one pass over the text.
 *
 * Each rule is written down in the public headers (reduce.h, scan.h,
 * findall.h, sort.h, elementwise.h); change them together. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expression.h"
#include "status_internal.h"

/* Nesting deeper than this is refused (clang's own bracket limit is 256). */
#define MAX_DEPTH 256

static int is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

static int is_line_break(char c) { return c == '\n' || c == '\r'; }

int clgpu__is_identifier_char(char c) { return is_letter(c) || is_digit(c); }

int clgpu__is_identifier(const char *name) {
  if (!name || !is_letter(name[0])) return 0;
  for (const char *c = name; *c; c++) {
    if (!is_letter(*c) && !is_digit(*c)) return 0;
  }
  return 1;
}

static int starts_with(const char *text, size_t length, const char *prefix) {
  size_t n = strlen(prefix);
  return length >= n && memcmp(text, prefix, n) == 0;
}

/* Whether an identifier (text, length) starts with a prefix that is the
 * library's. */
static int is_library_name(const char *text, size_t length) {
  return starts_with(text, length, "clgpu_") || starts_with(text, length, "CLGPU_");
}

static const char *kind_name(clgpu__text_kind kind) {
  switch (kind) {
    case CLGPU__TEXT_EXPRESSION:
      return "an expression";
    case CLGPU__TEXT_STATEMENTS:
      return "an operation";
    case CLGPU__TEXT_DECLARATIONS:
      return "declarations";
    case CLGPU__TEXT_TYPE_NAME:
      return "a type name";
  }
  return "a text";
}

size_t clgpu__user_text_limit(clgpu__text_kind kind) {
  return kind == CLGPU__TEXT_DECLARATIONS ? CLGPU__DECLARATIONS_LIMIT : CLGPU__EXPRESSION_LIMIT;
}

/* A printable rendering of the byte at `c` for messages. */
static void describe_byte(char c, char *out, size_t size) {
  unsigned char byte = (unsigned char)c;
  if (byte == '\n') {
    snprintf(out, size, "a line break");
  } else if (byte == '\r') {
    snprintf(out, size, "a carriage return");
  } else if (byte < 0x20 || byte >= 0x7f) {
    snprintf(out, size, "byte 0x%02x", (unsigned)byte);
  } else {
    snprintf(out, size, "'%c'", c);
  }
}

/* The closer a bracket opener expects. */
static char closer_of(char opener) { return opener == '(' ? ')' : opener == '[' ? ']' : '}'; }

typedef struct scanner {
  const char *text;
  const char *who;
  const char *name;
  clgpu__text_kind kind;
  char stack[MAX_DEPTH];
  size_t opened_at[MAX_DEPTH];
  unsigned depth;
} scanner;

static clgpu_status refuse(const scanner *s, size_t at, const char *format, ...)
    CLGPU__PRINTF(3, 4);

/* CLGPU_INVALID_ARGUMENT: "who: name, byte <at>: <what>". */
static clgpu_status refuse(const scanner *s, size_t at, const char *format, ...) {
  char what[256];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  return clgpu__fail(CLGPU_INVALID_ARGUMENT, "%s: %s, byte %zu: %s", s->who, s->name, at, what);
}

/* A backslash that joins lines: followed by blanks (clang accepts them
 * with a warning) and a line break, or by the end of the text (it would
 * join the library's next line). */
static int splices(const char *c) {
  const char *after = c + 1;
  while (is_blank(*after)) after++;
  return *after == '\0' || is_line_break(*after);
}

/* Trigraphs ("??/" is a backslash, "??=" a '#'), which some OpenCL C
 * compilers translate before anything else, even inside literals. */
static int is_trigraph(const char *c) {
  return c[0] == '?' && c[1] == '?' && c[2] != '\0' && strchr("=/'()!<>-", c[2]) != NULL;
}

/* The character a trigraph "??c" stands for. */
static char trigraph_meaning(char c) {
  static const char from[] = "=/'()!<>-", to[] = "#\\^[]|{}~";
  return to[strchr(from, c) - from];
}

/* A character or string literal from its opening quote; *end is the byte
 * after the closing quote. It must close on its line. */
static clgpu_status scan_literal(const scanner *s, size_t start, size_t *end) {
  const char *text = s->text;
  char quote = text[start];
  size_t at = start + 1;
  for (;;) {
    char c = text[at];
    if (c == '\0' || is_line_break(c)) {
      return refuse(s, start, "the %s opened here is not closed on its line",
                    quote == '"' ? "string literal" : "character literal");
    }
    if (c == '\\') {
      /* splices() was checked for every backslash before. */
      at += 2;
      continue;
    }
    at++;
    if (c == quote) break;
  }
  *end = at;
  return CLGPU_SUCCESS;
}

/* Whether the directive at `hash` (a '#' first on its line) is one the
 * kind allows: #pragma, in operations and declarations. */
static clgpu_status check_directive(const scanner *s, size_t hash) {
  const char *text = s->text;
  if (s->kind == CLGPU__TEXT_EXPRESSION || s->kind == CLGPU__TEXT_TYPE_NAME) {
    return refuse(s, hash, "'#' (a preprocessor token) is not allowed in %s", kind_name(s->kind));
  }
  size_t at = hash + 1;
  while (is_blank(text[at])) at++;
  size_t word = at;
  while (is_letter(text[at]) || is_digit(text[at])) at++;
  if (at - word == 6 && memcmp(text + word, "pragma", 6) == 0) return CLGPU_SUCCESS;
  return refuse(s, hash,
                "the preprocessor directive \"#%.*s\" is refused (only #pragma is allowed: "
                "other directives could include files or hide or redefine the library's code)",
                (int)(at - word < 32 ? at - word : 32), text + word);
}

static clgpu_status scan(scanner *s) {
  const char *text = s->text;
  int line_start = 1; /* only blanks since the last line break */
  size_t at = 0;
  while (text[at] != '\0') {
    char c = text[at];
    if (is_line_break(c)) {
      line_start = 1;
      at++;
      continue;
    }
    if (is_blank(c)) {
      at++;
      continue;
    }
    int was_line_start = line_start;
    line_start = 0;
    if (c == '"' || c == '\'') {
      if (s->kind == CLGPU__TEXT_TYPE_NAME) {
        return refuse(s, at, "a quote is not allowed in a type name");
      }
      CLGPU__FORWARD_IF_ERROR(scan_literal(s, at, &at));
      continue;
    }
    if (c == '/' && (text[at + 1] == '/' || text[at + 1] == '*')) {
      if (s->kind == CLGPU__TEXT_EXPRESSION || s->kind == CLGPU__TEXT_TYPE_NAME) {
        return refuse(s, at,
                      "\"%c%c\" starts a comment, which is not allowed in %s (it would hide "
                      "what follows on the line the library puts it on)",
                      c, text[at + 1], kind_name(s->kind));
      }
      if (text[at + 1] == '/') {
        while (text[at] != '\0' && !is_line_break(text[at])) at++;
      } else {
        const char *close = strstr(text + at + 2, "*/");
        if (!close) {
          return refuse(s, at,
                        "the comment opened here is not closed (it would hide the "
                        "library's code after it)");
        }
        at = (size_t)(close - text) + 2;
      }
      continue;
    }
    if (is_letter(c)) {
      size_t start = at;
      while (is_letter(text[at]) || is_digit(text[at])) at++;
      if (is_library_name(text + start, at - start)) {
        return refuse(s, start,
                      "the identifier \"%.*s\" starts with clgpu_ or CLGPU_, which are the "
                      "library's",
                      (int)(at - start < 64 ? at - start : 64), text + start);
      }
      if (s->kind == CLGPU__TEXT_STATEMENTS && at - start == 6 &&
          memcmp(text + start, "return", 6) == 0) {
        return refuse(s, start,
                      "\"return\" is not allowed in an operation (it would leave the kernel's "
                      "loop, not just the element); assign the outputs instead");
      }
      continue;
    }
    if (s->kind == CLGPU__TEXT_TYPE_NAME) {
      if (is_digit(c)) {
        at++;
        while (is_letter(text[at]) || is_digit(text[at])) at++;
        continue;
      }
      char shown[32];
      describe_byte(c, shown, sizeof shown);
      return refuse(s, at,
                    "%s is not allowed in a type name (only words of letters, digits and "
                    "'_' separated by blanks)",
                    shown);
    }
    if (c == '#') {
      if (!was_line_start) {
        return refuse(s, at, "'#' (a preprocessor token) is allowed only to start a #pragma line");
      }
      CLGPU__FORWARD_IF_ERROR(check_directive(s, at));
      at++;
      continue;
    }
    if ((c == '<' && (text[at + 1] == ':' || text[at + 1] == '%')) ||
        (c == ':' && text[at + 1] == '>') ||
        (c == '%' && (text[at + 1] == '>' || text[at + 1] == ':'))) {
      return refuse(s, at,
                    "the digraph \"%c%c\" is refused (write the bracket or '#' it stands "
                    "for)",
                    c, text[at + 1]);
    }
    if (c == ';' && s->kind == CLGPU__TEXT_EXPRESSION) {
      return refuse(s, at,
                    "';' is not allowed in an expression (it would end the library's "
                    "statement early)");
    }
    if (c == '(' || c == '[' || c == '{') {
      if (s->depth == MAX_DEPTH) {
        return refuse(s, at, "'%c' nests deeper than %d brackets", c, MAX_DEPTH);
      }
      s->stack[s->depth] = c;
      s->opened_at[s->depth] = at;
      s->depth++;
      at++;
      continue;
    }
    if (c == ')' || c == ']' || c == '}') {
      if (s->depth == 0) {
        return refuse(s, at, "'%c' closes a bracket that was never opened", c);
      }
      char expected = closer_of(s->stack[s->depth - 1]);
      if (c != expected) {
        return refuse(s, at, "'%c' does not match the '%c' opened at byte %zu (expected '%c')", c,
                      s->stack[s->depth - 1], s->opened_at[s->depth - 1], expected);
      }
      s->depth--;
      at++;
      continue;
    }
    if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f || c == '\\' || c == '@' || c == '$' ||
        c == '`') {
      char shown[32];
      describe_byte(c, shown, sizeof shown);
      return refuse(s, at, "%s is not OpenCL C outside a literal", shown);
    }
    at++;
  }
  if (s->depth > 0) {
    return refuse(s, s->opened_at[s->depth - 1], "the '%c' opened here is never closed",
                  s->stack[s->depth - 1]);
  }
  return CLGPU_SUCCESS;
}

clgpu_status clgpu__check_user_text(const char *text, clgpu__text_kind kind, const char *who,
                                    const char *name) {
  CLGPU__RETURN_ERROR_IF(!text, CLGPU_INVALID_ARGUMENT, "%s: %s is NULL", who, name);
  size_t limit = clgpu__user_text_limit(kind);
  size_t length = strnlen(text, limit + 1);
  CLGPU__RETURN_ERROR_IF(length > limit, CLGPU_EXPRESSION_TOO_LONG,
                         "%s: %s is longer than %zu bytes, the cap for %s", who, name, limit,
                         kind_name(kind));
  int blank = 1;
  for (size_t at = 0; at < length && blank; at++) {
    blank = is_blank(text[at]) || is_line_break(text[at]);
  }
  CLGPU__RETURN_ERROR_IF(blank && kind != CLGPU__TEXT_DECLARATIONS, CLGPU_INVALID_ARGUMENT,
                         "%s: %s is empty", who, name);
  scanner s;
  memset(&s, 0, sizeof s);
  s.text = text;
  s.who = who;
  s.name = name;
  s.kind = kind;
  /* Translation phases 1 and 2 first: trigraphs and spliced lines change
   * what every later character means, inside literals and comments too. */
  for (size_t at = 0; at < length; at++) {
    if (is_trigraph(text + at)) {
      return refuse(&s, at, "the trigraph \"??%c\" is refused (some compilers read it as '%c')",
                    text[at + 2], trigraph_meaning(text[at + 2]));
    }
    if (text[at] == '\\' && splices(text + at)) {
      return refuse(&s, at,
                    "a backslash at the end of a line is refused (it would join the "
                    "next line to this one)");
    }
  }
  return scan(&s);
}

char *clgpu__expression_line(const char *text) {
  size_t length = strlen(text);
  char *copy = malloc(length + 3);
  if (!copy) return NULL;
  copy[0] = '(';
  for (size_t at = 0; at < length; at++) {
    char c = text[at];
    copy[at + 1] = is_line_break(c) || is_blank(c) ? ' ' : c;
  }
  copy[length + 1] = ')';
  copy[length + 2] = '\0';
  return copy;
}

/* ---- names the caller gives to what the library declares ---- */

/* Words of OpenCL C that a declared name cannot take: keywords, qualifiers,
 * scalar and opaque type names, every built-in function and the macros of
 * the OpenCL C specification (1.2 to 3.0). Vector types, the reserved
 * prefixes and families of built-ins (convert_, as_, vload, atomic_, ...)
 * are matched by reserved_prefixes and is_vector_type. */
static const char *const reserved_words[] = {
    /* C99 keywords and literals */
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "bool",
    "true",
    "false",
    "NULL",
    /* OpenCL C qualifiers and keywords */
    "global",
    "local",
    "constant",
    "private",
    "generic",
    "kernel",
    "read_only",
    "write_only",
    "read_write",
    "uniform",
    "pipe",
    "complex",
    "imaginary",
    "vec_step",
    /* scalar and opaque types */
    "uchar",
    "ushort",
    "uint",
    "ulong",
    "half",
    "quad",
    "size_t",
    "ptrdiff_t",
    "intptr_t",
    "uintptr_t",
    "sampler_t",
    "event_t",
    "queue_t",
    "clk_event_t",
    "reserve_id_t",
    "ndrange_t",
    "cl_mem_fence_flags",
    "memory_scope",
    "memory_order",
    "kernel_enqueue_flags_t",
    "clk_profiling_info",
    /* work-item functions */
    "get_work_dim",
    "get_global_size",
    "get_global_id",
    "get_local_size",
    "get_local_id",
    "get_num_groups",
    "get_group_id",
    "get_global_offset",
    "get_enqueued_local_size",
    "get_global_linear_id",
    "get_local_linear_id",
    /* math */
    "acos",
    "acosh",
    "acospi",
    "asin",
    "asinh",
    "asinpi",
    "atan",
    "atan2",
    "atanh",
    "atanpi",
    "atan2pi",
    "cbrt",
    "ceil",
    "copysign",
    "cos",
    "cosh",
    "cospi",
    "erfc",
    "erf",
    "exp",
    "exp2",
    "exp10",
    "expm1",
    "fabs",
    "fdim",
    "floor",
    "fma",
    "fmax",
    "fmin",
    "fmod",
    "fract",
    "frexp",
    "hypot",
    "ilogb",
    "ldexp",
    "lgamma",
    "lgamma_r",
    "log",
    "log2",
    "log10",
    "log1p",
    "logb",
    "mad",
    "maxmag",
    "minmag",
    "modf",
    "nan",
    "nextafter",
    "pow",
    "pown",
    "powr",
    "remainder",
    "remquo",
    "rint",
    "rootn",
    "round",
    "rsqrt",
    "sin",
    "sincos",
    "sinh",
    "sinpi",
    "sqrt",
    "tan",
    "tanh",
    "tanpi",
    "tgamma",
    "trunc",
    /* integer */
    "abs",
    "abs_diff",
    "add_sat",
    "hadd",
    "rhadd",
    "clamp",
    "clz",
    "ctz",
    "mad_hi",
    "mad_sat",
    "max",
    "min",
    "mul_hi",
    "rotate",
    "sub_sat",
    "upsample",
    "popcount",
    "mad24",
    "mul24",
    /* common and geometric */
    "degrees",
    "mix",
    "radians",
    "step",
    "smoothstep",
    "sign",
    "cross",
    "dot",
    "distance",
    "length",
    "normalize",
    "fast_distance",
    "fast_length",
    "fast_normalize",
    /* relational */
    "isequal",
    "isnotequal",
    "isgreater",
    "isgreaterequal",
    "isless",
    "islessequal",
    "islessgreater",
    "isfinite",
    "isinf",
    "isnan",
    "isnormal",
    "isordered",
    "isunordered",
    "signbit",
    "any",
    "all",
    "bitselect",
    "select",
    /* synchronisation, copies, vectors, output, address spaces, queues */
    "barrier",
    "mem_fence",
    "read_mem_fence",
    "write_mem_fence",
    "async_work_group_copy",
    "async_work_group_strided_copy",
    "wait_group_events",
    "prefetch",
    "shuffle",
    "shuffle2",
    "printf",
    "to_global",
    "to_local",
    "to_private",
    "get_fence",
    "read_pipe",
    "write_pipe",
    "reserve_read_pipe",
    "reserve_write_pipe",
    "commit_read_pipe",
    "commit_write_pipe",
    "is_valid_reserve_id",
    "get_pipe_num_packets",
    "get_pipe_max_packets",
    "enqueue_kernel",
    "enqueue_marker",
    "get_kernel_work_group_size",
    "get_kernel_preferred_work_group_size_multiple",
    "retain_event",
    "release_event",
    "create_user_event",
    "is_valid_event",
    "set_user_event_status",
    "capture_event_profiling_info",
    "get_default_queue",
    "ndrange_1D",
    "ndrange_2D",
    "ndrange_3D",
    /* macros of the specification */
    "CHAR_BIT",
    "CHAR_MAX",
    "CHAR_MIN",
    "SCHAR_MAX",
    "SCHAR_MIN",
    "UCHAR_MAX",
    "SHRT_MAX",
    "SHRT_MIN",
    "USHRT_MAX",
    "INT_MAX",
    "INT_MIN",
    "UINT_MAX",
    "LONG_MAX",
    "LONG_MIN",
    "ULONG_MAX",
    "MAXFLOAT",
    "HUGE_VALF",
    "HUGE_VAL",
    "INFINITY",
    "NAN",
    "FP_ILOGB0",
    "FP_ILOGBNAN",
    "FP_FAST_FMA",
    "FP_FAST_FMAF",
    "FP_FAST_FMA_HALF",
    "FLT_EVAL_METHOD",
};

/* Prefixes of names a caller cannot declare: the library's own, the
 * implementation's (C reserves "__" and "_" + capital), and families of
 * built-ins and macros. */
static const char *const reserved_prefixes[] = {
    "clgpu_",
    "CLGPU_",
    "__",
    "convert_",
    "as_",
    "vload",
    "vstore",
    "native_",
    "half_",
    "atomic_",
    "atom_",
    "read_image",
    "write_image",
    "get_image_",
    "work_group_",
    "sub_group_",
    "get_sub_group_",
    "get_max_sub_group_",
    "get_num_sub_groups",
    "get_enqueued_num_sub_groups",
    "image1d_",
    "image2d_",
    "image3d_",
    "FLT_",
    "DBL_",
    "HALF_",
    "M_",
    "CL_",
    "CLK_",
};

/* bool, char, ..., double, half, quad followed by 2, 3, 4, 8 or 16 (a vector
 * type), or by n "x" m (the matrix names OpenCL C reserves). */
static int is_vector_type(const char *name) {
  static const char *const bases[] = {"char",  "uchar", "short",  "ushort", "int",  "uint", "long",
                                      "ulong", "float", "double", "half",   "bool", "quad"};
  for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
    size_t n = strlen(bases[b]);
    if (strncmp(name, bases[b], n) != 0) continue;
    const char *rest = name + n;
    for (int part = 0; part < 2; part++) {
      const char *width = rest;
      while (is_digit(*rest)) rest++;
      size_t digits = (size_t)(rest - width);
      int ok = (digits == 1 && strchr("2348", *width)) ||
               (digits == 2 && width[0] == '1' && width[1] == '6');
      if (!ok) break;
      if (*rest == '\0') return 1;
      if (part == 0 && *rest == 'x') {
        rest++;
        continue;
      }
      break;
    }
  }
  return 0;
}

/* Why `name` cannot be declared by a caller, or NULL when it can. */
static const char *name_refusal(const char *name) {
  if (name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z') {
    return "it starts with '_' and a capital letter, which C reserves";
  }
  for (size_t p = 0; p < sizeof reserved_prefixes / sizeof reserved_prefixes[0]; p++) {
    if (strncmp(name, reserved_prefixes[p], strlen(reserved_prefixes[p])) == 0) {
      return strncmp(name, "clgpu_", 6) == 0 || strncmp(name, "CLGPU_", 6) == 0
                 ? "it starts with clgpu_ or CLGPU_, which are the library's"
                 : "it starts with a prefix that OpenCL C reserves for its own names";
    }
  }
  for (size_t w = 0; w < sizeof reserved_words / sizeof reserved_words[0]; w++) {
    if (strcmp(name, reserved_words[w]) == 0) {
      return "it is an OpenCL C keyword, type, built-in function or macro, which the kernel "
             "needs";
    }
  }
  if (is_vector_type(name)) return "it is an OpenCL C vector type";
  return NULL;
}

clgpu_status clgpu__check_user_name(const char *name, size_t limit, const char *who,
                                    const char *what) {
  CLGPU__RETURN_ERROR_IF(!name, CLGPU_INVALID_ARGUMENT, "%s: %s is NULL", who, what);
  size_t length = strnlen(name, limit + 1);
  CLGPU__RETURN_ERROR_IF(length > limit, CLGPU_INVALID_ARGUMENT,
                         "%s: %s is longer than %zu characters", who, what, limit);
  CLGPU__RETURN_ERROR_IF(!clgpu__is_identifier(name), CLGPU_INVALID_ARGUMENT,
                         "%s: %s \"%s\" is not an OpenCL C identifier (a letter or '_', then "
                         "letters, digits and '_')",
                         who, what, name);
  const char *why = name_refusal(name);
  CLGPU__RETURN_ERROR_IF(why, CLGPU_INVALID_ARGUMENT, "%s: %s \"%s\" cannot be used: %s", who, what,
                         name, why);
  return CLGPU_SUCCESS;
}
