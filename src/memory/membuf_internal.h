/* Buffers across memory spaces (membuf.c): the internal side of
 * include/clgpu/membuf.h. */
#ifndef CLGPU_SRC_MEMBUF_INTERNAL_H
#define CLGPU_SRC_MEMBUF_INTERNAL_H

#include <stdint.h>

#include <clgpu/context.h>
#include <clgpu/membuf.h>

/* Call the context's move report for one copy of a buffer (membuf.c). */
void clgpu__report_move(clgpu_context *context, const clgpu_membuf *buffer, uint64_t bytes,
                        clgpu_space to);

#endif
