//! Bayesian engines against published numbers, each other, and simulation.

use crate::common;
use common::{data_dir, path};
use plackett::data::simulate::{Design, simulate};
use plackett::data::{Dataset, DatasetBuilder, Items, Tail, TieSemantics};
use plackett::infer::bayes::{BayesFit, GammaPrior};
use plackett::infer::ep::{EpOptions, ep};
use plackett::infer::gibbs::{GibbsOptions, gibbs};
use plackett::infer::vb::{VbCovariance, VbOptions, vb};
use plackett::io::{ReadOptions, read_path};
use plackett::posterior::{Gauge, Posterior};
use rand::SeedableRng;

fn nascar(dir: &std::path::Path, exclude: bool) -> Dataset {
    let o = ReadOptions {
        ranking_col: "race".into(),
        rank_col: "position".into(),
        item_col: "driver".into(),
        ..Default::default()
    };
    let d = read_path(&path(dir, "nascar2002/results.csv"), &o).unwrap();
    if !exclude {
        return d;
    }
    // The four drivers who never beat anyone: without them the MLE exists.
    let drop = [
        "Andy Hillenburg",
        "Gary Bradberry",
        "Jason Hedlesky",
        "Randy Renfrow",
    ];
    d.exclude(&drop).unwrap()
}

fn ep_opts(n: usize, a: f64, b: f64) -> EpOptions {
    EpOptions {
        tol: 1e-10,
        draws: 2000,
        ..EpOptions::new(GammaPrior::iid(n, a, b).unwrap())
    }
}

fn gibbs_opts(
    n: usize,
    a: f64,
    b: f64,
    samples: usize,
    burn: usize,
    chains: usize,
    seed: u64,
) -> GibbsOptions {
    GibbsOptions {
        prior: GammaPrior::iid(n, a, b).unwrap(),
        mcmc: plackett::infer::mcmc::McmcSettings::new(samples, burn, chains, seed),
        rescale: true,
        observer: None,
    }
}

fn vb_opts(n: usize, a: f64, b: f64) -> VbOptions {
    VbOptions {
        iter: plackett::numerics::fixed_point::IterSettings::new(1e-12, 100_000),
        draws: 2000,
        // The papers' mean-field VB; the linear-response tests set it.
        covariance: plackett::infer::vb::VbCovariance::MeanField,
        ..VbOptions::new(GammaPrior::iid(n, a, b).unwrap())
    }
}

/// [`vb_opts`] with the linear-response covariance (`vb`'s default).
fn vb_lr_opts(n: usize, a: f64, b: f64) -> VbOptions {
    VbOptions {
        covariance: VbCovariance::LinearResponse,
        ..vb_opts(n, a, b)
    }
}

/// Guiver & Snelson (2009) Table 1: EP posterior of normalised worths,
/// prior Gamma(3, 2), NASCAR 2002 without the four always-last drivers.
const TABLE1: [(&str, usize, f64, f64); 20] = [
    ("PJ Jones", 18, 0.0159, 0.0079),
    ("Scott Pruett", 19, 0.0156, 0.0078),
    ("Mark Martin", 1, 0.0278, 0.0047),
    ("Tony Stewart", 4, 0.0229, 0.0040),
    ("Rusty Wallace", 2, 0.0275, 0.0046),
    ("Jimmie Johnson", 3, 0.0250, 0.0042),
    ("Sterling Marlin", 6, 0.0207, 0.0040),
    ("Mike Bliss", 23, 0.0146, 0.0073),
    ("Jeff Gordon", 5, 0.0213, 0.0036),
    ("Kurt Busch", 8, 0.0198, 0.0034),
    ("Carl Long", 73, 0.0062, 0.0029),
    ("Christian Fittipaldi", 68, 0.0075, 0.0039),
    ("Hideo Fukuyama", 77, 0.0054, 0.0028),
    ("Jason Small", 71, 0.0067, 0.0036),
    ("Morgan Shepherd", 83, 0.0041, 0.0016),
    ("Kirk Shelmerdine", 75, 0.0059, 0.0028),
    ("Austin Cameron", 62, 0.0083, 0.0043),
    ("Dave Marcis", 61, 0.0083, 0.0043),
    ("Dick Trickle", 80, 0.0050, 0.0022),
    ("Joe Varde", 66, 0.0078, 0.0041),
];

