//! The primitive framework: primitive kinds, primitive descriptors and
//! primitives.
//!
//! Layer: core. A primitive kind (`prims::<kind>`) is its descriptor and its
//! kernels. The descriptor is a type implementing [`OpDesc`] (what to
//! compute: shapes, algorithm, the memory descriptors by argument) and
//! [`Kind`] (the attributes it applies and its implementation list). The
//! implementation list is data: one [`Impl`] line per implementation, best
//! first, with its name, the engines it runs on, whether it accepts a
//! problem, its scratchpad size and how to build it. Everything else is done
//! here, once for every kind:
//! - the attribute check ([`AttrSupport`], declared by the kind);
//! - choosing the first implementation that accepts the op, and
//!   `dnnl_primitive_desc_next_impl`;
//! - the scratchpad: its descriptor (in `dnnl_scratchpad_mode_user`), its
//!   size in `memory_consumption`, and at execution the user's memory or the
//!   stream's reusable arena;
//! - the typed forward hint of backward kinds ([`PrimitiveDesc::op_as`]);
//! - the execution-time argument check: every argument the op names must be
//!   on a compatible engine and described as the primitive expects, so a
//!   kernel never reads or writes past a memory object;
//! - the primitive cache, cache blobs and verbose lines.
//!
//! A [`PrimitiveDesc`] is an op with the implementation it settled on; a
//! [`Primitive`] is that implementation built ([`Implementation`]), which
//! executes on a stream. Execution on a CPU stream is synchronous. On a GPU
//! stream an implementation enqueues its kernels after the given events and
//! returns the event of its last command; the stream decides what the
//! caller sees.

use std::any::Any;
use std::collections::HashMap;
use std::ffi::CStr;
use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::{AttrCell, AttrSupport, PrimitiveAttr};
use crate::core::engine::{Engine, EngineKind};
use crate::core::error::{Error, Result};
use crate::core::gpu::{self, Event};
use crate::core::key::{self, KeyWriter};
use crate::core::memory::Memory;
use crate::core::memory_desc::MemoryDesc;
use crate::core::stream::{Stream, StreamBackend};
use crate::core::{primitive_cache, primitive_verbose};
use crate::runtime::ocl::{self, ProgramKey};

