// SPDX-License-Identifier: GPL-2.0-or-later
// circuit.rs - the seeded circuit: gadgets drawn in the C model's proportions, written as bellpepper gadgets.

//! Every choice comes from one xoshiro256** stream in the same order as the C model's gen.h and
//! lc-impl.h, so that the same seed draws the same circuit in both languages (and in every variant).
//! The order of calls that consume random numbers is part of the contract: a change here that reorders
//! them changes the digest. Building LCs draws nothing, so builders may be placed as Rust code has them.

use crate::cs::ProvingAssignment;
use crate::fr::Fr;
use crate::lc::{Index, LinearCombination, Variable};
use crate::markers;
use crate::rng::Rng;

/// Per-draw weights (per 100000 draws), solved in the C model (gen.h) so that constraints come out as
/// examples/r1cs-synth/WORKLOAD.md's shares: boolean ~25%, xor ~53%, and-like ~20%, Poseidon ~1%, packing 0.2%, MultiEq 0.1%.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Gadget {
    Boolean,
    Xor,
    AndLike,
    Poseidon,
    Packing,
    MultiEq,
}
const WEIGHTS: [(Gadget, u32); 5] = [
    (Gadget::Boolean, 1186),
    (Gadget::Xor, 70750),
    (Gadget::AndLike, 26350),
    (Gadget::Poseidon, 1318),
    (Gadget::Packing, 264),
    // MultiEq: the remaining 132
];
const WEIGHT_TOTAL: u64 = 100000;

const PUBLIC_INPUTS: usize = 16; // ONE and 15 public inputs
const PRELOAD: usize = 8192; // witness bits allocated before the first constraint
const RECENT: usize = 4096; // ~90% of aux references fall in the last 4K variables
const RECENT_PERCENT: u64 = 90;

const POSEIDON_WIDTH: usize = 12;
const POSEIDON_ROUND_CONSTANTS: usize = 64;
const POSEIDON_MIN_STATE: usize = 9; // 9-12 aux terms plus the ONE term
const POSEIDON_MAX_STATE: usize = 12;
const PACKING_BITS: usize = 255;
const MULTIEQ_MAX_OPERANDS: usize = 5;
const FR_CAPACITY_BITS: usize = 254; // Fr::CAPACITY: MultiEq accumulates below it

/// One operand of UInt32::addmany: 32 consecutive bit variables from `start`, or a constant word.
#[derive(Clone, Copy, Default)]
struct Operand {
    constant: Option<u32>,
    start: usize,
}

/// The circuit of one partition: its random stream and the constants it draws at the start.
pub struct Circuit {
    rng: Rng,
    mds: Vec<Fr>,
    round_constants: Vec<Fr>,
    constraints: usize,
}

/// A constant below 2^255 < 2r, reduced by one conditional subtraction of r (fr_sub(x, r) adds r back
/// when x < r). Four draws in order, low limb first.
fn random_fr(rng: &mut Rng) -> Fr {
    let mut x = [0u64; 4];
    for l in x.iter_mut() {
        *l = rng.next_u64();
    }
    x[3] >>= 1;
    crate::fr::fr_sub(&Fr(x), &Fr::MODULUS)
}

fn aux_index(v: Variable) -> usize {
    match v.0 {
        Index::Aux(i) => i,
        Index::Input(_) => unreachable!("an aux variable"),
    }
}

fn aux(i: usize) -> Variable {
    Variable(Index::Aux(i))
}

/// 2^k in Montgomery form, by doubling as the gadgets do.
fn pow2(k: usize) -> Fr {
    let mut x = Fr::ONE;
    for _ in 0..k {
        x = x.double();
    }
    x
}

impl Circuit {
    /// A circuit of about `constraints` constraints (a gadget may overshoot by its size) drawn from `seed`.
    pub fn new(seed: u64, constraints: usize) -> Circuit {
        let mut rng = Rng::new(seed);
        let mds = (0..POSEIDON_WIDTH * POSEIDON_WIDTH).map(|_| random_fr(&mut rng)).collect();
        let round_constants = (0..POSEIDON_ROUND_CONSTANTS).map(|_| random_fr(&mut rng)).collect();
        Circuit { rng, mds, round_constants, constraints }
    }

