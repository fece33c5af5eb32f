//! Compiled partitions (`dnnl_graph_compiled_partition_*`) and their
//! execution.
//!
//! Layer: graph. A [`CompiledPartition`] is what the C handle stands for:
//! created empty from a partition, filled by `dnnl_graph_partition_compile`
//! with a [`Compiled`] (a lowered program for one engine and one set of
//! shapes, shared through the compiled-partition cache).
//!
//! Execution binds the user's tensors (matched by logical tensor id) to the
//! program's buffers, each seen through the descriptor its step wants (a
//! host pointer on the CPU engine, a USM pointer on OpenCL engines),
//! prepares constant inputs (through the constant tensor cache),
//! allocates the temporaries from the engine's graph allocator (or carves
//! them out of the user's scratchpad), runs the steps in order, each after
//! the previous one, and frees each temporary with the event of the last
//! step that used it. On OpenCL it returns the event of the last step.

// The C enumerators are matched by their C names.
#![allow(non_upper_case_globals)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use crate::abi::*;
use crate::core::engine::{Backend, Engine};
use crate::core::error::{Error, Result};
use crate::core::gpu;
use crate::core::key::KeyWriter;
use crate::core::memory::{DataHandle, Memory};
use crate::core::memory_desc::MemoryDesc;
use crate::core::ocl_storage::OclKind;
use crate::core::primitive::ExecArgs;
use crate::core::stream::Stream;
use crate::graph::alloc::Temp;
use crate::graph::constant_cache::{self, Key, Packed};
use crate::graph::logical_tensor;
use crate::graph::logical_tensor::Lt;
use crate::graph::lower::{self, Buf, Program, Step};
use crate::graph::partition::{self, Partition};
use crate::graph::tensor::{Backing, Tensor};
use crate::graph::verbose;
use crate::runtime::ocl::Event;

static NEXT_ID: AtomicUsize = AtomicUsize::new(1);

/// A partition compiled for one engine and one set of shapes.
pub struct Compiled {
    id: usize,
    partition: Arc<Partition>,
    engine: Arc<Engine>,
    inputs: Vec<Lt>,
    outputs: Vec<Lt>,
    program: Program,
    inplace: Vec<dnnl_graph_inplace_pair_t>,
    scratchpad: Lt,
    /// Bytes of scratchpad that hold every temporary.
    scratchpad_bytes: usize,
    /// Bytes each input and output port spans.
    port_bytes: (Vec<usize>, Vec<usize>),
}

impl Drop for Compiled {
    fn drop(&mut self) {
        constant_cache::purge(self.id);
    }
}

impl Compiled {
    /// Lowers `partition` for the given (checked) port tensors.
    pub fn build(
        partition: &Arc<Partition>,
        ins: &[Lt],
        outs: &[Lt],
        engine: &Arc<Engine>,
    ) -> Result<Arc<Compiled>> {
        let (program, inputs, outputs) = lower::lower(partition, ins, outs, engine)?;
        let inplace = program
            .inplace
            .iter()
            .map(|&(i, o)| dnnl_graph_inplace_pair_t {
                input_id: i,
                output_id: o,
            })
            .collect();
        let scratchpad_bytes = program.scratchpad_size()?;
        let bytes = |ports: &[Lt]| -> Result<Vec<usize>> {
            ports.iter().map(logical_tensor::mem_size).collect()
        };
        let port_bytes = (bytes(&inputs)?, bytes(&outputs)?);
        let scratchpad = partition::scratchpad_lt(scratchpad_bytes)?;
        Ok(Arc::new(Compiled {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            partition: partition.clone(),
            engine: engine.clone(),
            inputs,
            outputs,
            program,
            inplace,
            scratchpad,
            scratchpad_bytes,
            port_bytes,
        }))
    }

