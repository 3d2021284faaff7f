//! One chart style for every report: a colour-blind-safe palette (Okabe &
//! Ito 2008, "Color universal design"), readable axis fonts and no minor
//! grid. The charts take their colours and fonts from here only.

use plotters::style::RGBColor;

/// Okabe & Ito's eight colours, black last (it is the axes' colour): blue,
/// vermillion, bluish green, orange, reddish purple, sky blue, yellow.
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(230, 159, 0),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

/// Series `k`'s colour (the palette, round again past its end).
pub fn series(k: usize) -> RGBColor {
    PALETTE[k % PALETTE.len()]
}

/// Reference lines (chance diagonals, y = x, truth markers): a quiet grey
/// that no series uses.
pub const REFERENCE: RGBColor = RGBColor(120, 120, 120);

/// Tick labels, in pixels.
pub const TICK_FONT: u32 = 13;
/// Axis titles, in pixels.
pub const AXIS_FONT: u32 = 14;
