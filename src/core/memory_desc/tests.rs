//! Unit tests of the descriptor model: small shapes, hand-computed layouts.
//! Values were also checked against upstream's library (see the C tests).

use super::*;
use crate::core::error::Error;
use crate::core::error::Result;

const RT: i64 = RUNTIME_DIM;

fn tag(dims: &[i64], dt: dnnl_data_type_t, t: dnnl_format_tag_t) -> MemoryDesc {
    MemoryDesc::with_tag(dims, dt, t).unwrap()
}

fn strides(md: &MemoryDesc) -> &[i64] {
    &md.blocking().unwrap().strides[..md.ndims()]
}

fn is_invalid<T: std::fmt::Debug>(r: Result<T>) -> bool {
    matches!(r, Err(Error::InvalidArguments(_)))
}

fn is_unimplemented<T: std::fmt::Debug>(r: Result<T>) -> bool {
    matches!(r, Err(Error::Unimplemented(_)))
}

#[test]
fn plain_tags() {
    let md = tag(&[2, 3, 4, 5], dnnl_f32, dnnl_nchw);
    assert_eq!(strides(&md), [60, 20, 5, 1]);
    assert_eq!((md.size(0), md.num_handles(), md.offset0()), (480, 1, 0));
    let md = tag(&[2, 3, 4, 5], dnnl_f32, dnnl_nhwc);
    assert_eq!(strides(&md), [60, 1, 15, 3]);
    assert_eq!(md.padded_dims(), [2, 3, 4, 5]);
    let md = tag(&[2, 3], dnnl_bf16, dnnl_ba);
    assert_eq!((strides(&md), md.size(0)), (&[1, 2][..], 12));
}

#[test]
fn blocked_tags_pad_and_block() {
    let md = tag(&[2, 17, 3, 5], dnnl_f32, dnnl_nChw16c);
    assert_eq!(md.padded_dims(), [2, 32, 3, 5]);
    assert_eq!(strides(&md), [480, 240, 80, 16]);
    let b = md.blocking().unwrap();
    assert_eq!(
        (b.inner_nblks, b.inner_blks[0], b.inner_idxs[0]),
        (1, 16, 1)
    );
    assert_eq!(md.size(0), 2 * 32 * 3 * 5 * 4);

    let md = tag(&[2, 17, 3, 5], dnnl_f32, dnnl_OIhw16i16o);
    assert_eq!(md.padded_dims(), [16, 32, 3, 5]);
    assert_eq!(strides(&md), [7680, 3840, 1280, 256]);
    assert_eq!(
        md.blocking().unwrap().inner().collect::<Vec<_>>(),
        [(16, 1), (16, 0)]
    );
    assert_eq!(md.size(0), 30720);

    // Three inner blocks, `b` split twice.
    let md = tag(&[2, 17, 3, 5], dnnl_f32, dnnl_ABcd4b16a4b);
    assert_eq!(md.padded_dims(), [16, 32, 3, 5]);
    assert_eq!(md.blocks()[..4], [16, 16, 1, 1]);
}

#[test]
fn zero_and_runtime_dims() {
    // A zero dimension counts as 1 in the strides outside it; size 0.
    let md = tag(&[2, 0, 4, 5], dnnl_f32, dnnl_nchw);
    assert_eq!((strides(&md), md.size(0)), (&[20, 20, 5, 1][..], 0));
    // A run-time dimension makes the strides outside it run-time.
    let md = tag(&[2, RT, 4, 5], dnnl_f32, dnnl_nchw);
    assert_eq!(strides(&md), [RT, 20, 5, 1]);
    assert!(md.has_runtime_dims_or_strides());
    assert_eq!(md.size(0), RUNTIME_SIZE);
    assert!(is_invalid(MemoryDesc::with_tag(
        &[2, RT],
        dnnl_f32,
        dnnl_format_tag_any
    )));
}

