//! The null space of the constraint Jacobian and a choice of independent coordinates: the
//! partitioning q = (u, z) of generalized coordinate partitioning (Wehage & Haug 1982, *J. Mech. Des.*
//! 104:247–255; Haug 1989, *Computer-Aided Kinematics and Dynamics of Mechanical Systems*, §7.3).
//!
//! The independent coordinates z are the rows of an orthonormal null-space basis N of Φ_q picked by
//! pivoted Gram–Schmidt (largest remaining row norm first). The dependent block Φ_u is invertible
//! exactly when the rows N_z are, and the pivoting keeps N_z as well conditioned as a greedy choice
//! can.

use super::Matrix;

/// Rank of `jac` (m × n) and an orthonormal basis of its null space (n × (n − rank)), from the
/// singular value decomposition; singular values at or below `rank_tol · σ_max` count as zero.
/// A zero or empty Jacobian has rank 0 and the identity as basis.
pub fn null_space(jac: &Matrix, rank_tol: f64) -> (usize, Matrix) {
    let (m, n) = jac.shape();
    if n == 0 {
        return (0, Matrix::zeros(0, 0));
    }
    // Pad to at least n rows so that the thin SVD returns all n right singular vectors.
    let mut a = Matrix::zeros(m.max(n), n);
    a.rows_mut(0, m).copy_from(jac);
    let svd = a.svd(false, true);
    let v_t = svd.v_t.expect("requested");
    let smax = svd.singular_values.iter().fold(0.0_f64, |s, v| s.max(*v));
    let null: Vec<usize> = (0..n)
        .filter(|&k| svd.singular_values[k] <= rank_tol * smax || svd.singular_values[k].is_nan())
        .collect();
    let basis = Matrix::from_fn(n, null.len(), |i, c| v_t[(null[c], i)]);
    (n - null.len(), basis)
}

/// Indices (ascending) of `basis.ncols()` independent coordinates for the null-space basis `basis`
/// (n × f): pivoted Gram–Schmidt on its rows (see the module documentation).
pub fn independent_coordinates(basis: &Matrix) -> Vec<usize> {
    let (n, f) = basis.shape();
    let mut rows = basis.clone();
    let mut chosen = Vec::with_capacity(f);
    for _ in 0..f {
        let Some((p, norm)) = (0..n)
            .filter(|i| !chosen.contains(i))
            .map(|i| (i, rows.row(i).norm()))
            .max_by(|a, b| a.1.total_cmp(&b.1))
        else {
            break;
        };
        if norm == 0.0 {
            break;
        }
        let pivot = rows.row(p).transpose() / norm;
        for i in 0..n {
            let c = rows.row(i).dot(&pivot.transpose());
            let mut r = rows.row_mut(i);
            r -= pivot.transpose() * c;
        }
        chosen.push(p);
    }
    chosen.sort_unstable();
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pendulum_in_cartesian_coordinates() {
        // Φ = x² + y² − 1 at (x, y) = (1, 0): Φ_q = [2, 0]; the free coordinate is y.
        let j = Matrix::from_row_slice(1, 2, &[2.0, 0.0]);
        let (rank, n) = null_space(&j, 1e-9);
        assert_eq!(rank, 1);
        assert!((n[(0, 0)]).abs() < 1e-15 && (n[(1, 0)].abs() - 1.0).abs() < 1e-15);
        assert_eq!(independent_coordinates(&n), vec![1]);
    }

    #[test]
    fn the_dependent_block_of_the_choice_is_invertible() {
        // Two constraints on four coordinates; coordinate 0 and 1 appear in both rows alike, so one
        // of them must be independent.
        let j = Matrix::from_row_slice(2, 4, &[1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0]);
        let (rank, n) = null_space(&j, 1e-9);
        assert_eq!((rank, n.ncols()), (2, 2));
        assert!((&j * &n).amax() < 1e-14);
        let z = independent_coordinates(&n);
        let u: Vec<usize> = (0..4).filter(|i| !z.contains(i)).collect();
        let phi_u = Matrix::from_fn(2, 2, |r, c| j[(r, u[c])]);
        assert!(phi_u.determinant().abs() > 0.5, "{z:?} leaves Φ_u singular");
    }
}
