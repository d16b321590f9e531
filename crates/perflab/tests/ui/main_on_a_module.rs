#[perflab::main]
mod app {}

fn main() {}
