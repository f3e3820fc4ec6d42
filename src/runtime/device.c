/* Finding devices: enumeration, the selector grammar, the listing shown in
 * errors, and the device facts a context keeps. */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <clgpu/context.h>

#include "device.h"
#include "status_internal.h"

typedef struct device_entry {
  cl_platform_id platform;
  cl_device_id device;
  unsigned platform_index;
  unsigned device_index;
  cl_device_type type;
  char platform_name[256];
  char platform_vendor[256];
  char device_name[256];
  char device_vendor[256];
} device_entry;

typedef struct device_table {
  device_entry *entries;
  size_t count;
} device_table;

/* Read a string property whole and cut it to `size` bytes: a value longer
 * than the array is still read (and cut), never left empty. */
static void read_platform_string(cl_platform_id platform, cl_platform_info what, char *out,
                                 size_t size) {
  out[0] = '\0';
  size_t length = 0;
  if (clGetPlatformInfo(platform, what, 0, NULL, &length) != CL_SUCCESS || length == 0) return;
  char *whole = malloc(length + 1);
  if (!whole) return;
  if (clGetPlatformInfo(platform, what, length, whole, NULL) == CL_SUCCESS) {
    whole[length] = '\0';
    snprintf(out, size, "%s", whole);
  }
  free(whole);
}

static void read_device_string(cl_device_id device, cl_device_info what, char *out, size_t size) {
  out[0] = '\0';
  size_t length = 0;
  if (clGetDeviceInfo(device, what, 0, NULL, &length) != CL_SUCCESS || length == 0) return;
  char *whole = malloc(length + 1);
  if (!whole) return;
  if (clGetDeviceInfo(device, what, length, whole, NULL) == CL_SUCCESS) {
    whole[length] = '\0';
    snprintf(out, size, "%s", whole);
  }
  free(whole);
}

static const char no_platform_help[] =
    "no OpenCL platform found. The ICD loader (libOpenCL.so.1) reads vendor files "
    "from /etc/OpenCL/vendors/*.icd: install a driver that provides one (on Debian: "
    "apt-get install pocl-opencl-icd for the CPU), or point OCL_ICD_VENDORS at a "
    "folder holding a .icd file that names the vendor library (for example "
    "libnvidia-opencl.so.1)";

static const char *type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  return "other";
}

static void free_table(device_table *table) {
  free(table->entries);
  table->entries = NULL;
  table->count = 0;
}

/* Platform and device enumeration, the queries of a device's facts and
 * context creation run under one process-wide lock: ICD loaders and
 * implementations initialise themselves on the first of these calls, and
 * eight threads making their first contexts at once crashed inside the
 * platform's device queries (with plain OpenCL calls too). The library is
 * safe where the platform is not; the cost is that context creation is
 * serialised. */
static pthread_mutex_t platform_lock = PTHREAD_MUTEX_INITIALIZER;

void clgpu__platform_lock(void) { pthread_mutex_lock(&platform_lock); }

void clgpu__platform_unlock(void) { pthread_mutex_unlock(&platform_lock); }

static clgpu_status enumerate_locked(device_table *table);

/* Every device of every platform, in platform order then device order. */
static clgpu_status enumerate(device_table *table) {
  clgpu__platform_lock();
  clgpu_status status = enumerate_locked(table);
  clgpu__platform_unlock();
  return status;
}