#[test]
fn any_undef_and_bad_arguments() {
    let any = tag(&[2, 3], dnnl_f32, dnnl_format_tag_any);
    assert!(any.is_any_format() && any.blocking().is_none());
    assert_eq!((any.size(0), any.padded_dims()), (0, &[2, 3][..]));
    assert!(tag(&[2, 3], dnnl_f32, dnnl_format_tag_undef).is_zero());
    assert!(tag(&[], dnnl_data_type_undef, dnnl_nchw).is_zero());
    assert_eq!(MemoryDesc::zero().size(0), 0);
    assert!(is_invalid(MemoryDesc::with_tag(
        &[2, 3, 4],
        dnnl_f32,
        dnnl_nchw
    )));
    assert!(is_invalid(MemoryDesc::with_tag(
        &[2, -3],
        dnnl_f32,
        dnnl_ab
    )));
    assert!(is_invalid(MemoryDesc::with_tag(
        &[2, 3],
        dnnl_data_type_undef,
        dnnl_ab
    )));
    assert!(is_invalid(MemoryDesc::with_tag(
        &[2, 3],
        dnnl_data_type_t(99),
        dnnl_ab
    )));
    assert!(is_invalid(MemoryDesc::with_tag(
        &[2, 3],
        dnnl_f32,
        dnnl_format_tag_t(5000)
    )));
    assert!(is_invalid(MemoryDesc::with_tag(
        &[1; 13],
        dnnl_f32,
        dnnl_format_tag_any
    )));
}

#[test]
fn strides_rules() {
    let md = MemoryDesc::with_strides(&[2, 3, 4], dnnl_f32, None).unwrap();
    assert_eq!(md, tag(&[2, 3, 4], dnnl_f32, dnnl_abc));
    let gaps = MemoryDesc::with_strides(&[2, 3], dnnl_f32, Some(&[10, 2])).unwrap();
    assert_eq!(gaps.size(0), 80);
    let broadcast = MemoryDesc::with_strides(&[2, 3], dnnl_f32, Some(&[0, 1])).unwrap();
    assert_eq!(broadcast.size(0), 12);
    // A dimension of 1 may carry any stride.
    assert!(MemoryDesc::with_strides(&[2, 1], dnnl_f32, Some(&[2, 3])).is_ok());
    assert!(is_invalid(MemoryDesc::with_strides(
        &[2, 3],
        dnnl_f32,
        Some(&[2, 1])
    )));
    assert!(is_invalid(MemoryDesc::with_strides(
        &[2, 3],
        dnnl_f32,
        Some(&[-3, 1])
    )));
    // Dense strides outside a zero dimension are 0.
    let md = MemoryDesc::with_strides(&[2, 0, 3], dnnl_f32, None).unwrap();
    assert_eq!(strides(&md), [0, 3, 1]);
    let md = MemoryDesc::with_strides(&[2, RT, 4, 5], dnnl_f32, None).unwrap();
    assert_eq!(strides(&md), [RT, RT, 5, 1]);
}

#[test]
fn four_bit_types() {
    assert!(is_invalid(MemoryDesc::with_tag(&[2, 3], dnnl_s4, dnnl_ab)));
    assert_eq!(tag(&[2, 3], dnnl_s4, dnnl_ba).size(0), 3);
    assert_eq!(tag(&[1, 3], dnnl_u4, dnnl_ab).size(0), 2);
    assert_eq!(tag(&[3], dnnl_f4_e2m1, dnnl_a).size(0), 2);
}

#[test]
fn host_scalar_and_sparse() {
    let hs = MemoryDesc::host_scalar(dnnl_f16).unwrap();
    assert!(hs.is_host_scalar());
    assert_eq!(
        (hs.ndims(), hs.dims(), hs.padded_dims(), hs.size(0)),
        (1, &[1][..], &[0][..], 2)
    );
    assert!(is_invalid(MemoryDesc::host_scalar(dnnl_data_type_undef)));

    use SparseEncoding::*;
    let csr =
        MemoryDesc::with_sparse_encoding(Csr, &[5, 7], dnnl_f32, 9, dnnl_s32, dnnl_s64).unwrap();
    assert_eq!(csr.num_handles(), 3);
    assert_eq!(
        [csr.size(0), csr.size(1), csr.size(2), csr.size(3)],
        [36, 36, 48, 0]
    );
    let coo =
        MemoryDesc::with_sparse_encoding(Coo, &[5, 7], dnnl_f16, 9, dnnl_s32, dnnl_data_type_undef)
            .unwrap();
    assert_eq!((coo.num_handles(), coo.size(0), coo.size(2)), (3, 18, 36));
    let packed = MemoryDesc::with_sparse_encoding(
        Packed,
        &[2, 3, 4],
        dnnl_f32,
        9,
        dnnl_data_type_undef,
        dnnl_data_type_undef,
    )
    .unwrap();
    assert_eq!((packed.num_handles(), packed.size(0)), (3, 0));
    assert!(is_unimplemented(MemoryDesc::with_sparse_encoding(
        Csr,
        &[2, 3, 4],
        dnnl_f32,
        9,
        dnnl_s32,
        dnnl_s32
    )));
    assert!(is_invalid(MemoryDesc::with_sparse_encoding(
        Coo,
        &[2, 3],
        dnnl_f32,
        -1,
        dnnl_s32,
        dnnl_s32
    )));
    assert!(is_invalid(MemoryDesc::with_sparse_encoding(
        Coo,
        &[2, 3],
        dnnl_f32,
        1,
        dnnl_data_type_t(99),
        dnnl_s32
    )));
}

