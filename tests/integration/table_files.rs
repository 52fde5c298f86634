//! Table files as users meet them: compressed by default, raw on request, both read by every
//! command and by generation, converted in place, and never trusted when damaged.

use std::fs;
use std::path::Path;

use egtb::games::chess::Chess;
use egtb::games::{Game, IndexSpace};
use egtb::material::{GameId, Material, Side};
use egtb::solver::Silent;
use egtb::solver::gpu::Gpu;
use egtb::table::{self, Table};
use egtb::value::{BROKEN, DRAW, Entry, MAX_REACHED_DTM, Value as Outcome};
use serde_json::Value;

use crate::support::{egtb, egtb_command, failed, fails, succeeded, succeeds, temp_dir};

fn json(tables: &Path, args: &[&str]) -> Value {
    let mut args = args.to_vec();
    args.push("--json");
    serde_json::from_str(&succeeds(tables, &args)).expect("JSON output")
}

/// The size of a file in the tables folder.
fn file_bytes(tables: &Path, file: &str) -> u64 {
    fs::metadata(tables.join(file)).unwrap().len()
}

/// `egtb list --json` by file: (file within the folder, encoding, bytes, ok); each table's path
/// is one to open and its game is its folder's.
fn listing(tables: &Path) -> Vec<(String, String, u64, bool)> {
    json(tables, &["list"])["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let path = Path::new(t["path"].as_str().unwrap());
            assert!(path.is_file(), "{t}");
            let file = path.strip_prefix(tables).unwrap().to_str().unwrap();
            let folder = file.split('/').next().unwrap();
            assert_eq!(t["game"].as_str(), Some(folder), "{t}");
            (
                file.to_string(),
                t["encoding"].as_str().unwrap_or("?").to_string(),
                t["bytes"].as_u64().unwrap(),
                t["ok"].as_bool().unwrap(),
            )
        })
        .collect()
}

const FENS: [&str; 3] = [
    "8/8/8/8/3r4/2k5/8/QK6 b - - 0 1",
    "8/8/8/4k3/8/2r5/8/Q3K3 w - - 0 1",
    "8/8/8/3k4/8/8/8/Q3K3 w - - 0 1",
];

/// Everything a user reads out of a folder of KQvKR and its smaller tables.
fn answers(tables: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    for fen in FENS {
        out.push(json(tables, &["query", fen]));
        out.push(json(tables, &["line", fen]));
    }
    for material in ["KQvKR", "KQvK", "KRvK"] {
        out.push(json(tables, &["stats", "chess", material]));
    }
    out
}

