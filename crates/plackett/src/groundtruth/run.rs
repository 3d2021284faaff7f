//! The per-case pipeline over a whole dataset: sample plausibilities,
//! measure, and accumulate the dataset-level per-sample metrics.
//!
//! Cases are independent; they run in parallel in fixed chunks, each case
//! with its own counter-based random stream, and the per-sample sums of
//! each chunk are reduced in chunk order. The output depends on the seed
//! only, and memory holds per-case summaries plus one vector of length M
//! per metric — never the M × K × N plausibilities.

use super::irn::{TieSplit, agreement, irn};
use super::measures::{
    RiskMeasures, certainty_rank_k, certainty_top_j, risk_measures, score_ranking, score_samples,
};
use super::models::{Method, pl_point, sample_case};
use crate::error::{Error, Result};
use crate::io::selectors::{Annotation, Selectors};
use crate::observer::SharedObserver;
use rayon::prelude::*;

/// What the aggregate is compared with.
#[derive(Debug, Clone)]
pub enum Predictions {
    /// Nothing (aggregation only).
    None,
    /// One score row per selected case (N × K, as `numpy.savetxt` writes).
    Scores(Vec<Vec<f64>>),
    /// Each annotator's own differential against the aggregate of the
    /// other annotators of the case (cases with one annotator are skipped).
    LeaveOneAnnotatorOut,
}

/// Settings of a run.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Aggregation model.
    pub method: Method,
    /// Plausibility samples per case (ignored by IRN, a point mass).
    pub samples: usize,
    /// Seed.
    pub seed: u64,
    /// Prediction-set sizes k.
    pub ks: Vec<usize>,
    /// IRN tie splitting for agreement and for the IRN point estimate.
    pub irn_split: TieSplit,
    /// Classes kept in the per-case summary.
    pub top: usize,
    /// Index of `sel.cases[0]` in the whole dataset: a chunk cut from a
    /// larger dataset (a Dask partition) keeps its cases' ids, hence their
    /// random streams and results. 0 for a whole dataset.
    pub case_offset: usize,
}

/// Per-case results.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct CaseResult {
    /// Case index in the file.
    pub case: usize,
    /// Annotators of the case.
    pub n_annotators: usize,
    /// `(class, mean, sd)` of the most plausible classes.
    pub top: Vec<(u32, f64, f64)>,
    /// Top-1, top-2 (set) and top-3 (set) annotation certainty.
    pub certainty: [f64; 3],
    /// Rank-1, rank-2, rank-3 certainty (reference code's reading).
    pub rank_certainty: [f64; 3],
    /// Leave-one-annotator-out agreement (None for one annotator).
    pub agreement: Option<f64>,
    /// Risk measures (with risks).
    pub risk: Option<RiskMeasures>,
    /// UA top-k accuracy per k (mean over samples; NaN without predictions).
    #[serde(with = "crate::io::float_serde::vec")]
    pub ua_acc: Vec<f64>,
    /// UA top-k set accuracy per k.
    #[serde(with = "crate::io::float_serde::vec")]
    pub ua_set: Vec<f64>,
    /// UA overlap per k.
    #[serde(with = "crate::io::float_serde::vec")]
    pub ua_overlap: Vec<f64>,
    /// UA average overlap @k per k.
    #[serde(with = "crate::io::float_serde::vec")]
    pub ua_ao: Vec<f64>,
    /// Standard top-k accuracy against the point estimate, per k.
    #[serde(with = "crate::io::float_serde::vec")]
    pub point_acc: Vec<f64>,
    /// Standard top-k set accuracy against the point estimate's ranking
    /// (classes by plausibility, ties by class id), per k.
    #[serde(with = "crate::io::float_serde::vec", default)]
    pub point_set: Vec<f64>,
    /// Standard average overlap against the point estimate's ranking, per k.
    #[serde(with = "crate::io::float_serde::vec", default)]
    pub point_ao: Vec<f64>,
    /// The PL point estimate was the MLE (false: MAP fallback).
    pub point_is_ml: bool,
    /// Scored units behind the UA metrics (1 per case for a score matrix,
    /// the number of annotators for leave-one-annotator-out, 0 if none).
    pub units: usize,
    /// The case's annotators mention fewer classes than the largest k
    /// (its top-k sets are padded by unranked classes).
    pub padded: bool,
    /// Plausibility samples of the case (kept only when requested; not
    /// serialised).
    #[serde(skip)]
    pub samples: Option<super::samples::CaseSamples>,
}