    /// Circuit::synthesize: the inputs, the preloaded witness, gadgets until the count is reached, then
    /// one `input_i * 0 = 0` per input, as bellperson's synthesize_circuits_batch adds.
    #[inline(never)]
    pub fn synthesize(mut self, cs: &mut ProvingAssignment) {
        let _region = markers::SYNTHESIZE.enter();
        self.begin(cs);
        while cs.a.len() + cs.input_assignment.len() < self.constraints {
            match self.draw() {
                Gadget::Boolean => self.boolean(cs),
                Gadget::Xor => self.xor(cs),
                Gadget::AndLike => self.and_like(cs),
                Gadget::Poseidon => self.poseidon(cs),
                Gadget::Packing => self.packing(cs),
                Gadget::MultiEq => self.multieq(cs),
            }
        }
        for i in 0..cs.input_assignment.len() {
            cs.enforce(|lc| lc + Variable(Index::Input(i)), |lc| lc, |lc| lc);
        }
    }

    fn draw(&mut self) -> Gadget {
        let mut x = self.rng.below(WEIGHT_TOTAL) as u32;
        for (g, w) in WEIGHTS {
            if x < w {
                return g;
            }
            x -= w;
        }
        Gadget::MultiEq
    }

    /// ONE and the public inputs, then the preloaded witness bits (private inputs, constrained later).
    fn begin(&mut self, cs: &mut ProvingAssignment) {
        cs.alloc_input(Fr::ONE);
        for _ in 1..PUBLIC_INPUTS {
            cs.alloc_input(Fr::from_u64(self.rng.next_u64()));
        }
        for _ in 0..PRELOAD {
            let bit = self.rng.below(2) != 0;
            alloc_bit(cs, bit);
        }
    }

    /// An aux variable: mostly among the last RECENT allocated, else anywhere (SHA-256's schedule, constants).
    fn pick_aux(&mut self, cs: &ProvingAssignment) -> Variable {
        let n = cs.aux_assignment.len();
        let recent = n.min(RECENT);
        let v = if self.rng.below(100) < RECENT_PERCENT {
            n - 1 - self.rng.below(recent as u64) as usize
        } else {
            self.rng.below(n as u64) as usize
        };
        aux(v)
    }

    /// The first of `span` consecutive aux variables among the recent ones.
    fn pick_window(&mut self, cs: &ProvingAssignment, span: usize) -> usize {
        let room = cs.aux_assignment.len() - span;
        room - self.rng.below(room.min(RECENT) as u64 + 1) as usize
    }

    /// AllocatedBit::alloc: a fresh bit and its boolean constraint.
    fn boolean(&mut self, cs: &mut ProvingAssignment) {
        let bit = self.rng.below(2) != 0;
        let v = alloc_bit(cs, bit);
        enforce_boolean(cs, v);
    }

    /// AllocatedBit::xor: (a + a) * b = a + b - c, with a and b in either order.
    fn xor(&mut self, cs: &mut ProvingAssignment) {
        let x = self.pick_aux(cs);
        let y = self.pick_aux(cs);
        let r = alloc_bit(cs, bit(cs, x) ^ bit(cs, y));
        cs.enforce(|lc| lc + x + x, |lc| lc + y, |lc| lc + x + y - r);
    }

