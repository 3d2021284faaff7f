//! The evidence lower bound of vMMIC (Hu 2024, Appendix B.1), computed
//! after every sweep (it never decreases: tested) and, per bag and
//! modality, in the cached shares the expansion moves' line searches read.

use super::*;

/// The local factors of one instance that an ELBO pass reads.
#[derive(Clone, Copy)]
pub(super) struct InstLocal {
    pub(super) eta: f64,
    pub(super) nu: f64,
    pub(super) mu_u: f64,
    pub(super) delta: f64,
    pub(super) e: f64,
    pub(super) eu: f64,
    pub(super) ln_zu: f64,
}

/// One modality's share of a bag's ELBO terms: the sums the bag term
/// needs, and the modality's instance terms. A move changes one modality's
/// shares (an inner move) or scales the `η` sums (the outer scale), so the
/// line search recomputes only that (Hu 2024, Appendix B.1's ELBO).
#[derive(Clone, Copy, Default)]
pub(super) struct Share {
    /// `Σ_j E[δ_ij] E[η_ij]`.
    pub(super) es: f64,
    /// `Σ_j E[δ_ij](1 − E[δ_ij]) E[η_ij]²`.
    pub(super) var_eta: f64,
    /// `Σ_j E[δ_ij](1 − E[δ_ij]) x_ijᵀ V x_ij`.
    pub(super) var_q: f64,
    /// `sᵀ V s` with `s = Σ_j E[δ_ij] x_ij`.
    pub(super) quad: f64,
    /// The instances' terms `E[ln p(U, δ | ν)] − E[ln q(U, δ)]`.
    pub(super) inst: f64,
}

impl<'a> State<'a> {
    /// Instance `j`'s local factors as they are.
    #[inline]
    pub(super) fn local(&self, j: usize) -> InstLocal {
        InstLocal {
            eta: self.eta[j],
            nu: self.nu[j],
            mu_u: self.mu_u[j],
            delta: self.delta[j],
            e: self.e[j],
            eu: self.eu[j],
            ln_zu: self.ln_zu[j],
        }
    }

    /// `p̂_i = Φ(m_α + Σ_j E[δ_ij] E[η_ij])`.
    pub(crate) fn bag_p(&self) -> Vec<f64> {
        (0..self.bags.n_bags())
            .into_par_iter()
            .with_min_len(BAG_CHUNK)
            .map(|i| {
                let [e0, e1] = self.es(i);
                norm_cdf(self.m[self.lay.alpha()] + e0 + e1)
            })
            .collect()
    }

    /// The evidence lower bound at the current factors (all terms,
    /// constants included except none: it is a bound on ln p(y)).
    pub(crate) fn elbo(&self) -> f64 {
        self.elbo_of(&self.m, |j| self.local(j), false)
    }

    /// The ELBO at coefficient means `means` and instance factors
    /// `local(j)`, with each q(y*) as stored or (`optimal_ystar`) at its
    /// optimum given the rest (set exactly as [`State::update_ystar_all`]
    /// sets it). One parallel pass over runs of bags.
    pub(super) fn elbo_of<L>(&self, means: &[f64], local: L, optimal_ystar: bool) -> f64
    where
        L: Fn(usize) -> InstLocal + Sync,
    {
        self.total(means, optimal_ystar, |i, bufs| {
            [0u8, 1].map(|m| self.share(i, m, &local, bufs))
        })
    }

    /// Both modalities' [`Share`]s of every bag at the current factors
    /// (what [`State::total`] reads back for the moves' line search).
    pub(super) fn shares(&self) -> Vec<[Share; 2]> {
        let local = |j| self.local(j);
        chunked_map(self.bags.n_bags(), BAG_CHUNK, |range| {
            let mut bufs = self.buffers();
            range
                .map(|i| [0u8, 1].map(|m| self.share(i, m, &local, &mut bufs)))
                .collect::<Vec<_>>()
        })
        .concat()
    }

    /// Scratch vectors for [`State::share`].
    pub(super) fn buffers(&self) -> [Vec<f64>; 2] {
        let d = self.lay.d0.max(self.lay.d1);
        [vec![0.0; d], vec![0.0; d]]
    }

    /// Modality `m`'s [`Share`] of bag `i` with instance factors `local(j)`.
    pub(super) fn share<L>(&self, i: usize, m: u8, local: &L, bufs: &mut [Vec<f64>; 2]) -> Share
    where
        L: Fn(usize) -> InstLocal,
    {
        let b = &self.bags.bags[i];
        let d = self.bags.width(m);
        let [s, vs] = bufs;
        let (s, vs) = (&mut s[..d], &mut vs[..d]);
        s.iter_mut().for_each(|x| *x = 0.0);
        let v_int = self.v[if m == 0 { A } else { C }][(0, 0)];
        let mut sh = Share::default();
        let mut any = false;
        for j in b.start..b.end {
            if self.bags.modality[j] != m {
                continue;
            }
            any = true;
            let l = local(j);
            let (e, eta) = (l.e, l.eta);
            sh.es += e * eta;
            let w = e * (1.0 - e);
            sh.var_eta += w * eta * eta;
            sh.var_q += w * self.q_bag[j];
            for (sk, xk) in s.iter_mut().zip(self.bags.features(j)) {
                *sk += e * xk;
            }
            // E[ln N(U; ν, 1)] − E[ln q(U)] − KL of δ's part.
            let enu2 = l.nu * l.nu + v_int + self.q_inst[j];
            let (mu, eu) = (l.mu_u, l.eu);
            let eu2 = 1.0 + mu * eu;
            sh.inst += -0.5 * (eu2 - 2.0 * eu * l.nu + enu2)
                + 0.5 * (eu2 - 2.0 * eu * mu + mu * mu)
                - l.delta * e
                + l.ln_zu;
        }
        if any && d > 0 {
            mat_vec_into(&self.v[[BETA, GAMMA][m as usize]], s, vs);
            sh.quad = dot(vs, s);
        }
        sh
    }

