//! `egtb query` and `egtb line`: a position's value, its moves' outcomes, the best-play line;
//! for one position, or for a list of them read line by line (`-`), each told by its game.

use std::any::Any;
use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt::Write as _;
use std::io::BufRead;

use anyhow::{Result, anyhow, bail};
use serde_json::json;

use super::{Env, Palette, detect_game};
use crate::counted::{counted, grouped, plies};
use crate::error::{Error, error_line, one_line};
use crate::games::ending::{Ending, ending};
use crate::games::{Clocks, Game};
use crate::material::{GameId, Side};
use crate::probe::{MoveValue, Prober, RuledEnd, ending_key};
use crate::report::{headline, rules_json, rules_words, ruling_json, ruling_text, value_json};
use crate::value::Value;
use crate::with_game;

/// What is asked of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Question {
    /// Its value and every legal move's outcome (`egtb query`).
    Value,
    /// The best-play line to the end of the game (`egtb line`).
    Line,
}

/// A position read with its value and the ruling that value rests on: where `query` and `line`
/// start.
struct Probed<G: Game> {
    rules: G::Rules,
    position: G::Position,
    /// The clocks the position was given with, which its text and a line's moves carry on.
    clocks: Clocks,
    value: Value,
    ruled: Option<RuledEnd<G::Position>>,
}

impl<G: Game> Probed<G> {
    /// Probes the position's value; `ruled` is the ruling its result rests on.
    fn new(
        prober: &mut Prober<G>,
        (position, clocks): (G::Position, Clocks),
        ruled: Option<RuledEnd<G::Position>>,
    ) -> Result<Probed<G>> {
        let value = prober.value(&position)?;
        Ok(Probed {
            rules: prober.rules(),
            position,
            clocks,
            value,
            ruled,
        })
    }

    /// The value of the position in words, naming the ruling it rests on.
    fn headline(&self) -> String {
        headline::<G>(&self.position, self.value, self.ruled.as_ref())
    }

    /// The position written with its clocks.
    fn text(&self) -> String {
        G::format_position_with_clocks(&self.position, self.clocks)
    }
}

/// How the game ended at `position`, in words, when it has: where `query` starts and where
/// `line` ends.
fn ending_words<G: Game>(position: &G::Position, rules: G::Rules) -> Option<String> {
    let who = G::ID.side_title(G::side_to_move(position));
    Some(match ending::<G>(position, rules)? {
        Ending::Checkmate => format!("Checkmate: {who} to move is in check and has no legal move."),
        Ending::Stalemate => format!("Stalemate: {who} to move has no legal move."),
        Ending::NoPieces => format!("{who} has no pieces left."),
    })
}

/// Prints the answer to `question` about the position `text` of game `G`, given as `input`
/// (with the game's name, when it came first).
fn run<G: Game>(env: &Env, text: &str, input: &str, question: Question) -> Result<()> {
    let mut prober = Prober::<G>::new(&env.tables, env.rules::<G>()?);
    print!("{}", answer(env, &mut prober, (text, input), question)?);
    Ok(())
}

/// What `-` takes after it: nothing.
const STDIN_ALONE: &str = "'-' reads the positions from the standard input, one a line: give nothing after it";

/// `egtb query` or `line` (`question`) about the position whose fields are `words`, or about
/// every position on the standard input, one a line, when the position is `-` (alone or after a
/// game's name, which every position read must then be of).
pub fn ask(env: &Env, words: &[String], question: Question) -> Result<()> {
    match words {
        [word] if word == "-" => return batch(env, std::io::stdin().lock(), None, question),
        [game, word] if word == "-" => {
            let game = GameId::parse(game).map_err(Error::as_usage)?;
            return batch(env, std::io::stdin().lock(), Some(game), question);
        }
        [first, _, ..] if first == "-" => return Err(Error::usage(STDIN_ALONE)),
        [game, second, _, ..] if second == "-" && GameId::parse(game).is_ok() => {
            return Err(Error::usage(STDIN_ALONE));
        }
        _ => {}
    }
    let text = words.join(" ");
    let (game, position) = super::detect_game(&text, None)?;
    with_game!(game, G => run::<G>(env, position, &text, question))
}

