/* The option parser of clgpu-bench's subcommands (bench_options.h). */
#include "bench_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

static const char *const no_help[] = {NULL};

const bench_command bench_tool_command = {"clgpu-bench: ", "clgpu-bench --help", NULL, 0, 0, 0,
                                          no_help};

int bench_usage_verror(const bench_command *command, const char *format, va_list arguments) {
  bench_progress_clear();
  fputs(command->prefix, stderr);
  vfprintf(stderr, format, arguments);
  fprintf(stderr, " (see %s)\n", command->see);
  return 2;
}

int bench_usage_error(const bench_command *command, const char *format, ...) {
  va_list arguments;
  va_start(arguments, format);
  int status = bench_usage_verror(command, format, arguments);
  va_end(arguments);
  return status;
}

int bench_option_count(const bench_command *command, const bench_option *option, const char *value,
                       int minimum, int *out) {
  if (bench_parse_count(value, minimum, out) == 0) return 0;
  return bench_usage_error(command, "%s: '%s' is not a count from %d to 1000000", option->name,
                           value, minimum);
}

int bench_option_choice(const bench_command *command, const bench_option *option, const char *value,
                        const char *const *names, int count, int *out) {
  for (int k = 0; k < count; k++) {
    if (strcmp(value, names[k]) == 0) {
      *out = k;
      return 0;
    }
  }
  /* "a, b or c" */
  char list[256] = "";
  size_t used = 0;
  for (int k = 0; k < count && used < sizeof list; k++) {
    const char *separator = k == 0 ? "" : k == count - 1 ? " or " : ", ";
    int n = snprintf(list + used, sizeof list - used, "%s%s", separator, names[k]);
    if (n < 0) break;
    used += (size_t)n;
  }
  return bench_usage_error(command, "%s: '%s' is not %s", option->name, value, list);
}

int bench_use_device(const bench_command *command, const char *selector) {
  if (!selector) return 0;
  cl_platform_id platform = NULL;
  cl_device_id device = NULL;
  clgpu_status status = clgpu_device_select(selector, &platform, &device);
  if (status == CLGPU_NO_DEVICE || status == CLGPU_INVALID_DEVICE_SELECTOR) {
    /* Unless there is no device at all: then nothing could match. */
    size_t needed = 0;
    clgpu_status listed = clgpu_device_list(NULL, 0, &needed);
    if (listed != CLGPU_SUCCESS) return bench_report_failure("listing devices", listed);
    return bench_usage_error(
        command, "--device: no device matches '%s' (clgpu-bench devices lists them)", selector);
  }
  if (status != CLGPU_SUCCESS) return bench_report_failure("listing devices", status);
  if (setenv("CLGPU_DEVICE", selector, 1) != 0) {
    fprintf(stderr, "%s--device: cannot set CLGPU_DEVICE: out of memory\n", command->prefix);
    return 1;
  }
  return 0;
}

/* The option that `arg` names, with *value pointing past "=" when it comes
 * as --NAME=VALUE; NULL when none does. */
static const bench_option *find_option(const bench_command *command, const char *arg,
                                       const char **value) {
  *value = NULL;
  for (size_t k = 0; k < command->num_options; k++) {
    const bench_option *option = &command->options[k];
    if (strcmp(arg, option->name) == 0) return option;
    if (option->alias && strcmp(arg, option->alias) == 0) return option;
    size_t length = strlen(option->name);
    if (option->value && command->equals && strncmp(arg, option->name, length) == 0 &&
        arg[length] == '=') {
      *value = arg + length + 1;
      return option;
    }
  }
  return NULL;
}

int bench_parse_options(const bench_command *command, int argc, char **argv,
                        bench_option_handler handle, void *state) {
  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      for (const char *const *text = command->help; *text; text++) fputs(*text, stdout);
      return -1;
    }
    int status = 0;
    const char *value = NULL;
    const bench_option *option = find_option(command, arg, &value);
    if (option) {
      if (option->value && !value) {
        if (i + 1 >= argc) return bench_usage_error(command, "%s needs %s", arg, option->value);
        value = argv[++i];
      }
      if (option->nonempty && value[0] == '\0') {
        return bench_usage_error(command, "%s needs %s", arg, option->value);
      }
      status = handle(command, state, option, value);
    } else if (command->operands && (arg[0] != '-' || arg[1] == '\0')) {
      status = handle(command, state, NULL, arg);
    } else {
      return bench_usage_error(command, "unknown option '%s'", arg);
    }
    if (status != 0) return status;
  }
  return 0;
}
