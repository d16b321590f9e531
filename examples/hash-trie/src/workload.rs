//! The workload every structure runs: the same keys, the same operations in
//! the same order, and a checksum of the results that must be equal for
//! all of them (perflab's answer check compares it).
//!
//! Insert: `n` inserts of which one in eight overwrites a key inserted
//! before. Query: the same map built untimed, then `n` lookups of which
//! about one in five asks for a key that is not there.

use std::collections::HashMap;

use archery::RcK;
use rpds::HashTrieMap;

use crate::key_hash::{BuildKeyHasher, mix};
use crate::trie::HashTrie;

/// A map the workload can run on.
pub trait Map {
    /// Sets the value of `key`.
    fn put(&mut self, key: u64, value: u64);
    /// The value of `key`.
    fn find(&self, key: u64) -> Option<u64>;
    /// Number of keys.
    fn size(&self) -> usize;
}

impl Map for HashTrie {
    #[inline]
    fn put(&mut self, key: u64, value: u64) {
        self.insert(key, value);
    }
    #[inline]
    fn find(&self, key: u64) -> Option<u64> {
        self.get(key)
    }
    fn size(&self) -> usize {
        self.len()
    }
}

impl Map for HashMap<u64, u64, BuildKeyHasher> {
    #[inline]
    fn put(&mut self, key: u64, value: u64) {
        self.insert(key, value);
    }
    #[inline]
    fn find(&self, key: u64) -> Option<u64> {
        self.get(&key).copied()
    }
    fn size(&self) -> usize {
        self.len()
    }
}

/// rpds's hash trie map with its default pointer kind (`Rc`), our hasher,
/// and 32-way branching like the trie's.
pub type RpdsMap = HashTrieMap<u64, u64, RcK, BuildKeyHasher>;

/// An empty [`RpdsMap`].
pub fn rpds_map() -> RpdsMap {
    HashTrieMap::new_with_hasher_and_degree_and_ptr_kind(BuildKeyHasher::default(), 32)
}

impl Map for RpdsMap {
    #[inline]
    fn put(&mut self, key: u64, value: u64) {
        // In place: the map is not shared, so no node is copied.
        self.insert_mut(key, value);
    }
    #[inline]
    fn find(&self, key: u64) -> Option<u64> {
        self.get(&key).copied()
    }
    fn size(&self) -> usize {
        HashTrieMap::size(self)
    }
}

/// The `i`-th distinct key.
#[inline]
fn key(i: u64) -> u64 {
    mix(i ^ 0x9e37_79b9_7f4a_7c15)
}

/// Distinct keys among `n` inserts: seven in eight (at least one).
fn distinct(n: usize) -> u64 {
    (n as u64 - n as u64 / 8).max(1)
}

/// The keys of the `n` inserts, in order: every distinct key once, then
/// overwrites of keys spread over all of them.
pub fn insert_keys(n: usize) -> Vec<u64> {
    let m = distinct(n);
    (0..n as u64)
        .map(|i| if i < m { key(i) } else { key(mix(i) % m) })
        .collect()
}

/// The keys of the `n` lookups: drawn from the distinct keys and a quarter
/// as many again that were never inserted.
pub fn query_keys(n: usize) -> Vec<u64> {
    let m = distinct(n);
    (0..n as u64).map(|i| key(mix(!i) % (m + m / 4))).collect()
}

/// Runs the inserts; the value of an insert is its index.
#[inline(never)]
pub fn run_inserts(map: &mut impl Map, keys: &[u64]) {
    for (i, &k) in keys.iter().enumerate() {
        map.put(k, i as u64);
    }
}

/// Runs the lookups: how many found a key, and the sum of their values.
#[inline(never)]
pub fn run_queries(map: &impl Map, keys: &[u64]) -> (u64, u64) {
    let (mut found, mut sum) = (0u64, 0u64);
    for &k in keys {
        if let Some(v) = map.find(k) {
            found += 1;
            sum = sum.wrapping_add(v);
        }
    }
    (found, sum)
}

/// A digest of a map's contents after the inserts, read untimed: its size
/// and the sum of `key × value` over every 16th distinct key (a sixteenth
/// of the lookups, so that the check costs little beside the inserts, and
/// still about `n / 128` of the overwritten keys).
pub fn contents_checksum(map: &impl Map, n: usize) -> (usize, u64) {
    let sum = (0..distinct(n)).step_by(16).fold(0u64, |sum, i| {
        let k = key(i);
        sum.wrapping_add(k.wrapping_mul(map.find(k).unwrap_or(u64::MAX)))
    });
    (map.size(), sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_insert_in_eight_overwrites_and_about_one_lookup_in_five_misses() {
        let n = 80_000;
        let mut map: HashMap<u64, u64, BuildKeyHasher> = HashMap::default();
        run_inserts(&mut map, &insert_keys(n));
        assert_eq!(map.len(), 70_000);
        let (found, _) = run_queries(&map, &query_keys(n));
        let missed = n as f64 - found as f64;
        assert!((missed / n as f64 - 0.2).abs() < 0.01, "{missed} misses");
    }

    #[test]
    fn all_three_structures_give_the_same_checksums() {
        let n = 5_000;
        let (inserts, queries) = (insert_keys(n), query_keys(n));
        let mut std_map: HashMap<u64, u64, BuildKeyHasher> = HashMap::default();
        let mut trie = HashTrie::with_pool_slots(1000);
        let mut rpds = rpds_map();
        run_inserts(&mut std_map, &inserts);
        run_inserts(&mut trie, &inserts);
        run_inserts(&mut rpds, &inserts);
        let expected = contents_checksum(&std_map, n);
        assert_eq!(contents_checksum(&trie, n), expected);
        assert_eq!(contents_checksum(&rpds, n), expected);
        let expected = run_queries(&std_map, &queries);
        assert_eq!(run_queries(&trie, &queries), expected);
        assert_eq!(run_queries(&rpds, &queries), expected);
    }
}
