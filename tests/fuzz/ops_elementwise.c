/* Fuzz operations on elementwise kernels (clgpu_elementwise_create and
 * _run, with fixed and hostile names, operations and preambles) and the
 * built-in elementwise operations. */
#include "harness.h"

static const clgpu_status elementwise_create_statuses[] = {
    CLGPU_SUCCESS, CLGPU_INVALID_ARGUMENT, CLGPU_UNSUPPORTED_FEATURE, CLGPU_CL_OUT_OF_HOST_MEMORY};

/* ---- elementwise kernels ---- */

/* The fixed configurations: argument kinds, the names, and the operation as
 * a format over the names (each used in order, %1$s style by position). */
typedef struct elementwise_config {
  size_t num_args;
  clgpu_elementwise_kind kinds[3];
  const char *names[3];
} elementwise_config;

static const elementwise_config elementwise_configs[] = {
    {3, {CLGPU_ARG_OUT, CLGPU_ARG_IN, CLGPU_ARG_SCALAR}, {"y", "x", "a"}},
    {2, {CLGPU_ARG_INOUT, CLGPU_ARG_IN, 0}, {"z", "w", NULL}},
    {1, {CLGPU_ARG_OUT, 0, 0}, {"y", NULL, NULL}},
};

/* Names the header refuses, and names that shadow what OpenCL C or the
 * generated kernel uses (issue 15 item 3: refused at create, or working). */
static const char *const refused_names[] = {
    "i", "clgpu_x", "CLGPU_T", "1x", "", "x y", "x-y", "\xce\xa9", long_identifier, "y\n",
};
static const char *const shadowing_names[] = {
    "min", "max", "int", "kernel", "global", "get_global_id", "float", "if", "return", "clamp",
};

static const char *const preambles[] = {
    "float fuzz_helper(float v) { return v; }\n", "}", "#error fuzz\n", "/*", "#define y 0\n",
    "__kernel void fuzz_other(void) {}\n", "typedef int int;", huge_text,
};

/* The operation of a configuration over its names. */
static void elementwise_operation(int config, const char *const names[3], char *out,
                                  size_t size) {
  if (config == 0) {
    snprintf(out, size, "%s = %s * %s + %s", names[0], names[2], names[1], names[1]);
  } else if (config == 1) {
    snprintf(out, size, "%s = %s - %s; /* a comment */\n", names[0], names[0], names[1]);
  } else {
    snprintf(out, size, "%s = i", names[0]);
  }
}

