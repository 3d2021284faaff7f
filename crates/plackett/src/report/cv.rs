//! The `plackett cv` page (Guo et al. 2019 §5.2): per partition, the mean
//! training-fold bound against η (their Fig. 1), the test metrics against
//! η (Figs 2–3), the positive ratio of the test pairs (Fig. 4) and the
//! Tables 3–4 row of every metric.

use super::{HtmlReport, charts};
use crate::infer::feature_cv::CvResult;
use crate::infer::feature_cv_summary::CvDocument;
use crate::numerics::sig;

/// The page of `doc` (whose partitions are `results`, in order): `title`;
/// `data` and `features` name the files the rankings and the features came
/// from (`data` None: given in memory).
pub fn cv_page(
    title: &str,
    doc: &CvDocument,
    results: &[CvResult],
    data: Option<&str>,
    features: &str,
) -> String {
    let j = doc;
    let mut r = HtmlReport::new(title);
    let counts = format!("{} items, {} observations", j.n_items, j.n_observations);
    r.facts(&[
        (
            "data",
            match data {
                Some(file) => format!("{file} ({counts})"),
                None => counts,
            },
        ),
        ("features", features.to_string()),
        (
            "protocol",
            format!(
                "{}-fold × {}, seed {}",
                j.folds,
                crate::io::output::count(j.repeats, "repeat", "repeats"),
                j.seed
            ),
        ),
        (
            "variational fit (VI)",
            if j.vi == "guo" {
                "Guo et al. 2019 Alg. 1".into()
            } else {
                "Gaussian VI on the exact bound".into()
            },
        ),
    ]);
    for n in &j.notes {
        r.para(&format!("Note: {n}"));
    }
    for (p, res) in j.partitions.iter().zip(results) {
        let eta_l = p.eta_l;
        let label = format!("bound η = {}", sig(eta_l, 3));
        r.heading(&format!("{}-partition ({} splits)", p.partition, p.splits));
        let pts = |v: &[f64]| -> Vec<(f64, f64)> {
            p.etas.iter().copied().zip(v.iter().copied()).collect()
        };
        r.figure(
            &charts::xy(
                &[("mean bound".into(), pts(&p.bound))],
                "η",
                "variational bound",
                true,
                Some((eta_l, &label)),
            ),
            "Mean final variational bound on the training folds against η (cf. Guo et al. 2019 Fig. 1).",
        );
        r.figure(
            &charts::xy(
                &[
                    ("VI".into(), pts(&p.vi.top_k)),
                    ("MAP".into(), pts(&p.map.top_k)),
                ],
                "η",
                &format!("top-{} metric", j.top_k),
                true,
                Some((eta_l, &label)),
            ),
            "Top-K metric on the test folds against η (cf. Guo et al. 2019 Fig. 2).",
        );
        r.figure(
            &charts::xy(
                &[
                    ("VI".into(), pts(&p.vi.auc)),
                    ("MAP".into(), pts(&p.map.auc)),
                ],
                "η",
                "comparison AUC",
                true,
                Some((eta_l, &label)),
            ),
            "Comparison AUC on the test folds against η (cf. Guo et al. 2019 Fig. 3).",
        );
        r.figure(
            &charts::xy(
                &[
                    ("VI".into(), pts(&p.vi.log_score)),
                    ("MAP".into(), pts(&p.map.log_score)),
                ],
                "η",
                "mean log P(outcome)",
                true,
                Some((eta_l, &label)),
            ),
            "Held-out log score of the test pairs against η.",
        );
        if !res.pr_triples.is_empty() {
            let pr = crate::eval::positive_ratio::positive_ratio(&res.pr_triples, 8, 3);
            let (_, svg, cap) = super::features::positive_ratio(
                &pr,
                "Test pairs of every split, VI at the η chosen by that split's bound",
            );
            r.figure(&svg, &cap);
        }
        let rows: Vec<Vec<String>> = [
            ("top-K", &p.top_k_table),
            ("AUC", &p.auc_table),
            ("log score", &p.log_score_table),
        ]
        .iter()
        .map(|(name, t)| {
            vec![
                name.to_string(),
                format!("{:.4}", t.vi_at_eta_v),
                format!("{:.4}", t.map_at_eta_m),
                format!("{:.4}", t.vi_at_eta_l),
                format!("{:.4}", t.map_at_eta_l),
                sig(t.eta_v, 3),
                sig(t.eta_m, 3),
                sig(t.eta_l, 3),
            ]
        })
        .collect();
        r.para(
            "Each method at its cross-validated best η, and both at the η whose mean \
             training-fold bound is highest (bound η; Guo et al. 2019's η_L).",
        );
        r.table(
            &[
                "metric",
                "VI at its best η",
                "MAP at its best η",
                "VI at bound η",
                "MAP at bound η",
                "best η VI",
                "best η MAP",
                "bound η",
            ],
            &rows,
        );
    }
    r.render()
}
