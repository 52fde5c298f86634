//! The commands behind the CLI, written once for every game. `main.rs` only parses arguments,
//! picks the game and calls these.

pub mod audit;
pub mod bench;
pub mod convert;
pub mod generate;
pub mod list;
pub mod plan;
pub mod play;
pub mod query;
pub mod serve;
pub mod stats;
pub mod verify;

use std::ffi::OsStr;
use std::io::IsTerminal;
use std::num::{IntErrorKind, ParseIntError};
use std::path::PathBuf;
use std::str::FromStr;

use anyhow::{Result, bail};

use crate::Error;
use crate::counted::counted;
use crate::games::{Game, all_rule_options, check_options, own_options};
use crate::material::{FEWEST_PIECES, GameId, Material};
use crate::shell::tables_option;
use crate::table::folder_above_game_folder;
use crate::value::Value;

/// Reads a count option (`--every`, `--cpus-per-job`, ...): a whole number above zero, with an
/// error that says so rather than how the number failed to parse.
pub fn above_zero<T: FromStr<Err = ParseIntError> + Default + PartialEq>(text: &str) -> Result<T, String> {
    match text.parse::<T>() {
        Ok(count) if count != T::default() => Ok(count),
        Err(e) if *e.kind() == IntErrorKind::PosOverflow => Err(format!("'{text}' is too large")),
        _ => Err(format!("'{text}' is not a whole number above 0")),
    }
}

/// What every command shares: where the tables are, the rule options, the output form.
#[derive(Clone, Debug)]
pub struct Env {
    /// The tables folder.
    pub tables: PathBuf,
    /// Rule options given on the command line, `key=value`.
    pub options: Vec<(String, String)>,
    /// Print JSON instead of text.
    pub json: bool,
}

impl Env {
    /// Fails, naming the fix, when the tables folder is a file: checked before every command
    /// that reads or writes tables, so that each gives the same one line.
    pub fn check_tables_folder(&self) -> Result<()> {
        if self.tables.exists() && !self.tables.is_dir() {
            bail!(
                "{} is a file, not a folder of tables: give the folder with --tables",
                self.tables.display()
            );
        }
        for game in GameId::ALL {
            let folder = self.tables.join(game.name());
            if folder.exists() && !folder.is_dir() {
                bail!(
                    "{} is a file, not the folder of {game} tables: move it out of {}",
                    folder.display(),
                    self.tables.display()
                );
            }
        }
        if let Some(above) = folder_above_game_folder(&self.tables) {
            return Err(Error::usage(format!(
                "{} is a game's folder (it holds tables itself): give --tables the folder that holds it \
                 ({})",
                self.tables.display(),
                tables_option(&above)
            )));
        }
        Ok(())
    }

    /// The game's rules from the command line's options: an option the game does not have, or
    /// a value it does not take, is a usage error.
    pub fn rules<G: Game>(&self) -> Result<G::Rules> {
        G::rules(&self.options).map_err(Error::as_usage)
    }

    /// Fails when a rule option is given to a command over every game's tables, which has no
    /// game to choose tables of: the error shows the command with the option's game named.
    pub fn refuse_options(&self, command: &str) -> Result<()> {
        let Some((key, value)) = self.options.first() else {
            return Ok(());
        };
        let game = all_rule_options()
            .find(|(_, option)| option.name == key)
            .map_or("<game>", |(game, _)| game.name());
        Err(Error::usage(format!(
            "--{key} chooses among one game's tables: name the game, as in 'egtb {command} {game} --{key} {value}'"
        )))
    }

    /// Fails when a rule option is given to a command that no rule changes (`why`: what it
    /// covers), naming the option.
    pub fn takes_no_rules(&self, why: &str) -> Result<()> {
        match self.options.first() {
            Some((key, _)) => Err(Error::usage(format!("{why}: it takes no --{key}"))),
            None => Ok(()),
        }
    }

    /// Fails, as a usage error, unless every rule option is one some game has, with a value its
    /// game takes: for a command over positions or tables of any game.
    pub fn check_options(&self) -> Result<()> {
        check_options(&self.options).map_err(Error::as_usage)
    }

    /// The game's rules from those of the command line's options that it has, the others left
    /// to the games that have them: for a list of positions that may mix games.
    pub fn rules_among<G: Game>(&self) -> Result<G::Rules> {
        G::rules(&own_options::<G::Rules>(&self.options)).map_err(Error::as_usage)
    }
}

