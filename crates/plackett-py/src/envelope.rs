//! The document envelope (`plackett::document`) as a Python dict: every
//! result class has an `envelope` attribute, and `plackett/__init__.py`
//! gives each of them the envelope's keys as attributes where the class
//! has none of its own.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;

/// A JSON value as the Python object `json.loads` would make of it (typed
/// data, no text on the way).
pub(crate) fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(to_py(py, x)?)?;
            }
            l.into_any()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// The envelope as a dict, keys in the documents' order.
pub(crate) fn dict<'py>(
    py: Python<'py>,
    env: &plackett::document::Envelope,
) -> PyResult<Bound<'py, PyAny>> {
    to_py(
        py,
        &serde_json::to_value(env).expect("the envelope serialises"),
    )
}
