//! `plackett demo`: simulate from known worths, fit with every engine,
//! compare side by side, and write `demo-report.html`.

use anyhow::Result;
use clap::Args;
use plackett::data::simulate::{Design, simulate};
use plackett::infer::bayes::{BayesFit, GammaPrior};
use plackett::infer::ep::{EpOptions, ep};
use plackett::infer::gibbs::{GibbsOptions, gibbs};
use plackett::infer::vb::{VbOptions, vb};
use plackett::infer::{PointOptions, fit_point};
use plackett::posterior::{Gauge, Posterior};
use plackett::report::{HtmlReport, charts};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// `println!` through [`crate::emit`].
macro_rules! outln {
    () => { crate::emit("\n")? };
    ($($t:tt)*) => { crate::emit(&format!("{}\n", format!($($t)*)))? };
}

/// Options of `plackett demo`.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where to write the HTML report.
    #[arg(value_hint = clap::ValueHint::FilePath, long, default_value = "demo-report.html")]
    pub report: String,
}

/// Per engine: normalised worth mean and a 95% interval of it.
type Column = (String, Vec<f64>, Vec<f64>, Vec<f64>);

fn bayes_column(name: &str, f: &BayesFit, n: usize) -> Column {
    let names: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let s = f.summary(&names, Gauge::MeanCentred);
    // Interval of the normalised worth from the draws.
    let mut lo = vec![0.0; n];
    let mut hi = vec![0.0; n];
    for i in 0..n {
        let mut w: Vec<f64> = (0..f.draws.len())
            .map(|k| f.draws.draw(k)[i].exp())
            .collect();
        let (a, b) = plackett::posterior::draws::central_interval(&mut w, 0.95);
        lo[i] = a;
        hi[i] = b;
    }
    (
        name.to_string(),
        s.items.iter().map(|i| i.worth).collect(),
        lo,
        hi,
    )
}

/// The MLE's normalised worths with plug-in 95% intervals (from the
/// log-worth SEs at a fixed normaliser); blank with a note when the data
/// have no MLE (few rankings).
fn mle_column(ds: &plackett::data::Dataset, n: usize, notes: &mut Vec<String>) -> Column {
    match fit_point(ds, &PointOptions::default()) {
        Ok(f) => {
            let (mut lo, mut hi) = (vec![f64::NAN; n], vec![f64::NAN; n]);
            // Delta-free display: interval of the worth from the log-worth SE
            // at fixed normaliser (plug-in).
            for (i, it) in f.summary.items.iter().enumerate() {
                if let Some(se) = it.log_worth_se {
                    lo[i] = it.worth * (-1.96 * se).exp();
                    hi[i] = it.worth * (1.96 * se).exp();
                }
            }
            (
                "MLE".into(),
                f.summary.items.iter().map(|i| i.worth).collect(),
                lo,
                hi,
            )
        }
        Err(e) => {
            notes.push(crate::cli_text(&format!("MLE: {e}")));
            (
                "MLE".into(),
                vec![f64::NAN; n],
                vec![f64::NAN; n],
                vec![f64::NAN; n],
            )
        }
    }
}

/// One row per item: the truth and each engine's estimate.
fn print_rows(tnorm: &[f64], cols: &[Column]) -> Result<()> {
    let n = tnorm.len();
    for i in 0..n {
        let f = |x: f64| {
            if x.is_finite() {
                format!("{x:.4}")
            } else {
                "-".into()
            }
        };
        outln!(
            "{:>5}  {:>7.4}  {:>7}  {:>7}  {:>7}  {:>7}",
            i + 1,
            tnorm[i],
            f(cols[0].1[i]),
            f(cols[1].1[i]),
            f(cols[2].1[i]),
            f(cols[3].1[i])
        );
    }
    Ok(())
}