void op_algo_elementwise_create(fuzz_run *run) {
  byte_reader *in = &run->in;
  int slot = take_byte(in) % ALGO_KERNELS;
  destroy_kernel(slot);
  algo_kernel *made = &algo_kernels[slot];
  clgpu_context *context = take_algo_context(in);
  int config = take_byte(in) % COUNT_OF(elementwise_configs);
  const elementwise_config *fixed = &elementwise_configs[config];
  static const clgpu_type types[] = {CLGPU_TYPE_INT32, CLGPU_TYPE_FLOAT, CLGPU_TYPE_UINT8,
                                     CLGPU_TYPE_INT64, CLGPU_TYPE_HALF,  CLGPU_TYPE_UINT16};
  clgpu_type type = types[take_byte(in) % COUNT_OF(types)];
  clgpu_elementwise_arg args[CLGPU_ELEMENTWISE_MAX_ARGS + 2];
  const char *names[3] = {fixed->names[0], fixed->names[1], fixed->names[2]};
  size_t num_args = fixed->num_args;
  int checkable = 1, must_fail = 0, shadowing = 0;
  uint8_t hostility = take_byte(in);
  char raw[MAX_TEXT + 1];
  if (hostility % 8 == 1) {
    /* A name the header refuses. */
    size_t which = take_byte(in) % num_args;
    names[which] = refused_names[take_byte(in) % COUNT_OF(refused_names)];
    must_fail = 1;
  } else if (hostility % 8 == 2 && num_args > 1) {
    names[1] = names[0]; /* repeated */
    must_fail = 1;
  } else if (hostility % 8 == 3) {
    size_t which = take_byte(in) % num_args;
    names[which] = shadowing_names[take_byte(in) % COUNT_OF(shadowing_names)];
    shadowing = 1;
  } else if (hostility % 8 == 4) {
    size_t which = take_byte(in) % num_args;
    const char *name = TAKE_TEXT(in, refused_names, raw);
    if (algo.builds < ALGO_BUILD_BUDGET) {
      names[which] = name;
      checkable = 0;
    }
  }
  for (size_t a = 0; a < num_args; a++) {
    args[a].name = names[a];
    args[a].kind = fixed->kinds[a];
    args[a].type = type;
  }
  if (type == CLGPU_TYPE_HALF && config == 0) {
    args[2].type = CLGPU_TYPE_FLOAT; /* half scalars are declared float */
  }
  uint8_t argument_change = take_byte(in) % 10;
  if (argument_change == 1) {
    args[0].kind = (clgpu_elementwise_kind)(take_byte(in) % 7);
    checkable = 0;
    if (args[0].kind < CLGPU_ARG_IN || args[0].kind > CLGPU_ARG_SCALAR) must_fail = 1;
  } else if (argument_change == 2) {
    args[take_byte(in) % num_args].type = take_type(in);
    checkable = 0;
  } else if (argument_change == 3) {
    args[0].kind = CLGPU_ARG_IN; /* no output left */
    if (num_args == 1 || fixed->kinds[1] != CLGPU_ARG_OUT) must_fail = 1;
    checkable = 0;
  } else if (argument_change == 4) {
    num_args = 0;
    must_fail = 1;
  } else if (argument_change == 5) {
    /* Too many arguments: 17 scalars after the output. */
    for (size_t a = num_args; a < CLGPU_ELEMENTWISE_MAX_ARGS + 2; a++) {
      static char extra[CLGPU_ELEMENTWISE_MAX_ARGS + 2][8];
      snprintf(extra[a], sizeof extra[a], "s%zu", a);
      args[a].name = extra[a];
      args[a].kind = CLGPU_ARG_SCALAR;
      args[a].type = CLGPU_TYPE_INT32;
    }
    num_args = CLGPU_ELEMENTWISE_MAX_ARGS + 2;
    must_fail = 1;
  } else if (argument_change == 6 && type != CLGPU_TYPE_HALF && config == 0) {
    args[2].type = CLGPU_TYPE_HALF; /* a half scalar */
    must_fail = 1;
  }
  char operation[3 * (LONG_LENGTH + 2) + MAX_TEXT + 256];
  elementwise_operation(config, names, operation, sizeof operation);
  const char *operation_pointer = operation;
  uint8_t operation_change = take_byte(in) % 8;
  expression hostile;
  if (operation_change == 1) {
    operation_pointer = take_byte(in) % 2 ? NULL : "";
    must_fail = 1;
  } else if (operation_change == 2) {
    take_expression(in, (const char *const[]){"y = x"}, 1, &hostile);
    if (hostile.fixed < 0) {
      operation_pointer = hostile.text;
      checkable = 0;
    }
  }
  clgpu_elementwise_options options;
  memset(&options, 0, sizeof options);
  const clgpu_elementwise_options *options_pointer = NULL;
  uint8_t options_mode = take_byte(in) % 6;
  if (options_mode >= 3) {
    options_pointer = &options;
    options.specialise_after = take_byte(in) % 4;
    options.promote_after = take_byte(in) % 4;
    options.variant_cap = options_mode == 5 ? 257 + take_byte(in) : take_byte(in) % 3;
    if (options_mode == 5) must_fail = 1;
    if (options_mode == 4) {
      uint8_t preamble = take_byte(in) % COUNT_OF(preambles);
      if (preamble == 0 || algo.builds < ALGO_BUILD_BUDGET) {
        options.preamble = preambles[preamble];
        if (preamble != 0) checkable = 0;
      }
    }
  }
  clgpu_elementwise *kernel = (clgpu_elementwise *)STALE_DATA;
  int out_null = take_byte(in) % 16 == 15;
  int args_null = take_byte(in) % 16 == 15;
  char shown[128], call[384];
  snprintf(call, sizeof call,
           "clgpu_elementwise_create(%s, %zu args (config %d, %s, first named %s), %s, "
           "preamble %s, cap %u)",
           context == world.context ? "ctx" : context ? "other ctx" : "NULL", num_args, config,
           clgpu_type_cl_name(type), num_args ? quoted(args[0].name, shown) : "-",
           operation_pointer ? "an operation" : "NULL",
           options.preamble ? "given" : "none", options.variant_cap);
  prime_last_error();
  clgpu_status status =
      clgpu_elementwise_create(context, operation_pointer, num_args, args_null ? NULL : args,
                               options_pointer, out_null ? NULL : &kernel);
  check_call(call, status, STATUS_SET(elementwise_create_statuses, 0), 0);
  if ((must_fail || out_null || args_null || !context) && status == CLGPU_SUCCESS) {
    violation(call, "accepted arguments its header refuses");
  }
  if (out_null) return;
  if (status != CLGPU_SUCCESS) {
    if (kernel) violation(call, "failed but left *out non-NULL");
    return;
  }
  if (!kernel || kernel == (clgpu_elementwise *)STALE_DATA) violation(call, "made no kernel");
  clgpu_elementwise_stats stats;
  memset(&stats, 0xff, sizeof stats);
  if (clgpu_elementwise_get_stats(kernel, &stats) != CLGPU_SUCCESS || stats.contiguous_runs ||
      stats.specialised_runs || stats.generic_runs || stats.empty_runs || stats.variants_held) {
    violation(call, "a new kernel object's statistics are not zero");
  }
  made->kernel = kernel;
  made->context = context;
  made->config = config;
  made->type = type;
  made->num_args = num_args;
  memcpy(made->args, args, num_args * sizeof args[0]);
  /* A shadowing name that create accepted must work (item 3). */
  made->checkable = (checkable || shadowing) && config >= 0;
}

