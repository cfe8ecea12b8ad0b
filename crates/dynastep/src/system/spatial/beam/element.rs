//! The three-node geometrically exact beam element (Reissner–Simo), with MBDyn's finite-volume
//! evaluation (Ghiringhelli, Masarati & Mantegazza, AIAA J 38(1):131–138, 2000), as a spatial
//! force element on three node bodies.
//!
//! At each evaluation point s ∈ {I, II} ([`section`]) the section law gives the internal force
//! and moment in section axes, (F, M)_loc = C (ε − ε₀ + β ε̇), with ε = (ν, κ), ε₀ its value in the
//! reference configuration (so a pre-curved beam starts stress-free), C the 6 × 6 stiffness and β
//! the proportional damping factor. Rotated to global axes, F_s = R_s F_loc, M_s = R_s M_loc, they
//! act on the nodes as piecewise-constant test functions over the element's three volumes do:
//!
//! | node | force | moment about the node's centroid |
//! |---|---|---|
//! | 1 | F_I | (x_I − r₁) × F_I + M_I |
//! | 2 | F_II − F_I | M_II − M_I + (x_II − r₂) × F_II − (x_I − r₂) × F_I |
//! | 3 | −F_II | −(x_II − r₃) × F_II − M_II |
//!
//! and a moment m on a node enters its Euler-parameter equations as Q_p = 2 E(p)ᵀ m, like an
//! applied torque. The element is in equilibrium by itself (Σ forces = 0, Σ moments = 0).
//!
//! **Derivatives.** ∂Q/∂q and ∂Q/∂v are the exact derivatives of this Q: by the analytic
//! tangent of [`super::tangent`], or, for ∂Q/∂q of a damped element, by forward-mode automatic
//! differentiation of the same code that gives Q ([`BeamElement::dual_jacobian`]). The test
//! suite checks both against each other and against central differences.
//!
//! **Energy.** The finite-volume forces are not the gradient of a potential in general. The
//! element reports the strain energy U = Σ_s J_s · ½ (ε − ε₀)ᵀ C (ε − ε₀) (two-point Gauss) as
//! its potential energy, and as non-conservative power what the forces do beyond −dU/dt:
//! P = Qᵀv + dU/dt. The energy balance E − E₀ − W_nc then holds to the accuracy of the
//! integration, the damping's dissipation and the finite-volume forces' departure from a
//! potential show in W_nc, and an undamped beam's W_nc measures that departure.

use num_dual::{Derivative, Dual, DualSVec64};

use super::section::{self, cross, nodes, scale, sections, sub, Scalar, Section, V};
use crate::linalg::{Sink, Vector};

/// Coordinates of one element: three nodes' (r, p).
pub(crate) const NB: usize = 21;

/// A three-node beam element.
#[derive(Debug, Clone)]
pub(crate) struct BeamElement {
    /// Index in q of each node's x and e₀.
    pub nodes: [(usize, usize); 3],
    /// ds/dξ at the two evaluation points in the reference configuration \[m\].
    pub jacobian: [f64; 2],
    /// The strains ε₀ of the reference configuration at the two points.
    pub reference: [[f64; 6]; 2],
    /// Section stiffness C (6 × 6, symmetric), (N, M) = C (ν, κ) \[SI\].
    pub stiffness: [[f64; 6]; 6],
    /// Proportional damping factor β \[s\].
    pub damping: f64,
}

/// The section forces and moments at an element's two points, in section axes (N, S_y, S_z,
/// M_t, M_y, M_z) \[N, N m\].
pub(crate) type SectionLoads = [[f64; 6]; 2];

impl BeamElement {
    /// The element on the nodes at `nodes` (indices of x and e₀), with its reference
    /// configuration taken from `q0`.
    pub fn new(
        nodes: [(usize, usize); 3],
        q0: &Vector,
        stiffness: [[f64; 6]; 6],
        damping: f64,
    ) -> Self {
        let mut e = BeamElement {
            nodes,
            jacobian: [1.0; 2],
            reference: [[0.0; 6]; 2],
            stiffness,
            damping,
        };
        let x = e.gather(q0);
        let r = [0, 1, 2].map(|i| [x[7 * i], x[7 * i + 1], x[7 * i + 2]]);
        e.jacobian = section::XI.map(|xi| {
            let dn = section::shape_derivative(xi);
            let t: [f64; 3] =
                std::array::from_fn(|k| dn[0] * r[0][k] + dn[1] * r[1][k] + dn[2] * r[2][k]);
            (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).sqrt()
        });
        e.reference = sections(&x, &e.jacobian).map(|s| s.strain);
        e
    }

