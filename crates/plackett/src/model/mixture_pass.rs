//! The fused E- and M-pass of a finite Plackett–Luce mixture (Mollica &
//! Tardella 2017): per observation the unit log-likelihood under every
//! component, the responsibilities, and each component's responsibility-
//! weighted stage wins and in-play coefficients, in one pass over the data.
//! Built on the single-model sweep's kernels ([`super::pl`]); the same
//! chunking, reduced in chunk order, so the result does not depend on the
//! number of threads.

use super::pl::{
    LogProduct, Scratch, Weights, chunks_for_work, for_each_winner, sweep_obs, universe_sum,
    unlisted_sum,
};
use crate::data::{Dataset, Tail};
use rayon::prelude::*;

/// One fused E- and M-pass of a `G`-component PL mixture (Mollica &
/// Tardella 2017): for every observation the unit log-likelihood under each
/// component, its responsibilities `z_go ∝ ω_g P(o | λ_g)`, and the stage
/// wins and expected in-play coefficients of every component weighted by
/// `w_o · z_go` — what [`unit_log_likelihoods`](super::pl::unit_log_likelihoods) followed by one
/// [`reweighted_sweep`](super::pl::reweighted_sweep) per component computes, in one pass over the data
/// (untied observations reuse their stage denominators for both halves).
#[derive(Debug, Clone)]
pub struct MixturePass {
    /// `Σ_o w_o log Σ_g ω_g P(o | λ_g)`.
    pub log_likelihood: f64,
    /// Responsibilities, `z[g][o]`.
    pub z: Vec<Vec<f64>>,
    /// Stage wins per component and item, weighted by `w_o z_go`.
    pub wins: Vec<Vec<f64>>,
    /// Expected in-play coefficients per component and item (at `lams[g]`).
    pub den: Vec<Vec<f64>>,
}

/// Scratch and per-observation kernel of the mixture E-step, shared by the
/// fused EM pass ([`mixture_pass`]) and the sampler's membership draws
/// ([`mixture_responsibilities`]).
pub(crate) struct EScratch {
    s: Scratch,
    /// Worths item-major, `lam_t[i·G + g]`: an untied observation's stage
    /// sums of all components advance together, which interleaves G
    /// independent dependency chains instead of running them one by one.
    lam_t: Vec<f64>,
    /// Suffix sums of the stage denominators of an untied observation,
    /// `suf_t[j·G + g]` (reused by the M half of the fused pass).
    suf_t: Vec<f64>,
    /// After [`EScratch::observation`]: the responsibilities `z_g`.
    pub(crate) z: Vec<f64>,
    num: Vec<f64>,
    den: Vec<f64>,
    w_lin: Vec<f64>,
    /// Receives the (zero) in-play coefficients of the tied-observation
    /// path, which is asked for log-likelihoods only.
    sink: Vec<f64>,
}

impl EScratch {
    /// Scratch for components of worths `lams` (each on any scale) and
    /// log-weights `log_w`.
    pub(crate) fn new(lams: &[Vec<f64>], log_w: &[f64]) -> Self {
        let g = lams.len();
        let n = lams.first().map_or(0, Vec::len);
        let mut lam_t = vec![0.0; n * g];
        for (k, lam) in lams.iter().enumerate() {
            for (i, &l) in lam.iter().enumerate() {
                lam_t[i * g + k] = l;
            }
        }
        EScratch {
            s: Scratch::default(),
            lam_t,
            suf_t: Vec::new(),
            z: vec![0.0; g],
            num: vec![0.0; g],
            den: vec![0.0; g],
            w_lin: log_w.iter().map(|l| l.exp()).collect(),
            sink: vec![0.0; n],
        }
    }

    /// Stage `j`'s denominator under component `k` of the last untied
    /// observation.
    #[inline]
    fn suffix(&self, k: usize, j: usize) -> f64 {
        self.suf_t[j * self.z.len() + k]
    }

