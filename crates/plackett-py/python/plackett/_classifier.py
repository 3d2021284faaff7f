"""The Plackett-Luce regression classifier (Archambeau & Caron 2012) as a
scikit-learn estimator. All numerics run in the Rust library; this module
validates inputs the scikit-learn way and encodes labels."""
from __future__ import annotations

import warnings
from typing import Any, Optional, Union

import numpy as np

from ._checks import native as _plackett
from ._checks import count, real, reals, show

from ._sklearn import (
    BaseEstimator,
    ClassifierMixin,
    ConvergenceWarning,
    _validate_data,
    check_classification_targets,
    check_is_fitted,
)


#: The classifier's defaults, defined once in the Rust library
#: (``classify::FitOptions::default``) and read by the CLI as well.
DEFAULTS = _plackett.classifier_defaults()
ENGINES = tuple(_plackett.classifier_engines())


def _engine(name: str, value: Any) -> str:
    """A valid engine, or ValueError naming the parameter the user passed."""
    if not isinstance(value, str) or value not in ENGINES:
        raise ValueError(f"{name}: expected {', '.join(ENGINES[:-1])} or {ENGINES[-1]}, got {show(value)}")
    return value


def _renamed(new_name: str, new: Any, default: Any, old_name: str, old: Any) -> Any:
    """``new``, or the value given under the parameter's old name (accepted
    as ``--a``/``--b`` are in the CLI); both given (``new`` not at its
    ``default``) and different is an error."""
    if old is None:
        return new
    if new != default and new != old:
        raise ValueError(f"{old_name}={show(old)} and {new_name}={show(new)} disagree ({old_name} is the old name of {new_name})")
    return old


def _shape(a: Any, engine: str) -> Optional[float]:
    """The Gamma shape for the extension: a positive number, or None to learn it."""
    if isinstance(a, str):
        if a != "learn":
            raise ValueError(f"prior_shape (a): expected a positive number or 'learn', got {show(a)}")
        if engine == "em":
            raise ValueError("prior_shape='learn' needs engine='gibbs' or 'vb' (em fixes the shape)")
        return None
    if a is None:
        raise TypeError("prior_shape (a): expected a positive number or 'learn', got None")
    a = float(a)
    if not (np.isfinite(a) and a > 0):
        raise ValueError(f"prior_shape (a): the Gamma shape must be positive, got {a}")
    return a


