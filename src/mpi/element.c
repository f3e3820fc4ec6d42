/* Reading one element of a view by its row-major index (element.h). */
#include "element.h"

#include <string.h>

#include "status_internal.h"

clgpu_status clgpu__mpi_read_element(cl_command_queue queue, const clgpu_array *array,
                                     uint64_t index, clgpu__value *out, cl_uint num_events,
                                     const cl_event *wait_list, cl_event *event, cl_bool blocking) {
  size_t element = clgpu_type_size(array->type);
  /* The byte offset of the element: the view's offset plus each index
   * times its stride, the indices taken from the last dimension up. Views
   * the library accepted keep every element inside the buffer, so the sum
   * cannot leave [0, buffer size). */
  ptrdiff_t offset = (ptrdiff_t)array->offset;
  uint64_t rest = index;
  for (unsigned d = array->rank; d-- > 0;) {
    uint64_t extent = array->shape[d];
    uint64_t at = rest % extent;
    rest /= extent;
    offset += (ptrdiff_t)at * array->strides[d] * (ptrdiff_t)element;
  }
  memset(out, 0, sizeof *out);
  cl_int code = clEnqueueReadBuffer(queue, array->buffer, blocking, (size_t)offset, element,
                                    out->bytes, num_events, wait_list, event);
  if (code != CL_SUCCESS) return clgpu__fail_cl(code, "clEnqueueReadBuffer (one element)");
  return CLGPU_SUCCESS;
}