    /// Observation `o`: its responsibilities into `self.z`; returns
    /// `log Σ_g ω_g P(o | λ_g)` (unit weight).
    pub(crate) fn observation(
        &mut self,
        ds: &Dataset,
        o: usize,
        lams: &[Vec<f64>],
        log_lams: &[Vec<f64>],
        totals: &[f64],
        log_w: &[f64],
    ) -> f64 {
        let g = lams.len();
        let obs = ds.obs(o);
        let mem = obs.members;
        let Some(stages) = ds.fast_stages(o) else {
            // Ties: the general kernel, in logs, one component at a time.
            for k in 0..g {
                let mut wt = 0.0;
                for_each_winner(ds, o, |m| wt += log_lams[k][m as usize]);
                self.z[k] = log_w[k]
                    + wt
                    + sweep_obs(
                        ds,
                        o,
                        &lams[k],
                        totals[k],
                        &mut self.sink,
                        &mut self.s,
                        Weights::LOG_LIKELIHOOD,
                    )
                    .0;
            }
            return self.normalise_logs();
        };
        // Untied: each component's probability as a plain product of stage
        // probabilities (no logarithms, no exponentials) whenever it stays
        // in range; else logs.
        let m = mem.len();
        let st = &mut self.suf_t;
        st.clear();
        st.resize((m + 1) * g, 0.0);
        if obs.tail == Tail::Universe {
            for k in 0..g {
                st[m * g + k] = unlisted_sum(ds, mem, &lams[k], totals[k]);
            }
        }
        for j in (0..m).rev() {
            let base = mem[j] as usize * g;
            let (lo, hi) = st.split_at_mut((j + 1) * g);
            let lo = &mut lo[j * g..];
            for k in 0..g {
                lo[k] = hi[k] + self.lam_t[base + k];
            }
        }
        self.num.iter_mut().for_each(|x| *x = 1.0);
        self.den.iter_mut().for_each(|x| *x = 1.0);
        for j in 0..stages {
            let base = mem[j] as usize * g;
            for k in 0..g {
                self.num[k] *= self.lam_t[base + k];
                self.den[k] *= st[j * g + k];
            }
        }
        let mut linear = true;
        let mut tot = 0.0;
        for k in 0..g {
            let (nu, de) = (self.num[k], self.den[k]);
            let v = nu / de;
            // Products far from under- and overflow: the ratio is exact to
            // rounding (each denominator is at least its numerator).
            if nu > 1e-250 && de < 1e250 && v > 1e-250 {
                self.z[k] = self.w_lin[k] * v;
                tot += self.z[k];
            } else {
                linear = false;
                break;
            }
        }
        if linear {
            self.z.iter_mut().for_each(|x| *x /= tot);
            return tot.ln();
        }
        for k in 0..g {
            let mut l = log_w[k];
            for j in 0..stages {
                l += log_lams[k][mem[j] as usize] - st[j * g + k].ln();
            }
            self.z[k] = l;
        }
        self.normalise_logs()
    }

    /// `self.z` holds log ω_g + log P(o | λ_g): turn it into
    /// responsibilities and return the log-sum-exp.
    fn normalise_logs(&mut self) -> f64 {
        let lse = crate::numerics::log_sum_exp(&self.z);
        for l in self.z.iter_mut() {
            *l = (*l - lse).exp();
        }
        lse
    }
}

/// The E-step of a `G`-component PL mixture alone: `Σ_o w_o log Σ_g ω_g
/// P(o | λ_g)` and the responsibilities `z[g][o]` (what the fused
/// [`mixture_pass`] computes before its M half). Chunked like [`sweep`](super::pl::sweep).
pub fn mixture_responsibilities(
    ds: &Dataset,
    lams: &[Vec<f64>],
    log_lams: &[Vec<f64>],
    log_w: &[f64],
) -> (f64, Vec<Vec<f64>>) {
    let g = lams.len();
    let end = ds.n_obs();
    let totals: Vec<f64> = lams.iter().map(|l| universe_sum(ds, l)).collect();
    let parts: Vec<(f64, Vec<Vec<f64>>)> = chunks_for_work(ds, end, g)
        .into_par_iter()
        .map(|(a, b)| {
            let mut e = EScratch::new(lams, log_w);
            let mut z = vec![Vec::with_capacity(b - a); g];
            let mut ll = 0.0;
            for o in a..b {
                ll += ds.obs(o).weight * e.observation(ds, o, lams, log_lams, &totals, log_w);
                for k in 0..g {
                    z[k].push(e.z[k]);
                }
            }
            (ll, z)
        })
        .collect();
    let mut z = vec![Vec::with_capacity(end); g];
    let mut ll = 0.0;
    for (l, part) in parts {
        ll += l;
        for k in 0..g {
            z[k].extend_from_slice(&part[k]);
        }
    }
    (ll, z)
}

