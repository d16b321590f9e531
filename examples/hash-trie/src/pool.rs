//! The node pool: a fixed number of slots, handed out as blocks of 1 to 32
//! contiguous slots (one node's entry array), with a free list per block
//! length so that a node that grows gives its old block to the next node of
//! that size. When no block fits, the array comes from the global allocator
//! instead: the program stays correct, and the telemetry says how often.
//!
//! Written by hand rather than taken from an arena crate because the pool's
//! exhaustion and its fallback are the subject of the investigation: what
//! they cost has to be visible and countable.

/// Where a node's entry array lives.
#[derive(Debug)]
pub enum Block<T> {
    /// Slots `start..start + len` of the pool.
    Pooled(u32),
    /// An array from the global allocator, taken when the pool ran out.
    Heap(Box<[T]>),
}

/// What the pool did, for its gauges and counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Slots the pool holds.
    pub capacity: usize,
    /// Blocks asked for (pooled or not).
    pub allocations: u64,
    /// Blocks that came from the global allocator because no pooled block fitted.
    pub fallbacks: u64,
    /// Slots in live blocks, pooled or not, now.
    pub demand: usize,
    /// The most slots live blocks held at once.
    pub peak_demand: usize,
    /// Slots of the pool ever handed out (the high-water mark of the bump pointer).
    pub used: usize,
}

impl PoolStats {
    /// Blocks from the global allocator as a share of all blocks, in percent.
    pub fn fallback_rate_pct(&self) -> f64 {
        if self.allocations == 0 {
            0.0
        } else {
            100.0 * self.fallbacks as f64 / self.allocations as f64
        }
    }

    /// The most slots the trie needed at once over the pool's capacity, in
    /// percent: above 100% the pool was too small for the workload.
    pub fn utilisation_pct(&self) -> f64 {
        if self.capacity == 0 {
            f64::INFINITY
        } else {
            100.0 * self.peak_demand as f64 / self.capacity as f64
        }
    }
}

/// Longest block: a node has at most 32 entries.
pub const MAX_BLOCK: usize = 32;

/// A fixed-size pool of slots of `T`; `T::default()` marks a vacant slot.
#[derive(Debug)]
pub struct NodePool<T> {
    slots: Vec<T>,
    capacity: usize,
    /// `free[len]`: starts of released pooled blocks of `len` slots.
    free: Vec<Vec<u32>>,
    stats: PoolStats,
}

impl<T: Default> NodePool<T> {
    /// A pool of `capacity` slots (at most `u32::MAX`). The slots are
    /// reserved at once and filled as blocks are first handed out.
    pub fn with_capacity(capacity: usize) -> Self {
        let capacity = capacity.min(u32::MAX as usize);
        Self {
            slots: Vec::with_capacity(capacity),
            capacity,
            free: (0..=MAX_BLOCK).map(|_| Vec::new()).collect(),
            stats: PoolStats {
                capacity,
                ..PoolStats::default()
            },
        }
    }

    /// What the pool did so far.
    pub fn stats(&self) -> PoolStats {
        self.stats
    }

    /// A block of `len` vacant slots (1 ..= [`MAX_BLOCK`]).
    pub fn alloc(&mut self, len: usize) -> Block<T> {
        debug_assert!((1..=MAX_BLOCK).contains(&len));
        self.stats.allocations += 1;
        self.stats.demand += len;
        self.stats.peak_demand = self.stats.peak_demand.max(self.stats.demand);
        if let Some(start) = self.free[len].pop() {
            return Block::Pooled(start);
        }
        let start = self.slots.len();
        if start + len <= self.capacity {
            self.slots.resize_with(start + len, T::default);
            self.stats.used = start + len;
            return Block::Pooled(start as u32);
        }
        self.stats.fallbacks += 1;
        Block::Heap((0..len).map(|_| T::default()).collect())
    }

    /// Gives back a block of `len` slots whose entries were all taken.
    pub fn release(&mut self, block: Block<T>, len: usize) {
        self.stats.demand -= len;
        match block {
            Block::Pooled(start) => self.free[len].push(start),
            Block::Heap(array) => drop(array),
        }
    }

