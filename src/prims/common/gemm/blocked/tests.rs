//! The blocked products on every path the host has, against an f64
//! reference: edge tiles (m, n, k not multiples of the blocks, k = 1 and 0),
//! row-major, transposed and strided A and B, batches with B broadcast, and
//! the f16 / bf16 / mixed operand conversions.

use std::sync::Mutex;

use super::*;
use crate::prims::common::dt;

/// A test matrix: `rows x cols` values stored with strides `(rs, cs)` from
/// element `off`, `batches` copies `bstride` apart.
struct Stored {
    elem: Elem,
    bytes: Vec<u8>,
    rs: i64,
    cs: i64,
    off: i64,
    bstride: i64,
}

/// Small integers and halves (exact in bf16 and f16) so the reference is
/// exact up to f32 accumulation.
fn value(seed: usize) -> f32 {
    ((seed * 7919 + 13) % 17) as f32 * 0.5 - 4.0
}

/// How a matrix is laid out.
#[derive(Clone, Copy, Debug)]
enum Lay {
    RowMajor,
    Transposed,
    /// Row-major with padded rows and a start offset.
    Padded,
    /// Neither stride 1.
    Strided,
}

fn store(elem: Elem, rows: usize, cols: usize, lay: Lay, batches: usize, salt: usize) -> Stored {
    let (rs, cs, off) = match lay {
        Lay::RowMajor => (cols as i64, 1, 0),
        Lay::Transposed => (1, rows as i64, 0),
        Lay::Padded => (cols as i64 + 3, 1, 5),
        Lay::Strided => (2, 2 * rows as i64 + 1, 1),
    };
    let span = off + (rows as i64 - 1) * rs + (cols as i64 - 1) * cs + 1;
    let bstride = span + 2;
    let total = (bstride * batches as i64) as usize;
    let mut bytes = vec![0u8; total * elem.size()];
    for b in 0..batches {
        for r in 0..rows {
            for c in 0..cols {
                let at = b as i64 * bstride + off + r as i64 * rs + c as i64 * cs;
                let v = value(salt + (b * rows + r) * cols + c);
                dt::store(elem, &mut bytes, at as usize, v);
            }
        }
    }
    Stored {
        elem,
        bytes,
        rs,
        cs,
        off,
        bstride,
    }
}

#[allow(clippy::too_many_arguments)]
fn check(
    path: Path,
    (m, n, k): (usize, usize, usize),
    batches: usize,
    b_broadcast: bool,
    elems: (Elem, Elem),
    lays: (Lay, Lay),
) {
    let a = store(elems.0, m, k, lays.0, batches, 1);
    let b_count = if b_broadcast { 1 } else { batches };
    let b = store(elems.1, k, n, lays.1, b_count, 1000);
    let first = |i: usize| {
        let bi = if b_broadcast { 0 } else { i as i64 };
        (a.off + i as i64 * a.bstride, b.off + bi * b.bstride)
    };
    let prob = Problem {
        m,
        n,
        k,
        batches,
        a: Mat {
            bytes: &a.bytes,
            elem: a.elem,
            rs: a.rs,
            cs: a.cs,
        },
        b: Mat {
            bytes: &b.bytes,
            elem: b.elem,
            rs: b.rs,
            cs: b.cs,
        },
        first: &first,
    };
    let out = Mutex::new(vec![f32::NAN; batches * m * n]);
    let hits = Mutex::new(vec![0u8; batches * m * n]);
    run(path, &prob, &|t: &Tile, values: &mut [f32]| {
        let mut out = out.lock().unwrap();
        let mut hits = hits.lock().unwrap();
        for r in 0..t.rows {
            for c in 0..t.cols {
                let at = (t.batch * m + t.m0 + r) * n + t.n0 + c;
                out[at] = values[r * t.ld + c];
                hits[at] += 1;
            }
        }
    });
    let out = out.into_inner().unwrap();
    assert!(
        hits.into_inner().unwrap().iter().all(|&h| h == 1),
        "{path:?} {m}x{n}x{k}: every element in exactly one tile"
    );
    for bt in 0..batches {
        let (fa, fb) = first(bt);
        for r in 0..m {
            for c in 0..n {
                let mut want = 0f64;
                for kk in 0..k {
                    let x = dt::load(
                        a.elem,
                        &a.bytes,
                        (fa + r as i64 * a.rs + kk as i64 * a.cs) as usize,
                    );
                    let y = dt::load(
                        b.elem,
                        &b.bytes,
                        (fb + kk as i64 * b.rs + c as i64 * b.cs) as usize,
                    );
                    want += x as f64 * y as f64;
                }
                let got = out[(bt * m + r) * n + c];
                // Products of halves are exact in f32; the sums of up to a
                // few thousand of them below 2^24 quarters too.
                assert_eq!(
                    got as f64, want,
                    "{path:?} {elems:?} {lays:?} {m}x{n}x{k} batch {bt} at ({r}, {c})"
                );
            }
        }
    }
}