/// Answers `question` about every position in `input`, one a line (blank lines and lines
/// starting with `#` skipped), of any game, in order: each answer as for one position, the text
/// forms separated by blank lines, the JSON forms one object a line. A position that cannot be
/// answered gets its error in its place (`{"input": ..., "error": ...}` in JSON) and the rest are
/// still answered; the command then fails, naming the lines.
pub fn batch(env: &Env, input: impl BufRead, named: Option<GameId>, question: Question) -> Result<()> {
    env.check_options()?;
    let mut probers = Probers::default();
    let mut asked = 0usize;
    let mut failed = Vec::new();
    // Lines as bytes: one that is not UTF-8 text gets its error in its place like any other.
    for (number, bytes) in input.split(b'\n').enumerate() {
        let bytes = bytes?;
        let line = String::from_utf8_lossy(&bytes);
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        // The lossy text is borrowed exactly when the bytes were UTF-8.
        let result = match line {
            Cow::Owned(_) => Err(anyhow!("the line is not UTF-8 text")),
            Cow::Borrowed(_) => detect_game(text, named).and_then(
                |(game, position)| crate::with_game!(game, G => answer(env, probers.get::<G>(env)?, (position, text), question)),
            ),
        };
        if asked > 0 && !env.json {
            println!();
        }
        asked += 1;
        match result {
            Ok(out) => print!("{out}"),
            Err(e) => {
                failed.push((number + 1).to_string());
                match env.json {
                    true => println!("{}", json!({ "input": text, "error": error_line(&e) })),
                    false => println!("{}\nerror: {}", one_line(text), error_line(&e)),
                }
            }
        }
    }
    if asked == 0 {
        bail!("no position on the standard input: give one a line, written as on the command line");
    }
    if !failed.is_empty() {
        /// Line numbers named in the error; the errors themselves are all in the output.
        const NAMED: usize = 10;
        let more = if failed.len() > NAMED { ", ..." } else { "" };
        bail!(
            "{} of {} could not be answered (input {} {}{more}); each error is printed in its place",
            grouped(failed.len() as u64),
            counted(asked, "position"),
            if failed.len() == 1 { "line" } else { "lines" },
            failed[..failed.len().min(NAMED)].join(", ")
        );
    }
    Ok(())
}

/// One prober a game, made when the first position of that game comes, so that each table is
/// opened once for the whole input.
#[derive(Default)]
struct Probers(HashMap<GameId, Box<dyn Any>>);

impl Probers {
    /// The prober of game `G`, under the command line's rules for it (an option of another game
    /// is that game's, not an error).
    fn get<G: Game>(&mut self, env: &Env) -> Result<&mut Prober<G>> {
        let prober = match self.0.entry(G::ID) {
            Entry::Occupied(entry) => entry.into_mut(),
            Entry::Vacant(entry) => entry.insert(Box::new(Prober::<G>::new(&env.tables, env.rules_among::<G>()?))),
        };
        Ok(prober.downcast_mut().expect("each game's prober is kept under its id"))
    }
}

/// The answer to `question` about the position `text`, given as `input` (which the JSON form
/// repeats): the text people read, or one line of JSON.
fn answer<G: Game>(
    env: &Env,
    prober: &mut Prober<G>,
    (text, input): (&str, &str),
    question: Question,
) -> Result<String> {
    let (position, clocks) = G::parse_position_with_clocks(text)?;
    match question {
        Question::Value => {
            let ruled = prober.ruled_end(&position)?;
            let probed = Probed::new(prober, (position, clocks), ruled)?;
            value_answer(env, prober, &probed, input)
        }
        Question::Line => {
            let line = prober.line(&position)?;
            let ruled = prober.ruled_end_of_line(&position, &line)?;
            line_answer(env, &Probed::new(prober, (position, clocks), ruled)?, &line, input)
        }
    }
}

/// A position's value and every legal move with its outcome, best first; `input`: the position
/// as given, which the JSON form repeats.
fn value_answer<G: Game>(env: &Env, prober: &mut Prober<G>, probed: &Probed<G>, input: &str) -> Result<String> {
    let moves = prober.moves(&probed.position)?;
    let side = G::side_to_move(&probed.position);
    let fen = probed.text();
    let mut out = String::new();
    if env.json {
        let moves: Vec<_> = moves
            .iter()
            .map(|m| json!({ "move": m.name, "coords": m.coords, "outcome": m.value.outcome(), "dtm": m.value.dtm() }))
            .collect();
        let json = json!({
            "input": input,
            "game": G::ID.name(),
            "rules": rules_json(probed.rules),
            "position": fen,
            "material": G::material_of(&probed.position).to_string(),
            "side_to_move": G::ID.side_name(side),
            "value": value_json(probed.value),
            "ruling": ruling_json::<G>(&probed.ruled),
            "ending": ending_key::<G>(probed.ruled.as_ref(), &probed.position, probed.rules),
            "moves": moves,
        });
        writeln!(out, "{json}")?;
        return Ok(out);
    }
    let palette = Palette::detect();
    writeln!(out, "{}", heading(probed))?;
    writeln!(out, "{}", palette.paint(probed.value, &probed.headline()))?;
    if let Some(ending) = ending_words::<G>(&probed.position, probed.rules) {
        writeln!(out, "{ending}")?;
    }
    if !moves.is_empty() {
        writeln!(out)?;
        let width = moves.iter().map(|m| m.name.len()).max().unwrap_or(0);
        let coords_width = moves.iter().map(|m| m.other_coords().len()).max().unwrap_or(0);
        for m in &moves {
            let coords = coords_column(m.other_coords(), coords_width);
            let line = format!("  {:<width$}  {coords}{}", m.name, describe(m.value));
            writeln!(out, "{}", palette.paint(m.value, &line))?;
        }
    }
    Ok(out)
}

