//! Parameter-expansion moves (in the spirit of Qi & Jaakkola 2006's PX-VB
//! for probit models): one-dimensional searches of the ELBO along the
//! directions in which a whole regression and its latent variables grow
//! together, where plain coordinate ascent crawls.

use super::*;

/// Which expansion moves sit out the next rounds: a move that failed to
/// raise the ELBO waits 1, 3, 7, … rounds (doubling with each failure in a
/// row, up to 31), so that moves that have stopped paying cost nothing
/// while those that pay run every round. (Resting moves whose gain was
/// merely small as well — below 1e-9 to 1e-7 of |ELBO| — was tried: no
/// faster on Hu 2024's basic setting, and the fits' paths through the
/// multimodal posterior moved; docs/mil.md.)
#[derive(Debug, Clone, Default)]
pub(crate) struct Rests {
    /// Failures in a row, per move ([`Move::slot`]).
    pub(super) idle: [u32; 5],
    /// Rounds still to sit out, per move.
    pub(super) wait: [u32; 5],
}

impl Move {
    /// An inner move's map of E[ν] as `(scale, shift)`: `ν ↦ e^h ν` or
    /// `ν ↦ ν + h` (the outer scale leaves E[ν] alone).
    pub(super) fn affine(self, h: f64) -> (f64, f64) {
        match self {
            Move::InnerScale(_) => (h.exp(), 0.0),
            Move::InnerShift(_) => (1.0, h),
            Move::OuterScale => (1.0, 0.0),
        }
    }

    pub(super) fn slot(self) -> usize {
        match self {
            Move::OuterScale => 0,
            Move::InnerScale(m) => 1 + 2 * m as usize,
            Move::InnerShift(m) => 2 + 2 * m as usize,
        }
    }
}

/// A parameter-expansion direction.
#[derive(Debug, Clone, Copy)]
pub(super) enum Move {
    /// (α, β, γ) and the bag predictors scaled together.
    OuterScale,
    /// (a, b) or (c, d) and the instance predictors scaled together.
    InnerScale(u8),
    /// a or c and the instance predictors shifted together.
    InnerShift(u8),
}

impl<'a> State<'a> {
    /// The coefficient means after move `mv` with parameter `h`.
    pub(super) fn moved_means(&self, mv: Move, h: f64) -> Vec<f64> {
        let lay = self.lay;
        let mut m = self.m.clone();
        match mv {
            Move::OuterScale => {
                let s = h.exp();
                for k in std::iter::once(lay.alpha())
                    .chain(lay.beta())
                    .chain(lay.gamma())
                {
                    m[k] *= s;
                }
            }
            Move::InnerScale(mo) => {
                let s = h.exp();
                m[lay.inst_intercept(mo)] *= s;
                for r in lay.inst_slopes(mo) {
                    m[r] *= s;
                }
            }
            Move::InnerShift(mo) => m[lay.inst_intercept(mo)] += h,
        }
        m
    }

    /// Instance `j`'s local factors after an inner move that maps E[ν] to
    /// `scale · E[ν] + shift` ([`Move::affine`]): q(U) keeps its Δ and
    /// follows to the new E[ν]; E[η] stays.
    #[inline]
    pub(super) fn moved_local(&self, j: usize, scale: f64, shift: f64) -> InstLocal {
        let mut l = self.local(j);
        l.nu = l.nu * scale + shift;
        l.mu_u = l.nu;
        (l.e, l.eu, l.ln_zu) = u_moments(l.nu, l.delta);
        l
    }

    /// The ELBO the state would have after move `mv` with parameter `h`
    /// and every q(y*) set to its optimum — what [`State::apply_move`]
    /// followed by [`State::elbo`] gives, without writing anything (the
    /// line search of [`State::expansion_moves`]). `cache` holds the
    /// current [`Share`]s ([`State::shares`]): an inner move recomputes
    /// its own modality's shares (to the bit what applying it gives) and
    /// reads the other's; the outer scale `e^h` multiplies every `E[η]`,
    /// so it scales the cached sums (`Σ e η` by `e^h`, `Σ e(1 − e)η²` by
    /// `e^{2h}`) and costs a pass over the bags alone (equal to applying
    /// it up to rounding). With `out`, the moved state's shares are written
    /// there (one entry per bag).
    pub(super) fn move_elbo(
        &self,
        mv: Move,
        h: f64,
        cache: &[[Share; 2]],
        out: Option<&mut [[Share; 2]]>,
    ) -> f64 {
        let means = self.moved_means(mv, h);
        match mv {
            Move::OuterScale => {
                let s = h.exp();
                self.total_into(&means, true, out, |i, _| {
                    cache[i].map(|mut c| {
                        c.es *= s;
                        c.var_eta *= s * s;
                        c
                    })
                })
            }
            Move::InnerScale(m) | Move::InnerShift(m) => {
                let (scale, shift) = mv.affine(h);
                let local = |j| self.moved_local(j, scale, shift);
                self.total_into(&means, true, out, |i, bufs| {
                    let mut c = cache[i];
                    c[m as usize] = self.share(i, m, &local, bufs);
                    c
                })
            }
        }
    }

