//! vMMIC and its Gibbs gold standard (Hu 2024, ch. 2): simulation-based
//! calibration of the sampler, VB against the sampler, data checks.

use crate::common;

use plackett::infer::mcmc::McmcSettings;
use plackett::infer::rng::stream;
use plackett::mil::vb::VbOptions;
use plackett::mil::*;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

/// Simulation-based calibration (Talts et al. 2018) of the Gibbs sampler:
/// θ from the prior, bags from the model, the rank of the true value among
/// the posterior draws is uniform if the sampler is right.
#[test]
fn gibbs_sampler_passes_simulation_based_calibration() {
    calibration(Tempering::default());
}

/// The same check with parallel tempering, the ladder re-spaced during the
/// burn-in (4 rungs down to τ = 0.05): the swaps between rungs must leave
/// the coldest rung's target unchanged, and adaptation must stop before the
/// kept sweeps, or the kept draws would not come from one fixed tempered
/// sampler. (The kept sweeps run a fixed ladder, so this also checks what a
/// separate fixed-ladder SBC run checked, at the same 200 replications.)
#[test]
fn adaptive_tempered_gibbs_sampler_passes_simulation_based_calibration() {
    calibration(Tempering {
        rungs: 4,
        hottest: 0.05,
        adapt: true,
        auto: false,
    });
}

/// And with the number of rungs chosen during the burn-in (a pilot of 3
/// rungs down to τ = 10⁻⁴, moved to ⌈2Λ̂⌉ rungs at every adaptation): the
/// resized ladder's new rungs start from copies of the old rungs' states,
/// which is harmless only because every change happens before the kept
/// sweeps.
#[test]
fn auto_tempered_gibbs_sampler_passes_simulation_based_calibration() {
    calibration(Tempering {
        rungs: 3,
        hottest: 1e-4,
        adapt: true,
        auto: true,
    });
}

/// The automatic rung count moves a too-short pilot ladder to ⌈2Λ̂⌉ rungs
/// and a too-long one down, keeps the ends, and does not depend on the
/// thread count.
#[test]
fn auto_tempering_sizes_the_ladder_by_its_barrier() {
    let bags = simulated(60, 5, 2, 9);
    for pilot in [3, 20] {
        let opts = MilGibbsOptions {
            mcmc: McmcSettings {
                samples: 50,
                burn_in: 256,
                thin: 1,
                chains: 2,
                seed: 4,
            },
            tempering: Tempering {
                rungs: pilot,
                hottest: 1e-3,
                adapt: true,
                auto: true,
            },
            ..Default::default()
        };
        let run = |threads: usize| common::on_threads(threads, || fit_gibbs(&bags, &opts).unwrap());
        let (one, two) = (run(1), run(2));
        assert_eq!(one.draws, two.draws);
        assert_eq!(one.temperatures, two.temperatures);
        let k = one.temperatures.len();
        let barrier = one.barrier.unwrap();
        eprintln!(
            "pilot {pilot}: {k} rungs, barrier {barrier:.2}, ladder {:?}",
            one.temperatures
        );
        assert_eq!(one.temperatures[0], 1.0);
        assert!((one.temperatures[k - 1] - 1e-3).abs() < 1e-15);
        assert!(one.temperatures.windows(2).all(|w| w[1] < w[0]));
        // The final ladder has about 2Λ rungs for the barrier measured on
        // it (Λ is re-estimated on the final ladder, so allow a rung or two).
        assert!(
            (k as f64 - 2.0 * barrier).abs() <= 2.5,
            "{k} rungs for a barrier of {barrier:.2}"
        );
        assert_ne!(k, pilot, "the pilot ladder was the wrong size on purpose");
    }
}

/// An adaptive ladder pools the chains' swap statistics between rounds;
/// the draws must not depend on the number of threads, and the ladder
/// keeps its ends.
#[test]
fn adaptive_tempering_does_not_depend_on_the_thread_count() {
    let bags = simulated(60, 5, 2, 9);
    let opts = MilGibbsOptions {
        mcmc: McmcSettings {
            samples: 50,
            burn_in: 64,
            thin: 1,
            chains: 3,
            seed: 4,
        },
        tempering: Tempering {
            rungs: 4,
            hottest: 0.02,
            adapt: true,
            auto: false,
        },
        ..Default::default()
    };
    let run = |threads: usize| common::on_threads(threads, || fit_gibbs(&bags, &opts).unwrap());
    let (one, two) = (run(1), run(2));
    assert_eq!(one.draws, two.draws);
    assert_eq!(one.temperatures, two.temperatures);
    assert_eq!(one.temperatures.len(), 4);
    assert_eq!(one.temperatures[0], 1.0);
    assert!((one.temperatures[3] - 0.02).abs() < 1e-15);
    assert!(one.temperatures.windows(2).all(|w| w[1] < w[0]));
    // The geometric ladder's middle rungs moved.
    let geometric = 0.02f64.powf(1.0 / 3.0);
    assert!(
        (one.temperatures[1] - geometric).abs() > 1e-6,
        "{:?}",
        one.temperatures
    );
    assert!(one.barrier.is_some_and(|b| b.is_finite() && b > 0.0));
}

