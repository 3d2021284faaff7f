//! SVG charts for the reports (plotters' SVG backend; text is emitted as SVG
//! `<text>`, so no font files are needed).

use plotters::prelude::*;

fn svg_string(
    w: u32,
    h: u32,
    draw: impl FnOnce(DrawingArea<SVGBackend, plotters::coord::Shift>) -> Result<(), String>,
) -> String {
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, (w, h)).into_drawing_area();
        let _ = root.fill(&WHITE);
        if let Err(e) = draw(root.clone()) {
            return format!("<p>chart unavailable: {e}</p>");
        }
        let _ = root.present();
    }
    s
}

/// Pixels for a column of row labels (at most 40 characters shown).
fn label_width(names: &[String]) -> u32 {
    names
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(4)
        .min(40) as u32
        * 7
        + 10
}

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// Forest plot: one row per item (in the given order), a dot at `mid` and a
/// bar from `lo` to `hi`.
pub fn forest(names: &[String], mid: &[f64], lo: &[f64], hi: &[f64], x_label: &str) -> String {
    let n = names.len();
    let h = (40 + 14 * n).max(160) as u32;
    let xmin = lo
        .iter()
        .chain(mid)
        .copied()
        .filter(|x| x.is_finite())
        .fold(f64::INFINITY, f64::min);
    let xmax = hi
        .iter()
        .chain(mid)
        .copied()
        .filter(|x| x.is_finite())
        .fold(f64::NEG_INFINITY, f64::max);
    let pad = ((xmax - xmin) * 0.05).max(1e-3);
    let label_w = label_width(names);
    svg_string(900, h, |root| {
        let mut c = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(label_w)
            .build_cartesian_2d(xmin - pad..xmax + pad, -0.5f64..n as f64 - 0.5)
            .map_err(err)?;
        let names_rev: Vec<String> = names.to_vec();
        c.configure_mesh()
            // One style (report::style): no minor grid, readable fonts.
            .light_line_style(TRANSPARENT)
            .label_style(("sans-serif", super::style::TICK_FONT))
            .axis_desc_style(("sans-serif", super::style::AXIS_FONT))
            .disable_y_mesh()
            .y_labels(n.min(200))
            // The first name at the top.
            .y_label_formatter(&|y| category_tick(&names_rev, *y, |k| n.checked_sub(k + 1)))
            .x_desc(x_label)
            .draw()
            .map_err(err)?;
        for i in 0..n {
            let y = (n - 1 - i) as f64;
            if lo[i].is_finite() && hi[i].is_finite() {
                c.draw_series(LineSeries::new(
                    vec![(lo[i], y), (hi[i], y)],
                    super::style::PALETTE[0].stroke_width(2),
                ))
                .map_err(err)?;
            }
            c.draw_series(std::iter::once(Circle::new((mid[i], y), 3, BLACK.filled())))
                .map_err(err)?;
        }
        Ok(())
    })
}

/// One bar per item from 0 to `value` (in the given order, the first at
/// the top), coloured by `class` (0 grey, 1 blue, 2 orange), with a dashed
/// line after the first `cut` rows when given (e.g. a selection's cut).
pub fn ranked_bars(
    names: &[String],
    value: &[f64],
    class: &[u8],
    cut: Option<usize>,
    x_label: &str,
) -> String {
    let n = names.len();
    let h = (50 + 16 * n).max(160) as u32;
    let label_w = label_width(names);
    let xmax = value
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.02;
    svg_string(900, h, |root| {
        let mut c = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(label_w)
            .build_cartesian_2d(0.0..xmax, -0.5f64..n as f64 - 0.5)
            .map_err(err)?;
        let labels: Vec<String> = names.iter().map(|s| short_label(s, 40)).collect();
        c.configure_mesh()
            // One style (report::style): no minor grid, readable fonts.
            .light_line_style(TRANSPARENT)
            .label_style(("sans-serif", super::style::TICK_FONT))
            .axis_desc_style(("sans-serif", super::style::AXIS_FONT))
            .disable_y_mesh()
            .y_labels(n.min(200))
            .y_label_formatter(&|y| category_tick(&labels, *y, |k| n.checked_sub(k + 1)))
            .x_desc(x_label)
            .draw()
            .map_err(err)?;
        let colour = |k: u8| match k {
            2 => super::style::PALETTE[3],
            1 => super::style::PALETTE[0],
            _ => RGBColor(170, 170, 170),
        };
        for i in 0..n {
            let y = (n - 1 - i) as f64;
            let v = if value[i].is_finite() { value[i] } else { 0.0 };
            c.draw_series(std::iter::once(Rectangle::new(
                [(0.0, y - 0.35), (v, y + 0.35)],
                colour(class[i]).filled(),
            )))
            .map_err(err)?;
        }
        if let Some(k) = cut.filter(|&k| k > 0 && k < n) {
            // Between row k − 1 (above) and row k (below).
            let y = (n - k) as f64 - 0.5;
            c.draw_series(DashedLineSeries::new(
                vec![(0.0, y), (xmax, y)],
                6,
                4,
                super::style::PALETTE[1].stroke_width(2),
            ))
            .map_err(err)?;
        }
        Ok(())
    })
}

