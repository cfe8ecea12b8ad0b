//! `dynastep export`: the spatial slider-crank's glTF file read back by an independent reader
//! (the `gltf` crate, which validates the document against the glTF 2.0 schema), with the
//! bodies' positions and orientations at three times equal to history.csv's; and the runs it
//! refuses, with a message.

use dynastep_plot::run_folder::RunFolder;
use gltf::animation::util::ReadOutputs;

mod common;
use common::{dynastep, scratch};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// Runs the embedded example `name` up to `t_end` into the folder `dir`; it must complete.
fn run_example(name: &str, t_end: &str, dir: &str) {
    let o = dynastep(&[
        "run",
        "--example",
        name,
        "--t-end",
        t_end,
        "--quiet",
        "--out",
        dir,
    ]);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
}

/// The translations (x, y, z) and rotations (x, y, z, w) of each body node, and the times, read
/// from a .glb file with the gltf crate.
struct Tracks {
    times: Vec<f32>,
    translation: std::collections::BTreeMap<String, Vec<[f32; 3]>>,
    rotation: std::collections::BTreeMap<String, Vec<[f32; 4]>>,
    nodes: usize,
    meshes: usize,
}

fn read_back(bytes: &[u8]) -> Tracks {
    let g = gltf::Gltf::from_slice(bytes).expect("a valid glTF 2.0 binary");
    let blob = g.blob.as_deref().expect("a BIN chunk");
    let animation = g.animations().next().expect("one animation");
    let mut tracks = Tracks {
        times: Vec::new(),
        translation: Default::default(),
        rotation: Default::default(),
        nodes: g.nodes().count(),
        meshes: g.meshes().count(),
    };
    for channel in animation.channels() {
        let name = channel.target().node().name().unwrap_or("").to_string();
        let reader = channel.reader(|_| Some(blob));
        tracks.times = reader.read_inputs().expect("times").collect();
        match reader.read_outputs().expect("values") {
            ReadOutputs::Translations(v) => {
                tracks.translation.insert(name, v.collect());
            }
            ReadOutputs::Rotations(v) => {
                tracks.rotation.insert(name, v.into_f32().collect());
            }
            _ => panic!("only translations and rotations are animated"),
        }
    }
    tracks
}

