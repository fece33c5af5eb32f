//! Outputs past `vmath::STREAM_BYTES`, which the CPU kinds write with
//! streaming stores on SIMD hosts (eltwise, binary, softmax, the reorders'
//! transposes): each checked element by element against its definition,
//! the output placed 12 bytes into a 64-byte line (so that the aligned
//! streaming middle, the plain head and the plain tail all occur; the
//! reorders also on the line), and the memory around it untouched.

use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::PrimitiveAttr;
use crate::core::engine::{Engine, EngineKind};
use crate::core::memory::{DataHandle, Memory};
use crate::core::memory_desc::MemoryDesc;
use crate::core::primitive::{ExecArgs, Kind, PrimitiveDesc};
use crate::core::stream::{Stream, StreamFlags};
use crate::prims::binary::BinaryOp;
use crate::prims::common::vmath;
use crate::prims::eltwise::EltwiseOp;
use crate::prims::reorder::ReorderOp;
use crate::prims::softmax::SoftmaxOp;

/// f32 elements in an output just past the streaming size.
const N: usize = vmath::STREAM_BYTES / 4 + 37;

/// Floats of padding around the output.
const PAD: usize = 48;
/// Where the outputs start: floats past a 64-byte line.
const SHIFT: usize = 3;

fn cpu() -> Arc<Engine> {
    Engine::create(EngineKind::Cpu, 0).unwrap()
}

fn md(dims: &[i64], tag: dnnl_format_tag_t) -> MemoryDesc {
    MemoryDesc::with_tag(dims, dnnl_f32, tag).unwrap()
}

/// Memory of `md` over the user's floats at `ptr`.
fn over(engine: &Arc<Engine>, md: &MemoryDesc, ptr: *const f32) -> Arc<Memory> {
    let handle = [DataHandle::User(ptr as usize)];
    Memory::create(engine.clone(), md.clone(), None, &handle).unwrap()
}

/// Runs `op` with `args`.
fn run<K: Kind>(engine: &Arc<Engine>, op: K, args: Vec<(i32, Arc<Memory>)>) {
    let pd = PrimitiveDesc::create(engine.clone(), Arc::new(op)).unwrap();
    let prim = pd.create_primitive().unwrap();
    let flags = StreamFlags {
        out_of_order: false,
        profiling: false,
    };
    let stream = Stream::create(engine.clone(), flags).unwrap();
    let args: ExecArgs = args.into_iter().collect();
    prim.execute(&stream, &args, &[]).unwrap();
    stream.wait().unwrap();
}

/// The arguments of a kind with one source, `x`, and `dst`.
fn src_dst(
    engine: &Arc<Engine>,
    m: &MemoryDesc,
    x: &[f32],
    dst: Arc<Memory>,
) -> Vec<(i32, Arc<Memory>)> {
    vec![
        (DNNL_ARG_SRC, over(engine, m, x.as_ptr())),
        (DNNL_ARG_DST, dst),
    ]
}

/// A destination buffer for `n` floats, NaN everywhere.
fn destination(n: usize) -> Vec<f32> {
    vec![f32::NAN; n + PAD]
}

/// The index in `buf` where an output `shift` floats past a 64-byte line
/// starts.
fn start(buf: &[f32], shift: usize) -> usize {
    (buf.as_ptr() as usize).wrapping_neg() % 64 / 4 + 16 + shift
}

/// Checks the output (`buf[at..at + n]`) with `want`, bit for bit, and that
/// the rest of the buffer is still NaN.
fn check(kind: &str, buf: &[f32], at: usize, n: usize, want: impl Fn(usize) -> f32) {
    for (i, &got) in buf[at..at + n].iter().enumerate() {
        let w = want(i);
        assert!(
            got.to_bits() == w.to_bits(),
            "{kind}: element {i}: {got} vs {w}"
        );
    }
    untouched(kind, buf, at, n);
}

/// Checks that the buffer is NaN outside `at..at + n`.
fn untouched(kind: &str, buf: &[f32], at: usize, n: usize) {
    let around = buf[..at].iter().chain(&buf[at + n..]);
    assert!(
        around.into_iter().all(|v| v.is_nan()),
        "{kind}: wrote outside the output"
    );
}

fn values(n: usize, seed: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7 + seed) % 1013) as f32 / 64.0 - 7.0)
        .collect()
}

#[test]
fn eltwise_relu() {
    if !vmath::streams(vmath::level(), vmath::STREAM_BYTES) {
        eprintln!(
            "this host's path ({:?}) takes plain stores: checked those",
            vmath::level()
        );
    }
    let engine = cpu();
    let (x, mut y) = (values(N, 1), destination(N));
    let m = md(&[N as i64], dnnl_a);
    let op =
        EltwiseOp::forward(dnnl_forward_inference, dnnl_eltwise_relu, &m, &m, 0.25, 0.0).unwrap();
    let at = start(&y, SHIFT);
    let dst = over(&engine, &m, y[at..].as_mut_ptr());
    run(&engine, op, src_dst(&engine, &m, &x, dst));
    check("relu", &y, at, N, |i| {
        if x[i] > 0.0 { x[i] } else { x[i] * 0.25 }
    });
}

