// SPDX-License-Identifier: GPL-2.0-or-later
// cs.rs - bellperson's ProvingAssignment: assignments, density trackers, a/b/c, alloc, enforce, digest.

use crate::fr::Fr;
use crate::lc::{Index, LinearCombination, Variable};
use crate::markers;
use crate::rng::splitmix64;

/// ec-gpu-gen's DensityTracker: one bit per variable and a running count of the bits set.
#[derive(Debug, Default)]
pub struct DensityTracker {
    words: Vec<u64>,
    len: usize,
    pub total_density: usize,
}

impl DensityTracker {
    pub fn new() -> DensityTracker {
        DensityTracker::default()
    }

    /// A new variable, not (yet) in the query: `bv.push(false)`.
    #[inline]
    pub fn add_element(&mut self) {
        if self.len % 64 == 0 {
            self.words.push(0);
        }
        self.len += 1;
    }

    /// Mark variable `idx`, counting it the first time. Panics beyond the variables added.
    #[inline]
    pub fn inc(&mut self, idx: usize) {
        assert!(idx < self.len, "density index {} out of {} variables", idx, self.len);
        let bit = 1u64 << (idx & 63);
        let w = &mut self.words[idx >> 6];
        if *w & bit == 0 {
            *w |= bit;
            self.total_density += 1;
        }
    }

    pub fn get(&self, idx: usize) -> bool {
        idx < self.len && self.words[idx >> 6] & (1u64 << (idx & 63)) != 0
    }
}

/// The production variant's LC buffer pool: enforce takes its 3 LCs x 2 indexers = 6 buffers from here
/// and gives them back when it is done with the LCs, so steady-state synthesis calls neither malloc nor
/// free. It lives in the assignment (one per partition, so one per thread, no locking), which Drop cannot
/// reach: enforce hands the LCs back explicitly instead of dropping them.
#[cfg(feature = "vec-pool")]
pub const LC_POOL_MAX: usize = 6;

/// One partition's assignment, filled by synthesis.
pub struct ProvingAssignment {
    pub a_aux_density: DensityTracker,
    pub b_input_density: DensityTracker,
    pub b_aux_density: DensityTracker,
    pub a: Vec<Fr>,
    pub b: Vec<Fr>,
    pub c: Vec<Fr>,
    /// input 0 is ONE
    pub input_assignment: Vec<Fr>,
    pub aux_assignment: Vec<Fr>,
    #[cfg(feature = "vec-pool")]
    pool: Vec<crate::lc::Values>,
}

impl Default for ProvingAssignment {
    fn default() -> Self {
        ProvingAssignment::new()
    }
}

impl ProvingAssignment {
    pub fn new() -> ProvingAssignment {
        ProvingAssignment {
            a_aux_density: DensityTracker::new(),
            b_input_density: DensityTracker::new(),
            b_aux_density: DensityTracker::new(),
            a: Vec::new(),
            b: Vec::new(),
            c: Vec::new(),
            input_assignment: Vec::new(),
            aux_assignment: Vec::new(),
            #[cfg(feature = "vec-pool")]
            pool: Vec::with_capacity(LC_POOL_MAX),
        }
    }

    /// The constant ONE, input 0.
    #[inline]
    pub fn one() -> Variable {
        Variable(Index::Input(0))
    }

    /// ConstraintSystem::alloc: push the value to the aux assignment, grow the aux density trackers.
    /// bellperson's takes the value as a closure, one generic copy per call site; a value gives one
    /// function to name in a profile, as the C model's cs_alloc.
    #[inline(never)]
    pub fn alloc(&mut self, value: Fr) -> Variable {
        let _region = markers::ALLOC.enter();
        self.aux_assignment.push(value);
        self.a_aux_density.add_element();
        self.b_aux_density.add_element();
        Variable(Index::Aux(self.aux_assignment.len() - 1))
    }

    /// alloc_input: push to the input assignment and grow b_input_density (inputs are always in A).
    pub fn alloc_input(&mut self, value: Fr) -> Variable {
        self.input_assignment.push(value);
        self.b_input_density.add_element();
        Variable(Index::Input(self.input_assignment.len() - 1))
    }

    /// The prover's enforce(a, b, c): build the three LCs by calling the closures on zero LCs, evaluate
    /// them (A with a_aux_density, B with b_input_density and b_aux_density, C plain), push the results
    /// to a/b/c, drop the LCs. Generic over the closures, so rustc makes one copy per call site, as in
    /// bellperson; each is out of line and named `enforce`. (bellperson's also takes an annotation
    /// closure, which the ProvingAssignment never calls; it is left out.)
    #[inline(never)]
    pub fn enforce<LA, LB, LC>(&mut self, a: LA, b: LB, c: LC)
    where
        LA: FnOnce(LinearCombination) -> LinearCombination,
        LB: FnOnce(LinearCombination) -> LinearCombination,
        LC: FnOnce(LinearCombination) -> LinearCombination,
    {
        let _region = markers::ENFORCE.enter();
        let a = a(self.zero_lc());
        let b = b(self.zero_lc());
        let c = c(self.zero_lc());

        // Inputs have full density in the A query, and there is no C query: only these three are tracked.
        let a_res = a.eval_with_trackers(
            None,
            Some(&mut self.a_aux_density),
            &self.input_assignment,
            &self.aux_assignment,
        );
        let b_res = b.eval_with_trackers(
            Some(&mut self.b_input_density),
            Some(&mut self.b_aux_density),
            &self.input_assignment,
            &self.aux_assignment,
        );
        let c_res = c.eval(&self.input_assignment, &self.aux_assignment);

        self.a.push(a_res);
        self.b.push(b_res);
        self.c.push(c_res);

        // Without the pool, c, b and a are dropped here, in reverse order of declaration, then the region
        // guard ends the region. With it, their buffers go back in that same order.
        #[cfg(feature = "vec-pool")]
        {
            self.recycle(c);
            self.recycle(b);
            self.recycle(a);
        }
    }

