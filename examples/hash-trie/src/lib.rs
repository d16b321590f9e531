//! A hash array mapped trie (HAMT) of `u64` keys and values whose node
//! arrays come from a fixed-size pool, falling back to the global allocator
//! when the pool runs out, and the workload that perflab sweeps it with.
//!
//! The trie (Bagwell, "Ideal Hash Trees", 2001) splits a key's 64-bit hash
//! into 5-bit chunks; each node keeps a 32-bit bitmap of the chunks present
//! and a compact array of exactly that many entries (a leaf or a child
//! node), found by counting the bitmap's bits below the chunk.
//!
//! Layers, bottom up: [`key_hash`] (the hash every structure uses),
//! [`pool`] (the node pool and its telemetry), [`trie`] (the HAMT),
//! [`workload`] (keys, the timed operations, the checksum) and the
//! `hash-trie` binary.
#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod key_hash;
pub mod pool;
pub mod trie;
pub mod workload;

pub use key_hash::{BuildKeyHasher, KeyHasher, mix};
pub use pool::{Block, NodePool, PoolStats};
pub use trie::HashTrie;
