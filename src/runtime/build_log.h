/* Build logs (build_log.c): what the library does to a compiler's log
 * before a caller sees it. */
#ifndef CLGPU_SRC_BUILD_LOG_H
#define CLGPU_SRC_BUILD_LOG_H

#include <stddef.h>

/* The name NVIDIA's OpenCL compiler gives a program's source in its log
 * ("<kernel>:343:5: error: ..."), where it counts the lines of the whole
 * source it was given: it ignores #line directives. */
#define CLGPU__UNNAMED_SOURCE "<kernel>"

/* `log` with each "<kernel>:LINE:" (LINE counted over `source`, `length`
 * bytes) turned into the name and line that the last #line directive of
 * the source before LINE gives it: "operation:1:" after `#line 1
 * "operation"`, "<kernel>:3:" after a bare `#line 1`; a LINE with no
 * directive before it stays. Malloc'd; NULL when the log has no such name
 * or memory runs out (the caller then uses the log as it is). */
char *clgpu__build_log_map_lines(const char *source, size_t length, const char *log);

#endif