#[test]
fn submemory() {
    let parent = tag(&[2, 40, 6, 7], dnnl_f32, dnnl_nchw);
    let sub = parent.submemory(&[1, 8, 2, 3], &[1, 4, 2, 3]).unwrap();
    assert_eq!(sub.offset0(), 1680 + 4 * 42 + 2 * 7 + 3);
    assert_eq!((strides(&sub), sub.size(0)), (strides(&parent), 8 * 42 * 4));
    assert!(is_invalid(parent.submemory(&[2, 8, 2, 3], &[1, 4, 2, 3])));
    assert!(is_invalid(parent.submemory(&[1, 8, 2, 3], &[-1, 4, 2, 3])));

    let blocked = tag(&[2, 40, 6, 7], dnnl_f32, dnnl_nChw16c);
    let sub = blocked.submemory(&[1, 16, 2, 3], &[1, 16, 2, 3]).unwrap();
    assert_eq!(sub.offset0(), 2016 + 672 + 2 * 112 + 3 * 16);
    // Reaching the end keeps the parent's padding.
    let sub = blocked.submemory(&[1, 8, 2, 3], &[1, 32, 2, 3]).unwrap();
    assert_eq!(sub.padded_dims(), [1, 16, 2, 3]);
    assert!(is_unimplemented(
        blocked.submemory(&[1, 8, 2, 3], &[1, 4, 2, 3])
    ));
    assert!(is_unimplemented(
        blocked.submemory(&[1, 17, 2, 3], &[1, 0, 2, 3])
    ));
    let any = tag(&[2, 3], dnnl_f32, dnnl_format_tag_any);
    assert!(is_unimplemented(any.submemory(&[1, 1], &[0, 0])));
}

#[test]
fn reshape() {
    let nchw = tag(&[2, 3, 4, 5], dnnl_f32, dnnl_nchw);
    assert_eq!(
        nchw.reshape(&[6, 20]).unwrap(),
        tag(&[6, 20], dnnl_f32, dnnl_ab)
    );
    assert_eq!(nchw.reshape(&[1, 120, 1]).unwrap().size(0), 480);
    let nhwc = tag(&[2, 3, 4, 5], dnnl_f32, dnnl_nhwc);
    assert!(is_invalid(nhwc.reshape(&[6, 20])));
    assert_eq!(strides(&nhwc.reshape(&[2, 3, 20]).unwrap()), [60, 1, 3]);
    assert!(is_invalid(nchw.reshape(&[7, 20])));
    assert!(is_invalid(nchw.reshape(&[])));
    // A padded (blocked) dimension cannot be split or joined.
    let blocked = tag(&[2, 17, 3, 5], dnnl_f32, dnnl_nChw16c);
    assert!(blocked.reshape(&[2, 17, 15]).is_ok());
    assert!(is_invalid(blocked.reshape(&[34, 15])));
    let any = tag(&[2, 3], dnnl_f32, dnnl_format_tag_any);
    assert!(any.reshape(&[3, 2]).unwrap().is_any_format());
    assert!(is_invalid(
        MemoryDesc::host_scalar(dnnl_f32).unwrap().reshape(&[1])
    ));
}

