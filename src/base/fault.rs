//! Allocation-failure injection, for the tests of the out-of-memory paths.
//!
//! Layer: base. Every allocation whose size a caller controls (host buffers
//! of memories and scratchpads, graph tensors and temporaries, OpenCL
//! buffers, USM and SVM, Level Zero memory) asks [`allocation`] first and
//! fails with `dnnl_out_of_memory` when it answers false. A test arms the
//! failure of the `n`-th such allocation with [`fail_nth`], runs a create
//! path, and walks `n` up until [`fired`] says the path made fewer than `n`
//! allocations (`tests/alloc_failure.rs` does this over every create path,
//! checking the status and that nothing leaked).
//!
//! Unarmed (always, outside those tests) the cost is one relaxed atomic load.
//! The library's small bookkeeping allocations (handles, descriptors, the
//! maps behind them) go through Rust's global allocator, whose failure aborts
//! the process (`std::alloc::handle_alloc_error`); they are not injected.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Allocations left before the one that fails; 0: unarmed.
static COUNTDOWN: AtomicU64 = AtomicU64::new(0);
static FIRED: AtomicBool = AtomicBool::new(false);

/// Arms the failure of the `n`-th fallible allocation from now (`n >= 1`);
/// `n == 0` disarms.
pub fn fail_nth(n: u64) {
    FIRED.store(false, Ordering::SeqCst);
    COUNTDOWN.store(n, Ordering::SeqCst);
}

/// Whether the armed failure has happened since [`fail_nth`].
pub fn fired() -> bool {
    FIRED.load(Ordering::SeqCst)
}

/// Asked before a fallible allocation: false when this is the one armed to
/// fail.
#[inline]
pub fn allocation() -> bool {
    if COUNTDOWN.load(Ordering::Relaxed) == 0 {
        return true;
    }
    let before = COUNTDOWN.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |c| c.checked_sub(1));
    if before == Ok(1) {
        FIRED.store(true, Ordering::SeqCst);
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nth_allocation_fails_once() {
        fail_nth(3);
        assert!(allocation() && allocation() && !fired());
        assert!(!allocation());
        assert!(fired());
        assert!(allocation() && allocation());
        fail_nth(0);
        assert!(allocation());
    }
}
