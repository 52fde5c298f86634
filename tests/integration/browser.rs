//! The board's page that `egtb serve` serves, in headless Chromium driven over WebDriver: moves
//! and colours as the table says, a move played by clicking or from the keyboard, play mode's
//! answer and its Back, a promotion chosen, the rulings of the Asian rules, the statistics (a
//! longest win opened, the layout on a desktop and a phone), a random position to practise, the
//! editor (from the keyboard too), answers arriving late for another game or request dropped,
//! and errors said in words. Screenshots go to `target/screenshots/`: each game's board, a
//! ruling announced and a game it ended, the practice, the choice of a promotion, the statistics
//! at three widths, the play tab and the note that the answers are hidden.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use egtb::commands::query::move_number;
use egtb::counted::grouped;
use egtb::games::Game;
use egtb::games::chess::Chess;
use egtb::games::darkchess::DarkChess;
use egtb::games::ending::{Ending, ending};
use egtb::games::xiangqi::Xiangqi;
use egtb::probe::Prober;
use egtb::value::Value;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value as Json, json};

use crate::support::served::{BEFORE_PERPETUAL_CHECK, PERPETUAL_CHECK, start, start_with, tables};
use crate::support::{KillOnDrop, PORTS, TempDir, find_program, free_ports, required, succeeds, temp_dir};

/// A chromedriver process, ended when dropped, and its address.
struct Driver {
    _process: KillOnDrop,
    url: String,
}

