//! Choosing buckets from observed sizes (`--bucket DIM=auto:FILE`).
//!
//! Cost model: running bucket `b` costs `b` (compute linear in the padded
//! size), so the expected padded compute of a bucket set is the mean over the
//! observations of the bucket each one lands in. The optimum places every
//! bucket at an observed size and the largest at the largest observation, so a
//! dynamic program over the distinct observed sizes finds it exactly:
//! `best[c][j]` is the least total cost of covering the sizes up to `u_j` with
//! `c` buckets, the last one at `u_j`. Ties go to fewer buckets, then to the
//! smaller sizes, so the choice is deterministic.

use std::fmt;

/// One chosen bucket and what lands in it.
#[derive(Clone, Debug, PartialEq)]
pub struct BucketUse {
    /// The bucket size.
    pub size: u64,
    /// Smallest and largest observed size that lands here.
    pub covers: (u64, u64),
    /// Number of observations landing here.
    pub count: u64,
    /// Padding waste: padded elements / bucket elements over those observations.
    pub waste: f64,
}

/// The chosen buckets with their padding waste.
#[derive(Clone, Debug, PartialEq)]
pub struct AutoBuckets {
    /// The dim the buckets are for.
    pub dim: String,
    /// One entry per bucket, increasing.
    pub buckets: Vec<BucketUse>,
    /// Mean padded size over mean actual size (1.0 = no waste).
    pub overhead: f64,
}

impl AutoBuckets {
    /// The bucket sizes.
    pub fn sizes(&self) -> Vec<u64> {
        self.buckets.iter().map(|b| b.size).collect()
    }
}

impl fmt::Display for AutoBuckets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total: u64 = self.buckets.iter().map(|b| b.count).sum();
        writeln!(
            f,
            "auto buckets for `{}` from {total} observed size(s): expected padded compute {:.3}x the unpadded",
            self.dim, self.overhead
        )?;
        for b in &self.buckets {
            writeln!(
                f,
                "  bucket {:>6}: sizes {}..={} ({} observation(s), {:.1}% of them), padding waste {:.1}%",
                b.size,
                b.covers.0,
                b.covers.1,
                b.count,
                100.0 * b.count as f64 / total.max(1) as f64,
                100.0 * b.waste
            )?;
        }
        Ok(())
    }
}

/// Pick at most `max_buckets` buckets minimizing expected padded compute.
pub fn choose(dim: &str, observed: &[u64], max_buckets: usize) -> Result<AutoBuckets, String> {
    if max_buckets == 0 {
        return Err("--buckets-max must be at least 1".into());
    }
    let mut sizes: Vec<u64> = observed.to_vec();
    sizes.sort_unstable();
    if sizes.first().is_none_or(|&s| s == 0) {
        return Err(format!("no positive sizes observed for `{dim}`"));
    }
    let mut distinct: Vec<(u64, u64)> = Vec::new();
    for &s in &sizes {
        match distinct.last_mut() {
            Some((v, c)) if *v == s => *c += 1,
            _ => distinct.push((s, 1)),
        }
    }
    let chosen = optimal(&distinct, max_buckets.min(distinct.len()));
    Ok(report(dim, &distinct, &chosen))
}

/// Indices into `distinct` of the optimal bucket positions (increasing).
fn optimal(distinct: &[(u64, u64)], k: usize) -> Vec<usize> {
    let m = distinct.len();
    let mut prefix = vec![0u128; m + 1];
    for (j, &(_, c)) in distinct.iter().enumerate() {
        prefix[j + 1] = prefix[j] + c as u128;
    }
    let range = |i: usize, j: usize| prefix[j + 1] - prefix[i];
    // best[c][j]: least cost with c+1 buckets, the last at j; from[c][j]: the previous bucket.
    let mut best = vec![vec![u128::MAX; m]; k];
    let mut from = vec![vec![usize::MAX; m]; k];
    for j in 0..m {
        best[0][j] = distinct[j].0 as u128 * range(0, j);
    }
    for c in 1..k {
        for j in c..m {
            for i in (c - 1)..j {
                let cost = best[c - 1][i].saturating_add(distinct[j].0 as u128 * range(i + 1, j));
                if cost < best[c][j] {
                    (best[c][j], from[c][j]) = (cost, i);
                }
            }
        }
    }
    // Fewest buckets reaching the least cost.
    let last = m - 1;
    let c = (0..k).min_by_key(|&c| (best[c][last], c)).unwrap_or(0);
    let mut out = vec![last];
    let (mut c, mut j) = (c, last);
    while c > 0 {
        j = from[c][j];
        out.push(j);
        c -= 1;
    }
    out.reverse();
    out
}

