/* User text and user names (expression.c): the checks on the OpenCL C text
 * and the names a caller passes in, before they reach a kernel's source. */
#ifndef CLGPU_SRC_EXPRESSION_H
#define CLGPU_SRC_EXPRESSION_H

#include <stddef.h>

#include <clgpu/status.h>

/* What a piece of the caller's OpenCL C text is; it decides the rules. */
typedef enum clgpu__text_kind {
  /* One expression, pasted as a #define value inside the library's
   * parentheses: reduce, scan, findall and count_if expressions, sort
   * comparators. No comments, no ';', no '#'. */
  CLGPU__TEXT_EXPRESSION,
  /* Statements inside a block of the kernel (elementwise operations):
   * ';' and closed comments allowed, #pragma lines only, no "return". */
  CLGPU__TEXT_STATEMENTS,
  /* File-scope declarations (elementwise preambles, sort declarations):
   * as statements, and "return" allowed; may be blank. */
  CLGPU__TEXT_DECLARATIONS,
  /* A type name (sort key_type): words of letters, digits and '_'. */
  CLGPU__TEXT_TYPE_NAME,
} clgpu__text_kind;

/* The length caps, in bytes, documented in the public headers. */
#define CLGPU__EXPRESSION_LIMIT 65536
#define CLGPU__DECLARATIONS_LIMIT 1048576
size_t clgpu__user_text_limit(clgpu__text_kind kind);

/* Check text of `kind` that the caller passed as `name` to `who`: at most
 * the kind's length cap (CLGPU_EXPRESSION_TOO_LONG), then brackets
 * balanced and in order, literals closed on their line, no trigraph,
 * digraph or line-splicing backslash, no identifier starting with clgpu_
 * or CLGPU_, and the kind's rules above (CLGPU_INVALID_ARGUMENT, the
 * message naming `name`, the byte offset and what is there). */
clgpu_status clgpu__check_user_text(const char *text, clgpu__text_kind kind, const char *who,
                                    const char *name);

/* A checked expression as one line for a #define value, in parentheses,
 * line breaks and tabs made spaces; malloc'd, NULL when out of memory. */
char *clgpu__expression_line(const char *text);

/* Whether `name` is a C identifier. */
int clgpu__is_identifier(const char *name);
/* A letter, digit or underscore. */
int clgpu__is_identifier_char(char c);

/* A name the caller chooses for something the library declares in a
 * kernel (an elementwise argument): an identifier of at most `limit`
 * characters that no OpenCL C keyword, type, built-in function or macro,
 * reserved prefix or library name takes (CLGPU_INVALID_ARGUMENT naming
 * `what` and the name). */
clgpu_status clgpu__check_user_name(const char *name, size_t limit, const char *who,
                                    const char *what);

#endif
