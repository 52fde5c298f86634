//! The JSON API, in the shape of the public chess tablebase services: a position's `category`
//! and signed `dtm`, and every legal move best first with the outcome it leaves the opponent.
//!
//! Sign convention of `dtm` (plies): positive when the side to move wins, negative when it
//! loses, 0 when it has already lost (mated, without a legal move where that loses, without
//! pieces, or by a ruling), null for a draw.
//! A move's `category` and `dtm` are those of the position after it, from the opponent's view:
//! the winning moves are the ones whose category is `loss`.
//!
//! A position's FEN keeps the clocks it was given with (`0 1` where it had none), and the FENs
//! of its moves and of its best line carry them on, as `egtb query` and `egtb line` write them.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher, RandomState};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value as Json, json};

use crate::counted::one_of;
use crate::error::{Error, error_line, one_line};
use crate::games::chess::Chess;
use crate::games::darkchess::DarkChess;
use crate::games::ending::{Ending, ending};
use crate::games::xiangqi::Xiangqi;
use crate::games::{Clocks, Game, Rules, all_rule_options, check_options, is_rule_option, own_options};
use crate::generate::check_found;
use crate::material::{GameId, Side};
use crate::probe::{Prober, TableCache, ending_key};
use crate::report::stats::stats_json;
use crate::report::{headline, rules_json, ruling_json};
use crate::shell::tables_option;
use crate::stats::file_stats;
use crate::table::{Table, table_files};
use crate::value::Value;

/// The longest position text accepted.
const MAX_FEN: usize = 200;
/// The longest query string accepted: room for a FEN of [`MAX_FEN`] characters percent-encoded
/// (a space takes 3) and the rule options beside it.
const MAX_QUERY: usize = 4 * MAX_FEN;
/// The longest material name accepted.
const MAX_MATERIAL: usize = 40;
/// The longest rule option value accepted.
const MAX_OPTION: usize = 16;

/// A failed request: the HTTP status and the reason, one line (control characters escaped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status: 400, 403 (a host the server does not answer), 404, 405 or 500.
    pub status: u16,
    /// The reason, one line.
    pub message: String,
}

impl ApiError {
    /// A 400 Bad Request with `message`.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            message: one_line(&message.into()),
        }
    }

    /// A 404 Not Found with `message`.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 404,
            message: one_line(&message.into()),
        }
    }

    /// The status of an error met while reading tables, by its kind: 404 for a missing table
    /// (the message names the command that builds it), 400 for a position the game does not
    /// allow, 500 for anything else (a table that cannot be read or contradicts itself): the
    /// input was fine, the folder is not.
    fn from_table_error(err: anyhow::Error) -> ApiError {
        let status = match err.downcast_ref::<Error>() {
            Some(Error::MissingTable { .. }) => 404,
            Some(Error::IllegalPosition { .. } | Error::BadMaterial { .. } | Error::BadRules { .. }) => 400,
            _ => 500,
        };
        ApiError {
            status,
            message: error_line(&err),
        }
    }
}

/// What a position request asks: the position's text and the rule options given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Params {
    /// The position's text, `_` read as a space; `None` when not given.
    pub fen: Option<String>,
    /// The rule options given (`key`, `value`), once each, the last value of a name kept.
    pub options: Vec<(String, String)>,
    /// For a random position: the side to move (`white`, `red`, `black`).
    pub side: Option<String>,
    /// For a random position: the outcome for the side to move (`win`, `draw`, `loss`).
    pub outcome: Option<String>,
}