/// What a primitive computes, independent of how.
pub trait OpDesc: Send + Sync {
    /// The primitive kind.
    fn kind(&self) -> dnnl_primitive_kind_t;
    /// The propagation kind (`undef` where the kind has none).
    fn prop_kind(&self) -> dnnl_prop_kind_t {
        dnnl_prop_kind_undef
    }
    /// The algorithm (`undef` where the kind has none).
    fn alg_kind(&self) -> dnnl_alg_kind_t {
        dnnl_alg_kind_undef
    }
    /// The memory descriptor of execution argument `arg` (`DNNL_ARG_*`).
    fn arg_md(&self, arg: i32) -> Option<&Arc<MemoryDesc>>;
    /// The arguments the primitive reads, in the order of `num_of_inputs`.
    fn inputs(&self) -> Vec<i32>;
    /// The arguments the primitive writes.
    fn outputs(&self) -> Vec<i32>;
    /// A float parameter (`dnnl_query_alpha_f32`, `beta_f32`, `epsilon_f32`, ...).
    fn query_f32(&self, _what: dnnl_query_t) -> Option<f32> {
        None
    }
    /// An integer parameter (`dnnl_query_axis_s32`, ...).
    fn query_s32(&self, _what: dnnl_query_t) -> Option<i32> {
        None
    }
    /// A 64-bit integer parameter (`dnnl_query_group_size_s64`, ...).
    fn query_s64(&self, _what: dnnl_query_t) -> Option<i64> {
        None
    }
    /// A float array parameter (`dnnl_query_factors`), answered as a
    /// pointer to its first value, which lives as long as the op.
    fn query_f32s(&self, _what: dnnl_query_t) -> Option<&[f32]> {
        None
    }
    /// A dimensions parameter (`dnnl_query_strides`, `dilations`,
    /// `padding_l`, `padding_r`), answered as a pointer to the array, which
    /// lives as long as the op.
    fn query_dims(&self, _what: dnnl_query_t) -> Option<&dnnl_dims_t> {
        None
    }
    /// The auxiliary field of verbose lines (`alg:eltwise_relu alpha:0 beta:0`).
    fn verbose_aux(&self) -> String {
        String::new()
    }
    /// The problem field of verbose lines; by default the dimensions of the
    /// first input (`2x19x3x5`). Kinds with several shapes spell them as
    /// oneDNN does (matmul `2x3:3x4`, inner product `mb2ic3oc4`).
    fn verbose_problem(&self) -> String {
        self.inputs()
            .first()
            .and_then(|a| self.arg_md(*a))
            .map(|md| dims_str(md.dims()))
            .unwrap_or_default()
    }
    /// Writes a key that equals another op's exactly when both compute the
    /// same thing (kind, shapes, layouts, types, parameters) and returns
    /// true. The key names primitive cache entries and is hashed into cache
    /// blob ids, so it is written field by field ([`KeyWriter`]), never from
    /// `Debug` text. The default, false, keeps the op out of the primitive
    /// cache and gives it no cache blob.
    fn cache_key(&self, _key: &mut KeyWriter) -> bool {
        false
    }
    /// Whether the user left the format of argument `arg` to the primitive
    /// (no descriptor, or format `any`): verbose lines flag its descriptor
    /// with `a`, as upstream does. No argument by default.
    fn verbose_any_format(&self, _arg: i32) -> bool {
        false
    }
    /// Whether execution argument `arg` may be memory of a CPU engine while
    /// the primitive runs on a GPU engine (a reorder between engines takes
    /// one side in host memory); no argument may by default.
    fn host_arg(&self, _arg: i32) -> bool {
        false
    }
    /// The argument `dnnl_query_src_md` with `index` names, where it is not
    /// `DNNL_ARG_SRC_0 + index` (sum and concat: `DNNL_ARG_MULTIPLE_SRC + index`).
    fn src_arg(&self, _index: i32) -> Option<i32> {
        None
    }
    /// The argument a memory descriptor query (`what`, `index`) names where
    /// it is not the one `DNNL_ARG_*_0 + index` gives (RNN counts its
    /// present weights: the bias follows the optional peephole and
    /// projection).
    fn md_query_arg(&self, _what: dnnl_query_t, _index: i32) -> Option<i32> {
        None
    }
    /// The engine an engine query other than `dnnl_query_engine` names
    /// (`dnnl_query_reorder_src_engine` / `_dst_engine`), if the op has one.
    fn query_engine(&self, _what: dnnl_query_t) -> Option<Arc<Engine>> {
        None
    }
}

/// Dimensions as verbose lines spell them: `2x3x4`.
pub fn dims_str(dims: &[i64]) -> String {
    dims.iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join("x")
}

/// `mb<n>ic<c>` then the spatial sizes as `id`, `ih`, `iw` (the last ones:
/// `iw` alone for one spatial dimension): how oneDNN's verbose lines spell
/// the shape of LRN and batch and group normalization (`mb2ic8ih6iw6`).
pub fn mb_ic_spatial(d: &[i64]) -> String {
    let mut s = format!("mb{}ic{}", d.first().unwrap_or(&1), d.get(1).unwrap_or(&1));
    let spatial = d.get(2..).unwrap_or(&[]);
    let names = ["id", "ih", "iw"];
    for (name, v) in names[3 - spatial.len().min(3)..].iter().zip(spatial) {
        s += &format!("{name}{v}");
    }
    s
}

/// A primitive kind: its descriptor type, the attributes it applies and its
/// implementations.
pub trait Kind: OpDesc + Sized + 'static {
    /// The kind's name in messages (`eltwise`, `inner product`).
    const NAME: &'static str;
    /// The implementations, best first.
    const IMPLS: &'static [Impl<Self>];
    /// The attributes this op applies (a backward op may apply fewer than
    /// its forward one).
    fn attr_support(&self) -> AttrSupport;
}

/// How an implementation is built: for the op, on the engine (which it must
/// not keep: see [`Implementation`]).
pub type Create<Op> = fn(&Arc<Op>, &Engine) -> Result<Arc<dyn Implementation>>;

