//! Unknown-order tied groups: the subset recursion of Stutz et al. 2023,
//! Appendix B.1 (Eq. 25).
//!
//! For a group `G` chosen, in some unknown order, before a remainder of total
//! worth `Z̄`, define for every `A ⊆ G`
//!
//! ```text
//! R(∅) = 1,   R(A) = Σ_{a∈A} R(A∖{a}) / (Z̄ + Σ_{a∈A} λ_a)
//! ```
//!
//! Then `P(G ≻ rest, any order) = (Π_G λ) · R(G)`. Everything here works on
//! bitmasks over the group's members (`n ≤ MAX_GROUP`), in log space.

use crate::numerics::log_add_exp;

/// Largest unknown-order group accepted (2^20 subsets, 8 MiB per table).
pub const MAX_GROUP: usize = 20;

/// Scratch tables for one group, reused across calls to avoid allocation.
#[derive(Debug, Default, Clone)]
pub struct SubsetTables {
    /// `log R(A)` for every mask `A`.
    pub log_r: Vec<f64>,
    /// `log (Z̄ + Σ_A λ)` for every mask (index 0 holds `log Z̄`).
    pub log_den: Vec<f64>,
    /// Probability that the within-group order passes through the remaining
    /// set `A` (the walk down the Hasse diagram from `G` to `∅`).
    pub reach: Vec<f64>,
}

impl SubsetTables {
    /// Fill `log_r` and `log_den` for worths `lam` (of the group's members,
    /// in order) and remainder `zbar ≥ 0`.
    ///
    /// Cost O(n·2^n). Requires `lam.len() ≤ MAX_GROUP`.
    pub fn compute(&mut self, lam: &[f64], zbar: f64) {
        let n = lam.len();
        assert!(n <= MAX_GROUP, "group larger than MAX_GROUP");
        let size = 1usize << n;
        self.log_r.clear();
        self.log_r.resize(size, 0.0);
        self.log_den.clear();
        self.log_den.resize(size, 0.0);
        // Σ_A λ by the lowest set bit: sum[A] = sum[A − low] + λ_low.
        let mut sums = vec![0.0f64; size];
        for a in 1..size {
            let low = a.trailing_zeros() as usize;
            sums[a] = sums[a & (a - 1)] + lam[low];
        }
        self.log_den[0] = zbar.ln();
        for a in 1..size {
            self.log_den[a] = (zbar + sums[a]).ln();
            let mut acc = f64::NEG_INFINITY;
            let mut bits = a;
            while bits != 0 {
                let b = bits & bits.wrapping_neg();
                acc = log_add_exp(acc, self.log_r[a ^ b]);
                bits ^= b;
            }
            self.log_r[a] = acc - self.log_den[a];
        }
    }

    /// After [`compute`](Self::compute): probability of passing through each
    /// remaining set when the order is drawn from its conditional
    /// distribution given the group was chosen first. At set `A` the next
    /// item is `s` with probability `R(A∖s) / Σ_{s'} R(A∖s')` (§4.4.5 step A).
    pub fn compute_reach(&mut self, n: usize) {
        let size = 1usize << n;
        self.reach.clear();
        self.reach.resize(size, 0.0);
        self.reach[size - 1] = 1.0;
        // Masks in decreasing order: every superset is finished before its
        // subsets receive mass from it.
        for a in (1..size).rev() {
            let p = self.reach[a];
            if p == 0.0 {
                continue;
            }
            // Σ_s R(A∖s) = R(A)·(Z̄+Σ_A λ)  ⇒  log-normaliser = log_r[a] + log_den[a].
            let log_norm = self.log_r[a] + self.log_den[a];
            let mut bits = a;
            while bits != 0 {
                let b = bits & bits.wrapping_neg();
                self.reach[a ^ b] += p * (self.log_r[a ^ b] - log_norm).exp();
                bits ^= b;
            }
        }
    }

    /// Log-probability that the group is chosen (in any order) before a
    /// remainder of worth `zbar`: `Σ log λ_g + log R(G)`.
    pub fn log_prob(&self, log_lam: &[f64]) -> f64 {
        log_lam.iter().sum::<f64>() + self.log_r[(1usize << log_lam.len()) - 1]
    }
}

/// `log P(G ≻ rest)` for one group by the subset recursion.
pub fn log_prob_group(lam: &[f64], zbar: f64) -> f64 {
    let mut t = SubsetTables::default();
    t.compute(lam, zbar);
    let log_lam: Vec<f64> = lam.iter().map(|l| l.ln()).collect();
    t.log_prob(&log_lam)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: sum over all orders of the group of the PL probability.
    fn brute(lam: &[f64], zbar: f64) -> f64 {
        fn rec(rem: &mut Vec<f64>, zbar: f64) -> f64 {
            if rem.is_empty() {
                return 1.0;
            }
            let tot: f64 = rem.iter().sum::<f64>() + zbar;
            let mut s = 0.0;
            for i in 0..rem.len() {
                let x = rem.remove(i);
                s += x / tot * rec(rem, zbar);
                rem.insert(i, x);
            }
            s
        }
        rec(&mut lam.to_vec(), zbar)
    }

    #[test]
    fn spec_partial_values() {
        // R({1}) = 1/5, R({1,2}) = 11/210, R({1,2,3}) = 7/540 with Z̄ = 4.
        let mut t = SubsetTables::default();
        t.compute(&[1.0, 2.0, 3.0], 4.0);
        assert!((t.log_r[0b001].exp() - 1.0 / 5.0).abs() < 1e-15);
        assert!((t.log_r[0b011].exp() - 11.0 / 210.0).abs() < 1e-15);
        assert!((t.log_r[0b101].exp() - 3.0 / 70.0).abs() < 1e-15);
        assert!((t.log_r[0b110].exp() - 13.0 / 378.0).abs() < 1e-15);
        assert!((t.log_r[0b111].exp() - 7.0 / 540.0).abs() < 1e-15);
        assert!((log_prob_group(&[1.0, 2.0, 3.0], 4.0).exp() - 7.0 / 90.0).abs() < 1e-14);
    }

    #[test]
    fn reach_first_step_matches_spec() {
        // First-element probabilities (13/49, 81/245, 99/245) for λ=(1,2,3), Z̄=4.
        let mut t = SubsetTables::default();
        t.compute(&[1.0, 2.0, 3.0], 4.0);
        t.compute_reach(3);
        // P(first = 1) = P(pass through {2,3}) = reach[0b110].
        assert!((t.reach[0b110] - 13.0 / 49.0).abs() < 1e-14);
        assert!((t.reach[0b101] - 81.0 / 245.0).abs() < 1e-14);
        assert!((t.reach[0b011] - 99.0 / 245.0).abs() < 1e-14);
        assert!((t.reach[0] - 1.0).abs() < 1e-14);
    }

    #[test]
    fn matches_brute_force() {
        let lam = [0.3, 1.7, 2.2, 0.9, 4.1];
        for zbar in [0.0, 0.5, 10.0] {
            let a = log_prob_group(&lam, zbar).exp();
            let b = brute(&lam, zbar);
            assert!((a - b).abs() < 1e-14 * b.max(1e-300), "{a} {b}");
        }
    }
}
