//! A webhook receiver on a free local port: a real HTTP server (one thread,
//! one connection at a time) that records every request and answers with
//! the status the test sets. What `perflab history --notify` is tested on.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct ReceivedRequest {
    /// `POST`, `GET`, ...
    pub method: String,
    /// The path of the request line.
    pub path: String,
    /// The Content-Type header, if any.
    pub content_type: Option<String>,
    /// The body.
    pub body: String,
}

impl ReceivedRequest {
    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("the body is not JSON ({e}): {}", self.body))
    }
}

/// The receiver; stopped when dropped.
pub struct WebhookServer {
    port: u16,
    status: Arc<AtomicU16>,
    requests: Arc<Mutex<Vec<ReceivedRequest>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl WebhookServer {
    /// Starts a receiver answering every request with `status`.
    pub fn start(status: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free local port");
        let port = listener.local_addr().unwrap().port();
        let status = Arc::new(AtomicU16::new(status));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (status, requests, stop) = (status.clone(), requests.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    if let Some(request) = answer(stream, status.load(Ordering::SeqCst)) {
                        requests.lock().unwrap().push(request);
                    }
                }
            })
        };
        Self {
            port,
            status,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    /// The URL to post to.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hooks/perflab", self.port)
    }

    /// Answers every request from now on with `status`.
    pub fn answer_with(&self, status: u16) {
        self.status.store(status, Ordering::SeqCst);
    }

    /// The requests received so far, oldest first.
    pub fn requests(&self) -> Vec<ReceivedRequest> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for WebhookServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread, which then sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A URL on which nothing listens: a port that was free a moment ago.
pub fn url_without_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free local port");
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}/hooks/perflab")
}

/// Reads one request and answers it with `status`; None when the
/// connection carried no whole request (the wake-up of `drop`).
fn answer(stream: TcpStream, status: u16) -> Option<ReceivedRequest> {
    // A client that stops sending must not hold up the receiver for ever.
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .ok()?;
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    let mut parts = request_line.split_whitespace();
    let (method, path) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut content_length = 0;
    let mut content_type = None;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => content_length = value.trim().parse().ok()?,
            "content-type" => content_type = Some(value.trim().to_string()),
            _ => {}
        }
    }
    let mut body = vec![0; content_length];
    reader.read_exact(&mut body).ok()?;
    let said = if (200..300).contains(&status) {
        "ok"
    } else {
        "invalid_token"
    };
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {status} Test\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{said}",
        said.len()
    );
    let _ = stream.flush();
    Some(ReceivedRequest {
        method,
        path,
        content_type,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}
