//! Chess with pawns: the published KPvK figures, moves (promotions, en passant and the en
//! passant right after a double step) against shakmaty, the solver's view of KPvKP against
//! position-level moves with retro-consistency (en passant states included), and queries
//! consistent with the tables through promotions.

mod common;

use std::collections::BTreeSet;

use common::{Rng, generator, material, random_position};
use egtb::games::chess::board::Square;
use egtb::games::chess::index::ChessIndex;
use egtb::games::chess::{Chess, Position};
use egtb::games::{Game, IndexSpace};
use egtb::probe::Prober;
use egtb::solver::{Exits, Node, Space, Successors};
use egtb::stats::table_stats;
use egtb::table::TableSet;
use egtb::value::Value;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, EnPassantMode, Position as _, PositionError};

fn index(name: &str) -> ChessIndex {
    Chess::index(&material(name), Default::default()).unwrap()
}

/// The position with every en passant right it may have, itself first.
fn with_rights(position: &Position) -> Vec<Position> {
    let mut out = vec![position.clone()];
    out.extend((0..64u8).filter_map(|target| position.with_legal_en_passant(target).ok()));
    out
}

fn oracle(position: &Position) -> shakmaty::Chess {
    let fen: Fen = Chess::format_position(position).parse().unwrap();
    fen.into_position(CastlingMode::Standard)
        .or_else(PositionError::ignore_impossible_check)
        .unwrap()
}