fn calibration(tempering: Tempering) {
    let design = MilDesign {
        bags: 30,
        instances: 3,
        ratio: 1.0,
        features: 1,
        ..MilDesign::default()
    };
    let pri = MilPriors {
        intercept_var: 1.0,
        slope_var: 1.0,
    };
    let lay = Layout { d0: 1, d1: 1 };
    let reps = 200;
    let draws = 99;
    let ranks: Vec<Vec<usize>> = (0..reps)
        .into_par_iter()
        .map(|r| {
            let mut rng = stream(2024, &[r as u64]);
            let theta: Vec<f64> = (0..lay.len())
                .map(|k| {
                    let z: f64 = StandardNormal.sample(&mut rng);
                    z * pri.var(&lay, k).sqrt()
                })
                .collect();
            let bags = simulate_with(&design, &theta, 1000 + r as u64).unwrap();
            let fit = fit_gibbs(
                &bags,
                &MilGibbsOptions {
                    priors: pri,
                    mcmc: McmcSettings {
                        samples: draws,
                        burn_in: 300,
                        thin: 10,
                        chains: 1,
                        seed: r as u64,
                    },
                    observer: None,
                    tempering,
                    ..Default::default()
                },
            )
            .unwrap();
            if tempering.rungs > 1 {
                assert!(fit.swap_acceptance.iter().all(|a| (0.0..=1.0).contains(a)));
            }
            (0..lay.len())
                .map(|k| fit.coordinate(k).iter().filter(|&&v| v < theta[k]).count())
                .collect()
        })
        .collect();
    // 10 bins of the 100 possible ranks 0..=99.
    let names = ["alpha", "beta", "gamma", "a", "b", "c", "d"];
    for k in 0..lay.len() {
        let bins = plackett::stats::rank_histogram(ranks.iter().map(|r| r[k]), draws, 10);
        let chi2 = plackett::stats::uniform_chi2(&bins);
        eprintln!(
            "SBC ({} rungs{}) {}: bins {bins:?} chi2 {chi2:.1}",
            tempering.rungs,
            if tempering.auto { ", auto" } else { "" },
            names[k]
        );
        // χ²₉ 99.9% quantile.
        assert!(chi2 < 27.88, "{}: χ² {chi2:.1}, bins {bins:?}", names[k]);
    }
}

/// VB against the exact posterior (the Gibbs sampler, 4 chains × 10,000
/// sweeps, mixed: R̂ < 1.05) on a small design (200 training bags of 6
/// instances, 2 features per modality): the numbers behind docs/mil.md's
/// table. Mean-field under-dispersion is expected and asserted; the
/// instance probabilities and the held-out ranking of 2,000 bags must
/// agree (the AUROC within 0.02).
/// The marginal mode (the primary indicators integrated out; the default
/// start of vMMIC and of the sampler) on Hu 2024 §2.3's basic setting: its
/// instance slopes point nearly along the true ones, and vMMIC started there
/// classifies held-out bags better than from the prior means, where
/// coordinate ascent keeps a worse primary-instance configuration. The
/// 20-replicate comparison with the Gibbs sampler is `plackett mil study
/// --factors basic --methods vmmic,gibbs` (docs/mil.md).
#[test]
fn the_marginal_mode_starts_vmmic_near_the_true_instance_direction() {
    use plackett::eval::metrics::auc;
    let design = MilDesign::default();
    let truth = design.truth();
    let priors = MilPriors::default();
    let reps = 3;
    let (mut from_mode, mut from_prior) = (0.0, 0.0);
    for r in 0..reps {
        let train = simulate_bags(&design, 500 + r).unwrap();
        let test = simulate_bags(
            &MilDesign {
                bags: 300,
                ..design
            },
            600 + r,
        )
        .unwrap();
        let lay = Layout::of(&train);
        let y = train.labels("train").unwrap();
        let mode = marginal::marginal_mode(&train, &y, priors).unwrap();
        let (b, tb) = (&mode[lay.b()], &truth[lay.b()]);
        let dot = |u: &[f64], v: &[f64]| u.iter().zip(v).map(|(x, y)| x * y).sum::<f64>();
        let cos = dot(b, tb) / (dot(b, b) * dot(tb, tb)).sqrt();
        assert!(cos > 0.95, "replicate {r}: cos(b, true b) = {cos}");
        let yt = test.labels("test").unwrap();
        let held_out = |start: VbStart| {
            let opts = VbOptions {
                start,
                ..VbOptions::default()
            };
            let fit = fit_vb(&train, &opts).unwrap();
            assert_eq!(
                fit.started_from,
                if start == VbStart::Prior {
                    "prior"
                } else {
                    "marginal"
                }
            );
            let model = MilModel::from_vb(&fit, &train, priors);
            let p: Vec<f64> = model
                .predict(&test, 200, 7)
                .unwrap()
                .iter()
                .map(|b| b.p)
                .collect();
            auc(&p, &yt)
        };
        let (m, p) = (held_out(VbStart::Marginal), held_out(VbStart::Prior));
        eprintln!(
            "replicate {r}: cos {cos:.3}, held-out bag AUROC from the mode {m:.4}, from the prior means {p:.4}"
        );
        from_mode += m / reps as f64;
        from_prior += p / reps as f64;
    }
    assert!(
        from_mode > from_prior + 0.01,
        "mean held-out bag AUROC {from_mode} from the mode, {from_prior} from the prior means"
    );
}

