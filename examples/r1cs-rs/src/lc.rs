// SPDX-License-Identifier: GPL-2.0-or-later
// lc.rs - variables, the Indexer and LinearCombination of bellpepper-core's lc.rs, with the variant's storage.

//! As in bellpepper-core: a LinearCombination holds two Indexers, one for input and one for aux
//! variables, each a sorted list of `(variable index, coefficient)` terms plus the position of the last
//! insertion. Builders take the LC by value and return it (`lc + (coeff, var)`), so every step moves the
//! whole struct: 96 bytes with Vec storage, 160 to 400 with SmallVec. The storage type is the only thing
//! the cargo features change; the code below is written once against it.

use std::ops::{Add, Sub};

use crate::cs::DensityTracker;
use crate::fr::Fr;

/// Input or aux, and the index among those.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    Input(usize),
    Aux(usize),
}

/// A variable of the constraint system: 16 bytes, as in bellpepper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variable(pub Index);

impl Variable {
    pub fn new_unchecked(idx: Index) -> Variable {
        Variable(idx)
    }

    pub fn get_unchecked(&self) -> Index {
        self.0
    }
}

// The storage of an Indexer's terms, chosen by the build. A type alias and not a generic parameter: the
// functions are then named alike in every build (r1cs::lc::Indexer::insert_or_update), as when the
// original swapped Vec for SmallVec in the field's type and recompiled, and profiles match across builds.
#[cfg(any(feature = "vec", feature = "vec-pool"))]
pub type Values = Vec<(usize, Fr)>;
#[cfg(feature = "smallvec1")]
pub type Values = smallvec::SmallVec<[(usize, Fr); 1]>;
#[cfg(feature = "smallvec2")]
pub type Values = smallvec::SmallVec<[(usize, Fr); 2]>;
#[cfg(feature = "smallvec4")]
pub type Values = smallvec::SmallVec<[(usize, Fr); 4]>;

/// The variant's name (the C program's `--lc` name) and a few words on its storage, for --sizes.
#[cfg(feature = "vec")]
pub const VARIANT: (&str, &str) = ("vec", "Vec: heap pointer, capacity, length; malloc on first push, free on drop");
#[cfg(feature = "vec-pool")]
pub const VARIANT: (&str, &str) =
    ("vec-pool", "Vec with buffers recycled through a pool, 6 per enforce (production)");
#[cfg(feature = "smallvec1")]
pub const VARIANT: (&str, &str) = ("smallvec1", "SmallVec with 1 term inline, spilling to the heap");
#[cfg(feature = "smallvec2")]
pub const VARIANT: (&str, &str) = ("smallvec2", "SmallVec with 2 terms inline, spilling to the heap");
#[cfg(feature = "smallvec4")]
pub const VARIANT: (&str, &str) = ("smallvec4", "SmallVec with 4 terms inline, spilling to the heap");

/// Terms sorted by key, and `(index, key)` of the last insertion: bellpepper-core's `Indexer<T>` with T = Fr.
#[derive(Clone, Debug, Default)]
pub struct Indexer {
    values: Values,
    last_inserted: Option<(usize, usize)>,
}

impl Indexer {
    pub fn new() -> Indexer {
        Indexer { values: Values::new(), last_inserted: None }
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &(usize, Fr)> + '_ {
        self.values.iter()
    }