/// The first line of an answer: the position in full, its game and material and the rules it is
/// valued under, so that each answer to a list of positions says which it answers.
fn heading<G: Game>(probed: &Probed<G>) -> String {
    let fen = probed.text();
    let rules = rules_words(probed.rules);
    format!("{fen}  ({} {}{rules})", G::ID, G::material_of(&probed.position))
}

/// The best-play line from a position to the end, one move a line with the plies left after it;
/// `input`: the position as given, which the JSON form repeats.
fn line_answer<G: Game>(
    env: &Env,
    probed: &Probed<G>,
    line: &[(MoveValue<G::Move>, Value)],
    input: &str,
) -> Result<String> {
    let side = G::side_to_move(&probed.position);
    let mut out = String::new();
    let reached = G::play_through((&probed.position, probed.clocks), line.iter().map(|(m, _)| m.mv));
    let last = reached.last().map_or(&probed.position, |(position, _)| position);
    if env.json {
        let steps: Vec<_> = line
            .iter()
            .zip(&reached)
            .map(|((m, after), (at, clocks))| {
                let fen = G::format_position_with_clocks(at, *clocks);
                json!({ "move": m.name, "coords": m.coords, "dtm_after": after.dtm(), "position_after": fen })
            })
            .collect();
        let json = json!({
            "input": input,
            "game": G::ID.name(),
            "rules": rules_json(probed.rules),
            "position": probed.text(),
            "material": G::material_of(&probed.position).to_string(),
            "side_to_move": G::ID.side_name(side),
            "value": value_json(probed.value),
            "ruling": ruling_json::<G>(&probed.ruled),
            "line": steps,
            "ending": ending_key::<G>(probed.ruled.as_ref(), last, probed.rules),
        });
        writeln!(out, "{json}")?;
        return Ok(out);
    }
    writeln!(out, "{}", heading(probed))?;
    writeln!(out, "{}", probed.headline())?;
    if let Some(ending) = ending_words::<G>(&probed.position, probed.rules) {
        writeln!(out, "{ending}")?;
    } else if probed.value == Value::Draw {
        writeln!(out, "No forced line: neither side can force the end of the game.")?;
    }
    let coords_width = line.iter().map(|(m, _)| m.other_coords().len()).max().unwrap_or(0);
    for (ply, (m, after)) in line.iter().enumerate() {
        let (number, dots) = move_number(side, probed.clocks.fullmove, ply);
        let coords = coords_column(m.other_coords(), coords_width);
        writeln!(
            out,
            "{number:>3}{dots:<3} {:<8} {coords}{} left",
            m.name,
            plies(after.dtm().unwrap_or(0))
        )?;
    }
    if let Some(end) = probed.ruled.as_ref().filter(|_| !line.is_empty()) {
        writeln!(out, "{}", ruling_text::<G>(end))?;
    } else if let Some(ending) = ending_words::<G>(last, probed.rules).filter(|_| !line.is_empty()) {
        writeln!(out, "{ending}")?;
    }
    Ok(out)
}

/// A column of coordinates `width` wide with the gap after it; nothing where no move of the
/// list has coordinates other than its name (dark chess).
fn coords_column(coords: &str, width: usize) -> String {
    match width {
        0 => String::new(),
        _ => format!("{coords:<width$}  "),
    }
}

/// The move number of ply `ply` (from 0) of a line that `starter` begins at move `first`, and
/// its dots, as a game score numbers it: the first side's move opens a number ("40."), the
/// second side's continues it ("40...").
pub fn move_number(starter: Side, first: u32, ply: usize) -> (u64, &'static str) {
    let ply = ply as u64 + u64::from(starter == Side::Second);
    (
        u64::from(first) + ply / 2,
        if ply.is_multiple_of(2) { "." } else { "..." },
    )
}

/// A move's outcome for the mover, in words.
fn describe(value: Value) -> String {
    match (value, value.moves()) {
        (Value::Win(d), Some(n)) => format!("win   in {n:>3} (DTM {d})"),
        (Value::Loss(d), Some(n)) => format!("loss  in {n:>3} (DTM {d})"),
        _ => "draw".to_string(),
    }
}
