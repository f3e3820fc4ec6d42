/* Build logs: line numbers mapped back through #line directives for
 * compilers that ignore them (the quirk log_ignores_line_directives). */
#include <stdlib.h>
#include <string.h>

#include "build_log.h"
#include "text.h"

/* The #line directive in force at line `physical` (1-based) of `source`:
 * 1 and its number, its line and its label (NULL when it has none), or 0
 * when no directive comes before that line. */
static int directive_before(const char *source, size_t length, unsigned long physical,
                            unsigned long *number, unsigned long *at, const char **label,
                            size_t *label_length) {
  int found = 0;
  unsigned long line = 1;
  for (size_t i = 0; i < length && line < physical; line++) {
    const char *row = source + i;
    const char *row_end = memchr(row, '\n', length - i);
    size_t row_length = row_end ? (size_t)(row_end - row) : length - i;
    if (row_length > 6 && memcmp(row, "#line ", 6) == 0) {
      /* The directives are the library's own: "#line N" or "#line N \"label\"". */
      char *after = NULL;
      unsigned long n = strtoul(row + 6, &after, 10);
      if (after != row + 6 && after <= row + row_length) {
        found = 1;
        *number = n, *at = line, *label = NULL, *label_length = 0;
        size_t rest = row_length - (size_t)(after - row);
        const char *open = memchr(after, '"', rest);
        const char *close =
            open ? memchr(open + 1, '"', row_length - (size_t)(open + 1 - row)) : NULL;
        if (close) *label = open + 1, *label_length = (size_t)(close - open - 1);
      }
    }
    i += row_length + 1;
  }
  return found;
}

char *clgpu__build_log_map_lines(const char *source, size_t length, const char *log) {
  static const char name[] = CLGPU__UNNAMED_SOURCE ":";
  const size_t name_length = sizeof name - 1;
  if (!source || !log || !strstr(log, name)) return NULL;
  clgpu__text text = {NULL, 0, 0, 0};
  const char *at = log;
  for (const char *hit; (hit = strstr(at, name)) != NULL;) {
    const char *digits = hit + name_length;
    char *end = NULL;
    unsigned long physical = strtoul(digits, &end, 10);
    unsigned long number = 0, directive = 0;
    const char *label = NULL;
    size_t label_length = 0;
    clgpu__text_add_bytes(&text, at, (size_t)(hit - at));
    if (end != digits && *end == ':' && physical > 0 &&
        directive_before(source, length, physical, &number, &directive, &label, &label_length)) {
      if (label) {
        clgpu__text_add_bytes(&text, label, label_length);
        clgpu__text_add(&text, ":");
      } else {
        clgpu__text_add(&text, "%s", name);
      }
      clgpu__text_add(&text, "%lu", number + (physical - directive - 1));
      at = end;
    } else {
      clgpu__text_add_bytes(&text, hit, name_length);
      at = digits;
    }
  }
  clgpu__text_add(&text, "%s", at);
  return clgpu__text_take(&text, NULL);
}
