//! One chain of the sampler and its sweep (steps 1–4 of the module
//! documentation): the partially collapsed δ step, the truncated normals,
//! the Gaussian regression blocks with their scale moves, and the
//! interweaved elliptical slice move of the instance level.

use super::*;

/// Why a regression block cannot be drawn. Its precision is the prior's
/// plus the design's Gram matrix, and features of sd around 10⁸ make the
/// latter so much larger that the prior is lost below rounding wherever
/// the current primary instances leave the design rank-deficient.
const SINGULAR: &str = "a regression precision is singular to working precision (features on \
                        very large scales swamp the slope priors); standardise the features \
                        (`standardize`)";

/// A Gaussian regression block: prior precision diagonal, draw of the
/// coefficients given the sufficient statistics.
pub(super) fn draw_gaussian(
    rng: &mut Rng,
    precision: &DMatrix<f64>,
    rhs: &DVector<f64>,
) -> Result<Vec<f64>> {
    let ch = Cholesky::new(precision).ok_or_else(|| Error::Numerical(SINGULAR.into()))?;
    let mean = ch.solve(rhs);
    // θ = mean + L⁻ᵀ z has covariance (L Lᵀ)⁻¹: solve Lᵀ v = z through the
    // covariance's own factor (small blocks, so the extra factorisation is
    // cheap and keeps to the one factorisation path).
    let cov = ch.inverse();
    let cl = Cholesky::new(&cov)
        .ok_or_else(|| Error::Numerical(SINGULAR.into()))?
        .l();
    let d = mean.len();
    let z: Vec<f64> = (0..d).map(|_| StandardNormal.sample(rng)).collect();
    Ok((0..d)
        .map(|r| mean[r] + (0..=r).map(|c| cl[(r, c)] * z[c]).sum::<f64>())
        .collect())
}

/// `s = √g`, `g ~ Gamma(count/2, q/2)`: the scale of a parameter-expansion
/// move over `count` coordinates with quadratic form `q`.
pub(super) fn scale_draw(rng: &mut Rng, count: f64, q: f64) -> f64 {
    if !(q.is_finite() && q > 0.0) {
        return 1.0;
    }
    crate::numerics::gamma::gamma_draw(rng, count / 2.0, q / 2.0).sqrt()
}

#[derive(Clone)]
pub(super) struct Chain<'a> {
    pub(super) bags: &'a Bags,
    pub(super) y: &'a [bool],
    pub(super) lay: Layout,
    pub(super) pri: MilPriors,
    pub(super) theta: Vec<f64>,
    pub(super) delta: Vec<bool>,
    pub(super) u: Vec<f64>,
    pub(super) ystar: Vec<f64>,
    pub(super) eta: Vec<f64>,
    pub(super) nu: Vec<f64>,
    /// `√τ` of this rung: the bag design's scale (1: the posterior).
    pub(super) scale: f64,
    /// Σ over kept sweeps of P(δ_ij = 1 | rest).
    pub(super) prob_sum: Vec<f64>,
    /// Cholesky-ready precisions of (a, b) and (c, d): constant, shared
    /// by every chain and rung.
    pub(super) inst_precision: &'a [DMatrix<f64>; 2],
    /// Instances per modality: constant.
    pub(super) counts: [usize; 2],
}

pub(super) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The precisions of the inner regressions `U ~ (1, x)(a, b)` and
/// `(1, z)(c, d)`: prior plus the instances' Gram matrix. They do not
/// depend on the state, so one pair serves every chain and rung.
pub(super) fn instance_precisions(bags: &Bags, pri: MilPriors) -> [DMatrix<f64>; 2] {
    let n = bags.n_instances();
    let mut inst_precision = [DMatrix::zeros(0, 0), DMatrix::zeros(0, 0)];
    for m in 0..2u8 {
        let d = bags.width(m);
        let mut p = pri.precision(d);
        for j in 0..n {
            if bags.modality[j] == m {
                let x = bags.features(j);
                p[(0, 0)] += 1.0;
                for c in 0..d {
                    p[(c + 1, 0)] += x[c];
                    p[(0, c + 1)] += x[c];
                    for r in 0..d {
                        p[(r + 1, c + 1)] += x[r] * x[c];
                    }
                }
            }
        }
        inst_precision[m as usize] = p;
    }
    inst_precision
}

