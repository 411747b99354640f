//! Timing shared by the kernel micro-benchmarks.

use std::time::Instant;

/// Best time (seconds) of `reps` timed batches of `f`, each batch running
/// long enough (≥ ~20 ms) to be measurable. The best of many short batches
/// filters out time slices lost to other processes on a shared machine.
pub fn best_time(mut f: impl FnMut(), reps: usize) -> f64 {
    f();
    let t = Instant::now();
    f();
    let once = t.elapsed().as_secs_f64().max(1e-7);
    let inner = ((0.02 / once) as usize).max(1);
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = Instant::now();
        for _ in 0..inner {
            f();
        }
        best = best.min(t.elapsed().as_secs_f64() / inner as f64);
    }
    best
}
