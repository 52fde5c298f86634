//! Builds a xiangqi table with all its sub-tables in a fresh folder and reports the time of each
//! (`cargo run --release --example xiangqi_speed -- KRvKAAEE`).

use std::time::Instant;

use egtb::games::xiangqi::{Xiangqi, XiangqiRules};
use egtb::generate::Generator;
use egtb::material::{GameId, Material};
use egtb::solver::Silent;

fn main() -> anyhow::Result<()> {
    let name = std::env::args().nth(1).unwrap_or_else(|| "KRvKAAEE".into());
    let material = Material::parse(GameId::Xiangqi, &name)?.canonical().0;
    let dir = std::env::temp_dir().join(format!("egtb-xiangqi-speed-{}", std::process::id()));
    let start = Instant::now();
    let mut generator = Generator::<Xiangqi>::new(&dir, XiangqiRules::default(), &Silent);
    generator.ensure(&material)?;
    let total = start.elapsed();
    for built in &generator.built {
        if let Some(time) = built.solve_time {
            println!("{:>12} {:>10} states {:>9.3?}", built.material, built.states, time);
        }
    }
    println!(
        "{material} with its sub-tables: {total:.3?} on {} threads",
        rayon::current_num_threads()
    );
    std::fs::remove_dir_all(dir)?;
    Ok(())
}
