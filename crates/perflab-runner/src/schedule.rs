//! The order of runs: A and B in randomised blocks.
//!
//! Each block holds one run of every variant in a random order, so drift of
//! the machine (thermal state, other tenants, caches) falls on both variants
//! alike and cannot masquerade as a difference; consecutive runs of a block
//! form the pairs the paired interval is computed on.

/// A source of randomised blocks, reproducible from its seed.
#[derive(Debug, Clone)]
pub struct Schedule {
    rng: fastrand::Rng,
    variants: usize,
    seed: u64,
}

impl Schedule {
    /// A schedule for `variants` variants; `seed` makes it reproducible.
    pub fn new(variants: usize, seed: Option<u64>) -> Self {
        let seed = seed.unwrap_or_else(|| fastrand::u64(..));
        Self {
            rng: fastrand::Rng::with_seed(seed),
            variants,
            seed,
        }
    }

    /// The seed in use, to print and store for reproduction.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The variant indices of the next block, in the order they run.
    pub fn next_block(&mut self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.variants).collect();
        self.shuffle(&mut order);
        order
    }

    /// Puts `items` in a random order drawn from the same seeded sequence as
    /// the blocks: for engines whose blocks hold only some of the variants
    /// (a suite's undecided cells) or that also order other things (the
    /// scenarios of a suite's round, the points of a sweep's).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        self.rng.shuffle(items);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_block_holds_each_variant_once() {
        let mut schedule = Schedule::new(3, Some(7));
        for _ in 0..50 {
            let mut block = schedule.next_block();
            block.sort();
            assert_eq!(block, vec![0, 1, 2]);
        }
    }

    #[test]
    fn shuffling_draws_from_the_same_sequence_as_the_blocks() {
        let mut blocks = Schedule::new(3, Some(9));
        let mut shuffled = Schedule::new(3, Some(9));
        for _ in 0..20 {
            let mut items = vec![0, 1, 2];
            shuffled.shuffle(&mut items);
            assert_eq!(blocks.next_block(), items);
        }
    }

    #[test]
    fn both_orders_occur_and_the_seed_reproduces_them() {
        let blocks: Vec<_> = {
            let mut s = Schedule::new(2, Some(42));
            (0..40).map(|_| s.next_block()).collect()
        };
        assert!(blocks.iter().any(|b| b[0] == 0) && blocks.iter().any(|b| b[0] == 1));
        let mut again = Schedule::new(2, Some(42));
        assert!(blocks.iter().all(|b| *b == again.next_block()));
    }
}
