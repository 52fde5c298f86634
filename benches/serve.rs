//! The server under load over loopback: 20,000 position queries of every game on 32
//! keep-alive connections, every answer checked against the tables, throughput and latency
//! printed. Run with `cargo bench --bench serve`.

#[path = "../tests/integration/support/api_check.rs"]
mod api_check;
#[path = "../tests/integration/support/load.rs"]
mod load;
#[path = "../tests/integration/support/temp.rs"]
mod temp;

use std::time::Duration;

use egtb::serve::ServeOptions;

const QUERIES: usize = 20_000;
const CONNECTIONS: usize = 32;

fn main() {
    let dir = temp::temp_dir("serve-bench");
    api_check::generate(&dir);
    let requests = api_check::requests(&dir, 1500);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let report = runtime.block_on(async {
        let options = ServeOptions {
            tables: dir.to_path_buf(),
            bind: "127.0.0.1".parse().unwrap(),
            port: 0,
            defaults: Vec::new(),
            allowed_hosts: Vec::new(),
        };
        let addr = egtb::serve::spawn(&options).await.unwrap();
        let paths = (0..QUERIES)
            .map(|i| requests[i % requests.len()].path.clone())
            .collect();
        load::run(addr, "GET", paths, CONNECTIONS, Duration::from_secs(600))
            .await
            .unwrap()
    });
    for (i, answer) in report.answers.iter().enumerate() {
        let request = &requests[i % requests.len()];
        assert_eq!(answer.status, 200, "{}: {}", request.path, answer.body);
        if let Err(e) = api_check::check(&answer.body, &request.expect) {
            panic!("{}: {e}", request.path);
        }
    }
    println!(
        "{} queries ({} distinct positions) on {CONNECTIONS} connections, every answer correct: {report}",
        report.answers.len(),
        requests.len(),
    );
}
