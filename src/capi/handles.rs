//! The live-handle registry: how C handles map to Rust objects.
//!
//! Layer: capi (only the C boundary sees handles; the layers below hold
//! plain Rust objects). A handle given to C is an opaque token from a global counter,
//! never a pointer to our memory and never reused, so a NULL, garbage,
//! destroyed or wrong-kind handle is *detected* (an `InvalidArguments` error)
//! rather than dereferenced. Tokens are never dereferenced at all.
//!
//! Each entry holds a `Weak` to its object (so a handle the C side still has
//! resolves exactly while the object lives) and, for objects the C caller owns,
//! the owning `Arc` that `*_destroy` takes back. Objects handed out by queries
//! (an engine of a primitive descriptor) get an entry without ownership, and
//! the same object always gets the same token.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, RwLock, Weak};

use crate::abi;
use crate::core::attr::{AttrCell, PostOpsCell, PrimitiveAttr};
use crate::core::error::{Error, Result};
use crate::core::memory_desc::MemoryDesc;

/// Ties an opaque C handle type to the Rust object behind it.
pub trait Handle: 'static {
    /// The object a handle of this kind stands for.
    type Object: Send + Sync + 'static;
    /// The kind's name, for messages ("engine", "memory descriptor", ...).
    const NAME: &'static str;
}

/// The object of handle kinds whose objects cannot be created yet: no value of
/// it exists, so every handle of such a kind is rejected as invalid.
pub enum NotYetImplemented {}

type AnyArc = Arc<dyn Any + Send + Sync>;
type AnyWeak = Weak<dyn Any + Send + Sync>;

struct Entry {
    kind: TypeId,
    live: AnyWeak,
    owned_by_c: Option<AnyArc>,
}

#[derive(Default)]
struct Registry {
    entries: HashMap<usize, Entry>,
    /// Object address -> token, so an object gets one token for its lifetime.
    tokens: HashMap<usize, usize>,
    inserts_since_sweep: usize,
}

static REGISTRY: LazyLock<RwLock<Registry>> = LazyLock::new(Default::default);

/// Tokens start away from 0 and step by 16, so they look like aligned pointers
/// to tools that print them, and small integers passed by mistake never match.
const FIRST_TOKEN: usize = 0x1000_0000;
const TOKEN_STEP: usize = 16;
static NEXT_TOKEN: AtomicUsize = AtomicUsize::new(FIRST_TOKEN);

fn address<T: ?Sized>(object: &Arc<T>) -> usize {
    Arc::as_ptr(object).cast::<()>() as usize
}

impl Registry {
    fn insert(&mut self, kind: TypeId, object: AnyArc, owned: bool) -> usize {
        let addr = address(&object);
        let token = NEXT_TOKEN.fetch_add(TOKEN_STEP, Ordering::Relaxed);
        let entry = Entry {
            kind,
            live: Arc::downgrade(&object),
            owned_by_c: owned.then(|| object.clone()),
        };
        self.entries.insert(token, entry);
        self.tokens.insert(addr, token);
        self.inserts_since_sweep += 1;
        if self.inserts_since_sweep > 1024 {
            self.sweep();
        }
        token
    }

    /// Forgets entries whose object is gone (they hold no strong reference, so
    /// nothing is dropped here). Their tokens stay unused forever.
    fn sweep(&mut self) {
        self.inserts_since_sweep = 0;
        let dead: Vec<usize> = self
            .entries
            .iter()
            .filter(|(_, e)| e.live.strong_count() == 0)
            .map(|(t, _)| *t)
            .collect();
        for token in dead {
            self.entries.remove(&token);
        }
        let entries = &self.entries;
        self.tokens.retain(|_, token| entries.contains_key(token));
    }
}

fn kind_error<H: Handle>(token: usize) -> Error {
    if token == 0 {
        Error::invalid(format!("{} is NULL", H::NAME))
    } else {
        Error::invalid(format!("{:#x} is not a live {}", token, H::NAME))
    }
}

/// Registers a new object owned by the C caller and returns its handle.
/// The caller releases it with the kind's `*_destroy` ([`retire`]).
pub fn publish<H: Handle>(object: Arc<H::Object>) -> *mut H {
    let object: AnyArc = object;
    let mut reg = REGISTRY
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let token = reg.insert(TypeId::of::<H>(), object, true);
    ::core::ptr::without_provenance_mut(token)
}

