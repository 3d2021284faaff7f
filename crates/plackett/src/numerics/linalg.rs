//! Dense factorisations: the one path through which every Cholesky, LU and
//! symmetric eigendecomposition of the project runs (Newton steps, standard
//! errors, Gaussian VI, Laplace, I-LSR, rank checks).
//!
//! The kernels are faer's (blocked, SIMD); matrices are stored as
//! column-major `nalgebra` matrices, which faer reads in place through a
//! zero-copy view. How faer splits a factorisation's work depends on how
//! many parts it is told to use, and its default is the current thread
//! pool's size, so the same matrix gave different last bits on one thread
//! and on two (the keyword prior's eigendecomposition did). Every call
//! here therefore runs with a fixed split, [`PAR`], whatever the number of
//! threads (tested by `factorisations_are_thread_count_independent`).

use faer::linalg::solvers::{DenseSolveCore, Solve};
use faer::{Mat, MatRef, Side};
use nalgebra::{DMatrix, DVector};

/// The split every faer call of the project uses: two parts, the default
/// on the 2-core machines every published figure of this project was
/// computed on (so none of them moves), run as two tasks on a larger pool
/// and one after the other on a single thread, with the same bits.
pub const PAR: faer::Par = match std::num::NonZeroUsize::new(2) {
    Some(n) => faer::Par::Rayon(n),
    None => unreachable!(),
};

/// Fix faer's global split to [`PAR`] (its solvers read the global
/// setting, not an argument) and return it. Called at the start of every
/// function here that reaches faer's factorisations.
fn pinned() -> faer::Par {
    faer::set_global_parallelism(PAR);
    PAR
}

/// Clears the upper halves of the vector registers when dropped, so that
/// every function here returns with them clean.
///
/// faer's matrix-product kernels on x86-64 are hand-written AVX/AVX-512
/// assembly that returns without `vzeroupper`. The rest of the project is
/// compiled for baseline x86-64, whose floating-point code is legacy SSE;
/// on Intel cores, SSE code that runs while the upper halves are "dirty"
/// pays a merge on every instruction, and a thread that ran one faer
/// product then ran its scalar loops several times slower (measured: the
/// multiple-instance VB's per-instance moments, 25 ms on a clean thread
/// and 200-250 ms on a rayon worker that had run a product, on a Xeon;
/// AMD cores have no such penalty). `vzeroupper` changes no value the
/// program can see, so results are bit-for-bit the same with or without
/// it.
///
/// A call that splits its work over the pool ([`PAR`]) can also leave
/// the worker that ran the other part dirty, so such calls use
/// [`CleanUpper::POOL`], which, when the caller is outside the pool (the
/// pool is then idle but for this call's leftovers), also clears every
/// worker (one broadcast, tens of microseconds; the multiple-instance VB
/// on 16,000 bags went from 6.8-7.1 s with the calling thread cleaned to
/// 5.3-5.6 s). A caller inside the pool cleans its own thread only: a
/// broadcast waited on from inside a worker could queue behind long jobs.
struct CleanUpper {
    pool: bool,
}

impl CleanUpper {
    const THREAD: CleanUpper = CleanUpper { pool: false };
    const POOL: CleanUpper = CleanUpper { pool: true };
}

impl Drop for CleanUpper {
    fn drop(&mut self) {
        clear_upper();
        if self.pool && has_avx() && rayon::current_thread_index().is_none() {
            rayon::broadcast(|_| clear_upper());
        }
    }
}

fn has_avx() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// `vzeroupper` on the calling thread when the CPU has AVX (a no-op
/// elsewhere).
pub(crate) fn clear_upper() {
    #[cfg(target_arch = "x86_64")]
    if has_avx() {
        // SAFETY: the CPU supports AVX (checked on the line above), which
        // is all `vzeroupper` needs; it writes no memory and no register
        // the compiled code relies on across the call (the upper halves
        // are caller-saved under the System V and Windows ABIs).
        unsafe { vzeroupper() }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn vzeroupper() {
    std::arch::x86_64::_mm256_zeroupper();
}

fn view(m: &DMatrix<f64>) -> MatRef<'_, f64> {
    MatRef::from_column_major_slice(m.as_slice(), m.nrows(), m.ncols())
}

fn to_na(m: MatRef<'_, f64>) -> DMatrix<f64> {
    DMatrix::from_fn(m.nrows(), m.ncols(), |i, j| m[(i, j)])
}

fn col(v: &DVector<f64>) -> MatRef<'_, f64> {
    MatRef::from_column_major_slice(v.as_slice(), v.len(), 1)
}

