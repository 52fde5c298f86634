//! Xiangqi under the Asian rules (`--rules asian`): tables where the rules cannot apply equal the
//! default tables; every ruling keeps to the definition, checked here from the tables' values
//! and the legal moves alone; the rulings' values propagate like any loss; query and line name
//! the ruling; the GPU solver builds the same tables and rulings as the CPU solver.

use std::path::Path;

use egtb::games::xiangqi::board::Kind;
use egtb::games::xiangqi::{Position, Repetition, Xiangqi, XiangqiRules};
use egtb::games::{Game, IndexSpace};
use egtb::generate::{Backend, Generator, table_path};
use egtb::material::{GameId, Material};
use egtb::plan::{Plan, estimate_peak_bytes};
use egtb::probe::Prober;
use egtb::rulings::{self, rulings_path};
use egtb::rulings::{Reason, Ruling};
use egtb::solver::Silent;
use egtb::solver::gpu::{Gpu, GpuOptions};
use egtb::table::Table;
use egtb::value::Value;

use crate::support::served::ASIAN;
use crate::support::{egtb, egtb_command, failed, fails, succeeds, temp_dir};

const DRAW: XiangqiRules = XiangqiRules {
    repetition: Repetition::Draw,
};

fn material(name: &str) -> Material {
    Material::parse(GameId::Xiangqi, name).unwrap()
}

fn build(dir: &Path, name: &str, rules: XiangqiRules) -> Vec<u16> {
    let mut generator = Generator::<Xiangqi>::new(dir, rules, &Silent);
    generator.ensure(&material(name)).unwrap().entries().to_vec()
}

/// The rulings beside the table file at `path`, checked against its header's seal.
fn rulings_of(path: &Path) -> Vec<Ruling> {
    rulings::of(path, &Table::open_unchecked(path).unwrap().header).unwrap()
}

/// The arguments of a command under the Asian rules.
fn under_asian_rules<'a>(args: &[&'a str]) -> Vec<&'a str> {
    [&["--rules", "asian"][..], args].concat()
}

/// Whether the side not to move in `position` is in check.
fn gives_check(position: &Position) -> bool {
    let mut turned = position.clone();
    turned.side_to_move = turned.side_to_move.other();
    turned.check_legal().is_err()
}

#[test]
fn materials_where_one_side_cannot_attack_equal_their_draw_tables() {
    let dir = temp_dir("asian-one-side");
    for name in ["KRvKA", "KNvKE", "KPvKA", "KCvKAE"] {
        let asian = build(&dir, name, ASIAN);
        let draw = build(&dir, name, DRAW);
        assert_eq!(asian, draw, "{name}");
        let path = table_path::<Xiangqi>(&dir, &material(name), ASIAN);
        assert!(path.exists() && !rulings_path(&path).exists(), "{name}");
    }
}

