// SPDX-License-Identifier: GPL-2.0-or-later
// fr.rs - the BLS12-381 scalar field Fr: 4 x 64-bit limbs in Montgomery form, CIOS multiplication.

//! An element is held as a*R mod r with R = 2^256, least significant limb first: 32 bytes, like blstrs'
//! `Scalar` (blst_fr). Debian has no crate for this field, so it is written here, limb for limb the
//! arithmetic of the C model's fr.c: the digests of the two programs can only agree if every field
//! operation gives the same reduced result.

use std::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub};

/// r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 (255 bits), limbs low first.
const R0: u64 = 0xffffffff00000001;
const R1: u64 = 0x53bda402fffe5bfe;
const R2: u64 = 0x3339d80809a1d805;
const R3: u64 = 0x73eda753299d7d48;
/// -r^-1 mod 2^64, the Montgomery reduction factor.
const INV: u64 = 0xfffffffeffffffff;

#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Fr(pub [u64; 4]);

impl Fr {
    pub const ZERO: Fr = Fr([0, 0, 0, 0]);
    /// 1 in Montgomery form: R mod r.
    pub const ONE: Fr = Fr([0x00000001fffffffe, 0x5884b7fa00034802, 0x998c4fefecbc4ff5, 0x1824b159acc5056f]);
    /// R^2 mod r: multiplying by it converts a canonical value into Montgomery form.
    pub const R2: Fr = Fr([0xc999e990f3f29c6d, 0x2b6cedcb87925c23, 0x05d314967254398f, 0x0748d9d99f59ff11]);
    /// r itself: not a field element; for reduction and tests.
    pub const MODULUS: Fr = Fr([R0, R1, R2, R3]);

    #[inline]
    pub fn is_zero(&self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) == 0
    }

    #[inline]
    pub fn double(&self) -> Fr {
        fr_add(self, self)
    }

    #[inline]
    pub fn square(&self) -> Fr {
        fr_mul(self, self)
    }

    /// The Montgomery form of a canonical integer below r.
    pub fn from_canonical(canon: [u64; 4]) -> Fr {
        fr_mul(&Fr(canon), &Fr::R2)
    }

    pub fn to_canonical(&self) -> [u64; 4] {
        fr_mul(self, &Fr([1, 0, 0, 0])).0
    }

    pub fn from_u64(v: u64) -> Fr {
        Fr::from_canonical([v, 0, 0, 0])
    }
}

// The operators are thin and inline; the arithmetic behind them is out of line, as blstrs calls blst's
// assembly (blst_fr_add, blst_fr_mul, ...): real calls that a per-function profile names. The C model
// keeps them in a separate translation unit for the same reason.
impl Add for Fr {
    type Output = Fr;
    #[inline]
    fn add(self, rhs: Fr) -> Fr {
        fr_add(&self, &rhs)
    }
}

impl AddAssign<&Fr> for Fr {
    #[inline]
    fn add_assign(&mut self, rhs: &Fr) {
        *self = fr_add(self, rhs);
    }
}

impl AddAssign for Fr {
    #[inline]
    fn add_assign(&mut self, rhs: Fr) {
        *self = fr_add(self, &rhs);
    }
}

impl Sub for Fr {
    type Output = Fr;
    #[inline]
    fn sub(self, rhs: Fr) -> Fr {
        fr_sub(&self, &rhs)
    }
}

impl Neg for Fr {
    type Output = Fr;
    #[inline]
    fn neg(self) -> Fr {
        fr_neg(&self)
    }
}

impl Mul for Fr {
    type Output = Fr;
    #[inline]
    fn mul(self, rhs: Fr) -> Fr {
        fr_mul(&self, &rhs)
    }
}

impl MulAssign<&Fr> for Fr {
    #[inline]
    fn mul_assign(&mut self, rhs: &Fr) {
        *self = fr_mul(self, rhs);
    }
}

/// a + b + carry: the low word, the carry (0 or 1) left in *carry. LLVM turns the u128 sums into adc chains.
#[inline(always)]
fn adc(a: u64, b: u64, carry: &mut u64) -> u64 {
    let s = a as u128 + b as u128 + *carry as u128;
    *carry = (s >> 64) as u64;
    s as u64
}