/// One implementation of a kind: a line of its implementation list.
pub struct Impl<Op: 'static> {
    /// The name for `impl_info_str` and verbose lines (`ocl:gemm_tiled`).
    pub name: &'static CStr,
    /// The engines it runs on (checked before `accepts`).
    pub engine: EngineKind,
    /// Whether it handles the op on the engine; `Err` says why not.
    pub accepts: fn(&Op, &Engine) -> Result<()>,
    /// The bytes of scratchpad an execution needs.
    pub scratchpad: Scratchpad<Op>,
    /// The implementation, with its kernels built for the engine (which it
    /// must not keep: see [`Implementation`]).
    pub create: Create<Op>,
}

/// An [`Impl::accepts`] for implementations that take every op their
/// engine is given.
pub fn any_op<Op>(_: &Op, _: &Engine) -> Result<()> {
    Ok(())
}

/// The bytes of scratchpad an implementation's executions need.
pub enum Scratchpad<Op: 'static> {
    None,
    /// As the op says.
    Of(fn(&Op) -> usize),
    /// As the op says on the engine (whose device may pick a path that
    /// needs it).
    OnEngine(fn(&Op, &Engine) -> usize),
}

impl<Op> Scratchpad<Op> {
    fn bytes(&self, op: &Op, engine: &Engine) -> usize {
        match self {
            Scratchpad::None => 0,
            Scratchpad::Of(f) => f(op),
            Scratchpad::OnEngine(f) => f(op, engine),
        }
    }
}

impl<Op> Impl<Op> {
    /// An implementation on the CPU engine.
    pub const fn cpu(
        name: &'static CStr,
        accepts: fn(&Op, &Engine) -> Result<()>,
        create: Create<Op>,
    ) -> Impl<Op> {
        Impl {
            name,
            engine: EngineKind::Cpu,
            accepts,
            scratchpad: Scratchpad::None,
            create,
        }
    }

    /// An implementation on GPU engines (OpenCL and Level Zero).
    pub const fn gpu(
        name: &'static CStr,
        accepts: fn(&Op, &Engine) -> Result<()>,
        create: Create<Op>,
    ) -> Impl<Op> {
        Impl {
            name,
            engine: EngineKind::Gpu,
            accepts,
            scratchpad: Scratchpad::None,
            create,
        }
    }

    /// The same implementation with a scratchpad of `bytes(op)` bytes.
    pub const fn with_scratchpad(self, bytes: fn(&Op) -> usize) -> Impl<Op> {
        Impl {
            scratchpad: Scratchpad::Of(bytes),
            ..self
        }
    }

    /// The same implementation with a scratchpad of `bytes(op, engine)`
    /// bytes.
    pub const fn with_engine_scratchpad(self, bytes: fn(&Op, &Engine) -> usize) -> Impl<Op> {
        Impl {
            scratchpad: Scratchpad::OnEngine(bytes),
            ..self
        }
    }
}

/// A kind's op and implementation list, with the type erased so that
/// primitive descriptors of every kind are one type.
trait ImplList: Send + Sync {
    fn op(&self) -> Arc<dyn OpDesc>;
    fn typed(&self) -> Arc<dyn Any + Send + Sync>;
    fn len(&self) -> usize;
    fn name(&self, i: usize) -> &'static CStr;
    fn accepts(&self, i: usize, engine: &Engine) -> Result<()>;
    fn scratchpad(&self, i: usize, engine: &Engine) -> usize;
    fn create(&self, i: usize, engine: &Engine) -> Result<Arc<dyn Implementation>>;
}

impl<K: Kind> ImplList for Arc<K> {
    fn op(&self) -> Arc<dyn OpDesc> {
        self.clone()
    }
    fn typed(&self) -> Arc<dyn Any + Send + Sync> {
        self.clone()
    }
    fn len(&self) -> usize {
        K::IMPLS.len()
    }
    fn name(&self, i: usize) -> &'static CStr {
        K::IMPLS[i].name
    }
    fn accepts(&self, i: usize, engine: &Engine) -> Result<()> {
        let item = &K::IMPLS[i];
        match item.engine {
            EngineKind::Cpu => engine.expect_cpu()?,
            EngineKind::Gpu => engine.expect_gpu()?,
        }
        (item.accepts)(self, engine)
    }
    fn scratchpad(&self, i: usize, engine: &Engine) -> usize {
        K::IMPLS[i].scratchpad.bytes(self, engine)
    }
    fn create(&self, i: usize, engine: &Engine) -> Result<Arc<dyn Implementation>> {
        (K::IMPLS[i].create)(self, engine)
    }
}