void op_algo_elementwise_run(fuzz_run *run) {
  byte_reader *in = &run->in;
  const array_run *pool = &run->pool;
  int slot = take_byte(in) % ALGO_KERNELS;
  algo_kernel *made = &algo_kernels[slot];
  algo_call call;
  algo_call_init(&call);
  algo_write_buffers(take_byte(in));
  uint8_t shape_choice = take_byte(in);
  clgpu_type type = made->kernel ? made->type : CLGPU_TYPE_INT32;
  view_wish wish = wish_1d(type, take_byte(in) % (ALGO_MAX_N + 1), ALG_A);
  if (shape_choice % 2 == 0) {
    wish.rank = 2;
    wish.shape[0] = 1 + take_byte(in) % 9;
    wish.shape[1] = take_byte(in) % 33;
  }
  static algo_view views[CLGPU_ELEMENTWISE_MAX_ARGS + 2];
  clgpu_elementwise_value values[CLGPU_ELEMENTWISE_MAX_ARGS + 2];
  static uint8_t scalars[CLGPU_ELEMENTWISE_MAX_ARGS + 2][8];
  size_t num_args = made->kernel ? made->num_args : 1;
  memset(values, 0, sizeof values);
  for (size_t a = 0; a < num_args; a++) {
    const clgpu_elementwise_arg *arg = made->kernel ? &made->args[a] : NULL;
    int scalar = arg && arg->kind == CLGPU_ARG_SCALAR;
    uint8_t swap = take_byte(in) % 16;
    memset(&views[a], 0, sizeof views[a]);
    views[a].made = 1;
    if (scalar != (swap == 1)) {
      store_int(scalars[a], arg && arg->type ? arg->type : CLGPU_TYPE_INT32,
                (uint64_t)(take_byte(in) % 7) - 3);
      values[a].scalar = swap == 2 ? NULL : scalars[a];
      if (swap == 2) call.must_fail = 1;
      if (swap == 1 && made->kernel) call.must_fail = 1;
    } else {
      /* Outputs in B and C, inputs in A, or anywhere. */
      view_wish own = wish;
      own.buffer = arg && arg->kind != CLGPU_ARG_IN ? ALG_B + (int)(a % 2) : ALG_A;
      if (arg) own.type = arg->type;
      take_algo_view(in, pool, own, &views[a]);
      write_values(&views[a], take_byte(in), 0);
      values[a].array = views[a].pointer;
      if (!views[a].pointer || (swap == 1 && made->kernel)) call.must_fail = 1;
      if (arg && arg->kind != CLGPU_ARG_IN && broadcast_output(&views[a])) call.must_fail = 1;
      add_view(&call, &views[a]);
      if (swap == 3) {
        values[a].scalar = scalars[a]; /* both given */
        call.checkable = 0;
      }
    }
  }
  int values_null = take_byte(in) % 16 == 15;
  if (values_null || !made->kernel) call.must_fail = 1;
  algo_upload();
  /* The model: every output element from the inputs' elements before. */
  if (!made->kernel || !made->checkable || made->context != world.context) call.checkable = 0;
  size_t count = 0;
  for (size_t a = 0; a < num_args && call.checkable; a++) {
    if (made->args[a].kind == CLGPU_ARG_SCALAR) continue;
    if (!views[a].made || !views[a].pointer) {
      call.checkable = 0;
      break;
    }
    const clgpu_array *v = &views[a].view;
    if (v->type != made->args[a].type || v->rank != wish.rank || v->shape[0] != wish.shape[0] ||
        (wish.rank == 2 && v->shape[1] != wish.shape[1])) {
      call.checkable = 0;
    }
    count = views[a].count;
  }
  if (call.checkable) {
    for (size_t k = 0; k < count; k++) {
      const algo_view *out = &views[0];
      uint8_t *target = &algo_model[out->buffer][element_offset(&out->view, k)];
      if (made->config == 0) {
        double x = element_real(&algo_before[views[1].buffer][element_offset(&views[1].view, k)],
                                type);
        double a = made->args[2].type == CLGPU_TYPE_FLOAT && type != CLGPU_TYPE_FLOAT
                       ? 0
                       : element_real(scalars[2], made->args[2].type);
        if (made->args[2].type == CLGPU_TYPE_FLOAT) {
          float f;
          memcpy(&f, scalars[2], sizeof f);
          a = f;
        }
        if (is_real(type)) {
          store_real(target, type, a * x + x);
        } else {
          int64_t xi = element_int(&algo_before[views[1].buffer][element_offset(&views[1].view, k)],
                                   type);
          store_int(target, type, (uint64_t)element_int(scalars[2], type) * (uint64_t)xi +
                                      (uint64_t)xi);
        }
      } else if (made->config == 1) {
        const uint8_t *z = &algo_before[out->buffer][element_offset(&out->view, k)];
        const uint8_t *w = &algo_before[views[1].buffer][element_offset(&views[1].view, k)];
        if (is_real(type)) store_real(target, type, element_real(z, type) - element_real(w, type));
        else store_int(target, type, (uint64_t)element_int(z, type) - (uint64_t)element_int(w, type));
      } else {
        store_int(target, type, k);
      }
    }
  }
  begin_algo_call(&call, in);
  describe_views(&call, "clgpu_elementwise_run");
  clgpu_status status =
      clgpu_elementwise_run(made->kernel, values_null ? NULL : values, call.wait.count,
                            call.wait.list, call.want_event ? &call.event : NULL);
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
  if (made->kernel) {
    clgpu_elementwise_stats stats;
    prime_last_error();
    clgpu_status stats_status = clgpu_elementwise_get_stats(made->kernel, &stats);
    check_call("clgpu_elementwise_get_stats", stats_status, STATUS_SET(plain_statuses, 0), 0);
    if (stats.variants_held > 256) violation("clgpu_elementwise_get_stats", "holds > 256");
  }
  prime_last_error();
  clgpu_status null_status = clgpu_elementwise_get_stats(NULL, NULL);
  check_call("clgpu_elementwise_get_stats(NULL)", null_status, STATUS_SET(plain_statuses, 0), 0);
  expect_status("clgpu_elementwise_get_stats(NULL)", null_status, CLGPU_INVALID_ARGUMENT, "NULL");
}

