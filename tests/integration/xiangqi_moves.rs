//! Xiangqi move generation: retro-consistency through the solver's Space, un-moves against a
//! brute force over forward moves, forward moves against a naive generator written from the
//! rules, and worked positions (flying general, stalemate, the cannon screen, notation).

use std::collections::BTreeSet;

use egtb::games::xiangqi::board::Kind;
use egtb::games::xiangqi::{Move, Piece, Position, Xiangqi, XiangqiRules, notation};
use egtb::games::{Game, IndexSpace};
use egtb::generate::Generator;
use egtb::material::{GameId, Material, Side};
use egtb::solver::{Node, Silent, Space};
use egtb::value::Value;

use crate::support::space::{assert_retro_consistent, expansion, parents};
use crate::support::temp_dir;

fn rules() -> XiangqiRules {
    XiangqiRules::default()
}

/// Builds a material's sub-tables, then runs `f` on its index and Space.
fn with_space(name: &str, f: impl Fn(&<Xiangqi as Game>::Index, &dyn Space)) {
    let dir = temp_dir(name);
    let material = Material::parse(GameId::Xiangqi, name).unwrap();
    let mut generator = Generator::<Xiangqi>::new(&dir, rules(), &Silent);
    for sub in Xiangqi::sub_materials(&material) {
        generator.ensure(&sub).unwrap();
    }
    let index = Xiangqi::index(&material, rules()).unwrap();
    let space = Xiangqi::space(&index, rules(), generator.tables()).unwrap();
    f(&index, &space);
}

/// P is a parent of C exactly when C is a child of P, over every state of the material.
fn retro_consistent(name: &str) {
    with_space(name, |index, space| {
        let mut checked = 0;
        for state in 0..index.states() {
            let (node, children) = expansion(space, state);
            if node == Node::Broken {
                continue;
            }
            assert_retro_consistent(space, state, &children, &parents(space, state));
            checked += 1;
        }
        assert!(checked > 1000, "{name}: only {checked} legal states");
    });
}

#[test]
fn retro_consistency_rook_and_advisors() {
    retro_consistent("KRvKAA");
}

#[test]
fn retro_consistency_cannon_horse_elephant() {
    retro_consistent("KCvKE");
    retro_consistent("KNvKAE");
}

#[test]
fn retro_consistency_pawn_pair() {
    retro_consistent("KPPvK");
}

/// Every position one un-move before `position`, by trying every piece of the side not to move
/// on every square and keeping the legal positions with a forward move leading back.
fn brute_force_parents(position: &Position) -> Vec<Position> {
    let unmover = position.side_to_move.other();
    let mut found = Vec::new();
    for from in 0..90u8 {
        let Some(piece) = position.cells[usize::from(from)] else {
            continue;
        };
        if piece.side != unmover {
            continue;
        }
        for to in 0..90u8 {
            if position.cells[usize::from(to)].is_some() {
                continue;
            }
            let mut before = position.clone();
            before.cells[usize::from(to)] = before.cells[usize::from(from)].take();
            before.side_to_move = unmover;
            if before.check_legal().is_err() {
                continue;
            }
            let mv = Move { from: to, to: from };
            if Xiangqi::legal_moves(&before, rules()).contains(&mv) {
                assert_eq!(Xiangqi::play(&before, mv), *position);
                found.push(before);
            }
        }
    }
    found
}

fn unmoves_match_brute_force(name: &str, step: u64) {
    with_space(name, |index, space| {
        let mut compared = 0;
        for state in (0..index.states()).step_by(step as usize) {
            let Some(position) = index.decode(state) else {
                continue;
            };
            let brute: BTreeSet<u64> = brute_force_parents(&position).iter().map(|p| index.locate(p)).collect();
            assert_eq!(
                parents(space, state),
                brute,
                "{name}: {}",
                Xiangqi::format_position(&position)
            );
            compared += 1;
        }
        assert!(compared > 200, "{name}: only {compared} states compared");
    });
}

#[test]
fn unmoves_match_brute_force_over_forward_moves() {
    unmoves_match_brute_force("KNPvK", 101);
    unmoves_match_brute_force("KCvKAE", 37);
    unmoves_match_brute_force("KRvKEE", 41);
}

