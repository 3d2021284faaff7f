//! The local steps V8–V10 (Hu 2024, Appendix B.1.8–10, with the exact δ/U
//! step of the module documentation): q(y*_i) of every bag, then q(U_ij)
//! of its instances one after another with running sums, in parallel over
//! fixed runs of bags so that the result does not depend on the threads.

use super::*;

/// Cut `v` at `cuts` (ascending, the first its start, the last its end).
pub(super) fn split_at_cuts<'v, T>(mut v: &'v mut [T], cuts: &[usize]) -> Vec<&'v mut [T]> {
    let mut out = Vec::with_capacity(cuts.len().saturating_sub(1));
    if let Some(&first) = cuts.first() {
        v = &mut std::mem::take(&mut v)[first..];
    }
    for w in cuts.windows(2) {
        let (head, tail) = std::mem::take(&mut v).split_at_mut(w[1] - w[0]);
        out.push(head);
        v = tail;
    }
    out
}

/// The parallel runs over `range` of bags: the bag indices where each run
/// of [`BAG_CHUNK`] bags starts, then `range.end`; and the instance index
/// where each starts, then the end of the last run's instances. The cut
/// depends on the data only, never on the threads.
pub(super) fn run_cuts(bags: &Bags, range: std::ops::Range<usize>) -> (Vec<usize>, Vec<usize>) {
    let bag_cuts: Vec<usize> = (range.start..range.end)
        .step_by(BAG_CHUNK)
        .chain(std::iter::once(range.end))
        .collect();
    let inst_cuts = bag_cuts
        .iter()
        .map(|&i| bags.bags.get(i).map_or(bags.n_instances(), |b| b.start))
        .collect();
    (bag_cuts, inst_cuts)
}

/// What the local steps (V8–V10) of a bag read.
pub(super) struct Shared<'s> {
    pub(super) bags: &'s Bags,
    pub(super) y: &'s [bool],
    pub(super) alpha: f64,
    pub(super) eta: &'s [f64],
    pub(super) nu: &'s [f64],
    pub(super) q_bag: &'s [f64],
    pub(super) w_bag: &'s [Vec<f64>; 2],
    pub(super) widths: [usize; 2],
}

/// The local factors of a run of bags, which the local steps write
/// (instance slices start at instance `inst0`, bag slices at `bags.start`).
pub(super) struct LocalsMut<'s> {
    pub(super) bags: std::ops::Range<usize>,
    pub(super) inst0: usize,
    pub(super) mu_u: &'s mut [f64],
    pub(super) delta: &'s mut [f64],
    pub(super) e: &'s mut [f64],
    pub(super) eu: &'s mut [f64],
    pub(super) ln_zu: &'s mut [f64],
    pub(super) mu_star: &'s mut [f64],
    pub(super) t: &'s mut [f64],
    pub(super) ln_zy: &'s mut [f64],
}

impl Shared<'_> {
    /// V8, then V9–V10 instance by instance, for each bag of `run`.
    fn steps(&self, run: &mut LocalsMut) {
        let mut s = [vec![0.0; self.widths[0]], vec![0.0; self.widths[1]]];
        for i in run.bags.clone() {
            let b = &self.bags.bags[i];
            let (o, bi) = (run.inst0, i - run.bags.start);
            s.iter_mut()
                .for_each(|v| v.iter_mut().for_each(|x| *x = 0.0));
            let mut es = [0.0; 2];
            for j in b.start..b.end {
                let mi = self.bags.modality[j] as usize;
                let ej = run.e[j - o];
                es[mi] += ej * self.eta[j];
                for (sk, xk) in s[mi].iter_mut().zip(self.bags.features(j)) {
                    *sk += ej * xk;
                }
            }
            // V8: q(y*_i).
            let mu = self.alpha + es[0] + es[1];
            let (ti, lz) = ystar_moments(mu, self.y[i]);
            (run.mu_star[bi], run.t[bi], run.ln_zy[bi]) = (mu, ti, lz);
            // V9–V10.
            for j in b.start..b.end {
                let mi = self.bags.modality[j] as usize;
                let x = self.bags.features(j);
                let g = &self.w_bag[mi][self.bags.feature_span(j)];
                let xvx = self.q_bag[j];
                let eta = self.eta[j];
                let e_old = run.e[j - o];
                // Σ_{j'≠j} E[δ_ij'] E[η_ij η_ij'] within the modality
                // (E[ββᵀ] = m mᵀ + V: x Vᵀ(s − e_old x) = g·s − e_old xᵀVx)
                // and across modalities (independent factors).
                let same = eta * (es[mi] - e_old * eta) + dot(g, &s[mi]) - e_old * xvx;
                let cross = eta * es[1 - mi];
                let delta = (ti - self.alpha) * eta - same - cross - 0.5 * (eta * eta + xvx);
                let (e_new, eu, lz) = u_moments(self.nu[j], delta);
                run.mu_u[j - o] = self.nu[j];
                run.delta[j - o] = delta;
                run.e[j - o] = e_new;
                run.eu[j - o] = eu;
                run.ln_zu[j - o] = lz;
                let de = e_new - e_old;
                for (sk, xk) in s[mi].iter_mut().zip(x) {
                    *sk += de * xk;
                }
                es[mi] += de * eta;
            }
        }
    }
}

