//! The command line as a user meets it: bad input gives one clear line and a non-zero exit,
//! never a panic; good input gives the table's answers.

use std::path::Path;

use egtb::{Chess, Clocks, Game};

use crate::support::{Rng, egtb, egtb_command, egtb_reading, failed, fails, materials, succeeded, succeeds, temp_dir};

#[test]
fn bad_positions_and_materials_are_reported_in_one_line() {
    let dir = temp_dir("bad");
    let cases: &[(&[&str], &str)] = &[
        (&["query", "8/8/8/4k3/8/8/8/R3K3 x"], "side to move"),
        (&["query", "8/8/8/4k3/8/8/8/R3K3Q w"], "more than 8"),
        (&["query", "8/8/8/4k3/8/8/8/R3K2Z w"], "Z"),
        (&["query", "8/8/8/4k3/8/8/8/K3K3 w"], "king"),
        (&["query", "8/8/8/8/8/8/8/R3K3 w"], "king"),
        (&["query", "8/8/8/4k3/4K3/8/8/8 w"], "adjacent"),
        (&["query", "4k3/4R3/8/8/8/8/8/4K3 w"], "check"),
        (&["query", "8/8/8/4k3/8/8/8/P3K3 w"], "first or last rank"),
        (&["query", "4k3/8/8/3pP3/8/8/8/4K3 w - c6"], "no pawn"),
        (&["query", "8/8/8/4k3/8/8/8/RRRRRK2 w"], "at most 6"),
        (&["query", "hello"], "'hello': 1 rank (chess FEN has 8"),
        (&["query", "4k4/9/9/9/9/9/9/9/9/3K1 w"], "rank 0 has 5 squares, not 9"),
        (
            &["query", "4k4/9/9/9/9/9/9/9/9/R3K4 w"],
            "the kings face each other on one file",
        ),
        (
            &["query", "4k4/9/9/9/9/9/9/9/9/3KQ3 w"],
            "'Q' is no xiangqi piece (KABNRCP or E, H; red uppercase)",
        ),
        (
            &["query", "k7/8/8/K6Q w"],
            "'Q' is no dark chess piece (KAERNCP or B, H",
        ),
        (&["query", "8/8/8/4k3/8/8/8/R3K3 w - - 0 1 x"], "has 7 fields"),
        (&["generate", "chess", "KXvK"], "'X'"),
        (&["generate", "chess", "KQK"], "'v'"),
        (&["generate", "chess", "KQ\nvK"], "material 'KQ\\nvK': '\\n' is no"),
        (
            &["query", "8/8/8/4k3/8/8/8/R3K2\u{1b} w"],
            "'\\u{1b}' is no piece letter",
        ),
        (&["generate", "chess", "KPPPPPvK"], "at most 6"),
        (&["generate", "chess", "KQRBNvKQ"], "at most 6"),
        (
            &["generate", "chess", "QvK"],
            "material QvK: white must have exactly one king, found 0",
        ),
        (
            &["stats", "xiangqi", "RvKA"],
            "material RvKA: red must have exactly one king, found 0",
        ),
        (
            &["generate", "xiangqi", "KRKA"],
            "no 'v' between the sides (for example KRvKAAEE)",
        ),
        (
            &["audit", "darkchess"],
            "name a material (for example KRvKC) or give --pieces N",
        ),
        (&["generate", "chss", "KQvK"], "a similar value exists: 'chess'"),
        (&["generate", "chess"], "nothing to generate"),
        (&["generate", "chess", "--pieces", "1"], "at least 2 pieces, one a side"),
        (&["plan", "xiangqi", "--pieces", "0"], "give --pieces 2 or more"),
        (&["generate", "chess", "KQvK", "--threads", "100000"], "give at most"),
        (
            &["generate", "chess", "KQvK", "--gpu-timeout", "1e20"],
            "'1e20' seconds is longer than a timeout can be",
        ),
        (&["generate", "chess", "KQvK", "--cannon", "step"], "cannon"),
        (&["stats", "chess", "KBvK"], "egtb generate chess KBvK"),
        (&["query", "4k3/8/8/8/8/8/8/2B1K3 w"], "egtb generate chess KBvK"),
        (
            &["generate", "chess", "KQvK", "--threads", "0"],
            "'0' is not a number of threads above 0",
        ),
        (
            &["audit", "chess", "KQvK", "--every", "0"],
            "'0' is not a whole number above 0",
        ),
        (
            &["audit", "chess", "KQvK", "--every", "x"],
            "'x' is not a whole number above 0",
        ),
        (
            &["generate", "chess", "--pieces", "five"],
            "'five' is not a number of pieces",
        ),
        (&["serve", "--port", "65536"], "'65536' is not a port from 0 to 65535"),
        (
            &["generate", "chess", "KQvK", "--gpu-split-mib", "0"],
            "'0' is not a whole number above 0",
        ),
        (
            &["generate", "chess", "KQvK", "--gpu-split-mib", "17592186044416"],
            "'17592186044416' MiB is too large",
        ),
        (
            &["query"],
            "not provided: <POSITION>... (usage: egtb query <POSITION>...)",
        ),
        (&["gen", "chess", "KQvK"], "a similar subcommand exists: 'generate'"),
        (
            &[],
            "requires a subcommand but one was not provided [subcommands: generate, plan,",
        ),
        (&["query", ""], "the position is empty: give a chess FEN (8 ranks)"),
        (
            &["play", "-"],
            "play reads moves, not positions, from the standard input",
        ),
        (&["bench", "chess"], "not provided: <MATERIALS>..."),
        (
            &["play", "--auto", "--side", "black", "8/8/8/4k3/8/8/8/R3K3 w"],
            "'--auto' cannot be used with '--side <SIDE>'",
        ),
        (
            &["query", "checkers", "8/8/8/4k3/8/8/8/R3K3 w"],
            "unknown game 'checkers' (expected chess, xiangqi or darkchess)",
        ),
        (
            &["play", "8/8/8/4k3/8/8/8/R3K3 w", "--side", "red"],
            "unknown side 'red' for chess (expected white or black)",
        ),
        (
            &["query", "8/8/8/4k3/8/8/8/R3K3 w", "8/8/8/4k3/8/8/8/R3K3 b"],
            "'8/8/8/4k3/8/8/8/R3K3' after the board is a second board: give one position",
        ),
        (
            &["line", "8/8/8/4k3/8/8/8/R3K3", "w", "chess"],
            "'chess' after the position: give the game's name before it, or leave it out",
        ),
        (
            &["query", "-", "extra"],
            "'-' reads the positions from the standard input",
        ),
        (&["line", "chess", "-", "extra"], "give nothing after it"),
    ];
    for (args, needle) in cases {
        let line = fails(&dir, args);
        assert!(line.contains(needle), "{args:?}: '{line}' lacks '{needle}'");
    }
    assert_eq!(egtb(&dir, &["gen"]).status.code(), Some(2), "a mistyped command line");
    // A command line that parses but asks for nothing, or gives an option its command does not
    // take, fails as a mistyped one does.
    let usage: [&[&str]; 10] = [
        &["generate", "chess"],
        &["generate", "chess", "--pieces", "1"],
        &["list", "--cannon", "step"],
        &["play", "-"],
        &["query", ""],
        &["query", "checkers", "8/8/8/4k3/8/8/8/R3K3 w"],
        &["play", "8/8/8/4k3/8/8/8/R3K3 w", "--side", "red"],
        &["query", "8/8/8/4k3/8/8/8/R3K3 w", "8/8/8/4k3/8/8/8/R3K3 b"],
        &["query", "-", "extra"],
        &["generate", "chess", "--pieces", "-1"],
    ];
    for args in usage {
        assert_eq!(egtb(&dir, args).status.code(), Some(2), "{args:?}: a usage error");
    }
    // clap's tip to pass a word after `--` would make it a material: it is left out.
    let negative = fails(&dir, &["generate", "chess", "--pieces", "-1"]);
    assert!(
        negative.contains("unexpected argument '-1'") && !negative.contains("'-- -1'"),
        "{negative}"
    );
    // Nothing on the command line: the help as clap writes it, on stderr, failing as a mistyped
    // command line (options without a command: one line naming the commands).
    let bare = std::process::Command::new(env!("CARGO_BIN_EXE_egtb")).output().unwrap();
    assert_eq!(bare.status.code(), Some(2), "no command");
    let help = String::from_utf8_lossy(&bare.stderr);
    assert!(
        help.contains("\nUsage: egtb [OPTIONS] <COMMAND>\n") && help.contains("\nCommands:\n"),
        "{help}"
    );
    let backend = ["plan", "chess", "KQvK", "--slurm", "--backend", "gpux"];
    let output = egtb(&dir, &backend);
    assert_eq!(output.status.code(), Some(2), "a mistyped command line");
    assert!(failed(output, &backend).contains("[possible values: gpu, cpu, auto]"));
    assert_eq!(egtb(&dir, &["query", "hello"]).status.code(), Some(1), "bad input");
    let file = dir.join("not-a-folder");
    std::fs::write(&file, "x").unwrap();
    let commands: [&[&str]; 5] = [
        &["list"],
        &["generate", "chess", "KQvK", "--backend", "cpu"],
        &["query", "8/8/8/4k3/8/8/8/R3K3 w"],
        &["stats", "chess", "KRvK"],
        &["serve", "--port", "0"],
    ];
    for args in commands {
        let line = fails(&file, args);
        assert!(
            line.contains("is a file, not a folder of tables: give the folder with --tables"),
            "{args:?}: {line}"
        );
    }
    // The command that builds a missing table pastes as it is printed.
    let spaced = dir.join("tables with a space");
    let line = fails(&spaced, &["query", "8/8/8/4k3/8/8/8/R3K3 w"]);
    let quoted = format!("egtb generate chess KRvK --tables '{}'", spaced.display());
    assert!(line.contains(&quoted), "{line}");
    let empty = succeeds(&spaced, &["list"]);
    let quoted = format!("egtb generate chess KQvK --tables '{}'", spaced.display());
    assert!(empty.contains(&quoted), "{empty}");
    let empty: serde_json::Value = serde_json::from_str(&succeeds(&spaced, &["list", "--json"])).unwrap();
    assert_eq!(
        (&empty["exists"], &empty["total"]["tables"]),
        (&false.into(), &0.into()),
        "{empty}"
    );
    let chess_is_a_file = dir.join("chess-is-a-file");
    std::fs::create_dir_all(&chess_is_a_file).unwrap();
    std::fs::write(chess_is_a_file.join("chess"), "x").unwrap();
    for args in [
        &["list"][..],
        &["compress"],
        &["query", "8/8/8/4k3/8/8/8/R3K3 w"],
        &["generate", "chess", "KvK"],
    ] {
        let line = fails(&chess_is_a_file, args);
        assert!(
            line.trim_end().ends_with(&format!(
                "chess is a file, not the folder of chess tables: move it out of {}",
                chess_is_a_file.display()
            )),
            "{args:?}: {line}"
        );
    }
    // Converting in a folder that is not there is a mistyped folder, not a success.
    let nowhere = dir.join("nowhere");
    for args in [&["compress"][..], &["decompress", "chess", "--json"]] {
        let line = fails(&nowhere, args);
        assert!(
            line.contains("no tables folder at ") && line.contains("nowhere"),
            "{args:?}: {line}"
        );
    }
}

