//! Counter-based seeding: every random stream is a pure function of the
//! user's seed and a position (chain, sweep, chunk, …), so output does not
//! depend on thread scheduling or thread count.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The generator used everywhere.
pub type Rng = Xoshiro256PlusPlus;

#[inline]
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Stream for `seed` at position `path` (e.g. `[chain, sweep, chunk]`).
pub fn stream(seed: u64, path: &[u64]) -> Rng {
    let mut h = splitmix(seed);
    for &p in path {
        h = splitmix(h ^ splitmix(p.wrapping_add(0x632B_E59B_D9B4_E019)));
    }
    Xoshiro256PlusPlus::seed_from_u64(h)
}
