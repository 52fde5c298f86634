//! `egtb audit`: check tables on disk against the rules, position by position.

use std::time::Instant;

use anyhow::{Result, bail};
use serde_json::json;

use super::{Env, requested_materials};
use crate::audit::{Audit, Auditor, Fault, Wrong};
use crate::counted::{counted, grouped};
use crate::error::Error;
use crate::games::{Game, Rules};
use crate::progress::Bar;
use crate::report::{rules_json, value_json};
use crate::shell::tables_option;
use crate::solver::Progress;

/// What to audit.
#[derive(Clone, Debug)]
pub struct Request {
    /// Material names; empty with `pieces` for every table up to a size.
    pub materials: Vec<String>,
    /// Every supported material with at most this many pieces.
    pub pieces: Option<usize>,
    /// Audit every this-many-th slot (1: all).
    pub every: u64,
}

/// The command that builds every table a batch of audits reads, as the batch was asked for.
fn build_command<G: Game>(env: &Env, request: &Request, rules: G::Rules) -> String {
    let mut command = format!("egtb generate {}", G::ID);
    for name in &request.materials {
        command += &format!(" {name}");
    }
    if let Some(pieces) = request.pieces {
        command += &format!(" --pieces {pieces}");
    }
    format!("{command}{} {}", rules.flags(), tables_option(&env.tables))
}

/// Audits the requested tables, prints what each audit found, and fails when any table
/// disagrees with the rules.
pub fn run<G: Game>(env: &Env, request: &Request) -> Result<()> {
    let rules = env.rules::<G>()?;
    let materials = requested_materials::<G>(&request.materials, request.pieces, "audit")?;
    Auditor::<G>::check_present(&env.tables, &materials, rules).map_err(|e| match materials.len() {
        1 => e,
        _ => Error::built_by(e, build_command::<G>(env, request, rules)),
    })?;
    let bar = Bar::new();
    let audited = materials
        .iter()
        .map(|material| {
            bar.table(&material.to_string());
            let start = Instant::now();
            let audit = Auditor::<G>::open(&env.tables, material, rules)?.run(request.every, &bar);
            let seconds = start.elapsed().as_secs_f64();
            if !env.json {
                bar.suspend(|| print_report::<G>(&material.to_string(), &audit, seconds));
            }
            Ok((material.to_string(), audit, seconds))
        })
        .collect::<Result<Vec<_>>>();
    bar.finish();
    let reports = audited?;
    if env.json {
        let tables: Vec<_> = reports
            .iter()
            .map(|(material, audit, seconds)| report_json(material, audit, *seconds))
            .collect();
        let consistent = reports.iter().all(|(_, audit, _)| audit.is_consistent());
        println!(
            "{}",
            json!({ "game": G::ID.name(), "rules": rules_json(rules), "tables": tables, "consistent": consistent })
        );
    }
    let faulty: Vec<&str> = reports
        .iter()
        .filter(|(_, audit, _)| !audit.is_consistent())
        .map(|(material, _, _)| material.as_str())
        .collect();
    if !faulty.is_empty() {
        bail!(
            "{} of {} {} with the rules: {} (delete and generate again)",
            faulty.len(),
            counted(materials.len(), "table"),
            disagree(faulty.len() as u64),
            faulty.join(", ")
        );
    }
    if !env.json && reports.len() > 1 {
        let audited: u64 = reports.iter().map(|(_, audit, _)| audit.audited).sum();
        let seconds: f64 = reports.iter().map(|(_, _, seconds)| seconds).sum();
        println!(
            "{}, {} audited in {seconds:.1} s: every value follows from the moves",
            counted(reports.len(), "table"),
            counted(audited, "slot")
        );
    }
    Ok(())
}

/// The verb for `n` tables or slots found wrong.
fn disagree(n: u64) -> &'static str {
    if n == 1 { "disagrees" } else { "disagree" }
}

/// One table's audit for people.
fn print_report<G: Game>(material: &str, audit: &Audit, seconds: f64) {
    let sampled = if audit.audited == audit.states {
        format!("all {} slots", grouped(audit.states))
    } else {
        format!("{} of {} slots", grouped(audit.audited), grouped(audit.states))
    };
    let ruled = if audit.ruled > 0 {
        format!(", {} lost by rulings", grouped(audit.ruled))
    } else {
        String::new()
    };
    let verdict = if audit.is_consistent() {
        "every value follows from the moves".to_string()
    } else {
        format!(
            "{} {} with the rules",
            counted(audit.faults, "slot"),
            disagree(audit.faults)
        )
    };
    println!(
        "{} {material}: {sampled} ({} holding a legal position{ruled}) in {seconds:.1} s: {verdict}",
        G::ID,
        grouped(audit.positions)
    );
    for fault in &audit.first_faults {
        let position = fault.position.as_deref().unwrap_or("(no legal position)");
        println!("  state {}: {position} {}", fault.state, fault.what);
    }
}

/// One fault for programs: its `fault` by name, in words (`text`), and the values, position and
/// material it names (`stored`, `found`, the `position_after` a move and its `material`; null
/// where it names none).
fn fault_json(fault: &Fault) -> serde_json::Value {
    let (stored, found, after) = match &fault.what {
        Wrong::NotAPosition { stored } => (Some(*stored), None, None),
        Wrong::WrongValue { stored, found } => (Some(*stored), Some(*found), None),
        Wrong::ExitMissing { to, material } | Wrong::ExitBroken { to, material } => (None, None, Some((to, material))),
        Wrong::MarkedBroken | Wrong::NoMoveNoEnd => (None, None, None),
    };
    json!({
        "state": fault.state,
        "position": fault.position,
        "fault": fault.what.key(),
        "text": fault.what.to_string(),
        "stored": stored.map(value_json),
        "found": found.map(value_json),
        "position_after": after.map(|(to, _)| to),
        "material": after.map(|(_, material)| material.to_string()),
    })
}

/// One table's audit for programs.
fn report_json(material: &str, audit: &Audit, seconds: f64) -> serde_json::Value {
    let faults: Vec<_> = audit.first_faults.iter().map(fault_json).collect();
    json!({
        "material": material,
        "states": audit.states,
        "audited": audit.audited,
        "positions": audit.positions,
        "ruled": audit.ruled,
        "faults": audit.faults,
        "first_faults": faults,
        "consistent": audit.is_consistent(),
        "seconds": seconds,
    })
}
