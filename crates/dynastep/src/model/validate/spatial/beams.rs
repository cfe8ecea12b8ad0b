//! The rules of a flexible beam: a unique name whose nodes collide with no body, one reference
//! geometry, a positive definite section stiffness, positive mass, lumped inertia that a real
//! body can have, and non-negative damping.

use super::super::super::beam::BeamSpec;
use super::*;

/// The names of the nodes of the beams whose geometry is refused (so no node body is made), as far
/// as their number is known: the elements that name them are then not also reported.
pub(super) fn unplaced_nodes(s: &SpatialSpec) -> Vec<String> {
    s.beams
        .iter()
        .filter(|b| b.nodes().is_err())
        .flat_map(|b| (0..b.node_count().unwrap_or(0)).map(|k| b.node_name(k)))
        .collect()
}

/// Checks every beam of `s` and records its nodes in `names`. `nodes` are the bodies that
/// [`SpatialSpec::with_beam_nodes`] appended, in the same order (beams with a valid geometry only);
/// `unplaced` the node names of the others ([`unplaced_nodes`]), recorded without a body.
pub(super) fn beams<'m>(
    c: &mut Checker<'_>,
    s: &SpatialSpec,
    names: &mut Names<'m>,
    first_node: usize,
    nodes: &'m [SpatialBodySpec],
    unplaced: &'m [String],
) {
    let mut beam_names = Names::new();
    let mut cursor = 0;
    for name in unplaced {
        names
            .entry(name.as_str())
            .or_insert((usize::MAX, SpatialBodyKind::Rigid));
    }
    for (i, b) in s.beams.iter().enumerate() {
        unique(c, &mut beam_names, "beams", "beam", i, &b.name);
        let e = label("beam", "spatial.beams", i, &b.name);
        beam(c, i, &e, b);
        let Ok(count) = b.nodes().map(|n| n.len()) else {
            continue;
        };
        for (k, node) in nodes[cursor..cursor + count].iter().enumerate() {
            node_name(c, names, i, &e, first_node + cursor + k, node);
        }
        cursor += count;
    }
}

/// A node's name must be free: no body and no earlier beam's node has it.
fn node_name<'m>(
    c: &mut Checker<'_>,
    names: &mut Names<'m>,
    i: usize,
    e: &str,
    index: usize,
    node: &'m SpatialBodySpec,
) {
    if let Some((first, _)) = names.get(node.name.as_str()) {
        c.push(
            at(&[&"beams", &i, &"name"]),
            e,
            format!(
                "the beam's node `{}` has the name of another body (spatial.bodies[{first}] or an earlier beam's node)",
                node.name
            ),
            "rename the beam or the body: a beam's nodes are named `<beam>.0`, `<beam>.1`, …".into(),
        );
    } else {
        names.insert(&node.name, (index, SpatialBodyKind::Rigid));
    }
}