/// a - b - borrow, the borrow (0 or 1) left in *borrow.
#[inline(always)]
fn sbb(a: u64, b: u64, borrow: &mut u64) -> u64 {
    let d = (a as u128).wrapping_sub(b as u128).wrapping_sub(*borrow as u128);
    *borrow = ((d >> 64) as u64) & 1;
    d as u64
}

/// a + b * c + carry: the low word, the high word in *carry (cannot overflow 128 bits).
#[inline(always)]
fn mac(a: u64, b: u64, c: u64, carry: &mut u64) -> u64 {
    let s = b as u128 * c as u128 + a as u128 + *carry as u128;
    *carry = (s >> 64) as u64;
    s as u64
}

/// t - r when t (with t_hi above it) is >= r, else t; a mask, not a branch, as in blst.
#[inline(always)]
fn reduce_once(t: [u64; 4], t_hi: u64) -> Fr {
    let mut borrow = 0;
    let s0 = sbb(t[0], R0, &mut borrow);
    let s1 = sbb(t[1], R1, &mut borrow);
    let s2 = sbb(t[2], R2, &mut borrow);
    let s3 = sbb(t[3], R3, &mut borrow);
    // Keep t when the subtraction borrowed past the carry word, i.e. t < r.
    let keep = 0u64.wrapping_sub((borrow > t_hi) as u64);
    Fr([
        (t[0] & keep) | (s0 & !keep),
        (t[1] & keep) | (s1 & !keep),
        (t[2] & keep) | (s2 & !keep),
        (t[3] & keep) | (s3 & !keep),
    ])
}

#[inline(never)]
pub fn fr_add(a: &Fr, b: &Fr) -> Fr {
    let mut carry = 0;
    let t0 = adc(a.0[0], b.0[0], &mut carry);
    let t1 = adc(a.0[1], b.0[1], &mut carry);
    let t2 = adc(a.0[2], b.0[2], &mut carry);
    let t3 = adc(a.0[3], b.0[3], &mut carry);
    reduce_once([t0, t1, t2, t3], carry)
}

/// a - b; also reduces an a below 2^255 that is not reduced (a - r when a >= r), which the generator uses.
#[inline(never)]
pub fn fr_sub(a: &Fr, b: &Fr) -> Fr {
    let mut borrow = 0;
    let t0 = sbb(a.0[0], b.0[0], &mut borrow);
    let t1 = sbb(a.0[1], b.0[1], &mut borrow);
    let t2 = sbb(a.0[2], b.0[2], &mut borrow);
    let t3 = sbb(a.0[3], b.0[3], &mut borrow);
    // On borrow the difference wrapped by 2^256: add r back.
    let mask = 0u64.wrapping_sub(borrow);
    let mut carry = 0;
    Fr([
        adc(t0, R0 & mask, &mut carry),
        adc(t1, R1 & mask, &mut carry),
        adc(t2, R2 & mask, &mut carry),
        adc(t3, R3 & mask, &mut carry),
    ])
}

#[inline(never)]
pub fn fr_neg(a: &Fr) -> Fr {
    // r - a, except that -0 must stay 0 (r is not reduced).
    let nz = 0u64.wrapping_sub(!a.is_zero() as u64);
    let mut borrow = 0;
    let t0 = sbb(R0, a.0[0], &mut borrow);
    let t1 = sbb(R1, a.0[1], &mut borrow);
    let t2 = sbb(R2, a.0[2], &mut borrow);
    let t3 = sbb(R3, a.0[3], &mut borrow);
    Fr([t0 & nz, t1 & nz, t2 & nz, t3 & nz])
}

