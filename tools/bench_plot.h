/* clgpu-bench's plots: throughput against size on log-log axes, or as bars
 * (one size), written as a self-contained SVG 1.1 file (bench_plot.c). */
#ifndef CLGPU_BENCH_PLOT_H
#define CLGPU_BENCH_PLOT_H

#include <stddef.h>

/* One line of a plot: count points (x[k], y[k]). Points whose x or y is not
 * finite and above 0 cannot sit on a log axis and are left out. A series of
 * one point gets a marker and no line. */
typedef struct bench_plot_series {
  const char *label; /* the legend's text, any bytes (escaped for XML) */
  const double *x, *y;
  size_t count;
  int color; /* an index into the palette (taken modulo its size) */
  int style; /* an index into the line and marker styles (modulo their number) */
} bench_plot_series;

/* A plot; {0} plus the series is a valid plot with no titles. */
typedef struct bench_plot {
  const char *title, *subtitle; /* NULL: none */
  const char *x_label, *y_label;
  int x_binary; /* x ticks at powers of two labelled 1K, 1M, ...; else powers of ten */
  const bench_plot_series *series;
  size_t num_series;
} bench_plot;

/* Write `plot` to the file `path` (replaced if it exists) as SVG 1.1 with
 * log-log axes and a legend, one group (<g class="series">) per series
 * holding its polyline and its markers (<circle>, or a <rect> or <path> for
 * some styles; every marker carries class="marker"). 0 on success; -1 when
 * the file cannot be opened or written, with errno saying why (a partly
 * written file is removed). */
int bench_plot_write_svg(const char *path, const bench_plot *plot);

/* A bar of a bar chart: its height `value`, and a whisker from `low` to
 * `high` (none where either is not finite). A bar whose value is not finite
 * and at least 0 is left out, its label kept. */
typedef struct bench_plot_bar {
  const char *label; /* under the bar and in its tooltip (escaped for XML) */
  double value, low, high;
  int color; /* an index into the palette (taken modulo its size) */
} bench_plot_bar;

/* A horizontal reference line across a bar chart at `value` (left out
 * unless finite and above 0), named in the legend. */
typedef struct bench_plot_line {
  const char *label;
  double value;
  int color; /* an index into the palette */
  int style; /* an index into the line styles */
} bench_plot_line;

/* A bar chart; {0} plus the bars is a valid chart with no titles. */
typedef struct bench_bar_plot {
  const char *title, *subtitle, *y_label;
  const bench_plot_bar *bars;
  size_t num_bars;
  const bench_plot_line *lines;
  size_t num_lines;
} bench_bar_plot;

/* Write `plot` to the file `path` (replaced if it exists) as SVG 1.1: a
 * linear y axis from 0, one group per bar (<g class="bar">, its <title> the
 * label) holding its <rect class="bar"> and, where it has one, its whisker
 * (<path class="whisker">), and one <line class="reference"> per reference
 * line (in <g class="references">), named in a legend (<g class="legend">).
 * 0 on success; -1 as bench_plot_write_svg. */
int bench_plot_write_bars_svg(const char *path, const bench_bar_plot *plot);

#endif
