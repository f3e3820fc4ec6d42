/* Copy between two strided views of the same shape, element by element.
 *
 * Defines:
 *   CLGPU_T  an unsigned integer type of the element's size (uchar, ushort,
 *            uint or ulong). Elements move as bits, so half and double copy
 *            on devices without cl_khr_fp16 or cl_khr_fp64.
 *
 * The shape has eight dimensions, row-major (s7 varies fastest). The host
 * merges and drops dimensions before the call and pads the shape at the
 * front with extent 1, so the carries below rarely reach a padding
 * dimension: only after the last element, when the loop ends anyway.
 *
 * Each side is a buffer, the element offset of element (0, ..., 0) in it and
 * strides in elements, any sign (PORTABILITY.md rule 13: no sub-buffers).
 * The destination's elements never overlap each other, and the host never
 * passes a source that shares bytes with the destination, so every
 * work-item writes elements no other work-item reads or writes.
 *
 * Work-item g copies the linear indices [g * chunk, (g + 1) * chunk) that are
 * below count. It decodes its first multi-index with divisions once, then
 * copies run by run along the fastest dimension, carrying into the slower
 * ones between runs, which needs no division. Running along a row rather
 * than carrying after every element made strided copies 2.5 to 5 times
 * faster on POCL. The global size is rounded up to a multiple of the local
 * size; items past the end do nothing. */
#ifndef CLGPU_T
#error "copy.cl needs CLGPU_T, an unsigned integer type of the element's size"
#endif

/* Advance dimension J (slower than the fastest) by one. When it wraps,
 * rewind it to 0 and fall through to the next slower dimension. */
#define CLGPU_COPY_CARRY(J)                           \
  if (++index.s##J < shape.s##J) {                    \
    source_position += source_strides.s##J;           \
    destination_position += destination_strides.s##J; \
    continue;                                         \
  }                                                   \
  index.s##J = 0;                                     \
  source_position -= source_rewind.s##J;              \
  destination_position -= destination_rewind.s##J;

/* Split the linear index `rest` into dimension J's index and the rest. Once
 * the rest is 0 every slower index is 0 too, so the padding dimensions cost
 * no division. The remainder is computed from the quotient rather than with
 * `%`: given both `/` and `%` of the same operands, LLVM's DivRemPairs pass
 * emits a `freeze` instruction, which Oclgrind 21.10 cannot run with
 * --uninitialized (it stops the work-item with "Unsupported instruction:
 * freeze"), and one division is all the hardware needs anyway. */
#define CLGPU_COPY_DECODE(J)                   \
  if (rest != 0) {                             \
    ulong quotient = rest / shape.s##J;        \
    index.s##J = rest - quotient * shape.s##J; \
    rest = quotient;                           \
  }

__kernel void clgpu_copy_strided(__global CLGPU_T *destination, long destination_offset,
                                 long8 destination_strides, __global const CLGPU_T *source,
                                 long source_offset, long8 source_strides, ulong8 shape,
                                 ulong count, ulong chunk) {
  ulong first = (ulong)get_global_id(0) * chunk;
  if (first >= count) return;
  ulong last = min(first + chunk, count);

  ulong8 index = (ulong8)(0);
  ulong rest = first;
  CLGPU_COPY_DECODE(7)
  CLGPU_COPY_DECODE(6)
  CLGPU_COPY_DECODE(5)
  CLGPU_COPY_DECODE(4)
  CLGPU_COPY_DECODE(3)
  CLGPU_COPY_DECODE(2)
  CLGPU_COPY_DECODE(1)
  CLGPU_COPY_DECODE(0)

  long8 position = convert_long8(index);
  long8 source_terms = position * source_strides;
  long8 destination_terms = position * destination_strides;
  long source_position = source_offset + source_terms.s0 + source_terms.s1 + source_terms.s2 +
                         source_terms.s3 + source_terms.s4 + source_terms.s5 + source_terms.s6 +
                         source_terms.s7;
  long destination_position = destination_offset + destination_terms.s0 +
                              destination_terms.s1 + destination_terms.s2 +
                              destination_terms.s3 + destination_terms.s4 +
                              destination_terms.s5 + destination_terms.s6 +
                              destination_terms.s7;

  /* What a dimension's position moves back by when its index wraps from
   * extent - 1 to 0. */
  long8 extent_less_one = convert_long8(shape) - (long8)(1);
  long8 source_rewind = extent_less_one * source_strides;
  long8 destination_rewind = extent_less_one * destination_strides;

  /* Runs along the fastest dimension, then a carry into the slower ones.
   * The run is a plain loop (a vectorisable one when both sides are
   * contiguous along it), so the carries cost once per row, not once per
   * element. */
  long source_step = source_strides.s7;
  long destination_step = destination_strides.s7;
  for (ulong linear = first;;) {
    ulong run = min(shape.s7 - index.s7, last - linear);
    if (source_step == 1 && destination_step == 1) {
      for (ulong i = 0; i < run; i++) {
        destination[destination_position + (long)i] = source[source_position + (long)i];
      }
    } else {
      for (ulong i = 0; i < run; i++) {
        destination[destination_position + (long)i * destination_step] =
            source[source_position + (long)i * source_step];
      }
    }
    linear += run;
    if (linear >= last) break;
    /* The run ended at the end of its row, having started at index
     * shape.s7 - run: back to the row's start, then on to the next index of
     * the slower dimensions. */
    index.s7 = 0;
    source_position -= (long)(shape.s7 - run) * source_step;
    destination_position -= (long)(shape.s7 - run) * destination_step;
    CLGPU_COPY_CARRY(6)
    CLGPU_COPY_CARRY(5)
    CLGPU_COPY_CARRY(4)
    CLGPU_COPY_CARRY(3)
    CLGPU_COPY_CARRY(2)
    CLGPU_COPY_CARRY(1)
    CLGPU_COPY_CARRY(0)
  }
}
