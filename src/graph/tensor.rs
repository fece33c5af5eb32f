//! Graph tensors: a logical tensor bound to an engine and its data.
//!
//! Layer: graph. The data is the user's pointer (a host pointer on the CPU
//! engine, a USM pointer on OpenCL: graph memory is USM-only, as upstream),
//! none (`DNNL_MEMORY_NONE`), or memory the tensor owns
//! (`DNNL_MEMORY_ALLOCATE`: a [`Temp`] of the engine's graph allocator, freed
//! when the tensor dies or gets another handle; on OpenCL only after the last
//! execution known to use it, see [`Tensor::note_use`]).
//!
//! A host scalar made by `dnnl_graph_tensor_create_scalar` has no engine (its
//! value lives on the host) and holds a *copy* of the value, as
//! `dnnl_memory_create_host_scalar` does, so the caller's variable may go
//! away; its data handle points to that copy, and setting a new handle copies
//! the value found there.

use std::ffi::c_void;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::abi::*;
use crate::core::engine::{Engine, EngineKind};
use crate::core::error::{Error, Result};
use crate::core::memory::DataHandle;
use crate::core::types::DataType;
use crate::graph::alloc::Temp;
use crate::graph::logical_tensor;
use crate::runtime::ocl::Event;

/// Where a tensor's data is.
enum Storage {
    /// No data yet (`DNNL_MEMORY_NONE`).
    None,
    /// The user's memory, not owned.
    User(usize),
    /// Memory from the engine's allocator, owned.
    Owned(Temp),
    /// A host scalar's value (8 bytes hold every scalar type), at a stable address.
    Scalar(Box<u64>),
}

struct Data {
    storage: Storage,
    /// The last command known to use owned memory: its free waits for it.
    last_use: Option<Event>,
}

/// What backs a tensor's data handle, as far as the tensor knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backing {
    /// No data (`DNNL_MEMORY_NONE`, or set to NULL).
    None,
    /// The user's memory, of the size its logical tensor describes.
    User,
    /// Bytes the tensor holds itself: its own allocation, or a scalar's value.
    Held(usize),
}

/// A tensor. Holds its engine alive.
pub struct Tensor {
    lt: dnnl_graph_logical_tensor_t,
    engine: Option<Arc<Engine>>,
    data: Mutex<Data>,
}

/// Bytes of a logical tensor with known dims and a strided layout (what
/// `dnnl_graph_logical_tensor_get_mem_size` says).
fn allocation_size(lt: &dnnl_graph_logical_tensor_t) -> Result<usize> {
    if lt.layout_type != dnnl_graph_layout_type_strided {
        return Err(Error::invalid(
            "DNNL_MEMORY_ALLOCATE needs a logical tensor with a strided layout \
             (query the compiled partition for the layout of an 'any' tensor)",
        ));
    }
    if !logical_tensor::strides_known(lt) || logical_tensor::strides(lt).iter().any(|&s| s < 0) {
        return Err(Error::invalid(
            "DNNL_MEMORY_ALLOCATE needs known, non-negative dims and strides",
        ));
    }
    logical_tensor::mem_size(lt)
}

fn check_logical_tensor(lt: &dnnl_graph_logical_tensor_t) -> Result<DataType> {
    if lt.ndims < -1 || lt.ndims > DNNL_MAX_NDIMS {
        return Err(Error::invalid(format!(
            "logical tensor {} has {} dims",
            lt.id, lt.ndims
        )));
    }
    DataType::try_from(lt.data_type)
}

/// The engine host scalars report to the library (never to the user).
fn host_engine() -> &'static Arc<Engine> {
    static HOST: OnceLock<Arc<Engine>> = OnceLock::new();
    HOST.get_or_init(|| Engine::create(EngineKind::Cpu, 0).expect("the CPU engine exists"))
}

impl Tensor {
    /// A tensor of `lt` on `engine` with `handle`: the user's memory, none,
    /// or (`Allocate`) memory of `lt`'s size from the engine's allocator.
    pub fn new(
        lt: &dnnl_graph_logical_tensor_t,
        engine: Arc<Engine>,
        handle: DataHandle,
    ) -> Result<Arc<Tensor>> {
        check_logical_tensor(lt)?;
        let storage = match handle {
            DataHandle::None => Storage::None,
            DataHandle::User(addr) => Storage::User(addr),
            DataHandle::Allocate => {
                let size = allocation_size(lt)?;
                Storage::Owned(Temp::new(&engine, size, 0)?)
            }
        };
        Ok(Arc::new(Tensor {
            lt: *lt,
            engine: Some(engine),
            data: Mutex::new(Data {
                storage,
                last_use: None,
            }),
        }))
    }