/// Cholesky factor `A = L Lᵀ` of a symmetric positive-definite matrix (the
/// lower triangle of `A` is read).
pub struct Cholesky {
    llt: faer::linalg::solvers::Llt<f64>,
}

impl Cholesky {
    /// Factorise `a`; `None` if it is not numerically positive definite or
    /// holds a non-finite entry.
    pub fn new(a: &DMatrix<f64>) -> Option<Cholesky> {
        let _clean = CleanUpper::POOL;
        pinned();
        if a.nrows() != a.ncols() || a.iter().any(|x| !x.is_finite()) {
            return None;
        }
        view(a).llt(Side::Lower).ok().map(|llt| Cholesky { llt })
    }

    /// Order of the matrix.
    pub fn dim(&self) -> usize {
        self.llt.L().nrows()
    }

    /// `A⁻¹ b`.
    pub fn solve(&self, b: &DVector<f64>) -> DVector<f64> {
        let _clean = CleanUpper::POOL;
        pinned();
        let x = self.llt.solve(col(b));
        DVector::from_fn(b.len(), |i, _| x[(i, 0)])
    }

    /// `A⁻¹ B`.
    pub fn solve_mat(&self, b: &DMatrix<f64>) -> DMatrix<f64> {
        let _clean = CleanUpper::POOL;
        pinned();
        to_na(self.llt.solve(view(b)).as_ref())
    }

    /// `A⁻¹` (symmetric).
    pub fn inverse(&self) -> DMatrix<f64> {
        let _clean = CleanUpper::POOL;
        pinned();
        to_na(self.llt.inverse().as_ref())
    }

    /// The diagonal of `A⁻¹` without forming it: `(A⁻¹)_ii` is the squared
    /// norm of column `i` of `L⁻¹` (one triangular inverse, `n³/3` flops,
    /// instead of the `n³` of a full inverse).
    pub fn inverse_diagonal(&self) -> Vec<f64> {
        let _clean = CleanUpper::POOL;
        let l = self.llt.L();
        let n = l.nrows();
        let mut li = Mat::<f64>::zeros(n, n);
        faer::linalg::triangular_inverse::invert_lower_triangular(li.as_mut(), l, pinned());
        (0..n)
            .map(|i| (i..n).map(|k| li[(k, i)] * li[(k, i)]).sum())
            .collect()
    }

    /// The lower-triangular factor `L`.
    pub fn l(&self) -> DMatrix<f64> {
        to_na(self.llt.L())
    }

    /// `L⁻¹ B` (forward substitution).
    pub fn solve_lower(&self, b: &DMatrix<f64>) -> DMatrix<f64> {
        let _clean = CleanUpper::POOL;
        let mut x: Mat<f64> = view(b).to_owned();
        faer::linalg::triangular_solve::solve_lower_triangular_in_place(
            self.llt.L(),
            x.as_mut(),
            pinned(),
        );
        to_na(x.as_ref())
    }

    /// `log det A = 2 Σ log L_ii`.
    pub fn ln_det(&self) -> f64 {
        let l = self.llt.L();
        2.0 * (0..l.nrows()).map(|i| l[(i, i)].ln()).sum::<f64>()
    }
}

/// `L⁻¹ B` for a lower-triangular `L` given as a matrix (its strict upper
/// triangle is ignored), e.g. a factor kept from [`Cholesky::l`].
pub fn solve_lower_triangular(l: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
    let _clean = CleanUpper::POOL;
    let mut x: Mat<f64> = view(b).to_owned();
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(view(l), x.as_mut(), pinned());
    to_na(x.as_ref())
}

/// LU with partial pivoting of a finite square matrix; `None` if it is
/// singular to working precision (faer does not report singularity itself:
/// a pivot below `n·ε` of the largest is taken as zero).
fn nonsingular_lu(a: &DMatrix<f64>) -> Option<faer::linalg::solvers::PartialPivLu<f64>> {
    pinned();
    if a.nrows() != a.ncols() || a.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let lu = view(a).partial_piv_lu();
    let u = lu.U();
    let scale = (0..u.nrows())
        .map(|i| u[(i, i)].abs())
        .fold(0.0f64, f64::max);
    if (0..u.nrows()).any(|i| u[(i, i)].abs() <= f64::EPSILON * scale * u.nrows() as f64) {
        return None;
    }
    Some(lu)
}

