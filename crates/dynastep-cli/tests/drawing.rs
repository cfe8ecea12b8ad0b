//! `dynastep plot`, `run --plot`, `compare` and `animate` as a user meets them: every embedded
//! example gets its default panels and its animation, a failed run is still drawn up to where it
//! stopped, the work–precision sweep of Andrews' squeezer converges at each scheme's order, the
//! HTML player renders the double four-bar and an equation-based run in headless Chromium, and
//! the 3-D player renders Bricard's mechanism and the spatial slider-crank and moves them.

use std::path::Path;
use std::process::{Command, Output};

use dynastep::model::inventory::ModelKind;
use dynastep::system::multibody::Multibody;
use dynastep::system::System;
use dynastep_plot::run_folder::RunFolder;
use dynastep_plot::time_history::default_panels;

mod common;
use common::{dynastep, scratch};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn nonempty(path: &Path, min: u64) {
    let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    assert!(len > min, "{} has {len} bytes", path.display());
}

#[test]
fn run_plot_draws_the_default_panels_of_every_example() {
    for ex in dynastep::examples::EXAMPLES {
        let model = dynastep::model::parse::from_str(ex.text, ex.file).unwrap();
        let t_end = format!("{}", model.solver.t_end.unwrap() / 20.0);
        let out = scratch(ex.name);
        let dir = out.to_str().unwrap();
        let o = dynastep(&[
            "run",
            "--example",
            ex.name,
            "--t-end",
            &t_end,
            "--quiet",
            "--plot",
            "--out",
            dir,
        ]);
        assert!(o.status.success(), "{}: {}", ex.name, stderr(&o));
        nonempty(&out.join("plot.png"), 10_000);
        nonempty(&out.join("plot.svg"), 10_000);
        // Energy balance, constraint violations (none without constraints) and trajectories (or,
        // for an equation-based model, its coordinates).
        let run = RunFolder::open(&out).unwrap();
        let titles: Vec<String> = default_panels(&run).into_iter().map(|p| p.title).collect();
        // A spatial run's trajectories are three projections side by side.
        let constrained = Multibody::new(&model).unwrap().m() > 0;
        let panels = match model.kind() {
            ModelKind::Spatial => 4,
            ModelKind::Planar | ModelKind::Equations => 2,
        } + usize::from(constrained);
        assert_eq!(titles.len(), panels, "{}: {titles:?}", ex.name);
        // An equation-based model has coordinates instead of bodies.
        let pattern = match &model.equations {
            Some(e) => e.coordinates[0].clone(),
            None => "*.x".to_string(),
        };
        let o = dynastep(&["plot", dir, "--columns", &pattern, "--name", "x"]);
        assert!(o.status.success(), "{}: {}", ex.name, stderr(&o));
        nonempty(&out.join("x.png"), 5_000);
        // Every example can be animated: planar and equation-based runs by the planar player
        // (an equation-based run's coordinates against time), spatial runs in 3-D.
        let o = dynastep(&["animate", dir]);
        assert!(o.status.success(), "{}: {}", ex.name, stderr(&o));
        nonempty(&out.join("animation.html"), 10_000);
    }
}

/// A spherical pendulum with no marker, swinging out of every coordinate plane.
const SPATIAL_NO_MARKERS: &str = r#"
name = "spherical pendulum without markers"

[spatial]
gravity = [0.0, 0.0, -9.81]

[[spatial.bodies]]
name = "bob"
mass = 1.0
inertia = [0.01, 0.01, 0.01]
position = [0.6, 0.0, -0.8]
velocity = [0.0, 1.5, 0.0]

[[spatial.joints]]
name = "pivot"
type = "spherical"
body_i = "ground"
body_j = "bob"
at = [0.0, 0.0, 0.0]

[solver]
scheme = "generalized-alpha"
dt = 1e-3
t_end = 1.0
output_interval = 0.01
"#;