const SHAPES: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (5, 7, 1),
    (13, 33, 3),
    (12, 32, 256),
    (25, 70, 257),
    (97, 513, 19),
    (130, 40, 600),
    (3, 1100, 9),
    (4, 4, 0),
];

#[test]
fn f32_every_path_edges_and_layouts() {
    for path in Path::on_host() {
        if path.bf16_only() {
            continue;
        }
        for &shape in SHAPES {
            for lays in [
                (Lay::RowMajor, Lay::RowMajor),
                (Lay::Transposed, Lay::Transposed),
                (Lay::Padded, Lay::Strided),
                (Lay::Strided, Lay::Padded),
            ] {
                check(path, shape, 1, false, (Elem::F32, Elem::F32), lays);
            }
        }
    }
}

#[test]
fn batches_with_and_without_b_broadcast() {
    for path in Path::on_host() {
        let elems = if path.bf16_only() {
            (Elem::Bf16, Elem::Bf16)
        } else {
            (Elem::F32, Elem::F32)
        };
        for broadcast in [false, true] {
            for &shape in &[(7, 9, 5), (40, 70, 33)] {
                check(
                    path,
                    shape,
                    3,
                    broadcast,
                    elems,
                    (Lay::RowMajor, Lay::Padded),
                );
            }
        }
    }
}

#[test]
fn low_precision_operands_every_path() {
    for path in Path::on_host() {
        let pairs: &[(Elem, Elem)] = if path.bf16_only() {
            &[(Elem::Bf16, Elem::Bf16)]
        } else {
            &[
                (Elem::Bf16, Elem::Bf16),
                (Elem::F16, Elem::F16),
                (Elem::F16, Elem::F32),
                (Elem::F32, Elem::Bf16),
            ]
        };
        for &elems in pairs {
            for &shape in SHAPES {
                for lays in [
                    (Lay::RowMajor, Lay::RowMajor),
                    (Lay::Transposed, Lay::Strided),
                ] {
                    check(path, shape, 1, false, elems, lays);
                }
            }
        }
    }
}

/// The process's path follows its ISA cap: under `ONEDNN_MAX_CPU_ISA=sse41`
/// (`scripts/test.sh`) every product runs the portable kernel.
#[test]
fn current_path_within_the_process_cap() {
    let path = Path::current(Elem::F32, Elem::F32);
    match crate::base::isa::level() {
        Level::Portable => assert_eq!(path, Path::Portable),
        Level::Avx2 => assert_eq!(path, Path::Avx2),
        Level::Avx512 => assert_eq!(path, Path::Avx512),
    }
    if crate::base::isa::level() < Level::Avx512 {
        assert!(!Path::current(Elem::Bf16, Elem::Bf16).bf16_only());
    }
}

