//! `plackett demo`: simulate from known worths, fit, compare.

use anyhow::Result;

/// `println!` through [`crate::emit`].
macro_rules! outln {
    () => { crate::emit("\n")? };
    ($($t:tt)*) => { crate::emit(&format!("{}\n", format!($($t)*)))? };
}
use clap::Args;
use plackett::data::simulate::{Design, simulate};
use plackett::infer::{PointOptions, fit_point};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Options of `plackett demo`.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Run the demo (Guiver & Snelson §4.1: worths 1..10; 5, 50, 5000 full rankings).
pub fn run(a: &DemoArgs) -> Result<()> {
    let truth: Vec<f64> = (1..=10).map(|x| x as f64).collect();
    let total: f64 = truth.iter().sum();
    outln!("plackett demo: full rankings of 10 items simulated from PL with worths 1, 2, …, 10");
    outln!("(Guiver & Snelson 2009, §4.1). Worths normalised to sum to 1.\n");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(a.seed);
    for n in [5usize, 50, 5000] {
        let ds = simulate(&mut rng, &truth, n, Design::Full);
        outln!("{n} rankings");
        match fit_point(&ds, &PointOptions::default()) {
            Ok(f) => {
                outln!(
                    "{:>6}  {:>8}  {:>8}  {:>8}",
                    "item",
                    "truth",
                    "MLE",
                    "MLE se"
                );
                for (i, it) in f.summary.items.iter().enumerate() {
                    outln!(
                        "{:>6}  {:>8.4}  {:>8.4}  {:>8}",
                        i + 1,
                        truth[i] / total,
                        it.worth,
                        it.log_worth_se.map_or("-".into(), |s| format!("{s:.3}"))
                    );
                }
            }
            Err(e) => outln!("  MLE: {e}"),
        }
        outln!();
    }
    Ok(())
}
