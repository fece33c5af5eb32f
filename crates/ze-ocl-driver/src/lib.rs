//! `libze_ocl_driver.so`: a Level Zero driver implemented over one OpenCL device.
//!
//! The Level Zero loader (`libze_loader.so.1`, Debian libze1 1.8.12) loads a driver
//! named in `ZE_ENABLE_ALT_DRIVERS` (instead of its default driver list), asks it for
//! its dispatch tables through the exported `zeGet<Table>ProcAddrTable(version,
//! table)` functions of `ze_ddi.h` (the Global one first, whose `pfnInit` is called by
//! zeInit; the others when the loader builds its own tables), and from then on calls
//! the driver through those tables. Nothing else is exported: the entry points below
//! are plain `extern "C"` functions placed in the tables. Slots left NULL are features
//! this driver does not implement (the loader answers
//! ZE_RESULT_ERROR_UNSUPPORTED_FEATURE for them).
//!
//! Under it lies one OpenCL device with `cl_intel_unified_shared_memory` and SPIR-V
//! (Intel's CPU runtime on a machine without an Intel GPU; `ZE_OCL_DEVICE` narrows the
//! choice, see `driver.rs`): USM for memory, in-order queues for command queues and
//! immediate lists, user events and completion callbacks for ze events, programs from
//! IL or binaries for modules.
//!
//! Layout: `cl` (OpenCL loading), `objects` (handles, argument checks), then one file
//! per area: `driver` (driver and device queries), `context` (contexts, memory),
//! `event`, `module` (modules, kernels; `spirv` reads their parameter kinds), `cmdlist`
//! (queues, lists).
#![allow(non_snake_case, clippy::missing_safety_doc, clippy::too_many_arguments)]

// Private: the driver's interface is its exported zeGet*ProcAddrTable functions.
#[macro_use]
mod objects;
mod binary;
mod cl;
mod cmdlist;
mod context;
mod driver;
mod event;
mod module;
mod spirv;

use level_zero_sys::ddi::*;
use level_zero_sys::*;

use cmdlist::*;
use context::*;
use driver::*;
use event::*;
use module::*;

proc_addr_table!(zeGetGlobalProcAddrTable, ze_global_dditable_t, { pfnInit => zeInit });

proc_addr_table!(zeGetDriverProcAddrTable, ze_driver_dditable_t, {
    pfnGet => zeDriverGet,
    pfnGetApiVersion => zeDriverGetApiVersion,
    pfnGetProperties => zeDriverGetProperties,
    pfnGetIpcProperties => zeDriverGetIpcProperties,
    pfnGetExtensionProperties => zeDriverGetExtensionProperties,
    pfnGetExtensionFunctionAddress => zeDriverGetExtensionFunctionAddress,
});

proc_addr_table!(zeGetDeviceProcAddrTable, ze_device_dditable_t, {
    pfnGet => zeDeviceGet,
    pfnGetSubDevices => zeDeviceGetSubDevices,
    pfnGetProperties => zeDeviceGetProperties,
    pfnGetComputeProperties => zeDeviceGetComputeProperties,
    pfnGetModuleProperties => zeDeviceGetModuleProperties,
    pfnGetCommandQueueGroupProperties => zeDeviceGetCommandQueueGroupProperties,
    pfnGetMemoryProperties => zeDeviceGetMemoryProperties,
    pfnGetMemoryAccessProperties => zeDeviceGetMemoryAccessProperties,
    pfnGetCacheProperties => zeDeviceGetCacheProperties,
    pfnGetStatus => zeDeviceGetStatus,
    pfnGetGlobalTimestamps => zeDeviceGetGlobalTimestamps,
});

proc_addr_table!(zeGetContextProcAddrTable, ze_context_dditable_t, {
    pfnCreate => zeContextCreate,
    pfnDestroy => zeContextDestroy,
    pfnGetStatus => zeContextGetStatus,
});

proc_addr_table!(zeGetCommandQueueProcAddrTable, ze_command_queue_dditable_t, {
    pfnCreate => zeCommandQueueCreate,
    pfnDestroy => zeCommandQueueDestroy,
    pfnExecuteCommandLists => zeCommandQueueExecuteCommandLists,
    pfnSynchronize => zeCommandQueueSynchronize,
});

