//! VBSS against the exact posterior of its model (Albert–Chib Gibbs) on
//! real documents: `cargo run --release -p plackett-text --example
//! vb_vs_gibbs -- CORPUS CANDIDATES [DOCS] [default-only]` (SemEval-2010
//! and the VBSS authors' candidate sequences; docs/keywords.md reports its
//! output; `default-only` runs only the default θ₀ scale and θ update).

#![allow(clippy::needless_range_loop)]

use plackett::infer::mcmc::McmcSettings;
use plackett::keywords::{
    PriorScale, ThetaPrior, ThetaUpdate, VbCovariance, VbssGibbsOptions, VbssOptions, WordGraph,
    bayesian_fdr_select, draw_known, fit_gibbs, fit_vbss, truth_indices,
};
use plackett_text::{Pipeline, read_candidate_corpus};
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: vb_vs_gibbs CORPUS CANDIDATES [DOCS]");
        std::process::exit(2);
    }
    let docs: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(20);
    let default_only = args.get(4).is_some_and(|s| s == "default-only");
    let corpus = read_candidate_corpus(
        Path::new(&args[1]),
        Path::new(&args[2]),
        &Pipeline::default(),
        plackett_text::KeyRule::Whole,
    )
    .expect("corpus");
    println!(
        "| θ₀ scale | θ update | docs | mean |Δ| P(y*=1|y), unobserved | max |Δ| | mean |Δ| Φ(a+bθ) plug-in vs posterior mean | same FDR set at γ=0.2 | Gibbs max R̂ | mean |Δ| E Φ(a+bθ), linear response / mean-field | sd of Φ(a+bθ), VB / exact: median (10%, 90%), linear response / mean-field | exact E Φ(a+bθ) inside VB's E ± 1.645 sd, linear response / mean-field |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for scale in [PriorScale::Dissertation, PriorScale::Code] {
        for mode in [ThetaUpdate::Block, ThetaUpdate::Coordinate] {
            if default_only && (scale != PriorScale::Code || mode != ThetaUpdate::Block) {
                continue;
            }
            let (mut dl, mut mx, mut dp, mut cnt, mut same, mut used, mut rmax) =
                (0.0, 0.0f64, 0.0, 0usize, 0usize, 0usize, 1.0f64);
            let (mut dpred, mut ratios) = (0.0, Vec::new());
            let (mut dpred_mf, mut ratios_mf) = (0.0, Vec::new());
            let (mut covered, mut covered_mf, mut words) = (0usize, 0usize, 0usize);
            for (di, d) in corpus.documents.iter().enumerate() {
                if used == docs {
                    break;
                }
                let g = WordGraph::from_tokens(&d.tokens, 2, false).unwrap();
                let truth = truth_indices(&g, d);
                if truth.len() < 11 {
                    continue;
                }
                used += 1;
                let y = draw_known(&truth, g.len(), 5, 1, di, 0);
                let pr = ThetaPrior::from_graph(&g, &y, 0.85, scale).unwrap();
                let vb = fit_vbss(
                    &pr,
                    &y,
                    &VbssOptions {
                        theta_update: mode,
                        max_iter: 20_000,
                        ..Default::default()
                    },
                )
                .unwrap();
                let mf = fit_vbss(
                    &pr,
                    &y,
                    &VbssOptions {
                        theta_update: mode,
                        max_iter: 20_000,
                        covariance: VbCovariance::MeanField,
                        ..Default::default()
                    },
                )
                .unwrap();
                let gs = fit_gibbs(
                    &pr,
                    &y,
                    &VbssGibbsOptions {
                        mcmc: McmcSettings::new(2000, 1000, 4, 7),
                        ..Default::default()
                    },
                )
                .unwrap();
                rmax = rmax.max(gs.p_worst.rhat);
                for i in 0..g.len() {
                    if !y[i] {
                        let e = (vb.p_latent[i] - gs.p_latent[i]).abs();
                        dl += e;
                        mx = mx.max(e);
                        cnt += 1;
                    }
                    dp += (vb.p_plugin[i] - gs.p_mean[i]).abs();
                    dpred += (vb.p_predictive[i] - gs.p_mean[i]).abs();
                    ratios.push(vb.p_sd[i] / gs.p_sd[i]);
                    ratios_mf.push(mf.p_sd[i] / gs.p_sd[i]);
                    // Does VB's nominal 90% band around its E Φ(a + bθ_i)
                    // hold the exact posterior mean?
                    let inside = |f: &plackett::keywords::VbssFit| {
                        ((f.p_predictive[i] - gs.p_mean[i]).abs() <= 1.645 * f.p_sd[i]) as usize
                    };
                    covered += inside(&vb);
                    covered_mf += inside(&mf);
                    words += 1;
                    dpred_mf += (mf.p_predictive[i] - gs.p_mean[i]).abs();
                }

                if bayesian_fdr_select(&vb.p_latent, 0.2) == bayesian_fdr_select(&gs.p_latent, 0.2)
                {
                    same += 1;
                }
            }
            let total: usize = cnt + used * 5;
            ratios.sort_by(f64::total_cmp);
            ratios_mf.sort_by(f64::total_cmp);
            let q = |f: f64| ratios[((ratios.len() - 1) as f64 * f).round() as usize];
            let q_mf = |f: f64| ratios_mf[((ratios_mf.len() - 1) as f64 * f).round() as usize];
            println!(
                "| {scale:?} | {mode:?} | {used} | {:.4} | {:.3} | {:.4} | {same}/{used} | {rmax:.3} | {:.4} / {:.4} | {:.2} ({:.2}, {:.2}) / {:.2} ({:.2}, {:.2}) | {:.3} / {:.3} of {words} words |",
                dl / cnt as f64,
                mx,
                dp / total as f64,
                dpred / total as f64,
                dpred_mf / total as f64,
                q(0.5),
                q(0.1),
                q(0.9),
                q_mf(0.5),
                q_mf(0.1),
                q_mf(0.9),
                covered as f64 / words as f64,
                covered_mf as f64 / words as f64
            );
        }
    }
}
