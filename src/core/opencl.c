/* Thin wrappers over OpenCL's enqueue and create calls, each a fault point
 * (opencl.h). */
#include "fault.h"
#include "opencl.h"

static int enqueue_fault(void) { return clgpu__fault_hit(CLGPU__FAULT_ENQUEUE); }

/* A create call's fault: the error set, NULL returned by the caller. */
static int create_fault(cl_int *err) {
  if (!clgpu__fault_hit(CLGPU__FAULT_CREATE)) return 0;
  if (err) *err = CLGPU__INJECTED_STATUS;
  return 1;
}

cl_int clgpu__cl_enqueue_kernel(cl_command_queue queue, cl_kernel kernel, size_t global,
                                size_t local, cl_uint num_events, const cl_event *wait_list,
                                cl_event *event) {
  if (enqueue_fault()) return CLGPU__INJECTED_STATUS;
  return clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, num_events, wait_list,
                                event);
}

cl_int clgpu__cl_enqueue_marker(cl_command_queue queue, cl_uint num_events,
                                const cl_event *wait_list, cl_event *event) {
  if (enqueue_fault()) return CLGPU__INJECTED_STATUS;
  return clEnqueueMarkerWithWaitList(queue, num_events, wait_list, event);
}

cl_int clgpu__cl_enqueue_copy(cl_command_queue queue, cl_mem source, cl_mem destination,
                              size_t source_offset, size_t destination_offset, size_t bytes,
                              cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  if (enqueue_fault()) return CLGPU__INJECTED_STATUS;
  return clEnqueueCopyBuffer(queue, source, destination, source_offset, destination_offset, bytes,
                             num_events, wait_list, event);
}

cl_int clgpu__cl_enqueue_fill(cl_command_queue queue, cl_mem buffer, const void *pattern,
                              size_t pattern_size, size_t offset, size_t bytes, cl_uint num_events,
                              const cl_event *wait_list, cl_event *event) {
  if (enqueue_fault()) return CLGPU__INJECTED_STATUS;
  return clEnqueueFillBuffer(queue, buffer, pattern, pattern_size, offset, bytes, num_events,
                             wait_list, event);
}

cl_int clgpu__cl_enqueue_transfer(cl_command_queue queue, int write, cl_mem buffer,
                                  cl_bool blocking, size_t offset, size_t bytes, void *host,
                                  cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  if (enqueue_fault()) return CLGPU__INJECTED_STATUS;
  if (write) {
    return clEnqueueWriteBuffer(queue, buffer, blocking, offset, bytes, host, num_events, wait_list,
                                event);
  }
  return clEnqueueReadBuffer(queue, buffer, blocking, offset, bytes, host, num_events, wait_list,
                             event);
}

cl_int clgpu__cl_enqueue_transfer_rect(cl_command_queue queue, int write, cl_mem buffer,
                                       cl_bool blocking, const size_t *buffer_origin,
                                       const size_t *region, size_t row_pitch, size_t slice_pitch,
                                       void *host, cl_uint num_events, const cl_event *wait_list,
                                       cl_event *event) {
  if (enqueue_fault()) return CLGPU__INJECTED_STATUS;
  const size_t host_origin[3] = {0, 0, 0};
  size_t host_row = region[0], host_slice = region[0] * region[1];
  if (write) {
    return clEnqueueWriteBufferRect(queue, buffer, blocking, buffer_origin, host_origin, region,
                                    row_pitch, slice_pitch, host_row, host_slice, host, num_events,
                                    wait_list, event);
  }
  return clEnqueueReadBufferRect(queue, buffer, blocking, buffer_origin, host_origin, region,
                                 row_pitch, slice_pitch, host_row, host_slice, host, num_events,
                                 wait_list, event);
}

cl_mem clgpu__cl_create_buffer(cl_context context, cl_mem_flags flags, size_t size, cl_int *err) {
  if (create_fault(err)) return NULL;
  return clCreateBuffer(context, flags, size, NULL, err);
}

cl_command_queue clgpu__cl_create_queue(cl_context context, cl_device_id device,
                                        cl_command_queue_properties properties, cl_int *err) {
  if (create_fault(err)) return NULL;
  return clCreateCommandQueue(context, device, properties, err);
}

cl_context clgpu__cl_create_context(const cl_context_properties *properties, cl_device_id device,
                                    cl_int *err) {
  if (create_fault(err)) return NULL;
  return clCreateContext(properties, 1, &device, NULL, NULL, err);
}

cl_program clgpu__cl_program_with_source(cl_context context, const char *source, size_t length,
                                         cl_int *err) {
  if (create_fault(err)) return NULL;
  return clCreateProgramWithSource(context, 1, &source, &length, err);
}

cl_program clgpu__cl_program_with_binary(cl_context context, cl_device_id device, size_t size,
                                         const unsigned char *binary, cl_int *binary_status,
                                         cl_int *err) {
  if (create_fault(err)) return NULL;
  return clCreateProgramWithBinary(context, 1, &device, &size, &binary, binary_status, err);
}

cl_kernel clgpu__cl_create_kernel(cl_program program, const char *name, cl_int *err) {
  if (create_fault(err)) return NULL;
  return clCreateKernel(program, name, err);
}

int clgpu__cl_build_fault(void) { return clgpu__fault_hit(CLGPU__FAULT_BUILD); }
