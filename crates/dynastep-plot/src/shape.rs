//! The shapes drawn for spatial bodies (the 3-D player and the glTF export): the body's `shape`
//! from the model file when it gives one (box, cylinder, sphere), else the uniform box with its
//! mass and inertia, and a small sphere for a point mass.
//!
//! A uniform box of mass m and edges l_x, l_y, l_z has the principal moments
//! I_x = m (l_y² + l_z²) / 12 (and cyclically), so the box with a body's principal moments has
//!
//! ```text
//! l_x = √(6 (I_y + I_z − I_x) / m),  l_y = √(6 (I_z + I_x − I_y) / m),  l_z = √(6 (I_x + I_y − I_z) / m)
//! ```
//!
//! along the principal axes (the eigenvectors of the inertia tensor in body axes). The triangle
//! inequality that the model checks makes every radicand non-negative. A slender rod of length L
//! (I = m L²/12 about its cross axes, 0 about its own) comes out as a box of length exactly L, so
//! that joints at its ends sit on its end faces. A lamina or a rod has an edge of zero; each edge
//! is drawn at least [`MIN_EDGE_RATIO`] times the longest one, so that nothing is infinitely thin.

use dynastep::model::spatial::{BodyAxis, ShapeSpec};
use nalgebra::{Matrix3, Vector3};

/// The colours of bodies, cycled by body index: the players' palette (`#1f77b4`, `#d62728`,
/// …, as `PALETTE` in `assets/player3d.html`), so that a body has one colour on the page and in
/// the glTF export.
pub const BODY_COLOURS: [[u8; 3]; 10] = [
    [0x1f, 0x77, 0xb4],
    [0xd6, 0x27, 0x28],
    [0x2c, 0xa0, 0x2c],
    [0xff, 0x7f, 0x0e],
    [0x94, 0x67, 0xbd],
    [0x8c, 0x56, 0x4b],
    [0xe3, 0x77, 0xc2],
    [0x17, 0xbe, 0xcf],
    [0xbc, 0xbd, 0x22],
    [0x7f, 0x7f, 0x7f],
];

/// The shortest edge drawn, as a fraction of the body's longest edge.
pub const MIN_EDGE_RATIO: f64 = 0.05;

/// A body's shape in its body frame (origin at the centroid).
#[derive(Debug, Clone, PartialEq)]
pub enum BodyShape {
    /// A box: half edges \[m\] along the columns of `axes`, the principal axes in body axes
    /// (a rotation matrix, determinant +1).
    Box {
        /// Half the edge lengths \[m\].
        half: [f64; 3],
        /// The principal axes in body axes, as the columns of a rotation matrix.
        axes: Matrix3<f64>,
    },
    /// A sphere of this radius \[m\] (a point mass, which has no inertia to size a box from).
    Sphere {
        /// The radius \[m\].
        radius: f64,
    },
    /// A cylinder about the third column of `axes` (a rotation matrix in body axes).
    Cylinder {
        /// The radius \[m\].
        radius: f64,
        /// Half the length \[m\].
        half_length: f64,
        /// Its axis is the third column.
        axes: Matrix3<f64>,
    },
}

/// The shape a model file gives a body (`shape = { type = "box", … }`).
pub fn from_spec(spec: &ShapeSpec) -> BodyShape {
    match *spec {
        ShapeSpec::Box { size } => BodyShape::Box {
            half: size.map(|l| 0.5 * l),
            axes: Matrix3::identity(),
        },
        ShapeSpec::Sphere { radius } => BodyShape::Sphere { radius },
        ShapeSpec::Cylinder {
            radius,
            length,
            axis,
        } => {
            // Columns (u, v, w) with w along the axis, right-handed.
            let (x, y, z) = (Vector3::x(), Vector3::y(), Vector3::z());
            let columns = match axis {
                BodyAxis::X => [y, z, x],
                BodyAxis::Y => [z, x, y],
                BodyAxis::Z => [x, y, z],
            };
            BodyShape::Cylinder {
                radius,
                half_length: 0.5 * length,
                axes: Matrix3::from_columns(&columns),
            }
        }
    }
}