/// `A⁻¹ b` by LU with partial pivoting; `None` if `A` is singular to
/// working precision or the solution is not finite.
pub fn lu_solve(a: &DMatrix<f64>, b: &DVector<f64>) -> Option<DVector<f64>> {
    let _clean = CleanUpper::POOL;
    // `nonsingular_lu` has pinned the split.
    let lu = nonsingular_lu(a)?;
    let x = lu.solve(col(b));
    let out = DVector::from_fn(b.len(), |i, _| x[(i, 0)]);
    out.iter().all(|v| v.is_finite()).then_some(out)
}

/// `A⁻¹ B` for a matrix `B` by the same factorisation as [`lu_solve`]
/// (one factorisation, every column solved: cheaper than [`lu_inverse`]
/// and a product); `None` if `A` is singular to working precision or the
/// solution is not finite.
pub fn lu_solve_mat(a: &DMatrix<f64>, b: &DMatrix<f64>) -> Option<DMatrix<f64>> {
    let _clean = CleanUpper::POOL;
    let lu = nonsingular_lu(a)?;
    if b.nrows() != a.nrows() {
        return None;
    }
    let out = to_na(lu.solve(view(b)).as_ref());
    out.iter().all(|v| v.is_finite()).then_some(out)
}

/// `A⁻¹` of a general square matrix by the same factorisation as
/// [`lu_solve`]; `None` if `A` is singular to working precision or the
/// inverse is not finite.
pub fn lu_inverse(a: &DMatrix<f64>) -> Option<DMatrix<f64>> {
    let _clean = CleanUpper::POOL;
    let out = to_na(nonsingular_lu(a)?.inverse().as_ref());
    out.iter().all(|v| v.is_finite()).then_some(out)
}

/// `y = A x` (or `Aᵀ x` with `transpose`) through faer's SIMD kernel,
/// single-threaded so that the sums' order never depends on the pool.
pub fn mat_vec(a: &DMatrix<f64>, x: &[f64], transpose: bool) -> Vec<f64> {
    let _clean = CleanUpper::THREAD;
    let a = view(a);
    let (a, rows) = if transpose {
        (a.transpose(), a.ncols())
    } else {
        (a, a.nrows())
    };
    assert_eq!(a.ncols(), x.len(), "mat_vec: dimension mismatch");
    let xv = MatRef::from_column_major_slice(x, x.len(), 1);
    let mut out = vec![0.0; rows];
    let dst = faer::MatMut::from_column_major_slice_mut(&mut out, rows, 1);
    faer::linalg::matmul::matmul(dst, faer::Accum::Replace, a, xv, 1.0, faer::Par::Seq);
    out
}

/// `out[..n, ..n] = A Bᵀ` for a product known to be symmetric (`A` and `B`
/// both `n × m`), written into the leading block of a column-major buffer
/// whose columns are `stride` apart: only the lower triangle is multiplied
/// (half the flops of the full product), then mirrored.
pub fn symmetric_product_into(a: &DMatrix<f64>, b: &DMatrix<f64>, out: &mut [f64], stride: usize) {
    let _clean = CleanUpper::POOL;
    let n = a.nrows();
    assert!(b.nrows() == n && a.ncols() == b.ncols() && stride >= n);
    assert!(out.len() >= stride * n.saturating_sub(1) + n);
    let mut dst = faer::MatMut::from_column_major_slice_with_stride_mut(out, n, n, stride);
    faer::linalg::matmul::triangular::matmul(
        dst.as_mut(),
        faer::linalg::matmul::triangular::BlockStructure::TriangularLower,
        faer::Accum::Replace,
        view(a),
        faer::linalg::matmul::triangular::BlockStructure::Rectangular,
        view(b).transpose(),
        faer::linalg::matmul::triangular::BlockStructure::Rectangular,
        1.0,
        pinned(),
    );
    for j in 1..n {
        for i in 0..j {
            dst[(i, j)] = dst[(j, i)];
        }
    }
}

