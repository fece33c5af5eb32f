//! The experimental profiling API (`DNNL_EXPERIMENTAL_PROFILING`): device times
//! of the primitive executions on a profiling GPU stream.
//!
//! Layer: capi. The module is compiled with the `experimental_profiling`
//! feature (on by default). The times are kept by the stream
//! (`core::stream::Profiler`): one entry per execution, the span from its first
//! kernel's start to its last kernel's end, in nanoseconds, in execution order.
//! Upstream's answers: a stream of the CPU engine gets `dnnl_unimplemented`, a
//! GPU stream without profiling `dnnl_invalid_arguments`.

use ::core::ffi::c_int;

use crate::abi::*;
use crate::capi::{boundary, handles};
use crate::core::error::Error;

/// Forgets every execution the stream has profiled so far.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_reset_profiling(stream: dnnl_stream_t) -> dnnl_status_t {
    boundary::guard("dnnl_reset_profiling", || {
        handles::resolve(stream)?.reset_profiling()
    })
}

/// With `data` NULL: writes to `*num_entries` how many executions the stream
/// has profiled since the last reset (`data_kind` is not looked at). Otherwise
/// `data_kind` must be `dnnl_profiling_data_kind_time`, and the device time of
/// the first `*num_entries` executions (at most as many as there are) is written
/// to `data`, in nanoseconds, oldest first; `*num_entries` becomes the number
/// written. On OpenCL, executions still running are waited for; on Level Zero
/// they must have completed (`dnnl_invalid_arguments` otherwise: call
/// `dnnl_stream_wait` first, as upstream requires).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dnnl_query_profiling_data(
    stream: dnnl_stream_t,
    data_kind: dnnl_profiling_data_kind_t,
    num_entries: *mut c_int,
    data: *mut u64,
) -> dnnl_status_t {
    boundary::guard("dnnl_query_profiling_data", || {
        let stream = handles::resolve(stream)?;
        let count_out = boundary::out(num_entries, "num_entries")?;
        if data.is_null() {
            let count = stream.profiled_count()?;
            count_out.write(c_int::try_from(count).unwrap_or(c_int::MAX));
            return Ok(());
        }
        if data_kind != dnnl_profiling_data_kind_time {
            return Err(Error::invalid(format!(
                "profiling data kind {} is not supported (only time)",
                data_kind.0
            )));
        }
        if !data.is_aligned() {
            return Err(Error::invalid("data is misaligned"));
        }
        // SAFETY: checked non-NULL and aligned (boundary::out); the caller's int.
        let capacity = unsafe { num_entries.read() };
        let capacity = usize::try_from(capacity)
            .map_err(|_| Error::invalid(format!("*num_entries is negative ({capacity})")))?;
        let times = stream.profiled_times()?;
        let n = times.len().min(capacity);
        // SAFETY: the caller provides room for *num_entries values (C contract);
        // n is at most that.
        unsafe { std::ptr::copy_nonoverlapping(times.as_ptr(), data, n) };
        count_out.write(n as c_int);
        Ok(())
    })
}
