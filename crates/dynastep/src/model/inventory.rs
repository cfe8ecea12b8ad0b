//! What a model holds, asked of the model rather than of its tables: its kind (planar, spatial,
//! equation-based), the names of its bodies and markers, and a one-line count for `dynastep check`.
//! Consumers outside the model layer use these instead of testing which tables are present.

use super::types::Model;

/// The three kinds of model a file can describe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelKind {
    /// Bodies, joints and forces in the plane (`[[bodies]]` …).
    Planar,
    /// Bodies, joints and forces in space (`[spatial]`).
    Spatial,
    /// Coordinates and expressions (`[equations]`).
    Equations,
}

impl Model {
    /// The model's kind, from the table that describes it.
    pub fn kind(&self) -> ModelKind {
        if self.spatial.is_some() {
            ModelKind::Spatial
        } else if self.equations.is_some() {
            ModelKind::Equations
        } else {
            ModelKind::Planar
        }
    }

    /// Names of the moving bodies, in file order, then a spatial model's beam nodes (none for an
    /// equation-based model).
    pub fn body_names(&self) -> Vec<String> {
        match &self.spatial {
            Some(s) => s
                .with_beam_nodes()
                .bodies
                .iter()
                .map(|b| b.name.clone())
                .collect(),
            None => self.bodies.iter().map(|b| b.name.clone()).collect(),
        }
    }

    /// Names of the markers, in file order.
    pub fn marker_names(&self) -> Vec<&str> {
        match &self.spatial {
            Some(s) => s.markers.iter().map(|m| m.name.as_str()).collect(),
            None => self.markers.iter().map(|m| m.name.as_str()).collect(),
        }
    }

    /// One line that counts what the model holds, in its kind's terms: `planar: 3 bodies, 4
    /// joints, 1 driver, 2 forces, 1 marker`, `spatial: …`, or `equations: 3 coordinates, 2
    /// constraints`.
    pub fn inventory(&self) -> String {
        let count =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        // Mechanisms: bodies, joints, drivers, forces, markers, in either dimension.
        let mechanism = |kind: &str, [b, j, d, f, m]: [usize; 5]| {
            format!(
                "{kind}: {}, {}, {}, {}, {}",
                count(b, "body", "bodies"),
                count(j, "joint", "joints"),
                count(d, "driver", "drivers"),
                count(f, "force", "forces"),
                count(m, "marker", "markers"),
            )
        };
        match (&self.spatial, &self.equations) {
            (Some(s), _) => {
                let line = mechanism(
                    "spatial",
                    [
                        s.bodies.len(),
                        s.joints.len(),
                        s.drivers.len(),
                        s.forces.len(),
                        s.markers.len(),
                    ],
                );
                if s.beams.is_empty() {
                    return line;
                }
                let nodes = s.with_beam_nodes().bodies.len() - s.bodies.len();
                format!(
                    "{line}, {} ({})",
                    count(s.beams.len(), "beam", "beams"),
                    count(nodes, "node", "nodes")
                )
            }
            (None, Some(e)) => format!(
                "equations: {}, {}",
                count(e.coordinates.len(), "coordinate", "coordinates"),
                count(e.constraints.len(), "constraint", "constraints"),
            ),
            (None, None) => mechanism(
                "planar",
                [
                    self.bodies.len(),
                    self.joints.len(),
                    self.drivers.len(),
                    self.forces.len(),
                    self.markers.len(),
                ],
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_counts_in_its_own_terms() {
        let find = |name: &str| {
            let e = crate::examples::find(name).expect("example");
            crate::model::parse::from_str(e.text, e.file).expect("parses")
        };
        let planar = find("slider-crank");
        assert_eq!(planar.kind(), ModelKind::Planar);
        assert!(
            planar.inventory().starts_with("planar: "),
            "{}",
            planar.inventory()
        );
        let spatial = find("spatial-top");
        assert_eq!(spatial.kind(), ModelKind::Spatial);
        assert_eq!(spatial.body_names(), ["top"]);
        assert_eq!(spatial.marker_names(), ["axis"]);
        assert_eq!(
            spatial.inventory(),
            "spatial: 1 body, 1 joint, 0 drivers, 0 forces, 1 marker"
        );
        let beam = find("rollup");
        assert_eq!(beam.body_names().len(), 17);
        assert_eq!(beam.body_names()[16], "beam.16");
        assert_eq!(
            beam.inventory(),
            "spatial: 0 bodies, 1 joint, 0 drivers, 1 force, 1 marker, 1 beam (17 nodes)"
        );
        let equations = find("spinning-top");
        assert_eq!(equations.kind(), ModelKind::Equations);
        assert!(
            equations
                .inventory()
                .starts_with("equations: 3 coordinates"),
            "{}",
            equations.inventory()
        );
    }
}