/// Heat map of probabilities: one row per name, one column per place
/// (1-based integer ticks), coloured on the viridis scale from 0 to the
/// largest value (square-root scale), with a labelled colour bar; on small
/// maps every cell also carries its value.
pub fn heatmap(row_names: &[String], values: &[Vec<f64>], x_label: &str) -> String {
    use plotters::style::colors::colormaps::ViridisRGB;
    use plotters::style::text_anchor;
    let r = row_names.len();
    let cols = values.first().map_or(0, |v| v.len());
    let vmax = values
        .iter()
        .flatten()
        .copied()
        .fold(0.0f64, f64::max)
        .max(1e-12);
    // A square-root scale: place probabilities over many places are small
    // and a linear scale leaves most cells one dark shade.
    let colour = |v: f64| ViridisRGB::get_color((v / vmax).clamp(0.0, 1.0).sqrt());
    let label_w = row_names
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(4)
        .min(40) as u32
        * 7
        + 10;
    let (w, h) = (900u32, (60 + 24 * r).max(140) as u32);
    let bar_w = 110u32;
    svg_string(w, h, |root| {
        let (plot, bar) = root.split_horizontally(w - bar_w);
        let mut c = ChartBuilder::on(&plot)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(label_w)
            .build_cartesian_2d(0.5f64..cols as f64 + 0.5, -0.5f64..r as f64 - 0.5)
            .map_err(err)?;
        let names = row_names.to_vec();
        c.configure_mesh()
            // One style (report::style): no minor grid, readable fonts.
            .light_line_style(TRANSPARENT)
            .label_style(("sans-serif", super::style::TICK_FONT))
            .axis_desc_style(("sans-serif", super::style::AXIS_FONT))
            .disable_mesh()
            .y_labels(r)
            // Row 0 at the top.
            .y_label_formatter(&|y| category_tick(&names, *y, |k| r.checked_sub(k + 1)))
            // Places are whole numbers: a tick at each (up to 20), no "2.5".
            .x_labels(cols.clamp(2, 20))
            .x_label_formatter(&|x| integer_tick(*x))
            .x_desc(x_label)
            .draw()
            .map_err(err)?;
        let show_values = cols <= 12;
        for (i, row) in values.iter().enumerate() {
            let y = (r - 1 - i) as f64;
            c.draw_series(row.iter().enumerate().map(|(j, &v)| {
                Rectangle::new(
                    [(j as f64 + 0.5, y - 0.5), (j as f64 + 1.5, y + 0.5)],
                    colour(v).filled(),
                )
            }))
            .map_err(err)?;
            if show_values {
                c.draw_series(row.iter().enumerate().map(|(j, &v)| {
                    // Light text on the dark (low) end of viridis.
                    let ink = if v < 0.55 * vmax { WHITE } else { BLACK };
                    Text::new(
                        format!("{v:.2}"),
                        (j as f64 + 1.0, y),
                        ("sans-serif", 12)
                            .into_font()
                            .color(&ink)
                            .pos(text_anchor::Pos::new(
                                text_anchor::HPos::Center,
                                text_anchor::VPos::Center,
                            )),
                    )
                }))
                .map_err(err)?;
            }
        }
        // Colour bar: 0 at the bottom, the largest value at the top, on the
        // same square-root scale (labels are probabilities).
        // Room for the labels and a gap between them and the bar; fewer
        // labels on a short bar (a few items), so that they do not collide.
        let bar_height = bar.dim_in_pixel().1;
        let mut cb = ChartBuilder::on(&bar)
            .margin_top(10)
            .margin_bottom(45)
            .margin_right(30)
            .y_label_area_size(62)
            .build_cartesian_2d(0f64..1.0, 0f64..1.0)
            .map_err(err)?;
        cb.configure_mesh()
            // One style (report::style): no minor grid, readable fonts.
            .light_line_style(TRANSPARENT)
            .label_style(("sans-serif", super::style::TICK_FONT))
            .axis_desc_style(("sans-serif", super::style::AXIS_FONT))
            .disable_mesh()
            .disable_x_axis()
            .set_all_tick_mark_size(6)
            .y_labels(if bar_height < 220 { 3 } else { 5 })
            .y_label_formatter(&|u| format!("{:.2}", u * u * vmax))
            .draw()
            .map_err(err)?;
        let steps = 100;
        cb.draw_series((0..steps).map(|k| {
            let (u0, u1) = (k as f64 / steps as f64, (k + 1) as f64 / steps as f64);
            let u = 0.5 * (u0 + u1);
            Rectangle::new([(0.0, u0), (1.0, u1)], colour(u * u * vmax).filled())
        }))
        .map_err(err)?;
        Ok(())
    })
}

/// The tick label of a categorical axis at coordinate `x`: the name of
/// category `index(k)` when `x` is the whole number `k ≥ 0`, nothing
/// between categories or outside them.
fn category_tick(names: &[String], x: f64, index: impl Fn(usize) -> Option<usize>) -> String {
    let k = x.round();
    if (x - k).abs() > 1e-6 || k < 0.0 {
        return String::new();
    }
    index(k as usize)
        .and_then(|i| names.get(i))
        .cloned()
        .unwrap_or_default()
}

/// At most `max` characters, an ellipsis marking a cut.
fn short_label(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}

/// A tick label for an axis of whole numbers: the number at integers,
/// nothing between them.
fn integer_tick(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{x:.0}")
    } else {
        String::new()
    }
}

