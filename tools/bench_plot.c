/* clgpu-bench's SVG plots (bench_plot.h): log-log axes with grid lines, one
 * group per series (a polyline and its markers), a legend on the right; and
 * bar charts on a linear axis, with whiskers and reference lines.
 * Everything is written with stdio; the file needs nothing but a browser. */
#include "bench_plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The geometry, in SVG user units (pixels at 100%). */
#define PLOT_LEFT 80.0
#define PLOT_TOP 76.0
#define PLOT_WIDTH 620.0
#define PLOT_HEIGHT 420.0
#define PLOT_BOTTOM_MARGIN 64.0
#define LEGEND_LEFT (PLOT_LEFT + PLOT_WIDTH + 30.0)
#define LEGEND_ROW 18.0
#define SVG_WIDTH (LEGEND_LEFT + 270.0)

/* 20 colours that stay apart on white (Tableau's and d3's category sets). */
static const char *const palette[] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
    "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39",
    "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363",
};
#define NUM_COLORS (sizeof palette / sizeof palette[0])

/* Line dashes, one per style; the marker shape follows the style too. */
static const char *const dashes[] = {NULL, "7 4", "2 3", "9 3 2 3", "1 4"};
#define NUM_STYLES (sizeof dashes / sizeof dashes[0])
enum { MARK_CIRCLE, MARK_SQUARE, MARK_TRIANGLE, MARK_DIAMOND, MARK_HOLLOW_CIRCLE };

static int positive(double v) { return isfinite(v) && v > 0; }

/* Text as XML character data or an attribute value: the five special
 * characters escaped, control characters (which XML 1.0 forbids) and bytes
 * that are not UTF-8 replaced, so that any label gives a well-formed file. */
static void xml_text(FILE *out, const char *text) {
  const unsigned char *p = (const unsigned char *)(text ? text : "");
  while (*p) {
    unsigned char c = *p;
    if (c == '&') {
      fputs("&amp;", out);
    } else if (c == '<') {
      fputs("&lt;", out);
    } else if (c == '>') {
      fputs("&gt;", out);
    } else if (c == '"') {
      fputs("&quot;", out);
    } else if (c == '\'') {
      fputs("&apos;", out);
    } else if (c < 0x20 || c == 0x7f) {
      fputc(' ', out);
    } else if (c < 0x80) {
      fputc(c, out);
    } else {
      /* A UTF-8 sequence: its length from the lead byte, then continuations
       * (overlong forms and surrogates are let through; XML parsers accept
       * what browsers do for these labels). */
      size_t length = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
      size_t k = 1;
      while (length && k < length && (p[k] & 0xc0) == 0x80) k++;
      if (length && k == length) {
        fwrite(p, 1, length, out);
        p += length;
        continue;
      }
      fputc('?', out);
    }
    p++;
  }
}

/* One log axis: exponents lo..hi of the base (2 or 10) span the plot. */
typedef struct log_axis {
  double base;
  int lo, hi;
} log_axis;

static double log_base(const log_axis *a, double v) { return a->base == 2 ? log2(v) : log10(v); }

static log_axis axis_for(double min, double max, double base) {
  log_axis a = {base, 0, base == 2 ? 10 : 2};
  if (!(min <= max)) return a; /* no data */
  a.lo = (int)floor(log_base(&a, min) + 1e-9);
  a.hi = (int)ceil(log_base(&a, max) - 1e-9);
  if (a.hi <= a.lo) { /* one value: a step of room on both sides */
    a.lo -= 1;
    a.hi += 1;
  }
  return a;
}

/* Where v sits along the axis, 0 to 1, with a margin at both ends so that
 * markers at the ends of the range stay clear of the frame. */
#define AXIS_MARGIN 0.03
static double axis_fraction(const log_axis *a, double v) {
  double f = (log_base(a, v) - a->lo) / (double)(a->hi - a->lo);
  return AXIS_MARGIN + f * (1 - 2 * AXIS_MARGIN);
}

static double x_pixel(const log_axis *a, double v) {
  return PLOT_LEFT + axis_fraction(a, v) * PLOT_WIDTH;
}
static double y_pixel(const log_axis *a, double v) {
  return PLOT_TOP + PLOT_HEIGHT - axis_fraction(a, v) * PLOT_HEIGHT;
}