#[test]
fn binary_add() {
    let engine = cpu();
    let (a, b, mut y) = (values(N, 2), values(N, 500), destination(N));
    let m = md(&[N as i64], dnnl_a);
    let attr = PrimitiveAttr::default();
    let op = BinaryOp::new(dnnl_binary_add, &m, &m, None, &m, &attr).unwrap();
    let at = start(&y, SHIFT);
    let dst = over(&engine, &m, y[at..].as_mut_ptr());
    let args = vec![
        (DNNL_ARG_SRC_0, over(&engine, &m, a.as_ptr())),
        (DNNL_ARG_SRC_1, over(&engine, &m, b.as_ptr())),
        (DNNL_ARG_DST, dst),
    ];
    run(&engine, op, args);
    check("binary add", &y, at, N, |i| a[i] + b[i]);
}

#[test]
fn softmax_rows() {
    let engine = cpu();
    let cols = 1024usize;
    let rows = N.div_ceil(cols);
    let n = rows * cols;
    let (x, mut y) = (values(n, 3), destination(n));
    let m = md(&[rows as i64, cols as i64], dnnl_ab);
    let attr = PrimitiveAttr::default();
    let prop = dnnl_forward_inference;
    let op = SoftmaxOp::forward(prop, dnnl_softmax_accurate, &m, &m, 1, &attr).unwrap();
    let at = start(&y, SHIFT);
    let dst = over(&engine, &m, y[at..].as_mut_ptr());
    run(&engine, op, src_dst(&engine, &m, &x, dst));
    // Against the row in f64 (the stores write what the path computes, so
    // the check is on the softmax itself).
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let max = row
            .iter()
            .fold(f64::NEG_INFINITY, |m, &v| m.max(f64::from(v)));
        let sum: f64 = row.iter().map(|&v| (f64::from(v) - max).exp()).sum();
        for (c, &v) in row.iter().enumerate() {
            let want = (f64::from(v) - max).exp() / sum;
            let got = f64::from(y[at + r * cols + c]);
            assert!(
                (got - want).abs() <= 1e-6 * want + 1e-12,
                "row {r} col {c}: {got} vs {want}"
            );
        }
    }
    untouched("softmax", &y, at, n);
}

/// Both benchmarked transposes, nChw16c to nchw and nchw to nhwc, with the
/// output on a line and off it.
#[test]
fn reorder_transposes() {
    let engine = cpu();
    // 17 x 64 x 56 x 140: just past N elements; rows of 140 end off the
    // 16-element blocks.
    let c = 64i64;
    let dims = [17, c, 56, 140];
    let (h, w) = (dims[2], dims[3]);
    let n = dims.iter().product::<i64>() as usize;
    assert!(n >= N);
    let x = values(n, 4);
    for (from, to) in [(dnnl_nChw16c, dnnl_nchw), (dnnl_nchw, dnnl_nhwc)] {
        // The source's offset of a logical position.
        let src_at = |nn: i64, cc: i64, hh: i64, ww: i64| -> usize {
            let off = if from == dnnl_nChw16c {
                (((nn * (c / 16) + cc / 16) * h + hh) * w + ww) * 16 + cc % 16
            } else {
                ((nn * c + cc) * h + hh) * w + ww
            };
            off as usize
        };
        // The logical position of the destination's element i.
        let dst_pos = |i: i64| {
            if to == dnnl_nchw {
                (i / (c * h * w), i / (h * w) % c, i / w % h, i % w)
            } else {
                (i / (c * h * w), i % c, i / (w * c) % h, i / c % w)
            }
        };
        for shift in [0, SHIFT] {
            let (ms, md_) = (md(&dims, from), md(&dims, to));
            let mut y = destination(n);
            let at = start(&y, shift);
            let op = ReorderOp::new(&ms, engine.clone(), &md_, engine.clone(), None).unwrap();
            let dst = over(&engine, &md_, y[at..].as_mut_ptr());
            let src = over(&engine, &ms, x.as_ptr());
            run(&engine, op, vec![(DNNL_ARG_FROM, src), (DNNL_ARG_TO, dst)]);
            let kind = format!("reorder {from:?} to {to:?}, +{shift}");
            check(&kind, &y, at, n, |i| {
                let (nn, cc, hh, ww) = dst_pos(i as i64);
                x[src_at(nn, cc, hh, ww)]
            });
        }
    }
}
