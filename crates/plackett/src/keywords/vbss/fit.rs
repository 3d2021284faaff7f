//! The fit: sweeps as a monotone map accelerated by SQUAREM under the ELBO,
//! and the fitted posterior's summaries.

use super::*;

impl State<'_> {
    pub(super) fn finish(&self, elbo: Vec<f64>, iterations: usize, converged: bool) -> VbssFit {
        let s_t = match self.block {
            Some(b) if self.o.theta_update == ThetaUpdate::Block => {
                let d: Vec<f64> = self
                    .prior
                    .precision_eigenvalues
                    .iter()
                    .map(|p| 1.0 / (b.c.0 + b.c.1 * p))
                    .collect();
                self.prior.diag_of(&d)
            }
            _ => self.s_t.clone(),
        };
        let lr = match self.o.covariance {
            VbCovariance::LinearResponse => self.linear_response(),
            VbCovariance::MeanField => None,
        };
        let n = self.n;
        // `a + bθ_i` moment-matched to a normal under a Gaussian for
        // `(a, b, θ_i)` with covariance C: mean `m_i + C_bθ`, variance
        // `C_aa + μ_b²C_θθ + μ_θ²C_bb + 2μ_bμ_θC_bθ + C_bbC_θθ + C_bθ²
        // + 2(μ_θC_ab + μ_bC_aθ)` (mean-field: the off-diagonal terms 0).
        let (p_predictive, p_sd) = (0..n)
            .map(|i| {
                let (mb, mt) = (self.mu_b, self.mu_t[i]);
                let (caa, cbb, ctt, cab, cat, cbt) = match &lr {
                    Some(c) => (
                        c.a[n],
                        c.b[n + 1],
                        c.theta_var[i],
                        c.a[n + 1],
                        c.a[i],
                        c.b[i],
                    ),
                    None => (self.s_a, self.s_b, s_t[i], 0.0, 0.0, 0.0),
                };
                let var = caa
                    + mb * mb * ctt
                    + mt * mt * cbb
                    + 2.0 * mb * mt * cbt
                    + cbb * ctt
                    + cbt * cbt
                    + 2.0 * (mt * cab + mb * cat);
                probit_mean_sd(self.m(i) + cbt, var)
            })
            .unzip();
        let (theta_sd, a_sd, b_sd) = match &lr {
            Some(c) => (
                c.theta_var.iter().map(|v| v.sqrt()).collect(),
                c.a[n].sqrt(),
                c.b[n + 1].sqrt(),
            ),
            None => (
                s_t.iter().map(|s| s.sqrt()).collect(),
                self.s_a.sqrt(),
                self.s_b.sqrt(),
            ),
        };
        // q(z) from the final q(θ, a, b, α): refresh π before reporting.
        let mut latent = Vec::with_capacity(self.n);
        for i in 0..self.n {
            if self.y[i] {
                latent.push(1.0);
            } else {
                let m = self.m(i);
                let lo = self.e_ln_alpha[i] + ln_norm_cdf(m) - ln_norm_cdf(-m);
                latent.push(crate::numerics::sigmoid(lo));
            }
        }
        let p_plugin = self.plugin();
        VbssFit {
            theta_mean: self.mu_t.clone(),
            theta_sd,
            a: (self.mu_a, a_sd),
            b: (self.mu_b, b_sd),
            b_sd_mean_field: self.s_b.sqrt(),
            sigma2: (self.a_sig, self.b_sig),
            alpha: self.alpha.clone(),
            p_forced: crate::keywords::fdr::forced(&p_plugin, self.y),
            p_plugin,
            p_predictive,
            p_sd,
            p_latent: latent,
            elbo,
            iterations,
            converged,
            covariance: if lr.is_some() {
                VbCovariance::LinearResponse
            } else {
                VbCovariance::MeanField
            },
        }
    }
}

