/* A planted fault for the asan setup's self-test: a context made and never
 * destroyed, so memory clgpu allocated (the context itself) leaks. Run by
 * tests/asan_selftest.sh, which must see LeakSanitizer report it through
 * clgpu_context_create: proof that tests/lsan.supp hides only the OpenCL
 * stack's own leaks, not the library's. */
#include <stdio.h>

#include <clgpu/clgpu.h>

int main(void) {
  clgpu_context *context = NULL;
  clgpu_status status = clgpu_context_create(NULL, &context);
  if (status != CLGPU_SUCCESS) {
    fprintf(stderr, "planted_leak: %s: %s\n", clgpu_status_name(status), clgpu_last_error());
    return 1;
  }
  printf("planted_leak: leaking a context on %s\n", clgpu_context_device_info(context)->name);
  context = NULL; /* the only pointer to it is gone */
  return 0;
}
