/* The option parser of every clgpu-bench subcommand (bench_options.c): a
 * subcommand describes its options in a table and handles each one found;
 * the parser finds them, takes their values, answers --help and reports
 * unknown options and missing values, all in one way. */
#ifndef CLGPU_BENCH_OPTIONS_H
#define CLGPU_BENCH_OPTIONS_H

#include <stdarg.h>
#include <stddef.h>

/* One option of a subcommand. */
typedef struct bench_option {
  const char *name;  /* "--repeat" */
  const char *alias; /* another spelling ("-q"), or NULL */
  /* What a missing value is called in the usage error ("%s needs a value"):
   * "a value", "a folder"; NULL for a flag, which takes no value. */
  const char *value;
  int nonempty; /* an empty value is a missing one too */
  int id;       /* for the subcommand's handler */
} bench_option;

/* A subcommand: its options, its help and how its usage errors read. */
typedef struct bench_command {
  const char *prefix; /* what its usage errors start with: "clgpu-bench run: " */
  const char *see;    /* the help they point to: "clgpu-bench run --help" */
  const bench_option *options;
  size_t num_options;
  int equals;   /* a value may come as --NAME=VALUE too */
  int operands; /* it takes arguments that are not options (a lone "-" is one) */
  /* --help and -h: these texts on stdout, up to a NULL. */
  const char *const *help;
} bench_command;

/* The bench_command of subcommand NAME (a string literal) with an option
 * table (an array) and a help page of its own: its usage errors read
 * "clgpu-bench NAME: ... (see clgpu-bench NAME --help)". */
#define BENCH_SUBCOMMAND(name, table, equals, operands, help)            \
  {                                                                      \
    "clgpu-bench " name ": ", "clgpu-bench " name " --help", (table),    \
        sizeof(table) / sizeof((table)[0]), (equals), (operands), (help) \
  }

/* The bench_command of a subcommand that the tool's help describes, with
 * num_options options (no operands, no --NAME=VALUE): its usage errors read
 * "clgpu-bench: NAME: ... (see clgpu-bench --help)". */
#define BENCH_TOOL_SUBCOMMAND(name, table, num_options, help) \
  { "clgpu-bench: " name ": ", "clgpu-bench --help", (table), (num_options), 0, 0, (help) }

/* The tool's own usage errors: "clgpu-bench: ... (see clgpu-bench --help)";
 * it has no options. */
extern const bench_command bench_tool_command;

/* Handles one option (its value: NULL for a flag) or, with option NULL, an
 * operand: 0, or the exit status of a usage error (printed). */
typedef int (*bench_option_handler)(const bench_command *command, void *state,
                                    const bench_option *option, const char *value);

/* Parse argv through command's table, calling handle for each option and
 * operand in their order: 0; -1 after --help (printed); or the exit status
 * of a usage error (printed: unknown option, missing value, or handle's). */
int bench_parse_options(const bench_command *command, int argc, char **argv,
                        bench_option_handler handle, void *state);

/* The value of a counted option (--repeat, --warmup) from `minimum` to
 * 1000000 into *out: 0, or 2 after the usage error "NAME: 'VALUE' is not a
 * count from MINIMUM to 1000000" (printed). */
int bench_option_count(const bench_command *command, const bench_option *option, const char *value,
                       int minimum, int *out);

/* The value of an option that takes one of `count` names (--format): 0 with
 * the name's index in *out, or 2 after the usage error "NAME: 'VALUE' is not
 * A, B or C" (printed). */
int bench_option_choice(const bench_command *command, const bench_option *option, const char *value,
                        const char *const *names, int count, int *out);

/* --device SELECTOR, of the subcommands that run on one device (run,
 * kernel, tune, selfcheck, first-call, devices): the device as
 * CLGPU_DEVICE takes it ("P:D", a flat index, gpu, cpu, accelerator, or part
 * of a platform or device name). The option's entry, with the subcommand's
 * id for it. */
#define BENCH_DEVICE_OPTION(id) \
  { "--device", NULL, "a selector", 1, (id) }

/* Use the device that `selector` (--device's value) picks for the rest of
 * this process and for the children it starts: check that it picks one
 * (clgpu_device_select), then set CLGPU_DEVICE to it, which every context
 * made afterwards reads. NULL does nothing. 0; 2 after the usage error
 * "--device: no device matches 'SELECTOR' (clgpu-bench devices lists them)"
 * (printed); 1 when no device can be listed at all (printed). */
int bench_use_device(const bench_command *command, const char *selector);

/* Print "PREFIX" FORMAT " (see SEE)" on stderr (after clearing the progress
 * line); returns 2, the exit status of a usage error. */
int bench_usage_error(const bench_command *command, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int bench_usage_verror(const bench_command *command, const char *format, va_list arguments)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;

#endif