impl Params {
    /// Parses a URL query string, checking names and lengths.
    pub fn parse(query: Option<&str>) -> Result<Params, ApiError> {
        let query = query.unwrap_or("");
        if query.len() > MAX_QUERY {
            return Err(ApiError::bad_request("query string too long"));
        }
        let pairs: Vec<(String, String)> =
            serde_urlencoded::from_str(query).map_err(|e| ApiError::bad_request(format!("bad query string: {e}")))?;
        let mut params = Params::default();
        for (key, value) in pairs {
            match key.as_str() {
                "fen" if value.len() > MAX_FEN => {
                    return Err(ApiError::bad_request(format!(
                        "fen is longer than {MAX_FEN} characters"
                    )));
                }
                // As in the public tablebase services, `_` may stand for a space.
                "fen" => params.fen = Some(value.replace('_', " ")),
                "side" | "outcome" if value.len() > MAX_OPTION => {
                    return Err(ApiError::bad_request(format!("{key} value too long")));
                }
                "side" => params.side = Some(value),
                "outcome" => params.outcome = Some(value),
                k if is_rule_option(k) => {
                    if value.len() > MAX_OPTION {
                        return Err(ApiError::bad_request(format!("{key} value too long")));
                    }
                    params.options.retain(|(k, _)| *k != key);
                    params.options.push((key, value));
                }
                _ => {
                    return Err(ApiError::bad_request(format!(
                        "unknown parameter '{}' (expected {})",
                        key.chars().take(32).collect::<String>(),
                        parameter_names().join(", ")
                    )));
                }
            }
        }
        Ok(params)
    }

    /// Refuses every parameter, for the listings (`/api/games`, `/api/tables`): a query there
    /// is a mistake, said as one on every other route.
    pub fn none(query: Option<&str>) -> Result<(), ApiError> {
        match query.filter(|q| !q.is_empty()) {
            Some(query) => Err(ApiError::bad_request(format!(
                "this listing takes no parameters (got '{}')",
                query.chars().take(32).collect::<String>()
            ))),
            None => Ok(()),
        }
    }

    /// The position of a request about one, which chooses none at random.
    fn fen(&self) -> Result<&str, ApiError> {
        self.no_choice()?;
        self.fen
            .as_deref()
            .ok_or_else(|| ApiError::bad_request("missing parameter 'fen'"))
    }

    /// Refuses `side` and `outcome` where no position is chosen at random.
    fn no_choice(&self) -> Result<(), ApiError> {
        match self.side.is_some() || self.outcome.is_some() {
            true => Err(ApiError::bad_request(
                "'side' and 'outcome' choose a random position: /api/{game}/random/{material}",
            )),
            false => Ok(()),
        }
    }
}

/// The state every request shares: the tables of each game, opened once, the default rule
/// options, and the statistics computed so far.
pub struct Api {
    tables: PathBuf,
    defaults: Vec<(String, String)>,
    chess: Arc<TableCache<Chess>>,
    xiangqi: Arc<TableCache<Xiangqi>>,
    darkchess: Arc<TableCache<DarkChess>>,
    stats: Memo<String, Arc<Json>>,
}

/// A game whose table cache an [`Api`] holds: `crate::with_game!` then reaches both the game's
/// type and its cache.
trait Cached: Game {
    fn cache(api: &Api) -> &Arc<TableCache<Self>>;
}

impl Cached for Chess {
    fn cache(api: &Api) -> &Arc<TableCache<Chess>> {
        &api.chess
    }
}

impl Cached for Xiangqi {
    fn cache(api: &Api) -> &Arc<TableCache<Xiangqi>> {
        &api.xiangqi
    }
}

impl Cached for DarkChess {
    fn cache(api: &Api) -> &Arc<TableCache<DarkChess>> {
        &api.darkchess
    }
}

/// Values computed once per key. A request for a key whose value is being computed waits for
/// that computation instead of starting another: a double click on "Show" costs one pass over
/// the table, not two. A failed computation leaves no entry, so the next request tries again.
struct Memo<K, V> {
    slots: Mutex<HashMap<K, Arc<Mutex<Option<V>>>>>,
}

impl<K: Clone + Eq + Hash, V: Clone> Memo<K, V> {
    fn new() -> Memo<K, V> {
        Memo {
            slots: Mutex::new(HashMap::new()),
        }
    }

    /// The value of `key`, computed by `compute` unless it was before.
    fn get_or_try<E>(&self, key: K, compute: impl FnOnce() -> Result<V, E>) -> Result<V, E> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(slots.entry(key.clone()).or_default())
        };
        let mut value = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(done) = &*value {
            return Ok(done.clone());
        }
        match compute() {
            Ok(computed) => {
                *value = Some(computed.clone());
                Ok(computed)
            }
            Err(e) => {
                self.slots.lock().unwrap_or_else(PoisonError::into_inner).remove(&key);
                Err(e)
            }
        }
    }
}