/// A primitive's arguments at execution, by `DNNL_ARG_*`.
pub type ExecArgs = HashMap<i32, Arc<Memory>>;

/// What an implementation gets to run with.
pub struct ExecContext<'a> {
    /// The stream to submit to.
    pub stream: &'a Stream,
    /// The arguments, checked against the op's descriptors.
    pub args: &'a ExecArgs,
    /// GPU events the work must wait for.
    pub deps: &'a [Event],
    /// The scratchpad (of at least the bytes the implementation declared),
    /// when it declared one.
    pub scratchpad: Option<&'a Arc<Memory>>,
}

impl<'a> ExecContext<'a> {
    /// The memory of argument `arg`, or an invalid-arguments error naming it.
    pub fn arg(&self, arg: i32) -> Result<&Arc<Memory>> {
        self.args
            .get(&arg)
            .ok_or_else(|| Error::invalid(format!("execution argument {arg} is missing")))
    }

    /// The scratchpad the implementation declared.
    pub fn scratchpad(&self) -> Result<&'a Arc<Memory>> {
        self.scratchpad
            .ok_or_else(|| Error::runtime("the implementation declared no scratchpad"))
    }

    /// The stream's GPU queue (invalid arguments on a CPU stream).
    pub fn queue(&self) -> Result<gpu::Queue<'a>> {
        gpu::Queue::of(self.stream)
    }
}

/// A primitive's compiled form. It must not hold its engine (the primitive
/// cache keeps implementations, and must not keep engines alive): the
/// engine comes with the stream at execution.
pub trait Implementation: Send + Sync {
    /// Runs (CPU) or enqueues (GPU) the computation. On a GPU stream it
    /// returns the event of its last command.
    fn execute(&self, ctx: &ExecContext) -> Result<Option<Event>>;
}

/// An op with the implementation it settled on.
#[derive(Clone)]
pub struct PrimitiveDesc {
    engine: Arc<Engine>,
    op: Arc<dyn OpDesc>,
    impls: Arc<dyn ImplList>,
    current: usize,
    /// The scratchpad bytes the implementation needs.
    scratchpad: usize,
    /// The scratchpad's descriptor as queries answer it: a byte vector in
    /// the user scratchpad mode, the zero descriptor otherwise.
    scratchpad_md: Arc<MemoryDesc>,
    /// The attributes the descriptor was created with (a snapshot; the
    /// handle `dnnl_primitive_desc_get_attr` returns).
    attr: Arc<AttrCell>,
}

impl PrimitiveDesc {
    /// The descriptor of `op` with `attr` on `engine`: the attributes are
    /// checked against what the kind declares, then the first
    /// implementation that accepts the op is taken; unimplemented (with
    /// every implementation's reason) when none does.
    pub fn new<K: Kind>(
        engine: Arc<Engine>,
        op: Arc<K>,
        attr: PrimitiveAttr,
    ) -> Result<PrimitiveDesc> {
        op.attr_support().check(&attr, K::NAME)?;
        PrimitiveDesc::find(engine, Arc::new(op), 0, AttrCell::from_snapshot(attr))
    }

    /// [`PrimitiveDesc::new`] with the default attributes (the graph
    /// compiler's ops carry their post-ops themselves).
    pub fn create<K: Kind>(engine: Arc<Engine>, op: Arc<K>) -> Result<PrimitiveDesc> {
        PrimitiveDesc::new(engine, op, PrimitiveAttr::default())
    }

