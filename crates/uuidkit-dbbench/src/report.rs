//! The results: `results.csv`, a table on standard output, and `chart.svg`.

use std::fmt::Write as _;
use std::path::Path;

use plotters::prelude::*;

use crate::run::Outcome;

pub const CSV_HEADER: &str = "engine,key,rows,connections,seconds,rows_per_sec,table_bytes,index_bytes,leaf_density,wal_bytes,fpi";

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

pub fn csv(results: &[Outcome]) -> String {
    let mut s = format!("{CSV_HEADER}\n");
    for r in results {
        let z = &r.sizes;
        let _ = writeln!(
            s,
            "{},{},{},{},{:.3},{:.0},{},{},{},{},{}",
            r.engine,
            r.key,
            r.rows,
            r.connections,
            r.seconds,
            r.rows_per_sec(),
            opt(z.table_bytes),
            opt(z.index_bytes),
            opt(z.leaf_density.map(|d| format!("{d:.3}"))),
            opt(z.wal_bytes),
            opt(z.fpi),
        );
    }
    s
}

fn mib(v: Option<u64>) -> String {
    v.map(|b| format!("{:.1}", b as f64 / (1 << 20) as f64))
        .unwrap_or_else(|| "—".into())
}

/// A Markdown table: what docs/databases.md shows.
pub fn table(results: &[Outcome]) -> String {
    let mut s = String::from(
        "| engine | key | conns | rows/s | vs serial | table MiB | index MiB | leaf density | WAL/written MiB | FPI |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in results {
        let serial = results.iter().find(|o| {
            o.engine == r.engine
                && o.connections == r.connections
                && o.key == crate::keys::Key::Serial
        });
        let z = &r.sizes;
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.0} | {} | {} | {} | {} | {} | {} |",
            r.engine,
            r.key,
            r.connections,
            r.rows_per_sec(),
            serial
                .map(|o| format!("{:.2}×", r.rows_per_sec() / o.rows_per_sec()))
                .unwrap_or_else(|| "—".into()),
            mib(z.table_bytes),
            mib(z.index_bytes),
            z.leaf_density
                .map(|d| format!("{:.0}%", d * 100.0))
                .unwrap_or_else(|| "—".into()),
            mib(z.wal_bytes),
            z.fpi.map(|v| v.to_string()).unwrap_or_else(|| "—".into()),
        );
    }
    s
}

const COLORS: [RGBColor; 8] = [
    RGBColor(0, 0, 0),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 158, 115),
    RGBColor(213, 94, 0),
    RGBColor(0, 114, 178),
    RGBColor(204, 121, 167),
    RGBColor(120, 120, 120),
];

/// One panel per engine and connection count: rows per second (y) as the table grows
/// (x, rows inserted), one line per key kind.
pub fn chart(results: &[Outcome], path: &Path) -> Result<(), String> {
    let mut panels: Vec<(String, usize)> = Vec::new();
    for r in results {
        if !panels.contains(&(r.engine.clone(), r.connections)) {
            panels.push((r.engine.clone(), r.connections));
        }
    }
    let height = 360 * panels.len().max(1) as u32;
    let root = SVGBackend::new(path, (900, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let areas = root.split_evenly((panels.len().max(1), 1));
    for ((engine, conns), area) in panels.iter().zip(areas) {
        let here: Vec<&Outcome> = results
            .iter()
            .filter(|r| &r.engine == engine && r.connections == *conns)
            .collect();
        let max_x = here.iter().map(|r| r.rows).max().unwrap_or(1) as f64;
        let max_y = here
            .iter()
            .flat_map(|r| r.curve.iter().map(|p| p.1))
            .fold(1.0f64, f64::max)
            * 1.05;
        let mut chart = ChartBuilder::on(&area)
            .caption(
                format!("{engine}, {conns} connection(s): rows/s as the table grows"),
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..max_x, 0f64..max_y)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("rows inserted")
            .y_desc("rows/s")
            .draw()
            .map_err(|e| e.to_string())?;
        for (i, r) in here.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            chart
                .draw_series(LineSeries::new(
                    r.curve.iter().map(|&(x, y)| (x as f64, y)),
                    color.stroke_width(2),
                ))
                .map_err(|e| e.to_string())?
                .label(r.key.name())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())
}
