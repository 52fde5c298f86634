//! Games, sides and materials: which pieces stand on the board, named the same way everywhere.

use std::fmt;

use anyhow::{Result, bail};

use crate::counted::one_of;
use crate::error::Error;

/// The games egtb knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameId {
    /// Western chess, pawns included (no castling).
    Chess,
    /// Chinese chess on the 9x10 board.
    Xiangqi,
    /// Chinese dark chess, its revealed endgames on the 4x8 board.
    DarkChess,
}

impl GameId {
    /// Every game, in the order the command line lists them.
    pub const ALL: [GameId; 3] = [GameId::Chess, GameId::Xiangqi, GameId::DarkChess];

    /// The name used on the command line, in file paths and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            GameId::Chess => "chess",
            GameId::Xiangqi => "xiangqi",
            GameId::DarkChess => "darkchess",
        }
    }

    /// Parses a game name.
    pub fn parse(text: &str) -> Result<GameId> {
        match GameId::ALL.into_iter().find(|g| g.name() == text) {
            Some(game) => Ok(game),
            None => bail!(
                "unknown game '{text}' (expected {})",
                one_of(&GameId::ALL.map(GameId::name))
            ),
        }
    }

    /// Piece letters in the canonical order of material names; a kind is its index here.
    pub fn kind_letters(self) -> &'static [u8] {
        match self {
            GameId::Chess => b"KQRBNP",
            GameId::Xiangqi => b"KRCNPAE",
            GameId::DarkChess => b"KAERNCP",
        }
    }

    /// A material of this game to show in help and errors.
    pub fn example_material(self) -> &'static str {
        match self {
            GameId::Chess => "KQvKR",
            GameId::Xiangqi => "KRvKAAEE",
            GameId::DarkChess => "KRvKC",
        }
    }

    /// The kind a piece letter names, either case, synonyms included: in xiangqi and dark chess
    /// B (bishop) is the elephant E and H the horse N.
    pub fn kind_of_letter(self, letter: u8) -> Option<usize> {
        let letter = match (self, letter.to_ascii_uppercase()) {
            (GameId::Xiangqi | GameId::DarkChess, b'B') => b'E',
            (GameId::Xiangqi | GameId::DarkChess, b'H') => b'N',
            (_, l) => l,
        };
        self.kind_letters().iter().position(|&l| l == letter)
    }

    /// Names of the two sides, first side first.
    pub fn side_names(self) -> [&'static str; 2] {
        match self {
            GameId::Chess => ["white", "black"],
            GameId::Xiangqi | GameId::DarkChess => ["red", "black"],
        }
    }

    /// The name of one side.
    pub fn side_name(self, side: Side) -> &'static str {
        self.side_names()[side.index()]
    }

    /// The side a name of this game's names (`white`/`red`, `black`, either case).
    pub fn parse_side(self, text: &str) -> Result<Side> {
        let names = self.side_names();
        match Side::BOTH.into_iter().find(|s| names[s.index()] == text.to_lowercase()) {
            Some(side) => Ok(side),
            None => bail!(
                "unknown side '{text}' for {self} (expected {} or {})",
                names[0],
                names[1]
            ),
        }
    }

    /// Capitalised name of a side: "White", "Red", "Black".
    pub fn side_title(self, side: Side) -> String {
        let name = self.side_name(side);
        name[..1].to_uppercase() + &name[1..]
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A side: the first (white / red, uppercase) or the second (black, lowercase).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// White in chess, red in xiangqi and dark chess: upper-case letters.
    First = 0,
    /// Black: lower-case letters.
    Second = 1,
}

impl Side {
    /// Both sides, the first side first.
    pub const BOTH: [Side; 2] = [Side::First, Side::Second];

    /// The opponent.
    pub fn other(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }

    /// 0 for the first side, 1 for the second: the index of per-side arrays.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The most piece kinds a game has.
pub const MAX_KINDS: usize = 8;

/// The fewest pieces of a material of any game: one a side.
pub const FEWEST_PIECES: usize = 2;
/// The most pieces a material can name: each of the three games starts with 32.
const MOST_PIECES: usize = 32;

/// The pieces on the board: a count per side and kind (kinds in the game's canonical order).
///
/// ```
/// use egtb::{GameId, Material, Side};
///
/// // Letters in any order; the sides stay as written until made canonical.
/// let material = Material::parse(GameId::Chess, "KPvKRQ")?;
/// assert_eq!(material.to_string(), "KPvKQR");
/// let (canonical, swapped) = material.canonical();
/// assert_eq!((canonical.to_string(), swapped), ("KQRvKP".to_string(), true));
/// assert_eq!(canonical.side_pieces(Side::First), 3);
/// assert!(Material::parse(GameId::Chess, "KXvK").is_err());
/// # Ok::<(), anyhow::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    /// The game whose pieces these are.
    pub game: GameId,
    /// Per side, how many pieces of each kind (indexed as [`GameId::kind_letters`]).
    pub counts: [[u8; MAX_KINDS]; 2],
}