/// The first four FEN fields (board, side, castling, en passant).
fn fen4(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

#[test]
fn kpvk_matches_the_published_figures() {
    let (generator, dir) = generator("pawns-kpvk", &["KPvK"]);
    let index = index("KPvK");
    let table = generator.tables().require(&material("KPvK")).unwrap();
    let [white, black] = table_stats(&index, table.entries());
    assert_eq!((white.win, white.draw, white.loss), (124_960, 38_368, 0));
    assert_eq!((black.win, black.draw, black.loss), (0, 70_420, 97_604));
    assert_eq!(white.longest.unwrap().0, 55);
    assert_eq!(black.longest.unwrap().0, 56);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn moves_with_pawns_match_shakmaty() {
    let mut rng = Rng::new(11);
    let (mut promotions, mut en_passant) = (0, 0);
    for name in [
        "KPvK", "KPvKP", "KPPvKP", "KQPvKR", "KPvKPP", "KRPvKP", "KNPvKB", "KPPPvK",
    ] {
        let m = material(name);
        for _ in 0..1500 {
            for position in with_rights(&random_position(&mut rng, &m)) {
                let fen = Chess::format_position(&position);
                let reference = oracle(&position);
                assert_eq!(
                    fen4(&fen),
                    fen4(&Fen::from_position(&reference, EnPassantMode::Legal).to_string())
                );
                let mut ours: Vec<(String, String, String)> = Chess::legal_moves(&position, Default::default())
                    .into_iter()
                    .map(|mv| {
                        let (san, uci) = Chess::move_names(&position, mv);
                        let after = Chess::format_position(&Chess::play(&position, mv));
                        (uci, san, fen4(&after))
                    })
                    .collect();
                let mut theirs: Vec<(String, String, String)> = reference
                    .legal_moves()
                    .into_iter()
                    .map(|m| {
                        promotions += usize::from(m.is_promotion());
                        en_passant += usize::from(m.is_en_passant());
                        let after = reference.clone().play(m).unwrap();
                        (
                            m.to_uci(CastlingMode::Standard).to_string(),
                            SanPlus::from_move(reference.clone(), m).to_string(),
                            fen4(&Fen::from_position(&after, EnPassantMode::Legal).to_string()),
                        )
                    })
                    .collect();
                ours.sort();
                theirs.sort();
                assert_eq!(ours, theirs, "{fen}");
                assert_eq!(position.in_check(), reference.is_check(), "{fen}");
            }
        }
    }
    assert!(
        promotions > 100 && en_passant > 20,
        "{promotions} promotions, {en_passant} en passant"
    );
}

#[test]
fn fen_en_passant_squares_are_checked() {
    let ok = Chess::parse_position("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1").unwrap();
    assert_eq!(ok.en_passant(), Some(43));
    for (fen, why) in [
        ("4k3/8/8/3pP3/8/8/8/4K3 w - e6 0 1", "no pawn"),
        ("4k3/8/3p4/3pP3/8/8/8/4K3 w - d6 0 1", "not empty"),
        ("4k3/8/8/3p4/8/8/4P3/4K3 w - d6 0 1", "no en passant capture"),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d5 0 1", "rank"),
        ("4k3/8/8/3pP3/8/8/8/4K3 w KQ - 0 1", "castling"),
        ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "first or last rank"),
    ] {
        let error = Chess::parse_position(fen).unwrap_err().to_string();
        assert!(error.contains(why), "{fen}: {error}");
    }
}

/// The value of a position after a move that leaves the table.
fn lookup(tables: &TableSet, position: &Position) -> Value {
    let (canonical, flip) = position.material().canonical();
    let position = if flip { Chess::flip(position) } else { position.clone() };
    let state = Chess::index(&canonical, Default::default()).unwrap().locate(&position);
    tables.require(&canonical).unwrap().value(state).unwrap()
}

/// The states one move away from a position (in-table children, exits) by position-level moves.
fn expected_expansion(index: &ChessIndex, tables: &TableSet, position: &Position) -> (Node, BTreeSet<u64>) {
    let moves = Chess::legal_moves(position, Default::default());
    if moves.is_empty() {
        return (
            Node::Terminal(Chess::game_over(position, Default::default()).unwrap()),
            BTreeSet::new(),
        );
    }
    let mut exits = Exits::default();
    let mut children = BTreeSet::new();
    for mv in moves {
        let after = Chess::play(position, mv);
        if after.material() == position.material() {
            children.insert(index.locate(&after));
        } else {
            exits.add(lookup(tables, &after));
        }
    }
    (Node::Inner(exits), children)
}

/// Parents by brute force: every legal position (with each en passant right it may have) one
/// piece away, other side to move, that has a move into the position.
fn brute_force_parents(index: &ChessIndex, position: &Position) -> BTreeSet<u64> {
    let mut parents = BTreeSet::new();
    for from in 0..64u8 {
        let Some(piece) = position.piece_at(from) else {
            continue;
        };
        for to in (0..64u8).filter(|&sq| position.piece_at(sq).is_none()) {
            let mut board: [_; 64] = std::array::from_fn(|sq| position.piece_at(sq as Square));
            board[from as usize] = None;
            board[to as usize] = Some(piece);
            let Ok(parent) = Position::new(board, position.turn().other()) else {
                continue;
            };
            for parent in with_rights(&parent) {
                let reaches = Chess::legal_moves(&parent, Default::default())
                    .into_iter()
                    .any(|mv| Chess::play(&parent, mv) == *position);
                if reaches {
                    parents.insert(index.locate(&parent));
                }
            }
        }
    }
    parents
}

#[test]
fn kpvkp_space_is_retro_consistent_and_queries_agree() {
    let (generator, dir) = generator("pawns-kpvkp", &["KPvKP"]);
    let tables = generator.tables();
    let index = index("KPvKP");
    let space = Chess::space(&index, Default::default(), tables).unwrap();
    let mut rng = Rng::new(5);
    let (mut children, mut parents, mut back) = (Successors::default(), Successors::default(), Successors::default());
    let (mut plain_states, mut en_passant_states) = (0, 0);
    while plain_states < 80 || en_passant_states < 25 {
        let rights = with_rights(&random_position(&mut rng, &material("KPvKP")));
        if plain_states >= 80 && rights.len() == 1 {
            continue;
        }
        for position in rights {
            let state = index.locate(&position);
            let canonical = index.decode(state).unwrap();
            let fen = Chess::format_position(&canonical);
            if canonical.en_passant().is_some() {
                en_passant_states += 1;
            } else {
                plain_states += 1;
            }
            assert_eq!(
                index.weight(state),
                if canonical.en_passant().is_some() { 0 } else { 2 }
            );

            children.clear();
            let node = space.expand(state, &mut children);
            let kids: BTreeSet<u64> = children.distinct().iter().copied().collect();
            assert_eq!(
                (node, kids.clone()),
                expected_expansion(&index, tables, &canonical),
                "expand {fen}"
            );

            parents.clear();
            space.parents(state, &mut parents);
            let dads: BTreeSet<u64> = parents.distinct().iter().copied().collect();
            assert_eq!(dads, brute_force_parents(&index, &canonical), "parents {fen}");
            for &child in &kids {
                back.clear();
                space.parents(child, &mut back);
                assert!(back.distinct().contains(&state), "child {child} of {fen}");
            }
        }
    }
    assert!(en_passant_states >= 25, "{en_passant_states} en passant states");

    // KPvKP is its own colour-swapped image: both sides to move have the same statistics, and
    // the en passant slots weigh nothing.
    let [white, black] = table_stats(&index, tables.require(&material("KPvKP")).unwrap().entries());
    let summary = |s: egtb::stats::SideStats| (s.legal, s.win, s.draw, s.loss, s.longest.map(|l| l.0));
    assert_eq!(summary(white), summary(black));

    // Queries: the best move's value matches the position's; lines end in mate.
    let mut prober = Prober::<Chess>::new(&dir, Default::default());
    for fen in [
        "8/8/8/8/k7/8/1P5p/K7 w - - 0 1",
        "8/8/8/8/3p4/8/4P3/k1K5 w - - 0 1",
        "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1",
        "4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1",
    ] {
        let position = Chess::parse_position(fen).unwrap();
        let value = prober.value(&position).unwrap();
        let moves = prober.moves(&position).unwrap();
        assert_eq!(moves[0].value, value, "{fen}");
        let line = prober.line(&position).unwrap();
        if value.dtm().is_some() {
            assert_eq!(line.len(), usize::from(value.dtm().unwrap()), "{fen}");
            assert_eq!(line.last().unwrap().1, Value::LOST, "{fen}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}