impl<'a> State<'a> {
    /// V8: q(y*_i).
    #[cfg(test)]
    pub(crate) fn update_ystar(&mut self, i: usize) {
        let [e0, e1] = self.es(i);
        self.set_ystar(i, self.m[self.lay.alpha()] + e0 + e1);
    }

    /// V8 and V9–V10 (exact form) for bag `i`: q(y*_i), then q(U_ij) of
    /// every instance of the bag one after another with the bag's running
    /// sums kept current.
    #[cfg(test)]
    pub(crate) fn update_bag(&mut self, i: usize) {
        self.local_steps(i..i + 1);
    }

    /// [`State::update_bag`] for every bag in `bags`, in parallel over
    /// fixed runs of [`BAG_CHUNK`] bags (bags are independent given the
    /// global factors, so the result does not depend on the threads).
    pub(super) fn local_steps(&mut self, bags: std::ops::Range<usize>) {
        let State {
            bags: data,
            y,
            lay,
            m,
            mu_u,
            delta,
            e,
            eu,
            eta,
            ln_zu,
            nu,
            mu_star,
            t,
            ln_zy,
            q_bag,
            w_bag,
            ..
        } = self;
        let sh = Shared {
            bags: data,
            y,
            alpha: m[lay.alpha()],
            eta,
            nu,
            q_bag,
            w_bag,
            widths: [lay.d0, lay.d1],
        };
        let (bag_cuts, inst_cuts) = run_cuts(data, bags);
        let mut it =
            [mu_u, delta, e, eu, ln_zu].map(|v| split_at_cuts(&mut v[..], &inst_cuts).into_iter());
        let mut ib = [mu_star, t, ln_zy].map(|v| split_at_cuts(&mut v[..], &bag_cuts).into_iter());
        let mut runs = Vec::new();
        for k in 0..bag_cuts.len() - 1 {
            let [mu_u, delta, e, eu, ln_zu] = it.each_mut().map(|i| i.next().expect("cut"));
            let [mu_star, t, ln_zy] = ib.each_mut().map(|i| i.next().expect("cut"));
            runs.push(LocalsMut {
                bags: bag_cuts[k]..bag_cuts[k + 1],
                inst0: inst_cuts[k],
                mu_u,
                delta,
                e,
                eu,
                ln_zu,
                mu_star,
                t,
                ln_zy,
            });
        }
        runs.into_par_iter().for_each(|mut run| sh.steps(&mut run));
    }

    /// V8 for every bag (in parallel: each bag on its own).
    pub(crate) fn update_ystar_all(&mut self) {
        let alpha = self.m[self.lay.alpha()];
        let (bags, y, e, eta) = (self.bags, &self.y, &self.e, &self.eta);
        (
            self.mu_star.par_iter_mut(),
            self.t.par_iter_mut(),
            self.ln_zy.par_iter_mut(),
        )
            .into_par_iter()
            .enumerate()
            .with_min_len(BAG_CHUNK)
            .for_each(|(i, (ms, ti, lz))| {
                let b = &bags.bags[i];
                let mut es = [0.0; 2];
                for j in b.start..b.end {
                    es[bags.modality[j] as usize] += e[j] * eta[j];
                }
                let mu = alpha + es[0] + es[1];
                *ms = mu;
                (*ti, *lz) = ystar_moments(mu, y[i]);
            });
    }
}