class PLClassifier(ClassifierMixin, BaseEstimator):
    """Plackett-Luce regression classifier (Archambeau & Caron 2012).

    ``P(y = k | x) = W(x)ᵀλ_k / Σ_l W(x)ᵀλ_l`` with non-negative weights
    λ under a Gamma(a, b) prior and the transforms ``exp(±x_j)`` and an
    offset of standardised features (§2); ``pairwise=True`` adds
    ``exp(±(x_a + x_b))`` (§5).

    Parameters and defaults are the CLI's (``plackett classify fit``), both
    read from the library.

    Parameters
    ----------
    engine : "vb" | "em" | "gibbs"
        Variational Bayes (§3.4; the default: posterior means and
        linear-response weight intervals as wide as the sampler's), EM for
        the MAP (§3.2; sparse for a < 1) or the Gibbs sampler (§3.3;
        posterior predictive from the kept draws).
    prior_shape : float or "learn"
        Gamma shape a, 1 by default for every engine (``--prior-shape``);
        ``"learn"`` samples it under p(a) ∝ 1/a (gibbs) or fits it by
        type-II maximum likelihood (vb). A learnt shape is small and very
        sparse, and single weights then mix slowly.
    prior_rate : float
        Gamma rate b (``--prior-rate``).
    pairwise : bool
        Add the pairwise transforms.
    samples, burn_in, chains, thin : int
        Gibbs settings (draws kept per chain, burn-in sweeps, chains, keep
        every ``thin``-th sweep); the defaults, 4 × 5,000 thinned by 2,
        pass R̂ ≤ 1.01 and ESS ≥ 400 on Iris, Wine and breast cancer.
    seed : int
        Seed of the Gibbs sampler and of VB's Monte Carlo predictive.
    covariance : "linear-response" | "mean-field"
        VB only: the covariance of the log-weights behind its weight
        intervals (``weight_interval``, ``report``,
        ``model_.log_weight_cov``): the linear-response correction
        (Giordano, Broderick & Jordan 2015; the default, as wide as the
        Gibbs sampler's on Iris and Wine at a fixed shape ``a``; still too
        narrow with ``a="learn"``) or the Gamma factors' own
        (Archambeau & Caron 2012 §3.4 as stated, about half as wide).
        Means and predictions are the same either way. Ignored by em and
        gibbs.
    method, a, b :
        The old names of ``engine``, ``prior_shape`` and ``prior_rate``,
        still accepted.

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
        engine: str = DEFAULTS["engine"],
        prior_shape: Union[float, str] = DEFAULTS["prior_shape"],
        prior_rate: float = DEFAULTS["prior_rate"],
        pairwise: bool = DEFAULTS["pairwise"],
        samples: int = DEFAULTS["samples"],
        burn_in: int = DEFAULTS["burn_in"],
        chains: int = DEFAULTS["chains"],
        thin: int = DEFAULTS["thin"],
        seed: int = DEFAULTS["seed"],
        covariance: str = "linear-response",
        method: Optional[str] = None,
        a: Union[float, str, None] = None,
        b: Optional[float] = None,
    ):
        self.engine = engine
        self.prior_shape = prior_shape
        self.prior_rate = prior_rate
        self.pairwise = pairwise
        self.samples = samples
        self.burn_in = burn_in
        self.chains = chains
        self.thin = thin
        self.seed = seed
        self.covariance = covariance
        self.method = method
        self.a = a
        self.b = b

    def _prior(self):
        """(engine, shape, rate) with the old names resolved."""
        return (
            _engine(
                "engine" if self.method is None else "method",
                _renamed("engine", self.engine, DEFAULTS["engine"], "method", self.method),
            ),
            _renamed("prior_shape", self.prior_shape, DEFAULTS["prior_shape"], "a", self.a),
            _renamed("prior_rate", self.prior_rate, DEFAULTS["prior_rate"], "b", self.b),
        )

    def fit(self, X: Any, y: Any) -> "PLClassifier":
        """Fit on features X (n_samples, n_features) and labels y."""
        X, y = _validate_data(self, X, y, dtype=np.float64, y_numeric=False, multi_output=False)
        check_classification_targets(y)
        classes, codes = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError(
                f"PLClassifier needs samples of at least 2 classes in the data, but the data contain only one class: {show(classes[0])}"
            )
        engine, shape, rate = self._prior()
        self.model_ = _plackett.classifier_fit(
            np.ascontiguousarray(X, dtype=np.float64),
            np.ascontiguousarray(codes.ravel(), dtype=np.int64),
            n_classes=len(classes),
            engine=engine,
            prior_shape=_shape(shape, engine),
            prior_rate=float(rate),
            pairwise=bool(self.pairwise),
            samples=count("samples", self.samples, lenient=True),
            burn_in=count("burn_in", self.burn_in, lenient=True),
            chains=count("chains", self.chains, lenient=True),
            thin=count("thin", self.thin, lenient=True),
            seed=count("seed", self.seed, lenient=True),
            feature_names=[str(c) for c in self.feature_names_in_] if hasattr(self, "feature_names_in_") else None,
            covariance=self.covariance if engine == "vb" else None,
        )
        self.classes_ = classes
        self.weights_ = self.model_.weights
        self.transforms_ = self.model_.transforms
        # scikit-learn's convention for an iterative fit stopped by its cap
        # (the model is kept). Not for Gibbs: its single weights mix slowly
        # (model_.converged is then False, as the fit document's MCMC note
        # says), while the predictive probabilities a classifier returns mix
        # much faster (docs/classify.md).
        if engine != "gibbs" and not self.model_.converged:
            warnings.warn(
                f"PLClassifier: engine={engine!r} stopped at its iteration cap before its tolerance",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities, columns in the order of ``classes_``."""
        check_is_fitted(self, "model_")
        X = _validate_data(self, X, dtype=np.float64, reset=False)
        return self.model_.predict_proba(np.ascontiguousarray(X, dtype=np.float64))

    def report(self, path: Any, X: Any, y: Any) -> None:
        """Write the HTML page of ``plackett classify fit --report`` to
        ``path``: the fit's facts, every class's normalised weights with
        95% intervals (gibbs, vb), and how the classifier does on the rows
        ``X`` with labels ``y`` (the training rows, or held-out ones):
        confusion matrix, each row's probability of its true class,
        one-vs-rest ROC curves. Labels outside ``classes_`` raise; nothing
        is written if it fails."""
        check_is_fitted(self, "model_")
        X, y = _validate_data(self, X, y, dtype=np.float64, reset=False, y_numeric=False, multi_output=False)
        y = np.asarray(y).ravel()
        codes = np.searchsorted(self.classes_, y)
        codes = np.clip(codes, 0, len(self.classes_) - 1)
        unknown = self.classes_[codes] != y
        if np.any(unknown):
            raise ValueError(f"y: label {show(y[np.argmax(unknown)])} is not one of the classes seen in fit")
        self.model_.report(
            path,
            np.ascontiguousarray(X, dtype=np.float64),
            np.ascontiguousarray(codes, dtype=np.int64),
            [str(c) for c in self.classes_],
        )

    def weight_interval(self, level: float = 0.95) -> tuple:
        """Equal-tailed intervals of the normalised weights, ``(lo, hi)``,
        each of the shape of ``weights_``: from gibbs's kept draws or vb's
        draws (its linear-response posterior by default); em's MAP has no
        interval (``lo == hi``)."""
        check_is_fitted(self, "model_")
        level = float(level)
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must be in (0, 1), got {show(level)}")
        d = self.model_.weight_draws
        tail = 50.0 * (1.0 - level)
        return np.percentile(d, tail, axis=0), np.percentile(d, 100.0 - tail, axis=0)

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