/// Legal moves written straight from the rules, with coordinates and no tables.
fn naive_moves(position: &Position) -> BTreeSet<(u8, u8)> {
    let at = |f: i32, r: i32| position.cells[(r * 9 + f) as usize];
    let on_board = |f: i32, r: i32| (0..9).contains(&f) && (0..10).contains(&r);
    let mut moves = BTreeSet::new();
    for from in 0..90i32 {
        let Some(piece) = position.cells[from as usize] else {
            continue;
        };
        if piece.side != position.side_to_move {
            continue;
        }
        let (f, r) = (from % 9, from / 9);
        let red = piece.side == Side::First;
        let ahead = if red { 1 } else { -1 };
        let mut targets: Vec<(i32, i32)> = Vec::new();
        let orth = [(0, 1), (0, -1), (1, 0), (-1, 0)];
        let diag = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
        let palace = |f: i32, r: i32| (3..=5).contains(&f) && if red { r <= 2 } else { r >= 7 };
        let own_half = |r: i32| if red { r <= 4 } else { r >= 5 };
        match piece.kind {
            Kind::King => targets.extend(
                orth.iter()
                    .map(|(df, dr)| (f + df, r + dr))
                    .filter(|&(a, b)| palace(a, b)),
            ),
            Kind::Advisor => targets.extend(
                diag.iter()
                    .map(|(df, dr)| (f + df, r + dr))
                    .filter(|&(a, b)| palace(a, b)),
            ),
            Kind::Elephant => {
                for (df, dr) in diag {
                    let (a, b) = (f + 2 * df, r + 2 * dr);
                    if on_board(a, b) && own_half(b) && at(f + df, r + dr).is_none() {
                        targets.push((a, b));
                    }
                }
            }
            Kind::Horse => {
                for (df, dr) in orth {
                    if !on_board(f + df, r + dr) || at(f + df, r + dr).is_some() {
                        continue;
                    }
                    for side in [-1, 1] {
                        let (a, b) = if df == 0 {
                            (f + side, r + 2 * dr)
                        } else {
                            (f + 2 * df, r + side)
                        };
                        targets.push((a, b));
                    }
                }
            }
            Kind::Pawn => {
                targets.push((f, r + ahead));
                if !own_half(r) {
                    targets.push((f - 1, r));
                    targets.push((f + 1, r));
                }
            }
            Kind::Rook | Kind::Cannon => {
                for (df, dr) in orth {
                    let (mut a, mut b) = (f + df, r + dr);
                    let mut screens = 0;
                    while on_board(a, b) {
                        let occupied = at(a, b).is_some();
                        let reach = match (piece.kind, screens) {
                            (Kind::Rook, 0) => true,
                            (Kind::Cannon, 0) => !occupied,
                            (Kind::Cannon, 1) => occupied,
                            _ => false,
                        };
                        if reach {
                            targets.push((a, b));
                        }
                        if occupied {
                            screens += 1;
                        }
                        a += df;
                        b += dr;
                    }
                }
            }
        }
        for (a, b) in targets {
            if !on_board(a, b) || at(a, b).is_some_and(|p| p.side == piece.side) {
                continue;
            }
            let mv = Move {
                from: from as u8,
                to: (b * 9 + a) as u8,
            };
            let after = Xiangqi::play(position, mv);
            // Legal when no enemy piece could then move onto the mover's king.
            let king = after
                .cells
                .iter()
                .position(|c| {
                    *c == Some(Piece {
                        side: piece.side,
                        kind: Kind::King,
                    })
                })
                .unwrap() as i32;
            let attacked = (0..90i32).any(|s| {
                after.cells[s as usize].is_some_and(|p| p.side != piece.side) && naive_attacks(&after, s, king)
            });
            if !attacked {
                moves.insert((mv.from, mv.to));
            }
        }
    }
    moves
}

/// Whether the piece on `from` could move onto `target` by the rules, kings facing included.
fn naive_attacks(position: &Position, from: i32, target: i32) -> bool {
    let piece = position.cells[from as usize].unwrap();
    let (f, r, tf, tr) = (from % 9, from / 9, target % 9, target / 9);
    let at = |f: i32, r: i32| position.cells[(r * 9 + f) as usize];
    let between = || -> Option<usize> {
        if f != tf && r != tr {
            return None;
        }
        let (df, dr) = ((tf - f).signum(), (tr - r).signum());
        let (mut a, mut b, mut n) = (f + df, r + dr, 0);
        while (a, b) != (tf, tr) {
            n += usize::from(at(a, b).is_some());
            a += df;
            b += dr;
        }
        Some(n)
    };
    let red = piece.side == Side::First;
    match piece.kind {
        Kind::King => f == tf && between() == Some(0),
        Kind::Rook => between() == Some(0),
        Kind::Cannon => between() == Some(1),
        Kind::Horse => {
            let (df, dr) = (tf - f, tr - r);
            let leg = match (df.abs(), dr.abs()) {
                (1, 2) => (f, r + dr.signum()),
                (2, 1) => (f + df.signum(), r),
                _ => return false,
            };
            at(leg.0, leg.1).is_none()
        }
        Kind::Pawn => {
            let ahead = if red { 1 } else { -1 };
            let crossed = if red { r >= 5 } else { r <= 4 };
            (tf == f && tr == r + ahead) || (crossed && tr == r && (tf - f).abs() == 1)
        }
        Kind::Advisor | Kind::Elephant => false,
    }
}