#[test]
fn ep_reproduces_guiver_snelson_table1() {
    let dir = data_dir();
    let d = nascar(&dir, true);
    let f = ep(&d, &ep_opts(d.n_items(), 3.0, 2.0)).unwrap();
    assert!(f.converged);
    let s = f.summary(d.items().names(), Gauge::MeanCentred);
    let total: f64 = s.items.iter().map(|i| i.worth).sum();
    assert!((total - 1.0).abs() < 1e-12);
    let mut order: Vec<usize> = (0..s.items.len()).collect();
    order.sort_by(|&a, &b| s.items[b].worth.total_cmp(&s.items[a].worth));
    for (name, rank, mean, sd) in TABLE1 {
        let i = d.items().get(name).unwrap() as usize;
        let it = &s.items[i];
        assert!(
            (it.worth - mean).abs() <= 3e-4,
            "{name}: mean {} vs {mean}",
            it.worth
        );
        assert!(
            (it.worth_sd.unwrap() - sd).abs() <= 3e-4,
            "{name}: sd {:?} vs {sd}",
            it.worth_sd
        );
        let r = order.iter().position(|&k| k == i).unwrap() + 1;
        assert!(
            (r as i64 - rank as i64).abs() <= 1,
            "{name}: rank {r} vs {rank}"
        );
    }
    assert!(f.log_evidence.unwrap().is_finite());
}

#[test]
fn gibbs_agrees_with_ep_on_nascar() {
    let dir = data_dir();
    let d = nascar(&dir, true);
    let e = ep(&d, &ep_opts(d.n_items(), 3.0, 2.0)).unwrap();
    let g = gibbs(&d, &gibbs_opts(d.n_items(), 3.0, 2.0, 5000, 1000, 4, 2024)).unwrap();
    let (rhat, _) = g.rhat_ess();
    assert!(rhat.unwrap() <= 1.01, "R̂ {rhat:?}");
    let names = d.items().names();
    let se = e.summary(names, Gauge::MeanCentred);
    let sg = g.summary(names, Gauge::MeanCentred);
    let diag = g.diagnostics.as_ref().unwrap();
    for i in 0..d.n_items() {
        let (ge, ee) = (sg.items[i].worth, se.items[i].worth);
        let mcse = sg.items[i].worth_sd.unwrap() / diag[i].ess_bulk.sqrt();
        assert!(
            (ge - ee).abs() <= 3.0 * mcse + 0.05 * ee,
            "{}: gibbs {ge} ep {ee} mcse {mcse}",
            names[i]
        );
    }
}

#[test]
fn sparse_winner_does_not_top_the_posterior() {
    let dir = data_dir();
    let d = nascar(&dir, true);
    let pj = d.items().get("PJ Jones").unwrap() as usize;
    let mm = d.items().get("Mark Martin").unwrap() as usize;
    for f in [
        ep(&d, &ep_opts(d.n_items(), 3.0, 2.0)).unwrap(),
        vb(&d, &vb_opts(d.n_items(), 3.0, 2.0)).unwrap(),
        vb(&d, &vb_lr_opts(d.n_items(), 3.0, 2.0)).unwrap(),
        gibbs(&d, &gibbs_opts(d.n_items(), 3.0, 2.0, 1000, 300, 2, 5)).unwrap(),
    ] {
        let s = f.summary(d.items().names(), Gauge::MeanCentred);
        let top = (0..s.items.len())
            .max_by(|&a, &b| s.items[a].worth.total_cmp(&s.items[b].worth))
            .unwrap();
        assert_ne!(top, pj, "{}: PJ Jones tops", f.engine);
        let w = |i: usize| s.items[i].ci_high.unwrap() - s.items[i].ci_low.unwrap();
        assert!(
            w(pj) > 2.0 * w(mm),
            "{}: one race should mean a wide interval",
            f.engine
        );
    }
}

#[test]
fn disconnected_data_fit_by_every_bayesian_engine() {
    let dir = data_dir();
    let d = nascar(&dir, false); // four drivers never beat anyone
    let n = d.n_items();
    for f in [
        ep(&d, &ep_opts(n, 2.0, 1.0)).unwrap(),
        vb(&d, &vb_opts(n, 2.0, 1.0)).unwrap(),
        vb(&d, &vb_lr_opts(n, 2.0, 1.0)).unwrap(),
        gibbs(&d, &gibbs_opts(n, 2.0, 1.0, 500, 200, 2, 3)).unwrap(),
    ] {
        let s = f.summary(d.items().names(), Gauge::MeanCentred);
        assert_eq!(s.items.len(), 87);
        assert!(
            s.items
                .iter()
                .all(|i| i.worth.is_finite() && i.worth > 0.0 && i.log_worth.is_finite())
        );
        assert!(
            s.items
                .iter()
                .all(|i| i.log_worth_sd.is_some_and(|v| v.is_finite() && v > 0.0)),
            "{}",
            f.engine
        );
    }
    // The prior's curvature makes the linear response's matrix positive
    // definite where the information alone is singular.
    assert!(
        vb(&d, &vb_lr_opts(n, 2.0, 1.0))
            .unwrap()
            .covariance
            .is_some()
    );
}

fn elbo_is_monotone(f: &BayesFit) {
    for w in f.trace.windows(2) {
        assert!(
            w[1] >= w[0] - 1e-9 * w[0].abs(),
            "ELBO decreased: {} -> {}",
            w[0],
            w[1]
        );
    }
}

