//! A loopback load generator, shared by the server's tests and its load bench: a number of
//! connections, each sending its share of the requests one after another over one HTTP/1.1
//! keep-alive connection, every answer kept with its latency for the caller to check.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One answer: the HTTP status, the body and how long it took.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The HTTP status code.
    pub status: u16,
    /// The body of the answer.
    pub body: String,
    /// From sending the request to reading the whole answer.
    pub latency: Duration,
}

/// The answers of a run, in the order of the requests, and the run's wall time.
pub struct LoadReport {
    /// Every answer, in the order of the requests.
    pub answers: Vec<Answer>,
    /// The wall time of the whole run.
    pub elapsed: Duration,
}

impl LoadReport {
    /// The latency that a fraction `p` (0.99 for p99) of the answers did not exceed.
    fn latency_quantile(&self, p: f64) -> Duration {
        let mut latencies: Vec<Duration> = self.answers.iter().map(|a| a.latency).collect();
        latencies.sort();
        let rank = ((latencies.len() as f64 * p).ceil() as usize).clamp(1, latencies.len().max(1));
        latencies.get(rank - 1).copied().unwrap_or_default()
    }
}

/// The run's time, answers per second and latencies: the bench's result, and what a slow test
/// run shows of itself.
impl fmt::Display for LoadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |p| self.latency_quantile(p).as_secs_f64() * 1e3;
        write!(
            f,
            "{:.2} s, {:.0} answers/s, latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            self.elapsed.as_secs_f64(),
            self.answers.len() as f64 / self.elapsed.as_secs_f64(),
            ms(0.50),
            ms(0.99),
            ms(1.0),
        )
    }
}

/// Sends every path (with its query) to the server with `method` on `connections` connections,
/// request `i` on connection `i % connections`; fails if the whole run takes longer than `limit`.
pub async fn run(
    addr: SocketAddr,
    method: &'static str,
    paths: Vec<String>,
    connections: usize,
    limit: Duration,
) -> Result<LoadReport> {
    let paths = Arc::new(paths);
    let start = Instant::now();
    let mut workers = Vec::new();
    for c in 0..connections.max(1) {
        let paths = Arc::clone(&paths);
        let stride = connections.max(1);
        workers.push(tokio::spawn(async move {
            let mut stream = TcpStream::connect(addr).await?;
            stream.set_nodelay(true)?;
            let mut answers = Vec::new();
            for i in (c..paths.len()).step_by(stride) {
                let sent = Instant::now();
                let (status, body) = send(&mut stream, method, &paths[i]).await?;
                answers.push((
                    i,
                    Answer {
                        status,
                        body,
                        latency: sent.elapsed(),
                    },
                ));
            }
            anyhow::Ok(answers)
        }));
    }
    let all = async {
        let mut answers = Vec::with_capacity(paths.len());
        for worker in workers {
            answers.extend(worker.await.context("a load connection panicked")??);
        }
        anyhow::Ok(answers)
    };
    let mut answers = tokio::time::timeout(limit, all)
        .await
        .with_context(|| format!("load run exceeded {limit:?}"))??;
    let elapsed = start.elapsed();
    answers.sort_by_key(|(i, _)| *i);
    Ok(LoadReport {
        answers: answers.into_iter().map(|(_, a)| a).collect(),
        elapsed,
    })
}

/// One request without a body on a keep-alive connection: the status and the body of the answer
/// (the server sends a length).
async fn send(stream: &mut TcpStream, method: &str, path: &str) -> Result<(u16, String)> {
    let request = format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            bail!("connection closed before the answer's headers");
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = std::str::from_utf8(&buffer[..head_end]).context("answer headers are not text")?;
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .context("answer has no status")?;
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .context("answer has no content-length")?;
    while buffer.len() < head_end + length {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            bail!("connection closed inside an answer's body");
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    let body = String::from_utf8(buffer[head_end..head_end + length].to_vec()).context("answer body is not text")?;
    Ok((status, body))
}