    fn find(
        engine: Arc<Engine>,
        impls: Arc<dyn ImplList>,
        from: usize,
        attr: Arc<AttrCell>,
    ) -> Result<PrimitiveDesc> {
        // As upstream, the first primitive descriptor fixes the CPU ISA level
        // (`dnnl_set_max_cpu_isa` is refused from now on).
        crate::base::isa::level();
        let mut reasons = Vec::new();
        for i in from..impls.len() {
            match impls.accepts(i, &engine) {
                Ok(()) => {
                    let scratchpad = impls.scratchpad(i, &engine);
                    // No allocation holds more than `isize::MAX` bytes, and the
                    // user scratchpad's descriptor counts them in a `dnnl_dim_t`.
                    let Ok(scratchpad_dim) = i64::try_from(scratchpad) else {
                        return Err(Error::invalid(format!(
                            "{}: the scratchpad would need {scratchpad} bytes, more than fit",
                            impls.name(i).to_string_lossy()
                        )));
                    };
                    let user = attr.read(|a| a.scratchpad_mode())? == dnnl_scratchpad_mode_user;
                    let scratchpad_md = if user && scratchpad > 0 {
                        MemoryDesc::with_strides(&[scratchpad_dim], dnnl_u8, None)?
                    } else {
                        MemoryDesc::zero()
                    };
                    return Ok(PrimitiveDesc {
                        engine,
                        op: impls.op(),
                        impls,
                        current: i,
                        scratchpad,
                        scratchpad_md: Arc::new(scratchpad_md),
                        attr,
                    });
                }
                Err(e) => reasons.push(format!("{}: {e}", impls.name(i).to_string_lossy())),
            }
        }
        if from > 0 {
            return Err(Error::LastImplReached);
        }
        Err(Error::unimplemented(format!(
            "no implementation: {}",
            reasons.join("; ")
        )))
    }

    /// The next implementation that accepts the op (`dnnl_last_impl_reached` after the last).
    pub fn next_impl(&self) -> Result<PrimitiveDesc> {
        PrimitiveDesc::find(
            self.engine.clone(),
            self.impls.clone(),
            self.current + 1,
            self.attr.clone(),
        )
    }

    /// The engine.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// The op.
    pub fn op(&self) -> &Arc<dyn OpDesc> {
        &self.op
    }

    /// The op as its kind's type, when it is of kind `K` (a backward
    /// descriptor's forward hint).
    pub fn op_as<K: Kind>(&self) -> Option<Arc<K>> {
        self.impls.typed().downcast::<K>().ok()
    }

    /// The implementation's name.
    pub fn impl_name(&self) -> &'static CStr {
        self.impls.name(self.current)
    }

    /// The scratchpad descriptor as `dnnl_query_scratchpad_md` answers: the
    /// bytes the implementation needs in the user scratchpad mode, the zero
    /// descriptor otherwise (the library then provides it).
    pub fn scratchpad_md(&self) -> &Arc<MemoryDesc> {
        &self.scratchpad_md
    }

    /// The bytes of scratchpad an execution needs, whoever provides them.
    pub fn scratchpad_size(&self) -> usize {
        self.scratchpad
    }

    /// The attributes (owned by the descriptor).
    pub fn attr(&self) -> &Arc<AttrCell> {
        &self.attr
    }

    /// The attributes as the verbose log spells them.
    pub fn attr_verbose(&self) -> String {
        self.attr
            .snapshot()
            .map(|a| a.to_verbose())
            .unwrap_or_default()
    }

    /// Instantiates the implementation.
    pub fn create_primitive(&self) -> Result<Arc<Primitive>> {
        let start = std::time::Instant::now();
        let key = key::of_op(&*self.op).map(|k| {
            primitive_cache::Key::new(&self.engine, &self.impl_name().to_string_lossy(), k)
        });
        let cached = key.as_ref().and_then(primitive_cache::get);
        let hit = cached.is_some();
        let (implementation, programs) = match cached {
            Some(found) => found,
            None => {
                let (created, programs) =
                    ocl::cache::record(|| self.impls.create(self.current, &self.engine));
                let created = created?;
                let programs: Arc<[ProgramKey]> = programs.into();
                if let Some(key) = key {
                    primitive_cache::put(key, &self.engine, &created, &programs);
                }
                (created, programs)
            }
        };
        primitive_verbose::log_create(self, hit, start.elapsed().as_secs_f64() * 1e3);
        Ok(Arc::new(Primitive {
            pd: Arc::new(PdCell::new(self.clone())),
            desc: self.clone(),
            implementation,
            programs,
        }))
    }
}