proc_addr_table!(zeGetCommandListProcAddrTable, ze_command_list_dditable_t, {
    pfnCreate => zeCommandListCreate,
    pfnCreateImmediate => zeCommandListCreateImmediate,
    pfnDestroy => zeCommandListDestroy,
    pfnClose => zeCommandListClose,
    pfnReset => zeCommandListReset,
    pfnAppendBarrier => zeCommandListAppendBarrier,
    pfnAppendMemoryCopy => zeCommandListAppendMemoryCopy,
    pfnAppendMemoryFill => zeCommandListAppendMemoryFill,
    pfnAppendSignalEvent => zeCommandListAppendSignalEvent,
    pfnAppendWaitOnEvents => zeCommandListAppendWaitOnEvents,
    pfnAppendEventReset => zeCommandListAppendEventReset,
    pfnAppendLaunchKernel => zeCommandListAppendLaunchKernel,
});

proc_addr_table!(zeGetEventPoolProcAddrTable, ze_event_pool_dditable_t, {
    pfnCreate => zeEventPoolCreate,
    pfnDestroy => zeEventPoolDestroy,
});

proc_addr_table!(zeGetEventProcAddrTable, ze_event_dditable_t, {
    pfnCreate => zeEventCreate,
    pfnDestroy => zeEventDestroy,
    pfnHostSignal => zeEventHostSignal,
    pfnHostSynchronize => zeEventHostSynchronize,
    pfnQueryStatus => zeEventQueryStatus,
    pfnHostReset => zeEventHostReset,
    pfnQueryKernelTimestamp => zeEventQueryKernelTimestamp,
});

proc_addr_table!(zeGetModuleProcAddrTable, ze_module_dditable_t, {
    pfnCreate => zeModuleCreate,
    pfnDestroy => zeModuleDestroy,
    pfnGetNativeBinary => zeModuleGetNativeBinary,
    pfnGetKernelNames => zeModuleGetKernelNames,
    pfnGetProperties => zeModuleGetProperties,
});

proc_addr_table!(zeGetModuleBuildLogProcAddrTable, ze_module_build_log_dditable_t, {
    pfnDestroy => zeModuleBuildLogDestroy,
    pfnGetString => zeModuleBuildLogGetString,
});

proc_addr_table!(zeGetKernelProcAddrTable, ze_kernel_dditable_t, {
    pfnCreate => zeKernelCreate,
    pfnDestroy => zeKernelDestroy,
    pfnSetGroupSize => zeKernelSetGroupSize,
    pfnSuggestGroupSize => zeKernelSuggestGroupSize,
    pfnSetArgumentValue => zeKernelSetArgumentValue,
    pfnSetIndirectAccess => zeKernelSetIndirectAccess,
    pfnGetProperties => zeKernelGetProperties,
    pfnGetName => zeKernelGetName,
});

proc_addr_table!(zeGetMemProcAddrTable, ze_mem_dditable_t, {
    pfnAllocShared => zeMemAllocShared,
    pfnAllocDevice => zeMemAllocDevice,
    pfnAllocHost => zeMemAllocHost,
    pfnFree => zeMemFree,
    pfnGetAllocProperties => zeMemGetAllocProperties,
    pfnGetAddressRange => zeMemGetAddressRange,
});

