/* Reading one element of a view by its row-major index (element.c), for the
 * MPI component's partial results: the value an ARGMIN found, the last
 * element of a part that a scan's total needs. */
#ifndef CLGPU_SRC_MPI_ELEMENT_H
#define CLGPU_SRC_MPI_ELEMENT_H

#include <stdint.h>

#include <clgpu/array.h>
#include <clgpu/status.h>

#include "values.h"

/* Enqueue a read of element `index` (row-major, below the view's count) of
 * `array` into *out, behind the wait list, on `queue`; blocking or not as
 * clEnqueueReadBuffer. Errors: OpenCL's, recorded with a message. */
clgpu_status clgpu__mpi_read_element(cl_command_queue queue, const clgpu_array *array,
                                     uint64_t index, clgpu__value *out, cl_uint num_events,
                                     const cl_event *wait_list, cl_event *event, cl_bool blocking);

#endif
