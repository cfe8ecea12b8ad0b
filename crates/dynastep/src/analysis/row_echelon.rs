//! The rank of a sparse matrix and the rows that depend on the rows before them, by Gaussian
//! elimination on its rows in order: the start-up's rank check for large models with redundant
//! constraints, in time about proportional to the fill of the elimination (linear for chains and
//! loops of joints), where the dense singular value decomposition costs O((n + m)³).
//!
//! Row r is reduced against the pivot rows found before it (each a combination of earlier rows,
//! already reduced against the pivots before it, so the pivots are applied in the order they were
//! found): `w = A_r − Σ_k f_k P_k`. It depends on the rows before it when what is left is at most
//! `rank_tol` times the largest row norm of A — the criterion of the dense modified Gram–Schmidt of
//! [`super::assembly::dependent_constraints`], on the eliminated row instead of the orthogonal
//! component. Otherwise it becomes a pivot row, its pivot the largest entry of w (complete
//! pivoting within the row, which keeps the multipliers |f_k| ≤ max |P_k| / |pivot_k| small).
//!
//! The coefficients of each pivot row over the original rows are carried along, so a dependent
//! row r also gives a left null vector y (yᵀ A ≈ 0, y_r = 1): the rows with |y_j| above 1e-6 of
//! max |y| take part in the dependency. The union of these rows over all dependent rows does not
//! depend on the basis of the null space, so it names the same rows as the singular vectors of
//! [`super::assembly::redundant_constraints`].
//!
//! Which rows depend on earlier ones is a property of the row order alone (row r is dependent
//! exactly when rank(A_{0..=r}) = rank(A_{0..r})), so this agrees with the dense check wherever
//! both decide the same ranks.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::assembly_sparse::Triplets;

/// No pivot in this column.
const NONE: usize = usize::MAX;

/// A null-vector coefficient below this fraction of the largest counts as zero.
const INVOLVED: f64 = 1e-6;

/// The rank of a `rows` × `cols` matrix and its dependencies (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RowEchelon {
    /// Rank.
    pub rank: usize,
    /// The rows that depend on the rows before them, increasing.
    pub dependent: Vec<usize>,
    /// `involved[r]`: row r takes part in some dependency (`rows` entries).
    pub involved: Vec<bool>,
    /// One left null vector y (yᵀ A ≈ 0) per dependent row, in the same order, as its non-zero
    /// entries (row, coefficient) with coefficient 1 at the dependent row: a basis of the left
    /// null space.
    pub null_vectors: Vec<Vec<(usize, f64)>>,
}

/// A sparse vector scattered into a dense one, with the list of its touched entries.
struct Scatter {
    value: Vec<f64>,
    touched: Vec<bool>,
    list: Vec<usize>,
}

impl Scatter {
    fn new(len: usize) -> Self {
        Scatter {
            value: vec![0.0; len],
            touched: vec![false; len],
            list: Vec::new(),
        }
    }

    fn add(&mut self, i: usize, v: f64) -> bool {
        self.value[i] += v;
        let new = !self.touched[i];
        if new {
            self.touched[i] = true;
            self.list.push(i);
        }
        new
    }

    /// The non-zero entries, and the scatter cleared.
    fn take(&mut self) -> Vec<(usize, f64)> {
        let out = self
            .list
            .iter()
            .filter(|&&i| self.value[i] != 0.0)
            .map(|&i| (i, self.value[i]))
            .collect();
        self.clear();
        out
    }

    fn clear(&mut self) {
        for &i in &self.list {
            self.value[i] = 0.0;
            self.touched[i] = false;
        }
        self.list.clear();
    }

    fn max_abs(&self) -> f64 {
        self.list
            .iter()
            .fold(0.0_f64, |m, &i| m.max(self.value[i].abs()))
    }
}

