//! A spatial run's motion as a VTK time series (`dynastep export --format vtk`): a ParaView
//! collection file `NAME.pvd` and one unstructured-grid file `NAME/frame_KKKKKK.vtu` per history
//! row, in double precision.
//!
//! Each frame holds, in this order:
//! - one point per body at its centroid (`NAME.x/y/z` of `history.csv`, the same `f64` values,
//!   written with the shortest text that reads back to them), each a VTK_VERTEX cell;
//! - the vertices of each body's drawn shape (the box of [`crate::shape`], its cylinder or sphere)
//!   placed with the body's pose, and its faces as VTK_POLYGON cells.
//!
//! Point data: `euler_parameters` (e0, e1, e2, e3, the history's values; (1, 0, 0, 0) for a point
//! mass) and `body` (the body's index in the model's list, also given as cell data). The
//! collection's `timestep` is the history's time \[s\]. Coordinates are the model's: ParaView
//! shows them as they are, with no turn of the up axis.
//!
//! Unlike glTF, whose animation data are single precision, this export keeps every digit: it is
//! the one to read back when the numbers matter. The XML is written with the `quick-xml` crate's
//! serializer from the structs below (VTK's XML file formats, VTK User's Guide, 11th ed., ch. 19).

use std::path::{Path, PathBuf};

use nalgebra::Vector3;
use serde::Serialize;

use crate::gltf_export::Exported;
use crate::run_folder::RunFolder;
use crate::spatial_scene::SpatialScene;
use crate::PlotError;

/// VTK's cell type numbers (vtkCellType.h).
const VTK_VERTEX: u8 = 1;
const VTK_POLYGON: u8 = 7;

/// `<VTKFile>`: the root element of both file kinds.
#[derive(Serialize)]
#[serde(rename = "VTKFile")]
struct VtkFile {
    #[serde(rename = "@type")]
    kind: &'static str,
    #[serde(rename = "@version")]
    version: &'static str,
    #[serde(rename = "@byte_order")]
    byte_order: &'static str,
    #[serde(rename = "$value")]
    content: Content,
}

/// What a `<VTKFile>` holds.
#[derive(Serialize)]
enum Content {
    UnstructuredGrid {
        #[serde(rename = "Piece")]
        piece: Piece,
    },
    Collection {
        #[serde(rename = "DataSet")]
        data_sets: Vec<DataSet>,
    },
}

/// One entry of a `.pvd` collection: the file of one time.
#[derive(Serialize)]
struct DataSet {
    #[serde(rename = "@timestep")]
    timestep: String,
    #[serde(rename = "@part")]
    part: u32,
    #[serde(rename = "@file")]
    file: String,
}

/// `<Piece>` of an unstructured grid.
#[derive(Serialize)]
struct Piece {
    #[serde(rename = "@NumberOfPoints")]
    points: usize,
    #[serde(rename = "@NumberOfCells")]
    cells: usize,
    #[serde(rename = "PointData")]
    point_data: Arrays,
    #[serde(rename = "CellData")]
    cell_data: Arrays,
    #[serde(rename = "Points")]
    coordinates: Arrays,
    #[serde(rename = "Cells")]
    connectivity: Arrays,
}

/// A list of `<DataArray>` elements.
#[derive(Serialize)]
struct Arrays {
    #[serde(rename = "DataArray")]
    arrays: Vec<DataArray>,
}

/// `<DataArray>` in ASCII: the values separated by spaces.
#[derive(Serialize)]
struct DataArray {
    #[serde(rename = "@type")]
    kind: &'static str,
    #[serde(rename = "@Name")]
    name: &'static str,
    #[serde(rename = "@NumberOfComponents")]
    components: usize,
    #[serde(rename = "@format")]
    format: &'static str,
    #[serde(rename = "$text")]
    values: String,
}

impl DataArray {
    /// An array named `name` of `kind` (e.g. "Float64") with `components` per tuple.
    fn new(kind: &'static str, name: &'static str, components: usize, values: String) -> Self {
        DataArray {
            kind,
            name,
            components,
            format: "ascii",
            values,
        }
    }
}

/// `values` as text: each `f64` in its shortest form that reads back to the same number.
fn float_text(values: &[f64]) -> String {
    let mut buffer = ryu::Buffer::new();
    let mut text = String::with_capacity(values.len() * 20);
    for (i, &v) in values.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(buffer.format(v));
    }
    text
}