/// One beam's own values.
fn beam(c: &mut Checker<'_>, i: usize, e: &str, b: &BeamSpec) {
    let f = |field: &str| at(&[&"beams", &i, &field]);
    c.positive(
        f("mass_per_length"),
        e,
        "mass_per_length",
        b.mass_per_length,
        "give the mass per unit length in kg/m, e.g. `mass_per_length = 2.68`",
    );
    c.finite(
        f("inertia_per_length"),
        e,
        "inertia_per_length",
        &b.inertia_per_length,
    );
    if b.inertia_per_length.iter().any(|j| *j < 0.0) {
        c.push(
            f("inertia_per_length"),
            e,
            format!("rotary inertia per length {:?} kg m has a negative entry", b.inertia_per_length),
            "give (J₁, J₂, J₃) ≥ 0 in kg m: J₁ = ρ(I_y + I_z) about the beam axis, J₂ = ρI_y, J₃ = ρI_z".into(),
        );
    }
    if !(b.damping.is_finite() && b.damping >= 0.0) {
        c.push(
            f("damping"),
            e,
            format!(
                "the damping factor must be non-negative and finite, got {}",
                b.damping
            ),
            "give β in seconds (the section law is C (ε + β ε̇)), or leave it out for none".into(),
        );
    }
    if let Err((field, message)) = b.stiffness_matrix() {
        c.push(f(field), e, message, "give `stiffness = [EA, GA_y, GA_z, GJ, EI_y, EI_z]` in N and N m², or a symmetric positive definite `stiffness_matrix`".into());
    }
    match b.node_bodies() {
        Err((field, message)) => {
            let hint = match field {
                "elements" => "give the number of three-node elements, e.g. `elements = 8`",
                "section_y" => "give `section_y` across the beam (it is made perpendicular to the beam at every node)",
                _ => "give one of `line = { from = [x, y, z], to = [x, y, z] }`, `polyline = [[x, y, z], …]` or `arc = { center, start, axis, angle }` (docs/model-format.md, Beams)",
            };
            c.push(f(field), e, message, hint.into());
        }
        Ok(nodes) => {
            // The lumped inertia must be a real body's; checked on every node (their lengths
            // differ at the ends and corners).
            if b.mass_per_length > 0.0 && b.inertia_per_length.iter().all(|j| *j >= 0.0) {
                if let Some((_, message)) = nodes.iter().find_map(|n| n.inertia_matrix().err()) {
                    c.push(
                        f("inertia_per_length"),
                        e,
                        format!("the inertia lumped on a node is not a body's: {message}"),
                        "give J₁ ≤ J₂ + J₃, J₂ ≤ J₁ + J₃ and J₃ ≤ J₁ + J₂, with J₁ > 0".into(),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! Every beam rule refuses its value with a pointed error: the line and column of the value,
    //! the beam's name, and what to do.

    use crate::model::parse::from_str;

    const VALID: &str = r#"
[spatial]

[[spatial.beams]]
name = "b"
elements = 2
line = { from = [0.0, 0.0, 0.0], to = [1.0, 0.0, 0.0] }
stiffness = [1.0e6, 1.0e6, 1.0e6, 10.0, 10.0, 10.0]
mass_per_length = 1.0
inertia_per_length = [0.02, 0.01, 0.01]

[[spatial.joints]]
name = "clamp"
type = "fixed"
body_i = "ground"
body_j = "b.0"
at = [0.0, 0.0, 0.0]
axis = [1.0, 0.0, 0.0]
"#;

    /// The one error of `VALID` with `old` replaced by `new`: its line (1-based), its entity
    /// and its message.
    fn error(old: &str, new: &str) -> (usize, Option<String>, String) {
        assert!(VALID.contains(old), "{old}");
        let text = VALID.replacen(old, new, 1);
        let errs = from_str(&text, "m.toml").expect_err("refused").errors;
        assert_eq!(errs.len(), 1, "{errs:?}");
        let e = &errs[0];
        // The error points at the edited value: the last line of the edit.
        let last = new.lines().last().expect("an edit");
        let line = text[..text.find(last).expect("edited")]
            .matches('\n')
            .count()
            + 1;
        assert_eq!(e.line, line, "{e}");
        (e.line, e.entity.clone(), e.message.clone())
    }

    #[test]
    fn the_valid_beam_builds() {
        from_str(VALID, "m.toml").expect("valid");
    }

    #[test]
    fn overrides_reach_a_beam_by_name() {
        use crate::model::parse::from_str_with_overrides;
        let set = |o: &str| from_str_with_overrides(VALID, "m.toml", &[o.to_string()]);
        let m = set("spatial.beams.b.elements=4").expect("valid");
        assert_eq!(m.spatial.expect("spatial").beams[0].elements, 4);
        let e = set("spatial.beams.c.elements=4").expect_err("no beam `c`");
        assert!(e.errors[0].hint.contains('b'), "{e}");
    }

    #[test]
    fn each_rule_points_at_its_value() {
        let cases = [
            (
                "to = [1.0, 0.0, 0.0] }",
                "to = [0.0, 0.0, 0.0] }",
                "has zero length",
            ),
            (
                "stiffness = [1.0e6, 1.0e6, 1.0e6, 10.0, 10.0, 10.0]",
                "stiffness = [1.0e6, -1.0e6, 1.0e6, 10.0, 10.0, 10.0]",
                "not positive definite",
            ),
            ("mass_per_length = 1.0", "mass_per_length = 0.0", "positive"),
            (
                "inertia_per_length = [0.02, 0.01, 0.01]",
                "inertia_per_length = [0.02, -0.01, 0.01]",
                "negative entry",
            ),
            (
                "inertia_per_length = [0.02, 0.01, 0.01]",
                "inertia_per_length = [0.5, 0.01, 0.01]",
                "triangle inequality",
            ),
            (
                "mass_per_length = 1.0",
                "mass_per_length = 1.0\nsection_y = [1.0, 0.0, 0.0]",
                "along the beam",
            ),
            (
                "mass_per_length = 1.0",
                "mass_per_length = 1.0\ndamping = -1.0",
                "non-negative",
            ),
        ];
        for (old, new, message) in cases {
            let (_, entity, got) = error(old, new);
            assert_eq!(entity.as_deref(), Some("beam `b`"), "{new}");
            assert!(got.contains(message), "{new}: {got}");
        }
    }

    #[test]
    fn an_element_count_out_of_range_leaves_the_nodes_unknown() {
        let text = VALID.replacen("elements = 2", "elements = 0", 1);
        let errs = from_str(&text, "m.toml").expect_err("refused").errors;
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(
            errs[0].message.contains("1 to 10000 elements"),
            "{}",
            errs[0]
        );
        assert!(errs[0].hint.contains("elements = 8"), "{}", errs[0]);
        assert!(
            errs[1].message.contains("unknown body `b.0`"),
            "{}",
            errs[1]
        );
    }

    #[test]
    fn nodes_are_bodies_for_the_other_elements_and_their_names_are_taken() {
        // A joint naming a node beyond the beam's last.
        let (_, entity, message) = error(r#"body_j = "b.0""#, r#"body_j = "b.5""#);
        assert_eq!(entity.as_deref(), Some("joint `clamp` (fixed)"));
        assert!(message.contains("unknown body `b.5`"), "{message}");
        // A body named like a node.
        let text = VALID.replacen(
            "[[spatial.joints]]",
            "[[spatial.bodies]]\nname = \"b.1\"\nmass = 1.0\ninertia = [1.0, 1.0, 1.0]\n\n[[spatial.joints]]",
            1,
        );
        let errs = from_str(&text, "m.toml").expect_err("refused").errors;
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].message.contains("node `b.1`"), "{}", errs[0]);
    }
}
