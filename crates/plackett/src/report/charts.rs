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
    let label_w = names
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(4)
        .min(40) as u32
        * 7
        + 10;
    svg_string(900, h, |root| {
        let mut c = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(label_w)
            .build_cartesian_2d(xmin - pad..xmax + pad, -0.5f64..n as f64 - 0.5)
            .map_err(err)?;
        let names_rev: Vec<String> = names.to_vec();
        c.configure_mesh()
            .disable_y_mesh()
            .y_labels(n.min(200))
            .y_label_formatter(&|y| {
                let k = y.round() as i64;
                if (y - k as f64).abs() < 1e-6 && k >= 0 && (k as usize) < n {
                    names_rev[n - 1 - k as usize].clone()
                } else {
                    String::new()
                }
            })
            .x_desc(x_label)
            .draw()
            .map_err(err)?;
        for i in 0..n {
            let y = (n - 1 - i) as f64;
            if lo[i].is_finite() && hi[i].is_finite() {
                c.draw_series(LineSeries::new(
                    vec![(lo[i], y), (hi[i], y)],
                    BLUE.stroke_width(2),
                ))
                .map_err(err)?;
            }
            c.draw_series(std::iter::once(Circle::new((mid[i], y), 3, BLACK.filled())))
                .map_err(err)?;
        }
        Ok(())
    })
}