/// Returns the handle of an object the C caller does not own (a query result):
/// the object's existing token if it has one, else a new one.
pub fn expose<H: Handle>(object: &Arc<H::Object>) -> *mut H {
    let addr = address(object);
    let any: AnyArc = object.clone();
    let mut reg = REGISTRY.write().unwrap_or_else(|p| p.into_inner());
    if let Some(&token) = reg.tokens.get(&addr) {
        if let Some(entry) = reg.entries.get(&token) {
            let same = entry.kind == TypeId::of::<H>()
                && entry.live.upgrade().is_some_and(|o| address(&o) == addr);
            if same {
                return ::core::ptr::without_provenance_mut(token);
            }
        }
    }
    let token = reg.insert(TypeId::of::<H>(), any, false);
    ::core::ptr::without_provenance_mut(token)
}

/// Looks a handle up: its object, while it lives, if the handle is of kind `H`.
pub fn resolve<H: Handle>(handle: *const H) -> Result<Arc<H::Object>> {
    let token = handle.addr();
    let live = {
        let reg = REGISTRY.read()?;
        let entry = reg
            .entries
            .get(&token)
            .ok_or_else(|| kind_error::<H>(token))?;
        if entry.kind != TypeId::of::<H>() {
            return Err(Error::invalid(format!("{token:#x} is not a {}", H::NAME)));
        }
        entry.live.upgrade()
    };
    let object = live.ok_or_else(|| kind_error::<H>(token))?;
    object
        .downcast::<H::Object>()
        .map_err(|_| kind_error::<H>(token))
}

/// Takes back the C caller's ownership of a handle (its `*_destroy`). The
/// object itself lives on while other objects hold it. A second call for the
/// same handle is an error, as is any handle not owned by the caller.
pub fn retire<H: Handle>(handle: *mut H) -> Result<()> {
    let token = handle.addr();
    let owned = {
        let mut reg = REGISTRY.write()?;
        let entry = reg
            .entries
            .get_mut(&token)
            .ok_or_else(|| kind_error::<H>(token))?;
        if entry.kind != TypeId::of::<H>() {
            return Err(Error::invalid(format!("{token:#x} is not a {}", H::NAME)));
        }
        entry.owned_by_c.take().ok_or_else(|| {
            Error::invalid(format!("{} {token:#x} was already destroyed", H::NAME))
        })?
    };
    // The object's Drop may use the registry: release it outside the lock.
    drop(owned);
    Ok(())
}

macro_rules! handle_kinds {
    ($($c:ty => $object:ty, $name:literal;)*) => {
        $(impl Handle for $c {
            type Object = $object;
            const NAME: &'static str = $name;
        })*
    };
}

// One line per opaque C type: the only place a C handle type meets its object.
handle_kinds! {
    abi::dnnl_engine => crate::core::engine::Engine, "engine";
    abi::dnnl_stream => crate::core::stream::Stream, "stream";
    abi::dnnl_memory_desc => crate::core::memory_desc::MemoryDesc, "memory descriptor";
    abi::dnnl_memory => crate::core::memory::Memory, "memory";
    abi::dnnl_primitive_desc => crate::core::primitive::PdCell, "primitive descriptor";
    abi::dnnl_primitive_attr => crate::core::attr::AttrCell, "primitive attributes";
    abi::dnnl_post_ops => crate::core::attr::PostOpsCell, "post-ops";
    abi::dnnl_primitive => crate::core::primitive::Primitive, "primitive";
    abi::dnnl_graph_partition => crate::graph::partition::Partition, "graph partition";
    abi::dnnl_graph_graph => crate::graph::graph::Graph, "graph";
    abi::dnnl_graph_op => crate::graph::op::OpCell, "graph op";
    abi::dnnl_graph_allocator => crate::graph::alloc::Allocator, "graph allocator";
    abi::dnnl_graph_compiled_partition => crate::graph::compiled::CompiledPartition, "compiled partition";
    abi::dnnl_graph_tensor => crate::graph::tensor::Tensor, "graph tensor";
}

#[cfg(feature = "experimental_ukernel")]
handle_kinds! {
    abi::dnnl_ukernel_attr_params => NotYetImplemented, "ukernel attribute parameters";
    abi::dnnl_brgemm => NotYetImplemented, "brgemm ukernel";
    abi::dnnl_transform => NotYetImplemented, "transform ukernel";
}

// ---------------------------------------------------------------------------
// Resolution of the handle types the object model takes from C.

/// Looks up an attributes handle: NULL means default attributes (`None`);
/// otherwise a snapshot of the object's current value. A dead or wrong-kind
/// handle is an invalid argument.
pub fn resolve_attr(attr: abi::const_dnnl_primitive_attr_t) -> Result<Option<Arc<PrimitiveAttr>>> {
    if attr.is_null() {
        return Ok(None);
    }
    let cell = resolve(attr)?;
    Ok(Some(Arc::new(cell.snapshot()?)))
}