    /// A host scalar tensor holding a copy of `value` (the bytes of one
    /// element of `lt`'s data type). `lt` must have the host-scalar property.
    pub fn scalar(lt: &dnnl_graph_logical_tensor_t, value: &[u8]) -> Result<Arc<Tensor>> {
        let dt = check_logical_tensor(lt)?;
        if lt.property != dnnl_graph_tensor_property_host_scalar {
            return Err(Error::invalid(
                "a scalar tensor needs a logical tensor with the host_scalar property",
            ));
        }
        if value.len() != dt.size() {
            return Err(Error::invalid("the scalar value has the wrong size"));
        }
        let mut boxed = Box::new(0u64);
        bytemuck_copy(&mut boxed, value);
        Ok(Arc::new(Tensor {
            lt: *lt,
            engine: None,
            data: Mutex::new(Data {
                storage: Storage::Scalar(boxed),
                last_use: None,
            }),
        }))
    }

    /// The logical tensor the tensor was made with.
    pub fn logical_tensor(&self) -> &dnnl_graph_logical_tensor_t {
        &self.lt
    }

    /// The engine; for a host scalar made without one, the CPU engine.
    pub fn engine(&self) -> &Arc<Engine> {
        self.engine.as_ref().unwrap_or_else(|| host_engine())
    }

    /// The engine the tensor was made with (`None` for a host scalar made by
    /// `dnnl_graph_tensor_create_scalar`).
    pub fn given_engine(&self) -> Option<&Arc<Engine>> {
        self.engine.as_ref()
    }

    fn data(&self) -> MutexGuard<'_, Data> {
        self.data.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The data: may be NULL; for a host scalar, a pointer to its value.
    pub fn data_handle(&self) -> *mut c_void {
        Self::handle_of(&self.data().storage)
    }

    fn handle_of(storage: &Storage) -> *mut c_void {
        match storage {
            Storage::None => std::ptr::null_mut(),
            Storage::User(addr) => std::ptr::with_exposed_provenance_mut(*addr),
            Storage::Owned(temp) => temp.ptr(),
            Storage::Scalar(value) => (&**value as *const u64).cast_mut().cast(),
        }
    }

    /// The data handle and what backs it, read together (another thread
    /// may set the handle between two separate reads).
    pub fn snapshot(&self) -> (*mut c_void, Backing) {
        let data = self.data();
        let backing = match &data.storage {
            Storage::None => Backing::None,
            Storage::User(_) => Backing::User,
            Storage::Owned(temp) => Backing::Held(temp.size()),
            Storage::Scalar(_) => {
                Backing::Held(DataType::try_from(self.lt.data_type).map_or(0, DataType::size))
            }
        };
        (Self::handle_of(&data.storage), backing)
    }

    /// Whether the tensor is a host scalar (its logical tensor's property).
    pub fn is_host_scalar(&self) -> bool {
        self.lt.property == dnnl_graph_tensor_property_host_scalar
    }

    /// Whether the tensor holds a copy of a scalar value (made by
    /// [`Tensor::scalar`]): its handle is set by value.
    pub fn holds_scalar_value(&self) -> bool {
        matches!(self.data().storage, Storage::Scalar(_))
    }

    /// Points the tensor at the user's memory (or none); memory it owned is
    /// freed once its last known use has completed.
    pub fn set_data_handle(&self, handle: *mut c_void) -> Result<()> {
        let released = {
            let mut data = self.data();
            if matches!(data.storage, Storage::Scalar(_)) {
                return Err(Error::invalid(
                    "a scalar tensor's value is set by value, not by pointer",
                ));
            }
            let storage = if handle.is_null() {
                Storage::None
            } else {
                Storage::User(handle.expose_provenance())
            };
            let old = std::mem::replace(&mut data.storage, storage);
            (old, data.last_use.take())
        };
        // Outside the lock: a free may call the user's callback.
        if let (Storage::Owned(temp), event) = released {
            temp.release(event);
        }
        Ok(())
    }

    /// Replaces a host scalar's value with the bytes of `value`.
    pub fn set_scalar_value(&self, value: &[u8]) -> Result<()> {
        let dt = DataType::try_from(self.lt.data_type)?;
        if value.len() != dt.size() {
            return Err(Error::invalid("the scalar value has the wrong size"));
        }
        match &mut self.data().storage {
            Storage::Scalar(boxed) => {
                bytemuck_copy(boxed, value);
                Ok(())
            }
            _ => Err(Error::invalid("not a scalar tensor")),
        }
    }

    /// Records that `event`'s command uses the tensor's memory: memory the
    /// tensor owns is not freed before it (and later uses) complete.
    pub fn note_use(&self, event: &Event) {
        let mut data = self.data();
        if matches!(data.storage, Storage::Owned(_)) {
            data.last_use = Some(event.clone());
        }
    }
}

