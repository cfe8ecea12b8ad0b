//! The pseudo-inverse and the null space of a constraint Jacobian H (m × n) through the singular
//! value decomposition of Hᵀ (faer's dense SVD, Golub & Van Loan 2013, *Matrix Computations*, §8.6),
//! without allocation after construction: what the tangent-space formulation projects with
//! (Fernández de Bustos et al. 2022, Meccanica 57:371, eqs. 33–47).

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::svd::{svd, svd_scratch, ComputeSvdVectors};

use super::{Matrix, Vector};

/// The singular value decomposition Hᵀ = U Σ Vᵀ of an n × m matrix (U: n × n, V: m × m), its
/// null space and the pseudo-inverse H⁺ built from it. Sized once ([`PseudoInverse::new`]); no
/// allocation after that.
pub struct PseudoInverse {
    u_full: Matrix,
    v_full: Matrix,
    sigma: Vec<f64>,
    /// Columns of U (and V) with a non-zero singular value: the range of Hᵀ.
    range: Vec<usize>,
    /// Columns of U spanning the null space of H.
    null: Vec<usize>,
    scratch: MemBuffer,
    tmp_r: Vec<f64>,
}

impl PseudoInverse {
    /// Buffers for Hᵀ of n × m (faer's SVD scratch computed once).
    pub fn new(n: usize, m: usize) -> Self {
        let req = svd_scratch::<f64>(
            n,
            m,
            ComputeSvdVectors::Full,
            ComputeSvdVectors::Full,
            faer::Par::Seq,
            Default::default(),
        );
        PseudoInverse {
            u_full: Matrix::zeros(n, n),
            v_full: Matrix::zeros(m, m),
            sigma: vec![0.0; n.min(m)],
            range: Vec::with_capacity(n),
            null: Vec::with_capacity(n),
            scratch: MemBuffer::new(req),
            tmp_r: vec![0.0; n.min(m)],
        }
    }

    /// Decomposes `ht` = Hᵀ (n × m) and sorts the columns of U into range and null space (singular
    /// values at or below `rank_tol` · σ_max count as zero); false when the SVD fails.
    pub fn decompose(&mut self, ht: &Matrix, rank_tol: f64) -> bool {
        let (n, m) = ht.shape();
        // faer's SVD reads the singular-vector buffers (it does not give a correct U over stale
        // contents), so they start from zero every time.
        self.u_full.fill(0.0);
        self.v_full.fill(0.0);
        let a = faer::MatRef::from_column_major_slice(ht.as_slice(), n, m);
        let u = faer::MatMut::from_column_major_slice_mut(self.u_full.as_mut_slice(), n, n);
        let v = faer::MatMut::from_column_major_slice_mut(self.v_full.as_mut_slice(), m, m);
        let s = faer::diag::DiagMut::from_slice_mut(&mut self.sigma);
        let stack = MemStack::new(&mut self.scratch);
        if svd(
            a,
            s,
            Some(u),
            Some(v),
            faer::Par::Seq,
            stack,
            Default::default(),
        )
        .is_err()
        {
            return false;
        }
        let smax = self.sigma.iter().fold(0.0_f64, |a, s| a.max(s.abs()));
        self.range.clear();
        self.null.clear();
        for k in 0..n {
            if k < self.sigma.len() && self.sigma[k].abs() > rank_tol * smax {
                self.range.push(k);
            } else {
                self.null.push(k);
            }
        }
        true
    }

    /// `out = H⁺ c`: the minimum-norm least-squares solution of H out = c (c: m, out: n).
    pub fn apply(&mut self, c: &[f64], out: &mut [f64]) {
        let m = self.v_full.nrows();
        let n = self.u_full.nrows();
        for (j, &k) in self.range.iter().enumerate() {
            let vk = &self.v_full.as_slice()[k * m..(k + 1) * m];
            self.tmp_r[j] = vk.iter().zip(c).map(|(a, b)| a * b).sum::<f64>() / self.sigma[k];
        }
        out.fill(0.0);
        for (j, &k) in self.range.iter().enumerate() {
            let uk = &self.u_full.as_slice()[k * n..(k + 1) * n];
            for (o, x) in out.iter_mut().zip(uk.iter()) {
                *o += self.tmp_r[j] * x;
            }
        }
    }

    /// `out = (H⁺)ᵀ g` (g: n, out: m): the least-squares solution of Hᵀ out = g.
    pub fn apply_transpose(&mut self, g: &Vector, out: &mut Vector) {
        for (j, &k) in self.range.iter().enumerate() {
            self.tmp_r[j] = self.u_full.column(k).dot(g) / self.sigma[k];
        }
        out.fill(0.0);
        for (j, &k) in self.range.iter().enumerate() {
            out.axpy(self.tmp_r[j], &self.v_full.column(k), 1.0);
        }
    }

    /// `out = H⁺ b`, column by column (b: m × f, out: n × f).
    pub fn apply_columns(&mut self, b: &Matrix, out: &mut Matrix) {
        let (m, n) = (b.nrows(), out.nrows());
        for c in 0..b.ncols() {
            let col = &b.as_slice()[c * m..(c + 1) * m];
            self.apply(col, &mut out.as_mut_slice()[c * n..(c + 1) * n]);
        }
    }

    /// The dimension of the null space of H found by the last [`PseudoInverse::decompose`].
    pub fn null_dimension(&self) -> usize {
        self.null.len()
    }

    /// Column `c` (< [`PseudoInverse::null_dimension`]) of an orthonormal basis of the null space of
    /// H (n entries).
    pub fn null_column(&self, c: usize) -> nalgebra::DVectorView<'_, f64> {
        self.u_full.column(self.null[c])
    }
}

impl std::fmt::Debug for PseudoInverse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PseudoInverse")
            .field("sigma", &self.sigma)
            .field("range", &self.range)
            .field("null", &self.null)
            .finish()
    }
}