    /// The `len` entries of a block.
    #[inline]
    pub fn entries<'a>(&'a self, block: &'a Block<T>, len: usize) -> &'a [T] {
        match block {
            Block::Pooled(start) => &self.slots[*start as usize..*start as usize + len],
            Block::Heap(array) => array,
        }
    }

    /// The `len` entries of a block, to change in place.
    #[inline]
    pub fn entries_mut<'a>(&'a mut self, block: &'a mut Block<T>, len: usize) -> &'a mut [T] {
        match block {
            Block::Pooled(start) => &mut self.slots[*start as usize..*start as usize + len],
            Block::Heap(array) => array,
        }
    }

    /// Moves entry `i` out of a block, leaving the slot vacant.
    #[inline]
    pub fn take(&mut self, block: &mut Block<T>, len: usize, i: usize) -> T {
        std::mem::take(&mut self.entries_mut(block, len)[i])
    }

    /// A block one entry longer, holding `entry` at `pos` and the old
    /// entries around it; the old block is released.
    pub fn grow(&mut self, mut old: Block<T>, len: usize, pos: usize, entry: T) -> Block<T> {
        let mut new = self.alloc(len + 1);
        for i in 0..len {
            let moved = self.take(&mut old, len, i);
            let to = if i < pos { i } else { i + 1 };
            self.entries_mut(&mut new, len + 1)[to] = moved;
        }
        self.entries_mut(&mut new, len + 1)[pos] = entry;
        self.release(old, len);
        new
    }

    /// A block one entry shorter, without the entry at `pos` (returned);
    /// the old block is released. `None` for the block when it held one entry.
    pub fn shrink(&mut self, mut old: Block<T>, len: usize, pos: usize) -> (Option<Block<T>>, T) {
        let removed = self.take(&mut old, len, pos);
        if len == 1 {
            self.release(old, len);
            return (None, removed);
        }
        let mut new = self.alloc(len - 1);
        for i in (0..len).filter(|&i| i != pos) {
            let moved = self.take(&mut old, len, i);
            let to = if i < pos { i } else { i - 1 };
            self.entries_mut(&mut new, len - 1)[to] = moved;
        }
        self.release(old, len);
        (Some(new), removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn released_blocks_are_handed_out_again_before_new_slots() {
        let mut pool: NodePool<u64> = NodePool::with_capacity(8);
        let a = pool.alloc(3);
        pool.release(a, 3);
        let b = pool.alloc(3);
        assert!(matches!(b, Block::Pooled(0)));
        assert_eq!(pool.stats().used, 3);
        assert_eq!(pool.stats().fallbacks, 0);
    }

    #[test]
    fn a_full_pool_falls_back_to_the_heap_and_counts_it() {
        let mut pool: NodePool<u64> = NodePool::with_capacity(4);
        let a = pool.alloc(3);
        let b = pool.alloc(2);
        assert!(matches!(a, Block::Pooled(0)));
        assert!(matches!(b, Block::Heap(_)));
        let stats = pool.stats();
        assert_eq!((stats.allocations, stats.fallbacks), (2, 1));
        assert_eq!(stats.fallback_rate_pct(), 50.0);
        assert_eq!(stats.utilisation_pct(), 125.0);
    }

    #[test]
    fn growing_and_shrinking_keep_the_order_of_the_other_entries() {
        let mut pool: NodePool<u64> = NodePool::with_capacity(64);
        let mut block = pool.alloc(1);
        pool.entries_mut(&mut block, 1)[0] = 10;
        let block = pool.grow(block, 1, 0, 5);
        let block = pool.grow(block, 2, 2, 20);
        assert_eq!(pool.entries(&block, 3), &[5, 10, 20]);
        let (block, removed) = pool.shrink(block, 3, 1);
        assert_eq!(removed, 10);
        assert_eq!(pool.entries(block.as_ref().unwrap(), 2), &[5, 20]);
        assert_eq!(pool.stats().demand, 2);
    }
}