#[test]
fn path_follows_the_level() {
    assert_eq!(
        Path::for_level(Level::Portable, Elem::F32, Elem::F32, true, false),
        Path::Portable
    );
    assert_eq!(
        Path::for_level(Level::Portable, Elem::Bf16, Elem::Bf16, true, false),
        Path::Portable
    );
    if Level::Avx512.host_has() {
        assert_eq!(
            Path::for_level(Level::Avx512, Elem::F32, Elem::F32, true, false),
            Path::Avx512
        );
        assert_eq!(
            Path::for_level(Level::Avx512, Elem::Bf16, Elem::Bf16, false, false),
            Path::Avx512
        );
        assert_eq!(
            Path::for_level(Level::Avx512, Elem::Bf16, Elem::F32, true, false),
            Path::Avx512
        );
        // AMX where the host has it and the cap allows it, bf16 A and B only.
        assert_eq!(
            Path::for_level(Level::Avx512, Elem::Bf16, Elem::Bf16, true, true) == Path::Amx,
            Path::on_host().contains(&Path::Amx)
        );
        assert_ne!(
            Path::for_level(Level::Avx512, Elem::Bf16, Elem::Bf16, true, false),
            Path::Amx
        );
        assert_ne!(
            Path::for_level(Level::Avx512, Elem::F32, Elem::Bf16, true, true),
            Path::Amx
        );
    }
    if Level::Avx2.host_has() {
        assert_eq!(
            Path::for_level(Level::Avx2, Elem::Bf16, Elem::Bf16, true, false),
            Path::Avx2
        );
    }
}

/// Times these kernels against the `gemm` crate run as the CPU GEMM ran it
/// before (rows of C split over the same persistent workers, the crate
/// single-threaded per range, packing B itself on every thread), on one f32
/// row-major problem, in one process. Not a check: run by hand with
/// `cargo test --release --lib compare_with_gemm_crate -- --ignored --nocapture`.
#[test]
#[ignore]
fn compare_with_gemm_crate() {
    for size in [512usize, 1024, 2048] {
        let (m, n, k) = (size, size, size);
        let a: Vec<f32> = (0..m * k).map(value).collect();
        let b: Vec<f32> = (0..k * n).map(|i| value(i + 7)).collect();
        let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        let (ab, bb) = (bytes(&a), bytes(&b));
        let first = |_: usize| (0i64, 0i64);
        let prob = Problem {
            m,
            n,
            k,
            batches: 1,
            a: Mat {
                bytes: &ab,
                elem: Elem::F32,
                rs: k as i64,
                cs: 1,
            },
            b: Mat {
                bytes: &bb,
                elem: Elem::F32,
                rs: n as i64,
                cs: 1,
            },
            first: &first,
        };
        let c = Mutex::new(vec![0f32; m * n]);
        let ours = || {
            run(
                Path::current(Elem::F32, Elem::F32),
                &prob,
                &|t: &Tile, v: &mut [f32]| {
                    let mut c = c.lock().unwrap();
                    for r in 0..t.rows {
                        let at = (t.m0 + r) * n + t.n0;
                        c[at..at + t.cols].copy_from_slice(&v[r * t.ld..][..t.cols]);
                    }
                },
            )
        };
        let c2 = Mutex::new(vec![0f32; m * n]);
        let crate_rows = || {
            let ranges = parallel::split(m, 1);
            let base = c2.lock().unwrap().as_mut_ptr() as usize;
            run_pooled(ranges, |range| {
                // SAFETY: each range writes its own rows of c2 (m x n).
                unsafe {
                    gemm::gemm(
                        range.len(),
                        n,
                        k,
                        (base as *mut f32).add(range.start * n),
                        1,
                        n as isize,
                        false,
                        a.as_ptr().add(range.start * k),
                        1,
                        k as isize,
                        b.as_ptr(),
                        1,
                        n as isize,
                        0.0f32,
                        1.0f32,
                        false,
                        false,
                        false,
                        gemm::Parallelism::None,
                    )
                }
            });
        };
        let best = |f: &dyn Fn()| {
            f();
            (0..3)
                .map(|_| {
                    let t = std::time::Instant::now();
                    f();
                    t.elapsed().as_secs_f64()
                })
                .fold(f64::MAX, f64::min)
        };
        let flops = 2.0 * (m * n * k) as f64;
        let (t_ours, t_crate) = (best(&ours), best(&crate_rows));
        assert_eq!(*c.lock().unwrap(), *c2.lock().unwrap());
        eprintln!(
            "f32 {size}^3 on {} threads: ours {:.1} GFLOP/s, gemm crate (rows split) {:.1} GFLOP/s",
            parallel::max_threads(),
            flops / t_ours / 1e9,
            flops / t_crate / 1e9
        );
    }
}