/// Line chart of several series against their index (1-based).
pub fn lines(series: &[(String, Vec<f64>)], x_label: &str, y_label: &str, log_y: bool) -> String {
    let tr = |v: f64| if log_y { v.max(1e-300).log10() } else { v };
    let pts: Vec<f64> = series
        .iter()
        .flat_map(|s| s.1.iter().map(|&v| tr(v)))
        .filter(|v| v.is_finite())
        .collect();
    let (ymin, ymax) = pts
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    let (ymin, ymax) = if ymin < ymax {
        (ymin, ymax)
    } else {
        (ymin - 1.0, ymin + 1.0)
    };
    let pad = (ymax - ymin) * 0.05;
    let xmax = series.iter().map(|s| s.1.len()).max().unwrap_or(1).max(2) as f64;
    let palette = super::style::PALETTE;
    // The legend beside the plot (traces fill the whole plot area).
    let entries: Vec<LegendEntry> = series
        .iter()
        .enumerate()
        .map(|(k, (name, _))| LegendEntry {
            name: name.clone(),
            colour: palette[k % palette.len()],
            dash: 0,
            marker: usize::MAX,
            width: 1,
        })
        .collect();
    let legend_w = if series.len() > 1 {
        legend_width(&entries)
    } else {
        0
    };
    svg_string(
        900 + legend_w,
        320.max(40 + 16 * entries.len() as u32),
        |root| {
            let (plot_area, legend_area) = root.split_horizontally(900);
            let mut c = ChartBuilder::on(&plot_area)
                .margin(10)
                .x_label_area_size(35)
                .y_label_area_size(70)
                .build_cartesian_2d(1f64..xmax, ymin - pad..ymax + pad)
                .map_err(err)?;
            c.configure_mesh()
                // One style (report::style): no minor grid, readable fonts.
                .light_line_style(TRANSPARENT)
                .label_style(("sans-serif", super::style::TICK_FONT))
                .axis_desc_style(("sans-serif", super::style::AXIS_FONT))
                .x_desc(x_label)
                // The x axis counts (iterations, draws): whole numbers only.
                .x_label_formatter(&|x| integer_tick(*x))
                .y_desc(if log_y {
                    format!("log10 {y_label}")
                } else {
                    y_label.to_string()
                })
                .draw()
                .map_err(err)?;
            for (k, (_, ys)) in series.iter().enumerate() {
                let col = palette[k % palette.len()];
                c.draw_series(LineSeries::new(
                    ys.iter()
                        .enumerate()
                        .map(|(i, &v)| ((i + 1) as f64, tr(v)))
                        .filter(|p| p.1.is_finite()),
                    col.stroke_width(1),
                ))
                .map_err(err)?;
            }
            if series.len() > 1 {
                draw_legend(&legend_area, &entries)?;
            }
            Ok(())
        },
    )
}

/// Histogram of values with `bins` equal bins.
pub fn histogram(series: &[(String, Vec<f64>)], bins: usize, x_label: &str) -> String {
    let all: Vec<f64> = series
        .iter()
        .flat_map(|s| s.1.iter().copied())
        .filter(|v| v.is_finite())
        .collect();
    let (lo, hi) = all
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    let (lo, hi) = if lo < hi {
        (lo, hi)
    } else {
        (lo - 0.5, lo + 0.5)
    };
    let w = (hi - lo) / bins as f64;
    let counts: Vec<Vec<usize>> = series
        .iter()
        .map(|(_, v)| {
            let mut c = vec![0usize; bins];
            for &x in v.iter().filter(|x| x.is_finite()) {
                c[(((x - lo) / w) as usize).min(bins - 1)] += 1;
            }
            c
        })
        .collect();
    let cmax = counts.iter().flatten().copied().max().unwrap_or(1).max(1) as f64;
    let palette = super::style::PALETTE;
    svg_string(900, 320, |root| {
        let mut c = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(lo..hi, 0f64..cmax * 1.05)
            .map_err(err)?;
        c.configure_mesh()
            // One style (report::style): no minor grid, readable fonts.
            .light_line_style(TRANSPARENT)
            .label_style(("sans-serif", super::style::TICK_FONT))
            .axis_desc_style(("sans-serif", super::style::AXIS_FONT))
            .x_desc(x_label)
            .y_desc("count")
            // Counts: whole numbers only (no "70.0", no "2.5").
            .y_label_formatter(&|y| {
                if (y - y.round()).abs() < 1e-9 {
                    format!("{y:.0}")
                } else {
                    String::new()
                }
            })
            .draw()
            .map_err(err)?;
        let k = series.len() as f64;
        for (s, (name, _)) in series.iter().enumerate() {
            let col = palette[s % palette.len()];
            c.draw_series(counts[s].iter().enumerate().map(|(b, &n)| {
                let x0 = lo + b as f64 * w + s as f64 * w / k;
                Rectangle::new([(x0, 0.0), (x0 + w / k, n as f64)], col.mix(0.6).filled())
            }))
            .map_err(err)?
            .label(name.clone())
            .legend(move |(x, y)| {
                Rectangle::new([(x, y - 4), (x + 10, y + 4)], col.mix(0.6).filled())
            });
        }
        if series.len() > 1 {
            c.configure_series_labels()
                .border_style(BLACK)
                .background_style(WHITE.mix(0.8))
                .draw()
                .map_err(err)?;
        }
        Ok(())
    })
}

/// An axis range for data spanning `lo..hi`: a 5% margin so that points at
/// the extremes are not cut by the axes, a unit width around a single
/// value; data within [0, 1] (probabilities, certainties) keep their axis
/// within it, margins aside.
fn axis_span(lo: f64, hi: f64) -> (f64, f64) {
    let unit = lo >= 0.0 && hi <= 1.0;
    let (lo, hi) = match (lo < hi, unit) {
        (true, _) => (lo, hi),
        (false, true) => ((lo - 0.5).max(0.0), (lo + 0.5).min(1.0)),
        (false, false) => (lo - 0.5, lo + 0.5),
    };
    let pad = (hi - lo) * 0.05;
    (lo - pad, hi + pad)
}