impl<'a> Chain<'a> {
    pub(super) fn new(
        bags: &'a Bags,
        y: &'a [bool],
        pri: MilPriors,
        inst_precision: &'a [DMatrix<f64>; 2],
        init: Option<&[f64]>,
        rng: &mut Rng,
    ) -> Chain<'a> {
        let lay = Layout::of(bags);
        let n = bags.n_instances();
        let theta: Vec<f64> = (0..lay.len())
            .map(|k| {
                let z: f64 = StandardNormal.sample(rng);
                match init {
                    Some(x) => x[k] + INIT_JITTER * z,
                    None => 0.5 * z,
                }
            })
            .collect();
        let mut c = Chain {
            bags,
            y,
            lay,
            pri,
            theta,
            delta: vec![false; n],
            u: vec![0.0; n],
            ystar: vec![0.0; bags.n_bags()],
            eta: vec![0.0; n],
            nu: vec![0.0; n],
            scale: 1.0,
            prob_sum: vec![0.0; n],
            inst_precision,
            counts: bags.counts(),
        };
        c.refresh();
        for j in 0..n {
            c.delta[j] = rng.random::<f64>() < crate::numerics::probit::norm_cdf(c.nu[j]);
        }
        c
    }

    pub(super) fn refresh(&mut self) {
        for j in 0..self.bags.n_instances() {
            let m = self.bags.modality[j];
            let x = self.bags.features(j);
            self.eta[j] = dot(x, &self.theta[self.lay.bag_slopes(m)]);
            self.nu[j] = self.theta[self.lay.inst_intercept(m)]
                + dot(x, &self.theta[self.lay.inst_slopes(m)]);
        }
    }

    /// `‖y* − Wθ‖² + θᵀP₀θ` for the bag-level block `g = (α, β, γ)`.
    pub(super) fn scale_quadratic(&self, g: &[f64]) -> f64 {
        let d0 = self.lay.d0;
        let mut q = g[0] * g[0] / self.pri.intercept_var
            + g[1..].iter().map(|v| v * v).sum::<f64>() / self.pri.slope_var;
        for (i, b) in self.bags.bags.iter().enumerate() {
            let mut mu = g[0];
            for j in b.start..b.end {
                if self.delta[j] {
                    let off = if self.bags.modality[j] == 0 {
                        1
                    } else {
                        1 + d0
                    };
                    mu += dot(
                        self.bags.features(j),
                        &g[off..off + self.bags.width(self.bags.modality[j])],
                    );
                }
            }
            q += (self.ystar[i] - self.scale * mu).powi(2);
        }
        q
    }

    /// `‖U − (c + Xd)‖² + prior quadratic` for modality `m`'s inner block.
    pub(super) fn inst_scale_quadratic(&self, m: u8) -> f64 {
        let (k, r) = (self.lay.inst_intercept(m), self.lay.inst_slopes(m));
        let mut q = self.theta[k].powi(2) / self.pri.intercept_var
            + self.theta[r].iter().map(|v| v * v).sum::<f64>() / self.pri.slope_var;
        for j in 0..self.bags.n_instances() {
            if self.bags.modality[j] == m {
                q += (self.u[j] - self.nu[j]).powi(2);
            }
        }
        q
    }

    pub(super) fn sweep(&mut self, rng: &mut Rng, keep: bool) -> Result<()> {
        let alpha = self.theta[self.lay.alpha()];
        // 1–2: δ (collapsed), then y* and U.
        for (i, b) in self.bags.bags.iter().enumerate() {
            let sign = if self.y[i] { 1.0 } else { -1.0 };
            let mut mu = alpha
                + (b.start..b.end)
                    .filter(|&j| self.delta[j])
                    .map(|j| self.eta[j])
                    .sum::<f64>();
            // ln Φ(±s μ) at the current μ, once known: the previous
            // instance computed it as one of its two cases, and an instance
            // that is not primary has `rest = μ` (the same bits), so its
            // second case need not be recomputed.
            let mut at_mu: Option<f64> = None;
            for j in b.start..b.end {
                let rest = if self.delta[j] { mu - self.eta[j] } else { mu };
                let (ln_on, ln_off) = ln_norm_cdf_both(self.nu[j]);
                let lik_on = ln_norm_cdf(sign * self.scale * (rest + self.eta[j]));
                let lik_off = match at_mu {
                    Some(v) if !self.delta[j] => v,
                    _ => ln_norm_cdf(sign * self.scale * rest),
                };
                let (l1, l0) = (ln_on + lik_on, ln_off + lik_off);
                let p = sigmoid(l1 - l0);
                if keep {
                    self.prob_sum[j] += p;
                }
                let d = rng.random::<f64>() < p;
                self.delta[j] = d;
                mu = if d { rest + self.eta[j] } else { rest };
                at_mu = Some(if d { lik_on } else { lik_off });
            }
            self.ystar[i] = truncated_draw(rng, self.scale * mu, self.y[i]);
            for j in b.start..b.end {
                self.u[j] = truncated_draw(rng, self.nu[j], self.delta[j]);
            }
        }
        // 3a: (α, β, γ) | y*, δ.
        let (d0, d1) = (self.lay.d0, self.lay.d1);
        let k = 1 + d0 + d1;
        let mut p = self.pri.precision(d0 + d1);
        let mut rhs = DVector::zeros(k);
        let mut w = vec![0.0; k];
        let sc = self.scale;
        for (i, b) in self.bags.bags.iter().enumerate() {
            w.iter_mut().for_each(|v| *v = 0.0);
            w[0] = sc;
            for j in b.start..b.end {
                if self.delta[j] {
                    let off = if self.bags.modality[j] == 0 {
                        1
                    } else {
                        1 + d0
                    };
                    for (q, x) in self.bags.features(j).iter().enumerate() {
                        w[off + q] += sc * x;
                    }
                }
            }
            for c in 0..k {
                if w[c] == 0.0 {
                    continue;
                }
                rhs[c] += w[c] * self.ystar[i];
                for r in c..k {
                    p[(r, c)] += w[r] * w[c];
                }
            }
        }
        for c in 0..k {
            for r in c + 1..k {
                p[(c, r)] = p[(r, c)];
            }
        }
        // Scale move (Liu & Wu 1999 parameter-expanded data augmentation):
        // (y*, α, β, γ) → s (y*, α, β, γ) leaves the label signs and δ
        // alone; with the Haar measure ds/s its conditional is
        // s² ~ Gamma((n + k)/2, Q/2), Q = ‖y* − Wθ‖² + θᵀ P₀ θ. It moves the
        // joint scale that plain Albert–Chib steps crawl along when the
        // bags are well separated.
        let mut g = self.theta[..k].to_vec();
        let q = self.scale_quadratic(&g);
        let s = scale_draw(rng, (self.bags.n_bags() + k) as f64, q);
        self.ystar.iter_mut().for_each(|v| *v *= s);
        rhs.iter_mut().for_each(|v| *v *= s);
        g = draw_gaussian(rng, &p, &rhs)?;
        self.theta[self.lay.alpha()] = g[0];
        self.theta[self.lay.beta()].copy_from_slice(&g[1..1 + d0]);
        self.theta[self.lay.gamma()].copy_from_slice(&g[1 + d0..]);
        // 3b: (a, b) | U and (c, d) | U.
        for m in 0..2u8 {
            let d = self.bags.width(m);
            let mut rhs = DVector::zeros(d + 1);
            let mut any = false;
            for j in 0..self.bags.n_instances() {
                if self.bags.modality[j] == m {
                    any = true;
                    rhs[0] += self.u[j];
                    for (q, x) in self.bags.features(j).iter().enumerate() {
                        rhs[q + 1] += x * self.u[j];
                    }
                }
            }
            if !any {
                // No instances of this modality: the prior.
                let g = draw_gaussian(rng, &self.inst_precision[m as usize], &rhs)?;
                self.theta[self.lay.inst_intercept(m)] = g[0];
                self.theta[self.lay.inst_slopes(m)].copy_from_slice(&g[1..]);
                continue;
            }
            // The same scale move for (U of modality m, its intercept and
            // slopes): δ = 1(U > 0) is unchanged by it.
            let q = self.inst_scale_quadratic(m);
            let count = self.counts[m as usize];
            let s = scale_draw(rng, (count + d + 1) as f64, q);
            for j in 0..self.bags.n_instances() {
                if self.bags.modality[j] == m {
                    self.u[j] *= s;
                }
            }
            rhs.iter_mut().for_each(|v| *v *= s);
            let g = draw_gaussian(rng, &self.inst_precision[m as usize], &rhs)?;
            self.theta[self.lay.inst_intercept(m)] = g[0];
            self.theta[self.lay.inst_slopes(m)].copy_from_slice(&g[1..]);
        }
        self.refresh();
        // 4: the same blocks again in the ancillary parameterisation.
        for m in 0..2u8 {
            if self.counts[m as usize] > 0 {
                self.ancillary_instance_step(rng, m);
            }
        }
        Ok(())
    }

    /// Interweaving step (Yu & Meng 2011, ASIS) for modality `m`'s inner
    /// block `(a, b)` (or `(c, d)`): with the residuals `ε_ij = U_ij − ν_ij`
    /// held fixed, `U` and `δ = 1(U > 0)` move with the coefficients, and
    /// `(a, b) | ε, rest, y` (y* integrated out) has density ∝ prior ×
    /// `Π_i Φ(±μ_i)`, `μ_i = α + Σ_j δ_ij(a, b) η_ij`, drawn by one
    /// elliptical slice move (Murray, Adams & MacKay 2010; the prior is the
    /// Gaussian `N(0, diag(σ²_intercept, σ²_slope I))`).
    ///
    /// Why: step 3b draws `(a, b)` given `U`, which pins it to within
    /// `1/√(instances)` of its last value, while the labels may barely
    /// constrain it (a modality whose primary instances hardly move the
    /// bags, e.g. `γ ≈ 0`): there the chain crawls. Given `ε` instead, the
    /// block moves as far as the labels allow, which is far exactly when
    /// step 3b's move is short; alternating both parameterisations keeps
    /// whichever mixes better (ASIS). The state after the move is a draw
    /// of `(a, b, U, δ)` given `ε` and the rest, so the chain's target is
    /// unchanged (tested by simulation-based calibration); y* is redrawn
    /// by the next sweep before anything conditions on it.
    pub(super) fn ancillary_instance_step(&mut self, rng: &mut Rng, m: u8) {
        let n = self.bags.n_instances();
        let (k0, ks) = (self.lay.inst_intercept(m), self.lay.inst_slopes(m));
        let eps: Vec<f64> = (0..n)
            .map(|j| {
                if self.bags.modality[j] == m {
                    self.u[j] - self.nu[j]
                } else {
                    0.0
                }
            })
            .collect();
        // The ellipse's other axis, a draw from the block's prior.
        let block: Vec<usize> = std::iter::once(k0).chain(ks).collect();
        let dir: Vec<f64> = block
            .iter()
            .map(|&k| {
                let z: f64 = StandardNormal.sample(rng);
                z * self.pri.var(&self.lay, k).sqrt()
            })
            .collect();
        // On the ellipse f cos t + dir sin t every linear predictor is
        // ν_j cos t + ν_j(dir) sin t: two dot products per instance, then
        // O(1) per instance for each point tried.
        let nu_dir: Vec<f64> = (0..n)
            .map(|j| {
                if self.bags.modality[j] == m {
                    dir[0] + dot(self.bags.features(j), &dir[1..])
                } else {
                    0.0
                }
            })
            .collect();
        // Per bag, μ_i's part that does not move (α and the other
        // modality), and modality m's instances packed bag by bag (in
        // instance order, so every μ_i adds the same terms in the same
        // order): the ellipse's points are tried without skipping the other
        // modality's.
        let (bags, y, sc) = (self.bags, self.y, self.scale);
        let alpha = self.theta[self.lay.alpha()];
        let mut fixed = Vec::with_capacity(bags.n_bags());
        let mut ends = Vec::with_capacity(bags.n_bags());
        let mut packed: Vec<[f64; 4]> = Vec::with_capacity(n);
        for b in &bags.bags {
            // Added from −0.0 in instance order, as `Iterator::sum` adds.
            let mut other = -0.0;
            for j in b.start..b.end {
                if bags.modality[j] == m {
                    packed.push([self.nu[j], nu_dir[j], eps[j], self.eta[j]]);
                } else if self.delta[j] {
                    other += self.eta[j];
                }
            }
            fixed.push(alpha + other);
            ends.push(packed.len());
        }
        let (c, s) = ellipse_slice(rng, |c, s| {
            let mut l = 0.0;
            let mut from = 0;
            for (i, &to) in ends.iter().enumerate() {
                let mut mu = fixed[i];
                for &[nu, nu_dir, eps, eta] in &packed[from..to] {
                    if nu * c + nu_dir * s + eps > 0.0 {
                        mu += eta;
                    }
                }
                from = to;
                l += ln_norm_cdf(if y[i] { sc * mu } else { -sc * mu });
            }
            l
        });
        for (&k, v) in block.iter().zip(&dir) {
            self.theta[k] = self.theta[k] * c + v * s;
        }
        for j in 0..n {
            if self.bags.modality[j] == m {
                self.nu[j] = self.nu[j] * c + nu_dir[j] * s;
                self.u[j] = self.nu[j] + eps[j];
                self.delta[j] = self.u[j] > 0.0;
            }
        }
    }
}