/// The pivot rows found so far.
struct Pivots {
    /// Pivot column of each pivot row.
    col: Vec<usize>,
    /// The reduced row (entries by column, the pivot included).
    row: Vec<Vec<(usize, f64)>>,
    /// Its coefficients over the original rows.
    combination: Vec<Vec<(usize, f64)>>,
    /// The pivot row of each column, or [`NONE`].
    of_col: Vec<usize>,
}

impl RowEchelon {
    /// The rank and dependencies of the matrix `a` (`rows` × `cols`, duplicates summed), with rows
    /// whose eliminated remainder is at most `rank_tol` times the largest row norm counted as
    /// dependent.
    pub(crate) fn of(a: &Triplets, rows: usize, cols: usize, rank_tol: f64) -> RowEchelon {
        let mut by_row: Vec<Vec<(usize, f64)>> = vec![Vec::new(); rows];
        for &(r, c, v) in &a.0 {
            by_row[r].push((c, v));
        }
        let mut w = Scatter::new(cols);
        let mut y = Scatter::new(rows);
        let mut scale = 0.0_f64;
        for entries in by_row.iter_mut() {
            for &(c, v) in entries.iter() {
                w.add(c, v);
            }
            *entries = w.take();
            let norm = entries.iter().map(|e| e.1 * e.1).sum::<f64>().sqrt();
            scale = scale.max(norm);
        }
        let tol = rank_tol * scale;
        let mut piv = Pivots {
            col: Vec::new(),
            row: Vec::new(),
            combination: Vec::new(),
            of_col: vec![NONE; cols],
        };
        let mut out = RowEchelon {
            rank: 0,
            dependent: Vec::new(),
            involved: vec![false; rows],
            null_vectors: Vec::new(),
        };
        let mut queue = BinaryHeap::new();
        let mut queued = Vec::new();
        for (r, entries) in by_row.iter().enumerate() {
            for &(c, v) in entries {
                w.add(c, v);
            }
            y.add(r, 1.0);
            eliminate(&piv, &mut w, &mut y, &mut queue, &mut queued);
            let left = w.max_abs();
            if left <= tol || !left.is_finite() {
                out.dependent.push(r);
                let ymax = y.max_abs();
                for &j in &y.list {
                    if y.value[j].abs() > INVOLVED * ymax {
                        out.involved[j] = true;
                    }
                }
                w.clear();
                out.null_vectors.push(y.take());
                continue;
            }
            let pivot_col = *w
                .list
                .iter()
                .max_by(|&&a, &&b| w.value[a].abs().total_cmp(&w.value[b].abs()))
                .expect("a row with a non-zero entry");
            piv.of_col[pivot_col] = piv.col.len();
            piv.col.push(pivot_col);
            piv.row.push(w.take());
            piv.combination.push(y.take());
            queued.push(false);
            out.rank += 1;
        }
        out
    }
}