#[test]
fn forward_moves_match_a_naive_generator() {
    for name in ["KRCvKAE", "KNPvKAA", "KCCvKEE", "KNAvKPP"] {
        let material = Material::parse(GameId::Xiangqi, name).unwrap();
        let index = Xiangqi::index(&material, rules()).unwrap();
        let mut compared = 0;
        let step = index.states() / 3000 + 1;
        for state in (0..index.states()).step_by(step as usize) {
            let Some(position) = index.decode(state) else {
                continue;
            };
            let ours: BTreeSet<(u8, u8)> = Xiangqi::legal_moves(&position, rules())
                .into_iter()
                .map(|m| (m.from, m.to))
                .collect();
            assert_eq!(ours, naive_moves(&position), "{}", Xiangqi::format_position(&position));
            compared += 1;
        }
        assert!(compared > 500, "{name}: only {compared}");
    }
}

fn position(fen: &str) -> Position {
    Xiangqi::parse_position(fen).unwrap()
}

fn iccs_moves(position: &Position) -> BTreeSet<String> {
    Xiangqi::legal_moves(position, rules())
        .into_iter()
        .map(notation::iccs)
        .collect()
}

#[test]
fn flying_general_pins_and_forbids() {
    // Kings facing on an open file: the side to move could take the king.
    let err = Xiangqi::parse_position("4k4/9/9/9/9/9/9/9/9/4K4 w").unwrap_err();
    assert!(err.to_string().contains("the kings face each other"), "{err}");
    // The horse on e4 is the only piece between the kings: it may not leave the file, and the
    // king may step to d0, f0 or e1 (the horse still shields e1).
    let pinned = position("4k4/9/9/9/9/4N4/9/9/9/4K4 w");
    let moves = iccs_moves(&pinned);
    assert_eq!(moves, ["e0d0", "e0e1", "e0f0"].map(String::from).into());
    // A king may not step onto a file where it would face the other king.
    let step = position("3k5/9/9/9/9/9/9/9/9/4K4 w");
    assert!(!iccs_moves(&step).contains("e0d0"));
    assert!(iccs_moves(&step).contains("e0e1"));
}

#[test]
fn stalemate_loses() {
    // Black's king on d9 is not in check, but d8 is covered by the rook on a8 and e9 would face
    // the red king: no legal move, which loses.
    let fen = "3k5/R8/9/9/9/9/9/9/9/4K4 b";
    let stalemate = position(fen);
    assert!(Xiangqi::legal_moves(&stalemate, rules()).is_empty());
    assert_eq!(Xiangqi::game_over(&stalemate, rules()), Some(Value::LOST));
    let dir = temp_dir("stalemate");
    let material = Material::parse(GameId::Xiangqi, "KRvK").unwrap();
    let mut generator = Generator::<Xiangqi>::new(&dir, rules(), &Silent);
    let table = generator.ensure(&material).unwrap();
    let index = Xiangqi::index(&material, rules()).unwrap();
    assert_eq!(table.value(index.locate(&stalemate)), Some(Value::LOST));
    // With the rook on a7 and red to move, Ra8 stalemates black: a win in one ply.
    let before = position("3k5/9/R8/9/9/9/9/9/9/4K4 w");
    assert_eq!(table.value(index.locate(&before)), Some(Value::Win(1)));
}

#[test]
fn cannon_needs_exactly_one_screen() {
    // Red cannon d2; black advisors d7 (screen) and d9 (victim); black king f8.
    let p = position("3a5/5k3/3a5/9/9/9/9/3C5/9/4K4 w");
    let cannon: BTreeSet<String> = iccs_moves(&p).into_iter().filter(|m| m.starts_with("d2")).collect();
    let expected: BTreeSet<String> = [
        "d2d3", "d2d4", "d2d5", "d2d6", "d2d9", "d2d1", "d2d0", "d2c2", "d2b2", "d2a2", "d2e2", "d2f2", "d2g2", "d2h2",
        "d2i2",
    ]
    .map(String::from)
    .into();
    assert_eq!(cannon, expected);
    // A cannon checks through one screen: with the black king behind the advisor the position
    // (red to move) is illegal; with no screen it is no check.
    assert!(Xiangqi::parse_position("3k5/9/3a5/9/9/9/9/3C5/9/4K4 w").is_err());
    assert!(Xiangqi::parse_position("3k5/9/9/9/9/9/9/3C5/9/4K4 w").is_ok());
}

