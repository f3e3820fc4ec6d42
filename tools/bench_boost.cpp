// The Boost.Compute peer of `clgpu-bench run` (see bench_boost.h): the
// project's only C++, built when the Meson feature `boost_compute` finds
// boost/compute.hpp. It wraps the clgpu context's queue (and through it the
// cl_context and device) and the benchmark's buffers without copying
// anything, so Boost and clgpu work on the same data on the same device.
#include "bench_boost.h"

#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/copy_if.hpp>
#include <boost/compute/algorithm/count_if.hpp>
#include <boost/compute/algorithm/inclusive_scan.hpp>
#include <boost/compute/algorithm/iota.hpp>
#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/algorithm/reduce_by_key.hpp>
#include <boost/compute/algorithm/reverse_copy.hpp>
#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/algorithm/sort_by_key.hpp>
#include <boost/compute/algorithm/stable_partition.hpp>
#include <boost/compute/algorithm/unique_copy.hpp>
#include <boost/compute/buffer.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/exception/program_build_failure.hpp>
#include <boost/compute/function.hpp>
#include <boost/compute/iterator/buffer_iterator.hpp>
#include <boost/compute/types/builtin.hpp>
#include <boost/version.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

namespace {

namespace bc = boost::compute;

// After a call and queue.finish(): its wall time since `start` into
// wall_ms, when it is a timed call (past the warm-up ones).
void record_call(int call, int warmup, std::chrono::steady_clock::time_point start,
                 double *wall_ms) {
  auto stop = std::chrono::steady_clock::now();
  if (call >= warmup) {
    wall_ms[call - warmup] = std::chrono::duration<double, std::milli>(stop - start).count();
  }
}

template <class T>
uint64_t run_once(bench_boost_op op, bc::command_queue &queue, const bc::buffer &input,
                  const bc::buffer &output, size_t n, const bc::function<bool(T)> &predicate) {
  bc::buffer_iterator<T> first = bc::make_buffer_iterator<T>(input, 0);
  bc::buffer_iterator<T> last = bc::make_buffer_iterator<T>(input, n);
  bc::buffer_iterator<T> result = bc::make_buffer_iterator<T>(output, 0);
  switch (op) {
    case BENCH_BOOST_REDUCE:
      bc::reduce(first, last, result, queue);
      return 0;
    case BENCH_BOOST_INCLUSIVE_SCAN:
      bc::inclusive_scan(first, last, result, queue);
      return 0;
    case BENCH_BOOST_COPY_IF: {
      bc::buffer_iterator<T> end = bc::copy_if(first, last, result, predicate, queue);
      return static_cast<uint64_t>(end - result);
    }
    case BENCH_BOOST_COUNT_IF:
      return static_cast<uint64_t>(bc::count_if(first, last, predicate, queue));
    case BENCH_BOOST_COPY:
      bc::copy(first, last, result, queue);
      return 0;
    case BENCH_BOOST_REVERSE_COPY:
      bc::reverse_copy(first, last, result, queue);
      return 0;
    case BENCH_BOOST_NONE:
    case BENCH_BOOST_SORT:
    case BENCH_BOOST_SORT_BY_KEY:
    case BENCH_BOOST_SORT_COMPARE:
    case BENCH_BOOST_ARGSORT:
    case BENCH_BOOST_SEGMENTED_SORT:
    case BENCH_BOOST_REDUCE_BY_KEY:
    case BENCH_BOOST_UNIQUE:
    case BENCH_BOOST_STABLE_PARTITION:
      break;
  }
  throw std::invalid_argument(
      "no such Boost.Compute operation (sorts go to bench_boost_sort, by-key ones to "
      "bench_boost_by_key, stable_partition to bench_boost_partition)");
}

// The benchmark's predicate over T as a Boost.Compute function.
template <class T>
bc::function<bool(T)> make_predicate(const char *predicate_text) {
  const std::string type = bc::type_name<T>();
  const std::string source = "inline bool clgpu_bench_predicate(" + type + " x) { return (" +
                             std::string(predicate_text ? predicate_text : "x != 0") + "); }";
  return bc::make_function_from_source<bool(T)>("clgpu_bench_predicate", source);
}

template <class T>
void run_typed(cl_command_queue cl_queue, bench_boost_op op, const char *predicate_text,
               cl_mem input_mem, cl_mem output_mem, size_t n, int warmup, int repeat,
               double *wall_ms, uint64_t *count) {
  bc::command_queue queue(cl_queue, true);
  bc::buffer input(input_mem, true);
  bc::buffer output(output_mem, true);
  bc::function<bool(T)> predicate = make_predicate<T>(predicate_text);
  for (int call = 0; call < warmup + repeat; call++) {
    auto start = std::chrono::steady_clock::now();
    uint64_t counted = run_once<T>(op, queue, input, output, n, predicate);
    queue.finish();
    record_call(call, warmup, start, wall_ms);
    *count = counted;
  }
}

// One sort, refilled before each call (untimed) except argsort, whose copy
// of the keys is part of what it times (see bench_boost.h).
template <class T>
void sort_typed(cl_command_queue cl_queue, bench_boost_op op, cl_mem keys_source_mem,
                cl_mem keys_mem, cl_mem values_source_mem, cl_mem values_mem, size_t n, int warmup,
                int repeat, double *wall_ms) {
  const bool with_values = op == BENCH_BOOST_SORT_BY_KEY || op == BENCH_BOOST_ARGSORT;
  if (!keys_source_mem || !keys_mem || (with_values && !values_mem) ||
      (op == BENCH_BOOST_SORT_BY_KEY && !values_source_mem)) {
    throw std::invalid_argument("bench_boost_sort: a buffer the sort needs is missing");
  }
  bc::command_queue queue(cl_queue, true);
  bc::buffer keys_source(keys_source_mem, true);
  bc::buffer keys(keys_mem, true);
  bc::buffer values = with_values ? bc::buffer(values_mem, true) : bc::buffer();
  bc::buffer values_source =
      op == BENCH_BOOST_SORT_BY_KEY ? bc::buffer(values_source_mem, true) : bc::buffer();
  const std::string type = bc::type_name<T>();
  const std::string source =
      "inline bool clgpu_bench_less(" + type + " a, " + type + " b) { return a < b; }";
  bc::function<bool(T, T)> less =
      bc::make_function_from_source<bool(T, T)>("clgpu_bench_less", source);
  bc::buffer_iterator<T> first = bc::make_buffer_iterator<T>(keys, 0);
  bc::buffer_iterator<T> last = bc::make_buffer_iterator<T>(keys, n);
  bc::buffer_iterator<T> source_first = bc::make_buffer_iterator<T>(keys_source, 0);
  bc::buffer_iterator<T> source_last = bc::make_buffer_iterator<T>(keys_source, n);
  for (int call = 0; call < warmup + repeat; call++) {
    if (op != BENCH_BOOST_ARGSORT) {
      queue.enqueue_copy_buffer(keys_source, keys, 0, 0, n * sizeof(T));
      if (op == BENCH_BOOST_SORT_BY_KEY) {
        queue.enqueue_copy_buffer(values_source, values, 0, 0, n * sizeof(bc::uint_));
      }
      queue.finish();
    }
    auto start = std::chrono::steady_clock::now();
    switch (op) {
      case BENCH_BOOST_SORT:
      case BENCH_BOOST_SEGMENTED_SORT:
        bc::sort(first, last, queue);
        break;
      case BENCH_BOOST_SORT_COMPARE:
        bc::sort(first, last, less, queue);
        break;
      case BENCH_BOOST_SORT_BY_KEY:
        bc::sort_by_key(first, last, bc::make_buffer_iterator<bc::uint_>(values, 0), queue);
        break;
      case BENCH_BOOST_ARGSORT: {
        bc::buffer_iterator<bc::uint_> indices = bc::make_buffer_iterator<bc::uint_>(values, 0);
        bc::copy(source_first, source_last, first, queue);
        bc::iota(indices, indices + static_cast<std::ptrdiff_t>(n), bc::uint_(0), queue);
        bc::sort_by_key(first, last, indices, queue);
        break;
      }
      default:
        throw std::invalid_argument("bench_boost_sort: not a sort");
    }
    queue.finish();
    record_call(call, warmup, start, wall_ms);
  }
}

// A by-key operation over uint keys and T values, timed as run_typed's.
template <class T>
void by_key_typed(cl_command_queue cl_queue, bench_boost_op op, cl_mem keys_mem, cl_mem values_mem,
                  cl_mem out_keys_mem, cl_mem out_values_mem, size_t n, int warmup, int repeat,
                  double *wall_ms, uint64_t *count) {
  if (op != BENCH_BOOST_REDUCE_BY_KEY && op != BENCH_BOOST_UNIQUE) {
    throw std::invalid_argument("bench_boost_by_key: not a by-key operation");
  }
  bc::command_queue queue(cl_queue, true);
  bc::buffer keys(keys_mem, true);
  bc::buffer values(values_mem, true);
  bc::buffer out_keys(out_keys_mem, true);
  bc::buffer out_values(out_values_mem, true);
  bc::buffer_iterator<bc::uint_> keys_first = bc::make_buffer_iterator<bc::uint_>(keys, 0);
  bc::buffer_iterator<bc::uint_> keys_last = bc::make_buffer_iterator<bc::uint_>(keys, n);
  bc::buffer_iterator<T> values_first = bc::make_buffer_iterator<T>(values, 0);
  bc::buffer_iterator<bc::uint_> keys_result = bc::make_buffer_iterator<bc::uint_>(out_keys, 0);
  bc::buffer_iterator<T> values_result = bc::make_buffer_iterator<T>(out_values, 0);
  for (int call = 0; call < warmup + repeat; call++) {
    auto start = std::chrono::steady_clock::now();
    if (op == BENCH_BOOST_UNIQUE) {
      bc::buffer_iterator<bc::uint_> end =
          bc::unique_copy(keys_first, keys_last, keys_result, queue);
      queue.finish();
      record_call(call, warmup, start, wall_ms);
      *count = static_cast<uint64_t>(end - keys_result);
      continue;
    }
    auto ends =
        bc::reduce_by_key(keys_first, keys_last, values_first, keys_result, values_result, queue);
    queue.finish();
    record_call(call, warmup, start, wall_ms);
    *count = static_cast<uint64_t>(ends.first - keys_result);
  }
}

// stable_partition in place over `work`, refilled from `source` before
// each call (not timed), timed as run_typed's.
template <class T>
void partition_typed(cl_command_queue cl_queue, const char *predicate_text, cl_mem source_mem,
                     cl_mem work_mem, size_t n, int warmup, int repeat, double *wall_ms,
                     uint64_t *count) {
  bc::command_queue queue(cl_queue, true);
  bc::buffer source(source_mem, true);
  bc::buffer work(work_mem, true);
  bc::function<bool(T)> predicate = make_predicate<T>(predicate_text);
  bc::buffer_iterator<T> first = bc::make_buffer_iterator<T>(work, 0);
  bc::buffer_iterator<T> last = bc::make_buffer_iterator<T>(work, n);
  for (int call = 0; call < warmup + repeat; call++) {
    queue.enqueue_copy_buffer(source, work, 0, 0, n * sizeof(T));
    queue.finish();
    auto start = std::chrono::steady_clock::now();
    bc::buffer_iterator<T> selected_end = bc::stable_partition(first, last, predicate, queue);
    queue.finish();
    record_call(call, warmup, start, wall_ms);
    *count = static_cast<uint64_t>(selected_end - first);
  }
}

// body(T()) with T the Boost.Compute type of `type`, for the entry points:
// 0, or 1 with what went wrong in `error` (a type Boost.Compute is not run
// at, or what body threw).
template <class Body>
int with_type(clgpu_type type, char *error, size_t error_size, Body body) {
  try {
    switch (type) {
      case CLGPU_TYPE_INT32:
        body(bc::int_());
        return 0;
      case CLGPU_TYPE_UINT32:
        body(bc::uint_());
        return 0;
      case CLGPU_TYPE_UINT64:
        body(bc::ulong_());
        return 0;
      case CLGPU_TYPE_FLOAT:
        body(bc::float_());
        return 0;
      case CLGPU_TYPE_DOUBLE:
        body(bc::double_());
        return 0;
      default:
        std::snprintf(error, error_size, "type %s is not benchmarked against Boost.Compute",
                      clgpu_type_cl_name(type));
        return 1;
    }
  } catch (const bc::program_build_failure &failure) {
    std::snprintf(error, error_size, "Boost.Compute's kernel failed to build: %s",
                  failure.build_log().c_str());
  } catch (const std::exception &exception) {
    std::snprintf(error, error_size, "%s", exception.what());
  } catch (...) {
    std::snprintf(error, error_size, "unknown exception");
  }
  return 1;
}

}  // namespace

