//! The score-progression chart of a match, drawn on the server as SVG (the match page's
//! `<svg id="chart">`): the running score of both teams after each hand, from 0 before the
//! first, and the target as a dashed line. Every coordinate is ready to print.

/// A point of the chart.
pub struct Pt {
    pub hand: usize,
    pub x: String,
    pub y: String,
    pub score: i32,
}

/// A labelled tick of an axis.
pub struct Tick {
    pub at: String,
    pub label: String,
}

/// The chart's coordinates (a `viewBox` of `width` × `height`).
pub struct Chart {
    pub width: u32,
    pub height: u32,
    pub left: String,
    pub right: String,
    pub top: String,
    pub bottom: String,
    pub a_line: String,
    pub b_line: String,
    pub a_pts: Vec<Pt>,
    pub b_pts: Vec<Pt>,
    pub y_ticks: Vec<Tick>,
    pub x_ticks: Vec<Tick>,
    pub target_y: String,
    pub target: i32,
    pub zero_y: String,
}

/// A round step for the score axis: at most six steps over `span`.
fn nice_step(span: f64) -> f64 {
    for step in [
        10.0, 20.0, 25.0, 50.0, 100.0, 200.0, 250.0, 500.0, 1000.0, 2000.0,
    ] {
        if span / step <= 6.0 {
            return step;
        }
    }
    5000.0
}

impl Chart {
    /// The chart of the running scores `(a, b)` after each hand, toward `target`.
    pub fn new(scores: &[(i32, i32)], target: i32) -> Chart {
        const W: f64 = 400.0;
        const H: f64 = 250.0;
        let (left, right, top, bottom) = (44.0, W - 10.0, 16.0, H - 28.0);
        let lo = scores
            .iter()
            .flat_map(|(a, b)| [*a, *b])
            .chain([0])
            .min()
            .unwrap_or(0);
        let hi = scores
            .iter()
            .flat_map(|(a, b)| [*a, *b])
            .chain([target, 0])
            .max()
            .unwrap_or(target);
        let step = nice_step(f64::from(hi - lo).max(1.0));
        let lo = (f64::from(lo) / step).floor() * step;
        let hi = ((f64::from(hi) / step).ceil() * step).max(lo + step);
        let n = scores.len().max(1) as f64;
        let x = |i: usize| left + (right - left) * i as f64 / n;
        let y = |v: f64| bottom - (bottom - top) * (v - lo) / (hi - lo);
        let f = |v: f64| format!("{v:.1}");
        let mut a_line = format!("{},{}", f(x(0)), f(y(0.0)));
        let mut b_line = a_line.clone();
        let mut a_pts = Vec::new();
        let mut b_pts = Vec::new();
        for (i, (a, b)) in scores.iter().enumerate() {
            let (px, ya, yb) = (x(i + 1), y(f64::from(*a)), y(f64::from(*b)));
            a_line.push_str(&format!(" {},{}", f(px), f(ya)));
            b_line.push_str(&format!(" {},{}", f(px), f(yb)));
            a_pts.push(Pt {
                hand: i + 1,
                x: f(px),
                y: f(ya),
                score: *a,
            });
            b_pts.push(Pt {
                hand: i + 1,
                x: f(px),
                y: f(yb),
                score: *b,
            });
        }
        let mut y_ticks = Vec::new();
        let mut v = lo;
        while v <= hi + 0.5 {
            y_ticks.push(Tick {
                at: f(y(v)),
                label: format!("{v:.0}"),
            });
            v += step;
        }
        let every = scores.len().div_ceil(12).max(1);
        let x_ticks = (1..=scores.len())
            .filter(|i| i % every == 0 || *i == 1)
            .map(|i| Tick {
                at: f(x(i)),
                label: i.to_string(),
            })
            .collect();
        Chart {
            width: W as u32,
            height: H as u32,
            left: f(left),
            right: f(right),
            top: f(top),
            bottom: f(bottom),
            a_line,
            b_line,
            a_pts,
            b_pts,
            y_ticks,
            x_ticks,
            target_y: f(y(f64::from(target))),
            target,
            zero_y: f(y(0.0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_axis_covers_the_scores_and_the_target() {
        let c = Chart::new(&[(71, 41), (-120, 95)], 300);
        assert_eq!(c.a_pts.len(), 2);
        assert_eq!(c.y_ticks.first().map(|t| t.label.as_str()), Some("-200"));
        assert_eq!(c.y_ticks.last().map(|t| t.label.as_str()), Some("300"));
        assert!(c.a_line.starts_with("44.0,"));
        assert_eq!(c.x_ticks.len(), 2);
    }
}