#[test]
fn vb_elbo_never_decreases() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(8);
    let lam: Vec<f64> = (1..=10).map(|x| x as f64).collect();
    for design in [
        Design::Full,
        Design::TopK { k: 3 },
        Design::Pairs,
        Design::SubRankings { len: 4 },
    ] {
        let d = simulate(&mut rng, &lam, 40, design);
        for (a, b) in [(1.0, 1.0), (3.0, 2.0), (0.5, 0.1)] {
            let f = vb(&d, &vb_opts(10, a, b)).unwrap();
            assert!(f.converged);
            elbo_is_monotone(&f);
        }
    }
    // With unknown-order groups and a top-k tail.
    let mut b = DatasetBuilder::new(Items::numbered(5), TieSemantics::UnknownOrder);
    b.push(&[vec![0], vec![1, 2]], Tail::Universe, &[], 1.0)
        .unwrap();
    b.push(&[vec![1, 3, 4], vec![0]], Tail::None, &[], 2.0)
        .unwrap();
    b.push(&[vec![2], vec![0, 4]], Tail::Universe, &[], 1.0)
        .unwrap();
    let f = vb(&b.finish(), &vb_opts(5, 1.0, 1.0)).unwrap();
    elbo_is_monotone(&f);
}

/// Exact log-evidence by importance sampling from the prior.
fn log_evidence_is(d: &Dataset, a: f64, b: f64, m: usize) -> f64 {
    use plackett::model::pl::{Scope, log_likelihood};
    use plackett::numerics::gamma::ln_gamma_draw;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(99);
    let mut ls = Vec::with_capacity(m);
    let mut th = vec![0.0; d.n_items()];
    for _ in 0..m {
        for t in th.iter_mut() {
            *t = ln_gamma_draw(&mut rng, a, b);
        }
        ls.push(log_likelihood(d, &th, Scope::All));
    }
    plackett::numerics::log_sum_exp(&ls) - (m as f64).ln()
}

#[test]
fn ep_evidence_against_closed_forms() {
    // Two items with iid Gamma(a, ·) priors: p = λ0/(λ0+λ1) ~ Beta(a, a), so
    // P(0≻1) = 1/2, P(0≻1, 0≻1) = (a+1)/(2(2a+1)), P(0≻1, 1≻0) = a/(2(2a+1));
    // a full ranking of three exchangeable items has probability 1/6.
    let mk = |n: usize, obs: &[&[u32]]| {
        let mut b = DatasetBuilder::new(Items::numbered(n), TieSemantics::UnknownOrder);
        for o in obs {
            let g: Vec<Vec<u32>> = o.iter().map(|&i| vec![i]).collect();
            b.push(&g, Tail::None, &[], 1.0).unwrap();
        }
        b.finish()
    };
    for (a, rel) in [(30.0, 1e-3), (3.0, 0.03)] {
        let cases: Vec<(Dataset, f64)> = vec![
            (mk(2, &[&[0, 1]]), 0.5),
            (
                mk(2, &[&[0, 1], &[0, 1]]),
                (a + 1.0) / (2.0 * (2.0 * a + 1.0)),
            ),
            (mk(2, &[&[0, 1], &[1, 0]]), a / (2.0 * (2.0 * a + 1.0))),
            (mk(3, &[&[0, 1, 2]]), 1.0 / 6.0),
        ];
        for (d, exact) in cases {
            let z = ep(&d, &ep_opts(d.n_items(), a, 2.0))
                .unwrap()
                .log_evidence
                .unwrap()
                .exp();
            assert!(
                (z / exact - 1.0).abs() < rel,
                "a={a}: EP {z} vs exact {exact}"
            );
            // The ELBO is a lower bound on the exact log-evidence.
            let v = vb(&d, &vb_opts(d.n_items(), a, 2.0)).unwrap().elbo.unwrap();
            assert!(
                v <= exact.ln() + 1e-9,
                "ELBO {v} above log-evidence {}",
                exact.ln()
            );
        }
    }
}

#[test]
fn evidence_and_elbo_on_simulated_data() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(12);
    let lam = [1.0, 2.0, 3.0, 4.0];
    for design in [Design::Full, Design::Pairs] {
        let d = simulate(&mut rng, &lam, 6, design);
        let factors: usize = (0..d.n_obs()).map(|o| d.fast_stages(o).unwrap()).sum();
        let exact = log_evidence_is(&d, 3.0, 2.0, 400_000);
        let e = ep(&d, &ep_opts(4, 3.0, 2.0)).unwrap().log_evidence.unwrap();
        let v = vb(&d, &vb_opts(4, 3.0, 2.0)).unwrap().elbo.unwrap();
        eprintln!(
            "{design:?}: IS log-evidence {exact:.4}, EP {e:.4}, VB ELBO {v:.4} ({factors} factors)"
        );
        assert!(v <= exact + 0.01, "ELBO {v} above the evidence {exact}");
        // EP's error per factor at prior shape 3 is about 1–2% (see above).
        assert!(
            (e - exact).abs() < 0.02 * factors as f64,
            "EP evidence {e} vs {exact}"
        );
    }
    let err = ep(
        &simulate(&mut rng, &lam, 3, Design::Full),
        &ep_opts(4, 1.0, 1.0),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("shape > 1"), "{err}");
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum SbcEngine {
    Gibbs,
    Ep,
    Vb,
    /// VB with its linear-response covariance.
    VbLr,
}

