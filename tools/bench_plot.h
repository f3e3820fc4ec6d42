/* clgpu-bench's plots: throughput against size on log-log axes, written as
 * a self-contained SVG 1.1 file (bench_plot.c). */
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

#endif