#[test]
fn permute_and_equality() {
    let nchw = tag(&[2, 3, 4, 5], dnnl_f32, dnnl_nchw);
    let p = nchw.permute_axes(&[0, 3, 1, 2]).unwrap();
    assert_eq!(
        (p.dims(), strides(&p)),
        (&[2, 4, 5, 3][..], &[60, 5, 1, 20][..])
    );
    let ab = tag(&[2, 3], dnnl_f32, dnnl_ab);
    assert_eq!(
        ab.permute_axes(&[1, 0]).unwrap(),
        tag(&[3, 2], dnnl_f32, dnnl_ba)
    );
    assert!(is_invalid(nchw.permute_axes(&[0, 0, 1, 2])));
    assert!(is_invalid(nchw.permute_axes(&[0, 1, 2, 4])));
    // The stride of a dimension of 1 does not matter to equality.
    let a = MemoryDesc::with_strides(&[1, 3], dnnl_f32, Some(&[3, 1])).unwrap();
    let b = MemoryDesc::with_strides(&[1, 3], dnnl_f32, Some(&[7, 1])).unwrap();
    assert_eq!(a, b);
    assert_ne!(nchw, tag(&[2, 3, 4, 5], dnnl_f32, dnnl_nhwc));
}

#[test]
fn queries() {
    let md = tag(&[2, 17, 3, 5], dnnl_f32, dnnl_nChw16c);
    let q = |what| md.query(what, 0, QueryVersion::V2).unwrap();
    assert_eq!(q(dnnl_query_ndims_s32), QueryValue::S32(4));
    assert_eq!(q(dnnl_query_dims), QueryValue::Dims(&md.dims));
    assert_eq!(q(dnnl_query_inner_nblks_s32), QueryValue::S32(1));
    assert_eq!(
        q(dnnl_query_format_kind),
        QueryValue::FormatKind(dnnl_blocked)
    );
    assert_eq!(q(dnnl_query_num_handles_s32), QueryValue::S32(1));
    assert!(is_invalid(md.query(
        dnnl_query_nnz_s64,
        0,
        QueryVersion::V2
    )));
    assert!(is_invalid(md.query(
        dnnl_query_data_type,
        1,
        QueryVersion::V2
    )));
    assert!(is_unimplemented(md.query(
        dnnl_query_num_handles_s32,
        0,
        QueryVersion::V1
    )));
    assert!(is_unimplemented(md.query(
        dnnl_query_engine,
        0,
        QueryVersion::V1
    )));
    let any = tag(&[2, 3], dnnl_f32, dnnl_format_tag_any);
    assert!(is_invalid(any.query(
        dnnl_query_strides,
        0,
        QueryVersion::V1
    )));

    let csr = MemoryDesc::with_sparse_encoding(
        SparseEncoding::Csr,
        &[5, 7],
        dnnl_f32,
        9,
        dnnl_s32,
        dnnl_s64,
    )
    .unwrap();
    let q = |what, i| csr.query(what, i, QueryVersion::V2).unwrap();
    assert_eq!(q(dnnl_query_data_type, 2), QueryValue::DataType(dnnl_s64));
    assert_eq!(
        q(dnnl_query_sparse_encoding, 0),
        QueryValue::SparseEncoding(dnnl_csr)
    );
    assert_eq!(q(dnnl_query_nnz_s64, 0), QueryValue::S64(9));
}

fn samples() -> Vec<MemoryDesc> {
    let nchw = tag(&[2, 40, 6, 7], dnnl_f32, dnnl_nchw);
    vec![
        MemoryDesc::zero(),
        nchw.submemory(&[1, 8, 2, 3], &[1, 4, 2, 3]).unwrap(),
        tag(&[2, 17, 3, 5], dnnl_s8, dnnl_ABcd4b16a4b),
        tag(&[2, RT], dnnl_f32, dnnl_ab),
        tag(&[2, 3], dnnl_f32, dnnl_format_tag_any),
        MemoryDesc::host_scalar(dnnl_f64).unwrap(),
        MemoryDesc::with_sparse_encoding(
            SparseEncoding::Csr,
            &[5, 7],
            dnnl_f32,
            9,
            dnnl_s32,
            dnnl_s64,
        )
        .unwrap(),
        MemoryDesc::with_sparse_encoding(
            SparseEncoding::Coo,
            &[5],
            dnnl_f32,
            RT,
            dnnl_s32,
            dnnl_data_type_undef,
        )
        .unwrap(),
        tag(&[1; 12], dnnl_f32, dnnl_abcdefghijlk),
        MemoryDesc::grouped(&[9, 16], dnnl_bf16, 1, 3, dnnl_s32).unwrap(),
    ]
}