/* ---- the built-in elementwise operations and transfers ---- */

void op_algo_builtin(fuzz_run *run) {
  byte_reader *in = &run->in;
  const array_run *pool = &run->pool;
  algo_call call;
  algo_call_init(&call);
  clgpu_context *context = take_algo_context(in);
  uint8_t which = take_byte(in) % 5; /* convert, axpby, compare, iota, fill */
  algo_write_buffers(take_byte(in));
  clgpu_type type = take_algo_type(in);
  view_wish wish = wish_1d(type, take_byte(in) % (ALGO_MAX_N + 1), ALG_B);
  if (take_byte(in) % 3 == 0) {
    wish.rank = 2;
    wish.shape[0] = 1 + take_byte(in) % 9;
    wish.shape[1] = take_byte(in) % 33;
  }
  algo_view out, x, y;
  view_wish out_wish = wish;
  if (which == 2) out_wish.type = CLGPU_TYPE_UINT8;
  if (which == 0) out_wish.type = take_algo_type(in);
  take_algo_view(in, pool, out_wish, &out);
  view_wish in_wish = wish;
  in_wish.buffer = ALG_A;
  take_algo_view(in, pool, in_wish, &x);
  in_wish.buffer = take_byte(in) % 2 ? ALG_C : ALG_A;
  take_algo_view(in, pool, in_wish, &y);
  write_values(&x, take_byte(in), 0);
  write_values(&y, take_byte(in), 0);
  add_view(&call, &out);
  if (which <= 2) add_view(&call, &x);
  if (which == 1 || which == 2) add_view(&call, &y);
  if (broadcast_output(&out)) call.must_fail = 1;
  uint8_t alpha[8], beta[8];
  clgpu_type scalar_type = type == CLGPU_TYPE_HALF ? CLGPU_TYPE_FLOAT : type;
  if (which == 3 && out.made)
    scalar_type = out.view.type == CLGPU_TYPE_HALF ? CLGPU_TYPE_FLOAT : out.view.type;
  if (which == 4 && out.made) scalar_type = out.view.type;
  int alpha_value = take_byte(in) % 7 - 3, beta_value = take_byte(in) % 7 - 3;
  if (!is_signed_type(scalar_type) && !is_real(scalar_type)) {
    alpha_value = alpha_value < 0 ? -alpha_value : alpha_value;
    beta_value = beta_value < 0 ? -beta_value : beta_value;
  }
  store_int(alpha, scalar_type, (uint64_t)(int64_t)alpha_value);
  store_int(beta, scalar_type, (uint64_t)(int64_t)beta_value);
  int scalar_null = take_byte(in) % 16 == 15;
  clgpu_comparison comparison = (clgpu_comparison)(take_byte(in) % 8);
  if (scalar_null && which != 0 && which != 2) call.must_fail = 1;
  algo_upload();
  if (context != world.context || !out.made) call.checkable = 0;
  /* Shapes and types that a call refuses are not modelled. */
  const algo_view *inputs[2] = {which <= 2 ? &x : NULL, which == 1 || which == 2 ? &y : NULL};
  for (int i = 0; i < 2 && call.checkable; i++) {
    if (!inputs[i]) continue;
    if (!inputs[i]->made || inputs[i]->view.rank != out.view.rank ||
        inputs[i]->count != out.count || inputs[i]->view.shape[0] != out.view.shape[0] ||
        (which != 0 && inputs[i]->view.type != (which == 2 ? x.view.type : out.view.type))) {
      call.checkable = 0;
    }
  }
  if (which == 2 && out.view.type != CLGPU_TYPE_UINT8) call.checkable = 0;
  if (which == 2 && (comparison < CLGPU_COMPARE_LESS || comparison > CLGPU_COMPARE_GREATER_EQUAL)) {
    call.checkable = 0;
    call.must_fail = 1;
  }
  for (size_t k = 0; k < out.count && call.checkable; k++) {
    uint8_t *target = &algo_model[out.buffer][element_offset(&out.view, k)];
    clgpu_type t = out.view.type;
    const uint8_t *px = which <= 2 ? &algo_before[x.buffer][element_offset(&x.view, k)] : NULL;
    const uint8_t *py =
        which == 1 || which == 2 ? &algo_before[y.buffer][element_offset(&y.view, k)] : NULL;
    if (which == 0) {
      if (is_real(x.view.type) && !is_real(t)) {
        /* Toward zero, saturated to the target's range. */
        double value = element_real(px, x.view.type);
        size_t bits = 8 * clgpu_type_size(t);
        double low = is_signed_type(t) ? -(double)((uint64_t)1 << (bits - 1)) : 0;
        if (value < low) value = low;
        if (bits < 64 && value > (double)(((uint64_t)1 << (bits - (is_signed_type(t) ? 1 : 0))) - 1)) {
          value = (double)(((uint64_t)1 << (bits - (is_signed_type(t) ? 1 : 0))) - 1);
        }
        store_int(target, t, (uint64_t)(int64_t)value);
      } else if (is_real(x.view.type)) {
        store_real(target, t, element_real(px, x.view.type));
      } else {
        store_int(target, t, (uint64_t)element_int(px, x.view.type));
      }
    } else if (which == 1) {
      if (is_real(t)) {
        store_real(target, t, element_real(alpha, scalar_type) * element_real(px, t) +
                                  element_real(beta, scalar_type) * element_real(py, t));
      } else {
        store_int(target, t, (uint64_t)element_int(alpha, t) * (uint64_t)element_int(px, t) +
                                 (uint64_t)element_int(beta, t) * (uint64_t)element_int(py, t));
      }
    } else if (which == 2) {
      double a = element_real(px, x.view.type), b = element_real(py, x.view.type);
      int result = comparison == CLGPU_COMPARE_LESS         ? a < b
                   : comparison == CLGPU_COMPARE_LESS_EQUAL ? a <= b
                   : comparison == CLGPU_COMPARE_EQUAL      ? a == b
                   : comparison == CLGPU_COMPARE_NOT_EQUAL  ? a != b
                   : comparison == CLGPU_COMPARE_GREATER    ? a > b
                                                            : a >= b;
      store_int(target, CLGPU_TYPE_UINT8, (uint64_t)result);
    } else if (which == 3) {
      if (is_real(t)) {
        store_real(target, t, element_real(alpha, scalar_type) +
                                  (double)k * element_real(beta, scalar_type));
        if (k * 4 > 2048 && t == CLGPU_TYPE_HALF) call.checkable = 0;
      } else {
        store_int(target, t, (uint64_t)element_int(alpha, t) + k * (uint64_t)element_int(beta, t));
      }
    } else {
      memcpy(target, alpha, clgpu_type_size(t));
    }
  }
  begin_algo_call(&call, in);
  static const char *const names[] = {"clgpu_convert", "clgpu_axpby", "clgpu_compare",
                                      "clgpu_iota", "clgpu_fill"};
  describe_views(&call, names[which]);
  cl_event *event = call.want_event ? &call.event : NULL;
  const void *a = scalar_null ? NULL : alpha, *b = scalar_null ? NULL : beta;
  clgpu_status status;
  switch (which) {
    case 0:
      status = clgpu_convert(context, out.pointer, x.pointer, call.wait.count, call.wait.list,
                             event);
      break;
    case 1:
      status = clgpu_axpby(context, out.pointer, a, x.pointer, b, y.pointer, call.wait.count,
                           call.wait.list, event);
      break;
    case 2:
      status = clgpu_compare(context, comparison, out.pointer, x.pointer, y.pointer,
                             call.wait.count, call.wait.list, event);
      break;
    case 3:
      status = clgpu_iota(context, out.pointer, a, b, call.wait.count, call.wait.list, event);
      break;
    default:
      status = clgpu_fill(context, out.pointer, a, call.wait.count, call.wait.list, event);
      break;
  }
  finish_algo_call(&call, status, STATUS_SET(algo_statuses, 1));
}
