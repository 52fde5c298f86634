//! The xiangqi index: every legal slot round-trips, mirror images share a slot, and the weights
//! add up to a brute-force count of legal full-board positions.

use egtb::games::xiangqi::board::{Kind, geometry};
use egtb::games::xiangqi::{Piece, Position, Xiangqi, XiangqiRules};
use egtb::games::{Game, IndexSpace};
use egtb::material::{GameId, Material, Side};

fn index(name: &str) -> <Xiangqi as Game>::Index {
    let material = Material::parse(GameId::Xiangqi, name).unwrap();
    Xiangqi::index(&material, XiangqiRules::default()).unwrap()
}

fn mirrored(position: &Position) -> Position {
    let g = geometry();
    let mut out = position.clone();
    for s in 0..90 {
        out.cells[usize::from(g.mirror[s])] = position.cells[s];
    }
    out
}

#[test]
fn slots_round_trip_and_mirror_images_share_them() {
    for name in ["KNvKAE", "KPPvK", "KRCvKA", "KAAvKEE"] {
        let index = index(name);
        let mut legal = 0;
        for state in 0..index.states() {
            let Some(position) = index.decode(state) else {
                assert_eq!(index.weight(state), 0);
                continue;
            };
            legal += 1;
            assert_eq!(index.locate(&position), state, "{name}");
            assert_eq!(index.locate(&mirrored(&position)), state, "{name}");
            let symmetric = mirrored(&position) == position;
            assert_eq!(index.weight(state), if symmetric { 1 } else { 2 });
            assert_eq!(index.side_to_move(state), position.side_to_move);
            assert_eq!(Xiangqi::material_of(&position), index.material);
        }
        assert!(legal * 3 > index.states(), "{name}: {legal} legal slots");
    }
}

/// Counts legal positions of a material on the full board by placing its pieces every way
/// (identical pieces unordered), each side to move apart.
fn brute_force_count(name: &str) -> [u64; 2] {
    let material = Material::parse(GameId::Xiangqi, name).unwrap();
    let mut pieces = Vec::new();
    for side in Side::BOTH {
        for kind in Kind::ALL {
            for _ in 0..material.count(side, kind.index()) {
                pieces.push(Piece { side, kind });
            }
        }
    }
    let g = geometry();
    let mut counts = [0; 2];
    fn place(
        pieces: &[Piece],
        at: usize,
        min: u8,
        position: &mut Position,
        counts: &mut [u64; 2],
        g: &egtb::games::xiangqi::board::Geometry,
    ) {
        if at == pieces.len() {
            for side in Side::BOTH {
                position.side_to_move = side;
                if position.check_legal().is_ok() {
                    counts[side.index()] += 1;
                }
            }
            return;
        }
        let piece = pieces[at];
        let same_as_previous = at > 0 && pieces[at - 1] == piece;
        let start = if same_as_previous { min } else { 0 };
        for s in start..90u8 {
            if position.cells[usize::from(s)].is_some() || !g.allowed(piece.side.index(), piece.kind, s) {
                continue;
            }
            position.cells[usize::from(s)] = Some(piece);
            place(pieces, at + 1, s + 1, position, counts, g);
            position.cells[usize::from(s)] = None;
        }
    }
    let mut position = Position {
        cells: [None; 90],
        side_to_move: Side::First,
    };
    place(&pieces, 0, 0, &mut position, &mut counts, g);
    counts
}

#[test]
fn weights_sum_to_the_full_board_count() {
    for name in ["KAvKE", "KAAvKEE", "KNvKA", "KPPvK"] {
        let index = index(name);
        let mut sums = [0u64; 2];
        for state in 0..index.states() {
            sums[index.side_to_move(state).index()] += u64::from(index.weight(state));
        }
        assert_eq!(sums, brute_force_count(name), "{name}");
    }
}

#[test]
fn materials_are_supported_canonical_and_smaller_first() {
    let all = Xiangqi::materials(4);
    assert!(all.windows(2).all(|w| w[0].pieces() <= w[1].pieces()));
    assert_eq!(all[0].to_string(), "KvK");
    for name in ["KRvK", "KAvK", "KRvKA", "KRRvK", "KRvKR", "KPvKE", "KAEvK"] {
        let m = Material::parse(GameId::Xiangqi, name).unwrap();
        assert!(all.contains(&m), "{name} missing");
    }
    assert!(all.iter().all(|m| Xiangqi::check_material(m).is_ok()));
    assert!(!all.iter().any(|m| m.to_string() == "KvKR"));
    // 2 pieces: KvK; 3: K+one of 6 kinds v K; 4: every pair of extra pieces.
    assert_eq!(all.iter().filter(|m| m.pieces() == 3).count(), 6);
    for bad in ["KRRRvK", "KAAAvK", "KvKR", "KKvK", "KRvKRCN", "KRvR"] {
        let m = Material::parse(GameId::Xiangqi, bad).unwrap();
        assert!(Xiangqi::check_material(&m).is_err(), "{bad}");
    }
    let subs: Vec<String> = Xiangqi::sub_materials(&Material::parse(GameId::Xiangqi, "KRvKA").unwrap())
        .iter()
        .map(|m| m.to_string())
        .collect();
    assert_eq!(subs, ["KAvK", "KRvK"]);
}

#[test]
fn rules_accept_draw_and_asian_and_reject_the_rest() {
    use egtb::games::Rules;
    let opt = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
    assert_eq!(Xiangqi::rules(&opt("rules", "draw")).unwrap(), XiangqiRules::default());
    let asian = Xiangqi::rules(&opt("rules", "asian")).unwrap();
    assert_eq!(asian.options(), [("rules", "asian")]);
    assert!(Xiangqi::rules(&opt("rules", "x")).is_err());
    assert!(Xiangqi::rules(&opt("cannon", "step")).is_err());
    assert_eq!(XiangqiRules::default().options(), [("rules", "draw")]);
}