fn report(dim: &str, distinct: &[(u64, u64)], chosen: &[usize]) -> AutoBuckets {
    let mut buckets = Vec::new();
    let (mut start, mut padded, mut actual) = (0usize, 0u128, 0u128);
    for &j in chosen {
        let size = distinct[j].0;
        let group = &distinct[start..=j];
        let count: u64 = group.iter().map(|&(_, c)| c).sum();
        let used: u128 = group.iter().map(|&(s, c)| s as u128 * c as u128).sum();
        let total = size as u128 * count as u128;
        buckets.push(BucketUse {
            size,
            covers: (group[0].0, size),
            count,
            waste: (total - used) as f64 / total.max(1) as f64,
        });
        padded += total;
        actual += used;
        start = j + 1;
    }
    AutoBuckets { dim: dim.to_string(), buckets, overhead: padded as f64 / actual.max(1) as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exhaustive check of the dynamic program against every bucket subset.
    fn brute(observed: &[u64], k: usize) -> u128 {
        let mut d: Vec<u64> = observed.to_vec();
        d.sort_unstable();
        d.dedup();
        let max = *d.last().unwrap();
        let cost =
            |set: &[u64]| -> u128 { observed.iter().map(|&s| *set.iter().find(|&&b| b >= s).unwrap() as u128).sum() };
        let inner = &d[..d.len() - 1];
        (0u32..(1 << inner.len()))
            .filter(|mask| (mask.count_ones() as usize) < k)
            .map(|mask| {
                let mut set: Vec<u64> =
                    inner.iter().enumerate().filter(|(i, _)| mask >> i & 1 == 1).map(|(_, &s)| s).collect();
                set.push(max);
                cost(&set)
            })
            .min()
            .unwrap()
    }

    #[test]
    fn matches_brute_force() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for case in 0..300 {
            let n = 1 + case % 12;
            let obs: Vec<u64> = (0..n)
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    1 + (state >> 33) % 40
                })
                .collect();
            for k in 1..=4 {
                let a = choose("d", &obs, k).unwrap();
                let got: u128 = obs.iter().map(|&s| *a.sizes().iter().find(|&&b| b >= s).unwrap() as u128).sum();
                assert_eq!(got, brute(&obs, k), "obs {obs:?} k {k}: chose {:?}", a.sizes());
                assert!(a.sizes().len() <= k);
            }
        }
    }

    #[test]
    fn reports_waste_and_coverage() {
        let a = choose("seq", &[10, 10, 12, 100, 128], 2).unwrap();
        assert_eq!(a.sizes(), vec![12, 128]);
        assert_eq!(a.buckets[0].covers, (10, 12));
        assert_eq!(a.buckets[0].count, 3);
        assert!((a.buckets[0].waste - 4.0 / 36.0).abs() < 1e-12);
        assert!((a.buckets[1].waste - 28.0 / 256.0).abs() < 1e-12);
        let text = a.to_string();
        assert!(text.contains("bucket     12: sizes 10..=12 (3 observation(s)"), "{text}");
    }

    #[test]
    fn rejects_empty_and_zero() {
        assert!(choose("seq", &[], 3).is_err());
        assert!(choose("seq", &[0, 4], 3).is_err());
        assert!(choose("seq", &[4], 0).is_err());
        assert_eq!(choose("seq", &[5, 5, 5], 4).unwrap().sizes(), vec![5]);
    }
}