/// A sweep as a monotone map for the project's fixed-point executor:
/// `eval(x)` sets `q(z)` optimal for `x` (the objective is the ELBO
/// there), then runs the other updates; the image is the new parameters.
/// The ELBO after the `q(z)` step never decreases from one evaluation to
/// the next, so SQUAREM (Varadhan & Roland 2008) can extrapolate under it.
pub(super) struct SweepMap<'a> {
    state: State<'a>,
    /// The last image and the plug-in `p̂` there: the executor mostly
    /// evaluates the map where it just left off.
    at: Vec<f64>,
    p_at: Vec<f64>,
}

impl MonotoneMap for SweepMap<'_> {
    fn eval(&mut self, x: &[f64]) -> Result<Iterate> {
        self.state.load(x);
        self.state.update_z();
        let objective = self.state.elbo();
        if !objective.is_finite() {
            return Err(Error::Numerical(format!("the ELBO became {objective}")));
        }
        // p̂ reads μ_a, μ_b, μ_θ, which `load` copies unchanged.
        let p0 = if x == self.at.as_slice() {
            std::mem::take(&mut self.p_at)
        } else {
            self.state.plugin()
        };
        self.state.update_theta();
        self.state.update_a();
        self.state.update_b();
        self.state.update_sigma();
        self.state.update_alpha();
        let p1 = self.state.plugin();
        let gap = p0.iter().zip(&p1).map(|(a, b)| (a - b).abs()).sum::<f64>() / p0.len() as f64;
        self.at = self.state.pack();
        self.p_at = p1;
        Ok(Iterate::new(self.at.clone(), objective, Some(gap)))
    }
}

/// Run VBSS on one document: the prior (graph or user-supplied) and the
/// known-keyword labels `y` (Hu 2024, Algorithm 1), with SQUAREM
/// acceleration under the ELBO. The stopping rule is the dissertation's
/// (mean absolute change of `p̂` over one sweep below `tol`); `max_iter`
/// counts sweeps, extrapolated ones included.
pub fn fit_vbss(prior: &ThetaPrior, y: &[bool], opts: &VbssOptions) -> Result<VbssFit> {
    fit_vbss_with(prior, y, opts, true)
}

/// [`fit_vbss`] with or without acceleration. Plain sweeps (`false`) are
/// Algorithm 1 itself: every one of them raises the ELBO under the exact
/// `θ` updates (the test of the updates); the ELBO is recorded per sweep.
pub fn fit_vbss_with(
    prior: &ThetaPrior,
    y: &[bool],
    opts: &VbssOptions,
    accelerate: bool,
) -> Result<VbssFit> {
    opts.check()?;
    check_labels(prior, y)?;
    let mut st = State::new(prior, y, *opts);
    // The published θ step is not a coordinate-ascent step: no ELBO to
    // safeguard an extrapolation with, so it runs plain.
    if !accelerate || opts.theta_update == ThetaUpdate::Published {
        let mut last = st.plugin();
        let mut elbo = Vec::new();
        for it in 1..=opts.max_iter {
            st.sweep();
            let l = st.elbo();
            if !l.is_finite() {
                return Err(Error::Numerical(format!(
                    "the ELBO became {l} at sweep {it}"
                )));
            }
            elbo.push(l);
            let p = st.plugin();
            let change =
                p.iter().zip(&last).map(|(a, b)| (a - b).abs()).sum::<f64>() / p.len() as f64;
            last = p;
            if change < opts.tol {
                return Ok(st.finish(elbo, it, true));
            }
        }
        return Ok(st.finish(elbo, opts.max_iter, false));
    }
    // One plain sweep first: the initial state has no q(θ) variances.
    st.sweep();
    let x0 = st.pack();
    let mut map = SweepMap {
        state: st,
        at: Vec::new(),
        p_at: Vec::new(),
    };
    let settings = IterSettings {
        tol: opts.tol,
        max_iter: opts.max_iter.saturating_sub(1).max(1),
        accelerate: true,
    };
    let out = Executor::new(settings).run(&mut map, x0)?;
    let mut st = map.state;
    st.load(&out.x);
    st.update_z();
    let mut elbo = out.trace.clone();
    elbo.push(st.elbo());
    Ok(st.finish(elbo, out.evaluations + 1, out.converged()))
}