/// The Montgomery product a*b*R^-1 mod r by coarsely integrated operand scanning (CIOS). Each step adds
/// a * b_i into the accumulator and, interleaved, m * r with m = t0 * -r^-1 mod 2^64 (zeroing the lowest
/// word), shifting down one word. r's top limb is below (2^64 - 1) / 2 - 1, so the accumulator never needs
/// a fifth word (gnark-crypto's "no-carry" CIOS) and stays below 2r: one conditional subtraction at the end.
#[inline(never)]
pub fn fr_mul(a: &Fr, b: &Fr) -> Fr {
    let [a0, a1, a2, a3] = a.0;
    let (mut t0, mut t1, mut t2, mut t3) = (0u64, 0u64, 0u64, 0u64);
    // Unrolled by the compiler: four steps over b's limbs.
    for bi in b.0 {
        let (mut ca, mut cm) = (0u64, 0u64);
        t0 = mac(t0, a0, bi, &mut ca);
        let m = t0.wrapping_mul(INV);
        let _ = mac(t0, m, R0, &mut cm);
        t1 = mac(t1, a1, bi, &mut ca);
        t0 = mac(t1, m, R1, &mut cm);
        t2 = mac(t2, a2, bi, &mut ca);
        t1 = mac(t2, m, R2, &mut cm);
        t3 = mac(t3, a3, bi, &mut ca);
        t2 = mac(t3, m, R3, &mut cm);
        t3 = cm + ca;
    }
    reduce_once([t0, t1, t2, t3], 0)
}

#[cfg(test)]
mod tests {
    // Expected values from the C model's tests/test-fr.c, computed there with Python's big integers.
    use super::*;

    const A: [u64; 4] = [0xffeeddccbbaa9988, 0x7766554433221100, 0x7e8c1f2d3b4a5968, 0x1b2f9f0a6c4e3d5a];
    const B: [u64; 4] = [0xabcdef0123456789, 0xbcdeff0123456789, 0x3645546372819fa0, 0x5e4d3c2b1a091827];
    const A_TIMES_B: [u64; 4] =
        [0xdeafefffad364a03, 0xf7e08cb837d6b169, 0x0dc5bfcd25add7a5, 0x19003ae4b0af1e49];
    const A_B_MONTGOMERY: [u64; 4] =
        [0xe5a949ba49c38971, 0x742bb0b8583b2723, 0x476a08cf58f92d74, 0x6004703d8b5104a5];
    const A_PLUS_B: [u64; 4] = [0xabbccccedef00110, 0xe087b04256691c8b, 0x81979b88a42a2103, 0x058f33e25cb9d839];
    const A_MINUS_B: [u64; 4] =
        [0x5420eeca98653200, 0x0e44fa460fdb0576, 0x7b80a2d1d26a91cd, 0x30d00a327be2a27b];
    const R_MINUS_1: [u64; 4] = [0xffffffff00000000, R1, R2, R3];
    const R_MINUS_2: [u64; 4] = [0xfffffffeffffffff, R1, R2, R3];

    #[test]
    fn one_is_r_mod_r_and_converts_back() {
        assert_eq!(Fr::ONE.to_canonical(), [1, 0, 0, 0]);
        assert_eq!(Fr::from_u64(1), Fr::ONE);
        assert_eq!(Fr::from_u64(12345).to_canonical(), [12345, 0, 0, 0]);
    }

    #[test]
    fn known_product() {
        let (a, b) = (Fr::from_canonical(A), Fr::from_canonical(B));
        assert_eq!((a * b).to_canonical(), A_TIMES_B);
        assert_eq!((b * a).to_canonical(), A_TIMES_B);
        assert_eq!(fr_mul(&Fr(A), &Fr(B)).0, A_B_MONTGOMERY);
        assert_eq!(a * Fr::ONE, a);
        assert_eq!(Fr::from_canonical(R_MINUS_1).square(), Fr::ONE);
        assert!((a * Fr::ZERO).is_zero());
    }

    #[test]
    fn add_sub_wrap() {
        let (a, b) = (Fr::from_canonical(A), Fr::from_canonical(B));
        assert_eq!((a + b).to_canonical(), A_PLUS_B);
        assert_eq!((a - b).to_canonical(), A_MINUS_B);
        let m1 = Fr::from_canonical(R_MINUS_1);
        assert_eq!((m1 + m1).to_canonical(), R_MINUS_2);
        assert!((m1 + Fr::ONE).is_zero());
        assert_eq!(a.double(), a + a);
    }

    #[test]
    fn neg() {
        let a = Fr::from_canonical(A);
        assert_eq!((-Fr::ONE).to_canonical(), R_MINUS_1);
        assert!((-Fr::ZERO).is_zero());
        assert!((a + -a).is_zero());
        assert_eq!(-(-a), a);
    }
}
