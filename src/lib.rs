//! `egtb`: endgame tablebases for chess, xiangqi and Chinese dark chess.

pub mod games;
pub mod material;
pub mod solver;
pub mod table;
pub mod value;
