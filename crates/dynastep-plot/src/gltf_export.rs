//! A spatial run's motion as glTF 2.0 (`dynastep export --format gltf`): one binary `.glb`
//! file that Blender, three.js, Windows' 3D Viewer and any glTF viewer open and play.
//!
//! Each body is a node with its mesh (the box of [`crate::shape`], or a point mass's sphere) in
//! its own colour; one animation moves every body node with a translation channel (the
//! centroid, `NAME.x/y/z` of `history.csv`) and a rotation channel (the Euler parameters,
//! normalized: glTF's quaternion (x, y, z, w) is (e1, e2, e3, e0)), sampled at every row of the
//! history (LINEAR: straight lines between rows, slerp for rotations). glTF's "up" is +y: the
//! body nodes hang under one root node whose rotation turns the model's up (against gravity)
//! onto +y, so that the bodies' own translations are the history's values.
//!
//! The format stores animation data in single precision (accessors of component type FLOAT, the
//! only one the specification allows for translations): a coordinate is the history's value
//! rounded to the nearest `f32`, a relative error of at most 6e-8 (60 nm on a metre). The JSON
//! is written with the `gltf-json` crate's types (the `gltf` crate's own schema), the binary
//! container by hand (a 12-byte header and two chunks).

use std::path::Path;

use gj::accessor::{ComponentType, GenericComponentType, Type};
use gj::animation::{Channel, Interpolation, Property, Sampler, Target};
use gj::validation::{Checked::Valid, USize64};
use gj::{Accessor, Index, Root};
use gltf_json as gj;
use nalgebra::{UnitQuaternion, Vector3};
use serde_json::json;

use crate::run_folder::RunFolder;
use crate::shape::BODY_COLOURS;
use crate::spatial_scene::SpatialScene;
use crate::PlotError;

/// What an export wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Exported {
    /// The number of body nodes (one per body of the model).
    pub bodies: usize,
    /// The number of frames (history rows) in the animation.
    pub frames: usize,
    /// History rows left out at the end: not finite, or not later than the row before.
    pub dropped: usize,
}

/// The binary buffer being built, and the accessors into it (one buffer view each).
struct Bin {
    data: Vec<u8>,
}

impl Bin {
    /// Appends `values` (`count` elements of `ty`) as a new view and accessor; min and max of
    /// each component when `bounds` (required for positions and animation times).
    fn push(&mut self, root: &mut Root, values: &[f32], ty: Type, bounds: bool) -> Index<Accessor> {
        let width = ty.multiplicity();
        let count = values.len() / width;
        let offset = self.data.len();
        for v in values {
            self.data.extend_from_slice(&v.to_le_bytes());
        }
        let view = root.push(gj::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(values.len() * 4),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: None,
            extensions: None,
            extras: Default::default(),
        });
        let (min, max) = if bounds {
            let component = |k: usize, pick: fn(f32, f32) -> f32| {
                values
                    .iter()
                    .skip(k)
                    .step_by(width)
                    .copied()
                    .reduce(pick)
                    .unwrap_or(0.0)
            };
            let lo: Vec<f32> = (0..width).map(|k| component(k, f32::min)).collect();
            let hi: Vec<f32> = (0..width).map(|k| component(k, f32::max)).collect();
            (Some(json!(lo)), Some(json!(hi)))
        } else {
            (None, None)
        };
        root.push(Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Valid(GenericComponentType(ComponentType::F32)),
            extensions: None,
            extras: Default::default(),
            type_: Valid(ty),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }
}

/// The mesh of body `b` as a glTF mesh of one primitive with its colour.
fn body_mesh(root: &mut Root, bin: &mut Bin, scene: &SpatialScene, b: usize) -> Index<gj::Mesh> {
    let body = &scene.bodies[b];
    let (positions, normals) = body.shape.mesh().flat_triangles();
    let flat = |v: Vec<[f32; 3]>| v.into_iter().flatten().collect::<Vec<f32>>();
    let positions = bin.push(root, &flat(positions), Type::Vec3, true);
    let normals = bin.push(root, &flat(normals), Type::Vec3, false);
    let [r, g, bl] = BODY_COLOURS[b % BODY_COLOURS.len()];
    // glTF colours are linear; the palette is sRGB.
    let linear = |c: u8| (((f32::from(c) / 255.0) + 0.055) / 1.055).powf(2.4);
    let material = root.push(gj::Material {
        name: Some(body.name.clone()),
        pbr_metallic_roughness: gj::material::PbrMetallicRoughness {
            base_color_factor: gj::material::PbrBaseColorFactor([
                linear(r),
                linear(g),
                linear(bl),
                1.0,
            ]),
            metallic_factor: gj::material::StrengthFactor(0.0),
            roughness_factor: gj::material::StrengthFactor(0.6),
            ..Default::default()
        },
        ..Default::default()
    });
    let primitive = gj::mesh::Primitive {
        attributes: [
            (Valid(gj::mesh::Semantic::Positions), positions),
            (Valid(gj::mesh::Semantic::Normals), normals),
        ]
        .into_iter()
        .collect(),
        extensions: None,
        extras: Default::default(),
        indices: None,
        material: Some(material),
        mode: Valid(gj::mesh::Mode::Triangles),
        targets: None,
    };
    root.push(gj::Mesh {
        extensions: None,
        extras: Default::default(),
        name: Some(body.name.clone()),
        primitives: vec![primitive],
        weights: None,
    })
}