    pub fn partition(&self) -> &Arc<Partition> {
        &self.partition
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    pub fn inputs(&self) -> &[Lt] {
        &self.inputs
    }

    pub fn outputs(&self) -> &[Lt] {
        &self.outputs
    }

    /// The number of steps (primitive executions) of one run.
    pub fn num_steps(&self) -> usize {
        self.program.steps.len()
    }
}

/// The object behind a `dnnl_graph_compiled_partition_t`.
pub struct CompiledPartition {
    partition: Arc<Partition>,
    compiled: RwLock<Option<Arc<Compiled>>>,
}

impl CompiledPartition {
    /// An empty compiled partition of `partition`.
    pub fn new(partition: Arc<Partition>) -> Arc<CompiledPartition> {
        Arc::new(CompiledPartition {
            partition,
            compiled: RwLock::new(None),
        })
    }

    /// The partition it was created from.
    pub fn partition(&self) -> &Arc<Partition> {
        &self.partition
    }

    /// Installs the result of a compilation.
    pub fn set(&self, compiled: Arc<Compiled>) -> Result<()> {
        *self.compiled.write()? = Some(compiled);
        Ok(())
    }

    /// The compilation; invalid arguments before one.
    pub fn compiled(&self) -> Result<Arc<Compiled>> {
        self.compiled
            .read()?
            .clone()
            .ok_or_else(|| Error::invalid("the compiled partition has not been compiled"))
    }

    /// The resolved logical tensor of input or output `id`.
    pub fn query_logical_tensor(&self, id: usize) -> Result<Lt> {
        let c = self.compiled()?;
        c.inputs
            .iter()
            .chain(&c.outputs)
            .find(|l| l.id == id)
            .copied()
            .ok_or_else(|| {
                Error::invalid(format!("the compiled partition has no tensor with id {id}"))
            })
    }

    /// The in-place pairs: a pointer into the compilation, valid while it lives.
    pub fn inplace_ports(&self) -> Result<(usize, *const dnnl_graph_inplace_pair_t)> {
        let c = self.compiled()?;
        let pairs = (c.inplace.len(), c.inplace.as_ptr());
        Ok(pairs)
    }

    /// The scratchpad tensor: 1-D u8, as many bytes as the temporaries need.
    pub fn scratchpad_lt(&self) -> Result<Lt> {
        Ok(self.compiled()?.scratchpad)
    }

