//! Audits of tables on disk against the rules (`egtb audit`): the tables of every game agree with
//! their moves, positions lost by the Asian rules' rulings included, and a table whose entries
//! were altered, its checksums made to match, is caught at the slots altered, by the library and
//! on the command line.

use egtb::audit::{Auditor, Check};
use egtb::games::chess::Chess;
use egtb::games::darkchess::DarkChess;
use egtb::games::xiangqi::Xiangqi;
use egtb::games::{Game, IndexSpace};
use egtb::material::{GameId, Material, Side};
use egtb::solver::Silent;
use egtb::table::{self, Table};
use egtb::value::{BROKEN, Value};
use serde_json::Value as Json;

use crate::support::served::ASIAN;
use crate::support::{egtb, fails, materials, succeeds, temp_dir};

/// Generates the table of `name` (and its smaller ones) and audits every slot of it.
fn audit_all<G: Game>(name: &str, rules: G::Rules, options: &[&str]) -> egtb::audit::Audit {
    let dir = temp_dir(&format!("audit-{name}"));
    let mut args = vec!["generate", G::ID.name(), name, "--backend", "cpu"];
    args.extend(options);
    succeeds(&dir, &args);
    let material = Material::parse(G::ID, name).unwrap().canonical().0;
    let audit = Auditor::<G>::open(&dir, &material, rules).unwrap().run(1, &Silent);
    assert_eq!(audit.audited, audit.states, "{name}: every slot");
    assert!(audit.positions > audit.states / 4, "{name}: {audit:?}");
    assert!(audit.is_consistent(), "{name}: {:?}", audit.first_faults);
    audit
}

#[test]
fn tables_of_every_game_agree_with_their_moves() {
    // Pawns on both sides: pushes, double steps with their en-passant states, promotions.
    let chess = audit_all::<Chess>("KPvKP", Default::default(), &[]);
    assert_eq!(chess.ruled, 0);
    let darkchess = audit_all::<DarkChess>("KCvKP", Default::default(), &[]);
    assert_eq!(darkchess.ruled, 0);
    // Under the Asian rules the positions where only a forbidden perpetual check goes on are
    // lost by a ruling, not by their moves, and accepted as such.
    let xiangqi = audit_all::<Xiangqi>("KRvKN", ASIAN, &["--rules", "asian"]);
    assert!(xiangqi.ruled > 0, "{xiangqi:?}");
}

