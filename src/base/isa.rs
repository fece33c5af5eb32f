//! The CPU instruction-set level: what `dnnl_set_max_cpu_isa`,
//! `ONEDNN_MAX_CPU_ISA` and `dnnl_set_cpu_isa_hints` set, what
//! `dnnl_get_effective_cpu_isa` reports, and the [`Level`] the CPU kernels
//! dispatch on ([`level`]).
//!
//! Layer: base (over `abi` only). It reads the host's features through
//! `std::arch`, nothing else.
//!
//! As upstream's x64 build: the maximum can be set once, before it is first
//! read (the first primitive descriptor creation or effective-ISA query
//! reads it); `ONEDNN_MAX_CPU_ISA` gives its initial value, which a call
//! before the first read may still replace. The hints likewise, set once
//! before `dnnl_get_cpu_isa_hints` first reads them; any value is taken.

use std::sync::Mutex;

use crate::base::env;
use crate::base::error::{Error, Result};

/// The code paths of the CPU kernels, from the most portable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Plain Rust (what the compiler makes of it for the build's target).
    Portable,
    /// AVX2 with FMA (`std::arch`, `#[target_feature(enable = "avx2,fma")]`).
    Avx2,
    /// AVX-512 F/BW/DQ/VL, upstream's `avx512_core`.
    Avx512,
}

impl Level {
    /// Every level the host can run, from the most portable.
    pub fn supported() -> Vec<Level> {
        [Level::Portable, Level::Avx2, Level::Avx512]
            .into_iter()
            .filter(|l| l.host_has())
            .collect()
    }

    /// Whether this host's CPU has the instructions of the level.
    pub fn host_has(self) -> bool {
        match self {
            Level::Portable => true,
            Level::Avx2 => has(Feature::Avx2) && has(Feature::Fma),
            Level::Avx512 => has(Feature::Avx512Core),
        }
    }
}

/// The host features that upstream's ISA values are made of.
#[derive(Clone, Copy)]
enum Feature {
    Sse41,
    Avx,
    Avx2,
    Fma,
    AvxVnni,
    AvxVnniInt8,
    Avx512Core,
    Avx512Vnni,
    Avx512Bf16,
    Avx512Fp16,
    Amx,
    AmxFp16,
    Avx10_2,
}