/* A tick's label: 2^e as 1, 2, ..., 512, 1K, ..., 1M, ..., 1G; anything else
 * with %g. */
static void tick_label(double value, int binary_exponent, char *buffer, size_t size) {
  if (binary_exponent >= 30) {
    snprintf(buffer, size, "%.0fG", ldexp(1.0, binary_exponent - 30));
  } else if (binary_exponent >= 20) {
    snprintf(buffer, size, "%.0fM", ldexp(1.0, binary_exponent - 20));
  } else if (binary_exponent >= 10) {
    snprintf(buffer, size, "%.0fK", ldexp(1.0, binary_exponent - 10));
  } else {
    snprintf(buffer, size, "%g", value);
  }
}

/* Format a value for a tooltip: 1048576 -> "1M" when it is a round power of
 * two's multiple, else %.4g. */
static void value_label(double value, int binary, char *buffer, size_t size) {
  if (binary && value >= 1024 && value == floor(value)) {
    double m = value / 1048576.0, k = value / 1024.0;
    if (value >= 1048576.0 && m == floor(m)) {
      snprintf(buffer, size, "%.0fM", m);
      return;
    }
    if (k == floor(k)) {
      snprintf(buffer, size, "%.0fK", k);
      return;
    }
  }
  snprintf(buffer, size, "%.4g", value);
}

/* A marker of `style` at (x, y) in `color`, with a tooltip. */
static void marker(FILE *out, int style, const char *color, double x, double y,
                   const char *tooltip) {
  const double r = 4.0;
  switch (style) {
    case MARK_SQUARE:
      fprintf(out, "<rect class=\"marker\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"",
              x - r, y - r, 2 * r, 2 * r);
      break;
    case MARK_TRIANGLE:
      fprintf(out, "<path class=\"marker\" d=\"M%.2f %.2fL%.2f %.2fL%.2f %.2fZ\"", x, y - 1.2 * r,
              x + 1.1 * r, y + 0.8 * r, x - 1.1 * r, y + 0.8 * r);
      break;
    case MARK_DIAMOND:
      fprintf(out, "<path class=\"marker\" d=\"M%.2f %.2fL%.2f %.2fL%.2f %.2fL%.2f %.2fZ\"", x,
              y - 1.3 * r, x + 1.3 * r, y, x, y + 1.3 * r, x - 1.3 * r, y);
      break;
    default:
      fprintf(out, "<circle class=\"marker\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\"", x, y, r);
      break;
  }
  fprintf(out, " fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\">",
          style == MARK_HOLLOW_CIRCLE ? "#ffffff" : color, color);
  if (tooltip) {
    fputs("<title>", out);
    xml_text(out, tooltip);
    fputs("</title>", out);
  }
  fputs(style == MARK_SQUARE                              ? "</rect>"
        : style == MARK_TRIANGLE || style == MARK_DIAMOND ? "</path>"
                                                          : "</circle>",
        out);
}

static void stroke_style(FILE *out, const char *color, int style) {
  fprintf(out, " fill=\"none\" stroke=\"%s\" stroke-width=\"2\"", color);
  if (dashes[style]) fprintf(out, " stroke-dasharray=\"%s\"", dashes[style]);
}