/// See [`MixturePass`]. `lams[g]` are component `g`'s worths (any positive
/// scale) and `log_lams[g]` their logarithms, `log_w` the log-weights,
/// `weights` the observations' weights. Chunked like [`sweep`](super::pl::sweep), so the
/// result does not depend on the thread count.
pub fn mixture_pass(
    ds: &Dataset,
    lams: &[Vec<f64>],
    log_lams: &[Vec<f64>],
    log_w: &[f64],
    weights: &[f64],
) -> MixturePass {
    let g = lams.len();
    let n = ds.n_items();
    let end = ds.n_obs();
    let totals: Vec<f64> = lams.iter().map(|l| universe_sum(ds, l)).collect();
    let inputs = PassInputs {
        ds,
        lams,
        log_lams,
        log_w,
        weights,
        totals: &totals,
    };
    // Few components (the usual case) get a kernel compiled for their
    // number; more fall back to the run-time one.
    let parts: Vec<PassPart> = chunks_for_work(ds, end, 2 * g)
        .into_par_iter()
        .map(|(a, b)| match g {
            1 => pass_chunk::<1>(&inputs, a, b),
            2 => pass_chunk::<2>(&inputs, a, b),
            3 => pass_chunk::<3>(&inputs, a, b),
            4 => pass_chunk::<4>(&inputs, a, b),
            5 => pass_chunk::<5>(&inputs, a, b),
            6 => pass_chunk::<6>(&inputs, a, b),
            _ => pass_chunk::<0>(&inputs, a, b),
        })
        .collect();
    let mut out = MixturePass {
        log_likelihood: 0.0,
        z: vec![Vec::with_capacity(end); g],
        wins: vec![vec![0.0; n]; g],
        den: vec![vec![0.0; n]; g],
    };
    let mut cu = vec![0.0; g];
    for p in parts {
        out.log_likelihood += p.ll;
        for k in 0..g {
            out.z[k].extend_from_slice(&p.z[k]);
            out.wins[k]
                .iter_mut()
                .zip(&p.wins[k])
                .for_each(|(x, y)| *x += y);
            out.den[k]
                .iter_mut()
                .zip(&p.den[k])
                .for_each(|(x, y)| *x += y);
            cu[k] += p.cu[k];
        }
    }
    for k in 0..g {
        if cu[k] != 0.0 {
            out.den[k][..ds.universe()]
                .iter_mut()
                .for_each(|x| *x += cu[k]);
        }
    }
    out
}

/// The arguments of [`mixture_pass`], shared by its chunks.
struct PassInputs<'a> {
    ds: &'a Dataset,
    lams: &'a [Vec<f64>],
    log_lams: &'a [Vec<f64>],
    log_w: &'a [f64],
    weights: &'a [f64],
    totals: &'a [f64],
}

/// One chunk's share of a [`MixturePass`] (`cu`: each component's in-play
/// coefficient owed to every item of the universe by top-k rows).
struct PassPart {
    ll: f64,
    z: Vec<Vec<f64>>,
    wins: Vec<Vec<f64>>,
    den: Vec<Vec<f64>>,
    cu: Vec<f64>,
}

/// Observations `a..b` of a [`mixture_pass`]. With `G > 0` (the number of
/// components known when compiling) untied rows go through
/// [`UntiedKernel`]; tied rows, rows whose products leave the linear range,
/// and `G = 0` (any number, known at run time) take the general path.
fn pass_chunk<const G: usize>(inp: &PassInputs, a: usize, b: usize) -> PassPart {
    let PassInputs {
        ds,
        lams,
        log_lams,
        log_w,
        weights,
        totals,
    } = *inp;
    let g = lams.len();
    let n = ds.n_items();
    let mut p = PassPart {
        ll: 0.0,
        z: vec![Vec::with_capacity(b - a); g],
        wins: vec![vec![0.0; n]; g],
        den: vec![vec![0.0; n]; g],
        cu: vec![0.0; g],
    };
    let mut kernel = (G > 0 && G == g).then(|| UntiedKernel::<G>::new(ds, lams, log_w, totals));
    let mut e = EScratch::new(lams, log_w);
    let mut s = Scratch::default();
    for o in a..b {
        let obs = ds.obs(o);
        let mem = obs.members;
        let fast = ds.fast_stages(o);
        if let (Some(kern), Some(stages)) = (kernel.as_mut(), fast)
            && let Some(z) = kern.observation(mem, stages, obs.tail == Tail::Universe, weights[o])
        {
            for k in 0..G {
                p.z[k].push(z[k]);
            }
            continue;
        }
        let lse = e.observation(ds, o, lams, log_lams, totals, log_w);
        let ll = &e.z;
        p.ll += weights[o] * lse;
        // ll now holds the responsibilities.
        for k in 0..g {
            let z = ll[k];
            p.z[k].push(z);
            let v = weights[o] * z;
            for_each_winner(ds, o, |m| p.wins[k][m as usize] += v);
            match fast {
                Some(stages) => {
                    let den = &mut p.den[k];
                    let mut cum = 0.0;
                    for j in 0..stages {
                        cum += v / e.suffix(k, j);
                        den[mem[j] as usize] += cum;
                    }
                    for &i in &mem[stages..] {
                        den[i as usize] += cum;
                    }
                    if obs.tail == Tail::Universe {
                        for &i in mem {
                            if (i as usize) < ds.universe() {
                                den[i as usize] -= cum;
                            }
                        }
                        p.cu[k] += cum;
                    }
                }
                None => {
                    let (_, c) = sweep_obs(
                        ds,
                        o,
                        &lams[k],
                        totals[k],
                        &mut p.den[k],
                        &mut s,
                        Weights::coefficients(v),
                    );
                    p.cu[k] += c;
                }
            }
        }
    }
    if let Some(kern) = kernel {
        p.ll += kern.ll + kern.unit.ln();
        for (i, (w, d)) in kern.wins.iter().zip(&kern.den).enumerate() {
            for k in 0..G {
                p.wins[k][i] += w[k];
                p.den[k][i] += d[k];
            }
        }
        for k in 0..G {
            p.cu[k] += kern.cu[k];
        }
    }
    p
}