#[test]
fn vb_against_the_gibbs_gold_standard() {
    let design = MilDesign {
        bags: 2200,
        instances: 6,
        ratio: 2.0,
        features: 2,
        ..MilDesign::default()
    };
    let all = simulate_bags(&design, 77).unwrap();
    let train = all.subset(&(0..200).collect::<Vec<_>>());
    let test = all.subset(&(200..2200).collect::<Vec<_>>());
    let vb = fit_vb(
        &train,
        &VbOptions {
            tol: 1e-9,
            max_iter: 20_000,
            ..VbOptions::default()
        },
    )
    .unwrap();
    assert!(vb.converged);
    let g = fit_gibbs(
        &train,
        &MilGibbsOptions {
            mcmc: McmcSettings {
                samples: 4000,
                burn_in: 2000,
                thin: 2,
                chains: 4,
                seed: 3,
            },
            ..Default::default()
        },
    )
    .unwrap();
    let rhat = g.diagnostics.iter().map(|d| d.rhat).fold(0.0, f64::max);
    let (gm, gs) = (g.mean(), g.sd());
    let vs = vb.sd();
    let lay = Layout::of(&train);
    let names = &train.feature_names;
    let mut ratio = Vec::new();
    for k in 0..lay.len() {
        eprintln!(
            "{:>10}: gibbs {:7.3} ± {:.3}   vb {:7.3} ± {:.3}   (mean diff / gibbs sd {:+.2})",
            lay.name(k, names),
            gm[k],
            gs[k],
            vb.mean[k],
            vs[k],
            (vb.mean[k] - gm[k]) / gs[k]
        );
        ratio.push(vs[k] / gs[k]);
    }
    let inst_mad = vb
        .primary
        .iter()
        .zip(&g.primary)
        .map(|(a, b)| (a - b).abs())
        .sum::<f64>()
        / vb.primary.len() as f64;
    let inst_r = plackett::stats::pearson(&vb.primary, &g.primary);
    let y: Vec<bool> = test.bags.iter().map(|b| b.label.unwrap()).collect();
    let vb_model = MilModel::from_vb(&vb, &train, MilPriors::default());
    let g_model = MilModel::from_gibbs(&g, &train, MilPriors::default());
    let pv: Vec<f64> = vb_model
        .predict(&test, 2000, 1)
        .unwrap()
        .iter()
        .map(|b| b.p)
        .collect();
    let pg: Vec<f64> = g_model
        .predict(&test, 2000, 1)
        .unwrap()
        .iter()
        .map(|b| b.p)
        .collect();
    let (av, ag) = (
        plackett::eval::metrics::auc(&pv, &y),
        plackett::eval::metrics::auc(&pg, &y),
    );
    let bag_mad = pv.iter().zip(&pg).map(|(a, b)| (a - b).abs()).sum::<f64>() / pv.len() as f64;
    eprintln!(
        "max R̂ {rhat:.3}; sd ratio vb/gibbs median {:.2}; instance P(δ=1|y): mean |vb − gibbs| {inst_mad:.3}, r {inst_r:.3}; held-out bag p: mean |vb − gibbs| {bag_mad:.3}, AUROC vb {av:.3} gibbs {ag:.3}",
        {
            let mut r = ratio.clone();
            r.sort_by(f64::total_cmp);
            r[r.len() / 2]
        }
    );
    assert!(rhat < 1.05, "gold standard not mixed: R̂ {rhat}");
    // Mean-field under-dispersion.
    assert!(ratio.iter().filter(|&&r| r < 1.0).count() * 4 >= ratio.len() * 3);
    assert!(inst_r > 0.9, "{inst_r}");
    assert!((av - ag).abs() < 0.02, "{av} {ag}");
}