/// The object behind a `dnnl_primitive_desc_t`: `dnnl_primitive_desc_next_impl`
/// moves the handle itself on to the next implementation.
pub struct PdCell(std::sync::RwLock<PrimitiveDesc>);

impl PdCell {
    /// A cell holding `pd`.
    pub fn new(pd: PrimitiveDesc) -> PdCell {
        PdCell(std::sync::RwLock::new(pd))
    }

    /// A copy of the current primitive descriptor.
    pub fn get(&self) -> Result<PrimitiveDesc> {
        Ok(self.0.read()?.clone())
    }

    /// Moves on to the next implementation; unchanged on error.
    pub fn next_impl(&self) -> Result<()> {
        let next = self.0.read()?.next_impl()?;
        *self.0.write()? = next;
        Ok(())
    }
}

/// A primitive ready to execute.
pub struct Primitive {
    /// The descriptor handle `dnnl_primitive_get_primitive_desc` exposes.
    pd: Arc<PdCell>,
    /// The descriptor the primitive was created from (the handle's may not
    /// be moved on, but this one is fixed).
    desc: PrimitiveDesc,
    implementation: Arc<dyn Implementation>,
    /// The GPU programs the implementation was built from.
    programs: Arc<[ProgramKey]>,
}

/// The id a primitive cache blob of `pd` carries: the engine blob id, then
/// a hash of the implementation and op.
fn blob_id(pd: &PrimitiveDesc) -> Result<Vec<u8>> {
    let mut id = pd.engine().cache_blob_id()?;
    let op_key = key::of_op(&**pd.op())
        .ok_or_else(|| Error::unimplemented("this primitive kind has no cache blob"))?;
    id.extend_from_slice(b"primitive:");
    let mut what = KeyWriter::new();
    what.str(&pd.impl_name().to_string_lossy()).bytes(&op_key);
    id.extend_from_slice(&ocl::cache::stable_hash(&what.finish()).to_le_bytes());
    Ok(id)
}

/// Checks that `memory`, given as argument `arg`, is what the primitive was
/// created for (`expected`): the same descriptor (upstream's equality,
/// which ignores the strides of dimensions of size 1), or concrete
/// dimensions where the primitive was created with run-time ones (the
/// kernels then read the memory's own descriptor). Kernels are specialised
/// for the primitive's descriptors, so any other memory could make them read
/// or write past it: it is refused before anything is enqueued. Upstream
/// does not check; a program correct against it passes this check.
fn check_arg_md(arg: i32, memory: &Memory, expected: &MemoryDesc) -> Result<()> {
    let given = memory.md();
    if expected.is_zero() || **given == *expected {
        return Ok(());
    }
    let mismatch = |why: &str| {
        Err(Error::invalid(format!(
            "execution argument {arg}: the memory's descriptor ({}) is not the primitive's ({}): {why}",
            primitive_verbose::md_field("", given),
            primitive_verbose::md_field("", expected),
        )))
    };
    if given.data_type() != expected.data_type() {
        return mismatch("another data type");
    }
    if given.ndims() != expected.ndims() {
        return mismatch("another number of dimensions");
    }
    if expected.has_runtime_dims_or_strides() {
        // The kernel reads shapes and strides from the memory at execution:
        // only the dimensions fixed at creation must agree.
        let fixed = expected
            .dims()
            .iter()
            .zip(given.dims())
            .all(|(&e, &g)| e == crate::core::memory_desc::RUNTIME_DIM || e == g);
        return if fixed {
            Ok(())
        } else {
            mismatch("other dimensions")
        };
    }
    if given.dims() != expected.dims() {
        return mismatch("other dimensions");
    }
    if given.size(0) < expected.size(0) {
        return mismatch("a smaller buffer");
    }
    mismatch("another layout")
}

impl Primitive {
    /// The primitive's cache blob: its programs as device binaries, under
    /// an id naming the device, driver and library version and what the
    /// primitive computes (its implementation and op), so that only the
    /// same primitive descriptor on the same kind of device accepts it.
    /// CPU primitives compile nothing and have none (unimplemented, as
    /// upstream's).
    pub fn cache_blob(&self) -> Result<Vec<u8>> {
        let id = blob_id(&self.desc)?;
        self.desc.engine().programs_blob(&id, &self.programs)
    }

