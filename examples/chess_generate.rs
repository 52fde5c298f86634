//! Times the generation of one chess material with every table it needs, in a fresh folder,
//! phase by phase: `cargo run --release --example chess_generate -- KQvKR`.

use std::sync::Mutex;
use std::time::Instant;

use egtb::games::chess::Chess;
use egtb::generate::Generator;
use egtb::material::{GameId, Material};
use egtb::solver::Progress;

/// Records when each solver phase begins.
struct PhaseTimer {
    phases: Mutex<Vec<(String, Instant)>>,
}

impl Progress for PhaseTimer {
    fn phase(&self, name: &str, _total: u64) {
        self.phases
            .lock()
            .unwrap()
            .push((name.to_string(), Instant::now()));
    }

    fn advance(&self, _done: u64) {}
}

fn main() -> anyhow::Result<()> {
    let name = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "KQvKR".to_string());
    let material = Material::parse(GameId::Chess, &name)?.canonical().0;
    let dir = std::env::temp_dir().join(format!("egtb-chess-timing-{}", std::process::id()));
    let timer = PhaseTimer {
        phases: Mutex::new(Vec::new()),
    };
    let start = Instant::now();
    let mut generator = Generator::<Chess>::new(&dir, Default::default(), &timer);
    generator.ensure(&material)?;
    let total = start.elapsed();
    let built = std::mem::take(&mut generator.built);
    drop(generator);
    let phases = timer.phases.into_inner().unwrap();
    // Each table has a "moves" then a "layers" phase; the table is written after the last.
    for (built, phase) in built.iter().zip(phases.chunks(2)) {
        let solve = built.solve_time.unwrap_or_default().as_secs_f64();
        let moves = phase[1].1.duration_since(phase[0].1).as_secs_f64();
        println!(
            "{:>8} {:>10} states  solve {solve:7.3} s  (moves {moves:.3} s, layers {:.3} s)",
            built.material.to_string(),
            built.states,
            solve - moves
        );
    }
    println!(
        "{material} with its sub-tables: {:.3} s",
        total.as_secs_f64()
    );
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