/// The rotation that turns `up` onto glTF's +y.
fn up_to_y(up: [f64; 3]) -> UnitQuaternion<f64> {
    let up = Vector3::from(up);
    UnitQuaternion::rotation_between(&up, &Vector3::y()).unwrap_or_else(|| {
        // up = −y: half a turn about x.
        UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI)
    })
}

/// glTF's (x, y, z, w) of a rotation, in single precision.
fn xyzw(q: &UnitQuaternion<f64>) -> [f32; 4] {
    [q.i as f32, q.j as f32, q.k as f32, q.w as f32]
}

/// The translation and rotation outputs of body `b` over the first `n` rows, each quaternion's
/// sign chosen nearest the one before so that interpolation takes the short way.
fn body_track(scene: &SpatialScene, b: usize, n: usize) -> (Vec<f32>, Vec<f32>) {
    let mut translation = Vec::with_capacity(3 * n);
    let mut rotation = Vec::with_capacity(4 * n);
    let mut last: Option<UnitQuaternion<f64>> = None;
    for k in 0..n {
        let p = scene.bodies[b].poses[k];
        translation.extend([p[0] as f32, p[1] as f32, p[2] as f32]);
        let mut q = scene.rotation(b, k);
        if last.is_some_and(|l| l.coords.dot(&q.coords) < 0.0) {
            q = UnitQuaternion::new_unchecked(-q.into_inner());
        }
        rotation.extend(xyzw(&q));
        last = Some(q);
    }
    (translation, rotation)
}

/// The animation's channels and samplers, every sampler on the one time accessor `input`.
struct Tracks {
    input: Index<Accessor>,
    channels: Vec<Channel>,
    samplers: Vec<Sampler>,
}

impl Tracks {
    /// Animates `path` of `node` with the values of accessor `output`, interpolated linearly.
    fn add(&mut self, node: Index<gj::Node>, output: Index<Accessor>, path: Property) {
        let sampler = Index::push(
            &mut self.samplers,
            Sampler {
                input: self.input,
                interpolation: Valid(Interpolation::Linear),
                output,
                extensions: None,
                extras: Default::default(),
            },
        );
        self.channels.push(Channel {
            sampler,
            target: Target {
                node,
                path: Valid(path),
                extensions: None,
                extras: Default::default(),
            },
            extensions: None,
            extras: Default::default(),
        });
    }
}

/// The node of body `b`, with its mesh and its pose at the first row.
fn body_node(
    root: &mut Root,
    bin: &mut Bin,
    scene: &SpatialScene,
    b: usize,
    n: usize,
) -> Index<gj::Node> {
    let mesh = body_mesh(root, bin, scene, b);
    let (translation, rotation) = body_track(scene, b, n.min(1));
    root.push(gj::Node {
        mesh: Some(mesh),
        name: Some(scene.bodies[b].name.clone()),
        translation: Some([translation[0], translation[1], translation[2]]),
        rotation: Some(gj::scene::UnitQuaternion([
            rotation[0],
            rotation[1],
            rotation[2],
            rotation[3],
        ])),
        ..Default::default()
    })
}