/// Scatter plot with an optional y = x reference line.
pub fn scatter(points: &[(f64, f64)], x_label: &str, y_label: &str, diagonal: bool) -> String {
    let xs = points.iter().map(|p| p.0).filter(|v| v.is_finite());
    let ys = points.iter().map(|p| p.1).filter(|v| v.is_finite());
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let (y0, y1) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let ((x0, x1), (y0, y1)) = (axis_span(x0, x1), axis_span(y0, y1));
    // Counts on x (rankings per ranker) get integer ticks only.
    let counts = points.iter().all(|p| p.0.fract() == 0.0);
    svg_string(520, 420, |root| {
        let mut c = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(err)?;
        let mut mesh = c.configure_mesh();
        mesh // One style (report::style): no minor grid, readable fonts.
            .light_line_style(TRANSPARENT)
            .label_style(("sans-serif", super::style::TICK_FONT))
            .axis_desc_style(("sans-serif", super::style::AXIS_FONT))
            .x_desc(x_label)
            .y_desc(y_label);
        if counts {
            mesh.x_label_formatter(&|x| integer_tick(*x));
        }
        mesh.draw().map_err(err)?;
        if diagonal {
            let a = x0.max(y0);
            let b = x1.min(y1);
            c.draw_series(LineSeries::new(
                vec![(a, a), (b, b)],
                super::style::REFERENCE.stroke_width(1),
            ))
            .map_err(err)?;
        }
        c.draw_series(
            points
                .iter()
                .map(|&(x, y)| Circle::new((x, y), 3, super::style::PALETTE[0].mix(0.7).filled())),
        )
        .map_err(err)?;
        Ok(())
    })
}

/// One method's estimates: (name, middle, lower, upper) per item.
pub type MethodSeries = (String, Vec<f64>, Vec<f64>, Vec<f64>);

/// Point estimates with intervals for several methods side by side, per
/// item, against the truth (a black cross per item).
pub fn compare_methods(
    items: &[String],
    truth: &[f64],
    methods: &[MethodSeries],
    x_label: &str,
    y_label: &str,
) -> String {
    interval_chart(
        items,
        methods,
        Some(truth),
        false,
        None,
        x_label,
        y_label,
        360,
    )
}

/// Several series' estimates with intervals over one shared categorical
/// axis, a colour per series (dodged sideways at each position): a
/// mixture's components over its items.
pub fn grouped_intervals(
    labels: &[String],
    series: &[MethodSeries],
    x_label: &str,
    y_label: &str,
) -> String {
    interval_chart(labels, series, None, false, None, x_label, y_label, 360)
}

/// Means with ±sd bars for several series over categorical x positions;
/// `reference`, when given, is one value per series drawn as a dashed
/// horizontal line in the series' colour across the whole panel (e.g. the
/// metric against a point estimate, which does not vary along x).
pub fn errorbars(
    x_labels: &[String],
    series: &[(String, Vec<f64>, Vec<f64>)],
    reference: Option<(&str, &[f64])>,
    x_label: &str,
    y_label: &str,
) -> String {
    let as_intervals: Vec<MethodSeries> = series
        .iter()
        .map(|(name, mean, sd)| {
            let lo = mean.iter().zip(sd).map(|(m, d)| m - d).collect();
            let hi = mean.iter().zip(sd).map(|(m, d)| m + d).collect();
            (name.clone(), mean.clone(), lo, hi)
        })
        .collect();
    interval_chart(
        x_labels,
        &as_intervals,
        None,
        true,
        reference,
        x_label,
        y_label,
        340,
    )
}

