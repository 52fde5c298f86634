//! The games: each supplies rules, index spaces and notation behind the [`Game`] trait, so that
//! the solver, the table files and the commands are written once for all of them.

pub mod binomial;
pub mod board_text;
pub mod chess;
pub mod clocks;
pub mod darkchess;
pub mod ending;
pub mod exit_entries;
pub mod typed_move;
pub mod xiangqi;

use std::borrow::Cow;
use std::cmp::Reverse;

use anyhow::{Result, anyhow, bail};

use crate::counted::{counted, one_of};
use crate::error::Error;
use crate::material::{GameId, Material, Side};
use crate::solver::gpu::GpuRules;
use crate::solver::rounds::RuledSolution;
use crate::solver::{Progress, Space, cpu};
use crate::table::TableSet;
use crate::value::Value;

pub use clocks::Clocks;

/// Runs `$body` with `$G` the [`Game`] type of a [`GameId`], so that code written once for every
/// game can be called with a game chosen at run time.
///
/// ```
/// use egtb::{Game, GameId, with_game};
///
/// let id = GameId::Xiangqi;
/// let name = with_game!(id, G => G::ID.name());
/// assert_eq!(name, "xiangqi");
/// ```
#[macro_export]
macro_rules! with_game {
    ($game:expr, $G:ident => $body:expr) => {
        match $game {
            $crate::material::GameId::Chess => {
                type $G = $crate::games::chess::Chess;
                $body
            }
            $crate::material::GameId::Xiangqi => {
                type $G = $crate::games::xiangqi::Xiangqi;
                $body
            }
            $crate::material::GameId::DarkChess => {
                type $G = $crate::games::darkchess::DarkChess;
                $body
            }
        }
    };
}

/// One rule option of a game: its name (a command-line flag, an API parameter, a part of a
/// table's file name) and the values it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleOption {
    /// The option's name, such as `cannon`.
    pub name: &'static str,
    /// Every value it takes, such as `jump` and `step`.
    pub values: &'static [&'static str],
}

/// Named rule options of a game (for example dark chess `cannon=step`). They are part of a
/// table's identity: recorded in its header and its file name, so tables of different rules
/// never mix. [`Game::rules`] builds them from `key=value` text.
pub trait Rules: Copy + Default + PartialEq + Eq + std::fmt::Debug + Send + Sync + 'static {
    /// The game's options with the values each takes, in the order [`Rules::options`] lists
    /// them: the one list that parsing, `--help`, shell completion and the board's choices read.
    const OPTIONS: &'static [RuleOption];
    /// Sets option `name` to `value`, one of the values [`Rules::OPTIONS`] gives it (any other
    /// pair is left alone: [`Game::rules`] has refused it already).
    fn set(&mut self, name: &str, value: &str);
    /// Every option with its value, defaults included, in the order of [`Rules::OPTIONS`].
    fn options(&self) -> Vec<(&'static str, &'static str)>;

    /// [`Rules::options`] as the command line writes them, each after a space: ` --cannon jump`.
    fn flags(&self) -> String {
        self.options().iter().map(|(k, v)| format!(" --{k} {v}")).collect()
    }

    /// [`Rules::options`] as owned strings, the form table headers and plans keep.
    fn option_strings(&self) -> Vec<(String, String)> {
        self.options()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// The option called `name`, where the game has one.
    fn option(name: &str) -> Option<&'static RuleOption> {
        Self::OPTIONS.iter().find(|o| o.name == name)
    }

    /// The values option `name` takes; none where the game has no such option.
    fn values(name: &str) -> &'static [&'static str] {
        Self::option(name).map_or(&[], |o| o.values)
    }
}

/// Those of `options` that rules `R` have, for options given once for several games (a list of
/// positions of any game, a server's defaults).
pub fn own_options<R: Rules>(options: &[(String, String)]) -> Vec<(String, String)> {
    options
        .iter()
        .filter(|(k, _)| R::option(k).is_some())
        .cloned()
        .collect()
}

