//! Chess with pawns: the published KPvK figures and the leading generator's counts of every
//! 4-piece pawn material, moves (promotions, en passant and the en passant right after a double
//! step) against shakmaty, the solver's view of KPvKP against position-level moves with
//! retro-consistency (en passant states included), and queries consistent with the tables
//! through promotions.

use egtb::games::chess::Chess;
use egtb::games::{Game, IndexSpace};
use egtb::material::Side;
use egtb::probe::Prober;
use egtb::solver::{Space, Successors};
use egtb::stats::table_stats;
use egtb::value::Value;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, EnPassantMode, Position as _};

use crate::support::Rng;
use crate::support::chess::{
    assert_longest, check_state, generator, index, material, oracle, random_position, with_rights,
};

/// The first four FEN fields (board, side, castling, en passant).
fn fen4(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

#[test]
fn kpvk_matches_the_published_figures() {
    let (generator, _dir) = generator("pawns-kpvk", &["KPvK"]);
    let index = index(&material("KPvK"));
    let table = generator.tables().require(&material("KPvK")).unwrap();
    let entries = table.entries();
    let [white, black] = table_stats(&index, &entries);
    assert_eq!((white.win, white.draw, white.loss), (124_960, 38_368, 0));
    assert_eq!((black.win, black.draw, black.loss), (0, 70_420, 97_604));
    let published = [
        "8/8/8/1k6/8/8/K5P1/8 w",
        "8/8/8/1k6/8/8/1K4P1/8 w",
        "8/8/8/1k6/8/K7/6P1/8 w",
    ];
    assert_longest(&index, &entries, Side::First, &white, 55, 3, &published);
    let published = ["8/8/8/k7/8/K7/6P1/8 b", "8/8/k7/8/8/K7/6P1/8 b"];
    assert_longest(&index, &entries, Side::Second, &black, 56, 2, &published);
    // On the full board, each with its mirror image.
    assert_eq!([white, black].map(|s| s.longest.unwrap().positions), [6, 4]);
}

/// Every 4-piece material with a pawn against the leading generator's win/draw/loss counts
/// (`docs/reference.md`), brought to the full board, and KRvKP's published longest mate.
#[test]
fn four_piece_pawn_tables_match_the_leading_generators_counts() {
    type Wdl = (u64, u64, u64);
    let reference: [(&str, Wdl, Wdl); 10] = [
        ("KPPvK", (3_555_030, 58_312, 0), (0, 302_686, 3_522_058)),
        ("KNPvK", (8_810_640, 338_810, 0), (0, 1_895_664, 8_353_800)),
        ("KBPvK", (8_283_622, 349_608, 0), (0, 1_719_846, 8_529_618)),
        ("KRPvK", (7_877_172, 0, 0), (0, 251_868, 9_997_596)),
        ("KQPvK", (6_547_394, 0, 0), (0, 291_872, 9_957_592)),
        (
            "KPvKP",
            (3_213_028, 2_485_090, 1_737_970),
            (3_213_028, 2_485_090, 1_737_970),
        ),
        ("KNvKP", (416, 8_191_224, 1_216_892), (3_244_280, 6_718_658, 70)),
        ("KBvKP", (208, 8_425_216, 465_936), (2_348_634, 7_614_318, 56)),
        ("KRvKP", (7_406_204, 680_382, 13_454), (1_633_620, 1_743_898, 6_585_490)),
        ("KQvKP", (6_699_262, 42_634, 40), (771_952, 1_203_466, 7_987_590)),
    ];
    let names: Vec<&str> = reference.iter().map(|(name, ..)| *name).collect();
    let (generator, _dir) = generator("pawns-four", &names);
    for (name, white_wdl, black_wdl) in reference {
        let table = generator.tables().require(&material(name)).unwrap();
        let [white, black] = table_stats(&index(&material(name)), &table.entries());
        assert_eq!((white.win, white.draw, white.loss), white_wdl, "{name}, white to move");
        assert_eq!((black.win, black.draw, black.loss), black_wdl, "{name}, black to move");
        // The published DTM tables' longest mate of any 4-piece material is KRvKP's, 85 plies.
        let longest = [white, black]
            .map(|side| side.longest.map_or(0, |l| l.dtm))
            .into_iter()
            .max();
        if name == "KRvKP" {
            assert_eq!(longest, Some(85), "{name}'s longest mate");
        } else {
            assert!(longest < Some(85), "{name}'s longest mate {longest:?}");
        }
    }
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
    // Standard FEN names the square after every double step, whether a capture may use it or not.
    let unusable = Chess::parse_position("4k3/8/8/3p4/8/8/4P3/4K3 w - d6 0 1").unwrap();
    assert_eq!(
        unusable,
        Chess::parse_position("4k3/8/8/3p4/8/8/4P3/4K3 w - - 0 1").unwrap()
    );
    let pinned = Chess::parse_position("8/8/8/KPp4r/8/8/8/7k w - c6 0 1").unwrap();
    assert_eq!(pinned.en_passant(), None, "the capture would leave the king in check");
    for (fen, why) in [
        ("4k3/8/8/3pP3/8/8/8/4K3 w - e6 0 1", "no pawn"),
        ("4k3/8/3p4/3pP3/8/8/8/4K3 w - d6 0 1", "not empty"),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d5 0 1", "rank"),
        ("4k3/8/8/3pP3/8/8/8/4K3 w KQ - 0 1", "castling"),
        ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "first or last rank"),
    ] {
        let error = Chess::parse_position(fen).unwrap_err().to_string();
        assert!(error.contains(why), "{fen}: {error}");
    }
}