/// `out = A X` for a `d × d` matrix `A` and `X` stored as columns of
/// length `d` one after another (column-major `d × n`, `n = x.len() / d`):
/// many short matrix–vector products as one product through faer's SIMD
/// kernel, single-threaded so that callers parallelise over fixed blocks.
pub fn mat_mul_cols(a: &DMatrix<f64>, x: &[f64], out: &mut [f64]) {
    let _clean = CleanUpper::THREAD;
    let d = a.nrows();
    assert!(d > 0 && a.ncols() == d && x.len().is_multiple_of(d) && out.len() == x.len());
    let n = x.len() / d;
    let xv = MatRef::from_column_major_slice(x, d, n);
    let dst = faer::MatMut::from_column_major_slice_mut(out, d, n);
    faer::linalg::matmul::matmul(dst, faer::Accum::Replace, view(a), xv, 1.0, faer::Par::Seq);
}

/// `out = L X` for a lower-triangular `d × d` matrix `L` (its strict upper
/// triangle is not read) and `X` stored as columns of length `d` one after
/// another, as [`mat_mul_cols`] but with half its flops (faer's triangular
/// kernel); single-threaded, so that callers parallelise over fixed blocks.
pub fn lower_triangular_mul_cols(l: &DMatrix<f64>, x: &[f64], out: &mut [f64]) {
    let _clean = CleanUpper::THREAD;
    let d = l.nrows();
    assert!(d > 0 && l.ncols() == d && x.len().is_multiple_of(d) && out.len() == x.len());
    let n = x.len() / d;
    let xv = MatRef::from_column_major_slice(x, d, n);
    let dst = faer::MatMut::from_column_major_slice_mut(out, d, n);
    use faer::linalg::matmul::triangular::{BlockStructure, matmul};
    matmul(
        dst,
        BlockStructure::Rectangular,
        faer::Accum::Replace,
        view(l),
        BlockStructure::TriangularLower,
        xv,
        BlockStructure::Rectangular,
        1.0,
        faer::Par::Seq,
    );
}

/// `acc += Z Zᵀ` (`d × d`, column-major, both triangles) for `Z` stored as
/// columns of length `d` one after another: a sum of rank-one terms as one
/// product, single-threaded.
pub fn add_gram_cols(z: &[f64], d: usize, acc: &mut [f64]) {
    let _clean = CleanUpper::THREAD;
    assert!(d > 0 && z.len().is_multiple_of(d) && acc.len() == d * d);
    let n = z.len() / d;
    let zv = MatRef::from_column_major_slice(z, d, n);
    let dst = faer::MatMut::from_column_major_slice_mut(acc, d, d);
    faer::linalg::matmul::matmul(
        dst,
        faer::Accum::Add,
        zv,
        zv.transpose(),
        1.0,
        faer::Par::Seq,
    );
}

/// Eigendecomposition of a symmetric matrix (the lower triangle is read):
/// `A = V diag(λ) Vᵀ`, eigenvalues in non-decreasing order.
pub struct SymmetricEigen {
    /// Eigenvalues, non-decreasing.
    pub eigenvalues: DVector<f64>,
    /// Orthonormal eigenvectors, one per column, in the eigenvalues' order.
    pub eigenvectors: DMatrix<f64>,
}

