//! The example models shipped with dynastep, embedded in the library.
//!
//! Each entry is a TOML model file from `examples/` at the repository root, compiled in with
//! `include_str!`, so `dynastep` can list and run them without the files. Every example is checked
//! against an independent reference by a test in `crates/dynastep/tests/examples_*.rs`; see
//! `docs/examples.md` for what each one is, its source and the measured agreement.

/// An embedded example model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Example {
    /// Short name used on the command line (e.g. `andrews`).
    pub name: &'static str,
    /// One-line title.
    pub title: &'static str,
    /// What it is and what it is checked against.
    pub description: &'static str,
    /// The model file's text.
    pub text: &'static str,
    /// File name under `examples/` (used in error messages).
    pub file: &'static str,
    /// What `dynastep compare --example NAME` runs when given nothing else.
    pub compare: DefaultComparison,
}

/// A sensible comparison of methods on an example (see [`crate::study::compare`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DefaultComparison {
    /// Scheme names.
    pub schemes: &'static [&'static str],
    /// Fixed step sizes \[s\] (empty when the sweep is over tolerances).
    pub dt: &'static [f64],
    /// Tolerances rtol = atol of adaptive runs (empty when the sweep is over step sizes).
    pub rtol: &'static [f64],
    /// Column patterns whose error is measured; empty: the energy balance.
    pub columns: &'static [&'static str],
    /// `end`, `max` or `rms`.
    pub measure: &'static str,
}

/// Second-order schemes of four families and a third-order ESDIRK, for the comparisons.
const FAMILIES: &[&str] = &[
    "generalized-alpha",
    "hht",
    "lms2",
    "bathe",
    "msstc4",
    "esdirk3-4",
];

