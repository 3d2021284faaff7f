//! `plackett cv`: cross-validation of PL regression over a grid of prior
//! precisions η, with the η chosen by the variational bound beside the
//! cross-validated one (Guo et al. 2019 §5.2, Tables 3–4 layout).

use crate::fit_args::{DataArgs, load};
use anyhow::Result;
use clap::Args;
use plackett::infer::feature_cv::CvOptions;
use plackett::infer::feature_cv_summary::{CvDocument, check_options, partitions, run_partitions};
use plackett::io::features::read_features_with_prior;

/// Options of `plackett cv`.
#[derive(Args, Debug)]
pub struct CvArgs {
    #[command(flatten)]
    pub data: DataArgs,
    /// Item features CSV (item,f1,f2,…).
    #[arg(long)]
    pub features: String,
    /// Standardise feature columns before fitting.
    #[arg(long, default_value = "on", value_parser = ["on", "off"])]
    pub standardize: String,
    /// Folds per partition (Guo et al. 2019 uses 3).
    #[arg(long, default_value_t = 3)]
    pub folds: usize,
    /// Repetitions of the random partition.
    #[arg(long, default_value_t = 1)]
    pub repeats: usize,
    /// Random seed of the partitions (and of the exact bound's draws).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// L: split observations; N: split items (observations across the split are dropped).
    #[arg(long, default_value = "both", value_parser = ["l", "n", "both"])]
    pub partition: String,
    /// η grid: LO:HI:N (log-spaced) or a comma list.
    #[arg(long, default_value = "1e-3:1e3:13", value_name = "LO:HI:N")]
    pub eta_grid: String,
    /// K of the top-K metric (Guo et al. 2019 eqs 27–28); `--k` still works (evaluate's --k is
    /// a prediction-set size).
    #[arg(long = "metric-k", alias = "k", default_value_t = 10, value_name = "K")]
    pub metric_k: usize,
    /// Variational posterior: Gaussian VI on the exact bound, or Guo et al. (2019)'s Algorithm 1.
    #[arg(long, default_value = "exact", value_parser = ["exact", "guo"])]
    pub vi: String,
    #[command(flatten)]
    pub printed: crate::args::Printed,
    /// Write a self-contained HTML report (metric and bound curves, positive ratio).
    #[arg(value_hint = clap::ValueHint::FilePath, long, value_name = "FILE.html")]
    pub report: Option<String>,
}

/// Run `plackett cv`.
pub fn run(a: &CvArgs) -> Result<()> {
    let t0 = std::time::Instant::now();
    let etas = crate::features::parse_eta_grid(Some(&a.eta_grid))?;
    let vi = crate::features::vi_kind(Some(&a.vi));
    let mut opts = CvOptions {
        folds: a.folds,
        repeats: a.repeats,
        seed: a.seed,
        etas,
        top_k: a.metric_k,
        vi,
        observer: None,
    };
    // Bad counts are refused before the data are read.
    check_options(&opts)?;
    let ds = load(&a.data)?;
    let text = plackett::io::read_text(&a.features)?;
    let feats = read_features_with_prior(&a.features, &text, ds.items(), a.standardize == "on")?;
    let parts = partitions(&a.partition)?;
    let total = (parts.len() * a.folds * a.repeats) as u64;
    let progress = crate::progress::Progress::new(total, "cross-validating");
    // The library advances the bar after every fold (it only moved after a
    // whole partition, 22 s in on a large problem).
    opts.observer = Some(progress.observer());
    let (results, notes) = run_partitions(&ds, &feats, &parts, &opts)?;
    progress.finish();
    let notes = notes.iter().map(|n| crate::cli_text(n)).collect();
    let doc = CvDocument::new(&ds, &opts, &results, notes, t0.elapsed().as_secs_f64());
    let text = match a.printed.output.as_str() {
        "json" => doc.to_json(),
        _ => doc.to_table(),
    };
    if let Some(path) = &a.report {
        let page = plackett::report::cv::cv_page(
            &format!("plackett cv: {}", a.data.file),
            &doc,
            &results,
            Some(&a.data.file),
            &a.features,
        );
        crate::outputs::write(path, page.as_bytes())?;
    }
    match &a.printed.out {
        Some(p) => crate::outputs::write(p, text.as_bytes())?,
        None => crate::emit(&text)?,
    }
    Ok(())
}