    /// The primitive of `pd`, its programs built from the binaries of
    /// `blob` (made by [`Primitive::cache_blob`] for the same descriptor on
    /// the same kind of device): nothing is compiled. A blob for another
    /// primitive, device, driver or library version, or a corrupted one, is
    /// refused (invalid arguments).
    pub fn from_cache_blob(pd: &PrimitiveDesc, blob: &[u8]) -> Result<Arc<Primitive>> {
        let id = blob_id(pd)?;
        pd.engine().load_programs_blob(&id, blob)?;
        pd.create_primitive()
    }

    /// The primitive descriptor.
    pub fn pd(&self) -> &Arc<PdCell> {
        &self.pd
    }

    /// Checks every argument: on an engine the primitive can use, and
    /// described as the primitive expects (see [`check_arg_md`]). Arguments
    /// the op does not name are ignored, as upstream ignores them.
    /// [`Primitive::execute`] calls it first; it is public so that
    /// `cargo bench --bench primitives -- check` can time it alone.
    pub fn check_args(&self, args: &ExecArgs) -> Result<()> {
        let engine = self.desc.engine();
        let op = self.desc.op();
        for (&arg, memory) in args {
            let host_side = op.host_arg(arg)
                && engine.kind() == EngineKind::Gpu
                && memory.engine().kind() == EngineKind::Cpu;
            if !host_side {
                engine.check_memory_of(memory.engine())?;
            }
            if arg == DNNL_ARG_SCRATCHPAD {
                continue;
            }
            if let Some(expected) = op.arg_md(arg) {
                check_arg_md(arg, memory, expected)?;
            }
        }
        Ok(())
    }

    /// Executes on `stream` after `deps`; returns the completion event on
    /// GPU streams.
    pub fn execute(
        &self,
        stream: &Stream,
        args: &ExecArgs,
        deps: &[Event],
    ) -> Result<Option<Event>> {
        if !self.desc.engine().same_device(stream.engine()) {
            return Err(Error::invalid(
                "the stream's engine is not the primitive's engine",
            ));
        }
        if let StreamBackend::Cpu = stream.backend()
            && !deps.is_empty()
        {
            return Err(Error::invalid("a CPU stream takes no GPU events"));
        }
        self.check_args(args)?;
        let bytes = self.desc.scratchpad_size();
        if bytes == 0 {
            return self.run(stream, args, deps, None);
        }
        // The descriptor reports the scratchpad exactly when the user
        // provides it.
        if !self.desc.scratchpad_md().is_zero() {
            let memory = args.get(&DNNL_ARG_SCRATCHPAD).ok_or_else(|| {
                Error::invalid("the scratchpad mode is user and DNNL_ARG_SCRATCHPAD is missing")
            })?;
            if memory.md().size(0) < bytes {
                return Err(Error::invalid(format!(
                    "the scratchpad holds {} bytes; the primitive needs {bytes}",
                    memory.md().size(0)
                )));
            }
            return self.run(stream, args, deps, Some(memory));
        }
        stream.with_scratchpad(bytes, deps, |memory, deps| {
            self.run(stream, args, deps, Some(memory))
        })
    }

    fn run(
        &self,
        stream: &Stream,
        args: &ExecArgs,
        deps: &[Event],
        scratchpad: Option<&Arc<Memory>>,
    ) -> Result<Option<Event>> {
        let ctx = ExecContext {
            stream,
            args,
            deps,
            scratchpad,
        };
        // One entry of the stream's profile when it profiles.
        let execute = || stream.profiled(|| self.implementation.execute(&ctx));
        if !primitive_verbose::exec_logged() {
            return execute();
        }
        // Timed as upstream times without a device profiler: the stream is
        // drained before and after.
        stream.wait()?;
        let start = std::time::Instant::now();
        let done = execute()?;
        stream.wait()?;
        primitive_verbose::log_exec(&self.desc, start.elapsed().as_secs_f64() * 1e3);
        Ok(done)
    }
}
