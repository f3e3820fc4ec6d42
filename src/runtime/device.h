/* Device facts (device.c): selecting a device, reading what it is once, and
 * the lock around enumerating platforms and devices. */
#ifndef CLGPU_SRC_DEVICE_H
#define CLGPU_SRC_DEVICE_H

#include <clgpu/context.h>

clgpu_status clgpu__read_device_info(cl_platform_id platform, cl_device_id device,
                                     clgpu_device_info *info, char **extensions);

/* The process-wide lock around platform and device enumeration, device
 * queries and context creation (device.c says why). Not recursive. */
void clgpu__platform_lock(void);
void clgpu__platform_unlock(void);

/* Internal twins of public functions (the public one is a wrapper): the
 * library calls these, never its own public entry points. */
clgpu_status clgpu__device_select(const char *selector, cl_platform_id *platform,
                                  cl_device_id *device);

#endif
