//! One SVG per program: outcomes covered against executions (log scale), the mean over runs of
//! each tool overlaid (plotters' SVG backend, which needs no fonts).

use super::{BenchProgram, RunRecord};
use anyhow::{anyhow, Result};
use plotters::prelude::*;
use std::path::Path;

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// Covered outcomes of a run at execution `x`.
fn at(r: &RunRecord, x: f64) -> usize {
    r.curve
        .iter()
        .take_while(|(e, _)| (*e as f64) <= x)
        .last()
        .map_or(0, |c| c.1)
}

/// Write the plot of `records` (one program, all tools) to `path`.
pub fn coverage(
    path: &Path,
    program: &BenchProgram,
    records: &[&RunRecord],
    cap: u64,
) -> Result<()> {
    let e = |e: DrawingAreaErrorKind<std::io::Error>| anyhow!("plotting {}: {e}", path.display());
    let total = records.iter().map(|r| r.total).max().unwrap_or(1).max(1);
    let xmax = records
        .iter()
        .map(|r| r.executions)
        .max()
        .unwrap_or(1)
        .max(cap)
        .max(10) as f64;
    let root = SVGBackend::new(path, (720, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "{}: branch outcomes covered (feasible {})",
                program.name, program.feasible
            ),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(44)
        .build_cartesian_2d((1f64..xmax).log_scale(), 0f64..(total as f64 + 0.5))
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("executions (log scale)")
        .y_desc("outcomes covered (mean over runs)")
        .draw()
        .map_err(e)?;
    let mut tools: Vec<&str> = Vec::new();
    for r in records {
        if !tools.contains(&r.tool.as_str()) {
            tools.push(&r.tool);
        }
    }
    let xs: Vec<f64> = (0..=200)
        .map(|i| 10f64.powf(xmax.log10() * i as f64 / 200.0))
        .collect();
    for (k, t) in tools.iter().enumerate() {
        let rs: Vec<&&RunRecord> = records.iter().filter(|r| r.tool == *t).collect();
        let color = COLORS[k % COLORS.len()];
        let pts: Vec<(f64, f64)> = xs
            .iter()
            .map(|&x| {
                (
                    x,
                    rs.iter().map(|r| at(r, x) as f64).sum::<f64>() / rs.len().max(1) as f64,
                )
            })
            .collect();
        chart
            .draw_series(LineSeries::new(pts, color.stroke_width(2)))
            .map_err(e)?
            .label(t.to_string())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)?;
    Ok(())
}