    /// Add `coeff` to the term of `key`, inserting the term if there is none.
    ///
    /// bellpepper's takes two closures (`|| coeff` to insert, `|v| *v += coeff` to update), which makes
    /// one generic copy per call site; every caller passes those two, so here it is one function, named
    /// once in a profile, as in the C model. Out of line for the same reason.
    #[inline(never)]
    pub fn insert_or_update(&mut self, key: usize, coeff: Fr) {
        if let Some((last_index, last_key)) = self.last_inserted {
            // Consecutive keys are the common case (bits of a word, packing): no binary search for them.
            if last_key == key {
                // update the same key again
                self.values[last_index].1 += coeff;
                return;
            } else if last_key + 1 == key {
                // the next key: look only at the slot after the last insertion
                let i = last_index + 1;
                if i >= self.values.len() {
                    // insert at the end
                    self.values.push((key, coeff));
                    self.last_inserted = Some((i, key));
                } else if self.values[i].0 == key {
                    // update
                    self.values[i].1 += coeff;
                } else {
                    // insert
                    self.values.insert(i, (key, coeff));
                    self.last_inserted = Some((i, key));
                }
                return;
            }
        }
        match self.values.binary_search_by_key(&key, |&(k, _)| k) {
            Ok(i) => self.values[i].1 += coeff,
            Err(i) => {
                self.values.insert(i, (key, coeff));
                self.last_inserted = Some((i, key));
            }
        }
    }

    /// The vec-pool variant's way in and out: an indexer over a recycled (empty) buffer, and its buffer back.
    #[cfg(feature = "vec-pool")]
    pub fn from_buffer(values: Values) -> Indexer {
        debug_assert!(values.is_empty());
        Indexer { values, last_inserted: None }
    }

    #[cfg(feature = "vec-pool")]
    pub fn into_buffer(self) -> Values {
        self.values
    }
}

/// bellpepper-core's `LinearCombination<Scalar>`: the terms over input variables and over aux variables.
#[derive(Clone, Debug, Default)]
pub struct LinearCombination {
    inputs: Indexer,
    aux: Indexer,
}

impl LinearCombination {
    pub fn zero() -> LinearCombination {
        LinearCombination { inputs: Indexer::new(), aux: Indexer::new() }
    }

    #[cfg(feature = "vec-pool")]
    pub fn from_buffers(inputs: Values, aux: Values) -> LinearCombination {
        LinearCombination { inputs: Indexer::from_buffer(inputs), aux: Indexer::from_buffer(aux) }
    }

    #[cfg(feature = "vec-pool")]
    pub fn into_buffers(self) -> (Values, Values) {
        (self.inputs.into_buffer(), self.aux.into_buffer())
    }

    pub fn iter_inputs(&self) -> impl Iterator<Item = &(usize, Fr)> + '_ {
        self.inputs.iter()
    }

    pub fn iter_aux(&self) -> impl Iterator<Item = &(usize, Fr)> + '_ {
        self.aux.iter()
    }

    pub fn inputs(&self) -> &Indexer {
        &self.inputs
    }

    pub fn aux(&self) -> &Indexer {
        &self.aux
    }

    /// The value of the LC under the assignment, marking each variable with a non-zero coefficient in the
    /// density trackers given (the prover's A and B queries). Zero coefficients are skipped, and a
    /// coefficient ONE costs no multiplication, as in bellperson. Indexing panics out of bounds.
    #[inline(never)]
    pub fn eval_with_trackers(
        &self,
        mut input_density: Option<&mut DensityTracker>,
        mut aux_density: Option<&mut DensityTracker>,
        input_assignment: &[Fr],
        aux_assignment: &[Fr],
    ) -> Fr {
        let _region = crate::markers::EVAL.enter();
        let mut acc = Fr::ZERO;
        let one = Fr::ONE;
        for &(index, coeff) in self.iter_inputs() {
            if !coeff.is_zero() {
                let mut tmp = input_assignment[index];
                if coeff != one {
                    tmp *= &coeff;
                }
                acc += tmp;
                if let Some(ref mut d) = input_density {
                    d.inc(index);
                }
            }
        }
        for &(index, coeff) in self.iter_aux() {
            if !coeff.is_zero() {
                let mut tmp = aux_assignment[index];
                if coeff != one {
                    tmp *= &coeff;
                }
                acc += tmp;
                if let Some(ref mut d) = aux_density {
                    d.inc(index);
                }
            }
        }
        acc
    }

    /// The value of the LC, with no trackers and no skipping of zero coefficients (the C query).
    #[inline(never)]
    pub fn eval(&self, input_assignment: &[Fr], aux_assignment: &[Fr]) -> Fr {
        let _region = crate::markers::EVAL.enter();
        let mut acc = Fr::ZERO;
        let one = Fr::ONE;
        for &(index, coeff) in self.iter_inputs() {
            let mut tmp = input_assignment[index];
            if coeff != one {
                tmp *= &coeff;
            }
            acc += tmp;
        }
        for &(index, coeff) in self.iter_aux() {
            let mut tmp = aux_assignment[index];
            if coeff != one {
                tmp *= &coeff;
            }
            acc += tmp;
        }
        acc
    }
}

