//! Times the generation of one chess material with every table it needs, in a fresh folder:
//! `cargo run --release --example chess_generate -- KQvKR`.

use std::time::Instant;

use egtb::games::chess::Chess;
use egtb::generate::Generator;
use egtb::material::{GameId, Material};
use egtb::solver::Silent;

fn main() -> anyhow::Result<()> {
    let name = std::env::args().nth(1).unwrap_or_else(|| "KQvKR".to_string());
    let material = Material::parse(GameId::Chess, &name)?.canonical().0;
    let dir = std::env::temp_dir().join(format!("egtb-chess-timing-{}", std::process::id()));
    let start = Instant::now();
    let mut generator = Generator::<Chess>::new(&dir, Default::default(), &Silent);
    generator.ensure(&material)?;
    let total = start.elapsed();
    for built in &generator.built {
        let solve = built.solve_time.unwrap_or_default();
        println!(
            "{:>10} {:>12} states {:>8.3} s",
            built.material,
            built.states,
            solve.as_secs_f64()
        );
    }
    println!("{material} with its sub-tables: {:.3} s", total.as_secs_f64());
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
