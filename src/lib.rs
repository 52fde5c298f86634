//! `egtb`: endgame tablebases for chess, xiangqi and Chinese dark chess.

pub mod commands;
pub mod games;
pub mod generate;
pub mod material;
pub mod probe;
pub mod progress;
pub mod rulings;
pub mod solver;
pub mod stats;
pub mod table;
pub mod value;
