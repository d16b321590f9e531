#[perflab::measure]
const fn square(x: u64) -> u64 {
    x * x
}

fn main() {
    let _ = square(3);
}