impl Material {
    /// A material with no pieces.
    pub fn empty(game: GameId) -> Material {
        Material {
            game,
            counts: [[0; MAX_KINDS]; 2],
        }
    }

    /// Parses `KQvKR`-style text: the first side's letters, `v`, the second side's, in any order.
    /// The result keeps the sides as written; see [`Material::canonical`]. Text that is no
    /// material of the game is an [`Error::BadMaterial`]; whether egtb builds its tables is
    /// [`Game::check_material`](crate::Game::check_material)'s to say.
    pub fn parse(game: GameId, text: &str) -> Result<Material> {
        Material::parse_text(game, text).map_err(Error::bad_material)
    }

    fn parse_text(game: GameId, text: &str) -> Result<Material> {
        let Some((first, second)) = text.split_once(['v', 'V']) else {
            bail!(
                "material '{text}' has no 'v' between the sides (for example {})",
                game.example_material()
            );
        };
        if first.chars().count() + second.chars().count() > MOST_PIECES {
            bail!("material '{text}' has more than {MOST_PIECES} pieces, more than a game has");
        }
        let mut material = Material::empty(game);
        for (side, letters) in [first, second].into_iter().enumerate() {
            for letter in letters.chars() {
                let Some(kind) = u8::try_from(letter).ok().and_then(|b| game.kind_of_letter(b)) else {
                    let known = String::from_utf8_lossy(game.kind_letters());
                    let synonyms = match game {
                        GameId::Xiangqi | GameId::DarkChess => ", or H for N and B for E",
                        GameId::Chess => "",
                    };
                    bail!("material '{text}': '{letter}' is no {game} piece (expected {known}{synonyms})");
                };
                material.counts[side][kind] += 1;
            }
        }
        if material.pieces() == 0 {
            bail!("material '{text}' has no pieces");
        }
        Ok(material)
    }

    /// Number of pieces of `side` of `kind`.
    pub fn count(&self, side: Side, kind: usize) -> u8 {
        self.counts[side.index()][kind]
    }

    /// Checks that the pieces of a position hold exactly one king (kind `king`) a side; the
    /// error names the side, as a position's errors do.
    pub fn check_one_king_a_side(&self, king: usize) -> Result<()> {
        for side in Side::BOTH {
            let kings = self.count(side, king);
            if kings != 1 {
                bail!(
                    "{} must have exactly one king, found {kings}",
                    self.game.side_name(side)
                );
            }
        }
        Ok(())
    }

    /// Pieces of both sides together.
    pub fn pieces(&self) -> usize {
        self.counts.iter().flatten().map(|&c| usize::from(c)).sum()
    }

    /// Pieces of one side.
    pub fn side_pieces(&self, side: Side) -> usize {
        self.counts[side.index()].iter().map(|&c| usize::from(c)).sum()
    }

    /// The same material with the sides swapped.
    pub fn flipped(&self) -> Material {
        Material {
            game: self.game,
            counts: [self.counts[1], self.counts[0]],
        }
    }

    /// Whether the sides are written in canonical order: the first side has the greater counts,
    /// compared kind by kind in the game's canonical order.
    pub fn is_canonical(&self) -> bool {
        self.counts[0] >= self.counts[1]
    }

    /// The canonical orientation of this material, and whether the sides had to be swapped.
    pub fn canonical(&self) -> (Material, bool) {
        if self.is_canonical() {
            (*self, false)
        } else {
            (self.flipped(), true)
        }
    }

    /// The material after one piece of `side` of `kind` is captured.
    pub fn without(&self, side: Side, kind: usize) -> Material {
        let mut m = *self;
        m.counts[side.index()][kind] -= 1;
        m
    }

    /// Every material reached by capturing one piece of `victim_kinds`, canonical, deduplicated.
    pub fn captures(&self, victim_kinds: impl Fn(usize) -> bool) -> Vec<Material> {
        let mut subs: Vec<Material> = Side::BOTH
            .into_iter()
            .flat_map(|side| (0..MAX_KINDS).map(move |kind| (side, kind)))
            .filter(|&(side, kind)| self.count(side, kind) > 0 && victim_kinds(kind))
            .map(|(side, kind)| self.without(side, kind).canonical().0)
            .collect();
        subs.sort();
        subs.dedup();
        subs
    }

    /// Letters of one side in canonical order.
    pub fn side_name(&self, side: Side) -> String {
        let letters = self.game.kind_letters();
        let mut name = String::new();
        for (kind, &letter) in letters.iter().enumerate() {
            for _ in 0..self.count(side, kind) {
                name.push(letter as char);
            }
        }
        name
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.side_name(Side::First), self.side_name(Side::Second))
    }
}