static clgpu_status enumerate_locked(device_table *table) {
  table->entries = NULL;
  table->count = 0;
  cl_uint num_platforms = 0;
  cl_int err = clGetPlatformIDs(0, NULL, &num_platforms);
  if (err == CLGPU_CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && num_platforms == 0)) {
    return clgpu__fail(CLGPU_NO_PLATFORM, "%s", no_platform_help);
  }
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clGetPlatformIDs");
  cl_platform_id *platforms = calloc(num_platforms, sizeof *platforms);
  if (!platforms) return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  err = clGetPlatformIDs(num_platforms, platforms, NULL);
  if (err != CL_SUCCESS) {
    free(platforms);
    return clgpu__fail_cl(err, "clGetPlatformIDs");
  }
  for (cl_uint p = 0; p < num_platforms; p++) {
    cl_uint num_devices = 0;
    err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &num_devices);
    if (err == CL_DEVICE_NOT_FOUND || num_devices == 0) continue;
    if (err != CL_SUCCESS) continue; /* a broken platform hides its devices, not others */
    cl_device_id *devices = calloc(num_devices, sizeof *devices);
    device_entry *grown = realloc(table->entries, (table->count + num_devices) * sizeof *grown);
    if (!devices || !grown) {
      free(devices);
      if (grown) table->entries = grown;
      free(platforms);
      free_table(table);
      return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    table->entries = grown;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, num_devices, devices, NULL) !=
        CL_SUCCESS) {
      free(devices);
      continue;
    }
    char platform_name[256], platform_vendor[256];
    read_platform_string(platforms[p], CL_PLATFORM_NAME, platform_name, sizeof platform_name);
    read_platform_string(platforms[p], CL_PLATFORM_VENDOR, platform_vendor, sizeof platform_vendor);
    for (cl_uint d = 0; d < num_devices; d++) {
      device_entry *entry = &table->entries[table->count++];
      memset(entry, 0, sizeof *entry);
      entry->platform = platforms[p];
      entry->device = devices[d];
      entry->platform_index = p;
      entry->device_index = d;
      memcpy(entry->platform_name, platform_name, sizeof platform_name);
      memcpy(entry->platform_vendor, platform_vendor, sizeof platform_vendor);
      read_device_string(devices[d], CL_DEVICE_NAME, entry->device_name, sizeof entry->device_name);
      read_device_string(devices[d], CL_DEVICE_VENDOR, entry->device_vendor,
                         sizeof entry->device_vendor);
      clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof entry->type, &entry->type, NULL);
    }
    free(devices);
  }
  free(platforms);
  if (table->count == 0) {
    return clgpu__fail(CLGPU_NO_DEVICE, "OpenCL platforms are installed but none has a device");
  }
  return CLGPU_SUCCESS;
}

/* Append a listing of the table to `out` (size `size`, may be 0); returns the
 * length the full listing needs, without the terminator. */
static size_t format_listing(const device_table *table, char *out, size_t size) {
  size_t total = 0;
  for (size_t i = 0; i < table->count; i++) {
    const device_entry *e = &table->entries[i];
    char line[640];
    int n = snprintf(line, sizeof line, "  %u:%u  %s / %s (%s)\n", e->platform_index,
                     e->device_index, e->platform_name, e->device_name, type_name(e->type));
    if (n < 0) continue;
    size_t length = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (out && total < size) {
      size_t room = size - total - 1;
      memcpy(out + total, line, length < room ? length : room);
      out[total + (length < room ? length : room)] = '\0';
    }
    total += length;
  }
  return total;
}

static clgpu_status fail_with_listing(clgpu_status status, const device_table *table,
                                      const char *format, const char *selector) {
  clgpu__fail(status, format, selector);
  clgpu__append_error(
      "; devices (select with CLGPU_DEVICE=P:D, a flat index, gpu, cpu, accelerator, or a "
      "case-insensitive part of a platform or device name):\n");
  char listing[8192];
  format_listing(table, listing, sizeof listing);
  clgpu__append_error("%s", listing);
  return status;
}

static int contains_case_insensitive(const char *haystack, const char *needle) {
  size_t n = strlen(needle);
  if (n == 0) return 1;
  for (const char *h = haystack; *h; h++) {
    size_t i = 0;
    while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i])) {
      i++;
    }
    if (i == n) return 1;
  }
  return 0;
}

/* Parse a decimal number of at most 9 digits; returns the end or NULL. */
static const char *parse_index(const char *text, unsigned *value) {
  unsigned v = 0;
  int digits = 0;
  if (!isdigit((unsigned char)*text)) return NULL;
  while (text[0] == '0' && isdigit((unsigned char)text[1])) text++;
  while (isdigit((unsigned char)*text) && digits < 9) {
    v = v * 10u + (unsigned)(*text - '0');
    text++;
    digits++;
  }
  if (digits == 0 || isdigit((unsigned char)*text)) return NULL;
  *value = v;
  return text;
}

/* The device type a selector names ("gpu", "cpu", "accelerator", in any
 * case), or 0. */
static cl_device_type type_selector(const char *selector) {
  static const struct {
    const char *word;
    cl_device_type type;
  } types[] = {{"gpu", CL_DEVICE_TYPE_GPU},
               {"cpu", CL_DEVICE_TYPE_CPU},
               {"accelerator", CL_DEVICE_TYPE_ACCELERATOR}};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    if (strcasecmp(selector, types[i].word) == 0) return types[i].type;
  }
  return 0;
}

static int looks_like_index(const char *selector) {
  for (const char *s = selector; *s; s++) {
    if (!isdigit((unsigned char)*s) && *s != ':') return 0;
  }
  return 1;
}