#[test]
fn grouped() {
    let g = MemoryDesc::grouped(&[9, 16], dnnl_f32, 0, 3, dnnl_s32).unwrap();
    assert_eq!(g.num_handles(), 2);
    assert_eq!([g.size(0), g.size(1), g.size(2)], [9 * 16 * 4, 12, 0]);
    let q = |what, index| g.query(what, index, QueryVersion::V2).unwrap();
    assert_eq!(
        q(dnnl_query_sparse_encoding, 0),
        QueryValue::SparseEncoding(GROUPED_ENCODING)
    );
    assert_eq!(q(dnnl_query_nnz_s64, 0), QueryValue::S64(144));
    assert_eq!(q(dnnl_query_data_type, 1), QueryValue::DataType(dnnl_s32));
    assert_ne!(
        g,
        MemoryDesc::grouped(&[9, 16], dnnl_f32, 0, 4, dnnl_s32).unwrap()
    );
    // The offsets exist whatever the values.
    let empty = MemoryDesc::grouped(&[0, 16], dnnl_f32, 0, 2, dnnl_s32).unwrap();
    assert_eq!([empty.size(0), empty.size(1)], [0, 8]);
    let runtime = MemoryDesc::grouped(&[RT, 16], dnnl_f32, 0, 2, dnnl_s32).unwrap();
    assert_eq!([runtime.size(0), runtime.size(1)], [RUNTIME_SIZE, 8]);
    assert!(is_invalid(MemoryDesc::grouped(
        &[9, 16],
        dnnl_f32,
        2,
        3,
        dnnl_s32
    )));
    assert!(is_invalid(MemoryDesc::grouped(
        &[9, 16],
        dnnl_f32,
        -1,
        3,
        dnnl_s32
    )));
    assert!(is_invalid(MemoryDesc::grouped(
        &[9, 16],
        dnnl_f32,
        0,
        0,
        dnnl_s32
    )));
    assert!(is_unimplemented(MemoryDesc::grouped(
        &[9, 16],
        dnnl_f32,
        0,
        3,
        dnnl_s64
    )));
    assert!(
        MemoryDesc::grouped(&[], dnnl_f32, 0, 3, dnnl_s32)
            .unwrap()
            .is_zero()
    );
}

#[test]
fn blob_round_trip() {
    for md in samples() {
        let blob = md.to_blob();
        let header: &[u8; BLOB_HEADER_LEN] = blob[..BLOB_HEADER_LEN].try_into().unwrap();
        assert_eq!(MemoryDesc::blob_len(header).unwrap(), blob.len());
        let back = MemoryDesc::from_blob(&blob).unwrap();
        assert_eq!(back, md);
        assert_eq!(format!("{back:?}"), format!("{md:?}"), "bit-exact");
    }
}

#[test]
fn damaged_blobs_are_refused() {
    for md in samples() {
        let blob = md.to_blob();
        for i in 0..blob.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut bad = blob.clone();
                bad[i] ^= flip;
                assert!(
                    is_invalid(MemoryDesc::from_blob(&bad)),
                    "byte {i} ^ {flip:#x} of {md:?}"
                );
            }
        }
        for len in 0..blob.len() {
            assert!(
                is_invalid(MemoryDesc::from_blob(&blob[..len])),
                "truncated to {len}"
            );
        }
        let mut long = blob.clone();
        long.push(0);
        assert!(is_invalid(MemoryDesc::from_blob(&long)));
    }
}

#[test]
fn well_formed_blobs_of_impossible_descriptors_are_refused() {
    // Re-seal a blob after editing its payload, so that only validation can
    // refuse it: a block index past ndims, a negative dimension, ndims 13.
    fn reseal(mut blob: Vec<u8>) -> Vec<u8> {
        let sum = super::blob::checksum_for_tests(&blob);
        blob[16..24].copy_from_slice(&sum.to_le_bytes());
        blob
    }
    let md = tag(&[2, 17], dnnl_f32, dnnl_Ab32a);
    let blob = md.to_blob();
    let p = BLOB_HEADER_LEN;
    // Payload: 4 u32, offset0, dims[2], pd[2], po[2], strides[2], nblks, pad, blks[1], idxs[1].
    let idx_at = p + 16 + 8 + 8 * 8 + 8 + 8;
    let mut bad = blob.clone();
    bad[idx_at..idx_at + 8].copy_from_slice(&5i64.to_le_bytes());
    assert!(is_invalid(MemoryDesc::from_blob(&reseal(bad))));
    let mut bad = blob.clone();
    bad[p + 24..p + 32].copy_from_slice(&(-2i64).to_le_bytes());
    assert!(is_invalid(MemoryDesc::from_blob(&reseal(bad))));
    let mut bad = blob.clone();
    bad[p..p + 4].copy_from_slice(&13u32.to_le_bytes());
    assert!(is_invalid(MemoryDesc::from_blob(&reseal(bad))));
    let mut bad = blob;
    bad[8..12].copy_from_slice(&2u32.to_le_bytes());
    assert!(
        is_invalid(MemoryDesc::from_blob(&reseal(bad))),
        "another version"
    );
}

