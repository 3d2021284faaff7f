//! The CAVI updates of VBSS (Hu 2024, §1.3.2–1.3.4 with the errata of
//! App. A.1 fixed): q(z), the three forms of the θ step, q(a), q(b), q(σ²)
//! and q(α), in the sweep's order.

use super::*;

impl<'a> State<'a> {
    pub(super) fn new(prior: &'a ThetaPrior, y: &'a [bool], o: VbssOptions) -> State<'a> {
        let n = y.len();
        let e0 = o.alpha_init.ln();
        State {
            prior,
            y,
            o,
            n,
            mu_a: 0.0,
            s_a: 0.0,
            mu_b: 1.0,
            s_b: 0.0,
            mu_t: prior.theta0.clone(),
            s_t: vec![0.0; n],
            block: None,
            a_sig: o.tau + n as f64 / 2.0,
            b_sig: o.tau + n as f64 / 2.0,
            kappa: 1.0,
            alpha: match o.alpha {
                AlphaModel::Shared => vec![(1.0, 1.0)],
                AlphaModel::PerWord => vec![(1.0, 1.0); n],
            },
            e_ln_alpha: vec![e0; n],
            ez: vec![0.0; n],
            ez2: vec![0.0; n],
            hz: vec![0.0; n],
            pi: vec![0.0; n],
            p_theta0: prior.apply_precision(&prior.theta0),
            rot0: prior.rotate(&prior.theta0),
            mu_rot: None,
            p_dense: (o.theta_update == ThetaUpdate::Coordinate).then(|| prior.precision()),
            tilt: Vec::new(),
        }
    }

    pub(super) fn m(&self, i: usize) -> f64 {
        self.mu_a + self.mu_b * self.mu_t[i]
    }

    /// The tilt of coordinate `j` of `(θ, a, b)` (0 without one).
    fn tilt(&self, j: usize) -> f64 {
        self.tilt.get(j).copied().unwrap_or(0.0)
    }

    pub(super) fn e_b2(&self) -> f64 {
        self.mu_b * self.mu_b + self.s_b
    }

    /// (U1) `q(z_i)`: truncated normal for a known keyword, the two-piece
    /// normal otherwise; `π_i = q(z_i > 0)` from its log-odds.
    pub(super) fn update_z(&mut self) {
        for i in 0..self.n {
            self.set_z(i, ZFactor::at(self.m(i), self.e_ln_alpha[i], self.y[i]));
        }
    }

    /// Store word `i`'s `q(z_i)` moments.
    pub(super) fn set_z(&mut self, i: usize, f: ZFactor) {
        self.ez[i] = f.ez;
        self.ez2[i] = f.ez2;
        self.hz[i] = f.hz;
        self.pi[i] = f.pi;
    }

    /// (U2) and its exact alternatives.
    pub(super) fn update_theta(&mut self) {
        let eb2 = self.e_b2();
        let k = self.kappa;
        let pr = self.prior;
        match self.o.theta_update {
            ThetaUpdate::Published => {
                self.mu_rot = None;
                for i in 0..self.n {
                    let w = k / pr.u_diag[i];
                    let s = 1.0 / (eb2 + w);
                    self.s_t[i] = s;
                    self.mu_t[i] =
                        s * (self.mu_b * self.ez[i] - self.mu_a * self.mu_b + w * pr.theta0[i]);
                }
            }
            ThetaUpdate::Coordinate => {
                self.mu_rot = None;
                let p = self.p_dense.as_ref().expect("dense P in coordinate mode");
                for i in 0..self.n {
                    let s = 1.0 / (eb2 + k * p[(i, i)]);
                    let mut coupling = 0.0;
                    for j in 0..self.n {
                        if j != i {
                            coupling += p[(i, j)] * (self.mu_t[j] - pr.theta0[j]);
                        }
                    }
                    self.s_t[i] = s;
                    self.mu_t[i] = s
                        * (self.mu_b * (self.ez[i] - self.mu_a)
                            + k * (p[(i, i)] * pr.theta0[i] - coupling)
                            + self.tilt(i));
                }
            }
            ThetaUpdate::Block => {
                // Σ = V diag(1/(E[b²] + κ p_k)) Vᵀ, μ = Σ(μ_b(E[z] − μ_a) + κ P θ₀).
                let r: Vec<f64> = (0..self.n)
                    .map(|i| {
                        self.mu_b * (self.ez[i] - self.mu_a) + k * self.p_theta0[i] + self.tilt(i)
                    })
                    .collect();
                let d = self.set_block(eb2, k);
                let mut c = pr.rotate(&r);
                for (ck, dk) in c.iter_mut().zip(&d) {
                    *ck *= dk;
                }
                self.mu_t = pr.unrotate(&c);
                self.mu_rot = Some(c);
            }
        }
    }

    /// `Σ = V diag(1/(c₁ + c₂ p_k)) Vᵀ`: its diagonal, `ln det Σ` and
    /// `tr(PΣ)`; returns the `1/(c₁ + c₂ p_k)`.
    pub(super) fn set_block(&mut self, c1: f64, c2: f64) -> Vec<f64> {
        let pr = self.prior;
        let d: Vec<f64> = pr
            .precision_eigenvalues
            .iter()
            .map(|p| 1.0 / (c1 + c2 * p))
            .collect();
        let trace = d.iter().sum();
        let ln_det: f64 = d.iter().map(|x| x.ln()).sum();
        let tr: f64 = pr
            .precision_eigenvalues
            .iter()
            .zip(&d)
            .map(|(p, dk)| p * dk)
            .sum();
        self.block = Some(BlockCov {
            c: (c1, c2),
            ln_det,
            tr,
            trace,
        });
        d
    }

    /// (U3) `q(a)`.
    pub(super) fn update_a(&mut self) {
        let n = self.n as f64;
        self.s_a = 1.0 / (n + 1.0 / self.o.sigma_a2);
        let sz: f64 = self.ez.iter().sum();
        let st: f64 = self.mu_t.iter().sum();
        self.mu_a = self.s_a * (sz - self.mu_b * st + self.tilt(self.n));
    }

    /// `Σ_i S_θi`.
    pub(super) fn sum_s(&self) -> f64 {
        match self.block {
            Some(b) if self.o.theta_update == ThetaUpdate::Block => b.trace,
            _ => self.s_t.iter().sum(),
        }
    }

    pub(super) fn e_tt(&self) -> f64 {
        self.mu_t.iter().map(|m| m * m).sum::<f64>() + self.sum_s()
    }

    /// (U4) `q(b)` (the dissertation's `E_{q(b)}[a]` read as `E_{q(a)}[a]`).
    pub(super) fn update_b(&mut self) {
        self.s_b = 1.0 / (self.e_tt() + 1.0 / self.o.sigma_b2);
        let tz: f64 = self.mu_t.iter().zip(&self.ez).map(|(t, z)| t * z).sum();
        let st: f64 = self.mu_t.iter().sum();
        self.mu_b = self.s_b * (tz - self.mu_a * st + self.tilt(self.n + 1));
    }

    /// `g = E[(θ − θ₀)ᵀ U⁻¹ (θ − θ₀)] / 2`.
    pub(super) fn g(&self) -> f64 {
        let tr = match self.block {
            Some(b) if self.o.theta_update == ThetaUpdate::Block => b.tr,
            _ => self
                .prior
                .p_diag
                .iter()
                .zip(&self.s_t)
                .map(|(p, s)| p * s)
                .sum(),
        };
        let quad = match &self.mu_rot {
            Some(c) => c
                .iter()
                .zip(&self.rot0)
                .zip(&self.prior.precision_eigenvalues)
                .map(|((c, r), p)| p * (c - r) * (c - r))
                .sum(),
            None => self.prior.quad(&self.mu_t),
        };
        0.5 * tr + 0.5 * quad
    }

    /// (U5) `q(σ²) = IG(τ + n/2, τ + g)`.
    pub(super) fn update_sigma(&mut self) {
        self.a_sig = self.o.tau + self.n as f64 / 2.0;
        self.b_sig = self.o.tau + self.g();
        self.kappa = self.a_sig / self.b_sig;
    }

    /// (U6′) shared or (U6) per-word `q(α)`, with the digamma sign fixed.
    pub(super) fn update_alpha(&mut self) {
        match self.o.alpha {
            AlphaModel::Shared => {
                let a1 = 1.0
                    + (0..self.n)
                        .filter(|&i| !self.y[i])
                        .map(|i| self.pi[i])
                        .sum::<f64>();
                let b1 = 1.0 + self.y.iter().filter(|&&v| v).count() as f64;
                self.alpha[0] = (a1, b1);
                let e = digamma(a1) - digamma(a1 + b1);
                self.e_ln_alpha.iter_mut().for_each(|v| *v = e);
            }
            AlphaModel::PerWord => {
                for i in 0..self.n {
                    let (a1, b1) = if self.y[i] {
                        (1.0, 2.0)
                    } else {
                        (1.0 + self.pi[i], 1.0)
                    };
                    self.alpha[i] = (a1, b1);
                    self.e_ln_alpha[i] = digamma(a1) - digamma(a1 + b1);
                }
            }
        }
    }

    /// The variational parameters as one vector (what a sweep starting
    /// with `q(z)` reads): `μ_a, S_a, μ_b, S_b, B_σ`, the Beta parameters,
    /// `μ_θ`, then `(c₁, c₂)` of a block `q(θ)` or the `S_θi`. Positive
    /// entries are stored as logarithms so that SQUAREM's extrapolation
    /// keeps them positive.
    pub(super) fn pack(&self) -> Vec<f64> {
        let mut x = vec![
            self.mu_a,
            self.s_a.ln(),
            self.mu_b,
            self.s_b.ln(),
            self.b_sig.ln(),
        ];
        for &(a1, b1) in &self.alpha {
            x.push(a1.ln());
            x.push(b1.ln());
        }
        x.extend_from_slice(&self.mu_t);
        match self.block {
            Some(b) if self.o.theta_update == ThetaUpdate::Block => {
                x.push(b.c.0.ln());
                x.push(b.c.1.ln());
            }
            _ => x.extend(self.s_t.iter().map(|v| v.ln())),
        }
        x
    }

    pub(super) fn load(&mut self, x: &[f64]) {
        let n = self.n;
        self.mu_a = x[0];
        self.s_a = x[1].exp();
        self.mu_b = x[2];
        self.s_b = x[3].exp();
        self.b_sig = x[4].exp();
        self.kappa = self.a_sig / self.b_sig;
        let mut at = 5;
        for j in 0..self.alpha.len() {
            self.alpha[j] = (x[at].exp(), x[at + 1].exp());
            at += 2;
        }
        self.refresh_e_ln_alpha();
        // Vᵀμ_θ is kept when μ_θ is the one it belongs to (the executor
        // mostly evaluates the map where it just left off): one O(n²)
        // product of three saved.
        let same_mean = self.mu_rot.is_some() && self.mu_t == x[at..at + n];
        self.mu_t.copy_from_slice(&x[at..at + n]);
        at += n;
        if self.o.theta_update == ThetaUpdate::Block {
            self.set_block(x[at].exp(), x[at + 1].exp());
            if !same_mean {
                self.mu_rot = Some(self.prior.rotate(&self.mu_t));
            }
        } else {
            self.mu_rot = None;
            for (s, v) in self.s_t.iter_mut().zip(&x[at..at + n]) {
                *s = v.exp();
            }
        }
    }

    pub(super) fn refresh_e_ln_alpha(&mut self) {
        if self.alpha.len() == 1 {
            let (a1, b1) = self.alpha[0];
            let e = digamma(a1) - digamma(a1 + b1);
            self.e_ln_alpha.iter_mut().for_each(|v| *v = e);
        } else {
            for i in 0..self.n {
                let (a1, b1) = self.alpha[i];
                self.e_ln_alpha[i] = digamma(a1) - digamma(a1 + b1);
            }
        }
    }

    pub(super) fn sweep(&mut self) {
        self.update_z();
        self.update_theta();
        self.update_a();
        self.update_b();
        self.update_sigma();
        self.update_alpha();
    }

    pub(super) fn plugin(&self) -> Vec<f64> {
        (0..self.n).map(|i| norm_cdf(self.m(i))).collect()
    }
}