impl Api {
    /// An API over the tables in `tables`; `defaults` are rule options (`key`, `value`) applied
    /// to every game that has them unless a request says otherwise. A default no game has, or
    /// a value its option does not take, is an error here rather than in every request.
    pub fn new(tables: &Path, defaults: Vec<(String, String)>) -> anyhow::Result<Api> {
        check_options(&defaults)?;
        Ok(Api {
            tables: tables.to_path_buf(),
            defaults,
            chess: Arc::new(TableCache::new(tables)),
            xiangqi: Arc::new(TableCache::new(tables)),
            darkchess: Arc::new(TableCache::new(tables)),
            stats: Memo::new(),
        })
    }

    /// Every game's rule options: the values each takes and the one a request gets unless it
    /// says otherwise (the server's default, else the game's), for the board to offer.
    pub fn games(&self) -> Result<Json, ApiError> {
        let mut games = Vec::new();
        for game in GameId::ALL {
            let options = crate::with_game!(game, G => self.options_json::<G>())?;
            games.push(json!({ "game": game.name(), "options": options }));
        }
        Ok(json!({ "games": games }))
    }

    /// Game `G`'s rule options for [`Api::games`].
    fn options_json<G: Game>(&self) -> Result<Vec<Json>, ApiError> {
        let defaults = G::rules(&self.defaults_of::<G>()).map_err(|e| ApiError {
            status: 500,
            message: format!("{e:#}"),
        })?;
        let options = <G::Rules as Rules>::OPTIONS.iter().zip(defaults.options());
        Ok(options
            .map(|(option, (_, default))| json!({ "name": option.name, "values": option.values, "default": default }))
            .collect())
    }

    /// The server's default rule options that game `G` has.
    fn defaults_of<G: Game>(&self) -> Vec<(String, String)> {
        own_options::<G::Rules>(&self.defaults)
    }

    /// The game named in a URL; an unknown one is a 404.
    pub fn game(name: &str) -> Result<GameId, ApiError> {
        GameId::ALL.into_iter().find(|g| g.name() == name).ok_or_else(|| {
            ApiError::not_found(format!(
                "unknown game '{}' (expected {})",
                name.chars().take(32).collect::<String>(),
                one_of(&GameId::ALL.map(GameId::name))
            ))
        })
    }

    /// A prober of game `G` over the shared tables, under `rules`.
    fn prober<G: Cached>(&self, rules: G::Rules) -> Prober<G> {
        Prober::shared(Arc::clone(G::cache(self)), rules)
    }

    /// A position's value and every legal move, best first.
    pub fn position(&self, game: GameId, params: &Params) -> Result<Json, ApiError> {
        crate::with_game!(game, G => {
            let rules = self.rules::<G>(params)?;
            let (position, clocks) = parse::<G>(params.fen()?)?;
            position_json::<G>(&mut self.prober::<G>(rules), rules, (&position, clocks))
        })
    }

    /// The best-play line from a position to the end of the game.
    pub fn mainline(&self, game: GameId, params: &Params) -> Result<Json, ApiError> {
        crate::with_game!(game, G => {
            let rules = self.rules::<G>(params)?;
            let (position, clocks) = parse::<G>(params.fen()?)?;
            mainline_json::<G>(&mut self.prober::<G>(rules), (&position, clocks))
        })
    }

    /// A material's statistics as `egtb stats --json` gives them, computed once per table,
    /// spelling of the sides and rule set, whatever the order of the letters asked for.
    pub fn stats(&self, game: GameId, material: &str, params: &Params) -> Result<Json, ApiError> {
        if material.len() > MAX_MATERIAL {
            return Err(ApiError::bad_request("material name too long"));
        }
        if params.fen.is_some() {
            return Err(ApiError::bad_request("statistics take no 'fen'"));
        }
        params.no_choice()?;
        crate::with_game!(game, G => {
            let rules = self.rules::<G>(params)?;
            let (canonical, flipped) =
                G::parse_material(material).map_err(|e| ApiError::bad_request(format!("{e:#}")))?;
            let key = format!("{game}/{canonical}/{flipped}/{:?}", rules.options());
            let report = self.stats.get_or_try(key, || {
                let open = G::cache(self).get(&canonical, rules).map_err(ApiError::from_table_error)?;
                let stats = file_stats(&open.index, &open.table).map_err(ApiError::from_table_error)?;
                let rulings = open.rulings().map_err(ApiError::from_table_error)?;
                Ok(Arc::new(stats_json::<G>(&open.index, stats, rulings, rules, &canonical, flipped)))
            })?;
            Ok((*report).clone())
        })
    }

