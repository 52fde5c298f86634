//! `egtb`: endgame tablebases for chess, xiangqi and Chinese dark chess.
//!
//! For every position of a small material (the pieces on the board), a table says whether the
//! side to move wins, draws or loses, and in how many plies (exact DTM, distance to mate). Tables
//! are built backwards from the final positions by retrograde analysis, on the GPU (wgpu and
//! WGSL) or with the multi-threaded CPU solver, which give the same bytes. The rules the tables
//! implement, how positions are counted and the algorithm are in the repository's `docs/`.
//!
//! A program builds tables with a [`Generator`], then reads them with a [`Prober`]: a position's
//! [`Value`], and every legal move with the value it leads to ([`MoveValue`]); an
//! [`audit::Auditor`] checks a table on disk against its moves. Each game
//! ([`Chess`], [`Xiangqi`], [`DarkChess`]) implements [`Game`]: its positions, moves, notation
//! and rule options ([`Rules`], each listed with its values as a [`RuleOption`]). Failures a
//! program must tell apart are [`Error`]s inside the `anyhow` errors the library returns.
//!
//! ```
//! use egtb::{Chess, Error, Game, GameId, Generator, Material, Prober, Silent, Value, Xiangqi};
//!
//! let dir = std::env::temp_dir().join(format!("egtb-doc-{}", std::process::id()));
//! // A rook against a bare king, after the table of the bare kings it captures into; a
//! // generator solves on the CPU unless `with_backend` chooses the GPU.
//! let rules = Default::default();
//! Generator::<Chess>::new(&dir, rules, &Silent).ensure(&Material::parse(GameId::Chess, "KRvK")?)?;
//!
//! let mut prober = Prober::<Chess>::new(&dir, rules);
//! let position = Chess::parse_position("8/8/8/4k3/8/8/8/R3K3 w - - 0 1")?;
//! assert_eq!(prober.value(&position)?, Value::Win(27)); // mate in 14 moves: 27 plies
//! for m in prober.moves(&position)? {
//!     println!("{} ({}): {}", m.name, m.coords, m.value);
//! }
//! // Best play to mate, one move a step, with the value of the position it leaves.
//! assert_eq!(prober.line(&position)?.len(), 27);
//!
//! // Other games alike; rule options as the command line gives them (`--rules draw`).
//! let rules = Xiangqi::rules(&[("rules".into(), "draw".into())])?;
//! Generator::<Xiangqi>::new(&dir, rules, &Silent).ensure(&Material::parse(GameId::Xiangqi, "KRvK")?)?;
//! let mut prober = Prober::<Xiangqi>::new(&dir, rules);
//! assert!(matches!(prober.value(&Xiangqi::parse_position("3k5/9/9/9/9/9/9/9/9/4K3R w")?)?, Value::Win(_)));
//!
//! // Failures by kind: a table that was not built, a position that is not legal, a material
//! // egtb has no tables of.
//! let cannon = Xiangqi::parse_position("3k5/9/9/9/9/9/9/9/9/4K3C w")?;
//! let missing = prober.value(&cannon).unwrap_err();
//! assert!(matches!(missing.downcast_ref::<Error>(), Some(Error::MissingTable { .. })));
//! let facing = Xiangqi::parse_position("4k4/9/9/9/9/9/9/9/9/4K4 w").unwrap_err();
//! assert!(matches!(Error::from(facing), Error::IllegalPosition { .. }));
//! let seven = Material::parse(GameId::Chess, "KQRBNvKQ")?;
//! let unsupported = Chess::check_material(&seven).unwrap_err();
//! assert!(matches!(Error::from(unsupported), Error::BadMaterial { .. }));
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), anyhow::Error>(())
//! ```

#![warn(missing_docs)]

#[cfg(not(unix))]
compile_error!(
    "egtb runs on Unix-like systems (Linux, macOS): tables are read with positioned reads and locked with flock"
);

pub mod audit;
pub mod commands;
pub mod counted;
pub mod error;
pub mod games;
pub mod generate;
pub mod material;
pub mod memory;
pub mod plan;
pub mod probe;
pub mod progress;
pub mod report;
pub mod rulings;
pub mod serve;
pub mod settings;
pub mod shell;
pub mod solver;
pub mod stats;
pub mod table;
pub mod value;

pub use error::Error;
pub use games::chess::Chess;
pub use games::darkchess::DarkChess;
pub use games::xiangqi::Xiangqi;
pub use games::{Clocks, Game, IndexSpace, RuleOption, Rules};
pub use generate::{Backend, Generator};
pub use material::{GameId, Material, Side};
pub use probe::{MoveValue, Prober};
pub use solver::Silent;
pub use value::Value;