/// The game a position is written for, told by its number of ranks, and the position itself. The
/// position may follow its game's name (`chess 8/8/...`), as materials do on the command line,
/// and a list of positions may be read after one (`named`); a name must be the game the ranks
/// tell.
pub fn detect_game(text: &str, named: Option<GameId>) -> Result<(GameId, &str)> {
    let first = text.split_whitespace().next().unwrap_or("");
    let rest = text.trim_start()[first.len()..].trim_start();
    let (here, position) = match GameId::parse(first) {
        Ok(game) => (Some(game), rest),
        // Every board has ranks apart: a word without one, with more after it, names a game.
        Err(e) if !first.contains('/') && !rest.is_empty() => return Err(Error::as_usage(e)),
        Err(_) => (None, text),
    };
    if here.is_some() && position.is_empty() {
        return Err(Error::usage(format!(
            "no position after '{first}': give the position after the game's name"
        )));
    }
    if position.trim().is_empty() {
        return Err(Error::usage(
            "the position is empty: give a chess FEN (8 ranks), a xiangqi FEN (10) or a dark chess position (4)",
        ));
    }
    // One position: only its first word is a board, and a game's name comes before it.
    for word in position.split_whitespace().skip(1) {
        if word.contains('/') {
            return Err(Error::usage(format!(
                "'{word}' after the board is a second board: give one position (`-` reads several, one a line)"
            )));
        }
        if GameId::parse(word).is_ok() {
            return Err(Error::usage(format!(
                "'{word}' after the position: give the game's name before it, or leave it out"
            )));
        }
    }
    let board = position.split_whitespace().next().unwrap_or("");
    let ranks = board.split('/').count();
    let game = match ranks {
        8 => GameId::Chess,
        10 => GameId::Xiangqi,
        4 => GameId::DarkChess,
        n => bail!(
            "cannot tell the game of '{position}': {} (chess FEN has 8, xiangqi 10, dark chess 4)",
            counted(n, "rank")
        ),
    };
    if let Some(named) = [named, here].into_iter().flatten().find(|&named| named != game) {
        bail!(
            "'{position}' has {ranks} ranks, a {} position, not {}: give the position alone or after its game's name",
            game.name(),
            named.name()
        );
    }
    Ok((game, position))
}

/// The canonical materials a batch asks for: those named, and every supported one with at most
/// `pieces` pieces, each once; an error naming `verb` when there are none.
pub fn requested_materials<G: Game>(names: &[String], pieces: Option<usize>, verb: &str) -> Result<Vec<Material>> {
    let mut materials = names
        .iter()
        .map(|name| Ok(G::parse_material(name)?.0))
        .collect::<Result<Vec<Material>>>()?;
    if let Some(pieces) = pieces {
        if pieces < FEWEST_PIECES {
            return Err(Error::usage(format!(
                "{} tables have at least {FEWEST_PIECES} pieces, one a side: give --pieces {FEWEST_PIECES} or more",
                G::ID.name()
            )));
        }
        let most = G::MOST_PIECES;
        if pieces > most {
            return Err(Error::usage(format!(
                "{} tables have at most {most} pieces: give --pieces {most} or fewer",
                G::ID.name()
            )));
        }
        materials.extend(G::materials(pieces));
    }
    // Each once, in the order first asked for (a material named and in the batch too).
    let mut seen = std::collections::HashSet::new();
    materials.retain(|m| seen.insert(*m));
    if materials.is_empty() {
        return Err(Error::usage(format!(
            "nothing to {verb}: name a material (for example {}) or give --pieces N",
            G::ID.example_material()
        )));
    }
    Ok(materials)
}

/// Whether `NO_COLOR`'s value (`None`: unset) allows colours: set to nothing, it is as unset, like
/// every variable egtb reads (and as the convention of `NO_COLOR` itself has it).
fn colours_allowed(no_color: Option<&OsStr>) -> bool {
    no_color.is_none_or(OsStr::is_empty)
}

/// Terminal colours for outcomes, off when stdout is not a terminal or NO_COLOR has a value.
pub struct Palette {
    on: bool,
}

impl Palette {
    /// Colours on when stdout is a terminal and NO_COLOR has no value.
    pub fn detect() -> Palette {
        Palette {
            on: std::io::stdout().is_terminal() && colours_allowed(std::env::var_os("NO_COLOR").as_deref()),
        }
    }

    /// Whether colours are on.
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// `text` in green for a win, yellow for a draw, red for a loss.
    pub fn paint(&self, value: Value, text: &str) -> String {
        if !self.on {
            return text.to_string();
        }
        let code = match value {
            Value::Win(_) => 32,
            Value::Draw => 33,
            Value::Loss(_) => 31,
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_no_color_with_a_value_turns_colours_off() {
        assert!(colours_allowed(None));
        assert!(colours_allowed(Some(OsStr::new(""))));
        assert!(!colours_allowed(Some(OsStr::new("1"))));
    }
}