    /// Executes on `stream` after `deps` (OpenCL); returns the event of
    /// the last step (OpenCL). `scratchpad`, if given and large enough,
    /// holds the temporaries. Every tensor is checked against its port
    /// first ([`check_tensor`]): nothing is enqueued for tensors that do not
    /// fit.
    pub fn execute(
        &self,
        stream: &Arc<Stream>,
        inputs: &[Arc<Tensor>],
        outputs: &[Arc<Tensor>],
        scratchpad: Option<Arc<Tensor>>,
        deps: &[Event],
    ) -> Result<Option<Event>> {
        let c = self.compiled()?;
        if !Arc::ptr_eq(&c.engine, stream.engine()) {
            // Upstream's primitives refuse a stream of another engine object
            // (even one of the same device) with `dnnl_invalid_arguments`.
            check_engine(&c.engine, stream.engine())?;
            return Err(Error::invalid(
                "the stream is of another engine than the one the partition was compiled \
                 for (even on the same device, the stream must be of that engine)",
            ));
        }
        let ins = bind(&c, (&c.inputs, &c.port_bytes.0), inputs, "input")?;
        let outs = bind(&c, (&c.outputs, &c.port_bytes.1), outputs, "output")?;
        let scratchpad = match scratchpad {
            Some(s) => usable_scratchpad(&c, &s)?,
            None => None,
        };
        let start = std::time::Instant::now();
        let mut run = Run {
            c: &c,
            stream,
            ins: &ins,
            outs: &outs,
            temps: Vec::new(),
            packed: Vec::new(),
            owned: Vec::new(),
            memories: HashMap::new(),
        };
        run.prepare_temps(scratchpad)?;
        let result = run.go(deps);
        let event = match result {
            Ok(e) => e,
            Err(e) => {
                // Whatever was enqueued finishes before the memory goes.
                let _ = stream.wait();
                run.release_all(None);
                return Err(e);
            }
        };
        for b in ins.iter().chain(&outs) {
            if let Some(e) = &event {
                b.tensor.note_use(e);
            }
        }
        if verbose::exec_logged() {
            stream.wait()?;
            verbose::log_exec(&c, start.elapsed().as_secs_f64() * 1e3);
        }
        Ok(event)
    }
}

/// The stream's engine must be the compilation's (same device and context).
fn check_engine(compiled: &Engine, stream: &Engine) -> Result<()> {
    let same = match (compiled.backend(), stream.backend()) {
        (Backend::Cpu, Backend::Cpu) => true,
        (Backend::Ocl(a), Backend::Ocl(b)) => {
            a.context() == b.context() && a.device() == b.device()
        }
        _ => false,
    };
    if same {
        Ok(())
    } else {
        Err(Error::invalid(
            "the stream's engine is not the engine the partition was compiled for",
        ))
    }
}

/// A tensor bound to a port, with the data handle it had when checked.
struct Bound {
    tensor: Arc<Tensor>,
    addr: usize,
}

/// The tensors in port order, matched by logical tensor id, each checked
/// against its port ([`check_tensor`]) and the bytes it spans.
fn bind(
    c: &Compiled,
    (ports, bytes): (&[Lt], &[usize]),
    given: &[Arc<Tensor>],
    what: &str,
) -> Result<Vec<Bound>> {
    if given.len() != ports.len() {
        return Err(Error::invalid(format!(
            "the compiled partition takes {} {what} tensor(s), {} given",
            ports.len(),
            given.len()
        )));
    }
    ports
        .iter()
        .zip(bytes)
        .map(|(p, &needed)| {
            let tensor = given
                .iter()
                .find(|t| t.logical_tensor().id == p.id)
                .ok_or_else(|| Error::invalid(format!("no {what} tensor has id {}", p.id)))?;
            let addr = check_tensor(c, (p, needed), tensor, what)?;
            Ok(Bound {
                tensor: tensor.clone(),
                addr,
            })
        })
        .collect()
}

/// Checks that `tensor` may stand for `port` (a logical tensor of the
/// compilation) and returns its data address. Upstream binds the tensors
/// without looking at them; we refuse, before anything is enqueued, a
/// tensor whose kernels would read or write outside its memory or misread
/// it:
/// - on another engine (a host pointer is no USM pointer);
/// - of another data type (`undef` says nothing and passes);
/// - of another shape: a known number of dimensions must be the port's, and
///   each known dimension the port's. Unknown ones say nothing and pass, so
///   that tensors made from the logical tensors given at compilation (where
///   outputs may have unknown dimensions and an `any` layout) work, as with
///   upstream;
/// - of another layout: a known stride must be the port's (except on
///   dimensions of 1, where no stride is applied); `any` and `undef` pass;
///   an opaque layout is none of ours;
/// - without memory, or holding less than the `needed` bytes the port spans
///   (`DNNL_MEMORY_ALLOCATE`, scalars). The user's memory is as large as its
///   logical tensor says, and one that passed the checks above says the
///   port's size or nothing.
fn check_tensor(
    c: &Compiled,
    (port, needed): (&Lt, usize),
    tensor: &Tensor,
    what: &str,
) -> Result<usize> {
    let lt = tensor.logical_tensor();
    let refuse = |why: &str| {
        Err(Error::invalid(format!(
            "{what} tensor {} does not fit the compiled partition's {}: {why}",
            logical_tensor::describe(lt),
            logical_tensor::describe(port)
        )))
    };
    if let Some(engine) = tensor.given_engine()
        && check_engine(&c.engine, engine).is_err()
    {
        return refuse("it is on another engine");
    }
    if lt.data_type != port.data_type && lt.data_type != dnnl_data_type_undef {
        return refuse("another data type");
    }
    let want = logical_tensor::dims(port);
    if let Some(n) = logical_tensor::ndims(lt) {
        if n != want.len() {
            return refuse("another number of dimensions");
        }
        let dims = logical_tensor::dims(lt);
        if dims.iter().zip(want).any(|(&g, &w)| g >= 0 && g != w) {
            return refuse("other dimensions");
        }
    }
    match lt.layout_type {
        dnnl_graph_layout_type_any | dnnl_graph_layout_type_undef => {}
        dnnl_graph_layout_type_strided => {
            let (have, need) = (logical_tensor::strides(lt), logical_tensor::strides(port));
            let differs = (0..have.len().min(need.len())).any(|d| {
                want[d] != 1 && have[d] != logical_tensor::UNKNOWN_DIM && have[d] != need[d]
            });
            if differs {
                return refuse("other strides");
            }
        }
        _ => return refuse("a layout that is not strided"),
    }
    let (handle, backing) = tensor.snapshot();
    let enough = match backing {
        Backing::None => needed == 0,
        Backing::Held(bytes) => bytes >= needed,
        Backing::User => true,
    };
    if !enough {
        return if backing == Backing::None {
            refuse("it has no data handle")
        } else {
            refuse(&format!("it holds less than the {needed} bytes needed"))
        };
    }
    Ok(handle.addr())
}

/// The scratchpad tensor's data address, if the temporaries fit in it; a
/// scratchpad on another engine is refused.
fn usable_scratchpad(c: &Compiled, s: &Tensor) -> Result<Option<usize>> {
    if let Some(engine) = s.given_engine()
        && check_engine(&c.engine, engine).is_err()
    {
        return Err(Error::invalid(
            "the scratchpad tensor is on another engine than the compiled partition",
        ));
    }
    let needed = c.scratchpad_bytes;
    let (handle, backing) = s.snapshot();
    let holds = match backing {
        Backing::None => 0,
        Backing::Held(bytes) => bytes,
        Backing::User if s.logical_tensor().layout_type == dnnl_graph_layout_type_strided => {
            logical_tensor::mem_size(s.logical_tensor()).unwrap_or(0)
        }
        Backing::User => 0,
    };
    Ok((!handle.is_null() && holds >= needed).then_some(handle.addr()))
}

/// One execution in progress.
struct Run<'a> {
    c: &'a Compiled,
    stream: &'a Arc<Stream>,
    ins: &'a [Bound],
    outs: &'a [Bound],
    /// Address of each temporary.
    temps: Vec<usize>,
    /// The prepacked constants.
    packed: Vec<Arc<Packed>>,
    /// Temporaries allocated for this run, by temporary index.
    owned: Vec<(usize, Temp)>,
    /// The memory objects made so far, by buffer and descriptor key.
    memories: HashMap<(Buf, Vec<u8>), Arc<Memory>>,
}

