//! Primitive descriptors and primitives: the machinery every primitive kind
//! plugs into.
//!
//! Layer: core. A kind (`prims::<kind>`) supplies an [`OpDesc`] (what to
//! compute: shapes, algorithm, the memory descriptors by argument) and a list
//! of [`ImplCandidate`]s, best first, each of which may decline a problem. A
//! [`PrimitiveDesc`] is an op with the candidate it settled on
//! (`dnnl_primitive_desc_next_impl` moves to the next that accepts); a
//! [`Primitive`] is that candidate instantiated ([`Implementation`]), which
//! executes on a stream.
//!
//! Execution on a CPU stream is synchronous. On an OpenCL stream an
//! implementation enqueues its kernels after the given events and returns the
//! event of its last command; the stream decides what the caller sees.

use std::collections::HashMap;
use std::ffi::CStr;
use std::sync::Arc;

use crate::abi::*;
use crate::core::attr::{AttrCell, PrimitiveAttr};
use crate::core::engine::{Backend, Engine};
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
    /// Whether execution argument `arg` may be memory of a CPU engine while
    /// the primitive runs on an OpenCL engine (a reorder between engines
    /// takes one side in host memory); no argument may by default.
    fn host_arg(&self, _arg: i32) -> bool {
        false
    }
    /// The argument `dnnl_query_src_md` with `index` names, where it is not
    /// `DNNL_ARG_SRC_0 + index` (sum and concat: `DNNL_ARG_MULTIPLE_SRC + index`).
    fn src_arg(&self, _index: i32) -> Option<i32> {
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

/// One way to compute an op; it may decline (unimplemented) a problem.
pub trait ImplCandidate: Send + Sync {
    /// The implementation's name for `impl_info_str` and verbose lines
    /// (`ref:any`, `ocl:ref`, `ocl:gemm_tiled` ...).
    fn name(&self) -> &'static CStr;
    /// Whether it handles `op` on `engine`; `Err` says why not.
    fn accepts(&self, engine: &Engine, op: &Arc<dyn OpDesc>) -> Result<()>;
    /// The implementation, with its kernels built.
    fn create(&self, engine: &Arc<Engine>, op: &Arc<dyn OpDesc>)
    -> Result<Arc<dyn Implementation>>;
}

/// A primitive's arguments at execution, by `DNNL_ARG_*`.
pub type ExecArgs = HashMap<i32, Arc<Memory>>;

/// What an implementation gets to run with.
pub struct ExecContext<'a> {
    /// The stream to submit to.
    pub stream: &'a Stream,
    /// The arguments.
    pub args: &'a ExecArgs,
    /// GPU events the work must wait for.
    pub deps: &'a [Event],
}