/// The sampler's chains start at the marginal mode by default, from
/// dispersed draws on request, or at a given θ; a start of the wrong length
/// or with a NaN is refused.
#[test]
fn gibbs_chains_start_where_asked() {
    let design = MilDesign {
        bags: 40,
        instances: 4,
        ratio: 2.0,
        features: 2,
        ..MilDesign::default()
    };
    let bags = simulate_bags(&design, 9).unwrap();
    let short = MilGibbsOptions {
        mcmc: McmcSettings {
            samples: 10,
            burn_in: 10,
            thin: 1,
            chains: 2,
            seed: 1,
        },
        ..Default::default()
    };
    assert_eq!(fit_gibbs(&bags, &short).unwrap().started_from, "marginal");
    let dispersed = MilGibbsOptions {
        start: GibbsStart::Dispersed,
        ..short.clone()
    };
    assert_eq!(
        fit_gibbs(&bags, &dispersed).unwrap().started_from,
        "dispersed"
    );
    let n = Layout::of(&bags).len();
    let at = MilGibbsOptions {
        init: Some(vec![0.1; n]),
        ..short.clone()
    };
    assert_eq!(fit_gibbs(&bags, &at).unwrap().started_from, "init");
    for bad in [vec![0.1; n - 1], vec![f64::NAN; n]] {
        let opts = MilGibbsOptions {
            init: Some(bad),
            ..short.clone()
        };
        let err = fit_gibbs(&bags, &opts).unwrap_err().to_string();
        assert!(err.contains("init"), "{err}");
    }
}

