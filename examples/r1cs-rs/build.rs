// SPDX-License-Identifier: GPL-2.0-or-later
// build.rs - links libwhyslow for the region markers when the `markers` feature asks and a library is given.

use std::env;
use std::path::PathBuf;

// The markers are optional twice over: the `markers` feature asks for them, and WHYSLOW_LIB_DIR says where
// libwhyslow.a lies (meson builds it as build/marker/libwhyslow.a). Asked for but not located, the crate
// still builds, with markers that do nothing, and says so: the workload must never depend on the tool
// that measures it. A directory that is given but lacks the library is a mistake, and fails the build.
fn main() {
    println!("cargo:rerun-if-env-changed=WHYSLOW_LIB_DIR");
    if env::var_os("CARGO_FEATURE_MARKERS").is_none() {
        return;
    }
    let dir = match env::var_os("WHYSLOW_LIB_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => {
            println!(
                "cargo:warning=feature `markers` without WHYSLOW_LIB_DIR: building without region \
                 markers (set it to the directory of libwhyslow.a, e.g. build/marker)"
            );
            return;
        }
    };
    let lib = dir.join("libwhyslow.a");
    if !lib.is_file() {
        panic!("WHYSLOW_LIB_DIR={}: no libwhyslow.a there; build whyslow first (make)", dir.display());
    }
    // Relink when the library is rebuilt.
    println!("cargo:rerun-if-changed={}", lib.display());
    println!("cargo:rustc-link-search=native={}", dir.display());
    // Static, as the C examples link it: the binaries run without LD_LIBRARY_PATH or an rpath.
    println!("cargo:rustc-link-lib=static=whyslow");
    println!("cargo:rustc-cfg=whyslow_markers");
}
