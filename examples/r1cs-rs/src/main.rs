// SPDX-License-Identifier: GPL-2.0-or-later
// main.rs - r1cs-rs: the C program r1cs-synth's command line over the Rust synthesis, one variant per build.

//! ```text
//! $ r1cs-rs-smallvec4 --constraints 200k --threads 2
//! digest d463368ec9c9ab25
//! r1cs-rs: lc=smallvec4 partitions=2 constraints=400092 aux=416046 seed=1 <time> s, <n> ns/constraint/thread
//! ```
//!
//! The digest (stdout) is the C program's for the same --constraints, --threads and --seed, whatever
//! the variant. Options, messages and exit statuses follow examples/r1cs-synth/main.c.

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::process::exit;
use std::time::Instant;

use r1cs::{combine_digests, lc::VARIANT, markers, partition_seed, run_partition, sizes};

const DEFAULT_CONSTRAINTS: u64 = 500000;
const MAX_CONSTRAINTS: u64 = 1000000000;
const MAX_THREADS: u64 = 256;
/// The C program's status for a usage error (it is git's, for a bad command line).
const EXIT_USAGE: i32 = 129;

const USAGE: &str = "usage: r1cs-rs [--lc NAME] [--constraints N] [--threads T] [--seed S] [--sizes]

Synthesize a Groth16 circuit the way bellperson does (linear combinations moved by value,
insert_or_update, enforce with density trackers), storing LC terms as this build's cargo feature
says, and print a digest of the a/b/c vectors: the same as r1cs-synth's given the same N, T and S.

    --lc NAME          this build's variant only (vec, vec-pool, smallvec1, smallvec2 or smallvec4)
    --constraints N    constraints per partition, k and M suffixes allowed (default 500k)
    --threads T        partitions synthesized in parallel, one thread each (default 1)
    --seed S           seed of the circuit generator (default 1)
    --sizes            print the size of this build's LinearCombination, and exit
    -h, --help         show this help
";

const VARIANTS: [&str; 5] = ["vec", "vec-pool", "smallvec1", "smallvec2", "smallvec4"];

/// One line on stderr and the usage status, as the C program's die_usage.
fn die_usage(msg: String) -> ! {
    eprintln!("r1cs-rs: {}", msg);
    exit(EXIT_USAGE);
}

fn show(s: &[u8]) -> String {
    String::from_utf8_lossy(s).into_owned()
}

/// strtoull(s, &end, 0) as glibc does it: leading white space, a sign, 0x for hex, 0 for octal. Returns
/// the value, where parsing stopped (0 when no digits) and whether it overflowed (ERANGE).
fn strtoull(s: &[u8]) -> (u64, usize, bool) {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r') {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let digit = |c: u8| (c as char).to_digit(36).map(u64::from).unwrap_or(99);
    let (base, start) = if s.len() > i + 2 && s[i] == b'0' && (s[i + 1] | 0x20) == b'x' && digit(s[i + 2]) < 16 {
        (16, i + 2)
    } else if i < s.len() && s[i] == b'0' {
        (8, i)
    } else {
        (10, i)
    };
    let (mut v, mut overflow, mut j) = (0u64, false, start);
    while j < s.len() && digit(s[j]) < base {
        match v.checked_mul(base).and_then(|x| x.checked_add(digit(s[j]))) {
            Some(x) => v = x,
            None => overflow = true,
        }
        j += 1;
    }
    if j == start {
        return (0, 0, false);
    }
    if overflow {
        return (u64::MAX, j, true);
    }
    (if neg { v.wrapping_neg() } else { v }, j, false)
}

/// A decimal (or 0x hex) number with an optional k (10^3) or M (10^6) suffix, within [min, max].
fn parse_count(opt: &str, s: &[u8], min: u64, max: u64, suffixes: bool) -> u64 {
    let bad = || -> ! {
        die_usage(format!(
            "{} '{}' is not a number; use e.g. {} {}",
            opt,
            show(s),
            opt,
            if suffixes { "200k" } else { "2" }
        ))
    };
    if s.is_empty() || s[0] == b'-' {
        bad();
    }
    let (mut v, mut end, erange) = strtoull(s);
    if erange {
        bad();
    }
    if suffixes && end < s.len() && matches!(s[end], b'k' | b'K' | b'M') {
        let mul = if s[end] == b'M' { 1000000 } else { 1000 };
        v = v.checked_mul(mul).unwrap_or_else(|| bad());
        end += 1;
    }
    if end != s.len() {
        bad();
    }
    if v < min || v > max {
        die_usage(format!("{} {} is out of range; use {} to {}", opt, show(s), min, max));
    }
    v
}