// Tables of features this driver does not have: all slots NULL.
proc_addr_table!(zeGetFenceProcAddrTable, ze_fence_dditable_t, {});
proc_addr_table!(zeGetImageProcAddrTable, ze_image_dditable_t, {});
proc_addr_table!(zeGetSamplerProcAddrTable, ze_sampler_dditable_t, {});
proc_addr_table!(zeGetPhysicalMemProcAddrTable, ze_physical_mem_dditable_t, {
});
proc_addr_table!(zeGetVirtualMemProcAddrTable, ze_virtual_mem_dditable_t, {});
// Experimental, tools (zet) and sysman (zes) tables: none of these features. The
// loader asks every driver for them and fails zeInit when a zet getter is missing.
proc_addr_table!(zeGetDeviceExpProcAddrTable, ze_device_exp_dditable_t, {});
proc_addr_table!(zeGetImageExpProcAddrTable, ze_image_exp_dditable_t, {});
proc_addr_table!(zeGetEventExpProcAddrTable, ze_event_exp_dditable_t, {});
proc_addr_table!(zeGetKernelExpProcAddrTable, ze_kernel_exp_dditable_t, {});
proc_addr_table!(
    zeGetFabricVertexExpProcAddrTable,
    ze_fabric_vertex_exp_dditable_t,
    {}
);
proc_addr_table!(
    zeGetFabricEdgeExpProcAddrTable,
    ze_fabric_edge_exp_dditable_t,
    {}
);
proc_addr_table!(zesGetDriverProcAddrTable, zes_driver_dditable_t, {});
proc_addr_table!(zesGetDeviceProcAddrTable, zes_device_dditable_t, {});
proc_addr_table!(zesGetSchedulerProcAddrTable, zes_scheduler_dditable_t, {});
proc_addr_table!(
    zesGetPerformanceFactorProcAddrTable,
    zes_performance_factor_dditable_t,
    {}
);
proc_addr_table!(zesGetPowerProcAddrTable, zes_power_dditable_t, {});
proc_addr_table!(zesGetFrequencyProcAddrTable, zes_frequency_dditable_t, {});
proc_addr_table!(zesGetEngineProcAddrTable, zes_engine_dditable_t, {});
proc_addr_table!(zesGetStandbyProcAddrTable, zes_standby_dditable_t, {});
proc_addr_table!(zesGetFirmwareProcAddrTable, zes_firmware_dditable_t, {});
proc_addr_table!(zesGetMemoryProcAddrTable, zes_memory_dditable_t, {});
proc_addr_table!(zesGetFabricPortProcAddrTable, zes_fabric_port_dditable_t, {
});
proc_addr_table!(
    zesGetTemperatureProcAddrTable,
    zes_temperature_dditable_t,
    {}
);
proc_addr_table!(zesGetPsuProcAddrTable, zes_psu_dditable_t, {});
proc_addr_table!(zesGetFanProcAddrTable, zes_fan_dditable_t, {});
proc_addr_table!(zesGetLedProcAddrTable, zes_led_dditable_t, {});
proc_addr_table!(zesGetRasProcAddrTable, zes_ras_dditable_t, {});
proc_addr_table!(
    zesGetDiagnosticsProcAddrTable,
    zes_diagnostics_dditable_t,
    {}
);
proc_addr_table!(zetGetDeviceProcAddrTable, zet_device_dditable_t, {});
proc_addr_table!(zetGetContextProcAddrTable, zet_context_dditable_t, {});
proc_addr_table!(
    zetGetCommandListProcAddrTable,
    zet_command_list_dditable_t,
    {}
);
proc_addr_table!(zetGetModuleProcAddrTable, zet_module_dditable_t, {});
proc_addr_table!(zetGetKernelProcAddrTable, zet_kernel_dditable_t, {});
proc_addr_table!(
    zetGetMetricGroupProcAddrTable,
    zet_metric_group_dditable_t,
    {}
);
proc_addr_table!(
    zetGetMetricGroupExpProcAddrTable,
    zet_metric_group_exp_dditable_t,
    {}
);
proc_addr_table!(zetGetMetricProcAddrTable, zet_metric_dditable_t, {});
proc_addr_table!(
    zetGetMetricStreamerProcAddrTable,
    zet_metric_streamer_dditable_t,
    {}
);
proc_addr_table!(
    zetGetMetricQueryPoolProcAddrTable,
    zet_metric_query_pool_dditable_t,
    {}
);
proc_addr_table!(
    zetGetMetricQueryProcAddrTable,
    zet_metric_query_dditable_t,
    {}
);
proc_addr_table!(zetGetTracerExpProcAddrTable, zet_tracer_exp_dditable_t, {});
proc_addr_table!(zetGetDebugProcAddrTable, zet_debug_dditable_t, {});