/// The uniform box with mass `mass` \[kg\] and inertia tensor `inertia` \[kg m²\] about the
/// centroid in body axes (see the module documentation). A tensor that is not symmetric
/// positive definite (the model checks refuse one) gives a cube of 0.1 m.
pub fn inertia_box(mass: f64, inertia: &Matrix3<f64>) -> BodyShape {
    let fallback = BodyShape::Box {
        half: [0.05; 3],
        axes: Matrix3::identity(),
    };
    if !(mass > 0.0 && inertia.iter().all(|x| x.is_finite())) {
        return fallback;
    }
    let diagonal = (0..3).all(|r| (0..3).all(|c| r == c || inertia[(r, c)] == 0.0));
    let (moments, mut axes) = if diagonal {
        (
            Vector3::new(inertia[(0, 0)], inertia[(1, 1)], inertia[(2, 2)]),
            Matrix3::identity(),
        )
    } else {
        let e = inertia.symmetric_eigen();
        (e.eigenvalues, e.eigenvectors)
    };
    if axes.determinant() < 0.0 {
        axes.set_column(2, &(-axes.column(2)));
    }
    let sum = moments.sum();
    let edge = |k: usize| (6.0 * (sum - 2.0 * moments[k]) / mass).max(0.0).sqrt();
    let edges = [edge(0), edge(1), edge(2)];
    let longest = edges.iter().copied().fold(0.0, f64::max);
    if !(longest > 0.0 && longest.is_finite()) {
        return fallback;
    }
    let half = edges.map(|l| 0.5 * l.max(MIN_EDGE_RATIO * longest));
    BodyShape::Box { half, axes }
}

/// A polygon mesh: vertices in body axes \[m\] and faces as lists of vertex indices,
/// counter-clockwise seen from outside.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mesh {
    /// The vertices \[m\].
    pub vertices: Vec<[f64; 3]>,
    /// The faces (convex polygons of three or more vertices).
    pub faces: Vec<Vec<u32>>,
}

impl BodyShape {
    /// The shape's mesh: a box's 8 corners and 6 faces, or a sphere of 8 × 12 faces.
    pub fn mesh(&self) -> Mesh {
        match self {
            BodyShape::Box { half, axes } => box_mesh(*half, axes),
            BodyShape::Sphere { radius } => sphere_mesh(*radius, 8, 12),
            BodyShape::Cylinder {
                radius,
                half_length,
                axes,
            } => cylinder_mesh(*radius, *half_length, axes, 24),
        }
    }

    /// Whether the point `p` \[m\] (body axes) lies inside the shape or on its surface.
    pub fn contains(&self, p: [f64; 3]) -> bool {
        let p = Vector3::from(p);
        match self {
            BodyShape::Box { half, axes } => {
                let q = axes.transpose() * p;
                (0..3).all(|k| q[k].abs() <= half[k] * (1.0 + 1e-9))
            }
            BodyShape::Sphere { radius } => p.norm() <= radius * (1.0 + 1e-9),
            BodyShape::Cylinder {
                radius,
                half_length,
                axes,
            } => {
                let q = axes.transpose() * p;
                q.z.abs() <= half_length * (1.0 + 1e-9) && q.xy().norm() <= radius * (1.0 + 1e-9)
            }
        }
    }

    /// The radius \[m\] of the sphere about the centroid that holds the shape.
    pub fn radius(&self) -> f64 {
        match self {
            BodyShape::Box { half, .. } => half.iter().map(|h| h * h).sum::<f64>().sqrt(),
            BodyShape::Sphere { radius } => *radius,
            BodyShape::Cylinder {
                radius,
                half_length,
                ..
            } => radius.hypot(*half_length),
        }
    }
}