#[test]
fn kpvkp_space_is_retro_consistent_and_queries_agree() {
    let (generator, dir) = generator("pawns-kpvkp", &["KPvKP"]);
    let tables = generator.tables();
    let index = index(&material("KPvKP"));
    let space = Chess::space(&index, Default::default(), tables).unwrap();
    let mut rng = Rng::new(5);
    let (mut plain_states, mut en_passant_states) = (0, 0);
    while plain_states < 80 || en_passant_states < 25 {
        let rights = with_rights(&random_position(&mut rng, &material("KPvKP")));
        if plain_states >= 80 && rights.len() == 1 {
            continue;
        }
        for position in rights {
            let state = index.locate(&position);
            let canonical = index.decode(state).unwrap();
            if canonical.en_passant().is_some() {
                en_passant_states += 1;
            } else {
                plain_states += 1;
            }
            assert_eq!(
                index.weight(state),
                if canonical.en_passant().is_some() { 0 } else { 2 }
            );
            check_state(&space, &index, tables, state);
        }
    }
    assert!(en_passant_states >= 25, "{en_passant_states} en passant states");

    // KPvKP is its own colour-swapped image: both sides to move have the same statistics, and
    // the en passant slots weigh nothing.
    let [white, black] = table_stats(&index, &tables.require(&material("KPvKP")).unwrap().entries());
    let summary = |s: egtb::stats::SideStats| (s.legal, s.win, s.draw, s.loss, s.longest.map(|l| l.dtm));
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
}

/// Smaller tables read from disk (each thread reading, and decompressing, the blocks it needs)
/// give the same tables as smaller tables loaded whole: KPvKP and KRPvK, whose promotions and
/// captures reach seven smaller tables, built with every exit read from disk, compressed files
/// and raw ones.
#[test]
fn exits_read_from_disk_give_the_same_tables() {
    let (whole, _whole_dir) = generator("pawns-exits-whole", &["KPvKP", "KRPvK"]);
    for encoding in [egtb::table::Encoding::DEFAULT, egtb::table::Encoding::Raw] {
        let dir = crate::support::temp_dir(&format!("chess-pawns-exits-on-disk-{}", encoding.label()));
        let mut on_disk = egtb::generate::Generator::<Chess>::new(&dir, Default::default(), &egtb::solver::Silent)
            .with_encoding(encoding)
            .with_whole_exit_bytes(0);
        for name in ["KPvKP", "KRPvK"] {
            let m = material(name);
            let entries = on_disk.ensure(&m).unwrap().entries().to_vec();
            assert!(entries == *whole.tables().require(&m).unwrap().entries(), "{name}");
            let exits = Chess::sub_materials(&m);
            assert!(exits.len() >= 3, "{name}: {exits:?}");
            for exit in exits {
                assert!(!on_disk.tables().require(&exit).unwrap().is_whole(), "{name}: {exit}");
            }
        }
    }
}