    /// Apply move `mv` with parameter `h`: the coefficient means change,
    /// the local factors follow ([`State::moved_local`]), every q(y*) is set
    /// to its optimum.
    pub(super) fn apply_move(&mut self, mv: Move, h: f64) {
        let means = self.moved_means(mv, h);
        self.m = means;
        match mv {
            Move::OuterScale => self.refresh_eta(),
            Move::InnerScale(mo) | Move::InnerShift(mo) => {
                let (scale, shift) = mv.affine(h);
                let modality = &self.bags.modality;
                (
                    self.nu.par_iter_mut(),
                    self.mu_u.par_iter_mut(),
                    self.e.par_iter_mut(),
                    self.eu.par_iter_mut(),
                    self.ln_zu.par_iter_mut(),
                    self.delta.par_iter(),
                )
                    .into_par_iter()
                    .enumerate()
                    .with_min_len(INSTANCE_CHUNK)
                    .for_each(|(j, (nu, mu_u, e, eu, lz, &dl))| {
                        if modality[j] == mo {
                            *nu = *nu * scale + shift;
                            *mu_u = *nu;
                            (*e, *eu, *lz) = u_moments(*nu, dl);
                        }
                    });
            }
        }
        self.update_ystar_all();
    }

    /// Parameter-expansion moves (in the spirit of Qi & Jaakkola 2006's
    /// PX-VB for probit models, and of the Gibbs sampler's Liu & Wu 1999
    /// scale moves): CAVI sweeps crawl along directions where a whole
    /// regression and its latent variables grow together (a well-separated
    /// probit's scale). Each move is a one-dimensional search of the ELBO
    /// along such a direction (a parabola through three points, then
    /// halving), kept only if the ELBO rises; so the map stays monotone.
    /// The search reads cached per-bag [`Share`]s and recomputes only what
    /// the move changes; a move that fails rests ([`Rests`]). Returns the
    /// ELBO at the end.
    pub(crate) fn expansion_moves(&mut self, rests: &mut Rests) -> f64 {
        let mut moves = vec![Move::OuterScale];
        for m in 0..2u8 {
            if self.bags.counts()[m as usize] > 0 {
                moves.push(Move::InnerScale(m));
                moves.push(Move::InnerShift(m));
            }
        }
        let mut cache = self.shares();
        let mut f0 = self.total(&self.m, false, |i, _| cache[i]);
        let (mut best_buf, mut cand_buf) = (cache.clone(), cache.clone());
        for mv in moves {
            let slot = mv.slot();
            if rests.wait[slot] > 0 {
                rests.wait[slot] -= 1;
                continue;
            }
            // An inner move's evaluation gives the moved state's shares to
            // the bit: the best one's are kept and become the cache.
            let keep = !matches!(mv, Move::OuterScale);
            let step = 0.05;
            let fp = self.move_elbo(mv, step, &cache, keep.then_some(&mut best_buf[..]));
            let fm = self.move_elbo(mv, -step, &cache, keep.then_some(&mut cand_buf[..]));
            let curv = (fp - 2.0 * f0 + fm) / (step * step);
            let grad = (fp - fm) / (2.0 * step);
            let (mut h, mut best) = if fp >= fm {
                (step, fp)
            } else {
                std::mem::swap(&mut best_buf, &mut cand_buf);
                (-step, fm)
            };
            let mut cand = if curv < 0.0 { -grad / curv } else { 4.0 * h };
            let limit = if matches!(mv, Move::InnerShift(_)) {
                3.0
            } else {
                1.5
            };
            cand = cand.clamp(-limit, limit);
            for _ in 0..4 {
                if (cand - h).abs() < 1e-3 {
                    break;
                }
                let f = self.move_elbo(mv, cand, &cache, keep.then_some(&mut cand_buf[..]));
                if f.is_finite() && f > best {
                    (h, best) = (cand, f);
                    std::mem::swap(&mut best_buf, &mut cand_buf);
                    break;
                }
                cand *= 0.5;
            }
            if best <= f0 {
                rests.idle[slot] = (rests.idle[slot] + 1).min(5);
                rests.wait[slot] = (1 << rests.idle[slot]) - 1;
            } else {
                rests.idle[slot] = 0;
            }
            // The outer scale's prediction is exact up to rounding only: its
            // gain must clear that, and the ELBO is then recomputed from the
            // moved state, so that it never falls.
            if best > f0 + 1e-12 * f0.abs() {
                self.apply_move(mv, h);
                if keep {
                    std::mem::swap(&mut cache, &mut best_buf);
                    f0 = best;
                } else {
                    cache = self.shares();
                    f0 = self.total(&self.m, false, |i, _| cache[i]);
                }
            }
        }
        f0
    }
}
