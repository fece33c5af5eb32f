//! Splitting CPU work over the host's threads.
//!
//! Layer: prims. Scoped threads only: every worker is joined before the call
//! returns, and a worker's panic is re-raised on the calling thread, where
//! the C boundary turns it into `dnnl_runtime_error`.

use std::ops::Range;
use std::sync::OnceLock;

/// The number of worker threads CPU kernels use (the host's parallelism).
pub fn max_threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Splits `0..total` into at most [`max_threads`] contiguous ranges of at
/// least `min_chunk` items each (one range when `total` is small).
pub fn split(total: usize, min_chunk: usize) -> Vec<Range<usize>> {
    let parts = (total / min_chunk.max(1)).clamp(1, max_threads());
    let base = total / parts;
    let extra = total % parts;
    let mut start = 0;
    (0..parts)
        .map(|i| {
            let len = base + usize::from(i < extra);
            let r = start..start + len;
            start += len;
            r
        })
        .collect()
}

/// Runs `work` on each item, the first on the calling thread and the others
/// on scoped threads; re-raises a worker's panic after all have finished.
pub fn run_all<T: Send>(items: Vec<T>, work: impl Fn(T) + Sync) {
    let mut items = items.into_iter();
    let Some(first) = items.next() else { return };
    std::thread::scope(|s| {
        let work = &work;
        let handles: Vec<_> = items.map(|item| s.spawn(move || work(item))).collect();
        work(first);
        for h in handles {
            if let Err(panic) = h.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_covers_everything_once() {
        for total in [0, 1, 7, 1000, 123_457] {
            let parts = split(total, 100);
            assert!(!parts.is_empty() && parts.len() <= max_threads());
            assert_eq!(parts[0].start, 0);
            assert_eq!(parts.last().unwrap().end, total);
            for w in parts.windows(2) {
                assert_eq!(w[0].end, w[1].start);
            }
        }
    }

    #[test]
    fn run_all_reraises_a_worker_panic() {
        let result = std::panic::catch_unwind(|| {
            run_all(vec![0, 1, 2, 3], |i| assert!(i != 3, "worker {i} fails"));
        });
        assert!(result.is_err());
    }
}
