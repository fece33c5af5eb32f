//! Kernel parameter kinds read from a SPIR-V module.
//!
//! OpenCL runtimes give no `clGetKernelArgInfo` for programs built from IL (Intel's CPU
//! runtime among them), yet `zeKernelSetArgumentValue` must know whether an argument
//! is a USM pointer, a local memory size or bytes, and how many bytes. The SPIR-V says
//! so: each `OpEntryPoint Kernel` names an `OpFunction` whose `OpFunctionParameter`s
//! have types, and a type is either an `OpTypePointer` with a storage class or a value
//! of some byte size. This module walks the word stream (5 header words, then
//! instructions of `word count << 16 | opcode`) and answers, per kernel name, a
//! [`Param`] per parameter. Nothing here calls OpenCL.
//!
//! Sizes follow OpenCL C's layout: scalars their width, vectors their element size
//! times the count rounded up to a power of two (3 → 4), arrays element size times
//! length, structs their members at natural alignment (none with `CPacked`), pointers
//! the addressing model's width. A struct passed by value appears as a
//! `Function`-storage pointer (`FuncParamAttr ByVal`): its size is the pointee's.

use std::collections::HashMap;

/// What a kernel parameter takes from `zeKernelSetArgumentValue`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Param {
    /// A global or constant pointer: a USM address (or NULL).
    Pointer,
    /// A local pointer: the host passes a size and no value.
    Local,
    /// Bytes of exactly this size.
    Value(usize),
    /// Images, samplers, pipes, events, ...: nothing this driver can set.
    Opaque,
}

/// The kernels of a module: entry point name → parameters in order.
pub type Kernels = HashMap<String, Vec<Param>>;

const MAGIC: u32 = 0x0723_0203;

mod op {
    pub const MEMORY_MODEL: u16 = 14;
    pub const ENTRY_POINT: u16 = 15;
    pub const TYPE_BOOL: u16 = 20;
    pub const TYPE_INT: u16 = 21;
    pub const TYPE_FLOAT: u16 = 22;
    pub const TYPE_VECTOR: u16 = 23;
    pub const TYPE_ARRAY: u16 = 28;
    pub const TYPE_STRUCT: u16 = 30;
    pub const TYPE_POINTER: u16 = 32;
    pub const CONSTANT: u16 = 43;
    pub const FUNCTION: u16 = 54;
    pub const FUNCTION_PARAMETER: u16 = 55;
    pub const FUNCTION_END: u16 = 56;
    pub const DECORATE: u16 = 71;
}

const EXECUTION_MODEL_KERNEL: u32 = 6;
const ADDRESSING_PHYSICAL32: u32 = 1;
const DECORATION_CPACKED: u32 = 10;

mod storage {
    pub const UNIFORM_CONSTANT: u32 = 0;
    pub const WORKGROUP: u32 = 4;
    pub const CROSS_WORKGROUP: u32 = 5;
    pub const FUNCTION: u32 = 7;
    pub const GENERIC: u32 = 8;
    /// SPV_INTEL_usm_storage_classes: global memory the device (host) alone reaches.
    pub const DEVICE_ONLY_INTEL: u32 = 5936;
    pub const HOST_ONLY_INTEL: u32 = 5937;
}

/// A type, as far as parameter kinds need it.
#[derive(Clone, Debug)]
enum Type {
    Scalar(usize),
    Vector { elem: u32, count: u32 },
    Array { elem: u32, length: u32 },
    Struct(Vec<u32>),
    Pointer { storage: u32, pointee: u32 },
    Other,
}

#[derive(Default)]
struct Module {
    pointer_size: usize,
    types: HashMap<u32, Type>,
    /// Integer constants (array lengths).
    constants: HashMap<u32, u64>,
    packed: Vec<u32>,
    /// Kernel entry points: function id → name.
    entry_points: Vec<(u32, String)>,
    /// Function id → its parameters' type ids.
    functions: HashMap<u32, Vec<u32>>,
}

/// Parses `bytes` (a SPIR-V binary of either byte order) into its kernels' parameters.
pub fn kernel_params(bytes: &[u8]) -> Result<Kernels, String> {
    let words = words(bytes)?;
    let m = Module::read(&words)?;
    m.entry_points
        .iter()
        .map(|(id, name)| {
            let params = m
                .functions
                .get(id)
                .ok_or_else(|| format!("entry point {name} has no function %{id}"))?;
            let params = params
                .iter()
                .map(|t| m.param(*t))
                .collect::<Result<_, _>>()?;
            Ok((name.clone(), params))
        })
        .collect()
}