#[test]
fn sizes_beyond_upstream_limits_are_refused() {
    const P62: i64 = 1 << 62;
    // Bytes beyond `size_t` (they used to saturate into a wrong size).
    assert!(is_invalid(MemoryDesc::with_tag(
        &[P62, 8],
        dnnl_f32,
        dnnl_ab
    )));
    assert!(is_invalid(MemoryDesc::with_tag(&[P62], dnnl_f32, dnnl_a)));
    assert!(is_invalid(MemoryDesc::with_strides(
        &[3, 5],
        dnnl_f32,
        Some(&[P62, 1])
    )));
    // Elements beyond `dnnl_dim_t`, whatever the bytes and the format: the
    // count, or the extent the strides give (2^63 u8 would fit `size_t`).
    assert!(is_invalid(MemoryDesc::with_strides(
        &[2, 4],
        dnnl_u8,
        Some(&[P62, 1])
    )));
    assert!(is_invalid(MemoryDesc::with_tag(
        &[P62, 2],
        dnnl_u8,
        dnnl_ab
    )));
    assert!(is_invalid(MemoryDesc::with_tag(
        &[P62, 2],
        dnnl_u8,
        dnnl_format_tag_any
    )));
    assert!(is_invalid(MemoryDesc::with_strides(
        &[1 << 40, 1 << 40],
        dnnl_f32,
        Some(&[0, 0])
    )));
    // Padding up to a block, and the strides of the blocked layout.
    assert!(is_invalid(MemoryDesc::with_tag(
        &[i64::MAX - 3, 1],
        dnnl_u8,
        dnnl_Ab32a
    )));
    assert!(is_invalid(MemoryDesc::with_tag(
        &[i64::MAX - 3, 3],
        dnnl_f32,
        dnnl_Ab32a
    )));
    // A sparse buffer beyond `size_t` (deliberate difference: upstream's wraps).
    assert!(is_invalid(MemoryDesc::with_sparse_encoding(
        SparseEncoding::Coo,
        &[4, 4],
        dnnl_f32,
        P62,
        dnnl_s32,
        dnnl_data_type_undef
    )));
    // The largest that fit are sized exactly.
    assert_eq!(tag(&[1 << 61, 1], dnnl_f32, dnnl_ab).size(0), 1 << 63);
    assert_eq!(tag(&[P62], dnnl_u8, dnnl_a).size(0), 1 << 62);
    assert_eq!(tag(&[i64::MAX], dnnl_u8, dnnl_a).size(0), i64::MAX as usize);
    assert_eq!(tag(&[1 << 61], dnnl_s4, dnnl_a).size(0), 1 << 60);
    assert_eq!(tag(&[1 << 61, 1], dnnl_f32, dnnl_ab).nelems(), 1 << 61);
    let big = tag(&[1 << 61, 1, 1], dnnl_f32, dnnl_abc);
    assert_eq!(big.reshape(&[1 << 60, 2]).unwrap().size(0), 1 << 63);
    assert_eq!(big.permute_axes(&[2, 1, 0]).unwrap().size(0), 1 << 63);
    // Run-time dimensions are not known yet: not checked.
    assert_eq!(tag(&[RT, P62], dnnl_f32, dnnl_ab).size(0), RUNTIME_SIZE);
}

#[test]
fn blobs_of_descriptors_beyond_the_limits_are_refused() {
    let md = tag(&[2, 17], dnnl_f32, dnnl_Ab32a);
    let mut blob = md.to_blob();
    // Payload: 4 u32, offset0, dims[2], pd[2], po[2], then strides[2].
    let stride1_at = BLOB_HEADER_LEN + 16 + 8 + 3 * 16 + 8;
    blob[stride1_at..stride1_at + 8].copy_from_slice(&(1i64 << 62).to_le_bytes());
    let sum = super::blob::checksum_for_tests(&blob);
    blob[16..24].copy_from_slice(&sum.to_le_bytes());
    assert!(is_invalid(MemoryDesc::from_blob(&blob)));
}
