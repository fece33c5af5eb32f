//! OpenCL C to SPIR-V, at run time: the kernels are specialised with `-D`
//! options when a primitive is created, so they are compiled then, by
//! spawning clang (OpenCL C to LLVM bitcode for `spir64`) and the
//! Khronos translator (bitcode to SPIR-V).
//!
//! Layer: `runtime::ze`. The tools: `DNNL_ZE_CLANG` (default `clang-15`) and
//! `DNNL_ZE_LLVM_SPIRV` (default `llvm-spirv-15`), found on `PATH`; either
//! missing is `dnnl_unimplemented` with the reason in the verbose log.
//!
//! Options: `-D`, `-U` and `-I` go to clang (the preprocessor); the rest
//! (`-cl-*` flags) are the module's build flags (`zeModuleCreate`'s
//! `pBuildFlags`). The source is compiled as OpenCL C 1.2 (no generic
//! address space, which not every driver's SPIR-V consumer takes) and with
//! LLVM's optimisations off: clang 15's optimiser emits `freeze`, which
//! llvm-spirv 15 cannot translate, and the driver optimises the module anyway.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::base::{Error, Result};

/// The compiler command (`DNNL_ZE_CLANG`, default `clang-15`).
pub fn clang() -> String {
    std::env::var("DNNL_ZE_CLANG").unwrap_or_else(|_| "clang-15".to_string())
}

/// The translator command (`DNNL_ZE_LLVM_SPIRV`, default `llvm-spirv-15`).
pub fn llvm_spirv() -> String {
    std::env::var("DNNL_ZE_LLVM_SPIRV").unwrap_or_else(|_| "llvm-spirv-15".to_string())
}

/// `options` split into (preprocessor options for clang, build flags for
/// the module).
pub fn split_options(options: &str) -> (Vec<String>, String) {
    let mut clang = Vec::new();
    let mut flags = Vec::new();
    let mut tokens = options.split_whitespace();
    while let Some(t) = tokens.next() {
        if ["-D", "-U", "-I"].contains(&t) {
            // The value is the next token.
            if let Some(v) = tokens.next() {
                clang.push(format!("{t}{v}"));
            }
        } else if t.starts_with("-D") || t.starts_with("-U") || t.starts_with("-I") {
            clang.push(t.to_string());
        } else {
            flags.push(t);
        }
    }
    (clang, flags.join(" "))
}

/// Runs `program` with `args`, feeding `input` on stdin; returns stdout.
fn run(program: &str, args: &[String], input: &[u8]) -> Result<Vec<u8>> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Error::unimplemented(format!(
                "Level Zero kernels need {program} (OpenCL C to SPIR-V), which cannot run: {e} \
                 (set DNNL_ZE_CLANG / DNNL_ZE_LLVM_SPIRV)"
            ))
        })?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| Error::runtime(format!("no stdin for {program}")))?;
    // A writer thread: the child may fill its output pipe before reading all input.
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child
        .wait_with_output()
        .map_err(|e| Error::runtime(format!("{program} failed: {e}")))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(Error::runtime(format!(
            "{program} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
}

/// Compiles OpenCL C `source` with the preprocessor options of `options`
/// to a SPIR-V module.
pub fn compile(source: &str, options: &str) -> Result<Vec<u8>> {
    let (defines, _) = split_options(options);
    let mut args: Vec<String> = [
        "-x",
        "cl",
        "-cl-std=CL1.2",
        "-target",
        "spir64",
        "-emit-llvm",
        "-c",
        "-Xclang",
        "-finclude-default-header",
        "-O2",
        "-Xclang",
        "-disable-llvm-passes",
        "-Wno-everything",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(defines);
    args.extend(["-o", "-", "-"].iter().map(|s| s.to_string()));
    let bitcode = run(&clang(), &args, source.as_bytes())?;
    let spirv = run(
        &llvm_spirv(),
        &["-o".to_string(), "-".to_string(), "-".to_string()],
        &bitcode,
    )?;
    if spirv.len() < 20 || spirv[..4] != [0x03, 0x02, 0x23, 0x07] {
        return Err(Error::runtime(format!(
            "{} produced no SPIR-V module",
            llvm_spirv()
        )));
    }
    Ok(spirv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_split_between_preprocessor_and_build() {
        let (c, f) = split_options("-DA=1 -cl-mad-enable -D B=2 -UC -I /x -cl-fast-relaxed-math");
        assert_eq!(c, ["-DA=1", "-DB=2", "-UC", "-I/x"]);
        assert_eq!(f, "-cl-mad-enable -cl-fast-relaxed-math");
    }

    #[test]
    fn compiles_a_kernel_when_the_tools_exist() {
        match compile("kernel void k(global int *x) { x[0] = X; }", "-DX=3") {
            Ok(spirv) => assert_eq!(&spirv[..4], &[0x03, 0x02, 0x23, 0x07]),
            Err(Error::Unimplemented(why)) => println!("skipped: {why}"),
            Err(e) => panic!("{e}"),
        }
    }
}