class ClassifierPath:
    """A regularisation path of the PL regression classifier over the
    Gamma shape ``a`` (Archambeau & Caron 2012 §4.1, Fig. 2), as
    :func:`classify_path` returns it.

    Attributes
    ----------
    a : ndarray
        Values of ``a``, largest first (each fit starts from the previous).
    weights : ndarray, shape (len(a), n_classes, n_transforms)
        Normalised weights: the MAP (``em``; exact zeros appear as ``a``
        falls below 1) or the posterior mean (``vb``, ``gibbs``).
    median : ndarray or None
        Posterior medians (``gibbs``), shaped like ``weights``.
    zeros : ndarray
        Exact zeros at every ``a`` (``em``; 0 otherwise).
    log_posterior : ndarray
        Log-posterior on the support (``em``; NaN otherwise).
    classes : ndarray
        Class labels in order of first appearance in ``y`` (the rows of
        ``weights``; ``plackett classify path`` orders them the same way).
    transforms : list of str
        ``exp(+x)``, ``exp(-x)``, ``offset`` and pairwise transforms.
    stopped : str or None
        Why the path stopped before the end of the grid, if it did.
    """

    def __init__(self, native: Any, classes: np.ndarray):
        self._native = native
        self.classes = classes

    a = property(lambda self: self._native.a, doc="Values of ``a``, largest first.")
    weights = property(
        lambda self: self._native.weights,
        doc="Normalised weights, shape (len(a), n_classes, n_transforms): MAP (``em``) or posterior mean.",
    )
    median = property(lambda self: self._native.median, doc="Posterior medians (``gibbs``), else None.")
    zeros = property(lambda self: self._native.zeros, doc="Exact zeros at every ``a`` (``em``; 0 otherwise).")
    log_posterior = property(
        lambda self: self._native.log_posterior, doc="Log-posterior on the support (``em``; NaN otherwise)."
    )
    transforms = property(
        lambda self: self._native.transforms, doc="Names of the transforms: ``exp(+x)``, ``exp(-x)``, ``offset``, pairwise."
    )
    stopped = property(
        lambda self: self._native.stopped, doc="Why the path stopped before the end of the grid, or None."
    )

    def to_frame(self):
        """The path in long form (pandas): ``a``, ``class``, ``feature``,
        ``weight`` and for gibbs ``median``, rows as ``plackett classify
        path --out`` writes them."""
        import pandas as pd

        n_a, k, p = self.weights.shape
        frame = pd.DataFrame({
            "a": np.repeat(self.a, k * p),
            "class": np.tile(np.repeat(self.classes, p), n_a),
            "feature": np.tile(np.asarray(self.transforms, dtype=object), n_a * k),
            "weight": self.weights.reshape(-1),
        })
        if self.median is not None:
            frame["median"] = self.median.reshape(-1)
        return frame

    def to_csv(self) -> str:
        """The CSV ``plackett classify path --out`` writes (class labels as
        text)."""
        return self._native.to_csv()

    def to_table(self) -> str:
        """The table ``plackett classify path`` prints: a, zeros,
        log-posterior."""
        return self._native.to_table()

    def plot(self, path: Any) -> None:
        """Write the path plot (SVG, as ``--plot``): every class and
        transform's weight against ``a`` on a log scale."""
        self._native.plot(path)

    def __repr__(self) -> str:
        return repr(self._native)


