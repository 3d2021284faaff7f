#![allow(clippy::needless_range_loop)]
//! Cross-validation vs the bound on a synthetic PL-regression problem
//! (d = 20, 200 items, 1,000 rankings of 5, β ~ N(0, I)): where do η_L and
//! the CV-best η fall? `cargo run --release --example feature_cv [guo|exact] [L|N]`
use plackett::data::simulate::{Design, regression_problem};
use plackett::infer::feature_cv::{Curve, CvOptions, Partition, ViKind, cross_validate};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let vi = if args.get(1).map(String::as_str) == Some("guo") {
        ViKind::Guo
    } else {
        ViKind::Exact
    };
    let part = if args.get(2).map(String::as_str) == Some("N") {
        Partition::N
    } else {
        Partition::L
    };
    let p = regression_problem(200, 20, 1000, Design::SubRankings { len: 5 }, 1.0, None, 11);
    let etas: Vec<f64> = (0..13).map(|k| 10f64.powf(-2.0 + k as f64 / 3.0)).collect();
    let t = std::time::Instant::now();
    let r = cross_validate(
        &p.data,
        &p.features,
        part,
        &CvOptions {
            folds: 5,
            repeats: 1,
            seed: 3,
            etas: etas.clone(),
            top_k: 20,
            vi,
            observer: None,
        },
    )
    .unwrap();
    println!(
        "{:?} {:?} {} splits, {:.1} s",
        vi,
        part,
        r.splits,
        t.elapsed().as_secs_f64()
    );
    println!(
        "{:>9} {:>12} {:>8} {:>8} {:>9} {:>8} {:>8} {:>9}",
        "eta", "bound", "vi auc", "vi topK", "vi logsc", "map auc", "map topK", "map logsc"
    );
    for e in 0..etas.len() {
        println!(
            "{:>9.4} {:>12.3} {:>8.4} {:>8.4} {:>9.5} {:>8.4} {:>8.4} {:>9.5}",
            etas[e],
            r.bound[e],
            r.vi.auc[e],
            r.vi.top_k[e],
            r.vi.log_score[e],
            r.map.auc[e],
            r.map.top_k[e],
            r.map.log_score[e]
        );
    }
    println!(
        "eta_L = {:.4}; CV-best by VI log score {:.4}, by VI top-K {:.4}, by VI AUC {:.4}; MAP log score {:.4}",
        etas[r.best_bound()],
        etas[Curve::argmax(&r.vi.log_score)],
        etas[Curve::argmax(&r.vi.top_k)],
        etas[Curve::argmax(&r.vi.auc)],
        etas[Curve::argmax(&r.map.log_score)]
    );
}
