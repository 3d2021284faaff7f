//! Ties: unknown order (exact likelihood, MLE with Louis standard errors)
//! and ties as events (Davidson–Luce).

use crate::common;
use common::{assert_table, data_dir, path};
use plackett::data::{Dataset, DatasetBuilder, Items, Tail, TieSemantics};
use plackett::infer::bayes::GammaPrior;
use plackett::infer::{Algorithm, PointOptions, Prior, fit_point};
use plackett::io::{Format, ReadOptions, read_path, read_str};
use plackett::model::pl::{Scope, log_likelihood};
use plackett::posterior::Gauge;

fn pudding(dir: &std::path::Path) -> Dataset {
    read_path(
        &path(dir, "pudding/pairs.csv"),
        &ReadOptions {
            format: Some(Format::Pairs),
            ties: TieSemantics::Event,
            ..Default::default()
        },
    )
    .unwrap()
}

#[test]
fn pudding_davidson_1970() {
    let dir = data_dir();
    let d = pudding(&dir);
    let f = fit_point(&d, &PointOptions::default()).unwrap();
    assert!(f.converged);
    assert_eq!(f.tie_parameters.len(), 1);
    assert_eq!(f.tie_parameters[0].order, 2);
    assert!(
        (f.tie_parameters[0].delta - 0.746823).abs() < 1e-5,
        "{}",
        f.tie_parameters[0].delta
    );
    let want = [
        0.1388034, 0.1730015, 0.1617474, 0.1653730, 0.1586854, 0.2023893,
    ];
    for (k, w) in want.iter().enumerate() {
        let i = d.items().get(&(k + 1).to_string()).unwrap() as usize;
        assert!(
            (f.summary.items[i].worth - w).abs() < 1e-5,
            "brand {}: {}",
            k + 1,
            f.summary.items[i].worth
        );
    }
}

/// Independent check of the Davidson (1970) standard errors: the pairwise
/// likelihood written directly from the paper's formula, differentiated
/// twice numerically.
#[test]
fn pudding_standard_errors_against_direct_formula() {
    let dir = data_dir();
    let text = std::fs::read_to_string(path(&dir, "pudding/pairs.csv")).unwrap();
    let rows: Vec<Vec<f64>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    // Parameters: θ_2..θ_6 relative to θ_1 = 0, and log δ.
    let ll = |p: &[f64]| -> f64 {
        let th = |i: usize| if i == 1 { 0.0 } else { p[i - 2] };
        let dl = p[5].exp();
        rows.iter()
            .map(|r| {
                let (i, j) = (r[0] as usize, r[1] as usize);
                let (a, b) = (th(i).exp(), th(j).exp());
                let den = a + b + dl * (a * b).sqrt();
                r[3] * (a / den).ln()
                    + r[4] * (b / den).ln()
                    + r[5] * (dl * (a * b).sqrt() / den).ln()
            })
            .sum()
    };
    let d = pudding(&dir);
    let reference = d.items().get("1").unwrap();
    let f = fit_point(&d, &PointOptions::with_gauge(Gauge::Reference(reference))).unwrap();
    let mut p: Vec<f64> = (2..=6)
        .map(|k| f.summary.items[d.items().get(&k.to_string()).unwrap() as usize].log_worth)
        .collect();
    p.push(f.tie_parameters[0].delta.ln());
    // Numerical Hessian of the direct formula.
    let h = 1e-4;
    let mut hess = nalgebra::DMatrix::<f64>::zeros(6, 6);
    for a in 0..6 {
        for b in 0..6 {
            let mut q = p.clone();
            let mut v = 0.0;
            for (sa, sb, sign) in [
                (1.0, 1.0, 1.0),
                (1.0, -1.0, -1.0),
                (-1.0, 1.0, -1.0),
                (-1.0, -1.0, 1.0),
            ] {
                q.copy_from_slice(&p);
                q[a] += sa * h;
                q[b] += sb * h;
                v += sign * ll(&q);
            }
            hess[(a, b)] = -v / (4.0 * h * h);
        }
    }
    let cov = hess.try_inverse().unwrap();
    for k in 2..=6 {
        let i = d.items().get(&k.to_string()).unwrap() as usize;
        let se = f.summary.items[i].log_worth_se.unwrap();
        let direct = cov[(k - 2, k - 2)].sqrt();
        assert!((se - direct).abs() < 1e-4, "brand {k}: {se} vs {direct}");
    }
    let se_delta = f.tie_parameters[0].se.unwrap();
    let direct = f.tie_parameters[0].delta * cov[(5, 5)].sqrt();
    assert!((se_delta - direct).abs() < 1e-4, "{se_delta} vs {direct}");
}