#[test]
fn corrupt_and_truncated_tables_are_never_trusted() {
    let dir = temp_dir("corrupt");
    assert!(succeeds(&dir, &["generate", "chess", "KQvK"]).contains("Solved 58,212 states in "));
    let again = succeeds(&dir, &["generate", "chess", "KQvK"]);
    assert!(
        again.contains("Nothing to solve: 2 tables already there and verified"),
        "{again}"
    );
    let path = dir.join("chess").join("KQvK.egtb");
    let good = std::fs::read(&path).unwrap();
    let fen = "8/8/8/3k4/8/8/8/Q3K3 w";
    let answer = succeeds(&dir, &["query", fen]);
    assert!(answer.contains("White to move wins"));
    let words: Vec<&str> = ["query"].into_iter().chain(fen.split(' ')).collect();
    assert_eq!(succeeds(&dir, &words), answer, "a FEN given as separate words");

    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    std::fs::write(&path, &flipped).unwrap();
    assert!(fails(&dir, &["query", fen]).contains("corrupt"));
    assert!(fails(&dir, &["generate", "chess", "KQvK"]).contains("corrupt"));
    let (listed, error) = listed_bad(&dir);
    assert!(listed.contains("BAD: ") && listed.ends_with(": 1 BAD\n"), "{listed}");
    assert_eq!(
        error,
        "egtb: error: 1 of 2 tables does not verify (chess/KQvK.egtb); the listing gives its fix\n"
    );

    std::fs::write(&path, &good[..good.len() - 10]).unwrap();
    assert!(fails(&dir, &["query", fen]).contains("truncated"));
    std::fs::write(&path, &good[..100]).unwrap();
    assert!(fails(&dir, &["stats", "chess", "KQvK"]).contains("truncated"));

    // A raw table's entries are checked by the one pass that `stats` makes over them.
    std::fs::write(&path, &good).unwrap();
    succeeds(&dir, &["decompress", "chess", "KQvK"]);
    let raw = std::fs::read(&path).unwrap();
    let mut flipped = raw.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    std::fs::write(&path, &flipped).unwrap();
    assert!(fails(&dir, &["stats", "chess", "KQvK"]).contains("corrupt (checksum mismatch)"));

    std::fs::write(&path, &good).unwrap();
    let listed = succeeds(&dir, &["list"]);
    assert!(listed.contains(" ok\n"), "{listed}");
    assert!(listed.contains("\n2 tables, "), "{listed}");
    assert!(listed.ends_with(", 58,212 states: all verify\n"), "{listed}");

    // A table copied under another material's name is never read as that material's.
    let krvk = dir.join("chess").join("KRvK.egtb");
    std::fs::copy(&path, &krvk).unwrap();
    let error = fails(&dir, &["query", "8/8/8/3k4/8/8/8/R3K3 w"]);
    assert!(error.contains("is for material KQvK, expected KRvK"), "{error}");
    let (listed, error) = listed_bad(&dir);
    assert!(
        listed.contains("BAD: holds the chess table KQvK: move it to its place, "),
        "{listed}"
    );
    assert!(error.contains("(chess/KRvK.egtb)"), "{error}");
    let error = fails(&dir, &["compress", "chess", "KRvK", "--level", "5"]);
    assert!(
        error.contains("holds the chess table KQvK: move it to its place, "),
        "{error}"
    );
    std::fs::remove_file(&krvk).unwrap();

    // A named pipe where a table should be is no table, and no reader waits on it.
    let name = std::ffi::CString::new(krvk.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) reads the NUL-terminated path, which outlives the call.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
    for args in [&["query", "8/8/8/3k4/8/8/8/R3K3 w"][..], &["compress", "chess", "KRvK"]] {
        let error = fails(&dir, args);
        assert!(error.contains("KRvK.egtb is not a file"), "{args:?}: {error}");
    }
    assert!(listed_bad(&dir).0.contains("KRvK.egtb is not a file"));
    std::fs::remove_file(&krvk).unwrap();

    // A table of a build whose index differs is refused where it is listed and converted too,
    // not only where it is read; one of a newer build is not called damaged.
    let header_with = |from: &str, to: &str| {
        let mut bytes = good.clone();
        let at = bytes.windows(from.len()).position(|w| w == from.as_bytes()).unwrap();
        bytes[at..at + from.len()].copy_from_slice(to.as_bytes());
        std::fs::write(&path, bytes).unwrap();
    };
    header_with("\nindex=3\n", "\nindex=2\n");
    let (listed, _) = listed_bad(&dir);
    assert!(
        listed.contains("BAD: table ") && listed.contains("index scheme version 2"),
        "{listed}"
    );
    let error = fails(&dir, &["decompress", "chess", "KQvK"]);
    assert!(error.contains("delete it and generate it again"), "{error}");
    let header = String::from_utf8_lossy(&std::fs::read(&path).unwrap()[..300]).to_string();
    assert!(header.contains("encoding=zstd"), "left compressed: {header}");
    header_with("\nformat=3\n", "\nformat=9\n");
    let error = fails(&dir, &["query", fen]);
    assert!(
        error.contains("was written by a newer egtb (format version 9") && !error.contains("damaged"),
        "{error}"
    );
}

