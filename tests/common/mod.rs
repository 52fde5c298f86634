//! Helpers shared by the chess tests: a seeded random source, random legal positions, symmetric
//! images and solved tables in a private folder.

#![allow(dead_code)]

use std::path::PathBuf;

use egtb::games::chess::board::{Kind, apply_symmetry};
use egtb::games::chess::{Chess, Piece, Position};
use egtb::generate::Generator;
use egtb::material::{GameId, Material, Side};
use egtb::solver::Silent;

/// A small deterministic random source (64-bit linear congruential, high bits).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

pub fn material(name: &str) -> Material {
    Material::parse(GameId::Chess, name).unwrap()
}

/// The pieces of a material, kings first.
fn pieces(material: &Material) -> Vec<Piece> {
    let mut out = Vec::new();
    for side in Side::BOTH {
        for kind in Kind::ALL.into_iter().chain([Kind::Pawn]) {
            for _ in 0..material.count(side, kind.index()) {
                out.push(Piece { side, kind });
            }
        }
    }
    out
}

/// A random legal position of a material (sides as written) with a random side to move.
pub fn random_position(rng: &mut Rng, material: &Material) -> Position {
    let pieces = pieces(material);
    loop {
        let mut board = [None; 64];
        let mut ok = true;
        for &piece in &pieces {
            let sq = rng.below(64) as usize;
            ok &= board[sq].is_none();
            board[sq] = Some(piece);
        }
        let turn = if rng.below(2) == 0 { Side::First } else { Side::Second };
        if ok && let Ok(position) = Position::new(board, turn) {
            return position;
        }
    }
}

/// The image of a position under one of the 8 symmetries of the board.
pub fn image(position: &Position, sym: usize) -> Position {
    let mut board = [None; 64];
    for sq in 0..64u8 {
        board[apply_symmetry(sym, sq) as usize] = position.piece_at(sq);
    }
    Position::new(board, position.turn()).unwrap()
}

/// A fresh folder for one test's tables.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("egtb-chess-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A generator in a fresh folder that has solved `names` (and what they need).
pub fn generator(test: &str, names: &[&str]) -> (Generator<'static, Chess>, PathBuf) {
    let dir = temp_dir(test);
    let mut generator = Generator::<Chess>::new(&dir, Default::default(), &Silent);
    for name in names {
        generator.ensure(&material(name)).unwrap();
    }
    (generator, dir)
}