/// Run the demo (Guiver & Snelson §4.1: worths 1..10; 5, 50, 5000 full rankings).
pub fn run(a: &DemoArgs) -> Result<()> {
    let n = 10;
    let truth: Vec<f64> = (1..=n).map(|x| x as f64).collect();
    let total: f64 = truth.iter().sum();
    let tnorm: Vec<f64> = truth.iter().map(|t| t / total).collect();
    outln!("plackett demo: full rankings of 10 items simulated from PL with worths 1, 2, …, 10");
    outln!("(Guiver & Snelson 2009, §4.1), fitted by every engine. Normalised worths (sum 1);");
    outln!("Bayesian engines use a Gamma(2, 1) prior and report posterior means.\n");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(a.seed);
    let mut page = HtmlReport::new("plackett demo: recovering known worths");
    page.para("Full rankings of 10 items simulated from a Plackett–Luce model with worths 1, 2, …, 10 (Guiver & Snelson 2009, §4.1). Each engine's normalised worths (posterior means for Bayesian engines, with 95% intervals) against the truth (black crosses). Intervals shrink as the data grow; a 95% interval misses the truth about one time in twenty, so with 40 intervals per panel a miss or two is expected (the calibration tests in docs/engines.md check the rate).");
    let names: Vec<String> = (1..=n).map(|i| format!("{i}")).collect();
    for m in [5usize, 50, 5000] {
        let ds = simulate(&mut rng, &truth, m, Design::Full);
        let prior = GammaPrior::iid(n, 2.0, 1.0)?;
        let mut cols: Vec<Column> = Vec::new();
        let mut notes: Vec<String> = Vec::new();
        cols.push(mle_column(&ds, n, &mut notes));
        let g = gibbs(
            &ds,
            &GibbsOptions {
                prior: prior.clone(),
                mcmc: plackett::infer::mcmc::McmcSettings::new(1000, 300, 4, a.seed),
                rescale: true,
                observer: None,
            },
        )?;
        cols.push(bayes_column("Gibbs", &g, n));
        let e = ep(
            &ds,
            &EpOptions {
                seed: a.seed,
                ..EpOptions::new(prior.clone())
            },
        )?;
        cols.push(bayes_column("EP", &e, n));
        let v = vb(
            &ds,
            &VbOptions {
                seed: a.seed,
                ..VbOptions::new(prior)
            },
        )?;
        cols.push(bayes_column("VB", &v, n));
        outln!("{m} rankings");
        outln!(
            "{:>5}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}",
            "item",
            "truth",
            "MLE",
            "Gibbs",
            "EP",
            "VB"
        );
        print_rows(&tnorm, &cols)?;
        let (rhat, ess) = g.rhat_ess();
        outln!(
            "Gibbs: max split-R̂ {:.4}, min ESS {:.0};  EP log-evidence {:.3};  VB ELBO {:.3}",
            rhat.unwrap_or(f64::NAN),
            ess.unwrap_or(f64::NAN),
            e.log_evidence.unwrap_or(f64::NAN),
            v.elbo.unwrap_or(f64::NAN)
        );
        for note in &notes {
            outln!("  {note}");
        }
        outln!();
        page.heading(&format!("{m} rankings"));
        for note in &notes {
            page.para(note);
        }
        page.figure(
            &charts::compare_methods(
                &names,
                &tnorm,
                &cols,
                "item (its true worth is its number)",
                "normalised worth",
            ),
            &format!("{m} rankings: estimates with 95% intervals; crosses mark the true normalised worths."),
        );
        let rows: Vec<Vec<String>> = (0..n)
            .map(|i| {
                let mut r = vec![names[i].clone(), format!("{:.4}", tnorm[i])];
                for c in &cols {
                    r.push(if c.1[i].is_finite() {
                        format!("{:.4}", c.1[i])
                    } else {
                        "-".into()
                    });
                }
                r
            })
            .collect();
        page.table(&["item", "truth", "MLE", "Gibbs", "EP", "VB"], &rows);
    }
    crate::outputs::write(&a.report, page.render().as_bytes())?;
    // Where it is, whatever the working directory: the page is the point
    // of the demo.
    let shown = std::fs::canonicalize(&a.report)
        .map_or_else(|_| a.report.clone(), |p| p.display().to_string());
    outln!("wrote the report {shown} (open it in a browser)");
    Ok(())
}