/// The chart behind [`compare_methods`] and [`errorbars`]: per categorical
/// position, one dot and vertical interval per series (dodged sideways),
/// optionally joined by a faint line across positions, and optionally a
/// black cross for the truth.
#[allow(clippy::too_many_arguments)]
fn interval_chart(
    labels: &[String],
    series: &[MethodSeries],
    truth: Option<&[f64]>,
    connect: bool,
    reference: Option<(&str, &[f64])>,
    x_label: &str,
    y_label: &str,
    height: u32,
) -> String {
    let n = labels.len();
    let refs: &[f64] = reference.map_or(&[], |r| r.1);
    let vals = truth.unwrap_or(&[]).iter().chain(refs).chain(
        series
            .iter()
            .flat_map(|m| m.1.iter().chain(&m.2).chain(&m.3)),
    );
    let (lo, hi) = vals
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    let (lo, hi) = if lo < hi {
        (lo, hi)
    } else if lo.is_finite() {
        (lo - 0.05, lo + 0.05)
    } else {
        (0.0, 1.0)
    };
    let pad = (hi - lo) * 0.06;
    let palette = super::style::PALETTE;
    let k = series.len().max(1) as f64;
    // The legend beside the plot, off the intervals.
    let mut entries: Vec<LegendEntry> = series
        .iter()
        .enumerate()
        .map(|(m, s)| LegendEntry {
            name: s.0.clone(),
            colour: palette[m % palette.len()],
            dash: NO_LINE,
            marker: 0,
            width: 2,
        })
        .collect();
    if truth.is_some() {
        entries.push(LegendEntry {
            name: "truth".into(),
            colour: BLACK,
            dash: NO_LINE,
            marker: 2,
            width: 2,
        });
    }
    if let Some((name, _)) = reference {
        entries.push(LegendEntry {
            name: name.to_string(),
            colour: BLACK,
            dash: 1,
            marker: usize::MAX,
            width: 1,
        });
    }
    let legend_w = legend_width(&entries);
    svg_string(
        900 + legend_w,
        height.max(40 + 16 * entries.len() as u32),
        |root| {
            let (plot_area, legend_area) = root.split_horizontally(900);
            let mut c = ChartBuilder::on(&plot_area)
                .margin(10)
                .x_label_area_size(35)
                .y_label_area_size(60)
                .build_cartesian_2d(0.5f64..n as f64 + 0.5, (lo - pad)..(hi + pad))
                .map_err(err)?;
            let names = labels.to_vec();
            c.configure_mesh()
                // One style (report::style): no minor grid, readable fonts.
                .light_line_style(TRANSPARENT)
                .label_style(("sans-serif", super::style::TICK_FONT))
                .axis_desc_style(("sans-serif", super::style::AXIS_FONT))
                .disable_x_mesh()
                .x_labels(n)
                // Categories at 1…n.
                .x_label_formatter(&|x| category_tick(&names, *x, |k| k.checked_sub(1)))
                .x_desc(x_label)
                .y_desc(y_label)
                .draw()
                .map_err(err)?;
            if let Some((_, values)) = reference {
                for (m, &v) in values.iter().enumerate().filter(|(_, v)| v.is_finite()) {
                    let col = palette[m % palette.len()];
                    c.draw_series(DashedLineSeries::new(
                        vec![(0.5, v), (n as f64 + 0.5, v)],
                        7,
                        5,
                        col.mix(0.8).stroke_width(1),
                    ))
                    .map_err(err)?;
                }
            }
            for (m, (_, mid, l, h)) in series.iter().enumerate() {
                let col = palette[m % palette.len()];
                let off = |i: usize| (i + 1) as f64 + (m as f64 - (k - 1.0) / 2.0) * 0.1;
                let shown = n.min(mid.len());
                for i in 0..shown {
                    if l[i].is_finite() && h[i].is_finite() {
                        c.draw_series(LineSeries::new(
                            vec![(off(i), l[i]), (off(i), h[i])],
                            col.stroke_width(2),
                        ))
                        .map_err(err)?;
                    }
                }
                if connect {
                    c.draw_series(LineSeries::new(
                        (0..shown)
                            .filter(|&i| mid[i].is_finite())
                            .map(|i| (off(i), mid[i])),
                        col.mix(0.5),
                    ))
                    .map_err(err)?;
                }
                c.draw_series(
                    (0..shown)
                        .filter(|&i| mid[i].is_finite())
                        .map(|i| Circle::new((off(i), mid[i]), 3, col.filled())),
                )
                .map_err(err)?;
            }
            if let Some(truth) = truth {
                c.draw_series(
                    (0..n.min(truth.len()))
                        .map(|i| Cross::new(((i + 1) as f64, truth[i]), 5, BLACK.stroke_width(2))),
                )
                .map_err(err)?;
            }
            draw_legend(&legend_area, &entries)?;
            Ok(())
        },
    )
}

/// Per-class plausibilities of one case (Stutz et al. Fig. 5): bars for a
/// point estimate, dots for posterior samples.
pub fn plausibilities(classes: &[String], point: &[f64], samples: &[Vec<f64>]) -> String {
    use plotters::style::text_anchor;
    let n = classes.len();
    let hi = point
        .iter()
        .chain(samples.iter().flatten())
        .copied()
        .fold(0.0f64, f64::max)
        .max(1e-6);
    // Class names stand upright under their bars (rotated a quarter turn),
    // so long names never overlap; the label area fits the longest.
    let longest = classes
        .iter()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(4)
        .min(32) as u32;
    let label_h = 20 + 7 * longest;
    svg_string(900, 320 + label_h, |root| {
        let mut c = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(label_h)
            .y_label_area_size(60)
            .build_cartesian_2d(0.5f64..n as f64 + 0.5, 0f64..hi * 1.05)
            .map_err(err)?;
        c.configure_mesh()
            // One style (report::style): no minor grid, readable fonts.
            .light_line_style(TRANSPARENT)
            .label_style(("sans-serif", super::style::TICK_FONT))
            .axis_desc_style(("sans-serif", super::style::AXIS_FONT))
            .disable_x_mesh()
            .x_labels(n)
            // Names are drawn below, rotated, by hand (plotters places
            // rotated tick labels across the axis).
            .x_label_formatter(&|_| String::new())
            .y_desc("plausibility")
            .draw()
            .map_err(err)?;
        // Upright names (reading upwards) ending just under their ticks.
        let style = TextStyle::from(
            ("sans-serif", 12)
                .into_font()
                .transform(FontTransform::Rotate270),
        )
        .pos(text_anchor::Pos::new(
            text_anchor::HPos::Right,
            text_anchor::VPos::Center,
        ));
        for (i, name) in classes.iter().enumerate() {
            let (px, py) = c.backend_coord(&((i + 1) as f64, 0.0));
            root.draw(&Text::new(
                short_label(name, 32),
                (px, py + 8),
                style.clone(),
            ))
            .map_err(err)?;
        }
        c.draw_series((0..n).map(|i| {
            Rectangle::new(
                [
                    ((i + 1) as f64 - 0.3, 0.0),
                    ((i + 1) as f64 + 0.3, point[i]),
                ],
                super::style::PALETTE[0].mix(0.35).filled(),
            )
        }))
        .map_err(err)?;
        for (i, vs) in samples.iter().enumerate() {
            let step = vs.len().div_ceil(300).max(1);
            c.draw_series(vs.iter().step_by(step).enumerate().map(|(j, &v)| {
                let jitter = ((j * 7919) % 100) as f64 / 100.0 * 0.4 - 0.2;
                Circle::new(
                    ((i + 1) as f64 + jitter, v),
                    2,
                    super::style::PALETTE[2].mix(0.4).filled(),
                )
            }))
            .map_err(err)?;
        }
        Ok(())
    })
}