fn words(bytes: &[u8]) -> Result<Vec<u32>, String> {
    if bytes.len() % 4 != 0 || bytes.len() < 20 {
        return Err(format!("{} bytes is not a SPIR-V module", bytes.len()));
    }
    let chunks = bytes.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]);
    let words: Vec<u32> = chunks.clone().map(u32::from_le_bytes).collect();
    if words[0] == MAGIC {
        Ok(words)
    } else if words[0].swap_bytes() == MAGIC {
        Ok(chunks.map(u32::from_be_bytes).collect())
    } else {
        Err(format!("bad SPIR-V magic {:#010x}", words[0]))
    }
}

/// A literal string starting at `words[0]`: NUL-terminated UTF-8 packed little end
/// first.
fn literal_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

impl Module {
    fn read(words: &[u32]) -> Result<Module, String> {
        let mut m = Module {
            pointer_size: 8,
            ..Module::default()
        };
        let mut function: Option<u32> = None;
        let mut at = 5;
        while at < words.len() {
            let count = (words[at] >> 16) as usize;
            let opcode = (words[at] & 0xffff) as u16;
            if count == 0 || at + count > words.len() {
                return Err(format!("truncated instruction at word {at}"));
            }
            let w = &words[at + 1..at + count];
            m.instruction(opcode, w, &mut function)
                .ok_or_else(|| format!("malformed instruction {opcode} at word {at}"))?;
            at += count;
        }
        Ok(m)
    }

    /// Records what `opcode` with operands `w` says; None when operands are missing.
    fn instruction(&mut self, opcode: u16, w: &[u32], function: &mut Option<u32>) -> Option<()> {
        let at = |i: usize| w.get(i).copied();
        match opcode {
            op::MEMORY_MODEL if at(0)? == ADDRESSING_PHYSICAL32 => self.pointer_size = 4,
            op::ENTRY_POINT if at(0)? == EXECUTION_MODEL_KERNEL => {
                self.entry_points
                    .push((at(1)?, literal_string(w.get(2..)?)));
            }
            op::DECORATE if at(1)? == DECORATION_CPACKED => self.packed.push(at(0)?),
            op::TYPE_BOOL => self.define(at(0)?, Type::Scalar(1)),
            op::TYPE_INT | op::TYPE_FLOAT => self.define(at(0)?, Type::Scalar(at(1)? as usize / 8)),
            op::TYPE_VECTOR => self.define(
                at(0)?,
                Type::Vector {
                    elem: at(1)?,
                    count: at(2)?,
                },
            ),
            op::TYPE_ARRAY => self.define(
                at(0)?,
                Type::Array {
                    elem: at(1)?,
                    length: at(2)?,
                },
            ),
            op::TYPE_STRUCT => self.define(at(0)?, Type::Struct(w.get(1..)?.to_vec())),
            op::TYPE_POINTER => self.define(
                at(0)?,
                Type::Pointer {
                    storage: at(1)?,
                    pointee: at(2)?,
                },
            ),
            // The other types (void, matrix, image, sampler, sampled image, runtime
            // array, opaque, function, event, device event, reserve id, queue, pipe,
            // pipe storage) have their result id first and no size.
            19 | 24..=27 | 29 | 31 | 33..=38 | 322 => self.define(at(0)?, Type::Other),
            op::CONSTANT => {
                let low = at(2)? as u64;
                let high = at(3).unwrap_or(0) as u64;
                self.constants.insert(at(1)?, high << 32 | low);
            }
            op::FUNCTION => {
                *function = Some(at(1)?);
                self.functions.insert(at(1)?, Vec::new());
            }
            op::FUNCTION_PARAMETER => {
                let f = (*function)?;
                self.functions.get_mut(&f)?.push(at(0)?);
            }
            op::FUNCTION_END => *function = None,
            _ => {}
        }
        Some(())
    }

    fn define(&mut self, id: u32, t: Type) {
        self.types.insert(id, t);
    }

