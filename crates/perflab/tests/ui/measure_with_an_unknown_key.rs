#[perflab::measure(label = "parse")]
fn parse() {}

fn main() {
    parse();
}
