//! One executor for monotone fixed-point iterations — MM, EM and
//! coordinate-ascent VB — with SQUAREM acceleration (Varadhan & Roland
//! 2008, scheme S3), a stopping rule, an objective trace, and observers for
//! progress and cancellation.
//!
//! An engine supplies a [`MonotoneMap`]: one evaluation at `x` returns the
//! image `F(x)`, an objective that the plain iteration never decreases, and
//! optionally the engine's own distance from convergence (a score norm, a
//! relative change). The [`Executor`] then runs
//!
//! ```text
//! e ← eval(x)
//! loop:
//!     stop if e is regular and its gap ≤ tol        (Converged)
//!     stop if the evaluation budget is spent        (MaxIterations)
//!     x₁ ← F(x);  e₁ ← eval(x₁)
//!     if accelerating and both steps regular:
//!         x_p ← S3 extrapolation of x, x₁, F(x₁)    (backtracking towards x₂)
//!         e_p ← eval(x_p)
//!         if objective(e_p) ≥ objective(e₁): x, e ← x_p, e_p; continue
//!     x, e ← x₁, e₁
//! ```
//!
//! so every accepted iterate's objective is at least the previous one's
//! (the trace is monotone), the next plain step from an extrapolated point
//! is SQUAREM's "stabilising" step, and the fixed point is that of the
//! plain map. A step that changes the problem's structure (an EM step that
//! drops a coordinate to zero) is marked irregular: it is neither
//! extrapolated across nor taken as converged.

use super::squarem;
use crate::error::{Error, Result};
use crate::observer::SharedObserver;
use std::ops::ControlFlow;

/// Tolerance, evaluation budget and acceleration of a fixed-point engine.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IterSettings {
    /// Stop when the engine's gap (or the relative objective change) is at
    /// most this.
    pub tol: f64,
    /// Maximum number of map evaluations.
    pub max_iter: usize,
    /// Use SQUAREM extrapolation.
    pub accelerate: bool,
}

impl IterSettings {
    /// Settings with acceleration on.
    pub fn new(tol: f64, max_iter: usize) -> IterSettings {
        IterSettings {
            tol,
            max_iter,
            accelerate: true,
        }
    }

    /// The settings if valid: `tol` finite and positive, `max_iter ≥ 1`.
    pub fn check(self) -> Result<IterSettings> {
        if !(self.tol.is_finite() && self.tol > 0.0) {
            return Err(Error::param(
                "tol",
                format!(
                    "must be a positive number, got {}",
                    crate::error::show_number(self.tol)
                ),
            ));
        }
        if self.max_iter == 0 {
            return Err(Error::param("max_iter", "must be at least 1"));
        }
        Ok(self)
    }
}

/// One evaluation of the map at a point `x`.
#[derive(Debug, Clone)]
pub struct Iterate {
    /// The image `F(x)`.
    pub next: Vec<f64>,
    /// The objective of this evaluation (at `x` or at `F(x)`, the same
    /// choice for every evaluation of one map); never decreased by `F`.
    pub objective: f64,
    /// The engine's distance from convergence at `x`; `None` to stop on
    /// the relative change of the objective instead.
    pub gap: Option<f64>,
    /// `false` when this step changed the problem's structure (support):
    /// no extrapolation through it and no convergence at it.
    pub regular: bool,
}

impl Iterate {
    /// A regular evaluation.
    pub fn new(next: Vec<f64>, objective: f64, gap: Option<f64>) -> Iterate {
        Iterate {
            next,
            objective,
            gap,
            regular: true,
        }
    }
}

/// A monotone fixed-point map `x ↦ F(x)` with its objective.
pub trait MonotoneMap {
    /// Evaluate at `x`.
    fn eval(&mut self, x: &[f64]) -> Result<Iterate>;

    /// Coordinates SQUAREM extrapolates in (default: `x` itself; e.g.
    /// logarithms for positive quantities).
    fn to_coords(&self, x: &[f64]) -> Vec<f64> {
        x.to_vec()
    }

