//! The global Gaussian factors V1–V7 (Hu 2024, Appendix B.1.1–7): q(α),
//! the bag slopes q(β), q(γ), and the instance level q(a), q(b), q(c),
//! q(d), each the exact coordinate update given the rest.

use super::*;

impl<'a> State<'a> {
    /// V1: q(α).
    pub(crate) fn update_alpha(&mut self) {
        let v = self.v[ALPHA][(0, 0)];
        let r = chunked_sum(self.bags.n_bags(), BAG_CHUNK, |range| {
            range
                .map(|i| {
                    let [e0, e1] = self.es(i);
                    self.t[i] - e0 - e1
                })
                .sum()
        });
        self.m[self.lay.alpha()] = v * r;
    }

    /// Precision and linear term of q(β) (m = 0) or q(γ) (m = 1) at the
    /// current E[δ], q(y*) and other means (V2, V3; Appendix B.1.2–3 with
    /// `X_iᵀE[l_i l_iᵀ]X_i = s sᵀ + Σ_j v_ij x_ijᵀ x_ij`).
    pub(super) fn bag_slope_system(&self, m: u8) -> (DMatrix<f64>, DVector<f64>) {
        let d = self.bags.width(m);
        // Σ_j v_j x_j x_jᵀ + Σ_i s_i s_iᵀ as one Gram product Z Zᵀ per run of
        // bags (columns √v_j x_j and s_i gathered, faer's kernel), runs in
        // parallel, their sums added in order.
        let alpha = self.m[self.lay.alpha()];
        let part = |bags: std::ops::Range<usize>| -> (Vec<f64>, Vec<f64>) {
            let (i0, i1) = (
                self.bags.bags[bags.start].start,
                self.bags.bags[bags.end - 1].end,
            );
            let mut z = Vec::with_capacity((i1 - i0 + bags.len()) * d);
            let mut rhs = vec![0.0; d];
            let mut s = vec![0.0; d];
            for i in bags {
                let b = &self.bags.bags[i];
                s.iter_mut().for_each(|v| *v = 0.0);
                let mut other = 0.0;
                for j in b.start..b.end {
                    if self.bags.modality[j] != m {
                        other += self.e[j] * self.eta[j];
                        continue;
                    }
                    let x = self.bags.features(j);
                    let ej = self.e[j];
                    for (sk, xk) in s.iter_mut().zip(x) {
                        *sk += ej * xk;
                    }
                    let vj = ej * (1.0 - ej);
                    if vj > 0.0 {
                        let r = vj.sqrt();
                        z.extend(x.iter().map(|xk| r * xk));
                    }
                }
                let w = self.t[i] - alpha - other;
                for (r, sc) in rhs.iter_mut().zip(&s) {
                    *r += w * sc;
                }
                z.extend_from_slice(&s);
            }
            let mut acc = vec![0.0; d * d];
            if !z.is_empty() {
                add_gram_cols(&z, d, &mut acc);
            }
            (acc, rhs)
        };
        let mut p = DMatrix::from_diagonal_element(d, d, 1.0 / self.pri.slope_var);
        let mut rhs = DVector::zeros(d);
        for (acc, r) in chunked_map(self.bags.n_bags(), BAG_CHUNK, part) {
            for row in 0..d {
                rhs[row] += r[row];
                for c in 0..=row {
                    p[(row, c)] += acc[c * d + row];
                }
            }
        }
        (p, rhs)
    }

    /// V2 (m = 0, β) and V3 (m = 1, γ).
    pub(crate) fn update_bag_slopes(&mut self, m: u8) {
        let (range, vi) = self.block(m);
        if range.is_empty() {
            return;
        }
        let (p, rhs) = self.bag_slope_system(m);
        let (mean, cov) = gaussian(p, &rhs);
        self.m[range].copy_from_slice(mean.as_slice());
        self.v[vi] = cov;
        self.refresh_quads(m, true);
        self.refresh_eta_of(Some(m));
    }