/// `--tables` naming a game's folder (`tables/chess` for `tables`): every command refuses it at
/// once as a usage error naming the folder to give, however the folder is written, rather than
/// building the tables again in `chess/chess`.
#[test]
fn a_game_folder_given_as_the_tables_folder_is_refused_naming_the_folder_above() {
    let dir = temp_dir("game-folder");
    succeeds(&dir, &["generate", "chess", "KQvK", "--backend", "cpu"]);
    let refused = |tables: &Path, working: &Path, above: &str| {
        for args in [
            &["query", "8/8/8/8/8/8/8/QK1k4 w"][..],
            &["list"],
            &["generate", "chess", "KRvK"],
        ] {
            let out = egtb_command(tables, args).current_dir(working).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{tables:?} {args:?}");
            let error = failed(out, args);
            let fix = format!(
                "is a game's folder (it holds tables itself): give --tables the folder that holds it (--tables {above})"
            );
            assert!(error.contains(&fix), "{tables:?} {args:?}: {error}");
        }
    };
    let absolute = dir.display().to_string();
    refused(&dir.join("chess"), &dir, &absolute);
    refused(Path::new("chess"), &dir, ".");
    refused(Path::new("."), &dir.join("chess"), &absolute);
    // A link to the game's folder under another name: the folder above the one it resolves to.
    let links = temp_dir("game-folder-link");
    let link = links.join("games");
    std::os::unix::fs::symlink(dir.join("chess"), &link).unwrap();
    refused(&link, &dir, &absolute);
    assert!(!dir.join("chess/chess").exists());
    // A tables folder that happens to be named like a game, with its game folders in it, is fine.
    let root = temp_dir("game-folder-named");
    let named = root.join("chess");
    succeeds(&named, &["generate", "chess", "KQvK", "--backend", "cpu"]);
    assert!(succeeds(&named, &["query", "8/8/8/8/8/8/8/QK1k4 w"]).contains("wins"));
}

/// A table present without the smaller ones its moves lead into: the query's error names the
/// table a move needs and the one command that builds them all, which then answers it.
#[test]
fn a_missing_smaller_table_names_the_command_that_builds_every_one() {
    let (built, copied) = (temp_dir("missing-exit-built"), temp_dir("missing-exit"));
    succeeds(&built, &["generate", "chess", "KQvKR", "--backend", "cpu"]);
    std::fs::create_dir_all(copied.join("chess")).unwrap();
    std::fs::copy(built.join("chess/KQvKR.egtb"), copied.join("chess/KQvKR.egtb")).unwrap();
    // White's rook takes the queen on a8, a move into KRvK.
    let fen = "q3k3/8/8/8/8/8/8/R3K3 w";
    let command = format!("egtb generate chess KQvKR --tables {}", copied.display());
    for answer in ["query", "line"] {
        let error = fails(&copied, &[answer, fen]);
        assert!(
            error.contains(", which play from KQvKR reaches, not found at ")
                && error.contains(&format!("build it and every other table KQvKR reads with: {command}")),
            "{answer}: {error}"
        );
    }
    succeeds(&copied, &["generate", "chess", "KQvKR", "--backend", "cpu"]);
    assert_eq!(succeeds(&copied, &["query", fen]), succeeds(&built, &["query", fen]));
}

/// `serve` on a port another program holds: one line naming the fix.
#[test]
fn serve_on_a_port_in_use_says_how_to_choose_another() {
    let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = holder.local_addr().unwrap().port().to_string();
    let error = fails(
        &temp_dir("port-in-use"),
        &["serve", "--bind", "127.0.0.1", "--port", &port],
    );
    assert!(
        error.contains(&format!(
            "cannot listen on 127.0.0.1:{port}: another program holds the port"
        )) && error.contains("--port 0 for any free one"),
        "{error}"
    );
}