/// All examples, in the order they are listed.
pub const EXAMPLES: &[Example] = &[
    Example {
        name: "pendulum",
        title: "Simple pendulum (IFToMM / GDLC06 A01)",
        description: "1 kg point mass on a massless 1 m rod, released horizontally from rest, 10 s; \
                      checked against a DOP853 solution and the official A01 file.",
        text: include_str!("../../../examples/pendulum.toml"),
        file: "pendulum.toml",
        compare: DefaultComparison {
            schemes: FAMILIES, dt: &[4e-3, 2e-3, 1e-3, 5e-4], rtol: &[], columns: &["P1.x", "P1.y"], measure: "max",
        },
    },
    Example {
        name: "double-fourbar",
        title: "Double four-bar mechanism (IFToMM)",
        description: "Five 1 m, 1 kg bars with two parallelogram loops, B0 moving at 1 m/s, 10 s; passes \
                      singular configurations; checked against the 1-DOF reduction and Exudyn's energy error.",
        text: include_str!("../../../examples/double-fourbar.toml"),
        file: "double-fourbar.toml",
        compare: DefaultComparison {
            schemes: FAMILIES, dt: &[4e-3, 2e-3, 1e-3, 5e-4], rtol: &[], columns: &["B0.x", "B0.y"], measure: "max",
        },
    },
    Example {
        name: "nfourbar40",
        title: "N-four-bar mechanism, N = 40 (GDLC06 A02)",
        description: "81 bars (243 coordinates, 242 constraints), 20 s; checked against the official \
                      ADAMS trajectory of B0.",
        text: include_str!("../../../examples/nfourbar40.toml"),
        file: "nfourbar40.toml",
        compare: DefaultComparison {
            schemes: &["generalized-alpha", "lms2", "bathe"], dt: &[4e-3, 2e-3, 1e-3], rtol: &[], columns: &["B0.x", "B0.y"], measure: "max",
        },
    },
    Example {
        name: "andrews",
        title: "Andrews' squeezing mechanism (seven-body mechanism)",
        description: "7 bodies, 10 revolute joints, spring and constant torque, no gravity, 0.03 s; \
                      checked against the IVP Test Set reference (PSIDE, rtol 1e-14).",
        text: include_str!("../../../examples/andrews.toml"),
        file: "andrews.toml",
        compare: DefaultComparison {
            schemes: FAMILIES, dt: &[2e-5, 1e-5, 5e-6, 2.5e-6], rtol: &[], columns: &["OF.theta"], measure: "end",
        },
    },
    Example {
        name: "spinning-top",
        title: "Spinning top in Euler angles (Fernández de Bustos et al. 2024, section 6)",
        description: "Heavy symmetric top on a fixed tip in ZXZ Euler angles, an equation-based model \
                      (M(q) and Q as expressions), 10 s; checked against a DOP853 solution of the \
                      same equations.",
        text: include_str!("../../../examples/spinning-top.toml"),
        file: "spinning-top.toml",
        compare: DefaultComparison {
            schemes: &["g4", "g5", "central-difference-reformulated"], dt: &[4e-3, 2e-3, 1e-3, 5e-4], rtol: &[], columns: &["theta"], measure: "max",
        },
    },
    Example {
        name: "stiff-pendulum",
        title: "Stiff pendulum (Fernández de Bustos et al. 2022)",
        description: "Pendulum under a slow harmonic torque integrated with long steps in body \
                      coordinates; checked against a DOP853 solution of the minimal-coordinate ODE.",
        text: include_str!("../../../examples/stiff-pendulum.toml"),
        file: "stiff-pendulum.toml",
        compare: DefaultComparison {
            schemes: &["trapezoidal", "generalized-alpha", "lms2", "bathe", "esdirk3-4"], dt: &[0.4, 0.2, 0.1, 0.05], rtol: &[], columns: &["tip.x", "tip.y"], measure: "max",
        },
    },
    Example {
        name: "slider-crank",
        title: "Slider-crank with driver and spring-damper",
        description: "Crank driven at constant speed, slider on a prismatic joint held by a TSDA, gravity; \
                      checked against the closed-form slider position and the energy balance.",
        text: include_str!("../../../examples/slider-crank.toml"),
        file: "slider-crank.toml",
        compare: DefaultComparison {
            schemes: FAMILIES, dt: &[4e-3, 2e-3, 1e-3, 5e-4], rtol: &[], columns: &["slider.x"], measure: "max",
        },
    },
    Example {
        name: "light-cartpole",
        title: "Light cart-pole (proposed IFToMM benchmark)",
        description: "1e-6 kg cart, 1 m massless pole with a 1 kg tip, released horizontally, 10 s; \
                      |theta'| spikes to 4429 rad/s for about 1 us at each of 11 vertical passages; \
                      a test of step-size control, checked against a DOP853 solution.",
        text: include_str!("../../../examples/light-cartpole.toml"),
        file: "light-cartpole.toml",
        compare: DefaultComparison {
            schemes: &["generalized-alpha", "bathe"], dt: &[], rtol: &[1e-8, 1e-9, 1e-10], columns: &["C.x", "P.x", "P.y"], measure: "rms",
        },
    },
    Example {
        name: "light-cartpole-minimal",
        title: "Light cart-pole in minimal coordinates (proposed IFToMM benchmark)",
        description: "The light cart-pole as an equation-based model in (x, theta), an ODE without \
                      constraints; ESDIRK4(3)6L with error control meets the benchmark's criterion \
                      e <= 1e-6 against a DOP853 solution.",
        text: include_str!("../../../examples/light-cartpole-minimal.toml"),
        file: "light-cartpole-minimal.toml",
        compare: DefaultComparison {
            schemes: &["esdirk4-6", "esdirk3-5", "generalized-alpha"], dt: &[], rtol: &[1e-10, 1e-11, 1e-12], columns: &["x", "theta"], measure: "rms",
        },
    },
    Example {
        name: "spring-linkage",
        title: "Spring-loaded linkage at rest",
        description: "The slider-crank without its driver, held by gravity and a spring on the slider; \
                      for `dynastep equilibrium`, checked against the minimum of its closed-form \
                      potential energy.",
        text: include_str!("../../../examples/spring-linkage.toml"),
        file: "spring-linkage.toml",
        compare: DefaultComparison {
            schemes: FAMILIES, dt: &[4e-3, 2e-3, 1e-3, 5e-4], rtol: &[], columns: &[], measure: "max",
        },
    },
    Example {
        name: "spatial-slider-crank",
        title: "Spatial slider-crank (IFToMM, Masoudi)",
        description: "Crank, rod and slider in three dimensions (revolute, spherical, universal and \
                      prismatic joints), 5 s; checked against a minimal-coordinate DOP853 solution.",
        text: include_str!("../../../examples/spatial-slider-crank.toml"),
        file: "spatial-slider-crank.toml",
        compare: DefaultComparison {
            schemes: &["esdirk4-6", "esdirk3-5", "generalized-alpha"], dt: &[], rtol: &[1e-7, 1e-8, 1e-9], columns: &["slider.x"], measure: "max",
        },
    },
    Example {
        name: "spatial-top",
        title: "Heavy symmetric top in steady precession (spatial rigid body)",
        description: "A top on a spherical joint in Euler parameters, started in slow steady \
                      precession, 10 s; checked against the analytic precession rate.",
        text: include_str!("../../../examples/spatial-top.toml"),
        file: "spatial-top.toml",
        compare: DefaultComparison {
            schemes: &["esdirk4-6", "generalized-alpha"], dt: &[], rtol: &[1e-7, 1e-8, 1e-9], columns: &["top.x", "top.y"], measure: "max",
        },
    },
    Example {
        name: "bricard",
        title: "Bricard's mechanism (GDLC06 A04)",
        description: "Five rods in a closed loop of six revolute joints, one redundant constraint, \
                      released from rest, 10 s; checked against an Exudyn solution and its energy.",
        text: include_str!("../../../examples/bricard.toml"),
        file: "bricard.toml",
        compare: DefaultComparison {
            schemes: FAMILIES, dt: &[4e-3, 2e-3, 1e-3, 5e-4], rtol: &[], columns: &["J2.x", "J2.y", "J2.z"], measure: "max",
        },
    },
    Example {
        name: "flyball-governor",
        title: "Stiff flyball governor (IFToMM, GDLC06 A05)",
        description: "Shaft, slider and two rods with end masses coupled by stiff spring-dampers \
                      (k = 8e5 N/m, c = 4e4 N s/m), turning freely, 10 s; checked against a \
                      converged minimal-coordinate solution.",
        text: include_str!("../../../examples/flyball-governor.toml"),
        file: "flyball-governor.toml",
        compare: DefaultComparison {
            schemes: &["generalized-alpha", "bathe", "esdirk3-5"], dt: &[4e-3, 2e-3, 1e-3, 5e-4], rtol: &[], columns: &["slider.z"], measure: "rms",
        },
    },
    Example {
        name: "rollup",
        title: "Roll-up of a cantilever into a circle (flexible beam)",
        description: "A 10 m cantilever of 8 three-node beam elements under an end moment ramped to \
                      2π EI / L; `dynastep equilibrium --increments 8` closes it into a circle, the \
                      tip converging to the root at order 4 under refinement.",
        text: include_str!("../../../examples/rollup.toml"),
        file: "rollup.toml",
        compare: DefaultComparison {
            schemes: &["generalized-alpha", "esdirk3-4"], dt: &[2e-2, 1e-2, 5e-3], rtol: &[], columns: &["tip.x", "tip.y"], measure: "end",
        },
    },
    Example {
        name: "bend45",
        title: "Bathe–Bolourchi 45° bend (flexible beam)",
        description: "A 45° arc of 8 three-node beam elements under a ramped out-of-plane tip load; \
                      `dynastep equilibrium --increments 8` reaches the published tip displacement \
                      within 1 %, the same with 10 increments.",
        text: include_str!("../../../examples/bend45.toml"),
        file: "bend45.toml",
        compare: DefaultComparison {
            schemes: &["generalized-alpha", "esdirk3-4"], dt: &[2e-2, 1e-2, 5e-3], rtol: &[], columns: &["tip.x", "tip.y", "tip.z"], measure: "end",
        },
    },
    Example {
        name: "cantilever",
        title: "Cantilever falling under gravity (flexible beam)",
        description: "A 1 m steel cantilever of 16 three-node beam elements released straight under \
                      gravity, 0.1 s; checked against Exudyn's converged ANCF tip deflection.",
        text: include_str!("../../../examples/cantilever.toml"),
        file: "cantilever.toml",
        compare: DefaultComparison {
            schemes: FAMILIES, dt: &[1e-3, 5e-4, 2.5e-4, 1.25e-4], rtol: &[], columns: &["tip.z"], measure: "end",
        },
    },
    Example {
        name: "lateral-buckling",
        title: "Lateral buckling of a thin beam (flexible beams)",
        description: "A clamped 1 m beam pulled back at its tip by a crank–link mechanism driven through \
                      half a turn in 0.4 s buckles laterally (Bauchau et al. 2016; MBDyn's deck); \
                      checked against the buckling time the benchmark reports.",
        text: include_str!("../../../examples/lateral-buckling.toml"),
        file: "lateral-buckling.toml",
        compare: DefaultComparison {
            schemes: &["generalized-alpha", "bathe", "msstc4"], dt: &[2e-3, 1e-3, 5e-4], rtol: &[], columns: &["midspan.y"], measure: "max",
        },
    },
    Example {
        name: "flexible-fourbar",
        title: "Flexible four-bar mechanism (flexible beams)",
        description: "Three flexible bars whose joint at C is tilted by 5°, driven at 0.6 rad/s from \
                      t = −2T to 12 s (Bauchau et al. 2016; MBDyn's deck); checked against the \
                      rigid mechanism's kinematics where the defect does not act.",
        text: include_str!("../../../examples/flexible-fourbar.toml"),
        file: "flexible-fourbar.toml",
        compare: DefaultComparison {
            schemes: &["bathe", "generalized-alpha", "msstc4"], dt: &[1.6e-2, 8e-3, 4e-3], rtol: &[], columns: &["C.x", "C.z"], measure: "max",
        },
    },
    Example {
        name: "rotating-shaft",
        title: "Rotating shaft with an unbalanced disk (flexible beam)",
        description: "A 6 m tube of 16 beam elements with an eccentric disk at mid-span, spun up through \
                      its critical speed (Bauchau et al. 2016; MBDyn's deck) from its static sag, \
                      checked against the clamped–clamped Timoshenko sag.",
        text: include_str!("../../../examples/rotating-shaft.toml"),
        file: "rotating-shaft.toml",
        compare: DefaultComparison {
            schemes: &["bathe", "generalized-alpha", "esdirk3-4"], dt: &[4e-3, 2e-3, 1e-3], rtol: &[], columns: &["mid.z"], measure: "max",
        },
    },
];

/// The example called `name`, if any.
pub fn find(name: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_findable() {
        for (k, e) in EXAMPLES.iter().enumerate() {
            assert!(
                EXAMPLES[..k].iter().all(|o| o.name != e.name),
                "duplicate {}",
                e.name
            );
            assert_eq!(find(e.name).map(|x| x.file), Some(e.file));
            assert!(!e.text.is_empty());
        }
        assert!(find("no-such-example").is_none());
    }
}