/// A from a caller's packer: a strided matrix read element by element,
/// the batch's rows offset by `batch * 1000` (so a packer that mixes up
/// batches, rows or depths gives other values).
struct Packer<'a> {
    a: &'a Stored,
    first: &'a (dyn Fn(usize) -> (i64, i64) + Sync),
}

impl PackA for Packer<'_> {
    fn pack(&self, batch: usize, m0: usize, rows: usize, k0: usize, kc: usize, out: &mut [f32]) {
        assert_eq!(out.len(), rows * kc);
        let fa = (self.first)(batch).0;
        for r in 0..rows {
            for j in 0..kc {
                let at = fa + (m0 + r) as i64 * self.a.rs + (k0 + j) as i64 * self.a.cs;
                out[r * kc + j] = dt::load(self.a.elem, &self.a.bytes, at as usize);
            }
        }
    }
}

/// `run_packed` with a packer and the depth cut into `parts`: every
/// (part, element) comes once, and the parts add up to the product.
fn check_packed(path: Path, (m, n, k): (usize, usize, usize), batches: usize, parts: usize) {
    let a = store(Elem::F32, m, k, Lay::Padded, batches, 1);
    let b = store(Elem::F32, k, n, Lay::RowMajor, batches, 1000);
    let first = |i: usize| (a.off + i as i64 * a.bstride, b.off + i as i64 * b.bstride);
    let prob = Problem {
        m,
        n,
        k,
        batches,
        a: Mat {
            bytes: &[],
            elem: Elem::F32,
            rs: 0,
            cs: 0,
        },
        b: Mat {
            bytes: &b.bytes,
            elem: b.elem,
            rs: b.rs,
            cs: b.cs,
        },
        first: &first,
    };
    let packer = Packer {
        a: &a,
        first: &first,
    };
    let out = Mutex::new(vec![0f64; batches * m * n]);
    let hits = Mutex::new(vec![0usize; batches * m * n * parts]);
    run_packed(
        path,
        &prob,
        Some(&packer),
        parts,
        &|t: &Tile, values: &mut [f32]| {
            let mut out = out.lock().unwrap();
            let mut hits = hits.lock().unwrap();
            assert!(t.part < parts);
            for r in 0..t.rows {
                for c in 0..t.cols {
                    let at = (t.batch * m + t.m0 + r) * n + t.n0 + c;
                    out[at] += f64::from(values[r * t.ld + c]);
                    hits[at * parts + t.part] += 1;
                }
            }
        },
    );
    let what = format!("{path:?} packed {m}x{n}x{k} x{batches} in {parts} parts");
    assert!(
        hits.into_inner().unwrap().iter().all(|&h| h == 1),
        "{what}: every (part, element) in exactly one tile"
    );
    let out = out.into_inner().unwrap();
    for bt in 0..batches {
        let (fa, fb) = first(bt);
        for r in 0..m {
            for c in 0..n {
                let want: f64 = (0..k)
                    .map(|kk| {
                        let x = dt::load(
                            a.elem,
                            &a.bytes,
                            (fa + r as i64 * a.rs + kk as i64 * a.cs) as usize,
                        );
                        let y = dt::load(
                            b.elem,
                            &b.bytes,
                            (fb + kk as i64 * b.rs + c as i64 * b.cs) as usize,
                        );
                        f64::from(x) * f64::from(y)
                    })
                    .sum();
                let got = out[(bt * m + r) * n + c];
                assert_eq!(got, want, "{what}: batch {bt} at ({r}, {c})");
            }
        }
    }
}