    fn ty(&self, id: u32) -> Result<&Type, String> {
        self.types
            .get(&id)
            .ok_or_else(|| format!("type %{id} is not defined"))
    }

    /// The kind of a parameter of type `id`.
    fn param(&self, id: u32) -> Result<Param, String> {
        Ok(match *self.ty(id)? {
            Type::Pointer { storage, pointee } => match storage {
                storage::CROSS_WORKGROUP
                | storage::UNIFORM_CONSTANT
                | storage::GENERIC
                | storage::DEVICE_ONLY_INTEL
                | storage::HOST_ONLY_INTEL => Param::Pointer,
                storage::WORKGROUP => Param::Local,
                // A struct (or other aggregate) passed by value.
                storage::FUNCTION => Param::Value(self.layout(pointee)?.0),
                _ => Param::Opaque,
            },
            Type::Other => Param::Opaque,
            _ => Param::Value(self.layout(id)?.0),
        })
    }

    /// (size, alignment) in bytes of a value of type `id`, OpenCL C layout.
    fn layout(&self, id: u32) -> Result<(usize, usize), String> {
        Ok(match self.ty(id)? {
            Type::Scalar(size) => (*size, (*size).max(1)),
            Type::Pointer { .. } => (self.pointer_size, self.pointer_size),
            Type::Vector { elem, count } => {
                let size = self.layout(*elem)?.0 * (*count as usize).next_power_of_two();
                (size, size)
            }
            Type::Array { elem, length } => {
                let (size, align) = self.layout(*elem)?;
                let n = *self
                    .constants
                    .get(length)
                    .ok_or_else(|| format!("array length %{length} is not a constant"))?;
                (size * n as usize, align)
            }
            Type::Struct(members) => {
                let packed = self.packed.contains(&id);
                let (mut size, mut align) = (0usize, 1usize);
                for member in members {
                    let (s, a) = self.layout(*member)?;
                    let a = if packed { 1 } else { a };
                    size = size.next_multiple_of(a) + s;
                    align = align.max(a);
                }
                (size.next_multiple_of(align), align)
            }
            Type::Other => return Err(format!("type %{id} has no size")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-assembled module: one instruction is `[opcode, operands...]`.
    fn module(instructions: &[&[u32]]) -> Vec<u8> {
        let mut words = vec![MAGIC, 0x0001_0000, 0, 100, 0];
        for i in instructions {
            words.push((i.len() as u32) << 16 | i[0]);
            words.extend_from_slice(&i[1..]);
        }
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// "name" as literal string words (NUL-terminated, padded).
    fn name(s: &str) -> Vec<u32> {
        let mut b = s.as_bytes().to_vec();
        b.push(0);
        b.resize(b.len().next_multiple_of(4), 0);
        b.chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    fn entry(id: u32, n: &str) -> Vec<u32> {
        let mut i = vec![op::ENTRY_POINT as u32, EXECUTION_MODEL_KERNEL, id];
        i.extend(name(n));
        i
    }

    /// kernel void k(global float *a, float b, local int *c, constant char *d,
    ///               float3 e, struct { char c; int i; } s /* by value */, char8 arr[3]
    ///               -- as an array type, not OpenCL C but SPIR-V allows it)
    fn sample() -> Vec<u8> {
        let e = entry(100, "k");
        let f = op::FUNCTION as u32;
        let p = op::FUNCTION_PARAMETER as u32;
        module(&[
            &[op::MEMORY_MODEL as u32, 2, 2],
            &e,
            &[op::TYPE_INT as u32, 1, 32, 0],
            &[op::TYPE_INT as u32, 2, 8, 0],
            &[op::TYPE_FLOAT as u32, 3, 32],
            &[op::TYPE_POINTER as u32, 4, storage::CROSS_WORKGROUP, 3],
            &[op::TYPE_POINTER as u32, 5, storage::WORKGROUP, 1],
            &[op::TYPE_POINTER as u32, 6, storage::UNIFORM_CONSTANT, 2],
            &[op::TYPE_VECTOR as u32, 7, 3, 3],
            &[op::TYPE_STRUCT as u32, 8, 2, 1],
            &[op::TYPE_POINTER as u32, 9, storage::FUNCTION, 8],
            &[op::CONSTANT as u32, 1, 10, 3],
            &[op::TYPE_VECTOR as u32, 11, 2, 8],
            &[op::TYPE_ARRAY as u32, 12, 11, 10],
            &[19, 13],                           // OpTypeVoid
            &[33, 14, 13, 4, 3, 5, 6, 7, 9, 12], // OpTypeFunction
            &[f, 13, 100, 0, 14],
            &[p, 4, 101],
            &[p, 3, 102],
            &[p, 5, 103],
            &[p, 6, 104],
            &[p, 7, 105],
            &[p, 9, 106],
            &[p, 12, 107],
            &[op::FUNCTION_END as u32],
        ])
    }

    #[test]
    fn hand_assembled_kernel() {
        let k = kernel_params(&sample()).unwrap();
        use Param::*;
        assert_eq!(
            k["k"],
            [
                Pointer,
                Value(4),
                Local,
                Pointer,
                Value(16),
                Value(8),
                Value(24)
            ]
        );
    }

    #[test]
    fn big_endian_and_packed_struct() {
        let mut bytes = sample();
        // CPacked on the struct: char + int without padding.
        let mut extra = module(&[&[op::DECORATE as u32, 8, DECORATION_CPACKED]]);
        bytes.splice(20..20, extra.drain(20..));
        let swapped: Vec<u8> = bytes
            .chunks(4)
            .flat_map(|c| [c[3], c[2], c[1], c[0]])
            .collect();
        let k = kernel_params(&swapped).unwrap();
        assert_eq!(k["k"][5], Param::Value(5));
    }

    #[test]
    fn non_kernel_entry_points_are_skipped() {
        let mut e = entry(100, "k");
        e[1] = 0; // Vertex
        let k = kernel_params(&module(&[&e])).unwrap();
        assert!(k.is_empty());
    }

    #[test]
    fn malformed_modules_are_errors() {
        assert!(kernel_params(&[0; 19]).is_err());
        assert!(kernel_params(&[1; 20]).is_err());
        // An instruction claiming more words than there are.
        let mut bytes = module(&[&[op::TYPE_INT as u32, 1, 32, 0]]);
        bytes.truncate(bytes.len() - 4);
        assert!(kernel_params(&bytes).is_err());
        // A parameter of an undefined type.
        let e = entry(100, "k");
        let bytes = module(&[
            &e,
            &[op::FUNCTION as u32, 13, 100, 0, 14],
            &[op::FUNCTION_PARAMETER as u32, 77, 101],
            &[op::FUNCTION_END as u32],
        ]);
        assert!(kernel_params(&bytes).unwrap_err().contains("%77"));
    }

    /// The kernels of the C smoke test (tests-c/ze_driver/kernels.cl), compiled the way
    /// its tests.cmake does, with clang-15 and llvm-spirv-15 when they are installed.
    #[test]
    fn kernels_cl() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        let dir = std::env::temp_dir().join(format!("ze-ocl-spirv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (bc, spv) = (dir.join("k.bc"), dir.join("k.spv"));
        let run = |cmd: &str, args: &[&std::ffi::OsStr]| {
            std::process::Command::new(cmd)
                .args(args)
                .status()
                .is_ok_and(|s| s.success())
        };
        let cl = format!("{root}/tests-c/ze_driver/kernels.cl");
        let built = run(
            "clang-15",
            &["-c", "-target", "spir64", "-O2", "-emit-llvm", "-o"]
                .map(std::ffi::OsStr::new)
                .into_iter()
                .chain([bc.as_os_str(), cl.as_ref()])
                .collect::<Vec<_>>(),
        ) && run(
            "llvm-spirv-15",
            &[bc.as_os_str(), "-o".as_ref(), spv.as_os_str()],
        );
        let bytes = std::fs::read(&spv);
        std::fs::remove_dir_all(&dir).unwrap();
        if !built {
            eprintln!("SKIP: clang-15 / llvm-spirv-15 could not build {cl}");
            return;
        }
        let k = kernel_params(&bytes.unwrap()).unwrap();
        use Param::*;
        assert_eq!(k.len(), 3);
        assert_eq!(k["scale_add"], [Pointer, Pointer, Value(4), Local]);
        assert_eq!(k["iota"], [Pointer]);
        assert_eq!(k["copy_or_fill"], [Pointer, Pointer, Value(4)]);
    }
}