#[test]
fn the_spatial_slider_crank_exports_to_gltf_with_the_history_s_poses() {
    let out = scratch("export");
    let dir = out.to_str().unwrap();
    run_example("spatial-slider-crank", "0.5", dir);
    let o = dynastep(&["export", dir, "--format", "gltf"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let tracks = read_back(&std::fs::read(out.join("motion.glb")).unwrap());
    let run = RunFolder::open(&out).unwrap();
    let rows = run.table.rows();
    let bodies = ["crank", "rod", "slider"];
    // One node per body under one root node; one mesh per body; every row a key frame.
    assert_eq!(
        (tracks.nodes, tracks.meshes),
        (bodies.len() + 1, bodies.len())
    );
    assert_eq!(tracks.times.len(), rows);
    assert_eq!(tracks.translation.len(), bodies.len());
    let t = run.table.t();
    for k in [0, rows / 2, rows - 1] {
        assert_eq!(tracks.times[k], (t[k] - t[0]) as f32);
        for body in bodies {
            let col = |c: &str| run.table.column(&format!("{body}.{c}")).unwrap()[k];
            // glTF stores single precision: the history's value rounded to the nearest f32,
            // exactly, which is within 6e-8 of it relative.
            let p = tracks.translation[body][k];
            for (i, c) in ["x", "y", "z"].into_iter().enumerate() {
                assert_eq!(p[i], col(c) as f32, "{body}.{c} at row {k}");
                let err = (f64::from(p[i]) - col(c)).abs();
                assert!(err <= 6e-8 * col(c).abs().max(1e-3), "{body}.{c}: {err:e}");
            }
            let e = [col("e1"), col("e2"), col("e3"), col("e0")];
            let n = e.iter().map(|x| x * x).sum::<f64>().sqrt();
            let q = tracks.rotation[body][k];
            // A quaternion and its negative are one rotation; the export keeps the sign
            // continuous from row to row.
            let dot: f64 = (0..4).map(|i| f64::from(q[i]) * e[i]).sum();
            let sign = dot.signum();
            for i in 0..4 {
                let err = (f64::from(q[i]) - sign * e[i] / n).abs();
                assert!(err < 1e-7, "{body} rotation at row {k}: {q:?} vs {e:?}");
            }
        }
    }
}

#[test]
fn export_refuses_what_it_cannot_write_with_a_message() {
    // A planar run.
    let out = scratch("export-planar");
    let dir = out.to_str().unwrap();
    run_example("pendulum", "0.1", dir);
    for format in ["gltf", "vtk"] {
        let o = dynastep(&["export", dir, "--format", format]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("spatial runs only"), "{}", stderr(&o));
    }
    assert!(!out.join("motion.glb").exists());
    assert!(!out.join("motion.pvd").exists() && !out.join("motion").exists());
    // A folder without model.json.
    std::fs::remove_file(out.join("model.json")).unwrap();
    let o = dynastep(&["export", dir]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("has no model.json"), "{}", stderr(&o));
    // An unknown format is refused by the argument parser, naming the ones there are.
    let o = dynastep(&["export", dir, "--format", "rrd"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("gltf") && stderr(&o).contains("vtk"),
        "{}",
        stderr(&o)
    );
}

/// A body's `shape` in the model file is what is drawn: the spatial top is a disc of radius
/// 0.1414 m and thickness 0.01 m about its body z axis, not the box of its inertia; a shape with
/// a negative size is refused at its line and column.
#[test]
fn the_shape_a_model_gives_a_body_is_exported() {
    let out = scratch("export-shape");
    let dir = out.to_str().unwrap();
    run_example("spatial-top", "0.05", dir);
    let o = dynastep(&["export", dir]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(out.join("motion.glb")).unwrap();
    let g = gltf::Gltf::from_slice(&bytes).unwrap();
    let mesh = g.meshes().next().unwrap();
    let bounds = mesh.primitives().next().unwrap().bounding_box();
    for (k, extent) in [0.1414f32, 0.1414, 0.005].into_iter().enumerate() {
        assert!((bounds.max[k] - extent).abs() < 1e-6, "{bounds:?}");
        assert!((bounds.min[k] + extent).abs() < 1e-6, "{bounds:?}");
    }
    let text = dynastep::examples::EXAMPLES
        .iter()
        .find(|e| e.name == "spatial-top")
        .unwrap()
        .text
        .replace("radius = 0.1414", "radius = -0.1");
    let model = out.join("bad.toml");
    std::fs::write(&model, text).unwrap();
    let o = dynastep(&["check", model.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("radius must be positive and finite, got -0.1"),
        "{}",
        stderr(&o)
    );
}

/// A spatial run folder whose history lacks a body's pose column (a history from another model,
/// or cut by hand) is refused by the 3-D player and the export with the column named, not a
/// panic.
#[test]
fn a_history_without_a_body_s_columns_is_refused_by_name() {
    let out = scratch("export-columns");
    let dir = out.to_str().unwrap();
    run_example("spatial-top", "0.05", dir);
    let path = out.join("history.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let drop = text
        .lines()
        .next()
        .unwrap()
        .split(',')
        .position(|c| c == "top.e3")
        .unwrap();
    let cut: Vec<String> = text
        .lines()
        .map(|l| {
            let mut cells: Vec<&str> = l.split(',').collect();
            cells.remove(drop);
            cells.join(",")
        })
        .collect();
    std::fs::write(&path, cut.join("\n") + "\n").unwrap();
    for command in ["animate", "export"] {
        let o = dynastep(&[command, dir]);
        assert_eq!(o.status.code(), Some(2), "{command}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("has no column top.e3 for body `top`"),
            "{command}: {}",
            stderr(&o)
        );
    }
}
