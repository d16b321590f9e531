//! The hash of a key, shared by the trie and both reference maps so that
//! the comparison is of the structures, not of their hash functions.
//!
//! The mixer is the finalizer of splitmix64 (Steele, Lea and Flood, "Fast
//! splittable pseudorandom number generators", OOPSLA 2014). Each of its
//! steps (xor with a right shift, multiplication by an odd constant) is a
//! bijection of `u64`, so two distinct keys never share a full 64-bit hash:
//! the trie needs no collision lists, and its depth is bounded by the 13
//! chunks of a hash.

use std::hash::{BuildHasherDefault, Hasher};

/// splitmix64's finalizer: a bijection of `u64` that spreads every input
/// bit over the whole output.
#[inline]
pub fn mix(key: u64) -> u64 {
    let mut z = key;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A [`Hasher`] for `u64` keys that returns [`mix`] of the key.
#[derive(Debug, Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    #[inline]
    fn write_u64(&mut self, key: u64) {
        self.0 = mix(self.0 ^ key);
    }

    /// Other types than `u64` are folded in eight bytes at a time, so the
    /// hasher stays correct (if slower) for any key type.
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Builds a [`KeyHasher`] for `std::collections::HashMap` and `rpds`.
pub type BuildKeyHasher = BuildHasherDefault<KeyHasher>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn hashing_a_u64_through_the_hasher_gives_its_mix() {
        let build = BuildKeyHasher::default();
        for key in [0u64, 1, 42, u64::MAX] {
            assert_eq!(build.hash_one(key), mix(key));
        }
    }

    #[test]
    fn distinct_keys_get_distinct_hashes() {
        let mut hashes: Vec<u64> = (0..100_000u64).map(mix).collect();
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len(), 100_000);
    }
}