/// A damaged smaller table that would be read compressed is found before the solve starts: every
/// block is checked when it is opened, and the error is one line naming the file.
#[test]
fn a_damaged_exit_read_compressed_stops_generation_in_one_line() {
    let dir = crate::support::temp_dir("chess-pawns-exit-damaged");
    let mut generator = egtb::generate::Generator::<Chess>::new(&dir, Default::default(), &egtb::solver::Silent)
        .with_whole_exit_bytes(0);
    generator.ensure_smaller(&material("KPvK")).unwrap();
    let path = dir.join("chess/KQvK.egtb");
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x5a;
    std::fs::write(&path, &bytes).unwrap();
    let mut fresh = egtb::generate::Generator::<Chess>::new(&dir, Default::default(), &egtb::solver::Silent)
        .with_whole_exit_bytes(0);
    let error = format!(
        "{:#}",
        fresh
            .solve(&material("KPvK"), egtb::generate::Backend::Cpu)
            .err()
            .unwrap()
    );
    assert!(
        error.contains("KQvK.egtb is damaged") && !error.contains('\n'),
        "{error}"
    );
}

/// A table with pawns is generated a pawn slice at a time (its scratch file removed afterwards),
/// and is the same, entry for entry, as the same table solved whole: KRPvK (one pawn, a group of
/// slices a level), KPPvK (two pawns, many slices a level, written raw) and KPvKP (pawns on both
/// sides: its en passant states valued after their slices).
#[test]
fn pawn_slices_give_the_table_of_the_whole_solve() {
    let dir = crate::support::temp_dir("chess-pawns-slices");
    let mut generator = egtb::generate::Generator::<Chess>::new(&dir, Default::default(), &egtb::solver::Silent);
    for name in ["KRPvK", "KPPvK", "KPvKP"] {
        if name == "KPPvK" {
            generator = generator.with_encoding(egtb::table::Encoding::Raw);
        }
        let m = material(name);
        let sliced = generator.ensure(&m).unwrap().entries().to_vec();
        let built = generator.built.iter().find(|b| b.material == m).unwrap();
        let (solver, _) = built.solved.clone().unwrap();
        assert!(solver.words.contains("pawn slices"), "{name}: {solver:?}");
        let whole = generator.solve(&m, egtb::generate::Backend::Cpu).unwrap();
        assert!(whole.entries == sliced, "{name}");
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.join("chess"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with(".egtb"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// The space of a group of pawn slices numbers its states from 0, the children its states
/// reach as well as their parents: every child of a state lists the state among its parents,
/// looked at one state at a time and run by run.
#[test]
fn a_pawn_slice_space_numbers_children_and_parents_alike() {
    let (generator, _dir) = generator("pawns-slice-space", &["KRPvK"]);
    let tables = generator.tables();
    let m = material("KRPvK");
    let index = index(&m);
    let space = Chess::space(&index, Default::default(), tables).unwrap();
    let sliced = space.sliced().unwrap();
    let entries = tables.require(&m).unwrap().entries();
    let solved = |state: u64| entries[state as usize];
    let slices = sliced.slices();
    let slice = slices.iter().max_by_key(|s| s.level).unwrap();
    let local = sliced.slice_space(&slice.ranges, &solved);
    let states = local.states();
    let mut listed = Vec::new();
    local.expand_run(0..states, &mut Successors::default(), &mut |node, children| {
        listed.push((node, children.distinct().to_vec()));
    });
    let (mut checked, mut children) = (0, Successors::default());
    for state in (0..states).step_by(97) {
        children.clear();
        let node = local.expand(state, &mut children);
        let reached = children.distinct().to_vec();
        assert_eq!((node, reached.clone()), listed[state as usize], "state {state}");
        for child in reached {
            assert!(child < states, "state {state}: child {child} of {states}");
            let mut parents = Successors::default();
            local.parents(child, &mut parents);
            assert!(parents.distinct().contains(&state), "state {state}, child {child}");
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked} children");
}