/// Every way to split `budget` pieces over the kinds `0..kinds` with at most `max[k]` of kind k,
/// in a fixed order (used to enumerate the materials of a batch).
pub fn count_vectors(kinds: usize, max: &[u8], budget: usize) -> Vec<[u8; MAX_KINDS]> {
    fn walk(
        kind: usize,
        kinds: usize,
        max: &[u8],
        left: usize,
        cur: &mut [u8; MAX_KINDS],
        out: &mut Vec<[u8; MAX_KINDS]>,
    ) {
        if kind == kinds {
            out.push(*cur);
            return;
        }
        for n in 0..=usize::from(max[kind]).min(left) {
            cur[kind] = n as u8;
            walk(kind + 1, kinds, max, left - n, cur, out);
        }
        cur[kind] = 0;
    }
    let mut out = Vec::new();
    walk(0, kinds, max, budget, &mut [0; MAX_KINDS], &mut out);
    out
}

/// Every canonical material of `game` with at most `pieces` pieces in which each side has at
/// most `max[k]` pieces of kind `k` and passes `side_ok` (for example: exactly one king, at
/// least one piece), in no particular order: the materials a `Game::materials` lists.
pub fn materials_within(
    game: GameId,
    max: &[u8],
    pieces: usize,
    side_ok: impl Fn(&[u8; MAX_KINDS]) -> bool,
) -> Vec<Material> {
    let sides: Vec<[u8; MAX_KINDS]> = count_vectors(max.len(), max, pieces.saturating_sub(1))
        .into_iter()
        .filter(|counts| side_ok(counts))
        .collect();
    sides
        .iter()
        .flat_map(|&first| {
            sides.iter().map(move |&second| Material {
                game,
                counts: [first, second],
            })
        })
        .filter(|m| m.pieces() <= pieces && m.is_canonical())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides_are_named_by_each_game_in_either_case() {
        assert_eq!(GameId::Chess.parse_side("White").unwrap(), Side::First);
        assert_eq!(GameId::Xiangqi.parse_side("RED").unwrap(), Side::First);
        assert_eq!(GameId::DarkChess.parse_side("black").unwrap(), Side::Second);
        let error = GameId::Chess.parse_side("red").unwrap_err().to_string();
        assert_eq!(error, "unknown side 'red' for chess (expected white or black)");
        assert_eq!(GameId::Xiangqi.side_title(Side::First), "Red");
        assert_eq!(GameId::Chess.side_title(Side::Second), "Black");
    }

    #[test]
    fn parses_in_any_order_and_names_canonically() {
        let m = Material::parse(GameId::Chess, "KRvKQ").unwrap();
        assert!(!m.is_canonical());
        assert_eq!(m.canonical().0.to_string(), "KQvKR");
        assert_eq!(Material::parse(GameId::Chess, "RKvK").unwrap().to_string(), "KRvK");
        let x = Material::parse(GameId::Xiangqi, "KHBBvK").unwrap();
        assert_eq!(x.to_string(), "KNEEvK");
        assert_eq!(
            Material::parse(GameId::DarkChess, "KHvKB").unwrap().to_string(),
            "KNvKE"
        );
        assert_eq!(
            Material::parse(GameId::Xiangqi, "KRvKAAEE")
                .unwrap()
                .canonical()
                .0
                .to_string(),
            "KRvKAAEE"
        );
    }

    #[test]
    fn rejects_unknown_letters_and_missing_separator() {
        assert!(
            Material::parse(GameId::Chess, "KXvK")
                .unwrap_err()
                .to_string()
                .contains("'X'")
        );
        let xiangqi = Material::parse(GameId::Xiangqi, "KQvK").unwrap_err().to_string();
        assert!(
            xiangqi.ends_with("(expected KRCNPAE, or H for N and B for E)"),
            "{xiangqi}"
        );
        assert!(Material::parse(GameId::Chess, "KQK").is_err());
        assert!(Material::parse(GameId::Chess, "v").is_err());
        let accented = Material::parse(GameId::Chess, "KQvKé").unwrap_err().to_string();
        assert!(accented.contains("'é' is no chess piece"), "{accented}");
        let wide = Material::parse(GameId::Chess, "KQvK車").unwrap_err().to_string();
        assert!(wide.contains("'車' is no chess piece"), "{wide}");
    }

    #[test]
    fn refuses_more_pieces_than_a_game_has_with_its_kind() {
        // 257 kings would wrap a count of one kind around to one.
        let err = Material::parse(GameId::Chess, &format!("{}vK", "K".repeat(257))).unwrap_err();
        assert!(err.to_string().contains("more than 32 pieces"), "{err}");
        assert!(matches!(err.downcast_ref(), Some(Error::BadMaterial { .. })));
        let most = format!("{}v{}", "P".repeat(16), "P".repeat(16));
        assert_eq!(Material::parse(GameId::DarkChess, &most).unwrap().pieces(), 32);
    }

    #[test]
    fn captures_reach_canonical_smaller_materials() {
        let m = Material::parse(GameId::Chess, "KQvKR").unwrap();
        let subs: Vec<String> = m.captures(|k| k != 0).iter().map(|m| m.to_string()).collect();
        assert_eq!(subs, ["KRvK", "KQvK"]);
    }
}