    /// and, and_not, nor, SHA-256's ch, or: 0-1 input and 1-2 aux terms per LC.
    fn and_like(&mut self, cs: &mut ProvingAssignment) {
        let x = self.pick_aux(cs);
        let y = self.pick_aux(cs);
        let (bx, by) = (bit(cs, x), bit(cs, y));
        let one = ProvingAssignment::one();
        match self.rng.below(5) {
            0 => {
                // and: a * b = r
                let r = alloc_bit(cs, bx & by);
                cs.enforce(|lc| lc + x, |lc| lc + y, |lc| lc + r);
            }
            1 => {
                // and_not: a * (1 - b) = r
                let r = alloc_bit(cs, bx & !by);
                cs.enforce(|lc| lc + x, |lc| lc + one - y, |lc| lc + r);
            }
            2 => {
                // nor: (1 - a) * (1 - b) = r
                let r = alloc_bit(cs, !bx & !by);
                cs.enforce(|lc| lc + one - x, |lc| lc + one - y, |lc| lc + r);
            }
            3 => {
                // ch: (b - c) * a = r - c
                let z = self.pick_aux(cs);
                let r = alloc_bit(cs, if bx { by } else { bit(cs, z) });
                cs.enforce(|lc| lc + y - z, |lc| lc + x, |lc| lc + r - z);
            }
            _ => {
                // or: (1 - a) * (1 - b) = 1 - r
                let r = alloc_bit(cs, bx | by);
                cs.enforce(|lc| lc + one - x, |lc| lc + one - y, |lc| lc + one - r);
            }
        }
    }

    /// A Poseidon S-box's first square: x * x = x2, x a mix of the state: ONE and 9-12 aux terms with
    /// random MDS-like coefficients.
    fn poseidon(&mut self, cs: &mut ProvingAssignment) {
        let k = POSEIDON_MIN_STATE + self.rng.below((POSEIDON_MAX_STATE - POSEIDON_MIN_STATE + 1) as u64) as usize;
        let row = self.rng.below(POSEIDON_WIDTH as u64) as usize;
        let mut idx = self.pick_window(cs, 3 * POSEIDON_MAX_STATE + 1);
        let rc = self.round_constants[self.rng.below(POSEIDON_ROUND_CONSTANTS as u64) as usize];
        let mut terms = [(Fr::ZERO, aux(0)); POSEIDON_MAX_STATE];
        for (j, t) in terms.iter_mut().take(k).enumerate() {
            idx += 1 + self.rng.below(3) as usize;
            *t = (self.mds[row * POSEIDON_WIDTH + j], aux(idx));
        }
        let x2 = cs.aux_assignment[aux_index(terms[0].1)].square();
        let r = cs.alloc(x2);

        // The same LC in A and B: a closure that captures only references is Copy, so it serves twice.
        let terms = &terms[..k];
        let x = |lc: LinearCombination| {
            let mut lc = lc + (rc, ProvingAssignment::one());
            for &t in terms {
                lc = lc + t;
            }
            lc
        };
        cs.enforce(x, x, |lc| lc + r);
    }

    /// Packing 255 bits into a number (pack_bits): 0 * 0 = sum(2^i bit_i) - num, the LC built outside
    /// enforce and moved into its C closure.
    fn packing(&mut self, cs: &mut ProvingAssignment) {
        let start = self.pick_window(cs, PACKING_BITS);
        let mut lc = LinearCombination::zero();
        let mut coeff = Fr::ONE;
        let mut value = Fr::ZERO;
        for i in 0..PACKING_BITS {
            if bit(cs, aux(start + i)) {
                value += coeff;
            }
            lc = lc + (coeff, aux(start + i));
            coeff = coeff.double();
        }
        let num = cs.alloc(value);
        lc = lc - num;
        cs.enforce(|lc| lc, |lc| lc, |_| lc);
    }

    /// The operands of one UInt32::addmany: 3-5 words. One is the previous addition's result when there
    /// is one; half the time one is an older word (SHA-256's h, a few rounds back), half the time one is
    /// a constant (K_t); the rest are recent. Shuffled, so some words arrive below earlier ones.
    fn addmany_operands(
        &mut self,
        cs: &ProvingAssignment,
        prev_result: Option<usize>,
        ops: &mut [Operand; MULTIEQ_MAX_OPERANDS],
    ) -> usize {
        let n = cs.aux_assignment.len();
        let k = 3 + self.rng.below(3) as usize;
        for op in ops.iter_mut().take(k) {
            *op = Operand { constant: None, start: n - 32 - self.rng.below(513) as usize };
        }
        if let Some(p) = prev_result {
            ops[0].start = p;
        }
        if self.rng.below(2) != 0 {
            ops[1].start = n - 32 - 1024 - self.rng.below(3072) as usize;
        }
        if self.rng.below(2) != 0 {
            ops[2].constant = Some(self.rng.next_u64() as u32);
        }
        for i in (1..k).rev() {
            // Fisher-Yates
            let j = self.rng.below(i as u64 + 1) as usize;
            ops.swap(i, j);
        }
        k
    }

