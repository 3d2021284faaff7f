#!/usr/bin/env python3
"""VB's weight intervals against the Gibbs sampler's for the PL-regression
classifier (Archambeau & Caron 2012), on the shipped Iris and Wine sets
(docs/classify.md, "VB's weight intervals").

Both engines at their defaults (`plackett classify fit … --model-out`);
the 95% intervals of the normalised weights λ/Σλ (over all classes and
transforms, as the report draws them) from the sampler's kept draws and
from 4,000 draws of VB's approximation, compared for every weight whose
posterior mean is above 1%:

* `linear_response`: what `classify fit --engine vb` draws by default
  (re-implemented here with scipy): Gamma marginals whose log-variances
  are the linear-response covariance's diagonal (`q_log_cov`) about VB's
  E ln λ = ψ(shape) − ln rate, joined by a Gaussian copula with its
  correlations;
* `lognormal`: ln λ ~ N(E ln λ, q_log_cov), the same two moments with a
  Gaussian's symmetric shape (not what plackett draws; shown because the
  exact posterior's log-weights are skewed);
* `mean_field`: the Gamma factors themselves (`--covariance mean-field`,
  Archambeau & Caron 2012 §3.4 as stated).

Also the sds of the centred log-weights ln λ − mean(ln λ) against the
sampler's, which linear response targets directly, and the posterior
predictive class probabilities of every training row under each set of
draws against the sampler's (mean absolute difference): why predictions
keep averaging over the Gamma factors.

Usage (after .ci/run or cargo build --release):
    python3 bench/classify_vb_intervals.py
"""
import csv
import json
import os
import subprocess
import tempfile

import numpy as np
from scipy.optimize import brentq
from scipy.special import digamma, polygamma
from scipy.stats import gamma, norm

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.path.join(ROOT, "target", "release", "plackett")


def model(path, engine, out):
    subprocess.run([BIN, "classify", "fit", path, "--engine", engine, "--model-out", out],
                   check=True, capture_output=True)
    with open(out) as fh:
        return json.load(fh)


def main():
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("iris", "wine", "breast_cancer"):
            path = os.path.join(ROOT, "data", "uci", f"{name}.csv")
            v = model(path, "vb", os.path.join(tmp, "vb.json"))
            g = model(path, "gibbs", os.path.join(tmp, "gibbs.json"))
            gd = np.array([np.ravel(d) for d in g["draws"]])
            gd /= gd.sum(1, keepdims=True)
            shape, rate = np.ravel(v["q_shape"]), np.ravel(v["q_rate"])
            cov = np.array(v["q_log_cov"])
            m = shape.size
            mean = digamma(shape) - np.log(rate)
            mf = rng.gamma(shape, 1.0 / rate, size=(4000, m))
            ln = np.exp(rng.multivariate_normal(mean, cov, size=4000, method="cholesky"))
            sd = np.sqrt(np.diag(cov))
            a2 = np.array([brentq(lambda a: polygamma(1, a) - sd[q] ** 2, 1e-8, 1e8) for q in range(m)])
            b2 = np.exp(digamma(a2) - mean)
            z = rng.multivariate_normal(np.zeros(m), cov / np.outer(sd, sd), size=4000, method="cholesky")
            lr = gamma.ppf(norm.cdf(z), a2, scale=1.0 / b2)
            width = lambda d: np.percentile(d, 97.5, 0) - np.percentile(d, 2.5, 0)
            centred_sd = lambda d: np.std(np.log(d) - np.log(d).mean(1, keepdims=True), 0)
            keep = gd.mean(0) > 0.01
            out = {"data": name, "weights_above_1pct": int(keep.sum())}
            with open(path) as fh:
                rows = list(csv.DictReader(fh))
            x = np.array([[float(r[f]) for f in v["preprocess"]["features"]] for r in rows])
            zs = (x - np.array(v["preprocess"]["mean"])) / np.array(v["preprocess"]["sd"])
            wt = np.hstack([np.exp(zs), np.exp(-zs), np.ones((len(zs), 1))])
            k = len(v["classes"])

            def predictive(d):
                s = np.einsum("np,dkp->dnk", wt, d.reshape(len(d), k, -1))
                return (s / s.sum(2, keepdims=True)).mean(0)

            pg = predictive(gd)
            for label, vd in (("linear_response", lr), ("lognormal", ln), ("mean_field", mf)):
                r = width(vd / vd.sum(1, keepdims=True))[keep] / width(gd)[keep]
                s = centred_sd(vd)[keep] / centred_sd(gd)[keep]
                out[label] = {
                    "width_ratio_over_gibbs": {"median": round(float(np.median(r)), 3),
                                               "min": round(float(r.min()), 3),
                                               "max": round(float(r.max()), 3)},
                    "log_sd_ratio_median": round(float(np.median(s)), 3),
                    "max_abs_mean_difference": round(float(np.abs(
                        (vd / vd.sum(1, keepdims=True)).mean(0) - gd.mean(0)).max()), 4),
                    "predictive_mean_abs_difference": round(float(np.abs(
                        predictive(vd / vd.sum(1, keepdims=True)) - pg).mean()), 4)}
            print(json.dumps(out))


if __name__ == "__main__":
    main()
