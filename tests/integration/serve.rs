//! `egtb serve` without a browser: the JSON API agrees with the tables under concurrent load and
//! with `egtb stats` and `egtb line`, bad input gets 400 or 404 (never 500), another method than
//! GET 405; the command prints its address or refuses with one line. The page it serves is tested
//! in headless Chromium by `browser.rs`.

use std::io::Read;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Output, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use egtb::games::Game;
use egtb::games::Rules;
use egtb::games::chess::Chess;
use egtb::games::darkchess::{Cannon, DarkChess, DarkChessRules};
use egtb::games::xiangqi::{Xiangqi, XiangqiRules};
use egtb::material::GameId;
use egtb::probe::Prober;
use serde_json::{Value as Json, json};

use crate::support::served::{ASIAN, BEFORE_PERPETUAL_CHECK, PERPETUAL_CHECK, start, start_on, start_with, tables};
use crate::support::{KillOnDrop, PORTS, api_check, egtb, egtb_command, failed, lines_of, load, succeeds, temp_dir};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_answers_agree_with_the_tables_under_concurrent_requests() {
    let addr = start().await;
    let requests = api_check::requests(tables(), 400);
    assert!(requests.len() > 1000, "{} requests", requests.len());
    let paths = requests.iter().map(|r| r.path.clone()).collect();
    let report = load::run(addr, "GET", paths, 16, Duration::from_secs(120))
        .await
        .unwrap();
    eprintln!("{} answers on 16 connections: {report}", report.answers.len());
    assert_eq!(report.answers.len(), requests.len());
    for (answer, request) in report.answers.iter().zip(&requests) {
        assert_eq!(answer.status, 200, "{}: {}", request.path, answer.body);
        if let Err(e) = api_check::check(&answer.body, &request.expect) {
            panic!("{}: {e}", request.path);
        }
    }
}

/// One GET over a fresh connection: status and parsed body.
async fn get(addr: SocketAddr, path: &str) -> (u16, Json) {
    send(addr, "GET", path).await
}

