//! Shared by the server's tests and its load bench: small tables of every game, positions
//! sampled from them as API requests, and the answer each must get: the legal moves from the
//! game's move generator, their values read from the tables (not the server's code).

use std::path::Path;

use egtb::games::{Game, IndexSpace};
use egtb::generate::Generator;
use egtb::material::{GameId, Material};
use egtb::probe::Prober;
use egtb::solver::Silent;
use egtb::value::Value;
use egtb::with_game;
use serde_json::{Value as Json, json};

/// The materials the tests and the bench serve.
pub const MATERIALS: [(GameId, &str); 4] = [
    (GameId::Chess, "KQvK"),
    (GameId::Chess, "KRvK"),
    (GameId::Xiangqi, "KRvK"),
    (GameId::DarkChess, "KAvK"),
];

/// Generates the tables (CPU solver, default rules) into `dir`.
pub fn generate(dir: &Path) {
    for (game, material) in MATERIALS {
        with_game!(game, G => generate_one::<G>(dir, material));
    }
}

/// Generates one material's table (CPU solver, default rules) into `dir`, after its smaller ones.
pub fn generate_one<G: Game>(dir: &Path, material: &str) {
    let (material, _) = Material::parse(G::ID, material).unwrap().canonical();
    Generator::<G>::new(dir, G::Rules::default(), &Silent)
        .ensure(&material)
        .unwrap();
}

/// A request path and the answer it must get.
pub struct Request {
    pub path: String,
    pub expect: Json,
}

/// About `per_material` positions of every material, spread over the index, as requests.
pub fn requests(dir: &Path, per_material: u64) -> Vec<Request> {
    let mut out = Vec::new();
    for (game, material) in MATERIALS {
        with_game!(game, G => sample::<G>(dir, material, per_material, &mut out));
    }
    out
}

fn sample<G: Game>(dir: &Path, material: &str, count: u64, out: &mut Vec<Request>) {
    let (material, _) = Material::parse(G::ID, material).unwrap().canonical();
    let index = G::index(&material, G::Rules::default()).unwrap();
    let mut prober = Prober::<G>::new(dir, G::Rules::default());
    let stride = (index.states() / count).max(1) | 1;
    for state in (0..index.states()).step_by(stride as usize) {
        let Some(position) = index.decode(state) else { continue };
        let fen = G::format_position(&position);
        let query: String = serde_urlencoded::to_string([("fen", &fen)]).unwrap();
        out.push(Request {
            path: format!("/api/{}?{query}", G::ID.name()),
            expect: expected::<G>(&mut prober, &position),
        });
    }
}

/// Signed DTM: positive when the side to move wins, negative when it loses, null for a draw.
fn signed(value: Value) -> Json {
    match value {
        Value::Win(d) => json!(d),
        Value::Loss(d) => json!(-i32::from(d)),
        Value::Draw => Json::Null,
    }
}

/// What the API must say of a position: its category and DTM, and each legal move (from the
/// game's move generator and notation, not the prober's list) with the category and DTM of the
/// position it leads to (the opponent's view), read from the table; in any order, since
/// [`check`] tests the answer's order by its values.
pub fn expected<G: Game>(prober: &mut Prober<G>, position: &G::Position) -> Json {
    let value = prober.value(position).unwrap();
    let moves: Vec<Json> = G::legal_moves(position, G::Rules::default())
        .into_iter()
        .map(|mv| {
            let (name, coords) = G::move_names(position, mv);
            let after = prober.value(&G::play(position, mv)).unwrap();
            json!([coords, name, after.outcome(), signed(after)])
        })
        .collect();
    json!({ "category": value.outcome(), "dtm": signed(value), "moves": moves })
}

/// How good a move is for the side that plays it, smallest best, from the category and signed
/// DTM of the position it leads to: the opponent's quickest loss first, then a draw, then the
/// slowest win of the opponent.
fn rank(category: &Json, dtm: &Json) -> (u8, i64) {
    let plies = dtm.as_i64().unwrap_or(0).abs();
    match category.as_str() {
        Some("loss") => (0, plies),
        Some("draw") => (1, 0),
        _ => (2, -plies),
    }
}

/// Checks an answer's body against what it must say: the same position value, the same moves
/// with the same values, listed best first.
pub fn check(body: &str, expect: &Json) -> Result<(), String> {
    let answer: Json = serde_json::from_str(body).map_err(|e| format!("not JSON ({e}): {body}"))?;
    let moves: Vec<Json> = answer["moves"]
        .as_array()
        .ok_or_else(|| format!("no moves in {body}"))?
        .iter()
        .map(|m| json!([m["uci"], m["san"], m["category"], m["dtm"]]))
        .collect();
    if !moves.is_sorted_by_key(|m| rank(&m[2], &m[3])) {
        return Err(format!("moves not listed best first: {body}"));
    }
    let as_set = |moves: &Json| {
        let mut listed: Vec<String> = moves.as_array().into_iter().flatten().map(Json::to_string).collect();
        listed.sort();
        listed
    };
    let got = json!({ "category": answer["category"], "dtm": answer["dtm"], "moves": moves });
    let same = got["category"] == expect["category"]
        && got["dtm"] == expect["dtm"]
        && as_set(&got["moves"]) == as_set(&expect["moves"]);
    if same {
        Ok(())
    } else {
        Err(format!("answer {got} differs from the table's {expect}"))
    }
}
