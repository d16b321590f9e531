//! The hash array mapped trie: 32-way nodes with a bitmap of the chunks
//! present and a compact array of that many entries from the [`NodePool`].

use crate::key_hash::mix;
use crate::pool::{Block, NodePool, PoolStats};

/// Bits of the hash consumed per level (32-way branching).
const BITS: u32 = 5;
const MASK: u64 = (1 << BITS) - 1;

/// The pool size the trie had before it was sized by its workload: enough
/// for about 50,000 keys, and the cause of the fallbacks beyond that.
pub const FIXED_POOL_SLOTS: usize = 65_536;

/// One slot of a node's array.
#[derive(Debug, Default)]
pub enum Entry {
    /// A slot of no node (free in the pool, or moved out).
    #[default]
    Vacant,
    /// A key and its value.
    Leaf {
        /// The key.
        key: u64,
        /// Its value.
        value: u64,
    },
    /// A node one level down.
    Branch(Node),
}

/// A node: which of the 32 chunks are present, and their entries in order.
#[derive(Debug)]
pub struct Node {
    bitmap: u32,
    block: Option<Block<Entry>>,
}

impl Node {
    const EMPTY: Node = Node {
        bitmap: 0,
        block: None,
    };

    fn len(&self) -> usize {
        self.bitmap.count_ones() as usize
    }
}

/// The chunk of `hash` at `shift`, its bit, and the entry's position in a
/// node with `bitmap`.
#[inline]
fn slot(bitmap: u32, hash: u64, shift: u32) -> (u32, usize) {
    let bit = 1u32 << ((hash >> shift) & MASK);
    (bit, (bitmap & (bit - 1)).count_ones() as usize)
}

/// A map from `u64` to `u64`.
#[derive(Debug)]
pub struct HashTrie {
    root: Node,
    pool: NodePool<Entry>,
    len: usize,
}

impl HashTrie {
    /// A trie whose pool holds `slots` entries; beyond that, node arrays
    /// come from the global allocator.
    pub fn with_pool_slots(slots: usize) -> Self {
        Self {
            root: Node::EMPTY,
            pool: NodePool::with_capacity(slots),
            len: 0,
        }
    }