#[cfg(target_arch = "x86_64")]
fn has(f: Feature) -> bool {
    use std::arch::is_x86_feature_detected as x;
    match f {
        Feature::Sse41 => x!("sse4.1"),
        Feature::Avx => x!("avx"),
        Feature::Avx2 => x!("avx2"),
        Feature::Fma => x!("fma"),
        Feature::AvxVnni => x!("avxvnni"),
        Feature::AvxVnniInt8 => x!("avxvnniint8") && x!("avxneconvert"),
        Feature::Avx512Core => x!("avx512f") && x!("avx512bw") && x!("avx512dq") && x!("avx512vl"),
        Feature::Avx512Vnni => x!("avx512vnni"),
        Feature::Avx512Bf16 => x!("avx512bf16"),
        Feature::Avx512Fp16 => x!("avx512fp16"),
        // AMX detection is not stable in `std` yet: CPUID leaf 7 (tile,
        // int8, bf16: EDX bits 24, 25, 22; fp16: sub-leaf 1, EAX bit 21).
        Feature::Amx => {
            let edx = std::arch::x86_64::__cpuid_count(7, 0).edx;
            edx & (1 << 24 | 1 << 25 | 1 << 22) == (1 << 24 | 1 << 25 | 1 << 22)
        }
        Feature::AmxFp16 => std::arch::x86_64::__cpuid_count(7, 1).eax & (1 << 21) != 0,
        // No stable detection yet: never claimed.
        Feature::Avx10_2 => false,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn has(_: Feature) -> bool {
    false
}

/// Upstream's ISA values (`dnnl_cpu_isa_t`, bit sets: one ISA includes another
/// when it holds all of its bits), their `ONEDNN_MAX_CPU_ISA` spellings, and
/// the features the host needs for each, from the least.
const ISAS: &[(u32, &[&str], &[Feature])] = &[
    (1, &["sse41"], &[Feature::Sse41]),
    (3, &["avx"], &[Feature::Avx]),
    (7, &["avx2"], &[Feature::Avx2]),
    (0xf, &["avx2_vnni"], &[Feature::AvxVnni]),
    (0x1f, &["avx2_vnni_2"], &[Feature::AvxVnniInt8]),
    (0x27, &["avx512_core"], &[Feature::Avx512Core]),
    (0x67, &["avx512_core_vnni"], &[Feature::Avx512Vnni]),
    (0xe7, &["avx512_core_bf16"], &[Feature::Avx512Bf16]),
    (
        0x1ef,
        &["avx10_1_512", "avx512_core_fp16"],
        &[Feature::Avx512Fp16],
    ),
    (
        0xfef,
        &["avx10_1_512_amx", "avx512_core_amx"],
        &[Feature::Amx],
    ),
    (
        0x1fef,
        &["avx10_1_512_amx_fp16", "avx512_core_amx_fp16"],
        &[Feature::AmxFp16],
    ),
    (0x201ff, &["avx10_2", "avx10_2_512"], &[Feature::Avx10_2]),
    (
        0x22fff,
        &["avx10_2_amx_2", "avx10_2_512_amx_2"],
        &[Feature::Avx10_2],
    ),
];

/// `dnnl_cpu_isa_default`: no limit.
const ALL: u32 = 0;

/// Whether ISA `a` is within the maximum `max` (0: no limit).
fn within(a: u32, max: u32) -> bool {
    max == ALL || a & max == a
}

/// The highest ISA of the table that the host has and `max` allows: each
/// entry also needs the features of the entries it includes.
fn effective_of(max: u32, host: impl Fn(Feature) -> bool) -> u32 {
    let mut best = ALL;
    for &(value, _, _) in ISAS {
        let included = ISAS
            .iter()
            .filter(|(v, _, _)| v & value == *v)
            .all(|(_, _, f)| f.iter().all(|&f| host(f)));
        if included && within(value, max) {
            best = value;
        }
    }
    best
}

/// A setting that may be written once, before its first read.
#[derive(Debug)]
pub struct SetOnce {
    value: u32,
    written: bool,
    read: bool,
}

impl SetOnce {
    /// A setting holding `initial`, neither written nor read.
    pub const fn new(initial: u32) -> Self {
        SetOnce {
            value: initial,
            written: false,
            read: false,
        }
    }

    /// Writes `value`; false (and no change) after a write or a read.
    pub fn set(&mut self, value: u32) -> bool {
        if self.written || self.read {
            return false;
        }
        self.value = value;
        self.written = true;
        true
    }

    /// The value; from now on it cannot be written.
    pub fn get(&mut self) -> u32 {
        self.read = true;
        self.value
    }
}

/// The maximum ISA (`None` until `ONEDNN_MAX_CPU_ISA` was read) and the hints.
static MAX: Mutex<Option<SetOnce>> = Mutex::new(None);
static HINTS: Mutex<SetOnce> = Mutex::new(SetOnce::new(0));

/// The ISA value an `ONEDNN_MAX_CPU_ISA` value names (any case; unknown
/// names and `all`/`default` mean no limit, as upstream).
fn parse_max(name: &str) -> u32 {
    let name = name.trim().to_ascii_lowercase();
    ISAS.iter()
        .find(|(_, names, _)| names.contains(&name.as_str()))
        .map_or(ALL, |e| e.0)
}

fn with_max<T>(f: impl FnOnce(&mut SetOnce) -> T) -> T {
    // A poisoned lock only means a panic elsewhere; the value is still valid.
    let mut guard = MAX.lock().unwrap_or_else(|e| e.into_inner());
    let setting = guard.get_or_insert_with(|| {
        SetOnce::new(env::get("MAX_CPU_ISA").map_or(ALL, |v| parse_max(&v)))
    });
    f(setting)
}

/// `dnnl_set_max_cpu_isa`: `isa` must be a `dnnl_cpu_isa_t` value; it can be
/// set once, before the first read.
pub fn set_max(isa: u32) -> Result<()> {
    if isa != ALL && !ISAS.iter().any(|e| e.0 == isa) {
        return Err(Error::invalid(format!(
            "{isa:#x} is not a dnnl_cpu_isa_t value"
        )));
    }
    if with_max(|s| s.set(isa)) {
        Ok(())
    } else {
        Err(Error::invalid(
            "the maximum CPU ISA can be set only once, before the first primitive is created",
        ))
    }
}

/// `dnnl_get_effective_cpu_isa`: the highest ISA the host has within the
/// maximum (this reads the maximum: it cannot be set afterwards).
pub fn effective() -> u32 {
    let max = with_max(SetOnce::get);
    effective_of(max, has)
}

/// What `effective` would answer now, without reading the maximum (so it
/// can still be set): for the verbose header.
pub fn effective_peek() -> u32 {
    let max = with_max(|s| s.value);
    effective_of(max, has)
}

/// Upstream's description of an effective ISA value, as its verbose header
/// prints it (`info,cpu,isa:...`). Probed against Intel's x64 library up to
/// avx512_core_bf16 (the most a test host here has); the AMX, FP16 and
/// AVX10.2 texts are upstream's naming of those extensions, not probed.
pub fn description(effective: u32) -> &'static str {
    match effective {
        0x1 => "Intel SSE4.1",
        0x3 => "Intel AVX",
        0x7 => "Intel AVX2",
        0xf => "Intel AVX2 with Intel DL Boost",
        0x1f => "Intel AVX2 with Intel DL Boost, float16 and bfloat16 support",
        0x27 => "Intel AVX-512 with AVX512BW, AVX512VL, and AVX512DQ extensions",
        0x67 => "Intel AVX-512 with Intel DL Boost",
        0xe7 => "Intel AVX-512 with Intel DL Boost and bfloat16 support",
        0x1ef => "Intel AVX-512 with float16, Intel DL Boost and bfloat16 support",
        0xfef => {
            "Intel AVX-512 with float16, Intel DL Boost and bfloat16 support and Intel AMX with \
             bfloat16 and 8-bit integer support"
        }
        0x1fef => {
            "Intel AVX-512 with float16, Intel DL Boost and bfloat16 support and Intel AMX with \
             bfloat16, float16 and 8-bit integer support"
        }
        0x201ff => "Intel AVX10.2/512",
        0x22fff => "Intel AVX10.2/512 with Intel AMX 2",
        _ => "Intel 64",
    }
}

/// The level the CPU kernels run at: the best the host has within the
/// maximum ISA (this reads the maximum: it cannot be set afterwards).
pub fn level() -> Level {
    level_of(effective())
}

fn level_of(effective: u32) -> Level {
    if within(0x27, effective) && effective != ALL && Level::Avx512.host_has() {
        Level::Avx512
    } else if within(7, effective) && effective != ALL && Level::Avx2.host_has() {
        Level::Avx2
    } else {
        Level::Portable
    }
}

/// `dnnl_set_cpu_isa_hints`: any value, once, before the first read;
/// `Error::Runtime` otherwise (upstream's `dnnl_runtime_error`).
pub fn set_hints(hints: u32) -> Result<()> {
    let mut guard = HINTS.lock().unwrap_or_else(|e| e.into_inner());
    if guard.set(hints) {
        Ok(())
    } else {
        Err(Error::runtime(
            "the CPU ISA hints can be set only once, before they are first read",
        ))
    }
}

/// `dnnl_get_cpu_isa_hints` (no kernel of ours reads them).
pub fn hints() -> u32 {
    HINTS.lock().unwrap_or_else(|e| e.into_inner()).get()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_isa_value_has_upstreams_description() {
        for &(value, names, _) in ISAS {
            assert_ne!(description(value), "Intel 64", "{names:?}");
        }
        assert_eq!(description(0x7), "Intel AVX2");
        assert_eq!(description(ALL), "Intel 64");
    }

    #[test]
    fn set_once_before_the_first_read() {
        let mut s = SetOnce::new(5);
        assert!(s.set(7));
        assert!(!s.set(0x27), "a second write is refused");
        assert_eq!(s.get(), 7);
        let mut s = SetOnce::new(5);
        assert_eq!(s.get(), 5);
        assert!(!s.set(7), "a write after a read is refused");
        assert_eq!(s.get(), 5);
    }

    #[test]
    fn effective_is_capped_by_the_host_and_the_maximum() {
        // A host like this box: AVX-512 with VNNI and BF16, AVX-VNNI, no FP16 or AMX.
        let host = |f| {
            !matches!(
                f,
                Feature::Avx512Fp16
                    | Feature::Amx
                    | Feature::AmxFp16
                    | Feature::Avx10_2
                    | Feature::AvxVnniInt8
            )
        };
        assert_eq!(effective_of(ALL, host), 0xe7);
        assert_eq!(effective_of(0xfef, host), 0xe7);
        assert_eq!(effective_of(0x27, host), 0x27);
        assert_eq!(effective_of(0x1f, host), 0xf);
        assert_eq!(effective_of(7, host), 7);
        assert_eq!(effective_of(1, host), 1);
        // A host with AVX2 only.
        let avx2 = |f| {
            matches!(
                f,
                Feature::Sse41 | Feature::Avx | Feature::Avx2 | Feature::Fma
            )
        };
        assert_eq!(effective_of(ALL, avx2), 7);
        assert_eq!(effective_of(0x27, avx2), 7);
    }

    #[test]
    fn levels_follow_the_effective_isa() {
        assert_eq!(level_of(1), Level::Portable);
        assert_eq!(level_of(3), Level::Portable);
        if Level::Avx2.host_has() {
            assert_eq!(level_of(7), Level::Avx2);
            assert_eq!(level_of(0xf), Level::Avx2);
        }
        if Level::Avx512.host_has() {
            assert_eq!(level_of(0x27), Level::Avx512);
            assert_eq!(level_of(0xe7), Level::Avx512);
        }
    }

    #[test]
    fn env_names() {
        assert_eq!(parse_max("AVX2"), 7);
        assert_eq!(parse_max("avx512_core"), 0x27);
        assert_eq!(parse_max("Avx512_Core_AMX"), 0xfef);
        assert_eq!(parse_max("sse41"), 1);
        assert_eq!(parse_max("bogus"), ALL);
        assert_eq!(parse_max("all"), ALL);
    }
}
