/* Status codes, their names and descriptions, the version, and the
 * thread-local detail message of the last failure.
 *
 * The expected names are built here from CLGPU_STATUS_MAP itself, so that a
 * code added to the table is checked without touching this file. */
#include "support.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One row of the status table as the test sees it: the value, the enum
 * suffix, both spellings a name could take, and the description. Which
 * spelling is right depends on whether the code is OpenCL's (suffix CL_...). */
typedef struct status_row {
  cl_int value;
  const char *suffix;
  const char *clgpu_name;
  const char *description;
} status_row;

#define STATUS_ROW(suffix, value, text) {value, #suffix, "CLGPU_" #suffix, text},
static const status_row status_rows[] = {CLGPU_STATUS_MAP(STATUS_ROW)};
#undef STATUS_ROW

static const size_t status_row_count = sizeof status_rows / sizeof status_rows[0];

/* Codes OpenCL defines keep their OpenCL name; the rest, success included,
 * are clgpu's own. */
static int is_opencl_code(const status_row *row) { return strncmp(row->suffix, "CL_", 3) == 0; }

static const char *expected_name(const status_row *row) {
  return is_opencl_code(row) ? row->suffix : row->clgpu_name;
}

static int is_in_table(cl_int value) {
  for (size_t i = 0; i < status_row_count; i++) {
    if (status_rows[i].value == value) return 1;
  }
  return 0;
}

static void status_table_is_not_trivially_small(void **state) {
  (void)state;
  /* Every later loop would pass vacuously on an empty table; make sure the
   * X-macro expansion above really saw the codes, OpenCL's and clgpu's. */
  size_t opencl = 0, own = 0;
  for (size_t i = 0; i < status_row_count; i++) {
    if (is_opencl_code(&status_rows[i])) {
      opencl++;
    } else {
      own++;
    }
  }
  assert_true(opencl >= 50);
  assert_true(own >= 10);
}

static void every_status_name_follows_its_table_suffix(void **state) {
  (void)state;
  for (size_t i = 0; i < status_row_count; i++) {
    const status_row *row = &status_rows[i];
    const char *name = clgpu_status_name(row->value);
    assert_non_null(name);
    if (strcmp(name, expected_name(row)) != 0) {
      fail_msg("clgpu_status_name(%d) is \"%s\", expected \"%s\"", (int)row->value, name,
               expected_name(row));
    }
  }
}

static void status_names_of_well_known_codes_are_spelled_out(void **state) {
  (void)state;
  /* Spelled by hand, independently of the table, so that a wrong rule for
   * choosing the prefix cannot hide behind expected_name() above. */
  assert_string_equal(clgpu_status_name(CLGPU_SUCCESS), "CLGPU_SUCCESS");
  assert_string_equal(clgpu_status_name(CLGPU_INVALID_ARGUMENT), "CLGPU_INVALID_ARGUMENT");
  assert_string_equal(clgpu_status_name(CLGPU_INTERNAL_ERROR), "CLGPU_INTERNAL_ERROR");
  assert_string_equal(clgpu_status_name(CL_BUILD_PROGRAM_FAILURE), "CL_BUILD_PROGRAM_FAILURE");
  assert_string_equal(clgpu_status_name(CL_INVALID_VALUE), "CL_INVALID_VALUE");
  assert_string_equal(clgpu_status_name(CL_DEVICE_NOT_FOUND), "CL_DEVICE_NOT_FOUND");
  assert_string_equal(clgpu_status_name(CLGPU_CL_PLATFORM_NOT_FOUND_KHR),
                      "CL_PLATFORM_NOT_FOUND_KHR");
}

static void status_names_are_unique(void **state) {
  (void)state;
  for (size_t i = 0; i < status_row_count; i++) {
    for (size_t j = i + 1; j < status_row_count; j++) {
      const char *first = clgpu_status_name(status_rows[i].value);
      const char *second = clgpu_status_name(status_rows[j].value);
      if (strcmp(first, second) == 0) {
        fail_msg("codes %d and %d share the name \"%s\"", (int)status_rows[i].value,
                 (int)status_rows[j].value, first);
      }
    }
  }
}

static void every_status_has_its_table_description(void **state) {
  (void)state;
  for (size_t i = 0; i < status_row_count; i++) {
    const status_row *row = &status_rows[i];
    const char *text = clgpu_status_string(row->value);
    assert_non_null(text);
    if (text[0] == '\0' || strcmp(text, "unknown status code") == 0) {
      fail_msg("clgpu_status_string(%d) (%s) is \"%s\"", (int)row->value, expected_name(row), text);
    }
    assert_string_equal(text, row->description);
  }
}