#[test]
fn packed_a_every_path_edges_batches_and_parts() {
    for path in Path::on_host() {
        for &shape in SHAPES {
            check_packed(path, shape, 1, 1);
        }
        for &(shape, batches, parts) in &[
            ((7, 9, 5), 3, 1),
            ((40, 70, 600), 2, 3),
            ((13, 33, 1000), 1, 7),
            ((5, 17, 3), 2, 4),
            ((4, 4, 0), 1, 2),
        ] {
            check_packed(path, shape, batches, parts);
        }
    }
}

/// The cache blocks: this kernel's defaults at 32 KiB / 512 KiB, and at
/// other sizes whole register blocks, a B micro-panel within half of L1 and
/// A within L2.
#[test]
fn cache_blocks_fit_the_caches() {
    assert_eq!(
        blocks_for(6, 16, 32 << 10, 512 << 10),
        Blocks {
            kc: 256,
            mc: 96,
            nc: 512
        }
    );
    for (l1, l2) in [
        (16 << 10, 256 << 10),
        (48 << 10, 2 << 20),
        (64 << 10, 1 << 20),
    ] {
        for (mr, nr) in [(6, 16), (4, 16), (12, 32)] {
            let b = blocks_for(mr, nr, l1, l2);
            assert!(
                b.kc >= 64 && b.kc.is_multiple_of(8) && b.kc * nr * 4 <= l1 / 2,
                "{b:?}"
            );
            assert!(
                b.mc >= mr && b.mc.is_multiple_of(mr) && b.mc * b.kc * 4 <= l2 / 4,
                "{b:?}"
            );
            assert!(b.nc >= nr && b.nc.is_multiple_of(nr), "{b:?}");
        }
    }
    let host = cache_blocks(6, 16);
    assert!(host.kc >= 64 && host.mc.is_multiple_of(6) && host.nc.is_multiple_of(16));
}

/// Every tile is claimed exactly once, however many workers ask.
#[test]
fn claims_hand_out_each_tile_once() {
    for (tiles, workers) in [(0, 2), (1, 4), (22, 2), (97, 5)] {
        let next = AtomicUsize::new(0);
        let seen = Mutex::new(vec![0u32; tiles]);
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| {
                    for t in (Claims { next: &next, tiles }) {
                        seen.lock().unwrap()[t] += 1;
                    }
                });
            }
        });
        assert!(seen.into_inner().unwrap().iter().all(|&c| c == 1));
    }
}

/// The raw bits of bf16 element `index` of `bytes`.
fn bf16_bits(bytes: &[u8], index: i64) -> u32 {
    let at = index as usize * 2;
    u16::from_ne_bytes([bytes[at], bytes[at + 1]]) as u32
}