/// Line chart of `(x, y)` series with markers; `log_x` plots log10 x.
/// `marker` draws a vertical dashed line at an x value with a label (e.g.
/// the η chosen by the bound).
pub fn xy(
    series: &[(String, Vec<(f64, f64)>)],
    x_label: &str,
    y_label: &str,
    log_x: bool,
    marker: Option<(f64, &str)>,
) -> String {
    xy_highlighted(series, x_label, y_label, log_x, marker, None)
}

/// [`xy`] with only the first `highlight` series in the palette (and the
/// legend): the rest are drawn thin and light grey, and the legend counts
/// them in one row — for charts of many series of which a few matter
/// (a regularisation path: the weights that survive a strong prior).
pub fn xy_highlighted(
    series: &[(String, Vec<(f64, f64)>)],
    x_label: &str,
    y_label: &str,
    log_x: bool,
    marker: Option<(f64, &str)>,
    highlight: Option<usize>,
) -> String {
    let tx = |v: f64| if log_x { v.max(1e-300).log10() } else { v };
    let pts: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.1.iter().map(|&(x, y)| (tx(x), y)))
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .collect();
    if pts.is_empty() {
        return "<p>no finite values to plot</p>".into();
    }
    let bounds = |f: fn(&(f64, f64)) -> f64| {
        let (a, b) = pts
            .iter()
            .map(f)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
        if a < b { (a, b) } else { (a - 0.5, a + 0.5) }
    };
    let (xmin, xmax) = bounds(|p| p.0);
    let (ymin, ymax) = bounds(|p| p.1);
    let (px, py) = ((xmax - xmin) * 0.03, (ymax - ymin) * 0.08);
    let marker = marker.map(|(v, l)| (tx(v), l.to_string()));
    // Up to six series: the usual palette; more (a classifier's
    // regularisation path has one per class and feature): one distinct
    // colour each. The legend always sits beside the plot, so it neither
    // covers the curves nor gets clipped, and series also differ in dash
    // and marker shape, so curves that lie on each other stay apart.
    let highlight = highlight.filter(|&h| h < series.len());
    let many = series.len() > 6 && highlight.is_none();
    let colour = |k: usize| -> RGBColor {
        if many {
            distinct_colour(k)
        } else {
            super::style::series(k)
        }
    };
    let mut entries: Vec<LegendEntry> = series
        .iter()
        .enumerate()
        .map(|(k, (name, _))| {
            if REFERENCE_NAMES.contains(&name.as_str()) {
                // A reference line (ROC's chance diagonal): quiet grey,
                // dashed, no marker, never a series colour.
                return LegendEntry {
                    name: name.clone(),
                    colour: super::style::REFERENCE,
                    dash: 1,
                    marker: usize::MAX,
                    width: 1,
                };
            }
            if highlight.is_some_and(|h| k >= h) {
                return LegendEntry {
                    name: name.clone(),
                    colour: MUTED,
                    dash: 0,
                    marker: usize::MAX,
                    width: 1,
                };
            }
            LegendEntry {
                name: name.clone(),
                colour: colour(k),
                dash: if many { 0 } else { k % 3 },
                marker: if many { 0 } else { k % 3 },
                width: 2,
            }
        })
        .collect();
    // The legend: every series, or the highlighted ones and one row for the
    // rest.
    let legend: Vec<LegendEntry> = match highlight {
        Some(h) => {
            let mut l: Vec<LegendEntry> = entries[..h].to_vec();
            l.push(LegendEntry {
                name: format!("{} others (grey)", series.len() - h),
                colour: MUTED,
                dash: 0,
                marker: usize::MAX,
                width: 1,
            });
            l.extend(entries[series.len()..].iter().cloned());
            l
        }
        None => entries.clone(),
    };
    if let Some((_, label)) = &marker {
        entries.push(LegendEntry {
            name: label.clone(),
            colour: BLACK,
            dash: 1,
            marker: usize::MAX,
            width: 1,
        });
    }
    let legend_w = if legend.len() > 1 {
        legend_width(&legend)
    } else {
        0
    };
    let height = 340.max(40 + 16 * legend.len() as u32);
    svg_string(900 + legend_w, height, |root| {
        let (plot_area, legend_area) = root.split_horizontally(900);
        let mut c = ChartBuilder::on(&plot_area)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(70)
            .build_cartesian_2d(xmin - px..xmax + px, ymin - py..ymax + py)
            .map_err(err)?;
        c.configure_mesh()
            // One style (report::style): no minor grid, readable fonts.
            .light_line_style(TRANSPARENT)
            .label_style(("sans-serif", super::style::TICK_FONT))
            .axis_desc_style(("sans-serif", super::style::AXIS_FONT))
            .x_desc(if log_x {
                format!("log10 {x_label}")
            } else {
                x_label.to_string()
            })
            .y_desc(y_label)
            .draw()
            .map_err(err)?;
        if let Some((mx, _)) = &marker {
            let mx = *mx;
            c.draw_series(DashedLineSeries::new(
                vec![(mx, ymin - py), (mx, ymax + py)],
                6,
                4,
                BLACK.stroke_width(1),
            ))
            .map_err(err)?;
        }
        for (k, (_, xy)) in series.iter().enumerate() {
            let e = &entries[k];
            let p: Vec<(f64, f64)> = xy
                .iter()
                .map(|&(x, y)| (tx(x), y))
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .collect();
            draw_styled(&mut c, &p, e)?;
        }
        if legend.len() > 1 {
            draw_legend(&legend_area, &legend)?;
        }
        Ok(())
    })
}

/// `LegendEntry::dash` for an entry drawn without a line (markers only).
const NO_LINE: usize = usize::MAX;

/// How one series is drawn and named in a legend beside the plot.
#[derive(Clone)]
struct LegendEntry {
    name: String,
    colour: RGBColor,
    /// 0 solid, 1 dashed, 2 dotted, [`NO_LINE`] none.
    dash: usize,
    /// 0 circle, 1 triangle, 2 cross, `usize::MAX` none.
    marker: usize,
    width: u32,
}