    /// A point from extrapolated coordinates, given the point `like` they
    /// came from; `None` when it is not admissible.
    fn coords_to_point(&self, c: Vec<f64>, like: &[f64]) -> Option<Vec<f64>> {
        let _ = like;
        Some(c)
    }
}

/// Why the executor stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// The stopping rule held.
    Converged,
    /// The evaluation budget ran out first.
    MaxIterations,
}

/// Result of [`Executor::run`].
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The last accepted point.
    pub x: Vec<f64>,
    /// The evaluation at `x` (its image, objective and gap).
    pub last: Iterate,
    /// Map evaluations spent (extrapolations included).
    pub evaluations: usize,
    /// Why the run stopped.
    pub termination: Termination,
    /// Objective of every accepted iterate, in order (non-decreasing).
    pub trace: Vec<f64>,
    /// Indices into `trace` of irregular (structure-changing) steps.
    pub marks: Vec<usize>,
}

impl Outcome {
    /// Whether the stopping rule held.
    pub fn converged(&self) -> bool {
        self.termination == Termination::Converged
    }
}

/// Runs a [`MonotoneMap`] to its fixed point.
#[derive(Clone)]
pub struct Executor {
    settings: IterSettings,
    backtracks: usize,
    observer: Option<SharedObserver>,
}

impl Executor {
    /// An executor with these settings, no backtracking, no observer.
    pub fn new(settings: IterSettings) -> Executor {
        Executor {
            settings,
            backtracks: 0,
            observer: None,
        }
    }

    /// Retry a rejected extrapolation up to `n` times with the step length
    /// halved towards the plain two-step point (SQUAREM's backtracking).
    pub fn backtracks(mut self, n: usize) -> Executor {
        self.backtracks = n;
        self
    }

    /// Report accepted iterates to `observer` (which may cancel the run).
    pub fn observer(mut self, observer: Option<SharedObserver>) -> Executor {
        self.observer = observer;
        self
    }

    fn observe(&self, iteration: usize, objective: f64) -> Result<()> {
        match self
            .observer
            .as_ref()
            .map(|o| o.iterate(iteration, objective))
        {
            Some(ControlFlow::Break(())) => Err(Error::Cancelled),
            _ => Ok(()),
        }
    }

    /// Iterate from `x0`.
    pub fn run<M: MonotoneMap>(&self, map: &mut M, x0: Vec<f64>) -> Result<Outcome> {
        let s = self.settings.check()?;
        let mut x = x0;
        let mut e = map.eval(&x)?;
        let mut evaluations = 1;
        let mut trace = vec![e.objective];
        let mut marks = Vec::new();
        self.observe(trace.len(), e.objective)?;
        loop {
            let gap = e.gap.unwrap_or_else(|| match trace.len() {
                1 => f64::INFINITY,
                n => (trace[n - 1] - trace[n - 2]).abs() / trace[n - 1].abs().max(1.0),
            });
            let stop = if e.regular && gap <= s.tol {
                Some(Termination::Converged)
            } else {
                (evaluations >= s.max_iter).then_some(Termination::MaxIterations)
            };
            if let Some(termination) = stop {
                return Ok(Outcome {
                    x,
                    last: e,
                    evaluations,
                    termination,
                    trace,
                    marks,
                });
            }
            let x1 = std::mem::take(&mut e.next);
            let e1 = map.eval(&x1)?;
            evaluations += 1;
            let mut accepted = None;
            if s.accelerate && e.regular && e1.regular && evaluations < s.max_iter {
                accepted = self.extrapolate(map, &x, &x1, &e1, &mut evaluations)?;
            }
            if !e.regular {
                marks.push(trace.len());
            }
            trace.push(e1.objective);
            self.observe(trace.len(), e1.objective)?;
            match accepted {
                Some((xp, ep)) => {
                    trace.push(ep.objective);
                    self.observe(trace.len(), ep.objective)?;
                    x = xp;
                    e = ep;
                }
                None => {
                    x = x1;
                    e = e1;
                }
            }
        }
    }

