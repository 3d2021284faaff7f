//! DIC/BPIC of the mixture Gibbs sampler on PLMIX's datasets (read in place
//! from `../shared/data/plmix`), G = 1..3, for docs/mixtures.md.
//!
//! `cargo run --release --example mixture_dic -- [SAMPLES] [CHAINS]`

use plackett::infer::mcmc::McmcSettings;
use plackett::infer::mixture_gibbs::{MixtureGibbsOptions, mixture_gibbs};
use plackett::io::{Format, ReadOptions, read_path};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let samples: usize = args.next().map_or(2500, |s| s.parse().expect("samples"));
    let chains: usize = args.next().map_or(4, |s| s.parse().expect("chains"));
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/plmix");
    for name in ["d_gaming", "d_carconf"] {
        let ds = read_path(
            dir.join(format!("{name}.csv")).to_str().expect("utf-8"),
            &ReadOptions {
                format: Some(Format::Orderings),
                top_k: true,
                ..ReadOptions::default()
            },
        )
        .expect("PLMIX data in ../shared/data/plmix");
        for g in 1..=3 {
            let t = Instant::now();
            let f = mixture_gibbs(
                &ds,
                &MixtureGibbsOptions {
                    starts: 10,
                    ..MixtureGibbsOptions::plmix(g, McmcSettings::new(samples, 1000, chains, 11))
                },
            )
            .expect("runs");
            let p = f.posterior.as_ref().expect("posterior");
            println!(
                "{name} G={g}: DIC {:.2} BPIC {:.2} D̄ {:.2} D(MAP) {:.2} pD {:.2}, weights {:?} sd {:?}, R̂ {:.3}, ESS {:.0}, {:.2} s",
                p.dic,
                p.bpic,
                p.mean_deviance,
                p.deviance_at_mode,
                p.mean_deviance - p.deviance_at_mode,
                f.weights
                    .iter()
                    .map(|w| (w * 1e4).round() / 1e4)
                    .collect::<Vec<_>>(),
                p.weight_sd
                    .iter()
                    .map(|w| (w * 1e4).round() / 1e4)
                    .collect::<Vec<_>>(),
                p.rhat_max,
                p.ess_min,
                t.elapsed().as_secs_f64()
            );
        }
    }
}