static void opencl_codes_pass_through_unchanged(void **state) {
  (void)state;
  /* The header promises that a status compares equal to OpenCL's own code,
   * so callers can mix both names; check a spread of the OpenCL 1.2 codes. */
  static const struct {
    cl_int clgpu;
    cl_int opencl;
    const char *name;
  } pairs[] = {
      {CLGPU_SUCCESS, CL_SUCCESS, "CL_SUCCESS"},
      {CLGPU_CL_DEVICE_NOT_FOUND, CL_DEVICE_NOT_FOUND, "CL_DEVICE_NOT_FOUND"},
      {CLGPU_CL_OUT_OF_RESOURCES, CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES"},
      {CLGPU_CL_OUT_OF_HOST_MEMORY, CL_OUT_OF_HOST_MEMORY, "CL_OUT_OF_HOST_MEMORY"},
      {CLGPU_CL_BUILD_PROGRAM_FAILURE, CL_BUILD_PROGRAM_FAILURE, "CL_BUILD_PROGRAM_FAILURE"},
      {CLGPU_CL_KERNEL_ARG_INFO_NOT_AVAILABLE, CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
       "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
      {CLGPU_CL_INVALID_VALUE, CL_INVALID_VALUE, "CL_INVALID_VALUE"},
      {CLGPU_CL_INVALID_COMMAND_QUEUE, CL_INVALID_COMMAND_QUEUE, "CL_INVALID_COMMAND_QUEUE"},
      {CLGPU_CL_INVALID_KERNEL_NAME, CL_INVALID_KERNEL_NAME, "CL_INVALID_KERNEL_NAME"},
      {CLGPU_CL_INVALID_WORK_GROUP_SIZE, CL_INVALID_WORK_GROUP_SIZE, "CL_INVALID_WORK_GROUP_SIZE"},
      {CLGPU_CL_INVALID_GLOBAL_WORK_SIZE, CL_INVALID_GLOBAL_WORK_SIZE,
       "CL_INVALID_GLOBAL_WORK_SIZE"},
      {CLGPU_CL_INVALID_PROPERTY, CL_INVALID_PROPERTY, "CL_INVALID_PROPERTY"},
      {CLGPU_CL_INVALID_DEVICE_PARTITION_COUNT, CL_INVALID_DEVICE_PARTITION_COUNT,
       "CL_INVALID_DEVICE_PARTITION_COUNT"},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    if (pairs[i].clgpu != pairs[i].opencl) {
      fail_msg("CLGPU_%s is %d but OpenCL's %s is %d", pairs[i].name, (int)pairs[i].clgpu,
               pairs[i].name, (int)pairs[i].opencl);
    }
    if (pairs[i].opencl != CL_SUCCESS) {
      assert_string_equal(clgpu_status_name(pairs[i].opencl), pairs[i].name);
    }
  }
}

static void library_codes_stay_in_their_own_band(void **state) {
  (void)state;
  /* clgpu's codes must never collide with OpenCL's (0 to -72 so far) or with
   * the extensions' band (-1000 to -1200), now or as OpenCL grows. */
  for (size_t i = 0; i < status_row_count; i++) {
    const status_row *row = &status_rows[i];
    if (row->value == 0) continue;
    if (is_opencl_code(row)) {
      if (row->value <= -2001 || row->value >= 0) {
        fail_msg("OpenCL code %s is %d, inside clgpu's band or not negative", row->suffix,
                 (int)row->value);
      }
    } else if (row->value > -2001) {
      fail_msg("clgpu code %s is %d, outside clgpu's band (-2001 and below)", row->clgpu_name,
               (int)row->value);
    }
  }
  assert_int_equal(CLGPU_INVALID_ARGUMENT, -2001);
}

static void unknown_codes_have_the_unknown_name_and_description(void **state) {
  (void)state;
  cl_int lowest = 0;
  for (size_t i = 0; i < status_row_count; i++) {
    if (status_rows[i].value < lowest) lowest = status_rows[i].value;
  }
  /* One past the end of clgpu's band, a gap inside OpenCL's range, positive
   * values, and the extremes of the type. */
  const cl_int unknown[] = {-777, 12345, 1, -20, -73, lowest - 1, INT_MIN, INT_MAX};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    /* A code that turns up in the table later would make this row wrong, not
     * the library; say so instead of failing on the name. */
    if (is_in_table(unknown[i])) fail_msg("%d is a known code now; pick another", unknown[i]);
    assert_string_equal(clgpu_status_name(unknown[i]), "CLGPU_UNKNOWN_STATUS");
    assert_string_equal(clgpu_status_string(unknown[i]), "unknown status code");
  }
}

static void runtime_version_matches_the_header(void **state) {
  (void)state;
  assert_string_equal(clgpu_version(), CLGPU_VERSION_STRING);
  assert_int_equal(clgpu_version_number(), CLGPU_VERSION_NUMBER);
  /* The number must be the documented combination of the string's parts, so
   * that comparing numbers orders versions the way the strings read. */
  int major = -1, minor = -1, patch = -1;
  char trailing = '\0';
  assert_int_equal(sscanf(clgpu_version(), "%d.%d.%d%c", &major, &minor, &patch, &trailing), 3);
  assert_int_equal(major, CLGPU_VERSION_MAJOR);
  assert_int_equal(minor, CLGPU_VERSION_MINOR);
  assert_int_equal(patch, CLGPU_VERSION_PATCH);
  assert_int_equal(clgpu_version_number(), major * 10000 + minor * 100 + patch);
}

static void last_error_names_the_argument_at_fault(void **state) {
  (void)state;
  assert_status(clgpu_context_create(NULL, NULL), CLGPU_INVALID_ARGUMENT);
  const char *message = clgpu_last_error();
  assert_non_null(message);
  assert_true(message[0] != '\0');
  assert_non_null(strstr(message, "out"));
  assert_non_null(strstr(message, "clgpu_context_create"));
}

static void last_error_survives_a_later_success(void **state) {
  (void)state;
  assert_status(clgpu_context_create(NULL, NULL), CLGPU_INVALID_ARGUMENT);
  char *before = strdup(clgpu_last_error());
  assert_non_null(before);
  /* A call that succeeds must leave the message of the last failure alone. */
  char *source = NULL;
  assert_status(clgpu_kernel_source("fill", &source, NULL), CLGPU_SUCCESS);
  assert_non_null(source);
  free(source);
  assert_string_equal(clgpu_last_error(), before);
  free(before);
}

/* What the other thread saw, reported back for the main thread to assert on:
 * cmocka's failures jump back into the test, which must not happen from
 * another thread. */
typedef struct other_thread_report {
  char message_at_start[256];
  cl_int status;
  char message_after_failure[1024];
  int source_left_null;
} other_thread_report;

static void *fail_on_another_thread(void *argument) {
  other_thread_report *report = argument;
  snprintf(report->message_at_start, sizeof report->message_at_start, "%s", clgpu_last_error());
  char sentinel[] = "sentinel";
  char *source = sentinel;
  report->status = clgpu_kernel_source("no_such_kernel", &source, NULL);
  report->source_left_null = source == NULL;
  snprintf(report->message_after_failure, sizeof report->message_after_failure, "%s",
           clgpu_last_error());
  return NULL;
}

static void last_error_belongs_to_the_failing_thread(void **state) {
  (void)state;
  assert_status(clgpu_context_create(NULL, NULL), CLGPU_INVALID_ARGUMENT);
  char *main_message = strdup(clgpu_last_error());
  assert_non_null(main_message);

  other_thread_report report;
  memset(&report, 0, sizeof report);
  strcpy(report.message_at_start, "not written");
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, fail_on_another_thread, &report), 0);
  assert_int_equal(pthread_join(thread, NULL), 0);

  /* A new thread starts with no message: the main thread's failure is not
   * visible there. */
  assert_string_equal(report.message_at_start, "");
  assert_status(report.status, CLGPU_KERNEL_SOURCE_NOT_FOUND);
  assert_true(report.source_left_null);
  assert_non_null(strstr(report.message_after_failure, "no_such_kernel"));
  /* The other thread's failure left this thread's message as it was. */
  assert_string_equal(clgpu_last_error(), main_message);
  assert_null(strstr(clgpu_last_error(), "no_such_kernel"));
  free(main_message);
}

int main(void) {
  /* Print the device once, as every test program of the suite does, so a log
   * says where it ran even though these tests need no context. */
  clgpu_context_destroy(test_context(NULL));
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(status_table_is_not_trivially_small),
      cmocka_unit_test(every_status_name_follows_its_table_suffix),
      cmocka_unit_test(status_names_of_well_known_codes_are_spelled_out),
      cmocka_unit_test(status_names_are_unique),
      cmocka_unit_test(every_status_has_its_table_description),
      cmocka_unit_test(opencl_codes_pass_through_unchanged),
      cmocka_unit_test(library_codes_stay_in_their_own_band),
      cmocka_unit_test(unknown_codes_have_the_unknown_name_and_description),
      cmocka_unit_test(runtime_version_matches_the_header),
      cmocka_unit_test(last_error_names_the_argument_at_fault),
      cmocka_unit_test(last_error_survives_a_later_success),
      cmocka_unit_test(last_error_belongs_to_the_failing_thread),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