    /// A trie whose pool is large enough for `keys` keys, so it never falls
    /// back to the global allocator while it holds no more.
    pub fn with_capacity(keys: usize) -> Self {
        Self::with_pool_slots(pool_slots_for(keys))
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the trie holds no key.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// What the pool did so far.
    pub fn pool_stats(&self) -> PoolStats {
        self.pool.stats()
    }

    /// The value of `key`.
    pub fn get(&self, key: u64) -> Option<u64> {
        let hash = mix(key);
        let mut node = &self.root;
        let mut shift = 0;
        loop {
            let (bit, pos) = slot(node.bitmap, hash, shift);
            if node.bitmap & bit == 0 {
                return None;
            }
            let block = node.block.as_ref()?;
            match &self.pool.entries(block, node.len())[pos] {
                Entry::Leaf { key: k, value } => return (*k == key).then_some(*value),
                Entry::Branch(child) => node = child,
                Entry::Vacant => unreachable!("a bitmap bit without its entry"),
            }
            shift += BITS;
        }
    }

    /// Sets the value of `key`, returning the value it replaced.
    pub fn insert(&mut self, key: u64, value: u64) -> Option<u64> {
        let mut root = std::mem::replace(&mut self.root, Node::EMPTY);
        let replaced = insert_into(&mut self.pool, &mut root, mix(key), 0, key, value);
        self.root = root;
        if replaced.is_none() {
            self.len += 1;
        }
        replaced
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: u64) -> Option<u64> {
        let mut root = std::mem::replace(&mut self.root, Node::EMPTY);
        let removed = remove_from(&mut self.pool, &mut root, mix(key), 0, key);
        self.root = root;
        if removed.is_some() {
            self.len -= 1;
        }
        removed
    }
}

/// Pool slots for `keys` keys. A trie of random keys hands out between 1.5
/// and 2.3 slots per key (measured from 1,000 to 1,000,000 keys): one per
/// leaf, the arrays of the inner nodes, and blocks waiting in the free list
/// of a length no node asks for yet. 2.5 per key, plus room for the few
/// nodes of a small trie, leaves a margin; the slots are only reserved, and
/// memory is touched as they are handed out.
/// `a_pool_sized_for_its_keys_never_falls_back` checks it.
pub fn pool_slots_for(keys: usize) -> usize {
    keys.saturating_mul(5) / 2 + 4096
}

fn insert_into(
    pool: &mut NodePool<Entry>,
    node: &mut Node,
    hash: u64,
    shift: u32,
    key: u64,
    value: u64,
) -> Option<u64> {
    let (bit, pos) = slot(node.bitmap, hash, shift);
    let len = node.len();
    if node.bitmap & bit == 0 {
        let leaf = Entry::Leaf { key, value };
        node.block = Some(match node.block.take() {
            None => {
                let mut block = pool.alloc(1);
                pool.entries_mut(&mut block, 1)[0] = leaf;
                block
            }
            Some(old) => pool.grow(old, len, pos, leaf),
        });
        node.bitmap |= bit;
        return None;
    }
    let block = node.block.as_mut().expect("a node with bits has a block");
    let entry = &mut pool.entries_mut(block, len)[pos];
    match entry {
        Entry::Leaf { key: k, value: v } if *k == key => Some(std::mem::replace(v, value)),
        Entry::Leaf { .. } => {
            let Entry::Leaf {
                key: old_key,
                value: old_value,
            } = std::mem::take(entry)
            else {
                unreachable!()
            };
            let mut child = Node::EMPTY;
            insert_into(
                pool,
                &mut child,
                mix(old_key),
                shift + BITS,
                old_key,
                old_value,
            );
            insert_into(pool, &mut child, hash, shift + BITS, key, value);
            let block = node.block.as_mut().expect("still there");
            pool.entries_mut(block, len)[pos] = Entry::Branch(child);
            None
        }
        Entry::Branch(_) => {
            let Entry::Branch(mut child) = std::mem::take(entry) else {
                unreachable!()
            };
            let replaced = insert_into(pool, &mut child, hash, shift + BITS, key, value);
            let block = node.block.as_mut().expect("still there");
            pool.entries_mut(block, len)[pos] = Entry::Branch(child);
            replaced
        }
        Entry::Vacant => unreachable!("a bitmap bit without its entry"),
    }
}

fn remove_from(
    pool: &mut NodePool<Entry>,
    node: &mut Node,
    hash: u64,
    shift: u32,
    key: u64,
) -> Option<u64> {
    let (bit, pos) = slot(node.bitmap, hash, shift);
    if node.bitmap & bit == 0 {
        return None;
    }
    let len = node.len();
    let block = node.block.as_mut().expect("a node with bits has a block");
    let entry = &mut pool.entries_mut(block, len)[pos];
    match entry {
        Entry::Leaf { key: k, .. } if *k == key => {
            let old = node.block.take().expect("still there");
            let (rest, removed) = pool.shrink(old, len, pos);
            node.block = rest;
            node.bitmap &= !bit;
            match removed {
                Entry::Leaf { value, .. } => Some(value),
                _ => unreachable!(),
            }
        }
        Entry::Leaf { .. } => None,
        Entry::Branch(_) => {
            let Entry::Branch(mut child) = std::mem::take(entry) else {
                unreachable!()
            };
            let removed = remove_from(pool, &mut child, hash, shift + BITS, key);
            let block = node.block.as_mut().expect("still there");
            // A child left with a single leaf is replaced by that leaf, so
            // that the trie stays as shallow as its keys allow.
            let replacement = if child.len() == 1 {
                let mut only = child.block.take().expect("one entry");
                let moved = pool.take(&mut only, 1, 0);
                if matches!(moved, Entry::Leaf { .. }) {
                    pool.release(only, 1);
                    moved
                } else {
                    pool.entries_mut(&mut only, 1)[0] = moved;
                    child.block = Some(only);
                    Entry::Branch(child)
                }
            } else {
                Entry::Branch(child)
            };
            pool.entries_mut(block, len)[pos] = replacement;
            removed
        }
        Entry::Vacant => unreachable!("a bitmap bit without its entry"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sharing_the_first_chunks_of_their_hash_are_pushed_down_and_found() {
        let mut trie = HashTrie::with_pool_slots(64);
        // Find two keys whose hashes agree on the first two chunks.
        let first = 1u64;
        let second = (2..).find(|&k| (mix(k) ^ mix(first)) & 0x3ff == 0).unwrap();
        trie.insert(first, 10);
        trie.insert(second, 20);
        assert_eq!(trie.get(first), Some(10));
        assert_eq!(trie.get(second), Some(20));
        assert_eq!(trie.remove(first), Some(10));
        assert_eq!(trie.get(second), Some(20));
        assert_eq!(trie.len(), 1);
    }

    #[test]
    fn a_pool_sized_for_its_keys_never_falls_back() {
        for keys in [1, 100, 5_000, 100_000] {
            let mut trie = HashTrie::with_capacity(keys);
            for i in 0..keys as u64 {
                trie.insert(mix(i ^ 0x5eed), i);
            }
            let stats = trie.pool_stats();
            assert_eq!(stats.fallbacks, 0, "{keys} keys: {stats:?}");
        }
    }

    #[test]
    fn a_fixed_pool_falls_back_once_the_keys_outgrow_it() {
        let keys = 200_000u64;
        let mut trie = HashTrie::with_pool_slots(FIXED_POOL_SLOTS);
        for i in 0..keys {
            trie.insert(mix(i ^ 0x5eed), i);
        }
        let stats = trie.pool_stats();
        assert!(stats.fallback_rate_pct() > 50.0, "{stats:?}");
        assert!(stats.utilisation_pct() > 250.0, "{stats:?}");
        assert!((0..keys).all(|i| trie.get(mix(i ^ 0x5eed)) == Some(i)));
    }
}
