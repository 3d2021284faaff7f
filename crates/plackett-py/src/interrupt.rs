//! Long computations without the GIL that still honour Ctrl-C.
//!
//! Python runs signal handlers only on the main thread, and only when that
//! thread executes Python code; a fit that holds the main thread inside
//! Rust would never see Ctrl-C. So the work runs on a helper thread with a
//! [`CancelFlag`] as its observer, while the calling thread waits with the
//! GIL released and, every 50 ms, takes it back just long enough to run
//! `PyErr_CheckSignals`. A pending KeyboardInterrupt raises the flag, the
//! engine stops at its next progress report, and the interrupt propagates.

use plackett::observer::{CancelFlag, SharedObserver};
use pyo3::prelude::*;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

/// Run `work` (given the observer it must report to) with the GIL
/// released; Ctrl-C cancels it and raises `KeyboardInterrupt`.
pub fn run<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(Option<SharedObserver>) -> plackett::Result<T> + Send,
) -> PyResult<T> {
    let flag = CancelFlag::default();
    let observer: SharedObserver = Arc::new(flag.clone());
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel();
        s.spawn(move || {
            // The receiver outlives the sender unless the caller unwinds.
            let _ = tx.send(work(Some(observer)));
        });
        let mut interrupt: Option<PyErr> = None;
        let mut rx = rx;
        loop {
            // The receiver moves in and out: the GIL-free closure must be Send.
            let (got, back) = py.detach(move || (rx.recv_timeout(Duration::from_millis(50)), rx));
            rx = back;
            match got {
                Ok(out) => {
                    return match (out, interrupt) {
                        (_, Some(e)) => Err(e),
                        (Ok(v), None) => Ok(v),
                        (Err(e), None) => Err(crate::err(e)),
                    };
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if interrupt.is_none()
                        && let Err(e) = py.check_signals()
                    {
                        flag.cancel();
                        interrupt = Some(e);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(pyo3::exceptions::PyRuntimeError::new_err(
                        "the computation thread stopped without a result",
                    ));
                }
            }
        }
    })
}