/// Reduces `w` (and its coefficients `y`) against the pivot rows, in the order they were found.
fn eliminate(
    piv: &Pivots,
    w: &mut Scatter,
    y: &mut Scatter,
    queue: &mut BinaryHeap<Reverse<usize>>,
    queued: &mut [bool],
) {
    for &c in &w.list {
        let k = piv.of_col[c];
        if k != NONE && !queued[k] {
            queued[k] = true;
            queue.push(Reverse(k));
        }
    }
    while let Some(Reverse(k)) = queue.pop() {
        queued[k] = false;
        let pc = piv.col[k];
        let pivot = piv.row[k].iter().find(|e| e.0 == pc).map_or(0.0, |e| e.1);
        let f = w.value[pc] / pivot;
        if f == 0.0 || !f.is_finite() {
            continue;
        }
        for &(c, v) in &piv.row[k] {
            if w.add(c, -f * v) {
                let p = piv.of_col[c];
                if p != NONE && p > k && !queued[p] {
                    queued[p] = true;
                    queue.push(Reverse(p));
                }
            }
        }
        w.value[pc] = 0.0;
        for &(j, v) in &piv.combination[k] {
            y.add(j, -f * v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::Sink;

    fn triplets(rows: &[&[f64]]) -> Triplets {
        let mut a = Triplets::default();
        for (r, row) in rows.iter().enumerate() {
            for (c, &v) in row.iter().enumerate() {
                if v != 0.0 {
                    a.add(r, c, v);
                }
            }
        }
        a
    }

    /// A repeated row, a sum of two rows and an independent row: the dependent rows are the
    /// second copy and the sum; every row of the two dependencies takes part, the independent
    /// one does not.
    #[test]
    fn names_rows_that_depend_on_earlier_rows() {
        let a = triplets(&[
            &[1.0, 2.0, 0.0, 0.0],
            &[0.0, 1.0, 3.0, 0.0],
            &[1.0, 2.0, 0.0, 0.0],
            &[1.0, 3.0, 3.0, 0.0],
            &[0.0, 0.0, 0.0, 5.0],
        ]);
        let e = RowEchelon::of(&a, 5, 4, 1e-9);
        assert_eq!(e.rank, 3);
        assert_eq!(e.dependent, vec![2, 3]);
        assert_eq!(e.involved, vec![true, true, true, true, false]);
        // yᵀ A = 0 for each null vector.
        for y in &e.null_vectors {
            let mut left = [0.0; 4];
            for &(r, c, v) in &a.0 {
                if let Some(&(_, yr)) = y.iter().find(|e| e.0 == r) {
                    left[c] += yr * v;
                }
            }
            assert!(left.iter().all(|x| x.abs() < 1e-14), "{left:?}");
        }
    }

    /// Fill reaching a column whose pivot row was found later than the one that made it: the
    /// pivots must be applied in the order they were found (a cyclic chain of differences, whose
    /// last row closes the loop).
    #[test]
    fn closes_a_loop_through_fill() {
        let n = 6;
        let mut a = Triplets::default();
        for r in 0..n {
            a.add(r, r, 1.0);
            a.add(r, (r + 1) % n, -1.0);
        }
        // Rows x_r − x_{r+1}: their sum is zero, so the last row depends on the others.
        let e = RowEchelon::of(&a, n, n, 1e-9);
        assert_eq!(e.rank, n - 1);
        assert_eq!(e.dependent, vec![n - 1]);
        assert!(e.involved.iter().all(|&x| x));
    }

    /// Agrees with the dense checks (Gram–Schmidt for the dependent rows, the singular value
    /// decomposition for the rank and the rows involved) on Bricard's mechanism, whose Φ_q has one
    /// redundant row.
    #[test]
    fn agrees_with_the_dense_checks_on_bricard() {
        use crate::analysis::assembly::{dependent_constraints, redundant_constraints};
        use crate::system::System;
        let ex = crate::examples::find("bricard").expect("embedded");
        let model = crate::model::parse::from_str(ex.text, ex.file).expect("parses");
        let sim = crate::analysis::simulation::Simulation::new(&model, &Default::default())
            .expect("assembles");
        let (sys, x) = (&sim.system, &sim.initial);
        let (n, m) = (sys.n(), sys.m());
        let mut a = Triplets::default();
        sys.constraint_jacobian(x.t, &x.q, 1.0, &mut a);
        let e = RowEchelon::of(&a, m, n, 1e-9);
        let (rank, involved) = redundant_constraints(sys, x.t, &x.q, 1e-9);
        let dependent = dependent_constraints(sys, x.t, &x.q, 1e-9);
        assert!(rank < m, "Bricard is redundant");
        assert_eq!(e.rank, rank);
        let label = |r: &usize| sys.constraint_label(*r);
        assert_eq!(e.dependent.iter().map(label).collect::<Vec<_>>(), dependent);
        let mine: Vec<String> = (0..m)
            .filter(|&r| e.involved[r])
            .map(|r| label(&r))
            .collect();
        assert_eq!(mine, involved);
    }
}