/// The bf16 pair packings agree whatever the layout: B row-major (the
/// interleaved runs) against B transposed and padded (element by element)
/// and the definition, and A's tile-by-tile panels against the definition.
/// Pure packing: runs on any host.
#[cfg(target_arch = "x86_64")]
#[test]
fn pair_packings_agree_across_layouts() {
    let s = Path::Amx.shape();
    for (k, cols) in [(33usize, 32usize), (32, 5), (1, 17), (64, 32)] {
        let kp = k.div_ceil(2).next_multiple_of(s.k_step);
        let packs: Vec<Vec<f32>> = [Lay::RowMajor, Lay::Transposed, Lay::Padded]
            .into_iter()
            .map(|lay| {
                let st = store(Elem::Bf16, k, cols, lay, 1, 3);
                let b = Mat {
                    bytes: &st.bytes,
                    elem: Elem::Bf16,
                    rs: st.rs,
                    cs: st.cs,
                };
                let mut out = vec![f32::NAN; kp * s.nr];
                pack_b(&s, &b, st.off, k, 0, cols, &mut out);
                out
            })
            .collect();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        assert_eq!(bits(&packs[0]), bits(&packs[1]), "B, k {k}, cols {cols}");
        assert_eq!(bits(&packs[0]), bits(&packs[2]), "B, k {k}, cols {cols}");
        // Slot (kp, c): rows 2 kp and 2 kp + 1 of column c.
        let st = store(Elem::Bf16, k, cols, Lay::RowMajor, 1, 3);
        for (i, slot) in packs[0].iter().enumerate() {
            let (p, c) = (i / s.nr, i % s.nr);
            let half = |kk: usize| {
                if kk < k && c < cols {
                    bf16_bits(&st.bytes, (kk * cols + c) as i64)
                } else {
                    0
                }
            };
            assert_eq!(
                slot.to_bits(),
                half(2 * p) | half(2 * p + 1) << 16,
                "slot {i}"
            );
        }
    }
    let (rows, k) = (37usize, 75usize);
    let st = store(Elem::Bf16, rows, k, Lay::RowMajor, 1, 9);
    let a = Mat {
        bytes: &st.bytes,
        elem: Elem::Bf16,
        rs: st.rs,
        cs: st.cs,
    };
    let half = |r: usize, kk: usize| {
        if r < rows && kk < k {
            bf16_bits(&st.bytes, (r * k + kk) as i64)
        } else {
            0
        }
    };
    // A packed for AMX (tiles) and for AVX512-BF16 (`[kc][mr]`, its last
    // slot K's odd value alone): pure packing, on any host.
    for s in [s, Path::Avx512Bf16.shape()] {
        let kc = k.div_ceil(2).next_multiple_of(s.k_step);
        let rp = rows.next_multiple_of(s.mr);
        let mut packed = vec![f32::NAN; rp * kc];
        pack_a(&s, &a, 0, k, 0, rows, 0, kc, &mut Vec::new(), &mut packed);
        // Slot (r, j) of a panel: row r's K 2 j and 2 j + 1 (in tile j / 16).
        for panel in 0..rp / s.mr {
            for r in 0..s.mr {
                let row = panel * s.mr + r;
                for j in 0..kc {
                    let at = match s.a_tiles {
                        true => (j / 16 * s.mr + r) * 16 + j % 16,
                        false => j * s.mr + r,
                    };
                    let got = packed[panel * s.mr * kc + at];
                    let want = half(row, 2 * j) | half(row, 2 * j + 1) << 16;
                    assert_eq!(
                        got.to_bits(),
                        want,
                        "tiles {}: row {row}, slot {j}",
                        s.a_tiles
                    );
                }
            }
        }
    }
}