/// Rank histograms of simulation-based calibration (Talts et al. 2018):
/// θ ~ prior, data ~ PL(θ), and the rank of every item's true normalised
/// log-worth among L = 49 posterior draws (ranks 0..=49, 10 bins of 5).
/// Returns one histogram per item.
fn sbc(design: Design, ties: bool, reps: usize, seed: u64, engine: SbcEngine) -> Vec<Vec<usize>> {
    let n = 4;
    let (a, b) = (2.0, 1.0);
    let l = 49;
    let mut bins = vec![vec![0usize; 10]; n];
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    for r in 0..reps {
        let theta: Vec<f64> = (0..n)
            .map(|_| plackett::numerics::gamma::ln_gamma_draw(&mut rng, a, b))
            .collect();
        let lam: Vec<f64> = theta.iter().map(|t| t.exp()).collect();
        let d = simulate(&mut rng, &lam, 6, design);
        let d = if ties {
            // Merge the 2nd and 3rd listed items of every observation into an
            // unknown-order group (the model then marginalises their order).
            let mut bb = DatasetBuilder::new(Items::numbered(n), TieSemantics::UnknownOrder);
            for ob in d.observations() {
                let m = ob.members;
                let mut g: Vec<Vec<u32>> = vec![vec![m[0]]];
                if m.len() >= 3 {
                    g.push(vec![m[1], m[2]]);
                    g.extend(m[3..].iter().map(|&x| vec![x]));
                } else {
                    g.extend(m[1..].iter().map(|&x| vec![x]));
                }
                bb.push(&g, ob.tail, &[], 1.0).unwrap();
            }
            bb.finish()
        } else {
            d
        };
        let f = match engine {
            SbcEngine::Gibbs => {
                let mut o = gibbs_opts(n, a, b, l, 100, 1, 1000 + r as u64);
                o.mcmc.thin = 4;
                gibbs(&d, &o).unwrap()
            }
            SbcEngine::Ep => {
                let mut o = ep_opts(n, a, b);
                o.draws = l;
                o.seed = 1000 + r as u64;
                ep(&d, &o).unwrap()
            }
            SbcEngine::Vb | SbcEngine::VbLr => {
                let mut o = vb_opts(n, a, b);
                o.draws = l;
                o.seed = 1000 + r as u64;
                if engine == SbcEngine::VbLr {
                    o.covariance = VbCovariance::LinearResponse;
                }
                vb(&d, &o).unwrap()
            }
        };
        let mut t0 = theta.clone();
        plackett::posterior::Draws::normalise(&mut t0);
        for (i, bi) in bins.iter_mut().enumerate() {
            let rank = (0..f.draws.len())
                .filter(|&k| f.draws.draw(k)[i] < t0[i])
                .count();
            bi[rank * 10 / (l + 1)] += 1;
        }
    }
    bins
}

/// χ² statistic of a 10-bin rank histogram against uniform.
fn chi2(bins: &[usize]) -> f64 {
    let e = bins.iter().sum::<usize>() as f64 / bins.len() as f64;
    bins.iter().map(|&c| (c as f64 - e).powi(2) / e).sum()
}

/// Share of ranks in the two outer bins (nominal 0.2): above it, the
/// posterior is too narrow (truth often outside the draws); below, too wide.
fn outer_share(bins: &[usize]) -> f64 {
    (bins[0] + bins[9]) as f64 / bins.iter().sum::<usize>() as f64
}

/// The χ²(9) quantile that every item's statistic must stay below: overall
/// level 0.1%, Bonferroni over the items.
fn chi2_limit(items: usize) -> f64 {
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    ChiSquared::new(9.0)
        .unwrap()
        .inverse_cdf(1.0 - 0.001 / items as f64)
}

#[test]
fn gibbs_simulation_based_calibration() {
    for (design, ties, reps, seed) in [
        (Design::Full, false, 400, 1),
        (Design::TopK { k: 3 }, true, 400, 2),
        (Design::Pairs, false, 300, 3),
    ] {
        let bins = sbc(design, ties, reps, seed, SbcEngine::Gibbs);
        let limit = chi2_limit(bins.len());
        for (i, b) in bins.iter().enumerate() {
            let c = chi2(b);
            eprintln!(
                "SBC gibbs {design:?} ties={ties} item {i}: bins {b:?}, chi2 {c:.2} (limit {limit:.2})"
            );
            assert!(c < limit, "gibbs {design:?} item {i}: chi2 {c:.2}");
        }
    }
}

