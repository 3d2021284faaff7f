"""vMMIC (Hu 2024, ch. 2) as a scikit-learn classifier of bags, in the
convention of the Python MIL packages (``fit(bags, y)`` with a bag an array
of instances). All numerics run in the Rust library: this module validates
the bags, writes them in the long layout ``plackett mil`` reads and maps
the answers back to the caller's order."""
from __future__ import annotations

import warnings
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ._checks import native as _plackett
from ._checks import count, show

from ._sklearn import BaseEstimator, ClassifierMixin, ConvergenceWarning, check_classification_targets, check_is_fitted

#: The engines' defaults, defined once in the Rust library
#: (``mil::MilEngineSettings::default``) and read by ``plackett mil fit`` too.
_DEFAULTS = _plackett.mil_defaults()


def _modality(a: Any, bag: int, m: int) -> Optional[np.ndarray]:
    """One modality's instances of bag `bag` as a float (rows × features)
    array, or None when it has none."""
    if a is None:
        return None
    try:
        x = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"bag {bag}, modality {m}: expected a numeric array ({e})") from None
    if x.ndim == 1 and x.size == 0:
        return None
    if x.ndim != 2:
        raise ValueError(f"bag {bag}, modality {m}: expected a 2-D array (instances × features), got {x.ndim}-D")
    if x.shape[0] == 0:
        return None
    if not np.all(np.isfinite(x)):
        raise ValueError(f"bag {bag}, modality {m}: features must be finite (NaN or infinity found)")
    return x


def _split(bags: Any) -> List[Tuple[Optional[np.ndarray], Optional[np.ndarray]]]:
    """Each bag as (modality 0, modality 1): a 2-D array (or list of rows)
    is a unimodal bag, a tuple of two arrays (either may be None or empty)
    a two-modality one."""
    if isinstance(bags, np.ndarray) and bags.dtype != object:
        # A 3-D array is bags of equal size: (bags, instances, features).
        if bags.ndim != 3:
            raise TypeError(
                "bags: expected a sequence of bags (one 2-D array, or a pair of them, per bag), "
                f"or a 3-D array (bags × instances × features); got a {bags.ndim}-D array")
        bags = list(bags)
    if not isinstance(bags, Sequence) and not isinstance(bags, np.ndarray):
        raise TypeError("bags: expected a sequence of bags (one 2-D array, or a pair of them, per bag)")
    out = []
    for i, b in enumerate(bags):
        # A tuple is a pair of modalities; a list or array is one bag's
        # instance rows (so a list of two rows stays a bag of two instances).
        if isinstance(b, tuple):
            if len(b) != 2:
                raise ValueError(f"bag {i}: a tuple must be a pair (modality 0, modality 1), got {len(b)} entries")
            pair = (_modality(b[0], i, 0), _modality(b[1], i, 1))
        else:
            pair = (_modality(b, i, 0), None)
        if pair[0] is None and pair[1] is None:
            raise ValueError(f"bag {i} has no instances: every bag needs at least one")
        out.append(pair)
    if not out:
        raise ValueError("bags: no bags")
    return out


def _widths(pairs, fitted: Optional[Tuple[int, int]] = None) -> Tuple[int, int]:
    widths = list(fitted) if fitted is not None else [-1, -1]
    for i, pair in enumerate(pairs):
        for m, x in enumerate(pair):
            if x is None:
                continue
            if widths[m] < 0:
                widths[m] = x.shape[1]
            elif x.shape[1] != widths[m]:
                what = "the fitted bags'" if fitted is not None else "earlier bags'"
                raise ValueError(
                    f"bag {i}, modality {m}: {x.shape[1]} features, {what} {widths[m]}"
                )
    return (max(widths[0], 0), max(widths[1], 0))


class _LongTable:
    """The long CSV (``bag,label,modality,m0_…,m1_…``) the readers take, in
    the shape of a pandas frame (``columns``, ``to_csv``)."""

    def __init__(self, pairs, labels: Optional[np.ndarray], widths: Tuple[int, int]):
        d0, d1 = widths
        self.columns = (["bag", "label", "modality"] + [f"m0_f{k + 1}" for k in range(d0)]
                        + [f"m1_f{k + 1}" for k in range(d1)])
        lines = [",".join(self.columns)]
        # (bag, modality, row within the modality) of every data row.
        self.rows: List[Tuple[int, int, int]] = []
        for i, pair in enumerate(pairs):
            label = "" if labels is None else str(int(labels[i]))
            for m, x in enumerate(pair):
                if x is None:
                    continue
                blank0, blank1 = [""] * d0, [""] * d1
                for r, row in enumerate(x):
                    # repr: the shortest text that reads back as the same float.
                    vals = [repr(float(v)) for v in row]
                    cells = (vals + blank1) if m == 0 else (blank0 + vals)
                    lines.append(",".join([f"b{i}", label, str(m)] + cells))
                    self.rows.append((i, m, r))
        self._text = "\n".join(lines) + "\n"

    def to_csv(self, index: bool = False) -> str:
        return self._text