static void text_at(FILE *out, double x, double y, const char *anchor, const char *extra,
                    const char *text) {
  fprintf(out, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
  xml_text(out, text);
  fputs("</text>\n", out);
}

static void draw_axes(FILE *out, const bench_plot *plot, const log_axis *ax, const log_axis *ay) {
  const double bottom = PLOT_TOP + PLOT_HEIGHT, right = PLOT_LEFT + PLOT_WIDTH;
  char label[64];
  fputs("<g class=\"grid\" stroke=\"#dddddd\" stroke-width=\"1\">\n", out);
  /* x: every power of the base, thinned to at most 12 ticks. */
  int x_step = 1;
  while ((ax->hi - ax->lo) / x_step > 12) x_step *= 2;
  for (int e = ax->lo; e <= ax->hi; e++) {
    if (e % x_step != 0) continue;
    double px = x_pixel(ax, pow(ax->base, e));
    fprintf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", px, PLOT_TOP, px,
            bottom);
  }
  /* y: every decade, and 2 and 5 within each when there are few decades. */
  int minors = ay->hi - ay->lo <= 3;
  for (int e = ay->lo; e <= ay->hi; e++) {
    for (int m = 1; m <= (minors && e < ay->hi ? 3 : 1); m++) {
      double v = pow(10.0, e) * (m == 1 ? 1 : m == 2 ? 2 : 5);
      double py = y_pixel(ay, v);
      fprintf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"%s/>\n", PLOT_LEFT, py,
              right, py, m == 1 ? "" : " stroke=\"#eeeeee\"");
    }
  }
  fputs("</g>\n", out);
  fprintf(out,
          "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
          "stroke=\"#333333\" stroke-width=\"1\"/>\n",
          PLOT_LEFT, PLOT_TOP, PLOT_WIDTH, PLOT_HEIGHT);
  fputs("<g class=\"ticks\" font-size=\"12\" fill=\"#333333\">\n", out);
  for (int e = ax->lo; e <= ax->hi; e++) {
    if (e % x_step != 0) continue;
    double v = pow(ax->base, e);
    if (ax->base == 2) {
      tick_label(v, e, label, sizeof label);
    } else {
      snprintf(label, sizeof label, "%g", v);
    }
    text_at(out, x_pixel(ax, v), bottom + 18, "middle", "", label);
  }
  for (int e = ay->lo; e <= ay->hi; e++) {
    for (int m = 1; m <= (minors && e < ay->hi ? 3 : 1); m++) {
      double v = pow(10.0, e) * (m == 1 ? 1 : m == 2 ? 2 : 5);
      snprintf(label, sizeof label, "%g", v);
      text_at(out, PLOT_LEFT - 8, y_pixel(ay, v) + 4, "end", "", label);
    }
  }
  fputs("</g>\n", out);
  fputs("<g class=\"labels\" font-size=\"14\" fill=\"#000000\">\n", out);
  if (plot->x_label) {
    text_at(out, PLOT_LEFT + PLOT_WIDTH / 2, bottom + 44, "middle", "", plot->x_label);
  }
  if (plot->y_label) {
    char transform[96];
    snprintf(transform, sizeof transform, " transform=\"rotate(-90 %.2f %.2f)\"", PLOT_LEFT - 52,
             PLOT_TOP + PLOT_HEIGHT / 2);
    text_at(out, PLOT_LEFT - 52, PLOT_TOP + PLOT_HEIGHT / 2, "middle", transform, plot->y_label);
  }
  if (plot->title) text_at(out, PLOT_LEFT, 28, "start", " font-size=\"16\"", plot->title);
  if (plot->subtitle) {
    text_at(out, PLOT_LEFT, 50, "start", " font-size=\"12\" fill=\"#555555\"", plot->subtitle);
  }
  fputs("</g>\n", out);
}

static void draw_series(FILE *out, const bench_plot *plot, const log_axis *ax, const log_axis *ay) {
  for (size_t s = 0; s < plot->num_series; s++) {
    const bench_plot_series *line = &plot->series[s];
    const char *color =
        palette[(size_t)(line->color < 0 ? -line->color : line->color) % NUM_COLORS];
    int style = (int)((size_t)(line->style < 0 ? -line->style : line->style) % NUM_STYLES);
    size_t points = 0;
    for (size_t k = 0; k < line->count; k++) points += positive(line->x[k]) && positive(line->y[k]);
    fputs("<g class=\"series\">\n<title>", out);
    xml_text(out, line->label);
    fputs("</title>\n", out);
    if (points >= 2) {
      fputs("<polyline points=\"", out);
      const char *separator = "";
      for (size_t k = 0; k < line->count; k++) {
        if (!positive(line->x[k]) || !positive(line->y[k])) continue;
        fprintf(out, "%s%.2f,%.2f", separator, x_pixel(ax, line->x[k]), y_pixel(ay, line->y[k]));
        separator = " ";
      }
      fputc('"', out);
      stroke_style(out, color, style);
      fputs("/>\n", out);
    }
    for (size_t k = 0; k < line->count; k++) {
      if (!positive(line->x[k]) || !positive(line->y[k])) continue;
      char x_text[32], tooltip[400];
      value_label(line->x[k], plot->x_binary, x_text, sizeof x_text);
      snprintf(tooltip, sizeof tooltip, "%.200s: n %s, %.4g", line->label ? line->label : "",
               x_text, line->y[k]);
      marker(out, style, color, x_pixel(ax, line->x[k]), y_pixel(ay, line->y[k]), tooltip);
      fputc('\n', out);
    }
    fputs("</g>\n", out);
  }
}


