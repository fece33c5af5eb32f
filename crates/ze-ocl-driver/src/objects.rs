//! Handles and the entry-point guard.
//!
//! Every handle the driver gives out is the address of an `Arc<T>`'s value, entered in
//! the registry of its type. A handle coming in is looked up there: NULL is
//! `ZE_RESULT_ERROR_INVALID_NULL_HANDLE`, an address that is not a live object of that
//! type (garbage, destroyed, another type) is `ZE_RESULT_ERROR_INVALID_ARGUMENT`, never
//! a dereference. The lookup hands back a clone of the `Arc`, so an object destroyed by
//! another thread meanwhile stays valid for the call that holds it.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};

use level_zero_sys::*;

/// What the driver's internals return.
pub type ZeResult<T> = Result<T, ze_result_t>;

/// The live objects of one type, by handle value.
pub struct Registry<T> {
    live: Mutex<Option<HashMap<usize, Arc<T>>>>,
}

impl<T> Registry<T> {
    pub const fn new() -> Self {
        Registry {
            live: Mutex::new(None),
        }
    }

    /// Enters `object`; its handle is the address of the `Arc`'s value.
    pub fn insert<H>(&self, object: Arc<T>) -> *mut H {
        let handle = Arc::as_ptr(&object) as usize;
        self.live
            .lock()
            .unwrap()
            .get_or_insert_with(HashMap::new)
            .insert(handle, object);
        handle as *mut H
    }

    /// The object behind `handle`.
    pub fn get<H>(&self, handle: *mut H) -> ZeResult<Arc<T>> {
        if handle.is_null() {
            return Err(ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
        }
        let live = self.live.lock().unwrap();
        live.as_ref()
            .and_then(|map| map.get(&(handle as usize)))
            .cloned()
            .ok_or(ZE_RESULT_ERROR_INVALID_ARGUMENT)
    }

    /// Removes `handle` and returns its object (dropped by the caller, after any
    /// waiting it must do).
    pub fn remove<H>(&self, handle: *mut H) -> ZeResult<Arc<T>> {
        if handle.is_null() {
            return Err(ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
        }
        let mut live = self.live.lock().unwrap();
        live.as_mut()
            .and_then(|map| map.remove(&(handle as usize)))
            .ok_or(ZE_RESULT_ERROR_INVALID_ARGUMENT)
    }
}

/// Runs an entry point's body: `Ok(())` is `ZE_RESULT_SUCCESS`, a panic is
/// `ZE_RESULT_ERROR_UNKNOWN` (a panic must not unwind into the loader).
pub fn guard(body: impl FnOnce() -> ZeResult<()>) -> ze_result_t {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => ZE_RESULT_SUCCESS,
        Ok(Err(e)) => e,
        Err(_) => ZE_RESULT_ERROR_UNKNOWN,
    }
}

/// A required output pointer.
pub fn out<'a, T>(ptr: *mut T) -> ZeResult<&'a mut T> {
    // SAFETY: non-NULL output pointers of the API point at writable storage (the
    // caller's contract; the validation layer checks the same).
    unsafe { ptr.as_mut() }.ok_or(ZE_RESULT_ERROR_INVALID_NULL_POINTER)
}

/// A required input pointer.
pub fn input<'a, T>(ptr: *const T) -> ZeResult<&'a T> {
    // SAFETY: as for `out`.
    unsafe { ptr.as_ref() }.ok_or(ZE_RESULT_ERROR_INVALID_NULL_POINTER)
}

/// A `(count, array)` input pair; NULL with count 0 is the empty slice.
pub fn slice<'a, T>(ptr: *const T, count: u32) -> ZeResult<&'a [T]> {
    if count == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    }
    // SAFETY: the caller passes `count` readable elements.
    Ok(unsafe { std::slice::from_raw_parts(ptr, count as usize) })
}

/// The Level Zero "count then fill" protocol: `*count == 0` (or no array) asks for the
/// number of items; otherwise at most `*count` are written and `*count` becomes the
/// number written.
pub fn fill_array<T: Clone>(count: *mut u32, array: *mut T, items: &[T]) -> ZeResult<()> {
    let count = out(count)?;
    if *count == 0 || array.is_null() {
        *count = items.len() as u32;
        return Ok(());
    }
    let n = (*count as usize).min(items.len());
    for (i, item) in items[..n].iter().enumerate() {
        // SAFETY: the caller provides *count writable elements.
        unsafe { array.add(i).write(item.clone()) };
    }
    *count = n as u32;
    Ok(())
}

/// Writes `text` into a `char name[N]` field (truncated, NUL-terminated).
pub fn set_c_string(dst: &mut [std::ffi::c_char], text: &str) {
    dst.fill(0);
    let room = dst.len().saturating_sub(1);
    for (d, b) in dst.iter_mut().zip(text.bytes().take(room)) {
        *d = b as std::ffi::c_char;
    }
}

/// Declares a table of exported getter functions: `zeGet<Name>ProcAddrTable` fills
/// the loader's `ze_<name>_dditable_t` with this driver's functions (others stay NULL).
macro_rules! proc_addr_table {
    ($getter:ident, $table:ty, { $($slot:ident => $func:path),* $(,)? }) => {
        #[doc = concat!("Fills the loader's `", stringify!($table), "` (ze_ddi.h).")]
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $getter(
            version: ze_api_version_t,
            table: *mut $table,
        ) -> ze_result_t {
            $crate::objects::guard(|| {
                $crate::driver::check_ddi_version(version)?;
                let table = $crate::objects::out(table)?;
                *table = <$table>::default();
                $(table.$slot = Some($func);)*
                Ok(())
            })
        }
    };
}