/// Symmetric eigendecomposition; `None` for a non-finite matrix or if the
/// iteration fails to converge.
pub fn symmetric_eigen(a: &DMatrix<f64>) -> Option<SymmetricEigen> {
    let _clean = CleanUpper::POOL;
    pinned();
    if a.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let e = view(a).self_adjoint_eigen(Side::Lower).ok()?;
    let s = e.S();
    let n = a.nrows();
    Some(SymmetricEigen {
        eigenvalues: DVector::from_fn(n, |i, _| s[i]),
        eigenvectors: to_na(e.U()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spd(n: usize) -> DMatrix<f64> {
        let b = DMatrix::from_fn(n, n, |i, j| ((i * 7 + j * 13) % 11) as f64 / 11.0 - 0.4);
        &b * b.transpose() + DMatrix::identity(n, n) * 0.5
    }

    /// Whether the upper halves of the calling thread's vector registers
    /// are in use (XINUSE bit 2 from `xgetbv(1)`); `None` where the CPU
    /// cannot say.
    #[cfg(target_arch = "x86_64")]
    fn upper_in_use() -> Option<bool> {
        use std::arch::x86_64::{__cpuid_count, _xgetbv};
        #[target_feature(enable = "xsave")]
        unsafe fn xinuse() -> u64 {
            // SAFETY: the caller has checked XSAVE and XGETBV (ECX = 1).
            unsafe { _xgetbv(1) }
        }
        if !(has_avx() && std::arch::is_x86_feature_detected!("xsave")) {
            return None;
        }
        // CPUID leaf 0xD, sub-leaf 1, EAX bit 2: XGETBV with ECX = 1.
        if __cpuid_count(0xD, 1).eax & 4 == 0 {
            return None;
        }
        // SAFETY: XSAVE and XGETBV's ECX = 1 form are supported (checked).
        Some(unsafe { xinuse() } & 4 != 0)
    }

    /// faer's x86 product kernels return without `vzeroupper`; every
    /// function here must hand the thread back clean (see [`CleanUpper`]).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn faer_calls_leave_the_upper_registers_clean() {
        let Some(_) = upper_in_use() else {
            eprintln!("skipped: this CPU cannot report the AVX register state");
            return;
        };
        let a = spd(128);
        let x: Vec<f64> = (0..128 * 64).map(|i| (i % 17) as f64 / 17.0).collect();
        let mut out = vec![0.0; x.len()];
        mat_mul_cols(&a, &x, &mut out);
        assert_eq!(upper_in_use(), Some(false), "mat_mul_cols");
        let c = Cholesky::new(&a).unwrap();
        assert_eq!(upper_in_use(), Some(false), "Cholesky::new");
        let _ = c.inverse();
        assert_eq!(upper_in_use(), Some(false), "Cholesky::inverse");
        let _ = symmetric_eigen(&a).unwrap();
        assert_eq!(upper_in_use(), Some(false), "symmetric_eigen");
    }

    #[test]
    fn column_products_match_nalgebra() {
        let a = spd(4);
        let x: Vec<f64> = (0..12).map(|i| (i as f64 * 0.37).sin()).collect();
        let mut out = vec![0.0; 12];
        mat_mul_cols(&a, &x, &mut out);
        let want = &a * DMatrix::from_column_slice(4, 3, &x);
        assert!(
            out.iter()
                .zip(want.iter())
                .all(|(u, v)| (u - v).abs() < 1e-12)
        );
        let mut acc = vec![1.0; 16];
        add_gram_cols(&x, 4, &mut acc);
        let z = DMatrix::from_column_slice(4, 3, &x);
        let want = &z * z.transpose() + DMatrix::from_element(4, 4, 1.0);
        assert!(
            acc.iter()
                .zip(want.iter())
                .all(|(u, v)| (u - v).abs() < 1e-12)
        );
    }

    #[test]
    fn mat_vec_matches_nalgebra() {
        let a = DMatrix::from_fn(7, 5, |i, j| (i * 5 + j) as f64 * 0.1 - 1.0);
        let x: Vec<f64> = (0..5).map(|i| i as f64 - 2.0).collect();
        let z: Vec<f64> = (0..7).map(|i| 0.5 * i as f64).collect();
        let ax = &a * DVector::from_vec(x.clone());
        let atz = a.transpose() * DVector::from_vec(z.clone());
        let m = mat_vec(&a, &x, false);
        let t = mat_vec(&a, &z, true);
        assert!(m.iter().zip(ax.iter()).all(|(u, v)| (u - v).abs() < 1e-12));
        assert!(t.iter().zip(atz.iter()).all(|(u, v)| (u - v).abs() < 1e-12));
    }

    #[test]
    fn cholesky_solves_and_inverts() {
        let a = spd(40);
        let c = Cholesky::new(&a).unwrap();
        let b = DVector::from_fn(40, |i, _| i as f64 - 3.0);
        let x = c.solve(&b);
        assert!((&a * &x - &b).amax() < 1e-9);
        let inv = c.inverse();
        assert!((&a * &inv - DMatrix::identity(40, 40)).amax() < 1e-9);
        let l = c.l();
        assert!((&l * l.transpose() - &a).amax() < 1e-9);
        let li = c.solve_lower(&DMatrix::identity(40, 40));
        assert!((&l * li - DMatrix::identity(40, 40)).amax() < 1e-9);
        let d = c.inverse_diagonal();
        for i in 0..40 {
            assert!((d[i] - inv[(i, i)]).abs() < 1e-12 * inv[(i, i)].abs().max(1.0));
        }
        let det: f64 = a.clone().determinant();
        assert!((c.ln_det() - det.ln()).abs() < 1e-8);
        assert!(Cholesky::new(&(-a)).is_none());
    }

    #[test]
    fn cholesky_is_thread_count_independent() {
        let a = spd(300);
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| Cholesky::new(&a).unwrap().inverse());
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
            .install(|| Cholesky::new(&a).unwrap().inverse());
        assert_eq!(one.as_slice(), two.as_slice());
    }

    /// Every factorisation gives the same bits in a pool of one thread as
    /// in pools of several: faer's kernels read how many parts to split
    /// their work into from its global setting, which by default follows
    /// the current pool (the keyword prior's eigendecomposition differed in
    /// its last bits between `RAYON_NUM_THREADS=1` and 2 before [`PAR`]
    /// fixed it).
    #[test]
    fn factorisations_are_thread_count_independent() {
        // B = I − dQ of ring-and-chord graphs (the keyword prior's matrix)
        // and a dense SPD matrix, at sizes below and above faer's blocking.
        let graph = |n: usize| {
            let mut a = DMatrix::<f64>::zeros(n, n);
            for i in 0..n {
                for j in [(i + 1) % n, (i * 7 + 3) % n] {
                    if j != i {
                        a[(i, j)] += 1.0;
                        a[(j, i)] += 1.0;
                    }
                }
            }
            let d: Vec<f64> = (0..n).map(|i| a.row(i).sum().sqrt()).collect();
            DMatrix::from_fn(n, n, |i, j| {
                f64::from(u8::from(i == j)) - 0.85 * a[(i, j)] / (d[i] * d[j])
            })
        };
        let mats = [graph(20), graph(65), graph(150), graph(400), spd(300)];
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    mats.iter()
                        .map(|a| {
                            let b = DVector::from_fn(a.nrows(), |i, _| (i as f64 * 0.37).sin());
                            let e = symmetric_eigen(a).unwrap();
                            let c = Cholesky::new(a).unwrap();
                            let mut bits: Vec<u64> = Vec::new();
                            for v in [
                                e.eigenvalues.as_slice(),
                                e.eigenvectors.as_slice(),
                                lu_solve(a, &b).unwrap().as_slice(),
                                lu_inverse(a).unwrap().as_slice(),
                                c.inverse().as_slice(),
                                c.solve(&b).as_slice(),
                                &c.inverse_diagonal(),
                                c.solve_lower(&a.clone()).as_slice(),
                            ] {
                                bits.extend(v.iter().map(|x| x.to_bits()));
                            }
                            bits
                        })
                        .collect::<Vec<_>>()
                })
        };
        let one = run(1);
        for threads in [2, 3, 4] {
            let many = run(threads);
            for (k, (x, y)) in one.iter().zip(&many).enumerate() {
                assert!(x == y, "matrix {k}: {threads} threads differ from one");
            }
        }
    }

    #[test]
    fn lu_and_eigen() {
        let a = DMatrix::from_row_slice(3, 3, &[2.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 4.0]);
        let b = DVector::from_row_slice(&[1.0, 2.0, 3.0]);
        let x = lu_solve(&a, &b).unwrap();
        assert!((&a * x - &b).amax() < 1e-12);
        assert!(lu_solve(&DMatrix::zeros(3, 3), &b).is_none());
        let inv = lu_inverse(&a).unwrap();
        let id = &a * &inv;
        for i in 0..3 {
            for j in 0..3 {
                assert!((id[(i, j)] - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12);
            }
        }
        assert!(lu_inverse(&DMatrix::zeros(3, 3)).is_none());
        assert!(lu_inverse(&DMatrix::zeros(2, 3)).is_none());
        let e = symmetric_eigen(&a).unwrap();
        let rec =
            &e.eigenvectors * DMatrix::from_diagonal(&e.eigenvalues) * e.eigenvectors.transpose();
        assert!((rec - &a).amax() < 1e-12);
        assert!(e.eigenvalues[0] <= e.eigenvalues[1] && e.eigenvalues[1] <= e.eigenvalues[2]);
    }
}
