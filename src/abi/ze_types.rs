//! The Level Zero handle types our prototypes name.
//!
//! They stand for the types of `<level_zero/ze_api.h>`: the generated header
//! includes that file instead of declaring them (cbindgen.toml excludes them).

use ::core::ffi::c_void;

/// `ze_driver_handle_t` of `<level_zero/ze_api.h>`.
pub type ze_driver_handle_t = *mut c_void;
/// `ze_device_handle_t` of `<level_zero/ze_api.h>`.
pub type ze_device_handle_t = *mut c_void;
/// `ze_context_handle_t` of `<level_zero/ze_api.h>`.
pub type ze_context_handle_t = *mut c_void;
/// `ze_command_list_handle_t` of `<level_zero/ze_api.h>`.
pub type ze_command_list_handle_t = *mut c_void;
/// `ze_event_handle_t` of `<level_zero/ze_api.h>`.
pub type ze_event_handle_t = *mut c_void;