#[test]
fn an_altered_table_is_caught_where_it_was_altered() {
    let dir = temp_dir("audit-altered");
    succeeds(&dir, &["generate", "chess", "KRvK"]);
    assert!(succeeds(&dir, &["audit", "chess", "KRvK"]).contains("every value follows from the moves"));
    // Several tables end with their total.
    let both = succeeds(&dir, &["audit", "chess", "KvK", "KRvK"]);
    let total = both.lines().last().unwrap();
    assert!(
        total.starts_with("2 tables, 58,212 slots audited in ")
            && total.ends_with(": every value follows from the moves"),
        "{both}"
    );

    // A win made two plies longer, and a slot that is no position given a value; the file
    // written again with its checksums, so that it loads as a whole table.
    let path = dir.join("chess/KRvK.egtb");
    let header = Table::open_unchecked(&path).unwrap().header;
    let mut entries = Table::open_unchecked(&path).unwrap().load().unwrap().entries().to_vec();
    let index = Chess::index(&Material::parse(GameId::Chess, "KRvK").unwrap(), Default::default()).unwrap();
    let longer = (0..index.states())
        .find(|&s| index.decode(s).is_some() && matches!(Value::from_entry(entries[s as usize]), Some(Value::Win(3..))))
        .unwrap();
    let Some(Value::Win(dtm)) = Value::from_entry(entries[longer as usize]) else {
        unreachable!()
    };
    entries[longer as usize] = Value::Win(dtm + 2).entry();
    let no_position = (0..index.states()).find(|&s| index.decode(s).is_none()).unwrap();
    assert_eq!(entries[no_position as usize], BROKEN);
    entries[no_position as usize] = Value::Draw.entry();
    table::write(&path, header, &entries, &Silent).unwrap();

    let material = Material::parse(GameId::Chess, "KRvK").unwrap();
    let auditor = Auditor::<Chess>::open(&dir, &material, Default::default()).unwrap();
    let Check::Fault(fault) = auditor.check(longer) else {
        panic!("state {longer} passes")
    };
    let stored = Value::Win(dtm + 2);
    assert_eq!(
        fault.what.to_string(),
        format!("holds {stored}, its moves give {}", Value::Win(dtm))
    );
    assert!(fault.position.is_some());
    let Check::Fault(fault) = auditor.check(no_position) else {
        panic!("state {no_position} passes")
    };
    assert_eq!(
        (fault.position, fault.what.to_string().as_str()),
        (None, "holds draw but is no legal position")
    );
    let audit = auditor.run(1, &Silent);
    assert!(!audit.is_consistent());
    assert!(audit.faults >= 2, "{audit:?}");
    assert!(audit.first_faults.iter().any(|f| f.state == no_position), "{audit:?}");

    // The command line: one error line naming the table and the fix, the faults listed on
    // stdout, and in --json.
    let error = fails(&dir, &["audit", "chess", "KRvK"]);
    assert!(
        error.contains("1 of 1 table disagrees with the rules: KRvK (delete and generate again)"),
        "{error}"
    );
    let report = String::from_utf8(egtb(&dir, &["audit", "chess", "KRvK"]).stdout).unwrap();
    assert!(
        report.contains(&format!("{} slots disagree with the rules", audit.faults)),
        "{report}"
    );
    let out = egtb(&dir, &["audit", "chess", "KRvK", "--json"]);
    assert!(!out.status.success());
    let json: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["consistent"], false);
    assert_eq!(
        json["rules"],
        serde_json::json!({}),
        "the rule options, as other commands give them"
    );
    assert_eq!(json["tables"][0]["faults"], audit.faults);
    let faults = json["tables"][0]["first_faults"].as_array().unwrap();
    assert_eq!(faults.len(), audit.first_faults.len());
    // Each fault by name, with the values it names.
    let fault = |state: u64| faults.iter().find(|f| f["state"] == state).unwrap();
    let (lengthened, unplaced) = (fault(longer), fault(no_position));
    assert_eq!(lengthened["fault"], "wrong_value", "{lengthened}");
    assert_eq!(
        lengthened["stored"],
        serde_json::json!({ "outcome": "win", "dtm": dtm + 2 })
    );
    assert_eq!(lengthened["found"], serde_json::json!({ "outcome": "win", "dtm": dtm }));
    assert_eq!(
        (&unplaced["fault"], &unplaced["position"], &unplaced["found"]),
        (&serde_json::json!("not_a_position"), &Json::Null, &Json::Null),
        "{unplaced}"
    );
    assert_eq!(unplaced["stored"]["outcome"], "draw");
    assert_eq!(unplaced["text"], "holds draw but is no legal position");

    // Every 7th slot: fewer audited, the same kind of answer.
    let out = egtb(&dir, &["audit", "chess", "KRvK", "--json", "--every", "7"]);
    let json: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["tables"][0]["audited"], index.states().div_ceil(7));
    assert!(fails(&dir, &["audit", "chess", "KRvK", "--every", "0"]).contains("--every"));
    // A table named twice, or named and in the batch, is audited once.
    let out = egtb(&dir, &["audit", "chess", "KRvK", "KRvK", "--pieces", "2", "--json"]);
    let json: Json = serde_json::from_slice(&out.stdout).unwrap();
    let audited = materials(&json);
    assert_eq!(audited, ["KRvK", "KvK"]);
    assert!(fails(&dir, &["audit", "chess", "KQvK"]).contains("egtb generate chess KQvK"));
    // A batch missing tables names the one command that builds them all.
    let batch = fails(&dir, &["audit", "chess", "KQvK", "--pieces", "3", "--every", "9"]);
    assert!(
        batch.contains("; build it with: egtb generate chess KQvK --pieces 3 --tables "),
        "{batch}"
    );
}

#[test]
fn a_broken_entry_of_a_smaller_table_is_caught_where_a_capture_reaches_it() {
    let dir = temp_dir("audit-exit");
    succeeds(&dir, &["generate", "chess", "KRvK"]);
    // A legal KvK position, white to move, as after black's king took the rook, marked broken.
    let path = dir.join("chess/KvK.egtb");
    let header = Table::open_unchecked(&path).unwrap().header;
    let mut entries = Table::open_unchecked(&path).unwrap().load().unwrap().entries().to_vec();
    let kings = Chess::index(&Material::parse(GameId::Chess, "KvK").unwrap(), Default::default()).unwrap();
    let target = (0..kings.states())
        .find(|&s| kings.side_to_move(s) == Side::First && kings.decode(s).is_some())
        .unwrap();
    entries[target as usize] = BROKEN;
    table::write(&path, header, &entries, &Silent).unwrap();

    let out = egtb(&dir, &["audit", "chess", "KvK", "KRvK", "--json"]);
    assert!(!out.status.success());
    let json: Json = serde_json::from_slice(&out.stdout).unwrap();
    let faults = |table: usize| json["tables"][table]["first_faults"].as_array().unwrap().clone();
    // In KvK itself: the position marked broken, then those whose moves reach it.
    let kvk: Vec<_> = faults(0)
        .iter()
        .map(|f| (f["state"].as_u64().unwrap(), f["fault"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(kvk[0], (target, "marked_broken".to_string()), "{kvk:?}");
    assert!(
        kvk.len() > 1 && kvk[1..].iter().all(|(_, f)| f == "exit_broken"),
        "{kvk:?}"
    );
    let captures = faults(1);
    assert!(!captures.is_empty(), "{json}");
    for fault in &captures {
        assert_eq!(
            (&fault["fault"], &fault["material"]),
            (&Json::from("exit_broken"), &Json::from("KvK")),
            "{fault}"
        );
        let after = Chess::parse_position(fault["position_after"].as_str().unwrap()).unwrap();
        assert_eq!(kings.locate(&Chess::oriented(&after).1), target, "{fault}");
        assert!(
            fault["text"]
                .as_str()
                .unwrap()
                .ends_with("which the table of KvK marks broken"),
            "{fault}"
        );
    }
}
