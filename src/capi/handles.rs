//! The live-handle registry: how C handles map to Rust objects.
//!
//! Layer: capi (only the C boundary sees handles; the layers below hold
//! plain Rust objects). A handle given to C is an opaque token from a global counter,
//! never a pointer to our memory and never reused, so a NULL, garbage,
//! destroyed or wrong-kind handle is *detected* (an `InvalidArguments` error)
//! rather than dereferenced. Tokens are never dereferenced at all.
//!
//! Two kinds of token:
//! - **Owned** ([`publish`]): made for an object the C caller created. The
//!   entry holds the owning `Arc`, and the kind's `*_destroy` ([`retire`])
//!   removes it: from then on the token is dead, even where other objects
//!   keep the object alive (a stream keeps its engine, a compiled partition
//!   its partition). A second destroy, or any use, is an invalid argument.
//! - **Exposed** ([`expose`]): handed out by a query (the engine of a
//!   primitive descriptor or of a stream, the descriptor of a memory). The
//!   entry holds a `Weak`: the token resolves exactly while the object lives,
//!   whatever became of the caller's own token for it, and cannot be
//!   destroyed. An object has one exposed token at a time, so queries in a
//!   loop do not grow the registry.
//!
//! Engines are the one kind whose queries upstream answers with the caller's
//! own pointer (`dnnl_stream_get_engine(stream) == engine`, and C++ wrappers
//! compare handles by pointer): while the caller's owned engine token is
//! live, an engine query returns that token itself; once the caller destroyed
//! it, the exposed token. (Upstream answers the other queries, the
//! descriptor of a memory or of a primitive, with objects of its own, never
//! the caller's pointer: so do we.)
//!
//! [`resolve`] is on every call: a read lock, one hash lookup and one
//! reference-count increment (an upgrade for exposed tokens).

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

type AnyArc = Arc<dyn Any + Send + Sync>;
type AnyWeak = Weak<dyn Any + Send + Sync>;

/// What an entry keeps of its object.
enum Hold {
    /// The C caller's reference, taken back by `*_destroy`.
    Owned(AnyArc),
    /// A query result: valid while something else keeps the object.
    Exposed(AnyWeak),
}

struct Entry {
    kind: TypeId,
    hold: Hold,
}

