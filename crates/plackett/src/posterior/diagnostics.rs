//! MCMC convergence diagnostics: rank-normalised split-R̂ and bulk/tail
//! effective sample size (Vehtari, Gelman, Simpson, Carpenter & Bürkner
//! 2021, "Rank-normalization, folding, and localization").

use crate::numerics::special::normal_quantile;

/// The thresholds and the rule, defined once with the document envelope.
pub use crate::document::{ESS_MIN, RHAT_MAX, mixing_passes};

/// An engine's status for a table: a sampler's sweeps and mixing checks
/// ([`mixing_line`]) when it has R̂ and ESS, else an iterative engine's
/// "converged after N iterations" (or "NOT converged").
pub fn status_line(converged: bool, iterations: usize, mixing: Option<(f64, f64)>) -> String {
    match mixing {
        Some((rhat, ess)) => mixing_line(iterations, rhat, ess),
        None => format!(
            "{} after {iterations} iterations",
            if converged {
                "converged"
            } else {
                "NOT converged"
            }
        ),
    }
}

/// A sampler's status line for a table: its sweeps and whether its worst
/// R̂ and ESS pass the thresholds — never "converged after N iterations",
/// which would read as an optimiser's stopping rule.
pub fn mixing_line(sweeps: usize, rhat: f64, ess: f64) -> String {
    format!(
        "{sweeps} sweeps per chain; max split-R̂ {rhat:.4}, min ESS {ess:.0}: {} (R̂ ≤ {RHAT_MAX}, ESS ≥ {ESS_MIN:.0})",
        if mixing_passes(rhat, ess) {
            "mixing checks pass"
        } else {
            "mixing checks FAIL"
        }
    )
}

/// Diagnostics of one scalar quantity across chains.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScalarDiagnostics {
    /// max(bulk R̂, tail R̂) on split chains (§4.2).
    #[serde(with = "crate::io::float_serde::f64")]
    pub rhat: f64,
    /// Bulk effective sample size (rank-normalised, split chains).
    #[serde(with = "crate::io::float_serde::f64")]
    pub ess_bulk: f64,
    /// Tail ESS: the smaller ESS of the 5% and 95% quantile indicators.
    #[serde(with = "crate::io::float_serde::f64")]
    pub ess_tail: f64,
}

/// Split each chain in two halves (dropping the middle draw of odd lengths).
fn split(chains: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let mut out = Vec::with_capacity(chains.len() * 2);
    for c in chains {
        let h = c.len() / 2;
        out.push(c[..h].to_vec());
        out.push(c[c.len() - h..].to_vec());
    }
    out
}

/// Rank-normalise all draws jointly: `Φ⁻¹((r − 3/8)/(S + 1/4))` with
/// average ranks for ties.
fn rank_normalise(chains: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let s: usize = chains.iter().map(|c| c.len()).sum();
    let mut idx: Vec<(f64, usize, usize)> = Vec::with_capacity(s);
    for (ci, c) in chains.iter().enumerate() {
        for (t, &x) in c.iter().enumerate() {
            idx.push((x, ci, t));
        }
    }
    idx.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<Vec<f64>> = chains.iter().map(|c| vec![0.0; c.len()]).collect();
    let mut k = 0;
    while k < idx.len() {
        let mut e = k + 1;
        while e < idx.len() && idx[e].0 == idx[k].0 {
            e += 1;
        }
        let rank = (k + 1 + e) as f64 / 2.0; // average 1-based rank of the tie block
        let z = normal_quantile((rank - 0.375) / (s as f64 + 0.25));
        for &(_, ci, t) in &idx[k..e] {
            out[ci][t] = z;
        }
        k = e;
    }
    out
}

use crate::stats::{mean, quantile_sorted, var};

/// Classic R̂ of (already split) chains (Gelman et al. BDA3 eq 11.4).
fn rhat_basic(chains: &[Vec<f64>]) -> f64 {
    let n = chains[0].len() as f64;
    let means: Vec<f64> = chains.iter().map(|c| mean(c)).collect();
    let w = chains.iter().map(|c| var(c)).sum::<f64>() / chains.len() as f64;
    let b = n * var(&means);
    if w == 0.0 {
        return if b == 0.0 { 1.0 } else { f64::INFINITY };
    }
    let var_plus = (n - 1.0) / n * w + b / n;
    (var_plus / w).sqrt()
}