/* The SVG's prologue: the document of SVG_WIDTH x height, its title (NULL:
 * clgpu-bench), a white background. */
static void svg_begin(FILE *out, const char *title, double height) {
  fprintf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
          "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Arial, "
          "sans-serif\">\n",
          SVG_WIDTH, height, SVG_WIDTH, height);
  fputs("<title>", out);
  xml_text(out, title ? title : "clgpu-bench");
  fputs("</title>\n", out);
  fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
          SVG_WIDTH, height);
}

static void draw_legend(FILE *out, const bench_plot *plot) {
  fputs("<g class=\"legend\" font-size=\"12\" fill=\"#000000\">\n", out);
  for (size_t s = 0; s < plot->num_series; s++) {
    const bench_plot_series *line = &plot->series[s];
    const char *color =
        palette[(size_t)(line->color < 0 ? -line->color : line->color) % NUM_COLORS];
    int style = (int)((size_t)(line->style < 0 ? -line->style : line->style) % NUM_STYLES);
    double y = PLOT_TOP + 8 + LEGEND_ROW * (double)s;
    size_t points = 0;
    for (size_t k = 0; k < line->count; k++) points += positive(line->x[k]) && positive(line->y[k]);
    if (points >= 2) { /* the line's sample only where the plot draws one */
      fprintf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"", LEGEND_LEFT, y,
              LEGEND_LEFT + 28, y);
      stroke_style(out, color, style);
      fputs("/>", out);
    }
    marker(out, style, color, LEGEND_LEFT + 14, y, NULL);
    text_at(out, LEGEND_LEFT + 36, y + 4, "start", "", line->label);
  }
  fputs("</g>\n", out);
}

int bench_plot_write_svg(const char *path, const bench_plot *plot) {
  FILE *out = fopen(path, "w");
  if (!out) return -1;
  /* The axes' ranges over every point that a log axis can show. */
  double x_min = INFINITY, x_max = -INFINITY, y_min = INFINITY, y_max = -INFINITY;
  for (size_t s = 0; s < plot->num_series; s++) {
    const bench_plot_series *line = &plot->series[s];
    for (size_t k = 0; k < line->count; k++) {
      if (!positive(line->x[k]) || !positive(line->y[k])) continue;
      x_min = fmin(x_min, line->x[k]);
      x_max = fmax(x_max, line->x[k]);
      y_min = fmin(y_min, line->y[k]);
      y_max = fmax(y_max, line->y[k]);
    }
  }
  log_axis ax = axis_for(x_min, x_max, plot->x_binary ? 2 : 10);
  log_axis ay = axis_for(y_min, y_max, 10);
  double height = PLOT_TOP + PLOT_HEIGHT + PLOT_BOTTOM_MARGIN;
  double legend_height = PLOT_TOP + 8 + LEGEND_ROW * (double)plot->num_series + 10;
  if (legend_height > height) height = legend_height;

  svg_begin(out, plot->title, height);
  draw_axes(out, plot, &ax, &ay);
  if (!(x_min <= x_max)) {
    text_at(out, PLOT_LEFT + PLOT_WIDTH / 2, PLOT_TOP + PLOT_HEIGHT / 2, "middle",
            " font-size=\"16\" fill=\"#999999\"", "no data");
  }
  draw_series(out, plot, &ax, &ay);
  draw_legend(out, plot);
  fputs("</svg>\n", out);

  int failed = ferror(out);
  int saved = errno;
  if (fclose(out) != 0 && !failed) {
    failed = 1;
    saved = errno;
  }
  if (failed) {
    remove(path);
    errno = saved ? saved : EIO;
    return -1;
  }
  return 0;
}

/* ---- bar charts ---- */

/* Room under a bar chart's plot for its slanted labels. */
#define BARS_BOTTOM_MARGIN 120.0

/* A linear axis from 0 to `top` in steps of `step` (1, 2 or 5 times a power
 * of ten, about five to ten of them). */
typedef struct linear_axis {
  double top, step;
} linear_axis;