/// `generate --json` names the backend that built each table, and none for a table reused.
#[test]
fn generate_names_the_backend_of_each_table() {
    let dir = temp_dir("backend-named");
    let args = ["generate", "chess", "KRvK", "--backend", "cpu", "--json"];
    let tables = |run: &str| -> Vec<(String, serde_json::Value, serde_json::Value)> {
        let summary: serde_json::Value = serde_json::from_str(run).unwrap();
        let rows = summary["tables"].as_array().unwrap().iter();
        rows.map(|t| {
            (
                t["material"].as_str().unwrap().to_string(),
                t["backend"].clone(),
                t["reused"].clone(),
            )
        })
        .collect()
    };
    let built = tables(&succeeds(&dir, &args));
    let reused = tables(&succeeds(&dir, &args));
    for (material, (first, again)) in ["KvK", "KRvK"].into_iter().zip(built.iter().zip(&reused)) {
        assert_eq!(*first, (material.to_string(), "cpu".into(), false.into()));
        assert_eq!(*again, (material.to_string(), serde_json::Value::Null, true.into()));
    }
    assert_eq!((built.len(), reused.len()), (2, 2));
}

#[test]
fn a_batch_stopped_by_an_error_reports_the_tables_it_finished() {
    let dir = temp_dir("stopped-batch");
    std::fs::create_dir_all(dir.join("chess")).unwrap();
    std::fs::write(dir.join("chess").join("KRvK.egtb"), b"not a table").unwrap();
    let args = ["generate", "chess", "--pieces", "3", "--json"];
    let out = egtb(&dir, &args);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = failed(out, &args);
    assert!(error.contains("KRvK.egtb is damaged"), "{error}");
    assert_eq!(
        json["error"].as_str(),
        Some(&error["egtb: error: ".len()..error.len() - 1])
    );
    let built = materials(&json);
    assert!(
        built.contains(&"KvK".to_string()) && !built.contains(&"KRvK".to_string()),
        "{built:?}"
    );
    let args = ["generate", "chess", "--pieces", "3"];
    let out = egtb(&dir, &args);
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    failed(out, &args);
    assert!(
        text.lines().any(|l| l.starts_with("KvK ") && l.contains("reused")),
        "{text}"
    );

    // So does a conversion: the other tables are converted, the damaged one named in its place.
    let args = ["decompress", "chess", "--json"];
    let out = egtb(&dir, &args);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = failed(out, &args);
    assert!(error.contains("could not be converted (chess/KRvK.egtb)"), "{error}");
    let rows = json["tables"].as_array().unwrap();
    assert!(rows.len() > 1, "{json}");
    for row in rows {
        match row["path"].as_str().unwrap().ends_with("chess/KRvK.egtb") {
            true => assert!(row["error"].as_str().unwrap().contains("is damaged"), "{row}"),
            false => assert_eq!(row["to"], "raw", "{row}"),
        }
    }
}

/// `egtb list` over a folder where a table does not verify: every table is listed, then the
/// command fails naming the bad ones. Its output and its error.
fn listed_bad(dir: &Path) -> (String, String) {
    let output = egtb(dir, &["list"]);
    assert!(!output.status.success(), "list succeeded with a bad table");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (text(output.stdout), text(output.stderr))
}

