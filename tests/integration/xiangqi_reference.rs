//! The small xiangqi tables reproduce the published full enumeration (repetition = draw, no move
//! = loss): full-board counts per side to move and the longest DTM.

use egtb::games::Game;
use egtb::games::xiangqi::{Xiangqi, XiangqiRules};
use egtb::generate::Generator;
use egtb::material::{GameId, Material};
use egtb::solver::Silent;
use egtb::stats::{SideStats, table_stats};

use crate::support::temp_dir;

/// Red to move (legal, win, draw), black to move (legal, loss, draw), longest DTM (red, black).
type Expected = ((u64, u64, u64), (u64, u64, u64), (Option<u16>, Option<u16>));

fn check(name: &str, expected: Expected) {
    let dir = temp_dir(name);
    let material = Material::parse(GameId::Xiangqi, name).unwrap();
    let mut generator = Generator::<Xiangqi>::new(&dir, XiangqiRules::default(), &Silent);
    let table = generator.ensure(&material).unwrap();
    let index = Xiangqi::index(&material, XiangqiRules::default()).unwrap();
    let [red, black]: [SideStats; 2] = table_stats(&index, &table.entries());
    let got = (
        (red.legal, red.win, red.draw),
        (black.legal, black.loss, black.draw),
        (red.longest.map(|l| l.dtm), black.longest.map(|l| l.dtm)),
    );
    assert_eq!(got, expected, "{name}");
    assert_eq!(red.loss, 0, "{name}: red never loses");
    assert_eq!(black.win, 0, "{name}: black never wins");
}

#[test]
fn krvk_matches_the_published_enumeration() {
    check("KRvK", ((3834, 3834, 0), (4914, 4806, 108), (Some(3), Some(4))));
}

#[test]
fn knvk_matches_the_published_enumeration() {
    check("KNvK", ((4590, 4590, 0), (4914, 4806, 108), (Some(13), Some(14))));
}

#[test]
fn kcvk_matches_the_published_enumeration() {
    check("KCvK", ((4914, 0, 4914), (4914, 0, 4914), (None, None)));
}

#[test]
fn kpvk_matches_the_published_enumeration() {
    check("KPvK", ((2826, 2394, 432), (3015, 2469, 546), (Some(19), Some(20))));
}