/// The squares of the non-king pieces that the side to move in `position` can legally capture.
fn captures(position: &Position) -> Vec<u8> {
    let mut out: Vec<u8> = Xiangqi::legal_moves(position, DRAW)
        .into_iter()
        .filter(|mv| position.cells[usize::from(mv.to)].is_some_and(|p| p.kind != Kind::King))
        .map(|mv| mv.to)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The threats a move from `position` creates: the squares of the opponent's pieces (kings
/// excepted) that the mover could capture after the move, were it to move again, and could not
/// capture before it.
fn new_threats(position: &Position, child: &Position) -> Vec<u8> {
    let before = captures(position);
    let mut again = child.clone();
    again.side_to_move = again.side_to_move.other();
    captures(&again).into_iter().filter(|to| !before.contains(to)).collect()
}

/// Checks every ruling of a material whose smaller tables the rules cannot change, all of
/// order 1 (decided on the default table's values) and for `reason`. The ruled side's every
/// move that does not lose under the default rules stays in the material and, for a perpetual
/// check, gives check; for a perpetual chase, gives no check and threatens a piece that every
/// such move threatens anew. Each such move allows an answer that does not lose, does not check,
/// threatens nothing anew, and reaches another position ruled for the same reason. Returns how
/// many rulings there were, the kinds of the pieces the chases threaten and the first ruled
/// position. The tables are built in `dir`.
fn rulings_keep_to_the_definition(dir: &Path, name: &str, reason: Reason) -> (usize, Vec<Kind>, String) {
    build(dir, name, DRAW);
    let asian_entries = build(dir, name, ASIAN);
    let m = material(name);
    let index = Xiangqi::index(&m, ASIAN).unwrap();
    let path = table_path::<Xiangqi>(dir, &m, ASIAN);
    let all = rulings_of(&path);
    let mut draw = Prober::<Xiangqi>::new(dir, DRAW);
    let mut asian = Prober::<Xiangqi>::new(dir, ASIAN);
    let mut chased = Vec::new();
    for ruling in &all {
        assert_eq!(ruling.order, 1, "{name}: the smaller tables are unchanged");
        assert_eq!(ruling.reason, reason, "{name}");
        let position = index.decode(ruling.state).unwrap();
        let fen = Xiangqi::format_position(&position);
        assert_eq!(draw.value(&position).unwrap(), Value::Draw, "{fen}");
        assert_eq!(asian.value(&position).unwrap(), Value::LOST, "{fen}");
        assert_eq!(asian_entries[ruling.state as usize], Value::LOST.entry());
        let mut targets: Option<Vec<u8>> = None;
        for mv in Xiangqi::legal_moves(&position, DRAW) {
            let child = Xiangqi::play(&position, mv);
            if draw.value(&child).unwrap() != Value::Draw {
                continue;
            }
            let same_material = Xiangqi::material_of(&child) == Xiangqi::material_of(&position);
            assert!(same_material, "{fen}: a capture into a drawn ending escapes the rule");
            if reason == Reason::PerpetualCheck {
                assert!(gives_check(&child), "{fen}: a drawing move that does not check");
            } else {
                assert!(!gives_check(&child), "{fen}: a chaser's drawing move checks");
                let threats = new_threats(&position, &child);
                targets = Some(match targets {
                    None => threats,
                    Some(kept) => kept.into_iter().filter(|t| threats.contains(t)).collect(),
                });
            }
            let keeps_cycle = Xiangqi::legal_moves(&child, DRAW).into_iter().any(|answer| {
                let next = Xiangqi::play(&child, answer);
                Xiangqi::material_of(&next) == Xiangqi::material_of(&child)
                    && !gives_check(&next)
                    && new_threats(&child, &next).is_empty()
                    && draw.value(&next).unwrap() == Value::Draw
                    && asian.ruling(&next).unwrap().is_some_and(|r| r.reason == ruling.reason)
            });
            assert!(keeps_cycle, "{fen}: no answer keeps the cycle");
        }
        if reason == Reason::PerpetualChase {
            let targets = targets.expect("a ruled position has a drawing move");
            assert!(!targets.is_empty(), "{fen}: the drawing moves chase no one piece");
            chased.extend(targets.iter().map(|&t| position.cells[usize::from(t)].unwrap().kind));
        }
    }
    chased.sort_unstable();
    chased.dedup();
    let first = Xiangqi::format_position(&index.decode(all[0].state).unwrap());
    (all.len(), chased, first)
}

#[test]
fn krvkn_perpetual_horse_checks_lose_and_keep_to_the_definition() {
    let dir = temp_dir("asian-KRvKN");
    let (rulings, _, _) = rulings_keep_to_the_definition(&dir, "KRvKN", Reason::PerpetualCheck);
    assert!(rulings > 100, "{rulings} rulings");
}

/// A table's header seals its rulings file, so that one lost, damaged or taken from another
/// build fails the table's verification in every command that reads it, rather than leaving a
/// table that loads without its rulings (statistics short of them, queries that cannot say why).
#[test]
fn a_rulings_file_lost_or_replaced_fails_its_table_in_one_line() {
    let dir = temp_dir("asian-sealed");
    succeeds(&dir, &under_asian_rules(&["generate", "xiangqi", "KRvKN"]));
    let stats = succeeds(&dir, &under_asian_rules(&["--json", "stats", "xiangqi", "KRvKN"]));
    let stats: serde_json::Value = serde_json::from_str(&stats).unwrap();
    let ruled = &stats["sides"]["black"]["ruled_lost"]["perpetual_check"];
    assert!(ruled["count"].as_u64().unwrap() > 100, "{stats}");
    let fen = ruled["position"].as_str().unwrap().to_string();
    // Ruled losses are among the positions at DTM 0, which the counts by DTM say.
    let by_dtm = succeeds(&dir, &under_asian_rules(&["stats", "xiangqi", "KRvKN", "--by-dtm"]));
    assert!(by_dtm.contains("0: no move left, or lost by a ruling)"), "{by_dtm}");
    let path = table_path::<Xiangqi>(&dir, &material("KRvKN"), ASIAN);
    let file = rulings_path(&path);
    let good = std::fs::read(&file).unwrap();

    let every_command_fails = |why: &str| {
        let listed = egtb(&dir, &["list"]);
        let list = String::from_utf8(listed.stdout).unwrap();
        assert!(
            !listed.status.success() && list.contains("BAD") && list.contains(why),
            "{list}"
        );
        for args in [
            &["generate", "xiangqi", "KRvKN"][..],
            &["stats", "xiangqi", "KRvKN"],
            &["audit", "xiangqi", "KRvKN"],
            &["query", &fen],
        ] {
            let error = fails(&dir, &under_asian_rules(args));
            assert!(
                error.contains("is damaged; delete it and generate it again") && error.contains(why),
                "{error}"
            );
        }
    };
    std::fs::remove_file(&file).unwrap();
    every_command_fails("rulings file");
    // So is a query whose answer needs no ruling: a table opened for probing checks its file.
    let plain = "3k5/9/9/9/9/9/9/9/4n4/4K3R w";
    let error = fails(&dir, &under_asian_rules(&["query", plain]));
    assert!(
        error.contains("rulings file") && error.contains("is missing"),
        "{error}"
    );
    let mut other = good.clone();
    let last = other.len() - 2;
    other[last] = if other[last] == b'1' { b'2' } else { b'1' };
    std::fs::write(&file, &other).unwrap();
    every_command_fails("is corrupt");
    let text = String::from_utf8(good.clone()).unwrap();
    let (header, body) = text.split_at(text.find("checksum=").unwrap());
    let body = body.split_once('\n').unwrap().1;
    let shorter = body.lines().skip(1).map(|l| format!("{l}\n")).collect::<String>();
    let resealed = format!(
        "{}count={}\nchecksum={:08x}\n{shorter}",
        header.rsplit_once("count=").unwrap().0,
        shorter.lines().count(),
        crc32fast::hash(shorter.as_bytes())
    );
    std::fs::write(&file, resealed).unwrap();
    every_command_fails("belongs to another build");

    std::fs::write(&file, &good).unwrap();
    assert!(succeeds(&dir, &under_asian_rules(&["query", &fen])).contains("perpetual check"));
    assert!(succeeds(&dir, &["list"]).contains("all verify"));
}

/// The smallest material found with perpetual-chase rulings: black's cannon, screened by the red
/// king or an advisor, attacks the red rook after every drawing move, and the rook's only
/// answers that keep the draw keep it attacked.
#[test]
fn kraavkc_perpetual_cannon_chases_of_the_rook_lose_and_keep_to_the_definition() {
    let dir = temp_dir("asian-KRAAvKC");
    let (rulings, chased, fen) = rulings_keep_to_the_definition(&dir, "KRAAvKC", Reason::PerpetualChase);
    assert!(rulings > 100, "{rulings} rulings");
    assert_eq!(chased, [Kind::Rook]);
    let out = egtb(&dir, &["--json", "--rules", "asian", "query", &fen]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["value"]["dtm"], 0, "{json}");
    assert_eq!(json["ruling"]["reason"], "perpetual chase", "{json}");
    assert_eq!(json["ruling"]["order"], 1, "{json}");
    // The game ends there by the ruling, as a mate ends it.
    assert_eq!(json["ending"], "ruling", "{json}");
    let out = egtb(&dir, &["--json", "--rules", "asian", "line", &fen]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&json["line"], &json["ending"]),
        (&serde_json::json!([]), &"ruling".into())
    );
    let text = succeeds(&dir, &["--rules", "asian", "query", &fen]);
    assert!(
        text.contains("has lost by the rules: perpetual chase (order 1)"),
        "{text}"
    );
}