    /// LinearCombination::zero() as enforce hands it to a closure; with the pool, over recycled buffers.
    #[inline(always)]
    fn zero_lc(&mut self) -> LinearCombination {
        #[cfg(feature = "vec-pool")]
        {
            // inputs first, then aux, as the C model takes them
            let inputs = self.pool.pop().unwrap_or_default();
            let aux = self.pool.pop().unwrap_or_default();
            LinearCombination::from_buffers(inputs, aux)
        }
        #[cfg(not(feature = "vec-pool"))]
        {
            LinearCombination::zero()
        }
    }

    /// Give an LC's buffers back to the pool while it has room; the rest are freed.
    #[cfg(feature = "vec-pool")]
    #[inline(always)]
    fn recycle(&mut self, lc: LinearCombination) {
        let (inputs, aux) = lc.into_buffers();
        for mut buf in [inputs, aux] {
            if buf.capacity() != 0 && self.pool.len() < LC_POOL_MAX {
                buf.clear();
                self.pool.push(buf);
            }
        }
    }

    #[cfg(all(test, feature = "vec-pool"))]
    pub(crate) fn pool_len(&self) -> usize {
        self.pool.len()
    }

    /// A 64-bit digest of everything synthesis produced: a, b and c (in order) and the three densities'
    /// counts. The C model's cs_digest, word for word: equal digests mean identical results. Four
    /// independent multiply-xorshift lanes, one per limb, so that it runs at memory speed.
    pub fn digest(&self) -> u64 {
        #[inline(always)]
        fn mix(h: u64, w: u64) -> u64 {
            let h = (h ^ w).wrapping_mul(0x100000001b3);
            h ^ (h >> 29)
        }
        fn hash_vec(lane: &mut [u64; 4], v: &[Fr]) {
            for l in lane.iter_mut() {
                *l = mix(*l, v.len() as u64);
            }
            for x in v {
                for j in 0..4 {
                    lane[j] = mix(lane[j], x.0[j]);
                }
            }
        }
        let mut lane = [0xcbf29ce484222325u64, 1, 2, 3];
        hash_vec(&mut lane, &self.a);
        hash_vec(&mut lane, &self.b);
        hash_vec(&mut lane, &self.c);
        let mut h = lane[0];
        for &l in &lane[1..] {
            h = mix(h, l);
        }
        h = mix(h, self.a_aux_density.total_density as u64);
        h = mix(h, self.b_input_density.total_density as u64);
        h = mix(h, self.b_aux_density.total_density as u64);
        splitmix64(&mut h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enforce_evaluates_tracks_and_pushes() {
        let mut cs = ProvingAssignment::new();
        let one = cs.alloc_input(Fr::ONE);
        let x = cs.alloc(Fr::from_u64(3));
        let y = cs.alloc(Fr::from_u64(4));
        // (x + x) * (ONE - y) = x
        cs.enforce(|lc| lc + x + x, |lc| lc + one - y, |lc| lc + x);
        assert_eq!(cs.a, [Fr::from_u64(6)]);
        assert_eq!(cs.b, [-Fr::from_u64(3)]);
        assert_eq!(cs.c, [Fr::from_u64(3)]);
        assert_eq!(cs.a_aux_density.total_density, 1);
        assert_eq!(cs.b_input_density.total_density, 1);
        assert_eq!(cs.b_aux_density.total_density, 1);
        assert!(cs.b_aux_density.get(1) && !cs.b_aux_density.get(0));
    }

    #[cfg(feature = "vec-pool")]
    #[test]
    fn the_pool_keeps_six_buffers() {
        let mut cs = ProvingAssignment::new();
        let one = cs.alloc_input(Fr::ONE);
        let v = cs.alloc(Fr::ONE);
        // buffers with capacity come back: ONE and v in A, v in B, nothing in C
        cs.enforce(|lc| lc + one - v, |lc| lc + v, |lc| lc);
        assert_eq!(cs.pool_len(), 3);
        for _ in 0..3 {
            cs.enforce(|lc| lc + one - v, |lc| lc + one + v, |lc| lc + one + v);
        }
        assert_eq!(cs.pool_len(), LC_POOL_MAX);
    }
}