/// vMMIC against the sampler started at vMMIC's own optimum on one data set
/// of Hu 2024 §2.3's basic setting (docs/mil.md, "VB against the exact
/// posterior on the basic setting"): the mean-field coefficients point the
/// same way as the exact posterior's but have other sizes — bag-level
/// slopes much shorter, instance slopes longer — while instance
/// probabilities and held-out bag rankings agree. The full comparison is
/// `cargo run --release --example mil_vb_vs_gibbs`.
#[test]
fn vb_and_the_sampler_agree_in_direction_not_in_scale() {
    use plackett::eval::metrics::auc;
    let design = MilDesign::default();
    let train = simulate_bags(&design, 1000).unwrap();
    let test = simulate_bags(
        &MilDesign {
            bags: 300,
            ..design
        },
        2000,
    )
    .unwrap();
    let priors = MilPriors::default();
    let vb = fit_vb(&train, &VbOptions::default()).unwrap();
    let g = fit_gibbs(
        &train,
        &MilGibbsOptions {
            mcmc: McmcSettings::new(500, 1000, 2, 1),
            init: Some(vb.mean.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    let gm = g.mean();
    let lay = Layout::of(&train);
    let dot = |u: &[f64], v: &[f64]| u.iter().zip(v).map(|(x, y)| x * y).sum::<f64>();
    let len = |u: &[f64]| dot(u, u).sqrt();
    for (name, r, min_cos) in [
        ("beta", lay.beta(), 0.95),
        ("b", lay.b(), 0.95),
        ("d", lay.d(), 0.9),
    ] {
        let (u, v) = (&vb.mean[r.clone()], &gm[r]);
        let cos = dot(u, v) / (len(u) * len(v));
        eprintln!(
            "{name}: length vb {:.2}, gibbs {:.2}, cosine {cos:.3}",
            len(u),
            len(v)
        );
        assert!(cos > min_cos, "{name}: cosine {cos}");
    }
    let (bv, bg) = (len(&vb.mean[lay.beta()]), len(&gm[lay.beta()]));
    assert!(bv < 0.5 * bg, "bag-level slopes: vb {bv}, gibbs {bg}");
    let (iv, ig) = (len(&vb.mean[lay.b()]), len(&gm[lay.b()]));
    assert!(iv > ig, "instance slopes: vb {iv}, gibbs {ig}");
    let r = plackett::stats::pearson(&vb.primary, &g.primary);
    assert!(r > 0.9, "instance probabilities: correlation {r}");
    let y = test.labels("test").unwrap();
    let held_out = |m: MilModel| -> f64 {
        let p: Vec<f64> = m
            .predict(&test, 200, 7)
            .unwrap()
            .iter()
            .map(|b| b.p)
            .collect();
        auc(&p, &y)
    };
    let (av, ag) = (
        held_out(MilModel::from_vb(&vb, &train, priors)),
        held_out(MilModel::from_gibbs(&g, &train, priors)),
    );
    eprintln!("held-out bag AUROC: vb {av:.3}, gibbs {ag:.3}; instance correlation {r:.3}");
    // One data set of 300 held-out bags: its AUROC varies by about 0.02
    // between data sets, so agreement is asked to 0.03 here; the 0.01 of
    // Hu 2024's comparison is the mean over 20 data sets (`mil study
    // --methods vmmic,gibbs`, docs/mil.md).
    assert!(
        (av - ag).abs() < 0.03,
        "held-out bag AUROC: vb {av}, gibbs {ag}"
    );
}

/// A bag is a set of instances: listing a bag's rows in another order in
/// the file changes neither engine's fit (vMMIC's per-bag step visits the
/// instances one after another, so without the canonical order its
/// coordinate ascent could stop at another nearby optimum), and outputs
/// still name each instance by its source row.
#[test]
fn fits_do_not_depend_on_the_order_of_a_bags_rows() {
    let design = MilDesign {
        bags: 80,
        instances: 6,
        ratio: 1.0,
        features: 3,
        ..MilDesign::default()
    };
    let bags = simulate_bags(&design, 4).unwrap();
    let text = bags.to_csv();
    let mut lines: Vec<&str> = text.lines().collect();
    let header = lines.remove(0);
    // Reverse every bag's block of rows (bags stay where they were).
    let mut shuffled = vec![header.to_string()];
    let mut src_row = Vec::new(); // shuffled data row -> original data row
    let mut i = 0;
    while i < lines.len() {
        let bag = lines[i].split(',').next().unwrap();
        let mut k = i;
        while k < lines.len() && lines[k].split(',').next().unwrap() == bag {
            k += 1;
        }
        for r in (i..k).rev() {
            shuffled.push(lines[r].to_string());
            src_row.push(r);
        }
        i = k;
    }
    let shuffled = shuffled.join("\n") + "\n";
    assert_ne!(shuffled, text, "the permutation is not trivial");
    let original = plackett::mil::bags::read_bags_csv("orig.csv", &text).unwrap();
    let permuted = plackett::mil::bags::read_bags_csv("perm.csv", &shuffled).unwrap();
    let short = MilGibbsOptions {
        mcmc: McmcSettings::new(50, 50, 2, 7),
        ..Default::default()
    };
    let vb = || MilEngine::Vb(VbOptions::default());
    for (engine, prep) in [
        (vb(), Preprocess::None),
        (vb(), Preprocess::Components(2)),
        (MilEngine::Gibbs(short), Preprocess::None),
    ] {
        let (m0, i0) = fit_model_with(&original, &engine, prep).unwrap();
        let (m1, i1) = fit_model_with(&permuted, &engine, prep).unwrap();
        assert_eq!(m0.mean(), m1.mean(), "{}", i0.engine);
        assert_eq!(i0.elbo, i1.elbo);
        let p0 = m0.predict(&original, 100, 3).unwrap();
        let p1 = m1.predict(&permuted, 100, 3).unwrap();
        for (a, b) in p0.iter().zip(&p1) {
            assert_eq!(a.p, b.p);
            // Listed by source row; the same instance has the same p_primary.
            let rows: Vec<usize> = b.instances.iter().map(|x| x.row).collect();
            assert!(rows.windows(2).all(|w| w[0] < w[1]), "{rows:?}");
            for x in &b.instances {
                let orig = a
                    .instances
                    .iter()
                    .find(|y| y.row == src_row[x.row])
                    .unwrap();
                assert_eq!(orig.p_primary, x.p_primary);
            }
        }
    }
}

/// The study scores each method's instance probabilities against the
/// simulated δ of the same instances: vMMIC finds primary instances (Hu
/// 2024 Fig. 2.4: "typically above 0.8"), whatever order its predictions
/// list them in, where the single-instance baseline cannot (about 0.5).
#[test]
fn the_study_scores_primary_instances_against_their_own_truth() {
    let opts = StudyOptions {
        factors: vec![Factor::Bags],
        max_bags: 250,
        replicates: 1,
        test_bags: 100,
        ..StudyOptions::default()
    };
    let methods = [
        MilMethod::Model(MilEngine::Vb(VbOptions::default())),
        MilMethod::Baseline(Baseline::SiMean, MilPriors::default()),
    ];
    let cells = run_study(&opts, &methods, None).unwrap();
    assert_eq!(cells.len(), 2);
    let (vb, si) = (&cells[0], &cells[1]);
    assert!(vb.mean_primary_auroc > 0.8, "{}", vb.mean_primary_auroc);
    assert!(vb.mean_bag_auroc > 0.75, "{}", vb.mean_bag_auroc);
    assert!(
        (si.mean_primary_auroc - 0.5).abs() < 0.1,
        "{}",
        si.mean_primary_auroc
    );
}

/// A Gibbs model predicts from all its stored draws, whatever `draws` asks
/// for: the draws run chain after chain, and a prediction from the first
/// `draws` of them would read only the first chains. Here the first
/// quarter (one "chain") has α = −8 and the rest α = +8, every slope and
/// intercept 0, so a bag's p is the share of +8 draws used: 3/4.
#[test]
fn gibbs_predictions_use_every_chain() {
    let bags = simulated(12, 3, 2, 5);
    let fit = plackett::mil::vb::fit_vb(&bags, &VbOptions::default()).unwrap();
    let mut model = MilModel::from_vb(&fit, &bags, MilPriors::default());
    let len = model.layout.len();
    let alpha = model.layout.alpha();
    let stored = plackett::mil::model::MAX_STORED_DRAWS;
    model.engine = "gibbs".into();
    model.covariances = None;
    model.draws = Some(
        (0..stored)
            .map(|s| {
                let mut t = vec![0.0; len];
                t[alpha] = if s < stored / 4 { -8.0 } else { 8.0 };
                t
            })
            .collect(),
    );
    for draws in [100, 500, 1000, 3000] {
        let pred = model.predict(&bags, draws, 1).unwrap();
        for b in &pred {
            assert!((b.p - 0.75).abs() < 1e-9, "draws {draws}: p {}", b.p);
        }
    }
}

/// Hu 2024 §2.3's design with `bags` bags of `instances` instances and
/// `features` features per modality, the other settings at their defaults.
fn simulated(bags: usize, instances: usize, features: usize, seed: u64) -> Bags {
    let design = MilDesign {
        bags,
        instances,
        features,
        ..MilDesign::default()
    };
    simulate_bags(&design, seed).unwrap()
}

/// The shipped Musk files hold what the UCI repository describes (Musk 1:
/// 92 molecules, 47 musks, 476 conformations; Musk 2: 102 molecules, 39
/// musks, 6,598 conformations; 166 features each), as long bag CSVs.
#[test]
fn the_shipped_musk_files_match_the_uci_descriptions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/uci");
    for (file, bags, musks, instances) in [("musk1.csv", 92, 47, 476), ("musk2.csv", 102, 39, 6598)]
    {
        let b = read_bags(dir.join(file).to_str().unwrap()).unwrap();
        assert_eq!(b.n_bags(), bags, "{file}");
        assert_eq!(b.n_instances(), instances, "{file}");
        assert_eq!(b.counts(), [instances, 0], "{file}");
        assert_eq!((b.width(0), b.width(1)), (166, 0), "{file}");
        let y = b.labels(file).unwrap();
        assert_eq!(y.iter().filter(|&&v| v).count(), musks, "{file}");
    }
}

/// Cross-validation fits its folds and methods in parallel; the scores
/// must not depend on the number of threads.
#[test]
fn cross_validation_does_not_depend_on_the_thread_count() {
    let bags = simulated(80, 6, 3, 3);
    let methods = [
        MilMethod::Model(MilEngine::Vb(VbOptions::default())),
        MilMethod::Baseline(Baseline::Milr, MilPriors::default()),
        MilMethod::Baseline(Baseline::SiMean, MilPriors::default()),
    ];
    let run = |threads: usize| {
        common::on_threads(threads, || {
            cross_validate_methods(&bags, &methods, Preprocess::None, 4, 2, 50, 7, None)
                .unwrap()
                .into_iter()
                .map(|c| (c.auroc, c.accuracy, c.calibration))
                .collect::<Vec<_>>()
        })
    };
    let one = run(1);
    assert_eq!(one, run(3));
    assert_eq!(one.len(), 3);
    // The calibration pools both repeats: 80 bags twice, its accuracy the
    // repeats' mean.
    for (_, acc, cal) in &one {
        let cal = cal.expect("rows");
        assert_eq!(cal.rows, 160);
        assert!((cal.accuracy - (acc[0] + acc[1]) / 2.0).abs() < 1e-12);
        assert!(cal.log_loss.is_finite() && cal.brier <= 2.0 && cal.ece <= 1.0);
    }
}

/// A cancelled cross-validation returns `Cancelled` at its next fit
/// boundary, not after every remaining fit.
#[test]
fn cross_validation_stops_when_cancelled() {
    use plackett::observer::{CancelFlag, SharedObserver};
    let bags = simulated(60, 5, 2, 5);
    let flag = CancelFlag::default();
    flag.cancel();
    let obs: SharedObserver = std::sync::Arc::new(flag);
    let methods = [MilMethod::Model(MilEngine::Vb(VbOptions::default()))];
    let out = cross_validate_methods(&bags, &methods, Preprocess::None, 5, 3, 20, 1, Some(&obs));
    assert!(matches!(out, Err(plackett::Error::Cancelled)), "{out:?}");
}

/// `VbOptions::mixture`: every start's optimum is a component with equal
/// weight; the first is the plain fit from the same first start; the
/// summaries are the mixture's moments and quantiles; each instance's
/// `p_primary` is the components' average; the model file reads back to
/// the same predictions; and nothing depends on the thread count.
#[test]
fn a_vb_mixture_keeps_every_optimum_with_equal_weight() {
    use plackett::numerics::probit::norm_cdf;
    let bags = simulated(60, 5, 3, 21);
    let priors = MilPriors::default();
    let opts = VbOptions {
        starts: 3,
        mixture: true,
        ..VbOptions::default()
    };
    let fits = fit_vb_mixture(&bags, &opts).unwrap();
    assert_eq!(fits.len(), 3);
    let plain = fit_vb(&bags, &VbOptions::default()).unwrap();
    assert_eq!(
        fits[0].mean, plain.mean,
        "the first component is the plain fit"
    );
    assert!(
        fits[1].mean != fits[0].mean && fits[2].mean != fits[1].mean,
        "the other starts are drawn apart"
    );
    let (model, info) = fit_model(&bags, &MilEngine::Vb(opts.clone())).unwrap();
    let parts = model.mixture.as_ref().expect("a mixture model");
    assert!(model.covariances.is_none() && model.draws.is_none());
    assert_eq!(parts.len(), 3);
    for (p, f) in parts.iter().zip(&fits) {
        assert_eq!(p.weight, 1.0 / 3.0);
        assert_eq!(p.mean, f.mean);
        assert_eq!(p.elbo, *f.elbo.last().unwrap());
    }
    assert_eq!(
        info.mixture_elbos.as_deref(),
        Some(&parts.iter().map(|p| p.elbo).collect::<Vec<_>>()[..])
    );
    // The default covariance is linear-response: the model mixes the
    // corrected components (same means, instance-level sds corrected).
    assert_eq!(opts.covariance, VbCovariance::LinearResponse);
    let corrected: Vec<_> = fits
        .iter()
        .map(|f| linear_response::apply(f, &bags, priors).0)
        .collect();
    let sds: Vec<Vec<f64>> = corrected.iter().map(|f| f.sd()).collect();
    assert!(sds[0] != fits[0].sd(), "the correction changes the sds");
    for (k, s) in model.parameters.iter().enumerate() {
        let mean = fits.iter().map(|f| f.mean[k]).sum::<f64>() / 3.0;
        let second = fits
            .iter()
            .zip(&sds)
            .map(|(f, sd)| sd[k] * sd[k] + f.mean[k] * f.mean[k])
            .sum::<f64>()
            / 3.0;
        assert!((s.mean - mean).abs() < 1e-12, "{}", s.name);
        assert!(
            (s.sd * s.sd - (second - mean * mean)).abs() < 1e-9,
            "{}",
            s.name
        );
        let cdf = |x: f64| {
            fits.iter()
                .zip(&sds)
                .map(|(f, sd)| norm_cdf((x - f.mean[k]) / sd[k]))
                .sum::<f64>()
                / 3.0
        };
        assert!(
            (cdf(s.lower) - 0.05).abs() < 1e-9,
            "{}: 5% quantile",
            s.name
        );
        assert!(
            (cdf(s.upper) - 0.95).abs() < 1e-9,
            "{}: 95% quantile",
            s.name
        );
    }
    // Training instances: the average of the components' E_q[δ].
    for j in 0..bags.n_instances() {
        let avg = fits.iter().map(|f| f.primary[j]).sum::<f64>() / 3.0;
        assert!((info.primary[j] - avg).abs() < 1e-12);
    }
    // New bags: p_primary is the average of the components' closed forms.
    let test = simulated(20, 5, 3, 22);
    let pred = model.predict(&test, 90, 3).unwrap();
    let singles: Vec<Vec<f64>> = corrected
        .iter()
        .map(|f| {
            let m = MilModel::from_vb(f, &bags, priors);
            primary_by_instance(&test, &m.predict(&test, 1, 3).unwrap())
        })
        .collect();
    let mixed = primary_by_instance(&test, &pred);
    for j in 0..test.n_instances() {
        let avg = singles.iter().map(|s| s[j]).sum::<f64>() / 3.0;
        assert!((mixed[j] - avg).abs() < 1e-12);
    }
    // The model file reads back to the same predictions.
    let json = serde_json::to_string(&model).unwrap();
    let back = MilModel::from_json("m.json", &json).unwrap();
    assert_eq!(back.predict(&test, 90, 3).unwrap(), pred);
    // Weights that do not sum to one are refused, naming the file.
    let mut bad = model.clone();
    bad.mixture.as_mut().unwrap()[0].weight = 0.5;
    let e = MilModel::from_json("m.json", &serde_json::to_string(&bad).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("m.json") && e.contains("weights"), "{e}");
    // One thread or two: the same components.
    let one = common::on_threads(1, || fit_vb_mixture(&bags, &opts).unwrap());
    for (a, b) in one.iter().zip(&fits) {
        assert_eq!(a.mean, b.mean);
        assert_eq!(a.elbo, b.elbo);
    }
    // A mixture of one is a user's mistake.
    let e = fit_vb_mixture(
        &bags,
        &VbOptions {
            starts: 1,
            mixture: true,
            ..VbOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("mixture") && e.contains("at least 2"), "{e}");
}

/// The Monte Carlo predictions run in parallel over bags and instances,
/// each bag with its own random stream: the same bits on one thread or
/// three, for a vMMIC model and a Gibbs model.
#[test]
fn predictions_do_not_depend_on_the_number_of_threads() {
    let train = simulated(80, 6, 3, 31);
    let test = simulated(300, 6, 3, 32);
    let gibbs = MilGibbsOptions {
        mcmc: McmcSettings {
            chains: 2,
            samples: 100,
            burn_in: 50,
            thin: 1,
            seed: 3,
        },
        ..MilGibbsOptions::default()
    };
    for engine in [MilEngine::Vb(VbOptions::default()), MilEngine::Gibbs(gibbs)] {
        let (model, _) = fit_model(&train, &engine).unwrap();
        let on =
            |threads: usize| common::on_threads(threads, || model.predict(&test, 200, 5).unwrap());
        assert_eq!(on(1), on(3));
    }
}

/// A VB model file names its covariance (linear-response by default,
/// Giordano, Broderick & Jordan 2015; mean-field on request), which reads
/// back; a file without the field (written before it existed) still reads;
/// an unknown name, a covariance on a Gibbs model or modalities kept
/// mean-field under a mean-field covariance are refused, naming the file.
#[test]
fn model_files_name_their_covariance() {
    let bags = simulated(40, 5, 3, 31);
    let fit = |covariance| {
        let o = VbOptions {
            covariance,
            ..VbOptions::default()
        };
        fit_model(&bags, &MilEngine::Vb(o)).unwrap()
    };
    let (lr, info) = fit(VbCovariance::LinearResponse);
    assert_eq!(lr.covariance.as_deref(), Some("linear-response"));
    assert_eq!(lr.covariance, info.covariance);
    let (mf, _) = fit(VbCovariance::MeanField);
    assert_eq!(mf.covariance.as_deref(), Some("mean-field"));
    let text = serde_json::to_string(&lr).unwrap();
    let back = MilModel::from_json("m.json", &text).unwrap();
    assert_eq!(back.covariance.as_deref(), Some("linear-response"));
    let mut old: serde_json::Value = serde_json::from_str(&text).unwrap();
    old.as_object_mut().unwrap().remove("covariance");
    let old = MilModel::from_json("old.json", &old.to_string()).unwrap();
    assert_eq!(old.covariance, None);
    assert_eq!(
        old.predict(&bags, 20, 1).unwrap(),
        lr.predict(&bags, 20, 1).unwrap()
    );
    let refused = |m: &MilModel, what: &str| {
        let e = MilModel::from_json("m.json", &serde_json::to_string(m).unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("m.json") && e.contains(what), "{e}");
    };
    let mut bad = lr.clone();
    bad.covariance = Some("full".into());
    refused(&bad, "covariance \"full\"");
    let mut bad = mf.clone();
    bad.mean_field_kept = vec![0];
    refused(&bad, "mean_field_kept");
    let mut bad = lr.clone();
    bad.mean_field_kept = vec![2];
    refused(&bad, "mean_field_kept");
}

/// `predictors_into` (four instances side by side) gives `predictors`'
/// bits for every instance: runs of one modality, modality switches
/// inside a group of four, and ragged ends.
#[test]
fn predictors_into_is_predictors_bit_for_bit() {
    use plackett::mil::params::{Layout, predictors, predictors_into};
    let bags = simulated(30, 7, 5, 41);
    let lay = Layout::of(&bags);
    let mut rng = stream(5, &[]);
    let theta: Vec<f64> = (0..lay.len())
        .map(|_| {
            let z: f64 = StandardNormal.sample(&mut rng);
            3.0 * z
        })
        .collect();
    let (mut eta, mut nu) = (Vec::new(), Vec::new());
    for b in &bags.bags {
        for start in [b.start, b.start + 1] {
            eta.clear();
            nu.clear();
            predictors_into(&bags, &lay, &theta, start..b.end, &mut eta, &mut nu);
            assert_eq!(eta.len(), b.end - start);
            for (k, j) in (start..b.end).enumerate() {
                let (e, n) = predictors(&bags, &lay, &theta, j);
                assert_eq!(
                    (eta[k].to_bits(), nu[k].to_bits()),
                    (e.to_bits(), n.to_bits())
                );
            }
        }
    }
}
