//! Skips that show, for the Rust integration tests (`mod skip;` in a test crate).
//!
//! libtest captures `println!` and `eprintln!` of passing tests, so a test that
//! prints why it skipped and returns looks like a pass. [`skip`] instead writes
//! `SKIP <crate>::<test>: <reason>` straight to the process's stderr (not
//! captured: the reader of `cargo test` sees it), and appends the same line to
//! the file named by `DNNL_TEST_SKIP_LOG` when that is set. `scripts/test.sh`
//! sets it and fails on a line that `scripts/expected-skips.txt` does not list.

#![allow(dead_code)]

use std::fmt::Display;
use std::io::Write;

/// Reports that (part of) the running test is skipped, and why.
pub fn skip(reason: impl Display) {
    let thread = std::thread::current();
    // libtest runs each test on a thread named after it.
    let test = thread.name().unwrap_or("main");
    let line = format!("SKIP {}::{test}: {reason}\n", env!("CARGO_CRATE_NAME"));
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
    if let Some(path) = std::env::var_os("DNNL_TEST_SKIP_LOG") {
        // One write of one line in append mode: lines of tests running in
        // parallel, and of other test binaries, do not interleave.
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path);
        match file {
            Ok(mut f) => {
                let _ = f.write_all(line.as_bytes());
            }
            Err(e) => panic!("DNNL_TEST_SKIP_LOG={}: {e}", path.to_string_lossy()),
        }
    }
}
