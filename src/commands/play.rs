//! `egtb play`: a game against the table in the terminal. The board is drawn after every move,
//! the person types moves in either of the game's notations, the table answers with its best
//! move; `--auto` lets the table play both sides. Reads moves line by line, so it works with
//! piped input too.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::Result;

use serde_json::json;

use super::{Env, Palette};
use crate::Error;
use crate::counted::one_of;
use crate::error::error_line;
use crate::games::ending::ending;
use crate::games::{Clocks, Game};
use crate::material::{GameId, Side};
use crate::probe::{MoveValue, Prober, RuledEnd};
use crate::report::{headline, rules_json, rules_words, ruling_json, value_json};
use crate::value::Value;
use crate::with_game;

/// `egtb play` from the position whose fields are `words`, of the game its ranks tell.
pub fn start(env: &Env, words: &[String], side: Option<&str>, auto: bool) -> Result<()> {
    if words == ["-"] {
        return Err(Error::usage(
            "play reads moves, not positions, from the standard input: give the position to start from",
        ));
    }
    let text = words.join(" ");
    let (game, position) = super::detect_game(&text, None)?;
    with_game!(game, G => run::<G>(env, position, side, auto))
}

/// Plays from a position until the game ends, a drawn position is reached or the input ends.
pub fn run<G: Game>(env: &Env, text: &str, side: Option<&str>, auto: bool) -> Result<()> {
    let rules = env.rules::<G>()?;
    let (position, clocks) = G::parse_position_with_clocks(text)?;
    let person = match (auto, side) {
        (true, _) => None,
        (false, Some(name)) => Some(G::ID.parse_side(name).map_err(Error::as_usage)?),
        (false, None) => Some(G::side_to_move(&position)),
    };
    let mut prober = Prober::<G>::new(&env.tables, rules);
    let report = Report {
        game: G::ID,
        json: env.json,
        colour: Palette::detect().is_on(),
    };
    report.start(rules_json(rules), &rules_words(rules), person);
    let played = play_out(&report, &mut prober, (position, clocks), person);
    if let Err(error) = &played {
        report.failed(error);
    }
    played
}

/// Plays the game from `position` and its clocks, the person (when there is one) moving for
/// `person` by the moves read from the standard input, the table for the other side, until the
/// game ends.
fn play_out<G: Game>(
    report: &Report,
    prober: &mut Prober<G>,
    (mut position, mut clocks): (G::Position, Clocks),
    person: Option<Side>,
) -> Result<()> {
    let rules = prober.rules();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    loop {
        let value = prober.value(&position)?;
        let ruled = prober.ruled_end(&position)?;
        let mover = G::side_to_move(&position);
        report.position::<G>((&position, clocks), value, &ruled);
        let winner = value.winner(mover);
        if let Some(end) = ending::<G>(&position, rules) {
            let text = format!("Game over: {}, {}", end.name(), result_words(G::ID, winner));
            return report.end(end.key(), winner, &text);
        }
        if let Some(end) = ruled.filter(|end| end.position == position) {
            let text = format!(
                "Game over: lost by the rules ({}, order {}), {}",
                end.ruling.reason.name(),
                end.ruling.order,
                result_words(G::ID, winner)
            );
            return report.end("ruling", winner, &text);
        }
        if value == Value::Draw {
            let text = "Game over: a drawn position is reached; neither side can force a result.";
            return report.end("draw", None, text);
        }
        let moves = prober.moves(&position)?;
        let chosen = if person == Some(mover) {
            match ask_move::<G>(report, &mut input, (&position, rules), &moves)? {
                Some(m) => m,
                None => return report.end("unfinished", None, "Game left unfinished."),
            }
        } else {
            moves[0].clone()
        };
        report.moved(mover, person == Some(mover), &chosen);
        (position, clocks) = G::play_on((&position, clocks), chosen.mv);
    }
}

/// How a game is told: a board and sentences for a person, or with `--json` one object a line
/// for a program, each with its `event`: `start`, `position`, `move`, `rejected` (an input that
/// names no legal move, with the reason) and `end`.
struct Report {
    game: GameId,
    json: bool,
    colour: bool,
}