/// Grey-scale heatmap `rows × cols` of probabilities (white = high), as in
/// Guiver & Snelson Fig. 2.
pub fn heatmap(row_names: &[String], values: &[Vec<f64>], x_label: &str) -> String {
    let r = row_names.len();
    let cols = values.first().map_or(0, |v| v.len());
    let vmax = values
        .iter()
        .flatten()
        .copied()
        .fold(0.0f64, f64::max)
        .max(1e-12);
    let label_w = row_names
        .iter()
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(4)
        .min(40) as u32
        * 7
        + 10;
    svg_string(900, (50 + 22 * r) as u32, |root| {
        let mut c = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(label_w)
            .build_cartesian_2d(0.5f64..cols as f64 + 0.5, -0.5f64..r as f64 - 0.5)
            .map_err(err)?;
        let names = row_names.to_vec();
        c.configure_mesh()
            .disable_mesh()
            .y_labels(r)
            .y_label_formatter(&|y| {
                let k = y.round() as i64;
                if (y - k as f64).abs() < 1e-6 && k >= 0 && (k as usize) < r {
                    names[r - 1 - k as usize].clone()
                } else {
                    String::new()
                }
            })
            .x_desc(x_label)
            .draw()
            .map_err(err)?;
        for (i, row) in values.iter().enumerate() {
            let y = (r - 1 - i) as f64;
            c.draw_series(row.iter().enumerate().map(|(j, &v)| {
                let g = (255.0 * (v / vmax).sqrt()).round() as u8;
                Rectangle::new(
                    [(j as f64 + 0.5, y - 0.5), (j as f64 + 1.5, y + 0.5)],
                    RGBColor(g, g, g).filled(),
                )
            }))
            .map_err(err)?;
        }
        Ok(())
    })
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
    let palette = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
    svg_string(900, 320, |root| {
        let mut c = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(70)
            .build_cartesian_2d(1f64..xmax, ymin - pad..ymax + pad)
            .map_err(err)?;
        c.configure_mesh()
            .x_desc(x_label)
            .y_desc(if log_y {
                format!("log10 {y_label}")
            } else {
                y_label.to_string()
            })
            .draw()
            .map_err(err)?;
        for (k, (name, ys)) in series.iter().enumerate() {
            let col = palette[k % palette.len()];
            c.draw_series(LineSeries::new(
                ys.iter()
                    .enumerate()
                    .map(|(i, &v)| ((i + 1) as f64, tr(v)))
                    .filter(|p| p.1.is_finite()),
                col.stroke_width(1),
            ))
            .map_err(err)?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], col));
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
    let palette = [BLUE, RED, GREEN, MAGENTA];
    svg_string(900, 320, |root| {
        let mut c = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(lo..hi, 0f64..cmax * 1.05)
            .map_err(err)?;
        c.configure_mesh()
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
    let (x0, x1) = if x0 < x1 {
        (x0, x1)
    } else {
        (x0 - 0.5, x0 + 0.5)
    };
    let (y0, y1) = if y0 < y1 {
        (y0, y1)
    } else {
        (y0 - 0.5, y0 + 0.5)
    };
    svg_string(520, 420, |root| {
        let mut c = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(err)?;
        c.configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .draw()
            .map_err(err)?;
        if diagonal {
            let a = x0.max(y0);
            let b = x1.min(y1);
            c.draw_series(LineSeries::new(vec![(a, a), (b, b)], BLACK.mix(0.4)))
                .map_err(err)?;
        }
        c.draw_series(
            points
                .iter()
                .map(|&(x, y)| Circle::new((x, y), 2, BLUE.mix(0.5).filled())),
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
    y_label: &str,
) -> String {
    interval_chart(items, methods, Some(truth), false, y_label, 360)
}

/// Means with ±sd bars for several series over categorical x positions.
pub fn errorbars(
    x_labels: &[String],
    series: &[(String, Vec<f64>, Vec<f64>)],
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
    interval_chart(x_labels, &as_intervals, None, true, y_label, 340)
}

/// The chart behind [`compare_methods`] and [`errorbars`]: per categorical
/// position, one dot and vertical interval per series (dodged sideways),
/// optionally joined by a faint line across positions, and optionally a
/// black cross for the truth.
fn interval_chart(
    labels: &[String],
    series: &[MethodSeries],
    truth: Option<&[f64]>,
    connect: bool,
    y_label: &str,
    height: u32,
) -> String {
    let n = labels.len();
    let vals = truth.unwrap_or(&[]).iter().chain(
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
    let palette = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
    let k = series.len().max(1) as f64;
    svg_string(900, height, |root| {
        let mut c = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(0.5f64..n as f64 + 0.5, (lo - pad)..(hi + pad))
            .map_err(err)?;
        let names = labels.to_vec();
        c.configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&|x| {
                let i = x.round() as i64;
                if (x - i as f64).abs() < 1e-6 && i >= 1 && i as usize <= n {
                    names[i as usize - 1].clone()
                } else {
                    String::new()
                }
            })
            .y_desc(y_label)
            .draw()
            .map_err(err)?;
        for (m, (name, mid, l, h)) in series.iter().enumerate() {
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
            .map_err(err)?
            .label(name.clone())
            .legend(move |(x, y)| Circle::new((x + 5, y), 3, col.filled()));
        }
        if let Some(truth) = truth {
            c.draw_series(
                (0..n.min(truth.len()))
                    .map(|i| Cross::new(((i + 1) as f64, truth[i]), 5, BLACK.stroke_width(2))),
            )
            .map_err(err)?
            .label("truth")
            .legend(|(x, y)| Cross::new((x + 5, y), 4, BLACK));
        }
        c.configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE.mix(0.85))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(err)?;
        Ok(())
    })
}

/// Per-class plausibilities of one case (Stutz et al. Fig. 5): bars for a
/// point estimate, dots for posterior samples.
pub fn plausibilities(classes: &[String], point: &[f64], samples: &[Vec<f64>]) -> String {
    let n = classes.len();
    let hi = point
        .iter()
        .chain(samples.iter().flatten())
        .copied()
        .fold(0.0f64, f64::max)
        .max(1e-6);
    svg_string(900, 380, |root| {
        let mut c = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(60)
            .y_label_area_size(60)
            .build_cartesian_2d(0.5f64..n as f64 + 0.5, 0f64..hi * 1.05)
            .map_err(err)?;
        let labels = classes.to_vec();
        c.configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&|x| {
                let i = x.round() as i64;
                if (x - i as f64).abs() < 1e-6 && i >= 1 && i as usize <= n {
                    labels[i as usize - 1].chars().take(24).collect()
                } else {
                    String::new()
                }
            })
            .y_desc("plausibility")
            .draw()
            .map_err(err)?;
        c.draw_series((0..n).map(|i| {
            Rectangle::new(
                [
                    ((i + 1) as f64 - 0.3, 0.0),
                    ((i + 1) as f64 + 0.3, point[i]),
                ],
                BLUE.mix(0.35).filled(),
            )
        }))
        .map_err(err)?;
        for (i, vs) in samples.iter().enumerate() {
            let step = vs.len().div_ceil(300).max(1);
            c.draw_series(vs.iter().step_by(step).enumerate().map(|(j, &v)| {
                let jitter = ((j * 7919) % 100) as f64 / 100.0 * 0.4 - 0.2;
                Circle::new(((i + 1) as f64 + jitter, v), 2, GREEN.mix(0.4).filled())
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
    // Up to six series: the usual palette and a legend inside the plot.
    // More (a classifier's regularisation path has one per class and
    // feature): one distinct colour each and the legend beside the plot, so
    // it neither repeats colours nor covers the curves or gets clipped.
    let many = series.len() > 6;
    let colour = |k: usize| -> RGBColor {
        const PALETTE: [RGBColor; 6] = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
        if many {
            distinct_colour(k)
        } else {
            PALETTE[k % PALETTE.len()]
        }
    };
    let legend_w: u32 = if many {
        let longest = series
            .iter()
            .map(|s| s.0.chars().count())
            .max()
            .unwrap_or(4)
            .min(48);
        40 + 7 * longest as u32
    } else {
        0
    };
    let height = if many {
        340.max(40 + 16 * series.len() as u32)
    } else {
        340
    };
    svg_string(900 + legend_w, height, |root| {
        let (plot_area, legend_area) = root.split_horizontally(900);
        let mut c = ChartBuilder::on(&plot_area)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(70)
            .build_cartesian_2d(xmin - px..xmax + px, ymin - py..ymax + py)
            .map_err(err)?;
        c.configure_mesh()
            .x_desc(if log_x {
                format!("log10 {x_label}")
            } else {
                x_label.to_string()
            })
            .y_desc(y_label)
            .draw()
            .map_err(err)?;
        if let Some((mx, label)) = &marker {
            let mx = *mx;
            c.draw_series(DashedLineSeries::new(
                vec![(mx, ymin - py), (mx, ymax + py)],
                6,
                4,
                BLACK.stroke_width(1),
            ))
            .map_err(err)?
            .label(label.clone())
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], BLACK));
        }
        for (k, (name, xy)) in series.iter().enumerate() {
            let col = colour(k);
            let p: Vec<(f64, f64)> = xy
                .iter()
                .map(|&(x, y)| (tx(x), y))
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .collect();
            c.draw_series(LineSeries::new(p.clone(), col.stroke_width(2)))
                .map_err(err)?
                .label(name.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], col));
            c.draw_series(p.into_iter().map(|q| Circle::new(q, 3, col.filled())))
                .map_err(err)?;
        }
        if many {
            // The legend beside the plot: one row per series.
            let style = TextStyle::from(("sans-serif", 12).into_font()).color(&BLACK);
            for (k, (name, _)) in series.iter().enumerate() {
                let y = 20 + 16 * k as i32;
                let col = colour(k);
                legend_area
                    .draw(&PathElement::new(
                        vec![(8, y), (28, y)],
                        col.stroke_width(3),
                    ))
                    .map_err(err)?;
                let label: String = name.chars().take(48).collect();
                legend_area
                    .draw(&Text::new(label, (34, y - 6), style.clone()))
                    .map_err(err)?;
            }
            if let Some((_, label)) = &marker {
                let y = 20 + 16 * series.len() as i32;
                legend_area
                    .draw(&PathElement::new(
                        vec![(8, y), (28, y)],
                        BLACK.stroke_width(1),
                    ))
                    .map_err(err)?;
                legend_area
                    .draw(&Text::new(label.clone(), (34, y - 6), style))
                    .map_err(err)?;
            }
        } else if series.len() > 1 || marker.is_some() {
            c.configure_series_labels()
                .border_style(BLACK)
                .background_style(WHITE.mix(0.8))
                .draw()
                .map_err(err)?;
        }
        Ok(())
    })
}

/// Colour `k`, all different: hues spread round the circle (golden-ratio
/// steps, so no two coincide), every
/// other one darker, so neighbours in the legend also differ in lightness.
fn distinct_colour(k: usize) -> RGBColor {
    let h = (k as f64 * 0.618_033_988_75).fract();
    let l = if k % 2 == 0 { 0.38 } else { 0.55 };
    let hsl = HSLColor(h, 0.85, l);
    let (r, g, b) = hsl.rgb();
    RGBColor(r, g, b)
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
}
