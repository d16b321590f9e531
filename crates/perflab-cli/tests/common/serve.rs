//! `perflab serve` started for real on a free port, and a plain HTTP/1.1
//! client to fetch its pages (no client library: what goes over the socket
//! is exactly what a browser or curl sends).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long the server may take to start on a loaded machine.
const START_TIMEOUT: Duration = Duration::from_secs(180);

/// A running `perflab serve`, stopped when dropped.
pub struct Served {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// The bearer token sent with every request, if any.
    pub token: Option<String>,
}

/// `perflab` run in `dir` as [`super::Scratch::perflab`] runs it, as a
/// process that can be started and left running.
pub fn perflab_process(dir: &std::path::Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_perflab"));
    cmd.current_dir(dir)
        .env_remove("PERFLAB_STORE")
        .env_remove("PERFLAB_HOST")
        .env_remove("PERFLAB_SERVE_TOKEN");
    for variable in super::postgres::CONNECTION_VARIABLES {
        cmd.env_remove(variable);
    }
    cmd
}

/// One answer.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body as text.
    pub body: String,
}

impl Answer {
    /// The value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

impl Served {
    /// Starts `command` (a `perflab ... serve --listen 127.0.0.1:0 ...`
    /// command line) and waits for the address it prints.
    pub fn start(mut command: Command) -> Self {
        let mut child = command
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("perflab serve starts");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stderr).lines();
            let mut said = String::new();
            for line in lines.by_ref() {
                let Ok(line) = line else { break };
                if let Some(at) = line.rfind("://") {
                    let rest = &line[at + 3..];
                    let addr = rest.split('/').next().unwrap_or_default().to_string();
                    let _ = tx.send(Ok(addr));
                    // Keep draining, so the server never blocks on a full pipe.
                    for _ in lines.by_ref() {}
                    return;
                }
                said.push_str(&line);
                said.push('\n');
            }
            let _ = tx.send(Err(said));
        });
        match rx.recv_timeout(START_TIMEOUT) {
            Ok(Ok(addr)) => Served {
                child,
                addr,
                token: None,
            },
            Ok(Err(said)) => {
                let _ = child.kill();
                panic!("perflab serve stopped before serving: {said}")
            }
            Err(_) => {
                let _ = child.kill();
                panic!("perflab serve did not say where it serves within {START_TIMEOUT:?}")
            }
        }
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// GETs `path` (with the token, if any).
    pub fn get(&self, path: &str) -> Answer {
        let auth = self
            .token
            .as_ref()
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default();
        get_raw(&self.addr, path, &auth)
    }

    /// GETs `path`, which must answer 200; returns the body.
    pub fn page(&self, path: &str) -> String {
        let a = self.get(path);
        assert_eq!(a.status, 200, "{path}: {}", a.body);
        a.body
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One GET of `path` on `addr`, with `extra` header lines.
pub fn get_raw(addr: &str, path: &str, extra: &str) -> Answer {
    let mut stream = TcpStream::connect(addr).expect("the server accepts connections");
    stream
        .set_read_timeout(Some(Duration::from_secs(300)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{extra}\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an HTTP answer");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut body = raw[split + 4..].to_vec();
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    if headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"))
    {
        body = dechunk(&body);
    }
    Answer {
        status,
        headers,
        body: String::from_utf8(body).expect("UTF-8 text"),
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = data.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size = usize::from_str_radix(
            String::from_utf8_lossy(&data[..end])
                .split(';')
                .next()
                .unwrap()
                .trim(),
            16,
        )
        .unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[end + 2..end + 2 + size]);
        data = &data[end + 2 + size + 2..];
    }
}

/// `text` percent-encoded for a query string.
pub fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