/// Every sampled position's value follows from its moves' values, with the ruled positions
/// lost at DTM 0; positions decided only by the rules have a best line that ends in a ruling.
#[test]
fn asian_values_propagate_like_any_loss() {
    let name = "KRvKN";
    let dir = temp_dir("asian-propagate");
    build(&dir, name, DRAW);
    build(&dir, name, ASIAN);
    let index = Xiangqi::index(&material(name), ASIAN).unwrap();
    let mut draw = Prober::<Xiangqi>::new(&dir, DRAW);
    let mut asian = Prober::<Xiangqi>::new(&dir, ASIAN);
    let (mut ruled, mut resting) = (0, 0);
    for state in (0..index.states()).step_by(97) {
        let Some(position) = index.decode(state) else { continue };
        let fen = Xiangqi::format_position(&position);
        let value = asian.value(&position).unwrap();
        if let Some(ruling) = asian.ruling(&position).unwrap() {
            assert_eq!(value, Value::LOST, "{fen}");
            assert_eq!(ruling.order, 1);
            ruled += 1;
            continue;
        }
        let best = asian.moves(&position).unwrap().first().map(|m| m.value);
        assert_eq!(best.unwrap_or(Value::LOST), value, "{fen}");
        let before = draw.value(&position).unwrap();
        if before == Value::Draw && value != Value::Draw {
            let line = asian.line(&position).unwrap();
            assert_eq!(line.len(), usize::from(value.dtm().unwrap()), "{fen}");
            let end = asian.ruled_end(&position).unwrap().expect("the line ends in a ruling");
            assert_eq!(asian.value(&end.position).unwrap(), Value::LOST);
            resting += 1;
        } else if before != Value::Draw {
            assert_eq!(before.outcome(), value.outcome(), "{fen}: the rules only decide draws");
        }
    }
    assert!(ruled > 0 && resting > 0, "{ruled} ruled, {resting} resting on a ruling");
}

