//! A deterministic parallel map for the slow test drivers (node tests,
//! conformance): results come back in input order whatever the scheduling,
//! so reports stay byte-identical; a panic in one item becomes that item's
//! `Err` (with the panic message) instead of aborting the whole suite.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Worker threads: the available parallelism, at most 4 (CI has 2 cores).
fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4)
}

/// `f` applied to every item on a few threads, results in input order.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<Result<R, String>> {
    let slots: Vec<Mutex<Option<Result<R, String>>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..workers().min(items.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(item)))
                    .map_err(|p| format!("PANIC: {}", panic_message(&p)));
                *slots[i].lock().expect("slot") = Some(r);
            });
        }
    });
    slots.into_iter().map(|m| m.into_inner().expect("slot").expect("every item ran")).collect()
}

/// The message of a caught panic, when it carried one.
pub fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_input_order_and_isolates_panics() {
        let items: Vec<u32> = (0..100).collect();
        let out = par_map(&items, |&x| {
            assert!(x != 37, "boom {x}");
            x * 2
        });
        assert_eq!(out.len(), 100);
        for (i, r) in out.iter().enumerate() {
            if i == 37 {
                assert_eq!(r.as_ref().unwrap_err(), "PANIC: boom 37");
            } else {
                assert_eq!(r.as_ref().unwrap(), &(2 * i as u32));
            }
        }
    }
}