#[test]
fn query_line_and_stats_answer_from_the_tables() {
    let dir = temp_dir("answers");
    // The default backend: a hardware GPU where there is one, else the CPU solver and a note
    // saying why (in CI: the only adapter is the software driver).
    let summary = succeeds(&dir, &["generate", "chess", "KRvK"]);
    assert!(summary.contains("KRvK"), "{summary}");
    if !summary.contains("GPU solver on") {
        assert!(summary.contains("CPU solver"), "{summary}");
        assert!(
            summary.contains("note: auto backend chose the CPU solver: "),
            "{summary}"
        );
    }

    let fen = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";
    let query = succeeds(&dir, &["query", fen]);
    assert!(query.contains("White to move wins: mate in 14"), "{query}");
    assert!(query.contains("Ra5+") && query.contains("a1a5"), "{query}");
    let mate_in_one = succeeds(&dir, &["query", "k7/8/1K6/8/8/8/8/7R w - - 0 1"]);
    assert!(mate_in_one.contains("mate in 1 (1 ply)"), "{mate_in_one}");
    let stalemate = succeeds(&dir, &["query", "k7/1R6/1K6/8/8/8/8/8 b"]);
    assert!(
        stalemate.contains("Black to move: draw\nStalemate: Black to move has no legal move."),
        "{stalemate}"
    );
    let mate = succeeds(&dir, &["query", "1k5R/8/1K6/8/8/8/8/8 b"]);
    assert!(
        mate.contains("has lost: the game is over\nCheckmate: Black to move is in check and has no legal move."),
        "{mate}"
    );
    let stalemate = succeeds(&dir, &["line", "k7/1R6/1K6/8/8/8/8/8 b"]);
    assert_eq!(
        stalemate,
        "k7/1R6/1K6/8/8/8/8/8 b - - 0 1  (chess KRvK)\nBlack to move: draw\nStalemate: Black to move has no legal move.\n"
    );
    // In JSON the ending is named: the position's for query, the line's last one's for line.
    let ending = |args: &[&str]| {
        let json: serde_json::Value = serde_json::from_str(&succeeds(&dir, args)).unwrap();
        json["ending"].clone()
    };
    assert_eq!(ending(&["query", "k7/1R6/1K6/8/8/8/8/8 b", "--json"]), "stalemate");
    assert_eq!(ending(&["query", "1k5R/8/1K6/8/8/8/8/8 b", "--json"]), "checkmate");
    assert_eq!(
        ending(&["query", "k7/8/1K6/8/8/8/8/7R w", "--json"]),
        serde_json::Value::Null
    );
    assert_eq!(ending(&["line", "k7/8/1K6/8/8/8/8/7R w", "--json"]), "checkmate");
    let line: serde_json::Value = serde_json::from_str(&succeeds(&dir, &["line", fen, "--json"])).unwrap();
    assert_eq!(
        (&line["material"], &line["side_to_move"]),
        (&"KRvK".into(), &"white".into())
    );
    assert_eq!(line["input"], fen);
    // Each step with the position it leaves, as the prober's line plays it.
    let steps = line["line"].as_array().unwrap();
    let mut at = Chess::parse_position(fen).unwrap();
    let mut prober = egtb::Prober::<Chess>::new(&dir, Default::default());
    let expected: Vec<String> = (prober.line(&at).unwrap().into_iter().enumerate())
        .map(|(ply, (m, _))| {
            at = Chess::play(&at, m.mv);
            // KRvK has no capture: the halfmove clock counts every ply.
            let clocks = Clocks {
                halfmove: ply as u32 + 1,
                fullmove: 1 + (ply as u32).div_ceil(2),
            };
            Chess::format_position_with_clocks(&at, clocks)
        })
        .collect();
    let got: Vec<&str> = steps.iter().map(|s| s["position_after"].as_str().unwrap()).collect();
    assert_eq!(got, expected);
    assert_eq!(steps.last().unwrap()["dtm_after"], 0);

    let json: serde_json::Value = serde_json::from_str(&succeeds(&dir, &["query", fen, "--json"])).unwrap();
    assert_eq!(json["value"]["dtm"], 27);
    let moves = json["moves"].as_array().unwrap();
    assert_eq!(moves[0]["dtm"], 27);
    assert!(moves.iter().all(|m| m["outcome"] == "win"));

    let line = succeeds(&dir, &["line", fen]);
    let last = line.trim_end().lines().last().unwrap();
    assert!(
        last.starts_with("Checkmate: ") && last.ends_with(" to move is in check and has no legal move."),
        "{line}"
    );
    assert!(line.contains('#'), "{line}");
    // A line that black starts is numbered as in a game: 1... then 2.
    let black = succeeds(&dir, &["line", "8/8/8/4k3/8/8/8/R3K3 b"]);
    assert!(
        black.starts_with("8/8/8/4k3/8/8/8/R3K3 b - - 0 1  (chess KRvK)\n"),
        "{black}"
    );
    let numbers: Vec<&str> = black
        .lines()
        .skip(2)
        .take(2)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(numbers, ["1...", "2."], "{black}");
    // A position from a game keeps its clocks: the line numbers its moves from the game's move
    // number, and each position it leaves carries the clocks on.
    let game = "8/8/8/4k3/8/8/8/R3K3 b - - 12 40";
    let numbered = succeeds(&dir, &["line", game]);
    assert!(numbered.starts_with(&format!("{game}  (chess KRvK)\n")), "{numbered}");
    let numbers: Vec<&str> = (numbered.lines().skip(2).take(2))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(numbers, ["40...", "41."], "{numbered}");
    let line: serde_json::Value = serde_json::from_str(&succeeds(&dir, &["line", game, "--json"])).unwrap();
    assert_eq!(line["position"], game);
    let clocks: Vec<String> = (line["line"].as_array().unwrap().iter().take(3))
        .map(|s| {
            s["position_after"]
                .as_str()
                .unwrap()
                .rsplitn(3, ' ')
                .collect::<Vec<_>>()[..2]
                .join("/")
        })
        .collect();
    assert_eq!(clocks, ["41/13", "41/14", "42/15"]);
    let query: serde_json::Value = serde_json::from_str(&succeeds(&dir, &["query", game, "--json"])).unwrap();
    assert_eq!(query["position"], game);

    let stats: serde_json::Value =
        serde_json::from_str(&succeeds(&dir, &["stats", "chess", "KRvK", "--json"])).unwrap();
    assert_eq!(stats["sides"]["white"]["win"], 175168);
    assert_eq!(stats["sides"]["black"]["longest"]["dtm"], 32);
    // 390 positions up to symmetry, 16 of them their own mirror image on the a1-h8 diagonal.
    assert_eq!(stats["sides"]["black"]["longest"]["positions"], 3056);
    assert_eq!(stats["sides"]["black"]["longest"]["outcome"], "loss");
    assert_eq!(stats["sides"]["white"]["longest"]["outcome"], "win");
    let text = succeeds(&dir, &["stats", "chess", "KRvK"]);
    assert!(
        text.contains("  loss in 16 (32 plies), 3,056 positions  e.g. "),
        "{text}"
    );
    // Two knights cannot force mate: black's only losses are the mates on the board.
    succeeds(&dir, &["generate", "chess", "KNNvK", "--backend", "cpu"]);
    let knights = succeeds(&dir, &["stats", "chess", "KNNvK"]);
    assert!(
        knights.contains("  lost already (0 plies), 120 positions  e.g. "),
        "{knights}"
    );
    let by_dtm: serde_json::Value =
        serde_json::from_str(&succeeds(&dir, &["stats", "chess", "KRvK", "--by-dtm", "--json"])).unwrap();
    for side in ["white", "black"] {
        let s = &by_dtm["sides"][side];
        let rows: Vec<(u64, u64)> = serde_json::from_value(s["by_dtm"].clone()).unwrap();
        let decisive = s["win"].as_u64().unwrap() + s["loss"].as_u64().unwrap();
        assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), decisive, "{side}");
        assert_eq!(
            rows.last().copied(),
            Some((
                s["longest"]["dtm"].as_u64().unwrap(),
                s["longest"]["positions"].as_u64().unwrap()
            ))
        );
    }
    // The published 216 checkmates, all with black to move.
    assert_eq!(by_dtm["sides"]["black"]["by_dtm"][0], serde_json::json!([0, 216]));
    let text = succeeds(&dir, &["stats", "chess", "KRvK", "--by-dtm"]);
    assert!(
        text.lines().any(|l| l.split_whitespace().eq(["0", "0", "216"])),
        "{text}"
    );
    let flipped: serde_json::Value =
        serde_json::from_str(&succeeds(&dir, &["stats", "chess", "KvKR", "--json"])).unwrap();
    assert_eq!(flipped["material"], "KvKR");
    for key in ["legal", "win", "draw", "loss"] {
        assert_eq!(flipped["sides"]["black"][key], stats["sides"]["white"][key], "{key}");
        assert_eq!(flipped["sides"]["white"][key], stats["sides"]["black"][key], "{key}");
    }
    let example = flipped["sides"]["white"]["longest"]["position"].as_str().unwrap();
    assert!(example.contains('r') && example.contains(" w"), "{example}");

    // Dark chess names a move by its coordinates: each move line shows them once.
    succeeds(&dir, &["generate", "darkchess", "KvK", "--backend", "cpu"]);
    let kings = "7k/8/8/K7 w";
    let query = succeeds(&dir, &["query", kings]);
    // The heading names the rules the value holds under, defaults included.
    let heading = query.lines().next().unwrap();
    assert_eq!(heading, "7k/8/8/K7 w  (darkchess KvK, cannon=jump, stalemate=loss)");
    let rows: Vec<Vec<&str>> = query.lines().skip(3).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows.len(), 2, "{query}");
    assert!(rows.iter().all(|r| r[1] == "loss"), "{query}");
    let line = succeeds(&dir, &["line", kings]);
    let first = line.lines().nth(2).unwrap().split_whitespace().collect::<Vec<_>>();
    assert_eq!(first[3..], ["plies", "left"], "{line}");
}

