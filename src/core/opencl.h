/* Thin wrappers over the OpenCL calls that enqueue or create, each with the
 * fault-injection point (fault.c) inside it: an armed fault makes the call
 * fail with CLGPU__INJECTED_STATUS before OpenCL is reached, leaving every
 * output untouched but the error. The library makes these calls through
 * here only, so every one of them is a fault point. */
#ifndef CLGPU_SRC_OPENCL_H
#define CLGPU_SRC_OPENCL_H

#include <clgpu/api.h> /* <CL/cl.h> at the OpenCL version clgpu targets */

/* One-dimensional NDRange. */
cl_int clgpu__cl_enqueue_kernel(cl_command_queue queue, cl_kernel kernel, size_t global,
                                size_t local, cl_uint num_events, const cl_event *wait_list,
                                cl_event *event);
cl_int clgpu__cl_enqueue_marker(cl_command_queue queue, cl_uint num_events,
                                const cl_event *wait_list, cl_event *event);
cl_int clgpu__cl_enqueue_copy(cl_command_queue queue, cl_mem source, cl_mem destination,
                              size_t source_offset, size_t destination_offset, size_t bytes,
                              cl_uint num_events, const cl_event *wait_list, cl_event *event);
cl_int clgpu__cl_enqueue_fill(cl_command_queue queue, cl_mem buffer, const void *pattern,
                              size_t pattern_size, size_t offset, size_t bytes, cl_uint num_events,
                              const cl_event *wait_list, cl_event *event);
/* clEnqueueWriteBuffer when `write`, else clEnqueueReadBuffer. */
cl_int clgpu__cl_enqueue_transfer(cl_command_queue queue, int write, cl_mem buffer,
                                  cl_bool blocking, size_t offset, size_t bytes, void *host,
                                  cl_uint num_events, const cl_event *wait_list, cl_event *event);
/* clEnqueueWriteBufferRect when `write`, else clEnqueueReadBufferRect, with
 * the host side packed (its row and slice pitches from the region). */
cl_int clgpu__cl_enqueue_transfer_rect(cl_command_queue queue, int write, cl_mem buffer,
                                       cl_bool blocking, const size_t *buffer_origin,
                                       const size_t *region, size_t row_pitch, size_t slice_pitch,
                                       void *host, cl_uint num_events, const cl_event *wait_list,
                                       cl_event *event);

cl_mem clgpu__cl_create_buffer(cl_context context, cl_mem_flags flags, size_t size, cl_int *err);
cl_command_queue clgpu__cl_create_queue(cl_context context, cl_device_id device,
                                        cl_command_queue_properties properties, cl_int *err);
cl_context clgpu__cl_create_context(const cl_context_properties *properties, cl_device_id device,
                                    cl_int *err);
cl_program clgpu__cl_program_with_source(cl_context context, const char *source, size_t length,
                                         cl_int *err);
cl_program clgpu__cl_program_with_binary(cl_context context, cl_device_id device, size_t size,
                                         const unsigned char *binary, cl_int *binary_status,
                                         cl_int *err);
cl_kernel clgpu__cl_create_kernel(cl_program program, const char *name, cl_int *err);

/* The build fault point: 1 when an armed fault makes this build fail (the
 * caller then reports CLGPU__INJECTED_STATUS as the build's error). */
int clgpu__cl_build_fault(void);

#endif
