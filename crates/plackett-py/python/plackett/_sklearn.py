"""scikit-learn's estimator base classes and input checks, or stand-ins
with the same behaviour when scikit-learn is not installed (the
estimators work without it)."""
from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ._checks import show

try:  # scikit-learn is optional: without it the estimator still works.
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import check_is_fitted

    try:
        from sklearn.utils.validation import validate_data as _sk_validate_data
    except ImportError:  # scikit-learn < 1.6
        def _sk_validate_data(est, X, y="no_validation", reset=True, **kw):
            return est._validate_data(X, y, reset=reset, **kw)

    def _validate_data(est, X, y="no_validation", reset=True, **kw):
        """scikit-learn's input checks, their messages on one line (some
        span three), with the same exception types."""
        try:
            return _sk_validate_data(est, X, y, reset=reset, **kw)
        except (ValueError, TypeError) as e:
            msg = " ".join(str(e).split())
            if msg == str(e):
                raise
            try:
                flat = type(e)(msg)
            except Exception:  # an exception type that takes other arguments
                raise e from None
            raise flat from None

    _HAVE_SKLEARN = True
except ImportError:  # pragma: no cover - exercised only without sklearn
    _HAVE_SKLEARN = False

    class ConvergenceWarning(UserWarning):  # type: ignore[no-redef]
        """An iterative fit stopped before its tolerance (scikit-learn's name)."""

    class BaseEstimator:  # type: ignore[no-redef]
        """get_params/set_params as scikit-learn defines them."""

        def get_params(self, deep: bool = True) -> dict:
            names = [p for p in inspect.signature(type(self).__init__).parameters if p != "self"]
            return {k: getattr(self, k) for k in names}

        def set_params(self, **params: Any) -> "BaseEstimator":
            valid = self.get_params()
            for k, v in params.items():
                if k not in valid:
                    raise ValueError(f"invalid parameter {show(k)} for {type(self).__name__}")
                setattr(self, k, v)
            return self

    class ClassifierMixin:  # type: ignore[no-redef]
        def score(self, X, y) -> float:
            return float(np.mean(self.predict(X) == np.asarray(y)))

    def check_classification_targets(y):  # type: ignore[no-redef]
        if np.asarray(y).dtype.kind == "f" and not np.all(np.mod(y, 1) == 0):
            raise ValueError("Unknown label type: continuous")

    def check_is_fitted(est, attrs=None):  # type: ignore[no-redef]
        if not hasattr(est, "model_"):
            raise ValueError(f"This {type(est).__name__} instance is not fitted yet; call fit first")

    def _validate_data(est, X, y="no_validation", reset=True, **kw):  # type: ignore[no-redef]
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"Expected 2D array, got {X.ndim}D array instead")
        if reset:
            est.n_features_in_ = X.shape[1]
        if isinstance(y, str) and y == "no_validation":
            return X
        return X, np.asarray(y)