#[test]
fn query_and_line_answer_a_list_of_positions_read_from_the_standard_input() {
    let dir = temp_dir("batch");
    succeeds(&dir, &["generate", "chess", "KRvK", "--backend", "cpu"]);
    let [rook, mate] = ["8/8/8/4k3/8/8/8/R3K3 w - - 0 1", "1k5R/8/1K6/8/8/8/8/8 b - - 0 1"];
    let good = format!("# two positions\n{rook}\n\n  {mate}  \n");
    for question in ["query", "line"] {
        let one_by_one = [rook, mate].map(|fen| succeeds(&dir, &[question, fen]));
        let args = [question, "-"];
        let text = succeeded(egtb_reading(&dir, &args, &good), &args);
        assert_eq!(text, one_by_one.join("\n"), "{question}");
        // The game's name may come first, as it does for materials.
        assert_eq!(succeeds(&dir, &[question, "chess", rook]), one_by_one[0], "{question}");
        let args = [question, "chess", "-"];
        let named = format!("chess {rook}\n{mate}\n");
        assert_eq!(succeeded(egtb_reading(&dir, &args, &named), &args), text, "{question}");
        let args = [question, "xiangqi", "-"];
        let error = failed(egtb_reading(&dir, &args, &named), &args);
        assert!(error.contains("2 of 2 positions could not be answered"), "{error}");
        let error = fails(&dir, &[question, "xiangqi", rook]);
        assert!(error.contains("has 8 ranks, a chess position, not xiangqi"), "{error}");
        let error = fails(&dir, &[question, "chess"]);
        assert!(error.contains("no position after 'chess'"), "{error}");
        let error = fails(&dir, &[question, "chesss", rook]);
        assert!(error.contains("unknown game 'chesss' (expected chess"), "{error}");
        let args = [question, "-", "--json"];
        let json = succeeded(egtb_reading(&dir, &args, &good), &args);
        let one_by_one = [rook, mate].map(|fen| succeeds(&dir, &[question, fen, "--json"]));
        assert_eq!(json, one_by_one.concat(), "{question}");
        // Each answer repeats its line as given, the game's name included.
        let args = [question, "-", "--json"];
        let json = succeeded(egtb_reading(&dir, &args, &named), &args);
        let inputs: Vec<serde_json::Value> = json
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["input"].clone())
            .collect();
        assert_eq!(inputs, [format!("chess {rook}"), mate.to_string()], "{question}");
    }

    // A line that is not UTF-8 text is one more line that cannot be answered, in its place.
    let mut bytes = format!("{rook}\n").into_bytes();
    bytes.extend_from_slice(b"\xff\xfe bad\n");
    bytes.extend_from_slice(format!("{mate}\n").as_bytes());
    for question in ["query", "line"] {
        let args = [question, "-", "--json"];
        let out = egtb_reading(&dir, &args, &bytes);
        let stdout = String::from_utf8(out.stdout.clone()).unwrap();
        let error = failed(out, &args);
        assert!(
            error.contains("1 of 3 positions could not be answered (input line 2)"),
            "{error}"
        );
        let answers: Vec<&str> = stdout.lines().collect();
        assert_eq!(answers.len(), 3, "{stdout}");
        assert!(answers[1].contains("the line is not UTF-8 text"), "{stdout}");
    }
    // So is a move: refused, and play goes on.
    let args = ["play", rook, "--json"];
    let out = egtb_reading(&dir, &args, b"\xe9\nRa5\nquit\n");
    let events = succeeded(out, &args);
    let events: Vec<serde_json::Value> = events.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let kinds: Vec<&str> = events.iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(
        kinds[2..],
        ["rejected", "move", "position", "move", "position", "end"],
        "{events:?}"
    );

    // A position that cannot be answered gets its error in its place; the rest are answered and
    // the command fails, naming the input lines.
    let xiangqi = "3k5/9/9/9/9/9/9/9/9/4K3R w";
    let mixed = format!("{rook}\nnonsense\n{xiangqi}\n{mate}\n");
    let args = ["query", "-", "--json"];
    let out = egtb_reading(&dir, &args, &mixed);
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let error = failed(out, &args);
    assert!(
        error.contains("2 of 4 positions could not be answered (input lines 2, 3)"),
        "{error}"
    );
    let answers: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), 4, "{stdout}");
    assert_eq!(answers[0]["value"]["dtm"], 27);
    assert_eq!(answers[1]["input"], "nonsense");
    assert!(answers[1]["error"].as_str().unwrap().contains("cannot tell the game"));
    assert_eq!(answers[2]["input"], xiangqi);
    assert!(
        answers[2]["error"]
            .as_str()
            .unwrap()
            .contains("egtb generate xiangqi KRvK")
    );
    assert_eq!(answers[3]["value"]["outcome"], "loss");
    let args = ["line", "-"];
    let text = String::from_utf8(egtb_reading(&dir, &args, &mixed).stdout).unwrap();
    assert!(
        text.contains("\n\nnonsense\nerror: cannot tell the game of 'nonsense'"),
        "{text}"
    );

    let error = failed(egtb_reading(&dir, &args, "nonsense\n".repeat(12)), &args);
    assert!(
        error.contains("12 of 12 positions could not be answered (input lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ...)"),
        "{error}"
    );
    let error = failed(egtb_reading(&dir, &args, "\n# nothing\n"), &args);
    assert!(error.contains("no position on the standard input"), "{error}");

    // A rule option applies to the game that has it: chess positions read under xiangqi's
    // `--rules asian` are answered as without it, and a value no game takes is refused first.
    let plain = ["query", "-", "--json"];
    let asian = ["query", "-", "--json", "--rules", "asian"];
    assert_eq!(
        succeeded(egtb_reading(&dir, &asian, &good), &asian),
        succeeded(egtb_reading(&dir, &plain, &good), &plain)
    );
    let fly = ["query", "-", "--cannon", "fly"];
    let output = egtb_reading(&dir, &fly, &good);
    assert_eq!(output.status.code(), Some(2), "a mistyped command line");
    assert_eq!(
        failed(output, &fly),
        "egtb: error: invalid value 'fly' for '--cannon <CANNON>' [possible values: jump, step] (see egtb --help)\n"
    );
}

