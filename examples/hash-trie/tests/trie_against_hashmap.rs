//! The trie against `std::collections::HashMap` on random sequences of
//! operations: after every operation both give the same answer, and at the
//! end the same contents; with pools so small that most node arrays fall
//! back to the global allocator, and pools that never run out.

use std::collections::HashMap;

use hash_trie::{HashTrie, mix};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Insert(u64, u64),
    Get(u64),
    Remove(u64),
}

/// Keys from a small space, so that operations often meet the same key,
/// and sometimes from the whole `u64` range; `mix` of a small key shares
/// no structure with its neighbours, so small spaces still fill deep nodes.
fn key() -> impl Strategy<Value = u64> {
    prop_oneof![4 => (0u64..300).prop_map(mix), 1 => any::<u64>()]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (key(), any::<u64>()).prop_map(|(k, v)| Op::Insert(k, v)),
        2 => key().prop_map(Op::Get),
        2 => key().prop_map(Op::Remove),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_operation_answers_as_hashmap_does(
        ops in prop::collection::vec(op(), 0..600),
        pool_slots in prop_oneof![Just(0usize), Just(8), Just(64), Just(100_000)],
    ) {
        let mut trie = HashTrie::with_pool_slots(pool_slots);
        let mut map: HashMap<u64, u64> = HashMap::new();
        for op in &ops {
            match *op {
                Op::Insert(k, v) => prop_assert_eq!(trie.insert(k, v), map.insert(k, v), "{:?}", op),
                Op::Get(k) => prop_assert_eq!(trie.get(k), map.get(&k).copied(), "{:?}", op),
                Op::Remove(k) => prop_assert_eq!(trie.remove(k), map.remove(&k), "{:?}", op),
            }
            prop_assert_eq!(trie.len(), map.len());
        }
        for (&k, &v) in &map {
            prop_assert_eq!(trie.get(k), Some(v));
        }
        // Every removal gave its block back: what is live is what is held.
        let stats = trie.pool_stats();
        prop_assert!(stats.demand >= map.len(), "{:?}", stats);
        if map.is_empty() {
            prop_assert_eq!(stats.demand, 0);
        }
    }
}
