//! PL regression with item features (seed 000; PlackettLuce's salad example).

mod common;
use common::{data_dir, path};
use plackett::data::features::read_features;
use plackett::infer::regression::fit_regression;
use plackett::io::{ReadOptions, read_path};

#[test]
fn salad_regression_mle() {
    let Some(dir) = data_dir("salad_regression_mle") else {
        return;
    };
    let ds = read_path(
        &path(&dir, "salad/rankings.csv"),
        &ReadOptions {
            ranking_col: "judge".into(),
            ..Default::default()
        },
    )
    .unwrap();
    let text = std::fs::read_to_string(path(&dir, "salad/features.csv")).unwrap();
    let f = read_features("features.csv", &text, ds.items(), false).unwrap();
    let r = fit_regression(&ds, &f, 0.0, 1e-10, 0).unwrap();
    assert!(r.converged);
    let se = r.se.clone().unwrap();
    eprintln!("beta {:?} se {:?} deviance {}", r.beta, se, r.deviance());
    assert!((r.beta[0] - 3.27405).abs() < 1e-4);
    assert!((r.beta[1] - 0.27389).abs() < 1e-4);
    assert!((se[0] - 0.57665).abs() < 1e-3);
    assert!((se[1] - 0.04506).abs() < 1e-3);
    assert!((r.deviance() - 152.905).abs() < 1e-3);
    // Standardisation changes the working scale, not the MLE on the original scale.
    let fs = read_features("features.csv", &text, ds.items(), true).unwrap();
    let rs = fit_regression(&ds, &fs, 0.0, 1e-10, 0).unwrap();
    for k in 0..2 {
        assert!((rs.beta[k] - r.beta[k]).abs() < 1e-7);
        assert!((rs.se.as_ref().unwrap()[k] - se[k]).abs() < 1e-7);
    }
}