/// `values` as text, separated by spaces.
fn int_text<T: ToString>(values: &[T]) -> String {
    values
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The grid of frame `k` of `scene` (see the module documentation).
fn frame(scene: &SpatialScene, k: usize) -> Piece {
    let n = scene.bodies.len();
    let (mut xyz, mut euler, mut body) = (Vec::new(), Vec::new(), Vec::new());
    let (mut connectivity, mut offsets, mut types, mut cell_body) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (b, sb) in scene.bodies.iter().enumerate() {
        let p = sb.poses[k];
        xyz.extend_from_slice(&p[..3]);
        euler.extend_from_slice(&p[3..]);
        body.push(b as i32);
        connectivity.push(b as i64);
        offsets.push(connectivity.len() as i64);
        types.push(VTK_VERTEX);
        cell_body.push(b as i32);
    }
    let mut next = n as i64;
    for (b, sb) in scene.bodies.iter().enumerate() {
        let p = sb.poses[k];
        let (centroid, rotation) = (Vector3::new(p[0], p[1], p[2]), scene.rotation(b, k));
        let mesh = sb.shape.mesh();
        for v in &mesh.vertices {
            xyz.extend((centroid + rotation * Vector3::from(*v)).iter());
            euler.extend_from_slice(&p[3..]);
            body.push(b as i32);
        }
        for face in &mesh.faces {
            connectivity.extend(face.iter().map(|&v| next + i64::from(v)));
            offsets.push(connectivity.len() as i64);
            types.push(VTK_POLYGON);
            cell_body.push(b as i32);
        }
        next += mesh.vertices.len() as i64;
    }
    Piece {
        points: body.len(),
        cells: types.len(),
        point_data: Arrays {
            arrays: vec![
                DataArray::new("Float64", "euler_parameters", 4, float_text(&euler)),
                DataArray::new("Int32", "body", 1, int_text(&body)),
            ],
        },
        cell_data: Arrays {
            arrays: vec![DataArray::new("Int32", "body", 1, int_text(&cell_body))],
        },
        coordinates: Arrays {
            arrays: vec![DataArray::new("Float64", "Points", 3, float_text(&xyz))],
        },
        connectivity: Arrays {
            arrays: vec![
                DataArray::new("Int64", "connectivity", 1, int_text(&connectivity)),
                DataArray::new("Int64", "offsets", 1, int_text(&offsets)),
                DataArray::new("UInt8", "types", 1, int_text(&types)),
            ],
        },
    }
}

/// `content` as a VTK XML file with its declaration.
fn xml(kind: &'static str, content: Content) -> Result<String, PlotError> {
    let file = VtkFile {
        kind,
        version: "1.0",
        byte_order: "LittleEndian",
        content,
    };
    let mut text = String::from("<?xml version=\"1.0\"?>\n");
    let mut serializer = quick_xml::se::Serializer::new(&mut text);
    serializer.indent(' ', 1);
    file.serialize(serializer)
        .map_err(|e| PlotError::Data(format!("cannot write the VTK XML: {e}")))?;
    text.push('\n');
    Ok(text)
}

/// Writes the motion of a spatial `run` as the collection `pvd` (e.g. `DIR/motion.pvd`) and its
/// frames in the folder beside it named after its stem (`DIR/motion/frame_000000.vtu`, …).
/// Rows after the first one with a non-finite pose or time, or a time not later than the one
/// before, are left out (counted in [`Exported::dropped`]).
///
/// # Errors
/// [`PlotError::Data`] for a run that is not spatial, lacks `model.json` or a body's columns, or
/// has no finite first row; [`PlotError::Io`] when a file cannot be written.
pub fn write_vtk(run: &RunFolder, pvd: &Path) -> Result<Exported, PlotError> {
    let rows: Vec<usize> = (0..run.table.rows()).collect();
    let scene = SpatialScene::read(run, &rows, "the VTK export")?;
    let n = scene.usable_rows();
    if n == 0 {
        return Err(PlotError::Data(format!(
            "{}/history.csv has no row with finite poses to export",
            run.dir.display()
        )));
    }
    let stem = pvd
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "motion".into());
    let folder: PathBuf = pvd.with_file_name(&stem);
    std::fs::create_dir_all(&folder).map_err(|e| PlotError::io(&folder, e))?;
    let mut data_sets = Vec::with_capacity(n);
    for k in 0..n {
        let name = format!("frame_{k:06}.vtu");
        let text = xml(
            "UnstructuredGrid",
            Content::UnstructuredGrid {
                piece: frame(&scene, k),
            },
        )?;
        crate::write_file(&folder.join(&name), text)?;
        data_sets.push(DataSet {
            timestep: ryu::Buffer::new().format(scene.t[k]).to_owned(),
            part: 0,
            file: format!("{stem}/{name}"),
        });
    }
    crate::write_file(pvd, xml("Collection", Content::Collection { data_sets })?)?;
    Ok(Exported {
        bodies: scene.bodies.len(),
        frames: n,
        dropped: scene.t.len() - n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_so_that_they_read_back_exactly() {
        let values = [
            0.1,
            1.0 / 3.0,
            -0.0,
            1e-300,
            f64::MAX,
            f64::MIN_POSITIVE,
            -2.5e17,
            std::f64::consts::PI,
        ];
        let text = float_text(&values);
        let back: Vec<f64> = text.split(' ').map(|w| w.parse().unwrap()).collect();
        assert_eq!(back.len(), values.len());
        for (a, b) in values.iter().zip(&back) {
            assert_eq!(a.to_bits(), b.to_bits(), "{text}");
        }
    }

    #[test]
    fn the_collection_is_well_formed_xml_with_its_attributes() {
        let text = xml(
            "Collection",
            Content::Collection {
                data_sets: vec![DataSet {
                    timestep: "0.5".into(),
                    part: 0,
                    file: "motion/frame_000001.vtu".into(),
                }],
            },
        )
        .unwrap();
        assert!(
            text.starts_with("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\""),
            "{text}"
        );
        assert!(text.contains("<Collection>"), "{text}");
        assert!(
            text.contains(r#"<DataSet timestep="0.5" part="0" file="motion/frame_000001.vtu"/>"#),
            "{text}"
        );
    }
}