fn box_mesh(half: [f64; 3], axes: &Matrix3<f64>) -> Mesh {
    let vertices = (0..8)
        .map(|k| {
            let sign = |bit: usize| if k & (1 << bit) != 0 { 1.0 } else { -1.0 };
            let local = Vector3::new(sign(0) * half[0], sign(1) * half[1], sign(2) * half[2]);
            (axes * local).into()
        })
        .collect();
    // Corner k has x = bit 0, y = bit 1, z = bit 2; each face counter-clockwise from outside.
    let faces = [
        [0, 4, 6, 2], // −x
        [1, 3, 7, 5], // +x
        [0, 1, 5, 4], // −y
        [2, 6, 7, 3], // +y
        [0, 2, 3, 1], // −z
        [4, 5, 7, 6], // +z
    ];
    Mesh {
        vertices,
        faces: faces.iter().map(|f| f.to_vec()).collect(),
    }
}

/// A cylinder of `radius` and half length `half` about the third column of `axes`, its round
/// side in `sides` faces, closed by two caps.
fn cylinder_mesh(radius: f64, half: f64, axes: &Matrix3<f64>, sides: u32) -> Mesh {
    let mut vertices = Vec::new();
    for z in [-half, half] {
        for j in 0..sides {
            let a = 2.0 * std::f64::consts::PI * f64::from(j) / f64::from(sides);
            vertices.push((axes * Vector3::new(radius * a.cos(), radius * a.sin(), z)).into());
        }
    }
    let mut faces: Vec<Vec<u32>> = (0..sides)
        .map(|j| vec![j, (j + 1) % sides, sides + (j + 1) % sides, sides + j])
        .collect();
    faces.push((0..sides).rev().collect());
    faces.push((sides..2 * sides).collect());
    Mesh { vertices, faces }
}

/// A UV sphere of `radius` with `rings` bands of latitude and `sectors` of longitude.
fn sphere_mesh(radius: f64, rings: u32, sectors: u32) -> Mesh {
    let mut vertices = vec![[0.0, 0.0, -radius]];
    for i in 1..rings {
        let lat = std::f64::consts::PI * (f64::from(i) / f64::from(rings) - 0.5);
        for j in 0..sectors {
            let lon = 2.0 * std::f64::consts::PI * f64::from(j) / f64::from(sectors);
            vertices.push([
                radius * lat.cos() * lon.cos(),
                radius * lat.cos() * lon.sin(),
                radius * lat.sin(),
            ]);
        }
    }
    vertices.push([0.0, 0.0, radius]);
    let top = vertices.len() as u32 - 1;
    let at = |i: u32, j: u32| 1 + (i - 1) * sectors + j % sectors;
    let mut faces = Vec::new();
    for j in 0..sectors {
        faces.push(vec![0, at(1, j + 1), at(1, j)]);
        for i in 1..rings - 1 {
            faces.push(vec![at(i, j), at(i, j + 1), at(i + 1, j + 1), at(i + 1, j)]);
        }
        faces.push(vec![at(rings - 1, j), at(rings - 1, j + 1), top]);
    }
    Mesh { vertices, faces }
}

impl Mesh {
    /// The unit normal of face `f` (Newell's method), pointing outwards.
    pub fn normal(&self, f: usize) -> [f64; 3] {
        let face = &self.faces[f];
        let mut n = Vector3::zeros();
        for (k, &a) in face.iter().enumerate() {
            let p = Vector3::from(self.vertices[a as usize]);
            let q = Vector3::from(self.vertices[face[(k + 1) % face.len()] as usize]);
            n += Vector3::new(
                (p.y - q.y) * (p.z + q.z),
                (p.z - q.z) * (p.x + q.x),
                (p.x - q.x) * (p.y + q.y),
            );
        }
        n.try_normalize(0.0).unwrap_or_else(Vector3::z).into()
    }

    /// The faces as separate triangles (fans), each vertex with its face's normal: flat shading
    /// for a renderer that interpolates normals. Positions and normals in single precision.
    pub fn flat_triangles(&self) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
        let single = |p: [f64; 3]| p.map(|x| x as f32);
        let (mut positions, mut normals) = (Vec::new(), Vec::new());
        for (f, face) in self.faces.iter().enumerate() {
            let n = single(self.normal(f));
            for k in 1..face.len().saturating_sub(1) {
                for v in [face[0], face[k], face[k + 1]] {
                    positions.push(single(self.vertices[v as usize]));
                    normals.push(n);
                }
            }
        }
        (positions, normals)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn half(shape: &BodyShape) -> [f64; 3] {
        match shape {
            BodyShape::Box { half, .. } => *half,
            _ => panic!("a box"),
        }
    }