/// The fused E- and M-half of [`mixture_pass`] for one untied observation,
/// with the number of components `G` fixed when compiling: worths, stage
/// sums and accumulators are `[f64; G]` per item (item-major), so the G
/// components of a stage advance together in registers, without bounds
/// checks or reloads through the heap. The arithmetic is the general
/// path's ([`EScratch::observation`] and the M half of [`pass_chunk`]),
/// operation for operation, except that unit-weight rows multiply their
/// likelihoods into a [`LogProduct`] instead of taking one `ln` each.
struct UntiedKernel<const G: usize> {
    universe: usize,
    lam: Vec<[f64; G]>,
    w_lin: [f64; G],
    totals: [f64; G],
    suf: Vec<[f64; G]>,
    wins: Vec<[f64; G]>,
    den: Vec<[f64; G]>,
    cu: [f64; G],
    /// `Σ w_o ln p_o` of rows with a weight other than 1.
    ll: f64,
    /// The likelihoods of unit-weight rows.
    unit: LogProduct,
}

impl<const G: usize> UntiedKernel<G> {
    fn new(ds: &Dataset, lams: &[Vec<f64>], log_w: &[f64], totals: &[f64]) -> Self {
        let n = ds.n_items();
        let mut lam = vec![[0.0; G]; n];
        for (k, l) in lams.iter().enumerate() {
            for (i, &x) in l.iter().enumerate() {
                lam[i][k] = x;
            }
        }
        UntiedKernel {
            universe: ds.universe(),
            lam,
            w_lin: std::array::from_fn(|k| log_w[k].exp()),
            totals: std::array::from_fn(|k| totals[k]),
            suf: Vec::new(),
            wins: vec![[0.0; G]; n],
            den: vec![[0.0; G]; n],
            cu: [0.0; G],
            ll: 0.0,
            unit: LogProduct::new(),
        }
    }