    /// A random legal position of a material with `side` to move (default the first side)
    /// whose outcome for that side is `outcome` (default `win`), analysed as [`Api::position`]
    /// does; a 404 when the table holds none.
    pub fn random(&self, game: GameId, material: &str, params: &Params) -> Result<Json, ApiError> {
        if material.len() > MAX_MATERIAL {
            return Err(ApiError::bad_request("material name too long"));
        }
        if params.fen.is_some() {
            return Err(ApiError::bad_request("a random position takes no 'fen'"));
        }
        let side = match &params.side {
            Some(name) => game
                .parse_side(name)
                .map_err(|e| ApiError::bad_request(format!("{e:#}")))?,
            None => Side::First,
        };
        let outcome = params.outcome.as_deref().unwrap_or("win");
        if !["win", "draw", "loss"].contains(&outcome) {
            return Err(ApiError::bad_request(format!(
                "unknown outcome '{outcome}' (expected win, draw or loss)"
            )));
        }
        crate::with_game!(game, G => {
            let rules = self.rules::<G>(params)?;
            let (canonical, flipped) =
                G::parse_material(material).map_err(|e| ApiError::bad_request(format!("{e:#}")))?;
            let mut prober = self.prober::<G>(rules);
            let table_side = if flipped { side.other() } else { side };
            let seed = RandomState::new().build_hasher().finish();
            let found = prober
                .random_position(&canonical, table_side, |v| v.outcome() == outcome, seed)
                .map_err(ApiError::from_table_error)?;
            let Some(position) = found else {
                let verb = match outcome {
                    "win" => "wins",
                    "draw" => "draws",
                    _ => "loses",
                };
                return Err(ApiError::not_found(format!(
                    "{game} {material} has no position where {} to move {verb}",
                    game.side_name(side)
                )));
            };
            let position = if flipped { G::flip(&position) } else { position };
            position_json::<G>(&mut prober, rules, (&position, Clocks::START))
        })
    }

    /// The tables present in the folder, read from their headers, leaving out a file whose
    /// header cannot be read or names another table than its place or this build writes (which
    /// `egtb list` marks bad too; a damaged block shows when it is read); a game's folder that
    /// cannot be read is a 500 naming it, not a listing without its tables.
    pub fn tables(&self) -> Result<Json, ApiError> {
        let files = table_files(&self.tables).map_err(|e| ApiError {
            status: 500,
            message: error_line(&e),
        })?;
        let mut listed = Vec::new();
        for path in files {
            let usable =
                Table::open_unchecked(&path).and_then(|table| check_found(&table, &self.tables).map(|()| table));
            let Ok(table) = usable else {
                continue;
            };
            let h = &table.header;
            let rules: serde_json::Map<String, Json> =
                h.rules.iter().map(|(k, v)| (k.clone(), v.clone().into())).collect();
            listed.push(json!({
                "game": h.game.name(),
                "material": h.material,
                "rules": rules,
                "states": h.states(),
                "bytes": table.file_bytes(),
            }));
        }
        Ok(json!({
            "tables": listed,
            "tables_dir": self.tables.display().to_string(),
            "tables_option": tables_option(&self.tables),
        }))
    }

    /// The rules of a request: the defaults this game has, then the request's options.
    fn rules<G: Game>(&self, params: &Params) -> Result<G::Rules, ApiError> {
        let mut options = self.defaults_of::<G>();
        options.retain(|(k, _)| !params.options.iter().any(|(p, _)| p == k));
        options.extend(params.options.iter().cloned());
        G::rules(&options).map_err(|e| ApiError::bad_request(format!("{e:#}")))
    }
}