/// Biased autocovariance `(1/n) Σ_t (x_t − x̄)(x_{t+k} − x̄)` for every lag
/// `k`, by zero-padded FFT.
fn autocovariance(x: &[f64]) -> Vec<f64> {
    use rustfft::{FftPlanner, num_complex::Complex};
    let n = x.len();
    let mu = mean(x);
    let size = (2 * n).next_power_of_two();
    let mut buf: Vec<Complex<f64>> = x.iter().map(|v| Complex::new(v - mu, 0.0)).collect();
    buf.resize(size, Complex::new(0.0, 0.0));
    let mut planner = FftPlanner::<f64>::new();
    planner.plan_fft_forward(size).process(&mut buf);
    for z in buf.iter_mut() {
        *z = Complex::new(z.norm_sqr(), 0.0);
    }
    planner.plan_fft_inverse(size).process(&mut buf);
    buf[..n]
        .iter()
        .map(|z| z.re / (size as f64 * n as f64))
        .collect()
}

/// ESS of (already split) chains with Geyer's initial monotone sequence
/// (Stan's algorithm; Vehtari et al. §3.2).
fn ess_basic(chains: &[Vec<f64>]) -> f64 {
    let m = chains.len();
    let n = chains[0].len();
    if n < 4 {
        return f64::NAN;
    }
    // Autocovariances of every chain at every lag by FFT (Stan's method):
    // O(n log n) per chain instead of O(n · lags).
    let acovs: Vec<Vec<f64>> = chains.iter().map(|c| autocovariance(c)).collect();
    let acov = |c: usize, lag: usize| -> f64 { acovs[c][lag] };
    let means: Vec<f64> = chains.iter().map(|c| mean(c)).collect();
    let w = chains.iter().map(|c| var(c)).sum::<f64>() / m as f64;
    let b_over_n = if m > 1 { var(&means) } else { 0.0 };
    let var_plus = (n as f64 - 1.0) / n as f64 * w + b_over_n;
    if var_plus.is_nan() || var_plus <= 0.0 {
        return f64::NAN;
    }
    let rho = |lag: usize| -> f64 {
        let mean_acov = (0..m).map(|c| acov(c, lag)).sum::<f64>() / m as f64;
        1.0 - (w - mean_acov) / var_plus
    };
    // Geyer's initial positive sequence, then the initial monotone
    // sequence, exactly as Stan (and the posterior R package, and ArviZ)
    // do it, including the last positive even lag they add once.
    let mut rho_t = vec![0.0; n];
    let mut rho_even = 1.0;
    let mut rho_odd = rho(1);
    rho_t[0] = rho_even;
    rho_t[1] = rho_odd;
    let mut t: isize = 1;
    while t < n as isize - 3 && rho_even + rho_odd > 0.0 {
        let u = t as usize;
        rho_even = rho(u + 1);
        rho_odd = rho(u + 2);
        if rho_even + rho_odd >= 0.0 {
            rho_t[u + 1] = rho_even;
            rho_t[u + 2] = rho_odd;
        }
        t += 2;
    }
    let max_t = t - 2;
    if rho_even > 0.0 {
        rho_t[(max_t + 1) as usize] = rho_even;
    }
    let mut t: isize = 1;
    while t <= max_t - 2 {
        let u = t as usize;
        if rho_t[u + 1] + rho_t[u + 2] > rho_t[u - 1] + rho_t[u] {
            rho_t[u + 1] = (rho_t[u - 1] + rho_t[u]) / 2.0;
            rho_t[u + 2] = rho_t[u + 1];
        }
        t += 2;
    }
    let head: f64 = rho_t[..(max_t + 1).max(0) as usize].iter().sum();
    let tau = -1.0 + 2.0 * head + rho_t[(max_t + 1) as usize];
    let tau = tau.max(1.0 / ((m * n) as f64).log10());
    (m * n) as f64 / tau
}

/// ESS of the raw draws (no splitting, no rank normalisation) by Geyer's
/// initial monotone sequence: `N / (1 + 2 Σ ρ_k)` as used by Archambeau &
/// Caron (Archambeau & Caron 2012 §4.2, Table 3) and Girolami & Calderhead (2011). Kept
/// for comparisons with published tables; [`diagnose`]'s bulk ESS is the
/// one to trust (it does not overstate mixing of skewed or split-biased
/// chains).
pub fn ess_geyer(chains: &[Vec<f64>]) -> f64 {
    if chains.is_empty() {
        return f64::NAN;
    }
    ess_basic(chains)
}