impl Run<'_> {
    /// Places the temporaries in the scratchpad at `scratchpad` (checked
    /// to hold them all), or allocates them.
    fn prepare_temps(&mut self, scratchpad: Option<usize>) -> Result<()> {
        if let Some(base) = scratchpad {
            let (offsets, _) = self.c.program.temp_offsets()?;
            self.temps = offsets.iter().map(|o| base.wrapping_add(*o)).collect();
            return Ok(());
        }
        for (i, &size) in self.c.program.temps.iter().enumerate() {
            let t = Temp::new(&self.c.engine, size, lower::TEMP_ALIGNMENT)?;
            self.temps.push(t.ptr() as usize);
            self.owned.push((i, t));
        }
        Ok(())
    }

    fn addr(&self, buf: Buf) -> usize {
        match buf {
            Buf::In(i) => self.ins[i].addr,
            Buf::Out(i) => self.outs[i].addr,
            Buf::Temp(i) => self.temps[i],
            Buf::Cached(i) => self.packed[i].addr(),
            Buf::Const(_) => 0,
        }
    }

    fn memory(&mut self, buf: Buf, md: &MemoryDesc) -> Result<Arc<Memory>> {
        if let Buf::Const(i) = buf {
            return Ok(self.c.program.consts[i].clone());
        }
        let mut md_key = KeyWriter::new();
        md_key.put(md);
        let key = (buf, md_key.finish());
        if let Some(m) = self.memories.get(&key) {
            return Ok(m.clone());
        }
        let addr = self.addr(buf);
        let handle = if addr == 0 {
            DataHandle::None
        } else {
            DataHandle::User(addr)
        };
        let kind = match self.c.engine.backend() {
            Backend::Cpu => None,
            Backend::Ocl(_) => Some(OclKind::Usm),
            Backend::Ze(_) => return Err(ze_unsupported()),
        };
        let m = Memory::create(self.c.engine.clone(), md.clone(), kind, &[handle])?;
        self.memories.insert(key, m.clone());
        Ok(m)
    }

    fn exec(&mut self, step: &Step, deps: &[Event]) -> Result<Option<Event>> {
        let mut args = ExecArgs::new();
        for a in &step.args {
            let m = self.memory(a.buf, &a.md)?;
            args.insert(a.arg, m);
        }
        // The graph runs on CPU and OpenCL engines only (checked at
        // compile time), so its events are OpenCL's.
        let deps: Vec<gpu::Event> = deps.iter().cloned().map(gpu::Event::Ocl).collect();
        let event = step.prim.execute(self.stream, &args, &deps)?;
        Ok(event.and_then(|e| e.as_ocl().cloned()))
    }

    /// Prepacks the constant inputs (or takes them from the cache).
    fn prepack(&mut self, deps: &mut Vec<Event>) -> Result<()> {
        for (k, p) in self.c.program.prepacks.iter().enumerate() {
            let input = &self.ins[p.input];
            let key = Key {
                compiled: self.c.id,
                tensor: input.tensor.logical_tensor().id,
                handle: input.addr,
            };
            if let Some(found) = constant_cache::lookup(key)? {
                if let Some(e) = found.last_use() {
                    deps.push(e);
                }
                self.packed.push(found);
                continue;
            }
            let packed = Packed::new(Temp::new(&self.c.engine, p.size, lower::TEMP_ALIGNMENT)?);
            self.packed.push(packed.clone());
            debug_assert_eq!(self.packed.len(), k + 1);
            let done = self.exec(&p.step, deps)?;
            packed.note_use(done.as_ref());
            if let Some(e) = done {
                *deps = vec![e];
            }
            constant_cache::insert(key, self.c.engine.kind(), &packed)?;
        }
        Ok(())
    }

    fn go(&mut self, deps: &[Event]) -> Result<Option<Event>> {
        let mut deps: Vec<Event> = deps.to_vec();
        self.prepack(&mut deps)?;
        let steps = &self.c.program.steps;
        // The last step using each temporary.
        let mut last_use: HashMap<usize, usize> = HashMap::new();
        for (s, step) in steps.iter().enumerate() {
            for a in &step.args {
                if let Buf::Temp(t) = a.buf {
                    last_use.insert(t, s);
                }
            }
        }
        let mut events: Vec<Option<Event>> = Vec::with_capacity(steps.len());
        let mut last = None;
        for step in steps {
            let done = self.exec(step, &deps)?;
            if let Some(e) = &done {
                deps = vec![e.clone()];
            }
            last = done.clone().or(last);
            events.push(done);
        }
        for p in &self.packed {
            p.note_use(last.as_ref());
        }
        // Each temporary goes with the event of its last step.
        let owned = std::mem::take(&mut self.owned);
        for (t, temp) in owned {
            let ev = last_use
                .get(&t)
                .and_then(|&s| events[s].clone())
                .or_else(|| last.clone());
            self.free(temp, ev);
        }
        Ok(last)
    }

    fn free(&self, temp: Temp, event: Option<Event>) {
        if event.is_none() && !matches!(self.c.engine.backend(), Backend::Cpu) {
            // No event to wait for: finish the queue before the memory goes.
            let _ = self.stream.wait();
        }
        temp.release(event);
    }

    fn release_all(&mut self, event: Option<Event>) {
        for (_, temp) in std::mem::take(&mut self.owned) {
            self.free(temp, event.clone());
        }
    }
}

/// The refusal of Level Zero engines: the graph API runs on CPU and OpenCL
/// engines only; Level Zero graph execution is not written yet.
pub(crate) fn ze_unsupported() -> Error {
    Error::unimplemented("the graph API does not run on Level Zero engines yet")
}
