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
#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/algorithm/reverse_copy.hpp>
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
      break;
  }
  throw std::invalid_argument("no such Boost.Compute operation");
}

template <class T>
void run_typed(cl_command_queue cl_queue, bench_boost_op op, const char *predicate_text,
               cl_mem input_mem, cl_mem output_mem, size_t n, int warmup, int repeat,
               double *wall_ms, uint64_t *count) {
  bc::command_queue queue(cl_queue, true);
  bc::buffer input(input_mem, true);
  bc::buffer output(output_mem, true);
  const std::string type = bc::type_name<T>();
  const std::string source = "inline bool clgpu_bench_predicate(" + type + " x) { return (" +
                             std::string(predicate_text ? predicate_text : "x != 0") + "); }";
  bc::function<bool(T)> predicate =
      bc::make_function_from_source<bool(T)>("clgpu_bench_predicate", source);
  for (int call = 0; call < warmup + repeat; call++) {
    auto start = std::chrono::steady_clock::now();
    uint64_t counted = run_once<T>(op, queue, input, output, n, predicate);
    queue.finish();
    auto stop = std::chrono::steady_clock::now();
    if (call >= warmup) {
      wall_ms[call - warmup] = std::chrono::duration<double, std::milli>(stop - start).count();
    }
    *count = counted;
  }
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
  try {
    switch (type) {
      case CLGPU_INT32:
        run_typed<bc::int_>(queue, op, predicate, input, output, n, warmup, repeat, wall_ms,
                            count);
        return 0;
      case CLGPU_UINT32:
        run_typed<bc::uint_>(queue, op, predicate, input, output, n, warmup, repeat, wall_ms,
                             count);
        return 0;
      case CLGPU_UINT64:
        run_typed<bc::ulong_>(queue, op, predicate, input, output, n, warmup, repeat, wall_ms,
                              count);
        return 0;
      case CLGPU_FLOAT:
        run_typed<bc::float_>(queue, op, predicate, input, output, n, warmup, repeat, wall_ms,
                              count);
        return 0;
      case CLGPU_DOUBLE:
        run_typed<bc::double_>(queue, op, predicate, input, output, n, warmup, repeat, wall_ms,
                               count);
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
