//! Progress bar on standard error for long runs: appears only after about a
//! second and only when standard error is a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use plackett::observer::{Observer, SharedObserver};
use std::io::IsTerminal;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// A lazily shown progress bar.
pub struct Progress {
    inner: Arc<Inner>,
}

/// How long a run goes before a bar appears: a second, or
/// `PLACKETT_PROGRESS_AFTER_MS` (the tests set 0 to see every bar).
fn delay_ms() -> u128 {
    std::env::var("PLACKETT_PROGRESS_AFTER_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

struct Inner {
    delay: u128,
    total: u64,
    done: AtomicU64,
    start: Instant,
    label: &'static str,
    bar: Mutex<Option<ProgressBar>>,
    enabled: bool,
    /// Said when every unit is done but the library is still working
    /// (summaries after the last sweep).
    after: &'static str,
}

impl Progress {
    /// A bar for `total` units.
    pub fn new(total: u64, label: &'static str) -> Progress {
        BARS.fetch_add(1, Ordering::AcqRel);
        Progress {
            inner: Arc::new(Inner {
                delay: delay_ms(),
                total,
                done: AtomicU64::new(0),
                start: Instant::now(),
                label,
                bar: Mutex::new(None),
                enabled: std::io::stderr().is_terminal(),
                after: "summarising",
            }),
        }
    }

    /// What the full bar says while the library finishes (default
    /// "summarising").
    pub fn after(mut self, what: &'static str) -> Progress {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.after = what;
        }
        self
    }

    /// A new phase after the counted work (summaries, report): on a
    /// terminal, once the run has taken a second, the bar gives way to a
    /// spinner saying `what`, so a long tail is never silent. Cleared by
    /// [`finish`](Self::finish) or on drop.
    pub fn phase(&self, what: &'static str) {
        if !self.inner.enabled || self.inner.start.elapsed().as_millis() < self.inner.delay {
            return;
        }
        let mut g = self.inner.bar.lock().expect("progress lock");
        if let Some(b) = g.take() {
            b.finish_and_clear();
        }
        let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        b.set_style(ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("template"));
        b.set_message(what);
        b.set_draw_target(ProgressDrawTarget::stderr());
        // Drawn now: the steady tick's first draw comes only after its
        // interval, and a phase shorter than that would never be shown.
        b.tick();
        b.enable_steady_tick(std::time::Duration::from_millis(120));
        *g = Some(b);
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

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
        BARS.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Observer for Inner {
    fn advance(&self, k: usize) -> ControlFlow<()> {
        let done = self.done.fetch_add(k as u64, Ordering::Relaxed) + k as u64;
        if !self.enabled || self.start.elapsed().as_millis() < self.delay {
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
        if done >= self.total {
            // The last unit is in; the library is summarising.
            bar.set_message(self.after);
        }
        ControlFlow::Continue(())
    }
}

/// Counted bars alive now: the heartbeat stays quiet while one is.
static BARS: AtomicUsize = AtomicUsize::new(0);
/// Set at the first output (or error): the heartbeat stops for good.
static QUIET: AtomicBool = AtomicBool::new(false);
static HEARTBEAT: Mutex<Option<std::thread::JoinHandle<()>>> = Mutex::new(None);

/// The fallback for runs without a counted bar (iterative engines, readers,
/// reports): on a terminal, once the command has run for a second with no
/// bar up and nothing printed yet, a spinner says it is working and for how
/// long. It stops at the first output ([`quiet`]).
pub fn start_heartbeat(what: &'static str) {
    if !std::io::stderr().is_terminal() {
        return;
    }
    let delay = delay_ms();
    let handle = std::thread::spawn(move || {
        let start = Instant::now();
        let mut spinner: Option<ProgressBar> = None;
        while !QUIET.load(Ordering::Acquire) {
            let busy = BARS.load(Ordering::Acquire) > 0;
            if busy || start.elapsed().as_millis() < delay {
                if let Some(b) = spinner.take() {
                    b.finish_and_clear();
                }
            } else if spinner.is_none() {
                let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
                b.set_style(
                    ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("template"),
                );
                b.set_message(what);
                b.set_draw_target(ProgressDrawTarget::stderr());
                b.enable_steady_tick(std::time::Duration::from_millis(120));
                spinner = Some(b);
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        if let Some(b) = spinner.take() {
            b.finish_and_clear();
        }
    });
    *HEARTBEAT.lock().expect("heartbeat lock") = Some(handle);
}

/// Stop the heartbeat and wait until its spinner is off the terminal
/// (before anything is printed).
pub fn quiet() {
    QUIET.store(true, Ordering::Release);
    if let Some(h) = HEARTBEAT.lock().expect("heartbeat lock").take() {
        let _ = h.join();
    }
}