    /// The element's coordinates from a global vector.
    #[inline]
    pub(crate) fn gather(&self, q: &Vector) -> [f64; NB] {
        std::array::from_fn(|k| q[self.index(k)])
    }

    /// The global index of local coordinate k.
    fn index(&self, k: usize) -> usize {
        let (r, p) = self.nodes[k / 7];
        let c = k % 7;
        if c < 3 {
            r + c
        } else {
            p + c - 3
        }
    }

    /// Strains less the reference strains at both points.
    #[inline]
    fn strain<T: Scalar>(&self, s: &[Section<T>; 2]) -> [[T; 6]; 2] {
        std::array::from_fn(|k| std::array::from_fn(|a| s[k].strain[a] - self.reference[k][a]))
    }

    /// C times a 6-vector.
    #[inline]
    fn law<T: Scalar>(&self, e: &[T; 6]) -> [T; 6] {
        std::array::from_fn(|a| {
            (0..6).fold(T::from(0.0), |acc, b| acc + e[b] * self.stiffness[a][b])
        })
    }

    /// The sections at x and the section loads in section axes C (ε − ε₀ + β ε̇), with ε̇ the
    /// strain rate along xd.
    #[inline]
    fn loads<T: Scalar>(&self, x: &[T; NB], xd: &[T; NB]) -> ([Section<T>; 2], [[T; 6]; 2]) {
        if self.damping == 0.0 {
            let s = sections(x, &self.jacobian);
            let e = self.strain(&s);
            return (s, e.map(|e| self.law(&e)));
        }
        let xx: [Dual<T>; NB] = std::array::from_fn(|k| Dual::new(x[k], xd[k]));
        let sd = sections(&xx, &self.jacobian);
        let s = sd.map(|s| Section {
            rotation: s.rotation.map(|r| r.map(|a| a.re)),
            point: s.point.map(|a| a.re),
            strain: s.strain.map(|a| a.re),
        });
        let e = self.strain(&s);
        let loads = std::array::from_fn(|k| {
            let total: [T; 6] =
                std::array::from_fn(|a| e[k][a] + sd[k].strain[a].eps * self.damping);
            self.law(&total)
        });
        (s, loads)
    }

    /// The generalized force on the element's 21 coordinates (see the module documentation).
    #[inline]
    fn force<T: Scalar>(&self, x: &[T; NB], xd: &[T; NB]) -> [T; NB] {
        let (s, loads) = self.loads(x, xd);
        let global = |k: usize, o: usize| -> V<T> {
            let l = [loads[k][o], loads[k][o + 1], loads[k][o + 2]];
            section::mul(&s[k].rotation, &l)
        };
        let (f1, f2) = (global(0, 0), global(1, 0));
        let (m1, m2) = (global(0, 3), global(1, 3));
        let n = nodes(x);
        let arm = |k: usize, node: usize| sub(&s[k].point, &n[node].0);
        let node_force = [f1, sub(&f2, &f1), scale(&f2, T::from(-1.0))];
        let node_moment = [
            section::add(&cross(&arm(0, 0), &f1), &m1),
            section::add(
                &sub(&m2, &m1),
                &sub(&cross(&arm(1, 1), &f2), &cross(&arm(0, 1), &f1)),
            ),
            scale(&section::add(&cross(&arm(1, 2), &f2), &m2), T::from(-1.0)),
        ];
        let mut out = [T::from(0.0); NB];
        for i in 0..3 {
            let (e0, e) = n[i].1;
            let (f, m) = (node_force[i], node_moment[i]);
            out[7 * i..7 * i + 3].copy_from_slice(&f);
            // 2 E(p)ᵀ m, E = [−e, e× + e₀ I].
            out[7 * i + 3] = -section::dot(&e, &m) * 2.0;
            let w = section::add(&scale(&m, e0), &cross(&m, &e));
            for a in 0..3 {
                out[7 * i + 4 + a] = w[a] * 2.0;
            }
        }
        out
    }

    /// Adds the generalized force at (q, v) to `out` (n).
    pub fn add_force(&self, q: &Vector, v: &Vector, out: &mut Vector) {
        let f = self.force(&self.gather(q), &self.gather(v));
        for (k, fk) in f.iter().enumerate() {
            out[self.index(k)] += fk;
        }
    }

