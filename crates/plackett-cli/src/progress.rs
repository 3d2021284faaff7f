//! Progress bar on standard error for long runs: appears only after about a
//! second and only when standard error is a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use plackett::observer::{Observer, SharedObserver};
use std::io::IsTerminal;
use std::ops::ControlFlow;
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

    /// The bar as the library's observer: `advance(k)` adds `k` units.
    pub fn observer(&self) -> SharedObserver {
        self.inner.clone()
    }

    /// Remove the bar.
    pub fn finish(&self) {
        if let Some(b) = self.inner.bar.lock().expect("progress lock").take() {
            b.finish_and_clear();
        }
    }
}

impl Observer for Inner {
    fn advance(&self, k: usize) -> ControlFlow<()> {
        let done = self.done.fetch_add(k as u64, Ordering::Relaxed) + k as u64;
        if !self.enabled || self.start.elapsed().as_millis() < 1000 {
            return ControlFlow::Continue(());
        }
        let mut g = self.bar.lock().expect("progress lock");
        let done = done.min(self.total);
        // The time left from the run's own average rate since it started:
        // the bar appears a second in, after a jump, where a rate estimated
        // from the bar's first updates said "0s left".
        let left = {
            let secs = self.start.elapsed().as_secs_f64();
            if done == 0 {
                "estimating".to_string()
            } else {
                let rest = secs * (self.total - done) as f64 / done as f64;
                format!(
                    "{} left",
                    indicatif::HumanDuration(std::time::Duration::from_secs_f64(rest))
                )
            }
        };
        let bar = g.get_or_insert_with(|| {
            let b = ProgressBar::with_draw_target(Some(self.total), ProgressDrawTarget::hidden())
                .with_position(done)
                .with_prefix(left.clone());
            b.set_style(
                ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({prefix})")
                    .expect("template")
                    .progress_chars("=> "),
            );
            b.set_message(self.label);
            // Drawn only once message, prefix and position are set.
            b.set_draw_target(ProgressDrawTarget::stderr());
            b
        });
        bar.set_prefix(left);
        bar.set_position(done);
        ControlFlow::Continue(())
    }
}