/// `lc + (coeff, var)`: self by value in, self by value out, the move that costs more the larger the LC.
/// Out of line so that the move really happens at each step and a profile names the step.
impl Add<(Fr, Variable)> for LinearCombination {
    type Output = LinearCombination;

    #[inline(never)]
    fn add(mut self, (coeff, var): (Fr, Variable)) -> LinearCombination {
        match var.0 {
            Index::Input(i) => self.inputs.insert_or_update(i, coeff),
            Index::Aux(i) => self.aux.insert_or_update(i, coeff),
        }
        self
    }
}

/// `lc - (coeff, var)` adds -coeff, as bellpepper's `sub_unsimplified` does.
impl Sub<(Fr, Variable)> for LinearCombination {
    type Output = LinearCombination;

    #[inline]
    fn sub(self, (coeff, var): (Fr, Variable)) -> LinearCombination {
        self + (-coeff, var)
    }
}

impl Add<Variable> for LinearCombination {
    type Output = LinearCombination;

    #[inline]
    fn add(self, other: Variable) -> LinearCombination {
        self + (Fr::ONE, other)
    }
}

impl Sub<Variable> for LinearCombination {
    type Output = LinearCombination;

    #[inline]
    fn sub(self, other: Variable) -> LinearCombination {
        self - (Fr::ONE, other)
    }
}

/// `lc + (coeff, &other)`: every term of `other`, scaled by coeff (MultiEq's accumulation).
impl<'a> Add<(Fr, &'a LinearCombination)> for LinearCombination {
    type Output = LinearCombination;