    /// The ELBO at coefficient means `means` with each bag's [`Share`]s
    /// from `shares(i, scratch)`, q(y*) as stored or at its optimum. Bags
    /// are summed over the same fixed runs whatever supplies the shares,
    /// so the same shares give the same bits.
    pub(super) fn total<S>(&self, means: &[f64], optimal_ystar: bool, shares: S) -> f64
    where
        S: Fn(usize, &mut [Vec<f64>; 2]) -> [Share; 2] + Sync,
    {
        self.total_into(means, optimal_ystar, None, shares)
    }

    /// [`State::total`], writing every bag's shares as supplied to `out`
    /// if given (a buffer of one entry per bag, reused across the line
    /// search's evaluations).
    pub(super) fn total_into<S>(
        &self,
        means: &[f64],
        optimal_ystar: bool,
        out: Option<&mut [[Share; 2]]>,
        shares: S,
    ) -> f64
    where
        S: Fn(usize, &mut [Vec<f64>; 2]) -> [Share; 2] + Sync,
    {
        let alpha = means[self.lay.alpha()];
        let v_alpha = self.v[ALPHA][(0, 0)];
        // Bags: E[ln N(y*; α + S, 1)] − E[ln q(y*)] (ln p(y | y*) = 0 on
        // q's support), with E[S²] = (Σ e η)² + Σ e(1 − e)(η² + xᵀVx) +
        // Σ_m s_mᵀ V s_m; instances: their shares' terms.
        let bag = |i: usize, sh: [Share; 2]| -> f64 {
            let [s0, s1] = sh;
            let es = s0.es + s1.es;
            let es2 = es * es + s0.var_eta + s0.var_q + s1.var_eta + s1.var_q + s0.quad + s1.quad;
            let (mu, t, ln_zy) = if optimal_ystar {
                let mu = alpha + s0.es + s1.es;
                let (t, lz) = ystar_moments(mu, self.y[i]);
                (mu, t, lz)
            } else {
                (self.mu_star[i], self.t[i], self.ln_zy[i])
            };
            let ey2 = 1.0 + mu * t;
            let fit =
                ey2 - 2.0 * t * (alpha + es) + alpha * alpha + v_alpha + 2.0 * alpha * es + es2;
            let own = ey2 - 2.0 * t * mu + mu * mu;
            -0.5 * fit + 0.5 * own + ln_zy + s0.inst + s1.inst
        };
        // Fixed runs of bags, their sums added in order (as chunked_sum).
        let parts: Vec<f64> = match out {
            None => chunked_map(self.bags.n_bags(), BAG_CHUNK, |range| {
                let mut bufs = self.buffers();
                range.map(|i| bag(i, shares(i, &mut bufs))).sum::<f64>()
            }),
            Some(out) => out
                .par_chunks_mut(BAG_CHUNK)
                .enumerate()
                .map(|(c, run)| {
                    let mut bufs = self.buffers();
                    let mut total = 0.0;
                    for (k, o) in run.iter_mut().enumerate() {
                        let i = c * BAG_CHUNK + k;
                        *o = shares(i, &mut bufs);
                        total += bag(i, *o);
                    }
                    total
                })
                .collect(),
        };
        parts.iter().sum::<f64>() + self.prior_terms(means)
    }

    /// The Gaussian factors against their priors: Σ_blocks E[ln p(θ)] + H(q).
    pub(super) fn prior_terms(&self, means: &[f64]) -> f64 {
        let lay = self.lay;
        let ranges = [
            lay.alpha()..lay.alpha() + 1,
            lay.beta(),
            lay.gamma(),
            lay.a()..lay.a() + 1,
            lay.b(),
            lay.c()..lay.c() + 1,
            lay.d(),
        ];
        let mut total = 0.0;
        for (k, r) in ranges.into_iter().enumerate() {
            let d = r.len();
            if d == 0 {
                continue;
            }
            let s2 = if matches!(k, ALPHA | A | C) {
                self.pri.intercept_var
            } else {
                self.pri.slope_var
            };
            let v = &self.v[k];
            let ln_det = Cholesky::new(v).map_or(f64::NEG_INFINITY, |c| c.ln_det());
            let m2: f64 = means[r].iter().map(|x| x * x).sum();
            total += 0.5 * ln_det - 0.5 * d as f64 * s2.ln() + 0.5 * d as f64
                - (m2 + v.trace()) / (2.0 * s2);
        }
        total
    }
}