/// One request without a body over a fresh connection: status and parsed body.
async fn send(addr: SocketAddr, method: &'static str, path: &str) -> (u16, Json) {
    let report = load::run(addr, method, vec![path.to_string()], 1, Duration::from_secs(30))
        .await
        .unwrap();
    let answer = &report.answers[0];
    let body = serde_json::from_str(&answer.body).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {}", answer.body));
    (answer.status, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mainline_stats_and_tables_answer_as_the_prober_and_stats_do() {
    let addr = start().await;
    let fen = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";
    let (status, line) = get(addr, &format!("/api/chess/mainline?fen={}", fen.replace(' ', "%20"))).await;
    assert_eq!(status, 200, "{line}");
    let mut prober = Prober::<Chess>::new(tables(), Default::default());
    let position = Chess::parse_position(fen).unwrap();
    let expected: Vec<Json> = prober
        .line(&position)
        .unwrap()
        .into_iter()
        .map(|(m, _)| json!(m.coords))
        .collect();
    let got: Vec<Json> = line["mainline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uci"].clone())
        .collect();
    assert_eq!(got, expected);
    assert_eq!(line["winner"], "white");
    assert_eq!(line["dtm"], json!(prober.value(&position).unwrap().dtm()));
    assert_eq!((&line["ruling"], &line["ending"]), (&Json::Null, &json!("checkmate")));

    // The statistics are `egtb stats --json`'s, the sides spelt either way.
    for material in ["KRvK", "KvKR"] {
        let (status, stats) = get(addr, &format!("/api/chess/stats/{material}")).await;
        assert_eq!(status, 200, "{stats}");
        let args = ["--json", "stats", "chess", material];
        let expected: Json = serde_json::from_str(&succeeds(tables(), &args)).unwrap();
        assert_eq!(stats, expected, "{material}");
    }
    let (_, stats) = get(addr, "/api/chess/stats/KRvK").await;
    let longest = &stats["sides"]["white"]["longest"];
    let position = Chess::parse_position(longest["position"].as_str().unwrap()).unwrap();
    assert_eq!(json!(prober.value(&position).unwrap().dtm()), longest["dtm"]);

    let (status, listing) = get(addr, "/api/tables").await;
    assert_eq!(status, 200);
    assert_eq!(listing["tables_dir"], tables().display().to_string(), "{listing}");
    let names: Vec<String> = listing["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| format!("{}/{}", t["game"].as_str().unwrap(), t["material"].as_str().unwrap()))
        .collect();
    for (game, material) in api_check::MATERIALS {
        assert!(names.contains(&format!("{game}/{material}")), "{names:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_positions_clocks_are_kept_and_run_on_as_egtb_query_and_line_write_them() {
    let addr = start().await;
    let fen = "8/8/8/4k3/8/8/8/R3K3 b - - 17 40";
    let path = |endpoint: &str| format!("/api/chess{endpoint}?fen={}", fen.replace(' ', "%20"));
    let (status, answer) = get(addr, &path("")).await;
    assert_eq!(status, 200, "{answer}");
    let query: Json = serde_json::from_str(&succeeds(tables(), &["--json", "query", fen])).unwrap();
    assert_eq!(answer["fen"], query["position"], "{answer}");
    let at = Chess::parse_position_with_clocks(fen).unwrap();
    for m in answer["moves"].as_array().unwrap() {
        let named = Chess::moves_named(&at.0, m["uci"].as_str().unwrap(), Default::default());
        let (child, clocks) = Chess::play_on((&at.0, at.1), named[0]);
        assert_eq!(m["fen"], Chess::format_position_with_clocks(&child, clocks), "{m}");
    }

    let (status, line) = get(addr, &path("/mainline")).await;
    assert_eq!(status, 200, "{line}");
    let expected: Json = serde_json::from_str(&succeeds(tables(), &["--json", "line", fen])).unwrap();
    let fens =
        |steps: &Json, key: &str| -> Vec<Json> { steps.as_array().unwrap().iter().map(|s| s[key].clone()).collect() };
    assert_eq!(line["fen"], expected["position"], "{line}");
    assert_eq!(
        fens(&line["mainline"], "fen"),
        fens(&expected["line"], "position_after")
    );
    assert!(
        line["mainline"][1]["fen"].as_str().unwrap().ends_with(" 19 41"),
        "{line}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mainline_ended_by_a_ruling_says_so_as_egtb_line_does() {
    let addr = start_with(&[("rules", "asian")]).await.unwrap();
    let (status, line) = get(
        addr,
        &format!(
            "/api/xiangqi/mainline?fen={}",
            BEFORE_PERPETUAL_CHECK.replace(' ', "%20")
        ),
    )
    .await;
    assert_eq!(status, 200, "{line}");
    let args = ["--rules", "asian", "line", BEFORE_PERPETUAL_CHECK, "--json"];
    let expected: Json = serde_json::from_str(&succeeds(tables(), &args)).unwrap();
    assert_eq!(expected["ending"], "ruling", "{expected}");
    assert_eq!(line["ruling"], expected["ruling"], "{line}");
    assert_eq!(line["ending"], expected["ending"], "{line}");
    let last = line["mainline"].as_array().unwrap().last().unwrap();
    // Red's move, not a capture, runs the halfmove clock on.
    assert_eq!(last["fen"], PERPETUAL_CHECK.replace(" 0 1", " 1 1"), "{line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statistics_are_computed_once_for_every_order_of_the_letters() {
    let dir = temp_dir("serve-stats-once");
    api_check::generate_one::<Chess>(&dir, "KRvK");
    let addr = start_on(&dir, &[]).await.unwrap();
    let (status, first) = get(addr, "/api/chess/stats/KRvK").await;
    assert_eq!(status, 200, "{first}");
    // The table damaged on disk: the statistics already computed are answered again for the
    // same table named another way, which reads nothing.
    let path = dir.join("chess/KRvK.egtb");
    let bytes = std::fs::metadata(&path).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(bytes / 2)
        .unwrap();
    let (status, again) = get(addr, "/api/chess/stats/RKvK").await;
    assert_eq!((status, &again), (200, &first));
    // The sides swapped are another answer, computed from the damaged table: a 500 naming it.
    let (status, swapped) = get(addr, "/api/chess/stats/KvKR").await;
    assert_eq!(status, 500, "{swapped}");
    let error = swapped["error"].as_str().unwrap();
    assert!(error.contains(&path.display().to_string()), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_folder_that_cannot_be_read_is_an_error_not_an_empty_listing() {
    let dir = temp_dir("serve-unreadable");
    // A file where the chess tables' folder should be: reading it as a folder fails.
    std::fs::write(dir.join("chess"), "").unwrap();
    let addr = start_on(&dir, &[]).await.unwrap();
    let (status, body) = get(addr, "/api/tables").await;
    assert_eq!(status, 500, "{body}");
    let error = body["error"].as_str().unwrap();
    assert!(error.contains("cannot read the folder"), "{error}");
    assert!(error.contains(&dir.join("chess").display().to_string()), "{error}");
}

/// A file under another table's name, one of another index than this build's, or one that is
/// no table, is left out of the listing, as `egtb list` marks each bad: the page offers only
/// tables it can read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_listing_leaves_out_files_that_are_not_the_table_their_name_says() {
    let dir = temp_dir("serve-misplaced");
    succeeds(&dir, &["generate", "chess", "KRvK", "--backend", "cpu"]);
    std::fs::copy(dir.join("chess/KRvK.egtb"), dir.join("chess/KQvKR.egtb")).unwrap();
    std::fs::write(dir.join("chess/KQvK.egtb"), "not a table").unwrap();
    // A whole table in its place, but of another index than this build's: refused too.
    let older = dir.join("chess/KRvKR.egtb");
    succeeds(&dir, &["generate", "chess", "KRvKR", "--backend", "cpu"]);
    let header = egtb::table::Table::open_unchecked(&older).unwrap().header;
    let entries = egtb::table::Table::open_unchecked(&older)
        .unwrap()
        .load()
        .unwrap()
        .entries()
        .to_vec();
    let header = egtb::table::Header {
        index_version: header.index_version + 1,
        ..header
    };
    egtb::table::write(&older, header, &entries, &egtb::solver::Silent).unwrap();
    let addr = start_on(&dir, &[]).await.unwrap();
    let (status, body) = get(addr, "/api/tables").await;
    assert_eq!(status, 200, "{body}");
    let materials: Vec<&str> = body["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["material"].as_str().unwrap())
        .collect();
    assert_eq!(materials, ["KRvK", "KvK"], "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_method_than_get_gets_405_with_a_reason() {
    let addr = start().await;
    for (method, path) in [
        ("POST", "/api/chess?fen=8/8/8/4k3/8/8/8/R3K3%20w"),
        ("DELETE", "/api/tables"),
    ] {
        let (status, body) = send(addr, method, path).await;
        assert_eq!(status, 405, "{method} {path}: {body}");
        let error = body["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{method} {path}: {body}"));
        assert!(error.contains(method) && error.contains("GET"), "{error}");
    }
}

/// Asks for a random position and checks that it has the material, side to move and outcome
/// asked for, by the prober; returns its FEN.
async fn random_checked<G: Game>(addr: SocketAddr, material: &str, side: &str, outcome: &str) -> String {
    let path = format!("/api/{}/random/{material}?side={side}&outcome={outcome}", G::ID.name());
    let (status, body) = get(addr, &path).await;
    assert_eq!(status, 200, "{path}: {body}");
    let fen = body["fen"].as_str().unwrap();
    let position = G::parse_position(fen).unwrap();
    assert_eq!(G::material_of(&position).to_string(), material, "{path}: {fen}");
    assert_eq!(G::ID.side_name(G::side_to_move(&position)), side, "{path}: {fen}");
    let value = Prober::<G>::new(tables(), Default::default()).value(&position).unwrap();
    assert_eq!(value.outcome(), outcome, "{path}: {fen}");
    assert_eq!(body["category"], outcome, "{path}: {fen}");
    fen.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_positions_have_the_material_side_and_outcome_asked_for() {
    let addr = start().await;
    for (material, side, outcome) in [
        ("KRvK", "white", "win"),
        ("KRvK", "black", "loss"),
        ("KRvK", "black", "draw"),
        ("KvKR", "black", "win"),
        ("KvKQ", "white", "draw"),
    ] {
        let mut fens = std::collections::HashSet::new();
        for _ in 0..8 {
            fens.insert(random_checked::<Chess>(addr, material, side, outcome).await);
        }
        assert!(fens.len() > 1, "{material} {side} {outcome}: always {fens:?}");
    }
    random_checked::<Xiangqi>(addr, "KRvK", "black", "loss").await;
    random_checked::<DarkChess>(addr, "KAvK", "red", "win").await;
    // The defaults: the first side to move, winning.
    let (status, body) = get(addr, "/api/chess/random/KQvK").await;
    assert_eq!(
        (status, &body["side_to_move"], &body["category"]),
        (200, &json!("white"), &json!("win"))
    );
    // No such position: a queen never fails to win with white to move.
    let (status, body) = get(addr, "/api/chess/random/KQvK?outcome=draw").await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["error"], "chess KQvK has no position where white to move draws");
}

/// The options `/api/games` offers for `game`: (name, values, default) each.
fn offered(games: &Json, game: GameId) -> Vec<(String, Vec<String>, String)> {
    let entry = games["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["game"] == game.name());
    let text = |v: &Json| v.as_str().unwrap().to_string();
    entry.unwrap_or_else(|| panic!("{game} missing: {games}"))["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let values = o["values"].as_array().unwrap().iter().map(text).collect();
            (text(&o["name"]), values, text(&o["default"]))
        })
        .collect()
}

/// What `/api/games` must offer for game `G` when its rules default to `defaults`.
fn expected_offer<G: Game>(defaults: G::Rules) -> Vec<(String, Vec<String>, String)> {
    G::Rules::OPTIONS
        .iter()
        .zip(defaults.options())
        .map(|(o, (_, default))| {
            let values = o.values.iter().map(|v| v.to_string()).collect();
            (o.name.to_string(), values, default.to_string())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rule_options_are_offered_with_the_servers_defaults_which_are_checked_at_start() {
    let (status, games) = get(start().await, "/api/games").await;
    assert_eq!(status, 200, "{games}");
    assert_eq!(offered(&games, GameId::Chess), []);
    assert_eq!(
        offered(&games, GameId::Xiangqi),
        expected_offer::<Xiangqi>(XiangqiRules::default())
    );
    assert_eq!(
        offered(&games, GameId::DarkChess),
        expected_offer::<DarkChess>(DarkChessRules::default())
    );

    let addr = start_with(&[("rules", "asian"), ("cannon", "step")]).await.unwrap();
    let (status, games) = get(addr, "/api/games").await;
    assert_eq!(status, 200, "{games}");
    assert_eq!(offered(&games, GameId::Xiangqi), expected_offer::<Xiangqi>(ASIAN));
    let step = DarkChessRules {
        cannon: Cannon::Step,
        ..DarkChessRules::default()
    };
    assert_eq!(offered(&games, GameId::DarkChess), expected_offer::<DarkChess>(step));

    for (defaults, reason) in [
        (("rules", "fly"), "xiangqi option rules=fly: expected draw or asian"),
        (("gravity", "on"), "no game has a rule option 'gravity'"),
    ] {
        let err = start_with(&[defaults]).await.unwrap_err();
        assert!(format!("{err:#}").contains(reason), "{err:#}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_position_answer_names_the_ruling_its_result_rests_on() {
    let addr = start_with(&[("rules", "asian")]).await.unwrap();
    let mut prober = Prober::<Xiangqi>::new(tables(), ASIAN);
    for fen in [PERPETUAL_CHECK, BEFORE_PERPETUAL_CHECK] {
        let (status, answer) = get(addr, &format!("/api/xiangqi?fen={}", fen.replace(' ', "%20"))).await;
        assert_eq!(status, 200, "{answer}");
        let position = Xiangqi::parse_position(fen).unwrap();
        let end = prober.ruled_end(&position).unwrap().expect("a ruled line");
        let ruling = &answer["ruling"];
        assert_eq!(ruling["position"], Xiangqi::format_position(&end.position), "{fen}");
        assert_eq!(ruling["reason"], end.ruling.reason.name(), "{fen}");
        assert_eq!(ruling["order"], end.ruling.order, "{fen}");
        assert!(answer["verdict"].as_str().unwrap().contains("by the rules"), "{answer}");
    }
    let (_, plain) = get(addr, "/api/chess?fen=8/8/8/4k3/8/8/8/R3K3%20w").await;
    assert_eq!(plain["ruling"], Json::Null, "{plain}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_400_or_404_with_a_reason_never_500() {
    let addr = start().await;
    let long = "8".repeat(500);
    let cases: Vec<(String, u16, &str)> = vec![
        ("/api/chess".into(), 400, "missing parameter 'fen'"),
        (
            "/api/chess?fen=garbage".into(),
            400,
            "expected 8 ranks separated by '/', found 1",
        ),
        ("/api/chess?fen=8/8/8/4k3/8/8/8/B3K3%20w".into(), 400, "in check"),
        (
            "/api/chess?fen=8/8/8/4k3/8/8/8/RR2K3%20w".into(),
            404,
            "egtb generate chess KRRvK",
        ),
        (
            "/api/chess?fen=8/8/8/4k3/8/8/8/R3K3%20w&cannon=step".into(),
            400,
            "cannon",
        ),
        (
            "/api/chess?fen=8/8/8/4k3/8/8/8/R3K3%20w&colour=blue".into(),
            400,
            "unknown parameter",
        ),
        (format!("/api/chess?fen={long}"), 400, "longer than"),
        ("/api/chess?fen=%FF%FE".into(), 400, "found 1"),
        ("/api/go?fen=x".into(), 404, "unknown game"),
        (
            "/api/darkchess?fen=k7/8/8/6AK%20w&cannon=step".into(),
            404,
            "--cannon step",
        ),
        (
            "/api/darkchess?fen=k7/8/8/6AK%20w&stalemate=maybe".into(),
            400,
            "stalemate",
        ),
        (
            "/api/xiangqi?fen=4k4/9/9/9/9/9/9/9/9/4K4%20w".into(),
            400,
            "the kings face each other",
        ),
        (
            "/api/xiangqi?fen=9/9/9/9/9/9/9/9/9/9%20w".into(),
            400,
            "red must have exactly one king",
        ),
        ("/api/chess/stats/KXvK".into(), 400, "'X'"),
        ("/api/chess/stats/KQ%0AvK".into(), 400, "'KQ\\nvK'"),
        (
            "/api/chess/stats/KQQQQQvK".into(),
            400,
            "has 7 pieces; chess tables support at most 6",
        ),
        ("/api/chess/stats/KBBvK".into(), 404, "egtb generate chess KBBvK"),
        ("/api/chess/mainline?fen=8/8/8/8/8/8/8/8%20w".into(), 400, "king"),
        (
            "/api/chess/random/KRvK?outcome=tie".into(),
            400,
            "unknown outcome 'tie'",
        ),
        ("/api/chess/random/KRvK?side=red".into(), 400, "unknown side 'red'"),
        ("/api/chess/random/KRvK?fen=x".into(), 400, "takes no 'fen'"),
        ("/api/chess/random/KBBvK".into(), 404, "egtb generate chess KBBvK"),
        (
            "/api/chess?fen=8/8/8/4k3/8/8/8/R3K3%20w&side=white".into(),
            400,
            "choose a random position",
        ),
        (
            "/api/chess/stats/KRvK?outcome=win".into(),
            400,
            "choose a random position",
        ),
        ("/no/such/page".into(), 404, "no such page"),
        ("/api/chess/stats".into(), 404, "no such page"),
        // Segments that are not text get JSON like every other error.
        ("/api/chess/stats/%FF".into(), 400, "Invalid UTF-8"),
        ("/api/%FF?fen=x".into(), 400, "Invalid UTF-8"),
        ("/api/tables?fen=x".into(), 400, "takes no parameters"),
        ("/api/games?x".into(), 400, "takes no parameters"),
    ];
    for (path, status, reason) in cases {
        let (got, body) = get(addr, &path).await;
        assert_eq!(got, status, "{path}: {body}");
        let error = body["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{path}: no error in {body}"));
        assert!(error.contains(reason), "{path}: '{error}' does not mention '{reason}'");
        assert!(
            !error.chars().any(char::is_control),
            "{path}: '{error}' is not one line"
        );
    }
}

/// One request with the Host header `host` over a fresh connection, closed after the answer:
/// the whole answer, head and body.
async fn with_host(addr: SocketAddr, path: &str, host: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loopback_server_answers_loopback_names_only_and_marks_its_answers() {
    let addr = start().await;
    let port = addr.port();
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        "[::1]".into(),
        "LOCALHOST".into(),
    ] {
        let answer = with_host(addr, "/api/games", &host).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{host}: {answer}");
    }
    // A page elsewhere that had its own name point at this machine (DNS rebinding).
    for host in [
        "attacker.example",
        "attacker.example:8080",
        "127.0.0.1.attacker.example",
    ] {
        let answer = with_host(addr, "/api/tables", host).await;
        assert!(answer.starts_with("HTTP/1.1 403"), "{host}: {answer}");
        assert!(answer.contains("answers localhost only"), "{answer}");
        assert!(
            !answer.contains(&*tables().to_string_lossy()),
            "no folder told: {answer}"
        );
    }
    let page = with_host(addr, "/", "localhost").await.to_lowercase();
    assert!(page.contains("x-content-type-options: nosniff"), "{page}");
    assert!(page.contains("content-security-policy: default-src 'self'"), "{page}");
    assert!(page.contains("frame-ancestors 'none'"), "{page}");

    // Bound to every address, the server answers any name.
    let options = egtb::serve::ServeOptions {
        tables: tables().to_path_buf(),
        bind: "0.0.0.0".parse().unwrap(),
        port: 0,
        defaults: Vec::new(),
        allowed_hosts: Vec::new(),
    };
    let open = {
        let _ports = PORTS.lock().await;
        egtb::serve::spawn(&options).await.unwrap()
    };
    let local = SocketAddr::from(([127, 0, 0, 1], open.port()));
    let answer = with_host(local, "/api/games", "egtb.example").await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

// ----- the command -----------------------------------------------------------------------

/// The lines a process prints on its stdout.
fn printed(process: &mut KillOnDrop) -> Receiver<String> {
    lines_of(process.0.stdout.take().unwrap())
}

/// The next line printed, failing after 30 seconds without one.
fn next_line(lines: &Receiver<String>) -> String {
    lines
        .recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("no line from egtb serve: {e}"))
}

/// Starts `egtb serve` on the tables in `dir`, its output piped, killed when dropped.
fn serve_process(dir: &Path, args: &[&str]) -> KillOnDrop {
    KillOnDrop(egtb_command(dir, args).stderr(Stdio::null()).spawn().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_prints_its_address_and_answers_there() {
    for json in [false, true] {
        // localhost names the loopback address.
        let args: &[&str] = if json {
            &["--json", "serve", "--port", "0", "--bind", "localhost"]
        } else {
            &["serve", "--port", "0"]
        };
        let ports = PORTS.lock().await;
        let mut server = serve_process(tables(), args);
        let line = next_line(&printed(&mut server));
        drop(ports);
        let url = match json {
            true => {
                let printed: Json = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
                assert_eq!(printed["tables_dir"], tables().display().to_string(), "{line}");
                let url = printed["url"].as_str().unwrap().to_string();
                assert!(url.starts_with("http://127.0.0.1:"), "{line}");
                url
            }
            false => line
                .split_whitespace()
                .find(|w| w.starts_with("http://127.0.0.1:"))
                .unwrap_or_else(|| panic!("{line}"))
                .to_string(),
        };
        let addr: SocketAddr = url.trim_start_matches("http://").trim_end_matches('/').parse().unwrap();
        let (status, listing) = get(addr, "/api/tables").await;
        assert_eq!(status, 200, "{args:?}");
        assert!(!listing["tables"].as_array().unwrap().is_empty(), "{args:?}");
        let option = format!("--tables {}", tables().display());
        assert_eq!(listing["tables_option"], option.as_str(), "{args:?}");
    }

    // A folder without tables, named relative to the working folder: the page would only name
    // missing tables, so a note before the address says so, and both name the folder in full,
    // as the commands they suggest need it wherever they are run.
    let empty = temp_dir("serve-empty");
    let ports = PORTS.lock().await;
    let relative = Path::new(empty.file_name().unwrap());
    let mut command = egtb_command(relative, &["serve", "--port", "0"]);
    let mut server = KillOnDrop(
        command
            .current_dir(empty.parent().unwrap())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let lines = printed(&mut server);
    let note = next_line(&lines);
    assert!(
        note.starts_with("note: ") && note.contains("holds no tables yet; build some with egtb generate"),
        "{note}"
    );
    assert!(note.contains(&format!("--tables {}", empty.display())), "{note}");
    let address = next_line(&lines);
    drop(ports);
    let serving = format!("egtb: serving the tables in {} at ", empty.display());
    assert!(address.starts_with(&serving), "{address}");
}

/// Runs `egtb` on the tables in `dir` expecting it to stop, as a refused `serve` does; fails
/// if it runs on for 30 seconds (serving, where it should have refused).
fn stops(dir: &Path, args: &[&str]) -> Output {
    let mut process = KillOnDrop(egtb_command(dir, args).spawn().unwrap());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = process.0.try_wait().unwrap() {
            break status;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{args:?} still runs");
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut output = Output {
        status,
        stdout: Vec::new(),
        stderr: Vec::new(),
    };
    process
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut output.stdout)
        .unwrap();
    process
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut output.stderr)
        .unwrap();
    output
}

#[test]
fn serve_refuses_a_bad_address_and_a_folder_it_cannot_read_with_one_line() {
    let args = ["serve", "--bind", "not-an-address"];
    failed(egtb(tables(), &args), &args);
    // A file where the chess tables' folder should be, as `egtb list` refuses it.
    let dir = temp_dir("serve-unreadable-folder");
    std::fs::write(dir.join("chess"), "").unwrap();
    let args = ["serve", "--port", "0"];
    let error = failed(stops(&dir, &args), &args);
    assert!(error.contains("is a file, not the folder of chess tables"), "{error}");
}