    /// SHA-256's additions through MultiEq: each addmany builds its operands' bits into an LC (powers of
    /// two; constant bits add to ONE), allocates its result bits (a boolean constraint each) and hands
    /// both sides to enforce_equal, which folds them into the running lhs/rhs scaled by 2^bits_used:
    /// `self.lhs = self.lhs.clone() + (coeff, lhs)`. When the next addition would reach Fr's capacity,
    /// accumulate() enforces lhs * ONE = rhs: about 1000 terms in A and 240 in C.
    fn multieq(&mut self, cs: &mut ProvingAssignment) {
        let mut lhs = LinearCombination::zero();
        let mut rhs = LinearCombination::zero();
        let mut bits_used = 0;
        let mut prev_result = None;
        let mut ops = [Operand::default(); MULTIEQ_MAX_OPERANDS];

        loop {
            // The operands are drawn before the capacity check, as in the C model: its draws count.
            let k = self.addmany_operands(cs, prev_result, &mut ops);
            let num_bits = 32 + if k > 4 { 3 } else { 2 }; // ceil(log2(k * (2^32 - 1)))
            if bits_used + num_bits >= FR_CAPACITY_BITS {
                break;
            }

            let mut lc = LinearCombination::zero();
            for op in &ops[..k] {
                let mut coeff = Fr::ONE;
                for b in 0..32 {
                    match op.constant {
                        None => lc = lc + (coeff, aux(op.start + b)),
                        Some(w) if (w >> b) & 1 != 0 => lc = lc + (coeff, ProvingAssignment::one()),
                        Some(_) => {}
                    }
                    coeff = coeff.double();
                }
            }

            prev_result = Some(cs.aux_assignment.len());
            let mut result_lc = LinearCombination::zero();
            let mut coeff = Fr::ONE;
            for _ in 0..num_bits {
                let bit = self.rng.below(2) != 0;
                let b = alloc_bit(cs, bit);
                enforce_boolean(cs, b);
                result_lc = result_lc + (coeff, b);
                coeff = coeff.double();
            }

            // enforce_equal(num_bits, &lc, &result_lc)
            let scale = pow2(bits_used);
            lhs = lhs.clone() + (scale, &lc);
            rhs = rhs.clone() + (scale, &result_lc);
            bits_used += num_bits;
        }

        // accumulate(): enforce on clones; lhs and rhs are then dropped
        let lhs_moved = lhs.clone();
        let rhs_moved = rhs.clone();
        cs.enforce(|_| lhs_moved, |lc| lc + ProvingAssignment::one(), |_| rhs_moved);
    }
}

fn alloc_bit(cs: &mut ProvingAssignment, bit: bool) -> Variable {
    cs.alloc(if bit { Fr::ONE } else { Fr::ZERO })
}

/// The witness bit of an aux variable (anything but ONE counts as 0: only bit-valued ones matter).
fn bit(cs: &ProvingAssignment, v: Variable) -> bool {
    cs.aux_assignment[aux_index(v)] == Fr::ONE
}

/// AllocatedBit's constraint: (1 - v) * v = 0.
fn enforce_boolean(cs: &mut ProvingAssignment, v: Variable) {
    cs.enforce(|lc| lc + ProvingAssignment::one() - v, |lc| lc + v, |lc| lc);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_circuit_is_reproducible() {
        let run = |seed| {
            let mut cs = ProvingAssignment::new();
            Circuit::new(seed, 3000).synthesize(&mut cs);
            (cs.a.len(), cs.digest())
        };
        let (n, d) = run(1);
        assert!(n >= 3000);
        assert_eq!(run(1), (n, d));
        assert_ne!(run(2).1, d);
    }
}