/// The rules of game `G` that `options` give ([`Game::rules`], before its error gets its kind).
fn rules_of<G: Game>(options: &[(String, String)]) -> Result<G::Rules> {
    let game = G::ID.name();
    let mut rules = G::Rules::default();
    for (key, value) in options {
        let Some(option) = G::Rules::option(key) else {
            let names: Vec<&str> = G::Rules::OPTIONS.iter().map(|o| o.name).collect();
            match names.is_empty() {
                true => bail!("{game} has no rule options ('{key}' given)"),
                false => bail!("{game} has no rule option '{key}' (only {})", one_of(&names)),
            }
        };
        if !option.values.contains(&value.as_str()) {
            bail!("{game} option {key}={value}: expected {}", one_of(option.values));
        }
        rules.set(key, value);
    }
    Ok(rules)
}

/// Checks options given once for several games: each must be some game's, with a value that
/// game's option takes.
pub fn check_options(options: &[(String, String)]) -> Result<()> {
    if let Some((key, _)) = options.iter().find(|(k, _)| !is_rule_option(k)) {
        return Err(Error::bad_rules(anyhow!("no game has a rule option '{key}'")));
    }
    for game in GameId::ALL {
        with_game!(game, G => G::rules(&own_options::<<G as Game>::Rules>(options)).map(drop))?;
    }
    Ok(())
}

/// Whether some game has a rule option called `name`.
pub fn is_rule_option(name: &str) -> bool {
    all_rule_options().any(|(_, o)| o.name == name)
}

/// Every game's rule options, with the game each belongs to.
pub fn all_rule_options() -> impl Iterator<Item = (GameId, &'static RuleOption)> {
    GameId::ALL.into_iter().flat_map(|game| {
        with_game!(game, G => <<G as Game>::Rules as Rules>::OPTIONS)
            .iter()
            .map(move |o| (game, o))
    })
}

/// The index space of one material: a dense numbering of its positions, both sides to move.
///
/// Every game lays its states out the same way: `state = side * per_side + slot`, the first
/// side to move's slots, then the second side's, equally many; a slot numbers a placement of
/// the pieces. A game may hold further states after these `2 * per_side` (chess: the positions
/// with an en passant right); [`IndexSpace::split`] and [`IndexSpace::state`] do not apply to
/// them, and such a game overrides [`IndexSpace::states`] and [`IndexSpace::side_to_move`].
pub trait IndexSpace: Send + Sync {
    /// The positions the index numbers.
    type Position;

    /// Number of slots for one side to move.
    fn per_side(&self) -> u64;
    /// The slot of a legal position of this material (sides as in the table's material).
    fn locate(&self, position: &Self::Position) -> u64;
    /// The position a slot stands for (its canonical representative), `None` for a broken slot.
    fn decode(&self, state: u64) -> Option<Self::Position>;
    /// How many full-board positions the slot stands for: the distinct images of its position
    /// under the game's symmetries (identical pieces unordered); 0 for a broken slot, and in
    /// chess for a position with an en passant right, which statistics do not count.
    fn weight(&self, state: u64) -> u32;

    /// States whose working words the CPU solver holds at once: every state, unless the table
    /// is solved a slice at a time (see [`crate::solver::slices`]).
    fn working_states(&self) -> u64 {
        self.states()
    }

    /// Number of states, both sides to move (the table's length).
    fn states(&self) -> u64 {
        2 * self.per_side()
    }
    /// The state of a slot with `side` to move.
    #[inline]
    fn state(&self, side: Side, slot: u64) -> u64 {
        side.index() as u64 * self.per_side() + slot
    }
    /// The side to move and the slot of a state.
    #[inline]
    fn split(&self, state: u64) -> (Side, u64) {
        split_state(state, self.per_side())
    }
    /// The side to move in a state.
    fn side_to_move(&self, state: u64) -> Side {
        self.split(state).0
    }
}