clgpu_status clgpu__device_select(const char *selector, cl_platform_id *platform,
                                  cl_device_id *device) {
  if (platform) *platform = NULL;
  if (device) *device = NULL;
  CLGPU__RETURN_ERROR_IF(!platform || !device, CLGPU_INVALID_ARGUMENT,
                         "clgpu_device_select: platform and device must not be NULL");
  /* Whitespace around a selector (a newline from a script) is not part of it. */
  const char *begin = selector ? selector : "";
  while (isspace((unsigned char)*begin)) begin++;
  size_t length = strlen(begin);
  while (length > 0 && isspace((unsigned char)begin[length - 1])) length--;
  char *trimmed = malloc(length + 1);
  CLGPU__RETURN_ERROR_IF(!trimmed, CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  memcpy(trimmed, begin, length);
  trimmed[length] = '\0';
  device_table table;
  clgpu_status status = enumerate(&table);
  if (status != CLGPU_SUCCESS) {
    free(trimmed);
    return status;
  }
  const device_entry *chosen = NULL;

  if (!*trimmed) {
    static const cl_device_type preference[] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR,
                                                CL_DEVICE_TYPE_CPU};
    for (size_t p = 0; p < 3 && !chosen; p++) {
      for (size_t i = 0; i < table.count && !chosen; i++) {
        if (table.entries[i].type & preference[p]) chosen = &table.entries[i];
      }
    }
    if (!chosen) chosen = &table.entries[0];
  } else if (type_selector(trimmed)) {
    cl_device_type wanted = type_selector(trimmed);
    for (size_t i = 0; i < table.count && !chosen; i++) {
      if (table.entries[i].type & wanted) chosen = &table.entries[i];
    }
    if (!chosen) {
      status = fail_with_listing(CLGPU_NO_DEVICE, &table,
                                 "device selector \"%s\": no device of that type", selector);
    }
  } else if (looks_like_index(trimmed)) {
    unsigned first = 0, second = 0;
    const char *rest = parse_index(trimmed, &first);
    int has_pair = rest && *rest == ':';
    if (has_pair) rest = parse_index(rest + 1, &second);
    if (!rest || *rest != '\0') {
      status = fail_with_listing(CLGPU_INVALID_DEVICE_SELECTOR, &table,
                                 "device selector \"%s\" is malformed: expected P:D, N or a "
                                 "part of a name",
                                 selector);
    } else {
      for (size_t i = 0; i < table.count && !chosen; i++) {
        const device_entry *e = &table.entries[i];
        if (has_pair ? (e->platform_index == first && e->device_index == second) : i == first) {
          chosen = e;
        }
      }
      if (!chosen) {
        status = fail_with_listing(CLGPU_NO_DEVICE, &table,
                                   "device selector \"%s\": no device has that index", selector);
      }
    }
  } else {
    for (size_t i = 0; i < table.count && !chosen; i++) {
      const device_entry *e = &table.entries[i];
      if (contains_case_insensitive(e->platform_name, trimmed) ||
          contains_case_insensitive(e->platform_vendor, trimmed) ||
          contains_case_insensitive(e->device_name, trimmed) ||
          contains_case_insensitive(e->device_vendor, trimmed)) {
        chosen = e;
      }
    }
    if (!chosen) {
      status =
          fail_with_listing(CLGPU_NO_DEVICE, &table,
                            "device selector \"%s\" matches no platform or device name", selector);
    }
  }
  if (chosen) {
    *platform = chosen->platform;
    *device = chosen->device;
  }
  free(trimmed);
  free_table(&table);
  return status;
}

clgpu_status clgpu_device_select(const char *selector, cl_platform_id *platform,
                                 cl_device_id *device) {
  return clgpu__device_select(selector, platform, device);
}

clgpu_status clgpu_device_list(char *buffer, size_t size, size_t *needed) {
  CLGPU__RETURN_ERROR_IF(!buffer && size > 0, CLGPU_INVALID_ARGUMENT,
                         "clgpu_device_list: buffer is NULL but size is %zu", size);
  if (buffer && size > 0) buffer[0] = '\0';
  device_table table;
  CLGPU__FORWARD_IF_ERROR(enumerate(&table));
  size_t total = format_listing(&table, buffer, size);
  if (needed) *needed = total + 1;
  free_table(&table);
  return CLGPU_SUCCESS;
}

static int has_extension(const char *extensions, const char *name) {
  size_t n = strlen(name);
  for (const char *p = extensions; (p = strstr(p, name)) != NULL; p += n) {
    int starts = p == extensions || p[-1] == ' ';
    int ends = p[n] == '\0' || p[n] == ' ';
    if (starts && ends) return 1;
  }
  return 0;
}

