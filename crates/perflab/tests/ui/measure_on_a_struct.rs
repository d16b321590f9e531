#[perflab::measure]
struct Parser {
    depth: usize,
}

fn main() {}
