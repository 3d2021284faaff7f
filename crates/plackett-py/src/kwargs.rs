//! Keyword arguments read into a library spec in one place (issue: "Python
//! keyword arguments go through one `Spec::from_kwargs`-style path"): each
//! setting is taken by name, absent or `None` means the library's
//! default, and a keyword no setting took is a `TypeError` naming it and
//! the valid ones — so two functions sharing a spec share its reading too.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The keyword arguments of one call, read by name.
pub struct Kwargs<'a, 'py> {
    dict: Option<&'a Bound<'py, PyDict>>,
    /// Every name asked for, for the unknown-keyword message.
    known: Vec<&'static str>,
    function: &'static str,
}

impl<'a, 'py> Kwargs<'a, 'py> {
    /// The `**kwargs` of `function`.
    pub fn new(function: &'static str, dict: Option<&'a Bound<'py, PyDict>>) -> Self {
        Kwargs {
            dict,
            known: Vec::new(),
            function,
        }
    }

    /// The value given for `name` (None if absent or `None`), converted to
    /// `T`; a value of the wrong type is a `TypeError` naming `name`.
    pub fn get<T>(&mut self, name: &'static str) -> PyResult<Option<T>>
    where
        T: for<'b> FromPyObject<'b, 'py>,
        for<'b> <T as FromPyObject<'b, 'py>>::Error: Into<PyErr>,
    {
        self.known.push(name);
        let Some(d) = self.dict else { return Ok(None) };
        match d.get_item(name)? {
            None => Ok(None),
            Some(v) if v.is_none() => Ok(None),
            Some(v) => v.extract::<T>().map(Some).map_err(|e| {
                let e: PyErr = e.into();
                let py = v.py();
                let msg = e.value(py).to_string();
                if msg.starts_with(name) {
                    // The type's own extractor named the argument.
                    e
                } else if e.is_instance_of::<PyTypeError>(py) {
                    let ty = v
                        .get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_else(|_| "value".into());
                    PyTypeError::new_err(format!(
                        "{name}: expected {}, got {ty}",
                        python_type::<T>()
                    ))
                } else {
                    // Out of range (a negative count, an int too large).
                    PyValueError::new_err(format!("{name}: {msg}"))
                }
            }),
        }
    }

    /// [`Kwargs::get`], or `default`.
    pub fn or<T>(&mut self, name: &'static str, default: T) -> PyResult<T>
    where
        T: for<'b> FromPyObject<'b, 'py>,
        for<'b> <T as FromPyObject<'b, 'py>>::Error: Into<PyErr>,
    {
        Ok(self.get(name)?.unwrap_or(default))
    }

    /// Refuse any keyword no setting asked for.
    pub fn finish(self) -> PyResult<()> {
        let Some(d) = self.dict else { return Ok(()) };
        for key in d.keys() {
            let key: String = key.extract()?;
            if !self.known.contains(&key.as_str()) {
                let mut valid = self.known.clone();
                valid.sort_unstable();
                return Err(PyTypeError::new_err(format!(
                    "{}() got an unexpected keyword argument '{key}' (valid: {})",
                    self.function,
                    valid.join(", ")
                )));
            }
        }
        Ok(())
    }
}

/// What a Rust type is called in a Python message.
fn python_type<T>() -> &'static str {
    match std::any::type_name::<T>() {
        "usize" | "u64" | "u32" => "a non-negative integer",
        "i64" | "i32" => "an integer",
        "f64" => "a number",
        "bool" => "True or False",
        "alloc::string::String" => "a string",
        _ => "a value of another type",
    }
}