/// SBC of the approximate engines, every item: EP is held to the same χ²
/// bound as Gibbs; VB's mean-field posterior is too narrow, and the test
/// reports by how much (outer-bin share 0.24–0.31 against the nominal 0.20
/// at these seeds, docs/engines.md) and fails if the share reaches 0.40.
#[test]
fn ep_vb_simulation_based_calibration() {
    for (design, reps, seed) in [(Design::Full, 400, 11), (Design::Pairs, 300, 13)] {
        for engine in [SbcEngine::Ep, SbcEngine::Vb, SbcEngine::VbLr] {
            let bins = sbc(design, false, reps, seed, engine);
            let limit = chi2_limit(bins.len());
            for (i, b) in bins.iter().enumerate() {
                let (c, o) = (chi2(b), outer_share(b));
                eprintln!(
                    "SBC {engine:?} {design:?} item {i}: bins {b:?}, chi2 {c:.2} (gibbs limit {limit:.2}), outer share {o:.3} (nominal 0.200)"
                );
                match engine {
                    SbcEngine::Ep | SbcEngine::VbLr => {
                        assert!(c < limit, "{engine:?} {design:?} item {i}: chi2 {c:.2}")
                    }
                    _ => assert!(o < 0.40, "VB {design:?} item {i}: outer share {o:.3}"),
                }
            }
        }
    }
}

/// Coverage of nominal 90% intervals of mean-centred log-worths for EP and
/// VB (approximate posteriors: reported, checked only for gross errors).
#[test]
fn ep_vb_coverage_report() {
    let n = 6;
    let (a, b) = (2.0, 1.0);
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(77);
    let (mut hit_ep, mut hit_vb, mut hit_lr, mut total) = (0usize, 0usize, 0usize, 0usize);
    for r in 0..150 {
        let theta: Vec<f64> = (0..n)
            .map(|_| plackett::numerics::gamma::ln_gamma_draw(&mut rng, a, b))
            .collect();
        let lam: Vec<f64> = theta.iter().map(|t| t.exp()).collect();
        let d = simulate(&mut rng, &lam, 10, Design::SubRankings { len: 3 });
        let mean = theta.iter().sum::<f64>() / n as f64;
        let covered = |f: &BayesFit| {
            let mut c = 0;
            for i in 0..n {
                let col: Vec<f64> = (0..f.draws.len())
                    .map(|k| {
                        let dr = f.draws.draw(k);
                        dr[i] - dr.iter().sum::<f64>() / n as f64
                    })
                    .collect();
                let mut s = col.clone();
                let (lo, hi) = plackett::posterior::draws::central_interval(&mut s, 0.9);
                if theta[i] - mean >= lo && theta[i] - mean <= hi {
                    c += 1;
                }
            }
            c
        };
        let mut eo = ep_opts(n, a, b);
        eo.seed = r;
        hit_ep += covered(&ep(&d, &eo).unwrap());
        let mut vo = vb_opts(n, a, b);
        vo.seed = r;
        hit_vb += covered(&vb(&d, &vo).unwrap());
        vo.covariance = VbCovariance::LinearResponse;
        hit_lr += covered(&vb(&d, &vo).unwrap());
        total += n;
    }
    let (ce, cv) = (hit_ep as f64 / total as f64, hit_vb as f64 / total as f64);
    let cl = hit_lr as f64 / total as f64;
    eprintln!(
        "coverage of nominal 90% intervals: EP {ce:.3}, VB {cv:.3}, VB linear-response {cl:.3} ({total} intervals)"
    );
    // Binomial standard error of a coverage of 0.9 over `total` intervals
    // (intervals of one dataset are correlated, so this is optimistic; 3 of
    // them still leaves 0.87–0.93 at 900 intervals).
    let se = (0.9 * 0.1 / total as f64).sqrt();
    assert!(
        (ce - 0.9).abs() <= 3.0 * se,
        "EP coverage {ce} (nominal 0.9 ± {:.3})",
        3.0 * se
    );
    // VB under-covers (docs/engines.md: 0.844 at this seed); fail if it
    // stops under-covering (something changed) or loses much more.
    assert!(cv < 0.9 && cv > 0.78, "VB coverage {cv}");
    // The linear-response covariance restores nominal coverage (0.903 at
    // this seed, docs/engines.md): held to EP's band.
    assert!(
        (cl - 0.9).abs() <= 3.0 * se,
        "VB linear-response coverage {cl} (nominal 0.9 ± {:.3})",
        3.0 * se
    );
}

