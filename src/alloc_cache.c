/* Being written. */
#include "internal.h"
typedef int clgpu__placeholder_alloc_cache;