/// Everything a run produces.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RunResult {
    /// Per case, in case order.
    pub cases: Vec<CaseResult>,
    /// Per k and per sample index m: Σ over units of the indicator.
    pub sums_acc: Vec<Vec<f64>>,
    /// Set accuracy sums, `[k][m]`.
    pub sums_set: Vec<Vec<f64>>,
    /// Overlap sums, `[k][m]`.
    pub sums_overlap: Vec<Vec<f64>>,
    /// Average-overlap sums, `[k][m]`.
    pub sums_ao: Vec<Vec<f64>>,
    /// Units evaluated (cases, or case-annotator pairs).
    pub n_units: usize,
    /// Samples per unit.
    pub samples: usize,
}

impl RunResult {
    /// Join runs over disjoint case lists (e.g. chunks run on different
    /// workers), in the order given. Per-case results are unchanged, since
    /// every case draws from its own stream; the per-sample sums are added
    /// (in the order of `parts`, so an evaluation's dataset metrics can
    /// differ from a one-piece run in the last bits).
    pub fn concat(parts: Vec<RunResult>) -> Result<RunResult> {
        let mut it = parts.into_iter();
        let Some(mut out) = it.next() else {
            return Err(Error::Data("no runs to join".into()));
        };
        for p in it {
            if p.samples != out.samples || p.sums_acc.len() != out.sums_acc.len() {
                return Err(Error::Data(
                    "runs to join differ in samples or prediction-set sizes".into(),
                ));
            }
            out.cases.extend(p.cases);
            let add = |a: &mut Vec<Vec<f64>>, b: &[Vec<f64>]| {
                for (x, y) in a.iter_mut().zip(b) {
                    x.iter_mut().zip(y).for_each(|(u, v)| *u += v);
                }
            };
            add(&mut out.sums_acc, &p.sums_acc);
            add(&mut out.sums_set, &p.sums_set);
            add(&mut out.sums_overlap, &p.sums_overlap);
            add(&mut out.sums_ao, &p.sums_ao);
            out.n_units += p.n_units;
        }
        Ok(out)
    }
}

fn point_estimate(anns: &[Annotation], cfg: &RunConfig) -> Result<(Vec<(u32, f64)>, bool)> {
    match cfg.method {
        Method::Pl { .. } => pl_point(anns),
        _ => Ok((irn(anns, cfg.irn_split), true)),
    }
}

fn argmax(v: &[(u32, f64)]) -> Option<u32> {
    v.iter()
        .copied()
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|x| x.0)
}

/// The point estimate as a ranking of all `n` classes: by plausibility,
/// ties (and the classes it gives no plausibility) by class id, the order
/// [`argmax`] and numpy's stable argsort use.
fn point_ranking(pt: &[(u32, f64)], n: usize) -> Vec<u32> {
    let mut v: Vec<(u32, f64)> = pt.to_vec();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut seen = vec![false; n];
    let mut out: Vec<u32> = Vec::with_capacity(n);
    for (c, p) in v {
        if p > 0.0 && (c as usize) < n && !seen[c as usize] {
            seen[c as usize] = true;
            out.push(c);
        }
    }
    out.extend((0..n as u32).filter(|&c| !seen[c as usize]));
    out
}

/// An annotator's differential as a prediction ranking (blocks in order,
/// ties inside a block by class id).
pub fn annotation_ranking(ann: &Annotation) -> Vec<u32> {
    ann.iter()
        .flat_map(|b| {
            let mut b = b.clone();
            b.sort_unstable();
            b
        })
        .collect()
}

/// One scored unit: samples, prediction ranking, point estimate, whether
/// the point estimate is the MLE.
type Unit = (super::samples::CaseSamples, Vec<u32>, Vec<(u32, f64)>, bool);

