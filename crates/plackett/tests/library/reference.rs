//! Published reference values: NASCAR 2002 (Hunter 2004), the salad
//! dressings (Critchlow & Fligner 1991), and tiny cases small enough to
//! check by hand.

use crate::common;
use common::{assert_table, data_dir, lw, path, salad_rankings};
use plackett::data::{DatasetBuilder, Items, Tail, TieSemantics};
use plackett::infer::{Algorithm, PointOptions, Prior, fit_point};
use plackett::io::{ReadOptions, read_path};
use plackett::posterior::Gauge;

const DROPPED: [&str; 4] = [
    "Andy Hillenburg",
    "Gary Bradberry",
    "Jason Hedlesky",
    "Randy Renfrow",
];

fn nascar_opts() -> ReadOptions {
    ReadOptions {
        ranking_col: "race".into(),
        rank_col: "position".into(),
        item_col: "driver".into(),
        ..Default::default()
    }
}

#[test]
fn nascar_mle_matches_hunter() {
    let d = data_dir();
    let ds = read_path(&path(&d, "nascar2002/results.csv"), &nascar_opts()).unwrap();
    assert_eq!(ds.n_items(), 87);
    assert_eq!(ds.n_obs(), 36);
    let names: Vec<String> = DROPPED.iter().map(|s| s.to_string()).collect();
    let ds = ds.exclude(&names).unwrap();
    assert_eq!(ds.n_items(), 83);
    let reference = ds.items().get("Austin Cameron").unwrap();
    for alg in [Algorithm::Newton, Algorithm::Mm, Algorithm::Ilsr] {
        let f = fit_point(
            &ds,
            &PointOptions {
                gauge: Gauge::Reference(reference),
                algorithm: alg,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(f.converged, "{alg:?}");
        assert!(
            (f.log_likelihood - -4191.0973).abs() < 1e-4,
            "{alg:?} {}",
            f.log_likelihood
        );
        for (name, want) in [
            ("PJ Jones", 4.1477),
            ("Scott Pruett", 3.6162),
            ("Mike Bliss", 2.2310),
            ("Mark Martin", 2.0763),
            ("Rusty Wallace", 2.0572),
            ("Dick Trickle", -0.3113),
        ] {
            let (v, _) = lw(&f, name);
            assert!((v - want).abs() < 1e-4, "{alg:?} {name}: {v} vs {want}");
        }
        let (_, se) = lw(&f, "PJ Jones");
        assert!((se.unwrap() - 1.5676).abs() < 1e-3);
        let (_, se) = lw(&f, "Mark Martin");
        assert!((se.unwrap() - 1.0528).abs() < 1e-3);
        // Guiver & Snelson Table 1, MLE column (normalised worths).
        let w = f
            .summary
            .items
            .iter()
            .find(|i| i.name == "PJ Jones")
            .unwrap()
            .worth;
        assert!((w - 0.1864).abs() < 1e-4);
    }
}

/// All 87 drivers with 0.5 pseudo-rankings against a ghost item
/// (PlackettLuce's default remedy, Turner et al. 2020): log-worths relative
/// to Austin Cameron and their standard errors against PlackettLuce 0.3.2
/// itself, run to epsilon = 1e-12 by bench/plackettluce_compare.sh
/// (2026-12-01; its largest differences over all 86 drivers 1.4e-9 and
/// 6.4e-10 relative). Standard errors use the real rankings only, as
/// PlackettLuce's do.
#[test]
fn nascar_pseudo_rankings_match_plackettluce() {
    let d = data_dir();
    let ds = read_path(&path(&d, "nascar2002/results.csv"), &nascar_opts()).unwrap();
    let reference = ds.items().get("Austin Cameron").unwrap();
    let f = fit_point(
        &ds,
        &PointOptions {
            pseudo: Some(0.5),
            gauge: Gauge::Reference(reference),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(f.converged);
    assert!(
        (f.log_likelihood - -4193.5923414107).abs() < 1e-7,
        "{}",
        f.log_likelihood
    );
    assert_table(
        &f,
        &[
            ("PJ Jones", 3.195986280681, 1.7291028198),
            ("Mark Martin", 1.910211935908, 0.9837119529),
            ("Tony Stewart", 1.670375906967, 0.9850582115),
            ("Dick Trickle", -0.379554673717, 1.1329750108),
            ("Andy Hillenburg", -2.171064964915, 1.8129935921),
            ("Randy Renfrow", -1.768628723861, 1.9048714922),
        ],
        1e-7,
        1e-7,
    );
}

#[test]
fn nascar_all_drivers_needs_a_remedy() {
    let d = data_dir();
    let ds = read_path(&path(&d, "nascar2002/results.csv"), &nascar_opts()).unwrap();
    let err = fit_point(&ds, &PointOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("4 items never beat anyone"), "{err}");
    for name in DROPPED {
        assert!(err.contains(name), "{err}");
    }
    // The library names parameters; the CLI spells them as flags.
    let err = plackett::error::render_params(&err, plackett::error::ParamStyle::Cli);
    assert!(
        err.contains("--pseudo") && err.contains("--engine map"),
        "{err}"
    );
    let f = fit_point(
        &ds,
        &PointOptions {
            pseudo: Some(0.5),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(f.summary.items.len(), 87);
    assert!(f.converged);
    assert!(
        f.summary
            .items
            .iter()
            .all(|i| i.log_worth.is_finite() && i.log_worth_se.is_some())
    );
    // MAP also fits all drivers.
    let f = fit_point(&ds, &PointOptions::with_prior(Prior::gamma(2.0, 1.0))).unwrap();
    assert_eq!(f.summary.items.len(), 87);
}

#[test]
fn salad_plain_pl() {
    let ds = salad_rankings();
    let a = ds.items().get("A").unwrap();
    let f = fit_point(&ds, &PointOptions::with_gauge(Gauge::Reference(a))).unwrap();
    for (name, want) in [("B", 2.72991), ("C", 1.56154), ("D", 1.02684)] {
        let (v, _) = lw(&f, name);
        assert!((v - want).abs() < 1e-4, "{name}: {v}");
    }
}

fn ds(n: usize, rankings: &[&[u32]]) -> plackett::data::Dataset {
    let mut b = DatasetBuilder::new(Items::numbered(n), TieSemantics::UnknownOrder);
    for r in rankings {
        let g: Vec<Vec<u32>> = r.iter().map(|&i| vec![i]).collect();
        b.push(&g, Tail::None, &[], 1.0).unwrap();
    }
    b.finish()
}

fn centred(d: &plackett::data::Dataset, alg: Algorithm) -> Vec<f64> {
    let f = fit_point(
        d,
        &PointOptions {
            algorithm: alg,
            ..Default::default()
        },
    )
    .unwrap();
    f.summary.items.iter().map(|i| i.log_worth).collect()
}

#[test]
fn tiny_cases_mean_centred_mles() {
    for alg in [Algorithm::Newton, Algorithm::Mm, Algorithm::Ilsr] {
        let v = centred(&ds(4, &[&[0, 1, 2], &[3, 2, 0], &[1, 3]]), alg);
        for (a, b) in v.iter().zip([-0.443308, 0.695068, -0.670610, 0.418850]) {
            assert!((a - b).abs() < 1e-5, "{alg:?} {v:?}");
        }
        let v = centred(&ds(3, &[&[0, 1], &[0, 1], &[1, 2], &[2, 0]]), alg);
        for (a, b) in v.iter().zip([0.419618, -0.419618, 0.0]) {
            assert!((a - b).abs() < 1e-5, "{alg:?} {v:?}");
        }
        let v = centred(&ds(3, &[&[0, 1], &[1, 2], &[2, 0]]), alg);
        assert!(v.iter().all(|x| x.abs() < 1e-10), "{alg:?} {v:?}");
    }
}

#[test]
fn choices_pairs_topk_agree_across_algorithms() {
    use plackett::data::simulate::{Design, simulate};
    use rand::SeedableRng;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
    let lam: Vec<f64> = (1..=12).map(|x| x as f64).collect();
    for design in [
        Design::TopK { k: 3 },
        Design::SubRankings { len: 4 },
        Design::Pairs,
    ] {
        let d = simulate(&mut rng, &lam, 400, design);
        let a = centred(&d, Algorithm::Newton);
        let b = centred(&d, Algorithm::Mm);
        let c = centred(&d, Algorithm::Ilsr);
        for i in 0..a.len() {
            assert!(
                (a[i] - b[i]).abs() < 1e-7 && (a[i] - c[i]).abs() < 1e-7,
                "{design:?}"
            );
        }
    }
}

/// Stigler's (1994) citation counts among four statistics journals as
/// BradleyTerry2's `countsToBinomial(citations)` gives them: a pair's wins
/// are the citations each journal received from the other.
fn citations() -> plackett::data::Dataset {
    use plackett::io::{Format, read_str};
    let pairs = "item_i,item_j,i_wins,j_wins\n\
                 Biometrika,Comm Statist,730,33\n\
                 Biometrika,JASA,498,320\n\
                 Biometrika,JRSS-B,221,284\n\
                 Comm Statist,JASA,68,813\n\
                 Comm Statist,JRSS-B,17,276\n\
                 JASA,JRSS-B,142,325\n";
    let opts = ReadOptions {
        format: Some(Format::Pairs),
        ..Default::default()
    };
    read_str("citations.csv", pairs, &opts).unwrap()
}

/// Bradley–Terry on Stigler's (1994) citation counts among four statistics
/// journals (BradleyTerry2's `citations`: how often the row journal's
/// papers were cited by the column journal's), the maximum-likelihood
/// abilities and standard errors relative to Biometrika against
/// BradleyTerry2's `BTm` (Turner & Firth 2012, version 1.1.2, run to a
/// tight tolerance by `bench/bradleyterry2_compare.sh`; a pair's wins are
/// the citations each journal received from the other).
#[test]
fn citations_bradley_terry_matches_bradleyterry2() {
    let ds = citations();
    let reference = ds.items().get("Biometrika").unwrap();
    // BTm: estimate, standard error.
    let btm = [
        ("Comm Statist", -2.94907249684391, 0.102545335511209),
        ("JASA", -0.479569769751993, 0.0605887292482307),
        ("JRSS-B", 0.268954055819472, 0.0708299651111413),
    ];
    for alg in [Algorithm::Auto, Algorithm::Newton, Algorithm::Mm] {
        let f = fit_point(
            &ds,
            &PointOptions {
                gauge: Gauge::Reference(reference),
                algorithm: alg,
                tol: 1e-12,
                ..Default::default()
            },
        )
        .unwrap();
        for (name, est, se) in btm {
            let (v, s) = lw(&f, name);
            let s = s.unwrap();
            eprintln!("{alg:?} {name}: {v:.12} ({s:.10}) against BTm {est:.12} ({se:.10})");
            assert!((v - est).abs() < 1e-9, "{alg:?} {name}: {v} against {est}");
            assert!(
                (s - se).abs() < 1e-10 * se,
                "{alg:?} {name}: se {s} against {se}"
            );
        }
    }
}

/// Quasi-variances (Firth & de Menezes 2004) of the citations abilities
/// against the `qvcalc` package that PlackettLuce and BradleyTerry2 call
/// (`qvcalc(BTabilities(BTm(…)))`, qvcalc 1.0.2: 0.00177417668, 0.00850747204,
/// 0.00183576933, 0.00342411548 at glm's default tolerance), and against
/// its criterion, `Σ (log v_ij − log(q_i + q_j))²`, minimised to 1e-17 by a
/// few lines of Gauss–Newton in R (`bench/bradleyterry2_compare.sh`); the
/// worst relative errors over simple contrasts as qvcalc's `relerrs`.
#[test]
fn citations_quasi_variances_match_qvcalc() {
    use plackett::posterior::quasi::quasi_variances;
    let ds = citations();
    let f = fit_point(
        &ds,
        &PointOptions {
            gauge: Gauge::Reference(ds.items().get("Biometrika").unwrap()),
            covariance: true,
            tol: 1e-12,
            ..Default::default()
        },
    )
    .unwrap();
    let q = quasi_variances(f.covariance.as_ref().unwrap()).unwrap();
    // Items in their order of appearance: Biometrika, Comm Statist, JASA, JRSS-B.
    let tight = [
        0.00177417612712927,
        0.00850747277466227,
        0.00183577002172481,
        0.00342411488197666,
    ];
    let qvcalc = [
        0.0017741766825907,
        0.00850747203549464,
        0.0018357693341563,
        0.00342411547858724,
    ];
    for ((a, t), c) in q.quasi_var.iter().zip(tight).zip(qvcalc) {
        eprintln!("quasi-variance {a:.15} against {t:.15} (qvcalc {c:.15})");
        assert!((a - t).abs() < 1e-9 * t, "{a} against {t}");
        assert!((a - c).abs() < 1e-6 * c, "{a} against qvcalc's {c}");
    }
    let (lo, hi) = q.relative_error_simple;
    assert!((lo - -0.0273330054544156).abs() < 1e-9, "{lo}");
    assert!((hi - 0.0359704969474668).abs() < 1e-9, "{hi}");
}

/// Abilities `xᵀβ` from item covariates on paired comparisons (PL
/// regression, Guo et al. 2019, restricted to pairs: Bradley–Terry with
/// "player" covariates and no random effect) against BradleyTerry2's `BTm`
/// on the same files: `tests/data/bt_covariates`, 400 comparisons among 40
/// items with 3 covariates simulated by `plackett simulate --items 40
/// --rankings 400 --design pairs --features 3 --seed 7` (true β in
/// `beta.csv`). BTm's numbers from `bench/bradleyterry2_compare.sh`, glm
/// run to a tight tolerance; the same script gives 1.7e-13 for the
/// estimates and 3e-7 for the standard errors on BradleyTerry2's own
/// `flatlizards` (Whiting et al. 2006), which cannot be shipped.
#[test]
fn pair_covariates_match_bradleyterry2() {
    use plackett::infer::regression::fit_regression;
    use plackett::io::Format;
    use plackett::io::features::read_features;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bt_covariates");
    let opts = ReadOptions {
        format: Some(Format::Pairs),
        ..Default::default()
    };
    let ds = read_path(&dir.join("pairs.csv").to_string_lossy(), &opts).unwrap();
    assert_eq!((ds.n_items(), ds.n_obs()), (40, 400));
    let text = std::fs::read_to_string(dir.join("features.csv")).unwrap();
    let f = read_features("features.csv", &text, ds.items(), false).unwrap();
    let r = fit_regression(&ds, &f, 0.0, 1e-12, None).unwrap();
    assert!(r.converged);
    let se = r.se.clone().unwrap();
    let btm = [
        (-0.571358386534478, 0.0878385436579707),
        (-1.13370237819466, 0.144539310913442),
        (1.0681222119715, 0.141656612190033),
    ];
    eprintln!(
        "beta {:?} se {se:?} log-likelihood {} (BTm −200.250049270799)",
        r.beta, r.log_likelihood
    );
    assert!((r.log_likelihood - -200.250049270799).abs() < 1e-9);
    for (k, (est, s)) in btm.iter().enumerate() {
        assert!(
            (r.beta[k] - est).abs() < 1e-9,
            "beta {k}: {} against {est}",
            r.beta[k]
        );
        assert!(
            (se[k] - s).abs() < 1e-10 * s,
            "se {k}: {} against {s}",
            se[k]
        );
    }
}