class MILClassifier(ClassifierMixin, BaseEstimator):
    """Multiple-instance classifier of bags with one or two modalities:
    vMMIC, the two-level probit model of Hu 2024 (ch. 2) fitted by
    variational Bayes, or its exact posterior by Gibbs sampling.

    A bag's label is driven by its primary instances: instance ``j`` is
    primary with probability ``Φ(a + x_j b)`` (modality 0; ``c + z_j d`` for
    modality 1) and the bag is positive with probability
    ``Φ(α + Σ_j δ_j x_j β + …)``.

    ``fit(bags, y)``: ``bags`` is a sequence with one entry per bag, either
    a 2-D array or list of rows (instances × features; one modality,
    ordinary MIL) or a tuple ``(X0, X1)`` of such arrays for the two
    modalities (either may be None or have no rows); bags of equal size
    may come as one 3-D array (bags × instances × features). ``y`` has two
    classes. ``predict_proba(bags)`` gives
    the posterior predictive bag probabilities (columns in the order of
    ``classes_``), ``instance_proba(bags)`` every instance's posterior
    probability of being primary.

    Parameters
    ----------
    engine : "vb" | "gibbs"
        vMMIC's coordinate ascent (fast) or the Gibbs sampler (the gold
        standard; slow).
    standardize : bool
        Z-score every feature on the training bags first.
    standardise : bool or None
        The same option under its earlier spelling; when given it takes
        the place of ``standardize``.
    components : int or None
        Replace each modality's features by their leading principal
        components (from its default start vMMIC does not need it; from
        ``vb_start="prior"`` on wide features it does; docs/mil.md).
    intercept_var, slope_var : float
        Prior variances of the intercepts and slopes (Hu 2024 §2.2.1: 16, 4).
    tol, max_iter, starts, vb_start
        vMMIC's stopping rule, sweep cap, random starts and first start
        ("marginal", "prior", "moments").
    mixture : int or None
        Fit this many vMMIC optima (the first from ``vb_start``, the others
        from starts drawn around it) and predict from their equal-weight
        mixture (``--mixture``; instead of ``starts``); docs/mil.md.
    covariance : "mean-field" | "linear-response"
        The covariance vMMIC's model reports and predicts with: the
        instance level's linear-response correction (Giordano, Broderick &
        Jordan 2015; ``--covariance``), about the exact posterior's scale
        (the default), or the mean-field factors' own (Hu 2024's vMMIC,
        instance-level sds about 1/25 of the exact posterior's);
        docs/mil.md.
    samples, burn_in, thin, chains, gibbs_start
        The sampler's settings.
    draws : int
        Monte Carlo draws per bag for the predictive probabilities.
    seed : int
        Seed of the sampler, the random starts and the predictive draws.

    Attributes
    ----------
    classes_ : ndarray
        The two labels; ``classes_[1]`` is the positive class.
    model_ : MilModel
        The fitted model (``model_.to_json()`` is ``plackett mil fit
        --out``'s file).
    n_features_in_ : tuple of int
        Features per modality seen in ``fit``.
    primary_ : list of (ndarray, ndarray)
        Per training bag, each instance's posterior probability of being
        primary given the training data, its label included (modality 0,
        modality 1, in the order the bag gave them); ``instance_proba``
        gives the probability without the label, as for a new bag.
    fit_ : MilFit
        The fit (its document, notes and diagnostics).
    """

    def __init__(
        self,
        engine: str = "vb",
        standardize: bool = False,
        components: Optional[int] = None,
        intercept_var: float = _DEFAULTS["intercept_var"],
        slope_var: float = _DEFAULTS["slope_var"],
        tol: float = _DEFAULTS["tol"],
        max_iter: int = _DEFAULTS["max_iter"],
        starts: int = _DEFAULTS["starts"],
        mixture: Optional[int] = None,
        vb_start: str = _DEFAULTS["vb_start"],
        covariance: str = _DEFAULTS["covariance"],
        samples: int = _DEFAULTS["samples"],
        burn_in: int = _DEFAULTS["burn_in"],
        thin: int = _DEFAULTS["thin"],
        chains: int = _DEFAULTS["chains"],
        gibbs_start: str = _DEFAULTS["gibbs_start"],
        draws: int = 1000,
        seed: int = _DEFAULTS["seed"],
        standardise: Optional[bool] = None,
    ):
        self.engine = engine
        self.standardize = standardize
        self.standardise = standardise
        self.components = components
        self.intercept_var = intercept_var
        self.slope_var = slope_var
        self.tol = tol
        self.max_iter = max_iter
        self.starts = starts
        self.mixture = mixture
        self.vb_start = vb_start
        self.covariance = covariance
        self.samples = samples
        self.burn_in = burn_in
        self.thin = thin
        self.chains = chains
        self.gibbs_start = gibbs_start
        self.draws = draws
        self.seed = seed

    def fit(self, bags: Any, y: Any) -> "MILClassifier":
        """Fit on training bags and their labels."""
        pairs = _split(bags)
        y = np.asarray(y)
        if y.ndim != 1 or len(y) != len(pairs):
            raise ValueError(f"y: expected one label per bag ({len(pairs)}), got shape {y.shape}")
        check_classification_targets(y)
        classes, codes = np.unique(y, return_inverse=True)
        if len(classes) != 2:
            raise ValueError(f"MILClassifier needs labels of exactly 2 classes, got {len(classes)}: {show(classes.tolist())}")
        widths = _widths(pairs)
        table = _LongTable(pairs, codes, widths)
        fit = _plackett.mil_fit(
            "<bags>",
            table.to_csv(),
            engine=self.engine,
            standardize=bool(self.standardize if self.standardise is None else self.standardise),
            components=None if self.components is None else count("components", self.components, lenient=True),
            intercept_var=float(self.intercept_var),
            slope_var=float(self.slope_var),
            tol=float(self.tol),
            max_iter=count("max_iter", self.max_iter, lenient=True),
            starts=count("starts", self.starts, lenient=True),
            mixture=None if self.mixture is None else count("mixture", self.mixture, lenient=True),
            vb_start=self.vb_start,
            covariance=self.covariance,
            gibbs_start=self.gibbs_start,
            samples=count("samples", self.samples, lenient=True),
            burn_in=count("burn_in", self.burn_in, lenient=True),
            thin=count("thin", self.thin, lenient=True),
            chains=count("chains", self.chains, lenient=True),
            seed=count("seed", self.seed, lenient=True),
        )
        self.model_ = fit.model()
        self.fit_ = fit
        # scikit-learn's convention for an iterative fit that did not settle.
        if not fit.converged and self.engine == "vb":
            warnings.warn(
                f"MILClassifier: vMMIC stopped at max_iter={self.max_iter} sweeps before its tolerance "
                f"tol={self.tol}; raise max_iter (fit_.notes, fit_.to_json() say more)",
                ConvergenceWarning,
                stacklevel=2,
            )
        for note in fit.notes:
            if note.startswith("MCMC warning"):
                warnings.warn(f"MILClassifier: {note}", ConvergenceWarning, stacklevel=2)
        # The training instances' posterior P(primary | data), labels
        # included, back in the caller's shape (the long table lists the
        # bags' rows in order, as fit.primary does).
        primary = [[np.zeros(0 if x is None else x.shape[0]) for x in pair] for pair in pairs]
        for p, (bag, m, r) in zip(np.asarray(fit.primary, dtype=np.float64), table.rows):
            primary[bag][m][r] = p
        self.primary_ = [(a, b) for a, b in primary]
        self.classes_ = classes
        self.n_features_in_ = widths
        return self

    def report(self, path: Any, bag: Optional[int] = None) -> None:
        """Write the HTML report of the fit (as ``plackett mil fit
        --report``: training ROC curves, coefficient intervals, the
        instances of one bag with their posterior probability of being
        primary) to ``path``. ``bag``: the index of a training bag (in the
        order ``fit`` was given them) whose instances are listed; the most
        probable bag when None. Instances are numbered within their bag and
        modality, with their probabilities given the label (``primary_``).
        Nothing is written if it fails."""
        check_is_fitted(self, "fit_")
        if bag is not None:
            bag = count("bag", bag)
        self.fit_._classifier_report(path, bag=bag)

    def _predict(self, bags: Any):
        if not hasattr(self, "model_"):
            raise ValueError(f"This {type(self).__name__} instance is not fitted yet; call fit first")
        pairs = _split(bags)
        table = _LongTable(pairs, None, _widths(pairs, self.n_features_in_))
        pred = self.model_.predict(table, draws=count("draws", self.draws, lenient=True), seed=count("seed", self.seed, lenient=True))
        return pairs, table, pred

    def predict_proba(self, bags: Any) -> np.ndarray:
        """Posterior predictive probabilities, columns in the order of ``classes_``."""
        pairs, _, pred = self._predict(bags)
        # The bags are named b0, b1, … in the caller's order.
        p = np.empty(len(pairs))
        for name, v in zip(pred.bags, np.asarray(pred.p, dtype=np.float64)):
            p[int(name[1:])] = v
        return np.column_stack([1.0 - p, p])

    def predict(self, bags: Any) -> np.ndarray:
        """The more probable label of every bag."""
        p = self.predict_proba(bags)[:, 1]
        return self.classes_[(p > 0.5).astype(int)]

    def decision_function(self, bags: Any) -> np.ndarray:
        """The positive class's probability (for ROC curves and AUROC)."""
        return self.predict_proba(bags)[:, 1]

    def instance_proba(self, bags: Any) -> List[Tuple[np.ndarray, np.ndarray]]:
        """Per bag, each instance's posterior probability of being primary:
        a pair of arrays (modality 0, modality 1) in the order the bag gave
        its instances (an empty array for a missing modality)."""
        pairs, table, pred = self._predict(bags)
        out = [
            [np.zeros(0 if x is None else x.shape[0]) for x in pair] for pair in pairs
        ]
        for _, row, _, p in pred.instances():
            bag, m, r = table.rows[row]
            out[bag][m][r] = p
        return [(a, b) for a, b in out]