/// The per-pass rescaling of likelihood messages changes the speed, not the
/// fixed point: unaccelerated EP converges to marginal means summing to
/// Σa/b as well (the exact posterior mean of the total worth).
#[test]
fn ep_scale_acceleration_keeps_the_fixed_point() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(21);
    let lam: Vec<f64> = (1..=10).map(|x| x as f64).collect();
    let d = simulate(&mut rng, &lam, 50, Design::Full);
    let mut slow = ep_opts(10, 2.0, 1.0);
    slow.rescale = false;
    slow.tol = 1e-13;
    let a = ep(&d, &slow).unwrap();
    let b = ep(&d, &ep_opts(10, 2.0, 1.0)).unwrap();
    assert!(
        b.iterations * 5 < a.iterations,
        "{} vs {}",
        b.iterations,
        a.iterations
    );
    let (ma, mb) = (a.marginals.unwrap(), b.marginals.unwrap());
    let ta: f64 = ma.iter().map(|(s, r)| s / r).sum();
    let tb: f64 = mb.iter().map(|(s, r)| s / r).sum();
    assert!(
        (ta - 20.0).abs() < 1e-6 && (tb - 20.0).abs() < 1e-9,
        "{ta} {tb}"
    );
    for i in 0..10 {
        assert!((ma[i].0 / mb[i].0 - 1.0).abs() < 1e-8);
        assert!(((ma[i].0 / ma[i].1 / ta) / (mb[i].0 / mb[i].1 / tb) - 1.0).abs() < 1e-8);
    }
    assert!((a.log_evidence.unwrap() - b.log_evidence.unwrap()).abs() < 1e-6);
}

/// Six rankings of four items that form cycles (so the MLE exists).
const ROWS: [&[u32]; 6] = [
    &[0, 1, 2, 3],
    &[1, 2, 0],
    &[2, 3, 1, 0],
    &[3, 0],
    &[0, 2, 1],
    &[1, 3, 2],
];

/// [`ROWS`] with the given weights.
fn weighted_rows(weights: [f64; 6]) -> Dataset {
    let mut b = DatasetBuilder::new(Items::numbered(4), TieSemantics::UnknownOrder);
    for (r, w) in ROWS.iter().zip(weights) {
        let g: Vec<Vec<u32>> = r.iter().map(|&i| vec![i]).collect();
        b.push(&g, Tail::None, &[], w).unwrap();
    }
    b.finish()
}

/// A weighted site (power EP with power α/w on `f^w`) has the fixed point
/// of `w` repeated factors: the same marginals and evidence as the data
/// with every row written out `w` times (issue 17 item 2; before, EP
/// expanded the weights itself, at O(w) time and memory).
#[test]
fn ep_weighted_site_equals_repeated_rows() {
    let w = [3.0, 1.0, 2.0, 4.0, 1.0, 2.0];
    let weighted = weighted_rows(w);
    let mut b = DatasetBuilder::new(Items::numbered(4), TieSemantics::UnknownOrder);
    for (r, k) in ROWS.iter().zip(w) {
        for _ in 0..k as usize {
            let g: Vec<Vec<u32>> = r.iter().map(|&i| vec![i]).collect();
            b.push(&g, Tail::None, &[], 1.0).unwrap();
        }
    }
    let expanded = b.finish();
    let a = ep(&weighted, &ep_opts(4, 3.0, 2.0)).unwrap();
    let e = ep(&expanded, &ep_opts(4, 3.0, 2.0)).unwrap();
    assert!(a.converged && e.converged);
    let (ma, me) = (a.marginals.unwrap(), e.marginals.unwrap());
    for i in 0..4 {
        assert!((ma[i].0 / me[i].0 - 1.0).abs() < 1e-7, "{ma:?} {me:?}");
        assert!((ma[i].1 / me[i].1 - 1.0).abs() < 1e-7, "{ma:?} {me:?}");
    }
    let (za, ze) = (a.log_evidence.unwrap(), e.log_evidence.unwrap());
    assert!((za - ze).abs() < 1e-6, "{za} {ze}");
}

/// Weights of a million cost no more than weight one, and the posterior
/// they give concentrates on the maximum-likelihood worths; a fractional
/// weight is accepted and lies between its integer neighbours.
#[test]
fn ep_heavy_and_fractional_weights() {
    use plackett::infer::point::{PointOptions, fit_point};
    let heavy = weighted_rows([1e6; 6]);
    let f = ep(&heavy, &ep_opts(4, 3.0, 2.0)).unwrap();
    assert!(
        f.converged,
        "{:?} {:?} {:?}",
        f.notes,
        &f.trace[f.trace.len().saturating_sub(5)..],
        f.marginals
    );
    let m: Vec<f64> = f.marginals.unwrap().iter().map(|(s, r)| s / r).collect();
    let mle = fit_point(&heavy, &PointOptions::default()).unwrap();
    let w: Vec<f64> = mle.theta.iter().map(|t| t.exp()).collect();
    let (sm, sw): (f64, f64) = (m.iter().sum(), w.iter().sum());
    for i in 0..4 {
        assert!(
            (m[i] / sm / (w[i] / sw) - 1.0).abs() < 1e-4,
            "item {i}: EP {m:?} MLE {w:?}"
        );
    }
    let mean0 = |wt: f64| {
        let f = ep(
            &weighted_rows([wt, 1.0, 1.0, 1.0, 1.0, 1.0]),
            &ep_opts(4, 3.0, 2.0),
        )
        .unwrap();
        let m: Vec<f64> = f.marginals.unwrap().iter().map(|(s, r)| s / r).collect();
        m[0] / m.iter().sum::<f64>()
    };
    let (lo, mid, hi) = (mean0(2.0), mean0(2.5), mean0(3.0));
    assert!(lo < mid && mid < hi, "{lo} {mid} {hi}");
}

