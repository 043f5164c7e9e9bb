// SPDX-License-Identifier: GPL-2.0-or-later
// markers.rs - whyslow region markers from Rust: a small FFI binding to libwhyslow and an RAII guard.

//! include/whyslow.h's handle form is macros over four C symbols: a flag `ws_markers_active` that the
//! library sets while whyslow measures the process, `ws_region_register` to turn a name into a handle
//! once, and `ws_region_begin_id` / `ws_region_end_id`. Rust cannot use the macros, so it binds the
//! symbols and does what the macros do: test the flag, and only then call the library.
//!
//! ```ignore
//! static EVAL: Region = Region::new(b"eval\0");
//! markers::init();                  // once, in main, before any thread: registers the handles
//! let _region = EVAL.enter();       // begin; the end comes when _region goes out of scope
//! ```
//!
//! Built without the `markers` feature, or without WHYSLOW_LIB_DIR (see build.rs), the same API does
//! nothing and references no C symbol.

use std::marker::PhantomData;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicI32, Ordering};

#[cfg(whyslow_markers)]
mod ffi {
    use std::os::raw::{c_char, c_int};

    extern "C" {
        /// Non-zero while whyslow measures this process; written by the library only (before main,
        /// and back to 0 at exit), hence `mut`.
        pub static mut ws_markers_active: c_int;
        pub fn ws_region_register(name: *const c_char) -> c_int;
        pub fn ws_region_begin_id(id: c_int);
        pub fn ws_region_end_id(id: c_int);
    }
}

/// One predictable branch on a process-wide flag, like the C macros' `__builtin_expect(ws_markers_active, 0)`.
#[inline(always)]
fn active() -> bool {
    #[cfg(whyslow_markers)]
    {
        // SAFETY: a plain read of an int the library writes before main and at exit only.
        unsafe { std::ptr::addr_of!(ffi::ws_markers_active).read() != 0 }
    }
    #[cfg(not(whyslow_markers))]
    {
        false
    }
}

// The calls are cold and out of line, so that the hot path around a marker is the test and a jump.
#[cold]
#[inline(never)]
fn begin_id(id: c_int) {
    // SAFETY: the library accepts any handle, 0 and unknown ones included (it ignores them).
    #[cfg(whyslow_markers)]
    unsafe {
        ffi::ws_region_begin_id(id)
    }
    #[cfg(not(whyslow_markers))]
    let _ = id;
}

#[cold]
#[inline(never)]
fn end_id(id: c_int) {
    // SAFETY: as begin_id.
    #[cfg(whyslow_markers)]
    unsafe {
        ffi::ws_region_end_id(id)
    }
    #[cfg(not(whyslow_markers))]
    let _ = id;
}

/// A named region and its handle (0 until registered: a handle that does nothing).
pub struct Region {
    /// NUL-terminated, as the C API wants it.
    name: &'static [u8],
    id: AtomicI32,
}

impl Region {
    pub const fn new(name: &'static [u8]) -> Region {
        Region { name, id: AtomicI32::new(0) }
    }

    /// ws_region_register, once: WS_REGION_INIT. Idempotent and thread-safe in the library.
    pub fn register(&self) {
        assert!(self.name.len() > 1 && self.name.ends_with(b"\0"), "region names end in NUL");
        if active() && self.id.load(Ordering::Relaxed) == 0 {
            #[cfg(whyslow_markers)]
            // SAFETY: a NUL-terminated string, read during the call only.
            self.id.store(unsafe { ffi::ws_region_register(self.name.as_ptr().cast()) }, Ordering::Relaxed);
        }
    }

    /// Begin the region in this thread; it ends when the guard is dropped (WS_REGION_BEGIN_H / _END_H).
    #[inline(always)]
    pub fn enter(&self) -> Guard {
        let id = self.id.load(Ordering::Relaxed);
        if active() {
            begin_id(id);
        }
        Guard { id, _not_send: PhantomData }
    }
}

/// An open region. Begin and end must happen in the same thread, so the guard cannot be sent to another.
pub struct Guard {
    id: c_int,
    _not_send: PhantomData<*const ()>,
}

impl Drop for Guard {
    #[inline(always)]
    fn drop(&mut self) {
        if active() {
            end_id(self.id);
        }
    }
}

pub static SYNTHESIZE: Region = Region::new(b"synthesize\0");
pub static ENFORCE: Region = Region::new(b"enforce\0");
pub static EVAL: Region = Region::new(b"eval\0");
pub static ALLOC: Region = Region::new(b"alloc\0");

/// Register the four regions; once, from main, before the partitions' threads start.
pub fn init() {
    for r in [&SYNTHESIZE, &ENFORCE, &EVAL, &ALLOC] {
        r.register();
    }
}

/// Whether this build calls libwhyslow at all (for --sizes and the README's claims).
pub const LINKED: bool = cfg!(whyslow_markers);