impl<'a> ExecContext<'a> {
    /// The memory of argument `arg`, or an invalid-arguments error naming it.
    pub fn arg(&self, arg: i32) -> Result<&Arc<Memory>> {
        self.args
            .get(&arg)
            .ok_or_else(|| Error::invalid(format!("execution argument {arg} is missing")))
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
pub struct PrimitiveDesc {
    engine: Arc<Engine>,
    op: Arc<dyn OpDesc>,
    candidates: Arc<[Arc<dyn ImplCandidate>]>,
    current: usize,
    /// The zero descriptor, for the scratchpad (no implementation needs one yet).
    scratchpad_md: Arc<MemoryDesc>,
    /// The attributes the descriptor was created with (a snapshot; the
    /// handle `dnnl_primitive_desc_get_attr` returns).
    attr: Arc<AttrCell>,
}

impl PrimitiveDesc {
    /// The first candidate that accepts `op` on `engine`; unimplemented (with
    /// every candidate's reason) when none does.
    pub fn create(
        engine: Arc<Engine>,
        op: Arc<dyn OpDesc>,
        candidates: Vec<Arc<dyn ImplCandidate>>,
    ) -> Result<PrimitiveDesc> {
        let candidates: Arc<[Arc<dyn ImplCandidate>]> = candidates.into();
        PrimitiveDesc::find(engine, op, candidates, 0, AttrCell::new())
    }

    fn find(
        engine: Arc<Engine>,
        op: Arc<dyn OpDesc>,
        candidates: Arc<[Arc<dyn ImplCandidate>]>,
        from: usize,
        attr: Arc<AttrCell>,
    ) -> Result<PrimitiveDesc> {
        let mut reasons = Vec::new();
        for (i, candidate) in candidates.iter().enumerate().skip(from) {
            match candidate.accepts(&engine, &op) {
                Ok(()) => {
                    return Ok(PrimitiveDesc {
                        engine,
                        op,
                        candidates: candidates.clone(),
                        current: i,
                        scratchpad_md: Arc::new(MemoryDesc::zero()),
                        attr,
                    });
                }
                Err(e) => reasons.push(format!("{}: {e}", candidate.name().to_string_lossy())),
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
            self.op.clone(),
            self.candidates.clone(),
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

    /// The implementation's name.
    pub fn impl_name(&self) -> &'static CStr {
        self.candidates[self.current].name()
    }

    /// The scratchpad descriptor (zero: no implementation uses one yet).
    pub fn scratchpad_md(&self) -> &Arc<MemoryDesc> {
        &self.scratchpad_md
    }

    /// Records the attributes the descriptor was created with. The kind has
    /// already refused what it cannot honour.
    pub fn with_attr(mut self, attr: PrimitiveAttr) -> PrimitiveDesc {
        self.attr = AttrCell::from_snapshot(attr);
        self
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
                let (created, programs) = ocl::cache::record(|| {
                    self.candidates[self.current].create(&self.engine, &self.op)
                });
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
            op: self.op.clone(),
            engine: self.engine.clone(),
            implementation,
            programs,
        }))
    }
}

impl Clone for PrimitiveDesc {
    fn clone(&self) -> Self {
        PrimitiveDesc {
            engine: self.engine.clone(),
            op: self.op.clone(),
            candidates: self.candidates.clone(),
            current: self.current,
            scratchpad_md: self.scratchpad_md.clone(),
            attr: self.attr.clone(),
        }
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
    pd: Arc<PdCell>,
    op: Arc<dyn OpDesc>,
    engine: Arc<Engine>,
    implementation: Arc<dyn Implementation>,
    /// The OpenCL programs the implementation was built from.
    programs: Arc<[ProgramKey]>,
}

/// Whether memory on `memory` can be used by a primitive on `engine`.
fn check_memory_engine(engine: &Engine, memory: &Memory) -> Result<()> {
    match (engine.backend(), memory.engine().backend()) {
        (Backend::Cpu, Backend::Cpu) => Ok(()),
        (Backend::Ocl(a), Backend::Ocl(b)) if a.context() == b.context() => Ok(()),
        (Backend::Ocl(_), Backend::Ocl(_)) => Err(Error::invalid(
            "mismatched OpenCL context for primitive/memory",
        )),
        (Backend::Ze(a), Backend::Ze(b)) if a.context() == b.context() => Ok(()),
        (Backend::Ze(_), Backend::Ze(_)) => Err(Error::invalid(
            "mismatched Level Zero context for primitive/memory",
        )),
        _ => Err(Error::invalid(
            "the memory is on an engine of another kind than the primitive",
        )),
    }
}

/// The id a primitive cache blob of `pd` carries: the engine blob id, then
/// a hash of the implementation and op.
fn blob_id(pd: &PrimitiveDesc) -> Result<Vec<u8>> {
    let mut id = match pd.engine().backend() {
        Backend::Ocl(ocl) => crate::core::ocl_engine::OclEngine::cache_blob_id(ocl.device())?,
        Backend::Ze(ze) => ze.blob_id(),
        Backend::Cpu => {
            return Err(Error::unimplemented(
                "a CPU primitive compiles nothing and has no cache blob",
            ));
        }
    };
    let op_key = key::of_op(&**pd.op())
        .ok_or_else(|| Error::unimplemented("this primitive kind has no cache blob"))?;
    id.extend_from_slice(b"primitive:");
    let mut what = KeyWriter::new();
    what.str(&pd.impl_name().to_string_lossy()).bytes(&op_key);
    id.extend_from_slice(&ocl::cache::stable_hash(&what.finish()).to_le_bytes());
    Ok(id)
}

impl Primitive {
    /// The primitive's cache blob: its programs as device binaries, under
    /// an id naming the device, driver and library version and what the
    /// primitive computes (its implementation and op), so that only the
    /// same primitive descriptor on the same kind of device accepts it.
    /// CPU primitives compile nothing and have none (unimplemented, as
    /// upstream's).
    pub fn cache_blob(&self) -> Result<Vec<u8>> {
        let pd = self.pd.get()?;
        let id = blob_id(&pd)?;
        let entries = match self.engine.backend() {
            Backend::Ze(ze) => ze.entries_of(&self.programs)?,
            _ => {
                let ocl = self.engine.ocl("primitive cache blob")?;
                ocl.programs().entries_of(Some(&self.programs))?
            }
        };
        Ok(crate::core::cache_blob::encode(&id, &entries))
    }