#[test]
fn notation_round_trips_and_names_moves() {
    let fen = "4k4/9/9/9/9/9/9/7C1/9/3K3N1 w - - 0 1";
    let p = position(fen);
    assert_eq!(Xiangqi::format_position(&p), fen);
    let one_move = |p: &_, text: &str| match notation::moves_named(p, text)[..] {
        [mv] => Some(mv),
        _ => None,
    };
    let cannon = one_move(&p, "h2e2").unwrap();
    assert_eq!(Xiangqi::move_names(&p, cannon), ("C2.5".into(), "h2e2".into()));
    let horse = one_move(&p, "H2+3").unwrap();
    assert_eq!(notation::iccs(horse), "h0g2");
    assert_eq!(one_move(&p, "N2+3").unwrap(), horse);
    // Black's files count from black's right (file a = 1).
    let black = position("4k4/9/7r1/9/9/9/9/9/9/3K5 b");
    let rook = one_move(&black, "h7h8").unwrap();
    assert_eq!(Xiangqi::move_names(&black, rook).0, "R8-1");
    // Two rooks on one file: front and rear instead of the file number.
    let tandem = position("5k3/9/9/9/4R4/9/4R4/9/9/3K5 w");
    let front = one_move(&tandem, "e5g5").unwrap();
    assert_eq!(Xiangqi::move_names(&tandem, front).0, "R+.3");
    let rear = one_move(&tandem, "R--1").unwrap();
    assert_eq!(notation::iccs(rear), "e3e2");
    assert!(one_move(&tandem, "e3e6").is_none());
    // The file number fits both rooks: the text names both moves.
    let both: Vec<String> = notation::moves_named(&tandem, "R5+1")
        .into_iter()
        .map(notation::iccs)
        .collect();
    assert_eq!(both.len(), 2, "{both:?}");
    // Black's front pawn is the one nearer red's side.
    let pawns = position("5k3/9/9/9/9/4p4/4p4/9/9/3K5 b");
    let names = |iccs: &str| Xiangqi::move_names(&pawns, one_move(&pawns, iccs).unwrap());
    assert_eq!(names("e3d3").0, "P+.4");
    assert_eq!(names("e4d4").0, "P-.4");
    assert_eq!(names("e3e2").0, "P++1");
    assert_eq!(names("f9e9").0, "K6.5");
}

#[test]
fn rejects_bad_positions() {
    for bad in [
        "",
        "4k4/9/9/9/9/9/9/9/9 w",
        "4k4/9/9/9/9/9/9/9/9/3K4 w",
        "4k4/9/9/9/9/9/9/9/9/3K5 x",
        "4k4/9/9/9/9/9/9/9/9/3K5",
        "4k4/9/9/9/9/9/9/9/9/3KX4 w",
        "4k4/9/9/9/9/9/9/9/9/9 w",
        "4k4/9/9/9/9/9/9/9/9/3KK4 w",
        "4k4/9/9/9/9/9/9/9/3A5/3K5 w",
        "4k4/9/9/9/9/9/9/9/P8/3K5 w",
        "4k4/9/9/9/9/9/9/9/9/K8 w",
        "4k4/9/9/9/9/9/9/9/9/RRRK5 w",
    ] {
        assert!(Xiangqi::parse_position(bad).is_err(), "accepted '{bad}'");
    }
    for (bad, message) in [
        ("9/9/9/9/9/9/9/9/9/3K5 w", "black must have exactly one king, found 0"),
        ("4k4/9/9/9/9/9/9/9/9/3KK4 w", "red must have exactly one king, found 2"),
        ("4k4/9/9/9/9/9/9/9/9/4R4 w", "red must have exactly one king, found 0"),
    ] {
        let error = Xiangqi::parse_position(bad).unwrap_err().to_string();
        assert!(error.contains(message), "'{bad}': {error}");
    }
    // An illegal position names its text first, as a dark chess one does.
    let facing = "4k4/9/9/9/9/9/9/9/9/R3K4 w";
    assert_eq!(
        Xiangqi::parse_position(facing).unwrap_err().to_string(),
        format!("position '{facing}': the kings face each other on one file with nothing between them")
    );
    let red_pawn_flip = Xiangqi::flip(&position("4k4/9/9/9/4P4/9/9/9/9/3K5 w"));
    assert_eq!(
        Xiangqi::format_position(&red_pawn_flip),
        "3k5/9/9/9/9/4p4/9/9/9/4K4 b - - 0 1"
    );
}