/// VB's linear-response covariance is the derivative of its tilted fixed
/// point: shapes `a + t` are the tilt `tᵀ log λ` (Giordano, Broderick &
/// Jordan 2015), so central differences of `E[log λ] = ψ(α) − log β` over
/// refitted tilts must reproduce `Σ_LR` column by column — on full
/// rankings, on pairs, and on top-3 lists with an unknown-order pair (the
/// information then has Louis' correction).
#[test]
fn vb_linear_response_is_the_derivative_of_the_tilted_fit() {
    use plackett::infer::vb::linear_response_covariance;
    use plackett::numerics::special::digamma;
    let n = 5;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
    let lam: Vec<f64> = (0..n).map(|i| (0.4 * i as f64).exp()).collect();
    for (design, ties) in [
        (Design::Full, false),
        (Design::Pairs, false),
        (Design::TopK { k: 3 }, true),
    ] {
        let d = simulate(&mut rng, &lam, 12, design);
        let d = if ties {
            let mut bb = DatasetBuilder::new(Items::numbered(n), TieSemantics::UnknownOrder);
            for ob in d.observations() {
                let m = ob.members;
                let mut g: Vec<Vec<u32>> = vec![vec![m[0]], vec![m[1], m[2]]];
                g.extend(m[3..].iter().map(|&x| vec![x]));
                bb.push(&g, ob.tail, &[], 1.0).unwrap();
            }
            bb.finish()
        } else {
            d
        };
        let fit = |shapes: Vec<f64>| {
            let mut o = vb_opts(n, 2.0, 1.0);
            o.prior = GammaPrior::per_item(shapes, 1.0).unwrap();
            o.iter = plackett::numerics::fixed_point::IterSettings::new(1e-15, 1_000_000);
            o.draws = 0;
            vb(&d, &o).unwrap().marginals.unwrap()
        };
        let m0 = fit(vec![2.0; n]);
        let (alpha, beta): (Vec<f64>, Vec<f64>) = m0.iter().copied().unzip();
        let prior = GammaPrior::iid(n, 2.0, 1.0).unwrap();
        let lr = linear_response_covariance(&d, &prior, &alpha, &beta).unwrap();
        let h = 1e-4;
        let mut worst = 0.0f64;
        for k in 0..n {
            let at = |s: f64| {
                let mut shapes = vec![2.0; n];
                shapes[k] += s;
                fit(shapes)
                    .iter()
                    .map(|&(a, b)| digamma(a) - b.ln())
                    .collect::<Vec<f64>>()
            };
            let (up, dn) = (at(h), at(-h));
            for i in 0..n {
                let fd = (up[i] - dn[i]) / (2.0 * h);
                worst = worst.max((fd - lr[(i, k)]).abs() / lr[(k, k)].abs());
            }
        }
        eprintln!("{design:?} ties={ties}: worst |FD − Σ_LR| / Σ_kk {worst:.2e}");
        assert!(worst < 1e-5, "{design:?}: {worst}");
    }
}

/// SBC of VB with its linear-response covariance on top-3 lists with an
/// unknown-order pair (the information with Louis' correction), held to
/// the Gibbs sampler's χ² bound.
#[test]
fn vb_linear_response_simulation_based_calibration_with_ties() {
    let bins = sbc(Design::TopK { k: 3 }, true, 400, 2, SbcEngine::VbLr);
    let limit = chi2_limit(bins.len());
    for (i, b) in bins.iter().enumerate() {
        let (c, o) = (chi2(b), outer_share(b));
        eprintln!(
            "SBC VbLr top-3 with ties item {i}: bins {b:?}, chi2 {c:.2} (limit {limit:.2}), outer share {o:.3}"
        );
        assert!(c < limit, "item {i}: chi2 {c:.2}");
    }
}