def classify_path(
    X: Any,
    y: Any,
    a_grid: Any = "0.01:10:25",
    *,
    engine: str = "em",
    prior_rate: float = DEFAULTS["prior_rate"],
    pairwise: bool = False,
    seed: int = DEFAULTS["seed"],
    method: Optional[str] = None,
    b: Optional[float] = None,
) -> ClassifierPath:
    """The regularisation path of the PL regression classifier over the
    Gamma shape ``a`` (Archambeau & Caron 2012 §4.1, Fig. 2), as
    ``plackett classify path``: features standardised and transformed as in
    :class:`PLClassifier`, one fit per value of ``a`` from the largest down,
    each started from the previous one.

    ``a_grid``: ``"LO:HI:N"`` (N log-spaced values) or a sequence of
    positive numbers; ``engine``: ``"em"`` (MAP, exact zeros for ``a < 1``),
    ``"vb"`` or ``"gibbs"`` (posterior mean, and median for gibbs);
    ``prior_rate``: the Gamma rate b (``method`` and ``b`` are the old
    names of ``engine`` and ``prior_rate``, still accepted); ``pairwise``: add the pairwise transforms;
    ``seed``: the Gibbs sampler's. A pandas ``X`` names the transforms by
    its columns. The numbers equal the CLI's for the same data, class order
    and seed.
    """
    engine = _engine("engine" if method is None else "method", _renamed("engine", engine, "em", "method", method))
    prior_rate = _renamed("prior_rate", prior_rate, DEFAULTS["prior_rate"], "b", b)
    X_names = getattr(X, "columns", None)
    X, y = _validate_data(PLClassifier(), X, y, dtype=np.float64, y_numeric=False, multi_output=False)
    check_classification_targets(y)
    y = np.asarray(y).ravel()
    if isinstance(a_grid, (list, tuple, np.ndarray)):
        a_grid = ",".join(repr(v) for v in reals("a_grid", a_grid))
    elif not isinstance(a_grid, str):
        raise TypeError(f"a_grid: expected 'LO:HI:N' or a sequence of numbers, got {type(a_grid).__name__} {show(a_grid)}")
    if not isinstance(pairwise, (bool, np.bool_)):
        raise TypeError(f"pairwise: expected True or False, got {show(pairwise)}")
    uniques, first = np.unique(y, return_index=True)
    classes = uniques[np.argsort(first, kind="stable")]
    if len(classes) < 2:
        raise ValueError(f"classify_path needs samples of at least 2 classes, but y holds only {show(classes[0])}")
    labels = [str(v) for v in y]
    if len(set(str(c) for c in classes)) != len(classes):
        raise ValueError("y: two class labels print the same; use labels that differ as text")
    native = _plackett.classify_path(
        np.ascontiguousarray(X, dtype=np.float64),
        labels,
        a_grid=a_grid,
        engine=engine,
        prior_rate=real("prior_rate" if b is None else "b", prior_rate),
        pairwise=bool(pairwise),
        seed=count("seed", seed),
        feature_names=None if X_names is None else [str(c) for c in X_names],
    )
    return ClassifierPath(native, classes)