/// Starts chromedriver on a free port, or says why not.
async fn start_driver() -> Result<(Driver, PathBuf), String> {
    let browser = find_program(&["chromium", "chromium-browser", "google-chrome"]).ok_or("no chromium on PATH")?;
    let driver = find_program(&["chromedriver"]).ok_or("no chromedriver on PATH")?;
    let _ports = PORTS.lock().await;
    let [port] = free_ports();
    let child = Command::new(driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start chromedriver: {e}"))?;
    let driver = Driver {
        _process: KillOnDrop(child),
        url: format!("http://127.0.0.1:{port}"),
    };
    let start = Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        if start.elapsed() > Duration::from_secs(20) {
            return Err("chromedriver did not start listening".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok((driver, browser))
}

/// Opens a session of the headless browser through the driver, its profile in `profile`.
async fn connect(driver: &Driver, browser: &Path, profile: &Path) -> Client {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1200,820",
        &format!("--user-data-dir={}", profile.display()),
    ];
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".into(),
        json!({ "args": args, "binary": browser.display().to_string() }),
    );
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(&driver.url)
        .await
        .expect("chromedriver refused a session")
}

/// Runs a script in the page and returns its value.
async fn eval(client: &Client, script: &str) -> Json {
    client.execute(script, vec![]).await.unwrap()
}

/// Waits until a script returns true, failing with `what` after 20 seconds.
async fn wait_until(client: &Client, script: &str, what: &str) {
    let start = Instant::now();
    loop {
        if eval(client, script).await == json!(true) {
            return;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let error = eval(client, "return document.getElementById('error').textContent").await;
            panic!("timed out waiting for {what} (page error: {error})");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The position in the FEN box.
async fn fen_shown(client: &Client) -> String {
    eval(client, "return document.getElementById('fen').value")
        .await
        .as_str()
        .unwrap()
        .to_string()
}

/// Saves what the browser shows as `target/screenshots/{name}.png`.
async fn save_screenshot(client: &Client, name: &str) {
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    std::fs::write(shots.join(format!("{name}.png")), client.screenshot().await.unwrap()).unwrap();
}

/// Clicks the element a locator finds.
async fn click(client: &Client, locator: Locator<'_>) {
    client.find(locator).await.unwrap().click().await.unwrap();
}

/// Types a position into the FEN box and submits it.
async fn submit_fen(client: &Client, fen: &str) {
    let input = client.find(Locator::Id("fen")).await.unwrap();
    input.clear().await.unwrap();
    input.send_keys(fen).await.unwrap();
    click(client, Locator::Css("#fen-form button")).await;
}

/// Loads a position through the FEN box and waits for its analysis.
async fn enter_fen(client: &Client, fen: &str) {
    submit_fen(client, fen).await;
    wait_for_analysis(client, fen).await;
}

/// Waits until the page shows the analysis of a position.
async fn wait_for_analysis(client: &Client, fen: &str) {
    let script = format!(
        "return document.getElementById('fen').value === {fen:?} && document.getElementById('verdict').textContent !== ''"
    );
    wait_until(client, &script, &format!("the analysis of {fen}")).await;
}

/// The position the chess board opens on (KRvK, white to move).
const CHESS_OPENING: &str = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";

/// Opens the page at `query` (what follows `?` in its address) and waits for the analysis of
/// the position it then shows, `shown`.
async fn open_at(client: &Client, base: &str, query: &str, shown: &str) {
    client.goto(&format!("{base}?{query}")).await.unwrap();
    wait_for_analysis(client, shown).await;
}

/// Opens the page on `fen` of `game` by a link, and waits for its analysis.
async fn open_fen(client: &Client, base: &str, game: &str, fen: &str) {
    let query = format!("game={game}&fen={}", fen.replace(' ', "%20"));
    open_at(client, base, &query, fen).await;
}

/// Opens the chess board and waits for the analysis of the position it opens on.
async fn open_chess(client: &Client, base: &str) {
    open_at(client, base, "game=chess", CHESS_OPENING).await;
}

/// The moves listed (coordinates and the mover's outcome) and the arrows drawn.
async fn listed_moves(client: &Client) -> (Vec<(String, String)>, Vec<(String, String)>) {
    let rows = eval(
        client,
        "return [...document.querySelectorAll('#moves tr')].map(r => [r.dataset.uci, r.dataset.category])",
    )
    .await;
    let arrows = eval(
        client,
        "return [...document.querySelectorAll('#arrows line')].map(l => [l.dataset.uci, l.classList[1]])",
    )
    .await;
    let pairs = |v: Json| -> Vec<(String, String)> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_str().unwrap().to_string()))
            .collect()
    };
    (pairs(rows), pairs(arrows))
}

/// Clicks a square, then another: a move played on the board.
async fn click_move(client: &Client, uci: &str) {
    for square in [&uci[0..2], &uci[2..4]] {
        click(client, Locator::Id(&format!("sq-{square}"))).await;
    }
}

/// The page for one game: listed moves and arrows as the prober says, a move by clicking, the
/// table's answer in play mode, and a screenshot.
async fn check_game<G: Game>(client: &Client, base: &str, fen: &str) {
    client.goto(&format!("{base}?game={}", G::ID.name())).await.unwrap();
    enter_fen(client, fen).await;
    let mut prober = Prober::<G>::new(tables(), Default::default());
    let position = G::parse_position(fen).unwrap();
    // The position as the page writes it, with its clocks, which its moves carry on.
    let shown = played::<G>(fen, &[]);
    let moves = prober.moves(&position).unwrap();
    let expected: Vec<(String, String)> = moves
        .iter()
        .map(|m| (m.coords.clone(), m.value.outcome().to_string()))
        .collect();
    let (rows, mut arrows) = listed_moves(client).await;
    assert_eq!(rows, expected, "{}: listed moves", G::ID);
    arrows.reverse();
    assert_eq!(arrows, expected, "{}: arrows", G::ID);
    let colour = eval(
        client,
        "return getComputedStyle(document.querySelector('#moves tr.win')).color",
    )
    .await;
    assert_eq!(colour, "rgb(35, 122, 46)", "{}: a winning move is green", G::ID);
    check_best_line::<G>(client, &mut prober, fen).await;

    eval(
        client,
        "document.activeElement.blur(); window.scrollTo(0, 0); return true",
    )
    .await;
    save_screenshot(client, G::ID.name()).await;

    // A move played by clicking its two squares.
    let best = &moves[0];
    click_move(client, &best.coords).await;
    let after = played::<G>(fen, &[&best.coords]);
    wait_for_analysis(client, &after).await;
    click(client, Locator::Id("back")).await;
    wait_for_analysis(client, &shown).await;
    // The arrow keys step through the moves too, but not while the position box is being edited.
    let key = |target: &str, key: &str| {
        format!("{target}.dispatchEvent(new KeyboardEvent('keydown', {{key: '{key}', bubbles: true}})); return true")
    };
    eval(client, &key("document.getElementById('fen')", "ArrowRight")).await;
    assert_eq!(fen_shown(client).await, shown, "{}", G::ID);
    eval(client, &key("document.body", "ArrowRight")).await;
    wait_for_analysis(client, &after).await;
    eval(client, &key("document.body", "ArrowLeft")).await;
    wait_for_analysis(client, &shown).await;
    // A listed move is played from the keyboard: Enter on its row (WebDriver's Enter key).
    let row = format!("#moves tr[data-uci='{}']", best.coords);
    let row = client.find(Locator::Css(&row)).await.unwrap();
    row.send_keys("\u{E007}").await.unwrap();
    wait_for_analysis(client, &after).await;
    click(client, Locator::Id("back")).await;
    wait_for_analysis(client, &shown).await;

    // Play mode: the person takes the side to move, the table answers with its best move.
    play_as(client, G::side_to_move(&position).index()).await;
    wait_for_analysis(client, fen).await;
    let hidden = eval(client, "return document.body.classList.contains('hidden-answers')").await;
    assert_eq!(hidden, json!(true), "{}: answers hidden in play mode", G::ID);
    let mine = moves.last().unwrap();
    click_move(client, &mine.coords).await;
    let child = G::play(&position, mine.mv);
    let replies = prober.moves(&child).unwrap();
    let expected_fen = match replies.first() {
        Some(reply) if prober.value(&child).unwrap().dtm().is_some() => {
            played::<G>(fen, &[&mine.coords, &reply.coords])
        }
        _ => played::<G>(fen, &[&mine.coords]),
    };
    wait_for_analysis(client, &expected_fen).await;
    click(client, Locator::Id("play-stop")).await;
    click(client, Locator::Css("#tabs button[data-tab=analysis]")).await;
}

/// Chooses `value` in the menu with id `id`.
async fn choose(client: &Client, id: &str, value: &str) {
    let menu = client.find(Locator::Id(id)).await.unwrap();
    menu.select_by_value(value).await.unwrap();
}

/// Starts play mode with the person on `side` (0 the first side).
async fn play_as(client: &Client, side: usize) {
    click(client, Locator::Css("#tabs button[data-tab=play]")).await;
    choose(client, "play-side", &side.to_string()).await;
    click(client, Locator::Id("play-start")).await;
}

/// Opens the statistics tab and shows a material's, once the server lists its table.
async fn show_stats(client: &Client, material: &str) {
    click(client, Locator::Css("#tabs button[data-tab=stats]")).await;
    let listed =
        format!("return [...document.querySelectorAll('#stats-material option')].some(o => o.value === '{material}')");
    wait_until(client, &listed, &format!("{material} among the materials")).await;
    choose(client, "stats-material", material).await;
    click(client, Locator::Id("stats-show")).await;
}

/// The best line from `fen` reads as a game score, numbered as `egtb line` numbers it from the
/// position's move number ("40." opens the first side's move, "40..." a line the second side
/// starts), and a move clicked shows its position with the clocks run on.
async fn check_best_line<G: Game>(client: &Client, prober: &mut Prober<G>, fen: &str) {
    let (position, clocks) = G::parse_position_with_clocks(fen).unwrap();
    let position = &position;
    let line = prober.line(position).unwrap();
    let starter = G::side_to_move(position);
    let mut expected = Vec::new();
    for (ply, (m, _)) in line.iter().enumerate() {
        // The score numbers the first side's moves, and the first move whoever makes it.
        let (number, dots) = move_number(starter, clocks.fullmove, ply);
        if dots == "." || ply == 0 {
            expected.push(format!("{number}{dots}"));
        }
        expected.push(m.name.clone());
    }
    // After the moves, how the game ends: "(stalemate: red wins)".
    let last = line.iter().fold(position.clone(), |at, (m, _)| G::play(&at, m.mv));
    let winner = prober
        .value(position)
        .unwrap()
        .winner(starter)
        .map(|side| G::ID.side_name(side));
    if let (Some(end), Some(winner)) = (ending::<G>(&last, prober.rules()), winner) {
        let how = match end {
            Ending::Checkmate => "checkmate",
            Ending::Stalemate => "stalemate",
            Ending::NoPieces => "no pieces left",
        };
        expected.extend(format!("({how}: {winner} wins)").split_whitespace().map(String::from));
    }
    let script = format!(
        "const steps = document.querySelectorAll('#line .line-step'); \
         return steps.length === {} && steps[0].textContent === {:?}",
        line.len(),
        line[0].0.name
    );
    wait_until(client, &script, "the best line").await;
    let shown = eval(client, "return document.getElementById('line').textContent").await;
    let shown: Vec<&str> = shown.as_str().unwrap().split_whitespace().collect();
    assert_eq!(shown, expected, "{}: the best line", G::ID);

    let second = line.len().min(2);
    let coords: Vec<&str> = line[..second].iter().map(|(m, _)| m.coords.as_str()).collect();
    eval(
        client,
        &format!(
            "document.querySelectorAll('#line .line-step')[{}].click(); return true",
            second - 1
        ),
    )
    .await;
    wait_for_analysis(client, &played::<G>(fen, &coords)).await;
    enter_fen(client, &played::<G>(fen, &[])).await;
}

/// What a browser session needs as long as it runs: the driver and the browser's profile folder.
struct Running {
    _driver: Driver,
    _profile: TempDir,
}

/// Starts a server and a headless browser: the session, the server's address and what must
/// outlive the session; or `None` (with a note) where the browser cannot run and
/// `EGTB_REQUIRE_BROWSER=1` does not ask for it.
async fn browser() -> Option<(Client, String, Running)> {
    let (driver, program) = match start_driver().await {
        Ok(found) => found,
        Err(why) if required("EGTB_REQUIRE_BROWSER") => {
            panic!("EGTB_REQUIRE_BROWSER=1 but the browser cannot run: {why}")
        }
        Err(why) => {
            eprintln!("note: browser test skipped ({why}); apt-get install chromium chromium-driver");
            return None;
        }
    };
    let base = egtb::serve::url(start().await);
    let profile = temp_dir("serve-chromium");
    let client = connect(&driver, &program, &profile).await;
    let running = Running {
        _driver: driver,
        _profile: profile,
    };
    Some((client, base, running))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_and_plays_every_game_in_headless_chromium() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };

    check_game::<Chess>(&client, &base, "8/8/8/3k4/8/8/8/4K1Q1 w - - 0 1").await;
    // A position given with clocks: its line numbers from move 12, its moves run them on.
    check_game::<Xiangqi>(&client, &base, "3k5/9/9/9/9/9/9/9/4R4/5K3 w - - 3 12").await;
    check_game::<DarkChess>(&client, &base, "k7/8/8/6AK w").await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coordinates_stay_in_view_beside_pieces_on_the_boards_edges() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };

    // The coordinates stay in view beside pieces on the board's edges, the board either way up.
    let edges = [
        ("chess", "6k1/8/8/8/8/8/8/Q3K3 w - - 0 1"),
        ("xiangqi", "5k3/9/9/9/9/9/9/9/9/R2K5 w - - 0 1"),
        ("darkchess", "7k/8/8/AK6 w"),
    ];
    let covered = "const box = e => e.getBoundingClientRect(); \
                   const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom; \
                   const pieces = [...document.querySelectorAll('#board .piece')].map(box); \
                   return [...document.querySelectorAll('#board .coordinate')] \
                       .filter(label => pieces.some(p => meets(box(label), p))) \
                       .map(label => label.textContent).join(' ')";
    for (game, fen) in edges {
        client.goto(&format!("{base}?game={game}")).await.unwrap();
        enter_fen(&client, fen).await;
        for turn in ["as set up", "flipped"] {
            assert_eq!(
                eval(&client, covered).await,
                "",
                "{game} {turn}: coordinates under pieces"
            );
            click(&client, Locator::Id("flip")).await;
        }
    }

    // Xiangqi's files carry WXF's numbers as well, each side's counted from its right: black's
    // above the board, red's below the letters (a is red's 9), and the other way when flipped.
    client.goto(&format!("{base}?game=xiangqi")).await.unwrap();
    let numbered = "const at = t => [+t.getAttribute('y'), +t.getAttribute('x'), t.textContent]; \
                    const labels = [...document.querySelectorAll('#board .coordinate')].map(at) \
                        .filter(([y]) => y < 40 || y > 620).sort((a, b) => a[0] - b[0] || a[1] - b[1]); \
                    const rows = new Map(); \
                    for (const [y, x, text] of labels) rows.set(y, (rows.get(y) || '') + text); \
                    return [...rows.values()].join(' ')";
    for expected in ["123456789 abcdefghi 987654321", "123456789 ihgfedcba 987654321"] {
        assert_eq!(eval(&client, numbered).await, expected);
        click(&client, Locator::Id("flip")).await;
    }
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_under_the_asian_rules_offers_both_rulesets_and_ends_a_game_at_a_ruling() {
    let Some((client, _base, _running)) = browser().await else {
        return;
    };

    // A server whose default is the Asian rules: the page offers both rulesets, starts on the
    // server's and reads the table built under it.
    let asian = egtb::serve::url(start_with(&[("rules", "asian")]).await.unwrap());
    client.goto(&format!("{asian}?game=xiangqi")).await.unwrap();
    let xiangqi = "3k5/9/9/9/9/9/9/9/4R4/5K3 w - - 0 1";
    enter_fen(&client, xiangqi).await;
    let choice = "const s = document.getElementById('option-rules'); \
                  return s.value + ': ' + [...s.options].map(o => o.value).join(' ')";
    assert_eq!(eval(&client, choice).await, "asian: draw asian");
    assert_eq!(
        eval(&client, "return document.getElementById('error').hidden").await,
        json!(true)
    );
    let address = eval(&client, "return location.search").await;
    assert!(address.as_str().unwrap().contains("rules=asian"), "{address}");
    // Played against the table, red reaches a position black has lost by the rules: the game is
    // announced over there and the table stops.
    enter_fen(&client, BEFORE_PERPETUAL_CHECK).await;
    play_as(&client, 1).await;
    // Red's move, not a capture, runs the halfmove clock on.
    wait_for_analysis(&client, &PERPETUAL_CHECK.replace(" 0 1", " 1 1")).await;
    wait_until(
        &client,
        "return document.getElementById('announce').textContent === \
         'Game over: Black has lost by the rules (perpetual check, order 1). Red wins.'",
        "the ruling announced",
    )
    .await;
    let status = eval(&client, "return document.getElementById('play-status').textContent").await;
    assert!(status.as_str().unwrap().starts_with("Game over"), "{status}");
    // Said once: the Play panel's status speaks, the banner under the board is silent.
    let live = "return document.getElementById('announce').getAttribute('aria-live')";
    assert_eq!(eval(&client, live).await, "off");
    // And shown once: the banner gives way to the open Play panel.
    let banner_shown = "return getComputedStyle(document.getElementById('announce')).display !== 'none'";
    assert_eq!(eval(&client, banner_shown).await, json!(false));
    click(&client, Locator::Css("#tabs button[data-tab=edit]")).await;
    assert_eq!(
        eval(&client, banner_shown).await,
        json!(true),
        "shown where the panel is closed"
    );
    click(&client, Locator::Css("#tabs button[data-tab=play]")).await;
    assert_eq!(eval(&client, banner_shown).await, json!(false));
    eval(&client, "window.scrollTo(0, 0); return true").await;
    save_screenshot(&client, "ruling").await;
    click(&client, Locator::Id("play-stop")).await;

    // The statistics count the positions lost by each ruling, as `egtb stats` does, and open an
    // example, which the analysis names as lost by the rules.
    show_stats(&client, "KRvKN").await;
    wait_until(
        &client,
        "return document.getElementById('stats-ruled') !== null",
        "the rulings",
    )
    .await;
    let args = ["--json", "--rules", "asian", "stats", "xiangqi", "KRvKN"];
    let stats: Json = serde_json::from_str(&succeeds(tables(), &args)).unwrap();
    let ruled = &stats["sides"]["black"]["ruled_lost"]["perpetual_check"];
    let count = ruled["count"].as_u64().unwrap();
    assert!(count > 0, "{stats}");
    let listed = eval(&client, "return document.getElementById('stats-ruled').textContent").await;
    let expected = format!("black to move, perpetual check: {} open an example", grouped(count));
    assert_eq!(listed, expected.as_str());
    click(&client, Locator::Css(".open-ruled")).await;
    wait_for_analysis(&client, ruled["position"].as_str().unwrap()).await;
    let verdict = eval(&client, "return document.getElementById('verdict').textContent").await;
    assert_eq!(
        verdict,
        "Black to move has lost by the rules: perpetual check (order 1)"
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_linked_short_fen_is_written_in_full_and_played_from() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    // A short FEN in a link is written in full once the server has read it, and the moves are
    // played from it.
    open_at(
        &client,
        &base,
        "game=chess&fen=8/8/8/4k3/8/8/8/R3K3%20w",
        "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
    )
    .await;
    click(&client, Locator::Id("suggest")).await;
    let played = "const fen = document.getElementById('fen').value; \
                  return fen.includes(' b - - ') && document.getElementById('verdict').textContent.startsWith('Black')";
    wait_until(&client, played, "the suggested move played from a short FEN").await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_statistics_and_the_practice_start_on_the_boards_material_not_the_first_listed() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    click(&client, Locator::Css("#tabs button[data-tab=stats]")).await;
    let chosen = "const [stats, practice] = ['stats-material', 'random-material'].map(id => document.getElementById(id)); \
                  return stats.options.length > 1 && stats.options[0].value !== 'KRvK' \
                      && stats.value === 'KRvK' && practice.value === 'KRvK'";
    wait_until(&client, chosen, "KRvK chosen among the materials").await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_longest_win_in_the_statistics_opens_on_the_board_with_its_dtm() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    // The longest win of KRvK, with how many positions have it, opens on the board with its DTM.
    show_stats(&client, "KRvK").await;
    wait_until(
        &client,
        "return document.querySelector('.open-longest') !== null",
        "the statistics",
    )
    .await;
    let button = client.find(Locator::Css(".open-longest")).await.unwrap();
    let label = button.text().await.unwrap();
    assert!(label.starts_with("31 plies (916 positions)"), "{label}");
    let fen = button.attr("data-fen").await.unwrap().unwrap();
    button.click().await.unwrap();
    wait_for_analysis(&client, &fen).await;
    let mut prober = Prober::<Chess>::new(tables(), Default::default());
    let plies = prober
        .value(&Chess::parse_position(&fen).unwrap())
        .unwrap()
        .dtm()
        .unwrap();
    let verdict = eval(&client, "return document.getElementById('verdict').textContent").await;
    assert!(
        verdict.as_str().unwrap().contains(&format!("({plies}\u{a0}plies)")),
        "{verdict}"
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn practice_loads_a_position_of_the_material_and_outcome_chosen_to_play_as_the_side_chosen() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    // A random KRvK position where black to move loses, to be played as black.
    click(&client, Locator::Css("#tabs button[data-tab=play]")).await;
    wait_until(
        &client,
        "return [...document.querySelectorAll('#random-material option')].some(o => o.value === 'KRvK')",
        "the practice's materials",
    )
    .await;
    for (id, value) in [
        ("random-material", "KRvK"),
        ("random-side", "1"),
        ("random-outcome", "loss"),
    ] {
        choose(&client, id, value).await;
    }
    click(&client, Locator::Id("random")).await;
    wait_until(
        &client,
        "return document.getElementById('random-status').textContent.startsWith('KRvK: Black to move loses.')",
        "the random position",
    )
    .await;
    let fen = fen_shown(&client).await;
    wait_for_analysis(&client, &fen).await;
    let mut prober = Prober::<Chess>::new(tables(), Default::default());
    let value = prober.value(&Chess::parse_position(&fen).unwrap()).unwrap();
    assert!(matches!(value, egtb::Value::Loss(_)), "{fen}: {value}");
    let verdict = eval(&client, "return document.getElementById('verdict').textContent").await;
    assert!(
        verdict.as_str().unwrap().starts_with("Black to move loses"),
        "{verdict}"
    );
    assert_eq!(
        eval(&client, "return document.getElementById('play-side').value").await,
        "1"
    );
    // The answers stay hidden, as in play, unless asked for: the position is for finding them.
    let answers_shown = "return getComputedStyle(document.getElementById('verdict')).display !== 'none' \
                         && !document.body.classList.contains('hidden-answers')";
    assert_eq!(eval(&client, answers_shown).await, json!(false));
    save_screenshot(&client, "practice").await;
    click(&client, Locator::Id("show-answers")).await;
    assert_eq!(eval(&client, answers_shown).await, json!(true));
    click(&client, Locator::Id("show-answers")).await;
    assert_eq!(eval(&client, answers_shown).await, json!(false));
    // Another position loaded shows its answers again.
    enter_fen(&client, "8/8/8/4k3/8/8/8/R3K3 w - - 0 1").await;
    assert_eq!(eval(&client, answers_shown).await, json!(true));
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_best_line_that_black_starts_opens_with_its_number_and_dots() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    // A line that black starts opens with "1...", or "40..." at move 40.
    let mut prober = Prober::<Chess>::new(tables(), Default::default());
    for black_starts in ["8/8/8/4k3/8/8/8/R3K3 b - - 0 1", "8/8/8/4k3/8/8/8/R3K3 b - - 17 40"] {
        enter_fen(&client, black_starts).await;
        check_best_line::<Chess>(&client, &mut prober, black_starts).await;
    }
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drawn_position_has_no_line_and_the_page_says_so_as_egtb_line_does() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    let rook_taken = "8/8/8/8/8/8/1k6/R3K3 b - - 0 1";
    let mut prober = Prober::<Chess>::new(tables(), Default::default());
    assert_eq!(
        prober.value(&Chess::parse_position(rook_taken).unwrap()).unwrap(),
        Value::Draw
    );
    enter_fen(&client, rook_taken).await;
    let no_line = "return document.getElementById('line').textContent === \
                   'No forced line: neither side can force the end of the game.'";
    wait_until(&client, no_line, "the draw's note in place of a line").await;
    let heading_shown = "return !document.getElementById('line-heading').hidden";
    assert_eq!(eval(&client, heading_shown).await, json!(true), "the draw's heading");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_illegal_position_is_explained_beside_the_board_with_the_servers_reason() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    // A best line's heading is shown, for the error to take away.
    let heading_shown = "return !document.getElementById('line-heading').hidden";
    assert_eq!(
        eval(&client, heading_shown).await,
        json!(true),
        "the best line's heading before the error"
    );
    enter_fen_expecting_error(&client, "8/8/8/4k3/8/8/8/B3K3 w - - 0 1", "in check").await;
    let beside = "const [error, board] = ['error', 'board'].map(id => document.getElementById(id).getBoundingClientRect()); \
                  return error.left >= board.right && error.top < board.bottom";
    assert_eq!(
        eval(&client, beside).await,
        json!(true),
        "the reason where the analysis goes, beside the board"
    );
    let heading_hidden = "return document.getElementById('line-heading').hidden";
    assert_eq!(
        eval(&client, heading_hidden).await,
        json!(true),
        "a best line over an error"
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editor_names_the_missing_tables_command_and_the_same_piece_again_removes_it() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    // A white queen placed on h7 makes KQRvK, whose missing table names the command that builds
    // it; the same piece again removes it.
    let start = CHESS_OPENING;
    open_chess(&client, &base).await;
    click(&client, Locator::Css("#tabs button[data-tab=edit]")).await;
    click(&client, Locator::Css("#palette button[data-piece=Q]")).await;
    click(&client, Locator::Id("sq-h7")).await;
    wait_until(
        &client,
        "return document.getElementById('error').textContent.includes('egtb generate chess KQRvK')",
        "the missing table's command",
    )
    .await;
    assert_eq!(fen_shown(&client).await, "8/7Q/8/4k3/8/8/8/R3K3 w - - 0 1");
    // A sentence, the command set apart on a line of its own, whole.
    let shown = eval(
        &client,
        "const box = document.getElementById('error'); \
         return [box.textContent, box.querySelector('code')?.textContent]",
    )
    .await;
    let (text, command) = (shown[0].as_str().unwrap(), shown[1].as_str().unwrap_or_default());
    assert!(text.starts_with("Table KQRvK not found at "), "{text}");
    assert!(
        command.starts_with("egtb generate chess KQRvK --tables ") && text.ends_with(&format!("with: {command}")),
        "{shown}"
    );
    save_screenshot(&client, "missing-table").await;
    click(&client, Locator::Id("sq-h7")).await;
    wait_for_analysis(&client, start).await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_promotion_is_chosen_queen_first_and_escape_gives_the_move_up() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    // A pawn reaching the last rank: the person picks the piece, queen first; Escape gives the
    // move up, and a knight chosen is the move played.
    let pawn = "8/4P3/8/8/8/2k5/8/K7 w - - 0 1";
    client.goto(&format!("{base}?game=chess")).await.unwrap();
    enter_fen(&client, pawn).await;
    let promotion_shown = "return !document.getElementById('promotion').hidden";
    click_move(&client, "e7e8").await;
    wait_until(&client, promotion_shown, "the choice of a promotion").await;
    let dispatched = "document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'})); return true";
    eval(&client, dispatched).await;
    assert_eq!(
        eval(&client, promotion_shown).await,
        json!(false),
        "Escape gives the move up"
    );
    assert_eq!(fen_shown(&client).await, pawn);
    click_move(&client, "e7e8").await;
    wait_until(&client, promotion_shown, "the choice of a promotion").await;
    let pieces = eval(
        &client,
        "return [...document.querySelectorAll('#promotion button')].map(b => b.dataset.promotion).join('')",
    )
    .await;
    assert_eq!(pieces, "qrbn");
    // White promotes: the pieces offered are drawn white, as on the board.
    let colours = eval(
        &client,
        "return [...document.querySelectorAll('#promotion .glyph')].map(g => getComputedStyle(g).color)",
    )
    .await;
    assert_eq!(colours, json!(vec!["rgb(255, 255, 255)"; 4]), "white's pieces");
    save_screenshot(&client, "promotion").await;
    click(&client, Locator::Css("#promotion button[data-promotion=n]")).await;
    wait_for_analysis(&client, "4N3/8/8/8/8/2k5/8/K7 b - - 0 1").await;
    assert_eq!(eval(&client, promotion_shown).await, json!(false));
    let promotion_drawn = "return getComputedStyle(document.getElementById('promotion')).display";
    assert_eq!(
        eval(&client, promotion_drawn).await,
        json!("none"),
        "the choice made, its buttons leave the page"
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_taking_the_last_piece_in_dark_chess_announces_the_end() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_fen(&client, &base, "darkchess", "k7/K7/8/8 w").await;
    click_move(&client, "a3a4").await;
    wait_until(
        &client,
        "return document.getElementById('announce').textContent.includes('Black has no pieces left. Red wins.')",
        "the end of the game",
    )
    .await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_a_phones_width_the_page_and_the_statistics_fit_without_sideways_scrolling() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    // The board, the position's field and the moves fit, and the statistics too.
    client.set_window_size(400, 820).await.unwrap();
    client.goto(&format!("{base}?game=xiangqi")).await.unwrap();
    wait_until(
        &client,
        "return document.getElementById('verdict').textContent !== ''",
        "the xiangqi start",
    )
    .await;
    let widths = "const e = document.documentElement; return [e.scrollWidth, e.clientWidth]";
    let widths_now = eval(&client, widths).await;
    assert!(
        widths_now[0].as_u64() <= widths_now[1].as_u64(),
        "sideways scrolling: {widths_now}"
    );
    show_stats(&client, "KRvK").await;
    wait_until(
        &client,
        "return document.getElementById('stats-table') !== null",
        "the statistics",
    )
    .await;
    let widths_now = eval(&client, widths).await;
    assert!(
        widths_now[0].as_u64() <= widths_now[1].as_u64(),
        "sideways scrolling with the statistics: {widths_now}"
    );
    client.close().await.unwrap();
}

/// The position after each move of `moves` (coordinates), from `fen`, written with its clocks
/// run on as the page writes it.
fn played<G: Game>(fen: &str, moves: &[&str]) -> String {
    let mut prober = Prober::<G>::new(tables(), Default::default());
    let (mut position, mut clocks) = G::parse_position_with_clocks(fen).unwrap();
    for coords in moves {
        let listed = prober.moves(&position).unwrap();
        let m = listed.iter().find(|m| m.coords == *coords).unwrap();
        (position, clocks) = G::play_on((&position, clocks), m.mv);
    }
    G::format_position_with_clocks(&position, clocks)
}

/// The coordinates of the moves from `fen` that win, best first.
fn winning_moves<G: Game>(fen: &str) -> Vec<String> {
    let mut prober = Prober::<G>::new(tables(), Default::default());
    let moves = prober.moves(&G::parse_position(fen).unwrap()).unwrap();
    moves
        .into_iter()
        .filter(|m| matches!(m.value, Value::Win(_)))
        .map(|m| m.coords)
        .collect()
}

/// Opens the chess board on its KRvK position and starts playing it as white against the table;
/// returns the position.
async fn start_playing_krvk_as_white(client: &Client, base: &str) -> &'static str {
    let start = CHESS_OPENING;
    open_chess(client, base).await;
    play_as(client, 0).await;
    wait_for_analysis(client, start).await;
    // The status follows the analysis.
    let ready = "return document.getElementById('play-status').textContent === 'Your move.'";
    wait_until(client, ready, "the play status").await;
    start
}

/// The coordinates of the table's best move from `fen`.
fn best_move<G: Game>(fen: &str) -> String {
    let mut prober = Prober::<G>::new(tables(), Default::default());
    prober.moves(&G::parse_position(fen).unwrap()).unwrap().remove(0).coords
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn back_in_play_mode_takes_back_the_tables_answer_with_the_move_it_answered() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    let start = start_playing_krvk_as_white(&client, &base).await;
    let wins = winning_moves::<Chess>(start);
    let answered = |mine: &str| {
        let reply = best_move::<Chess>(&played::<Chess>(start, &[mine]));
        played::<Chess>(start, &[mine, &reply])
    };
    click_move(&client, &wins[0]).await;
    wait_for_analysis(&client, &answered(&wins[0])).await;

    // Back, by the button and by the left arrow key, goes to the person's previous turn, and the
    // table does not play its answer again there; Forward redoes both moves.
    let arrow_left = "document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowLeft', bubbles: true})); \
                      return true";
    for back in ["button", "key"] {
        match back {
            "button" => click(&client, Locator::Id("back")).await,
            _ => drop(eval(&client, arrow_left).await),
        }
        wait_for_analysis(&client, start).await;
        tokio::time::sleep(Duration::from_millis(800)).await;
        assert_eq!(
            fen_shown(&client).await,
            start,
            "Back by the {back}: the table answered again"
        );
        let status = eval(&client, "return document.getElementById('play-status').textContent").await;
        assert_eq!(status, "Your move.", "Back by the {back}");
        click(&client, Locator::Id("forward")).await;
        wait_for_analysis(&client, &answered(&wins[0])).await;
    }
    // Taken back, another move gets the table's answer.
    click(&client, Locator::Id("back")).await;
    wait_for_analysis(&client, start).await;
    click_move(&client, &wins[1]).await;
    wait_for_analysis(&client, &answered(&wins[1])).await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_best_lines_last_step_taking_the_last_piece_announces_the_end() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    let fen = "k7/8/8/6AK w";
    open_fen(&client, &base, "darkchess", fen).await;
    let mut prober = Prober::<DarkChess>::new(tables(), Default::default());
    let line = prober.line(&DarkChess::parse_position(fen).unwrap()).unwrap();
    let last = line.iter().fold(DarkChess::parse_position(fen).unwrap(), |at, (m, _)| {
        DarkChess::play(&at, m.mv)
    });
    let script = format!(
        "return document.querySelectorAll('#line .line-step').length === {}",
        line.len()
    );
    wait_until(&client, &script, "the best line").await;
    eval(
        &client,
        "[...document.querySelectorAll('#line .line-step')].pop().click(); return true",
    )
    .await;
    wait_until(
        &client,
        &format!(
            "return document.getElementById('fen').value === {:?} && \
             document.getElementById('announce').textContent === 'Game over: Black has no pieces left. Red wins.'",
            DarkChess::format_position(&last)
        ),
        "the end of the game announced",
    )
    .await;
    assert_eq!(
        eval(&client, "return document.getElementById('error').hidden").await,
        json!(true),
        "an error shown at the end of the game"
    );
    // Out of play, the banner is where the end is heard.
    let live = "return document.getElementById('announce').getAttribute('aria-live')";
    assert_eq!(eval(&client, live).await, "polite");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_linked_fen_with_underscores_shows_the_side_to_move_the_server_read() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_at(
        &client,
        &base,
        "fen=4k3/8/8/8/8/8/8/R3K3_b",
        "4k3/8/8/8/8/8/8/R3K3 b - - 0 1",
    )
    .await;
    let shown = eval(&client, "return document.getElementById('to-move-text').textContent").await;
    assert_eq!(shown, "Black to move");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_status_keeps_the_tables_move_and_a_practice_position_clears_it() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    let start = start_playing_krvk_as_white(&client, &base).await;
    let mine = best_move::<Chess>(start);
    let after = played::<Chess>(start, &[&mine]);
    let mut prober = Prober::<Chess>::new(tables(), Default::default());
    let reply = prober.moves(&Chess::parse_position(&after).unwrap()).unwrap().remove(0);
    click_move(&client, &mine).await;
    wait_for_analysis(&client, &played::<Chess>(start, &[&mine, &reply.coords])).await;
    // The status is written once the best line is in as well.
    let status = "return document.getElementById('play-status').textContent";
    let named = format!("The table played {}. Your move.", reply.name);
    let script = format!("return document.getElementById('play-status').textContent === {named:?}");
    wait_until(&client, &script, &named).await;

    // A practice position loaded while playing stops the game: no "Your move." is left over.
    choose(&client, "random-material", "KRvK").await;
    click(&client, Locator::Id("random")).await;
    wait_until(
        &client,
        "return document.getElementById('random-status').textContent.startsWith('KRvK:')",
        "the practice position",
    )
    .await;
    let fen = fen_shown(&client).await;
    wait_for_analysis(&client, &fen).await;
    assert_eq!(eval(&client, status).await, "");
    client.close().await.unwrap();
}

/// A script that defines `counted(chosen, delay)`: a `fetch` in place of the page's that counts
/// in `window.asked` the requests `chosen` picks, answers them `delay` ms late, and counts in
/// `window.handled` those the page has read, once what the page runs after reading one is done
/// (a task queued when the body is read runs after it). A wait for `handled` then replaces a
/// wait of a fixed time for something that must not happen.
const HANDLED: &str = "window.asked = 0; window.handled = 0; \
    const fetched = window.fetch; \
    const counted = (chosen, delay = 0) => (url, ...rest) => { \
        if (!chosen(url)) return fetched(url, ...rest); \
        window.asked += 1; \
        return new Promise(done => setTimeout(done, delay)).then(() => fetched(url, ...rest)).then(response => { \
            const read = response.json.bind(response); \
            response.json = () => read().then(body => { setTimeout(() => { window.handled += 1; }, 0); return body; }); \
            return response; \
        }); \
    };";

/// Puts [`HANDLED`]'s counting `fetch` in the page's place for the requests whose address holds
/// `part`, each answered `delay_ms` late.
async fn count_fetches(client: &Client, part: &str, delay_ms: u64) {
    let script = format!("{HANDLED} window.fetch = counted(url => url.includes({part:?}), {delay_ms}); return true");
    eval(client, &script).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statistics_show_the_last_material_asked_for_and_a_note_while_computing() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    // Two tabs opened in a row fill the material menus once. The listings asked for are counted,
    // and each counted as handled once the page has read it and run what follows.
    eval(
        &client,
        &format!(
            "{HANDLED} window.fetch = counted(url => url.includes('/api/tables')); \
             for (const tab of ['stats', 'play', 'stats']) document.querySelector(`#tabs button[data-tab=${{tab}}]`).click(); \
             return true"
        ),
    )
    .await;
    wait_until(
        &client,
        "return window.asked > 0 && window.handled === window.asked",
        "the listings handled",
    )
    .await;
    let listed = "return ['stats-material', 'random-material'].map(id => \
                  [...document.getElementById(id).options].map(o => o.value).join(' '))";
    let menus = eval(&client, listed).await;
    let materials: Vec<&str> = menus[0].as_str().unwrap().split(' ').collect();
    let once: std::collections::BTreeSet<&str> = materials.iter().copied().collect();
    assert!(materials.contains(&"KRvK") && once.len() == materials.len(), "{menus}");
    assert_eq!(menus[1], menus[0], "{menus}");

    // KQvK's statistics answer late (held back in the page): asked for first, they are
    // dropped, KRvK's shown alone.
    count_fetches(&client, "/stats/KQvK", 1500).await;
    let result = "return document.getElementById('stats-result').textContent";
    for material in ["KQvK", "KRvK"] {
        choose(&client, "stats-material", material).await;
        click(&client, Locator::Id("stats-show")).await;
        if material == "KQvK" {
            assert_eq!(eval(&client, result).await, "Computing the statistics of KQvK...");
        }
    }
    wait_until(
        &client,
        "return document.getElementById('stats-table') !== null",
        "the statistics",
    )
    .await;
    wait_until(&client, "return window.handled === 1", "KQvK's late answer handled").await;
    let tables = "return document.querySelectorAll('#stats-table').length";
    assert_eq!(eval(&client, tables).await, json!(1));
    let shown = eval(&client, result).await;
    assert!(shown.as_str().unwrap().starts_with("chess KRvK:"), "{shown}");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statistics_fit_beside_the_board_on_a_desktop_and_scroll_in_their_box_on_a_phone() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    // A large material's counts (nine digits, as KRBvKR's), put in the page in place of
    // KRvK's: the widest table the statistics draw.
    let large = "const fetched = window.fetch; \
                 window.fetch = async (url, ...rest) => { \
                     const response = await fetched(url, ...rest); \
                     if (!url.includes('/stats/')) return response; \
                     const stats = await response.json(); \
                     for (const s of Object.values(stats.sides)) { \
                         Object.assign(s, {legal: 987654321, win: 876543210, draw: 100000000, loss: 11111111}); \
                         s.longest.dtm = 131; s.longest.positions = 12345; \
                     } \
                     return new Response(JSON.stringify(stats)); \
                 }; \
                 return true";
    let widths = "const box = document.getElementById('stats-result'); \
                  const page = document.documentElement; \
                  return [box.scrollWidth, box.clientWidth, page.scrollWidth, page.clientWidth]";
    for width in [1400, 1280, 390] {
        client.set_window_size(width, 900).await.unwrap();
        open_chess(&client, &base).await;
        eval(&client, large).await;
        show_stats(&client, "KRvK").await;
        wait_until(
            &client,
            "return document.getElementById('stats-table') !== null",
            "the statistics",
        )
        .await;
        save_screenshot(&client, &format!("stats-{width}")).await;
        let w = eval(&client, widths).await;
        let w: Vec<u64> = w.as_array().unwrap().iter().map(|n| n.as_u64().unwrap()).collect();
        assert!(w[2] <= w[3], "at {width} px the page scrolls sideways: {w:?}");
        if width > 1000 {
            assert!(w[0] <= w[1], "at {width} px the table is cut off: {w:?}");
        }
    }
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_narrow_desktop_the_board_shrinks_to_keep_the_analysis_beside_it() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    let layout = "const [board, side] = ['board', 'side-column'] \
                      .map(id => document.getElementById(id).getBoundingClientRect()); \
                  const page = document.documentElement; \
                  return [board.right, side.left, board.width, page.scrollWidth, page.clientWidth]";
    for width in [740, 800, 880, 915] {
        client.set_window_size(width, 700).await.unwrap();
        open_chess(&client, &base).await;
        save_screenshot(&client, &format!("narrow-{width}")).await;
        let l = eval(&client, layout).await;
        let l: Vec<f64> = l.as_array().unwrap().iter().map(|n| n.as_f64().unwrap()).collect();
        assert!(l[1] > l[0], "at {width} px the analysis is below the board: {l:?}");
        assert!(l[2] >= 300.0, "at {width} px the board is too small: {l:?}");
        assert!(l[3] <= l[4], "at {width} px the page scrolls sideways: {l:?}");
    }
    client.close().await.unwrap();
}

/// The best moves' arrows are bold, every other arrow thin, and each starts at the edge of its
/// piece, not over it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_best_moves_arrows_stand_out_and_leave_the_pieces_in_sight() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    save_screenshot(&client, "arrows").await;
    let mut prober = Prober::<Chess>::new(tables(), Default::default());
    let moves = prober.moves(&Chess::parse_position(CHESS_OPENING).unwrap()).unwrap();
    let mut best: Vec<String> = moves
        .iter()
        .filter(|m| m.value == moves[0].value)
        .map(|m| m.coords.clone())
        .collect();
    assert!(best.len() < moves.len(), "some moves are worse than the best");
    let arrows = eval(
        &client,
        "const centre = uci => { const r = document.getElementById('sq-' + uci.slice(0, 2)).getBBox(); \
                                 return [r.x + r.width / 2, r.y + r.height / 2, r.width]; }; \
         return [...document.querySelectorAll('#arrows line')].map(l => { \
             const [x, y, cell] = centre(l.dataset.uci); \
             const gap = Math.hypot(l.x1.baseVal.value - x, l.y1.baseVal.value - y) / cell; \
             return [l.dataset.uci, l.classList.contains('best'), Number(l.getAttribute('stroke-width')), gap]; })",
    )
    .await;
    let mut bold = Vec::new();
    for arrow in arrows.as_array().unwrap() {
        let (uci, is_best, width, gap) = (
            arrow[0].as_str().unwrap(),
            arrow[1].as_bool().unwrap(),
            arrow[2].as_f64().unwrap(),
            arrow[3].as_f64().unwrap(),
        );
        assert!(
            gap > 0.25,
            "{uci}: the arrow starts over its piece ({gap:.2} of a square off)"
        );
        if is_best {
            bold.push(uci.to_string());
        }
        assert_eq!(width > 5.0, is_best, "{uci}: only the best moves are bold ({width})");
    }
    bold.sort();
    best.sort();
    assert_eq!(bold, best);
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_verdict_of_a_game_ended_on_the_board_says_how() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    for (fen, how) in [
        ("4k3/4Q3/4K3/8/8/8/8/8 b - - 0 1", "(checkmate)"),
        ("k7/8/1Q6/8/8/8/8/7K b - - 0 1", "(stalemate)"),
        // A distance kept on one line with its unit.
        ("8/8/8/4k3/8/8/8/R3K3 w - - 0 1", "(27\u{a0}plies)"),
    ] {
        open_fen(&client, &base, "chess", fen).await;
        let verdict = eval(&client, "return document.getElementById('verdict').textContent").await;
        assert!(verdict.as_str().unwrap().ends_with(how), "{fen}: {verdict}");
    }
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn piece_letters_are_drawn_bold_on_the_chess_board() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    click(&client, Locator::Id("letters")).await;
    let pieces = "return [...document.querySelectorAll('#board .piece text')] \
                  .map(t => [t.textContent, t.getAttribute('font-weight')])";
    wait_until(
        &client,
        "return [...document.querySelectorAll('#board .piece text')].every(t => /^[KQRBNPkqrbnp]$/.test(t.textContent))",
        "the pieces as letters",
    )
    .await;
    save_screenshot(&client, "letters").await;
    let drawn = eval(&client, pieces).await;
    assert_eq!(drawn.as_array().unwrap().len(), 3, "{drawn}");
    for piece in drawn.as_array().unwrap() {
        assert_eq!(piece[1], "bold", "{drawn}");
    }
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_analysis_tab_says_the_answers_are_hidden_while_playing() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    let note = "const note = document.getElementById('answers-hidden'); \
                return note.offsetParent === null ? '' : note.textContent.replace(/\\s+/g, ' ')";
    assert_eq!(eval(&client, note).await, "", "the note before playing");
    play_as(&client, 0).await;
    assert_eq!(eval(&client, note).await, "", "the note in the Play tab");
    click(&client, Locator::Css("#tabs button[data-tab=analysis]")).await;
    assert_eq!(
        eval(&client, note).await,
        "The answers are hidden while you play: tick Show answers in the Play tab to see them."
    );
    save_screenshot(&client, "answers-hidden").await;
    click(&client, Locator::Css("#tabs button[data-tab=play]")).await;
    click(&client, Locator::Id("show-answers")).await;
    click(&client, Locator::Css("#tabs button[data-tab=analysis]")).await;
    assert_eq!(eval(&client, note).await, "", "the note with the answers shown");
    let verdict = "return document.getElementById('verdict').offsetParent !== null";
    assert_eq!(eval(&client, verdict).await, json!(true));
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hint_to_build_a_missing_table_names_the_rule_options_chosen() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    for (query, command) in [
        (
            "game=darkchess&cannon=step",
            "egtb generate darkchess <material> --cannon step --stalemate loss",
        ),
        (
            "game=darkchess&stalemate=draw",
            "egtb generate darkchess <material> --cannon jump --stalemate draw",
        ),
    ] {
        client.goto(&format!("{base}?{query}")).await.unwrap();
        wait_until(
            &client,
            "return document.getElementById('error').textContent !== ''",
            "the missing table",
        )
        .await;
        let error = eval(&client, "return document.getElementById('error').textContent").await;
        let own = command.replace("<material>", "KAvK");
        assert!(error.as_str().unwrap().contains(&own), "{query}: {error}");
        for (tab, hint) in [("stats", "stats-result"), ("play", "random-status")] {
            click(&client, Locator::Css(&format!("#tabs button[data-tab={tab}]"))).await;
            // Built where the server reads, named in full wherever the command is run.
            let built_there = format!("{command} --tables /");
            let script = format!("return document.getElementById('{hint}').textContent.includes({built_there:?})");
            wait_until(&client, &script, &format!("{query}: {tab}'s hint naming {command}")).await;
        }
    }
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_position_lost_by_a_ruling_is_the_games_end_with_its_moves_listed_only() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    let query = format!("game=xiangqi&rules=asian&fen={}", PERPETUAL_CHECK.replace(' ', "%20"));
    for playing in [false, true] {
        open_at(&client, &base, &query, PERPETUAL_CHECK).await;
        if playing {
            play_as(&client, 1).await;
            click(&client, Locator::Id("show-answers")).await;
            wait_for_analysis(&client, PERPETUAL_CHECK).await;
        }
        wait_until(
            &client,
            "return document.getElementById('announce').textContent.startsWith('Game over: Black has lost by the rules')",
            "the ruling announced",
        )
        .await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let (rows, arrows) = listed_moves(&client).await;
        assert!(!rows.is_empty(), "the moves listed");
        assert!(arrows.is_empty(), "arrows drawn after the game's end: {arrows:?}");
        assert_eq!(
            eval(&client, "return document.getElementById('line-heading').hidden").await,
            json!(true),
            "a best line's heading over a game that has ended"
        );
        let note = eval(&client, "return document.getElementById('line').textContent").await;
        assert_eq!(note, "The game is over: these moves are listed for analysis only.");
        save_screenshot(&client, &format!("ruled-end-{playing}")).await;
        // Neither the suggested move, nor a listed one, nor one on the board is played.
        click(&client, Locator::Id("suggest")).await;
        click(&client, Locator::Css("#moves tr")).await;
        click_move(&client, &rows[0].0).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(fen_shown(&client).await, PERPETUAL_CHECK, "playing: {playing}");
    }
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_play_controls_come_before_a_long_move_list() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    client.set_window_size(1400, 757).await.unwrap();
    let fen = "8/8/1Q6/8/6k1/8/3K4/8 w - - 0 1";
    open_fen(&client, &base, "chess", fen).await;
    click(&client, Locator::Css("#tabs button[data-tab=play]")).await;
    let shown = "const start = document.getElementById('play-start').getBoundingClientRect(); \
                 const moves = document.getElementById('moves').getBoundingClientRect(); \
                 return [start.bottom <= window.innerHeight, moves.bottom > window.innerHeight]";
    assert_eq!(
        eval(&client, shown).await,
        json!([true, true]),
        "Start in view above a move list taller than the window"
    );
    save_screenshot(&client, "play-tab").await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_declares_its_icon_so_no_favicon_is_asked_for() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    client.goto(&base).await.unwrap();
    let icon = "const link = document.querySelector('link[rel=icon]'); return link ? link.href : ''";
    assert_eq!(eval(&client, icon).await, "data:,");
    client.close().await.unwrap();
}

/// The squares of the board in the tab order, each with its label.
async fn tabbable_squares(client: &Client) -> Vec<(String, String)> {
    let script = "return [...document.querySelectorAll('#board .square[tabindex=\"0\"]')] \
                  .map(s => [s.dataset.square, s.getAttribute('aria-label')])";
    let squares = eval(client, script).await;
    squares
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_str().unwrap().to_string()))
        .collect()
}