/// Positions of the three games with a few characters changed, inserted or deleted: each line is
/// answered or refused in its place with a one-line error, and none makes the program panic.
#[test]
fn mangled_positions_of_every_game_are_answered_or_refused_one_line_each() {
    let dir = temp_dir("mangled");
    succeeds(&dir, &["generate", "chess", "KRvK", "KPvK", "--backend", "cpu"]);
    let sound = [
        "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
        "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
        "4k4/9/9/9/9/9/9/9/9/3K1R3 w",
        "3aka3/9/4e4/9/9/9/9/9/4C4/4K4 r",
        "k7/K7/8/6R1 w",
    ];
    let letters: Vec<char> = "kqrbnpaehcKQRBNPAEHC0123456789/ -_wrbx\té".chars().collect();
    let mut rng = Rng::new(72);
    let mut lines = Vec::new();
    while lines.len() < 1500 {
        let mut text: Vec<char> = sound[rng.below(sound.len() as u64) as usize].chars().collect();
        for _ in 0..=rng.below(3) {
            let at = rng.below(text.len() as u64 + 1) as usize;
            let letter = letters[rng.below(letters.len() as u64) as usize];
            match rng.below(3) {
                0 if at < text.len() => text[at] = letter,
                1 if at < text.len() => {
                    text.remove(at);
                }
                _ => text.insert(at, letter),
            }
        }
        let line: String = text.into_iter().collect();
        // Blank lines and comments are no questions.
        if !line.trim().is_empty() && !line.trim_start().starts_with('#') {
            lines.push(line);
        }
    }
    let args = ["query", "-", "--json"];
    let out = egtb_reading(&dir, &args, lines.join("\n") + "\n");
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let error = failed(out, &args);
    assert!(error.contains("positions could not be answered"), "{error}");
    let answers: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), lines.len(), "one answer a line");
    let (mut values, mut refusals) = (0, 0);
    for answer in &answers {
        match answer["error"].as_str() {
            Some(error) => {
                assert!(!error.is_empty() && !error.contains('\n'), "{answer}");
                refusals += 1;
            }
            None => {
                assert!(answer["value"]["outcome"].is_string(), "{answer}");
                values += 1;
            }
        }
    }
    // The changes leave some positions sound, and spoil most.
    assert!(values > 0 && refusals > values, "{values} answered, {refusals} refused");
}

/// A log file gets no bars: a stderr that is not a terminal gets a plain line of the table, its
/// phase, how far it has come, the rate and the time left, at most every `EGTB_PROGRESS_EVERY`
/// seconds, and nothing from a run shorter than that.
#[test]
fn progress_goes_to_a_log_as_plain_lines() {
    let dir = temp_dir("progress-log");
    let run = |every: &str, material: &str| {
        let out = egtb_command(&dir, &["generate", "chess", material, "--backend", "cpu"])
            .env("EGTB_PROGRESS_EVERY", every)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stderr).unwrap()
    };
    let log = run("0.000001", "KRvK");
    let lines: Vec<&str> = log.lines().collect();
    assert!(!lines.is_empty(), "no progress lines");
    for line in &lines {
        // The table's part; the batch's has no time left before its first table is done.
        let table = line.split("; batch: ").next().unwrap();
        assert!(table.starts_with("egtb: K") && table.contains("%, "), "{line}");
        assert!(table.contains("/s, ") && table.ends_with(" left"), "{line}");
        assert!(!line.contains('\u{1b}') && !line.contains('\r'), "{line:?}");
    }
    assert!(
        lines.iter().any(|l| l.contains("KRvK ") && l.contains("; batch: ")),
        "{log}"
    );
    assert_eq!(run("3600", "KQvK"), "", "a short run printed progress");
    assert_eq!(run("1e20", "KRvKN"), "", "an interval too long to be a duration");
    assert_eq!(
        run("soon", "KBvK"),
        "egtb: warning: EGTB_PROGRESS_EVERY=soon is not a number of seconds; progress lines every 30 s\n"
    );
}

/// `--help` names every environment variable egtb reads; an empty one is as unset.
#[test]
fn the_help_names_the_environment_variables() {
    let dir = temp_dir("help");
    let help = succeeds(&dir, &["--help"]);
    for name in [
        "EGTB_TABLES",
        "EGTB_MAX_MEMORY",
        "EGTB_PROGRESS_EVERY",
        "NO_COLOR",
        "RUST_BACKTRACE",
    ] {
        assert!(help.contains(&format!("\n  {name} ")), "{name}: {help}");
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_egtb"))
        .args(["generate", "chess", "KvK", "--backend", "cpu"])
        .current_dir(&*dir)
        .env("EGTB_TABLES", "")
        .env("EGTB_MAX_MEMORY", "")
        .env("EGTB_PROGRESS_EVERY", "")
        .output()
        .unwrap();
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let built = succeeded(out, &["generate"]);
    assert!(built.contains("tables/chess/KvK.egtb"), "{built}");
}

#[test]
fn bench_times_both_solvers_on_the_same_table() {
    if egtb::solver::gpu::Gpu::open_unless_absent().unwrap().is_none() {
        return;
    }
    let dir = temp_dir("bench");
    let json: serde_json::Value = serde_json::from_str(&succeeds(&dir, &["--json", "bench", "chess", "KRvK"])).unwrap();
    assert!(json["cpu"].as_str().unwrap().contains("CPU solver"), "{json}");
    assert!(json["gpu"].as_str().unwrap().contains("GPU solver"), "{json}");
    let table = &json["tables"][0];
    assert_eq!(table["material"], "KRvK");
    let states = table["states"].as_u64().unwrap();
    assert_eq!(table["sweep_bytes"].as_u64().unwrap(), 2 * states);
    assert!(table["cpu_seconds"].as_f64().unwrap() > 0.0 && table["gpu_seconds"].as_f64().unwrap() > 0.0);
    // With timestamps, the phases add up to the kernel time; KRvK's longest mate is 32 plies.
    if let Some(kernel) = table["gpu_kernel_seconds"].as_f64() {
        let sweeps: Vec<f64> = table["gpu_sweep_seconds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_f64().unwrap())
            .collect();
        assert!(sweeps.len() > 32, "{sweeps:?}");
        let phases = table["gpu_initialise_seconds"].as_f64().unwrap()
            + table["gpu_propagation_seconds"].as_f64().unwrap()
            + sweeps.iter().sum::<f64>();
        assert!(
            (phases - kernel).abs() <= 1e-6 * kernel.max(1.0),
            "{phases} vs {kernel}"
        );
    }
}

/// Under the Asian rules, `bench` holds the two solvers' rulings equal too, and reports the rounds
/// that ruled something: KRvKN's perpetual knight checks are ruled in one round.
#[test]
fn bench_under_the_asian_rules_reports_the_rounds_of_both_solvers() {
    if egtb::solver::gpu::Gpu::open_unless_absent().unwrap().is_none() {
        return;
    }
    let dir = temp_dir("bench-asian");
    let args = ["--json", "--rules", "asian", "bench", "xiangqi", "KRvK", "KRvKN"];
    let json: serde_json::Value = serde_json::from_str(&succeeds(&dir, &args)).unwrap();
    let rounds: Vec<u64> = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["rounds"].as_u64().unwrap())
        .collect();
    assert_eq!(rounds, [0, 1], "{json}");
    let verified: serde_json::Value = serde_json::from_str(&succeeds(
        &dir,
        &["--json", "--rules", "asian", "verify", "xiangqi", "KRvKN"],
    ))
    .unwrap();
    assert_eq!(verified["identical"], true, "{verified}");
    assert_eq!(verified["rulings"]["identical"], true, "{verified}");
    assert!(verified["rulings"]["cpu"].as_u64().unwrap() > 0, "{verified}");
}

/// A material the GPU solver does not take is refused by `bench` and `verify` before any
/// smaller table is built.
#[test]
fn bench_and_verify_refuse_a_material_beyond_the_gpu_before_building_anything() {
    let dir = temp_dir("bench-six");
    for command in ["bench", "verify"] {
        let error = fails(&dir, &[command, "chess", "KRRvKRR"]);
        assert!(
            error.contains("up to 5 pieces") && error.contains("--backend cpu"),
            "{error}"
        );
    }
    assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0, "tables were built");
}

