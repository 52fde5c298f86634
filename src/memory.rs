//! How much memory this process may use, so that a batch too large for the machine stops before
//! the work starts, with one line naming what it needs, instead of being killed hours in.
//!
//! What is available is the least of the kernel's estimate of memory available without swapping
//! (`MemAvailable` in `/proc/meminfo`), the room left under the process's cgroup limit (cgroup v2
//! `memory.max` less `memory.current`, or v1 `memory.limit_in_bytes` less
//! `memory.usage_in_bytes`, the usage less its inactive file cache, which the kernel reclaims
//! first), and [`MAX_MEMORY_VAR`] when it is set.
//!
//! Large working arrays are asked to sit in huge pages ([`filled_vec`]): the solvers read them
//! at random, and with 4 KiB pages nearly every such read also misses the TLB, which costs a
//! second trip to memory (two, under a hypervisor's nested page tables).

use std::collections::TryReserveError;
use std::fs;

use anyhow::{Context, Result, bail};

use crate::counted::bytes;
use crate::settings;

/// Environment variable capping the memory egtb counts on, in bytes or with a K, M, G or T
/// suffix (binary units): for a machine shared with other work.
pub const MAX_MEMORY_VAR: &str = "EGTB_MAX_MEMORY";

/// Bytes this process can count on now, or `None` where the system does not say (not Linux) and
/// no cap is set.
pub fn available_bytes() -> Result<Option<u64>> {
    let cap = settings::var(MAX_MEMORY_VAR)
        .map(|text| parse_size(&text).with_context(|| format!("{MAX_MEMORY_VAR}={text} is not a size")))
        .transpose()?;
    let meminfo = fs::read_to_string("/proc/meminfo").ok();
    let system = meminfo.as_deref().and_then(mem_available);
    Ok([system, cgroup_room(), cap].into_iter().flatten().min())
}

/// Fails, before any work, when `needed` bytes are more than [`available_bytes`]: `what` names
/// the work (such as "generating KRRvKRR"). Passes where the system does not say.
pub fn ensure_available(needed: u64, what: &str) -> Result<()> {
    match available_bytes()? {
        Some(available) => check(needed, available, what),
        None => Ok(()),
    }
}

/// A vector of `n` copies of `value`, its memory advised to the kernel as huge pages before it
/// is first written (Linux; elsewhere, and where the kernel declines, ordinary pages).
pub fn filled_vec<T: Copy>(n: usize, value: T) -> Vec<T> {
    fill_advised(Vec::with_capacity(n), n, value)
}

/// [`filled_vec`], or the error of an allocation the allocator refuses.
pub fn try_filled_vec<T: Copy>(n: usize, value: T) -> Result<Vec<T>, TryReserveError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)?;
    Ok(fill_advised(v, n, value))
}

/// Fills `v`, empty with room for `n`, with `n` copies of `value`, once its memory is advised as
/// huge pages.
fn fill_advised<T: Copy>(mut v: Vec<T>, n: usize, value: T) -> Vec<T> {
    advise_huge_pages(v.spare_capacity_mut());
    v.resize(n, value);
    v
}