/// The glTF document of a spatial `run` and its binary buffer (see the module documentation).
///
/// # Errors
/// [`PlotError::Data`] for a run that is not spatial, lacks `model.json` or a body's columns, or
/// has no finite first row.
pub fn gltf_document(run: &RunFolder) -> Result<(Root, Vec<u8>, Exported), PlotError> {
    let rows: Vec<usize> = (0..run.table.rows()).collect();
    let scene = SpatialScene::read(run, &rows, "the glTF export")?;
    let n = scene.usable_rows();
    if n == 0 {
        return Err(PlotError::Data(format!(
            "{}/history.csv has no row with finite poses to export",
            run.dir.display()
        )));
    }
    let mut root = Root {
        asset: gj::Asset {
            generator: Some(format!("dynastep {}", env!("CARGO_PKG_VERSION"))),
            version: "2.0".into(),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut bin = Bin { data: Vec::new() };
    let t0 = scene.t[0];
    let times: Vec<f32> = scene.t[..n].iter().map(|t| (t - t0) as f32).collect();
    let input = bin.push(&mut root, &times, Type::Scalar, true);
    let mut tracks = Tracks {
        input,
        channels: Vec::new(),
        samplers: Vec::new(),
    };
    let children = (0..scene.bodies.len())
        .map(|b| {
            let node = body_node(&mut root, &mut bin, &scene, b, n);
            let (translation, rotation) = body_track(&scene, b, n);
            let output = bin.push(&mut root, &translation, Type::Vec3, false);
            tracks.add(node, output, Property::Translation);
            let output = bin.push(&mut root, &rotation, Type::Vec4, false);
            tracks.add(node, output, Property::Rotation);
            node
        })
        .collect();
    let world = root.push(gj::Node {
        name: Some("dynastep world (model up turned to +y)".into()),
        rotation: Some(gj::scene::UnitQuaternion(xyzw(&up_to_y(scene.up)))),
        children: Some(children),
        ..Default::default()
    });
    root.push(gj::Animation {
        name: Some(run.title.clone()),
        channels: tracks.channels,
        samplers: tracks.samplers,
        extensions: None,
        extras: Default::default(),
    });
    let scene_index = root.push(gj::Scene {
        name: Some(run.title.clone()),
        nodes: vec![world],
        extensions: None,
        extras: Default::default(),
    });
    root.scene = Some(scene_index);
    root.push(gj::Buffer {
        byte_length: USize64::from(bin.data.len()),
        name: None,
        uri: None,
        extensions: None,
        extras: Default::default(),
    });
    let exported = Exported {
        bodies: scene.bodies.len(),
        frames: n,
        dropped: scene.t.len() - n,
    };
    Ok((root, bin.data, exported))
}

/// The binary glTF container of `json` and `bin`: header, JSON chunk padded with spaces, BIN
/// chunk padded with zeros (glTF 2.0, section 4.4).
pub fn glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let pad = |n: usize| (4 - n % 4) % 4;
    let (jl, bl) = (json.len() + pad(json.len()), bin.len() + pad(bin.len()));
    let total = 12 + 8 + jl + 8 + bl;
    let mut out = Vec::with_capacity(total);
    let word = |out: &mut Vec<u8>, w: u32| out.extend_from_slice(&w.to_le_bytes());
    word(&mut out, 0x4654_6C67); // "glTF"
    word(&mut out, 2);
    word(&mut out, total as u32);
    word(&mut out, jl as u32);
    word(&mut out, 0x4E4F_534A); // "JSON"
    out.extend_from_slice(json);
    out.resize(out.len() + pad(json.len()), b' ');
    word(&mut out, bl as u32);
    word(&mut out, 0x004E_4942); // "BIN\0"
    out.extend_from_slice(bin);
    out.resize(out.len() + pad(bin.len()), 0);
    out
}

/// Writes the motion of a spatial `run` to `path` as binary glTF (`.glb`).
///
/// # Errors
/// See [`gltf_document`]; [`PlotError::Io`] when the file cannot be written.
pub fn write_gltf(run: &RunFolder, path: &Path) -> Result<Exported, PlotError> {
    let (root, bin, exported) = gltf_document(run)?;
    let json = root
        .to_vec()
        .map_err(|e| PlotError::Data(format!("cannot write the glTF JSON: {e}")))?;
    crate::write_file(path, glb(&json, &bin))?;
    Ok(exported)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glb_chunks_are_aligned() {
        let g = glb(b"{}", &[1, 2, 3, 4, 5]);
        assert_eq!(g.len(), 12 + 8 + 4 + 8 + 8);
        assert_eq!(&g[0..4], b"glTF");
        assert_eq!(
            u32::from_le_bytes([g[8], g[9], g[10], g[11]]) as usize,
            g.len()
        );
        assert_eq!(&g[20..24], b"{}  ");
        assert_eq!(&g[28..32], b"BIN\0");
    }

    #[test]
    fn up_turns_onto_y() {
        for up in [
            [0.0, 0.0, 1.0],
            [0.0, -1.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.6, 0.0, 0.8],
        ] {
            let y = up_to_y(up) * Vector3::from(up);
            assert!((y - Vector3::y()).norm() < 1e-12, "{up:?}: {y}");
        }
    }
}