/// The query parameters a request may carry: `fen`, `side`, `outcome` and every game's rule
/// options.
fn parameter_names() -> Vec<&'static str> {
    let mut names = vec!["fen", "side", "outcome"];
    for (_, option) in all_rule_options() {
        if !names.contains(&option.name) {
            names.push(option.name);
        }
    }
    names
}

/// Parses a legal position whose material egtb can build tables for, or the last position of
/// a game whose side to move has no pieces left (dark chess), which needs no table, with the
/// clocks its text carries.
fn parse<G: Game>(fen: &str) -> Result<(G::Position, Clocks), ApiError> {
    let (position, clocks) = G::parse_position_with_clocks(fen).map_err(|e| ApiError::bad_request(format!("{e:#}")))?;
    let material = G::material_of(&position);
    if material.side_pieces(G::side_to_move(&position)) > 0 {
        G::check_supported(&material).map_err(|e| ApiError::bad_request(format!("{e:#}")))?;
    }
    Ok((position, clocks))
}

/// A value's signed DTM for the side to move (see the module's convention).
fn signed_dtm(value: Value) -> Option<i32> {
    match value {
        Value::Win(d) => Some(i32::from(d)),
        Value::Loss(d) => Some(-i32::from(d)),
        Value::Draw => None,
    }
}

/// A position's analysis; its FEN and its moves' carry `clocks` on.
fn position_json<G: Game>(
    prober: &mut Prober<G>,
    rules: G::Rules,
    (position, clocks): (&G::Position, Clocks),
) -> Result<Json, ApiError> {
    let value = prober.value(position).map_err(ApiError::from_table_error)?;
    let moves = prober.moves(position).map_err(ApiError::from_table_error)?;
    let ruled = prober.ruled_end(position).map_err(ApiError::from_table_error)?;
    let pieces = G::material_of(position).pieces();
    let end = ending::<G>(position, rules);
    let moves: Vec<Json> = moves
        .into_iter()
        .map(|m| {
            let (child, child_clocks) = G::play_on((position, clocks), m.mv);
            let after = Value::child_of(m.value);
            let child_end = match after {
                Value::Draw | Value::Loss(0) => ending::<G>(&child, rules),
                _ => None,
            };
            json!({
                "uci": m.coords,
                "san": m.name,
                "category": after.outcome(),
                "dtm": signed_dtm(after),
                "capture": G::material_of(&child).pieces() < pieces,
                // Only chess promotes, and its coordinates then name the piece as a fifth letter
                // (e7e8q); xiangqi's and dark chess's have four.
                "promotion": G::ID == GameId::Chess && m.coords.len() == 5,
                "checkmate": child_end == Some(Ending::Checkmate),
                "stalemate": child_end == Some(Ending::Stalemate),
                "no_pieces": child_end == Some(Ending::NoPieces),
                "fen": G::format_position_with_clocks(&child, child_clocks),
            })
        })
        .collect();
    let side = G::side_to_move(position);
    Ok(json!({
        "game": G::ID.name(),
        "fen": G::format_position_with_clocks(position, clocks),
        "rules": rules_json(rules),
        "material": G::material_of(position).to_string(),
        "side_to_move": G::ID.side_name(side),
        "category": value.outcome(),
        "dtm": signed_dtm(value),
        "checkmate": end == Some(Ending::Checkmate),
        "stalemate": end == Some(Ending::Stalemate),
        "no_pieces": end == Some(Ending::NoPieces),
        "verdict": headline::<G>(position, value, ruled.as_ref()),
        "ruling": ruling_json::<G>(&ruled),
        "moves": moves,
    }))
}