/// The int8 paths' s32 sums (AVX2 i16 pairs, AVX2 byte quads, and AMX where
/// the host has AMX-INT8) for each sign pair they take, at edge shapes (K
/// odd, not a multiple of 4 or of a tile's 64, rows and columns past the
/// blocks, two batches with B broadcast) and layouts, against exact sums.
/// The quads path (u8 x s8 only) runs on the two kinds of operands that
/// `quads_fit` admits: A below 128 with any B, and any A with B halved.
#[test]
fn int8_paths_every_sign_shape_and_layout() {
    let all = |_| true;
    let u8s8 = |signs| signs == (false, true);
    let any = |b: u8| b;
    let low = |b: u8| b & 0x7f;
    let halved = |b: u8| ((b as i8) >> 1) as u8;
    // The path for the signs, which signs it takes, and A's and B's bytes.
    type Case = (
        fn(bool, bool) -> Path,
        fn((bool, bool)) -> bool,
        fn(u8) -> u8,
        fn(u8) -> u8,
    );
    let mut cases: Vec<Case> = Vec::new();
    if Level::Avx2.host_has() {
        cases.push((|_, _| Path::Avx2Int8, all, any, any));
        cases.push((|_, _| Path::Avx2Quads, u8s8, low, any));
        cases.push((|_, _| Path::Avx2Quads, u8s8, any, halved));
    } else {
        eprintln!("skipped AVX2: this host has no AVX2");
    }
    if host_has_amx_int8() {
        cases.push((
            |a_signed, b_signed| Path::AmxInt8 { a_signed, b_signed },
            all,
            any,
            any,
        ));
    } else {
        eprintln!("skipped AMX: this host has no AMX-INT8 (or Linux refused the tile state)");
    }
    let byte = |seed: usize| ((seed * 2654435761) >> 7) as u8;
    let signs = [(false, true), (true, true), (false, false), (true, false)];
    for &(path, takes, a_byte, b_byte) in &cases {
        for (a_signed, b_signed) in signs.into_iter().filter(|&s| takes(s)) {
            let elem = |signed| if signed { Elem::S8 } else { Elem::U8 };
            let value = |signed: bool, b: u8| if signed { b as i8 as i32 } else { b as i32 };
            for (m, n, k) in [(1, 1, 1), (37, 45, 67), (70, 300, 130), (33, 64, 2051)] {
                for (la, lb) in [
                    (Lay::RowMajor, Lay::RowMajor),
                    (Lay::Transposed, Lay::Transposed),
                    (Lay::Padded, Lay::Strided),
                ] {
                    // Strides as `store` lays them out, bytes drawn per element.
                    let laid =
                        |rows: usize, cols: usize, lay: Lay, salt: usize, f: fn(u8) -> u8| {
                            let st = store(Elem::U8, rows, cols, lay, 2, 0);
                            let mut bytes = st.bytes.clone();
                            for (i, b) in bytes.iter_mut().enumerate() {
                                *b = f(byte(i + salt));
                            }
                            (st, bytes)
                        };
                    let (sa, a_bytes) = laid(m, k, la, 1, a_byte);
                    let (sb, b_bytes) = laid(k, n, lb, 7, b_byte);
                    let first = |i: usize| (sa.off + i as i64 * sa.bstride, sb.off);
                    let prob = Problem {
                        m,
                        n,
                        k,
                        batches: 2,
                        a: Mat {
                            bytes: &a_bytes,
                            elem: elem(a_signed),
                            rs: sa.rs,
                            cs: sa.cs,
                        },
                        b: Mat {
                            bytes: &b_bytes,
                            elem: elem(b_signed),
                            rs: sb.rs,
                            cs: sb.cs,
                        },
                        first: &first,
                    };
                    let path = path(a_signed, b_signed);
                    // (Below `QUADS_SCAN_ROWS` rows B is not read, and only
                    // A below 128 is admitted; the kernel runs either way.)
                    if path == Path::Avx2Quads && m >= QUADS_SCAN_ROWS {
                        assert!(quads_fit(&prob), "{m}x{n}x{k}: the operands fit the quads");
                    }
                    let got = Mutex::new(vec![0i32; 2 * m * n]);
                    run(path, &prob, &|t: &Tile, v: &mut [f32]| {
                        let mut got = got.lock().unwrap();
                        for r in 0..t.rows {
                            for c in 0..t.cols {
                                let at = (t.batch * m + t.m0 + r) * n + t.n0 + c;
                                got[at] = v[r * t.ld + c].to_bits() as i32;
                            }
                        }
                    });
                    let got = got.into_inner().unwrap();
                    for batch in 0..2 {
                        let (fa, fb) = first(batch);
                        for r in 0..m {
                            for c in 0..n {
                                let want = (0..k).fold(0i32, |s, kk| {
                                    let x = a_bytes
                                        [(fa + r as i64 * sa.rs + kk as i64 * sa.cs) as usize];
                                    let y = b_bytes
                                        [(fb + kk as i64 * sb.rs + c as i64 * sb.cs) as usize];
                                    s.wrapping_add(value(a_signed, x) * value(b_signed, y))
                                });
                                assert_eq!(
                                    got[(batch * m + r) * n + c],
                                    want,
                                    "{path:?}, signs {a_signed}/{b_signed}, {m}x{n}x{k}, {la:?}/{lb:?}, batch {batch} ({r}, {c})"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `quads_fit` at its bounds: A's largest value times a slot pair's larger
/// one-signed sum against 32767, pairs taken at even K only, every batch's
/// A and B read, B read only for enough rows of A, and only u8 x s8.
#[test]
fn quads_fit_bounds() {
    // k x 2 B, row-major, with one column of interest; A m x k of `a`.
    let fits_m = |m: usize, a: u8, col: &[i8], a_elem: Elem, b_elem: Elem| {
        let k = col.len();
        let a_bytes = vec![a; m * k];
        let mut b_bytes = vec![0u8; 2 * k];
        for (kk, &v) in col.iter().enumerate() {
            b_bytes[2 * kk + 1] = v as u8;
        }
        let first = |_| (0, 0);
        quads_fit(&Problem {
            m,
            n: 2,
            k,
            batches: 1,
            a: Mat {
                bytes: &a_bytes,
                elem: a_elem,
                rs: k as i64,
                cs: 1,
            },
            b: Mat {
                bytes: &b_bytes,
                elem: b_elem,
                rs: 2,
                cs: 1,
            },
            first: &first,
        })
    };
    let rows = QUADS_SCAN_ROWS;
    let fits = |a, col: &[i8], a_elem, b_elem| fits_m(rows, a, col, a_elem, b_elem);
    let (u8_, s8_) = (Elem::U8, Elem::S8);
    // With fewer rows B is not read, so only A below 128 fits.
    assert!(!fits_m(rows - 1, 128, &[1, 1], u8_, s8_));
    assert!(fits(128, &[1, 1], u8_, s8_));
    assert!(fits_m(1, 127, &[127, 127], u8_, s8_));
    // A below 128 fits any B, even the worst pair.
    assert!(fits(127, &[-128, -128, 127, 127], u8_, s8_));
    assert!(!fits(128, &[-128, -128], u8_, s8_));
    assert!(fits(128, &[127, 127], u8_, s8_)); // 128 · 254 = 32512
    assert!(fits(255, &[127, 1], u8_, s8_)); // 255 · 128 = 32640
    assert!(!fits(255, &[127, 2], u8_, s8_)); // 255 · 129
    assert!(fits(255, &[-128, 0], u8_, s8_));
    assert!(!fits(255, &[-128, -1], u8_, s8_));
    // Opposite signs partly cancel: only the larger magnitude counts.
    assert!(fits(255, &[127, -128], u8_, s8_));
    // Pairs are K (0, 1), (2, 3): a large (1, 2) straddles two of them.
    assert!(fits(255, &[0, 127, 127, 0], u8_, s8_));
    assert!(!fits(255, &[0, 0, 127, 127], u8_, s8_));
    // An odd K's last value pairs with zero.
    assert!(fits(255, &[0, 0, 127], u8_, s8_));
    // Only u8 A with s8 B.
    assert!(!fits(1, &[1], Elem::S8, s8_));
    assert!(!fits(1, &[1], u8_, Elem::U8));
    // Every batch's A counts (batch 1's A is the large one), and so does
    // every batch's B. Each A is `rows x 2`, B 2 x 1.
    let a_bytes: Vec<u8> = [1u8, 200].iter().flat_map(|&v| vec![v; 2 * rows]).collect();
    let b_bytes = [127u8, 127, 1, 1];
    let big = 2 * rows as i64;
    let cases = [
        ([0, big], [0, 0], false),
        ([big, big], [2, 0], false),
        ([big, big], [2, 2], true),
    ];
    for (a_firsts, b_firsts, want) in cases {
        let first = |i: usize| (a_firsts[i], b_firsts[i]);
        let prob = Problem {
            m: rows,
            n: 1,
            k: 2,
            batches: 2,
            a: Mat {
                bytes: &a_bytes,
                elem: u8_,
                rs: 2,
                cs: 1,
            },
            b: Mat {
                bytes: &b_bytes,
                elem: s8_,
                rs: 1,
                cs: 1,
            },
            first: &first,
        };
        assert_eq!(
            quads_fit(&prob),
            want,
            "A at {a_firsts:?}, B at {b_firsts:?}"
        );
    }
}