/// A machine with no Vulkan driver at all: `--backend gpu` stops before any work with one line
/// that names both ways on, and writes no table; `verify` and `bench` name the one way they have.
#[test]
fn a_missing_gpu_adapter_is_reported_in_one_line_naming_the_fix() {
    let dir = temp_dir("no-adapter");
    // The error line of a run on a machine whose Vulkan loader finds no driver.
    let without_adapter = |args: &[&str]| {
        let out = egtb_command(&dir, args)
            .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
            .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
            .output()
            .unwrap();
        failed(out, args)
    };
    let line = without_adapter(&["generate", "chess", "KQvK", "--backend", "gpu"]);
    assert!(line.contains("no GPU adapter found"), "{line}");
    assert!(line.contains("install a Vulkan driver"), "{line}");
    assert!(line.contains("--backend cpu"), "{line}");
    assert!(!dir.join("chess").join("KQvK.egtb").exists());
    // `verify` and `bench` take no --backend: they say why they need the GPU, before any work.
    for args in [["verify", "chess", "KQvK"], ["bench", "chess", "KQvK"]] {
        let line = without_adapter(&args);
        assert!(line.contains("install a Vulkan driver"), "{line}");
        assert!(line.contains("comparing the GPU solver with the CPU solver"), "{line}");
        assert!(!line.contains("--backend"), "{line}");
        let built = std::fs::read_dir(dir.join("chess")).map_or(0, |listing| listing.count());
        assert_eq!(built, 0, "{} built tables", args[0]);
    }
}

/// GPU work that outlasts `--gpu-timeout` stops the run with one line that names the option,
/// and leaves no table behind.
#[test]
fn gpu_work_past_its_timeout_is_reported_in_one_line() {
    if egtb::solver::gpu::Gpu::open_unless_absent().unwrap().is_none() {
        return;
    }
    let dir = temp_dir("gpu-timeout");
    let args = [
        "generate",
        "chess",
        "KQvKR",
        "--backend",
        "gpu",
        "--gpu-timeout",
        "0.000001",
    ];
    let line = fails(&dir, &args);
    assert!(line.contains("--gpu-timeout"), "{line}");
    assert!(!dir.join("chess").join("KQvKR.egtb").exists());
}

/// The bash completion script completes commands, options, games, solvers and rule options when
/// bash runs it.
#[test]
fn the_completion_script_completes_commands_games_and_options_in_bash() {
    let dir = temp_dir("completions");
    let script = dir.join("egtb.bash");
    std::fs::write(&script, succeeds(&dir, &["completions", "bash"])).unwrap();
    // Each case: the words typed so far, the last one being completed, and what bash offers.
    let cases: [(&[&str], &str); 5] = [
        (&["egtb", "gen"], "generate"),
        (&["egtb", "stats", "x"], "xiangqi"),
        (&["egtb", "generate", "chess", "--back"], "--backend"),
        (&["egtb", "generate", "chess", "--backend", ""], "gpu cpu auto"),
        (&["egtb", "generate", "darkchess", "--cannon", ""], "jump step"),
    ];
    for (words, offered) in cases {
        let [.., previous, current] = words else { unreachable!() };
        let completion = format!(
            "source '{}'; COMP_WORDS=({}); COMP_CWORD={}; _egtb egtb '{current}' '{previous}'; echo \"${{COMPREPLY[*]}}\"",
            script.display(),
            words.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(" "),
            words.len() - 1,
        );
        let out = std::process::Command::new("bash")
            .args(["-c", &completion])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), offered, "{words:?}");
    }
    for shell in ["zsh", "fish"] {
        let script = succeeds(&dir, &["completions", shell]);
        assert!(script.contains("generate") && script.contains("auto"), "{shell}");
    }
    let ruled = fails(&dir, &["completions", "bash", "--rules", "asian"]);
    assert!(ruled.contains("it takes no --rules"), "{ruled}");
    assert!(fails(&dir, &["completions", "tcsh"]).contains("possible values: bash"));
}

/// `verify` says which smaller tables it built, and compares the table on disk with what both
/// solvers build: a table whose entries were changed (its checksum made to match) fails.
#[test]
fn verify_compares_the_table_on_disk_too() {
    if egtb::solver::gpu::Gpu::open_unless_absent().unwrap().is_none() {
        return;
    }
    let dir = temp_dir("verify-disk");
    let report = succeeds(&dir, &["verify", "chess", "KRvK"]);
    assert!(report.contains("built first, as the solves read them: KvK"), "{report}");
    assert!(report.contains("no table on disk to compare"), "{report}");
    succeeds(&dir, &["generate", "chess", "KRvK", "--uncompressed"]);
    let report = succeeds(&dir, &["verify", "chess", "KRvK"]);
    assert!(report.contains("the table on disk is the same"), "{report}");
    assert!(!report.contains("built first"), "{report}");

    let path = dir.join("chess/KRvK.egtb");
    let mut bytes = std::fs::read(&path).unwrap();
    let (header, entries) = bytes.split_at_mut(4096);
    let win = entries
        .chunks_exact_mut(2)
        .find(|e| e[0] % 2 == 0 && e[0] > 0 && e[0] < 200 && e[1] == 0)
        .unwrap();
    win[0] += 2;
    let checksum = format!("checksum={:08x}", crc32fast::hash(entries));
    let header = String::from_utf8(header.to_vec()).unwrap();
    let old = header.lines().find(|l| l.starts_with("checksum=")).unwrap();
    let header = header.replacen(old, &checksum, 1);
    bytes[..4096].copy_from_slice(header.as_bytes());
    std::fs::write(&path, bytes).unwrap();
    assert!(succeeds(&dir, &["list"]).contains("all verify"));
    let error = fails(&dir, &["verify", "chess", "KRvK"]);
    assert!(
        error.contains("differs from what both solvers build (in 1 of 57288 entries): delete it and generate it again"),
        "{error}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&egtb(&dir, &["--json", "verify", "chess", "KRvK"]).stdout).unwrap();
    assert_eq!(json["on_disk"]["differing"], 1, "{json}");
    assert_eq!(json["identical"], true, "{json}");
}