/// VB against the exact posterior on NASCAR 2002 (Guiver & Snelson 2009's
/// data, prior Gamma(3, 2)): the sds of mean-centred log-worths from the
/// linear-response covariance against the Gibbs sampler's, and the
/// mean-field ones for contrast.
#[test]
fn vb_linear_response_sds_against_gibbs_on_nascar() {
    let dir = data_dir();
    let d = nascar(&dir, true);
    let n = d.n_items();
    let g = gibbs(&d, &gibbs_opts(n, 3.0, 2.0, 4000, 500, 2, 9)).unwrap();
    let mut o = vb_opts(n, 3.0, 2.0);
    let mf = vb(&d, &o).unwrap();
    o.covariance = VbCovariance::LinearResponse;
    let lr = vb(&d, &o).unwrap();
    let names = d.items().names();
    let sd = |f: &BayesFit| -> Vec<f64> {
        f.summary(names, Gauge::MeanCentred)
            .items
            .iter()
            .map(|i| i.log_worth_sd.unwrap())
            .collect()
    };
    let (sg, sm, sl) = (sd(&g), sd(&mf), sd(&lr));
    // `vb` returns the covariance mean-centred: rows sum to zero and the
    // diagonal is the summary's variances.
    let c = lr.covariance.as_ref().unwrap();
    for i in 0..n {
        assert!(c.row(i).sum().abs() < 1e-12, "row {i}");
        assert!((c[(i, i)].sqrt() - sl[i]).abs() < 1e-12, "item {i}");
    }
    assert!(mf.covariance.is_none());
    let ratios = |s: &[f64]| {
        let mut r: Vec<f64> = s.iter().zip(&sg).map(|(a, b)| a / b).collect();
        r.sort_by(f64::total_cmp);
        (r[0], r[r.len() / 2], r[r.len() - 1])
    };
    let (ml, mm) = (ratios(&sl), ratios(&sm));
    eprintln!("sd / Gibbs sd (min, median, max): linear-response {ml:.3?}, mean-field {mm:.3?}");
    // 0.987–1.018 (median 1.000) against mean-field's 0.926–1.002 (0.971):
    // every item within the sampler's Monte Carlo error of about 1–2%.
    assert!(ml.0 > 0.95 && ml.2 < 1.05, "linear-response ratios {ml:?}");
    assert!(
        (ml.1 - 1.0).abs() < 0.02,
        "linear-response median ratio {}",
        ml.1
    );
    assert!((ml.1 - 1.0).abs() < (mm.1 - 1.0).abs(), "{ml:?} vs {mm:?}");
}

/// In-process shards: each part's sweep and information, as a Dask
/// worker computes them (`plackett.distributed.fit`).
struct Parts(Vec<Dataset>);

impl plackett::infer::mm::Shards for Parts {
    fn sweep(
        &mut self,
        lam: &[f64],
        log_lam: &[f64],
    ) -> plackett::Result<Vec<plackett::model::pl::Sweep>> {
        use plackett::model::pl::{self, Scope};
        Ok(self
            .0
            .iter()
            .map(|d| pl::sweep(d, lam, log_lam, &pl::wins(d, Scope::All), Scope::All))
            .collect())
    }
    fn information_lower(&mut self, theta: &[f64]) -> plackett::Result<nalgebra::DMatrix<f64>> {
        use plackett::model::{information::information_lower, pl::Scope};
        let mut total = information_lower(&self.0[0], theta, Scope::All)?;
        for d in &self.0[1..] {
            total += information_lower(d, theta, Scope::All)?;
        }
        Ok(total)
    }
}

/// VB over shards reaches the single-machine fixed point: the same
/// means, ELBO and linear-response sds (to the order of the sums), on
/// sub-rankings split three ways.
#[test]
fn vb_over_shards_equals_vb_on_their_union() {
    use plackett::model::pl::{Scope, wins};
    let n = 8;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(21);
    let lam: Vec<f64> = (0..n).map(|i| (0.3 * i as f64).exp()).collect();
    let parts: Vec<Dataset> = (0..3)
        .map(|_| simulate(&mut rng, &lam, 40, Design::SubRankings { len: 4 }))
        .collect();
    let union = Dataset::collapse_all(&parts.iter().collect::<Vec<_>>()).unwrap();
    for cov in [VbCovariance::LinearResponse, VbCovariance::MeanField] {
        let o = VbOptions {
            covariance: cov,
            ..vb_opts(n, 2.0, 1.0)
        };
        let one = vb(&union, &o).unwrap();
        let mut total = vec![0.0; n];
        for p in &parts {
            total
                .iter_mut()
                .zip(wins(p, Scope::All))
                .for_each(|(a, b)| *a += b);
        }
        let many = plackett::infer::vb::vb_sharded(&mut Parts(parts.clone()), total, &o).unwrap();
        assert!((one.elbo.unwrap() - many.elbo.unwrap()).abs() < 1e-9);
        assert_eq!(one.covariance.is_some(), many.covariance.is_some());
        let names = union.items().names();
        let (a, b) = (
            one.summary(names, Gauge::MeanCentred),
            many.summary(names, Gauge::MeanCentred),
        );
        for (x, y) in a.items.iter().zip(&b.items) {
            assert!((x.log_worth - y.log_worth).abs() < 1e-10, "{cov:?}");
            assert!((x.log_worth_sd.unwrap() - y.log_worth_sd.unwrap()).abs() < 1e-10);
        }
    }
}