/// `plot` draws a spatial run without markers: its bodies' centroids in three projections side
/// by side (the issue that found none), each point the history's centroid columns.
#[test]
fn plot_draws_a_spatial_run_without_markers_in_three_projections() {
    let out = scratch("spatial-no-markers");
    let model = out.join("model.toml");
    std::fs::write(&model, SPATIAL_NO_MARKERS).unwrap();
    let dir = out.join("run");
    let o = dynastep(&[
        "run",
        model.to_str().unwrap(),
        "--quiet",
        "--plot",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    nonempty(&dir.join("plot.png"), 10_000);
    let run = RunFolder::open(&dir).unwrap();
    let panels = default_panels(&run);
    let projections: Vec<_> = panels.iter().filter(|p| p.equal_aspect).collect();
    assert_eq!(
        projections.len(),
        3,
        "{:?}",
        panels.iter().map(|p| &p.title).collect::<Vec<_>>()
    );
    let col = |c: &str| run.table.column(&format!("bob.{c}")).unwrap();
    for (p, (a, b), beside) in [
        (projections[0], ("x", "y"), false),
        (projections[1], ("x", "z"), true),
        (projections[2], ("y", "z"), true),
    ] {
        assert_eq!(p.beside, beside, "{}", p.title);
        assert_eq!(p.series.len(), 1, "{}", p.title);
        assert_eq!(p.series[0].label, "bob");
        let expected: Vec<(f64, f64)> =
            col(a).iter().copied().zip(col(b).iter().copied()).collect();
        assert_eq!(p.series[0].points, expected, "{}", p.title);
        // The bob leaves every coordinate plane: each projection spans a range in both axes.
        let span = |f: fn(&(f64, f64)) -> f64| {
            let v: Vec<f64> = expected.iter().map(f).collect();
            v.iter().copied().fold(f64::MIN, f64::max) - v.iter().copied().fold(f64::MAX, f64::min)
        };
        assert!(span(|q| q.0) > 0.05 && span(|q| q.1) > 0.05, "{}", p.title);
    }
}

#[test]
fn a_failed_run_is_drawn_up_to_where_it_stopped() {
    let out = scratch("failed");
    let dir = out.to_str().unwrap();
    // The light cart-pole with steps of at least 1e-3 s cannot pass the first vertical passage.
    let o = dynastep(&[
        "run",
        "--example",
        "light-cartpole",
        "--rtol",
        "1e-8",
        "--h-min",
        "1e-3",
        "--dt",
        "1e-3",
        "--quiet",
        "--plot",
        "--out",
        dir,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    nonempty(&out.join("plot.png"), 10_000);
    let o = dynastep(&["plot", dir]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the run failed at t = "),
        "{}",
        stderr(&o)
    );
    let o = dynastep(&["animate", dir]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(out.join("animation.html")).unwrap();
    assert!(html.contains("\"stopped\":\"the run failed at t = "));
    // A folder without a history is a clear error, not a panic.
    let empty = scratch("empty");
    let o = dynastep(&["plot", empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("history.csv"), "{}", stderr(&o));
}

#[test]
fn compare_andrews_converges_at_each_schemes_order() {
    let out = scratch("compare");
    let o = dynastep(&[
        "compare",
        "--example",
        "andrews",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    nonempty(&out.join("work-precision.png"), 20_000);
    nonempty(&out.join("work-precision.svg"), 20_000);
    let text = stderr(&o);
    let floor: f64 = text
        .split("its own error about ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .and_then(|s| s.parse().ok())
        .expect("the reference's own error is reported");
    let mut reader = csv::Reader::from_path(out.join("compare.csv")).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    let mut schemes: Vec<String> = rows.iter().map(|r| r[1].to_string()).collect();
    schemes.dedup();
    assert!(schemes.len() >= 5, "{schemes:?}");
    for s in &schemes {
        let mine: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| &r[1] == s)
            .map(|r| {
                assert_eq!(&r[9], "completed", "{s}: {}", &r[10]);
                (r[3].parse().unwrap(), r[4].parse().unwrap())
            })
            .collect();
        assert!(mine.len() >= 4, "{s}");
        // Every error is far above the reference's own, and falls at order 2 or more (the
        // positions of every scheme converge at order 2 in index 3; the third-order ESDIRK and the
        // multi-sub-step schemes are still above their asymptote at these steps).
        for w in mine.windows(2) {
            let ((h0, e0), (h1, e1)) = (w[0], w[1]);
            assert!(
                e1 > 20.0 * floor,
                "{s}: error {e1:e} near the reference's {floor:e}"
            );
            let p = (e1 / e0).ln() / (h1 / h0).ln();
            assert!(
                (1.8..3.2).contains(&p),
                "{s}: observed order {p:.2} between h = {h0:e} and {h1:e}"
            );
        }
    }
}

/// Chromium, if installed (Debian's package); CI installs it (.ci/run).
fn chromium() -> Option<&'static str> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| Path::new(p).exists())
}

/// Runs headless Chromium with `args`, each call with a profile folder of its own (two
/// Chromiums on one profile refuse to start, and the tests run in parallel).
fn headless(args: &[&str]) -> Output {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let profile = scratch(&format!("chromium-profile-{n}"));
    let mut cmd = Command::new(chromium().unwrap());
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--virtual-time-budget=2000",
    ]);
    cmd.arg(format!("--user-data-dir={}", profile.display()));
    cmd.args(args).output().expect("chromium runs")
}

/// Whether Chromium is there to run a page test; CI must have it.
fn have_chromium() -> bool {
    if chromium().is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install Debian's chromium for this test (.ci/run does)"
        );
        eprintln!("skipped: no /usr/bin/chromium (apt-get install chromium)");
        return false;
    }
    true
}

/// A screenshot's pixels (RGB), row by row.
struct Shot {
    width: usize,
    pixels: Vec<[u8; 3]>,
}

/// Takes a screenshot of `url` in a window of `size` into `path` and reads it back.
fn screenshot(url: &str, path: &Path, size: (u32, u32)) -> Shot {
    let o = headless(&[
        &format!("--window-size={},{}", size.0, size.1),
        &format!("--screenshot={}", path.display()),
        url,
    ]);
    assert!(path.exists(), "{}", stderr(&o));
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let pixels = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    Shot {
        width: info.width as usize,
        pixels,
    }
}

/// The `<body …>` tag of `url` after the page ran (and played, unless `#pause`) for two seconds
/// of virtual time; fails when the page did not draw or logged an error.
fn body_after_load(url: &str) -> String {
    let dom = headless(&["--dump-dom", url]);
    let dom = String::from_utf8_lossy(&dom.stdout).to_string();
    let body = dom
        .split("<body")
        .nth(1)
        .and_then(|s| s.split('>').next())
        .unwrap_or("")
        .to_string();
    assert!(
        body.contains("data-ready=\"1\""),
        "{url}: the page did not draw: <body{body}>"
    );
    assert!(
        !body.contains("data-errors"),
        "{url}: JavaScript errors: {dom}"
    );
    body
}

#[test]
fn the_player_renders_the_double_fourbar_in_headless_chromium() {
    if !have_chromium() {
        return;
    }
    let out = scratch("animate");
    let dir = out.to_str().unwrap();
    let o = dynastep(&[
        "run",
        "--example",
        "double-fourbar",
        "--t-end",
        "2",
        "--quiet",
        "--out",
        dir,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = dynastep(&["animate", dir]);
    assert!(o.status.success(), "{}", stderr(&o));
    let url = format!("file://{}/animation.html#pause", dir);
    body_after_load(&url);
    // An equation-based run: its coordinates against time, playing without a JavaScript error.
    let top = scratch("animate-equations");
    let o = dynastep(&[
        "run",
        "--example",
        "spinning-top",
        "--t-end",
        "1",
        "--quiet",
        "--out",
        top.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = dynastep(&["animate", top.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    body_after_load(&format!("file://{}/animation.html", top.display()));
    let shot = screenshot(&url, &out.join("shot.png"), (900, 800));
    // The three cranks are drawn in the player's first three colours (#1f77b4, #d62728, #2ca02c).
    for (r, g, b) in [(31, 119, 180), (214, 39, 40), (44, 160, 44)] {
        let close = |p: &[u8; 3]| {
            (i32::from(p[0]) - r).abs() <= 8
                && (i32::from(p[1]) - g).abs() <= 8
                && (i32::from(p[2]) - b).abs() <= 8
        };
        let count = shot.pixels.iter().filter(|p| close(p)).count();
        assert!(
            count > 300,
            "only {count} pixels of colour ({r}, {g}, {b}): the mechanism is not drawn"
        );
    }
}

/// Pixels that are clearly coloured (a body's shade), not white, grey or black.
fn coloured(p: &[u8; 3]) -> bool {
    let (lo, hi) = (p.iter().min().unwrap(), p.iter().max().unwrap());
    hi - lo > 60
}

/// The 3-D player of a spatial example: the page draws and plays without a JavaScript error, the
/// bodies are drawn in colour, and between two times the view changes where the mechanism moved
/// (below the page's top bar of controls).
fn the_3d_player_moves(example: &str, t_end: &str, later: &str) {
    let out = scratch(&format!("animate3d-{example}"));
    let dir = out.to_str().unwrap();
    let o = dynastep(&[
        "run",
        "--example",
        example,
        "--t-end",
        t_end,
        "--quiet",
        "--out",
        dir,
    ]);
    assert!(o.status.success(), "{example}: {}", stderr(&o));
    let o = dynastep(&["animate", dir]);
    assert!(o.status.success(), "{example}: {}", stderr(&o));
    let page = format!("file://{dir}/animation.html");
    // Playing for two seconds of virtual time, then paused at two times.
    body_after_load(&page);
    body_after_load(&format!("{page}#pause"));
    let first = screenshot(&format!("{page}#pause"), &out.join("t0.png"), (1000, 750));
    let second = screenshot(
        &format!("{page}#t={later}"),
        &out.join("t1.png"),
        (1000, 750),
    );
    let view = 130 * first.width; // below the top bar
    for (name, shot) in [("t = 0", &first), (later, &second)] {
        let n = shot.pixels[view..].iter().filter(|p| coloured(p)).count();
        assert!(
            n > 2000,
            "{example} at {name}: only {n} coloured pixels: the bodies are not drawn"
        );
    }
    let moved = first.pixels[view..]
        .iter()
        .zip(&second.pixels[view..])
        .filter(|(a, b)| (coloured(a) || coloured(b)) && a != b)
        .count();
    assert!(
        moved > 500,
        "{example}: only {moved} pixels of the bodies changed between t = 0 and {later}"
    );
}

#[test]
fn the_3d_player_renders_and_moves_bricard_and_the_spatial_slider_crank() {
    if !have_chromium() {
        return;
    }
    the_3d_player_moves("bricard", "1.5", "1.5");
    the_3d_player_moves("spatial-slider-crank", "0.5", "0.5");
}
