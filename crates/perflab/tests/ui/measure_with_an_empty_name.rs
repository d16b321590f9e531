#[perflab::measure("")]
fn parse() {}

fn main() {
    parse();
}