    /// Adds `scale ·` ∂Q/∂q (`wrt_velocity` false) or ∂Q/∂v (true) to `out`, all 21 × 21 entries
    /// in a fixed order (row by row).
    ///
    /// By the analytic tangent ([`super::tangent`]), except ∂Q/∂q of a damped element, which
    /// needs the strains' second derivatives and comes from [`Self::dual_jacobian`]. Measured on
    /// the cantilever (32 elements, h = 1e-4 s, full Newton): about 1.3 µs per element against
    /// 11 µs for the dual numbers, the loop 0.39 → 0.22 s.
    pub fn add_jacobian<S: Sink>(
        &self,
        q: &Vector,
        v: &Vector,
        wrt_velocity: bool,
        scale: f64,
        out: &mut S,
    ) {
        let (q, v) = (self.gather(q), self.gather(v));
        let jac = if wrt_velocity || self.damping == 0.0 {
            super::tangent::element_tangent(self, &q, &v, wrt_velocity)
        } else {
            self.dual_jacobian(&q, &v, wrt_velocity)
        };
        let index: [usize; NB] = std::array::from_fn(|k| self.index(k));
        for (a, &i) in index.iter().enumerate() {
            for (b, &j) in index.iter().enumerate() {
                out.add(i, j, scale * jac[(a, b)]);
            }
        }
    }

    /// ∂Q/∂q (`wrt_velocity` false) or ∂Q/∂v (true) at the element's coordinates `q` and
    /// velocities `v` (21 each), by forward-mode automatic differentiation of [`Self::force`]
    /// (num-dual's `DualSVec64<7>`: three passes, one node's seven directions each, no
    /// allocation).
    ///
    /// Three passes of seven directions are the same flops as one pass in 21 directions on
    /// values a third the size; measured on the cantilever (32 elements), full Newton's loop was
    /// 1.8× faster than with one 21-wide pass, whose values the processor spent much of its time
    /// copying; seven passes of three directions were no faster, 21 passes of one slower.
    pub(crate) fn dual_jacobian(
        &self,
        q: &[f64; NB],
        v: &[f64; NB],
        wrt_velocity: bool,
    ) -> super::tangent::ElementTangent {
        let mut jac = super::tangent::ElementTangent::zeros();
        for node in 0..3 {
            let seed = |x: &[f64; NB], seeded: bool| -> [DualSVec64<7>; NB] {
                std::array::from_fn(|k| {
                    let d = DualSVec64::from_re(x[k]);
                    if seeded && k / 7 == node {
                        d.derivative(k % 7)
                    } else {
                        d
                    }
                })
            };
            let f = self.force(&seed(q, !wrt_velocity), &seed(v, wrt_velocity));
            for (a, fa) in f.iter().enumerate() {
                if let Derivative(Some(d)) = &fa.eps {
                    for c in 0..7 {
                        jac[(a, 7 * node + c)] = d[c];
                    }
                }
            }
        }
        jac
    }

    /// C ε₀ at both points: the section loads the reference strains alone would give.
    pub fn reference_loads(&self) -> [[f64; 6]; 2] {
        self.reference.map(|e| self.law(&e))
    }

    /// The strain energy U at q \[J\] (two-point Gauss).
    pub fn strain_energy(&self, q: &Vector) -> f64 {
        let s = sections(&self.gather(q), &self.jacobian);
        let e = self.strain(&s);
        (0..2)
            .map(|k| {
                let c = self.law(&e[k]);
                0.5 * self.jacobian[k] * (0..6).map(|a| e[k][a] * c[a]).sum::<f64>()
            })
            .sum()
    }

    /// The power Qᵀv + dU/dt at (q, v) \[W\] (see the module documentation).
    pub fn power(&self, q: &Vector, v: &Vector) -> f64 {
        let (x, xd) = (self.gather(q), self.gather(v));
        let f = self.force(&x, &xd);
        let xx: [num_dual::Dual64; NB] = std::array::from_fn(|k| Dual::new(x[k], xd[k]));
        let s = sections(&xx, &self.jacobian);
        let du: f64 = (0..2)
            .map(|k| {
                let e: [f64; 6] = std::array::from_fn(|a| s[k].strain[a].re - self.reference[k][a]);
                let c = self.law(&e);
                self.jacobian[k] * (0..6).map(|a| s[k].strain[a].eps * c[a]).sum::<f64>()
            })
            .sum();
        f.iter().zip(&xd).map(|(f, v)| f * v).sum::<f64>() + du
    }

    /// The section loads at q, v in section axes (history output).
    pub fn section_loads(&self, q: &Vector, v: &Vector) -> SectionLoads {
        self.loads(&self.gather(q), &self.gather(v)).1
    }
}