    /// The S3 point from `x, x₁, x₂ = F(x₁)` and its evaluation, if its
    /// objective is at least that of `x₁`'s evaluation.
    fn extrapolate<M: MonotoneMap>(
        &self,
        map: &mut M,
        x: &[f64],
        x1: &[f64],
        e1: &Iterate,
        evaluations: &mut usize,
    ) -> Result<Option<(Vec<f64>, Iterate)>> {
        let (c0, c1, c2) = (map.to_coords(x), map.to_coords(x1), map.to_coords(&e1.next));
        let Some((r, v, mut alpha)) = squarem::step_length(&c0, &c1, &c2) else {
            return Ok(None);
        };
        for _ in 0..=self.backtracks {
            if *evaluations >= self.settings.max_iter {
                break;
            }
            let c = squarem::point(&c0, &r, &v, alpha);
            if let Some(xp) = c.and_then(|c| map.coords_to_point(c, x)) {
                *evaluations += 1;
                match map.eval(&xp) {
                    Ok(ep)
                        if ep.regular
                            && ep.objective.is_finite()
                            && ep.objective >= e1.objective =>
                    {
                        return Ok(Some((xp, ep)));
                    }
                    // An extrapolated point the model cannot evaluate
                    // (an indefinite matrix, an emptied class) is simply
                    // not taken; the plain iteration goes on.
                    Ok(_) | Err(Error::Numerical(_)) | Err(Error::NotIdentifiable { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
            alpha = (alpha - 1.0) / 2.0;
            if alpha > -1.0 - 1e-12 {
                break;
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `F(x) = c + ρ(x − c)` with objective `−‖x − c‖²`.
    struct Contraction {
        c: Vec<f64>,
        rho: f64,
    }

    impl MonotoneMap for Contraction {
        fn eval(&mut self, x: &[f64]) -> Result<Iterate> {
            let next: Vec<f64> = x
                .iter()
                .zip(&self.c)
                .map(|(x, c)| c + self.rho * (x - c))
                .collect();
            let d2: f64 = x.iter().zip(&self.c).map(|(x, c)| (x - c).powi(2)).sum();
            Ok(Iterate::new(next, -d2, Some(d2.sqrt())))
        }
    }

    #[test]
    fn squarem_reaches_the_fixed_point_faster_and_monotonically() {
        let run = |accelerate| {
            let mut m = Contraction {
                c: vec![1.0, -2.0, 0.5],
                rho: 0.99,
            };
            let set = IterSettings {
                tol: 1e-10,
                max_iter: 100_000,
                accelerate,
            };
            Executor::new(set)
                .run(&mut m, vec![5.0, 3.0, -4.0])
                .unwrap()
        };
        let (plain, fast) = (run(false), run(true));
        for o in [&plain, &fast] {
            assert!(o.converged());
            assert!(o.trace.windows(2).all(|w| w[1] >= w[0]));
            assert!((o.x[0] - 1.0).abs() < 1e-9 && (o.x[1] + 2.0).abs() < 1e-9);
        }
        assert!(
            fast.evaluations * 20 < plain.evaluations,
            "{} vs {}",
            fast.evaluations,
            plain.evaluations
        );
    }

    #[test]
    fn budget_and_cancellation() {
        let mut m = Contraction {
            c: vec![0.0],
            rho: 0.999,
        };
        let set = IterSettings {
            tol: 1e-300,
            max_iter: 10,
            accelerate: false,
        };
        let o = Executor::new(set).run(&mut m, vec![1.0]).unwrap();
        assert_eq!(o.termination, Termination::MaxIterations);
        assert_eq!(o.evaluations, 10);
        let flag = crate::observer::CancelFlag::default();
        flag.cancel();
        let obs: SharedObserver = std::sync::Arc::new(flag);
        let r = Executor::new(set)
            .observer(Some(obs))
            .run(&mut m, vec![1.0]);
        assert!(matches!(r, Err(Error::Cancelled)));
        assert!(IterSettings::new(-1.0, 5).check().is_err());
        assert!(IterSettings::new(f64::NAN, 5).check().is_err());
        assert!(IterSettings::new(1e-8, 0).check().is_err());
    }
}