    /// Adds an untied observation (items `mem`, the first `stages` of them
    /// chosen in turn; `top_k`: the unlisted rest of the universe ranks
    /// below) of weight `w` and returns its responsibilities; `None`, with
    /// nothing added, when its products leave the range where they are
    /// exact, or the unlisted worth cancels (the general path's logs and
    /// direct sums handle those).
    #[inline]
    fn observation(&mut self, mem: &[u32], stages: usize, top_k: bool, w: f64) -> Option<[f64; G]> {
        let m = mem.len();
        let lam = &self.lam;
        let suf = &mut self.suf;
        suf.clear();
        suf.resize(m + 1, [0.0; G]);
        if top_k {
            let mut listed = [0.0; G];
            for &i in mem {
                if (i as usize) < self.universe {
                    let l = &lam[i as usize];
                    for k in 0..G {
                        listed[k] += l[k];
                    }
                }
            }
            for k in 0..G {
                let r = self.totals[k] - listed[k];
                if r <= 1e-8 * self.totals[k] {
                    return None;
                }
                suf[m][k] = r;
            }
        }
        for j in (0..m).rev() {
            let l = &lam[mem[j] as usize];
            let next = suf[j + 1];
            let cur = &mut suf[j];
            for k in 0..G {
                cur[k] = next[k] + l[k];
            }
        }
        let mut num = [1.0; G];
        let mut den = [1.0; G];
        for j in 0..stages {
            let l = &lam[mem[j] as usize];
            let s = &suf[j];
            for k in 0..G {
                num[k] *= l[k];
                den[k] *= s[k];
            }
        }
        let mut z = [0.0; G];
        let mut tot = 0.0;
        for k in 0..G {
            let (nu, de) = (num[k], den[k]);
            let v = nu / de;
            // As EScratch::observation: exact to rounding far from under-
            // and overflow.
            if !(nu > 1e-250 && de < 1e250 && v > 1e-250) {
                return None;
            }
            z[k] = self.w_lin[k] * v;
            tot += z[k];
        }
        for x in z.iter_mut() {
            *x /= tot;
        }
        if w == 1.0 {
            self.unit.push(tot);
        } else {
            self.ll += w * tot.ln();
        }
        // The M half: stage wins and in-play coefficients weighted by w·z.
        // Stage j's chosen item is in play at stages 0..=j; a top-k row's
        // unlisted items at every stage (owed through `cu`, added to the
        // whole universe once per pass, so listed items pay it back here:
        // one scatter per member instead of two).
        let v: [f64; G] = std::array::from_fn(|k| w * z[k]);
        let mut cum = [0.0; G];
        for j in 0..stages {
            let s = &mut suf[j];
            // Not a copy (clippy's manual_memcpy misreads it): each entry is
            // read, accumulated into `cum`, then overwritten.
            #[allow(clippy::manual_memcpy)]
            for k in 0..G {
                cum[k] += v[k] / s[k];
                s[k] = cum[k];
            }
        }
        let back = if top_k { cum } else { [0.0; G] };
        for j in 0..stages {
            let i = mem[j] as usize;
            let c = &suf[j];
            let (wi, di) = (&mut self.wins[i], &mut self.den[i]);
            let owed = if top_k && i >= self.universe {
                [0.0; G]
            } else {
                back
            };
            for k in 0..G {
                wi[k] += v[k];
                di[k] += c[k] - owed[k];
            }
        }
        for &i in &mem[stages..] {
            let di = &mut self.den[i as usize];
            let owed = if top_k && (i as usize) < self.universe {
                cum
            } else {
                [0.0; G]
            };
            for k in 0..G {
                di[k] += cum[k] - owed[k];
            }
        }
        if top_k {
            for k in 0..G {
                self.cu[k] += cum[k];
            }
        }
        Some(z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{DatasetBuilder, Items, TieSemantics};
    use crate::model::pl::{reweighted_sweep, scaled, unit_log_likelihoods};

    /// The fused pass ([`mixture_pass`]: the kernels compiled for 1–6
    /// components and the run-time path for more) equals its unfused
    /// composition — the responsibilities of [`mixture_responsibilities`]
    /// followed by one [`reweighted_sweep`](super::pl::reweighted_sweep) per component — on untied, top-k
    /// (listed items near the whole mass too), tied and sub-ranking rows
    /// with weights, at ordinary and extreme worths.
    #[test]
    fn fused_mixture_pass_equals_the_unfused_steps() {
        let mut b = DatasetBuilder::new(Items::numbered(7), TieSemantics::UnknownOrder);
        let rows: [(&[&[u32]], Tail); 8] = [
            (&[&[0], &[1], &[2], &[3], &[4], &[5], &[6]], Tail::None),
            (&[&[5], &[2]], Tail::Universe),
            (&[&[6], &[0], &[1], &[2], &[3]], Tail::Universe),
            (&[&[3], &[1, 4], &[0]], Tail::None),
            (&[&[2], &[4], &[1]], Tail::None),
            (&[&[1, 2], &[0]], Tail::Universe),
            (&[&[4], &[3]], Tail::None),
            (&[&[0], &[6]], Tail::Universe),
        ];
        for (k, (r, t)) in rows.iter().enumerate() {
            b.push(r, *t, &[], if k % 3 == 0 { 1.0 } else { 0.5 + k as f64 })
                .unwrap();
        }
        let ds = b.finish();
        let weights: Vec<f64> = (0..ds.n_obs()).map(|o| ds.obs(o).weight).collect();
        for g in 1..=8usize {
            for spread in [0.7, 9.0, 400.0] {
                let thetas: Vec<Vec<f64>> = (0..g)
                    .map(|c| {
                        (0..7)
                            .map(|i| spread * (((i * (c + 2) + c) % 7) as f64 / 6.0 - 0.5))
                            .collect()
                    })
                    .collect();
                let w: Vec<f64> = (0..g)
                    .map(|c| (1.0 + c as f64) / (g * (g + 1) / 2) as f64)
                    .collect();
                let log_w: Vec<f64> = w.iter().map(|x| x.ln()).collect();
                let (lams, log_lams): (Vec<Vec<f64>>, Vec<Vec<f64>>) =
                    thetas.iter().map(|t| scaled(t)).unzip();
                let fused = mixture_pass(&ds, &lams, &log_lams, &log_w, &weights);
                let (ll, z) = mixture_responsibilities(&ds, &lams, &log_lams, &log_w);
                let close =
                    |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1e-300);
                assert!(
                    close(fused.log_likelihood, ll),
                    "G={g} spread {spread}: {} vs {ll}",
                    fused.log_likelihood
                );
                for k in 0..g {
                    let v: Vec<f64> = weights.iter().zip(&z[k]).map(|(w, z)| w * z).collect();
                    let (wins, den) = reweighted_sweep(&ds, &lams[k], &v);
                    for o in 0..ds.n_obs() {
                        assert!(
                            close(fused.z[k][o], z[k][o]),
                            "G={g} spread {spread} z[{k}][{o}]"
                        );
                    }
                    for i in 0..7 {
                        assert!(
                            close(fused.wins[k][i], wins[i]),
                            "G={g} spread {spread} wins[{k}][{i}]"
                        );
                        assert!(
                            (fused.den[k][i] - den[i]).abs() <= 1e-11 * den[i].abs().max(1e-300),
                            "G={g} spread {spread} den[{k}][{i}]: {} vs {}",
                            fused.den[k][i],
                            den[i]
                        );
                    }
                }
            }
        }
    }

    /// The E-step's linear fast path and its log fallback agree with the
    /// per-component log-likelihoods of [`unit_log_likelihoods`](super::pl::unit_log_likelihoods), on untied,
    /// top-k, tied and sub-ranking rows, with ordinary and extreme worths
    /// (products that underflow).
    #[test]
    fn mixture_responsibilities_match_the_unit_log_likelihoods() {
        let mut b = DatasetBuilder::new(Items::numbered(6), TieSemantics::UnknownOrder);
        let rows: [(&[&[u32]], Tail); 6] = [
            (&[&[0], &[1], &[2], &[3], &[4], &[5]], Tail::None),
            (&[&[5], &[2]], Tail::Universe),
            (&[&[3], &[1, 4], &[0]], Tail::None),
            (&[&[2], &[4], &[1]], Tail::None),
            (&[&[1, 2], &[0]], Tail::Universe),
            (&[&[4], &[3]], Tail::None),
        ];
        for (k, (r, t)) in rows.iter().enumerate() {
            b.push(r, *t, &[], 1.0 + k as f64).unwrap();
        }
        let ds = b.finish();
        for spread in [0.7, 160.0, 400.0] {
            let thetas: Vec<Vec<f64>> = (0..3)
                .map(|g| {
                    (0..6)
                        .map(|i| spread * (((i * (g + 2) + g) % 6) as f64 / 5.0 - 0.5))
                        .collect()
                })
                .collect();
            let log_w = [0.5f64.ln(), 0.3f64.ln(), 0.2f64.ln()];
            let (lams, log_lams): (Vec<Vec<f64>>, Vec<Vec<f64>>) =
                thetas.iter().map(|t| scaled(t)).unzip();
            let (ll, z) = mixture_responsibilities(&ds, &lams, &log_lams, &log_w);
            let per: Vec<Vec<f64>> = lams
                .iter()
                .zip(&log_lams)
                .map(|(l, ll)| unit_log_likelihoods(&ds, l, ll))
                .collect();
            let mut want = 0.0;
            for o in 0..ds.n_obs() {
                let a: Vec<f64> = (0..3).map(|k| log_w[k] + per[k][o]).collect();
                let lse = crate::numerics::log_sum_exp(&a);
                want += ds.obs(o).weight * lse;
                for k in 0..3 {
                    let r = (a[k] - lse).exp();
                    assert!((z[k][o] - r).abs() < 1e-12, "spread {spread}, obs {o}");
                }
            }
            assert!(
                (ll - want).abs() < 1e-9 * want.abs().max(1.0),
                "{ll} vs {want}"
            );
        }
    }
}
