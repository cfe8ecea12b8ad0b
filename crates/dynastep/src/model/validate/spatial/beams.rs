//! The rules of a flexible beam: a unique name whose nodes collide with no body, one reference
//! geometry, a positive definite section stiffness, positive mass, lumped inertia that a real
//! body can have, and non-negative damping.

use super::super::super::beam::BeamSpec;
use super::*;

/// Checks every beam of `s` and records its nodes in `names`. `nodes` are the bodies that
/// [`SpatialSpec::with_beam_nodes`] appended, in the same order (beams with a valid geometry only).
pub(super) fn beams<'m>(
    c: &mut Checker<'_>,
    s: &SpatialSpec,
    names: &mut Names<'m>,
    first_node: usize,
    nodes: &'m [SpatialBodySpec],
) {
    let mut beam_names = Names::new();
    let mut cursor = 0;
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
            c.push(f(field), e, message, "give one of `line = { from = [x, y, z], to = [x, y, z] }`, `polyline = [[x, y, z], …]` or `arc = { center, start, axis, angle }` (docs/model-format.md, Beams)".into());
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
