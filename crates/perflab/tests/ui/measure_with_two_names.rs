#[perflab::measure("parse", "lex")]
fn parse() {}

fn main() {
    parse();
}