extern "C" const char *bench_boost_version(void) {
  static char version[32];
  std::snprintf(version, sizeof version, "%d.%d.%d", BOOST_VERSION / 100000,
                BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100);
  return version;
}

extern "C" int bench_boost_run(cl_command_queue queue, bench_boost_op op, clgpu_type type,
                               const char *predicate, cl_mem input, cl_mem output, size_t n,
                               int warmup, int repeat, double *wall_ms, uint64_t *count,
                               char *error, size_t error_size) {
  *count = 0;
  return with_type(type, error, error_size, [&](auto element) {
    run_typed<decltype(element)>(queue, op, predicate, input, output, n, warmup, repeat, wall_ms,
                                 count);
  });
}

extern "C" int bench_boost_sort(cl_command_queue queue, bench_boost_op op, clgpu_type key_type,
                                cl_mem keys_source, cl_mem keys, cl_mem values_source,
                                cl_mem values, size_t n, int warmup, int repeat, double *wall_ms,
                                char *error, size_t error_size) {
  return with_type(key_type, error, error_size, [&](auto key) {
    sort_typed<decltype(key)>(queue, op, keys_source, keys, values_source, values, n, warmup,
                              repeat, wall_ms);
  });
}

extern "C" int bench_boost_by_key(cl_command_queue queue, bench_boost_op op, clgpu_type value_type,
                                  cl_mem keys, cl_mem values, cl_mem out_keys, cl_mem out_values,
                                  size_t n, int warmup, int repeat, double *wall_ms,
                                  uint64_t *count, char *error, size_t error_size) {
  *count = 0;
  return with_type(value_type, error, error_size, [&](auto value) {
    by_key_typed<decltype(value)>(queue, op, keys, values, out_keys, out_values, n, warmup, repeat,
                                  wall_ms, count);
  });
}

extern "C" int bench_boost_partition(cl_command_queue queue, clgpu_type type, const char *predicate,
                                     cl_mem source, cl_mem work, size_t n, int warmup, int repeat,
                                     double *wall_ms, uint64_t *count, char *error,
                                     size_t error_size) {
  *count = 0;
  return with_type(type, error, error_size, [&](auto element) {
    partition_typed<decltype(element)>(queue, predicate, source, work, n, warmup, repeat, wall_ms,
                                       count);
  });
}

extern "C" const char *bench_boost_sort_algorithm(bench_boost_op op, cl_device_type type) {
  const bool gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
  switch (op) {
    case BENCH_BOOST_SORT:
    case BENCH_BOOST_SEGMENTED_SORT:
      return gpu ? "radix_sort" : "merge_sort_on_cpu";
    case BENCH_BOOST_SORT_COMPARE:
      return gpu ? "merge_sort_on_gpu" : "merge_sort_on_cpu";
    case BENCH_BOOST_SORT_BY_KEY:
    case BENCH_BOOST_ARGSORT:
      return gpu ? "radix_sort_by_key" : "merge_sort_by_key_on_cpu";
    default:
      return "-";
  }
}