#[test]
fn compressed_and_raw_tables_give_the_same_answers_and_convert_in_place() {
    let (zstd, raw) = (temp_dir("files-zstd"), temp_dir("files-raw"));
    // Generation reads its exits from compressed tables in one folder and raw ones in the other.
    succeeds(&zstd, &["generate", "chess", "KQvKR"]);
    succeeds(&raw, &["generate", "chess", "KQvKR", "--uncompressed"]);
    let (zstd_list, raw_list) = (listing(&zstd), listing(&raw));
    assert_eq!(zstd_list.len(), 4, "{zstd_list:?}");
    for ((file, encoding, bytes, ok), (raw_file, raw_encoding, raw_bytes, raw_ok)) in zstd_list.iter().zip(&raw_list) {
        assert_eq!(file, raw_file);
        assert!(*ok && *raw_ok, "{file}");
        assert_eq!((encoding.as_str(), raw_encoding.as_str()), ("zstd", "raw"));
        if file.contains("KQvKR") {
            assert!(bytes * 4 < *raw_bytes, "{file}: {bytes} compressed, {raw_bytes} raw");
        }
    }
    assert!(succeeds(&zstd, &["list"]).contains(" zstd "));
    assert_eq!(answers(&zstd), answers(&raw));

    let compressed_kqvkr = fs::read(zstd.join("chess/KQvKR.egtb")).unwrap();
    let decompressed = json(&zstd, &["decompress"]);
    assert_eq!(decompressed["tables"].as_array().unwrap().len(), 4);
    for (file, ..) in &raw_list {
        assert_eq!(
            fs::read(zstd.join(file)).unwrap(),
            fs::read(raw.join(file)).unwrap(),
            "{file} decompressed is the raw table, byte for byte"
        );
    }
    let compressed = json(&raw, &["compress", "chess", "KQvKR"]);
    assert_eq!(compressed["tables"][0]["from"], "raw");
    assert_eq!(compressed["tables"][0]["to"], "zstd");
    assert_eq!(fs::read(raw.join("chess/KQvKR.egtb")).unwrap(), compressed_kqvkr);
    assert_eq!(answers(&raw), answers(&zstd));
    let again = json(&raw, &["compress", "chess"]);
    let unchanged = &again["tables"].as_array().unwrap()[1];
    assert_eq!(unchanged["bytes_before"], unchanged["bytes_after"]);
    assert_eq!(unchanged["rewritten"], false);
    assert_eq!(compressed["tables"][0]["rewritten"], true);
    let text = succeeds(&raw, &["compress", "chess", "KQvKR"]);
    assert!(
        text.contains("left as it is (verified)")
            && text.contains("1 table, ")
            && text.contains(": all left as they were"),
        "{text}"
    );

    // Packed harder at a chosen level: smaller, the same answers, and kept by a plain compress.
    let packed = json(&raw, &["compress", "--level", "19"]);
    assert!(
        packed["bytes_after"].as_u64() < packed["bytes_before"].as_u64(),
        "{packed}"
    );
    assert!(
        packed["tables"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["to"] == "zstd-19"),
        "{packed}"
    );
    assert_eq!(answers(&raw), answers(&zstd));
    assert!(
        listing(&raw)
            .iter()
            .all(|(_, encoding, _, ok)| *ok && encoding == "zstd-19")
    );
    let kept = json(&raw, &["compress"]);
    assert_eq!(kept["bytes_before"], packed["bytes_after"]);
    assert_eq!(kept["bytes_after"], packed["bytes_after"]);
    let refused = egtb(&raw, &["compress", "--level", "23"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("'23' is not a zstd level from 1 to 22"));

    let leftovers: Vec<String> = [&zstd, &raw]
        .iter()
        .flat_map(|d| fs::read_dir(d.join("chess")).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|name| !name.ends_with(".egtb"))
        .collect();
    assert!(leftovers.is_empty(), "no lock or temporary files stay: {leftovers:?}");
    assert!(fails(&raw, &["compress", "chess", "KRRvK"]).contains("not found at"));
    assert!(fails(&raw, &["compress", "chess", "KRRvK"]).contains("build it with: egtb generate chess KRRvK"));
    succeeds(&raw, &["generate", "chess", "KRRvK", "--level", "5"]);
    assert!(listing(&raw).contains(&(
        "chess/KRRvK.egtb".into(),
        "zstd-5".into(),
        file_bytes(&raw, "chess/KRRvK.egtb"),
        true
    )));
}

#[test]
fn damaged_compressed_tables_fail_every_command_in_one_line() {
    let dir = temp_dir("files-damaged");
    succeeds(&dir, &["generate", "chess", "KQvKR"]);
    let path = dir.join("chess/KQvKR.egtb");
    let good = fs::read(&path).unwrap();
    let fen = FENS[1];
    assert!(succeeds(&dir, &["query", fen]).contains("White to move"));

    // A byte in the middle of the frames: whichever block it hits, that block fails its check.
    let mut bytes = good.clone();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x5a;
    fs::write(&path, &bytes).unwrap();
    assert!(fails(&dir, &["stats", "chess", "KQvKR"]).contains("corrupt (block"));
    assert!(fails(&dir, &["generate", "chess", "KQvKR"]).contains("is damaged"));
    assert!(fails(&dir, &["decompress", "chess", "KQvKR"]).contains("is damaged"));
    assert_eq!(
        fs::read(&path).unwrap(),
        bytes,
        "a failed conversion leaves the file as it was"
    );
    let listed = egtb(&dir, &["list"]);
    let list = String::from_utf8(listed.stdout).unwrap();
    assert!(!listed.status.success(), "{list}");
    assert!(list.contains("BAD") && list.contains("corrupt (block"), "{list}");

    // The index: a block's checksum, then a cut in the last frame, then in the index.
    let mut bytes = good.clone();
    bytes[4096 + 12] ^= 1;
    fs::write(&path, &bytes).unwrap();
    assert!(fails(&dir, &["query", fen]).contains("the block index fails its checksum"));
    fs::write(&path, &good[..good.len() - 3]).unwrap();
    assert!(fails(&dir, &["line", fen]).contains("truncated"));
    fs::write(&path, &good[..4096 + 40]).unwrap();
    assert!(fails(&dir, &["query", fen]).contains("truncated"));

    fs::write(&path, &good).unwrap();
    assert!(succeeds(&dir, &["query", fen]).contains("White to move"));
}

/// KvK written again with its checksums, one legal position (white to move, as after black's king
/// took the last man) given `entry`: a file that loads, holding what no solver writes. Returns
/// that position.
fn alter_kings(dir: &Path, entry: Entry) -> String {
    let path = dir.join("chess/KvK.egtb");
    let table = Table::open_unchecked(&path).unwrap();
    let header = table.header.clone();
    let mut entries = table.load().unwrap().entries().to_vec();
    let kings = Chess::index(&Material::parse(GameId::Chess, "KvK").unwrap(), Default::default()).unwrap();
    let target = (0..kings.states())
        .find(|&s| {
            let at_home = |p| kings.locate(&Chess::oriented(&p).1) == s;
            kings.side_to_move(s) == Side::First && kings.decode(s).is_some_and(at_home)
        })
        .unwrap();
    entries[target as usize] = entry;
    table::write(&path, header, &entries, &Silent).unwrap();
    Chess::format_position(&kings.decode(target).unwrap())
}

#[test]
fn generation_refuses_a_smaller_table_holding_what_no_solver_writes() {
    let dir = temp_dir("files-unwritten");
    succeeds(&dir, &["generate", "chess", "KvK"]);
    let beyond = Outcome::Loss(MAX_REACHED_DTM + 1).entry();
    // Whole solves (KRvK) and solves by pawn slices (KPvK) both read the kings' table.
    for (entry, material) in [(BROKEN, "KRvK"), (beyond, "KRvK"), (BROKEN, "KPvK")] {
        alter_kings(&dir, entry);
        let error = fails(&dir, &["generate", "chess", material, "--backend", "cpu"]);
        assert!(
            error.contains("table ") && error.contains("KvK.egtb is damaged") && error.contains("a move reaches"),
            "{material}, entry {entry:#x}: {error}"
        );
        assert!(
            !dir.join(format!("chess/{material}.egtb")).exists(),
            "{material} is not written"
        );
    }
    // The GPU solver reads the entries raw: it fails too, naming the file that holds a DTM
    // beyond the longest, or (a legal position marked broken) the file the CPU solver finds.
    if Gpu::open_unless_absent().unwrap().is_some() {
        // KPvK's promotions reach tables of their own, built first from the kings' table whole
        // (KRvK removed once KPvK is done with it).
        alter_kings(&dir, DRAW);
        succeeds(&dir, &["generate", "chess", "KQvK", "KRvK", "KBvK", "KNvK"]);
        for (entry, material) in [(BROKEN, "KPvK"), (beyond, "KRvK"), (BROKEN, "KRvK")] {
            alter_kings(&dir, entry);
            let _ = fs::remove_file(dir.join(format!("chess/{material}.egtb")));
            let error = fails(&dir, &["generate", "chess", material, "--backend", "gpu"]);
            assert!(
                error.contains("table ") && error.contains("KvK.egtb is damaged") && error.contains("a move reaches"),
                "GPU, {material}, entry {entry:#x}: {error}"
            );
            assert!(!dir.join(format!("chess/{material}.egtb")).exists());
        }
    }
    // A probe of the slot itself names the file where its entry is beyond the longest DTM.
    let kings = alter_kings(&dir, 0x9000);
    let error = fails(&dir, &["query", &kings]);
    assert!(
        error.contains("KvK.egtb is damaged") && error.contains("beyond the longest DTM"),
        "{error}"
    );
}

#[test]
fn version_one_tables_still_open() {
    let dir = temp_dir("files-v1");
    succeeds(&dir, &["generate", "chess", "KQvK", "--uncompressed"]);
    let fen = "8/8/8/3k4/8/8/8/Q3K3 w - - 0 1";
    let before = json(&dir, &["query", fen]);
    let path = dir.join("chess/KQvK.egtb");
    let mut bytes = fs::read(&path).unwrap();
    let header = String::from_utf8(bytes[..4096].to_vec()).unwrap();
    let mut old = header
        .replace("format=2", "format=1")
        .replace("encoding=raw\n", "")
        .into_bytes();
    old.resize(4096, b'\n');
    bytes[..4096].copy_from_slice(&old);
    fs::write(&path, &bytes).unwrap();
    assert_eq!(json(&dir, &["query", fen]), before);
    assert_eq!(
        listing(&dir)[0],
        ("chess/KQvK.egtb".to_string(), "raw".to_string(), 4096 + 2 * 57288, true)
    );
    json(&dir, &["compress"]);
    assert_eq!(json(&dir, &["query", fen]), before);
}

/// `stats` reads a table a block at a time, so it needs no room for the entries; `audit`, which
/// loads the table whole, is refused with what it needs when that room is missing.
#[test]
fn statistics_need_no_room_for_the_entries_and_a_whole_load_is_refused_without_it() {
    let dir = temp_dir("files-memory");
    succeeds(&dir, &["generate", "chess", "KQvKR"]);
    let whole = json(&dir, &["stats", "chess", "KQvKR", "--by-dtm"]);
    let entries_bytes = 2 * whole_states(&dir);
    let capped = |args: &[&str]| {
        egtb_command(&dir, args)
            .env("EGTB_MAX_MEMORY", (entries_bytes / 2).to_string())
            .output()
            .unwrap()
    };
    let args = ["stats", "chess", "KQvKR", "--by-dtm", "--json"];
    let stats: Value = serde_json::from_str(&succeeded(capped(&args), &args)).unwrap();
    assert_eq!(stats, whole);
    let args = ["audit", "chess", "KQvKR"];
    let refused = failed(capped(&args), &args);
    assert!(
        refused.contains("loading table") && refused.contains("KQvKR.egtb needs about"),
        "{refused}"
    );
    assert!(refused.contains("EGTB_MAX_MEMORY"), "{refused}");
    succeeds(&dir, &args);
}

/// The states of KQvKR's table, as `list --json` gives them.
fn whole_states(tables: &Path) -> u64 {
    json(tables, &["list"])["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["material"] == "KQvKR")
        .and_then(|t| t["states"].as_u64())
        .expect("KQvKR listed with its states")
}

/// A game's tables are converted under the rule options given, and only those; options that no
/// table of the command can take are refused; long file names keep the columns aligned.
#[test]
fn conversions_choose_tables_by_their_rule_options() {
    let dir = temp_dir("files-options");
    succeeds(&dir, &["generate", "darkchess", "KRvKC"]);
    succeeds(&dir, &["generate", "darkchess", "KRvKC", "--cannon", "step"]);
    let step = json(&dir, &["decompress", "darkchess", "--cannon", "step"]);
    let rewritten = step["tables"].as_array().unwrap();
    assert_eq!(rewritten.len(), 9, "{step}");
    assert!(
        rewritten
            .iter()
            .all(|t| t["path"].as_str().unwrap().contains(".cannon-step.")),
        "{step}"
    );
    let (raw, compressed): (Vec<_>, Vec<_>) = listing(&dir)
        .into_iter()
        .partition(|(_, encoding, ..)| encoding == "raw");
    assert!(raw.iter().all(|(file, ..)| file.contains(".cannon-step.")), "{raw:?}");
    assert!(
        compressed.iter().all(|(file, ..)| file.contains(".cannon-jump.")),
        "{compressed:?}"
    );
    assert!(
        succeeds(&dir, &["compress", "darkchess", "--stalemate", "draw"])
            .contains("No darkchess tables built under --stalemate draw")
    );
    assert!(fails(&dir, &["compress", "xiangqi", "--cannon", "step"]).contains("xiangqi has no rule option 'cannon'"));
    let unnamed = fails(&dir, &["compress", "--cannon", "step"]);
    assert!(
        unnamed.contains("name the game, as in 'egtb compress darkchess --cannon step'"),
        "{unnamed}"
    );
    assert!(fails(&dir, &["list", "--cannon", "step"]).contains("it takes no --cannon"));
    let listed = json(&dir, &["list"]);
    let tables = listed["tables"].as_array().unwrap();
    assert_eq!(listed["total"]["tables"], tables.len(), "{listed}");
    for table in tables {
        let cannon = table["rules"]["cannon"].as_str().unwrap();
        assert!(
            table["path"].as_str().unwrap().contains(&format!(".cannon-{cannon}.")),
            "{table}"
        );
        assert_eq!(table["rules"]["stalemate"], "loss", "{table}");
    }
    let plan = succeeds(&dir, &["plan", "darkchess", "KRvKC", "--cannon", "step"]);
    assert!(
        plan.starts_with("Plan for darkchess (cannon=step, stalemate=loss): 9 tables"),
        "{plan}"
    );
    let generated = json(&dir, &["generate", "darkchess", "KRvKC", "--cannon", "step"]);
    assert_eq!(
        generated["rules"],
        serde_json::json!({ "cannon": "step", "stalemate": "loss" })
    );

    // Every row's size ends in the same column, whatever the length of its file's name.
    for text in [succeeds(&dir, &["list"]), succeeds(&dir, &["compress", "darkchess"])] {
        let ends: Vec<usize> = text
            .lines()
            .filter(|l| l.starts_with("darkchess/"))
            .map(|l| l.find("iB ").unwrap())
            .collect();
        assert_eq!(ends.len(), 18, "{text}");
        assert!(ends.windows(2).all(|w| w[0] == w[1]), "{text}");
    }
}
