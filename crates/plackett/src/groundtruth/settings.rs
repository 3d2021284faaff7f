//! Settings of an aggregation or evaluation run (Stutz et al. 2023), as
//! the CLI's `aggregate`/`evaluate` flags and Python's `plackett.aggregate`
//! keyword arguments both spell them: one place for the defaults, the
//! domain checks and the translation into a [`Method`].
//!
//! Messages name parameters in backticks (`` `reliability` ``) so each
//! front end renders them in its own spelling
//! ([`crate::error::render_params`]).

use super::irn::TieSplit;
use super::models::{Method, PlPrior, PrirnZero};
use super::run::RunConfig;
use crate::error::{Error, Result};
use crate::io::selectors::Selectors;

crate::choices! {
    /// The aggregation model, by name (Stutz et al. 2023).
    pub enum MethodName("method") {
        /// Plackett–Luce by Gibbs sampling, reliability = repetitions (§4.4).
        Pl = "pl",
        /// Probabilistic IRN, reliability = Dirichlet concentration (§4.3).
        Prirn = "prirn",
        /// Deterministic inverse rank normalisation (§4.2).
        Irn = "irn",
    }
}

/// Everything an aggregation needs besides the data and the reliability.
#[derive(Debug, Clone)]
pub struct AggregateSettings {
    /// Aggregation model.
    pub method: MethodName,
    /// Plausibility samples per case.
    pub samples: usize,
    /// PL Gibbs burn-in sweeps per case.
    pub burn_in: usize,
    /// Seed; each case draws from its own stream keyed by the seed and the
    /// case index, so results do not depend on how cases are partitioned.
    pub seed: u64,
    /// PL Gamma shape per class (default 1/K).
    pub prior_shape: Option<f64>,
    /// PL Gamma rate (the normalised plausibilities do not depend on it).
    pub prior_rate: f64,
    /// IRN tie weighting (default: split, or no-split with the paper preset).
    pub irn_ties: Option<TieSplit>,
    /// PrIRN zero handling (default: support, or smooth 0.01 with the paper
    /// preset).
    pub prirn_zero: Option<PrirnZero>,
    /// The reference code's choices (`preset=paper`).
    pub paper: bool,
}

impl Default for AggregateSettings {
    fn default() -> Self {
        AggregateSettings {
            method: MethodName::Pl,
            samples: 1000,
            burn_in: 500,
            seed: 1,
            prior_shape: None,
            prior_rate: 1.0,
            irn_ties: None,
            prirn_zero: None,
            paper: false,
        }
    }
}

/// Parse `split` or `no-split`.
pub fn parse_tie_split(s: &str) -> Result<TieSplit> {
    match s {
        "split" => Ok(TieSplit::Split),
        "no-split" => Ok(TieSplit::NoSplit),
        other => Err(Error::param(
            "irn_ties",
            format!("expected split or no-split, got {other:?}"),
        )),
    }
}

/// Parse `support` or `smooth:A` (A > 0).
pub fn parse_prirn_zero(s: &str) -> Result<PrirnZero> {
    if s == "support" {
        return Ok(PrirnZero::Support);
    }
    let Some(a) = s.strip_prefix("smooth:") else {
        return Err(Error::param(
            "prirn_zero",
            format!("expected support or smooth:A, got {s:?}"),
        ));
    };
    match a.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(PrirnZero::Smooth(v)),
        _ => Err(Error::param(
            "prirn_zero",
            format!("the smoothing A of smooth:A must be a positive number, got {a:?}"),
        )),
    }
}

/// Parse a preset name (only `paper` exists).
pub fn parse_preset(s: &str) -> Result<bool> {
    match s {
        "paper" => Ok(true),
        other => Err(Error::param(
            "preset",
            format!("the only preset is paper, got {other:?}"),
        )),
    }
}

/// Parse a comma list of reliabilities (`3` or `1,3,5`).
pub fn parse_reliabilities(s: &str) -> Result<Vec<f64>> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<f64>()
                .map_err(|_| Error::param("reliability", format!("{x:?} is not a number")))
        })
        .collect()
}