/// The side to move and the slot of a state (see [`IndexSpace`]).
#[inline]
pub fn split_state(state: u64, per_side: u64) -> (Side, u64) {
    if state < per_side {
        (Side::First, state)
    } else {
        (Side::Second, state - per_side)
    }
}

/// Fails unless the GPU solver can number the `states` states of `material`: its kernels number
/// states in 32 bits.
pub fn check_gpu_states(material: &Material, states: u64) -> Result<()> {
    if states > u64::from(u32::MAX) {
        bail!(
            "{material} has {}, more than the GPU solver numbers in 32 bits (use --backend cpu)",
            counted(states, "state")
        );
    }
    Ok(())
}

/// Materials in the order [`Game::materials`] lists them, the same for every game: fewer pieces
/// first, and within a piece count the greater material first ([`Material`]'s order: the first
/// side's counts, then the second's, compared kind by kind in [`GameId::kind_letters`] order, so
/// the strongest kinds lead).
pub fn in_listing_order(mut materials: Vec<Material>) -> Vec<Material> {
    materials.sort_by_key(|m| (m.pieces(), Reverse(*m)));
    materials
}

/// A game: its materials, index spaces, positions, moves and notation.
pub trait Game: Sized + Send + Sync + 'static {
    /// Which game this is.
    const ID: GameId;
    /// Version of the game's index scheme, recorded in table headers.
    const INDEX_VERSION: u32;
    /// The most pieces of a material whose tables egtb builds: [`Game::materials`] lists none
    /// larger, whatever it is asked for.
    const MOST_PIECES: usize;
    /// The game's rule options.
    type Rules: Rules;
    /// A legal position with its side to move.
    type Position: Clone + PartialEq + std::fmt::Debug + Send + Sync;
    /// A move from one position to the next.
    type Move: Copy + PartialEq + std::fmt::Debug;
    /// The index space of one material.
    type Index: IndexSpace<Position = Self::Position>;
    /// The solver's view of one material, borrowing its index and the solved tables its exits reach.
    type Space<'t>: Space + Send + Sync;

    /// The rules that `key=value` options give, the others at their defaults: an option the
    /// game lacks, or a value its option does not take, is an [`Error::BadRules`] that names
    /// what it takes.
    fn rules(options: &[(String, String)]) -> Result<Self::Rules> {
        rules_of::<Self>(options).map_err(Error::bad_rules)
    }

    /// Checks that egtb can build tables of this material, which must be canonical (the form
    /// tables are stored in): an [`Error::BadMaterial`] saying why if not.
    fn check_material(material: &Material) -> Result<()> {
        Self::check_counts(material).map_err(Error::bad_material)?;
        if !material.is_canonical() {
            let canonical = material.canonical().0;
            return Err(Error::bad_material(anyhow!(
                "material {material} is not canonical (write it as {canonical})"
            )));
        }
        Ok(())
    }
    /// Parses a material name of this game and returns its canonical form (the one its table is
    /// stored under) and whether the sides were swapped to get it; an [`Error::BadMaterial`]
    /// naming the material as typed when egtb builds no tables of it.
    fn parse_material(text: &str) -> Result<(Material, bool)> {
        Self::check_supported(&Material::parse(Self::ID, text)?)
    }

    /// Checks that egtb builds tables of a material in either orientation and returns its
    /// canonical form and whether the sides were swapped to get it; an [`Error::BadMaterial`]
    /// naming the material as given if not (the pieces of a position, a material typed).
    fn check_supported(material: &Material) -> Result<(Material, bool)> {
        let (canonical, flipped) = material.canonical();
        if let Err(error) = Self::check_material(&canonical) {
            // The same checks on the sides as given, so that the error names the material so.
            return Err(Self::check_material(material).err().unwrap_or(error));
        }
        Ok((canonical, flipped))
    }

    /// Fails, saying why, unless egtb builds tables of a canonical material with these counts of
    /// this game's pieces (the game's part of [`Game::check_material`]).
    fn check_counts(material: &Material) -> Result<()>;
    /// The canonical materials that this material's exits (captures) reach; each must be solved
    /// first. Materials in which a side has already lost (dark chess: no pieces) are not listed.
    fn sub_materials(material: &Material) -> Vec<Material>;
    /// Every supported canonical material with at most `pieces` pieces, each after the materials
    /// its exits reach, in [`in_listing_order`]: a capture lowers the piece count, and a chess
    /// pawn's promotion, which keeps it, gives a greater material, listed first.
    fn materials(pieces: usize) -> Vec<Material>;

    /// The index space of a canonical material.
    fn index(material: &Material, rules: Self::Rules) -> Result<Self::Index>;
    /// The solver's view of a material: its index plus the solved tables its exits reach.
    fn space<'t>(index: &'t Self::Index, rules: Self::Rules, tables: &'t TableSet) -> Result<Self::Space<'t>>;

    /// Solves a material on the CPU: the plain retrograde solve, or, under rules that rule on
    /// repetitions, the solve in rounds with its rulings.
    fn solve_cpu(
        index: &Self::Index,
        rules: Self::Rules,
        tables: &TableSet,
        progress: &dyn Progress,
    ) -> Result<RuledSolution> {
        let space = Self::space(index, rules, tables)?;
        Ok(RuledSolution::plain(cpu::solve(&space, progress)))
    }

    /// Whether the rules may rule positions of this material lost (xiangqi's Asian rules); the
    /// tables of other materials, and of their smaller ones, have no rulings.
    fn may_rule(_material: &Material, _rules: Self::Rules) -> bool {
        false
    }

    /// Bytes a state of a material that the rules' own passes may hold beside the solver's
    /// words: an allowance for the worst case in the peaks a plan shows ([`crate::plan`]), 0 for
    /// rules without passes of their own.
    fn rule_bytes_per_state(_material: &Material, _rules: Self::Rules) -> u64 {
        0
    }

    /// Checks, before any table is built, that the GPU solver takes this canonical material (a
    /// clear error naming the CPU solver if not): the game's counts, then [`check_gpu_states`].
    fn check_gpu_material(material: &Material, rules: Self::Rules) -> Result<()> {
        Self::check_gpu_counts(material)?;
        check_gpu_states(material, Self::index(material, rules)?.states())
    }
    /// Fails, naming the CPU solver, unless the game's GPU rules take a material with these
    /// counts of pieces (the game's part of [`Game::check_gpu_material`]); by default they do.
    fn check_gpu_counts(_material: &Material) -> Result<()> {
        Ok(())
    }

    /// The GPU twin of the solver's view: a WGSL rules module and its data.
    fn gpu_rules<'t>(
        index: &'t Self::Index,
        rules: Self::Rules,
        tables: &'t TableSet,
    ) -> Result<Box<dyn GpuRules + 't>>;

    /// Parses a position in the game's notation, checking that it is legal, with the clocks its
    /// text carries after it ([`Clocks::START`] where it carries none, or the notation has none).
    fn parse_position_with_clocks(text: &str) -> Result<(Self::Position, Clocks)>;
    /// Parses a position in the game's notation, checking that it is legal.
    fn parse_position(text: &str) -> Result<Self::Position> {
        Self::parse_position_with_clocks(text).map(|(position, _)| position)
    }
    /// Fails, as an [`Error::IllegalPosition`], unless `position` is one the game's tables hold:
    /// what [`Game::parse_position`] checks of the position it reads, for one built in code.
    fn check_position(position: &Self::Position) -> Result<()>;
    /// Writes a position in the game's notation, with `clocks` where the notation has them.
    fn format_position_with_clocks(position: &Self::Position, clocks: Clocks) -> String;
    /// Writes a position in the game's notation (with [`Clocks::START`]).
    fn format_position(position: &Self::Position) -> String {
        Self::format_position_with_clocks(position, Clocks::START)
    }
    /// Whether a legal move resets the halfmove clock: a capture, and in chess a pawn's move.
    fn resets_clock(position: &Self::Position, mv: Self::Move) -> bool;
    /// The pieces on the board, sides as on the board.
    fn material_of(position: &Self::Position) -> Material;
    /// The side to move.
    fn side_to_move(position: &Self::Position) -> Side;
    /// The same position with the sides (and the board, as the game requires) swapped, so that
    /// it belongs to the flipped material.
    fn flip(position: &Self::Position) -> Self::Position;
    /// The canonical material of a position and the position as that material's table holds
    /// it: flipped when the canonical material has the sides the other way round.
    fn oriented(position: &Self::Position) -> (Material, Cow<'_, Self::Position>) {
        let (material, flipped) = Self::material_of(position).canonical();
        let position = if flipped {
            Cow::Owned(Self::flip(position))
        } else {
            Cow::Borrowed(position)
        };
        (material, position)
    }
    /// Every legal move.
    fn legal_moves(position: &Self::Position, rules: Self::Rules) -> Vec<Self::Move>;
    /// The position after a legal move.
    fn play(position: &Self::Position, mv: Self::Move) -> Self::Position;
    /// The position after a legal move, and the clocks after it.
    fn play_on((position, clocks): (&Self::Position, Clocks), mv: Self::Move) -> (Self::Position, Clocks) {
        let clocks = clocks.after(Self::side_to_move(position), Self::resets_clock(position, mv));
        (Self::play(position, mv), clocks)
    }
    /// The positions after each of `moves` in turn from `start`, each with its clocks run on (the
    /// last is where the moves end; none without moves).
    fn play_through(
        (position, clocks): (&Self::Position, Clocks),
        moves: impl IntoIterator<Item = Self::Move>,
    ) -> Vec<(Self::Position, Clocks)> {
        let mut reached: Vec<(Self::Position, Clocks)> = Vec::new();
        for mv in moves {
            let at = reached.last().map_or((position, clocks), |(p, c)| (p, *c));
            reached.push(Self::play_on(at, mv));
        }
        reached
    }
    /// What a position with no legal move is worth to the side to move, or a position in which
    /// the game is already over (for dark chess, the side to move has no pieces).
    fn game_over(position: &Self::Position, rules: Self::Rules) -> Option<Value>;
    /// Whether the side to move is in check (never in dark chess, which has no check).
    fn in_check(position: &Self::Position) -> bool;
    /// A move in the game's two notations: (the readable one, the coordinate one), for example
    /// (SAN, UCI) in chess.
    fn move_names(position: &Self::Position, mv: Self::Move) -> (String, String);
    /// The legal moves that a person's text names, in either notation and in the spellings
    /// people use (check marks optional, coordinates in either case and with a dash): one move,
    /// several where the text leaves out what tells them apart (which of two pieces moves, what a
    /// pawn promotes to), or none.
    fn moves_named(position: &Self::Position, text: &str, rules: Self::Rules) -> Vec<Self::Move>;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every game refuses a material with its sides the wrong way round as a bad material, in
    /// the same words.
    #[test]
    fn every_game_refuses_a_material_that_is_not_canonical() {
        for (game, name, canonical) in [
            (GameId::Chess, "KRvKQ", "KQvKR"),
            (GameId::Xiangqi, "KvKR", "KRvK"),
            (GameId::DarkChess, "KCvKR", "KRvKC"),
        ] {
            let material = Material::parse(game, name).unwrap();
            let error = with_game!(game, G => G::check_material(&material)).unwrap_err();
            assert!(
                matches!(error.downcast_ref(), Some(Error::BadMaterial { .. })),
                "{game}"
            );
            assert_eq!(
                error.to_string(),
                format!("material {name} is not canonical (write it as {canonical})")
            );
        }
    }

    fn pair(key: &str, value: &str) -> Vec<(String, String)> {
        vec![(key.to_string(), value.to_string())]
    }

    /// Every value of every option is set and read back with the other options at their
    /// defaults; what an option does not take, and an option the game lacks, are refused with
    /// what it takes.
    fn options_round_trip<G: Game>() {
        let defaults = G::Rules::default().options();
        let names: Vec<&str> = defaults.iter().map(|(k, _)| *k).collect();
        assert_eq!(names, G::Rules::OPTIONS.iter().map(|o| o.name).collect::<Vec<_>>());
        for option in G::Rules::OPTIONS {
            for &value in option.values {
                let expected: Vec<_> = defaults
                    .iter()
                    .map(|&(k, v)| (k, if k == option.name { value } else { v }))
                    .collect();
                assert_eq!(G::rules(&pair(option.name, value)).unwrap().options(), expected);
            }
            let err = G::rules(&pair(option.name, "sideways")).unwrap_err().to_string();
            assert!(err.contains(&one_of(option.values)), "{err}");
        }
        let err = G::rules(&pair("gravity", "on")).unwrap_err().to_string();
        assert!(err.starts_with(G::ID.name()) && err.contains("'gravity'"), "{err}");
    }

    #[test]
    fn every_games_options_take_exactly_their_values() {
        for game in GameId::ALL {
            with_game!(game, G => options_round_trip::<G>());
        }
    }

    /// The largest materials the game lists have [`Game::MOST_PIECES`] pieces, and are built.
    fn most_pieces<G: Game>(listed_up_to: usize) {
        let largest = G::materials(listed_up_to)
            .into_iter()
            .max_by_key(Material::pieces)
            .unwrap();
        assert_eq!(largest.pieces(), listed_up_to.min(G::MOST_PIECES), "{}", G::ID);
        G::check_material(&largest).unwrap();
    }

    /// [`Game::materials`] lists each material after every material its exits reach (chess:
    /// its promotions too), and lists the first three-piece materials strongest first.
    fn listed_after_exits<G: Game>(pieces: usize, three: [&str; 3]) {
        let all = G::materials(pieces);
        let mut listed = std::collections::HashSet::new();
        for material in &all {
            for sub in G::sub_materials(material) {
                assert!(listed.contains(&sub), "{}: {sub} after {material}", G::ID);
            }
            listed.insert(*material);
        }
        let first: Vec<String> = all
            .iter()
            .filter(|m| m.pieces() == 3)
            .take(3)
            .map(Material::to_string)
            .collect();
        assert_eq!(first, three, "{}", G::ID);
    }

    #[test]
    fn every_game_lists_materials_after_their_exits_strongest_first() {
        listed_after_exits::<chess::Chess>(5, ["KQvK", "KRvK", "KBvK"]);
        listed_after_exits::<xiangqi::Xiangqi>(5, ["KRvK", "KCvK", "KNvK"]);
        listed_after_exits::<darkchess::DarkChess>(4, ["KAvK", "KAvA", "KAvE"]);
    }

    #[test]
    fn no_game_lists_a_material_larger_than_its_most_pieces() {
        most_pieces::<chess::Chess>(chess::Chess::MOST_PIECES + 1);
        most_pieces::<xiangqi::Xiangqi>(xiangqi::Xiangqi::MOST_PIECES + 1);
        // Listing every dark chess material up to 12 pieces takes long: the largest index of 12
        // (every piece single) is built, one of 13 refused.
        most_pieces::<darkchess::DarkChess>(4);
        let index = |name| darkchess::index::DarkIndex::new(&Material::parse(GameId::DarkChess, name).unwrap());
        let twelve = index("KAERNCvKAERNC").unwrap();
        assert_eq!(twelve.material().pieces(), darkchess::DarkChess::MOST_PIECES);
        assert!(index("KAERNCPvKAERNC").is_err());
        let thirteen = Material::parse(GameId::DarkChess, "KAERNCPvKAERNC").unwrap();
        assert!(darkchess::DarkChess::check_material(&thirteen).is_err());
    }
}
