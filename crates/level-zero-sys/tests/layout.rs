//! The Rust layouts against the real header: compiles a C program that prints, with
//! the Level Zero headers, `sizeof` of every generated struct, `offsetof` of every
//! field and the value of every enum constant, and compares each line with Rust's
//! `size_of` / `offset_of!` / constant. Skips (with the reason printed) when the
//! headers or a C compiler are missing.
use level_zero_sys::ddi::*;
use level_zero_sys::*;
use std::mem::{offset_of, size_of};
use std::process::Command;

const INCLUDE: &str = "/usr/include/level_zero";

/// One line both sides print: `what value`.
struct Row {
    what: String,
    value: u64,
    /// The C expression printing `value`.
    c_expr: String,
}

macro_rules! layout_table {
    ($($hdr:literal $s:ident { $($f:ident),* $(,)? })*) => {
        fn struct_rows() -> Vec<Row> {
            let mut rows = Vec::new();
            $(
                rows.push(Row {
                    what: format!("sizeof({})", stringify!($s)),
                    value: size_of::<$s>() as u64,
                    c_expr: format!("sizeof({})", stringify!($s)),
                });
                $(
                    let field = stringify!($f).trim_start_matches("r#");
                    rows.push(Row {
                        what: format!("offsetof({}, {})", stringify!($s), field),
                        value: offset_of!($s, $f) as u64,
                        c_expr: format!("offsetof({}, {})", stringify!($s), field),
                    });
                )*
            )*
            rows
        }
    };
}

macro_rules! const_table {
    ($($c:ident),* $(,)?) => {
        fn const_rows() -> Vec<Row> {
            vec![$(Row {
                what: stringify!($c).to_string(),
                value: u64::from($c.0),
                c_expr: format!("(unsigned)({})", stringify!($c)),
            }),*]
        }
    };
}

include!("layout/table.rs");

fn c_program(rows: &[Row]) -> String {
    let mut c = String::from(
        "#include <stddef.h>\n#include <stdio.h>\n#include <level_zero/ze_api.h>\n\
         #include <level_zero/ze_ddi.h>\n#include <level_zero/zet_ddi.h>\n#include <level_zero/zes_ddi.h>\nint main(void) {\n",
    );
    for row in rows {
        c += &format!(
            "    printf(\"%llu\\n\", (unsigned long long)({}));\n",
            row.c_expr
        );
    }
    c + "    return 0;\n}\n"
}

#[test]
fn layouts_and_constants_match_ze_api_h() {
    if !std::path::Path::new(INCLUDE).join("ze_api.h").exists() {
        println!("SKIP: {INCLUDE}/ze_api.h is missing (install libze-dev)");
        return;
    }
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let mut rows = struct_rows();
    rows.extend(const_rows());
    let dir = std::env::temp_dir().join(format!("level-zero-sys-layout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, exe) = (dir.join("layout.c"), dir.join("layout"));
    std::fs::write(&src, c_program(&rows)).unwrap();
    let built = Command::new(&compiler)
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output();
    let built = match built {
        Ok(out) => out,
        Err(e) => {
            println!("SKIP: no C compiler ({compiler}: {e})");
            return;
        }
    };
    assert!(
        built.status.success(),
        "{compiler} failed on the layout program:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    assert!(run.status.success());
    let printed = String::from_utf8(run.stdout).unwrap();
    let c_values: Vec<u64> = printed.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(c_values.len(), rows.len());
    let mismatches: Vec<String> = rows
        .iter()
        .zip(&c_values)
        .filter(|(row, c)| row.value != **c)
        .map(|(row, c)| format!("{}: Rust {} C {}", row.what, row.value, c))
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        mismatches.is_empty(),
        "layout mismatches:\n{}",
        mismatches.join("\n")
    );
    println!(
        "{} sizes, offsets and constants match ze_api.h / ze_ddi.h",
        rows.len()
    );
}

#[test]
fn defaults_set_their_structure_type() {
    assert_eq!(
        ze_device_properties_t::default().stype,
        ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES
    );
    assert_eq!(
        ze_module_desc_t::default().stype,
        ZE_STRUCTURE_TYPE_MODULE_DESC
    );
    assert!(ze_module_desc_t::default().pBuildFlags.is_null());
    assert_eq!(
        format!("{:?}", ZE_RESULT_ERROR_INVALID_NULL_HANDLE),
        "ZE_RESULT_ERROR_INVALID_NULL_HANDLE"
    );
    assert_eq!(format!("{:?}", ze_result_t(0x1234)), "ze_result_t(0x1234)");
    let flags = ZE_DEVICE_PROPERTY_FLAG_INTEGRATED | ZE_DEVICE_PROPERTY_FLAG_ONDEMANDPAGING;
    assert!(flags.contains(ZE_DEVICE_PROPERTY_FLAG_ONDEMANDPAGING));
    assert!(!flags.contains(ZE_DEVICE_PROPERTY_FLAG_ECC));
    assert_eq!(size_of::<ze_global_dditable_t>(), size_of::<usize>());
}

#[test]
fn missing_loader_is_a_readable_error() {
    // SAFETY: the path does not exist, so nothing is loaded.
    let err = unsafe { Api::load("/nonexistent/libze_loader.so.1") }.unwrap_err();
    let text = err.to_string();
    assert!(text.contains("/nonexistent/libze_loader.so.1"), "{text}");
    assert!(matches!(err, LoadError::Library { .. }));
}

#[test]
fn installed_loader_loads() {
    match api() {
        Ok(api) => {
            // zeInit with no driver installed still answers (an error code, no crash).
            // SAFETY: zeInit takes flags by value.
            let r = unsafe { api.zeInit(ze_init_flags_t(0)) };
            println!("zeInit: {r:?}");
        }
        Err(e) => println!("SKIP: {e}"),
    }
}