fn print_sizes() {
    let (lc, indexer) = sizes();
    println!("{:<10} {:>8} {:>8}  {}", "lc", "sizeof", "indexer", "storage");
    println!("{:<10} {:>8} {:>8}  {}", VARIANT.0, lc, indexer, VARIANT.1);
}

fn main() {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let mut lc_name: Option<Vec<u8>> = None;
    let (mut constraints, mut threads, mut seed) = (DEFAULT_CONSTRAINTS, 1u64, 1u64);

    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_bytes();
        if arg == b"-h" || arg == b"--help" {
            print!("{}", USAGE);
            return;
        }
        if arg == b"--sizes" {
            print_sizes();
            return;
        }
        // The C program copies the option into a 32-byte buffer: longer arguments are unknown there.
        if !arg.starts_with(b"--") || arg.len() >= 32 {
            die_usage(format!("unknown argument '{}'; see r1cs-rs -h", show(arg)));
        }
        let (opt, mut val) = match arg.iter().position(|&c| c == b'=') {
            Some(eq) => (&arg[..eq], Some(&arg[eq + 1..])),
            None => (arg, None),
        };
        let opt = show(opt);
        if !["--lc", "--constraints", "--threads", "--seed"].contains(&opt.as_str()) {
            die_usage(format!("unknown option '{}'; see r1cs-rs -h", opt));
        }
        if val.is_none() {
            if i + 1 >= args.len() {
                die_usage(format!("{} needs a value; see r1cs-rs -h", opt));
            }
            i += 1;
            val = Some(args[i].as_bytes());
        }
        let val = val.unwrap();
        match opt.as_str() {
            "--lc" => lc_name = Some(val.to_vec()),
            "--constraints" => constraints = parse_count(&opt, val, 1, MAX_CONSTRAINTS, true),
            "--threads" => threads = parse_count(&opt, val, 1, MAX_THREADS, false),
            _ => seed = parse_count(&opt, val, 0, u64::MAX, false),
        }
        i += 1;
    }

    // Each build runs its own variant only: the others are other compilations of the crate.
    if let Some(name) = lc_name {
        let name = show(&name);
        if name != VARIANT.0 {
            if VARIANTS.contains(&name.as_str()) {
                die_usage(format!("--lc {} is another build (cargo feature {}); this one is {}", name, name, VARIANT.0));
            }
            die_usage(format!("unknown --lc '{}'; use vec, vec-pool, smallvec1, smallvec2 or smallvec4", name));
        }
    }

    markers::init();

    let t0 = Instant::now();
    let parts: Vec<_> = if threads == 1 {
        vec![run_partition(partition_seed(seed, 0), constraints as usize)]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|p| {
                    std::thread::Builder::new()
                        .name(format!("partition-{}", p))
                        .spawn_scoped(s, move || run_partition(partition_seed(seed, p), constraints as usize))
                        .unwrap_or_else(|e| {
                            eprintln!("r1cs-rs: cannot start thread {}: {}", p, e);
                            exit(1)
                        })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| exit(101))).collect()
        })
    };
    let elapsed = t0.elapsed().as_secs_f64();

    let digest = combine_digests(&parts);
    let total_constraints: usize = parts.iter().map(|p| p.a.len()).sum();
    let total_aux: usize = parts.iter().map(|p| p.aux_assignment.len()).sum();
    let mut out = std::io::stdout().lock();
    let written = writeln!(out, "digest {:016x}", digest).and_then(|_| out.flush());
    eprintln!(
        "r1cs-rs: lc={} partitions={} constraints={} aux={} seed={} {:.3} s, {:.0} ns/constraint/thread",
        VARIANT.0,
        threads,
        total_constraints,
        total_aux,
        seed,
        elapsed,
        elapsed * 1e9 * threads as f64 / total_constraints as f64
    );
    drop(parts);
    if written.is_err() {
        exit(1);
    }
}