clgpu_status clgpu__read_device_info(cl_platform_id platform, cl_device_id device,
                                     clgpu_device_info *info, char **extensions) {
  memset(info, 0, sizeof *info);
  *extensions = NULL;
  read_platform_string(platform, CL_PLATFORM_NAME, info->platform_name, sizeof info->platform_name);
  read_platform_string(platform, CL_PLATFORM_VERSION, info->platform_version,
                       sizeof info->platform_version);
  read_device_string(device, CL_DEVICE_NAME, info->name, sizeof info->name);
  read_device_string(device, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
  read_device_string(device, CL_DEVICE_VERSION, info->device_version, sizeof info->device_version);
  read_device_string(device, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);
  read_device_string(device, CL_DEVICE_OPENCL_C_VERSION, info->opencl_c_version,
                     sizeof info->opencl_c_version);

  struct scalar_query {
    cl_device_info what;
    void *out;
    size_t size;
  } queries[] = {
      {CL_DEVICE_TYPE, &info->type, sizeof info->type},
      {CL_DEVICE_VENDOR_ID, &info->vendor_id, sizeof info->vendor_id},
      {CL_DEVICE_MAX_COMPUTE_UNITS, &info->compute_units, sizeof info->compute_units},
      {CL_DEVICE_MAX_CLOCK_FREQUENCY, &info->max_clock_mhz, sizeof info->max_clock_mhz},
      {CL_DEVICE_MAX_WORK_GROUP_SIZE, &info->max_work_group_size, sizeof info->max_work_group_size},
      {CL_DEVICE_LOCAL_MEM_SIZE, &info->local_mem_size, sizeof info->local_mem_size},
      {CL_DEVICE_GLOBAL_MEM_SIZE, &info->global_mem_size, sizeof info->global_mem_size},
      {CL_DEVICE_MAX_MEM_ALLOC_SIZE, &info->max_mem_alloc_size, sizeof info->max_mem_alloc_size},
      {CL_DEVICE_MEM_BASE_ADDR_ALIGN, &info->mem_base_addr_align_bits,
       sizeof info->mem_base_addr_align_bits},
      {CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, &info->global_mem_cache_size,
       sizeof info->global_mem_cache_size},
      {CL_DEVICE_PROFILING_TIMER_RESOLUTION, &info->profiling_timer_resolution_ns,
       sizeof info->profiling_timer_resolution_ns},
  };
  for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
    cl_int err = clGetDeviceInfo(device, queries[i].what, queries[i].size, queries[i].out, NULL);
    if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clGetDeviceInfo (device facts)");
  }
  cl_uint dimensions = 0;
  clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof dimensions, &dimensions, NULL);
  if (dimensions >= 1) {
    size_t sizes[16] = {0};
    if (dimensions > 16) dimensions = 16;
    if (clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, dimensions * sizeof(size_t), sizes,
                        NULL) == CL_SUCCESS) {
      for (cl_uint i = 0; i < 3; i++) info->max_work_item_sizes[i] = i < dimensions ? sizes[i] : 1;
    }
  }
  cl_device_local_mem_type local_type = CL_GLOBAL;
  clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_TYPE, sizeof local_type, &local_type, NULL);
  info->local_mem_is_dedicated = local_type == CL_LOCAL;
  cl_bool little = CL_TRUE;
  clGetDeviceInfo(device, CL_DEVICE_ENDIAN_LITTLE, sizeof little, &little, NULL);
  info->is_little_endian = little == CL_TRUE;

  size_t length = 0;
  cl_int err = clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &length);
  if (err != CL_SUCCESS) return clgpu__fail_cl(err, "clGetDeviceInfo (CL_DEVICE_EXTENSIONS)");
  char *text = calloc(length + 1, 1);
  if (!text) return clgpu__fail(CLGPU_CL_OUT_OF_HOST_MEMORY, "out of host memory");
  err = clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, length, text, NULL);
  if (err != CL_SUCCESS) {
    free(text);
    return clgpu__fail_cl(err, "clGetDeviceInfo (CL_DEVICE_EXTENSIONS)");
  }
  info->has_fp64 = has_extension(text, "cl_khr_fp64");
  info->has_fp16 = has_extension(text, "cl_khr_fp16");
  info->has_int64_base_atomics = has_extension(text, "cl_khr_int64_base_atomics");
  info->has_int64_extended_atomics = has_extension(text, "cl_khr_int64_extended_atomics");
  info->has_subgroups =
      has_extension(text, "cl_khr_subgroups") || has_extension(text, "cl_intel_subgroups");
  info->extensions = text;
  *extensions = text;
  return CLGPU_SUCCESS;
}