impl Report {
    /// The game's start: the rules as JSON, or in words (`rules_words`) after the game's name.
    fn start(&self, rules: serde_json::Value, rules_words: &str, person: Option<Side>) {
        match (self.json, person) {
            (true, _) => self.emit(json!({
                "event": "start",
                "game": self.game.name(),
                "rules": rules,
                "you": person.map(|side| self.game.side_name(side)),
            })),
            (false, Some(side)) => println!(
                "You play {} ({}{rules_words}). Type moves {}; 'quit' ends the game.",
                self.game.side_name(side),
                self.game,
                how_to_type(self.game)
            ),
            (false, None) => {}
        }
    }

    fn position<G: Game>(
        &self,
        (position, clocks): (&G::Position, Clocks),
        value: Value,
        ruled: &Option<RuledEnd<G::Position>>,
    ) {
        let fen = G::format_position_with_clocks(position, clocks);
        let verdict = headline::<G>(position, value, ruled.as_ref());
        if self.json {
            self.emit(json!({
                "event": "position",
                "position": fen,
                "side_to_move": self.game.side_name(G::side_to_move(position)),
                "value": value_json(value),
                "ruling": ruling_json::<G>(ruled),
                "verdict": verdict,
            }));
        } else {
            println!();
            print!("{}", draw_board(self.game, &fen, self.colour));
            println!("{fen}");
            println!("{verdict}");
        }
    }

    /// A move played: the person's, as the text form already shows it typed, or the table's.
    fn moved<M>(&self, mover: Side, by_person: bool, m: &MoveValue<M>) {
        if self.json {
            self.emit(json!({
                "event": "move",
                "by": if by_person { "you" } else { "table" },
                "side": self.game.side_name(mover),
                "move": m.name,
                "coords": m.coords,
            }));
        } else if !by_person {
            println!("{} plays {}", self.game.side_title(mover), m.label());
        }
    }

    /// Asks for the person's move (the text form only: a program knows when it is its turn).
    fn prompt(&self) -> Result<()> {
        if !self.json {
            print!("Your move: ");
            std::io::stdout().flush()?;
        }
        Ok(())
    }

    /// Echoes a line read that was not typed on a terminal, so that the text form's log reads as
    /// a game.
    fn typed(&self, typed: &str) {
        if !self.json && !std::io::stdin().is_terminal() {
            println!("{typed}");
        }
    }

    /// An input refused, with the moves it may mean (none where it names no legal move).
    fn rejected<M>(&self, typed: &str, reason: &str, meant: &[&MoveValue<M>]) {
        if self.json {
            let moves: Vec<_> = meant
                .iter()
                .map(|m| json!({ "move": m.name, "coords": m.coords }))
                .collect();
            self.emit(json!({ "event": "rejected", "input": typed, "error": reason, "moves": moves }));
        } else {
            println!("{reason}");
        }
    }

    fn end(&self, reason: &str, winner: Option<Side>, text: &str) -> Result<()> {
        if self.json {
            self.emit(json!({
                "event": "end",
                "reason": reason,
                "winner": winner.map(|side| self.game.side_name(side)),
                "text": text,
            }));
        } else {
            println!("{text}");
        }
        Ok(())
    }

    /// A game stopped by an error (a table missing or damaged): for a program, an `end` event
    /// with the reason `error` and the error's line, so that every game it reads ends with one;
    /// a person reads the error on stderr.
    fn failed(&self, error: &anyhow::Error) {
        if self.json {
            self.emit(json!({ "event": "end", "reason": "error", "winner": null, "text": error_line(error) }));
        }
    }

    fn emit(&self, event: serde_json::Value) {
        println!("{event}");
    }
}