/// Diagnostics of one scalar tracked in several chains of equal length.
pub fn diagnose(chains: &[Vec<f64>]) -> ScalarDiagnostics {
    let sp = split(chains);
    if sp.is_empty() || sp[0].len() < 4 {
        return ScalarDiagnostics {
            rhat: f64::NAN,
            ess_bulk: f64::NAN,
            ess_tail: f64::NAN,
        };
    }
    let z = rank_normalise(&sp);
    let rhat_bulk = rhat_basic(&z);
    // Folded: |x − median| (tail R̂).
    // Median of all draws (the mean of the two middle ones for an even
    // count), as the reference implementations fold around.
    let mut all: Vec<f64> = chains.iter().flatten().copied().collect();
    all.sort_by(|a, b| a.total_cmp(b));
    let h = all.len() / 2;
    let med = if all.len().is_multiple_of(2) {
        0.5 * (all[h - 1] + all[h])
    } else {
        all[h]
    };
    let folded: Vec<Vec<f64>> = sp
        .iter()
        .map(|c| c.iter().map(|x| (x - med).abs()).collect())
        .collect();
    let rhat_tail = rhat_basic(&rank_normalise(&folded));
    let ess_bulk = ess_basic(&z);
    // Quantiles of all draws by linear interpolation between order
    // statistics (R's type 7, as Stan's posterior package and ArviZ).
    let (q05, q95) = (quantile_sorted(&all, 0.05), quantile_sorted(&all, 0.95));
    let ind = |f: &dyn Fn(f64) -> bool| -> Vec<Vec<f64>> {
        sp.iter()
            .map(|c| c.iter().map(|&x| if f(x) { 1.0 } else { 0.0 }).collect())
            .collect()
    };
    let e_lo = ess_basic(&ind(&|x| x <= q05));
    let e_hi = ess_basic(&ind(&|x| x <= q95));
    ScalarDiagnostics {
        rhat: rhat_bulk.max(rhat_tail),
        ess_bulk,
        ess_tail: e_lo.min(e_hi),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_distr::{Distribution, Normal};

    #[test]
    fn iid_chains_have_rhat_near_one_and_full_ess() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let nd = Normal::new(0.0, 1.0).unwrap();
        let chains: Vec<Vec<f64>> = (0..4)
            .map(|_| (0..1000).map(|_| nd.sample(&mut rng)).collect())
            .collect();
        let d = diagnose(&chains);
        assert!(d.rhat < 1.01, "{d:?}");
        assert!(d.ess_bulk > 3000.0 && d.ess_bulk < 5000.0, "{d:?}");
        assert!(d.ess_tail > 2500.0, "{d:?}");
    }

    #[test]
    fn ar1_chain_ess_matches_theory() {
        // AR(1) with φ: τ = (1+φ)/(1−φ) ⇒ ESS ≈ N(1−φ)/(1+φ).
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(4);
        let nd = Normal::new(0.0, 1.0).unwrap();
        let phi: f64 = 0.9;
        let chains: Vec<Vec<f64>> = (0..4)
            .map(|_| {
                let mut x = 0.0;
                (0..20_000)
                    .map(|_| {
                        x = phi * x + (1.0 - phi * phi).sqrt() * nd.sample(&mut rng);
                        x
                    })
                    .collect()
            })
            .collect();
        let d = diagnose(&chains);
        let theory = 80_000.0 * (1.0 - phi) / (1.0 + phi);
        assert!(
            (d.ess_bulk / theory - 1.0).abs() < 0.15,
            "{} vs {theory}",
            d.ess_bulk
        );
    }

    #[test]
    fn shifted_chain_has_large_rhat() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        let nd = Normal::new(0.0, 1.0).unwrap();
        let chains: Vec<Vec<f64>> = (0..4)
            .map(|c| {
                (0..500)
                    .map(|_| nd.sample(&mut rng) + if c == 0 { 2.0 } else { 0.0 })
                    .collect()
            })
            .collect();
        assert!(diagnose(&chains).rhat > 1.1);
    }
}