/// Asks the kernel to back the 2 MiB-aligned part of `memory` with huge pages. Advice only: a
/// refusal changes nothing but speed.
fn advise_huge_pages<T>(memory: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        let start = memory.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(memory);
        let (first, last) = (start.next_multiple_of(HUGE_PAGE), end / HUGE_PAGE * HUGE_PAGE);
        if first < last {
            // SAFETY: the range lies inside `memory`, which this process owns; the advice
            // changes how the kernel backs the pages, never their contents.
            unsafe { libc::madvise(first as *mut libc::c_void, last - first, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = memory;
}

/// The check itself, with what is available given.
fn check(needed: u64, available: u64, what: &str) -> Result<()> {
    if needed > available {
        bail!(
            "{what} needs about {} of memory (estimated peak) but only {} is available; free memory, \
             or run it on a machine with more ({MAX_MEMORY_VAR} caps what egtb counts on)",
            bytes(needed),
            bytes(available)
        );
    }
    Ok(())
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The room left under this process's cgroup memory limit, if it has one.
fn cgroup_room() -> Option<u64> {
    let cgroups = fs::read_to_string("/proc/self/cgroup").ok()?;
    for line in cgroups.lines() {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let (limit, usage) = if controllers.is_empty() {
            ("memory.max", "memory.current")
        } else if controllers.split(',').any(|c| c == "memory") {
            ("memory.limit_in_bytes", "memory.usage_in_bytes")
        } else {
            continue;
        };
        let base = if controllers.is_empty() {
            "/sys/fs/cgroup".to_string()
        } else {
            "/sys/fs/cgroup/memory".to_string()
        };
        // Inside a container the cgroup's own folder is usually mounted as the root.
        for dir in [format!("{base}{path}"), base.clone()] {
            let read = |file: &str| fs::read_to_string(format!("{dir}/{file}")).ok();
            if let (Some(limit), Some(usage)) = (read(limit), read(usage)) {
                return room(&limit, &usage, &read("memory.stat").unwrap_or_default());
            }
        }
    }
    None
}

/// The room under a cgroup limit given the texts of its limit, usage and stat files (`max`, or
/// a number as large as a page count can be, means no limit).
fn room(limit: &str, usage: &str, stat: &str) -> Option<u64> {
    let limit: u64 = limit.trim().parse().ok()?;
    let usage: u64 = usage.trim().parse().ok()?;
    let inactive_file = stat
        .lines()
        .filter_map(|l| l.split_once(' '))
        .find(|(key, _)| matches!(*key, "inactive_file" | "total_inactive_file"))
        .and_then(|(_, value)| value.trim().parse::<u64>().ok())
        .unwrap_or(0);
    (limit < 1 << 60).then(|| limit.saturating_sub(usage.saturating_sub(inactive_file)))
}

/// A size in bytes, or with a K, M, G or T suffix (binary units, an optional `iB` or `B`).
fn parse_size(text: &str) -> Result<u64> {
    let text = text.trim();
    let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    const FORM: &str = "give a whole number of bytes, with K, M, G or T after it for KiB to TiB (16G)";
    let number: u64 = number.parse().ok().context(FORM)?;
    let shift = match unit.trim().trim_end_matches("iB").trim_end_matches('B') {
        "" => 0,
        "K" | "k" => 10,
        "M" | "m" => 20,
        "G" | "g" => 30,
        "T" | "t" => 40,
        _ => bail!(FORM),
    };
    number.checked_mul(1 << shift).context("too large")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_mem_available() {
        let meminfo = "MemTotal:       24576000 kB\nMemFree:         4000000 kB\nMemAvailable:   21000000 kB\n";
        assert_eq!(mem_available(meminfo), Some(21_000_000 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn reads_cgroup_room_and_ignores_no_limit() {
        assert_eq!(room("8589934592\n", "1073741824\n", ""), Some(7 << 30));
        let stat = "cache 3000\ninactive_file 1073741824\nactive_file 5\n";
        assert_eq!(room("8589934592\n", "2147483648\n", stat), Some(7 << 30));
        assert_eq!(room("max\n", "1073741824\n", stat), None);
        assert_eq!(room("9223372036854771712\n", "5\n", ""), None);
        assert_eq!(room("100\n", "200\n", ""), Some(0));
    }

    #[test]
    fn filled_vectors_hold_exactly_their_copies() {
        let big = filled_vec(3 << 20, 7u16);
        assert_eq!((big.len(), big.capacity()), (3 << 20, 3 << 20));
        assert!(big.iter().all(|&e| e == 7));
        assert_eq!(try_filled_vec(5, 1u8).unwrap(), [1; 5]);
        assert!(
            try_filled_vec(usize::MAX / 2, 0u16).is_err(),
            "a refused allocation is an error"
        );
    }

    #[test]
    fn parses_sizes_in_binary_units() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("8G").unwrap(), 8 << 30);
        assert_eq!(parse_size("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_size(" 2T ").unwrap(), 2 << 40);
        let error = parse_size("1.5G").unwrap_err().to_string();
        assert!(error.contains("a whole number of bytes"), "{error}");
        assert!(parse_size("lots").is_err());
        assert!(parse_size("3X").is_err());
        assert!(parse_size("99999999999T").is_err());
    }

    #[test]
    fn too_little_memory_is_one_line_naming_the_need() {
        assert!(check(6 << 30, 8 << 30, "generating KRRvKRR").is_ok());
        let error = check(7 << 30, 4 << 30, "generating KRRvKRR").unwrap_err().to_string();
        assert!(error.starts_with("generating KRRvKRR needs about 7.0 GiB"), "{error}");
        assert!(error.contains("only 4.0 GiB is available"), "{error}");
        assert!(!error.contains('\n'));
        let error = check(7 << 20, 3 << 20, "loading table KQvKR").unwrap_err().to_string();
        assert!(
            error.contains("needs about 7.0 MiB of memory (estimated peak) but only 3.0 MiB"),
            "{error}"
        );
    }
}