/// The GPU solver, in rounds on the GPU, equals the CPU solver: the same entries and the same
/// rulings (state, order and reason), for materials with attacking pieces on both sides.
#[test]
fn the_gpu_solver_equals_the_cpu_in_entries_and_rulings() {
    if Gpu::open_unless_absent().unwrap().is_none() {
        return;
    }
    let dir = temp_dir("asian-gpu");
    let mut generator = Generator::<Xiangqi>::new(&dir, ASIAN, &Silent);
    let mut reasons = Vec::new();
    // KNvKP has draws whose side to move starts as chasing a pawn, which the passes must clear;
    // KRAAvKC has perpetual chases.
    for name in ["KRvKN", "KNvKP", "KRvKC", "KRAAvKC"] {
        let m = material(name).canonical().0;
        generator.ensure_smaller(&m).unwrap();
        let cpu = generator.solve(&m, Backend::Cpu).unwrap();
        let gpu = generator.solve(&m, Backend::Gpu).unwrap();
        assert!(gpu.solver.backend == Backend::Gpu, "{}", gpu.solver.words);
        let differing = cpu.entries.iter().zip(&gpu.entries).filter(|(a, b)| a != b).count();
        assert_eq!(cpu.entries.len(), gpu.entries.len(), "{name}");
        assert_eq!(differing, 0, "{name}: {differing} entries differ");
        assert_eq!(cpu.rulings, gpu.rulings, "{name}");
        assert_eq!(cpu.rounds, gpu.rounds, "{name}");
        eprintln!(
            "{name}: {} rulings in {} rounds; CPU {:?}, GPU {:?} (kernels {:?})",
            cpu.rulings.len(),
            cpu.rounds,
            cpu.wall,
            gpu.wall,
            gpu.kernel.map(|k| k.total())
        );
        reasons.extend(cpu.rulings.iter().map(|r| r.reason));
    }
    for reason in [Reason::PerpetualCheck, Reason::PerpetualChase] {
        assert!(reasons.contains(&reason), "{reason:?}: {} rulings", reasons.len());
    }
}

