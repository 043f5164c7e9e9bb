// SPDX-License-Identifier: GPL-2.0-or-later
// rng.rs - xoshiro256** seeded through splitmix64: the circuit generator's only source of randomness.

//! The same generator, bit for bit, as the C model's rng.h: the Rust and the C program draw the same
//! circuit from the same seed only if every number, and the order in which it is drawn, agree.

pub fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9e3779b97f4a7c15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
    z ^ (z >> 31)
}

pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn new(mut seed: u64) -> Rng {
        let mut s = [0; 4];
        for w in s.iter_mut() {
            *w = splitmix64(&mut seed);
        }
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// In [0, n) for n > 0 by multiply-shift (the bias is below 2^-32 for the n used here).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}
