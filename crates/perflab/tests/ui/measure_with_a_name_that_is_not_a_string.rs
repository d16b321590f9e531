#[perflab::measure(name = parse)]
fn parse() {}

fn main() {
    parse();
}