/// Looks up an attributes handle for the C API (NULL is an invalid argument).
pub fn resolve_cell(attr: abi::const_dnnl_primitive_attr_t) -> Result<Arc<AttrCell>> {
    resolve(attr)
}

/// Looks up a post-ops handle (NULL is an invalid argument).
pub fn resolve_post_ops(post_ops: abi::const_dnnl_post_ops_t) -> Result<Arc<PostOpsCell>> {
    resolve(post_ops)
}

/// Looks up a memory descriptor handle. NULL, a dead handle or a handle of
/// another kind is an invalid argument.
pub fn resolve_md(md: abi::const_dnnl_memory_desc_t) -> Result<Arc<MemoryDesc>> {
    resolve(md)
}

/// Registers a new descriptor owned by the C caller, who releases it with
/// `dnnl_memory_desc_destroy`.
pub fn publish_md(md: MemoryDesc) -> abi::dnnl_memory_desc_t {
    publish(Arc::new(md))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::attr::AttrCell;

    struct A;
    struct B;
    struct Thing(u32);
    impl Handle for A {
        type Object = Thing;
        const NAME: &'static str = "a";
    }
    impl Handle for B {
        type Object = Thing;
        const NAME: &'static str = "b";
    }

    #[test]
    fn publish_resolve_retire() {
        let h = publish::<A>(Arc::new(Thing(7)));
        assert_eq!(resolve(h).unwrap().0, 7);
        retire(h).unwrap();
        // Nobody else held it: the object is gone, the handle is dead.
        assert!(matches!(resolve(h), Err(Error::InvalidArguments(_))));
        assert!(matches!(retire(h), Err(Error::InvalidArguments(_))));
    }

    #[test]
    fn null_garbage_and_wrong_kind_are_rejected() {
        assert!(resolve::<A>(::core::ptr::null()).is_err());
        assert!(retire::<A>(::core::ptr::null_mut()).is_err());
        assert!(resolve::<A>(::core::ptr::without_provenance(0xdead_beef)).is_err());
        let h = publish::<A>(Arc::new(Thing(1)));
        assert!(resolve::<B>(h.cast()).is_err());
        assert!(retire::<B>(h.cast()).is_err());
        retire(h).unwrap();
    }

    #[test]
    fn destroyed_handle_resolves_while_shared_but_cannot_be_destroyed_twice() {
        let object = Arc::new(Thing(3));
        let h = publish::<A>(object.clone());
        retire(h).unwrap();
        assert_eq!(resolve(h).unwrap().0, 3);
        assert!(retire(h).is_err());
        drop(object);
        assert!(resolve(h).is_err());
    }

    #[test]
    fn exposed_objects_keep_one_token_and_are_not_owned() {
        let object = Arc::new(Thing(5));
        let h1 = expose::<A>(&object);
        let h2 = expose::<A>(&object);
        assert_eq!(h1, h2);
        assert!(
            retire(h1).is_err(),
            "the caller does not own a query result"
        );
        assert_eq!(resolve(h1).unwrap().0, 5);
    }

    #[test]
    fn tokens_are_never_reused() {
        let h1 = publish::<A>(Arc::new(Thing(1)));
        retire(h1).unwrap();
        let h2 = publish::<A>(Arc::new(Thing(2)));
        assert_ne!(h1, h2);
        retire(h2).unwrap();
    }

    #[test]
    fn concurrent_publish_and_retire() {
        let threads: Vec<_> = (0..4)
            .map(|i| {
                std::thread::spawn(move || {
                    for j in 0..500 {
                        let h = publish::<A>(Arc::new(Thing(i * 1000 + j)));
                        assert_eq!(resolve(h).unwrap().0, i * 1000 + j);
                        retire(h).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    }

    #[test]
    fn resolve_attr_null_is_default() {
        assert!(resolve_attr(::core::ptr::null()).unwrap().is_none());
        let h: abi::dnnl_primitive_attr_t = publish(AttrCell::new());
        resolve(h)
            .unwrap()
            .update(|a| a.set_scratchpad_mode(abi::dnnl_scratchpad_mode_user))
            .unwrap();
        let snap = resolve_attr(h).unwrap().unwrap();
        assert!(snap.scratchpad_user);
        retire(h).unwrap();
        assert!(resolve_attr(h).is_err());
        assert!(resolve_attr(::core::ptr::without_provenance(0xdead_beef)).is_err());
    }
}
