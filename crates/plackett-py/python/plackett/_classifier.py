"""The Plackett-Luce regression classifier (Archambeau & Caron 2012) as a
scikit-learn estimator. All numerics run in the Rust library; this module
validates inputs the scikit-learn way and encodes labels."""
from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

from ._checks import native as _plackett
from ._checks import count, show

from ._sklearn import (
    BaseEstimator,
    ClassifierMixin,
    _validate_data,
    check_classification_targets,
    check_is_fitted,
)


def _shape(a: Any, method: str) -> Optional[float]:
    """The Gamma shape for the extension: a positive number, or None to learn it."""
    if isinstance(a, str):
        if a != "learn":
            raise ValueError(f"a: expected a positive number or 'learn', got {show(a)}")
        if method == "em":
            raise ValueError("a='learn' needs method='gibbs' or 'vb' (em fixes the shape)")
        return None
    if a is None:
        raise TypeError("a: expected a positive number or 'learn', got None")
    a = float(a)
    if not (np.isfinite(a) and a > 0):
        raise ValueError(f"a: the Gamma shape must be positive, got {a}")
    return a


class PLClassifier(ClassifierMixin, BaseEstimator):
    """Plackett-Luce regression classifier (Archambeau & Caron 2012).

    ``P(y = k | x) = W(x)ᵀλ_k / Σ_l W(x)ᵀλ_l`` with non-negative weights
    λ under a Gamma(a, b) prior and the transforms ``exp(±x_j)`` and an
    offset of standardised features (§2); ``pairwise=True`` adds
    ``exp(±(x_a + x_b))`` (§5).

    Parameters
    ----------
    method : "em" | "gibbs" | "vb"
        EM for the MAP (§3.2; sparse for a < 1), the Gibbs sampler (§3.3;
        posterior predictive from the kept draws) or variational Bayes
        (§3.4).
    a : float or "learn"
        Gamma shape, 1 by default for every method (as the CLI's
        ``--prior-shape``); ``"learn"`` samples it under p(a) ∝ 1/a (gibbs)
        or fits it by type-II maximum likelihood (vb). A learnt shape is
        small and very sparse, and single weights then mix slowly.
    b : float
        Gamma rate.
    pairwise : bool
        Add the pairwise transforms.
    samples, burn_in, chains : int
        Gibbs settings (draws kept per chain, burn-in sweeps, chains).
    seed : int
        Seed of the Gibbs sampler and of VB's Monte Carlo predictive.

    Attributes
    ----------
    classes_ : ndarray
        Class labels, sorted (scikit-learn's convention); columns of
        ``predict_proba``.
    n_features_in_ : int
        Number of features seen in ``fit``.
    weights_ : ndarray, shape (n_classes, n_transforms)
        Normalised weights (MAP or posterior mean).
    """

    def __init__(
        self,
        method: str = "em",
        a: Union[float, str] = 1.0,
        b: float = 1.0,
        pairwise: bool = False,
        samples: int = 1000,
        burn_in: int = 1000,
        chains: int = 2,
        seed: int = 1,
    ):
        self.method = method
        self.a = a
        self.b = b
        self.pairwise = pairwise
        self.samples = samples
        self.burn_in = burn_in
        self.chains = chains
        self.seed = seed

    def fit(self, X: Any, y: Any) -> "PLClassifier":
        """Fit on features X (n_samples, n_features) and labels y."""
        X, y = _validate_data(self, X, y, dtype=np.float64, y_numeric=False, multi_output=False)
        check_classification_targets(y)
        classes, codes = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(
                f"PLClassifier needs samples of at least 2 classes in the data, but the data contain only one class: {show(classes[0])}"
            )
        self.model_ = _plackett.classifier_fit(
            np.ascontiguousarray(X, dtype=np.float64),
            np.ascontiguousarray(codes.ravel(), dtype=np.int64),
            n_classes=len(classes),
            method=self.method,
            a=_shape(self.a, self.method),
            b=float(self.b),
            pairwise=bool(self.pairwise),
            samples=count("samples", self.samples, lenient=True),
            burn_in=count("burn_in", self.burn_in, lenient=True),
            chains=count("chains", self.chains, lenient=True),
            seed=count("seed", self.seed, lenient=True),
        )
        self.classes_ = classes
        self.weights_ = self.model_.weights
        self.transforms_ = self.model_.transforms
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities, columns in the order of ``classes_``."""
        check_is_fitted(self, "model_")
        X = _validate_data(self, X, dtype=np.float64, reset=False)
        return self.model_.predict_proba(np.ascontiguousarray(X, dtype=np.float64))

    def predict(self, X: Any) -> np.ndarray:
        """Most probable class of every row."""
        p = self.predict_proba(X)
        return self.classes_[np.argmax(p, axis=1)]

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """Log class probabilities."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def __sklearn_tags__(self):  # scikit-learn >= 1.6
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
