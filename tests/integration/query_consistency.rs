//! Query agrees with the table, for every game: a position's value follows from its moves'
//! values (a win has a move to a child lost in one ply less and none quicker, a loss has every
//! move lose and one of them last exactly one ply less, a draw has a drawing move and no win), and
//! the best-play line ends the game.

use egtb::games::chess::Chess;
use egtb::games::darkchess::DarkChess;
use egtb::games::xiangqi::Xiangqi;
use egtb::games::{Game, IndexSpace};
use egtb::generate::Generator;
use egtb::material::Material;
use egtb::probe::Prober;
use egtb::solver::Silent;
use egtb::value::Value;

use crate::support::temp_dir;

fn check<G: Game>(material: &str, samples: u64) {
    let dir = temp_dir(&format!("consistency-{material}"));
    let (material, _) = Material::parse(G::ID, material).unwrap().canonical();
    let mut generator = Generator::<G>::new(&dir, G::Rules::default(), &Silent);
    generator.ensure(&material).unwrap();
    let index = G::index(&material, G::Rules::default()).unwrap();
    let mut prober = Prober::<G>::new(&dir, G::Rules::default());
    let stride = (index.states() / samples).max(1) | 1;
    let mut checked = 0;
    let mut lines = 0;
    for state in (0..index.states()).step_by(stride as usize) {
        let Some(position) = index.decode(state) else { continue };
        let value = prober.value(&position).unwrap();
        let moves = prober.moves(&position).unwrap();
        let fen = G::format_position(&position);
        match moves.first() {
            None => assert_eq!(Some(value), G::game_over(&position, Default::default()), "{fen}"),
            Some(best) => assert_eq!(best.value, value, "{fen}: best move {} gives {}", best.name, best.value),
        }
        checked += 1;
        if value.dtm().is_some_and(|d| d > 0) && lines < 20 {
            let line = prober.line(&position).unwrap();
            assert_eq!(line.len(), usize::from(value.dtm().unwrap()), "{fen}");
            assert_eq!(
                line.last().unwrap().1,
                Value::LOST,
                "{fen}: the line does not end the game"
            );
            lines += 1;
        }
    }
    assert!(checked > samples / 4, "only {checked} legal samples");
}

#[test]
fn chess_queries_agree_with_tables() {
    check::<Chess>("KRvKN", 3000);
}

#[test]
fn xiangqi_queries_agree_with_tables() {
    check::<Xiangqi>("KNvKA", 3000);
}

#[test]
fn darkchess_queries_agree_with_tables() {
    check::<DarkChess>("KCvKP", 3000);
}

/// A random position, as the board's practice draws one, is one where the game goes on: KRvK's
/// only losses at DTM 0 are mates, so none is drawn for them, and no loss drawn is mate already.
#[test]
fn random_positions_are_never_over_already() {
    let dir = temp_dir("random-going-on");
    let material = Material::parse(Chess::ID, "KRvK").unwrap();
    Generator::<Chess>::new(&dir, Default::default(), &Silent)
        .ensure(&material)
        .unwrap();
    let mut prober = Prober::<Chess>::new(&dir, Default::default());
    let black = egtb::material::Side::Second;
    assert!(
        prober
            .random_position(&material, black, |v| v == Value::LOST, 7)
            .unwrap()
            .is_none()
    );
    for seed in 0..50 {
        let position = prober
            .random_position(&material, black, |v| v.outcome() == "loss", seed)
            .unwrap()
            .unwrap();
        assert_ne!(prober.value(&position).unwrap(), Value::LOST, "seed {seed}");
        assert!(!Chess::legal_moves(&position, Default::default()).is_empty());
    }
}