    /// The primitive of `pd`, its programs built from the binaries of
    /// `blob` (made by [`Primitive::cache_blob`] for the same descriptor on
    /// the same kind of device): nothing is compiled. A blob for another
    /// primitive, device, driver or library version, or a corrupted one, is
    /// refused (invalid arguments).
    pub fn from_cache_blob(pd: &PrimitiveDesc, blob: &[u8]) -> Result<Arc<Primitive>> {
        let id = blob_id(pd)?;
        if let Backend::Ze(ze) = pd.engine().backend() {
            ze.load_entries(&id, blob)?;
            return pd.create_primitive();
        }
        let entries = crate::core::cache_blob::decode(&id, blob)?;
        let ocl = pd.engine().ocl("primitive cache blob")?;
        for (key, binary) in entries {
            ocl.programs().insert_binary(key, binary)?;
        }
        pd.create_primitive()
    }

    /// The primitive descriptor.
    pub fn pd(&self) -> &Arc<PdCell> {
        &self.pd
    }

    /// Executes on `stream` after `deps`; returns the completion event on
    /// OpenCL streams.
    pub fn execute(
        &self,
        stream: &Stream,
        args: &ExecArgs,
        deps: &[Event],
    ) -> Result<Option<Event>> {
        let engine = &self.engine;
        match (engine.backend(), stream.engine().backend()) {
            (Backend::Cpu, Backend::Cpu) => {}
            (Backend::Ocl(a), Backend::Ocl(b))
                if a.context() == b.context() && a.device() == b.device() => {}
            (Backend::Ze(a), Backend::Ze(b))
                if a.context() == b.context() && a.device() == b.device() => {}
            _ => {
                return Err(Error::invalid(
                    "the stream's engine is not the primitive's engine",
                ));
            }
        }
        for (&arg, memory) in args {
            let host_side = self.op.host_arg(arg)
                && matches!(
                    (engine.backend(), memory.engine().backend()),
                    (Backend::Ocl(_) | Backend::Ze(_), Backend::Cpu)
                );
            if !host_side {
                check_memory_engine(engine, memory)?;
            }
        }
        if let StreamBackend::Cpu = stream.backend() {
            if !deps.is_empty() {
                return Err(Error::invalid("a CPU stream takes no GPU events"));
            }
        }
        let ctx = ExecContext { stream, args, deps };
        if !primitive_verbose::exec_logged() {
            return self.implementation.execute(&ctx);
        }
        // Timed as upstream times without a device profiler: the stream is
        // drained before and after.
        stream.wait()?;
        let start = std::time::Instant::now();
        let done = self.implementation.execute(&ctx)?;
        stream.wait()?;
        primitive_verbose::log_exec(&self.pd.get()?, start.elapsed().as_secs_f64() * 1e3);
        Ok(done)
    }
}
