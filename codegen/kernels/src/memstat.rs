//! Resident memory of this process, as Linux reports it, for the generated
//! command line's `--mem` (what `Model::new` and the first run add). Other
//! systems report nothing (`None`), never a made-up figure.

/// Resident memory in KiB, as `/proc/self/status` reports it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Resident {
    /// The resident set now (`VmRSS`).
    pub now: u64,
    /// Its peak since the last [`reset_peak`] (`VmHWM`).
    pub peak: u64,
    /// Anonymous pages now (`RssAnon`: the heap, stacks).
    pub anon: u64,
    /// File-backed pages now (`RssFile`: the binary's code and embedded weights).
    pub file: u64,
    /// Pages of executable mappings now (the program's and libraries' code;
    /// the `Rss` of `/proc/self/smaps` entries whose permissions include `x`).
    pub code: u64,
}

/// The resident memory now, if the system reports it.
pub fn resident_kib() -> Option<Resident> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line[name.len()..].trim().trim_end_matches("kB").trim().parse::<u64>().ok()
    };
    let code = code_kib().unwrap_or(0);
    Some(Resident {
        now: field("VmRSS:")?,
        peak: field("VmHWM:")?,
        anon: field("RssAnon:")?,
        file: field("RssFile:")?,
        code,
    })
}

/// Resident KiB of the executable mappings (see [`Resident::code`]).
fn code_kib() -> Option<u64> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    let (mut exec, mut total) = (false, 0);
    for line in smaps.lines() {
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        if first.contains('-') && first.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') {
            exec = words.next().is_some_and(|perms| perms.contains('x'));
        } else if first == "Rss:" && exec {
            total += words.next().and_then(|n| n.parse::<u64>().ok()).unwrap_or(0);
        }
    }
    Some(total)
}

/// Restart the peak (`VmHWM`) from the current resident set; false if the
/// system does not support it (Linux does since 4.0).
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn a_touched_buffer_raises_the_peak_by_its_size() {
        assert!(reset_peak());
        let before = resident_kib().expect("linux reports VmRSS").now;
        let mut v = vec![0u8; 64 << 20];
        for i in (0..v.len()).step_by(4096) {
            v[i] = 1;
        }
        let r = resident_kib().expect("linux reports VmHWM");
        assert!(r.code > 0 && r.code < r.now, "{r:?}");
        let peak = r.peak;
        assert!(peak >= before + (60 << 10), "peak {peak} KiB, before {before} KiB");
        assert_eq!(v.iter().step_by(4096).map(|&b| b as usize).sum::<usize>(), 16384);
    }
}
