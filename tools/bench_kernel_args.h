/* clgpu-bench kernel's argument specs (bench_kernel_args.c): the --arg
 * grammar (TYPE[COUNT], TYPE[COUNT]=random|zeros|VALUE, TYPE=VALUE,
 * local:BYTES), its types and values, and the data a buffer is filled with. */
#ifndef CLGPU_BENCH_KERNEL_ARGS_H
#define CLGPU_BENCH_KERNEL_ARGS_H

#include <stddef.h>

#include "bench_data.h"
#include "bench_options.h"

/* A type a spec may name. */
typedef struct arg_type {
  const char *name;  /* OpenCL C's name, as CL_KERNEL_ARG_TYPE_NAME gives it */
  const char *alias; /* the fixed-width name */
  const char *alias2;
  size_t size;
  int kind; /* KIND_UNSIGNED, KIND_SIGNED or KIND_FLOAT (bench_data.h) */
} arg_type;

enum { ARG_BUFFER, ARG_SCALAR, ARG_LOCAL };
enum { FILL_RANDOM, FILL_ZEROS, FILL_VALUE };

/* One --arg. */
typedef struct arg_spec {
  const char *text; /* as given */
  int kind;
  const arg_type *type; /* buffers and scalars */
  size_t count;         /* buffers: elements */
  size_t bytes;         /* buffers and local: bytes; scalars: the type's size */
  int fill;             /* buffers */
  const char *value_text;
  unsigned char value[8]; /* scalars and constant buffers: the value's bytes */
} arg_spec;

/* The --arg numbered `index` into *spec: 0, or 2 after a usage error of
 * command's (printed). */
int bench_arg_parse(const bench_command *command, const char *text, size_t index, arg_spec *spec);

/* The spec type of a kernel parameter of CL_KERNEL_ARG_TYPE_NAME type_name
 * ("unsigned int", "float*"), or NULL when it is none of them. */
const arg_type *bench_arg_type_of_parameter(const char *type_name);

/* A buffer's data, spec->bytes of it: random (from a fixed seed per
 * argument index, so runs repeat), zeros or the spec's value. */
void bench_arg_fill(const arg_spec *spec, size_t index, void *data);

/* "buffer", "scalar" or "local"; a buffer's "random", "zeros" or "value". */
const char *bench_arg_kind_name(const arg_spec *spec);
const char *bench_arg_fill_name(const arg_spec *spec);

#endif
