//! The one shape every reference-counted OpenCL handle type has.
//!
//! Layer: `runtime::ocl`. `cl_handle!` declares a `#[repr(transparent)]`
//! wrapper over a raw handle with the ownership rules of STYLE.md:
//! `from_owned(raw)` takes over a reference we created, `retain_borrowed(raw)`
//! checks and retains the user's handle, `Clone` retains, `Drop` releases (a
//! failed release is logged, never a panic), `raw()` borrows. There is no
//! conversion that gives the raw handle away by value.
//!
//! Why the wrappers are `Send + Sync`: OpenCL objects are reference-counted
//! driver objects, and every OpenCL API call is thread-safe except
//! `clSetKernelArg`, `clSetKernelExecInfo` and `clCloneKernel` on one kernel
//! (OpenCL 3.0 §A.2). The wrappers hold nothing but the handle, and the only
//! unsafe-to-share calls are made in `program.rs`, under a lock per kernel.

/// Declares a handle type; see the module documentation.
macro_rules! cl_handle {
    (
        $(#[$meta:meta])*
        pub struct $name:ident($raw:ty), $cname:literal;
        kind: $kind:ident, retain: $retain:ident, release: $release:ident, info: $info:ident,
        refcount: $param:expr;
    ) => {
        $(#[$meta])*
        #[repr(transparent)]
        pub struct $name {
            raw: $raw,
        }

        // SAFETY: see the module documentation of `handle.rs`: the handle is a
        // pointer to a thread-safe, reference-counted driver object.
        unsafe impl Send for $name {}
        // SAFETY: as above; the wrapper has no interior mutability.
        unsafe impl Sync for $name {}

        impl $name {
            /// Takes over a reference that we own (the driver just created
            /// the object for us); `Drop` releases it.
            ///
            /// # Safety
            #[doc = concat!("`raw` must be a valid, non-NULL `", $cname, "` whose reference this call takes over.")]
            pub unsafe fn from_owned(raw: $raw) -> Self {
                debug_assert!(!raw.is_null());
                $name { raw }
            }

            /// Retains a handle the user gave us, after the foreign-handle
            /// checks (`foreign.rs`: NULL, wild pointers, objects of no
            /// loaded platform and, where the driver tells, objects of
            /// another type give invalid-arguments errors); `Drop` releases it.
            ///
            /// # Safety
            /// `raw` may be any value, but memory that starts with the
            /// dispatch table of a loaded OpenCL platform must be a live
            /// object (a released or forged one reaches the driver, which may
            /// crash; see `foreign.rs`).
            pub unsafe fn retain_borrowed(raw: $raw) -> $crate::base::Result<Self> {
                $crate::runtime::ocl::foreign::check(
                    $crate::runtime::ocl::foreign::Kind::$kind,
                    raw.cast_const().cast(),
                )?;
                let retain = $crate::runtime::ocl::loader::entry!($retain)?;
                // SAFETY: `raw` passed the checks above: an object of this
                // type as far as OpenCL lets us tell.
                let code = unsafe { retain(raw) };
                if code != $crate::runtime::ocl::sys::CL_SUCCESS {
                    return Err($crate::runtime::ocl::error::user_error(code, stringify!($retain)));
                }
                Ok($name { raw })
            }

            /// Whether `raw` passes the checks of [`Self::retain_borrowed`].
            ///
            /// # Safety
            /// As for [`Self::retain_borrowed`].
            pub unsafe fn is_valid(raw: $raw) -> bool {
                $crate::runtime::ocl::foreign::check(
                    $crate::runtime::ocl::foreign::Kind::$kind,
                    raw.cast_const().cast(),
                )
                .is_ok()
            }

            /// The raw handle, borrowed: not retained, and the caller must not
            /// release it.
            pub fn raw(&self) -> $raw {
                self.raw
            }

            /// The object's reference count (for tests and diagnostics: the
            /// value is stale as soon as it is returned).
            pub fn reference_count(&self) -> $crate::base::Result<u32> {
                Self::query_refcount(self.raw).map_err(|code| {
                    $crate::runtime::ocl::error::to_error(code, stringify!($info))
                })
            }

            fn query_refcount(raw: $raw) -> ::std::result::Result<u32, $crate::runtime::ocl::sys::cl_int> {
                // No OpenCL: report it as the invalid-object code.
                let info = $crate::runtime::ocl::loader::entry!($info).map_err(|_| -59)?;
                let mut count: u32 = 0;
                // SAFETY: `raw` is a live object (`reference_count` is only
                // called on a wrapper); `count` has room for the `cl_uint`
                // the query returns.
                let code = unsafe {
                    info(
                        raw,
                        $param,
                        ::std::mem::size_of::<u32>(),
                        (&mut count as *mut u32).cast(),
                        ::std::ptr::null_mut(),
                    )
                };
                if code == $crate::runtime::ocl::sys::CL_SUCCESS { Ok(count) } else { Err(code) }
            }
        }

        impl Clone for $name {
            /// Retains: the clone holds its own reference.
            fn clone(&self) -> Self {
                let result = $crate::runtime::ocl::loader::entry!($retain).map(|retain| {
                    // SAFETY: `self.raw` is live while `self` is.
                    unsafe { retain(self.raw) }
                });
                $crate::runtime::ocl::error::log_failure(result, stringify!($retain));
                $name { raw: self.raw }
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                let result = $crate::runtime::ocl::loader::entry!($release).map(|release| {
                    // SAFETY: we hold one reference to `self.raw`, given up here.
                    unsafe { release(self.raw) }
                });
                $crate::runtime::ocl::error::log_failure(result, stringify!($release));
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.raw == other.raw
            }
        }

        impl Eq for $name {}

        impl ::std::hash::Hash for $name {
            fn hash<H: ::std::hash::Hasher>(&self, state: &mut H) {
                self.raw.hash(state);
            }
        }

        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, concat!(stringify!($name), "({:p})"), self.raw)
            }
        }
    };
}
pub(crate) use cl_handle;