/// Presses a WebDriver key (Tab, Enter) on the element that has the focus, as a person would.
async fn press(client: &Client, key: &str) {
    client.active_element().await.unwrap().send_keys(key).await.unwrap();
}

/// The square focused, or "board" for the board itself, or the tag of another element.
async fn focused(client: &Client) -> String {
    let script = "const e = document.activeElement; \
                  return e.id === 'board' ? 'board' : e.dataset && e.dataset.square ? e.dataset.square : e.tagName";
    eval(client, script).await.as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_plays_from_the_keyboard_with_the_answers_hidden() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    // Playing with the answers hidden, the move list is gone: the board is the only way to move,
    // and it must take the keyboard. Its pieces that can move are in the tab order, labelled.
    let start = start_playing_krvk_as_white(&client, &base).await;
    let pieces = vec![
        ("a1".to_string(), "white rook on a1".to_string()),
        ("e1".to_string(), "white king on e1".to_string()),
    ];
    assert_eq!(tabbable_squares(&client).await, pieces);
    // Tab from the button before the board reaches its first piece; Enter selects it, and the
    // squares it can go to join the tab order.
    eval(&client, "document.getElementById('flip').focus(); return true").await;
    press(&client, "\u{E004}").await;
    assert_eq!(focused(&client).await, "a1");
    press(&client, "\u{E007}").await;
    let wins = winning_moves::<Chess>(start);
    let rook_move = wins.iter().find(|m| m.starts_with("a1")).unwrap().clone();
    let to = &rook_move[2..4];
    let squares = tabbable_squares(&client).await;
    let target = squares.iter().find(|(square, _)| square == to);
    assert_eq!(
        target.map(|(_, label)| label.as_str()),
        Some(format!("white rook from a1 to {to}").as_str()),
        "{squares:?}"
    );
    assert!(
        squares.contains(&("a1".to_string(), "white rook on a1, selected".to_string())),
        "{squares:?}"
    );
    assert_eq!(focused(&client).await, "a1", "the focus stays on the piece selected");
    // Enter on the square plays the move; the table answers, and the focus stays on the board,
    // from where Tab reaches the pieces again.
    eval(
        &client,
        &format!("document.getElementById('sq-{to}').focus(); return true"),
    )
    .await;
    press(&client, "\u{E007}").await;
    let reply = best_move::<Chess>(&played::<Chess>(start, &[&rook_move]));
    let answered = played::<Chess>(start, &[&rook_move, &reply]);
    wait_for_analysis(&client, &answered).await;
    assert_eq!(focused(&client).await, "board");
    press(&client, "\u{E004}").await;
    let first = tabbable_squares(&client).await[0].0.clone();
    assert_eq!(focused(&client).await, first);
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_outcomes_read_at_a_contrast_of_at_least_4_5_to_1() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    // Each outcome's colour on a move's row, as it is on the page and focused (its background
    // then darker), by WCAG's contrast ratio.
    let script = "const lum = (css) => { \
                    const [r, g, b] = css.match(/[\\d.]+/g).slice(0, 3).map(v => { \
                      const c = Number(v) / 255; \
                      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; }); \
                    return 0.2126 * r + 0.7152 * g + 0.0722 * b; }; \
                  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); \
                    return (x + 0.05) / (y + 0.05); }; \
                  const paper = getComputedStyle(document.body).backgroundColor; \
                  const body = document.querySelector('#moves tbody'); \
                  const out = {}; \
                  for (const category of ['win', 'draw', 'loss']) { \
                    const row = body.insertRow(); \
                    row.className = `move ${category}`; \
                    row.tabIndex = 0; \
                    row.insertCell().textContent = category; \
                    const colour = getComputedStyle(row).color; \
                    row.focus(); \
                    const focused = getComputedStyle(row).backgroundColor; \
                    out[category] = Math.min(ratio(colour, paper), ratio(colour, focused)); \
                    row.remove(); \
                  } \
                  return out";
    let ratios = eval(&client, script).await;
    for category in ["win", "draw", "loss"] {
        let ratio = ratios[category].as_f64().unwrap();
        assert!(ratio >= 4.5, "{category}: contrast {ratio:.2} ({ratios})");
    }
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_game_clears_the_play_status_and_a_position_of_another_game_switches_to_it() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    let status = "return document.getElementById('play-status').textContent";
    // A game chosen in the menu ends the play: its "Your move." goes with it.
    start_playing_krvk_as_white(&client, &base).await;
    assert_eq!(eval(&client, status).await, "Your move.");
    choose(&client, "game", "xiangqi").await;
    wait_for_analysis(&client, "4k4/9/9/9/9/9/9/9/9/3K1R3 w - - 0 1").await;
    assert_eq!(
        eval(&client, status).await,
        "",
        "the play status after another game was chosen"
    );

    // A position typed or pasted is read as `egtb query` reads it: its ranks tell the game.
    start_playing_krvk_as_white(&client, &base).await;
    for (game, fen) in [
        ("xiangqi", "3k5/9/9/9/9/9/9/9/4R4/5K3 w - - 0 1"),
        ("darkchess", "k7/8/8/6AK w"),
        ("chess", "8/8/8/3k4/8/8/8/4K1Q1 w - - 0 1"),
    ] {
        enter_fen(&client, fen).await;
        let shown = "return [document.getElementById('game').value, document.getElementById('error').hidden]";
        assert_eq!(eval(&client, shown).await, json!([game, true]), "{fen}");
        assert_eq!(eval(&client, status).await, "", "{fen}: the play status");
    }
    // So is a link that names no game.
    open_at(&client, &base, "fen=k7/8/8/6AK_w", "k7/8/8/6AK w").await;
    let game = eval(&client, "return document.getElementById('game').value").await;
    assert_eq!(game, "darkchess");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statistics_never_round_a_few_positions_to_none_or_all() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    // Dark chess KAvK, red to move: 29,752 wins and 8 losses of 29,760 positions.
    open_at(&client, &base, "game=darkchess", "k7/8/8/6AK w").await;
    show_stats(&client, "KAvK").await;
    wait_until(
        &client,
        "return document.getElementById('stats-table') !== null",
        "the statistics",
    )
    .await;
    let red = "return [...document.querySelector('#stats-table tr:nth-child(2)').cells].map(c => c.textContent)";
    assert_eq!(
        eval(&client, red).await.as_array().unwrap()[..5],
        [
            json!("red"),
            json!("29,760"),
            json!("29,752 (>99.9%)"),
            json!("0 (0.0%)"),
            json!("8 (<0.1%)")
        ]
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_does_not_answer_is_said_in_words_and_the_tabs_say_which_is_open() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    // The tabs are tabs to a screen reader, the open one selected.
    click(&client, Locator::Css("#tabs button[data-tab=play]")).await;
    let tabs = "return [document.getElementById('tabs').getAttribute('role'), \
                ...[...document.querySelectorAll('#tabs button')] \
                .map(b => `${b.getAttribute('role')} ${b.dataset.tab} ${b.getAttribute('aria-selected')}`)]";
    assert_eq!(
        eval(&client, tabs).await,
        json!([
            "tablist",
            "tab analysis false",
            "tab play true",
            "tab edit false",
            "tab stats false"
        ])
    );
    // A server gone, or an answer that is not the API's (a proxy's error page): the page says so
    // in words, not as "Failed to fetch" or a JSON parser's complaint.
    let error = "return document.getElementById('error').textContent";
    for (fake, expected) in [
        (
            "Promise.reject(new TypeError('Failed to fetch'))",
            "The server did not answer (Failed to fetch): is egtb serve still running?",
        ),
        (
            "Promise.resolve(new Response('<html>Bad gateway</html>', {status: 502}))",
            "The server's answer could not be read (HTTP 502)",
        ),
    ] {
        eval(&client, &format!("window.fetch = () => {fake}; return true")).await;
        submit_fen(&client, "8/8/8/4k3/8/8/8/R3K2K w - - 0 1").await;
        let script = format!("return document.getElementById('error').textContent === {expected:?}");
        wait_until(&client, &script, expected).await;
        assert_eq!(eval(&client, error).await, expected);
    }
    client.close().await.unwrap();
}

/// Submits a position the server refuses and waits for its reason on the page.
async fn enter_fen_expecting_error(client: &Client, fen: &str, reason: &str) {
    submit_fen(client, fen).await;
    let script = format!("return document.getElementById('error').textContent.includes({reason:?})");
    wait_until(client, &script, "the error").await;
    assert_eq!(fen_shown(client).await, fen);
}

/// Waits until the menu `id` lists `material`.
async fn wait_for_listed(client: &Client, id: &str, material: &str) {
    let listed = format!("return [...document.querySelectorAll('#{id} option')].some(o => o.value === '{material}')");
    wait_until(client, &listed, &format!("{material} in #{id}")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_asked_under_another_game_never_land_on_the_board() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    let result = "return document.getElementById('stats-result').textContent";
    // Chess statistics answer late, after the game switched to xiangqi: dropped.
    count_fetches(&client, "/stats/", 1500).await;
    click(&client, Locator::Css("#tabs button[data-tab=stats]")).await;
    wait_for_listed(&client, "stats-material", "KRvK").await;
    choose(&client, "stats-material", "KRvK").await;
    click(&client, Locator::Id("stats-show")).await;
    choose(&client, "game", "xiangqi").await;
    wait_until(&client, "return window.handled === 1", "the late statistics handled").await;
    assert_eq!(
        eval(&client, "return document.getElementById('stats-table')").await,
        Json::Null
    );
    assert!(!eval(&client, result).await.as_str().unwrap().contains("chess"));

    // A xiangqi practice position answering after the switch back to chess: dropped too.
    count_fetches(&client, "/random/", 1500).await;
    click(&client, Locator::Css("#tabs button[data-tab=play]")).await;
    wait_for_listed(&client, "random-material", "KRvK").await;
    click(&client, Locator::Id("random")).await;
    choose(&client, "game", "chess").await;
    wait_for_analysis(&client, CHESS_OPENING).await;
    wait_until(
        &client,
        "return window.handled === 1",
        "the late practice position handled",
    )
    .await;
    assert_eq!(fen_shown(&client).await, CHESS_OPENING);
    let status = "return document.getElementById('random-status').textContent";
    assert_eq!(eval(&client, status).await, "");

    // Of two practice positions asked for in a row, the second is shown, however late the first.
    count_fetches(&client, "/random/KQvK", 1500).await;
    wait_for_listed(&client, "random-material", "KQvK").await;
    for material in ["KQvK", "KRvK"] {
        choose(&client, "random-material", material).await;
        click(&client, Locator::Id("random")).await;
    }
    wait_until(
        &client,
        "return window.handled === 1",
        "the first practice position handled",
    )
    .await;
    let shown = eval(&client, status).await;
    assert!(shown.as_str().unwrap().starts_with("KRvK:"), "{shown}");
    let fen = fen_shown(&client).await;
    assert!(!fen.contains('Q') && !fen.contains('q'), "{fen}");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_to_a_name_no_game_has_opens_the_board_of_its_position() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    // Names every object has (not games): the position's ranks tell the game, as without one.
    let xiangqi = "3k5/9/9/9/9/9/9/9/4R4/5K3 w - - 0 1";
    for (name, fen) in [
        ("constructor", CHESS_OPENING),
        ("__proto__", xiangqi),
        ("toString", CHESS_OPENING),
    ] {
        open_at(
            &client,
            &base,
            &format!("game={name}&fen={}", fen.replace(' ', "%20")),
            fen,
        )
        .await;
        let game = fen.split('/').count().to_string();
        let shown = eval(&client, "return document.getElementById('game').value").await;
        assert_eq!(shown, if game == "10" { "xiangqi" } else { "chess" }, "{name}");
    }
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_play_the_table_answers_before_its_best_line_and_only_the_person_moves_for_the_person() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    let start = start_playing_krvk_as_white(&client, &base).await;
    // The best lines answer 5 s late: the table's move comes before any.
    count_fetches(&client, "/mainline", 5000).await;
    let mine = winning_moves::<Chess>(start).remove(0);
    click_move(&client, &mine).await;
    let reply = best_move::<Chess>(&played::<Chess>(start, &[&mine]));
    wait_for_analysis(&client, &played::<Chess>(start, &[&mine, &reply])).await;
    assert_eq!(
        eval(&client, "return window.handled").await,
        json!(0),
        "waited for a best line"
    );
    client.close().await.unwrap();

    // While the table thinks, neither the suggestion nor a listed move plays for the person.
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    play_as(&client, 1).await;
    let meddle = "if (document.getElementById('play-status').textContent !== 'The table is thinking...') return null; \
                  const before = document.getElementById('fen').value; \
                  document.getElementById('suggest').click(); \
                  for (const row of document.querySelectorAll('#moves tr')) row.click(); \
                  return before === document.getElementById('fen').value";
    let start = Instant::now();
    let unmoved = loop {
        match eval(&client, meddle).await {
            Json::Null if start.elapsed() < Duration::from_secs(20) => {
                tokio::time::sleep(Duration::from_millis(20)).await
            }
            answer => break answer,
        }
    };
    assert_eq!(unmoved, json!(true), "the person moved in the table's turn");
    let table = best_move::<Chess>(CHESS_OPENING);
    wait_for_analysis(&client, &played::<Chess>(CHESS_OPENING, &[&table])).await;
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statistics_shown_stay_while_the_tabs_change() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    show_stats(&client, "KRvK").await;
    wait_until(
        &client,
        "return document.getElementById('stats-table') !== null",
        "the statistics",
    )
    .await;
    count_fetches(&client, "/api/tables", 0).await;
    for tab in ["analysis", "play", "stats"] {
        click(&client, Locator::Css(&format!("#tabs button[data-tab={tab}]"))).await;
    }
    wait_until(
        &client,
        "return window.asked === 2 && window.handled === 2",
        "the listings handled",
    )
    .await;
    assert_eq!(
        eval(&client, "return document.querySelectorAll('#stats-table').length").await,
        json!(1)
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editor_works_from_the_keyboard_and_its_side_menu_follows_the_board() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    let disabled = "return ['back', 'forward'].map(id => document.getElementById(id).disabled)";
    assert_eq!(eval(&client, disabled).await, json!([true, true]), "nowhere to go yet");
    click(&client, Locator::Css("#tabs button[data-tab=edit]")).await;
    // Every square is a button, named with what stands on it, one of them in the tab order;
    // the arrow keys go from square to square. The palette's pieces are named.
    let buttons = "return [...document.querySelectorAll('#board .square[role=button]')] \
                   .map(s => [s.dataset.square, s.getAttribute('aria-label')])";
    let squares = eval(&client, buttons).await.to_string();
    assert_eq!(eval(&client, buttons).await.as_array().unwrap().len(), 64);
    assert!(squares.contains(r#"["e1","e1: white king"]"#), "{squares}");
    assert!(squares.contains(r#"["e4","e4: empty"]"#), "{squares}");
    assert_eq!(
        tabbable_squares(&client).await,
        [("a1".into(), "a1: white rook".into())]
    );
    eval(&client, "document.getElementById('sq-a1').focus(); return true").await;
    for key in ["\u{e014}", "\u{e013}", "\u{e014}"] {
        press(&client, key).await;
    }
    assert_eq!(focused(&client).await, "c2", "right, up, right from a1");
    assert_eq!(tabbable_squares(&client).await, [("c2".into(), "c2: empty".into())]);
    let queen = "const b = document.querySelector('#palette button[data-piece=Q]'); \
                 return [b.getAttribute('aria-label'), b.getAttribute('aria-pressed')]";
    assert_eq!(eval(&client, queen).await, json!(["white queen", "false"]));
    click(&client, Locator::Css("#palette button[data-piece=Q]")).await;
    assert_eq!(eval(&client, queen).await, json!(["white queen", "true"]));
    // The queen placed on e4 from the keyboard.
    eval(&client, "document.getElementById('sq-e4').focus(); return true").await;
    press(&client, "\u{e007}").await;
    let placed = "8/8/8/4k3/4Q3/8/8/R3K3 w - - 0 1";
    wait_until(
        &client,
        &format!("return document.getElementById('fen').value === {placed:?}"),
        "the queen placed",
    )
    .await;
    // Black to move by the menu, then Back: the menu says white again.
    choose(&client, "edit-side", "1").await;
    wait_until(
        &client,
        "return document.getElementById('fen').value.includes(' b ')",
        "black to move",
    )
    .await;
    assert_eq!(eval(&client, disabled).await, json!([false, true]));
    click(&client, Locator::Id("back")).await;
    wait_until(
        &client,
        &format!("return document.getElementById('fen').value === {placed:?}"),
        "back to white to move",
    )
    .await;
    assert_eq!(
        eval(&client, "return document.getElementById('edit-side').value").await,
        "0"
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editor_stops_a_game_and_a_practice_position_late_for_a_board_moved_on_is_dropped() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    // Passing through the editor leaves a game going; an edit stops it: black to move by the
    // editor's menu, and the table stays.
    start_playing_krvk_as_white(&client, &base).await;
    let status = "return document.getElementById('play-status').textContent";
    for tab in ["edit", "analysis", "edit"] {
        click(&client, Locator::Css(&format!("#tabs button[data-tab={tab}]"))).await;
    }
    assert_eq!(eval(&client, status).await, "Your move.");
    choose(&client, "edit-side", "1").await;
    let black = "8/8/8/4k3/8/8/8/R3K3 b - - 0 1";
    wait_for_analysis(&client, black).await;
    assert_eq!(eval(&client, status).await, "Stopped: the editor changes the position.");
    assert_eq!(fen_shown(&client).await, black, "the table answered an edit");

    // A practice position answering after another position was loaded: dropped.
    click(&client, Locator::Css("#tabs button[data-tab=play]")).await;
    wait_for_listed(&client, "random-material", "KQvK").await;
    count_fetches(&client, "/random/", 1500).await;
    click(&client, Locator::Id("random")).await;
    enter_fen(&client, CHESS_OPENING).await;
    wait_until(
        &client,
        "return window.handled === 1",
        "the late practice position handled",
    )
    .await;
    assert_eq!(fen_shown(&client).await, CHESS_OPENING);
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_keeps_the_persons_place_focus_and_choices() {
    let Some((client, base, _running)) = browser().await else {
        return;
    };
    open_chess(&client, &base).await;
    let suggest = "return document.getElementById('suggest').disabled";
    assert_eq!(eval(&client, suggest).await, json!(false));
    // Back pressed to the first position hands the focus to Forward, not to the page.
    let mine = winning_moves::<Chess>(CHESS_OPENING).remove(0);
    click_move(&client, &mine).await;
    wait_for_analysis(&client, &played::<Chess>(CHESS_OPENING, &[&mine])).await;
    eval(&client, "document.getElementById('back').focus(); return true").await;
    press(&client, "\u{e007}").await;
    wait_for_analysis(&client, CHESS_OPENING).await;
    assert_eq!(focused(&client).await, "BUTTON");
    assert_eq!(eval(&client, "return document.activeElement.id").await, "forward");
    // A material chosen in the statistics stays chosen when the tab is opened again.
    click(&client, Locator::Css("#tabs button[data-tab=stats]")).await;
    wait_for_listed(&client, "stats-material", "KQvK").await;
    choose(&client, "stats-material", "KQvK").await;
    count_fetches(&client, "/api/tables", 0).await;
    for tab in ["analysis", "stats"] {
        click(&client, Locator::Css(&format!("#tabs button[data-tab={tab}]"))).await;
    }
    wait_until(
        &client,
        "return window.asked === 1 && window.handled === 1",
        "the listing handled",
    )
    .await;
    let chosen = "return document.getElementById('stats-material').value";
    assert_eq!(eval(&client, chosen).await, "KQvK");
    // The suggestion played from the keyboard leaves the focus on the board.
    click(&client, Locator::Css("#tabs button[data-tab=analysis]")).await;
    eval(&client, "document.getElementById('suggest').focus(); return true").await;
    press(&client, "\u{e007}").await;
    let best = best_move::<Chess>(CHESS_OPENING);
    wait_for_analysis(&client, &played::<Chess>(CHESS_OPENING, &[&best])).await;
    assert_eq!(focused(&client).await, "board");
    // In the editor the suggestion has nothing to play.
    click(&client, Locator::Css("#tabs button[data-tab=edit]")).await;
    assert_eq!(eval(&client, suggest).await, json!(true));
    client.close().await.unwrap();
}
