// SPDX-License-Identifier: GPL-2.0-or-later
// lib.rs - r1cs: Groth16 circuit synthesis as bellperson does it, one LC storage variant per build.

//! The Rust twin of examples/r1cs-synth: the same seeded circuit, the same field arithmetic and the
//! same digest, written the way bellperson and bellpepper write it (LCs moved by value through `+`,
//! closures given to `enforce`, `Indexer::insert_or_update`). The cargo feature picks the storage of
//! an Indexer's terms: vec, vec-pool, smallvec1, smallvec2 or smallvec4.

#[cfg(not(any(
    feature = "vec",
    feature = "vec-pool",
    feature = "smallvec1",
    feature = "smallvec2",
    feature = "smallvec4"
)))]
compile_error!("choose one storage variant: --features vec, vec-pool, smallvec1, smallvec2 or smallvec4");

// At most one: each build is one variant, as in the original's two compilations of one crate.
#[cfg(any(
    all(feature = "vec", any(feature = "vec-pool", feature = "smallvec1", feature = "smallvec2", feature = "smallvec4")),
    all(feature = "vec-pool", any(feature = "smallvec1", feature = "smallvec2", feature = "smallvec4")),
    all(feature = "smallvec1", any(feature = "smallvec2", feature = "smallvec4")),
    all(feature = "smallvec2", feature = "smallvec4")
))]
compile_error!("the storage variants are exclusive: build one of vec, vec-pool, smallvec1, smallvec2, smallvec4");

pub mod circuit;
pub mod cs;
pub mod fr;
pub mod lc;
pub mod markers;
pub mod rng;

use std::mem::size_of;

/// sizeof(LinearCombination) and sizeof(Indexer) of this build, as the C program's --sizes prints them.
pub fn sizes() -> (usize, usize) {
    (size_of::<lc::LinearCombination>(), size_of::<lc::Indexer>())
}

/// Synthesize one partition from its seed; returns the filled assignment.
pub fn run_partition(seed: u64, constraints: usize) -> cs::ProvingAssignment {
    let mut cs = cs::ProvingAssignment::new();
    circuit::Circuit::new(seed, constraints).synthesize(&mut cs);
    cs
}

/// The seed of partition `p`: the C program's derivation, so that --threads T draws the same T circuits.
pub fn partition_seed(seed: u64, p: u64) -> u64 {
    let mut x = seed.wrapping_add(p.wrapping_mul(0xd1b54a32d192ed03));
    rng::splitmix64(&mut x)
}

/// The digest over all partitions, in order: the line both programs print.
pub fn combine_digests(parts: &[cs::ProvingAssignment]) -> u64 {
    parts.iter().fold(0, |digest, p| {
        let mut x = digest ^ p.digest();
        rng::splitmix64(&mut x)
    })
}
