//! The native binary this driver hands out: parameter kinds, then the OpenCL binary.
//!
//! `zeModuleGetNativeBinary` returns what `zeModuleCreate(ZE_MODULE_FORMAT_NATIVE)`
//! takes back. The OpenCL program binary (`CL_PROGRAM_BINARIES`) alone loses what the
//! SPIR-V said about kernel parameters (`spirv.rs`), and runtimes give no
//! `clGetKernelArgInfo` for programs built from IL, so a header of ours carries them:
//!
//! ```text
//! "ZEOCLBIN"            8 bytes
//! version               u32 (1)
//! kernel count          u32
//! per kernel, by name:  u32 name length, name bytes (no NUL),
//!                       u32 parameter count, per parameter u32 kind
//!                       (0 pointer, 1 local, 2 value, 3 opaque) and u32 value size
//! the OpenCL binary     the rest
//! ```
//!
//! All integers little-endian. A binary without the magic is taken as a bare OpenCL
//! binary (one from elsewhere): its kernels' kinds then come from the runtime, if it
//! has them.

use crate::spirv::{Kernels, Param};

const MAGIC: &[u8; 8] = b"ZEOCLBIN";
const VERSION: u32 = 1;

/// `kernels`' kinds in front of the OpenCL binary `cl`.
pub fn encode(kernels: &Kernels, cl: &[u8]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    let put = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
    put(&mut out, VERSION);
    put(&mut out, kernels.len() as u32);
    let mut names: Vec<&String> = kernels.keys().collect();
    names.sort();
    for name in names {
        put(&mut out, name.len() as u32);
        out.extend_from_slice(name.as_bytes());
        let params = &kernels[name];
        put(&mut out, params.len() as u32);
        for p in params {
            let (kind, size) = match *p {
                Param::Pointer => (0, 0),
                Param::Local => (1, 0),
                Param::Value(size) => (2, size as u32),
                Param::Opaque => (3, 0),
            };
            put(&mut out, kind);
            put(&mut out, size);
        }
    }
    out.extend_from_slice(cl);
    out
}

/// Splits `bytes` into kinds and the OpenCL binary: `Ok(None)` when it does not start
/// with our magic, `Err` when our header is malformed.
pub fn decode(bytes: &[u8]) -> Result<Option<(Kernels, &[u8])>, String> {
    let Some(rest) = bytes.strip_prefix(MAGIC.as_slice()) else {
        return Ok(None);
    };
    let mut r = Reader(rest);
    let version = r.u32()?;
    if version != VERSION {
        return Err(format!(
            "ze-ocl native binary version {version}, expected {VERSION}"
        ));
    }
    let mut kernels = Kernels::new();
    for _ in 0..r.u32()? {
        let len = r.u32()? as usize;
        let name = String::from_utf8(r.take(len)?.to_vec()).map_err(|e| e.to_string())?;
        let params = (0..r.u32()?)
            .map(|_| {
                let (kind, size) = (r.u32()?, r.u32()? as usize);
                Ok(match kind {
                    0 => Param::Pointer,
                    1 => Param::Local,
                    2 => Param::Value(size),
                    3 => Param::Opaque,
                    k => return Err(format!("unknown parameter kind {k}")),
                })
            })
            .collect::<Result<_, String>>()?;
        kernels.insert(name, params);
    }
    if r.0.is_empty() {
        return Err("ze-ocl native binary without an OpenCL binary".into());
    }
    Ok(Some((kernels, r.0)))
}

/// The unread rest of a header.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.0.len() < n {
            return Err("truncated ze-ocl native binary header".into());
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Ok(head)
    }

    fn u32(&mut self) -> Result<u32, String> {
        self.take(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Kernels {
        use Param::*;
        Kernels::from([
            ("scale_add".into(), vec![Pointer, Pointer, Value(4), Local]),
            ("iota".into(), vec![Pointer]),
            ("img".into(), vec![Opaque, Value(24)]),
            ("none".into(), vec![]),
        ])
    }

    #[test]
    fn round_trip() {
        let bytes = encode(&sample(), b"CL binary");
        let (kernels, cl) = decode(&bytes).unwrap().unwrap();
        assert_eq!(kernels, sample());
        assert_eq!(cl, b"CL binary");
        // Deterministic: kernels in name order.
        assert_eq!(bytes, encode(&kernels, cl));
    }

    #[test]
    fn bare_binaries_pass_through() {
        assert!(decode(b"\x7fELF....").unwrap().is_none());
        assert!(decode(b"").unwrap().is_none());
    }

    #[test]
    fn malformed_headers_are_errors() {
        let bytes = encode(&sample(), b"CL");
        // Every cut inside the header (or with no OpenCL binary left) is refused.
        let header = bytes.len() - 2;
        for n in MAGIC.len()..=header {
            assert!(decode(&bytes[..n]).is_err(), "cut at {n}");
        }
        let mut bad = bytes.clone();
        bad[8] = 9; // version
        assert!(decode(&bad).unwrap_err().contains("version 9"));
    }
}