struct Partial {
    results: Vec<CaseResult>,
    acc: Vec<Vec<f64>>,
    set: Vec<Vec<f64>>,
    ov: Vec<Vec<f64>>,
    ao: Vec<Vec<f64>>,
    units: usize,
}

/// Run the pipeline over `cases` (indices into `sel`).
#[allow(clippy::too_many_arguments)]
pub fn run(
    sel: &Selectors,
    cases: &[usize],
    cfg: &RunConfig,
    risks: Option<&[u8]>,
    predictions: &Predictions,
    keep_samples: &[usize],
    observer: Option<&SharedObserver>,
) -> Result<RunResult> {
    let n_classes = sel.n_classes;
    if let Predictions::Scores(rows) = predictions
        && rows.len() != cases.len()
    {
        return Err(Error::Data(format!(
            "the prediction file has {} rows but {} cases are evaluated",
            rows.len(),
            cases.len()
        )));
    }
    if let Some(r) = risks
        && r.len() != n_classes
    {
        return Err(Error::Data(format!(
            "{} risk levels for {n_classes} classes",
            r.len()
        )));
    }
    let m = match cfg.method {
        Method::Irn { .. } => 1,
        _ => cfg.samples.max(1),
    };
    let kmax = cfg.ks.iter().copied().max().unwrap_or(1);
    let t = kmax.max(3);
    let nk = cfg.ks.len();
    let chunk = 16;
    let idx: Vec<usize> = (0..cases.len()).collect();
    let partials: Vec<Result<Partial>> = idx
        .par_chunks(chunk)
        .map(|ix| {
            let mut p = Partial {
                results: Vec::with_capacity(ix.len()),
                acc: vec![vec![0.0; m]; nk],
                set: vec![vec![0.0; m]; nk],
                ov: vec![vec![0.0; m]; nk],
                ao: vec![vec![0.0; m]; nk],
                units: 0,
            };
            for &pos in ix {
                // A cancelled run stops before the next case, also in
                // chunks that have not started yet.
                crate::observer::advance(observer, 0)?;
                let anns = &sel.cases[cases[pos]];
                let case = cases[pos] + cfg.case_offset;
                if anns.is_empty() {
                    return Err(Error::input(
                        &sel.source,
                        sel.lines.get(cases[pos]).copied(),
                        format!("case {case} has no annotations (no annotator listed a class)"),
                    ));
                }
                let (s, moments, split) = sample_case(
                    anns,
                    n_classes,
                    &cfg.method,
                    cfg.samples,
                    cfg.seed,
                    case,
                    risks,
                    t,
                )?;
                let n_ranked = {
                    let mut u: Vec<u32> = anns.iter().flatten().flatten().copied().collect();
                    u.sort_unstable();
                    u.dedup();
                    u.len()
                };
                let mut res = CaseResult {
                    case,
                    n_annotators: anns.len(),
                    top: moments.top(n_classes, split, cfg.top),
                    certainty: [
                        certainty_top_j(&s, 1),
                        certainty_top_j(&s, 2),
                        certainty_top_j(&s, 3),
                    ],
                    rank_certainty: [
                        certainty_rank_k(&s, 1),
                        certainty_rank_k(&s, 2),
                        certainty_rank_k(&s, 3),
                    ],
                    agreement: agreement(anns, cfg.irn_split),
                    risk: risks.map(|r| risk_measures(&s, r)),
                    ua_acc: vec![f64::NAN; nk],
                    ua_set: vec![f64::NAN; nk],
                    ua_overlap: vec![f64::NAN; nk],
                    ua_ao: vec![f64::NAN; nk],
                    point_acc: vec![f64::NAN; nk],
                    point_set: vec![f64::NAN; nk],
                    point_ao: vec![f64::NAN; nk],
                    point_is_ml: true,
                    units: 0,
                    padded: n_ranked < kmax,
                    samples: None,
                };
                // Units to score: (samples, prediction ranking, point estimate).
                let mut units: Vec<Unit> = Vec::new();
                match predictions {
                    Predictions::None => {}
                    Predictions::Scores(rows) => {
                        let pred = super::measures::top_k_of_scores(&rows[pos], kmax);
                        let (pt, ml) = point_estimate(anns, cfg)?;
                        units.push((s.clone(), pred, pt, ml));
                    }
                    Predictions::LeaveOneAnnotatorOut => {
                        if anns.len() >= 2 {
                            for r in 0..anns.len() {
                                let others: Vec<Annotation> = anns
                                    .iter()
                                    .enumerate()
                                    .filter(|(k, _)| *k != r)
                                    .map(|(_, a)| a.clone())
                                    .collect();
                                // Its own stream: case index and annotator.
                                let (so, _, _) = sample_case(
                                    &others,
                                    n_classes,
                                    &cfg.method,
                                    cfg.samples,
                                    cfg.seed ^ ((r as u64 + 1) << 40),
                                    case,
                                    risks,
                                    t,
                                )?;
                                let (pt, ml) = point_estimate(&others, cfg)?;
                                units.push((so, annotation_ranking(&anns[r]), pt, ml));
                            }
                        }
                    }
                }
                if !units.is_empty() {
                    let mut acc = vec![0.0; nk];
                    let mut set = vec![0.0; nk];
                    let mut ov = vec![0.0; nk];
                    let mut ao = vec![0.0; nk];
                    let mut pacc = vec![0.0; nk];
                    let mut pset = vec![0.0; nk];
                    let mut pao = vec![0.0; nk];
                    for (us, pred, pt, ml) in &units {
                        let sc = score_samples(us, pred, &cfg.ks);
                        let pr = point_ranking(pt, n_classes);
                        for q in 0..nk {
                            for i in 0..m {
                                p.acc[q][i] += sc.acc[q][i];
                                p.set[q][i] += sc.set_acc[q][i];
                                p.ov[q][i] += sc.overlap[q][i];
                                p.ao[q][i] += sc.avg_overlap[q][i];
                            }
                            let mean = |v: &Vec<f64>| v.iter().sum::<f64>() / m as f64;
                            acc[q] += mean(&sc.acc[q]);
                            set[q] += mean(&sc.set_acc[q]);
                            ov[q] += mean(&sc.overlap[q]);
                            ao[q] += mean(&sc.avg_overlap[q]);
                            let top1 = argmax(pt);
                            let c = &pred[..cfg.ks[q].min(pred.len())];
                            pacc[q] += f64::from(u8::from(top1.is_some_and(|x| c.contains(&x))));
                            let [_, ps, _, pa] = score_ranking(&pr, pred, cfg.ks[q]);
                            pset[q] += ps;
                            pao[q] += pa;
                        }
                        res.point_is_ml &= *ml;
                        p.units += 1;
                    }
                    res.units = units.len();
                    let u = units.len() as f64;
                    res.ua_acc = acc.iter().map(|x| x / u).collect();
                    res.ua_set = set.iter().map(|x| x / u).collect();
                    res.ua_overlap = ov.iter().map(|x| x / u).collect();
                    res.ua_ao = ao.iter().map(|x| x / u).collect();
                    res.point_acc = pacc.iter().map(|x| x / u).collect();
                    res.point_set = pset.iter().map(|x| x / u).collect();
                    res.point_ao = pao.iter().map(|x| x / u).collect();
                }
                if keep_samples.contains(&case) {
                    res.samples = Some(s);
                }
                p.results.push(res);
                crate::observer::advance(observer, 1)?;
            }
            Ok(p)
        })
        .collect();
    let mut out = RunResult {
        cases: Vec::with_capacity(cases.len()),
        sums_acc: vec![vec![0.0; m]; nk],
        sums_set: vec![vec![0.0; m]; nk],
        sums_overlap: vec![vec![0.0; m]; nk],
        sums_ao: vec![vec![0.0; m]; nk],
        n_units: 0,
        samples: m,
    };
    for p in partials {
        let p = p?;
        out.cases.extend(p.results);
        for q in 0..nk {
            for i in 0..m {
                out.sums_acc[q][i] += p.acc[q][i];
                out.sums_set[q][i] += p.set[q][i];
                out.sums_overlap[q][i] += p.ov[q][i];
                out.sums_ao[q][i] += p.ao[q][i];
            }
        }
        out.n_units += p.units;
    }
    Ok(out)
}
