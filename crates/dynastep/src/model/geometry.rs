//! The few geometric rules a model must obey, in one place: the validator
//! ([`super::validate`]) checks them with file positions, and the assembler
//! ([`crate::system::planar`]) builds from the same functions.

/// Magnitude above which a force, coordinate, velocity, length or point counts as absurd: its
/// square overflows the iteration matrix long before any mechanism reaches it. The model's rules
/// refuse such values up front; the systems name the element that produces one along a run.
pub const ABSURD: f64 = 1e100;

use super::types::{BodyKind, BodySpec};

/// Shortest length \[m\] of a distance joint or of a TSDA between its points: below it the
/// direction between the two points is lost (the Jacobian of a distance joint, dᵀ, vanishes).
pub const MIN_LENGTH: f64 = 1e-12;

/// Whether `l` \[m\] is a usable length between the two points of a distance joint or a TSDA:
/// finite and at least [`MIN_LENGTH`].
pub fn is_usable_length(l: f64) -> bool {
    l.is_finite() && l >= MIN_LENGTH
}

/// The unit sliding direction of a prismatic joint's `axis` (body-i frame), or `None` when the
/// axis has no direction: zero, so small that its squared norm underflows (below about 1e-154),
/// or not finite.
pub fn unit_axis(axis: [f64; 2]) -> Option<[f64; 2]> {
    let norm = (axis[0] * axis[0] + axis[1] * axis[1]).sqrt();
    let unit = [axis[0] / norm, axis[1] / norm];
    (norm > 0.0 && norm.is_finite() && unit.iter().all(|x| x.is_finite())).then_some(unit)
}

impl BodySpec {
    /// The initial global position \[m\] of a point given in the body frame, `p` (2): the body's
    /// frame origin (x, y) plus p rotated by θ (a point mass does not rotate: θ is ignored).
    pub fn initial_position(&self, p: [f64; 2]) -> [f64; 2] {
        let theta = match self.kind {
            BodyKind::Rigid => self.theta,
            BodyKind::Point => 0.0,
        };
        let (s, c) = theta.sin_cos();
        [self.x + c * p[0] - s * p[1], self.y + s * p[0] + c * p[1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_without_direction_are_refused() {
        assert_eq!(unit_axis([3.0, 4.0]), Some([0.6, 0.8]));
        assert_eq!(unit_axis([0.0, -1e-100]), Some([0.0, -1.0]));
        // The squares underflow: no direction left to normalize.
        assert_eq!(unit_axis([0.0, -1e-200]), None);
        assert_eq!(unit_axis([0.0, 0.0]), None);
        assert_eq!(unit_axis([f64::NAN, 1.0]), None);
        assert_eq!(unit_axis([f64::INFINITY, 1.0]), None);
        assert_eq!(unit_axis([f64::MAX, f64::MAX]), None);
    }
}