    #[test]
    fn a_uniform_box_is_recovered_from_its_inertia() {
        // A 2 kg box of 0.3 × 0.2 × 0.1 m.
        let (m, l) = (2.0, [0.3, 0.2, 0.1]);
        let i = |a: f64, b: f64| m * (a * a + b * b) / 12.0;
        let j = Matrix3::from_diagonal(&Vector3::new(i(l[1], l[2]), i(l[2], l[0]), i(l[0], l[1])));
        let h = half(&inertia_box(m, &j));
        for k in 0..3 {
            assert!((h[k] - 0.5 * l[k]).abs() < 1e-12, "{h:?}");
        }
        // Bricard's rods: 1 kg, 1 m long, 0.1 m square.
        let rod = Matrix3::from_diagonal(&Vector3::new(1.0 / 600.0, 0.0841666, 0.0841666));
        let h = half(&inertia_box(1.0, &rod));
        assert!(
            (h[0] - 0.5).abs() < 1e-6 && (h[1] - 0.05).abs() < 1e-6,
            "{h:?}"
        );
        // A rotated tensor gives the same box about rotated axes.
        let r = *nalgebra::Rotation3::from_euler_angles(0.3, -0.2, 1.1).matrix();
        let shape = inertia_box(m, &(r * j * r.transpose()));
        let BodyShape::Box { half: h, axes } = shape else {
            panic!("a box")
        };
        let mut sorted = h;
        sorted.sort_by(f64::total_cmp);
        assert!((sorted[2] - 0.15).abs() < 1e-9 && (sorted[0] - 0.05).abs() < 1e-9);
        assert!((axes.determinant() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn thin_bodies_keep_a_thickness_and_meshes_face_outwards() {
        // A lamina: I_z = I_x + I_y.
        let plate = Matrix3::from_diagonal(&Vector3::new(1e-4, 1e-4, 2e-4));
        let h = half(&inertia_box(0.02, &plate));
        assert!(
            (h[2] - MIN_EDGE_RATIO * 2.0 * h[0] * 0.5).abs() < 1e-12,
            "{h:?}"
        );
        let cylinder = |axis| {
            from_spec(&ShapeSpec::Cylinder {
                radius: 0.1,
                length: 0.4,
                axis,
            })
        };
        for shape in [
            inertia_box(0.02, &plate),
            BodyShape::Sphere { radius: 0.1 },
            cylinder(BodyAxis::X),
            cylinder(BodyAxis::Y),
            cylinder(BodyAxis::Z),
            from_spec(&ShapeSpec::Box {
                size: [0.3, 0.2, 0.1],
            }),
        ] {
            let mesh = shape.mesh();
            for (f, face) in mesh.faces.iter().enumerate() {
                let c: Vector3<f64> = face
                    .iter()
                    .map(|&v| Vector3::from(mesh.vertices[v as usize]))
                    .sum::<Vector3<f64>>()
                    / face.len() as f64;
                assert!(c.dot(&Vector3::from(mesh.normal(f))) > 0.0, "face {f}");
            }
            let (p, n) = mesh.flat_triangles();
            assert_eq!((p.len() % 3, p.len()), (0, n.len()));
        }
        assert_eq!(BodyShape::Sphere { radius: 0.1 }.mesh().faces.len(), 96);
        // A cylinder along x holds (±0.2, 0, 0.1 − ε) and not (0.21, 0, 0).
        let c = cylinder(BodyAxis::X);
        assert!(c.contains([0.2, 0.0, 0.099]) && c.contains([-0.2, 0.07, 0.07]));
        assert!(!c.contains([0.21, 0.0, 0.0]) && !c.contains([0.0, 0.0, 0.11]));
    }
}
