//! `libze_ocl_driver.so`: a Level Zero driver implemented over one OpenCL device.
//!
//! The Level Zero loader (`libze_loader.so.1`) loads it when `ZE_ENABLE_ALT_DRIVERS`
//! names it and fills its dispatch tables through the exported
//! `zeGet*ProcAddrTable` functions of `ze_ddi.h`.
#![allow(non_snake_case)]