fn tied_data(universe: bool) -> Dataset {
    let mut b = DatasetBuilder::new(Items::numbered(6), TieSemantics::UnknownOrder);
    let t = if universe { Tail::Universe } else { Tail::None };
    b.push(&[vec![0], vec![1, 2], vec![3]], t, &[], 1.0)
        .unwrap();
    b.push(&[vec![3, 4], vec![0], vec![5]], Tail::None, &[], 2.0)
        .unwrap();
    b.push(&[vec![5], vec![2, 0, 4]], t, &[], 1.0).unwrap();
    b.push(&[vec![1], vec![5], vec![3]], Tail::None, &[], 1.0)
        .unwrap();
    b.push(&[vec![2], vec![1], vec![4, 3]], Tail::None, &[], 1.0)
        .unwrap();
    b.push(&[vec![4], vec![1]], Tail::None, &[], 1.0).unwrap();
    b.push(&[vec![0, 5], vec![2]], Tail::None, &[], 1.0)
        .unwrap();
    b.finish()
}

/// Louis-identity standard errors equal those from a finite-difference
/// Hessian of the exact (subset-recursion) log-likelihood.
#[test]
fn unknown_order_mle_standard_errors_match_numerical_hessian() {
    for universe in [false, true] {
        let d = tied_data(universe);
        let f = fit_point(
            &d,
            &PointOptions {
                gauge: Gauge::Reference(0),
                algorithm: Algorithm::Newton,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(f.converged);
        // Numerical Hessian in the reference gauge (θ_0 = 0).
        let th0: Vec<f64> = f.summary.items.iter().map(|i| i.log_worth).collect();
        let ll = |x: &[f64]| {
            let mut t = vec![0.0];
            t.extend_from_slice(x);
            log_likelihood(&d, &t, Scope::All)
        };
        let p: Vec<f64> = th0[1..].to_vec();
        let h = 1e-4;
        let k = p.len();
        let mut hess = nalgebra::DMatrix::<f64>::zeros(k, k);
        for a in 0..k {
            for b in 0..k {
                let mut v = 0.0;
                for (sa, sb, sign) in [
                    (1.0, 1.0, 1.0),
                    (1.0, -1.0, -1.0),
                    (-1.0, 1.0, -1.0),
                    (-1.0, -1.0, 1.0),
                ] {
                    let mut q = p.clone();
                    q[a] += sa * h;
                    q[b] += sb * h;
                    v += sign * ll(&q);
                }
                hess[(a, b)] = -v / (4.0 * h * h);
            }
        }
        let cov = hess.try_inverse().unwrap();
        for i in 1..6 {
            let se = f.summary.items[i].log_worth_se.unwrap();
            assert!(
                (se - cov[(i - 1, i - 1)].sqrt()).abs() < 1e-5,
                "universe={universe} item {i}: {se} vs {}",
                cov[(i - 1, i - 1)].sqrt()
            );
        }
        // MM (EM over the orders) reaches the same estimate.
        let g = fit_point(
            &d,
            &PointOptions {
                gauge: Gauge::Reference(0),
                algorithm: Algorithm::Mm,
                ..Default::default()
            },
        )
        .unwrap();
        for (a, b) in f.theta.iter().zip(&g.theta) {
            assert!((a - b - (f.theta[0] - g.theta[0])).abs() < 1e-7);
        }
    }
}

#[test]
fn preflib_ties_under_both_semantics() {
    // A TOC file: strict orders and tied pairs.
    let toc = "# FILE NAME: t.toc\n# DATA TYPE: toc\n# NUMBER ALTERNATIVES: 4\n\
               # ALTERNATIVE NAME 1: a\n# ALTERNATIVE NAME 2: b\n# ALTERNATIVE NAME 3: c\n# ALTERNATIVE NAME 4: d\n\
               5: 1,{2,3},4\n3: {1,2},3,4\n4: 2,1,4,3\n2: 3,{1,4},2\n3: 4,3,2,1\n2: {3,4},1,2\n";
    let read = |ties| {
        read_str(
            "t.toc",
            toc,
            &ReadOptions {
                format: Some(Format::Preflib),
                ties,
                ..Default::default()
            },
        )
        .unwrap()
    };
    let unknown = fit_point(&read(TieSemantics::UnknownOrder), &PointOptions::default()).unwrap();
    let event = fit_point(&read(TieSemantics::Event), &PointOptions::default()).unwrap();
    assert!(unknown.tie_parameters.is_empty());
    assert_eq!(event.tie_parameters.len(), 1);
    let diff: f64 = unknown
        .theta
        .iter()
        .zip(&event.theta)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(diff > 1e-3, "the two semantics must give different answers");
    assert!(event.notes.iter().any(|n| n.contains("Davidson–Luce")));
}

#[test]
fn unobserved_tie_orders_are_excluded() {
    // Ties of order 3 only: δ_2 is not a parameter, covariance still exists.
    let mut b = DatasetBuilder::new(Items::numbered(5), TieSemantics::Event);
    b.push(&[vec![0, 1, 2], vec![3], vec![4]], Tail::None, &[], 1.0)
        .unwrap();
    b.push(
        &[vec![4], vec![0], vec![1], vec![2], vec![3]],
        Tail::None,
        &[],
        1.0,
    )
    .unwrap();
    b.push(&[vec![3], vec![2, 4, 1], vec![0]], Tail::None, &[], 1.0)
        .unwrap();
    b.push(
        &[vec![1], vec![3], vec![0], vec![4], vec![2]],
        Tail::None,
        &[],
        1.0,
    )
    .unwrap();
    b.push(
        &[vec![2], vec![4], vec![3], vec![0], vec![1]],
        Tail::None,
        &[],
        1.0,
    )
    .unwrap();
    let f = fit_point(&b.finish(), &PointOptions::default()).unwrap();
    assert_eq!(
        f.tie_parameters.iter().map(|t| t.order).collect::<Vec<_>>(),
        vec![3]
    );
    assert!(f.tie_parameters[0].se.is_some());
    assert!(f.summary.items.iter().all(|i| i.log_worth_se.is_some()));
    let m = fit_point(
        &{
            let mut b = DatasetBuilder::new(Items::numbered(3), TieSemantics::Event);
            b.push(&[vec![0, 1]], Tail::None, &[], 1.0).unwrap();
            b.push(&[vec![1, 2]], Tail::None, &[], 1.0).unwrap();
            b.push(&[vec![0, 2]], Tail::None, &[], 1.0).unwrap();
            b.finish()
        },
        &PointOptions {
            prior: Prior::Normal { mean: 0.0, sd: 1.0 },
            ..Default::default()
        },
    );
    // Every choice among two or more items was a tie: δ_2 → ∞, said so.
    assert!(m.unwrap_err().to_string().contains("delta_2"));
}

/// `n` numbered items and one unit-weight observation per entry of
/// `rankings` (each a list of groups, best first).
fn ranked(n: usize, ties: TieSemantics, rankings: &[Vec<Vec<u32>>]) -> Dataset {
    let mut b = DatasetBuilder::new(Items::numbered(n), ties);
    for groups in rankings {
        b.push(groups, Tail::None, &[], 1.0).unwrap();
    }
    b.finish()
}

#[test]
fn oversized_unknown_group_refused_naming_the_observation() {
    let d = ranked(
        30,
        TieSemantics::UnknownOrder,
        &[vec![vec![0], vec![1]], vec![(0..22).collect(), vec![25]]],
    );
    let e = fit_point(&d, &PointOptions::with_prior(Prior::gamma(2.0, 1.0)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("observation 2") && e.contains("22 items"), "{e}");
}

#[test]
fn bayesian_engines_refuse_tie_events() {
    let d = ranked(
        3,
        TieSemantics::Event,
        &[vec![vec![0, 1], vec![2]], vec![vec![2], vec![0]]],
    );
    let prior = GammaPrior::iid(3, 2.0, 1.0).unwrap();
    let e = plackett::infer::vb::vb(
        &d,
        &plackett::infer::vb::VbOptions {
            iter: plackett::numerics::fixed_point::IterSettings::new(1e-9, 100),
            draws: 10,
            ..plackett::infer::vb::VbOptions::new(prior.clone())
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("mle") && e.contains("map"), "{e}");
    let e = plackett::infer::ep::ep(
        &d,
        &plackett::infer::ep::EpOptions {
            tol: 1e-9,
            max_passes: 10,
            min_damping: 0.5,
            draws: 10,
            ..plackett::infer::ep::EpOptions::new(prior)
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("mle") && e.contains("map"), "{e}");
}

/// An unknown-order group above the exact information's limit (12 items)
/// still fits by VB, whose linear-response covariance needs that
/// information: the fit says so and reports the mean-field intervals.
#[test]
fn vb_linear_response_falls_back_to_mean_field_on_large_groups() {
    let d = ranked(
        16,
        TieSemantics::UnknownOrder,
        &[
            vec![(0..14).collect(), vec![14], vec![15]],
            vec![vec![15], vec![0], vec![3]],
        ],
    );
    let f = plackett::infer::vb::vb(
        &d,
        &plackett::infer::vb::VbOptions {
            iter: plackett::numerics::fixed_point::IterSettings::new(1e-9, 10_000),
            draws: 10,
            ..plackett::infer::vb::VbOptions::new(GammaPrior::iid(16, 2.0, 1.0).unwrap())
        },
    )
    .unwrap();
    assert!(f.covariance.is_none());
    let notes = f.notes.join(" | ");
    assert!(notes.contains("no linear-response covariance"), "{notes}");
    assert!(
        notes.contains("mean-field intervals are too narrow"),
        "{notes}"
    );
}

/// Ties as events on rankings with ties of order 2 and 3
/// (`tests/data/dl_ties`, simulated): log-worths relative to `i0`, log δ₂,
/// log δ₃ and their standard errors against PlackettLuce 0.3.2 (Turner et
/// al. 2020) run to epsilon = 1e-12 (bench/plackettluce_compare.R,
/// 2026-12-01; the largest differences 1.7e-14 and, since the Hessian is
/// analytic rather than differenced, 7.6e-15 relative; 2.8e-11 before).
#[test]
fn ties_as_events_match_plackettluce() {
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dl_ties/rankings.csv");
    let ds = read_path(
        file.to_str().unwrap(),
        &ReadOptions {
            ranking_col: "ranking".into(),
            rank_col: "rank".into(),
            item_col: "item".into(),
            ties: TieSemantics::Event,
            ..Default::default()
        },
    )
    .unwrap();
    let reference = ds.items().get("i0").unwrap();
    let f = fit_point(&ds, &PointOptions::with_gauge(Gauge::Reference(reference))).unwrap();
    assert!(f.converged);
    assert!(
        (f.log_likelihood - -2357.97567102391).abs() < 1e-8,
        "{}",
        f.log_likelihood
    );
    assert_table(
        &f,
        &[
            ("i1", -0.718664848380904, 0.154370717745702),
            ("i3", 0.519051007633953, 0.146758892117086),
            ("i4", -2.54501340418682, 0.18586122719643),
            ("i7", -1.32229721221366, 0.159848482571409),
        ],
        1e-8,
        1e-12,
    );
    for (order, log_delta, se_log) in [
        (2, -1.14784802630688, 0.0715880517798994),
        (3, -1.83492112367302, 0.117043963443741),
    ] {
        let t = f.tie_parameters.iter().find(|t| t.order == order).unwrap();
        // PlackettLuce reports log δ and its standard error; plackett δ and
        // the delta method's se(δ) = δ·se(log δ).
        assert!(
            (t.delta.ln() - log_delta).abs() < 1e-8,
            "delta_{order}: {}",
            t.delta
        );
        let se = t.se.unwrap() / t.delta;
        assert!(
            (se - se_log).abs() < 1e-12 * se_log,
            "delta_{order}: se {se} vs {se_log}"
        );
    }
}