impl Drop for Tensor {
    fn drop(&mut self) {
        let data = self.data.get_mut().unwrap_or_else(|p| p.into_inner());
        let event = data.last_use.take();
        if let Storage::Owned(temp) = std::mem::replace(&mut data.storage, Storage::None) {
            temp.release(event);
        }
    }
}

/// Copies up to 8 bytes into the value, zeroing the rest.
fn bytemuck_copy(target: &mut u64, value: &[u8]) {
    let mut bytes = [0u8; 8];
    bytes[..value.len()].copy_from_slice(value);
    *target = u64::from_ne_bytes(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lt(dims: &[i64], dt: dnnl_data_type_t) -> dnnl_graph_logical_tensor_t {
        let mut d = [0i64; 12];
        let mut s = [0i64; 12];
        d[..dims.len()].copy_from_slice(dims);
        let mut stride = 1;
        for i in (0..dims.len()).rev() {
            s[i] = stride;
            stride *= dims[i];
        }
        dnnl_graph_logical_tensor_t {
            id: 1,
            ndims: dims.len() as i32,
            dims: d,
            data_type: dt,
            property: dnnl_graph_tensor_property_variable,
            layout_type: dnnl_graph_layout_type_strided,
            layout: dnnl_graph_logical_tensor_layout_t { strides: s },
        }
    }

    #[test]
    fn allocate_user_none_and_set() {
        let engine = Engine::create(EngineKind::Cpu, 0).unwrap();
        let t = Tensor::new(&lt(&[2, 3], dnnl_f32), engine.clone(), DataHandle::Allocate).unwrap();
        assert!(!t.data_handle().is_null());
        assert_eq!(t.data_handle().addr() % 64, 0);
        let mut buf = [0f32; 6];
        t.set_data_handle(buf.as_mut_ptr().cast()).unwrap();
        assert_eq!(t.data_handle(), buf.as_mut_ptr().cast());
        t.set_data_handle(std::ptr::null_mut()).unwrap();
        assert!(t.data_handle().is_null());
        let n = Tensor::new(&lt(&[4], dnnl_s8), engine.clone(), DataHandle::None).unwrap();
        assert!(n.data_handle().is_null());
        assert!(Arc::ptr_eq(n.engine(), &engine));
        assert!(!n.is_host_scalar());
    }

    #[test]
    fn sizes() {
        assert_eq!(allocation_size(&lt(&[2, 3], dnnl_f32)).unwrap(), 24);
        assert_eq!(allocation_size(&lt(&[2, 0], dnnl_f32)).unwrap(), 0);
        assert_eq!(allocation_size(&lt(&[], dnnl_f16)).unwrap(), 2);
        assert_eq!(allocation_size(&lt(&[3, 5], dnnl_s4)).unwrap(), 8);
        let mut unknown = lt(&[2, 3], dnnl_f32);
        unknown.dims[1] = logical_tensor::UNKNOWN_DIM;
        assert!(allocation_size(&unknown).is_err());
        let mut any = lt(&[2, 3], dnnl_f32);
        any.layout_type = dnnl_graph_layout_type_any;
        assert!(allocation_size(&any).is_err());
    }

    #[test]
    fn allocations_that_do_not_fit_or_cannot_be_made_are_refused() {
        let engine = Engine::create(EngineKind::Cpu, 0).unwrap();
        let new =
            |dims: &[i64]| Tensor::new(&lt(dims, dnnl_f32), engine.clone(), DataHandle::Allocate);
        // The byte count would wrap to 16, and to 0.
        assert!(matches!(
            new(&[(1 << 60) + 1, 4]),
            Err(Error::InvalidArguments(_))
        ));
        assert!(matches!(new(&[1 << 62]), Err(Error::InvalidArguments(_))));
        // 2^62 bytes fit in the count but in no allocation.
        assert!(matches!(new(&[1 << 60]), Err(Error::OutOfMemory(_))));
    }

    #[test]
    fn scalars_copy_their_value() {
        let mut l = lt(&[], dnnl_f32);
        assert!(Tensor::scalar(&l, &1.5f32.to_ne_bytes()).is_err());
        l.property = dnnl_graph_tensor_property_host_scalar;
        let t = Tensor::scalar(&l, &1.5f32.to_ne_bytes()).unwrap();
        assert!(t.is_host_scalar() && t.holds_scalar_value());
        assert!(t.given_engine().is_none());
        assert_eq!(t.engine().kind(), EngineKind::Cpu);
        // SAFETY: the handle points at the f32 copy.
        assert_eq!(unsafe { *t.data_handle().cast::<f32>() }, 1.5);
        t.set_scalar_value(&2.5f32.to_ne_bytes()).unwrap();
        // SAFETY: as above.
        assert_eq!(unsafe { *t.data_handle().cast::<f32>() }, 2.5);
        assert!(t.set_scalar_value(&[1u8]).is_err());
        assert!(t.set_data_handle(std::ptr::null_mut()).is_err());
    }
}