    #[inline(never)]
    fn add(mut self, (coeff, other): (Fr, &'a LinearCombination)) -> LinearCombination {
        for &(index, c) in other.iter_inputs() {
            let mut tmp = c;
            tmp *= &coeff;
            self.inputs.insert_or_update(index, tmp);
        }
        for &(index, c) in other.iter_aux() {
            let mut tmp = c;
            tmp *= &coeff;
            self.aux.insert_or_update(index, tmp);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fr(v: u64) -> Fr {
        Fr::from_u64(v)
    }

    /// Keys and canonical low limbs of the coefficients, in storage order.
    fn terms(ix: &Indexer) -> Vec<(usize, u64)> {
        ix.iter().map(|&(k, c)| (k, c.to_canonical()[0])).collect()
    }

    fn indexer(ops: &[(usize, u64)]) -> Indexer {
        let mut ix = Indexer::new();
        for &(k, c) in ops {
            ix.insert_or_update(k, fr(c));
        }
        ix
    }

    #[test]
    fn first_insert_and_last_key_update() {
        let mut ix = indexer(&[(5, 1)]);
        assert_eq!(terms(&ix), [(5, 1)]);
        assert_eq!(ix.last_inserted, Some((0, 5)));
        // the same key again: the shortcut updates in place, last_inserted stays
        ix.insert_or_update(5, fr(2));
        assert_eq!(terms(&ix), [(5, 3)]);
        assert_eq!(ix.last_inserted, Some((0, 5)));
    }

    #[test]
    fn last_key_update_after_an_insert_below() {
        // 9, then 4 inserted before it (binary search): last_inserted points at index 0, key 4
        let mut ix = indexer(&[(9, 1), (4, 1)]);
        assert_eq!(ix.last_inserted, Some((0, 4)));
        ix.insert_or_update(4, fr(6));
        assert_eq!(terms(&ix), [(4, 7), (9, 1)]);
    }

    #[test]
    fn next_key_pushes_at_the_end() {
        let ix = indexer(&[(5, 1), (6, 2), (7, 3)]);
        assert_eq!(terms(&ix), [(5, 1), (6, 2), (7, 3)]);
        assert_eq!(ix.last_inserted, Some((2, 7)));
    }

    #[test]
    fn next_key_updates_the_following_slot() {
        // [5, 6] then 4 inserted at 0: last (0, 4); key 5 is the next key and values[1] holds it
        let mut ix = indexer(&[(5, 1), (6, 1), (4, 1)]);
        assert_eq!(ix.last_inserted, Some((0, 4)));
        ix.insert_or_update(5, fr(10));
        assert_eq!(terms(&ix), [(4, 1), (5, 11), (6, 1)]);
        assert_eq!(ix.last_inserted, Some((0, 4)), "an update leaves last_inserted");
    }

    #[test]
    fn next_key_inserts_before_a_larger_key() {
        // [8], then 5 at 0: last (0, 5); key 6 is the next key, values[1] is 8: insert at 1
        let mut ix = indexer(&[(8, 1), (5, 1)]);
        ix.insert_or_update(6, fr(2));
        assert_eq!(terms(&ix), [(5, 1), (6, 2), (8, 1)]);
        assert_eq!(ix.last_inserted, Some((1, 6)));
    }

    #[test]
    fn binary_search_hit_updates() {
        let mut ix = indexer(&[(1, 1), (3, 1), (5, 1)]);
        assert_eq!(ix.last_inserted, Some((2, 5)));
        ix.insert_or_update(3, fr(4));
        assert_eq!(terms(&ix), [(1, 1), (3, 5), (5, 1)]);
        assert_eq!(ix.last_inserted, Some((2, 5)));
        // the first and the last term too
        ix.insert_or_update(1, fr(1));
        ix.insert_or_update(5, fr(1));
        assert_eq!(terms(&ix), [(1, 2), (3, 5), (5, 2)]);
    }

    #[test]
    fn binary_search_miss_inserts_in_order() {
        let mut ix = indexer(&[(10, 1), (20, 1), (30, 1)]);
        ix.insert_or_update(25, fr(2));
        assert_eq!(terms(&ix), [(10, 1), (20, 1), (25, 2), (30, 1)]);
        assert_eq!(ix.last_inserted, Some((2, 25)));
        ix.insert_or_update(0, fr(3));
        assert_eq!(ix.last_inserted, Some((0, 0)));
        ix.insert_or_update(40, fr(4));
        assert_eq!(terms(&ix), [(0, 3), (10, 1), (20, 1), (25, 2), (30, 1), (40, 4)]);
        assert_eq!(ix.last_inserted, Some((5, 40)));
    }

    #[test]
    fn coefficients_cancel_to_zero_and_the_term_stays() {
        let mut ix = indexer(&[(3, 1)]);
        ix.insert_or_update(3, -fr(1));
        assert_eq!(ix.len(), 1);
        assert!(ix.values[0].1.is_zero());
    }

    #[test]
    fn many_out_of_order_keys_stay_sorted_and_unique() {
        let mut ix = Indexer::new();
        let mut x = 7u64;
        let mut sum = std::collections::BTreeMap::new();
        for _ in 0..2000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let key = ((x >> 33) % 300) as usize;
            ix.insert_or_update(key, Fr::ONE);
            *sum.entry(key).or_insert(0u64) += 1;
        }
        let want: Vec<(usize, u64)> = sum.into_iter().collect();
        assert_eq!(terms(&ix), want);
    }

    #[cfg(any(feature = "vec", feature = "vec-pool"))]
    #[test]
    fn vec_allocates_four_on_first_push_then_doubles() {
        let mut ix = Indexer::new();
        assert_eq!(ix.values.capacity(), 0);
        ix.insert_or_update(0, Fr::ONE);
        assert_eq!(ix.values.capacity(), 4);
        for k in 1..5 {
            ix.insert_or_update(k, Fr::ONE);
        }
        assert_eq!(ix.values.capacity(), 8);
    }

    #[cfg(any(feature = "smallvec1", feature = "smallvec2", feature = "smallvec4"))]
    #[test]
    fn smallvec_spills_from_inline_to_the_heap() {
        let n = Values::new().inline_size();
        let mut ix = Indexer::new();
        // in reverse order, so that every insert after the first goes through binary search and memmove
        for k in (0..n).rev() {
            ix.insert_or_update(10 * k, fr(k as u64 + 1));
            assert!(!ix.values.spilled(), "{} terms fit inline", ix.len());
        }
        ix.insert_or_update(5, fr(100));
        assert!(ix.values.spilled(), "term {} spills", n + 1);
        assert_eq!(ix.values.capacity(), (n + 1).next_power_of_two());
        let mut want: Vec<(usize, u64)> = (0..n).map(|k| (10 * k, k as u64 + 1)).collect();
        want.insert(1, (5, 100));
        assert_eq!(terms(&ix), want);
        // on the heap: a key past the end (binary search), then the next key pushed by the shortcut
        let big = 10 * n;
        ix.insert_or_update(big, Fr::ONE);
        ix.insert_or_update(big + 1, Fr::ONE);
        assert_eq!(ix.last_inserted, Some((n + 2, big + 1)));
        assert_eq!(ix.values.last().unwrap().0, big + 1);
    }

    #[test]
    fn add_and_sub_build_by_value() {
        let one = Variable(Index::Input(0));
        let v = Variable(Index::Aux(7));
        let w = Variable(Index::Aux(3));
        let lc = LinearCombination::zero() + one - v + (fr(2), w) + v;
        assert_eq!(terms(&lc.inputs), [(0, 1)]);
        // v: +1 - 1 = 0, still a term; w inserted before it
        assert_eq!(terms(&lc.aux), [(3, 2), (7, 0)]);
    }

    #[test]
    fn scaled_add_and_clone() {
        let a = LinearCombination::zero() + (fr(3), Variable(Index::Aux(1))) + Variable(Index::Input(0));
        let acc = LinearCombination::zero() + Variable(Index::Aux(1));
        let acc = acc.clone() + (fr(4), &a);
        assert_eq!(terms(&acc.aux), [(1, 13)]);
        assert_eq!(terms(&acc.inputs), [(0, 4)]);
    }

    #[test]
    fn eval_skips_zero_and_tracks_density() {
        let inputs = [Fr::ONE, fr(10)];
        let aux = [fr(2), fr(3), fr(5)];
        let lc = LinearCombination::zero()
            + (fr(1), Variable(Index::Input(1)))
            + (fr(7), Variable(Index::Aux(2)))
            + Variable(Index::Aux(0))
            + (Fr::ZERO, Variable(Index::Aux(1)));
        let mut din = DensityTracker::new();
        let mut daux = DensityTracker::new();
        din.add_element();
        din.add_element();
        for _ in 0..3 {
            daux.add_element();
        }
        let v = lc.eval_with_trackers(Some(&mut din), Some(&mut daux), &inputs, &aux);
        assert_eq!(v, fr(10 + 35 + 2));
        assert_eq!(lc.eval(&inputs, &aux), v);
        assert_eq!(din.total_density, 1);
        assert_eq!(daux.total_density, 2, "the zero coefficient is not counted");
        assert!(daux.get(0) && !daux.get(1) && daux.get(2));
    }
}
