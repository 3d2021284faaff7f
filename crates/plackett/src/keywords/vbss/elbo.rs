//! The ELBO of VBSS (Hu 2024, §1.3; the dissertation gives none in closed
//! form: derived term by term, docs/keywords.md), computed after every
//! sweep and non-decreasing under the exact θ steps (tested).

use super::*;

impl State<'_> {
    /// The ELBO of the shared- or per-word-α model (no closed form in the
    /// dissertation; derived term by term, `keywords` docs).
    pub(super) fn elbo(&self) -> f64 {
        let eb2 = self.e_b2();
        let ea2 = self.mu_a * self.mu_a + self.s_a;
        let e_ln_s2 = self.b_sig.ln() - digamma(self.a_sig);
        let mut total = 0.0;
        // E[ln α] and E[ln(1 − α)] per q(α) factor (one when shared).
        let moments: Vec<(f64, f64)> = self
            .alpha
            .iter()
            .map(|&(a1, b1)| {
                let s = digamma(a1 + b1);
                (digamma(a1) - s, digamma(b1) - s)
            })
            .collect();
        for i in 0..self.n {
            let (e_ln_a, e_ln_1a) = moments[if moments.len() == 1 { 0 } else { i }];
            let m = self.m(i);
            let (ez, ez2, hz) = (self.ez[i], self.ez2[i], self.hz[i]);
            let ly = if self.y[i] {
                e_ln_1a
            } else {
                self.pi[i] * e_ln_a
            };
            // E[θ_i²] = μ_i² + S_θi; the S_θi enter through their sum below.
            let lz = -0.5 * LN_2PI
                - 0.5
                    * (ez2 - 2.0 * ez * m
                        + ea2
                        + 2.0 * self.mu_a * self.mu_b * self.mu_t[i]
                        + eb2 * self.mu_t[i] * self.mu_t[i]);
            total += ly + lz + hz;
        }
        total -= 0.5 * eb2 * self.sum_s();
        // q(θ) entropy.
        total += match self.block {
            Some(b) if self.o.theta_update == ThetaUpdate::Block => {
                0.5 * (self.n as f64) * (LN_2PI + 1.0) + 0.5 * b.ln_det
            }
            _ => self.s_t.iter().map(|s| 0.5 * (LN_2PI + 1.0 + s.ln())).sum(),
        };
        let n = self.n as f64;
        let kappa = self.a_sig / self.b_sig;
        total +=
            -0.5 * n * LN_2PI - 0.5 * self.prior.ln_det_u - 0.5 * n * e_ln_s2 - kappa * self.g();
        total += -0.5 * (LN_2PI + self.o.sigma_a2.ln()) - ea2 / (2.0 * self.o.sigma_a2);
        total += -0.5 * (LN_2PI + self.o.sigma_b2.ln()) - eb2 / (2.0 * self.o.sigma_b2);
        let tau = self.o.tau;
        total += tau * tau.ln() - ln_gamma(tau) - (tau + 1.0) * e_ln_s2 - tau * kappa;
        total += 0.5 * (LN_2PI + 1.0 + self.s_a.ln()) + 0.5 * (LN_2PI + 1.0 + self.s_b.ln());
        let (a, b) = (self.a_sig, self.b_sig);
        total += a + b.ln() + ln_gamma(a) - (1.0 + a) * digamma(a);
        for &(a1, b1) in &self.alpha {
            total += ln_gamma(a1) + ln_gamma(b1)
                - ln_gamma(a1 + b1)
                - (a1 - 1.0) * digamma(a1)
                - (b1 - 1.0) * digamma(b1)
                + (a1 + b1 - 2.0) * digamma(a1 + b1);
        }
        total
    }
}