static linear_axis linear_axis_for(double max) {
  linear_axis a = {1.0, 0.2};
  if (!(max > 0) || !isfinite(max)) return a;
  double magnitude = pow(10.0, floor(log10(max / 5)));
  const double steps[] = {1, 2, 5, 10};
  for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
    a.step = steps[k] * magnitude;
    if (max / a.step <= 10) break;
  }
  a.top = ceil(max / a.step * (1 + 1e-9)) * a.step;
  if (a.top <= max) a.top += a.step; /* room above the tallest bar or line */
  return a;
}

static double bar_y_pixel(const linear_axis *a, double v) {
  return PLOT_TOP + PLOT_HEIGHT - v / a->top * PLOT_HEIGHT;
}

static int finite_at_least_0(double v) { return isfinite(v) && v >= 0; }

int bench_plot_write_bars_svg(const char *path, const bench_bar_plot *plot) {
  FILE *out = fopen(path, "w");
  if (!out) return -1;
  double max = 0;
  for (size_t k = 0; k < plot->num_bars; k++) {
    const bench_plot_bar *bar = &plot->bars[k];
    if (!finite_at_least_0(bar->value)) continue;
    max = fmax(max, bar->value);
    if (isfinite(bar->low) && isfinite(bar->high)) max = fmax(max, bar->high);
  }
  for (size_t k = 0; k < plot->num_lines; k++) {
    if (positive(plot->lines[k].value)) max = fmax(max, plot->lines[k].value);
  }
  linear_axis ay = linear_axis_for(max);
  const double bottom = PLOT_TOP + PLOT_HEIGHT, right = PLOT_LEFT + PLOT_WIDTH;
  double height = bottom + BARS_BOTTOM_MARGIN;
  double legend_height = PLOT_TOP + 8 + LEGEND_ROW * (double)plot->num_lines + 10;
  if (legend_height > height) height = legend_height;

  svg_begin(out, plot->title, height);

  /* The grid and the y axis's ticks, every step from 0 to the top. */
  char label[64];
  int ticks = (int)floor(ay.top / ay.step + 0.5);
  fputs("<g class=\"grid\" stroke=\"#dddddd\" stroke-width=\"1\">\n", out);
  for (int k = 1; k <= ticks; k++) {
    double py = bar_y_pixel(&ay, k * ay.step);
    fprintf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", PLOT_LEFT, py, right,
            py);
  }
  fputs("</g>\n", out);
  fprintf(out,
          "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
          "stroke=\"#333333\" stroke-width=\"1\"/>\n",
          PLOT_LEFT, PLOT_TOP, PLOT_WIDTH, PLOT_HEIGHT);
  fputs("<g class=\"ticks\" font-size=\"12\" fill=\"#333333\">\n", out);
  for (int k = 0; k <= ticks; k++) {
    snprintf(label, sizeof label, "%g", k * ay.step);
    text_at(out, PLOT_LEFT - 8, bar_y_pixel(&ay, k * ay.step) + 4, "end", "", label);
  }
  fputs("</g>\n", out);
  fputs("<g class=\"labels\" font-size=\"14\" fill=\"#000000\">\n", out);
  if (plot->y_label) {
    char transform[96];
    snprintf(transform, sizeof transform, " transform=\"rotate(-90 %.2f %.2f)\"", PLOT_LEFT - 52,
             PLOT_TOP + PLOT_HEIGHT / 2);
    text_at(out, PLOT_LEFT - 52, PLOT_TOP + PLOT_HEIGHT / 2, "middle", transform, plot->y_label);
  }
  if (plot->title) text_at(out, PLOT_LEFT, 28, "start", " font-size=\"16\"", plot->title);
  if (plot->subtitle) {
    text_at(out, PLOT_LEFT, 50, "start", " font-size=\"12\" fill=\"#555555\"", plot->subtitle);
  }
  fputs("</g>\n", out);

  /* The bars, each in a slot of its own, its label slanted under it. */
  double slot = plot->num_bars ? PLOT_WIDTH / (double)plot->num_bars : PLOT_WIDTH;
  double width = fmin(slot * 0.6, 60.0);
  for (size_t k = 0; k < plot->num_bars; k++) {
    const bench_plot_bar *bar = &plot->bars[k];
    const char *color = palette[(size_t)(bar->color < 0 ? -bar->color : bar->color) % NUM_COLORS];
    double center = PLOT_LEFT + slot * ((double)k + 0.5);
    fputs("<g class=\"bar\">\n<title>", out);
    xml_text(out, bar->label);
    fputs("</title>\n", out);
    if (finite_at_least_0(bar->value)) {
      double top = bar_y_pixel(&ay, bar->value);
      char tooltip[400];
      int whisker = isfinite(bar->low) && isfinite(bar->high);
      if (whisker) {
        snprintf(tooltip, sizeof tooltip, "%.200s: %.4g (%.4g-%.4g)", bar->label ? bar->label : "",
                 bar->value, bar->low, bar->high);
      } else {
        snprintf(tooltip, sizeof tooltip, "%.200s: %.4g", bar->label ? bar->label : "", bar->value);
      }
      fprintf(out,
              "<rect class=\"bar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
              "fill=\"%s\" fill-opacity=\"0.8\" stroke=\"%s\"><title>",
              center - width / 2, top, width, bottom - top, color, color);
      xml_text(out, tooltip);
      fputs("</title></rect>\n", out);
      if (whisker) {
        double low = bar_y_pixel(&ay, fmax(bar->low, 0)), high = bar_y_pixel(&ay, bar->high);
        double cap = width / 4;
        fprintf(out,
                "<path class=\"whisker\" d=\"M%.2f %.2fL%.2f %.2fM%.2f %.2fL%.2f %.2fM%.2f "
                "%.2fL%.2f %.2f\" fill=\"none\" stroke=\"#000000\" stroke-width=\"1.5\"/>\n",
                center, low, center, high, center - cap, low, center + cap, low, center - cap, high,
                center + cap, high);
      }
    }
    char transform[96];
    snprintf(transform, sizeof transform, " transform=\"rotate(-35 %.2f %.2f)\" font-size=\"12\"",
             center, bottom + 16);
    text_at(out, center, bottom + 16, "end", transform, bar->label);
    fputs("</g>\n", out);
  }
  if (plot->num_bars == 0) {
    text_at(out, PLOT_LEFT + PLOT_WIDTH / 2, PLOT_TOP + PLOT_HEIGHT / 2, "middle",
            " font-size=\"16\" fill=\"#999999\"", "no data");
  }

  /* The reference lines across the plot, and the legend naming them. */
  fputs("<g class=\"references\">\n", out);
  for (size_t k = 0; k < plot->num_lines; k++) {
    const bench_plot_line *line = &plot->lines[k];
    if (!positive(line->value)) continue;
    const char *color =
        palette[(size_t)(line->color < 0 ? -line->color : line->color) % NUM_COLORS];
    int style = (int)((size_t)(line->style < 0 ? -line->style : line->style) % NUM_STYLES);
    double py = bar_y_pixel(&ay, line->value);
    fprintf(out, "<line class=\"reference\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"",
            PLOT_LEFT, py, right, py);
    stroke_style(out, color, style);
    fputs("><title>", out);
    snprintf(label, sizeof label, "%.40s: %.4g", line->label ? line->label : "", line->value);
    xml_text(out, label);
    fputs("</title></line>\n", out);
  }
  fputs("</g>\n<g class=\"legend\" font-size=\"12\" fill=\"#000000\">\n", out);
  size_t row = 0;
  for (size_t k = 0; k < plot->num_lines; k++) {
    const bench_plot_line *line = &plot->lines[k];
    if (!positive(line->value)) continue;
    const char *color =
        palette[(size_t)(line->color < 0 ? -line->color : line->color) % NUM_COLORS];
    int style = (int)((size_t)(line->style < 0 ? -line->style : line->style) % NUM_STYLES);
    double y = PLOT_TOP + 8 + LEGEND_ROW * (double)row++;
    fprintf(out, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"", LEGEND_LEFT, y,
            LEGEND_LEFT + 28, y);
    stroke_style(out, color, style);
    fputs("/>", out);
    text_at(out, LEGEND_LEFT + 36, y + 4, "start", "", line->label);
  }
  fputs("</g>\n</svg>\n", out);

  int failed = ferror(out);
  int saved = errno;
  if (fclose(out) != 0 && !failed) {
    failed = 1;
    saved = errno;
  }
  if (failed) {
    remove(path);
    errno = saved ? saved : EIO;
    return -1;
  }
  return 0;
}