#[derive(Default)]
struct Registry {
    entries: HashMap<usize, Entry>,
    /// (object address, handle kind) -> the object's exposed token.
    exposed: HashMap<(usize, TypeId), usize>,
    /// Engine address -> the caller's live owned token (the latest, if the
    /// engine was published more than once).
    owned_engines: HashMap<usize, usize>,
    /// Exposed tokens that were live at the last sweep: the next sweep waits
    /// until there are twice as many (plus a margin), so sweeping costs O(1)
    /// per exposed token, amortised.
    exposed_after_sweep: usize,
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

fn new_token() -> usize {
    NEXT_TOKEN.fetch_add(TOKEN_STEP, Ordering::Relaxed)
}

impl Registry {
    /// Forgets exposed entries whose object is gone. They hold no strong
    /// reference, so nothing is dropped here; their tokens stay unused forever.
    fn sweep_exposed(&mut self) {
        let entries = &mut self.entries;
        self.exposed.retain(|_, token| {
            let live = matches!(
                entries.get(token),
                Some(Entry { hold: Hold::Exposed(w), .. }) if w.strong_count() > 0
            );
            if !live {
                entries.remove(token);
            }
            live
        });
        self.exposed_after_sweep = self.exposed.len();
    }
}

fn write_registry() -> ::std::sync::RwLockWriteGuard<'static, Registry> {
    // A poisoned lock means a panic while the lock was held; every update
    // leaves the maps consistent, so carry on with them.
    REGISTRY
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Whether `token` is one this registry handed out (and so, if it has no
/// entry, one that was destroyed or whose object is gone).
fn was_issued(token: usize) -> bool {
    token >= FIRST_TOKEN
        && token < NEXT_TOKEN.load(Ordering::Relaxed)
        && (token - FIRST_TOKEN).is_multiple_of(TOKEN_STEP)
}

fn dead_error<H: Handle>(token: usize) -> Error {
    if token == 0 {
        Error::invalid(format!("{} is NULL", H::NAME))
    } else if was_issued(token) {
        Error::invalid(format!(
            "{token:#x} is not a live {}: it was destroyed, or the object it stood for is gone",
            H::NAME
        ))
    } else {
        Error::invalid(format!("{token:#x} is not a live {}", H::NAME))
    }
}

fn kind_error<H: Handle>(token: usize) -> Error {
    Error::invalid(format!("{token:#x} is not a {}", H::NAME))
}

/// Registers a new object owned by the C caller and returns its handle.
/// The caller releases it with the kind's `*_destroy` ([`retire`]); the
/// handle dies there, whoever else still holds the object.
pub fn publish<H: Handle>(object: Arc<H::Object>) -> *mut H {
    let key = (address(&object), TypeId::of::<H>());
    let object: AnyArc = object;
    let token = new_token();
    let entry = Entry {
        kind: key.1,
        hold: Hold::Owned(object),
    };
    let mut reg = write_registry();
    reg.entries.insert(token, entry);
    if key.1 == TypeId::of::<abi::dnnl_engine>() {
        reg.owned_engines.insert(key.0, token);
    }
    ::core::ptr::without_provenance_mut(token)
}

/// Returns the handle of an object the C caller does not own (a query
/// result): for an engine, the caller's own handle while it is live (see
/// the module doc); else a token valid while the object lives, not to be
/// destroyed; the same object gets the same token while it lives.
pub fn expose<H: Handle>(object: &Arc<H::Object>) -> *mut H {
    let key = (address(object), TypeId::of::<H>());
    let exposed = |reg: &Registry| {
        // An owned entry holds its engine, so the address is this engine's.
        if key.1 == TypeId::of::<abi::dnnl_engine>()
            && let Some(&token) = reg.owned_engines.get(&key.0)
        {
            return Some(token);
        }
        let token = *reg.exposed.get(&key)?;
        // While an entry's `Weak` exists the allocation cannot be reused, so
        // a live entry at this address is this object.
        match reg.entries.get(&token) {
            Some(Entry {
                hold: Hold::Exposed(w),
                ..
            }) if w.strong_count() > 0 => Some(token),
            _ => None,
        }
    };
    {
        let reg = REGISTRY.read().unwrap_or_else(|p| p.into_inner());
        if let Some(token) = exposed(&reg) {
            return ::core::ptr::without_provenance_mut(token);
        }
    }
    let weak: Weak<H::Object> = Arc::downgrade(object);
    let weak: AnyWeak = weak;
    let token = {
        let mut reg = write_registry();
        match exposed(&reg) {
            Some(token) => token,
            None => {
                let token = new_token();
                let entry = Entry {
                    kind: key.1,
                    hold: Hold::Exposed(weak),
                };
                if let Some(old) = reg.exposed.insert(key, token) {
                    reg.entries.remove(&old);
                }
                reg.entries.insert(token, entry);
                if reg.exposed.len() > 2 * reg.exposed_after_sweep + 1024 {
                    reg.sweep_exposed();
                }
                token
            }
        }
    };
    ::core::ptr::without_provenance_mut(token)
}

/// Looks a handle up: its object, while the handle is live, if the handle is
/// of kind `H`.
pub fn resolve<H: Handle>(handle: *const H) -> Result<Arc<H::Object>> {
    let token = handle.addr();
    let object = {
        let reg = REGISTRY.read()?;
        let entry = reg
            .entries
            .get(&token)
            .ok_or_else(|| dead_error::<H>(token))?;
        if entry.kind != TypeId::of::<H>() {
            return Err(kind_error::<H>(token));
        }
        match &entry.hold {
            Hold::Owned(object) => Some(object.clone()),
            Hold::Exposed(weak) => weak.upgrade(),
        }
    };
    // An exposed object that died stays in the map until the next sweep.
    let object = object.ok_or_else(|| dead_error::<H>(token))?;
    object
        .downcast::<H::Object>()
        .map_err(|_| kind_error::<H>(token))
}

/// Takes back the C caller's handle (its `*_destroy`): the handle is dead
/// from now on, and the object lives on only while other objects hold it.
/// NULL is accepted and does nothing, as `free(NULL)` (upstream's
/// behaviour). A destroyed, unknown or wrong-kind handle is an error, and so
/// is a handle the caller does not own (a query result).
pub fn retire<H: Handle>(handle: *mut H) -> Result<()> {
    let token = handle.addr();
    if token == 0 {
        return Ok(());
    }
    let owned = {
        let mut reg = REGISTRY.write()?;
        let entry = reg
            .entries
            .get(&token)
            .ok_or_else(|| dead_error::<H>(token))?;
        if entry.kind != TypeId::of::<H>() {
            return Err(kind_error::<H>(token));
        }
        if let Hold::Exposed(_) = entry.hold {
            return Err(Error::invalid(format!(
                "{} {token:#x} was returned by a query: it belongs to the object it came from and is not destroyed by the caller",
                H::NAME
            )));
        }
        let owned = reg.entries.remove(&token);
        if let Some(Entry {
            hold: Hold::Owned(object),
            kind,
        }) = &owned
        {
            let addr = address(object);
            if *kind == TypeId::of::<abi::dnnl_engine>()
                && reg.owned_engines.get(&addr) == Some(&token)
            {
                reg.owned_engines.remove(&addr);
            }
        }
        owned
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
    abi::dnnl_ukernel_attr_params => crate::prims::ukernel::AttrParams, "ukernel attribute parameters";
    abi::dnnl_brgemm => crate::prims::ukernel::brgemm::Brgemm, "brgemm ukernel";
    abi::dnnl_transform => crate::prims::ukernel::transform::Transform, "transform ukernel";
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
        assert!(matches!(resolve(h), Err(Error::InvalidArguments(_))));
        assert!(matches!(retire(h), Err(Error::InvalidArguments(_))));
    }

    #[test]
    fn null_is_a_no_op_to_retire_and_invalid_to_resolve() {
        assert!(resolve::<A>(::core::ptr::null()).is_err());
        retire::<A>(::core::ptr::null_mut()).unwrap();
    }

    #[test]
    fn garbage_and_wrong_kind_are_rejected() {
        assert!(resolve::<A>(::core::ptr::without_provenance(0xdead_beef)).is_err());
        assert!(retire::<A>(::core::ptr::without_provenance_mut(0xdead_bee0)).is_err());
        let h = publish::<A>(Arc::new(Thing(1)));
        assert!(resolve::<B>(h.cast()).is_err());
        assert!(retire::<B>(h.cast()).is_err());
        retire(h).unwrap();
    }

    #[test]
    fn a_destroyed_handle_dies_while_the_object_is_shared() {
        let object = Arc::new(Thing(3));
        let h = publish::<A>(object.clone());
        retire(h).unwrap();
        assert!(resolve(h).is_err(), "the caller's handle died at destroy");
        assert!(retire(h).is_err());
        assert_eq!(object.0, 3, "the object lives on for its other owner");
        assert_eq!(Arc::strong_count(&object), 1, "the registry let it go");
    }

    #[test]
    fn exposed_handles_outlive_the_owned_one_and_die_with_the_object() {
        let object = Arc::new(Thing(5));
        let owned = publish::<A>(object.clone());
        let before = expose::<A>(&object);
        assert_ne!(
            before, owned,
            "only engine queries return the owner's handle"
        );
        retire(owned).unwrap();
        assert!(resolve(owned).is_err());
        let after = expose::<A>(&object);
        assert_eq!(after, before);
        assert_ne!(after, owned);
        assert_eq!(expose::<A>(&object), after, "one exposed token per object");
        assert!(
            retire(after).is_err(),
            "the caller does not own a query result"
        );
        assert_eq!(resolve(after).unwrap().0, 5);
        drop(object);
        assert!(resolve(after).is_err(), "the object is gone");
    }

    #[test]
    fn exposed_entries_of_dead_objects_are_swept() {
        // Under miri (scripts/sanitize.sh), which interprets every step,
        // fewer: still past the first sweep (at 1025 entries), so the bound
        // below holds only if it swept.
        let (count, bound) = if cfg!(miri) {
            (1500, 1000)
        } else {
            (5000, 4000)
        };
        let keep = Arc::new(Thing(9));
        let kept = expose::<A>(&keep);
        for i in 0..count {
            let object = Arc::new(Thing(i));
            let h = expose::<A>(&object);
            assert_eq!(resolve(h).unwrap().0, i);
        }
        let reg = REGISTRY.read().unwrap();
        // Other tests run beside this one: bound loosely.
        assert!(
            reg.exposed.len() < bound,
            "{} exposed entries",
            reg.exposed.len()
        );
        drop(reg);
        assert_eq!(resolve(kept).unwrap().0, 9);
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
