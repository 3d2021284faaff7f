//! Progress bar on standard error for long runs: appears only after about a
//! second and only when standard error is a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// A lazily shown progress bar.
pub struct Progress {
    inner: Arc<Inner>,
}

struct Inner {
    total: u64,
    done: AtomicU64,
    start: Instant,
    label: &'static str,
    bar: Mutex<Option<ProgressBar>>,
    enabled: bool,
}

impl Progress {
    /// A bar for `total` units.
    pub fn new(total: u64, label: &'static str) -> Progress {
        Progress {
            inner: Arc::new(Inner {
                total,
                done: AtomicU64::new(0),
                start: Instant::now(),
                label,
                bar: Mutex::new(None),
                enabled: std::io::stderr().is_terminal(),
            }),
        }
    }

    /// Callback for the library: add `k` finished units.
    pub fn callback(&self) -> Arc<dyn Fn(usize) + Send + Sync> {
        let inner = self.inner.clone();
        Arc::new(move |k| {
            let done = inner.done.fetch_add(k as u64, Ordering::Relaxed) + k as u64;
            if !inner.enabled || inner.start.elapsed().as_millis() < 1000 {
                return;
            }
            let mut g = inner.bar.lock().expect("progress lock");
            let bar = g.get_or_insert_with(|| {
                let b =
                    ProgressBar::with_draw_target(Some(inner.total), ProgressDrawTarget::stderr());
                b.set_style(
                    ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({eta} left)")
                        .expect("template")
                        .progress_chars("=> "),
                );
                b.set_message(inner.label);
                b
            });
            bar.set_position(done.min(inner.total));
        })
    }

    /// Remove the bar.
    pub fn finish(&self) {
        if let Some(b) = self.inner.bar.lock().expect("progress lock").take() {
            b.finish_and_clear();
        }
    }
}