/// Parse a comma list of non-negative integers for parameter `param`.
pub fn parse_index_list(s: &str, param: &str) -> Result<Vec<usize>> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<usize>()
                .map_err(|_| Error::param(param, format!("{x:?} is not a non-negative integer")))
        })
        .collect()
}

/// The cases to run: all of them, or the given indices (checked).
pub fn select_cases(sel: &Selectors, cases: Option<&[usize]>) -> Result<Vec<usize>> {
    match cases {
        None => Ok((0..sel.cases.len()).collect()),
        Some(v) => {
            if let Some(&c) = v.iter().find(|&&c| c >= sel.cases.len()) {
                return Err(Error::param(
                    "cases",
                    format!(
                        "case {c} out of range (the data have {} cases)",
                        sel.cases.len()
                    ),
                ));
            }
            Ok(v.to_vec())
        }
    }
}

/// The note printed when K was taken from the data rather than declared.
pub fn classes_note(sel: &Selectors) -> String {
    format!(
        "number of classes K = {} taken from the largest id; pass `classes` to declare it (it sets the prior of never-ranked classes)",
        sel.n_classes
    )
}

impl AggregateSettings {
    /// Refuse values no aggregation can use (zero samples gave all-zero
    /// plausibilities, and an index panic in evaluation).
    pub fn check(&self) -> Result<()> {
        if self.samples == 0 {
            return Err(Error::param("samples", "expected at least 1"));
        }
        // Bounds no analysis needs, so that a mistyped count is refused
        // instead of aborting on memory or running for days.
        if self.samples > 1_000_000 {
            return Err(Error::param(
                "samples",
                format!("at most 1000000 samples per case, got {}", self.samples),
            ));
        }
        if self.burn_in > 10_000_000 {
            return Err(Error::param(
                "burn_in",
                format!(
                    "at most 10000000 burn-in sweeps per case, got {}",
                    self.burn_in
                ),
            ));
        }
        // The rule every family's Gamma prior follows.
        if let Some(s) = self.prior_shape {
            crate::numerics::gamma::check_shape("prior_shape", s)?;
        }
        crate::numerics::gamma::check_parameter("prior_rate", self.prior_rate)?;
        if self.paper && self.prior_shape.is_some() && self.method == MethodName::Pl {
            return Err(Error::param(
                "prior_shape",
                "`preset=paper` fixes the prior (shape 1 per ranked class and for the others)",
            ));
        }
        Ok(())
    }

    /// IRN tie weighting for agreement, the IRN point estimate and IRN/PrIRN.
    pub fn irn_split(&self) -> TieSplit {
        match self.irn_ties {
            Some(t) => t,
            None if self.paper => TieSplit::NoSplit,
            None => TieSplit::Split,
        }
    }

    /// The method for one reliability value over `k` classes.
    pub fn method(&self, reliability: Option<f64>, k: usize) -> Result<Method> {
        let split = self.irn_split();
        Ok(match self.method {
            MethodName::Irn => Method::Irn { split },
            MethodName::Prirn => {
                let gamma = reliability.unwrap_or(30.0);
                // γ scales the Dirichlet's concentrations, the shapes of
                // its Gamma representation: the Gamma rule's range (below
                // it the draws' logarithms leave double precision, above
                // it the Dirichlet is IRN's point mass).
                use crate::numerics::gamma::{MAX_GAMMA_PARAMETER, MIN_GAMMA_SHAPE};
                if !(MIN_GAMMA_SHAPE..=MAX_GAMMA_PARAMETER).contains(&gamma) {
                    return Err(Error::param(
                        "reliability",
                        format!(
                            "the PrIRN concentration must be between {MIN_GAMMA_SHAPE:e} and \
                             {MAX_GAMMA_PARAMETER:e} (below, the Dirichlet draws' logarithms \
                             leave double precision; above, it is IRN's point mass), got {}",
                            crate::error::show_number(gamma)
                        ),
                    ));
                }
                let zero = match self.prirn_zero {
                    Some(z) => z,
                    None if self.paper => PrirnZero::Smooth(0.01),
                    None => PrirnZero::Support,
                };
                Method::Prirn { gamma, split, zero }
            }
            MethodName::Pl => {
                let r = reliability.unwrap_or(3.0);
                if !(r.is_finite() && r >= 1.0 && r.fract() == 0.0) {
                    return Err(Error::param(
                        "reliability",
                        format!(
                            "PL reliability is a whole number of repetitions (got {})",
                            crate::error::show_number(r)
                        ),
                    ));
                }
                if r > 1e6 {
                    return Err(Error::param(
                        "reliability",
                        format!(
                            "at most 1000000 repetitions (got {})",
                            crate::error::show_number(r)
                        ),
                    ));
                }
                let prior = if self.paper {
                    PlPrior::Paper
                } else {
                    PlPrior::Exact {
                        alpha: self.prior_shape.unwrap_or(1.0 / k.max(1) as f64),
                    }
                };
                Method::Pl {
                    repeats: r as usize,
                    prior,
                    rate: self.prior_rate,
                    burn_in: self.burn_in,
                }
            }
        })
    }

