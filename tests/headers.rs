//! The committed headers under `include/` are exactly what build.rs generates.
//!
//! build.rs writes the headers into OUT_DIR; this test compares them with the
//! committed copies and fails on any difference. `DNNL_BLESS_HEADERS=1`
//! rewrites the committed copies instead (then review and commit them).

use std::fs;
use std::path::{Path, PathBuf};

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn committed_headers_are_current() {
    let generated = Path::new(env!("DNNL_GENERATED_INCLUDE"));
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let bless = std::env::var_os("DNNL_BLESS_HEADERS").is_some();
    let wanted = files(generated);
    let have = if committed.exists() {
        files(&committed)
    } else {
        Vec::new()
    };
    let mut stale = Vec::new();
    for rel in &wanted {
        let new = fs::read(generated.join(rel)).unwrap();
        if fs::read(committed.join(rel)).ok().as_deref() != Some(&new[..]) {
            stale.push(rel.display().to_string());
            if bless {
                fs::create_dir_all(committed.join(rel).parent().unwrap()).unwrap();
                fs::write(committed.join(rel), &new).unwrap();
            }
        }
    }
    for rel in have.iter().filter(|r| !wanted.contains(r)) {
        stale.push(format!("{} (no longer generated)", rel.display()));
        if bless {
            fs::remove_file(committed.join(rel)).unwrap();
        }
    }
    assert!(
        bless || stale.is_empty(),
        "committed headers differ from the generated ones: {stale:?}\n\
         regenerate with: DNNL_BLESS_HEADERS=1 cargo test --test headers"
    );
}