/// The best line from a position, with the ruling its result rests on and how the game ends at
/// the line's last position (`ruling`, or [`Ending::key`]), as `egtb line --json` says them;
/// its positions carry `clocks` on.
fn mainline_json<G: Game>(
    prober: &mut Prober<G>,
    (position, clocks): (&G::Position, Clocks),
) -> Result<Json, ApiError> {
    let value = prober.value(position).map_err(ApiError::from_table_error)?;
    let line = prober.line(position).map_err(ApiError::from_table_error)?;
    let ruled = prober
        .ruled_end_of_line(position, &line)
        .map_err(ApiError::from_table_error)?;
    let side = G::side_to_move(position);
    let winner = value.winner(side);
    let reached = G::play_through((position, clocks), line.iter().map(|(m, _)| m.mv));
    let last = reached.last().map_or(position, |(at, _)| at);
    let steps: Vec<Json> = line
        .iter()
        .zip(&reached)
        .map(|((m, after), (at, clocks))| {
            json!({
                "uci": m.coords,
                "san": m.name,
                "category": after.outcome(),
                "dtm": signed_dtm(*after),
                "fen": G::format_position_with_clocks(at, *clocks),
            })
        })
        .collect();
    let ending = ending_key::<G>(ruled.as_ref(), last, prober.rules());
    Ok(json!({
        "game": G::ID.name(),
        "fen": G::format_position_with_clocks(position, clocks),
        "category": value.outcome(),
        "dtm": signed_dtm(value),
        "winner": winner.map(|s| G::ID.side_name(s)),
        "ruling": ruling_json::<G>(&ruled),
        "mainline": steps,
        "ending": ending,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::material::Material;
    use anyhow::Context;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    fn status(err: Error) -> u16 {
        let err = anyhow::Error::from(err).context("while answering");
        ApiError::from_table_error(err).status
    }

    #[test]
    fn table_errors_get_the_status_of_their_kind_through_any_context() {
        let missing = Error::MissingTable {
            material: Material::parse(GameId::Chess, "KRRvK").unwrap(),
            path: PathBuf::from("tables/chess/KRRvK.egtb"),
            command: "egtb generate chess KRRvK".into(),
            needed_by: None,
        };
        assert_eq!(status(missing), 404);
        let illegal = Error::IllegalPosition {
            reason: "the side not to move is in check".into(),
        };
        assert_eq!(status(illegal), 400);
        let corrupt = Error::CorruptTable {
            path: PathBuf::from("tables/chess/KRvK.egtb"),
            reason: "checksum mismatch".into(),
        };
        assert_eq!(status(corrupt), 500);
        let untyped = Err::<(), _>(anyhow::anyhow!("build it with: egtb generate chess KRvK"))
            .context("a message alone decides nothing")
            .unwrap_err();
        assert_eq!(ApiError::from_table_error(untyped).status, 500);
    }

    #[test]
    fn a_value_asked_for_while_it_is_computed_waits_for_it_and_a_failure_is_not_kept() {
        let memo = Memo::<&str, u32>::new();
        let computed = AtomicUsize::new(0);
        let (started, computing) = mpsc::channel();
        std::thread::scope(|scope| {
            let first = scope.spawn(|| {
                memo.get_or_try("KRvK", || {
                    started.send(()).unwrap();
                    // Computing until the second request holds the slot too (the memo's, this
                    // request's and its own): it then waits for this value or finds it. A memo
                    // that computed again instead would never take the slot: the deadline then
                    // lets the assertions below fail rather than hang.
                    let deadline = Instant::now() + Duration::from_secs(10);
                    while Arc::strong_count(&memo.slots.lock().unwrap()["KRvK"]) < 3 && Instant::now() < deadline {
                        std::thread::yield_now();
                    }
                    computed.fetch_add(1, Ordering::Relaxed);
                    Ok::<_, ()>(7)
                })
            });
            computing.recv().unwrap();
            let second = memo.get_or_try("KRvK", || {
                computed.fetch_add(1, Ordering::Relaxed);
                Ok::<_, ()>(8)
            });
            assert_eq!(second, Ok(7));
            assert_eq!(first.join().unwrap(), Ok(7));
        });
        assert_eq!(computed.load(Ordering::Relaxed), 1);
        assert_eq!(memo.get_or_try("KQvK", || Err::<u32, _>("damaged")), Err("damaged"));
        assert_eq!(memo.slots.lock().unwrap().len(), 1, "a failure leaves no entry");
        assert_eq!(memo.get_or_try("KQvK", || Ok::<_, &str>(9)), Ok(9));
    }
}