fn legend_width(entries: &[LegendEntry]) -> u32 {
    let longest = entries
        .iter()
        .map(|e| e.name.chars().count())
        .max()
        .unwrap_or(4)
        .min(48);
    44 + 7 * longest as u32
}

/// A chart with two continuous axes.
type Chart2d<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

fn line_points<DB: DrawingBackend>(
    c: &mut Chart2d<'_, DB>,
    p: &[(f64, f64)],
    e: &LegendEntry,
) -> Result<(), String> {
    let style = e.colour.stroke_width(e.width);
    match e.dash {
        NO_LINE => {}
        0 => {
            c.draw_series(LineSeries::new(p.iter().copied(), style))
                .map_err(err)?;
        }
        d => {
            let (len, gap) = if d == 1 { (8, 5) } else { (2, 4) };
            c.draw_series(DashedLineSeries::new(p.iter().copied(), len, gap, style))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// The colour of series drawn as background ([`xy_highlighted`]).
const MUTED: RGBColor = RGBColor(200, 200, 200);

/// Most markers drawn on one series.
const MAX_MARKERS: usize = 12;

fn draw_styled<DB: DrawingBackend>(
    c: &mut Chart2d<'_, DB>,
    p: &[(f64, f64)],
    e: &LegendEntry,
) -> Result<(), String> {
    line_points(c, p, e)?;
    let col = e.colour;
    // Markers tell series apart; on a dense curve (an ROC curve, a long
    // path) one per point would bead the line, so at most about a dozen.
    let step = p.len().div_ceil(MAX_MARKERS).max(1);
    let at = || p.iter().step_by(step);
    match e.marker {
        0 => {
            c.draw_series(at().map(|&q| Circle::new(q, 3, col.filled())))
                .map_err(err)?;
        }
        1 => {
            c.draw_series(at().map(|&q| TriangleMarker::new(q, 5, col.filled())))
                .map_err(err)?;
        }
        2 => {
            c.draw_series(at().map(|&q| Cross::new(q, 4, col.stroke_width(2))))
                .map_err(err)?;
        }
        _ => {}
    }
    Ok(())
}

/// The legend beside a plot: one row per entry with its line and marker.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[LegendEntry],
) -> Result<(), String> {
    let style = TextStyle::from(("sans-serif", 12).into_font()).color(&BLACK);
    for (k, e) in entries.iter().enumerate() {
        let y = 20 + 16 * k as i32;
        let line = e.colour.stroke_width(e.width.max(2));
        match e.dash {
            NO_LINE => Ok(()),
            0 => area.draw(&PathElement::new(vec![(6, y), (30, y)], line)),
            1 => area
                .draw(&PathElement::new(vec![(6, y), (14, y)], line))
                .and_then(|_| area.draw(&PathElement::new(vec![(20, y), (30, y)], line))),
            _ => (0..4).try_for_each(|i| {
                area.draw(&PathElement::new(
                    vec![(6 + 7 * i, y), (8 + 7 * i, y)],
                    line,
                ))
            }),
        }
        .map_err(err)?;
        match e.marker {
            0 => area.draw(&Circle::new((18, y), 3, e.colour.filled())),
            1 => area.draw(&TriangleMarker::new((18, y), 5, e.colour.filled())),
            2 => area.draw(&Cross::new((18, y), 4, e.colour.stroke_width(2))),
            _ => Ok(()),
        }
        .map_err(err)?;
        let label: String = e.name.chars().take(48).collect();
        area.draw(&Text::new(label, (36, y - 6), style.clone()))
            .map_err(err)?;
    }
    Ok(())
}

/// Colour `k`, all different: hues spread round the circle (golden-ratio
/// steps, so no two coincide), every
/// other one darker, so neighbours in the legend also differ in lightness.
fn distinct_colour(k: usize) -> RGBColor {
    let h = (k as f64 * 0.618_033_988_75).fract();
    let l = if k.is_multiple_of(2) { 0.38 } else { 0.55 };
    let hsl = HSLColor(h, 0.85, l);
    let (r, g, b) = hsl.rgb();
    RGBColor(r, g, b)
}

/// The name of [`xy`]'s chance diagonal (a reference series).
pub const REFERENCE_SERIES: &str = "chance";
/// The name of a calibration chart's diagonal (a reference series).
pub const PERFECT_CALIBRATION: &str = "perfect calibration";
/// Series [`xy`] draws as reference lines (grey, dashed, no marker).
const REFERENCE_NAMES: [&str; 2] = [REFERENCE_SERIES, PERFECT_CALIBRATION];

/// ROC curves (false- against true-positive rate) with the chance
/// diagonal.
pub fn roc(curves: &[(String, Vec<(f64, f64)>)]) -> String {
    let mut series = curves.to_vec();
    series.push((REFERENCE_SERIES.into(), vec![(0.0, 0.0), (1.0, 1.0)]));
    xy(
        &series,
        "false-positive rate",
        "true-positive rate",
        false,
        None,
    )
}

/// At most about 300 points of a curve (its ends kept), so that a curve
/// over hundreds of thousands of points (an ROC curve of many rows) stays a
/// light page.
pub fn thin_curve(c: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    let step = c.len().div_ceil(300).max(1);
    if step == 1 {
        return c;
    }
    let last = *c.last().expect("a thinned curve is not empty");
    let mut out: Vec<(f64, f64)> = c.into_iter().step_by(step).collect();
    if out.last() != Some(&last) {
        out.push(last);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tick labels of an SVG chart: the text of every `<text>` element.
    fn labels(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let body = &t[t.find('>')? + 1..];
                Some(body[..body.find("</text>")?].trim().to_string())
            })
            .collect()
    }

    /// With many series (a classifier's path: 27) every series is named in
    /// a legend beside the plot — none clipped, none over the curves — and
    /// no two share a colour (issue 17 item 13: the legend covered the
    /// curves, was cut off after 22 entries, and colours repeated).
    #[test]
    fn many_series_get_a_full_legend_and_distinct_colours() {
        let series: Vec<(String, Vec<(f64, f64)>)> = (0..27)
            .map(|k| {
                (
                    format!("class {} / feature {}", k / 9, k % 9),
                    (1..=5).map(|i| (i as f64, (k * i) as f64)).collect(),
                )
            })
            .collect();
        let svg = xy(&series, "a", "weight", true, None);
        let text = labels(&svg);
        for (name, _) in &series {
            assert!(text.contains(name), "{name} missing from the legend");
        }
        let width: f64 = svg
            .split("width=\"")
            .nth(1)
            .and_then(|w| w.split('"').next())
            .and_then(|w| w.parse().ok())
            .unwrap();
        assert!(width > 900.0, "the legend sits beside the 900-px plot");
        let colours: std::collections::HashSet<(u8, u8, u8)> = (0..27)
            .map(|k| {
                let c = distinct_colour(k);
                (c.0, c.1, c.2)
            })
            .collect();
        assert_eq!(colours.len(), 27);
    }

    /// A histogram's count axis is labelled with whole numbers only (the
    /// mixture report's membership histogram printed "70.0"; small counts
    /// printed "2.5").
    #[test]
    fn histogram_counts_are_labelled_as_integers() {
        for n in [3usize, 7, 75, 300] {
            // Values from 1000 up: every tick below 1000 is a count.
            let v: Vec<f64> = (0..n).map(|i| 1000.0 + (i % 5) as f64 * 250.0).collect();
            let svg = histogram(&[("x".into(), v)], 10, "value");
            let counts: Vec<String> = labels(&svg)
                .into_iter()
                .filter(|l| l.parse::<f64>().is_ok_and(|x| x < 1000.0))
                .collect();
            assert!(counts.len() >= 2, "n = {n}: {counts:?}");
            for l in counts {
                assert!(!l.contains('.'), "n = {n}: count label {l:?}");
            }
        }
    }

    /// Rank-marginal heat maps (issue 17 item 13): places are labelled
    /// 1…n with no fractional ticks, the colour bar carries probability
    /// labels from 0 to the largest value, and small maps print each
    /// cell's value; colours come from a perceptual scale, not grey.
    #[test]
    fn heatmap_has_integer_places_and_a_labelled_colour_scale() {
        let rows = vec![
            vec![0.58, 0.29, 0.11, 0.02],
            vec![0.22, 0.36, 0.30, 0.12],
            vec![0.14, 0.24, 0.39, 0.23],
            vec![0.06, 0.11, 0.20, 0.63],
        ];
        let names: Vec<String> = ["B", "C", "D", "A"].iter().map(|s| s.to_string()).collect();
        let svg = heatmap(&names, &rows, "place");
        let l = labels(&svg);
        for p in ["1", "2", "3", "4"] {
            assert!(l.iter().any(|x| x == p), "place {p}: {l:?}");
        }
        assert!(!l.iter().any(|x| x == "1.5" || x == "0.5"), "{l:?}");
        assert!(
            l.iter().any(|x| x == "0.00") && l.iter().any(|x| x == "0.63"),
            "{l:?}"
        );
        assert!(l.iter().any(|x| x == "0.39"), "cell values: {l:?}");
        // Viridis' dark end (68, 1, 84) fills the smallest cells.
        assert!(
            svg.contains("#440154") || svg.contains("#45"),
            "no viridis colours"
        );
    }

    /// Index axes (iterations, kept draws, sorted cases) are labelled with
    /// whole numbers ("50", not "50.0"); legends of several series sit
    /// beside the plot, outside its area.
    #[test]
    fn line_charts_count_in_integers_with_the_legend_outside() {
        let series: Vec<(String, Vec<f64>)> = (0..4)
            .map(|c| {
                (
                    format!("chain {}", c + 1),
                    (0..500).map(|i| ((i * (c + 3)) % 17) as f64).collect(),
                )
            })
            .collect();
        let svg = lines(&series, "kept draw", "value", false);
        let l = labels(&svg);
        assert!(l.iter().any(|x| x == "250"), "{l:?}");
        let xs: Vec<&String> = l
            .iter()
            .filter(|x| x.parse::<f64>().is_ok_and(|v| v >= 20.0))
            .collect();
        assert!(xs.iter().all(|x| !x.contains('.')), "{xs:?}");
        assert!(svg.starts_with("<svg width=\"") && !svg.starts_with("<svg width=\"900\""));
    }

    /// Class names under a case's plausibility bars stand upright (rotated),
    /// so long names do not run into each other (issue 17 item 13).
    #[test]
    fn case_plot_rotates_class_names() {
        let classes: Vec<String> = [
            "Melanocytic Nevus",
            "O/E - ecchymoses present",
            "Pyogenic granuloma",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let svg = plausibilities(
            &classes,
            &[0.5, 0.3, 0.2],
            &[vec![0.4, 0.6], vec![0.3], vec![0.2]],
        );
        for c in &classes {
            let at = svg.find(c.as_str()).expect("class name drawn");
            let tag = &svg[svg[..at].rfind("<text").unwrap()..at];
            assert!(tag.contains("rotate(270"), "{c}: {tag}");
        }
    }
}