/// A table split over several storage bindings is split the same way in the rule passes: with
/// the split forced small (KRvKN's 874,800 states in four chunks), the GPU's entries and rulings
/// still equal the CPU's.
#[test]
fn the_gpu_rule_passes_split_a_table_over_bindings_as_the_solver_does() {
    let Some(gpu) = Gpu::open_unless_absent().unwrap() else {
        return;
    };
    let dir = temp_dir("asian-gpu-split");
    let m = material("KRvKN");
    let mut generator = Generator::<Xiangqi>::new(&dir, ASIAN, &Silent);
    generator.ensure_smaller(&m).unwrap();
    let cpu = generator.solve(&m, Backend::Cpu).unwrap();
    let index = Xiangqi::index(&m, ASIAN).unwrap();
    let rules = Xiangqi::gpu_rules(&index, ASIAN, generator.tables()).unwrap();
    let options = GpuOptions {
        split_bytes: Some(1 << 19),
        ..GpuOptions::default()
    };
    assert_eq!(index.states().div_ceil(options.split_bytes.unwrap() / 2), 4);
    let split = gpu.solve(rules.as_ref(), &options, &Silent).unwrap();
    assert!(split.entries == cpu.entries, "the entries differ");
    assert_eq!(split.rulings, cpu.rulings);
    assert_eq!((split.rounds, cpu.rulings.is_empty()), (cpu.rounds, false));
}

#[test]
fn the_cli_names_the_ruling_and_builds_the_same_files_on_the_gpu() {
    let dir = temp_dir("asian-cli");
    let built = egtb(
        &dir,
        &["generate", "xiangqi", "KRvKN", "--rules", "asian", "--backend", "cpu"],
    );
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let m = material("KRvKN");
    let index = Xiangqi::index(&m, ASIAN).unwrap();
    let path = table_path::<Xiangqi>(&dir, &m, ASIAN);
    let first = rulings_of(&path)[0];
    let fen = Xiangqi::format_position(&index.decode(first.state).unwrap());
    let out = egtb(&dir, &["--json", "--rules", "asian", "query", &fen]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["value"]["dtm"], 0, "{json}");
    assert_eq!(json["ruling"]["reason"], "perpetual check", "{json}");
    assert_eq!(json["ruling"]["order"], 1, "{json}");
    let side = if index.side_to_move(first.state).index() == 0 {
        "red"
    } else {
        "black"
    };
    assert_eq!(json["ruling"]["loser"], side, "{json}");
    let draw = egtb(&dir, &["--json", "query", &fen]);
    assert!(!draw.status.success(), "the draw table was never built");

    if Gpu::open_unless_absent().unwrap().is_some() {
        let gpu_dir = temp_dir("asian-cli-gpu");
        let args = ["generate", "xiangqi", "KRvKN", "--rules", "asian", "--backend", "gpu"];
        let summary = succeeds(&gpu_dir, &args);
        assert!(summary.contains("GPU solver"), "{summary}");
        let gpu_path = table_path::<Xiangqi>(&gpu_dir, &m, ASIAN);
        for (cpu_file, gpu_file) in [
            (path.clone(), gpu_path.clone()),
            (rulings_path(&path), rulings_path(&gpu_path)),
        ] {
            assert!(
                std::fs::read(&cpu_file).unwrap() == std::fs::read(&gpu_file).unwrap(),
                "{gpu_file:?} differs"
            );
        }
    }
}

#[test]
fn a_graph_of_draws_beyond_the_memory_limit_is_refused_in_one_line_and_builds_nothing() {
    let dir = temp_dir("asian-memory");
    let m = material("KRAvKR");
    let mut generator = Generator::<Xiangqi>::new(&dir, ASIAN, &Silent);
    for sub in Xiangqi::sub_materials(&m) {
        generator.ensure(&sub).unwrap();
    }
    let plan = Plan::new::<Xiangqi>(&dir, ASIAN, &[m]).unwrap();
    let table = &plan.tables[plan.position(&m).unwrap()];
    // The table itself fits (its estimate without the plan's allowance for the graph, as
    // generation checks it, is the limit); the graph of its ~2 million drawn positions, known
    // only after the first solve, does not.
    let limit = estimate_peak_bytes(table.working_states, table.loaded_states, 0);
    let refused = failed(
        egtb_command(
            &dir,
            &["generate", "xiangqi", "KRAvKR", "--rules", "asian", "--backend", "cpu"],
        )
        .env("EGTB_MAX_MEMORY", limit.to_string())
        .output()
        .unwrap(),
        &["generate"],
    );
    assert!(
        refused.contains("the Asian rulings of KRAvKR (a graph of its") && refused.contains("needs about"),
        "{refused}"
    );
    let path = table_path::<Xiangqi>(&dir, &m, ASIAN);
    let left: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with("KRAvKR"))
        .collect();
    assert!(left.is_empty(), "nothing of KRAvKR is left: {left:?}");
}