    /// V4 then V5 and V6 then V7 (q(a), q(b), q(c), q(d) in the sweep's
    /// order) from one pass over the instances: both updates read E[U]
    /// only through `Σ_j E[U_ij]` and `Σ_j x_ij E[U_ij]`, and E[ν] only
    /// through those and the constant `Σ_j x_ij`, so
    /// `m_a = V_a(Σ E[U] − (Σ x)ᵀ m_b)`, then
    /// `m_b = V_b(Σ x E[U] − m_a Σ x)` — what
    /// [`State::update_inst_intercept`] and [`State::update_inst_slopes`]
    /// give one after another (tested), with E[ν] refreshed once at the end.
    pub(crate) fn update_inst_level(&mut self) {
        let (bags, eu) = (self.bags, &self.eu);
        let widths = [bags.width(0), bags.width(1)];
        // Per modality: Σ E[U] first, then Σ x E[U].
        let parts = chunked_map(bags.n_instances(), INSTANCE_CHUNK, |range| {
            let mut acc = widths.map(|d| vec![0.0; d + 1]);
            for j in range {
                let a = &mut acc[bags.modality[j] as usize];
                let u = eu[j];
                a[0] += u;
                for (r, x) in a[1..].iter_mut().zip(bags.features(j)) {
                    *r += u * x;
                }
            }
            acc
        });
        let mut sums = widths.map(|d| vec![0.0; d + 1]);
        for part in parts {
            for (s, p) in sums.iter_mut().zip(part) {
                s.iter_mut().zip(p).for_each(|(s, p)| *s += p);
            }
        }
        // A modality without instances gets its prior means (zero), as the
        // updates one by one give.
        for m in 0..2u8 {
            let (k, range) = (self.lay.inst_intercept(m), self.lay.inst_slopes(m));
            let (va, vb) = if m == 0 { (A, B) } else { (C, D) };
            let xs = &self.x_sum[m as usize];
            let su = &sums[m as usize];
            let a = self.v[va][(0, 0)] * (su[0] - dot(xs, &self.m[range.clone()]));
            self.m[k] = a;
            if !range.is_empty() {
                let rhs: Vec<f64> = su[1..].iter().zip(xs).map(|(u, x)| u - a * x).collect();
                let mean = mat_vec(&self.v[vb], &rhs);
                self.m[range].copy_from_slice(&mean);
            }
        }
        self.refresh_nu(None);
    }

    /// V4/V6: q(a) (m = 0) or q(c) (m = 1).
    #[cfg(test)]
    pub(crate) fn update_inst_intercept(&mut self, m: u8) {
        let k = self.lay.inst_intercept(m);
        let slopes = self.lay.inst_slopes(m);
        let (bags, eu, slopes) = (self.bags, &self.eu, &self.m[slopes]);
        let r = chunked_sum(bags.n_instances(), INSTANCE_CHUNK, |range| {
            range
                .filter(|&j| bags.modality[j] == m)
                .map(|j| eu[j] - dot(bags.features(j), slopes))
                .sum()
        });
        let shift = self.v[if m == 0 { A } else { C }][(0, 0)] * r - self.m[k];
        self.m[k] += shift;
        self.nu
            .par_iter_mut()
            .enumerate()
            .with_min_len(INSTANCE_CHUNK)
            .for_each(|(j, nu)| {
                if bags.modality[j] == m {
                    *nu += shift;
                }
            });
    }

    /// V5/V7: q(b) (m = 0) or q(d) (m = 1); the covariance is constant.
    #[cfg(test)]
    pub(crate) fn update_inst_slopes(&mut self, m: u8) {
        let range = self.lay.inst_slopes(m);
        let d = range.len();
        if d == 0 {
            return;
        }
        let k = self.lay.inst_intercept(m);
        let (bags, eu, a) = (self.bags, &self.eu, self.m[k]);
        let parts = chunked_map(bags.n_instances(), INSTANCE_CHUNK, |range| {
            let mut rhs = vec![0.0; d];
            for j in range.filter(|&j| bags.modality[j] == m) {
                let w = eu[j] - a;
                for (r, x) in rhs.iter_mut().zip(bags.features(j)) {
                    *r += w * x;
                }
            }
            rhs
        });
        let mut rhs = vec![0.0; d];
        for part in parts {
            rhs.iter_mut().zip(part).for_each(|(r, p)| *r += p);
        }
        let mean = mat_vec(&self.v[if m == 0 { B } else { D }], &rhs);
        self.m[range].copy_from_slice(&mean);
        self.refresh_nu(Some(m));
    }
}

/// Mean and covariance of a Gaussian with precision `p` (lower triangle
/// filled) and linear term `rhs`.
pub(super) fn gaussian(mut p: DMatrix<f64>, rhs: &DVector<f64>) -> (DVector<f64>, DMatrix<f64>) {
    let d = p.nrows();
    for c in 0..d {
        for r in c + 1..d {
            p[(c, r)] = p[(r, c)];
        }
    }
    // The precision is the prior's (positive definite) plus positive
    // semi-definite terms, so the factorisation exists.
    let ch = Cholesky::new(&p).expect("prior precision keeps the matrix positive definite");
    (ch.solve(rhs), ch.inverse())
}