    /// The run configuration for evaluation: [`config`](Self::config), with
    /// every prediction-set size at most the number of classes `k` (a set
    /// of more classes than exist would score every case as covered).
    pub fn evaluate_config(
        &self,
        reliability: Option<f64>,
        k: usize,
        ks: &[usize],
    ) -> Result<RunConfig> {
        if let Some(&big) = ks.iter().find(|&&x| x > k) {
            return Err(Error::param(
                "k",
                format!("prediction-set size {big} exceeds the number of classes ({k})"),
            ));
        }
        self.config(reliability, k, ks)
    }

    /// The run configuration for one reliability, prediction-set sizes `ks`.
    pub fn config(&self, reliability: Option<f64>, k: usize, ks: &[usize]) -> Result<RunConfig> {
        self.check()?;
        // Each case keeps samples × classes plausibilities (400 MB at most).
        if self.samples.saturating_mul(k) > 50_000_000 {
            return Err(Error::param(
                "samples",
                format!(
                    "{} samples of {k} classes per case is too many to keep (at most 50000000 numbers)",
                    self.samples
                ),
            ));
        }
        if ks.is_empty() || ks.contains(&0) {
            return Err(Error::param("k", "prediction-set sizes must be positive"));
        }
        Ok(RunConfig {
            method: self.method(reliability, k)?,
            samples: self.samples,
            seed: self.seed,
            ks: ks.to_vec(),
            irn_split: self.irn_split(),
            top: 5,
            case_offset: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_sizes_beyond_the_classes_are_refused() {
        let st = AggregateSettings::default();
        assert!(st.evaluate_config(None, 5, &[1, 5]).is_ok());
        let e = st
            .evaluate_config(None, 5, &[1, 6])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("prediction-set size 6 exceeds the number of classes (5)"),
            "{e}"
        );
    }

    #[test]
    fn defaults_and_presets_give_the_documented_methods() {
        let s = AggregateSettings::default();
        assert_eq!(
            s.method(None, 4).unwrap(),
            Method::Pl {
                repeats: 3,
                prior: PlPrior::Exact { alpha: 0.25 },
                rate: 1.0,
                burn_in: 500
            }
        );
        let p = AggregateSettings {
            method: MethodName::Prirn,
            paper: true,
            ..Default::default()
        };
        assert_eq!(
            p.method(None, 4).unwrap(),
            Method::Prirn {
                gamma: 30.0,
                split: TieSplit::NoSplit,
                zero: PrirnZero::Smooth(0.01)
            }
        );
        assert!(s.method(Some(2.5), 4).is_err());
        assert!(parse_prirn_zero("smooth:-1").is_err());
        assert_eq!(
            parse_prirn_zero("smooth:0.5").unwrap(),
            PrirnZero::Smooth(0.5)
        );
        assert!(parse_index_list("1,x", "cases").is_err());
    }
}
