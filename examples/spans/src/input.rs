//! Generating and parsing access-log lines.

/// One parsed log line.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub path: String,
    pub status: u16,
    pub latency_us: u32,
}

const PATHS: [&str; 8] = [
    "/",
    "/login",
    "/search",
    "/cart",
    "/checkout",
    "/api/items",
    "/api/user",
    "/static/app.js",
];

/// Deterministic log lines; about one in 500 is malformed.
pub(crate) fn generate(count: usize) -> Vec<String> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|index| {
            let random = next();
            if random % 500 == 0 {
                return format!("garbage line {index}");
            }
            let path = PATHS[(random >> 8) as usize % PATHS.len()];
            let status = [200, 200, 200, 304, 404, 500][(random >> 16) as usize % 6];
            let latency = 50 + (random >> 24) % 5_000;
            format!(
                "2024-05-01T12:00:{:02}Z GET {path} {status} {latency}us",
                index % 60
            )
        })
        .collect()
}

/// Parses every line, counting the malformed ones.
pub(crate) fn parse_all(lines: &[String]) -> Vec<Record> {
    let mut records = Vec::with_capacity(lines.len());
    for line in lines {
        match parse_line(line) {
            Some(record) => records.push(record),
            None => perflab::count!("malformed_lines"),
        }
    }
    records
}

#[perflab::measure]
fn parse_line(line: &str) -> Option<Record> {
    let mut fields = line.split(' ');
    let _time = fields.next()?;
    if fields.next()? != "GET" {
        return None;
    }
    let path = fields.next()?.to_string();
    let status = fields.next()?.parse().ok()?;
    let latency_us = fields.next()?.strip_suffix("us")?.parse().ok()?;
    Some(Record {
        path,
        status,
        latency_us,
    })
}