/// Reads lines until one names a legal move; `None` at the end of the input or on `quit`.
fn ask_move<G: Game>(
    report: &Report,
    input: &mut impl BufRead,
    (position, rules): (&G::Position, G::Rules),
    moves: &[MoveValue<G::Move>],
) -> Result<Option<MoveValue<G::Move>>> {
    loop {
        report.prompt()?;
        // Bytes, not text: a line that is not UTF-8 is refused as a move, not the end of play.
        let mut bytes = Vec::new();
        if input.read_until(b'\n', &mut bytes)? == 0 {
            if !report.json {
                println!();
            }
            return Ok(None);
        }
        let line = String::from_utf8_lossy(&bytes);
        let typed = line.trim();
        if typed.is_empty() {
            continue;
        }
        if typed.eq_ignore_ascii_case("quit") {
            return Ok(None);
        }
        report.typed(typed);
        let named = G::moves_named(position, typed, rules);
        let named: Vec<&MoveValue<G::Move>> = moves.iter().filter(|m| named.contains(&m.mv)).collect();
        let reason = match named[..] {
            [one] => return Ok(Some(one.clone())),
            [] => {
                let legal: Vec<String> = moves.iter().map(MoveValue::label).collect();
                format!("'{typed}' is no legal move here. Legal moves: {}", legal.join(", "))
            }
            _ => {
                let labels: Vec<String> = named.iter().map(|m| m.label()).collect();
                let choices: Vec<&str> = labels.iter().map(String::as_str).collect();
                format!("'{typed}' names {} moves: say which, {}", named.len(), one_of(&choices))
            }
        };
        report.rejected(typed, &reason, &named);
    }
}

/// How to type a move in `game`, with examples: chess and xiangqi take either notation, dark
/// chess names a move by its coordinates alone.
fn how_to_type(game: GameId) -> &'static str {
    match game {
        GameId::Chess => "in either notation (for example Qb7 or d5b7)",
        GameId::Xiangqi => "in either notation (for example R2+3 or h2h5)",
        GameId::DarkChess => "as coordinates, from and to (for example b2b3)",
    }
}

/// The result of a game in words.
fn result_words(game: GameId, winner: Option<Side>) -> String {
    match winner {
        None => "draw".to_string(),
        Some(side) => format!("{} wins", game.side_title(side)),
    }
}

/// The board of a position's text (`/`-separated ranks, digits for empty squares) drawn with
/// file letters (and xiangqi's file numbers) and rank numbers, the first side's pieces
/// uppercase, the second's lowercase; in colour on a terminal.
pub fn draw_board(game: GameId, fen: &str, colour: bool) -> String {
    let board = fen.split_whitespace().next().unwrap_or("");
    let ranks: Vec<&str> = board.split('/').collect();
    let files = match game {
        GameId::Xiangqi => 9,
        _ => 8,
    };
    // Xiangqi ranks are numbered from 0 in ICCS; chess and dark chess from 1.
    let first_rank = usize::from(game != GameId::Xiangqi);
    // Xiangqi's files also carry WXF's numbers, each side's counted from its right: black's
    // above the board, red's below the letters.
    let file_line = |name: &dyn Fn(usize) -> String| {
        let names: String = (0..files).map(|f| format!(" {} ", name(f))).collect();
        format!("   {names}\n")
    };
    let numbered = game == GameId::Xiangqi;
    let mut out = String::new();
    if numbered {
        out.push_str(&file_line(&|f| (f + 1).to_string()));
    }
    for (row, rank) in ranks.iter().enumerate() {
        let number = ranks.len() - 1 - row + first_rank;
        out.push_str(&format!("{number:>2} "));
        let mut file = 0;
        for c in rank.chars() {
            if let Some(empty) = c.to_digit(10) {
                for _ in 0..empty {
                    out.push_str(&square(game, file, number, None, colour));
                    file += 1;
                }
            } else {
                out.push_str(&square(game, file, number, Some(c), colour));
                file += 1;
            }
        }
        out.push('\n');
    }
    out.push_str(&file_line(&|f| char::from(b'a' + f as u8).to_string()));
    if numbered {
        out.push_str(&file_line(&|f| (files - f).to_string()));
    }
    out
}

/// One square, three characters wide.
fn square(game: GameId, file: usize, rank: usize, piece: Option<char>, colour: bool) -> String {
    let text = format!(" {} ", piece.unwrap_or('.'));
    if !colour {
        return text;
    }
    let background = match game {
        GameId::Chess if (file + rank) % 2 == 1 => "48;5;137",
        GameId::Chess => "48;5;180",
        _ => "48;5;223",
    };
    let foreground = match piece {
        Some(c) if c.is_ascii_uppercase() && game == GameId::Chess => "1;97",
        Some(c) if c.is_ascii_uppercase() => "1;31",
        Some(_) => "1;30",
        None => "90",
    };
    format!("\x1b[{background};{foreground}m{text}\x1b[0m")
}
