//! The variational state's bookkeeping: construction, the cached linear
//! predictors and quadratic forms, packing to and from one vector (what the
//! fixed-point executor extrapolates), and one sweep.

use super::*;

impl<'a> State<'a> {
    pub(crate) fn new(bags: &'a Bags, y: Vec<bool>, pri: MilPriors, init: &[f64]) -> State<'a> {
        let lay = Layout::of(bags);
        let n_inst = bags.n_instances();
        let diag = |d: usize, s2: f64| DMatrix::from_diagonal_element(d, d, s2);
        let (iv, sv) = (pri.intercept_var, pri.slope_var);
        let mut s = State {
            bags,
            y,
            lay,
            pri,
            m: init.to_vec(),
            v: [
                diag(1, iv),
                diag(lay.d0, sv),
                diag(lay.d1, sv),
                diag(1, iv),
                diag(lay.d0, sv),
                diag(1, iv),
                diag(lay.d1, sv),
            ],
            mu_u: vec![0.0; n_inst],
            delta: vec![0.0; n_inst],
            e: vec![0.5; n_inst],
            eu: vec![0.0; n_inst],
            eta: vec![0.0; n_inst],
            ln_zu: vec![0.0; n_inst],
            nu: vec![0.0; n_inst],
            mu_star: vec![0.0; bags.n_bags()],
            t: vec![0.0; bags.n_bags()],
            ln_zy: vec![0.0; bags.n_bags()],
            q_bag: vec![0.0; n_inst],
            q_inst: vec![0.0; n_inst],
            w_bag: [0u8, 1].map(|m| vec![0.0; bags.feature_len(m)]),
            x_sum: [0u8, 1].map(|m| {
                let mut t = vec![0.0; bags.width(m)];
                for j in (0..n_inst).filter(|&j| bags.modality[j] == m) {
                    t.iter_mut()
                        .zip(bags.features(j))
                        .for_each(|(t, x)| *t += x);
                }
                t
            }),
        };
        s.constant_covariances();
        for m in 0..2u8 {
            s.refresh_quads(m, true);
            s.refresh_quads(m, false);
        }
        // Locals consistent with the starting means: q(U) at its prior
        // location (Δ = 0), q(y*) at the implied bag predictor.
        s.refresh_eta();
        s.refresh_nu(None);
        for j in 0..n_inst {
            s.set_u(j, s.nu[j], 0.0);
        }
        s.update_ystar_all();
        s
    }

    /// Set q(U_ij) to location `mu`, shift `delta`, with its moments.
    pub(crate) fn set_u(&mut self, j: usize, mu: f64, delta: f64) {
        let (e, eu, ln_z) = u_moments(mu, delta);
        self.mu_u[j] = mu;
        self.delta[j] = delta;
        self.e[j] = e;
        self.eu[j] = eu;
        self.ln_zu[j] = ln_z;
    }

    /// Set q(y*_i) to location `mu`, with its moments.
    #[cfg(test)]
    pub(crate) fn set_ystar(&mut self, i: usize, mu: f64) {
        let (t, ln_z) = ystar_moments(mu, self.y[i]);
        self.mu_star[i] = mu;
        self.t[i] = t;
        self.ln_zy[i] = ln_z;
    }

    /// V_α, V_a, V_b, V_c, V_d depend on the data and priors only (Hu
    /// 2024, Appendix B.1.1, B.1.4–7): set once.
    pub(super) fn constant_covariances(&mut self) {
        let counts = self.bags.counts();
        self.v[ALPHA][(0, 0)] = 1.0 / (1.0 / self.pri.intercept_var + self.bags.n_bags() as f64);
        for (m, (ia, is)) in [(A, B), (C, D)].into_iter().enumerate() {
            self.v[ia][(0, 0)] = 1.0 / (1.0 / self.pri.intercept_var + counts[m] as f64);
            let d = self.bags.width(m as u8);
            if d > 0 {
                // XᵀX of the modality's block in one product.
                let mut acc = vec![0.0; d * d];
                let block = self.bags.block(m as u8);
                if !block.is_empty() {
                    add_gram_cols(block, d, &mut acc);
                }
                let p = DMatrix::from_fn(d, d, |r, c| {
                    acc[c * d + r]
                        + if r == c {
                            1.0 / self.pri.slope_var
                        } else {
                            0.0
                        }
                });
                self.v[is] = gaussian(p, &DVector::zeros(d)).1;
            }
        }
    }

    /// Refresh the cached quadratic forms of modality `m` (bag level, with
    /// `V x`, or instance level).
    pub(super) fn refresh_quads(&mut self, m: u8, bag_level: bool) {
        let vi = match (bag_level, m) {
            (true, 0) => BETA,
            (true, _) => GAMMA,
            (false, 0) => B,
            (false, _) => D,
        };
        if self.v[vi].nrows() == 0 {
            return;
        }
        // V x and xᵀV x of every instance, in parallel over runs of bags:
        // each run's instances of the modality are one contiguous block of
        // columns, multiplied by V in place (faer's kernel).
        let bags = self.bags;
        let (_, inst_cuts) = run_cuts(bags, 0..bags.n_bags());
        let cuts: Vec<usize> = inst_cuts.iter().map(|&j| bags.block_start(m, j)).collect();
        let v = &self.v[vi];
        let x_all = bags.block(m);
        // The instance level keeps only xᵀVx (its V is constant): V x goes
        // to a scratch block.
        let mut scratch = Vec::new();
        let (w_all, q_all) = if bag_level {
            (&mut self.w_bag[m as usize], &mut self.q_bag)
        } else {
            scratch.resize(x_all.len(), 0.0);
            (&mut scratch, &mut self.q_inst)
        };
        split_at_cuts(w_all, &cuts)
            .into_par_iter()
            .zip(split_at_cuts(q_all, &inst_cuts))
            .zip(inst_cuts.par_windows(2).zip(cuts.par_windows(2)))
            .for_each(|((w, q), (r, c))| {
                if c[1] == c[0] {
                    return;
                }
                mat_mul_cols(v, &x_all[c[0]..c[1]], w);
                for j in (r[0]..r[1]).filter(|&j| bags.modality[j] == m) {
                    let span = bags.feature_span(j);
                    let wj = &w[span.start - c[0]..span.end - c[0]];
                    q[j - r[0]] = dot(wj, &x_all[span]);
                }
            });
    }

    pub(super) fn block(&self, m: u8) -> (std::ops::Range<usize>, usize) {
        if m == 0 {
            (self.lay.beta(), BETA)
        } else {
            (self.lay.gamma(), GAMMA)
        }
    }

    /// Recompute E[ν_ij] of modality `only`'s instances (both if `None`) from
    /// the means.
    pub(crate) fn refresh_nu(&mut self, only: Option<u8>) {
        let (bags, lay, means) = (self.bags, self.lay, &self.m);
        self.nu
            .par_iter_mut()
            .enumerate()
            .with_min_len(INSTANCE_CHUNK)
            .for_each(|(j, nu)| {
                let m = bags.modality[j];
                if only.is_none_or(|o| o == m) {
                    *nu = means[lay.inst_intercept(m)]
                        + dot(bags.features(j), &means[lay.inst_slopes(m)]);
                }
            });
    }

    /// Recompute E[η_ij] of modality `m`'s instances (both if `None`).
    pub(super) fn refresh_eta_of(&mut self, only: Option<u8>) {
        let (bags, lay, means) = (self.bags, self.lay, &self.m);
        self.eta
            .par_iter_mut()
            .enumerate()
            .with_min_len(INSTANCE_CHUNK)
            .for_each(|(j, eta)| {
                let m = bags.modality[j];
                if only.is_none_or(|o| o == m) {
                    *eta = dot(bags.features(j), &means[lay.bag_slopes(m)]);
                }
            });
    }

    pub(super) fn refresh_eta(&mut self) {
        self.refresh_eta_of(None);
    }

    /// `Σ_j E[δ_ij] E[η_ij]` per modality for bag `i`.
    pub(super) fn es(&self, i: usize) -> [f64; 2] {
        let b = &self.bags.bags[i];
        let mut out = [0.0; 2];
        for j in b.start..b.end {
            out[self.bags.modality[j] as usize] += self.e[j] * self.eta[j];
        }
        out
    }

    /// The variational parameters as one vector: θ means, then μᵁ and Δ
    /// of every instance, then μ* of every bag. The covariances are not
    /// part of it: given these, each is a closed form (V_α, V_a, V_b, V_c,
    /// V_d are constants; V_β and V_γ depend on E[δ] only).
    pub(crate) fn pack(&self) -> Vec<f64> {
        let mut x = self.m.clone();
        x.extend(&self.mu_u);
        x.extend(&self.delta);
        x.extend(&self.mu_star);
        x
    }

    /// Set the state from [`State::pack`]'s vector, with the covariances
    /// that maximise the ELBO given it.
    pub(crate) fn load(&mut self, x: &[f64]) {
        let (k, n, nb) = (self.m.len(), self.mu_u.len(), self.mu_star.len());
        debug_assert_eq!(x.len(), k + 2 * n + nb);
        self.m.copy_from_slice(&x[..k]);
        self.mu_u.copy_from_slice(&x[k..k + n]);
        self.delta.copy_from_slice(&x[k + n..k + 2 * n]);
        self.mu_star.copy_from_slice(&x[k + 2 * n..]);
        // E[ν], E[η] and q(U)'s moments in one pass over the instances.
        let (bags, lay, means) = (self.bags, self.lay, &self.m);
        (
            self.nu.par_iter_mut(),
            self.eta.par_iter_mut(),
            self.e.par_iter_mut(),
            self.eu.par_iter_mut(),
            self.ln_zu.par_iter_mut(),
            self.mu_u.par_iter(),
            self.delta.par_iter(),
        )
            .into_par_iter()
            .enumerate()
            .with_min_len(INSTANCE_CHUNK)
            .for_each(|(j, (nu, eta, e, eu, lz, &mu, &dl))| {
                let m = bags.modality[j];
                let x = bags.features(j);
                *nu = means[lay.inst_intercept(m)] + dot(x, &means[lay.inst_slopes(m)]);
                *eta = dot(x, &means[lay.bag_slopes(m)]);
                (*e, *eu, *lz) = u_moments(mu, dl);
            });
        let y = &self.y;
        (
            self.t.par_iter_mut(),
            self.ln_zy.par_iter_mut(),
            self.mu_star.par_iter(),
        )
            .into_par_iter()
            .enumerate()
            .with_min_len(BAG_CHUNK)
            .for_each(|(i, (t, lz, &mu))| (*t, *lz) = ystar_moments(mu, y[i]));
        for m in 0..2u8 {
            let (range, vi) = self.block(m);
            if !range.is_empty() {
                let (p, _) = self.bag_slope_system(m);
                self.v[vi] = gaussian(p, &DVector::zeros(range.len())).1;
                self.refresh_quads(m, true);
            }
        }
    }

    /// One sweep: V1–V7, then per bag V8 and V9–V10.
    pub(crate) fn sweep(&mut self) {
        self.update_alpha();
        self.update_bag_slopes(0);
        self.update_bag_slopes(1);
        self.update_inst_level();
        self.local_steps(0..self.bags.n_bags());
    }
}
