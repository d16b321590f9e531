trait Codec {
    #[perflab::measure]
    fn encode(&self) -> Vec<u8>;
}

fn main() {}
